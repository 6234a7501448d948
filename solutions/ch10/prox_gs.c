/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.3 (first half): anisotropic PROX-Gauss-Seidel, notes Algorithm 22:
   chapter 7's sweep with the cone made from the new normal impulse before each friction prox,
   inside the adaptive r loop. Specification: lib/include/cf/cf_ch10.h; text: chapters/ch10/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch10.h"

double cf_aniso_prox_gs_sweep(const cfProxProblem *p, const double *r, cfConeGenerator gen, void *ctx,
                              double ellipse_tol, const double *lambda, double *trial, double *w)
{
    //> ch10:prox-sweep
    // BEGIN SOLUTION ch10.3
    const cfCsr *J = &p->J, *G = &p->G;
    memcpy(trial, lambda, (size_t)3 * p->nc * sizeof *trial);
    cf_prox_w(p, lambda, w);
    double e = 0.0;
    for (int a = 0; a < p->nc; ++a) {
        double *l = &trial[3 * a], v[3], z[3], x[3];
        const double *ra = &r[3 * a];
        for (int k = 0; k < 3; ++k) {
            int row = 3 * a + k;
            v[k] = p->b[row];
            for (int q = J->rowptr[row]; q < J->rowptr[row + 1]; ++q) v[k] += J->val[q] * w[J->colidx[q]];
            z[k] = l[k] - ra[k] * v[k];
        }
        x[0] = fmax(0.0, z[0]);
        /* the cone of the NEW normal impulse (Algorithm 22's G) */
        double axes[2];
        if (gen) {
            gen(ctx, a, x[0], &v[1], axes);
        } else {
            axes[0] = p->mu[3 * a] * x[0];
            axes[1] = p->mu[3 * a + 1] * x[0];
        }
        /* projection in the metric of diag(r_t, r_b)^-1: y = R^-1/2 x lives in axes / sqrt(r) */
        double sr[2] = {sqrt(ra[1]), sqrt(ra[2])}, ys[2] = {z[1] / sr[0], z[2] / sr[1]}, ax[2] = {axes[0] / sr[0], axes[1] / sr[1]}, y[2];
        cf_ellipse_project(ax, ys, ellipse_tol, y);
        x[1] = sr[0] * y[0];
        x[2] = sr[1] * y[1];
        for (int k = 0; k < 3; ++k) {
            int row = 3 * a + k;
            double dl = x[k] - l[k];
            if (dl == 0.0) continue;
            for (int q = G->rowptr[row]; q < G->rowptr[row + 1]; ++q) w[G->colidx[q]] += dl * G->val[q];
            if (fabs(dl) > e || dl != dl) e = fabs(dl); /* a NaN must not hide */
            l[k] = x[k];
        }
    }
    return e;
    // END SOLUTION
    // STUB ch10.3: (void)r; (void)gen; (void)ctx; (void)ellipse_tol; (void)lambda; (void)trial; (void)w;
    // STUB ch10.3: return CF_TODO_F("ch10.3");
    //< ch10:prox-sweep
}

cfStatus cf_aniso_prox_gs(const cfProxProblem *p, cfConeGenerator gen, void *ctx, const cfAnisoProxOptions *o,
                          double *lambda, cfReport *rep, int *rollbacks)
{
    double t0 = cf_seconds();
    if (rollbacks) *rollbacks = 0;
    cfProxOptions check = cf_prox_options_default();
    cfStatus st = o && p && p->dim == 3 && o->max_iter >= 0 && o->tol >= 0.0 && o->r > 0.0 && isfinite(o->r) &&
                          o->nu > 0.0 && o->nu <= 1.0 && o->scale_min > 0.0 && o->scale_min <= 1.0
                      ? cf_prox_check(p, lambda, &check, NULL)
                      : CF_BAD_INPUT;
    if (st != CF_OK) {
        if (rep) rep->status = st;
        return st;
    }
    int m = 3 * p->nc, k = 0;
    cfStopReason why = CF_STOP_NONE;
    double e_old = INFINITY;
    //> ch10:prox-loop
    // BEGIN SOLUTION ch10.3
    double *r = malloc((size_t)(m > 0 ? m : 1) * sizeof *r), *trial = malloc((size_t)(m > 0 ? m : 1) * sizeof *trial);
    double *r0 = malloc((size_t)(m > 0 ? m : 1) * sizeof *r0), *w = malloc((size_t)(p->nv > 0 ? p->nv : 1) * sizeof *w);
    if (!r || !trial || !r0 || !w) {
        free(r), free(trial), free(r0), free(w);
        if (rep) rep->status = CF_NO_MEMORY;
        return CF_NO_MEMORY;
    }
    for (int a = 0; a < p->nc; ++a) {
        double A[9];
        cf_prox_block(p, a, A);
        for (int i = 0; i < 3; ++i) r0[3 * a + i] = o->r / A[4 * i]; /* local: r / A_ii */
    }
    memcpy(r, r0, (size_t)m * sizeof *r);
    double scale = 1.0, ref = INFINITY; /* r = scale r0: the tolerance is per unit of the starting r-factors */
    bool progress = false;
    while (why == CF_STOP_NONE && k < o->max_iter) {
        double e = cf_aniso_prox_gs_sweep(p, r, gen, ctx, o->ellipse_tol, lambda, trial, w);
        ++k;
        if (e <= scale * o->tol) {
            memcpy(lambda, trial, (size_t)m * sizeof *lambda);
            e_old = e;
            why = CF_STOP_ABSOLUTE;
        } else if (e < ref) {
            memcpy(lambda, trial, (size_t)m * sizeof *lambda);
            e_old = ref = e;
            progress = true;
        } else { /* reject (also NaN): roll back and shrink every r, down to the floor */
            if (rollbacks) ++*rollbacks;
            if (scale > o->scale_min && scale * o->nu >= o->scale_min) {
                for (int i = 0; i < m; ++i) r[i] *= o->nu;
                scale *= o->nu;
            } else if (scale > o->scale_min) {
                scale = o->scale_min;
                for (int i = 0; i < m; ++i) r[i] = scale * r0[i];
            } else { /* at the floor: the full step again from the best iterate */
                if (!progress) why = CF_STOP_DIVERGENCE;
                progress = false;
                scale = 1.0;
                memcpy(r, r0, (size_t)m * sizeof *r);
                ref = INFINITY;
            }
        }
        if (rep) cf_report_push(rep, isfinite(e_old) ? e_old : e);
    }
    if (why == CF_STOP_NONE) why = CF_STOP_MAX_ITER;
    free(r), free(trial), free(r0), free(w);
    // END SOLUTION
    // STUB ch10.3: (void)gen; (void)ctx; (void)m; (void)e_old;
    // STUB ch10.3: st = CF_TODO_S("ch10.3");
    // STUB ch10.3: if (rep) rep->status = st;
    // STUB ch10.3: return st;
    //< ch10:prox-loop
    st = why == CF_STOP_ABSOLUTE ? CF_OK : why == CF_STOP_DIVERGENCE ? CF_DIVERGED : CF_MAX_ITER;
    if (rep) {
        rep->status = st;
        rep->reason = why;
        rep->iterations = k;
        rep->residual = e_old;
        rep->measure = CF_MEASURE_IMPULSE_CHANGE;
        rep->seconds = cf_seconds() - t0;
    }
    return st;
}
