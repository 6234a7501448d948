/* SPDX-License-Identifier: MIT */
/* Chapter 2, exercise ch02.6: three friction models built from one frictional contact problem:
   the polyhedral-cone LCP, the boxed LCP of the friction pyramid, and the cone complementarity
   problem. Specification: lib/include/cf/cf_ch02.h; text: chapters/ch02/README.md. */
#include "cf/cf_ch02.h"

#include <stdlib.h>
#include <string.h>

/* a problem of nc x nc blocks of 3x3 with q and mu */
static bool fc_shape_ok(const cfFrictionProblem *fc)
{
    return fc && fc->nc >= 1 && fc->W.br == 3 && fc->W.bc == 3 && fc->W.brows == fc->nc &&
           fc->W.bcols == fc->nc && fc->q && fc->mu;
}

cfStatus cf_friction_polyhedral_lcp(const cfFrictionProblem *fc, int k, cfLcp *lcp)
{
    memset(lcp, 0, sizeof *lcp);
    if (!fc_shape_ok(fc) || k < 3 || k > 64) return CF_BAD_INPUT;
    //> ch02:polyhedral-lcp
    // TODO(ch02.6): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.6");
    //< ch02:polyhedral-lcp
}

cfStatus cf_friction_boxed_lcp(const cfFrictionProblem *fc, cfBlcp *blcp)
{
    memset(blcp, 0, sizeof *blcp);
    if (!fc_shape_ok(fc)) return CF_BAD_INPUT;
    //> ch02:boxed-lcp
    // TODO(ch02.6): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.6");
    //< ch02:boxed-lcp
}

double cf_ccp_residual(const cfFrictionProblem *fc, const double *r)
{
    if (!fc_shape_ok(fc) || !cf_vec_finite(3 * fc->nc, r)) return INFINITY;
    //> ch02:ccp-residual
    // TODO(ch02.6): implement this; the specification is in cf_ch02.h
    return CF_TODO_F("ch02.6");
    //< ch02:ccp-residual
}
