/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ipc_affine.h
 * @brief Moving rigid bodies under the ipc pipeline: each one a stiff affine body (12 unknowns).
 *
 * Chapter 9's IPC (cf_ch09.h) minimizes the incremental potential over node positions q. A rigid
 * box under the ipc pipeline keeps its surface nodes (8 corners, 12 triangles, 18 edges) and one
 * node at its centre, but within a step they are not free: node i of body b is
 *   x_i = c + A X_i,
 * with X_i its body-frame position (cfIpcSystem::q_rest of the node), c the centre and A a 3x3
 * matrix: 12 unknowns per body (Affine Body Dynamics, Lan et al. 2022, not one of the course's papers). The other nodes keep
 * their 3 coordinates. The reduced unknowns z are then mapped linearly, q = J z, so that
 * - the chain rule of every node-space term is exact: grad_z = J^T grad_q, Hess_z = J^T Hess_q J
 *   (no second derivative of a rotation);
 * - a line search's node trajectories q + alpha J dz are straight: chapter 9's CCD
 *   (cf_ipc_ccd_step()) is exact for them;
 * - the body's inertia is chapter 9's own 1/2 (q - qt)^T M (q - qt) over its nodes, when their
 *   masses have the body's mass, centre and second moment (the world gives a solid box m/24 at
 *   each corner and 2m/3 at the centre).
 * What keeps A a rotation is a stiff potential k |A^T A - I|_F^2 (cf_ipc_orthogonality()), added to
 * the incremental potential with the h^2 of the other potentials.
 *
 * Layout of z: the nodes that belong to no body, 3 coordinates each in node order, then per body
 * (c, A row-major): 12 values.
 */
#ifndef CF_IPC_AFFINE_H
#define CF_IPC_AFFINE_H

#include "cf/cf_base.h"

/* Chapter 9's IPC system, options and statistics (cf/cf_ch09.h defines them): the functions below
 * take them by pointer only, so a program that includes this header sees no chapter header. */
/** @cond forward declarations (documented in cf_ch09.h) */
typedef struct cfIpcSystem cfIpcSystem;
typedef struct cfIpcOptions cfIpcOptions;
typedef struct cfIpcStats cfIpcStats;
typedef struct cfIpcPairList cfIpcPairList;
/** @endcond */

