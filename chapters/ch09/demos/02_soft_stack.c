/* SPDX-License-Identifier: MIT */
/* Demo ch09/soft_stack: two soft boxes dropped on a ground slab under IPC; never an interpenetration. */
#include "demos.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cf/cf_ch09.h"

/*
 * What the viewer must show: a fixed ground slab and two soft boxes (8 nodes, 28 springs each,
 * 1 kg) dropped from a few centimetres, stepped by IPC (projected Newton with the CCD line search,
 * ch09.2-ch09.5) with h = 0.01, dhat = 1 cm (large enough to see), kappa = 1e3 N/m, friction
 * mu = 0.5 (ch09.6). The boxes are drawn as their edges, the slab as a fixed box of the world
 * (drawn only: the demo steps the IPC system itself); every pair closer than dhat is drawn as a red
 * segment between its closest points with a red dot at its middle (the segments are millimetres
 * long), so the dhat shells show where the barrier acts. The
 * lower box lands and bounces a little, the upper one lands on it; both settle a few millimetres
 * apart (where the barrier carries the weight) and never touch. The HUD shows the barrier energy,
 * the smallest distance and the Newton iterations of the step.
 */

#define H 0.01
#define DHAT 0.01
#define KAPPA 1e3
#define NN 24 /* ground box + two soft boxes */

typedef struct Data {
    double q[3 * NN], u[3 * NN];
    double min_dist;   /* over the run */
    double barrier;    /* barrier energy kappa sum b of the last step (J) */
    double max_speed;  /* of the last step */
    int newton, bad_steps;
    bool todo;
} Data;

/* the system: topology rebuilt from scratch (deterministic), state from the demo's data */
static cfStatus ipc_system(cfIpcSystem *s, const Data *d)
{
    cfStatus st = cf_ipc_init(s, H, DHAT, KAPPA);
    if (st != CF_OK) return st;
    s->gravity = cfu_vec3(0, 0, -9.81);
    s->mu = 0.5;
    s->eps_v = 1e-2;
    if (cf_ipc_add_box(s, cfu_vec3(-1.5, -1.2, -0.2), cfu_vec3(1.3, 1.4, 0), 1, 0, true) < 0 ||
        cf_ipc_add_box(s, cfu_vec3(0.2, -0.2, 0.03), cfu_vec3(0.6, 0.2, 0.43), 1.0, 2e3, false) < 0 ||
        cf_ipc_add_box(s, cfu_vec3(0.27, -0.13, 0.5), cfu_vec3(0.57, 0.17, 0.8), 1.0, 2e3, false) < 0)
        return CF_NO_MEMORY;
    if (d) {
        memcpy(s->q, d->q, sizeof d->q);
        memcpy(s->u, d->u, sizeof d->u);
    }
    return CF_OK;
}

typedef struct Draw {
    cfvRun *run;
    const cfIpcSystem *s;
    double barrier;
} Draw;

static int draw_pair(void *ctx, const int node[4], bool ee)
{
    Draw *D = ctx;
    cfVec3 x[4];
    cf_ipc_pair_points(D->s->q, node, x);
    cfDistStencil st;
    double d2 = cf_ipc_pair_dist2(x, ee, &st);
    if (!(d2 < DHAT * DHAT)) return 0;
    D->barrier += KAPPA * cf_ipc_barrier(sqrt(d2), DHAT, NULL, NULL);
    /* closest points: on feature B (positive coefficients) and on feature A (negative) */
    cfVec3 a = cfu_zero3(), b = cfu_zero3();
    for (int i = 0; i < 4; ++i) {
        if (st.c[i] > 0) b = cfu_mul_add(b, st.c[i], x[i]);
        else a = cfu_mul_add(a, -st.c[i], x[i]);
    }
    cfv_run_mark(D->run, 0, CFV_MARK_LINE, a, b, 0xff3030, NULL);
    cfv_run_mark(D->run, 0, CFV_MARK_POINT, cfu_scale(0.5, cfu_add(a, b)), a, 0xff3030, NULL);
    return 0;
}

