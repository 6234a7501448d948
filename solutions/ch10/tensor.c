/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.5: friction tensors (notes 6.2, Pabst et al. 2009): the force with a
   signed angle between the surfaces' frames, the equivalent elliptic cone from the singular values
   of L, and the dissipation check. Specification: lib/include/cf/cf_ch10.h; text:
   chapters/ch10/README.md. */
#include <math.h>

#include "cf/cf_ch10.h"

// BEGIN SOLUTION ch10.5
/* the unit projection of s on the plane of n (zero when it has no tangential part) */
static cfVec3 in_plane(cfVec3 n, cfVec3 s)
{
    cfVec3 p = cfu_sub(s, cfu_scale(cfu_dot(s, n), n));
    double len = cfu_norm(p);
    return len > 0.0 ? cfu_scale(1.0 / len, p) : cfu_zero3();
}
// END SOLUTION

void cf_friction_tensor_force(const double QA[4], const double QB[4], double kappa, cfVec3 n, cfVec3 t_a,
                              cfVec3 t_b, cfVec3 v, double lambda_n, cfVec3 *f)
{
    //> ch10:tensor-force
    // BEGIN SOLUTION ch10.5
    cfVec3 ta = in_plane(n, t_a), tb = in_plane(n, t_b), ba = cfu_cross(n, ta);
    double vt[2] = {cfu_dot(v, ta), cfu_dot(v, ba)}, len = hypot(vt[0], vt[1]);
    if (!(len > 0.0)) {
        *f = cfu_zero3();
        return;
    }
    /* the signed angle from t_A to t_B about n, and L = kappa (Q_A + R Q_B R^T) */
    double th = atan2(cfu_dot(cfu_cross(ta, tb), n), cfu_dot(ta, tb)), c = cos(th), s = sin(th);
    double R[4] = {c, -s, s, c}, RQ[4], L[4];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) RQ[2 * i + j] = R[2 * i] * QB[j] + R[2 * i + 1] * QB[2 + j];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) L[2 * i + j] = kappa * (QA[2 * i + j] + RQ[2 * i] * R[2 * j] + RQ[2 * i + 1] * R[2 * j + 1]);
    double vh[2] = {vt[0] / len, vt[1] / len};
    double f0 = -lambda_n * (L[0] * vh[0] + L[1] * vh[1]), f1 = -lambda_n * (L[2] * vh[0] + L[3] * vh[1]);
    *f = cfu_add(cfu_scale(f0, ta), cfu_scale(f1, ba));
    // END SOLUTION
    // STUB ch10.5: CF_TODO("ch10.5");
    //< ch10:tensor-force
}

cfStatus cf_friction_tensor_cone(const double L[4], double mu_tb[2], double *angle)
{
    if (!(isfinite(L[0]) && isfinite(L[1]) && isfinite(L[2]) && isfinite(L[3]))) return CF_BAD_INPUT;
    //> ch10:tensor-cone
    // BEGIN SOLUTION ch10.5
    /* L L^T = [[p, q], [q, s]] and its eigenvalues sigma^2 */
    double p = L[0] * L[0] + L[1] * L[1], q = L[0] * L[2] + L[1] * L[3], s = L[2] * L[2] + L[3] * L[3];
    double mid = 0.5 * (p + s), rad = hypot(0.5 * (p - s), q);
    double smax = sqrt(mid + rad), smin2 = fmax(0.0, mid - rad);
    /* mid - rad cancels for a nearly singular L: det(L)^2 / (mid + rad) does not */
    double det = L[0] * L[3] - L[1] * L[2];
    double smin = mid + rad > 0.0 ? fabs(det) / smax : sqrt(smin2);
    if (!(smax > 0.0) || !(smin > 1e-12 * smax)) return CF_SINGULAR;
    mu_tb[0] = smin;
    mu_tb[1] = smax;
    /* the eigenvector of the smaller eigenvalue: (q, smin^2 - p) or (smin^2 - s, q) */
    double l2 = smin * smin, ex = q, ey = l2 - p;
    if (hypot(l2 - s, q) > hypot(ex, ey)) ex = l2 - s, ey = q;
    double a = hypot(ex, ey) > 0.0 ? atan2(ey, ex) : 0.0; /* a multiple of I: every direction */
    if (a <= -0.5 * CF_PI) a += CF_PI;
    if (a > 0.5 * CF_PI) a -= CF_PI;
    *angle = a;
    return CF_OK;
    // END SOLUTION
    // STUB ch10.5: return CF_TODO_S("ch10.5");
    //< ch10:tensor-cone
}

double cf_friction_tensor_dissipation(const double L[4], const double v[2], double lambda_n, double *power)
{
    //> ch10:tensor-dissipation
    // BEGIN SOLUTION ch10.5
    double len = hypot(v[0], v[1]);
    if (power) *power = 0.0;
    if (!(len > 0.0) || !(lambda_n > 0.0)) return 0.0;
    double f[2] = {-lambda_n * (L[0] * v[0] + L[1] * v[1]) / len, -lambda_n * (L[2] * v[0] + L[3] * v[1]) / len};
    if (power) *power = f[0] * v[0] + f[1] * v[1];
    /* f* = -lambda_n L (L^T v) / |L^T v| */
    double ltv[2] = {L[0] * v[0] + L[2] * v[1], L[1] * v[0] + L[3] * v[1]};
    double g[2] = {-(L[0] * ltv[0] + L[1] * ltv[1]), -(L[2] * ltv[0] + L[3] * ltv[1])};
    double nf = hypot(f[0], f[1]), ng = hypot(g[0], g[1]);
    if (!(nf > 0.0) || !(ng > 0.0)) return 0.0;
    double c = (f[0] * g[0] + f[1] * g[1]) / (nf * ng);
    return acos(fmax(-1.0, fmin(1.0, c)));
    // END SOLUTION
    // STUB ch10.5: return CF_TODO_F("ch10.5");
    //< ch10:tensor-dissipation
}
