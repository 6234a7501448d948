/* SPDX-License-Identifier: MIT */
/* Tests of the fast paths of chapter 5 (solutions/ch05/fast/): the solver "pgs-fast" must give the
   reference's results (ch05.6) to rounding, solve by solve and step by step; the soft step
   ("soft-step") must carry the reference's resting loads and keep the tall walls up. Built and
   run with the reference solutions only (`make test-fast`, part of `make check`); a handout has
   neither the fast paths nor these tests. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cf_rigid_fast.h"
#include "cf_soft_step.h"
#include "cft.h"
#include "cf/cf_ch02.h"
#include "cf/cf_ch05.h"
#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

/* largest distance a dynamic body moved over @p steps */
static double run_drift(cfWorld *w, int steps)
{
    cfVec3 *x0 = malloc((size_t)w->n_bodies * sizeof *x0);
    for (int i = 0; i < w->n_bodies; ++i) x0[i] = w->bodies[i].x;
    for (int s = 0; s < steps; ++s) cft_assert_ok(cf_world_step(w));
    double d = 0;
    for (int i = 0; i < w->n_bodies; ++i)
        if (!w->bodies[i].fixed) d = fmax(d, cfu_norm(cfu_sub(w->bodies[i].x, x0[i])));
    free(x0);
    return d;
}

/* scene @p scene after @p steps of the reference PGS: contacts to solve again */
static void load_settled(const char *scene, int steps, cfWorld *w)
{
    cfError err;
    cft_assert_ok(cf_scene_load(cft_scene_path(scene), w, NULL, &err));
    w->def.solver = cf_solver_find("pgs");
    for (int s = 0; s < steps; ++s) cft_assert_ok(cf_world_step(w));
}

START_TEST(fast_is_registered)
{
    const cfSolver *s = cf_solver_find("pgs-fast");
    ck_assert_msg(s == &cf_solver_pgs_fast, "the registry lists the fast row when it is linked");
    ck_assert(s->form == CF_FORM_ROWS && s->split && s->measure == cf_solver_find("pgs")->measure);
}
END_TEST

/* one velocity solve of a scene's contacts after @p steps by the reference (ch05.6) and the fast
   path (solver pgs-fast, same order): same impulses and velocities to 1e-10. The scenes give
   the lane schedule manifolds of 1 to 4 points, fixed and moving bodies, and odd group counts. */
static void fast_vs_reference(const char *scene, int steps, cfFrictionModel model, cfOrdering ordering)
{
    cfWorld w;
    load_settled(scene, steps, &w);
    int nb = w.n_bodies, nc = w.contacts.count;
    ck_assert_int_gt(nc, 20);
    cfRigidBody *b1 = malloc((size_t)nb * sizeof *b1), *b2 = malloc((size_t)nb * sizeof *b2);
    cfContact *c1 = malloc((size_t)nc * sizeof *c1), *c2 = malloc((size_t)nc * sizeof *c2);
    memcpy(b1, w.bodies, (size_t)nb * sizeof *b1);
    memcpy(b2, w.bodies, (size_t)nb * sizeof *b2);
    memcpy(c1, w.contacts.items, (size_t)nc * sizeof *c1);
    memcpy(c2, w.contacts.items, (size_t)nc * sizeof *c2);
    /* a little extra velocity so that friction slides somewhere */
    for (int i = 0; i < nb; ++i)
        if (!b1[i].fixed) b1[i].v = b2[i].v = cfu_add(b1[i].v, cfu_vec3(0.3 * sin(i), 0.2 * cos(i), -0.1));
    cfRigidPgsOptions o = cf_rigid_pgs_options_default();
    o.friction = model;
    o.ordering = ordering;
    o.cfm = 1e-6;
    o.omega = 0.9;
    cfRigidPgs ref = {0};
    cfRigidFast fast = {0};
    cfReport r1, r2;
    cf_report_init(&r1, NULL, 0);
    cf_report_init(&r2, NULL, 0);
    cft_assert_ok(cf_rigid_pgs_prepare(b1, nb, c1, nc, &o, &ref));
    cft_assert_ok(cf_rigid_pgs_solve(b1, nb, c1, nc, &ref, &o, &r1));
    cft_assert_ok(cf_rigid_fast_prepare(b2, nb, c2, nc, &o, &fast));
    cft_assert_ok(cf_rigid_fast_solve(b2, nb, c2, nc, &fast, &o, &r2));
    ck_assert_int_eq(r1.iterations, r2.iterations);
    ck_assert_msg(fabs(r1.residual - r2.residual) <= 1e-10 * fmax(1.0, r1.residual), "residual %g vs %g", r1.residual,
                  r2.residual);
    double dl = 0.0, dv = 0.0;
    for (int a = 0; a < nc; ++a)
        for (int k = 0; k < 3; ++k) dl = fmax(dl, fabs(c1[a].lambda[k] - c2[a].lambda[k]));
    for (int i = 0; i < nb; ++i)
        dv = fmax(dv, fmax(cfu_norm(cfu_sub(b1[i].v, b2[i].v)), cfu_norm(cfu_sub(b1[i].w, b2[i].w))));
    ck_assert_msg(dl <= 1e-10 && dv <= 1e-10, "%s %s/%s: impulses differ by %g, velocities by %g", scene,
                  cf_friction_model_name(model), cf_ordering_name(ordering), dl, dv);
    cf_rigid_pgs_free(&ref);
    cf_rigid_fast_free(&fast);
    free(b1);
    free(b2);
    free(c1);
    free(c2);
    cf_world_free(&w);
}

START_TEST(lib_fast_pgs_matches_reference)
{
    fast_vs_reference("ch05_pyramid_10.json", 30, CF_FRICTION_CONE, CF_ORDER_SEQUENTIAL);
    fast_vs_reference("ch05_pyramid_10.json", 30, CF_FRICTION_BOX, CF_ORDER_SEQUENTIAL);
    fast_vs_reference("ch05_pyramid_10.json", 30, CF_FRICTION_CONE, CF_ORDER_SYMMETRIC);
    fast_vs_reference("ch05_pyramid_10.json", 30, CF_FRICTION_BOX, CF_ORDER_SYMMETRIC);
    fast_vs_reference("ch05_pyramid_10.json", 30, CF_FRICTION_CONE, CF_ORDER_RANDOM);
    /* tumbling dominoes (manifolds of 1, 2 and 4 points), marbles in a box (one point each) */
    fast_vs_reference("ch05_dominoes.json", 90, CF_FRICTION_CONE, CF_ORDER_SEQUENTIAL);
    fast_vs_reference("ch05_dominoes.json", 90, CF_FRICTION_BOX, CF_ORDER_SYMMETRIC);
    fast_vs_reference("ch05_marbles_162.json", 60, CF_FRICTION_CONE, CF_ORDER_SEQUENTIAL);
    fast_vs_reference("ch05_card_house.json", 30, CF_FRICTION_CONE, CF_ORDER_SYMMETRIC);
}
END_TEST

