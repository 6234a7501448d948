/* SPDX-License-Identifier: MIT */
/* Simulation-layer tests: the solver registry and the one path every solver takes through the
   world (form, apply, common residual), soft and mixed contacts in the dual form, friction pairs,
   the one validator of world settings, and the honest split of the soft step (a world without
   contacts steps soft bodies exactly as chapter 1's integrators do). Run with the reference
   solutions (`make test-sim IMPL=solutions`). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cft.h"
#include "cf/cf_ch01.h"
#include "cf/cf_ch02.h"
#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"
#include "scene_support.h"
#include "../internal.h" /* cf_detect_world_cached(): the persistent manifolds, tested directly */

static void load(const char *scene, cfWorld *w)
{
    cfError err = {{0}};
    cfStatus st = cf_scene_load(cft_scene_path(scene), w, NULL, &err);
    ck_assert_msg(st == CF_OK, "%s: %s", scene, err.msg);
}

static void step_ok(cfWorld *w, int n)
{
    for (int k = 0; k < n; ++k) {
        cfStatus st = cf_world_step(w);
        ck_assert_msg(st == CF_OK, "step %ld failed (%s): %s", w->step + 1, cf_status_name(st), w->error.msg);
    }
}

/* largest distance a dynamic rigid body or a soft node moved over @p steps */
static double drift(cfWorld *w, int steps)
{
    cfWorld start;
    cft_assert_ok(cf_world_copy(&start, w));
    step_ok(w, steps);
    double d = 0.0;
    for (int i = 0; i < w->n_bodies; ++i)
        if (!w->bodies[i].fixed) d = fmax(d, cfu_norm(cfu_sub(w->bodies[i].x, start.bodies[i].x)));
    for (int i = 0; i < w->n_soft; ++i)
        for (int k = 0; k < w->soft[i].n_nodes; ++k) d = fmax(d, cfu_norm(cfu_sub(w->soft[i].x[k], start.soft[i].x[k])));
    cf_world_free(&start);
    return d;
}

/* ---- threads ------------------------------------------------------------------------------- */

/* the same contact, field by field (the padding of a contact is no part of it) */
static bool same_contact(const cfContact *p, const cfContact *q)
{
    return p->body_a == q->body_a && p->body_b == q->body_b && memcmp(&p->p, &q->p, sizeof p->p) == 0 &&
           memcmp(&p->n, &q->n, sizeof p->n) == 0 && memcmp(&p->t, &q->t, sizeof p->t) == 0 &&
           memcmp(&p->b, &q->b, sizeof p->b) == 0 && memcmp(&p->phi, &q->phi, sizeof p->phi) == 0 &&
           memcmp(&p->mu, &q->mu, sizeof p->mu) == 0 && p->feature == q->feature &&
           memcmp(p->lambda, q->lambda, sizeof p->lambda) == 0 && p->extra == NULL && q->extra == NULL;
}

/* The step on CF_THREADS = 2 and 3 threads (the narrow phase in runs of pairs, placed in pair
   order; the fast solver's threads when it is linked) gives one thread's world, bit for bit, step
   after step: the contacts in the same order with the same impulses, the same bodies; with
   persistent manifolds (most pairs kept) and without (every pair detected anew). */
START_TEST(step_threads_as_one)
{
    static const struct {
        const char *scene;
        double manifold_tolerance;
        int steps;
    } cases[] = {{"ch05_pyramid_20.json", 1e-4, 40}, {"ch05_grid_10x10x10.json", 0.0, 12}};
    const cfSolver *fast = cf_solver_find("pgs-fast"); /* the fast rows when linked: the same stages, sooner */
    for (int k = 0; k < 2; ++k) {
        cfWorld w[3];
        for (int e = 0; e < 3; ++e) {
            load(cases[k].scene, &w[e]);
            if (fast) w[e].def.solver = fast;
            w[e].def.manifold_tolerance = cases[k].manifold_tolerance;
        }
        for (int s = 0; s < cases[k].steps; ++s)
            for (int e = 0; e < 3; ++e) {
                char T[2] = {(char)('1' + e), '\0'};
                if (s == 0) setenv("CF_THREADS", T, 1); /* read by the world's first step */
                step_ok(&w[e], 1);
                unsetenv("CF_THREADS");
                if (e == 0) continue;
                ck_assert_msg(w[e].contacts.count == w[0].contacts.count, "%s step %d, %d threads: %d contacts, %d on one",
                              cases[k].scene, s, e + 1, w[e].contacts.count, w[0].contacts.count);
                for (int a = 0; a < w[0].contacts.count; ++a)
                    ck_assert_msg(same_contact(&w[e].contacts.items[a], &w[0].contacts.items[a]),
                                  "%s step %d, %d threads: contact %d (bodies %d-%d) differs", cases[k].scene, s, e + 1, a,
                                  w[e].contacts.items[a].body_a, w[e].contacts.items[a].body_b);
                for (int i = 0; i < w[0].n_bodies; ++i) {
                    const cfRigidBody *p = &w[e].bodies[i], *q = &w[0].bodies[i];
                    ck_assert_msg(memcmp(&p->x, &q->x, sizeof p->x) == 0 && memcmp(&p->q, &q->q, sizeof p->q) == 0 &&
                                      memcmp(&p->v, &q->v, sizeof p->v) == 0 && memcmp(&p->w, &q->w, sizeof p->w) == 0,
                                  "%s step %d, %d threads: body %d differs", cases[k].scene, s, e + 1, i);
                }
            }
        ck_assert_msg(w[0].contacts.count > 1000, "%s: %d contacts", cases[k].scene, w[0].contacts.count);
        for (int e = 0; e < 3; ++e) cf_world_free(&w[e]);
    }
}
END_TEST

/* ---- persistent manifolds ------------------------------------------------------------------- */

/* every contact of @p fresh has one in @p kept of the same pair and feature with p and phi within
   @p tol and the same normal; both lists the same length */
static void same_contacts(const cfContactList *fresh, const cfContactList *kept, double tol, const char *what)
{
    ck_assert_msg(fresh->count == kept->count, "%s: %d contacts fresh, %d kept", what, fresh->count, kept->count);
    for (int a = 0; a < fresh->count; ++a) {
        const cfContact *c = &fresh->items[a];
        double best = INFINITY;
        for (int b = 0; b < kept->count; ++b) {
            const cfContact *q = &kept->items[b];
            if (q->body_a != c->body_a || q->body_b != c->body_b || cfu_dot(q->n, c->n) < 1.0 - 1e-12) continue;
            best = fmin(best, fmax(cfu_norm(cfu_sub(q->p, c->p)), fabs(q->phi - c->phi)));
        }
        ck_assert_msg(best <= tol, "%s: contact %d (bodies %d-%d, phi %g) has no match within %g (closest %g)", what, a,
                      c->body_a, c->body_b, c->phi, tol, best);
    }
}

/* The cache reproduces the narrow phase where it is used: after a rigid motion of every box (a
   turn about z and a shift), the box-box pairs come from the cache and equal a fresh detection to
   rounding; the box-ground pairs moved relative to the ground and are detected anew. A box lifted
   by less than the tolerance keeps its cached contacts, whose gaps grow by the lift as the fresh
   ones do; lifted by more, it is detected anew. */
START_TEST(detect_persistent_manifolds_move_with_the_bodies)
{
    cfWorld w;
    load("ch05_pyramid_10.json", &w);
    step_ok(&w, 30);
    cfDetectOptions o = cf_detect_options_default();
    o.margin = w.def.contact_margin;
    struct cfManifoldCache *cache = NULL;
    cfContactList kept = {0}, fresh = {0};
    cfDetectStats st;
    const double tol = 1e-3;
    cft_assert_ok(cf_detect_world_cached(&w, &o, tol, 1, &cache, &kept, &st));
    ck_assert_int_eq(st.reused, 0);
    int pairs = st.narrow_calls;
    int ground = 0; /* the ground is paired with every box */
    for (int i = 0; i < w.n_bodies; ++i) ground += w.bodies[i].shape.type != CF_SHAPE_PLANE;

    cfQuat turn = cfu_quat_from_axis_angle(cfu_vec3(0, 0, 1), 0.3);
    for (int i = 0; i < w.n_bodies; ++i) {
        cfRigidBody *b = &w.bodies[i];
        if (b->shape.type == CF_SHAPE_PLANE) continue;
        b->x = cfu_add(cfu_quat_rotate(turn, b->x), cfu_vec3(1.5, -2.0, 0.0));
        b->q = cfu_quat_mul(turn, b->q);
    }
    cft_assert_ok(cf_detect_world_cached(&w, &o, tol, 1, &cache, &kept, &st));
    ck_assert_msg(st.reused == pairs - ground && st.narrow_calls == ground, "reused %d, detected %d of %d pairs (%d on the ground)",
                  st.reused, st.narrow_calls, pairs, ground);
    cft_assert_ok(cf_detect_world(&w, &o, &fresh, NULL));
    same_contacts(&fresh, &kept, 1e-9, "turned and shifted");

    /* lift the top box: by 0.4 tol its contacts are kept and their gaps follow; by 2 tol, detected anew */
    int top = 0;
    for (int i = 0; i < w.n_bodies; ++i)
        if (w.bodies[i].x.z > w.bodies[top].x.z) top = i;
    for (int round = 0; round < 2; ++round) {
        double lift = round == 0 ? 0.4 * tol : 2.0 * tol;
        w.bodies[top].x.z += lift;
        cft_assert_ok(cf_detect_world_cached(&w, &o, tol, 1, &cache, &kept, &st));
        /* the top box has two boxes below it and the ground */
        ck_assert_msg(st.narrow_calls == (round == 0 ? 0 : 3), "lift %g: %d pairs detected anew", lift, st.narrow_calls);
        cft_assert_ok(cf_detect_world(&w, &o, &fresh, NULL));
        /* within: the kept points are the old material points, off the fresh clip by lift x lean (the
           boxes lean by under a milliradian after 30 steps); beyond: a fresh detection, to rounding */
        same_contacts(&fresh, &kept, round == 0 ? 1e-6 : 1e-9, round == 0 ? "lifted within the tolerance" : "lifted beyond it");
    }
    cf_manifold_cache_free(cache);
    cf_contacts_free(&kept);
    cf_contacts_free(&fresh);
    cf_world_free(&w);
}
END_TEST

