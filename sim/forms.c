/* SPDX-License-Identifier: MIT */
/* The one path from an assembled contact problem to impulses that the world and `cflab solve`
   share: the form a row consumes built from the FC3D problem (cf_form_build), solved and mapped
   back (cf_form_solve, cf_solve_lcp), and the one meaning of "converged": every solve certified
   on the common residual (cf_solver_certify). The rows themselves are in solvers.c. */
#include "cf/cf_solvers.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch02.h"
#include "cf/cf_ch10.h"

/* ---- assembled problems ------------------------------------------------------------------- */

void cf_form_work_free(cfFormWork *fw)
{
    if (fw->solver && fw->solver->release && fw->work) fw->solver->release(fw->work);
    cf_blcp_free(&fw->blcp);
    cf_lcp_free(&fw->lcp);
    free(fw->x);
    free(fw->scale);
    free(fw->mu4);
    cf_fc_free(&fw->iso);
    memset(fw, 0, sizeof *fw);
}

void cf_form_work_use(cfFormWork *fw, const cfSolver *s)
{
    if (fw->solver == s) return;
    if (fw->solver && fw->solver->release && fw->work) fw->solver->release(fw->work);
    fw->work = NULL;
    fw->solver = s;
}

/* A problem with ellipses for a row that reads one mu per contact (CF_FORM_FC3D rows that are not
   anisotropic, CF_FORM_LCP): its isotropic equivalent in fw->iso (chapter 10's change of variables
   r_T = S r'_T) and the tangent scales S in fw->scale; nothing otherwise */
static cfStatus build_equivalent(cfFormWork *fw, const cfSolver *s, const cfFrictionProblem *fc)
{
    cf_fc_free(&fw->iso);
    fw->n_scale = 0;
    if (!fc->ellipse || s->anisotropic || s->directional || s->form == CF_FORM_BLCP) return CF_OK;
    if (2 * fc->nc > fw->cap_scale) {
        double *sc = realloc(fw->scale, (size_t)2 * fc->nc * sizeof *sc);
        if (!sc) return CF_NO_MEMORY;
        fw->scale = sc;
        fw->cap_scale = 2 * fc->nc;
    }
    cfStatus st = cf_fc_isotropic_equivalent(fc, &fw->iso, fw->scale);
    if (st == CF_OK) fw->n_scale = 2 * fc->nc;
    return st;
}

/* A directional row's box (texture friction, ch10.6): every contact's own mu, an ellipse's pyramid
   (mu_t, mu_b, mu_t, mu_b); the world overwrites its directional contacts' entries */
static cfStatus build_mu4(cfFormWork *fw, const cfFrictionProblem *fc)
{
    if (4 * fc->nc > fw->cap_mu4) {
        double *m = realloc(fw->mu4, (size_t)4 * fc->nc * sizeof *m);
        if (!m) return CF_NO_MEMORY;
        fw->mu4 = m;
        fw->cap_mu4 = 4 * fc->nc;
    }
    for (int a = 0; a < fc->nc; ++a)
        for (int k = 0; k < 4; ++k) fw->mu4[4 * a + k] = fc->ellipse ? fc->ellipse[2 * a + k % 2] : fc->mu[a];
    fw->n_mu4 = 4 * fc->nc;
    return CF_OK;
}

cfStatus cf_form_directional(cfFormWork *fw, const cfSolver *s, int a, const double mu4[4])
{
    int nc = fw->n_mu4 / 4;
    if (!s->directional || fw->solver != s || !fw->mu4 || a < 0 || a >= nc) return CF_BAD_INPUT;
    memcpy(&fw->mu4[4 * a], mu4, 4 * sizeof *mu4);
    if (s->form != CF_FORM_BLCP) return CF_OK;
    cfBlcp *bl = &fw->blcp;
    if (3 * a + 2 >= bl->n) return CF_BAD_INPUT;
    if (!bl->mu_lo) {
        if (!(bl->mu_lo = malloc((size_t)bl->n * sizeof *bl->mu_lo))) return CF_NO_MEMORY;
        memcpy(bl->mu_lo, bl->mu, (size_t)bl->n * sizeof *bl->mu); /* every other index: its symmetric box */
    }
    for (int k = 0; k < 2; ++k) { /* sliding along +k is resisted from the -k side: lo = -mu_+k lambda_n */
        bl->mu[3 * a + 1 + k] = mu4[2 + k];
        bl->mu_lo[3 * a + 1 + k] = mu4[k];
    }
    return CF_OK;
}

static cfStatus reserve_x(cfFormWork *fw, int n)
{
    if (n <= fw->cap_x) return CF_OK;
    double *x = realloc(fw->x, (size_t)n * sizeof *x);
    if (!x) return CF_NO_MEMORY;
    fw->x = x;
    fw->cap_x = n;
    return CF_OK;
}

