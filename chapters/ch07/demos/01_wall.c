/* SPDX-License-Identifier: MIT */
/* Demo ch07/wall: paper 001's 9x9 brick wall on PROX-Gauss-Seidel, the r-factor strategy on a key. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: a running-bond wall of 81 bricks (9 courses of 9, every other course
 * shifted by half a brick) on the ground, paper 001's settings: h = 0.01 s, mu = 0.75, at most
 * 1000 sweeps of PROX-Gauss-Seidel per step, tolerance 1e-3 on the merit (the largest impulse
 * change of an accepted sweep). Keys 1, 2, 3 pick the local, global and blocked r-factors (the
 * world's r_factor); the HUD shows the strategy, the sweeps of the last solve, its status and the
 * largest drift of a brick; the residual panel shows the merit sweep by sweep: with local r-factors
 * it falls in tens of sweeps, with the global r = 1/|A|_2 (Foerg) it crawls, and the blocked
 * r-factors of the paper (Euclidean projection with the inverse friction block) wander.
 */

typedef struct Data {
    cfVec3 x0[96];
    double drift;
    long n, unfinished;
    double sweeps;
} Data;

#define COURSES 9
#define PER 9

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    cfWorldDef def = cf_world_def_default();
    def.dt = 0.01;
    def.detector = CF_DETECT_PRIMITIVES;
    def.contact_margin = 0.01;
    def.solver = cf_solver_find("prox-gs");
    def.solver_iterations = 1000;
    def.solver_tolerance = 1e-3;
    def.r_factor = CF_RFACTOR_LOCAL;
    int s = cfv_run_add_world(run, &def, "9x9 brick wall, PROX-GS", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    cfWorld *w = cfv_run_world(run, s);
    cfRigidBody g;
    cfStatus st = cf_rigid_init_fixed(&g, cf_shape_plane(cfu_vec3(0, 0, 1), 0), err);
    if (st != CF_OK) return st;
    g.mu = 0.75;
    snprintf(g.name, sizeof g.name, "ground");
    if (cf_world_add_body(w, &g) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    const cfVec3 half = {0.2, 0.1, 0.1}; /* a 0.4 x 0.2 x 0.2 m brick of 16 kg */
    for (int c = 0; c < COURSES; ++c)
        for (int i = 0; i < PER; ++i) {
            cfRigidBody b;
            st = cf_rigid_init(&b, cf_shape_box(half), 16.0, err);
            if (st != CF_OK) return st;
            b.mu = 0.75;
            b.x = cfu_vec3(2 * half.x * (i - (PER - 1) / 2.0) + (c % 2 ? half.x : 0.0), 0, half.z * (2 * c + 1));
            snprintf(b.name, sizeof b.name, "c%db%d", c, i);
            if (cf_world_add_body(w, &b) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
        }
    for (int i = 0; i < w->n_bodies; ++i) d->x0[i] = w->bodies[i].x;
    cfv_run_subject(run, s, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -90, 10, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    for (int i = 1; i < w->n_bodies; ++i) d->drift = fmax(d->drift, cfu_norm(cfu_sub(w->bodies[i].x, d->x0[i])));
    d->n++;
    d->sweeps += w->stats.solver_iterations;
    d->unfinished += w->stats.solver_status != CF_OK;
    cfv_run_info(run, 0, "r-factors %s (1 local, 2 global, 3 blocked); %d contacts", cf_rfactor_name(w->def.r_factor),
                 w->stats.n_contacts);
    cfv_run_info(run, 1, "last solve: %d sweeps, merit %.2e, %s; mean %.1f sweeps; largest drift %.4f m",
                 w->stats.solver_iterations, w->stats.solver_residual, cf_status_name(w->stats.solver_status),
                 d->n ? d->sweeps / d->n : 0.0, d->drift);
}

static bool key(cfvRun *run, int k)
{
    cfWorldDef *def = &cfv_run_world(run, 0)->def;
    if (k == '1') def->r_factor = CF_RFACTOR_LOCAL;
    else if (k == '2') def->r_factor = CF_RFACTOR_GLOBAL;
    else if (k == '3') def->r_factor = CF_RFACTOR_BLOCKED;
    else return false;
    return true;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    snprintf(msg, cap, "largest drift after %ld steps: %.4f m (want < 0.01); %ld solves used the whole budget, mean %.1f sweeps",
             d->n, d->drift, d->unfinished, d->n ? d->sweeps / d->n : 0.0);
    return d->n > 0 && d->drift < 0.01 ? 0 : 1;
}

const cfvDemo cfv_demo_ch07_wall = {
    .id = "ch07/wall",
    .chapter = 7,
    .title = "Paper 001's 9x9 brick wall on PROX-Gauss-Seidel: local, global and blocked r-factors",
    .point_at = "the residual panel (the merit of each sweep) and the sweeps in the HUD: local r-factors finish in "
                "tens of sweeps; press 2 for one global r and watch the sweeps grow, 3 for the paper's blocked "
                "r-factors",
    .keys = "points,pause",
    .demo_keys = (const cfvDemoKey[]){{'1', "local r-factors"}, {'2', "one global r"}, {'3', "blocked r-factors"}, {0, NULL}},
    .plots = "residual",
    .prediction = "with local r-factors and at most 1000 sweeps per step no brick moves 1 cm",
    .overlays = "points",
    .steps = 12,
    CFV_DEMO_HOOKS,
    .key = key,
};
