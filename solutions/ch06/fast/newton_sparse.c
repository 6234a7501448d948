/* SPDX-License-Identifier: MIT */
/* The sparse Alart-Curnier Newton (reference only, never handed out): the block-sparse Jacobian
   of ch06.6, a minimum-degree block LU, and ch06.2's damped Newton loop around them. See
   cf_newton_sparse.h for what it does and how it relates to the chapter's code. */
#include "cf_newton_sparse.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_solver.h"

/* ---- the block LU ------------------------------------------------------------------------- */

/* Positions are those of the elimination order. Pivot k's structure Adj(k) lists the later
   positions its column of L (and row of U) reaches, fill included, ascending. Blocks: the n pivots
   (overwritten by their inverses), then L(i, k) for i in Adj(k) at n + adjptr[k] + t, then U(k, j)
   at n + nnzl + adjptr[k] + t. upd lists, per pivot, the |Adj(k)|^2 blocks its Schur update
   changes, (i, j) row-major over Adj(k) x Adj(k). */
struct cfBlockLu {
    int n, nnzl;
    int *perm, *iperm;
    int *adjptr, *adj;
    long *updptr;
    int *upd;
    double *blk;
    double *work;
};

void cf_block_lu_free(cfBlockLu *F)
{
    if (!F) return;
    free(F->perm), free(F->iperm), free(F->adjptr), free(F->adj), free(F->updptr), free(F->upd);
    free(F->blk), free(F->work);
    free(F);
}

long cf_block_lu_blocks(const cfBlockLu *F) { return F ? F->n + 2L * F->nnzl : 0; }

