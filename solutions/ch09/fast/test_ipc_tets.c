/* SPDX-License-Identifier: MIT */
/* Tetrahedral bodies (cf_ipc_add_tet(), the stable Neo-Hookean element) on chapter 9's sparse path
   against the dense reference: the same Newton iterates and the same steps, the tetrahedra's
   projected 12x12 blocks in the sparse Hessian as in the dense one. Registered by
   cft_ipc_sparse_tests() (test_ipc_sparse.c), run in the fast path's binary (test_fast). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_ipc_sparse.h"
#include "cf/cf_soft.h"
#include "cft.h"

void cft_ipc_tet_tests(Suite *s);

/* the tet box of @p cells^3 cells at @p origin (side @p side, E, nu 0.3, 400 kg/m^3) into @p s, turned
   by @p turn about its vertical axis: its nodes (lumped masses), its surface triangles
   (cf_soft_make_tet_box()'s) and its tetrahedra. Turned, none of its edges is parallel to the
   slab's: a parallel edge-edge pair's closest points are not unique, so its Hessian jumps between
   regions on a rounding-level change of q, and two runs that differ by rounding (a dense and a
   sparse factorization) would part by 1e-6 m after one iteration, as they did before the turn */
static void add_tet_box(cfIpcSystem *s, cfVec3 origin, double side, int cells, double young, double turn)
{
    cfSoftBody b;
    cfError err = {{0}};
    cft_assert_ok(cf_soft_make_tet_box(&b, origin, cfu_vec3(side, side, side), cells, cells, cells, 400.0, young, 0.3, false, &err));
    int o = s->n;
    cfVec3 c = cfu_add(origin, cfu_vec3(0.5 * side, 0.5 * side, 0.0));
    for (int k = 0; k < b.n_nodes; ++k) {
        cfVec3 r = cfu_sub(b.x[k], c);
        cfVec3 x = cfu_add(c, cfu_vec3(cos(turn) * r.x - sin(turn) * r.y, sin(turn) * r.x + cos(turn) * r.y, r.z));
        cft_assert_int_at(cf_ipc_add_node(s, x, b.mass[k], false), >=, 0, "k = %d", k);
    }
    for (int t = 0; t < b.n_tris; ++t) cft_assert_int_at(cf_ipc_add_triangle(s, o + b.tris[t][0], o + b.tris[t][1], o + b.tris[t][2]), >=, 0,
                                                         "t = %d", t);
    for (int t = 0; t < b.n_tets; ++t) {
        const int *n = b.tets[t].n;
        cft_assert_ok(cf_ipc_add_tet(s, (int[4]){o + n[0], o + n[1], o + n[2], o + n[3]}, young, 0.3));
    }
    cf_soft_free(&b);
}

/* two soft tet blocks over a fixed slab, the upper one tilted by its velocity (a spin about y), a
   mass-spring box beside them; dhat 2 mm, kappa 500 N/m */
static void tet_scene(cfIpcSystem *s, double mu)
{
    ck_assert_int_eq(cf_ipc_init(s, 1.0 / 60.0, 2e-3, 500.0), CF_OK);
    s->gravity = cfu_vec3(0, 0, -9.81);
    s->mu = mu;
    ck_assert_int_ge(cf_ipc_add_box(s, cfu_vec3(-0.4, -0.4, -0.2), cfu_vec3(0.4, 0.4, 0.0), 0.0, 0.0, true), 0);
    int lower = s->n;
    add_tet_box(s, cfu_vec3(-0.1, -0.1, 0.003), 0.2, 2, 2e4, 0.2);
    int upper = s->n;
    add_tet_box(s, cfu_vec3(-0.07, -0.05, 0.207), 0.12, 2, 2e4, -0.15);
    ck_assert_int_ge(cf_ipc_add_box(s, cfu_vec3(0.15, -0.05, 0.004), cfu_vec3(0.25, 0.05, 0.1), 0.5, 2e3, false), 0);
    for (int i = lower; i < upper; ++i) s->u[3 * i + 2] = -0.2;
    for (int i = upper; i < s->n - 8; ++i) {
        cfVec3 r = cfu_sub(cf_ipc_node(s->q, i), cfu_vec3(-0.01, 0.01, 0.27));
        s->u[3 * i] = 0.3 + 2.0 * r.z, s->u[3 * i + 2] = -0.5 - 2.0 * r.x;
    }
}

