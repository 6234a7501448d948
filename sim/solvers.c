/* SPDX-License-Identifier: MIT */
/* The registry of contact solvers: one row per solver (cf_solver.h), each mapping the common
   parameters to its chapter's options, and the one path from an assembled contact problem to
   impulses (cf_form_build, cf_form_solve) that the world and `cflab solve` share. */
#include "cf/cf_solvers.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch02.h"
#include "cf/cf_ch04.h"
#include "cf/cf_ch05.h"
#include "cf/cf_ch06.h"
#include "cf/cf_ch07.h"
#include "cf/cf_ch08.h"
#include "cf/cf_ch10.h"

/* ---- chapter 4: pivoting ------------------------------------------------------------------ */

static cfPivotOptions pivot_options(const cfSolverParams *par)
{
    cfPivotOptions o = cf_pivot_options_default();
    o.max_pivots = par->max_pivots;
    o.warm_start = par->warm_start;
    return o;
}

typedef cfStatus (*LcpPivot)(const cfLcp *, const cfPivotOptions *, double *, cfReport *);

static cfStatus pivot_lcp(LcpPivot fn, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep)
{
    cfPivotOptions o = pivot_options(par);
    cfStatus st = fn(p->lcp, &o, x, rep);
    /* the pivoting solvers report no residual history; give the final natural map as their measure */
    if (rep && st != CF_BAD_INPUT) rep->residual = cf_lcp_residual(p->lcp, x);
    return st;
}

static cfStatus lemke_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep)
{
    (void)work;
    return pivot_lcp(cf_lcp_lemke, p, par, x, rep);
}
static cfStatus dantzig_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep)
{
    (void)work;
    return pivot_lcp(cf_lcp_dantzig, p, par, x, rep);
}
static cfStatus murty_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep)
{
    (void)work;
    return pivot_lcp(cf_lcp_murty, p, par, x, rep);
}
static cfStatus bpp_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep)
{
    (void)work;
    return pivot_lcp(cf_lcp_bpp, p, par, x, rep);
}

/* Baraff's pivoting (ch04.2) at the velocity level: a = W f + q is the contact velocity after the
   impulses f, every contact static (slip 0): Signorini on the normals, sticking or saturated
   friction on the tangents. */
static cfStatus baraff_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep)
{
    (void)work;
    const cfFrictionProblem *fc = p->fc;
    cfBaraffProblem bp;
    cfDense W = {0};
    double *a = malloc((size_t)3 * fc->nc * sizeof *a);
    cfStatus st = a ? cf_baraff_init(&bp, fc->nc, 3) : CF_NO_MEMORY;
    if (st != CF_OK) {
        free(a);
        return st;
    }
    st = cf_bsr_to_dense(&fc->W, &W);
    if (st == CF_OK) {
        memcpy(bp.A.a, W.a, (size_t)W.rows * W.cols * sizeof *W.a);
        memcpy(bp.b, fc->q, (size_t)3 * fc->nc * sizeof *bp.b);
        memcpy(bp.mu, fc->mu, (size_t)fc->nc * sizeof *bp.mu);
        cfPivotOptions o = pivot_options(par);
        st = cf_baraff_solve(&bp, &o, x, a, rep);
    }
    cf_dense_free(&W);
    cf_baraff_free(&bp);
    free(a);
    return st;
}

/* ---- chapter 5: splitting ----------------------------------------------------------------- */

static cfSplitOptions split_options(const cfSolverParams *par, int inner)
{
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = par->max_iter;
    o.tol_abs = par->tol;
    o.omega = par->omega;
    o.ordering = par->ordering;
    o.seed = par->seed;
    o.friction = par->friction;
    o.inner = inner;
    return o;
}

#define SPLIT_ROW(fname, call)                                                                                  \
    static cfStatus fname(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x,        \
                          cfReport *rep)                                                                       \
    {                                                                                                          \
        (void)work;                                                                                            \
        call;                                                                                                  \
    }

