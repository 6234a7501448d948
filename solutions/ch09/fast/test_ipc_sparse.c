/* SPDX-License-Identifier: MIT */
/* Tests of chapter 9's sparse path (cf_ipc_sparse.h) against chapter 9's dense reference: the broad
   phase lists every pair that matters, and the sparse Newton takes the dense one's iterates. Run in
   the fast path's binary (test_fast, reference solutions only). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_ipc_sparse.h"
#include "cf/cf_ch03.h"
#include "cf/cf_ipc_affine.h"
#include "cf/cf_world.h"
#include "cf/cf_scene.h"
#include "cf/cf_rng.h"
#include "cft.h"

/* ---- adaptive kappa (cf_ipc_step_sparse_adaptive()) ---------------------------------------------- */

/* one free node of mass m at height z over the middle of one triangle of a fixed box's top face
   (far from its diagonal and edges), falling at w; dhat 2 mm, kappa by the world's rule */
static void node_on_box(cfIpcSystem *s, double z, double w)
{
    double m = 1e-3, dhat = 2e-3;
    ck_assert_int_eq(cf_ipc_init(s, 1.0 / 60.0, dhat, m * 9.81 / ((log(2.0) + 0.5) * dhat)), CF_OK);
    s->gravity = cfu_vec3(0, 0, -9.81);
    ck_assert_int_ge(cf_ipc_add_box(s, cfu_vec3(-0.2, -0.2, -0.2), cfu_vec3(0.2, 0.2, 0.0), 0.0, 0.0, true), 0);
    int i = cf_ipc_add_node(s, cfu_vec3(0.15, 0.0, z), m, false);
    ck_assert_int_ge(i, 0);
    s->u[3 * i + 2] = w;
}

START_TEST(adaptive_kappa_gradient_balance)
{
    /* a node at rest at d0 = 1.5 mm: grad E = M (q - q_tilde) = m h^2 g up, grad(h^2 B) = h^2 b'(d0)
       up, so kappa_0 = m g / (-b'(d0)): the kappa that holds the weight where the node is */
    cfIpcSystem s;
    node_on_box(&s, 1.5e-3, 0.0);
    cf_ipc_step_begin(&s);
    double k0, db;
    ck_assert_int_eq(cf_ipc_kappa_balance(&s, s.q, &k0), CF_OK);
    cf_ipc_barrier(1.5e-3, s.dhat, &db, NULL);
    double want = 1e-3 * 9.81 / -db;
    cft_assert_near(k0, want, 0, 1e-9 * want);
    /* the step from there: kappa_0 (inside the bounds) holds the node; its distance stays above
       d_thresh = dhat / 10, so kappa never doubles and the node stays put to 1 um */
    cf_ipc_free(&s);
    node_on_box(&s, 1.5e-3, 0.0);
    cfIpcKappaRule r = cf_ipc_kappa_rule_default(s.kappa, s.dhat);
    ck_assert(want > r.kappa_min && want < r.kappa_max);
    cfIpcKappaStats ks;
    cfIpcStats st;
    for (int n = 0; n < 5; ++n) {
        cfStatus rs = cf_ipc_step_sparse_adaptive(&s, NULL, &r, &st, &ks);
        ck_assert_msg(rs == CF_OK || rs == CF_STAGNATED, "step %d: status %d", n, rs);
        ck_assert_int_eq(ks.doublings, 0);
        ck_assert_double_eq(ks.kappa, ks.kappa0);
        cft_assert_near(st.min_dist, 1.5e-3, 0, 1e-6);
    }
    /* nothing within dhat: kappa_0 is 0 before the clamp, kappa_min after */
    cf_ipc_free(&s);
    node_on_box(&s, 5e-3, 0.0);
    cf_ipc_step_begin(&s);
    ck_assert_int_eq(cf_ipc_kappa_balance(&s, s.q, &k0), CF_OK);
    ck_assert_double_eq(k0, 0.0);
    cf_ipc_free(&s);
}
END_TEST

