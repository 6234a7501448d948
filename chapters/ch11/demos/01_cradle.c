/* SPDX-License-Identifier: MIT */
/* Demo ch11/cradle: a Newton's cradle stepped by the world: the simultaneous inelastic impact. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch11.h"

/*
 * What the viewer must show: scenes/ch11_newtons_cradle.json, three touching balls without gravity,
 * the first at 1 m/s. The world's solvers find every impulse of a step at once with restitution 0,
 * so after the first step the three move together at 1/3 m/s. The HUD puts beside it what ch11.3
 * computes for the same balls: sequential impacts with e = 1 (the desk toy: 0, 0, 1) and
 * simultaneous ones with e = 1 (-1/3, 2/3, 2/3) and e = 0 (the world's answer).
 */

typedef struct Data {
    double v[3];     /* the balls' velocities after the last step */
    double p;        /* their momentum */
    long n;
    bool predicted;  /* the HUD's ch11.3 lines are written */
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    if (cfv_run_add_scene(run, "ch11_newtons_cradle.json", "Newton's cradle, lemke", cfu_zero3(), err) < 0)
        return CF_BAD_INPUT;
    cfv_run_set_camera(run, cfu_vec3(0.6, 0, 0.5), -90, 10, 2.0);
    return CF_OK;
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    cfv_run_step_worlds(run);
    const cfWorld *w = cfv_run_world(run, 0);
    d->p = 0.0;
    for (int i = 0; i < 3; ++i) {
        d->v[i] = w->bodies[i].v.x;
        d->p += w->bodies[i].mass * d->v[i];
    }
    d->n++;
    cfv_run_info(run, 0, "the world (%s, restitution 0): v = (%.4f, %.4f, %.4f) m/s, momentum %.4f", w->def.solver->name,
                 d->v[0], d->v[1], d->v[2], d->p);
    if (d->predicted) return;
    const double m[3] = {1, 1, 1}, v0[3] = {1, 0, 0};
    double seq[3], sim1[3], sim0[3];
    if (cf_impacts_sequential(3, m, v0, 1.0, 1e-12, 100, seq, NULL) != CF_OK ||
        cf_impacts_simultaneous(3, m, v0, 1.0, NULL, sim1) != CF_OK || cf_impacts_simultaneous(3, m, v0, 0.0, NULL, sim0) != CF_OK)
        return;
    cfv_run_info(run, 1, "ch11.3 sequential, e = 1: (%.3f, %.3f, %.3f): the desk toy", seq[0], seq[1], seq[2]);
    cfv_run_info(run, 2, "ch11.3 simultaneous, e = 1: (%.3f, %.3f, %.3f); e = 0: (%.3f, %.3f, %.3f)", sim1[0], sim1[1],
                 sim1[2], sim0[0], sim0[1], sim0[2]);
    d->predicted = true;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    double err = 0.0;
    for (int i = 0; i < 3; ++i) err = fmax(err, fabs(d->v[i] - 1.0 / 3.0));
    snprintf(msg, cap, "after %ld steps v = (%.6f, %.6f, %.6f) m/s (want 1/3 each within 1e-6), momentum %.6f (want 1)",
             d->n, d->v[0], d->v[1], d->v[2], d->p);
    return d->n > 0 && err < 1e-6 && fabs(d->p - 1.0) < 1e-9 ? 0 : 1;
}

const cfvDemo cfv_demo_ch11_cradle = {
    .id = "ch11/cradle",
    .chapter = 11,
    .title = "Newton's cradle: the world's simultaneous impact moves all three balls at 1/3, not the last at 1",
    .point_at = "the three balls leaving together, and the HUD's ch11.3 lines: sequential impacts give the desk toy, "
                "simultaneous ones never do",
    .keys = "space pause, r restart",
    .prediction = "after the first step the three balls move together at 1/3 m/s (momentum 1 kg m/s kept)",
    .overlays = "velocity",
    .steps = 100,
    .data_size = sizeof(Data),
    .setup = setup,
    .step = step,
    .check = check,
};
