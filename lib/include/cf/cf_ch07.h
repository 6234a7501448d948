/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch07.h
 * @brief Chapter 7 exercises: proximal operators (PROX), the closest point on an ellipsoid,
 *        PROX-Jacobi and PROX-Gauss-Seidel with adaptive r-factors, the r-factor strategies and
 *        Moreau time stepping with a Newton impact law and a post-step projection.
 *
 * The text is chapters/ch07/README.md; the tests are chapters/ch07/tests/test_ch07.c
 * (`make test-ch7`). Each function marked "ch07.K" is an exercise: its specification here is
 * authoritative. Your implementations go in exercises/ch07/; they may call anything in
 * lib/include/cf/ (cf_problem.h, cf_linalg.h, cf_rng.h), the "Provided" functions of this header
 * and chapters 1-5 (cf_ch01.h ... cf_ch05.h).
 *
 * The model (notes 3.4, Erleben 2017). Per contact I with impulse lambda_I = (lambda_n, lambda_F)
 * and contact velocity v_I = (A lambda + b)_I, the contact law is the pair of fixed points, for
 * any r > 0,
 *   lambda_n = prox_N(lambda_n - r v_n),          N = [0, inf)              (Signorini)
 *   lambda_F = prox_F(lambda_F - r v_F),          F = F(lambda_n) convex     (maximal dissipation)
 * where prox_C(z) = argmin_{x in C} |z - x| is the Euclidean projection. The friction set F is the
 * disk |lambda_T| <= mu lambda_n (isotropic Coulomb), the ellipse of the principal coefficients
 * (mu_t, mu_b), or with a fourth, torsional row tau the Coulomb-Contensou ellipsoid
 * (lambda_t/a)^2 + (lambda_b/b)^2 + (lambda_tau/c)^2 <= 1 with (a, b, c) = (mu_t, mu_b, mu_tau) lambda_n.
 * A fixed point of the isotropic model is a solution of the FC3D problem of cf_problem.h, so the
 * chapter's solvers are measured with cf_fc_residual() like every other.
 *
 * Conventions (docs/conventions.md): impulses (N s) ordered (n, t, b[, tau]) per contact; the
 * torsional impulse is a torque impulse (N m s) about n, and mu_tau is a length (m).
 */
#ifndef CF_CH07_H
#define CF_CH07_H

#include <stdint.h>

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_contact.h"
#include "cf/cf_linalg.h"
#include "cf/cf_problem.h"
#include "cf/cf_solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most rows of one contact: normal, two tangents and the torsional (spin) row. */
#define CF_PROX_MAX_DIM 4
/** Most accepted merits the adaptive rule remembers (cfProxOptions::window). */
#define CF_PROX_WINDOW_MAX 32
/** The default floor of the adaptive scale (cfProxOptions::scale_min): 2^-20, about 1e-6. */
#define CF_PROX_SCALE_MIN 0x1p-20

/* ------------------------------------------------------------------------------------ */
/** @name Provided: the factored problem, options, statistics (provided.c, not exercises)
 *  @{ */

/**
 * A contact problem in factored form, A = J M^-1 J^T never assembled (notes Eq.\ 230-231):
 * m = dim nc rows (dim per contact, contact a owns rows dim a .. dim a + dim - 1, ordered
 * n, t, b[, tau]) over nv velocity unknowns.
 * - J (m x nv): the contact velocity of row r is v_r = J_r u + b_r;
 * - G (m x nv): G = (M^-1 J^T)^T, row r is the velocity change of a unit impulse on row r (the
 *   notes' "precomputed M^-1 J^T, stored transposed"); w = M^-1 J^T lambda = G^T lambda.
 * Then A = J G^T and v = J w + b. Rigid bodies (cf_prox_problem_rigid()): nv = 6 nb, u = (v, omega)
 * per body, a row has at most 12 entries. An assembled FC3D problem (cf_prox_problem_from_fc()):
 * J = I and G = W^T, so that w = W lambda and A = W; nothing else changes.
 */
typedef struct cfProxProblem {
    int nc;        /**< contacts */
    int dim;       /**< rows per contact: 3 (n, t, b) or 4 (n, t, b, tau) */
    int nv;        /**< velocity unknowns (columns of J and G) */
    cfCsr J;       /**< m x nv contact Jacobian */
    cfCsr G;       /**< m x nv, (M^-1 J^T)^T */
    double *b;     /**< m: the free contact velocity plus the impact law's term (ch07.6) */
    double *mu;    /**< 3 per contact: mu_t, mu_b (>= 0) and mu_tau (m, >= 0; used when dim = 4) */
    cfCsr Gt;      /**< optional: G^T (nv x m, cf_prox_problem_transpose()) for the column-parallel w of the
                        OpenMP Jacobi; empty (rows 0) otherwise, and no exercise reads it */
} cfProxProblem;

