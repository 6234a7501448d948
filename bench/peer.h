/* SPDX-License-Identifier: MIT */
/* Peers of the simulator benchmark written in another language (bench/peer_bullet.cc): the scene
   as plain boxes on a ground plane, and what a run measured. */
#ifndef CF_BENCH_PEER_H
#define CF_BENCH_PEER_H

#ifdef __cplusplus
extern "C" {
#endif

/** A box of the scene: centre, half extents, mass (0: fixed). */
typedef struct BenchBox {
    double x[3];
    double half[3];
    double mass;
} BenchBox;

/** What one run of a peer measured. */
typedef struct BenchRun {
    double ms_step;  /**< wall time per step (ms) */
    double contacts; /**< contact points per step, on average */
    double drift;    /**< largest displacement of a dynamic box at the end (m) */
} BenchRun;

/**
 * Bullet 3: the boxes on the ground plane z = 0, gravity (0, 0, -g), friction mu between every
 * pair (Bullet multiplies the two bodies' coefficients: each gets sqrt(mu)), @p iters iterations of
 * the sequential-impulse solver, @p steps steps of @p dt. Returns 0, or -1 when Bullet is not built in.
 */
int bench_bullet(const BenchBox *boxes, int n, double g, double mu, double dt, int steps, int iters, BenchRun *out);

/** The version of the Bullet the benchmark was built with ("" when none). */
const char *bench_bullet_version(void);

#ifdef __cplusplus
}
#endif
#endif
