/* SPDX-License-Identifier: MIT */
/* Chapter 6 tests: non-smooth Newton methods. Graded tests check the notes' analytic values and
   tie rules, every Jacobian against central differences away from kinks, the one-iteration and
   quadratic-convergence facts of notes 3.3, agreement with Lemke (chapter 4) where the LCP
   solution is unique, the outcomes the Siconos problems' classes imply, the single sliding
   particle, and the Siconos error measure on the FC3D reference problems.
   Run with `make test-ch6` (your code) or `make test-ch6 IMPL=solutions`. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_ch02.h"
#include "cf/cf_ch04.h"
#include "cf/cf_ch05.h"
#include "cf/cf_ch06.h"
#include "cf/cf_detect.h"
#include "cf/cf_fdcheck.h"
#include "cf/cf_lcpgen.h"
#include "cf/cf_rng.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

#define HIST 1000
static double g_hist[HIST];

static void lcp_dense(cfLcp *p, int n, const double *A, const double *b)
{
    cfDense D;
    ck_assert(cf_dense_init(&D, n, n) == CF_OK);
    memcpy(D.a, A, (size_t)n * n * sizeof *A);
    ck_assert(cf_lcp_from_dense(p, &D, b) == CF_OK);
    cf_dense_free(&D);
}

/* the 1D stack (as chapter 5's tests): n particles of mass 1, the top one
   @p ratio; contact 0 on the ground; every contact carries the weight above it */
static void lcp_stack(cfLcp *p, int n, double ratio, double h, double *exact)
{
    ck_assert(cf_lcpgen_stack(n, ratio, h, p, exact) == CF_OK);
}

/* the dense Jacobian of a triplet list (n x n) */
static void triplets_dense(const cfTriplets *T, cfDense *D)
{
    cfCsr C;
    cft_assert_ok(cf_csr_from_triplets(T, &C));
    cft_assert_ok(cf_csr_to_dense(&C, D));
    cf_csr_free(&C);
}

static cfNewtonOptions opts(int max_iter, double tol, bool scale)
{
    cfNewtonOptions o = cf_newton_options_default();
    o.max_iter = max_iter;
    o.tol = tol;
    o.scale = scale;
    return o;
}

/* a frictional contact problem from dense W (row-major 3nc x 3nc), q and mu */
static void fc_dense(cfFrictionProblem *p, int nc, const double *W, const double *q, const double *mu)
{
    memset(p, 0, sizeof *p);
    p->nc = nc;
    cft_assert_ok(cf_bsr_init(&p->W, nc, nc, 3, 3));
    for (int a = 0; a < nc; ++a)
        for (int b = 0; b < nc; ++b) {
            double B[9];
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) B[3 * i + j] = W[(3 * a + i) * 3 * nc + 3 * b + j];
            cft_assert_ok_at(cf_bsr_add_block(&p->W, a, b, B), "a = %d, b = %d", a, b);
        }
    cf_bsr_finalize(&p->W);
    p->q = malloc((size_t)3 * nc * sizeof *p->q);
    p->mu = malloc((size_t)nc * sizeof *p->mu);
    memcpy(p->q, q, (size_t)3 * nc * sizeof *q);
    memcpy(p->mu, mu, (size_t)nc * sizeof *mu);
}

/* ------------------------------------------------------------------------------------------ */
/* ch06.1 NCP functions                                                                        */

START_TEST(ch06_1_analytic_values)
{
    double da, db;
    /* notes 3.3.2, Eq. 184: exact values (rounding of a + b - sqrt: a few ulps) */
    cft_assert_near(cf_ncp_fb(1, 1, NULL, NULL), 2.0 - sqrt(2.0), 1e-15, 0);
    cft_assert_near(cf_ncp_fb(0, 5, NULL, NULL), 0.0, 1e-15, 0);
    cft_assert_near(cf_ncp_fb(3, 0, NULL, NULL), 0.0, 1e-15, 0);
    cft_assert_near(cf_ncp_fb(-1, 2, NULL, NULL), 1.0 - sqrt(5.0), 1e-15, 0);
    ck_assert(cf_ncp_fb(2, 2, NULL, NULL) > 0.0);
    /* the origin: alpha = 0, beta = 1 (notes Eq. 187-188) */
    ck_assert(cf_ncp_fb(0, 0, &da, &db) == 0.0);
    ck_assert(da == 0.0 && db == 1.0);
    /* partials: alpha = 1 - a / s, beta = 1 - b / s at (3, 4): s = 5 */
    cf_ncp_fb(3, 4, &da, &db);
    cft_assert_near(da, 1.0 - 0.6, 1e-15, 0);
    cft_assert_near(db, 1.0 - 0.8, 1e-15, 0);
    /* range and the non-singularity bound on a grid through every quadrant */
    for (int i = -4; i <= 4; ++i)
        for (int j = -4; j <= 4; ++j) {
            cf_ncp_fb(i * 0.7, j * 1.3, &da, &db);
            cft_assert_at(da >= 0.0 && da <= 2.0 && db >= 0.0 && db <= 2.0, "i = %d, j = %d", i, j);
            cft_assert_at(da + db >= 2.0 - sqrt(2.0) - 1e-15, "i = %d, j = %d", i, j);
        }
    /* no overflow: a + b - sqrt(a^2 + b^2) of 1e300 would be inf - inf */
    double big = cf_ncp_fb(1e300, 1e300, &da, &db);
    cft_assert_near(big, (2.0 - sqrt(2.0)) * 1e300, 0, 1e-14);
    /* a tiny value next to a large one keeps its digits: 2ab / (a + b + s) ~ b for a >> b */
    cft_assert_near(cf_ncp_fb(1e8, 1e-8, NULL, NULL), 1e-8, 0, 1e-7);
    /* min map and its tie rule: a tie is active (da = 1) */
    ck_assert(cf_ncp_minmap(-1, 2, &da, &db) == -1 && da == 1 && db == 0);
    ck_assert(cf_ncp_minmap(2, -1, &da, &db) == -1 && da == 0 && db == 1);
    ck_assert(cf_ncp_minmap(3, 3, &da, &db) == 3 && da == 1 && db == 0);
    ck_assert(cf_ncp_minmap(0, 0, &da, &db) == 0 && da == 1 && db == 0);
}
END_TEST

static double g_fd_r, g_fd_pen;
static cfNcpKind g_fd_kind;
static void ncp_fun(void *ctx, const double *x, double *y)
{
    (void)ctx;
    y[0] = cf_ncp_eval(g_fd_kind, x[0], x[1], g_fd_r, g_fd_pen, NULL, NULL);
}

START_TEST(ch06_1_partials_match_differences)
{
    /* points away from the kinks (a = r b for the min map, the origin and the axes a = 0,
       c = 0 where the penalty switches for FB); central differences with h = 1e-6: errors
       ~1e-10, so 1e-7 separates a right partial from a wrong one (they differ by O(1)) */
    const double pts[][2] = {{0.7, 2.1}, {-1.3, 0.4}, {2.5, -0.8}, {-0.6, -1.7}, {1.9, 1.1}};
    const double rs[] = {1.0, 0.25, 3.0};
    const double pens[] = {1.0, 0.8};
    for (int k = 0; k < CF_NCP_KIND_COUNT; ++k)
        for (int ir = 0; ir < 3; ++ir)
            for (int ip = 0; ip < 2; ++ip)
                for (int q = 0; q < 5; ++q) {
                    g_fd_kind = (cfNcpKind)k;
                    g_fd_r = rs[ir];
                    g_fd_pen = pens[ip];
                    double x[2] = {pts[q][0], pts[q][1]}, da, db;
                    if (k == CF_NCP_MINMAP && fabs(x[0] - g_fd_r * x[1]) < 1e-3) continue;
                    cf_ncp_eval(g_fd_kind, x[0], x[1], g_fd_r, g_fd_pen, &da, &db);
                    cfDense J;
                    cft_assert_ok(cf_dense_init(&J, 1, 2));
                    J.a[0] = da;
                    J.a[1] = db;
                    double e = cf_fd_jacobian_error(1, 2, ncp_fun, NULL, x, &J, 1e-6, NULL, NULL);
                    cft_assert_at(e < 1e-7, "kind %d, r = %g, penalty %g, point %d: error %g", k, g_fd_r, g_fd_pen,
                                  q, e);
                    cf_dense_free(&J);
                }
}
END_TEST

