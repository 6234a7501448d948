/* SPDX-License-Identifier: MIT */
/* Chapter 4 tests: pivoting methods. Every graded test checks a certificate (complementarity
   residual, an independent brute-force enumeration, a closed-form physical answer, a pivot count
   proved in the literature, or the outcome a matrix class implies on the Siconos set), never a
   stored number. Run with `make test-ch4` (your code) or `make test-ch4 IMPL=solutions`. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_ch04.h"
#include "cf/cf_problem.h"
#include "cf/cf_rng.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

typedef cfStatus (*LcpSolver)(const cfLcp *, const cfPivotOptions *, double *, cfReport *);

/* An LCP from a row-major array. */
static cfLcp make_lcp(int n, const double *A, const double *b)
{
    cfDense D = {n, n, (double *)A};
    cfLcp p;
    ck_assert_int_eq(cf_lcp_from_dense(&p, &D, b), CF_OK);
    return p;
}

/* Solve the k x k system M y = r by Gaussian elimination with partial pivoting (the test's own,
   independent of the library). Returns false when singular. M and r are overwritten. */
static bool gauss(int k, double *M, double *r, double *y)
{
    for (int c = 0; c < k; ++c) {
        int piv = c;
        for (int i = c + 1; i < k; ++i)
            if (fabs(M[i * k + c]) > fabs(M[piv * k + c])) piv = i;
        if (fabs(M[piv * k + c]) < 1e-13) return false;
        if (piv != c) {
            for (int j = 0; j < k; ++j) {
                double t = M[c * k + j];
                M[c * k + j] = M[piv * k + j];
                M[piv * k + j] = t;
            }
            double t = r[c];
            r[c] = r[piv];
            r[piv] = t;
        }
        for (int i = c + 1; i < k; ++i) {
            double f = M[i * k + c] / M[c * k + c];
            for (int j = c; j < k; ++j) M[i * k + j] -= f * M[c * k + j];
            r[i] -= f * r[c];
        }
    }
    for (int i = k - 1; i >= 0; --i) {
        double s = r[i];
        for (int j = i + 1; j < k; ++j) s -= M[i * k + j] * y[j];
        y[i] = s / M[i * k + i];
    }
    return true;
}

/* Brute force: try every support F (2^n of them), solve A_FF x_F = -b_F and keep the first
   complementary, feasible point. Returns the number of solutions found (up to `limit` checked). */
static int brute_force(int n, const double *A, const double *b, double *x)
{
    int found = 0;
    double M[100], r[10], y[10], w[10], cand[10];
    ck_assert(n <= 10);
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
        int idx[10], k = 0;
        for (int i = 0; i < n; ++i)
            if (mask & (1u << i)) idx[k++] = i;
        for (int i = 0; i < k; ++i) {
            for (int j = 0; j < k; ++j) M[i * k + j] = A[idx[i] * n + idx[j]];
            r[i] = -b[idx[i]];
        }
        if (k > 0 && !gauss(k, M, r, y)) continue;
        memset(cand, 0, sizeof cand);
        for (int i = 0; i < k; ++i) cand[idx[i]] = y[i];
        bool ok = true;
        for (int i = 0; i < n && ok; ++i) {
            w[i] = b[i];
            for (int j = 0; j < n; ++j) w[i] += A[i * n + j] * cand[j];
            ok = cand[i] >= -1e-10 && w[i] >= -1e-10;
        }
        if (ok) {
            if (found == 0) memcpy(x, cand, (size_t)n * sizeof *x);
            ++found;
        }
    }
    return found;
}

/* Certificate: x >= 0, w >= 0 and min(x, w) = 0 to tol (absolute, relative to ||b||). */
static void assert_solves(const cfLcp *p, const double *x, double tol)
{
    double scale = fmax(1.0, cf_vec_norm_inf(p->n, p->b));
    double w[64];
    ck_assert(p->n <= 64);
    cf_lcp_w(p, x, w);
    for (int i = 0; i < p->n; ++i) {
        ck_assert_msg(x[i] >= -tol * scale, "x[%d] = %g < 0", i, x[i]);
        ck_assert_msg(w[i] >= -tol * scale, "w[%d] = %g < 0", i, w[i]);
        ck_assert_msg(fabs(fmin(x[i], w[i])) <= tol * scale, "x[%d] = %g, w[%d] = %g not complementary", i, x[i], i,
                      w[i]);
    }
}

/* Random P-matrix: S + K with S symmetric positive definite and K skew-symmetric (then
   x^T A x = x^T S x > 0, so A is positive definite, hence P). With skew = 0 A is SPD. */
static void random_p_matrix(cfRng *rng, int n, double skew, double *A)
{
    double R[256];
    ck_assert(n <= 16);
    for (int i = 0; i < n * n; ++i) R[i] = cf_rng_range(rng, -1, 1);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k) s += R[i * n + k] * R[j * n + k];
            A[i * n + j] = s / n + (i == j ? 0.1 : 0.0);
        }
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            double k = skew * cf_rng_range(rng, -1, 1);
            A[i * n + j] += k;
            A[j * n + i] -= k;
        }
}

/* Murty's triangular LCP: A_ii = 1, A_ij = 2 for j > i, b = -1. */
static cfLcp murty_example(int n)
{
    double A[16 * 16], b[16];
    ck_assert(n <= 16);
    for (int i = 0; i < n; ++i) {
        b[i] = -1.0;
        for (int j = 0; j < n; ++j) A[i * n + j] = j == i ? 1.0 : (j > i ? 2.0 : 0.0);
    }
    return make_lcp(n, A, b);
}

/* Run @p solve on random P-matrix LCPs (n = 1..10) and compare with brute force. */
static void check_p_family(LcpSolver solve, double skew, uint64_t seed, int count)
{
    cfRng rng;
    cf_rng_seed(&rng, seed);
    for (int t = 0; t < count; ++t) {
        int n = 1 + (int)cf_rng_below(&rng, 10);
        double A[100], b[10], want[10], x[10];
        random_p_matrix(&rng, n, skew, A);
        for (int i = 0; i < n; ++i) b[i] = cf_rng_range(&rng, -1, 1);
        ck_assert_int_eq(brute_force(n, A, b, want), 1); /* P-matrix: exactly one solution */
        cfLcp p = make_lcp(n, A, b);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cfStatus st = solve(&p, NULL, x, &rep);
        ck_assert_msg(st == CF_OK, "problem %d (n = %d): %s", t, n, cf_status_name(st));
        for (int i = 0; i < n; ++i) cft_assert_near_at(x[i], want[i], 1e-9, 1e-9, "i = %d", i);
        cft_assert_near(rep.residual, cf_lcp_residual(&p, x), 1e-15, 1e-12);
        ck_assert(rep.seconds >= 0.0);
        cf_lcp_free(&p);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The Siconos set: the outcome each matrix class implies                                      */

typedef enum { EXPECT_SOLVED, EXPECT_INFEASIBLE, EXPECT_ANY } Expect;

/* per solver: what the class of each file implies (EXPECT_ANY: no guarantee, but a "converged"
   answer must be right) */
typedef struct FileClass {
    const char *name;
    Expect lemke, dantzig, principal; /* principal: Murty and BPP (P-matrices) */
    bool symmetric;
} FileClass;

static const FileClass CLASSES[] = {
    /* SPD / P-matrices: every method solves them */
    {"lcp_deudeu", EXPECT_SOLVED, EXPECT_SOLVED, EXPECT_SOLVED, true},
    {"lcp_deudeu_block", EXPECT_SOLVED, EXPECT_SOLVED, EXPECT_SOLVED, true},
    {"lcp_trivial", EXPECT_SOLVED, EXPECT_SOLVED, EXPECT_SOLVED, true},
    {"lcp_trivial_block", EXPECT_SOLVED, EXPECT_SOLVED, EXPECT_SOLVED, true},
    {"lcp_mmc", EXPECT_SOLVED, EXPECT_SOLVED, EXPECT_SOLVED, true},
    {"lcp_ortiz", EXPECT_SOLVED, EXPECT_ANY, EXPECT_SOLVED, false},
    {"lcp_ortiz_block", EXPECT_SOLVED, EXPECT_ANY, EXPECT_SOLVED, false},
    {"lcp_exp_murty", EXPECT_SOLVED, EXPECT_ANY, EXPECT_SOLVED, false},
    {"lcp_exp_murty2", EXPECT_SOLVED, EXPECT_ANY, EXPECT_SOLVED, false},
    /* PSD (symmetric, singular): Dantzig and Lemke solve them */
    {"lcp_CPS_1", EXPECT_SOLVED, EXPECT_SOLVED, EXPECT_ANY, true},
    {"lcp_CPS_5", EXPECT_SOLVED, EXPECT_SOLVED, EXPECT_ANY, true},
    /* copositive-plus / monotone or with a vertex solution Lemke reaches */
    {"lcp_CPS_2", EXPECT_SOLVED, EXPECT_ANY, EXPECT_ANY, false},
    {"lcp_CPS_4", EXPECT_SOLVED, EXPECT_ANY, EXPECT_ANY, false},
    {"lcp_CPS_4bis", EXPECT_SOLVED, EXPECT_ANY, EXPECT_ANY, false},
    {"lcp_Pang_isolated_sol", EXPECT_SOLVED, EXPECT_ANY, EXPECT_ANY, false},
    {"lcp_inf_sol_perturbed", EXPECT_SOLVED, EXPECT_ANY, EXPECT_ANY, false},
    {"lcp_enum_fails", EXPECT_SOLVED, EXPECT_ANY, EXPECT_ANY, false},
    {"lcp_tobenna", EXPECT_SOLVED, EXPECT_ANY, EXPECT_ANY, false},
    /* the bimatrix game: Lemke with covering vector e ends on a secondary ray (CPS 4.4.23) */
    {"lcp_CPS_3", EXPECT_INFEASIBLE, EXPECT_ANY, EXPECT_ANY, false},
    /* no solution at all */
    {"lcp_Pang_isolated_sol_perturbed", EXPECT_INFEASIBLE, EXPECT_ANY, EXPECT_INFEASIBLE, false},
};
#define N_CLASSES ((int)(sizeof CLASSES / sizeof CLASSES[0]))

static const FileClass *class_of(const char *file)
{
    for (int i = 0; i < N_CLASSES; ++i) {
        size_t len = strlen(CLASSES[i].name);
        if (strncmp(file, CLASSES[i].name, len) == 0 && strcmp(file + len, ".dat") == 0) return &CLASSES[i];
    }
    return NULL;
}

/* Reference solution z from reference/<name>.ref (line 1 n, line 2 z); false when absent. */
static bool read_reference(const char *dir, const char *file, int n, double *z)
{
    char path[2048], stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(file) - 4), file);
    snprintf(path, sizeof path, "%s/reference/%s.ref", dir, stem);
    return cft_read_ref(path, n, z) == 1;
}

/* Run @p solve on every Siconos LCP file and check the outcome its class implies. Which column
   of CLASSES applies is given by @p which (0 Lemke, 1 Dantzig, 2 principal pivoting). Returns the
   number of files checked. */
static int siconos_outcomes(LcpSolver solve, int which, const char *solver_name)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/siconos-lcp", cft_data_dir());
    DIR *d = opendir(dir);
    if (!d) {
        printf("ch04: %s not found: Siconos outcome test for %s skipped\n", dir, solver_name);
        return 0;
    }
    struct dirent *e;
    int checked = 0;
    while ((e = readdir(d)) != NULL) {
        const FileClass *cls = class_of(e->d_name);
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".dat") != 0) continue;
        ck_assert_msg(cls != NULL, "%s: file not in the class table of this test", e->d_name);
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        cfLcp p;
        cfError err;
        ck_assert_msg(cf_lcp_read_siconos(path, &p, &err) == CF_OK, "%s", err.msg);
        double *x = calloc((size_t)p.n, sizeof *x), *ref = calloc((size_t)p.n, sizeof *ref);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cfStatus st = solve(&p, NULL, x, &rep);
        double res = cf_lcp_residual_siconos(&p, x);
        Expect ex = which == 0 ? cls->lemke : which == 1 ? cls->dantzig : cls->principal;
        if (which == 1 && !cls->symmetric)
            ck_assert_msg(st == CF_BAD_INPUT, "%s: %s on a non-symmetric matrix: %s, expected bad-input", e->d_name,
                          solver_name, cf_status_name(st));
        else if (ex == EXPECT_SOLVED)
            ck_assert_msg(st == CF_OK && res <= 1e-10, "%s: %s: %s, residual %.3g (expected solved to 1e-10)",
                          e->d_name, solver_name, cf_status_name(st), res);
        else if (ex == EXPECT_INFEASIBLE)
            ck_assert_msg(st == CF_INFEASIBLE || (which == 2 && st != CF_OK), "%s: %s: %s (expected infeasible)",
                          e->d_name, solver_name, cf_status_name(st));
        if (st == CF_OK) /* never a false success */
            ck_assert_msg(res <= 1e-10, "%s: %s claims success with residual %.3g", e->d_name, solver_name, res);
        ck_assert_msg(cf_vec_finite(p.n, x), "%s: %s left a non-finite x", e->d_name, solver_name);
        /* unique solutions (P-matrices) must match the reference */
        if (st == CF_OK && cls->principal == EXPECT_SOLVED && read_reference(dir, e->d_name, p.n, ref))
            for (int i = 0; i < p.n; ++i) cft_assert_near_at(x[i], ref[i], 1e-12, 1e-8, "i = %d", i);
        free(x);
        free(ref);
        cf_lcp_free(&p);
        ++checked;
    }
    closedir(d);
    return checked;
}

/* trace callback: the (entering, leaving) pair of every pivot, in order */
typedef struct PivotLog {
    int n;
    int in[16], out[16];
} PivotLog;

static void log_pivot(void *ctx, const cfPivotEvent *ev)
{
    PivotLog *l = ctx;
    if (l->n < 16) {
        l->in[l->n] = ev->entering;
        l->out[l->n] = ev->leaving;
    }
    l->n++;
}

/* run @p solve with a pivot log; returns the status */
static cfStatus solve_logged(LcpSolver solve, int n, const double *A, const double *b, const double *cover, double *x,
                             PivotLog *log)
{
    cfLcp p = make_lcp(n, A, b);
    cfPivotOptions o = cf_pivot_options_default();
    o.trace = log_pivot;
    o.trace_ctx = log;
    o.cover = cover;
    log->n = 0;
    cfStatus st = solve(&p, &o, x, NULL);
    cf_lcp_free(&p);
    return st;
}

/* a pivot limit of @p limit stops @p solve on @p p with CF_MAX_ITER after exactly @p limit
   pivots and a finite x */
static void assert_pivot_limit(LcpSolver solve, const cfLcp *p, int limit)
{
    double x[16];
    ck_assert(p->n <= 16);
    cfPivotOptions o = cf_pivot_options_default();
    o.max_pivots = limit;
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_status(solve(p, &o, x, &rep), CF_MAX_ITER);
    ck_assert_int_eq(rep.iterations, limit);
    ck_assert(cf_vec_finite(p->n, x));
}

/* ------------------------------------------------------------------------------------------ */
/* ch04.1 Dantzig / Baraff, frictionless, with an updated factorization                         */

START_TEST(ch04_1_chol_update_matches_submatrix)
{
    /* random appends and removals; after each one L L^T must equal A_CC in factor order */
    cfRng rng;
    cf_rng_seed(&rng, 41);
    const int n = 12;
    double Ad[144];
    random_p_matrix(&rng, n, 0.0, Ad);
    cfDense A = {n, n, Ad};
    cfCholUpdate F;
    ck_assert_int_eq(cf_chol_update_init(&F, n), CF_OK);
    bool in[12] = {false};
    for (int step = 0; step < 200; ++step) {
        int j = (int)cf_rng_below(&rng, n);
        if (!in[j]) {
            cft_assert_ok(cf_chol_update_append(&F, &A, j, 1e-12));
            in[j] = true;
        } else {
            int pos = 0;
            while (F.idx[pos] != j) ++pos;
            cf_chol_update_remove(&F, pos);
            in[j] = false;
        }
        int k = 0;
        for (int i = 0; i < n; ++i) k += in[i];
        ck_assert_int_eq(F.k, k);
        for (int r = 0; r < k; ++r) {
            cft_assert_at(in[F.idx[r]], "r = %d", r);
            for (int c = 0; c < k; ++c) {
                double s = 0.0;
                for (int m = 0; m < k; ++m) s += F.L[r * F.cap + m] * F.L[c * F.cap + m];
                cft_assert_near(s, Ad[F.idx[r] * n + F.idx[c]], 1e-12, 1e-12);
            }
            for (int c = r + 1; c < k; ++c) cft_assert_near_at(F.L[r * F.cap + c], 0.0, 0.0, 0,
                                                               "r = %d, c = %d", r, c); /* lower */
        }
    }
    /* a removal from a full factor (k = cap: the rows below move up, none comes from beyond
       the last; the sanitizer build sees a read past it) */
    for (int j = 0; j < n; ++j)
        if (!in[j]) cft_assert_ok_at(cf_chol_update_append(&F, &A, j, 1e-12), "j = %d", j);
    ck_assert_int_eq(F.k, n);
    cf_chol_update_remove(&F, 0);
    ck_assert_int_eq(F.k, n - 1);
    for (int r = 0; r < n - 1; ++r)
        for (int c = 0; c < n - 1; ++c) {
            double s = 0.0;
            for (int m = 0; m < n - 1; ++m) s += F.L[r * F.cap + m] * F.L[c * F.cap + m];
            cft_assert_near_at(s, Ad[F.idx[r] * n + F.idx[c]], 1e-12, 1e-12, "full factor: r = %d, c = %d", r, c);
        }
    /* the worked example of the spec, and a singular append that leaves the factor alone */
    double B[4] = {4, 2, 2, 5};
    cfDense Bd = {2, 2, B};
    cfCholUpdate G;
    ck_assert_int_eq(cf_chol_update_init(&G, 3), CF_OK);
    cft_assert_ok(cf_chol_update_append(&G, &Bd, 0, 1e-12));
    cft_assert_ok(cf_chol_update_append(&G, &Bd, 1, 1e-12));
    cft_assert_near(G.L[0], 2.0, 1e-15, 0);
    cft_assert_near(G.L[G.cap + 0], 1.0, 1e-15, 0);
    cft_assert_near(G.L[G.cap + 1], 2.0, 1e-15, 0);
    double Cs[9] = {1, 1, 0, 1, 1, 0, 0, 0, 1};
    cfDense Csd = {3, 3, Cs};
    cfCholUpdate H;
    ck_assert_int_eq(cf_chol_update_init(&H, 3), CF_OK);
    cft_assert_ok(cf_chol_update_append(&H, &Csd, 0, 1e-12));
    cft_assert_status(cf_chol_update_append(&H, &Csd, 1, 1e-12), CF_SINGULAR);
    ck_assert_int_eq(H.k, 1);
    cft_assert_ok(cf_chol_update_append(&H, &Csd, 2, 1e-12));
    cft_assert_near(H.L[H.cap + 1], 1.0, 1e-15, 0);
    /* the singularity test is relative to alpha = A_jj: at the scale 1e6, delta = 5e-7 is
       5e-13 alpha <= 1e-12 alpha: singular; delta = 5e-5 (5e-11 alpha) is not */
    double Sc[4] = {1e6, 1e6, 1e6, 1e6 + 5e-7};
    cfDense Scd = {2, 2, Sc};
    cfCholUpdate K;
    ck_assert_int_eq(cf_chol_update_init(&K, 2), CF_OK);
    cft_assert_ok(cf_chol_update_append(&K, &Scd, 0, 1e-12));
    cft_assert_status(cf_chol_update_append(&K, &Scd, 1, 1e-12), CF_SINGULAR);
    ck_assert_int_eq(K.k, 1);
    Sc[3] = 1e6 + 5e-5;
    cft_assert_ok(cf_chol_update_append(&K, &Scd, 1, 1e-12));
    cf_chol_update_free(&K);
    cf_chol_update_free(&F);
    cf_chol_update_free(&G);
    cf_chol_update_free(&H);
}
END_TEST

