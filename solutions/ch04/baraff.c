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
// BEGIN SOLUTION ch04.2
/* Smallest s >= 0 at which |fT + s dfT|^2 - mu^2 (fN + s dfN)^2 crosses zero upwards
   (friction reaching the cone); INFINITY when it never does. */
static double cone_step(const double *fT, const double *dfT, int nt, double fN, double dfN, double mu)
{
    double pp = 0.0, pq = 0.0, qq = 0.0;
    for (int k = 0; k < nt; ++k) {
        pp += fT[k] * fT[k];
        pq += fT[k] * dfT[k];
        qq += dfT[k] * dfT[k];
    }
    const double al = qq - mu * mu * dfN * dfN, be = pq - mu * mu * fN * dfN, ga = pp - mu * mu * fN * fN;
    const double scale = fmax(pp + mu * mu * fN * fN, DBL_MIN);
    /* on the cone (or outside by round-off) and moving out: at once; moving in: it may come back
       out later, which the roots below find */
    if (ga >= -1e-14 * scale && (be > 0.0 || (be == 0.0 && al > 0.0))) return 0.0;
    if (fabs(al) <= 1e-14 * fmax(qq + mu * mu * dfN * dfN, DBL_MIN)) return be > 0.0 ? -ga / (2.0 * be) : INFINITY;
    const double disc = be * be - al * ga;
    if (disc < 0.0) return INFINITY;
    /* the first root s >= 0 where the difference grows through zero */
    const double sq = sqrt(disc);
    const double q = -(be + copysign(sq, be));
    double r1 = q / al, r2 = q != 0.0 ? ga / q : INFINITY, best = INFINITY;
    /* a crossing, not a touch: the slope is positive there (or zero with positive curvature) */
    const double g1 = al * r1 + be, g2 = al * r2 + be;
    if (r1 >= 0.0 && (g1 > 0.0 || (g1 == 0.0 && al > 0.0))) best = fmin(best, r1);
    if (r2 >= 0.0 && (g2 > 0.0 || (g2 == 0.0 && al > 0.0))) best = fmin(best, r2);
    return best;
}

/* One linear condition per variable (see the spec), solved by LU: Delta f, then Delta a. Only the
   FREE variables other than d are unknowns (Delta a_i = 0 for each): d is sigma, a saturated
   tangent follows its normal (Delta f_T = mu u Delta f_N, folded into the normal's column), every
   other Delta f_i is 0. So the LU is on k x k, k the FREE count, not on all m variables: the same
   answer as the m x m system of the spec, whose other rows only fix values. */
static cfStatus baraff_direction(Baraff *s, int d, double sigma)
{
    const int m = s->m, dim = s->dim, nt = s->nt;
    const cfDense *A = &s->p->A;
    int k = 0;
    for (int i = 0; i < m; ++i)
        if (i != d && s->label[i] == CF_PIV_FREE) s->idx[k++] = i;
    /* column j of the reduced system: A e_j plus, for a normal with saturated tangents, the
       tangents' columns times mu u; the right-hand side: -sigma times d's column, folded alike */
    for (int b = -1; b < k; ++b) {
        const int j = b < 0 ? d : s->idx[b], c = j / dim;
        const bool fold = j % dim == 0 && s->label[j + 1] == CF_PIV_UPPER;
        for (int a = 0; a < k; ++a) {
            const double *row = A->a + (long)s->idx[a] * m;
            double v = row[j];
            for (int t = 0; fold && t < nt; ++t) v += row[j + 1 + t] * s->p->mu[c] * s->u[nt * c + t];
            if (b < 0) s->rhs[a] = -sigma * v;
            else s->S[(long)a * k + b] = v;
        }
    }
    cfDense S = {k, k, s->S};
    cfStatus st = cf_dense_solve(&S, s->rhs, s->rhs);
    if (st != CF_OK || !cf_vec_finite(k, s->rhs)) return CF_SINGULAR;
    memset(s->df, 0, (size_t)m * sizeof *s->df);
    s->df[d] = sigma;
    for (int a = 0; a < k; ++a) s->df[s->idx[a]] = s->rhs[a];
    /* the saturated tangents follow their normals exactly */
    for (int c = 0; c < s->p->nc; ++c)
        if (s->label[dim * c + 1] == CF_PIV_UPPER)
            for (int t = 0; t < nt; ++t) s->df[dim * c + 1 + t] = s->p->mu[c] * s->u[nt * c + t] * s->df[dim * c];
    cf_dense_mul_vec(A, s->df, s->da);
    return CF_OK;
}

/* Events of the ratio test (see the spec). */
enum { EV_NONE, EV_GOAL, EV_SATURATE, EV_RELEASE, EV_CLAMP, EV_UNSATURATE };

