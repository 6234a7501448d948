/* SPDX-License-Identifier: MIT */
/* Restitution in the world's velocity pipeline (cf_world.h: restitution_threshold): Newton's impact
   law u_n^+ >= -e u_n^- on the rows, assembled and dual forms; the threshold that keeps resting
   contacts still; the Newton's cradle of chapter 11 on an exact simultaneous solver and on PGS's
   sweeps; bad input. Run with the reference solutions (`make test-sim IMPL=solutions`). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

#define G 9.81
#define H 0.01

/* a ball (r 0.1 m, 1 kg, restitution e) at height z above a fixed ground plane, falling at vz,
   stepped by solver */
static void ball_world(cfWorld *w, double e, double z, double vz, const char *solver, double threshold)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"world\": {\"gravity\": [0, 0, -%g], \"dt\": %g, \"steps\": 1, \"detector\": \"primitives\", "
             "\"contact_margin\": 0.01, \"solver\": \"%s\", \"restitution_threshold\": %.17g},"
             " \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1]}},"
             " {\"name\": \"ball\", \"mass\": 1, \"mu\": 0, \"restitution\": %.17g, \"position\": [0, 0, %.17g],"
             " \"velocity\": [0, 0, %.17g], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}]}",
             G, H, solver, threshold, e, z, vz);
    cfError err = {{0}};
    cfStatus st = cf_scene_parse(json, "ball.json", w, NULL, &err);
    ck_assert_msg(st == CF_OK, "%s", err.msg);
}

static void step_ok(cfWorld *w)
{
    cfStatus st = cf_world_step(w);
    ck_assert_msg(st == CF_OK, "step %ld (%s): %s", w->step + 1, cf_status_name(st), w->error.msg);
}

/* Drop the ball from 1 m and step until it first moves up: *before is its vertical velocity at
   the start of that step, *after at its end. */
static void first_bounce(cfWorld *w, double *before, double *after)
{
    for (int k = 0; k < 200; ++k) {
        double v = w->bodies[1].v.z;
        step_ok(w);
        if (w->bodies[1].v.z > 0.0) {
            *before = v;
            *after = w->bodies[1].v.z;
            return;
        }
    }
    ck_abort_msg("the ball did not bounce in 200 steps");
}

static const char *const BOUNCERS[] = {"pgs", "lemke", "newton-ac", "pgs-blocked", "dual"};

/* The impact step takes the velocity after this step's gravity, u_n^- = v - g h, and leaves with
   -e u_n^- (the single contact is solved exactly by every solver: PGS needs one sweep): so the
   rebound speed is e (|v| + g h), between e |v| and e |v| + e g h: the tolerance of "rebounds at
   e v" is e g h = 0.049 m/s at e = 0.5, h = 0.01 s. */
START_TEST(bounce_half)
{
    for (size_t s = 0; s < sizeof BOUNCERS / sizeof *BOUNCERS; ++s) {
        cfWorld w;
        ball_world(&w, 0.5, 1.1, 0.0, BOUNCERS[s], 0.5);
        double before, after;
        first_bounce(&w, &before, &after);
        ck_assert_msg(before < -4.0, "%s: hit at %g m/s (want about -sqrt(2 g) = -4.43)", BOUNCERS[s], before);
        ck_assert_msg(fabs(after - 0.5 * (-before + G * H)) < 1e-8, "%s: left at %.12g, want e (|v| + g h) = %.12g",
                      BOUNCERS[s], after, 0.5 * (-before + G * H));
        ck_assert_msg(after >= 0.5 * -before && after <= 0.5 * -before + 0.5 * G * H + 1e-9, "%s", BOUNCERS[s]);
        cf_world_free(&w);
    }
}
END_TEST

/* e = 1: the impact keeps the kinetic energy of the velocity it meets (|u+| = |u-|, to rounding).
   That velocity includes the impact step's gravity, so the ball leaves at |v| + g h and rises
   higher by about (|v| g h) / g = h |v| = 0.044 m from 1 m (measured 0.045: 1.1 -> 1.145 m, then
   1.191 m); the bound h sqrt(2 g) per metre of fall, doubled, is 0.089 m. */
START_TEST(bounce_elastic_keeps_energy)
{
    for (size_t s = 0; s < sizeof BOUNCERS / sizeof *BOUNCERS; ++s) {
        cfWorld w;
        ball_world(&w, 1.0, 1.1, 0.0, BOUNCERS[s], 0.5);
        double before, after;
        first_bounce(&w, &before, &after);
        double met = -before + G * H; /* |u_n^-| of the impact step */
        ck_assert_msg(fabs(0.5 * after * after - 0.5 * met * met) < 1e-8 * met * met, "%s: KE %.12g before, %.12g after",
                      BOUNCERS[s], 0.5 * met * met, 0.5 * after * after);
        double top = w.bodies[1].x.z;
        while (w.bodies[1].v.z > 0.0) {
            step_ok(&w);
            top = fmax(top, w.bodies[1].x.z);
        }
        ck_assert_msg(fabs(top - 1.1) < 2.0 * H * sqrt(2.0 * G), "%s: rose to %.4f m after the bounce (dropped from 1.1)",
                      BOUNCERS[s], top);
        cf_world_free(&w);
    }
}
END_TEST

