/* SPDX-License-Identifier: MIT */
/* Chapter 8, provided (not exercises; copied unchanged into exercises/ch08/ and not handed in):
   contact blocks, input checks, option defaults, and the dual-form solver that runs the chapter's
   methods by preconditioner (the registry's "dual" row). */
#include "cf/cf_ch08.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cf_contact_blocks_free(cfContactBlocks *cb)
{
    free(cb->start);
    free(cb->block);
    free(cb->val);
    memset(cb, 0, sizeof *cb);
}

cfStatus cf_contact_blocks(const cfCsr *J, cfContactBlocks *cb)
{
    memset(cb, 0, sizeof *cb);
    if (J->rows % 3 != 0 || J->cols % 3 != 0) return CF_BAD_INPUT;
    int nc = J->rows / 3, nb = J->cols / 3, cap = J->nnz > 0 ? J->nnz : 1;
    cb->nc = nc;
    cb->start = calloc((size_t)nc + 1, sizeof *cb->start);
    cb->block = malloc((size_t)cap * sizeof *cb->block);
    cb->val = calloc((size_t)cap * 9, sizeof *cb->val);
    int *slot = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *slot);
    if (!cb->start || !cb->block || !cb->val || !slot) {
        free(slot);
        cf_contact_blocks_free(cb);
        return CF_NO_MEMORY;
    }
    for (int k = 0; k < nb; ++k) slot[k] = -1;
    int nblk = 0;
    for (int a = 0; a < nc; ++a) {
        cb->start[a] = nblk;
        /* the blocks of this contact, ascending: collect, sort, then sum the entries in */
        for (int r = 0; r < 3; ++r)
            for (int e = J->rowptr[3 * a + r]; e < J->rowptr[3 * a + r + 1]; ++e) {
                int k = J->colidx[e] / 3;
                if (slot[k] < cb->start[a]) {
                    slot[k] = nblk;
                    cb->block[nblk++] = k;
                }
            }
        for (int i = cb->start[a] + 1; i < nblk; ++i)
            for (int j = i; j > cb->start[a] && cb->block[j - 1] > cb->block[j]; --j) {
                int t = cb->block[j];
                cb->block[j] = cb->block[j - 1];
                cb->block[j - 1] = t;
            }
        for (int i = cb->start[a]; i < nblk; ++i) slot[cb->block[i]] = i;
        for (int r = 0; r < 3; ++r)
            for (int e = J->rowptr[3 * a + r]; e < J->rowptr[3 * a + r + 1]; ++e)
                cb->val[9 * slot[J->colidx[e] / 3] + 3 * r + J->colidx[e] % 3] += J->val[e];
    }
    cb->start[nc] = nblk;
    free(slot);
    return CF_OK;
}

void cf_block_mul(const double *Pk, const double *x, double *y)
{
    for (int i = 0; i < 3; ++i) y[i] = Pk[3 * i] * x[0] + Pk[3 * i + 1] * x[1] + Pk[3 * i + 2] * x[2];
}

cfStatus cf_dual_split_check(const cfDualSystem *s, const double *P, const double *lambda, const cfSplitOptions *o,
                             cfError *err)
{
    cfStatus st = cf_dual_check(s, err);
    if (st != CF_OK) return st;
    if (!P || !cf_vec_finite(3 * s->n, P)) return cf_error_set(err, CF_BAD_INPUT, "P: 9 finite values per block required");
    if (!lambda || !cf_vec_finite(3 * s->nc, lambda))
        return cf_error_set(err, CF_BAD_INPUT, "lambda: 3 finite impulses per contact required");
    if (o && (o->max_iter < 0 || !(o->omega > 0.0 && o->omega < 2.0) || !(o->tol_abs >= 0.0) || !(o->tol_rel >= 0.0) ||
              !(o->tol_stag >= 0.0)))
        return cf_error_set(err, CF_BAD_INPUT, "options: max_iter >= 0, omega in (0, 2), tolerances >= 0");
    return CF_OK;
}

cfIcaOptions cf_ica_options_default(void)
{
    cfIcaOptions o;
    memset(&o, 0, sizeof o);
    o.max_outer = 100;
    o.max_inner = 50;
    o.passes = 3;
    o.rel_change = 0.05;
    o.tol = 0.0;
    o.outer = CF_ICA_GAUSS_SEIDEL;
    return o;
}