/** Free and zero (safe on a zeroed struct). */
void cf_prox_problem_free(cfProxProblem *p);

/** Fill cfProxProblem::Gt = G^T (CF_NO_MEMORY on failure, Gt then empty). */
cfStatus cf_prox_problem_transpose(cfProxProblem *p);

/**
 * The FC3D problem @p fc as a factored problem: dim 3, nv = 3 nc, J = I, G = W^T (so w = W lambda),
 * b = q, mu = (mu_a, mu_a, 0). CF_BAD_INPUT for a W that is not nc x nc blocks of 3x3 or a mu that
 * is negative or not finite; CF_NO_MEMORY. On failure @p p is left empty.
 */
cfStatus cf_prox_problem_from_fc(const cfFrictionProblem *fc, cfProxProblem *p);

/**
 * The rows of rigid contacts (notes Eq.\ 217-218; paper 001 appendix A). Contact a between bodies
 * A = body_a and B = body_b (-1, or a fixed body: no columns) at point p with frame (n, t, b) read
 * from the contact: the velocity of row d_k in {n, t, b} is d_k.(v_B + w_B x r_B - v_A - w_A x r_A)
 * with r = p - x, and for dim 4 the spin row n.(w_B - w_A). G holds the same rows times M^-1
 * (1/m for v, I_world^-1 for omega). b = J u with the bodies' current velocities (call it after the
 * free-velocity update). mu: an isotropic contact gives (mu, mu, @p mu_tau); an orthotropic one
 * (cf_contact_friction()) gives (coef[0], coef[1], @p mu_tau) and needs its frame t along the
 * projection of the law's dir (cf_prox_frame() makes it so). Other laws: CF_BAD_INPUT.
 * CF_BAD_INPUT also for dim not 3 or 4, body indices out of range, non-finite data, mu_tau < 0.
 */
cfStatus cf_prox_problem_rigid(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc, int dim,
                               double mu_tau, cfProxProblem *p);

/**
 * The contact frame of @p c for its friction law: cf_contact_frame() (ch02.2) for isotropic
 * friction; for an orthotropic law (cf_contact_friction()) t = the unit projection of its dir on
 * the tangent plane (ch02.2's frame when dir is parallel to n) and b = n x t. CF_BAD_INPUT for a
 * normal that is not unit length.
 */
cfStatus cf_prox_frame(cfContact *c);

/**
 * The diagonal block A_aa (dim x dim, row-major into @p out) of contact @p a: entry (k, l) is the
 * sparse dot product J_{dim a + k} . G_{dim a + l}.
 */
void cf_prox_block(const cfProxProblem *p, int a, double *out);

/** The contact velocities v = J w + b (m values) for w (nv values). */
void cf_prox_contact_velocity(const cfProxProblem *p, const double *w, double *v);

/**
 * The natural-map residual of the PROX model at @p lambda (m values), the model's counterpart of
 * cf_fc_residual(): sqrt(sum_a |lambda_a - P_a(lambda_a - v_a)|^2) with v = A lambda + b,
 * P_a = (prox_N, then cf_prox_friction() with the normal impulse it gave). Zero exactly at a
 * solution. Calls ch07.1 and ch07.2 (cf_prox_normal(), cf_prox_friction()).
 */
double cf_prox_natural_map(const cfProxProblem *p, const double *lambda);

/** Options of the PROX solvers. Start from cf_prox_options_default(). */
typedef struct cfProxOptions {
    int max_iter;        /**< sweeps allowed, accepted or rejected (>= 0; default 1000) */
    double tol_abs;      /**< stop when the accepted merit |lambda^{k+1} - lambda^k|_inf <= tol_abs (>= 0; default 1e-6) */
    double tol_rel;      /**< stop when |e^{k+1} - e^k| <= tol_rel e^k (paper 001; 0 disables, the default) */
    cfRFactor strategy;  /**< global, local (default) or blocked r-factors (ch07.5) */
    double r_global;     /**< global strategy: r (> 0); 0 (default): Foerg's 1/(|l_min| + |l_max|) ~ 1/|A|_2 by power iteration */
    double omega;        /**< scale of the local and blocked r-factors, in (0, 2) (omega/A_ii is PSOR's step; default 1) */
    double nu;           /**< shrink factor of a rejected sweep, in (0, 1]; 0 (default): the strategy's (0.5 global and blocked, 0.9 local); 1: never shrink */
    double theta;        /**< reject when e^{k+1} >= theta max(last @ref window accepted merits), in (0, 1] (default 1: the digest's ">=", which catches exact cycles) */
    int window;          /**< accepted merits the rule compares with, 1..#CF_PROX_WINDOW_MAX (default 1: the listing's; more tolerates a non-monotone but converging merit) */
    double grow;         /**< >= 1: after @ref grow_after accepted sweeps in a row the r-factors grow by this, never above their start (default 1: off) */
    int grow_after;      /**< accepted sweeps in a row before a growth (>= 1; default 10) */
    bool box;            /**< friction set: the box |lambda_k| <= mu_k lambda_n per row instead of the disk/ellipsoid (PGS's model) */
    bool bound_tol;      /**< raise tol_abs to the accuracy bound 10 r eps |A|_2 |lambda| (ch07.5; costs a power iteration) */
    double ellipsoid_tol;/**< relative accuracy of the ellipsoid bisection (ch07.2; default 1e-15) */
    double scale0;       /**< the adaptive scale to start from, in (0, 1] (default 1; a world row passes the last solve's, so that a
                              Jacobi that needed r/4 last step does not spend this step's sweeps finding it again); below
                              @ref scale_min the solve starts at the floor */
    double scale_min;    /**< the floor of the adaptive scale, in (0, 1] (default #CF_PROX_SCALE_MIN): a rejection never shrinks
                              the r-factors below it, and a rejection at the floor resets them (cf_prox_accept()) */
} cfProxOptions;