START_TEST(ch06_1_scaled_and_penalized)
{
    double da, db;
    /* roots are kept by the scaling: psi(a, r b) = 0 exactly on the complementarity set */
    const double r[] = {0.25, 1.0, 7.0};
    for (int i = 0; i < 3; ++i) {
        cft_assert_near_at(cf_ncp_eval(CF_NCP_FB, 0.0, 2.0, r[i], 1.0, NULL, NULL), 0.0, 1e-15, 0, "r = %g", r[i]);
        cft_assert_near_at(cf_ncp_eval(CF_NCP_FB, 3.0, 0.0, r[i], 1.0, NULL, NULL), 0.0, 1e-15, 0, "r = %g", r[i]);
        cft_assert_near_at(cf_ncp_eval(CF_NCP_MINMAP, 0.0, 2.0, r[i], 1.0, NULL, NULL), 0.0, 0, 0, "r = %g", r[i]);
        cft_assert_at(cf_ncp_eval(CF_NCP_FB, 1.0, 1.0, r[i], 1.0, NULL, NULL) > 0.0, "i = %d", i);
    }
    /* notes Fig. 23: psi(lambda/4 - 1/8, lambda/4) at lambda = 0 is the constraint, active */
    cft_assert_near(cf_ncp_eval(CF_NCP_MINMAP, -0.125, 0.0, 0.25, 1.0, &da, &db), -0.125, 0, 0);
    ck_assert(da == 1.0 && db == 0.0);
    /* inactive: the multiplier's partial carries the factor r */
    cf_ncp_eval(CF_NCP_MINMAP, 5.0, 1.0, 0.25, 1.0, &da, &db);
    ck_assert(da == 0.0 && db == 0.25);
    /* FB with r: psi(3, 2 * 2) = 7 - 5 = 2, partials (1 - 3/5, 2 (1 - 4/5)) */
    cft_assert_near(cf_ncp_eval(CF_NCP_FB, 3.0, 2.0, 2.0, 1.0, &da, &db), 2.0, 1e-15, 0);
    cft_assert_near(da, 0.4, 1e-15, 0);
    cft_assert_near(db, 0.4, 1e-15, 0);
    /* penalized (Chen-Chen-Kanzow) at a, c > 0: p psi_FB - (1 - p) a c; 0.8 * 2 - 0.2 * 12 */
    cft_assert_near(cf_ncp_eval(CF_NCP_FB, 3.0, 4.0, 1.0, 0.8, NULL, NULL), 0.8 * 2.0 - 0.2 * 12.0, 1e-14, 0);
    /* ... and no penalty where one argument is negative */
    cft_assert_near(cf_ncp_eval(CF_NCP_FB, -1.0, 2.0, 1.0, 0.8, NULL, NULL), 0.8 * (1.0 - sqrt(5.0)), 1e-15, 0);
    /* the penalty is FB's: the min map ignores it, min(3, 4) = 3 with (1, 0) */
    cft_assert_near(cf_ncp_eval(CF_NCP_MINMAP, 3.0, 4.0, 1.0, 0.8, &da, &db), 3.0, 0, 0);
    ck_assert(da == 1.0 && db == 0.0);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch06.2 Newton loop and min-map Newton                                                       */

static const cfLcp *g_lcp;
static const double *g_r;
static double g_pen;
static void minmap_fun(void *ctx, const double *x, double *y)
{
    (void)ctx;
    cf_lcp_minmap_eval(g_lcp, g_r, x, y, NULL);
}
static void fb_fun(void *ctx, const double *x, double *y)
{
    (void)ctx;
    cf_lcp_fb_eval(g_lcp, g_r, g_pen, x, y, NULL);
}

/* a random non-symmetric LCP of size n (entries in [-1, 1], diagonal + 3) */
static void lcp_random(cfLcp *p, int n, uint64_t seed)
{
    cfRng rng;
    cf_rng_seed(&rng, seed);
    double *A = malloc((size_t)n * n * sizeof *A), *b = malloc((size_t)n * sizeof *b);
    for (int i = 0; i < n * n; ++i) A[i] = cf_rng_range(&rng, -1, 1);
    for (int i = 0; i < n; ++i) {
        A[i * n + i] += 3.0;
        b[i] = cf_rng_range(&rng, -1, 1);
    }
    lcp_dense(p, n, A, b);
    free(A);
    free(b);
}

/* FD check of an LCP reformulation at random points whose w_i and r_i x_i are well apart */
static void check_lcp_jacobian(cfVecFn fun, bool minmap)
{
    cfLcp p;
    lcp_random(&p, 8, 5);
    g_lcp = &p;
    double r[8], x[8], H[8], w[8];
    for (int i = 0; i < 8; ++i) r[i] = 0.5 + 0.25 * i;
    cfRng rng;
    cf_rng_seed(&rng, 9);
    int checked = 0;
    for (int trial = 0; trial < 20; ++trial) {
        g_r = trial % 2 ? r : NULL;
        for (int i = 0; i < 8; ++i) x[i] = cf_rng_range(&rng, -1, 1);
        cf_lcp_w(&p, x, w);
        bool away = true; /* the min map's kink is w_i = r_i x_i; stay 1e-3 away (h = 1e-6) */
        for (int i = 0; i < 8; ++i) away &= fabs(w[i] - (g_r ? r[i] : 1.0) * x[i]) > 1e-3;
        if (minmap && !away) continue;
        cfTriplets T;
        cft_assert_ok(cf_triplets_init(&T, 8, 8));
        if (minmap) cft_assert_ok(cf_lcp_minmap_eval(&p, g_r, x, H, &T));
        else cft_assert_ok(cf_lcp_fb_eval(&p, g_r, g_pen, x, H, &T));
        double y[8];
        fun(NULL, x, y); /* H alone equals H with J */
        for (int i = 0; i < 8; ++i) cft_assert_near_at(H[i], y[i], 0, 0, "trial %d, i = %d", trial, i);
        /* and the min map is min(w_i, r_i x_i), r = 1 when NULL (the Jacobian check alone holds
           for any H consistent with its J) */
        for (int i = 0; minmap && i < 8; ++i)
            cft_assert_near_at(H[i], fmin(w[i], (g_r ? r[i] : 1.0) * x[i]), 1e-15, 1e-14, "trial %d, i = %d", trial, i);
        cfDense J = {0};
        triplets_dense(&T, &J);
        int wi, wj;
        double e = cf_fd_jacobian_error(8, 8, fun, NULL, x, &J, 1e-6, &wi, &wj);
        cft_assert_at(e < 1e-7, "trial %d: J[%d][%d] off by %g", trial, wi, wj, e);
        cf_dense_free(&J);
        cf_triplets_free(&T);
        ++checked;
    }
    ck_assert_int_ge(checked, 5);
    cf_lcp_free(&p);
}

START_TEST(ch06_2_minmap_jacobian)
{
    check_lcp_jacobian(minmap_fun, true);
    /* the tie rule at x = 0 with b_i = 0 (w_i = x_i = 0): the row of A, not e_i */
    double A[4] = {2, 1, 1, 2}, b[2] = {-1, 0}, x[2] = {0, 0}, H[2];
    cfLcp p;
    lcp_dense(&p, 2, A, b);
    cfTriplets T;
    cft_assert_ok(cf_triplets_init(&T, 2, 2));
    cft_assert_ok(cf_lcp_minmap_eval(&p, NULL, x, H, &T));
    cfDense J = {0};
    triplets_dense(&T, &J);
    for (int i = 0; i < 4; ++i) cft_assert_near_at(J.a[i], A[i], 0, 0, "entry %d", i);
    cf_dense_free(&J);
    cf_triplets_free(&T);
    cf_lcp_free(&p);
}
END_TEST

/* PGS (chapter 5) sweeps to reach @p tol on @p p from zero, or -1 if not within @p budget */
static int pgs_sweeps(const cfLcp *p, double tol, int budget)
{
    cfSplitOptions so = cf_split_options_default();
    so.max_iter = budget;
    so.tol_abs = tol;
    double *x = calloc((size_t)p->n, sizeof *x);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cfStatus st = cf_lcp_pgs(p, &so, x, &rep);
    free(x);
    return st == CF_OK ? rep.iterations : -1;
}

START_TEST(ch06_2_stack_in_one_iteration)
{
    /* notes 3.3.1 (Eq. 182-183): with the tie-active rule the all-active stack is one linear solve
       from x = 0, at every mass ratio; the residual of that solve is rounding: |A| |x| eps with
       |x| ~ h g ratio n, so 1e-9 (relative to the load) holds up to ratio 1e6 */
    const double ratios[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
    for (int k = 0; k < 7; ++k) {
        for (int scale = 0; scale < 2; ++scale) {
            int n = 10;
            double exact[10], x[10] = {0};
            cfLcp p;
            lcp_stack(&p, n, ratios[k], 0.01, exact);
            cfNewtonOptions o = opts(20, 1e-9 * exact[0], scale);
            cfReport rep;
            cf_report_init(&rep, g_hist, HIST);
            cft_assert_ok_at(cf_lcp_newton_minmap(&p, &o, x, &rep), "ratio %g, scale %d", ratios[k], scale);
            cft_assert_int_at(rep.iterations, ==, 1, "ratio %g, scale %d", ratios[k], scale);
            for (int i = 0; i < n; ++i)
                cft_assert_near_at(x[i], exact[i], 1e-9 * exact[0], 0, "ratio %g, i = %d", ratios[k], i);
            cf_lcp_free(&p);
        }
    }
    /* chapter 5's PGS on the same stack at ratio 1e3 (measured here): thousands of sweeps */
    cfLcp p;
    double exact[10];
    lcp_stack(&p, 10, 1e3, 0.01, exact);
    int s = pgs_sweeps(&p, 1e-6 * exact[0], 2000);
    ck_assert_msg(s < 0 || s > 1000, "PGS needed only %d sweeps", s);
    cf_lcp_free(&p);
}
END_TEST

/* |H_{k+1}| / |H_k|^2 over the last iterations whose H_{k+1} is above the rounding floor */
static double quadratic_ratio(const double *h, int len, double floor_)
{
    double worst = 0.0;
    for (int k = 0; k + 1 < len; ++k)
        if (h[k + 1] > floor_ && h[k] < 1e-2) worst = fmax(worst, h[k + 1] / (h[k] * h[k]));
    return worst;
}

START_TEST(ch06_2_quadratic_convergence)
{
    /* random SPD problems from the generators (PD, eigenvalues k/n): min-map Newton converges
       in a handful of iterations (typically 1-6 on SPD n = 20), quadratically: the ratio
       |H_{k+1}| / |H_k|^2 stays bounded (a linear method's ratio grows like 1 / |H_k|). Pairs
       whose H_{k+1} is below 1e-13 (100 times the rounding of |A| |x| eps) are skipped. */
    int total = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        cfLcp p;
        int n = cf_lcpgen_family_size(CF_LCPGEN_PD, 20);
        double *planted = malloc((size_t)n * sizeof *planted), *x = calloc((size_t)n, sizeof *x);
        cft_assert_ok(cf_lcpgen_family(CF_LCPGEN_PD, 20, seed, &p, planted));
        cfNewtonOptions o = opts(30, 1e-12, false);
        cfReport rep;
        cf_report_init(&rep, g_hist, HIST);
        cft_assert_ok_at(cf_lcp_newton_minmap(&p, &o, x, &rep), "seed %d", (int)seed);
        cft_assert_int_at(rep.iterations, <=, 8, "seed %d", (int)seed);
        total += rep.iterations;
        double q = quadratic_ratio(g_hist, rep.history_len, 1e-13);
        cft_assert_at(q < 1e3, "seed %d: |H+|/|H|^2 = %g", (int)seed, q);
        /* the solution is unique (A is a P-matrix): the planted one; |x - x*| <= |A^-1| r = n r */
        for (int i = 0; i < n; ++i) cft_assert_near_at(x[i], planted[i], 1e-9, 0, "seed %d, i = %d", (int)seed, i);
        free(planted);
        free(x);
        cf_lcp_free(&p);
    }
    ck_assert_int_le(total, 20 * 6);
}
END_TEST

/* scalar systems for the line search: H(x) = atan(x) (undamped Newton diverges from x = 3),
   H(x) = x^2 + 1 (no root: the loop must stop, not loop or divide by zero) */
static cfStatus atan_eval(void *ctx, const double *x, double *H, cfTriplets *J)
{
    (void)ctx;
    H[0] = atan(x[0]);
    return J ? cf_triplets_add(J, 0, 0, 1.0 / (1.0 + x[0] * x[0])) : CF_OK;
}
static double atan_res(void *ctx, const double *x)
{
    (void)ctx;
    return fabs(atan(x[0]));
}
static cfStatus noroot_eval(void *ctx, const double *x, double *H, cfTriplets *J)
{
    (void)ctx;
    H[0] = x[0] * x[0] + 1.0;
    return J ? cf_triplets_add(J, 0, 0, 2.0 * x[0]) : CF_OK;
}
static double noroot_res(void *ctx, const double *x)
{
    (void)ctx;
    return x[0] * x[0] + 1.0;
}

START_TEST(ch06_2_line_search_and_fallback)
{
    cfNewtonOptions o = opts(50, 1e-12, false);
    cfNewtonStats st;
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    /* full Newton steps on atan from 3 overshoot to -9.5, +124, ...: Armijo halves them */
    double x = 3.0;
    cfNewtonSystem s = {.n = 1, .eval = atan_eval, .residual = atan_res, .block_size = 1};
    cft_assert_ok(cf_newton_solve(&s, &o, &x, &rep, &st));
    cft_assert_near(x, 0.0, 1e-12, 0);
    ck_assert_int_gt(st.backtracks, 0);
    ck_assert_int_le(rep.iterations, 12);
    /* the history is the residual after each iteration, and it decreases (Armijo on theta =
       |H|^2 / 2 and the residual here is |H|) */
    ck_assert_int_eq(rep.history_len, rep.iterations);
    for (int k = 1; k < rep.history_len; ++k) cft_assert_at(g_hist[k] < g_hist[k - 1], "k = %d", k);
    /* the counters: LU takes no GMRES steps; with GMRES every Newton direction takes at least one */
    ck_assert_int_eq(st.linear_iters, 0);
    {
        cfNewtonOptions og = o;
        og.linear = CF_NEWTON_LINEAR_GMRES;
        double xg = 3.0;
        cft_assert_ok(cf_newton_solve(&s, &og, &xg, &rep, &st));
        ck_assert_int_ge(st.linear_iters, rep.iterations);
    }
    /* sufficient, not simple, decrease: from x = 1.3 the full step d = -atan(1.3) (1 + 1.3^2)
       lands at -1.1616 where theta is 0.883 of theta(1.3): lower, but with sigma = 0.4 the
       rule asks for theta(x + t d) <= (1 - 0.8 t) theta(x), so t = 1 fails and t = 1/2 (theta
       down to 0.0057) is the first accepted: x = 1.3 + d / 2 after one iteration, one halving */
    {
        cfNewtonOptions o1 = opts(1, 1e-12, false);
        o1.sigma = 0.4;
        double x1 = 1.3;
        const double d = -atan(1.3) * (1.0 + 1.3 * 1.3);
        cft_assert_status(cf_newton_solve(&s, &o1, &x1, &rep, &st), CF_MAX_ITER);
        cft_assert_near(x1, 1.3 + 0.5 * d, 1e-14, 1e-14);
        ck_assert_int_eq(st.backtracks, 1);
        /* ... with the Newton direction's slope -2 theta: from 0.5 the full step lands at -0.0796
           with theta down to 0.029 of theta(0.5), below 1 - 0.8 = 0.2: accepted at once */
        x1 = 0.5;
        const double d5 = -atan(0.5) * 1.25;
        cft_assert_status(cf_newton_solve(&s, &o1, &x1, &rep, &st), CF_MAX_ITER);
        cft_assert_near(x1, 0.5 + d5, 1e-14, 1e-14);
        ck_assert_int_eq(st.backtracks, 0);
    }
    /* no root: theta has its minimum 1/2 at x = 0, where J = 0; the loop stops stagnated */
    x = 2.0;
    s = (cfNewtonSystem){.n = 1, .eval = noroot_eval, .residual = noroot_res, .block_size = 1};
    cfStatus status = cf_newton_solve(&s, &o, &x, &rep, &st);
    ck_assert_msg(status == CF_STAGNATED || status == CF_MAX_ITER, "status %s", cf_status_name(status));
    ck_assert(isfinite(x) && fabs(x) < 1e-3);
    /* already solved: no iteration */
    x = 0.0;
    s = (cfNewtonSystem){.n = 1, .eval = atan_eval, .residual = atan_res, .block_size = 1};
    cft_assert_ok(cf_newton_solve(&s, &o, &x, &rep, &st));
    ck_assert_int_eq(rep.iterations, 0);
    /* a budget of two iterations from 3 is not enough */
    x = 3.0;
    o.max_iter = 2;
    cft_assert_status(cf_newton_solve(&s, &o, &x, &rep, &st), CF_MAX_ITER);
    ck_assert_int_eq(rep.iterations, 2);
}
END_TEST

/* Lemke (chapter 4) and min-map Newton on P-matrix problems: the unique solution, twice */
START_TEST(ch06_2_agrees_with_lemke)
{
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        cfLcp p;
        lcp_random(&p, 12, seed); /* diagonal 3 + entries in [-1, 1]: symmetric part PD, a P-matrix */
        double x[12] = {0}, z[12] = {0};
        cfPivotOptions po = cf_pivot_options_default();
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok_at(cf_lcp_lemke(&p, &po, z, &rep), "seed %d", (int)seed);
        cfNewtonOptions o = opts(50, 1e-12, true);
        cft_assert_ok_at(cf_lcp_newton_minmap(&p, &o, x, &rep), "seed %d", (int)seed);
        /* |x - z| <= |A^-1| (r_x + r_z): the symmetric part's smallest eigenvalue is >= 3 - 11
           ... not a bound; use the residuals instead: both are solutions to 1e-12 */
        ck_assert(cf_lcp_residual(&p, x) <= 1e-12);
        for (int i = 0; i < 12; ++i) cft_assert_near_at(x[i], z[i], 1e-9, 0, "seed %d, i = %d", (int)seed, i);
        cf_lcp_free(&p);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch06.3 Fischer-Burmeister Newton                                                            */

START_TEST(ch06_3_fb_jacobian)
{
    g_pen = 1.0;
    check_lcp_jacobian(fb_fun, false);
    g_pen = 0.7;
    check_lcp_jacobian(fb_fun, false);
}
END_TEST

START_TEST(ch06_3_stacks_and_random)
{
    /* From x = 0 every upper contact sits at FB's kink (x_i = w_i = 0), where the notes'
       choice (alpha, beta) = (0, 1) reads "inactive": each iteration wakes one more contact of
       the stack, so n = 10 takes about n iterations, then converges quadratically (measured:
       14-16); from a warm start 20% off the answer it takes a handful (typically 5-6). */
    const double ratios[] = {1, 100, 1e4};
    for (int k = 0; k < 3; ++k)
        for (int warm = 0; warm < 2; ++warm) {
            double exact[10], x[10];
            cfLcp p;
            lcp_stack(&p, 10, ratios[k], 0.01, exact);
            for (int i = 0; i < 10; ++i) x[i] = warm ? exact[i] * (i % 2 ? 1.2 : 0.8) : 0.0;
            cfNewtonOptions o = opts(30, 1e-10 * exact[0], false);
            cfReport rep;
            cf_report_init(&rep, g_hist, HIST);
            cft_assert_ok_at(cf_lcp_newton_fb(&p, &o, x, &rep), "ratio %g, warm %d", ratios[k], warm);
            cft_assert_int_at(rep.iterations, <=, warm ? 6 : 10 + 6, "ratio %g, warm %d", ratios[k], warm);
            /* |x - x*| <= |A^-1| |H|: A^-1 of the stack has entries up to the mass above a
               contact, at most ratio + 10, over 10 rows */
            double bound = 1e-10 * exact[0] * 10.0 * (ratios[k] + 10.0);
            for (int i = 0; i < 10; ++i)
                cft_assert_near_at(x[i], exact[i], bound, 0, "ratio %g, i = %d", ratios[k], i);
            cf_lcp_free(&p);
        }
    /* random SPD n = 20: typically 5-12 iterations, quadratic at the end, the planted solution */
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        cfLcp p;
        int n = cf_lcpgen_family_size(CF_LCPGEN_PD, 20);
        double *planted = malloc((size_t)n * sizeof *planted), *x = calloc((size_t)n, sizeof *x);
        cft_assert_ok(cf_lcpgen_family(CF_LCPGEN_PD, 20, seed, &p, planted));
        cfNewtonOptions o = opts(40, 1e-12, false);
        cfReport rep;
        cf_report_init(&rep, g_hist, HIST);
        cft_assert_ok_at(cf_lcp_newton_fb(&p, &o, x, &rep), "seed %d", (int)seed);
        cft_assert_int_at(rep.iterations, <=, 14, "seed %d", (int)seed);
        double q = quadratic_ratio(g_hist, rep.history_len, 1e-13);
        cft_assert_at(q < 1e3, "seed %d: |H+|/|H|^2 = %g", (int)seed, q);
        for (int i = 0; i < n; ++i) cft_assert_near_at(x[i], planted[i], 1e-9, 0, "seed %d, i = %d", (int)seed, i);
        free(planted);
        free(x);
        cf_lcp_free(&p);
    }
}
END_TEST

/* Siconos LCP problems and the outcome each class implies (siconos-lcp/README.md) */
static void siconos_lcp(const char *name, cfLcp *p)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/siconos-lcp/%s", cft_data_dir(), name);
    cfError err;
    ck_assert_msg(cf_lcp_read_siconos(path, p, &err) == CF_OK, "%s", err.msg);
}

