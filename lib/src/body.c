/* SPDX-License-Identifier: MIT */
/* Shapes and rigid bodies: construction with validation, inertia, energy and momentum. */
#include "cf/cf_body.h"

#include <string.h>

const char *cf_shape_name(cfShapeType t)
{
    switch (t) {
    case CF_SHAPE_SPHERE: return "sphere";
    case CF_SHAPE_BOX: return "box";
    case CF_SHAPE_PLANE: return "plane";
    case CF_SHAPE_CAPSULE: return "capsule";
    case CF_SHAPE_COUNT: break;
    }
    return "unknown";
}

cfShape cf_shape_sphere(double r)
{
    cfShape s = {0};
    s.type = CF_SHAPE_SPHERE;
    s.radius = r;
    return s;
}

cfShape cf_shape_box(cfVec3 half_extents)
{
    cfShape s = {0};
    s.type = CF_SHAPE_BOX;
    s.half_extents = half_extents;
    return s;
}

cfShape cf_shape_plane(cfVec3 normal, double offset)
{
    cfShape s = {0};
    s.type = CF_SHAPE_PLANE;
    s.normal = cfu_normalize(normal);
    s.offset = offset;
    return s;
}

cfShape cf_shape_capsule(double r, double half_height)
{
    cfShape s = {0};
    s.type = CF_SHAPE_CAPSULE;
    s.radius = r;
    s.half_height = half_height;
    return s;
}

static bool positive(double x) { return isfinite(x) && x > 0.0; }

cfStatus cf_shape_validate(const cfShape *s, cfError *err)
{
    switch (s->type) {
    case CF_SHAPE_SPHERE:
        if (!positive(s->radius))
            return cf_error_set(err, CF_BAD_INPUT, "radius: must be finite and > 0 (got %g)", s->radius);
        return CF_OK;
    case CF_SHAPE_BOX:
        if (!positive(s->half_extents.x) || !positive(s->half_extents.y) || !positive(s->half_extents.z))
            return cf_error_set(err, CF_BAD_INPUT, "half_extents: must be finite and > 0 (got %g, %g, %g)",
                                s->half_extents.x, s->half_extents.y, s->half_extents.z);
        return CF_OK;
    case CF_SHAPE_PLANE:
        if (!cfu_vec3_finite(s->normal) || cfu_norm(s->normal) < 1e-12)
            return cf_error_set(err, CF_BAD_INPUT, "normal: must be finite and non-zero");
        if (!isfinite(s->offset)) return cf_error_set(err, CF_BAD_INPUT, "offset: must be finite");
        return CF_OK;
    case CF_SHAPE_CAPSULE:
        if (!positive(s->radius))
            return cf_error_set(err, CF_BAD_INPUT, "radius: must be finite and > 0 (got %g)", s->radius);
        if (!isfinite(s->half_height) || s->half_height < 0.0)
            return cf_error_set(err, CF_BAD_INPUT, "half_height: must be finite and >= 0 (got %g)",
                                s->half_height);
        return CF_OK;
    case CF_SHAPE_COUNT: break;
    }
    return cf_error_set(err, CF_BAD_INPUT, "type: unknown shape type %d", (int)s->type);
}

