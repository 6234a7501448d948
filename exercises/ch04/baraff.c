/* SPDX-License-Identifier: MIT */
/* Chapter 4, exercise ch04.2: Baraff's pivoting with static and dynamic Coulomb friction in 2D
   and 3D. Specification: lib/include/cf/cf_ch04.h; text: chapters/ch04/README.md. */
#include "cf/cf_ch04.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- provided scaffolding ------------------------------------------------------------------ */

typedef struct Baraff {
    const cfBaraffProblem *p;
    int m, dim, nt;        /* variables, per-contact block size, tangents per contact */
    double *f, *a;         /* forces and a = A f + b */
    double *df, *da;       /* direction */
    double *S, *rhs;       /* the direction system (at most m x m) and its right-hand side */
    int *idx;              /* m: scratch for the variables of the direction system */
    double *u;             /* nt per contact: saturated friction direction */
    unsigned char *label;  /* cfPivotLabel per variable */
    unsigned char *dyn;    /* per contact: dynamic (sliding) friction */
    double tol, tol_w, tol_x, amax;
    int pivots, max_pivots;
    const cfPivotOptions *opt;
    cfReport *rep;
} Baraff;

/* a = A f + b */
static void baraff_accel(Baraff *s)
{
    cf_dense_mul_vec(&s->p->A, s->f, s->a);
    for (int i = 0; i < s->m; ++i) s->a[i] += s->p->b[i];
}

static void baraff_notify(Baraff *s, int entering, int leaving, double step)
{
    if (s->rep && s->rep->history) cf_report_push(s->rep, cf_baraff_violation(s->p, s->f, s->a));
    if (s->opt->trace) {
        cfPivotEvent ev = {s->pivots, s->m, entering, leaving, step, s->label, s->f, s->a};
        s->opt->trace(s->opt->trace_ctx, &ev);
    }
}

//> ch04:baraff
// TODO(ch04.2): implement this; the specification is in cf_ch04.h
/* helpers: the direction system, the events of the ratio test, the drive, the main loop */
//< ch04:baraff

cfStatus cf_baraff_solve(const cfBaraffProblem *p, const cfPivotOptions *opt, double *f, double *a, cfReport *rep)
{
    cfPivotOptions defaults;
    double t0 = cf_pivot_begin(&opt, &defaults, rep);
    if (!p || !f || !a || p->nc < 1 || (p->dim != 2 && p->dim != 3) || !p->A.a || !p->b || !p->mu || !p->slip)
        return CF_BAD_INPUT;
    const int m = p->dim * p->nc;
    if (p->A.rows != m || p->A.cols != m || !cf_vec_finite(m * m, p->A.a) || !cf_vec_finite(m, p->b) ||
        !cf_vec_finite(p->nc, p->mu) || !cf_vec_finite((p->dim - 1) * p->nc, p->slip))
        return CF_BAD_INPUT;
    for (int c = 0; c < p->nc; ++c)
        if (p->mu[c] < 0.0) return CF_BAD_INPUT;

    Baraff s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.m = m;
    s.dim = p->dim;
    s.nt = p->dim - 1;
    s.f = f;
    s.a = a;
    s.opt = opt;
    s.rep = rep;
    s.tol = (opt->tol >= 0.0 && isfinite(opt->tol)) ? opt->tol : 1e-12;
    s.max_pivots = opt->max_pivots > 0 ? opt->max_pivots : cf_baraff_max_pivots(m);
    cf_pivot_scales(&p->A, p->b, s.tol, &s.tol_w, &s.tol_x);
    s.amax = s.tol_x > 0.0 ? s.tol_w / s.tol_x : 1.0;
    s.df = malloc((size_t)m * sizeof *s.df);
    s.da = malloc((size_t)m * sizeof *s.da);
    s.S = malloc((size_t)m * m * sizeof *s.S);
    s.rhs = malloc((size_t)m * sizeof *s.rhs);
    s.idx = malloc((size_t)m * sizeof *s.idx);
    s.u = calloc((size_t)s.nt * p->nc, sizeof *s.u);
    s.label = calloc((size_t)m, 1);
    s.dyn = calloc((size_t)p->nc, 1);
    cfStatus st = CF_OK;
    if (!s.df || !s.da || !s.S || !s.rhs || !s.idx || !s.u || !s.label || !s.dyn) st = CF_NO_MEMORY;
    if (st == CF_OK) {
        memset(f, 0, (size_t)m * sizeof *f);
        for (int c = 0; c < p->nc; ++c) { /* sliding contacts: friction opposes the slip, for good */
            double sn = 0.0;
            for (int k = 0; k < s.nt; ++k) sn += p->slip[s.nt * c + k] * p->slip[s.nt * c + k];
            if (!(sn > 0.0)) continue;
            s.dyn[c] = 1;
            for (int k = 0; k < s.nt; ++k) {
                s.u[s.nt * c + k] = -p->slip[s.nt * c + k] / sqrt(sn);
                s.label[s.dim * c + 1 + k] = CF_PIV_UPPER;
            }
        }
        baraff_accel(&s);
        // TODO(ch04.2): implement this; the specification is in cf_ch04.h
        st = CF_TODO_S("ch04.2");
        baraff_accel(&s);
    }
    cf_pivot_report(rep, st, s.pivots, cf_baraff_violation(p, f, a), t0);
    free(s.df);
    free(s.da);
    free(s.S);
    free(s.rhs);
    free(s.idx);
    free(s.u);
    free(s.label);
    free(s.dyn);
    return st;
}
