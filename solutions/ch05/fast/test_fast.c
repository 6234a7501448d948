/* SPDX-License-Identifier: MIT */
/* Tests of the fast path of chapter 5 (solutions/ch05/fast/): the solver "pgs-fast" must give the
   reference's results (ch05.6) to rounding, solve by solve and step by step. Built and run with
   the reference solutions only (`make test-fast`, part of `make check`); a handout has neither
   the fast path nor these tests. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_rigid_fast.h"
#include "cft.h"
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
    cfError err;
    cft_assert_ok(cf_scene_load(cft_scene_path(scene), &w, NULL, &err));
    w.def.solver = cf_solver_find("pgs");
    for (int s = 0; s < steps; ++s) cft_assert_ok(cf_world_step(&w));
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

/* whole steps (solve and split-impulse stage) of the world with the reference and the fast kind:
   the same trajectory to 1e-9 m over @p steps, with the split-impulse stage at work */
static void fast_world_vs_reference(const char *scene, int steps)
{
    cfWorld w[2];
    cfError err;
    for (int e = 0; e < 2; ++e) {
        cft_assert_ok_at(cf_scene_load(cft_scene_path(scene), &w[e], NULL, &err), "e = %d", e);
        w[e].def.solver = cf_solver_find(e == 0 ? "pgs" : "pgs-fast");
    }
    double dx = 0.0, deepest = 0.0;
    for (int s = 0; s < steps; ++s) {
        for (int e = 0; e < 2; ++e) cft_assert_ok_at(cf_world_step(&w[e]), "e = %d", e);
        for (int a = 0; a < w[1].contacts.count; ++a) deepest = fmin(deepest, w[1].contacts.items[a].phi);
        for (int i = 0; i < w[0].n_bodies; ++i) dx = fmax(dx, cfu_norm(cfu_sub(w[0].bodies[i].x, w[1].bodies[i].x)));
    }
    ck_assert_msg(deepest < -w[1].def.slop, "%s: nothing for the split-impulse stage to do (deepest %g)", scene, deepest);
    ck_assert_msg(dx <= 1e-9, "%s: fast and reference positions differ by %g m", scene, dx);
    cf_world_free(&w[0]);
    cf_world_free(&w[1]);
}

START_TEST(lib_fast_world_matches_reference)
{
    fast_world_vs_reference("ch05_pyramid_20.json", 60);
    fast_world_vs_reference("ch05_dominoes.json", 120);
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

static void build(Suite *s)
{
    TCase *t = cft_tcase_long(s, "fast");
    CFT_TEST(t, fast_is_registered, "the registry lists pgs-fast with the reference's form and measure");
    CFT_TEST(t, lib_fast_pgs_matches_reference, "pgs-fast equals ch05.6 to 1e-10 (same order)");
    CFT_TEST(t, lib_fast_world_matches_reference, "pgs-fast steps as the reference, split impulse included");
    CFT_TEST(t, lib_fast_pgs_pyramid_stands, "pgs-fast: the pyramid stands with the reference's drift");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "fast", build); }
