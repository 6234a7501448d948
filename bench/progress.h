/* SPDX-License-Identifier: MIT */
/* Benchmarks: a progress line per item on stderr (the item, the time so far, an estimate of what is
   left), and stdout written line by line, so that make's `| tee` shows each result as it comes
   (a pipe would otherwise hold the whole output until the end). Header only. */
#ifndef CF_BENCH_PROGRESS_H
#define CF_BENCH_PROGRESS_H

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

typedef struct BenchProgress {
    const char *who; /* the program's name, at the start of each line */
    int done, total; /* items finished, items in all (0: unknown, no estimate) */
    double t0;       /* wall clock at the start (s) */
} BenchProgress;

static inline double bench_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* start: stdout line-buffered; @p total items to come (0 when not known) */
static inline void bench_progress_start(BenchProgress *p, const char *who, int total)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    p->who = who;
    p->done = 0;
    p->total = total;
    p->t0 = bench_wall_seconds();
}

/* one item begins: "who: [3/12] what   41 s so far, about 2 min left" (the estimate assumes the
   items left cost what the finished ones did on average) */
static inline void bench_progress(BenchProgress *p, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    double el = bench_wall_seconds() - p->t0;
    char left[64] = "";
    if (p->total > 0 && p->done > 0) {
        double s = el / p->done * (p->total - p->done);
        if (s >= 120) snprintf(left, sizeof left, ", about %.0f min left", s / 60);
        else snprintf(left, sizeof left, ", about %.0f s left", s);
    }
    if (p->total > 0) fprintf(stderr, "%s: [%d/%d] %s   %.0f s so far%s\n", p->who, p->done + 1, p->total, what, el, left);
    else fprintf(stderr, "%s: [%d] %s   %.0f s so far\n", p->who, p->done + 1, what, el);
    p->done++;
}

#endif
