/* SPDX-License-Identifier: MIT */
/* The registry of contact solvers: one row per solver (cf_solver.h), each mapping the common
   parameters to its chapter's options, and the lookups every program uses (by name, by filter).
   The path from an assembled problem to a row's impulses is forms.c. */
#include "cf/cf_solvers.h"

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

/* Texture friction (ch10.6): row PGS on the directional box of every contact (cfContactProblem::mu4,
   from cf_form_build() and the world's texture contacts) */
SPLIT_ROW(texture_pgs_solve, cfSplitOptions o = split_options(par, 1);
          return p->mu4 ? cf_fc_texture_pgs(p->fc, p->mu4, &o, x, rep) : CF_BAD_INPUT)

/* ---- the table ---------------------------------------------------------------------------- */

/* The fast PGS ships with the reference solutions only (solutions/ch05/fast/): in a build
   without it (a handout) this weak reference stays null and the row is not in the table. */
extern const cfSolver cf_solver_pgs_fast __attribute__((weak));
/* The soft step (solutions/ch05/fast/soft_step.c), likewise. */
extern const cfSolver cf_solver_soft_step __attribute__((weak));
/* The OpenMP PROX-Jacobi (solutions/ch07/omp/), likewise. */
extern const cfSolver cf_solver_prox_jacobi_omp __attribute__((weak));
/* The sparse Alart-Curnier Newton (solutions/ch06/fast/), likewise. */
extern const cfSolver cf_solver_newton_ac_sparse __attribute__((weak));

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
    {.name = "pgs-boxed", .chapter = 5, .form = CF_FORM_BLCP, .contacts = true, .directional = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = boxed_solve, .summary = "PGS on the boxed LCP, bounds that move with lambda_n (ch05.4)"},
    {.name = "pgs-staggered", .chapter = 5, .form = CF_FORM_BLCP, .contacts = true, .directional = true,
     .measure = CF_MEASURE_NATURAL_MAP, .solve = staggered_solve,
     .summary = "staggered PGS: normal and friction halves in turn on the boxed LCP (ch05.7)"},
    {.name = "pgs-sm", .chapter = 5, .form = CF_FORM_BLCP, .contacts = true, .directional = true, .measure = CF_MEASURE_NATURAL_MAP,
     .solve = sm_solve, .summary = "PGS with subspace minimization on the boxed LCP, 5 PGS sweeps per phase (ch05.8)"},
    {.name = "nncg", .chapter = 5, .form = CF_FORM_BLCP, .contacts = true, .directional = true, .measure = CF_MEASURE_NATURAL_MAP,
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
    {.name = "pgs-texture", .chapter = 10, .form = CF_FORM_FC3D, .contacts = true, .anisotropic = true, .directional = true,
     .measure = CF_MEASURE_NATURAL_MAP, .solve = texture_pgs_solve,
     .refused = "needs the directional box of every contact (cfContactProblem::mu4)",
     .summary = "row PGS on the directional box of texture friction, asymmetric per tangent; an ellipse as its "
                "pyramid (ch10.6)"},
};
#define N_ROWS ((int)(sizeof ROWS / sizeof ROWS[0]))

/* The rows of the reference solutions only, in chapter order after the table, each with its name,
   known where the row is not linked (its weak reference null). */
static const struct {
    const cfSolver *row;
    const char *name;
} REFERENCE_ONLY[] = {
    {&cf_solver_pgs_fast, "pgs-fast"},
    {&cf_solver_soft_step, "soft-step"},
    {&cf_solver_newton_ac_sparse, "newton-ac-sparse"},
    {&cf_solver_prox_jacobi_omp, "prox-jacobi-omp"},
};
#define N_REFERENCE_ONLY ((int)(sizeof REFERENCE_ONLY / sizeof REFERENCE_ONLY[0]))

/* the row a program takes for a filter when none is named (cf_solver_default) */
static const char *const DEFAULT_ROW[CF_SOLVERS_FILTER_COUNT] = {
    [CF_SOLVERS_ALL] = "pgs",         [CF_SOLVERS_WORLD] = "pgs", [CF_SOLVERS_ASSEMBLED] = "pgs-blocked",
    [CF_SOLVERS_LCP] = "lemke",       [CF_SOLVERS_SOFT] = "pgs-blocked", [CF_SOLVERS_DIRECTIONAL] = "pgs-texture",
};

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

cfFrictionModel cf_solver_friction(const cfSolver *s, cfFrictionModel asked)
{
    return s->form == CF_FORM_BLCP || s->directional ? CF_FRICTION_BOX : s->friction_model ? asked : CF_FRICTION_CONE;
}

const char *cf_solver_law(const cfSolver *s, cfFrictionModel asked, bool ellipses, bool texture)
{
    if (!s) return "none";
    if (texture && s->directional) return "texture (directional boxes)";
    bool box = cf_solver_friction(s, asked) == CF_FRICTION_BOX;
    /* the contacts stage refuses an ellipse to the matrix-free rows and the dual form, and texture
       contacts to every row that is not directional */
    bool no_ellipse = ellipses && (s->form == CF_FORM_ROWS || s->form == CF_FORM_DUAL) && !s->anisotropic;
    if (texture)
        return box ? "box (texture refused)"
               : s->form == CF_FORM_LCP      ? "polyhedral cone (texture refused)"
               : ellipses && !no_ellipse      ? "elliptic cone (texture refused)"
                                              : "cone (texture refused)";
    if (no_ellipse) return box ? "box (ellipses refused)" : "cone (ellipses refused)";
    if (box) return ellipses ? "box (the ellipses' pyramids)" : "box";
    if (s->form == CF_FORM_LCP) return ellipses ? "polyhedral cone (rays on the ellipses)" : "polyhedral cone";
    if (ellipses) return s->anisotropic ? "elliptic cone" : "elliptic cone (isotropic equivalent)";
    return "cone";
}

const char *cf_solver_absent_reason(const char *name)
{
    for (int i = 0; i < N_REFERENCE_ONLY; ++i)
        if (name && strcmp(name, REFERENCE_ONLY[i].name) == 0 && !REFERENCE_ONLY[i].row)
            return "; it is a faster row of the reference solutions, which this build does not link (a handout, "
                   "or IMPL=exercises): choose another, e.g. pgs";
    return "";
}

/* the k-th reference-only row this build links, or NULL */
static const cfSolver *extra(int k)
{
    for (int i = 0, n = 0; i < N_REFERENCE_ONLY; ++i)
        if (REFERENCE_ONLY[i].row && n++ == k) return REFERENCE_ONLY[i].row;
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

bool cf_solver_reference_only(const cfSolver *s)
{
    for (int i = 0; s && i < N_REFERENCE_ONLY; ++i)
        if (REFERENCE_ONLY[i].row == s) return true;
    return false;
}

const cfSolver *cf_solver_default(cfSolverFilter filter)
{
    return filter >= 0 && filter < CF_SOLVERS_FILTER_COUNT ? cf_solver_find(DEFAULT_ROW[filter]) : NULL;
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
    case CF_SOLVERS_DIRECTIONAL: return s->contacts && s->directional;
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
