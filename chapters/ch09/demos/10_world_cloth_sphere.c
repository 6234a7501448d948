/* SPDX-License-Identifier: MIT */
/* Demo ch09/world_cloth_sphere: a cloth drapes over a sphere and four rigid boxes land on it, under the world's ipc pipeline (sparse path, sparse affine step). */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch09_ipc_cloth_sphere.json, a 1 m sheet of 45 x 45 nodes
 * falling at 0.5 m/s from 5 mm onto a fixed sphere of radius 0.3 m (under ipc its inscribed
 * icosphere, whose faces lie within dhat/2 = 1 mm of the sphere drawn), and four rigid 0.5 kg boxes
 * (affine bodies) falling 2 cm onto the sheet. The middle of the sheet stays on the sphere's top, the
 * skirt falls and folds around the sphere, the boxes land on the sheet and ride down the sphere's
 * sides with it. The viewer certifies every step by signed volumes (cf_world_crossings()). A step
 * takes one to five seconds (bench/results/ch09_ipc_world.txt), so the demo runs 20 steps (1/3 s).
 */

#define K 45 /* nodes per side of the sheet */

typedef struct Data {
    double min_dist; /* over the run */
    int iterations;  /* over the run */
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    if (cfv_run_add_scene(run, "ch09_ipc_cloth_sphere.json", "ipc pipeline, cloth on a sphere, four rigid boxes", cfu_zero3(),
                          err) < 0)
        return CF_BAD_INPUT;
    d->min_dist = INFINITY;
    cfv_run_subject_soft(run, 0, 0);
    cfv_run_set_camera(run, cfu_vec3(0, 0, -0.2), -50, 25, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    d->min_dist = fmin(d->min_dist, w->stats.ipc.min_distance);
    d->iterations += w->stats.solver_iterations;
    cfv_run_info(run, 0, "Newton iterations this step: %d, pairs within dhat: %d, crossings found: %ld",
                 w->stats.solver_iterations, w->stats.n_contacts, run->slot[0].crossings);
    cfv_run_info(run, 1, "smallest distance now %.3e m, over the run %.3e m (dhat %.0e m)", w->stats.ipc.min_distance,
                 d->min_dist, w->stats.ipc.dhat);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    const cfWorld *w = &run->slot[0].w;
    const cfSoftBody *c = &w->soft[0];
    const cfVec3 centre = w->bodies[0].x;
    const double r = w->bodies[0].shape.radius, dhat = w->stats.ipc.dhat, L = 1.0 / (K - 1);
    /* the middle node over the top: on it within dhat, or up to L^2/(2r) over it where the sheet's
       triangles of side L rest on the icosphere's points */
    double z_mid = c->x[(K / 2) * K + K / 2].z, z_corner = c->x[0].z, inside = INFINITY, box_gap = INFINITY;
    for (int i = 0; i < c->n_nodes; ++i) inside = fmin(inside, cfu_norm(cfu_sub(c->x[i], centre)) - r);
    for (int b = 1; b < w->n_bodies; ++b) /* each box's centre over the sphere by its half height at least */
        box_gap = fmin(box_gap, cfu_norm(cfu_sub(w->bodies[b].x, centre)) - r - w->bodies[b].shape.half_extents.z);
    bool ok = !run->slot[0].halted && run->slot[0].crossings == 0 && d->min_dist > 0.0 && inside >= -0.5 * dhat &&
              z_mid > -0.5 * dhat && z_mid < dhat + L * L / (2 * r) && z_corner < -0.05 && box_gap > 0.0;
    snprintf(msg, cap,
             "%ld steps certified, %ld crossings (want 0)%s; smallest distance %.3e m (want > 0); deepest node %.2e m "
             "from the sphere (want >= -dhat/2); middle node at z = %.3e m (want on the top: in (-dhat/2, dhat + L^2/2r)); "
             "corner at z = %.4f m (want below -0.05: the skirt falls); boxes over the sphere by %.4f m at least (want > 0); "
             "%d Newton iterations",
             w->step, run->slot[0].crossings, run->slot[0].halted ? " (halted)" : "", d->min_dist, inside, z_mid, z_corner,
             box_gap, d->iterations);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_world_cloth_sphere = {
    .id = "ch09/world_cloth_sphere",
    .chapter = 9,
    .title = "IPC: a cloth drapes over a sphere and rigid boxes land on it (sparse path, sparse affine step)",
    .point_at = "the sheet's middle held on the sphere's top, the skirt folding around it, the four boxes landing on the sheet "
                "and riding down with it; the HUD: Newton iterations, pairs within dhat, the smallest distance",
    .keys = "pause,restart",
    .prediction = "no surface crosses another in any step (signed volumes), every distance stays positive, no node inside the "
                  "sphere by more than dhat/2, the middle rests on the top, the corners fall more than 5 cm and the boxes stay "
                  "on the sheet over the sphere",
    .needs = "chapter 9's sparse path (solutions/ch09/fast/, with the reference solutions only: not in a handout)",
    .available = cf_world_ipc_sparse_linked,
    .steps = 20,
    .heavy = true, /* 110 s for the twenty steps idle (50 Newton iterations a step): make demos-check takes one step, HEAVY=1 all twenty */
    CFV_DEMO_HOOKS,
};
