/* SPDX-License-Identifier: MIT */
/* Optional sparse Cholesky backend on SuiteSparse CHOLMOD (`make CHOLMOD=1`); same API and
   contract as the hand-written one in linalg_chol.c, which then provides only the ordering. */
#ifdef CF_HAVE_CHOLMOD

#include "cf/cf_linalg.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cholmod.h>

/* what a solve modifies: CHOLMOD's workspace and the dense buffers. They are allocated at
   factorization time so that a solve never allocates (it could not report a failure). */
typedef struct Work {
    cholmod_common cm;    /* CHOLMOD's settings and workspace */
    cholmod_dense *B;     /* right-hand side, n x 1 */
    cholmod_dense *X;     /* solution */
    cholmod_dense *Y, *E; /* cholmod_solve2's workspaces */
} Work;

struct cfSparseChol {
    int n;
    cholmod_factor *L; /* simplicial L L^T with its permutation L->Perm */
    Work *w;
    long nnz;          /* entries of L */
};

void cf_sparse_chol_free(cfSparseChol *F)
{
    if (!F) return;
    if (F->w) {
        cholmod_common *cm = &F->w->cm;
        cholmod_free_factor(&F->L, cm);
        cholmod_free_dense(&F->w->B, cm);
        cholmod_free_dense(&F->w->X, cm);
        cholmod_free_dense(&F->w->Y, cm);
        cholmod_free_dense(&F->w->E, cm);
        cholmod_finish(cm);
        free(F->w);
    }
    free(F);
}

long cf_sparse_chol_nnz(const cfSparseChol *F) { return F ? F->nnz : 0; }

/* X <- A^{-1} B with the buffers of F (the first call allocates X, Y, E; later ones reuse
   them); false when CHOLMOD fails */
static bool solve_buffers(const cfSparseChol *F)
{
    Work *w = F->w;
    int ok = cholmod_solve2(CHOLMOD_A, F->L, w->B, NULL, &w->X, NULL, &w->Y, &w->E, &w->cm);
    return ok && w->X;
}

cfStatus cf_sparse_chol_factor_ordered(const cfCsr *A, cfCholOrdering ordering, cfSparseChol **out)
{
    if (!out) return CF_BAD_INPUT;
    *out = NULL;
    if (!cf_sparse_chol_input_ok(A, ordering)) return CF_BAD_INPUT;
    int n = A->rows;

    cfSparseChol *F = calloc(1, sizeof *F);
    if (!F) return CF_NO_MEMORY;
    F->n = n;
    if (n == 0) {
        *out = F;
        return CF_OK;
    }
    F->w = calloc(1, sizeof *F->w);
    if (!F->w) {
        free(F);
        return CF_NO_MEMORY;
    }
    cholmod_common *cm = &F->w->cm;
    cholmod_start(cm);
    cm->print = 0;                       /* this library never prints */
    cm->supernodal = CHOLMOD_SIMPLICIAL; /* a plain L, as in linalg_chol.c */
    cm->final_ll = 1;                    /* L L^T rather than L D L^T */
    cm->postorder = 0;                   /* keep exactly the ordering we give */
    cm->nmethods = 1;
    bool given = ordering == CF_CHOL_ORDER_RCM || ordering == CF_CHOL_ORDER_ND;
    cm->method[0].ordering = given ? CHOLMOD_GIVEN : CHOLMOD_NATURAL;
    int *perm = malloc((size_t)n * sizeof *perm);
    cfStatus st = CF_NO_MEMORY;
    if (!perm) goto done;
    if (given) {
        st = ordering == CF_CHOL_ORDER_RCM ? cf_csr_rcm(A, perm) : cf_csr_nested_dissection(A, perm);
        if (st != CF_OK) goto done;
    }

    /* the CSR arrays read as compressed columns describe A^T; stype = 1 (upper part of that)
       is the lower triangle of A, the part this API reads. No copy is made. */
    cholmod_sparse S;
    memset(&S, 0, sizeof S);
    S.nrow = S.ncol = (size_t)n;
    S.nzmax = (size_t)A->nnz;
    S.p = A->rowptr;
    S.i = A->colidx;
    S.x = A->val;
    S.stype = 1;
    S.itype = CHOLMOD_INT;
    S.xtype = CHOLMOD_REAL;
    S.dtype = CHOLMOD_DOUBLE;
    S.sorted = 1;
    S.packed = 1;

    st = CF_NO_MEMORY;
    F->L = cholmod_analyze_p(&S, given ? perm : NULL, NULL, 0, cm);
    if (!F->L) goto done;
    cholmod_factorize(&S, F->L, cm);
    if (cm->status == CHOLMOD_NOT_POSDEF) {
        st = CF_SINGULAR;
        goto done;
    }
    if (cm->status != CHOLMOD_OK || !F->L->is_ll || F->L->is_super) goto done;

    /* the same "singular to working precision" test as the hand-written factorization: the
       pivot L_kk^2 must exceed DBL_EPSILON times the diagonal entry of A it came from */
    const int *Lp = F->L->p, *Lnz = F->L->nz, *Perm = F->L->Perm;
    const double *Lx = F->L->x;
    for (int k = 0; k < n; ++k) {
        double d = Lx[Lp[k]] * Lx[Lp[k]];
        if (!(d > DBL_EPSILON * cf_csr_get(A, Perm[k], Perm[k]))) {
            st = CF_SINGULAR;
            goto done;
        }
        F->nnz += Lnz[k];
    }

    /* buffers for the solves: B here, X, Y, E by a first solve */
    F->w->B = cholmod_zeros((size_t)n, 1, CHOLMOD_REAL, cm);
    if (!F->w->B || !solve_buffers(F)) goto done;
    st = CF_OK;
done:
    free(perm);
    if (st != CF_OK) {
        cf_sparse_chol_free(F);
        return st;
    }
    *out = F;
    return CF_OK;
}

/* CHOLMOD's workspace lives in the factor's cholmod_common: one solve at a time */
bool cf_sparse_chol_reentrant(void) { return false; }

void cf_sparse_chol_solve_with(const cfSparseChol *F, const double *b, double *x, double *work)
{
    (void)work;
    cf_sparse_chol_solve(F, b, x);
}

void cf_sparse_chol_solve(const cfSparseChol *F, const double *b, double *x)
{
    int n = F->n;
    if (n == 0) return;
    memcpy(F->w->B->x, b, (size_t)n * sizeof *b);
    /* with all buffers in place CHOLMOD does not allocate; should it fail anyway, x is left
       as it was (this function has no status to report) */
    if (solve_buffers(F)) memcpy(x, F->w->X->x, (size_t)n * sizeof *x);
}

#endif /* CF_HAVE_CHOLMOD */
