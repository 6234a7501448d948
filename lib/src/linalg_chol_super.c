/* SPDX-License-Identifier: MIT */
/* Supernodal multifrontal sparse Cholesky (cf_chol_super_*): the symbolic analysis once per
   pattern, then numeric factorizations that reuse it, dense kernels from LAPACK and the BLAS, and
   independent subtrees of the elimination tree on OpenMP's threads. */
#include "cf/cf_linalg.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ======================================================================================
 * Why and how
 *
 * The up-looking factorization of linalg_chol.c computes L one scalar at a time through index
 * arrays. In the factor of a mesh, consecutive columns very often share their pattern below the
 * diagonal (the 3 dofs of a node always do; the columns of a separator nearly do): a "supernode"
 * of such columns is a dense trapezoid m x nc. Numbered in a postorder of the elimination tree,
 * a supernode's columns are consecutive, and its factorization is dense work:
 *
 *   front F (m x m) = the supernode's columns of C = P A P^T
 *                     + the update matrices of its children (extend-add: scattered by row index)
 *   L11 L11^T = F11            (LAPACK dpotrf)
 *   L21 = F21 L11^-T           (BLAS dtrsm)
 *   U = F22 - L21 L21^T        (BLAS dsyrk), handed to the parent supernode
 *
 * (the multifrontal method, Duff and Reid 1983; Liu 1992 reviews it). Supernodes in different
 * subtrees of the elimination tree never meet, so subtrees are factored in parallel. Each
 * supernode's arithmetic is the same whichever thread runs it and whatever ran before, so the
 * factor is bit for bit the same for every thread count.
 *
 * The symbolic part (ordering, tree, postorder, column counts, supernodes and their row
 * structures, where each entry of A goes) depends on the pattern of A only: a cfCholSuper keeps
 * it, and cf_chol_super_factor() is the numeric part alone for every matrix of that pattern.
 * ====================================================================================== */

struct cfCholSuper {
    int n;
    int a_nnz;            /* the analysed pattern of A (a copy) */
    int *a_rowptr, *a_colidx;
    int *a_tpos;          /* a_nnz: where entry (j, i) of entry (i, j) is stored, -1 when it is not */
    int *perm;            /* perm[k]: original index of unknown k (postordered) */
    /* the lower triangle of C = P A P^T by columns: column j holds rows crow[cptr[j] .. cptr[j+1])
       (>= j), with values A->val[csrc[q]] */
    int *cptr, *crow, *csrc;
    int ns;               /* supernodes */
    int *sfirst;          /* ns + 1: supernode s has columns sfirst[s] .. sfirst[s+1] - 1 */
    long *rptr;           /* ns + 1: its rows rows[rptr[s] .. rptr[s+1]): its columns, then ascending */
    int *rows;
    long *lptr;           /* ns + 1: its block of L at lx + lptr[s], column-major m x nc */
    double *lx;
    int *kidptr, *kids;   /* the child supernodes of s: kids[kidptr[s] .. kidptr[s+1]), ascending */
    int n_sub;            /* independent subtrees: supernodes sub_lo[t] .. sub_hi[t] (a postorder range) */
    int *sub_lo, *sub_hi;
    int n_top;            /* the rest, in increasing order (each after its children) */
    int *top;
    long nnz_l;           /* nonzeros of L, diagonal included */
    int max_mu;           /* largest update matrix order (the solve's scratch) */
    bool factored;        /* a numeric factorization succeeded */
    double *work;         /* n + max_mu doubles for the solves */
};

static void *alloc_array(size_t count, size_t size) { return malloc((count > 0 ? count : 1) * size); }

void cf_chol_super_free(cfCholSuper *F)
{
    if (!F) return;
    free(F->a_rowptr), free(F->a_colidx), free(F->a_tpos), free(F->perm);
    free(F->cptr), free(F->crow), free(F->csrc);
    free(F->sfirst), free(F->rptr), free(F->rows), free(F->lptr), free(F->lx);
    free(F->kidptr), free(F->kids), free(F->sub_lo), free(F->sub_hi), free(F->top);
    free(F->work);
    free(F);
}


long cf_chol_super_nnz(const cfCholSuper *F) { return F ? F->nnz_l : 0; }

