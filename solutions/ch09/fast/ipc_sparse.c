/* SPDX-License-Identifier: MIT */
/* Chapter 9's projected Newton on the sparse path (cf_ipc_sparse.h): the spatial-hash broad phase
   of the barrier pairs and the CCD, the block-sparse projected Hessian, the sparse Cholesky. */
#include "cf_ipc_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_geometry.h"
#include "cf/cf_linalg.h"

void cf_ipc_pair_list_free(cfIpcPairList *l)
{
    free(l->node), free(l->ee);
    memset(l, 0, sizeof *l);
}

static bool list_push(cfIpcPairList *l, int a, int b, int c, int d, bool ee)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 256;
        int(*node)[4] = realloc(l->node, (size_t)cap * sizeof *node);
        if (!node) return false;
        l->node = node;
        bool *e = realloc(l->ee, (size_t)cap * sizeof *e);
        if (!e) return false;
        l->ee = e;
        l->cap = cap;
    }
    l->node[l->n][0] = a, l->node[l->n][1] = b, l->node[l->n][2] = c, l->node[l->n][3] = d;
    l->ee[l->n++] = ee;
    return true;
}

/* the box of the k nodes @p node swept from q to q + dq, grown by r */
static cfAabb swept_box(const double *q, const double *dq, int k, const int *node, double r)
{
    cfAabb b;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < k; ++i)
        for (int a = 0; a < 3; ++a) {
            double x0 = q[3 * node[i] + a], x1 = dq ? x0 + dq[3 * node[i] + a] : x0;
            lo[a] = fmin(lo[a], fmin(x0, x1)), hi[a] = fmax(hi[a], fmax(x0, x1));
        }
    b.lo = cfu_vec3(lo[0] - r, lo[1] - r, lo[2] - r);
    b.hi = cfu_vec3(hi[0] + r, hi[1] + r, hi[2] + r);
    return b;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the hash of the boxes @p all[i] of the items i with keep[i] (all items when keep is NULL); map[j]:
   the item of the hash's box j, ascending, so a query's items come out ascending as items too */
static cfStatus hash_some(cfSpatialHash *h, const cfAabb *all, int n, const bool *keep, double cell, cfAabb *tmp, int *map)
{
    int m = 0;
    for (int i = 0; i < n; ++i)
        if (!keep || keep[i]) tmp[m] = all[i], map[m++] = i;
    return cf_hash_build(h, tmp, m, cell);
}

