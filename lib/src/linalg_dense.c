/* SPDX-License-Identifier: MIT */
/* Dense vectors, row-major dense matrices, and a thin LAPACKE wrapper (LU, Cholesky, eigen). */
#include "cf/cf_linalg.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

/* ---- vectors ------------------------------------------------------------------------- */

double cf_vec_dot(int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += x[i] * y[i];
    return s;
}

/* Blue's scaled sum of squares (1978), as LAPACK's dnrm2 since 3.10 (Anderson 2017): squares of
   entries above 2^486 are summed scaled by 2^-538, those below 2^-511 scaled by 2^537, the others
   as they are, so that no square overflows or underflows; the three sums are combined at the end. */
double cf_vec_norm_scaled(int n, const double *x)
{
    const double tsml = 0x1p-511, tbig = 0x1p486, ssml = 0x1p537, sbig = 0x1p-538;
    double asml = 0.0, amed = 0.0, abig = 0.0;
    bool notbig = true;
    for (int i = 0; i < n; ++i) {
        double ax = fabs(x[i]);
        if (ax > tbig) {
            abig += (ax * sbig) * (ax * sbig);
            notbig = false;
        } else if (ax < tsml) {
            if (notbig) asml += (ax * ssml) * (ax * ssml);
        } else {
            amed += ax * ax; /* a NaN lands here and stays */
        }
    }
    if (abig > 0.0) {
        if (amed > 0.0 || isnan(amed)) abig += (amed * sbig) * sbig;
        return sqrt(abig) / sbig;
    }
    if (asml > 0.0 && amed == 0.0) return sqrt(asml) / ssml;
    if (asml > 0.0 && amed > 0.0) {
        double ymed = sqrt(amed), ysml = sqrt(asml) / ssml;
        double ymin = fmin(ymed, ysml), ymax = fmax(ymed, ysml);
        return ymax * sqrt(1.0 + (ymin / ymax) * (ymin / ymax));
    }
    return sqrt(amed); /* NaN stays NaN */
}

/* the plain sum of squares where nothing overflowed or underflowed (the common case: bit for bit
   sqrt(x . x)), the scaled sum otherwise */
double cf_vec_norm(int n, const double *x)
{
    double s = cf_vec_dot(n, x, x);
    if (s >= CF_NORM2_SAFE_MIN && s <= CF_NORM2_SAFE_MAX) return sqrt(s);
    if (s == 0.0 && cf_vec_norm_inf(n, x) == 0.0) return 0.0;
    return cf_vec_norm_scaled(n, x);
}

double cf_vec_norm_inf(int n, const double *x)
{
    double m = 0.0;
    for (int i = 0; i < n; ++i) {
        double a = fabs(x[i]);
        if (a > m || isnan(a)) m = a; /* a NaN entry makes the norm NaN, not hidden */
    }
    return m;
}

void cf_vec_axpy(int n, double a, const double *x, double *y)
{
    for (int i = 0; i < n; ++i) y[i] += a * x[i];
}

void cf_vec_copy(int n, const double *x, double *y)
{
    if (n > 0 && x != y) memmove(y, x, (size_t)n * sizeof *y);
}

void cf_vec_zero(int n, double *x)
{
    for (int i = 0; i < n; ++i) x[i] = 0.0;
}

bool cf_vec_finite(int n, const double *x)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i])) return false;
    return true;
}

/* ---- dense matrices ------------------------------------------------------------------ */

cfStatus cf_dense_init(cfDense *m, int rows, int cols)
{
    if (!m) return CF_BAD_INPUT;
    memset(m, 0, sizeof *m);
    if (rows < 0 || cols < 0) return CF_BAD_INPUT;
    size_t count = (size_t)rows * (size_t)cols;
    if (rows > 0 && count / (size_t)rows != (size_t)cols) return CF_NO_MEMORY;
    if (count > SIZE_MAX / sizeof(double)) return CF_NO_MEMORY;
    if (count > 0) {
        m->a = calloc(count, sizeof(double));
        if (!m->a) return CF_NO_MEMORY;
    }
    m->rows = rows;
    m->cols = cols;
    return CF_OK;
}

void cf_dense_free(cfDense *m)
{
    if (!m) return;
    free(m->a);
    memset(m, 0, sizeof *m);
}

void cf_dense_mul_vec(const cfDense *A, const double *x, double *y)
{
    for (int i = 0; i < A->rows; ++i) y[i] = cf_vec_dot(A->cols, &A->a[(long)i * A->cols], x);
}

void cf_dense_tmul_vec(const cfDense *A, const double *x, double *y)
{
    cf_vec_zero(A->cols, y);
    for (int i = 0; i < A->rows; ++i) cf_vec_axpy(A->cols, x[i], &A->a[(long)i * A->cols], y);
}

cfStatus cf_dense_mul(const cfDense *A, const cfDense *B, cfDense *C)
{
    if (!A || !B || !C || A->cols != B->rows) return CF_BAD_INPUT;
    /* compute into a fresh matrix so that C may be A or B */
    cfDense P;
    cfStatus st = cf_dense_init(&P, A->rows, B->cols);
    if (st != CF_OK) return st;
    for (int i = 0; i < A->rows; ++i) {
        double *pi = cf_dense_at(&P, i, 0);
        for (int k = 0; k < A->cols; ++k) cf_vec_axpy(B->cols, *cf_dense_at(A, i, k), cf_dense_at(B, k, 0), pi);
    }
    cf_dense_free(C);
    *C = P;
    return CF_OK;
}

