/* SPDX-License-Identifier: MIT */
/* Chapter 4, provided (not exercises; copied unchanged into exercises/ch04/ and not handed in): options, tolerances, input checks, the updatable
   Cholesky container and the Baraff problem container with its violation measure. */
#include "cf/cf_ch04.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cfPivotOptions cf_pivot_options_default(void)
{
    cfPivotOptions o;
    memset(&o, 0, sizeof o);
    o.max_pivots = 0;
    o.tol = 1e-12;
    o.refactor = false;
    o.bpp_pbar = 3;
    o.warm_start = false;
    o.cover = NULL;
    o.trace = NULL;
    o.trace_ctx = NULL;
    return o;
}

int cf_pivot_max(const cfPivotOptions *opt, int n)
{
    if (opt && opt->max_pivots > 0) return opt->max_pivots;
    long m = 100L * n + 1000L;
    return m > 100000000L ? 100000000 : (int)m;
}

void cf_pivot_scales(const cfDense *A, const double *b, double tol, double *tol_w, double *tol_x)
{
    int n = A->rows;
    double amax = 0.0;
    for (long k = 0; k < (long)n * A->cols; ++k) amax = fmax(amax, fabs(A->a[k]));
    if (amax == 0.0) amax = 1.0;
    double bmax = fmax(cf_vec_norm_inf(n, b), DBL_MIN);
    if (!(tol >= 0.0) || !isfinite(tol)) tol = 1e-12;
    *tol_w = tol * bmax;
    *tol_x = tol * bmax / amax;
}

double cf_pivot_begin(const cfPivotOptions **opt, cfPivotOptions *defaults, cfReport *rep)
{
    if (!*opt) {
        *defaults = cf_pivot_options_default();
        *opt = defaults;
    }
    if (!rep) return 0.0;
    rep->status = CF_BAD_INPUT;
    rep->iterations = 0;
    rep->history_len = 0;
    return cf_seconds();
}

cfStatus cf_pivot_prepare(const cfLcp *p, const double *x, cfDense *A, char *why)
{
    char dummy[128];
    if (!why) why = dummy;
    why[0] = '\0';
    if (A) memset(A, 0, sizeof *A);
    if (!p || !x || !A) {
        snprintf(why, 128, "NULL problem, solution or matrix");
        return CF_BAD_INPUT;
    }
    if (p->n < 1 || !p->b || p->A.rows != p->n || p->A.cols != p->n || !p->A.rowptr) {
        snprintf(why, 128, "not a valid LCP (n = %d, A %d x %d)", p->n, p->A.rows, p->A.cols);
        return CF_BAD_INPUT;
    }
    if (!cf_vec_finite(p->n, p->b)) {
        snprintf(why, 128, "b has a non-finite entry");
        return CF_BAD_INPUT;
    }
    if (p->A.nnz > 0 && !cf_vec_finite(p->A.nnz, p->A.val)) {
        snprintf(why, 128, "A has a non-finite entry");
        return CF_BAD_INPUT;
    }
    cfStatus st = cf_csr_to_dense(&p->A, A);
    if (st != CF_OK) snprintf(why, 128, "out of memory for the dense copy (n = %d)", p->n);
    return st;
}

/* ---- updatable Cholesky container ---------------------------------------------------------- */

cfStatus cf_chol_update_init(cfCholUpdate *F, int cap)
{
    if (!F) return CF_BAD_INPUT;
    memset(F, 0, sizeof *F);
    if (cap < 1) return CF_BAD_INPUT;
    F->idx = malloc((size_t)cap * sizeof *F->idx);
    F->L = calloc((size_t)cap * cap, sizeof *F->L);
    if (!F->idx || !F->L) {
        cf_chol_update_free(F);
        return CF_NO_MEMORY;
    }
    F->cap = cap;
    return CF_OK;
}

void cf_chol_update_free(cfCholUpdate *F)
{
    if (!F) return;
    free(F->idx);
    free(F->L);
    memset(F, 0, sizeof *F);
}