SPLIT_ROW(jacobi_solve, cfSplitOptions o = split_options(par, 1); return cf_lcp_jacobi(p->lcp, &o, x, rep))
SPLIT_ROW(lcp_pgs_solve, cfSplitOptions o = split_options(par, 1); return cf_lcp_pgs(p->lcp, &o, x, rep))
SPLIT_ROW(psor_solve, cfSplitOptions o = split_options(par, 1); return cf_lcp_psor(p->lcp, &o, x, rep))
SPLIT_ROW(blocked_solve, cfSplitOptions o = split_options(par, 1); return cf_fc_bgs(p->fc, &o, x, rep))
SPLIT_ROW(boxed_solve, cfSplitOptions o = split_options(par, 1); return cf_blcp_pgs(p->blcp, &o, x, rep))
SPLIT_ROW(staggered_solve, cfSplitOptions o = split_options(par, 1); return cf_blcp_staggered(p->blcp, &o, x, rep))
/* PGS-SM: five PGS sweeps guess the active set before each subspace solve */
SPLIT_ROW(sm_solve, cfSplitOptions o = split_options(par, 5); return cf_blcp_pgs_sm(p->blcp, &o, x, rep))
SPLIT_ROW(nncg_solve, cfSplitOptions o = split_options(par, 1); return cf_blcp_nncg(p->blcp, &o, x, rep, NULL))

/* the matrix-free PGS of ch05.6: rows prepared once per step, impulses in the contacts */
static cfStatus pgs_prepare(void **work, const cfContactProblem *p, const cfSolverParams *par)
{
    if (!*work && !(*work = calloc(1, sizeof(cfRigidPgs)))) return CF_NO_MEMORY;
    cfRigidPgsOptions o = cf_rigid_pgs_options_of(p, par);
    cfStatus st = cf_rigid_pgs_prepare(p->bodies, p->nb, p->contacts, p->nc, &o, *work);
    /* Newton's impact law lowers the normal bias of the impacting rows (cfContactProblem::impact) */
    cfRigidPgs *ws = *work;
    for (int a = 0; st == CF_OK && p->impact && a < p->nc; ++a)
        if (p->impact[a] < 0.0) ws->rows[a].bias = fmin(ws->rows[a].bias, p->impact[a]);
    return st;
}

static cfStatus pgs_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep)
{
    cfRigidPgsOptions o = cf_rigid_pgs_options_of(p, par);
    cfStatus st = cf_rigid_pgs_solve(p->bodies, p->nb, p->contacts, p->nc, *work, &o, rep);
    for (int a = 0; a < p->nc; ++a) memcpy(&x[3 * a], p->contacts[a].lambda, 3 * sizeof *x);
    return st;
}

/* Split impulse on the reference rows: after the positions moved, the predicted gap of each
   contact is phi + h u_n. A normal-only projected Gauss-Seidel on the rows of the velocity solve
   finds pseudo-velocities that remove the fraction erp of the penetration beyond the slop. */
static cfStatus pgs_split(void *work, const cfContactProblem *p, double erp, double slop, int sweeps, double *pv)
{
    const cfRigidPgs *ws = work;
    int nc = p->nc;
    double *lam = calloc((size_t)nc, sizeof *lam), *bias = malloc((size_t)nc * sizeof *bias);
    if (!lam || !bias) {
        free(lam);
        free(bias);
        return CF_NO_MEMORY;
    }
    memset(pv, 0, (size_t)6 * p->nb * sizeof *pv);
    static const cfVec3 zero = {0.0, 0.0, 0.0};
    bool active = false;
    for (int a = 0; a < nc; ++a) {
        const cfRigidRow *r = &ws->rows[a];
        cfVec3 va = r->ia >= 0 ? p->bodies[r->ia].v : zero, wa = r->ia >= 0 ? p->bodies[r->ia].w : zero;
        cfVec3 vb = r->ib >= 0 ? p->bodies[r->ib].v : zero, wb = r->ib >= 0 ? p->bodies[r->ib].w : zero;
        double un = cfu_dot(r->dir[0], cfu_sub(vb, va)) + cfu_dot(r->ang_b[0], wb) - cfu_dot(r->ang_a[0], wa);
        double phi = p->contacts[a].phi + p->h * un;
        bias[a] = erp * fmin(phi + slop, 0.0) / p->h;
        active |= bias[a] != 0.0;
    }
    /* nothing penetrates beyond the slop: every sweep would leave all impulses at zero */
    if (!active) sweeps = 0;
    for (int k = 0; k < sweeps; ++k)
        for (int a = 0; a < nc; ++a) {
            const cfRigidRow *r = &ws->rows[a];
            double *va = r->ia >= 0 ? &pv[6 * r->ia] : NULL, *vb = r->ib >= 0 ? &pv[6 * r->ib] : NULL;
            double un = bias[a];
            if (va) un -= cfu_dot(r->dir[0], cfu_vec3(va[0], va[1], va[2])) + cfu_dot(r->ang_a[0], cfu_vec3(va[3], va[4], va[5]));
            if (vb) un += cfu_dot(r->dir[0], cfu_vec3(vb[0], vb[1], vb[2])) + cfu_dot(r->ang_b[0], cfu_vec3(vb[3], vb[4], vb[5]));
            double l = fmax(0.0, lam[a] - un / r->W[0]), dl = l - lam[a];
            lam[a] = l;
            const double *dir = &r->dir[0].x;
            if (va)
                for (int i = 0; i < 3; ++i) {
                    va[i] -= dl * r->inv_mass_a * dir[i];
                    va[3 + i] -= dl * (&r->iang_a[0].x)[i];
                }
            if (vb)
                for (int i = 0; i < 3; ++i) {
                    vb[i] += dl * r->inv_mass_b * dir[i];
                    vb[3 + i] += dl * (&r->iang_b[0].x)[i];
                }
        }
    free(lam);
    free(bias);
    return CF_OK;
}

