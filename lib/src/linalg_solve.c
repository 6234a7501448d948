/* SPDX-License-Identifier: MIT */
/* Linear solvers behind one interface: the sparse Cholesky factor, or conjugate gradients with a
   3x3 block-Jacobi or an incomplete Cholesky IC(0) preconditioner. */
#include "cf/cf_linalg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *cf_linsolver_kind_name(cfLinSolverKind k)
{
    switch (k) {
    case CF_LINSOLVE_CHOLESKY: return "cholesky";
    case CF_LINSOLVE_PCG_JACOBI: return "pcg-jacobi";
    case CF_LINSOLVE_PCG_IC0: return "pcg-ic0";
    case CF_LINSOLVE_KIND_COUNT: break;
    }
    return "unknown";
}

/* ---- 3x3 block Jacobi -------------------------------------------------------------------- */

static bool invert3(const double m[9], double out[9])
{
    double c00 = m[4] * m[8] - m[5] * m[7], c01 = m[5] * m[6] - m[3] * m[8], c02 = m[3] * m[7] - m[4] * m[6];
    double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
    if (!(fabs(det) > 1e-300)) return false;
    double id = 1.0 / det;
    out[0] = c00 * id;
    out[1] = (m[2] * m[7] - m[1] * m[8]) * id;
    out[2] = (m[1] * m[5] - m[2] * m[4]) * id;
    out[3] = c01 * id;
    out[4] = (m[0] * m[8] - m[2] * m[6]) * id;
    out[5] = (m[2] * m[3] - m[0] * m[5]) * id;
    out[6] = c02 * id;
    out[7] = (m[1] * m[6] - m[0] * m[7]) * id;
    out[8] = (m[0] * m[4] - m[1] * m[3]) * id;
    for (int k = 0; k < 9; ++k)
        if (!isfinite(out[k])) return false;
    return true;
}

cfStatus cf_csr_block_diag_inverse(const cfCsr *A, double *inv)
{
    if (!A || A->rows != A->cols || A->rows % 3 != 0) return CF_BAD_INPUT;
    for (int k = 0; k < A->rows / 3; ++k) {
        double m[9] = {0};
        for (int r = 0; r < 3; ++r) {
            int i = 3 * k + r;
            for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) {
                int j = A->colidx[e] - 3 * k;
                if (j >= 0 && j < 3) m[3 * r + j] = A->val[e];
            }
        }
        if (!invert3(m, &inv[9 * k])) return CF_SINGULAR;
    }
    return CF_OK;
}

/* ---- IC(0) ----------------------------------------------------------------------------------- */

void cf_ic0_free(cfIc0 *F)
{
    cf_csr_free(&F->L);
    memset(F, 0, sizeof *F);
}

/* L = tril(A + shift diag(A)) overwritten in place by the incomplete factor; false on a pivot
   that is not positive. Row i: L_ik = (a_ik - sum_j L_ij L_kj) / L_kk for k < i over the common
   pattern, then L_ii = sqrt(a_ii - sum_j L_ij^2). */
static bool ic0_numeric(cfCsr *L)
{
    for (int i = 0; i < L->rows; ++i) {
        int end = L->rowptr[i + 1] - 1; /* the diagonal is the last entry of the row */
        for (int e = L->rowptr[i]; e < end; ++e) {
            int k = L->colidx[e];
            /* merge rows i and k over columns < k */
            double s = L->val[e];
            int p = L->rowptr[i], q = L->rowptr[k], qend = L->rowptr[k + 1] - 1;
            while (p < e && q < qend) {
                if (L->colidx[p] == L->colidx[q]) s -= L->val[p++] * L->val[q++];
                else if (L->colidx[p] < L->colidx[q]) ++p;
                else ++q;
            }
            L->val[e] = s / L->val[qend];
        }
        double d = L->val[end];
        for (int e = L->rowptr[i]; e < end; ++e) d -= L->val[e] * L->val[e];
        if (!(d > 0.0) || !isfinite(d)) return false;
        L->val[end] = sqrt(d);
    }
    return true;
}

cfStatus cf_ic0_factor(const cfCsr *A, cfIc0 *F)
{
    memset(F, 0, sizeof *F);
    if (!A || A->rows != A->cols || !cf_vec_finite(A->nnz, A->val)) return CF_BAD_INPUT;
    int n = A->rows;
    /* tril(A), row by row (columns ascend, so each row's diagonal is its last entry) */
    cfCsr *L = &F->L;
    L->rows = L->cols = n;
    L->rowptr = malloc((size_t)(n + 1) * sizeof *L->rowptr);
    L->colidx = malloc((size_t)(A->nnz > 0 ? A->nnz : 1) * sizeof *L->colidx);
    L->val = malloc((size_t)(A->nnz > 0 ? A->nnz : 1) * sizeof *L->val);
    double *a = malloc((size_t)(A->nnz > 0 ? A->nnz : 1) * sizeof *a); /* tril(A)'s values, kept for the retries */
    if (!L->rowptr || !L->colidx || !L->val || !a) {
        free(a);
        cf_ic0_free(F);
        return CF_NO_MEMORY;
    }
    int e = 0;
    cfStatus st = CF_OK;
    for (int i = 0; i < n && st == CF_OK; ++i) {
        L->rowptr[i] = e;
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1] && A->colidx[q] <= i; ++q) {
            L->colidx[e] = A->colidx[q];
            a[e++] = A->val[q];
        }
        if (e == L->rowptr[i] || L->colidx[e - 1] != i || !(a[e - 1] > 0.0)) st = CF_BAD_INPUT; /* a diagonal <= 0 */
    }
    L->rowptr[n] = e;
    L->nnz = e;
    static const double shifts[] = {0.0, 1e-3, 1e-2, 1e-1, 1.0};
    bool done = false;
    for (size_t t = 0; t < sizeof shifts / sizeof *shifts && st == CF_OK && !done; ++t) {
        memcpy(L->val, a, (size_t)e * sizeof *a);
        for (int i = 0; i < n; ++i) L->val[L->rowptr[i + 1] - 1] *= 1.0 + shifts[t];
        if (ic0_numeric(L)) {
            F->shift = shifts[t];
            done = true;
        }
    }
    free(a);
    if (st == CF_OK && !done) st = CF_SINGULAR;
    if (st != CF_OK) cf_ic0_free(F);
    return st;
}