START_TEST(ch04_1_worked_examples)
{
    double A[4] = {2, 1, 1, 2};
    double b1[2] = {-1, -1}, b2[2] = {-1, 1}, x[2];
    cfLcp p = make_lcp(2, A, b1);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_lcp_dantzig(&p, NULL, x, &rep));
    cft_assert_near(x[0], 1.0 / 3.0, 1e-15, 0);
    cft_assert_near(x[1], 1.0 / 3.0, 1e-15, 0);
    ck_assert_int_eq(rep.iterations, 2);
    cf_lcp_free(&p);
    p = make_lcp(2, A, b2);
    cft_assert_ok(cf_lcp_dantzig(&p, NULL, x, &rep));
    cft_assert_near(x[0], 0.5, 1e-15, 0);
    cft_assert_near(x[1], 0.0, 0.0, 0);
    ck_assert_int_eq(rep.iterations, 1);
    cf_lcp_free(&p);
    /* the release example: index 0 is clamped, then released while 1 is driven */
    double B[4] = {1, 0.9, 0.9, 0.85}, b3[2] = {-1, -0.999};
    p = make_lcp(2, B, b3);
    cft_assert_ok(cf_lcp_dantzig(&p, NULL, x, &rep));
    cft_assert_near(x[0], 0.0, 0.0, 0);
    cft_assert_near(x[1], 0.999 / 0.85, 1e-14, 1e-14);
    ck_assert_int_eq(rep.iterations, 3);
    cf_lcp_free(&p);
    /* the pivot limit: one pivot allowed, the first drive ends with it */
    p = make_lcp(2, A, b1);
    assert_pivot_limit(cf_lcp_dantzig, &p, 1);
    cf_lcp_free(&p);
    /* the order of the pivots, from the trace: ties of the most negative w go to the lowest
       index (b = (-1, -1): 0 is clamped first, then 1); the release example clamps 0, releases
       it while driving 1, then clamps 1 */
    PivotLog log;
    cft_assert_ok(solve_logged(cf_lcp_dantzig, 2, A, b1, NULL, x, &log));
    ck_assert_int_eq(log.n, 2);
    ck_assert(log.in[0] == 0 && log.out[0] == -1 && log.in[1] == 1 && log.out[1] == -1);
    cft_assert_ok(solve_logged(cf_lcp_dantzig, 2, B, b3, NULL, x, &log));
    ck_assert_int_eq(log.n, 3);
    ck_assert(log.in[0] == 0 && log.out[0] == -1);
    ck_assert(log.in[1] == -1 && log.out[1] == 0);
    ck_assert(log.in[2] == 1 && log.out[2] == -1);
    /* the release example with a third index driven last (b_2 = -0.05, above w_1 = -0.099 after
       the first pivot), nearly decoupled: A_02 =
       1e-13, A_12 = 0, A_22 = 1. Its direction leaves x_1 where it is (Delta x_1 = -A_12 / A_11 =
       0), so the released index 0 sees Delta w_0 = A_02 = +1e-13: w_0 rises, no event (the
       spec's LOWER event needs Delta w_0 < 0; the candidate -w_0 / Delta w_0 would be a large
       negative step). 4 pivots, x = (0, 0.999 / 0.85, 0.05). Taking LOWER i with Delta w_i
       below +eps as an event clamps index 0 at once and polishes to x_0 < 0, clamped: x_1 =
       2.475 */
    {
        const double C[9] = {1, 0.9, 1e-13, 0.9, 0.85, 0, 1e-13, 0, 1}, c3[3] = {-1, -0.999, -0.05};
        double x3[3];
        cft_assert_ok(solve_logged(cf_lcp_dantzig, 3, C, c3, NULL, x3, &log));
        ck_assert_int_eq(log.n, 4);
        ck_assert(log.in[3] == 2 && log.out[3] == -1);
        cft_assert_near(x3[0], 0.0, 0.0, 0);
        cft_assert_near(x3[1], 0.999 / 0.85, 1e-14, 1e-14);
        cft_assert_near(x3[2], 0.05, 1e-14, 1e-14);
        /* and coupled to index 1 instead (A_12 = 0.02, A_02 = 0): driving index 2 now lowers x_1
           by 0.02 / 0.85 per unit and so w_0 by 0.9 * 0.02 / 0.85 = 0.021 per unit, from
           0.0578: it would reach 0 after 2.7, but index 2 reaches its goal after 0.0265 (w_2 =
           -0.05 + 0.02 x_1 at rate 1 - 0.02^2 / 0.85), so index 0 stays released: 4 pivots,
           the last one index 2's, x the unique solution (enumeration). A ratio -w_0 / Delta w_0
           with the wrong sign (or without the division) is a negative step, clamped to 0:
           index 0 is clamped at once with w_0 > 0 */
        const double D[9] = {1, 0.9, 0, 0.9, 0.85, 0.02, 0, 0.02, 1};
        double want3[3];
        ck_assert_int_eq(brute_force(3, D, c3, want3), 1);
        cft_assert_ok(solve_logged(cf_lcp_dantzig, 3, D, c3, NULL, x3, &log));
        ck_assert_int_eq(log.n, 4);
        ck_assert(log.in[3] == 2 && log.out[3] == -1);
        for (int i = 0; i < 3; ++i) cft_assert_near_at(x3[i], want3[i], 1e-14, 1e-14, "i = %d", i);
        cft_assert_near(x3[0], 0.0, 0.0, 0);
    }
    /* a released force whose acceleration comes back to zero while a later index is driven is
       clamped again (the third case of the ratio test). Found by search among 5 x 5 problems
       A = G G^T + 0.01 I with small integers; the unique solution from enumeration. Skipping
       that clamp leaves the index out of the factor and x off the solution. */
    const double A5[25] = {6.01, -3, 0, 4, 3, -3, 8.01, -7, 1, -9, 0, -7, 13.01, -4, 9,
                           4, 1, -4, 8.01, 0, 3, -9, 9, 0, 11.01};
    const double b5[5] = {-1, -2, -4, -4, -3};
    double x5[5], want5[5];
    ck_assert_int_eq(brute_force(5, A5, b5, want5), 1);
    cft_assert_ok(solve_logged(cf_lcp_dantzig, 5, A5, b5, NULL, x5, &log));
    for (int i = 0; i < 5; ++i) cft_assert_near_at(x5[i], want5[i], 1e-12, 1e-12, "i = %d", i);
    bool again = false; /* some index leaves, then enters again */
    for (int e = 0; e < log.n && e < 16; ++e)
        for (int f = 0; f < e; ++f) again |= log.in[e] >= 0 && log.out[f] == log.in[e];
    ck_assert_msg(again, "the problem no longer clamps a released index (%d pivots)", log.n);
}
END_TEST

START_TEST(ch04_1_spd_matches_brute_force)
{
    check_p_family(cf_lcp_dantzig, 0.0, 4101, 200);
}
END_TEST

/* trace callback: the invariants of the index sets after every pivot, and w = A x + b (the
   pivot moved x and w together along the drive's direction) */
typedef struct InvariantCtx {
    int pivots, releases;
    double worst;
    const cfLcp *p;
} InvariantCtx;

static void check_invariants(void *ctx, const cfPivotEvent *ev)
{
    InvariantCtx *c = ctx;
    c->pivots++;
    if (ev->leaving >= 0) c->releases++;
    for (int i = 0; i < ev->n; ++i) {
        if (ev->label[i] == CF_PIV_FREE) c->worst = fmax(c->worst, fmax(fabs(ev->w[i]), -ev->x[i]));
        if (ev->label[i] == CF_PIV_LOWER) c->worst = fmax(c->worst, fmax(fabs(ev->x[i]), -ev->w[i]));
    }
    if (c->p) {
        double w[16];
        ck_assert(ev->n <= 16);
        cf_lcp_w(c->p, ev->x, w);
        for (int i = 0; i < ev->n; ++i) c->worst = fmax(c->worst, fabs(ev->w[i] - w[i]));
    }
}

START_TEST(ch04_1_invariants_after_every_pivot)
{
    cfRng rng;
    cf_rng_seed(&rng, 4102);
    int total_releases = 0;
    for (int t = 0; t < 100; ++t) {
        /* positively coupled SPD matrices (R with entries in [0, 1)): pushing one contact lifts the
           others, so clamped contacts are often released (the FREE -> LOWER branch) */
        int n = 2 + (int)cf_rng_below(&rng, 9);
        double A[100], b[10], x[10], R[100];
        for (int i = 0; i < n * n; ++i) R[i] = cf_rng_uniform(&rng);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double s = i == j ? 0.05 : 0.0;
                for (int k = 0; k < n; ++k) s += R[i * n + k] * R[j * n + k] / n;
                A[i * n + j] = s;
            }
        for (int i = 0; i < n; ++i) b[i] = cf_rng_range(&rng, -1, -0.2);
        cfLcp p = make_lcp(n, A, b);
        InvariantCtx ctx = {0, 0, 0.0, &p};
        cfPivotOptions o = cf_pivot_options_default();
        o.trace = check_invariants;
        o.trace_ctx = &ctx;
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_lcp_dantzig(&p, &o, x, &rep));
        ck_assert_int_eq(ctx.pivots, rep.iterations);
        ck_assert_msg(ctx.worst <= 1e-10, "problem %d: invariant violated by %g", t, ctx.worst);
        total_releases += ctx.releases;
        assert_solves(&p, x, 1e-12);
        cf_lcp_free(&p);
    }
    ck_assert_msg(total_releases > 0, "no FREE -> LOWER pivot happened: the release branch was never tested");
}
END_TEST

START_TEST(ch04_1_rank_deficient_box)
{
    /* 2D box (m = 1, width 2, height 1, I = 5/12) on three floor contacts x = -1, 0, 1:
       A = J M^-1 J^T has rank 2 and b = -g (1, 1, 1) is in its range. Any answer has
       a = 0, sum f = m g and f_0 = f_2 (no net torque); the solver must not fail as singular. */
    const double g = 9.81, I = 5.0 / 12.0;
    double J[9] = {0, 1, -1, 0, 1, 0, 0, 1, 1}, A[9], b[3] = {-g, -g, -g}, x[3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) A[i * 3 + j] = J[i * 3 + 1] * J[j * 3 + 1] + J[i * 3 + 2] * J[j * 3 + 2] / I;
    cfLcp p = make_lcp(3, A, b);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_lcp_dantzig(&p, NULL, x, &rep));
    assert_solves(&p, x, 1e-12);
    cft_assert_near(x[0] + x[1] + x[2], g, 1e-12, 1e-12);
    cft_assert_near(x[0], x[2], 1e-12, 1e-12);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch04_1_refactor_same_path)
{
    /* the updated factor and a fresh factorization per pivot take the same pivots */
    cfRng rng;
    cf_rng_seed(&rng, 4103);
    for (int t = 0; t < 30; ++t) {
        int n = 10;
        double A[100], b[10], x1[10], x2[10];
        random_p_matrix(&rng, n, 0.0, A);
        for (int i = 0; i < n; ++i) b[i] = cf_rng_range(&rng, -1, 0.3);
        cfLcp p = make_lcp(n, A, b);
        cfPivotOptions o = cf_pivot_options_default();
        cfReport r1, r2;
        cf_report_init(&r1, NULL, 0);
        cf_report_init(&r2, NULL, 0);
        cft_assert_ok(cf_lcp_dantzig(&p, &o, x1, &r1));
        o.refactor = true;
        cft_assert_ok(cf_lcp_dantzig(&p, &o, x2, &r2));
        ck_assert_int_eq(r1.iterations, r2.iterations);
        for (int i = 0; i < n; ++i) cft_assert_near_at(x1[i], x2[i], 1e-12, 1e-10, "i = %d", i);
        cf_lcp_free(&p);
    }
}
END_TEST

START_TEST(ch04_1_infeasible_psd)
{
    /* PSD A = [[1,-1],[-1,1]], b = (-1,-1): w_0 + w_1 = -2 for every x, no solution; the second
       drive is an unbounded ray */
    double A[4] = {1, -1, -1, 1}, b[2] = {-1, -1}, x[2];
    cfLcp p = make_lcp(2, A, b);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_status(cf_lcp_dantzig(&p, NULL, x, &rep), CF_INFEASIBLE);
    cft_assert_status(rep.status, CF_INFEASIBLE);
    ck_assert(cf_vec_finite(2, x));
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch04_1_siconos_outcomes)
{
    double A[1] = {2}, b[1] = {-1}, x[1];
    cfLcp p = make_lcp(1, A, b);
    cft_assert_ok(cf_lcp_dantzig(&p, NULL, x, NULL)); /* also without a report */
    cft_assert_near(x[0], 0.5, 1e-15, 0);
    cf_lcp_free(&p);
    siconos_outcomes(cf_lcp_dantzig, 1, "dantzig");
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch04.2 Baraff with friction                                                                 */

/* 2D particle of mass 1 on a slope of angle th (tangent uphill), one contact */
static cfBaraffProblem incline_2d(double th, double mu, double g)
{
    cfBaraffProblem p;
    ck_assert_int_eq(cf_baraff_init(&p, 1, 2), CF_OK);
    p.A.a[0] = p.A.a[3] = 1.0;
    p.b[0] = -g * cos(th);
    p.b[1] = -g * sin(th);
    p.mu[0] = mu;
    return p;
}

START_TEST(ch04_2_incline_stick_and_slide)
{
    const double g = 9.81, mu = 0.5;
    for (int k = 0; k <= 16; ++k) {
        double th = k * (CF_PI / 2.0 - 0.05) / 16.0, f[2], a[2];
        cfBaraffProblem p = incline_2d(th, mu, g);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_baraff_solve(&p, NULL, f, a, &rep));
        cft_assert_near(f[0], g * cos(th), 1e-12, 1e-12);
        cft_assert_near(a[0], 0.0, 1e-12, 0);
        if (tan(th) <= mu) { /* sticks: friction holds the full load */
            cft_assert_near(f[1], g * sin(th), 1e-12, 1e-12);
            cft_assert_near(a[1], 0.0, 1e-12, 0);
        } else { /* slides down: friction saturated uphill */
            cft_assert_near(f[1], mu * f[0], 1e-12, 1e-12);
            cft_assert_near(a[1], -g * (sin(th) - mu * cos(th)), 1e-12, 1e-12);
        }
        ck_assert(rep.residual <= 1e-12);
        cf_baraff_free(&p);
    }
}
END_TEST

/* A = J M^-1 J^T for a 2D rigid body (m, I) with contacts at offsets r_c and normals n_c */
static void rigid2d_delassus(int nc, const double (*r)[2], const double (*nrm)[2], double m, double I, cfDense *A)
{
    double J[8][3];
    for (int c = 0; c < nc; ++c) {
        double n[2] = {nrm[c][0], nrm[c][1]}, t[2] = {-nrm[c][1], nrm[c][0]};
        J[2 * c][0] = n[0];
        J[2 * c][1] = n[1];
        J[2 * c][2] = r[c][0] * n[1] - r[c][1] * n[0];
        J[2 * c + 1][0] = t[0];
        J[2 * c + 1][1] = t[1];
        J[2 * c + 1][2] = r[c][0] * t[1] - r[c][1] * t[0];
    }
    for (int i = 0; i < 2 * nc; ++i)
        for (int j = 0; j < 2 * nc; ++j)
            A->a[i * 2 * nc + j] = (J[i][0] * J[j][0] + J[i][1] * J[j][1]) / m + J[i][2] * J[j][2] / I;
}