/* whole steps (solve and split-impulse stage) of the world with the reference and the fast kind,
   both with world.split_iterations = @p split: the same trajectory to 1e-9 m over @p steps, with
   the split-impulse stage at work; returns the fast world's positions, 3 per body (caller frees) */
static double *fast_world_vs_reference(const char *scene, int steps, int split)
{
    cfWorld w[2];
    cfError err;
    for (int e = 0; e < 2; ++e) {
        cft_assert_ok_at(cf_scene_load(cft_scene_path(scene), &w[e], NULL, &err), "e = %d", e);
        w[e].def.solver = cf_solver_find(e == 0 ? "pgs" : "pgs-fast");
        w[e].def.split_iterations = split;
    }
    double dx = 0.0, deepest = 0.0;
    for (int s = 0; s < steps; ++s) {
        for (int e = 0; e < 2; ++e) cft_assert_ok_at(cf_world_step(&w[e]), "e = %d", e);
        for (int a = 0; a < w[1].contacts.count; ++a) deepest = fmin(deepest, w[1].contacts.items[a].phi);
        for (int i = 0; i < w[0].n_bodies; ++i) dx = fmax(dx, cfu_norm(cfu_sub(w[0].bodies[i].x, w[1].bodies[i].x)));
    }
    ck_assert_msg(deepest < -w[1].def.slop, "%s: nothing for the split-impulse stage to do (deepest %g)", scene, deepest);
    ck_assert_msg(dx <= 1e-9, "%s, split_iterations %d: fast and reference positions differ by %g m", scene, split, dx);
    double *x = malloc((size_t)3 * w[1].n_bodies * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (int i = 0; i < w[1].n_bodies; ++i) memcpy(&x[3 * i], &w[1].bodies[i].x, 3 * sizeof *x);
    cf_world_free(&w[0]);
    cf_world_free(&w[1]);
    return x;
}

START_TEST(lib_fast_world_matches_reference)
{
    free(fast_world_vs_reference("ch05_pyramid_20.json", 60, 0));
    free(fast_world_vs_reference("ch05_dominoes.json", 120, 0));
}
END_TEST

/* world.split_iterations (the bench's 8 for pgs-fast): the fast path and the reference still step
   alike, and the count reaches the fast split stage (its trajectory differs from the default's) */
START_TEST(lib_fast_world_split_iterations_as_reference)
{
    const char *scene = "ch05_pyramid_20.json";
    double *x8 = fast_world_vs_reference(scene, 60, 8);
    cfWorld w;
    cfError err;
    cft_assert_ok(cf_scene_load(cft_scene_path(scene), &w, NULL, &err));
    w.def.solver = cf_solver_find("pgs-fast");
    for (int s = 0; s < 60; ++s) cft_assert_ok_at(cf_world_step(&w), "step %d", s);
    double dx = 0.0;
    for (int i = 0; i < w.n_bodies; ++i) dx = fmax(dx, cfu_norm(cfu_sub(w.bodies[i].x, cfu_vec3(x8[3 * i], x8[3 * i + 1], x8[3 * i + 2]))));
    ck_assert_msg(dx > 1e-7, "%s: 8 split sweeps and the default 20 end %g m apart: the setting did not reach the stage", scene, dx);
    free(x8);
    cf_world_free(&w);
}
END_TEST

START_TEST(lib_fast_pgs_pyramid_stands)
{
    /* the world's fast kind: the pyramid stands with the same drift as the reference */
    double drift[2];
    for (int e = 0; e < 2; ++e) {
        cfWorld w;
        cfError err;
        cft_assert_ok(cf_scene_load(cft_scene_path("ch05_pyramid_10.json"), &w, NULL, &err));
        w.def.solver = cf_solver_find(e == 0 ? "pgs" : "pgs-fast");
        drift[e] = run_drift(&w, 600);
        cf_world_free(&w);
    }
    ck_assert_msg(drift[1] < 0.01 && fabs(drift[1] - drift[0]) < 1e-6, "fast %g, reference %g", drift[1], drift[0]);
}
END_TEST

/* ---- threads ------------------------------------------------------------------------------- */

/* one solve and one split-impulse stage of a scene's contacts after @p steps, on 1 thread with 2
   lanes and on @p T threads with @p lanes lanes (0: the widest the processor has): the same
   impulses, velocities, pseudo-velocities, sweep count and history, bit for bit (the threads and
   the lanes keep every body's sequential order; docs/performance.md); with @p by_rows the one thread
   makes each row by itself and copies it into its lane (cfRigidFast::fill_by_rows), the other
   makes the rows of a pack in their lanes at once */
/* the sweep order both sides of threads_vs_one_rows() take (cfRigidFast::colored: 1 the rows', 2 colored) */
static int g_order = 1;

static void threads_vs_one_rows(const char *scene, int steps, cfFrictionModel model, double tol, int T, int emulate,
                                int lanes, bool by_rows)
{
    cfWorld w;
    load_settled(scene, steps, &w);
    int nb = w.n_bodies, nc = w.contacts.count;
    cfRigidBody *b[2];
    cfContact *c[2];
    cfRigidFast ws[2] = {{.threads = 1, .lanes = 2, .fill_by_rows = by_rows, .colored = g_order},
                         {.threads = T, .thread_min_contacts = 1, .emulate = emulate, .lanes = lanes, .colored = g_order}};
    double hist[2][64];
    cfReport r[2];
    cfRigidPgsOptions o = cf_rigid_pgs_options_default();
    o.friction = model;
    o.tol = tol;
    for (int e = 0; e < 2; ++e) {
        b[e] = malloc((size_t)nb * sizeof *b[e]);
        c[e] = malloc((size_t)nc * sizeof *c[e]);
        memcpy(b[e], w.bodies, (size_t)nb * sizeof *b[e]);
        memcpy(c[e], w.contacts.items, (size_t)nc * sizeof *c[e]);
        for (int i = 0; i < nb; ++i) /* a push so that friction slides somewhere, and a step deeper in */
            if (!b[e][i].fixed) b[e][i].v = cfu_add(b[e][i].v, cfu_vec3(0.3 * sin(i), 0.2 * cos(i), -0.5));
        cf_report_init(&r[e], hist[e], 64);
        cft_assert_ok_at(cf_rigid_fast_prepare(b[e], nb, c[e], nc, &o, &ws[e]), "e = %d", e);
        cft_assert_ok_at(cf_rigid_fast_solve(b[e], nb, c[e], nc, &ws[e], &o, &r[e]), "e = %d", e);
        cft_assert_ok_at(cf_rigid_fast_pseudo_velocities(c[e], &ws[e], o.h, 0.2, 0.0, 10), "e = %d", e);
    }
    /* asked for 2: 2; asked for 4 or the default: the widest this processor and build have */
    ck_assert_msg(ws[0].lanes == 2 && ws[1].lanes == (lanes == 2 ? 2 : cf_fast_lanes()), "lanes %d and %d (asked %d)",
                  ws[0].lanes, ws[1].lanes, lanes);
    ck_assert_msg(r[0].iterations == r[1].iterations && r[0].iterations > 0, "%s: %d sweeps on 1 thread, %d on %d",
                  scene, r[0].iterations, r[1].iterations, T);
    ck_assert_msg(tol == 0.0 || r[0].reason == CF_STOP_STAGNATION, "%s: tol %g never reached", scene, tol);
    if (getenv("CFT_SHOW_SWEEPS")) fprintf(stderr, "%s tol %g: %d sweeps\n", scene, tol, r[0].iterations);
    ck_assert_msg(r[0].reason == r[1].reason && memcmp(hist[0], hist[1], (size_t)r[0].iterations * sizeof(double)) == 0,
                  "%s: the residual history on %d threads, %d lanes differs from 1 thread, 2 lanes", scene, T, ws[1].lanes);
    /* the final residual (it only reports): the same sum to rounding, added in the order of the
       schedule's groups, which other threads and lanes form otherwise */
    ck_assert_msg(fabs(r[0].residual - r[1].residual) <= 1e-12 * r[0].residual,
                  "%s: the final residual on %d threads, %d lanes (%.17g) differs from 1 thread, 2 lanes (%.17g)", scene, T,
                  ws[1].lanes, r[1].residual, r[0].residual);
    for (int a = 0; a < nc; ++a)
        ck_assert_msg(memcmp(c[0][a].lambda, c[1][a].lambda, sizeof c[0][a].lambda) == 0,
                      "%s, %s, %d threads, %d lanes: contact %d's impulse differs", scene, cf_friction_model_name(model), T,
                      ws[1].lanes, a);
    bool pushed = false;
    for (int i = 0; i < nb; ++i) {
        ck_assert_msg(memcmp(&b[0][i].v, &b[1][i].v, sizeof(cfVec3)) == 0 && memcmp(&b[0][i].w, &b[1][i].w, sizeof(cfVec3)) == 0,
                      "%s, %d threads, %d lanes: body %d's velocity differs", scene, T, ws[1].lanes, i);
        pushed |= ws[0].pv[6 * i + 2] != 0.0;
    }
    ck_assert_msg(pushed, "%s: nothing for the split-impulse sweeps to do", scene);
    ck_assert_msg(memcmp(ws[0].pv, ws[1].pv, (size_t)6 * nb * sizeof *ws[0].pv) == 0,
                  "%s, %d threads, %d lanes: pseudo-velocities differ", scene, T, ws[1].lanes);
    for (int e = 0; e < 2; ++e) {
        cf_rigid_fast_free(&ws[e]);
        free(b[e]);
        free(c[e]);
    }
    cf_world_free(&w);
}

static void threads_vs_one(const char *scene, int steps, cfFrictionModel model, double tol, int T, int emulate, int lanes)
{
    threads_vs_one_rows(scene, steps, model, tol, T, emulate, lanes, false);
}

/* tolerances at which pyramid 20's solve in threads_vs_one() stops after 3, 5, 8 and 19 sweeps */
static const double PYRAMID_TOL[4] = {8e-2, 5e-2, 3e-2, 2e-2};

START_TEST(fast_threads_solve_as_one)
{
    threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_CONE, 0.0, 2, 0, 0);
    threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_BOX, 0.0, 3, 0, 2);
    threads_vs_one("ch05_grid_10x10x10.json", 10, CF_FRICTION_CONE, 0.0, 2, 0, 0);
    threads_vs_one("ch05_grid_10x10x10.json", 10, CF_FRICTION_CONE, 0.0, 2, 0, 2); /* the residual of two threads' finish, two lanes */
    threads_vs_one("ch05_grid_10x10x10.json", 10, CF_FRICTION_CONE, 3e-2, 2, 0, 0); /* all threads stop at the same sweep */
    /* a wall whose slabs' changes fall below the tolerance at different sweeps: a thread whose own
       change is small waits for the others' before it stops, and all stop alike */
    for (int k = 0; k < 4; ++k) threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_CONE, PYRAMID_TOL[k], 2, 0, 0);
    threads_vs_one("ch05_dominoes.json", 90, CF_FRICTION_CONE, 0.0, 4, 0, 0);
}
END_TEST