cfStatus cf_ipc_broad_phase(const cfIpcSystem *s, const double *q, const double *dq, double r, cfIpcPairList *out)
{
    out->n = 0;
    if (!(r >= 0.0 && isfinite(r)) || !cf_vec_finite(3 * s->n, q) || (dq && !cf_vec_finite(3 * s->n, dq))) return CF_BAD_INPUT;
    int nv = s->n, ne = s->n_edge, nmax = (nv > ne ? nv : ne) + 1;
    cfAabb *vb = malloc((size_t)(nv + ne + nmax) * sizeof *vb), *eb = vb ? vb + nv : NULL, *tmp = vb ? eb + ne : NULL;
    double *ext = malloc((size_t)(ne + 1) * sizeof *ext);
    int *vmap = malloc((size_t)(2 * nmax) * sizeof *vmap), *emap = vmap ? vmap + nmax : NULL;
    bool *moves = malloc((size_t)(nv + ne + 1) * sizeof *moves), *emoves = moves ? moves + nv : NULL;
    /* hv, he: every point and edge (for a triangle or edge with a free node); hf, hef: the free
       points and the edges with a free node, all a fully fixed triangle or edge can pair with
       (static geometry meets only what moves: a fixed sphere's 1 280 triangles need not look at
       its own 642 points) */
    cfSpatialHash hv, he, hf, hef;
    memset(&hv, 0, sizeof hv), memset(&he, 0, sizeof he), memset(&hf, 0, sizeof hf), memset(&hef, 0, sizeof hef);
    cfStatus st = vb && ext && vmap && moves ? CF_OK : CF_NO_MEMORY;
    for (int v = 0; v < nv && st == CF_OK; ++v) vb[v] = swept_box(q, dq, 1, &v, 0.0), moves[v] = !s->fixed[v];
    for (int e = 0; e < ne && st == CF_OK; ++e) {
        eb[e] = swept_box(q, dq, 2, s->edge[e], 0.0);
        emoves[e] = !s->fixed[s->edge[e][0]] || !s->fixed[s->edge[e][1]];
        cfVec3 d = cfu_sub(eb[e].hi, eb[e].lo);
        ext[e] = fmax(d.x, fmax(d.y, d.z));
    }
    /* cells about the size of a typical edge's box grown by r: the median (a static slab's few huge
       edges do not count) */
    double cell = r > 0.0 ? 2.0 * r : 1.0;
    if (st == CF_OK && ne > 0) {
        qsort(ext, (size_t)ne, sizeof *ext, dbl_cmp);
        double m = ext[ne / 2] + 2.0 * r;
        if (m > 0.0 && isfinite(m)) cell = m;
    }
    if (st == CF_OK) st = cf_hash_build(&hv, vb, nv, cell);
    if (st == CF_OK) st = cf_hash_build(&he, eb, ne, cell);
    if (st == CF_OK) st = hash_some(&hf, vb, nv, moves, cell, tmp, vmap);
    if (st == CF_OK) st = hash_some(&hef, eb, ne, emoves, cell, tmp, emap);
    /* point-triangle: each triangle's box grown by r against the points' boxes, points ascending */
    for (int t = 0; t < s->n_tri && st == CF_OK; ++t) {
        const int *T = s->tri[t];
        bool tri_fixed = s->fixed[T[0]] && s->fixed[T[1]] && s->fixed[T[2]];
        const int *item;
        int k = cf_hash_query(tri_fixed ? &hf : &hv, swept_box(q, dq, 3, T, r), &item);
        if (k < 0) st = CF_NO_MEMORY;
        for (int j = 0; j < k && st == CF_OK; ++j) {
            int v = tri_fixed ? vmap[item[j]] : item[j];
            if (v == T[0] || v == T[1] || v == T[2]) continue;
            if (!list_push(out, T[0], T[1], T[2], v, false)) st = CF_NO_MEMORY;
        }
    }
    /* edge-edge: each edge's box grown by r against the later edges' boxes */
    for (int e = 0; e < ne && st == CF_OK; ++e) {
        const int *A = s->edge[e];
        const int *item;
        cfAabb b = eb[e];
        b.lo = cfu_sub(b.lo, cfu_vec3(r, r, r)), b.hi = cfu_add(b.hi, cfu_vec3(r, r, r));
        int k = cf_hash_query(emoves[e] ? &he : &hef, b, &item);
        if (k < 0) st = CF_NO_MEMORY;
        for (int j = 0; j < k && st == CF_OK; ++j) {
            int f = emoves[e] ? item[j] : emap[item[j]];
            if (f <= e) continue;
            const int *B = s->edge[f];
            if (A[0] == B[0] || A[0] == B[1] || A[1] == B[0] || A[1] == B[1]) continue;
            if (!list_push(out, A[0], A[1], B[0], B[1], true)) st = CF_NO_MEMORY;
        }
    }
    cf_hash_free(&hv), cf_hash_free(&he), cf_hash_free(&hf), cf_hash_free(&hef);
    free(vb), free(ext), free(vmap), free(moves);
    if (st != CF_OK) out->n = 0;
    return st;
}

cfStatus cf_ipc_min_distance_sparse(const cfIpcSystem *s, const double *q, double *d, int *active)
{
    /* past the diagonal D of q's box every pair is a candidate: then the minimum is exact anyway */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < s->n; ++i)
        for (int a = 0; a < 3; ++a) lo[a] = fmin(lo[a], q[3 * i + a]), hi[a] = fmax(hi[a], q[3 * i + a]);
    double D = s->n > 0 ? sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                               (hi[2] - lo[2]) * (hi[2] - lo[2]))
                        : 0.0;
    cfIpcPairList L = {0};
    cfIpcSystem v = *s; /* a shallow view with the candidates */
    v.pairs = &L;
    *d = NAN;
    for (double r = s->dhat;; r *= 4.0) {
        cfStatus st = cf_ipc_broad_phase(s, q, NULL, r, &L);
        if (st != CF_OK) {
            cf_ipc_pair_list_free(&L);
            return st;
        }
        *d = cf_ipc_min_distance(&v, q, active);
        if (*d <= r || r >= D || !isfinite(r)) break;
    }
    cf_ipc_pair_list_free(&L);
    return CF_OK;
}

