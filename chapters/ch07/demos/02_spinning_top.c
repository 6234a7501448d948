/* SPDX-License-Identifier: MIT */
/* Demo ch07/spinning_top: a spinning ball stops by torsional friction (Coulomb-Contensou), not by the disk. */
#include "demos.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cf/cf_ch07.h"
#include "cf/cf_detect.h"

/*
 * What the viewer must show: two balls (m = 2 kg, R = 0.5 m) spinning at 10 rad/s about the
 * vertical on the ground, stepped by chapter 7's Moreau midpoint stepper with PROX-GS. Left: four
 * rows per contact, the friction set the Coulomb-Contensou ellipsoid with mu_tau = 0.05 m; right:
 * three rows, the isotropic disk. The contact point of a pure spin does not slide, so the disk
 * gives no torque and the right ball spins on; the left one loses I w0 / (mu_tau m g) of spin per
 * second, linearly, and stops at t = 0.4 R^2 w0 / (mu_tau g) = 2.04 s. The HUD shows both spins
 * and the predicted stop.
 */

typedef struct Data {
    double stop_time; /* when the torsional ball's spin reached 0 (-1: not yet) */
    double spin[2];
} Data;

#define W0 10.0
#define MU_TAU 0.05

static cfStatus add_ball(cfvRun *run, const char *label, double x, cfError *err)
{
    cfWorldDef def = cf_world_def_default();
    def.dt = 0.01;
    def.detector = CF_DETECT_PRIMITIVES;
    def.contact_margin = 0.01;
    int s = cfv_run_add_world(run, &def, label, cfu_vec3(x, 0, 0), err);
    if (s < 0) return CF_BAD_INPUT;
    cfWorld *w = cfv_run_world(run, s);
    cfRigidBody g, b;
    cfStatus st = cf_rigid_init_fixed(&g, cf_shape_plane(cfu_vec3(0, 0, 1), 0), err);
    if (st == CF_OK) st = cf_rigid_init(&b, cf_shape_sphere(0.5), 2.0, err);
    if (st != CF_OK) return st;
    g.mu = b.mu = 0.5;
    b.x = cfu_vec3(0, 0, 0.5);
    b.w = cfu_vec3(0, 0, W0);
    if (cf_world_add_body(w, &g) < 0 || cf_world_add_body(w, &b) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    return CF_OK;
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    d->stop_time = -1;
    cfStatus st = add_ball(run, "Coulomb-Contensou, mu_tau 0.05 m", -1.0, err);
    if (st == CF_OK) st = add_ball(run, "isotropic disk (no torsion)", 1.0, err);
    for (int k = 0; k < run->n_slots; ++k) cfv_run_subject(run, k, 1);
    cfv_run_set_camera(run, cfu_zero3(), -90, 25, 0);
    return st;
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    for (int i = 0; i < 2; ++i) {
        cfWorld *w = cfv_run_world(run, i);
        cfMoreauOptions o = cf_moreau_options_default();
        o.h = w->def.dt;
        o.dim = i == 0 ? 4 : 3;
        o.mu_tau = MU_TAU;
        o.prox.tol_abs = 1e-12;
        o.prox.tol_rel = 0;
        cfStatus st = cf_moreau_step(w->bodies, w->n_bodies, cf_detect_world_again, w, &o, &w->contacts, NULL, NULL);
        if (st == CF_NOT_IMPLEMENTED) return;
        if (st != CF_OK) {
            cfv_run_halt(run, i, "Moreau step failed: %s", cf_status_name(st));
            continue;
        }
        w->time += o.h;
        w->step += 1;
        d->spin[i] = w->bodies[1].w.z;
    }
    double t = cfv_run_world(run, 0)->time;
    if (d->stop_time < 0 && fabs(d->spin[0]) < 1e-9) d->stop_time = t;
    cfv_run_info(run, 0, "spin: Contensou %.3f rad/s, disk %.3f rad/s at t = %.2f s", d->spin[0], d->spin[1], t);
    cfv_run_info(run, 1, "predicted stop 0.4 R^2 w0 / (mu_tau g) = %.3f s; stopped at %.3f s",
                 0.4 * 0.25 * W0 / (MU_TAU * 9.81), d->stop_time);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    double want = 0.4 * 0.25 * W0 / (MU_TAU * 9.81);
    snprintf(msg, cap, "torsional ball stopped at %.3f s (want %.3f +- 0.02), disk ball spins at %.6f (want %.1f)",
             d->stop_time, want, d->spin[1], W0);
    (void)run;
    return fabs(d->stop_time - want) <= 0.02 && fabs(d->spin[1] - W0) < 1e-6 ? 0 : 1;
}

const cfvDemo cfv_demo_ch07_spinning_top = {
    .id = "ch07/spinning_top",
    .chapter = 7,
    .title = "A spinning ball: torsional friction (Coulomb-Contensou ellipsoid) stops it, the Coulomb disk does not",
    .point_at = "the two spins in the HUD: the left one falls linearly and stops at the predicted time, the right "
                "one never changes (its contact point does not slide, so the disk has nothing to oppose)",
    .keys = "pause,points,omega",
    .prediction = "the ball with mu_tau = 0.05 m stops within 0.02 s of 0.4 R^2 w0/(mu_tau g) = 2.04 s; the other keeps 10 rad/s",
    .overlays = "points",
    .steps = 250,
    CFV_DEMO_STEP_HOOKS,
};
