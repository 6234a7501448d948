/* SPDX-License-Identifier: MIT */
/* Demo ch05/mass_ratio: a 100 kg box on four 1 kg boxes, where 20 PGS sweeps are not enough. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: three copies of the mass-ratio stack (scenes/ch05_mass_ratio_stack):
 * left PGS with 20 sweeps, middle PGS with 200, right PGS with subspace minimization (ch05.8) with
 * 20. At this mass ratio PGS's error shrinks by a factor close to one per sweep (notes 3.2.7):
 * with 20 sweeps the light boxes cannot carry the heavy one: the left stack is crushed (13 cm in 5 s) and collapses later; 200
 * sweeps or a subspace solve hold it.
 */

typedef struct Data {
    double top_z[3]; /* lowest height of the heavy box so far */
} Data;

/* the stack of scenes/ch05_mass_ratio_stack.json under @p solver with @p iters iterations */
static cfStatus add_stack(cfvRun *run, const char *solver, int iters, const char *label, double x, cfError *err)
{
    cfWorldDef def = cf_world_def_default();
    return cfv_run_add_scene_solved(run, "ch05_mass_ratio_stack.json", label, cfu_vec3(x, 0, 0), solver, iters,
                                    def.solver_tolerance, err) < 0
               ? CF_BAD_INPUT
               : CF_OK;
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    cfStatus st = add_stack(run, "pgs", 20, "PGS, 20 sweeps", -3, err);
    if (st == CF_OK) st = add_stack(run, "pgs", 200, "PGS, 200 sweeps", 0, err);
    if (st == CF_OK) st = add_stack(run, "pgs-sm", 20, "PGS-SM, 20", 3, err);
    for (int i = 0; i < 3; ++i) d->top_z[i] = 4.5;
    for (int k = 0; k < run->n_slots; ++k) cfv_run_subject(run, k, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -90, 10, 0);
    return st;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    for (int i = 0; i < 3; ++i) d->top_z[i] = fmin(d->top_z[i], cfv_run_world(run, i)->bodies[5].x.z);
    cfv_run_info(run, 0, "heavy box lowest height: PGS 20 %.3f m, PGS 200 %.3f m, PGS-SM 20 %.3f m (start 4.5)",
                 d->top_z[0], d->top_z[1], d->top_z[2]);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    snprintf(msg, cap, "heavy box lowest: PGS 20 %.3f m (want < 4.4), PGS 200 %.3f m and PGS-SM %.3f m (want > 4.45)",
             d->top_z[0], d->top_z[1], d->top_z[2]);
    return d->top_z[0] < 4.4 && d->top_z[1] > 4.45 && d->top_z[2] > 4.45 ? 0 : 1;
}

const cfvDemo cfv_demo_ch05_mass_ratio = {
    .id = "ch05/mass_ratio",
    .chapter = 5,
    .title = "Mass ratio 100: 20 PGS sweeps let the stack be crushed, 200 sweeps or PGS-SM hold it",
    .point_at = "the left stack buckling under the heavy box while the other two stand; the HUD's lowest heights",
    .keys = "pause,points",
    .prediction = "in 5 s the heavy box sinks below 4.4 m on 20 PGS sweeps (the stack crushes, then collapses later); PGS 200 and PGS-SM 20 keep it above 4.45 m",
    .overlays = "points",
    .steps = 300,
    CFV_DEMO_HOOKS,
};
