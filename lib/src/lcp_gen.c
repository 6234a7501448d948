/* SPDX-License-Identifier: MIT */
/* Seeded LCP generators after num4lcp, with the planted solution corrected (see cf_lcpgen.h). */
#include "cf/cf_lcpgen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AT(M, i, j) ((M)->a[(long)(i) * (M)->cols + (j)])

cfStatus cf_lcpgen_orthogonal(int n, cfRng *rng, cfDense *Q)
{
    if (!Q || !rng || n < 1) return CF_BAD_INPUT;
    cfDense R;
    cfStatus st = cf_dense_init(&R, n, n);
    if (st != CF_OK) return st;
    st = cf_dense_init(Q, n, n);
    double *v = malloc((size_t)n * sizeof *v), *sgn = malloc((size_t)n * sizeof *sgn);
    if (st != CF_OK || !v || !sgn) {
        cf_dense_free(&R);
        cf_dense_free(Q);
        free(v);
        free(sgn);
        return CF_NO_MEMORY;
    }
    for (long k = 0; k < (long)n * n; ++k) R.a[k] = cf_rng_normal(rng);
    for (int i = 0; i < n; ++i) AT(Q, i, i) = 1.0;

    /* Householder QR of R; the reflectors are applied to Q from the right so that
       Q = H_0 H_1 ... H_{n-2}, and the signs of diag(R) are folded in afterwards (Haar measure) */
    for (int k = 0; k < n; ++k) {
        double norm = 0.0;
        for (int i = k; i < n; ++i) norm += AT(&R, i, k) * AT(&R, i, k);
        norm = sqrt(norm);
        double alpha = AT(&R, k, k) > 0.0 ? -norm : norm;
        sgn[k] = alpha < 0.0 ? -1.0 : 1.0; /* R_kk = alpha after the reflection */
        if (k == n - 1 || norm == 0.0) {
            sgn[k] = AT(&R, k, k) < 0.0 ? -1.0 : 1.0;
            continue;
        }
        for (int i = k; i < n; ++i) v[i] = AT(&R, i, k);
        v[k] -= alpha;
        double vv = 0.0;
        for (int i = k; i < n; ++i) vv += v[i] * v[i];
        if (vv == 0.0) continue;
        for (int j = k; j < n; ++j) { /* R <- (I - 2 v v^T / vv) R */
            double s = 0.0;
            for (int i = k; i < n; ++i) s += v[i] * AT(&R, i, j);
            s *= 2.0 / vv;
            for (int i = k; i < n; ++i) AT(&R, i, j) -= s * v[i];
        }
        for (int i = 0; i < n; ++i) { /* Q <- Q (I - 2 v v^T / vv) */
            double s = 0.0;
            for (int j = k; j < n; ++j) s += AT(Q, i, j) * v[j];
            s *= 2.0 / vv;
            for (int j = k; j < n; ++j) AT(Q, i, j) -= s * v[j];
        }
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) AT(Q, i, j) *= sgn[j];
    cf_dense_free(&R);
    free(v);
    free(sgn);
    return CF_OK;
}

/* A = Q diag(d) Q^T, symmetrized */
static cfStatus spectral(int n, const double *d, cfRng *rng, cfDense *A)
{
    cfDense Q;
    cfStatus st = cf_lcpgen_orthogonal(n, rng, &Q);
    if (st != CF_OK) return st;
    st = cf_dense_init(A, n, n);
    if (st != CF_OK) {
        cf_dense_free(&Q);
        return st;
    }
    for (int i = 0; i < n; ++i)
        for (int j = i; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k) s += AT(&Q, i, k) * d[k] * AT(&Q, j, k);
            AT(A, i, j) = AT(A, j, i) = s;
        }
    cf_dense_free(&Q);
    return CF_OK;
}

cfStatus cf_lcpgen_psd_matrix(int n, double ratio, cfRng *rng, cfDense *A)
{
    if (!A || !rng || n < 1 || !(ratio >= 0.0 && ratio <= 1.0)) return CF_BAD_INPUT;
    double *d = malloc((size_t)n * sizeof *d);
    if (!d) return CF_NO_MEMORY;
    int zeros = (int)floor(n * ratio);
    for (int k = 0; k < n; ++k) d[k] = k < zeros ? 0.0 : (double)(k + 1) / n;
    cfStatus st = spectral(n, d, rng, A);
    free(d);
    return st;
}

cfStatus cf_lcpgen_pd_matrix(int n, cfRng *rng, cfDense *A) { return cf_lcpgen_psd_matrix(n, 0.0, rng, A); }

/* if lambda_min(A) <= 0, shift the diagonal so that lambda_min = 0.5 */
static cfStatus shift_spectrum(cfDense *A)
{
    int n = A->rows;
    double *ev = malloc((size_t)n * sizeof *ev);
    if (!ev) return CF_NO_MEMORY;
    cfStatus st = cf_dense_sym_eig(A, ev, NULL);
    if (st == CF_OK && ev[0] <= 0.0)
        for (int i = 0; i < n; ++i) AT(A, i, i) += 0.5 - ev[0];
    free(ev);
    return st;
}