/* index of v in the ascending list a[0..m), or -1 */
static int find(const int *a, int m, int v)
{
    int lo = 0, hi = m - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (a[mid] == v) return mid;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* block index of positions (i, j) in the filled pattern, or -1 */
static long lu_pos(const cfBlockLu *F, int i, int j)
{
    if (i == j) return i;
    int lo = i > j ? j : i, hi = i > j ? i : j;
    int t = find(&F->adj[F->adjptr[lo]], F->adjptr[lo + 1] - F->adjptr[lo], hi);
    if (t < 0) return -1;
    return (i > j ? F->n : F->n + (long)F->nnzl) + F->adjptr[lo] + t;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static int popcount_row(const uint64_t *row, size_t words)
{
    int c = 0;
    for (size_t w = 0; w < words; ++w) c += __builtin_popcountll(row[w]);
    return c;
}

cfStatus cf_block_lu_symbolic(const cfBsr *W, cfBlockLu **out)
{
    *out = NULL;
    if (!W || W->br != 3 || W->bc != 3 || W->brows != W->bcols || W->brows < 0) return CF_BAD_INPUT;
    int n = W->brows;
    size_t nn = (size_t)(n > 0 ? n : 1), words = (nn + 63) / 64;
    cfBlockLu *F = calloc(1, sizeof *F);
    uint64_t *g = calloc(nn * words, sizeof *g);
    int *deg = calloc(nn, sizeof *deg);
    char *done = calloc(nn, 1);
    size_t cap = 4 * nn, len = 0;
    int *lst = malloc(cap * sizeof *lst);
    cfStatus st = F && g && deg && done && lst ? CF_OK : CF_NO_MEMORY;
    if (st == CF_OK) {
        F->n = n;
        F->perm = malloc(nn * sizeof *F->perm);
        F->iperm = malloc(nn * sizeof *F->iperm);
        F->adjptr = malloc((nn + 1) * sizeof *F->adjptr);
        F->work = malloc(3 * nn * sizeof *F->work);
        if (!F->perm || !F->iperm || !F->adjptr || !F->work) st = CF_NO_MEMORY;
    }
    /* the contact graph: an edge for every off-diagonal block, both directions */
    for (int a = 0; st == CF_OK && a < n; ++a)
        for (int e = W->rowptr[a]; e < W->rowptr[a + 1]; ++e) {
            int b = W->colidx[e];
            if (b == a) continue;
            g[(size_t)a * words + (size_t)b / 64] |= 1ULL << (b % 64);
            g[(size_t)b * words + (size_t)a / 64] |= 1ULL << (a % 64);
        }
    for (int a = 0; st == CF_OK && a < n; ++a) deg[a] = popcount_row(&g[(size_t)a * words], words);
    /* minimum degree (ties: the lowest index): eliminating v joins its remaining neighbours into a
       clique; each row holds only contacts not yet eliminated */
    for (int k = 0; st == CF_OK && k < n; ++k) {
        int v = -1;
        for (int a = 0; a < n; ++a)
            if (!done[a] && (v < 0 || deg[a] < deg[v])) v = a;
        F->perm[k] = v;
        F->iperm[v] = k;
        done[v] = 1;
        F->adjptr[k] = (int)len;
        const uint64_t *rv = &g[(size_t)v * words];
        if (len + (size_t)deg[v] > cap) {
            while (len + (size_t)deg[v] > cap) cap *= 2;
            int *t = realloc(lst, cap * sizeof *lst);
            if (!t) {
                st = CF_NO_MEMORY;
                break;
            }
            lst = t;
        }
        for (size_t w = 0; w < words; ++w)
            for (uint64_t bits = rv[w]; bits; bits &= bits - 1) lst[len++] = (int)(w * 64 + (size_t)__builtin_ctzll(bits));
        for (int t = F->adjptr[k]; t < (int)len; ++t) {
            int u = lst[t];
            uint64_t *ru = &g[(size_t)u * words];
            for (size_t w = 0; w < words; ++w) ru[w] |= rv[w];
            ru[u / 64] &= ~(1ULL << (u % 64));
            ru[v / 64] &= ~(1ULL << (v % 64));
            deg[u] = popcount_row(ru, words);
        }
    }
    free(g), free(deg), free(done);
    if (st == CF_OK) {
        F->adjptr[n] = (int)len;
        F->nnzl = (int)len;
        F->adj = lst;
        lst = NULL;
        for (int k = 0; k < n; ++k) { /* to positions, ascending */
            for (int t = F->adjptr[k]; t < F->adjptr[k + 1]; ++t) F->adj[t] = F->iperm[F->adj[t]];
            qsort(&F->adj[F->adjptr[k]], (size_t)(F->adjptr[k + 1] - F->adjptr[k]), sizeof *F->adj, cmp_int);
        }
        F->updptr = malloc((nn + 1) * sizeof *F->updptr);
        long nupd = 0;
        for (int k = 0; F->updptr && k < n; ++k) {
            F->updptr[k] = nupd;
            long m = F->adjptr[k + 1] - F->adjptr[k];
            nupd += m * m;
        }
        if (F->updptr) F->updptr[n] = nupd;
        F->upd = malloc((size_t)(nupd > 0 ? nupd : 1) * sizeof *F->upd);
        F->blk = calloc(9 * (nn + 2 * (size_t)len), sizeof *F->blk);
        if (!F->updptr || !F->upd || !F->blk) st = CF_NO_MEMORY;
        for (int k = 0; st == CF_OK && k < n; ++k) {
            const int *A = &F->adj[F->adjptr[k]];
            int m = F->adjptr[k + 1] - F->adjptr[k];
            int *u = &F->upd[F->updptr[k]];
            for (int t1 = 0; t1 < m; ++t1)
                for (int t2 = 0; t2 < m; ++t2) {
                    long p = lu_pos(F, A[t1], A[t2]); /* in the clique that eliminating k made */
                    if (p < 0) {
                        st = CF_BAD_INPUT; /* not reached: the fill is closed under elimination */
                        break;
                    }
                    u[t1 * m + t2] = (int)p;
                }
        }
    }
    free(lst);
    if (st != CF_OK) {
        cf_block_lu_free(F);
        return st;
    }
    *out = F;
    return CF_OK;
}

void cf_block_lu_clear(cfBlockLu *F) { memset(F->blk, 0, 9 * (size_t)cf_block_lu_blocks(F) * sizeof *F->blk); }

bool cf_block_lu_add(cfBlockLu *F, int i, int j, const double m[9])
{
    if (i < 0 || j < 0 || i >= F->n || j >= F->n) return false;
    long p = lu_pos(F, F->iperm[i], F->iperm[j]);
    if (p < 0) return false;
    double *B = &F->blk[9 * p];
    for (int k = 0; k < 9; ++k) B[k] += m[k];
    return true;
}

/* a <- a^-1 (3x3, row-major) by Gauss-Jordan with partial pivoting; false when a pivot is <= tiny */
static bool inv3(double *a, double tiny)
{
    double m[3][6];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] = a[3 * i + j], m[i][3 + j] = i == j;
    for (int c = 0; c < 3; ++c) {
        int p = c;
        for (int i = c + 1; i < 3; ++i)
            if (fabs(m[i][c]) > fabs(m[p][c])) p = i;
        if (!(fabs(m[p][c]) > tiny)) return false;
        if (p != c)
            for (int j = 0; j < 6; ++j) {
                double t = m[c][j];
                m[c][j] = m[p][j];
                m[p][j] = t;
            }
        double d = 1.0 / m[c][c];
        for (int j = 0; j < 6; ++j) m[c][j] *= d;
        for (int i = 0; i < 3; ++i) {
            if (i == c || m[i][c] == 0.0) continue;
            double f = m[i][c];
            for (int j = 0; j < 6; ++j) m[i][j] -= f * m[c][j];
        }
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a[3 * i + j] = m[i][3 + j];
    return true;
}

/* c <- a b, or c -= a b (3x3 row-major) */
static void mul3(const double *a, const double *b, double *c)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) c[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}
static void mul3_sub(const double *a, const double *b, double *c)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) c[3 * i + j] -= a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

