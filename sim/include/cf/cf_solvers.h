/* SPDX-License-Identifier: MIT */
/**
 * @file cf_solvers.h
 * @brief The registry of contact solvers (one table, sim/solvers.c) and the one path from an
 *        assembled contact problem to impulses that the world and `cflab solve` share (sim/forms.c).
 *
 * Everything that names a solver reads this table: the world (cfWorldDef::solver), the scene key
 * "solver", `cflab run --solver`, `cflab solve --solver`, the viewer's solver key and every help
 * text. A row is a ::cfSolver (cf_solver.h). Rows that ship only with the reference solutions
 * (the fast PGS of solutions/ch05/fast/) are in the table only in builds that link them.
 */
#ifndef CF_SOLVERS_H
#define CF_SOLVERS_H

#include <stddef.h>

#include "cf/cf_solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Number of rows in this build. */
int cf_solver_count(void);
/** Row @p i (0 <= i < cf_solver_count()), in the table's order (by chapter); NULL otherwise. */
const cfSolver *cf_solver_at(int i);
/** The row named @p name, or NULL. */
const cfSolver *cf_solver_find(const char *name);
/**
 * Why no row is named @p name: "" when @p name is simply unknown, or a sentence for the rows of
 * the reference solutions only ("pgs-fast", "soft-step", "prox-jacobi-omp"), which a build
 * without them (a handout) does not have. Never NULL.
 */
const char *cf_solver_absent_reason(const char *name);
/** True when @p s is a row of this build's table (pointer identity). */
bool cf_solver_registered(const cfSolver *s);
/** True when @p s is a row of the reference solutions only (a faster path of a chapter's row,
 *  tested against it: "pgs-fast", "soft-step", "prox-jacobi-omp"); false for every other row and NULL. */
bool cf_solver_reference_only(const cfSolver *s);
/** What row @p s's cfReport::iterations counts, for messages: cfSolver::counts, else "pivots" (dense) or "sweeps". */
const char *cf_solver_counts(const cfSolver *s);
/**
 * What status @p st of row @p s means, in a few words for a message (its own for CF_BAD_INPUT and
 * CF_INFEASIBLE when the row says, cfSolver::refused and cfSolver::infeasible); "" for CF_OK and
 * the statuses that need no note. Never NULL.
 */
const char *cf_solver_status_note(const cfSolver *s, cfStatus st);

/**
 * The friction law row @p s solves when @p asked (cfSolverParams::friction) is asked of it, and
 * so the law its common residual measures: the box (the pyramid) for a CF_FORM_BLCP row and a
 * directional row (texture friction's box, cfSolver::directional), @p asked
 * for a row of cfSolver::friction_model, the cone for every other (for a CF_FORM_LCP row, the
 * polyhedral cone of cfSolverParams::directions).
 */
cfFrictionModel cf_solver_friction(const cfSolver *s, cfFrictionModel asked);

/**
 * The friction law row @p s solves, in a few words for what programs print (`cflab run --summary`,
 * `cflab compare`, the viewer's HUD): cf_solver_friction() of @p asked, and what the row makes of
 * the contacts' own laws when some have an ellipse (@p ellipses: an orthotropic, tensor or
 * Matchstick pair, chapter 10) or the directional box of texture friction (@p texture, chapter
 * 10.6): "texture (directional boxes)" for a directional row on texture contacts, "elliptic cone"
 * for an anisotropic row on ellipses, "elliptic cone (isotropic equivalent)" for another FC3D row,
 * "box" or "box (the ellipses' pyramids)", "polyhedral cone" (CF_FORM_LCP), "cone"; a law the row
 * refuses (the step fails on it) is named so, as in "cone (texture refused)". "none" for NULL.
 * Never NULL: a static string.
 */
const char *cf_solver_law(const cfSolver *s, cfFrictionModel asked, bool ellipses, bool texture);

/** Which rows a listing shows. */
typedef enum cfSolverFilter {
    CF_SOLVERS_ALL = 0,   /**< every row */
    CF_SOLVERS_WORLD,     /**< rows a world can use (cfSolver::contacts) */
    CF_SOLVERS_ASSEMBLED, /**< rows that take an assembled contact problem (FC3D, boxed LCP or LCP form): FC3D files */
    CF_SOLVERS_LCP,       /**< rows that take an LCP (LCP files) */
    CF_SOLVERS_SOFT,      /**< world rows that take soft contacts: the assembled ones and the dual form (chapter 8) */
    CF_SOLVERS_DIRECTIONAL, /**< world rows that take the directional box of texture friction (cfSolver::directional, chapter 10.6) */
    CF_SOLVERS_FILTER_COUNT /**< number of filters */
} cfSolverFilter;

