/* SPDX-License-Identifier: MIT */
/* Library tests: linear algebra (cf_linalg.h), checked against certificates (residuals,
   L L^T == A, A V == V diag(lambda)) and independent dense computations, not stored numbers. */
#include "cft.h"
#include "cf/cf_linalg.h"
#include "cf/cf_rng.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- helpers ------------------------------------------------------------------------- */

static double max_abs_diff(int n, const double *a, const double *b)
{
    double m = 0.0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

static void random_vec(cfRng *rng, int n, double lo, double hi, double *x)
{
    for (int i = 0; i < n; ++i) x[i] = cf_rng_range(rng, lo, hi);
}

static double *new_vec(int n)
{
    double *x = calloc((size_t)(n > 0 ? n : 1), sizeof *x);
    ck_assert_ptr_nonnull(x);
    return x;
}

static void random_dense(cfRng *rng, int rows, int cols, cfDense *A)
{
    cft_assert_ok(cf_dense_init(A, rows, cols));
    random_vec(rng, rows * cols, -1.0, 1.0, A->a);
}

/* entries in [-1, 1) plus n on the diagonal: strictly diagonally dominant, so well conditioned */
static void random_dominant(cfRng *rng, int n, cfDense *A)
{
    random_dense(rng, n, n, A);
    for (int i = 0; i < n; ++i) *cf_dense_at(A, i, i) += n;
}

/* B^T B + shift I with B random m x n: symmetric positive definite with lambda_min >= shift */
static void random_spd(cfRng *rng, int n, double shift, cfDense *A)
{
    cfDense B;
    random_dense(rng, n, n, &B);
    cft_assert_ok(cf_dense_init(A, n, n));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k) s += *cf_dense_at(&B, k, i) * *cf_dense_at(&B, k, j);
            *cf_dense_at(A, i, j) = s + (i == j ? shift : 0.0);
        }
    cf_dense_free(&B);
}

/* CSR copy of a dense matrix, keeping only the nonzero entries */
static void dense_to_csr(const cfDense *D, cfCsr *A)
{
    cfTriplets t;
    cft_assert_ok(cf_triplets_init(&t, D->rows, D->cols));
    for (int i = 0; i < D->rows; ++i)
        for (int j = 0; j < D->cols; ++j)
            if (*cf_dense_at(D, i, j) != 0.0) cft_assert_ok_at(cf_triplets_add(&t, i, j, *cf_dense_at(D, i, j)),
                                                               "i = %d, j = %d", i, j);
    cft_assert_ok(cf_csr_from_triplets(&t, A));
    cf_triplets_free(&t);
}

static void random_permutation(cfRng *rng, int n, int *perm)
{
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {
        int j = (int)cf_rng_below(rng, (uint32_t)i + 1);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* 7-point Laplacian of an nx x ny x nz grid (Dirichlet: diagonal 6) plus shift I; grid node
   g becomes unknown label[g] (label NULL: lexicographic order) */
static void grid_laplacian(int nx, int ny, int nz, double shift, const int *label, cfCsr *A)
{
    int n = nx * ny * nz;
    cfTriplets t;
    cft_assert_ok(cf_triplets_init(&t, n, n));
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                int g = x + nx * (y + ny * z), i = label ? label[g] : g;
                cft_assert_ok(cf_triplets_add(&t, i, i, 6.0 + shift));
                int nb[6][3] = {{x - 1, y, z}, {x + 1, y, z}, {x, y - 1, z}, {x, y + 1, z}, {x, y, z - 1}, {x, y, z + 1}};
                for (int k = 0; k < 6; ++k) {
                    int a = nb[k][0], b = nb[k][1], c = nb[k][2];
                    if (a < 0 || a >= nx || b < 0 || b >= ny || c < 0 || c >= nz) continue;
                    int h = a + nx * (b + ny * c);
                    cft_assert_ok(cf_triplets_add(&t, i, label ? label[h] : h, -1.0));
                }
            }
    cft_assert_ok(cf_csr_from_triplets(&t, A));
    cf_triplets_free(&t);
}

/* random sparse symmetric matrix with about @p per_row off-diagonal entries per row, made
   strictly diagonally dominant (hence SPD) by a positive diagonal */
static void random_sparse_spd(cfRng *rng, int n, int per_row, cfCsr *A)
{
    cfTriplets t;
    cft_assert_ok(cf_triplets_init(&t, n, n));
    double *rowsum = new_vec(n);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < per_row / 2; ++k) {
            int j = (int)cf_rng_below(rng, (uint32_t)n);
            if (j == i) continue;
            double v = cf_rng_range(rng, -1.0, 1.0);
            cft_assert_ok_at(cf_triplets_add(&t, i, j, v), "i = %d", i);
            cft_assert_ok_at(cf_triplets_add(&t, j, i, v), "i = %d", i);
            rowsum[i] += fabs(v);
            rowsum[j] += fabs(v);
        }
    for (int i = 0; i < n; ++i) cft_assert_ok_at(cf_triplets_add(&t, i, i, rowsum[i] + cf_rng_range(rng, 0.1, 1.0)),
                                                 "i = %d", i);
    cft_assert_ok(cf_csr_from_triplets(&t, A));
    cf_triplets_free(&t);
    free(rowsum);
}

/* ||A x - b||_2 */
static double csr_residual(const cfCsr *A, const double *x, const double *b)
{
    double *r = new_vec(A->rows);
    cf_csr_mul_vec(A, x, r);
    for (int i = 0; i < A->rows; ++i) r[i] -= b[i];
    double s = cf_vec_norm(A->rows, r);
    free(r);
    return s;
}

/* ---- vectors and dense matrices -------------------------------------------------------- */

START_TEST(vec_ops_identities)
{
    cfRng rng;
    cf_rng_seed(&rng, 11);
    enum { N = 37 };
    double x[N], y[N], z[N];
    random_vec(&rng, N, -2, 2, x);
    random_vec(&rng, N, -2, 2, y);
    double s = 0.0, m = 0.0;
    for (int i = 0; i < N; ++i) {
        s += x[i] * y[i];
        m = fmax(m, fabs(x[i]));
    }
    cft_assert_near(cf_vec_dot(N, x, y), s, 1e-13, 0);
    cft_assert_near(cf_vec_dot(N, x, y), cf_vec_dot(N, y, x), 0, 0);
    cft_assert_near(cf_vec_norm(N, x) * cf_vec_norm(N, x), cf_vec_dot(N, x, x), 0, 1e-14);
    cft_assert_near(cf_vec_norm_inf(N, x), m, 0, 0);
    /* norm equivalence and Cauchy-Schwarz */
    ck_assert(cf_vec_norm_inf(N, x) <= cf_vec_norm(N, x));
    ck_assert(cf_vec_norm(N, x) <= sqrt((double)N) * cf_vec_norm_inf(N, x));
    ck_assert(fabs(cf_vec_dot(N, x, y)) <= cf_vec_norm(N, x) * cf_vec_norm(N, y));
    cf_vec_copy(N, y, z);
    cf_vec_axpy(N, -0.5, x, z);
    for (int i = 0; i < N; ++i) cft_assert_near_at(z[i], y[i] - 0.5 * x[i], 1e-15, 0, "i = %d", i);
    cf_vec_zero(N, z);
    cft_assert_near(cf_vec_norm(N, z), 0.0, 0, 0);
    ck_assert(cf_vec_finite(N, x));
    x[N / 2] = NAN;
    ck_assert(!cf_vec_finite(N, x));
    ck_assert(isnan(cf_vec_norm_inf(N, x))); /* a NaN is not hidden by the max */
    x[N / 2] = -INFINITY;
    ck_assert(!cf_vec_finite(N, x));
    ck_assert(cf_vec_finite(0, NULL));
}
END_TEST

/* The Euclidean norm neither overflows nor underflows (Blue's scaled sums, as LAPACK's dnrm2):
   checked by exact power-of-two scaling, |2^k x| = 2^k |x|, against the plain norm of x, whose
   sum of squares is safe; where nothing is extreme it is sqrt(x . x) bit for bit. */
START_TEST(vec_norm_scales_without_overflow)
{
    cfRng rng;
    cf_rng_seed(&rng, 30);
    enum { N = 40 };
    double x[N], y[N];
    random_vec(&rng, N, -2, 2, x);
    ck_assert(cf_vec_norm(N, x) == sqrt(cf_vec_dot(N, x, x)));
    cft_assert_near(cf_vec_norm_scaled(N, x), cf_vec_norm(N, x), 0, 4 * DBL_EPSILON);
    const double plain = cf_vec_norm(N, x);
    const int ks[] = {600, 900, 1020, -600, -900, -1020, -1060};
    for (size_t j = 0; j < sizeof ks / sizeof ks[0]; ++j) {
        int k = ks[j];
        for (int i = 0; i < N; ++i) y[i] = ldexp(x[i], k);
        /* 2^-1060 x: entries are subnormal and lose their last bits themselves */
        double rel = k < -1000 ? 1e-4 : 4 * DBL_EPSILON, want = ldexp(plain, k);
        cft_assert_near_at(cf_vec_norm(N, y), want, 0, rel, "k = %d", k);
        cft_assert_near_at(cf_vec_norm_scaled(N, y), want, 0, rel, "k = %d", k);
    }
    /* mixed magnitudes: the huge entry wins, the tiny ones neither overflow nor vanish */
    double m[4] = {1e300, -1e-300, 3.0, 1e300};
    cft_assert_near(cf_vec_norm(4, m), sqrt(2.0) * 1e300, 0, 4 * DBL_EPSILON);
    double t[3] = {3e-200, 0.0, 4e-200};
    cft_assert_near(cf_vec_norm(3, t), 5e-200, 0, 4 * DBL_EPSILON);
    double one[2] = {1e-200, 1.0};
    ck_assert(cf_vec_norm(2, one) == 1.0);
    double sub[2] = {DBL_TRUE_MIN, 0.0}, big[2] = {DBL_MAX, 0.0}, over[2] = {DBL_MAX, DBL_MAX};
    ck_assert(cf_vec_norm(2, sub) == DBL_TRUE_MIN);
    ck_assert(cf_vec_norm(2, big) == DBL_MAX);
    ck_assert(cf_vec_norm(2, over) == INFINITY); /* sqrt(2) DBL_MAX is not a double */
    double z[3] = {0, 0, 0}, n[3] = {1e300, NAN, 1}, inf[3] = {1e-300, INFINITY, 1};
    ck_assert(cf_vec_norm(3, z) == 0.0 && cf_vec_norm(0, NULL) == 0.0);
    ck_assert(isnan(cf_vec_norm(3, n)) && isnan(cf_vec_norm_scaled(3, n)));
    ck_assert(cf_vec_norm(3, inf) == INFINITY);
}
END_TEST

