/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ipc_sparse.h
 * @brief Chapter 9's projected Newton at scale: a spatial-hash broad phase for the barrier pairs and
 *        the CCD, block-sparse assembly of the projected Hessian and a sparse Cholesky solve.
 *        Derivation: chapters/ch09/README.md, "At scale: the sparse path".
 *
 * It is chapter 9's Newton (ch09.4) and step (cf_ipc_step()) with two changes that do not change
 * the iterates beyond rounding:
 *  - the pairs: cf_ipc_for_pairs() visits a candidate list (cfIpcSystem::pairs) built by
 *    cf_ipc_broad_phase() with lib's spatial hash instead of all O(T V + E^2) pairs. Before each
 *    line search the list is built from the swept boxes of the features from q to q + dq grown by
 *    dhat: every trial point of the line search (q + alpha dq, alpha in [0, 1]) and the new iterate
 *    then see every pair within dhat and every pair that can meet on the way (the CCD), so the
 *    CCD, the energies of the trials and the next iterate's gradient and Hessian are those of all
 *    pairs. The list is in cf_ipc_for_pairs()'s order, so sums run in the reference's order;
 *  - the linear solve: the projected blocks (cf_ipc_energy_blocks()) go into 3x3 block triplets,
 *    then CSR (what cf_csr_from_triplets() gives, bit for bit), fixed nodes' rows and columns
 *    dropped with 1 on their diagonal, and the library's supernodal sparse Cholesky (cf_chol_super_*)
 *    with nested dissection ordering (CF_CHOL_ORDER_ND: on a cloth of 10 000 nodes 0.46 of reverse
 *    Cuthill-McKee's fill, bench/results/ch09_ipc_scaling.txt) solves H dq = -g. Its symbolic
 *    analysis is kept through a solve while H's pattern stays the same (barrier pairs against fixed
 *    nodes only touch diagonal blocks: the cloth on a box is analysed once per step), and each
 *    iteration refactors the values alone (0.05 s instead of the up-looking reference's 0.31 s at
 *    10 000 nodes, bench/results/ch09_ipc_issue34.txt; the same solution to 1e-12).
 *
 * It builds on chapter 9's exercises (ch09.2-ch09.6 through cf_ipc_energy_blocks() and
 * cf_ipc_line_search()), so it lives with the reference solutions (solutions/ch09/fast/) and is
 * not in a handout; the world's ipc pipeline uses it when it is linked (sim/ipc.c) and chapter 9's
 * dense cf_ipc_step() otherwise.
 */
#ifndef CF_IPC_SPARSE_H
#define CF_IPC_SPARSE_H

#include "cf/cf_ch09.h"

/**
 * The candidate pairs of @p s at @p q (3n values): a point-triangle or edge-edge pair that
 * cf_ipc_for_pairs() would visit (the same rules: no shared node, not all nodes fixed) is listed
 * when the boxes of its two features, swept from q to q + dq (@p dq may be NULL: no motion) and
 * grown by @p r (>= 0), overlap. So every pair closer than r at some point q + t dq, t in [0, 1],
 * is listed (a pair's distance bounds its boxes' gap). Order: cf_ipc_for_pairs()'s (triangles,
 * then each triangle's points ascending; then edges e < f). @p out is reused (grown as needed;
 * free with cf_ipc_pair_list_free()). CF_BAD_INPUT for r < 0 or non-finite input, CF_NO_MEMORY.
 */
cfStatus cf_ipc_broad_phase(const cfIpcSystem *s, const double *q, const double *dq, double r, cfIpcPairList *out);

/** Free and zero (a zeroed list is empty). */
void cf_ipc_pair_list_free(cfIpcPairList *l);

/**
 * The smallest pair distance at @p q, exactly as cf_ipc_min_distance() (INFINITY without pairs;
 * @p active: the pairs closer than dhat, may be NULL), by broad phases of growing radius r = dhat,
 * 4 dhat, 16 dhat, ...: the smallest distance among the candidates of radius r is the true one once
 * it is <= r. CF_NO_MEMORY (then *d = NAN).
 */
cfStatus cf_ipc_min_distance_sparse(const cfIpcSystem *s, const double *q, double *d, int *active);

