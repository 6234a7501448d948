/* SPDX-License-Identifier: MIT */
/* Chapter 4, exercises ch04.4 and ch04.5: principal pivoting with Murty's least-index rule and
   block principal pivoting with the Júdice–Pires safeguard. Specification: cf_ch04.h. */
#include "cf/cf_ch04.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- provided: the principal subproblem shared by both methods ----------------------------- */

typedef struct Principal {
    int n;
    cfDense A;            /* dense copy of the LCP matrix */
    const double *b;
    double *x, *w;        /* iterate and w = A x + b */
    unsigned char *free_; /* 1 when the index is in F */
    unsigned char *label; /* cfPivotLabel, for the trace */
    int *idx;             /* scratch: the indices of F */
    cfDense Aff;          /* scratch: n x n, the leading |F| x |F| block is used */
    double *rhs, *sol;    /* scratch */
    double tol_w, tol_x;
    int pivots, max_pivots;
    const cfPivotOptions *opt;
    cfReport *rep;
} Principal;

/*
 * Solve the principal subproblem of the current F: A_FF x_F = -b_F, x = 0 off F, w = A x + b
 * with w_F = 0 exactly. CF_SINGULAR when A_FF is singular.
 */
static cfStatus principal_solve(Principal *s)
{
    const int n = s->n;
    int k = 0;
    for (int i = 0; i < n; ++i)
        if (s->free_[i]) s->idx[k++] = i;
    memset(s->x, 0, (size_t)n * sizeof *s->x);
    if (k > 0) {
        cfDense M = {k, k, s->Aff.a};
        for (int i = 0; i < k; ++i) {
            for (int j = 0; j < k; ++j) M.a[i * k + j] = s->A.a[(long)s->idx[i] * n + s->idx[j]];
            s->rhs[i] = -s->b[s->idx[i]];
        }
        cfStatus st = cf_dense_solve(&M, s->rhs, s->sol);
        if (st != CF_OK) return st;
        for (int i = 0; i < k; ++i) s->x[s->idx[i]] = s->sol[i];
    }
    cf_dense_mul_vec(&s->A, s->x, s->w);
    for (int i = 0; i < n; ++i) s->w[i] = s->free_[i] ? 0.0 : s->w[i] + s->b[i];
    return CF_OK;
}

/* Is index i infeasible for its set? */
static bool principal_violates(const Principal *s, int i)
{
    return s->free_[i] ? s->x[i] < -s->tol_x : s->w[i] < -s->tol_w;
}

/* History and trace after a pivot that moved index i (or, for a block pivot, i = -1). */
static void principal_notify(Principal *s, int moved)
{
    if (s->opt->trace)
        for (int i = 0; i < s->n; ++i) s->label[i] = s->free_[i] ? CF_PIV_FREE : CF_PIV_LOWER;
    cfPivotEvent ev = {s->pivots, s->n, moved, -1, 0.0, s->label, s->x, s->w};
    cf_pivot_notify(s->opt, s->rep, &ev);
}

/* ---- ch04.4 --------------------------------------------------------------------------------- */

//> ch04:murty
// BEGIN SOLUTION ch04.4
static cfStatus murty_run(Principal *s)
{
    for (;;) {
        cfStatus st = principal_solve(s);
        if (st != CF_OK) return st;
        int i = 0; /* the least index that violates its set */
        while (i < s->n && !principal_violates(s, i)) ++i;
        if (i == s->n) return CF_OK;
        if (s->pivots >= s->max_pivots) return CF_MAX_ITER;
        s->free_[i] = !s->free_[i];
        s->pivots++;
        principal_notify(s, i);
    }
}
// END SOLUTION
// STUB ch04.4: /* a static helper that runs Murty's method on the Principal workspace s */
//< ch04:murty

/* ---- ch04.5 --------------------------------------------------------------------------------- */

//> ch04:bpp
// BEGIN SOLUTION ch04.5
/* FNV-1a hash of the free set, to notice a repeated index set */
static uint64_t set_hash(const Principal *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < s->n; ++i) h = (h ^ s->free_[i]) * 1099511628211ULL;
    return h;
}