/* The world with persistent manifolds steps the pyramid as it does without them: after 5 s its
   drift and the distance of every box from where it is without them are at most twice the drift
   without them (about 1.3 mm: the pyramid settles by that much, and contacts that differ from
   fresh ones by up to the 0.1 mm tolerance may change how; a wrong normal or a stale gap topples
   or sinks it by centimetres) */
START_TEST(detect_persistent_manifolds_pyramid_as_without)
{
    cfWorld w[2];
    for (int e = 0; e < 2; ++e) {
        load("ch05_pyramid_10.json", &w[e]);
        w[e].def.manifold_tolerance = e == 0 ? 0.0 : 1e-4;
    }
    cfWorld start;
    cft_assert_ok(cf_world_copy(&start, &w[0]));
    step_ok(&w[0], 300);
    step_ok(&w[1], 300);
    double dx = 0.0, d0 = 0.0, d1 = 0.0;
    for (int i = 0; i < w[0].n_bodies; ++i) {
        dx = fmax(dx, cfu_norm(cfu_sub(w[0].bodies[i].x, w[1].bodies[i].x)));
        d0 = fmax(d0, cfu_norm(cfu_sub(w[0].bodies[i].x, start.bodies[i].x)));
        d1 = fmax(d1, cfu_norm(cfu_sub(w[1].bodies[i].x, start.bodies[i].x)));
    }
    ck_assert_msg(dx <= 2.0 * d0 && d1 <= 2.0 * d0, "positions differ by %g m; drift %g m with the cache, %g m without", dx, d1, d0);
    for (int e = 0; e < 2; ++e) cf_world_free(&w[e]);
    cf_world_free(&start);
}
END_TEST

/* ---- the registry ----------------------------------------------------------------------------- */

START_TEST(registry_rows_are_complete)
{
    /* every row has a name found by that name, a chapter, a form, a solve and a summary; the
       rows-form solvers prepare; names are unique; the world solvers of issue 12 are all there */
    int n = cf_solver_count();
    ck_assert_int_ge(n, 8);
    for (int i = 0; i < n; ++i) {
        const cfSolver *s = cf_solver_at(i);
        ck_assert_msg(s && s->name && s->summary && s->solve, "row %d incomplete", i);
        ck_assert_msg(cf_solver_find(s->name) == s, "%s: found under its name", s->name);
        ck_assert_msg(cf_solver_registered(s), "%s", s->name);
        ck_assert_msg(s->chapter >= 4 && s->form >= 0 && s->form < CF_FORM_COUNT, "%s", s->name);
        ck_assert_msg((s->form == CF_FORM_ROWS) == (s->prepare != NULL), "%s: prepare iff rows", s->name);
        ck_assert_msg(strcmp(cf_measure_name(s->measure), "unknown-measure") != 0, "%s", s->name);
    }
    ck_assert_ptr_null(cf_solver_at(n));
    ck_assert_ptr_null(cf_solver_find("pgx"));
    /* a reference-only row missing from this build is explained; a typo or a linked row is not */
    ck_assert_str_eq(cf_solver_absent_reason("pgx"), "");
    ck_assert_str_eq(cf_solver_absent_reason(NULL), "");
    static const char *const reference_only[] = {"pgs-fast", "soft-step", "newton-ac-sparse", "prox-jacobi-omp"};
    int linked = 0;
    for (int i = 0; i < 4; ++i) {
        ck_assert_msg((*cf_solver_absent_reason(reference_only[i]) != '\0') == !cf_solver_find(reference_only[i]),
                      "%s: linked %d, reason '%s'", reference_only[i], cf_solver_find(reference_only[i]) != NULL,
                      cf_solver_absent_reason(reference_only[i]));
        cft_assert_at(!cf_solver_find(reference_only[i]) || cf_solver_reference_only(cf_solver_find(reference_only[i])),
                      "i = %d", i);
        linked += cf_solver_find(reference_only[i]) != NULL;
    }
    /* the reference-only rows are the table's last, and no other row is one */
    for (int i = 0; i < n; ++i)
        ck_assert_msg(cf_solver_reference_only(cf_solver_at(i)) == (i >= n - linked), "%s", cf_solver_at(i)->name);
    ck_assert(!cf_solver_reference_only(NULL));
    /* the default row of each filter passes it, and is the one cflab solve and the world take */
    for (int f = 0; f < CF_SOLVERS_FILTER_COUNT; ++f)
        ck_assert_msg(cf_solver_default((cfSolverFilter)f) && cf_solver_matches(cf_solver_default((cfSolverFilter)f), (cfSolverFilter)f),
                      "filter %d", f);
    ck_assert_ptr_eq(cf_solver_default(CF_SOLVERS_LCP), cf_solver_find("lemke"));
    ck_assert_ptr_eq(cf_solver_default(CF_SOLVERS_ASSEMBLED), cf_solver_find("pgs-blocked"));
    ck_assert_ptr_eq(cf_solver_default(CF_SOLVERS_WORLD), cf_solver_find("pgs"));
    ck_assert_ptr_null(cf_solver_default(CF_SOLVERS_FILTER_COUNT));
    /* the friction law a row solves: the boxed LCP's pyramid, the asked one of a row that offers both, else the cone */
    ck_assert_int_eq(cf_solver_friction(cf_solver_find("pgs-boxed"), CF_FRICTION_CONE), CF_FRICTION_BOX);
    ck_assert_int_eq(cf_solver_friction(cf_solver_find("pgs-blocked"), CF_FRICTION_BOX), CF_FRICTION_BOX);
    ck_assert_int_eq(cf_solver_friction(cf_solver_find("pgs-blocked"), CF_FRICTION_CONE), CF_FRICTION_CONE);
    ck_assert_int_eq(cf_solver_friction(cf_solver_find("newton-ac"), CF_FRICTION_BOX), CF_FRICTION_CONE);
    static const char *const world[] = {"pgs", "pgs-blocked", "pgs-boxed", "pgs-sm", "nncg", "baraff", "lemke"};
    for (size_t i = 0; i < sizeof world / sizeof world[0]; ++i) {
        const cfSolver *s = cf_solver_find(world[i]);
        ck_assert_msg(s && s->contacts, "world solver %s", world[i]);
    }
    /* what a row's statuses and iterations mean comes from its row (cflab solve names no solver) */
    ck_assert_str_eq(cf_solver_counts(cf_solver_find("bpp")), "solves");
    ck_assert_str_eq(cf_solver_counts(cf_solver_find("lemke")), "pivots");
    ck_assert_str_eq(cf_solver_counts(cf_solver_find("pgs")), "sweeps");
    ck_assert_msg(strstr(cf_solver_status_note(cf_solver_find("lemke"), CF_INFEASIBLE), "ray termination"), "lemke");
    ck_assert_msg(strstr(cf_solver_status_note(cf_solver_find("dantzig"), CF_BAD_INPUT), "symmetric"), "dantzig");
    ck_assert_str_eq(cf_solver_status_note(cf_solver_find("murty"), CF_BAD_INPUT), "input refused");
    ck_assert_str_eq(cf_solver_status_note(cf_solver_find("pgs"), CF_OK), "");
    char names[512];
    cf_solver_names(CF_SOLVERS_LCP, names, sizeof names);
    ck_assert_msg(strstr(names, "lemke") && strstr(names, "dantzig") && !strstr(names, "pgs-blocked"), "%s", names);
    cf_solver_names(CF_SOLVERS_ASSEMBLED, names, sizeof names);
    ck_assert_msg(strstr(names, "pgs-blocked") && !strstr(names, "pgs,") && !strstr(names, "dantzig"), "%s", names);
}
END_TEST

/* every world solver from the scene key: the stack of ten stands its first half second (with
   20 PGS sweeps its top box sways by up to 3 cm, bit for bit as before the registry), each solve
   reports its own measure and the common residual */
START_TEST(registry_every_world_solver_steps_the_stack)
{
    for (int i = 0; i < cf_solver_count(); ++i) {
        const cfSolver *s = cf_solver_at(i);
        if (!s->contacts) continue;
        char *json = NULL;
        FILE *f = fopen(cft_scene_path("ch05_stack_10.json"), "r");
        ck_assert_ptr_nonnull(f);
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        json = calloc((size_t)len + 64, 1);
        ck_assert_int_eq((long)fread(json, 1, (size_t)len, f), len);
        fclose(f);
        /* the scene key names the solver */
        char *key = strstr(json, "\"solver\": \"pgs\"");
        ck_assert_ptr_nonnull(key);
        char *rest = strdup(key + strlen("\"solver\": \"pgs\""));
        snprintf(key, (size_t)len + 64 - (size_t)(key - json), "\"solver\": \"%s\"%s", s->name, rest);
        free(rest);
        cfWorld w;
        cfError err;
        cfStatus st = cf_scene_parse(json, "stack", &w, NULL, &err);
        free(json);
        ck_assert_msg(st == CF_OK, "%s: %s", s->name, err.msg);
        ck_assert_msg(w.def.solver == s, "the scene key selects %s", s->name);
        /* the pivoting methods factor a dense matrix at every pivot: fewer steps keep the test short */
        double d = drift(&w, s->dense ? 10 : 30);
        ck_assert_msg(d < 0.05, "%s: the stack moved %g m", s->name, d);
        ck_assert_int_eq(w.stats.n_contacts, 40);
        ck_assert_msg(w.stats.solver_measure == s->measure, "%s: measure %d", s->name, w.stats.solver_measure);
        ck_assert_msg(isfinite(w.stats.common_residual) && w.stats.common_residual >= 0.0, "%s: common %g", s->name,
                      w.stats.common_residual);
        ck_assert_msg(w.stats.common_residual < 1.0, "%s: common residual %g", s->name, w.stats.common_residual);
        cf_world_free(&w);
    }
}
END_TEST

/* The common residual is one number for every solver: solved tightly, a resting stack's
   Coulomb natural map is small whichever form or friction model the solver used, and for the
   assembled forms it equals cf_fc_residual() of the problem that was solved (checked against a
   rows solver's own cone residual, which is the same quantity). */
