/* SPDX-License-Identifier: MIT */
/**
 * @file cf_newton_sparse.h
 * @brief The sparse Alart-Curnier Newton of the reference solutions (registry row
 *        "newton-ac-sparse", ::cf_solver_newton_ac_sparse): ch06.6's method with a block-sparse
 *        Jacobian and a sparse block LU instead of the dense LU.
 *
 * It implements an exercise (ch06.6), so it lives with the reference solutions
 * (solutions/ch06/fast/): `make handout` removes it with its chapter, and a build without it has
 * no row "newton-ac-sparse". The chapter's code (solutions/ch06/ac.c, newton.c) stays the readable
 * reference; this path is the same iteration arranged for size:
 *  - the generalized Jacobian J = A + B W of the Alart-Curnier function (the blocks of
 *    cf_fc_ac_eval()) is assembled in 3x3 blocks on the block pattern of W plus the diagonal,
 *    never as triplets or a dense matrix;
 *  - J d = -Phi is solved by a block LU without pivoting between blocks (Gauss-Jordan with partial
 *    pivoting inside each 3x3 pivot block) after a minimum-degree ordering of the contacts (Tinney
 *    and Walker's scheme 2 on the contact graph, the elimination graph kept as bit sets): the
 *    pattern is W's for every iteration, so the ordering, the fill and the list of block updates
 *    are computed once per solve and each iteration only does the arithmetic (the bit sets take
 *    nc^2 / 8 bytes and the ordering O(nc^2) steps: 0.1-7 ms on the benchmark's problems, and about
 *    50 MB for 20 000 contacts, where a quotient-graph minimum degree would be the next step);
 *  - each solve is checked: the linear residual |J d + Phi| after up to two steps of iterative
 *    refinement must be at most 1e-8 |Phi|; a tiny pivot (below 1e-13 max|J_ij|) or a failed check
 *    means "singular", and then, as the reference does, J + delta I with delta = |Phi| clamped to
 *    [1e-10, 1e-2] max(1, max|J_ij|) is factored once;
 *  - the Newton loop is ch06.2's: Armijo back-tracking on theta = |Phi|^2 / 2 (sigma, 30 halvings),
 *    the steepest-descent fallback -J^T Phi, the stop on the natural-map residual cf_fc_residual().
 * Where J is not singular the direction is the reference's up to rounding, so the iterates agree
 * with cf_fc_newton_ac()'s; where it is, both regularize by the same rule but factor differently.
 */
#ifndef CF_NEWTON_SPARSE_H
#define CF_NEWTON_SPARSE_H

#include "cf/cf_ch06.h"
#include "cf/cf_problem.h"
#include "cf/cf_solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A sparse block LU of matrices with one fixed 3x3 block pattern (opaque). */
typedef struct cfBlockLu cfBlockLu;

/**
 * The symbolic phase for the pattern of @p W (square, 3x3 blocks) plus the diagonal, made
 * structurally symmetric: the minimum-degree ordering, the fill, the update lists. Allocates
 * @p *out (NULL on failure). CF_BAD_INPUT when W is not square with 3x3 blocks, CF_NO_MEMORY.
 */
cfStatus cf_block_lu_symbolic(const cfBsr *W, cfBlockLu **out);
/** Zero the values (before the blocks of a new matrix are added). */
void cf_block_lu_clear(cfBlockLu *F);
/** Add the 3x3 block @p m (row-major) at block position (i, j), which must be in the pattern
 *  (W's blocks or the diagonal): false when it is not. */
bool cf_block_lu_add(cfBlockLu *F, int i, int j, const double m[9]);
/**
 * Factor the values added, in place. False when a pivot of a 3x3 pivot block falls to
 * @p tiny or below (singular to that threshold).
 */
bool cf_block_lu_factor(cfBlockLu *F, double tiny);
/** x = A^-1 b with the factors (b and x may alias). */
void cf_block_lu_solve(cfBlockLu *F, const double *b, double *x);
/** Blocks of the factors L and U (diagonal blocks included): the fill diagnostics. */
long cf_block_lu_blocks(const cfBlockLu *F);
/** Free (NULL allowed). */
void cf_block_lu_free(cfBlockLu *F);

/**
 * Alart-Curnier Newton on the Coulomb problem (the method of cf_fc_newton_ac(), same options:
 * max_iter, tol on cf_fc_residual(), sigma, max_backtracks, scale; the linear-solver fields are
 * not read) with the sparse Jacobian and block LU above. Same statuses as cf_fc_newton_ac();
 * @p stats (may be NULL) receives the counters (singular: regularized iterations; linear_iters:
 * refinement steps).
 */
cfStatus cf_fc_newton_ac_sparse(const cfFrictionProblem *p, const cfNewtonOptions *o, double *r, cfReport *rep,
                                cfNewtonStats *stats);

/** The registry's row "newton-ac-sparse" (sim/solvers.c lists it by a weak reference). */
extern const cfSolver cf_solver_newton_ac_sparse;

#ifdef __cplusplus
}
#endif
#endif /* CF_NEWTON_SPARSE_H */