START_TEST(adaptive_kappa_doubles_when_approaching)
{
    /* from 3 mm (nothing within dhat: kappa_0 = kappa_min) at 2 m/s, so the whole approach is in
       the first step: under the fixed kappa_min the node comes within 0.17 mm (measured); the rule
       doubles kappa while the distance keeps shrinking below dhat/10 = 0.2 mm, which stops it at
       0.33 mm */
    cfIpcSystem a, b;
    node_on_box(&a, 3e-3, -2.0);
    node_on_box(&b, 3e-3, -2.0);
    cfIpcKappaRule r = cf_ipc_kappa_rule_default(a.kappa, a.dhat);
    cfIpcStats sa, sb;
    cfIpcKappaStats ks;
    double da = INFINITY, db = INFINITY;
    int doublings = 0;
    for (int n = 0; n < 3; ++n) {
        cfStatus ra = cf_ipc_step_sparse(&a, NULL, &sa), rb = cf_ipc_step_sparse_adaptive(&b, NULL, &r, &sb, &ks);
        ck_assert_msg((ra == CF_OK || ra == CF_STAGNATED) && (rb == CF_OK || rb == CF_STAGNATED), "step %d: %d %d", n, ra, rb);
        da = fmin(da, sa.min_dist), db = fmin(db, sb.min_dist);
        doublings += ks.doublings;
        /* kappa only doubles, from kappa_0, never past kappa_max */
        ck_assert(ks.kappa0 >= r.kappa_min && ks.kappa <= r.kappa_max);
        ck_assert_msg(ks.kappa == r.kappa_max || ks.kappa == ldexp(ks.kappa0, ks.doublings), "kappa %g from %g, %d doublings",
                      ks.kappa, ks.kappa0, ks.doublings);
        ck_assert_double_eq(b.kappa, ks.kappa);
    }
    ck_assert_msg(doublings >= 1, "kappa never adapted (smallest distance %g m, threshold %g m; fixed %g m)", db, r.d_thresh, da);
    ck_assert_msg(db > 1.5 * da && da > 0.0, "smallest distance %g m adaptive, %g m fixed", db, da);
    /* a threshold no distance goes below, or no room above kappa_min: no doubling, and with
       kappa_min = kappa_max the adaptive step is the fixed one, iterate for iterate */
    cfIpcKappaRule tiny = r, none = r;
    tiny.d_thresh = 1e-12;
    none.kappa_max = none.kappa_min;
    for (int c = 0; c < 2; ++c) {
        cf_ipc_free(&a), cf_ipc_free(&b);
        node_on_box(&a, 3e-3, -2.0);
        node_on_box(&b, 3e-3, -2.0);
        for (int n = 0; n < 3; ++n) {
            cf_ipc_step_sparse(&a, NULL, &sa);
            cf_ipc_step_sparse_adaptive(&b, NULL, c ? &none : &tiny, &sb, &ks);
            ck_assert_int_eq(ks.doublings, 0);
            if (c) ck_assert_msg(memcmp(a.q, b.q, 3 * (size_t)a.n * sizeof *a.q) == 0 && sa.iterations == sb.iterations,
                                 "step %d: kappa_min = kappa_max differs from the fixed step", n);
        }
    }
    ck_assert_int_eq(cf_ipc_step_sparse_adaptive(&b, NULL, &(cfIpcKappaRule){1.0, 0.5, 1e-4}, &sb, NULL), CF_BAD_INPUT);
    cf_ipc_free(&a), cf_ipc_free(&b);
}
END_TEST

/* step @p w once (step @p n of its test) and certify it: no crossing by signed volumes against the
   state before, the smallest distance positive */
static void step_certified(cfWorld *w, int n)
{
    cfWorld before;
    cft_assert_ok(cf_world_copy(&before, w));
    cft_assert_ok_at(cf_world_step(w), "step %d", n);
    char what[256];
    ck_assert_msg(cf_world_crossings(w, &before, what, sizeof what) == 0, "step %d: %s", n, what);
    ck_assert_double_gt(w->stats.ipc.min_distance, 0.0);
    cf_world_free(&before);
}

START_TEST(world_ipc_adaptive_kappa_no_crossing)
{
    /* the world's option: the soft stack with world.ipc.adaptive_kappa steps without a crossing,
       every surface apart, and kappa is the rule's (within [kappa, 100 kappa] of the fixed run) */
    cfWorld w, fixed;
    cfError err;
    cft_assert_ok(cf_scene_load(cft_scene_path("ch09_ipc_soft_stack.json"), &w, NULL, &err));
    cft_assert_ok(cf_world_copy(&fixed, &w));
    w.def.ipc.adaptive_kappa = true;
    cft_assert_ok(cf_world_step(&fixed));
    double kappa_min = fixed.stats.ipc.kappa;
    int doublings = 0;
    bool moved = false;
    for (int n = 0; n < 20; ++n) {
        step_certified(&w, n);
        ck_assert(w.stats.ipc.kappa >= kappa_min && w.stats.ipc.kappa <= 100.0 * kappa_min);
        moved |= w.stats.ipc.kappa > kappa_min;
        doublings += w.stats.ipc.kappa_doublings;
    }
    ck_assert_msg(moved, "kappa stayed at kappa_min in every step (%d doublings)", doublings);
    cf_world_free(&w), cf_world_free(&fixed);
}
END_TEST

