/* SPDX-License-Identifier: MIT */
/* Chapter 2, exercise ch02.6: three friction models built from one frictional contact problem:
   the polyhedral-cone LCP, the boxed LCP of the friction pyramid, and the cone complementarity
   problem. Specification: lib/include/cf/cf_ch02.h; text: chapters/ch02/README.md. */
#include "cf/cf_ch02.h"

#include <stdlib.h>
#include <string.h>

/* a problem of nc x nc blocks of 3x3 with q and mu */
static bool fc_shape_ok(const cfFrictionProblem *fc)
{
    return fc && fc->nc >= 1 && fc->W.br == 3 && fc->W.bc == 3 && fc->W.brows == fc->nc &&
           fc->W.bcols == fc->nc && fc->q && fc->mu;
}

cfStatus cf_friction_polyhedral_lcp(const cfFrictionProblem *fc, int k, cfLcp *lcp)
{
    memset(lcp, 0, sizeof *lcp);
    if (!fc_shape_ok(fc) || k < 3 || k > 64) return CF_BAD_INPUT;
    //> ch02:polyhedral-lcp
    // BEGIN SOLUTION ch02.6
    const int p = fc->nc, n = p * (k + 2);
    const int off_d = p, off_beta = p + p * k; /* first direction row, first slack row */
    /* D: row 0 picks the normal, row 1 + i the direction d_i = cos(theta_i) t + sin(theta_i) b */
    double D[65][3];
    D[0][0] = 1.0, D[0][1] = D[0][2] = 0.0;
    for (int i = 0; i < k; ++i) {
        double th = 2.0 * CF_PI * i / k;
        D[1 + i][0] = 0.0, D[1 + i][1] = cos(th), D[1 + i][2] = sin(th);
    }
    cfTriplets T;
    cfStatus st = cf_triplets_init(&T, n, n);
    /* G M^-1 G^T: block (a, c) of W seen through D, i.e. D W_ac D^T; component r of contact a
       (0 = normal, 1 + i = direction i) is global row a or off_d + a k + i */
    for (int a = 0; a < p && st == CF_OK; ++a)
        for (int e = fc->W.rowptr[a]; e < fc->W.rowptr[a + 1] && st == CF_OK; ++e) {
            int c = fc->W.colidx[e];
            const double *w = &fc->W.val[9 * e];
            double DW[65][3]; /* D W_ac */
            for (int r = 0; r <= k; ++r)
                for (int j = 0; j < 3; ++j) DW[r][j] = D[r][0] * w[j] + D[r][1] * w[3 + j] + D[r][2] * w[6 + j];
            for (int r = 0; r <= k && st == CF_OK; ++r)
                for (int s = 0; s <= k && st == CF_OK; ++s) {
                    int row = r == 0 ? a : off_d + a * k + r - 1, col = s == 0 ? c : off_d + c * k + s - 1;
                    double v = DW[r][0] * D[s][0] + DW[r][1] * D[s][1] + DW[r][2] * D[s][2];
                    st = cf_triplets_add(&T, row, col, v);
                }
        }
    /* the coupling C: +E (slack in the direction rows), mu-bar and -E^T (the cone row) */
    for (int a = 0; a < p && st == CF_OK; ++a) {
        st = cf_triplets_add(&T, off_beta + a, a, fc->mu[a]);
        for (int i = 0; i < k && st == CF_OK; ++i) {
            st = cf_triplets_add(&T, off_d + a * k + i, off_beta + a, 1.0);
            if (st == CF_OK) st = cf_triplets_add(&T, off_beta + a, off_d + a * k + i, -1.0);
        }
    }
    if (st == CF_OK) st = cf_csr_from_triplets(&T, &lcp->A);
    cf_triplets_free(&T);

    /* b = (q_n, q_d, 0) */
    lcp->n = n;
    lcp->b = calloc((size_t)n, sizeof *lcp->b);
    if (st == CF_OK && !lcp->b) st = CF_NO_MEMORY;
    for (int a = 0; a < p && st == CF_OK; ++a) {
        lcp->b[a] = fc->q[3 * a];
        for (int i = 0; i < k; ++i)
            lcp->b[off_d + a * k + i] = D[1 + i][1] * fc->q[3 * a + 1] + D[1 + i][2] * fc->q[3 * a + 2];
    }
    if (st != CF_OK) { /* what cf_lcp_free() does */
        cf_csr_free(&lcp->A);
        free(lcp->b);
        memset(lcp, 0, sizeof *lcp);
    }
    return st;
    // END SOLUTION
    // STUB ch02.6: return CF_TODO_S("ch02.6");
    //< ch02:polyhedral-lcp
}