START_TEST(ch04_2_box_on_slope_2d)
{
    /* a 2D box (mass 2, half sizes 0.5 x 0.25) resting on a slope of angle th with two corner
       contacts; in the slope frame gravity is (-g sin th, -g cos th). Totals are unique even though
       the split between the corners is not: sum f_N = m g cos th, and sticking holds the load. */
    const double g = 9.81, m = 2.0, hx = 0.5, hy = 0.25, I = m * (4 * hx * hx + 4 * hy * hy) / 12.0;
    const double r[2][2] = {{-hx, -hy}, {hx, -hy}}, nrm[2][2] = {{0, 1}, {0, 1}};
    for (int k = 0; k < 2; ++k) {
        double th = k == 0 ? 0.3 : 0.7, mu = 0.5;
        cfBaraffProblem p;
        ck_assert_int_eq(cf_baraff_init(&p, 2, 2), CF_OK);
        rigid2d_delassus(2, r, nrm, m, I, &p.A);
        /* tangent t = (-n_y, n_x) = (-1, 0): gravity along the slope points to +x here */
        double gx = -g * sin(th), gy = -g * cos(th);
        for (int c = 0; c < 2; ++c) {
            p.b[2 * c] = gy;     /* n . (g) */
            p.b[2 * c + 1] = -gx; /* t . (g) with t = (-1, 0) */
            p.mu[c] = mu;
        }
        double f[4], a[4];
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cfStatus st = cf_baraff_solve(&p, NULL, f, a, &rep);
        ck_assert_msg(st == CF_OK, "theta %g: %s", th, cf_status_name(st));
        ck_assert_msg(rep.residual <= 1e-9, "violation %g", rep.residual);
        cft_assert_near(f[0] + f[2], m * g * cos(th), 1e-9, 1e-9);
        /* along t: m a_T = sum f_T + m g sin th, so sticking needs sum f_T = -m g sin th */
        if (tan(th) <= mu) cft_assert_near(f[1] + f[3], -m * g * sin(th), 1e-9, 1e-9);
        else cft_assert_near(f[1] + f[3], -mu * (f[0] + f[2]), 1e-9, 1e-9);
        cf_baraff_free(&p);
    }
}
END_TEST

START_TEST(ch04_2_painleve_impulse_needed)
{
    /* a rod (mass 1, half-length 1, I = 1/3) leaning at tan th = 2, lower end sliding away from
       the centre's footprint (slip < 0): A_eff = 1 + 3 cos th (cos th - mu sin th) < 0 for mu > 4/3 */
    const double g = 9.81, th = atan(2.0), l = 1.0, m = 1.0, I = m * l * l / 3.0;
    const double r[1][2] = {{-l * cos(th), -l * sin(th)}}, nrm[1][2] = {{0, 1}};
    for (int k = 0; k < 2; ++k) {
        double mu = k == 0 ? 1.0 : 2.0;
        cfBaraffProblem p;
        ck_assert_int_eq(cf_baraff_init(&p, 1, 2), CF_OK);
        rigid2d_delassus(1, r, nrm, m, I, &p.A);
        p.b[0] = -g;
        p.b[1] = 0.0;
        p.mu[0] = mu;
        p.slip[0] = 1.0; /* along t = (-1, 0): the end moves in -x, friction pushes +x */
        double f[2], a[2];
        cfStatus st = cf_baraff_solve(&p, NULL, f, a, NULL);
        double Aeff = (1.0 + 3.0 * cos(th) * (cos(th) - mu * sin(th))) / m;
        if (k == 0) {
            cft_assert_ok(st);
            cft_assert_near(f[0], g / Aeff, 1e-10, 1e-10); /* 2.5 m g */
            cft_assert_near(f[1], -mu * f[0], 1e-10, 1e-10);
            cft_assert_near(a[0], 0.0, 1e-10, 0);
        } else {
            cft_assert_status(st, CF_INFEASIBLE); /* an impulse is needed */
            ck_assert(cf_vec_finite(2, f));
        }
        cf_baraff_free(&p);
    }
}
END_TEST

/* random multi-contact problems with A = J M^-1 J^T of random particles (full rank) */
static cfBaraffProblem random_contacts(cfRng *rng, int nc, int dim, double mu_max)
{
    cfBaraffProblem p;
    ck_assert_int_eq(cf_baraff_init(&p, nc, dim), CF_OK);
    int m = dim * nc, dofs = m + 2;
    double *J = calloc((size_t)m * dofs, sizeof *J);
    for (int i = 0; i < m * dofs; ++i) J[i] = cf_rng_range(rng, -1, 1);
    for (int i = 0; i < m; ++i) J[i * dofs + i] += 2.0; /* well conditioned */
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
            double s = 0.0;
            for (int k = 0; k < dofs; ++k) s += J[i * dofs + k] * J[j * dofs + k];
            p.A.a[i * m + j] = s / dofs;
        }
    for (int i = 0; i < m; ++i) p.b[i] = cf_rng_range(rng, -1, 0.5);
    for (int c = 0; c < nc; ++c) p.mu[c] = cf_rng_range(rng, 0.0, mu_max);
    free(J);
    return p;
}

/* a trace that counts its calls (one per pivot) */
static void count_calls(void *ctx, const cfPivotEvent *ev)
{
    (void)ev;
    ++*(int *)ctx;
}

START_TEST(ch04_2_random_contacts_certificate)
{
    cfRng rng;
    cf_rng_seed(&rng, 4201);
    int solved = 0, tried = 0;
    for (int t = 0; t < 60; ++t) {
        int dim = 2 + (t % 2), nc = 1 + (int)cf_rng_below(&rng, 4);
        cfBaraffProblem p = random_contacts(&rng, nc, dim, 1.0);
        double f[12], a[12];
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cfStatus st = cf_baraff_solve(&p, NULL, f, a, &rep);
        ++tried;
        ck_assert_msg(st == CF_OK || st == CF_MAX_ITER, "problem %d: %s", t, cf_status_name(st));
        ck_assert(cf_vec_finite(dim * nc, f));
        if (st == CF_OK) {
            ++solved;
            ck_assert_msg(cf_baraff_violation(&p, f, a) <= 1e-9, "problem %d: violation %g", t,
                          cf_baraff_violation(&p, f, a));
            double aa[12]; /* a really is A f + b */
            cf_dense_mul_vec(&p.A, f, aa);
            for (int i = 0; i < dim * nc; ++i) cft_assert_near_at(a[i], aa[i] + p.b[i], 1e-12, 1e-12, "i = %d", i);
        }
        cf_baraff_free(&p);
    }
    ck_assert_msg(solved >= tried * 9 / 10, "only %d of %d solved", solved, tried);
    /* two 3D contacts (A = J J^T of two random bodies, rounded to 0.01) where the second
       contact's friction reaches the cone with a direction from an earlier drive and ends the
       friction drives pushing along its sliding acceleration (u . a_T > tol_w): only the spec's
       release rule (UNSEEN tangents again, one pivot, drive on) reaches the certificate; in
       either order of the contacts, so the rule looks at every contact */
    const double A[36] = {4.5,  0.47,  -0.1,  -0.18, 1.13,  0.5,  0.47,  4.32, 0.56,  0.87,  1.59,  -1.13,
                          -0.1, 0.56,  3.88,  2.16,  -0.16, 0.37, -0.18, 0.87, 2.16,  4.57,  2.38,  -1.89,
                          1.13, 1.59,  -0.16, 2.38,  4.43,  -2.53, 0.5,  -1.13, 0.37,  -1.89, -2.53, 3.35};
    const double b[6] = {-0.64, 0.34, -0.37, -0.26, 0.24, -0.25}, mu[2] = {0.67, 1.06};
    for (int order = 0; order < 2; ++order) {
        cfBaraffProblem p;
        ck_assert_int_eq(cf_baraff_init(&p, 2, 3), CF_OK);
        for (int c = 0; c < 2; ++c) {
            const int cs = order ? 1 - c : c;
            for (int d = 0; d < 2; ++d)
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j) p.A.a[(3 * cs + i) * 6 + 3 * (order ? 1 - d : d) + j] = A[(3 * c + i) * 6 + 3 * d + j];
            for (int i = 0; i < 3; ++i) p.b[3 * cs + i] = b[3 * c + i];
            p.mu[cs] = mu[c];
        }
        double f[6], a[6];
        int calls = 0; /* the release is a pivot too: reported after it, and counted */
        cfPivotOptions po = cf_pivot_options_default();
        po.trace = count_calls;
        po.trace_ctx = &calls;
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok_at(cf_baraff_solve(&p, &po, f, a, &rep), "order %d", order);
        ck_assert_int_eq(rep.iterations, calls);
        ck_assert_msg(cf_baraff_violation(&p, f, a) <= 1e-9, "order %d: violation %g", order, cf_baraff_violation(&p, f, a));
        double aa[6];
        cf_dense_mul_vec(&p.A, f, aa);
        for (int i = 0; i < 6; ++i) cft_assert_near_at(a[i], aa[i] + p.b[i], 1e-12, 1e-12, "order %d, i = %d", order, i);
        cf_baraff_free(&p);
    }
}
END_TEST

/* random bodies seen through their contacts: A = J J^T / dofs with dofs = dim nc + extra body
   freedoms (extra < 0: fewer freedoms than contact rows, so A is rank-deficient as under a box
   resting on more contacts than it has freedoms), and b = J v / dofs for a random body motion v,
   so b lies in the range of J as it does in a simulation */
static cfBaraffProblem random_bodies(cfRng *rng, int nc, int dim, double mu_max, int extra)
{
    cfBaraffProblem p;
    ck_assert_int_eq(cf_baraff_init(&p, nc, dim), CF_OK);
    int m = dim * nc, dofs = m + extra > 1 ? m + extra : 1;
    double *J = calloc((size_t)m * dofs, sizeof *J), v[32];
    ck_assert(dofs <= 32);
    for (int i = 0; i < m * dofs; ++i) J[i] = cf_rng_range(rng, -1, 1);
    for (int i = 0; i < m && i < dofs; ++i) J[i * dofs + i] += 2.0;
    for (int k = 0; k < dofs; ++k) v[k] = cf_rng_range(rng, -1, 1);
    for (int i = 0; i < m; ++i) {
        double s = 0.0;
        for (int k = 0; k < dofs; ++k) s += J[i * dofs + k] * v[k];
        p.b[i] = s / dofs;
        for (int j = 0; j < m; ++j) {
            s = 0.0;
            for (int k = 0; k < dofs; ++k) s += J[i * dofs + k] * J[j * dofs + k];
            p.A.a[i * m + j] = s / dofs;
        }
    }
    for (int c = 0; c < nc; ++c) p.mu[c] = cf_rng_range(rng, 0.0, mu_max);
    free(J);
    return p;
}

/* the certificate of an answer the solver calls solved: cf_baraff_violation() within the
   tolerance of the spec, 1e-9 max(1, |b|) max(1, |f|) (a product f . a_T is compared, so the
   tolerance scales with the forces), and a really is A f + b */
static void assert_baraff_certified(const cfBaraffProblem *p, const double *f, const double *a, const char *what,
                                    int t)
{
    int m = p->dim * p->nc;
    double tol = 1e-9 * fmax(1.0, cf_vec_norm_inf(m, p->b)) * fmax(1.0, cf_vec_norm_inf(m, f));
    double v = cf_baraff_violation(p, f, a);
    ck_assert_msg(v <= tol, "%s problem %d: returned converged with violation %g > %g", what, t, v, tol);
    double aa[16];
    cf_dense_mul_vec(&p->A, f, aa);
    for (int i = 0; i < m; ++i) cft_assert_near_at(a[i], aa[i] + p->b[i], 1e-12, 1e-12, "i = %d", i);
}

/* trace callback of ch04_2_invariants_after_every_pivot: the state a pivot leaves behind */
typedef struct BaraffWatch {
    const cfBaraffProblem *p;
    int pivots;
    double worst;   /* largest violation of an invariant, scaled */
    char what[96];  /* which one */
} BaraffWatch;

static void baraff_watch(void *ctx, const cfPivotEvent *ev)
{
    BaraffWatch *w = ctx;
    const cfBaraffProblem *p = w->p;
    const int dim = p->dim;
    w->pivots++;
    /* a drive moves forward along its ray: an event already due happens at s = 0 (the spec),
       never at s < 0, which would undo part of the earlier steps (in 3D a saturated friction
       can push along a_T, u . a_T > 0, when its unsaturation is due: -u . a_T / u . Delta a_T
       is then negative). Strict: a correct ratio test clamps its candidates at 0 */
    if (!(ev->step >= 0.0) && w->worst < INFINITY) {
        w->worst = INFINITY;
        snprintf(w->what, sizeof w->what, "pivot %d: step %.3g < 0", ev->pivot, ev->step);
    }
    for (int c = 0; c < p->nc; ++c) {
        const int n = dim * c;
        const double fn = ev->x[n], an = ev->w[n], mu = p->mu[c];
        double ft = 0.0;
        for (int k = 1; k < dim; ++k) ft += ev->x[n + k] * ev->x[n + k];
        ft = sqrt(ft);
        double v[6] = {-fn, 0, 0, 0, 0, 0};
        const char *names[6] = {"f_N < 0", "released normal with a force or a_N < 0", "clamped normal with a_N != 0",
                                "friction outside the cone", "saturated friction inside the cone", "sticking tangent with a_T != 0"};
        if (ev->label[n] == CF_PIV_LOWER) v[1] = fmax(fabs(fn), -an);
        if (ev->label[n] == CF_PIV_FREE) v[2] = fabs(an);
        if (p->slip[(dim - 1) * c] == 0.0 && (dim == 2 || p->slip[(dim - 1) * c + 1] == 0.0)) {
            v[3] = ft - mu * fn * (1 + 1e-9);
            if (ev->label[n + 1] == CF_PIV_UPPER) v[4] = fabs(ft - mu * fn);
            for (int k = 1; k < dim; ++k)
                if (ev->label[n + k] == CF_PIV_FREE) v[5] = fmax(v[5], fabs(ev->w[n + k]));
        }
        for (int i = 0; i < 6; ++i)
            if (v[i] > w->worst) {
                w->worst = v[i];
                snprintf(w->what, sizeof w->what, "pivot %d, contact %d: %s (%.3g)", ev->pivot, c, names[i], v[i]);
            }
    }
}

/* trace callback: (entering, leaving, step) of every pivot */
typedef struct StepLog {
    int n;
    int in[32], out[32];
    double step[32];
    unsigned char label[32][12]; /* the labels after each pivot (up to 12 variables) */
    double f[32][12];            /* the forces after each pivot */
} StepLog;

static void log_step(void *ctx, const cfPivotEvent *ev)
{
    StepLog *l = ctx;
    if (l->n < 32) {
        l->in[l->n] = ev->entering;
        l->out[l->n] = ev->leaving;
        l->step[l->n] = ev->step;
        for (int i = 0; i < ev->n && i < 12; ++i) {
            l->label[l->n][i] = ev->label[i];
            l->f[l->n][i] = ev->x[i];
        }
    }
    l->n++;
}

/* solve a Baraff problem of nc contacts in dim dimensions given by its dense A (row-major), b
   and mu with a step log; then every pivot's (entering, leaving, step) must be the expected one,
   and f at the end */
static void baraff_path_once(int nc, int dim, const double *A, const double *b, const double *mu, const double *slip,
                             int pivots, const int *in, const int *out, const double *step, const double *f_want,
                             StepLog *log, const char *what)
{
    cfBaraffProblem p;
    ck_assert_int_eq(cf_baraff_init(&p, nc, dim), CF_OK);
    int m = dim * nc;
    memcpy(p.A.a, A, (size_t)m * m * sizeof *A);
    memcpy(p.b, b, (size_t)m * sizeof *b);
    memcpy(p.mu, mu, (size_t)nc * sizeof *mu);
    if (slip) memcpy(p.slip, slip, (size_t)(dim - 1) * nc * sizeof *slip);
    memset(log, 0, sizeof *log);
    cfPivotOptions o = cf_pivot_options_default();
    o.trace = log_step;
    o.trace_ctx = log;
    double f[12], a[12];
    cft_assert_ok_at(cf_baraff_solve(&p, &o, f, a, NULL), "%s", what);
    cft_assert_int_at(log->n, ==, pivots, "%s: pivots", what);
    for (int k = 0; k < pivots; ++k) {
        cft_assert_int_at(log->in[k], ==, in[k], "%s: pivot %d enters", what, k + 1);
        cft_assert_int_at(log->out[k], ==, out[k], "%s: pivot %d leaves", what, k + 1);
        cft_assert_near_at(log->step[k], step[k], 1e-12, 0, "%s: pivot %d step", what, k + 1);
    }
    for (int i = 0; i < m; ++i) cft_assert_near_at(f[i], f_want[i], 1e-12, 0, "%s: f[%d]", what, i);
    cf_baraff_free(&p);
}

/* baraff_path_once() on the worked example as given, and on two copies that must take the same
   path: the contacts in reverse order (the rules are per contact, not per index), and with a
   decoupled frictionless contact in front (b_N = -0.01: its normal is driven last of the
   normals, which the examples drive first, one pivot each; mu = 0: its friction never moves).
   @p log holds the path of the example as given; @p slip (may be NULL) the contacts' slip. */
