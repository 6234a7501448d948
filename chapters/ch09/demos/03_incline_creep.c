/* SPDX-License-Identifier: MIT */
/* Demo ch09/incline_creep: lagged IPC friction on a 30 degree incline creeps where Coulomb sticks. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch09.h"

/*
 * What the viewer must show: three particles of 1 kg (drawn as balls of 12 cm) on three 30 degree
 * inclines, stepped by IPC with lagged friction (ch09.2-ch09.6), h = 0.01, dhat = 1 mm,
 * kappa = 1e4 N/m. Left and middle: mu = 0.8 > tan 30: Coulomb's law sticks, but IPC's smoothed
 * friction has no static force and the particles creep at eps_v (1 - sqrt(1 - tan/mu)) =
 * 0.4724 eps_v: 4.7 mm/s with eps_v = 1 cm/s, 0.47 mm/s with eps_v = 1 mm/s (notes 5.3.4: the creep
 * shrinks with eps_v, never vanishes). Right: mu = 0.5 < tan 30: it slides with
 * g (sin - mu cos) = 0.657 m/s^2. The HUD shows each measured speed beside the prediction; each
 * particle is drawn in its world's colour, the sliding one with its path. The inclines are seen from
 * above their surface.
 */

#define H 0.01
#define THETA (30.0 * CF_PI / 180.0)
#define R_DRAW 0.12

typedef struct Data {
    double q[3], u[3];      /* per incline: the particle's slope coordinate, speed (the rest is rebuilt) */
    double z[3];            /* its height above the incline */
    double v_mid[3];        /* speed at the half of the run (the slide's acceleration) */
    double min_dist;
    int bad_steps;
    bool todo;
} Data;

static const double MU[3] = {0.8, 0.8, 0.5}, EPS_V[3] = {1e-2, 1e-3, 1e-3};