static void pgs_release(void *work)
{
    cf_rigid_pgs_free(work);
    free(work);
}

/* ---- chapter 6: non-smooth Newton ------------------------------------------------------- */

/* the common parameters as Newton options: a fixed iteration budget, the world's tolerance
   (0 spends the budget; the line search then stops the loop when nothing decreases) */
static cfNewtonOptions newton_options(const cfSolverParams *par)
{
    cfNewtonOptions o = cf_newton_options_default();
    o.max_iter = par->max_iter;
    o.tol = par->tol;
    return o;
}

#define NEWTON_ROW(fname, call)                                                                                 \
    static cfStatus fname(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x,        \
                          cfReport *rep)                                                                       \
    {                                                                                                          \
        (void)work;                                                                                            \
        cfNewtonOptions o = newton_options(par);                                                               \
        return call;                                                                                           \
    }

NEWTON_ROW(newton_mm_solve, cf_lcp_newton_minmap(p->lcp, &o, x, rep))
NEWTON_ROW(newton_fb_solve, cf_lcp_newton_fb(p->lcp, &o, x, rep))
NEWTON_ROW(newton_mid_solve, cf_blcp_newton(p->blcp, &o, x, rep))
NEWTON_ROW(newton_ac_solve, cf_fc_newton_ac(p->fc, &o, x, rep))

/* ---- chapter 7: proximal operators -------------------------------------------------------- */

/* the work space keeps the adaptive scale of the last solve: the r-factors are warm started too */
static cfStatus prox_row(cfProxSweep sweep, void **work, const cfContactProblem *p, const cfSolverParams *par,
                         double *x, cfReport *rep)
{
    if (!*work && !(*work = calloc(1, sizeof(double)))) return CF_NO_MEMORY;
    return cf_prox_solve_fc(p->fc, sweep, par, *work, x, rep);
}

static cfStatus prox_gs_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x,
                              cfReport *rep)
{
    return prox_row(cf_prox_gs_sweep, work, p, par, x, rep);
}

static cfStatus prox_jacobi_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x,
                                  cfReport *rep)
{
    return prox_row(cf_prox_jacobi_sweep, work, p, par, x, rep);
}

/* ---- chapter 8: the dual form with a preconditioner ------------------------------------------ */

static cfStatus dual_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep)
{
    (void)work;
    cfDualOptions o = {.preconditioner = par->preconditioner, .max_iter = par->max_iter, .tol = par->tol,
                       .omega = par->omega, .friction = par->friction, .ica = cf_ica_options_default()};
    if (par->soft_tol > 0.0) o.tol = par->soft_tol, o.ica.rel_change = 0.0;
    if (!par->warm_start) cf_vec_zero(3 * p->nc, x);
    return cf_dual_solve(p->dual, &o, x, p->u, rep, NULL);
}

/* ---- chapter 10: anisotropic friction ---------------------------------------------------- */

SPLIT_ROW(blocked_aniso_solve, cfSplitOptions o = split_options(par, 1); return cf_fc_bgs_aniso(p->fc, &o, x, rep))
NEWTON_ROW(newton_aniso_solve, cf_fc_newton_aniso(p->fc, &o, x, rep))

