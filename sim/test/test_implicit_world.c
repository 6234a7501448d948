/* SPDX-License-Identifier: MIT */
/* The world's implicit-soft pipeline (paper 003, exercise ch09.7, in the world): a particle that
   Coulomb's law would hold on the incline creeps at the speed the smoothed friction sets (closed
   form), a world step is cf_implicit_step() on the same system built by hand (bit for bit, BDF2's
   history included), and bad settings or bodies are refused with the field named. Run with the
   reference solutions (`make test-sim IMPL=solutions`). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_ch09.h"
#include "cf/cf_scene.h"
#include "cf/cf_world.h"
#include "scene_support.h"

static void load(const char *scene, cfWorld *w)
{
    cfError err = {{0}};
    cfStatus st = cf_scene_load(cft_scene_path(scene), w, NULL, &err);
    ck_assert_msg(st == CF_OK, "%s: %s", scene, err.msg);
}

static void step(cfWorld *w, int n)
{
    for (int k = 0; k < n; ++k) {
        cfStatus st = cf_world_step(w);
        ck_assert_msg(st == CF_OK, "step %ld: %s", w->step + 1, w->error.msg);
    }
}

/* ---- creep ------------------------------------------------------------------------------------ */

START_TEST(incline_creeps_at_profile_speed)
{
    /* mu 0.8 > tan 30: Coulomb sticks; the smoothed friction has no static force, and at the steady
       speed x its force mu lambda s(x) balances m g sin 30 with lambda = m g cos 30: s(x) = tan 30 / mu,
       s_a: x = eps (1 - sqrt(1 - r)), s_b: x = eps r / (1 - r) (ch09.7's closed forms) */
    const double r = tan(CF_PI / 6.0) / 0.8;
    for (int p = 0; p < CF_SLIDE_PROFILE_COUNT; ++p) {
        cfWorld w;
        load("ch09_implicit_incline.json", &w);
        w.def.implicit.profile = (cfSlideProfile)p;
        double eps = w.def.implicit.eps;
        double want = p == CF_SLIDE_QUADRATIC ? eps * (1.0 - sqrt(1.0 - r)) : eps * r / (1.0 - r);
        step(&w, 200);
        cfVec3 n = cfu_normalize(w.bodies[0].shape.normal), v = w.soft[0].v[0];
        cfVec3 down = cfu_normalize(cfu_sub(w.def.gravity, cfu_scale(cfu_dot(w.def.gravity, n), n)));
        cft_assert_near_at(cfu_dot(v, down), want, 0, 1e-6, "profile %s", cf_slide_profile_name((cfSlideProfile)p));
        cft_assert_near_at(cfu_dot(v, n), 0.0, 1e-12, 0, "profile %d: normal speed", p);
        ck_assert_msg(w.stats.implicit.min_gap > 0.0 && w.stats.n_contacts == 1, "gap %g, %d contacts",
                      w.stats.implicit.min_gap, w.stats.n_contacts);
        cf_world_free(&w);
    }
    /* the s_a creep of the scene: 0.4724 eps, eps = 1 cm/s */
    cft_assert_near(0.01 * (1.0 - sqrt(1.0 - r)), 4.7244e-3, 1e-7, 0);
}
END_TEST

/* ---- the world's step is chapter 9's step ----------------------------------------------------- */

/* a chain of 3 nodes (one pinned) hanging over a tilted plane, built by hand as ch09.7's system */
#define CHAIN                                                                                                    \
    "{\"world\": {\"gravity\": [0, 0, -9.81], \"dt\": 0.01, \"pipeline\": \"implicit-soft\", \"implicit\": "     \
    "{\"integrator\": \"%s\", \"kappa\": 2e3, \"delta\": 0.002, \"eps\": 0.005, \"profile\": \"rational\"}}, "    \
    "\"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.3, \"shape\": {\"type\": \"plane\", "         \
    "\"normal\": [0.1, 0, 1], \"offset\": -0.2}}], "                                                             \
    "\"soft_bodies\": [{\"name\": \"chain\", \"type\": \"chain\", \"from\": [0, 0, 0], \"to\": [0.3, 0, -0.1], "     \
    "\"nodes\": 3, \"node_mass\": 0.3, \"stiffness\": 500, \"fix_first\": true, \"mu\": 0.3}]}"