START_TEST(ch06_3_siconos_outcomes)
{
    /* first the solver on a problem in memory (Siconos' deudeu: z = (4/3, 7/3)), so that a stub
       says "not implemented" before any file is opened */
    double M[4] = {2, 1, 1, 2}, q[2] = {-5, -6}, z[2] = {0, 0};
    cfLcp d;
    lcp_dense(&d, 2, M, q);
    cfNewtonOptions od = opts(50, 1e-12, true);
    cft_assert_ok(cf_lcp_newton_fb(&d, &od, z, NULL));
    cft_assert_near(z[0], 4.0 / 3.0, 1e-11, 0);
    cft_assert_near(z[1], 7.0 / 3.0, 1e-11, 0);
    cf_lcp_free(&d);
    if (!cft_data_or_skip("siconos-lcp", "ch06.3")) return;
    /* solvable ones (unique, degenerate, non-unique, CPS_3 where Lemke ends on a ray): FB
       reaches Siconos' err <= 1e-10, as Siconos' NEWTON_FB does at 1e-6 */
    const char *solved[] = {"lcp_deudeu.dat", "lcp_trivial.dat", "lcp_ortiz.dat", "lcp_exp_murty2.dat",
                            "lcp_CPS_1.dat", "lcp_CPS_2.dat", "lcp_CPS_3.dat", "lcp_CPS_4.dat", "lcp_CPS_5.dat",
                            "lcp_Pang_isolated_sol.dat", "lcp_inf_sol_perturbed.dat", "lcp_enum_fails.dat"};
    for (int i = 0; i < (int)(sizeof solved / sizeof solved[0]); ++i) {
        cfLcp p;
        siconos_lcp(solved[i], &p);
        double *x = calloc((size_t)p.n, sizeof *x);
        cfNewtonOptions o = opts(100, 1e-12, true);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cfStatus st = cf_lcp_newton_fb(&p, &o, x, &rep);
        cft_assert_ok_at(st, "%s", solved[i]);
        cft_assert_at(cf_lcp_residual_siconos(&p, x) <= 1e-10, "%s: %g", solved[i], cf_lcp_residual_siconos(&p, x));
        free(x);
        cf_lcp_free(&p);
    }
    /* CPS_3, the bimatrix game: the answer is one of its three equilibria */
    cfLcp p;
    siconos_lcp("lcp_CPS_3.dat", &p);
    double x[4] = {0};
    cfNewtonOptions o = opts(100, 1e-12, true);
    cft_assert_ok(cf_lcp_newton_fb(&p, &o, x, NULL));
    const double eq[3][4] = {{0.1, 0, 0.1, 0}, {0, 1.0 / 15, 0, 1.0 / 15}, {1.0 / 90, 4.0 / 90, 1.0 / 90, 4.0 / 90}};
    bool one = false;
    for (int e = 0; e < 3; ++e) {
        double d = 0;
        for (int i = 0; i < 4; ++i) d = fmax(d, fabs(x[i] - eq[e][i]));
        one |= d < 1e-9;
    }
    ck_assert_msg(one, "x = (%g, %g, %g, %g) is none of the equilibria", x[0], x[1], x[2], x[3]);
    cf_lcp_free(&p);
    /* the infeasible one: no solver may claim success, nor return a non-finite x */
    siconos_lcp("lcp_Pang_isolated_sol_perturbed.dat", &p);
    double y[3] = {0};
    cfStatus st = cf_lcp_newton_fb(&p, &o, y, NULL);
    ck_assert_msg(st != CF_OK, "claimed to solve an infeasible LCP");
    ck_assert(cf_vec_finite(3, y));
    cf_lcp_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch06.4 Boxed LCP                                                                            */

/* a boxed LCP with friction rows: two particles' contacts from a random SPD W (nc = 3) */
static void blcp_friction(cfBlcp *p, uint64_t seed)
{
    cfRng rng;
    cf_rng_seed(&rng, seed);
    int n = 9;
    double B[81], A[81], b[9];
    for (int i = 0; i < 81; ++i) B[i] = cf_rng_range(&rng, -1, 1);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = i == j ? 0.5 : 0.0;
            for (int k = 0; k < n; ++k) s += B[i * n + k] * B[j * n + k];
            A[i * n + j] = s;
        }
    for (int i = 0; i < n; ++i) b[i] = cf_rng_range(&rng, -2, 1);
    cfLcp l;
    lcp_dense(&l, n, A, b);
    cft_assert_ok(cf_blcp_init(p, &l.A));
    memcpy(p->b, b, sizeof b);
    for (int a = 0; a < 3; ++a)
        for (int k = 1; k < 3; ++k) {
            p->findex[3 * a + k] = 3 * a;
            p->mu[3 * a + k] = 0.4 + 0.1 * a;
            p->lo[3 * a + k] = -INFINITY;
        }
    cf_lcp_free(&l);
}

