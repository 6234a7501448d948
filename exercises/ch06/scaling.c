/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.7: r-scaling of the NCP functions as a preconditioner (notes 3.3.5).
   Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include "cf/cf_ch06.h"

void cf_lcp_r_scaling(const cfLcp *p, double *r)
{
    //> ch06:r-scaling
    // TODO(ch06.7): implement this; the specification is in cf_ch06.h
    (void)p; (void)r;
    CF_TODO("ch06.7");
    //< ch06:r-scaling
}

void cf_fc_rho_scaling(const cfFrictionProblem *p, double *rho)
{
    //> ch06:rho-scaling
    // TODO(ch06.7): implement this; the specification is in cf_ch06.h
    (void)p; (void)rho;
    CF_TODO("ch06.7");
    //< ch06:rho-scaling
}
