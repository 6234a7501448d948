/* SPDX-License-Identifier: MIT */
/* Chapter 4, exercise ch04.3: Lemke's complementary pivoting with a covering vector and the
   lexicographic minimum ratio test. Specification: lib/include/cf/cf_ch04.h. */
#include "cf/cf_ch04.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- provided scaffolding ------------------------------------------------------------------ */

/* Variables are numbered x_j -> j, w_j -> n + j, z0 -> 2n. */
typedef struct Lemke {
    int n;
    cfDense A;            /* dense copy of the LCP matrix */
    const double *b;
    const double *d;      /* covering vector */
    double *Binv;         /* n x n, row-major: inverse of the basis matrix */
    double *beta;         /* values of the basic variables, beta = Binv b */
    int *basis;           /* basis[r]: the variable of row r */
    double *col;          /* the entering column in the current basis */
    double *x, *w;        /* scratch for traces and history */
    unsigned char *label;
    int *cand;            /* scratch: candidate rows of the ratio test */
    double tol, tol_w;
    int pivots, max_pivots;
    const cfPivotOptions *opt;
    cfReport *rep;
} Lemke;

/* Column of variable v in the original system I w - A x - d z0 = b. */
static void lemke_original_column(const Lemke *s, int v, double *out)
{
    const int n = s->n;
    for (int i = 0; i < n; ++i) {
        if (v < n) out[i] = -s->A.a[(long)i * n + v];
        else if (v < 2 * n) out[i] = (i == v - n) ? 1.0 : 0.0;
        else out[i] = -s->d[i];
    }
}

/* Current x (and w = A x + b) read off the basis. */
static void lemke_current_x(const Lemke *s, double *x)
{
    memset(x, 0, (size_t)s->n * sizeof *x);
    for (int r = 0; r < s->n; ++r)
        if (s->basis[r] < s->n) x[s->basis[r]] = s->beta[r];
}

static void lemke_notify(Lemke *s, int entering, int leaving)
{
    const int n = s->n;
    bool hist = s->rep && s->rep->history;
    if (!hist && !s->opt->trace) return;
    lemke_current_x(s, s->x);
    cf_dense_mul_vec(&s->A, s->x, s->w);
    double r2 = 0.0;
    for (int i = 0; i < n; ++i) {
        s->w[i] += s->b[i];
        double m = fmin(s->x[i], s->w[i]);
        r2 += m * m;
        s->label[i] = CF_PIV_LOWER;
    }
    for (int r = 0; r < n; ++r)
        if (s->basis[r] < n) s->label[s->basis[r]] = CF_PIV_FREE;
    if (hist) cf_report_push(s->rep, sqrt(r2));
    if (s->opt->trace) {
        cfPivotEvent ev = {s->pivots, n, entering, leaving, 0.0, s->label, s->x, s->w};
        s->opt->trace(s->opt->trace_ctx, &ev);
    }
}

//> ch04:lemke
// TODO(ch04.3): implement this; the specification is in cf_ch04.h
/* helpers: the lexicographic ratio test, the pivot, the main loop, reading x off the basis */
//< ch04:lemke

cfStatus cf_lcp_lemke(const cfLcp *p, const cfPivotOptions *opt, double *x, cfReport *rep)
{
    cfPivotOptions defaults;
    double t0 = cf_pivot_begin(&opt, &defaults, rep);
    Lemke s;
    memset(&s, 0, sizeof s);
    cfStatus st = cf_pivot_prepare(p, x, &s.A, NULL);
    if (st != CF_OK) return st;
    const int n = p->n;
    if (opt->cover) { /* the covering vector must be positive and finite */
        for (int i = 0; i < n; ++i)
            if (!(opt->cover[i] > 0.0) || !isfinite(opt->cover[i])) st = CF_BAD_INPUT;
    }
    double tol_x;
    cf_pivot_scales(&s.A, p->b, opt->tol, &s.tol_w, &tol_x);
    s.n = n;
    s.b = p->b;
    s.opt = opt;
    s.rep = rep;
    s.tol = (opt->tol >= 0.0 && isfinite(opt->tol)) ? opt->tol : 1e-12;
    s.max_pivots = cf_pivot_max(opt, n);
    /* one block for all the workspace: n x n doubles, 5 n doubles, 2 n ints, n bytes */
    void *block = calloc(1, ((size_t)n * n + 5 * (size_t)n) * sizeof(double) + 2 * (size_t)n * sizeof(int) + (size_t)n);
    double *ones = NULL;
    if (!block) {
        st = st == CF_OK ? CF_NO_MEMORY : st;
    } else {
        s.Binv = block;
        ones = s.Binv + (size_t)n * n;
        s.beta = ones + n;
        s.col = s.beta + n;
        s.x = s.col + n;
        s.w = s.x + n;
        s.basis = (int *)(s.w + n);
        s.cand = s.basis + n;
        s.label = (unsigned char *)(s.cand + n);
    }
    if (st == CF_OK) {
        for (int i = 0; i < n; ++i) {
            ones[i] = 1.0;
            s.Binv[(long)i * n + i] = 1.0; /* the starting basis is w */
            s.beta[i] = p->b[i];
            s.basis[i] = n + i;
            x[i] = 0.0;
        }
        s.d = opt->cover ? opt->cover : ones;
        // TODO(ch04.3): implement this; the specification is in cf_ch04.h
        st = CF_TODO_S("ch04.3");
    }
    cf_pivot_report(rep, st, s.pivots, cf_lcp_residual(p, x), t0);
    free(block);
    cf_dense_free(&s.A);
    return st;
}
