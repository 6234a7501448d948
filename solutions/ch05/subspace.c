/* SPDX-License-Identifier: MIT */
/* Chapter 5, exercise ch05.8: projected Gauss-Seidel with subspace minimization (PGS-SM) on a
   boxed LCP. Specification: lib/include/cf/cf_ch05.h; text: chapters/ch05/README.md. */
#include <stdlib.h>

#include "cf/cf_ch05.h"

// BEGIN SOLUTION ch05.8
/* one sequential boxed PGS sweep (as ch05.4); returns the largest change */
static double sweep(const cfBlcp *p, double omega, double *x)
{
    const cfCsr *A = &p->A;
    double dx = 0.0;
    for (int i = 0; i < p->n; ++i) {
        double ri = p->b[i], aii = 1.0;
        for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) {
            if (A->colidx[e] == i) aii = A->val[e];
            ri += A->val[e] * x[A->colidx[e]];
        }
        double lo, hi;
        cf_blcp_bounds(p, x, i, &lo, &hi);
        double xi = fmax(lo, fmin(x[i] - omega * ri / aii, hi));
        dx = fmax(dx, fabs(xi - x[i]));
        x[i] = xi;
    }
    return dx;
}

/* free set of x: strictly inside its effective bounds; returns its size */
static int free_set(const cfBlcp *p, const double *x, int *F)
{
    int m = 0;
    for (int i = 0; i < p->n; ++i) {
        double lo, hi;
        cf_blcp_bounds(p, x, i, &lo, &hi);
        bool above = isinf(lo) || x[i] > lo + 1e-12 * (1.0 + fabs(lo)); /* inf - inf would be NaN */
        bool below = isinf(hi) || x[i] < hi - 1e-12 * (1.0 + fabs(hi));
        if (above && below) F[m++] = i;
    }
    return m;
}

/* one subspace step: x_F <- mid(lo, A_FF^-1 (-(b_F + A_FB x_B)), hi); false when A_FF is not PD */
static cfStatus subspace_step(const cfBlcp *p, const int *F, int m, int *pos, double *x)
{
    if (m <= 0) return CF_OK;
    const cfCsr *A = &p->A;
    for (int i = 0; i < p->n; ++i) pos[i] = -1;
    for (int s = 0; s < m; ++s) pos[F[s]] = s;
    cfDense AFF, L;
    cfStatus st = cf_dense_init(&AFF, m, m);
    double *rhs = malloc((size_t)(unsigned)m * 2u * sizeof *rhs);
    if (st != CF_OK || !rhs) {
        cf_dense_free(&AFF);
        free(rhs);
        return CF_NO_MEMORY;
    }
    double *y = rhs + m;
    for (int s = 0; s < m; ++s) {
        int i = F[s];
        rhs[s] = -p->b[i];
        for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) {
            int j = A->colidx[e];
            if (pos[j] >= 0) *cf_dense_at(&AFF, s, pos[j]) = A->val[e];
            else rhs[s] -= A->val[e] * x[j]; /* bounded variables held where they are */
        }
    }
    st = cf_dense_cholesky(&AFF, &L);
    if (st == CF_OK) {
        cf_dense_cholesky_solve(&L, rhs, y);
        if (cf_vec_finite(m, y)) {
            for (int s = 0; s < m; ++s) x[F[s]] = y[s];
            /* project with bounds from the new normal impulses (normal rows come first in value) */
            for (int s = 0; s < m; ++s) {
                double lo, hi;
                cf_blcp_bounds(p, x, F[s], &lo, &hi);
                x[F[s]] = fmax(lo, fmin(x[F[s]], hi));
            }
        }
        cf_dense_free(&L);
    }
    cf_dense_free(&AFF);
    free(rhs);
    return st == CF_NO_MEMORY ? st : CF_OK; /* not positive definite: the step is skipped */
}
// END SOLUTION

cfStatus cf_blcp_pgs_sm(const cfBlcp *p, const cfSplitOptions *o, double *x, cfReport *rep)
{
    double t0 = cf_seconds();
    cfStatus st = cf_blcp_split_check(p, x, o, NULL);
    if (st != CF_OK) return cf_split_refuse(rep, st);
    double r0 = cf_blcp_residual(p, x);
    if (r0 <= o->tol_abs) return cf_split_solved_at_start(rep, r0, t0);
    //> ch05:pgs-sm
    // BEGIN SOLUTION ch05.8
    int n = p->n > 0 ? p->n : 1;
    int *F = malloc((size_t)3 * n * sizeof *F);
    double *before = malloc((size_t)2 * n * sizeof *before);
    if (!F || !before) {
        free(F);
        free(before);
        return CF_NO_MEMORY;
    }
    int *F2 = F + n, *pos = F + 2 * n;
    cfStopReason why = CF_STOP_NONE;
    int k = 0;
    double r = r0;
    while (why == CF_STOP_NONE && st == CF_OK) {
        cf_vec_copy(p->n, x, before);
        for (int s = 0; s < o->inner; ++s) sweep(p, o->omega, x); /* phase I: PGS guesses the active set */
        int m = free_set(p, x, F);
        for (int s = 0; s < o->inner_sm && st == CF_OK; ++s) { /* phase II: solve on the free set */
            double *keep = before + n, r_pgs = cf_blcp_residual(p, x);
            cf_vec_copy(p->n, x, keep);
            st = subspace_step(p, F, m, pos, x);
            if (!(cf_blcp_residual(p, x) < r_pgs)) { /* a near-singular A_FF made it worse: undo */
                cf_vec_copy(p->n, keep, x);
                break;
            }
            int m2 = free_set(p, x, F2);
            bool same = m2 == m;
            for (int i = 0; same && i < m; ++i) same = F[i] == F2[i];
            if (same) break;
            m = m2;
            for (int i = 0; i < m; ++i) F[i] = F2[i];
        }
        double dx = 0.0;
        for (int i = 0; i < p->n; ++i) dx = fmax(dx, fabs(x[i] - before[i]));
        ++k;
        r = cf_blcp_residual(p, x);
        if (rep) cf_report_push(rep, r);
        why = cf_split_stop(o, k, r0, r, dx);
    }
    free(F);
    free(before);
    if (st == CF_OK) st = cf_split_finish(rep, why, k, r);
    // END SOLUTION
    // STUB ch05.8: st = CF_TODO_S("ch05.8");
    //< ch05:pgs-sm
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