START_TEST(world_cloth_10k_reduced_steps)
{
    /* the catalogue's 10 000-node scene (scenes/ch09_ipc_cloth_10k.json) at 1 of its 10 steps (about
       7 s of one core; the demo ch09/world_cloth_10k runs 10, bench_ch09 scaling the bare cloth): the
       step certified free of crossings by signed volumes, every distance positive, the sheet's
       middle held on the box top within dhat while a corner over the void falls */
    cfWorld w;
    cfError err;
    cft_assert_ok(cf_scene_load(cft_scene_path("ch09_ipc_cloth_10k.json"), &w, NULL, &err));
    ck_assert_int_eq(w.n_soft, 1);
    ck_assert_int_eq(w.soft[0].n_nodes, 10000);
    ck_assert(w.def.ipc.adaptive_kappa);
    const cfSoftBody *c = &w.soft[0];
    int mid = 50 * 100 + 50, corner = 0;
    double z_corner = c->x[corner].z;
    step_certified(&w, 0);
    ck_assert_msg(w.stats.solver_status == CF_OK, "Newton status %d", w.stats.solver_status);
    c = &w.soft[0];
    ck_assert_msg(c->x[mid].z > 0.0 && c->x[mid].z < w.stats.ipc.dhat, "middle at z = %g", c->x[mid].z);
    ck_assert_msg(c->x[corner].z < z_corner - 1e-3, /* g h^2 = 2.7 mm of free fall */ "corner from %g to %g", z_corner, c->x[corner].z);
    cf_world_free(&w);
}
END_TEST

void cft_ipc_sparse_tests(Suite *s);

/* a k x k cloth of side 0.4 m at height z over a fixed box, a spring box beside it, springs on the
   cloth's edges and diagonals; u: a sideways push */
static void scene(cfIpcSystem *s, int k, double z, double mu)
{
    ck_assert_int_eq(cf_ipc_init(s, 1.0 / 60.0, 2e-3, 50.0), CF_OK);
    s->gravity = cfu_vec3(0, 0, -9.81);
    s->mu = mu;
    ck_assert_int_ge(cf_ipc_add_box(s, cfu_vec3(-0.3, -0.3, -0.2), cfu_vec3(0.3, 0.3, 0.0), 0.0, 0.0, true), 0);
    ck_assert_int_ge(cf_ipc_add_box(s, cfu_vec3(0.35, -0.1, 0.004), cfu_vec3(0.5, 0.05, 0.1), 0.5, 2e3, false), 0);
    int first = s->n;
    for (int j = 0; j < k; ++j)
        for (int i = 0; i < k; ++i) {
            double x = -0.2 + 0.4 * i / (k - 1), y = -0.2 + 0.4 * j / (k - 1);
            ck_assert_int_ge(cf_ipc_add_node(s, cfu_vec3(x, y, z + 0.01 * sin(7.0 * x + 3.0 * y)), 0.1 / (k * k), false), 0);
        }
    for (int j = 0; j + 1 < k; ++j)
        for (int i = 0; i + 1 < k; ++i) {
            int a = first + j * k + i, b = a + 1, c = a + k, d = c + 1;
            ck_assert_int_ge(cf_ipc_add_triangle(s, a, b, d), 0);
            ck_assert_int_ge(cf_ipc_add_triangle(s, a, d, c), 0);
            ck_assert_int_ge(cf_ipc_add_spring(s, a, b, 200.0), 0);
            ck_assert_int_ge(cf_ipc_add_spring(s, a, c, 200.0), 0);
            ck_assert_int_ge(cf_ipc_add_spring(s, a, d, 100.0), 0);
        }
    for (int i = first; i < s->n; ++i) s->u[3 * i] = 0.3, s->u[3 * i + 2] = -0.5;
}

typedef struct Seen {
    const cfIpcSystem *s;
    const double *q;
    double r;
    cfIpcPairList all; /* the pairs closer than r, in visit order */
} Seen;

static int collect(void *ctx, const int node[4], bool ee)
{
    Seen *S = ctx;
    cfVec3 x[4];
    cf_ipc_pair_points(S->q, node, x);
    if (!(cf_ipc_pair_dist2(x, ee, NULL) < S->r * S->r)) return 0;
    if (S->all.n == S->all.cap) {
        S->all.cap = S->all.cap ? 2 * S->all.cap : 64;
        S->all.node = realloc(S->all.node, (size_t)S->all.cap * sizeof *S->all.node);
        S->all.ee = realloc(S->all.ee, (size_t)S->all.cap * sizeof *S->all.ee);
        ck_assert(S->all.node && S->all.ee);
    }
    memcpy(S->all.node[S->all.n], node, sizeof S->all.node[0]);
    S->all.ee[S->all.n++] = ee;
    return 0;
}