START_TEST(registry_common_residual_is_comparable)
{
    /* the cone-model solvers (the boxed-LCP ones solve the pyramid: the Coulomb measure shows that model error) */
    static const char *const names[] = {"pgs", "pgs-blocked", "lemke", "baraff"};
    const char *json = "{\"world\": {\"detector\": \"primitives\", \"contact_margin\": 0.02},"
                       " \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.5,"
                       " \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}},"
                       " {\"mass\": 1, \"mu\": 0.5, \"position\": [0, 0, 0.5], \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}},"
                       " {\"mass\": 1, \"mu\": 0.5, \"position\": [0.1, 0, 1.5], \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}},"
                       " {\"mass\": 1, \"mu\": 0.5, \"position\": [0, 0.1, 2.5], \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}}]}";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        cfWorld w;
        cfError err;
        cft_assert_ok(cf_scene_parse(json, "stack of three", &w, NULL, &err));
        w.def.solver = cf_solver_find(names[i]);
        w.def.solver_iterations = 400;
        w.def.solver_tolerance = 0.0;
        w.def.cfm = 0.0;
        step_ok(&w, w.def.solver->dense ? 3 : 10);
        ck_assert_msg(w.stats.common_residual < 1e-6, "%s: common residual %g after a converged solve", names[i],
                      w.stats.common_residual);
        if (strcmp(names[i], "pgs") == 0 || strcmp(names[i], "pgs-blocked") == 0)
            ck_assert_msg(w.stats.common_residual == w.stats.solver_residual || names[i][3] != '-',
                          "%s: the cone solver's own residual is the common one", names[i]);
        cf_world_free(&w);
    }
}
END_TEST

/* Lemke on a degenerate contact problem: the stack of ten's step 69 (written by `cflab run
   scenes/ch05_stack_10.json --solver lemke --dump-problem`): four contacts per face carry one load,
   and Lemke meets a ray while z0 is zero but for rounding (2e-13 against tol_w 1.6e-13). The basis
   is complementary: ch04.3 reads it off and accepts it by its certificate instead of reporting no
   solution. */
START_TEST(registry_lemke_degenerate_stack)
{
    cfFrictionProblem fc;
    cfError err;
    const char *path = "sim/test/data/stack10_step69_fc3d.dat";
    cfStatus st = cf_fc_read_siconos(path, &fc, &err);
    ck_assert_msg(st == CF_OK, "%s (run the tests from the repository root)", err.msg);
    const cfSolver *s = cf_solver_find("lemke");
    cfSolverParams par = cf_solver_params_default();
    par.warm_start = false;
    cfFormWork fw = {0};
    cfContactProblem p;
    cft_assert_ok(cf_form_build(&fw, s, &fc, &par, &p, &err));
    double *r = calloc((size_t)3 * fc.nc, sizeof *r);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_form_solve(&fw, s, &p, &par, r, &rep));
    ck_assert_msg(cf_lcp_residual(p.lcp, fw.x) <= 1e-10, "LCP residual %g", cf_lcp_residual(p.lcp, fw.x));
    ck_assert_msg(cf_fc_residual(&fc, r) <= 1e-10, "Coulomb residual %g (k = 8 directions at rest: no model error)",
                  cf_fc_residual(&fc, r));
    free(r);
    cf_form_work_free(&fw);
    cf_fc_free(&fc);
}
END_TEST

START_TEST(registry_lcp_only_rows_refused_by_world)
{
    cfWorld w;
    load("ch05_stack_10.json", &w);
    w.def.solver = cf_solver_find("dantzig");
    cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "LCP files only") && strstr(w.error.msg, "pgs-blocked"), "%s", w.error.msg);
    cf_world_free(&w);
}
END_TEST

START_TEST(registry_dense_size_limit)
{
    /* Lemke on the 580 contacts of the pyramid: 5800 unknowns, refused with a clear line */
    cfWorld w;
    load("ch05_pyramid_10.json", &w);
    w.def.solver = cf_solver_find("lemke");
    cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "lemke") && strstr(w.error.msg, "dense"), "%s", w.error.msg);
    ck_assert_msg(w.step == 0 && w.time == 0.0, "a failed step leaves the world as it was");
    cf_world_free(&w);
}
END_TEST

/* ---- the soft step, split into stages --------------------------------------------------------- */

/* a world without contacts steps every soft body exactly as ch01.4 (implicit Euler) and ch01.5
   (BDF2) do: the same conjugate gradients on the same system, so the same bits */
static void soft_matches_chapter1(cfSoftIntegrator integ)
{
    cfWorld w;
    load("ch01_soft_beam.json", &w);
    w.def.soft_integrator = integ;
    cfSoftBody ref;
    memset(&ref, 0, sizeof ref);
    cft_assert_ok(cf_soft_copy(&ref, &w.soft[0]));
    for (int k = 0; k < 40; ++k) {
        step_ok(&w, 1);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(integ == CF_SOFT_IMPLICIT ? cf_soft_step_implicit(&ref, w.def.gravity, w.def.dt, &rep)
                                                : cf_soft_step_bdf2(&ref, w.def.gravity, w.def.dt, &rep));
        for (int n = 0; n < ref.n_nodes; ++n) {
            ck_assert_msg(cfu_norm(cfu_sub(ref.x[n], w.soft[0].x[n])) == 0.0 &&
                              cfu_norm(cfu_sub(ref.v[n], w.soft[0].v[n])) == 0.0,
                          "%s step %d node %d: world (%g %g %g), chapter 1 (%g %g %g)",
                          cf_soft_integrator_name(integ), k, n, w.soft[0].x[n].x, w.soft[0].x[n].y, w.soft[0].x[n].z,
                          ref.x[n].x, ref.x[n].y, ref.x[n].z);
        }
        ck_assert_int_eq(w.stats.solver_iterations, rep.iterations);
        ck_assert_int_eq(w.stats.solver_measure, CF_MEASURE_LINEAR);
    }
    cf_soft_free(&ref);
    cf_world_free(&w);
}

START_TEST(soft_step_matches_implicit_euler) { soft_matches_chapter1(CF_SOFT_IMPLICIT); }
END_TEST

START_TEST(soft_step_matches_bdf2) { soft_matches_chapter1(CF_SOFT_BDF2); }
END_TEST

/* ---- soft and mixed contacts ------------------------------------------------------------------ */

START_TEST(soft_block_stands_on_the_ground)
{
    cfWorld w;
    load("ch05_soft_block_on_ground.json", &w);
    double e0 = cf_world_energy(&w);
    double d = drift(&w, 600);
    ck_assert_msg(d < 0.01, "a node moved %g m in 10 s", d);
    double lowest = INFINITY;
    for (int k = 0; k < w.soft[0].n_nodes; ++k) lowest = fmin(lowest, w.soft[0].x[k].z);
    ck_assert_msg(lowest > -1e-3, "a node sank %g m into the ground", -lowest);
    ck_assert_msg(cf_world_energy(&w) <= e0 + 1e-9 * fabs(e0), "energy grew from %g to %g J", e0, cf_world_energy(&w));
    /* the 16 bottom nodes carry the block's weight: sum of normal impulses = m g h */
    double m = 0.0, lam = 0.0;
    for (int k = 0; k < w.soft[0].n_nodes; ++k) m += w.soft[0].mass[k];
    for (int a = 0; a < w.contacts.count; ++a) lam += w.contacts.items[a].lambda[0];
    ck_assert_int_eq(w.contacts.count, 16);
    cft_assert_near(lam, m * 9.81 * w.def.dt, 0, 1e-3);
    cf_world_free(&w);
}
END_TEST

START_TEST(box_stands_on_a_soft_slab)
{
    cfWorld w;
    load("ch05_box_on_soft_slab.json", &w);
    cfVec3 x0 = w.bodies[1].x;
    step_ok(&w, 600);
    const cfRigidBody *box = &w.bodies[1];
    double moved = cfu_norm(cfu_sub(box->x, x0));
    ck_assert_msg(moved < 0.01, "the box moved %g m in 10 s", moved);
    ck_assert_msg(moved > 1e-4, "the box sank %g m: the slab gives way a little under 5 kg", moved);
    cfVec3 up = cfu_quat_rotate(box->q, cfu_vec3(0, 0, 1));
    ck_assert_msg(up.z > 0.999, "the box tilted (its z axis is (%g %g %g))", up.x, up.y, up.z);
    double lowest = INFINITY;
    for (int k = 0; k < w.soft[0].n_nodes; ++k) lowest = fmin(lowest, w.soft[0].x[k].z);
    ck_assert_msg(lowest > -1e-3, "a slab node sank %g m into the ground", -lowest);
    /* three kinds of contact took part: slab on ground, slab nodes under the box, box corners on the slab */
    int kinds[3] = {0, 0, 0};
    for (int a = 0; a < w.contacts.count; ++a) {
        const cfContact *c = &w.contacts.items[a];
        const cfSoftSide *sa = cf_contact_soft(c, 0), *sb = cf_contact_soft(c, 1);
        if (c->body_a == 0 && sb && sb->n == 1) kinds[0]++;
        else if (c->body_a == 1 && sb && sb->n == 1) kinds[1]++;
        else if (sa && sa->n == 3 && c->body_b == 1) kinds[2]++;
    }
    ck_assert_msg(kinds[0] > 0 && kinds[1] + kinds[2] > 0, "contacts: ground %d, under the box %d, corners %d", kinds[0],
                  kinds[1], kinds[2]);
    /* the box's weight reaches the slab: the impulses on the box balance m g h */
    double up_impulse = 0.0;
    for (int a = 0; a < w.contacts.count; ++a) {
        const cfContact *c = &w.contacts.items[a];
        cfVec3 P = cfu_add(cfu_scale(c->lambda[0], c->n), cfu_add(cfu_scale(c->lambda[1], c->t), cfu_scale(c->lambda[2], c->b)));
        if (c->body_b == 1) up_impulse += P.z; /* B receives +P */
        if (c->body_a == 1) up_impulse -= P.z; /* A receives -P */
    }
    cft_assert_near(up_impulse, box->mass * 9.81 * w.def.dt, 0, 1e-3);
    cf_world_free(&w);
}
END_TEST

