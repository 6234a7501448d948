/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.6: the Alart-Curnier function of the Coulomb friction problem and
   one element of its generalized Jacobian, the NSN-AC method of Siconos.
   Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include <math.h>

#include "cf/cf_ch06.h"

cfStatus cf_fc_ac_eval(const cfFrictionProblem *p, const double *rho, const double *r, double *Phi, cfTriplets *J)
{
    //> ch06:ac-eval
    // TODO(ch06.6): implement this; the specification is in cf_ch06.h
    (void)p; (void)rho; (void)r; (void)Phi; (void)J;
    return CF_TODO_S("ch06.6");
    //< ch06:ac-eval
}