/* the waits, whatever the timing: the threads' shares interleaved on one thread, each thread running
   as far ahead of the others as its waits let it (cfRigidFast::emulate); a wait left out makes
   some pair run before one that comes first on its body, and the impulses differ */
START_TEST(fast_threads_waits_suffice)
{
    for (int policy = 1; policy <= 2; ++policy) {
        threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_CONE, 0.0, 2, policy, 0);
        threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_CONE, 0.0, 3, policy, 0);
        threads_vs_one("ch05_grid_10x10x10.json", 10, CF_FRICTION_CONE, 0.0, 4, policy, 0);
        threads_vs_one("ch05_dominoes.json", 90, CF_FRICTION_BOX, 0.0, 2, policy, 2);
    }
}
END_TEST

/* four lanes (AVX2) against two on one thread: the same sweeps, bit for bit. Without AVX2 (or a
   GCC build for x86-64) the solver keeps two lanes, and this compares two against two. */
START_TEST(fast_lanes_solve_as_one)
{
    if (cf_fast_lanes() == 2) fprintf(stderr, "fast_lanes_solve_as_one: this processor or build has two lanes only\n");
    threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_CONE, 0.0, 1, 0, 4);
    threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_BOX, 0.0, 1, 0, 4);
    threads_vs_one("ch05_grid_10x10x10.json", 10, CF_FRICTION_CONE, 3e-2, 1, 0, 4);
    threads_vs_one("ch05_dominoes.json", 90, CF_FRICTION_CONE, 0.0, 1, 0, 4);
    setenv("CF_FAST_LANES", "2", 1);
    ck_assert_int_eq(cf_fast_lanes(), 2);
    unsetenv("CF_FAST_LANES");
}
END_TEST

