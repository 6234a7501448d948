/* SPDX-License-Identifier: MIT */
/* Chapter 5, exercise ch05.9: non-smooth nonlinear conjugate gradient (NNCG) on a boxed LCP.
   Specification: lib/include/cf/cf_ch05.h; text: chapters/ch05/README.md. */
#include <stdlib.h>

#include "cf/cf_ch05.h"


cfStatus cf_blcp_nncg(const cfBlcp *p, const cfSplitOptions *o, double *x, cfReport *rep, int *restarts)
{
    double t0 = cf_seconds();
    if (restarts) *restarts = 0;
    cfStatus st = cf_blcp_split_check(p, x, o, NULL);
    if (st != CF_OK) return cf_split_refuse(rep, st);
    double r0 = cf_blcp_residual(p, x);
    if (r0 <= o->tol_abs) return cf_split_solved_at_start(rep, r0, t0);
    //> ch05:nncg
    // TODO(ch05.9): implement this; the specification is in cf_ch05.h
    st = CF_TODO_S("ch05.9");
    //< ch05:nncg
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