cfVec3 cf_shape_inertia(const cfShape *s, double m)
{
    switch (s->type) {
    case CF_SHAPE_SPHERE: {
        double i = 0.4 * m * s->radius * s->radius;
        return cfu_vec3(i, i, i);
    }
    case CF_SHAPE_BOX: {
        /* full sizes 2a, 2b, 2c: I_x = m/12 ((2b)^2 + (2c)^2) = m/3 (b^2 + c^2) */
        cfVec3 h = s->half_extents;
        return cfu_vec3(m / 3.0 * (h.y * h.y + h.z * h.z), m / 3.0 * (h.x * h.x + h.z * h.z),
                        m / 3.0 * (h.x * h.x + h.y * h.y));
    }
    case CF_SHAPE_CAPSULE: {
        /* cylinder (radius r, length 2c) plus two hemispheres, mass split by volume */
        double r = s->radius, c = s->half_height;
        double vcyl = CF_PI * r * r * 2.0 * c, vsph = 4.0 / 3.0 * CF_PI * r * r * r;
        double mc = m * vcyl / (vcyl + vsph), ms = m - mc;
        double iz = 0.5 * mc * r * r + 0.4 * ms * r * r;
        /* about a transverse axis: cylinder m(3r^2 + L^2)/12; hemispheres 2/5 m r^2 shifted by
           their centroid offset c + 3r/8 (parallel axis about the hemisphere centroid) */
        double L = 2.0 * c;
        double icyl = mc * (3.0 * r * r + L * L) / 12.0;
        double d = c + 3.0 * r / 8.0;
        double ihemi_c = (0.4 - 9.0 / 64.0) * ms * r * r; /* both halves about their centroids */
        double ix = icyl + ihemi_c + ms * d * d;
        return cfu_vec3(ix, ix, iz);
    }
    case CF_SHAPE_PLANE:
    case CF_SHAPE_COUNT: break;
    }
    return cfu_zero3();
}

double cf_shape_volume(const cfShape *s)
{
    switch (s->type) {
    case CF_SHAPE_SPHERE: return 4.0 / 3.0 * CF_PI * pow(s->radius, 3);
    case CF_SHAPE_BOX: return 8.0 * s->half_extents.x * s->half_extents.y * s->half_extents.z;
    case CF_SHAPE_CAPSULE:
        return CF_PI * s->radius * s->radius * 2.0 * s->half_height + 4.0 / 3.0 * CF_PI * pow(s->radius, 3);
    case CF_SHAPE_PLANE:
    case CF_SHAPE_COUNT: break;
    }
    return INFINITY;
}

static void init_common(cfRigidBody *b, cfShape shape)
{
    memset(b, 0, sizeof *b);
    b->shape = shape;
    b->q = cfu_quat_identity();
    b->mu = 0.5;
}

cfStatus cf_rigid_init(cfRigidBody *b, cfShape shape, double mass, cfError *err)
{
    cfStatus st = cf_shape_validate(&shape, err);
    if (st != CF_OK) return st;
    if (shape.type == CF_SHAPE_PLANE)
        return cf_error_set(err, CF_BAD_INPUT, "fixed: a plane must be fixed (it has no finite mass)");
    if (!positive(mass))
        return cf_error_set(err, CF_BAD_INPUT, "mass: must be finite and > 0 (got %g)", mass);
    if (mass < CF_MASS_MIN || mass > CF_MASS_MAX)
        return cf_error_set(err, CF_BAD_INPUT, "mass: %g kg is outside [%g, %g] kg, the range the solvers are built for",
                            mass, CF_MASS_MIN, CF_MASS_MAX);
    init_common(b, shape);
    b->mass = mass;
    b->inv_mass = 1.0 / mass;
    cfVec3 I = cf_shape_inertia(&shape, mass);
    if (!(positive(I.x) && positive(I.y) && positive(I.z)))
        /* the shape's size made them (the key the user wrote), not an inertia */
        return cf_error_set(err, CF_BAD_INPUT, "shape.%s: too small for a body of %g kg: its moments of inertia (%g, %g, %g) "
                            "underflow to zero", shape.type == CF_SHAPE_BOX ? "half_extents" : "radius", mass, I.x, I.y, I.z);
    return cf_rigid_set_inertia(b, I, err);
}

cfStatus cf_rigid_init_fixed(cfRigidBody *b, cfShape shape, cfError *err)
{
    cfStatus st = cf_shape_validate(&shape, err);
    if (st != CF_OK) return st;
    init_common(b, shape);
    b->fixed = true;
    /* infinite mass: every inverse is zero, so impulses never move the body */
    return CF_OK;
}