START_TEST(world_step_is_chapter_step)
{
    for (int integ = 0; integ < CF_IMPLICIT_INTEGRATOR_COUNT; ++integ) {
        const char *name = cf_implicit_integrator_name((cfImplicitIntegrator)integ);
        char json[2048];
        snprintf(json, sizeof json, CHAIN, name);
        cfWorld w;
        sim_parse(json, &w);
        const cfSoftBody *b = &w.soft[0];
        cfImplicitSystem s;
        cft_assert_ok(cf_implicit_init(&s, 0.01, 2e3, 0.002));
        s.gravity = w.def.gravity;
        s.mu = 0.3;
        s.eps = 0.005;
        s.profile = CF_SLIDE_RATIONAL;
        for (int k = 0; k < b->n_nodes; ++k)
            ck_assert_msg(cf_implicit_add_node(&s, b->x[k], b->v[k], b->mass[k], b->fixed[k]) == k, "node k = %d", k);
        for (int k = 0; k < b->n_springs; ++k) {
            int e = cf_implicit_add_spring(&s, b->springs[k].i, b->springs[k].j, b->springs[k].k);
            ck_assert_msg(e >= 0, "spring k = %d", k);
            s.rest[e] = b->springs[k].rest;
        }
        cfVec3 n = cfu_normalize(cfu_vec3(0.1, 0, 1));
        cfImplicitObstacle o = {.kind = CF_IMPLICIT_PLANE, .p = cfu_scale(-0.2, n), .n = n};
        ck_assert_int_eq(cf_implicit_add_obstacle(&s, o), 0);
        int contacts = 0, bumps = 0;
        for (int t = 0; t < 60; ++t) {
            step(&w, 1);
            /* the world builds its system from the setting at every step: a kappa a bump raised holds
               for that step only (sim/implicit.c) */
            s.kappa = 2e3;
            cft_assert_ok_at(cf_implicit_step(&s, (cfImplicitIntegrator)integ, NULL, NULL), "%s step %d", name, t);
            for (int k = 0; k < b->n_nodes; ++k)
                for (int a = 0; a < 3; ++a) {
                    ck_assert_msg(cfu_vec3_at(b->x[k], a) == s.q[3 * k + a] && cfu_vec3_at(b->v[k], a) == s.v[3 * k + a],
                                  "%s step %d node %d: world (%.17g, %.17g), chapter (%.17g, %.17g)", name, t, k,
                                  cfu_vec3_at(b->x[k], a), cfu_vec3_at(b->v[k], a), s.q[3 * k + a], s.v[3 * k + a]);
                }
            contacts += w.stats.n_contacts;
            bumps += w.stats.implicit.bumps;
        }
        ck_assert_msg(contacts > 0, "%s: the chain never reached the plane (the test would not test friction)", name);
        cf_implicit_free(&s);
        cf_world_free(&w);
    }
}
END_TEST

/* ---- refusals ----------------------------------------------------------------------------------- */

#define SOFT "\"soft_bodies\": [{\"type\": \"particle\", \"position\": [0, 0, 1], \"mass\": 1}]"
#define IMP "{\"world\": {\"pipeline\": \"implicit-soft\", \"implicit\": "