cfStatus cf_lcpgen_blocked_matrix(int B, int K, double F, cfRng *rng, cfDense *A)
{
    if (!A || !rng || B < 1 || K < 1 || !isfinite(F)) return CF_BAD_INPUT;
    int n = B * K;
    cfStatus st = cf_dense_init(A, n, n);
    if (st != CF_OK) return st;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) AT(A, i, j) = cf_rng_uniform(rng);
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) AT(A, i, j) = AT(A, j, i) = 0.5 * (AT(A, i, j) + AT(A, j, i));
    /* zero whole blocks whose centre entry exceeds F; the decision is taken on the original
       centre entries first (symmetric, since sym(R) is), then applied */
    int c = B / 2;
    bool *zero = malloc((size_t)K * K * sizeof *zero);
    if (!zero) {
        cf_dense_free(A);
        return CF_NO_MEMORY;
    }
    for (int I = 0; I < K; ++I)
        for (int J = 0; J < K; ++J) zero[I * K + J] = AT(A, I * B + c, J * B + c) > F;
    for (int I = 0; I < K; ++I)
        for (int J = 0; J < K; ++J)
            if (zero[I * K + J])
                for (int i = 0; i < B; ++i)
                    for (int j = 0; j < B; ++j) AT(A, I * B + i, J * B + j) = 0.0;
    free(zero);
    st = shift_spectrum(A);
    if (st != CF_OK) cf_dense_free(A);
    return st;
}

cfStatus cf_lcpgen_contact_matrix(int K, double mu, cfRng *rng, cfDense *A)
{
    if (!isfinite(mu) || mu < 0.0) return CF_BAD_INPUT;
    cfStatus st = cf_lcpgen_blocked_matrix(6, K, 0.5, rng, A);
    if (st != CF_OK) return st;
    for (int I = 0; I < K; ++I)
        for (int J = 0; J < K; ++J) {
            int r = 6 * I, c = 6 * J;
            if (AT(A, r, c) == 0.0) continue;
            AT(A, r + 5, c) = mu;
            AT(A, r + 5, c + 5) = 0.0;
            AT(A, r, c + 5) = 0.0;
            for (int k = 1; k <= 4; ++k) {
                AT(A, r + 5, c + k) = -1.0;
                AT(A, r + k, c + 5) = 1.0;
            }
        }
    return CF_OK;
}

cfStatus cf_lcpgen_banded_matrix(int bands, int n, cfRng *rng, cfDense *A)
{
    if (!A || !rng || n < 1 || bands < 0) return CF_BAD_INPUT;
    cfStatus st = cf_dense_init(A, n, n);
    if (st != CF_OK) return st;
    for (int i = 0; i < n; ++i) AT(A, i, i) = 1.0;
    for (int k = 1; k <= bands; ++k) {
        double r = -cf_rng_uniform(rng);
        for (int i = 0; i + k < n; ++i) AT(A, i, i + k) = AT(A, i + k, i) = r;
    }
    st = shift_spectrum(A);
    if (st != CF_OK) cf_dense_free(A);
    return st;
}

cfStatus cf_lcpgen_fluid_matrix(int G, cfRng *rng, cfDense *A)
{
    if (G < 1 || G > 100) return CF_BAD_INPUT;
    return cf_lcpgen_banded_matrix(3, G * G * G, rng, A);
}

cfStatus cf_lcpgen_poisson_matrix(int G, cfDense *A)
{
    if (!A || G < 1 || G > 100) return CF_BAD_INPUT;
    int n = G * G * G;
    cfStatus st = cf_dense_init(A, n, n);
    if (st != CF_OK) return st;
    for (int z = 0; z < G; ++z)
        for (int y = 0; y < G; ++y)
            for (int x = 0; x < G; ++x) {
                int i = (z * G + y) * G + x;
                AT(A, i, i) = 6.0;
                if (x > 0) AT(A, i, i - 1) = -1.0;
                if (x < G - 1) AT(A, i, i + 1) = -1.0;
                if (y > 0) AT(A, i, i - G) = -1.0;
                if (y < G - 1) AT(A, i, i + G) = -1.0;
                if (z > 0) AT(A, i, i - G * G) = -1.0;
                if (z < G - 1) AT(A, i, i + G * G) = -1.0;
            }
    return CF_OK;
}

static cfStatus plant(const cfDense *A, double F, cfRng *rng, cfLcp *p, double *x, bool corrected)
{
    if (!A || !rng || !p || !x || A->rows < 1 || A->rows != A->cols || !(F >= 0.0 && F <= 1.0))
        return CF_BAD_INPUT;
    int n = A->rows;
    double *b = malloc((size_t)n * sizeof *b);
    if (!b) return CF_NO_MEMORY;
    for (int i = 0; i < n; ++i) {
        x[i] = cf_rng_uniform(rng);
        if (x[i] < F) x[i] = 0.0;
    }
    cf_dense_mul_vec(A, x, b);
    for (int i = 0; i < n; ++i) {
        double u = cf_rng_uniform(rng); /* drawn in both variants: same x for the same seed */
        b[i] = x[i] > 0.0 ? -b[i] : (corrected ? u - b[i] : 0.0);
    }
    cfStatus st = cf_lcp_from_dense(p, A, b);
    free(b);
    return st;
}

