/* SPDX-License-Identifier: MIT */
/* Sparse Cholesky by hand: reverse Cuthill-McKee ordering, elimination tree, symbolic row
   patterns, up-looking numeric factorization, and the triangular solves. */
#include "cf/cf_linalg.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* malloc that never returns NULL for a zero-sized request (so NULL always means failure) */
static void *alloc_array(size_t count, size_t size) { return malloc((count > 0 ? count : 1) * size); }

/* ======================================================================================
 * Reverse Cuthill-McKee
 *
 * Cuthill-McKee numbers the graph of A breadth first, so that every node's neighbours get
 * numbers close to its own: the nonzeros stay in a band around the diagonal. Reversing the
 * order does not change the bandwidth but never enlarges (and usually shrinks) the profile,
 * and the fill of a Cholesky factor stays inside the profile ("envelope").
 * ====================================================================================== */

static int off_diagonal_degree(const cfCsr *A, int i)
{
    int d = 0;
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) d += A->colidx[p] != i;
    return d;
}

/*
 * Breadth-first search from @p root over the nodes not yet numbered. Fills @p queue with the
 * reached nodes in level order and returns the number of levels; *last_level is the index in
 * queue where the deepest level starts and *count the number of nodes reached. @p level must
 * be -1 for every node on entry and is restored to -1 before returning.
 */
static int bfs_levels(const cfCsr *A, const bool *numbered, int root, int *level, int *queue, int *last_level,
                      int *count)
{
    int head = 0, tail = 0;
    queue[tail++] = root;
    level[root] = 0;
    int depth = 0, start_of_depth = 0;
    while (head < tail) {
        int v = queue[head++];
        if (level[v] > depth) {
            depth = level[v];
            start_of_depth = head - 1;
        }
        for (int p = A->rowptr[v]; p < A->rowptr[v + 1]; ++p) {
            int w = A->colidx[p];
            if (level[w] < 0 && !numbered[w]) {
                level[w] = level[v] + 1;
                queue[tail++] = w;
            }
        }
    }
    for (int k = 0; k < tail; ++k) level[queue[k]] = -1;
    *last_level = start_of_depth;
    *count = tail;
    return depth + 1;
}

/*
 * George-Liu pseudo-peripheral node: start anywhere in the component, BFS, move to a node of
 * smallest degree in the deepest level, and repeat while the number of levels grows. The
 * result is a node of (nearly) maximal eccentricity, a good start for Cuthill-McKee.
 */
static int pseudo_peripheral(const cfCsr *A, const bool *numbered, int start, const int *degree, int *level,
                             int *queue)
{
    int root = start, last, count;
    int depth = bfs_levels(A, numbered, root, level, queue, &last, &count);
    for (;;) {
        int best = queue[last];
        for (int k = last + 1; k < count; ++k)
            if (degree[queue[k]] < degree[best]) best = queue[k];
        int new_depth = bfs_levels(A, numbered, best, level, queue, &last, &count);
        if (new_depth <= depth) return root;
        root = best;
        depth = new_depth;
    }
}

cfStatus cf_csr_rcm(const cfCsr *A, int *perm)
{
    if (!A || !perm || A->rows != A->cols) return CF_BAD_INPUT;
    int n = A->rows;
    int *degree = alloc_array((size_t)n, sizeof *degree);
    int *level = alloc_array((size_t)n, sizeof *level);
    int *queue = alloc_array((size_t)n, sizeof *queue);
    bool *numbered = calloc((size_t)n + 1, sizeof *numbered);
    if (!degree || !level || !queue || !numbered) {
        free(degree);
        free(level);
        free(queue);
        free(numbered);
        return CF_NO_MEMORY;
    }
    for (int i = 0; i < n; ++i) {
        degree[i] = off_diagonal_degree(A, i);
        level[i] = -1;
    }

    int pos = 0;
    for (int s = 0; s < n; ++s) {
        if (numbered[s]) continue;
        /* a new connected component: Cuthill-McKee from a pseudo-peripheral node */
        int root = pseudo_peripheral(A, numbered, s, degree, level, queue);
        numbered[root] = true;
        perm[pos++] = root;
        for (int head = pos - 1; head < pos; ++head) {
            int v = perm[head], first = pos;
            for (int p = A->rowptr[v]; p < A->rowptr[v + 1]; ++p) {
                int w = A->colidx[p];
                if (!numbered[w]) {
                    numbered[w] = true;
                    perm[pos++] = w;
                }
            }
            /* the newly numbered neighbours in order of increasing degree (insertion sort:
               these lists are short); ties keep the order of the row, which is by index */
            for (int k = first + 1; k < pos; ++k) {
                int w = perm[k], m = k;
                while (m > first && degree[perm[m - 1]] > degree[w]) {
                    perm[m] = perm[m - 1];
                    m--;
                }
                perm[m] = w;
            }
        }
    }
    /* reverse */
    for (int k = 0; k < n / 2; ++k) {
        int tmp = perm[k];
        perm[k] = perm[n - 1 - k];
        perm[n - 1 - k] = tmp;
    }
    free(degree);
    free(level);
    free(queue);
    free(numbered);
    return CF_OK;
}