/* the incline's frame in the world: x down the slope, z its normal */
static cfVec3 to_world(double s, double n)
{
    return cfu_vec3(s * cos(THETA) + n * sin(THETA), 0, -s * sin(THETA) + n * cos(THETA));
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    const char *label[3] = {"mu 0.8, eps_v 1 cm/s: creeps", "mu 0.8, eps_v 1 mm/s: creeps less", "mu 0.5: slides"};
    for (int i = 0; i < 3; ++i) {
        cfWorldDef def = cf_world_def_default();
        def.dt = H;
        def.gravity = cfu_zero3();
        int s = cfv_run_add_world(run, &def, label[i], cfu_vec3(0, 1.2 * (i - 1), 0), err);
        if (s < 0) return CF_BAD_INPUT;
        cfRigidBody slope, ball;
        cfStatus st = cf_rigid_init_fixed(&slope, cf_shape_box(cfu_vec3(1.2, 0.4, 0.02)), err);
        if (st == CF_OK) st = cf_rigid_init(&ball, cf_shape_sphere(R_DRAW), 1.0, err);
        if (st != CF_OK) return st;
        slope.x = to_world(0.7, -0.02);
        slope.q = cfu_quat_from_axis_angle(cfu_vec3(0, 1, 0), THETA); /* turns x to the slope (cos, 0, -sin) */
        ball.x = to_world(0.0, R_DRAW);
        cfWorld *w = cfv_run_world(run, s);
        if (cf_world_add_body(w, &slope) < 0 || cf_world_add_body(w, &ball) < 0)
            return cf_error_set(err, CF_NO_MEMORY, "out of memory");
        d->z[i] = 5.3e-4;
    }
    d->min_dist = INFINITY;
    for (int i = 0; i < 3; ++i) {
        cfv_run_subject(run, i, 0); /* the incline */
        cfv_run_subject(run, i, 1); /* the particle */
    }
    cfv_run_trail(run, 2, 1, 0x2ecc71, false);
    cfv_run_set_camera(run, cfu_zero3(), -55, 30, 0);
    return CF_OK;
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    for (int i = 0; i < 3; ++i) {
        cfWorld *w = cfv_run_world(run, i);
        w->time += H;
        w->step++;
        cfIpcSystem s;
        cfIpcStats stats = {0};
        cfStatus st = cf_ipc_init(&s, H, 1e-3, 1e4);
        if (st != CF_OK) return;
        s.gravity = cfu_vec3(9.81 * sin(THETA), 0, -9.81 * cos(THETA));
        s.mu = MU[i];
        s.eps_v = EPS_V[i];
        int a = cf_ipc_add_node(&s, cfu_vec3(-50, -50, 0), 0, true), b = cf_ipc_add_node(&s, cfu_vec3(150, -50, 0), 0, true);
        int c = cf_ipc_add_node(&s, cfu_vec3(-50, 150, 0), 0, true);
        int p = cf_ipc_add_node(&s, cfu_vec3(d->q[i], 0, d->z[i]), 1.0, false);
        if (cf_ipc_add_triangle(&s, a, b, c) < 0 || p < 0) st = CF_NO_MEMORY;
        if (st == CF_OK) {
            s.u[3 * p] = d->u[i];
            st = cf_ipc_step(&s, NULL, &stats);
        }
        if (st == CF_NOT_IMPLEMENTED || run->todo[0]) d->todo = true;
        if (st != CF_OK) d->bad_steps++;
        if (p >= 0) d->q[i] = s.q[3 * p], d->z[i] = s.q[3 * p + 2], d->u[i] = s.u[3 * p];
        cf_ipc_free(&s);
        d->min_dist = fmin(d->min_dist, stats.min_dist);
        if (w->step == run->demo->steps / 2) d->v_mid[i] = d->u[i];
        w->bodies[1].x = to_world(d->q[i], d->z[i] + R_DRAW);
        w->bodies[1].v = to_world(d->u[i], 0); /* the energy the HUD shows is the particle's */
    }
    double creep = 1.0 - sqrt(1.0 - tan(THETA) / 0.8);
    cfv_run_info(run, 0, "creep speed, mu 0.8, eps_v 1 cm/s: %.4f mm/s (predicted %.4f)", 1e3 * d->u[0], 1e3 * EPS_V[0] * creep);
    cfv_run_info(run, 1, "creep speed, mu 0.8, eps_v 1 mm/s: %.4f mm/s (predicted %.4f)", 1e3 * d->u[1], 1e3 * EPS_V[1] * creep);
    cfv_run_info(run, 2, "slide, mu 0.5: v = %.4f m/s (a predicted %.4f m/s^2)", d->u[2], 9.81 * (sin(THETA) - 0.5 * cos(THETA)));
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    double creep = 1.0 - sqrt(1.0 - tan(THETA) / 0.8), a_want = 9.81 * (sin(THETA) - 0.5 * cos(THETA));
    double r0 = d->u[0] / (EPS_V[0] * creep), r1 = d->u[1] / (EPS_V[1] * creep);
    double a = (d->u[2] - d->v_mid[2]) / (H * (run->demo->steps - run->demo->steps / 2));
    bool ok = !d->todo && d->bad_steps == 0 && d->min_dist > 0.0 && fabs(r0 - 1) < 0.05 && fabs(r1 - 1) < 0.05 &&
              fabs(a / a_want - 1) < 0.01;
    snprintf(msg, cap,
             "creep speed / prediction: %.4f (eps_v 1 cm/s), %.4f (1 mm/s) (want 1 within 5 %%); slide %.4f m/s^2 "
             "(want %.4f within 1 %%); smallest distance %.3e m (want > 0), %d failed steps%s",
             r0, r1, a, a_want, d->min_dist, d->bad_steps, d->todo ? " (a stub was reached)" : "");
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_incline_creep = {
    .id = "ch09/incline_creep",
    .chapter = 9,
    .title = "Lagged IPC friction on a 30 degree incline: mu 0.8 creeps at 0.47 eps_v instead of sticking; mu 0.5 slides",
    .point_at = "the HUD's creep speeds: Coulomb's law holds both left particles still (tan 30 < 0.8), IPC's smoothed "
                "friction lets them creep, ten times slower with ten times smaller eps_v, never zero",
    .keys = "pause,restart",
    .prediction = "the two mu = 0.8 particles creep at eps_v (1 - sqrt(1 - tan 30 / 0.8)) within 5 %, the mu = 0.5 one "
                  "slides at g (sin 30 - 0.5 cos 30) within 1 %, no distance ever reaches 0",
    .steps = 200,
    CFV_DEMO_STEP_HOOKS,
};
