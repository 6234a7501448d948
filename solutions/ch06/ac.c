/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.6: the Alart-Curnier function of the Coulomb friction problem and
   one element of its generalized Jacobian, the NSN-AC method of Siconos.
   Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include <math.h>

#include "cf/cf_ch06.h"

cfStatus cf_fc_ac_eval(const cfFrictionProblem *p, const double *rho, const double *r, double *Phi, cfTriplets *J)
{
    //> ch06:ac-eval
    // BEGIN SOLUTION ch06.6
    const cfBsr *W = &p->W;
    for (int a = 0; a < p->nc; ++a) {
        /* u_a = q_a + sum_b W_ab r_b */
        double u[3] = {p->q[3 * a], p->q[3 * a + 1], p->q[3 * a + 2]};
        for (int e = W->rowptr[a]; e < W->rowptr[a + 1]; ++e) {
            const double *B = &W->val[9 * e], *rb = &r[3 * W->colidx[e]];
            for (int i = 0; i < 3; ++i) u[i] += B[3 * i] * rb[0] + B[3 * i + 1] * rb[1] + B[3 * i + 2] * rb[2];
        }
        const double *ra = &r[3 * a];
        double rh = rho ? rho[a] : 1.0, mu = p->mu[a];
        double Aa[9] = {0}, Ba[9] = {0}; /* dPhi/dr at fixed u, dPhi/du */
        /* normal: Phi_n = r_n - max(0, y_n); a tie (y_n = 0) is active */
        double yn = ra[0] - rh * u[0];
        Phi[3 * a] = ra[0] - fmax(0.0, yn);
        if (yn >= 0.0) Ba[0] = rh;
        else Aa[0] = 1.0;
        /* tangent: Phi_T = r_T - P_disk(R)(y_T), R = mu max(0, y_n) */
        double R = mu * fmax(0.0, yn), yt[2] = {ra[1] - rh * u[1], ra[2] - rh * u[2]};
        double ny = hypot(yt[0], yt[1]);
        if (ny <= R) { /* inside (ties too): Phi_T = rho u_T, sticking */
            Phi[3 * a + 1] = rh * u[1];
            Phi[3 * a + 2] = rh * u[2];
            Ba[4] = Ba[8] = rh;
        } else { /* outside: projected onto the circle, sliding */
            double e[2] = {yt[0] / ny, yt[1] / ny}, g = R / ny;
            Phi[3 * a + 1] = ra[1] - R * e[0];
            Phi[3 * a + 2] = ra[2] - R * e[1];
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) {
                    double G = g * ((i == j) - e[i] * e[j]);
                    Aa[(1 + i) * 3 + 1 + j] = (i == j) - G;
                    Ba[(1 + i) * 3 + 1 + j] = rh * G;
                }
            if (yn >= 0.0) /* the radius moves with y_n */
                for (int i = 0; i < 2; ++i) {
                    Aa[(1 + i) * 3] = -mu * e[i];
                    Ba[(1 + i) * 3] = mu * rh * e[i];
                }
        }
        if (!J) continue;
        /* row block a: A_a at (a, a) plus B_a W_ab for every stored block (a, b) */
        cfStatus st = cf_triplets_add_block3(J, a, a, Aa);
        for (int e = W->rowptr[a]; e < W->rowptr[a + 1] && st == CF_OK; ++e) {
            const double *Wb = &W->val[9 * e];
            double BW[9];
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j)
                    BW[3 * i + j] = Ba[3 * i] * Wb[j] + Ba[3 * i + 1] * Wb[3 + j] + Ba[3 * i + 2] * Wb[6 + j];
            st = cf_triplets_add_block3(J, a, W->colidx[e], BW);
        }
        if (st != CF_OK) return st;
    }
    return CF_OK;
    // END SOLUTION
    // STUB ch06.6: (void)p; (void)rho; (void)r; (void)Phi; (void)J;
    // STUB ch06.6: return CF_TODO_S("ch06.6");
    //< ch06:ac-eval
}
