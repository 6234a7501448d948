/* SPDX-License-Identifier: MIT */
/* The implicit-soft pipeline (cfWorldDef::pipeline = CF_PIPELINE_IMPLICIT_SOFT): a step of the
   world is one step of paper 003's fully implicit frictional dynamics (exercise ch09.7,
   cf_implicit_step()). Three stages: gather (the world's mass-spring soft bodies become the nodes
   and springs of one cfImplicitSystem, its fixed planes its obstacles), solve (cf_implicit_step()
   with the settings' integrator) and scatter (positions, velocities, BDF2's history and the step's
   measurements back to the world).

   The system is rebuilt at every step. That is the same step as keeping it: its state is the
   soft bodies' x, v and, for BDF2, their x_prev, v_prev and has_prev, which the scatter writes
   back and the gather reads; the one thing a kept system would carry more is a kappa raised by a
   stiffness bump, which here holds for the step that needed it and starts from the setting again
   at the next (cfStepStats::implicit reports it). */
#include <math.h>
#include <string.h>

#include "cf/cf_ch09.h"
#include "internal.h"

/* ---- the names of its settings' values (scene files) ---------------------------------------------- */

const char *cf_implicit_integrator_name(cfImplicitIntegrator i)
{
    switch (i) {
    case CF_IMPLICIT_BE: return "be";
    case CF_IMPLICIT_TR: return "tr";
    case CF_IMPLICIT_BDF2: return "bdf2";
    case CF_IMPLICIT_SDIRK2: return "sdirk2";
    case CF_IMPLICIT_INTEGRATOR_COUNT: break;
    }
    return "unknown";
}

const char *cf_slide_profile_name(cfSlideProfile p)
{
    switch (p) {
    case CF_SLIDE_QUADRATIC: return "quadratic";
    case CF_SLIDE_RATIONAL: return "rational";
    case CF_SLIDE_PROFILE_COUNT: break;
    }
    return "unknown";
}

/* ---- which worlds the pipeline takes ------------------------------------------------------------ */

cfStatus cf_world_implicit_check(const cfWorld *w, cfError *err)
{
    cfOneMu one = {.pipeline = "implicit-soft"};
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (!b->fixed || b->shape.type != CF_SHAPE_PLANE)
            return cf_error_set(err, CF_BAD_INPUT, "bodies[%d] '%s': the implicit-soft pipeline's obstacles are fixed planes "
                                "(paper 003's nodes against smooth fixed surfaces; got a %s %s)", i, b->name,
                                b->fixed ? "fixed" : "moving", cf_shape_name(b->shape.type));
        cfStatus st = cf_world_same_mu(&one, "bodies", i, b->name, b->mu, err);
        if (st != CF_OK) return st;
    }
    return cf_world_spring_soft_check(w, &one, "keeps nodes off planes by its delta", err);
}

/* ---- stage 1, gather ---------------------------------------------------------------------------- */

/* The system of the world: every fixed plane (n, offset) as the obstacle through offset n / |n|,
   then each soft body's nodes at x, v (its mass; fixed nodes fixed), its springs of k > 0 with
   their own rest lengths, and, when every soft body has it, BDF2's history x_prev, v_prev. */
