/* SPDX-License-Identifier: MIT */
/* Demo ch09/world_tets: tetrahedral (stable Neo-Hookean) blocks and a rigid box under the world's ipc pipeline. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch09_ipc_tets.json. Two jelly blocks of tetrahedra (the stable
 * Neo-Hookean elements of chapter 9's cf_tet_neohookean(), E = 5e4 Pa), the lower one on the
 * ground, the upper one dropped 3 cm onto it, and a 1 kg rigid box (a stiff affine body) dropped
 * tilted onto the upper block. Red: the pairs closer than dhat = 2 mm, between the boundary faces
 * of the blocks, the box and the ground. The blocks bounce a little, jiggle and settle; every step
 * is certified by signed volumes.
 *
 * The prediction is the static compression of the lower block: uniaxial stress from its own
 * weight, rho g (L - z), and from the 4.2 kg on top, m g / A, shortens it by
 * rho g L^2 / (2 E) + (m g / A) L / E = 3.53 mm + 2.75 mm = 6.28 mm.
 */

typedef struct Data {
    double min_dist; /* over the run */
    int pairs;
} Data;

/* mean height of the nodes of @p b whose rest height is @p z0 */
static double mean_z_at(const cfSoftBody *b, double z0)
{
    double sum = 0.0;
    int n = 0;
    for (int k = 0; k < b->n_nodes; ++k)
        if (fabs(b->x_rest[k].z - z0) < 1e-9) sum += b->x[k].z, ++n;
    return n ? sum / n : NAN;
}

/* how much the lower block has shortened: its rest height minus its top's mean height above its bottom's */
static double shortening(const cfWorld *w)
{
    const cfSoftBody *b = &w->soft[0];
    double top = b->x_rest[b->n_nodes - 1].z, bottom = b->x_rest[0].z;
    return (top - bottom) - (mean_z_at(b, top) - mean_z_at(b, bottom));
}

/* the prediction: rho g L^2 / (2 E) + (m g / A) L / E with the scene's values */
static double compression(const cfWorld *w)
{
    double rho = 400.0, g = 9.81, L = 0.3, E = w->soft[0].young, m = rho * 0.2 * 0.2 * 0.2 + w->bodies[1].mass;
    return rho * g * L * L / (2.0 * E) + m * g / (L * L) * L / E;
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    if (cfv_run_add_scene(run, "ch09_ipc_tets.json", "ipc: Neo-Hookean tets and a rigid box (red: pairs within dhat)",
                          cfu_zero3(), err) < 0)
        return CF_BAD_INPUT;
    d->min_dist = INFINITY;
    cfv_run_subject(run, 0, CFV_ALL);
    cfv_run_set_camera(run, cfu_vec3(0, 0, 0.25), -60, 15, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    d->pairs = cfv_run_mark_ipc_pairs(run, 0);
    d->min_dist = fmin(d->min_dist, w->stats.ipc.min_distance);
    cfv_run_info(run, 0, "lower block shortened by %.2f mm (static compression %.2f mm); pairs within dhat: %d",
                 1e3 * shortening(w), 1e3 * compression(w), d->pairs);
    cfv_run_info(run, 1, "smallest distance now %.3e m, over the run %.3e m (dhat %.0e m); Newton iterations %d; crossings %ld",
                 w->stats.ipc.min_distance, d->min_dist, w->stats.ipc.dhat, w->stats.solver_iterations, run->slot[0].crossings);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    const cfWorld *w = &run->slot[0].w;
    double got = shortening(w), want = compression(w), speed = cfv_world_max_speed(w);
    bool ok = !run->slot[0].halted && run->slot[0].crossings == 0 && d->min_dist > 0.0 && fabs(got / want - 1.0) < 0.1 &&
              speed < 0.02;
    snprintf(msg, cap,
             "%ld steps certified, %ld crossings (want 0)%s; smallest distance %.3e m (want > 0); the lower block shortened "
             "by %.3f mm (want %.3f mm = rho g L^2/(2E) + (m g/A) L/E, within 10 %%); largest speed %.2e m/s (want < 0.02)",
             w->step, run->slot[0].crossings, run->slot[0].halted ? " (halted)" : "", d->min_dist, 1e3 * got, 1e3 * want,
             speed);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_world_tets = {
    .id = "ch09/world_tets",
    .chapter = 9,
    .title = "The world's ipc pipeline with tetrahedral (stable Neo-Hookean) blocks and a rigid box: a stack that settles",
    .point_at = "the red pairs within dhat between the blocks, under the box and on the ground, and the lower block's "
                "shortening in the HUD against its static compression",
    .keys = "pause,restart",
    .plots = "energy",
    .prediction = "no surface crosses another in any step (signed volumes); after 1.5 s all rest (speeds below 2 cm/s) and "
                  "the lower block has shortened by rho g L^2/(2E) + (m g/A) L/E = 6.28 mm within 10 %",
    .steps = 150,
    CFV_DEMO_HOOKS,
};