static cfStatus bpp_run(Principal *s)
{
    const int n = s->n;
    const int pbar = s->opt->bpp_pbar;
    int ninf_best = n + 1, p = pbar;
    uint64_t seen[64]; /* the last index sets of the current run of single pivots (a ring) */
    int n_seen = 0, next = 0;
    for (;;) {
        if (s->pivots >= s->max_pivots) return CF_MAX_ITER;
        cfStatus st = principal_solve(s);
        s->pivots++; /* BPP counts linear solves */
        if (st != CF_OK) return st;
        int ninf = 0, first = -1;
        for (int i = 0; i < n; ++i)
            if (principal_violates(s, i)) {
                if (first < 0) first = i;
                ++ninf;
            }
        if (ninf == 0) {
            principal_notify(s, -1);
            return CF_OK;
        }
        bool block = true;
        if (pbar >= 0) {
            if (ninf < ninf_best) {
                ninf_best = ninf;
                p = pbar;
            } else if (p > 0) {
                --p;
            } else {
                block = false; /* the safeguard: one least-index (Murty) pivot */
            }
        }
        if (block) {
            n_seen = next = 0;
            for (int i = 0; i < n; ++i)
                if (principal_violates(s, i)) s->free_[i] = !s->free_[i];
        } else {
            /* Murty's rule never repeats a set on a P-matrix: a repeat means cycling */
            uint64_t h = set_hash(s);
            for (int k = 0; k < n_seen; ++k)
                if (seen[k] == h) return CF_STAGNATED;
            seen[next] = h;
            next = (next + 1) % 64;
            if (n_seen < 64) ++n_seen;
            s->free_[first] = !s->free_[first];
        }
        principal_notify(s, block ? -1 : first);
    }
}
// END SOLUTION
// STUB ch04.5: /* a static helper that runs block principal pivoting on the Principal workspace s */
//< ch04:bpp

/* ---- provided: set-up and report, shared by both solvers ---------------------------------- */

typedef enum { MURTY, BPP } Method;

static cfStatus principal_main(Method m, const cfLcp *p, const cfPivotOptions *opt, double *x, cfReport *rep)
{
    cfPivotOptions defaults;
    double t0 = cf_pivot_begin(&opt, &defaults, rep);
    Principal s;
    memset(&s, 0, sizeof s);
    cfStatus st = cf_pivot_prepare(p, x, &s.A, NULL);
    if (st != CF_OK) return st;
    const int n = p->n;
    s.n = n;
    s.b = p->b;
    s.x = x;
    s.opt = opt;
    s.rep = rep;
    s.max_pivots = cf_pivot_max(opt, n);
    cf_pivot_scales(&s.A, p->b, opt->tol, &s.tol_w, &s.tol_x);
    s.w = malloc((size_t)n * sizeof *s.w);
    s.free_ = calloc((size_t)n, 1);
    s.label = calloc((size_t)n, 1);
    s.idx = malloc((size_t)n * sizeof *s.idx);
    s.rhs = malloc((size_t)n * sizeof *s.rhs);
    s.sol = malloc((size_t)n * sizeof *s.sol);
    st = cf_dense_init(&s.Aff, n, n);
    if (!s.w || !s.free_ || !s.label || !s.idx || !s.rhs || !s.sol) st = CF_NO_MEMORY;
    if (st == CF_OK) {
        for (int i = 0; i < n; ++i) /* initial free set: {} (Murty), all (BPP), or from x */
            s.free_[i] = opt->warm_start ? (isfinite(x[i]) && x[i] > 0.0) : (m == BPP);
        if (m == MURTY) {
            // BEGIN SOLUTION ch04.4
            st = murty_run(&s);
            // END SOLUTION
            // STUB ch04.4: st = CF_TODO_S("ch04.4");
        } else {
            // BEGIN SOLUTION ch04.5
            st = bpp_run(&s);
            // END SOLUTION
            // STUB ch04.5: st = CF_TODO_S("ch04.5");
        }
        for (int i = 0; i < n; ++i)
            if (st == CF_OK || !isfinite(x[i])) x[i] = isfinite(x[i]) ? fmax(x[i], 0.0) : 0.0;
    }
    cf_pivot_report(rep, st, s.pivots, cf_lcp_residual(p, x), t0);
    free(s.w);
    free(s.free_);
    free(s.label);
    free(s.idx);
    free(s.rhs);
    free(s.sol);
    cf_dense_free(&s.Aff);
    cf_dense_free(&s.A);
    return st;
}

cfStatus cf_lcp_murty(const cfLcp *p, const cfPivotOptions *opt, double *x, cfReport *rep)
{
    return principal_main(MURTY, p, opt, x, rep);
}

cfStatus cf_lcp_bpp(const cfLcp *p, const cfPivotOptions *opt, double *x, cfReport *rep)
{
    return principal_main(BPP, p, opt, x, rep);
}
