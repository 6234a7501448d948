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
    // TODO(ch05.7): implement this; the specification is in cf_ch05.h
    st = CF_TODO_S("ch05.7");
    //< ch05:pgs-ordered
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}


cfStatus cf_blcp_staggered(const cfBlcp *p, const cfSplitOptions *o, double *x, cfReport *rep)
{
    double t0 = cf_seconds();
    cfStatus st = cf_blcp_split_check(p, x, o, NULL);
    if (st != CF_OK) return cf_split_refuse(rep, st);
    double r0 = cf_blcp_residual(p, x);
    if (r0 <= o->tol_abs) return cf_split_solved_at_start(rep, r0, t0);
    //> ch05:staggered
    // TODO(ch05.7): implement this; the specification is in cf_ch05.h
    st = CF_TODO_S("ch05.7");
    //< ch05:staggered
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
