/* SPDX-License-Identifier: MIT */
/* Chapter 3, exercises ch03.1-ch03.2: spheres, planes and spheres against oriented boxes.
   Specification: lib/include/cf/cf_ch03.h; text: chapters/ch03/README.md. */
#include "cf/cf_ch03.h"

#include <string.h>

/* a contact from the two surface points: p = (p_A + p_B)/2, phi measured along n */
static cfContact contact_from(cfVec3 pa, cfVec3 pb, cfVec3 n, double phi, uint32_t feature)
{
    cfContact c;
    memset(&c, 0, sizeof c);
    c.p = cfu_scale(0.5, cfu_add(pa, pb));
    c.n = n;
    c.phi = phi;
    c.feature = feature;
    return c;
}

int cf_collide_sphere_sphere(cfVec3 ca, double ra, cfVec3 cb, double rb, double margin, cfContact *out)
{
    //> ch03:sphere-sphere
    // BEGIN SOLUTION ch03.1
    cfVec3 d = cfu_sub(cb, ca);
    double dist = cfu_norm(d);
    double phi = dist - (ra + rb);
    if (!(phi <= margin)) return 0; /* also rejects NaN */
    if (dist <= 1e-12 * (ra + rb)) {
        /* coincident centres: any direction is as good as another; pick +z */
        *out = contact_from(ca, ca, cfu_vec3(0, 0, 1), -(ra + rb), cf_feature(CF_FEAT_SINGLE, 0));
        return 1;
    }
    cfVec3 n = cfu_scale(1.0 / dist, d);
    cfVec3 pa = cfu_mul_add(ca, ra, n);  /* surface point of A toward B */
    cfVec3 pb = cfu_mul_add(cb, -rb, n); /* surface point of B toward A */
    *out = contact_from(pa, pb, n, phi, cf_feature(CF_FEAT_SINGLE, 0));
    return 1;
    // END SOLUTION
    // STUB ch03.1: return CF_TODO_I("ch03.1");
    //< ch03:sphere-sphere
}

int cf_collide_plane_sphere(cfVec3 n, double offset, cfVec3 c, double r, double margin, cfContact *out)
{
    //> ch03:plane-sphere
    // BEGIN SOLUTION ch03.1
    double phi = cfu_dot(n, c) - offset - r;
    if (!(phi <= margin)) return 0; /* also rejects NaN */
    cfVec3 pb = cfu_mul_add(c, -r, n);  /* lowest point of the sphere */
    cfVec3 pa = cfu_mul_add(pb, -phi, n); /* its projection on the plane */
    *out = contact_from(pa, pb, n, phi, cf_feature(CF_FEAT_SINGLE, 0));
    return 1;
    // END SOLUTION
    // STUB ch03.1: return CF_TODO_I("ch03.1");
    //< ch03:plane-sphere
}

int cf_collide_sphere_box(cfVec3 c, double r, const cfObb *box, double margin, cfContact *out)
{
    //> ch03:sphere-box
    // BEGIN SOLUTION ch03.2
    cfVec3 cl = cfu_mat3_tmul_vec(box->R, cfu_sub(c, box->c)); /* centre in the box frame */
    double cv[3] = {cl.x, cl.y, cl.z}, h[3] = {box->h.x, box->h.y, box->h.z}, g[3];
    for (int i = 0; i < 3; ++i) g[i] = cv[i] < -h[i] ? -h[i] : (cv[i] > h[i] ? h[i] : cv[i]);
    cfVec3 gl = cfu_vec3(g[0], g[1], g[2]);
    cfVec3 diff = cfu_sub(gl, cl);
    double dist = cfu_norm(diff);
    double phi;
    cfVec3 nl;
    if (dist > 0.0) {
        /* shallow: the centre is outside, the clamp is the closest point */
        phi = dist - r;
        nl = cfu_scale(1.0 / dist, diff);
    } else {
        /* deep: the centre is inside; leave through the nearest face */
        int i = 0;
        double best = h[0] - fabs(cv[0]);
        for (int k = 1; k < 3; ++k)
            if (h[k] - fabs(cv[k]) < best) best = h[k] - fabs(cv[k]), i = k;
        double side = cv[i] < 0.0 ? -1.0 : 1.0;
        g[i] = side * h[i];
        gl = cfu_vec3(g[0], g[1], g[2]);
        phi = -(best + r);
        double e[3] = {0, 0, 0};
        e[i] = -side; /* minus the outward normal: from the sphere (A) into the box (B) */
        nl = cfu_vec3(e[0], e[1], e[2]);
    }
    if (!(phi <= margin)) return 0; /* also rejects NaN */
    cfVec3 n = cfu_mat3_mul_vec(box->R, nl);
    cfVec3 pb = cfu_add(box->c, cfu_mat3_mul_vec(box->R, gl));
    cfVec3 pa = cfu_mul_add(c, r, n);
    *out = contact_from(pa, pb, n, phi, cf_feature(CF_FEAT_SINGLE, 0));
    return 1;
    // END SOLUTION
    // STUB ch03.2: return CF_TODO_I("ch03.2");
    //< ch03:sphere-box
}
