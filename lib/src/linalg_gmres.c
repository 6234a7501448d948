/* SPDX-License-Identifier: MIT */
/* Restarted GMRES with a left or right preconditioner (Saad, Iterative Methods for Sparse Linear
   Systems, 2nd ed., Algorithms 6.9 and 9.4-9.5): Arnoldi with modified Gram-Schmidt, Givens
   rotations on the Hessenberg matrix, a restart every m steps from the current iterate. */
#include "cf/cf_gmres.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

cfGmresOptions cf_gmres_options_default(int n)
{
    cfGmresOptions o;
    o.restart = n < 30 ? (n > 0 ? n : 1) : 30;
    o.max_iter = n > INT_MAX / 10 ? INT_MAX : 10 * (n > 0 ? n : 0);
    o.tol_rel = 1e-10;
    o.tol_abs = 1e-300;
    o.side = CF_GMRES_RIGHT;
    return o;
}

static cfStatus finish(cfReport *rep, cfStatus st, cfStopReason why, int it, double res, double t0)
{
    if (rep) {
        rep->status = st;
        rep->reason = why;
        rep->iterations = it;
        rep->residual = res;
        rep->seconds = cf_seconds() - t0;
    }
    return st;
}

/* r <- b - A x; returns |r| */
static double residual(int n, cfMatVec A, void *actx, const double *b, const double *x, double *r)
{
    A(actx, x, r);
    for (int i = 0; i < n; ++i) r[i] = b[i] - r[i];
    return cf_vec_norm(n, r);
}

/* Givens rotation (c, s) with [c s; -s c] (a, b)^T = (rho, 0) */
static void givens(double a, double b, double *c, double *s)
{
    if (b == 0.0) {
        *c = 1.0;
        *s = 0.0;
    } else {
        double h = hypot(a, b);
        *c = a / h;
        *s = b / h;
    }
}

