/* SPDX-License-Identifier: MIT */
/* Sparse matrices: triplet lists, compressed sparse rows (CSR), and pinning degrees of freedom. */
#include "cf/cf_linalg.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- triplets ------------------------------------------------------------------------ */

cfStatus cf_triplets_init(cfTriplets *t, int rows, int cols)
{
    if (!t) return CF_BAD_INPUT;
    memset(t, 0, sizeof *t);
    if (rows < 0 || cols < 0) return CF_BAD_INPUT;
    t->rows = rows;
    t->cols = cols;
    return CF_OK;
}

/* make room for @p extra more entries (capacity doubles) */
static cfStatus triplets_reserve(cfTriplets *t, int extra)
{
    if (t->nnz > INT_MAX - extra) return CF_NO_MEMORY;
    int need = t->nnz + extra;
    if (need <= t->cap) return CF_OK;
    long cap = t->cap > 0 ? t->cap : 64;
    while (cap < need) cap *= 2;
    if (cap > INT_MAX) cap = INT_MAX;
    /* grow the three arrays one by one; each successful realloc is kept so that a failure
       leaves a valid (if larger than needed) list behind */
    int *i = realloc(t->i, (size_t)cap * sizeof *i);
    if (!i) return CF_NO_MEMORY;
    t->i = i;
    int *j = realloc(t->j, (size_t)cap * sizeof *j);
    if (!j) return CF_NO_MEMORY;
    t->j = j;
    double *v = realloc(t->v, (size_t)cap * sizeof *v);
    if (!v) return CF_NO_MEMORY;
    t->v = v;
    t->cap = (int)cap;
    return CF_OK;
}

cfStatus cf_triplets_add(cfTriplets *t, int i, int j, double v)
{
    if (!t || i < 0 || i >= t->rows || j < 0 || j >= t->cols || !isfinite(v)) return CF_BAD_INPUT;
    cfStatus st = triplets_reserve(t, 1);
    if (st != CF_OK) return st;
    t->i[t->nnz] = i;
    t->j[t->nnz] = j;
    t->v[t->nnz] = v;
    t->nnz++;
    return CF_OK;
}

cfStatus cf_triplets_add_block3(cfTriplets *t, int bi, int bj, const double m[9])
{
    /* check everything first so that a refused block adds nothing */
    if (!t || !m || bi < 0 || bj < 0 || bi > (t->rows - 3) / 3 || bj > (t->cols - 3) / 3 ||
        t->rows < 3 || t->cols < 3 || !cf_vec_finite(9, m))
        return CF_BAD_INPUT;
    cfStatus st = triplets_reserve(t, 9);
    if (st != CF_OK) return st;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) (void)cf_triplets_add(t, 3 * bi + r, 3 * bj + c, m[3 * r + c]);
    return CF_OK;
}

void cf_triplets_clear(cfTriplets *t) { t->nnz = 0; }

