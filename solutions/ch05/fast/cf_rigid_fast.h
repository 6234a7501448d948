/* SPDX-License-Identifier: MIT */
/**
 * @file cf_rigid_fast.h
 * @brief The fast matrix-free blocked PGS (registry row "pgs-fast", ::cf_solver_pgs_fast): the same
 *        method as ch05.6 (cf_rigid_pgs_solve()), arranged for speed.
 *
 * It implements an exercise (ch05.6), so it lives with the reference solutions
 * (solutions/ch05/fast/): `make handout` removes it with its chapter, and a build without it
 * (a student's) simply has no row "pgs-fast".
 *
 * Same iteration as the reference (chapter 5, ch05.6): per contact, one read of the two bodies'
 * velocities, the three contact velocities, the local solve of ch05.5 on the 3x3 block, one write
 * back. What differs is only the arrangement:
 *  - per-contact data is one compact record (frame, angular rows, their images I^-1 (r x d), the
 *    3x3 block and its precomputed inverses: 1/W_nn, the 2x2 tangent inverse, 1/sigma);
 *  - the local solve is inlined and uses sqrt of a sum of squares instead of hypot() and compares
 *    squared norms (the results agree with the reference to rounding);
 *  - body velocities live in one array of 6 doubles per body plus a zero slot for fixed bodies;
 *  - for the sequential and symmetric orders, box pairs (manifolds: consecutive contacts between
 *    the same two bodies) that share no moving body are solved side by side, point by point, in
 *    the lanes of short vectors. The groups come from a topological sort that keeps, for every
 *    body, the order of the contacts touching it, so a sweep is the sequential sweep exactly
 *    (contacts without a common body commute); only the CPU no longer waits for one contact's
 *    write before starting the next. Two lanes with SSE2, four where the processor has AVX2
 *    (cfRigidFast::lanes); each row is computed right into its lane (cf_rigid_fast_prepare()),
 *    and the warm start and the results go through the lanes too.
 * For the same ordering the impulses equal the reference's to rounding (checked in
 * chapters/ch05/tests/test_ch05.c, lib_fast_pgs_matches_reference).
 */
#ifndef CF_RIGID_FAST_H
#define CF_RIGID_FAST_H

#include <math.h>
#include <stdbool.h>

#include "cf/cf_body.h"
#include "cf/cf_ch05.h"
#include "cf/cf_contact.h"
#include "cf/cf_solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One contact of the fast solver (filled by cf_rigid_fast_prepare()). */
typedef struct cfFastRow {
    double d[9];       /**< frame n, t, b (world), 3 doubles each */
    double ja[9];      /**< r_A x d_k */
    double jb[9];      /**< r_B x d_k */
    double ka[9];      /**< I_A^-1 (r_A x d_k) */
    double kb[9];      /**< I_B^-1 (r_B x d_k) */
    double W[9];       /**< the 3x3 block (plus cfm on W_nn), row-major */
    double ima;        /**< 1/m_A (0 for a fixed body) */
    double imb;        /**< 1/m_B (0 for a fixed body) */
    double inv_wnn;    /**< 1 / W_nn */
    double kt[3];      /**< inverse of the 2x2 tangent block: k00, k01, k11 */
    double inv_sigma;  /**< 1 / largest eigenvalue of the tangent block */
    double bias;       /**< velocity bias of the normal row */
    double mu;         /**< friction coefficient */
    double lam[3];     /**< impulse (n, t, b) */
    int a;             /**< velocity slot of A (nb: the zero slot of a fixed body) */
    int b;             /**< velocity slot of B (nb: the zero slot of a fixed body) */
    int contact;       /**< index of the contact this row came from */
    int stick_ok;      /**< the tangent block is invertible (det > 1e-14 a c) */
} cfFastRow;

/** Most threads the fast solver's sweeps use (the world step's, cf_threads()). */
#define CF_FAST_MAX_THREADS CF_MAX_THREADS

