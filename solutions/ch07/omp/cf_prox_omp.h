/* SPDX-License-Identifier: MIT */
/**
 * @file cf_prox_omp.h
 * @brief The parallel PROX-Jacobi of the reference solutions (solutions/ch07/omp/): OpenMP threads
 *        over the contacts, the serial result bit for bit. Not part of a handout.
 */
#ifndef CF_PROX_OMP_H
#define CF_PROX_OMP_H

#include "cf/cf_ch07.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The sweep of cf_prox_jacobi_sweep() on OpenMP threads: w = G^T lambda gathered per column from
 * cfProxProblem::Gt in the serial scatter's order, then the contacts in parallel. Equal bit for bit
 * to the serial sweep for every thread count (sums in the same order; the merit is a maximum).
 * Needs cf_prox_problem_transpose() first. @p v is unused.
 */
double cf_prox_jacobi_sweep_omp(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                                const double *lambda, double *trial, double *w, double *v);

/** PROX-Jacobi with the parallel sweep (cf_prox_solve()); CF_BAD_INPUT without cfProxProblem::Gt. */
cfStatus cf_prox_jacobi_omp(const cfProxProblem *p, const cfProxOptions *o, double *lambda, cfReport *rep,
                            cfProxStats *stats);

/** The registry's row "prox-jacobi-omp" (sim/solvers.c lists it by a weak reference). */
extern const cfSolver cf_solver_prox_jacobi_omp;

#ifdef __cplusplus
}
#endif
#endif /* CF_PROX_OMP_H */
