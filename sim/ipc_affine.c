/* SPDX-License-Identifier: MIT */
/* Moving rigid bodies under the ipc pipeline as stiff affine bodies (cf_ipc_affine.h): the linear
   map q = J z, the orthogonality potential, the incremental potential in z by the chain rule and
   chapter 9's step (projected Newton, CCD line search, lagged friction) over z. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ipc_affine.h"
#include "cf/cf_ch09.h"
#include "cf/cf_linalg.h"

void cf_ipc_affine_free(cfIpcAffine *a)
{
    free(a->col), free(a->body), free(a->k), free(a->q), free(a->gq), free(a->Hq);
    memset(a, 0, sizeof *a);
}

cfStatus cf_ipc_affine_init(cfIpcAffine *a, const cfIpcSystem *s, int n_body, const int *first, const int *count,
                            const double *k)
{
    memset(a, 0, sizeof *a);
    int n = s->n;
    a->n_node = n;
    a->n_body = n_body;
    a->col = malloc((size_t)(n > 0 ? n : 1) * sizeof *a->col);
    a->body = malloc((size_t)(n > 0 ? n : 1) * sizeof *a->body);
    a->k = malloc((size_t)(n_body > 0 ? n_body : 1) * sizeof *a->k);
    a->q = malloc((size_t)(3 * n + 1) * sizeof *a->q);
    a->gq = malloc((size_t)(3 * n + 1) * sizeof *a->gq);
    if (!a->col || !a->body || !a->k || !a->q || !a->gq) return CF_NO_MEMORY;
    for (int i = 0; i < n; ++i) a->body[i] = -1;
    for (int b = 0; b < n_body; ++b) {
        if (!(k[b] > 0.0) || count[b] < 1 || first[b] < 0 || first[b] + count[b] > n) return CF_BAD_INPUT;
        a->k[b] = k[b];
        for (int i = first[b]; i < first[b] + count[b]; ++i) {
            if (a->body[i] >= 0 || s->fixed[i]) return CF_BAD_INPUT;
            a->body[i] = b;
        }
    }
    int z = 0;
    for (int i = 0; i < n; ++i)
        if (a->body[i] < 0) a->col[i] = z, z += 3;
    for (int b = 0; b < n_body; ++b) {
        for (int i = first[b]; i < first[b] + count[b]; ++i) a->col[i] = z;
        z += 12;
    }
    a->n_z = z;
    return CF_OK;
}

/* row p = 3 i + r of J: the columns and values of the entries (1 for a free node's own coordinate;
   for a body's node 1 at c_r and X_j at A_rj) */
static int jrow(const cfIpcAffine *a, const cfIpcSystem *s, int p, int col[4], double val[4])
{
    int i = p / 3, r = p % 3, c = a->col[i];
    if (a->body[i] < 0) {
        col[0] = c + r, val[0] = 1.0;
        return 1;
    }
    col[0] = c + r, val[0] = 1.0;
    for (int j = 0; j < 3; ++j) col[1 + j] = c + 3 + 3 * r + j, val[1 + j] = s->q_rest[3 * i + j];
    return 4;
}

void cf_ipc_affine_positions(const cfIpcAffine *a, const cfIpcSystem *s, const double *z, double *q)
{
    for (int p = 0; p < 3 * a->n_node; ++p) {
        int col[4];
        double val[4], x = 0.0;
        int m = jrow(a, s, p, col, val);
        for (int e = 0; e < m; ++e) x += val[e] * z[col[e]];
        q[p] = x;
    }
}

