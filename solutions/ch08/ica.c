/* SPDX-License-Identifier: MIT */
/* Chapter 8, exercise ch08.5: iterative constraint anticipation (ICA), Otaduy et al. 2009: block
   Jacobi anticipation with B = J D^-1 J^T, an inner projected Gauss-Seidel with friction
   interlaced, an outer block Gauss-Seidel (or Jacobi) sweep on the dynamics, the 5 % rules.
   Specification: lib/include/cf/cf_ch08.h; text: chapters/ch08/README.md. */
#include "cf/cf_ch08.h"

#include <stdlib.h>
#include <string.h>

//> ch08:ica-helpers
// BEGIN SOLUTION ch08.5
/* the normal and friction residuals of the box law at impulses x and velocities v (squared sums) */
static void law_residuals(int nc, const double *x, const double *v, const double *mu, double *rn, double *rf)
{
    double sn = 0.0, sf = 0.0;
    for (int a = 0; a < nc; ++a) {
        const double *xa = &x[3 * a], *va = &v[3 * a];
        double en = xa[0] - fmax(0.0, xa[0] - va[0]);
        sn += en * en;
        double hi = mu[a] * fmax(xa[0], 0.0);
        for (int k = 1; k < 3; ++k) {
            double ek = xa[k] - fmax(-hi, fmin(xa[k] - va[k], hi));
            sf += ek * ek;
        }
    }
    *rn = sqrt(sn);
    *rf = sqrt(sf);
}

/* every contact resolved: the predicted end gap h v_n is within -delta/2 */
static bool resolved(const cfDualSystem *s, const double *v)
{
    for (int a = 0; a < s->nc; ++a)
        if (s->h * v[3 * a] < -0.5 * s->delta) return false;
    return true;
}

/* the change between two iterations is at most rel times the loop's first value */
static bool settled(double now, double before, double first, double rel) { return fabs(now - before) <= rel * first; }
// END SOLUTION
//< ch08:ica-helpers

