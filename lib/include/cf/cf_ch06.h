/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch06.h
 * @brief Chapter 6 exercises: non-smooth Newton methods (NCP functions, min-map and
 *        Fischer-Burmeister Newton on the LCP, the boxed LCP by the mid map, the full rigid
 *        contact system with friction, Alart-Curnier Newton on the Coulomb problem, r-scaling).
 *
 * The text is chapters/ch06/README.md; the tests are chapters/ch06/tests/test_ch06.c
 * (`make test-ch6`). Each function marked "ch06.K" is an exercise: its specification here is
 * authoritative. Your implementations go in exercises/ch06/; they may call anything in
 * lib/include/cf/ (cf_problem.h residuals, cf_linalg.h, cf_gmres.h), the "Provided" functions
 * of this header and chapters 1-5.
 * The grader holds each exercise file to docs/grading.md ("What an exercise may use"): helpers
 * and file-scope variables are `static`; from the C library only allocation, memory and string
 * functions, qsort, bsearch, the math library and printing to stdout/stderr; and no file is
 * opened (the library's cf_*_read_siconos(), cf_*_write_siconos() and cf_scene_load() are refused).
 *
 * Every solver of this chapter is one Newton loop (ch06.2, cf_newton_solve()) on a different
 * root problem H(x) = 0: the exercise is the function H and one element of its generalized
 * Jacobian. Conventions: an NCP function psi(a, b) takes the CONSTRAINT value first (a: the
 * velocity w, a gap, a slack inequality) and the MULTIPLIER second (b: x, an impulse, gamma);
 * psi(a, b) = 0 exactly when 0 <= a ⊥ b >= 0. Scaled forms are psi(a, r b) with r > 0
 * (notes 3.3.5): they have the same roots.
 */
#ifndef CF_CH06_H
#define CF_CH06_H

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_contact.h"
#include "cf/cf_linalg.h"
#include "cf/cf_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/** @name Provided: options, the Newton system, the linear solve (provided.c, not exercises)
 *  @{ */

/** The NCP function a solver uses. */
typedef enum cfNcpKind {
    CF_NCP_MINMAP = 0,   /**< \f$\psi(a, b) = \min(a, b)\f$ (ch06.1) */
    CF_NCP_FB,           /**< Fischer-Burmeister \f$\psi(a, b) = a + b - \sqrt{a^2 + b^2}\f$ (ch06.1) */
    CF_NCP_KIND_COUNT    /**< number of kinds */
} cfNcpKind;

/** How the Newton system J d = -H is solved. */
typedef enum cfNewtonLinear {
    CF_NEWTON_LINEAR_AUTO = 0, /**< dense LU up to cfNewtonOptions::dense_max unknowns, GMRES above */
    CF_NEWTON_LINEAR_LU,       /**< dense LU with partial pivoting (written out: no BLAS threads) */
    CF_NEWTON_LINEAR_GMRES     /**< GMRES(m) with a block-Jacobi right preconditioner (cf_gmres()) */
} cfNewtonLinear;

/** Options of every Newton solver of the chapter. Start from cf_newton_options_default(). */
typedef struct cfNewtonOptions {
    int max_iter;           /**< Newton iterations (>= 0; default 50) */
    double tol;             /**< stop when the natural-map residual (absolute) <= tol (default 1e-10) */
    double sigma;           /**< Armijo constant in (0, 1/2) (default 1e-4) */
    int max_backtracks;     /**< step halvings per line search (>= 0; default 30) */
    double penalty;         /**< ch06.3: penalized FB weight in (0, 1]; 1 is plain FB (default 1) */
    bool scale;             /**< ch06.7: r-scaling of the multiplier argument (default true) */
    double eps;             /**< ch06.5: the guard of lambda_t / |lambda_t| (> 0; default 1e-10 N s) */
    cfNewtonLinear linear;  /**< the linear solver (default auto) */
    int dense_max;          /**< auto: dense LU up to this many unknowns (default 2000) */
    int gmres_restart;      /**< GMRES(m): m (default 50) */
    int gmres_max_iter;     /**< GMRES steps per Newton iteration (default 500) */
    double gmres_tol;       /**< GMRES stops at the relative residual min(gmres_tol, |H|): inexact Newton (default 1e-2) */
} cfNewtonOptions;

/** max_iter 50, tol 1e-10, sigma 1e-4, 30 back-tracks, penalty 1, scale, eps 1e-10, auto (LU to 2000), GMRES(50) 500 steps 1e-2. */
cfNewtonOptions cf_newton_options_default(void);

/** Name of an NCP kind ("min-map", "fischer-burmeister"); "unknown" for other values. */
const char *cf_ncp_kind_name(cfNcpKind k);

/**
 * A root problem H(x) = 0 for cf_newton_solve(). cfNewtonSystem::eval writes H(x) (n values)
 * and, when its J is not NULL, appends one element of the generalized Jacobian to J (an n x n
 * triplet list, cleared by the caller; duplicates add up). It returns CF_OK, or an error status
 * that stops the solve. cfNewtonSystem::residual is the stopping measure at x (the natural-map
 * residual of the problem, absolute); it may differ from |H|.
 */
typedef struct cfNewtonSystem {
    int n;                                                                /**< unknowns */
    void *ctx;                                                            /**< passed to the callbacks */
    cfStatus (*eval)(void *ctx, const double *x, double *H, cfTriplets *J); /**< H and, optionally, J */
    double (*residual)(void *ctx, const double *x);                       /**< stopping measure */
    /** optional: the diagonal blocks of the block-Jacobi preconditioner are block_size x block_size (1 when 0) */
    int block_size;
} cfNewtonSystem;

/** Counters of one cf_newton_solve() (for tests and the text). */
typedef struct cfNewtonStats {
    int backtracks;     /**< step halvings over all line searches */
    int fallbacks;      /**< iterations that took the gradient step (the Newton step failed) */
    int singular;       /**< iterations whose Newton matrix was singular (regularized) */
    int linear_iters;   /**< GMRES steps over all iterations (0 with LU) */
} cfNewtonStats;

/**
 * Solve J d = rhs for the Newton direction (provided: the linear algebra is not the lesson).
 * LU or GMRES as o->linear says (GMRES: right block-Jacobi preconditioner of block size
 * @p block, warm start d = 0, relative tolerance min(o->gmres_tol, |rhs|): an inexact Newton
 * step whose error shrinks with |H| keeps the quadratic rate). A singular J (LU's condition estimate below DBL_EPSILON, or a
 * pivot below 1e-13 max|J_ij|, or a singular diagonal block) is regularized once: J + delta I
 * with delta = |rhs| clamped to [1e-10, 1e-2] max(1, max|J_ij|); *regularized is set then. Returns CF_OK, or CF_SINGULAR when even that fails, CF_MAX_ITER /
 * CF_STAGNATED when GMRES does not reach its tolerance (d then holds its best iterate, which
 * the line search may still accept), CF_NO_MEMORY. @p gmres_iters (may be NULL) gets GMRES's step count.
 */
cfStatus cf_newton_direction(const cfCsr *J, const double *rhs, const cfNewtonOptions *o, int block, double *d,
                             bool *regularized, int *gmres_iters);

/** The contract check of a Newton option set: CF_BAD_INPUT with a message naming the field. */
cfStatus cf_newton_options_check(const cfNewtonOptions *o, cfError *err);

/** Check an LCP for a Newton solve: A n x n, finite A, b and x. CF_BAD_INPUT with a message. */
cfStatus cf_lcp_newton_check(const cfLcp *p, const double *x, cfError *err);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch06.1 NCP functions (10 points)
 *  @{ */

/**
 * @brief ch06.1: the minimum map \f$\psi(a, b) = \min(a, b)\f$ (notes Eq.\ 179) and one element
 * of its generalized gradient: (da, db) = (1, 0) when \f$a \le b\f$ (the constraint is active: a
 * TIE IS ACTIVE, notes Eq.\ 182), (0, 1) otherwise. @p da and @p db may be NULL.
 * Worked example: min(-1, 2) = -1 with (1, 0); min(3, 3) = 3 with (1, 0); min(2, -1) = -1 with (0, 1).
 */
double cf_ncp_minmap(double a, double b, double *da, double *db);

/**
 * @brief ch06.1: Fischer-Burmeister \f$\psi(a, b) = a + b - \sqrt{a^2 + b^2}\f$ (notes Eq.\ 184)
 * and its partials (Eq.\ 185-186)
 * \f[ \alpha = \frac{\partial\psi}{\partial a} = 1 - \frac{a}{\sqrt{a^2 + b^2}}, \qquad
 *     \beta = \frac{\partial\psi}{\partial b} = 1 - \frac{b}{\sqrt{a^2 + b^2}}; \f]
 * at (0, 0), where \f$\psi\f$ is not differentiable, \f$\alpha = 0\f$ and \f$\beta = 1\f$
 * (Eq.\ 187-188). @p da and @p db may be NULL.
 *
 * Two numerical details are part of the exercise (the test checks both):
 * - \f$s = \sqrt{a^2 + b^2}\f$ as `hypot(a, b)`: `sqrt(a*a + b*b)` overflows at \f$10^{300}\f$;
 * - for a > 0 and b > 0, \f$a + b - s\f$ cancels every digit when \f$a \gg b\f$
 *   (\f$\psi(10^8, 10^{-8}) = 10^{-8}\f$, not 0): use the equal form
 *   \f$2ab/(a + b + s)\f$ (from \f$(a + b)^2 - s^2 = 2ab\f$), evaluated as `2 * a * (b / (a + b + s))`:
 *   the product 2ab written first overflows for \f$a = b = 10^{300}\f$ although \f$\psi\f$ is finite
 *   (\f$(2 - \sqrt{2}) \cdot 10^{300}\f$, which the test demands). Otherwise (a sign <= 0) \f$a + b - s\f$
 *   has no cancellation.
 * Finite for \f$|a|, |b| \le\f$ DBL_MAX / 4 (then \f$a + b + s\f$ does not overflow).
 * Worked example: \f$\psi(1, 1) = 2 - \sqrt{2}\f$; \f$\psi(0, 5) = \psi(3, 0) = 0\f$;
 * \f$\psi(-1, 2) = 1 - \sqrt{5}\f$. Facts: \f$\alpha, \beta \in [0, 2]\f$,
 * \f$\alpha + \beta \ge 2 - \sqrt{2}\f$.
 */
double cf_ncp_fb(double a, double b, double *da, double *db);

/**
 * @brief ch06.1: the scaled and penalized NCP function \f$\psi(a, r b)\f$ of kind @p kind with
 * partials with respect to a and b (chain rule: \f$\partial/\partial b = r\, \psi_2(a, r b)\f$).
 * For CF_NCP_FB and @p penalty < 1 it is the penalized Fischer-Burmeister function of Chen, Chen
 * and Kanzow (2000) in this sign convention:
 * \f[ \psi_p(a, c) = p\, \psi_{FB}(a, c) - (1 - p) \max(a, 0) \max(c, 0), \qquad c = r b; \f]
 * its partials add \f$-(1 - p) \max(c, 0)\, [a > 0]\f$ and \f$-(1 - p) \max(a, 0)\, [c > 0]\f$
 * (times r for b). @p penalty is ignored for the min map. @p da, @p db may be NULL.
 * Worked example: min map with r = 1/4: \f$\psi(-1/8, \tfrac14 \cdot 1) = -1/8\f$ with (1, 0).
 */
double cf_ncp_eval(cfNcpKind kind, double a, double b, double r, double penalty, double *da, double *db);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch06.2 The Newton loop and min-map Newton for the LCP (20 points)
 *  Some of its tests also call ch06.1 and ch06.7: write those first.
 *  @{ */

/**
 * @brief ch06.2: the damped non-smooth Newton method on @p sys from x (in/out).
 *
 * With \f$\theta(x) = \tfrac12 \|H(x)\|^2\f$:
 * 1. r_0 = sys->residual(x); if r_0 <= o->tol return CF_OK at once (0 iterations).
 * 2. For k = 1 .. o->max_iter: evaluate H and J at x (eval), convert J to CSR
 *    (cf_csr_from_triplets()), solve \f$J d = -H\f$ (cf_newton_direction(), block size
 *    sys->block_size); then Armijo back-tracking: t = 1, 1/2, 1/4, ... at most
 *    o->max_backtracks halvings, accept the first t with
 *    \f[ \theta(x + t d) \le (1 - 2 \sigma t)\, \theta(x) \f]
 *    (for the Newton direction \f$\nabla\theta \cdot d = -\|H\|^2\f$).
 *    FALLBACK, when the direction could not be computed or no t was accepted: the steepest
 *    descent direction \f$d = -J^T H\f$ with the Armijo rule
 *    \f$\theta(x + t d) \le \theta(x) - \sigma t \|J^T H\|^2\f$; if that fails too, stop with
 *    CF_STAGNATED (x is the last accepted iterate).
 *    \f$x \leftarrow x + t d\f$; \f$r_k\f$ = sys->residual(x) is pushed to the history; stop with
 *    CF_OK when \f$r_k \le\f$ o->tol.
 * 3. CF_MAX_ITER when the budget is spent, CF_DIVERGED (and x restored to the last finite
 *    iterate) if H or r becomes non-finite.
 * The report (may be NULL, as for every solver of the chapter: ::cfReport) holds the status,
 * reason, iterations, the last r and the time; @p stats (may be NULL) the counters. Errors of eval and CF_NO_MEMORY are returned as they are.
 */
cfStatus cf_newton_solve(const cfNewtonSystem *sys, const cfNewtonOptions *o, double *x, cfReport *rep,
                         cfNewtonStats *stats);

/**
 * @brief ch06.2: H and J of the min-map reformulation of the LCP (A, b):
 * \f$H_i = \min(w_i, r_i x_i)\f$ with \f$w = A x + b\f$ (cf_ncp_eval(CF_NCP_MINMAP, ...));
 * generalized Jacobian row i: \f$d_a A_i + d_b\, r_i e_i^T\f$, i.e.\ the row of A when the
 * tie-active rule picks \f$w_i\f$, \f$r_i e_i^T\f$ otherwise. @p r (n values > 0) may be NULL for r = 1. @p J may be NULL.
 */
cfStatus cf_lcp_minmap_eval(const cfLcp *p, const double *r, const double *x, double *H, cfTriplets *J);

/**
 * @brief ch06.2: min-map Newton on the LCP (provided wrapper over the two functions above):
 * r = cf_lcp_r_scaling() when o->scale, else 1; stopping measure cf_lcp_residual().
 * CF_BAD_INPUT (rep->status set) when cf_lcp_newton_check() or cf_newton_options_check() fails.
 * Worked example (notes 3.3.1's tie rule): on the all-active 1D stack it stops after ONE iteration at every
 * mass ratio, where PGS needs thousands of sweeps.
 */
cfStatus cf_lcp_newton_minmap(const cfLcp *p, const cfNewtonOptions *o, double *x, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch06.3 Fischer-Burmeister Newton for the LCP (10 points)
 *  Some of its tests also call ch06.1, ch06.2 and ch06.7: write those first.
 *  @{ */

/**
 * @brief ch06.3: H and J of the (penalized) Fischer-Burmeister reformulation:
 * \f$H_i = \psi(w_i, r_i x_i)\f$ with cf_ncp_eval(CF_NCP_FB, ..., @p penalty); Jacobian row i:
 * \f$d_a A_i + d_b\, e_i^T\f$ (\f$d_b\f$ already holds the factor \f$r_i\f$). @p r may be NULL (r = 1), @p J may be NULL.
 */
cfStatus cf_lcp_fb_eval(const cfLcp *p, const double *r, double penalty, const double *x, double *H, cfTriplets *J);

/**
 * @brief ch06.3: Fischer-Burmeister Newton on the LCP (provided wrapper): cf_newton_solve() on
 * cf_lcp_fb_eval() with o->penalty, r as in cf_lcp_newton_minmap(); stopping measure
 * cf_lcp_residual() (the natural map, so every LCP solver stops on the same number).
 */
cfStatus cf_lcp_newton_fb(const cfLcp *p, const cfNewtonOptions *o, double *x, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch06.4 The boxed LCP by the mid map (10 points)
 *  Some of its tests also call ch06.2 and ch06.7: write those first.
 *  @{ */

/**
 * @brief ch06.4: H and J of the mid-map reformulation of the boxed LCP:
 * \f[ H_i = x_i - \mathrm{mid}(lo_i,\ x_i - w_i / r_i,\ hi_i) \f]
 * with \f$w = A x + b\f$, the effective bounds of cf_blcp_bounds() (a friction row's bounds are
 * \f$\pm\mu \max(x_{findex}, 0)\f$) and \f$r_i > 0\f$ (the scaling of the multiplier:
 * \f$r_i H_i = r_i x_i - \mathrm{mid}(r_i lo_i, r_i x_i - w_i, r_i hi_i)\f$, the LCP rows are the
 * min map \f$\psi(w_i, r_i x_i) / r_i\f$).
 * Generalized Jacobian, with \f$y = x_i - w_i / r_i\f$:
 * - lo_i < y < hi_i, and the TIES y = lo_i, y = hi_i (tie active, as the min map): H_i = w_i / r_i,
 *   row A_i / r_i;
 * - y < lo_i: H_i = x_i - lo_i, row e_i - d lo_i / dx (for a friction row lo = -mu max(x_f, 0):
 *   + mu at column f when x_f > 0);
 * - y > hi_i: H_i = x_i - hi_i, row e_i - d hi_i / dx (- mu at column f when x_f > 0).
 * @p r may be NULL (r = 1), @p J may be NULL.
 */
cfStatus cf_blcp_midmap_eval(const cfBlcp *p, const double *r, const double *x, double *H, cfTriplets *J);

/**
 * @brief ch06.4: Newton on the boxed LCP (provided wrapper): cf_newton_solve() on
 * cf_blcp_midmap_eval(), r_i = A_ii when o->scale (else 1), stopping measure cf_blcp_residual().
 * The same boxed LCPs chapters 4 and 5 solve (cf_friction_boxed_lcp()) go through it.
 */
cfStatus cf_blcp_newton(const cfBlcp *p, const cfNewtonOptions *o, double *x, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch06.5 The full contact system with friction (notes Eq.\ 198-199) (15 points)
 *  Some of its tests also call ch06.1 and ch06.2: write those first.
 *  @{ */

/**
 * The rigid contact system of notes Eq.\ 198 for nb dynamic bodies and nc contacts.
 * Unknowns x = (u [6 nb], then per contact a: lambda_n, lambda_t, lambda_b, gamma): body
 * velocities (v, w) after the step, contact impulses (n, t, b) and the friction slack gamma (the
 * notes print it as beta). Contact a's four unknowns are at 6 nb + 4 a + (0, 1, 2, 3).
 * Fill it with cf_contact_system_rigid() (provided); free with cf_contact_system_free().
 */
typedef struct cfContactSystem {
    int nb;          /**< dynamic bodies (fixed bodies are not unknowns) */
    int nc;          /**< contacts */
    double *M;       /**< nb mass blocks, 6x6 row-major: diag(m, m, m) and the world inertia */
    double *p;       /**< M u* (6 nb): the momentum after the free step (u* = velocities given) */
    cfBsr J;         /**< contact Jacobian, nc x nb blocks of 3x6 (cf_rigid_jacobian_bsr() columns mapped to the dynamic bodies) */
    double *bias;    /**< nc normal velocity biases (phi / h; erp phi / h when penetrating) */
    double *mu;      /**< nc friction coefficients */
} cfContactSystem;

/**
 * Build the system of the bodies' current velocities (the free velocities u*) and contacts
 * (frames filled) with time step @p h and Baumgarte factor @p erp (provided). Fixed bodies and
 * the environment are not unknowns. CF_BAD_INPUT for h <= 0, erp outside [0, 1] and the errors
 * of the chapter-2 Jacobian. Allocates.
 */
cfStatus cf_contact_system_rigid(const cfRigidBody *bodies, int n_bodies, const cfContact *contacts, int nc,
                                 double h, double erp, cfContactSystem *s);
/** Free and zero. */
void cf_contact_system_free(cfContactSystem *s);
/** Number of unknowns 6 nb + 4 nc. */
int cf_contact_system_size(const cfContactSystem *s);

/**
 * @brief ch06.5: the residual F(x) of notes Eq.\ 198 and its Jacobian (Eq.\ 199). With v = J u
 * (contact velocities), and per contact a, \f$n_\epsilon = \sqrt{\|\lambda_t\|^2 + \epsilon^2}\f$:
 * - rows 0 .. 6nb-1: \f$M u - p - J^T \lambda\f$ (Newton-Euler with the impulses);
 * - normal row of a: \f$\psi(v_n + \mathrm{bias}_a, r \lambda_n)\f$ (the notes' \f$\psi_n\f$ with
 *   velocities, Eq.\ 198);
 * - two tangent rows of a: \f$s = v_t + \gamma\, \lambda_t / n_\epsilon\f$ (the KKT stationarity of
 *   maximal dissipation, Eq.\ 194, with the eps guard: finite at \f$\lambda_t = 0\f$);
 * - slack row of a: \f$\psi(\mu \lambda_n - \|\lambda_t\|, r \gamma)\f$ (Eq.\ 197; the plain norm,
 *   so a free contact can satisfy it exactly).
 * The rows are stacked like the unknowns: the 6 nb momentum rows, then per contact (normal, t,
 * b, slack), so row 6 nb + 4 a + k belongs to contact a.
 * Jacobian blocks (Eq.\ 199): d/du of the momentum rows M, d/dlambda -J^T; normal row
 * da J_n (u) and db r (lambda_n); tangent rows J_t (u), gamma (I - l l^T / n_eps^2) / n_eps
 * (lambda_t) and lambda_t / n_eps (gamma); slack row da mu (lambda_n), -da lambda_t / |lambda_t|
 * (lambda_t; 0 at lambda_t = 0), db r (gamma). Non-symmetric.
 * @p kind picks the NCP function (min map or FB, penalty 1), @p r > 0 its scaling, @p J may be NULL.
 * Worked example: one particle (m = 1, n = z) sliding with u* = (2, 0, -1), mu = 0.5, bias 0:
 * the root is u = (1.5, 0, 0, 0, 0, 0), (lambda, gamma) = (1, -0.5, 0, 1.5).
 */
cfStatus cf_contact_system_eval(const cfContactSystem *s, cfNcpKind kind, double r, double eps, const double *x,
                                double *F, cfTriplets *J);

/**
 * @brief ch06.5: Newton on the contact system (provided wrapper): cf_newton_solve() on
 * cf_contact_system_eval() with o->eps, r = 1, the linear solve of o->linear (dense LU for small
 * systems, GMRES for large ones); stopping measure |F(x)| (absolute). x (6 nb + 4 nc values) is
 * the initial guess: u = u*, zero impulses and slack is a good one.
 */
cfStatus cf_contact_system_newton(const cfContactSystem *s, cfNcpKind kind, const cfNewtonOptions *o, double *x,
                                  cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch06.6 Alart-Curnier Newton on the Coulomb problem (FC3D) (20 points)
 *  Some of its tests also call ch06.2 and ch06.7: write those first.
 *  @{ */

/**
 * @brief ch06.6: the Alart-Curnier function of the frictional contact problem (W, q, mu) and
 * its generalized Jacobian (Alart and Curnier 1991; Siconos' NSN-AC). With u = W r + q and, per
 * contact a, its scaling rho_a > 0 (NULL: 1):
 * \f[ y_n = r_n - \rho u_n, \qquad \Phi_n = r_n - \max(0, y_n); \f]
 * \f[ y_T = r_T - \rho u_T, \qquad R = \mu \max(0, y_n), \qquad \Phi_T = r_T - P_{D(R)}(y_T), \f]
 * with \f$P_{D(R)}\f$ the projection onto the disk of radius R. \f$\Phi(r) = 0\f$ exactly at a
 * solution of Signorini + Coulomb (cf_fc_residual() = 0). Generalized Jacobian
 * \f$\partial\Phi/\partial r = A + B W\f$ with the per-contact 3x3 blocks (TIES ACTIVE:
 * \f$y_n = 0\f$ counts as \f$y_n > 0\f$, \f$\|y_T\| = R\f$ as inside):
 * - normal: \f$y_n \ge 0\f$: \f$A_{nn} = 0\f$, \f$B_{nn} = \rho\f$; \f$y_n < 0\f$: \f$A_{nn} = 1\f$, \f$B_{nn} = 0\f$;
 * - tangent inside (\f$\|y_T\| \le R\f$): \f$A_{TT} = 0\f$, \f$B_{TT} = \rho I\f$;
 * - tangent outside (\f$\|y_T\| > R\f$), with \f$e = y_T / \|y_T\|\f$ and
 *   \f$G = \frac{R}{\|y_T\|} (I - e e^T)\f$: \f$A_{TT} = I - G\f$, \f$B_{TT} = \rho G\f$, and when
 *   \f$y_n \ge 0\f$ (R moves with \f$r_n\f$; tie active): \f$A_{Tn} = -\mu e\f$,
 *   \f$B_{Tn} = +\mu \rho e\f$ (the radius' derivative through \f$y_n\f$).
 *
 * Block (a, b) of the Jacobian is \f$A_a [a = b] + B_a W_{ab}\f$: the sparsity of W.
 * @p J may be NULL.
 */
cfStatus cf_fc_ac_eval(const cfFrictionProblem *p, const double *rho, const double *r, double *Phi, cfTriplets *J);

/**
 * @brief ch06.6: Alart-Curnier Newton on a frictional contact problem (provided wrapper):
 * cf_newton_solve() with block size 3, rho = cf_fc_rho_scaling() when o->scale (else 1),
 * stopping measure cf_fc_residual() (absolute: pass tol = 1e-8 |q| for Siconos' err/|q| <= 1e-8).
 * CF_BAD_INPUT for a problem that is not made of 3x3 blocks, a negative mu or non-finite data.
 */
cfStatus cf_fc_newton_ac(const cfFrictionProblem *p, const cfNewtonOptions *o, double *r, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch06.7 r-scaling as a preconditioner (notes 3.3.5) (15 points)
 *  Some of its tests also call ch06.1, ch06.2 and ch06.6: write those first.
 *  @{ */

/**
 * @brief ch06.7: the r-scaling of an LCP's NCP functions \f$\psi(w_i, r_i x_i)\f$:
 * \f$r_i = A_{ii}\f$ when \f$A_{ii} > 0\f$, else 1 (a zero or negative diagonal gives no scale).
 * With it the two branches of the min map have the same slope along \f$x_i\f$: on a diagonal A,
 * \f$\min(A_{ii} x_i + b_i, A_{ii} x_i)\f$ has no kink in \f$x_i\f$'s direction and Newton
 * converges in one step from any start (notes Fig.\ 23: \f$c(\lambda) = \lambda/4 - 1/8\f$, r = 1/4).
 */
void cf_lcp_r_scaling(const cfLcp *p, double *r);

/**
 * @brief ch06.7: the per-contact scaling \f$\rho_a\f$ of the Alart-Curnier function:
 * \f$\rho_a = 1 / W_{aa,nn}\f$ when the diagonal entry \f$W_{aa,nn}\f$ is > 0, else 1 (\f$\rho u_n\f$ then has the units of an impulse and
 * is of the size of r_n: the same parallel-branches argument, notes Fig.\ 23). Needs the diagonal
 * blocks of W stored.
 */
void cf_fc_rho_scaling(const cfFrictionProblem *p, double *rho);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH06_H */