cfStatus cf_form_build(cfFormWork *fw, const cfSolver *s, const cfFrictionProblem *fc, const cfSolverParams *par,
                       cfContactProblem *p, cfError *err)
{
    memset(p, 0, sizeof *p);
    if (!cf_solver_matches(s, CF_SOLVERS_ASSEMBLED))
        return cf_error_set(err, CF_BAD_INPUT, "solver '%s' does not take an assembled contact problem (%s)", s->name,
                            s->contacts ? "it works on the rigid bodies' rows" : "LCP files only");
    cf_form_work_use(fw, s);
    cf_blcp_free(&fw->blcp);
    cf_lcp_free(&fw->lcp);
    fw->n_mu4 = 0;
    p->form = s->form;
    p->nc = fc->nc;
    p->fc = fc;
    long unknowns = s->form == CF_FORM_LCP ? (long)fc->nc * (par->directions + 2) : 3L * fc->nc;
    if (s->dense && unknowns > CF_DENSE_MAX_UNKNOWNS)
        return cf_error_set(err, CF_BAD_INPUT,
                            "solver '%s' works on a dense matrix of %ld unknowns here (%d contacts), more than %d: "
                            "use an iterative solver (e.g. pgs-blocked)",
                            s->name, unknowns, fc->nc, CF_DENSE_MAX_UNKNOWNS);
    cfStatus st = build_equivalent(fw, s, fc);
    if (fw->n_scale) p->fc = &fw->iso;
    if (st == CF_OK && s->directional && (st = build_mu4(fw, fc)) == CF_OK) p->mu4 = fw->mu4;
    if (st == CF_OK && s->form == CF_FORM_BLCP) {
        /* the pyramid of an ellipse bounds each tangent by its own coefficient */
        st = cf_friction_boxed_lcp(fc, &fw->blcp);
        for (int a = 0; st == CF_OK && fc->ellipse && a < fc->nc; ++a)
            for (int k = 0; k < 2; ++k) fw->blcp.mu[3 * a + 1 + k] = fc->ellipse[2 * a + k];
        p->blcp = &fw->blcp;
    } else if (st == CF_OK && s->form == CF_FORM_LCP) {
        /* the polyhedral cone of an ellipse: rays on its rim, through the isotropic equivalent (ch10) */
        st = cf_friction_polyhedral_lcp(p->fc, par->directions, &fw->lcp);
        p->lcp = &fw->lcp;
    }
    if (st != CF_OK)
        return cf_error_set(err, st, "building the %s form for solver '%s' failed: %s", cf_form_name(s->form), s->name,
                            cf_status_name(st));
    return reserve_x(fw, (int)unknowns);
}

/* ---- one meaning of "converged" --------------------------------------------------------------- */

/* the free velocity of the form: |q| of FC3D, |b| of the LCPs */
static double form_scale(const cfContactProblem *p)
{
    switch (p->form) {
    case CF_FORM_FC3D: return cf_fc_norm_q(p->fc);
    case CF_FORM_BLCP: return cf_vec_norm(p->blcp->n, p->blcp->b);
    case CF_FORM_LCP: return cf_vec_norm(p->lcp->n, p->lcp->b);
    default: return 0.0;
    }
}

double cf_common_relative(double residual, double scale) { return scale > DBL_EPSILON ? residual / scale : residual; }

double cf_form_common_residual(const cfSolver *s, const cfContactProblem *p, const cfSolverParams *par, const double *x)
{
    double abs_res = INFINITY;
    switch (p->form) {
    case CF_FORM_FC3D:
        if (s->directional && p->mu4) {
            abs_res = cf_fc_texture_residual(p->fc, p->mu4, x);
            break;
        }
        abs_res = cf_solver_friction(s, par->friction) == CF_FRICTION_BOX ? cf_fc_box_residual(p->fc, x) : cf_fc_residual(p->fc, x);
        break;
    case CF_FORM_BLCP: abs_res = cf_blcp_residual(p->blcp, x); break;
    case CF_FORM_LCP: abs_res = cf_lcp_residual(p->lcp, x); break;
    default: return NAN;
    }
    return cf_common_relative(isfinite(abs_res) ? abs_res : INFINITY, form_scale(p));
}

