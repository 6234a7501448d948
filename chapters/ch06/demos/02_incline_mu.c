/* SPDX-License-Identifier: MIT */
/* Demo ch06/incline_mu: a block on a 30 degree incline slides, sticks and slides again as mu changes. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: a block on a 30 degree incline, solved by Alart-Curnier Newton
 * (ch06.6). The friction coefficient follows a schedule (or the keys ',' and '.'): mu = 0.2 for
 * 0.6 s (tan 30 = 0.577 > mu: it slides, accelerating at g (sin - mu cos) = 3.21 m/s^2), then
 * mu = 0.8 until 2.6 s (it decelerates at g (0.8 cos - sin) = 1.89 m/s^2, stops after 1 s and
 * sticks), then mu = 0.2 again (it slides off). The HUD shows mu, the speed and the measured acceleration against the prediction. Newton
 * finds stick or slip exactly in each step: no creeping while stuck.
 */

#define THETA (30.0 * CF_PI / 180.0)
#define G 9.81

typedef struct Data {
    double mu;
    double v_prev;        /* speed down the slope at the previous step */
    double a_err[2];      /* largest relative error of the acceleration in the two sliding phases */
    double stuck_speed;   /* largest speed over the last second of the sticking phase */
    bool manual;          /* a key changed mu: the schedule stops */
} Data;

/* slide for 0.6 s (to 1.9 m/s), then mu = 0.8 stops it within 1 s and holds it, then slide */
static double scheduled_mu(double t) { return t < 0.6 ? 0.2 : t < 2.6 ? 0.8 : 0.2; }

static void set_mu(cfvRun *run, double mu)
{
    Data *d = run->data;
    cfWorld *w = cfv_run_world(run, 0);
    d->mu = mu;
    w->bodies[0].mu = w->bodies[1].mu = mu; /* the pair's mu is sqrt(mu_a mu_b) = mu */
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    cfWorldDef def = cf_world_def_default();
    def.detector = CF_DETECT_PRIMITIVES;
    def.solver = cf_solver_find("newton-ac");
    def.solver_iterations = 20;
    def.solver_tolerance = 1e-12;
    def.dt = 1.0 / 120.0;
    def.contact_margin = 0.02;
    int s = cfv_run_add_world(run, &def, "Alart-Curnier Newton", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    cfWorld *w = cfv_run_world(run, s);
    cfVec3 n = cfu_vec3(-sin(THETA), 0, cos(THETA));
    cfRigidBody ground, box;
    cfStatus st = cf_rigid_init_fixed(&ground, cf_shape_plane(n, 0.0), err);
    if (st == CF_OK) st = cf_rigid_init(&box, cf_shape_box(cfu_vec3(0.25, 0.25, 0.25)), 1.0, err);
    if (st != CF_OK) return st;
    box.q = cfu_quat_from_axis_angle(cfu_vec3(0, 1, 0), -THETA);
    box.x = cfu_scale(0.25, n);
    if (cf_world_add_body(w, &ground) < 0 || cf_world_add_body(w, &box) < 0)
        return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    set_mu(run, scheduled_mu(0));
    /* the block and the whole path it slides in 3.5 s (2.9 m down the slope), seen from above the
       incline's surface (from its downhill side: a plane seen from below is not drawn) */
    cfVec3 down = cfu_vec3(-cos(THETA), 0, -sin(THETA));
    cfv_run_subject(run, s, 1);
    cfv_run_subject_region(run, s, cfu_add(cfu_scale(-0.3, down), cfu_vec3(0, -0.4, 0)),
                           cfu_add(cfu_add(cfu_scale(3.2, down), cfu_scale(0.6, n)), cfu_vec3(0, 0.4, 0)));
    cfv_run_trail(run, s, 1, 0xffd060, false);
    cfv_run_set_camera(run, cfu_zero3(), -125, 28, 0);
    return CF_OK;
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    cfWorld *w = cfv_run_world(run, 0);
    if (!d->manual) set_mu(run, scheduled_mu(w->time));
    double mu = d->mu;
    cfv_run_step_worlds(run);
    cfVec3 down = cfu_vec3(-cos(THETA), 0, -sin(THETA));
    double v = cfu_dot(w->bodies[1].v, down), a = (v - d->v_prev) / w->def.dt, t = w->time;
    double slide = G * (sin(THETA) - mu * cos(THETA));
    bool sliding = v > 1e-3 || slide > 0;
    double want = sliding ? slide : 0.0;
    d->v_prev = v;
    if (!d->manual) {
        /* away from the switches (contact settling at the start, the change of mu) */
        if (t > 0.2 && t < 0.6) d->a_err[0] = fmax(d->a_err[0], fabs(a - want) / fabs(want));
        if (t > 2.7 && t < 3.5) d->a_err[1] = fmax(d->a_err[1], fabs(a - want) / fabs(want));
        if (t > 1.8 && t < 2.6) d->stuck_speed = fmax(d->stuck_speed, fabs(v));
    }
    cfv_run_info(run, 0, "mu = %.2f (keys , and .: -/+ 0.1), tan(30) = 0.577: %s", mu, mu < tan(THETA) ? "slides" : "sticks");
    cfv_run_info(run, 1, "speed down the slope %.3f m/s, acceleration %.2f m/s^2 (predicted %.2f while sliding)", v, a,
                 slide);
}

static bool key(cfvRun *run, int k)
{
    Data *d = run->data;
    if (k != ',' && k != '.') return false;
    d->manual = true;
    set_mu(run, fmax(0.0, fmin(1.5, d->mu + (k == '.' ? 0.1 : -0.1))));
    return true;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    snprintf(msg, cap,
             "sliding at mu 0.2: acceleration error %.2f%% then %.2f%% (want < 2%%); stuck at mu 0.8: largest speed "
             "%.2e m/s (want < 1e-3)",
             100 * d->a_err[0], 100 * d->a_err[1], d->stuck_speed);
    return d->a_err[0] < 0.02 && d->a_err[1] < 0.02 && d->stuck_speed < 1e-3 ? 0 : 1;
}

const cfvDemo cfv_demo_ch06_incline_mu = {
    .id = "ch06/incline_mu",
    .chapter = 6,
    .title = "A block on a 30 degree incline slides (mu 0.2), sticks (mu 0.8) and slides again, by Newton",
    .point_at = "the HUD: measured acceleration equals g (sin - mu cos) while sliding, the speed is exactly zero "
                "while stuck; press , and . to change mu yourself",
    .keys = "pause,points,solver,restart",
    .demo_keys = (const cfvDemoKey[]){{',', "mu - 0.1"}, {'.', "mu + 0.1"}, {0, NULL}},
    .prediction = "acceleration within 2% of g (sin 30 - 0.2 cos 30) in both sliding phases; below 1e-3 m/s while "
                  "mu = 0.8 holds it",
    .overlays = "points",
    .steps = 420,
    CFV_DEMO_STEP_HOOKS,
    .key = key,
};
