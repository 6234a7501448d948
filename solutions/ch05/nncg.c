/* SPDX-License-Identifier: MIT */
/* Chapter 5, exercise ch05.9: non-smooth nonlinear conjugate gradient (NNCG) on a boxed LCP.
   Specification: lib/include/cf/cf_ch05.h; text: chapters/ch05/README.md. */
#include <stdlib.h>

#include "cf/cf_ch05.h"

// BEGIN SOLUTION ch05.9
/* G(x): one sequential boxed PGS sweep in place (as ch05.4 with omega = 1) */
static void pgs_sweep(const cfBlcp *p, double *x)
{
    const cfCsr *A = &p->A;
    for (int i = 0; i < p->n; ++i) {
        double ri = p->b[i], aii = 1.0;
        for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) {
            if (A->colidx[e] == i) aii = A->val[e];
            ri += A->val[e] * x[A->colidx[e]];
        }
        double lo, hi;
        cf_blcp_bounds(p, x, i, &lo, &hi);
        x[i] = fmax(lo, fmin(x[i] - ri / aii, hi));
    }
}

/* x projected onto its effective bounds (normals first, then the friction rows that use them) */
static void project(const cfBlcp *p, const double *x, double *out)
{
    cf_vec_copy(p->n, x, out);
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < p->n; ++i) {
            bool fr = p->findex && p->findex[i] >= 0;
            if (fr != (pass == 1)) continue;
            double lo, hi;
            cf_blcp_bounds(p, out, i, &lo, &hi);
            out[i] = fmax(lo, fmin(out[i], hi));
        }
}
// END SOLUTION

cfStatus cf_blcp_nncg(const cfBlcp *p, const cfSplitOptions *o, double *x, cfReport *rep, int *restarts)
{
    double t0 = cf_seconds();
    if (restarts) *restarts = 0;
    cfStatus st = cf_blcp_split_check(p, x, o, NULL);
    if (st != CF_OK) return cf_split_refuse(rep, st);
    double r0 = cf_blcp_residual(p, x);
    if (r0 <= o->tol_abs) return cf_split_solved_at_start(rep, r0, t0);
    //> ch05:nncg
    // BEGIN SOLUTION ch05.9
    int n = p->n;
    double *buf = malloc((size_t)4 * (n > 0 ? n : 1) * sizeof *buf);
    if (!buf) return CF_NO_MEMORY;
    double *xold = buf, *g = buf + n, *dir = buf + 2 * n, *xp = buf + 3 * n;
    cfStopReason why = CF_STOP_NONE;
    int k = 0;
    double r = r0, gg_prev = 0.0;
    while (why == CF_STOP_NONE) {
        cf_vec_copy(n, x, xold);
        pgs_sweep(p, x); /* x_{k+1} = G(x_k) */
        double gg = 0.0, dx = 0.0;
        for (int i = 0; i < n; ++i) {
            g[i] = xold[i] - x[i]; /* the gradient of the implicit merit: minus the PGS step */
            gg += g[i] * g[i];
            dx = fmax(dx, fabs(g[i]));
        }
        if (k == 0) {
            for (int i = 0; i < n; ++i) dir[i] = -g[i];
        } else {
            double beta = gg_prev > 0.0 ? gg / gg_prev : 0.0;
            if (beta > 1.0) { /* restart: forget the direction */
                for (int i = 0; i < n; ++i) dir[i] = -g[i];
                if (restarts) ++*restarts;
            } else {
                for (int i = 0; i < n; ++i) {
                    x[i] += beta * dir[i];
                    dir[i] = beta * dir[i] - g[i];
                }
            }
        }
        gg_prev = gg;
        ++k;
        project(p, x, xp);
        r = cf_blcp_residual(p, xp);
        if (rep) cf_report_push(rep, r);
        why = cf_split_stop(o, k, r0, r, dx);
    }
    project(p, x, xp);
    cf_vec_copy(n, xp, x);
    free(buf);
    st = cf_split_finish(rep, why, k, r);
    // END SOLUTION
    // STUB ch05.9: st = CF_TODO_S("ch05.9");
    //< ch05:nncg
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