/* ---- the sparse Hessian ------------------------------------------------------------------------ */

/* the receiver of the projected blocks: w lH's 3x3 blocks between free nodes, in the order they come
   (block triplets: one index pair per 9 values) */
typedef struct Sparse {
    int n;          /* nodes */
    int nb, cap;    /* blocks held, allocated */
    int (*ij)[2];   /* block row and column of each */
    double (*v)[9]; /* its values, row-major */
    const bool *fixed;
    cfStatus st;
} Sparse;

static void sparse_add(Sparse *S, int bi, int bj, const double m[9])
{
    if (!cf_vec_finite(9, m)) {
        S->st = CF_BAD_INPUT;
        return;
    }
    if (S->nb == S->cap) {
        int cap = S->cap ? 2 * S->cap : 4096;
        int(*ij)[2] = realloc(S->ij, (size_t)cap * sizeof *ij);
        if (ij) S->ij = ij;
        double(*v)[9] = realloc(S->v, (size_t)cap * sizeof *v);
        if (v) S->v = v;
        if (!ij || !v) {
            S->st = CF_NO_MEMORY;
            return;
        }
        S->cap = cap;
    }
    S->ij[S->nb][0] = bi, S->ij[S->nb][1] = bj;
    memcpy(S->v[S->nb++], m, sizeof S->v[0]);
}

static void sparse_block(void *ctx, int k, const int *node, const double *lH, double w)
{
    Sparse *S = ctx;
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k && S->st == CF_OK; ++j) {
            if (S->fixed[node[i]] || S->fixed[node[j]]) continue; /* fixed rows and columns: dropped */
            double m[9];
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) m[3 * a + b] = w * lH[(3 * i + a) * 3 * k + 3 * j + b];
            sparse_add(S, node[i], node[j], m);
        }
}

/* H (3n x 3n CSR) from the blocks: what cf_csr_from_triplets() makes of their 9 n_b scalar triplets,
   bit for bit (blocks at one position summed in the order they came, explicit zeros kept), by two
   stable counting sorts of the blocks (by column, then by row) instead of the scalars */
