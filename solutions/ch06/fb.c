/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.3: the (penalized) Fischer-Burmeister reformulation of the LCP.
   Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include "cf/cf_ch06.h"

cfStatus cf_lcp_fb_eval(const cfLcp *p, const double *r, double penalty, const double *x, double *H, cfTriplets *J)
{
    //> ch06:fb-eval
    // BEGIN SOLUTION ch06.3
    const cfCsr *A = &p->A;
    for (int i = 0; i < p->n; ++i) {
        double w = p->b[i];
        for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) w += A->val[e] * x[A->colidx[e]];
        double da, db;
        H[i] = cf_ncp_eval(CF_NCP_FB, w, x[i], r ? r[i] : 1.0, penalty, &da, &db);
        if (!J) continue;
        /* row i: da A_i + db e_i; both parts are usually present (FB has no active set) */
        cfStatus st = CF_OK;
        for (int e = A->rowptr[i]; e < A->rowptr[i + 1] && st == CF_OK; ++e)
            st = cf_triplets_add(J, i, A->colidx[e], da * A->val[e]);
        if (st == CF_OK) st = cf_triplets_add(J, i, i, db);
        if (st != CF_OK) return st;
    }
    return CF_OK;
    // END SOLUTION
    // STUB ch06.3: (void)p; (void)r; (void)penalty; (void)x; (void)H; (void)J;
    // STUB ch06.3: return CF_TODO_S("ch06.3");
    //< ch06:fb-eval
}
