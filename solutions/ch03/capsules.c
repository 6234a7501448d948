/* SPDX-License-Identifier: MIT */
/* Chapter 3, provided (not an exercise; copied unchanged into exercises/ch03/ and not handed in):
   capsule contacts, a segment swept by a sphere reduced to the sphere routines of ch03.1 and
   ch03.2 (so a capsule is as right as the student's spheres). */
#include "cf/cf_ch03.h"

/* the contact of sphere (c, r) as B against body @p a as A; -1 when a's shape is not a plane,
   sphere or box */
static int sphere_as_b(const cfRigidBody *a, cfVec3 c, double r, double margin, cfContact *out)
{
    const cfShape *s1 = &a->shape;
    switch (s1->type) {
    case CF_SHAPE_PLANE: return cf_collide_plane_sphere(s1->normal, s1->offset, c, r, margin, out);
    case CF_SHAPE_SPHERE: return cf_collide_sphere_sphere(a->x, s1->radius, c, r, margin, out);
    case CF_SHAPE_BOX: {
        /* the routine takes the sphere as A: swap the roles back */
        cfObb b = cf_obb_of_body(a);
        int n = cf_collide_sphere_box(c, r, &b, margin, out);
        if (n == 1) out->n = cfu_neg(out->n);
        return n;
    }
    case CF_SHAPE_CAPSULE:
    case CF_SHAPE_COUNT: break;
    }
    return -1;
}

/* signed distance from the point to box @p a, for the search along the segment */
static double box_distance(const cfRigidBody *a, cfVec3 x)
{
    cfObb b = cf_obb_of_body(a);
    return cf_sdf_obb(&b, x, NULL);
}

/* against a plane or a box: the two end spheres, plus for a box the deepest interior point of the
   segment q0 q1 (golden-section search on the box's signed distance, convex along a line) when it
   is deeper than both ends */
static int against_flat(const cfRigidBody *a, cfVec3 q0, cfVec3 q1, double r, double margin, cfContact *out)
{
    int n = 0;
    cfContact c;
    cfVec3 ends[2] = {q0, q1};
    for (int k = 0; k < 2; ++k) {
        /* an end sphere's point is on the capsule only if n points into the segment there */
        if (sphere_as_b(a, ends[k], r, margin, &c) == 1 && cfu_dot(c.n, cfu_sub(ends[1 - k], ends[k])) >= 0.0) {
            c.feature = cf_feature(CF_FEAT_CAPSULE, (uint32_t)k);
            out[n++] = c;
        }
    }
    if (a->shape.type != CF_SHAPE_BOX) return n;
    double lo = 0.0, hi = 1.0;
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    for (int it = 0; it < 60; ++it) {
        double s = hi - g * (hi - lo), t = lo + g * (hi - lo);
        if (box_distance(a, cfu_mul_add(q0, s, cfu_sub(q1, q0))) < box_distance(a, cfu_mul_add(q0, t, cfu_sub(q1, q0))))
            hi = t;
        else
            lo = s;
    }
    double t = 0.5 * (lo + hi);
    cfVec3 x = cfu_mul_add(q0, t, cfu_sub(q1, q0));
    double dx = box_distance(a, x);
    if (t > 1e-3 && t < 1.0 - 1e-3 && dx < fmin(box_distance(a, q0), box_distance(a, q1)) - 1e-9 &&
        sphere_as_b(a, x, r, margin, &c) == 1) {
        c.feature = cf_feature(CF_FEAT_CAPSULE, 2);
        out[n++] = c;
    }
    return n;
}

/* the closest points of the segments p0 p1 (radius ra) and q0 q1 (radius r) as spheres */
static int closest_points(cfVec3 p0, cfVec3 p1, double ra, cfVec3 q0, cfVec3 q1, double r, double margin, cfContact *out)
{
    double s, t;
    cf_segment_closest(p0, p1, q0, q1, &s, &t);
    if (!cf_collide_sphere_sphere(cfu_mul_add(p0, s, cfu_sub(p1, p0)), ra, cfu_mul_add(q0, t, cfu_sub(q1, q0)), r, margin,
                                  out))
        return 0;
    out->feature = cf_feature(CF_FEAT_CAPSULE, 2);
    return 1;
}