static void assert_baraff_path_slip(int nc, int dim, const double *A, const double *b, const double *mu,
                                    const double *slip, int pivots, const int *in, const int *out, const double *step,
                                    const double *f_want, StepLog *log, const char *what)
{
    enum { MAXV = 12 };
    int m = dim * nc, M = m + dim;
    ck_assert(M <= MAXV && pivots < 31);
    char name[96];
    for (int variant = 1; variant <= 2; ++variant) {
        /* variable i of the example is variable map[i] of the copy */
        int map[MAXV], vin[32], vout[32], n2 = variant == 1 ? nc : nc + 1, m2 = dim * n2, np = 0;
        for (int i = 0; i < m; ++i) map[i] = variant == 1 ? dim * (nc - 1 - i / dim) + i % dim : i + dim;
        double A2[MAXV * MAXV] = {0}, b2[MAXV] = {0}, mu2[MAXV / 2] = {0}, vstep[32], f2[MAXV] = {0}, s2[MAXV] = {0};
        for (int i = 0; i < m; ++i) {
            b2[map[i]] = b[i];
            f2[map[i]] = f_want[i];
            for (int j = 0; j < m; ++j) A2[map[i] * m2 + map[j]] = A[i * m + j];
        }
        for (int c = 0; c < nc; ++c) {
            mu2[map[dim * c] / dim] = mu[c];
            for (int k = 0; slip && k < dim - 1; ++k) s2[(dim - 1) * (map[dim * c] / dim) + k] = slip[(dim - 1) * c + k];
        }
        if (variant == 2) {
            for (int k = 0; k < dim; ++k) A2[k * m2 + k] = 1.0;
            b2[0] = -0.01, b2[1] = 0.3;
            f2[0] = 0.01;
        }
        for (int k = 0; k < pivots; ++k) {
            if (variant == 2 && k == nc) vin[np] = 0, vout[np] = -1, vstep[np++] = 0.01;
            vin[np] = in[k] < 0 ? in[k] : map[in[k]];
            vout[np] = out[k] < 0 ? out[k] : map[out[k]];
            vstep[np++] = step[k];
        }
        snprintf(name, sizeof name, "%s, %s", what, variant == 1 ? "contacts reversed" : "a frictionless contact first");
        baraff_path_once(n2, dim, A2, b2, mu2, s2, np, vin, vout, vstep, f2, log, name);
    }
    baraff_path_once(nc, dim, A, b, mu, slip, pivots, in, out, step, f_want, log, what);
}

static void assert_baraff_path(int nc, int dim, const double *A, const double *b, const double *mu, int pivots,
                               const int *in, const int *out, const double *step, const double *f_want, StepLog *log,
                               const char *what)
{
    assert_baraff_path_slip(nc, dim, A, b, mu, NULL, pivots, in, out, step, f_want, log, what);
}

START_TEST(ch04_2_invariants_after_every_pivot)
{
    /* first the events of a worked example, pivot by pivot (variables f_N0, f_T0, f_N1, f_T1,
       f_N2, f_T2; A = I but A_NN = 1, 1.1, 1.2 and the tangents 0 and 1 coupled by 0.5;
       b = (-1, 0.3, -1.1, -1, -1.2, -0.65), mu = (1.5, 1.2, 1.5)):
       1-3. the normals, most negative a_N first: N2, N1, N0, each to f_N = 1 (steps 1);
       4. friction, the largest |a_T| first: T1 (a = -1) to its goal f_T1 = 1 (step 1); the
          coupling makes a_T0 = 0.3 + 0.5 = 0.8;
       5. T0 (|0.8| > |-0.65|) driven down; T1 sticks (Delta a_T1 = 0: Delta f_T1 = +0.5 per
          unit), so contact 1 reaches its cone 1.2 f_N1 at s = 0.4: its tangent saturates
          (entering 3), and the drive of T0 goes on: only the driven contact's saturation ends it;
       6. T0 reaches a_T0 = 0 after 0.5 more (a_T0 = 0.8 - 0.75 * 0.4, now falling at rate 1):
          f_T0 = -0.9;
       7. T2 to its goal 0.65. A drive of T0 that stopped at contact 1's saturation would take T2
          first (0.65 > the 0.5 left of a_T0): the same forces in another order. */
    {
        StepLog log;
        double A[36] = {0};
        const double diag[6] = {1, 1, 1.1, 1, 1.2, 1}, b[6] = {-1, 0.3, -1.1, -1, -1.2, -0.65}, mu[3] = {1.5, 1.2, 1.5};
        for (int i = 0; i < 6; ++i) A[7 * i] = diag[i];
        A[6 * 1 + 3] = A[6 * 3 + 1] = 0.5;
        const int in[7] = {4, 2, 0, 3, 3, 1, 5}, out[7] = {-1, -1, -1, -1, -1, -1, -1};
        const double step[7] = {1, 1, 1, 1, 0.4, 0.5, 0.65}, f[6] = {1, -0.9, 1, 1.2, 1, 0.65};
        assert_baraff_path(3, 2, A, b, mu, 7, in, out, step, f, &log, "three contacts");
    }
    /* a release during a friction drive, and the released contact clamped again: A = I but the
       couplings -0.5 of T0 and N1 and of N1 and T2; b = (-1, 1.25, -0.5, -2, -0.3, -0.6),
       mu = (2, 1, 3).
       1-3. N0, N1, N2 to f_N = 1, 0.5, 0.3;
       4. T1 (|a| = 2 the largest) reaches its cone mu f_N1 = 0.5 first (step 0.5): saturated;
       5. T0 (a_T0 = 1.25 - 0.25 = 1, more than a_T2 = -0.6 - 0.25) driven down: with N1 clamped
          f_N1 falls by 0.5 per unit and contact 1 is released at s = 1 (its friction, on the
          shrinking cone, goes to 0 with it, its tangent UNSEEN again); only the driven contact's
          release would end the drive:
       6. T0 goes on to a_T0 = 0 (0.25 left at rate 1): f_T0 = -1.25, a_N1 = -0.5 + 0.625;
       7. T2 (a = -0.6) driven up lowers a_N1 by 0.5 per unit: at s = 0.25 contact 1 is clamped
          again (a step below 1);
       8. T2 goes on with N1 clamped (f_N1 up by 2/3, f_T0 by 1/3 per unit, a_T2 rising at 2/3)
          to its goal after 0.35 / (2/3) = 0.525;
       9. T1 of the loaded contact 1 (a = -2) saturates at mu f_N1 = 0.35.
       A drive ended at the release would take T2 (0.6) before the 0.25 left of T0. */
    {
        StepLog log;
        double A[36] = {0};
        for (int i = 0; i < 6; ++i) A[7 * i] = 1.0;
        A[6 * 1 + 2] = A[6 * 2 + 1] = -0.5;
        A[6 * 2 + 5] = A[6 * 5 + 2] = -0.5;
        const double b[6] = {-1, 1.25, -0.5, -2, -0.3, -0.6}, mu[3] = {2, 1, 3};
        const int in[9] = {0, 2, 4, 3, -1, 1, 2, 5, 3}, out[9] = {-1, -1, -1, -1, 2, -1, -1, -1, -1};
        const double step[9] = {1, 0.5, 0.3, 0.5, 1, 0.25, 0.25, 0.525, 0.35}, f[6] = {1, -1.075, 0.35, 0.35, 0.3, 0.775};
        assert_baraff_path(3, 2, A, b, mu, 9, in, out, step, f, &log, "release and clamp");
        ck_assert(log.label[4][2] == CF_PIV_LOWER && log.label[4][3] == CF_PIV_UNSEEN);
        ck_assert(log.f[4][2] == 0.0 && log.f[4][3] == 0.0);
        ck_assert(log.label[6][2] == CF_PIV_FREE && log.label[6][3] == CF_PIV_UNSEEN);
    }
    /* a saturated friction that sticks again (2D): A = I but A_N1N1 = 1.1 and the tangents
       coupled by 0.8; b = (-1, -1.15, -1.1, -1.2), mu = (1, 1).
       1-2. N1 (a = -1.1) then N0, both to f_N = 1;
       3. T1 (|a| = 1.2) saturates at f_T1 = 1 (step 1), sliding on with a_T1 = -0.2 (u = +1);
       4. T0 (a_T0 = -1.15 + 0.8 = -0.35) driven up: a_T1 rises by 0.8 per unit, u . a_T1 reaches 0
          at s = 0.25 before a_T0 does: contact 1 sticks again (its tangent FREE, leaving 3);
       5. T0 goes on with T1 sticking (Delta f_T1 = -0.8, a_T0 rising by 1 - 0.64 per unit) to
          a_T0 = 0 after 0.1 / 0.36 = 5/18: f_T0 = 1/4 + 5/18 = 19/36, f_T1 = 1 - 0.8 * 5/18 = 7/9 */
    {
        StepLog log;
        double A[16] = {0};
        for (int i = 0; i < 4; ++i) A[5 * i] = 1.0;
        A[10] = 1.1;
        A[4 * 1 + 3] = A[4 * 3 + 1] = 0.8;
        const double b[4] = {-1, -1.15, -1.1, -1.2}, mu[2] = {1, 1};
        const int in[5] = {2, 0, 3, -1, 1}, out[5] = {-1, -1, -1, 3, -1};
        const double step[5] = {1, 1, 1, 0.25, 5.0 / 18.0}, f[4] = {1, 19.0 / 36.0, 1, 7.0 / 9.0};
        assert_baraff_path(2, 2, A, b, mu, 5, in, out, step, f, &log, "stick again");
        ck_assert(log.label[3][3] == CF_PIV_FREE);
        /* the same with contact 1 sliding (slip -1, so its friction is mu f_N along +1 for good):
           a dynamic contact has no events, the drive of T0 goes straight to its goal, 0.35 */
        const double slip[2] = {0, -1};
        const int in_d[3] = {2, 0, 1}, out_d[3] = {-1, -1, -1};
        const double step_d[3] = {1, 1, 0.35}, f_d[4] = {1, 0.35, 1, 1};
        assert_baraff_path_slip(2, 2, A, b, mu, slip, 3, in_d, out_d, step_d, f_d, &log, "a sliding contact");
    }
    /* a sticking friction under a shrinking cone: A = I but the coupling -0.5 of T0 and N1;
       b = (-1, 1.25, -0.5, -1.2), mu = (2, 3).
       1-2. N0, N1 to f_N = 1, 0.5;
       3. T1 (|a| = 1.2 > a_T0 = 1) to its goal f_T1 = 1.2, inside mu f_N1 = 1.5: it sticks;
       4. T0 driven down: f_N1 falls by 0.5 per unit, T1 held where it is, so contact 1's cone
          3 f_N1 reaches 1.2 at s = 0.2: it saturates (entering 3);
       5. its friction shrinks with f_N1 (-1.5 per unit) until the release at s = 0.8 more;
       6. T0 to its goal after 0.25 (a_T0 = 1 - 0.75 * 1 then falling at rate 1): f_T0 = -1.25 */
    {
        StepLog log;
        double A[16] = {0};
        for (int i = 0; i < 4; ++i) A[5 * i] = 1.0;
        A[4 * 1 + 2] = A[4 * 2 + 1] = -0.5;
        const double b[4] = {-1, 1.25, -0.5, -1.2}, mu[2] = {2, 3};
        const int in[6] = {0, 2, 3, 3, -1, 1}, out[6] = {-1, -1, -1, -1, 2, -1};
        const double step[6] = {1, 0.5, 1.2, 0.2, 0.8, 0.25}, f[4] = {1, -1.25, 0, 0};
        assert_baraff_path(2, 2, A, b, mu, 6, in, out, step, f, &log, "a shrinking cone");
    }
    /* friction moving parallel to the cone's side: |Delta f_T| = mu |Delta f_N|, so the s^2
       term of |f_T + s Delta f_T|^2 - mu^2 (f_N + s Delta f_N)^2 vanishes and the crossing is the
       root of what is left, a linear function (an exact zero here: the data are dyadic). A = I
       but the couplings -0.5 of T0 and N1 and 0.5 of T0 and T1; b = (-1, 0.375, -0.5, -0.25),
       mu = (2, 1):
       1-2. N0, N1 to f_N = 1, 0.5;
       3. T1 (|a| = 0.25 > a_T0 = 0.125) to its goal f_T1 = 0.25, inside the cone 0.5: it sticks;
       4. T0 (a = 0.25) driven down at rate 0.5: contact 1 follows with Delta f_N1 = -0.5 and
          Delta f_T1 = +0.5 per unit (mu = 1: along the cone's side), so the gap 0.25 between
          f_T1 and mu f_N1 closes at rate 1: it saturates at s = 0.25 (before T0's goal at 0.5
          and the release at 1), entering 3, u = +1;
       5. T0 goes on with f_T1 = f_N1 falling by 0.5 per unit, a_T0 now falling at rate 1, to its
          goal after 0.125: f = (1, -0.375, 0.3125, 0.3125), a_T1 = -0.125 against u.
       Treating the linear case as "no crossing" (or as a crossing only for a large slope: the
       slope here is 2 (f_T1 Delta f_T1 - mu^2 f_N1 Delta f_N1) = 0.75) misses it: T0 reaches its
       goal with f_T1 = 0.5 outside the cone 0.25. */
    {
        StepLog log;
        double A[16] = {0};
        for (int i = 0; i < 4; ++i) A[5 * i] = 1.0;
        A[4 * 1 + 2] = A[4 * 2 + 1] = -0.5;
        A[4 * 1 + 3] = A[4 * 3 + 1] = 0.5;
        const double b[4] = {-1, 0.375, -0.5, -0.25}, mu[2] = {2, 1};
        const int in[5] = {0, 2, 3, 3, 1}, out[5] = {-1, -1, -1, -1, -1};
        const double step[5] = {1, 0.5, 0.25, 0.25, 0.125}, f[4] = {1, -0.375, 0.3125, 0.3125};
        assert_baraff_path(2, 2, A, b, mu, 5, in, out, step, f, &log, "along the cone's side");
        ck_assert(log.label[3][3] == CF_PIV_UPPER);
    }
    /* the same, off the cone's side by delta = 2^-30 in the coupling of T0 and T1 (0.5 + delta):
       now |Delta f_T1|^2 - mu^2 Delta f_N1^2 = alpha = (0.5 + delta)^2 - 0.25 ~ 9e-10 and the
       crossing is a root of alpha s^2 + 2 beta s + gamma with alpha gamma / beta^2 ~ 1e-9:
       beta = 0.25 (0.5 + delta) + 0.25, gamma = 0.25^2 - 0.5^2. Its small root is
       -gamma / (beta + sqrt(beta^2 - alpha gamma)) ~ 0.25; the textbook (-beta + sqrt(...)) /
       alpha loses 9 digits to cancellation (an error near 1e-7 in the step), so the root must
       come from the stable form (either order of the two roots: the smallest valid crossing is
       taken). Then pivot 5 as above with a_T0 falling at 1 + delta / 2. */
    {
        StepLog log;
        double A[16] = {0};
        const double dl = 0x1p-30, cT = 0.5 + dl;
        for (int i = 0; i < 4; ++i) A[5 * i] = 1.0;
        A[4 * 1 + 2] = A[4 * 2 + 1] = -0.5;
        A[4 * 1 + 3] = A[4 * 3 + 1] = cT;
        const double b[4] = {-1, 0.375, -0.5, -0.25}, mu[2] = {2, 1};
        const double al = cT * cT - 0.25, be = 0.25 * cT + 0.25, ga = 0.25 * 0.25 - 0.25;
        const double s4 = -ga / (be + sqrt(be * be - al * ga));
        const double aT0 = 0.25 + 0.25 * dl + s4 * (cT * cT - 0.75); /* a_T0 after pivot 4 */
        const double s5 = aT0 / (1.0 + 0.5 * dl), fN1 = 0.5 - 0.5 * (s4 + s5);
        const int in[5] = {0, 2, 3, 3, 1}, out[5] = {-1, -1, -1, -1, -1};
        const double step[5] = {1, 0.5, 0.25, s4, s5}, f[4] = {1, -(s4 + s5), fN1, fN1};
        assert_baraff_path(2, 2, A, b, mu, 5, in, out, step, f, &log, "off the cone's side by 2^-30");
    }
    /* a cone of radius 0: a sticking contact whose force and friction both reach 0 just as the
       drive ends, then saturates with f_T = 0, so u is the direction its friction moves in.
       A = I but A_T1T1 = 4, the couplings -0.5 of T0 and N1, 1 of T0 and T1, -0.5 of T1 and T2;
       b = (-1, 1, -0.5, 1, -0.75, 0.25), mu = (2, 1, 2):
       1-3. N0, N2, N1 to f_N = 1, 0.75, 0.5;
       4. T1 (|a| = 1) to its goal f_T1 = -0.25, inside the cone 0.5;
       5. T0 (a = 1 - 0.25 - 0.25 = 0.5) driven down at rate 0.5: contact 1 follows with
          Delta f_N1 = -0.5 and Delta f_T1 = +0.25 per unit, so at s = 1 T0 reaches its goal just
          as f_N1 and f_T1 reach 0 together (the cone is touched, not crossed): the goal comes
          first and contact 1 stays clamped, sticking with no force;
       6. T2 (a = 0.25) driven down: contact 1 would move with Delta f_T1 = -3/16 against
          Delta f_N1 = 1/8, out of its cone of radius 0 at once: it saturates at s = 0 with
          u = -1, the sign of Delta f_T1 (f_T / |f_T| is 0 / 0 there);
       7. T2 goes on to its goal after 0.25, a_T1 = 0.125 against u. A u of +1 (the fallback
          of a zero vector, or the sign of Delta f_N1, Delta f_T0 or Delta f_N2 = 0) sends
          Delta a_T1 along u: contact 1 sticks again at once and saturates again, with no end */
    {
        StepLog log;
        double A[36] = {0};
        for (int i = 0; i < 6; ++i) A[7 * i] = 1.0;
        A[21] = 4.0;
        A[6 * 1 + 2] = A[6 * 2 + 1] = -0.5;
        A[6 * 1 + 3] = A[6 * 3 + 1] = 1.0;
        A[6 * 3 + 5] = A[6 * 5 + 3] = -0.5;
        const double b[6] = {-1, 1, -0.5, 1, -0.75, 0.25}, mu[3] = {2, 1, 2};
        const int in[7] = {0, 4, 2, 3, 1, 3, 5}, out[7] = {-1, -1, -1, -1, -1, -1, -1};
        const double step[7] = {1, 0.75, 0.5, 0.25, 1, 0, 0.25}, f[6] = {1, -1, 0, 0, 0.75, -0.25};
        assert_baraff_path(3, 2, A, b, mu, 7, in, out, step, f, &log, "a cone of radius 0");
        ck_assert(log.label[5][3] == CF_PIV_UPPER && log.f[5][3] == 0.0);
    }
    /* the same, with contact 1 loaded after it saturates on its cone of radius 0, so the length
       of u is seen: u must be the unit Delta f_T / |Delta f_T| (the spec), not Delta f_T. Also
       the coupling c = 1/40 of N1 and T2 (a_T2 = 0.2625, then 0.3875 at pivots 4 and 5: still
       below T1's 1 and T0's 0.5, so pivots 1-5 are as above):
       6. T2 driven down: Delta f_T0 = c + 1/4, Delta f_N1 = 3c/2 + 1/8 = 0.1625 and Delta f_T1 =
          -(c + 3/4)/4 = -0.19375 per unit, out of the cone of radius 0: saturated at s = 0 with
          u = -1;
       7. with f_T1 = mu_1 f_N1 u: Delta f_N1 = c / (3/4 + u/2) = 4c, Delta f_T0 = (1/2 - u) 4c = 6c,
          Delta f_T1 = -4c, a_T2 falling at 1 - 2c - 4c^2 to its goal after s = 0.25 / that;
          u . Delta a_T1 = -(1/2 - 10c) < 0: it stays saturated, now with f_N1 = 4c s > 0.
       A u of length |Delta f_T1| = 0.19375 gives Delta f_N1 = c / (3/4 - 0.096875): another
       step and a friction 0.19 mu f_N1, inside the cone though "saturated" */
    {
        StepLog log;
        double A[36] = {0};
        for (int i = 0; i < 6; ++i) A[7 * i] = 1.0;
        A[21] = 4.0;
        A[6 * 1 + 2] = A[6 * 2 + 1] = -0.5;
        A[6 * 1 + 3] = A[6 * 3 + 1] = 1.0;
        A[6 * 3 + 5] = A[6 * 5 + 3] = -0.5;
        const double c = 1.0 / 40.0, s7 = 0.25 / (1.0 - 2.0 * c - 4.0 * c * c);
        A[6 * 2 + 5] = A[6 * 5 + 2] = c;
        const double b[6] = {-1, 1, -0.5, 1, -0.75, 0.25}, mu[3] = {2, 1, 2};
        const int in[7] = {0, 4, 2, 3, 1, 3, 5}, out[7] = {-1, -1, -1, -1, -1, -1, -1};
        const double step[7] = {1, 0.75, 0.5, 0.25, 1, 0, s7};
        const double f[6] = {1, -1 + 6 * c * s7, 4 * c * s7, -4 * c * s7, 0.75, -s7};
        assert_baraff_path(3, 2, A, b, mu, 7, in, out, step, f, &log, "a cone of radius 0, loaded after");
        ck_assert(log.label[6][3] == CF_PIV_UPPER);
        cft_assert_near(log.f[6][3], -mu[1] * log.f[6][2], 1e-12, 0);
    }
    /* 3D: a friction that leaves its cone is not stuck but UNSEEN, keeps its force, and is
       driven again, its tangent that pushes along its acceleration (f_i a_i > 0) first. Contact
       0's T1 coupled by 0.8 to contact 1's T2 and by 0.1 to contact 1's T1; A_N1N1 = 1.1;
       b = (-1, -1.15, 0, -1.1, 0, -1.2), mu = (1, 1):
       1-2. N1 then N0, to f_N = 1;
       3. contact 1's T2 (a = -1.2; its T1 has a = 0) reaches the cone at f = 1 (entering 4,
          the contact's first tangent), u = (0, 1);
       4. contact 0's T1 (a = -1.15 + 0.8 = -0.35) driven up raises u . a_T of contact 1 by 0.8
          per unit: at s = 0.25 it reaches 0, contact 1's tangents become UNSEEN (leaving 4)
          with f_T = (0, 1) kept;
       5. T1 of contact 0 goes on at rate 1 to its goal after 0.1: f = 0.35, so contact 1 has
          a_T = (0.035, 0.08);
       6. contact 1: T2's friction pushes along its acceleration (1 * 0.08 > 0), so T2 before
          T1: down to a = 0 with contact 0's T1 sticking (rate 1 - 0.64) after 0.08 / 0.36 = 2/9;
       7. contact 1's T1 (a = 0.1 * 19/36) down to 0 with both other tangents sticking, at rate
          1 - 0.1 * 5/18 = 35/36: after 19/350. The answer f = (1, 19/35, 0, 1, -19/350, 134/175)
          has a_T = 0 on every tangent */
    {
        StepLog log;
        double A[36] = {0};
        for (int i = 0; i < 6; ++i) A[7 * i] = 1.0;
        A[21] = 1.1;
        A[6 * 1 + 5] = A[6 * 5 + 1] = 0.8;
        A[6 * 1 + 4] = A[6 * 4 + 1] = 0.1;
        const double b[6] = {-1, -1.15, 0, -1.1, 0, -1.2}, mu[2] = {1, 1};
        const int in[7] = {3, 0, 4, -1, 1, 5, 4}, out[7] = {-1, -1, -1, 4, -1, -1, -1};
        const double step[7] = {1, 1, 1, 0.25, 0.1, 2.0 / 9.0, 19.0 / 350.0};
        const double f[6] = {1, 19.0 / 35.0, 0, 1, -19.0 / 350.0, 134.0 / 175.0};
        assert_baraff_path(2, 3, A, b, mu, 7, in, out, step, f, &log, "3D: UNSEEN again");
        ck_assert(log.label[3][4] == CF_PIV_UNSEEN && log.label[3][5] == CF_PIV_UNSEEN);
        cft_assert_near(log.f[3][5], 1.0, 1e-15, 0);
    }
    /* 3D: of an UNSEEN contact's two tangents with friction on them, the one whose friction
       pushes along its acceleration (f_i a_i > 0) is driven first, whatever the forces' sizes.
       A = I but A_T1aT1a = 0.125, the couplings -0.5 of N1 with T0a and T0b, 0.25 of T0b and
       T1a; b = (-1.25, -0.75, -1.5, 0.375, -1, 0), mu = (1, 8):
       1. N0 to f_N0 = 1.25 (a_N1 = 0.375 >= 0: not driven);
       2. contact 0's T0a (T1 before T2) to its goal 0.75, inside the cone 1.25 (a_N1 now 0);
       3. T0b (a = -1.5) up to the cone at f_T = (0.75, 1) (step 1): u = (0.6, 0.8), and now
          a_N1 = -0.5, a_T1a = -0.75;
       4. N1 to f_N1 = 0.5: a_T0 = (-0.25, -0.75), u . a_T0 < 0;
       5. T1a driven up at rate 1/8 raises a_T0b by 1/4 per unit: u . a_T0 reaches 0 at s = 3.75
          (before T1a's goal at 6): contact 0's tangents UNSEEN, f_T = (0.75, 1) kept;
       6. T1a goes on to its cone 8 f_N1 = 4 after 0.25: saturated; a_T0 = (-0.25, 0.25);
       7. contact 0: T0b's friction pushes along its acceleration (1 * 0.25 > 0), T0a's does not
          (0.75 * -0.25 < 0): T0b first, down to its goal after 1/7 (N1 and contact 1's friction
          follow it);
       8. T0a up to the cone after 0.25: f_T0 = (1, 0.75).
       T0a first (its larger force 0.75 > f_T0b a_T0b, say) saturates it at once with the same
       u, which pushes along a_T0 (u . a_T0 = 0.05): UNSEEN again, with no end. */
    {
        StepLog log;
        double A[36] = {0};
        for (int i = 0; i < 6; ++i) A[7 * i] = 1.0;
        A[28] = 0.125;
        A[6 * 1 + 3] = A[6 * 3 + 1] = -0.5;
        A[6 * 2 + 3] = A[6 * 3 + 2] = -0.5;
        A[6 * 2 + 4] = A[6 * 4 + 2] = 0.25;
        const double b[6] = {-1.25, -0.75, -1.5, 0.375, -1, 0}, mu[2] = {1, 8};
        const int in[8] = {0, 1, 1, 3, -1, 4, 2, 1}, out[8] = {-1, -1, -1, -1, 1, -1, -1, -1};
        const double step[8] = {1.25, 0.75, 1, 0.5, 3.75, 0.25, 1.0 / 7.0, 0.25};
        const double f[6] = {1.25, 1, 0.75, 0.5, 4, 0};
        /* as given only: the copies of assert_baraff_path() assume the normals are driven
           first, one pivot each, and N1 is driven after a tangent here */
        baraff_path_once(2, 3, A, b, mu, NULL, 8, in, out, step, f, &log, "3D: the friction along a_T first");
        ck_assert(log.label[5][1] == CF_PIV_UNSEEN && log.label[5][2] == CF_PIV_UNSEEN);
    }
    /* the same start, other couplings: both frictions push along their accelerations, and the
       larger f_i a_i goes first. A = I but A_T1aT1a = 0.125, the couplings 0.125 of T0a and
       T1a, -0.5 of T0b and N1, 0.25 of T0b and T1a; b = (-1.25, -0.75, -1.5, 0.125, -0.875, 0):
       1-3. as above: f_N0 = 1.25, T0a to 0.75, T0b to the cone at 1, u = (0.6, 0.8);
       4. N1 (a = 0.125 - 0.5) to 0.375: a_T0 = (0, -0.6875);
       5. T1a (a = -0.53125) up at rate 1/8 raises a_T0 by (0.125, 0.25) per unit: u . a_T0
          (-0.55, rising at 0.275) reaches 0 at s = 2: UNSEEN, f_T0 = (0.75, 1) kept;
       6. T1a on to its cone 8 * 0.375 = 3 after 1: a_T0 = (0.375, 0.0625);
       7. f_i a_i = (0.28125, 0.0625), both > 0: T0a first, down to its goal after 0.375;
       8. T0b down to its goal after 1/28: f = (1.25, 11/28, 27/28, 5/14, 20/7, 0).
       T0b first (any f_i a_i > 0 first, or f_i / a_i = 16 compared) is another path. */
    {
        StepLog log;
        double A[36] = {0};
        for (int i = 0; i < 6; ++i) A[7 * i] = 1.0;
        A[28] = 0.125;
        A[6 * 1 + 4] = A[6 * 4 + 1] = 0.125;
        A[6 * 2 + 3] = A[6 * 3 + 2] = -0.5;
        A[6 * 2 + 4] = A[6 * 4 + 2] = 0.25;
        const double b[6] = {-1.25, -0.75, -1.5, 0.125, -0.875, 0}, mu[2] = {1, 8};
        const int in[8] = {0, 1, 1, 3, -1, 4, 1, 2}, out[8] = {-1, -1, -1, -1, 1, -1, -1, -1};
        const double step[8] = {1.25, 0.75, 1, 0.375, 2, 1, 0.375, 1.0 / 28.0};
        const double f[6] = {1.25, 11.0 / 28.0, 27.0 / 28.0, 5.0 / 14.0, 20.0 / 7.0, 0};
        baraff_path_once(2, 3, A, b, mu, NULL, 8, in, out, step, f, &log, "3D: the larger f_i a_i first");
    }
    /* and T1's friction along its acceleration, T2's against it with the larger force: T1
       first. A = I but A_T1aT1a = 0.25, the couplings -0.25 of T1a with T0a and T0b, -0.5 of
       T0b and N1; b = (-1.25, -0.75, -1.5, 0, 1, 0):
       1-3. as above; 4. N1 (a = -0.5) to 0.5: a_T0 = (0, -0.75), a_T1a = 0.5625;
       5. T1a down at rate 1/4 raises a_T0 by (0.25, 0.25) per unit: u . a_T0 (-0.6, rising at
          0.35) reaches 0 at s = 12/7: UNSEEN, f_T0 = (0.75, 1) kept;
       6. T1a on to its goal after 2.25 - 12/7 = 15/28: a_T0 = (0.5625, -0.1875);
       7. only T0a pushes along its acceleration (0.42 > 0 > -0.1875): down at rate 3/4 (T1a
          sticks, moving by 1 per unit) to its goal after 0.75, which also brings a_T0b to 0:
          f = (1.25, 0, 1, 0.5, -3, 0).
       T0b first (its force 1 compared, not f_i a_i) saturates at once with a u that pushes
       along a_T0, for ever. */
    {
        StepLog log;
        double A[36] = {0};
        for (int i = 0; i < 6; ++i) A[7 * i] = 1.0;
        A[28] = 0.25;
        A[6 * 1 + 4] = A[6 * 4 + 1] = -0.25;
        A[6 * 2 + 4] = A[6 * 4 + 2] = -0.25;
        A[6 * 2 + 3] = A[6 * 3 + 2] = -0.5;
        const double b[6] = {-1.25, -0.75, -1.5, 0, 1, 0}, mu[2] = {1, 8};
        const int in[7] = {0, 1, 1, 3, -1, 4, 1}, out[7] = {-1, -1, -1, -1, 1, -1, -1};
        const double step[7] = {1.25, 0.75, 1, 0.5, 12.0 / 7.0, 15.0 / 28.0, 0.75};
        const double f[6] = {1.25, 0, 1, 0.5, -3, 0};
        baraff_path_once(2, 3, A, b, mu, NULL, 7, in, out, step, f, &log, "3D: T1 along a_T, T2 against");
    }
    /* every pivot keeps the conditions of the index sets (the linear conditions of the direction
       system hold along the step, and the ratio test stops at the first event): forces >= 0,
       released normals without force, clamped normals and sticking tangents with zero
       acceleration, static friction inside the cone and saturated friction on it. A missed
       event (a cone crossing, a force through zero) breaks one of them at the next pivot.
       Random full-rank and rank-deficient problems with mu up to 2: first 80 of each, 2D and
       3D alternating (seed 4205), then 100 of each in 3D alone (seed 4212), where a saturated
       friction can push along its acceleration (u . a_T > 0) when its unsaturation is due, so
       that -u . a_T / u . Delta a_T is negative: two of these 3D problems reach that state
       (found by counting it over seeds 4206-4213 with the clamp at 0 removed; one reaches it
       by 0.12, one by 0.005), none of the first 160. */
    const unsigned long seeds[2] = {4205, 4212};
    const int counts[2] = {80, 100};
    const int extras[2] = {2, -2};
    int pivots = 0;
    for (int run = 0; run < 2; ++run) {
        cfRng rng;
        cf_rng_seed(&rng, seeds[run]);
        for (int e = 0; e < 2; ++e)
            for (int t = 0; t < counts[run]; ++t) {
                int dim = run == 1 ? 3 : 2 + (t % 2), nc = 1 + (int)cf_rng_below(&rng, 4);
                cfBaraffProblem p = random_bodies(&rng, nc, dim, 2.0, extras[e]);
                BaraffWatch w = {&p, 0, 0.0, ""};
                cfPivotOptions o = cf_pivot_options_default();
                o.max_pivots = 300;
                o.trace = baraff_watch;
                o.trace_ctx = &w;
                double f[12], a[12];
                cfReport rep;
                cf_report_init(&rep, NULL, 0);
                cfStatus st = cf_baraff_solve(&p, &o, f, a, &rep);
                cft_assert_int_at(w.pivots, ==, rep.iterations, "seed %lu, problem %d", seeds[run], t);
                double scale = 1e-9 * fmax(1.0, cf_vec_norm_inf(dim * nc, f));
                if (st == CF_OK || st == CF_MAX_ITER)
                    ck_assert_msg(w.worst <= scale, "seed %lu, problem %d (%s): %s", seeds[run], t,
                                  extras[e] < 0 ? "rank-deficient" : "full rank", w.what);
                pivots += w.pivots;
                cf_baraff_free(&p);
            }
    }
    ck_assert_msg(pivots > 400, "only %d pivots: the problems did not exercise the method", pivots);
}
END_TEST