bool cf_sparse_chol_input_ok(const cfCsr *A, cfCholOrdering ordering)
{
    if (!A || A->rows != A->cols || !cf_vec_finite(A->nnz, A->val) ||
        (ordering != CF_CHOL_ORDER_RCM && ordering != CF_CHOL_ORDER_NATURAL && ordering != CF_CHOL_ORDER_ND))
        return false;
    return !(cf_csr_asymmetry(A) > 1e-12 * cf_vec_norm_inf(A->nnz, A->val));
}

#ifndef CF_HAVE_CHOLMOD /* with CHOLMOD=1, linalg_cholmod.c provides the factorization */

/* ======================================================================================
 * The factorization P A P^T = L L^T
 *
 * With C = P A P^T, row k of L solves the triangular system L[0:k,0:k] l = C[0:k,k], and
 * L[k,k] = sqrt(C[k,k] - l.l) ("up-looking": one row of L per step, using the rows above).
 * Which entries of l are nonzero is known in advance from the elimination tree of C: the
 * nonzero pattern of row k of L is the set of nodes met when walking up the tree from each
 * nonzero C[k,j], j < k, until k. That gives the column counts of L (symbolic phase), so the
 * numeric phase writes into preallocated storage.
 *
 * L is stored by columns (CSC), the diagonal first in each column, then the rows below in
 * increasing order (rows are appended in the order k = 0, 1, ...).
 * ====================================================================================== */

struct cfSparseChol {
    int n;
    int *perm;      /* perm[k]: original index of unknown k */
    long *colptr;   /* n+1 column starts of L */
    int *rowidx;    /* row of each entry of L */
    double *val;    /* value of each entry of L */
    double *work;   /* n doubles for the solves */
};

void cf_sparse_chol_free(cfSparseChol *F)
{
    if (!F) return;
    free(F->perm);
    free(F->colptr);
    free(F->rowidx);
    free(F->val);
    free(F->work);
    free(F);
}

long cf_sparse_chol_nnz(const cfSparseChol *F) { return F ? F->colptr[F->n] : 0; }

/* the lower triangle of C = P A P^T as CSR (rows of C, columns <= row, any order in a row),
   taken from the lower triangle (j <= i) of A */
typedef struct Lower {
    int *rowptr, *colidx;
    double *val;
    double *diag_a; /* C[k,k] as given (for the "singular to working precision" test) */
} Lower;

static void lower_free(Lower *C)
{
    free(C->rowptr);
    free(C->colidx);
    free(C->val);
    free(C->diag_a);
}