cfStatus cf_gmres(int n, cfMatVec A, void *actx, cfMatVec P, void *pctx, const double *b, double *x,
                  const cfGmresOptions *opt, cfReport *rep)
{
    double t0 = cf_seconds();
    if (rep) cf_report_init(rep, rep->history, rep->history_cap);
    cfGmresOptions o = opt ? *opt : cf_gmres_options_default(n);
    if (n < 0 || !A || (n > 0 && (!b || !x)) || o.restart < 1 || o.max_iter < 0 || !(o.tol_rel >= 0.0) ||
        !(o.tol_abs >= 0.0) || isinf(o.tol_rel) || isinf(o.tol_abs) || !cf_vec_finite(n, b) || !cf_vec_finite(n, x))
        return finish(rep, CF_BAD_INPUT, CF_STOP_NONE, 0, NAN, t0);
    double tol_r = o.tol_rel * cf_vec_norm(n, b);
    cfStopReason why_ok = tol_r >= o.tol_abs ? CF_STOP_RELATIVE : CF_STOP_ABSOLUTE;
    double tol = fmax(tol_r, o.tol_abs);
    int m = o.restart < n ? o.restart : (n > 0 ? n : 1);
    bool left = P && o.side == CF_GMRES_LEFT, right = P && o.side == CF_GMRES_RIGHT;
    size_t nn = (size_t)(n > 0 ? n : 1);
    /* V: m + 1 basis vectors; H: (m + 1) x m Hessenberg, column-major by step; work vectors */
    double *V = malloc((size_t)(m + 1) * nn * sizeof *V), *H = calloc((size_t)(m + 1) * m, sizeof *H);
    double *cs = malloc((size_t)m * sizeof *cs), *sn = malloc((size_t)m * sizeof *sn);
    double *g = malloc((size_t)(m + 1) * sizeof *g), *y = malloc((size_t)m * sizeof *y);
    double *r = malloc(nn * sizeof *r), *z = malloc(nn * sizeof *z), *x_best = malloc(nn * sizeof *x_best);
    if (!V || !H || !cs || !sn || !g || !y || !r || !z || !x_best) {
        free(V), free(H), free(cs), free(sn), free(g), free(y), free(r), free(z), free(x_best);
        return finish(rep, CF_NO_MEMORY, CF_STOP_NONE, 0, NAN, t0);
    }
    int it = 0;
    double res = residual(n, A, actx, b, x, r);
    cfStatus st = CF_MAX_ITER;
    cfStopReason why = CF_STOP_MAX_ITER;
    while (true) {
        if (!isfinite(res)) {
            st = CF_DIVERGED;
            why = CF_STOP_DIVERGENCE;
            break;
        }
        if (res <= tol) {
            st = CF_OK;
            why = why_ok;
            break;
        }
        if (it >= o.max_iter) break;
        /* a cycle: v_1 = r0 / beta with r0 the (left-preconditioned) residual */
        if (left) {
            P(pctx, r, z);
            memcpy(r, z, nn * sizeof *r);
        }
        double beta = cf_vec_norm(n, r);
        /* the estimate is in the preconditioned norm on the left: scale the target alike */
        double inner_tol = left ? tol * beta / res : tol;
        if (!(beta > 0.0) || !isfinite(beta)) {
            st = CF_DIVERGED;
            why = CF_STOP_DIVERGENCE;
            break;
        }
        for (int i = 0; i < n; ++i) V[i] = r[i] / beta;
        memset(g, 0, (size_t)(m + 1) * sizeof *g);
        g[0] = beta;
        int k = 0;
        bool finite = true;
        while (k < m && it < o.max_iter) {
            double *vk = &V[(size_t)k * nn], *w = &V[(size_t)(k + 1) * nn], *hk = &H[(size_t)k * (m + 1)];
            if (right) {
                P(pctx, vk, z);
                A(actx, z, w);
            } else if (left) {
                A(actx, vk, z);
                P(pctx, z, w);
            } else {
                A(actx, vk, w);
            }
            for (int j = 0; j <= k; ++j) { /* modified Gram-Schmidt */
                double *vj = &V[(size_t)j * nn];
                hk[j] = cf_vec_dot(n, w, vj);
                cf_vec_axpy(n, -hk[j], vj, w);
            }
            double hnext = cf_vec_norm(n, w);
            hk[k + 1] = hnext;
            if (!isfinite(hnext)) {
                finite = false;
                break;
            }
            if (hk[k + 1] > 0.0)
                for (int i = 0; i < n; ++i) w[i] /= hk[k + 1];
            for (int j = 0; j < k; ++j) { /* the previous rotations on the new column */
                double a = hk[j], c = hk[j + 1];
                hk[j] = cs[j] * a + sn[j] * c;
                hk[j + 1] = -sn[j] * a + cs[j] * c;
            }
            givens(hk[k], hk[k + 1], &cs[k], &sn[k]);
            hk[k] = cs[k] * hk[k] + sn[k] * hk[k + 1];
            hk[k + 1] = 0.0;
            g[k + 1] = -sn[k] * g[k];
            g[k] = cs[k] * g[k];
            ++k;
            ++it;
            double est = fabs(g[k]);
            if (rep) cf_report_push(rep, left ? est * res / beta : est);
            /* a happy breakdown (the new vector vanished) or the target met: the cycle is done */
            if (est <= inner_tol || hnext == 0.0) break;
        }
        if (!finite) {
            st = CF_DIVERGED;
            why = CF_STOP_DIVERGENCE;
            break;
        }
        /* y = R^-1 g (back substitution; a zero pivot means the step adds nothing there) */
        for (int i = k - 1; i >= 0; --i) {
            double s = g[i];
            for (int j = i + 1; j < k; ++j) s -= H[(size_t)j * (m + 1) + i] * y[j];
            double d = H[(size_t)i * (m + 1) + i];
            y[i] = d != 0.0 ? s / d : 0.0;
        }
        memcpy(x_best, x, nn * sizeof *x);
        memset(z, 0, nn * sizeof *z);
        for (int j = 0; j < k; ++j) cf_vec_axpy(n, y[j], &V[(size_t)j * nn], z);
        if (right) {
            P(pctx, z, r);
            cf_vec_axpy(n, 1.0, r, x);
        } else {
            cf_vec_axpy(n, 1.0, z, x);
        }
        double before = res;
        res = residual(n, A, actx, b, x, r);
        if (rep) cf_report_push(rep, res);
        if (!isfinite(res) || !cf_vec_finite(n, x)) {
            memcpy(x, x_best, nn * sizeof *x);
            res = residual(n, A, actx, b, x, r);
            st = CF_DIVERGED;
            why = CF_STOP_DIVERGENCE;
            break;
        }
        if (res > tol && !(res < before * (1.0 - 1e-12))) { /* a whole cycle gained nothing */
            if (res > before) {
                memcpy(x, x_best, nn * sizeof *x);
                res = residual(n, A, actx, b, x, r);
            }
            st = CF_STAGNATED;
            why = CF_STOP_STAGNATION;
            break;
        }
    }
    free(V), free(H), free(cs), free(sn), free(g), free(y), free(r), free(z), free(x_best);
    return finish(rep, st, why, it, res, t0);
}

static void csr_apply(void *ctx, const double *x, double *y) { cf_csr_mul_vec(ctx, x, y); }

cfStatus cf_csr_gmres(const cfCsr *A, const double *b, double *x, const cfGmresOptions *o, cfReport *rep)
{
    if (!A || A->rows != A->cols) {
        if (rep) rep->status = CF_BAD_INPUT;
        return CF_BAD_INPUT;
    }
    return cf_gmres(A->rows, csr_apply, (void *)A, NULL, NULL, b, x, o, rep);
}