bool cf_block_lu_factor(cfBlockLu *F, double tiny)
{
    int n = F->n;
    double *L0 = &F->blk[9 * (size_t)n], *U0 = &F->blk[9 * ((size_t)n + (size_t)F->nnzl)];
    for (int k = 0; k < n; ++k) {
        double *D = &F->blk[9 * (size_t)k];
        if (!inv3(D, tiny)) return false;
        int m = F->adjptr[k + 1] - F->adjptr[k];
        double *L = &L0[9 * (size_t)F->adjptr[k]], *U = &U0[9 * (size_t)F->adjptr[k]];
        for (int t = 0; t < m; ++t) { /* L(i, k) <- A(i, k) D^-1 */
            double T[9];
            mul3(&L[9 * t], D, T);
            memcpy(&L[9 * t], T, sizeof T);
        }
        const int *u = &F->upd[F->updptr[k]];
        for (int t1 = 0; t1 < m; ++t1)
            for (int t2 = 0; t2 < m; ++t2) mul3_sub(&L[9 * t1], &U[9 * t2], &F->blk[9 * (size_t)u[t1 * m + t2]]);
    }
    return true;
}

void cf_block_lu_solve(cfBlockLu *F, const double *b, double *x)
{
    int n = F->n;
    double *y = F->work;
    const double *L0 = &F->blk[9 * (size_t)n], *U0 = &F->blk[9 * ((size_t)n + (size_t)F->nnzl)];
    for (int k = 0; k < n; ++k) memcpy(&y[3 * k], &b[3 * F->perm[k]], 3 * sizeof *y);
    for (int k = 0; k < n; ++k) {
        const double *yk = &y[3 * k];
        for (int t = F->adjptr[k]; t < F->adjptr[k + 1]; ++t) {
            const double *B = &L0[9 * (size_t)t];
            double *yi = &y[3 * F->adj[t]];
            for (int i = 0; i < 3; ++i) yi[i] -= B[3 * i] * yk[0] + B[3 * i + 1] * yk[1] + B[3 * i + 2] * yk[2];
        }
    }
    for (int k = n - 1; k >= 0; --k) {
        double s[3] = {y[3 * k], y[3 * k + 1], y[3 * k + 2]};
        for (int t = F->adjptr[k]; t < F->adjptr[k + 1]; ++t) {
            const double *B = &U0[9 * (size_t)t], *xj = &y[3 * F->adj[t]];
            for (int i = 0; i < 3; ++i) s[i] -= B[3 * i] * xj[0] + B[3 * i + 1] * xj[1] + B[3 * i + 2] * xj[2];
        }
        const double *D = &F->blk[9 * (size_t)k];
        for (int i = 0; i < 3; ++i) y[3 * k + i] = D[3 * i] * s[0] + D[3 * i + 1] * s[1] + D[3 * i + 2] * s[2];
    }
    for (int k = 0; k < n; ++k) memcpy(&x[3 * F->perm[k]], &y[3 * k], 3 * sizeof *y);
}