/**
 * The row a program takes for problems of @p filter when none is named: "pgs" (the world's engine)
 * for CF_SOLVERS_ALL and CF_SOLVERS_WORLD, "pgs-blocked" for the assembled forms (FC3D files, the
 * dual form's split position problem) and CF_SOLVERS_SOFT, "lemke" for LCP files, "pgs-texture" for
 * CF_SOLVERS_DIRECTIONAL. It passes
 * @p filter. NULL for a value outside the enum.
 */
const cfSolver *cf_solver_default(cfSolverFilter filter);
/** True when @p s passes @p filter. */
bool cf_solver_matches(const cfSolver *s, cfSolverFilter filter);
/** "a, b, c": the names of the rows passing @p filter, cut to @p cap bytes. Returns @p buf. */
const char *cf_solver_names(cfSolverFilter filter, char *buf, size_t cap);

/**
 * Largest number of unknowns a dense form may have (rows "baraff" and "lemke" factor or invert
 * a dense matrix of that size: 4000 unknowns are 128 MB per matrix).
 */
#define CF_DENSE_MAX_UNKNOWNS 4000

/**
 * Scratch of one solver on assembled contact problems: the form built from the FC3D problem and
 * the row's own work space. Zero it before first use; free with cf_form_work_free().
 */
typedef struct cfFormWork {
    const cfSolver *solver;  /**< the row whose work space @ref work is (NULL: none yet) */
    void *work;              /**< the row's scratch (cfSolver::release frees it) */
    cfBlcp blcp;             /**< the boxed LCP (CF_FORM_BLCP) */
    cfLcp lcp;               /**< the polyhedral LCP (CF_FORM_LCP) */
    double *x;               /**< the unknowns of the form */
    int cap_x;               /**< entries allocated in @ref x */
    cfFrictionProblem iso;   /**< a problem with ellipses for a row that reads one mu: its isotropic equivalent (chapter 10) */
    double *scale;           /**< the tangent scales S of @ref iso (r_T = S r'_T) */
    int n_scale;             /**< entries of @ref scale in use (2 nc; 0: the row solves the problem as it is) */
    int cap_scale;           /**< entries allocated in @ref scale */
    double *mu4;             /**< a directional row's box (cfContactProblem::mu4): 4 nc coefficients, from the problem's
                                  mu or ellipses by cf_form_build(); the world then writes its texture contacts' own */
    int n_mu4;               /**< entries of @ref mu4 in use (4 nc; 0: the row is not directional) */
    int cap_mu4;             /**< entries allocated in @ref mu4 */
} cfFormWork;

/** Free and zero (releases the row's scratch with its own release). */
void cf_form_work_free(cfFormWork *fw);
/** Make @p fw the work space of row @p s: the scratch of another row is released first (a row's
 *  scratch belongs to that row). The world calls it before a rows-form prepare. */
void cf_form_work_use(cfFormWork *fw, const cfSolver *s);

/**
 * Build the form that @p s consumes from the frictional contact problem @p fc (which must outlive
 * the solve): nothing for CF_FORM_FC3D, the boxed LCP (cf_friction_boxed_lcp(), ch02.6) for
 * CF_FORM_BLCP, the polyhedral LCP with par->directions directions (cf_friction_polyhedral_lcp(),
 * ch02.6) for CF_FORM_LCP. A problem with ellipses (chapter 10) is solved as it is by an
 * anisotropic row; a CF_FORM_BLCP row gets the box of each tangent's own coefficient (the pyramid);
 * every other row gets the isotropic equivalent (cf_fc_isotropic_equivalent(): W' = S W S, q' = S q,
 * for CF_FORM_LCP its polyhedral cone has rays on the ellipse's rim), whose impulses cf_form_solve()
 * maps back, r_T = S r'_T. A directional row (cfSolver::directional, texture friction) gets its
 * form as above and p->mu4 = fw->mu4, the box of each contact's mu or its ellipse's pyramid
 * (mu_t, mu_b, mu_t, mu_b); the world then writes the directional contacts' own boxes with
 * cf_form_directional(). Fills @p p. CF_BAD_INPUT with a message in @p err for a row that does
 * not take contact problems (or takes matrix-free rows) and for a dense form larger than
 * #CF_DENSE_MAX_UNKNOWNS; errors of the builders are passed on.
 */
cfStatus cf_form_build(cfFormWork *fw, const cfSolver *s, const cfFrictionProblem *fc, const cfSolverParams *par,
                       cfContactProblem *p, cfError *err);

/**
 * Give contact @p a of the problem built by cf_form_build() for a directional row the directional
 * box @p mu4 = (mu_+t, mu_+b, mu_-t, mu_-b) (cf_box_project_directional(), chapter 10.6): into
 * fw->mu4 and, for a CF_FORM_BLCP row, into its boxed LCP's tangent bounds (hi = mu_-k lambda_n,
 * lo = -mu_+k lambda_n: cfBlcp::mu, cfBlcp::mu_lo, made on first use). CF_BAD_INPUT for a row that
 * is not directional or @p a out of range, CF_NO_MEMORY.
 */