START_TEST(ch04_2_cone_crossing_rank_deficient)
{
    /* friction up to mu = 2 makes the friction of a contact cross its cone often (saturate,
       stick again, saturate in another direction), and redundant contacts make A
       rank-deficient. Whatever the method does, "converged" must come with the Coulomb
       certificate; a failure status is allowed (the 3D method with fixed friction directions is
       not guaranteed to finish), but the reference solves all but a few per cent.
       The solved ones take at most a few dozen pivots: a limit of 300 keeps the test quick.
       First the problem generator of ch04_2_random_contacts_certificate at mu <= 2 (seed 4201):
       its problem 49 (3D, 4 contacts) was once returned as converged with the friction of one
       contact pushing along its sliding acceleration (f_T . a_T = 0.34). */
    cfPivotOptions o = cf_pivot_options_default();
    o.max_pivots = 300;
    cfRng rng;
    cf_rng_seed(&rng, 4201);
    int solved = 0, tried = 0;
    for (int t = 0; t < 60; ++t) {
        int dim = 2 + (t % 2), nc = 1 + (int)cf_rng_below(&rng, 4);
        cfBaraffProblem p = random_contacts(&rng, nc, dim, 2.0);
        double f[12], a[12];
        cfStatus st = cf_baraff_solve(&p, &o, f, a, NULL);
        ck_assert(cf_vec_finite(dim * nc, f));
        ++tried;
        if (st == CF_OK) {
            ++solved;
            assert_baraff_certified(&p, f, a, "mu <= 2", t);
        }
        cf_baraff_free(&p);
    }
    /* then rank-deficient bodies: 2 freedoms more, 2 and 4 fewer than contact rows */
    const int extras[3] = {2, -2, -4};
    cf_rng_seed(&rng, 4204);
    for (int e = 0; e < 3; ++e)
        for (int t = 0; t < 100; ++t) {
            int dim = 2 + (t % 2), nc = 1 + (int)cf_rng_below(&rng, 4);
            cfBaraffProblem p = random_bodies(&rng, nc, dim, 2.0, extras[e]);
            double f[12], a[12];
            cfStatus st = cf_baraff_solve(&p, &o, f, a, NULL);
            ck_assert_msg(st == CF_OK || st == CF_MAX_ITER || st == CF_STAGNATED || st == CF_SINGULAR ||
                              st == CF_INFEASIBLE,
                          "problem %d: %s", t, cf_status_name(st));
            ck_assert(cf_vec_finite(dim * nc, f));
            ++tried;
            if (st == CF_OK) {
                ++solved;
                assert_baraff_certified(&p, f, a, extras[e] < 0 ? "rank-deficient" : "full-rank", t);
            }
            cf_baraff_free(&p);
        }
    /* the reference solves 356 of the 360; a correct solution in another summation order may
       lose a borderline problem or two, a wrong crossing root (al r + be at the other root, say)
       loses 14 */
    ck_assert_msg(solved >= tried * 97 / 100, "only %d of %d solved (the reference: 356)", solved, tried);
}
END_TEST