/* Below the threshold nothing bounces: a ball resting on the ground with e = 1 (its contact meets
   u_n^- = -g h = -0.098 m/s each step) steps bit for bit as with e = 0 and never moves up. With
   threshold 0 (a plausible wrong default) it jitters: the check can fail. */
START_TEST(resting_ball_stays)
{
    for (size_t s = 0; s < 2; ++s) {
        cfWorld w1, w0, wj;
        ball_world(&w1, 1.0, 0.1, 0.0, BOUNCERS[s], 0.5);
        ball_world(&w0, 0.0, 0.1, 0.0, BOUNCERS[s], 0.5);
        ball_world(&wj, 1.0, 0.1, 0.0, BOUNCERS[s], 0.0);
        double up = 0.0, jitter = 0.0;
        for (int k = 0; k < 200; ++k) {
            step_ok(&w1);
            step_ok(&w0);
            step_ok(&wj);
            ck_assert_msg(memcmp(&w1.bodies[1].x, &w0.bodies[1].x, sizeof(cfVec3)) == 0 &&
                              memcmp(&w1.bodies[1].v, &w0.bodies[1].v, sizeof(cfVec3)) == 0,
                          "%s: step %d differs from e = 0", BOUNCERS[s], k + 1);
            up = fmax(up, w1.bodies[1].v.z);
            jitter = fmax(jitter, wj.bodies[1].v.z);
        }
        ck_assert_msg(up <= 1e-9 && fabs(w1.bodies[1].x.z - 0.1) < 2e-3, "%s: vz up to %g, z %g", BOUNCERS[s], up,
                      w1.bodies[1].x.z);
        ck_assert_msg(jitter > 0.05, "%s: threshold 0 should bounce the resting ball by g h (got %g)", BOUNCERS[s], jitter);
        cf_world_free(&w1);
        cf_world_free(&w0);
        cf_world_free(&wj);
    }
}
END_TEST

/* the cradle scene (e = 1) after one step with the scene's settings but solver, iterations and ordering */
static void cradle(const char *solver, int iters, cfOrdering order, double v[3])
{
    cfWorld w;
    cfError err = {{0}};
    cft_assert_ok(cf_scene_load(cft_scene_path("ch11_newtons_cradle.json"), &w, NULL, &err));
    w.def.solver = cf_solver_find(solver);
    w.def.solver_iterations = iters;
    w.def.solver_tolerance = 0.0;
    w.def.ordering = order;
    cft_assert_ok(cf_world_def_check(&w.def, &err));
    step_ok(&w);
    ck_assert_int_eq(w.contacts.count, 2);
    for (int i = 0; i < 3; ++i) v[i] = w.bodies[i].v.x;
    cf_world_free(&w);
}

/* Exact simultaneous solvers give chapter 11's ((1 - 2e)/3, (1 + e)/3, (1 + e)/3) at e = 1 */
START_TEST(cradle_simultaneous)
{
    static const char *const exact[] = {"lemke", "baraff", "newton-ac"};
    for (size_t s = 0; s < 3; ++s) {
        double v[3];
        cradle(exact[s], 50, CF_ORDER_SEQUENTIAL, v);
        ck_assert_msg(fabs(v[0] + 1.0 / 3.0) < 1e-9 && fabs(v[1] - 2.0 / 3.0) < 1e-9 && fabs(v[2] - 2.0 / 3.0) < 1e-9,
                      "%s: (%.12g, %.12g, %.12g), want (-1/3, 2/3, 2/3)", exact[s], v[0], v[1], v[2]);
    }
}
END_TEST

/* PGS in contact order. Sweep 1 is a sequential pass: contact 1 (target 1 m/s) swaps the first two
   balls' velocities, (0, 1, 0); contact 2 met u_n^- = 0 at the step's start, so its target is
   non-penetration only, and it splits 1 m/s between balls 2 and 3: (0, 1/2, 1/2), not the desk
   toy's (0, 0, 1). Every further sweep solves the same simultaneous LCP: the error of ball 1 is
   (1/3) 4^(1-k) after k sweeps (the 2x2 Gauss-Seidel iteration matrix of A = [2 -1; -1 2] has the
   one nonzero eigenvalue 1/4). The symmetric order's second sweep runs backward and gives another
   iterate: each sweep starts with the contact the previous one ended with, already satisfied, so
   only every second sweep gains: the error of ball 1 is (1/3) 4^-floor(k/2). Both converge to the simultaneous answer
   and keep the momentum at every sweep. */