/** Below this many contacts a solve runs on one thread: it is too short for the threads' start and
    waits to pay (docs/performance.md: pyramid 20's 2360 contacts gain on two threads since the
    stopping test no longer waits for every thread at every sweep; pyramid 10's 580 are left on one). */
#define CF_FAST_THREAD_MIN_CONTACTS 1000

/** Colors of the colored order (cfRigidFast::colored); a pair that finds all of them taken on its
    bodies goes to the overflow, visited last. */
#define CF_FAST_COLORS 24

/** Work space of the fast solver; zero it before first use, free with cf_rigid_fast_free(). */
typedef struct cfRigidFast {
    int nc;            /**< contacts prepared */
    int nb;            /**< bodies prepared */
    int cap;           /**< rows allocated */
    int cap_bodies;    /**< body slots allocated (nb + 2 CF_FAST_MAX_THREADS) */
    cfFastRow *rows;   /**< nc rows in contact order, filled by cf_rigid_fast_prepare_rows() (not used by the lane schedule) */
    double *vel;       /**< 6 (nb + 2 CF_FAST_MAX_THREADS) doubles: v, w per body, then the zero slot of thread t at nb + 2 t */
    double *pv;        /**< 6 (nb + 2 CF_FAST_MAX_THREADS) pseudo-velocities of the split-impulse stabilization */
    int *ab;           /**< 2 nc: the velocity slots of each contact's two bodies */
    int *perm;         /**< nc: visiting order of a sweep */
    struct cfFastSchedule *sched; /**< the lane schedule of the sequential and symmetric sweeps (owned, private) */
    bool lanes_only;   /**< prepared for the lane schedule (the rows made right in its packs; rows[] not filled) */
    int threads;       /**< threads of the sequential sweeps, 1..CF_FAST_MAX_THREADS (0: cf_threads(), CF_THREADS, at the next prepare) */
    int thread_min_contacts; /**< fewer contacts than this: one thread (0: CF_FAST_THREAD_MIN_CONTACTS) */
    int emulate;       /**< tests: 0 runs the threads for real; 1 (2) runs their shares on one thread, always the
                            highest- (lowest-) numbered thread whose waits are met first, so that a missing wait
                            changes the results whatever the timing (CF_INTERNAL if no thread can go on) */
    int fill_by_rows;  /**< tests: nonzero makes each row of the lane schedule by itself and copies it into its lane,
                            instead of the rows of a pack made in their lanes at once (the same bits either way) */
    bool vel_solved;   /**< vel is as the last solve left it (its split stage then reuses the normal velocities the
                            solve's last pass computed); whoever writes vel otherwise clears it */
    int colored;       /**< sweep order of the sequential and symmetric sweeps: 1 the rows' order (the reference's:
                            the default); 2 the colored order, a different sweep (see cf_rigid_fast_order()), whose
                            threads wait less; 0: cf_fast_colored() at the next prepare. The results do not depend on
                            the threads or lanes in either order */
    int lanes;         /**< box pairs side by side: 2 (SSE2) or 4 (AVX2, where the processor has it); 0: cf_fast_lanes().
                            Set before the first prepare (the work space keeps it until freed); the results do not
                            depend on it */
} cfRigidFast;

/**
 * Lanes the fast solver uses when a workspace does not say: 4 on an x86-64 processor with AVX2
 * (and a GCC build), else 2; the environment variable CF_FAST_LANES=2 asks for 2 (for comparisons).
 * The results do not depend on it.
 */
int cf_fast_lanes(void);

/**
 * The sweep order a work space takes when it does not say (cfRigidFast::colored): 2 (colored) when
 * the environment variable CF_FAST_ORDER is "colored", else 1 (the rows' order).
 */
int cf_fast_colored(void);

/** Free and zero. */
void cf_rigid_fast_free(cfRigidFast *ws);