START_TEST(ch04_2_frictionless_matches_enumeration)
{
    /* mu = 0: the normal forces solve the LCP of the normal block (brute force ground truth) */
    cfRng rng;
    cf_rng_seed(&rng, 4202);
    for (int t = 0; t < 40; ++t) {
        int dim = 2 + (t % 2), nc = 1 + (int)cf_rng_below(&rng, 5);
        cfBaraffProblem p = random_contacts(&rng, nc, dim, 0.0);
        double f[15], a[15], An[25], bn[5], want[5];
        cft_assert_ok(cf_baraff_solve(&p, NULL, f, a, NULL));
        int m = dim * nc;
        for (int i = 0; i < nc; ++i) {
            bn[i] = p.b[dim * i];
            for (int j = 0; j < nc; ++j) An[i * nc + j] = p.A.a[dim * i * m + dim * j];
        }
        ck_assert_int_eq(brute_force(nc, An, bn, want), 1);
        for (int i = 0; i < nc; ++i) {
            cft_assert_near_at(f[dim * i], want[i], 1e-10, 1e-10, "i = %d", i);
            for (int k = 1; k < dim; ++k) cft_assert_near_at(f[dim * i + k], 0.0, 0.0, 0, "i = %d, k = %d", i, k);
        }
        cf_baraff_free(&p);
    }
}
END_TEST

START_TEST(ch04_2_incline_3d)
{
    /* 3D particle (A = I) on a slope, load also pushed sideways: the friction bound holds and
       friction opposes the sliding acceleration; aligned with T1 the answer is exact */
    const double g = 9.81;
    for (int k = 0; k < 4; ++k) {
        cfBaraffProblem p;
        ck_assert_int_eq(cf_baraff_init(&p, 1, 3), CF_OK);
        for (int i = 0; i < 3; ++i) p.A.a[4 * i] = 1.0;
        double th = k < 2 ? 0.3 : 0.9, side = (k % 2) ? 2.0 : 0.0;
        p.b[0] = -g * cos(th);
        p.b[1] = -g * sin(th);
        p.b[2] = side;
        p.mu[0] = 0.6;
        double f[3], a[3];
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_baraff_solve(&p, NULL, f, a, &rep));
        ck_assert_msg(rep.residual <= 1e-12, "violation %g", rep.residual);
        cft_assert_near(f[0], g * cos(th), 1e-12, 1e-12);
        double ft = hypot(f[1], f[2]), load = hypot(p.b[1], p.b[2]);
        if (load <= p.mu[0] * f[0]) { /* sticks: friction cancels the whole tangential load */
            cft_assert_near(f[1], -p.b[1], 1e-12, 1e-12);
            cft_assert_near(f[2], -p.b[2], 1e-12, 1e-12);
        } else {
            cft_assert_near(ft, p.mu[0] * f[0], 1e-12, 1e-12);
            ck_assert(f[1] * a[1] + f[2] * a[2] <= 1e-12);
            if (side == 0.0) cft_assert_near(a[1], -g * sin(th) + p.mu[0] * f[0], 1e-12, 1e-12);
        }
        cf_baraff_free(&p);
    }
}
END_TEST

static void count_releases(void *ctx, const cfPivotEvent *ev)
{
    int *releases = ctx;
    if (ev->leaving >= 0 && ev->leaving % 2 == 0) ++*releases; /* a normal left the clamped set */
}

START_TEST(ch04_2_contact_released)
{
    /* two 2D contacts whose normal block is the release example of ch04.1: contact 0 is clamped
       first and released while contact 1 is driven; its friction must vanish with it */
    cfBaraffProblem p;
    ck_assert_int_eq(cf_baraff_init(&p, 2, 2), CF_OK);
    double An[4] = {1, 0.9, 0.9, 0.85};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) p.A.a[(2 * i) * 4 + 2 * j] = An[i * 2 + j];
    p.A.a[1 * 4 + 1] = p.A.a[3 * 4 + 3] = 1.0;
    p.b[0] = -1.0;
    p.b[2] = -0.999;
    p.b[1] = -0.3;
    p.b[3] = 0.2;
    p.mu[0] = p.mu[1] = 0.5;
    int releases = 0;
    cfPivotOptions o = cf_pivot_options_default();
    o.trace = count_releases;
    o.trace_ctx = &releases;
    double f[4], a[4];
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_baraff_solve(&p, &o, f, a, &rep));
    ck_assert_msg(releases >= 1, "contact 0 was never released");
    cft_assert_near(f[0], 0.0, 0.0, 0);
    cft_assert_near(f[1], 0.0, 0.0, 0);
    cft_assert_near(f[2], 0.999 / 0.85, 1e-12, 1e-12);
    cft_assert_near(f[3], -0.2, 1e-12, 1e-12); /* sticks: 0.2 <= 0.5 f_N */
    ck_assert(rep.residual <= 1e-12);
    /* the path: N0 to f = 1; N1 driven with N0 clamped (f_N0 falls by 0.9 per unit), N0
       released at s = 1/0.9 with f_N1 = 10/9 (the drive goes on from there, not from 0), then N1
       to its goal at 0.999/0.85 (a_N1 = -0.099 + 0.04 * 10/9 left at rate 0.85); T1 to -0.2 */
    StepLog log = {0};
    o.trace = log_step;
    o.trace_ctx = &log;
    cft_assert_ok(cf_baraff_solve(&p, &o, f, a, NULL));
    ck_assert_int_eq(log.n, 4);
    const int in[4] = {0, -1, 2, 3}, out[4] = {-1, 0, -1, -1};
    const double step[4] = {1, 1 / 0.9, (0.099 - 0.04 / 0.9) / 0.85, 0.2};
    for (int k = 0; k < 4; ++k) {
        cft_assert_int_at(log.in[k], ==, in[k], "pivot %d", k + 1);
        cft_assert_int_at(log.out[k], ==, out[k], "pivot %d", k + 1);
        cft_assert_near_at(log.step[k], step[k], 1e-12, 0, "pivot %d", k + 1);
    }
    cft_assert_near(log.f[1][2], 1 / 0.9, 1e-12, 0);
    cf_baraff_free(&p);
}
END_TEST

START_TEST(ch04_2_dynamic_friction)
{
    /* a particle sliding with given velocity: friction is -mu f_N along the slip, in 2D and 3D */
    const double g = 9.81, mu = 0.4;
    for (int dim = 2; dim <= 3; ++dim) {
        cfBaraffProblem p;
        cft_assert_int_at(cf_baraff_init(&p, 1, dim), ==, CF_OK, "dim = %d", dim);
        for (int i = 0; i < dim; ++i) p.A.a[i * dim + i] = 1.0;
        p.b[0] = -g;
        p.mu[0] = mu;
        p.slip[0] = 3.0;
        if (dim == 3) p.slip[1] = -4.0;
        double f[3], a[3];
        cft_assert_ok(cf_baraff_solve(&p, NULL, f, a, NULL));
        cft_assert_near(f[0], g, 1e-12, 1e-12);
        double s = dim == 3 ? 5.0 : 3.0;
        cft_assert_near(f[1], -mu * g * 3.0 / s, 1e-12, 1e-12);
        if (dim == 3) cft_assert_near(f[2], mu * g * 4.0 / s, 1e-12, 1e-12);
        cft_assert_near(a[0], 0.0, 1e-12, 0);
        cf_baraff_free(&p);
    }
}
END_TEST

START_TEST(ch04_2_frictionless_equals_dantzig)
{
    /* ungraded cross-check: with mu = 0 Baraff's normal forces equal Dantzig's on the normal block */
    cfRng rng;
    cf_rng_seed(&rng, 4203);
    for (int t = 0; t < 20; ++t) {
        int nc = 1 + (int)cf_rng_below(&rng, 6);
        cfBaraffProblem p = random_contacts(&rng, nc, 3, 0.0);
        double f[18], a[18], An[36], bn[6], x[6];
        cft_assert_ok(cf_baraff_solve(&p, NULL, f, a, NULL));
        for (int i = 0; i < nc; ++i) {
            bn[i] = p.b[3 * i];
            for (int j = 0; j < nc; ++j) An[i * nc + j] = p.A.a[(3 * i) * 3 * nc + 3 * j];
        }
        cfLcp q = make_lcp(nc, An, bn);
        cft_assert_ok(cf_lcp_dantzig(&q, NULL, x, NULL));
        for (int i = 0; i < nc; ++i) cft_assert_near_at(f[3 * i], x[i], 1e-12, 1e-10, "i = %d", i);
        cf_lcp_free(&q);
        cf_baraff_free(&p);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch04.3 Lemke                                                                                */

START_TEST(ch04_3_small_known_solutions)
{
    double A[4] = {2, 1, 1, 2}, b[2] = {-1, -1}, x[2];
    cfLcp p = make_lcp(2, A, b);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_lcp_lemke(&p, NULL, x, &rep));
    cft_assert_near(x[0], 1.0 / 3.0, 1e-15, 1e-14);
    cft_assert_near(x[1], 1.0 / 3.0, 1e-15, 1e-14);
    ck_assert_int_eq(rep.iterations, 3);
    cf_lcp_free(&p);
    /* the path of the spec (variables x_i -> i, w_i -> 2 + i, z0 -> 4): z0 enters and w_1
       leaves (the tie b_0 = b_1 broken lexicographically, toward the later row), x_1 enters and
       w_0 leaves, x_0 enters and z0 leaves */
    PivotLog log;
    double bb[2] = {-1, -1};
    cft_assert_ok(solve_logged(cf_lcp_lemke, 2, A, bb, NULL, x, &log));
    ck_assert_int_eq(log.n, 3);
    ck_assert(log.in[0] == 4 && log.out[0] == 3);
    ck_assert(log.in[1] == 1 && log.out[1] == 2);
    ck_assert(log.in[2] == 0 && log.out[2] == 4);
    /* with the covering vector d = (1, 2), z0 enters where b_r / d_r is smallest: row 0 (-1 <
       -1/2), so w_0 leaves first; the answer is the same */
    const double cover[2] = {1, 2};
    cft_assert_ok(solve_logged(cf_lcp_lemke, 2, A, bb, cover, x, &log));
    ck_assert(log.in[0] == 4 && log.out[0] == 2);
    cft_assert_near(x[0], 1.0 / 3.0, 1e-15, 1e-14);
    cft_assert_near(x[1], 1.0 / 3.0, 1e-15, 1e-14);
    /* the method does not see the data's scale (the spec): (s_A A, s_b b) with the cover s_d d
       takes the same pivots, x = s_b / s_A x*, for any s > 0. Each scale below breaks a test that
       is absolute where it must be relative (the old reference failed the last three):
       - b and d by 2^40: the ratios [beta_r, Binv_r] / c_r of the first pivot are scaled by
         2^-40, the Binv part 2^-40 = 9.1e-13 against 0, which an absolute tie floor such as
         1e-11 calls a tie (then w_0 leaves first);
       - A by 2^-50: the entering columns Binv (-A e_j) are of size 2^-50 = 8.9e-16, which an
         absolute pivot threshold (tol = 1e-12) calls zero: a false ray; and at pivot 3 the
         column holds 1 in x_1's row and 2.7e-15 in z0's, so a threshold relative to the
         column's largest entry is a false ray too;
       - A by 2^40: x = 2^-40 / 3 = 3e-13, which a zero test of basic values at tol_w = 1e-12
         sets to 0 (CF_OK with w = -b / 2);
       - d by 2^40: z0 = 2^-40 after pivot 1, which the same test sets to 0 (CF_OK with x = 0). */
    {
        const double scales[4][3] = {{1, 0x1p40, 0x1p40}, {0x1p-50, 1, 1}, {0x1p40, 1, 1}, {1, 1, 0x1p40}};
        const char *names[4] = {"b and d by 2^40", "A by 2^-50", "A by 2^40", "d by 2^40"};
        for (int k = 0; k < 4; ++k) {
            const double sa = scales[k][0], sb = scales[k][1], sd = scales[k][2];
            double As[4], bs[2] = {-sb, -sb}, ds[2] = {sd, sd};
            for (int i = 0; i < 4; ++i) As[i] = sa * A[i];
            cft_assert_ok_at(solve_logged(cf_lcp_lemke, 2, As, bs, ds, x, &log), "%s", names[k]);
            cft_assert_int_at(log.n, ==, 3, "%s", names[k]);
            cft_assert_at(log.in[0] == 4 && log.out[0] == 3, "%s: z0 enters, w_1 leaves", names[k]);
            cft_assert_at(log.in[1] == 1 && log.out[1] == 2, "%s: x_1 enters, w_0 leaves", names[k]);
            cft_assert_at(log.in[2] == 0 && log.out[2] == 4, "%s: x_0 enters, z0 leaves", names[k]);
            for (int i = 0; i < 2; ++i) cft_assert_near_at(x[i], sb / sa / 3.0, 0, 1e-14, "%s, x[%d]", names[k], i);
        }
    }
    /* b >= 0: no pivot at all */
    double c[2] = {1, 0};
    p = make_lcp(2, A, c);
    cft_assert_ok(cf_lcp_lemke(&p, NULL, x, &rep));
    ck_assert_int_eq(rep.iterations, 0);
    cft_assert_near(x[0] + x[1], 0.0, 0.0, 0);
    cf_lcp_free(&p);
    /* the pyramid LCP of a sliding particle (zero diagonal at the slack): notes 1.6's model,
       unknowns (lambda_n, four friction directions, beta) */
    for (int k = 0; k < 2; ++k) {
        double mu = k == 0 ? 0.5 : 3.0;
        double D[4][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}}, G[5][3], M[36], q[6], z[6];
        double u[3] = {2, 0, -1};
        for (int i = 0; i < 3; ++i) G[0][i] = i == 2 ? 1.0 : 0.0;
        for (int d = 0; d < 4; ++d)
            for (int i = 0; i < 3; ++i) G[1 + d][i] = D[d][i];
        memset(M, 0, sizeof M);
        for (int i = 0; i < 5; ++i) {
            for (int j = 0; j < 5; ++j) M[i * 6 + j] = G[i][0] * G[j][0] + G[i][1] * G[j][1] + G[i][2] * G[j][2];
            q[i] = G[i][0] * u[0] + G[i][1] * u[1] + G[i][2] * u[2];
        }
        for (int d = 1; d <= 4; ++d) {
            M[d * 6 + 5] = 1.0;
            M[5 * 6 + d] = -1.0;
        }
        M[5 * 6 + 0] = mu;
        q[5] = 0.0;
        p = make_lcp(6, M, q);
        cft_assert_ok(cf_lcp_lemke(&p, NULL, z, &rep));
        assert_solves(&p, z, 1e-12);
        cft_assert_near(z[0], 1.0, 1e-12, 1e-12);
        if (k == 0) {
            cft_assert_near(z[2], 0.5, 1e-12, 1e-12); /* friction along -x at mu lambda_n */
            cft_assert_near(z[5], 1.5, 1e-12, 1e-12); /* slip speed */
        } else {
            cft_assert_near(z[2], 2.0, 1e-12, 1e-12); /* sticks */
            cft_assert_near(z[5], 0.0, 1e-12, 0);
        }
        cf_lcp_free(&p);
    }
    /* z0's row wins a tie of the ratio test: A = [[2, 1], [1, 0]], b = (-2, -1). z0 enters in row 0
       (z0 = 2, w_1 = 1); x_0 enters and both z0 (2 / 2) and w_1 (1 / 1) reach zero at x_0 = 1:
       z0 leaves, x = (1, 0) with w = (0, 0) after 2 pivots. Letting w_1 leave instead goes on to
       a ray: CF_INFEASIBLE on a solvable problem */
    {
        double A2[4] = {2, 1, 1, 0}, b2[2] = {-2, -1}, x2[2];
        cfLcp p = make_lcp(2, A2, b2);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_lcp_lemke(&p, NULL, x2, &rep));
        ck_assert_int_eq(rep.iterations, 2);
        cft_assert_near(x2[0], 1.0, 1e-15, 0);
        cft_assert_near(x2[1], 0.0, 0.0, 0);
        cf_lcp_free(&p);
    }
}
END_TEST

