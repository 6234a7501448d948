/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch10.h
 * @brief Chapter 10 exercises: anisotropic friction. The Matchstick cone generator, the friction
 *        ellipse (projection and maximal dissipation), anisotropic PROX-Gauss-Seidel and blocked
 *        PGS, the NCP formulation inside chapter 6's Newton, friction tensors and texture
 *        friction by plowing.
 *
 * The text is chapters/ch10/README.md; the tests are chapters/ch10/tests/test_ch10.c
 * (`make test-ch10`). Each function marked "ch10.K" is an exercise: its specification here is
 * authoritative. Your implementations go in exercises/ch10/; they may call anything in
 * lib/include/cf/ (cf_problem.h residuals, cf_linalg.h), the "Provided" functions of this header
 * and chapters 1-7 (cf_ch01.h ... cf_ch07.h).
 * The grader holds each exercise file to docs/grading.md ("What an exercise may use"): helpers
 * and file-scope variables are `static`; from the C library only allocation, memory and string
 * functions, qsort, bsearch, the math library and printing to stdout/stderr; and no file is
 * opened (the library's cf_*_read_siconos(), cf_*_write_siconos() and cf_scene_load() are refused).
 *
 * The point of the chapter (course notes chapter 6): a solver needs only a projection
 * onto the friction set, so a friction law that is an ellipse instead of a disk plugs into PGS
 * (chapter 5), Newton (chapter 6) and PROX (chapter 7) alike; and with an ellipse the force of
 * maximal dissipation is not anti-parallel to the sliding velocity.
 *
 * Conventions (docs/conventions.md): the contact frame C = [n t b] is orthonormal and right-handed
 * (\f$b = n \times t\f$); impulses per contact (n, t, b) in N s; \f$u = v_B - v_A\f$ in the contact
 * frame (\f$u_n > 0\f$ separates) and the impulse acts on B along +n. An ellipse of principal
 * coefficients mu_tb \f$= (\mu_t, \mu_b)\f$ in the (t, b) frame is the friction set
 * \f[ E(\lambda_n) = \Big\{ \Big(\frac{\lambda_t}{\mu_t}\Big)^2 + \Big(\frac{\lambda_b}{\mu_b}\Big)^2 \le \lambda_n^2 \Big\}: \f]
 * a problem with ellipses
 * is a cfFrictionProblem with cfFrictionProblem::ellipse set (cf_problem.h). Every solver's
 * report @p rep (::cfReport) may be NULL (the tests pass NULL).
 */
#ifndef CF_CH10_H
#define CF_CH10_H

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_contact.h"
#include "cf/cf_linalg.h"
#include "cf/cf_problem.h"
#include "cf/cf_solver.h"

/* chapter 10 builds on the splitting options (ch05), the Newton loop (ch06) and the factored
   PROX problem (ch07) */
#include "cf/cf_ch05.h"
#include "cf/cf_ch06.h"
#include "cf/cf_ch07.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/** @name Provided: structure directions, the ellipse of a problem and of a contact
 *  (provided.c, not exercises)
 *  @{ */

/** Name of a field kind ("world", "body", "circles"); "unknown" for other values. */
const char *cf_field_kind_name(cfFieldKind k);

/**
 * The direction of field @p f at the world point @p p: WORLD dir; BODY the body's orientation
 * applied to dir (@p body NULL, a static side: dir as it is); CIRCLES axis x (p - center).
 * Not normalized; (0, 0, 0) on the axis of CIRCLES. The callers project it on the tangent plane.
 */
cfVec3 cf_direction_field_at(const cfDirectionField *f, cfVec3 p, const cfRigidBody *body);

/** CF_BAD_INPUT with a message naming @p what for a field of unknown kind, non-finite data or a zero dir/axis. */
cfStatus cf_direction_field_check(const cfDirectionField *f, const char *what, cfError *err);

/**
 * The ellipse of contact @p a of @p p into @p mu_tb: cfFrictionProblem::ellipse when set, else
 * (mu, mu): the one accessor every solver of this chapter reads the friction set through.
 */
void cf_fc_ellipse_of(const cfFrictionProblem *p, int a, double mu_tb[2]);

/**
 * The isotropic problem equivalent to the elliptic one @p p (the change of variables of
 * cf_contact_residual2_ellipse()): with m_a = mu[a] = max(mu_t, mu_b) and per contact
 * S_a = diag(1, mu_t / m_a, mu_b / m_a) (the identity when m_a = 0), W' = S W S, q' = S q,
 * mu' = m. A solution r' of (W', q', mu') gives r = S r' of @p p, with the same maximal
 * dissipation (r.u = r'.u'). @p scale (2 nc values) receives the tangent entries of S.
 * A problem without ellipses is copied (scale 1). Allocates @p iso (free with cf_fc_free()).
 * The world hands it to every solver that reads one mu per contact (chapters 4-7; for Lemke's
 * polyhedral LCP the rays then lie on the ellipse's rim, notes 6.1.4); the tests use it as an
 * independent route to the solution.
 */
cfStatus cf_fc_isotropic_equivalent(const cfFrictionProblem *p, cfFrictionProblem *iso, double *scale);

/**
 * The factored PROX problem (ch07) of an FC3D problem with ellipses: cf_prox_problem_from_fc()
 * with mu = (mu_t, mu_b, 0) from cf_fc_ellipse_of(). Errors as cf_prox_problem_from_fc().
 */
cfStatus cf_aniso_problem_from_fc(const cfFrictionProblem *fc, cfProxProblem *p);

/**
 * Turn the law of contact @p c (frame n filled; cf_contact_friction()) into its ellipse in the
 * contact frame, the form the assembled problem carries, written back to c's extra: ISOTROPIC
 * (also no extra): nothing; ORTHOTROPIC: t = the unit projection of the law's dir on the tangent
 * plane (the ch02.2 frame's t when dir is along n), b = n x t, coef kept; TENSOR: the equivalent cone of the tensor L = coef in the frame (dir, n x dir)
 * (cf_friction_tensor_cone(), ch10.5): t turned by its angle, coef = its (mu_t, mu_b). Afterwards
 * the law is ORTHOTROPIC with dir = t, and mu = max(coef) (the bound of cfContact::mu).
 * CF_BAD_INPUT for a normal that is not unit length or an unknown law; CF_SINGULAR for a singular
 * tensor (no cone: notes 6.2); the status of ch10.5 (CF_NOT_IMPLEMENTED on the stub).
 */
cfStatus cf_contact_ellipse_frame(cfContact *c);

/** The Matchstick model's three coefficients (notes 6.1.2). */
typedef struct cfMatchstick {
    double mu;   /**< the isotropic coefficient, for structures at right angles (>= 0) */
    double mu_t; /**< mu_t^A: along the structure when parallel (>= 0; usually the smaller) */
    double mu_b; /**< mu_b^A: across the structure when parallel (>= 0) */
} cfMatchstick;

/**
 * The Matchstick law of contact @p c (normal filled) from the structure directions @p s_a of
 * side A and @p s_b of side B (world): cf_matchstick_cone() (ch10.1) sets the frame (t, b) and the
 * ellipse, and the contact's law becomes ORTHOTROPIC with dir = t, coef = (mu_t, mu_b), mu = max.
 * The law is written to c's extra, which must exist (cf_contacts_extra() makes one in the contact's
 * list, or point it at a cfContactExtra of your own): CF_BAD_INPUT when c->extra is NULL. Otherwise
 * the status of ch10.1.
 */
cfStatus cf_contact_matchstick(cfContact *c, cfVec3 s_a, cfVec3 s_b, const cfMatchstick *m);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch10.1 The Matchstick cone generator (10 points)
 *  @{ */

/**
 * @brief ch10.1: notes Algorithm 21, made robust (steps 1, 3). In: the unit normal @p n, the
 * structure directions @p s_a, @p s_b of the two surfaces (world, any length), the model @p m.
 * Out: the frame @p t, @p b and the ellipse @p mu_tb \f$= (\mu_t, \mu_b)\f$.
 * 1. Project each direction on the tangent plane, \f$s \leftarrow s - (s \cdot n)\, n\f$, and
 *    normalize. A direction whose projection is shorter than \f$10^{-9} \|s\|\f$ (or zero) has no
 *    orientation: that surface is unstructured, d = 0 (isotropic), and t is the other direction's
 *    projection, or ch02.2's t (cf_contact_frame()) when neither has one.
 * 2. Orientation only counts: if \f$s_a \cdot s_b < 0\f$, \f$s_b \leftarrow -s_b\f$.
 * 3. \f$\theta = \arccos(\mathrm{clamp}(s_a \cdot s_b, 0, 1))\f$,
 *    \f$d = 1 - 2\theta/\pi\f$ (1 parallel, 0 at right angles). For \f$\pi\f$ use CF_PI
 *    (cf_math.h): M_PI is not part of C17, and `-std=c17` does not declare it.
 * 4. \f$\mu_t = d\, \mu_t^A + (1 - d)\, \mu\f$, \f$\mu_b = d\, \mu_b^A + (1 - d)\, \mu\f$ (linear in d).
 * 5. \f$t = (s_a + s_b) / \|s_a + s_b\|\f$ (the mean structure direction;
 *    \f$\|s_a + s_b\| \ge \sqrt{2}\f$ after the flip), \f$b = n \times t\f$.
 * CF_BAD_INPUT for a normal whose length is not 1 within \f$10^{-6}\f$, non-finite input or a
 * negative coefficient.
 * Worked (\f$\mu = 0.5\f$, \f$\mu^A = (0.2, 0.8)\f$, n = z, \f$s_a\f$ = x): \f$s_b\f$ = x or -x
 * gives (0.2, 0.8), t = x, b = y; \f$s_b\f$ = y gives (0.5, 0.5); \f$s_b\f$ at 45 degrees gives
 * d = 0.5, (0.35, 0.65), t at 22.5 degrees (0.92388, 0.38268, 0), b = (-0.38268, 0.92388, 0).
 */
cfStatus cf_matchstick_cone(cfVec3 n, cfVec3 s_a, cfVec3 s_b, const cfMatchstick *m, cfVec3 *t, cfVec3 *b,
                            double mu_tb[2]);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch10.2 The friction ellipse: projection and maximal dissipation (15 points)
 *  @{ */

/**
 * @brief ch10.2: the closest point @p x of the ellipse \f$\{(x_1/a_1)^2 + (x_2/a_2)^2 \le 1\}\f$,
 * semi-axes @p axes \f$= (a_1, a_2) \ge 0\f$, to @p z: chapter 7's bisection (ch07.2) in the plane.
 * 1. An axis of length 0 pins its coordinate (\f$x_i = 0\f$); both 0: x = 0.
 * 2. Scale by a power of two, as ch07.2 does: \f$m = \max(a_1, a_2, |z_1|, |z_2|) = f\,2^e\f$ with
 *    f in [0.5, 1) (frexp()), \f$z \leftarrow 2^{-e} z\f$, \f$a \leftarrow 2^{-e} a\f$ (ldexp(),
 *    exact); m = 0: x = 0. (The notes' \f$s = 1/\max(1, \dots)\f$ never scales up: inputs near
 *    \f$10^{-200}\f$ square to 0 and give 0/0; chapter 7's errata. The test projects at
 *    \f$10^{-200}\f$ and \f$10^{200}\f$.)
 * 3. Inside (\f$\sum_i z_i^2/a_i^2 \le 1\f$ over the axes > 0): x = z (coordinates of zero axes set to 0).
 * 4. Otherwise \f$x_i = a_i^2 z_i / (a_i^2 + t)\f$ at the root \f$t^* > 0\f$ of the decreasing
 *    \f[ g(t) = \sum_i \frac{a_i^2 z_i^2}{(a_i^2 + t)^2} - 1: \f]
 *    bracket \f$[0, t_1]\f$, \f$t_1 = \max(a)\,\|z\|\f$ (grown by 1.5 while \f$g(t_1) > 0\f$), bisect
 *    until hi - lo <= @p tol hi, the midpoint equals an end, or 1100 steps.
 * 5. Undo the scale (\f$x \leftarrow 2^e x\f$). Returns the bisection steps (0 inside): a cost,
 *    which the tests bound (a stop on only one end runs on to the cap at tol 0) but do not pin
 *    (another valid bracket or rounding of the midpoint changes it by a step or two).
 * Properties the tests check: on the boundary when z is outside, \f$z - x = t K x\f$ with
 * \f$t \ge 0\f$ (\f$K = \mathrm{diag}(a_i^{-2})\f$: the normal of the ellipse), idempotent, no
 * sampled boundary point closer; a circle gives ch07.1's disk. Worked: axes (2, 1), z = (3, 2)
 * gives (1.72541, 0.50571).
 */
int cf_ellipse_project(const double axes[2], const double z[2], double tol, double x[2]);

/**
 * @brief ch10.2: the force of maximal dissipation on the ellipse @p mu_tb sized by @p lambda_n
 * (negative counts as 0) for the sliding velocity @p v (t, b): the f in \f$E(\lambda_n)\f$ that
 * minimizes \f$f \cdot v\f$,
 * \f[ f = -\lambda_n \frac{D^2 v}{\|D v\|}, \qquad D = \mathrm{diag}(\mu_t, \mu_b) \f]
 * (Lagrange: \f$-v\f$ is normal to the ellipse at f). It lies on the boundary and is
 * anti-parallel to v only when v is along t or b. f = 0 when \f$\|D v\| = 0\f$.
 * Worked: (0.2, 0.8), \f$\lambda_n = 1\f$, v at 45 degrees: f at 86.4 degrees from -t, not 45.
 */
void cf_ellipse_max_dissipation(const double mu_tb[2], double lambda_n, const double v[2], double f[2]);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch10.3 Anisotropic PROX-Gauss-Seidel (Algorithm 22) and blocked PGS (25 points)
 *  Some of its tests also call ch10.2: write it first.
 *  @{ */

/**
 * The cone generator G of Algorithm 22: the semi-axes @p axes (N s) of the friction ellipse of
 * contact @p contact for the normal impulse @p lambda_n just computed and the contact's tangential
 * velocity @p v_t (t, b) of the same sweep. NULL in cf_aniso_prox_gs(): the fixed ellipse,
 * axes = (mu_t, mu_b) max(lambda_n, 0) with (mu_t, mu_b) = cfProxProblem::mu.
 */
typedef void (*cfConeGenerator)(void *ctx, int contact, double lambda_n, const double v_t[2], double axes[2]);

/** Options of cf_aniso_prox_gs(). Start from cf_aniso_prox_options_default(). */
typedef struct cfAnisoProxOptions {
    int max_iter;       /**< sweeps allowed, accepted or rejected (>= 0; default 1000) */
    double tol;         /**< stop when an accepted merit |lambda^{k+1} - lambda^k|_inf <= tol (>= 0; default 1e-10) */
    double r;           /**< the r-factor of row i is r / A_ii (> 0; default 1: PGS's step) */
    double nu;          /**< a rejected sweep multiplies every r-factor by nu, in (0, 1] (default 0.9, the notes' value for local r) */
    double ellipse_tol; /**< relative accuracy of the ellipse bisection (ch10.2; default 1e-15) */
    double scale_min;   /**< the floor of the r-factors relative to their start, in (0, 1] (default #CF_PROX_SCALE_MIN, as chapter 7's) */
} cfAnisoProxOptions;

/** max_iter 1000, tol 1e-10, r 1, nu 0.9, ellipse_tol 1e-15, scale_min #CF_PROX_SCALE_MIN. */
cfAnisoProxOptions cf_aniso_prox_options_default(void);

/**
 * @brief ch10.3: one sweep of Algorithm 22 on @p p (dim 3). trial = lambda; w = cf_prox_w(lambda)
 * (ch07.3; @p w is nv values of scratch); then for each contact a in order, with its rows I and
 * the r-factors @p r (3 per contact):
 * \f$v_I = J_I w + b_I\f$; \f$z_k = \mathrm{trial}_k - r_k v_k\f$; \f$\mathrm{new}_n = \max(0, z_n)\f$;
 * axes = @p gen(ctx, a, new_n, (v_t, v_b)), or the fixed ellipse when @p gen is NULL (the only line
 * that is new against chapter 7's PROX-GS: the cone is made with the NEW normal impulse);
 * \f$\mathrm{new}_F\f$ = the projection of \f$z_F\f$ onto the ellipse of those axes in the metric of
 * \f$\mathrm{diag}(r_t, r_b)^{-1}\f$ (ch07.2's argument: \f$y_k = z_k / \sqrt{r_k}\f$ onto the
 * semi-axes \f$\mathrm{axes}_k / \sqrt{r_k}\f$ by cf_ellipse_project() with @p ellipse_tol,
 * \f$\mathrm{new}_k = \sqrt{r_k}\, y_k\f$; with \f$r_t = r_b\f$ the Euclidean projection); then
 * \f$w \leftarrow w + G_I^T (\mathrm{new}_I - \mathrm{trial}_I)\f$ and trial_I = new_I. Returns
 * \f$\|\mathrm{trial} - \lambda\|_\infty\f$.
 */
double cf_aniso_prox_gs_sweep(const cfProxProblem *p, const double *r, cfConeGenerator gen, void *ctx,
                              double ellipse_tol, const double *lambda, double *trial, double *w);

/**
 * @brief ch10.3: notes Algorithm 22, PROX-Gauss-Seidel on an anisotropic problem with the
 * adaptive r. Provided check first (cf_prox_check() with dim 3 only: CF_BAD_INPUT, rep->status
 * set, for dim 4 or an invalid problem; options: max_iter >= 0, tol >= 0, r > 0, nu in (0, 1],
 * scale_min in (0, 1]). r0_i = o->r / A_ii (A_aa by cf_prox_block()), r = r0, the scale s = 1
 * (r = s r0 up to rounding), e_old = ref = INFINITY; each sweep k = 1 .. max_iter:
 * e = cf_aniso_prox_gs_sweep(lambda -> trial);
 * - e <= s tol: accept and stop (ABSOLUTE; the merit per unit of the starting r-factors, as
 *   chapter 7's: a step shrunk by s moves the impulses s times less, which is not convergence);
 * - e < ref: accept (lambda = trial, e_old = ref = e);
 * - otherwise (e >= ref, or not finite): reject, lambda stays, ++rollbacks (">=": the listing's
 *   ">" misses exact cycles, ch07.5), and with the floor of chapter 7's rule: when s > scale_min,
 *   shrink, every r_i *= nu and s *= nu, or r = scale_min r0 and s = scale_min where s nu would
 *   fall below the floor; at the floor (s <= scale_min) reset, r = r0, s = 1, ref = INFINITY,
 *   and stop as DIVERGENCE when no sweep was accepted since the start or the last reset (after a
 *   reset ref is INFINITY: only merits that are not finite at every step size get there);
 * then push e_old (e while nothing is accepted) to the report's history. MAX_ITER after
 * max_iter sweeps. Report: status (CF_OK, CF_MAX_ITER, CF_DIVERGED), reason,
 * sweeps, residual = the last accepted merit, measure CF_MEASURE_IMPULSE_CHANGE. @p rollbacks may
 * be NULL.
 * With equal coefficients it solves chapter 7's isotropic problem; from r = 10 (divergent with
 * nu = 1) it converges after a few rollbacks.
 */
cfStatus cf_aniso_prox_gs(const cfProxProblem *p, cfConeGenerator gen, void *ctx, const cfAnisoProxOptions *o,
                          double *lambda, cfReport *rep, int *rollbacks);

/**
 * @brief ch10.3: chapter 5's local solve of one contact (ch05.5) with the ellipse @p mu_tb:
 * the normal row first, \f$r_n \leftarrow \max(0, r_n - \omega u_n / W_{nn})\f$, u refreshed
 * (\f$u \mathrel{+}= W e_n \Delta r_n\f$); then with \f$E = E(r_n)\f$:
 * - CF_FRICTION_BOX: each tangent k in turn clamped to \f$[-\mu_k r_n, \mu_k r_n]\f$ after its own
 *   step \f$r_k - \omega u_k / W_{kk}\f$, u refreshed in between (the anisotropic friction pyramid);
 * - CF_FRICTION_CONE: the stick candidate \f$r_T - W_{TT}^{-1} u_T\f$ (when
 *   \f$\det W_{TT} > 10^{-14} W_{tt} W_{bb}\f$) if it lies in E; otherwise the projected step
 *   cf_ellipse_project(\f$r_T - \omega u_T / \sigma\f$) with \f$\sigma\f$ the largest eigenvalue of
 *   \f$W_{TT}\f$ (tol 1e-15); u refreshed.
 * @p u (in/out) is the contact's velocity W r + q for the current @p r. Returns the largest
 * change of an impulse. With mu_t = mu_b it is ch05.5's local solve.
 */
double cf_contact_local_solve_ellipse(const double Waa[9], const double mu_tb[2], cfFrictionModel model,
                                      double omega, double u[3], double r[3]);

/**
 * @brief ch10.3: blocked Gauss-Seidel (ch05.5's loop) on a problem with ellipses: per contact
 * in order, u_a = q_a + sum_j W_aj r_j, then cf_contact_local_solve_ellipse() with
 * cf_fc_ellipse_of() and o->friction. Input check cf_fc_split_check() (ch05, provided: on
 * failure CF_BAD_INPUT with rep->status set) and the ellipses >= 0 and finite; residual after each
 * sweep cf_fc_residual() (cone) or cf_fc_box_residual() (box) -- both read the ellipses -- and
 * the stopping rules of cf_split_stop() (ch05, provided: r_0 <= tol_abs returns at once).
 */
cfStatus cf_fc_bgs_aniso(const cfFrictionProblem *p, const cfSplitOptions *o, double *r, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch10.4 The NCP formulation (notes 6.1.5) inside chapter 6's Newton (20 points)
 *  Some of its tests also call ch10.2: write it first.
 *  @{ */

/**
 * @brief ch10.4: the notes' two complementarity rows of one contact (Eq.\ 312-319) and their
 * generalized gradients, at the unknowns @p x = (beta, f_t, f_b, v_t, v_b) for the ellipse
 * @p mu_tb (both > 0) and a given @p lambda_n:
 * \f[ \eta(f) = f^T C f - \lambda_n^2, \quad C = \mathrm{diag}(1/\mu_t^2, 1/\mu_b^2), \quad
 *     \nabla\eta = 2 C f, \quad w = \nabla\eta + \beta v; \f]
 * \f[ \psi_0 = \psi_{FB}(\beta, -\eta(f)), \qquad \mathrm{row}_0 = (d_a,\ -d_b \nabla\eta^T,\ 0,\ 0); \f]
 * \f[ \psi_1 = \psi_{FB}(v^T v, w^T w), \qquad
 *     \mathrm{row}_1 = (2 d_b\, w^T v,\ 2 d_b\, w^T (2C),\ 2 (d_a v^T + d_b \beta w^T)); \f]
 * with (da, db) the partials of cf_ncp_fb() (ch06.1) at each row's arguments (its kink
 * convention (0, 1) at (0, 0)). @p row is 2 x 5, row-major.
 * Note what the tests show: at a sticking solution (v = 0) row 1 is zero, so these two rows alone
 * cannot drive Newton (the erratum of the text); cf_fc_aniso_ncp_eval() uses the vector form.
 */
void cf_aniso_ncp_rows(const double mu_tb[2], double lambda_n, const double x[5], double psi[2], double row[10]);

/**
 * @brief ch10.4: the square NCP system of a problem with ellipses and one element of its
 * generalized Jacobian, for chapter 6's Newton loop (cf_newton_solve(), ch06.2). Unknowns per
 * contact a (4 nc in all): x_a = (r_n, r_t, r_b, beta) at 4 a + (0, 1, 2, 3); u = W r + q, and
 * with \f$(\mu_t, \mu_b)\f$ = cf_fc_ellipse_of(), C = diag over the axes k with \f$\mu_k > 0\f$ of
 * \f$1/\mu_k^2\f$, \f$\eta(r) = \sum_k r_k^2 / \mu_k^2 - r_n^2\f$ (those axes),
 * \f$s_a = W_{aa,nn}\f$ (1 when not > 0):
 * - \f$H_{4a} = \psi_{FB}(u_n, s_a r_n)\f$ (cf_ncp_eval(CF_NCP_FB, u_n, r_n, s_a, 1, ...), ch06.1);
 * - \f$H_{4a+1+k} = u_k + 2 \beta r_k / \mu_k^2\f$ (maximal dissipation:
 *   \f$-u_T = \beta \nabla\eta\f$, sticking when \f$\beta = 0\f$); an axis with \f$\mu_k = 0\f$ has
 *   \f$H = r_k\f$ instead (its impulse is 0);
 * - \f$H_{4a+3} = \psi_{FB}(-\eta(r), \beta)\f$ (cf_ncp_eval(CF_NCP_FB, -eta, beta, 1, 1, ...)); a
 *   contact with \f$\mu_t = \mu_b = 0\f$ has \f$H = \beta\f$.
 * Jacobian (rows as H, columns as x; @p J may be NULL): normal row da W_a,n (the rows of W
 * through u) plus db at r_n; tangent row k: W_a,k plus 2 beta / mu_k^2 at r_k and 2 r_k / mu_k^2
 * at beta (or 1 at r_k); slack row da (2 r_n at r_n, -2 r_k / mu_k^2 at r_k) plus db at beta (or
 * 1 at beta). At a root, r solves the elliptic problem (cf_fc_residual() = 0); with
 * mu_t = mu_b = mu it is chapter 6's Coulomb problem.
 * Returns CF_OK, or the status of the first cf_triplets_add() that refuses an entry (CF_BAD_INPUT
 * for one that is not finite, as when u overflows): J is then incomplete, and a later add that
 * succeeds must not turn the status back into CF_OK.
 */
cfStatus cf_fc_aniso_ncp_eval(const cfFrictionProblem *p, const double *x, double *H, cfTriplets *J);

/**
 * Newton on the NCP system of a problem with ellipses (provided wrapper): cf_newton_solve() on
 * cf_fc_aniso_ncp_eval() with block size 4, from x = (r, beta = 0), stopping measure
 * cf_fc_residual() (absolute); @p r (3 nc) in: the warm start, out: the impulses.
 * CF_BAD_INPUT (rep->status set) for a problem that is not nc x nc blocks of 3x3, a negative or
 * non-finite mu or ellipse, or invalid options (cf_newton_options_check()).
 */
cfStatus cf_fc_newton_aniso(const cfFrictionProblem *p, const cfNewtonOptions *o, double *r, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch10.5 Friction tensors (notes 6.2, Pabst et al. 2009) (15 points)
 *  A tensor's 2x2 matrices are row-major in a frame (t, n x t) of the tangent plane.
 *  Some of its tests also call ch10.2: write it first.
 *  @{ */

/**
 * @brief ch10.5: the dynamic friction force of the tensor model (notes Eq.\ 320):
 * \f$f = -\lambda_n L \hat v\f$ with \f$L = \kappa (Q_A + R Q_B R^T)\f$, in A's frame
 * (\f$t_A\f$, \f$b_A = n \times t_A\f$).
 * @p t_a, @p t_b: the surfaces' first tangents (world; projected on the plane of @p n and
 * normalized); R rotates B's frame onto A's by the SIGNED angle
 * \f$\theta = \mathrm{atan2}((t_A \times t_B) \cdot n,\ t_A \cdot t_B)\f$ (the notes' acos loses
 * the sign), i.e. \f$R = \begin{bmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{bmatrix}\f$;
 * \f$\hat v\f$ is the unit projection of the sliding velocity @p v on the
 * tangent plane, in A's frame. Out: @p f in world coordinates (0 when v has no tangential part).
 * A @p t_b with no part in the plane gives B's frame as A's (\f$\theta = 0\f$); a @p t_a with none
 * leaves A's frame undefined and @p f = 0. Never NaN for finite input.
 * Worked: Q_A = diag(0.2, 0.8), Q_B = 0, kappa = lambda_n = 1, frames x/y: v = x -> (-0.2, 0, 0);
 * v at 45 degrees -> -(0.1414, 0.5657, 0), not anti-parallel. Q_B = Q_A turned by 90 degrees:
 * L = kappa tr(Q_A) I, isotropic.
 */
void cf_friction_tensor_force(const double QA[4], const double QB[4], double kappa, cfVec3 n, cfVec3 t_a,
                              cfVec3 t_b, cfVec3 v, double lambda_n, cfVec3 *f);

/**
 * @brief ch10.5: the equivalent elliptic cone of a nonsingular tensor @p L (notes Eq.\ 321-325):
 * \f$f = -\lambda_n L \hat v\f$ gives \f$\|L^{-1} f\| = \lambda_n\f$, the ellipse
 * \f$f^T C_P f = \lambda_n^2\f$ with \f$C_P = L^{-T} L^{-1} = (L L^T)^{-1}\f$. Its semi-axes per
 * unit \f$\lambda_n\f$ are the singular values of L, along the eigenvectors of \f$L L^T\f$. Out: @p mu_tb = (sigma_min, sigma_max) and @p angle in
 * (-pi/2, pi/2]: the direction (cos, sin) of sigma_min's axis (the easy direction, as Matchstick's
 * t) in the tensor's frame. Closed form of the symmetric 2x2
 * \f$L L^T = \begin{bmatrix} p & q \\ q & s \end{bmatrix}\f$:
 * \f$\sigma^2 = \frac{p + s}{2} \mp \sqrt{\big(\frac{p - s}{2}\big)^2 + q^2}\f$, angle = atan2 of the eigenvector of the
 * smaller one (a multiple of the identity: angle 0). CF_SINGULAR when sigma_min <= 1e-12 sigma_max
 * (or L = 0): a singular tensor has no cone; CF_BAD_INPUT for non-finite L.
 */
cfStatus cf_friction_tensor_cone(const double L[4], double mu_tb[2], double *angle);

/**
 * @brief ch10.5: the dissipation check of a tensor @p L for the sliding velocity @p v (frame of
 * L, \f$\|v\| > 0\f$): the tensor's force \f$f = -\lambda_n L v / \|v\|\f$ (power \f$v \cdot f\f$
 * into @p power, may be NULL; negative for an SPD L: dissipative) against the force of maximal
 * dissipation on its equivalent cone, \f$f^* = -\lambda_n (L L^T) v / \|L^T v\|\f$
 * (cf_ellipse_max_dissipation() in the cone's own axes
 * gives the same). Returns the angle between f and f* in radians (acos of the clamped cosine;
 * 0 when |v| = 0 or lambda_n <= 0, and then @p power is 0 too): zero exactly when v is an eigenvector of L^T (notes Eq.\ 332).
 * Worked: L = diag(0.2, 0.8), v at 45 degrees: 10.46 degrees.
 */
double cf_friction_tensor_dissipation(const double L[4], const double v[2], double lambda_n, double *power);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch10.6 Texture friction by plowing (notes 6.3, Andrews et al. 2021) (15 points)
 *  @{ */

/**
 * A height-field texture on a surface (provided): heights h[j nx + i] (m) at the grid points
 * origin + i cell u + j cell v, periodic in both directions; (u, v) orthonormal tangents of the
 * surface and u x v its outward mean normal.
 */
typedef struct cfHeightField {
    int nx;            /**< samples per period along u (>= 2) */
    int ny;            /**< samples per period along v (>= 2) */
    double cell;       /**< grid spacing (m, > 0) */
    const double *h;   /**< nx ny heights (not owned) */
    cfVec3 origin;     /**< world point of sample (0, 0) */
    cfVec3 u;          /**< first texture axis (world, unit) */
    cfVec3 v;          /**< second texture axis (world, unit, orthogonal to u) */
} cfHeightField;

/**
 * The meso-facet normal of @p hf at the world point @p x (provided): with the slope
 * (h_u, h_v) of the bilinear interpolation of the cell that holds the projection of x,
 * m = normalize(u x v - h_u u - h_v v). A flat texture gives u x v.
 */
cfVec3 cf_height_field_normal(const cfHeightField *hf, cfVec3 x);

/**
 * @brief ch10.6: the plowing coefficient of one meso-facet (notes Eq.\ 335, one-sided): with
 * \f$\theta = \arccos(\mathrm{clamp}(\hat m \cdot \hat n, -1, 1))\f$ and \f$\hat m'\f$ the unit
 * projection of @p m on the plane of @p n,
 * \f[ \mu_d = \max(0, \hat m' \cdot \hat d)\; g(\theta), \qquad g(\theta) = \tfrac{2}{\pi}\,\theta \f]
 * for the plowing direction @p d (the direction the facet's surface is pushed, projected on the
 * plane and normalized). m, n, d of any length > 0. 0 for a flat facet (m along n) and for d
 * along n.
 *
 * The law of the tilt: the notes print \f$g = \tfrac{2}{\pi}\theta\f$ in Eq.\ 334-336 and
 * \f$g = \tfrac{2}{\pi}\tan\theta\f$ in Eq.\ 333. The reference uses \f$\theta\f$, and so should
 * you: with tan and a unit \f$\hat m'\f$, the one-sided average over any periodic texture is the
 * same in both directions (the positive and negative slopes of a period cancel), so the
 * direction-dependent friction that is the point of the model (the ramp of the test, the
 * grooves of the demos) disappears. The tests accept either reading, taken from your value at a
 * facet tilted 30 degrees (1/3 with \f$\theta\f$, 0.36755 with tan) and then used for every
 * other expected value, so use one reading throughout ch10.6.
 * Worked: a facet tilted 30 degrees towards d: 1/3; away from d: 0.
 */
double cf_plowing_mu(cfVec3 m, cfVec3 n, cfVec3 d);

/**
 * @brief ch10.6: the directional friction coefficients of the patch around a contact by
 * polyhedral sampling (notes 6.3.2 on the CPU). Contact at @p p with frame (@p n, @p t, @p b),
 * n from A to B; @p A, @p B the textures of the two surfaces (NULL: untextured, contributes 0).
 * Pixels: the res x res centres x_ij = p + s_i t + s_j b, s_i = -half + (i + 1/2) 2 half / res.
 * Directions \f$d_k = \cos(2\pi k / n_d)\, t + \sin(2\pi k / n_d)\, b\f$, k < @p nd: B slides
 * along \f$d_k\f$ relative to A, so A's facets are pushed along \f$-d_k\f$ and B's along \f$d_k\f$:
 * \f[ \mu_k = \frac{1}{\mathrm{res}^2} \sum_{ij} \mu_d(m_A(x_{ij}), n, -d_k)
 *          + \frac{1}{\mathrm{res}^2} \sum_{ij} \mu_d(m_B(x_{ij}), -n, d_k) \f]
 * with \f$\mu_d\f$ = cf_plowing_mu() and m = cf_height_field_normal(). With nd = 4: (mu_{+t}, mu_{+b}, mu_{-t}, mu_{-b}), the BLCP's
 * coefficients. CF_BAD_INPUT for res < 1, nd < 1, half <= 0 or non-finite input.
 */
cfStatus cf_texture_patch_mu(const cfHeightField *A, const cfHeightField *B, cfVec3 p, cfVec3 n, cfVec3 t,
                             cfVec3 b, double half, int res, int nd, double *mu);

/**
 * @brief ch10.6: the BLCP projection of the directional coefficients (notes Eq.\ 337-338 with the
 * minus signs the print drops). @p mu4 = (mu_{+t}, mu_{+b}, mu_{-t}, mu_{-b}) by the sliding
 * direction of B relative to A (cf_texture_patch_mu() with nd = 4). Friction resists sliding, so
 * sliding along +t is bounded by mu_{+t} on the -t side:
 * \f[ \lambda_t \leftarrow \mathrm{clamp}(\lambda_t,\ -\mu_{+t} l_n,\ \mu_{-t} l_n), \qquad
 *     \lambda_b \leftarrow \mathrm{clamp}(\lambda_b,\ -\mu_{+b} l_n,\ \mu_{-b} l_n), \qquad
 *     l_n = \max(\lambda_n, 0) \f]
 * (lt = \f$(\lambda_t, \lambda_b)\f$, @p lambda_n \f$= \lambda_n\f$).
 */
void cf_box_project_directional(double lambda_n, const double mu4[4], double lt[2]);

/**
 * @brief ch10.6: projected Gauss-Seidel on the directional box: chapter 5's boxed PGS row by
 * row (ch05.4) on the FC3D problem @p p with the bounds of cf_box_project_directional() and
 * @p mu4 (4 per contact). Per contact a in order and row k = n, t, b in order: u_k = q + (W r)_k
 * with the current r, r_n <- max(0, r_n - omega u_n / W_nn); each tangent
 * r_k <- clamp(r_k - omega u_k / W_kk) by the directional bounds of the current r_n.
 * Checks cf_fc_split_check() (ch05) and mu4 >= 0 finite; residual after each sweep
 * cf_fc_texture_residual(); stopping rules of cf_split_stop() (ch05).
 */
cfStatus cf_fc_texture_pgs(const cfFrictionProblem *p, const double *mu4, const cfSplitOptions *o, double *r,
                           cfReport *rep);

/**
 * The natural-map residual of the directional box (provided): per contact, (r_n - max(0, r_n - u_n))^2
 * plus, for the tangents, (r_k - mid(lo_k, r_k - u_k, hi_k))^2 with the bounds of
 * cf_box_project_directional() at r_n. +INFINITY when r or u is not finite.
 */
double cf_fc_texture_residual(const cfFrictionProblem *p, const double *mu4, const double *r);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH10_H */
