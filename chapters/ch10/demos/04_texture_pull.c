/* SPDX-License-Identifier: MIT */
/* Demo ch10/texture_pull: a block dragged across a sawtooth texture: the pull reads as a sawtooth (texture friction). */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: two copies of scenes/ch10_texture_pull.json, the notes' Fig. 40. In
 * front, the block is dragged at 0.1 m/s ACROSS the ridges (+x) of a sawtooth height field (teeth
 * 0.1 m long that steepen towards a cliff, slopes 0.05 ... 0.45, then 2.25; drawn as the grey
 * profile on the plane); in front of it, the same block is dragged ALONG the ridges (-y). A stiff spring
 * drive pulls each block; its force is the friction the texture's facets make by plowing (ch10.6,
 * world law "texture", solver pgs-texture). Above the front track the drive's force is drawn
 * against the block's position (red, 0.08 m per N): it climbs with the slope under the corners,
 * (2/pi) atan(slope) m g, and falls to zero over each cliff, where the facets face away: a
 * sawtooth, one tooth per tooth of the texture, every L / v = 1 s. The yellow line is its predicted
 * average per metre, m g (1/10) sum_k (2/pi) atan(k/20) = 1.357 N; the green arrow in front (along
 * the ridges, its length the pull) stays at zero: nothing plows along a ridge, the block "slides easily" (Fig. 40, left).
 */

#define MG 9.81
#define NTRACE 2048

typedef struct Data {
    double predicted;      /* m g times the texture's average coefficient (N) */
    double work, dist;     /* the front drive's work and the distance slid after t = 1 s */
    double along_max;      /* the largest |force| along the ridges after t = 1 s (N) */
    int n;                 /* trace samples */
    double tx[NTRACE], tf[NTRACE]; /* the front block's x and its drive's force */
    long steps;
} Data;

static const double SCALE = 0.08; /* m per N in the force trace */
static const double BASE = 0.07;  /* the trace's zero line above the plane (m) */

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    if (cfv_run_add_scene(run, "ch10_texture_pull.json", "across the ridges (+x)", cfu_zero3(), err) < 0)
        return CF_BAD_INPUT;
    int s = cfv_run_add_scene(run, "ch10_texture_pull.json", "along the ridges (-y)", cfu_vec3(0, -0.45, 0), err);
    if (s < 0) return CF_BAD_INPUT;
    cfWorld *w1 = cfv_run_world(run, s);
    w1->pulls[0].velocity = w1->bodies[1].v = cfu_vec3(0, -0.1, 0); /* the drive and the block turned to -y */
    double sum = 0.0;
    for (int k = 1; k <= 9; ++k) sum += 2.0 / CF_PI * atan(k / 20.0);
    d->predicted = MG * sum / 10.0;
    cfv_run_subject(run, 0, 1);
    cfv_run_subject(run, 1, 1);
    cfv_run_subject_region(run, 0, cfu_vec3(-0.1, -0.15, 0), cfu_vec3(0.55, 0.15, BASE + SCALE * 2.8));
    cfv_run_set_camera(run, cfu_vec3(0.2, -0.2, 0.1), -90, 18, 0);
    return CF_OK;
}