void cf_triplets_free(cfTriplets *t)
{
    if (!t) return;
    free(t->i);
    free(t->j);
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* ---- CSR ----------------------------------------------------------------------------- */

/* malloc that never returns NULL for a zero-sized request (so NULL always means failure) */
static void *alloc_array(size_t count, size_t size) { return malloc((count > 0 ? count : 1) * size); }

cfStatus cf_csr_from_triplets(const cfTriplets *t, cfCsr *A)
{
    if (!A) return CF_BAD_INPUT;
    memset(A, 0, sizeof *A);
    if (!t || t->rows < 0 || t->cols < 0 || t->nnz < 0) return CF_BAD_INPUT;
    for (int k = 0; k < t->nnz; ++k)
        if (t->i[k] < 0 || t->i[k] >= t->rows || t->j[k] < 0 || t->j[k] >= t->cols || !isfinite(t->v[k]))
            return CF_BAD_INPUT;

    int nnz = t->nnz, nmax = t->rows > t->cols ? t->rows : t->cols;
    int *start = calloc((size_t)nmax + 1, sizeof *start);
    int *by_col = alloc_array((size_t)nnz, sizeof *by_col);
    int *by_row = alloc_array((size_t)nnz, sizeof *by_row);
    A->rowptr = calloc((size_t)t->rows + 1, sizeof *A->rowptr);
    A->colidx = alloc_array((size_t)nnz, sizeof *A->colidx);
    A->val = alloc_array((size_t)nnz, sizeof *A->val);
    if (!start || !by_col || !by_row || !A->rowptr || !A->colidx || !A->val) {
        free(start);
        free(by_col);
        free(by_row);
        cf_csr_free(A);
        return CF_NO_MEMORY;
    }

    /* Two stable counting sorts: first by column, then by row. The result lists the entries
       by row, by column within a row, and in insertion order among duplicates. */
    for (int k = 0; k < nnz; ++k) start[t->j[k] + 1]++;
    for (int c = 0; c < t->cols; ++c) start[c + 1] += start[c];
    for (int k = 0; k < nnz; ++k) by_col[start[t->j[k]]++] = k;

    memset(start, 0, ((size_t)nmax + 1) * sizeof *start);
    for (int k = 0; k < nnz; ++k) start[t->i[k] + 1]++;
    for (int r = 0; r < t->rows; ++r) start[r + 1] += start[r];
    for (int q = 0; q < nnz; ++q) {
        int k = by_col[q];
        by_row[start[t->i[k]]++] = k;
    }

    /* walk the sorted entries, summing runs of the same (i, j) */
    int out = 0;
    for (int q = 0; q < nnz; ++q) {
        int k = by_row[q];
        int i = t->i[k], j = t->j[k];
        bool same = out > 0 && A->colidx[out - 1] == j && q > 0 && t->i[by_row[q - 1]] == i;
        if (same) {
            A->val[out - 1] += t->v[k];
        } else {
            A->colidx[out] = j;
            A->val[out] = t->v[k];
            A->rowptr[i + 1]++;
            out++;
        }
    }
    for (int r = 0; r < t->rows; ++r) A->rowptr[r + 1] += A->rowptr[r];
    free(start);
    free(by_col);
    free(by_row);

    /* give back the room taken by duplicates (keeping the larger arrays is harmless) */
    if (out < nnz && out > 0) {
        int *ci = realloc(A->colidx, (size_t)out * sizeof *ci);
        if (ci) A->colidx = ci;
        double *v = realloc(A->val, (size_t)out * sizeof *v);
        if (v) A->val = v;
    }
    A->rows = t->rows;
    A->cols = t->cols;
    A->nnz = out;
    return CF_OK;
}

void cf_csr_free(cfCsr *A)
{
    if (!A) return;
    free(A->rowptr);
    free(A->colidx);
    free(A->val);
    memset(A, 0, sizeof *A);
}

void cf_csr_mul_vec(const cfCsr *A, const double *x, double *y)
{
    for (int i = 0; i < A->rows; ++i) {
        double s = 0.0;
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) s += A->val[p] * x[A->colidx[p]];
        y[i] = s;
    }
}

void cf_csr_tmul_vec(const cfCsr *A, const double *x, double *y)
{
    cf_vec_zero(A->cols, y);
    for (int i = 0; i < A->rows; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) y[A->colidx[p]] += A->val[p] * x[i];
}