START_TEST(soft_contacts_need_an_assembled_solver)
{
    cfWorld w;
    load("ch05_soft_block_on_ground.json", &w);
    w.def.solver = cf_solver_find("pgs");
    cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "'pgs'") && strstr(w.error.msg, "soft contact") && strstr(w.error.msg, "jelly") &&
                      strstr(w.error.msg, "pgs-blocked"),
                  "%s", w.error.msg);
    ck_assert_int_eq(w.step, 0);
    /* every iterative assembled solver takes it; a pivoting one either does too or fails the
       step cleanly (its status, a message naming it, the state as it was) */
    for (int i = 0; i < cf_solver_count(); ++i) {
        const cfSolver *s = cf_solver_at(i);
        if (!cf_solver_matches(s, CF_SOLVERS_ASSEMBLED)) continue;
        cfWorld v;
        load("ch05_soft_block_on_ground.json", &v);
        v.def.solver = s;
        v.def.solver_iterations = 100;
        if (s->dense) {
            for (int k = 0; k < 3; ++k) {
                cfWorld before;
                cft_assert_ok(cf_world_copy(&before, &v));
                cfStatus st = cf_world_step(&v);
                if (st != CF_OK) {
                    ck_assert_msg(strstr(v.error.msg, s->name) != NULL, "%s: %s", s->name, v.error.msg);
                    ck_assert_msg(v.step == before.step && cfu_norm(cfu_sub(v.soft[0].x[0], before.soft[0].x[0])) == 0.0,
                                  "%s: a failed step changed the state", s->name);
                    cf_world_free(&before);
                    break;
                }
                cf_world_free(&before);
                ck_assert_msg(v.stats.common_residual < 1e-3, "%s: common residual %g", s->name, v.stats.common_residual);
            }
        } else {
            ck_assert_msg(drift(&v, 30) < 0.01, "%s", s->name);
            ck_assert_msg(v.stats.common_residual < 1e-3, "%s: common residual %g", s->name, v.stats.common_residual);
        }
        cf_world_free(&v);
    }
    /* an explicit soft integrator takes no impulses */
    w.def.solver = cf_solver_find("pgs-blocked");
    w.def.soft_integrator = CF_SOFT_SEMI_IMPLICIT;
    cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "semi-implicit"), "%s", w.error.msg);
    cf_world_free(&w);
}
END_TEST

/* A soft body that leaves contact takes no impulse of the contacts that remain: a particle rising
   from the ground (in contact at the first step, within the margin, then free) steps exactly as
   in the same world without the box that keeps the solve going (the assembled form's per-body
   dual form of the first step must not be applied at the second). */
START_TEST(soft_leaving_contact_takes_no_stale_impulse)
{
    const char *head = "{\"world\": {\"detector\": \"primitives\", \"contact_margin\": 0.01, \"solver\": \"pgs-blocked\"},"
                       " \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}}";
    const char *box = ", {\"name\": \"box\", \"mass\": 1, \"position\": [3, 0, 0.5], \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}}";
    const char *tail = "], \"soft_bodies\": [{\"name\": \"p\", \"type\": \"particle\", \"position\": [0, 0, 0.005], \"mass\": 1,"
                       " \"velocity\": [0, 0, 2]}]}";
    char with[1024], without[1024];
    snprintf(with, sizeof with, "%s%s%s", head, box, tail);
    snprintf(without, sizeof without, "%s%s", head, tail);
    cfWorld a, b;
    sim_parse(with, &a);
    sim_parse(without, &b);
    for (int k = 0; k < 4; ++k) {
        step_ok(&a, 1);
        step_ok(&b, 1);
        if (k == 0) ck_assert_msg(b.contacts.count == 1, "the particle touches at the first step (%d contacts)", b.contacts.count);
        ck_assert_msg(a.soft[0].x[0].z == b.soft[0].x[0].z && a.soft[0].v[0].z == b.soft[0].v[0].z,
                      "step %d: the particle at z = %.17g, v = %.17g beside the box, %.17g, %.17g alone", k + 1,
                      a.soft[0].x[0].z, a.soft[0].v[0].z, b.soft[0].x[0].z, b.soft[0].v[0].z);
    }
    ck_assert_msg(a.contacts.count > 0 && b.contacts.count == 0, "the box rests (%d contacts), the particle is free (%d)",
                  a.contacts.count, b.contacts.count);
    cf_world_free(&a);
    cf_world_free(&b);
}
END_TEST

/* two soft bodies: a small jelly cube dropped on the block of the scene comes to rest on it */
START_TEST(soft_on_soft)
{
    const char *json = "{\"world\": {\"dt\": 0.0166666666666667, \"detector\": \"primitives\", \"contact_margin\": 0.01,"
                       " \"solver\": \"pgs-blocked\", \"solver_iterations\": 40},"
                       " \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.6,"
                       "   \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}}],"
                       " \"soft_bodies\": ["
                       "  {\"name\": \"base\", \"type\": \"tet_box\", \"origin\": [-0.4, -0.4, 0], \"size\": [0.8, 0.8, 0.3],"
                       "   \"cells\": [4, 4, 1], \"density\": 500, \"young\": 3e4, \"poisson\": 0.3, \"damping\": [0.5, 0.01], \"mu\": 0.6},"
                       "  {\"name\": \"top\", \"type\": \"tet_box\", \"origin\": [-0.15, -0.15, 0.32], \"size\": [0.3, 0.3, 0.3],"
                       "   \"cells\": [1, 1, 1], \"density\": 500, \"young\": 3e4, \"poisson\": 0.3, \"damping\": [0.5, 0.01], \"mu\": 0.6}]}";
    cfWorld w;
    cfError err;
    cfStatus st = cf_scene_parse(json, "soft_on_soft", &w, NULL, &err);
    ck_assert_msg(st == CF_OK, "%s", err.msg);
    step_ok(&w, 180);
    int between = 0;
    for (int a = 0; a < w.contacts.count; ++a) {
        const cfSoftSide *sa = cf_contact_soft(&w.contacts.items[a], 0), *sb = cf_contact_soft(&w.contacts.items[a], 1);
        between += sa && sb && sa->body != sb->body;
    }
    ck_assert_msg(between > 0, "no contact between the two soft bodies");
    double lowest_top = INFINITY, highest_base = -INFINITY, vmax = 0.0;
    for (int k = 0; k < w.soft[1].n_nodes; ++k) {
        lowest_top = fmin(lowest_top, w.soft[1].x[k].z);
        vmax = fmax(vmax, cfu_norm(w.soft[1].v[k]));
    }
    for (int k = 0; k < w.soft[0].n_nodes; ++k) highest_base = fmax(highest_base, w.soft[0].x[k].z);
    ck_assert_msg(lowest_top > highest_base - 0.02, "the top cube sank into the base: %g below its top %g", lowest_top,
                  highest_base);
    ck_assert_msg(vmax < 0.05, "the top cube still moves at %g m/s after 3 s", vmax);
    cf_world_free(&w);
}
END_TEST

/* ---- friction pairs and laws ------------------------------------------------------------------ */

START_TEST(friction_pair_sets_mu)
{
    /* a box sliding at 2 m/s on ground of mu 0.5; a pair box-ground with mu 0.1 makes it slide
       farther: stopping distance v^2 / (2 mu g) within 3 % */
    double dist[2];
    for (int e = 0; e < 2; ++e) {
        const char *pair = e ? ", \"friction\": [{\"bodies\": [\"box\", \"ground\"], \"mu\": 0.1}]" : "";
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"world\": {\"dt\": 0.005, \"detector\": \"primitives\", \"contact_margin\": 0.01, \"solver\": \"pgs\","
                 " \"solver_iterations\": 30}, \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.5,"
                 " \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}}, {\"name\": \"box\", \"mass\": 1,"
                 " \"mu\": 0.5, \"position\": [0, 0, 0.25], \"velocity\": [2, 0, 0],"
                 " \"shape\": {\"type\": \"box\", \"half_extents\": [0.25, 0.25, 0.25]}}]%s}",
                 pair);
        cfWorld w;
        cfError err;
        cfStatus st = cf_scene_parse(json, "slide", &w, NULL, &err);
        ck_assert_msg(st == CF_OK, "%s", err.msg);
        step_ok(&w, 600);
        dist[e] = w.bodies[1].x.x;
        if (e) ck_assert_msg(w.contacts.count > 0 && w.contacts.items[0].mu == 0.1, "the pair's mu reaches the contacts");
        cf_world_free(&w);
    }
    cft_assert_near(dist[0], 4.0 / (2 * 0.5 * 9.81), 0, 0.03);
    cft_assert_near(dist[1], 4.0 / (2 * 0.1 * 9.81), 0, 0.03);
}
END_TEST

