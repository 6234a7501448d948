/* SPDX-License-Identifier: MIT */
/* Chapter 7, exercise ch07.3: the matrix-free w = M^-1 J^T lambda, the PROX-Jacobi sweep and the
   adaptive loop every PROX solver runs (notes Algorithm 11). Specification:
   lib/include/cf/cf_ch07.h; text: chapters/ch07/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch07.h"

void cf_prox_w(const cfProxProblem *p, const double *lambda, double *w)
{
    //> ch07:w
    // BEGIN SOLUTION ch07.3
    const cfCsr *G = &p->G;
    memset(w, 0, (size_t)p->nv * sizeof *w);
    for (int r = 0; r < G->rows; ++r)
        for (int e = G->rowptr[r]; e < G->rowptr[r + 1]; ++e) w[G->colidx[e]] += lambda[r] * G->val[e];
    // END SOLUTION
    // STUB ch07.3: CF_TODO("ch07.3");
    //< ch07:w
}

double cf_prox_jacobi_sweep(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                            const double *lambda, double *trial, double *w, double *v)
{
    //> ch07:jacobi-sweep
    // BEGIN SOLUTION ch07.3
    int d = p->dim;
    cf_prox_w(p, lambda, w);
    cf_prox_contact_velocity(p, w, v);
    double e = 0.0;
    for (int a = 0; a < p->nc; ++a) {
        const double *l = &lambda[d * a], *u = &v[d * a], *Ra = &R[d * d * a];
        double *x = &trial[d * a], z[CF_PROX_MAX_DIM], rf[3];
        for (int k = 0; k < d; ++k) {
            double ru = 0.0;
            for (int j = 0; j < d; ++j) ru += Ra[d * k + j] * u[j];
            z[k] = l[k] - scale * ru;
        }
        x[0] = cf_prox_normal(z[0]);
        /* Jacobi: the friction set is sized by the previous normal impulse */
        cf_prox_friction(d - 1, &z[1], &p->mu[3 * a], l[0], cf_prox_friction_r(o, Ra, d, rf), o->box, o->ellipsoid_tol, &x[1]);
        for (int k = 0; k < d; ++k)
            if (fabs(x[k] - l[k]) > e || x[k] != x[k]) e = fabs(x[k] - l[k]); /* fmax would drop a NaN */
    }
    return e;
    // END SOLUTION
    // STUB ch07.3: return CF_TODO_F("ch07.3");
    //< ch07:jacobi-sweep
}

cfStatus cf_prox_solve(const cfProxProblem *p, const cfProxOptions *o, cfProxSweep sweep, double *lambda,
                       cfReport *rep, cfProxStats *stats)
{
    double t0 = cf_seconds();
    cfStatus st = cf_prox_check(p, lambda, o, NULL);
    if (st != CF_OK) {
        if (rep) rep->status = st;
        return st;
    }
    int d = p->dim, m = d * p->nc;
    double *R = malloc((size_t)(p->nc > 0 ? d * d * p->nc : 1) * sizeof *R);
    double *trial = malloc((size_t)(m > 0 ? m : 1) * sizeof *trial), *v = malloc((size_t)(m > 0 ? m : 1) * sizeof *v);
    double *w = malloc((size_t)(p->nv > 0 ? p->nv : 1) * sizeof *w);
    cfProxStats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    st = R && trial && v && w ? cf_prox_r_init(p, o, R) : CF_NO_MEMORY;
    if (st != CF_OK) {
        free(R), free(trial), free(v), free(w);
        if (rep) rep->status = st;
        return st;
    }
    //> ch07:solve
    // BEGIN SOLUTION ch07.3
    for (int a = 0; a < p->nc; ++a)
        for (int k = 0; k < d; ++k) {
            double row = 0.0;
            for (int j = 0; j < d; ++j) row += fabs(R[d * d * a + d * k + j]);
            stats->r_max = fmax(stats->r_max, row);
        }
    double norm_A = o->bound_tol ? cf_prox_norm_estimate(p, 100, 1e-6) : 0.0;
    double e_old = INFINITY, tol = o->tol_abs;
    cfProxAdapt ad;
    cf_prox_adapt_init(&ad);
    ad.scale = fmax(o->scale0, o->scale_min);
    int k = 0;
    cfStopReason why = o->max_iter == 0 ? CF_STOP_MAX_ITER : CF_STOP_NONE;
    while (why == CF_STOP_NONE) {
        double e = sweep(p, R, ad.scale, o, lambda, trial, w, v);
        ++k;
        double before = ad.scale;
        if (cf_prox_accept(o, &ad, e)) {
            double e_prev = e_old;
            memcpy(lambda, trial, (size_t)m * sizeof *lambda);
            e_old = e;
            stats->accepted++;
            stats->grows += ad.scale > before;
            /* tol_abs per unit of the starting r-factors: a step shrunk by the scale is not convergence */
            tol = ad.scale * o->tol_abs;
            if (o->bound_tol)
                tol = fmax(tol, cf_prox_tol_bound(ad.scale * stats->r_max, norm_A, cf_vec_norm_inf(m, lambda)));
            if (e <= tol) why = CF_STOP_ABSOLUTE;
            else if (o->tol_rel > 0.0 && isfinite(e_prev) && fabs(e - e_prev) <= o->tol_rel * e_prev)
                why = CF_STOP_RELATIVE;
        } else {
            stats->rollbacks++;
            if (ad.stalled) why = CF_STOP_DIVERGENCE;
        }
        if (rep) cf_report_push(rep, isfinite(e_old) ? e_old : e);
        if (why == CF_STOP_NONE && k >= o->max_iter) why = CF_STOP_MAX_ITER;
    }
    stats->sweeps = k;
    stats->r_scale = ad.scale;
    stats->resets = ad.resets;
    stats->merit = e_old;
    stats->tol_used = tol;
    st = cf_prox_finish(rep, stats, why, k, e_old, t0);
    // END SOLUTION
    // STUB ch07.3: st = CF_TODO_S("ch07.3");
    //< ch07:solve
    free(R);
    free(trial);
    free(v);
    free(w);
    return st;
}