/* the rows of a pack made in their lanes at once (vector arithmetic, a fixed body's terms selected
   to zero, padding lanes) against each row made by itself (fill_row()) and copied into its lane:
   the same sweeps, bit for bit, on two lanes and on the widest; the scenes have fixed and moving
   bodies, manifolds of 1 to 4 points (padding lanes) and sliding contacts */
START_TEST(fast_lane_rows_as_rows)
{
    for (int lanes = 2; lanes <= 4; lanes += 2) {
        threads_vs_one_rows("ch05_pyramid_20.json", 20, CF_FRICTION_CONE, 0.0, 1, 0, lanes, true);
        threads_vs_one_rows("ch05_dominoes.json", 90, CF_FRICTION_BOX, 0.0, 1, 0, lanes, true);
        threads_vs_one_rows("ch05_dominoes.json", 90, CF_FRICTION_CONE, 0.0, 1, 0, lanes, true);
        threads_vs_one_rows("ch05_marbles_162.json", 60, CF_FRICTION_CONE, 0.0, 1, 0, lanes, true);
    }
}
END_TEST

/* ---- the colored order (cfRigidFast::colored = 2) ------------------------------------------- */

/* the colored order of @p nc contacts on one thread against the rows' order of the contacts
   permuted by it (cf_rigid_fast_order()): the same sweep, bit for bit (impulses, velocities,
   history, final residual, pseudo-velocities); the reference (ch05.6) on the permuted contacts to
   1e-10; and the order is a coloring: colors rise along it, and no two pairs of one color (the
   overflow CF_FAST_COLORS aside) share a moving body. Returns the colors used. */
static int colored_vs_rows_of_its_order(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc)
{
    cfRigidBody *b[3];
    cfContact *c[3];
    int *order = malloc((size_t)nc * sizeof *order), *color = malloc((size_t)nc * sizeof *color);
    int *owner = malloc((size_t)nb * sizeof *owner);
    cfRigidFast ws[2] = {{.threads = 1, .colored = 2}, {.threads = 1, .colored = 1}};
    cfRigidPgs ref = {0};
    double hist[3][64];
    cfReport r[3];
    cfRigidPgsOptions o = cf_rigid_pgs_options_default();
    for (int e = 0; e < 3; ++e) {
        b[e] = malloc((size_t)nb * sizeof *b[e]);
        c[e] = malloc((size_t)nc * sizeof *c[e]);
        memcpy(b[e], bodies, (size_t)nb * sizeof *b[e]);
        for (int i = 0; i < nb; ++i) /* a push so that friction slides somewhere, and a step deeper in */
            if (!b[e][i].fixed) b[e][i].v = cfu_add(b[e][i].v, cfu_vec3(0.3 * sin(i), 0.2 * cos(i), -0.5));
        cf_report_init(&r[e], hist[e], 64);
    }
    memcpy(c[0], contacts, (size_t)nc * sizeof *c[0]);
    cft_assert_ok(cf_rigid_fast_prepare(b[0], nb, c[0], nc, &o, &ws[0]));
    int colors = cf_rigid_fast_order(&ws[0], order, color);
    ck_assert_int_ge(colors, 1);
    for (int k = 0; k < nc; ++k) c[1][k] = c[2][k] = contacts[order[k]];
    /* a permutation, colors rising, a color's pairs on distinct moving bodies */
    for (int i = 0; i < nb; ++i) owner[i] = -1;
    for (int k = 0; k < nc; ++k) {
        ck_assert_msg(order[k] >= 0 && order[k] < nc && (k == 0 || color[k] >= color[k - 1]), "position %d", k);
        bool new_pair = k == 0 || c[1][k].body_a != c[1][k - 1].body_a || c[1][k].body_b != c[1][k - 1].body_b;
        int side[2] = {c[1][k].body_a, c[1][k].body_b};
        for (int j = 0; j < 2 && new_pair && color[k] < CF_FAST_COLORS; ++j) {
            int x = side[j];
            if (x < 0 || bodies[x].fixed) continue;
            ck_assert_msg(owner[x] != color[k], "color %d holds two pairs on body %d", color[k], x);
            owner[x] = color[k];
        }
    }
    for (int k = 0; k < nc; ++k) color[k] = 0; /* each contact once */
    for (int k = 0; k < nc; ++k) ck_assert_msg(color[order[k]]++ == 0, "contact %d twice in the order", order[k]);
    cft_assert_ok(cf_rigid_fast_solve(b[0], nb, c[0], nc, &ws[0], &o, &r[0]));
    cft_assert_ok(cf_rigid_fast_pseudo_velocities(c[0], &ws[0], o.h, 0.2, 0.0, 10));
    cft_assert_ok(cf_rigid_fast_prepare(b[1], nb, c[1], nc, &o, &ws[1]));
    cft_assert_ok(cf_rigid_fast_solve(b[1], nb, c[1], nc, &ws[1], &o, &r[1]));
    cft_assert_ok(cf_rigid_fast_pseudo_velocities(c[1], &ws[1], o.h, 0.2, 0.0, 10));
    cft_assert_ok(cf_rigid_pgs_prepare(b[2], nb, c[2], nc, &o, &ref));
    cft_assert_ok(cf_rigid_pgs_solve(b[2], nb, c[2], nc, &ref, &o, &r[2]));
    ck_assert_msg(r[0].iterations == r[1].iterations &&
                      memcmp(hist[0], hist[1], (size_t)r[0].iterations * sizeof(double)) == 0 && r[0].residual == r[1].residual,
                  "the colored order's history or residual (%.17g) differs from the rows' order of its permutation (%.17g)",
                  r[0].residual, r[1].residual);
    double dl = 0.0, dv = 0.0;
    for (int k = 0; k < nc; ++k) {
        ck_assert_msg(memcmp(c[0][order[k]].lambda, c[1][k].lambda, sizeof c[1][k].lambda) == 0,
                      "contact %d (position %d)'s impulse differs from the rows' order of the permutation", order[k], k);
        for (int j = 0; j < 3; ++j) dl = fmax(dl, fabs(c[2][k].lambda[j] - c[1][k].lambda[j]));
    }
    for (int i = 0; i < nb; ++i) {
        ck_assert_msg(memcmp(&b[0][i].v, &b[1][i].v, sizeof(cfVec3)) == 0 && memcmp(&b[0][i].w, &b[1][i].w, sizeof(cfVec3)) == 0,
                      "body %d's velocity differs from the rows' order of the permutation", i);
        dv = fmax(dv, fmax(cfu_norm(cfu_sub(b[2][i].v, b[1][i].v)), cfu_norm(cfu_sub(b[2][i].w, b[1][i].w))));
    }
    ck_assert_msg(memcmp(ws[0].pv, ws[1].pv, (size_t)6 * nb * sizeof *ws[0].pv) == 0, "pseudo-velocities differ");
    ck_assert_msg(dl <= 1e-10 && dv <= 1e-10, "the reference in the colored order: impulses differ by %g, velocities by %g", dl, dv);
    cf_rigid_pgs_free(&ref);
    for (int e = 0; e < 3; ++e) {
        if (e < 2) cf_rigid_fast_free(&ws[e]);
        free(b[e]);
        free(c[e]);
    }
    free(order);
    free(color);
    free(owner);
    return colors;
}