START_TEST(tet_sparse_newton_same_iterates)
{
    /* Newton's first iterations one by one (max_iter = j stops after j of them) on the tet scene:
       dense and sparse iterates agree to 1e-12 m, same halvings and CCD clamps, same energy to 1e-12
       relative (rounding of two factorizations of the same matrix) */
    for (int j = 1; j <= 4; ++j) {
        cfIpcSystem a, b;
        tet_scene(&a, 0.0);
        tet_scene(&b, 0.0);
        ck_assert_int_gt(a.n_tet, 0);
        cf_ipc_step_begin(&a), cf_ipc_step_begin(&b);
        cfIpcOptions o = cf_ipc_options_default();
        o.max_iter = j;
        cfIpcStats sa, sb;
        cfStatus ra = cf_ipc_newton(&a, a.q, &o, &sa), rb = cf_ipc_newton_sparse(&b, b.q, &o, &sb);
        ck_assert_msg(ra == CF_MAX_ITER && rb == CF_MAX_ITER, "j = %d: status %d dense, %d sparse", j, ra, rb);
        cft_assert_int_at(sa.halvings, ==, sb.halvings, "j = %d", j);
        cft_assert_int_at(sa.ccd_clamps, ==, sb.ccd_clamps, "j = %d", j);
        double dq = 0.0, moved = 0.0;
        for (int p = 0; p < 3 * a.n; ++p) dq = fmax(dq, fabs(a.q[p] - b.q[p])), moved = fmax(moved, fabs(a.q[p] - a.q_start[p]));
        ck_assert_msg(dq <= 1e-12, "iteration %d: the iterates differ by %g m (moved %g m)", j, dq, moved);
        ck_assert_msg(moved > 1e-4, "iteration %d: moved %g m", j, moved);
        ck_assert_msg(fabs(sa.energy - sb.energy) <= 1e-12 * fabs(sa.energy), "j = %d: energy %.17g / %.17g", j, sa.energy, sb.energy);
        cf_ipc_free(&a), cf_ipc_free(&b);
    }
}
END_TEST

void cft_ipc_same_steps(cfIpcSystem *a, cfIpcSystem *b, int steps, int lag, const char *what); /* test_ipc_sparse.c */

/* the dense and the sparse step side by side on the tet scene (cft_ipc_same_steps()): positions to
   1e-8 m after every step, statuses CF_OK or CF_STAGNATED, the same pairs active, the iteration
   totals within a quarter */
static void same_tet_steps(double mu, int steps, int lag)
{
    cfIpcSystem a, b;
    tet_scene(&a, mu);
    tet_scene(&b, mu);
    cft_ipc_same_steps(&a, &b, steps, lag, "the blocks touching");
}

START_TEST(tet_sparse_step_matches_dense)
{
    same_tet_steps(0.0, 10, 1);
}
END_TEST

START_TEST(tet_sparse_step_matches_dense_friction)
{
    same_tet_steps(0.5, 8, 2);
}
END_TEST

void cft_ipc_tet_tests(Suite *s)
{
    TCase *t = cft_tcase_long(s, "ipc-tets");
    CFT_TEST(t, tet_sparse_newton_same_iterates, "tet blocks, sparse Newton: the dense Newton's first 4 iterates to 1e-12 m");
    CFT_TEST(t, tet_sparse_step_matches_dense, "tet blocks, sparse step: the dense step's positions to 1e-8 m over 10 steps");
    CFT_TEST(t, tet_sparse_step_matches_dense_friction, "tet blocks with friction, 2 lag iterations: the dense step's positions to 1e-8 m");
}