double cf_ipc_orthogonality(const double A[9], double k, double g[9], double H[81])
{
    //> ch09:affine-orthogonality
    double C[9], AAt[9], E = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double c = 0.0, d = 0.0;
            for (int l = 0; l < 3; ++l) c += A[3 * l + i] * A[3 * l + j], d += A[3 * i + l] * A[3 * j + l];
            C[3 * i + j] = c - (i == j);
            AAt[3 * i + j] = d;
            E += C[3 * i + j] * C[3 * i + j];
        }
    for (int a = 0; g && a < 3; ++a) /* dE/dA = 4 k A C */
        for (int b = 0; b < 3; ++b) {
            double s = 0.0;
            for (int j = 0; j < 3; ++j) s += A[3 * a + j] * C[3 * j + b];
            g[3 * a + b] = 4.0 * k * s;
        }
    for (int a = 0; H && a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            for (int c = 0; c < 3; ++c)
                for (int d = 0; d < 3; ++d)
                    H[9 * (3 * a + b) + 3 * c + d] = 4.0 * k * ((a == c) * C[3 * d + b] + A[3 * a + d] * A[3 * c + b] +
                                                                (d == b) * AAt[3 * a + c]);
    return k * E;
    //< ch09:affine-orthogonality
}

double cf_ipc_affine_energy(cfIpcAffine *a, const cfIpcSystem *s, const double *z, double *g, double *H, bool project)
{
    //> ch09:affine-energy
    int N = 3 * a->n_node, nz = a->n_z;
    double h2 = s->h * s->h;
    cf_ipc_affine_positions(a, s, z, a->q);
    if (H && !a->Hq && !(a->Hq = malloc(((size_t)9 * a->n_node * a->n_node + 1) * sizeof *a->Hq))) return NAN;
    double f = cf_ipc_energy(s, a->q, g ? a->gq : NULL, H ? a->Hq : NULL, project);
    if (!isfinite(f)) return f;
    if (g) memset(g, 0, (size_t)nz * sizeof *g);
    if (H) memset(H, 0, (size_t)nz * nz * sizeof *H);
    for (int p = 0; p < N; ++p) { /* g = J^T g_q, H = J^T H_q J (J has at most 4 entries a row) */
        int cp[4], cq[4];
        double vp[4], vq[4];
        int mp = jrow(a, s, p, cp, vp);
        for (int e = 0; g && e < mp; ++e) g[cp[e]] += vp[e] * a->gq[p];
        for (int r = 0; H && r < N; ++r) {
            double hpr = a->Hq[(size_t)p * N + r];
            if (hpr == 0.0) continue;
            int mq = jrow(a, s, r, cq, vq);
            for (int e = 0; e < mp; ++e)
                for (int l = 0; l < mq; ++l) H[(size_t)cp[e] * nz + cq[l]] += vp[e] * hpr * vq[l];
        }
    }
    for (int b = 0; b < a->n_body; ++b) { /* + h^2 k |A^T A - I|^2 of each body */
        int c = nz - 12 * (a->n_body - b) + 3; /* the body's A: its 12 columns are the last ones, in order */
        double gb[9], Hb[81];
        f += h2 * cf_ipc_orthogonality(z + c, a->k[b], gb, Hb);
        if (H && project && cf_psd_project(9, Hb) != CF_OK) return NAN;
        for (int i = 0; i < 9; ++i) {
            if (g) g[c + i] += h2 * gb[i];
            for (int j = 0; H && j < 9; ++j) H[(size_t)(c + i) * nz + c + j] += h2 * Hb[9 * i + j];
        }
    }
    return f;
    //< ch09:affine-energy
}

/* the backtracking of the line search from @p alpha (the CCD's start): zn = z + alpha dz, halved
   while f does not decrease (at most max_halvings times; then 0); f of the trials over s->pairs.
   The sparse path's f comes from zenergy() (cf_ipc_energy_blocks()), which adds the terms in
   cf_ipc_energy()'s order (cf_ch09.h), so f and the trials compare like with like to the last bit */
static double halvings(cfIpcAffine *a, const cfIpcSystem *s, const double *z, const double *dz, double f, double alpha,
                       const cfIpcOptions *o, double *zn, cfIpcStats *st)
{
    for (int k = 0;; ++k) {
        for (int p = 0; p < a->n_z; ++p) zn[p] = z[p] + alpha * dz[p];
        if (cf_ipc_affine_energy(a, s, zn, NULL, NULL, false) < f) return alpha;
        if (k == o->max_halvings) return 0.0;
        alpha *= 0.5;
        st->halvings++;
    }
}