cfStatus cf_rigid_set_inertia(cfRigidBody *b, cfVec3 principal, cfError *err)
{
    if (b->fixed) return CF_OK;
    if (!positive(principal.x) || !positive(principal.y) || !positive(principal.z))
        return cf_error_set(err, CF_BAD_INPUT,
                            "inertia: every principal moment must be finite and > 0 (got %g, %g, %g); "
                            "a zero axis would need infinite angular acceleration",
                            principal.x, principal.y, principal.z);
    double I[3] = {principal.x, principal.y, principal.z};
    double lo = fmin(I[0], fmin(I[1], I[2])), hi = fmax(I[0], fmax(I[1], I[2]));
    if (hi > CF_INERTIA_RATIO_MAX * lo)
        return cf_error_set(err, CF_BAD_INPUT,
                            "inertia: the principal moments (%g, %g, %g) differ by a factor %.3g, more than %g: the "
                            "solvers lose all accuracy on such a body (a rod that thin is better a particle)",
                            I[0], I[1], I[2], hi / lo, CF_INERTIA_RATIO_MAX);
    for (int k = 0; k < 3; ++k)
        if (I[k] > (I[(k + 1) % 3] + I[(k + 2) % 3]) * (1.0 + 1e-9))
            return cf_error_set(err, CF_BAD_INPUT,
                                "inertia: no body has these principal moments (%g, %g, %g): each must be at most the "
                                "sum of the other two (I_%c <= I_%c + I_%c)",
                                I[0], I[1], I[2], "xyz"[k], "xyz"[(k + 1) % 3], "xyz"[(k + 2) % 3]);
    b->inertia_body = cfu_mat3_diag(principal);
    b->inv_inertia_body = cfu_mat3_diag(cfu_vec3(1.0 / principal.x, 1.0 / principal.y, 1.0 / principal.z));
    cf_rigid_update_inertia(b);
    return CF_OK;
}

void cf_rigid_update_inertia(cfRigidBody *b)
{
    if (b->fixed) {
        memset(&b->inv_inertia_world, 0, sizeof b->inv_inertia_world);
        return;
    }
    cfMat3 R = cfu_quat_to_mat3(b->q);
    b->inv_inertia_world = cfu_mat3_mul(cfu_mat3_mul(R, b->inv_inertia_body), cfu_mat3_transpose(R));
}

cfMat3 cf_rigid_inertia_world(const cfRigidBody *b)
{
    cfMat3 R = cfu_quat_to_mat3(b->q);
    return cfu_mat3_mul(cfu_mat3_mul(R, b->inertia_body), cfu_mat3_transpose(R));
}

double cf_rigid_kinetic_energy(const cfRigidBody *b)
{
    if (b->fixed) return 0.0;
    cfVec3 Iw = cfu_mat3_mul_vec(cf_rigid_inertia_world(b), b->w);
    return 0.5 * b->mass * cfu_norm2(b->v) + 0.5 * cfu_dot(b->w, Iw);
}

cfVec3 cf_rigid_linear_momentum(const cfRigidBody *b)
{
    return b->fixed ? cfu_zero3() : cfu_scale(b->mass, b->v);
}

cfVec3 cf_rigid_angular_momentum(const cfRigidBody *b)
{
    if (b->fixed) return cfu_zero3();
    cfVec3 spin = cfu_mat3_mul_vec(cf_rigid_inertia_world(b), b->w);
    return cfu_add(cfu_cross(b->x, cfu_scale(b->mass, b->v)), spin);
}

cfVec3 cf_rigid_point_velocity(const cfRigidBody *b, cfVec3 p)
{
    /* w x r, not r x w: the course tutorial's helper had these swapped */
    return cfu_add(b->v, cfu_cross(b->w, cfu_sub(p, b->x)));
}

bool cf_rigid_state_ok(const cfRigidBody *b)
{
    return cfu_vec3_finite(b->x) && cfu_vec3_finite(b->v) && cfu_vec3_finite(b->w) && cfu_quat_finite(b->q) &&
           fabs(cfu_quat_norm(b->q) - 1.0) < 1e-6;
}