START_TEST(dense_products)
{
    cfRng rng;
    cf_rng_seed(&rng, 12);
    cfDense A, B, C = {0};
    cft_assert_status(cf_dense_init(&A, -1, 3), CF_BAD_INPUT);
    ck_assert_ptr_null(A.a);
    random_dense(&rng, 7, 5, &A);
    random_dense(&rng, 5, 4, &B);
    double x[5], y[7], u[4], Bu[5], ABu[7], Cu[7], Aty[5];
    random_vec(&rng, 5, -1, 1, x);
    random_vec(&rng, 7, -1, 1, y);
    random_vec(&rng, 4, -1, 1, u);
    /* adjoint identity: (A x).y == x.(A^T y) */
    double Ax[7];
    cf_dense_mul_vec(&A, x, Ax);
    cf_dense_tmul_vec(&A, y, Aty);
    cft_assert_near(cf_vec_dot(7, Ax, y), cf_vec_dot(5, x, Aty), 1e-14, 0);
    for (int i = 0; i < 7; ++i) {
        double s = 0.0;
        for (int j = 0; j < 5; ++j) s += A.a[i * 5 + j] * x[j];
        cft_assert_near_at(Ax[i], s, 1e-15, 0, "i = %d", i);
    }
    /* (A B) u == A (B u), and C may be one of the factors */
    cft_assert_ok(cf_dense_mul(&A, &B, &C));
    ck_assert_int_eq(C.rows, 7);
    ck_assert_int_eq(C.cols, 4);
    cf_dense_mul_vec(&B, u, Bu);
    cf_dense_mul_vec(&A, Bu, ABu);
    cf_dense_mul_vec(&C, u, Cu);
    ck_assert(max_abs_diff(7, ABu, Cu) < 1e-14);
    cft_assert_ok(cf_dense_mul(&A, &B, &A)); /* A <- A B */
    ck_assert(max_abs_diff(28, A.a, C.a) == 0.0);
    cft_assert_status(cf_dense_mul(&B, &B, &C), CF_BAD_INPUT); /* 5x4 times 5x4 */
    /* asymmetry: 0 for S + S^T, the largest |s_ij - s_ji| otherwise, infinite if not square */
    cfDense S;
    random_dense(&rng, 6, 6, &S);
    double worst = 0.0;
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) worst = fmax(worst, fabs(S.a[i * 6 + j] - S.a[j * 6 + i]));
    cft_assert_near(cf_dense_asymmetry(&S), worst, 0, 0);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < i; ++j) S.a[i * 6 + j] = S.a[j * 6 + i] = S.a[i * 6 + j] + S.a[j * 6 + i];
    cft_assert_near(cf_dense_asymmetry(&S), 0.0, 0, 0);
    ck_assert(isinf(cf_dense_asymmetry(&B)));
    cf_dense_free(&A);
    cf_dense_free(&B);
    cf_dense_free(&C);
    cf_dense_free(&S);
    cf_dense_free(&S); /* safe on a zeroed struct */
}
END_TEST

START_TEST(dense_solve_residual)
{
    cfRng rng;
    cf_rng_seed(&rng, 13);
    const int sizes[] = {1, 2, 5, 40, 150};
    for (int s = 0; s < 5; ++s) {
        int n = sizes[s];
        cfDense A;
        random_dominant(&rng, n, &A);
        double *b = new_vec(n), *x = new_vec(n), *r = new_vec(n);
        random_vec(&rng, n, -1, 1, b);
        cft_assert_ok(cf_dense_solve(&A, b, x));
        /* backward-stable LU: ||A x - b|| is at rounding level of ||A|| ||x|| */
        cf_dense_mul_vec(&A, x, r);
        cf_vec_axpy(n, -1.0, b, r);
        double anorm = cf_vec_norm(n * n, A.a);
        ck_assert_msg(cf_vec_norm(n, r) <= 1e-13 * anorm * cf_vec_norm(n, x), "n=%d residual %g", n,
                      cf_vec_norm(n, r));
        /* b and x may alias */
        cf_vec_copy(n, b, r);
        cft_assert_ok(cf_dense_solve(&A, r, r));
        ck_assert(max_abs_diff(n, r, x) <= 1e-15 * cf_vec_norm_inf(n, x) * n);
        cf_dense_free(&A);
        free(b);
        free(x);
        free(r);
    }
}
END_TEST

START_TEST(dense_solve_refuses_singular_and_bad_input)
{
    cfRng rng;
    cf_rng_seed(&rng, 14);
    double b[30], x[30];
    random_vec(&rng, 30, -1, 1, b);
    /* exactly singular */
    cfDense S;
    cft_assert_ok(cf_dense_init(&S, 2, 2));
    S.a[0] = 1, S.a[1] = 2, S.a[2] = 2, S.a[3] = 4;
    for (int i = 0; i < 30; ++i) x[i] = 7.0;
    cft_assert_status(cf_dense_solve(&S, b, x), CF_SINGULAR);
    ck_assert(x[0] == 7.0 && x[1] == 7.0); /* untouched */
    cf_dense_free(&S);
    /* rank 29 out of 30 (sum of 29 random outer products): singular to working precision,
       although rounding keeps every LU pivot nonzero */
    const int n = 30;
    cft_assert_ok(cf_dense_init(&S, n, n));
    for (int k = 0; k < n - 1; ++k) {
        double u[30], v[30];
        random_vec(&rng, n, -1, 1, u);
        random_vec(&rng, n, -1, 1, v);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) S.a[i * n + j] += u[i] * v[j];
    }
    cft_assert_status(cf_dense_solve(&S, b, x), CF_SINGULAR);
    ck_assert(x[0] == 7.0);
    /* non-finite input and wrong shapes */
    cf_dense_free(&S);
    random_dominant(&rng, n, &S);
    b[3] = NAN;
    cft_assert_status(cf_dense_solve(&S, b, x), CF_BAD_INPUT);
    b[3] = 0.0;
    S.a[17] = INFINITY;
    cft_assert_status(cf_dense_solve(&S, b, x), CF_BAD_INPUT);
    ck_assert(x[0] == 7.0);
    cf_dense_free(&S);
    cft_assert_ok(cf_dense_init(&S, 3, 2));
    cft_assert_status(cf_dense_solve(&S, b, x), CF_BAD_INPUT);
    cf_dense_free(&S);
}
END_TEST

START_TEST(dense_cholesky_reconstructs)
{
    cfRng rng;
    cf_rng_seed(&rng, 15);
    const int n = 30;
    cfDense A, L, LLt = {0}, Lt;
    random_spd(&rng, n, 1.0, &A);
    cft_assert_ok(cf_dense_cholesky(&A, &L));
    /* L L^T == A, L lower triangular with a positive diagonal */
    cft_assert_ok(cf_dense_init(&Lt, n, n));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            Lt.a[i * n + j] = L.a[j * n + i];
            if (j > i) cft_assert_at(L.a[i * n + j] == 0.0, "i = %d, j = %d", i, j);
        }
    for (int i = 0; i < n; ++i) cft_assert_at(L.a[i * n + i] > 0.0, "i = %d", i);
    cft_assert_ok(cf_dense_mul(&L, &Lt, &LLt));
    double amax = cf_vec_norm_inf(n * n, A.a);
    ck_assert(max_abs_diff(n * n, LLt.a, A.a) <= 1e-14 * n * amax);
    /* the solve matches an independent LU solve */
    double b[30], x[30], xlu[30];
    random_vec(&rng, n, -1, 1, b);
    cf_dense_cholesky_solve(&L, b, x);
    cft_assert_ok(cf_dense_solve(&A, b, xlu));
    ck_assert(max_abs_diff(n, x, xlu) <= 1e-12 * cf_vec_norm_inf(n, xlu));
    /* only the lower triangle is read: garbage above the diagonal changes nothing */
    cfDense L2;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) A.a[i * n + j] = (j % 2) ? NAN : -1e300;
    cft_assert_ok(cf_dense_cholesky(&A, &L2));
    ck_assert(max_abs_diff(n * n, L.a, L2.a) == 0.0);
    /* in-place solve */
    cf_vec_copy(n, b, xlu);
    cf_dense_cholesky_solve(&L, xlu, xlu);
    ck_assert(max_abs_diff(n, x, xlu) == 0.0);
    cf_dense_free(&L2);
    /* not positive definite, and non-finite */
    cfDense D, Lbad;
    cft_assert_ok(cf_dense_init(&D, 2, 2));
    D.a[0] = 1.0, D.a[3] = -1.0;
    cft_assert_status(cf_dense_cholesky(&D, &Lbad), CF_SINGULAR);
    ck_assert_ptr_null(Lbad.a);
    D.a[2] = NAN;
    cft_assert_status(cf_dense_cholesky(&D, &Lbad), CF_BAD_INPUT);
    cf_dense_free(&D);
    cf_dense_free(&A);
    cf_dense_free(&L);
    cf_dense_free(&Lt);
    cf_dense_free(&LLt);
}
END_TEST

START_TEST(dense_sym_eig_certificate)
{
    cfRng rng;
    cf_rng_seed(&rng, 16);
    const int n = 25;
    cfDense A, V;
    random_dense(&rng, n, n, &A);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j) A.a[j * n + i] = A.a[i * n + j];
    double lam[25], lam2[25], trace = 0.0;
    cft_assert_ok(cf_dense_sym_eig(&A, lam, &V));
    for (int i = 0; i < n; ++i) trace += A.a[i * n + i];
    double scale = cf_vec_norm(n * n, A.a);
    /* ascending, sum = trace, A V = V diag(lambda), V^T V = I */
    double sum = 0.0;
    for (int k = 0; k < n; ++k) {
        if (k > 0) cft_assert_at(lam[k] >= lam[k - 1], "k = %d", k);
        sum += lam[k];
    }
    cft_assert_near(sum, trace, 1e-12 * scale, 0);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) {
            double av = 0.0, vtv = 0.0;
            for (int j = 0; j < n; ++j) {
                av += A.a[i * n + j] * V.a[j * n + k];
                vtv += V.a[j * n + i] * V.a[j * n + k];
            }
            cft_assert_near(av, V.a[i * n + k] * lam[k], 1e-13 * scale, 0);
            cft_assert_near(vtv, i == k ? 1.0 : 0.0, 1e-13, 0);
        }
    /* eigenvalues alone agree with the full decomposition */
    cft_assert_ok(cf_dense_sym_eig(&A, lam2, NULL));
    ck_assert(max_abs_diff(n, lam, lam2) <= 1e-13 * scale);
    cf_dense_free(&V);
    A.a[n + 0] = NAN; /* (1, 0): lower triangle */
    cft_assert_status(cf_dense_sym_eig(&A, lam, &V), CF_BAD_INPUT);
    ck_assert_ptr_null(V.a);
    cf_dense_free(&A);
}
END_TEST

/* ---- triplets and CSR ---------------------------------------------------------------- */

