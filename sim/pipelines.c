/* SPDX-License-Identifier: MIT */
/* The pipelines: one row per stage list a step can run (cf_world.h, cfPipeline), and their names.
   The velocity pipeline's step runs its stages (velocity.c) or, with cmr_rounds > 0, constraint
   manifold refinement over them (cmr.c); the ipc and implicit-soft pipelines are ipc.c's and
   implicit.c's. */
#include "stages.h"

/* the velocity pipeline takes every world; what a stage cannot do it says itself */
static cfStatus velocity_check(const cfWorld *w, cfError *err)
{
    (void)w;
    (void)err;
    return CF_OK;
}

static cfStatus velocity_step(cfWorld *w)
{
    if (w->def.cmr_rounds > 0) return cf_world_cmr_step(w);
    return cf_velocity_stages(w, CF_STAGE_DETECT, CF_STAGE_STABILIZE);
}

//> ch09:world-pipelines
static const cfPipeline pipelines[CF_PIPELINE_COUNT] = {
    [CF_PIPELINE_VELOCITY] = {"velocity", "detect contacts, then solve a velocity-level contact problem (chapters 1-8, 10)",
                              CF_STAGE_COUNT,
                              {"detect", "contacts", "velocities", "assemble", "solve", "positions", "stabilize"},
                              velocity_check, velocity_step},
    [CF_PIPELINE_IPC] = {"ipc", "Incremental Potential Contact: minimize the incremental potential over positions (chapter 9)",
                         3, {"gather", "minimize", "scatter"}, cf_world_ipc_check, cf_world_ipc_step},
    [CF_PIPELINE_IMPLICIT_SOFT] = {"implicit-soft", "paper 003: solve the momentum balance for the end velocity, friction "
                                   "taken at the end of the step (ch09.7)",
                                   3, {"gather", "solve", "scatter"}, cf_world_implicit_check, cf_world_implicit_step},
};
//< ch09:world-pipelines

const cfPipeline *cf_pipeline_of(cfPipelineKind k)
{
    return k >= 0 && k < CF_PIPELINE_COUNT ? &pipelines[k] : NULL;
}

const char *cf_pipeline_name(cfPipelineKind k)
{
    const cfPipeline *p = cf_pipeline_of(k);
    return p ? p->name : "unknown";
}

const char *cf_stage_name(cfStage s)
{
    return (s >= 0 && s < CF_STAGE_COUNT) ? pipelines[CF_PIPELINE_VELOCITY].stages[s] : "unknown";
}