/* ---- the Alart-Curnier function and its Jacobian in blocks -------------------------------- */

/* One contact of ch06.6 (the same branches as cf_fc_ac_eval(), ties active): Phi_a and the blocks
   A = dPhi/dr at fixed u and B = dPhi/du (row-major), from r_a, u_a, rho and mu. */
static void ac_contact(const double *ra, const double *u, double rh, double mu, double *Phi, double *A, double *B)
{
    memset(A, 0, 9 * sizeof *A);
    memset(B, 0, 9 * sizeof *B);
    double yn = ra[0] - rh * u[0];
    Phi[0] = ra[0] - fmax(0.0, yn);
    if (yn >= 0.0) B[0] = rh;
    else A[0] = 1.0;
    double R = mu * fmax(0.0, yn), yt0 = ra[1] - rh * u[1], yt1 = ra[2] - rh * u[2], ny = hypot(yt0, yt1);
    if (ny <= R) { /* stick */
        Phi[1] = rh * u[1];
        Phi[2] = rh * u[2];
        B[4] = B[8] = rh;
        return;
    }
    double e[2] = {yt0 / ny, yt1 / ny}, g = R / ny; /* slide: onto the circle of radius R */
    Phi[1] = ra[1] - R * e[0];
    Phi[2] = ra[2] - R * e[1];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            double G = g * ((i == j) - e[i] * e[j]);
            A[(1 + i) * 3 + 1 + j] = (i == j) - G;
            B[(1 + i) * 3 + 1 + j] = rh * G;
        }
    if (yn >= 0.0)
        for (int i = 0; i < 2; ++i) {
            A[(1 + i) * 3] = -mu * e[i];
            B[(1 + i) * 3] = mu * rh * e[i];
        }
}

typedef struct Sys {
    const cfFrictionProblem *p;
    const double *rho;
    int n;
    double *u;  /* 3 nc */
    double *Ad; /* 9 nc: the blocks A_a */
    double *Jw; /* 9 nnzb: B_a W_ab, one per block of W */
    double jmax;
    cfBlockLu *F;
    long *wpos, *dpos; /* LU blocks of W's blocks and of the diagonal */
    double *res, *corr; /* 3 nc each: refinement */
} Sys;

/* Phi at r (written to Phi); with assemble the blocks of J too */
static void sys_eval(Sys *S, const double *r, double *Phi, bool assemble)
{
    const cfFrictionProblem *p = S->p;
    const cfBsr *W = &p->W;
    cf_fc_velocity(p, r, S->u);
    double jmax = 0.0;
    for (int a = 0; a < p->nc; ++a) {
        double A[9], B[9];
        ac_contact(&r[3 * a], &S->u[3 * a], S->rho[a], p->mu[a], &Phi[3 * a], A, B);
        if (!assemble) continue;
        memcpy(&S->Ad[9 * a], A, sizeof A);
        for (int k = 0; k < 9; ++k) jmax = fmax(jmax, fabs(A[k]));
        for (int e = W->rowptr[a]; e < W->rowptr[a + 1]; ++e) {
            double *Je = &S->Jw[9 * (size_t)e];
            mul3(B, &W->val[9 * (size_t)e], Je);
            for (int k = 0; k < 9; ++k) jmax = fmax(jmax, fabs(Je[k]));
        }
    }
    if (assemble) S->jmax = jmax;
}

