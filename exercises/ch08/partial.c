/* SPDX-License-Identifier: MIT */
/* Chapter 8, exercise ch08.4: partial evaluation, the matrix-free projected Gauss-Seidel on
   W_P = J P J^T with the auxiliary velocity u = P (b + J^T lambda). Specification:
   lib/include/cf/cf_ch08.h; text: chapters/ch08/README.md. */
#include "cf/cf_ch08.h"

#include <stdlib.h>
#include <string.h>

cfStatus cf_dual_pgs_partial(const cfDualSystem *s, const double *P, const cfSplitOptions *o, double *lambda, double *u,
                             cfReport *rep)
{
    double t0 = cf_seconds();
    cfStatus st = cf_dual_split_check(s, P, lambda, o, NULL);
    if (st != CF_OK || !u) return cf_split_refuse(rep, CF_BAD_INPUT);
    //> ch08:partial
    // TODO(ch08.4): implement this; the specification is in cf_ch08.h
    st = CF_TODO_S("ch08.4");
    //< ch08:partial
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
