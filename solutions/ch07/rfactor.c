/* SPDX-License-Identifier: MIT */
/* Chapter 7, exercise ch07.5: the r-factor strategies (global, local, blocked), the power
   iteration for |A|_2 without assembling A, the adaptive accept/reject rule and the accuracy
   bound. Specification: lib/include/cf/cf_ch07.h; text: chapters/ch07/README.md. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch07.h"
#include "cf/cf_rng.h"

double cf_prox_norm_estimate(const cfProxProblem *p, int max_iter, double tol)
{
    //> ch07:power
    // BEGIN SOLUTION ch07.5
    int m = p->dim * p->nc, nv = p->nv;
    if (m == 0) return 0.0;
    double *x = malloc((size_t)m * sizeof *x), *y = malloc((size_t)m * sizeof *y);
    double *w = malloc((size_t)(nv > 0 ? nv : 1) * sizeof *w);
    if (!x || !y || !w) {
        free(x), free(y), free(w);
        return NAN;
    }
    cfRng rng;
    cf_rng_seed(&rng, 1);
    for (int i = 0; i < m; ++i) x[i] = cf_rng_range(&rng, -1.0, 1.0);
    double nx = cf_vec_norm(m, x), est = 0.0;
    for (int i = 0; i < m; ++i) x[i] /= nx;
    for (int k = 0; k < max_iter; ++k) {
        cf_csr_tmul_vec(&p->G, x, w);  /* w = G^T x */
        cf_csr_mul_vec(&p->J, w, y);   /* y = A x = J G^T x */
        cf_csr_tmul_vec(&p->J, y, w);  /* w = J^T A x */
        cf_csr_mul_vec(&p->G, w, y);   /* y = A^T A x = G J^T A x */
        double ny = cf_vec_norm(m, y);
        if (!(ny > 0.0)) {
            est = 0.0;
            break;
        }
        double next = sqrt(ny);
        for (int i = 0; i < m; ++i) x[i] = y[i] / ny;
        bool done = fabs(next - est) <= tol * next;
        est = next;
        if (done) break;
    }
    free(x), free(y), free(w);
    return est;
    // END SOLUTION
    // STUB ch07.5: return CF_TODO_F("ch07.5");
    //< ch07:power
}

// BEGIN SOLUTION ch07.5
/* the inverse of the n x n block B (n = 2 or 3, row-major) into X; false when nearly singular */
static bool invert_small(int n, const double *B, double *X)
{
    double diag = 1.0;
    for (int i = 0; i < n; ++i) diag *= fabs(B[(n + 1) * i]);
    if (n == 2) {
        double det = B[0] * B[3] - B[1] * B[2];
        if (!(fabs(det) > 1e-12 * diag)) return false;
        X[0] = B[3] / det, X[1] = -B[1] / det, X[2] = -B[2] / det, X[3] = B[0] / det;
        return true;
    }
    /* n == 3: the adjugate over the determinant */
    double c[9] = {B[4] * B[8] - B[5] * B[7], B[2] * B[7] - B[1] * B[8], B[1] * B[5] - B[2] * B[4],
                   B[5] * B[6] - B[3] * B[8], B[0] * B[8] - B[2] * B[6], B[2] * B[3] - B[0] * B[5],
                   B[3] * B[7] - B[4] * B[6], B[1] * B[6] - B[0] * B[7], B[0] * B[4] - B[1] * B[3]};
    double det = B[0] * c[0] + B[1] * c[3] + B[2] * c[6];
    if (!(fabs(det) > 1e-12 * diag)) return false;
    for (int i = 0; i < 9; ++i) X[i] = c[i] / det;
    return true;
}
// END SOLUTION

cfStatus cf_prox_r_init(const cfProxProblem *p, const cfProxOptions *o, double *R)
{
    //> ch07:r-init
    // BEGIN SOLUTION ch07.5
    int d = p->dim, dd = d * d;
    memset(R, 0, (size_t)dd * p->nc * sizeof *R);
    double r = o->r_global;
    if (o->strategy == CF_RFACTOR_GLOBAL && r == 0.0 && p->nc > 0) {
        double n = cf_prox_norm_estimate(p, 100, 1e-6); /* Foerg: 1/(|l_min| + |l_max|), l_min ~ 0 */
        if (!(n > 0.0 && isfinite(n))) return CF_SINGULAR;
        r = 1.0 / n;
    }
    for (int a = 0; a < p->nc; ++a) {
        double *Ra = &R[dd * a], A[CF_PROX_MAX_DIM * CF_PROX_MAX_DIM];
        if (o->strategy == CF_RFACTOR_GLOBAL) {
            for (int k = 0; k < d; ++k) Ra[(d + 1) * k] = r;
            continue;
        }
        cf_prox_block(p, a, A);
        for (int k = 0; k < d; ++k) Ra[(d + 1) * k] = o->omega / A[(d + 1) * k]; /* local: PGS's 1/A_ii */
        if (o->strategy == CF_RFACTOR_BLOCKED) {
            /* the friction rows get the inverse of their block (a Newton step there) */
            int n = d - 1;
            double F[9], X[9];
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) F[n * i + j] = A[d * (1 + i) + 1 + j];
            if (invert_small(n, F, X))
                for (int i = 0; i < n; ++i)
                    for (int j = 0; j < n; ++j) Ra[d * (1 + i) + 1 + j] = o->omega * X[n * i + j];
        }
    }
    return CF_OK;
    // END SOLUTION
    // STUB ch07.5: return CF_TODO_S("ch07.5");
    //< ch07:r-init
}

bool cf_prox_accept(const cfProxOptions *o, cfProxAdapt *ad, double e_new)
{
    //> ch07:accept
    // BEGIN SOLUTION ch07.5
    double ref = ad->n == 0 ? INFINITY : 0.0;
    for (int i = ad->n - 1; i >= 0 && i >= ad->n - o->window; --i) ref = fmax(ref, ad->recent[i]);
    if (!(e_new < o->theta * ref)) { /* ">=" (and NaN): the strict ">" of the listing misses cycles */
        ad->run = 0;
        if (ad->scale > o->scale_min) {
            ad->scale = fmax(ad->scale * cf_prox_nu(o), o->scale_min);
        } else { /* at the floor: start the descent again from the best iterate, full step */
            ad->stalled = !ad->progress;
            ad->progress = false;
            ad->scale = 1.0;
            ad->n = 0;
            ++ad->resets;
        }
        return false;
    }
    if (ad->n == CF_PROX_WINDOW_MAX) memmove(ad->recent, ad->recent + 1, (CF_PROX_WINDOW_MAX - 1) * sizeof *ad->recent);
    else ++ad->n;
    ad->recent[ad->n - 1] = e_new;
    ad->progress = true;
    if (++ad->run >= o->grow_after && o->grow > 1.0) {
        ad->scale = fmin(1.0, ad->scale * o->grow);
        ad->run = 0;
    }
    return true;
    // END SOLUTION
    // STUB ch07.5: return CF_TODO_I("ch07.5");
    //< ch07:accept
}

double cf_prox_tol_bound(double r_max, double norm_A, double norm_lambda)
{
    // BEGIN SOLUTION ch07.5
    return 10.0 * r_max * DBL_EPSILON * norm_A * norm_lambda;
    // END SOLUTION
    // STUB ch07.5: return CF_TODO_F("ch07.5");
}
