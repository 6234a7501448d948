/* SPDX-License-Identifier: MIT */
/* Peers of the simulator benchmark written in another language (bench/peer_bullet.cc): the scene
   as plain boxes on a ground plane, and what a run measured. */
#ifndef CF_BENCH_PEER_H
#define CF_BENCH_PEER_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The benchmark's clock (s): wall time, or with BENCH_CLOCK=cpu the CPU time of the calling thread,
    which a busy machine does not lengthen as much (a thread waiting for a core accrues none), for
    the one-thread engines; every engine reads the same clock. */
static inline double bench_clock(void)
{
    static int cpu = -1;
    if (cpu < 0) {
        const char *e = getenv("BENCH_CLOCK");
        cpu = e && strcmp(e, "cpu") == 0;
    }
    struct timespec t;
    clock_gettime(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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
