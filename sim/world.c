/* SPDX-License-Identifier: MIT */
/* The world as a container: bodies, friction pairs, copies, energy and momentum. Its settings are
   settings.c's, its step step.c's. */
#include "cf/cf_world.h"
#include "cf/cf_solvers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch02.h"
#include "cf/cf_ch10.h"
#include "internal.h"

/* "<field>: must be ... (got ...)" */
#define REFUSE(err, ...) cf_error_set(err, CF_BAD_INPUT, __VA_ARGS__)

cfStatus cf_world_init(cfWorld *w, const cfWorldDef *def)
{
    memset(w, 0, sizeof *w);
    w->def = def ? *def : cf_world_def_default();
    return cf_world_def_check(&w->def, &w->error);
}

void cf_world_free(cfWorld *w)
{
    for (int i = 0; i < w->n_soft; ++i) cf_soft_free(&w->soft[i]);
    free(w->soft);
    free(w->bodies);
    free(w->pairs);
    for (int i = 0; i < w->n_textures; ++i) free(w->textures[i].h);
    free(w->textures);
    free(w->pulls);
    cf_contacts_free(&w->contacts);
    cf_step_work_free(w->work);
    memset(w, 0, sizeof *w);
}

cfStatus cf_world_copy(cfWorld *dst, const cfWorld *src)
{
    *dst = *src;
    dst->bodies = NULL;
    dst->soft = NULL;
    dst->pairs = NULL;
    dst->textures = NULL;
    dst->pulls = NULL;
    dst->work = NULL;
    memset(&dst->contacts, 0, sizeof dst->contacts);
    dst->n_bodies = dst->cap_bodies = dst->n_soft = dst->cap_soft = dst->n_pairs = dst->n_textures = dst->n_pulls = 0;
    if (src->n_bodies) {
        dst->bodies = malloc((size_t)src->n_bodies * sizeof *dst->bodies);
        if (!dst->bodies) return CF_NO_MEMORY;
        memcpy(dst->bodies, src->bodies, (size_t)src->n_bodies * sizeof *dst->bodies);
        dst->n_bodies = dst->cap_bodies = src->n_bodies;
    }
    if (src->n_pairs) {
        dst->pairs = malloc((size_t)src->n_pairs * sizeof *dst->pairs);
        if (!dst->pairs) {
            cf_world_free(dst);
            return CF_NO_MEMORY;
        }
        memcpy(dst->pairs, src->pairs, (size_t)src->n_pairs * sizeof *dst->pairs);
        dst->n_pairs = src->n_pairs;
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
    for (int i = 0; i < src->n_textures; ++i) {
        cfError ignored;
        if (cf_world_add_texture(dst, &src->textures[i], &ignored) != CF_OK) {
            cf_world_free(dst);
            return CF_NO_MEMORY;
        }
    }
    if (src->n_pulls) {
        dst->pulls = malloc((size_t)src->n_pulls * sizeof *dst->pulls);
        if (!dst->pulls) {
            cf_world_free(dst);
            return CF_NO_MEMORY;
        }
        memcpy(dst->pulls, src->pulls, (size_t)src->n_pulls * sizeof *dst->pulls);
        dst->n_pulls = src->n_pulls;
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

static bool side_ok(const cfWorld *w, cfSideKind kind, int index)
{
    switch (kind) {
    case CF_SIDE_STATIC: return index == -1;
    case CF_SIDE_RIGID: return index >= 0 && index < w->n_bodies;
    case CF_SIDE_SOFT: return index >= 0 && index < w->n_soft;
    case CF_SIDE_KIND_COUNT: break;
    }
    return false;
}

cfStatus cf_world_add_friction_pair(cfWorld *w, const cfFrictionPair *p, cfError *err)
{
    for (int s = 0; s < 2; ++s)
        if (!side_ok(w, p->kind[s], p->index[s]))
            return REFUSE(err, "bodies[%d]: no %s body %d in the world", s, cf_side_kind_name(p->kind[s]), p->index[s]);
    if (!(isfinite(p->mu) && p->mu >= 0.0)) return REFUSE(err, "mu: must be >= 0 (got %g)", p->mu);
    const cfFriction *f = &p->law;
    if (!(f->law >= 0 && f->law < CF_LAW_COUNT)) return REFUSE(err, "law: unknown value %d", (int)f->law);
    if (f->law == CF_LAW_DIRECTIONAL) return REFUSE(err, "law: the directional box is made per contact by the texture law");
    if (p->texture) {
        if (f->law != CF_LAW_ISOTROPIC || p->matchstick) return REFUSE(err, "law: the texture model makes its own law");
        if (!(isfinite(p->patch) && p->patch > 0.0)) return REFUSE(err, "patch: must be > 0 m (got %g)", p->patch);
        if (p->samples < 1 || p->samples > CF_TEXTURE_SAMPLES_MAX)
            return REFUSE(err, "samples: must be in 1..%d (got %d)", CF_TEXTURE_SAMPLES_MAX, p->samples);
        bool any = false;
        for (int s = 0; s < 2; ++s) any |= p->kind[s] == CF_SIDE_RIGID && cf_world_texture_of(w, p->index[s]);
        if (!any)
            return REFUSE(err, "law: texture friction plows with height fields, and neither body has one (give one of "
                          "them a texture)");
    }
    if (p->matchstick) {
        if (f->law != CF_LAW_ISOTROPIC) return REFUSE(err, "law: the Matchstick model makes its own law");
        for (int k = 0; k < 2; ++k)
            if (!(isfinite(p->aniso[k]) && p->aniso[k] >= 0.0))
                return REFUSE(err, "anisotropic[%d]: must be >= 0 (got %g)", k, p->aniso[k]);
        for (int s = 0; s < 2; ++s) {
            char what[32];
            snprintf(what, sizeof what, "structure[%d]", s);
            cfStatus st = cf_direction_field_check(&p->structure[s], what, err);
            if (st != CF_OK) return st;
        }
    }
    if (f->law != CF_LAW_ISOTROPIC) {
        if (!(cfu_vec3_finite(f->dir) && cfu_norm(f->dir) > 1e-12))
            return REFUSE(err, "direction: must be a finite vector of non-zero length");
        if (p->field.kind != CF_FIELD_WORLD) {
            cfStatus st = cf_direction_field_check(&p->field, "direction", err);
            if (st != CF_OK) return st;
        }
        int nk = f->law == CF_LAW_ORTHOTROPIC ? 2 : 4;
        for (int k = 0; k < nk; ++k)
            if (!isfinite(f->coef[k]) || (f->law == CF_LAW_ORTHOTROPIC && f->coef[k] < 0.0))
                return REFUSE(err, "mu[%d]: must be %s (got %g)", k, f->law == CF_LAW_ORTHOTROPIC ? ">= 0" : "finite",
                              f->coef[k]);
    }
    cfFrictionPair *np = realloc(w->pairs, (size_t)(w->n_pairs + 1) * sizeof *np);
    if (!np) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    w->pairs = np;
    w->pairs[w->n_pairs++] = *p;
    return CF_OK;
}

/* ---- chapter 10.6's height fields and the spring drives ---------------------------------------- */

cfStatus cf_world_add_texture(cfWorld *w, const cfBodyTexture *t, cfError *err)
{
    if (!(t->body >= 0 && t->body < w->n_bodies)) return REFUSE(err, "body: no rigid body %d in the world", t->body);
    if (cf_world_texture_of(w, t->body)) return REFUSE(err, "body '%s' has a texture already", w->bodies[t->body].name);
    if (t->nx < 2 || t->nx > CF_TEXTURE_GRID_MAX || t->ny < 2 || t->ny > CF_TEXTURE_GRID_MAX)
        return REFUSE(err, "size: [nx, ny] must each be in 2..%d (got [%d, %d])", CF_TEXTURE_GRID_MAX, t->nx, t->ny);
    if (!(isfinite(t->cell) && t->cell > 0.0)) return REFUSE(err, "cell: must be > 0 m (got %g)", t->cell);
    if (!t->h) return REFUSE(err, "heights: missing");
    long n = (long)t->nx * t->ny;
    for (long i = 0; i < n; ++i)
        if (!isfinite(t->h[i])) return REFUSE(err, "heights[%ld]: must be finite", i);
    if (!cfu_vec3_finite(t->origin)) return REFUSE(err, "origin: must be finite");
    if (!(cfu_vec3_finite(t->u) && cfu_vec3_finite(t->v) && fabs(cfu_norm(t->u) - 1.0) <= 1e-9 &&
          fabs(cfu_norm(t->v) - 1.0) <= 1e-9 && fabs(cfu_dot(t->u, t->v)) <= 1e-9))
        return REFUSE(err, "u, v: the texture axes must be unit and orthogonal");
    cfBodyTexture *nt = realloc(w->textures, (size_t)(w->n_textures + 1) * sizeof *nt);
    if (!nt) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    w->textures = nt;
    double *h = malloc((size_t)n * sizeof *h);
    if (!h) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    memcpy(h, t->h, (size_t)n * sizeof *h);
    w->textures[w->n_textures] = *t;
    w->textures[w->n_textures++].h = h;
    return CF_OK;
}

const cfBodyTexture *cf_world_texture_of(const cfWorld *w, int body)
{
    for (int i = 0; i < w->n_textures; ++i)
        if (w->textures[i].body == body) return &w->textures[i];
    return NULL;
}

cfStatus cf_world_add_pull(cfWorld *w, const cfPull *p, cfError *err)
{
    if (w->n_pulls >= CF_PULLS_MAX) return REFUSE(err, "pull: a world takes at most %d drives", CF_PULLS_MAX);
    if (!(p->body >= 0 && p->body < w->n_bodies)) return REFUSE(err, "body: no rigid body %d in the world", p->body);
    if (w->bodies[p->body].fixed) return REFUSE(err, "body '%s' is fixed: a drive pulls a moving body", w->bodies[p->body].name);
    if (!(isfinite(p->stiffness) && p->stiffness > 0.0)) return REFUSE(err, "stiffness: must be > 0 N/m (got %g)", p->stiffness);
    if (!(isfinite(p->damping) && p->damping >= 0.0)) return REFUSE(err, "damping: must be >= 0 N s/m (got %g)", p->damping);
    if (!cfu_vec3_finite(p->anchor) || !cfu_vec3_finite(p->velocity)) return REFUSE(err, "anchor, velocity: must be finite");
    cfPull *np = realloc(w->pulls, (size_t)(w->n_pulls + 1) * sizeof *np);
    if (!np) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    w->pulls = np;
    w->pulls[w->n_pulls] = *p;
    w->pulls[w->n_pulls++].force = cfu_zero3();
    return CF_OK;
}

cfVec3 cf_pull_force(const cfWorld *w, const cfPull *p)
{
    const cfRigidBody *b = &w->bodies[p->body];
    cfVec3 at = cfu_mul_add(p->anchor, w->time, p->velocity);
    return cfu_add(cfu_scale(p->stiffness, cfu_sub(at, b->x)), cfu_scale(p->damping, cfu_sub(p->velocity, b->v)));
}

const char *cf_world_friction_law(const cfWorld *w, const cfSolver *s)
{
    bool ellipses = false, texture = false;
    for (int i = 0; i < w->n_pairs; ++i) {
        const cfFrictionPair *p = &w->pairs[i];
        texture |= p->texture;
        ellipses |= p->matchstick || p->law.law != CF_LAW_ISOTROPIC;
    }
    return cf_solver_law(s, w->def.friction_model, ellipses, texture);
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
    if (w->def.pipeline == CF_PIPELINE_IPC) E += w->stats.ipc.barrier_energy;
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