/* the sawtooth height h(x) of the scene's texture (heights 0.25 mm i (i + 1) per 1 cm cell) */
static double height(double x)
{
    double u = x / 0.01, f = floor(u);
    int i = (int)(f - 10.0 * floor(f / 10.0));
    double h0 = 0.00025 * i * (i + 1), h1 = i == 9 ? 0.0 : 0.00025 * (i + 1) * (i + 2);
    return h0 + (u - f) * (h1 - h0);
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w0 = cfv_run_world(run, 0), *w1 = cfv_run_world(run, 1);
    double x0 = w0->bodies[1].x.x;
    cfv_run_step_worlds(run);
    d->steps++;
    double f = w0->pulls[0].force.x, x = w0->bodies[1].x.x;
    if (w0->time > 1.0 + 1e-9) {
        d->work += f * (x - x0);
        d->dist += x - x0;
        d->along_max = fmax(d->along_max, fabs(w1->pulls[0].force.y));
    }
    if (d->n < NTRACE) d->tx[d->n] = x, d->tf[d->n++] = f;
    /* the texture: its profile on the two edges of each track, the cliffs across */
    for (int s = 0; s < 2; ++s)
        for (int e = -1; e <= 1; e += 2) {
            double y = 0.13 * e;
            for (int k = 0; k < 70; ++k) {
                double xa = -0.15 + 0.01 * k, xb = xa + 0.01;
                double hb = k % 10 == 9 ? height(xa + 0.00999) : height(xb);
                cfv_run_mark(run, s, CFV_MARK_LINE, cfu_vec3(xa, y, height(xa)), cfu_vec3(xb, y, hb), 0x9aa3b5,
                             s == 0 && e == -1 && k == 0 ? "sawtooth texture" : NULL);
                if (k % 10 == 9)
                    cfv_run_mark(run, s, CFV_MARK_LINE, cfu_vec3(xb, y, hb), cfu_vec3(xb, y, 0), 0x9aa3b5, NULL);
            }
        }
    for (int k = 0; k < 7; ++k) /* the crests along the ridges' track (it runs along -y) */
        cfv_run_mark(run, 1, CFV_MARK_LINE, cfu_vec3(-0.1 + 0.1 * k, 0.13, 0.0225), cfu_vec3(-0.1 + 0.1 * k, -0.55, 0.0225),
                     0x9aa3b5, k == 0 ? "ridge crests" : NULL);
    /* the drive's force against the block's position, above the front track */
    for (int i = 1; i < d->n; ++i)
        cfv_run_mark(run, 0, CFV_MARK_LINE | CFV_MARK_ON_TOP, cfu_vec3(d->tx[i - 1], 0.0, BASE + SCALE * d->tf[i - 1]),
                     cfu_vec3(d->tx[i], 0.0, BASE + SCALE * d->tf[i]), 0xff4040, i == 1 ? "pull (N)" : NULL);
    cfv_run_mark(run, 0, CFV_MARK_LINE | CFV_MARK_ON_TOP, cfu_vec3(-0.1, 0.0, BASE), cfu_vec3(0.55, 0.0, BASE), 0x8a93a6,
                 "0 N");
    cfv_run_mark(run, 0, CFV_MARK_LINE | CFV_MARK_ON_TOP, cfu_vec3(-0.1, 0.0, BASE + SCALE * d->predicted),
                 cfu_vec3(0.55, 0.0, BASE + SCALE * d->predicted), 0xffff40, "predicted mean");
    /* the force along the ridges, in front */
    cfVec3 b1 = w1->bodies[1].x;
    cfv_run_mark(run, 1, CFV_MARK_ARROW, cfu_add(b1, cfu_vec3(0, 0, 0.03)),
                 cfu_add(b1, cfu_vec3(0, -0.05 + SCALE * w1->pulls[0].force.y, 0.03)), 0x40ff40, "pull along the ridges");
    cfv_run_info(run, 0, "across the ridges: pull %.3f N; per metre %.3f N, the law predicts %.3f N", f,
                 d->dist > 0 ? d->work / d->dist : 0.0, d->predicted);
    cfv_run_info(run, 1, "along the ridges: pull %.4f N (nothing plows along a ridge)", -w1->pulls[0].force.y);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    double per_m = d->dist > 0 ? d->work / d->dist : 0.0;
    snprintf(msg, cap, "after %ld steps the pull across the ridges averages %.4f N per metre, the law %.4f N (want within 3%%); "
             "along the ridges at most %.4f N (want < 0.05)", d->steps, per_m, d->predicted, d->along_max);
    return d->steps > 0 && fabs(per_m - d->predicted) < 0.03 * d->predicted && d->along_max < 0.05 ? 0 : 1;
}

const cfvDemo cfv_demo_ch10_texture_pull = {
    .id = "ch10/texture_pull",
    .chapter = 10,
    .title = "A block dragged across a sawtooth texture: the pull reads as a sawtooth (texture friction, Fig. 40)",
    .point_at = "the red force trace above the front block: it climbs with the slope of each tooth under the block "
                "and falls to zero over every cliff; the yellow line is the law's average. In front, along the ridges, "
                "the green pull stays at zero",
    .keys = "restart,pause",
    .prediction = "across the ridges the pull per metre is m g (1/10) sum_k (2/pi) atan(k/20) = 1.357 N, a sawtooth of "
                  "period 1 s; along the ridges it is zero",
    .overlays = NULL,
    .steps = 800,
    .data_size = sizeof(Data),
    .setup = setup,
    .step = step,
    .check = check,
    .key = NULL,
};