static cfStatus lower_build(const cfCsr *A, const int *pinv, Lower *C)
{
    int n = A->rows;
    memset(C, 0, sizeof *C);
    C->rowptr = calloc((size_t)n + 1, sizeof *C->rowptr);
    C->colidx = alloc_array((size_t)A->nnz, sizeof *C->colidx);
    C->val = alloc_array((size_t)A->nnz, sizeof *C->val);
    C->diag_a = calloc((size_t)n + 1, sizeof *C->diag_a);
    if (!C->rowptr || !C->colidx || !C->val || !C->diag_a) return CF_NO_MEMORY;
    /* count, then place: entry (i, j), j <= i, of A goes to row max(pinv i, pinv j) of C */
    for (int i = 0; i < n; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            int j = A->colidx[p];
            if (j > i) continue;
            int r = pinv[i] > pinv[j] ? pinv[i] : pinv[j];
            C->rowptr[r + 1]++;
        }
    for (int k = 0; k < n; ++k) C->rowptr[k + 1] += C->rowptr[k];
    int *next = alloc_array((size_t)n, sizeof *next);
    if (!next) return CF_NO_MEMORY;
    memcpy(next, C->rowptr, (size_t)n * sizeof *next);
    for (int i = 0; i < n; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            int j = A->colidx[p];
            if (j > i) continue;
            int r = pinv[i], c = pinv[j];
            if (c > r) {
                int t = r;
                r = c;
                c = t;
            }
            C->colidx[next[r]] = c;
            C->val[next[r]++] = A->val[p];
            if (r == c) C->diag_a[r] += A->val[p];
        }
    free(next);
    return CF_OK;
}

/*
 * Elimination tree: parent[j] is the row of the first nonzero below the diagonal in column j
 * of L (-1 for a root). Computed row by row from C with path compression through ancestor[].
 */
static void etree(int n, const Lower *C, int *parent, int *ancestor)
{
    for (int k = 0; k < n; ++k) {
        parent[k] = -1;
        ancestor[k] = -1;
        for (int p = C->rowptr[k]; p < C->rowptr[k + 1]; ++p) {
            /* walk from j up to the root of its current subtree and hang that root under k */
            int j = C->colidx[p];
            while (j != -1 && j < k) {
                int up = ancestor[j];
                ancestor[j] = k;
                if (up == -1) parent[j] = k;
                j = up;
            }
        }
    }
}

/*
 * Pattern of row k of L (without the diagonal): the nodes on the tree paths from each j with
 * C[k,j] != 0 up to k. Written to stack[top..n) in topological order (each node before its
 * ancestors), as the solve for row k needs; returns top. mark[i] == k flags visited nodes.
 */
