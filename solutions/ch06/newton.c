/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.2: the damped non-smooth Newton loop (Newton direction, Armijo
   back-tracking on theta = |H|^2 / 2, a steepest-descent fallback) and the min-map
   reformulation of the LCP. Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch06.h"

cfStatus cf_lcp_minmap_eval(const cfLcp *p, const double *r, const double *x, double *H, cfTriplets *J)
{
    //> ch06:minmap-eval
    // BEGIN SOLUTION ch06.2
    const cfCsr *A = &p->A;
    for (int i = 0; i < p->n; ++i) {
        double w = p->b[i];
        for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) w += A->val[e] * x[A->colidx[e]];
        double da, db, ri = r ? r[i] : 1.0;
        H[i] = cf_ncp_eval(CF_NCP_MINMAP, w, x[i], ri, 1.0, &da, &db);
        if (!J) continue;
        cfStatus st = CF_OK;
        if (da != 0.0) /* active: the row of A (w_i = 0 is kept) */
            for (int e = A->rowptr[i]; e < A->rowptr[i + 1] && st == CF_OK; ++e)
                st = cf_triplets_add(J, i, A->colidx[e], da * A->val[e]);
        if (db != 0.0 && st == CF_OK) st = cf_triplets_add(J, i, i, db); /* inactive: x_i = 0 */
        if (st != CF_OK) return st;
    }
    return CF_OK;
    // END SOLUTION
    // STUB ch06.2: (void)p; (void)r; (void)x; (void)H; (void)J;
    // STUB ch06.2: return CF_TODO_S("ch06.2");
    //< ch06:minmap-eval
}

// BEGIN SOLUTION ch06.2
/* theta(x) = |H(x)|^2 / 2 (H written to @p H); +INFINITY when the evaluation fails */
static double merit(const cfNewtonSystem *sys, const double *x, double *H)
{
    if (sys->eval(sys->ctx, x, H, NULL) != CF_OK) return INFINITY;
    double t = 0.5 * cf_vec_dot(sys->n, H, H);
    return isfinite(t) ? t : INFINITY;
}

/* Armijo back-tracking along d: the first t = 2^-j with theta(x + t d) <= theta + c t (c < 0,
   the slope times sigma); xt and Ht receive the accepted point. Returns t, or 0 when none. */
static double armijo(const cfNewtonSystem *sys, const cfNewtonOptions *o, const double *x, const double *d,
                     double theta, double slope, double *xt, double *Ht, double *theta_t, int *backtracks)
{
    double t = 1.0;
    for (int j = 0; j <= o->max_backtracks; ++j, t *= 0.5) {
        for (int i = 0; i < sys->n; ++i) xt[i] = x[i] + t * d[i];
        *theta_t = merit(sys, xt, Ht);
        if (*theta_t <= theta + o->sigma * t * slope) return t;
        if (j < o->max_backtracks) ++*backtracks;
    }
    return 0.0;
}
// END SOLUTION

cfStatus cf_newton_solve(const cfNewtonSystem *sys, const cfNewtonOptions *o, double *x, cfReport *rep,
                         cfNewtonStats *stats)
{
    double t0 = cf_seconds();
    if (rep) cf_report_init(rep, rep->history, rep->history_cap);
    cfNewtonStats local = {0};
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    int n = sys->n;
    double r = sys->residual(sys->ctx, x);
    if (r <= o->tol) {
        if (rep) {
            rep->status = CF_OK;
            rep->reason = CF_STOP_ABSOLUTE;
            rep->residual = r;
            rep->seconds = cf_seconds() - t0;
        }
        return CF_OK;
    }
    cfStatus st = CF_MAX_ITER;
    cfStopReason why = CF_STOP_MAX_ITER;
    int k = 0;
    //> ch06:newton
    // BEGIN SOLUTION ch06.2
    size_t nn = (size_t)(n > 0 ? n : 1);
    double *H = malloc(nn * sizeof *H), *d = malloc(nn * sizeof *d), *xt = malloc(nn * sizeof *xt),
           *Ht = malloc(nn * sizeof *Ht), *rhs = malloc(nn * sizeof *rhs);
    cfTriplets T = {0};
    cfCsr J = {0};
    if (!H || !d || !xt || !Ht || !rhs || cf_triplets_init(&T, n, n) != CF_OK) st = CF_NO_MEMORY;
    double theta = st == CF_NO_MEMORY ? 0.0 : merit(sys, x, H);
    if (st != CF_NO_MEMORY && !isfinite(theta)) {
        st = CF_DIVERGED;
        why = CF_STOP_DIVERGENCE;
    }
    while (st == CF_MAX_ITER && k < o->max_iter) {
        /* the Newton matrix at x */
        cf_triplets_clear(&T);
        st = sys->eval(sys->ctx, x, H, &T);
        if (st == CF_OK) {
            cf_csr_free(&J);
            st = cf_csr_from_triplets(&T, &J);
        }
        if (st != CF_OK) break;
        st = CF_MAX_ITER;
        for (int i = 0; i < n; ++i) rhs[i] = -H[i];
        bool reg = false;
        int lin = 0;
        cfStatus ds = cf_newton_direction(&J, rhs, o, sys->block_size, d, &reg, &lin);
        stats->singular += reg;
        stats->linear_iters += lin;
        if (ds == CF_NO_MEMORY) {
            st = ds;
            break;
        }
        /* Newton direction: grad theta . d = H^T J d = -|H|^2 = -2 theta */
        double theta_t = INFINITY;
        double t = ds == CF_SINGULAR || !cf_vec_finite(n, d)
                       ? 0.0
                       : armijo(sys, o, x, d, theta, -2.0 * theta, xt, Ht, &theta_t, &stats->backtracks);
        if (t == 0.0) { /* fallback: steepest descent d = -J^T H, slope -|J^T H|^2 */
            ++stats->fallbacks;
            cf_csr_tmul_vec(&J, H, d);
            double g2 = cf_vec_dot(n, d, d);
            for (int i = 0; i < n; ++i) d[i] = -d[i];
            t = g2 > 0.0 ? armijo(sys, o, x, d, theta, -g2, xt, Ht, &theta_t, &stats->backtracks) : 0.0;
        }
        if (t == 0.0) {
            st = CF_STAGNATED;
            why = CF_STOP_STAGNATION;
            break;
        }
        memcpy(x, xt, nn * sizeof *x);
        memcpy(H, Ht, nn * sizeof *H);
        theta = theta_t;
        ++k;
        r = sys->residual(sys->ctx, x);
        if (rep) cf_report_push(rep, r);
        if (!isfinite(r)) {
            st = CF_DIVERGED;
            why = CF_STOP_DIVERGENCE;
        } else if (r <= o->tol) {
            st = CF_OK;
            why = CF_STOP_ABSOLUTE;
        }
    }
    free(H), free(d), free(xt), free(Ht), free(rhs);
    cf_triplets_free(&T);
    cf_csr_free(&J);
    // END SOLUTION
    // STUB ch06.2: (void)n;
    // STUB ch06.2: st = CF_TODO_S("ch06.2");
    //< ch06:newton
    if (rep) {
        rep->status = st;
        rep->reason = st == CF_OK ? CF_STOP_ABSOLUTE : why;
        rep->iterations = k;
        rep->residual = r;
        rep->seconds = cf_seconds() - t0;
    }
    return st;
}
