/* SPDX-License-Identifier: MIT */
/* Demo ch09/tunnel: a particle at 100 m/s against a 1 mm plate: penalty tunnels, IPC does not. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch09.h"

/*
 * What the viewer must show: two copies of a plate 1 mm thick (2 m x 2 m) and a small ball
 * (drawn with radius 8 cm; physically a point of 1 kg) thrown down at 100 m/s from 0.5 m, no
 * gravity, h = 0.01:
 * one step is a metre. Left: classical penalty (ch09.1, k = 1e6 N/m, symplectic Euler): the
 * particle is never seen inside the plate, no force ever acts and it ends far below (tunnelling,
 * notes 5.2). Right: IPC (ch09.2-ch09.5, dhat = 1 mm, kappa = 1e6 N/m): the first Newton step
 * would cross the plate, the CCD-filtered line search cuts it to 80 % of the time of impact, and
 * the barrier stops the particle on the plate in that same step, its distance staying positive in
 * every iterate (the IPC guarantee). Implicit Euler keeps almost none of the kinetic energy: the
 * barrier then pushes the particle off at a few cm/s. Grey dots mark the positions at the step ends
 * (the trails); the frame shows a metre below the plates, and an arrow at its bottom edge says
 * where the penalty particle went. The bodies carry the particles' velocities, so the HUD's
 * energies are theirs (penalty keeps its 5000 J, IPC's implicit Euler loses almost all).
 */

#define H 0.01
#define V0 (-100.0)
#define Z0 0.5
#define HALF_T 5e-4
#define DRAW_R 0.08

typedef struct Data {
    double zp, vp;        /* penalty particle */
    double q[3], u[3];    /* IPC particle (the plate's nodes are fixed and rebuilt each step) */
    double min_dist;      /* smallest IPC distance over the run */
    double zp_min_above;  /* lowest IPC height */
    int clamps;           /* line searches that CCD cut */
    int bad_steps;        /* IPC steps that failed (not OK, not stagnated at the rounding floor) */
    bool todo;            /* a stub was reached */
} Data;

static cfStatus add(cfvRun *run, const char *label, double x, cfError *err)
{
    cfWorldDef def = cf_world_def_default();
    def.gravity = cfu_zero3();
    def.dt = H;
    int s = cfv_run_add_world(run, &def, label, cfu_vec3(x, 0, 0), err);
    if (s < 0) return CF_BAD_INPUT;
    cfRigidBody plate, ball;
    cfStatus st = cf_rigid_init_fixed(&plate, cf_shape_box(cfu_vec3(1, 1, HALF_T)), err);
    if (st == CF_OK) st = cf_rigid_init(&ball, cf_shape_sphere(DRAW_R), 1.0, err);
    if (st != CF_OK) return st;
    snprintf(plate.name, sizeof plate.name, "plate");
    snprintf(ball.name, sizeof ball.name, "particle");
    ball.x = cfu_vec3(0, 0, Z0 + DRAW_R);
    cfWorld *w = cfv_run_world(run, s);
    if (cf_world_add_body(w, &plate) < 0 || cf_world_add_body(w, &ball) < 0)
        return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    return CF_OK;
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    d->zp = Z0;
    d->vp = V0;
    d->q[0] = 0.1, d->q[1] = 0.3, d->q[2] = Z0;
    d->u[2] = V0;
    d->min_dist = INFINITY;
    d->zp_min_above = Z0;
    cfStatus st = add(run, "penalty k = 1e6: tunnels", -1.4, err);
    if (st == CF_OK) st = add(run, "IPC + CCD line search: stops", 1.4, err);
    if (st != CF_OK) return st;
    for (int k = 0; k < 2; ++k) {
        cfv_run_world(run, k)->bodies[1].v = cfu_vec3(0, 0, V0);
        cfv_run_subject_region(run, k, cfu_vec3(-1, -1, -1.3), cfu_vec3(1, 1, Z0 + 2 * DRAW_R)); /* plate, a metre each side */
        cfv_run_trail(run, k, 1, 0xa0a0a0, true);
    }
    cfv_run_subject(run, 1, 1); /* the IPC particle, at the plate */
    cfv_run_set_camera(run, cfu_zero3(), -90, 18, 0);
    return st;
}