int cf_chol_super_supernodes(const cfCholSuper *F) { return F ? F->ns : 0; }

bool cf_chol_super_pattern_is(const cfCholSuper *F, const cfCsr *A)
{
    return F && A && A->rows == F->n && A->cols == F->n && A->nnz == F->a_nnz &&
           memcmp(A->rowptr, F->a_rowptr, ((size_t)F->n + 1) * sizeof *A->rowptr) == 0 &&
           memcmp(A->colidx, F->a_colidx, (size_t)A->nnz * sizeof *A->colidx) == 0;
}

/* ---- symbolic ---------------------------------------------------------------------------- */

/* tpos[p]: the position of entry (j, i) for entry p = (i, j) of A, -1 when it is not stored. Rows
   are visited in increasing i, so entry (j, i) of row j is met at a cursor that only moves on:
   O(nnz) (@p cursor: n ints) */
static void transpose_positions(const cfCsr *A, int *tpos, int *cursor)
{
    for (int j = 0; j < A->rows; ++j) cursor[j] = A->rowptr[j];
    for (int i = 0; i < A->rows; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            int j = A->colidx[p], *c = &cursor[j];
            while (*c < A->rowptr[j + 1] && A->colidx[*c] < i) ++*c;
            tpos[p] = *c < A->rowptr[j + 1] && A->colidx[*c] == i ? *c : -1;
        }
}

/* the lower triangle of C = P A P^T by rows (rowptr, colidx: the columns <= row of each row), from
   the lower triangle (j <= i) of A */
static cfStatus lower_rows(const cfCsr *A, const int *pinv, int **rowptr_out, int **colidx_out)
{
    int n = A->rows;
    int *rp = calloc((size_t)n + 2, sizeof *rp), *ci = alloc_array((size_t)A->nnz, sizeof *ci);
    int *next = alloc_array((size_t)n + 1, sizeof *next);
    if (!rp || !ci || !next) {
        free(rp), free(ci), free(next);
        return CF_NO_MEMORY;
    }
    for (int i = 0; i < n; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            int j = A->colidx[p];
            if (j > i) continue;
            int r = pinv[i] > pinv[j] ? pinv[i] : pinv[j];
            rp[r + 1]++;
        }
    for (int k = 0; k < n; ++k) rp[k + 1] += rp[k];
    memcpy(next, rp, (size_t)n * sizeof *next);
    for (int i = 0; i < n; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            int j = A->colidx[p];
            if (j > i) continue;
            int r = pinv[i], c = pinv[j];
            if (c > r) r = pinv[j], c = pinv[i];
            ci[next[r]++] = c;
        }
    free(next);
    *rowptr_out = rp, *colidx_out = ci;
    return CF_OK;
}

/* elimination tree of C from its lower rows (Liu's algorithm with path compression) */
static void etree_rows(int n, const int *rp, const int *ci, int *parent, int *ancestor)
{
    for (int k = 0; k < n; ++k) {
        parent[k] = -1, ancestor[k] = -1;
        for (int p = rp[k]; p < rp[k + 1]; ++p)
            for (int j = ci[p]; j != -1 && j < k;) {
                int up = ancestor[j];
                ancestor[j] = k;
                if (up == -1) parent[j] = k;
                j = up;
            }
    }
}

/* post[k]: the node visited k-th by a depth-first postorder of the forest (children in
   increasing order) */
static cfStatus postorder(int n, const int *parent, int *post)
{
    int *head = alloc_array((size_t)n, sizeof *head), *next = alloc_array((size_t)n, sizeof *next);
    int *stack = alloc_array((size_t)n, sizeof *stack);
    if (!head || !next || !stack) {
        free(head), free(next), free(stack);
        return CF_NO_MEMORY;
    }
    for (int j = 0; j < n; ++j) head[j] = -1;
    for (int j = n - 1; j >= 0; --j) /* backwards, so each child list is ascending */
        if (parent[j] != -1) next[j] = head[parent[j]], head[parent[j]] = j;
    int k = 0;
    for (int r = 0; r < n; ++r) {
        if (parent[r] != -1) continue;
        int top = 0;
        stack[top++] = r;
        while (top > 0) {
            int v = stack[top - 1], c = head[v];
            if (c == -1) {
                post[k++] = v;
                top--;
            } else {
                head[v] = next[c]; /* remove c from v's list and descend */
                stack[top++] = c;
            }
        }
    }
    free(head), free(next), free(stack);
    return CF_OK;
}

