/* SPDX-License-Identifier: MIT */
/* Block-sparse rows (BSR): fixed-size dense blocks, e.g. the 3x6 contact-body Jacobian blocks. */
#include "cf/cf_linalg.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/*
 * While blocks are being added, rowptr is used as scratch: rowptr[bi + 1] counts the blocks of
 * block row bi and rowptr[0] holds the block row of the last block added (to refuse a smaller
 * one). cf_bsr_finalize() turns the counts into offsets and sets rowptr[0] back to 0.
 */

cfStatus cf_bsr_init(cfBsr *A, int brows, int bcols, int br, int bc)
{
    if (!A) return CF_BAD_INPUT;
    memset(A, 0, sizeof *A);
    if (brows < 0 || bcols < 0 || br <= 0 || bc <= 0 || br > INT_MAX / bc) return CF_BAD_INPUT;
    A->rowptr = calloc((size_t)brows + 1, sizeof *A->rowptr);
    if (!A->rowptr) return CF_NO_MEMORY;
    A->brows = brows;
    A->bcols = bcols;
    A->br = br;
    A->bc = bc;
    return CF_OK;
}

cfStatus cf_bsr_add_block(cfBsr *A, int bi, int bj, const double *m)
{
    if (!A || !m || bi < 0 || bi >= A->brows || bj < 0 || bj >= A->bcols) return CF_BAD_INPUT;
    if (bi < A->rowptr[0]) return CF_BAD_INPUT; /* rows must not decrease */
    int bsize = A->br * A->bc;
    if (!cf_vec_finite(bsize, m)) return CF_BAD_INPUT;
    if (A->nnzb == A->capb) {
        long cap = A->capb > 0 ? 2L * A->capb : 16;
        if (cap * bsize > INT_MAX) return CF_NO_MEMORY;
        int *ci = realloc(A->colidx, (size_t)cap * sizeof *ci);
        if (!ci) return CF_NO_MEMORY;
        A->colidx = ci;
        double *v = realloc(A->val, (size_t)cap * (size_t)bsize * sizeof *v);
        if (!v) return CF_NO_MEMORY;
        A->val = v;
        A->capb = (int)cap;
    }
    A->colidx[A->nnzb] = bj;
    memcpy(&A->val[(size_t)A->nnzb * (size_t)bsize], m, (size_t)bsize * sizeof *m);
    A->nnzb++;
    A->rowptr[bi + 1]++;
    A->rowptr[0] = bi;
    return CF_OK;
}

void cf_bsr_finalize(cfBsr *A)
{
    A->rowptr[0] = 0;
    for (int r = 0; r < A->brows; ++r) A->rowptr[r + 1] += A->rowptr[r];
}

void cf_bsr_free(cfBsr *A)
{
    if (!A) return;
    free(A->rowptr);
    free(A->colidx);
    free(A->val);
    memset(A, 0, sizeof *A);
}

void cf_bsr_mul_vec(const cfBsr *A, const double *x, double *y)
{
    int br = A->br, bc = A->bc;
    cf_vec_zero(A->brows * br, y);
    for (int bi = 0; bi < A->brows; ++bi) {
        double *yi = &y[bi * br];
        for (int p = A->rowptr[bi]; p < A->rowptr[bi + 1]; ++p) {
            const double *blk = &A->val[(size_t)p * (size_t)(br * bc)];
            const double *xj = &x[A->colidx[p] * bc];
            for (int r = 0; r < br; ++r) yi[r] += cf_vec_dot(bc, &blk[r * bc], xj);
        }
    }
}

void cf_bsr_tmul_vec(const cfBsr *A, const double *x, double *y)
{
    int br = A->br, bc = A->bc;
    cf_vec_zero(A->bcols * bc, y);
    for (int bi = 0; bi < A->brows; ++bi) {
        const double *xi = &x[bi * br];
        for (int p = A->rowptr[bi]; p < A->rowptr[bi + 1]; ++p) {
            const double *blk = &A->val[(size_t)p * (size_t)(br * bc)];
            double *yj = &y[A->colidx[p] * bc];
            /* y_j += B^T x_i: row r of the block, scaled by x_i[r] */
            for (int r = 0; r < br; ++r) cf_vec_axpy(bc, xi[r], &blk[r * bc], yj);
        }
    }
}

cfStatus cf_bsr_to_dense(const cfBsr *A, cfDense *D)
{
    int br = A->br, bc = A->bc;
    cfStatus st = cf_dense_init(D, A->brows * br, A->bcols * bc);
    if (st != CF_OK) return st;
    for (int bi = 0; bi < A->brows; ++bi)
        for (int p = A->rowptr[bi]; p < A->rowptr[bi + 1]; ++p) {
            const double *blk = &A->val[(size_t)p * (size_t)(br * bc)];
            int bj = A->colidx[p];
            for (int r = 0; r < br; ++r)
                for (int c = 0; c < bc; ++c) *cf_dense_at(D, bi * br + r, bj * bc + c) += blk[r * bc + c];
        }
    return CF_OK;
}
