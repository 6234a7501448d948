/* SPDX-License-Identifier: MIT */
/* Chapter 2, exercises ch02.1-ch02.2: gap functions with their gradients, and the contact frame.
   Specification: lib/include/cf/cf_ch02.h; text: chapters/ch02/README.md. */
#include "cf/cf_ch02.h"

/* a unit vector within 1e-9, finite */
static bool is_unit(cfVec3 n) { return cfu_vec3_finite(n) && fabs(cfu_norm(n) - 1.0) <= 1e-9; }

cfStatus cf_gap_sphere_plane(cfVec3 c, double r, cfVec3 n, double d, double *phi, cfVec3 *normal)
{
    if (!cfu_vec3_finite(c) || !(isfinite(r) && r > 0.0) || !is_unit(n) || !isfinite(d)) return CF_BAD_INPUT;
    //> ch02:gap-sphere-plane
    // TODO(ch02.1): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.1");
    //< ch02:gap-sphere-plane
}

cfStatus cf_gap_sphere_sphere(cfVec3 ca, double ra, cfVec3 cb, double rb, double *phi, cfVec3 *normal)
{
    if (!cfu_vec3_finite(ca) || !cfu_vec3_finite(cb) || !(isfinite(ra) && ra > 0.0) ||
        !(isfinite(rb) && rb > 0.0))
        return CF_BAD_INPUT;
    //> ch02:gap-sphere-sphere
    // TODO(ch02.1): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.1");
    //< ch02:gap-sphere-sphere
}

cfStatus cf_gap_point_box(cfVec3 p, cfVec3 c, cfQuat q, cfVec3 half, double *phi, cfVec3 *normal)
{
    if (!cfu_vec3_finite(p) || !cfu_vec3_finite(c) || !cfu_quat_finite(q) ||
        fabs(cfu_quat_norm(q) - 1.0) > 1e-9 || !cfu_vec3_finite(half) || !(half.x > 0.0) || !(half.y > 0.0) ||
        !(half.z > 0.0))
        return CF_BAD_INPUT;
    //> ch02:gap-point-box
    // TODO(ch02.1): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.1");
    //< ch02:gap-point-box
}

cfStatus cf_contact_frame(cfVec3 n, cfVec3 *t, cfVec3 *b)
{
    if (!is_unit(n)) return CF_BAD_INPUT;
    //> ch02:contact-frame
    // TODO(ch02.2): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.2");
    //< ch02:contact-frame
}