static const cfBlcp *g_blcp;
static void midmap_fun(void *ctx, const double *x, double *y)
{
    (void)ctx;
    cf_blcp_midmap_eval(g_blcp, g_r, x, y, NULL);
}

START_TEST(ch06_4_midmap_jacobian)
{
    cfBlcp p;
    blcp_friction(&p, 3);
    g_blcp = &p;
    double r[9], x[9], w[9];
    for (int i = 0; i < 9; ++i) r[i] = 0.5 + 0.2 * i;
    cfRng rng;
    cf_rng_seed(&rng, 4);
    int checked = 0, at_bound = 0;
    for (int trial = 0; trial < 200 && checked < 20; ++trial) {
        g_r = trial % 2 ? r : NULL;
        for (int i = 0; i < 9; ++i) x[i] = cf_rng_range(&rng, -1, 2);
        /* away from the kinks: y = x - w / r at least 1e-3 from both bounds, normals not near 0 */
        cfLcp view = {.n = 9, .A = p.A, .b = p.b};
        cf_lcp_w(&view, x, w);
        bool away = true;
        int bound = 0;
        for (int i = 0; i < 9; ++i) {
            double lo, hi, y = x[i] - w[i] / (g_r ? r[i] : 1.0);
            cf_blcp_bounds(&p, x, i, &lo, &hi);
            away &= fabs(y - lo) > 1e-3 && fabs(y - hi) > 1e-3 && fabs(x[i]) > 1e-3;
            bound += y < lo || y > hi;
        }
        if (!away) continue;
        cfTriplets T;
        double H[9];
        cft_assert_ok(cf_triplets_init(&T, 9, 9));
        cft_assert_ok(cf_blcp_midmap_eval(&p, g_r, x, H, &T));
        /* H itself, the spec's x_i - mid(lo_i, x_i - w_i / r_i, hi_i) (the Jacobian check alone
           holds for any H consistent with its J, such as one that forgets r in y) */
        for (int i = 0; i < 9; ++i) {
            double lo, hi, y = x[i] - w[i] / (g_r ? r[i] : 1.0);
            cf_blcp_bounds(&p, x, i, &lo, &hi);
            cft_assert_near_at(H[i], x[i] - fmax(lo, fmin(y, hi)), 1e-15, 1e-14, "trial %d, i = %d", trial, i);
        }
        cfDense J = {0};
        triplets_dense(&T, &J);
        int wi, wj;
        double e = cf_fd_jacobian_error(9, 9, midmap_fun, NULL, x, &J, 1e-6, &wi, &wj);
        cft_assert_at(e < 1e-7, "trial %d: J[%d][%d] off by %g", trial, wi, wj, e);
        cf_dense_free(&J);
        cf_triplets_free(&T);
        ++checked;
        at_bound += bound > 0;
    }
    ck_assert_int_ge(checked, 10);
    ck_assert_int_ge(at_bound, 5); /* the bound rows (with the mu column) were exercised */
    cf_blcp_free(&p);
}
END_TEST

