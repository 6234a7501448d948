/* SPDX-License-Identifier: MIT */
/* Chapter 5, provided (not exercises; copied unchanged into exercises/ch05/ and not handed in):
   options, stopping rule, input checks, orderings and the rigid solver's work space. */
#include "cf/cf_ch05.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cfSplitOptions cf_split_options_default(void)
{
    cfSplitOptions o;
    memset(&o, 0, sizeof o);
    o.max_iter = 1000;
    o.tol_abs = 1e-10;
    o.tol_rel = 0.0;
    o.tol_stag = 0.0;
    o.div_factor = 1e8;
    o.omega = 1.0;
    o.ordering = CF_ORDER_SEQUENTIAL;
    o.seed = 1;
    o.inner = 1;
    o.inner_sm = 1;
    o.friction = CF_FRICTION_CONE;
    return o;
}

cfStopReason cf_split_stop(const cfSplitOptions *o, int k, double r0, double r, double dx)
{
    if (!isfinite(r) || r > o->div_factor * fmax(r0, 1.0)) return CF_STOP_DIVERGENCE;
    if (r <= o->tol_abs) return CF_STOP_ABSOLUTE;
    if (o->tol_rel > 0.0 && r <= o->tol_rel * r0) return CF_STOP_RELATIVE;
    if (o->tol_stag > 0.0 && dx <= o->tol_stag) return CF_STOP_STAGNATION;
    if (k >= o->max_iter) return CF_STOP_MAX_ITER;
    return CF_STOP_NONE;
}

cfStatus cf_split_finish(cfReport *rep, cfStopReason reason, int k, double r)
{
    cfStatus st = CF_MAX_ITER;
    switch (reason) {
    case CF_STOP_ABSOLUTE:
    case CF_STOP_RELATIVE: st = CF_OK; break;
    case CF_STOP_STAGNATION: st = CF_STAGNATED; break;
    case CF_STOP_DIVERGENCE: st = CF_DIVERGED; break;
    case CF_STOP_MAX_ITER:
    case CF_STOP_NONE:
    case CF_STOP_REASON_COUNT: st = CF_MAX_ITER; break;
    }
    if (rep) {
        rep->reason = reason == CF_STOP_NONE ? CF_STOP_MAX_ITER : reason;
        rep->iterations = k;
        rep->residual = r;
        rep->status = st;
    }
    return st;
}

cfStatus cf_split_refuse(cfReport *rep, cfStatus st)
{
    if (rep) rep->status = st;
    return st;
}

cfStatus cf_split_solved_at_start(cfReport *rep, double r0, double t0)
{
    cfStatus st = cf_split_finish(rep, CF_STOP_ABSOLUTE, 0, r0);
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}

static cfStatus check_options(const cfSplitOptions *o, cfError *err)
{
    if (!o) return cf_error_set(err, CF_BAD_INPUT, "options: NULL");
    if (o->max_iter < 0) return cf_error_set(err, CF_BAD_INPUT, "max_iter: must be >= 0 (got %d)", o->max_iter);
    if (!(o->omega > 0.0 && o->omega < 2.0))
        return cf_error_set(err, CF_BAD_INPUT, "omega: must be in (0, 2) (got %g)", o->omega);
    if (!(o->tol_abs >= 0.0 && o->tol_rel >= 0.0 && o->tol_stag >= 0.0 && o->div_factor > 0.0))
        return cf_error_set(err, CF_BAD_INPUT, "tolerances: must be >= 0 and finite");
    if (o->inner < 1 || o->inner_sm < 0)
        return cf_error_set(err, CF_BAD_INPUT, "inner: must be >= 1 (got %d, inner_sm %d)", o->inner, o->inner_sm);
    if (o->ordering < CF_ORDER_SEQUENTIAL || o->ordering > CF_ORDER_RANDOM)
        return cf_error_set(err, CF_BAD_INPUT, "ordering: unknown value %d", (int)o->ordering);
    return CF_OK;
}

static cfStatus check_csr(const cfCsr *A, int n, cfError *err)
{
    if (n < 0) return cf_error_set(err, CF_BAD_INPUT, "n: must be >= 0 (got %d)", n);
    if (A->rows != n || A->cols != n)
        return cf_error_set(err, CF_BAD_INPUT, "A: must be %d x %d (got %d x %d)", n, n, A->rows, A->cols);
    if (n > 0 && !cf_vec_finite(A->nnz, A->val)) return cf_error_set(err, CF_BAD_INPUT, "A: non-finite entry");
    for (int i = 0; i < n; ++i) {
        double d = cf_csr_get(A, i, i);
        if (!(d > 0.0))
            return cf_error_set(err, CF_BAD_INPUT, "A[%d][%d] = %g: a splitting method needs a positive diagonal", i,
                                i, d);
    }
    return CF_OK;
}

cfStatus cf_lcp_split_check(const cfLcp *p, const double *x, const cfSplitOptions *o, cfError *err)
{
    if (!p || !x) return cf_error_set(err, CF_BAD_INPUT, "problem or x: NULL");
    cfStatus st = check_options(o, err);
    if (st == CF_OK) st = check_csr(&p->A, p->n, err);
    if (st == CF_OK && !cf_vec_finite(p->n, p->b)) st = cf_error_set(err, CF_BAD_INPUT, "b: non-finite entry");
    if (st == CF_OK && !cf_vec_finite(p->n, x)) st = cf_error_set(err, CF_BAD_INPUT, "x: non-finite initial guess");
    return st;
}

