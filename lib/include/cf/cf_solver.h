/* SPDX-License-Identifier: MIT */
/**
 * @file cf_solver.h
 * @brief The contact-solver interface: the problem forms a solver consumes, the parameters every
 *        solver takes, and the row (::cfSolver) that describes one solver.
 *
 * Every contact solver of chapters 4-8 is one ::cfSolver: its name, its chapter, the problem form
 * it consumes, an optional prepare, a solve and what its history measures. The table of rows is
 * the simulation layer's (`sim/solvers.c`, cf_solvers.h); the world, `cflab run --solver`,
 * `cflab solve --solver`, the scene key "solver", the viewer and every help text read that table.
 * Adding a solver is its chapter file plus one row (docs/adding-a-chapter.md).
 *
 * The contract of a row's solve, whatever the form:
 * - x (in/out) holds the unknowns of the form (see ::cfProblemForm); its value on entry is the
 *   warm start (zero when warm starting is off);
 * - on return x holds the solver's answer, the report says how it went (status, iterations,
 *   residual in the measure of cfSolver::measure, history) and the return value is the status;
 *   a used-up budget (CF_MAX_ITER) or stagnation still leaves a usable x;
 * - a solver never turns velocities into anything: the caller maps x back to impulses and applies
 *   them once, the same way for every solver; the one exception is a matrix-free row with
 *   cfSolver::velocities, whose sweeps already hold u* + M^-1 J^T x (summed in their own order,
 *   so equal to the caller's apply to rounding): it leaves the moving bodies at those velocities
 *   and the caller does not apply x again.
 */
#ifndef CF_SOLVER_H
#define CF_SOLVER_H

#include <stdint.h>

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_contact.h"
#include "cf/cf_dual.h"
#include "cf/cf_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Order in which a Gauss-Seidel sweep visits its variables or contacts (chapter 5). */
typedef enum cfOrdering {
    CF_ORDER_SEQUENTIAL = 0, /**< 0, 1, ..., n-1 in every sweep */
    CF_ORDER_SYMMETRIC,      /**< forward on even sweeps (0, 2, ...), backward on odd ones */
    CF_ORDER_RANDOM,         /**< a fresh random permutation per sweep (cf_rng, seeded) */
    CF_ORDER_COUNT           /**< number of orderings */
} cfOrdering;

/** Name of an ordering ("sequential", "symmetric", "random"); "unknown" for other values. */
const char *cf_ordering_name(cfOrdering o);

/** How the PROX solvers of chapter 7 choose their r-factors (the step of each fixed-point map). */
typedef enum cfRFactor {
    CF_RFACTOR_LOCAL = 0, /**< r_i = 1/A_ii per row: PGS's step (the default) */
    CF_RFACTOR_GLOBAL,    /**< one r for every row (1/|A|_2 unless given) */
    CF_RFACTOR_BLOCKED,   /**< per contact 1/A_nn and the inverse of the friction block */
    CF_RFACTOR_COUNT      /**< number of strategies */
} cfRFactor;

/** Name of an r-factor strategy ("local", "global", "blocked"); "unknown" for other values. */
const char *cf_rfactor_name(cfRFactor r);

/** The form of a contact problem a solver consumes. */
typedef enum cfProblemForm {
    /** Matrix-free rows: the rigid bodies and their contacts themselves (cfContactProblem::bodies,
     *  contacts, h, erp, cfm); nothing is assembled. x: 3 nc impulses (n, t, b) per contact. */
    CF_FORM_ROWS = 0,
    /** The assembled frictional contact problem (W, q, mu) of cf_problem.h, as Siconos' FC3D.
     *  x: 3 nc impulses. */
    CF_FORM_FC3D,
    /** The boxed LCP of the friction pyramid built from the FC3D problem (cf_friction_boxed_lcp()).
     *  x: 3 nc impulses. */
    CF_FORM_BLCP,
    /** An LCP. From a contact problem: the polyhedral cone with cfSolverParams::directions
     *  friction directions (cf_friction_polyhedral_lcp()); x: its nc (k + 2) unknowns. */
    CF_FORM_LCP,
    /** The dual form with its dynamics (cf_dual.h, chapter 8): the system A u+ = b + J^T lambda of
     *  every body that moves and the contact rows, so that the solver chooses how it anticipates
     *  A^-1 (cfSolverParams::preconditioner). x: 3 nc impulses. Such a solver also writes the
     *  velocities u (cfContactProblem::u, n values) that go with its impulses under its choice
     *  (lumped: M^-1 (b + J^T x); exact: A^-1 (b + J^T x); ICA: its converged iterate): the
     *  preconditioner is part of the dynamics, so this form's apply is the solver's. */
    CF_FORM_DUAL,
    CF_FORM_COUNT /**< number of forms */
} cfProblemForm;