/* the scenes' contacts after some steps: the colored order is the rows' sweep of its permutation;
   a wall takes a handful of colors (moving neighbours: 2 below, 2 above, 2 beside) */
START_TEST(fast_colored_is_the_rows_sweep_of_its_order)
{
    static const struct {
        const char *scene;
        int steps, most_colors;
    } cases[] = {{"ch05_pyramid_20.json", 20, 8}, {"ch05_dominoes.json", 90, 8}, {"ch05_marbles_162.json", 60, 12}};
    for (int k = 0; k < 3; ++k) {
        cfWorld w;
        load_settled(cases[k].scene, cases[k].steps, &w);
        int colors = colored_vs_rows_of_its_order(w.bodies, w.n_bodies, w.contacts.items, w.contacts.count);
        ck_assert_msg(colors >= (k == 0 ? 4 : 1) && colors <= cases[k].most_colors, "%s: %d colors", cases[k].scene, colors);
        cf_world_free(&w);
    }
}
END_TEST

/* a body touching 40 others: 24 colors, then the overflow (pairs on one body, visited last in the
   rows' order); on 2 and 3 threads the impulses of one, and the rows' sweep of its order */
START_TEST(fast_colored_overflow)
{
    cfWorld w;
    load_settled("ch05_pyramid_10.json", 1, &w);
    ck_assert_int_ge(w.n_bodies, 42);
    int hub = -1, nc = 0;
    for (int i = 0; i < w.n_bodies && hub < 0; ++i)
        if (!w.bodies[i].fixed) hub = i;
    cfContact c[80];
    for (int i = 0; i < w.n_bodies && nc < 80; ++i) {
        if (i == hub || w.bodies[i].fixed) continue;
        for (int p = 0; p < 2; ++p) { /* two points per pair, the hub below */
            cfContact *x = &c[nc++];
            memset(x, 0, sizeof *x);
            x->body_a = hub;
            x->body_b = i;
            x->p = cfu_add(w.bodies[i].x, cfu_vec3(0.1 * p, 0.05, -0.2));
            x->n = cfu_vec3(0, 0, 1);
            x->t = cfu_vec3(1, 0, 0);
            x->b = cfu_vec3(0, 1, 0);
            x->phi = -1e-3 * (1 + p);
            x->mu = 0.5;
        }
    }
    ck_assert_int_eq(nc, 80);
    ck_assert_int_eq(colored_vs_rows_of_its_order(w.bodies, w.n_bodies, c, nc), CF_FAST_COLORS + 1);
    /* threads: the overflow's pairs wait for each other across threads */
    cfRigidBody *b[3];
    cfContact cc[3][80];
    cfRigidFast ws[3] = {{.threads = 1, .colored = 2}, {.threads = 2, .thread_min_contacts = 1, .colored = 2},
                         {.threads = 3, .thread_min_contacts = 1, .colored = 2, .emulate = 1}};
    cfRigidPgsOptions o = cf_rigid_pgs_options_default();
    for (int e = 0; e < 3; ++e) {
        b[e] = malloc((size_t)w.n_bodies * sizeof *b[e]);
        memcpy(b[e], w.bodies, (size_t)w.n_bodies * sizeof *b[e]);
        memcpy(cc[e], c, sizeof c);
        cft_assert_ok_at(cf_rigid_fast_prepare(b[e], w.n_bodies, cc[e], nc, &o, &ws[e]), "e = %d", e);
        cft_assert_ok_at(cf_rigid_fast_solve(b[e], w.n_bodies, cc[e], nc, &ws[e], &o, NULL), "e = %d", e);
    }
    for (int e = 1; e < 3; ++e) {
        for (int a = 0; a < nc; ++a)
            ck_assert_msg(memcmp(cc[0][a].lambda, cc[e][a].lambda, sizeof c[a].lambda) == 0, "%d threads: contact %d", 1 + e, a);
        for (int i = 0; i < w.n_bodies; ++i)
            ck_assert_msg(memcmp(&b[0][i].v, &b[e][i].v, sizeof(cfVec3)) == 0, "%d threads: body %d", 1 + e, i);
    }
    for (int e = 0; e < 3; ++e) {
        cf_rigid_fast_free(&ws[e]);
        free(b[e]);
    }
    cf_world_free(&w);
}
END_TEST

