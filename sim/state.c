/* SPDX-License-Identifier: MIT */
/* The world's state kept before a step, so that a failing step leaves the world as it was, and
   the check of a step's new state before it is committed: finite, inside the world's bounds, no
   body through a static plane. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_geometry.h"
#include "stages.h"

static cfVec3 **soft_field(cfWorld *w, int field, int i)
{
    cfSoftBody *s = &w->soft[i];
    return field == 0 ? &s->x : field == 1 ? &s->v : field == 2 ? &s->x_prev : &s->v_prev;
}

void cf_state_free(cfSavedState *sv, int n_soft)
{
    for (int f = 0; f < 4; ++f) {
        if (sv->arr[f])
            for (int i = 0; i < n_soft; ++i) free(sv->arr[f][i]);
        free(sv->arr[f]);
    }
    free(sv->has_prev);
    free(sv->bodies);
    memset(sv, 0, sizeof *sv);
}

cfStatus cf_state_save(cfWorld *w, cfSavedState *sv)
{
    memset(sv, 0, sizeof *sv);
    if (w->n_bodies) {
        sv->bodies = malloc((size_t)w->n_bodies * sizeof *sv->bodies);
        if (!sv->bodies) return CF_NO_MEMORY;
        for (int i = 0; i < w->n_bodies; ++i) {
            const cfRigidBody *b = &w->bodies[i];
            sv->bodies[i] = (cfBodyState){b->x, b->q, b->v, b->w, b->inv_inertia_world};
        }
    }
    if (w->n_soft == 0) return CF_OK;
    sv->has_prev = malloc((size_t)w->n_soft * sizeof *sv->has_prev);
    if (!sv->has_prev) return CF_NO_MEMORY;
    for (int f = 0; f < 4; ++f) {
        sv->arr[f] = calloc((size_t)w->n_soft, sizeof *sv->arr[f]);
        if (!sv->arr[f]) return CF_NO_MEMORY;
        for (int i = 0; i < w->n_soft; ++i) {
            size_t bytes = (size_t)w->soft[i].n_nodes * sizeof(cfVec3);
            sv->arr[f][i] = malloc(bytes);
            if (!sv->arr[f][i]) return CF_NO_MEMORY;
            memcpy(sv->arr[f][i], *soft_field(w, f, i), bytes);
        }
    }
    for (int i = 0; i < w->n_soft; ++i) sv->has_prev[i] = w->soft[i].has_prev;
    return CF_OK;
}

void cf_state_restore(cfWorld *w, const cfSavedState *sv)
{
    for (int i = 0; i < w->n_bodies; ++i) {
        cfRigidBody *b = &w->bodies[i];
        const cfBodyState *s = &sv->bodies[i];
        b->x = s->x, b->q = s->q, b->v = s->v, b->w = s->w, b->inv_inertia_world = s->inv_inertia_world;
    }
    for (int i = 0; i < w->n_soft; ++i) {
        size_t bytes = (size_t)w->soft[i].n_nodes * sizeof(cfVec3);
        for (int f = 0; f < 4; ++f) memcpy(*soft_field(w, f, i), sv->arr[f][i], bytes);
        w->soft[i].has_prev = sv->has_prev[i];
    }
}

/* the largest n.p over a body's bounding box (its support along n, conservatively) */
static double support_along(const cfRigidBody *b, cfVec3 n)
{
    cfAabb box = cf_aabb_of_body(b);
    cfVec3 c = cfu_scale(0.5, cfu_add(box.lo, box.hi)), h = cfu_scale(0.5, cfu_sub(box.hi, box.lo));
    return cfu_dot(n, c) + fabs(n.x) * h.x + fabs(n.y) * h.y + fabs(n.z) * h.z;
}

/* the radius of a ball about the body's origin inside its shape (box: the smallest half extent);
   0 for a plane */
static double inner_radius(const cfShape *s)
{
    switch (s->type) {
    case CF_SHAPE_SPHERE:
    case CF_SHAPE_CAPSULE: return s->radius;
    case CF_SHAPE_BOX: return fmin(s->half_extents.x, fmin(s->half_extents.y, s->half_extents.z));
    case CF_SHAPE_PLANE:
    case CF_SHAPE_COUNT: break;
    }
    return 0.0;
}

/* the body is certainly not wholly behind the plane n.x = d (|n| = @p len): its origin is in front
   of it by at least half the ball of radius rho its shape holds, so its bounding box reaches at
   least rho |n| beyond n.x and support_along() is above d by far more than its rounding (of the
   order of 1e-16 |x|): the check needs no bounding box */