/* column counts of L (diagonal included) from the row patterns: row k of L is the set of nodes on
   the tree paths from each j with C[k, j] != 0 up to k */
static void column_counts(int n, const int *rp, const int *ci, const int *parent, int *mark, int *count)
{
    for (int k = 0; k < n; ++k) mark[k] = -1, count[k] = 1;
    for (int k = 0; k < n; ++k) {
        mark[k] = k;
        for (int p = rp[k]; p < rp[k + 1]; ++p)
            for (int j = ci[p]; mark[j] != k; j = parent[j]) {
                mark[j] = k;
                count[j]++;
            }
    }
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* the subtrees factored in parallel: from the roots down, the subtree of most work is replaced by
   its children (its root joins the top part) until there are enough of them */
enum { SUB_TARGET = 16 };

static cfStatus schedule(cfCholSuper *F, const int *sparent)
{
    int ns = F->ns;
    double *work = alloc_array((size_t)ns, sizeof *work);
    int *lo = alloc_array((size_t)ns, sizeof *lo), *set = alloc_array((size_t)ns, sizeof *set);
    char *in_top = calloc((size_t)ns + 1, 1);
    F->sub_lo = alloc_array((size_t)ns, sizeof *F->sub_lo);
    F->sub_hi = alloc_array((size_t)ns, sizeof *F->sub_hi);
    F->top = alloc_array((size_t)ns, sizeof *F->top);
    if (!work || !lo || !set || !in_top || !F->sub_lo || !F->sub_hi || !F->top) {
        free(work), free(lo), free(set), free(in_top);
        return CF_NO_MEMORY;
    }
    /* work of each subtree (about nc m^2 per supernode) and its first supernode */
    for (int s = 0; s < ns; ++s) {
        double m = (double)(F->rptr[s + 1] - F->rptr[s]), nc = F->sfirst[s + 1] - F->sfirst[s];
        work[s] = nc * m * m;
        lo[s] = s;
    }
    for (int s = 0; s < ns; ++s) /* children come before their parent */
        if (sparent[s] != -1) {
            work[sparent[s]] += work[s];
            if (lo[s] < lo[sparent[s]]) lo[sparent[s]] = lo[s];
        }
    int n_set = 0;
    for (int s = 0; s < ns; ++s)
        if (sparent[s] == -1) set[n_set++] = s;
    while (n_set > 0 && n_set < SUB_TARGET) {
        int big = 0;
        for (int k = 1; k < n_set; ++k)
            if (work[set[k]] > work[set[big]]) big = k;
        int r = set[big];
        if (F->kidptr[r + 1] == F->kidptr[r]) break; /* the largest is a single supernode */
        in_top[r] = 1;
        set[big] = set[--n_set];
        for (int q = F->kidptr[r]; q < F->kidptr[r + 1]; ++q) set[n_set++] = F->kids[q];
    }
    /* largest first (the dynamic schedule then balances the threads) */
    for (int a = 1; a < n_set; ++a)
        for (int b = a; b > 0 && work[set[b]] > work[set[b - 1]]; --b) {
            int t = set[b];
            set[b] = set[b - 1], set[b - 1] = t;
        }
    F->n_sub = n_set;
    for (int k = 0; k < n_set; ++k) F->sub_lo[k] = lo[set[k]], F->sub_hi[k] = set[k];
    F->n_top = 0;
    for (int s = 0; s < ns; ++s)
        if (in_top[s]) F->top[F->n_top++] = s;
    free(work), free(lo), free(set), free(in_top);
    return CF_OK;
}

cfStatus cf_chol_super_analyze(const cfCsr *A, cfCholOrdering ordering, cfCholSuper **out)
{
    if (!out) return CF_BAD_INPUT;
    *out = NULL;
    if (!A || A->rows != A->cols || A->rows < 0 ||
        (ordering != CF_CHOL_ORDER_RCM && ordering != CF_CHOL_ORDER_NATURAL && ordering != CF_CHOL_ORDER_ND))
        return CF_BAD_INPUT;
    int n = A->rows;
    cfCholSuper *F = calloc(1, sizeof *F);
    if (!F) return CF_NO_MEMORY;
    F->n = n;
    F->a_nnz = A->nnz;
    F->a_rowptr = alloc_array((size_t)n + 1, sizeof *F->a_rowptr);
    F->a_colidx = alloc_array((size_t)A->nnz, sizeof *F->a_colidx);
    F->a_tpos = alloc_array((size_t)A->nnz, sizeof *F->a_tpos);
    F->perm = alloc_array((size_t)n, sizeof *F->perm);
    int *perm0 = alloc_array((size_t)n, sizeof *perm0), *pinv = alloc_array((size_t)n, sizeof *pinv);
    int *parent = alloc_array((size_t)n, sizeof *parent), *mark = alloc_array((size_t)n, sizeof *mark);
    int *post = alloc_array((size_t)n, sizeof *post), *count = alloc_array((size_t)n, sizeof *count);
    int *snode = alloc_array((size_t)n, sizeof *snode), *sparent = NULL;
    int *rp = NULL, *ci = NULL;
    cfStatus st = CF_NO_MEMORY;
    if (!F->a_rowptr || !F->a_colidx || !F->a_tpos || !F->perm || !perm0 || !pinv || !parent || !mark || !post || !count || !snode)
        goto done;
    memcpy(F->a_rowptr, A->rowptr, ((size_t)n + 1) * sizeof *A->rowptr);
    memcpy(F->a_colidx, A->colidx, (size_t)A->nnz * sizeof *A->colidx);
    transpose_positions(A, F->a_tpos, mark);

    /* 1. the fill-reducing ordering, then its elimination tree's postorder on top of it */
    if (ordering == CF_CHOL_ORDER_NATURAL) {
        for (int k = 0; k < n; ++k) perm0[k] = k;
        st = CF_OK;
    } else {
        st = ordering == CF_CHOL_ORDER_RCM ? cf_csr_rcm(A, perm0) : cf_csr_nested_dissection(A, perm0);
    }
    if (st != CF_OK) goto done;
    for (int k = 0; k < n; ++k) pinv[perm0[k]] = k;
    if ((st = lower_rows(A, pinv, &rp, &ci)) != CF_OK) goto done;
    etree_rows(n, rp, ci, parent, mark);
    if ((st = postorder(n, parent, post)) != CF_OK) goto done;
    for (int k = 0; k < n; ++k) F->perm[k] = perm0[post[k]];
    for (int k = 0; k < n; ++k) pinv[F->perm[k]] = k;
    free(rp), free(ci);
    rp = ci = NULL;
    st = CF_NO_MEMORY;
    if (lower_rows(A, pinv, &rp, &ci) != CF_OK) goto done;
    etree_rows(n, rp, ci, parent, mark); /* the same tree, renumbered: now parent[j] > j, subtrees contiguous */

    /* 2. column counts, fundamental supernodes: j joins j - 1's supernode when j - 1 is its only
       child and L's column j - 1 is column j's pattern plus row j */
    column_counts(n, rp, ci, parent, mark, count);
    for (int j = 0; j < n; ++j) mark[j] = 0; /* children per node */
    for (int j = 0; j < n; ++j)
        if (parent[j] != -1) mark[parent[j]]++;
    int ns = 0;
    for (int j = 0; j < n; ++j) {
        bool join = j > 0 && parent[j - 1] == j && count[j - 1] == count[j] + 1 && mark[j] == 1;
        if (!join) ns++;
        snode[j] = ns - 1;
    }
    F->ns = ns;
    F->sfirst = alloc_array((size_t)ns + 1, sizeof *F->sfirst);
    F->rptr = alloc_array((size_t)ns + 1, sizeof *F->rptr);
    F->lptr = alloc_array((size_t)ns + 1, sizeof *F->lptr);
    F->kidptr = calloc((size_t)ns + 2, sizeof *F->kidptr);
    F->kids = alloc_array((size_t)ns, sizeof *F->kids);
    sparent = alloc_array((size_t)ns, sizeof *sparent);
    if (!F->sfirst || !F->rptr || !F->lptr || !F->kidptr || !F->kids || !sparent) goto done;
    for (int j = 0; j < n; ++j)
        if (j == 0 || snode[j] != snode[j - 1]) F->sfirst[snode[j]] = j;
    F->sfirst[ns] = n;
    F->rptr[0] = F->lptr[0] = 0;
    F->nnz_l = 0;
    F->max_mu = 0;
    for (int s = 0; s < ns; ++s) {
        int f = F->sfirst[s], nc = F->sfirst[s + 1] - f, m = count[f], last = F->sfirst[s + 1] - 1;
        F->rptr[s + 1] = F->rptr[s] + m;
        F->lptr[s + 1] = F->lptr[s] + (long)m * nc;
        F->nnz_l += (long)m * nc - (long)nc * (nc - 1) / 2;
        if (m - nc > F->max_mu) F->max_mu = m - nc;
        sparent[s] = parent[last] == -1 ? -1 : snode[parent[last]];
    }
    for (int s = 0; s < ns; ++s)
        if (sparent[s] != -1) F->kidptr[sparent[s] + 2]++;
    for (int s = 0; s < ns; ++s) F->kidptr[s + 2] += F->kidptr[s + 1];
    for (int s = 0; s < ns; ++s)
        if (sparent[s] != -1) F->kids[F->kidptr[sparent[s] + 1]++] = s;

    /* 3. the lower triangle of C by columns, with where each entry comes from in A */
    F->cptr = calloc((size_t)n + 2, sizeof *F->cptr);
    F->crow = alloc_array((size_t)A->nnz, sizeof *F->crow);
    F->csrc = alloc_array((size_t)A->nnz, sizeof *F->csrc);
    F->rows = alloc_array((size_t)F->rptr[ns], sizeof *F->rows);
    F->work = alloc_array((size_t)n + (size_t)F->max_mu, sizeof *F->work);
    if (!F->cptr || !F->crow || !F->csrc || !F->rows || !F->work) goto done;
    for (int i = 0; i < n; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
            if (A->colidx[p] <= i) {
                int r = pinv[i], c = pinv[A->colidx[p]];
                F->cptr[(c < r ? c : r) + 2]++;
            }
    for (int k = 0; k < n; ++k) F->cptr[k + 2] += F->cptr[k + 1];
    for (int i = 0; i < n; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
            if (A->colidx[p] <= i) {
                int r = pinv[i], c = pinv[A->colidx[p]];
                if (c > r) {
                    int t = r;
                    r = c, c = t;
                }
                int q = F->cptr[c + 1]++;
                F->crow[q] = r, F->csrc[q] = p;
            }

    /* 4. the row structure of each supernode: its columns, the rows of C below them, and its
       children's rows below its last column (mark[] holds the supernode that took a row) */
    for (int j = 0; j < n; ++j) mark[j] = -1;
    for (int s = 0; s < ns; ++s) {
        int f = F->sfirst[s], l = F->sfirst[s + 1], nc = l - f;
        int *R = F->rows + F->rptr[s], m = 0;
        for (int j = f; j < l; ++j) R[m++] = j, mark[j] = s;
        for (int j = f; j < l; ++j)
            for (int q = F->cptr[j]; q < F->cptr[j + 1]; ++q)
                if (mark[F->crow[q]] != s) mark[F->crow[q]] = s, R[m++] = F->crow[q];
        for (int q = F->kidptr[s]; q < F->kidptr[s + 1]; ++q) {
            int c = F->kids[q], cnc = F->sfirst[c + 1] - F->sfirst[c];
            for (long p = F->rptr[c] + cnc; p < F->rptr[c + 1]; ++p) {
                int i = F->rows[p];
                if (mark[i] != s) mark[i] = s, R[m++] = i;
            }
        }
        if (m != F->rptr[s + 1] - F->rptr[s]) { /* the column counts disagree: a bug, not the input */
            st = CF_BAD_INPUT;
            goto done;
        }
        qsort(R + nc, (size_t)(m - nc), sizeof *R, int_cmp);
    }
    st = schedule(F, sparent);

done:
    free(perm0), free(pinv), free(parent), free(mark), free(post), free(count), free(snode), free(sparent);
    free(rp), free(ci);
    if (st != CF_OK) {
        cf_chol_super_free(F);
        return st;
    }
    *out = F;
    return CF_OK;
}

/* ---- numeric ----------------------------------------------------------------------------- */

/* Factor supernode s: assemble its columns from A and its children's update matrices, factor them
   into L, then its own update matrix U[s] = (the children's part below its columns) - L21 L21^T,
   left for the parent (the children's are freed here). Each child's rows below its columns are
   ascending and map to ascending rows of s, so a child's columns that fall in s's columns come
   first: they are added before the factorization, the rest after dsyrk (which then writes U[s]
   without a zeroed start). @p rel, @p diag: n ints and n doubles of scratch. */
static cfStatus front(cfCholSuper *F, const double *aval, int s, double **U, int *rel, double *diag)
{
    int f = F->sfirst[s], nc = F->sfirst[s + 1] - f;
    const int *R = F->rows + F->rptr[s];
    int m = (int)(F->rptr[s + 1] - F->rptr[s]), mu = m - nc;
    double *Ls = F->lx + F->lptr[s];
    for (int i = 0; i < m; ++i) rel[R[i]] = i;
    memset(Ls, 0, (size_t)m * nc * sizeof *Ls);
    for (int j = f; j < f + nc; ++j) {
        double *col = Ls + (long)m * (j - f);
        diag[j - f] = 0.0;
        for (int q = F->cptr[j]; q < F->cptr[j + 1]; ++q) {
            double v = aval[F->csrc[q]];
            col[rel[F->crow[q]]] += v;
            if (F->crow[q] == j) diag[j - f] += v;
        }
    }
    /* extend-add, part 1: the children's columns that are s's columns */
    for (int k = F->kidptr[s]; k < F->kidptr[s + 1]; ++k) {
        int c = F->kids[k], cnc = F->sfirst[c + 1] - F->sfirst[c];
        int cmu = (int)(F->rptr[c + 1] - F->rptr[c]) - cnc;
        const int *Rc = F->rows + F->rptr[c] + cnc;
        for (int jj = 0; jj < cmu && rel[Rc[jj]] < nc; ++jj) {
            double *dst = Ls + (long)m * rel[Rc[jj]];
            const double *src = U[c] + (long)cmu * jj;
            for (int ii = jj; ii < cmu; ++ii) dst[rel[Rc[ii]]] += src[ii];
        }
    }
    /* the dense steps */
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', nc, Ls, m) != 0) return CF_SINGULAR;
    for (int k = 0; k < nc; ++k) { /* a pivot lost in the rounding of its diagonal entry */
        double d = Ls[(long)m * k + k];
        if (!(d * d > DBL_EPSILON * diag[k])) return CF_SINGULAR;
    }
    double *Us = NULL;
    if (mu > 0) {
        if (!(Us = malloc((size_t)mu * mu * sizeof *Us))) return CF_NO_MEMORY;
        cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, mu, nc, 1.0, Ls, m, Ls + nc, m);
        cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, mu, nc, -1.0, Ls + nc, m, 0.0, Us, mu);
    }
    /* extend-add, part 2: the children's columns below s's columns, into U[s] */
    for (int k = F->kidptr[s]; k < F->kidptr[s + 1]; ++k) {
        int c = F->kids[k], cnc = F->sfirst[c + 1] - F->sfirst[c];
        int cmu = (int)(F->rptr[c + 1] - F->rptr[c]) - cnc;
        const int *Rc = F->rows + F->rptr[c] + cnc;
        int jj = 0;
        while (jj < cmu && rel[Rc[jj]] < nc) ++jj;
        for (; jj < cmu; ++jj) {
            double *dst = Us + (long)mu * (rel[Rc[jj]] - nc) - nc;
            const double *src = U[c] + (long)cmu * jj;
            for (int ii = jj; ii < cmu; ++ii) dst[rel[Rc[ii]]] += src[ii];
        }
        free(U[c]);
        U[c] = NULL;
    }
    U[s] = Us;
    return CF_OK;
}

/* cf_sparse_chol_input_ok() for a matrix of the analysed pattern: finite, and max |a_ij - a_ji| (an
   entry stored on one side only against 0: cf_csr_asymmetry()) at most 1e-12 max |a_ij|, with the
   transposed entries' positions found once in the analysis instead of by a search per entry */
static bool values_ok(const cfCholSuper *F, const double *v)
{
    if (!cf_vec_finite(F->a_nnz, v)) return false;
    double asym = 0.0;
    for (int p = 0; p < F->a_nnz; ++p) asym = fmax(asym, fabs(v[p] - (F->a_tpos[p] >= 0 ? v[F->a_tpos[p]] : 0.0)));
    return !(asym > 1e-12 * cf_vec_norm_inf(F->a_nnz, v));
}

cfStatus cf_chol_super_factor(cfCholSuper *F, const cfCsr *A)
{
    if (!F) return CF_BAD_INPUT;
    F->factored = false;
    if (!cf_chol_super_pattern_is(F, A) || !values_ok(F, A->val)) return CF_BAD_INPUT;
    int n = F->n, ns = F->ns;
    if (!F->lx && !(F->lx = alloc_array((size_t)F->lptr[ns], sizeof *F->lx))) return CF_NO_MEMORY;
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
    if (threads > F->n_sub) threads = F->n_sub > 0 ? F->n_sub : 1;
#endif
    double **U = calloc((size_t)ns + 1, sizeof *U);
    int *rel = alloc_array((size_t)n * threads, sizeof *rel);
    double *dg = alloc_array((size_t)n * threads, sizeof *dg);
    cfStatus *sub_st = alloc_array((size_t)F->n_sub, sizeof *sub_st);
    cfStatus st = U && rel && dg && sub_st ? CF_OK : CF_NO_MEMORY;
    if (st == CF_OK) {
        const double *aval = A->val;
        /* the independent subtrees, then the supernodes above them */
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1)
        for (int t = 0; t < F->n_sub; ++t) {
            int tid = 0;
#ifdef _OPENMP
            tid = omp_get_thread_num();
#endif
            cfStatus r = CF_OK;
            for (int s = F->sub_lo[t]; s <= F->sub_hi[t] && r == CF_OK; ++s) r = front(F, aval, s, U, rel + (size_t)n * tid, dg + (size_t)n * tid);
            sub_st[t] = r;
        }
        for (int t = 0; t < F->n_sub && st == CF_OK; ++t) st = sub_st[t];
        for (int k = 0; k < F->n_top && st == CF_OK; ++k) st = front(F, aval, F->top[k], U, rel, dg);
    }
    if (U)
        for (int s = 0; s < ns; ++s) free(U[s]);
    free(U), free(rel), free(dg), free(sub_st);
    F->factored = st == CF_OK;
    return st;
}