/* the colored order on 2, 3 and 4 threads (run, and run as far ahead as the waits let, on one):
   the impulses, velocities, pseudo-velocities and history of one thread, bit for bit */
START_TEST(fast_colored_threads_as_one)
{
    g_order = 2;
    threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_CONE, 0.0, 2, 0, 0);
    threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_BOX, 0.0, 3, 0, 2);
    threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_CONE, PYRAMID_TOL[1], 2, 0, 0);
    threads_vs_one("ch05_grid_10x10x10.json", 10, CF_FRICTION_CONE, 0.0, 4, 0, 0);
    threads_vs_one("ch05_dominoes.json", 90, CF_FRICTION_CONE, 0.0, 4, 0, 0);
    for (int policy = 1; policy <= 2; ++policy) {
        threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_CONE, 0.0, 2, policy, 0);
        threads_vs_one("ch05_pyramid_20.json", 20, CF_FRICTION_CONE, 0.0, 4, policy, 0);
    }
    g_order = 1;
}
END_TEST

/* whole world steps with CF_THREADS=1 and two lanes (CF_FAST_LANES=2), and with CF_THREADS=2 and
   the widest lanes: the same trajectory, bit for bit, in the rows' order and in the colored one */
START_TEST(fast_threads_world_as_one)
{
    static const char *const scenes[] = {"ch05_pyramid_20.json", "ch05_grid_10x10x10.json"};
    for (int k = 0; k < 4; ++k) { /* the rows' order, then the colored one (CF_FAST_ORDER) */
        if (k == 2) setenv("CF_FAST_ORDER", "colored", 1);
        cfWorld w[2];
        cfError err;
        for (int e = 0; e < 2; ++e) {
            setenv("CF_THREADS", e == 0 ? "1" : "2", 1); /* both read by the solver's first prepare */
            if (e == 0) setenv("CF_FAST_LANES", "2", 1);
            else unsetenv("CF_FAST_LANES");
            cft_assert_ok_at(cf_scene_load(cft_scene_path(scenes[k % 2]), &w[e], NULL, &err), "k = %d, e = %d", k, e);
            w[e].def.solver = cf_solver_find("pgs-fast");
            for (int s = 0; s < 40; ++s) cft_assert_ok_at(cf_world_step(&w[e]), "e = %d", e);
        }
        unsetenv("CF_THREADS");
        for (int i = 0; i < w[0].n_bodies; ++i)
            ck_assert_msg(memcmp(&w[0].bodies[i].x, &w[1].bodies[i].x, sizeof(cfVec3)) == 0 &&
                              memcmp(&w[0].bodies[i].q, &w[1].bodies[i].q, sizeof w[0].bodies[i].q) == 0,
                          "%s, %s order: body %d differs after 40 steps on 2 threads", scenes[k % 2], k < 2 ? "rows'" : "colored", i);
        cf_world_free(&w[0]);
        cf_world_free(&w[1]);
    }
    unsetenv("CF_FAST_ORDER");
}
END_TEST

/* cfSolver::velocities: the fast solve leaves the bodies at its own sweeps' velocities, which equal
   the world's one apply u* + M^-1 J^T lambda (cf_rigid_apply_impulses()) to rounding; and its split
   stage's bias pass, which reads the normal velocities the solve's last pass kept, gives the
   pseudo-velocities of the pass that computes them again, bit for bit */
START_TEST(fast_own_velocities_as_apply)
{
    cfWorld w;
    load_settled("ch05_pyramid_20.json", 20, &w);
    int nb = w.n_bodies, nc = w.contacts.count;
    ck_assert(cf_solver_pgs_fast.velocities && !cf_solver_find("pgs")->velocities);
    cfRigidBody *b = malloc((size_t)nb * sizeof *b), *ref = malloc((size_t)nb * sizeof *ref);
    cfContact *c = malloc((size_t)nc * sizeof *c);
    memcpy(b, w.bodies, (size_t)nb * sizeof *b);
    memcpy(c, w.contacts.items, (size_t)nc * sizeof *c);
    for (int i = 0; i < nb; ++i) /* a push, so that the split stage has penetrations to remove */
        if (!b[i].fixed) b[i].v = cfu_add(b[i].v, cfu_vec3(0.3 * sin(i), 0.2 * cos(i), -0.5));
    memcpy(ref, b, (size_t)nb * sizeof *ref);
    cfRigidBody *b0 = malloc((size_t)nb * sizeof *b0);
    memcpy(b0, b, (size_t)nb * sizeof *b0);
    cfRigidFast ws = {.threads = 1};
    cfRigidPgsOptions o = cf_rigid_pgs_options_default();
    cft_assert_ok(cf_rigid_fast_prepare(b, nb, c, nc, &o, &ws));
    cft_assert_ok(cf_rigid_fast_solve(b, nb, c, nc, &ws, &o, NULL));
    double *lam = malloc((size_t)3 * nc * sizeof *lam);
    for (int a = 0; a < nc; ++a) memcpy(&lam[3 * a], c[a].lambda, 3 * sizeof *lam);
    cft_assert_ok(cf_rigid_apply_impulses(ref, nb, c, nc, lam));
    double dv = 0.0, vmax = 0.0;
    for (int i = 0; i < nb; ++i) {
        dv = fmax(dv, fmax(cfu_norm(cfu_sub(b[i].v, ref[i].v)), cfu_norm(cfu_sub(b[i].w, ref[i].w))));
        vmax = fmax(vmax, fmax(cfu_norm(ref[i].v), cfu_norm(ref[i].w)));
    }
    ck_assert_msg(vmax > 0.1 && dv <= 1e-12 * vmax, "the solve's own velocities and the apply's differ by %g (|v| up to %g)", dv,
                  vmax);
    double *pv = malloc((size_t)6 * nb * sizeof *pv);
    ck_assert(ws.vel_solved);
    cft_assert_ok(cf_rigid_fast_pseudo_velocities(c, &ws, o.h, 0.2, 0.0, 10));
    memcpy(pv, ws.pv, (size_t)6 * nb * sizeof *pv);
    bool pushed = false;
    for (int i = 0; i < 6 * nb; ++i) pushed |= pv[i] != 0.0;
    ck_assert_msg(pushed, "nothing for the split-impulse sweeps to do");
    /* the same solve in a second work space, whose bias pass computes u_n itself */
    memcpy(b, b0, (size_t)nb * sizeof *b);
    memcpy(c, w.contacts.items, (size_t)nc * sizeof *c);
    cfRigidFast ws2 = {.threads = 1};
    cft_assert_ok(cf_rigid_fast_prepare(b, nb, c, nc, &o, &ws2));
    cft_assert_ok(cf_rigid_fast_solve(b, nb, c, nc, &ws2, &o, NULL));
    ws2.vel_solved = false;
    cft_assert_ok(cf_rigid_fast_pseudo_velocities(c, &ws2, o.h, 0.2, 0.0, 10));
    ck_assert_msg(memcmp(pv, ws2.pv, (size_t)6 * nb * sizeof *pv) == 0, "the kept normal velocities give other pseudo-velocities");
    cf_rigid_fast_free(&ws);
    cf_rigid_fast_free(&ws2);
    free(pv);
    free(lam);
    free(b);
    free(b0);
    free(ref);
    free(c);
    cf_world_free(&w);
}
END_TEST