START_TEST(triplets_contract)
{
    cfTriplets t;
    cft_assert_status(cf_triplets_init(&t, -1, 3), CF_BAD_INPUT);
    cft_assert_ok(cf_triplets_init(&t, 6, 7));
    cft_assert_status(cf_triplets_add(&t, 6, 0, 1.0), CF_BAD_INPUT);
    cft_assert_status(cf_triplets_add(&t, 0, -1, 1.0), CF_BAD_INPUT);
    cft_assert_status(cf_triplets_add(&t, 0, 0, NAN), CF_BAD_INPUT);
    cft_assert_status(cf_triplets_add(&t, 0, 0, INFINITY), CF_BAD_INPUT);
    ck_assert_int_eq(t.nnz, 0);
    const double m[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    cft_assert_ok(cf_triplets_add_block3(&t, 1, 1, m));
    ck_assert_int_eq(t.nnz, 9);
    cft_assert_status(cf_triplets_add_block3(&t, 2, 0, m), CF_BAD_INPUT); /* rows 6..8 of 6 */
    cft_assert_status(cf_triplets_add_block3(&t, 0, 2, m), CF_BAD_INPUT); /* cols 6..8 of 7 */
    const double bad[9] = {1, 2, 3, 4, NAN, 6, 7, 8, 9};
    cft_assert_status(cf_triplets_add_block3(&t, 0, 0, bad), CF_BAD_INPUT);
    ck_assert_int_eq(t.nnz, 9); /* nothing added by the refused blocks */
    for (int k = 0; k < 1000; ++k) cft_assert_ok_at(cf_triplets_add(&t, k % 6, k % 7, 1.0), "k = %d", k);
    ck_assert_int_eq(t.nnz, 1009);
    int cap = t.cap;
    cf_triplets_clear(&t);
    ck_assert_int_eq(t.nnz, 0);
    ck_assert_int_eq(t.cap, cap);
    cfCsr A;
    cft_assert_ok(cf_triplets_add_block3(&t, 0, 0, m));
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) cft_assert_near_at(cf_csr_get(&A, r, c), m[3 * r + c], 0, 0,
                                                       "r = %d, c = %d", r, c);
    cf_csr_free(&A);
    /* a corrupted list is refused */
    t.i[0] = 99;
    cft_assert_status(cf_csr_from_triplets(&t, &A), CF_BAD_INPUT);
    ck_assert_ptr_null(A.rowptr);
    cf_triplets_free(&t);
    cf_triplets_free(&t);
}
END_TEST

START_TEST(csr_from_triplets_sums_duplicates)
{
    cfRng rng;
    cf_rng_seed(&rng, 21);
    const int rows = 23, cols = 17, ntrip = 400;
    cfTriplets t;
    cfDense D;
    cft_assert_ok(cf_triplets_init(&t, rows, cols));
    cft_assert_ok(cf_dense_init(&D, rows, cols));
    bool stored[23][17] = {{false}};
    int distinct = 0;
    for (int k = 0; k < ntrip; ++k) {
        int i = (int)cf_rng_below(&rng, rows), j = (int)cf_rng_below(&rng, 9); /* crowded: duplicates */
        if (i == 5) continue;                                                   /* an empty row */
        double v = cf_rng_range(&rng, -1, 1);
        cft_assert_ok(cf_triplets_add(&t, i, j, v));
        *cf_dense_at(&D, i, j) += v;
        if (!stored[i][j]) distinct++;
        stored[i][j] = true;
    }
    /* an explicit zero (1 - 1) is kept as a stored entry */
    cft_assert_ok(cf_triplets_add(&t, 0, 16, 1.0));
    cft_assert_ok(cf_triplets_add(&t, 0, 16, -1.0));
    distinct++;
    cfCsr A;
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    ck_assert_int_eq(A.rows, rows);
    ck_assert_int_eq(A.cols, cols);
    ck_assert_int_eq(A.nnz, distinct);
    ck_assert_int_eq(A.rowptr[0], 0);
    ck_assert_int_eq(A.rowptr[rows], A.nnz);
    ck_assert_int_eq(A.rowptr[6] - A.rowptr[5], 0);
    for (int i = 0; i < rows; ++i)
        for (int p = A.rowptr[i] + 1; p < A.rowptr[i + 1]; ++p) cft_assert_int_at(A.colidx[p - 1], <, A.colidx[p],
                                                                                  "p = %d", p);
    ck_assert(cf_csr_get(&A, 0, 16) == 0.0);
    /* values: equal to the dense accumulation, via get and via the dense copy */
    cfDense E;
    cft_assert_ok(cf_csr_to_dense(&A, &E));
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            cft_assert_near_at(cf_csr_get(&A, i, j), *cf_dense_at(&D, i, j), 1e-14, 0, "i = %d, j = %d", i, j);
            cft_assert_near_at(*cf_dense_at(&E, i, j), *cf_dense_at(&D, i, j), 1e-14, 0, "i = %d, j = %d", i, j);
        }
    ck_assert(cf_csr_get(&A, -1, 0) == 0.0 && cf_csr_get(&A, 0, cols) == 0.0);
    double d[17];
    cf_csr_diagonal(&A, d);
    for (int k = 0; k < 17; ++k) cft_assert_near_at(d[k], *cf_dense_at(&D, k, k), 1e-14, 0, "k = %d", k);
    cf_csr_free(&A);
    /* empty list: a valid empty matrix */
    cf_triplets_clear(&t);
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    ck_assert_int_eq(A.nnz, 0);
    ck_assert_int_eq(A.rowptr[rows], 0);
    double x[17] = {0}, y[23];
    cf_csr_mul_vec(&A, x, y);
    ck_assert(cf_vec_norm(rows, y) == 0.0);
    cf_csr_free(&A);
    cf_triplets_free(&t);
    cf_dense_free(&D);
    cf_dense_free(&E);
}
END_TEST

START_TEST(csr_products_match_dense)
{
    cfRng rng;
    cf_rng_seed(&rng, 22);
    const int shapes[3][2] = {{40, 40}, {13, 57}, {61, 8}};
    for (int s = 0; s < 3; ++s) {
        int m = shapes[s][0], n = shapes[s][1];
        cfDense D;
        random_dense(&rng, m, n, &D);
        for (int k = 0; k < m * n; ++k)
            if (cf_rng_uniform(&rng) < 0.8) D.a[k] = 0.0; /* about 20 % dense */
        cfCsr A;
        dense_to_csr(&D, &A);
        double *x = new_vec(n), *y = new_vec(m), *u = new_vec(m), *v = new_vec(n), *ref = new_vec(m > n ? m : n);
        random_vec(&rng, n, -1, 1, x);
        random_vec(&rng, m, -1, 1, u);
        cf_csr_mul_vec(&A, x, y);
        cf_dense_mul_vec(&D, x, ref);
        ck_assert(max_abs_diff(m, y, ref) <= 1e-14);
        cf_csr_tmul_vec(&A, u, v);
        cf_dense_tmul_vec(&D, u, ref);
        ck_assert(max_abs_diff(n, v, ref) <= 1e-14);
        cf_csr_free(&A);
        cf_dense_free(&D);
        free(x), free(y), free(u), free(v), free(ref);
    }
}
END_TEST

START_TEST(csr_pin_dofs_keeps_symmetry)
{
    cfRng rng;
    cf_rng_seed(&rng, 23);
    const int n = 40;
    cfCsr A;
    random_sparse_spd(&rng, n, 6, &A);
    cfDense before;
    cft_assert_ok(cf_csr_to_dense(&A, &before));
    ck_assert(cf_csr_asymmetry(&A) == 0.0);
    const int dofs[] = {0, 7, 7, 39, 100, -1, 22}; /* repeats and out-of-range ones are ignored */
    bool pinned[40] = {false};
    pinned[0] = pinned[7] = pinned[39] = pinned[22] = true;
    cf_csr_pin_dofs(&A, 7, dofs);
    ck_assert(cf_csr_asymmetry(&A) == 0.0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double want = (pinned[i] || pinned[j]) ? (i == j ? 1.0 : 0.0) : *cf_dense_at(&before, i, j);
            cft_assert_at(cf_csr_get(&A, i, j) == want, "i = %d, j = %d", i, j);
        }
    /* certificate: with b = 0 on the pinned dofs, the solution vanishes there and solves the
       reduced system on the free dofs */
    double b[40], x[40], bf[40], xf[40];
    random_vec(&rng, n, -1, 1, b);
    for (int i = 0; i < n; ++i)
        if (pinned[i]) b[i] = 0.0;
    cfDense P, R;
    cft_assert_ok(cf_csr_to_dense(&A, &P));
    cft_assert_ok(cf_dense_solve(&P, b, x));
    int nf = 0, idx[40];
    for (int i = 0; i < n; ++i)
        if (!pinned[i]) idx[nf++] = i;
    cft_assert_ok(cf_dense_init(&R, nf, nf));
    for (int a = 0; a < nf; ++a) {
        bf[a] = b[idx[a]];
        for (int c = 0; c < nf; ++c) R.a[a * nf + c] = *cf_dense_at(&before, idx[a], idx[c]);
    }
    cft_assert_ok(cf_dense_solve(&R, bf, xf));
    for (int i = 0; i < n; ++i)
        if (pinned[i]) cft_assert_at(x[i] == 0.0, "i = %d", i);
    for (int a = 0; a < nf; ++a) cft_assert_near_at(x[idx[a]], xf[a], 1e-13, 1e-12, "a = %d", a);
    cf_dense_free(&P);
    cf_dense_free(&R);
    cf_dense_free(&before);
    cf_csr_free(&A);

    /* a pinned row without a stored diagonal gets one, in column order */
    cfTriplets t;
    cft_assert_ok(cf_triplets_init(&t, 4, 4));
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            if (i != j || i == 0) cft_assert_ok_at(cf_triplets_add(&t, i, j, 1.0 + i + j), "i = %d, j = %d", i, j);
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    int nnz = A.nnz;
    const int two[] = {2, 3};
    cf_csr_pin_dofs(&A, 2, two);
    ck_assert_int_eq(A.nnz, nnz + 2);
    ck_assert(cf_csr_get(&A, 2, 2) == 1.0 && cf_csr_get(&A, 3, 3) == 1.0);
    ck_assert(cf_csr_get(&A, 2, 0) == 0.0 && cf_csr_get(&A, 0, 3) == 0.0 && cf_csr_get(&A, 1, 0) == 2.0);
    ck_assert(cf_csr_asymmetry(&A) == 0.0);
    for (int i = 0; i < 4; ++i)
        for (int p = A.rowptr[i] + 1; p < A.rowptr[i + 1]; ++p) cft_assert_int_at(A.colidx[p - 1], <, A.colidx[p],
                                                                                  "p = %d", p);
    ck_assert_int_eq(A.rowptr[4], A.nnz);
    cf_csr_free(&A);
    cf_triplets_free(&t);
}
END_TEST

/* ---- BSR ----------------------------------------------------------------------------- */

