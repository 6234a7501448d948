/* SPDX-License-Identifier: MIT */
/**
 * @file cf_fdcheck.h
 * @brief Finite-difference Jacobians, to check hand-written derivatives in tests.
 *
 * Central differences: column j of the Jacobian of f at x is (f(x + h_j e_j) - f(x - h_j e_j)) /
 * (2 h_j) with h_j = step max(1, |x_j|). For a smooth f the error is O(h^2 |f'''|) plus the
 * rounding O(eps |f| / h); step = 1e-6 balances them near 1e-10 relative for functions whose
 * third derivatives are of the order of their values. Near a kink of a piecewise smooth function
 * (min, max, |.|, a projection) the difference straddles two pieces and means nothing: evaluate
 * at points at least a few steps away from every kink.
 */
#ifndef CF_FDCHECK_H
#define CF_FDCHECK_H

#include "cf/cf_base.h"
#include "cf/cf_linalg.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A vector function y = f(x) (m outputs of n inputs, sizes known to the caller). */
typedef void (*cfVecFn)(void *ctx, const double *x, double *y);

/**
 * The m x n central-difference Jacobian of @p f at @p x (n values, not modified) into @p D,
 * allocated (a zeroed struct or a matrix whose storage is freed first). CF_BAD_INPUT for m < 1,
 * n < 1, step <= 0 or a non-finite x; CF_NO_MEMORY.
 */
cfStatus cf_fd_jacobian(int m, int n, cfVecFn f, void *ctx, const double *x, double step, cfDense *D);

/**
 * Largest mixed error max_ij |J_ij - D_ij| / (1 + |D_ij|) between @p J (m x n) and the
 * central-difference Jacobian D of @p f at @p x with @p step. The entry where it occurs goes to
 * @p worst_i, @p worst_j (either may be NULL). Returns +INFINITY when the sizes disagree, the
 * differences cannot be formed (see cf_fd_jacobian()) or a value is not finite.
 */
double cf_fd_jacobian_error(int m, int n, cfVecFn f, void *ctx, const double *x, const cfDense *J, double step,
                            int *worst_i, int *worst_j);

#ifdef __cplusplus
}
#endif
#endif /* CF_FDCHECK_H */