START_TEST(friction_anisotropic_law_needs_a_solver_for_it)
{
    /* the matrix-free rows and the dual form (chapter 8) take isotropic friction only: both refuse */
    static const char *const isotropic_only[] = {"dual", "pgs"};
    for (int k = 0; k < 2; ++k) {
        char json[1024];
        snprintf(json, sizeof json, "{\"world\": {\"detector\": \"primitives\", \"contact_margin\": 0.01, \"solver\": \"%s\"},"
                           " \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}},"
                           " {\"name\": \"sled\", \"mass\": 1, \"position\": [0, 0, 0.25], \"shape\": {\"type\": \"box\", \"half_extents\": [0.25, 0.25, 0.25]}}],"
                           " \"friction\": [{\"bodies\": [\"sled\", \"ground\"], \"law\": \"orthotropic\", \"mu\": [0.8, 0.2], \"direction\": [1, 0, 0]}]}", isotropic_only[k]);
        cfWorld w;
        cfError err;
        cft_assert_ok(cf_scene_parse(json, "sled", &w, NULL, &err));
        ck_assert_int_eq(w.n_pairs, 1);
        ck_assert(w.pairs[0].law.law == CF_LAW_ORTHOTROPIC && w.pairs[0].law.coef[0] == 0.8 && w.pairs[0].law.coef[1] == 0.2);
        cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
        ck_assert_msg(strstr(w.error.msg, "isotropic friction only") && strstr(w.error.msg, "orthotropic") &&
                      strstr(w.error.msg, isotropic_only[k]), "%s: %s", isotropic_only[k], w.error.msg);
        cf_world_free(&w);
    }
    cfWorld w;
    cfError err;
    /* bad pairs are refused with the field named */
    static const char *const bad[][2] = {
        {"[{\"bodies\": [\"sled\", \"nobody\"], \"mu\": 0.3}]", "friction[0].bodies[1]: no body is named 'nobody'"},
        {"[{\"bodies\": [\"sled\", \"ground\"], \"mu\": -1}]", "friction[0].mu: must be >= 0"},
        {"[{\"bodies\": [\"sled\", \"ground\"], \"law\": \"orthotropic\", \"mu\": [0.5, 0.1], \"direction\": [0, 0, 0]}]",
         "friction[0].direction"},
        {"[{\"bodies\": [\"sled\", \"ground\"], \"law\": \"bumpy\", \"mu\": 0.5}]", "friction[0].law: unknown law 'bumpy'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char text[2048];
        snprintf(text, sizeof text,
                 "{\"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}},"
                 " {\"name\": \"sled\", \"mass\": 1, \"shape\": {\"type\": \"sphere\", \"radius\": 1}}], \"friction\": %s}",
                 bad[i][0]);
        cft_assert_status(cf_scene_parse(text, "bad", &w, NULL, &err), CF_BAD_INPUT);
        ck_assert_msg(strstr(err.msg, bad[i][1]), "want '%s' in: %s", bad[i][1], err.msg);
    }
}
END_TEST

/* ---- settings: one validator, one conversion ---------------------------------------------------- */

START_TEST(settings_one_validator)
{
    cfWorldDef d = cf_world_def_default();
    cfError err;
    cft_assert_ok(cf_world_def_check(&d, &err));
    d.solver_tolerance = 0.0; /* 0: the whole budget, for the world and for scenes alike */
    cft_assert_ok(cf_world_def_check(&d, &err));
    static const struct {
        const char *key, *value, *want;
    } cases[] = {
        {"erp", "2", "world.erp: must be in [0, 1] (got 2)"},
        {"dt", "0", "world.dt: must be > 0 (got 0)"},
        {"relaxation", "2", "world.relaxation: must be in (0, 2) (got 2)"},
        {"friction_directions", "2", "world.friction_directions: must be in [3, 64] (got 2)"},
        {"contact_damping", "5", "world.contact_damping: needs contact_stiffness > 0"},
        {"solver", "\"dantzig\"", "world.solver: 'dantzig' solves LCP files only, not contact problems (world solvers: "},
        {"solver", "\"pgx\"", "world.solver: unknown solver 'pgx' (expected none, per-island or one of: "},
        {"solver_tolerance", "-1", "world.solver_tolerance: must be >= 0 (got -1)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char json[512];
        snprintf(json, sizeof json, "{\"world\": {\"%s\": %s}, \"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1}]}",
                 cases[i].key, cases[i].value);
        cfWorld w;
        cft_assert_status(cf_scene_parse(json, "s.json", &w, NULL, &err), CF_BAD_INPUT);
        ck_assert_msg(strstr(err.msg, cases[i].want) == err.msg + strlen("s.json: "), "want '%s', got '%s'", cases[i].want,
                      err.msg);
    }
    /* the world refuses the same settings with the same words */
    cfWorld w;
    d = cf_world_def_default();
    d.erp = 2;
    cft_assert_status(cf_world_init(&w, &d), CF_BAD_INPUT);
    ck_assert_str_eq(w.error.msg, "erp: must be in [0, 1] (got 2)");
    /* every enum has a count, and the names round-trip through the scene keys */
    ck_assert_str_eq(cf_detector_name(CF_DETECTOR_COUNT), "unknown");
    ck_assert_str_eq(cf_stabilization_name(CF_STABILIZATION_COUNT), "unknown");
    ck_assert_str_eq(cf_form_name(CF_FORM_COUNT), "unknown");
}
END_TEST

START_TEST(settings_contact_spring_is_erp_and_cfm)
{
    /* contact_stiffness and contact_damping give ERP and CFM by ch02.7 (notes Eq. 59):
       h = 1/60, k = 1e4, b = 100: cfm = 1 / (h^2 k + h b) = 0.225, erp = h k / (h k + b) = 0.625 */
    cfWorldDef d = cf_world_def_default();
    d.contact_stiffness = 1e4;
    d.contact_damping = 100;
    double erp, cfm;
    cft_assert_ok(cf_world_erp_cfm(&d, &erp, &cfm));
    cft_assert_near(erp, 0.625, 1e-12, 0);
    cft_assert_near(cfm, 0.225, 1e-12, 0);
    d.contact_stiffness = 0.0;
    d.contact_damping = 0.0;
    cft_assert_ok(cf_world_erp_cfm(&d, &erp, &cfm));
    ck_assert(erp == d.erp && cfm == d.cfm);
    /* the scene keys reach it, and seed is a scene key */
    const char *json = "{\"world\": {\"contact_stiffness\": 1e4, \"contact_damping\": 100, \"seed\": 7},"
                       " \"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1}]}";
    cfWorld w;
    cfError err;
    cft_assert_ok(cf_scene_parse(json, "spring", &w, NULL, &err));
    ck_assert(w.def.contact_stiffness == 1e4 && w.def.contact_damping == 100 && w.def.seed == 7);
    cf_world_free(&w);
}
END_TEST

/* ---- bad physical and oversized input ---------------------------------------------------------- */

/* mass and inertia the solvers cannot work with are refused at the door, with the field named */
START_TEST(input_mass_and_inertia_refused)
{
    static const char *const cases[][2] = {
        {"\"mass\": 1e-300", "bodies[0].mass: 1e-300 kg is outside [1e-06, 1e+09] kg"},
        {"\"mass\": 1, \"inertia\": [1e-12, 1, 1]", "bodies[0].inertia: the principal moments (1e-12, 1, 1) differ by a factor"},
        {"\"mass\": 1, \"inertia\": [1e-300, 1e-300, 1e-300]", ""},
        {"\"mass\": 1, \"inertia\": [1, 1, 3]", "bodies[0].inertia: no body has these principal moments (1, 1, 3)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char json[512];
        snprintf(json, sizeof json, "{\"bodies\": [{\"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}, %s}]}",
                 cases[i][0]);
        cfWorld w;
        cfError err;
        cfStatus st = cf_scene_parse(json, "s.json", &w, NULL, &err);
        if (!cases[i][1][0]) { /* tiny but proportionate: a physical body (1 mg of dust) is accepted */
            ck_assert_msg(st == CF_OK, "case %zu: %s", i, err.msg);
            cf_world_free(&w);
            continue;
        }
        cft_assert_status(st, CF_BAD_INPUT);
        ck_assert_msg(strstr(err.msg, cases[i][1]) != NULL, "case %zu: want '%s' in '%s'", i, cases[i][1], err.msg);
    }
}
END_TEST

/* a state that stops being finite fails the step, names the body, and leaves the world as it was */
START_TEST(input_non_finite_state_fails_the_step)
{
    cfWorld w;
    load("ch05_stack_10.json", &w);
    step_ok(&w, 2);
    cfWorld before;
    cft_assert_ok(cf_world_copy(&before, &w));
    w.bodies[3].inv_inertia_body.m[0][0] = 1e300; /* bypassing cf_rigid_set_inertia: what the C API allows */
    w.bodies[3].w = cfu_vec3(1e300, 0, 0);
    cfStatus st = cf_world_step(&w);
    cft_assert_status(st, CF_DIVERGED);
    ck_assert_msg(strstr(w.error.msg, "rigid body 3 ") && strstr(w.error.msg, w.bodies[3].name), "%s", w.error.msg);
    ck_assert_int_eq(w.step, before.step);
    ck_assert(cfu_norm(cfu_sub(w.bodies[5].x, before.bodies[5].x)) == 0.0);
    cf_world_free(&before);
    cf_world_free(&w);
}
END_TEST

/* an assembled solver on a pile of boxes dropped into one spot refuses at once instead of
   building a matrix of gigabytes; the matrix-free PGS still steps it */
START_TEST(input_oversized_assembly_refused)
{
    cfWorld w;
    cfWorldDef d = cf_world_def_default();
    d.detector = CF_DETECT_PRIMITIVES;
    d.contact_margin = 0.02;
    d.solver = cf_solver_find("pgs-blocked");
    cft_assert_ok(cf_world_init(&w, &d));
    for (int i = 0; i < 120; ++i) {
        cfRigidBody b;
        cft_assert_ok(cf_rigid_init(&b, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 1.0, NULL));
        b.x = cfu_vec3(0.01 * (i % 7), 0.01 * (i % 5), 0.5 + 0.01 * i);
        ck_assert_int_ge(cf_world_add_body(&w, &b), 0);
    }
    double t0 = cf_seconds();
    cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "max_matrix_mb = 1024") && strstr(w.error.msg, "pgs-blocked"), "%s", w.error.msg);
    ck_assert_msg(cf_seconds() - t0 < 5.0, "refusing took %g s", cf_seconds() - t0);
    w.def.solver = cf_solver_find("pgs");
    step_ok(&w, 1);
    cf_world_free(&w);
}
END_TEST

/* a typo in a soft body's size is refused before any memory is taken */
START_TEST(input_element_budget)
{
    const char *json = "{\"soft_bodies\": [{\"type\": \"tet_box\", \"size\": [1, 1, 1], \"cells\": [200, 200, 200],"
                       " \"density\": 1000, \"young\": 1e5, \"poisson\": 0.3}]}";
    cfWorld w;
    cfError err;
    cft_assert_status(cf_scene_parse(json, "s.json", &w, NULL, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "s.json: soft_bodies[0].cells: 4.81e+07 nodes and elements exceed") && strstr(err.msg, "max_elements"),
                  "%s", err.msg);
    /* the scene may raise its budget; and a chain counts too */
    const char *chain = "{\"max_elements\": 10, \"soft_bodies\": [{\"type\": \"chain\", \"from\": [0, 0, 0], \"to\": [1, 0, 0],"
                        " \"nodes\": 6, \"stiffness\": 10, \"node_mass\": 0.1}]}";
    cft_assert_status(cf_scene_parse(chain, "c.json", &w, NULL, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "c.json: soft_bodies[0].nodes: 12 nodes and elements exceed"), "%s", err.msg);
}
END_TEST

/* control characters of a scene (an escape sequence in a key) reach no terminal raw */
START_TEST(input_control_characters_escaped)
{
    const char *json = "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1, \"\\u001b[31mred\": 1}]}";
    cfWorld w;
    cfError err;
    cft_assert_status(cf_scene_parse(json, "s.json", &w, NULL, &err), CF_BAD_INPUT);
    for (const char *c = err.msg; *c; ++c) ck_assert_msg((unsigned char)*c >= 0x20, "a control character in: %s", err.msg);
    ck_assert_msg(strstr(err.msg, "\\x1b[31mred"), "%s", err.msg);
}
END_TEST

/* ---- issue 30: a status that tells the truth ------------------------------------------------- */

/* Two jelly cubes on the ground; the second is thrown up and leaves its contacts while the first
   keeps its own. The assembly refreshed the dual form only of the bodies with contacts, so the
   thrown one kept last step's contact count and indices: merge_soft and the apply read and wrote
   past their arrays (AddressSanitizer: heap-buffer-overflow; a release build aborted in free())
   and gave the free cube last step's contact velocities. Once in the air it must step exactly as
   chapter 1's implicit Euler steps it alone, bit for bit. */
START_TEST(truth_soft_body_leaves_contact)
{
    const char *json = "{\"world\": {\"dt\": 0.0166666666666667, \"detector\": \"primitives\", \"contact_margin\": 0.01,"
                       " \"solver\": \"pgs-blocked\", \"solver_iterations\": 30, \"soft_integrator\": \"implicit\"},"
                       " \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.6,"
                       "   \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}}],"
                       " \"soft_bodies\": ["
                       "  {\"name\": \"stays\", \"type\": \"tet_box\", \"origin\": [-0.6, -0.15, 0], \"size\": [0.3, 0.3, 0.3],"
                       "   \"cells\": [1, 1, 1], \"density\": 500, \"young\": 3e4, \"poisson\": 0.3, \"mu\": 0.6},"
                       "  {\"name\": \"thrown\", \"type\": \"tet_box\", \"origin\": [0.3, -0.15, 0], \"size\": [0.3, 0.3, 0.3],"
                       "   \"cells\": [2, 2, 2], \"density\": 500, \"young\": 3e4, \"poisson\": 0.3, \"mu\": 0.6}]}";
    cfWorld w;
    cfError err;
    cfStatus st = cf_scene_parse(json, "soft_leaves", &w, NULL, &err);
    ck_assert_msg(st == CF_OK, "%s", err.msg);
    step_ok(&w, 20);
    int on[2] = {0, 0};
    for (int a = 0; a < w.contacts.count; ++a)
        for (int side = 0; side < 2; ++side) {
            const cfSoftSide *ss = cf_contact_soft(&w.contacts.items[a], side);
            if (ss) on[ss->body]++;
        }
    ck_assert_msg(on[0] > 0 && on[1] > on[0], "contacts per cube: %d, %d", on[0], on[1]);
    cfSoftBody *t = &w.soft[1];
    for (int n = 0; n < t->n_nodes; ++n) t->v[n].z += 4.0;
    step_ok(&w, 2); /* up and out of the margin */
    for (int a = 0; a < w.contacts.count; ++a) {
        const cfContact *c = &w.contacts.items[a];
        const cfSoftSide *sa = cf_contact_soft(c, 0), *sb = cf_contact_soft(c, 1);
        ck_assert_msg(!(sa && sa->body == 1) && !(sb && sb->body == 1), "the thrown cube still touches");
        ck_assert_msg((sa && sa->body == 0) || (sb && sb->body == 0), "a contact of neither cube");
    }
    ck_assert(w.contacts.count > 0); /* the other cube keeps its contacts: the assembly still merges */
    cfSoftBody ref;
    memset(&ref, 0, sizeof ref);
    cft_assert_ok(cf_soft_copy(&ref, t));
    for (int k = 0; k < 10; ++k) {
        step_ok(&w, 1);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_soft_step_implicit(&ref, w.def.gravity, w.def.dt, &rep));
        for (int n = 0; n < ref.n_nodes; ++n)
            ck_assert_msg(cfu_norm(cfu_sub(ref.x[n], t->x[n])) == 0.0 && cfu_norm(cfu_sub(ref.v[n], t->v[n])) == 0.0,
                          "step %d node %d: world v (%g %g %g), alone (%g %g %g)", k, n, t->v[n].x, t->v[n].y, t->v[n].z,
                          ref.v[n].x, ref.v[n].y, ref.v[n].z);
    }
    cf_soft_free(&ref);
    cf_world_free(&w);
}
END_TEST

