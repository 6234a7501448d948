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
    // BEGIN SOLUTION ch01.1
    /* linear: v+ = v + h (g + F/m) */
    b->v = cfu_mul_add(b->v, h, cfu_add(gravity, cfu_scale(b->inv_mass, b->force)));

    /* angular: w+ = w + h I_w^-1 (tau - w x I_w w), with I_w from the start of the step */
    cfVec3 tau = b->torque;
    if (gyroscopic) {
        cfVec3 Iw_w = cfu_mat3_mul_vec(cf_rigid_inertia_world(b), b->w);
        tau = cfu_sub(tau, cfu_cross(b->w, Iw_w));
    }
    b->w = cfu_mul_add(b->w, h, cfu_mat3_mul_vec(b->inv_inertia_world, tau));
    return CF_OK;
    // END SOLUTION
    // STUB ch01.1: return CF_TODO_S("ch01.1");
    //< ch01:velocity-update
}

cfQuat cf_quat_rate(cfQuat q, cfVec3 w)
{
    //> ch01:quat-rate
    // BEGIN SOLUTION ch01.2
    /* q_dot = 1/2 (0, w) (x) q for a world-frame w; written out, this is H(q) w */
    return cfu_quat(0.5 * (-w.x * q.x - w.y * q.y - w.z * q.z),
                    0.5 * (w.x * q.w + w.y * q.z - w.z * q.y),
                    0.5 * (-w.x * q.z + w.y * q.w + w.z * q.x),
                    0.5 * (w.x * q.y - w.y * q.x + w.z * q.w));
    // END SOLUTION
    // STUB ch01.2: CF_TODO("ch01.2");
    // STUB ch01.2: return q;
    //< ch01:quat-rate
}

cfQuat cf_quat_integrate(cfQuat q, cfVec3 w, double h)
{
    //> ch01:quat-integrate
    // BEGIN SOLUTION ch01.2
    /* one explicit step on the 4-vector, then back onto the unit sphere */
    return cfu_quat_normalize(cfu_quat_mul_add(q, h, cf_quat_rate(q, w)));
    // END SOLUTION
    // STUB ch01.2: CF_TODO("ch01.2");
    // STUB ch01.2: return q;
    //< ch01:quat-integrate
}

cfStatus cf_rigid_integrate_position(cfRigidBody *b, double h)
{
    if (check_step(h) != CF_OK) return CF_BAD_INPUT;
    if (b->fixed || h == 0.0) return CF_OK;
    //> ch01:position-update
    // BEGIN SOLUTION ch01.3
    b->x = cfu_mul_add(b->x, h, b->v);
    b->q = cf_quat_integrate(b->q, b->w, h);
    cf_rigid_update_inertia(b); /* the next step needs R+ I_body^-1 R+^T */
    return CF_OK;
    // END SOLUTION
    // STUB ch01.3: return CF_TODO_S("ch01.3");
    //< ch01:position-update
}
