/* SPDX-License-Identifier: MIT */
/* Chapter 5, exercise ch05.4: projected Gauss-Seidel on a boxed LCP whose friction bounds move
   with the normal impulse. Specification: lib/include/cf/cf_ch05.h; text: chapters/ch05/README.md. */
#include "cf/cf_ch05.h"

cfStatus cf_blcp_pgs(const cfBlcp *p, const cfSplitOptions *o, double *x, cfReport *rep)
{
    double t0 = cf_seconds();
    cfStatus st = cf_blcp_split_check(p, x, o, NULL);
    if (st != CF_OK) return cf_split_refuse(rep, st);
    double r0 = cf_blcp_residual(p, x);
    if (r0 <= o->tol_abs) return cf_split_solved_at_start(rep, r0, t0);
    //> ch05:blcp-pgs
    // BEGIN SOLUTION ch05.4
    const cfCsr *A = &p->A;
    cfStopReason why = CF_STOP_NONE;
    int k = 0;
    double r = r0;
    while (why == CF_STOP_NONE) {
        double dx = 0.0;
        for (int i = 0; i < p->n; ++i) {
            double ri = p->b[i], aii = 1.0;
            for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) {
                if (A->colidx[e] == i) aii = A->val[e];
                ri += A->val[e] * x[A->colidx[e]];
            }
            double lo, hi;
            cf_blcp_bounds(p, x, i, &lo, &hi); /* from the normal impulse as it is now */
            double xi = fmax(lo, fmin(x[i] - o->omega * ri / aii, hi));
            dx = fmax(dx, fabs(xi - x[i]));
            x[i] = xi;
        }
        ++k;
        r = cf_blcp_residual(p, x);
        if (rep) cf_report_push(rep, r);
        why = cf_split_stop(o, k, r0, r, dx);
    }
    st = cf_split_finish(rep, why, k, r);
    // END SOLUTION
    // STUB ch05.4: st = CF_TODO_S("ch05.4");
    //< ch05:blcp-pgs
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
