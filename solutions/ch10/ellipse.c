/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.2: the friction ellipse: the closest point by bisection (chapter 7's
   ellipsoid in the plane) and the force of maximal dissipation. Specification:
   lib/include/cf/cf_ch10.h; text: chapters/ch10/README.md. */
#include <math.h>

#include "cf/cf_ch10.h"

// BEGIN SOLUTION ch10.2
/* g(t) = sum a_i^2 z_i^2 / (a_i^2 + t)^2 - 1 over the axes > 0 */
static double ellipse_g(const double a[2], const double z[2], double t)
{
    double g = -1.0;
    for (int i = 0; i < 2; ++i)
        if (a[i] > 0.0) {
            double q = a[i] * z[i] / (a[i] * a[i] + t);
            g += q * q;
        }
    return g;
}
// END SOLUTION

int cf_ellipse_project(const double axes[2], const double z[2], double tol, double x[2])
{
    //> ch10:ellipse-project
    // BEGIN SOLUTION ch10.2
    /* scale into [-1, 1] by a power of two (exact): squares neither overflow nor underflow, for
       tiny inputs too (1/max(1, ...) never scales up) */
    double m = fmax(fmax(axes[0], axes[1]), fmax(fabs(z[0]), fabs(z[1])));
    if (m == 0.0) {
        x[0] = x[1] = 0.0;
        return 0;
    }
    int e;
    frexp(m, &e);
    double a[2], zs[2], f = -1.0;
    bool pinned = false;
    for (int i = 0; i < 2; ++i) {
        a[i] = ldexp(axes[i] > 0.0 ? axes[i] : 0.0, -e);
        zs[i] = ldexp(z[i], -e);
        if (a[i] > 0.0) f += (zs[i] / a[i]) * (zs[i] / a[i]);
        else pinned |= zs[i] != 0.0; /* an axis of length 0 pins its coordinate */
    }
    if (f <= 0.0) { /* inside */
        for (int i = 0; i < 2; ++i) x[i] = pinned && a[i] == 0.0 ? 0.0 : z[i];
        return 0;
    }
    if (a[0] == 0.0 && a[1] == 0.0) {
        x[0] = x[1] = 0.0;
        return 0;
    }
    double lo = 0.0, hi = fmax(a[0], a[1]) * hypot(zs[0], zs[1]);
    while (ellipse_g(a, zs, hi) > 0.0) hi *= 1.5;
    int steps = 0;
    while (steps < 1100 && hi - lo > tol * hi) {
        double t = 0.5 * (lo + hi);
        if (t <= lo || t >= hi) break; /* no double between the ends */
        ++steps;
        if (ellipse_g(a, zs, t) > 0.0) lo = t;
        else hi = t;
    }
    double t = 0.5 * (lo + hi);
    for (int i = 0; i < 2; ++i) x[i] = a[i] > 0.0 ? ldexp(a[i] * a[i] * zs[i] / (a[i] * a[i] + t), e) : 0.0;
    return steps;
    // END SOLUTION
    // STUB ch10.2: return CF_TODO_I("ch10.2");
    //< ch10:ellipse-project
}

void cf_ellipse_max_dissipation(const double mu_tb[2], double lambda_n, const double v[2], double f[2])
{
    //> ch10:max-dissipation
    // BEGIN SOLUTION ch10.2
    double ln = fmax(lambda_n, 0.0);
    double dv[2] = {mu_tb[0] * v[0], mu_tb[1] * v[1]}, len = hypot(dv[0], dv[1]);
    /* f = -lambda_n D^2 v / |D v|: the rim point whose normal D^-2 f is -v */
    for (int k = 0; k < 2; ++k) f[k] = len > 0.0 ? -ln * mu_tb[k] * dv[k] / len : 0.0;
    // END SOLUTION
    // STUB ch10.2: CF_TODO("ch10.2");
    //< ch10:max-dissipation
}