START_TEST(bsr_products_match_dense)
{
    cfRng rng;
    cf_rng_seed(&rng, 31);
    const int brows = 7, bcols = 5, br = 3, bc = 6;
    cfBsr A;
    cfDense D;
    cft_assert_status(cf_bsr_init(&A, 2, 2, 0, 6), CF_BAD_INPUT);
    cft_assert_ok(cf_bsr_init(&A, brows, bcols, br, bc));
    cft_assert_ok(cf_dense_init(&D, brows * br, bcols * bc));
    double m[18];
    for (int bi = 0; bi < brows; ++bi) {
        if (bi == 2 || bi == 6) continue; /* empty block rows, the last one included */
        int order[5];
        random_permutation(&rng, bcols, order);
        int nblk = 1 + (int)cf_rng_below(&rng, 3);
        for (int k = 0; k < nblk + (bi == 4); ++k) {
            int bj = k < nblk ? order[k] : order[0]; /* row 4 repeats a position: blocks add up */
            random_vec(&rng, 18, -1, 1, m);
            cft_assert_ok_at(cf_bsr_add_block(&A, bi, bj, m), "bi = %d", bi);
            for (int r = 0; r < br; ++r)
                for (int c = 0; c < bc; ++c) *cf_dense_at(&D, bi * br + r, bj * bc + c) += m[r * bc + c];
        }
    }
    /* contract violations add nothing */
    int nnzb = A.nnzb;
    cft_assert_status(cf_bsr_add_block(&A, 3, 0, m), CF_BAD_INPUT); /* row went back */
    cft_assert_status(cf_bsr_add_block(&A, 5, 5, m), CF_BAD_INPUT); /* column out of range */
    cft_assert_status(cf_bsr_add_block(&A, 7, 0, m), CF_BAD_INPUT); /* row out of range */
    m[4] = NAN;
    cft_assert_status(cf_bsr_add_block(&A, 5, 0, m), CF_BAD_INPUT);
    ck_assert_int_eq(A.nnzb, nnzb);
    cf_bsr_finalize(&A);
    ck_assert_int_eq(A.rowptr[0], 0);
    ck_assert_int_eq(A.rowptr[brows], A.nnzb);
    cfDense E;
    cft_assert_ok(cf_bsr_to_dense(&A, &E));
    ck_assert(max_abs_diff(D.rows * D.cols, E.a, D.a) == 0.0);
    double x[30], y[21], u[21], v[30], ref[30];
    random_vec(&rng, 30, -1, 1, x);
    random_vec(&rng, 21, -1, 1, u);
    cf_bsr_mul_vec(&A, x, y);
    cf_dense_mul_vec(&D, x, ref);
    ck_assert(max_abs_diff(21, y, ref) <= 1e-14);
    cf_bsr_tmul_vec(&A, u, v);
    cf_dense_tmul_vec(&D, u, ref);
    ck_assert(max_abs_diff(30, v, ref) <= 1e-14);
    cf_bsr_free(&A);
    cf_bsr_free(&A);
    cf_dense_free(&D);
    cf_dense_free(&E);
}
END_TEST

/* ---- conjugate gradients ------------------------------------------------------------- */

static void dense_matvec(void *ctx, const double *x, double *y) { cf_dense_mul_vec((const cfDense *)ctx, x, y); }
static void csr_matvec(void *ctx, const double *x, double *y) { cf_csr_mul_vec((const cfCsr *)ctx, x, y); }

START_TEST(cg_converges_to_dense_solution)
{
    cfRng rng;
    cf_rng_seed(&rng, 41);
    const int n = 60;
    cfDense D;
    random_spd(&rng, n, n, &D);
    cfCsr A;
    dense_to_csr(&D, &A);
    double b[60], x[60], xd[60], hist[600];
    random_vec(&rng, n, -1, 1, b);
    cft_assert_ok(cf_dense_solve(&D, b, xd));

    cfCgOptions opt = cf_cg_options_default(n);
    ck_assert_int_eq(opt.max_iter, 10 * n);
    opt.tol_rel = 1e-12;
    cfReport rep;
    cf_report_init(&rep, hist, 600);
    cf_vec_zero(n, x);
    cft_assert_ok(cf_csr_cg(&A, b, x, &opt, &rep));
    ck_assert_int_eq(rep.status, CF_OK);
    ck_assert_int_eq(rep.reason, CF_STOP_RELATIVE);
    ck_assert_int_gt(rep.iterations, 0);
    ck_assert_int_le(rep.iterations, n); /* well conditioned: far fewer than n in practice */
    ck_assert_int_eq(rep.history_len, rep.iterations);
    /* the reported residual is the true one, below the tolerance */
    cft_assert_near(rep.residual, csr_residual(&A, x, b), 1e-15, 1e-10);
    ck_assert(rep.residual <= 1e-12 * cf_vec_norm(n, b));
    ck_assert(rep.history[rep.history_len - 1] <= 1e-12 * cf_vec_norm(n, b));
    ck_assert(max_abs_diff(n, x, xd) <= 1e-10 * cf_vec_norm_inf(n, xd));

    /* matrix-free, with and without the preconditioner: the same solution */
    double d[60], x2[60];
    for (int i = 0; i < n; ++i) d[i] = D.a[i * n + i];
    cf_vec_zero(n, x2);
    cft_assert_ok(cf_cg(n, dense_matvec, &D, b, x2, NULL, &opt, NULL));
    ck_assert(max_abs_diff(n, x2, xd) <= 1e-10 * cf_vec_norm_inf(n, xd));
    cf_vec_zero(n, x2);
    cft_assert_ok(cf_cg(n, dense_matvec, &D, b, x2, d, NULL, NULL));
    ck_assert(max_abs_diff(n, x2, xd) <= 1e-8 * cf_vec_norm_inf(n, xd)); /* default tol 1e-10 */

    /* warm start at the solution: nothing to do */
    cf_report_init(&rep, hist, 600);
    cft_assert_ok(cf_csr_cg(&A, b, x, &opt, &rep));
    ck_assert_int_eq(rep.iterations, 0);
    ck_assert_int_eq(rep.history_len, 0);
    /* b = 0 from x = 0: converged at once (absolute tolerance) */
    double zero[60] = {0}, xz[60] = {0};
    cft_assert_ok(cf_csr_cg(&A, zero, xz, NULL, &rep));
    ck_assert_int_eq(rep.iterations, 0);
    ck_assert(cf_vec_norm(n, xz) == 0.0);
    /* a history buffer shorter than the run keeps its first entries */
    cf_report_init(&rep, hist, 3);
    cf_vec_zero(n, x);
    cft_assert_ok(cf_csr_cg(&A, b, x, &opt, &rep));
    ck_assert_int_eq(rep.history_len, 3);
    ck_assert_int_gt(rep.iterations, 3);
    cf_csr_free(&A);
    cf_dense_free(&D);
}
END_TEST

START_TEST(cg_jacobi_preconditioner)
{
    /* a diagonal matrix with spread-out entries: plain CG needs one iteration per distinct
       eigenvalue, Jacobi-preconditioned CG one in all (M^{-1} A = I) */
    const int n = 30;
    cfTriplets t;
    cfCsr A;
    cft_assert_ok(cf_triplets_init(&t, n, n));
    for (int i = 0; i < n; ++i) cft_assert_ok_at(cf_triplets_add(&t, i, i, pow(1.5, i)), "i = %d", i);
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    double b[30], x[30], d[30];
    for (int i = 0; i < n; ++i) b[i] = 1.0;
    cf_csr_diagonal(&A, d);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cf_vec_zero(n, x);
    cft_assert_ok(cf_csr_cg(&A, b, x, NULL, &rep));
    ck_assert_int_eq(rep.iterations, 1);
    ck_assert_int_eq(rep.history_len, 0); /* no buffer given */
    for (int i = 0; i < n; ++i) cft_assert_near_at(x[i], 1.0 / d[i], 0, 1e-14, "i = %d", i);
    cf_vec_zero(n, x);
    cfCgOptions opt = cf_cg_options_default(n);
    cft_assert_status(cf_cg(n, NULL, &A, b, x, NULL, &opt, &rep), CF_BAD_INPUT); /* no operator */
    opt.tol_rel = NAN;
    cft_assert_status(cf_cg(n, csr_matvec, &A, b, x, NULL, &opt, &rep), CF_BAD_INPUT);
    ck_assert_int_eq(rep.status, CF_BAD_INPUT);
    cf_csr_free(&A);
    cf_triplets_free(&t);
}
END_TEST

START_TEST(cg_reports_indefinite_and_iteration_cap)
{
    cfRng rng;
    cf_rng_seed(&rng, 42);
    const int n = 40;
    /* indefinite: S - 2 lambda_mid I has negative eigenvalues; b along an eigenvector of a
       negative one makes the very first curvature p^T A p negative */
    cfDense S, V;
    random_spd(&rng, n, 0.0, &S);
    double lam[40], b[40], x[40], hist[400];
    cft_assert_ok(cf_dense_sym_eig(&S, lam, &V));
    for (int i = 0; i < n; ++i) S.a[i * n + i] -= lam[n / 2];
    for (int i = 0; i < n; ++i) b[i] = V.a[i * n + 0]; /* eigenvalue lam[0] - lam[n/2] < 0 */
    cfCsr A;
    dense_to_csr(&S, &A);
    cfReport rep;
    cf_report_init(&rep, hist, 400);
    cf_vec_zero(n, x);
    cft_assert_status(cf_csr_cg(&A, b, x, NULL, &rep), CF_DIVERGED);
    ck_assert_int_eq(rep.status, CF_DIVERGED);
    ck_assert_int_eq(rep.reason, CF_STOP_DIVERGENCE);
    ck_assert_int_eq(rep.history_len, rep.iterations);
    cft_assert_finite(rep.residual);
    /* negative definite: diverged as well, for a random right-hand side */
    for (int k = 0; k < A.nnz; ++k) A.val[k] = -A.val[k];
    for (int i = 0; i < A.rows; ++i)
        for (int p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p)
            if (A.colidx[p] == i) A.val[p] -= 2.0 * lam[n - 1];
    random_vec(&rng, n, -1, 1, b);
    cf_vec_zero(n, x);
    cft_assert_status(cf_csr_cg(&A, b, x, NULL, &rep), CF_DIVERGED);
    cf_csr_free(&A);

    /* iteration cap: an SPD system that needs more than 3 iterations */
    cf_dense_free(&S);
    random_spd(&rng, n, 1.0, &S);
    dense_to_csr(&S, &A);
    cfCgOptions opt = cf_cg_options_default(n);
    opt.max_iter = 3;
    cf_report_init(&rep, hist, 400);
    cf_vec_zero(n, x);
    cft_assert_status(cf_csr_cg(&A, b, x, &opt, &rep), CF_MAX_ITER);
    ck_assert_int_eq(rep.reason, CF_STOP_MAX_ITER);
    ck_assert_int_eq(rep.iterations, 3);
    ck_assert_int_eq(rep.history_len, 3);
    ck_assert(rep.residual > opt.tol_rel * cf_vec_norm(n, b));
    cft_assert_near(rep.residual, csr_residual(&A, x, b), 1e-15, 1e-10);

    /* non-finite input: refused, x untouched */
    for (int i = 0; i < n; ++i) x[i] = 3.0;
    b[5] = NAN;
    cft_assert_status(cf_csr_cg(&A, b, x, &opt, &rep), CF_BAD_INPUT);
    ck_assert_int_eq(rep.status, CF_BAD_INPUT);
    b[5] = 0.0;
    x[2] = INFINITY;
    cft_assert_status(cf_csr_cg(&A, b, x, &opt, &rep), CF_BAD_INPUT);
    x[2] = 3.0;
    A.val[A.nnz / 2] = NAN;
    cft_assert_status(cf_csr_cg(&A, b, x, &opt, &rep), CF_BAD_INPUT);
    for (int i = 0; i < n; ++i) cft_assert_at(x[i] == 3.0, "i = %d", i);
    cf_csr_free(&A);
    cf_dense_free(&S);
    cf_dense_free(&V);
}
END_TEST