cfStatus cf_friction_boxed_lcp(const cfFrictionProblem *fc, cfBlcp *blcp)
{
    memset(blcp, 0, sizeof *blcp);
    if (!fc_shape_ok(fc)) return CF_BAD_INPUT;
    //> ch02:boxed-lcp
    // BEGIN SOLUTION ch02.6
    const int n = 3 * fc->nc;
    /* A = W entry by entry */
    cfTriplets T;
    cfCsr A = {0};
    cfStatus st = cf_triplets_init(&T, n, n);
    for (int a = 0; a < fc->nc && st == CF_OK; ++a)
        for (int e = fc->W.rowptr[a]; e < fc->W.rowptr[a + 1] && st == CF_OK; ++e)
            st = cf_triplets_add_block3(&T, a, fc->W.colidx[e], &fc->W.val[9 * e]);
    if (st == CF_OK) st = cf_csr_from_triplets(&T, &A);
    cf_triplets_free(&T);
    if (st == CF_OK) st = cf_blcp_init(blcp, &A);
    cf_csr_free(&A);
    if (st != CF_OK) return st;

    /* b = q; normal rows [0, inf); tangent rows bounded by +-mu lambda_n through findex */
    for (int a = 0; a < fc->nc; ++a) {
        for (int r = 0; r < 3; ++r) blcp->b[3 * a + r] = fc->q[3 * a + r];
        blcp->lo[3 * a] = 0.0;
        blcp->hi[3 * a] = INFINITY;
        blcp->findex[3 * a] = -1;
        for (int r = 1; r < 3; ++r) {
            blcp->lo[3 * a + r] = -INFINITY;
            blcp->hi[3 * a + r] = INFINITY;
            blcp->findex[3 * a + r] = 3 * a;
            blcp->mu[3 * a + r] = fc->mu[a];
        }
    }
    return CF_OK;
    // END SOLUTION
    // STUB ch02.6: return CF_TODO_S("ch02.6");
    //< ch02:boxed-lcp
}

double cf_ccp_residual(const cfFrictionProblem *fc, const double *r)
{
    if (!fc_shape_ok(fc) || !cf_vec_finite(3 * fc->nc, r)) return INFINITY;
    //> ch02:ccp-residual
    // BEGIN SOLUTION ch02.6
    double *u = malloc((size_t)(3 * fc->nc) * sizeof *u);
    if (!u) return INFINITY;
    cf_fc_velocity(fc, r, u);
    double sum = 0.0;
    for (int a = 0; a < fc->nc; ++a) {
        /* natural map without De Saxce's term: e = r - P_K(r - u) */
        double z[3], pz[3];
        for (int i = 0; i < 3; ++i) z[i] = r[3 * a + i] - u[3 * a + i];
        cf_cone_project(z, fc->mu[a], pz);
        for (int i = 0; i < 3; ++i) sum += (r[3 * a + i] - pz[i]) * (r[3 * a + i] - pz[i]);
    }
    bool finite = cf_vec_finite(3 * fc->nc, u);
    free(u);
    return finite ? sqrt(sum) : INFINITY;
    // END SOLUTION
    // STUB ch02.6: return CF_TODO_F("ch02.6");
    //< ch02:ccp-residual
}
