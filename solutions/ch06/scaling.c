/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.7: r-scaling of the NCP functions as a preconditioner (notes 3.3.5).
   Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include "cf/cf_ch06.h"

void cf_lcp_r_scaling(const cfLcp *p, double *r)
{
    //> ch06:r-scaling
    // BEGIN SOLUTION ch06.7
    for (int i = 0; i < p->n; ++i) {
        double aii = cf_csr_get(&p->A, i, i);
        r[i] = aii > 0.0 ? aii : 1.0; /* the slope of w_i along x_i */
    }
    // END SOLUTION
    // STUB ch06.7: (void)p; (void)r;
    // STUB ch06.7: CF_TODO("ch06.7");
    //< ch06:r-scaling
}

void cf_fc_rho_scaling(const cfFrictionProblem *p, double *rho)
{
    //> ch06:rho-scaling
    // BEGIN SOLUTION ch06.7
    const cfBsr *W = &p->W;
    for (int a = 0; a < p->nc; ++a) {
        double wnn = 0.0; /* blocks at the same position add up */
        for (int e = W->rowptr[a]; e < W->rowptr[a + 1]; ++e)
            if (W->colidx[e] == a) wnn += W->val[9 * e];
        rho[a] = wnn > 0.0 ? 1.0 / wnn : 1.0;
    }
    // END SOLUTION
    // STUB ch06.7: (void)p; (void)rho;
    // STUB ch06.7: CF_TODO("ch06.7");
    //< ch06:rho-scaling
}