/* ---- sparse Cholesky ----------------------------------------------------------------- */

/* factor A with the given ordering, solve, compare with the dense LU solve */
static void check_chol_against_dense(const cfCsr *A, cfCholOrdering ord, cfRng *rng)
{
    int n = A->rows;
    cfSparseChol *F = NULL;
    cft_assert_ok(cf_sparse_chol_factor_ordered(A, ord, &F));
    ck_assert_ptr_nonnull(F);
    double *b = new_vec(n), *x = new_vec(n), *xd = new_vec(n);
    random_vec(rng, n, -1, 1, b);
    cf_sparse_chol_solve(F, b, x);
    cfDense D;
    cft_assert_ok(cf_csr_to_dense(A, &D));
    cft_assert_ok(cf_dense_solve(&D, b, xd));
    ck_assert_msg(max_abs_diff(n, x, xd) <= 1e-12 * cf_vec_norm_inf(n, xd), "n=%d ordering %d: %g", n, (int)ord,
                  max_abs_diff(n, x, xd));
    /* b and x may alias */
    cf_sparse_chol_solve(F, b, b);
    ck_assert(max_abs_diff(n, b, x) == 0.0);
    /* L has at least the lower triangle of A and at most a full triangle */
    long lower = 0;
    for (int i = 0; i < n; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) lower += A->colidx[p] <= i;
    ck_assert(cf_sparse_chol_nnz(F) >= lower);
    ck_assert(cf_sparse_chol_nnz(F) <= (long)n * (n + 1) / 2);
    cf_sparse_chol_free(F);
    cf_dense_free(&D);
    free(b), free(x), free(xd);
}

START_TEST(sparse_chol_matches_dense_solve)
{
    cfRng rng;
    cf_rng_seed(&rng, 51);
    cfCsr A;
    /* 3D grid Laplacian + shift */
    grid_laplacian(6, 5, 4, 0.1, NULL, &A);
    check_chol_against_dense(&A, CF_CHOL_ORDER_RCM, &rng);
    check_chol_against_dense(&A, CF_CHOL_ORDER_NATURAL, &rng);
    check_chol_against_dense(&A, CF_CHOL_ORDER_ND, &rng);
    cf_csr_free(&A);
    /* random sparse SPD matrices of a few densities */
    const int per_row[] = {2, 5, 12};
    for (int k = 0; k < 3; ++k) {
        random_sparse_spd(&rng, 150, per_row[k], &A);
        check_chol_against_dense(&A, CF_CHOL_ORDER_RCM, &rng);
        check_chol_against_dense(&A, CF_CHOL_ORDER_ND, &rng);
        check_chol_against_dense(&A, CF_CHOL_ORDER_NATURAL, &rng);
        cf_csr_free(&A);
    }
    /* a dense SPD matrix stored as CSR (no sparsity at all) */
    cfDense D;
    random_spd(&rng, 50, 1.0, &D);
    dense_to_csr(&D, &A);
    check_chol_against_dense(&A, CF_CHOL_ORDER_RCM, &rng);
    cf_csr_free(&A);
    cf_dense_free(&D);
    /* several connected components, isolated nodes among them: two shuffled grids and a
       diagonal, interleaved */
    cfTriplets t;
    const int n = 2 * 27 + 10;
    int perm[64];
    random_permutation(&rng, n, perm);
    cft_assert_ok(cf_triplets_init(&t, n, n));
    cfCsr G;
    grid_laplacian(3, 3, 3, 0.5, NULL, &G);
    for (int copy = 0; copy < 2; ++copy)
        for (int i = 0; i < 27; ++i)
            for (int p = G.rowptr[i]; p < G.rowptr[i + 1]; ++p)
                cft_assert_ok_at(cf_triplets_add(&t, perm[copy * 27 + i], perm[copy * 27 + G.colidx[p]], G.val[p]),
                                 "copy = %d, i = %d, p = %d", copy, i, p);
    for (int i = 54; i < n; ++i) cft_assert_ok_at(cf_triplets_add(&t, perm[i], perm[i], 2.0 + i), "i = %d", i);
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    check_chol_against_dense(&A, CF_CHOL_ORDER_RCM, &rng);
    check_chol_against_dense(&A, CF_CHOL_ORDER_NATURAL, &rng);
    cf_csr_free(&A);
    cf_csr_free(&G);
    cf_triplets_free(&t);
    /* the default entry point is the RCM one */
    random_sparse_spd(&rng, 80, 4, &A);
    cfSparseChol *F1, *F2;
    cft_assert_ok(cf_sparse_chol_factor(&A, &F1));
    cft_assert_ok(cf_sparse_chol_factor_ordered(&A, CF_CHOL_ORDER_RCM, &F2));
    ck_assert_int_eq(cf_sparse_chol_nnz(F1), cf_sparse_chol_nnz(F2));
    cf_sparse_chol_free(F1);
    cf_sparse_chol_free(F2);
    cf_sparse_chol_free(NULL);
    cf_csr_free(&A);
}
END_TEST

START_TEST(sparse_chol_refuses_bad_matrices)
{
    cfRng rng;
    cf_rng_seed(&rng, 52);
    cfCsr A;
    cfSparseChol *F = (cfSparseChol *)&rng; /* must be reset to NULL on failure */
    /* indefinite: a grid Laplacian shifted down past its smallest eigenvalue
       (6 - 6 cos(pi/5) = 1.146 for a 4x4x4 grid) */
    grid_laplacian(4, 4, 4, -2.0, NULL, &A);
    cft_assert_status(cf_sparse_chol_factor(&A, &F), CF_SINGULAR);
    ck_assert_ptr_null(F);
    cf_csr_free(&A);
    /* singular positive semidefinite: the graph Laplacian of a path (rows sum to zero) */
    cfTriplets t;
    const int n = 50;
    cft_assert_ok(cf_triplets_init(&t, n, n));
    for (int i = 0; i + 1 < n; ++i) {
        cft_assert_ok_at(cf_triplets_add(&t, i, i, 1.0), "i = %d", i);
        cft_assert_ok_at(cf_triplets_add(&t, i + 1, i + 1, 1.0), "i = %d", i);
        cft_assert_ok_at(cf_triplets_add(&t, i, i + 1, -1.0), "i = %d", i);
        cft_assert_ok_at(cf_triplets_add(&t, i + 1, i, -1.0), "i = %d", i);
    }
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    cft_assert_status(cf_sparse_chol_factor(&A, &F), CF_SINGULAR);
    cft_assert_status(cf_sparse_chol_factor_ordered(&A, CF_CHOL_ORDER_NATURAL, &F), CF_SINGULAR);
    cf_csr_free(&A);
    /* not symmetric: only one triangle stored */
    cf_triplets_clear(&t);
    for (int i = 0; i < n; ++i) {
        cft_assert_ok_at(cf_triplets_add(&t, i, i, 4.0), "i = %d", i);
        if (i > 0) cft_assert_ok_at(cf_triplets_add(&t, i, i - 1, -1.0), "i = %d", i);
    }
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    ck_assert(cf_csr_asymmetry(&A) == 1.0);
    cft_assert_status(cf_sparse_chol_factor(&A, &F), CF_BAD_INPUT);
    cf_csr_free(&A);
    /* non-finite entry, non-square */
    random_sparse_spd(&rng, 30, 4, &A);
    A.val[A.nnz / 3] = NAN;
    cft_assert_status(cf_sparse_chol_factor(&A, &F), CF_BAD_INPUT);
    cf_csr_free(&A);
    cf_triplets_free(&t);
    cft_assert_ok(cf_triplets_init(&t, 3, 4));
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    cft_assert_status(cf_sparse_chol_factor(&A, &F), CF_BAD_INPUT);
    int perm[3];
    cft_assert_status(cf_csr_rcm(&A, perm), CF_BAD_INPUT);
    cf_csr_free(&A);
    cf_triplets_free(&t);
    /* the empty matrix factors trivially */
    cft_assert_ok(cf_triplets_init(&t, 0, 0));
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    cft_assert_ok(cf_sparse_chol_factor(&A, &F));
    ck_assert_int_eq(cf_sparse_chol_nnz(F), 0);
    cf_sparse_chol_solve(F, NULL, NULL);
    cf_sparse_chol_free(F);
    cf_csr_free(&A);
    cf_triplets_free(&t);
}
END_TEST

START_TEST(sparse_chol_symbolic_count)
{
    /* The symbolic phase predicts the pattern of L from the elimination tree. A dense Cholesky
       of P A P^T with random values has no exact cancellation, so its nonzeros are exactly
       that pattern: the counts must agree, for both orderings. */
    cfRng rng;
    cf_rng_seed(&rng, 55);
    const int n = 70;
    for (int trial = 0; trial < 3; ++trial) {
        cfCsr A;
        random_sparse_spd(&rng, n, 3 + 2 * trial, &A);
        for (int o = 0; o < 2; ++o) {
            int perm[70];
            if (o == 0)
                cft_assert_ok(cf_csr_rcm(&A, perm));
            else
                for (int k = 0; k < n; ++k) perm[k] = k;
            cfDense P, L;
            cft_assert_ok(cf_dense_init(&P, n, n));
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c) P.a[r * n + c] = cf_csr_get(&A, perm[r], perm[c]);
            cft_assert_ok(cf_dense_cholesky(&P, &L));
            long count = 0;
            for (int k = 0; k < n * n; ++k) count += L.a[k] != 0.0;
            cfSparseChol *F;
            cft_assert_ok_at(cf_sparse_chol_factor_ordered(&A, o == 0 ? CF_CHOL_ORDER_RCM : CF_CHOL_ORDER_NATURAL, &F),
                             "o = %d", o);
            ck_assert_int_eq(cf_sparse_chol_nnz(F), count);
            cf_sparse_chol_free(F);
            cf_dense_free(&P);
            cf_dense_free(&L);
        }
        cf_csr_free(&A);
    }
}
END_TEST

/* bandwidth and profile of P A P^T (perm[k] = old index of new k), lower triangle */
static void band_profile(const cfCsr *A, const int *perm, int *bandwidth, long *profile)
{
    int n = A->rows;
    int *pinv = malloc((size_t)n * sizeof *pinv), *first = malloc((size_t)n * sizeof *first);
    for (int k = 0; k < n; ++k) {
        pinv[perm[k]] = k;
        first[k] = k;
    }
    *bandwidth = 0;
    for (int i = 0; i < n; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            int r = pinv[i], c = pinv[A->colidx[p]];
            if (c < first[r]) first[r] = c;
            if (r - c > *bandwidth) *bandwidth = r - c;
        }
    *profile = 0;
    for (int k = 0; k < n; ++k) *profile += k - first[k];
    free(pinv);
    free(first);
}

static long chol_nnz(const cfCsr *A, cfCholOrdering ord)
{
    cfSparseChol *F;
    cft_assert_ok(cf_sparse_chol_factor_ordered(A, ord, &F));
    long nnz = cf_sparse_chol_nnz(F);
    cf_sparse_chol_free(F);
    return nnz;
}