START_TEST(ch04_3_polish_on_the_support)
{
    /* A tiny diagonal: A = [[1e-7, 1], [1, 1 + 1e-7]], b = (-2, -2) has the single solution
       x = (2e7, 0), w = (0, 2e7 - 2) (x_1 > 0 would need w_0 = x_1 - 2 + 1e-7 x_0 = 0 with
       w_1 = 0, which gives x_0 < 0). Lemke's path (z0, x_1, x_0 enter; z0 leaves: 4 pivots)
       pivots on the small entry, and the explicit inverse then carries x_0 only to about 1 %
       (x_0 = 20259281.7 read off the basis). The polish of the spec, one solve of A_SS x_S = -b_S
       on the support S = {0}, is a single division: x_0 = 2 / 1e-7 to the last bit, and its
       residual |1e-7 x_0 - 2| is a few units of round-off of 2 (below 1e-15), whatever the
       summation order. Unpolished, the residual is 2.6e-2. */
    double A[4] = {1e-7, 1, 1, 1 + 1e-7}, b[2] = {-2, -2}, x[2];
    cfLcp p = make_lcp(2, A, b);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_lcp_lemke(&p, NULL, x, &rep));
    ck_assert_int_eq(rep.iterations, 4);
    cft_assert_near(x[0], 2e7, 0.0, 1e-15);
    cft_assert_near(x[1], 0.0, 0.0, 0);
    ck_assert_msg(cf_lcp_residual(&p, x) <= 1e-12, "residual %g: the polish on the support is missing",
                  cf_lcp_residual(&p, x));
    cf_lcp_free(&p);
    /* the same with b scaled by 1e-8: x = (0.2, 0), the basis carries the same 1 % error
       (residual 2.6e-10 unpolished); the support is every x_i > 0, also below 1 */
    double bs[2] = {-2e-8, -2e-8};
    p = make_lcp(2, A, bs);
    cft_assert_ok(cf_lcp_lemke(&p, NULL, x, &rep));
    cft_assert_near(x[0], 0.2, 0.0, 1e-15);
    ck_assert_msg(cf_lcp_residual(&p, x) <= 1e-20, "residual %g: the polish on the support is missing",
                  cf_lcp_residual(&p, x));
    cf_lcp_free(&p);
    /* a support of three with a non-symmetric A_SS: A = [[2 - 2e-7, 1, 1], [-2, 1 + 1e-7, 1],
       [0, -1, 2 - 1e-7]] (det about 12), b = (-2, -2, 1): x = (4.2e-8, 1.67, 0.33) > 0, w = 0. The
       basis leaves a residual of about 1e-9; one solve on the support (well conditioned: its
       round-off is a few 1e-16 times |A||x| ~ 4) gets below 1e-14 */
    double A3[9] = {2 - 2e-7, 1, 1, -2, 1 + 1e-7, 1, 0, -1, 2 - 1e-7}, b3[3] = {-2, -2, 1}, x3[3];
    p = make_lcp(3, A3, b3);
    cft_assert_ok(cf_lcp_lemke(&p, NULL, x3, &rep));
    for (int i = 0; i < 3; ++i) cft_assert_at(x3[i] > 0.0, "i = %d", i);
    ck_assert_msg(cf_lcp_residual(&p, x3) <= 1e-12, "residual %g: the polish on the support is missing",
                  cf_lcp_residual(&p, x3));
    cf_lcp_free(&p);
    /* the pivot limit: two pivots allowed on the 4-pivot path */
    p = make_lcp(2, A, b);
    assert_pivot_limit(cf_lcp_lemke, &p, 2);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch04_3_murty_exponential)
{
    /* Murty (1988): A upper triangular (1 on the diagonal, 2 above), b_i = -(2^{n+1} - 2^{i+1}):
       Lemke with d = e takes 2^n pivots; the solution is x = 2^n e_n */
    for (int n = 2; n <= 10; ++n) {
        double A[100], b[10], x[10];
        for (int i = 0; i < n; ++i) {
            b[i] = -(ldexp(1.0, n + 1) - ldexp(1.0, i + 1));
            for (int j = 0; j < n; ++j) A[i * n + j] = j == i ? 1.0 : (j > i ? 2.0 : 0.0);
        }
        cfLcp p = make_lcp(n, A, b);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_lcp_lemke(&p, NULL, x, &rep));
        cft_assert_int_at(rep.iterations, ==, 1 << n, "n = %d", n);
        for (int i = 0; i < n; ++i) cft_assert_near_at(x[i], i == n - 1 ? ldexp(1.0, n) : 0.0, 1e-9, 1e-12,
                                                       "n = %d, i = %d", n, i);
        cf_lcp_free(&p);
    }
}
END_TEST

/* the polyhedral-cone LCP of ch02.6 (k directions per contact, notes Eq. 34-39) of a frictional
   contact problem, written out here so that chapter 4's grade does not depend on chapter 2's
   exercise: unknowns (lambda_n [p], lambda_d [p k], beta [p]), A = [[D W D^T, E], [mu, -E^T, 0]]
   by blocks, b = (q_n, q_d, 0) */
static cfLcp polyhedral_lcp(const cfFrictionProblem *fc, int k)
{
    const int p = fc->nc, n = p * (k + 2), off_d = p, off_beta = p + p * k;
    double D[10][3];
    ck_assert(k <= 9);
    D[0][0] = 1.0, D[0][1] = D[0][2] = 0.0;
    for (int i = 0; i < k; ++i) {
        double th = 2.0 * CF_PI * i / k;
        D[1 + i][0] = 0.0, D[1 + i][1] = cos(th), D[1 + i][2] = sin(th);
    }
    double *A = calloc((size_t)n * n, sizeof *A), *b = calloc((size_t)n, sizeof *b);
    for (int a = 0; a < p; ++a)
        for (int e = fc->W.rowptr[a]; e < fc->W.rowptr[a + 1]; ++e) {
            int c = fc->W.colidx[e];
            const double *w = &fc->W.val[9 * e];
            for (int r = 0; r <= k; ++r)
                for (int t = 0; t <= k; ++t) {
                    double DW[3];
                    for (int j = 0; j < 3; ++j) DW[j] = D[r][0] * w[j] + D[r][1] * w[3 + j] + D[r][2] * w[6 + j];
                    int row = r == 0 ? a : off_d + a * k + r - 1, col = t == 0 ? c : off_d + c * k + t - 1;
                    A[(long)row * n + col] += DW[0] * D[t][0] + DW[1] * D[t][1] + DW[2] * D[t][2];
                }
        }
    for (int a = 0; a < p; ++a) {
        A[(long)(off_beta + a) * n + a] = fc->mu[a];
        for (int i = 0; i < k; ++i) {
            A[(long)(off_d + a * k + i) * n + off_beta + a] = 1.0;
            A[(long)(off_beta + a) * n + off_d + a * k + i] = -1.0;
            b[off_d + a * k + i] = D[1 + i][1] * fc->q[3 * a + 1] + D[1 + i][2] * fc->q[3 * a + 2];
        }
        b[a] = fc->q[3 * a];
    }
    cfLcp l = make_lcp(n, A, b);
    free(A);
    free(b);
    return l;
}

START_TEST(ch04_3_degenerate_no_cycling)
{
    /* every b_i = -1 and small integer matrices: the ratio test ties at every step. Strictly
       copositive A (positive entries on and off the diagonal, some zeros) guarantees a solution;
       the lexicographic rule must reach it. */
    cfRng rng;
    cf_rng_seed(&rng, 4301);
    for (int t = 0; t < 100; ++t) {
        int n = 3 + (int)cf_rng_below(&rng, 8);
        double A[100], b[10], x[10];
        for (int i = 0; i < n; ++i) {
            b[i] = -1.0;
            for (int j = 0; j < n; ++j) A[i * n + j] = (double)cf_rng_below(&rng, 3);
            A[i * n + i] = 1.0 + (double)cf_rng_below(&rng, 2);
        }
        cfLcp p = make_lcp(n, A, b);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cfPivotOptions o = cf_pivot_options_default();
        o.max_pivots = 500;
        cfStatus st = cf_lcp_lemke(&p, &o, x, &rep);
        ck_assert_msg(st == CF_OK, "problem %d: %s after %d pivots", t, cf_status_name(st), rep.iterations);
        assert_solves(&p, x, 1e-10);
        for (int i = 0; i < n; ++i) ck_assert_msg(x[i] >= 0.0, "x[%d] = %g: a solution is clamped to x >= 0", i, x[i]);
        cf_lcp_free(&p);
    }
    /* a stack's contact problem (the stack of ten's step 69, sim/test/data; 8 directions): four
       contacts per face carry one load. With basic values zeroed at tol_w in every row (whatever
       their units) Lemke meets a ray there after 58 pivots while z0 is zero but for the rounding
       of its pivots (2e-13 against tol_w 1.6e-13): the basis is complementary, and the spec reads
       x off it and accepts it by its certificate (a "ray, so no solution" is wrong: the stack
       stands). With the zero test at each row's own scale (the reference) z0 leaves after 48
       pivots. Either way: CF_OK with a small residual (the exception itself is tested in
       ch04_3_ray_is_infeasible) */
    {
        cfFrictionProblem fc;
        cfError err;
        ck_assert_msg(cf_fc_read_siconos("sim/test/data/stack10_step69_fc3d.dat", &fc, &err) == CF_OK,
                      "%s (run the tests from the repository root)", err.msg);
        cfLcp p = polyhedral_lcp(&fc, 8);
        double *z = calloc((size_t)p.n, sizeof *z);
        cft_assert_ok(cf_lcp_lemke(&p, NULL, z, NULL));
        ck_assert_msg(cf_lcp_residual(&p, z) <= 1e-10, "residual %g", cf_lcp_residual(&p, z));
        free(z);
        cf_lcp_free(&p);
        cf_fc_free(&fc);
    }
    /* the degenerate 3x3 with x_0 = w_0 = 0 at the solution */
    double A[9] = {9, 6, -4, 6, 6, -4, -4, -4, 9}, b[3] = {-2, -2, 1}, x[3];
    cfLcp p = make_lcp(3, A, b);
    cft_assert_ok(cf_lcp_lemke(&p, NULL, x, NULL));
    cft_assert_near(x[1], 0.368421052631579, 1e-12, 1e-12);
    cft_assert_near(x[2], 0.0526315789473684, 1e-12, 1e-12);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch04_3_ray_is_infeasible)
{
    /* no solution: 1x1 with w = -x - 1; PSD (copositive-plus) with w_0 + w_1 = -2; the perturbed
       Pang problem (row 0 needs -x_1 - x_2 >= 1e-4) */
    double A1[1] = {-1}, b1[1] = {-1}, x[3];
    double A2[4] = {1, -1, -1, 1}, b2[2] = {-1, -1};
    double A3[9] = {0, -1, -1, 1, 0, 0, -1, 0, 0}, b3[3] = {-1e-4, -1, 1};
    cfLcp ps[3] = {make_lcp(1, A1, b1), make_lcp(2, A2, b2), make_lcp(3, A3, b3)};
    for (int k = 0; k < 3; ++k) {
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_status_at(cf_lcp_lemke(&ps[k], NULL, x, &rep), CF_INFEASIBLE, "k = %d", k);
        ck_assert(rep.iterations >= 1);
        cft_assert_at(cf_vec_finite(ps[k].n, x), "k = %d", k);
        cf_lcp_free(&ps[k]);
    }
    /* a ray with z0 zero but for the rounding is CF_OK only when x passes the certificate: row 0
       of A = [[0, 0], [0, 1]], b = (-1e-4, 1) reads w_0 = -1e-4 whatever x is (no solution). With
       the cover d = (1e6, 1), z0 enters at 1e-4 / 1e6 = 1e-10, within 1000 tol_w = 1e-9 of zero,
       and x_0 enters with the column -A e_0 = 0: a ray. x = 0 read off the basis leaves the
       residual 1e-4 = 1e8 tol_w: still CF_INFEASIBLE (a "z0 vanished, so solved" shortcut calls
       it converged) */
    double A4[4] = {0, 0, 0, 1}, b4[2] = {-1e-4, 1}, cover4[2] = {1e6, 1};
    cfLcp p4 = make_lcp(2, A4, b4);
    cfPivotOptions o4 = cf_pivot_options_default();
    o4.cover = cover4;
    cft_assert_status(cf_lcp_lemke(&p4, &o4, x, NULL), CF_INFEASIBLE);
    cf_lcp_free(&p4);
    /* and CF_OK when it passes: b = (-1e-10, 1) with d = 1 (tol_w = 1e-12): z0 enters at 1e-10,
       within 1000 tol_w = 1e-9 of zero, x_0 enters with the column 0: a ray, and x = 0 read off
       the basis has the residual |min(0, -1e-10)| = 1e-10 <= 1000 tol_w: the spec's CF_OK (w_0 =
       -1e-10 is zero to 1e-10 of ||b||). A method without this exception calls it infeasible */
    double b5[2] = {-1e-10, 1};
    cfLcp p5 = make_lcp(2, A4, b5);
    cfReport rep5;
    cf_report_init(&rep5, NULL, 0);
    cft_assert_ok(cf_lcp_lemke(&p5, NULL, x, &rep5));
    ck_assert_int_eq(rep5.iterations, 1);
    cft_assert_near(x[0], 0.0, 0.0, 0);
    cft_assert_near(x[1], 0.0, 0.0, 0);
    cf_lcp_free(&p5);
}
END_TEST

START_TEST(ch04_3_p_matrices_match_brute_force)
{
    check_p_family(cf_lcp_lemke, 0.0, 4302, 100);
    check_p_family(cf_lcp_lemke, 1.0, 4303, 100);
}
END_TEST

START_TEST(ch04_3_siconos_outcomes)
{
    double A[1] = {2}, b[1] = {-1}, x[1];
    cfLcp p = make_lcp(1, A, b);
    cft_assert_ok(cf_lcp_lemke(&p, NULL, x, NULL));
    cf_lcp_free(&p);
    if (siconos_outcomes(cf_lcp_lemke, 0, "lemke") == 0) return;
    /* lcp_tobenna (n = 40, 127 pivots): x read off the final basis alone leaves a Siconos residual
       of 3.1e-12 (the explicit inverse after many pivots); the spec's polish, one solve on the
       support, brings it to 6.4e-14. 1e-12 keeps a margin of 15 for another summation order and
       still fails a solution without the polish */
    char path[2048];
    snprintf(path, sizeof path, "%s/siconos-lcp/lcp_tobenna.dat", cft_data_dir());
    cfError err;
    ck_assert_msg(cf_lcp_read_siconos(path, &p, &err) == CF_OK, "%s", err.msg);
    double *z = calloc((size_t)p.n, sizeof *z);
    cft_assert_ok(cf_lcp_lemke(&p, NULL, z, NULL));
    ck_assert_msg(cf_lcp_residual_siconos(&p, z) <= 1e-12,
                  "lcp_tobenna: residual %.3g (at most 1e-12 with the polish on the support)",
                  cf_lcp_residual_siconos(&p, z));
    free(z);
    cf_lcp_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch04.4 Murty                                                                                */

START_TEST(ch04_4_murty_2n_minus_1_pivots)
{
    for (int n = 1; n <= 10; ++n) {
        cfLcp p = murty_example(n);
        double x[10];
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_lcp_murty(&p, NULL, x, &rep));
        cft_assert_int_at(rep.iterations, ==, (1 << n) - 1, "n = %d", n);
        for (int i = 0; i < n; ++i) cft_assert_near_at(x[i], i == n - 1 ? 1.0 : 0.0, 1e-12, 0, "n = %d, i = %d", n, i);
        cf_lcp_free(&p);
    }
}
END_TEST

START_TEST(ch04_4_least_index_rule)
{
    /* A = [[1, 1], [1, 2]], b = (-1, -3): w = (-1, -3) at x = 0, both violate. The least index
       moves 0 into F: x = (1, 0), w_1 = -2; then 1: A_FF x_F = (1, 3) gives x = (-1, 2), x_0 < 0;
       then 0 leaves: x = (0, 3/2), w_0 = 1/2. Three pivots. Choosing the most violated index
       instead (w_1 = -3) solves it in one pivot: the rule, not only the answer, is tested. */
    double A[4] = {1, 1, 1, 2}, b[2] = {-1, -3}, x[2];
    cfLcp p = make_lcp(2, A, b);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_lcp_murty(&p, NULL, x, &rep));
    ck_assert_int_eq(rep.iterations, 3);
    cft_assert_near(x[0], 0.0, 0.0, 0);
    cft_assert_near(x[1], 1.5, 1e-15, 0);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch04_4_limit_trace_history)
{
    /* Murty's example n = 3 (7 pivots): a limit of 3 pivots stops with CF_MAX_ITER after 3; a
       full run reports every pivot to the trace and the history, the index moved each time */
    cfLcp p = murty_example(3);
    double x[3], hist[16];
    assert_pivot_limit(cf_lcp_murty, &p, 3);
    cfReport rep;
    PivotLog log = {0, {0}, {0}};
    cfPivotOptions o = cf_pivot_options_default();
    o.trace = log_pivot;
    o.trace_ctx = &log;
    cf_report_init(&rep, hist, 16);
    cft_assert_ok(cf_lcp_murty(&p, &o, x, &rep));
    ck_assert_int_eq(log.n, 7);
    ck_assert_int_eq(rep.history_len, 7);
    /* the least-index order of the 2^n - 1 pivots on this example: 0, 1, 0, 2, 0, 1, 0 */
    const int order[7] = {0, 1, 0, 2, 0, 1, 0};
    for (int k = 0; k < 7; ++k) cft_assert_int_at(log.in[k], ==, order[k], "k = %d", k);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch04_4_p_matrices_match_brute_force)
{
    check_p_family(cf_lcp_murty, 0.0, 4401, 100);
    check_p_family(cf_lcp_murty, 1.0, 4402, 100);
}
END_TEST

START_TEST(ch04_4_degenerate_terminates)
{
    /* x_0 = w_0 = 0 at the solution: exact sign tests flip-flop, the tolerance stops it */
    double A[9] = {9, 6, -4, 6, 6, -4, -4, -4, 9}, b[3] = {-2, -2, 1}, x[3];
    cfLcp p = make_lcp(3, A, b);
    cfPivotOptions o = cf_pivot_options_default();
    o.max_pivots = 50;
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_lcp_murty(&p, &o, x, &rep));
    assert_solves(&p, x, 1e-12);
    ck_assert(rep.iterations <= 3);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch04_4_siconos_outcomes)
{
    cfLcp p = murty_example(3);
    double x[3];
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_lcp_murty(&p, NULL, x, &rep));
    ck_assert_int_eq(rep.iterations, 7);
    cf_lcp_free(&p);
    siconos_outcomes(cf_lcp_murty, 2, "murty");
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch04.5 BPP                                                                                  */