/** max_iter 1000, tol_abs 1e-6, tol_rel 0, local, r_global 0, omega 1, nu 0, theta 1, grow 1, grow_after 10, disk/ellipsoid, no bound, ellipsoid_tol 1e-15, scale0 1, scale_min #CF_PROX_SCALE_MIN. */
cfProxOptions cf_prox_options_default(void);

/** The shrink factor the options give for their strategy (nu, or 0.5 / 0.9 / 0.5 when nu is 0). */
double cf_prox_nu(const cfProxOptions *o);

/**
 * Check a problem, options and a starting point before a solve: dim 3 or 4, the matrices'
 * shapes (m x nv), finite data, mu >= 0, every diagonal entry A_rr > 0 of a contact's normal and
 * friction rows (a row that nothing moves cannot be solved for), max_iter >= 0, tolerances >= 0,
 * omega in (0, 2), nu in [0, 1], theta in (0, 1], grow >= 1, grow_after >= 1, r_global >= 0,
 * scale0 and scale_min in (0, 1],
 * a known strategy. CF_BAD_INPUT with a message naming the field otherwise.
 */
cfStatus cf_prox_check(const cfProxProblem *p, const double *lambda, const cfProxOptions *o, cfError *err);

/**
 * The r-factors that size the friction set's metric for cf_prox_friction(): with the local
 * strategy the diagonal entries of the contact's block @p Ra (dim x dim) on its friction rows,
 * copied into @p rf; NULL for the global strategy (one r: the Euclidean projection) and for the
 * blocked one (the listing's Euclidean projection with the full inverse block; see the errata).
 */
const double *cf_prox_friction_r(const cfProxOptions *o, const double *Ra, int dim, double rf[3]);

/** The state of the adaptive rule (cf_prox_accept()). Start with cf_prox_adapt_init(). */
typedef struct cfProxAdapt {
    double scale;                        /**< factor on the r-factors (starts at 1) */
    int run;                             /**< accepted sweeps in a row */
    int n;                               /**< accepted merits kept in @ref recent */
    double recent[CF_PROX_WINDOW_MAX];   /**< the last accepted merits, oldest first */
    int resets;                          /**< rejections at the floor, each of which reset the scale to 1 */
    bool progress;                       /**< a sweep was accepted since the start or the last reset */
    bool stalled;                        /**< the last reset came without an accepted sweep since the one before (or the start):
                                              no step size gives a finite merit (the solve stops, DIVERGENCE) */
} cfProxAdapt;

/** scale 1, nothing accepted yet, no reset. */
void cf_prox_adapt_init(cfProxAdapt *ad);

