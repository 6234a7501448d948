/* SPDX-License-Identifier: MIT */
/* Chapter 8, exercises ch08.2 and ch08.3: the Delassus operator of a block-diagonal P (W_M, W_D),
   sparse, and the exact W_A by Algorithm 15, one solve per constraint row, in parallel.
   Specification: lib/include/cf/cf_ch08.h; text: chapters/ch08/README.md. */
#include "cf/cf_ch08.h"

#include <stdlib.h>
#include <string.h>

cfStatus cf_dual_delassus_block(const cfDualSystem *s, const double *P, cfFrictionProblem *fc)
{
    memset(fc, 0, sizeof *fc);
    cfStatus st = cf_dual_check(s, NULL);
    if (st != CF_OK || !P) return CF_BAD_INPUT;
    //> ch08:delassus-block
    // BEGIN SOLUTION ch08.2
    const int nc = s->nc, nb = s->n / 3;
    cfContactBlocks cb;
    st = cf_contact_blocks(&s->J, &cb);
    if (st != CF_OK) return st;
    /* per unknown block k, the contact blocks on it (kstart[k] .. kstart[k + 1] in kref), in contact order */
    int nblk = cb.start[nc];
    int *kstart = calloc((size_t)nb + 1, sizeof *kstart), *kref = malloc((size_t)(nblk > 0 ? nblk : 1) * sizeof *kref);
    int *owner = malloc((size_t)(nblk > 0 ? nblk : 1) * sizeof *owner), *fill = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *fill);
    double *acc = malloc((size_t)(nc > 0 ? nc : 1) * 9 * sizeof *acc), *Pb = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *Pb);
    int *touched = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *touched), *seen = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *seen);
    if (!kstart || !kref || !owner || !fill || !acc || !Pb || !touched || !seen) st = CF_NO_MEMORY;
    if (st == CF_OK) {
        for (int e = 0; e < nblk; ++e) kstart[cb.block[e] + 1]++;
        for (int k = 0; k < nb; ++k) kstart[k + 1] += kstart[k];
        for (int k = 0; k < nb; ++k) fill[k] = kstart[k];
        for (int a = 0; a < nc; ++a)
            for (int e = cb.start[a]; e < cb.start[a + 1]; ++e) {
                owner[e] = a;
                kref[fill[cb.block[e]]++] = e;
            }
        for (int c = 0; c < nc; ++c) seen[c] = -1;
        st = cf_bsr_init(&fc->W, nc, nc, 3, 3);
    }
    /* block row a: W_ac = sum over the blocks k of contact a of (J_ak P_k) J_ck^T, c on k */
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        int nt = 0;
        touched[nt++] = a;
        seen[a] = a;
        memset(&acc[9 * a], 0, 9 * sizeof *acc);
        for (int e = cb.start[a]; e < cb.start[a + 1]; ++e) {
            const double *Jak = &cb.val[9 * e], *Pk = &P[9 * cb.block[e]];
            double Y[9]; /* J_ak P_k */
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) Y[3 * i + j] = Jak[3 * i] * Pk[j] + Jak[3 * i + 1] * Pk[3 + j] + Jak[3 * i + 2] * Pk[6 + j];
            for (int q = kstart[cb.block[e]]; q < kstart[cb.block[e] + 1]; ++q) {
                int f = kref[q], c = owner[f];
                if (seen[c] != a) {
                    seen[c] = a;
                    touched[nt++] = c;
                    memset(&acc[9 * c], 0, 9 * sizeof *acc);
                }
                const double *Jck = &cb.val[9 * f];
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j)
                        acc[9 * c + 3 * i + j] += Y[3 * i] * Jck[3 * j] + Y[3 * i + 1] * Jck[3 * j + 1] + Y[3 * i + 2] * Jck[3 * j + 2];
            }
        }
        acc[9 * a] += s->cfm;
        for (int i = 1; i < nt; ++i) /* ascending columns (insertion sort: rows are short) */
            for (int j = i; j > 0 && touched[j - 1] > touched[j]; --j) {
                int t = touched[j];
                touched[j] = touched[j - 1];
                touched[j - 1] = t;
            }
        for (int i = 0; i < nt && st == CF_OK; ++i) st = cf_bsr_add_block(&fc->W, a, touched[i], &acc[9 * touched[i]]);
    }
    if (st == CF_OK) {
        cf_bsr_finalize(&fc->W);
        fc->nc = nc;
        fc->q = malloc((size_t)(nc > 0 ? 3 * nc : 1) * sizeof *fc->q);
        fc->mu = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *fc->mu);
        if (!fc->q || !fc->mu) st = CF_NO_MEMORY;
    }
    if (st == CF_OK) {
        /* q = J (P b) + (bias, 0, 0) */
        for (int k = 0; k < nb; ++k) cf_block_mul(&P[9 * k], &s->b[3 * k], &Pb[3 * k]);
        cf_csr_mul_vec(&s->J, Pb, fc->q);
        for (int a = 0; a < nc; ++a) {
            fc->q[3 * a] += s->bias[a];
            fc->mu[a] = s->mu[a];
        }
    }
    cf_contact_blocks_free(&cb);
    free(kstart), free(kref), free(owner), free(fill), free(acc), free(Pb), free(touched), free(seen);
    if (st != CF_OK) cf_fc_free(fc);
    return st;
    // END SOLUTION
    // STUB ch08.2: return CF_TODO_S("ch08.2");
    //< ch08:delassus-block
}