/* against capsule @p a: the closest points of the two segments; for nearly parallel segments the
   four end points against the other segment instead, so that a capsule lying on another gets a
   line of support */
static int against_capsule(const cfRigidBody *a, cfVec3 q0, cfVec3 q1, double r, double margin, cfContact *out)
{
    double ra = a->shape.radius;
    cfVec3 p0, p1;
    cf_capsule_segment(a, &p0, &p1);
    cfVec3 da = cfu_sub(p1, p0), db = cfu_sub(q1, q0);
    bool parallel = cfu_norm(cfu_cross(da, db)) <= 0.05 * cfu_norm(da) * cfu_norm(db);
    if (!parallel) return closest_points(p0, p1, ra, q0, q1, r, margin, out);
    /* a contact counts only if both its surface points lie on the capsules (at an end, n must point
       into the segment) */
    int n = 0;
    cfContact c;
    cfVec3 ea[2] = {p0, p1}, eb[2] = {q0, q1};
    for (int k = 0; k < 2; ++k) {
        double t;
        cf_segment_closest(ea[k], ea[k], q0, q1, NULL, &t);
        if (cf_collide_sphere_sphere(ea[k], ra, cfu_mul_add(q0, t, db), r, margin, &c) &&
            cfu_dot(c.n, cfu_sub(ea[1 - k], ea[k])) <= 0.0 && (t > 0.0 || cfu_dot(c.n, db) >= 0.0) &&
            (t < 1.0 || cfu_dot(c.n, db) <= 0.0)) {
            c.feature = cf_feature(CF_FEAT_CAPSULE, (uint32_t)k);
            out[n++] = c;
        }
        cf_segment_closest(eb[k], eb[k], p0, p1, NULL, &t);
        if (cf_collide_sphere_sphere(cfu_mul_add(p0, t, da), ra, eb[k], r, margin, &c) &&
            cfu_dot(c.n, cfu_sub(eb[1 - k], eb[k])) >= 0.0 && (t > 0.0 || cfu_dot(c.n, da) <= 0.0) &&
            (t < 1.0 || cfu_dot(c.n, da) >= 0.0)) {
            c.feature = cf_feature(CF_FEAT_CAPSULE, (uint32_t)(4 + k));
            out[n++] = c;
        }
    }
    /* no end pair qualifies: the closest points always do */
    return n > 0 ? n : closest_points(p0, p1, ra, q0, q1, r, margin, out);
}

int cf_collide_capsule(const cfRigidBody *a, const cfRigidBody *capsule, double margin, int max_contacts, cfContact *out)
{
    double r = capsule->shape.radius;
    cfVec3 q0, q1;
    cf_capsule_segment(capsule, &q0, &q1);
    int n = 0;
    switch (a->shape.type) {
    case CF_SHAPE_PLANE:
    case CF_SHAPE_BOX: n = against_flat(a, q0, q1, r, margin, out); break;
    case CF_SHAPE_SPHERE: {
        double t;
        cf_segment_closest(a->x, a->x, q0, q1, NULL, &t);
        cfContact c;
        if (sphere_as_b(a, cfu_mul_add(q0, t, cfu_sub(q1, q0)), r, margin, &c) == 1) {
            c.feature = cf_feature(CF_FEAT_CAPSULE, 2);
            out[n++] = c;
        }
        break;
    }
    case CF_SHAPE_CAPSULE: n = against_capsule(a, q0, q1, r, margin, out); break;
    case CF_SHAPE_COUNT: return -1;
    }
    if (n > max_contacts) n = cf_manifold_reduce(out, n, max_contacts, out);
    return n;
}
