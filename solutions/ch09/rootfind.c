/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.7 (part 2): the momentum balance of paper 003 as root finding:
   BiCGSTAB, damped Newton with backtracking on 1/2 |r|^2 (direct, or inexact with
   Eisenstat-Walker forcing and dual-number Jacobian products), and the BE, TR, BDF2 and SDIRK2
   steps with the adaptive stiffness bump.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch09.h"
#include "cf/cf_linalg.h"

cfStatus cf_bicgstab(int n, cfMatVec A, void *ctx, const double *b, double *x, double tol, int max_iter, int *iters)
{
    //> ch09:bicgstab
    // BEGIN SOLUTION ch09.7
    double *w = malloc((size_t)6 * n * sizeof *w);
    if (!w) return CF_NO_MEMORY;
    double *r = w, *r0 = w + n, *p = w + 2 * n, *v = w + 3 * n, *s = w + 4 * n, *t = w + 5 * n;
    double bn = cf_vec_norm(n, b), rho = 1.0, alpha = 1.0, omega = 1.0;
    cfStatus st = CF_MAX_ITER;
    int k = 0;
    if (bn == 0.0) {
        cf_vec_zero(n, x);
        st = CF_OK;
    } else {
        A(ctx, x, r);
        for (int i = 0; i < n; ++i) r[i] = b[i] - r[i], r0[i] = r[i], p[i] = v[i] = 0.0;
        for (;; ++k) {
            if (cf_vec_norm(n, r) <= tol * bn) {
                st = CF_OK;
                break;
            }
            if (k >= max_iter) break;
            double rho1 = cf_vec_dot(n, r0, r);
            if (rho1 == 0.0 || omega == 0.0) {
                st = CF_SINGULAR;
                break;
            }
            double beta = (rho1 / rho) * (alpha / omega);
            rho = rho1;
            for (int i = 0; i < n; ++i) p[i] = r[i] + beta * (p[i] - omega * v[i]);
            A(ctx, p, v);
            double r0v = cf_vec_dot(n, r0, v);
            if (r0v == 0.0) {
                st = CF_SINGULAR;
                break;
            }
            alpha = rho / r0v;
            for (int i = 0; i < n; ++i) s[i] = r[i] - alpha * v[i];
            if (cf_vec_norm(n, s) <= tol * bn) { /* the half step already converged */
                cf_vec_axpy(n, alpha, p, x);
                cf_vec_copy(n, s, r);
                continue;
            }
            A(ctx, s, t);
            double tt = cf_vec_dot(n, t, t);
            omega = tt > 0.0 ? cf_vec_dot(n, t, s) / tt : 0.0;
            for (int i = 0; i < n; ++i) {
                x[i] += alpha * p[i] + omega * s[i];
                r[i] = s[i] - omega * t[i];
            }
        }
    }
    free(w);
    if (iters) *iters = k;
    return st;
    // END SOLUTION
    // STUB ch09.7: return CF_TODO_S("ch09.7");
    //< ch09:bicgstab
}

// BEGIN SOLUTION ch09.7
typedef struct Jvp {
    const cfImplicitSystem *s;
    const cfImplicitStage *stage;
    const double *v;
} Jvp;

static void jvp_apply(void *ctx, const double *p, double *y)
{
    Jvp *c = ctx;
    cf_implicit_jvp(c->s, c->stage, c->v, p, y);
}
// END SOLUTION