static cfStatus baraff_drive(Baraff *s, int d, double sigma)
{
    const int m = s->m, dim = s->dim, nt = s->nt;
    const int dc = d / dim;
    for (;;) {
        if (s->pivots >= s->max_pivots) return CF_MAX_ITER;
        cfStatus st = baraff_direction(s, d, sigma);
        if (st != CF_OK) return st;
        const double dmax = cf_vec_norm_inf(m, s->df);
        const double eps_f = s->tol * dmax, eps_a = s->tol * s->amax * dmax;

        double step = INFINITY;
        int event = EV_NONE, who = -1;
#define CANDIDATE(t_, ev_, who_)                                                                    \
    do {                                                                                           \
        double t__ = (t_);                                                                         \
        if (t__ < step) {                                                                          \
            step = t__;                                                                            \
            event = (ev_);                                                                         \
            who = (who_);                                                                          \
        }                                                                                          \
    } while (0)
        /* the driven variable reaches its goal a_d = 0 */
        if (s->a[d] * s->da[d] < 0.0 && fabs(s->da[d]) > eps_a) CANDIDATE(fmax(-s->a[d] / s->da[d], 0.0), EV_GOAL, d);
        for (int c = 0; c < s->p->nc; ++c) {
            const int n = dim * c;
            const double mu = s->p->mu[c];
            if (s->label[n] == CF_PIV_FREE && s->df[n] < -eps_f) /* a force reaches zero */
                CANDIDATE(fmax(-s->f[n] / s->df[n], 0.0), EV_RELEASE, n);
            if (s->label[n] == CF_PIV_LOWER && s->da[n] < -eps_a) /* an acceleration reaches zero */
                CANDIDATE(fmax(-s->a[n] / s->da[n], 0.0), EV_CLAMP, n);
            if (s->dyn[c] || mu <= 0.0) continue;
            if (s->label[n + 1] == CF_PIV_UPPER) { /* saturated: u . a_T rises to zero */
                double ua = 0.0, uda = 0.0;
                for (int k = 0; k < nt; ++k) {
                    ua += s->u[nt * c + k] * s->a[n + 1 + k];
                    uda += s->u[nt * c + k] * s->da[n + 1 + k];
                }
                if (uda > eps_a && s->label[n] == CF_PIV_FREE) CANDIDATE(fmax(-ua / uda, 0.0), EV_UNSATURATE, n + 1);
            } else if (s->label[n] == CF_PIV_FREE || c == dc) { /* sticking friction reaches the cone */
                bool moving = false;
                for (int k = 0; k < nt; ++k) moving |= s->df[n + 1 + k] != 0.0 || s->f[n + 1 + k] != 0.0;
                if (moving)
                    CANDIDATE(cone_step(s->f + n + 1, s->df + n + 1, nt, s->f[n], s->df[n], mu), EV_SATURATE, n + 1);
            }
        }
#undef CANDIDATE
        if (event == EV_NONE) return CF_INFEASIBLE; /* unbounded: an impulse is needed */

        for (int i = 0; i < m; ++i) s->f[i] += step * s->df[i];
        s->pivots++;
        const int c = who / dim, n = dim * c;
        int entering = who, leaving = -1;
        bool done = false;
        switch (event) {
        case EV_GOAL:
            s->label[d] = CF_PIV_FREE;
            done = true;
            break;
        case EV_RELEASE: /* contact c lets go: no normal force, no friction */
            s->label[n] = CF_PIV_LOWER;
            s->f[n] = 0.0;
            for (int k = 1; k < dim && !s->dyn[c]; ++k) {
                s->label[n + k] = CF_PIV_UNSEEN;
                s->f[n + k] = 0.0;
            }
            entering = -1;
            leaving = n;
            done = c == dc && d != n; /* the driven friction lost its contact */
            break;
        case EV_CLAMP: s->label[n] = CF_PIV_FREE; break;
        case EV_SATURATE: { /* friction on the cone: fix its direction */
            double norm = 0.0;
            for (int k = 0; k < nt; ++k) norm += s->f[n + 1 + k] * s->f[n + 1 + k];
            const double *dir = s->f + n + 1;
            if (!(norm > 0.0)) { /* zero friction on a zero cone: use the direction of motion */
                dir = s->df + n + 1;
                norm = 0.0;
                for (int k = 0; k < nt; ++k) norm += dir[k] * dir[k];
            }
            norm = sqrt(norm);
            for (int k = 0; k < nt; ++k) {
                s->u[nt * c + k] = norm > 0.0 ? dir[k] / norm : (k == 0 ? 1.0 : 0.0);
                s->label[n + 1 + k] = CF_PIV_UPPER;
            }
            done = c == dc && d != n; /* driving this contact's friction: done; its normal: go on */
            break;
        }
        case EV_UNSATURATE: /* friction leaves the cone: 2D sticks again, 3D is re-driven */
            for (int k = 0; k < nt; ++k) s->label[n + 1 + k] = dim == 2 ? CF_PIV_FREE : CF_PIV_UNSEEN;
            entering = -1;
            leaving = n + 1;
            break;
        }
        /* exact invariants, then a from scratch */
        for (int cc = 0; cc < s->p->nc; ++cc) {
            const int nn = dim * cc;
            if (s->label[nn] != CF_PIV_FREE && nn != d) s->f[nn] = 0.0;
            if (s->f[nn] < 0.0) s->f[nn] = 0.0;
            if (s->label[nn + 1] == CF_PIV_UPPER)
                for (int k = 0; k < nt; ++k) s->f[nn + 1 + k] = s->p->mu[cc] * s->f[nn] * s->u[nt * cc + k];
        }
        baraff_accel(s);
        baraff_notify(s, entering, leaving, step);
        if (done) return CF_OK;
    }
}

