/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.5: friction tensors (notes 6.2, Pabst et al. 2009): the force with a
   signed angle between the surfaces' frames, the equivalent elliptic cone from the singular values
   of L, and the dissipation check. Specification: lib/include/cf/cf_ch10.h; text:
   chapters/ch10/README.md. */
#include <math.h>

#include "cf/cf_ch10.h"


void cf_friction_tensor_force(const double QA[4], const double QB[4], double kappa, cfVec3 n, cfVec3 t_a,
                              cfVec3 t_b, cfVec3 v, double lambda_n, cfVec3 *f)
{
    //> ch10:tensor-force
    // TODO(ch10.5): implement this; the specification is in cf_ch10.h
    CF_TODO("ch10.5");
    //< ch10:tensor-force
}

cfStatus cf_friction_tensor_cone(const double L[4], double mu_tb[2], double *angle)
{
    if (!(isfinite(L[0]) && isfinite(L[1]) && isfinite(L[2]) && isfinite(L[3]))) return CF_BAD_INPUT;
    //> ch10:tensor-cone
    // TODO(ch10.5): implement this; the specification is in cf_ch10.h
    return CF_TODO_S("ch10.5");
    //< ch10:tensor-cone
}

double cf_friction_tensor_dissipation(const double L[4], const double v[2], double lambda_n, double *power)
{
    //> ch10:tensor-dissipation
    // TODO(ch10.5): implement this; the specification is in cf_ch10.h
    return CF_TODO_F("ch10.5");
    //< ch10:tensor-dissipation
}