bool cf_chol_super_factored(const cfCholSuper *F) { return F && F->factored; }

void cf_chol_super_solve(const cfCholSuper *F, const double *b, double *x)
{
    int n = F->n;
    double *w = F->work, *t = F->work + n;
    for (int k = 0; k < n; ++k) w[k] = b[F->perm[k]];
    /* L y = P b, supernode by supernode */
    for (int s = 0; s < F->ns; ++s) {
        int f = F->sfirst[s], nc = F->sfirst[s + 1] - f, m = (int)(F->rptr[s + 1] - F->rptr[s]), mu = m - nc;
        const double *Ls = F->lx + F->lptr[s];
        const int *R = F->rows + F->rptr[s] + nc;
        cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, nc, Ls, m, w + f, 1);
        if (mu > 0) {
            cblas_dgemv(CblasColMajor, CblasNoTrans, mu, nc, 1.0, Ls + nc, m, w + f, 1, 0.0, t, 1);
            for (int i = 0; i < mu; ++i) w[R[i]] -= t[i];
        }
    }
    /* L^T z = y, backwards */
    for (int s = F->ns - 1; s >= 0; --s) {
        int f = F->sfirst[s], nc = F->sfirst[s + 1] - f, m = (int)(F->rptr[s + 1] - F->rptr[s]), mu = m - nc;
        const double *Ls = F->lx + F->lptr[s];
        const int *R = F->rows + F->rptr[s] + nc;
        if (mu > 0) {
            for (int i = 0; i < mu; ++i) t[i] = w[R[i]];
            cblas_dgemv(CblasColMajor, CblasTrans, mu, nc, -1.0, Ls + nc, m, t, 1, 1.0, w + f, 1);
        }
        cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, nc, Ls, m, w + f, 1);
    }
    for (int k = 0; k < n; ++k) x[F->perm[k]] = w[k];
}
