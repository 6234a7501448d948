/* SPDX-License-Identifier: MIT */
/* Nested dissection ordering (cf_csr_nested_dissection()): level-structure separators found by
   breadth-first search, applied recursively, on the graph of A with its identical consecutive rows
   merged (the 3 x 3 blocks of a node). */
#include "cf/cf_linalg.h"

#include <stdlib.h>
#include <string.h>

/* ======================================================================================
 * Why and how
 *
 * Cholesky of a matrix whose graph is a 2D mesh of n nodes fills, under a banded ordering (RCM),
 * the whole band: about n sqrt(n) entries and n^2 operations. Nested dissection (George 1973)
 * numbers a small set S that separates the graph into two halves A and B last, after A and B,
 * each numbered the same way: no entry of L couples A and B, so the fill is that of the two halves
 * plus the dense rows of S. On a planar mesh S has O(sqrt n) nodes and the fill is O(n log n),
 * the work O(n^1.5).
 *
 * The separator here is a level of a breadth-first search from a pseudo-peripheral node (the
 * search of RCM's start): every edge joins two adjacent levels, so the level where half of the
 * region is numbered separates the levels below it from those above. Of that level only the nodes
 * that touch the next level are needed in S; the others join the lower side. A region that is not
 * connected is split into its first component and the rest without a separator. Regions of at most
 * ND_LEAF nodes are numbered as they are.
 *
 * Each region is a slice [lo, hi) of one array; a split rearranges the slice to A, B, S and pushes
 * A and B on a stack, so the result is the array itself and nothing recurses.
 * ====================================================================================== */

enum { ND_LEAF = 16 };

typedef struct Graph {
    int n;
    int *ptr, *adj; /* neighbours of node v: adj[ptr[v] .. ptr[v + 1]) (no self loops) */
} Graph;

/* the graph of A with consecutive rows of the same column pattern merged into one node:
   first[v] is the first row of node v, rows first[v] .. first[v + 1] - 1 */
static cfStatus compress(const cfCsr *A, Graph *G, int **first_out)
{
    int n = A->rows;
    int *node_of = malloc((size_t)(n + 1) * sizeof *node_of), *first = malloc((size_t)(n + 2) * sizeof *first);
    if (!node_of || !first) {
        free(node_of), free(first);
        return CF_NO_MEMORY;
    }
    int m = 0;
    for (int i = 0; i < n; ++i) {
        bool same = i > 0 && A->rowptr[i + 1] - A->rowptr[i] == A->rowptr[i] - A->rowptr[i - 1] &&
                    memcmp(A->colidx + A->rowptr[i], A->colidx + A->rowptr[i - 1],
                           (size_t)(A->rowptr[i + 1] - A->rowptr[i]) * sizeof *A->colidx) == 0;
        if (!same) first[m++] = i;
        node_of[i] = m - 1;
    }
    first[m] = n;
    G->n = m;
    G->ptr = calloc((size_t)m + 1, sizeof *G->ptr);
    G->adj = malloc((size_t)(A->nnz + 1) * sizeof *G->adj);
    int *last = malloc((size_t)(m + 1) * sizeof *last);
    if (!G->ptr || !G->adj || !last) {
        free(node_of), free(first), free(last), free(G->ptr), free(G->adj);
        return CF_NO_MEMORY;
    }
    /* the pattern of a node is the pattern of its first row, mapped to nodes without repeats */
    for (int v = 0; v < m; ++v) last[v] = -1;
    int k = 0;
    for (int v = 0; v < m; ++v) {
        G->ptr[v] = k;
        int r = first[v];
        for (int p = A->rowptr[r]; p < A->rowptr[r + 1]; ++p) {
            int w = node_of[A->colidx[p]];
            if (w == v || last[w] == v) continue;
            last[w] = v;
            G->adj[k++] = w;
        }
    }
    G->ptr[m] = k;
    free(node_of), free(last);
    *first_out = first;
    return CF_OK;
}

/* Breadth-first search from @p root inside the region (in[v] == stamp): @p queue gets the reached
   nodes in level order, @p level their levels; returns how many were reached, *depth the number
   of levels and *last where the deepest level starts in queue. */
static int bfs(const Graph *G, const int *in, int stamp, int root, int *level, int *queue, int *depth, int *last)
{
    int head = 0, tail = 0;
    queue[tail++] = root;
    level[root] = 0;
    *last = 0;
    while (head < tail) {
        int v = queue[head++];
        if (level[v] > level[queue[*last]]) *last = head - 1;
        for (int p = G->ptr[v]; p < G->ptr[v + 1]; ++p) {
            int w = G->adj[p];
            if (in[w] == stamp && level[w] < 0) {
                level[w] = level[v] + 1;
                queue[tail++] = w;
            }
        }
    }
    *depth = level[queue[tail - 1]] + 1;
    return tail;
}

static void bfs_reset(const int *queue, int count, int *level)
{
    for (int k = 0; k < count; ++k) level[queue[k]] = -1;
}

