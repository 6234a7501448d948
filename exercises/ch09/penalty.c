/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.1: classical penalty contact: the normal spring-damper with
   Moore-Wilhelms restitution, regularized Coulomb friction and anchor-spring friction.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>

#include "cf/cf_ch09.h"

double cf_penalty_normal(double k, double b, double eps, double phi, double vn)
{
    //> ch09:penalty-normal
    // TODO(ch09.1): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.1");
    //< ch09:penalty-normal
}

cfVec3 cf_penalty_friction(cfVec3 vt, double kf, double mu, double fn)
{
    //> ch09:penalty-friction
    // TODO(ch09.1): implement this; the specification is in cf_ch09.h
    CF_TODO("ch09.1");
    return cfu_zero3();
    //< ch09:penalty-friction
}

int cf_penalty_anchor(cfVec3 *anchor, cfVec3 p, double kf, double mu, double fn, cfVec3 *f_out)
{
    //> ch09:penalty-anchor
    // TODO(ch09.1): implement this; the specification is in cf_ch09.h
    return CF_TODO_I("ch09.1");
    //< ch09:penalty-anchor
}