void cf_ic0_apply(const cfIc0 *F, const double *r, double *z)
{
    const cfCsr *L = &F->L;
    /* L y = r */
    for (int i = 0; i < L->rows; ++i) {
        int end = L->rowptr[i + 1] - 1;
        double s = r[i];
        for (int e = L->rowptr[i]; e < end; ++e) s -= L->val[e] * z[L->colidx[e]];
        z[i] = s / L->val[end];
    }
    /* L^T z = y, in place: row i of L is column i of L^T */
    for (int i = L->rows - 1; i >= 0; --i) {
        int end = L->rowptr[i + 1] - 1;
        z[i] /= L->val[end];
        for (int e = L->rowptr[i]; e < end; ++e) z[L->colidx[e]] -= L->val[e] * z[i];
    }
}

/* ---- the solver ----------------------------------------------------------------------------- */

struct cfLinSolver {
    cfLinSolverKind kind;
    const cfCsr *A;
    cfSparseChol *chol; /* CHOLESKY */
    double *binv;       /* PCG_JACOBI: 9 per block */
    cfIc0 ic;           /* PCG_IC0 */
    double tol_rel;
};

void cf_linsolver_free(cfLinSolver *S)
{
    if (!S) return;
    cf_sparse_chol_free(S->chol);
    free(S->binv);
    cf_ic0_free(&S->ic);
    free(S);
}

cfStatus cf_linsolver_setup(const cfCsr *A, cfLinSolverKind kind, double tol_rel, cfLinSolver **out)
{
    *out = NULL;
    if (!A || A->rows != A->cols || kind < 0 || kind >= CF_LINSOLVE_KIND_COUNT ||
        (kind != CF_LINSOLVE_CHOLESKY && !(tol_rel > 0.0 && isfinite(tol_rel))))
        return CF_BAD_INPUT;
    cfLinSolver *S = calloc(1, sizeof *S);
    if (!S) return CF_NO_MEMORY;
    S->kind = kind;
    S->A = A;
    S->tol_rel = tol_rel;
    cfStatus st = CF_OK;
    switch (kind) {
    case CF_LINSOLVE_CHOLESKY: st = cf_sparse_chol_factor(A, &S->chol); break;
    case CF_LINSOLVE_PCG_JACOBI:
        S->binv = malloc((size_t)(A->rows > 0 ? 3 * A->rows : 1) * sizeof *S->binv);
        st = S->binv ? cf_csr_block_diag_inverse(A, S->binv) : CF_NO_MEMORY;
        break;
    case CF_LINSOLVE_PCG_IC0: st = cf_ic0_factor(A, &S->ic); break;
    case CF_LINSOLVE_KIND_COUNT: st = CF_BAD_INPUT; break;
    }
    if (st != CF_OK) {
        cf_linsolver_free(S);
        return st;
    }
    *out = S;
    return CF_OK;
}

int cf_linsolver_work_size(const cfLinSolver *S) { return S->A->rows > 0 ? S->A->rows : 1; }

bool cf_linsolver_reentrant(const cfLinSolver *S) { return S->kind != CF_LINSOLVE_CHOLESKY || cf_sparse_chol_reentrant(); }

static void csr_op(void *ctx, const double *x, double *y) { cf_csr_mul_vec((const cfCsr *)ctx, x, y); }

static void block_jacobi_op(void *ctx, const double *r, double *z)
{
    const cfLinSolver *S = ctx;
    for (int k = 0; k < S->A->rows / 3; ++k) {
        const double *m = &S->binv[9 * k];
        const double *rk = &r[3 * k];
        for (int i = 0; i < 3; ++i) z[3 * k + i] = m[3 * i] * rk[0] + m[3 * i + 1] * rk[1] + m[3 * i + 2] * rk[2];
    }
}

static void ic0_op(void *ctx, const double *r, double *z) { cf_ic0_apply(&((const cfLinSolver *)ctx)->ic, r, z); }

cfStatus cf_linsolver_solve(const cfLinSolver *S, const double *b, double *x, double *work, int *iterations)
{
    if (iterations) *iterations = 0;
    if (S->kind == CF_LINSOLVE_CHOLESKY) {
        cf_sparse_chol_solve_with(S->chol, b, x, work);
        return CF_OK;
    }
    int n = S->A->rows;
    cfCgOptions o = cf_cg_options_default(n);
    o.tol_rel = S->tol_rel;
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cfStatus st = cf_pcg(n, csr_op, (void *)S->A, S->kind == CF_LINSOLVE_PCG_JACOBI ? block_jacobi_op : ic0_op, (void *)S, b,
                         x, &o, &rep);
    if (iterations) *iterations = rep.iterations;
    return st;
}