START_TEST(bad_implicit_settings_named)
{
    sim_refused(IMP "{\"kappa\": 0}}, " SOFT "}", "t.json: world.implicit.kappa: must be > 0");
    sim_refused(IMP "{\"delta\": -1}}, " SOFT "}", "t.json: world.implicit.delta: must be > 0");
    sim_refused(IMP "{\"eps\": 0}}, " SOFT "}", "t.json: world.implicit.eps: must be > 0");
    sim_refused(IMP "{\"integrator\": \"rk4\"}}, " SOFT "}",
            "world.implicit.integrator: unknown integrator 'rk4' (expected one of: be, tr, bdf2, sdirk2)");
    sim_refused(IMP "{\"profile\": \"cubic\"}}, " SOFT "}",
            "world.implicit.profile: unknown profile 'cubic' (expected one of: quadratic, rational)");
    sim_refused(IMP "{\"kapa\": 1}}, " SOFT "}", "world.implicit: unknown key 'kapa'");
    /* a setting of implicit-soft under another pipeline would be ignored: refused */
    sim_refused("{\"world\": {\"implicit\": {\"eps\": 0.01}}, " SOFT "}",
            "world.implicit.eps: a setting of the implicit-soft pipeline, and the pipeline is 'velocity'");
    sim_refused("{\"world\": {\"pipeline\": \"implicit-soft\", \"ipc\": {\"dhat\": 0.01}}, " SOFT "}",
            "world.ipc.dhat: a setting of the ipc pipeline, and the pipeline is 'implicit-soft'");
    sim_refused("{\"world\": {\"pipeline\": \"implicit-soft\", \"solver\": \"pgs\"}, " SOFT "}",
            "world.solver: the implicit-soft pipeline solves no velocity-level problem");
    /* the one validator: a world built in code gets the same line */
    cfWorldDef d = cf_world_def_default();
    d.pipeline = CF_PIPELINE_IMPLICIT_SOFT;
    d.implicit.delta = NAN;
    cfError err = {{0}};
    cft_assert_status(cf_world_def_check(&d, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "implicit.delta: must be > 0"), "%s", err.msg);
}
END_TEST

START_TEST(bad_implicit_bodies_named)
{
    sim_refused(IMP "{}}, \"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}]}",
            "t.json: bodies[0] 'ball': the implicit-soft pipeline's obstacles are fixed planes");
    sim_refused(IMP "{}}, \"bodies\": [{\"name\": \"slab\", \"fixed\": true, \"shape\": {\"type\": \"box\", "
            "\"half_extents\": [1, 1, 0.1]}}]}", "bodies[0] 'slab': the implicit-soft pipeline's obstacles are fixed planes");
    sim_refused(IMP "{}}, \"soft_bodies\": [{\"name\": \"jelly\", \"type\": \"tet_box\", \"origin\": [0, 0, 1], "
            "\"size\": [0.2, 0.2, 0.2], \"cells\": [1, 1, 1], \"density\": 100, \"young\": 1e4, \"poisson\": 0.3}]}",
            "soft_bodies[0] 'jelly': tetrahedra");
    sim_refused(IMP "{}}, \"bodies\": [{\"name\": \"g\", \"fixed\": true, \"mu\": 0.5, \"shape\": {\"type\": \"plane\", "
            "\"normal\": [0, 0, 1], \"offset\": 0}}], \"soft_bodies\": [{\"name\": \"p\", \"type\": \"particle\", "
            "\"position\": [0, 0, 1], \"mass\": 1, \"mu\": 0.2}]}",
            "soft_bodies[0] 'p': mu: the implicit-soft pipeline has one friction coefficient");
}
END_TEST

static void build(Suite *s)
{
    TCase *c = cft_tcase_scene(s, "implicit");
    CFT_TEST(c, incline_creeps_at_profile_speed, "incline under implicit-soft: creeps at s(x) = tan/mu to 1e-6");
    CFT_TEST(c, world_step_is_chapter_step, "a chain's world step is cf_implicit_step() bit for bit, every integrator");
    TCase *in = cft_tcase_unit(s, "input");
    CFT_TEST(in, bad_implicit_settings_named, "bad implicit-soft settings refused with the field named");
    CFT_TEST(in, bad_implicit_bodies_named, "bodies implicit-soft cannot step refused with the body named");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "sim-implicit-world", build); }