static double sys_merit(Sys *S, const double *r, double *Phi)
{
    sys_eval(S, r, Phi, false);
    double t = 0.5 * cf_vec_dot(S->n, Phi, Phi);
    return isfinite(t) ? t : INFINITY;
}

/* y = (J + delta I) x, or y = J^T x (transpose) */
static void sys_apply(const Sys *S, const double *x, double *y, double delta, bool transpose)
{
    const cfBsr *W = &S->p->W;
    memset(y, 0, (size_t)S->n * sizeof *y);
    for (int a = 0; a < S->p->nc; ++a) {
        const double *xa = &x[3 * a];
        double *ya = &y[3 * a];
        const double *A = &S->Ad[9 * a];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                if (transpose) ya[j] += A[3 * i + j] * xa[i];
                else ya[i] += A[3 * i + j] * xa[j];
            }
        for (int i = 0; i < 3 && delta != 0.0; ++i) ya[i] += delta * xa[i];
        for (int e = W->rowptr[a]; e < W->rowptr[a + 1]; ++e) {
            const double *Je = &S->Jw[9 * (size_t)e];
            int b = W->colidx[e];
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) {
                    if (transpose) y[3 * b + j] += Je[3 * i + j] * xa[i];
                    else ya[i] += Je[3 * i + j] * x[3 * b + j];
                }
        }
    }
}

/* factor J + delta I; false when a pivot is below 1e-13 max|J_ij| */
static bool sys_factor(Sys *S, double delta)
{
    cfBlockLu *F = S->F;
    cf_block_lu_clear(F);
    const cfBsr *W = &S->p->W;
    for (int a = 0; a < S->p->nc; ++a) {
        double *D = &F->blk[9 * (size_t)S->dpos[a]];
        for (int k = 0; k < 9; ++k) D[k] += S->Ad[9 * a + k];
        D[0] += delta, D[4] += delta, D[8] += delta;
    }
    for (int e = 0; e < W->nnzb; ++e) {
        double *B = &F->blk[9 * (size_t)S->wpos[e]];
        for (int k = 0; k < 9; ++k) B[k] += S->Jw[9 * (size_t)e + k];
    }
    return cf_block_lu_factor(F, 1e-13 * fmax(S->jmax, 1e-300));
}

/* solve (J + delta I) d = rhs with the factors and up to two refinement steps; true when the
   linear residual ends at most 1e-8 |rhs| */
static bool sys_solve(Sys *S, const double *rhs, double *d, double delta, int *refinements)
{
    int n = S->n;
    double nb = cf_vec_norm(n, rhs);
    cf_block_lu_solve(S->F, rhs, d);
    for (int it = 0;; ++it) {
        if (!cf_vec_finite(n, d)) return false;
        sys_apply(S, d, S->res, delta, false);
        for (int i = 0; i < n; ++i) S->res[i] = rhs[i] - S->res[i];
        double nr = cf_vec_norm(n, S->res);
        if (nr <= 1e-8 * nb) return true;
        if (it == 2) return false;
        cf_block_lu_solve(S->F, S->res, S->corr);
        for (int i = 0; i < n; ++i) d[i] += S->corr[i];
        ++*refinements;
    }
}

/* the Newton direction J d = rhs; the reference's rule for a singular J (cf_newton_direction()) */
static cfStatus sys_direction(Sys *S, const double *rhs, double *d, bool *regularized, int *refinements)
{
    *regularized = false;
    if (sys_factor(S, 0.0) && sys_solve(S, rhs, d, 0.0, refinements)) return CF_OK;
    double m = fmax(1.0, S->jmax), delta = fmin(fmax(cf_vec_norm(S->n, rhs), 1e-10 * m), 1e-2 * m);
    *regularized = true;
    if (sys_factor(S, delta) && sys_solve(S, rhs, d, delta, refinements)) return CF_OK;
    return CF_SINGULAR;
}