cfStatus cf_dual_delassus_factored(const cfLinSolver *S, const cfCsr *J, cfDense *W)
{
    memset(W, 0, sizeof *W);
    if (!S || !J) return CF_BAD_INPUT;
    //> ch08:algorithm-15
    // BEGIN SOLUTION ch08.3
    const int m = J->rows, n = J->cols;
    cfStatus st = cf_dense_init(W, m, m);
    if (st != CF_OK) return st;
    cfStatus failed = CF_OK;
    /* every column k: x = A^-1 (row k of J)^T, column k of W = J x; each thread its own vectors */
#pragma omp parallel if (cf_linsolver_reentrant(S) && (double)m * n >= 2e5)
    {
        double *rhs = malloc((size_t)(n > 0 ? n : 1) * sizeof *rhs), *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
        double *Jx = malloc((size_t)(m > 0 ? m : 1) * sizeof *Jx);
        double *work = malloc((size_t)cf_linsolver_work_size(S) * sizeof *work);
        cfStatus mine = (rhs && x && Jx && work) ? CF_OK : CF_NO_MEMORY;
        if (rhs) cf_vec_zero(n, rhs);
#pragma omp for schedule(dynamic, 4)
        for (int k = 0; k < m; ++k) {
            if (mine != CF_OK) continue;
            for (int e = J->rowptr[k]; e < J->rowptr[k + 1]; ++e) rhs[J->colidx[e]] += J->val[e];
            cf_vec_zero(n, x);
            cfStatus sk = cf_linsolver_solve(S, rhs, x, work, NULL);
            for (int e = J->rowptr[k]; e < J->rowptr[k + 1]; ++e) rhs[J->colidx[e]] = 0.0;
            if (sk != CF_OK) {
                mine = sk;
                continue;
            }
            cf_csr_mul_vec(J, x, Jx);
            for (int i = 0; i < m; ++i) W->a[(size_t)i * m + k] = Jx[i];
        }
        if (mine != CF_OK) {
#pragma omp critical(ch08_algorithm_15)
            if (failed == CF_OK) failed = mine;
        }
        free(rhs), free(x), free(Jx), free(work);
    }
    if (failed != CF_OK) {
        cf_dense_free(W);
        return failed;
    }
    /* the round-off asymmetry of the solves */
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < i; ++j) {
            double avg = 0.5 * (W->a[(size_t)i * m + j] + W->a[(size_t)j * m + i]);
            W->a[(size_t)i * m + j] = W->a[(size_t)j * m + i] = avg;
        }
    return CF_OK;
    // END SOLUTION
    // STUB ch08.3: return CF_TODO_S("ch08.3");
    //< ch08:algorithm-15
}
