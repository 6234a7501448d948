/* SPDX-License-Identifier: MIT */
/* Chapter 7, exercise ch07.2: the closest point on an ellipsoid by bisection (notes Algorithm 13,
   corrected), and the friction set of one contact (disk, ellipse, Coulomb-Contensou ellipsoid or
   box). Specification: lib/include/cf/cf_ch07.h; text: chapters/ch07/README.md. */
#include <math.h>

#include "cf/cf_ch07.h"

// BEGIN SOLUTION ch07.2
/* g(t) = sum a_i^2 z_i^2 / (a_i^2 + t)^2 - 1 over the axes > 0 (x_i(t) / a_i squared) */
static double ellipsoid_g(const double a[3], const double z[3], double t)
{
    double g = -1.0;
    for (int i = 0; i < 3; ++i)
        if (a[i] > 0.0) {
            double q = a[i] * z[i] / (a[i] * a[i] + t);
            g += q * q;
        }
    return g;
}
// END SOLUTION

int cf_prox_ellipsoid(const double abc[3], const double z[3], double tol, double x[3])
{
    //> ch07:ellipsoid
    // BEGIN SOLUTION ch07.2
    /* 2. scale everything into [-1, 1] by a power of two (exact) so that squares neither
       overflow nor underflow, for large and for tiny inputs alike */
    double m = fmax(fmax(abc[0], abc[1]), abc[2]);
    for (int i = 0; i < 3; ++i) m = fmax(m, fabs(z[i]));
    if (m == 0.0) { /* z = 0 and no axis: the point itself */
        x[0] = x[1] = x[2] = 0.0;
        return 0;
    }
    int e;
    frexp(m, &e);
    double a[3], zs[3], f = -1.0;
    bool outside = false;
    for (int i = 0; i < 3; ++i) {
        a[i] = ldexp(abc[i] > 0.0 ? abc[i] : 0.0, -e);
        zs[i] = ldexp(z[i], -e);
        if (a[i] > 0.0) f += (zs[i] / a[i]) * (zs[i] / a[i]);
        else outside |= zs[i] != 0.0; /* 1. an axis of length 0 pins its coordinate to 0 */
    }
    /* 3. inside: z is its own projection (with the coordinates of zero axes set to 0) */
    if (f <= 0.0) {
        for (int i = 0; i < 3; ++i) x[i] = outside && a[i] == 0.0 ? 0.0 : z[i];
        return 0;
    }
    if (a[0] == 0.0 && a[1] == 0.0 && a[2] == 0.0) {
        x[0] = x[1] = x[2] = 0.0;
        return 0;
    }
    /* 4. bracket the root of the decreasing g: t1 = max(a, b, c) |z| (|z|, not |c|) */
    double lo = 0.0, hi = fmax(fmax(a[0], a[1]), a[2]) * sqrt(zs[0] * zs[0] + zs[1] * zs[1] + zs[2] * zs[2]);
    while (ellipsoid_g(a, zs, hi) > 0.0) hi *= 1.5;
    int steps = 0;
    while (steps < 1100 && hi - lo > tol * hi) {
        double t = 0.5 * (lo + hi);
        if (t <= lo || t >= hi) break; /* no double between them */
        ++steps;
        if (ellipsoid_g(a, zs, t) > 0.0) lo = t;
        else hi = t;
    }
    double t = 0.5 * (lo + hi);
    /* 5. x(t) = (t K + I)^-1 z, then undo the scale (x 2^e) */
    for (int i = 0; i < 3; ++i) x[i] = a[i] > 0.0 ? ldexp(a[i] * a[i] * zs[i] / (a[i] * a[i] + t), e) : 0.0;
    return steps;
    // END SOLUTION
    // STUB ch07.2: return CF_TODO_I("ch07.2");
    //< ch07:ellipsoid
}

void cf_prox_friction(int n, const double *z, const double mu[3], double lambda_n, const double *r, bool box,
                      double tol, double *out)
{
    //> ch07:friction-set
    // BEGIN SOLUTION ch07.2
    double ln = lambda_n > 0.0 ? lambda_n : 0.0;
    double axes[3] = {mu[0] * ln, mu[1] * ln, n == 3 ? mu[2] * ln : 0.0};
    bool metric = false; /* r-factors that differ: project in the metric of R^-1 */
    for (int k = 1; r && k < n; ++k) metric |= r[k] != r[0];
    if (box) {
        cf_prox_box(n, z, axes, out);
    } else if (!metric && n == 2 && mu[0] == mu[1]) {
        cf_prox_disk(z, axes[0], out); /* isotropic Coulomb: closed form */
    } else {
        /* y = R^-1/2 x lives in the ellipsoid of semi-axes a_k / sqrt(r_k) */
        double s[3] = {1.0, 1.0, 1.0}, zz[3] = {0.0, 0.0, 0.0}, x[3];
        for (int k = 0; k < n; ++k) {
            if (metric) s[k] = sqrt(r[k]);
            axes[k] /= s[k];
            zz[k] = z[k] / s[k];
        }
        cf_prox_ellipsoid(axes, zz, tol, x);
        for (int k = 0; k < n; ++k) out[k] = s[k] * x[k];
    }
    // END SOLUTION
    // STUB ch07.2: CF_TODO("ch07.2");
    //< ch07:friction-set
}
