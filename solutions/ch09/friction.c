/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.6: IPC's smoothed friction: the mollifier f1 with its potential f0,
   and the lagged dissipative potential of one pair with its gradient and Hessian.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>
#include <string.h>

#include "cf/cf_ch09.h"

double cf_friction_f1(double s, double a, double *df1, double *f0)
{
    //> ch09:mollifier
    // BEGIN SOLUTION ch09.6
    double f1 = 1.0, d = 0.0, p = s;
    if (s < a) {
        double x = s / a;
        f1 = x * (2.0 - x);
        d = 2.0 * (1.0 - x) / a;
        p = a * (x * x - x * x * x / 3.0 + 1.0 / 3.0);
    }
    if (df1) *df1 = d;
    if (f0) *f0 = p;
    return f1;
    // END SOLUTION
    // STUB ch09.6: return CF_TODO_F("ch09.6");
    //< ch09:mollifier
}

double cf_ipc_pair_friction(const cfIpcFrictionPair *p, const double dx[12], double mu, double a, double g[12],
                            double H[144])
{
    //> ch09:pair-friction
    // BEGIN SOLUTION ch09.6
    cfVec3 w = cfu_zero3();
    for (int i = 0; i < 4; ++i) w = cfu_mul_add(w, p->c[i], cfu_vec3(dx[3 * i], dx[3 * i + 1], dx[3 * i + 2]));
    double u[2] = {cfu_dot(p->t1, w), cfu_dot(p->t2, w)};
    double s = sqrt(u[0] * u[0] + u[1] * u[1]), df1, f0;
    double f1 = cf_friction_f1(s, a, &df1, &f0);
    double muN = mu * p->N;
    double f1s = s > 0.0 ? f1 / s : 2.0 / a;             /* f1/s, its limit at 0 */
    double c2 = s > 0.0 ? (df1 * s - f1) / (s * s * s) : 0.0; /* (f1/s)'/s */
    cfVec3 T[2] = {p->t1, p->t2};
    cfVec3 ft = cfu_scale(f1s, cfu_mul_add(cfu_scale(u[0], T[0]), u[1], T[1])); /* T (f1/s) u */
    if (g)
        for (int i = 0; i < 4; ++i)
            for (int k = 0; k < 3; ++k) g[3 * i + k] = muN * p->c[i] * cfu_vec3_at(ft, k);
    if (H) {
        double K[2][2] = {{f1s + c2 * u[0] * u[0], c2 * u[0] * u[1]}, {c2 * u[1] * u[0], f1s + c2 * u[1] * u[1]}};
        double TKT[3][3];
        for (int k = 0; k < 3; ++k)
            for (int l = 0; l < 3; ++l) {
                double v = 0.0;
                for (int m = 0; m < 2; ++m)
                    for (int n = 0; n < 2; ++n) v += cfu_vec3_at(T[m], k) * K[m][n] * cfu_vec3_at(T[n], l);
                TKT[k][l] = v;
            }
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j)
                for (int k = 0; k < 3; ++k)
                    for (int l = 0; l < 3; ++l) H[(3 * i + k) * 12 + 3 * j + l] = muN * p->c[i] * p->c[j] * TKT[k][l];
    }
    return muN * f0;
    // END SOLUTION
    // STUB ch09.6: return CF_TODO_F("ch09.6");
    //< ch09:pair-friction
}