/* pgs-fast with world.certify "always" (its residual computed at the bodies' velocities, which are
   the solve's own) and "claims" (not computed): the same trajectory, bit for bit */
START_TEST(fast_certify_keeps_the_trajectory)
{
    cfWorld w[2];
    cfError err;
    for (int e = 0; e < 2; ++e) {
        cft_assert_ok_at(cf_scene_load(cft_scene_path("ch05_pyramid_20.json"), &w[e], NULL, &err), "e = %d", e);
        w[e].def.solver = cf_solver_find("pgs-fast");
        w[e].def.certify = e == 0 ? CF_CERTIFY_ALWAYS : CF_CERTIFY_CLAIMS;
        for (int s = 0; s < 30; ++s) cft_assert_ok_at(cf_world_step(&w[e]), "e = %d, step %d", e, s);
    }
    ck_assert_msg(isfinite(w[0].stats.solver_common) && isnan(w[1].stats.solver_common), "always %g, claims %g",
                  w[0].stats.solver_common, w[1].stats.solver_common);
    for (int i = 0; i < w[0].n_bodies; ++i)
        ck_assert_msg(memcmp(&w[0].bodies[i].x, &w[1].bodies[i].x, sizeof(cfVec3)) == 0 &&
                          memcmp(&w[0].bodies[i].v, &w[1].bodies[i].v, sizeof(cfVec3)) == 0,
                      "body %d differs after 30 steps between certify always and claims", i);
    cf_world_free(&w[0]);
    cf_world_free(&w[1]);
}
END_TEST

/* ---- the soft step ------------------------------------------------------------------------ */

START_TEST(soft_step_is_registered)
{
    const cfSolver *s = cf_solver_find("soft-step");
    ck_assert_msg(s == &cf_solver_soft_step, "the registry lists the soft step when it is linked");
    ck_assert(s->form == CF_FORM_ROWS && s->split && s->prepare && s->release);
}
END_TEST

START_TEST(soft_step_softness_is_implicit_euler)
{
    /* one update of a row of effective mass m from lambda = 0 is implicit Euler on the spring-damper
       m C'' = -k C - c C' (k = m omega^2, c = 2 zeta omega m): m (v1 - v0) = h (-k C1 - c v1)
       with C1 = C0 + h v1; and from any accumulated impulse the update lands on the same answer */
    const double m = 2.0, C0 = -0.01, v0 = -0.3;
    const double cases[3][3] = {{30.0, 10.0, 1.0 / 240}, {150.0, 1.0, 1.0 / 600}, {5.0, 0.0, 1.0 / 60}};
    for (int i = 0; i < 3; ++i) {
        double hz = cases[i][0], zeta = cases[i][1], h = cases[i][2], omega = 2.0 * acos(-1.0) * hz;
        cfSoftness sf = cf_softness(hz, zeta, h);
        double lam = -m * sf.mass_scale * (v0 + sf.bias_rate * C0);
        double v1 = v0 + lam / m, C1 = C0 + h * v1;
        double res = m * (v1 - v0) - h * (-m * omega * omega * C1 - 2.0 * zeta * omega * m * v1);
        ck_assert_msg(fabs(res) <= 1e-12, "case %d: implicit Euler residual %g", i, res);
        double acc = 0.3 * lam, vn = v0 + acc / m;
        double inc = -m * sf.mass_scale * (vn + sf.bias_rate * C0) - sf.impulse_scale * acc;
        ck_assert_msg(fabs(acc + inc - lam) <= 1e-12 * fabs(lam), "case %d: %g then %g, not %g", i, acc, inc, lam);
    }
}
END_TEST

/* the vertical impulse through each horizontal interface of a resting wall of unit cubes
   (interface r: under row r; 0 is the ground), summed over its contacts */
static void interface_loads(const cfWorld *w, double *load, int layers)
{
    for (int r = 0; r < layers; ++r) load[r] = 0.0;
    for (int a = 0; a < w->contacts.count; ++a) {
        const cfContact *c = &w->contacts.items[a];
        if (fabs(c->n.z) < 0.9) continue; /* side faces */
        double za = c->body_a >= 0 && !w->bodies[c->body_a].fixed ? w->bodies[c->body_a].x.z : 0.0;
        double zb = c->body_b >= 0 && !w->bodies[c->body_b].fixed ? w->bodies[c->body_b].x.z : 0.0;
        int r = (int)lround(fmax(za, zb) - 0.5);
        cft_assert_int_at(r, >=, 0, "contact %d", a);
        cft_assert_int_at(r, <, layers, "contact %d", a);
        load[r] += c->lambda[0] * fabs(c->n.z);
    }
}

