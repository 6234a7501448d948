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
    if (!(s->rep && s->rep->history) && !s->opt->trace) return;
    lemke_current_x(s, s->x);
    cf_dense_mul_vec(&s->A, s->x, s->w);
    for (int i = 0; i < n; ++i) {
        s->w[i] += s->b[i];
        s->label[i] = CF_PIV_LOWER;
    }
    for (int r = 0; r < n; ++r)
        if (s->basis[r] < n) s->label[s->basis[r]] = CF_PIV_FREE;
    cfPivotEvent ev = {s->pivots, n, entering, leaving, 0.0, s->label, s->x, s->w};
    cf_pivot_notify(s->opt, s->rep, &ev);
}

//> ch04:lemke
// BEGIN SOLUTION ch04.3
/*
 * Lexicographic minimum ratio test among the rows in s->cand[0..m-1] (all with col_r != 0):
 * the row minimizing (beta_r, Binv_r0, Binv_r1, ...) / col_r. With prefer_z0, z0's row wins any
 * tie of the first component (the method then ends).
 */
static int lemke_lexmin(Lemke *s, int m, bool prefer_z0)
{
    const int n = s->n;
    double bscale = -1.0; /* computed when a tie survives the first column */
    /* column -1 is beta, then the columns of Binv; keep the candidates tied at the minimum */
    for (int k = -1; k < n && m > 1; ++k) {
        double vmin = INFINITY, vmax = 0.0;
        for (int t = 0; t < m; ++t) {
            int r = s->cand[t];
            double v = (k < 0 ? s->beta[r] : s->Binv[(long)r * n + k]) / s->col[r];
            vmin = fmin(vmin, v);
            vmax = fmax(vmax, fabs(v));
        }
        if (k == 0 && bscale < 0.0) {
            /* round-off floor for the Binv columns: entries below 1e-11 of the largest
               |Binv_rk / c_r| are zeros that picked up noise and must not decide a tie */
            bscale = 0.0;
            for (int t = 0; t < m; ++t) {
                const double *Br = s->Binv + (long)s->cand[t] * n;
                double rmax = 0.0;
                for (int j = 0; j < n; ++j) rmax = fmax(rmax, fabs(Br[j]));
                bscale = fmax(bscale, rmax / fabs(s->col[s->cand[t]]));
            }
        }
        double tie = 1e-11 * fabs(vmin) + (k < 0 ? 1e-14 * vmax : 1e-11 * bscale);
        int kept = 0;
        for (int t = 0; t < m; ++t) {
            int r = s->cand[t];
            double v = (k < 0 ? s->beta[r] : s->Binv[(long)r * n + k]) / s->col[r];
            if (v <= vmin + tie) s->cand[kept++] = r;
        }
        m = kept;
        if (k < 0 && prefer_z0)
            for (int t = 0; t < m; ++t)
                if (s->basis[s->cand[t]] == 2 * n) return s->cand[t];
    }
    return s->cand[0];
}

/* Gauss-Jordan pivot on row r with the entering column s->col. */
static void lemke_pivot(Lemke *s, int r)
{
    const int n = s->n;
    const double piv = s->col[r];
    double *Br = s->Binv + (long)r * n;
    s->beta[r] /= piv;
    for (int j = 0; j < n; ++j) Br[j] /= piv;
    for (int i = 0; i < n; ++i) {
        if (i == r || s->col[i] == 0.0) continue;
        const double c = s->col[i];
        double *Bi = s->Binv + (long)i * n;
        s->beta[i] -= c * s->beta[r];
        for (int j = 0; j < n; ++j) Bi[j] -= c * Br[j];
        /* degenerate values: exact zeros below the round-off of beta_i = Binv_i b, tol_w
           |Binv_i|_inf: at the scale of row i's own basic variable (w, x and z0 differ in
           units), so that scaling A or d does not zero a value */
        if (fabs(s->beta[i]) < s->tol_w * cf_vec_norm_inf(n, Bi)) s->beta[i] = 0.0;
    }
}

