/* SPDX-License-Identifier: MIT */
/* Chapter 8, exercises ch08.2 and ch08.3: the Delassus operator of a block-diagonal P (W_M, W_D),
   sparse, and the exact W_A by Algorithm 15, one solve per constraint row, in parallel.
   Specification: lib/include/cf/cf_ch08.h; text: chapters/ch08/README.md. */
#include "cf/cf_ch08.h"

#include <stdlib.h>
#include <string.h>

cfStatus cf_dual_delassus_block(const cfDualSystem *s, const double *P, cfFrictionProblem *fc)
{
    memset(fc, 0, sizeof *fc);
    cfStatus st = cf_dual_check(s, NULL);
    if (st != CF_OK || !P) return CF_BAD_INPUT;
    //> ch08:delassus-block
    // TODO(ch08.2): implement this; the specification is in cf_ch08.h
    return CF_TODO_S("ch08.2");
    //< ch08:delassus-block
}

cfStatus cf_dual_delassus_factored(const cfLinSolver *S, const cfCsr *J, cfDense *W)
{
    memset(W, 0, sizeof *W);
    if (!S || !J) return CF_BAD_INPUT;
    //> ch08:algorithm-15
    // TODO(ch08.3): implement this; the specification is in cf_ch08.h
    return CF_TODO_S("ch08.3");
    //< ch08:algorithm-15
}
