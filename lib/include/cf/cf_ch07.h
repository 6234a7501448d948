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
 * The grader holds each exercise file to docs/grading.md ("What an exercise may use"): helpers
 * and file-scope variables are `static`; from the C library only allocation, memory and string
 * functions, qsort, bsearch, the math library and printing to stdout/stderr; and no file is
 * opened (the library's cf_*_read_siconos(), cf_*_write_siconos() and cf_scene_load() are refused).
 *
 * The model (notes 3.4, Erleben 2017). Per contact I with impulse
 * \f$\lambda_I = (\lambda_n, \lambda_F)\f$ and contact velocity \f$v_I = (A \lambda + b)_I\f$, the
 * contact law is the pair of fixed points, for any r > 0,
 * \f[ \lambda_n = \mathrm{prox}_N(\lambda_n - r v_n), \quad N = [0, \infty) \qquad\text{(Signorini)}, \f]
 * \f[ \lambda_F = \mathrm{prox}_F(\lambda_F - r v_F), \quad F = F(\lambda_n) \text{ convex} \qquad\text{(maximal dissipation)}, \f]
 * where \f$\mathrm{prox}_C(z) = \arg\min_{x \in C} \|z - x\|\f$ is the Euclidean projection. The
 * friction set F is the disk \f$\|\lambda_T\| \le \mu \lambda_n\f$ (isotropic Coulomb), the
 * ellipse of the principal coefficients \f$(\mu_t, \mu_b)\f$, or with a fourth, torsional row
 * \f$\tau\f$ the Coulomb-Contensou ellipsoid
 * \f[ (\lambda_t/a)^2 + (\lambda_b/b)^2 + (\lambda_\tau/c)^2 \le 1, \qquad (a, b, c) = (\mu_t, \mu_b, \mu_\tau)\, \lambda_n. \f]
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
 * A contact problem in factored form, \f$A = J M^{-1} J^T\f$ never assembled (notes Eq.\ 230-231):
 * m = dim nc rows (dim per contact, contact a owns rows dim a to dim a + dim - 1, ordered
 * n, t, b[, tau]) over nv velocity unknowns.
 * - J (m x nv): the contact velocity of row r is \f$v_r = J_r u + b_r\f$;
 * - G (m x nv): \f$G = (M^{-1} J^T)^T\f$, row r is the velocity change of a unit impulse on row r
 *   (the notes precompute \f$M^{-1} J^T\f$ and store it transposed);
 *   \f$w = M^{-1} J^T \lambda = G^T \lambda\f$.
 * Then \f$A = J G^T\f$ and \f$v = J w + b\f$. Rigid bodies (cf_prox_problem_rigid()): nv = 6 nb,
 * \f$u = (v, \omega)\f$ per body, a row has at most 12 entries. An assembled FC3D problem
 * (cf_prox_problem_from_fc()): J = I and \f$G = W^T\f$, so that \f$w = W \lambda\f$ and A = W;
 * nothing else changes.
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
 * read from the contact: the velocity of row \f$d_k \in \{n, t, b\}\f$ is
 * \f$d_k \cdot (v_B + \omega_B \times r_B - v_A - \omega_A \times r_A)\f$ with r = p - x, and for
 * dim 4 the spin row \f$n \cdot (\omega_B - \omega_A)\f$. G holds the same rows times \f$M^{-1}\f$
 * (1/m for v, \f$I_{world}^{-1}\f$ for \f$\omega\f$). b = J u with the bodies' current velocities (call it after the
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
 * sparse dot product \f$J_{\mathrm{dim}\,a + k} \cdot G_{\mathrm{dim}\,a + l}\f$.
 */
void cf_prox_block(const cfProxProblem *p, int a, double *out);

/** The contact velocities v = J w + b (m values) for w (nv values). */
void cf_prox_contact_velocity(const cfProxProblem *p, const double *w, double *v);

/**
 * The natural-map residual of the PROX model at @p lambda (m values), the model's counterpart of
 * cf_fc_residual(): \f$\sqrt{\sum_a \|\lambda_a - P_a(\lambda_a - v_a)\|^2}\f$ with
 * \f$v = A \lambda + b\f$, \f$P_a\f$ = (\f$\mathrm{prox}_N\f$, then cf_prox_friction() with the
 * normal impulse it gave). Zero exactly at a
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
    double theta;        /**< reject when e^{k+1} >= theta max(last @ref window accepted merits), in (0, 1] (default 1: ">=", not the listing's ">", which catches exact cycles) */
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

/** @brief ch07.1: prox onto \f$N = [0, \infty)\f$: max(0, z). Worked: -2 gives 0, 0 gives 0, 3 gives 3. */
double cf_prox_normal(double z);

/**
 * @brief ch07.1: prox onto the disk \f$\|x\| \le\f$ @p radius (radius >= 0; a radius <= 0 gives 0):
 * z itself when inside, otherwise \f$\mathrm{radius}\; z/\|z\|\f$. Worked: z = (3, 4), radius 1 gives (0.6, 0.8).
 */
void cf_prox_disk(const double z[2], double radius, double out[2]);

/**
 * @brief ch07.1: prox onto the friction cone \f$K = \{\|x_T\| \le \mu x_n\}\f$ (x = (n, t, b)),
 * closed form (../shared/data/siconos-fc3d/README.md): inside (\f$\|z_T\| \le \mu z_n\f$) z; in
 * the polar cone (\f$\mu \|z_T\| \le -z_n\f$) 0; otherwise
 * \f[ x_n = \frac{\mu \|z_T\| + z_n}{\mu^2 + 1}, \qquad x_T = \mu\, x_n \frac{z_T}{\|z_T\|}. \f]
 * Write it yourself: the library's cf_cone_project() is what the tests compare with.
 * Worked: mu = 1, z = (0, 2, 0) gives (1, 1, 0).
 */
void cf_prox_cone(const double z[3], double mu, double out[3]);

/**
 * @brief ch07.1: prox onto the box \f$|x_k| \le hi_k\f$, k < @p n (n <= 3, hi[k] >= 0; a negative
 * bound counts as 0): each component clamped to \f$[-hi_k, hi_k]\f$. The box friction set of PGS.
 */
void cf_prox_box(int n, const double *z, const double *hi, double *out);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch07.2 The closest point on an ellipsoid and the friction set of a contact (15 points)
 *  Some of its tests also call ch07.1: write it first.
 *  @{ */

/**
 * @brief ch07.2: the closest point @p x of the ellipsoid
 * \f$\{(x_1/a)^2 + (x_2/b)^2 + (x_3/c)^2 \le 1\}\f$ to @p z (notes Algorithm 13 with the README's
 * corrections; abc = (a, b, c), each >= 0). Returns the bisection steps taken (0 when z is inside).
 * 1. An axis of length 0 forces its coordinate to 0 (\f$x_i = 0\f$); when every axis is 0, x = 0.
 * 2. Scale by a power of two: \f$m = \max(a, b, c, |z_1|, |z_2|, |z_3|) = f\, 2^e\f$ with f in
 *    [0.5, 1) (frexp()); \f$z \leftarrow 2^{-e} z\f$, \f$(a, b, c) \leftarrow 2^{-e} (a, b, c)\f$
 *    (ldexp(), exact). Every value is then in [-1, 1], for tiny inputs too (scaled by
 *    \f$1/\max(1, \dots)\f$, inputs near \f$10^{-200}\f$ square to 0 and give 0/0). m = 0 (z = 0,
 *    no axis): x = 0.
 * 3. Inside: \f$f(z) = \sum_i z_i^2/a_i^2 - 1 \le 0\f$ over the axes > 0: x = z (unscaled), with
 *    the coordinates of the axes of length 0 set to 0.
 * 4. Otherwise \f$x(t) = (t K + I)^{-1} z\f$, \f$x_i = a_i^2 z_i/(a_i^2 + t)\f$,
 *    \f$K = \mathrm{diag}(a_i^{-2})\f$, at the root \f$t^* > 0\f$ of
 *    \f[ g(t) = \sum_i \frac{a_i^2 z_i^2}{(a_i^2 + t)^2} - 1, \f]
 *    which decreases strictly on t > 0. Bracket \f$[0, t_1]\f$ with \f$t_1 = \max(a, b, c)\, \|z\|\f$
 *    (\f$\|z\|\f$, not the listing's |c|; \f$g(t_1) < 0\f$ always, but grow \f$t_1\f$ by 1.5 while
 *    \f$g(t_1) > 0\f$ anyway), then bisect: t = (lo + hi)/2, g(t) > 0 gives lo = t, else hi = t,
 *    until hi - lo <= @p tol hi, or the midpoint equals lo or hi (no double between them), or 1100
 *    steps; \f$t^* = (lo + hi)/2\f$.
 * 5. Undo the scale: \f$x = 2^e x(t^*)\f$ (the listing's lines 18-19 are garbled).
 *
 * The result is on the surface (f(x) = 0 to about 1e-15 relative), x - z is parallel to K x with a
 * negative multiplier (KKT), and it is the projection: for a, b, c from 1e-6 to 1e6, and for z
 * as far as 1e155 times the axes (m includes |z|: scaled by the axes alone, z^2 overflows there).
 * Worked: (2, 1, 0.5), z = (3, 2, 1) gives (1.708406, 0.497007, 0.076357); the sphere (1, 1, 1),
 * z = (3, 4, 0) gives (0.6, 0.8, 0); (2, 1, 1e-3), z = (0.5, 0.5, 0) is inside.
 */
int cf_prox_ellipsoid(const double abc[3], const double z[3], double tol, double x[3]);

/**
 * @brief ch07.2: prox of the friction part of one contact. @p n friction rows (2: t, b; 3: t, b, tau),
 * @p z their values, @p mu = (mu_t, mu_b, mu_tau), @p lambda_n the normal impulse that sizes the
 * set (the old one in Jacobi, the new one in Gauss-Seidel). The semi-axes are
 * \f$a_k = \mu_k \max(\lambda_n, 0)\f$. @p r: the r-factors of the n rows when they differ (the
 * local strategy), or NULL. The projection is taken in the metric of
 * \f$R^{-1} = \mathrm{diag}(1/r_k)\f$,
 * \f[ \arg\min_{x \in F} \sum_k \frac{(x_k - z_k)^2}{r_k}: \f]
 * only then is a fixed point \f$\lambda_F = \mathrm{prox}(\lambda_F - R v_F)\f$ the law
 * \f$-v_F \in N_F\f$ (with the plain Euclidean projection, \f$r_t \ne r_b\f$ moves the answer off
 * Coulomb's law). With \f$y = R^{-1/2} x\f$ the set is the ellipsoid of semi-axes
 * \f$a_k/\sqrt{r_k}\f$, so:
 * - @p box: cf_prox_box() with the bounds a_k (a box is a product of intervals: every diagonal
 *   metric gives the same clamp, which is why PGS may take 1/A_ii per row);
 * - r NULL or all r_k equal (a Euclidean projection), n = 2 and mu_t = mu_b: cf_prox_disk()
 *   (closed form, the isotropic Coulomb disk);
 * - r NULL or all r_k equal otherwise: cf_prox_ellipsoid() with the semi-axes (z_tau = 0, c = 0
 *   when n = 2) and relative tolerance @p tol;
 * - otherwise: y = cf_prox_ellipsoid() of semi-axes \f$a_k/\sqrt{r_k}\f$ applied to
 *   \f$z_k/\sqrt{r_k}\f$, then \f$\mathrm{out}_k = \sqrt{r_k}\, y_k\f$.
 */
void cf_prox_friction(int n, const double *z, const double mu[3], double lambda_n, const double *r, bool box,
                      double tol, double *out);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch07.3 PROX-Jacobi with adaptive r (20 points)
 *  A PROX solver is a sweep (Jacobi here, Gauss-Seidel in ch07.4) inside one adaptive loop,
 *  cf_prox_solve(). The r-factors R_a are one dim x dim block per contact (ch07.5) times a scalar
 *  scale that the adaptive rule shrinks.
 *  Some of its tests also call ch07.1, ch07.2, ch07.4 and ch07.5: write those first.
 *  @{ */

/**
 * @brief ch07.3: the matrix-free \f$w = M^{-1} J^T \lambda = G^T \lambda\f$ (nv values): w = 0,
 * then for every row r = 0, 1, ..., m - 1 in this order and each stored entry (r, j) of G:
 * \f$w_j \mathrel{+}= \lambda_r G_{rj}\f$. (The reference sums in this order, and its parallel
 * Jacobi in the same one, bit for bit; the tests accept any order to 1e-12.)
 */
void cf_prox_w(const cfProxProblem *p, const double *lambda, double *w);

/** A sweep of a PROX solver: the trial impulses @p trial from @p lambda; returns |trial - lambda|_inf. */
typedef double (*cfProxSweep)(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                              const double *lambda, double *trial, double *w, double *v);

/**
 * @brief ch07.3: one PROX-Jacobi sweep (notes Eq.\ 227-228, Algorithm 11 lines 3-6).
 * w = cf_prox_w(lambda), v = J w + b (cf_prox_contact_velocity(); @p w and @p v are nv and m
 * values of scratch); then for every contact a, with its rows I: \f$z = \lambda_I - \mathrm{scale}\; R_a v_I\f$,
 * trial_n = cf_prox_normal(z_n) and trial_F = cf_prox_friction(z_F) sized by the OLD normal impulse
 * lambda_n (Jacobi: every contact reads only the previous iterate), with o->box and
 * o->ellipsoid_tol. Returns \f$\|\mathrm{trial} - \lambda\|_\infty\f$. Contacts are independent: trivially parallel.
 */
double cf_prox_jacobi_sweep(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                            const double *lambda, double *trial, double *w, double *v);

/**
 * @brief ch07.3: the adaptive PROX loop (notes Algorithm 11; the same for every sweep).
 * @p lambda (m values) in: the start, out: the answer; @p rep and @p stats may be NULL. After the
 * provided check (cf_prox_check(); CF_BAD_INPUT with rep->status set) and the r-factors of the
 * strategy (cf_prox_r_init(), ch07.5), with e_old = INFINITY, the rule's state from cf_prox_adapt_init()
 * and its scale = max(o->scale0, o->scale_min), each sweep k = 1, 2, ...:
 * 1. e = @p sweep (lambda -> trial);
 * 2. cf_prox_accept(o, &state, e) (ch07.5): accepted -> lambda = trial, e_old = e; rejected ->
 *    lambda stays (roll back) and the rule shrank scale by nu (or, at its floor, reset it);
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
 * End with cf_prox_finish() (provided: status,
 * report, measure CF_MEASURE_IMPULSE_CHANGE). Stats: sweeps, accepted, rollbacks, grows (the rule
 * raised scale on an accepted sweep), resets (the rule's), r_scale = scale, r_max, merit = the last
 * accepted e, tol_used, reason.
 * Worked: A = [[2, 1], [1, 2]], b = (-1, 1) on the unit disk (one contact of dim 3
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

/** PROX-Jacobi: cf_prox_solve() with cf_prox_jacobi_sweep() (provided; @p rep, @p stats may be NULL). */
cfStatus cf_prox_jacobi(const cfProxProblem *p, const cfProxOptions *o, double *lambda, cfReport *rep,
                        cfProxStats *stats);

/** The end of a PROX solve (provided): fills @p rep (reason, iterations, residual, status, measure
 *  CF_MEASURE_IMPULSE_CHANGE, time since @p t0) and @p stats' reason; returns the status (ABSOLUTE,
 *  RELATIVE: CF_OK; MAX_ITER: CF_MAX_ITER; STAGNATION: CF_STAGNATED; DIVERGENCE: CF_DIVERGED). */
cfStatus cf_prox_finish(cfReport *rep, cfProxStats *stats, cfStopReason why, int sweeps, double merit, double t0);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch07.4 PROX-Gauss-Seidel, blocked per contact (15 points)
 *  Some of its tests also call ch07.1, ch07.2, ch07.3 and ch07.5: write those first.
 *  @{ */

/**
 * @brief ch07.4: one PROX-Gauss-Seidel sweep (notes Algorithm 12 with Eq.\ 231 fixed). trial = lambda;
 * w = cf_prox_w(lambda) once; then for each contact a in order 0..nc-1, with its rows I:
 * \f$v_I = J_I w + b_I\f$, \f$z = \mathrm{trial}_I - \mathrm{scale}\; R_a v_I\f$ computed once
 * for the whole block, new_n = cf_prox_normal(z_n), new_F = cf_prox_friction(z_F) sized by the NEW
 * normal impulse new_n, then the incremental update
 * \f$w \leftarrow w + G_I^T (\mathrm{new}_I - \mathrm{trial}_I)\f$ (the listing's Eq.\ 231 drops
 * the "w +"; its Algorithm 12 line 9 has it) and trial_I = new_I. On return
 * \f$w = G^T \mathrm{trial}\f$ up to rounding (the tests compare with cf_prox_w(trial) to 1e-12).
 * Returns \f$\|\mathrm{trial} - \lambda\|_\infty\f$.
 * With the box set (o->box), local r-factors and scale 1 on a single particle (A_aa diagonal) a
 * sweep equals a sweep of boxed PGS (ch05.4): PGS is PROX with fixed r_i = 1/A_ii.
 */
double cf_prox_gs_sweep(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                        const double *lambda, double *trial, double *w, double *v);

/** PROX-Gauss-Seidel: cf_prox_solve() with cf_prox_gs_sweep() (provided; @p rep, @p stats may be NULL). */
cfStatus cf_prox_gs(const cfProxProblem *p, const cfProxOptions *o, double *lambda, cfReport *rep,
                    cfProxStats *stats);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch07.5 r-factor strategies, the adaptive rule and the accuracy bound (15 points)
 *  Some of its tests also call ch07.1, ch07.2, ch07.3 and ch07.4: write those first.
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
 * - GLOBAL: \f$R_a = r I\f$, r = o->r_global, or when 0 the estimate \f$1/\|A\|_2\f$
 *   (cf_prox_norm_estimate(), 100 steps, tol 1e-6: Foerg's
 *   \f$1/(|\lambda_{min}| + |\lambda_{max}|)\f$ with \f$\lambda_{min} \approx 0\f$);
 * - LOCAL: \f$R_a = \omega\, \mathrm{diag}(1/A_{rr})\f$ over the contact's rows (PGS's step; PSOR's with \f$\omega\f$);
 * - BLOCKED: \f$R_a = \omega\, \mathrm{blockdiag}(1/A_{nn}, A_{FF}^{-1})\f$, \f$A_{FF}\f$ the contact's friction block (2x2 or
 *   3x3, inverted; where it is singular (|det| <= 1e-12 times the product of its diagonal) the local
 *   factors instead).
 * A_aa from cf_prox_block(). The caller checked the problem (A_rr > 0).
 */
cfStatus cf_prox_r_init(const cfProxProblem *p, const cfProxOptions *o, double *R);

/**
 * @brief ch07.5: the adaptive rule (Algorithm 11 line 8 with ">=" for ">", a window, an
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
 * @brief ch07.5: the accuracy bound (notes §3.4, after Algorithm 11): with
 * \f$\lambda = (1 + \epsilon) \lambda^*\f$ the fixed-point residual is at most
 * \f$r\, \epsilon\, \|A\|\, \|\lambda^*\|\f$, so no tolerance below
 * \f$r_{max}\, \epsilon_{mach}\, \|A\|_2\, \|\lambda\|\f$ (@p r_max, DBL_EPSILON, @p norm_A,
 * @p norm_lambda) can be trusted. Returns 10 times that (a safety factor for the rounding of a sweep).
 */
double cf_prox_tol_bound(double r_max, double norm_A, double norm_lambda);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch07.6 Moreau time stepping with a Newton impact law; the post-step projection (25 points)
 *  Some of its tests also call ch07.1, ch07.2, ch07.3, ch07.4 and ch07.5: write those first.
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
 * 1. \f$q^{t+1/2} = q^t + \tfrac{h}{2} H u^t\f$ (cf_rigid_integrate_position() with h/2, ch01.3);
 * 2. contacts at \f$q^{t+1/2}\f$: @p detect, then cf_prox_frame() on each;
 * 3. \f$v^- = J u^t\f$ (pre-impact); \f$u^* = u^t + h M^{-1} f\f$ (cf_rigid_integrate_velocity(),
 *    ch01.1); the problem of cf_prox_problem_rigid() at \f$u^*\f$ (\f$b = J u^*\f$) plus, per
 *    contact, on the normal row: an open gap \f$\phi > 0\f$ may close by the end of the step,
 *    \f$g = 2\phi/h\f$ (the half step left; 0 for \f$\phi \le 0\f$); an impact (restitution > 0,
 *    approaching \f$v^-_n < 0\f$ and closing within the step, \f$b_n + g < 0\f$) takes Newton's law
 *    \f$b_n \mathrel{+}= \varepsilon_n v^-_n\f$ (the ball leaves at \f$\varepsilon_n |v^-_n|\f$,
 *    \f$\varepsilon_n\f$ = restitution), otherwise \f$b_n \mathrel{+}= g\f$;
 * 4. \f$\lambda\f$ by PROX-GS (ch07.4) or PROX-Jacobi (ch07.3), warm started from the contacts'
 *    lambda (the torsional impulse from 0); \f$u^{t+1} = u^* + w\f$ with
 *    \f$w = M^{-1} J^T \lambda\f$ (cf_prox_w()); the contacts' lambda get the answer (n, t, b);
 * 5. \f$q^{t+1} = q^{t+1/2} + \tfrac{h}{2} H u^{t+1}\f$;
 * 6. when post_passes > 0: cf_prox_post_project().
 * @p contacts (in/out, caller-owned) keeps the step's contacts for drawing and warm starting;
 * @p stats and @p rep may be NULL. Returns CF_OK, or the first failing call's status (a solve that
 * used its budget, CF_MAX_ITER, still moves the bodies and returns CF_OK; stats say so).
 * Free fall is exact: \f$x^{t+1} = x + h v + \tfrac{h^2}{2} g\f$.
 */
cfStatus cf_moreau_step(cfRigidBody *bodies, int nb, cfMoreauDetect detect, void *ctx, const cfMoreauOptions *o,
                        cfContactList *contacts, cfMoreauStats *stats, cfReport *rep);

/**
 * @brief ch07.6: the post-step projection (notes 3.4.6, Eq.\ 248-256): @p passes times, detect the
 * contacts at the current positions, then solve
 * \f[ 0 \le J M^{-1} J^T d + \phi \;\perp\; d \ge 0 \f]
 * for the contact displacements d as a PROX problem (cf_prox_problem_rigid() with dim 3, mu = 0
 * and \f$b = \phi\f$: the friction rows stay 0) by PROX-GS with tol_abs 1e-12 and 1000 sweeps, and
 * move the bodies by \f$\Delta q = M^{-1} J^T d = w\f$: \f$x \mathrel{+}= w_v\f$, orientation by
 * \f$w_\omega\f$ (cf_rigid_integrate_position()
 * with the velocities set to w for one unit of time, then restored). Velocities are unchanged.
 * Stops early when no gap is below -@p tol. Returns the passes done (>= 0), or at once the
 * negative of the status of the first call that fails (the detection, the rows, the solve, a
 * position update: a contact that no body can move makes the solve fail, at every pass).
 * Worked: a sphere 0.01 into the ground rises by 0.01 in one pass.
 */
int cf_prox_post_project(cfRigidBody *bodies, int nb, cfMoreauDetect detect, void *ctx, int passes, double tol,
                         double *min_gap);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH07_H */