/**
 * Precompute the rows as cf_rigid_pgs_prepare() (same options, same input check) for a solve in
 * the order o->ordering: for the sequential and symmetric orders, the lane schedule (box pairs side
 * by side, in an order every body sees as the sequential one, of the rows or, with
 * ws->colored = 2, of the colored permutation cf_rigid_fast_order(); with o->ordering sequential, on
 * ws->threads threads when there are at least ws->thread_min_contacts contacts), each row computed
 * right into its lane; for the random order, cf_rigid_fast_prepare_rows(). CF_BAD_INPUT or
 * CF_NO_MEMORY on failure.
 */
cfStatus cf_rigid_fast_prepare(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc,
                               const cfRigidPgsOptions *o, cfRigidFast *ws);

/**
 * Precompute the rows into ws->rows, in contact order (the random order's sweeps, and the soft
 * step, which reads them). A sequential or symmetric solve needs cf_rigid_fast_prepare() instead.
 */
cfStatus cf_rigid_fast_prepare_rows(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc,
                                    const cfRigidPgsOptions *o, cfRigidFast *ws);

/**
 * Solve as cf_rigid_pgs_solve() (same steps, report and results; o->ordering permutes the
 * prepared rows) and write the velocities to the bodies and the impulses to the contacts.
 * CF_BAD_INPUT unless the last prepare was cf_rigid_fast_prepare() with the same ordering family
 * (random, or sequential/symmetric) and the same nb, nc.
 *
 * Threads: with the sequential order, ws->threads = T > 1 and at least ws->thread_min_contacts
 * contacts, the sweeps run on T threads (OpenMP),
 * each owning the box pairs of one slab of space and waiting, pair by pair, only for the pairs of
 * other threads that come first on a shared body. Every body still sees its contacts in the
 * sequential order, so the results are those of one thread, bit for bit, for any T (tested). With
 * a tolerance, a thread waits for the others' largest change of a sweep only when its own is at or
 * below the tolerance (all stop after the same sweep). The symmetric and random orders use one thread.
 */
cfStatus cf_rigid_fast_solve(cfRigidBody *bodies, int nb, cfContact *contacts, int nc, cfRigidFast *ws,
                             const cfRigidPgsOptions *o, cfReport *rep);

/**
 * Split-impulse pseudo-velocities (normal rows only, @p sweeps projected Gauss-Seidel sweeps in the
 * sequential order, on the lane schedule) that remove the fraction @p erp of the predicted
 * penetration phi + h u_n - slop after the velocity solve of @p ws, as the world's reference
 * stage for CF_SOLVER_PGS. Leaves them in ws->pv (6 per body). CF_NO_MEMORY if the schedule cannot
 * be built. Runs on ws->threads threads with the same results, as cf_rigid_fast_solve().
 */
cfStatus cf_rigid_fast_pseudo_velocities(const cfContact *contacts, cfRigidFast *ws, double h, double erp,
                                         double slop, int sweeps);

/**
 * The order in which the last cf_rigid_fast_prepare()'s sequential sweeps visit the contacts, as
 * one list: @p order[k] (nc entries) is the k-th contact visited, and @p color[k] (NULL: not
 * written) its color (0 in the rows' order). A sequential sweep of the contacts permuted so,
 * contacts'[k] = contacts[order[k]], in the rows' order is this sweep exactly (the lanes and threads
 * only overlap contacts that share no moving body).
 *
 * In the rows' order it is 0, 1, ..., nc - 1. In the colored order (cfRigidFast::colored = 2) the
 * box pairs (runs of rows with the same two bodies) are colored greedily, in the rows' order, with
 * the lowest of CF_FAST_COLORS colors no pair on one of their moving bodies has yet; a pair with
 * every color taken gets CF_FAST_COLORS (the overflow). The sweep visits color 0's pairs, then color
 * 1's, ..., each color's in the rows' order: the pairs of one color share no moving body. The order
 * depends on the rows' bodies only, not on the threads. Returns the colors used (the overflow counted
 * as one; 1 in the rows' order), or -1 when the last prepare built no lane schedule (the random order).
 */