START_TEST(rcm_ordering_reduces_fill)
{
    cfRng rng;
    cf_rng_seed(&rng, 53);
    const int k = 10, n = k * k * k;
    int *label = malloc((size_t)n * sizeof *label), *perm = malloc((size_t)n * sizeof *perm);
    int *ident = malloc((size_t)n * sizeof *ident);
    for (int i = 0; i < n; ++i) ident[i] = i;
    cfCsr A, S;
    grid_laplacian(k, k, k, 0.0, NULL, &A);
    random_permutation(&rng, n, label);
    grid_laplacian(k, k, k, 0.0, label, &S); /* the same grid, randomly numbered */

    /* RCM returns a permutation */
    cft_assert_ok(cf_csr_rcm(&S, perm));
    bool *seen = calloc((size_t)n, sizeof *seen);
    for (int i = 0; i < n; ++i) {
        cft_assert_at(perm[i] >= 0 && perm[i] < n && !seen[perm[i]], "i = %d", i);
        seen[perm[i]] = true;
    }
    free(seen);
    /* Bandwidth: Cuthill-McKee numbers level by level of a breadth-first search, and grid
       neighbours lie in the same or adjacent levels, so the bandwidth is below twice the widest
       level. From a corner the levels are the planes x+y+z = c, at most 3k^2/4 nodes: bound 1.5
       k^2 (the lexicographic numbering has k^2; the random one about n). */
    int bw_rcm, bw_lex, bw_rand;
    long prof_rcm, prof_lex, prof_rand;
    band_profile(&S, perm, &bw_rcm, &prof_rcm);
    band_profile(&A, ident, &bw_lex, &prof_lex);
    band_profile(&S, ident, &bw_rand, &prof_rand);
    ck_assert_int_eq(bw_lex, k * k);
    ck_assert_msg(bw_rcm <= 3 * k * k / 2, "RCM bandwidth %d", bw_rcm);
    ck_assert_int_gt(bw_rand, n / 2);
    ck_assert(prof_rcm <= prof_lex);

    /* Fill: the Cholesky factor stays inside the profile (envelope) of the ordered matrix,
       nnz(L) <= profile + n, with either ordering; RCM is no worse than the lexicographic
       numbering and much better than a random one */
    long fill_rcm = chol_nnz(&S, CF_CHOL_ORDER_RCM), fill_rand = chol_nnz(&S, CF_CHOL_ORDER_NATURAL);
    long fill_lex = chol_nnz(&A, CF_CHOL_ORDER_NATURAL), fill_lex_rcm = chol_nnz(&A, CF_CHOL_ORDER_RCM);
    ck_assert(fill_rcm <= prof_rcm + n);
    ck_assert(fill_lex <= prof_lex + n);
    ck_assert(fill_rand <= prof_rand + n);
    ck_assert_msg(fill_lex_rcm <= fill_lex, "grid: RCM %ld, natural %ld", fill_lex_rcm, fill_lex);
    ck_assert_msg(fill_rcm <= fill_lex, "shuffled grid: RCM %ld, lexicographic %ld", fill_rcm, fill_lex);
    ck_assert_msg(2 * fill_rcm <= fill_rand, "shuffled grid: RCM %ld, random %ld", fill_rcm, fill_rand);
    cf_csr_free(&A);
    cf_csr_free(&S);
    free(label);
    free(perm);
    free(ident);
}
END_TEST

START_TEST(sparse_chol_large_grid)
{
    /* a 15^3 grid Laplacian + shift (n = 3375): Cholesky with both orderings against CG */
    const int k = 15, n = k * k * k;
    cfRng rng;
    cf_rng_seed(&rng, 54);
    cfCsr A;
    grid_laplacian(k, k, k, 1.0, NULL, &A);
    double *b = new_vec(n), *x = new_vec(n), *xn = new_vec(n), *xcg = new_vec(n);
    random_vec(&rng, n, -1, 1, b);
    cfSparseChol *F, *Fn;
    cft_assert_ok(cf_sparse_chol_factor(&A, &F));
    cft_assert_ok(cf_sparse_chol_factor_ordered(&A, CF_CHOL_ORDER_NATURAL, &Fn));
    ck_assert(cf_sparse_chol_nnz(F) <= cf_sparse_chol_nnz(Fn));
    cf_sparse_chol_solve(F, b, x);
    cf_sparse_chol_solve(Fn, b, xn);
    double bn = cf_vec_norm(n, b);
    ck_assert_msg(csr_residual(&A, x, b) <= 1e-13 * bn, "residual %g", csr_residual(&A, x, b));
    ck_assert(csr_residual(&A, xn, b) <= 1e-13 * bn);
    /* an independent method: CG to 1e-13; cond(A) < 13 so the error is below 13e-13 ||x|| */
    cfCgOptions opt = cf_cg_options_default(n);
    opt.tol_rel = 1e-13;
    cft_assert_ok(cf_csr_cg(&A, b, xcg, &opt, NULL));
    ck_assert(max_abs_diff(n, x, xcg) <= 1e-11 * cf_vec_norm_inf(n, x));
    ck_assert(max_abs_diff(n, x, xn) <= 1e-12 * cf_vec_norm_inf(n, x));
    cf_sparse_chol_free(F);
    cf_sparse_chol_free(Fn);
    cf_csr_free(&A);
    free(b), free(x), free(xn), free(xcg);
}
END_TEST

/* a cloth-like matrix: @p copies separate k x k grids of nodes, each node a 3 x 3 block, coupled to
   its 8 neighbours (the stencil of a cloth's edge and diagonal springs), diagonally dominant */
static void block_grid(int k, int copies, cfCsr *A)
{
    int n = copies * k * k;
    cfTriplets t;
    cft_assert_ok(cf_triplets_init(&t, 3 * n, 3 * n));
    for (int c = 0; c < copies; ++c)
        for (int j = 0; j < k; ++j)
            for (int i = 0; i < k; ++i) {
                int a = c * k * k + j * k + i;
                double d[9] = {20, 1, 0, 1, 20, 1, 0, 1, 20};
                cft_assert_ok_at(cf_triplets_add_block3(&t, a, a, d), "c = %d, i = %d, j = %d", c, i, j);
                for (int dj = -1; dj <= 1; ++dj)
                    for (int di = -1; di <= 1; ++di) {
                        int ii = i + di, jj = j + dj;
                        if ((di == 0 && dj == 0) || ii < 0 || jj < 0 || ii >= k || jj >= k) continue;
                        double o[9] = {-1, 0, 0, 0, -1, 0, 0, 0, -1};
                        cft_assert_ok_at(cf_triplets_add_block3(&t, a, c * k * k + jj * k + ii, o), "c = %d, i = %d, j = %d", c, i, j);
                    }
            }
    cft_assert_ok(cf_csr_from_triplets(&t, A));
    cf_triplets_free(&t);
}

START_TEST(nested_dissection_ordering)
{
    /* two 40 x 40 grids of 3 x 3 blocks (9600 unknowns, two components) */
    cfCsr A;
    block_grid(40, 2, &A);
    int n = A.rows, *perm = malloc((size_t)n * sizeof *perm);
    cft_assert_ok(cf_csr_nested_dissection(&A, perm));
    /* a permutation that keeps each node's three rows together and in order */
    bool *seen = calloc((size_t)n, sizeof *seen);
    for (int i = 0; i < n; ++i) {
        cft_assert_at(perm[i] >= 0 && perm[i] < n && !seen[perm[i]], "i = %d", i);
        seen[perm[i]] = true;
        if (i % 3 > 0) cft_assert_at(perm[i] == perm[i - 1] + 1, "i = %d", i);
    }
    free(seen);
    /* fill: on a 2D mesh nested dissection's factor is smaller than RCM's band (measured: 0.50 of
       RCM's here, 0.46 on bench_ch09's 100 x 100 cloth, the ratio falling with k) and the solves agree */
    long fill_nd = chol_nnz(&A, CF_CHOL_ORDER_ND), fill_rcm = chol_nnz(&A, CF_CHOL_ORDER_RCM);
    ck_assert_msg(3 * fill_nd <= 2 * fill_rcm, "fill: ND %ld, RCM %ld", fill_nd, fill_rcm);
    cfRng rng;
    cf_rng_seed(&rng, 55);
    double *b = new_vec(n), *x = new_vec(n), *xr = new_vec(n);
    random_vec(&rng, n, -1, 1, b);
    cfSparseChol *F, *Fr;
    cft_assert_ok(cf_sparse_chol_factor_ordered(&A, CF_CHOL_ORDER_ND, &F));
    cft_assert_ok(cf_sparse_chol_factor_ordered(&A, CF_CHOL_ORDER_RCM, &Fr));
    cf_sparse_chol_solve(F, b, x);
    cf_sparse_chol_solve(Fr, b, xr);
    ck_assert_msg(csr_residual(&A, x, b) <= 1e-13 * cf_vec_norm(n, b), "residual %g", csr_residual(&A, x, b));
    ck_assert(max_abs_diff(n, x, xr) <= 1e-12 * cf_vec_norm_inf(n, x));
    cf_sparse_chol_free(F), cf_sparse_chol_free(Fr);
    cf_csr_free(&A);
    /* small ones: a single node and a 2 x 2 grid are leaves, numbered as they are */
    block_grid(1, 1, &A);
    cft_assert_ok(cf_csr_nested_dissection(&A, perm));
    ck_assert(perm[0] == 0 && perm[1] == 1 && perm[2] == 2);
    cf_csr_free(&A);
    free(perm), free(b), free(x), free(xr);
}
END_TEST

/* ---- supernodal Cholesky against the up-looking reference ---------------------------------- */

/* the supernodal factor of A under @p ord solves as the reference does (1e-12 relative), with the
   reference's nnz(L); then A's values changed (2 A + diag(1 + i/n)) are refactored on the same
   analysis and solve as the reference's factor of the new values */
static void check_super_against_reference(cfCsr *A, cfCholOrdering ord, cfRng *rng)
{
    int n = A->rows;
    double *b = new_vec(n), *x = new_vec(n), *xr = new_vec(n);
    cfCholSuper *S = NULL;
    cft_assert_ok(cf_chol_super_analyze(A, ord, &S));
    ck_assert(cf_chol_super_pattern_is(S, A) && !cf_chol_super_factored(S));
    for (int round = 0; round < 2; ++round) {
        cfSparseChol *R = NULL;
        cft_assert_ok(cf_sparse_chol_factor_ordered(A, ord, &R));
        cft_assert_ok(cf_chol_super_factor(S, A));
        ck_assert(cf_chol_super_factored(S));
        ck_assert_int_eq(cf_chol_super_nnz(S), cf_sparse_chol_nnz(R));
        random_vec(rng, n, -1, 1, b);
        cf_sparse_chol_solve(R, b, xr);
        cf_chol_super_solve(S, b, x);
        ck_assert_msg(max_abs_diff(n, x, xr) <= 1e-12 * cf_vec_norm_inf(n, xr), "n=%d ordering %d round %d: %g", n,
                      (int)ord, round, max_abs_diff(n, x, xr));
        cf_chol_super_solve(S, b, b); /* b and x may alias */
        ck_assert(max_abs_diff(n, b, x) == 0.0);
        cf_sparse_chol_free(R);
        for (int i = 0; i < n; ++i)
            for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) A->val[p] = 2.0 * A->val[p] + (A->colidx[p] == i ? 1.0 + (double)i / n : 0.0);
    }
    cf_chol_super_free(S);
    free(b), free(x), free(xr);
}