/* "Converged" means one thing in a world: every world solver, on the stack of ten with a tolerance
   some reach (1e-3) and some do not, says converged only with the common residual at or below the
   tolerance, a downgraded claim has it above, and the world counts the steps that did not. For
   the assembled cone rows the common residual is the Coulomb natural map of the step's problem
   (dumped and recomputed) at the impulses found, over |q|. */
START_TEST(truth_world_converged_means_common)
{
    int solvers = 0, converged = 0, downgraded = 0;
    for (int i = 0; i < cf_solver_count(); ++i) {
        const cfSolver *s = cf_solver_at(i);
        if (!cf_solver_matches(s, CF_SOLVERS_WORLD)) continue;
        cfWorld w;
        load("ch05_stack_10.json", &w);
        w.def.solver = s;
        w.def.solver_tolerance = 1e-3;
        w.def.solver_iterations = 40;
        long not_converged = 0;
        for (int k = 0; k < 12; ++k) {
            cfStatus st = cf_world_step(&w);
            ck_assert_msg(st == CF_OK, "%s step %d: %s", s->name, k, w.error.msg);
            const cfStepStats *t = &w.stats;
            ck_assert_msg(t->contact_solve, "%s: no contact solve recorded", s->name);
            ck_assert_msg(t->solver_common_tol == 1e-3, "%s: checked at %g", s->name, t->solver_common_tol);
            if (t->solver_status == CF_OK) {
                ck_assert_msg(t->solver_common <= t->solver_common_tol, "%s step %d: converged at common %g > %g", s->name, k,
                              t->solver_common, t->solver_common_tol);
                ++converged;
            } else {
                ++not_converged;
                ck_assert_msg(t->solver_claimed != CF_OK || t->solver_common > t->solver_common_tol,
                              "%s step %d: downgraded from converged at common %g <= %g", s->name, k, t->solver_common,
                              t->solver_common_tol);
                downgraded += t->solver_claimed == CF_OK;
            }
            if (s->form == CF_FORM_FC3D && !s->anisotropic && k == 11) {
                const char *path = "/tmp/cflab-truth-step.dat";
                cfError err;
                cft_assert_ok(cf_world_write_problem(&w, path, &err));
                cfFrictionProblem fc;
                cft_assert_ok(cf_fc_read_siconos(path, &fc, &err));
                unlink(path);
                double *r = malloc((size_t)3 * fc.nc * sizeof *r);
                ck_assert(r && fc.nc == w.contacts.count);
                for (int a = 0; a < fc.nc; ++a) memcpy(&r[3 * a], w.contacts.items[a].lambda, 3 * sizeof *r);
                double rel = cf_fc_residual(&fc, r) / cf_fc_norm_q(&fc);
                cft_assert_near_at(t->solver_common, rel, 1e-12, 1e-9, "%s", s->name);
                free(r);
                cf_fc_free(&fc);
            }
        }
        ck_assert_msg(w.unconverged_steps == not_converged, "%s: %ld counted, %ld seen", s->name, w.unconverged_steps,
                      not_converged);
        ++solvers;
        cf_world_free(&w);
    }
    ck_assert_int_ge(solvers, 12);
    ck_assert_int_gt(converged, 0); /* the test sees both */
    ck_assert_int_gt(downgraded, 0);
}
END_TEST

/* world.certify "claims" (cf_world.h): the rows solvers step as under "always" bit for bit, on the
   stack of ten with tolerance 0.02 and 40 sweeps, where their own measure stops most solves early
   (a claim: certified as under "always", the same status and common residual bit for bit, the
   free velocity taken at u*), and on pyramid 10 at the default 1e-8, where every solve spends its
   20 sweeps (not converged, CF_MAX_ITER, the residual not computed) */
START_TEST(truth_world_certify_claims)
{
    const char *const names[] = {"pgs", "pgs-fast"};
    int claimed = 0, spent = 0;
    for (int i = 0; i < 4; ++i) {
        const cfSolver *s = cf_solver_find(names[i / 2]);
        if (!s) continue; /* pgs-fast: the reference solutions only */
        cfWorld w[2];
        for (int e = 0; e < 2; ++e) {
            load(i % 2 == 0 ? "ch05_stack_10.json" : "ch05_pyramid_10.json", &w[e]);
            w[e].def.solver = s;
            if (i % 2 == 0) w[e].def.solver_tolerance = 0.02, w[e].def.solver_iterations = 40;
            w[e].def.certify = e == 0 ? CF_CERTIFY_ALWAYS : CF_CERTIFY_CLAIMS;
        }
        for (int k = 0; k < 12; ++k) {
            for (int e = 0; e < 2; ++e) cft_assert_ok_at(cf_world_step(&w[e]), "%s, world %d, step %d", s->name, e, k);
            ck_assert_msg(memcmp(w[0].bodies, w[1].bodies, (size_t)w[0].n_bodies * sizeof *w[0].bodies) == 0,
                          "%s step %d: the bodies differ between always and claims", s->name, k);
            const cfStepStats *a = &w[0].stats, *c = &w[1].stats;
            if (a->solver_iterations < w[0].def.solver_iterations) { /* stopped by its own measure */
                ck_assert_msg(a->solver_status == c->solver_status && c->solver_common == a->solver_common,
                              "%s step %d: certified %s at %.17g, always %s at %.17g", s->name, k,
                              cf_status_name(c->solver_status), c->solver_common, cf_status_name(a->solver_status),
                              a->solver_common);
                ++claimed;
            } else {
                ck_assert_msg(c->solver_status == CF_MAX_ITER && isnan(c->solver_common),
                              "%s step %d: a spent budget is %s at residual %g", s->name, k, cf_status_name(c->solver_status),
                              c->solver_common);
                ++spent;
            }
        }
        cf_world_free(&w[0]);
        cf_world_free(&w[1]);
    }
    ck_assert_int_gt(claimed, 0); /* the test sees both kinds of step */
    ck_assert_int_gt(spent, 0);
}
END_TEST

