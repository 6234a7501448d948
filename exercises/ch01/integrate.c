/* SPDX-License-Identifier: MIT */
/* Chapter 1, exercises ch01.1-ch01.3: semi-implicit Euler for rigid bodies and quaternion
   kinematics. Specification: lib/include/cf/cf_ch01.h; text: chapters/ch01/README.md. */
#include "cf/cf_ch01.h"

/* h must be a finite, non-negative step; h == 0 is allowed and changes nothing */
static cfStatus check_step(double h)
{
    return (isfinite(h) && h >= 0.0) ? CF_OK : CF_BAD_INPUT;
}

cfStatus cf_rigid_integrate_velocity(cfRigidBody *b, cfVec3 gravity, double h, bool gyroscopic)
{
    if (check_step(h) != CF_OK) return CF_BAD_INPUT;
    if (b->fixed || h == 0.0) return CF_OK;
    //> ch01:velocity-update
    // TODO(ch01.1): implement this; the specification is in cf_ch01.h
    return CF_TODO_S("ch01.1");
    //< ch01:velocity-update
}

cfQuat cf_quat_rate(cfQuat q, cfVec3 w)
{
    //> ch01:quat-rate
    // TODO(ch01.2): implement this; the specification is in cf_ch01.h
    CF_TODO("ch01.2");
    return q;
    //< ch01:quat-rate
}

cfQuat cf_quat_integrate(cfQuat q, cfVec3 w, double h)
{
    //> ch01:quat-integrate
    // TODO(ch01.2): implement this; the specification is in cf_ch01.h
    CF_TODO("ch01.2");
    return q;
    //< ch01:quat-integrate
}

cfStatus cf_rigid_integrate_position(cfRigidBody *b, double h)
{
    if (check_step(h) != CF_OK) return CF_BAD_INPUT;
    if (b->fixed || h == 0.0) return CF_OK;
    //> ch01:position-update
    // TODO(ch01.3): implement this; the specification is in cf_ch01.h
    return CF_TODO_S("ch01.3");
    //< ch01:position-update
}
