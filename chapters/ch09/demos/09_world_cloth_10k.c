/* SPDX-License-Identifier: MIT */
/* Demo ch09/world_cloth_10k: IPC at scale, a 10 000-node cloth settling onto a box under the world's ipc pipeline (sparse path, adaptive kappa). */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch09_ipc_cloth_10k.json, a 1 m sheet of 100 x 100 nodes laid
 * 1 mm over a fixed 0.4 m box, stepped by the world's ipc pipeline on the reference's sparse path
 * (broad phase, nested-dissection sparse Cholesky) with IPC's adaptive kappa. The middle of the
 * sheet stays on the box top, within dhat = 2 mm of it; the four flaps that hang over the void fall
 * and fold down around the box's edges. The viewer certifies every step by signed volumes
 * (cf_world_crossings()); the HUD shows the step's Newton iterations, kappa (adapted each step) and
 * the smallest distance. A step takes seconds (bench/results/ch09_ipc_scaling.txt), so the demo
 * runs 10 steps (1/6 s).
 */

typedef struct Data {
    double min_dist; /* over the run (the pipeline's stats) */
    double kappa_lo, kappa_hi;
    int iterations;  /* over the run */
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    if (cfv_run_add_scene(run, "ch09_ipc_cloth_10k.json", "ipc pipeline, 10 000 nodes, adaptive kappa", cfu_zero3(), err) < 0)
        return CF_BAD_INPUT;
    d->min_dist = INFINITY;
    d->kappa_lo = INFINITY;
    d->kappa_hi = 0.0;
    cfv_run_subject_soft(run, 0, 0);
    cfv_run_set_camera(run, cfu_zero3(), -60, 25, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    d->min_dist = fmin(d->min_dist, w->stats.ipc.min_distance);
    d->kappa_lo = fmin(d->kappa_lo, w->stats.ipc.kappa);
    d->kappa_hi = fmax(d->kappa_hi, w->stats.ipc.kappa);
    d->iterations += w->stats.solver_iterations;
    cfv_run_info(run, 0, "Newton iterations this step: %d, pairs within dhat: %d, crossings found: %ld",
                 w->stats.solver_iterations, w->stats.n_contacts, run->slot[0].crossings);
    cfv_run_info(run, 1, "kappa %.3g N/m (%d doublings this step; over the run %.3g .. %.3g)", w->stats.ipc.kappa,
                 w->stats.ipc.kappa_doublings, d->kappa_lo, d->kappa_hi);
    cfv_run_info(run, 2, "smallest distance now %.3e m, over the run %.3e m (dhat %.0e m)", w->stats.ipc.min_distance,
                 d->min_dist, w->stats.ipc.dhat);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    const cfWorld *w = &run->slot[0].w;
    const cfSoftBody *c = &w->soft[0];
    double z_mid = c->x[50 * 100 + 50].z, z_corner = c->x[0].z;
    bool ok = !run->slot[0].halted && run->slot[0].crossings == 0 && d->min_dist > 0.0 && z_mid > 0.0 &&
              z_mid < w->stats.ipc.dhat && z_corner < -0.01;
    snprintf(msg, cap,
             "%ld steps certified, %ld crossings (want 0)%s; smallest distance %.3e m (want > 0); middle node %.3e m over "
             "the box top (want in (0, dhat = %.0e)); corner at z = %.4f m (want below -0.01: the flaps fall); %d Newton "
             "iterations",
             w->step, run->slot[0].crossings, run->slot[0].halted ? " (halted)" : "", d->min_dist, z_mid,
             w->stats.ipc.dhat, z_corner, d->iterations);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_world_cloth_10k = {
    .id = "ch09/world_cloth_10k",
    .chapter = 9,
    .title = "IPC at scale: a 10 000-node cloth settles onto a box (sparse path, adaptive kappa)",
    .point_at = "the sheet's middle, held on the box top by the barrier, and the flaps over the void falling around the box's "
                "edges; the HUD: Newton iterations, kappa adapted per step, the smallest distance",
    .keys = "pause,restart",
    .prediction = "no surface crosses another in any step (signed volumes), every distance stays positive, the middle rests "
                  "within dhat of the box top and the corners fall more than 1 cm in 10 steps",
    .needs = "chapter 9's sparse path (solutions/ch09/fast/, with the reference solutions only: not in a handout)",
    .available = cf_world_ipc_sparse_linked,
    .steps = 10,
    .heavy = true, /* 30 s for the ten steps idle: make demos-check takes one step, HEAVY=1 all ten */
    CFV_DEMO_HOOKS,
};
