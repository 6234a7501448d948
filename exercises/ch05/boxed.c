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
    // TODO(ch05.4): implement this; the specification is in cf_ch05.h
    st = CF_TODO_S("ch05.4");
    //< ch05:blcp-pgs
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
