/* SPDX-License-Identifier: MIT */
/* The world and its step: a fixed list of named stages, each chosen by an enum in cfWorldDef. */
#include "cf/cf_world.h"

#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch01.h"
#include "cf/cf_detect.h"

const char *cf_stage_name(cfStage s)
{
    static const char *names[CF_STAGE_COUNT] = {"detect",   "contacts", "velocities", "assemble",
                                                "solve",    "positions", "stabilize"};
    return (s >= 0 && s < CF_STAGE_COUNT) ? names[s] : "unknown";
}

const char *cf_rigid_integrator_name(cfRigidIntegrator i)
{
    switch (i) {
    case CF_RIGID_SEMI_IMPLICIT: return "semi-implicit";
    case CF_RIGID_EXPLICIT: return "explicit";
    }
    return "unknown";
}

const char *cf_soft_integrator_name(cfSoftIntegrator i)
{
    switch (i) {
    case CF_SOFT_IMPLICIT: return "implicit";
    case CF_SOFT_BDF2: return "bdf2";
    case CF_SOFT_SEMI_IMPLICIT: return "semi-implicit";
    case CF_SOFT_EXPLICIT: return "explicit";
    }
    return "unknown";
}

const char *cf_detector_name(cfDetector d)
{
    switch (d) {
    case CF_DETECT_NONE: return "none";
    case CF_DETECT_PRIMITIVES: return "primitives";
    case CF_DETECT_ALL_PAIRS: return "all-pairs";
    }
    return "unknown";
}

cfWorldDef cf_world_def_default(void)
{
    cfWorldDef d;
    memset(&d, 0, sizeof d);
    d.gravity = cfu_vec3(0.0, 0.0, -9.81);
    d.dt = 1.0 / 60.0;
    d.rigid_integrator = CF_RIGID_SEMI_IMPLICIT;
    d.gyroscopic = true;
    d.soft_integrator = CF_SOFT_IMPLICIT;
    d.detector = CF_DETECT_NONE;
    d.solver = CF_SOLVER_NONE;
    d.solver_iterations = 20;
    d.solver_tolerance = 1e-8;
    return d;
}

static bool def_ok(const cfWorldDef *d)
{
    return isfinite(d->dt) && d->dt > 0.0 && cfu_vec3_finite(d->gravity) && d->solver_iterations >= 0 &&
           isfinite(d->contact_margin) && d->contact_margin >= 0.0;
}

cfStatus cf_world_init(cfWorld *w, const cfWorldDef *def)
{
    memset(w, 0, sizeof *w);
    w->def = def ? *def : cf_world_def_default();
    return def_ok(&w->def) ? CF_OK : CF_BAD_INPUT;
}

void cf_world_free(cfWorld *w)
{
    for (int i = 0; i < w->n_soft; ++i) cf_soft_free(&w->soft[i]);
    free(w->soft);
    free(w->bodies);
    cf_contacts_free(&w->contacts);
    memset(w, 0, sizeof *w);
}

cfStatus cf_world_copy(cfWorld *dst, const cfWorld *src)
{
    *dst = *src;
    dst->bodies = NULL;
    dst->soft = NULL;
    memset(&dst->contacts, 0, sizeof dst->contacts);
    dst->n_bodies = dst->cap_bodies = dst->n_soft = dst->cap_soft = 0;
    if (src->n_bodies) {
        dst->bodies = malloc((size_t)src->n_bodies * sizeof *dst->bodies);
        if (!dst->bodies) return CF_NO_MEMORY;
        memcpy(dst->bodies, src->bodies, (size_t)src->n_bodies * sizeof *dst->bodies);
        dst->n_bodies = dst->cap_bodies = src->n_bodies;
    }
    for (int i = 0; i < src->contacts.count; ++i)
        if (cf_contacts_push(&dst->contacts, &src->contacts.items[i]) != CF_OK) {
            cf_world_free(dst);
            return CF_NO_MEMORY;
        }
    if (src->n_soft) {
        dst->soft = calloc((size_t)src->n_soft, sizeof *dst->soft);
        if (!dst->soft) {
            cf_world_free(dst);
            return CF_NO_MEMORY;
        }
        dst->cap_soft = src->n_soft;
        for (int i = 0; i < src->n_soft; ++i) {
            if (cf_soft_copy(&dst->soft[i], &src->soft[i]) != CF_OK) {
                cf_world_free(dst);
                return CF_NO_MEMORY;
            }
            dst->n_soft = i + 1;
        }
    }
    return CF_OK;
}

int cf_world_add_body(cfWorld *w, const cfRigidBody *b)
{
    if (w->n_bodies == w->cap_bodies) {
        int nc = w->cap_bodies ? 2 * w->cap_bodies : 8;
        cfRigidBody *p = realloc(w->bodies, (size_t)nc * sizeof *p);
        if (!p) return -1;
        w->bodies = p;
        w->cap_bodies = nc;
    }
    w->bodies[w->n_bodies] = *b;
    cf_rigid_update_inertia(&w->bodies[w->n_bodies]);
    return w->n_bodies++;
}

