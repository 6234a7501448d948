/* SPDX-License-Identifier: MIT */
/**
 * @file cf_lcpgen.h
 * @brief Seeded LCP generators re-derived from num4lcp (Erleben et al.), with the planted
 *        solution corrected so that it really solves the LCP.
 *
 * Every generator draws only from a ::cfRng, so a seed fixes the problem on every platform.
 * Matrices come back dense (row-major ::cfDense); cf_lcpgen_plant() turns a matrix into an LCP
 * with a known solution.
 *
 * **The recipes** (U = uniform on [0,1), sym(R) = (R + R^T)/2):
 * - PD (num4lcp make_pd_matrix): A = Q diag(1/n, 2/n, ..., 1) Q^T with Q a random orthogonal
 *   matrix (Householder QR of a matrix of standard normal draws, signs fixed so Q is
 *   Haar-distributed). Eigenvalues exactly k/n, condition number n.
 * - PSD (make_psd_matrix): the same with the first floor(n * ratio) eigenvalues set to 0.
 * - Blocked (make_blocked_matrix): A = sym(R), R uniform; for each pair of B x B blocks (I, J) the
 *   block is zeroed when its centre entry exceeds F; then, if lambda_min(A) <= 0, A += (0.5 -
 *   lambda_min) I so that lambda_min = 0.5. Symmetric positive definite, non-negative off-diagonals.
 * - Contact-like (make_contact_matrix): a blocked matrix with B = 6 (normal, four friction
 *   directions, slack per contact, F = 0.5); in every block (I, J) whose (0,0) entry is non-zero,
 *   entry (5,0) becomes mu, (5,5) and (0,5) become 0, row 5 columns 1..4 become -1 and column 5
 *   rows 1..4 become +1: the Stewart-Trinkle sparsity, NON-symmetric, zero diagonal on the slack.
 * - Banded (make_banded_matrix): identity plus, for each offset k = 1..bands, a constant -U on
 *   both k-th off-diagonals; then the same shift to lambda_min = 0.5 when lambda_min <= 0.
 * - Fluid-like (make_fluid_matrix): banded with 3 bands and n = G^3. num4lcp calls this "fluid"
 *   but it is NOT a 3D Poisson matrix (that couples at offsets 1, G, G^2).
 * - Poisson: the true 7-point Laplacian on a G x G x G grid with Dirichlet walls (6 on the
 *   diagonal, -1 to each grid neighbour), SPD with eigenvalues in (0, 12).
 *
 * **The correction.** num4lcp's make_lcp draws x_i ~ U, zeroes x_i < F, and sets b = -A x on the
 * support and b_i = 0 off it, so w_i = (A x)_i there. That is negative whenever A has negative
 * off-diagonal entries (PD, PSD, banded, Poisson, the -1 entries of the contact pattern), so the
 * "solution" it returns is not one. cf_lcpgen_plant() draws a positive slack u_i ~ U(0,1) on the
 * zero set and sets b_i = u_i - (A x)_i there: then w_i = u_i > 0, x_i = 0, and x solves the LCP
 * exactly (up to the rounding of b). cf_lcpgen_plant_num4lcp() keeps the original for faithful
 * reproduction of num4lcp's plots.
 */
#ifndef CF_LCPGEN_H
#define CF_LCPGEN_H

#include <stdint.h>

#include "cf/cf_base.h"
#include "cf/cf_linalg.h"
#include "cf/cf_problem.h"
#include "cf/cf_rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Random n x n orthogonal matrix (Haar distributed), allocated into @p Q. */
cfStatus cf_lcpgen_orthogonal(int n, cfRng *rng, cfDense *Q);

/** SPD matrix with eigenvalues k/n, k = 1..n, in a random orthogonal basis (allocates @p A). */
cfStatus cf_lcpgen_pd_matrix(int n, cfRng *rng, cfDense *A);

/** PSD matrix: like cf_lcpgen_pd_matrix() with the first floor(n ratio) eigenvalues zero; ratio in [0, 1]. */
cfStatus cf_lcpgen_psd_matrix(int n, double ratio, cfRng *rng, cfDense *A);

/** Blocked SPD matrix of K x K blocks of size B, blocks zeroed when their centre entry > F (see file comment). */
cfStatus cf_lcpgen_blocked_matrix(int B, int K, double F, cfRng *rng, cfDense *A);