/** What a PROX solve did besides its ::cfReport. */
typedef struct cfProxStats {
    int sweeps;          /**< sweeps done (accepted + rejected) */
    int accepted;        /**< accepted sweeps */
    int rollbacks;       /**< rejected sweeps: each multiplied every r-factor by nu */
    int grows;           /**< growths of the r-factors */
    int resets;          /**< resets of the scale at its floor (cfProxAdapt::resets) */
    double r_scale;      /**< the factor the r-factors end with, relative to their start */
    double r_max;        /**< the largest r-factor entry at the start (|R_a|_inf over contacts) */
    double merit;        /**< the last accepted merit |lambda^{k+1} - lambda^k|_inf */
    double tol_used;     /**< the absolute tolerance used (tol_abs, or the accuracy bound when larger) */
    cfStopReason reason; /**< why it stopped */
} cfProxStats;
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch07.1 Proximal maps (10 points)
 *  The Euclidean projections onto the simple convex sets of the contact law.
 *  @{ */

/** @brief ch07.1: prox onto N = [0, inf): max(0, z). Worked: -2 -> 0, 0 -> 0, 3 -> 3. */
double cf_prox_normal(double z);

/**
 * @brief ch07.1: prox onto the disk |x| <= @p radius (radius >= 0; a radius <= 0 gives 0):
 * z itself when inside, otherwise radius z/|z|. Worked: z = (3, 4), radius 1 -> (0.6, 0.8).
 */
void cf_prox_disk(const double z[2], double radius, double out[2]);

/**
 * @brief ch07.1: prox onto the friction cone K = {|x_T| <= mu x_n} (x = (n, t, b)), closed form
 * (../shared/data/siconos-fc3d/README.md): inside (|z_T| <= mu z_n) z; in the polar cone
 * (mu |z_T| <= -z_n) 0; otherwise x_n = (mu |z_T| + z_n)/(mu^2 + 1), x_T = mu x_n z_T/|z_T|.
 * Write it yourself: the library's cf_cone_project() is what the tests compare with.
 * Worked: mu = 1, z = (0, 2, 0) -> (1, 1, 0).
 */
void cf_prox_cone(const double z[3], double mu, double out[3]);

/**
 * @brief ch07.1: prox onto the box |x_k| <= hi[k], k < @p n (n <= 3, hi[k] >= 0; a negative bound
 * counts as 0): each component clamped to [-hi_k, hi_k]. The box friction set of PGS.
 */
void cf_prox_box(int n, const double *z, const double *hi, double *out);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch07.2 The closest point on an ellipsoid and the friction set of a contact (15 points)
 *  @{ */

/**
 * @brief ch07.2: the closest point @p x of the ellipsoid {(x_1/a)^2 + (x_2/b)^2 + (x_3/c)^2 <= 1}
 * to @p z (notes Algorithm 13 with the digest's corrections; abc = (a, b, c), each >= 0).
 * Returns the bisection steps taken (0 when z is inside).
 * 1. An axis of length 0 forces its coordinate to 0 (x_i = 0); when every axis is 0, x = 0.
 * 2. Scale by a power of two: m = max(a, b, c, |z_1|, |z_2|, |z_3|) = f 2^e with f in [0.5, 1)
 *    (frexp()); z <- 2^-e z, (a, b, c) <- 2^-e (a, b, c) (ldexp(), exact). Every value is then in
 *    [-1, 1], for tiny inputs too (scaled by 1/max(1, ...), inputs near 1e-200 square to 0 and
 *    give 0/0). m = 0 (z = 0, no axis): x = 0.
 * 3. Inside: f(z) = sum z_i^2/a_i^2 - 1 <= 0 over the axes > 0 -> x = z (unscaled), with the
 *    coordinates of the axes of length 0 set to 0.
 * 4. Otherwise x(t) = (t K + I)^-1 z, x_i = a_i^2 z_i/(a_i^2 + t), K = diag(a_i^-2), at the root
 *    t* > 0 of g(t) = sum a_i^2 z_i^2/(a_i^2 + t)^2 - 1, which decreases strictly on t > 0.
 *    Bracket [0, t_1] with t_1 = max(a, b, c) |z| (|z|, not the listing's |c|; g(t_1) < 0 always,
 *    but grow t_1 by 1.5 while g(t_1) > 0 anyway), then bisect: t = (lo + hi)/2, g(t) > 0 -> lo = t,
 *    else hi = t, until hi - lo <= @p tol hi, or the midpoint equals lo or hi (no double between
 *    them), or 1100 steps; t* = (lo + hi)/2.
 * 5. Undo the scale: x = 2^e x(t*) (the listing's lines 18-19 are garbled).
 * The result is on the surface (f(x) = 0 to about 1e-15 relative), x - z is parallel to K x with a
 * negative multiplier (KKT), and it is the projection: for a, b, c from 1e-6 to 1e6.
 * Worked: (2, 1, 0.5), z = (3, 2, 1) -> (1.708406, 0.497007, 0.076357); the sphere (1, 1, 1),
 * z = (3, 4, 0) -> (0.6, 0.8, 0); (2, 1, 1e-3), z = (0.5, 0.5, 0) is inside.
 */
int cf_prox_ellipsoid(const double abc[3], const double z[3], double tol, double x[3]);

/**
 * @brief ch07.2: prox of the friction part of one contact. @p n friction rows (2: t, b; 3: t, b, tau),
 * @p z their values, @p mu = (mu_t, mu_b, mu_tau), @p lambda_n the normal impulse that sizes the
 * set (the old one in Jacobi, the new one in Gauss-Seidel). The semi-axes are a_k = mu_k
 * max(lambda_n, 0). @p r: the r-factors of the n rows when they differ (the local strategy), or
 * NULL. The projection is taken in the metric of R^-1 = diag(1/r_k), argmin_{x in F} sum (x_k -
 * z_k)^2 / r_k: only then is a fixed point lambda_F = prox(lambda_F - R v_F) the law -v_F in N_F
 * (with the plain Euclidean projection, r_t != r_b moves the answer off Coulomb's law). With
 * y = R^-1/2 x the set is the ellipsoid of semi-axes a_k/sqrt(r_k), so:
 * - @p box: cf_prox_box() with the bounds a_k (a box is a product of intervals: every diagonal
 *   metric gives the same clamp, which is why PGS may take 1/A_ii per row);
 * - r NULL or all r_k equal (a Euclidean projection), n = 2 and mu_t = mu_b: cf_prox_disk()
 *   (closed form, the isotropic Coulomb disk);
 * - r NULL or all r_k equal otherwise: cf_prox_ellipsoid() with the semi-axes (z_tau = 0, c = 0
 *   when n = 2) and relative tolerance @p tol;
 * - otherwise: y = cf_prox_ellipsoid() of semi-axes a_k/sqrt(r_k) applied to z_k/sqrt(r_k), then
 *   out_k = sqrt(r_k) y_k.
 */
void cf_prox_friction(int n, const double *z, const double mu[3], double lambda_n, const double *r, bool box,
                      double tol, double *out);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch07.3 PROX-Jacobi with adaptive r (20 points)
 *  A PROX solver is a sweep (Jacobi here, Gauss-Seidel in ch07.4) inside one adaptive loop,
 *  cf_prox_solve(). The r-factors R_a are one dim x dim block per contact (ch07.5) times a scalar
 *  scale that the adaptive rule shrinks.
 *  @{ */

/**
 * @brief ch07.3: the matrix-free w = M^-1 J^T lambda = G^T lambda (nv values): w = 0, then for every
 * row r = 0, 1, ..., m - 1 in this order and each stored entry (r, j) of G: w_j += lambda_r G_rj.
 * (The order is part of the specification: the parallel Jacobi sums in it too, bit for bit.)
 */
void cf_prox_w(const cfProxProblem *p, const double *lambda, double *w);

/** A sweep of a PROX solver: the trial impulses @p trial from @p lambda; returns |trial - lambda|_inf. */
typedef double (*cfProxSweep)(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                              const double *lambda, double *trial, double *w, double *v);

/**
 * @brief ch07.3: one PROX-Jacobi sweep (notes Eq.\ 227-228, Algorithm 11 lines 3-6).
 * w = cf_prox_w(lambda), v = J w + b (cf_prox_contact_velocity(); @p w and @p v are nv and m
 * values of scratch); then for every contact a, with its rows I: z = lambda_I - scale R_a v_I,
 * trial_n = cf_prox_normal(z_n) and trial_F = cf_prox_friction(z_F) sized by the OLD normal impulse
 * lambda_n (Jacobi: every contact reads only the previous iterate), with o->box and
 * o->ellipsoid_tol. Returns |trial - lambda|_inf. Contacts are independent: trivially parallel.
 */
double cf_prox_jacobi_sweep(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                            const double *lambda, double *trial, double *w, double *v);

/**
 * @brief ch07.3: the adaptive PROX loop (notes Algorithm 11; the same for every sweep).
 * @p lambda (m values) in: the start, out: the answer; @p rep and @p stats may be NULL. After the
 * provided check (cf_prox_check(); CF_BAD_INPUT with rep->status set) and the r-factors of the
 * strategy (cf_prox_r_init(), ch07.5), with e_old = INFINITY, the rule's state from cf_prox_adapt_init()
 * and its scale = o->scale0, each sweep k = 1, 2, ...:
 * 1. e = @p sweep (lambda -> trial);
 * 2. cf_prox_accept(o, &state, e) (ch07.5): accepted -> lambda = trial, e_old = e; rejected ->
 *    lambda stays (roll back) and the rule shrank scale by nu;
 * 3. push e_old (the accepted merit; e while none is accepted) to the report's history;
 * 4. stop after an accepted sweep when e <= tol (ABSOLUTE), tol = scale tol_abs (the merit per
 *    unit of the starting r-factors: after a shrink the step is shorter by the scale, which is
 *    not convergence; the listing compares e itself), or with o->bound_tol
 *    max(scale tol_abs, cf_prox_tol_bound(scale r_max, |A|_2, |lambda|_inf)) with |A|_2 from
 *    cf_prox_norm_estimate(p, 100, 1e-6) once and r_max = max_a |R_a|_inf; or, with tol_rel > 0
 *    and a previous accepted merit e_prev, when |e - e_prev| <= tol_rel e_prev (RELATIVE); after
 *    a rejected sweep when the rule's state says stalled (a reset at the floor without an accepted
 *    sweep since the last one: after a reset the window is empty, so only a merit that is not
 *    finite at every step size gets there: DIVERGENCE); after any sweep when k = max_iter
 *    (MAX_ITER; max_iter = 0 does no sweep).
 * The scale starts at max(o->scale0, o->scale_min). End with cf_prox_finish() (provided: status,
 * report, measure CF_MEASURE_IMPULSE_CHANGE). Stats: sweeps, accepted, rollbacks, grows (the rule
 * raised scale on an accepted sweep), resets (the rule's), r_scale = scale, r_max, merit = the last
 * accepted e, tol_used, reason.
 * Worked (digest 3.4.4): A = [[2, 1], [1, 2]], b = (-1, 1) on the unit disk (one contact of dim 3
 * with A_nn large and b_n < 0 so that lambda_n stays 1): fixed r = 1 (nu = 1) cycles
 * (1, 0) <-> (0, -1) forever; adaptive from r = 1 (nu 0.5) reaches 1e-10.
 */
cfStatus cf_prox_solve(const cfProxProblem *p, const cfProxOptions *o, cfProxSweep sweep, double *lambda,
                       cfReport *rep, cfProxStats *stats);

/**
 * The options of the registry's common parameters (cf_solver.h; provided, for the rows "prox-gs",
 * "prox-jacobi" and the OpenMP Jacobi): max_iter, tol as tol_abs (on the PROX merit), r_factor,
 * omega (the scale of local and blocked r-factors), the box set for the box model; a long solve
 * (max_iter >= 1000 and tol > 0: a file, not a world step) also raises the tolerance to the
 * accuracy bound (bound_tol), whose power iteration a short world step does without. The rule's
 * window is 16 (a Gauss-Seidel merit that does not fall at every sweep is not a divergence).
 */
cfProxOptions cf_prox_options_of(const cfSolverParams *par);

/**
 * Solve the FC3D problem @p fc with the PROX loop and @p sweep, options from @p par
 * (cf_prox_options_of()); @p r (3 nc) in: the warm start, out: the impulses (provided; the rows'
 * solve). @p scale (may be NULL) carries the adaptive scale from solve to solve: used as scale0
 * when in (0, 1], and set to min(1, 2 x the scale the solve ended with). Status as cf_prox_solve();
 * the errors of cf_prox_problem_from_fc().
 */
cfStatus cf_prox_solve_fc(const cfFrictionProblem *fc, cfProxSweep sweep, const cfSolverParams *par, double *scale,
                          double *r, cfReport *rep);

/** PROX-Jacobi: cf_prox_solve() with cf_prox_jacobi_sweep() (provided). */
cfStatus cf_prox_jacobi(const cfProxProblem *p, const cfProxOptions *o, double *lambda, cfReport *rep,
                        cfProxStats *stats);

/** The end of a PROX solve (provided): fills @p rep (reason, iterations, residual, status, measure
 *  CF_MEASURE_IMPULSE_CHANGE, time since @p t0) and @p stats' reason; returns the status (ABSOLUTE,
 *  RELATIVE: CF_OK; MAX_ITER: CF_MAX_ITER; STAGNATION: CF_STAGNATED; DIVERGENCE: CF_DIVERGED). */
cfStatus cf_prox_finish(cfReport *rep, cfProxStats *stats, cfStopReason why, int sweeps, double merit, double t0);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch07.4 PROX-Gauss-Seidel, blocked per contact (15 points)
 *  @{ */

/**
 * @brief ch07.4: one PROX-Gauss-Seidel sweep (notes Algorithm 12 with Eq.\ 231 fixed). trial = lambda;
 * w = cf_prox_w(lambda) once; then for each contact a in order 0..nc-1, with its rows I:
 * v_I = J_I w + b_I, z = trial_I - scale R_a v_I computed once for the whole block,
 * new_n = cf_prox_normal(z_n), new_F = cf_prox_friction(z_F) sized by the NEW normal impulse new_n,
 * then the incremental update w <- w + G_I^T (new_I - trial_I) (the listing's Eq.\ 231 drops the
 * "w +"; its Algorithm 12 line 9 has it) and trial_I = new_I. On return w = G^T trial up to
 * rounding (the tests compare with cf_prox_w(trial) to 1e-12). Returns |trial - lambda|_inf.
 * With the box set (o->box), local r-factors and scale 1 on a single particle (A_aa diagonal) a
 * sweep equals a sweep of boxed PGS (ch05.4): PGS is PROX with fixed r_i = 1/A_ii.
 */
double cf_prox_gs_sweep(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                        const double *lambda, double *trial, double *w, double *v);

/** PROX-Gauss-Seidel: cf_prox_solve() with cf_prox_gs_sweep() (provided). */
cfStatus cf_prox_gs(const cfProxProblem *p, const cfProxOptions *o, double *lambda, cfReport *rep,
                    cfProxStats *stats);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch07.5 r-factor strategies, the adaptive rule and the accuracy bound (15 points)
 *  @{ */

/**
 * @brief ch07.5: an estimate of |A|_2 = sqrt(lambda_max(A^T A)) by power iteration on A^T A,
 * matrix-free: A x = J (G^T x) and A^T y = G (J^T y). Start from x_i uniform in [-1, 1] drawn from
 * cf_rng seeded with 1, normalized; each step y = A^T A x, estimate sqrt(|y|), x = y/|y|; stop when
 * two estimates differ by <= @p tol relative or after @p max_iter steps. 0 for an empty problem
 * or A x = 0. For a symmetric PSD A it is lambda_max(A).
 */
double cf_prox_norm_estimate(const cfProxProblem *p, int max_iter, double tol);

/**
 * @brief ch07.5: the r-factors of @p o->strategy as one dim x dim block per contact into @p R
 * (nc dim^2 values, row-major blocks; notes Eq.\ 244-245, paper 001 section 4.2):
 * - GLOBAL: R_a = r I, r = o->r_global, or when 0 the estimate 1/|A|_2 (cf_prox_norm_estimate(),
 *   100 steps, tol 1e-6: Foerg's 1/(|lambda_min| + |lambda_max|) with lambda_min ~ 0);
 * - LOCAL: R_a = omega diag(1/A_rr) over the contact's rows (PGS's step; PSOR's with omega);
 * - BLOCKED: R_a = omega blockdiag(1/A_nn, (A_FF)^-1), A_FF the contact's friction block (2x2 or
 *   3x3, inverted; where it is singular (|det| <= 1e-12 times the product of its diagonal) the local
 *   factors instead).
 * A_aa from cf_prox_block(). The caller checked the problem (A_rr > 0).
 */
cfStatus cf_prox_r_init(const cfProxProblem *p, const cfProxOptions *o, double *R);

/**
 * @brief ch07.5: the adaptive rule (Algorithm 11 line 8 with the digest's fix, a window, an
 * optional growth, a floor and a reset). With ref = the largest of the last min(n, window)
 * accepted merits (ad->recent; INFINITY when none): reject when e_new is not below theta ref
 * (!(e_new < theta ref): a NaN too; the listing's strict ">" misses exact 2-cycles), ad->run = 0,
 * and then
 * - above the floor (ad->scale > o->scale_min): shrink, ad->scale = max(ad->scale nu, scale_min)
 *   (nu = cf_prox_nu());
 * - at the floor: reset, ad->stalled = !ad->progress, ad->progress = false, ad->scale = 1 (the
 *   starting r-factors), the window emptied (ad->n = 0), ++ad->resets.
 * Otherwise accept: append e_new to ad->recent (dropping the oldest when #CF_PROX_WINDOW_MAX are
 * kept), ad->progress = true, ++ad->run, and when grow > 1 and run >= grow_after:
 * scale = min(1, scale grow) and run = 0. Returns true when accepted.
 * With window 1 this is the listing's rule; a longer window lets a merit that converges without
 * falling at every sweep (Gauss-Seidel's often does) through, and still catches cycles. The
 * floor keeps the step from underflowing (a zero change is not convergence; small enough
 * r-factors converge, paper 001 section 4.2, so there is no sense in shrinking further); the reset
 * restarts the descent from the best iterate with the full step, and a second reset without an
 * accepted sweep in between says that no step size helps.
 */
bool cf_prox_accept(const cfProxOptions *o, cfProxAdapt *ad, double e_new);

/**
 * @brief ch07.5: the accuracy bound (notes lines 5578-5590): with lambda = (1 + eps) lambda* the
 * fixed-point residual is at most r eps |A| |lambda*|, so no tolerance below
 * @p r_max * DBL_EPSILON * @p norm_A * @p norm_lambda can be trusted. Returns 10 times that
 * (a safety factor for the rounding of a sweep).
 */
double cf_prox_tol_bound(double r_max, double norm_A, double norm_lambda);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch07.6 Moreau time stepping with a Newton impact law; the post-step projection (25 points)
 *  @{ */

/**
 * Contacts of the bodies at their current positions, for cf_moreau_step() (the caller's
 * detection, e.g.\ the world's): fill @p out (cleared first) with contacts whose lambda holds the
 * warm start (zero without one). Frames are set by the stepper.
 */
typedef cfStatus (*cfMoreauDetect)(void *ctx, cfRigidBody *bodies, int nb, cfContactList *out);

/** Options of the Moreau stepper. Start from cf_moreau_options_default(). */
typedef struct cfMoreauOptions {
    double h;              /**< time step (s, > 0; default 0.01, paper 001) */
    cfVec3 gravity;        /**< m/s^2 (default (0, 0, -9.81)) */
    bool gyroscopic;       /**< the gyroscopic term in the velocity update (default true) */
    int dim;               /**< 3: (n, t, b); 4: with the torsional row (default 4) */
    double mu_tau;         /**< torsional friction coefficient (m, >= 0; default 0.01, paper 001) */
    double restitution;    /**< Newton impact law epsilon_n in [0, 1] for every contact (default 0) */
    bool jacobi;           /**< PROX-Jacobi instead of PROX-Gauss-Seidel (default false) */
    cfProxOptions prox;    /**< the solver's options (default: cf_prox_options_default(), tol_abs 1e-3, tol_rel 1e-3) */
    int post_passes;       /**< post-step projection passes (0: off, the default, as in paper 001) */
} cfMoreauOptions;

/** h 0.01, gravity -9.81 z, gyroscopic, dim 4, mu_tau 0.01, restitution 0, GS, prox tolerances 1e-3/1e-3, no post-step projection. */
cfMoreauOptions cf_moreau_options_default(void);

/** What one Moreau step did. */
typedef struct cfMoreauStats {
    int contacts;          /**< contacts at the midpoint */
    cfProxStats prox;      /**< the solve */
    cfStatus prox_status;  /**< the solve's status */
    int post_passes;       /**< post-step passes done */
    double min_gap_after;  /**< smallest gap after the post-step projection (0 when not run or no contacts) */
} cfMoreauStats;

/**
 * @brief ch07.6: one Moreau midpoint step with PROX (notes 3.4.5, Eq.\ 246-247 with the H the
 * listing drops; paper 001 section 4.3). For the dynamic bodies:
 * 1. q^{t+1/2} = q^t + (h/2) H u^t (cf_rigid_integrate_position() with h/2, ch01.3);
 * 2. contacts at q^{t+1/2}: @p detect, then cf_prox_frame() on each;
 * 3. v^- = J u^t (pre-impact); u* = u^t + h M^-1 f (cf_rigid_integrate_velocity(), ch01.1);
 *    the problem of cf_prox_problem_rigid() at u* (b = J u*) plus, per contact, on the normal row:
 *    an open gap phi > 0 may close by the end of the step, g = 2 phi / h (the half step left;
 *    0 for phi <= 0); an impact (restitution > 0, approaching v^-_n < 0 and closing within the
 *    step, b_n + g < 0) takes Newton's law b_n += restitution v^-_n (the ball leaves at
 *    restitution |v^-_n|), otherwise b_n += g;
 * 4. lambda by PROX-GS (ch07.4) or PROX-Jacobi (ch07.3), warm started from the contacts' lambda
 *    (the torsional impulse from 0); u^{t+1} = u* + w with w = M^-1 J^T lambda (cf_prox_w());
 *    the contacts' lambda get the answer (n, t, b);
 * 5. q^{t+1} = q^{t+1/2} + (h/2) H u^{t+1};
 * 6. when post_passes > 0: cf_prox_post_project().
 * @p contacts (in/out, caller-owned) keeps the step's contacts for drawing and warm starting;
 * @p stats and @p rep may be NULL. Returns CF_OK, or the first failing call's status (a solve that
 * used its budget, CF_MAX_ITER, still moves the bodies and returns CF_OK; stats say so).
 * Free fall is exact: x^{t+1} = x + h v + (h^2/2) g.
 */
cfStatus cf_moreau_step(cfRigidBody *bodies, int nb, cfMoreauDetect detect, void *ctx, const cfMoreauOptions *o,
                        cfContactList *contacts, cfMoreauStats *stats, cfReport *rep);

/**
 * @brief ch07.6: the post-step projection (notes 3.4.6, Eq.\ 248-256): @p passes times, detect the
 * contacts at the current positions, then solve 0 <= J M^-1 J^T d + phi  _|_  d >= 0 for the
 * contact displacements d as a PROX problem (cf_prox_problem_rigid() with dim 3, mu = 0 and
 * b = phi: the friction rows stay 0) by PROX-GS with tol_abs 1e-12 and 1000 sweeps, and move
 * the bodies by dq = M^-1 J^T d = w: x += w_v, orientation by w_omega (cf_rigid_integrate_position()
 * with the velocities set to w for one unit of time, then restored). Velocities are unchanged.
 * Stops early when no gap is below -@p tol. Returns the passes done (>= 0) or a negative status.
 * Worked: a sphere 0.01 into the ground rises by 0.01 in one pass.
 */
int cf_prox_post_project(cfRigidBody *bodies, int nb, cfMoreauDetect detect, void *ctx, int passes, double tol,
                         double *min_gap);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH07_H */