START_TEST(soft_step_resting_loads_match_reference)
{
    /* A wall at rest carries through each interface the weight above it, whatever the solver; the
       split among the points of a face is not unique, the sum through an interface is. After 2 s
       the soft step and the reference PGS carry it within 1 % of the weight and of each other
       (the boxes still move by mm/s: their momentum change is that small share). */
    const int L = 10;
    double load[2][10];
    for (int e = 0; e < 2; ++e) {
        cfWorld w;
        cfError err;
        cft_assert_ok(cf_scene_load(cft_scene_path("ch05_pyramid_10.json"), &w, NULL, &err));
        w.def.solver = cf_solver_find(e == 0 ? "pgs" : "soft-step");
        for (int s = 0; s < 120; ++s) cft_assert_ok_at(cf_world_step(&w), "e = %d, step %d", e, s);
        interface_loads(&w, load[e], L);
        double mgh = 9.81 * w.def.dt;
        for (int r = 0; r < L; ++r) {
            int above = (L - r) * (L - r + 1) / 2; /* rows r..L-1 hold L - r, ..., 1 boxes */
            double want = above * mgh;
            ck_assert_msg(fabs(load[e][r] - want) <= 0.01 * want, "%s interface %d: %g N s, weight above %g",
                              e == 0 ? "pgs" : "soft-step", r, load[e][r], want);
        }
        cf_world_free(&w);
    }
    for (int r = 0; r < L; ++r)
        ck_assert_msg(fabs(load[1][r] - load[0][r]) <= 0.01 * load[0][r], "interface %d: soft %g, reference %g", r,
                      load[1][r], load[0][r]);
}
END_TEST

START_TEST(soft_step_refuses_baumgarte)
{
    /* the substeps' positions reach the world through the split-impulse stage only */
    cfWorld w;
    cfError err;
    cft_assert_ok(cf_scene_load(cft_scene_path("ch05_stack_10.json"), &w, NULL, &err));
    w.def.solver = cf_solver_find("soft-step");
    w.def.stabilization = CF_STAB_BAUMGARTE;
    ck_assert_int_eq(cf_world_step(&w), CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "stabilization: solver 'soft-step'") && strstr(w.error.msg, "\"split\""), "%s",
                  w.error.msg);
    ck_assert_int_eq(cf_world_def_check(&w.def, &err), CF_BAD_INPUT); /* a scene says so when it is loaded */
    cf_world_free(&w);
}
END_TEST

START_TEST(soft_step_pyramid_50_holds)
{
    /* the catalogue's prediction (scenes/ch05_pyramid_50.json: the soft step at 40 iterations) at a
       reduced step count: in 12 steps (0.2 s) the soft contacts (time constant 2 zeta / omega =
       0.03 s) have taken their sag, most of the drift of the 10 s that bench-sim runs. Kept short:
       14900 contacts, and make check runs it under AddressSanitizer too. */
    cfWorld w;
    cfError err;
    cft_assert_ok(cf_scene_load(cft_scene_path("ch05_pyramid_50.json"), &w, NULL, &err));
    ck_assert_msg(w.def.solver == &cf_solver_soft_step && w.def.solver_iterations == 40, "the scene's own setting");
    double d = run_drift(&w, 12);
    ck_assert_msg(d <= 0.05, "a box moved %g m in 0.2 s", d);
    cf_world_free(&w);
}
END_TEST

/* chapter 9's sparse path (solutions/ch09/fast/test_ipc_sparse.c) shares this reference-only binary */
void cft_ipc_sparse_tests(Suite *s);
/* chapter 6's sparse Newton (solutions/ch06/fast/test_newton_sparse.c), likewise */
void cft_newton_sparse_tests(Suite *s);

static void build(Suite *s)
{
    cft_ipc_sparse_tests(s);
    cft_newton_sparse_tests(s);
    TCase *t = cft_tcase_long(s, "fast");
    CFT_TEST(t, fast_is_registered, "the registry lists pgs-fast with the reference's form and measure");
    CFT_TEST(t, lib_fast_pgs_matches_reference, "pgs-fast equals ch05.6 to 1e-10 (same order)");
    CFT_TEST(t, lib_fast_world_matches_reference, "pgs-fast steps as the reference, split impulse included");
    CFT_TEST(t, lib_fast_world_split_iterations_as_reference, "pgs-fast with 8 split sweeps steps as the reference with 8");
    /* the long runs, release build only: under ASan the comparisons with the reference above run
       the same code, and cfview's ASan pass steps the 50-layer wall */
    TCase *h = cft_tcase_heavy(s, "fast-heavy");
    CFT_TEST(h, lib_fast_pgs_pyramid_stands, "pgs-fast: the pyramid stands with the reference's drift");
    CFT_TEST(t, fast_threads_solve_as_one, "pgs-fast on 2, 3 and 4 threads: the impulses of 1 thread, bit for bit");
    CFT_TEST(t, fast_threads_waits_suffice, "pgs-fast's threads run ahead of each other as far as they may: still one thread's impulses");
    CFT_TEST(t, fast_lanes_solve_as_one, "pgs-fast with four lanes (AVX2): the impulses of two, bit for bit");
    CFT_TEST(t, fast_lane_rows_as_rows, "pgs-fast's rows made in their lanes at once: the impulses of rows made one by one, bit for bit");
    CFT_TEST(t, fast_own_velocities_as_apply, "pgs-fast's own velocities: the world's apply to 1e-12, its split bias pass bit for bit");
    CFT_TEST(t, fast_certify_keeps_the_trajectory, "pgs-fast under certify always and claims: the same trajectory, bit for bit");
    CFT_TEST(t, fast_colored_is_the_rows_sweep_of_its_order, "pgs-fast's colored order: the rows' sweep of the contacts it permutes, bit for bit; a coloring");
    CFT_TEST(t, fast_colored_overflow, "pgs-fast's colored order past 24 colors: the overflow last, one thread's impulses on 2 and 3");
    CFT_TEST(t, fast_colored_threads_as_one, "pgs-fast's colored order on 2, 3 and 4 threads: the impulses of 1 thread, bit for bit");
    CFT_TEST(t, fast_threads_world_as_one, "pgs-fast on 2 threads, widest lanes: the trajectory of 1 thread, 2 lanes, bit for bit (both orders)");
    CFT_TEST(t, soft_step_is_registered, "the registry lists soft-step, a rows solver with its own position stage");
    CFT_TEST(t, soft_step_softness_is_implicit_euler, "soft-step: the soft update is implicit Euler on the spring-damper");
    CFT_TEST(t, soft_step_resting_loads_match_reference, "soft-step: a resting wall's interface loads are the reference's");
    CFT_TEST(h, soft_step_pyramid_50_holds, "soft-step: the 50-layer wall takes its sag within 5 cm (12 steps)");
    CFT_TEST(t, soft_step_refuses_baumgarte, "soft-step: Baumgarte stabilization is refused with the solver named");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "fast", build); }
