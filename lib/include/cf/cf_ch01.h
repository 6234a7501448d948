/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch01.h
 * @brief Chapter 1 exercises: time integration of rigid and soft bodies.
 *
 * The text is chapters/ch01/README.md; the tests are chapters/ch01/tests/test_ch01.c
 * (`make test-ch1`). Each function below is an exercise: its specification here is
 * authoritative. Your implementations go in exercises/ch01/integrate.c and
 * exercises/ch01/soft.c; they may call anything in lib/include/cf/ (cf_math.h, cf_body.h,
 * cf_soft.h, cf_linalg.h) but nothing from later chapters.
 * The grader holds each exercise file to docs/grading.md ("What an exercise may use"): helpers
 * and file-scope variables are `static`; from the C library only allocation, memory and string
 * functions, qsort, bsearch, the math library and printing to stdout/stderr; and no file is
 * opened (the library's cf_*_read_siconos(), cf_*_write_siconos() and cf_scene_load() are refused).
 */
#ifndef CF_CH01_H
#define CF_CH01_H

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_linalg.h"
#include "cf/cf_math.h"
#include "cf/cf_soft.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief ch01.1 (10 points): semi-implicit Euler velocity update of a rigid body.
 *
 * Newton-Euler with forces evaluated at the start of the step (notes Eq. 3, 66-70):
 * @f[ v^+ = v + h\,(g + F/m), \qquad
 *     \omega^+ = \omega + h\, I_w^{-1}\big(\tau - \omega \times (I_w\,\omega)\big) @f]
 * where @f$ I_w = R\,I_{body}R^T @f$ is the world inertia at the start of the step (use
 * cf_rigid_inertia_world() and b->inv_inertia_world), F = b->force, tau = b->torque and the
 * gyroscopic term @f$ -\omega\times(I_w\omega) @f$ is included only when @p gyroscopic is true.
 *
 * - A fixed body is left unchanged (it has infinite mass).
 * - h == 0 leaves the body unchanged; h < 0 or non-finite returns CF_BAD_INPUT (this check is
 *   provided, before the exercise region).
 *
 * Worked example: m = 2, v = (1, 0, 0), g = (0, 0, -10), F = (0, 4, 0), h = 0.1 gives
 * v+ = (1, 0.2, -1). A sphere spinning about any axis keeps its omega (w x Iw = 0).
 */
cfStatus cf_rigid_integrate_velocity(cfRigidBody *b, cfVec3 gravity, double h, bool gyroscopic);

/**
 * @brief ch01.2 (10 points): quaternion kinematics.
 *
 * cf_quat_rate() returns the time derivative of the orientation for a world-frame angular
 * velocity @p w (notes Eq. 73):
 * @f[ \dot{q} = \tfrac12\,(0, \omega) \otimes q = H(q)\,\omega, \qquad
 *     H(q) = \tfrac12\begin{bmatrix} -x & -y & -z\\ w & z & -y\\ -z & w & x\\ y & -x & w \end{bmatrix} @f]
 * Worked example: q = identity, w = (0, 0, 2) gives (0, 0, 0, 1).
 */
cfQuat cf_quat_rate(cfQuat q, cfVec3 w);

/**
 * @brief ch01.2: one explicit step q+ = normalize(q + h q_dot(q, w)) (notes Eq.\ 75).
 *
 * The exact rotation over the step is cfu_quat_mul(cfu_quat_exp(h w), q), a turn by
 * @f$ \theta = h|\omega| @f$ about @f$ \omega @f$. The explicit step turns about the same axis by
 * @f$ 2\arctan(\theta/2) = \theta - \theta^3/12 + \dots @f$: a local error of third order in h
 * (second order over a fixed time); the tests check this deficit. The result has unit length.
 */
cfQuat cf_quat_integrate(cfQuat q, cfVec3 w, double h);

/**
 * @brief ch01.3 (10 points): position update of a rigid body.
 *
 * With the new velocities (after ch01.1 and any contact impulses):
 * @f[ x^+ = x + h\,v, \qquad q^+ = \mathrm{normalize}(q + h\,H(q)\,\omega) @f]
 * then refresh the world inverse inertia with cf_rigid_update_inertia() so the next step uses
 * @f$ R^+ I_{body}^{-1} R^{+T} @f$. A fixed body is left unchanged. h == 0 changes nothing;
 * h < 0 or non-finite returns CF_BAD_INPUT (provided).
 * Some of its tests also call ch01.1 and ch01.2: write those first.
 */
cfStatus cf_rigid_integrate_position(cfRigidBody *b, double h);

/**
 * @brief ch01.4 (10 points): assemble the linearized implicit Euler system of a soft body.
 *
 * Backward Euler with forces linearized about the positions @p x (notes Eq. 79-82):
 * @f[ A = M + h\,B + h^2 K, \qquad b = M\,u + h\,f(x) @f]
 * with M the lumped mass (diagonal), K = cf_soft_stiffness() at @p x, B = alpha M + beta K
 * (Rayleigh, from s->damping_alpha/beta), f = cf_soft_forces() at @p x (elastic + gravity) and
 * u the velocities @p u. Fixed nodes: pin their degrees of freedom (cf_csr_pin_dofs(), b = 0 there)
 * so the solve returns u+ = 0 for them.
 *
 * @p A is allocated (3N x 3N CSR); @p b has 3N entries. The same function serves BDF2 (ch01.5)
 * with h replaced by 2h/3 and (x, u) by the BDF2 extrapolations.
 * Worked example: one free node of mass m on a spring of stiffness k to a fixed node, along x:
 * A_xx = m + h^2 k, b_x = m u_x + h f_x.
 */
cfStatus cf_soft_assemble_implicit(const cfSoftBody *s, cfVec3 gravity, double h, const cfVec3 *x,
                                   const cfVec3 *u, cfCsr *A, double *b);

/**
 * @brief ch01.4: one step of linearized implicit Euler: assemble at the current state, solve
 * A u+ = b (cf_csr_cg() with a relative tolerance of 1e-12 is enough), then x+ = x + h u+.
 *
 * Stores the previous state in x_prev/v_prev (has_prev = true) for ch01.5. The solver report
 * of the linear solve goes to @p rep (may be NULL). h == 0 changes nothing; h < 0 or non-finite:
 * CF_BAD_INPUT (provided); a failed linear solve passes its status on and leaves the body as it was.
 */
cfStatus cf_soft_step_implicit(cfSoftBody *s, cfVec3 gravity, double h, cfReport *rep);

/**
 * @brief ch01.5 (10 points): one step of linearized BDF2 (paper 003, eq.\ 22-24).
 *
 * @f[ M\big(u^+ - \tfrac43 u^n + \tfrac13 u^{n-1}\big) = \tfrac{2h}{3} f(x^+, u^+), \qquad
 *     x^+ = \tfrac43 x^n - \tfrac13 x^{n-1} + \tfrac{2h}{3} u^+ @f]
 * Linearizing f about @f$ x^* = \frac43 x^n - \frac13 x^{n-1} @f$ gives exactly the implicit
 * Euler system with h -> beta = 2h/3, x -> x*, u -> u* = 4/3 u^n - 1/3 u^{n-1}: reuse
 * cf_soft_assemble_implicit(). When no previous step exists (has_prev false) take one implicit
 * Euler step instead (the usual start-up). Afterwards x_prev/v_prev hold the old state.
 * The method is second order: halving h divides the error at a fixed time by about 4. @p rep
 * (may be NULL) as in ch01.4; h == 0, h < 0 and a failed solve as in ch01.4.
 * Some of its tests also call ch01.4: write it first.
 */
cfStatus cf_soft_step_bdf2(cfSoftBody *s, cfVec3 gravity, double h, cfReport *rep);

#ifdef __cplusplus
}
#endif
#endif /* CF_CH01_H */
