/* SPDX-License-Identifier: MIT */
/* Chapter 5 tests: splitting methods and the rigid simulator. Graded tests check certificates
   (natural-map residuals, bounds, cone membership), agreement with brute-force enumeration of
   tiny LCPs and with the analytic 1D stack, monotone descent where theory promises it, and the
   physics acceptance tests of issue 8 (incline, stopping distance, stacks, momentum, energy).
   Run with `make test-ch5` (your code) or `make test-ch5 IMPL=solutions`. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cft.h"
#include "cf/cf_ch01.h"
#include "cf/cf_ch02.h"
#include "cf/cf_ch04.h"
#include "cf/cf_ch05.h"
#include "cf/cf_detect.h"
#include "cf/cf_lcpgen.h"
#include "cf/cf_rng.h"
#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

#define HIST 20000
static double g_hist[HIST];

static void lcp_dense(cfLcp *p, int n, const double *A, const double *b)
{
    cfDense D;
    ck_assert(cf_dense_init(&D, n, n) == CF_OK);
    memcpy(D.a, A, (size_t)n * n * sizeof *A);
    ck_assert(cf_lcp_from_dense(p, &D, b) == CF_OK);
    cf_dense_free(&D);
}

/* random SPD A = B B^T + 0.1 I (entries of B, b uniform in [-1, 1]) */
static void lcp_random_spd(cfLcp *p, int n, uint64_t seed)
{
    cfRng rng;
    cf_rng_seed(&rng, seed);
    double *B = malloc((size_t)n * n * sizeof *B), *A = calloc((size_t)n * n, sizeof *A), *b = malloc((size_t)n * sizeof *b);
    for (int i = 0; i < n * n; ++i) B[i] = cf_rng_range(&rng, -1, 1);
    for (int i = 0; i < n; ++i) {
        b[i] = cf_rng_range(&rng, -1, 1);
        for (int j = 0; j < n; ++j) {
            for (int k = 0; k < n; ++k) A[i * n + j] += B[i * n + k] * B[j * n + k];
            if (i == j) A[i * n + j] += 0.1;
        }
    }
    lcp_dense(p, n, A, b);
    free(B);
    free(A);
    free(b);
}

/* exact solution of a small LCP with a P-matrix by enumerating all 2^n index sets */
static bool lcp_brute_force(const cfLcp *p, double *x)
{
    int n = p->n;
    cfDense A;
    ck_assert(cf_csr_to_dense(&p->A, &A) == CF_OK);
    bool found = false;
    double *w = malloc((size_t)n * sizeof *w), *rhs = malloc((size_t)n * sizeof *rhs), *y = malloc((size_t)n * sizeof *y);
    int *F = malloc((size_t)n * sizeof *F);
    for (long mask = 0; mask < (1L << n) && !found; ++mask) {
        int m = 0;
        for (int i = 0; i < n; ++i)
            if (mask & (1L << i)) F[m++] = i;
        cfDense S;
        ck_assert(cf_dense_init(&S, m > 0 ? m : 1, m > 0 ? m : 1) == CF_OK);
        for (int r = 0; r < m; ++r) {
            rhs[r] = -p->b[F[r]];
            for (int c = 0; c < m; ++c) *cf_dense_at(&S, r, c) = *cf_dense_at(&A, F[r], F[c]);
        }
        bool ok = m == 0 || cf_dense_solve(&S, rhs, y) == CF_OK;
        cf_dense_free(&S);
        if (!ok) continue;
        for (int i = 0; i < n; ++i) x[i] = 0.0;
        for (int r = 0; r < m; ++r) x[F[r]] = y[r];
        cf_lcp_w(p, x, w);
        ok = true;
        for (int i = 0; i < n && ok; ++i) ok = x[i] >= -1e-12 && w[i] >= -1e-10;
        found = ok;
    }
    cf_dense_free(&A);
    free(w);
    free(rhs);
    free(y);
    free(F);
    return found;
}

/* the 1D stack: n particles of mass 1 (the top one ratio), ground contact 0,
   contact i between particles i-1 and i; A = J M^-1 J^T, b = J u* with u* = -h g */
static void lcp_stack(cfLcp *p, int n, double ratio, double h, double *exact)
{
    ck_assert(cf_lcpgen_stack(n, ratio, h, p, exact) == CF_OK);
}

static double max_abs_diff(int n, const double *x, const double *y)
{
    double d = 0.0;
    for (int i = 0; i < n; ++i) d = fmax(d, fabs(x[i] - y[i]));
    return d;
}

/* 1/2 x^T A x + b^T x */
static double lcp_energy(const cfLcp *p, const double *x)
{
    double *w = malloc((size_t)p->n * sizeof *w);
    cf_csr_mul_vec(&p->A, x, w);
    double e = 0.0;
    for (int i = 0; i < p->n; ++i) e += 0.5 * x[i] * w[i] + p->b[i] * x[i];
    free(w);
    return e;
}

/* boxed LCP from a frictional contact problem (box model) */
static void blcp_from_fc(const cfFrictionProblem *fc, cfBlcp *p) { cft_assert_ok(cf_friction_boxed_lcp(fc, p)); }

/* the boxed LCP of one particle of mass 1 (A = I, b = q), built without chapter 2 */
static void blcp_particle(cfBlcp *p, const double q[3], double mu)
{
    double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    cfLcp l;
    lcp_dense(&l, 3, I, q);
    cft_assert_ok(cf_blcp_init(p, &l.A));
    memcpy(p->b, q, 3 * sizeof *q);
    for (int i = 1; i < 3; ++i) {
        p->findex[i] = 0;
        p->mu[i] = mu;
        p->lo[i] = -INFINITY;
    }
    cf_lcp_free(&l);
}

/* a world with ground plane and unit cubes (mass 1), solver pgs */
static void world_ground(cfWorld *w, double dt, double mu, int iters)
{
    cfWorldDef def = cf_world_def_default();
    def.detector = CF_DETECT_PRIMITIVES;
    def.solver = cf_solver_find("pgs");
    def.solver_iterations = iters;
    def.dt = dt;
    def.contact_margin = 0.02;
    ck_assert(cf_world_init(w, &def) == CF_OK);
    cfRigidBody ground;
    ck_assert(cf_rigid_init_fixed(&ground, cf_shape_plane(cfu_vec3(0, 0, 1), 0.0), NULL) == CF_OK);
    ground.mu = mu;
    ck_assert_int_eq(cf_world_add_body(w, &ground), 0);
}

static int add_cube(cfWorld *w, cfVec3 x, double mu)
{
    cfRigidBody b;
    ck_assert(cf_rigid_init(&b, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 1.0, NULL) == CF_OK);
    b.x = x;
    b.mu = mu;
    return cf_world_add_body(w, &b);
}

/* the frictional contact problem of a world's current contacts (frames by cf_contact_frame) */
static void world_fc(cfWorld *w, cfFrictionProblem *fc)
{
    cfDetectOptions opt = cf_detect_options_default();
    cft_assert_ok(cf_detect_world(w, &opt, &w->contacts, NULL));
    for (int a = 0; a < w->contacts.count; ++a) {
        cfContact *c = &w->contacts.items[a];
        cft_assert_ok(cf_contact_frame(c->n, &c->t, &c->b));
    }
    for (int i = 0; i < w->n_bodies; ++i)
        cft_assert_ok_at(cf_rigid_integrate_velocity(&w->bodies[i], w->def.gravity, w->def.dt, false), "i = %d", i);
    cft_assert_ok(cf_friction_problem_rigid(w->bodies, w->n_bodies, w->contacts.items, w->contacts.count, fc));
}

/* two unit cubes stacked on the ground, top mass @p top (notes 3.2.3's Fig. 16) */
static void two_box_world(cfWorld *w, double top, double mu)
{
    world_ground(w, 0.01, mu, 20);
    add_cube(w, cfu_vec3(0, 0, 0.5), mu);
    int t = add_cube(w, cfu_vec3(0, 0, 1.5), mu);
    cfRigidBody *b = &w->bodies[t];
    b->mass = top;
    b->inv_mass = 1.0 / top;
    ck_assert(cf_rigid_set_inertia(b, cfu_vec3(top / 6, top / 6, top / 6), NULL) == CF_OK);
    cf_rigid_update_inertia(b);
}

/* the two-box stack with its top box pushed sideways at @p push: its frictional contact problem
   (chapter 2) and that problem as a boxed LCP */
static void pushed_stack(cfWorld *w, double top, cfVec3 push, cfFrictionProblem *fc, cfBlcp *p)
{
    two_box_world(w, top, 0.5);
    w->bodies[2].v = push;
    world_fc(w, fc);
    blcp_from_fc(fc, p);
}

/* cone membership and Signorini certificates of a solved frictional contact problem */
static void assert_coulomb(const cfFrictionProblem *fc, const double *r, double tol)
{
    double *u = malloc((size_t)3 * fc->nc * sizeof *u);
    cf_fc_velocity(fc, r, u);
    for (int a = 0; a < fc->nc; ++a) {
        const double *ra = &r[3 * a];
        ck_assert_msg(ra[0] >= -1e-14, "r_n < 0 at contact %d", a);
        ck_assert_msg(hypot(ra[1], ra[2]) <= fc->mu[a] * ra[0] * (1 + 1e-9) + 1e-14, "outside the cone at %d", a);
        ck_assert_msg(u[3 * a] >= -tol, "u_n = %g < 0 at contact %d", u[3 * a], a);
        ck_assert_msg(fabs(ra[0] * u[3 * a]) <= tol, "r_n u_n = %g at contact %d", ra[0] * u[3 * a], a);
    }
    free(u);
}

/* A = [[2, 1], [1, 2]], b = (-1, -1) as an LCP and as a boxed LCP with bounds [0, inf): from 0,
   Gauss-Seidel gives x_0 = (1 - x_1)/2, x_1 = (1 - x_0)/2, dyadic and exact in binary; the largest
   change of sweep k is exactly 2^(1 - 2k) (0.5, 0.125, ...), so tol_stag = 1e-6 stops after sweep
   11 (2^-21 = 4.8e-7; sweep 10 changes by 2^-19 = 1.9e-6) */
static const double PGS2_A[4] = {2, 1, 1, 2}, PGS2_B[2] = {-1, -1};
#define PGS2_STAG_SWEEPS 11

static void blcp_pgs2(cfBlcp *p)
{
    cfLcp l;
    lcp_dense(&l, 2, PGS2_A, PGS2_B);
    cft_assert_ok(cf_blcp_init(p, &l.A));
    memcpy(p->b, PGS2_B, sizeof PGS2_B);
    cf_lcp_free(&l);
}

/* PGS2 as a frictional contact problem: two contacts whose normal rows couple like PGS2_A,
   tangents decoupled (identity) and mu = 0 */
static void fc_pgs2(cfFrictionProblem *fc)
{
    const double D[9] = {2, 0, 0, 0, 1, 0, 0, 0, 1}, C[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    *fc = (cfFrictionProblem){.nc = 2}; /* every other member empty (no ellipses: isotropic) */
    cft_assert_ok(cf_bsr_init(&fc->W, 2, 2, 3, 3));
    cft_assert_ok(cf_bsr_add_block(&fc->W, 0, 0, D));
    cft_assert_ok(cf_bsr_add_block(&fc->W, 0, 1, C));
    cft_assert_ok(cf_bsr_add_block(&fc->W, 1, 0, C));
    cft_assert_ok(cf_bsr_add_block(&fc->W, 1, 1, D));
    cf_bsr_finalize(&fc->W);
    fc->q = calloc(6, sizeof *fc->q);
    fc->mu = calloc(2, sizeof *fc->mu);
    fc->q[0] = fc->q[3] = -1.0;
}

/* the options of that stagnation stop */
static cfSplitOptions stag_options(void)
{
    cfSplitOptions o = cf_split_options_default();
    o.tol_abs = 0.0;
    o.tol_stag = 1e-6;
    return o;
}

/* ------------------------------------------------------------------------------------------ */
/* ch05.1 projected Jacobi                                                                     */

START_TEST(ch05_1_worked_example)
{
    double A[4] = {2, 1, 1, 2}, b[2] = {-1, -1}, x[2] = {0, 0};
    cfLcp p;
    lcp_dense(&p, 2, A, b);
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 1;
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_status(cf_lcp_jacobi(&p, &o, x, &rep), CF_MAX_ITER);
    cft_assert_near(x[0], 0.5, 1e-15, 0);
    cft_assert_near(x[1], 0.5, 1e-15, 0);
    cft_assert_status(cf_lcp_jacobi(&p, &o, x, &rep), CF_MAX_ITER);
    cft_assert_near(x[0], 0.25, 1e-15, 0);
    o.max_iter = 200;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_ok(cf_lcp_jacobi(&p, &o, x, &rep));
    ck_assert(rep.reason == CF_STOP_ABSOLUTE);
    cft_assert_near(x[0], 1.0 / 3, 1e-9, 0);
    ck_assert_int_eq(rep.history_len, rep.iterations);
    cft_assert_near(rep.residual, cf_lcp_residual(&p, x), 1e-15, 0);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch05_1_oscillates_where_theory_allows)
{
    /* diagonal 1, off-diagonal 0.6: 2D - A is not PD; Jacobi flips forever */
    double A[9] = {1, .6, .6, .6, 1, .6, .6, .6, 1}, b[3] = {-1, -1, -1}, x[3] = {0, 0, 0};
    cfLcp p;
    lcp_dense(&p, 3, A, b);
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 51;
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_status(cf_lcp_jacobi(&p, &o, x, &rep), CF_MAX_ITER);
    ck_assert(rep.reason == CF_STOP_MAX_ITER);
    for (int i = 0; i < 3; ++i) cft_assert_near_at(x[i], 1.0, 1e-15, 0, "i = %d", i); /* odd sweep count: (1,1,1) */
    cft_assert_near(rep.residual, sqrt(3.0), 1e-12, 0);
    /* damped Jacobi (omega = 0.5) converges on the same problem */
    memset(x, 0, sizeof x);
    o.omega = 0.5;
    o.max_iter = 2000;
    cft_assert_ok(cf_lcp_jacobi(&p, &o, x, &rep));
    for (int i = 0; i < 3; ++i) cft_assert_near_at(x[i], 1 / 2.2, 1e-9, 0, "i = %d", i);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch05_1_diagonally_dominant_exact)
{
    /* strictly diagonally dominant random problems: Jacobi reaches the enumerated solution */
    cfRng rng;
    cf_rng_seed(&rng, 51);
    for (int trial = 0; trial < 5; ++trial) {
        int n = 6;
        double A[36], b[6], x[6] = {0}, xs[6];
        for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int j = 0; j < n; ++j) {
                A[i * n + j] = i == j ? 0 : cf_rng_range(&rng, -0.3, 0.3);
                s += fabs(A[i * n + j]);
            }
            A[i * n + i] = s + cf_rng_range(&rng, 0.5, 1.5);
            b[i] = cf_rng_range(&rng, -1, 1);
        }
        cfLcp p;
        lcp_dense(&p, n, A, b);
        ck_assert(lcp_brute_force(&p, xs));
        cfSplitOptions o = cf_split_options_default();
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_lcp_jacobi(&p, &o, x, &rep));
        ck_assert_double_le(max_abs_diff(n, x, xs), 1e-9);
        cf_lcp_free(&p);
    }
}
END_TEST

