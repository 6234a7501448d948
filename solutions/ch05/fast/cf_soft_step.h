/* SPDX-License-Identifier: MIT */
/**
 * @file cf_soft_step.h
 * @brief The soft step (registry row "soft-step", ::cf_solver_soft_step): substeps with soft
 *        contact constraints and a relax sweep, in the spirit of Box2D v3's solver, on the rows
 *        of the fast PGS (cf_rigid_fast.h). Derivation: chapters/ch05/README.md, "The soft step".
 *
 * It builds on chapter 5's exercises (the rows and the local solve of ch05.5/ch05.6), so it lives
 * with the reference solutions (solutions/ch05/fast/) and is not in a handout.
 *
 * One world step of length h is cut into n substeps of length h_s = h / n (n = max(1, iterations / 2),
 * so it costs as many sweeps as the PGS at the same iteration count; an odd count gives the last
 * substep a second relax sweep). Each substep:
 *  1. adds its share h_s (g + F/m) of the external velocity change;
 *  2. applies the current impulses again (warm start: each substep's impulse is close to the last);
 *  3. one sweep of soft contacts: the normal row is a spring-damper of stiffness omega^2 m_eff and
 *     damping 2 zeta omega m_eff on the current gap s = phi + J_n d (d: the bodies' displacement in
 *     this step so far), integrated implicitly (the impulse update of cf_softness()) at a tenth
 *     of the substep rate (f = 1 / (10 h_s): 60 Hz at 10 substeps of 1/600 s) and strongly damped
 *     (CF_SOFT_ZETA);
 *     a contact still open (s > 0) only stops the bodies from closing more than s in the substep;
 *  4. moves the bodies: d += h_s u;
 *  5. one relax sweep: the same rows, rigid and without the spring's bias, which takes the
 *     push-out velocity back out (it moved the bodies in 4 and adds no energy).
 * Contact frames, lever arms and effective masses stay those of the start of the step.
 *
 * What the world sees: the impulse summed over the substeps (so its one apply gives the final
 * velocity exactly), and, through the split-impulse stage (cfSolver::split), the pseudo-velocity
 * d / h - u+ that moves each body from where u+ alone takes it to where the substeps took it.
 * Stabilization must be "split" (the world's default); the row refuses Baumgarte.
 */
#ifndef CF_SOFT_STEP_H
#define CF_SOFT_STEP_H

#include "cf_rigid_fast.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Damping ratio of the contact spring (strongly over-damped: no bounce). */
#define CF_SOFT_ZETA 10.0
/** Largest push-out speed of a penetrating contact (m/s). */
#define CF_SOFT_PUSH 3.0

/** The impulse update of a soft constraint for one step (cf_softness()). */
typedef struct cfSoftness {
    double bias_rate;     /**< omega / (2 zeta + h omega) (1/s): velocity bias per metre of gap */
    double mass_scale;    /**< a / (1 + a), a = h omega (2 zeta + h omega): share of the rigid impulse */
    double impulse_scale; /**< 1 / (1 + a): share of the accumulated impulse taken back per update */
} cfSoftness;

/**
 * Implicit Euler on a spring-damper constraint of natural frequency @p hertz (> 0) and damping ratio
 * @p zeta (>= 0) for a step @p h (> 0): the impulse update on a row of effective mass m is
 * d lambda = -m mass_scale (u + bias_rate C) - impulse_scale lambda (README, "The soft step").
 */
cfSoftness cf_softness(double hertz, double zeta, double h);

/** Work space of the soft step; zero it before first use, free with cf_soft_step_free(). */
typedef struct cfSoftStep {
    cfRigidFast rows;  /**< the prepared rows (no CFM) and the body velocity slots */
    double *disp;      /**< 6 (nb + 1): displacement (linear, angular) of each body in this step */
    double *ext;       /**< 3 (nb + 1): linear external acceleration g + F/m (zero for fixed bodies) */
    double *sum;       /**< 3 nc: the impulses summed over the substeps */
    int cap_bodies;    /**< body slots allocated */
    int cap_nc;        /**< contacts allocated in sum */
} cfSoftStep;

/** Free and zero. */
void cf_soft_step_free(cfSoftStep *ws);

/** The registry row "soft-step" (sim/solvers.c finds it by this name when it is linked). */
extern const cfSolver cf_solver_soft_step;

#ifdef __cplusplus
}
#endif

#endif
