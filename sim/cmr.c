/* SPDX-License-Identifier: MIT */
/* Constraint manifold refinement (paper 004, ch08.6): the world's side of chapter 8's callbacks
   (cfCmrOps). A step detects (proximity), makes the frames and free velocities once, then runs
   rounds of assemble + solve (the response), tentative positions and continuous collision
   detection on the linear motion, whose new pairs join the contacts, until no pair crosses;
   positions and stabilize then commit. Chapter 8's cf_cmr_step() decides the rounds and halvings. */
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch01.h"
#include "cf/cf_ch02.h"
#include "cf/cf_ch08.h"
#include "stages.h"

typedef struct CmrCtx {
    cfWorld *w;
    cfSavedState sv;         /* the state at the last begin */
    bool saved;
    cfRigidBody *free_rigid; /* rigid bodies after the velocities stage: free velocities */
    cfRigidBody *tent_rigid; /* tentative rigid poses */
    cfVec3 **tent_soft;      /* tentative soft positions */
} CmrCtx;

static void cmr_ctx_free(CmrCtx *c)
{
    if (c->saved) cf_state_free(&c->sv, c->w->n_soft);
    free(c->free_rigid);
    free(c->tent_rigid);
    for (int i = 0; c->tent_soft && i < c->w->n_soft; ++i) free(c->tent_soft[i]);
    free(c->tent_soft);
}

static cfStatus cmr_begin(void *ctx, double dt)
{
    CmrCtx *c = ctx;
    cfWorld *w = c->w;
    w->def.dt = dt;
    if (c->saved) cf_state_free(&c->sv, w->n_soft);
    cfStatus st = cf_state_save(w, &c->sv);
    c->saved = st == CF_OK;
    if (!c->saved) {
        cf_state_free(&c->sv, w->n_soft);
        return st;
    }
    st = cf_velocity_stages(w, CF_STAGE_DETECT, CF_STAGE_VELOCITIES);
    if (st == CF_OK && w->n_bodies) memcpy(c->free_rigid, w->bodies, (size_t)w->n_bodies * sizeof *w->bodies);
    return st;
}

static cfStatus cmr_respond(void *ctx)
{
    CmrCtx *c = ctx;
    cfWorld *w = c->w;
    /* every round starts from the free velocities */
    for (int i = 0; i < w->n_bodies; ++i) {
        w->bodies[i].v = c->free_rigid[i].v;
        w->bodies[i].w = c->free_rigid[i].w;
    }
    return cf_velocity_stages(w, CF_STAGE_ASSEMBLE, CF_STAGE_SOLVE);
}

static cfStatus cmr_advance(void *ctx)
{
    CmrCtx *c = ctx;
    cfWorld *w = c->w;
    for (int i = 0; i < w->n_bodies; ++i) {
        c->tent_rigid[i] = w->bodies[i];
        cfStatus st = cf_rigid_integrate_position(&c->tent_rigid[i], w->def.dt);
        if (st != CF_OK)
            return cf_step_fail(w, st, "cmr: tentative position of body '%s' (%s)", w->bodies[i].name, cf_status_name(st));
    }
    const cfSoftSteps *soft = &w->work->soft;
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        const cfSoftStep *sw = &soft->body[i];
        for (int n = 0; n < s->n_nodes; ++n)
            c->tent_soft[i][n] = sw->moved && !s->fixed[n] ? cfu_mul_add(sw->xs[n], sw->beta, sw->u_new[n]) : s->x[n];
    }
    return CF_OK;
}

/* a contact CCD found, made as the contacts stage makes one (law, frame), joins @p contacts */
static cfStatus join(cfWorld *w, cfContactList *found, cfContact *n, cfContactList *contacts)
{
    int a_is = 0;
    const cfFrictionPair *p;
    if (cf_contact_law(w, found, n, &p, &a_is) != CF_OK) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    if (!cf_contact_isotropic(n) || (p && p->matchstick))
        return cf_step_fail(w, CF_BAD_INPUT, "CMR: the contact between '%s' and '%s' has the %s law; the dual form takes "
                            "isotropic friction only", cf_side_name(w, n, 0), cf_side_name(w, n, 1),
                            cf_contact_law_name(n, p));
    cfStatus st = cf_contact_frame(n->n, &n->t, &n->b);
    if (st == CF_OK) st = cf_contacts_push(contacts, n);
    return st;
}