START_TEST(chol_super_matches_reference)
{
    cfRng rng;
    cf_rng_seed(&rng, 56);
    cfCsr A;
    const cfCholOrdering ords[] = {CF_CHOL_ORDER_RCM, CF_CHOL_ORDER_NATURAL, CF_CHOL_ORDER_ND};
    grid_laplacian(6, 5, 4, 0.1, NULL, &A);
    for (int o = 0; o < 3; ++o) check_super_against_reference(&A, ords[o], &rng);
    cf_csr_free(&A);
    const int per_row[] = {2, 5, 12};
    for (int k = 0; k < 3; ++k) {
        random_sparse_spd(&rng, 150, per_row[k], &A);
        for (int o = 0; o < 3; ++o) check_super_against_reference(&A, ords[o], &rng);
        cf_csr_free(&A);
    }
    cfDense D;
    random_spd(&rng, 60, 1.0, &D); /* dense: one supernode */
    dense_to_csr(&D, &A);
    check_super_against_reference(&A, CF_CHOL_ORDER_ND, &rng);
    cf_csr_free(&A);
    cf_dense_free(&D);
    /* a cloth-like matrix of two components (many subtrees), and a single node */
    block_grid(30, 2, &A);
    for (int o = 0; o < 3; ++o) check_super_against_reference(&A, ords[o], &rng);
    cf_csr_free(&A);
    block_grid(1, 1, &A);
    check_super_against_reference(&A, CF_CHOL_ORDER_ND, &rng);
    cf_csr_free(&A);
    cf_chol_super_free(NULL);
}
END_TEST

START_TEST(chol_super_refuses_as_the_reference)
{
    cfRng rng;
    cf_rng_seed(&rng, 57);
    cfCsr A, B;
    cfCholSuper *S = NULL;
    cfSparseChol *R = NULL;
    /* indefinite, then the same pattern positive definite: the analysis survives a failure */
    grid_laplacian(4, 4, 4, -2.0, NULL, &A);
    cft_assert_status(cf_sparse_chol_factor_ordered(&A, CF_CHOL_ORDER_ND, &R), CF_SINGULAR);
    cft_assert_ok(cf_chol_super_analyze(&A, CF_CHOL_ORDER_ND, &S));
    cft_assert_status(cf_chol_super_factor(S, &A), CF_SINGULAR);
    ck_assert(!cf_chol_super_factored(S));
    for (int i = 0; i < A.rows; ++i)
        for (int p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p)
            if (A.colidx[p] == i) A.val[p] += 2.5;
    cft_assert_ok(cf_chol_super_factor(S, &A));
    ck_assert(cf_chol_super_factored(S));
    /* another pattern: refused, the factor dropped */
    grid_laplacian(4, 4, 3, 0.5, NULL, &B);
    ck_assert(!cf_chol_super_pattern_is(S, &B));
    cft_assert_status(cf_chol_super_factor(S, &B), CF_BAD_INPUT);
    ck_assert(!cf_chol_super_factored(S));
    cf_chol_super_free(S);
    cf_csr_free(&B);
    /* not symmetric, non-finite: refused as the reference does */
    cft_assert_ok(cf_chol_super_analyze(&A, CF_CHOL_ORDER_RCM, &S));
    A.val[1] += 0.5;
    cft_assert_status(cf_sparse_chol_factor_ordered(&A, CF_CHOL_ORDER_RCM, &R), CF_BAD_INPUT);
    cft_assert_status(cf_chol_super_factor(S, &A), CF_BAD_INPUT);
    A.val[1] = NAN;
    cft_assert_status(cf_chol_super_factor(S, &A), CF_BAD_INPUT);
    cf_chol_super_free(S);
    cf_csr_free(&A);
    /* singular positive semidefinite: a path's graph Laplacian */
    cfTriplets t;
    const int n = 50;
    cft_assert_ok(cf_triplets_init(&t, n, n));
    for (int i = 0; i + 1 < n; ++i) {
        cft_assert_ok_at(cf_triplets_add(&t, i, i, 1.0), "i = %d", i);
        cft_assert_ok_at(cf_triplets_add(&t, i + 1, i + 1, 1.0), "i = %d", i);
        cft_assert_ok_at(cf_triplets_add(&t, i, i + 1, -1.0), "i = %d", i);
        cft_assert_ok_at(cf_triplets_add(&t, i + 1, i, -1.0), "i = %d", i);
    }
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    const cfCholOrdering ords[] = {CF_CHOL_ORDER_RCM, CF_CHOL_ORDER_NATURAL, CF_CHOL_ORDER_ND};
    /* Its last pivot is 0 plus rounding, of either sign or size: with RCM and the natural order both
       refuse it; with nested dissection the reference takes its pivot (1e-16 or so, above
       DBL_EPSILON: a solution of 4e16), the supernodal one (another order of the same operations)
       refuses. So the exactly singular matrix checked under every ordering is the path's Laplacian
       with its last row and column zero (the first a "pinned" dof left all zero): pivot 0 exactly. */
    for (int o = 0; o < 2; ++o) {
        cft_assert_status_at(cf_sparse_chol_factor_ordered(&A, ords[o], &R), CF_SINGULAR, "ordering %d", o);
        cft_assert_ok_at(cf_chol_super_analyze(&A, ords[o], &S), "o = %d", o);
        cft_assert_status_at(cf_chol_super_factor(S, &A), CF_SINGULAR, "ordering %d", o);
        cf_chol_super_free(S);
    }
    for (int i = 0; i < n; ++i)
        for (int p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p)
            if (i == n - 1 || A.colidx[p] == n - 1) A.val[p] = 0.0;
            else if (i == n - 2 && A.colidx[p] == i) A.val[p] = 1.0; /* the rest stays a path's Laplacian plus one spring to ground... */
    for (int p = A.rowptr[0]; p < A.rowptr[1]; ++p)
        if (A.colidx[p] == 0) A.val[p] = 2.0; /* ...at node 0: positive definite but for the zero row */
    for (int o = 0; o < 3; ++o) {
        cft_assert_status_at(cf_sparse_chol_factor_ordered(&A, ords[o], &R), CF_SINGULAR, "zero row, ordering %d", o);
        cft_assert_ok_at(cf_chol_super_analyze(&A, ords[o], &S), "o = %d", o);
        cft_assert_status_at(cf_chol_super_factor(S, &A), CF_SINGULAR, "zero row, ordering %d", o);
        cf_chol_super_free(S);
    }
    /* one triangle stored: each entry's partner is missing (compared with 0) */
    cf_triplets_clear(&t);
    for (int i = 0; i < n; ++i) {
        cft_assert_ok_at(cf_triplets_add(&t, i, i, 4.0), "i = %d", i);
        if (i > 0) cft_assert_ok_at(cf_triplets_add(&t, i, i - 1, -1.0), "i = %d", i);
    }
    cf_csr_free(&A);
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    cft_assert_status(cf_sparse_chol_factor_ordered(&A, CF_CHOL_ORDER_ND, &R), CF_BAD_INPUT);
    cft_assert_ok(cf_chol_super_analyze(&A, CF_CHOL_ORDER_ND, &S));
    cft_assert_status(cf_chol_super_factor(S, &A), CF_BAD_INPUT);
    for (int i = 0; i < n; ++i) /* one-sided entries of 1e-13 <= 1e-12 max|a_ij|: taken by both */
        for (int p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) A.val[p] = A.colidx[p] == i ? 4.0 : 1e-13;
    cft_assert_ok(cf_sparse_chol_factor_ordered(&A, CF_CHOL_ORDER_ND, &R));
    cf_sparse_chol_free(R);
    cft_assert_ok(cf_chol_super_factor(S, &A));
    cf_chol_super_free(S);
    /* bad arguments */
    S = (cfCholSuper *)&rng;
    cft_assert_status(cf_chol_super_analyze(&A, CF_CHOL_ORDER_COUNT, &S), CF_BAD_INPUT);
    ck_assert_ptr_null(S);
    cft_assert_status(cf_chol_super_analyze(NULL, CF_CHOL_ORDER_ND, &S), CF_BAD_INPUT);
    cft_assert_status(cf_chol_super_factor(NULL, &A), CF_BAD_INPUT);
    ck_assert(!cf_chol_super_pattern_is(NULL, &A) && !cf_chol_super_factored(NULL));
    cf_csr_free(&A);
    cf_triplets_free(&t);
    cft_assert_ok(cf_triplets_init(&t, 3, 4));
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    cft_assert_status(cf_chol_super_analyze(&A, CF_CHOL_ORDER_ND, &S), CF_BAD_INPUT);
    cf_csr_free(&A);
    cf_triplets_free(&t);
    /* the empty matrix */
    cft_assert_ok(cf_triplets_init(&t, 0, 0));
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    cft_assert_ok(cf_chol_super_analyze(&A, CF_CHOL_ORDER_ND, &S));
    cft_assert_ok(cf_chol_super_factor(S, &A));
    ck_assert_int_eq(cf_chol_super_nnz(S), 0);
    cf_chol_super_solve(S, NULL, NULL);
    cf_chol_super_free(S);
    cf_csr_free(&A);
    cf_triplets_free(&t);
}
END_TEST

START_TEST(chol_super_same_bits_any_threads)
{
    /* the factor, hence the solution, is bit for bit the same on 1, 2 and 3 threads */
    cfCsr A;
    block_grid(40, 2, &A);
    int n = A.rows;
    cfRng rng;
    cf_rng_seed(&rng, 58);
    double *b = new_vec(n), *x1 = new_vec(n), *x = new_vec(n);
    random_vec(&rng, n, -1, 1, b);
    cfCholSuper *S;
    cft_assert_ok(cf_chol_super_analyze(&A, CF_CHOL_ORDER_ND, &S));
    ck_assert(cf_chol_super_supernodes(S) > 1);
    for (int threads = 1; threads <= 3; ++threads) {
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        for (int rep = 0; rep < 3; ++rep) {
            cft_assert_ok(cf_chol_super_factor(S, &A));
            cf_chol_super_solve(S, b, threads == 1 && rep == 0 ? x1 : x);
            if (threads > 1 || rep > 0) cft_assert_at(memcmp(x, x1, (size_t)n * sizeof *x) == 0, "%d threads, repeat %d", threads, rep);
        }
    }
    ck_assert_msg(csr_residual(&A, x1, b) <= 1e-13 * cf_vec_norm(n, b), "residual %g", csr_residual(&A, x1, b));
    cf_chol_super_free(S);
    cf_csr_free(&A);
    free(b), free(x1), free(x);
}
END_TEST

/* ---- inner solvers: block Jacobi, IC(0), the solver interface ------------------------------- */