cfStatus cf_lcpgen_plant(const cfDense *A, double zero_fraction, cfRng *rng, cfLcp *p, double *x)
{
    return plant(A, zero_fraction, rng, p, x, true);
}

cfStatus cf_lcpgen_plant_num4lcp(const cfDense *A, double zero_fraction, cfRng *rng, cfLcp *p, double *x)
{
    return plant(A, zero_fraction, rng, p, x, false);
}

const char *cf_lcpgen_family_name(cfLcpFamily f)
{
    switch (f) {
    case CF_LCPGEN_PD: return "pd";
    case CF_LCPGEN_PSD: return "psd";
    case CF_LCPGEN_BLOCKED: return "blocked";
    case CF_LCPGEN_CONTACT: return "contact";
    case CF_LCPGEN_BANDED: return "banded";
    case CF_LCPGEN_FLUID: return "fluid";
    case CF_LCPGEN_POISSON: return "poisson";
    case CF_LCPGEN_FAMILY_COUNT: break;
    }
    return "unknown";
}

static int cube_side(int n)
{
    int g = (int)lround(cbrt((double)n));
    return g < 1 ? 1 : g;
}

int cf_lcpgen_family_size(cfLcpFamily f, int n)
{
    if (n < 1) n = 1;
    switch (f) {
    case CF_LCPGEN_BLOCKED: return 3 * (n / 3 > 0 ? n / 3 : 1);
    case CF_LCPGEN_CONTACT: return 6 * (n / 6 > 0 ? n / 6 : 1);
    case CF_LCPGEN_FLUID:
    case CF_LCPGEN_POISSON: {
        int g = cube_side(n);
        return g * g * g;
    }
    default: return n;
    }
}

cfStatus cf_lcpgen_family(cfLcpFamily f, int n, uint64_t seed, cfLcp *p, double *x)
{
    if (!p || n < 1 || n > 20000) return CF_BAD_INPUT;
    cfRng rng;
    cf_rng_seed(&rng, seed);
    cfDense A;
    memset(&A, 0, sizeof A);
    cfStatus st;
    switch (f) {
    case CF_LCPGEN_PD: st = cf_lcpgen_pd_matrix(n, &rng, &A); break;
    case CF_LCPGEN_PSD: st = cf_lcpgen_psd_matrix(n, 0.5, &rng, &A); break;
    case CF_LCPGEN_BLOCKED: st = cf_lcpgen_blocked_matrix(3, cf_lcpgen_family_size(f, n) / 3, 0.5, &rng, &A); break;
    case CF_LCPGEN_CONTACT: st = cf_lcpgen_contact_matrix(cf_lcpgen_family_size(f, n) / 6, 0.5, &rng, &A); break;
    case CF_LCPGEN_BANDED: st = cf_lcpgen_banded_matrix(3, n, &rng, &A); break;
    case CF_LCPGEN_FLUID: st = cf_lcpgen_fluid_matrix(cube_side(n), &rng, &A); break;
    case CF_LCPGEN_POISSON: st = cf_lcpgen_poisson_matrix(cube_side(n), &A); break;
    default: return CF_BAD_INPUT;
    }
    if (st != CF_OK) return st;
    double *xs = x ? x : malloc((size_t)A.rows * sizeof *xs);
    if (!xs) st = CF_NO_MEMORY;
    if (st == CF_OK) st = cf_lcpgen_plant(&A, 0.5, &rng, p, xs);
    if (!x) free(xs);
    cf_dense_free(&A);
    return st;
}

cfStatus cf_lcpgen_stack(int n, double ratio, double h, cfLcp *p, double *exact)
{
    if (!p || n < 1 || !(ratio > 0.0) || !isfinite(ratio) || !(h > 0.0) || !isfinite(h)) return CF_BAD_INPUT;
    cfDense A;
    cfStatus st = cf_dense_init(&A, n, n);
    if (st != CF_OK) return st;
    double *b = calloc((size_t)n, sizeof *b), *m = malloc((size_t)n * sizeof *m);
    if (!b || !m) {
        free(b);
        free(m);
        cf_dense_free(&A);
        return CF_NO_MEMORY;
    }
    for (int i = 0; i < n; ++i) m[i] = i == n - 1 ? ratio : 1.0;
    for (int i = 0; i < n; ++i) {
        A.a[i * n + i] = 1.0 / m[i] + (i > 0 ? 1.0 / m[i - 1] : 0.0);
        if (i > 0) A.a[i * n + i - 1] = A.a[(i - 1) * n + i] = -1.0 / m[i - 1];
    }
    b[0] = -h * 9.81;
    double s = 0.0;
    for (int i = n - 1; i >= 0; --i) {
        s += m[i];
        if (exact) exact[i] = h * 9.81 * s;
    }
    st = cf_lcp_from_dense(p, &A, b);
    free(b);
    free(m);
    cf_dense_free(&A);
    return st;
}