cfCmrOptions cf_cmr_options_default(void)
{
    cfCmrOptions o;
    o.max_rounds = 5;
    o.max_halvings = 2;
    return o;
}

/* ---- the dual-form solver of the registry ---------------------------------------------------- */

static cfSplitOptions split_options(const cfDualOptions *o)
{
    cfSplitOptions so = cf_split_options_default();
    so.max_iter = o->max_iter;
    so.tol_abs = o->tol;
    so.omega = o->omega;
    so.friction = o->friction;
    return so;
}

static cfLinSolverKind solver_kind(cfPreconditioner p)
{
    return p == CF_PRECOND_PCG_JACOBI ? CF_LINSOLVE_PCG_JACOBI : p == CF_PRECOND_PCG_IC ? CF_LINSOLVE_PCG_IC0 : CF_LINSOLVE_CHOLESKY;
}

/* x = A^-1 rhs with S, PCG starting from the guess in x; counts PCG iterations */
static cfStatus inner_solve(const cfLinSolver *S, const double *rhs, double *x, cfDualStats *st)
{
    double *work = malloc((size_t)cf_linsolver_work_size(S) * sizeof *work);
    if (!work) return CF_NO_MEMORY;
    int it = 0;
    cfStatus r = cf_linsolver_solve(S, rhs, x, work, &it);
    st->pcg_iterations += it;
    free(work);
    return r;
}

/* CA: W_A by Algorithm 15 (ch08.3), q = J A^-1 b + bias, then PGS; frictionless: the normal rows only */
static cfStatus solve_ca(const cfDualSystem *s, const cfDualOptions *o, double *lambda, double *u, cfReport *rep,
                         cfDualStats *st)
{
    const int n = s->n, nc = s->nc;
    bool frictionless = true;
    for (int a = 0; a < nc; ++a) frictionless = frictionless && s->mu[a] == 0.0;
    cfLinSolver *S = NULL;
    cfStatus r = cf_linsolver_setup(&s->A, solver_kind(o->preconditioner), 1e-10, &S);
    double *vstar = calloc((size_t)(n > 0 ? n : 1), sizeof *vstar), *rhs = malloc((size_t)(n > 0 ? n : 1) * sizeof *rhs);
    double *q = malloc((size_t)(nc > 0 ? 3 * nc : 1) * sizeof *q);
    if (r == CF_OK && (!vstar || !rhs || !q)) r = CF_NO_MEMORY;
    if (r == CF_OK && s->vfree) cf_vec_copy(n, s->vfree, vstar); /* exact for Cholesky; PCG's start */
    if (r == CF_OK) r = inner_solve(S, s->b, vstar, st);
    if (r == CF_OK) cf_dual_contact_velocity(s, vstar, NULL, q);
    cfCsr Jn = {0};
    cfDense W = {0};
    if (r == CF_OK && frictionless) { /* the rows 3a of J */
        cfTriplets T;
        r = cf_triplets_init(&T, nc, n);
        for (int a = 0; a < nc && r == CF_OK; ++a)
            for (int e = s->J.rowptr[3 * a]; e < s->J.rowptr[3 * a + 1] && r == CF_OK; ++e)
                r = cf_triplets_add(&T, a, s->J.colidx[e], s->J.val[e]);
        if (r == CF_OK) r = cf_csr_from_triplets(&T, &Jn);
        cf_triplets_free(&T);
    }
    if (r == CF_OK) r = cf_dual_delassus_factored(S, frictionless ? &Jn : &s->J, &W);
    cfSplitOptions so = split_options(o);
    if (r == CF_OK && frictionless) {
        cfLcp lcp = {0};
        double *qn = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *qn), *x = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *x);
        if (!qn || !x) r = CF_NO_MEMORY;
        for (int a = 0; r == CF_OK && a < nc; ++a) {
            qn[a] = q[3 * a];
            x[a] = lambda[3 * a];
            W.a[(size_t)a * nc + a] += s->cfm;
        }
        if (r == CF_OK) r = cf_lcp_from_dense(&lcp, &W, qn);
        if (r == CF_OK) {
            r = cf_lcp_pgs(&lcp, &so, x, rep);
            for (int a = 0; a < nc; ++a) {
                lambda[3 * a] = x[a];
                lambda[3 * a + 1] = lambda[3 * a + 2] = 0.0;
            }
        }
        cf_lcp_free(&lcp);
        free(qn);
        free(x);
    } else if (r == CF_OK) {
        cfFrictionProblem fc = {0};
        r = cf_bsr_init(&fc.W, nc, nc, 3, 3);
        for (int a = 0; a < nc && r == CF_OK; ++a)
            for (int c = 0; c < nc && r == CF_OK; ++c) {
                double blk[9];
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j) blk[3 * i + j] = W.a[(size_t)(3 * a + i) * 3 * nc + 3 * c + j];
                if (a == c) blk[0] += s->cfm;
                r = cf_bsr_add_block(&fc.W, a, c, blk);
            }
        if (r == CF_OK) {
            cf_bsr_finalize(&fc.W);
            fc.nc = nc;
            fc.q = q;
            fc.mu = s->mu;
            r = cf_fc_bgs(&fc, &so, lambda, rep);
            fc.q = NULL;
            fc.mu = NULL;
        }
        cf_fc_free(&fc);
    }
    /* a used-up budget still gives usable impulses: u = A^-1 (b + J^T lambda) */
    if (r == CF_OK || r == CF_MAX_ITER || r == CF_STAGNATED) {
        cfStatus sr = r;
        cf_csr_tmul_vec(&s->J, lambda, rhs);
        cf_vec_axpy(n, 1.0, s->b, rhs);
        cf_vec_copy(n, vstar, u);
        cfStatus su = inner_solve(S, rhs, u, st);
        r = su == CF_OK ? sr : su;
    }
    cf_dense_free(&W);
    cf_csr_free(&Jn);
    cf_linsolver_free(S);
    free(vstar);
    free(rhs);
    free(q);
    return r;
}

