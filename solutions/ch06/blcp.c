/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.4: the mid-map reformulation of the boxed LCP with friction bounds
   that move with the normal impulse (findex). Specification: lib/include/cf/cf_ch06.h; text:
   chapters/ch06/README.md. */
#include <math.h>

#include "cf/cf_ch06.h"

cfStatus cf_blcp_midmap_eval(const cfBlcp *p, const double *r, const double *x, double *H, cfTriplets *J)
{
    //> ch06:midmap-eval
    // BEGIN SOLUTION ch06.4
    const cfCsr *A = &p->A;
    for (int i = 0; i < p->n; ++i) {
        double w = p->b[i], ri = r ? r[i] : 1.0;
        for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) w += A->val[e] * x[A->colidx[e]];
        double lo, hi;
        cf_blcp_bounds(p, x, i, &lo, &hi);
        double y = x[i] - w / ri;
        int f = p->findex[i];
        /* the bounds' derivative: +-mu at the normal's column while it is positive */
        double dbound = f >= 0 && x[f] > 0.0 ? p->mu[i] : 0.0;
        cfStatus st = CF_OK;
        if (y < lo) { /* at the lower bound: H = x_i - lo, lo = -mu x_f */
            H[i] = x[i] - lo;
            if (J) st = cf_triplets_add(J, i, i, 1.0);
            if (J && st == CF_OK && dbound != 0.0) st = cf_triplets_add(J, i, f, dbound);
        } else if (y > hi) { /* at the upper bound: H = x_i - hi, hi = mu x_f */
            H[i] = x[i] - hi;
            if (J) st = cf_triplets_add(J, i, i, 1.0);
            if (J && st == CF_OK && dbound != 0.0) st = cf_triplets_add(J, i, f, -dbound);
        } else { /* free, ties included: H = w / r */
            H[i] = w / ri;
            for (int e = A->rowptr[i]; J && e < A->rowptr[i + 1] && st == CF_OK; ++e)
                st = cf_triplets_add(J, i, A->colidx[e], A->val[e] / ri);
        }
        if (st != CF_OK) return st;
    }
    return CF_OK;
    // END SOLUTION
    // STUB ch06.4: (void)p; (void)r; (void)x; (void)H; (void)J;
    // STUB ch06.4: return CF_TODO_S("ch06.4");
    //< ch06:midmap-eval
}