START_TEST(ch04_5_worked_example)
{
    double A[4] = {2, 1, 1, 2}, b[2] = {-1, 1}, x[2];
    cfLcp p = make_lcp(2, A, b);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_lcp_bpp(&p, NULL, x, &rep));
    cft_assert_near(x[0], 0.5, 1e-15, 0);
    cft_assert_near(x[1], 0.0, 0.0, 0);
    ck_assert_int_eq(rep.iterations, 2);
    /* a warm start from the solution's support costs one solve */
    cfPivotOptions o = cf_pivot_options_default();
    o.warm_start = true;
    cft_assert_ok(cf_lcp_bpp(&p, &o, x, &rep));
    ck_assert_int_eq(rep.iterations, 1);
    cf_lcp_free(&p);
    /* the trace: one event per solve; the first moves V = {1} as a block (entering -1, the
       spec's "move ALL of V"), the last solve, which finds the solution, moves no variable
       (entering = leaving = -1) */
    PivotLog log;
    cft_assert_ok(solve_logged(cf_lcp_bpp, 2, A, b, NULL, x, &log));
    ck_assert_int_eq(log.n, 2);
    ck_assert_int_eq(log.in[0], -1);
    ck_assert_int_eq(log.in[1], -1);
    ck_assert_int_eq(log.out[1], -1);
}
END_TEST

START_TEST(ch04_5_safeguard_stops_cycle)
{
    double A[9] = {1.6, -0.8, 1.8, -0.8, 0.7, -0.7, 1.8, -0.7, 2.2}, b[3] = {-0.6, 0.7, -0.3}, x[3];
    cfLcp p = make_lcp(3, A, b);
    cfPivotOptions o = cf_pivot_options_default();
    o.max_pivots = 50;
    o.bpp_pbar = -1; /* no safeguard: the period-3 cycle never ends */
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_status(cf_lcp_bpp(&p, &o, x, &rep), CF_MAX_ITER);
    ck_assert_int_eq(rep.iterations, 50);
    /* p-bar = 0, by hand: F = {0,1,2} gives x_2 < 0, a new best (|V| = 1): all of V moves,
       F = {0,1}; x = (-0.29, -1.33, 0), V = {0, 1}: no better, no budget: a single pivot on the
       least index 0, F = {1}; x_1 < 0: single pivot on 1, F = {}; w = b, V = {0, 2}: single pivot
       on 0, F = {0}: x = (0.375, 0, 0) solves it. 5 solves, one trace event each */
    PivotLog log;
    o.bpp_pbar = 0;
    o.trace = log_pivot;
    o.trace_ctx = &log;
    log.n = 0;
    cft_assert_ok(cf_lcp_bpp(&p, &o, x, &rep));
    ck_assert_int_eq(rep.iterations, 5);
    ck_assert_int_eq(log.n, 5);
    ck_assert(log.in[1] == 0 && log.in[2] == 1 && log.in[3] == 0);
    o.trace = NULL;
    /* all indices infeasible at the start count as a first best: A = I, b = (1, 1) from F = {0, 1}
       gives x = (-1, -1), |V| = 2 < n + 1, all move: solved by the second solve even with
       p-bar = 0 (no single pivot) */
    double I2[4] = {1, 0, 0, 1}, bp[2] = {1, 1}, x2[2];
    cfLcp q = make_lcp(2, I2, bp);
    cft_assert_ok(cf_lcp_bpp(&q, &o, x2, &rep));
    ck_assert_int_eq(rep.iterations, 2);
    cf_lcp_free(&q);
    for (int pbar = 0; pbar <= 10; ++pbar) {
        o.bpp_pbar = pbar;
        cft_assert_ok(cf_lcp_bpp(&p, &o, x, &rep));
        cft_assert_near(x[0], 0.375, 1e-14, 1e-14);
        cft_assert_near(x[1], 0.0, 0.0, 0);
        cft_assert_near(x[2], 0.0, 0.0, 0);
        ck_assert(rep.iterations <= 20);
    }
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch04_5_repeated_set_is_stagnation)
{
    /* A = [[1, 2], [0, -2]] (det -2: not a P-matrix), b = (-2, -2): w_1 = -2 x_1 - 2 < 0 for every
       x >= 0, no solution. BPP with p-bar = 0: F = {0, 1} gives x = (4, -1), V = {1}, a new best
       (|V| = 1): all of V moves, F = {0}; x = (2, 0), w_1 = -2: no improvement, no budget left:
       one Murty pivot from {0}; F = {0, 1}: another from {0, 1}; then F = {0} again, a set of the
       same run of single pivots: CF_STAGNATED after 4 solves (Murty's method alone has no such
       check and goes round until its pivot limit). */
    double A[4] = {1, 2, 0, -2}, b[2] = {-2, -2}, x[2];
    cfLcp p = make_lcp(2, A, b);
    cfPivotOptions o = cf_pivot_options_default();
    o.bpp_pbar = 0;
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_status(cf_lcp_bpp(&p, &o, x, &rep), CF_STAGNATED);
    ck_assert_int_eq(rep.iterations, 4);
    ck_assert(cf_vec_finite(2, x));
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch04_5_murty_example_n_iterations)
{
    for (int n = 1; n <= 12; ++n) {
        cfLcp p = murty_example(n);
        double x[12];
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok(cf_lcp_bpp(&p, NULL, x, &rep));
        cft_assert_int_at(rep.iterations, ==, n, "n = %d", n);
        cft_assert_near_at(x[n - 1], 1.0, 1e-12, 0, "n = %d", n);
        cf_lcp_free(&p);
    }
}
END_TEST

START_TEST(ch04_5_p_matrices_match_brute_force)
{
    check_p_family(cf_lcp_bpp, 0.0, 4501, 100);
    check_p_family(cf_lcp_bpp, 1.0, 4502, 100);
}
END_TEST

START_TEST(ch04_5_degenerate_one_iteration)
{
    double A[9] = {9, 6, -4, 6, 6, -4, -4, -4, 9}, b[3] = {-2, -2, 1}, x[3];
    cfLcp p = make_lcp(3, A, b);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_lcp_bpp(&p, NULL, x, &rep));
    ck_assert_int_eq(rep.iterations, 1);
    cft_assert_near(x[0], 0.0, 0.0, 0); /* clamped, not -1.9e-17 */
    assert_solves(&p, x, 1e-12);
    cf_lcp_free(&p);
}
END_TEST

START_TEST(ch04_5_siconos_outcomes)
{
    cfLcp p = murty_example(4);
    double x[4];
    cft_assert_ok(cf_lcp_bpp(&p, NULL, x, NULL));
    cf_lcp_free(&p);
    siconos_outcomes(cf_lcp_bpp, 2, "bpp");
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* contracts (provided code): bad input is refused before any pivoting                          */

START_TEST(ch04_bad_input_rejected)
{
    double A[4] = {2, 1, 1, 2}, b[2] = {-1, -1}, x[2];
    cfLcp p = make_lcp(2, A, b);
    LcpSolver solvers[4] = {cf_lcp_dantzig, cf_lcp_lemke, cf_lcp_murty, cf_lcp_bpp};
    for (int s = 0; s < 4; ++s) {
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_status_at(solvers[s](NULL, NULL, x, &rep), CF_BAD_INPUT, "s = %d", s);
        cft_assert_status_at(solvers[s](&p, NULL, NULL, &rep), CF_BAD_INPUT, "s = %d", s);
        p.b[1] = NAN;
        cft_assert_status_at(solvers[s](&p, NULL, x, &rep), CF_BAD_INPUT, "s = %d", s);
        cft_assert_status(rep.status, CF_BAD_INPUT);
        p.b[1] = -1.0;
    }
    double N[4] = {2, 1, 0, 2}; /* Dantzig needs symmetry */
    cfLcp q = make_lcp(2, N, b);
    cft_assert_status(cf_lcp_dantzig(&q, NULL, x, NULL), CF_BAD_INPUT);
    double bad_cover[2] = {1.0, 0.0};
    cfPivotOptions o = cf_pivot_options_default();
    o.cover = bad_cover;
    cft_assert_status(cf_lcp_lemke(&p, &o, x, NULL), CF_BAD_INPUT);
    cfBaraffProblem bp;
    ck_assert_int_eq(cf_baraff_init(&bp, 1, 2), CF_OK);
    bp.mu[0] = -1.0;
    double f[2], a[2];
    cft_assert_status(cf_baraff_solve(&bp, NULL, f, a, NULL), CF_BAD_INPUT);
    cf_baraff_free(&bp);
    ck_assert_int_eq(cf_baraff_init(&bp, 1, 4), CF_BAD_INPUT);
    cf_lcp_free(&p);
    cf_lcp_free(&q);
}
END_TEST

/* ---- issue 30: a status that tells the truth ------------------------------------------------- */

/* Baraff's method on a Siconos problem where it cycles (OneObject-i100000-316: 25 contacts, 75
   variables): it stops at its own limit, 10 m + 100 pivots, not at the general 100 m + 1000 (with
   a pivot of O(m^3) that let an 82-contact problem run for minutes), and says max-iterations with
   finite numbers; on BoxesStack1 it still finishes with its certificate. */
static bool baraff_of_file(const char *name, cfBaraffProblem *bp)
{
    char path[700];
    snprintf(path, sizeof path, "%s/siconos-fc3d/%s", cft_data_dir(), name);
    cfFrictionProblem fc;
    if (cf_fc_read_siconos(path, &fc, NULL) != CF_OK) {
        printf("test_ch04: %s not found: skipping its check\n", path);
        return false;
    }
    cfDense W = {0};
    cft_assert_ok(cf_baraff_init(bp, fc.nc, 3));
    cft_assert_ok(cf_bsr_to_dense(&fc.W, &W));
    memcpy(bp->A.a, W.a, (size_t)W.rows * W.cols * sizeof *W.a);
    memcpy(bp->b, fc.q, (size_t)3 * fc.nc * sizeof *bp->b);
    memcpy(bp->mu, fc.mu, (size_t)fc.nc * sizeof *bp->mu);
    cf_dense_free(&W);
    cf_fc_free(&fc);
    return true;
}

START_TEST(truth_baraff_pivot_cap)
{
    ck_assert_int_eq(cf_baraff_max_pivots(75), 850);
    const char *names[2] = {"OneObject-i100000-316.hdf5.dat", "BoxesStack1-i100000-32.hdf5.dat"};
    for (int k = 0; k < 2; ++k) {
        cfBaraffProblem bp;
        if (!baraff_of_file(names[k], &bp)) continue;
        int m = 3 * bp.nc;
        double *f = malloc((size_t)m * sizeof *f), *a = malloc((size_t)m * sizeof *a);
        ck_assert(f && a);
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cfStatus st = cf_baraff_solve(&bp, NULL, f, a, &rep);
        cft_assert_at(rep.iterations <= cf_baraff_max_pivots(m), "%s: %d pivots", names[k], rep.iterations);
        cft_assert_at(isfinite(rep.residual) && cf_vec_finite(m, f) && cf_vec_finite(m, a), "%s", names[k]);
        if (k == 0) {
            cft_assert_at(st == CF_MAX_ITER && rep.iterations == cf_baraff_max_pivots(m), "%s: %s after %d pivots",
                          names[k], cf_status_name(st), rep.iterations);
        } else {
            cft_assert_ok_at(st, "%s", names[k]);
            ck_assert(cf_baraff_violation(&bp, f, a) <= 1e-9 * fmax(1.0, cf_vec_norm_inf(m, bp.b)) * fmax(1.0, cf_vec_norm_inf(m, f)));
        }
        free(f);
        free(a);
        cf_baraff_free(&bp);
    }
}
END_TEST

static void build(Suite *s)
{
    TCase *t1 = cft_tcase_unit(s, "ch04.1");
    CFT_GRADED(t1, ch04_1_chol_update_matches_submatrix, "ch04.1", 2, "updated factor equals A_CC");
    CFT_GRADED(t1, ch04_1_worked_examples, "ch04.1", 2, "worked examples incl. a release");
    CFT_GRADED(t1, ch04_1_spd_matches_brute_force, "ch04.1", 2, "SPD family matches enumeration");
    CFT_GRADED(t1, ch04_1_invariants_after_every_pivot, "ch04.1", 1, "index-set invariants per pivot");
    CFT_GRADED(t1, ch04_1_rank_deficient_box, "ch04.1", 1, "rank-deficient box: no singular failure");
    CFT_GRADED(t1, ch04_1_refactor_same_path, "ch04.1", 1, "update and refactor take the same pivots");
    CFT_GRADED(t1, ch04_1_infeasible_psd, "ch04.1", 1, "unbounded drive reported infeasible");
    TCase *t1s = cft_tcase_scene(s, "ch04.1-data");
    CFT_GRADED(t1s, ch04_1_siconos_outcomes, "ch04.1", 1, "Siconos set: symmetric files solved");

    TCase *t2 = cft_tcase_unit(s, "ch04.2");
    CFT_GRADED(t2, ch04_2_incline_stick_and_slide, "ch04.2", 1, "2D incline: stick below tan = mu, slide above");
    CFT_GRADED(t2, ch04_2_box_on_slope_2d, "ch04.2", 1, "2D box on a slope: totals");
    CFT_GRADED(t2, ch04_2_painleve_impulse_needed, "ch04.2", 1, "Painleve: impulse needed above mu = 4/3");
    CFT_GRADED(t2, ch04_2_random_contacts_certificate, "ch04.2", 1, "random contacts: Coulomb certificate");
    CFT_GRADED(t2, ch04_2_frictionless_matches_enumeration, "ch04.2", 1, "mu = 0 matches enumeration");
    CFT_GRADED(t2, ch04_2_incline_3d, "ch04.2", 1, "3D incline with sideways load");
    CFT_GRADED(t2, ch04_2_contact_released, "ch04.2", 1, "a released contact loses its friction");
    CFT_GRADED(t2, ch04_2_dynamic_friction, "ch04.2", 1, "dynamic friction opposes the slip");

    CFT_TEST(t2, ch04_2_frictionless_equals_dantzig, "frictionless Baraff equals Dantzig");
    TCase *t2s = cft_tcase_scene(s, "ch04.2-random"); /* 360 problems: more than a unit test's time under ASan */
    CFT_GRADED(t2s, ch04_2_cone_crossing_rank_deficient, "ch04.2", 1, "mu up to 2, rank-deficient A: converged means certified");
    CFT_GRADED(t2s, ch04_2_invariants_after_every_pivot, "ch04.2", 1, "index-set conditions hold after every pivot");

    TCase *t3 = cft_tcase_unit(s, "ch04.3");
    CFT_GRADED(t3, ch04_3_small_known_solutions, "ch04.3", 2, "small LCPs and the pyramid particle");
    CFT_GRADED(t3, ch04_3_polish_on_the_support, "ch04.3", 1, "the final polish: residual 1e-12 where the basis gives 1e-2");
    CFT_GRADED(t3, ch04_3_murty_exponential, "ch04.3", 1, "Murty's example: 2^n pivots");
    CFT_GRADED(t3, ch04_3_degenerate_no_cycling, "ch04.3", 2, "degenerate problems: no cycling");
    CFT_GRADED(t3, ch04_3_ray_is_infeasible, "ch04.3", 1, "ray termination reported infeasible");
    CFT_GRADED(t3, ch04_3_p_matrices_match_brute_force, "ch04.3", 1, "P-matrix family matches enumeration");
    TCase *t3s = cft_tcase_scene(s, "ch04.3-data");
    CFT_GRADED(t3s, ch04_3_siconos_outcomes, "ch04.3", 2, "Siconos set incl. the 40-variable game");

    TCase *t4 = cft_tcase_unit(s, "ch04.4");
    CFT_GRADED(t4, ch04_4_murty_2n_minus_1_pivots, "ch04.4", 2, "Murty's example: 2^n - 1 pivots");
    CFT_GRADED(t4, ch04_4_least_index_rule, "ch04.4", 1, "the least index moves, not the most violated");
    CFT_GRADED(t4, ch04_4_limit_trace_history, "ch04.4", 1, "pivot limit, trace and history of every pivot");
    CFT_GRADED(t4, ch04_4_p_matrices_match_brute_force, "ch04.4", 2, "P-matrix family matches enumeration");
    CFT_GRADED(t4, ch04_4_degenerate_terminates, "ch04.4", 2, "degenerate problem terminates");
    TCase *t4s = cft_tcase_scene(s, "ch04.4-data");
    CFT_GRADED(t4s, ch04_4_siconos_outcomes, "ch04.4", 2, "Siconos set: P-matrix files solved");

    TCase *t5 = cft_tcase_unit(s, "ch04.5");
    CFT_GRADED(t5, ch04_5_worked_example, "ch04.5", 2, "worked example and warm start");
    CFT_GRADED(t5, ch04_5_safeguard_stops_cycle, "ch04.5", 2, "safeguard stops the SPD cycle");
    CFT_GRADED(t5, ch04_5_repeated_set_is_stagnation, "ch04.5", 1, "a repeated set of single pivots: not a P-matrix, stagnated");
    CFT_GRADED(t5, ch04_5_murty_example_n_iterations, "ch04.5", 1, "Murty's example: n iterations");
    CFT_GRADED(t5, ch04_5_p_matrices_match_brute_force, "ch04.5", 2, "P-matrix family matches enumeration");
    CFT_GRADED(t5, ch04_5_degenerate_one_iteration, "ch04.5", 1, "degenerate problem: one iteration");
    TCase *t5s = cft_tcase_scene(s, "ch04.5-data");
    CFT_GRADED(t5s, ch04_5_siconos_outcomes, "ch04.5", 1, "Siconos set: P-matrix files solved");

    TCase *tc = cft_tcase_unit(s, "ch04-contracts");
    CFT_TEST(tc, ch04_bad_input_rejected, "bad input rejected before pivoting");
    TCase *tt = cft_tcase_scene(s, "ch04-truth");
    CFT_TEST(tt, truth_baraff_pivot_cap, "Baraff stops at its own pivot limit, 10 m + 100, with finite numbers");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "ch04", build); }