START_TEST(ch06_4_particle_and_random_friction)
{
    /* chapter 5's worked example (boxed PGS, notes 3.2.2): u = (-2, 1, 0.1), mu = 0.3, A = I */
    double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-2, 1, 0.1};
    cfLcp l;
    lcp_dense(&l, 3, I, q);
    cfBlcp p;
    cft_assert_ok(cf_blcp_init(&p, &l.A));
    memcpy(p.b, q, sizeof q);
    for (int i = 1; i < 3; ++i) {
        p.findex[i] = 0;
        p.mu[i] = 0.3;
        p.lo[i] = -INFINITY;
    }
    double x[3] = {0};
    cfNewtonOptions o = opts(20, 1e-13, true);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_blcp_newton(&p, &o, x, &rep));
    cft_assert_near(x[0], 2.0, 1e-12, 0);
    cft_assert_near(x[1], -0.6, 1e-12, 0);
    cft_assert_near(x[2], -0.1, 1e-12, 0);
    cf_blcp_free(&p);
    cf_lcp_free(&l);
    /* random friction problems: converged to 1e-11 and equal to boxed PGS's answer (chapter 5)
       where that one converges too (A is SPD, both stop at 1e-11: |x - x'| ~ cond * 1e-11) */
    int agreed = 0;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        blcp_friction(&p, seed);
        double xn[9] = {0}, xp[9] = {0};
        cft_assert_ok_at(cf_blcp_newton(&p, &o, xn, &rep), "seed %d", (int)seed);
        cft_assert_at(cf_blcp_residual(&p, xn) <= 1e-13, "seed %d", (int)seed);
        cft_assert_int_at(rep.iterations, <=, 15, "seed %d", (int)seed);
        cfSplitOptions so = cf_split_options_default();
        so.max_iter = 100000;
        so.tol_abs = 1e-12;
        if (cf_blcp_pgs(&p, &so, xp, &rep) == CF_OK) {
            for (int i = 0; i < 9; ++i) cft_assert_near_at(xn[i], xp[i], 1e-7, 0, "seed %d, i = %d", (int)seed, i);
            ++agreed;
        }
        cf_blcp_free(&p);
    }
    ck_assert_int_ge(agreed, 4);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch06.5 The full contact system                                                              */

/* one particle (mass m, unit-cube inertia) resting on the ground plane at the origin */
static void particle_system(cfContactSystem *s, cfVec3 v, double mu, double mass)
{
    cfRigidBody b[2];
    cft_assert_ok(cf_rigid_init_fixed(&b[0], cf_shape_plane(cfu_vec3(0, 0, 1), 0.0), NULL));
    cft_assert_ok(cf_rigid_init(&b[1], cf_shape_sphere(0.5), mass, NULL));
    b[1].x = cfu_vec3(0, 0, 0);
    b[1].v = v;
    cfContact c;
    memset(&c, 0, sizeof c);
    c.body_a = 0;
    c.body_b = 1;
    c.p = cfu_vec3(0, 0, 0); /* at the centre of mass: no arm, W = I / m */
    c.n = cfu_vec3(0, 0, 1);
    c.t = cfu_vec3(1, 0, 0);
    c.b = cfu_vec3(0, 1, 0);
    c.mu = mu;
    cft_assert_ok(cf_contact_system_rigid(b, 2, &c, 1, 0.01, 0.2, s));
}

static void system_start(const cfContactSystem *s, double *x)
{
    memset(x, 0, (size_t)cf_contact_system_size(s) * sizeof *x);
    for (int k = 0; k < s->nb; ++k)
        for (int i = 0; i < 6; ++i) x[6 * k + i] = s->p[6 * k + i] / s->M[36 * k + 7 * i];
}

START_TEST(ch06_5_sliding_and_sticking_particle)
{
    /* notes 3.3.4's full system, one sliding particle: mu = 0.5, u_t = 2, u_n = -1, m = 1:
       lambda_n = 1, lambda_t = -0.5 opposite the slip, gamma = |v_t| = 1.5 */
    for (int kind = 0; kind < CF_NCP_KIND_COUNT; ++kind) {
        cfContactSystem s;
        particle_system(&s, cfu_vec3(2, 0, -1), 0.5, 1.0);
        double x[10];
        system_start(&s, x);
        cfNewtonOptions o = opts(50, 1e-12, false);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok_at(cf_contact_system_newton(&s, (cfNcpKind)kind, &o, x, &rep), "kind %d", kind);
        cft_assert_near_at(x[6], 1.0, 1e-10, 0, "kind %d", kind);
        cft_assert_near_at(x[7], -0.5, 1e-10, 0, "kind %d", kind);
        cft_assert_near_at(x[8], 0.0, 1e-10, 0, "kind %d", kind);
        cft_assert_near_at(x[9], 1.5, 1e-9, 0, "kind %d", kind);
        cft_assert_near_at(x[0], 1.5, 1e-10, 0, "kind %d", kind); /* still sliding at 1.5 */
        cft_assert_near_at(x[2], 0.0, 1e-10, 0, "kind %d", kind);
        cf_contact_system_free(&s);
        /* sticking: u_t = 0.2 < mu |u_n| / m: lambda_t = -0.2 stops it, gamma = 0 */
        particle_system(&s, cfu_vec3(0.2, -0.1, -1), 0.5, 1.0);
        system_start(&s, x);
        cft_assert_ok_at(cf_contact_system_newton(&s, (cfNcpKind)kind, &o, x, &rep), "kind %d", kind);
        cft_assert_near_at(x[7], -0.2, 1e-9, 0, "kind %d", kind);
        cft_assert_near_at(x[8], 0.1, 1e-9, 0, "kind %d", kind);
        cft_assert_near_at(x[9], 0.0, 1e-9, 0, "kind %d", kind);
        cft_assert_near_at(x[0], 0.0, 1e-9, 0, "kind %d", kind);
        cf_contact_system_free(&s);
        /* the normal row's bias: a penetration correction bias = -0.2 (erp phi / h < 0) asks for
           v_n = 0.2 after the step, so lambda_n = 1.2, friction -mu lambda_n = -0.6 and the
           particle slides on at 2 - 0.6 = 1.4 = gamma */
        particle_system(&s, cfu_vec3(2, 0, -1), 0.5, 1.0);
        s.bias[0] = -0.2;
        system_start(&s, x);
        cft_assert_ok_at(cf_contact_system_newton(&s, (cfNcpKind)kind, &o, x, &rep), "kind %d", kind);
        cft_assert_near_at(x[6], 1.2, 1e-10, 0, "kind %d", kind);
        cft_assert_near_at(x[7], -0.6, 1e-10, 0, "kind %d", kind);
        cft_assert_near_at(x[9], 1.4, 1e-9, 0, "kind %d", kind);
        cft_assert_near_at(x[0], 1.4, 1e-10, 0, "kind %d", kind);
        cft_assert_near_at(x[2], 0.2, 1e-10, 0, "kind %d", kind);
        cf_contact_system_free(&s);
    }
}
END_TEST

/* two boxes, one on the ground, one on top, with contacts at their corners: a random state */
static const cfContactSystem *g_sys;
static cfNcpKind g_sys_kind;
static void system_fun(void *ctx, const double *x, double *y)
{
    (void)ctx;
    cf_contact_system_eval(g_sys, g_sys_kind, 0.7, 1e-10, x, y, NULL);
}

static void box_stack_system(cfContactSystem *s)
{
    cfRigidBody b[3];
    cft_assert_ok(cf_rigid_init_fixed(&b[0], cf_shape_plane(cfu_vec3(0, 0, 1), 0.0), NULL));
    for (int k = 1; k < 3; ++k) {
        cft_assert_ok_at(cf_rigid_init(&b[k], cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), k == 2 ? 3.0 : 1.0, NULL),
                         "k = %d", k);
        b[k].x = cfu_vec3(0.1 * k, 0, k - 0.5);
        b[k].v = cfu_vec3(0.3, -0.2 * k, -0.5);
        b[k].w = cfu_vec3(0.1, 0.2, -0.3 * k);
    }
    cfContact c[8];
    memset(c, 0, sizeof c);
    for (int a = 0; a < 8; ++a) {
        int level = a / 4, corner = a % 4;
        c[a].body_a = level;
        c[a].body_b = level + 1;
        c[a].p = cfu_vec3(0.1 * (level + 1) + (corner & 1 ? 0.5 : -0.5), corner & 2 ? 0.5 : -0.5, level);
        c[a].n = cfu_vec3(0, 0, 1);
        cft_assert_ok_at(cf_contact_frame(c[a].n, &c[a].t, &c[a].b), "a = %d", a);
        c[a].mu = 0.6;
        c[a].phi = a == 3 ? -0.01 : 0.0;
    }
    cft_assert_ok(cf_contact_system_rigid(b, 3, c, 8, 0.01, 0.2, s));
}

