/* SPDX-License-Identifier: MIT */
/* Demos ch05/wall_50 and ch05/wall_100: the benchmark walls of 50 and 100 layers on the soft step. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch05_pyramid_50.json (1275 unit cubes) and
 * scenes/ch05_pyramid_100.json (5050), the scene catalogue's tall walls, on the solver their scene
 * files name: the soft step (40 and 60 iterations: 20 and 30 substeps with soft contacts and a
 * relax sweep, chapter 5's "Beyond the exercises: the soft step"). They stand: the bottom rows sag
 * by the springs' compression, a few centimetres at most, and nothing slides. On PGS the walls rock
 * out of their plane and collapse within seconds, as they do in ODE and Bullet (`make bench-sim`).
 * The soft step is a row of the reference solutions only: a build without it (a handout) lists
 * these demos as not in the build (cfvDemo::available).
 *
 * The headless check runs a few steps only (a step of the 100-layer wall takes about a second);
 * `make bench-sim` runs both walls for the full 10 s (bench/results/sim.csv: 1.1 and 2.6 cm).
 */

#define MAX_BODIES 5051

typedef struct Data {
    cfVec3 x0[MAX_BODIES]; /* start positions */
    double drift;          /* largest displacement so far (m) */
    long n;                /* steps */
} Data;

static cfStatus setup_wall(cfvRun *run, const char *file, cfError *err)
{
    Data *d = run->data;
    int s = cfv_run_add_scene(run, file, "the soft step", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    const cfWorld *w = cfv_run_world(run, s);
    if (w->n_bodies > MAX_BODIES) return cf_error_set(err, CF_BAD_INPUT, "%s: more than %d bodies", file, MAX_BODIES);
    for (int i = 0; i < w->n_bodies; ++i) d->x0[i] = w->bodies[i].x;
    cfv_run_subject(run, s, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -90, 5, 0);
    return CF_OK;
}

/* the scenes' solver, soft-step, is linked (the reference solutions' solutions/ch05/fast/) */
static bool has_soft_step(void) { return cf_solver_find("soft-step") != NULL; }
#define SOFT_STEP_NEEDED "the soft step (solutions/ch05/fast/, with the reference solutions only: not in a handout)"

static cfStatus setup_50(cfvRun *run, cfError *err) { return setup_wall(run, "ch05_pyramid_50.json", err); }
static cfStatus setup_100(cfvRun *run, cfError *err) { return setup_wall(run, "ch05_pyramid_100.json", err); }

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    for (int i = 0; i < w->n_bodies; ++i)
        if (!w->bodies[i].fixed) d->drift = fmax(d->drift, cfu_norm(cfu_sub(w->bodies[i].x, d->x0[i])));
    d->n++;
    double ms = 0.0;
    for (int k = 0; k < CF_STAGE_COUNT; ++k) ms += 1e3 * w->stats.stage_seconds[k];
    cfv_run_info(run, 0, "%s, %d iterations: %d contacts, step %.0f ms", w->def.solver ? w->def.solver->name : "none",
                 w->def.solver_iterations, w->stats.n_contacts, ms);
    cfv_run_info(run, 1, "largest displacement %.2f cm (the catalogue's bound: 5 cm in 10 s)", 100.0 * d->drift);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    snprintf(msg, cap, "largest displacement after %ld steps: %.4f m (want < 0.05)", d->n, d->drift);
    return d->n > 0 && d->drift < 0.05 ? 0 : 1;
}

const cfvDemo cfv_demo_ch05_wall_50 = {
    .id = "ch05/wall_50",
    .chapter = 5,
    .title = "The 50-layer wall (1275 boxes) stands on the soft step",
    .point_at = "the bottom rows: they sag by a centimetre under the wall's weight (the contact springs) and "
                "stay there; nothing slides or rocks out of the plane",
    .keys = "pause,speed",
    .prediction = "1275 unit cubes on the soft step at 40 iterations: no box moves 5 cm (checked at 12 steps; "
                  "make bench-sim runs 10 s: 1.1 cm)",
    .steps = 12,
    .needs = SOFT_STEP_NEEDED,
    .available = has_soft_step,
    .data_size = sizeof(Data),
    .setup = setup_50,
    .record = record,
    .check = check,
};

const cfvDemo cfv_demo_ch05_wall_100 = {
    .id = "ch05/wall_100",
    .chapter = 5,
    .title = "The 100-layer wall (5050 boxes) stands on the soft step",
    .point_at = "the HUD's step time (a few hundred milliseconds: let it play for a lecture's minutes) "
                "and the largest displacement, which settles at a few centimetres",
    .keys = "pause,speed",
    .prediction = "5050 unit cubes on the soft step at 60 iterations: no box moves 5 cm (checked at 4 steps; "
                  "make bench-sim runs 10 s: 2.6 cm)",
    .steps = 4,
    .needs = SOFT_STEP_NEEDED,
    .available = has_soft_step,
    .data_size = sizeof(Data),
    .setup = setup_100,
    .record = record,
    .check = check,
};
