/* SPDX-License-Identifier: MIT */
/* Chapter 4, exercise ch04.1: Dantzig/Baraff incremental pivoting with an updated Cholesky
   factor of the clamped block. Specification: lib/include/cf/cf_ch04.h; text: chapters/ch04/README.md. */
#include "cf/cf_ch04.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LF(F, i, j) ((F)->L[(long)(i) * (F)->cap + (j)])

cfStatus cf_chol_update_append(cfCholUpdate *F, const cfDense *A, int j, double tol)
{
    if (!F || !A || !F->L || j < 0 || j >= A->rows || F->k >= F->cap) return CF_BAD_INPUT;
    //> ch04:chol-append
    // TODO(ch04.1): implement this; the specification is in cf_ch04.h
    return CF_TODO_S("ch04.1");
    //< ch04:chol-append
}

void cf_chol_update_remove(cfCholUpdate *F, int pos)
{
    if (!F || pos < 0 || pos >= F->k) return;
    //> ch04:chol-remove
    // TODO(ch04.1): implement this; the specification is in cf_ch04.h
    CF_TODO("ch04.1");
    //< ch04:chol-remove
}

/* ---- the solver: provided scaffolding ----------------------------------------------------- */

/* Everything the drive loop needs. */
typedef struct Dantzig {
    int n;
    cfDense A;              /* dense copy of the LCP matrix */
    const double *b;
    double *x, *w;          /* current iterate and w = A x + b, maintained incrementally */
    double *dx, *dw;        /* direction for a unit increase of the driven variable */
    double *r, *y;          /* right-hand side and solution of the clamped system (factor order) */
    unsigned char *label;   /* cfPivotLabel per variable */
    cfCholUpdate F;         /* factor of A_CC; F.idx lists the clamped (FREE) indices */
    bool refactor;          /* benchmark baseline: factor A_CC from scratch for every direction */
    double tol, tol_w, tol_x, amax;
    int pivots, max_pivots;
    const cfPivotOptions *opt;
    cfReport *rep;
} Dantzig;

/* Report one pivot to the history and the trace callback. */
static void dantzig_notify(Dantzig *s, int entering, int leaving, double step)
{
    cfPivotEvent ev = {s->pivots, s->n, entering, leaving, step, s->label, s->x, s->w};
    cf_pivot_notify(s->opt, s->rep, &ev);
}

/* Solve A_CC y = r for the clamped set, with the updated factor or (baseline) a fresh Cholesky. */
static cfStatus clamped_solve(Dantzig *s, const double *r, double *y)
{
    const int k = s->F.k;
    if (k == 0) return CF_OK;
    if (!s->refactor) {
        cf_chol_update_solve(&s->F, r, y);
        return CF_OK;
    }
    cfDense Acc, L;
    cfStatus st = cf_dense_init(&Acc, k, k);
    if (st != CF_OK) return st;
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) Acc.a[i * k + j] = s->A.a[(long)s->F.idx[i] * s->n + s->F.idx[j]];
    st = cf_dense_cholesky(&Acc, &L);
    if (st == CF_OK) {
        cf_dense_cholesky_solve(&L, r, y);
        cf_dense_free(&L);
    }
    cf_dense_free(&Acc);
    return st;
}

/* Add j to / remove position pos from the clamped list (and its factor unless refactoring). */
static cfStatus clamp_add(Dantzig *s, int j)
{
    if (!s->refactor) return cf_chol_update_append(&s->F, &s->A, j, s->tol);
    s->F.idx[s->F.k++] = j;
    return CF_OK;
}

static void clamp_remove(Dantzig *s, int pos)
{
    if (!s->refactor) {
        cf_chol_update_remove(&s->F, pos);
        return;
    }
    for (int i = pos; i < s->F.k - 1; ++i) s->F.idx[i] = s->F.idx[i + 1];
    s->F.k--;
}

//> ch04:dantzig-drive
// TODO(ch04.1): implement this; the specification is in cf_ch04.h
/* helpers for the drive: the direction, the ratio test, the main loop (see the spec) */
//< ch04:dantzig-drive

cfStatus cf_lcp_dantzig(const cfLcp *p, const cfPivotOptions *opt, double *x, cfReport *rep)
{
    cfPivotOptions defaults;
    double t0 = cf_pivot_begin(&opt, &defaults, rep);
    Dantzig s;
    memset(&s, 0, sizeof s);
    cfStatus st = cf_pivot_prepare(p, x, &s.A, NULL);
    if (st != CF_OK) return st;
    const int n = p->n;
    cf_pivot_scales(&s.A, p->b, opt->tol, &s.tol_w, &s.tol_x);
    s.amax = s.tol_x > 0.0 ? s.tol_w / s.tol_x : 1.0;
    if (cf_dense_asymmetry(&s.A) > 1e-12 * s.amax) { /* Dantzig's method needs symmetric A */
        cf_dense_free(&s.A);
        return CF_BAD_INPUT;
    }
    s.n = n;
    s.b = p->b;
    s.x = x;
    s.opt = opt;
    s.rep = rep;
    s.refactor = opt->refactor;
    s.tol = (opt->tol >= 0.0 && isfinite(opt->tol)) ? opt->tol : 1e-12;
    s.max_pivots = cf_pivot_max(opt, n);
    s.w = malloc((size_t)n * sizeof *s.w);
    s.dx = malloc((size_t)n * sizeof *s.dx);
    s.dw = malloc((size_t)n * sizeof *s.dw);
    s.r = malloc((size_t)n * sizeof *s.r);
    s.y = malloc((size_t)n * sizeof *s.y);
    s.label = calloc((size_t)n, 1);
    st = cf_chol_update_init(&s.F, n);
    if (!s.w || !s.dx || !s.dw || !s.r || !s.y || !s.label) st = CF_NO_MEMORY;
    if (st == CF_OK) {
        for (int i = 0; i < n; ++i) {
            x[i] = 0.0;
            s.w[i] = p->b[i];
        }
        //> ch04:dantzig-call
        // TODO(ch04.1): implement this; the specification is in cf_ch04.h
        st = CF_TODO_S("ch04.1");
        //< ch04:dantzig-call
    }
    cf_pivot_report(rep, st, s.pivots, cf_lcp_residual(p, x), t0);
    free(s.w);
    free(s.dx);
    free(s.dw);
    free(s.r);
    free(s.y);
    free(s.label);
    cf_chol_update_free(&s.F);
    cf_dense_free(&s.A);
    return st;
}