/* Algorithm 22 on the factored form of the assembled problem; omega scales the local r-factors */
static cfStatus prox_aniso_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x,
                                 cfReport *rep)
{
    (void)work;
    cfProxProblem pp;
    cfStatus st = cf_aniso_problem_from_fc(p->fc, &pp);
    if (st != CF_OK) {
        if (rep) rep->status = st;
        return st;
    }
    cfAnisoProxOptions o = cf_aniso_prox_options_default();
    o.max_iter = par->max_iter;
    o.tol = par->tol;
    o.r = par->omega;
    st = cf_aniso_prox_gs(&pp, NULL, NULL, &o, x, rep, NULL);
    cf_prox_problem_free(&pp);
    return st;
}

/* ---- the table ---------------------------------------------------------------------------- */

/* The fast PGS ships with the reference solutions only (solutions/ch05/fast/): in a build
   without it (a handout) this weak reference stays null and the row is not in the table. */
extern const cfSolver cf_solver_pgs_fast __attribute__((weak));
/* The soft step (solutions/ch05/fast/soft_step.c), likewise. */
extern const cfSolver cf_solver_soft_step __attribute__((weak));
/* The OpenMP PROX-Jacobi (solutions/ch07/omp/), likewise. */
extern const cfSolver cf_solver_prox_jacobi_omp __attribute__((weak));