cfStatus cf_solver_certify(const cfSolver *s, cfStatus st, double common, const cfSolverParams *par, cfReport *rep)
{
    const double tol = par->tol > 0.0 ? par->tol : CF_CONVERGED_TOL_ZERO;
    if (rep) {
        rep->claimed = st;
        rep->common = common;
        rep->common_tol = tol;
    }
    if (!isfinite(common) && (st == CF_OK || st == CF_MAX_ITER || st == CF_STAGNATED)) {
        st = CF_DIVERGED; /* a residual that is not a number certifies nothing */
    } else if (st == CF_OK && !(common <= tol)) {
        /* its own measure stopped it; the common one says it did not get there: a pivoting method
           ended at an answer that fails it, an iterative one stopped before its budget or at it */
        st = s->dense || !rep || rep->iterations < par->max_iter ? CF_STAGNATED : CF_MAX_ITER;
    }
    if (rep) rep->status = st;
    return st;
}

cfSolverParams cf_solver_own_params(const cfSolver *s, const cfContactProblem *p, const cfSolverParams *par)
{
    cfSolverParams own = *par;
    double scale = form_scale(p);
    if (s->measure == CF_MEASURE_NATURAL_MAP && scale > DBL_EPSILON) own.tol = par->tol * scale;
    if (s->measure == CF_MEASURE_IMPULSE_CHANGE && par->impulse_scale > 0.0) own.tol = par->tol * par->impulse_scale;
    return own;
}

cfStatus cf_form_solve(cfFormWork *fw, const cfSolver *s, const cfContactProblem *p, const cfSolverParams *par,
                       double *lambda, cfReport *rep)
{
    if (fw->solver != s || p->form != s->form || !p->fc) return CF_BAD_INPUT;
    int nc = p->nc, k = par->directions;
    double *x = fw->x;
    if (s->form == CF_FORM_LCP) {
        /* the pivoting methods start from their own basis: the LCP unknowns start at zero */
        memset(x, 0, (size_t)p->lcp->n * sizeof *x);
    } else {
        for (int i = 0; i < 3 * nc; ++i) x[i] = par->warm_start ? lambda[i] : 0.0;
        /* the isotropic equivalent's unknowns r'_T = S^-1 r_T (a pinned axis, S = 0, starts at 0) */
        for (int a = 0; fw->n_scale && a < nc; ++a)
            for (int j = 0; j < 2; ++j) x[3 * a + 1 + j] = fw->scale[2 * a + j] > 0.0 ? x[3 * a + 1 + j] / fw->scale[2 * a + j] : 0.0;
    }
    const cfSolverParams own = cf_solver_own_params(s, p, par);
    cfStatus st = s->solve(&fw->work, p, &own, x, rep);
    if (rep) rep->measure = s->measure;
    if (st == CF_BAD_INPUT || st == CF_NO_MEMORY || st == CF_NOT_IMPLEMENTED) return st;
    int n = s->form == CF_FORM_LCP ? p->lcp->n : 3 * nc;
    if (!cf_vec_finite(n, x)) {
        if (rep) rep->claimed = st, rep->status = CF_DIVERGED;
        return CF_DIVERGED;
    }
    st = cf_solver_certify(s, st, cf_form_common_residual(s, p, par, x), par, rep);
    if (s->form == CF_FORM_LCP) {
        /* x = (lambda_n [nc], lambda_d [nc k], beta [nc]); direction i is at angle 2 pi i / k in (t, b) */
        for (int a = 0; a < nc; ++a) {
            double lt = 0.0, lb = 0.0;
            for (int i = 0; i < k; ++i) {
                double th = 2.0 * CF_PI * i / k, li = x[nc + a * k + i];
                lt += li * cos(th);
                lb += li * sin(th);
            }
            lambda[3 * a] = x[a];
            lambda[3 * a + 1] = lt;
            lambda[3 * a + 2] = lb;
        }
    } else {
        memcpy(lambda, x, (size_t)3 * nc * sizeof *lambda);
    }
    /* the isotropic equivalent of an ellipse: r_T = S r'_T */
    for (int a = 0; fw->n_scale && a < nc; ++a)
        for (int j = 0; j < 2; ++j) lambda[3 * a + 1 + j] *= fw->scale[2 * a + j];
    return st;
}

cfStatus cf_solve_lcp(cfFormWork *fw, const cfSolver *s, const cfLcp *lcp, const cfSolverParams *par, double *x,
                      cfReport *rep)
{
    if (s->form != CF_FORM_LCP) return CF_BAD_INPUT;
    cf_form_work_use(fw, s);
    cfContactProblem p;
    memset(&p, 0, sizeof p);
    p.form = CF_FORM_LCP;
    p.lcp = lcp;
    const cfSolverParams own = cf_solver_own_params(s, &p, par);
    cfStatus st = s->solve(&fw->work, &p, &own, x, rep);
    if (rep) rep->measure = s->measure;
    if (st == CF_BAD_INPUT || st == CF_NO_MEMORY || st == CF_NOT_IMPLEMENTED) return st;
    return cf_solver_certify(s, st, cf_form_common_residual(s, &p, par, x), par, rep);
}
