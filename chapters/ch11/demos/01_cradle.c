/* SPDX-License-Identifier: MIT */
/* Demo ch11/cradle: a Newton's cradle with restitution 1 stepped by the world: an exact simultaneous
   solver beside PGS's sweeps. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch11.h"

/*
 * What the viewer must show: scenes/ch11_newtons_cradle.json (three touching balls, restitution 1,
 * no gravity, the first at 1 m/s) three times, one row of balls per solver. The world's impact law
 * gives the first contact the target normal velocity 1 m/s and the second (which met 0) only
 * non-penetration. Lemke, exact and simultaneous, gives ch11.3's (-1/3, 2/3, 2/3); PGS with one
 * sweep is a sequential pass in contact order, (0, 1/2, 1/2); PGS with 20 sweeps is back at the
 * simultaneous answer (error (1/3) 4^-19). The HUD adds ch11.3's sequential impacts, the desk
 * toy's (0, 0, 1), which no solver of one velocity-level problem gives.
 */

#define SLOTS 3
static const char *const SOLVER[SLOTS] = {"lemke", "pgs", "pgs"};
static const int SWEEPS[SLOTS] = {1, 1, 20};

typedef struct Data {
    double v1[SLOTS][3]; /* each row's velocities after the first step (the impact) */
    double v[SLOTS][3]; /* each row's velocities after the last step */
    double p[SLOTS];    /* their momentum */
    double ke[SLOTS];   /* their kinetic energy */
    long n;
    bool predicted;     /* the HUD's ch11.3 line is written */
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    for (int s = 0; s < SLOTS; ++s) {
        char label[64];
        snprintf(label, sizeof label, s == 0 ? "%s (exact)" : "%s, %d sweep%s", SOLVER[s], SWEEPS[s], SWEEPS[s] > 1 ? "s" : "");
        if (cfv_run_add_scene_solved(run, "ch11_newtons_cradle.json", label, cfu_vec3(0, -0.3 * s, 0), SOLVER[s], SWEEPS[s],
                                     0.0, err) < 0)
            return CF_BAD_INPUT;
    }
    for (int s = 0; s < SLOTS; ++s) cfv_run_subject(run, s, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -90, 60, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    for (int s = 0; s < SLOTS; ++s) {
        const cfWorld *w = cfv_run_world(run, s);
        d->p[s] = d->ke[s] = 0.0;
        for (int i = 0; i < 3; ++i) {
            d->v[s][i] = w->bodies[i].v.x;
            if (d->n == 0) d->v1[s][i] = d->v[s][i];
            d->p[s] += w->bodies[i].mass * d->v[s][i];
            d->ke[s] += 0.5 * w->bodies[i].mass * d->v[s][i] * d->v[s][i];
        }
        cfv_run_info(run, s, "%s: v = (%.4f, %.4f, %.4f) m/s, momentum %.4f, KE %.4f J", run->slot[s].label,
                     d->v[s][0], d->v[s][1], d->v[s][2], d->p[s], d->ke[s]);
    }
    d->n++;
    if (d->predicted) return;
    const double m[3] = {1, 1, 1}, v0[3] = {1, 0, 0};
    double seq[3], sim[3];
    if (cf_impacts_sequential(3, m, v0, 1.0, 1e-12, 100, seq, NULL) != CF_OK ||
        cf_impacts_simultaneous(3, m, v0, 1.0, NULL, sim) != CF_OK)
        return;
    cfv_run_info(run, SLOTS, "ch11.3, e = 1: simultaneous (%.3f, %.3f, %.3f); sequential (%.3f, %.3f, %.3f), the desk toy",
                 sim[0], sim[1], sim[2], seq[0], seq[1], seq[2]);
    d->predicted = true;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    static const double want[SLOTS][3] = {{-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0}, {0.0, 0.5, 0.5}, {-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0}};
    double err = 0.0, later = 0.0; /* off the prediction after the impact; how much later steps changed */
    for (int s = 0; s < SLOTS; ++s)
        for (int i = 0; i < 3; ++i) {
            err = fmax(err, fabs(d->v1[s][i] - want[s][i]));
            later = fmax(later, fabs(d->v[s][i] - d->v1[s][i]));
        }
    snprintf(msg, cap,
             "after the first step lemke (%.6f, %.6f, %.6f) (want -1/3, 2/3, 2/3; KE %.6f, want 0.5), pgs 1 sweep (%.6f, "
             "%.6f, %.6f) (want 0, 1/2, 1/2), pgs 20 sweeps (%.6f, %.6f, %.6f); largest error %.1e (want < 1e-6); the %ld "
             "steps after it changed them by %.1e (want < 1e-9: the balls fly apart), momentum 1 each",
             d->v1[0][0], d->v1[0][1], d->v1[0][2], d->ke[0], d->v1[1][0], d->v1[1][1], d->v1[1][2], d->v1[2][0],
             d->v1[2][1], d->v1[2][2], err, d->n - 1, later);
    bool momentum = true;
    for (int s = 0; s < SLOTS; ++s) momentum = momentum && fabs(d->p[s] - 1.0) < 1e-9;
    return d->n > 0 && err < 1e-6 && later < 1e-9 && momentum && fabs(d->ke[0] - 0.5) < 1e-9 ? 0 : 1;
}

const cfvDemo cfv_demo_ch11_cradle = {
    .id = "ch11/cradle",
    .chapter = 11,
    .title = "Newton's cradle, restitution 1: lemke's simultaneous impact beside PGS's sequential sweep",
    .point_at = "row 1 (lemke): ball 1 bounces back, 2 and 3 leave together; row 2 (pgs, one sweep): ball 1 stops, "
                "2 and 3 share its speed; row 3 (pgs, 20 sweeps): the simultaneous answer again; none is the desk toy",
    .keys = "pause,restart,velocity",
    .prediction = "the impact (the first step): lemke gives (-1/3, 2/3, 2/3) m/s (momentum and energy kept), PGS "
                  "with one sweep (0, 1/2, 1/2), PGS with 20 sweeps (-1/3, 2/3, 2/3) within 1e-6; after it the balls "
                  "fly apart with those velocities for the rest of the second",
    .overlays = "velocity",
    .steps = 100,
    CFV_DEMO_HOOKS,
};
