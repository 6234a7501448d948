/* SPDX-License-Identifier: MIT */
/* Demo ch10/log_slide: grooves along circles steer a box sliding down an incline round a bend. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: two copies of scenes/ch10_log_slide.json side by side. Left, the
 * incline of 20 degrees whose grooves follow circles about a point of the incline (a "circles"
 * direction field, mu_t = 0.05 along the grooves, 0.6 across): the box, released 3 m to the side
 * of the centre, slides down ALONG the grooves, so its path bends round the centre like a log in a
 * flume. Right, the same incline with isotropic friction 0.05: the box goes straight down the slope.
 * The arrows show each box's velocity, the trails their paths; the yellow arcs are grooves through
 * the start and 1 m further out. This is the notes' "log slide" (Fig. 37): a direction field as a
 * steering device.
 */

typedef struct Data {
    double turn;     /* how far the grooved box's velocity has turned from straight downhill (rad) */
    double drift;    /* the isotropic box's largest sideways (x) displacement (m) */
    double x_end;    /* the grooved box's x at the end */
    long n;
} Data;

#define TILT (20.0 * CF_PI / 180.0)

static cfStatus setup(cfvRun *run, cfError *err)
{
    if (cfv_run_add_scene(run, "ch10_log_slide.json", "grooves along circles", cfu_zero3(), err) < 0) return CF_BAD_INPUT;
    int s = cfv_run_add_scene(run, "ch10_log_slide.json", "isotropic 0.05", cfu_vec3(5, 0, 0), err);
    if (s < 0) return CF_BAD_INPUT;
    cfWorld *w = cfv_run_world(run, s);
    w->n_pairs = 0; /* the pair's law dropped: the bodies' sqrt(mu_a mu_b) = 0.05 */
    w->bodies[0].mu = w->bodies[1].mu = 0.05;
    /* the grooves of radius 3 and 4 with the box on them, and the isotropic box's straight run */
    cfv_run_subject(run, 0, 1);
    cfv_run_subject(run, 1, 1);
    cfv_run_subject_region(run, 0, cfu_vec3(-4.2, -0.3, -1.5), cfu_vec3(4.2, 4.0, 0.2));
    cfv_run_trail(run, 0, 1, 0xe67e22, false);
    cfv_run_trail(run, 1, 1, 0x3498db, false);
    cfv_run_set_camera(run, cfu_zero3(), -90, 62, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfVec3 down = cfu_vec3(0, cos(TILT), -sin(TILT)); /* straight down the slope */
    for (int i = 0; i < 2; ++i) {
        const cfWorld *w = cfv_run_world(run, i);
        const cfRigidBody *b = &w->bodies[1];
        double speed = cfu_norm(b->v);
        if (speed > 1e-9)
            cfv_run_mark(run, i, CFV_MARK_ARROW, b->x, cfu_add(b->x, cfu_scale(0.5 / speed, b->v)), 0x40ff40, "velocity");
        if (i == 0 && speed > 0.1) {
            d->turn = fmax(d->turn, acos(fmax(-1.0, fmin(1.0, cfu_dot(b->v, down) / speed))));
            d->x_end = b->x.x;
        }
        if (i == 1) d->drift = fmax(d->drift, fabs(b->x.x - 3.0));
    }
    for (int k = 0; k < 64; ++k) /* grooves of radius 3 and 4 about the centre, in the incline */
        for (int r = 3; r <= 4; ++r) {
            double a0 = CF_PI * k / 64, a1 = CF_PI * (k + 1) / 64;
            cfVec3 p0 = cfu_vec3(r * cos(a0), r * sin(a0) * cos(TILT), -r * sin(a0) * sin(TILT) + 0.01);
            cfVec3 p1 = cfu_vec3(r * cos(a1), r * sin(a1) * cos(TILT), -r * sin(a1) * sin(TILT) + 0.01);
            cfv_run_mark(run, 0, CFV_MARK_LINE, p0, p1, 0xffff40, k == 0 && r == 3 ? "groove" : NULL);
        }
    d->n++;
    cfv_run_info(run, 0, "grooved: the velocity has turned %.0f degrees from straight down; x = %.2f m", d->turn * 180 / CF_PI,
                 d->x_end);
    cfv_run_info(run, 1, "isotropic: sideways drift %.3f m", d->drift);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    snprintf(msg, cap, "after %ld steps the grooved box turned %.0f degrees (want > 60) and reached x = %.2f m (want < 0, past the centre); "
             "the isotropic one drifted %.4f m sideways (want < 0.01)", d->n, d->turn * 180 / CF_PI, d->x_end, d->drift);
    return d->n > 0 && d->turn > CF_PI / 3 && d->x_end < 0.0 && d->drift < 0.01 ? 0 : 1;
}

const cfvDemo cfv_demo_ch10_log_slide = {
    .id = "ch10/log_slide",
    .chapter = 10,
    .title = "Log slide: grooves along circles steer a box round a bend (a direction field)",
    .point_at = "the left box follows the yellow grooves round the centre; the right box on the isotropic incline "
                "goes straight down",
    .keys = "restart,pause,velocity",
    .prediction = "the grooved box's velocity turns by more than 60 degrees and it passes to the far side of the "
                  "centre; the isotropic box drifts sideways less than 1 cm",
    .overlays = NULL,
    .steps = 250,
    CFV_DEMO_HOOKS,
    .key = NULL,
};
