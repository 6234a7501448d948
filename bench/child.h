/* SPDX-License-Identifier: MIT */
/* Benchmarks: run one solve in a child process under a CPU-time limit (bench/child.c). A solver
   that asserts (Siconos NSN-FB on RockPile_tob1), crashes or runs past the limit (Siconos PROX on
   RockPile_tob1 had none) ends the child, never the benchmark. Used by bench_ch07 (chapter 7). */
#ifndef CF_BENCH_CHILD_H
#define CF_BENCH_CHILD_H

#include <stdbool.h>

/** Numbers a child sends back besides its answer: status, iterations, seconds, ... (the caller's meaning). */
#define BENCH_CHILD_HEAD 4

/** How a child ended. */
typedef enum BenchChildEnd {
    BENCH_CHILD_OK = 0,  /**< it sent its head and answer */
    BENCH_CHILD_TIMEOUT, /**< killed at the CPU-time limit (or at the wall-clock backstop, 4 limits + 60 s) */
    BENCH_CHILD_CRASHED, /**< ended by another signal (an assertion, a segfault) */
    BENCH_CHILD_FAILED   /**< no child, no pipe, or it exited without sending everything */
} BenchChildEnd;

/** Short text for an end ("ok", "timeout", "crashed", "failed"). */
const char *bench_child_end_name(BenchChildEnd e);

/**
 * The work done in the child: fill @p head (BENCH_CHILD_HEAD numbers, zero on entry) and @p out
 * (@p n_out numbers, zero on entry) from @p ctx.
 */
typedef void (*BenchChildFn)(void *ctx, double *head, double *out, int n_out);

/**
 * Run @p fn in a child process limited to @p cpu_limit seconds of CPU time (RLIMIT_CPU; SIGXCPU
 * ends it) and, as a backstop for a child that sleeps or waits, 4 cpu_limit + 60 seconds of wall
 * time. On BENCH_CHILD_OK @p head and @p out hold what the child wrote; otherwise @p head is
 * untouched and @p out may be partly written. stdout is flushed first (the child would print the
 * parent's buffer again).
 */
BenchChildEnd bench_child_run(double cpu_limit, BenchChildFn fn, void *ctx, double *head, double *out, int n_out);

/** CPU time of the calling thread in seconds (CLOCK_THREAD_CPUTIME_ID): what a benchmark on a loaded machine
    compares. Not the process clock: under RLIMIT_CPU Linux advances that one only at the scheduler's tick. */
double bench_cpu_seconds(void);

#endif