/* @p want (in order) is a subsequence of @p got, which holds only pairs the reference visits */
static void assert_subsequence(const cfIpcPairList *want, const cfIpcPairList *got)
{
    int j = 0;
    for (int i = 0; i < want->n; ++i) {
        while (j < got->n && (got->ee[j] != want->ee[i] || memcmp(got->node[j], want->node[i], sizeof got->node[j]) != 0)) ++j;
        ck_assert_msg(j < got->n, "pair %d (%d %d %d %d, %s) within r is missing or out of order", i, want->node[i][0],
                      want->node[i][1], want->node[i][2], want->node[i][3], want->ee[i] ? "ee" : "pt");
        ++j;
    }
}

START_TEST(broad_phase_lists_every_close_pair)
{
    /* the cloth draped 1 mm over the box (a non-flat sheet): every pair closer than r at q, and at
       q + dq for the swept list, is listed, in the reference's order */
    cfIpcSystem s;
    scene(&s, 9, 0.0015, 0.0);
    for (int e = 0; e < 2; ++e) {
        double r = e ? 0.02 : s.dhat;
        cfIpcPairList L = {0};
        ck_assert_int_eq(cf_ipc_broad_phase(&s, s.q, NULL, r, &L), CF_OK);
        Seen S = {&s, s.q, r, {0}};
        cf_ipc_for_pairs(&s, collect, &S);
        ck_assert_int_gt(S.all.n, 10);
        assert_subsequence(&S.all, &L);
        /* and not everything: the broad phase prunes (the cloth has ~10^4 pairs) */
        int total = 0;
        for (int t = 0; t < s.n_tri; ++t) total += s.n;
        ck_assert_int_lt(L.n, total / 4);
        /* swept: the pairs closer than r at the end of a motion dq */
        double *dq = calloc((size_t)3 * s.n, sizeof *dq), *q1 = malloc((size_t)3 * s.n * sizeof *q1);
        for (int i = 0; i < s.n; ++i) dq[3 * i] = 0.05 * sin(i), dq[3 * i + 2] = -0.01 * (i % 3);
        for (int p = 0; p < 3 * s.n; ++p) q1[p] = s.q[p] + dq[p];
        ck_assert_int_eq(cf_ipc_broad_phase(&s, s.q, dq, r, &L), CF_OK);
        Seen S1 = {&s, q1, r, {0}};
        cf_ipc_for_pairs(&s, collect, &S1);
        assert_subsequence(&S1.all, &L);
        /* and the CCD over the list is the CCD over all pairs */
        double all = cf_ipc_ccd_step(&s, s.q, dq, 0.8);
        s.pairs = &L;
        double listed = cf_ipc_ccd_step(&s, s.q, dq, 0.8);
        s.pairs = NULL;
        ck_assert_msg(all < 1.0, "the motion meets something (%g)", all);
        ck_assert_msg(listed == all, "CCD over the candidates %.17g, over all pairs %.17g", listed, all);
        cf_ipc_pair_list_free(&S.all), cf_ipc_pair_list_free(&S1.all), cf_ipc_pair_list_free(&L);
        free(dq), free(q1);
    }
    double d_all = cf_ipc_min_distance(&s, s.q, NULL), d;
    int act_all = 0, act = 0;
    cf_ipc_min_distance(&s, s.q, &act_all);
    ck_assert_int_eq(cf_ipc_min_distance_sparse(&s, s.q, &d, &act), CF_OK);
    ck_assert_msg(d == d_all && act == act_all, "min distance %.17g (%d active), reference %.17g (%d)", d, act, d_all, act_all);
    cf_ipc_free(&s);
}
END_TEST

START_TEST(sparse_min_distance_far_apart)
{
    /* nothing within dhat: the growing radius still finds the exact smallest distance */
    cfIpcSystem s;
    scene(&s, 5, 0.3, 0.0);
    double d, d_all = cf_ipc_min_distance(&s, s.q, NULL);
    ck_assert_int_eq(cf_ipc_min_distance_sparse(&s, s.q, &d, NULL), CF_OK);
    ck_assert_double_gt(d_all, 0.01);
    ck_assert_msg(d == d_all, "%.17g against %.17g", d, d_all);
    cf_ipc_free(&s);
}
END_TEST