/** Name of a form ("rows", "fc3d", "blcp", "lcp", "dual"); "unknown" for other values. */
const char *cf_form_name(cfProblemForm f);

/**
 * How a dual-form solver anticipates A^-1 in W_P = J P J^T (notes 4.3, Table 4; chapter 8).
 * The world's soft bodies follow the choice: the lumped method is explicit in the forces.
 */
typedef enum cfPreconditioner {
    CF_PRECOND_EXACT = 0,      /**< W_A = J A^-1 J^T by Algorithm 15 on a sparse Cholesky factor (the default) */
    CF_PRECOND_LUMPED,         /**< W_M = J M^-1 J^T: explicit forces, lumped mass, matrix-free PGS */
    CF_PRECOND_BLOCK_DIAGONAL, /**< W_D = J D_A^-1 J^T inside ICA's splitting (Otaduy et al.\ 2009) */
    CF_PRECOND_PCG_JACOBI,     /**< W_A by Algorithm 15 with each solve by PCG, 3x3 block-Jacobi preconditioned */
    CF_PRECOND_PCG_IC,         /**< W_A by Algorithm 15 with each solve by PCG, incomplete-Cholesky preconditioned */
    CF_PRECONDITIONER_COUNT    /**< number of preconditioners */
} cfPreconditioner;

/** Name of a preconditioner ("exact", "lumped", "block-diagonal", "pcg-jacobi", "pcg-ic"); "unknown" otherwise. */
const char *cf_preconditioner_name(cfPreconditioner p);

/** The parameters every solver takes; each row maps them to its own options. */
typedef struct cfSolverParams {
    int max_iter;             /**< iterations or sweeps allowed (>= 0) of the iterative solvers */
    int max_pivots;           /**< pivots allowed to the pivoting solvers (0: the method's own limit, 100 n + 1000) */
    double tol;               /**< stop when the solver's own measure is <= tol (>= 0; 0 spends the whole budget) */
    double omega;             /**< relaxation in (0, 2) of the splitting solvers */
    cfOrdering ordering;      /**< sweep order of the Gauss-Seidel solvers */
    uint64_t seed;            /**< seed of the random ordering */
    cfFrictionModel friction; /**< cone or box, for the solvers that offer both */
    int directions;           /**< friction directions of the polyhedral cone (CF_FORM_LCP; 3..64) */
    cfRFactor r_factor;       /**< r-factor strategy of the PROX solvers (chapter 7) */
    bool warm_start;          /**< x holds a previous answer (false: x is zero on entry) */
    cfPreconditioner preconditioner; /**< CF_FORM_DUAL: how A^-1 is anticipated */
    double soft_tol;          /**< CF_FORM_DUAL: > 0: an absolute tolerance on the soft rows' own residuals (ICA's contact and
                                   dynamics residuals, the CA PGS's stop) in place of tol, ICA's 5 % change rule off; 0: tol and the paper's rules */
    double impulse_scale;     /**< N s, >= 0: the scale of the problem's impulses (a world's mean body mass x |g| x dt), by which a
                                   row whose own measure is an impulse change has its tolerance made relative, tol x impulse_scale,
                                   so that millimetre and kilometre worlds stop alike; 0: tol is taken as it is (a file has no masses) */
} cfSolverParams;

/** max_iter 20, max_pivots 0, tol 0, omega 1, sequential, seed 1, cone, 8 directions, local r-factors, warm start, exact, soft_tol 0, impulse_scale 0. */
cfSolverParams cf_solver_params_default(void);

/**
 * A contact problem handed to a solver: the members of the row's form are set, the others are
 * zero. The caller owns everything.
 */
typedef struct cfContactProblem {
    cfProblemForm form;            /**< which members below are set */
    int nc;                        /**< contacts (for every form) */
    /* CF_FORM_ROWS */
    cfRigidBody *bodies;           /**< rigid bodies; the solver may use their velocities as scratch */
    int nb;                        /**< rigid bodies */
    cfContact *contacts;           /**< contacts, frames filled (ch02.2); rigid sides only */
    double h;                      /**< time step (s): the normal bias is phi / h, or erp phi / h when penetrating */
    double erp;                    /**< Baumgarte factor of penetrating contacts in [0, 1] */
    double cfm;                    /**< constraint force mixing (>= 0) on the normal diagonal */
    cfVec3 gravity;                /**< the world's gravity (m/s^2), already in the bodies' velocities; a
                                        solver that substeps (soft-step) hands it out per substep */
    const double *impact;          /**< NULL, or per contact Newton's impact target e u_n^- (< 0) of a contact
                                        that impacts this step, 0 for the others: the normal bias becomes
                                        min(bias, impact[a]), so that u_n^+ >= -e u_n^- (the world's rule,
                                        cf_world.h: restitution) */
    /* the assembled forms */
    const cfFrictionProblem *fc;   /**< CF_FORM_FC3D (also set with BLCP and LCP when built from one) */
    const cfBlcp *blcp;            /**< CF_FORM_BLCP */
    const cfLcp *lcp;              /**< CF_FORM_LCP */
    const double *mu4;             /**< a row of cfSolver::directional (FC3D or BLCP form): 4 nc directional
                                        coefficients (mu_+t, mu_+b, mu_-t, mu_-b) per contact, the box of
                                        cf_box_project_directional() (texture friction, chapter 10.6); an
                                        isotropic contact has (mu, mu, mu, mu), an ellipse (mu_t, mu_b, mu_t,
                                        mu_b): its pyramid. NULL for every other row */
    /* CF_FORM_DUAL */
    const cfDualSystem *dual;      /**< the system (nc = dual->nc) */
    double *u;                     /**< out: dual->n velocities that go with x (see CF_FORM_DUAL) */
} cfContactProblem;

