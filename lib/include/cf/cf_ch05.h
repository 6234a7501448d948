/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch05.h
 * @brief Chapter 5 exercises: splitting methods (projected Jacobi, PGS, PSOR, boxed PGS, blocked
 *        Gauss-Seidel, ordering and staggering, subspace minimization, NNCG) and the matrix-free
 *        blocked PGS that drives the rigid-body simulator.
 *
 * The text is chapters/ch05/README.md; the tests are chapters/ch05/tests/test_ch05.c
 * (`make test-ch5`). Each function marked "ch05.K" is an exercise: its specification here is
 * authoritative. Your implementations go in exercises/ch05/; they may call anything in
 * lib/include/cf/ (cf_problem.h residuals, cf_linalg.h, cf_rng.h), the "Provided" functions of
 * this header and chapters 1-3 (cf_ch01.h, cf_ch02.h, cf_ch03.h).
 * The grader holds each exercise file to docs/grading.md ("What an exercise may use"): helpers
 * and file-scope variables are `static`; from the C library only allocation, memory and string
 * functions, qsort, bsearch, the math library and printing to stdout/stderr; and no file is
 * opened (the library's cf_*_read_siconos(), cf_*_write_siconos() and cf_scene_load() are refused).
 *
 * Conventions (docs/conventions.md): LCP w = A x + b, 0 <= x ⊥ w >= 0; boxed LCP and frictional
 * contact problems as in cf_problem.h; impulses per contact ordered (n, t, b) in N s.
 *
 * Every iterative solver here has the same shape: problem in, options in, x in/out (the initial
 * guess: warm start), a ::cfReport out. After each sweep k = 1, 2, ... the solver computes its
 * residual r_k (the measure is stated per solver), pushes it to the report's history and asks
 * cf_split_stop() whether to stop; the reason and the matching status end up in the report via
 * cf_split_finish(). Before the first sweep the residual r_0 of the initial guess is computed; if
 * it is already <= tol_abs the solver returns at once with 0 iterations and reason ABSOLUTE.
 * @p rep may be NULL (::cfReport; the tests pass NULL): cf_split_finish() and the other provided
 * helpers accept it, and your own history pushes are guarded (`if (rep) cf_report_push(...)`).
 */
#ifndef CF_CH05_H
#define CF_CH05_H

#include <stdint.h>

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_contact.h"
#include "cf/cf_problem.h"
#include "cf/cf_rng.h"
#include "cf/cf_solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/** @name Provided: options, stopping rules, orderings (provided.c, not exercises)
 *  @{ */

/** Options shared by the splitting solvers. Start from cf_split_options_default(). */
typedef struct cfSplitOptions {
    int max_iter;        /**< sweeps allowed (>= 0; default 1000) */
    double tol_abs;      /**< stop when r_k <= tol_abs (default 1e-10) */
    double tol_rel;      /**< stop when r_k <= tol_rel r_0 (0 disables; default 0) */
    double tol_stag;     /**< stop when |x_k - x_{k-1}|_inf <= tol_stag (0 disables; default 0) */
    double div_factor;   /**< diverged when r_k > div_factor max(r_0, 1) or not finite (default 1e8) */
    double omega;        /**< relaxation in (0, 2) for Jacobi, PSOR and the blocked solvers (default 1) */
    cfOrdering ordering; /**< sweep order for the solvers that take one (default sequential) */
    uint64_t seed;       /**< seed of CF_ORDER_RANDOM (default 1) */
    int inner;           /**< inner sweeps: staggering per half, PGS sweeps per PGS-SM phase (default 1) */
    int inner_sm;        /**< PGS-SM: subspace solves per outer iteration (default 1) */
    cfFrictionModel friction; /**< ch05.5: cone or box projection (default cone) */
} cfSplitOptions;

/** max_iter 1000, tol_abs 1e-10, tol_rel 0, tol_stag 0, div_factor 1e8, omega 1, sequential, seed 1, inner 1, inner_sm 1, cone. */
cfSplitOptions cf_split_options_default(void);

/**
 * The stopping rule of every solver, called after sweep @p k (k >= 1) with its residual @p r,
 * the initial residual @p r0 and the largest change of a variable in the sweep @p dx. Tests in
 * this order: r not finite or r > div_factor max(r0, 1) -> DIVERGENCE; r <= tol_abs -> ABSOLUTE;
 * tol_rel > 0 and r <= tol_rel r0 -> RELATIVE; tol_stag > 0 and dx <= tol_stag -> STAGNATION;
 * k >= max_iter -> MAX_ITER; otherwise CF_STOP_NONE (keep going).
 */
cfStopReason cf_split_stop(const cfSplitOptions *o, int k, double r0, double r, double dx);

/**
 * Fill @p rep at the end of a solve: reason, iterations @p k, residual @p r, and the status that
 * goes with the reason (ABSOLUTE/RELATIVE -> CF_OK, STAGNATION -> CF_STAGNATED, DIVERGENCE ->
 * CF_DIVERGED, MAX_ITER -> CF_MAX_ITER). Returns that status.
 */
cfStatus cf_split_finish(cfReport *rep, cfStopReason reason, int k, double r);

/** Refuse a solve whose input check failed with @p st: rep->status = st (rep may be NULL); returns st. */
cfStatus cf_split_refuse(cfReport *rep, cfStatus st);

/**
 * A solve whose initial residual @p r0 already meets tol_abs: report it as converged (reason
 * ABSOLUTE, 0 iterations, time since the cf_seconds() reading @p t0) and return CF_OK.
 */
cfStatus cf_split_solved_at_start(cfReport *rep, double r0, double t0);

/**
 * Check a problem and options before a splitting solve: n >= 0, A square n x n with finite
 * entries and every diagonal entry > 0 (a zero diagonal cannot be divided by: use blocking,
 * ch05.5), finite b and x, max_iter >= 0, omega in (0, 2), tolerances >= 0. CF_BAD_INPUT with a
 * message ("A[3][3] = 0: a splitting method needs a positive diagonal") otherwise.
 */
cfStatus cf_lcp_split_check(const cfLcp *p, const double *x, const cfSplitOptions *o, cfError *err);

/** As cf_lcp_split_check() for a boxed LCP; also lo <= hi, findex in range and mu >= 0. */
cfStatus cf_blcp_split_check(const cfBlcp *p, const double *x, const cfSplitOptions *o, cfError *err);

/** As cf_lcp_split_check() for a frictional contact problem: 3x3 blocks, every diagonal block stored with W_nn > 0, mu >= 0. */
cfStatus cf_fc_split_check(const cfFrictionProblem *p, const double *r, const cfSplitOptions *o, cfError *err);

/**
 * Fill @p perm with the visiting order of sweep @p sweep (0-based) of @p n items: sequential
 * 0..n-1; symmetric forward on even sweeps and backward on odd ones; random a Fisher-Yates
 * shuffle drawn from @p rng (which must not be NULL for CF_ORDER_RANDOM).
 */
void cf_ordering_permutation(cfOrdering o, int n, int sweep, cfRng *rng, int *perm);

/** Projection of the tangential impulse @p lt (2 values) onto the disk of radius @p radius (>= 0). */
void cf_disk_project(double lt[2], double radius);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch05.1-ch05.3 Projected Jacobi, Gauss-Seidel and SOR on an LCP (25 points)
 *  All three use the component form of notes Eq.\ 138-147 with \f$r_i = (A x + b)_i\f$:
 *  \f[ x_i \leftarrow \max\Big(0,\; x_i - \omega\, \frac{r_i}{A_{ii}}\Big). \f]
 *  Residual: cf_lcp_residual() (natural map \f$\|\min(x, A x + b)\|_2\f$, absolute). Each checks its input with cf_lcp_split_check() (provided,
 *  before the exercise region) and returns CF_BAD_INPUT with rep->status set on failure.
 *  Some of ch05.3's tests also call ch05.2: write it first.
 *  @{ */

/**
 * @brief ch05.1 (8 points): projected Jacobi.
 * Every r_i of a sweep is computed from the x of the previous sweep (keep a copy), then all x_i
 * are updated with relaxation o->omega (damped Jacobi for omega < 1). Converges when 2D/omega - A
 * is positive definite (e.g. strictly diagonally dominant A); may oscillate otherwise.
 * Worked example: A = [[2, 1], [1, 2]], b = (-1, -1), x = 0, omega = 1: sweep 1 gives
 * x = (0.5, 0.5), sweep 2 gives (0.25, 0.25), converging to (1/3, 1/3).
 * Counter-example: A with diagonal 1, off-diagonal 0.6 (3x3), b = -1: from 0,
 * undamped Jacobi flips between (0, 0, 0) and (1, 1, 1) forever; the residual stays at sqrt(3).
 */
cfStatus cf_lcp_jacobi(const cfLcp *p, const cfSplitOptions *o, double *x, cfReport *rep);

/**
 * @brief ch05.2 (9 points): projected Gauss-Seidel (PGS), sequential order, no relaxation.
 * Within a sweep, x_i uses the already updated x_0 .. x_{i-1} (one pass over row i of the CSR
 * matrix per variable: O(nnz) per sweep). For symmetric positive definite A it is projected
 * coordinate descent on 1/2 x^T A x + b^T x and converges from any start.
 * Worked example: A = [[2, 1], [1, 2]], b = (-1, -1), x = 0: sweep 1 gives x = (0.5, 0.25).
 * The same 3x3 example on which Jacobi oscillates converges to x_i = 1/2.2.
 */
cfStatus cf_lcp_pgs(const cfLcp *p, const cfSplitOptions *o, double *x, cfReport *rep);

/**
 * @brief ch05.3 (8 points): projected SOR (PSOR): PGS with relaxation o->omega in (0, 2)
 * (notes Algorithm 6; omega = 1 is PGS). The splitting is of omega A (notes Eq. 137; Table 3
 * prints -N where it means N for PSOR).
 * Worked example: A = [[2, 1], [1, 2]], b = (-1, -1), x = 0, omega = 1.5: sweep 1 gives
 * x = (0.75, 0.1875).
 */
cfStatus cf_lcp_psor(const cfLcp *p, const cfSplitOptions *o, double *x, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch05.4 PGS on a boxed LCP with friction bounds (10 points)
 *  @{ */

/**
 * @brief ch05.4: projected Gauss-Seidel on a boxed LCP (notes Eq.\ 153-159).
 * Sequential sweeps; for each i: r_i = (A x + b)_i, then with the effective bounds of index i
 * for the CURRENT x (cf_blcp_bounds(): when findex[i] >= 0 they are ±mu_i max(x_findex, 0),
 * so they move as the normal impulse changes within the sweep),
 * \f$x_i \leftarrow \mathrm{mid}(lo_i,\; x_i - \omega\, r_i / A_{ii},\; hi_i)\f$. Residual: cf_blcp_residual().
 * For contact problems order the variables normal first, then its tangents (the layout of
 * cf_friction_boxed_lcp() does this).
 * Worked example (notes 3.2.2's BLCP): one particle of mass 1 on the ground, contact velocity
 * (u_n, u_t, u_b) = (-2, 1, 0.1), mu = 0.3: A = I, b = u, and one sweep gives the exact
 * solution lambda = (2, -0.6, -0.1) (slips along t, sticks along b).
 */
cfStatus cf_blcp_pgs(const cfBlcp *p, const cfSplitOptions *o, double *x, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch05.5 Blocked Gauss-Seidel with a local 3x3 solve (10 points)
 *  Some of its tests also call ch05.4: write it first.
 *  @{ */

/**
 * @brief ch05.5: one local solve of contact a, given its 3x3 block @p Waa (row-major), its
 * velocity @p u = (W r + q)_a at the current r (3 values; updated here to the new velocity)
 * and its impulse @p r (3 values, updated). In order:
 * 1. normal: r_n' = max(0, r_n - omega u_n / W_nn); u += W(:, n) (r_n' - r_n);
 * 2. tangents, cone model: the stick candidate \f$r_T^* = r_T - W_{TT}^{-1} u_T\f$ (2x2 solve; a test
 *    that W_TT is singular must be relative to its entries, e.g. det <= 1e-14 a c: W scaled by any
 *    s > 0, u by s, gives the same r); if
 *    \f$\|r_T^*\| \le \mu r_n'\f$ take it, otherwise
 *    \f$r_T' = P_{\mathrm{disk}(\mu r_n')}(r_T - \omega u_T / \sigma)\f$ with \f$\sigma\f$ the
 *    largest eigenvalue of \f$W_{TT}\f$ (a projected gradient step, whose fixed point slides
 *    exactly against the sliding velocity);
 *    box model: r_t' = mid(-mu r_n', r_t - omega u_t / W_tt, mu r_n'), update u, then the same
 *    for r_b;
 * 3. u += W(:, T) (r_T' - r_T).
 * A fixed point of the local solve satisfies Signorini's law and Coulomb's law (cone) or the
 * box law. Returns the largest change |r' - r|_inf.
 */
double cf_contact_local_solve(const double Waa[9], double mu, cfFrictionModel model, double omega, double u[3],
                              double r[3]);

/**
 * @brief ch05.5: blocked Gauss-Seidel (notes Algorithm 8) on a frictional contact problem.
 * For each contact a in order: u_a = q_a + sum_j W_aj r_j (with the plus sign: the listing's
 * minus is an erratum), then cf_contact_local_solve() with the friction model o->friction and
 * relaxation o->omega. Residual: cf_fc_residual() for the cone model (Coulomb's law with De
 * Saxce's modified velocity) and cf_fc_box_residual() for the box model.
 * With W diagonal and isotropic (W = I/m) one sweep is exact.
 */
cfStatus cf_fc_bgs(const cfFrictionProblem *p, const cfSplitOptions *o, double *r, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch05.6 Matrix-free blocked PGS on the rigid system: the simulator's solver (20 points)
 *  The Delassus matrix W = J M^-1 J^T is never built. Each contact keeps its Jacobian rows and
 *  the rows of M^-1 J^T (its effect on the two bodies' velocities); a sweep reads the two bodies'
 *  velocities once per contact, computes all three contact velocities, runs the local solve of
 *  ch05.5 on its own 3x3 block W_aa, and writes the two velocities back once.
 *  Some of its tests also call ch05.5: write it first.
 *  @{ */

/** Options of the rigid solver. */
typedef struct cfRigidPgsOptions {
    double h;                   /**< time step (s, > 0): the bias is a velocity phi / h */
    int max_iter;               /**< sweeps (>= 0) */
    double tol;                 /**< stop when a sweep changes no impulse by more than tol (N s; 0 disables) */
    double erp;                 /**< Baumgarte factor in [0, 1] for penetrating contacts */
    double cfm;                 /**< constraint force mixing (>= 0) on the normal row */
    double omega;               /**< relaxation in (0, 2) */
    bool warm_start;            /**< start from cfContact::lambda (else from zero) */
    cfFrictionModel friction;   /**< cone or box */
    cfOrdering ordering;        /**< contact order per sweep */
    uint64_t seed;              /**< seed for CF_ORDER_RANDOM */
} cfRigidPgsOptions;

/** h 1/60, 20 sweeps, tol 0, erp 0.2, cfm 0, omega 1, warm start, cone, sequential, seed 1. */
cfRigidPgsOptions cf_rigid_pgs_options_default(void);
/**
 * The options of a rows-form problem and the registry's common parameters (cf_solver.h): h, erp
 * and cfm from @p p, the rest from @p par (provided; the world's "pgs" and "pgs-fast" rows use it).
 */
cfRigidPgsOptions cf_rigid_pgs_options_of(const cfContactProblem *p, const cfSolverParams *par);

/** Precomputed data of one contact (filled by cf_rigid_pgs_prepare()). */
typedef struct cfRigidRow {
    int ia;               /**< index of body A, or -1 when it cannot move (fixed or environment) */
    int ib;               /**< index of body B, or -1 when it cannot move */
    cfVec3 dir[3];        /**< the contact frame: n, t, b (world) */
    cfVec3 ang_a[3];      /**< angular Jacobian rows of A: r_A x d_k (the linear rows are -d_k) */
    cfVec3 ang_b[3];      /**< angular Jacobian rows of B: r_B x d_k (the linear rows are d_k) */
    cfVec3 iang_a[3];     /**< I_A^-1 (r_A x d_k): angular velocity change of A per unit impulse (sign -) */
    cfVec3 iang_b[3];     /**< I_B^-1 (r_B x d_k): angular velocity change of B per unit impulse */
    double inv_mass_a;    /**< 1/m_A (0 when ia < 0) */
    double inv_mass_b;    /**< 1/m_B (0 when ib < 0) */
    double W[9];          /**< the diagonal block W_aa = J_a M^-1 J_a^T + cfm e_n e_n^T, row-major */
    double bias;          /**< velocity bias of the normal row: phi/h (phi >= 0) or erp phi/h (phi < 0) */
    double mu;            /**< friction coefficient */
    double lambda[3];     /**< current impulse (n, t, b) */
} cfRigidRow;

/** Work space of the rigid solver: rows and a compact copy of the body velocities. */
typedef struct cfRigidPgs {
    int nc;               /**< contacts prepared */
    int cap;              /**< rows allocated */
    cfRigidRow *rows;     /**< per-contact data */
    int nb;               /**< bodies */
    int cap_bodies;       /**< velocity slots allocated */
    cfVec3 *vel;          /**< 2 nb vectors: v_0, w_0, v_1, w_1, ... (the solver's body velocities) */
    int *perm;            /**< visiting order (nc entries) */
} cfRigidPgs;

/** Free and zero (safe on a zeroed struct). */
void cf_rigid_pgs_free(cfRigidPgs *ws);

/**
 * @brief ch05.6: precompute the rows of every contact.
 * For contact a with frame (n, t, b) (read from the contact; fill it with cf_contact_frame()),
 * arms r_A = p - x_A and r_B = p - x_B: ang_a[k] = r_A x d_k, iang_a[k] = I_A^-1 ang_a[k]
 * (bodies[].inv_inertia_world), likewise for B; a fixed body or an index < 0 becomes -1 with zero
 * rows and inv_mass 0. The block
 * @f[ W_{kl} = (m_A^{-1} + m_B^{-1})\, d_k\cdot d_l + \mathrm{ang}_a[k]\cdot \mathrm{iang}_a[l] + \mathrm{ang}_b[k]\cdot \mathrm{iang}_b[l] @f]
 * (plus cfm on W_nn), the bias phi/h for phi >= 0 (a speculative contact may close its gap in
 * one step) and erp phi/h for phi < 0, mu = contact mu, lambda = contact lambda when
 * warm_start, else 0. The allocation and the input check (indices in range, distinct bodies,
 * finite data, h > 0, erp in [0, 1], cfm >= 0, omega in (0, 2)) are provided.
 * Worked example: a unit cube (m = 1, I = diag(1/6)) resting on the ground, contact at the corner
 * (0.5, 0.5, -0.5) from its centre, frame (z, x, y): W_nn = 1 + 6 (0.5^2 + 0.5^2) = 4.
 */
cfStatus cf_rigid_pgs_prepare(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc,
                              const cfRigidPgsOptions *o, cfRigidPgs *ws);

/**
 * @brief ch05.6: solve for the impulses and update the body velocities in place.
 * 1. copy each dynamic body's (v, w) into ws->vel; apply the initial impulses (the warm start):
 *    v_B += m_B^-1 C lambda, w_B += sum_k lambda_k iang_b[k], v_A -= ..., w_A -= ...;
 * 2. sweep max_iter times over the contacts in the order of o->ordering
 *    (cf_ordering_permutation()): read v_A, w_A, v_B, w_B once; u_k = d_k.(v_B - v_A) +
 *    ang_b[k].w_B - ang_a[k].w_A, u_n += bias + cfm lambda_n; cf_contact_local_solve() on W;
 *    apply the change of lambda to the four vectors and write them back once;
 *    push max |change of lambda| of the sweep to the history, stop early when o->tol > 0 and it
 *    is <= o->tol (tol 0 never stops early: exactly max_iter sweeps, reason MAX_ITER);
 * 3. copy the velocities back to the bodies and the impulses to contacts[a].lambda.
 * rep->residual is the final natural-map residual of the contact law (cone: as cf_fc_residual();
 * box: as cf_fc_box_residual()) at the biased velocities, rep->reason MAX_ITER or STAGNATION.
 * Returns CF_OK (a fixed sweep budget is the normal use in a simulator; the reason says why it
 * stopped) and CF_DIVERGED when the result is not finite.
 * Call cf_rigid_pgs_prepare() first with the same bodies and contacts.
 */
cfStatus cf_rigid_pgs_solve(cfRigidBody *bodies, int nb, cfContact *contacts, int nc, cfRigidPgs *ws,
                            const cfRigidPgsOptions *o, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch05.7 Ordering and staggering (10 points)
 *  Some of its tests also call ch05.2: write it first.
 *  @{ */

/**
 * @brief ch05.7: PGS on an LCP (as ch05.2, relaxation o->omega) visiting the variables in the
 * order cf_ordering_permutation(o->ordering, n, k, rng, perm) in sweep k, with rng seeded by
 * o->seed once per call (so a call is reproducible). A symmetric ordering is a forward sweep
 * followed by a backward one (each counts as a sweep). Residual: cf_lcp_residual().
 */
cfStatus cf_lcp_pgs_ordered(const cfLcp *p, const cfSplitOptions *o, double *x, cfReport *rep);

/**
 * @brief ch05.7: staggered PGS on a boxed LCP (notes section 3.2.5). The normal set N holds the
 * indices with findex < 0, the friction set F the others. One outer iteration is o->inner
 * sequential PGS sweeps over N only (friction impulses held fixed), then o->inner sweeps over F
 * only (bounds from the current normal impulses). Residual after each outer iteration:
 * cf_blcp_residual(); dx is the largest change over the outer iteration.
 */
cfStatus cf_blcp_staggered(const cfBlcp *p, const cfSplitOptions *o, double *x, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch05.8 PGS with subspace minimization, ch05.9 NNCG (20 points)
 *  Some of ch05.9's tests also call ch05.4: write it first.
 *  @{ */

/**
 * @brief ch05.8: PGS-SM on a boxed LCP (notes Algorithm 9; Silcowitz et al.\ 2010).
 * Each outer iteration: phase I, o->inner boxed PGS sweeps (as ch05.4); phase II, up to
 * o->inner_sm times: classify F = {lo_i < x_i < hi_i} with the effective bounds (a strict
 * tolerance of 1e-12 (1 + |bound|)), solve A_FF y = -(b_F + A_FB x_B) by dense Cholesky
 * (B = the rest, held at their bounds), set x_F = mid(lo, y, hi) with bounds recomputed from the
 * new x (findex), and stop phase II when the free set did not change. When A_FF is not positive
 * definite the subspace step is skipped. Residual after each outer iteration: cf_blcp_residual().
 * Worked fact (notes 3.2.6): on the 1D stack with all contacts active one PGS sweep makes every
 * x_i > 0 and the subspace solve is exact: one outer iteration.
 */
cfStatus cf_blcp_pgs_sm(const cfBlcp *p, const cfSplitOptions *o, double *x, cfReport *rep);

/**
 * @brief ch05.9: non-smooth nonlinear conjugate gradient (notes Algorithm 10; Silcowitz et
 * al.\ 2010a) on a boxed LCP. With G(x) one boxed PGS sweep (as ch05.4, omega 1):
 * \f$x_1 = G(x_0)\f$, \f$g_0 = x_0 - x_1\f$, \f$p_0 = -g_0\f$; then for k = 1, 2, ...:
 * \f[ x_{k+1} = G(x_k), \qquad g_k = x_k - x_{k+1}, \qquad \beta = \frac{\|g_k\|^2}{\|g_{k-1}\|^2}; \f]
 * \f$\beta = 0\f$ when \f$g_{k-1} = 0\f$ (a sweep that left x where it was, as at a floating-point
 * fixed point: not 0 / 0); if \f$\beta > 1\f$ restart (no momentum step, \f$p_k = -g_k\f$ as for \f$\beta = 0\f$, counted in
 * @p restarts; the notes' listing writes \f$p_k = 0\f$, which also drops the momentum of the next
 * iteration), else \f$x_{k+1} \mathrel{+}= \beta p_{k-1}\f$ and \f$p_k = \beta p_{k-1} - g_k\f$. Each iteration is one
 * sweep and pushes cf_blcp_residual() of the returned-so-far iterate; the final x is projected
 * onto its effective bounds (cf_blcp_bounds(): the friction rows too, to +-mu max(x_N, 0) of
 * their normals; the momentum step may leave the box). @p restarts may be NULL.
 */
cfStatus cf_blcp_nncg(const cfBlcp *p, const cfSplitOptions *o, double *x, cfReport *rep, int *restarts);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH05_H */
