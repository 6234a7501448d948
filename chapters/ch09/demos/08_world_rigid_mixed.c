/* SPDX-License-Identifier: MIT */
/* Demo ch09/world_rigid_mixed: rigid boxes (stiff affine bodies) and soft boxes together under the world's ipc pipeline. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch09.h"

/*
 * What the viewer must show: scenes/ch09_ipc_rigid_mixed.json. Left, a rigid lid dropped tilted onto
 * a soft box; right, a soft box dropped onto a rigid crate; in front, a rigid brick thrown
 * tumbling, which lands, flips and stops. Every rigid box is a stiff affine body within a step
 * (cf_ipc_affine.h: its corners and centre at c + A X, 12 unknowns, chapter 9's barrier, CCD and
 * Newton through the linear map) and a rigid pose after it. Red: every pair closer than dhat =
 * 5 mm (cf_world_ipc_pairs()), the shells where the barrier carries the weights. Every step is
 * certified by signed volumes, the corners' straight paths included.
 *
 * The prediction is the resting-contact equation of the text: a corner that carries the weight W
 * rests where kappa (-b'(d)) = W. The crate carries itself and the soft cube centred on it, W =
 * (2 + 0.5) g / 4 on each corner; the brick, flat, W = 1 g / 4.
 */

typedef struct Data {
    double min_dist; /* over the run */
    int pairs;
} Data;

/* lowest and highest corner heights of rigid box @p b */
static void corner_heights(const cfRigidBody *b, double *low, double *high)
{
    cfVec3 he = b->shape.half_extents;
    *low = INFINITY, *high = -INFINITY;
    for (int k = 0; k < 8; ++k) {
        cfVec3 X = cfu_vec3(k & 1 ? he.x : -he.x, k & 2 ? he.y : -he.y, k & 4 ? he.z : -he.z);
        double z = b->x.z + cfu_quat_rotate(b->q, X).z;
        *low = fmin(*low, z), *high = fmax(*high, z);
    }
}

/* lowest and highest node heights of soft body @p s */
static void node_heights(const cfSoftBody *s, double *low, double *high)
{
    *low = INFINITY, *high = -INFINITY;
    for (int k = 0; k < s->n_nodes; ++k) *low = fmin(*low, s->x[k].z), *high = fmax(*high, s->x[k].z);
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    if (cfv_run_add_scene(run, "ch09_ipc_rigid_mixed.json", "ipc: rigid (affine) and soft boxes (red: pairs within dhat)",
                          cfu_zero3(), err) < 0)
        return CF_BAD_INPUT;
    d->min_dist = INFINITY;
    cfv_run_subject(run, 0, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -75, 20, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    d->pairs = cfv_run_mark_ipc_pairs(run, 0);
    d->min_dist = fmin(d->min_dist, w->stats.ipc.min_distance);
    cfv_run_info(run, 0, "barrier energy %.3e J (in the energy plot), pairs within dhat: %d, Newton iterations %d",
                 w->stats.ipc.barrier_energy, d->pairs, w->stats.solver_iterations);
    cfv_run_info(run, 1, "smallest distance now %.3e m, over the run %.3e m (dhat %.0e m); crossings found: %ld",
                 w->stats.ipc.min_distance, d->min_dist, w->stats.ipc.dhat, run->slot[0].crossings);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    const cfWorld *w = &run->slot[0].w;
    const cfRigidBody *lid = &w->bodies[1], *crate = &w->bodies[2], *brick = &w->bodies[3];
    double kappa = w->stats.ipc.kappa, dhat = w->stats.ipc.dhat, g = 9.81;
    double lid_low, lid_high, crate_low, crate_high, brick_low, brick_high, jelly_low, jelly_high, cube_low, cube_high;
    corner_heights(lid, &lid_low, &lid_high);
    corner_heights(crate, &crate_low, &crate_high);
    corner_heights(brick, &brick_low, &brick_high);
    node_heights(&w->soft[0], &jelly_low, &jelly_high);
    node_heights(&w->soft[1], &cube_low, &cube_high);
    double lid_gap = lid_low - jelly_high, cube_gap = cube_low - crate_high;
    double crate_want = cf_ipc_resting_distance((crate->mass + 0.5) * g / 4.0, kappa, dhat);
    double brick_want = cf_ipc_resting_distance(brick->mass * g / 4.0, kappa, dhat);
    double speed = cfv_world_max_speed(w);
    bool ok = !run->slot[0].halted && run->slot[0].crossings == 0 && d->min_dist > 0.0 && lid_gap > 0.0 &&
              lid_gap < dhat && cube_gap > 0.0 && cube_gap < dhat && fabs(crate_low / crate_want - 1.0) < 0.01 &&
              fabs(brick_low / brick_want - 1.0) < 0.01 && brick_high - brick_low < 0.061 && speed < 0.01;
    snprintf(msg, cap,
             "%ld steps certified, %ld crossings (want 0)%s; lid %.3e m above the soft box, cube %.3e m above the crate "
             "(want in (0, dhat = %.0e)); crate corners at %.4e m (want %.4e: kappa (-b'(d)) = (2 + 0.5) g / 4, within 1 %%), "
             "brick corners at %.4e m (want %.4e: m g / 4), brick flat (height %.4f, want 0.06); largest speed %.2e m/s "
             "(want < 0.01)",
             w->step, run->slot[0].crossings, run->slot[0].halted ? " (halted)" : "", lid_gap, cube_gap, dhat, crate_low,
             crate_want, brick_low, brick_want, brick_high - brick_low, speed);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_world_rigid_mixed = {
    .id = "ch09/world_rigid_mixed",
    .chapter = 9,
    .title = "The world's ipc pipeline with rigid boxes (stiff affine bodies) and soft boxes: stacks and a tumbling brick",
    .point_at = "the red pairs within dhat under every resting corner, the lid on the soft box (left), the soft cube on "
                "the crate (right) and the brick that flipped on landing (front)",
    .keys = "pause,restart",
    .plots = "energy",
    .prediction = "no surface crosses another in any step (signed volumes, corner paths included); after 1.5 s all rest "
                  "(speeds below 1 cm/s), each stack within dhat, and each resting corner where kappa (-b'(d)) carries "
                  "its share of the weight (within 1 %)",
    .steps = 150,
    CFV_DEMO_HOOKS,
};
