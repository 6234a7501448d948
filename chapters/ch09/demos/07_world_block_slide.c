/* SPDX-License-Identifier: MIT */
/* Demo ch09/world_block_slide: paper 003's block slide on a 10 degree slope, by the world's ipc pipeline (IPC-BE). */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch09_ipc_block_slide.json, a block (one node) thrown down a 10
 * degree slope at 1 m/s with mu = 0.3, stepped by the ipc pipeline: implicit Euler with lagged
 * friction (IPC-BE). A green mark stands at the analytic stopping point v0^2 / (2 g (mu cos - sin))
 * = 0.4185 m down the slope. The block decelerates at g (mu cos - sin) = 1.195 m/s^2, stops a little
 * short of the mark (lagged BE is first order: about h v0 / 2), then creeps at eps_v (1 - sqrt(1 -
 * tan 10 / 0.3)) = 0.358 mm/s. Paper 003's BE/TR with implicit friction and IPC-TR come with the
 * implicit-soft pipeline (exercise ch09.7).
 */

#define THETA (10.0 * CF_PI / 180.0)
#define MU 0.3
#define V0 1.0

typedef struct Data {
    cfVec3 x0;      /* start */
    double dist;    /* distance down the slope (m) */
    double stop;    /* distance where the speed first fell below 10 eps_v (m) */
    double speed;   /* last speed */
    double min_dist;
} Data;

static double g_eff(void) { return 9.81 * (MU * cos(THETA) - sin(THETA)); }

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    if (cfv_run_add_scene(run, "ch09_ipc_block_slide.json", "IPC-BE, lagged friction", cfu_zero3(), err) < 0)
        return CF_BAD_INPUT;
    d->x0 = cfv_run_world(run, 0)->soft[0].x[0];
    d->stop = NAN;
    d->min_dist = INFINITY;
    /* the block and the half metre it slides, seen from above the slope */
    cfVec3 down = cfu_vec3(cos(THETA), 0, -sin(THETA));
    cfv_run_subject_soft(run, 0, 0);
    cfv_run_subject_region(run, 0, cfu_add(cfu_mul_add(d->x0, -0.1, down), cfu_vec3(0, -0.15, 0)),
                           cfu_add(cfu_mul_add(d->x0, 0.55, down), cfu_vec3(0, 0.15, 0.05)));
    cfv_run_trail_soft(run, 0, 0, 0, 0xffa040, false);
    cfv_run_set_camera(run, cfu_zero3(), -70, 25, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    cfVec3 down = cfu_vec3(cos(THETA), 0, -sin(THETA)), p = w->soft[0].x[0];
    d->dist = cfu_dot(cfu_sub(p, d->x0), down);
    d->speed = cfu_norm(w->soft[0].v[0]);
    if (isnan(d->stop) && d->speed < 10.0 * w->def.ipc.eps_v) d->stop = d->dist;
    d->min_dist = fmin(d->min_dist, w->stats.ipc.min_distance);
    double want = V0 * V0 / (2.0 * g_eff());
    cfVec3 mark = cfu_mul_add(d->x0, want, down);
    cfv_run_mark(run, 0, CFV_MARK_LINE, mark, cfu_add(mark, cfu_vec3(0, 0, 0.1)), 0x40e040, "v0^2/(2 g (mu cos - sin))");
    cfv_run_mark(run, 0, CFV_MARK_POINT, p, p, 0xffa040, "block");
    cfv_run_info(run, 0, "distance %.4f m, speed %.4f m/s; stopped at %.4f m (analytic %.4f m)", d->dist, d->speed, d->stop,
                 want);
    cfv_run_info(run, 1, "smallest distance to the slope %.3e m, crossings %ld", d->min_dist, run->slot[0].crossings);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    const cfvSlot *s = &run->slot[0];
    double h = s->w.def.dt, eps = s->w.def.ipc.eps_v, t = s->w.time;
    double want = V0 * V0 / (2.0 * g_eff()), tol = h * V0 + eps * t;
    double creep = eps * (1.0 - sqrt(1.0 - tan(THETA) / MU));
    bool ok = !s->halted && s->crossings == 0 && d->min_dist > 0.0 && fabs(d->dist - want) < tol &&
              fabs(d->speed / creep - 1.0) < 0.05;
    snprintf(msg, cap, "distance after %.2f s %.4f m (want %.4f within h v0 + eps_v t = %.4f); speed / creep %.4f (want 1 "
             "within 5 %%); %ld steps certified, %ld crossings (want 0)%s; smallest distance %.3e m",
             t, d->dist, want, tol, d->speed / creep, s->w.step, s->crossings, s->halted ? " (halted)" : "", d->min_dist);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_world_block_slide = {
    .id = "ch09/world_block_slide",
    .chapter = 9,
    .title = "Paper 003's block slide on a 10 degree slope (mu 0.3, 1 m/s) by the world's ipc pipeline: IPC-BE",
    .point_at = "the green mark, the analytic stopping point 0.4185 m down; the block stops just short of it (lagged "
                "implicit Euler is first order) and then creeps at 0.36 mm/s",
    .keys = "pause,restart",
    .prediction = "the block is within h v0 + eps_v t of 0.4185 m after 1.5 s, creeping at eps_v (1 - sqrt(1 - tan 10 / "
                  "0.3)) within 5 %; no crossing in any step",
    .steps = 150,
    CFV_DEMO_HOOKS,
};