/* The dense step on @p a and the sparse step on @p b (the same system, built twice) side by side
   for @p steps steps, @p lag lag iterations; frees both. The two factorizations differ in rounding
   only, so the iterates agree while Newton's steps are large; its last iterations, where
   |dq| / h nears the tolerance 1e-8 m/s (|dq| ~ 2e-10 m), are at the rounding floor of f, where
   either run may stop with CF_STAGNATED (a line search that finds no decrease below rounding,
   which the world accepts) or take one or two more iterations. So: the positions after each step
   agree to 1e-8 m, the statuses are CF_OK or CF_STAGNATED, the total iteration counts differ by
   at most a quarter, the same pairs are active, and some pair was (@p what says which contact).
   test_ipc_tets.c runs it on its tet scene. */
void cft_ipc_same_steps(cfIpcSystem *a, cfIpcSystem *b, int steps, int lag, const char *what);
void cft_ipc_same_steps(cfIpcSystem *a, cfIpcSystem *b, int steps, int lag, const char *what)
{
    cfIpcOptions o = cf_ipc_options_default();
    o.lag_iters = lag;
    int contacts = 0, it_a = 0, it_b = 0;
    for (int n = 0; n < steps; ++n) {
        cfIpcStats sa, sb;
        cfStatus ra = cf_ipc_step(a, &o, &sa), rb = cf_ipc_step_sparse(b, &o, &sb);
        ck_assert_msg((ra == CF_OK || ra == CF_STAGNATED) && (rb == CF_OK || rb == CF_STAGNATED),
                      "step %d: status %d dense, %d sparse", n, ra, rb);
        it_a += sa.iterations, it_b += sb.iterations;
        double dq = 0.0;
        for (int p = 0; p < 3 * a->n; ++p) dq = fmax(dq, fabs(a->q[p] - b->q[p]));
        ck_assert_msg(dq <= 1e-8, "step %d: the positions differ by %g m", n, dq);
        ck_assert_msg(fabs(sa.min_dist - sb.min_dist) <= 1e-8 && sa.active == sb.active, "step %d: distance %g/%g, active %d/%d",
                      n, sa.min_dist, sb.min_dist, sa.active, sb.active);
        ck_assert_msg(sb.min_dist > 0.0, "step %d: distance %g", n, sb.min_dist);
        contacts += sb.active;
    }
    ck_assert_msg(contacts > 0, "no pair came within dhat: %s never happened", what);
    ck_assert_msg(abs(it_a - it_b) <= it_a / 4, "%d Newton iterations dense, %d sparse", it_a, it_b);
    cf_ipc_free(a), cf_ipc_free(b);
}

/* the cloth-over-a-box scene of k x k cells, dense against sparse */
static void same_steps(int k, double mu, int steps, int lag)
{
    cfIpcSystem a, b;
    scene(&a, k, 0.004, mu);
    scene(&b, k, 0.004, mu);
    cft_ipc_same_steps(&a, &b, steps, lag, "the cloth reaching the box");
}

START_TEST(sparse_newton_same_iterates)
{
    /* Newton's first iterations, one by one (max_iter = j stops after j of them): the dense and the
       sparse iterates agree to 1e-12 m (rounding of two factorizations of the same matrix) */
    for (int j = 1; j <= 5; ++j) {
        cfIpcSystem a, b;
        scene(&a, 6, 0.004, 0.0);
        scene(&b, 6, 0.004, 0.0);
        cf_ipc_step_begin(&a), cf_ipc_step_begin(&b);
        cfIpcOptions o = cf_ipc_options_default();
        o.max_iter = j;
        cfIpcStats sa, sb;
        cfStatus ra = cf_ipc_newton(&a, a.q, &o, &sa), rb = cf_ipc_newton_sparse(&b, b.q, &o, &sb);
        ck_assert_msg(ra == CF_MAX_ITER && rb == CF_MAX_ITER, "j = %d: status %d dense, %d sparse", j, ra, rb);
        ck_assert_int_eq(sa.halvings, sb.halvings);
        ck_assert_int_eq(sa.ccd_clamps, sb.ccd_clamps);
        double dq = 0.0, moved = 0.0;
        for (int p = 0; p < 3 * a.n; ++p) dq = fmax(dq, fabs(a.q[p] - b.q[p])), moved = fmax(moved, fabs(a.q[p] - a.q_start[p]));
        ck_assert_msg(dq <= 1e-12, "iteration %d: the iterates differ by %g m (moved %g m)", j, dq, moved);
        ck_assert_double_gt(moved, 1e-4);
        ck_assert_msg(fabs(sa.energy - sb.energy) <= 1e-12 * fabs(sa.energy), "energy %.17g / %.17g", sa.energy, sb.energy);
        cf_ipc_free(&a), cf_ipc_free(&b);
    }
}
END_TEST

START_TEST(sparse_newton_matches_dense)
{
    same_steps(6, 0.0, 12, 1);
}
END_TEST