/* position of entry (i, j) in colidx/val, or -1 when it is not stored (binary search) */
static int csr_find(const cfCsr *A, int i, int j)
{
    int lo = A->rowptr[i], hi = A->rowptr[i + 1] - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (A->colidx[mid] == j) return mid;
        if (A->colidx[mid] < j)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

double cf_csr_get(const cfCsr *A, int i, int j)
{
    if (i < 0 || i >= A->rows || j < 0 || j >= A->cols) return 0.0;
    int p = csr_find(A, i, j);
    return p >= 0 ? A->val[p] : 0.0;
}

cfStatus cf_csr_to_dense(const cfCsr *A, cfDense *D)
{
    cfStatus st = cf_dense_init(D, A->rows, A->cols);
    if (st != CF_OK) return st;
    for (int i = 0; i < A->rows; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) *cf_dense_at(D, i, A->colidx[p]) = A->val[p];
    return CF_OK;
}

void cf_csr_diagonal(const cfCsr *A, double *d)
{
    int n = A->rows < A->cols ? A->rows : A->cols;
    for (int k = 0; k < n; ++k) d[k] = cf_csr_get(A, k, k);
}

double cf_csr_asymmetry(const cfCsr *A)
{
    if (A->rows != A->cols) return INFINITY;
    double m = 0.0;
    /* every stored (i, j) is compared with (j, i), stored or not, so entries present on one
       side only are measured too */
    for (int i = 0; i < A->rows; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            double d = fabs(A->val[p] - cf_csr_get(A, A->colidx[p], i));
            if (d > m || isnan(d)) m = d;
        }
    return m;
}

/* ---- pinning degrees of freedom ------------------------------------------------------ */

/* is dof k pinned? From the mark array when there is one, else by searching the list */
static bool is_pinned(const unsigned char *mark, int k, int n_dofs, const int *dofs)
{
    if (mark) return mark[k] != 0;
    for (int q = 0; q < n_dofs; ++q)
        if (dofs[q] == k) return true;
    return false;
}

void cf_csr_pin_dofs(cfCsr *A, int n_dofs, const int *dofs)
{
    int n = A->rows < A->cols ? A->rows : A->cols;
    if (n_dofs <= 0 || !dofs || n == 0) return;
    /* a mark per dof makes the pass O(nnz); without memory fall back to searching the list */
    unsigned char *mark = calloc((size_t)n, 1);
    if (mark)
        for (int q = 0; q < n_dofs; ++q)
            if (dofs[q] >= 0 && dofs[q] < n) mark[dofs[q]] = 1;

    /* zero the pinned rows and columns, 1 on a pinned diagonal; count missing diagonals */
    int missing = 0;
    for (int i = 0; i < A->rows; ++i) {
        bool row_pinned = i < n && is_pinned(mark, i, n_dofs, dofs);
        bool has_diag = false;
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            int j = A->colidx[p];
            if (i == j) has_diag = true;
            if (row_pinned || (j < n && is_pinned(mark, j, n_dofs, dofs))) A->val[p] = (i == j) ? 1.0 : 0.0;
        }
        if (row_pinned && !has_diag) missing++;
    }

    /* a pinned row without a stored diagonal gets one inserted in column order */
    if (missing > 0) {
        int nnz = A->nnz + missing;
        int *ci = malloc((size_t)nnz * sizeof *ci);
        double *v = malloc((size_t)nnz * sizeof *v);
        if (ci && v) {
            int out = 0, begin = 0;
            for (int i = 0; i < A->rows; ++i) {
                int end = A->rowptr[i + 1];
                bool insert = i < n && is_pinned(mark, i, n_dofs, dofs);
                for (int p = begin; p < end; ++p)
                    if (A->colidx[p] == i) insert = false; /* already stored */
                for (int p = begin; p < end; ++p) {
                    if (insert && A->colidx[p] > i) {
                        ci[out] = i;
                        v[out++] = 1.0;
                        insert = false;
                    }
                    ci[out] = A->colidx[p];
                    v[out++] = A->val[p];
                }
                if (insert) {
                    ci[out] = i;
                    v[out++] = 1.0;
                }
                begin = end;
                A->rowptr[i + 1] = out;
            }
            free(A->colidx);
            free(A->val);
            A->colidx = ci;
            A->val = v;
            A->nnz = nnz;
        } else {
            free(ci);
            free(v);
        }
    }
    free(mark);
}