int cf_world_add_soft(cfWorld *w, cfSoftBody *s)
{
    if (w->n_soft == w->cap_soft) {
        int nc = w->cap_soft ? 2 * w->cap_soft : 4;
        cfSoftBody *p = realloc(w->soft, (size_t)nc * sizeof *p);
        if (!p) return -1;
        w->soft = p;
        w->cap_soft = nc;
    }
    w->soft[w->n_soft] = *s;
    memset(s, 0, sizeof *s);
    return w->n_soft++;
}

/* ---- soft-body integrators provided by the library (the implicit ones are ch01.4-5) ---- */

static cfStatus soft_step_explicit(cfSoftBody *s, cfVec3 g, double h, bool symplectic)
{
    int n = s->n_nodes;
    double *f = malloc((size_t)3 * n * sizeof *f);
    if (!f) return CF_NO_MEMORY;
    cf_soft_forces(s, s->x, g, f);
    memcpy(s->x_prev, s->x, (size_t)n * sizeof *s->x);
    memcpy(s->v_prev, s->v, (size_t)n * sizeof *s->v);
    for (int i = 0; i < n; ++i) {
        if (s->fixed[i]) {
            s->v[i] = cfu_zero3();
            continue;
        }
        cfVec3 a = cfu_scale(1.0 / s->mass[i], cfu_vec3(f[3 * i], f[3 * i + 1], f[3 * i + 2]));
        /* Rayleigh mass damping only (explicit stiffness damping is rarely stable) */
        a = cfu_mul_add(a, -s->damping_alpha, s->v[i]);
        cfVec3 v_old = s->v[i];
        s->v[i] = cfu_mul_add(s->v[i], h, a);
        s->x[i] = cfu_mul_add(s->x[i], h, symplectic ? s->v[i] : v_old);
    }
    s->has_prev = true;
    free(f);
    return CF_OK;
}

static cfStatus soft_step(const cfWorld *w, cfSoftBody *s, cfReport *rep)
{
    double h = w->def.dt;
    switch (w->def.soft_integrator) {
    case CF_SOFT_IMPLICIT: return cf_soft_step_implicit(s, w->def.gravity, h, rep);
    case CF_SOFT_BDF2: return cf_soft_step_bdf2(s, w->def.gravity, h, rep);
    case CF_SOFT_SEMI_IMPLICIT: return soft_step_explicit(s, w->def.gravity, h, true);
    case CF_SOFT_EXPLICIT: return soft_step_explicit(s, w->def.gravity, h, false);
    }
    return CF_BAD_INPUT;
}

/* ---- the step ---- */

/* state saved before a step so that a failing stage leaves the world as it was */
typedef struct Saved {
    cfRigidBody *bodies;
    cfVec3 **arr[4]; /* per soft body: x, v, x_prev, v_prev */
    bool *has_prev;
} Saved;

static cfVec3 **soft_field(cfWorld *w, int field, int i)
{
    cfSoftBody *s = &w->soft[i];
    return field == 0 ? &s->x : field == 1 ? &s->v : field == 2 ? &s->x_prev : &s->v_prev;
}

static void saved_free(Saved *sv, int n_soft)
{
    for (int f = 0; f < 4; ++f) {
        if (sv->arr[f])
            for (int i = 0; i < n_soft; ++i) free(sv->arr[f][i]);
        free(sv->arr[f]);
    }
    free(sv->has_prev);
    free(sv->bodies);
}