static cfStatus baraff_run(Baraff *s)
{
    const int dim = s->dim, nc = s->p->nc;
    for (;;) {
        /* first every normal condition: the most negative a_N of an unprocessed normal */
        int d = -1;
        for (int c = 0; c < nc; ++c) {
            int n = dim * c;
            if (s->label[n] == CF_PIV_UNSEEN && s->a[n] < -s->tol_w && (d < 0 || s->a[n] < s->a[d])) d = n;
        }
        if (d >= 0) {
            cfStatus st = baraff_drive(s, d, 1.0);
            if (st != CF_OK) return st;
            continue;
        }
        /* then friction: an unprocessed tangent of a loaded static contact that accelerates */
        double worst = s->tol_w;
        for (int c = 0; c < nc; ++c) {
            int n = dim * c;
            if (s->dyn[c] || s->p->mu[c] <= 0.0 || s->label[n] != CF_PIV_FREE || !(s->f[n] > s->tol_x)) continue;
            /* its tangent whose friction pushes along its acceleration (f_i a_i > 0), else T1
               before T2 */
            int pick = -1;
            for (int k = 1; k < dim; ++k) {
                const int i = n + k;
                if (s->label[i] != CF_PIV_UNSEEN || !(fabs(s->a[i]) > s->tol_w)) continue;
                if (pick < 0 || s->f[i] * s->a[i] > fmax(s->f[pick] * s->a[pick], 0.0)) pick = i;
            }
            if (pick >= 0 && fabs(s->a[pick]) > worst) {
                worst = fabs(s->a[pick]);
                d = pick;
            }
        }
        if (d >= 0) {
            cfStatus st = baraff_drive(s, d, s->a[d] < 0.0 ? 1.0 : -1.0);
            if (st != CF_OK) return st;
            continue;
        }
        /* a saturated contact whose friction pushes along the sliding acceleration (u . a_T > 0:
           it reached the cone from an earlier direction) is released and driven again */
        for (int c = 0; c < nc && d < 0; ++c) {
            int n = dim * c;
            if (s->dyn[c] || s->label[n + 1] != CF_PIV_UPPER) continue;
            double ua = 0.0;
            for (int k = 0; k < s->nt; ++k) ua += s->u[s->nt * c + k] * s->a[n + 1 + k];
            if (ua > s->tol_w) d = n + 1;
        }
        if (d < 0) {
            /* nothing left to drive: the answer must pass the certificate, else the method is
               stuck (a fixed friction direction it cannot leave) and says so */
            double fmax_ = cf_vec_norm_inf(s->m, s->f), bmax = cf_vec_norm_inf(s->m, s->p->b);
            double ok = 1e-9 * fmax(1.0, bmax) * fmax(1.0, fmax_);
            return cf_baraff_violation(s->p, s->f, s->a) <= ok ? CF_OK : CF_STAGNATED;
        }
        if (s->pivots >= s->max_pivots) return CF_MAX_ITER;
        for (int k = 1; k < dim; ++k) s->label[d - 1 + k] = CF_PIV_UNSEEN;
        s->pivots++;
        baraff_notify(s, -1, d, 0.0);
    }
}
// END SOLUTION
// STUB ch04.2: /* helpers: the direction system, the events of the ratio test, the drive, the main loop */
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
        // BEGIN SOLUTION ch04.2
        st = baraff_run(&s);
        // END SOLUTION
        // STUB ch04.2: st = CF_TODO_S("ch04.2");
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