START_TEST(ch05_1_stagnation_stop)
{
    /* the stagnation rule needs the largest change of a sweep: A = [[2, 1], [1, 2]], b = (-1, -1)
       from 0 gives x_k = (1 - x_{k-1})/2 in both components, dyadic and exact in binary, so the
       change of sweep k is exactly 2^-k. With tol_abs = 0 and tol_stag = 1e-6 the first sweep
       with 2^-k <= 1e-6 is k = 20 (2^-19 = 1.9e-6, 2^-20 = 9.5e-7): CF_STAGNATED after 20 sweeps,
       at x = (1 - (-1/2)^20)/3 = 349525 / 2^20, exactly */
    double A[4] = {2, 1, 1, 2}, b[2] = {-1, -1}, x[2] = {0, 0};
    cfLcp p;
    lcp_dense(&p, 2, A, b);
    cfSplitOptions o = cf_split_options_default();
    o.tol_abs = 0.0;
    o.tol_stag = 1e-6;
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_status(cf_lcp_jacobi(&p, &o, x, &rep), CF_STAGNATED);
    ck_assert(rep.reason == CF_STOP_STAGNATION);
    ck_assert_int_eq(rep.iterations, 20);
    ck_assert_int_eq(rep.history_len, 20);
    const double want = 349525.0 / 1048576.0;
    cft_assert_near(x[0], want, 0.0, 0);
    cft_assert_near(x[1], want, 0.0, 0);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch05_1_bad_input)
{
    double A[4] = {0, 1, 1, 2}, b[2] = {-1, -1}, x[2] = {0, 0};
    cfLcp p;
    lcp_dense(&p, 2, A, b);
    cfSplitOptions o = cf_split_options_default();
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_status(cf_lcp_jacobi(&p, &o, x, &rep), CF_BAD_INPUT);
    cfError err = {{0}};
    cft_assert_status(cf_lcp_split_check(&p, x, &o, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "A[0][0]") != NULL, "message names the entry: %s", err.msg);
    *cf_dense_at(&(cfDense){2, 2, A}, 0, 0) = 2;
    cf_lcp_free(&p);
    lcp_dense(&p, 2, A, b);
    x[1] = NAN;
    cft_assert_status(cf_lcp_jacobi(&p, &o, x, &rep), CF_BAD_INPUT);
    cf_lcp_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch05.2 PGS                                                                                  */

START_TEST(ch05_2_worked_example)
{
    double A[4] = {2, 1, 1, 2}, b[2] = {-1, -1}, x[2] = {0, 0};
    cfLcp p;
    lcp_dense(&p, 2, A, b);
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 1;
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_status(cf_lcp_pgs(&p, &o, x, &rep), CF_MAX_ITER);
    cft_assert_near(x[0], 0.5, 1e-15, 0);
    cft_assert_near(x[1], 0.25, 1e-15, 0);
    /* the Jacobi counter-example converges under Gauss-Seidel */
    double A3[9] = {1, .6, .6, .6, 1, .6, .6, .6, 1}, b3[3] = {-1, -1, -1}, x3[3] = {0, 0, 0};
    cfLcp q;
    lcp_dense(&q, 3, A3, b3);
    o.max_iter = 200;
    cft_assert_ok(cf_lcp_pgs(&q, &o, x3, &rep));
    for (int i = 0; i < 3; ++i) cft_assert_near_at(x3[i], 1 / 2.2, 1e-9, 0, "i = %d", i);
    cf_lcp_free(&p);
    cf_lcp_free(&q);
}
END_TEST

START_TEST(ch05_2_agrees_with_enumeration)
{
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        int n = 8;
        cfLcp p;
        lcp_random_spd(&p, n, seed);
        double x[8] = {0}, xs[8];
        ck_assert(lcp_brute_force(&p, xs));
        cfSplitOptions o = cf_split_options_default();
        o.max_iter = 100000;
        o.tol_abs = 1e-12;
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_lcp_pgs(&p, &o, x, &rep));
        ck_assert(rep.reason == CF_STOP_ABSOLUTE);
        ck_assert_double_le(max_abs_diff(n, x, xs), 1e-8);
        cf_lcp_free(&p);
    }
}
END_TEST