/* projected Newton over z (cf_ipc_newton()'s loop with the chain-ruled energy) */
static cfStatus affine_newton(cfIpcAffine *a, const cfIpcSystem *s, double *z, const cfIpcOptions *o, cfIpcStats *st)
{
    //> ch09:affine-newton
    int nz = a->n_z, N = 3 * a->n_node;
    double *g = malloc((size_t)nz * sizeof *g), *dz = malloc((size_t)nz * sizeof *dz);
    double *zn = malloc((size_t)nz * sizeof *zn), *q0 = malloc((size_t)N * sizeof *q0);
    double *dq = malloc((size_t)N * sizeof *dq);
    cfDense H = {0}, L = {0};
    cfStatus status = g && dz && zn && q0 && dq ? cf_dense_init(&H, nz, nz) : CF_NO_MEMORY;
    double f = status == CF_OK ? cf_ipc_affine_energy(a, s, z, g, H.a, true) : NAN;
    if (status == CF_OK && !isfinite(f)) status = CF_BAD_INPUT;
    while (status == CF_OK) {
        st->grad_norm = cf_vec_norm_inf(nz, g) / (s->h * s->h);
        status = cf_dense_cholesky(&H, &L);
        if (status != CF_OK) break;
        cf_dense_cholesky_solve(&L, g, dz);
        cf_dense_free(&L);
        for (int p = 0; p < nz; ++p) dz[p] = -dz[p];
        memcpy(q0, a->q, (size_t)N * sizeof *q0); /* J z */
        cf_ipc_affine_positions(a, s, dz, dq);    /* J dz: the straight node paths of the line search */
        if (cf_vec_norm_inf(N, dq) / s->h <= o->tol) break;
        if (st->iterations >= o->max_iter) {
            status = CF_MAX_ITER;
            break;
        }
        double alpha = cf_ipc_ccd_step(s, q0, dq, o->ccd_fraction);
        st->ccd_clamps += alpha < 1.0;
        alpha = halvings(a, s, z, dz, f, alpha, o, zn, st);
        if (!(alpha > 0.0)) {
            status = CF_STAGNATED;
            break;
        }
        memcpy(z, zn, (size_t)nz * sizeof *z);
        st->iterations++;
        f = cf_ipc_affine_energy(a, s, z, g, H.a, true); /* the contact set of the new iterate */
        if (!isfinite(f)) status = CF_DIVERGED;
    }
    st->energy = f;
    cf_dense_free(&H);
    free(g), free(dz), free(zn), free(q0), free(dq);
    return status;
    //< ch09:affine-newton
}

typedef struct AffineSolve {
    cfIpcAffine *a;
    double *z;
} AffineSolve;

/* Newton over the affine unknowns; the nodes follow z */
static cfStatus affine_solve(void *ctx, cfIpcSystem *s, const cfIpcOptions *o, cfIpcStats *one)
{
    AffineSolve *c = ctx;
    cfStatus st = affine_newton(c->a, s, c->z, o, one);
    cf_ipc_affine_positions(c->a, s, c->z, s->q);
    return st;
}