static bool surely_in_front(const cfRigidBody *b, cfVec3 n, double d, double len)
{
    double rho = inner_radius(&b->shape), s = cfu_dot(n, b->x) - d;
    return rho > 1e-9 * (1.0 + fabs(d) + cfu_norm_inf(b->x)) && s >= 0.5 * rho * len;
}

/* soft body i's largest n.x over its nodes (@p x: its positions) */
static double soft_support(const cfSoftBody *s, const cfVec3 *x, cfVec3 n)
{
    double m = -INFINITY;
    for (int k = 0; k < s->n_nodes; ++k) m = fmax(m, cfu_dot(n, x[k]));
    return m;
}

/* a body that went through static plane p during the step: wholly behind it now, not at the start
   (@p sv); the step fails naming it */
static cfStatus check_plane(cfWorld *w, const cfSavedState *sv, int p, const char *solver, long step)
{
    const cfRigidBody *pl = &w->bodies[p];
    cfVec3 n = pl->shape.normal;
    const double d = pl->shape.offset, len = cfu_norm(n);
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (b->fixed || b->shape.type == CF_SHAPE_PLANE || surely_in_front(b, n, d, len)) continue;
        double now = support_along(b, n);
        if (!(now < d)) continue;
        cfRigidBody before = *b; /* its pose at the start */
        before.x = sv->bodies[i].x, before.q = sv->bodies[i].q;
        if (!(support_along(&before, n) < d))
            return cf_step_fail(w, CF_DIVERGED, "rigid body %d '%s' went through the static plane %d '%s' in step %ld "
                                "(t = %g s): all of it is behind the plane now, by %g m, moving at %g m/s (solver %s)", i,
                                b->name, p, pl->name, step, w->time + w->def.dt, d - now, cfu_norm(b->v), solver);
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        if (s->n_nodes == 0) continue;
        double now = soft_support(s, s->x, n), before = soft_support(s, sv->arr[0][i], n);
        if (now < d && !(before < d))
            return cf_step_fail(w, CF_DIVERGED, "soft body %d '%s' went through the static plane %d '%s' in step %ld (t = %g s): "
                                "every node is behind the plane now, by %g m at least (solver %s)", i, s->name, p, pl->name,
                                step, w->time + w->def.dt, d - now, solver);
    }
    return CF_OK;
}

cfStatus cf_state_check(cfWorld *w, const cfSavedState *sv)
{
    const char *solver = w->def.solver ? w->def.solver->name : "none";
    const long step = w->step + 1;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (!(cfu_vec3_finite(b->x) && cfu_quat_finite(b->q) && cfu_vec3_finite(b->v) && cfu_vec3_finite(b->w)))
            return cf_step_fail(w, CF_DIVERGED, "rigid body %d '%s': state not finite after the step at t = %g (solver %s); "
                                "check its mass and inertia", i, b->name, w->time, solver);
        if (!b->fixed && !(cfu_norm_inf(b->x) <= w->def.bounds))
            return cf_step_fail(w, CF_DIVERGED, "rigid body %d '%s' left the world's bounds (|x|_inf <= %g m, world.bounds) in "
                                "step %ld (t = %g s): at (%g, %g, %g), moving at %g m/s (solver %s)", i, b->name,
                                w->def.bounds, step, w->time + w->def.dt, b->x.x, b->x.y, b->x.z, cfu_norm(b->v), solver);
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        for (int n = 0; n < s->n_nodes; ++n) {
            if (!(cfu_vec3_finite(s->x[n]) && cfu_vec3_finite(s->v[n])))
                return cf_step_fail(w, CF_DIVERGED, "soft body %d '%s': node %d not finite after the step at t = %g (solver %s)",
                                    i, s->name, n, w->time, solver);
            if (!(cfu_norm_inf(s->x[n]) <= w->def.bounds))
                return cf_step_fail(w, CF_DIVERGED, "soft body %d '%s': node %d left the world's bounds (|x|_inf <= %g m, "
                                    "world.bounds) in step %ld (t = %g s) (solver %s)", i, s->name, n, w->def.bounds, step,
                                    w->time + w->def.dt, solver);
        }
    }
    for (int p = 0; sv && p < w->n_bodies; ++p) {
        if (w->bodies[p].shape.type != CF_SHAPE_PLANE || !w->bodies[p].fixed) continue;
        cfStatus st = check_plane(w, sv, p, solver, step);
        if (st != CF_OK) return st;
    }
    return CF_OK;
}
