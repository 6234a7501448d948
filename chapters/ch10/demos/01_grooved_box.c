/* SPDX-License-Identifier: MIT */
/* Demo ch10/grooved_box: a box on a plane grooved along x, pulled at 45 degrees, slides at 7.6 degrees. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch10.h"

/*
 * What the viewer must show: scenes/ch10_grooved_box.json, a flat 1 kg box on a plane with the
 * orthotropic law mu_t = 0.2 along the grooves (x) and mu_b = 0.8 across, pulled from rest by the
 * constant force (4, 4, 0) N. Drawn at the box: the pull (red, at 45 degrees), the velocity (green)
 * and the friction ellipse of the weight, 9.81 (0.2, 0.8) N (yellow). The velocity is NOT along the
 * pull: it settles where the pull plus the force of maximal dissipation on the ellipse is parallel
 * to it, 7.6 degrees from the grooves (the prediction the demo computes with ch10.2). Key 2 takes
 * the box solver (pgs-boxed: the pyramid of the two coefficients), which sticks across the grooves
 * and slides along x; key 1 goes back to the ellipse (pgs-blocked-aniso). The grooves are drawn as
 * lines along x on the plane, the box's path as a trail.
 */

typedef struct Data {
    double phi;   /* the predicted direction (rad) */
    double angle; /* the velocity's direction at the last step (rad) */
    long n;
} Data;

static const double MU[2] = {0.2, 0.8}, PULL[2] = {4, 4}, G = 9.81;

/* F + f(v) parallel to v, f of maximal dissipation on the ellipse of the weight (bisection) */
static double predicted_direction(void)
{
    double lo = 0.0, hi = CF_PI / 4;
    for (int it = 0; it < 100; ++it) {
        double p = 0.5 * (lo + hi), v[2] = {cos(p), sin(p)}, f[2];
        cf_ellipse_max_dissipation(MU, G, v, f);
        if ((PULL[0] + f[0]) * v[1] - (PULL[1] + f[1]) * v[0] < 0) lo = p;
        else hi = p;
    }
    return 0.5 * (lo + hi);
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    if (cfv_run_add_scene(run, "ch10_grooved_box.json", "grooved plane, pull at 45 degrees", cfu_zero3(), err) < 0)
        return CF_BAD_INPUT;
    d->phi = predicted_direction();
    cfv_run_subject(run, 0, 1);                                                     /* the box */
    cfv_run_subject_region(run, 0, cfu_vec3(-0.6, -0.7, 0), cfu_vec3(2.4, 1.0, 0.1)); /* where it slides in 1 s */
    cfv_run_trail(run, 0, 1, 0x40ff40, false);
    cfv_run_set_camera(run, cfu_zero3(), -90, 60, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    const cfRigidBody *b = &w->bodies[1];
    cfVec3 c = cfu_add(b->x, cfu_vec3(0, 0, 0.06));
    double speed = hypot(b->v.x, b->v.y);
    d->angle = speed > 0 ? atan2(b->v.y, b->v.x) : 0.0;
    d->n++;
    cfv_run_mark(run, 0, CFV_MARK_ARROW, c, cfu_add(c, cfu_vec3(0.15 * PULL[0], 0.15 * PULL[1], 0)), 0xff4040, "pull");
    if (speed > 0)
        cfv_run_mark(run, 0, CFV_MARK_ARROW, c, cfu_add(c, cfu_vec3(b->v.x / speed, b->v.y / speed, 0)), 0x40ff40, "velocity");
    for (int i = 0; i < 48; ++i) { /* the ellipse of the weight, 0.1 m per N */
        double t0 = 2 * CF_PI * i / 48, t1 = 2 * CF_PI * (i + 1) / 48, s = 0.1 * G;
        cfVec3 p0 = cfu_add(c, cfu_vec3(s * MU[0] * cos(t0), s * MU[1] * sin(t0), 0));
        cfVec3 p1 = cfu_add(c, cfu_vec3(s * MU[0] * cos(t1), s * MU[1] * sin(t1), 0));
        cfv_run_mark(run, 0, CFV_MARK_LINE, p0, p1, 0xffff40, i == 0 ? "friction ellipse" : NULL);
    }
    for (int i = 0; i <= 20; ++i) { /* the grooves: along x, 10 cm apart */
        double y = -0.8 + 0.1 * i;
        cfv_run_mark(run, 0, CFV_MARK_LINE, cfu_vec3(2.8, y, 0.002), cfu_vec3(-1.0, y, 0.002), 0x8a93a6,
                     i == 20 ? "grooves: mu 0.2 along, 0.8 across" : NULL);
    }
    cfv_run_info(run, 0, "solver %s (1 ellipse, 2 pyramid); pull at 45 degrees", w->def.solver->name);
    cfv_run_info(run, 1, "velocity at %.2f degrees from the grooves; the ellipse predicts %.2f", d->angle * 180 / CF_PI,
                 d->phi * 180 / CF_PI);
}

static bool key(cfvRun *run, int k)
{
    cfWorldDef *def = &cfv_run_world(run, 0)->def;
    if (k == '1') def->solver = cf_solver_find("pgs-blocked-aniso");
    else if (k == '2') def->solver = cf_solver_find("pgs-boxed");
    else return false;
    return true;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    double err = fabs(d->angle - d->phi) * 180 / CF_PI;
    snprintf(msg, cap, "after %ld steps the velocity is at %.3f degrees, the prediction %.3f (want within 0.1), the pull at 45",
             d->n, d->angle * 180 / CF_PI, d->phi * 180 / CF_PI);
    return d->n > 0 && err < 0.1 ? 0 : 1;
}

const cfvDemo cfv_demo_ch10_grooved_box = {
    .id = "ch10/grooved_box",
    .chapter = 10,
    .title = "A box on a grooved plane pulled at 45 degrees slides at 7.6 degrees (the friction ellipse)",
    .point_at = "the red pull at 45 degrees and the green velocity close to the grooves; the yellow ellipse is long "
                "across the grooves: the force of maximal dissipation is not anti-parallel to the velocity. Press 2 "
                "for the pyramid: the box slides exactly along the grooves",
    .keys = "restart,pause",
    .demo_keys = (const cfvDemoKey[]){{'1', "the ellipse (pgs-blocked-aniso)"}, {'2', "the pyramid (pgs-boxed)"}, {0, NULL}},
    .prediction = "the velocity settles 7.6 degrees from the grooves, not along the 45-degree pull",
    .overlays = NULL,
    .steps = 100,
    CFV_DEMO_HOOKS,
    .key = key,
};