static void show(cfvRun *run, const cfIpcSystem *s)
{
    Data *d = run->data;
    for (int e = 0; e < s->n_edge; ++e)
        if (!s->fixed[s->edge[e][0]]) /* the slab is the world's box */
            cfv_run_mark(run, 0, CFV_MARK_LINE, cf_ipc_node(s->q, s->edge[e][0]), cf_ipc_node(s->q, s->edge[e][1]), 0x60b0ff,
                         NULL);
    Draw D = {run, s, 0.0};
    cf_ipc_for_pairs(s, draw_pair, &D);
    d->barrier = D.barrier;
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    cfWorldDef def = cf_world_def_default();
    def.dt = H;
    if (cfv_run_add_world(run, &def, "IPC: two soft boxes on a slab (red: pairs within dhat)", cfu_zero3(), err) < 0)
        return CF_BAD_INPUT;
    cfRigidBody slab; /* drawn only: the IPC system below has the slab's nodes */
    if (cf_rigid_init_fixed(&slab, cf_shape_box(cfu_vec3(1.4, 1.3, 0.1)), err) != CF_OK) return CF_BAD_INPUT;
    slab.x = cfu_vec3(-0.1, 0.1, -0.1);
    snprintf(slab.name, sizeof slab.name, "slab");
    if (cf_world_add_body(cfv_run_world(run, 0), &slab) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    cfIpcSystem s;
    cfStatus st = ipc_system(&s, NULL);
    if (st == CF_OK) {
        memcpy(d->q, s.q, sizeof d->q);
        memcpy(d->u, s.u, sizeof d->u);
        show(run, &s);
    }
    cf_ipc_free(&s);
    d->min_dist = INFINITY;
    cfv_run_subject_region(run, 0, cfu_vec3(0.1, -0.3, 0.0), cfu_vec3(0.7, 0.3, 0.85)); /* the two boxes */
    cfv_run_set_camera(run, cfu_zero3(), -70, 15, 0);
    return st == CF_OK ? CF_OK : cf_error_set(err, st, "building the IPC system failed");
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    cfWorld *w = cfv_run_world(run, 0);
    w->time += H;
    w->step++;
    cfIpcSystem s;
    cfIpcStats stats = {0};
    cfStatus st = ipc_system(&s, d);
    if (st == CF_OK) st = cf_ipc_step(&s, NULL, &stats);
    if (st == CF_NOT_IMPLEMENTED || run->todo[0]) d->todo = true;
    if (st != CF_OK && st != CF_STAGNATED) d->bad_steps++;
    if (s.n == NN) {
        memcpy(d->q, s.q, sizeof d->q);
        memcpy(d->u, s.u, sizeof d->u);
        d->max_speed = cf_vec_norm_inf(3 * NN, s.u);
        show(run, &s);
    }
    cf_ipc_free(&s);
    d->newton = stats.iterations;
    d->min_dist = fmin(d->min_dist, stats.min_dist);
    cfv_run_info(run, 0, "barrier energy kappa sum b = %.3e J, pairs within dhat: %d", d->barrier, stats.active);
    cfv_run_info(run, 1, "smallest distance now %.3e m, over the run %.3e m (dhat %.0e)", stats.min_dist, d->min_dist, DHAT);
    cfv_run_info(run, 2, "Newton iterations this step: %d, largest node speed %.3f m/s", d->newton, d->max_speed);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    /* the upper box's lowest node above the lower box's highest: stacked, not merged */
    double low_top = INFINITY, high_bottom = -INFINITY;
    for (int i = 8; i < 16; ++i) high_bottom = fmax(high_bottom, d->q[3 * i + 2]);
    for (int i = 16; i < 24; ++i) low_top = fmin(low_top, d->q[3 * i + 2]);
    bool ok = !d->todo && d->bad_steps == 0 && d->min_dist > 0.0 && low_top > high_bottom && d->max_speed < 0.05;
    snprintf(msg, cap,
             "smallest distance over the run %.3e m (want > 0), upper box bottom %.4f above lower box top %.4f, final "
             "speed %.3g m/s (want < 0.05), %d failed steps%s",
             d->min_dist, low_top, high_bottom, d->max_speed, d->bad_steps, d->todo ? " (a stub was reached)" : "");
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_soft_stack = {
    .id = "ch09/soft_stack",
    .chapter = 9,
    .title = "IPC: two soft boxes dropped on a slab settle without ever touching (red: pairs inside dhat)",
    .point_at = "the red dots and segments: every point-triangle or edge-edge pair closer than dhat = 1 cm, where the barrier "
                "pushes; the gap they span shrinks to the distance where the barrier carries the weight, never to 0",
    .keys = "pause,restart",
    .prediction = "every pair keeps a positive distance in every step, the upper box rests on the lower one and both come "
                  "to rest (node speeds below 5 cm/s after 2 s)",
    .steps = 200,
    CFV_DEMO_STEP_HOOKS,
};
