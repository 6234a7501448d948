/* SPDX-License-Identifier: MIT */
/* Chapter 2, exercise ch02.8: the implicit soft-body system A = M + hB + h^2 K and its dual
   (Delassus) form W = J A^-1 J^T, q = J A^-1 b. Specification: lib/include/cf/cf_ch02.h; text:
   chapters/ch02/README.md. */
#include "cf/cf_ch01.h"
#include "cf/cf_ch02.h"

#include <stdlib.h>
#include <string.h>

cfStatus cf_soft_dual(const cfSoftBody *s, cfVec3 gravity, double h, const cfSoftContact *contacts, int nc,
                      cfSoftDual *d, cfFrictionProblem *fc)
{
    memset(d, 0, sizeof *d);
    memset(fc, 0, sizeof *fc);
    if (nc < 1 || !contacts || !(isfinite(h) && h > 0.0)) return CF_BAD_INPUT;
    for (int a = 0; a < nc; ++a) {
        const cfSoftContact *c = &contacts[a];
        if (!(isfinite(c->mu) && c->mu >= 0.0)) return CF_BAD_INPUT;
        for (int k = 0; k < c->na; ++k)
            if (c->node_a[k] < 0 || c->node_a[k] >= s->n_nodes) return CF_BAD_INPUT;
        for (int k = 0; k < c->nb; ++k)
            if (c->node_b[k] < 0 || c->node_b[k] >= s->n_nodes) return CF_BAD_INPUT;
    }
    //> ch02:soft-dual
    // BEGIN SOLUTION ch02.8
    const int n = 3 * s->n_nodes, m = 3 * nc;
    d->n = n;
    d->nc = nc;
    d->b = malloc((size_t)n * sizeof *d->b);
    d->u_free = malloc((size_t)n * sizeof *d->u_free);
    double *col = malloc((size_t)n * sizeof *col), *x = malloc((size_t)n * sizeof *x);
    double *Wd = malloc((size_t)m * (size_t)m * sizeof *Wd), *Jx = malloc((size_t)m * sizeof *Jx);
    cfStatus st = (d->b && d->u_free && col && x && Wd && Jx) ? CF_OK : CF_NO_MEMORY;

    /* 1-3: the implicit system of chapter 1, the contact Jacobian, A = L L^T and u_free = A^-1 b */
    if (st == CF_OK) st = cf_soft_assemble_implicit(s, gravity, h, s->x, s->v, &d->A, d->b);
    if (st == CF_OK) st = cf_soft_jacobian_csr(s, contacts, nc, &d->J);
    if (st == CF_OK) st = cf_sparse_chol_factor(&d->A, &d->chol);
    if (st == CF_OK) cf_sparse_chol_solve(d->chol, d->b, d->u_free);

    /* 4: column j of W is J A^-1 (row j of J) */
    for (int j = 0; j < m && st == CF_OK; ++j) {
        cf_vec_zero(n, col);
        for (int e = d->J.rowptr[j]; e < d->J.rowptr[j + 1]; ++e) col[d->J.colidx[e]] = d->J.val[e];
        cf_sparse_chol_solve(d->chol, col, x);
        cf_csr_mul_vec(&d->J, x, Jx);
        for (int i = 0; i < m; ++i) Wd[(size_t)i * m + j] = Jx[i];
    }
    /* remove the round-off asymmetry of the column solves */
    double dmax = 0.0;
    for (int i = 0; i < m && st == CF_OK; ++i) {
        for (int j = 0; j < i; ++j) {
            double avg = 0.5 * (Wd[(size_t)i * m + j] + Wd[(size_t)j * m + i]);
            Wd[(size_t)i * m + j] = Wd[(size_t)j * m + i] = avg;
        }
        dmax = fmax(dmax, fabs(Wd[(size_t)i * m + i]));
    }

    /* 5: the problem: blocks that are not negligible, q = J u_free, mu */
    if (st == CF_OK) st = cf_bsr_init(&fc->W, nc, nc, 3, 3);
    for (int a = 0; a < nc && st == CF_OK; ++a)
        for (int c = 0; c < nc && st == CF_OK; ++c) {
            double blk[9];
            bool keep = a == c;
            for (int r = 0; r < 3; ++r)
                for (int k = 0; k < 3; ++k) {
                    blk[3 * r + k] = Wd[(size_t)(3 * a + r) * m + 3 * c + k];
                    if (fabs(blk[3 * r + k]) > 1e-14 * dmax) keep = true;
                }
            if (keep) st = cf_bsr_add_block(&fc->W, a, c, blk);
        }
    if (st == CF_OK) {
        cf_bsr_finalize(&fc->W);
        fc->nc = nc;
        fc->q = malloc((size_t)m * sizeof *fc->q);
        fc->mu = malloc((size_t)nc * sizeof *fc->mu);
        if (!fc->q || !fc->mu) st = CF_NO_MEMORY;
    }
    if (st == CF_OK) {
        cf_csr_mul_vec(&d->J, d->u_free, fc->q);
        for (int a = 0; a < nc; ++a) fc->mu[a] = contacts[a].mu;
    }
    free(col);
    free(x);
    free(Wd);
    free(Jx);
    if (st != CF_OK) {
        cf_soft_dual_free(d);
        cf_fc_free(fc);
    }
    return st;
    // END SOLUTION
    // STUB ch02.8: return CF_TODO_S("ch02.8");
    //< ch02:soft-dual
}

cfStatus cf_soft_dual_velocity(const cfSoftDual *d, const double *lambda, double *u_plus)
{
    if (!cf_vec_finite(3 * d->nc, lambda)) return CF_BAD_INPUT;
    //> ch02:soft-dual-velocity
    // BEGIN SOLUTION ch02.8
    /* u+ = A^-1 (b + J^T lambda) */
    double *rhs = malloc((size_t)d->n * sizeof *rhs);
    if (!rhs) return CF_NO_MEMORY;
    cf_csr_tmul_vec(&d->J, lambda, rhs);
    cf_vec_axpy(d->n, 1.0, d->b, rhs);
    cf_sparse_chol_solve(d->chol, rhs, u_plus);
    free(rhs);
    return CF_OK;
    // END SOLUTION
    // STUB ch02.8: return CF_TODO_S("ch02.8");
    //< ch02:soft-dual-velocity
}
