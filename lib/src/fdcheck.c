/* SPDX-License-Identifier: MIT */
/* Central-difference Jacobians for checking derivatives in tests (cf_fdcheck.h). */
#include "cf/cf_fdcheck.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cfStatus cf_fd_jacobian(int m, int n, cfVecFn f, void *ctx, const double *x, double step, cfDense *D)
{
    if (m < 1 || n < 1 || !f || !x || !(step > 0.0) || !isfinite(step) || !cf_vec_finite(n, x)) return CF_BAD_INPUT;
    cf_dense_free(D);
    if (cf_dense_init(D, m, n) != CF_OK) return CF_NO_MEMORY;
    double *xp = malloc((size_t)n * sizeof *xp), *fp = malloc((size_t)m * sizeof *fp),
           *fm = malloc((size_t)m * sizeof *fm);
    if (!xp || !fp || !fm) {
        free(xp), free(fp), free(fm);
        cf_dense_free(D);
        return CF_NO_MEMORY;
    }
    memcpy(xp, x, (size_t)n * sizeof *xp);
    for (int j = 0; j < n; ++j) {
        double h = step * fmax(1.0, fabs(x[j]));
        xp[j] = x[j] + h;
        f(ctx, xp, fp);
        xp[j] = x[j] - h;
        f(ctx, xp, fm);
        xp[j] = x[j];
        /* the step actually taken (x + h - x may differ from h by rounding) */
        double dh = (x[j] + h) - (x[j] - h);
        for (int i = 0; i < m; ++i) *cf_dense_at(D, i, j) = (fp[i] - fm[i]) / dh;
    }
    free(xp), free(fp), free(fm);
    return CF_OK;
}

double cf_fd_jacobian_error(int m, int n, cfVecFn f, void *ctx, const double *x, const cfDense *J, double step,
                            int *worst_i, int *worst_j)
{
    if (!J || J->rows != m || J->cols != n) return INFINITY;
    cfDense D = {0};
    if (cf_fd_jacobian(m, n, f, ctx, x, step, &D) != CF_OK) return INFINITY;
    double worst = 0.0;
    int wi = 0, wj = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double d = *cf_dense_at(&D, i, j), e = fabs(*cf_dense_at(J, i, j) - d) / (1.0 + fabs(d));
            if (!(e <= worst)) { /* also catches NaN */
                worst = isnan(e) ? INFINITY : e;
                wi = i;
                wj = j;
            }
        }
    cf_dense_free(&D);
    if (worst_i) *worst_i = wi;
    if (worst_j) *worst_j = wj;
    return worst;
}