cfStatus cf_ipc_affine_step(cfIpcAffine *a, cfIpcSystem *s, double *z, const double *z_guess, const cfIpcOptions *opt,
                            cfIpcStats *stats)
{
    cfIpcOptions o = opt ? *opt : cf_ipc_options_default();
    int N = 3 * s->n;
    cf_ipc_step_begin(s);
    if (z_guess) { /* the guess, as far as the straight node paths towards it are safe (CCD) */
        double *dz = malloc((size_t)a->n_z * sizeof *dz), *dq = malloc((size_t)N * sizeof *dq);
        if (!dz || !dq) {
            free(dz), free(dq);
            return CF_NO_MEMORY;
        }
        for (int p = 0; p < a->n_z; ++p) dz[p] = z_guess[p] - z[p];
        cf_ipc_affine_positions(a, s, dz, dq);
        double alpha = cf_ipc_ccd_step(s, s->q, dq, o.ccd_fraction);
        for (int p = 0; p < a->n_z; ++p) z[p] += alpha * dz[p];
        cf_ipc_affine_positions(a, s, z, s->q);
        free(dz), free(dq);
    }
    AffineSolve c = {a, z};
    return cf_ipc_step_lagged(s, &o, affine_solve, &c, stats);
}

/* ---- at scale: the sparse step (cf_ipc_affine_step_sparse()) ----------------------------------------- */

/* the receiver of the local blocks: J^T (w lH) J into triplets over z; fixed nodes' rows and
   columns dropped (their columns get 1 on the diagonal in zdirection()) */
typedef struct ZTrip {
    cfTriplets T;
    const cfIpcAffine *a;
    const cfIpcSystem *s;
    cfStatus st;
    cfCholSuper *chol; /* the symbolic analysis, kept while the pattern stays (lib's supernodal Cholesky) */
} ZTrip;

static void zblock(void *ctx, int k, const int *node, const double *lH, double w)
{
    ZTrip *t = ctx;
    const cfIpcAffine *a = t->a;
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k && t->st == CF_OK; ++j) {
            int ni = node[i], nj = node[j];
            if (t->s->fixed[ni] || t->s->fixed[nj]) continue;
            if (a->body[ni] < 0 && a->body[nj] < 0) { /* two nodes of their own: J is the identity there */
                double m[9];
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c) m[3 * r + c] = w * lH[(3 * i + r) * 3 * k + 3 * j + c];
                t->st = cf_triplets_add_block3(&t->T, a->col[ni] / 3, a->col[nj] / 3, m);
                continue;
            }
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3 && t->st == CF_OK; ++c) {
                    double v = w * lH[(3 * i + r) * 3 * k + 3 * j + c];
                    if (v == 0.0) continue;
                    int cp[4], cq[4];
                    double vp[4], vq[4];
                    int mp = jrow(a, t->s, 3 * ni + r, cp, vp), mq = jrow(a, t->s, 3 * nj + c, cq, vq);
                    for (int e = 0; e < mp; ++e)
                        for (int l = 0; l < mq && t->st == CF_OK; ++l) t->st = cf_triplets_add(&t->T, cp[e], cq[l], vp[e] * v * vq[l]);
                }
        }
}

/* cf_ipc_affine_energy() over s->pairs with the Hessian into @p t's triplets (t may be NULL: f and g only) */
static double zenergy(cfIpcAffine *a, const cfIpcSystem *s, const double *z, double *g, ZTrip *t)
{
    int N = 3 * a->n_node, nz = a->n_z;
    double h2 = s->h * s->h;
    cf_ipc_affine_positions(a, s, z, a->q);
    if (t) cf_triplets_clear(&t->T), t->st = CF_OK;
    double f = cf_ipc_energy_blocks(s, a->q, g ? a->gq : NULL, t ? zblock : NULL, t, true);
    if (!isfinite(f)) return f;
    if (g) {
        memset(g, 0, (size_t)nz * sizeof *g);
        for (int p = 0; p < N; ++p) {
            int cp[4];
            double vp[4];
            int mp = jrow(a, s, p, cp, vp);
            for (int e = 0; e < mp; ++e) g[cp[e]] += vp[e] * a->gq[p];
        }
    }
    for (int b = 0; b < a->n_body; ++b) {
        int c = nz - 12 * (a->n_body - b) + 3;
        double gb[9], Hb[81];
        f += h2 * cf_ipc_orthogonality(z + c, a->k[b], gb, Hb);
        if (t && cf_psd_project(9, Hb) != CF_OK) return NAN;
        for (int i = 0; i < 9; ++i) {
            if (g) g[c + i] += h2 * gb[i];
            for (int j = 0; t && j < 9 && t->st == CF_OK; ++j) t->st = cf_triplets_add(&t->T, c + i, c + j, h2 * Hb[9 * i + j]);
        }
    }
    return t && t->st != CF_OK ? NAN : f;
}