static const cfSolver ROWS[] = {
    {.name = "baraff", .chapter = 4, .form = CF_FORM_FC3D, .contacts = true, .dense = true,
     .measure = CF_MEASURE_VIOLATION, .solve = baraff_solve,
     .summary = "Dantzig/Baraff pivoting with static Coulomb friction on the dense W (ch04.2)"},
    {.name = "lemke", .chapter = 4, .form = CF_FORM_LCP, .contacts = true, .dense = true,
     .measure = CF_MEASURE_NATURAL_MAP, .solve = lemke_solve,
     .summary = "Lemke's complementary pivoting on the polyhedral-cone LCP (ch04.3)",
     .infeasible = "ray termination: no solution if M is copositive-plus, otherwise inconclusive"},
    {.name = "dantzig", .chapter = 4, .form = CF_FORM_LCP, .dense = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = dantzig_solve, .summary = "Dantzig/Baraff incremental pivoting, symmetric A only (ch04.1; LCP files)",
     .refused = "Dantzig's method needs a symmetric matrix"},
    {.name = "murty", .chapter = 4, .form = CF_FORM_LCP, .dense = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = murty_solve, .summary = "principal pivoting, Murty's least-index rule (ch04.4; LCP files)"},
    {.name = "bpp", .chapter = 4, .form = CF_FORM_LCP, .dense = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = bpp_solve, .summary = "block principal pivoting with the Judice-Pires safeguard (ch04.5; LCP files)",
     .counts = "solves"},
    {.name = "jacobi", .chapter = 5, .form = CF_FORM_LCP, .measure = CF_MEASURE_NATURAL_MAP, .solve = jacobi_solve,
     .summary = "projected Jacobi (ch05.1; LCP files)"},
    {.name = "lcp-pgs", .chapter = 5, .form = CF_FORM_LCP, .measure = CF_MEASURE_NATURAL_MAP, .solve = lcp_pgs_solve,
     .summary = "projected Gauss-Seidel (ch05.2; LCP files)"},
    {.name = "psor", .chapter = 5, .form = CF_FORM_LCP, .measure = CF_MEASURE_NATURAL_MAP, .solve = psor_solve,
     .summary = "projected SOR with relaxation omega (ch05.3; LCP files)"},
    {.name = "pgs", .friction_model = true, .chapter = 5, .form = CF_FORM_ROWS, .contacts = true, .measure = CF_MEASURE_IMPULSE_CHANGE,
     .ordered = true, .prepare = pgs_prepare, .solve = pgs_solve, .split = pgs_split, .release = pgs_release,
     .summary = "matrix-free blocked PGS on the rigid rows, the default engine (ch05.6)"},
    {.name = "pgs-blocked", .friction_model = true, .chapter = 5, .form = CF_FORM_FC3D, .contacts = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = blocked_solve, .summary = "blocked Gauss-Seidel per contact on the assembled W, cone or box (ch05.5)"},
    {.name = "pgs-boxed", .chapter = 5, .form = CF_FORM_BLCP, .contacts = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = boxed_solve, .summary = "PGS on the boxed LCP, bounds that move with lambda_n (ch05.4)"},
    {.name = "pgs-staggered", .chapter = 5, .form = CF_FORM_BLCP, .contacts = true,
     .measure = CF_MEASURE_NATURAL_MAP, .solve = staggered_solve,
     .summary = "staggered PGS: normal and friction halves in turn on the boxed LCP (ch05.7)"},
    {.name = "pgs-sm", .chapter = 5, .form = CF_FORM_BLCP, .contacts = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = sm_solve, .summary = "PGS with subspace minimization on the boxed LCP, 5 PGS sweeps per phase (ch05.8)"},
    {.name = "nncg", .chapter = 5, .form = CF_FORM_BLCP, .contacts = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = nncg_solve, .summary = "non-smooth nonlinear conjugate gradient on the boxed LCP (ch05.9)"},
    {.name = "newton-mm", .chapter = 6, .form = CF_FORM_LCP, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = newton_mm_solve, .summary = "min-map Newton with Armijo line search (ch06.2; LCP files)"},
    {.name = "newton-fb", .chapter = 6, .form = CF_FORM_LCP, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = newton_fb_solve, .summary = "Fischer-Burmeister Newton with Armijo line search (ch06.3; LCP files)"},
    {.name = "newton-mid", .chapter = 6, .form = CF_FORM_BLCP, .contacts = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = newton_mid_solve, .summary = "mid-map Newton on the boxed LCP of the friction pyramid (ch06.4)"},
    {.name = "newton-ac", .chapter = 6, .form = CF_FORM_FC3D, .contacts = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = newton_ac_solve, .summary = "Alart-Curnier Newton on the Coulomb cone, as Siconos NSN-AC (ch06.6)"},
    {.name = "prox-gs", .friction_model = true, .r_factors = true, .chapter = 7, .form = CF_FORM_FC3D, .contacts = true, .measure = CF_MEASURE_IMPULSE_CHANGE,
     .solve = prox_gs_solve, .release = free, .summary = "PROX Gauss-Seidel with adaptive r-factors, blocked per contact (ch07.4)"},
    {.name = "prox-jacobi", .friction_model = true, .r_factors = true, .chapter = 7, .form = CF_FORM_FC3D, .contacts = true, .measure = CF_MEASURE_IMPULSE_CHANGE,
     .solve = prox_jacobi_solve, .release = free, .summary = "PROX Jacobi with adaptive r-factors (ch07.3)"},
    {.name = "dual", .friction_model = true, .chapter = 8, .form = CF_FORM_DUAL, .contacts = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = dual_solve,
     .summary = "soft and rigid contacts in the dual form with a preconditioner: exact W_A (Algorithm 15, ch08.3), "
                "lumped W_M (ch08.4), block-diagonal ICA (ch08.5), PCG inner solves"},
    {.name = "pgs-blocked-aniso", .friction_model = true, .chapter = 10, .form = CF_FORM_FC3D, .contacts = true, .anisotropic = true,
     .measure = CF_MEASURE_NATURAL_MAP, .solve = blocked_aniso_solve,
     .summary = "blocked Gauss-Seidel with the friction ellipse in the local solve, cone or box (ch10.3)"},
    {.name = "prox-gs-aniso", .chapter = 10, .form = CF_FORM_FC3D, .contacts = true, .anisotropic = true,
     .measure = CF_MEASURE_IMPULSE_CHANGE, .solve = prox_aniso_solve,
     .summary = "PROX Gauss-Seidel on the friction ellipse with adaptive r, notes Algorithm 22 (ch10.3)"},
    {.name = "newton-aniso", .chapter = 10, .form = CF_FORM_FC3D, .contacts = true, .anisotropic = true,
     .measure = CF_MEASURE_NATURAL_MAP, .solve = newton_aniso_solve,
     .summary = "Fischer-Burmeister Newton on the NCP of the friction ellipse, notes 6.1.5 (ch10.4)"},
};
#define N_ROWS ((int)(sizeof ROWS / sizeof ROWS[0]))

/* their names, known where the rows are not linked */
static const char *const REFERENCE_ONLY[] = {"pgs-fast", "soft-step", "prox-jacobi-omp"};