START_TEST(ch05_2_monotone_descent)
{
    /* PGS on SPD A is projected coordinate descent: 1/2 x'Ax + b'x never increases */
    cfLcp p;
    lcp_random_spd(&p, 30, 7);
    double x[30] = {0};
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 1;
    double e = lcp_energy(&p, x);
    for (int k = 0; k < 200; ++k) {
        cf_lcp_pgs(&p, &o, x, NULL);
        double e2 = lcp_energy(&p, x);
        ck_assert_msg(e2 <= e + 1e-13, "energy rose at sweep %d: %.17g -> %.17g", k, e, e2);
        e = e2;
        for (int i = 0; i < 30; ++i) cft_assert_at(x[i] >= 0.0, "i = %d", i);
    }
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch05_2_stack_analytic)
{
    /* 1D stack: each contact carries the weight above it */
    double exact[10], x[10] = {0};
    cfLcp p;
    lcp_stack(&p, 10, 1.0, 0.01, exact);
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 10000;
    o.tol_abs = 1e-8 * exact[0];
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_ok(cf_lcp_pgs(&p, &o, x, &rep));
    ck_assert_double_le(max_abs_diff(10, x, exact), 1e-6 * exact[0]);
    /* about 586 sweeps from zero (min-map residual); stays in a band (the 2-norm here) */
    ck_assert_int_ge(rep.iterations, 300);
    ck_assert_int_le(rep.iterations, 900);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch05_2_stopping_rules)
{
    cfLcp p;
    lcp_random_spd(&p, 20, 3);
    double x[20] = {0};
    cfSplitOptions o = cf_split_options_default();
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    o.tol_abs = 0;
    o.tol_rel = 1e-3;
    cft_assert_ok(cf_lcp_pgs(&p, &o, x, &rep));
    ck_assert(rep.reason == CF_STOP_RELATIVE);
    o.tol_rel = 0;
    o.tol_stag = 1e-6;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_status(cf_lcp_pgs(&p, &o, x, &rep), CF_STAGNATED);
    ck_assert(rep.reason == CF_STOP_STAGNATION);
    /* already solved: returns at once */
    o.tol_stag = 0;
    o.tol_abs = 1e-3;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_ok(cf_lcp_pgs(&p, &o, x, &rep));
    ck_assert_int_eq(rep.iterations, 0);
    cf_lcp_free(&p);
    /* the stagnation stop counts the largest change of a sweep: exactly 11 sweeps on PGS2 */
    double y[2] = {0, 0};
    lcp_dense(&p, 2, PGS2_A, PGS2_B);
    o = stag_options();
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_status(cf_lcp_pgs(&p, &o, y, &rep), CF_STAGNATED);
    ck_assert_int_eq(rep.iterations, PGS2_STAG_SWEEPS);
    ck_assert_int_eq(rep.history_len, PGS2_STAG_SWEEPS);
    cft_assert_near(rep.residual, cf_lcp_residual(&p, y), 0.0, 0);
    cf_lcp_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch05.3 PSOR                                                                                 */

START_TEST(ch05_3_worked_example)
{
    double A[4] = {2, 1, 1, 2}, b[2] = {-1, -1}, x[2] = {0, 0};
    cfLcp p;
    lcp_dense(&p, 2, A, b);
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 1;
    o.omega = 1.5;
    cft_assert_status(cf_lcp_psor(&p, &o, x, NULL), CF_MAX_ITER);
    cft_assert_near(x[0], 0.75, 1e-15, 0);
    cft_assert_near(x[1], 0.1875, 1e-15, 0);
    o.omega = 2.0;
    cft_assert_status(cf_lcp_psor(&p, &o, x, NULL), CF_BAD_INPUT);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch05_3_omega_scan)
{
    /* an omega scan on the 1D stack: over-relaxation helps, 1.8 is far better than 1 */
    double exact[10];
    cfLcp p;
    lcp_stack(&p, 10, 1.0, 0.01, exact);
    double omegas[3] = {0.6, 1.0, 1.8};
    int sweeps[3];
    for (int k = 0; k < 3; ++k) {
        double x[10] = {0};
        cfSplitOptions o = cf_split_options_default();
        o.max_iter = 20000;
        o.tol_abs = 1e-8 * exact[0];
        o.omega = omegas[k];
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_lcp_psor(&p, &o, x, &rep));
        ck_assert_double_le(max_abs_diff(10, x, exact), 1e-6 * exact[0]);
        sweeps[k] = rep.iterations;
    }
    ck_assert_int_gt(sweeps[0], sweeps[1]);
    ck_assert_int_lt(5 * sweeps[2], sweeps[1]);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch05_3_agrees_with_enumeration)
{
    for (uint64_t seed = 11; seed <= 14; ++seed) {
        cfLcp p;
        lcp_random_spd(&p, 7, seed);
        double x[7] = {0}, xs[7];
        ck_assert(lcp_brute_force(&p, xs));
        cfSplitOptions o = cf_split_options_default();
        o.omega = 1.3;
        o.max_iter = 100000;
        o.tol_abs = 1e-12;
        cft_assert_ok(cf_lcp_psor(&p, &o, x, NULL));
        ck_assert_double_le(max_abs_diff(7, x, xs), 1e-8);
        cf_lcp_free(&p);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch05.4 boxed PGS                                                                            */

START_TEST(ch05_4_particle_stick_and_slip)
{
    double q[3] = {-2, 1, 0.1};
    cfBlcp p;
    blcp_particle(&p, q, 0.3);
    double x[3] = {0, 0, 0};
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 1;
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cf_blcp_pgs(&p, &o, x, &rep);
    cft_assert_near(x[0], 2.0, 1e-15, 0);
    cft_assert_near(x[1], -0.6, 1e-15, 0);
    cft_assert_near(x[2], -0.1, 1e-15, 0);
    cft_assert_near(rep.residual, 0.0, 1e-14, 0);
    /* relaxation: with omega = 0.5 one sweep gives x_n = 0 + 0.5 * 2 = 1, then the bounds
       +-mu x_n = +-0.3 clip x_t = -0.5 to -0.3, and x_b = -0.05 */
    memset(x, 0, sizeof x);
    o.omega = 0.5;
    cf_blcp_pgs(&p, &o, x, NULL);
    cft_assert_near(x[0], 1.0, 1e-15, 0);
    cft_assert_near(x[1], -0.3, 1e-15, 0);
    cft_assert_near(x[2], -0.05, 1e-15, 0);
    cf_blcp_free(&p);
    /* the stagnation stop on PGS2 (bounds [0, inf)): exactly 11 sweeps, as plain PGS */
    double y[2] = {0, 0};
    blcp_pgs2(&p);
    o = stag_options();
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_status(cf_blcp_pgs(&p, &o, y, &rep), CF_STAGNATED);
    ck_assert_int_eq(rep.iterations, PGS2_STAG_SWEEPS);
    cft_assert_near(rep.residual, cf_blcp_residual(&p, y), 0.0, 0);
    cf_blcp_free(&p);
}
END_TEST

START_TEST(ch05_4_box_stack_certificates)
{
    /* two stacked boxes, friction 0.5 and a sideways push: the boxed LCP converges, bounds hold */
    cfWorld w;
    cfFrictionProblem fc;
    cfBlcp p;
    pushed_stack(&w, 1.0, cfu_vec3(0.3, 0.1, 0), &fc, &p);
    double *x = calloc((size_t)p.n, sizeof *x);
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 20000;
    o.tol_abs = 1e-9;
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_ok(cf_blcp_pgs(&p, &o, x, &rep));
    for (int i = 0; i < p.n; ++i) {
        double lo, hi;
        cf_blcp_bounds(&p, x, i, &lo, &hi);
        cft_assert_at(x[i] >= lo - 1e-15 && x[i] <= hi + 1e-15, "i = %d", i);
    }
    /* aggregates (corner impulses are not unique): ground carries both boxes */
    double sum = 0;
    for (int a = 0; a < w.contacts.count; ++a)
        if (w.contacts.items[a].body_a == 0) sum += x[3 * a];
    cft_assert_near(sum, 2 * 9.81 * 0.01, 1e-6, 0);
    free(x);
    cf_blcp_free(&p);
    cf_fc_free(&fc);
    cf_world_free(&w);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch05.5 blocked Gauss-Seidel                                                                 */

START_TEST(ch05_5_local_solve_cases)
{
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    /* stick: the tangential velocity is cancelled exactly */
    double u[3] = {-2, 0.3, -0.4}, r[3] = {0, 0, 0};
    cf_contact_local_solve(W, 0.5, CF_FRICTION_CONE, 1.0, u, r);
    cft_assert_near(r[0], 2, 1e-15, 0);
    cft_assert_near(r[1], -0.3, 1e-15, 0);
    cft_assert_near(r[2], 0.4, 1e-15, 0);
    cft_assert_near(u[1], 0.0, 1e-15, 0);
    /* slip: on the cone's boundary, opposite to the sliding direction (3, 4)/5 */
    double u2[3] = {-2, 3, 4}, r2[3] = {0, 0, 0};
    cf_contact_local_solve(W, 0.5, CF_FRICTION_CONE, 1.0, u2, r2);
    cft_assert_near(r2[1], -0.6, 1e-14, 0);
    cft_assert_near(r2[2], -0.8, 1e-14, 0);
    cft_assert_near(u2[1] * r2[2] - u2[2] * r2[1], 0.0, 1e-14, 0); /* u_T parallel to r_T */
    ck_assert(u2[1] * r2[1] + u2[2] * r2[2] < 0);
    /* box: each tangent clamped on its own (the square allows sqrt(2) mu r_n on the diagonal) */
    double u3[3] = {-2, 3, 4}, r3[3] = {0, 0, 0};
    cf_contact_local_solve(W, 0.5, CF_FRICTION_BOX, 1.0, u3, r3);
    cft_assert_near(r3[1], -1.0, 1e-15, 0);
    cft_assert_near(r3[2], -1.0, 1e-15, 0);
    /* separating: nothing */
    double u4[3] = {1, 3, 4}, r4[3] = {0, 0, 0};
    cf_contact_local_solve(W, 0.5, CF_FRICTION_CONE, 1.0, u4, r4);
    ck_assert(r4[0] == 0 && r4[1] == 0 && r4[2] == 0);
    /* the tie: a stick candidate exactly on the cone's edge is taken (|r_T*| <= mu r_n). W =
       diag(1, 2, 1), u = (-1, 0, 0.5), mu = 0.5: r_n = 1, r_T* = (0, -0.5) with |r_T*|^2 = 0.25 =
       (mu r_n)^2 exactly; the gradient step (sigma = 2) would give (0, -0.25) instead */
    const double Wd[9] = {1, 0, 0, 0, 2, 0, 0, 0, 1};
    double u5[3] = {-1, 0, 0.5}, r5[3] = {0, 0, 0};
    cf_contact_local_solve(Wd, 0.5, CF_FRICTION_CONE, 1.0, u5, r5);
    cft_assert_near(r5[0], 1.0, 0.0, 0);
    cft_assert_near(r5[1], 0.0, 0.0, 0);
    cft_assert_near(r5[2], -0.5, 0.0, 0);
    cft_assert_near(u5[2], 0.0, 0.0, 0);
    /* the local solve does not depend on the units: W and u scaled by s (a heavy body, or
       impulses in other units) give the same r. W = s diag(1, 2, 1), u = s (-1, 0, 0.25),
       mu = 0.5: r_n = 1 and the stick candidate (0, -0.25) is inside the cone, where the
       gradient step (sigma = 2 s) would give (0, -0.125) */
    const double scales[] = {1e-9, 1.0, 1e6};
    for (int k = 0; k < 3; ++k) {
        const double sc = scales[k];
        const double Ws[9] = {sc, 0, 0, 0, 2 * sc, 0, 0, 0, sc};
        double us[3] = {-sc, 0, 0.25 * sc}, rs[3] = {0, 0, 0};
        cf_contact_local_solve(Ws, 0.5, CF_FRICTION_CONE, 1.0, us, rs);
        cft_assert_near_at(rs[0], 1.0, 1e-12, 0, "W scaled by %g", sc);
        cft_assert_near_at(rs[1], 0.0, 1e-12, 0, "W scaled by %g", sc);
        cft_assert_near_at(rs[2], -0.25, 1e-12, 0, "W scaled by %g: the stick candidate, not a gradient step", sc);
    }
}
END_TEST

/* the local solve of the spec written out step by step (the test's own implementation) */
static void local_solve_by_hand(const double W[9], double mu, cfFrictionModel model, double omega, double u[3],
                                double r[3])
{
    double rn = fmax(0.0, r[0] - omega * u[0] / W[0]), dn = rn - r[0];
    for (int i = 0; i < 3; ++i) u[i] += W[3 * i] * dn;
    r[0] = rn;
    if (model == CF_FRICTION_BOX) {
        for (int k = 1; k < 3; ++k) {
            double rk = fmin(fmax(r[k] - omega * u[k] / W[4 * k], -mu * rn), mu * rn), d = rk - r[k];
            for (int i = 0; i < 3; ++i) u[i] += W[3 * i + k] * d;
            r[k] = rk;
        }
        return;
    }
    double a = W[4], b = W[5], c = W[8], det = a * c - b * b;
    double s1 = r[1] - (c * u[1] - b * u[2]) / det, s2 = r[2] - (a * u[2] - b * u[1]) / det;
    if (hypot(s1, s2) > mu * rn) {
        double sigma = 0.5 * (a + c) + sqrt(0.25 * (a - c) * (a - c) + b * b);
        s1 = r[1] - omega * u[1] / sigma;
        s2 = r[2] - omega * u[2] / sigma;
        double len = hypot(s1, s2);
        if (len > mu * rn) s1 *= mu * rn / len, s2 *= mu * rn / len;
    }
    double d1 = s1 - r[1], d2 = s2 - r[2];
    for (int i = 0; i < 3; ++i) u[i] += W[3 * i + 1] * d1 + W[3 * i + 2] * d2;
    r[1] = s1;
    r[2] = s2;
}

START_TEST(ch05_5_local_solve_general_block)
{
    /* a block with coupling between all three rows and an anisotropic tangent part,
       W = [[2, 0.3, -0.2], [0.3, 2, 0.5], [-0.2, 0.5, 1]]: the normal step changes u_T through
       W_Tn before the tangents are solved (with the updated u_T); the stick candidate solves with
       the 2x2 W_TT, the slip step uses its largest eigenvalue 1.5 + sqrt(0.5) (not W_tt); omega
       scales the normal and the slip step. Checked against the spec written out (above), for
       sticking, sliding, omega = 0.7, and a warm start inside the cone; then the box model. */
    const double W[9] = {2, 0.3, -0.2, 0.3, 2, 0.5, -0.2, 0.5, 1};
    const double cases[7][7] = {
        /* u0, u1, u2, r0, r1, r2, omega */
        {-2, 0.05, -0.05, 0, 0, 0, 1.0}, /* sticks: |r_T*| = 0.47 <= mu r_n = 0.5 */
        {-2, 3, 4, 0, 0, 0, 1.0},       /* slides */
        {-2, 3, 4, 0, 0, 0, 0.7},       /* slides, relaxed */
        {-1, 0.2, -0.1, 0.5, 0.1, -0.1, 0.7},
        {0.5, 2, 1, 0.2, 0.05, 0.05, 1.0}, /* lifts off: r_n = 0, no friction */
        {0, 2, 1, 1, 0, 0, 1.0},         /* r_n stays: the largest change is a tangent's (< 0) */
        {0, -0.5, 2, 1, 0.1, 0.2, 1.0},  /* ... the second tangent's */
    };
    for (int k = 0; k < 14; ++k) {
        /* cases 0-6 with the cone, again with the box (each tangent clamped on its own, the
           velocity refreshed in between: the second tangent sees the first's change via W_bt) */
        cfFrictionModel model = k < 7 ? CF_FRICTION_CONE : CF_FRICTION_BOX;
        const double *cs = cases[k % 7];
        double u[3] = {cs[0], cs[1], cs[2]}, r[3] = {cs[3], cs[4], cs[5]};
        double uw[3], rw[3];
        memcpy(uw, u, sizeof u);
        memcpy(rw, r, sizeof r);
        local_solve_by_hand(W, 0.5, model, cs[6], uw, rw);
        double r0[3] = {r[0], r[1], r[2]};
        double change = cf_contact_local_solve(W, 0.5, model, cs[6], u, r);
        for (int i = 0; i < 3; ++i) {
            cft_assert_near_at(r[i], rw[i], 1e-14, 0, "i = %d", i);
            cft_assert_near_at(u[i], uw[i], 1e-14, 0, "i = %d", i);
        }
        cft_assert_near(change, fmax(fabs(r[0] - r0[0]), fmax(fabs(r[1] - r0[1]), fabs(r[2] - r0[2]))), 1e-15, 0);
        if (k == 0) cft_assert_near(hypot(u[1], u[2]), 0.0, 1e-14, 0); /* sticking cancels u_T */
        if (k == 4) ck_assert(r[0] == 0.0 && r[1] == 0.0 && r[2] == 0.0);
    }
}
END_TEST

START_TEST(ch05_5_box_stack_coulomb)
{
    for (int model = 0; model < 2; ++model) {
        cfWorld w;
        two_box_world(&w, 1.0, 0.5);
        w.bodies[2].v = cfu_vec3(0.4, 0.2, 0);
        w.bodies[1].w = cfu_vec3(0, 0, 0.5);
        cfFrictionProblem fc;
        world_fc(&w, &fc);
        double *r = calloc((size_t)3 * fc.nc, sizeof *r);
        cfSplitOptions o = cf_split_options_default();
        o.friction = (cfFrictionModel)model;
        o.max_iter = 20000;
        o.tol_abs = 1e-10;
        cfReport rep;
        cf_report_init(&rep, g_hist, HIST);
        cft_assert_ok(cf_fc_bgs(&fc, &o, r, &rep));
        if (model == CF_FRICTION_CONE) {
            cft_assert_near(cf_fc_residual(&fc, r), 0.0, 1e-9, 0);
            assert_coulomb(&fc, r, 1e-8);
        } else {
            cfBlcp p;
            blcp_from_fc(&fc, &p);
            cft_assert_near(cf_blcp_residual(&p, r), 0.0, 1e-9, 0);
            cf_blcp_free(&p);
        }
        free(r);
        cf_fc_free(&fc);
        cf_world_free(&w);
    }
}
END_TEST

START_TEST(ch05_5_stagnation_stop)
{
    /* blocked GS on PGS2 as two frictionless contacts is PGS on the normals: the largest change
       of sweep k is 2^(1 - 2k), so tol_stag = 1e-6 stops after exactly 11 sweeps (both models) */
    for (int model = 0; model < 2; ++model) {
        cfFrictionProblem fc;
        fc_pgs2(&fc);
        double r[6] = {0};
        cfSplitOptions o = stag_options();
        o.friction = (cfFrictionModel)model;
        cfReport rep;
        cf_report_init(&rep, g_hist, HIST);
        cft_assert_status(cf_fc_bgs(&fc, &o, r, &rep), CF_STAGNATED);
        ck_assert_int_eq(rep.iterations, PGS2_STAG_SWEEPS);
        cf_fc_free(&fc);
    }
}
END_TEST

START_TEST(ch05_5_box_model_matches_boxed_pgs)
{
    /* with the box model, blocked GS and boxed PGS visit the same rows in the same order */
    cfWorld w;
    cfFrictionProblem fc;
    cfBlcp p;
    pushed_stack(&w, 3.0, cfu_vec3(0.4, 0.2, 0), &fc, &p);
    int n = 3 * fc.nc;
    double *r1 = calloc((size_t)n, sizeof *r1), *r2 = calloc((size_t)n, sizeof *r2);
    cfSplitOptions o = cf_split_options_default();
    o.friction = CF_FRICTION_BOX;
    o.max_iter = 7;
    o.tol_abs = 0;
    cf_fc_bgs(&fc, &o, r1, NULL);
    cf_blcp_pgs(&p, &o, r2, NULL);
    ck_assert_double_le(max_abs_diff(n, r1, r2), 1e-12);
    free(r1);
    free(r2);
    cf_blcp_free(&p);
    cf_fc_free(&fc);
    cf_world_free(&w);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch05.6 matrix-free PGS and the simulator                                                    */

START_TEST(ch05_6_prepare_worked)
{
    cfRigidBody b[2];
    ck_assert(cf_rigid_init_fixed(&b[0], cf_shape_plane(cfu_vec3(0, 0, 1), 0), NULL) == CF_OK);
    ck_assert(cf_rigid_init(&b[1], cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 1.0, NULL) == CF_OK);
    b[1].x = cfu_vec3(0, 0, 0.5);
    cf_rigid_update_inertia(&b[1]);
    cfContact c;
    memset(&c, 0, sizeof c);
    c.body_a = 0;
    c.body_b = 1;
    c.p = cfu_vec3(0.5, 0.5, 0);
    c.n = cfu_vec3(0, 0, 1);
    c.t = cfu_vec3(1, 0, 0);
    c.b = cfu_vec3(0, 1, 0);
    c.phi = -0.01;
    c.mu = 0.5;
    c.lambda[0] = 0.7;
    cfRigidPgsOptions o = cf_rigid_pgs_options_default();
    cfRigidPgs ws;
    memset(&ws, 0, sizeof ws);
    cft_assert_ok(cf_rigid_pgs_prepare(b, 2, &c, 1, &o, &ws));
    cft_assert_near(ws.rows[0].W[0], 4.0, 1e-12, 0);
    ck_assert_int_eq(ws.rows[0].ia, -1);
    ck_assert_int_eq(ws.rows[0].ib, 1);
    cft_assert_near(ws.rows[0].bias, 0.2 * -0.01 * 60, 1e-12, 0);
    cft_assert_near(ws.rows[0].lambda[0], 0.7, 0, 0);
    /* W_aa equals the diagonal block of the assembled Delassus operator (ch02.5) */
    cfBsr W;
    cft_assert_ok(cf_delassus_rigid(b, 2, &c, 1, &W));
    for (int i = 0; i < 9; ++i) cft_assert_near_at(ws.rows[0].W[i], W.val[i], 1e-12, 0, "i = %d", i);
    cf_bsr_free(&W);
    c.body_b = 0;
    cft_assert_status(cf_rigid_pgs_prepare(b, 2, &c, 1, &o, &ws), CF_BAD_INPUT);
    cf_rigid_pgs_free(&ws);
}
END_TEST

START_TEST(ch05_6_matrix_free_equals_assembled)
{
    /* the matrix-free sweep is blocked GS on W = J M^-1 J^T without building W: same iterates */
    cfWorld w;
    two_box_world(&w, 2.0, 0.5);
    w.bodies[2].v = cfu_vec3(0.4, 0.2, 0);
    w.bodies[2].w = cfu_vec3(0.1, 0, 0.3);
    cfFrictionProblem fc;
    world_fc(&w, &fc); /* velocities are now u*, contacts have frames */
    int nc = fc.nc;
    for (int a = 0; a < nc; ++a) cft_assert_at(w.contacts.items[a].phi == 0.0, "a = %d", a);
    double *r = calloc((size_t)3 * nc, sizeof *r);
    cfSplitOptions so = cf_split_options_default();
    so.max_iter = 6;
    so.tol_abs = 0;
    cf_fc_bgs(&fc, &so, r, NULL);
    cfRigidPgsOptions o = cf_rigid_pgs_options_default();
    o.max_iter = 6;
    o.warm_start = false;
    o.h = 0.01;
    cfRigidPgs ws;
    memset(&ws, 0, sizeof ws);
    cft_assert_ok(cf_rigid_pgs_prepare(w.bodies, w.n_bodies, w.contacts.items, nc, &o, &ws));
    cfRigidBody before[3];
    memcpy(before, w.bodies, sizeof before);
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_ok(cf_rigid_pgs_solve(w.bodies, w.n_bodies, w.contacts.items, nc, &ws, &o, &rep));
    ck_assert_int_eq(rep.iterations, 6);
    ck_assert_int_eq(rep.history_len, 6);
    for (int a = 0; a < nc; ++a)
        for (int i = 0; i < 3; ++i) cft_assert_near_at(w.contacts.items[a].lambda[i], r[3 * a + i], 1e-12, 0,
                                                       "a = %d, i = %d", a, i);
    /* the reported residual is Coulomb's natural map at the final velocities: no bias here
       (phi = 0), so it is the assembled problem's cf_fc_residual() at the same impulses */
    cft_assert_near(rep.residual, cf_fc_residual(&fc, r), 1e-12, 1e-9);
    ck_assert(rep.reason == CF_STOP_MAX_ITER);
    /* and the velocities are u* + M^-1 J^T lambda */
    cft_assert_ok(cf_rigid_apply_impulses(before, 3, w.contacts.items, nc, r));
    for (int i = 1; i < 3; ++i) {
        cft_assert_vec3_near_at(w.bodies[i].v, before[i].v, 1e-12, "i = %d", i);
        cft_assert_vec3_near_at(w.bodies[i].w, before[i].w, 1e-12, "i = %d", i);
    }
    cf_rigid_pgs_free(&ws);
    free(r);
    cf_fc_free(&fc);
    cf_world_free(&w);
}
END_TEST

START_TEST(ch05_6_body_zero_on_side_b)
{
    /* two unit spheres (mass 1) in a head-on collision, without gravity or friction effects:
       body 0 at the origin moving (-1, 0, 0) into body 1 at rest at (-2, 0, 0). The contact names
       body 1 as A and body 0 as B (n from A to B = (1, 0, 0)), then the other way round. The
       normal impulse of the inelastic velocity solve is 1/2 (W_nn = 1/m_A + 1/m_B = 2,
       u_n = -1): both end at (-0.5, 0, 0), momentum (-1, 0, 0) kept. Index 0 is a body like any
       other: a test "ib > 0" for "B can move" leaves body 0 at -1 m/s. */
    for (int swap = 0; swap < 2; ++swap) {
        cfRigidBody b[2];
        for (int i = 0; i < 2; ++i) {
            cft_assert_at(cf_rigid_init(&b[i], cf_shape_sphere(1.0), 1.0, NULL) == CF_OK, "i = %d", i);
            b[i].mu = 0.5;
        }
        b[0].v = cfu_vec3(-1, 0, 0);
        b[1].x = cfu_vec3(-2, 0, 0);
        cfContact c;
        memset(&c, 0, sizeof c);
        c.body_a = swap ? 0 : 1;
        c.body_b = swap ? 1 : 0;
        c.p = cfu_vec3(-1, 0, 0);
        c.n = cfu_vec3(swap ? -1 : 1, 0, 0);
        cft_assert_ok(cf_contact_frame(c.n, &c.t, &c.b));
        c.mu = 0.5;
        cfRigidPgsOptions o = cf_rigid_pgs_options_default();
        o.warm_start = false;
        cfRigidPgs ws;
        memset(&ws, 0, sizeof ws);
        cft_assert_ok(cf_rigid_pgs_prepare(b, 2, &c, 1, &o, &ws));
        ck_assert_int_eq(ws.rows[0].ia, c.body_a);
        ck_assert_int_eq(ws.rows[0].ib, c.body_b);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_rigid_pgs_solve(b, 2, &c, 1, &ws, &o, &rep));
        cft_assert_near(c.lambda[0], 0.5, 1e-15, 0);
        /* the reported residual is the contact law's at both bodies' final velocities: 0 */
        cft_assert_near_at(rep.residual, 0.0, 1e-15, 0, "swap %d", swap);
        /* warm started from that impulse on the velocities before the collision: it acts on both
           bodies (index 0 included) before the first sweep, which then changes nothing */
        b[0].v = cfu_vec3(-1, 0, 0);
        b[1].v = cfu_zero3();
        o.warm_start = true;
        cf_rigid_pgs_free(&ws);
        memset(&ws, 0, sizeof ws);
        cft_assert_ok(cf_rigid_pgs_prepare(b, 2, &c, 1, &o, &ws));
        cft_assert_ok(cf_rigid_pgs_solve(b, 2, &c, 1, &ws, &o, NULL));
        cft_assert_near_at(c.lambda[0], 0.5, 1e-15, 0, "swap %d (warm)", swap);
        for (int i = 0; i < 2; ++i) cft_assert_vec3_near_at(b[i].v, cfu_vec3(-0.5, 0, 0), 1e-15, "swap %d, i = %d (warm)", swap, i);
        for (int i = 0; i < 2; ++i) {
            cft_assert_vec3_near_at(b[i].v, cfu_vec3(-0.5, 0, 0), 1e-15, "i = %d", i);
            cft_assert_vec3_near_at(b[i].w, cfu_zero3(), 1e-15, "i = %d", i);
        }
        cf_rigid_pgs_free(&ws);
    }
}
END_TEST

/* one sphere (radius 0.5, mass 2) touching the ground plane (body 0, fixed) at the origin, one
   contact with frame (z, x, y); phi, velocity and options set by the caller */
static void sphere_on_ground(cfRigidBody b[2], cfContact *c, double phi, double vz)
{
    ck_assert(cf_rigid_init_fixed(&b[0], cf_shape_plane(cfu_vec3(0, 0, 1), 0.0), NULL) == CF_OK);
    ck_assert(cf_rigid_init(&b[1], cf_shape_sphere(0.5), 2.0, NULL) == CF_OK);
    b[1].x = cfu_vec3(0, 0, 0.5 + phi);
    b[1].v = cfu_vec3(0, 0, vz);
    cf_rigid_update_inertia(&b[1]);
    memset(c, 0, sizeof *c);
    c->body_a = 0;
    c->body_b = 1;
    c->p = cfu_vec3(0, 0, 0.5 * phi);
    c->n = cfu_vec3(0, 0, 1);
    c->t = cfu_vec3(1, 0, 0);
    c->b = cfu_vec3(0, 1, 0);
    c->phi = phi;
    c->mu = 0.5;
}

static void solve_sphere(cfRigidBody b[2], cfContact *c, const cfRigidPgsOptions *o, cfReport *rep)
{
    cfRigidPgs ws;
    memset(&ws, 0, sizeof ws);
    cft_assert_ok(cf_rigid_pgs_prepare(b, 2, c, 1, o, &ws));
    cft_assert_ok(cf_rigid_pgs_solve(b, 2, c, 1, &ws, o, rep));
    cf_rigid_pgs_free(&ws);
}

START_TEST(ch05_6_bias_cfm_warm_start)
{
    /* a sphere of mass 2 falling onto the ground: W_nn = 1/2 (the arm is along n) */
    cfRigidBody b[2];
    cfContact c;
    cfRigidPgsOptions o = cf_rigid_pgs_options_default();
    o.warm_start = false;
    o.h = 0.01;
    /* a speculative contact (phi = 0.01 > 0, bias phi/h = 1 m/s): at -0.5 m/s the gap does not
       close within the step, no impulse; at -3 m/s the impulse stops it exactly at the ground:
       v = -phi/h = -1, lambda = m (3 - 1) = 4 */
    sphere_on_ground(b, &c, 0.01, -0.5);
    solve_sphere(b, &c, &o, NULL);
    cft_assert_near(c.lambda[0], 0.0, 0.0, 0);
    cft_assert_near(b[1].v.z, -0.5, 0.0, 0);
    sphere_on_ground(b, &c, 0.01, -3.0);
    solve_sphere(b, &c, &o, NULL);
    cft_assert_near(c.lambda[0], 4.0, 1e-14, 0);
    cft_assert_near(b[1].v.z, -1.0, 1e-14, 0);
    /* a penetration (phi = -0.01) is removed by the fraction erp = 0.2: bias -0.2 m/s, the sphere
       at rest leaves at +0.2 m/s, lambda = 0.4 */
    sphere_on_ground(b, &c, -0.01, 0.0);
    solve_sphere(b, &c, &o, NULL);
    cft_assert_near(b[1].v.z, 0.2, 1e-14, 0);
    cft_assert_near(c.lambda[0], 0.4, 1e-14, 0);
    /* constraint force mixing: (W_nn + cfm) lambda + u_n = 0 with cfm = 0.5: falling at -1 m/s,
       lambda = 1 / (0.5 + 0.5) = 1 (not 2), v = -1 + 1/2 = -0.5, after any number of sweeps */
    o.cfm = 0.5;
    sphere_on_ground(b, &c, 0.0, -1.0);
    cfReport rc;
    cf_report_init(&rc, NULL, 0);
    solve_sphere(b, &c, &o, &rc);
    cft_assert_near(c.lambda[0], 1.0, 1e-14, 0);
    cft_assert_near(b[1].v.z, -0.5, 1e-14, 0);
    cft_assert_near(rc.residual, 0.0, 1e-14, 0); /* the law with the same CFM term: satisfied */
    /* the same with the sphere as body 0 on side A (the normal from it into the ground, body 1):
       the residual reads each side's own velocity (the sphere's -0.5, the ground's 0) */
    {
        cfRigidBody bb[2] = {b[1], b[0]};
        cfContact cc = c;
        bb[0].v = cfu_vec3(0, 0, -1.0);
        cc.lambda[0] = cc.lambda[1] = cc.lambda[2] = 0.0;
        cc.body_a = 0, cc.body_b = 1;
        cc.n = cfu_vec3(0, 0, -1);
        cft_assert_ok(cf_contact_frame(cc.n, &cc.t, &cc.b));
        cf_report_init(&rc, NULL, 0);
        solve_sphere(bb, &cc, &o, &rc);
        cft_assert_near(cc.lambda[0], 1.0, 1e-14, 0);
        cft_assert_near(bb[0].v.z, -0.5, 1e-14, 0);
        cft_assert_near(rc.residual, 0.0, 1e-14, 0);
    }
    o.cfm = 0.0;
    /* a warm start acts on the velocities before the first sweep: at rest after gravity
       (v = -g h) with the impulse of the last step m g h carried over, nothing changes; without
       applying it first, the sweep would add a second m g h */
    const double gh = 9.81 * 0.01;
    o.warm_start = true;
    sphere_on_ground(b, &c, 0.0, -gh);
    c.lambda[0] = 2.0 * gh;
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    solve_sphere(b, &c, &o, &rep);
    cft_assert_near(c.lambda[0], 2.0 * gh, 1e-15, 0);
    cft_assert_near(b[1].v.z, 0.0, 1e-15, 0);
    /* the budget: max_iter 0 does no sweep (the sphere falls on at -1 m/s), max_iter 1 one
       (which stops it: a single contact's local solve is exact) */
    o.max_iter = 0;
    sphere_on_ground(b, &c, 0.0, -1.0);
    solve_sphere(b, &c, &o, NULL);
    cft_assert_near(b[1].v.z, -1.0, 0, 0);
    o.max_iter = 1;
    sphere_on_ground(b, &c, 0.0, -1.0);
    cf_report_init(&rep, g_hist, HIST);
    solve_sphere(b, &c, &o, &rep);
    ck_assert_int_eq(rep.iterations, 1);
    cft_assert_near(b[1].v.z, 0.0, 1e-14, 0);
    o.max_iter = cf_rigid_pgs_options_default().max_iter;
    /* the stop on a small change: the first sweep changes lambda by 2 (from rest at -1 m/s),
       the second by 0: with tol 1e-12 the solve stops after 2 sweeps, reason stagnation, and
       the history holds those two changes */
    o.warm_start = false;
    o.tol = 1e-12;
    sphere_on_ground(b, &c, 0.0, -1.0);
    cf_report_init(&rep, g_hist, HIST);
    solve_sphere(b, &c, &o, &rep);
    ck_assert_int_eq(rep.iterations, 2);
    ck_assert(rep.reason == CF_STOP_STAGNATION);
    ck_assert_int_eq(rep.history_len, 2);
    cft_assert_near(g_hist[0], 2.0, 1e-14, 0);
    cft_assert_near(g_hist[1], 0.0, 1e-14, 0);
    cft_assert_near(rep.residual, 0.0, 1e-14, 0);
}
END_TEST

/* box on an incline of angle theta (plane through the origin), released at rest */
static void incline_world(cfWorld *w, double theta, double mu, double dt)
{
    cfWorldDef def = cf_world_def_default();
    def.detector = CF_DETECT_PRIMITIVES;
    def.solver = cf_solver_find("pgs");
    def.solver_iterations = 30;
    def.dt = dt;
    def.contact_margin = 0.02;
    ck_assert(cf_world_init(w, &def) == CF_OK);
    cfVec3 n = cfu_vec3(-sin(theta), 0, cos(theta));
    cfRigidBody ground, box;
    ck_assert(cf_rigid_init_fixed(&ground, cf_shape_plane(n, 0.0), NULL) == CF_OK);
    ground.mu = mu;
    ck_assert(cf_rigid_init(&box, cf_shape_box(cfu_vec3(0.25, 0.25, 0.25)), 1.0, NULL) == CF_OK);
    box.mu = mu;
    box.q = cfu_quat_from_axis_angle(cfu_vec3(0, 1, 0), -theta);
    box.x = cfu_scale(0.25, n);
    cf_world_add_body(w, &ground);
    cf_world_add_body(w, &box);
}

START_TEST(ch05_6_incline_stick_and_slide)
{
    double mu = 0.5, g = 9.81;
    double thetas[4] = {15.0, 26.0, 30.0, 40.0};
    for (int k = 0; k < 4; ++k) {
        double th = thetas[k] * CF_PI / 180.0;
        cfWorld w;
        incline_world(&w, th, mu, 1.0 / 120.0);
        cfVec3 down = cfu_vec3(cos(th), 0, sin(th)); /* unit vector down the slope is -down */
        double s0 = 0, v0 = 0, t0 = 0;
        for (int s = 0; s < 240; ++s) {
            cft_assert_ok(cf_world_step(&w));
            if (s == 59) {
                s0 = -cfu_dot(w.bodies[1].x, down);
                v0 = -cfu_dot(w.bodies[1].v, down);
                t0 = w.time;
            }
        }
        double v1 = -cfu_dot(w.bodies[1].v, down);
        double s1 = -cfu_dot(w.bodies[1].x, down);
        double a_meas = (v1 - v0) / (w.time - t0);
        if (tan(th) <= mu) {
            ck_assert_msg(fabs(s1 - s0) < 1e-3, "theta %g: should stick, slid %g m", thetas[k], s1 - s0);
            ck_assert_msg(fabs(v1) < 1e-3, "theta %g: should stick, v = %g", thetas[k], v1);
        } else {
            double a = g * (sin(th) - mu * cos(th));
            ck_assert_msg(fabs(a_meas - a) <= 0.02 * a, "theta %g: a = %g, want %g", thetas[k], a_meas, a);
        }
        cf_world_free(&w);
    }
}
END_TEST

START_TEST(ch05_6_stopping_distance)
{
    double mu = 0.5, g = 9.81, v0 = 3.0, dt = 1.0 / 240.0;
    cfWorld w;
    world_ground(&w, dt, mu, 30);
    int b = add_cube(&w, cfu_vec3(0, 0, 0.5), mu);
    w.bodies[b].v = cfu_vec3(v0, 0, 0);
    for (int s = 0; s < 600; ++s) cft_assert_ok(cf_world_step(&w));
    double d = w.bodies[b].x.x, want = v0 * v0 / (2 * mu * g);
    ck_assert_msg(fabs(d - want) <= 0.02 * want, "stopped after %g m, want %g", d, want);
    ck_assert_double_le(cfu_norm(w.bodies[b].v), 1e-3);
    cf_world_free(&w);
}
END_TEST

/* largest displacement of any dynamic body from its start after @p steps */
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

START_TEST(ch05_6_stack_of_ten_stands)
{
    cfWorld w;
    world_ground(&w, 1.0 / 60.0, 0.5, 20);
    for (int i = 0; i < 10; ++i) add_cube(&w, cfu_vec3(0, 0, 0.5 + i), 0.5);
    double d = run_drift(&w, 600);
    ck_assert_msg(d < 0.01, "10-box stack drifted %g m in 10 s", d);
    cf_world_free(&w);
}
END_TEST

START_TEST(ch05_6_pyramid_stands)
{
    cfWorld w;
    cfError err;
    cft_assert_ok(cf_scene_load(cft_scene_path("ch05_pyramid_10.json"), &w, NULL, &err));
    ck_assert_int_eq(w.n_bodies, 56);
    double d = run_drift(&w, 600);
    ck_assert_msg(d < 0.01, "10-layer pyramid drifted %g m in 10 s", d);
    cf_world_free(&w);
}
END_TEST

START_TEST(ch05_6_momentum_in_free_collisions)
{
    /* no gravity, no ground: every contact impulse acts on two bodies, equal and opposite.
       Boxes and a sphere: linear momentum is kept exactly. Spheres only (isotropic inertia, so
       free flight keeps L exactly): angular momentum is kept too, through friction that spins them */
    for (int spheres_only = 0; spheres_only < 2; ++spheres_only) {
        cfWorldDef def = cf_world_def_default();
        def.detector = CF_DETECT_PRIMITIVES;
        def.solver = cf_solver_find("pgs");
        def.gravity = cfu_zero3();
        def.erp = 0.0; /* position correction moves centres without momentum: x x p would change */
        cfWorld w;
        ck_assert(cf_world_init(&w, &def) == CF_OK);
        cfRigidBody a, b, c;
        if (spheres_only) {
            ck_assert(cf_rigid_init(&a, cf_shape_sphere(0.5), 2.0, NULL) == CF_OK);
            ck_assert(cf_rigid_init(&b, cf_shape_sphere(0.4), 1.0, NULL) == CF_OK);
        } else {
            ck_assert(cf_rigid_init(&a, cf_shape_box(cfu_vec3(0.5, 0.3, 0.4)), 2.0, NULL) == CF_OK);
            ck_assert(cf_rigid_init(&b, cf_shape_box(cfu_vec3(0.4, 0.4, 0.4)), 1.0, NULL) == CF_OK);
        }
        ck_assert(cf_rigid_init(&c, cf_shape_sphere(0.3), 0.5, NULL) == CF_OK);
        a.mu = b.mu = c.mu = 0.6;
        a.x = cfu_vec3(-1.2, 0.1, 0);
        a.v = cfu_vec3(2, 0, 0.1);
        a.w = cfu_vec3(0.5, 1, 0);
        b.x = cfu_vec3(0.2, -0.3, 0.25);
        b.v = cfu_vec3(-1, 0, 0);
        b.q = cfu_quat_from_axis_angle(cfu_vec3(0, 0, 1), 0.3);
        c.x = cfu_vec3(1.2, 0, 0);
        c.v = cfu_vec3(-2, 0.2, 0);
        cf_world_add_body(&w, &a);
        cf_world_add_body(&w, &b);
        cf_world_add_body(&w, &c);
        cfVec3 p0 = cf_world_linear_momentum(&w), L0 = cf_world_angular_momentum(&w);
        int touched = 0;
        for (int s = 0; s < 120; ++s) {
            cft_assert_ok(cf_world_step(&w));
            touched += w.contacts.count > 0;
        }
        ck_assert_int_gt(touched, 0);
        cft_assert_vec3_near(cf_world_linear_momentum(&w), p0, 1e-10);
        if (spheres_only) cft_assert_vec3_near(cf_world_angular_momentum(&w), L0, 1e-9);
        cf_world_free(&w);
    }
}
END_TEST

START_TEST(ch05_6_no_energy_gain_at_rest)
{
    cfWorld w;
    world_ground(&w, 1.0 / 60.0, 0.5, 20);
    for (int i = 0; i < 3; ++i) add_cube(&w, cfu_vec3(0, 0, 0.5 + i), 0.5);
    double E0 = cf_world_energy(&w);
    for (int s = 0; s < 300; ++s) {
        cft_assert_ok(cf_world_step(&w));
        ck_assert_msg(cf_world_energy(&w) <= E0 + 1e-9, "energy rose to %.12g from %.12g at step %d",
                      cf_world_energy(&w), E0, s);
    }
    cf_world_free(&w);
}
END_TEST

START_TEST(ch05_6_warm_start_helps)
{
    /* on a resting stack, carried-over impulses leave a much smaller residual after 5 sweeps */
    double res[2];
    for (int ws = 0; ws < 2; ++ws) {
        cfWorld w;
        world_ground(&w, 1.0 / 60.0, 0.5, 5);
        w.def.warm_start = ws == 1;
        for (int i = 0; i < 5; ++i) add_cube(&w, cfu_vec3(0, 0, 0.5 + i), 0.5);
        for (int s = 0; s < 120; ++s) cft_assert_ok(cf_world_step(&w));
        res[ws] = w.stats.solver_residual;
        cf_world_free(&w);
    }
    ck_assert_msg(res[1] < 0.5 * res[0], "warm %g vs cold %g", res[1], res[0]);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch05.7 ordering and staggering                                                              */

START_TEST(ch05_7_sequential_equals_pgs)
{
    cfLcp p;
    lcp_random_spd(&p, 12, 5);
    double x1[12] = {0}, x2[12] = {0};
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 9;
    o.tol_abs = 0;
    cf_lcp_pgs_ordered(&p, &o, x2, NULL);
    cf_lcp_pgs(&p, &o, x1, NULL);
    /* the same sweeps: equal but for the rounding of two summation orders (two exercises
       written apart may add a row in different orders; another sweep order differs by far more) */
    ck_assert_double_le(max_abs_diff(12, x1, x2), 1e-12);
    cf_lcp_free(&p);
    /* and the same stagnation stop as ch05.2 on PGS2: exactly 11 sweeps */
    double y[2] = {0, 0};
    lcp_dense(&p, 2, PGS2_A, PGS2_B);
    o = stag_options();
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_status(cf_lcp_pgs_ordered(&p, &o, y, &rep), CF_STAGNATED);
    ck_assert_int_eq(rep.iterations, PGS2_STAG_SWEEPS);
    cft_assert_near(rep.residual, cf_lcp_residual(&p, y), 0.0, 0);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch05_7_orderings_converge_reproducibly)
{
    cfLcp p;
    lcp_random_spd(&p, 8, 9);
    double xs[8];
    ck_assert(lcp_brute_force(&p, xs));
    cfOrdering ords[2] = {CF_ORDER_SYMMETRIC, CF_ORDER_RANDOM};
    for (int k = 0; k < 2; ++k) {
        double x[8] = {0}, y[8] = {0};
        cfSplitOptions o = cf_split_options_default();
        o.ordering = ords[k];
        o.seed = 77;
        o.max_iter = 100000;
        o.tol_abs = 1e-12;
        cfReport r1, r2;
        cf_report_init(&r1, NULL, 0);
        cf_report_init(&r2, NULL, 0);
        cft_assert_ok(cf_lcp_pgs_ordered(&p, &o, x, &r1));
        cft_assert_ok(cf_lcp_pgs_ordered(&p, &o, y, &r2));
        ck_assert_double_le(max_abs_diff(8, x, xs), 1e-8);
        ck_assert_int_eq(r1.iterations, r2.iterations); /* same seed, same run */
        ck_assert_double_le(max_abs_diff(8, x, y), 0.0);
    }
    /* symmetric: the second sweep goes backward (worked 2x2: x = (0.5, 0.25) then (0.375, 0.25)) */
    double A[4] = {2, 1, 1, 2}, b[2] = {-1, -1}, x[2] = {0, 0};
    cfLcp q;
    lcp_dense(&q, 2, A, b);
    cfSplitOptions o = cf_split_options_default();
    o.ordering = CF_ORDER_SYMMETRIC;
    o.max_iter = 2;
    o.tol_abs = 0;
    cf_lcp_pgs_ordered(&q, &o, x, NULL);
    cft_assert_near(x[0], 0.375, 1e-15, 0);
    cft_assert_near(x[1], 0.25, 1e-15, 0);
    cf_lcp_free(&q);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch05_7_staggering)
{
    /* one particle: normal then friction; converges at once (at most 3 outer iterations) */
    double q[3] = {-2, 1, 0.1};
    cfFrictionProblem fc;
    cfBlcp p;
    blcp_particle(&p, q, 0.3);
    double x[3] = {0, 0, 0};
    cfSplitOptions o = cf_split_options_default();
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_ok(cf_blcp_staggered(&p, &o, x, &rep));
    ck_assert_int_le(rep.iterations, 3);
    cft_assert_near(x[1], -0.6, 1e-12, 0);
    cf_blcp_free(&p);
    /* without friction rows an outer iteration is one PGS sweep over the normals: the
       stagnation stop of ch05.2 after exactly 11 */
    double z[2] = {0, 0};
    blcp_pgs2(&p);
    cfSplitOptions so = stag_options();
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_status(cf_blcp_staggered(&p, &so, z, &rep), CF_STAGNATED);
    ck_assert_int_eq(rep.iterations, PGS2_STAG_SWEEPS);
    cf_blcp_free(&p);
    /* the two-box stack: staggered sweeps reach the same residual as plain boxed PGS */
    cfWorld w;
    pushed_stack(&w, 1.0, cfu_vec3(0.4, 0.2, 0), &fc, &p);
    double *y = calloc((size_t)p.n, sizeof *y);
    o.max_iter = 20000;
    o.tol_abs = 1e-9;
    o.inner = 2;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_ok(cf_blcp_staggered(&p, &o, y, &rep));
    cft_assert_near(cf_blcp_residual(&p, y), 0.0, 1e-9, 0);
    /* one outer iteration from 0 is the spec's two halves: a sequential PGS sweep over the rows
       with findex < 0, then one over the others with bounds from the new normals (recomputed
       here; to 1e-12: a row may be summed in any order) */
    {
        const int n = p.n;
        double *one = calloc((size_t)n, sizeof *one), *ref = calloc((size_t)n, sizeof *ref);
        cfSplitOptions o1 = cf_split_options_default();
        o1.max_iter = 1;
        o1.tol_abs = 0.0;
        cf_blcp_staggered(&p, &o1, one, NULL);
        for (int half = 0; half < 2; ++half)
            for (int i = 0; i < n; ++i) {
                if ((p.findex && p.findex[i] >= 0) != (half == 1)) continue;
                double ri = p.b[i], aii = 0.0, lo, hi;
                for (int e = p.A.rowptr[i]; e < p.A.rowptr[i + 1]; ++e) {
                    if (p.A.colidx[e] == i) aii = p.A.val[e];
                    ri += p.A.val[e] * ref[p.A.colidx[e]];
                }
                cf_blcp_bounds(&p, ref, i, &lo, &hi);
                ref[i] = fmax(lo, fmin(ref[i] - ri / aii, hi));
            }
        for (int i = 0; i < n; ++i) cft_assert_near_at(one[i], ref[i], 1e-12, 1e-12, "i = %d", i);
        free(one), free(ref);
    }
    free(y);
    cf_blcp_free(&p);
    cf_fc_free(&fc);
    cf_world_free(&w);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch05.8 PGS-SM and ch05.9 NNCG                                                               */

/* the 1D stack as a boxed LCP (bounds [0, inf), no friction) */
static void blcp_stack(cfBlcp *p, int n, double ratio, double *exact)
{
    cfLcp l;
    lcp_stack(&l, n, ratio, 0.01, exact);
    cft_assert_ok(cf_blcp_init(p, &l.A));
    memcpy(p->b, l.b, (size_t)n * sizeof *l.b);
    cf_lcp_free(&l);
}

START_TEST(ch05_8_stack_in_one_subspace_step)
{
    double exact[10], x[10] = {0};
    cfBlcp p;
    blcp_stack(&p, 10, 100.0, exact);
    cfSplitOptions o = cf_split_options_default();
    o.tol_abs = 1e-8 * exact[0];
    o.max_iter = 50;
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_ok(cf_blcp_pgs_sm(&p, &o, x, &rep));
    ck_assert_int_le(rep.iterations, 2);
    ck_assert_double_le(max_abs_diff(10, x, exact), 1e-9 * exact[0]);
    cf_blcp_free(&p);
}
END_TEST

/* a boxed LCP with a planted solution: SPD A = B B^T / n + I / 2 (random B, seed), bounds that are
   not 0 and a solution x* with variables strictly inside (w = 0), at the lower bound (w > 0) and
   at the upper bound (w < 0), by margins of 0.3 or more: b = w* - A x* */
static void blcp_planted(cfBlcp *p, uint64_t seed, double *xs)
{
    enum { N = 8 };
    const double x0[N] = {0.3, -0.5, 0.8, 0.1, 0.0, -0.2, 2.0, 0.6};
    const double lo[N] = {-1, -0.5, -1, -1, 0, -1, 2.0, -INFINITY};
    const double hi[N] = {1, 1, 0.8, 1, 1, 1, 3.0, 0.6};
    const double w[N] = {0, 0.7, -0.6, 0, 0.4, 0, 0.5, -0.3};
    double B[N * N], A[N * N] = {0}, b[N];
    cfRng rng;
    cf_rng_seed(&rng, seed);
    for (int i = 0; i < N * N; ++i) B[i] = cf_rng_range(&rng, -1, 1);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            for (int k = 0; k < N; ++k) A[i * N + j] += B[i * N + k] * B[j * N + k] / N;
            if (i == j) A[i * N + j] += 0.5;
        }
    for (int i = 0; i < N; ++i) {
        double s = 0.0;
        for (int j = 0; j < N; ++j) s += A[i * N + j] * x0[j];
        b[i] = w[i] - s;
        xs[i] = x0[i];
    }
    cfLcp l;
    lcp_dense(&l, N, A, b);
    cft_assert_ok(cf_blcp_init(p, &l.A));
    memcpy(p->b, b, sizeof b);
    memcpy(p->lo, lo, sizeof lo);
    memcpy(p->hi, hi, sizeof hi);
    cf_lcp_free(&l);
}

START_TEST(ch05_8_variables_at_bounds)
{
    /* the subspace step holds the bounded variables at their (non-zero) bounds: the right-hand
       side is -(b_F + A_FB x_B). On the planted problems one PGS sweep from 0 finds the sets
       (the margins are large), and the subspace solve then lands on x* (A_FF is well conditioned,
       eigenvalues >= 1/2, so its Cholesky solve is accurate to about 1e-15): at most 2 outer
       iterations to tol_abs 1e-12, where plain boxed PGS needs 8 to 12. Dropping A_FB x_B (right
       for bounds at 0 only) or counting variables at a bound as free takes 9 to 11. */
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        cfBlcp p;
        double xs[8], x[8] = {0};
        blcp_planted(&p, seed, xs);
        cfSplitOptions o = cf_split_options_default();
        o.tol_abs = 1e-12;
        o.max_iter = 100;
        cfReport rep;
        cf_report_init(&rep, g_hist, HIST);
        cft_assert_ok(cf_blcp_pgs_sm(&p, &o, x, &rep));
        ck_assert_msg(rep.iterations <= 2, "seed %d: %d outer iterations", (int)seed, rep.iterations);
        ck_assert_double_le(max_abs_diff(8, x, xs), 1e-12);
        cf_blcp_free(&p);
    }
    /* a free set that grows between two subspace solves: one contact (N, T), A = [[1, -0.5],
       [-0.5, 4]], b = (-0.775, -1.3), mu = 0.5, x* = (1, 0.45) with T inside its bound 0.5.
       The PGS sweep from 0 gives x_N = 0.775 and clamps x_T to 0.3875, so F = {N}; the solve on
       F (x_T held) gives x_N = 0.96875, whose bound 0.484375 frees T: F = {N, T}, and the second
       solve, on both, is x*. With inner_sm = 1 one outer iteration stops after the first */
    for (int inner_sm = 1; inner_sm <= 2; ++inner_sm) {
        const double A1[4] = {1, -0.5, -0.5, 4}, b1[2] = {-0.775, -1.3};
        cfLcp l1;
        lcp_dense(&l1, 2, A1, b1);
        cfBlcp p;
        cft_assert_ok(cf_blcp_init(&p, &l1.A));
        memcpy(p.b, b1, sizeof b1);
        p.findex[1] = 0;
        p.mu[1] = 0.5;
        p.lo[1] = -INFINITY;
        double x[2] = {0, 0};
        cfSplitOptions o = cf_split_options_default();
        o.tol_abs = 0.0;
        o.max_iter = 1;
        o.inner_sm = inner_sm;
        cf_blcp_pgs_sm(&p, &o, x, NULL);
        const double want[2][2] = {{0.96875, 0.3875}, {1.0, 0.45}};
        cft_assert_near_at(x[0], want[inner_sm - 1][0], 1e-12, 0, "inner_sm = %d: x_N", inner_sm);
        cft_assert_near_at(x[1], want[inner_sm - 1][1], 1e-12, 0, "inner_sm = %d: x_T", inner_sm);
        cf_blcp_free(&p);
        cf_lcp_free(&l1);
    }
}
END_TEST

START_TEST(ch05_8_friction_and_cycle_example)
{
    /* chapter 4's SPD example that cycles block pivoting: PGS-SM terminates at (0.375, 0, 0) */
    double A[9] = {1.6, -0.8, 1.8, -0.8, 0.7, -0.7, 1.8, -0.7, 2.2}, b[3] = {-0.6, 0.7, -0.3};
    cfLcp l;
    lcp_dense(&l, 3, A, b);
    cfBlcp p;
    cft_assert_ok(cf_blcp_init(&p, &l.A));
    memcpy(p.b, b, sizeof b);
    double x[3] = {0, 0, 0};
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 100;
    cft_assert_ok(cf_blcp_pgs_sm(&p, &o, x, NULL));
    cft_assert_near(x[0], 0.375, 1e-9, 0);
    cft_assert_near(x[1], 0.0, 1e-9, 0);
    cft_assert_near(x[2], 0.0, 1e-9, 0);
    cf_blcp_free(&p);
    cf_lcp_free(&l);
    /* two-box stack with friction: converges, result inside the bounds */
    cfWorld w;
    cfFrictionProblem fc;
    pushed_stack(&w, 1.0, cfu_vec3(0.4, 0.2, 0), &fc, &p);
    double *y = calloc((size_t)p.n, sizeof *y);
    o.max_iter = 5000;
    o.tol_abs = 1e-9;
    o.inner = 3;
    o.inner_sm = 3;
    cft_assert_ok(cf_blcp_pgs_sm(&p, &o, y, NULL));
    for (int i = 0; i < p.n; ++i) {
        double lo, hi;
        cf_blcp_bounds(&p, y, i, &lo, &hi);
        cft_assert_at(y[i] >= lo - 1e-15 && y[i] <= hi + 1e-15, "i = %d", i);
    }
    /* the stagnation stop measures each outer iteration's change |x_k - x_{k-1}|_inf (both
       phases): from runs of exactly k iterations (x_0 = 0, no other stop), the first k whose
       change is <= tol_stag is where a run with tol_stag stops */
    {
        const int n = p.n;
        double *prev = calloc((size_t)n, sizeof *prev), *cur = calloc((size_t)n, sizeof *cur);
        cfSplitOptions os = cf_split_options_default();
        os.tol_abs = 0.0;
        const double tol_stag = 1e-7;
        int want = -1;
        for (int k = 1; k <= 200 && want < 0; ++k) {
            os.max_iter = k;
            memset(cur, 0, (size_t)n * sizeof *cur);
            cf_blcp_pgs_sm(&p, &os, cur, NULL);
            double d = max_abs_diff(n, cur, prev);
            cft_assert_at(fabs(d - tol_stag) > 1e-3 * tol_stag, "k = %d: a change at the tolerance", k);
            if (d <= tol_stag) want = k;
            memcpy(prev, cur, (size_t)n * sizeof *cur);
        }
        ck_assert_int_ge(want, 2);
        os.max_iter = 1000;
        os.tol_stag = tol_stag;
        memset(cur, 0, (size_t)n * sizeof *cur);
        cfReport rs;
        cf_report_init(&rs, g_hist, HIST);
        cf_blcp_pgs_sm(&p, &os, cur, &rs);
        ck_assert(rs.reason == CF_STOP_STAGNATION);
        ck_assert_int_eq(rs.iterations, want);
        free(prev), free(cur);
    }
    free(y);
    cf_blcp_free(&p);
    cf_fc_free(&fc);
    cf_world_free(&w);
}
END_TEST

START_TEST(ch05_9_mass_ratio_stack)
{
    /* at mass ratio 100 NNCG (notes 3.2.7) needs far fewer sweeps than PGS */
    double exact[10], x[10] = {0}, y[10] = {0};
    cfBlcp p;
    blcp_stack(&p, 10, 100.0, exact);
    cfSplitOptions o = cf_split_options_default();
    o.tol_abs = 1e-8 * exact[0];
    o.max_iter = 50000;
    cfReport rn, rp;
    cf_report_init(&rn, g_hist, HIST);
    cf_report_init(&rp, NULL, 0);
    cft_assert_ok(cf_blcp_nncg(&p, &o, x, &rn, NULL));
    cft_assert_ok(cf_blcp_pgs(&p, &o, y, &rp));
    ck_assert_msg(10 * rn.iterations < rp.iterations, "NNCG %d sweeps, PGS %d", rn.iterations, rp.iterations);
    /* a small residual is not a small error at large mass ratios: a looser bound */
    ck_assert_double_le(max_abs_diff(10, x, exact), 1e-4 * exact[0]);
    ck_assert_int_eq(rn.history_len, rn.iterations);
    cf_blcp_free(&p);
}
END_TEST

/* NNCG as the spec states it, on a boxed LCP (the effective bounds of cf_blcp_bounds(), so
   friction rows too), for @p iters iterations from x = 0: the test's own implementation.
   @p outside (may be NULL) gets the number of friction rows outside their bounds before the
   final projection */
static int nncg_by_hand(const cfBlcp *p, int iters, double *x, int *outside)
{
    enum { N = 8 };
    cfDense A;
    ck_assert(p->n <= N);
    ck_assert(cf_csr_to_dense(&p->A, &A) == CF_OK);
    double g[N], dir[N], xold[N], gg_prev = 0.0;
    int restarts = 0;
    for (int i = 0; i < p->n; ++i) x[i] = 0.0;
    for (int k = 0; k < iters; ++k) {
        memcpy(xold, x, sizeof xold);
        for (int i = 0; i < p->n; ++i) { /* G: one PGS sweep */
            double r = p->b[i];
            for (int j = 0; j < p->n; ++j) r += *cf_dense_at(&A, i, j) * x[j];
            double lo, hi;
            cf_blcp_bounds(p, x, i, &lo, &hi);
            x[i] = fmax(lo, fmin(x[i] - r / *cf_dense_at(&A, i, i), hi));
        }
        double gg = 0.0;
        for (int i = 0; i < p->n; ++i) {
            g[i] = xold[i] - x[i];
            gg += g[i] * g[i];
        }
        double beta = k == 0 ? -1.0 : (gg_prev > 0.0 ? gg / gg_prev : 0.0);
        if (k == 0 || beta > 1.0) {
            restarts += k > 0;
            for (int i = 0; i < p->n; ++i) dir[i] = -g[i];
        } else {
            for (int i = 0; i < p->n; ++i) {
                x[i] += beta * dir[i];
                dir[i] = beta * dir[i] - g[i];
            }
        }
        gg_prev = gg;
    }
    /* the final projection: the normals (findex < 0) first, then the friction rows with the
       bounds of the projected normals */
    if (outside) *outside = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < p->n; ++i) {
            if ((p->findex && p->findex[i] >= 0) != (pass == 1)) continue;
            double lo, hi;
            cf_blcp_bounds(p, x, i, &lo, &hi);
            if (outside && pass == 1 && (x[i] < lo || x[i] > hi)) ++*outside;
            x[i] = fmax(lo, fmin(x[i], hi));
        }
    cf_dense_free(&A);
    return restarts;
}

START_TEST(ch05_9_iterates_as_specified)
{
    /* the first 12 iterates of NNCG on a random SPD problem (momentum steps, restarts when
       beta > 1, the final projection) equal the spec written out; round-off only */
    cfLcp l;
    lcp_random_spd(&l, 8, 91);
    cfBlcp p;
    cft_assert_ok(cf_blcp_init(&p, &l.A));
    memcpy(p.b, l.b, 8 * sizeof *l.b);
    int seen_restart = 0;
    for (int k = 1; k <= 12; ++k) {
        double x[8] = {0}, y[8];
        cfSplitOptions o = cf_split_options_default();
        o.max_iter = k;
        o.tol_abs = 0.0;
        int restarts = -1;
        cfReport rep;
        cf_report_init(&rep, g_hist, HIST);
        cf_blcp_nncg(&p, &o, x, &rep, &restarts);
        int want = nncg_by_hand(&p, k, y, NULL);
        cft_assert_int_at(rep.iterations, ==, k, "k = %d", k);
        ck_assert_int_eq(restarts, want);
        ck_assert_msg(max_abs_diff(8, x, y) <= 1e-12, "iteration %d: differs by %g", k, max_abs_diff(8, x, y));
        cft_assert_near(rep.residual, cf_blcp_residual(&p, x), 1e-14, 1e-12);
        seen_restart = want;
    }
    ck_assert_msg(seen_restart > 0, "no restart in 12 iterations: the test does not see that branch");
    /* the same with friction: rows 1-2 and 4-5 are the tangents of the normals 0 and 3
       (bounds +-0.5 x_N), 6 and 7 stay normals. The momentum step leaves the friction bounds,
       so the final projection must clamp the friction rows too, with the bounds of the
       projected normals; in some of the 12 the momentum leaves a friction row outside */
    {
        int fidx[8] = {-1, 0, 0, -1, 3, 3, -1, -1}, outside = 0;
        memcpy(p.findex, fidx, sizeof fidx);
        p.b[0] = p.b[3] = -2.0; /* both contacts pressed */
        for (int i = 0; i < 8; ++i) {
            p.mu[i] = fidx[i] >= 0 ? 0.3 : 0.0;
            p.lo[i] = fidx[i] >= 0 ? -INFINITY : 0.0;
            p.hi[i] = INFINITY;
        }
        for (int k = 1; k <= 12; ++k) {
            double x[8] = {0}, y[8];
            cfSplitOptions o = cf_split_options_default();
            o.max_iter = k;
            o.tol_abs = 0.0;
            cfReport rep;
            cf_report_init(&rep, g_hist, HIST);
            cf_blcp_nncg(&p, &o, x, &rep, NULL);
            int out = 0;
            nncg_by_hand(&p, k, y, &out);
            outside += out;
            ck_assert_msg(max_abs_diff(8, x, y) <= 1e-12, "friction, iteration %d: differs by %g", k,
                          max_abs_diff(8, x, y));
            for (int i = 0; i < 8; ++i) {
                double lo, hi;
                cf_blcp_bounds(&p, x, i, &lo, &hi);
                cft_assert_at(x[i] >= lo && x[i] <= hi, "friction, iteration %d: x[%d] = %g outside [%g, %g]", k, i,
                              x[i], lo, hi);
            }
        }
        ck_assert_msg(outside > 0, "the momentum never left a friction bound: the test does not see the projection");
    }
    /* a sweep that leaves x where it is (g_k = 0) gives beta = 0 at the next iteration, not
       0 / 0: with tol_abs = 0 and 60 iterations PGS on A = [[2, 0.5], [0.5, 1]], b = (-1.8, -1.5)
       reaches a floating-point fixed point next to x = (0.6, 1.2) whose residual (2e-16 in the
       reference's order) never reaches 0, and the iteration goes on there; the answer stays
       finite and where it was */
    {
        const double A2[4] = {2, 0.5, 0.5, 1}, b2[2] = {-1.8, -1.5};
        cfLcp l2;
        lcp_dense(&l2, 2, A2, b2);
        cfBlcp p2;
        cft_assert_ok(cf_blcp_init(&p2, &l2.A));
        memcpy(p2.b, b2, sizeof b2);
        double x[2] = {0, 0};
        cfSplitOptions o = cf_split_options_default();
        o.max_iter = 60;
        o.tol_abs = 0.0;
        cfReport rep;
        cf_report_init(&rep, g_hist, HIST);
        cfStatus st = cf_blcp_nncg(&p2, &o, x, &rep, NULL);
        ck_assert_msg(st == CF_OK || st == CF_MAX_ITER, "status %s", cf_status_name(st));
        ck_assert_msg(cf_vec_finite(2, x), "x = (%g, %g) after a sweep without change", x[0], x[1]);
        cft_assert_near(x[0], 0.6, 1e-14, 1e-14);
        cft_assert_near(x[1], 1.2, 1e-14, 1e-14);
        cf_blcp_free(&p2);
        cf_lcp_free(&l2);
    }
    /* the stagnation stop measures the PGS step max |x_k - G(x_k)|: with only tol_stag set the
       converging iteration stops there, with a step at most tol_stag in its last sweep */
    {
        double x[8] = {0};
        cfSplitOptions o = cf_split_options_default();
        o.max_iter = 10000;
        o.tol_abs = 0.0;
        o.tol_rel = 0.0;
        o.tol_stag = 1e-8;
        cfReport rep;
        cf_report_init(&rep, g_hist, HIST);
        cf_blcp_nncg(&p, &o, x, &rep, NULL);
        ck_assert_int_eq(rep.reason, CF_STOP_STAGNATION);
        ck_assert_int_lt(rep.iterations, 10000);
        /* a step that small is convergence (a measure that stays 0 would stop after one sweep) */
        ck_assert_msg(cf_blcp_residual(&p, x) <= 1e-6, "residual %g at the stagnation stop", cf_blcp_residual(&p, x));
    }
    cf_blcp_free(&p);
    cf_lcp_free(&l);
}
END_TEST

START_TEST(ch05_9_friction_restarts_and_bounds)
{
    cfWorld w;
    cfFrictionProblem fc;
    cfBlcp p;
    pushed_stack(&w, 1.0, cfu_vec3(0.4, 0.2, 0), &fc, &p);
    double *x = calloc((size_t)p.n, sizeof *x);
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 20000;
    o.tol_abs = 1e-9;
    int restarts = -1;
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_ok(cf_blcp_nncg(&p, &o, x, &rep, &restarts));
    ck_assert_int_gt(restarts, 0);
    for (int i = 0; i < p.n; ++i) {
        double lo, hi;
        cf_blcp_bounds(&p, x, i, &lo, &hi);
        cft_assert_at(x[i] >= lo - 1e-15 && x[i] <= hi + 1e-15, "i = %d", i);
    }
    cft_assert_near(cf_blcp_residual(&p, x), 0.0, 1e-9, 0);
    free(x);
    cf_blcp_free(&p);
    cf_fc_free(&fc);
    cf_world_free(&w);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* library (ungraded)                                                                          */

START_TEST(lib_stop_rule_order)
{
    cfSplitOptions o = cf_split_options_default();
    o.tol_rel = 1e-2;
    o.tol_stag = 1e-3;
    o.max_iter = 10;
    ck_assert(cf_split_stop(&o, 1, 1.0, NAN, 1) == CF_STOP_DIVERGENCE);
    ck_assert(cf_split_stop(&o, 1, 1.0, 1e9, 1) == CF_STOP_DIVERGENCE);
    ck_assert(cf_split_stop(&o, 1, 1.0, 1e-11, 1) == CF_STOP_ABSOLUTE);
    ck_assert(cf_split_stop(&o, 1, 1.0, 1e-3, 1) == CF_STOP_RELATIVE);
    ck_assert(cf_split_stop(&o, 1, 1.0, 0.5, 1e-4) == CF_STOP_STAGNATION);
    ck_assert(cf_split_stop(&o, 10, 1.0, 0.5, 1) == CF_STOP_MAX_ITER);
    ck_assert(cf_split_stop(&o, 9, 1.0, 0.5, 1) == CF_STOP_NONE);
    int perm[5];
    cf_ordering_permutation(CF_ORDER_SYMMETRIC, 5, 1, NULL, perm);
    ck_assert_int_eq(perm[0], 4);
    cfRng rng;
    cf_rng_seed(&rng, 3);
    cf_ordering_permutation(CF_ORDER_RANDOM, 5, 0, &rng, perm);
    int seen = 0;
    for (int i = 0; i < 5; ++i) seen |= 1 << perm[i];
    ck_assert_int_eq(seen, 31);
}
END_TEST

START_TEST(lib_scene_keys)
{
    const char *json = "{\"world\": {\"solver\": \"nncg\", \"friction_model\": \"box\", \"ordering\": \"sequential\","
                       " \"warm_start\": false, \"relaxation\": 1.2, \"erp\": 0.3, \"cfm\": 1e-6},"
                       " \"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1}]}";
    cfWorld w;
    cfError err;
    cft_assert_ok(cf_scene_parse(json, "test", &w, NULL, &err));
    ck_assert(w.def.solver == cf_solver_find("nncg") && w.def.friction_model == CF_FRICTION_BOX);
    ck_assert(w.def.ordering == CF_ORDER_SEQUENTIAL && !w.def.warm_start);
    cft_assert_near(w.def.relaxation + w.def.erp + w.def.cfm, 1.5 + 1e-6, 1e-12, 0);
    cf_world_free(&w);
    const char *bad = "{\"world\": {\"solver\": \"pgx\"}, \"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1}]}";
    cft_assert_status(cf_scene_parse(bad, "test", &w, NULL, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "solver") != NULL, "%s", err.msg);
    /* an ordering only the matrix-free PGS takes: refused for the others, with the ones that take it */
    const char *order = "{\"world\": {\"solver\": \"pgs-blocked\", \"ordering\": \"random\"}, \"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1}]}";
    cft_assert_status(cf_scene_parse(order, "test", &w, NULL, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "world.ordering: solver 'pgs-blocked' sweeps in one order only") && strstr(err.msg, "pgs"),
                  "%s", err.msg);
}
END_TEST

START_TEST(lib_solvers_agree_in_world)
{
    /* every world solver of chapter 5 keeps a resting two-box stack in place for a second */
    for (int i = 0; i < cf_solver_count(); ++i) {
        const cfSolver *s = cf_solver_at(i);
        if (s->chapter != 5 || !s->contacts) continue;
        cfWorld w;
        world_ground(&w, 1.0 / 60.0, 0.5, 30);
        w.def.solver = s;
        add_cube(&w, cfu_vec3(0, 0, 0.5), 0.5);
        add_cube(&w, cfu_vec3(0.1, 0, 1.5), 0.5);
        double d = run_drift(&w, 60);
        ck_assert_msg(d < 0.005, "solver %s: drift %g", s->name, d);
        cf_world_free(&w);
    }
}
END_TEST

START_TEST(lib_world_residual_history)
{
    /* cfStepStats keeps the last solve's residual after every iteration (cf_world.h). On a
       warm-started three-box stack at rest, for every world solver of chapter 5: one entry per
       iteration; the last entry of a natural-map history is the final residual (the matrix-free
       PGS records its largest impulse change per sweep instead); and the residual goes down over the sweeps:
       never up by more than 1% from one sweep to the next for the Gauss-Seidel family, below
       3/4 of the first at the end (NNCG, not monotone by design: below the first) */
    for (int i = 0; i < cf_solver_count(); ++i) {
        const cfSolver *s = cf_solver_at(i);
        if (s->chapter != 5 || !s->contacts) continue;
        cfWorld w;
        world_ground(&w, 1.0 / 60.0, 0.5, 30);
        w.def.solver = s;
        w.def.solver_tolerance = 0.0; /* the whole budget: 30 iterations */
        /* Baumgarte's bias gives every step's solve something to do; under split impulse the
           warm-started stack at rest is solved to roundoff (1e-16) within two sweeps (the soft
           step corrects positions in its substeps only and takes no bias) */
        if (!s->split_only) w.def.stabilization = CF_STAB_BAUMGARTE;
        for (int i = 0; i < 3; ++i) add_cube(&w, cfu_vec3(0, 0, 0.5 + i), 0.5);
        for (int k = 0; k < 60; ++k) cft_assert_ok(cf_world_step(&w));
        const cfStepStats *st = &w.stats;
        const char *name = s->name;
        int n = st->solver_history_len;
        ck_assert_msg(st->solver_iterations == 30, "%s: %d iterations", name, st->solver_iterations);
        ck_assert_msg(n == st->solver_iterations, "%s: history %d, iterations %d", name, n, st->solver_iterations);
        const double *h = st->solver_history;
        for (int k = 0; k < n; ++k)
            ck_assert_msg(isfinite(h[k]) && h[k] > 0.0, "%s: entry %d = %g", name, k, h[k]);
        ck_assert_int_eq(st->solver_measure, s->measure);
        if (s->measure == CF_MEASURE_NATURAL_MAP)
            ck_assert_msg(h[n - 1] == st->solver_residual, "%s: last entry %.17g, residual %.17g", name, h[n - 1],
                          st->solver_residual);
        if (strcmp(name, "nncg") == 0) {
            ck_assert_msg(h[n - 1] < h[0], "%s: residual %g after the first iteration, %g after the last", name, h[0],
                          h[n - 1]);
        } else {
            for (int k = 1; k < n; ++k)
                ck_assert_msg(h[k] <= 1.01 * h[k - 1], "%s: residual rose from %g to %g at sweep %d", name, h[k - 1],
                              h[k], k + 1);
            ck_assert_msg(h[n - 1] <= 0.75 * h[0], "%s: residual %g after the first sweep, %g after the last", name,
                          h[0], h[n - 1]);
        }
        /* the next step starts a new history: a smaller budget gives a shorter one */
        w.def.solver_iterations = 5;
        cft_assert_ok(cf_world_step(&w));
        ck_assert_int_eq(st->solver_history_len, 5);
        cf_world_free(&w);
    }
    /* more iterations than CF_STATS_HISTORY: the first CF_STATS_HISTORY are kept */
    cfWorld w;
    world_ground(&w, 1.0 / 60.0, 0.5, CF_STATS_HISTORY + 44);
    w.def.solver_tolerance = 0.0; /* the whole budget */
    add_cube(&w, cfu_vec3(0, 0, 0.5), 0.5);
    cft_assert_ok(cf_world_step(&w));
    ck_assert_int_eq(w.stats.solver_iterations, CF_STATS_HISTORY + 44);
    ck_assert_int_eq(w.stats.solver_history_len, CF_STATS_HISTORY);
    /* no contacts, no solve: everything zero */
    w.bodies[1].x = cfu_vec3(0, 0, 5);
    cft_assert_ok(cf_world_step(&w));
    ck_assert_int_eq(w.stats.n_contacts, 0);
    ck_assert_int_eq(w.stats.solver_iterations, 0);
    ck_assert_int_eq(w.stats.solver_history_len, 0);
    ck_assert(w.stats.solver_residual == 0.0);
    cf_world_free(&w);
}
END_TEST

START_TEST(lib_written_problem_solved_consistently)
{
    /* chapter 2's writer hands a scene's contact problem to other tools: the file read back is
       solved by chapter 5's blocked Gauss-Seidel to the same impulses bit for bit, and the three
       models agree on the physics: every model stops both boxes (1 kg and 2 kg, falling at v0,
       plus g dt from the velocity update), so the ground's normal impulses add up to the momentum
       (1 + 2)(v0 + g dt), and each solver meets its own residual */
    const double v0 = 0.3;
    cfWorld w;
    two_box_world(&w, 2.0, 0.5);
    w.bodies[1].v = w.bodies[2].v = cfu_vec3(0, 0, -v0);
    const double carried = 3.0 * (v0 + fabs(w.def.gravity.z) * w.def.dt);
    cfFrictionProblem P, Q;
    world_fc(&w, &P);
    ck_assert_int_eq(P.nc, 8);
    /* the first four contacts are ground-box (body pair (0, 1)) */
    for (int a = 0; a < 4; ++a) cft_assert_int_at(w.contacts.items[a].body_a + w.contacts.items[a].body_b, ==, 1,
                                                  "a = %d", a);
    char path[] = "/tmp/cflab-ch05-fc-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    cfError err;
    ck_assert_msg(cf_fc_write_siconos(path, &P, &err) == CF_OK, "%s", err.msg);
    ck_assert_msg(cf_fc_read_siconos(path, &Q, &err) == CF_OK, "%s", err.msg);
    remove(path);
    int n = 3 * P.nc;
    double *r1 = calloc((size_t)n, sizeof *r1), *r2 = calloc((size_t)n, sizeof *r2);
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = 5000;
    o.tol_abs = 1e-11;
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_fc_bgs(&P, &o, r1, &rep));
    cft_assert_ok(cf_fc_bgs(&Q, &o, r2, &rep));
    ck_assert(memcmp(r1, r2, (size_t)n * sizeof *r1) == 0);
    double ground = 0.0;
    for (int a = 0; a < P.nc; ++a) ground += r1[3 * a] * (a < 4);
    cft_assert_near(ground, carried, 1e-8, 1e-8);
    /* the same problem as a boxed LCP (chapter 2) solved by boxed PGS (chapter 5) */
    cfBlcp B;
    cft_assert_ok(cf_friction_boxed_lcp(&Q, &B));
    double *x = calloc((size_t)n, sizeof *x);
    cfStatus st = cf_blcp_pgs(&B, &o, x, &rep);
    ck_assert_msg(st == CF_OK, "boxed PGS: %s, residual %g", cf_status_name(st), rep.residual);
    ck_assert(cf_blcp_residual(&B, x) <= 1e-9);
    double ground_box = 0.0;
    for (int a = 0; a < 4; ++a) ground_box += x[3 * a];
    cft_assert_near(ground_box, carried, 1e-8, 1e-8);
    /* and as a polyhedral-cone LCP (k = 4) solved exactly by Lemke (chapter 4) */
    cfLcp L;
    cft_assert_ok(cf_friction_polyhedral_lcp(&Q, 4, &L));
    double *z = calloc((size_t)L.n, sizeof *z);
    cfPivotOptions po = cf_pivot_options_default();
    st = cf_lcp_lemke(&L, &po, z, &rep);
    ck_assert_msg(st == CF_OK, "Lemke: %s", cf_status_name(st));
    ck_assert(cf_lcp_residual(&L, z) <= 1e-9);
    double ground_lcp = 0.0;
    for (int a = 0; a < 4; ++a) ground_lcp += z[a];
    cft_assert_near(ground_lcp, carried, 1e-8, 1e-8);
    free(r1);
    free(r2);
    free(x);
    free(z);
    cf_lcp_free(&L);
    cf_blcp_free(&B);
    cf_fc_free(&P);
    cf_fc_free(&Q);
    cf_world_free(&w);
}
END_TEST

static void build(Suite *s)
{
    TCase *t1 = cft_tcase_unit(s, "ch05.1");
    CFT_GRADED(t1, ch05_1_worked_example, "ch05.1", 2, "Jacobi worked example; history and report");
    CFT_GRADED(t1, ch05_1_oscillates_where_theory_allows, "ch05.1", 2, "Jacobi flips on the 0.6 example; damped converges");
    CFT_GRADED(t1, ch05_1_diagonally_dominant_exact, "ch05.1", 3, "Jacobi equals enumeration on dominant problems");
    CFT_GRADED(t1, ch05_1_stagnation_stop, "ch05.1", 1, "stagnation stop after exactly 20 sweeps");

    TCase *t2 = cft_tcase_unit(s, "ch05.2");
    CFT_GRADED(t2, ch05_2_worked_example, "ch05.2", 2, "PGS worked example; converges where Jacobi flips");
    CFT_GRADED(t2, ch05_2_agrees_with_enumeration, "ch05.2", 3, "PGS equals 2^n enumeration on SPD problems");
    CFT_GRADED(t2, ch05_2_monotone_descent, "ch05.2", 2, "PGS never increases 1/2 x'Ax + b'x (SPD)");
    CFT_GRADED(t2, ch05_2_stack_analytic, "ch05.2", 1, "1D stack: each contact carries the weight above");
    CFT_GRADED(t2, ch05_2_stopping_rules, "ch05.2", 1, "relative, stagnation and already-solved stops");

    TCase *t3 = cft_tcase_unit(s, "ch05.3");
    CFT_GRADED(t3, ch05_3_worked_example, "ch05.3", 2, "PSOR worked example; omega = 2 refused");
    CFT_GRADED(t3, ch05_3_omega_scan, "ch05.3", 4, "omega scan on the 1D stack: 1.8 beats 1 by 5x");
    CFT_GRADED(t3, ch05_3_agrees_with_enumeration, "ch05.3", 2, "PSOR equals enumeration");

    TCase *t4 = cft_tcase_unit(s, "ch05.4");
    CFT_GRADED(t4, ch05_4_particle_stick_and_slip, "ch05.4", 4, "one particle: stick and slip in one sweep, omega, the stagnation stop");
    CFT_GRADED(t4, ch05_4_box_stack_certificates, "ch05.4", 6, "box stack: residual, moving bounds, weight carried");

    TCase *t5 = cft_tcase_unit(s, "ch05.5");
    CFT_GRADED(t5, ch05_5_local_solve_cases, "ch05.5", 3, "local solve: stick, slip opposite, box, separation");
    CFT_GRADED(t5, ch05_5_local_solve_general_block, "ch05.5", 1, "local solve with a coupled, anisotropic block and omega");
    CFT_GRADED(t5, ch05_5_box_stack_coulomb, "ch05.5", 4, "box stack: Coulomb residual, cone, Signorini");
    CFT_GRADED(t5, ch05_5_box_model_matches_boxed_pgs, "ch05.5", 1, "box model equals boxed PGS sweep by sweep");
    CFT_GRADED(t5, ch05_5_stagnation_stop, "ch05.5", 1, "the stagnation stop after exactly 11 sweeps");

    TCase *t6 = cft_tcase_unit(s, "ch05.6");
    CFT_GRADED(t6, ch05_6_prepare_worked, "ch05.6", 2, "rows: W_nn = 4 at a cube corner, equals Delassus block");
    CFT_GRADED(t6, ch05_6_matrix_free_equals_assembled, "ch05.6", 3, "matrix-free sweeps equal assembled blocked GS");
    CFT_GRADED(t6, ch05_6_body_zero_on_side_b, "ch05.6", 1, "body 0 as B (and as A) gets its impulse");
    CFT_GRADED(t6, ch05_6_bias_cfm_warm_start, "ch05.6", 1, "speculative and Baumgarte bias, CFM, warm start, the stop on tol");
    TCase *t6s = cft_tcase_scene(s, "ch05.6-physics");
    CFT_GRADED(t6s, ch05_6_incline_stick_and_slide, "ch05.6", 3, "incline: stick if tan <= mu, else a within 2%");
    CFT_GRADED(t6s, ch05_6_stopping_distance, "ch05.6", 2, "sliding stops after v0^2/(2 mu g) within 2%");
    CFT_GRADED(t6s, ch05_6_stack_of_ten_stands, "ch05.6", 2, "10-box stack stands 10 s, drift < 1 cm");
    CFT_GRADED(t6s, ch05_6_momentum_in_free_collisions, "ch05.6", 2, "free collisions conserve momentum");
    CFT_GRADED(t6s, ch05_6_no_energy_gain_at_rest, "ch05.6", 1, "no energy gain at rest");
    CFT_GRADED(t6s, ch05_6_warm_start_helps, "ch05.6", 1, "warm start lowers the residual at equal sweeps");
    TCase *t6l = cft_tcase_long(s, "ch05.6-pyramid");
    CFT_GRADED(t6l, ch05_6_pyramid_stands, "ch05.6", 2, "10-layer pyramid stands 10 s, drift < 1 cm");

    TCase *t7 = cft_tcase_unit(s, "ch05.7");
    CFT_GRADED(t7, ch05_7_sequential_equals_pgs, "ch05.7", 2, "sequential order equals ch05.2");
    CFT_GRADED(t7, ch05_7_orderings_converge_reproducibly, "ch05.7", 4, "symmetric and seeded random: same answer, reproducible");
    CFT_GRADED(t7, ch05_7_staggering, "ch05.7", 4, "staggering: particle in <= 3, box stack converges");

    TCase *t8 = cft_tcase_unit(s, "ch05.8");
    CFT_GRADED(t8, ch05_8_stack_in_one_subspace_step, "ch05.8", 4, "mass-ratio stack solved in <= 2 outer iterations");
    CFT_GRADED(t8, ch05_8_variables_at_bounds, "ch05.8", 2, "variables at non-zero bounds: <= 2 outer iterations");
    CFT_GRADED(t8, ch05_8_friction_and_cycle_example, "ch05.8", 4, "BPP cycle example and friction stack");

    TCase *t9 = cft_tcase_unit(s, "ch05.9");
    CFT_GRADED(t9, ch05_9_mass_ratio_stack, "ch05.9", 4, "mass ratio 100: NNCG < PGS/10 sweeps");
    CFT_GRADED(t9, ch05_9_iterates_as_specified, "ch05.9", 1, "12 iterates, restarts and the final projection as specified");
    CFT_GRADED(t9, ch05_9_friction_restarts_and_bounds, "ch05.9", 5, "friction: restarts, feasible, converged");

    TCase *tl = cft_tcase_unit(s, "ch05-library");
    CFT_TEST(tl, lib_stop_rule_order, "stopping rule order, orderings");
    CFT_TEST(tl, ch05_1_bad_input, "provided input check: zero diagonal and NaN give CF_BAD_INPUT");
    CFT_TEST(tl, lib_scene_keys, "scene keys of the solver");
    CFT_TEST(tl, lib_written_problem_solved_consistently, "a scene's problem written, read back and solved by chapters 4-5");
    TCase *ti = cft_tcase_scene(s, "ch05-integration");
    CFT_TEST(ti, lib_solvers_agree_in_world, "every solver kind holds a two-box stack");
    CFT_TEST(ti, lib_world_residual_history, "the world keeps the last solve's residual per iteration");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "ch05", build); }