cfStatus cf_blcp_split_check(const cfBlcp *p, const double *x, const cfSplitOptions *o, cfError *err)
{
    if (!p || !x) return cf_error_set(err, CF_BAD_INPUT, "problem or x: NULL");
    cfStatus st = check_options(o, err);
    if (st == CF_OK) st = check_csr(&p->A, p->n, err);
    if (st == CF_OK && !cf_vec_finite(p->n, p->b)) st = cf_error_set(err, CF_BAD_INPUT, "b: non-finite entry");
    if (st == CF_OK && !cf_vec_finite(p->n, x)) st = cf_error_set(err, CF_BAD_INPUT, "x: non-finite initial guess");
    for (int i = 0; i < p->n && st == CF_OK; ++i) {
        int f = p->findex ? p->findex[i] : -1;
        if (f >= p->n || f == i) st = cf_error_set(err, CF_BAD_INPUT, "findex[%d] = %d: out of range", i, f);
        else if (f >= 0 && !(p->mu && isfinite(p->mu[i]) && p->mu[i] >= 0.0))
            st = cf_error_set(err, CF_BAD_INPUT, "mu[%d]: must be finite and >= 0", i);
        else if (f < 0 && (isnan(p->lo[i]) || isnan(p->hi[i]) || p->lo[i] > p->hi[i]))
            st = cf_error_set(err, CF_BAD_INPUT, "bounds[%d]: need lo <= hi (got %g, %g)", i, p->lo[i], p->hi[i]);
    }
    return st;
}

cfStatus cf_fc_split_check(const cfFrictionProblem *p, const double *r, const cfSplitOptions *o, cfError *err)
{
    if (!p || !r) return cf_error_set(err, CF_BAD_INPUT, "problem or r: NULL");
    cfStatus st = check_options(o, err);
    if (st != CF_OK) return st;
    if (p->nc < 0) return cf_error_set(err, CF_BAD_INPUT, "nc: must be >= 0");
    if (p->nc == 0) return CF_OK;
    if (p->W.br != 3 || p->W.bc != 3 || p->W.brows != p->nc || p->W.bcols != p->nc)
        return cf_error_set(err, CF_BAD_INPUT, "W: must be %d x %d blocks of 3x3", p->nc, p->nc);
    if (!cf_vec_finite(9 * p->W.nnzb, p->W.val) || !cf_vec_finite(3 * p->nc, p->q) || !cf_vec_finite(3 * p->nc, r))
        return cf_error_set(err, CF_BAD_INPUT, "W, q or r: non-finite entry");
    for (int a = 0; a < p->nc; ++a) {
        if (!(isfinite(p->mu[a]) && p->mu[a] >= 0.0))
            return cf_error_set(err, CF_BAD_INPUT, "mu[%d]: must be finite and >= 0", a);
        int e = -1;
        for (int k = p->W.rowptr[a]; k < p->W.rowptr[a + 1]; ++k)
            if (p->W.colidx[k] == a) e = k;
        if (e < 0) return cf_error_set(err, CF_BAD_INPUT, "W: diagonal block %d not stored", a);
        const double *B = &p->W.val[9 * e];
        if (!(B[0] > 0.0 && B[4] > 0.0 && B[8] > 0.0))
            return cf_error_set(err, CF_BAD_INPUT, "W[%d][%d]: diagonal block needs positive diagonal", a, a);
    }
    return CF_OK;
}

void cf_ordering_permutation(cfOrdering o, int n, int sweep, cfRng *rng, int *perm)
{
    bool backward = o == CF_ORDER_SYMMETRIC && (sweep % 2) == 1;
    for (int i = 0; i < n; ++i) perm[i] = backward ? n - 1 - i : i;
    if (o == CF_ORDER_RANDOM && rng)
        for (int i = n - 1; i > 0; --i) {
            int j = (int)cf_rng_below(rng, (uint32_t)(i + 1));
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
}

void cf_disk_project(double lt[2], double radius)
{
    double m2 = lt[0] * lt[0] + lt[1] * lt[1];
    if (m2 > radius * radius) {
        double m = sqrt(m2);
        double s = m > 0.0 ? radius / m : 0.0;
        lt[0] *= s;
        lt[1] *= s;
    }
}

cfRigidPgsOptions cf_rigid_pgs_options_default(void)
{
    cfRigidPgsOptions o;
    memset(&o, 0, sizeof o);
    o.h = 1.0 / 60.0;
    o.max_iter = 20;
    o.tol = 0.0;
    o.erp = 0.2;
    o.cfm = 0.0;
    o.omega = 1.0;
    o.warm_start = true;
    o.friction = CF_FRICTION_CONE;
    o.ordering = CF_ORDER_SEQUENTIAL;
    o.seed = 1;
    return o;
}

cfRigidPgsOptions cf_rigid_pgs_options_of(const cfContactProblem *p, const cfSolverParams *par)
{
    cfRigidPgsOptions o = cf_rigid_pgs_options_default();
    o.h = p->h;
    o.erp = p->erp;
    o.cfm = p->cfm;
    o.max_iter = par->max_iter;
    o.tol = par->tol;
    o.omega = par->omega;
    o.warm_start = par->warm_start;
    o.friction = par->friction;
    o.ordering = par->ordering;
    o.seed = par->seed;
    return o;
}

void cf_rigid_pgs_free(cfRigidPgs *ws)
{
    if (!ws) return;
    free(ws->rows);
    free(ws->vel);
    free(ws->perm);
    memset(ws, 0, sizeof *ws);
}