cfStatus cf_implicit_newton(const cfImplicitSystem *s, const cfImplicitStage *stage, double *v, const cfImplicitOptions *opt,
                        cfImplicitStats *st)
{
    //> ch09:soft-newton
    // BEGIN SOLUTION ch09.7
    cfImplicitOptions o = opt ? *opt : cf_implicit_options_default();
    cfImplicitStats stats = {.d_min = INFINITY};
    int N = 3 * s->n;
    bool direct = o.linear == CF_IMPLICIT_DIRECT;
    double *r = malloc((size_t)4 * N * sizeof *r);
    cfDense J = {0};
    cfStatus status = r ? CF_OK : CF_NO_MEMORY;
    if (status == CF_OK && direct) status = cf_dense_init(&J, N, N);
    if (status != CF_OK) {
        free(r);
        return status;
    }
    double *p = r + N, *vt = r + 2 * N, *rt = r + 3 * N;
    cf_implicit_residual(s, stage, v, r);
    stats.residuals = 1;
    double rn = cf_vec_norm(N, r), rn_prev = 0.0, eta = o.eta_max;
    for (;;) {
        double rinf = cf_vec_norm_inf(N, r);
        stats.residual = rinf;
        if (stats.n_hist < 64) stats.hist[stats.n_hist++] = rn;
        if (!isfinite(rinf)) {
            status = CF_DIVERGED;
            break;
        }
        if (rinf <= o.tol) break;
        if (stats.iterations >= o.max_iter) {
            status = CF_MAX_ITER;
            break;
        }
        for (int k = 0; k < N; ++k) rt[k] = -r[k];
        if (direct) { /* Algorithm 1: J p = -r with the analytic Jacobian */
            eta = 0.0;
            status = cf_implicit_jacobian(s, stage, v, J.a);
            if (status == CF_OK) status = cf_dense_solve(&J, rt, p);
            if (status != CF_OK) break;
        } else { /* Algorithm 2: |J p + r| <= eta |r|, J p by dual numbers */
            if (stats.iterations > 0) {
                double e = o.ew_gamma * pow(rn / rn_prev, o.ew_alpha), safe = o.ew_gamma * pow(eta, o.ew_alpha);
                if (safe > 0.1) e = fmax(e, safe);
                eta = fmin(o.eta_max, fmax(e, 0.5 * o.tol / rn));
            }
            Jvp ctx = {s, stage, v};
            int it = 0;
            cf_vec_zero(N, p);
            cfStatus ls = cf_bicgstab(N, jvp_apply, &ctx, rt, p, eta, o.max_linear, &it);
            stats.linear_iters += it;
            if (ls == CF_NO_MEMORY) {
                status = ls;
                break;
            }
        }
        double alpha = 1.0, rn_new = INFINITY;
        int bt = 0;
        bool decrease = false;
        for (;;) { /* backtracking on the merit 1/2 |r|^2 */
            for (int k = 0; k < N; ++k) vt[k] = v[k] + alpha * p[k];
            cf_implicit_residual(s, stage, vt, rt);
            stats.residuals++;
            rn_new = cf_vec_norm(N, rt);
            decrease = rn_new <= (1.0 - o.c_armijo * alpha * (1.0 - eta)) * rn;
            if (decrease || bt >= o.max_backtracks) break;
            alpha *= o.rho;
            ++bt;
        }
        stats.backtracks += bt;
        if (!decrease) {
            status = CF_STAGNATED;
            break;
        }
        cf_vec_copy(N, vt, v); /* N may be 0 (no free node), with NULL arrays: memcpy would be undefined */
        cf_vec_copy(N, rt, r);
        rn_prev = rn;
        rn = rn_new;
        stats.iterations++;
    }
    cf_dense_free(&J);
    free(r);
    if (st) *st = stats;
    return status;
    // END SOLUTION
    // STUB ch09.7: return CF_TODO_S("ch09.7");
    //< ch09:soft-newton
}

// BEGIN SOLUTION ch09.7
/* f(q, v) at real arguments (qd: 3N dual scratch) */
static void force_at(const cfImplicitSystem *s, const double *q, const double *v, const double *q_lag, cfDual *qd,
                     double *f)
{
    int N = 3 * s->n;
    cfDual *vd = qd + N, *fd = qd + 2 * N;
    for (int k = 0; k < N; ++k) qd[k] = cf_dual(q[k]), vd[k] = cf_dual(v[k]);
    cf_implicit_forces(s, qd, vd, q_lag, fd);
    for (int k = 0; k < N; ++k) f[k] = fd[k].re;
}

static void stats_add(cfImplicitStats *sum, const cfImplicitStats *one)
{
    sum->iterations += one->iterations;
    sum->residuals += one->residuals;
    sum->linear_iters += one->linear_iters;
    sum->backtracks += one->backtracks;
    sum->residual = one->residual;
    sum->n_hist = one->n_hist;
    memcpy(sum->hist, one->hist, sizeof sum->hist);
}
// END SOLUTION