/**
 * Chapter 9's cf_ipc_newton() (same loop, stopping rules, statuses and statistics) from @p q with
 * the broad phase and the sparse solve above. @p s->pairs is used and left as it was.
 * CF_SINGULAR when the sparse Cholesky fails, CF_NO_MEMORY.
 */
cfStatus cf_ipc_newton_sparse(cfIpcSystem *s, double *q, const cfIpcOptions *opt, cfIpcStats *st);

/**
 * Chapter 9's cf_ipc_step() on the sparse path: cf_ipc_step_begin(), the lagging loop of
 * cf_ipc_step_lagged() with cf_ipc_newton_sparse() (the friction lag over the candidates of radius
 * dhat), then the final distance by cf_ipc_min_distance_sparse(). Same contract as cf_ipc_step().
 */
cfStatus cf_ipc_step_sparse(cfIpcSystem *s, const cfIpcOptions *opt, cfIpcStats *stats);

/**
 * IPC's adaptive barrier stiffness (Li et al. 2020, "Incremental Potential Contact: Intersection-
 * and Inversion-free, Large-Deformation Dynamics", ACM TOG 39(4), section 4.3 and its supplement),
 * an option of cf_ipc_step_sparse_adaptive(). Derivation (chapters/ch09/README.md, "Adaptive
 * kappa"): f = E + kappa h^2 B with E the inertia, springs and friction and B = sum_k b(d_k); the
 * barrier is linear in kappa, so at the step's start q^t the kappa that best balances the two
 * gradients, argmin |grad E + kappa grad(h^2 B)|^2, is
 *     kappa_0 = -(grad E . grad(h^2 B)) / |grad(h^2 B)|^2,
 * clamped to [kappa_min, kappa_max] (kappa_min when no pair is within dhat or the two gradients do
 * not oppose). Then, after each Newton iterate, when the smallest distance d is below d_thresh and
 * smaller than at the iterate before (a pair that keeps approaching although the barrier is
 * active), kappa doubles, at most to kappa_max. Unlike the paper, kappa is not carried from step to
 * step: each step starts again from the gradient balance (the world gathers a new system every
 * step and keeps no IPC state).
 */
typedef struct cfIpcKappaRule {
    double kappa_min; /**< lower bound (N/m, > 0) */
    double kappa_max; /**< upper bound (N/m, >= kappa_min) */
    double d_thresh;  /**< doubling threshold (m, > 0, below dhat) */
} cfIpcKappaRule;

/** What the rule did in a step (cf_ipc_step_sparse_adaptive()). */
typedef struct cfIpcKappaStats {
    double kappa0;    /**< the gradient balance's kappa, clamped */
    double kappa;     /**< kappa at the end of the step (also left in s->kappa) */
    int doublings;    /**< how many times kappa doubled */
} cfIpcKappaStats;

/** The defaults: kappa_min = @p kappa (a rule such as the world's), kappa_max = 100 kappa_min (the
    paper's ratio), d_thresh = dhat / 10. */
cfIpcKappaRule cf_ipc_kappa_rule_default(double kappa, double dhat);

/**
 * The gradient balance above at @p q with s->q_tilde, s->q_start, s->fric and s->pairs as they are:
 * the unclamped kappa_0 (0 when no pair is within dhat or the gradients do not oppose).
 * CF_NO_MEMORY (then *kappa = NAN), CF_BAD_INPUT when f(q) is not finite.
 */
cfStatus cf_ipc_kappa_balance(const cfIpcSystem *s, const double *q, double *kappa);

/**
 * cf_ipc_step_sparse() with the adaptive kappa of @p rule (not NULL; bounds with 0 < kappa_min <=
 * kappa_max and 0 < d_thresh, else CF_BAD_INPUT): s->kappa is set to kappa_0 after
 * cf_ipc_step_begin() and doubled by the rule inside each Newton solve. @p ks may be NULL.
 */
cfStatus cf_ipc_step_sparse_adaptive(cfIpcSystem *s, const cfIpcOptions *opt, const cfIpcKappaRule *rule,
                                     cfIpcStats *stats, cfIpcKappaStats *ks);

#endif /* CF_IPC_SPARSE_H */