cfStatus cf_ica_solve(const cfDualSystem *s, const double *vstar, const cfIcaOptions *o, double *dv, double *lambda,
                      cfReport *rep, cfIcaStats *st)
{
    double t0 = cf_seconds();
    cfIcaStats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    if (cf_dual_check(s, NULL) != CF_OK || !o || o->max_outer < 1 || o->max_inner < 1 || o->passes < 1 ||
        !(o->rel_change >= 0.0) || !(o->tol >= 0.0) || o->outer < 0 || o->outer >= CF_ICA_OUTER_COUNT || !vstar || !dv ||
        !lambda || !cf_vec_finite(s->n, vstar) || !cf_vec_finite(s->n, dv) || !cf_vec_finite(3 * s->nc, lambda))
        return cf_split_refuse(rep, CF_BAD_INPUT);
    cfStatus status;
    //> ch08:ica
    // BEGIN SOLUTION ch08.5
    const int n = s->n, nc = s->nc, nb = n / 3;
    if (nc == 0) { /* nothing to anticipate: the unconstrained velocity is the answer */
        cf_vec_zero(n, dv);
        if (rep) rep->seconds = cf_seconds() - t0;
        return cf_split_finish(rep, CF_STOP_ABSOLUTE, 0, 0.0);
    }
    double *Dinv = malloc((size_t)9 * nb * sizeof *Dinv), *cs = malloc((size_t)2 * nc * sizeof *cs);
    double *x = malloc((size_t)3 * nc * sizeof *x), *w = malloc((size_t)3 * nc * sizeof *w), *v = malloc((size_t)3 * nc * sizeof *v);
    double *y = malloc((size_t)n * sizeof *y), *z = malloc((size_t)n * sizeof *z), *r = malloc((size_t)n * sizeof *r);
    cfDualSystem rs = *s; /* the system with the rotated rows */
    memset(&rs.J, 0, sizeof rs.J);
    cfFrictionProblem B = {0};
    cfStatus res = (Dinv && cs && x && w && v && y && z && r) ? CF_OK : CF_NO_MEMORY;
    if (res == CF_OK) res = cf_csr_block_diag_inverse(&s->A, Dinv);
    /* 1. the pyramid aligned with the unconstrained sliding: t1 = c t + s b */
    if (res == CF_OK) {
        cf_csr_mul_vec(&s->J, vstar, w);
        for (int a = 0; a < nc; ++a) {
            double vt = w[3 * a + 1], vb = w[3 * a + 2], len = hypot(vt, vb);
            cs[2 * a] = len > 1e-12 ? vt / len : 1.0;
            cs[2 * a + 1] = len > 1e-12 ? vb / len : 0.0;
        }
        cfTriplets T;
        res = cf_triplets_init(&T, 3 * nc, n);
        for (int a = 0; a < nc && res == CF_OK; ++a) {
            double c = cs[2 * a], sn = cs[2 * a + 1];
            for (int e = s->J.rowptr[3 * a]; e < s->J.rowptr[3 * a + 1] && res == CF_OK; ++e)
                res = cf_triplets_add(&T, 3 * a, s->J.colidx[e], s->J.val[e]);
            for (int e = s->J.rowptr[3 * a + 1]; e < s->J.rowptr[3 * a + 2] && res == CF_OK; ++e) {
                res = cf_triplets_add(&T, 3 * a + 1, s->J.colidx[e], c * s->J.val[e]);
                if (res == CF_OK) res = cf_triplets_add(&T, 3 * a + 2, s->J.colidx[e], -sn * s->J.val[e]);
            }
            for (int e = s->J.rowptr[3 * a + 2]; e < s->J.rowptr[3 * a + 3] && res == CF_OK; ++e) {
                res = cf_triplets_add(&T, 3 * a + 1, s->J.colidx[e], sn * s->J.val[e]);
                if (res == CF_OK) res = cf_triplets_add(&T, 3 * a + 2, s->J.colidx[e], c * s->J.val[e]);
            }
            const double *l = &lambda[3 * a];
            x[3 * a] = l[0];
            x[3 * a + 1] = c * l[1] + sn * l[2];
            x[3 * a + 2] = -sn * l[1] + c * l[2];
        }
        if (res == CF_OK) res = cf_csr_from_triplets(&T, &rs.J);
        cf_triplets_free(&T);
    }
    /* B = Jr D^-1 Jr^T (+ cfm) by ch08.2 */
    if (res == CF_OK) res = cf_dual_delassus_block(&rs, Dinv, &B);
    cfStopReason why = CF_STOP_NONE;
    int i = 0;
    double lcp = 0.0, dyn = 0.0, lcp_prev = 0.0, dyn_prev = 0.0, lcp1 = 0.0, dyn1 = 0.0;
    while (res == CF_OK && why == CF_STOP_NONE) {
        ++i;
        /* 2a. anticipation: z = D^-1 (D - A) dv, w = Jr (v* + z) + bias */
        cf_csr_mul_vec(&s->A, dv, y);
        for (int k = 0; k < nb; ++k) {
            double g[3];
            cf_block_mul(&Dinv[9 * k], &y[3 * k], g); /* D^-1 A dv */
            for (int c = 0; c < 3; ++c) z[3 * k + c] = dv[3 * k + c] - g[c];
        }
        for (int k = 0; k < n; ++k) r[k] = vstar[k] + z[k];
        cf_dual_contact_velocity(&rs, r, NULL, w);
        /* 2b. inner projected Gauss-Seidel, normal and friction interlaced */
        int j = 0;
        double rn = 0.0, rf = 0.0, rn_prev = 0.0, rf_prev = 0.0, rn1 = 0.0, rf1 = 0.0;
        for (;;) {
            ++j;
            for (int a = 0; a < nc; ++a) {
                double va[3] = {w[3 * a], w[3 * a + 1], w[3 * a + 2]};
                const double *Baa = NULL;
                for (int e = B.W.rowptr[a]; e < B.W.rowptr[a + 1]; ++e) {
                    const double *Bb = &B.W.val[9 * e];
                    const double *xc = &x[3 * B.W.colidx[e]];
                    if (B.W.colidx[e] == a) Baa = Bb;
                    for (int c = 0; c < 3; ++c) va[c] += Bb[3 * c] * xc[0] + Bb[3 * c + 1] * xc[1] + Bb[3 * c + 2] * xc[2];
                }
                for (int p = 0; p < o->passes; ++p) cf_contact_local_solve(Baa, s->mu[a], CF_FRICTION_BOX, 1.0, va, &x[3 * a]);
            }
            cf_bsr_mul_vec(&B.W, x, v);
            for (int a = 0; a < 3 * nc; ++a) v[a] += w[a];
            law_residuals(nc, x, v, s->mu, &rn, &rf);
            if (j == 1) rn1 = rn, rf1 = rf;
            if (j >= o->max_inner || (o->tol > 0.0 && rn <= o->tol && rf <= o->tol) ||
                (j >= 2 && o->rel_change > 0.0 && settled(rn, rn_prev, rn1, o->rel_change) &&
                 settled(rf, rf_prev, rf1, o->rel_change) && resolved(s, v)))
                break;
            rn_prev = rn;
            rf_prev = rf;
        }
        st->inner_total += j;
        st->inner_max = j > st->inner_max ? j : st->inner_max;
        /* 2c. the dynamics with the new impulses, r = Jr^T x */
        cf_csr_tmul_vec(&rs.J, x, r);
        if (o->outer == CF_ICA_JACOBI) {
            for (int k = 0; k < nb; ++k) {
                double g[3];
                cf_block_mul(&Dinv[9 * k], &r[3 * k], g);
                for (int c = 0; c < 3; ++c) dv[3 * k + c] = z[3 * k + c] + g[c];
            }
        } else {
            for (int k = 0; k < nb; ++k) {
                double acc[3];
                for (int c = 0; c < 3; ++c) {
                    int row = 3 * k + c;
                    acc[c] = r[row];
                    for (int e = s->A.rowptr[row]; e < s->A.rowptr[row + 1]; ++e)
                        if (s->A.colidx[e] / 3 != k) acc[c] -= s->A.val[e] * dv[s->A.colidx[e]];
                }
                cf_block_mul(&Dinv[9 * k], acc, &dv[3 * k]);
            }
        }
        /* 2d. residuals at the new dv */
        for (int k = 0; k < n; ++k) y[k] = vstar[k] + dv[k];
        cf_dual_contact_velocity(&rs, y, x, v);
        lcp = 0.0;
        for (int a = 0; a < nc; ++a) lcp += cf_contact_residual2(&x[3 * a], &v[3 * a], s->mu[a], CF_FRICTION_BOX);
        lcp = sqrt(lcp);
        cf_csr_mul_vec(&s->A, dv, y);
        for (int k = 0; k < n; ++k) y[k] -= r[k];
        dyn = cf_vec_norm(n, y);
        if (rep) cf_report_push_inner(rep, lcp, j);
        if (i == 1) lcp1 = lcp, dyn1 = dyn;
        if (!isfinite(lcp) || !isfinite(dyn) || fmax(lcp, dyn) > 1e8 * fmax(fmax(lcp1, dyn1), 1.0)) why = CF_STOP_DIVERGENCE;
        else if (o->tol > 0.0 && lcp <= o->tol && dyn <= o->tol) why = CF_STOP_ABSOLUTE;
        else if (i >= 2 && o->rel_change > 0.0 && settled(lcp, lcp_prev, lcp1, o->rel_change) &&
                 settled(dyn, dyn_prev, dyn1, o->rel_change) && resolved(s, v))
            why = CF_STOP_RELATIVE;
        else if (i >= o->max_outer) why = CF_STOP_MAX_ITER;
        lcp_prev = lcp;
        dyn_prev = dyn;
    }
    /* 3. impulses back in the contact frame */
    if (res == CF_OK)
        for (int a = 0; a < nc; ++a) {
            double c = cs[2 * a], sn = cs[2 * a + 1];
            lambda[3 * a] = x[3 * a];
            lambda[3 * a + 1] = c * x[3 * a + 1] - sn * x[3 * a + 2];
            lambda[3 * a + 2] = sn * x[3 * a + 1] + c * x[3 * a + 2];
        }
    st->outer = i;
    st->lcp_residual = lcp;
    st->dyn_residual = dyn;
    status = res == CF_OK ? cf_split_finish(rep, why, i, lcp) : cf_split_refuse(rep, res);
    free(Dinv), free(cs), free(x), free(w), free(v), free(y), free(z), free(r);
    cf_csr_free(&rs.J);
    cf_fc_free(&B);
    // END SOLUTION
    // STUB ch08.5: status = CF_TODO_S("ch08.5");
    //< ch08:ica
    if (rep) {
        rep->seconds = cf_seconds() - t0;
        rep->measure = CF_MEASURE_NATURAL_MAP;
    }
    return status;
}