/**
 * One contact solver: a row of the registry. A row's functions never keep state outside
 * @p work, which the caller owns between calls and frees with cfSolver::release.
 */
typedef struct cfSolver {
    const char *name;        /**< as in scene files and on the command line: "pgs", "lemke", ... */
    int chapter;             /**< chapter whose exercise (or reference path) it runs */
    cfProblemForm form;      /**< the form it consumes */
    bool contacts;           /**< solves frictional contact problems (a world, FC3D files); false: LCP files only */
    bool dense;              /**< a pivoting method on a dense matrix of all its unknowns (the caller limits the size;
                                  it runs to an answer or fails: a used-up pivot budget is a failure) */
    bool anisotropic;        /**< solves friction ellipses itself (cfFrictionProblem::ellipse, chapter 10); the world gives other assembled rows an equivalent form, and refuses anisotropic contacts to matrix-free rows */
    bool directional;        /**< solves the directional box of texture friction (CF_LAW_DIRECTIONAL, chapter 10.6),
                                  asymmetric per tangent: a CF_FORM_FC3D row reads cfContactProblem::mu4, a CF_FORM_BLCP row
                                  the bounds of its boxed LCP (cfBlcp::mu_lo), every bound through cf_blcp_bounds(); the
                                  world refuses directional contacts to every other row */
    bool ordered;            /**< reads cfSolverParams::ordering; false: it sweeps in one order only (sequential) */
    bool split_only;         /**< moves positions only through its split stage (the soft step's substeps): no velocity bias,
                                  so a world with stabilization "baumgarte" is refused (cf_world_def_check) */
    bool velocities;         /**< CF_FORM_ROWS: the solve leaves every moving body (not fixed) at the velocity of its own
                                  sweeps, u* + M^-1 J^T x to rounding, so the world does not apply x again (the fast
                                  rows; the reference rows leave that to the world's one apply) */
    bool no_impacts;         /**< CF_FORM_ROWS: does not read cfContactProblem::impact, so a world step with an impact
                                  (restitution > 0) fails naming the solver */
    bool friction_model;     /**< reads cfSolverParams::friction (the cone or the box); false: one model only, the cone
                                  (the boxed LCP's rows: the pyramid), and a friction asked of it is refused */
    bool r_factors;          /**< reads cfSolverParams::r_factor (chapter 7's PROX rows); false: another strategy is refused */
    cfMeasure measure;       /**< what the report's residual and history hold */
    const char *summary;     /**< one line for help texts */
    const char *counts;      /**< what cfReport::iterations counts, for messages ("solves"); NULL: "pivots" for a dense row, "sweeps" for the others */
    const char *refused;     /**< what CF_BAD_INPUT from the solve means for this row ("needs a symmetric matrix"); NULL: "input refused" */
    const char *infeasible;  /**< what CF_INFEASIBLE from the solve means for this row (Lemke's ray termination); NULL: an unbounded drive */
    /** CF_FORM_ROWS: precompute the rows (the world's assemble stage); NULL for assembled forms. */
    cfStatus (*prepare)(void **work, const cfContactProblem *p, const cfSolverParams *par);
    /** Solve (see the file comment for the contract). */
    cfStatus (*solve)(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep);
    /**
     * CF_FORM_ROWS, optional: split-impulse pseudo-velocities after the positions moved, on the
     * rows of the last prepare: normal rows only, @p sweeps projected Gauss-Seidel sweeps that remove
     * the fraction @p erp of the predicted penetration phi + h u_n beyond @p slop. Writes 6 values per
     * body (v, w) to @p pv (zero for bodies nothing pushes). NULL: the solver has no such stage and the
     * world stabilizes with Baumgarte instead.
     */
    cfStatus (*split)(void *work, const cfContactProblem *p, double erp, double slop, int sweeps, double *pv);
    /** Free the scratch space (NULL when the row keeps none). */
    void (*release)(void *work);
} cfSolver;

#ifdef __cplusplus
}
#endif
#endif /* CF_SOLVER_H */
