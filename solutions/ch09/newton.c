/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.4: projection of a symmetric matrix to PSD and projected Newton
   (Algorithm 18; gradient descent, Algorithm 17, on request) on the incremental potential.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch09.h"
#include "cf/cf_linalg.h"

cfStatus cf_psd_project(int n, double *A)
{
    //> ch09:psd-project
    // BEGIN SOLUTION ch09.4
    if (n < 1 || !cf_vec_finite(n * n, A)) return CF_BAD_INPUT;
    cfDense M = {n, n, A}, V = {0};
    double *l = malloc((size_t)n * sizeof *l);
    if (!l) return CF_NO_MEMORY;
    cfStatus st = cf_dense_sym_eig(&M, l, &V);
    if (st == CF_OK && l[0] < 0.0) { /* ascending: nothing to do when the smallest is >= 0 */
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double s = 0.0;
                for (int k = 0; k < n; ++k)
                    if (l[k] > 0.0) s += *cf_dense_at(&V, i, k) * l[k] * *cf_dense_at(&V, j, k);
                A[i * n + j] = s;
            }
    }
    cf_dense_free(&V);
    free(l);
    return st;
    // END SOLUTION
    // STUB ch09.4: return CF_TODO_S("ch09.4");
    //< ch09:psd-project
}

cfStatus cf_ipc_newton(cfIpcSystem *s, double *q, const cfIpcOptions *opt, cfIpcStats *st)
{
    //> ch09:newton
    // BEGIN SOLUTION ch09.4
    cfIpcOptions o = opt ? *opt : cf_ipc_options_default();
    cfIpcStats stats = {0};
    int N = 3 * s->n;
    bool newton = o.direction == CF_IPC_NEWTON;
    double h2 = s->h * s->h;
    double *g = malloc((size_t)N * sizeof *g), *dq = malloc((size_t)N * sizeof *dq);
    double *qn = malloc((size_t)N * sizeof *qn);
    cfDense H = {0}, L = {0};
    cfStatus status = g && dq && qn ? CF_OK : CF_NO_MEMORY;
    if (status == CF_OK && newton) status = cf_dense_init(&H, N, N);
    double f = status == CF_OK ? cf_ipc_energy(s, q, g, newton ? H.a : NULL, true) : NAN;
    if (status == CF_OK && !isfinite(f)) status = CF_BAD_INPUT;
    while (status == CF_OK) {
        stats.grad_norm = cf_vec_norm_inf(N, g) / h2;
        if (newton) { /* dq = -H^-1 g, H PD: the projected blocks plus the masses */
            status = cf_dense_cholesky(&H, &L);
            if (status != CF_OK) break;
            cf_dense_cholesky_solve(&L, g, dq);
            cf_dense_free(&L);
            for (int p = 0; p < N; ++p) dq[p] = -dq[p];
        } else {
            for (int p = 0; p < N; ++p) dq[p] = s->fixed[p / 3] ? 0.0 : -g[p] / s->mass[p / 3];
        }
        if (cf_vec_norm_inf(N, dq) / s->h <= o.tol) break;
        if (stats.iterations >= o.max_iter) {
            status = CF_MAX_ITER;
            break;
        }
        int halvings = 0;
        bool clamped = false;
        double alpha = cf_ipc_line_search(s, q, dq, f, &o, qn, &halvings, &clamped);
        stats.halvings += halvings;
        stats.ccd_clamps += clamped;
        if (!(alpha > 0.0)) {
            status = CF_STAGNATED;
            break;
        }
        cf_vec_copy(N, qn, q);
        stats.iterations++;
        f = cf_ipc_energy(s, q, g, newton ? H.a : NULL, true); /* the contact set of the new iterate */
        if (!isfinite(f)) status = CF_DIVERGED;
    }
    stats.energy = f;
    cf_dense_free(&H);
    free(g), free(dq), free(qn);
    if (st) *st = stats;
    return status;
    // END SOLUTION
    // STUB ch09.4: return CF_TODO_S("ch09.4");
    //< ch09:newton
}