const char *cf_solver_counts(const cfSolver *s) { return s->counts ? s->counts : s->dense ? "pivots" : "sweeps"; }

const char *cf_solver_status_note(const cfSolver *s, cfStatus st)
{
    switch (st) {
    case CF_BAD_INPUT: return s->refused ? s->refused : "input refused";
    case CF_INFEASIBLE: return s->infeasible ? s->infeasible : "unbounded drive: no solution for symmetric PSD M";
    case CF_SINGULAR: return "a principal submatrix is singular (method needs a P-matrix)";
    case CF_STAGNATED: return "stagnated (pivoting: an index set repeated; M is not a P-matrix)";
    case CF_MAX_ITER: return "iteration limit reached (raise --max-iter)";
    default: return "";
    }
}

const char *cf_solver_absent_reason(const char *name)
{
    for (int i = 0; i < (int)(sizeof REFERENCE_ONLY / sizeof REFERENCE_ONLY[0]); ++i)
        if (name && strcmp(name, REFERENCE_ONLY[i]) == 0 && !cf_solver_find(name))
            return "; it is a faster row of the reference solutions, which this build does not link (a handout, "
                   "or IMPL=exercises): choose another, e.g. pgs";
    return "";
}

/* the optional rows, appended in chapter order after the table */
static const cfSolver *extra(int k)
{
    const cfSolver *const extras[] = {&cf_solver_pgs_fast, &cf_solver_soft_step, &cf_solver_prox_jacobi_omp};
    int n = 0;
    for (int i = 0; i < (int)(sizeof extras / sizeof extras[0]); ++i)
        if (extras[i] && n++ == k) return extras[i];
    return NULL;
}

int cf_solver_count(void)
{
    int n = N_ROWS;
    while (extra(n - N_ROWS)) ++n;
    return n;
}

const cfSolver *cf_solver_at(int i)
{
    if (i < 0) return NULL;
    return i < N_ROWS ? &ROWS[i] : extra(i - N_ROWS);
}

const cfSolver *cf_solver_find(const char *name)
{
    if (!name) return NULL;
    for (int i = 0; i < cf_solver_count(); ++i)
        if (strcmp(cf_solver_at(i)->name, name) == 0) return cf_solver_at(i);
    return NULL;
}

bool cf_solver_registered(const cfSolver *s)
{
    for (int i = 0; s && i < cf_solver_count(); ++i)
        if (cf_solver_at(i) == s) return true;
    return false;
}

bool cf_solver_matches(const cfSolver *s, cfSolverFilter filter)
{
    switch (filter) {
    case CF_SOLVERS_ALL: return true;
    case CF_SOLVERS_WORLD: return s->contacts;
    case CF_SOLVERS_ASSEMBLED:
        return s->contacts && (s->form == CF_FORM_FC3D || s->form == CF_FORM_BLCP || s->form == CF_FORM_LCP);
    case CF_SOLVERS_LCP: return s->form == CF_FORM_LCP;
    case CF_SOLVERS_SOFT: return s->contacts && s->form != CF_FORM_ROWS;
    case CF_SOLVERS_FILTER_COUNT: break;
    }
    return false;
}

const char *cf_solver_names(cfSolverFilter filter, char *buf, size_t cap)
{
    size_t used = 0;
    if (cap) buf[0] = '\0';
    for (int i = 0; i < cf_solver_count() && used < cap; ++i) {
        const cfSolver *s = cf_solver_at(i);
        if (!cf_solver_matches(s, filter)) continue;
        int k = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", s->name);
        if (k < 0) break;
        used += (size_t)k;
    }
    return buf;
}

/* ---- assembled problems ------------------------------------------------------------------- */

void cf_form_work_free(cfFormWork *fw)
{
    if (fw->solver && fw->solver->release && fw->work) fw->solver->release(fw->work);
    cf_blcp_free(&fw->blcp);
    cf_lcp_free(&fw->lcp);
    free(fw->x);
    free(fw->scale);
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
    if (!fc->ellipse || s->anisotropic || s->form == CF_FORM_BLCP) return CF_OK;
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
        abs_res = s->friction_model && par->friction == CF_FRICTION_BOX ? cf_fc_box_residual(p->fc, x) : cf_fc_residual(p->fc, x);
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