/* the IPC system of the right side: the plate's two faces (fixed) and the particle */
static cfStatus ipc_system(cfIpcSystem *s, const Data *d)
{
    cfStatus st = cf_ipc_init(s, H, 1e-3, 1e6);
    if (st != CF_OK) return st;
    for (int f = 0; f < 2; ++f) {
        double z = f ? -HALF_T : HALF_T;
        int a = cf_ipc_add_node(s, cfu_vec3(-1, -1, z), 0, true), b = cf_ipc_add_node(s, cfu_vec3(1, -1, z), 0, true);
        int c = cf_ipc_add_node(s, cfu_vec3(1, 1, z), 0, true), e = cf_ipc_add_node(s, cfu_vec3(-1, 1, z), 0, true);
        if (cf_ipc_add_triangle(s, a, b, c) < 0 || cf_ipc_add_triangle(s, a, c, e) < 0) return CF_NO_MEMORY;
    }
    int p = cf_ipc_add_node(s, cfu_vec3(d->q[0], d->q[1], d->q[2]), 1.0, false);
    if (p < 0) return CF_NO_MEMORY;
    for (int a = 0; a < 3; ++a) s->u[3 * p + a] = d->u[a];
    return CF_OK;
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    for (int i = 0; i < 2; ++i) {
        cfWorld *w = cfv_run_world(run, i);
        w->time += H;
        w->step++;
    }
    /* penalty: a force only while inside the slab, pushing out of the nearer face */
    double depth = fmin(HALF_T - d->zp, d->zp + HALF_T);
    double f = depth > 0.0 ? (d->zp >= 0 ? 1.0 : -1.0) * cf_penalty_normal(1e6, 0, 1, -depth, d->zp >= 0 ? d->vp : -d->vp) : 0.0;
    if (run->todo[0]) d->todo = true;
    d->vp += H * f;
    d->zp += H * d->vp;
    /* IPC */
    cfIpcSystem s;
    cfIpcStats stats = {0};
    cfStatus st = ipc_system(&s, d);
    if (st == CF_OK) st = cf_ipc_step(&s, NULL, &stats);
    if (st == CF_NOT_IMPLEMENTED || run->todo[0]) d->todo = true;
    if (st != CF_OK && st != CF_STAGNATED) d->bad_steps++;
    if (s.n > 0) {
        int p = s.n - 1;
        for (int a = 0; a < 3; ++a) d->q[a] = s.q[3 * p + a], d->u[a] = s.u[3 * p + a];
    }
    cf_ipc_free(&s);
    d->clamps += stats.ccd_clamps;
    d->min_dist = fmin(d->min_dist, stats.min_dist);
    d->zp_min_above = fmin(d->zp_min_above, d->q[2]);
    cfRigidBody *bp = &cfv_run_world(run, 0)->bodies[1], *bi = &cfv_run_world(run, 1)->bodies[1];
    bp->x = cfu_vec3(0, 0, d->zp + (d->zp >= 0 ? DRAW_R : -DRAW_R));
    bp->v = cfu_vec3(0, 0, d->vp);
    bi->x = cfu_vec3(d->q[0], d->q[1], d->q[2] + DRAW_R);
    bi->v = cfu_vec3(d->u[0], d->u[1], d->u[2]);
    if (d->zp < -1.3) { /* below the frame: say where */
        char where[64];
        snprintf(where, sizeof where, "the particle is at z = %.1f m", d->zp);
        cfv_run_mark(run, 0, CFV_MARK_ARROW | CFV_MARK_ON_TOP, cfu_vec3(0, 0, -0.7), cfu_vec3(0, 0, -1.25), 0xe0e0e0, where);
    }
    cfv_run_info(run, 0, "100 m/s, h = 0.01 s: 1 m per step against a 1 mm plate");
    cfv_run_info(run, 1, "penalty: z = %+.4f m, v = %+.1f m/s", d->zp, d->vp);
    cfv_run_info(run, 2, "IPC: distance to the plate %.3e m (smallest so far %.3e), v = %+.3f m/s, CCD clamps %d",
                 stats.min_dist, d->min_dist, d->u[2], d->clamps);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    bool ok = !d->todo && d->zp < -1.0 && d->min_dist > 0.0 && d->zp_min_above > HALF_T && d->clamps > 0 &&
              d->bad_steps == 0 && fabs(d->u[2]) < 1.0;
    snprintf(msg, cap,
             "penalty ends at z = %.2f (want < -1: tunnelled); IPC: smallest distance %.3e m (want > 0), lowest z %.6f "
             "(want > %.4f), %d CCD clamps (want > 0), %d failed steps, final speed %.3g m/s (want < 1)%s",
             d->zp, d->min_dist, d->zp_min_above, HALF_T, d->clamps, d->bad_steps, fabs(d->u[2]),
             d->todo ? " (a stub was reached)" : "");
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_tunnel = {
    .id = "ch09/tunnel",
    .chapter = 9,
    .title = "100 m/s against a 1 mm plate: penalty tunnels, IPC with a CCD line search stops",
    .point_at = "the grey dots: on the left the positions a metre apart, none inside the plate, so no penalty force ever "
                "acts; on the right the particle is stopped at the plate in the first step and then drifts off slowly, pushed by the barrier",
    .keys = "pause,restart",
    .plots = "energy",
    .prediction = "the penalty particle ends more than a metre below the plate; the IPC particle never gets below the "
                  "plate's top face, its distance stays positive in every step, CCD cut at least one line search",
    .steps = 30,
    CFV_DEMO_STEP_HOOKS,
};
