/* SPDX-License-Identifier: MIT */
/* Demo ch07/funnel: spheres jam in a hopper with friction and run out without it (PROX-GS). */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_rng.h"

/*
 * What the viewer must show: two copies of a hopper (two walls tilted 30 degrees from the
 * vertical, an opening of 1.5 sphere diameters at the bottom, front and back plates) filled with
 * 36 spheres of radius 0.1 m that fall in from a grid, stepped by the world with PROX-GS (local
 * r-factors, 60 sweeps, h = 0.01). Left: mu = 0.75 (paper 001's): the spheres near the opening
 * lock into an arch and the flow stops (jamming, paper 001's Fig. 1 and notes Fig. 24). Right:
 * mu = 0: nothing holds an arch and the hopper empties. The HUD counts the spheres that left.
 * The front plates are drawn as glass, so the arch is seen through them.
 */

typedef struct Data {
    int out[2];
} Data;

#define N_SPHERES 36
#define RADIUS 0.1

static cfStatus add_fixed_box(cfWorld *w, cfVec3 x, cfVec3 half, double angle_y, double mu, cfError *err)
{
    cfRigidBody b;
    cfStatus st = cf_rigid_init_fixed(&b, cf_shape_box(half), err);
    if (st != CF_OK) return st;
    b.x = x;
    b.q = cfu_quat_from_axis_angle(cfu_vec3(0, 1, 0), angle_y);
    b.mu = mu;
    cf_rigid_update_inertia(&b);
    return cf_world_add_body(w, &b) < 0 ? cf_error_set(err, CF_NO_MEMORY, "out of memory") : CF_OK;
}

static cfStatus add_hopper(cfvRun *run, double mu, const char *label, double x0, cfError *err)
{
    cfWorldDef def = cf_world_def_default();
    def.dt = 0.01;
    def.detector = CF_DETECT_PRIMITIVES;
    def.contact_margin = 0.01;
    def.solver = cf_solver_find("prox-gs");
    def.solver_iterations = 60;
    def.solver_tolerance = 1e-4;
    int s = cfv_run_add_world(run, &def, label, cfu_vec3(x0, 0, 0), err);
    if (s < 0) return CF_BAD_INPUT;
    cfWorld *w = cfv_run_world(run, s);
    const double ang = 30.0 * CF_PI / 180.0, gap = 1.5 * 2 * RADIUS, len = 1.2, t = 0.05, depth = 0.25;
    cfStatus st = CF_OK;
    for (int side = -1; side <= 1 && st == CF_OK; side += 2) {
        /* a wall whose lower inner edge is at x = side gap/2, z = 0, leaning outwards */
        cfVec3 c = cfu_vec3(side * (gap / 2 + 0.5 * len * sin(ang) + t * cos(ang)), 0, 0.5 * len * cos(ang) - t * sin(ang));
        st = add_fixed_box(w, c, cfu_vec3(t, depth + 0.1, 0.5 * len), side * ang, mu, err);
    }
    for (int side = -1; side <= 1 && st == CF_OK; side += 2)
        st = add_fixed_box(w, cfu_vec3(0, side * (depth + t), 0.6), cfu_vec3(1.0, t, 0.8), 0.0, mu, err);
    cfRng rng;
    cf_rng_seed(&rng, 3); /* a little disorder, the same in both hoppers: a perfect lattice would stand on its own */
    for (int i = 0; i < N_SPHERES && st == CF_OK; ++i) {
        cfRigidBody b;
        st = cf_rigid_init(&b, cf_shape_sphere(RADIUS), 1.0, err);
        if (st != CF_OK) break;
        b.mu = mu;
        int col = i % 6, row = (i / 6) % 2, lay = i / 12;
        b.x = cfu_vec3(-0.5 + 0.2 * col + 0.05 * (lay % 2) + cf_rng_range(&rng, -0.03, 0.03),
                       -0.1 + 0.2 * row + cf_rng_range(&rng, -0.02, 0.02), 0.9 + 0.22 * lay);
        if (cf_world_add_body(w, &b) < 0) st = cf_error_set(err, CF_NO_MEMORY, "out of memory");
    }
    return st;
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    cfStatus st = add_hopper(run, 0.75, "mu = 0.75: jams", -1.6, err);
    if (st == CF_OK) st = add_hopper(run, 0.0, "mu = 0: runs out", 1.6, err);
    if (st != CF_OK) return st;
    for (int k = 0; k < 2; ++k) {
        cfv_run_glass(run, k, 2); /* the front plate: the arch is behind it */
        cfv_run_subject_region(run, k, cfu_vec3(-1.0, -0.35, -0.2), cfu_vec3(1.0, 0.35, 1.4)); /* the hopper */
    }
    cfv_run_subject(run, 0, CFV_ALL); /* the spheres that jam */
    cfv_run_set_camera(run, cfu_zero3(), -90, 15, 0);
    return st;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    for (int i = 0; i < 2; ++i) {
        const cfWorld *w = cfv_run_world(run, i);
        d->out[i] = 0;
        for (int k = 0; k < w->n_bodies; ++k) d->out[i] += !w->bodies[k].fixed && w->bodies[k].x.z < -RADIUS;
    }
    cfv_run_info(run, 0, "spheres out of the hopper: mu 0.75: %d, mu 0: %d (of %d)", d->out[0], d->out[1], N_SPHERES);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    snprintf(msg, cap, "spheres out: with friction %d (want <= %d), without %d (want >= %d)", d->out[0], N_SPHERES / 4,
             d->out[1], 3 * N_SPHERES / 4);
    return d->out[0] <= N_SPHERES / 4 && d->out[1] >= 3 * N_SPHERES / 4 ? 0 : 1;
}

const cfvDemo cfv_demo_ch07_funnel = {
    .id = "ch07/funnel",
    .chapter = 7,
    .title = "Jamming: spheres in a hopper with mu = 0.75 lock into an arch; with mu = 0 they run out (PROX-GS)",
    .point_at = "the opening: on the left a few spheres wedge against the walls and each other and carry the rest; "
                "on the right the same spheres slide past each other and leave",
    .keys = "pause,points,restart",
    .prediction = "after 3.5 s at most a quarter of the spheres left the rough hopper and at least three quarters the smooth one",
    .overlays = "points",
    .steps = 350,
    CFV_DEMO_HOOKS,
};
