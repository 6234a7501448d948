/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch08.h
 * @brief Chapter 8 exercises: soft-body contact in the dual form, the preconditioner taxonomy
 *        (W_M lumped, W_A exact by Algorithm 15, W_D block-diagonal), partial evaluation, and the
 *        implicit contact handling of Otaduy et al.\ (ICA and constraint manifold refinement).
 *
 * The text is chapters/ch08/README.md; the tests are chapters/ch08/tests/test_ch08.c
 * (`make test-ch8`). Each function marked "ch08.K" is an exercise: its specification here is
 * authoritative. Your implementations go in exercises/ch08/; they may call anything in
 * lib/include/cf/ (cf_soft.h, cf_linalg.h with its linear solvers, cf_dual.h, cf_problem.h), the
 * "Provided" functions of this header and chapters 1-5 (cf_ch05.h's cf_contact_local_solve(),
 * cf_fc_bgs() and the splitting options in particular).
 * The grader holds each exercise file to docs/grading.md ("What an exercise may use"): helpers
 * and file-scope variables are `static`; from the C library only allocation, memory and string
 * functions, qsort, bsearch, the math library and printing to stdout/stderr; and no file is
 * opened (the library's cf_*_read_siconos(), cf_*_write_siconos() and cf_scene_load() are refused).
 *
 * Conventions (docs/conventions.md): forces are f = -grad E; the notes'
 * K = d f_e / d x and B = d f_d / d u are negative semi-definite, so the implicit system is
 * A = M - h B - h^2 K, symmetric positive definite; the library stores K+ = -K
 * (cf_soft_stiffness()) and the Rayleigh B+ = alpha M + beta K+. Impulses lambda are in N s,
 * ordered (n, t, b) per contact; a dual system (cf_dual.h) asks J u + bias >= 0 on every normal.
 * Every solver's report @p rep (::cfReport) and statistics @p st may be NULL (the tests pass NULL).
 *
 * A two-node spring (for notes 4.3's preconditioners), used throughout: node 1 on the ground
 * (J = [1, 0] on the vertical velocities), node 2 above it, m = 1, k = 100, h = 0.1, spring at
 * rest, no gravity, both nodes moving at -1: A = [[2, -1], [-1, 2]], b = (-1, -1),
 * W_A = 2/3, W_M = 1, W_D = 1/2; lambda = 1.5 with W_A (u+ = (0, -0.5)), 1 with W_M (u+ = (0, -1):
 * node 2 feels nothing this step).
 */
#ifndef CF_CH08_H
#define CF_CH08_H

#include "cf/cf_base.h"
#include "cf/cf_ch05.h"
#include "cf/cf_dual.h"
#include "cf/cf_linalg.h"
#include "cf/cf_problem.h"
#include "cf/cf_soft.h"
#include "cf/cf_solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/** @name Provided: contact blocks and input checks (provided.c)
 *  @{ */

/** The 3x3 blocks of a contact Jacobian, per contact (cf_contact_blocks()). */
typedef struct cfContactBlocks {
    int nc;        /**< contacts */
    int *start;    /**< nc + 1: contact a touches the blocks start[a] to start[a + 1] - 1 */
    int *block;    /**< per block: its unknown block k (unknowns 3k to 3k + 2), ascending within a contact */
    double *val;   /**< per block: 9 values, row-major: rows (n, t, b) of the contact, columns 3k to 3k + 2 */
} cfContactBlocks;

/** Split the 3 nc x n CSR Jacobian @p J into per-contact 3x3 blocks (entries summed). Allocates @p cb. */
cfStatus cf_contact_blocks(const cfCsr *J, cfContactBlocks *cb);
/** Free and zero. */
void cf_contact_blocks_free(cfContactBlocks *cb);
/** y = P_k x for the 3x3 block P_k (row-major) and x, y of 3 values (y must not alias x). */
void cf_block_mul(const double *Pk, const double *x, double *y);

/**
 * The input checks of the chapter's dual-form solvers: cf_dual_check(), P and lambda given and
 * finite (n / 3 blocks of 9, 3 nc impulses), options o (may be NULL) with max_iter >= 0, omega in
 * (0, 2), tolerances >= 0. CF_BAD_INPUT with a message.
 */
cfStatus cf_dual_split_check(const cfDualSystem *s, const double *P, const double *lambda, const cfSplitOptions *o,
                             cfError *err);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch08.1 The implicit system of a soft body (10 points)
 *  @{ */

/**
 * @brief ch08.1: the linear system \f$A u^+ = b\f$ of one step of soft body @p s (notes 4.3.2-4.3.3).
 *
 * With M = cf_soft_mass_matrix() (lumped or consistent, as s->consistent_mass says),
 * \f$K^+\f$ = cf_soft_stiffness() at @p x (so the notes' \f$K = -K^+\f$), the Rayleigh damping
 * force \f$f_d(u) = -(\alpha M + \beta K^+)\, u\f$ (so \f$B = -(\alpha M + \beta K^+)\f$) and
 * f(x) = cf_soft_forces() at @p x (elastic plus gravity):
 * - @p implicit (linearized backward Euler, notes 4.3.3, \f$\tau = t + h\f$):
 *   \f[ A = M - hB - h^2 K = (1 + h\alpha)\, M + (h\beta + h^2)\, K^+, \qquad b = M u + h f(x) \f]
 *   (notes 4.3.3 corrected: h multiplies the forces only, \f$b = h (f_{ext} + f_e) + M u\f$);
 * - explicit (forces at the start of the step, notes 4.3.2, \f$\tau = t\f$): every M is the
 *   LUMPED mass \f$M_L\f$ (diagonal, cf_soft_mass_matrix() of a lumped body), whatever
 *   s->consistent_mass says: in A, in \f$M u\f$ and in the damping force,
 *   \f[ A = M_L, \qquad b = M_L u + h\,\big(f(x) + f_d(u)\big), \qquad f_d(u) = -(\alpha M_L + \beta K^+)\, u \f]
 *   (lumping is what makes \f$W_M\f$ cheap; the test gives a consistent-mass body and checks this).
 * Fixed nodes are pinned (cf_csr_pin_dofs(), b = 0 there), so that \f$u^+ = 0\f$ for them. The
 * same call serves BDF2 with \f$h \to 2h/3\f$ and \f$(x, u)\f$ the extrapolations (ch01.5).
 *
 * Implicitly, A is the Jacobian \f$\partial F/\partial u^+\f$ of the backward-Euler residual
 * \f$F(u^+) = M (u^+ - u) - h f(x + h u^+) - h f_d(u^+)\f$ with f linearized at x (the rotations
 * of co-rotational tetrahedra held), and \f$b = -F(0)\f$: \f$A u^+ = b\f$ is \f$F = 0\f$ for the
 * linearized forces. The tests compare A with central differences of F, and b with \f$-F(0)\f$.
 * Allocates @p A (3N x 3N); @p b has 3N entries. CF_BAD_INPUT for h < 0 or non-finite h (provided).
 * Worked example: the two-node spring (file comment) gives A = [[2, -1], [-1, 2]] on the vertical
 * velocities and b = (-1, -1); explicitly, A = I and b = (-1, -1).
 */
cfStatus cf_soft_system(const cfSoftBody *s, cfVec3 gravity, double h, const cfVec3 *x, const cfVec3 *u, bool implicit,
                        cfCsr *A, double *b);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch08.2 W_M: the Delassus operator of a block-diagonal preconditioner (10 points)
 *  @{ */

/**
 * @brief ch08.2: the dual problem \f$W_P = J P J^T\f$, \f$q = J P b + \mathrm{bias}\f$ of a
 * block-diagonal P.
 *
 * @p P approximates \f$A^{-1}\f$ by 3x3 blocks: 9 values (row-major) per block k of unknowns
 * 3k to 3k + 2 (cf_csr_block_diag_inverse() of A). For the lumped (explicit) system A = M,
 * \f$P = M^{-1}\f$ exactly and this is the notes' \f$W_M\f$ (4.3.2): for rigid bodies it is the
 * exact rigid Delassus operator (ch02.5), the rigid case with nodes. For any other A it is
 * \f$W_D = J D_A^{-1} J^T\f$, ICA's operator (ch08.5).
 *
 * W is block-sparse:
 * \f[ W_{ac} = \sum_{k\ \text{touched by both}} J_{ak}\, P_k\, J_{ck}^T \f]
 * (\f$J_{ak}\f$: the 3x3 block of J of contact a and unknown block k). Store block (a, c)
 * exactly when a == c or the two contacts share an unknown block (a structural rule: no numeric
 * threshold), in ascending column order, and add s->cfm to every \f$W_{aa}(0, 0)\f$.
 * \f$q_a = J_a (P b) + (\mathrm{bias}_a, 0, 0)\f$, mu copied. Solving the problem with any FC3D
 * solver (ch05.5's cf_fc_bgs() is its PGS) gives the impulses; the velocities are then
 * \f$u = P (b + J^T \lambda)\f$.
 *
 * Cost: O(nnz(J) x contacts per block), against the dense \f$(3 n_c)^2\f$ of \f$W_A\f$: a contact couples only
 * with the contacts that share a node. Allocates @p fc. CF_BAD_INPUT for a system that fails
 * cf_dual_check() (provided).
 * Worked example: the two-node spring with P = I (\f$M^{-1}\f$): \f$W_M = 1\f$, q = -1, \f$\lambda = 1\f$.
 */
cfStatus cf_dual_delassus_block(const cfDualSystem *s, const double *P, cfFrictionProblem *fc);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch08.3 W_A by Algorithm 15: factor once, one solve per row (15 points)
 *  @{ */

/**
 * @brief ch08.3: the dense \f$W_A = J A^{-1} J^T\f$ by the notes' Algorithm 15 (Parallel-Build-Delassus).
 *
 * @p S is a prepared solver of A (cf_linsolver_setup(): a sparse Cholesky factor, exact, or PCG,
 * approximate). For each row k of @p J (m rows): \f$j = (J_{k,:})^T\f$, solve \f$A x = j\f$
 * (cf_linsolver_solve(), starting from x = 0), then column k of W is \f$J x\f$. Finally
 * \f$W \leftarrow (W + W^T)/2\f$ (the solves' round-off asymmetry). @p W is allocated m x m
 * (cf_dense_init()).
 *
 * The columns are independent: compute them in parallel with OpenMP (chapter 8 is compiled with
 * -fopenmp, and the grader runs OpenMP code) when cf_linsolver_reentrant(S) and the work pays for
 * the threads (\f$m\, n \ge 2 \cdot 10^5\f$), serially otherwise. The reference's shape:
 * `#pragma omp parallel if (...)` around a block that allocates the thread's own right-hand side,
 * x, \f$J x\f$ and work space (cf_linsolver_work_size()) once, then `#pragma omp for` over the
 * rows k; a failed solve is kept in a `#pragma omp critical` section. (A plain
 * `#pragma omp parallel for` that allocates its vectors per column is correct too.) Pragmas
 * only: the reference calls no omp_* function and includes no omp.h. Each column
 * is computed by the same operations whatever thread computes it, so the result must not depend
 * on the number of threads: the test builds W with one and with two threads and compares the bits.
 *
 * Returns CF_OK, or a failing solve's status (PCG's CF_MAX_ITER or CF_DIVERGED; W is
 * then freed). Cost: one factorization and m solves, O(m nnz(L)) plus m sparse products.
 * Worked example: the two-node spring, J = [1, 0]: \f$W_A = (A^{-1})_{11} = 2/3\f$.
 */
cfStatus cf_dual_delassus_factored(const cfLinSolver *S, const cfCsr *J, cfDense *W);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch08.4 Partial evaluation: matrix-free PGS with the auxiliary velocity (15 points)
 *  @{ */

/**
 * @brief ch08.4: projected Gauss-Seidel on \f$W_P = J P J^T\f$ without building it (notes 4.3.5).
 *
 * P is block-diagonal as in ch08.2 (\f$W_M\f$ with \f$P = M^{-1}\f$; \f$W_D\f$ with
 * \f$P = D_A^{-1}\f$). The auxiliary velocity \f$u = P (b + J^T \lambda)\f$ is kept up to date, so
 * that a contact's velocity is one sparse row product away:
 * 1. \f$u = P (b + J^T \lambda)\f$ from the warm start @p lambda; \f$W_{aa} = J_a P J_a^T\f$
 *    (+ cfm on \f$W_{aa}(0, 0)\f$) for every contact, once;
 * 2. each sweep, for every contact a in order 0..nc-1:
 *    \f$v = J_a u + (\mathrm{bias}_a + \mathrm{cfm}\, \lambda_{a,n}, 0, 0)\f$;
 *    cf_contact_local_solve(W_aa, mu_a, o->friction, o->omega, v, lambda_a) (ch05.5); with
 *    d the change of \f$\lambda_a\f$, \f$u \mathrel{+}= P J_a^T d\f$ (O(nodes of the contact));
 * 3. after sweep k: the residual cf_dual_residual(s, lambda, u, o->friction) goes to the report;
 *    cf_split_stop() with it and the sweep's largest change decides (ch05's rules).
 * Before the first sweep r_0 is computed; r_0 <= tol_abs returns at once (cf_split_solved_at_start()).
 * On return @p u \f$= P (b + J^T \lambda)\f$ for the returned \f$\lambda\f$ and the status is cf_split_finish()'s.
 *
 * It computes the same iterates as cf_fc_bgs() on the problem of cf_dual_delassus_block() (same
 * order, same local solve), at O(nnz(J)) per sweep and without W. For \f$P = A^{-1}\f$ the update
 * of u would cost one solve with A per contact, as much as building \f$W_A\f$: partial evaluation
 * pays for \f$W_M\f$ and \f$W_D\f$ only (the notes' conclusion). Input checks (provided): cf_dual_check(), o's ranges.
 */
cfStatus cf_dual_pgs_partial(const cfDualSystem *s, const double *P, const cfSplitOptions *o, double *lambda, double *u,
                             cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch08.5 Iterative constraint anticipation (ICA; 25 points)
 *  Some of its tests also call ch08.2: write it first.
 *  @{ */

/** The outer (dynamics) iteration of ICA. */
typedef enum cfIcaOuter {
    CF_ICA_GAUSS_SEIDEL = 0, /**< (D - L) dv(i) = U dv(i-1) + J^T lambda(i): Otaduy et al., section 5.2 */
    CF_ICA_JACOBI,           /**< D dv(i) = (L + U) dv(i-1) + J^T lambda(i): the notes' Algorithm 16 */
    CF_ICA_OUTER_COUNT       /**< number of outer iterations */
} cfIcaOuter;

/** Options of cf_ica_solve(); start from cf_ica_options_default(). */
typedef struct cfIcaOptions {
    int max_outer;      /**< outer iterations allowed (>= 1; default 100) */
    int max_inner;      /**< inner projected GS sweeps per outer iteration (>= 1; default 50) */
    int passes;         /**< local passes per contact in an inner sweep (>= 1; the paper's 3) */
    double rel_change;  /**< the paper's rule: stop when the residuals change between two iterations by at most
                             this fraction of the loop's first residual (and every contact is resolved); 0
                             disables (default 0.05) */
    double tol;         /**< stop when the residuals are <= tol (absolute; 0 disables; default 0) */
    cfIcaOuter outer;   /**< default Gauss-Seidel (the paper) */
} cfIcaOptions;

/** max_outer 100, max_inner 50, 3 passes, rel_change 0.05, tol 0, Gauss-Seidel (provided). */
cfIcaOptions cf_ica_options_default(void);

/** What one ICA solve did (beside the report: history = contact residual per outer iteration). */
typedef struct cfIcaStats {
    int outer;            /**< outer iterations */
    int inner_total;      /**< inner sweeps over all outer iterations */
    int inner_max;        /**< the most inner sweeps of one outer iteration */
    double lcp_residual;  /**< final contact residual (box law in the aligned frame; see below) */
    double dyn_residual;  /**< final dynamics residual |A dv - J^T lambda| */
} cfIcaStats;

/**
 * @brief ch08.5: ICA, the nested relaxation of Otaduy et al.\ 2009 (section 5; notes 4.3.6).
 *
 * Split \f$A = D - L - U\f$ with D the 3x3 block diagonal (cf_csr_block_diag_inverse() gives
 * \f$D^{-1}\f$), L and U the strictly lower and upper block parts (negated). With @p vstar
 * \f$v^* = A^{-1} b\f$ (the unconstrained velocity, given) the unknowns are the response
 * \f$\Delta v\f$ (\f$u = v^* + \Delta v\f$) and \f$\lambda\f$.
 *
 * Friction (paper 5.4): a 4-sided pyramid per contact aligned with the unconstrained sliding:
 * with \f$(v_t, v_b) = (J_t v^*, J_b v^*)\f$, \f$t_1 = (v_t t + v_b b) / \|(v_t, v_b)\|\f$ (t itself
 * when that norm is <= 1e-12), \f$t_2 = n \times t_1\f$; the friction impulses
 * \f$\gamma_1, \gamma_2\f$ along \f$t_1, t_2\f$ obey \f$|\gamma_k| \le \mu \lambda_n\f$ separately
 * (the box law, cf_contact_residual2() with CF_FRICTION_BOX). Work in that rotated frame: rows
 * \f$J^r_a = (J_n,\ c J_t + s J_b,\ -s J_t + c J_b)\f$, impulses
 * \f$x_a = (\lambda_n,\ c \lambda_t + s \lambda_b,\ -s \lambda_t + c \lambda_b)\f$ (c, s: \f$t_1\f$'s components).
 *
 * 1. D^-1; the rotated rows; B = Jr D^-1 Jr^T (+ cfm) by ch08.2 (cf_dual_delassus_block() on the
 *    system with Jr); x from the warm start @p lambda; dv from @p dv (warm start, often 0).
 * 2. Outer iteration i = 1, 2, ...:
 *    a. anticipation with block Jacobi:
 *       \f$z = D^{-1} (D - A)\, \Delta v^{(i-1)} = D^{-1} (L + U)\, \Delta v^{(i-1)}\f$;
 *       \f$w = J^r (v^* + z) + (\mathrm{bias}, 0, 0)\f$: the contact velocities the dynamics will
 *       give without new impulses (the paper's \f$-c^{(i)}\f$);
 *    b. inner loop, sweeps j = 1..max_inner: for each contact a in order, v_a = w_a + sum_c B_ac x_c,
 *       then o->passes times cf_contact_local_solve(B_aa, mu_a, CF_FRICTION_BOX, 1, v_a, x_a):
 *       normal, gamma_1, gamma_2 interlaced (paper 5.5). After each sweep the normal residual
 *       r_n = |x_n - max(0, x_n - v_n)| and the friction residual r_f (the box law's tangent
 *       terms) over all contacts, with v = B x + w; stop when r_n, r_f <= tol (tol > 0), or
 *       when (j >= 2) both changed since the previous sweep by at most rel_change times their
 *       value after sweep 1 and every contact is resolved: h v_a,n >= -delta / 2 (the predicted
 *       end gap within half the contact distance; s->delta);
 *    c. dynamics with the new impulses: \f$r = J^{rT} x\f$; Gauss-Seidel: for each unknown block
 *       k in order, \f$\Delta v_k = D_k^{-1} \big(r_k - \sum_{l \ne k} A_{kl} \Delta v_l\big)\f$ with
 *       the blocks already updated (in place); Jacobi: \f$\Delta v = z + D^{-1} r\f$;
 *    d. residuals at the new dv: the contact residual sqrt(sum_a cf_contact_residual2(x_a, v_a,
 *       mu_a, CF_FRICTION_BOX)) with v = Jr (v* + dv) + (bias + cfm x_n, 0, 0), pushed with the
 *       inner sweeps to the report (cf_report_push_inner()); the dynamics residual
 *       |A dv - Jr^T x|_2. Stop (status CF_OK) when both are <= tol (tol > 0), or when (i >= 2)
 *       both changed since iteration i - 1 by at most rel_change times their value after
 *       iteration 1 and every contact is resolved at v; CF_DIVERGED when a residual is not
 *       finite or exceeds 1e8 max(r_c1, r_d1, 1), r_c1 and r_d1 the contact and dynamics
 *       residuals after iteration 1 (one floor for both residuals); CF_MAX_ITER after max_outer.
 *    The paper says the residuals "change less than 5 % between two iterations": measured
 *    against the previous value, that never holds under linear convergence (whose relative
 *    decrease per iteration is constant); against the loop's first value it stops once an
 *    iteration gains less than 5 % of where the loop started.
 * 3. lambda back in the world frame (lambda_t = c x_1 - s x_2, lambda_b = s x_1 + c x_2), dv out.
 * rep->iterations = outer iterations, rep->residual = the last contact residual.
 *
 * Why Jacobi for the anticipation and Gauss-Seidel for the dynamics: GS anticipation would make
 * B dense; GS dynamics converges faster. Each outer iteration costs O(n + m) (paper 5.2).
 * Converges when A is (block) diagonally dominant; in practice under weaker conditions.
 * Worked examples (two-node spring, exact inner solve): Jacobi (Algorithm 16) gives lambda =
 * 2, 2, 1.5 in outer iterations 1, 2, 3 with u = (0, -1), (0, -0.5), (0, -0.5); Gauss-Seidel gives
 * 2, 1.5, 1.5 with u = (0, -0.5) from the first iteration on. Both end at W_A's lambda = 1.5.
 * With A block-diagonal (L = U = 0) one outer iteration with a converged inner loop is CA.
 * Input checks (provided): cf_dual_check(), options in range, finite vstar, dv, lambda.
 */
cfStatus cf_ica_solve(const cfDualSystem *s, const double *vstar, const cfIcaOptions *o, double *dv, double *lambda,
                      cfReport *rep, cfIcaStats *st);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch08.6 Constraint manifold refinement (CMR; 15 points)
 *  @{ */

/**
 * What a step with CMR calls back (the world implements them; tests use small mock worlds).
 * Every function returns CF_OK or a failure that ends the step.
 */
typedef struct cfCmrOps {
    void *ctx; /**< passed to every call */
    /** Start a (sub)step of length @p dt at the current state q0: the system (A, b) and the
     *  constraints of pairs closer than the contact distance at q0 (proximity). */
    cfStatus (*begin)(void *ctx, double dt);
    /** Collision response with the constraints so far (the dual solve): new velocities v. */
    cfStatus (*respond)(void *ctx);
    /** Tentative positions q = q0 + dt G v (the state keeps q0 until commit). */
    cfStatus (*advance)(void *ctx);
    /** Continuous collision detection on the linear motion q0 -> q: add a constraint for every
     *  pair that collides and has none yet, return their number in @p added; @p colliding
     *  receives the pairs that collide although constrained (beyond the tolerance). */
    cfStatus (*collide)(void *ctx, int *added, int *colliding);
    /** Keep the tentative state: the (sub)step of length dt is done. */
    cfStatus (*commit)(void *ctx);
    /** Return to the state of the last begin (before a halved restart). */
    cfStatus (*restore)(void *ctx);
} cfCmrOps;

/** Options of cf_cmr_step(); start from cf_cmr_options_default(). */
typedef struct cfCmrOptions {
    int max_rounds;    /**< response-CCD rounds per (sub)step (>= 1; the paper's 5) */
    int max_halvings;  /**< times a (sub)step may be halved (>= 0; the paper's 2) */
} cfCmrOptions;

/** 5 rounds, 2 halvings (provided). */
cfCmrOptions cf_cmr_options_default(void);

/** Largest round count cfCmrStats::rounds records. */
#define CF_CMR_MAX_ROUNDS 16

/** What one cf_cmr_step() did. */
typedef struct cfCmrStats {
    int substeps;                        /**< (sub)steps committed (1 without halving; 2^k after k halvings of one) */
    int halvings;                        /**< the deepest halving (0, 1 or 2 with the defaults) */
    int unresolved;                      /**< substeps committed with collisions left (at the deepest halving) */
    int rounds_total;                    /**< rounds over all attempts, failed ones included */
    int rounds[CF_CMR_MAX_ROUNDS + 1];   /**< rounds[r]: committed (sub)steps that needed r rounds */
} cfCmrStats;

/**
 * @brief ch08.6: one step of length @p dt with constraint manifold refinement (paper 004, section 4).
 *
 * step(dt, depth):
 * 1. begin(dt);
 * 2. for round r = 1..max_rounds: respond(); advance(); collide(&added, &colliding); when
 *    added == 0 and colliding == 0 the state is collision-free: commit(), count r in
 *    rounds[r], done; when added == 0 (but pairs still collide) more rounds cannot help: leave
 *    the loop;
 * 3. still colliding: when depth < max_halvings, restore() and take two steps of dt / 2 at
 *    depth + 1 (halvings = the deepest depth reached); otherwise commit() anyway, count the
 *    substep in unresolved (and its rounds in rounds[]).
 * substeps counts commits; rounds_total every round of every attempt. @p st is zeroed first.
 * A callback's failure is returned at once. CF_BAD_INPUT for dt <= 0 or non-finite, or options
 * out of range (provided; max_rounds <= CF_CMR_MAX_ROUNDS).
 * Worked examples (the tests' mock worlds): a point known by proximity to be above a plane and
 * falling onto it: 1 round; the same point moving fast from far away: 2 rounds (CCD finds the
 * plane in round 1); a point driven into a V-shaped corner with the first plane known: 2 rounds.
 */
cfStatus cf_cmr_step(const cfCmrOps *ops, const cfCmrOptions *o, double dt, cfCmrStats *st);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Provided: the dual-form solver the world's "dual" row runs (provided.c)
 *  @{ */

/** Options of cf_dual_solve(). */
typedef struct cfDualOptions {
    cfPreconditioner preconditioner; /**< which method */
    int max_iter;                    /**< PGS sweeps (exact, PCG, lumped) or ICA outer iterations */
    double tol;                      /**< PGS: stop on the residual (cf_split_stop() tol_abs); ICA: its tol */
    double omega;                    /**< PGS relaxation */
    cfFrictionModel friction;        /**< PGS friction model (ICA uses its aligned pyramid) */
    cfIcaOptions ica;                /**< ICA's options (max_outer is taken from max_iter) */
} cfDualOptions;

/** What cf_dual_solve() did besides the report. */
typedef struct cfDualStats {
    int pcg_iterations;   /**< inner PCG iterations (PCG preconditioners, and ICA's v*) */
    cfIcaStats ica;       /**< ICA's statistics (block-diagonal) */
} cfDualStats;

/**
 * Solve a dual system with a preconditioner (the registry's "dual" row): x = @p lambda (3 nc,
 * warm start in, impulses out), @p u (n) the velocities that go with them.
 * - CF_PRECOND_LUMPED: P = D_A^-1 (for the explicit system A = M this is M^-1), ch08.4;
 * - CF_PRECOND_EXACT, PCG_JACOBI, PCG_IC: CA, constraint anticipation with W_A = J A^-1 J^T by
 *   Algorithm 15 (ch08.3) on a Cholesky factor or PCG, q = J A^-1 b + bias, then blocked PGS
 *   (ch05.5) with opts' friction model; when every mu is 0 only the normal rows are built (the
 *   frictionless CA of paper 004, Fig. 6) and solved by PGS (ch05.2); u = A^-1 (b + J^T lambda);
 * - CF_PRECOND_BLOCK_DIAGONAL: v* = s->vfree when given, else A^-1 b by PCG (IC(0), relative
 *   tolerance 1e-10), then ICA (ch08.5) from dv = 0; u = v* + dv.
 * CA starts its solve for A^-1 b from s->vfree when given (exact with Cholesky; a warm start for PCG).
 * The report is the inner solver's (history, iterations, residual in its measure). Errors of the
 * steps are passed on; CF_BAD_INPUT for a system that fails cf_dual_check().
 */
cfStatus cf_dual_solve(const cfDualSystem *s, const cfDualOptions *o, double *lambda, double *u, cfReport *rep,
                       cfDualStats *st);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH08_H */