static void sys_free(Sys *S)
{
    free(S->u), free(S->Ad), free(S->Jw), free(S->wpos), free(S->dpos), free(S->res), free(S->corr);
    cf_block_lu_free(S->F);
}

static cfStatus sys_init(Sys *S, const cfFrictionProblem *p, const double *rho)
{
    memset(S, 0, sizeof *S);
    S->p = p;
    S->rho = rho;
    S->n = 3 * p->nc;
    size_t nc = (size_t)(p->nc > 0 ? p->nc : 1), nb = (size_t)(p->W.nnzb > 0 ? p->W.nnzb : 1);
    S->u = malloc(3 * nc * sizeof *S->u);
    S->Ad = malloc(9 * nc * sizeof *S->Ad);
    S->Jw = malloc(9 * nb * sizeof *S->Jw);
    S->wpos = malloc(nb * sizeof *S->wpos);
    S->dpos = malloc(nc * sizeof *S->dpos);
    S->res = malloc(3 * nc * sizeof *S->res);
    S->corr = malloc(3 * nc * sizeof *S->corr);
    if (!S->u || !S->Ad || !S->Jw || !S->wpos || !S->dpos || !S->res || !S->corr) return CF_NO_MEMORY;
    cfStatus st = cf_block_lu_symbolic(&p->W, &S->F);
    if (st != CF_OK) return st;
    for (int a = 0; a < p->nc; ++a) S->dpos[a] = S->F->iperm[a];
    for (int a = 0; a < p->nc; ++a)
        for (int e = p->W.rowptr[a]; e < p->W.rowptr[a + 1]; ++e)
            S->wpos[e] = lu_pos(S->F, S->F->iperm[a], S->F->iperm[p->W.colidx[e]]);
    return CF_OK;
}

/* ---- the Newton loop (ch06.2's rules) ------------------------------------------------------ */

/* Armijo back-tracking along d (theta(x + t d) <= theta + sigma t slope, t = 2^-j); the accepted
   point in xt, Phi there in Ht; 0 when no step is accepted */
static double armijo(Sys *S, const cfNewtonOptions *o, const double *x, const double *d, double theta, double slope,
                     double *xt, double *Ht, double *theta_t, int *backtracks)
{
    double t = 1.0;
    for (int j = 0; j <= o->max_backtracks; ++j, t *= 0.5) {
        for (int i = 0; i < S->n; ++i) xt[i] = x[i] + t * d[i];
        *theta_t = sys_merit(S, xt, Ht);
        if (*theta_t <= theta + o->sigma * t * slope) return t;
        if (j < o->max_backtracks) ++*backtracks;
    }
    return 0.0;
}

static cfStatus refuse(cfReport *rep, cfStatus st)
{
    if (rep) rep->status = st;
    return st;
}