static cfStatus gather(cfWorld *w, cfImplicitSystem *s)
{
    //> ch09:world-implicit-gather
    const cfImplicitSoftSettings *set = &w->def.implicit;
    cfStatus st = cf_implicit_init(s, w->def.dt, set->kappa, set->delta);
    if (st != CF_OK) return st;
    s->gravity = w->def.gravity;
    s->mu = w->n_bodies > 0 ? w->bodies[0].mu : w->n_soft > 0 ? w->soft[0].mu : 0.0; /* all agree (the check) */
    s->eps = set->eps;
    s->profile = set->profile;
    for (int i = 0; i < w->n_bodies && st == CF_OK; ++i) {
        cfVec3 n = cfu_normalize(w->bodies[i].shape.normal);
        cfImplicitObstacle o = {.kind = CF_IMPLICIT_PLANE, .p = cfu_scale(w->bodies[i].shape.offset, n), .n = n};
        if (cf_implicit_add_obstacle(s, o) < 0) st = CF_NO_MEMORY;
    }
    bool history = w->n_soft > 0;
    for (int i = 0; i < w->n_soft && st == CF_OK; ++i) {
        const cfSoftBody *b = &w->soft[i];
        int o = s->n;
        for (int k = 0; k < b->n_nodes && st == CF_OK; ++k)
            if (cf_implicit_add_node(s, b->x[k], b->fixed[k] ? cfu_zero3() : b->v[k], b->mass[k], b->fixed[k]) < 0)
                st = cf_error_set(&w->error, CF_BAD_INPUT, "soft_bodies[%d] '%s': node %d: not a node of ch09.7's system "
                                  "(out of memory or a non-finite state)", i, b->name, k);
        for (int k = 0; k < b->n_springs && st == CF_OK; ++k) {
            const cfSpring *sp = &b->springs[k];
            if (!(sp->k > 0.0)) continue;
            int e = cf_implicit_add_spring(s, o + sp->i, o + sp->j, sp->k);
            if (e < 0)
                st = cf_error_set(&w->error, CF_BAD_INPUT, "soft_bodies[%d] '%s': spring %d: not a spring of ch09.7's "
                                  "system (out of memory or its nodes coincide)", i, b->name, k);
            else s->rest[e] = sp->rest;
        }
        history = history && b->has_prev;
    }
    for (int i = 0, o = 0; history && i < w->n_soft; o += w->soft[i++].n_nodes)
        for (int k = 0; k < w->soft[i].n_nodes; ++k)
            for (int a = 0; a < 3; ++a) {
                s->q_prev[3 * (o + k) + a] = cfu_vec3_at(w->soft[i].x_prev[k], a);
                s->v_prev[3 * (o + k) + a] = w->soft[i].fixed[k] ? 0.0 : cfu_vec3_at(w->soft[i].v_prev[k], a);
            }
    s->has_prev = history && st == CF_OK;
    return st;
    //< ch09:world-implicit-gather
}

/* ---- stage 3, scatter ----------------------------------------------------------------------------- */

static cfVec3 node(const double *q, int i) { return cfu_vec3(q[3 * i], q[3 * i + 1], q[3 * i + 2]); }

static void scatter(cfWorld *w, const cfImplicitSystem *s, const cfImplicitStats *is)
{
    int contacts = 0;
    for (int i = 0, o = 0; i < w->n_soft; o += w->soft[i++].n_nodes) {
        cfSoftBody *b = &w->soft[i];
        for (int k = 0; k < b->n_nodes; ++k) {
            b->x_prev[k] = node(s->q_prev, o + k);
            b->v_prev[k] = node(s->v_prev, o + k);
            if (b->fixed[k]) continue;
            b->x[k] = node(s->q, o + k);
            b->v[k] = node(s->v, o + k);
            for (int j = 0; j < s->n_obst; ++j) contacts += cf_implicit_gap(&s->obst[j], b->x[k], NULL) < s->delta;
        }
        b->has_prev = true;
    }
    cfStepStats *t = &w->stats;
    t->solver_iterations = is->iterations;
    t->solver_residual = is->residual;
    t->solver_status = CF_OK;
    t->contact_solve = true;
    t->n_contacts = contacts;
    t->implicit.kappa = s->kappa;
    t->implicit.bumps = is->bumps;
    t->implicit.min_gap = is->d_min;
}

/* ---- the step ------------------------------------------------------------------------------------- */

cfStatus cf_world_implicit_step(cfWorld *w)
{
    //> ch09:world-implicit-step
    cfImplicitSystem s;
    memset(&s, 0, sizeof s);
    double t0 = cf_seconds();
    cfStatus st = gather(w, &s);
    double t1 = cf_seconds();
    w->stats.stage_seconds[0] = t1 - t0;
    cfImplicitStats is;
    memset(&is, 0, sizeof is);
    cfImplicitOptions o = cf_implicit_options_default();
    if (st == CF_OK) st = cf_implicit_step(&s, w->def.implicit.integrator, &o, &is);
    double t2 = cf_seconds();
    w->stats.stage_seconds[1] = t2 - t1;
    /* a stage that did not converge leaves the system at q^n, v^n (cf_implicit_step()): the step fails */
    if (st == CF_OK) scatter(w, &s, &is);
    else if (w->error.msg[0] == '\0')
        cf_error_set(&w->error, st, "implicit-soft: a stage of the %s step ended with %s (|r|_inf %g N s after %d Newton "
                     "iterations)", cf_implicit_integrator_name(w->def.implicit.integrator), cf_status_name(st), is.residual,
                     is.iterations);
    w->stats.stage_seconds[2] = cf_seconds() - t2;
    cf_implicit_free(&s);
    return st;
    //< ch09:world-implicit-step
}