START_TEST(sparse_newton_matches_dense_friction)
{
    same_steps(5, 0.4, 10, 2);
}
END_TEST

START_TEST(world_ipc_uses_sparse_path)
{
    /* the world's ipc pipeline, with the sparse path linked: a catalogue scene steps without a
       crossing and keeps every surface apart */
    cfWorld w, before;
    cfError err;
    cft_assert_ok(cf_scene_load(cft_scene_path("ch09_ipc_soft_stack.json"), &w, NULL, &err));
    for (int n = 0; n < 20; ++n) {
        cft_assert_ok(cf_world_copy(&before, &w));
        cft_assert_ok_at(cf_world_step(&w), "step %d", n);
        char what[256];
        ck_assert_msg(cf_world_crossings(&w, &before, what, sizeof what) == 0, "step %d: %s", n, what);
        ck_assert_double_gt(w.stats.ipc.min_distance, 0.0);
        cf_world_free(&before);
    }
    cf_world_free(&w);
}
END_TEST

/* scene() with a moving rigid box as an affine body (as the world's ipc pipeline makes one,
   sim/ipc.c): 8 corners of m/24 and a centre of 2m/3 at their body-frame positions q_rest, here
   0.12 x 0.12 x 0.06 m and 0.2 kg, 3 cm over the cloth, falling at 0.5 m/s; @p z, @p guess (malloc'd)
   the reduced unknowns and the box's free motion */
static void scene_affine(cfIpcSystem *s, cfIpcAffine *a, double **z, double **guess)
{
    scene(s, 5, 0.004, 0.3);
    double m = 0.2, h = s->h;
    cfVec3 he = cfu_vec3(0.06, 0.06, 0.03), c = cfu_vec3(0.02, -0.01, 0.004 + 0.01 + 0.03 + 0.03);
    int first = cf_ipc_add_box(s, cfu_scale(-1.0, he), he, 1.0, 0.0, false);
    ck_assert_int_ge(first, 0);
    ck_assert_int_ge(cf_ipc_add_node(s, cfu_zero3(), 1.0, false), 0);
    for (int i = first; i < s->n; ++i) {
        s->mass[i] = i < first + 8 ? m / 24.0 : 2.0 * m / 3.0;
        for (int r = 0; r < 3; ++r) s->q[3 * i + r] += cfu_vec3_at(c, r);
        s->u[3 * i] = 0.0, s->u[3 * i + 1] = 0.0, s->u[3 * i + 2] = -0.5;
    }
    int count = 9;
    double k = 1e6 * m * he.z * he.z / 3.0 / (h * h);
    ck_assert_int_eq(cf_ipc_affine_init(a, s, 1, &first, &count, &k), CF_OK);
    *z = malloc((size_t)a->n_z * sizeof **z), *guess = malloc((size_t)a->n_z * sizeof **guess);
    ck_assert(*z && *guess);
    for (int i = 0; i < s->n; ++i)
        if (a->body[i] < 0)
            for (int r = 0; r < 3; ++r) (*z)[a->col[i] + r] = s->q[3 * i + r];
    double *zb = *z + a->col[first];
    for (int r = 0; r < 3; ++r) {
        zb[r] = cfu_vec3_at(c, r);
        for (int j = 0; j < 3; ++j) zb[3 + 3 * r + j] = r == j;
    }
    memcpy(*guess, *z, (size_t)a->n_z * sizeof **z);
    (*guess)[a->col[first] + 2] += h * -0.5 - h * h * 9.81;
}