START_TEST(ch06_5_jacobian_and_eps_guard)
{
    cfContactSystem s;
    box_stack_system(&s);
    g_sys = &s;
    int n = cf_contact_system_size(&s);
    ck_assert_int_eq(n, 12 + 32);
    double *x = malloc((size_t)n * sizeof *x), *F = malloc((size_t)n * sizeof *F);
    cfRng rng;
    cf_rng_seed(&rng, 21);
    int checked = 0;
    for (int trial = 0; trial < 100 && checked < 6; ++trial) {
        g_sys_kind = (cfNcpKind)(trial % 2);
        for (int i = 0; i < n; ++i) x[i] = cf_rng_range(&rng, -1, 1);
        for (int a = 0; a < 8; ++a) x[12 + 4 * a] = cf_rng_range(&rng, 0.2, 2.0); /* loaded normals */
        /* away from the kinks of both NCP functions (min map: a = r b; FB: the origin) */
        cft_assert_ok(cf_contact_system_eval(&s, g_sys_kind, 0.7, 1e-10, x, F, NULL));
        bool away = true;
        for (int a = 0; a < 8; ++a) {
            const double *l = &x[12 + 4 * a];
            double v_n_plus_bias = 0.0; /* recover the constraint of the normal row from F is not
                                           possible for FB; use the min map's kink test on both */
            (void)v_n_plus_bias;
            away &= hypot(l[1], l[2]) > 1e-3;
            double slack = s.mu[a] * l[0] - hypot(l[1], l[2]);
            away &= fabs(slack - 0.7 * l[3]) > 1e-3;
        }
        if (!away) continue;
        cfTriplets T;
        cft_assert_ok(cf_triplets_init(&T, n, n));
        cft_assert_ok(cf_contact_system_eval(&s, g_sys_kind, 0.7, 1e-10, x, F, &T));
        cfDense J = {0};
        triplets_dense(&T, &J);
        int wi, wj;
        double e = cf_fd_jacobian_error(n, n, system_fun, NULL, x, &J, 1e-6, &wi, &wj);
        /* a normal row whose kink lies within the difference step shows as an error there:
           skip such points rather than loosen the bound */
        if (e >= 1e-6 && wi >= 12 && (wi - 12) % 4 == 0) {
            cf_dense_free(&J);
            cf_triplets_free(&T);
            continue;
        }
        cft_assert_at(e < 1e-6, "trial %d: J[%d][%d] off by %g", trial, wi, wj, e);
        /* not symmetric (notes 3.3.4): the momentum rows have -J^T where the contact rows have J */
        cft_assert_at(cf_dense_asymmetry(&J) > 0.5, "trial %d", trial);
        cf_dense_free(&J);
        cf_triplets_free(&T);
        ++checked;
    }
    ck_assert_int_ge(checked, 4);
    /* the guard: a resting contact with lambda_t = 0 gives a finite F and J */
    for (int i = 0; i < n; ++i) x[i] = 0.0;
    cfTriplets T;
    cft_assert_ok(cf_triplets_init(&T, n, n));
    cft_assert_ok(cf_contact_system_eval(&s, CF_NCP_MINMAP, 1.0, 1e-10, x, F, &T));
    ck_assert(cf_vec_finite(n, F) && cf_vec_finite(T.nnz, T.v));
    cf_triplets_free(&T);
    free(x);
    free(F);
    cf_contact_system_free(&s);
}
END_TEST

/* a column of four spheres (mass 1, 2, 3, 4, hard to spin) on the ground: W is block
   tridiagonal and nonsingular, so the impulses are unique; every sphere moves down and sideways at
   its own speed, and mu alternates 0.02, 1, so some contacts slide and some stick */
static void particle_column(cfContactSystem *s)
{
    cfRigidBody b[5];
    cft_assert_ok(cf_rigid_init_fixed(&b[0], cf_shape_plane(cfu_vec3(0, 0, 1), 0.0), NULL));
    cfContact c[4];
    memset(c, 0, sizeof c);
    for (int k = 1; k <= 4; ++k) {
        cft_assert_ok_at(cf_rigid_init(&b[k], cf_shape_sphere(0.5), k, NULL), "k = %d", k);
        /* nearly no rolling: a large rotational inertia leaves the tangential motion to friction */
        cft_assert_ok_at(cf_rigid_set_inertia(&b[k], cfu_vec3(1e3, 1e3, 1e3), NULL), "k = %d", k);
        b[k].x = cfu_vec3(0, 0, k - 1);
        b[k].v = cfu_vec3(0.8 * (k % 2) - 0.1 * k, 0.05 * k, -1.0 * k);
        c[k - 1].body_a = k - 1;
        c[k - 1].body_b = k;
        c[k - 1].p = cfu_vec3(0, 0, k - 1);
        c[k - 1].n = cfu_vec3(0, 0, 1);
        cft_assert_ok_at(cf_contact_frame(c[k - 1].n, &c[k - 1].t, &c[k - 1].b), "k = %d", k);
        c[k - 1].mu = k % 2 ? 0.02 : 1.0;
    }
    cft_assert_ok(cf_contact_system_rigid(b, 5, c, 4, 0.01, 0.2, s));
}

START_TEST(ch06_5_lu_and_gmres_agree)
{
    /* solved with a dense LU and with preconditioned GMRES per Newton step: the same answer
       (both to |F| <= 1e-10; the Jacobian is well conditioned with every contact loaded, so
       the two answers differ by about cond(J) 1e-10) */
    cfContactSystem s;
    particle_column(&s);
    int n = cf_contact_system_size(&s);
    double *x1 = malloc((size_t)n * sizeof *x1), *x2 = malloc((size_t)n * sizeof *x2);
    system_start(&s, x1);
    system_start(&s, x2);
    /* GMRES's inexact steps on this stiff system (rotational inertia 1e3 next to unit masses)
       need more Newton iterations than LU's (measured: 42 against 11); 100 leaves room */
    cfNewtonOptions o = opts(100, 1e-10, false);
    o.linear = CF_NEWTON_LINEAR_LU;
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_contact_system_newton(&s, CF_NCP_FB, &o, x1, &rep));
    o.linear = CF_NEWTON_LINEAR_GMRES;
    cft_assert_ok(cf_contact_system_newton(&s, CF_NCP_FB, &o, x2, &rep));
    for (int i = 0; i < n; ++i) cft_assert_near_at(x1[i], x2[i], 1e-7, 0, "i = %d", i);
    /* certificates: every contact is loaded and in the cone; a sliding one is on the cone's
       edge with its force opposite the sliding velocity (gamma > 0) */
    int sliding = 0;
    for (int a = 0; a < 4; ++a) {
        const double *l = &x1[24 + 4 * a];
        cft_assert_at(l[0] > 0.0, "a = %d", a);
        double nt = hypot(l[1], l[2]);
        cft_assert_at(nt <= s.mu[a] * l[0] + 1e-9, "a = %d", a);
        if (l[3] > 1e-6) {
            cft_assert_near_at(nt, s.mu[a] * l[0], 1e-9, 0, "a = %d", a);
            ++sliding;
        }
    }
    ck_assert_int_gt(sliding, 0);
    free(x1);
    free(x2);
    cf_contact_system_free(&s);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch06.6 Alart-Curnier Newton                                                                 */

static const cfFrictionProblem *g_fc;
static const double *g_rho;
static void ac_fun(void *ctx, const double *x, double *y)
{
    (void)ctx;
    cf_fc_ac_eval(g_fc, g_rho, x, y, NULL);
}

/* a random FC problem: W = B B^T + 0.1 I (nc = 4), q and mu random */
static void fc_random(cfFrictionProblem *p, uint64_t seed)
{
    cfRng rng;
    cf_rng_seed(&rng, seed);
    int n = 12;
    double B[144], W[144], q[12], mu[4];
    for (int i = 0; i < 144; ++i) B[i] = cf_rng_range(&rng, -1, 1);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = i == j ? 0.1 : 0.0;
            for (int k = 0; k < n; ++k) s += B[i * n + k] * B[j * n + k];
            W[i * n + j] = s;
        }
    for (int i = 0; i < n; ++i) q[i] = cf_rng_range(&rng, -1, 1);
    for (int a = 0; a < 4; ++a) mu[a] = cf_rng_range(&rng, 0.1, 1.0);
    fc_dense(p, 4, W, q, mu);
}

