/* SPDX-License-Identifier: MIT */
/* The parallel PROX-Jacobi (reference only, never handed out): the sweep of ch07.3 with its
   contacts split among OpenMP threads (OMP_NUM_THREADS), and w = G^T lambda gathered column by
   column from G^T in the serial sum's order, so that every thread count gives the serial result
   bit for bit. Registered as the solver "prox-jacobi-omp" (a weak reference in sim/solvers.c). */
#include "cf_prox_omp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* w_j = sum over the rows r of column j of G, r ascending, of lambda_r G_rj: the terms of
   cf_prox_w()'s row-order scatter arrive at w_j in exactly this order, so the sums are equal */
static void w_gather(const cfProxProblem *p, const double *lambda, double *w)
{
    const cfCsr *T = &p->Gt;
#pragma omp parallel for schedule(static)
    for (int j = 0; j < p->nv; ++j) {
        double s = 0.0;
        for (int e = T->rowptr[j]; e < T->rowptr[j + 1]; ++e) s += lambda[T->colidx[e]] * T->val[e];
        w[j] = s;
    }
}

double cf_prox_jacobi_sweep_omp(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                                const double *lambda, double *trial, double *w, double *v)
{
    (void)v;
    int d = p->dim;
    const cfCsr *J = &p->J;
    w_gather(p, lambda, w);
    double e = 0.0;
    bool nan = false;
#pragma omp parallel for schedule(static) reduction(max : e) reduction(|| : nan)
    for (int a = 0; a < p->nc; ++a) {
        const double *l = &lambda[d * a], *Ra = &R[d * d * a];
        double u[CF_PROX_MAX_DIM] = {0}, z[CF_PROX_MAX_DIM] = {0}, rf[3], *x = &trial[d * a];
        for (int k = 0; k < d; ++k) { /* v_I = J_I w + b_I, summed as cf_csr_mul_vec() does */
            int r = d * a + k;
            double s = 0.0;
            for (int q = J->rowptr[r]; q < J->rowptr[r + 1]; ++q) s += J->val[q] * w[J->colidx[q]];
            u[k] = s + p->b[r];
        }
        for (int k = 0; k < d; ++k) {
            double ru = 0.0;
            for (int j = 0; j < d; ++j) ru += Ra[d * k + j] * u[j];
            z[k] = l[k] - scale * ru;
        }
        x[0] = cf_prox_normal(z[0]);
        cf_prox_friction(d - 1, &z[1], &p->mu[3 * a], l[0], cf_prox_friction_r(o, Ra, d, rf), o->box, o->ellipsoid_tol, &x[1]);
        for (int k = 0; k < d; ++k) {
            double dk = fabs(x[k] - l[k]);
            nan = nan || dk != dk;
            e = dk > e ? dk : e; /* max is exact in any order */
        }
    }
    return nan ? NAN : e;
}

cfStatus cf_prox_jacobi_omp(const cfProxProblem *p, const cfProxOptions *o, double *lambda, cfReport *rep,
                            cfProxStats *stats)
{
    if (p->Gt.rows != p->nv || (p->nc > 0 && p->Gt.cols != p->dim * p->nc)) {
        if (rep) rep->status = CF_BAD_INPUT;
        return CF_BAD_INPUT;
    }
    return cf_prox_solve(p, o, cf_prox_jacobi_sweep_omp, lambda, rep, stats);
}

static cfStatus omp_solve(void **work, const cfContactProblem *cp, const cfSolverParams *par, double *x,
                          cfReport *rep)
{
    if (!*work && !(*work = calloc(1, sizeof(double)))) return CF_NO_MEMORY;
    double *scale = *work;
    cfProxProblem p;
    cfStatus st = cf_prox_problem_from_fc(cp->fc, &p);
    if (st == CF_OK) st = cf_prox_problem_transpose(&p);
    if (st == CF_OK) {
        cfProxOptions o = cf_prox_options_of(par);
        if (*scale > 0.0) o.scale0 = *scale; /* as the serial row: the last solve's scale, halfway back to 1 */
        cfProxStats stats;
        st = cf_prox_jacobi_omp(&p, &o, x, rep, &stats);
        if (st != CF_BAD_INPUT && st != CF_NO_MEMORY && stats.r_scale > 0.0) *scale = fmin(1.0, 2.0 * stats.r_scale);
    } else if (rep) {
        rep->status = st;
    }
    cf_prox_problem_free(&p);
    return st;
}

const cfSolver cf_solver_prox_jacobi_omp = {
    .name = "prox-jacobi-omp", .chapter = 7, .form = CF_FORM_FC3D, .contacts = true, .friction_model = true, .r_factors = true,
    .measure = CF_MEASURE_IMPULSE_CHANGE, .solve = omp_solve, .release = free,
    .summary = "PROX Jacobi with its contacts on OpenMP threads, bit for bit the serial one (reference only)"};