static cfStatus lemke_run(Lemke *s)
{
    const int n = s->n;
    int r = 0, m = 0;
    for (int i = 0; i < n; ++i)
        if (s->b[i] < -s->tol_w) ++m;
    if (m == 0) return CF_OK; /* b >= 0: x = 0 solves the LCP */

    /* z0 enters: its column is -d; the leaving row is the lexicographic minimum of
       [b_i, e_i] / d_i over all rows, which makes every basic value non-negative */
    int entering = 2 * n;
    for (int i = 0; i < n; ++i) {
        s->col[i] = -s->d[i];
        s->cand[i] = i;
    }
    for (int i = 0; i < n; ++i) s->col[i] = -s->col[i]; /* compare [b, I]/d_i: minimum */
    r = lemke_lexmin(s, n, false);
    for (int i = 0; i < n; ++i) s->col[i] = -s->d[i];
    for (;;) {
        if (s->pivots >= s->max_pivots) return CF_MAX_ITER;
        lemke_pivot(s, r);
        const int leaving = s->basis[r];
        s->basis[r] = entering;
        s->pivots++;
        lemke_notify(s, entering, leaving);
        if (leaving == 2 * n) return CF_OK; /* z0 left: complementary basis */

        /* complementary rule: the complement of the leaving variable enters */
        entering = leaving < n ? leaving + n : leaving - n;
        double osize = 1.0; /* the size of the entering variable's original column */
        if (entering >= n) { /* w_j enters: its column e_j gives column j of Binv */
            for (int i = 0; i < n; ++i) s->col[i] = s->Binv[(long)i * n + (entering - n)];
        } else { /* x_j enters: Binv (-A e_j) */
            double *orig = s->x; /* scratch */
            lemke_original_column(s, entering, orig);
            osize = cf_vec_norm_inf(n, orig);
            for (int i = 0; i < n; ++i) {
                double v = 0.0;
                const double *Bi = s->Binv + (long)i * n;
                for (int j = 0; j < n; ++j) v += Bi[j] * orig[j];
                s->col[i] = v;
            }
        }
        /* c_i counts as positive above the round-off of Binv_i . (original column), tol
           |Binv_i|_inf times the column's size: in the units of row i's own basic variable, so
           that rows of x, w and z0 of different scales are each judged at their own */
        m = 0;
        for (int i = 0; i < n; ++i) {
            const double bsize = cf_vec_norm_inf(n, s->Binv + (long)i * n);
            if (s->col[i] > s->tol * fmax(bsize * osize, DBL_MIN)) s->cand[m++] = i;
        }
        if (m == 0) return CF_INFEASIBLE; /* ray termination */
        r = lemke_lexmin(s, m, true);
    }
}

/* z0 is basic with a value that is zero but for the rounding of the pivots (1000 tol_w) */
static bool lemke_z0_vanished(const Lemke *s)
{
    for (int i = 0; i < s->n; ++i)
        if (s->basis[i] == 2 * s->n) return s->beta[i] <= 1e3 * s->tol_w;
    return false;
}

/* x from the final basis, then one solve A_SS x_S = -b_S on the support when it is better. */
static void lemke_extract(Lemke *s, const cfLcp *p, double *x)
{
    const int n = s->n;
    lemke_current_x(s, x);
    for (int i = 0; i < n; ++i) x[i] = fmax(x[i], 0.0);
    int k = 0;
    for (int i = 0; i < n; ++i)
        if (x[i] > 0.0) s->cand[k++] = i;
    const double before = cf_lcp_residual(p, x);
    if (k == 0 || before <= 64.0 * DBL_EPSILON * fmax(1.0, cf_vec_norm_inf(n, s->b))) return; /* accurate already */
    cfDense M;
    if (cf_dense_init(&M, k, k) != CF_OK) return;
    double *rhs = s->w, *sol = s->col, *keep = s->beta;
    for (int a = 0; a < k; ++a) {
        for (int c = 0; c < k; ++c) M.a[a * k + c] = s->A.a[(long)s->cand[a] * n + s->cand[c]];
        rhs[a] = -s->b[s->cand[a]];
    }
    if (cf_dense_solve(&M, rhs, sol) == CF_OK && cf_vec_finite(k, sol)) {
        memcpy(keep, x, (size_t)n * sizeof *keep);
        for (int a = 0; a < k; ++a) x[s->cand[a]] = fmax(sol[a], 0.0);
        if (!(cf_lcp_residual(p, x) <= before)) memcpy(x, keep, (size_t)n * sizeof *x);
    }
    cf_dense_free(&M);
}
// END SOLUTION
// STUB ch04.3: /* helpers: the lexicographic ratio test, the pivot, the main loop, reading x off the basis */
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
        // BEGIN SOLUTION ch04.3
        st = lemke_run(&s);
        if (st == CF_OK || (st == CF_INFEASIBLE && lemke_z0_vanished(&s))) {
            /* a ray met while z0 is zero up to the rounding of the pivots ends on a complementary basis
               (degenerate problems: contacts that carry one load twice): its x is the answer when it
               passes the certificate */
            bool ray = st != CF_OK;
            lemke_extract(&s, p, x);
            if (ray && cf_lcp_residual(p, x) <= 1e3 * s.tol_w) st = CF_OK;
        } else {
            lemke_current_x(&s, x);
        }
        // END SOLUTION
        // STUB ch04.3: st = CF_TODO_S("ch04.3");
    }
    cf_pivot_report(rep, st, s.pivots, cf_lcp_residual(p, x), t0);
    free(block);
    cf_dense_free(&s.A);
    return st;
}
