/* SPDX-License-Identifier: MIT */
/**
 * @file cf_gmres.h
 * @brief GMRES(m) with restarts and a preconditioner hook (left or right) for non-symmetric
 *        linear systems, matrix-free through ::cfMatVec.
 *
 * Saad and Schultz's GMRES: the k-th iterate of a cycle minimizes the 2-norm of the residual
 * over x_0 + K_k, built by Arnoldi with modified Gram-Schmidt; Givens rotations keep the small
 * least-squares problem triangular so the residual norm of every step is known without forming
 * x. After @ref cfGmresOptions::restart steps the cycle restarts from its best iterate.
 * Chapter 6 solves its non-symmetric Newton systems with it when they are too large for a dense
 * LU (cf_dense_solve()).
 */
#ifndef CF_GMRES_H
#define CF_GMRES_H

#include "cf/cf_base.h"
#include "cf/cf_linalg.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which side the preconditioner P (an approximation of A^-1, applied by a ::cfMatVec) acts on. */
typedef enum cfGmresSide {
    CF_GMRES_RIGHT = 0, /**< solve A P y = b, x = P y: GMRES minimizes the true residual |b - A x| */
    CF_GMRES_LEFT       /**< solve P A x = P b: GMRES minimizes |P (b - A x)|; the stop is re-checked on the true residual */
} cfGmresSide;

/** Options of cf_gmres(). Start from cf_gmres_options_default(). */
typedef struct cfGmresOptions {
    int restart;      /**< Krylov vectors per cycle, m >= 1 (default min(n, 30)) */
    int max_iter;     /**< total Arnoldi steps over all cycles (default 10 n) */
    double tol_rel;   /**< stop when |b - A x| <= tol_rel |b| (default 1e-10) */
    double tol_abs;   /**< ... or |b - A x| <= tol_abs (default 1e-300) */
    cfGmresSide side; /**< where the preconditioner acts (default right) */
} cfGmresOptions;

/** Defaults for an n-dimensional system (see ::cfGmresOptions). */
cfGmresOptions cf_gmres_options_default(int n);

/**
 * Solve A x = b by restarted GMRES from the given x (warm start).
 *
 * @p A applies the operator (ctx @p actx); @p P (may be NULL: no preconditioning) applies an
 * approximate inverse (ctx @p pctx) on the side @p o->side. The stop compares the TRUE residual
 * |b - A x|_2 with max(tol_rel |b|, tol_abs): for a right preconditioner GMRES's own estimate
 * is that residual up to rounding; with a left one, or when the estimate says "converged", the
 * residual is recomputed and the iteration goes on (a new cycle) if it does not hold.
 * rep->history receives the residual estimate after each Arnoldi step (the true residual at
 * each cycle's end), rep->iterations the Arnoldi steps, rep->residual the true residual.
 *
 * Status: CF_OK (converged: reason RELATIVE or ABSOLUTE), CF_MAX_ITER, CF_STAGNATED (a whole
 * cycle did not lower the residual: with a singular A, b outside its range), CF_BAD_INPUT (n < 0,
 * NULL pointers, non-finite b or x, restart < 1, negative tolerances; x untouched),
 * CF_DIVERGED (a non-finite value appeared: x holds the last finite iterate), CF_NO_MEMORY.
 * A "happy breakdown" (the Krylov space became invariant) ends the cycle with the exact solution
 * of the least-squares problem. @p o NULL means cf_gmres_options_default(n); @p rep may be NULL.
 */
cfStatus cf_gmres(int n, cfMatVec A, void *actx, cfMatVec P, void *pctx, const double *b, double *x,
                  const cfGmresOptions *o, cfReport *rep);

/** cf_gmres() on a CSR matrix (no preconditioner). CF_BAD_INPUT also when A is not n x n square. */
cfStatus cf_csr_gmres(const cfCsr *A, const double *b, double *x, const cfGmresOptions *o, cfReport *rep);

#ifdef __cplusplus
}
#endif
#endif /* CF_GMRES_H */