static cfStatus sparse_csr(const Sparse *S, cfCsr *H)
{
    int n = S->n, nb = S->nb, N = 3 * n;
    memset(H, 0, sizeof *H);
    int *start = calloc((size_t)n + 1, sizeof *start), *by_col = malloc((size_t)(nb + 1) * sizeof *by_col);
    int *by_row = malloc((size_t)(nb + 1) * sizeof *by_row), *brow = calloc((size_t)n + 1, sizeof *brow);
    int *first = malloc((size_t)(nb + 1) * sizeof *first); /* the merged blocks: their first block */
    double(*sum)[9] = malloc((size_t)(nb + 1) * sizeof *sum);
    cfStatus st = start && by_col && by_row && brow && first && sum ? CF_OK : CF_NO_MEMORY;
    int m = 0;
    if (st == CF_OK) {
        for (int k = 0; k < nb; ++k) start[S->ij[k][1] + 1]++;
        for (int c = 0; c < n; ++c) start[c + 1] += start[c];
        for (int k = 0; k < nb; ++k) by_col[start[S->ij[k][1]]++] = k;
        memset(start, 0, ((size_t)n + 1) * sizeof *start);
        for (int k = 0; k < nb; ++k) start[S->ij[k][0] + 1]++;
        for (int r = 0; r < n; ++r) start[r + 1] += start[r];
        for (int q = 0; q < nb; ++q) by_row[start[S->ij[by_col[q]][0]]++] = by_col[q];
        for (int q = 0; q < nb; ++q) {
            int k = by_row[q];
            if (m > 0 && S->ij[first[m - 1]][0] == S->ij[k][0] && S->ij[first[m - 1]][1] == S->ij[k][1]) {
                for (int e = 0; e < 9; ++e) sum[m - 1][e] += S->v[k][e];
            } else {
                first[m] = k;
                memcpy(sum[m++], S->v[k], sizeof sum[0]);
                brow[S->ij[k][0] + 1]++;
            }
        }
        for (int r = 0; r < n; ++r) brow[r + 1] += brow[r];
        H->rows = H->cols = N;
        H->nnz = 9 * m;
        H->rowptr = malloc(((size_t)N + 1) * sizeof *H->rowptr);
        H->colidx = malloc(((size_t)H->nnz + 1) * sizeof *H->colidx);
        H->val = malloc(((size_t)H->nnz + 1) * sizeof *H->val);
        if (!H->rowptr || !H->colidx || !H->val) st = CF_NO_MEMORY;
    }
    if (st == CF_OK) {
        /* row 3 r + a: for each block of block row r (ascending columns), its row a */
        H->rowptr[0] = 0;
        for (int r = 0; r < n; ++r)
            for (int a = 0; a < 3; ++a) {
                int p = H->rowptr[3 * r + a];
                for (int q = brow[r]; q < brow[r + 1]; ++q)
                    for (int b = 0; b < 3; ++b) {
                        H->colidx[p] = 3 * S->ij[first[q]][1] + b;
                        H->val[p++] = sum[q][3 * a + b];
                    }
                H->rowptr[3 * r + a + 1] = p;
            }
    } else {
        cf_csr_free(H);
    }
    free(start), free(by_col), free(by_row), free(brow), free(first), free(sum);
    return st;
}

/* dq = -H^-1 g with H from the triplets (fixed nodes: 1 on the diagonal) by the supernodal sparse
   Cholesky; *chol keeps the symbolic analysis while H's pattern stays the same (it changes only when
   barrier pairs come or go), so most iterations refactor the values alone */
static cfStatus sparse_direction(const cfIpcSystem *s, Sparse *S, const double *g, double *dq, cfCholSuper **chol)
{
    for (int i = 0; i < s->n && S->st == CF_OK; ++i)
        if (s->fixed[i]) {
            static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            sparse_add(S, i, i, I);
        }
    if (S->st != CF_OK) return S->st;
    cfCsr H;
    cfStatus st = sparse_csr(S, &H);
    if (st == CF_OK && !cf_chol_super_pattern_is(*chol, &H)) {
        cf_chol_super_free(*chol);
        *chol = NULL;
        st = cf_chol_super_analyze(&H, CF_CHOL_ORDER_ND, chol);
    }
    if (st == CF_OK) st = cf_chol_super_factor(*chol, &H);
    if (st == CF_OK) {
        cf_chol_super_solve(*chol, g, dq);
        for (int p = 0; p < 3 * s->n; ++p) dq[p] = -dq[p];
    }
    cf_csr_free(&H);
    return st;
}

/* f, g and (when S is not NULL) the Hessian's triplets at q */
static double energy(const cfIpcSystem *s, const double *q, double *g, Sparse *S)
{
    if (S) S->nb = 0, S->st = CF_OK;
    return cf_ipc_energy_blocks(s, q, g, S ? sparse_block : NULL, S, true);
}

/* the rule's state in one solve (NULL: kappa fixed) */
typedef struct Adapt {
    const cfIpcKappaRule *rule;
    int doublings;
} Adapt;