cfStatus cf_form_directional(cfFormWork *fw, const cfSolver *s, int a, const double mu4[4]);

/**
 * @name One meaning of "converged"
 * Every registered solver is certified on one measure, whatever its own: the common residual, the
 * natural map of the problem it solved divided by the free velocity |q| (Siconos' and Acary et
 * al. 2018's normalization; no division when |q| <= DBL_EPSILON):
 * - CF_FORM_FC3D: cf_fc_residual() (the Coulomb cone, De Saxce's velocity; the ellipses of an
 *   anisotropic row's problem), or cf_fc_box_residual() for a row of cfSolver::friction_model asked
 *   for the box;
 * - a directional row (texture friction): cf_fc_texture_residual() of cfContactProblem::mu4;
 * - CF_FORM_BLCP: cf_blcp_residual() of the boxed LCP (the pyramid);
 * - CF_FORM_LCP: cf_lcp_residual() of the LCP (for a contact problem, the polyhedral cone's);
 * - CF_FORM_ROWS and CF_FORM_DUAL: the world's (cf_world.h: the same natural map of its contacts).
 * A solver's own measure may stop it (a natural-map row gets the tolerance tol |q|, so that its
 * stop meets the common one); "converged" (CF_OK) stands only when the common residual is at or
 * below par->tol (#CF_CONVERGED_TOL_ZERO when it is 0). Otherwise the status is downgraded: CF_STAGNATED
 * (a pivoting method, or an iterative one that stopped before its budget), CF_MAX_ITER (at its
 * budget); CF_DIVERGED when the common residual is not finite. The report keeps both numbers:
 * cfReport::residual (its own measure) and cfReport::common, with cfReport::claimed the status
 * it returned.
 * @{ */

/** The tolerance a request of 0 ("spend the budget": nothing stops early) is checked at: 1e-10, above
 *  the rounding level of the pivoting methods' answers (6e-14 on the Siconos LCPs, 3e-12 on a
 *  degenerate stack of ten). */
#define CF_CONVERGED_TOL_ZERO 1e-10

/**
 * The parameters row @p s gets for problem @p p when @p par is what was asked: a row whose own
 * measure is the natural map of an assembled form stops at tol |q| (its stop then meets the
 * common measure); one whose measure is an impulse change at tol x par->impulse_scale when that is
 * > 0 (the world's m g h); the others as asked.
 */
cfSolverParams cf_solver_own_params(const cfSolver *s, const cfContactProblem *p, const cfSolverParams *par);

/** @p residual / @p scale, or @p residual when @p scale <= DBL_EPSILON: the common residual's normalization. */
double cf_common_relative(double residual, double scale);

/** The common residual of the problem @p p of cf_form_build() at the form's unknowns @p x (its
 *  own variables: the isotropic equivalent's, the polyhedral LCP's); +INFINITY when not finite. */
double cf_form_common_residual(const cfSolver *s, const cfContactProblem *p, const cfSolverParams *par, const double *x);

/**
 * Check the status @p st that row @p s returned against the common residual @p common (see
 * above): the status that stands, also written to @p rep (may be NULL) with cfReport::common,
 * cfReport::common_tol and cfReport::claimed. Statuses other than CF_OK, CF_MAX_ITER and
 * CF_STAGNATED pass through.
 */
cfStatus cf_solver_certify(const cfSolver *s, cfStatus st, double common, const cfSolverParams *par, cfReport *rep);
/** @} */

/**
 * Solve the problem built by cf_form_build() with @p s: @p lambda (3 nc impulses) is the warm
 * start on entry (used when par->warm_start) and the impulses on return, mapped back from the
 * form's unknowns (for the polyhedral LCP: lambda_t = sum_i lambda_i cos theta_i, lambda_b =
 * sum_i lambda_i sin theta_i). The report is the row's; rep->measure is set to cfSolver::measure.
 * Returns the row's status checked by cf_solver_certify() (one meaning of "converged"); @p lambda
 * is written unless the status is CF_BAD_INPUT or a failure before the solve, and is always finite
 * when written.
 */
cfStatus cf_form_solve(cfFormWork *fw, const cfSolver *s, const cfContactProblem *p, const cfSolverParams *par,
                       double *lambda, cfReport *rep);

/**
 * Solve an LCP with a row of form CF_FORM_LCP (`cflab solve` on LCP files): @p x (n values) in/out,
 * the report, the status checked by cf_solver_certify() (the LCP's natural map over |b|). @p fw
 * keeps the row's scratch between calls. CF_BAD_INPUT for a row of another form.
 */
cfStatus cf_solve_lcp(cfFormWork *fw, const cfSolver *s, const cfLcp *lcp, const cfSolverParams *par, double *x,
                      cfReport *rep);

#ifdef __cplusplus
}
#endif
#endif /* CF_SOLVERS_H */