static cfStatus cmr_collide(void *ctx, int *added, int *colliding)
{
    CmrCtx *c = ctx;
    cfWorld *w = c->w;
    cfContactList found = {0};
    double t0 = cf_seconds();
    cfStatus st = cf_detect_ccd(w, &w->contacts, c->tent_soft, c->tent_rigid, w->def.contact_margin, &found, colliding);
    *added = found.count;
    for (int a = 0; a < found.count && st == CF_OK; ++a) st = join(w, &found, &found.items[a], &w->contacts);
    cf_contacts_free(&found);
    w->stats.stage_seconds[CF_STAGE_DETECT] += cf_seconds() - t0;
    w->stats.n_contacts = w->contacts.count;
    if (st == CF_OK || st == CF_BAD_INPUT) return st; /* a bad input has its message already */
    return cf_step_fail(w, st, "cmr: continuous collision detection (%s)", cf_status_name(st));
}

static cfStatus cmr_commit(void *ctx)
{
    CmrCtx *c = ctx;
    return cf_velocity_stages(c->w, CF_STAGE_POSITIONS, CF_STAGE_STABILIZE);
}

static cfStatus cmr_restore(void *ctx)
{
    CmrCtx *c = ctx;
    if (c->saved) cf_state_restore(c->w, &c->sv);
    return CF_OK;
}

/* the step's CMR statistics from chapter 8's */
static void record_cmr(cfStepStats *stats, const cfCmrStats *cs)
{
    stats->cmr_rounds = cs->rounds_total;
    for (int r = 0; r <= CF_CMR_MAX_ROUNDS; ++r)
        if (cs->rounds[r]) stats->cmr_rounds_max = r;
    stats->cmr_substeps = cs->substeps;
    stats->cmr_halvings = cs->halvings;
    stats->cmr_unresolved = cs->unresolved;
}

cfStatus cf_world_cmr_step(cfWorld *w)
{
    double dt = w->def.dt;
    CmrCtx c = {.w = w};
    c.free_rigid = malloc((size_t)(w->n_bodies > 0 ? w->n_bodies : 1) * sizeof *c.free_rigid);
    c.tent_rigid = malloc((size_t)(w->n_bodies > 0 ? w->n_bodies : 1) * sizeof *c.tent_rigid);
    c.tent_soft = calloc((size_t)(w->n_soft > 0 ? w->n_soft : 1), sizeof *c.tent_soft);
    cfStatus st = c.free_rigid && c.tent_rigid && c.tent_soft && cf_step_work(w) ? CF_OK : CF_NO_MEMORY;
    for (int i = 0; i < w->n_soft && st == CF_OK; ++i)
        if (!(c.tent_soft[i] = malloc((size_t)w->soft[i].n_nodes * sizeof **c.tent_soft))) st = CF_NO_MEMORY;
    cfCmrStats cs;
    memset(&cs, 0, sizeof cs);
    if (st == CF_OK) {
        cfCmrOps ops = {.ctx = &c, .begin = cmr_begin, .respond = cmr_respond, .advance = cmr_advance,
                        .collide = cmr_collide, .commit = cmr_commit, .restore = cmr_restore};
        cfCmrOptions o = {.max_rounds = w->def.cmr_rounds, .max_halvings = w->def.cmr_halvings};
        st = cf_cmr_step(&ops, &o, dt, &cs);
        if (st == CF_NOT_IMPLEMENTED) st = cf_step_fail(w, st, "cmr: constraint manifold refinement (ch08.6) is not implemented");
    }
    w->def.dt = dt;
    record_cmr(&w->stats, &cs);
    cmr_ctx_free(&c);
    return st;
}