cfStatus cf_fc_newton_ac_sparse(const cfFrictionProblem *p, const cfNewtonOptions *o, double *r, cfReport *rep,
                                cfNewtonStats *stats)
{
    double t0 = cf_seconds();
    if (!p || p->nc < 0 || cf_newton_options_check(o, NULL) != CF_OK) return refuse(rep, CF_BAD_INPUT);
    if (p->W.br != 3 || p->W.bc != 3 || p->W.brows != p->nc || p->W.bcols != p->nc) return refuse(rep, CF_BAD_INPUT);
    int n = 3 * p->nc;
    if (!cf_vec_finite(n, p->q) || !cf_vec_finite(n, r) || !cf_vec_finite(9 * p->W.nnzb, p->W.val))
        return refuse(rep, CF_BAD_INPUT);
    for (int a = 0; a < p->nc; ++a)
        if (!(p->mu[a] >= 0.0) || isinf(p->mu[a])) return refuse(rep, CF_BAD_INPUT);
    if (rep) cf_report_init(rep, rep->history, rep->history_cap);
    cfNewtonStats local = {0};
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    double res = cf_fc_residual(p, r);
    cfStatus st = CF_MAX_ITER;
    cfStopReason why = CF_STOP_MAX_ITER;
    int k = 0;
    if (res <= o->tol) {
        st = CF_OK;
        why = CF_STOP_ABSOLUTE;
    }
    size_t nn = (size_t)(n > 0 ? n : 1);
    double *rho = malloc((size_t)(p->nc > 0 ? p->nc : 1) * sizeof *rho);
    double *H = malloc(nn * sizeof *H), *d = malloc(nn * sizeof *d), *xt = malloc(nn * sizeof *xt),
           *Ht = malloc(nn * sizeof *Ht), *rhs = malloc(nn * sizeof *rhs);
    Sys S;
    memset(&S, 0, sizeof S);
    if (st == CF_MAX_ITER) {
        if (!rho || !H || !d || !xt || !Ht || !rhs) st = CF_NO_MEMORY;
        else {
            if (o->scale) cf_fc_rho_scaling(p, rho);
            else
                for (int a = 0; a < p->nc; ++a) rho[a] = 1.0;
            cfStatus si = sys_init(&S, p, rho);
            if (si != CF_OK) st = si;
        }
    }
    double theta = st == CF_MAX_ITER ? sys_merit(&S, r, H) : 0.0;
    if (st == CF_MAX_ITER && !isfinite(theta)) {
        st = CF_DIVERGED;
        why = CF_STOP_DIVERGENCE;
    }
    while (st == CF_MAX_ITER && k < o->max_iter) {
        sys_eval(&S, r, H, true);
        for (int i = 0; i < n; ++i) rhs[i] = -H[i];
        bool reg = false;
        cfStatus ds = sys_direction(&S, rhs, d, &reg, &stats->linear_iters);
        stats->singular += reg;
        double theta_t = INFINITY;
        double t = ds != CF_OK ? 0.0 : armijo(&S, o, r, d, theta, -2.0 * theta, xt, Ht, &theta_t, &stats->backtracks);
        if (t == 0.0) { /* steepest descent on theta: d = -J^T Phi, slope -|J^T Phi|^2 */
            ++stats->fallbacks;
            sys_apply(&S, H, d, 0.0, true);
            double g2 = cf_vec_dot(n, d, d);
            for (int i = 0; i < n; ++i) d[i] = -d[i];
            t = g2 > 0.0 && isfinite(g2) ? armijo(&S, o, r, d, theta, -g2, xt, Ht, &theta_t, &stats->backtracks) : 0.0;
        }
        if (t == 0.0) {
            st = CF_STAGNATED;
            why = CF_STOP_STAGNATION;
            break;
        }
        memcpy(r, xt, nn * sizeof *r);
        memcpy(H, Ht, nn * sizeof *H);
        theta = theta_t;
        ++k;
        res = cf_fc_residual(p, r);
        if (rep) cf_report_push(rep, res);
        if (!isfinite(res)) {
            st = CF_DIVERGED;
            why = CF_STOP_DIVERGENCE;
        } else if (res <= o->tol) {
            st = CF_OK;
            why = CF_STOP_ABSOLUTE;
        }
    }
    sys_free(&S);
    free(rho), free(H), free(d), free(xt), free(Ht), free(rhs);
    if (rep) {
        rep->status = st;
        rep->reason = st == CF_OK ? CF_STOP_ABSOLUTE : why;
        rep->iterations = k;
        rep->residual = res;
        rep->seconds = cf_seconds() - t0;
    }
    return st;
}

/* ---- the registry's row ------------------------------------------------------------------- */

static cfStatus sparse_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep)
{
    (void)work;
    cfNewtonOptions o = cf_newton_options_default();
    o.max_iter = par->max_iter;
    o.tol = par->tol;
    return cf_fc_newton_ac_sparse(p->fc, &o, x, rep, NULL);
}

const cfSolver cf_solver_newton_ac_sparse = {
    .name = "newton-ac-sparse", .chapter = 6, .form = CF_FORM_FC3D, .contacts = true, .measure = CF_MEASURE_NATURAL_MAP,
    .solve = sparse_solve,
    .summary = "Alart-Curnier Newton as newton-ac, its Jacobian in 3x3 blocks and a minimum-degree block LU (reference only)"};
