/* SPDX-License-Identifier: MIT */
/* Demo ch04/baraff_incline: Baraff's pivoting switches a block between static and dynamic friction as the slope tilts. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch04.h"

/*
 * What the viewer must show: a block on an incline whose angle swings slowly between 12 and 32
 * degrees (mu = 0.5, so the friction angle is 26.6 degrees). Each step solves Baraff's 2D contact
 * problem (ch04.2) for a unit mass: A = I, b = (-g cos theta, -g sin theta), the tangent pointing
 * uphill; a resting block is a static contact, a sliding one a dynamic contact with its slip.
 * While tan(theta) <= mu the block rests and f_T = g sin(theta); past it the block slides with
 * f_T = mu f_N; when the slope comes back the sliding block slows down and sticks again.
 */

typedef struct Data {
    double s, v;          /* position along the slope (uphill +) and velocity (m, m/s) */
    bool sliding;
    int to_dynamic, to_static;
    double err_static;    /* largest |f - (g cos, g sin)| while static */
    double err_dynamic;   /* largest |f_T - mu f_N| while sliding */
    double wrong_state;   /* largest |tan(theta) - mu| at a step in the wrong state (static above mu) */
    bool failed;
} Data;

#define MU 0.5
#define G 9.81
#define SEGMENTS 8
#define SEG_HALF 0.18

static double slope(double t) { return (22.0 - 10.0 * cos(2 * CF_PI * t / 8.0)) * CF_PI / 180; }