static int ereach(int n, const Lower *C, int k, const int *parent, int *mark, int *path, int *stack)
{
    int top = n;
    mark[k] = k;
    for (int p = C->rowptr[k]; p < C->rowptr[k + 1]; ++p) {
        int len = 0;
        for (int j = C->colidx[p]; mark[j] != k; j = parent[j]) {
            path[len++] = j;
            mark[j] = k;
        }
        /* this path hangs below the nodes already on the stack: put it in front, bottom first */
        while (len > 0) stack[--top] = path[--len];
    }
    return top;
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
    F->perm = alloc_array((size_t)n, sizeof *F->perm);
    F->colptr = calloc((size_t)n + 1, sizeof *F->colptr);
    F->work = alloc_array((size_t)n, sizeof *F->work);
    int *pinv = alloc_array((size_t)n, sizeof *pinv);
    int *parent = alloc_array((size_t)n, sizeof *parent);
    int *mark = alloc_array((size_t)n, sizeof *mark);
    int *path = alloc_array((size_t)n, sizeof *path);
    int *stack = alloc_array((size_t)n, sizeof *stack);
    long *next = alloc_array((size_t)n, sizeof *next);
    Lower C = {0};
    cfStatus st = CF_NO_MEMORY;
    if (!F->perm || !F->colptr || !F->work || !pinv || !parent || !mark || !path || !stack || !next) goto done;

    /* 1. ordering */
    if (ordering == CF_CHOL_ORDER_RCM || ordering == CF_CHOL_ORDER_ND) {
        st = ordering == CF_CHOL_ORDER_RCM ? cf_csr_rcm(A, F->perm) : cf_csr_nested_dissection(A, F->perm);
        if (st != CF_OK) goto done;
    } else {
        for (int k = 0; k < n; ++k) F->perm[k] = k;
    }
    for (int k = 0; k < n; ++k) pinv[F->perm[k]] = k;
    st = lower_build(A, pinv, &C);
    if (st != CF_OK) goto done;

    /* 2. elimination tree (mark serves as the ancestor array here) */
    etree(n, &C, parent, mark);

    /* 3. symbolic: count the entries of each column of L from the row patterns */
    for (int k = 0; k < n; ++k) mark[k] = -1;
    for (int k = 0; k < n; ++k) {
        F->colptr[k + 1] += 1; /* the diagonal */
        for (int t = ereach(n, &C, k, parent, mark, path, stack); t < n; ++t) F->colptr[stack[t] + 1]++;
    }
    for (int k = 0; k < n; ++k) F->colptr[k + 1] += F->colptr[k];
    long nnz_l = F->colptr[n];
    F->rowidx = alloc_array((size_t)nnz_l, sizeof *F->rowidx);
    F->val = alloc_array((size_t)nnz_l, sizeof *F->val);
    st = CF_NO_MEMORY;
    if (!F->rowidx || !F->val) goto done;

    /* 4. numeric, row by row; x (= F->work) is a dense accumulator, zero between rows */
    double *x = F->work;
    for (int k = 0; k < n; ++k) {
        x[k] = 0.0;
        mark[k] = -1;
        next[k] = F->colptr[k] + 1; /* first free slot below the diagonal */
    }
    st = CF_OK;
    for (int k = 0; k < n; ++k) {
        int top = ereach(n, &C, k, parent, mark, path, stack);
        for (int p = C.rowptr[k]; p < C.rowptr[k + 1]; ++p) x[C.colidx[p]] += C.val[p];
        double d = x[k];
        x[k] = 0.0;
        /* solve L[0:k,0:k] l = C[0:k,k] column by column over the pattern of row k */
        for (int t = top; t < n; ++t) {
            int j = stack[t];
            double lkj = x[j] / F->val[F->colptr[j]];
            x[j] = 0.0;
            for (long q = F->colptr[j] + 1; q < next[j]; ++q) x[F->rowidx[q]] -= F->val[q] * lkj;
            d -= lkj * lkj;
            F->rowidx[next[j]] = k;
            F->val[next[j]++] = lkj;
        }
        /* a pivot that is not positive, or lost in the rounding of its diagonal entry */
        if (!(d > 0.0) || d <= DBL_EPSILON * C.diag_a[k]) {
            st = CF_SINGULAR;
            goto done;
        }
        F->rowidx[F->colptr[k]] = k;
        F->val[F->colptr[k]] = sqrt(d);
    }

done:
    free(pinv);
    free(parent);
    free(mark);
    free(path);
    free(stack);
    free(next);
    lower_free(&C);
    if (st != CF_OK) {
        cf_sparse_chol_free(F);
        return st;
    }
    *out = F;
    return CF_OK;
}

void cf_sparse_chol_solve(const cfSparseChol *F, const double *b, double *x) { cf_sparse_chol_solve_with(F, b, x, F->work); }

bool cf_sparse_chol_reentrant(void) { return true; }

void cf_sparse_chol_solve_with(const cfSparseChol *F, const double *b, double *x, double *w)
{
    int n = F->n;
    const long *cp = F->colptr;
    for (int k = 0; k < n; ++k) w[k] = b[F->perm[k]];
    /* L y = P b: column j fixes y_j, then removes it from the rows below */
    for (int j = 0; j < n; ++j) {
        w[j] /= F->val[cp[j]];
        for (long q = cp[j] + 1; q < cp[j + 1]; ++q) w[F->rowidx[q]] -= F->val[q] * w[j];
    }
    /* L^T z = y: row j of L^T is column j of L */
    for (int j = n - 1; j >= 0; --j) {
        double s = w[j];
        for (long q = cp[j] + 1; q < cp[j + 1]; ++q) s -= F->val[q] * w[F->rowidx[q]];
        w[j] = s / F->val[cp[j]];
    }
    for (int k = 0; k < n; ++k) x[F->perm[k]] = w[k];
}

#endif /* !CF_HAVE_CHOLMOD */

cfStatus cf_sparse_chol_factor(const cfCsr *A, cfSparseChol **out)
{
    return cf_sparse_chol_factor_ordered(A, CF_CHOL_ORDER_RCM, out);
}