/* dz = -H^-1 g by lib's supernodal sparse Cholesky (nested dissection; the analysis kept while H's
   pattern stays), 1 on the fixed nodes' diagonals */
static cfStatus zdirection(const cfIpcAffine *a, const cfIpcSystem *s, ZTrip *t, const double *g, double *dz)
{
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < s->n && t->st == CF_OK; ++i)
        if (s->fixed[i]) t->st = cf_triplets_add_block3(&t->T, a->col[i] / 3, a->col[i] / 3, I);
    if (t->st != CF_OK) return t->st;
    cfCsr H;
    cfStatus st = cf_csr_from_triplets(&t->T, &H);
    if (st == CF_OK && !cf_chol_super_pattern_is(t->chol, &H)) {
        cf_chol_super_free(t->chol);
        t->chol = NULL;
        st = cf_chol_super_analyze(&H, CF_CHOL_ORDER_ND, &t->chol);
    }
    if (st == CF_OK) st = cf_chol_super_factor(t->chol, &H);
    if (st == CF_OK) {
        cf_chol_super_solve(t->chol, g, dz);
        for (int p = 0; p < a->n_z; ++p) dz[p] = -dz[p];
    }
    cf_csr_free(&H);
    return st;
}

/* affine_newton() with the pairs of the broad phase and the sparse solve */
static cfStatus affine_newton_sparse(cfIpcAffine *a, cfIpcSystem *s, double *z, const cfIpcOptions *o,
                                     const cfIpcBroadPhase *bp, cfIpcStats *st)
{
    int nz = a->n_z, N = 3 * a->n_node;
    const cfIpcPairList *keep = s->pairs;
    cfIpcPairList L = {0};
    ZTrip t = {.a = a, .s = s, .st = CF_OK, .chol = NULL};
    double *g = malloc((size_t)nz * sizeof *g), *dz = malloc((size_t)nz * sizeof *dz);
    double *zn = malloc((size_t)nz * sizeof *zn), *q0 = malloc((size_t)N * sizeof *q0);
    double *dq = malloc((size_t)N * sizeof *dq);
    cfStatus status = g && dz && zn && q0 && dq ? cf_triplets_init(&t.T, nz, nz) : CF_NO_MEMORY;
    if (status == CF_OK) {
        cf_ipc_affine_positions(a, s, z, a->q); /* the pairs within dhat of J z: f, g and H there */
        status = bp->phase(s, a->q, NULL, s->dhat, &L);
    }
    s->pairs = &L;
    double f = status == CF_OK ? zenergy(a, s, z, g, &t) : NAN;
    if (status == CF_OK && !isfinite(f)) status = t.st != CF_OK ? t.st : CF_BAD_INPUT;
    while (status == CF_OK) {
        st->grad_norm = cf_vec_norm_inf(nz, g) / (s->h * s->h);
        status = zdirection(a, s, &t, g, dz);
        if (status != CF_OK) break;
        memcpy(q0, a->q, (size_t)N * sizeof *q0);
        cf_ipc_affine_positions(a, s, dz, dq);
        if (cf_vec_norm_inf(N, dq) / s->h <= o->tol) break;
        if (st->iterations >= o->max_iter) {
            status = CF_MAX_ITER;
            break;
        }
        /* the pairs that can come within dhat on q0 + [0, 1] dq: the CCD's, the trials' and the next iterate's */
        status = bp->phase(s, q0, dq, s->dhat, &L);
        if (status != CF_OK) break;
        double alpha = cf_ipc_ccd_step(s, q0, dq, o->ccd_fraction);
        st->ccd_clamps += alpha < 1.0;
        alpha = halvings(a, s, z, dz, f, alpha, o, zn, st);
        if (!(alpha > 0.0)) {
            status = CF_STAGNATED;
            break;
        }
        memcpy(z, zn, (size_t)nz * sizeof *z);
        st->iterations++;
        f = zenergy(a, s, z, g, &t);
        if (!isfinite(f)) status = t.st != CF_OK ? t.st : CF_DIVERGED;
    }
    st->energy = f;
    s->pairs = keep;
    bp->free(&L);
    cf_chol_super_free(t.chol);
    cf_triplets_free(&t.T);
    free(g), free(dz), free(zn), free(q0), free(dq);
    return status;
}