int cf_rigid_fast_order(const cfRigidFast *ws, int *order, int *color);

/**
 * A measuring aid (docs/performance.md): the speed-up of @p sweeps sweeps on the last prepare's
 * threads over one thread, in a model where a group costs its points (packs), a wait met late
 * costs @p wait_cost points more, and nothing else costs anything; with @p barrier every thread
 * waits for all at the end of every sweep (as a stopping test that waits for every thread's
 * change would). @p waits (NULL: not written):
 * the waits per sweep. 1 on one thread; -1 without a lane schedule or memory.
 */
double cf_rigid_fast_schedule_model(const cfRigidFast *ws, int sweeps, double wait_cost, bool barrier, double *waits);

/* ---- the row's operations, shared by the fast PGS and the soft step (cf_soft_step.h) ---- */

/** a . b for 3 doubles. */
static inline double cf_fast_dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/** Contact velocity u = (n, t, b) of row @p r from the two bodies' velocity slots @p A, @p B (v then w, 6 each). */
static inline void cf_fast_contact_velocity(const cfFastRow *r, const double *A, const double *B, double u[3])
{
    double dv[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
    for (int k = 0; k < 3; ++k)
        u[k] = cf_fast_dot3(&r->d[3 * k], dv) + cf_fast_dot3(&r->jb[3 * k], B + 3) - cf_fast_dot3(&r->ja[3 * k], A + 3);
}

/** Add the impulse change @p dl (contact frame) of row @p r to the velocities @p va, @p vb (6 each). */
static inline void cf_fast_apply(const cfFastRow *r, const double dl[3], double *va, double *vb)
{
    for (int i = 0; i < 3; ++i) {
        double P = dl[0] * r->d[i] + (dl[1] * r->d[3 + i] + dl[2] * r->d[6 + i]);
        double wa = dl[0] * r->ka[i] + (dl[1] * r->ka[3 + i] + dl[2] * r->ka[6 + i]);
        double wb = dl[0] * r->kb[i] + (dl[1] * r->kb[3 + i] + dl[2] * r->kb[6 + i]);
        va[i] -= r->ima * P;
        va[3 + i] -= wa;
        vb[i] += r->imb * P;
        vb[3 + i] += wb;
    }
}

/**
 * The friction half of ch05.5's local solve on the cone of radius @p radius (= mu lambda_n):
 * sticking (the 2x2 tangent block inverted) when that lands inside the disc, else a step of
 * @p omega / sigma projected onto the disc. @p u holds the contact velocity with the normal
 * change already in it; writes lam[1], lam[2].
 */
static inline void cf_fast_cone_friction(const cfFastRow *r, double omega, double radius, const double u[3], double lam[3])
{
    double t0 = 0.0, t1 = 0.0;
    bool stick = false;
    if (r->stick_ok) {
        t0 = lam[1] - (r->kt[0] * u[1] + r->kt[1] * u[2]);
        t1 = lam[2] - (r->kt[1] * u[1] + r->kt[2] * u[2]);
        stick = t0 * t0 + t1 * t1 <= radius * radius;
    }
    if (!stick) {
        t0 = lam[1] - omega * u[1] * r->inv_sigma;
        t1 = lam[2] - omega * u[2] * r->inv_sigma;
        double m2 = t0 * t0 + t1 * t1;
        if (m2 > radius * radius) {
            double s = radius / sqrt(m2);
            t0 *= s;
            t1 *= s;
        }
    }
    lam[1] = t0;
    lam[2] = t1;
}

/** The registry row "pgs-fast" (sim/solvers.c finds it by this name when it is linked). */
extern const cfSolver cf_solver_pgs_fast;

#ifdef __cplusplus
}
#endif

#endif