#ifdef __cplusplus
extern "C" {
#endif

/** The map q = J z of a cfIpcSystem with affine bodies, and the workspace of its energy. */
typedef struct cfIpcAffine {
    int n_node;      /**< nodes of the system */
    int n_z;         /**< reduced unknowns */
    int n_body;      /**< affine bodies */
    int *col;        /**< per node: its first column in z (its own 3, or its body's 12) */
    int *body;       /**< per node: its body, or -1 */
    double *k;       /**< per body: the orthogonality stiffness (J), > 0 */
    double *q;       /**< 3 n_node: q = J z of the last cf_ipc_affine_energy() */
    double *gq;      /**< 3 n_node: workspace (the node-space gradient) */
    double *Hq;      /**< 9 n_node^2: workspace (the node-space Hessian) */
} cfIpcAffine;

/**
 * The map of system @p s whose body @p b (of @p n_body) owns the @p count[b] nodes from @p first[b],
 * with orthogonality stiffness @p k[b] (J, > 0). The bodies' node ranges must not overlap and every
 * owned node must be free. CF_BAD_INPUT (bad ranges, k <= 0), CF_NO_MEMORY. Free with
 * cf_ipc_affine_free() (also after a failure).
 */
cfStatus cf_ipc_affine_init(cfIpcAffine *a, const cfIpcSystem *s, int n_body, const int *first, const int *count,
                            const double *k);
/** Free and zero (safe on a zeroed struct). */
void cf_ipc_affine_free(cfIpcAffine *a);

/** q = J z (3 per node): a body's node i at c + A X_i, X_i from s->q_rest; the other nodes copied. */
void cf_ipc_affine_positions(const cfIpcAffine *a, const cfIpcSystem *s, const double *z, double *q);

/**
 * The orthogonality potential E = k |A^T A - I|_F^2 of one body (A row-major, 9 values), zero
 * exactly for rotations (and reflections) and invariant under A -> R A. @p g (9) gets
 * dE/dA = 4 k A (A^T A - I), @p H (81, row-major over A's 9 entries) the Hessian
 *   d^2 E / dA_ab dA_cd = 4 k [ delta_ac C_db + A_ad A_cb + delta_db (A A^T)_ac ],  C = A^T A - I
 * (not projected; either may be NULL).
 */
double cf_ipc_orthogonality(const double A[9], double k, double g[9], double H[81]);

/**
 * The incremental potential in the reduced unknowns:
 *   f(z) = f_q(J z) + h^2 sum_b k_b |A_b^T A_b - I|_F^2,
 * with f_q chapter 9's cf_ipc_energy() (inertia, springs, barrier, lagged friction) at q = J z
 * (left in a->q), its gradient @p g = J^T grad f_q + h^2 dE/dA (n_z, may be NULL) and, when @p H
 * (n_z x n_z row-major, caller-allocated) is not NULL, its Hessian J^T Hess f_q J + h^2 Hess E
 * (the first call with @p H allocates the dense node-space workspace, 9 n^2 values: NAN when
 * that fails),
 * every local block projected to PSD (chapter 9's cf_psd_project() for the 9x9 orthogonality
 * block) when @p project. +INFINITY (g, H untouched) when a pair is at distance <= 0.
 */
double cf_ipc_affine_energy(cfIpcAffine *a, const cfIpcSystem *s, const double *z, double *g, double *H, bool project);

/**
 * Chapter 9's step (cf_ipc_step()) in the reduced unknowns: q_start = s->q (which must be J z),
 * q_tilde = q + h u + h^2 g (free nodes; J z-tilde for a body's nodes, as their velocities are
 * affine). With @p z_guess (may be NULL) the iterate first moves towards it as far as the straight
 * node paths are safe: z += alpha (z_guess - z), alpha = cf_ipc_ccd_step() of J (z_guess - z)
 * (a rigid body's free motion is a good guess: Newton on the curved valley of the orthogonality
 * potential converges slowly from the start of the step). Then lag_iters times: lag the friction at the current iterate (cf_ipc_lag_friction())
 * and minimize f(z) by projected Newton: dz = -Hess^-1 grad (Cholesky), stop when
 * |J dz|_inf / h <= tol, the CCD-filtered backtracking line search on the straight node paths
 * q + alpha J dz (cf_ipc_ccd_step(), then halvings while f does not decrease). Then s->q = J z,
 * s->u = (s->q - q_start)/h. Statuses and @p stats as cf_ipc_step().
 */
cfStatus cf_ipc_affine_step(cfIpcAffine *a, cfIpcSystem *s, double *z, const double *z_guess, const cfIpcOptions *opt,
                            cfIpcStats *stats);

/**
 * A broad phase for cf_ipc_affine_step_sparse(): chapter 9's sparse path (the reference solutions'
 * solutions/ch09/fast/cf_ipc_sparse.h: cf_ipc_broad_phase(), cf_ipc_pair_list_free(),
 * cf_ipc_min_distance_sparse()), handed in by the caller, as sim/ cannot call the reference's code
 * by name. Each has that header's contract.
 */
typedef struct cfIpcBroadPhase {
    /** the candidate pairs of the features swept from q to q + dq (dq may be NULL) grown by r */
    cfStatus (*phase)(const cfIpcSystem *s, const double *q, const double *dq, double r, cfIpcPairList *out);
    /** free a list */
    void (*free)(cfIpcPairList *l);
    /** the smallest pair distance at q (and the pairs closer than dhat) */
    cfStatus (*min_distance)(const cfIpcSystem *s, const double *q, double *d, int *active);
} cfIpcBroadPhase;

/**
 * cf_ipc_affine_step() at scale: the same step (guess, lagging loop, projected Newton over z,
 * stopping rule, CCD-filtered line search on the straight node paths, statuses, statistics) with
 * two changes that leave the iterates as they are up to rounding (sim/test/test_ipc_rigid.c
 * compares them): every pair sum runs over the candidates of @p bp's broad phase (the pairs within
 * dhat of the iterate; before each line search, those that can come within dhat on its path, as
 * chapter 9's sparse path does), and J^T H J is assembled block by block into a sparse matrix over
 * z (cf_ipc_energy_blocks()'s local blocks, each body's 9x9 orthogonality block projected) and
 * solved by lib's sparse Cholesky in nested-dissection order, where cf_ipc_affine_step() assembles
 * and factors a dense n_z x n_z matrix (its node-space workspace alone is 9 n^2 values). The final
 * distance is @p bp's min_distance. CF_BAD_INPUT when @p bp or one of its functions is NULL;
 * otherwise the statuses of cf_ipc_affine_step() (CF_SINGULAR when the Cholesky fails).
 */
cfStatus cf_ipc_affine_step_sparse(cfIpcAffine *a, cfIpcSystem *s, double *z, const double *z_guess, const cfIpcOptions *opt,
                                   const cfIpcBroadPhase *bp, cfIpcStats *stats);

#ifdef __cplusplus
}
#endif
#endif /* CF_IPC_AFFINE_H */