static cfStatus newton_solve(cfIpcSystem *s, double *q, const cfIpcOptions *opt, cfIpcStats *st, Adapt *ad)
{
    cfIpcOptions o = opt ? *opt : cf_ipc_options_default();
    cfIpcStats stats = {0};
    int N = 3 * s->n;
    bool newton = o.direction == CF_IPC_NEWTON;
    double h2 = s->h * s->h;
    const cfIpcPairList *keep = s->pairs;
    cfIpcPairList L = {0};
    Sparse S = {.n = s->n, .fixed = s->fixed, .st = CF_OK};
    cfCholSuper *chol = NULL;
    double *g = malloc((size_t)(N + 1) * sizeof *g), *dq = malloc((size_t)(N + 1) * sizeof *dq);
    double *qn = malloc((size_t)(N + 1) * sizeof *qn);
    cfStatus status = g && dq && qn ? CF_OK : CF_NO_MEMORY;
    /* the pairs within dhat of q: enough for f, g and H at q */
    if (status == CF_OK) status = cf_ipc_broad_phase(s, q, NULL, s->dhat, &L);
    s->pairs = &L;
    double f = status == CF_OK ? energy(s, q, g, newton ? &S : NULL) : NAN;
    if (status == CF_OK && !isfinite(f)) status = CF_BAD_INPUT;
    double d_prev = ad && status == CF_OK ? cf_ipc_min_distance(s, q, NULL) : INFINITY;
    while (status == CF_OK) {
        stats.grad_norm = cf_vec_norm_inf(N, g) / h2;
        if (newton) {
            status = sparse_direction(s, &S, g, dq, &chol);
            if (status != CF_OK) break;
        } else {
            for (int p = 0; p < N; ++p) dq[p] = s->fixed[p / 3] ? 0.0 : -g[p] / s->mass[p / 3];
        }
        if (cf_vec_norm_inf(N, dq) / s->h <= o.tol) break;
        if (stats.iterations >= o.max_iter) {
            status = CF_MAX_ITER;
            break;
        }
        /* the pairs that can come within dhat anywhere on q + [0, 1] dq: the CCD's, every trial's
           and the next iterate's */
        status = cf_ipc_broad_phase(s, q, dq, s->dhat, &L);
        if (status != CF_OK) break;
        int halvings = 0;
        bool clamped = false;
        double alpha = cf_ipc_line_search(s, q, dq, f, &o, qn, &halvings, &clamped);
        stats.halvings += halvings;
        stats.ccd_clamps += clamped;
        if (!(alpha > 0.0)) {
            status = CF_STAGNATED;
            break;
        }
        cf_vec_copy(N, qn, q);
        stats.iterations++;
        if (ad) {
            /* the pairs near q are in L (the path's candidates): their smallest distance is the
               iterate's when it is below dhat, the only case the rule acts on */
            double d = cf_ipc_min_distance(s, q, NULL);
            if (d < ad->rule->d_thresh && d < d_prev && s->kappa < ad->rule->kappa_max) {
                s->kappa = fmin(2.0 * s->kappa, ad->rule->kappa_max);
                ad->doublings++;
            }
            d_prev = d;
        }
        f = energy(s, q, g, newton ? &S : NULL);
        if (!isfinite(f)) status = CF_DIVERGED;
    }
    stats.energy = f;
    s->pairs = keep;
    cf_ipc_pair_list_free(&L);
    free(S.ij), free(S.v);
    cf_chol_super_free(chol);
    free(g), free(dq), free(qn);
    if (st) *st = stats;
    return status;
}

cfStatus cf_ipc_newton_sparse(cfIpcSystem *s, double *q, const cfIpcOptions *opt, cfIpcStats *st)
{
    return newton_solve(s, q, opt, st, NULL);
}

/* cf_ipc_step_lagged()'s minimizer: Newton from s->q, then the candidates of the new q for the next
   friction lag and the step's final distance */
typedef struct Lag {
    cfIpcPairList L;
    Adapt *ad;
} Lag;

static cfStatus newton_sparse_from_q(void *ctx, cfIpcSystem *s, const cfIpcOptions *o, cfIpcStats *one)
{
    Lag *lag = ctx;
    cfIpcPairList *L = &lag->L;
    cfStatus st = newton_solve(s, s->q, o, one, lag->ad);
    cfStatus b = cf_ipc_broad_phase(s, s->q, NULL, s->dhat, L);
    return b != CF_OK && b != CF_BAD_INPUT ? b : st;
}

cfIpcKappaRule cf_ipc_kappa_rule_default(double kappa, double dhat)
{
    cfIpcKappaRule r = {.kappa_min = kappa, .kappa_max = 100.0 * kappa, .d_thresh = 0.1 * dhat};
    return r;
}