START_TEST(affine_sparse_matches_dense)
{
    /* the world's step with moving boxes (sim/ipc_affine.c): cf_ipc_affine_step_sparse() over the
       broad phase's pairs and a sparse solve takes cf_ipc_affine_step()'s dense steps: a box falls
       on a cloth (friction 0.3) that falls on a fixed box; positions to 1e-8 m over 14 steps, the
       same Newton iterations, distances and contacts */
    cfIpcSystem sa, sb;
    cfIpcAffine aa, ab;
    double *za, *zb, *ga, *gb;
    scene_affine(&sa, &aa, &za, &ga);
    scene_affine(&sb, &ab, &zb, &gb);
    const cfIpcBroadPhase bp = {cf_ipc_broad_phase, cf_ipc_pair_list_free, cf_ipc_min_distance_sparse};
    cfIpcOptions o = cf_ipc_options_default();
    o.tol = 1e-6;
    int contacts = 0, box_contacts = 0;
    for (int n = 0; n < 14; ++n) {
        cfIpcStats ta, tb;
        cfStatus ra = cf_ipc_affine_step(&aa, &sa, za, n == 0 ? ga : NULL, &o, &ta);
        cfStatus rb = cf_ipc_affine_step_sparse(&ab, &sb, zb, n == 0 ? gb : NULL, &o, &bp, &tb);
        ck_assert_msg(ra == CF_OK && rb == CF_OK, "step %d: status %d dense, %d sparse", n, ra, rb);
        ck_assert_msg(ta.iterations == tb.iterations, "step %d: %d Newton iterations dense, %d sparse", n, ta.iterations,
                      tb.iterations);
        double dq = 0.0;
        for (int p = 0; p < 3 * sa.n; ++p) dq = fmax(dq, fabs(sa.q[p] - sb.q[p]));
        ck_assert_msg(dq <= 1e-8, "step %d: the positions differ by %g m", n, dq);
        ck_assert_msg(fabs(ta.min_dist - tb.min_dist) <= 1e-8 && ta.active == tb.active, "step %d: distance %g/%g, active %d/%d",
                      n, ta.min_dist, tb.min_dist, ta.active, tb.active);
        ck_assert_double_gt(tb.min_dist, 0.0);
        contacts += tb.active;
        box_contacts += sb.q[3 * (sb.n - 1) + 2] < 0.004 + 0.01 + 0.03 + 0.03 - 0.02; /* the box came down 2 cm */
    }
    ck_assert_msg(contacts > 0 && box_contacts > 0, "nothing touched (%d pairs) or the box did not fall (%d)", contacts, box_contacts);
    /* the orthogonality potential keeps the box rigid: A^T A = I to 1e-4 */
    const double *A = zb + ab.n_z - 9;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double d = 0.0;
            for (int l = 0; l < 3; ++l) d += A[3 * l + i] * A[3 * l + j];
            ck_assert_msg(fabs(d - (i == j)) < 1e-4, "(A^T A)[%d][%d] = %.6f", i, j, d);
        }
    const cfIpcBroadPhase none = {NULL, cf_ipc_pair_list_free, cf_ipc_min_distance_sparse};
    cft_assert_status(cf_ipc_affine_step_sparse(&ab, &sb, zb, NULL, &o, &none, NULL), CF_BAD_INPUT);
    cf_ipc_affine_free(&aa), cf_ipc_affine_free(&ab);
    cf_ipc_free(&sa), cf_ipc_free(&sb);
    free(za), free(zb), free(ga), free(gb);
}
END_TEST

void cft_ipc_tet_tests(Suite *s); /* test_ipc_tets.c: tetrahedral bodies on the sparse path */
/* ---- provided.c's closed forms: the spring's projected Hessian, the edge table ----------------- */

START_TEST(spring_projection_closed_form)
{
    /* the spring's Hessian, projected in closed form (e / l clamped at 0), is cf_psd_project()'s
       projection of the unprojected one (to rounding): compressed, at rest and stretched, along a
       slanted axis */
    const double stretch[] = {0.55, 0.9, 1.0, 1.3};
    for (int k = 0; k < 4; ++k) {
        cfIpcSystem s;
        ck_assert_int_eq(cf_ipc_init(&s, 1.0 / 60.0, 1e-3, 1.0), CF_OK);
        cfVec3 d = cfu_normalize(cfu_vec3(0.3, -0.5, 0.8));
        ck_assert_int_eq(cf_ipc_add_node(&s, cfu_vec3(0.1, 0.2, 0.3), 0.25, false), 0);
        ck_assert_int_eq(cf_ipc_add_node(&s, cfu_add(cfu_vec3(0.1, 0.2, 0.3), cfu_scale(0.2, d)), 0.5, false), 1);
        ck_assert_int_eq(cf_ipc_add_spring(&s, 0, 1, 300.0), 0);
        cf_ipc_step_begin(&s);
        for (int a = 0; a < 3; ++a) s.q[3 + a] = s.q[a] + stretch[k] * 0.2 * cfu_vec3_at(d, a);
        double Hp[36], Hr[36];
        ck_assert(isfinite(cf_ipc_energy(&s, s.q, NULL, Hp, true)));
        ck_assert(isfinite(cf_ipc_energy(&s, s.q, NULL, Hr, false)));
        for (int i = 0; i < 6; ++i) Hr[7 * i] -= s.mass[i / 3]; /* the spring's part alone */
        ck_assert_int_eq(cf_psd_project(6, Hr), CF_OK);
        double big = 0.0;
        for (int i = 0; i < 36; ++i) big = fmax(big, fabs(Hp[i]));
        for (int i = 0; i < 36; ++i) {
            double want = Hr[i] + (i % 7 == 0 ? s.mass[i / 18] : 0.0);
            cft_assert_near_at(Hp[i], want, 1e-13 * big, 0, "stretch %g, entry %d", stretch[k], i);
        }
        cf_ipc_free(&s);
    }
}
END_TEST

