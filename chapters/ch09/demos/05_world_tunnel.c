/* SPDX-License-Identifier: MIT */
/* Demo ch09/world_tunnel: 100 m/s against a 1 mm plate: a penalty spring tunnels, the world's ipc pipeline does not. */
#include "demos.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * What the viewer must show: scenes/ch09_ipc_tunnel.json twice. Left, the same world under the
 * velocity pipeline with a stiff contact spring (contact_stiffness 1e6 N/m: a penalty force in
 * ERP/CFM form, ch02.7) and discrete detection: the particle moves a metre per step, is never seen
 * inside the 1 mm plate, and falls through it (its path crosses the plate's triangles: counted).
 * Right, the ipc pipeline: CCD cuts the first line search and the barrier stops the particle on the
 * plate in the first step; every step is certified by signed volumes.
 */

typedef struct Data {
    long penalty_crossings; /* node paths through the plate under penalty */
    double z[2];            /* the particle's height per world */
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    int a = cfv_run_add_scene(run, "ch09_ipc_tunnel.json", "penalty k = 1e6 N/m, discrete", cfu_vec3(-0.7, 0, 0), err);
    int b = a < 0 ? -1 : cfv_run_add_scene(run, "ch09_ipc_tunnel.json", "ipc pipeline", cfu_vec3(0.7, 0, 0), err);
    if (b < 0) return CF_BAD_INPUT;
    cfWorldDef *def = &cfv_run_world(run, a)->def;
    def->pipeline = CF_PIPELINE_VELOCITY;
    def->ipc = cf_world_def_default().ipc;
    def->detector = CF_DETECT_PRIMITIVES;
    def->solver = cf_solver_find("pgs");
    def->contact_stiffness = 1e6;
    for (int k = 0; k < 2; ++k) cfv_run_subject(run, k, 0); /* the plates */
    cfv_run_subject_region(run, 0, cfu_vec3(-0.5, -0.5, -0.6), cfu_vec3(0.5, 0.5, 0.5)); /* a metre around the plate */
    cfv_run_subject_soft(run, 1, 0); /* the particle, on the plate */
    cfv_run_set_camera(run, cfu_zero3(), -90, 18, 0);
    return CF_OK;
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    cfWorld *pen = cfv_run_world(run, 0);
    cfWorld before;
    if (cf_world_copy(&before, pen) != CF_OK) return;
    cfv_run_step_worlds(run);
    int c = cf_world_crossings(pen, &before, NULL, 0);
    cf_world_free(&before);
    if (c > 0) d->penalty_crossings += c;
    for (int i = 0; i < 2; ++i) d->z[i] = cfv_run_world(run, i)->soft[0].x[0].z;
    cfVec3 p = cfv_run_world(run, 1)->soft[0].x[0];
    cfv_run_mark(run, 1, CFV_MARK_POINT, p, p, 0xffa040, "particle, on the plate");
    if (d->z[0] < 0.0) { /* far below the view: an arrow says where */
        char label[64];
        snprintf(label, sizeof label, "particle fell through: z = %.1f m", d->z[0]);
        cfv_run_mark(run, 0, CFV_MARK_ARROW, cfu_vec3(0.1, 0.15, 0.0), cfu_vec3(0.1, 0.15, -0.3), 0xffa040, label);
    }
    cfv_run_info(run, 0, "penalty: height %.3f m, paths through the plate %ld", d->z[0], d->penalty_crossings);
    cfv_run_info(run, 1, "ipc: height %.3e m, smallest distance %.3e m, crossings %ld", d->z[1],
                 cfv_run_world(run, 1)->stats.ipc.min_distance, run->slot[1].crossings);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    const cfvSlot *ipc = &run->slot[1];
    bool ok = d->penalty_crossings == 1 && d->z[0] < -5.0 && !ipc->halted && ipc->crossings == 0 && d->z[1] > 5e-4 &&
              d->z[1] < 2e-3;
    snprintf(msg, cap,
             "penalty: %ld path through the plate (want 1), ends at %.2f m (want below -5); ipc: %ld steps certified, "
             "%ld crossings (want 0)%s, ends %.3e m above the plate's centre (want in (0.5 mm, 2 mm): resting on its top face at z = 0.5 mm)",
             d->penalty_crossings, d->z[0], ipc->w.step, ipc->crossings, ipc->halted ? " (halted)" : "", d->z[1]);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_world_tunnel = {
    .id = "ch09/world_tunnel",
    .chapter = 9,
    .title = "100 m/s against a 1 mm plate: a penalty spring never sees it, the world's ipc pipeline stops on it",
    .point_at = "left, the particle below the plate after one step (a metre per step, the plate a millimetre); right, "
                "the particle resting on the plate: CCD cut the line search, the barrier did the rest",
    .keys = "pause,restart",
    .plots = "energy,barrier",
    .prediction = "penalty: the particle's path crosses the plate once and it falls on; ipc: it stops on the plate's top "
                  "face in the first step, no crossing in any step",
    .steps = 100,
    CFV_DEMO_STEP_HOOKS,
};
