/* SPDX-License-Identifier: MIT */
/* Chapter 8, exercise ch08.4: partial evaluation, the matrix-free projected Gauss-Seidel on
   W_P = J P J^T with the auxiliary velocity u = P (b + J^T lambda). Specification:
   lib/include/cf/cf_ch08.h; text: chapters/ch08/README.md. */
#include "cf/cf_ch08.h"

#include <stdlib.h>
#include <string.h>

cfStatus cf_dual_pgs_partial(const cfDualSystem *s, const double *P, const cfSplitOptions *o, double *lambda, double *u,
                             cfReport *rep)
{
    double t0 = cf_seconds();
    cfStatus st = cf_dual_split_check(s, P, lambda, o, NULL);
    if (st != CF_OK || !u) return cf_split_refuse(rep, CF_BAD_INPUT);
    //> ch08:partial
    // BEGIN SOLUTION ch08.4
    const int n = s->n, nc = s->nc;
    cfContactBlocks cb;
    st = cf_contact_blocks(&s->J, &cb);
    double *y = malloc((size_t)(n > 0 ? n : 1) * sizeof *y), *Waa = malloc((size_t)(nc > 0 ? 9 * nc : 1) * sizeof *Waa);
    if (st == CF_OK && (!y || !Waa)) st = CF_NO_MEMORY;
    if (st != CF_OK) {
        free(y);
        free(Waa);
        cf_contact_blocks_free(&cb);
        return cf_split_refuse(rep, st);
    }
    /* 1. u = P (b + J^T lambda); the diagonal blocks W_aa = sum_k J_ak P_k J_ak^T (+ cfm) */
    cf_csr_tmul_vec(&s->J, lambda, y);
    cf_vec_axpy(n, 1.0, s->b, y);
    for (int k = 0; k < n / 3; ++k) cf_block_mul(&P[9 * k], &y[3 * k], &u[3 * k]);
    for (int a = 0; a < nc; ++a) {
        double *W = &Waa[9 * a];
        memset(W, 0, 9 * sizeof *W);
        for (int e = cb.start[a]; e < cb.start[a + 1]; ++e) {
            const double *Jb = &cb.val[9 * e], *Pk = &P[9 * cb.block[e]];
            for (int j = 0; j < 3; ++j) {
                double col[3] = {Jb[3 * j], Jb[3 * j + 1], Jb[3 * j + 2]}, PJ[3]; /* row j of J_ak, as a column */
                cf_block_mul(Pk, col, PJ);
                for (int i = 0; i < 3; ++i) W[3 * i + j] += Jb[3 * i] * PJ[0] + Jb[3 * i + 1] * PJ[1] + Jb[3 * i + 2] * PJ[2];
            }
        }
        W[0] += s->cfm;
    }
    double r0 = cf_dual_residual(s, lambda, u, o->friction);
    if (r0 <= o->tol_abs) {
        free(y);
        free(Waa);
        cf_contact_blocks_free(&cb);
        return cf_split_solved_at_start(rep, r0, t0);
    }
    /* 2. sweeps: v = J_a u (+ bias, cfm), the local solve, u += P J_a^T (change of lambda_a) */
    cfStopReason why = CF_STOP_NONE;
    int k = 0;
    double res = r0;
    while (why == CF_STOP_NONE) {
        double dx = 0.0;
        for (int a = 0; a < nc; ++a) {
            double v[3] = {0.0, 0.0, 0.0}, *la = &lambda[3 * a], old[3] = {la[0], la[1], la[2]};
            for (int e = cb.start[a]; e < cb.start[a + 1]; ++e) {
                const double *Jb = &cb.val[9 * e], *uk = &u[3 * cb.block[e]];
                for (int i = 0; i < 3; ++i) v[i] += Jb[3 * i] * uk[0] + Jb[3 * i + 1] * uk[1] + Jb[3 * i + 2] * uk[2];
            }
            v[0] += s->bias[a] + s->cfm * la[0];
            dx = fmax(dx, cf_contact_local_solve(&Waa[9 * a], s->mu[a], o->friction, o->omega, v, la));
            double d[3] = {la[0] - old[0], la[1] - old[1], la[2] - old[2]};
            for (int e = cb.start[a]; e < cb.start[a + 1]; ++e) {
                const double *Jb = &cb.val[9 * e];
                double g[3], du[3]; /* J_ak^T d, then P_k of it */
                for (int i = 0; i < 3; ++i) g[i] = Jb[i] * d[0] + Jb[3 + i] * d[1] + Jb[6 + i] * d[2];
                cf_block_mul(&P[9 * cb.block[e]], g, du);
                for (int i = 0; i < 3; ++i) u[3 * cb.block[e] + i] += du[i];
            }
        }
        ++k;
        res = cf_dual_residual(s, lambda, u, o->friction);
        if (rep) cf_report_push(rep, res);
        why = cf_split_stop(o, k, r0, res, dx);
    }
    st = cf_split_finish(rep, why, k, res);
    free(y);
    free(Waa);
    cf_contact_blocks_free(&cb);
    // END SOLUTION
    // STUB ch08.4: st = CF_TODO_S("ch08.4");
    //< ch08:partial
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
