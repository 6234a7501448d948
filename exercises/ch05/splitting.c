/* SPDX-License-Identifier: MIT */
/* Chapter 5, exercises ch05.1-ch05.3: projected Jacobi, Gauss-Seidel and SOR on an LCP.
   Specification: lib/include/cf/cf_ch05.h; text: chapters/ch05/README.md. */
#include <stdlib.h>

#include "cf/cf_ch05.h"

/* the input check and the r_0 test shared by the three solvers; returns true when the caller
   should return *st at once */
static bool begin(const cfLcp *p, const cfSplitOptions *o, double *x, cfReport *rep, double *r0, cfStatus *st)
{
    double t0 = cf_seconds();
    *st = cf_lcp_split_check(p, x, o, NULL);
    if (*st != CF_OK) {
        cf_split_refuse(rep, *st);
        return true;
    }
    *r0 = cf_lcp_residual(p, x);
    if (*r0 <= o->tol_abs) {
        *st = cf_split_solved_at_start(rep, *r0, t0);
        return true;
    }
    return false;
}

/* (A x)_i + b_i from row i of the CSR matrix, and the diagonal entry on the way */
static inline double row_residual(const cfLcp *p, const double *x, int i, double *aii)
{
    const cfCsr *A = &p->A;
    double r = p->b[i];
    for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) {
        if (A->colidx[e] == i) *aii = A->val[e];
        r += A->val[e] * x[A->colidx[e]];
    }
    return r;
}

cfStatus cf_lcp_jacobi(const cfLcp *p, const cfSplitOptions *o, double *x, cfReport *rep)
{
    double t0 = cf_seconds(), r0 = 0.0;
    cfStatus st;
    if (begin(p, o, x, rep, &r0, &st)) return st;
    //> ch05:jacobi
    // TODO(ch05.1): implement this; the specification is in cf_ch05.h
    (void)r0;
    st = CF_TODO_S("ch05.1");
    //< ch05:jacobi
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}

/* one PSOR sweep in place; returns the largest change */
static double psor_sweep(const cfLcp *p, double omega, double *x)
{
    double dx = 0.0;
    //> ch05:psor-sweep
    // TODO(ch05.2): implement this; the specification is in cf_ch05.h
    (void)p; (void)omega; (void)x;
    CF_TODO("ch05.2");
    //< ch05:psor-sweep
    return dx;
}

/* the PSOR loop; PGS is omega = 1 */
static cfStatus psor(const cfLcp *p, const cfSplitOptions *o, double omega, double r0, double *x, cfReport *rep)
{
    cfStopReason why = CF_STOP_NONE;
    int k = 0;
    double r = r0;
    while (why == CF_STOP_NONE) {
        double dx = psor_sweep(p, omega, x);
        ++k;
        r = cf_lcp_residual(p, x);
        if (rep) cf_report_push(rep, r);
        why = cf_split_stop(o, k, r0, r, dx);
    }
    return cf_split_finish(rep, why, k, r);
}

cfStatus cf_lcp_pgs(const cfLcp *p, const cfSplitOptions *o, double *x, cfReport *rep)
{
    double t0 = cf_seconds(), r0 = 0.0;
    cfStatus st;
    if (begin(p, o, x, rep, &r0, &st)) return st;
    st = psor(p, o, 1.0, r0, x, rep);
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}

cfStatus cf_lcp_psor(const cfLcp *p, const cfSplitOptions *o, double *x, cfReport *rep)
{
    double t0 = cf_seconds(), r0 = 0.0;
    cfStatus st;
    if (begin(p, o, x, rep, &r0, &st)) return st;
    //> ch05:psor
    // TODO(ch05.3): implement this; the specification is in cf_ch05.h
    st = CF_TODO_S("ch05.3");
    //< ch05:psor
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
