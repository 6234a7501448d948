/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.4: the NCP formulation of anisotropic friction (notes 6.1.5): the
   notes' two complementarity rows with their generalized gradients (Eq. 316-319), and the square
   system of an elliptic problem that chapter 6's Newton loop solves. Specification:
   lib/include/cf/cf_ch10.h; text: chapters/ch10/README.md. */
#include <math.h>

#include "cf/cf_ch10.h"

void cf_aniso_ncp_rows(const double mu_tb[2], double lambda_n, const double x[5], double psi[2], double row[10])
{
    //> ch10:ncp-rows
    // BEGIN SOLUTION ch10.4
    double beta = x[0];
    const double *f = &x[1], *v = &x[3];
    double C[2] = {1.0 / (mu_tb[0] * mu_tb[0]), 1.0 / (mu_tb[1] * mu_tb[1])};
    double eta = C[0] * f[0] * f[0] + C[1] * f[1] * f[1] - lambda_n * lambda_n;
    double g[2] = {2.0 * C[0] * f[0], 2.0 * C[1] * f[1]}, w[2] = {g[0] + beta * v[0], g[1] + beta * v[1]};
    double da, db;
    /* row 0: psi(beta, -eta) */
    psi[0] = cf_ncp_fb(beta, -eta, &da, &db);
    row[0] = da;
    row[1] = -db * g[0];
    row[2] = -db * g[1];
    row[3] = row[4] = 0.0;
    /* row 1: psi(v.v, w.w) with dw = v dbeta + (2C) df + beta dv */
    psi[1] = cf_ncp_fb(v[0] * v[0] + v[1] * v[1], w[0] * w[0] + w[1] * w[1], &da, &db);
    row[5] = 2.0 * db * (w[0] * v[0] + w[1] * v[1]);
    for (int k = 0; k < 2; ++k) {
        row[6 + k] = 2.0 * db * w[k] * 2.0 * C[k];
        row[8 + k] = 2.0 * (da * v[k] + db * beta * w[k]);
    }
    // END SOLUTION
    // STUB ch10.4: CF_TODO("ch10.4");
    //< ch10:ncp-rows
}

cfStatus cf_fc_aniso_ncp_eval(const cfFrictionProblem *p, const double *x, double *H, cfTriplets *J)
{
    //> ch10:ncp-eval
    // BEGIN SOLUTION ch10.4
    const cfBsr *W = &p->W;
    for (int a = 0; a < p->nc; ++a) {
        const double *xa = &x[4 * a];
        double u[3] = {p->q[3 * a], p->q[3 * a + 1], p->q[3 * a + 2]}, s = 1.0, mu_tb[2];
        for (int e = W->rowptr[a]; e < W->rowptr[a + 1]; ++e) {
            const double *B = &W->val[9 * e], *xb = &x[4 * W->colidx[e]];
            if (W->colidx[e] == a && B[0] > 0.0) s = B[0];
            for (int i = 0; i < 3; ++i) u[i] += B[3 * i] * xb[0] + B[3 * i + 1] * xb[1] + B[3 * i + 2] * xb[2];
        }
        cf_fc_ellipse_of(p, a, mu_tb);
        double beta = xa[3], rn = xa[0], c[2] = {0.0, 0.0}, eta = -rn * rn;
        for (int k = 0; k < 2; ++k)
            if (mu_tb[k] > 0.0) {
                c[k] = 1.0 / (mu_tb[k] * mu_tb[k]);
                eta += c[k] * xa[1 + k] * xa[1 + k];
            }
        bool frictionless = !(mu_tb[0] > 0.0) && !(mu_tb[1] > 0.0);
        int row = 4 * a;
        /* normal: Signorini, r-scaled by W_nn */
        double dn_a, dn_b;
        H[row] = cf_ncp_eval(CF_NCP_FB, u[0], rn, s, 1.0, &dn_a, &dn_b);
        /* tangents: u_k + beta d eta / d r_k, or the pinned r_k */
        for (int k = 0; k < 2; ++k) H[row + 1 + k] = mu_tb[k] > 0.0 ? u[1 + k] + 2.0 * beta * c[k] * xa[1 + k] : xa[1 + k];
        /* slack: psi(-eta, beta), or beta */
        double ds_a = 0.0, ds_b = 1.0;
        H[row + 3] = frictionless ? beta : cf_ncp_eval(CF_NCP_FB, -eta, beta, 1.0, 1.0, &ds_a, &ds_b);
        if (!J) continue;
        cfStatus st = CF_OK;
        /* the rows of W through u (normal scaled by da; tangents of unpinned axes) */
        for (int e = W->rowptr[a]; e < W->rowptr[a + 1] && st == CF_OK; ++e) {
            const double *B = &W->val[9 * e];
            int col = 4 * W->colidx[e];
            for (int j = 0; j < 3 && st == CF_OK; ++j) {
                if (dn_a != 0.0 && B[j] != 0.0) st = cf_triplets_add(J, row, col + j, dn_a * B[j]);
                for (int k = 0; k < 2 && st == CF_OK; ++k)
                    if (mu_tb[k] > 0.0 && B[3 * (1 + k) + j] != 0.0) st = cf_triplets_add(J, row + 1 + k, col + j, B[3 * (1 + k) + j]);
            }
        }
        if (st == CF_OK && dn_b != 0.0) st = cf_triplets_add(J, row, row, dn_b);
        for (int k = 0; k < 2 && st == CF_OK; ++k) {
            if (mu_tb[k] > 0.0) {
                st = cf_triplets_add(J, row + 1 + k, row + 1 + k, 2.0 * beta * c[k]);
                if (st == CF_OK) st = cf_triplets_add(J, row + 1 + k, row + 3, 2.0 * c[k] * xa[1 + k]);
            } else {
                st = cf_triplets_add(J, row + 1 + k, row + 1 + k, 1.0);
            }
        }
        if (st == CF_OK && ds_a != 0.0) {
            /* d(-eta) = 2 r_n dr_n - 2 c_k r_k dr_k */
            st = cf_triplets_add(J, row + 3, row, ds_a * 2.0 * rn);
            for (int k = 0; k < 2 && st == CF_OK; ++k)
                if (c[k] != 0.0) st = cf_triplets_add(J, row + 3, row + 1 + k, -ds_a * 2.0 * c[k] * xa[1 + k]);
        }
        if (st == CF_OK && ds_b != 0.0) st = cf_triplets_add(J, row + 3, row + 3, ds_b);
        if (st != CF_OK) return st;
    }
    return CF_OK;
    // END SOLUTION
    // STUB ch10.4: return CF_TODO_S("ch10.4");
    //< ch10:ncp-eval
}