static void place(cfvRun *run, double th)
{
    Data *d = run->data;
    cfWorld *w = cfv_run_world(run, 0);
    cfQuat q = cfu_quat_from_axis_angle(cfu_vec3(0, 1, 0), -th); /* uphill along +x */
    cfVec3 up = cfu_vec3(cos(th), 0, sin(th)), n = cfu_vec3(-sin(th), 0, cos(th));
    for (int i = 0; i < SEGMENTS; ++i) {
        cfRigidBody *g = &w->bodies[1 + i];
        g->q = q;
        g->x = cfu_mul_add(cfu_scale(-0.05, n), 2 * SEG_HALF * (i - 0.5 * (SEGMENTS - 1)), up);
    }
    cfRigidBody *b = &w->bodies[0];
    b->q = q;
    b->x = cfu_mul_add(cfu_scale(d->s, up), 0.12, n);
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    d->s = SEGMENTS * SEG_HALF - 0.2;
    cfWorldDef def = cf_world_def_default();
    int s = cfv_run_add_world(run, &def, "", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    cfRigidBody block, seg;
    cfStatus st = cf_rigid_init(&block, cf_shape_box(cfu_vec3(0.12, 0.12, 0.12)), 1.0, err);
    if (st == CF_OK) st = cf_rigid_init_fixed(&seg, cf_shape_box(cfu_vec3(SEG_HALF, 0.4, 0.05)), err);
    if (st != CF_OK) return st;
    snprintf(block.name, sizeof block.name, "block");
    snprintf(seg.name, sizeof seg.name, "incline");
    cfWorld *w = cfv_run_world(run, s);
    if (cf_world_add_body(w, &block) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    for (int i = 0; i < SEGMENTS; ++i)
        if (cf_world_add_body(w, &seg) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    place(run, slope(0));
    cfv_run_subject(run, s, 0); /* the block */
    cfv_run_subject_region(run, s, cfu_vec3(-SEGMENTS * SEG_HALF, -0.4, -0.1), cfu_vec3(SEGMENTS * SEG_HALF, 0.4, 0.1));
    cfv_run_set_camera(run, cfu_zero3(), -90, 10, 0);
    return CF_OK;
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    cfWorld *w = cfv_run_world(run, 0);
    double h = w->def.dt, th = slope(w->time);
    cfBaraffProblem p = {0};
    double f[2] = {0, 0}, a[2] = {0, 0};
    cfPivotOptions opt = cf_pivot_options_default();
    bool ok = cf_baraff_init(&p, 1, 2) == CF_OK;
    if (ok) {
        p.A.a[0] = p.A.a[3] = 1; /* unit mass: A = I */
        p.b[0] = -G * cos(th);
        p.b[1] = -G * sin(th);
        p.mu[0] = MU;
        p.slip[0] = d->sliding ? d->v : 0;
        ok = cf_baraff_solve(&p, &opt, f, a, NULL) == CF_OK;
    }
    cf_baraff_free(&p);
    if (!ok) {
        d->failed = true;
        cfv_run_halt(run, 0, "cf_baraff_solve failed");
        return;
    }
    if (d->sliding) {
        d->err_dynamic = fmax(d->err_dynamic, fabs(fabs(f[1]) - MU * f[0]));
        double v = d->v + h * a[1];
        if (v * d->v <= 0) { /* the slip would turn round: it stops here and sticks */
            d->v = 0;
            d->sliding = false;
            d->to_static++;
        } else {
            d->v = v;
        }
    } else {
        if (a[1] >= -1e-9) d->err_static = fmax(d->err_static, hypot(f[0] - G * cos(th), f[1] - G * sin(th)));
        if (a[1] < -1e-9) { /* static friction cannot hold: it starts sliding */
            d->sliding = true;
            d->to_dynamic++;
            d->v = h * a[1];
        } else if (tan(th) > MU + 1e-3) {
            d->wrong_state = fmax(d->wrong_state, tan(th) - MU);
        }
    }
    d->s += h * d->v;
    if (d->s < -(SEGMENTS * SEG_HALF - 0.2)) d->s = SEGMENTS * SEG_HALF - 0.2; /* back to the top */
    w->time += h;
    w->step++;
    place(run, th);
    cfVec3 n = cfu_vec3(-sin(th), 0, cos(th)), up = cfu_vec3(cos(th), 0, sin(th));
    cfVec3 base = cfu_mul_add(w->bodies[0].x, -0.12, n);
    cfv_run_mark(run, 0, CFV_MARK_ARROW, base, cfu_mul_add(base, 0.05 * f[1], up), d->sliding ? 0xff7050 : 0x70ff90,
                 d->sliding ? "f_T = mu f_N (dynamic)" : "f_T (static)");
    cfv_run_mark(run, 0, CFV_MARK_ARROW, base, cfu_mul_add(base, 0.05 * f[0], n), 0x5a8cff, "f_N");
    cfv_run_info(run, 0, "theta = %.1f deg, tan(theta) = %.3f, mu = %.2f: %s", th * 180 / CF_PI, tan(th), MU,
                 d->sliding ? "SLIDING (dynamic friction)" : "resting (static friction)");
    cfv_run_info(run, 1, "f = (%.3f, %+.3f)  a_T = %+.3f  v = %+.3f m/s  |f_T|/f_N = %.3f", f[0], f[1], a[1], d->v,
                 f[0] > 0 ? fabs(f[1]) / f[0] : 0);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    bool ok = !d->failed && d->to_dynamic >= 1 && d->to_static >= 1 && d->err_static < 1e-9 &&
              d->err_dynamic < 1e-9 && d->wrong_state == 0;
    snprintf(msg, cap,
             "%d switches to sliding, %d back to resting (want >= 1 each); static f off (g cos, g sin) by %.2g, "
             "dynamic |f_T| off mu f_N by %.2g (want < 1e-9); resting above tan(theta) = mu: %s",
             d->to_dynamic, d->to_static, d->err_static, d->err_dynamic, d->wrong_state > 0 ? "YES" : "never");
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch04_baraff_incline = {
    .id = "ch04/baraff_incline",
    .chapter = 4,
    .title = "Baraff's pivoting with friction: a block switches between static and dynamic friction",
    .point_at = "the slope swings between 12 and 32 deg; the green arrow (static f_T) grows with the slope until "
                "tan(theta) = mu = 0.5 (26.6 deg), then turns red: the block slides with f_T = mu f_N; on the way "
                "back it slows down and sticks again, at a smaller angle than where it started to slide",
    .keys = "pause,restart,dt",
    .plots = "energy",
    .prediction = "the block rests with f = (g cos, g sin) while tan(theta) <= mu, slides with |f_T| = mu f_N once "
                  "tan(theta) > mu, and sticks again when the slope comes back (ch04.2)",
    .steps = 480,
    CFV_DEMO_STEP_HOOKS,
};
