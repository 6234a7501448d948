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
    // BEGIN SOLUTION ch02.1
    /* height of the centre above the plane, minus the radius */
    *phi = cfu_dot(n, c) - d - r;
    *normal = n;
    return CF_OK;
    // END SOLUTION
    // STUB ch02.1: return CF_TODO_S("ch02.1");
    //< ch02:gap-sphere-plane
}

cfStatus cf_gap_sphere_sphere(cfVec3 ca, double ra, cfVec3 cb, double rb, double *phi, cfVec3 *normal)
{
    if (!cfu_vec3_finite(ca) || !cfu_vec3_finite(cb) || !(isfinite(ra) && ra > 0.0) ||
        !(isfinite(rb) && rb > 0.0))
        return CF_BAD_INPUT;
    //> ch02:gap-sphere-sphere
    // BEGIN SOLUTION ch02.1
    cfVec3 d = cfu_sub(cb, ca);
    double dist = cfu_norm(d);
    *phi = dist - ra - rb;
    /* coincident centres: no gradient exists, pick +z so the answer is deterministic */
    *normal = dist > 1e-12 * (ra + rb) ? cfu_scale(1.0 / dist, d) : cfu_vec3(0.0, 0.0, 1.0);
    return CF_OK;
    // END SOLUTION
    // STUB ch02.1: return CF_TODO_S("ch02.1");
    //< ch02:gap-sphere-sphere
}

cfStatus cf_gap_point_box(cfVec3 p, cfVec3 c, cfQuat q, cfVec3 half, double *phi, cfVec3 *normal)
{
    if (!cfu_vec3_finite(p) || !cfu_vec3_finite(c) || !cfu_quat_finite(q) ||
        fabs(cfu_quat_norm(q) - 1.0) > 1e-9 || !cfu_vec3_finite(half) || !(half.x > 0.0) || !(half.y > 0.0) ||
        !(half.z > 0.0))
        return CF_BAD_INPUT;
    //> ch02:gap-point-box
    // BEGIN SOLUTION ch02.1
    /* the point in box coordinates, and its excess over each half extent */
    cfVec3 l = cfu_quat_rotate(cfu_quat_conj(q), cfu_sub(p, c));
    double lv[3] = {l.x, l.y, l.z}, hv[3] = {half.x, half.y, half.z}, d[3];
    int k = 0;
    for (int i = 0; i < 3; ++i) {
        d[i] = fabs(lv[i]) - hv[i];
        if (d[i] > d[k]) k = i; /* strict: ties keep the lowest index */
    }
    cfVec3 g; /* gradient in box coordinates */
    if (d[k] > 0.0) {
        /* outside: distance to the closest point, which clamps each coordinate to the box */
        double o[3];
        for (int i = 0; i < 3; ++i) o[i] = d[i] > 0.0 ? copysign(d[i], lv[i]) : 0.0;
        g = cfu_vec3(o[0], o[1], o[2]);
        *phi = cfu_norm(g);
        g = cfu_scale(1.0 / *phi, g);
    } else {
        /* inside or on the surface: the least negative excess names the closest face */
        *phi = d[k];
        double e[3] = {0.0, 0.0, 0.0};
        e[k] = lv[k] < 0.0 ? -1.0 : 1.0;
        g = cfu_vec3(e[0], e[1], e[2]);
    }
    *normal = cfu_quat_rotate(q, g);
    return CF_OK;
    // END SOLUTION
    // STUB ch02.1: return CF_TODO_S("ch02.1");
    //< ch02:gap-point-box
}

cfStatus cf_contact_frame(cfVec3 n, cfVec3 *t, cfVec3 *b)
{
    if (!is_unit(n)) return CF_BAD_INPUT;
    //> ch02:contact-frame
    // BEGIN SOLUTION ch02.2
    /* the world axis least aligned with n; ties go to the lowest index */
    double a[3] = {fabs(n.x), fabs(n.y), fabs(n.z)};
    int k = 0;
    for (int i = 1; i < 3; ++i)
        if (a[i] < a[k]) k = i;
    cfVec3 e = cfu_vec3(k == 0, k == 1, k == 2);
    /* Gram-Schmidt: |e - n_k n|^2 = 1 - n_k^2 >= 2/3, never small */
    *t = cfu_normalize(cfu_mul_add(e, -cfu_vec3_at(n, k), n));
    *b = cfu_cross(n, *t);
    return CF_OK;
    // END SOLUTION
    // STUB ch02.2: return CF_TODO_S("ch02.2");
    //< ch02:contact-frame
}