static cfStatus save(cfWorld *w, Saved *sv)
{
    memset(sv, 0, sizeof *sv);
    if (w->n_bodies) {
        sv->bodies = malloc((size_t)w->n_bodies * sizeof *sv->bodies);
        if (!sv->bodies) return CF_NO_MEMORY;
        memcpy(sv->bodies, w->bodies, (size_t)w->n_bodies * sizeof *sv->bodies);
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

static void restore(cfWorld *w, const Saved *sv)
{
    if (w->n_bodies) memcpy(w->bodies, sv->bodies, (size_t)w->n_bodies * sizeof *w->bodies);
    for (int i = 0; i < w->n_soft; ++i) {
        size_t bytes = (size_t)w->soft[i].n_nodes * sizeof(cfVec3);
        for (int f = 0; f < 4; ++f) memcpy(*soft_field(w, f, i), sv->arr[f][i], bytes);
        w->soft[i].has_prev = sv->has_prev[i];
    }
}

static cfStatus stage_velocities(cfWorld *w)
{
    const cfWorldDef *d = &w->def;
    for (int i = 0; i < w->n_bodies; ++i) {
        cfRigidBody *b = &w->bodies[i];
        /* explicit Euler moves with the old velocity first: same two updates, other order */
        if (d->rigid_integrator == CF_RIGID_EXPLICIT) {
            cfStatus st = cf_rigid_integrate_position(b, d->dt);
            if (st != CF_OK) return st;
        }
        cfStatus st = cf_rigid_integrate_velocity(b, d->gravity, d->dt, d->gyroscopic);
        if (st != CF_OK) return st;
    }
    for (int i = 0; i < w->n_soft; ++i) {
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cfStatus st = soft_step(w, &w->soft[i], &rep);
        w->stats.solver_iterations = rep.iterations;
        w->stats.solver_residual = rep.residual;
        if (st != CF_OK) return st;
    }
    return CF_OK;
}

static cfStatus stage_positions(cfWorld *w)
{
    if (w->def.rigid_integrator == CF_RIGID_EXPLICIT) return CF_OK; /* done before the velocities */
    for (int i = 0; i < w->n_bodies; ++i) {
        cfStatus st = cf_rigid_integrate_position(&w->bodies[i], w->def.dt);
        if (st != CF_OK) return st;
    }
    return CF_OK;
}

/* contacts of this step; impulses of persisting contacts (same bodies and feature) are carried
   over from the previous step for warm starting */
static cfStatus stage_detect(cfWorld *w)
{
    if (w->def.detector == CF_DETECT_NONE) {
        cf_contacts_clear(&w->contacts);
        return CF_OK;
    }
    cfDetectOptions opt = cf_detect_options_default();
    opt.margin = w->def.contact_margin;
    opt.broadphase = w->def.detector == CF_DETECT_ALL_PAIRS ? CF_BROADPHASE_ALL_PAIRS : CF_BROADPHASE_SAP;
    cfContactList prev = w->contacts;
    memset(&w->contacts, 0, sizeof w->contacts);
    cfStatus st = cf_detect_world(w, &opt, &w->contacts, NULL);
    if (st == CF_OK && prev.count > 0 && cf_contacts_carry_impulses(&w->contacts, &prev) < 0) st = CF_NO_MEMORY;
    if (st == CF_OK) {
        cf_contacts_free(&prev);
    } else {
        cf_contacts_free(&w->contacts);
        w->contacts = prev; /* nothing is lost on failure */
    }
    w->stats.n_contacts = w->contacts.count;
    return st;
}

static cfStatus run_stage(cfWorld *w, cfStage s)
{
    switch (s) {
    case CF_STAGE_DETECT: return stage_detect(w);
    case CF_STAGE_CONTACTS:
    case CF_STAGE_ASSEMBLE:
    case CF_STAGE_SOLVE:
    case CF_STAGE_STABILIZE:
        /* filled by chapters 2-7; with detector/solver NONE there is nothing to do */
        return CF_OK;
    case CF_STAGE_VELOCITIES: return stage_velocities(w);
    case CF_STAGE_POSITIONS: return stage_positions(w);
    case CF_STAGE_COUNT: break;
    }
    return CF_BAD_INPUT;
}

cfStatus cf_world_step(cfWorld *w)
{
    if (!def_ok(&w->def)) return CF_BAD_INPUT;
    Saved sv;
    cfStatus st = save(w, &sv);
    if (st != CF_OK) {
        saved_free(&sv, w->n_soft);
        return st;
    }
    memset(&w->stats, 0, sizeof w->stats);
    for (int s = 0; s < CF_STAGE_COUNT && st == CF_OK; ++s) {
        double t0 = cf_seconds();
        st = run_stage(w, (cfStage)s);
        w->stats.stage_seconds[s] = cf_seconds() - t0;
    }
    if (st == CF_OK) {
        w->time += w->def.dt;
        w->step += 1;
    } else {
        restore(w, &sv);
    }
    saved_free(&sv, w->n_soft);
    return st;
}

double cf_world_energy(const cfWorld *w)
{
    double E = 0.0;
    cfVec3 g = w->def.gravity;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (b->fixed) continue;
        E += cf_rigid_kinetic_energy(b) - b->mass * cfu_dot(g, b->x);
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        E += cf_soft_kinetic_energy(s) + cf_soft_elastic_energy(s, s->x);
        for (int k = 0; k < s->n_nodes; ++k) E -= s->mass[k] * cfu_dot(g, s->x[k]);
    }
    return E;
}

cfVec3 cf_world_linear_momentum(const cfWorld *w)
{
    cfVec3 p = cfu_zero3();
    for (int i = 0; i < w->n_bodies; ++i) p = cfu_add(p, cf_rigid_linear_momentum(&w->bodies[i]));
    for (int i = 0; i < w->n_soft; ++i) {
        cfVec3 ps;
        cf_soft_com(&w->soft[i], NULL, &ps);
        p = cfu_add(p, ps);
    }
    return p;
}

cfVec3 cf_world_angular_momentum(const cfWorld *w)
{
    cfVec3 L = cfu_zero3();
    for (int i = 0; i < w->n_bodies; ++i) L = cfu_add(L, cf_rigid_angular_momentum(&w->bodies[i]));
    return L;
}