void cf_chol_update_solve(const cfCholUpdate *F, const double *r, double *y)
{
    const int k = F->k, c = F->cap;
    const double *L = F->L;
    if (y != r) memmove(y, r, (size_t)k * sizeof *y);
    for (int i = 0; i < k; ++i) { /* L z = r */
        double s = y[i];
        for (int j = 0; j < i; ++j) s -= L[(long)i * c + j] * y[j];
        y[i] = s / L[(long)i * c + i];
    }
    for (int i = k - 1; i >= 0; --i) { /* L^T y = z */
        double s = y[i];
        for (int j = i + 1; j < k; ++j) s -= L[(long)j * c + i] * y[j];
        y[i] = s / L[(long)i * c + i];
    }
}

/* ---- Baraff problem container ---------------------------------------------------------- */

int cf_baraff_max_pivots(int m) { return 10 * m + 100; }

cfStatus cf_baraff_init(cfBaraffProblem *p, int nc, int dim)
{
    if (!p) return CF_BAD_INPUT;
    memset(p, 0, sizeof *p);
    if (nc < 1 || (dim != 2 && dim != 3)) return CF_BAD_INPUT;
    int m = dim * nc;
    cfStatus st = cf_dense_init(&p->A, m, m);
    if (st != CF_OK) return st;
    p->b = calloc((size_t)m, sizeof *p->b);
    p->mu = calloc((size_t)nc, sizeof *p->mu);
    p->slip = calloc((size_t)(dim - 1) * nc, sizeof *p->slip);
    if (!p->b || !p->mu || !p->slip) {
        cf_baraff_free(p);
        return CF_NO_MEMORY;
    }
    p->nc = nc;
    p->dim = dim;
    return CF_OK;
}

void cf_baraff_free(cfBaraffProblem *p)
{
    if (!p) return;
    cf_dense_free(&p->A);
    free(p->b);
    free(p->mu);
    free(p->slip);
    memset(p, 0, sizeof *p);
}

double cf_baraff_violation(const cfBaraffProblem *p, const double *f, const double *a)
{
    const int d = p->dim, nt = d - 1;
    double worst = 0.0;
    for (int c = 0; c < p->nc; ++c) {
        const double fn = f[d * c], an = a[d * c], mu = p->mu[c];
        worst = fmax(worst, fabs(fmin(fn, an))); /* natural map of the normal LCP */
        const double *ft = f + d * c + 1, *at = a + d * c + 1, *sl = p->slip + nt * c;
        double fnorm = 0.0, snorm = 0.0, fa = 0.0;
        for (int k = 0; k < nt; ++k) {
            fnorm += ft[k] * ft[k];
            snorm += sl[k] * sl[k];
            fa += ft[k] * at[k];
        }
        fnorm = sqrt(fnorm);
        snorm = sqrt(snorm);
        const double bound = mu * fmax(fn, 0.0);
        if (snorm > 0.0) { /* dynamic: f_T = -mu f_N slip/|slip| */
            for (int k = 0; k < nt; ++k) worst = fmax(worst, fabs(ft[k] + bound * sl[k] / snorm));
            continue;
        }
        worst = fmax(worst, fnorm - bound); /* inside the cone */
        worst = fmax(worst, fa);            /* friction opposes the tangential acceleration */
        /* sticking (strictly inside the cone) needs a_T = 0: weight by the slack to the cone */
        double slack = bound - fnorm;
        if (slack > 0.0)
            for (int k = 0; k < nt; ++k) worst = fmax(worst, fmin(fabs(at[k]), slack));
    }
    return worst;
}

void cf_pivot_notify(const cfPivotOptions *opt, cfReport *rep, const cfPivotEvent *ev)
{
    if (rep && rep->history) {
        double r2 = 0.0;
        for (int i = 0; i < ev->n; ++i) {
            double m = fmin(ev->x[i], ev->w[i]);
            r2 += m * m;
        }
        cf_report_push(rep, sqrt(r2));
    }
    if (opt->trace) opt->trace(opt->trace_ctx, ev);
}

void cf_pivot_report(cfReport *rep, cfStatus st, int pivots, double residual, double t0)
{
    if (!rep) return;
    rep->status = st;
    rep->reason = st == CF_MAX_ITER ? CF_STOP_MAX_ITER : CF_STOP_NONE;
    rep->iterations = pivots;
    rep->residual = residual;
    rep->seconds = cf_seconds() - t0;
}
