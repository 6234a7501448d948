/* SPDX-License-Identifier: MIT */
/* Chapter 5, exercise ch05.7: PGS with a chosen visiting order, and staggered normal/friction
   sweeps on a boxed LCP. Specification: lib/include/cf/cf_ch05.h; text: chapters/ch05/README.md. */
#include <stdlib.h>

#include "cf/cf_ch05.h"

cfStatus cf_lcp_pgs_ordered(const cfLcp *p, const cfSplitOptions *o, double *x, cfReport *rep)
{
    double t0 = cf_seconds();
    cfStatus st = cf_lcp_split_check(p, x, o, NULL);
    if (st != CF_OK) return cf_split_refuse(rep, st);
    double r0 = cf_lcp_residual(p, x);
    if (r0 <= o->tol_abs) return cf_split_solved_at_start(rep, r0, t0);
    //> ch05:pgs-ordered
    // BEGIN SOLUTION ch05.7
    int *perm = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof *perm);
    if (!perm) return CF_NO_MEMORY;
    cfRng rng;
    cf_rng_seed(&rng, o->seed);
    const cfCsr *A = &p->A;
    cfStopReason why = CF_STOP_NONE;
    int k = 0;
    double r = r0;
    while (why == CF_STOP_NONE) {
        cf_ordering_permutation(o->ordering, p->n, k, &rng, perm);
        double dx = 0.0;
        for (int s = 0; s < p->n; ++s) {
            int i = perm[s];
            double ri = p->b[i], aii = 1.0;
            for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) {
                if (A->colidx[e] == i) aii = A->val[e];
                ri += A->val[e] * x[A->colidx[e]];
            }
            double xi = fmax(0.0, x[i] - o->omega * ri / aii);
            dx = fmax(dx, fabs(xi - x[i]));
            x[i] = xi;
        }
        ++k;
        r = cf_lcp_residual(p, x);
        if (rep) cf_report_push(rep, r);
        why = cf_split_stop(o, k, r0, r, dx);
    }
    free(perm);
    st = cf_split_finish(rep, why, k, r);
    // END SOLUTION
    // STUB ch05.7: st = CF_TODO_S("ch05.7");
    //< ch05:pgs-ordered
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}

// BEGIN SOLUTION ch05.7
/* one sequential boxed PGS sweep over the indices with (findex >= 0) == friction; returns the
   largest change */
static double half_sweep(const cfBlcp *p, double omega, bool friction, double *x)
{
    const cfCsr *A = &p->A;
    double dx = 0.0;
    for (int i = 0; i < p->n; ++i) {
        bool is_friction = p->findex && p->findex[i] >= 0;
        if (is_friction != friction) continue;
        double ri = p->b[i], aii = 1.0;
        for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) {
            if (A->colidx[e] == i) aii = A->val[e];
            ri += A->val[e] * x[A->colidx[e]];
        }
        double lo, hi;
        cf_blcp_bounds(p, x, i, &lo, &hi);
        double xi = fmax(lo, fmin(x[i] - omega * ri / aii, hi));
        dx = fmax(dx, fabs(xi - x[i]));
        x[i] = xi;
    }
    return dx;
}
// END SOLUTION

cfStatus cf_blcp_staggered(const cfBlcp *p, const cfSplitOptions *o, double *x, cfReport *rep)
{
    double t0 = cf_seconds();
    cfStatus st = cf_blcp_split_check(p, x, o, NULL);
    if (st != CF_OK) return cf_split_refuse(rep, st);
    double r0 = cf_blcp_residual(p, x);
    if (r0 <= o->tol_abs) return cf_split_solved_at_start(rep, r0, t0);
    //> ch05:staggered
    // BEGIN SOLUTION ch05.7
    cfStopReason why = CF_STOP_NONE;
    int k = 0;
    double r = r0;
    while (why == CF_STOP_NONE) {
        double dx = 0.0;
        for (int s = 0; s < o->inner; ++s) dx = fmax(dx, half_sweep(p, o->omega, false, x)); /* normal, friction frozen */
        for (int s = 0; s < o->inner; ++s) dx = fmax(dx, half_sweep(p, o->omega, true, x));  /* friction, bounds frozen */
        ++k;
        r = cf_blcp_residual(p, x);
        if (rep) cf_report_push(rep, r);
        why = cf_split_stop(o, k, r0, r, dx);
    }
    st = cf_split_finish(rep, why, k, r);
    // END SOLUTION
    // STUB ch05.7: st = CF_TODO_S("ch05.7");
    //< ch05:staggered
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
