/* SPDX-License-Identifier: MIT */
/* The world as a container: bodies, friction pairs, copies, energy and momentum. Its settings are
   settings.c's, its step step.c's. */
#include "cf/cf_world.h"

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
    dst->work = NULL;
    memset(&dst->contacts, 0, sizeof dst->contacts);
    dst->n_bodies = dst->cap_bodies = dst->n_soft = dst->cap_soft = dst->n_pairs = 0;
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