START_TEST(ch06_6_ac_jacobian)
{
    cfFrictionProblem p;
    fc_random(&p, 2);
    g_fc = &p;
    double rho[4] = {0.3, 1.0, 2.0, 0.7}, r[12], u[12];
    cfRng rng;
    cf_rng_seed(&rng, 8);
    int checked = 0, seen[3] = {0, 0, 0}; /* tangential regimes met: stick, slide, free normal */
    for (int trial = 0; trial < 400 && checked < 30; ++trial) {
        g_rho = trial % 2 ? rho : NULL;
        for (int i = 0; i < 12; ++i) r[i] = cf_rng_range(&rng, -1, 1.5);
        cf_fc_velocity(&p, r, u);
        bool away = true;
        int regime[4];
        for (int a = 0; a < 4; ++a) {
            double rh = g_rho ? rho[a] : 1.0, yn = r[3 * a] - rh * u[3 * a];
            double R = p.mu[a] * fmax(0.0, yn), ny = hypot(r[3 * a + 1] - rh * u[3 * a + 1], r[3 * a + 2] - rh * u[3 * a + 2]);
            /* the kinks: y_n = 0, |y_T| = R, y_T = 0; a difference step of 1e-6 moves y by ~1e-5 */
            away &= fabs(yn) > 1e-3 && fabs(ny - R) > 1e-3 && ny > 1e-3;
            regime[a] = yn < 0 ? 2 : ny <= R ? 0 : 1;
        }
        if (!away) continue;
        double Phi[12];
        cfTriplets T;
        cft_assert_ok(cf_triplets_init(&T, 12, 12));
        cft_assert_ok(cf_fc_ac_eval(&p, g_rho, r, Phi, &T));
        cfDense J = {0};
        triplets_dense(&T, &J);
        int wi, wj;
        double e = cf_fd_jacobian_error(12, 12, ac_fun, NULL, r, &J, 1e-6, &wi, &wj);
        cft_assert_at(e < 1e-6, "trial %d: J[%d][%d] off by %g", trial, wi, wj, e);
        cf_dense_free(&J);
        cf_triplets_free(&T);
        for (int a = 0; a < 4; ++a) seen[regime[a]]++;
        ++checked;
    }
    ck_assert_int_ge(checked, 10);
    for (int k = 0; k < 3; ++k) cft_assert_int_at(seen[k], >, 0, "regime %d", k);
    cf_fc_free(&p);
    /* the tie y_n = 0 while sliding (|y_T| > R = 0) is active: the radius moves with y_n. One
       contact, W = diag(2, 1, 1), q = (-1, -1, 0), mu = 0.5, r = (1, 0, 0): u = (1, -1, 0),
       y = (0, 1, 0), e = (1, 0), G = 0; A_Tn = -mu e, B_Tn = mu e, so J_tn = -0.5 + 0.5 W_nn = 0.5
       (0 with the tie taken as y_n < 0); J_nn = B_nn W_nn = 2, J_tt = 1 */
    const double W1[9] = {2, 0, 0, 0, 1, 0, 0, 0, 1}, q1[3] = {-1, -1, 0}, mu1 = 0.5, r1[3] = {1, 0, 0};
    fc_dense(&p, 1, W1, q1, &mu1);
    double Phi1[3];
    cfTriplets T1;
    cft_assert_ok(cf_triplets_init(&T1, 3, 3));
    cft_assert_ok(cf_fc_ac_eval(&p, NULL, r1, Phi1, &T1));
    cfDense J1 = {0};
    triplets_dense(&T1, &J1);
    const double want[9] = {2, 0, 0, 0.5, 1, 0, 0, 0, 1}, want_phi[3] = {1, 0, 0};
    for (int i = 0; i < 3; ++i) {
        cft_assert_near_at(Phi1[i], want_phi[i], 1e-15, 0, "i = %d", i);
        for (int j = 0; j < 3; ++j)
            cft_assert_near_at(J1.a[3 * i + j], want[3 * i + j], 1e-15, 0, "i = %d, j = %d", i, j);
    }
    cf_dense_free(&J1);
    cf_triplets_free(&T1);
    cf_fc_free(&p);
    /* the tie |y_T| = R at R = 0: a separated contact at rest, the cold start r = 0 with
       q = (1, 0, 0): y = (-1, 0, 0), so R = mu max(0, y_n) = 0 and y_T = 0. Inside (the spec's
       tie rule) Phi = (0, rho u_T) = 0 and J = diag(1, W_tt, W_bb) = I; the outside branch
       divides y_T by |y_T| = 0 (NaN) */
    const double q2[3] = {1, 0, 0}, r2[3] = {0, 0, 0};
    fc_dense(&p, 1, W1, q2, &mu1);
    cft_assert_ok(cf_triplets_init(&T1, 3, 3));
    cft_assert_ok(cf_fc_ac_eval(&p, NULL, r2, Phi1, &T1));
    triplets_dense(&T1, &J1);
    for (int i = 0; i < 3; ++i) {
        cft_assert_near_at(Phi1[i], 0.0, 0.0, 0, "i = %d (y_T = 0 at R = 0)", i);
        for (int j = 0; j < 3; ++j)
            cft_assert_near_at(J1.a[3 * i + j], i == j ? 1.0 : 0.0, 0.0, 0, "i = %d, j = %d (y_T = 0 at R = 0)", i, j);
    }
    cf_dense_free(&J1);
    cf_triplets_free(&T1);
    cf_fc_free(&p);
}
END_TEST

START_TEST(ch06_6_single_contact_laws)
{
    /* W = I: the Coulomb solution in closed form. q = (-1, 2, 0), mu = 0.5: slides, r = (1, -0.5, 0);
       q = (-1, 0.3, 0.2): sticks, r = (1, -0.3, -0.2); q = (1, 2, 0): separates, r = 0 */
    const double qs[3][3] = {{-1, 2, 0}, {-1, 0.3, 0.2}, {1, 2, 0}};
    const double want[3][3] = {{1, -0.5, 0}, {1, -0.3, -0.2}, {0, 0, 0}};
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, mu = 0.5;
    for (int c = 0; c < 3; ++c) {
        cfFrictionProblem p;
        fc_dense(&p, 1, W, qs[c], &mu);
        double r[3] = {0.3, 0.1, -0.2}; /* a warm start that is wrong in every case */
        cfNewtonOptions o = opts(30, 1e-14, true);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok_at(cf_fc_newton_ac(&p, &o, r, &rep), "case %d", c);
        for (int i = 0; i < 3; ++i) cft_assert_near_at(r[i], want[c][i], 1e-13, 0, "case %d, i = %d", c, i);
        cf_fc_free(&p);
    }
}
END_TEST

/* the Siconos FC3D problems with a reference (line 1 n, line 2 r, line 3 u), by name */
static int fc_reference_files(char names[][128], int cap)
{
    char dir[1024], *files[64];
    snprintf(dir, sizeof dir, "%s/siconos-fc3d/reference", cft_data_dir());
    int n = cf_data_files(dir, ".ref", false, files, cap < 64 ? cap : 64);
    for (int i = 0; i < n; ++i) {
        snprintf(names[i], 128, "%.*s", (int)strlen(files[i]) - 4, files[i]);
        free(files[i]);
    }
    return n > 0 ? n : 0;
}