cfStatus cf_dual_solve(const cfDualSystem *s, const cfDualOptions *o, double *lambda, double *u, cfReport *rep,
                       cfDualStats *st)
{
    cfDualStats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    cfStatus r = cf_dual_check(s, NULL);
    if (r != CF_OK || !o || !lambda || !u || !cf_vec_finite(3 * s->nc, lambda)) return CF_BAD_INPUT;
    switch (o->preconditioner) {
    case CF_PRECOND_LUMPED: {
        double *P = malloc((size_t)(s->n > 0 ? 3 * s->n : 1) * sizeof *P);
        if (!P) return CF_NO_MEMORY;
        r = cf_csr_block_diag_inverse(&s->A, P);
        cfSplitOptions so = split_options(o);
        if (r == CF_OK) r = cf_dual_pgs_partial(s, P, &so, lambda, u, rep);
        free(P);
        return r;
    }
    case CF_PRECOND_EXACT:
    case CF_PRECOND_PCG_JACOBI:
    case CF_PRECOND_PCG_IC: return solve_ca(s, o, lambda, u, rep, st);
    case CF_PRECOND_BLOCK_DIAGONAL: {
        cfLinSolver *S = NULL;
        double *vstar = calloc((size_t)(s->n > 0 ? s->n : 1), sizeof *vstar);
        double *dv = calloc((size_t)(s->n > 0 ? s->n : 1), sizeof *dv);
        r = vstar && dv ? CF_OK : CF_NO_MEMORY;
        if (r == CF_OK && s->vfree) cf_vec_copy(s->n, s->vfree, vstar);
        else if (r == CF_OK) r = cf_linsolver_setup(&s->A, CF_LINSOLVE_PCG_IC0, 1e-10, &S);
        if (r == CF_OK && !s->vfree) r = inner_solve(S, s->b, vstar, st);
        cfIcaOptions io = o->ica;
        io.max_outer = o->max_iter > 0 ? o->max_iter : 1;
        io.tol = o->tol;
        if (r == CF_OK) r = cf_ica_solve(s, vstar, &io, dv, lambda, rep, &st->ica);
        if (r == CF_OK || r == CF_MAX_ITER)
            for (int i = 0; i < s->n; ++i) u[i] = vstar[i] + dv[i];
        cf_linsolver_free(S);
        free(vstar);
        free(dv);
        return r;
    }
    case CF_PRECONDITIONER_COUNT: break;
    }
    return CF_BAD_INPUT;
}