cfStatus cf_implicit_step(cfImplicitSystem *s, cfImplicitIntegrator integ, const cfImplicitOptions *opt, cfImplicitStats *st)
{
    //> ch09:soft-step
    // BEGIN SOLUTION ch09.7
    cfImplicitOptions o = opt ? *opt : cf_implicit_options_default();
    cfImplicitStats sum = {.d_min = INFINITY};
    int N = 3 * s->n;
    double h = s->h, *w = malloc((size_t)5 * N * sizeof *w);
    if (!w) return CF_NO_MEMORY;
    double *qa = w, *b = w + N, *vn = w + 2 * N, *f = w + 3 * N, *qn = w + 4 * N;
    cfDual *qd = malloc((size_t)3 * N * sizeof *qd);
    if (!qd) {
        free(w);
        return CF_NO_MEMORY;
    }
    if (integ == CF_IMPLICIT_BDF2 && !s->has_prev) integ = CF_IMPLICIT_BE; /* BDF2 starts with a BE step */
    const double gamma = 1.0 - sqrt(0.5);
    const double *q_lag = s->lagged ? s->q : NULL;
    cfStatus status = CF_OK;
    for (int bump = 0;; ++bump) {
        double c = h;
        for (int k = 0; k < N; ++k) {
            double m = s->fixed[k / 3] ? 0.0 : s->mass[k / 3];
            qa[k] = s->q[k], b[k] = m * s->v[k]; /* BE and SDIRK2's first stage (c = gamma h) */
            if (integ == CF_IMPLICIT_BDF2) {
                qa[k] = (4.0 * s->q[k] - s->q_prev[k]) / 3.0;
                b[k] = m * (4.0 * s->v[k] - s->v_prev[k]) / 3.0;
            }
        }
        if (integ == CF_IMPLICIT_BDF2) c = 2.0 * h / 3.0;
        if (integ == CF_IMPLICIT_SDIRK2) c = gamma * h;
        if (integ == CF_IMPLICIT_TR) {
            force_at(s, s->q, s->v, q_lag, qd, f);
            c = 0.5 * h;
            for (int k = 0; k < N; ++k) {
                qa[k] = s->q[k] + 0.5 * h * s->v[k];
                if (!s->fixed[k / 3]) b[k] += 0.5 * h * f[k];
            }
        }
        cfImplicitStage stage = {qa, b, c, q_lag};
        cfImplicitStats one;
        cf_vec_copy(N, s->v, vn);
        status = cf_implicit_newton(s, &stage, vn, &o, &one);
        stats_add(&sum, &one);
        if (status == CF_OK && integ == CF_IMPLICIT_SDIRK2) { /* stage 2 from stage 1's v1, q1 */
            for (int k = 0; k < N; ++k) qn[k] = s->q[k] + c * vn[k];
            force_at(s, qn, vn, q_lag, qd, f);
            for (int k = 0; k < N; ++k) {
                double m = s->fixed[k / 3] ? 0.0 : s->mass[k / 3];
                qa[k] = s->q[k] + (1.0 - gamma) * h * vn[k];
                b[k] = m * s->v[k] + (s->fixed[k / 3] ? 0.0 : (1.0 - gamma) * h * f[k]);
            }
            status = cf_implicit_newton(s, &stage, vn, &o, &one);
            stats_add(&sum, &one);
        }
        if (status != CF_OK) break;
        for (int k = 0; k < N; ++k) qn[k] = qa[k] + c * vn[k];
        double dmin = cf_implicit_min_gap(s, qn);
        sum.d_min = dmin;
        if (dmin < 0.0 && bump < o.max_bumps) { /* too deep: stiffen and repeat the step */
            s->kappa *= cf_implicit_bump(dmin, s->delta);
            sum.bumps++;
            continue;
        }
        cf_vec_copy(N, s->q, s->q_prev);
        cf_vec_copy(N, s->v, s->v_prev);
        cf_vec_copy(N, qn, s->q);
        cf_vec_copy(N, vn, s->v);
        s->has_prev = true;
        break;
    }
    free(w), free(qd);
    if (st) *st = sum;
    return status;
    // END SOLUTION
    // STUB ch09.7: return CF_TODO_S("ch09.7");
    //< ch09:soft-step
}
