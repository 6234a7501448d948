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
    // BEGIN SOLUTION ch04.1
    const int k = F->k;
    double *l = &LF(F, k, 0); /* the new row, written in place */
    double ll = 0.0;
    for (int i = 0; i < k; ++i) { /* forward substitution L l = A(C, j) */
        double s = A->a[(long)F->idx[i] * A->cols + j];
        for (int m = 0; m < i; ++m) s -= LF(F, i, m) * l[m];
        l[i] = s / LF(F, i, i);
        ll += l[i] * l[i];
    }
    const double alpha = A->a[(long)j * A->cols + j];
    const double delta = alpha - ll; /* Schur complement = Baraff's Delta w_j */
    if (!(delta > tol * fmax(fabs(alpha), DBL_MIN))) {
        for (int i = 0; i < k; ++i) l[i] = 0.0; /* leave the factor as it was */
        return CF_SINGULAR;
    }
    l[k] = sqrt(delta);
    F->idx[k] = j;
    F->k = k + 1;
    return CF_OK;
    // END SOLUTION
    // STUB ch04.1: return CF_TODO_S("ch04.1");
    //< ch04:chol-append
}

void cf_chol_update_remove(cfCholUpdate *F, int pos)
{
    if (!F || pos < 0 || pos >= F->k) return;
    //> ch04:chol-remove
    // BEGIN SOLUTION ch04.1
    const int k = F->k;
    /* rank-one update of the trailing block, L33' L33'^T = L33 L33^T + v v^T with v = l32 the
       part of column pos below the diagonal; v is kept (and overwritten) in that column */
    for (int m = pos + 1; m < k; ++m) {
        const double Lmm = LF(F, m, m), vm = LF(F, m, pos);
        const double r = hypot(Lmm, vm);
        const double c = r / Lmm, s = vm / Lmm;
        LF(F, m, m) = r;
        for (int i = m + 1; i < k; ++i) {
            LF(F, i, m) = (LF(F, i, m) + s * LF(F, i, pos)) / c;
            LF(F, i, pos) = c * LF(F, i, pos) - s * LF(F, i, m);
        }
    }
    /* drop row and column pos: the rows below move up, the columns right of pos move left */
    for (int i = pos; i < k - 1; ++i) {
        for (int j = pos; j <= i; ++j) LF(F, i, j) = LF(F, i + 1, j + 1);
        for (int j = 0; j < pos; ++j) LF(F, i, j) = LF(F, i + 1, j);
        F->idx[i] = F->idx[i + 1];
    }
    for (int j = 0; j < k; ++j) LF(F, k - 1, j) = 0.0;
    F->k = k - 1;
    // END SOLUTION
    // STUB ch04.1: CF_TODO("ch04.1");
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
// BEGIN SOLUTION ch04.1
/* Direction for Delta x_d = 1: Delta x_C = -A_CC^{-1} A_Cd, Delta w = A Delta x. */
static cfStatus dantzig_direction(Dantzig *s, int d)
{
    const int n = s->n, k = s->F.k;
    const double *A = s->A.a;
    for (int i = 0; i < k; ++i) s->r[i] = -A[(long)s->F.idx[i] * n + d];
    cfStatus st = clamped_solve(s, s->r, s->y);
    if (st != CF_OK) return st;
    memset(s->dx, 0, (size_t)n * sizeof *s->dx);
    s->dx[d] = 1.0;
    for (int i = 0; i < k; ++i) s->dx[s->F.idx[i]] = s->y[i];
    for (int i = 0; i < n; ++i) {
        double v = A[(long)i * n + d];
        for (int m = 0; m < k; ++m) v += A[(long)i * n + s->F.idx[m]] * s->y[m];
        s->dw[i] = v;
    }
    return CF_OK;
}

/* Drive x_d up until w_d = 0 (Baraff's drive_to_zero). */
static cfStatus dantzig_drive(Dantzig *s, int d)
{
    const int n = s->n;
    for (;;) {
        if (s->pivots >= s->max_pivots) return CF_MAX_ITER;
        cfStatus st = dantzig_direction(s, d);
        if (st != CF_OK) return st;

        /* pivot elements below these thresholds count as zero */
        const double dmax = cf_vec_norm_inf(n, s->dx);
        const double eps_x = s->tol * dmax, eps_w = s->tol * s->amax * dmax;

        /* ratio test: the first event along the ray; ties go to d, then to the lowest index */
        double step = INFINITY;
        int block = -1;
        if (s->dw[d] > eps_w) {
            step = -s->w[d] / s->dw[d];
            block = d;
        }
        for (int i = 0; i < n; ++i) {
            double t = INFINITY;
            if (s->label[i] == CF_PIV_FREE && s->dx[i] < -eps_x) t = -s->x[i] / s->dx[i];
            else if (s->label[i] == CF_PIV_LOWER && s->dw[i] < -eps_w) t = -s->w[i] / s->dw[i];
            if (t < step) {
                step = t;
                block = i;
            }
        }
        if (block < 0) return CF_INFEASIBLE; /* an unbounded ray: no solution for symmetric PSD A */
        if (step < 0.0) step = 0.0;          /* round-off on a degenerate pivot */

        for (int i = 0; i < n; ++i) {
            s->x[i] += step * s->dx[i];
            s->w[i] += step * s->dw[i];
        }
        s->pivots++;

        if (block == d) { /* d reaches w_d = 0: clamp it, the drive is over */
            st = clamp_add(s, d);
            if (st != CF_OK) return st;
            s->label[d] = CF_PIV_FREE;
            s->w[d] = 0.0;
            dantzig_notify(s, d, -1, step);
            return CF_OK;
        }
        if (s->label[block] == CF_PIV_FREE) { /* a force reaches zero: release it */
            int pos = 0;
            while (s->F.idx[pos] != block) ++pos;
            clamp_remove(s, pos);
            s->label[block] = CF_PIV_LOWER;
            s->x[block] = 0.0;
            dantzig_notify(s, -1, block, step);
        } else { /* an acceleration reaches zero: clamp it */
            st = clamp_add(s, block);
            if (st != CF_OK) return st;
            s->label[block] = CF_PIV_FREE;
            s->w[block] = 0.0;
            dantzig_notify(s, block, -1, step);
        }
        /* keep the invariants exact: w = 0 on the clamped set, x = 0 on the released one */
        for (int i = 0; i < n; ++i) {
            if (s->label[i] == CF_PIV_FREE) s->w[i] = 0.0;
            if (s->label[i] == CF_PIV_LOWER) s->x[i] = 0.0;
        }
    }
}

/* Baraff's compute_forces: drive the most negative unprocessed w_d until none is left. */
static cfStatus dantzig_run(Dantzig *s)
{
    const int n = s->n;
    for (;;) {
        int d = -1;
        for (int i = 0; i < n; ++i)
            if (s->label[i] == CF_PIV_UNSEEN && s->w[i] < -s->tol_w && (d < 0 || s->w[i] < s->w[d])) d = i;
        if (d < 0) break;
        cfStatus st = dantzig_drive(s, d);
        if (st != CF_OK) return st;
    }
    for (int i = 0; i < n; ++i)
        if (s->label[i] == CF_PIV_UNSEEN) s->label[i] = CF_PIV_LOWER;
    /* polish: x_C from one solve with the final factor, then w = A x + b */
    const int k = s->F.k;
    for (int i = 0; i < k; ++i) s->r[i] = -s->b[s->F.idx[i]];
    cfStatus st = clamped_solve(s, s->r, s->y);
    if (st != CF_OK) return st;
    for (int i = 0; i < n; ++i) s->x[i] = 0.0;
    for (int i = 0; i < k; ++i) s->x[s->F.idx[i]] = fmax(s->y[i], 0.0);
    cf_dense_mul_vec(&s->A, s->x, s->w);
    for (int i = 0; i < n; ++i) s->w[i] += s->b[i];
    return CF_OK;
}
// END SOLUTION
// STUB ch04.1: /* helpers for the drive: the direction, the ratio test, the main loop (see the spec) */
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
        // BEGIN SOLUTION ch04.1
        st = dantzig_run(&s);
        // END SOLUTION
        // STUB ch04.1: st = CF_TODO_S("ch04.1");
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