cfStatus cf_csr_nested_dissection(const cfCsr *A, int *perm)
{
    if (!A || !perm || A->rows != A->cols) return CF_BAD_INPUT;
    int n = A->rows;
    if (n == 0) return CF_OK;
    Graph G = {0};
    int *first = NULL;
    cfStatus st = compress(A, &G, &first);
    if (st != CF_OK) return st;
    int m = G.n;
    int *order = malloc((size_t)m * sizeof *order), *in = malloc((size_t)m * sizeof *in);
    int *level = malloc((size_t)m * sizeof *level), *queue = malloc((size_t)m * sizeof *queue);
    int *tmp = malloc((size_t)m * sizeof *tmp), *stack = malloc((size_t)(2 * m + 2) * sizeof *stack);
    if (!order || !in || !level || !queue || !tmp || !stack) {
        st = CF_NO_MEMORY;
        goto done;
    }
    for (int v = 0; v < m; ++v) order[v] = v, in[v] = -1, level[v] = -1;
    int top = 0, stamp = 0;
    stack[top++] = 0, stack[top++] = m;
    while (top > 0) {
        int hi = stack[--top], lo = stack[--top], size = hi - lo;
        if (size <= ND_LEAF) continue;
        ++stamp;
        for (int k = lo; k < hi; ++k) in[order[k]] = stamp;
        /* a pseudo-peripheral root: from the region's first node, to a node of smallest degree in
           the deepest level while the depth grows (at most 8 searches) */
        int depth, last, root = order[lo];
        int count = bfs(&G, in, stamp, root, level, queue, &depth, &last);
        for (int tries = 0; tries < 8 && count == size; ++tries) {
            int best = queue[last];
            for (int k = last + 1; k < count; ++k)
                if (G.ptr[queue[k] + 1] - G.ptr[queue[k]] < G.ptr[best + 1] - G.ptr[best]) best = queue[k];
            bfs_reset(queue, count, level);
            int d2, l2;
            count = bfs(&G, in, stamp, best, level, queue, &d2, &l2);
            if (d2 <= depth) { /* no deeper: back to the previous root's levels */
                bfs_reset(queue, count, level);
                count = bfs(&G, in, stamp, root, level, queue, &depth, &last);
                break;
            }
            root = best, depth = d2, last = l2;
        }
        if (count < size) {
            /* not connected: the component reached, then the rest (no separator) */
            int a = 0, b = 0;
            for (int k = lo; k < hi; ++k)
                if (level[order[k]] >= 0) tmp[a++] = order[k];
            for (int k = lo; k < hi; ++k)
                if (level[order[k]] < 0) tmp[a + b++] = order[k];
            bfs_reset(queue, count, level);
            memcpy(order + lo, tmp, (size_t)size * sizeof *order);
            stack[top++] = lo, stack[top++] = lo + a;
            stack[top++] = lo + a, stack[top++] = hi;
            continue;
        }
        if (depth < 3) { /* no level strictly inside: a leaf */
            bfs_reset(queue, count, level);
            continue;
        }
        /* the separating level j: the first at which half of the region is reached, kept off the
           first and last levels */
        int j = level[queue[size / 2]];
        if (j < 1) j = 1;
        if (j > depth - 2) j = depth - 2;
        /* A: levels < j and the nodes of level j without a neighbour in level j + 1; B: levels > j;
           S: the rest of level j */
        int na = 0, nb = 0, ns = 0;
        for (int k = 0; k < count; ++k) {
            int v = queue[k], l = level[v];
            if (l != j) continue;
            bool touches = false;
            for (int p = G.ptr[v]; p < G.ptr[v + 1] && !touches; ++p) touches = in[G.adj[p]] == stamp && level[G.adj[p]] == j + 1;
            if (touches) level[v] = -2; /* marked as separator for the pass below */
        }
        for (int k = 0; k < count; ++k) {
            int v = queue[k];
            if (level[v] != -2 && level[v] <= j) tmp[na++] = v;
        }
        for (int k = 0; k < count; ++k) {
            int v = queue[k];
            if (level[v] > j) tmp[na + nb++] = v;
        }
        for (int k = 0; k < count; ++k) {
            int v = queue[k];
            if (level[v] == -2) tmp[na + nb + ns++] = v;
        }
        for (int k = 0; k < count; ++k) level[queue[k]] = -1;
        memcpy(order + lo, tmp, (size_t)size * sizeof *order);
        stack[top++] = lo, stack[top++] = lo + na;
        stack[top++] = lo + na, stack[top++] = lo + na + nb;
    }
    /* expand the nodes to their rows */
    for (int k = 0, pos = 0; k < m; ++k)
        for (int r = first[order[k]]; r < first[order[k] + 1]; ++r) perm[pos++] = r;
done:
    free(order), free(in), free(level), free(queue), free(tmp), free(stack);
    free(G.ptr), free(G.adj), free(first);
    return st;
}