START_TEST(add_edge_table_no_duplicates)
{
    /* edges of random node pairs, either way round, repeated: the index of the first time, as a scan
       finds it; a system whose table was dropped (a copy's) builds it anew */
    cfIpcSystem s;
    ck_assert_int_eq(cf_ipc_init(&s, 0.01, 1e-3, 1.0), CF_OK);
    const int n = 300;
    for (int i = 0; i < n; ++i) cft_assert_int_at(cf_ipc_add_node(&s, cfu_vec3(i, 0, 0), 1.0, false), >=, 0,
                                                  "i = %d", i);
    cfRng rng;
    cf_rng_seed(&rng, 91);
    for (int k = 0; k < 4000; ++k) {
        int a = (int)(cf_rng_uniform(&rng) * n) % n, b = (int)(cf_rng_uniform(&rng) * n) % n;
        if (k == 2000) {
            free(s.edge_table);
            s.edge_table = NULL, s.cap_edge_table = s.n_edge_table = 0;
        }
        int want = -1;
        for (int e = 0; e < s.n_edge && want < 0; ++e)
            if ((s.edge[e][0] == a && s.edge[e][1] == b) || (s.edge[e][0] == b && s.edge[e][1] == a)) want = e;
        int before = s.n_edge, got = cf_ipc_add_edge(&s, a, b);
        if (a == b) {
            ck_assert_int_eq(got, -1);
            continue;
        }
        cft_assert_at(got == (want >= 0 ? want : before), "k = %d: %d, want %d", k, got, want >= 0 ? want : before);
        ck_assert_int_eq(s.n_edge, before + (want < 0));
    }
    ck_assert_int_eq(cf_ipc_add_edge(&s, 0, n), -1);
    cf_ipc_free(&s);
}
END_TEST

void cft_ipc_sparse_tests(Suite *s)
{
    cft_ipc_tet_tests(s);
    TCase *t = cft_tcase_long(s, "ipc-sparse");
    CFT_TEST(t, broad_phase_lists_every_close_pair, "ipc broad phase: every pair within r (at q, and at q + dq when swept) listed in the reference's order; the CCD over it is the reference's");
    CFT_TEST(t, sparse_min_distance_far_apart, "ipc broad phase: the smallest distance by growing radius is exact when nothing is within dhat");
    CFT_TEST(t, sparse_newton_same_iterates, "sparse Newton: the dense Newton's first 5 iterates to 1e-12 m, same halvings and CCD clamps");
    CFT_TEST(t, sparse_newton_matches_dense, "sparse step: the dense step's positions to 1e-8 m over 12 steps (cloth onto a box)");
    CFT_TEST(t, sparse_newton_matches_dense_friction, "sparse step with friction, 2 lag iterations: the dense step's positions to 1e-8 m");
    CFT_TEST(t, affine_sparse_matches_dense, "sparse affine step (moving boxes): the dense affine step's positions to 1e-8 m, same iterations, over 14 steps");
    CFT_TEST(t, world_ipc_uses_sparse_path, "world ipc pipeline on the sparse path: no crossing, surfaces apart");
    CFT_TEST(t, adaptive_kappa_gradient_balance, "adaptive kappa: kappa_0 = m g / -b'(d0) for a node at rest, no doubling above d_thresh, the node held");
    CFT_TEST(t, adaptive_kappa_doubles_when_approaching, "adaptive kappa: doubles (within bounds) when a node keeps approaching below dhat/10, stopping it 1.5x farther than fixed kappa; no doubling when it cannot; kappa_min = kappa_max is the fixed step");
    CFT_TEST(t, spring_projection_closed_form, "provided: the spring's projected Hessian in closed form is cf_psd_project()'s (1e-13), compressed, at rest, stretched");
    CFT_TEST(t, add_edge_table_no_duplicates, "provided: cf_ipc_add_edge() by its table returns a scan's index, either way round; a dropped table is rebuilt");
    CFT_TEST(t, world_ipc_adaptive_kappa_no_crossing, "world ipc.adaptive_kappa: soft stack 20 steps, no crossing, kappa within [kappa, 100 kappa] and adapted");
    /* seconds of CPU in the release build, minutes under the sanitizers: the release run only */
    TCase *h = cft_tcase_heavy(s, "ipc-sparse-heavy");
    CFT_TEST(h, world_cloth_10k_reduced_steps, "scenes/ch09_ipc_cloth_10k.json (10 000 nodes) at 1 step: no crossing, distances > 0, the middle held within dhat, a corner falls");
}