/** Contact-like non-symmetric matrix of K contacts x 6 variables with friction coefficient mu (n = 6 K). */
cfStatus cf_lcpgen_contact_matrix(int K, double mu, cfRng *rng, cfDense *A);

/** Banded SPD matrix: identity plus constant negative values on the first @p bands off-diagonals, shifted. */
cfStatus cf_lcpgen_banded_matrix(int bands, int n, cfRng *rng, cfDense *A);

/** num4lcp's "fluid" matrix: cf_lcpgen_banded_matrix(3, G^3). */
cfStatus cf_lcpgen_fluid_matrix(int G, cfRng *rng, cfDense *A);

/** True 7-point Poisson matrix on a G^3 grid with Dirichlet walls (n = G^3; deterministic). */
cfStatus cf_lcpgen_poisson_matrix(int G, cfDense *A);

/**
 * Corrected planted LCP: draw x_i ~ U(0,1), set x_i = 0 where x_i < @p zero_fraction, and
 * b = -A x on the support, b_i = u_i - (A x)_i with u_i ~ U(0,1) on the zero set. Then x solves
 * the LCP (A, b) with w_i = u_i > 0 off the support and w_i = 0 on it. Writes @p x (n values) and
 * builds @p p (allocated). zero_fraction in [0, 1].
 */
cfStatus cf_lcpgen_plant(const cfDense *A, double zero_fraction, cfRng *rng, cfLcp *p, double *x);

/**
 * num4lcp's original make_lcp, kept for faithful plots: like cf_lcpgen_plant() but b_i = 0 on the
 * zero set, so the returned @p x is generally NOT a solution (see the file comment).
 */
cfStatus cf_lcpgen_plant_num4lcp(const cfDense *A, double zero_fraction, cfRng *rng, cfLcp *p, double *x);

/** Families of generated problems (for benchmarks and tools). */
typedef enum cfLcpFamily {
    CF_LCPGEN_PD,      /**< cf_lcpgen_pd_matrix(n) */
    CF_LCPGEN_PSD,     /**< cf_lcpgen_psd_matrix(n, 0.5) */
    CF_LCPGEN_BLOCKED, /**< cf_lcpgen_blocked_matrix(3, n/3, 0.5) */
    CF_LCPGEN_CONTACT, /**< cf_lcpgen_contact_matrix(n/6, 0.5) */
    CF_LCPGEN_BANDED,  /**< cf_lcpgen_banded_matrix(3, n) */
    CF_LCPGEN_FLUID,   /**< cf_lcpgen_fluid_matrix(round(cbrt n)) */
    CF_LCPGEN_POISSON, /**< cf_lcpgen_poisson_matrix(round(cbrt n)) */
    CF_LCPGEN_FAMILY_COUNT /**< number of families */
} cfLcpFamily;

/** Short name of a family ("pd", "psd", "blocked", "contact", "banded", "fluid", "poisson"). */
const char *cf_lcpgen_family_name(cfLcpFamily f);

/** Actual size the family produces for a requested size @p n (rounded to its structure). */
int cf_lcpgen_family_size(cfLcpFamily f, int n);

/**
 * One planted problem of family @p f and about @p n variables (cf_lcpgen_family_size()), seeded
 * with @p seed, zero fraction 0.5: builds @p p and, when @p x is not NULL, writes the planted
 * solution (cf_lcpgen_family_size(f, n) values).
 */
cfStatus cf_lcpgen_family(cfLcpFamily f, int n, uint64_t seed, cfLcp *p, double *x);

/**
 * The 1D stack as an LCP (the splitting and Newton chapters'
 * mass-ratio example): @p n particles in a column on the ground, each of mass 1 but the top one,
 * of mass @p ratio; contact 0 between the ground and particle 0, contact i between particles i-1
 * and i. A = J M^-1 J^T (tridiagonal: A_ii = 1/m_i + 1/m_(i-1), A_(i,i-1) = A_(i-1,i) = -1/m_(i-1),
 * no m_(-1) term for contact 0), b = J u* with u* = -h g on every particle (g = 9.81): b_0 = -h g,
 * the rest 0. When @p exact is not NULL it gets the solution (n values): contact i carries h g
 * times the mass above it. Allocates @p p (cf_lcp_free()); CF_BAD_INPUT for n < 1, a ratio or h
 * not positive and finite; CF_NO_MEMORY.
 */
cfStatus cf_lcpgen_stack(int n, double ratio, double h, cfLcp *p, double *exact);

#ifdef __cplusplus
}
#endif
#endif /* CF_LCPGEN_H */