START_TEST(cradle_pgs_sweeps)
{
    for (int k = 1; k <= 12; ++k) {
        double v[3], d = pow(4.0, 1 - k);
        cradle("pgs", k, CF_ORDER_SEQUENTIAL, v);
        ck_assert_msg(fabs(v[0] - (-1.0 / 3.0 + d / 3.0)) < 1e-12 && fabs(v[1] - (2.0 / 3.0 - d / 6.0)) < 1e-12 &&
                          fabs(v[2] - v[1]) < 1e-12,
                      "%d sweeps: (%.15g, %.15g, %.15g)", k, v[0], v[1], v[2]);
    }
    double seq[3], sym[3];
    cradle("pgs", 2, CF_ORDER_SEQUENTIAL, seq);
    cradle("pgs", 2, CF_ORDER_SYMMETRIC, sym);
    ck_assert_msg(fabs(sym[0] + 0.25) < 1e-12 && fabs(sym[1] - 0.75) < 1e-12 && fabs(sym[2] - 0.5) < 1e-12,
                  "symmetric, 2 sweeps: (%g, %g, %g), want (-1/4, 3/4, 1/2)", sym[0], sym[1], sym[2]);
    ck_assert(fabs(seq[1] - sym[1]) > 0.1);
    for (int k = 1; k <= 20; ++k) {
        cradle("pgs", k, CF_ORDER_SYMMETRIC, sym);
        double m = sym[0] + sym[1] + sym[2], d = fabs(sym[0] + 1.0 / 3.0);
        ck_assert_msg(fabs(m - 1.0) < 1e-12 && fabs(d - pow(4.0, -(k / 2)) / 3.0) < 1e-12, "symmetric, %d sweeps: (%.15g, %.15g, %.15g)",
                      k, sym[0], sym[1], sym[2]);
    }
}
END_TEST

START_TEST(input_refused)
{
    cfError err = {{0}};
    cfWorld w;
    const char *bad = "{\"world\": {\"restitution_threshold\": -1}, \"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1}]}";
    cft_assert_status(cf_scene_parse(bad, "s.json", &w, NULL, &err), CF_BAD_INPUT);
    ck_assert_str_eq(err.msg, "s.json: world.restitution_threshold: must be >= 0 (m/s) (got -1)");
    cfWorldDef d = cf_world_def_default();
    d.restitution_threshold = NAN;
    cft_assert_status(cf_world_init(&w, &d), CF_BAD_INPUT);
    ck_assert(strstr(w.error.msg, "restitution_threshold: must be >= 0") == w.error.msg);
    /* the scene refuses e outside [0, 1] (test_scene); a body set through the API fails the step */
    ball_world(&w, 0.5, 0.105, -5.0, "pgs", 0.5);
    w.bodies[1].restitution = 1.5;
    cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "bodies[1].restitution: must be in [0, 1] (got 1.5)"), "%s", w.error.msg);
    cf_world_free(&w);
    /* a rows solver that does not read the impact targets refuses an impact, naming itself */
    if (cf_solver_find("pgs-fast")) {
        ball_world(&w, 0.5, 0.105, -5.0, "pgs-fast", 0.5);
        cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
        ck_assert_msg(strstr(w.error.msg, "solver: 'pgs-fast' takes no restitution"), "%s", w.error.msg);
        cf_world_free(&w);
    }
}
END_TEST

static void build(Suite *s)
{
    TCase *b = cft_tcase_scene(s, "bounce");
    CFT_TEST(b, bounce_half, "e = 0.5: the ball leaves at e (|v| + g h) on rows, LCP, FC3D and dual solvers");
    CFT_TEST(b, bounce_elastic_keeps_energy, "e = 1: the impact keeps the kinetic energy; the ball rises to its height");
    CFT_TEST(b, resting_ball_stays, "below the threshold a resting ball stays, bit for bit as e = 0");
    TCase *c = cft_tcase_scene(s, "cradle");
    CFT_TEST(c, cradle_simultaneous, "the cradle, e = 1, exact solvers: (-1/3, 2/3, 2/3)");
    CFT_TEST(c, cradle_pgs_sweeps, "the cradle, e = 1, PGS: (0, 1/2, 1/2) after one sweep, error 4^(1-k)/3 after k");
    TCase *in = cft_tcase_unit(s, "input");
    CFT_TEST(in, input_refused, "a negative threshold and e outside [0, 1] refused, field named");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "sim-restitution", build); }
