/* SPDX-License-Identifier: MIT */
/* The world's step: the settings checked, then one step of the world's pipeline (pipelines.c) as a
   transaction, committed only when its new state passes cf_state_check() (a failing step leaves
   the state as it was), counting the steps whose solve did not converge; or, for chapter 11, the
   velocity pipeline's stages handed to a step function as a table of callbacks (cfStepOps, ch11.1). */
#include <string.h>

#include "cf/cf_ch11.h"
#include "stages.h"

/* a step of the world's pipeline, as one transaction */
static cfStatus transaction(cfWorld *w, cfStatus (*step)(cfWorld *w))
{
    cfSavedState sv;
    cfStatus st = cf_state_save(w, &sv);
    bool saved = st == CF_OK;
    st = saved ? step(w) : cf_step_fail(w, st, "out of memory");
    if (st == CF_OK) st = cf_state_check(w, &sv);
    if (st == CF_OK) {
        w->time += w->def.dt;
        w->step += 1;
    } else if (saved) {
        cf_state_restore(w, &sv);
    }
    cf_state_free(&sv, w->n_soft);
    return st;
}

/* ---- the velocity pipeline's stages as chapter 11's table (cf_ch11.h) ---------------------------- */

typedef struct OpsCtx {
    cfWorld *w;
    cfSavedState sv;
    bool saved;
} OpsCtx;

static cfStatus op_stage(void *ctx, cfStage s) { return cf_velocity_stage(((OpsCtx *)ctx)->w, s); }
static cfStatus op_detect(void *ctx) { return op_stage(ctx, CF_STAGE_DETECT); }
static cfStatus op_contacts(void *ctx) { return op_stage(ctx, CF_STAGE_CONTACTS); }
static cfStatus op_velocities(void *ctx) { return op_stage(ctx, CF_STAGE_VELOCITIES); }
static cfStatus op_assemble(void *ctx) { return op_stage(ctx, CF_STAGE_ASSEMBLE); }
static cfStatus op_solve(void *ctx) { return op_stage(ctx, CF_STAGE_SOLVE); }
static cfStatus op_positions(void *ctx) { return op_stage(ctx, CF_STAGE_POSITIONS); }
static cfStatus op_stabilize(void *ctx) { return op_stage(ctx, CF_STAGE_STABILIZE); }

static void op_drop(OpsCtx *c)
{
    if (c->saved) cf_state_free(&c->sv, c->w->n_soft);
    c->saved = false;
}

static cfStatus op_save(void *ctx)
{
    OpsCtx *c = ctx;
    op_drop(c);
    cfStatus st = cf_state_save(c->w, &c->sv);
    if (st == CF_OK) {
        c->saved = true;
        return CF_OK;
    }
    cf_state_free(&c->sv, c->w->n_soft);
    return cf_step_fail(c->w, st, "out of memory");
}

static void op_restore(void *ctx)
{
    OpsCtx *c = ctx;
    if (c->saved) cf_state_restore(c->w, &c->sv);
    op_drop(c);
}

static cfStatus op_finite(void *ctx)
{
    OpsCtx *c = ctx;
    return cf_state_check(c->w, c->saved ? &c->sv : NULL);
}

static void op_commit(void *ctx)
{
    OpsCtx *c = ctx;
    c->w->time += c->w->def.dt;
    c->w->step += 1;
    op_drop(c);
}

/* the stages of the velocity pipeline run by @p step over the table of cf_ch11.h */
static cfStatus step_with_ops(cfWorld *w, cfStepFn step)
{
    OpsCtx c = {.w = w};
    _Static_assert(CF_STEP_STAGES == CF_STAGE_COUNT, "one entry of cfStepOps::stage per world stage");
    cfStepOps ops = {.ctx = &c,
                     .stage = {op_detect, op_contacts, op_velocities, op_assemble, op_solve, op_positions, op_stabilize},
                     .seconds = w->stats.stage_seconds, .save = op_save, .restore = op_restore,
                     .finite = op_finite, .commit = op_commit};
    for (int k = 0; k < CF_STEP_STAGES; ++k) ops.name[k] = cf_stage_name((cfStage)k);
    cfStatus st = step(&ops);
    op_drop(&c); /* a pipeline that neither committed nor restored */
    return st;
}

cfStatus cf_world_step_with(cfWorld *w, cfStepFn step)
{
    w->error.msg[0] = '\0';
    cfStatus st = cf_world_def_check(&w->def, &w->error);
    if (st != CF_OK) return st;
    const cfPipeline *pl = cf_pipeline_of(w->def.pipeline);
    if ((st = pl->check(w, &w->error)) != CF_OK) return st;
    if (step && w->def.pipeline != CF_PIPELINE_VELOCITY)
        return cf_step_fail(w, CF_BAD_INPUT, "a step function (ch11.1) runs the velocity pipeline's stages; this world's "
                            "pipeline is '%s'", pl->name);
    memset(&w->stats, 0, sizeof w->stats);
    /* the spring drives add their force of the step's start to their bodies' for this step only */
    cfVec3 held[CF_PULLS_MAX];
    const int n_pulls = w->n_pulls < CF_PULLS_MAX ? w->n_pulls : CF_PULLS_MAX; /* cf_world_add_pull's cap */
    for (int i = 0; i < n_pulls; ++i) {
        cfPull *pu = &w->pulls[i];
        pu->force = cf_pull_force(w, pu);
        held[i] = w->bodies[pu->body].force;
        w->bodies[pu->body].force = cfu_add(held[i], pu->force);
    }
    st = step && w->def.cmr_rounds == 0 ? step_with_ops(w, step) : transaction(w, pl->step);
    for (int i = n_pulls - 1; i >= 0; --i)
        w->bodies[w->pulls[i].body].force = held[i]; /* exactly the force it had */
    if (st != CF_OK) {
        if (st == CF_NO_MEMORY) cf_step_fail(w, st, "out of memory");
        cf_step_fail(w, st, "the step failed: %s", cf_status_name(st));
    } else {
        /* a committed step whose solve did not converge (cf_solvers.h), whatever the policy let it do */
        w->unconverged_steps += w->stats.contact_solve && w->stats.solver_status != CF_OK;
        w->retried_steps += w->stats.solver_retries > 0;
    }
    return st;
}

cfStatus cf_world_step(cfWorld *w) { return cf_world_step_with(w, NULL); }