double cf_dense_asymmetry(const cfDense *A)
{
    if (A->rows != A->cols) return INFINITY;
    double m = 0.0;
    for (int i = 0; i < A->rows; ++i)
        for (int j = 0; j < i; ++j) {
            double d = fabs(*cf_dense_at(A, i, j) - *cf_dense_at(A, j, i));
            if (d > m || isnan(d)) m = d;
        }
    return m;
}

/* ---- LAPACKE wrapper ----------------------------------------------------------------- */

/* true when every entry on or below the diagonal of square A is finite */
static bool lower_finite(const cfDense *A)
{
    for (int i = 0; i < A->rows; ++i)
        if (!cf_vec_finite(i + 1, cf_dense_at(A, i, 0))) return false;
    return true;
}

/* 1-norm (largest column sum of |a_ij|), the norm LAPACK's condition estimate expects */
static double norm_one(const cfDense *A)
{
    double m = 0.0;
    for (int j = 0; j < A->cols; ++j) {
        double s = 0.0;
        for (int i = 0; i < A->rows; ++i) s += fabs(*cf_dense_at(A, i, j));
        if (s > m) m = s;
    }
    return m;
}

cfStatus cf_dense_solve(const cfDense *A, const double *b, double *x)
{
    if (!A || !b || !x || A->rows != A->cols) return CF_BAD_INPUT;
    int n = A->rows;
    if (n == 0) return CF_OK;
    for (int i = 0; i < n; ++i)
        if (!cf_vec_finite(n, cf_dense_at(A, i, 0))) return CF_BAD_INPUT;
    if (!cf_vec_finite(n, b)) return CF_BAD_INPUT;

    cfDense LU;
    cfStatus st = cf_dense_init(&LU, n, n);
    double *rhs = malloc((size_t)n * sizeof *rhs);
    lapack_int *ipiv = malloc((size_t)n * sizeof *ipiv);
    if (st != CF_OK || !rhs || !ipiv) {
        st = CF_NO_MEMORY;
        goto done;
    }
    memcpy(LU.a, A->a, (size_t)n * (size_t)n * sizeof *LU.a);
    cf_vec_copy(n, b, rhs);

    lapack_int info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, 1, LU.a, n, ipiv, rhs, 1);
    if (info > 0) {
        st = CF_SINGULAR; /* an exactly zero pivot */
        goto done;
    }
    if (info < 0) {
        st = CF_BAD_INPUT;
        goto done;
    }
    /* dgesv only notices exact zeros; "singular to working precision" means the reciprocal
       condition number is below the machine epsilon (the LU factors are still in LU) */
    double rcond = 0.0;
    info = LAPACKE_dgecon(LAPACK_ROW_MAJOR, '1', n, LU.a, n, norm_one(A), &rcond);
    if (info != 0 || !(rcond >= DBL_EPSILON) || !cf_vec_finite(n, rhs)) {
        st = CF_SINGULAR;
        goto done;
    }
    cf_vec_copy(n, rhs, x);
    st = CF_OK;
done:
    cf_dense_free(&LU);
    free(rhs);
    free(ipiv);
    return st;
}

cfStatus cf_dense_cholesky(const cfDense *A, cfDense *L)
{
    if (!A || !L) return CF_BAD_INPUT;
    memset(L, 0, sizeof *L);
    if (A->rows != A->cols || !lower_finite(A)) return CF_BAD_INPUT;
    int n = A->rows;
    cfStatus st = cf_dense_init(L, n, n);
    if (st != CF_OK) return st;
    /* copy the lower triangle only; the upper part of L stays zero (dpotrf does not touch it) */
    for (int i = 0; i < n; ++i) cf_vec_copy(i + 1, cf_dense_at(A, i, 0), cf_dense_at(L, i, 0));
    if (n == 0) return CF_OK;
    lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, L->a, n);
    if (info != 0) {
        cf_dense_free(L);
        return info > 0 ? CF_SINGULAR : CF_BAD_INPUT;
    }
    return CF_OK;
}

void cf_dense_cholesky_solve(const cfDense *L, const double *b, double *x)
{
    int n = L->rows;
    cf_vec_copy(n, b, x);
    /* forward: L y = b, row by row */
    for (int i = 0; i < n; ++i) {
        double s = x[i] - cf_vec_dot(i, cf_dense_at(L, i, 0), x);
        x[i] = s / *cf_dense_at(L, i, i);
    }
    /* backward: L^T x = y; row i of L^T is column i of L */
    for (int i = n - 1; i >= 0; --i) {
        double s = x[i];
        for (int j = i + 1; j < n; ++j) s -= *cf_dense_at(L, j, i) * x[j];
        x[i] = s / *cf_dense_at(L, i, i);
    }
}

cfStatus cf_dense_sym_eig(const cfDense *A, double *eigenvalues, cfDense *V)
{
    if (V) memset(V, 0, sizeof *V);
    if (!A || !eigenvalues || A->rows != A->cols || !lower_finite(A)) return CF_BAD_INPUT;
    int n = A->rows;
    cfDense W; /* dsyev overwrites its matrix with the eigenvectors */
    cfStatus st = cf_dense_init(&W, n, n);
    if (st != CF_OK) return st;
    for (int i = 0; i < n; ++i) cf_vec_copy(i + 1, cf_dense_at(A, i, 0), cf_dense_at(&W, i, 0));
    if (n > 0) {
        lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, V ? 'V' : 'N', 'L', n, W.a, n, eigenvalues);
        if (info != 0) {
            cf_dense_free(&W);
            /* info > 0: the QR iteration did not converge within LAPACK's limit */
            return info > 0 ? CF_MAX_ITER : CF_BAD_INPUT;
        }
    }
    if (V)
        *V = W; /* row-major: column j of V is the eigenvector of eigenvalue j */
    else
        cf_dense_free(&W);
    return CF_OK;
}