START_TEST(ch06_6_siconos_reference_problems)
{
    /* first a problem in memory (W = I, one sliding contact), so that a stub says "not
       implemented" before any file is opened */
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-1, 2, 0}, mu = 0.5, r0[3] = {0, 0, 0};
    cfFrictionProblem one;
    fc_dense(&one, 1, W, q, &mu);
    cfNewtonOptions o1 = opts(30, 1e-14, true);
    cft_assert_ok(cf_fc_newton_ac(&one, &o1, r0, NULL));
    cf_fc_free(&one);
    if (!cft_data_or_skip("siconos-fc3d/reference", "ch06.6")) return;
    /* every FC3D problem with a reference (n <= 15): Siconos' err / |q| <= 1e-8 from r = 0 */
    char names[64][128];
    int nf = fc_reference_files(names, 64);
    ck_assert_int_ge(nf, 20);
    for (int f = 0; f < nf; ++f) {
        char path[8400];
        snprintf(path, sizeof path, "%s/siconos-fc3d/%s", cft_data_dir(), names[f]);
        cfFrictionProblem p;
        cfError err;
        ck_assert_msg(cf_fc_read_siconos(path, &p, &err) == CF_OK, "%s", err.msg);
        double *r = calloc((size_t)3 * p.nc, sizeof *r);
        double nq = cf_fc_norm_q(&p);
        cfNewtonOptions o = opts(200, 1e-10 * nq, true);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cfStatus st = cf_fc_newton_ac(&p, &o, r, &rep);
        cft_assert_ok_at(st, "%s (%d iterations, err/|q| %g)", names[f], rep.iterations, rep.residual / nq);
        double e = cf_fc_residual(&p, r) / nq;
        cft_assert_at(e <= 1e-8, "%s: err/|q| = %g", names[f], e);
        free(r);
        cf_fc_free(&p);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch06.7 r-scaling                                                                            */

START_TEST(ch06_7_fig23)
{
    /* notes Fig. 23: c(lambda) = lambda / 4 - 1/8 >= 0 ⊥ lambda >= 0, solution 1/2 */
    double A = 0.25, b = -0.125;
    cfLcp p;
    lcp_dense(&p, 1, &A, &b);
    double r;
    cf_lcp_r_scaling(&p, &r);
    cft_assert_near(r, 0.25, 0, 0);
    /* r = 1/4: the branches are parallel, one iteration from anywhere */
    const double starts[] = {-1, 0, 0.3, 10, 1e3};
    for (int k = 0; k < 5; ++k) {
        double x = starts[k];
        cfNewtonOptions o = opts(10, 1e-15, true);
        cfReport rep;
        cf_report_init(&rep, g_hist, HIST);
        cft_assert_ok_at(cf_lcp_newton_minmap(&p, &o, &x, &rep), "start %g", starts[k]);
        cft_assert_near_at(x, 0.5, 1e-15, 0, "start %g", starts[k]);
        cft_assert_int_at(rep.iterations, ==, 1, "start %g", starts[k]);
    }
    /* r = 1: from -1 two iterations, -1 -> 0 -> 1/2; from 10 one */
    double x = -1.0;
    cfNewtonOptions o = opts(10, 1e-15, false);
    o.max_iter = 1;
    cf_lcp_newton_minmap(&p, &o, &x, NULL);
    cft_assert_near(x, 0.0, 1e-15, 0);
    o.max_iter = 10;
    x = -1.0;
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_lcp_newton_minmap(&p, &o, &x, &rep));
    ck_assert_int_eq(rep.iterations, 2);
    cft_assert_near(x, 0.5, 1e-15, 0);
    x = 10.0;
    cft_assert_ok(cf_lcp_newton_minmap(&p, &o, &x, &rep));
    ck_assert_int_eq(rep.iterations, 1);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch06_7_scaling_values)
{
    /* r_i = A_ii, and 1 where the diagonal is zero or negative */
    double A[9] = {4, 1, 0, 1, 0, 2, 0, 2, -3}, b[3] = {0, 0, 0}, r[3];
    cfLcp p;
    lcp_dense(&p, 3, A, b);
    cf_lcp_r_scaling(&p, r);
    cft_assert_near(r[0], 4.0, 0, 0);
    cft_assert_near(r[1], 1.0, 0, 0);
    cft_assert_near(r[2], 1.0, 0, 0);
    cf_lcp_free(&p);
    /* rho_a = 1 / W_aa,nn */
    cfFrictionProblem fc;
    fc_random(&fc, 5);
    double rho[4];
    cf_fc_rho_scaling(&fc, rho);
    cfDense W;
    cft_assert_ok(cf_bsr_to_dense(&fc.W, &W));
    for (int a = 0; a < 4; ++a) cft_assert_near_at(rho[a], 1.0 / *cf_dense_at(&W, 3 * a, 3 * a), 0, 1e-15, "a = %d", a);
    cf_dense_free(&W);
    cf_fc_free(&fc);
    /* a diagonal LCP with entries 1e-3 .. 1e3: scaled min-map Newton solves it in one step from
       any start (every row is Fig. 23); unscaled it needs more */
    int n = 7;
    double D[49] = {0}, bb[7], x[7];
    for (int i = 0; i < n; ++i) {
        D[i * n + i] = pow(10.0, i - 3);
        bb[i] = i % 2 ? 1.0 : -1.0;
    }
    lcp_dense(&p, n, D, bb);
    int its[2];
    for (int scale = 0; scale < 2; ++scale) {
        for (int i = 0; i < n; ++i) x[i] = i % 3 ? -2.0 : 5.0;
        cfNewtonOptions o = opts(20, 1e-12, scale);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok_at(cf_lcp_newton_minmap(&p, &o, x, &rep), "scale %d", scale);
        its[scale] = rep.iterations;
    }
    ck_assert_int_eq(its[1], 1);
    ck_assert_int_gt(its[0], 1);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch06_7_scaling_helps_contact)
{
    /* Fig. 23 in the cone: a heavy particle (m = 1000, W = I / m) pressed down and sliding,
       Newton from r_n = -10 (a negative normal impulse). Unscaled (rho = 1) y_n = r_n - u_n is
       negative: the normal row reads "free" and the first step only goes to r_n = 0 (Fig. 23
       with r = 1: two or more steps); scaled (rho = m = 1 / W_nn) y_n > 0 at once and one
       step lands on the solution: the branches are parallel. */
    double W[9] = {1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3}, q[3] = {-1, 2, 0.5}, mu = 0.3;
    cfFrictionProblem p;
    fc_dense(&p, 1, W, q, &mu);
    int its[2];
    for (int scale = 0; scale < 2; ++scale) {
        double r[3] = {-10, 0, 0};
        cfNewtonOptions o = opts(100, 1e-12, scale);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok_at(cf_fc_newton_ac(&p, &o, r, &rep), "scale %d", scale);
        /* the Coulomb solution: r_n = 1000, r_T = -300 along (2, 0.5) / |(2, 0.5)| */
        cft_assert_near_at(r[0], 1000.0, 1e-8, 0, "scale %d", scale);
        cft_assert_near_at(r[1], -300.0 * 2.0 / hypot(2.0, 0.5), 1e-8, 0, "scale %d", scale);
        cft_assert_near_at(r[2], -300.0 * 0.5 / hypot(2.0, 0.5), 1e-8, 0, "scale %d", scale);
        its[scale] = rep.iterations;
    }
    ck_assert_msg(its[1] == 1 && its[0] >= 2, "scaled %d, unscaled %d iterations", its[1], its[0]);
    cf_fc_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ungraded: the world rows                                                                    */

START_TEST(lib_newton_rows_in_world)
{
    /* every chapter-6 world row of the registry holds a two-box stack (10:1) */
    const char *rows[] = {"newton-ac", "newton-mid"};
    for (int k = 0; k < 2; ++k) {
        const cfSolver *s = cf_solver_find(rows[k]);
        ck_assert_ptr_nonnull(s);
        ck_assert_int_eq(s->chapter, 6);
        cfWorldDef def = cf_world_def_default();
        def.detector = CF_DETECT_PRIMITIVES;
        def.solver = s;
        def.solver_iterations = 20;
        def.contact_margin = 0.02;
        cfWorld w;
        cft_assert_ok(cf_world_init(&w, &def));
        cfRigidBody g;
        cft_assert_ok(cf_rigid_init_fixed(&g, cf_shape_plane(cfu_vec3(0, 0, 1), 0.0), NULL));
        g.mu = 0.5;
        cf_world_add_body(&w, &g);
        for (int i = 0; i < 2; ++i) {
            cfRigidBody b;
            cft_assert_ok_at(cf_rigid_init(&b, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), i ? 10.0 : 1.0, NULL),
                             "i = %d", i);
            b.x = cfu_vec3(0, 0, 0.5 + i);
            b.mu = 0.5;
            cf_world_add_body(&w, &b);
        }
        for (int step = 0; step < 120; ++step) cft_assert_ok_at(cf_world_step(&w), "%s, step %d", rows[k], step);
        cft_assert_at(fabs(w.bodies[2].x.z - 1.5) < 0.01, "%s: top box at %g", rows[k], w.bodies[2].x.z);
        cf_world_free(&w);
    }
}
END_TEST

static void build(Suite *s)
{
    TCase *t1 = cft_tcase_unit(s, "ch06.1");
    CFT_GRADED(t1, ch06_1_analytic_values, "ch06.1", 4, "FB and min-map values, tie rules, ranges, no overflow");
    CFT_GRADED(t1, ch06_1_partials_match_differences, "ch06.1", 3, "partials equal central differences");
    CFT_GRADED(t1, ch06_1_scaled_and_penalized, "ch06.1", 3, "psi(a, r b) and penalized FB values");

    TCase *t2 = cft_tcase_unit(s, "ch06.2");
    CFT_GRADED(t2, ch06_2_minmap_jacobian, "ch06.2", 4, "min-map Jacobian: differences and the tie rule");
    CFT_GRADED(t2, ch06_2_stack_in_one_iteration, "ch06.2", 5, "mass-ratio stack in one iteration (PGS: > 1000)");
    CFT_GRADED(t2, ch06_2_quadratic_convergence, "ch06.2", 4, "quadratic convergence on generated SPD problems");
    CFT_GRADED(t2, ch06_2_line_search_and_fallback, "ch06.2", 4, "Armijo back-tracking, stagnation, budget");
    CFT_GRADED(t2, ch06_2_agrees_with_lemke, "ch06.2", 3, "same solution as Lemke on P-matrix problems");

    TCase *t3 = cft_tcase_unit(s, "ch06.3");
    CFT_GRADED(t3, ch06_3_fb_jacobian, "ch06.3", 3, "FB Jacobian (plain and penalized) equals differences");
    CFT_GRADED(t3, ch06_3_stacks_and_random, "ch06.3", 4, "FB Newton: stacks (cold and warm), random SPD quadratic");
    CFT_GRADED(t3, ch06_3_siconos_outcomes, "ch06.3", 3, "Siconos LCPs: solved, CPS_3 an equilibrium, infeasible refused");

    TCase *t4 = cft_tcase_unit(s, "ch06.4");
    CFT_GRADED(t4, ch06_4_midmap_jacobian, "ch06.4", 4, "mid-map Jacobian with moving bounds equals differences");
    CFT_GRADED(t4, ch06_4_particle_and_random_friction, "ch06.4", 6, "particle stick/slip; equals boxed PGS");

    TCase *t5 = cft_tcase_unit(s, "ch06.5");
    CFT_GRADED(t5, ch06_5_sliding_and_sticking_particle, "ch06.5", 5, "sliding particle: lambda = (1, -0.5), gamma 1.5");
    CFT_GRADED(t5, ch06_5_jacobian_and_eps_guard, "ch06.5", 5, "Eq. 199 Jacobian equals differences; finite at lambda_t = 0");
    CFT_GRADED(t5, ch06_5_lu_and_gmres_agree, "ch06.5", 5, "dense LU and GMRES Newton agree; cone certificates");

    TCase *t6 = cft_tcase_unit(s, "ch06.6");
    CFT_GRADED(t6, ch06_6_ac_jacobian, "ch06.6", 6, "Alart-Curnier Jacobian equals differences (stick, slide, free)");
    CFT_GRADED(t6, ch06_6_single_contact_laws, "ch06.6", 4, "one contact: slide, stick, separate exactly");
    CFT_GRADED(t6, ch06_6_siconos_reference_problems, "ch06.6", 10, "Siconos FC3D reference problems: err/|q| <= 1e-8");

    TCase *t7 = cft_tcase_unit(s, "ch06.7");
    CFT_GRADED(t7, ch06_7_fig23, "ch06.7", 5, "Fig. 23: one iteration with r = 1/4, two with r = 1 from -1");
    CFT_GRADED(t7, ch06_7_scaling_values, "ch06.7", 4, "r = A_ii, rho = 1/W_nn; diagonal LCP in one step");
    CFT_GRADED(t7, ch06_7_scaling_helps_contact, "ch06.7", 6, "scaled AC: a heavy particle in one step, unscaled in two");

    TCase *ti = cft_tcase_scene(s, "ch06-integration");
    CFT_TEST(ti, lib_newton_rows_in_world, "the chapter-6 world rows hold a two-box stack");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "ch06", build); }