cfStatus cf_ipc_kappa_balance(const cfIpcSystem *s, const double *q, double *kappa)
{
    int N = 3 * s->n;
    *kappa = NAN;
    double *gE = malloc((size_t)(N + 1) * sizeof *gE), *gB = malloc((size_t)(N + 1) * sizeof *gB);
    cfStatus st = gE && gB ? CF_OK : CF_NO_MEMORY;
    cfIpcSystem v = *s; /* shallow views: no pair (E alone), then kappa = 1 (E + h^2 B) */
    cfIpcPairList none = {0};
    if (st == CF_OK) {
        v.pairs = &none;
        double fE = cf_ipc_energy_blocks(&v, q, gE, NULL, NULL, false);
        v.pairs = s->pairs;
        v.kappa = 1.0;
        double f1 = cf_ipc_energy_blocks(&v, q, gB, NULL, NULL, false);
        if (!isfinite(fE) || !isfinite(f1)) st = CF_BAD_INPUT;
    }
    if (st == CF_OK) {
        double eb = 0.0, bb = 0.0;
        for (int p = 0; p < N; ++p) {
            gB[p] -= gE[p]; /* grad(h^2 B): the barrier is linear in kappa */
            eb += gE[p] * gB[p], bb += gB[p] * gB[p];
        }
        *kappa = bb > 0.0 && eb < 0.0 ? -eb / bb : 0.0;
    }
    free(gE), free(gB);
    return st;
}

static cfStatus step_sparse(cfIpcSystem *s, const cfIpcOptions *opt, Adapt *ad, cfIpcStats *stats, cfIpcKappaStats *ks)
{
    cfIpcOptions o = opt ? *opt : cf_ipc_options_default();
    cf_ipc_step_begin(s);
    const cfIpcPairList *keep = s->pairs;
    Lag lag = {.L = {0}, .ad = ad};
    cfIpcPairList *L = &lag.L;
    cfIpcStats sum = {0};
    cfStatus st = cf_ipc_broad_phase(s, s->q, NULL, s->dhat, L);
    if (st == CF_OK && ad) {
        /* kappa_0 from the gradients at q^t with the pairs within dhat of it */
        double k0;
        s->pairs = L;
        st = cf_ipc_kappa_balance(s, s->q, &k0);
        s->pairs = keep;
        if (st == CF_OK) s->kappa = fmin(fmax(k0, ad->rule->kappa_min), ad->rule->kappa_max);
        if (ks) ks->kappa0 = s->kappa;
    }
    if (st == CF_OK) {
        s->pairs = L; /* the friction lag's pairs: those within dhat of s->q */
        st = cf_ipc_step_lagged(s, &o, newton_sparse_from_q, &lag, &sum);
        s->pairs = keep;
    }
    cfStatus sd = st == CF_OK || st == CF_MAX_ITER || st == CF_STAGNATED ? cf_ipc_min_distance_sparse(s, s->q, &sum.min_dist, &sum.active) : CF_OK;
    if (sd != CF_OK) st = sd;
    cf_ipc_pair_list_free(L);
    if (stats) *stats = sum;
    if (ks && ad) ks->kappa = s->kappa, ks->doublings = ad->doublings;
    return st;
}

cfStatus cf_ipc_step_sparse(cfIpcSystem *s, const cfIpcOptions *opt, cfIpcStats *stats)
{
    return step_sparse(s, opt, NULL, stats, NULL);
}

cfStatus cf_ipc_step_sparse_adaptive(cfIpcSystem *s, const cfIpcOptions *opt, const cfIpcKappaRule *rule,
                                     cfIpcStats *stats, cfIpcKappaStats *ks)
{
    if (!rule || !(rule->kappa_min > 0.0 && rule->kappa_max >= rule->kappa_min && isfinite(rule->kappa_max) &&
                   rule->d_thresh > 0.0 && isfinite(rule->d_thresh)))
        return CF_BAD_INPUT;
    Adapt ad = {.rule = rule, .doublings = 0};
    if (ks) memset(ks, 0, sizeof *ks);
    return step_sparse(s, opt, &ad, stats, ks);
}