/* world.on_solver_failure on the stack of ten with 5 PGS sweeps and tolerance 1e-8, which no step
   meets: continue counts every step; stop fails the first step, naming the solver, both residuals
   and the setting, and leaves the world as it was; retry solves again with four times the sweeps */
START_TEST(truth_world_failure_policy)
{
    const cfSolverFailure policies[] = {CF_ON_FAILURE_CONTINUE, CF_ON_FAILURE_WARN, CF_ON_FAILURE_RETRY, CF_ON_FAILURE_STOP};
    for (int p = 0; p < 4; ++p) {
        cfWorld w;
        load("ch05_stack_10.json", &w);
        w.def.solver = cf_solver_find("pgs");
        w.def.solver_iterations = 5;
        w.def.on_solver_failure = policies[p];
        cfStatus st = cf_world_step(&w);
        if (policies[p] == CF_ON_FAILURE_STOP) {
            ck_assert_msg(st == CF_MAX_ITER, "stop: %s: %s", cf_status_name(st), w.error.msg);
            ck_assert_msg(strstr(w.error.msg, "'pgs' did not converge") && strstr(w.error.msg, "common residual") &&
                              strstr(w.error.msg, "on_solver_failure is \"stop\""), "%s", w.error.msg);
            ck_assert(w.step == 0 && w.unconverged_steps == 0);
        } else {
            for (int k = 0; k < 4 && st == CF_OK; ++k) st = cf_world_step(&w);
            ck_assert_msg(st == CF_OK, "%s: %s", cf_solver_failure_name(policies[p]), w.error.msg);
            ck_assert_int_eq(w.unconverged_steps, 5);
            cft_assert_int_at(w.retried_steps, ==, policies[p] == CF_ON_FAILURE_RETRY ? 5 : 0, "p = %d", p);
            cft_assert_int_at(w.stats.solver_iterations, ==, policies[p] == CF_ON_FAILURE_RETRY ? 20 : 5, "p = %d", p);
        }
        cf_world_free(&w);
    }
    ck_assert_str_eq(cf_solver_failure_name(CF_ON_FAILURE_RETRY), "retry");
}
END_TEST

/* A body that goes wholly through a static plane, or leaves the world's bounds, fails the step with
   its name and the step; a scene that places a body outside the bounds or so fast that it would
   leave them in one step is refused, naming the key */