START_TEST(block_diag_inverse_certificate)
{
    /* each 3x3 diagonal block times its inverse is I; off-block entries are ignored */
    cfRng rng;
    cf_rng_seed(&rng, 81);
    cfCsr A;
    random_sparse_spd(&rng, 30, 6, &A);
    double inv[90];
    cft_assert_ok(cf_csr_block_diag_inverse(&A, inv));
    for (int k = 0; k < 10; ++k)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double s = 0.0;
                for (int m = 0; m < 3; ++m) s += cf_csr_get(&A, 3 * k + i, 3 * k + m) * inv[9 * k + 3 * m + j];
                cft_assert_near_at(s, i == j ? 1.0 : 0.0, 1e-12, 0, "block %d, (%d, %d)", k, i, j);
            }
    cf_csr_free(&A);
    /* order not a multiple of 3; a singular block */
    random_sparse_spd(&rng, 10, 4, &A);
    cft_assert_status(cf_csr_block_diag_inverse(&A, inv), CF_BAD_INPUT);
    cf_csr_free(&A);
    cfTriplets t;
    cft_assert_ok(cf_triplets_init(&t, 3, 3));
    cft_assert_ok(cf_triplets_add(&t, 0, 0, 1.0));
    cft_assert_ok(cf_triplets_add(&t, 1, 1, 1.0));
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    cf_triplets_free(&t);
    cft_assert_status(cf_csr_block_diag_inverse(&A, inv), CF_SINGULAR);
    cf_csr_free(&A);
}
END_TEST

START_TEST(ic0_certificates)
{
    /* a tridiagonal matrix has no fill: IC(0) is the complete factor, (L L^T)^-1 r solves exactly */
    const int n = 40;
    cfTriplets t;
    cft_assert_ok(cf_triplets_init(&t, n, n));
    for (int i = 0; i < n; ++i) {
        cft_assert_ok_at(cf_triplets_add(&t, i, i, 2.5), "i = %d", i);
        if (i > 0) cft_assert_ok_at(cf_triplets_add(&t, i, i - 1, -1.0), "i = %d", i);
        if (i + 1 < n) cft_assert_ok_at(cf_triplets_add(&t, i, i + 1, -1.0), "i = %d", i);
    }
    cfCsr A;
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    cf_triplets_free(&t);
    cfIc0 F;
    cft_assert_ok(cf_ic0_factor(&A, &F));
    ck_assert(F.shift == 0.0);
    cfRng rng;
    cf_rng_seed(&rng, 82);
    double *r = new_vec(n), *z = new_vec(n);
    random_vec(&rng, n, -1, 1, r);
    cf_ic0_apply(&F, r, z);
    ck_assert_msg(csr_residual(&A, z, r) <= 1e-13 * cf_vec_norm(n, r), "residual %g", csr_residual(&A, z, r));
    cf_ic0_free(&F);
    cf_csr_free(&A);
    free(r), free(z);

    /* a grid Laplacian: (L L^T)_ij = a_ij on the pattern of A (the defining property), L = 0 off it */
    grid_laplacian(5, 5, 5, 0.5, NULL, &A);
    cft_assert_ok(cf_ic0_factor(&A, &F));
    ck_assert(F.shift == 0.0); /* an M-matrix: no breakdown */
    for (int i = 0; i < A.rows; ++i)
        for (int e = A.rowptr[i]; e < A.rowptr[i + 1]; ++e) {
            int j = A.colidx[e];
            double s = 0.0;
            for (int p = F.L.rowptr[i]; p < F.L.rowptr[i + 1]; ++p) s += F.L.val[p] * cf_csr_get(&F.L, j, F.L.colidx[p]);
            cft_assert_near_at(s, A.val[e], 1e-12, 0, "i = %d, j = %d", i, j);
        }
    for (int i = 0; i < F.L.rows; ++i)
        for (int p = F.L.rowptr[i]; p < F.L.rowptr[i + 1]; ++p)
            cft_assert_at(cf_csr_get(&A, i, F.L.colidx[p]) != 0.0, "i = %d, j = %d", i, F.L.colidx[p]);
    cf_ic0_free(&F);
    cf_csr_free(&A);
}
END_TEST

START_TEST(linsolver_kinds_agree)
{
    /* a 3-dof-per-node system (a grid Laplacian per axis, coupled): every kind solves it, the PCG
       ones to their tolerance; IC(0) needs fewer iterations than block Jacobi */
    const int k = 8, nn = k * k * k, n = 3 * nn;
    cfCsr L;
    grid_laplacian(k, k, k, 0.2, NULL, &L);
    cfTriplets t;
    cft_assert_ok(cf_triplets_init(&t, n, n));
    for (int i = 0; i < nn; ++i)
        for (int e = L.rowptr[i]; e < L.rowptr[i + 1]; ++e)
            for (int a = 0; a < 3; ++a) {
                cft_assert_ok_at(cf_triplets_add(&t, 3 * i + a, 3 * L.colidx[e] + a, L.val[e]),
                                 "i = %d, e = %d, a = %d", i, e, a);
                if (L.colidx[e] == i) /* a symmetric coupling inside each node's block */
                    cft_assert_ok_at(cf_triplets_add(&t, 3 * i + a, 3 * i + (a + 1) % 3, 0.5), "i = %d, a = %d", i, a);
                if (L.colidx[e] == i) cft_assert_ok_at(cf_triplets_add(&t, 3 * i + (a + 1) % 3, 3 * i + a, 0.5),
                                                       "i = %d, a = %d", i, a);
            }
    cfCsr A;
    cft_assert_ok(cf_csr_from_triplets(&t, &A));
    cf_triplets_free(&t);
    cf_csr_free(&L);
    cfRng rng;
    cf_rng_seed(&rng, 83);
    double *b = new_vec(n), *x = new_vec(n), *work = NULL;
    random_vec(&rng, n, -1, 1, b);
    int iters[CF_LINSOLVE_KIND_COUNT];
    for (int kind = 0; kind < CF_LINSOLVE_KIND_COUNT; ++kind) {
        cfLinSolver *S;
        cft_assert_ok_at(cf_linsolver_setup(&A, (cfLinSolverKind)kind, 1e-12, &S), "kind %s", cf_linsolver_kind_name(kind));
        cft_assert_at(cf_linsolver_reentrant(S) || kind == CF_LINSOLVE_CHOLESKY, "kind = %d", kind);
        work = realloc(work, (size_t)cf_linsolver_work_size(S) * sizeof *work);
        cf_vec_zero(n, x);
        cft_assert_ok_at(cf_linsolver_solve(S, b, x, work, &iters[kind]), "kind %s", cf_linsolver_kind_name(kind));
        double res = csr_residual(&A, x, b);
        ck_assert_msg(res <= 1.01e-12 * cf_vec_norm(n, b), "%s: residual %g", cf_linsolver_kind_name(kind), res);
        cf_linsolver_free(S);
    }
    ck_assert_int_eq(iters[CF_LINSOLVE_CHOLESKY], 0);
    ck_assert_msg(iters[CF_LINSOLVE_PCG_IC0] < iters[CF_LINSOLVE_PCG_JACOBI], "IC(0) %d, block Jacobi %d iterations",
                  iters[CF_LINSOLVE_PCG_IC0], iters[CF_LINSOLVE_PCG_JACOBI]);
    cfLinSolver *S;
    cft_assert_status(cf_linsolver_setup(&A, CF_LINSOLVE_PCG_JACOBI, 0.0, &S), CF_BAD_INPUT);
    ck_assert_ptr_null(S);
    cf_csr_free(&A);
    free(b), free(x), free(work);
}
END_TEST

static void build(Suite *s)
{
    TCase *td = cft_tcase_unit(s, "dense");
    CFT_TEST(td, vec_ops_identities, "vector operations");
    CFT_TEST(td, vec_norm_scales_without_overflow, "2-norm: no overflow or underflow (scaled sums), plain where safe");
    CFT_TEST(td, dense_products, "dense products and asymmetry");
    CFT_TEST(td, dense_solve_residual, "LU solve residual on random systems");
    CFT_TEST(td, dense_solve_refuses_singular_and_bad_input, "LU solve refuses singular and non-finite");
    CFT_TEST(td, dense_cholesky_reconstructs, "dense Cholesky L L^T == A");
    CFT_TEST(td, dense_sym_eig_certificate, "symmetric eigen-decomposition A V == V diag(lambda)");
    TCase *ts = cft_tcase_unit(s, "sparse");
    CFT_TEST(ts, triplets_contract, "triplet list contract");
    CFT_TEST(ts, csr_from_triplets_sums_duplicates, "CSR from triplets equals dense accumulation");
    CFT_TEST(ts, csr_products_match_dense, "CSR products equal dense ones");
    CFT_TEST(ts, csr_pin_dofs_keeps_symmetry, "pinning dofs keeps symmetry and solves the reduced system");
    CFT_TEST(ts, bsr_products_match_dense, "BSR products equal dense ones");
    TCase *tc = cft_tcase_unit(s, "cg");
    CFT_TEST(tc, cg_converges_to_dense_solution, "CG converges to the dense solution");
    CFT_TEST(tc, cg_jacobi_preconditioner, "Jacobi preconditioning on a diagonal matrix");
    CFT_TEST(tc, cg_reports_indefinite_and_iteration_cap, "CG reports diverged, max-iterations, bad input");
    TCase *tk = cft_tcase_unit(s, "chol");
    CFT_TEST(tk, sparse_chol_matches_dense_solve, "sparse Cholesky equals the dense solve");
    CFT_TEST(tk, sparse_chol_symbolic_count, "symbolic nnz(L) equals the dense factor's count");
    CFT_TEST(tk, sparse_chol_refuses_bad_matrices, "sparse Cholesky refuses indefinite and bad input");
    CFT_TEST(tk, rcm_ordering_reduces_fill, "RCM bandwidth and fill bounds");
    TCase *ti = cft_tcase_unit(s, "inner-solvers");
    CFT_TEST(ti, block_diag_inverse_certificate, "3x3 block-diagonal inverses");
    CFT_TEST(ti, ic0_certificates, "IC(0): exact without fill, L L^T = A on the pattern");
    CFT_TEST(ti, linsolver_kinds_agree, "Cholesky, block-Jacobi PCG and IC(0) PCG solve one system");
    TCase *tl = cft_tcase_scene(s, "chol-large");
    CFT_TEST(tl, sparse_chol_large_grid, "15^3 grid Laplacian: Cholesky against CG");
    CFT_TEST(tl, nested_dissection_ordering, "nested dissection: a permutation by nodes, under 2/3 of RCM's fill on 2D grids, same solves");
    CFT_TEST(tl, chol_super_matches_reference, "supernodal Cholesky: the reference's nnz(L) and solutions (1e-12), refactored on one analysis");
    CFT_TEST(tl, chol_super_refuses_as_the_reference, "supernodal Cholesky: singular, indefinite and bad input as the reference; another pattern refused");
    CFT_TEST(tl, chol_super_same_bits_any_threads, "supernodal Cholesky: bit for bit the same on 1, 2 and 3 threads");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "lib-linalg", build); }
