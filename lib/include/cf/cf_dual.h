/* SPDX-License-Identifier: MIT */
/**
 * @file cf_dual.h
 * @brief The dual form with its dynamics (chapter 8): the linear system \f$A u^+ = b + J^T \lambda\f$ of
 *        one step over every body that moves, its contact rows and their laws.
 *
 * The notes' taxonomy (section 4.3) reads every dual-form method as a choice of
 * \f$P \approx A^{-1}\f$ in \f$W_P = J P J^T\f$: lumped mass (\f$W_M\f$), exact (\f$W_A\f$),
 * block-diagonal (\f$W_D\f$, ICA). A solver of the form
 * CF_FORM_DUAL (cf_solver.h) gets this system, so that it can make that choice itself; the world
 * builds it (sim/dual.c): rigid bodies as A = M (a 3x3 block m I for v, the world inertia for w),
 * soft bodies by their implicit (or, for the lumped method, explicit) system of chapter 8.
 *
 * Unknowns: u in R^n, n a multiple of 3: a soft node is one block of 3, a rigid body two (v, w).
 * Contact a has the rows 3a, 3a+1, 3a+2 of J (n, t, b), and asks for
 * @f[ v_a = J_a u + (\mathrm{bias}_a + \mathrm{cfm}\,\lambda_{a,n}, 0, 0) @f]
 * to satisfy Signorini and Coulomb's law with lambda_a (cf_contact_residual2()).
 */
#ifndef CF_DUAL_H
#define CF_DUAL_H

#include "cf/cf_base.h"
#include "cf/cf_linalg.h"
#include "cf/cf_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One step's dynamics and contacts in the dual form. Free with cf_dual_free(). */
typedef struct cfDualSystem {
    int n;          /**< velocity unknowns, a multiple of 3 */
    int nc;         /**< contacts */
    cfCsr A;        /**< n x n, symmetric positive definite (pinned unknowns: identity rows and columns) */
    double *b;      /**< n: right-hand side; the velocities without contact are A^-1 b */
    double *vfree;  /**< n or NULL: A^-1 b when the caller has it already (to an iterative solver's accuracy), so that a
                         solver need not solve for it again; NULL: unknown */
    cfCsr J;        /**< 3 nc x n contact Jacobian, rows (n, t, b) per contact */
    double *bias;   /**< nc: normal velocity bias, phi / h (or erp phi / h when penetrating) */
    double *mu;     /**< nc: friction coefficients (>= 0) */
    double cfm;     /**< >= 0: constraint force mixing on every normal row */
    double h;       /**< time step (s, > 0) */
    double delta;   /**< contact distance (m, >= 0): a predicted gap within -delta/2 counts as resolved (ICA's rule) */
} cfDualSystem;

/** Free and zero (safe on a zeroed struct). */
void cf_dual_free(cfDualSystem *s);
/**
 * Check the shapes and values: n a multiple of 3, A n x n with finite entries, J 3 nc x n, finite
 * b and bias, mu >= 0, cfm >= 0, h > 0, delta >= 0. CF_BAD_INPUT with the field named.
 */
cfStatus cf_dual_check(const cfDualSystem *s, cfError *err);
/** v = J u + (bias + cfm lambda_n, 0, 0) per contact (3 nc values; @p lambda may be NULL: no CFM term). */
void cf_dual_contact_velocity(const cfDualSystem *s, const double *u, const double *lambda, double *v);
/**
 * The natural-map residual of the contact law at impulses @p lambda and velocities @p u:
 * \f$\sqrt{\sum_a r_a^2}\f$, \f$r_a^2\f$ = cf_contact_residual2(lambda_a, v_a, mu_a, model), with v from
 * cf_dual_contact_velocity(). For the cone this is the world's common residual.
 */
double cf_dual_residual(const cfDualSystem *s, const double *lambda, const double *u, cfFrictionModel model);

#ifdef __cplusplus
}
#endif
#endif /* CF_DUAL_H */