typedef struct SparseSolve {
    cfIpcAffine *a;
    double *z;
    const cfIpcBroadPhase *bp;
    cfIpcPairList L; /* the pairs within dhat of s->q: the next friction lag's */
    cfStatus bst;
} SparseSolve;

static cfStatus affine_solve_sparse(void *ctx, cfIpcSystem *s, const cfIpcOptions *o, cfIpcStats *one)
{
    SparseSolve *c = ctx;
    cfStatus st = affine_newton_sparse(c->a, s, c->z, o, c->bp, one);
    cf_ipc_affine_positions(c->a, s, c->z, s->q);
    c->bst = c->bp->phase(s, s->q, NULL, s->dhat, &c->L);
    return c->bst == CF_NO_MEMORY ? c->bst : st;
}

cfStatus cf_ipc_affine_step_sparse(cfIpcAffine *a, cfIpcSystem *s, double *z, const double *z_guess, const cfIpcOptions *opt,
                                   const cfIpcBroadPhase *bp, cfIpcStats *stats)
{
    if (!bp || !bp->phase || !bp->free || !bp->min_distance) return CF_BAD_INPUT;
    cfIpcOptions o = opt ? *opt : cf_ipc_options_default();
    int N = 3 * s->n;
    const cfIpcPairList *keep = s->pairs;
    SparseSolve c = {.a = a, .z = z, .bp = bp, .L = {0}, .bst = CF_OK};
    cfIpcStats sum = {0};
    cf_ipc_step_begin(s);
    cfStatus st = CF_OK;
    if (z_guess) { /* the guess, as far as the straight node paths towards it are safe (CCD over the swept pairs) */
        double *dz = malloc((size_t)a->n_z * sizeof *dz), *dq = malloc((size_t)N * sizeof *dq);
        st = dz && dq ? CF_OK : CF_NO_MEMORY;
        if (st == CF_OK) {
            for (int p = 0; p < a->n_z; ++p) dz[p] = z_guess[p] - z[p];
            cf_ipc_affine_positions(a, s, dz, dq);
            st = bp->phase(s, s->q, dq, s->dhat, &c.L);
        }
        if (st == CF_OK) {
            s->pairs = &c.L;
            double alpha = cf_ipc_ccd_step(s, s->q, dq, o.ccd_fraction);
            s->pairs = keep;
            for (int p = 0; p < a->n_z; ++p) z[p] += alpha * dz[p];
            cf_ipc_affine_positions(a, s, z, s->q);
        }
        free(dz), free(dq);
    }
    if (st == CF_OK) st = bp->phase(s, s->q, NULL, s->dhat, &c.L);
    if (st == CF_OK) {
        s->pairs = &c.L; /* the friction lag's pairs: those within dhat of s->q */
        st = cf_ipc_step_lagged(s, &o, affine_solve_sparse, &c, &sum);
        s->pairs = keep;
    }
    if (st == CF_OK || st == CF_MAX_ITER || st == CF_STAGNATED) {
        cfStatus sd = bp->min_distance(s, s->q, &sum.min_dist, &sum.active);
        if (sd != CF_OK) st = sd;
    }
    bp->free(&c.L);
    if (stats) *stats = sum;
    return st;
}
