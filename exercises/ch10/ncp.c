/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.4: the NCP formulation of anisotropic friction (notes 6.1.5): the
   notes' two complementarity rows with their generalized gradients (Eq. 316-319), and the square
   system of an elliptic problem that chapter 6's Newton loop solves. Specification:
   lib/include/cf/cf_ch10.h; text: chapters/ch10/README.md. */
#include <math.h>

#include "cf/cf_ch10.h"

void cf_aniso_ncp_rows(const double mu_tb[2], double lambda_n, const double x[5], double psi[2], double row[10])
{
    //> ch10:ncp-rows
    // TODO(ch10.4): implement this; the specification is in cf_ch10.h
    CF_TODO("ch10.4");
    //< ch10:ncp-rows
}

cfStatus cf_fc_aniso_ncp_eval(const cfFrictionProblem *p, const double *x, double *H, cfTriplets *J)
{
    //> ch10:ncp-eval
    // TODO(ch10.4): implement this; the specification is in cf_ch10.h
    return CF_TODO_S("ch10.4");
    //< ch10:ncp-eval
}
