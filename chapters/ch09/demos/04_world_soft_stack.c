/* SPDX-License-Identifier: MIT */
/* Demo ch09/world_soft_stack: the soft stack as a world of the ipc pipeline, its dhat shells drawn and its barrier energy plotted. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch09_ipc_soft_stack.json, two mass-spring boxes dropped on a
 * slab, stepped by the world's ipc pipeline (gather, minimize by chapter 9's cf_ipc_step(), scatter)
 * rather than by a loop of the demo's own (ch09/soft_stack). Every pair closer than dhat = 1 cm is
 * drawn as a red segment between its closest points with a red dot on it (the segments are a few
 * millimetres long; cf_world_ipc_pairs()): the shells where the barrier acts. The plot panel shows the barrier energy kappa sum b against time: zero in free
 * fall, a spike at each landing, then the constant share that carries the weight. The viewer
 * certifies every step by signed volumes (cf_world_crossings()), independently of chapter 9's
 * distances.
 */

typedef struct Data {
    double min_dist;  /* over the run (the pipeline's stats) */
    double barrier_max;
    double max_speed; /* of the last step */
    int pairs;
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    if (cfv_run_add_scene(run, "ch09_ipc_soft_stack.json", "ipc pipeline (red dots: pairs within dhat)", cfu_zero3(), err) < 0)
        return CF_BAD_INPUT;
    d->min_dist = INFINITY;
    cfv_run_subject_soft(run, 0, 0);
    cfv_run_subject_soft(run, 0, 1);
    cfv_run_set_camera(run, cfu_zero3(), -70, 15, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    d->pairs = cfv_run_mark_ipc_pairs(run, 0);
    d->min_dist = fmin(d->min_dist, w->stats.ipc.min_distance);
    d->barrier_max = fmax(d->barrier_max, w->stats.ipc.barrier_energy);
    d->max_speed = cfv_world_max_speed(w);
    cfv_run_info(run, 0, "barrier energy kappa sum b = %.3e J (plotted), pairs within dhat: %d", w->stats.ipc.barrier_energy,
                 d->pairs);
    cfv_run_info(run, 1, "smallest distance now %.3e m, over the run %.3e m (dhat %.0e m)", w->stats.ipc.min_distance,
                 d->min_dist, w->stats.ipc.dhat);
    cfv_run_info(run, 2, "Newton iterations this step: %d, largest node speed %.3f m/s, crossings found: %ld",
                 w->stats.solver_iterations, d->max_speed, run->slot[0].crossings);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    const cfWorld *w = &run->slot[0].w;
    /* the upper box's lowest node above the lower box's highest: stacked, not merged */
    double high_lower = -INFINITY, low_upper = INFINITY;
    for (int k = 0; k < 8; ++k) high_lower = fmax(high_lower, w->soft[0].x[k].z), low_upper = fmin(low_upper, w->soft[1].x[k].z);
    bool ok = !run->slot[0].halted && run->slot[0].crossings == 0 && d->min_dist > 0.0 && low_upper > high_lower &&
              d->max_speed < 0.05 && d->barrier_max > 0.0;
    snprintf(msg, cap,
             "%ld steps certified, %ld crossings (want 0)%s; smallest distance %.3e m (want > 0); upper box bottom %.4f "
             "above lower box top %.4f; final speed %.3g m/s (want < 0.05); largest barrier energy %.3e J",
             w->step, run->slot[0].crossings, run->slot[0].halted ? " (halted)" : "", d->min_dist, low_upper, high_lower,
             d->max_speed, d->barrier_max);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_world_soft_stack = {
    .id = "ch09/world_soft_stack",
    .chapter = 9,
    .title = "The world's ipc pipeline: two soft boxes settle on a slab (red: pairs within dhat; plot: barrier energy)",
    .point_at = "the red dots, pairs within dhat where the barrier pushes (the dhat shells), and the barrier-energy plot: zero in free "
                "fall, a spike at each landing, then the share that carries the weight",
    .keys = "pause,restart",
    .plots = "barrier",
    .prediction = "no surface crosses another in any step (signed volumes), the upper box rests on the lower one and both "
                  "come to rest (node speeds below 5 cm/s after 2 s)",
    .steps = 200,
    CFV_DEMO_HOOKS,
};