START_TEST(truth_world_bounds_and_planes)
{
    /* a 1 um box falling at dt 0.01 with no margin passes the ground between two steps */
    const char *speck = "{\"world\": {\"dt\": 0.01, \"detector\": \"primitives\", \"solver\": \"pgs\"}, \"bodies\": ["
                        " {\"name\": \"ground\", \"fixed\": true, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}},"
                        " {\"name\": \"speck\", \"mass\": 1e-6, \"position\": [0, 0, 0.001],"
                        "  \"shape\": {\"type\": \"box\", \"half_extents\": [5e-7, 5e-7, 5e-7]}}]}";
    cfWorld w;
    cfError err;
    cft_assert_ok(cf_scene_parse(speck, "speck", &w, NULL, &err));
    cfStatus st = CF_OK;
    while (st == CF_OK && w.step < 10) st = cf_world_step(&w);
    ck_assert_msg(st == CF_DIVERGED && strstr(w.error.msg, "rigid body 1 'speck' went through the static plane 0 'ground' in step"),
                  "%s: %s", cf_status_name(st), w.error.msg);
    ck_assert(w.bodies[1].x.z > 0.0); /* the failed step left it where it was */
    cf_world_free(&w);
    /* out of the bounds */
    const char *fast = "{\"world\": {\"dt\": 0.01, \"bounds\": 10, \"gravity\": [0, 0, 0]}, \"bodies\": ["
                       " {\"name\": \"shot\", \"mass\": 1, \"position\": [9.5, 0, 0], \"velocity\": [100, 0, 0],"
                       "  \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}]}";
    cft_assert_ok(cf_scene_parse(fast, "fast", &w, NULL, &err));
    st = cf_world_step(&w);
    ck_assert_msg(st == CF_DIVERGED && strstr(w.error.msg, "rigid body 0 'shot' left the world's bounds") &&
                      strstr(w.error.msg, "in step 1"), "%s: %s", cf_status_name(st), w.error.msg);
    cf_world_free(&w);
    /* refused at load */
    const struct {
        const char *json, *want;
    } bad[] = {
        {"{\"bodies\": [{\"mass\": 1, \"position\": [0, 1e308, 0], \"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}",
         "bad: bodies[0].position: (0, 1e+308, 0) lies outside the world's bounds"},
        {"{\"bodies\": [{\"mass\": 1, \"velocity\": [1e308, 0, 0], \"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}",
         "bad: bodies[0].velocity: (1e+308, 0, 0) m/s would leave the world's bounds"},
        {"{\"world\": {\"bounds\": -1}, \"bodies\": [{\"mass\": 1, \"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}",
         "world.bounds: must be > 0"},
        {"{\"world\": {\"contact_margin\": 1e300}, \"bodies\": [{\"mass\": 1, \"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}",
         "world.contact_margin: must be at most world.bounds"},
        {"{\"world\": {\"step_budget\": 0}, \"bodies\": [{\"mass\": 1, \"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}",
         "world.step_budget: must be > 0"},
        {"{\"world\": {\"on_solver_failure\": \"panic\"}, \"bodies\": [{\"mass\": 1, \"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}",
         "world.on_solver_failure"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        cft_assert_status_at(cf_scene_parse(bad[k].json, "bad", &w, NULL, &err), CF_BAD_INPUT, "k = %zu", k);
        ck_assert_msg(strstr(err.msg, bad[k].want), "case %zu: '%s' lacks '%s'", k, err.msg, bad[k].want);
    }
}
END_TEST

/* world.step_budget: a step's contact solves do at most the budget's work, counted as the contacts'
   couplings (assembled forms: sum over the dynamic bodies of k^2, k their contacts; rows: the
   contacts) times the sweeps; past it the step fails with CF_MAX_ITER, naming the work, and
   leaves the state as it was */
START_TEST(truth_world_step_budget)
{
    cfWorld w;
    /* pgs (rows: a sweep visits each contact once) and pgs-blocked (assembled: a sweep visits W's blocks) */
    const char *names[] = {"pgs", "pgs-blocked"};
    for (int which = 0; which < 2; ++which) {
        load("ch05_stack_10.json", &w);
        w.def.solver = cf_solver_find(names[which]);
        step_ok(&w, 1);
        /* the couplings from the contacts, independently of the world's count */
        double c = 0.0;
        for (int i = 0; i < w.n_bodies; ++i) {
            int k = 0;
            for (int a = 0; a < w.contacts.count; ++a)
                k += !w.bodies[i].fixed && (w.contacts.items[a].body_a == i || w.contacts.items[a].body_b == i);
            c += (double)k * k;
        }
        if (which == 0) c = w.contacts.count;
        ck_assert_int_gt(w.contacts.count, 0);
        ck_assert_int_eq(w.stats.solves, 1);
        ck_assert_msg(w.stats.solver_work == c * w.stats.solver_iterations, "%s: work %g, couplings %g x %d iterations",
                      names[which], w.stats.solver_work, c, w.stats.solver_iterations);
        /* a budget of half that: the solve is cut to the iterations it pays for, uses them and fails the step */
        double half = 0.5 * w.stats.solver_work;
        ck_assert_int_eq(w.stats.solver_iterations, w.def.solver_iterations); /* the stack does not converge in 20 sweeps */
        w.def.step_budget = half;
        cfVec3 x = w.bodies[5].x;
        long step = w.step;
        cfStatus st = cf_world_step(&w);
        ck_assert_msg(st == CF_MAX_ITER && strstr(w.error.msg, "the step's work budget is spent") &&
                          strstr(w.error.msg, "iterations the rest paid for"), "%s: %s: %s", names[which], cf_status_name(st),
                      w.error.msg);
        ck_assert_msg(w.stats.solver_work <= half, "work %g above the budget %g", w.stats.solver_work, half);
        ck_assert(w.step == step && w.bodies[5].x.x == x.x && w.bodies[5].x.z == x.z); /* the state as it was */
        /* a budget that pays for less than one sweep: no solve at all */
        w.def.step_budget = 0.5 * c;
        st = cf_world_step(&w);
        ck_assert_msg(st == CF_MAX_ITER && strstr(w.error.msg, "in 0 solves, and one iteration on these"), "%s: %s",
                      cf_status_name(st), w.error.msg);
        cf_world_free(&w);
    }
    /* make fuzz at seed 20261203, case scene:356: ch08's cloth as a 1 um strip under 2^31 m/s^2; step
       2 took minutes of ICA on ~2400 contacts coupled to hundreds each; the default budget ends it */
    cfError err;
    cfStatus ld = cf_scene_load("sim/test/data/fuzz_cloth_gravity_2e31.json", &w, NULL, &err);
    ck_assert_msg(ld == CF_OK, "%s (run the tests from the repository root)", err.msg);
    ck_assert(w.def.step_budget == CF_STEP_BUDGET_DEFAULT);
    step_ok(&w, 1);
    cfStatus st = cf_world_step(&w);
    ck_assert_msg(st == CF_MAX_ITER && strstr(w.error.msg, "the step's work budget is spent"), "%s: %s", cf_status_name(st),
                  w.error.msg);
    ck_assert_msg(w.stats.solver_work <= w.def.step_budget, "work %g", w.stats.solver_work);
    ck_assert_int_eq(w.step, 1);
    cf_world_free(&w);
}
END_TEST

/* What the command line changes goes through the scene's checks (cf_scene_check()), and an option
   a pipeline or a solver would ignore is refused with the reason */
START_TEST(truth_scene_check_refuses_ignored_settings)
{
    cfWorld w;
    cfError err;
    load("ch05_stack_10.json", &w);
    cft_assert_ok(cf_scene_check(&w, "stack", &err));
    w.def.preconditioner = CF_PRECOND_LUMPED;
    cft_assert_status(cf_scene_check(&w, "stack", &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "stack: world.preconditioner: 'lumped' is a choice of the dual-form solvers"), "%s", err.msg);
    w.def.preconditioner = CF_PRECOND_EXACT;
    w.def.solver = cf_solver_find("newton-ac");
    w.def.friction_model = CF_FRICTION_BOX;
    cft_assert_status(cf_scene_check(&w, "stack", &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "world.friction_model: solver 'newton-ac' solves the Coulomb cone only"), "%s", err.msg);
    w.def.solver = cf_solver_find("pgs-blocked");
    cft_assert_ok(cf_scene_check(&w, "stack", &err));
    w.def.r_factor = CF_RFACTOR_GLOBAL;
    cft_assert_status(cf_scene_check(&w, "stack", &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "world.r_factor: 'global' is a strategy of the PROX solvers"), "%s", err.msg);
    w.def.solver = cf_solver_find("prox-gs");
    cft_assert_ok(cf_scene_check(&w, "stack", &err));
    w.def.dt = 1.0; /* the bodies' speeds against the bounds are checked with the new step */
    w.bodies[3].v = cfu_vec3(0, 0, 2e6);
    cft_assert_status(cf_scene_check(&w, "stack", &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "stack: bodies[3].velocity"), "%s", err.msg);
    cf_world_free(&w);
    /* under ipc the contact solve's settings are ignored, so refused */
    load("ch09_ipc_block_slide.json", &w);
    cft_assert_ok(cf_scene_check(&w, "ipc", &err));
    w.def.solver_iterations = 5;
    cft_assert_status(cf_scene_check(&w, "ipc", &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "world.solver_iterations: a setting of the velocity pipeline's contact solve"), "%s", err.msg);
    cf_world_free(&w);
}
END_TEST

/* A TetGen mesh's message names the mesh file and line after the body's key, not glued to it
   ("soft_bodies[0].cube.node:2:") */
START_TEST(truth_tetgen_message_names_the_file)
{
    char dir[] = "/tmp/cflab-truth-XXXXXX";
    ck_assert(mkdtemp(dir));
    char scene[128], node[128], ele[128];
    snprintf(scene, sizeof scene, "%s/s.json", dir);
    snprintf(node, sizeof node, "%s/cube.node", dir);
    snprintf(ele, sizeof ele, "%s/cube.ele", dir);
    FILE *f = fopen(node, "w");
    fputs("8 3 0 0\n1 0 0 x\n", f);
    fclose(f);
    f = fopen(ele, "w");
    fputs("5 4 0\n", f);
    fclose(f);
    f = fopen(scene, "w");
    fputs("{\"soft_bodies\": [{\"type\": \"tetgen\", \"node\": \"cube.node\", \"ele\": \"cube.ele\", \"density\": 500,"
          " \"young\": 1e5, \"poisson\": 0.3}]}", f);
    fclose(f);
    cfWorld w;
    cfError err;
    cft_assert_status(cf_scene_load(scene, &w, NULL, &err), CF_BAD_INPUT);
    char want[300];
    snprintf(want, sizeof want, "%s: soft_bodies[0]: %s:2: not a number", scene, node);
    ck_assert_msg(strcmp(err.msg, want) == 0, "'%s', expected '%s'", err.msg, want);
    unlink(scene), unlink(node), unlink(ele), rmdir(dir);
}
END_TEST

/* Switching solvers keeps the settings valid: a dual-form solver's preconditioner goes back to the
 * default for a solver that takes none (the check would refuse it), and stays for another dual one. */
START_TEST(registry_use_solver_keeps_the_settings_valid)
{
    const cfSolver *dual = cf_solver_find("dual"), *pgs = cf_solver_find("pgs");
    ck_assert_ptr_nonnull(dual);
    ck_assert_ptr_nonnull(pgs);
    ck_assert(cf_solver_takes_preconditioner(dual));
    ck_assert(!cf_solver_takes_preconditioner(pgs));
    ck_assert(!cf_solver_takes_preconditioner(NULL));
    cfError err = {0};
    cfWorldDef d = cf_world_def_default();
    cf_world_def_use_solver(&d, dual);
    d.preconditioner = CF_PRECOND_LUMPED;
    ck_assert_int_eq(cf_world_def_check(&d, &err), CF_OK);
    cfWorldDef before = d;
    cf_world_def_use_solver(&d, dual);
    ck_assert_int_eq(d.preconditioner, CF_PRECOND_LUMPED);
    /* the plain assignment is what the check refuses */
    cfWorldDef raw = d;
    raw.solver = pgs;
    ck_assert_int_eq(cf_world_def_check(&raw, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "preconditioner") != NULL, "%s", err.msg);
    cf_world_def_use_solver(&d, pgs);
    ck_assert_ptr_eq(d.solver, pgs);
    ck_assert_int_eq(d.preconditioner, cf_world_def_default().preconditioner);
    ck_assert_int_eq(cf_world_def_check(&d, &err), CF_OK);
    /* nothing else changed */
    d.solver = before.solver, d.preconditioner = before.preconditioner;
    ck_assert(memcmp(&d, &before, sizeof d) == 0);
}
END_TEST

static void build(Suite *s)
{
    TCase *r = cft_tcase_scene(s, "registry");
    CFT_TEST(r, registry_rows_are_complete, "every row complete, found by name; the world solvers are there");
    CFT_TEST(r, registry_every_world_solver_steps_the_stack, "every world solver steps the stack of ten from the scene key");
    CFT_TEST(r, registry_lemke_degenerate_stack, "Lemke on a degenerate stack problem: a ray at z0 = 0 is a solution");
    CFT_TEST(r, registry_lcp_only_rows_refused_by_world, "an LCP-only row is refused by a world, with the alternatives");
    CFT_TEST(r, registry_use_solver_keeps_the_settings_valid, "switching solvers resets only the settings the new one does not take");
    CFT_TEST(r, registry_dense_size_limit, "a dense form too large is refused with a clear line");
    TCase *rl = cft_tcase_long(s, "registry-long");
    CFT_TEST(rl, registry_common_residual_is_comparable, "the common residual: one measure for every solver");
    CFT_TEST(rl, soft_contacts_need_an_assembled_solver, "soft contacts: rows solvers refuse, assembled ones solve");
    TCase *t = cft_tcase_scene(s, "soft");
    CFT_TEST(t, soft_step_matches_implicit_euler, "soft bodies without contacts: the world steps as ch01.4, bit for bit");
    CFT_TEST(t, soft_step_matches_bdf2, "soft bodies without contacts: the world steps as ch01.5, bit for bit");
    CFT_TEST(t, truth_soft_body_leaves_contact, "a soft body that leaves its contacts steps as ch01.4 alone (no stale dual form)");
    TCase *tt = cft_tcase_long(s, "truth");
    CFT_TEST(tt, truth_world_converged_means_common, "every world solver: converged only at the common tolerance; counted");
    CFT_TEST(tt, truth_world_certify_claims, "certify claims: the trajectory of always; claims certified alike, spent budgets not measured");
    CFT_TEST(tt, truth_world_failure_policy, "on_solver_failure: continue counts, stop fails the step, retry quadruples");
    CFT_TEST(tt, truth_world_step_budget, "step_budget: work counted as couplings x sweeps; past it the step fails, state kept");
    CFT_TEST(tt, truth_world_bounds_and_planes, "through a plane or out of bounds fails the step with body and step; scenes refused");
    CFT_TEST(tt, truth_scene_check_refuses_ignored_settings, "command-line settings checked as the scene's; ignored ones refused");
    CFT_TEST(tt, truth_tetgen_message_names_the_file, "a TetGen mesh's message names its file after the body");
    /* release build only: 600 dual-form steps; under ASan the block is stepped by every assembled
       solver in soft_contacts_need_an_assembled_solver */
    TCase *th = cft_tcase_heavy(s, "soft-heavy");
    CFT_TEST(th, soft_block_stands_on_the_ground, "a soft block stands on the ground 10 s (dual form)");
    /* the same, and cfview's ASan pass steps this scene (demo ch05/box_on_slab) */
    CFT_TEST(th, box_stands_on_a_soft_slab, "a rigid box stands on a soft slab 10 s (mixed contacts)");

    CFT_TEST(t, soft_on_soft, "a soft cube rests on a soft block (soft-soft contacts)");
    CFT_TEST(t, soft_leaving_contact_takes_no_stale_impulse, "a soft body that leaves contact steps as if alone");
    TCase *f = cft_tcase_scene(s, "friction");
    CFT_TEST(f, friction_pair_sets_mu, "a friction pair sets the contacts' mu: stopping distance v^2/(2 mu g)");
    CFT_TEST(f, friction_anisotropic_law_needs_a_solver_for_it, "an anisotropic law is kept, refused by isotropic solvers");
    TCase *in = cft_tcase_scene(s, "input");
    CFT_TEST(in, input_mass_and_inertia_refused, "mass and inertia out of the solvers' range refused, field named");
    CFT_TEST(in, input_non_finite_state_fails_the_step, "a state that is no longer finite fails the step, body named");
    CFT_TEST(in, input_oversized_assembly_refused, "an assembled problem of gigabytes is refused at once");
    CFT_TEST(in, input_element_budget, "a soft body too large for the scene's budget is refused before allocation");
    CFT_TEST(in, input_control_characters_escaped, "control characters of a scene are escaped in messages");
    TCase *m = cft_tcase_scene(s, "manifolds");
    CFT_TEST(m, detect_persistent_manifolds_move_with_the_bodies, "persistent manifolds: cached contacts equal fresh ones where used");
    CFT_TEST(m, detect_persistent_manifolds_pyramid_as_without, "persistent manifolds: the pyramid steps as without them (1 mm)");
    CFT_TEST(m, step_threads_as_one, "CF_THREADS=2, 3: the step's stages give one thread's contacts and bodies, bit for bit");
    TCase *d = cft_tcase_unit(s, "settings");
    CFT_TEST(d, settings_one_validator, "one validator for scenes and worlds; field-named messages");
    CFT_TEST(d, settings_contact_spring_is_erp_and_cfm, "contact stiffness and damping: ERP and CFM by ch02.7");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "sim-world", build); }
