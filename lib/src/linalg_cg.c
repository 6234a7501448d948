/* SPDX-License-Identifier: MIT */
/* Conjugate gradients, matrix-free through cfMatVec, with a preconditioner given as an operator
   (Jacobi for cf_cg(); any for cf_pcg()). */
#include "cf/cf_linalg.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

cfCgOptions cf_cg_options_default(int n)
{
    cfCgOptions o;
    o.max_iter = n > INT_MAX / 10 ? INT_MAX : 10 * (n > 0 ? n : 0);
    o.tol_rel = 1e-10;
    o.tol_abs = 1e-300;
    return o;
}

/* z <- M^{-1} r for the Jacobi preconditioner M = diag(d) (d <= 0 counts as 1); ctx = (n, d) */
typedef struct Jacobi {
    int n;
    const double *d;
} Jacobi;

static void apply_jacobi(void *ctx, const double *r, double *z)
{
    const Jacobi *J = ctx;
    for (int i = 0; i < J->n; ++i) z[i] = J->d[i] > 0.0 ? r[i] / J->d[i] : r[i];
}

/* r <- b - A x; returns ||r|| */
static double true_residual(int n, cfMatVec A, void *ctx, const double *b, const double *x, double *r)
{
    A(ctx, x, r);
    for (int i = 0; i < n; ++i) r[i] = b[i] - r[i];
    return cf_vec_norm(n, r);
}

/* record the outcome in the report (when there is one) and pass the status on */
static cfStatus finish(cfReport *rep, cfStatus st, cfStopReason why, int iterations, double residual,
                       double t0)
{
    if (rep) {
        rep->status = st;
        rep->reason = why;
        rep->iterations = iterations;
        rep->residual = residual;
        rep->seconds = cf_seconds() - t0;
    }
    return st;
}

cfStatus cf_cg(int n, cfMatVec A, void *ctx, const double *b, double *x, const double *precond_diag,
               const cfCgOptions *opt, cfReport *rep)
{
    if (precond_diag && n > 0 && !cf_vec_finite(n, precond_diag)) {
        if (rep) cf_report_init(rep, rep->history, rep->history_cap);
        return finish(rep, CF_BAD_INPUT, CF_STOP_NONE, 0, NAN, cf_seconds());
    }
    Jacobi jac = {n, precond_diag};
    return cf_pcg(n, A, ctx, precond_diag ? apply_jacobi : NULL, &jac, b, x, opt, rep);
}

cfStatus cf_pcg(int n, cfMatVec A, void *ctx, cfMatVec precond, void *pctx, const double *b, double *x,
                const cfCgOptions *opt, cfReport *rep)
{
    double t0 = cf_seconds();
    if (rep) cf_report_init(rep, rep->history, rep->history_cap);
    cfCgOptions o = opt ? *opt : cf_cg_options_default(n);
    if (n < 0 || !A || (n > 0 && (!b || !x)) || !cf_vec_finite(n, b) || !cf_vec_finite(n, x) ||
        !(o.tol_rel >= 0.0) || !(o.tol_abs >= 0.0) || isinf(o.tol_rel) || isinf(o.tol_abs))
        return finish(rep, CF_BAD_INPUT, CF_STOP_NONE, 0, NAN, t0);

    /* the stopping threshold: ||r|| <= max(tol_rel ||b||, tol_abs) */
    double tol_r = o.tol_rel * cf_vec_norm(n, b);
    cfStopReason reason_ok = tol_r >= o.tol_abs ? CF_STOP_RELATIVE : CF_STOP_ABSOLUTE;
    double tol = tol_r >= o.tol_abs ? tol_r : o.tol_abs;

    double *work = malloc((size_t)(n > 0 ? 4 * (size_t)n : 1) * sizeof *work);
    if (!work) return finish(rep, CF_NO_MEMORY, CF_STOP_NONE, 0, NAN, t0);
    double *r = work, *p = work + n, *q = work + 2 * (size_t)n;
    double *z = precond ? work + 3 * (size_t)n : r; /* without a preconditioner z is r */

    cfStatus st;
    cfStopReason why;
    int it = 0;
    double rnorm = true_residual(n, A, ctx, b, x, r);
    bool restart = true; /* (re)start the search directions from the current residual */
    double rz = 0.0;
    for (;;) {
        if (!isfinite(rnorm)) {
            st = CF_DIVERGED;
            why = CF_STOP_DIVERGENCE;
            break;
        }
        if (rnorm <= tol) {
            /* the recurrence says converged: confirm with the true residual */
            double rtrue = true_residual(n, A, ctx, b, x, r);
            if (rtrue <= tol) {
                rnorm = rtrue;
                st = CF_OK;
                why = reason_ok;
                break;
            }
            rnorm = rtrue;
            restart = true;
        }
        if (it >= o.max_iter) {
            st = CF_MAX_ITER;
            why = CF_STOP_MAX_ITER;
            break;
        }
        if (precond) precond(pctx, r, z);
        double rz_new = cf_vec_dot(n, r, z);
        if (restart) {
            cf_vec_copy(n, z, p);
            restart = false;
        } else {
            double beta = rz_new / rz;
            for (int i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
        }
        rz = rz_new;

        A(ctx, p, q);
        double pq = cf_vec_dot(n, p, q);
        if (!(pq > 0.0)) { /* negative curvature (or NaN): A is not positive definite */
            st = CF_DIVERGED;
            why = CF_STOP_DIVERGENCE;
            break;
        }
        double alpha = rz / pq;
        cf_vec_axpy(n, alpha, p, x);
        cf_vec_axpy(n, -alpha, q, r);
        rnorm = cf_vec_norm(n, r);
        it++;
        if (rep) cf_report_push(rep, rnorm);
    }
    /* on every exit rep->residual is the true residual of the returned x */
    if (st != CF_OK) rnorm = true_residual(n, A, ctx, b, x, r);
    free(work);
    return finish(rep, st, why, it, rnorm, t0);
}

static void csr_matvec(void *ctx, const double *x, double *y) { cf_csr_mul_vec((const cfCsr *)ctx, x, y); }

cfStatus cf_csr_cg(const cfCsr *A, const double *b, double *x, const cfCgOptions *opt, cfReport *rep)
{
    if (!A || A->rows != A->cols || !cf_vec_finite(A->nnz, A->val)) {
        if (rep) {
            cf_report_init(rep, rep->history, rep->history_cap);
            rep->status = CF_BAD_INPUT;
            rep->residual = NAN;
        }
        return CF_BAD_INPUT;
    }
    int n = A->rows;
    double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
    if (!d) {
        if (rep) {
            cf_report_init(rep, rep->history, rep->history_cap);
            rep->status = CF_NO_MEMORY;
            rep->residual = NAN;
        }
        return CF_NO_MEMORY;
    }
    cf_csr_diagonal(A, d);
    cfStatus st = cf_cg(n, csr_matvec, (void *)A, b, x, d, opt, rep);
    free(d);
    return st;
}
