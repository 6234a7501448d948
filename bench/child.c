/* SPDX-License-Identifier: MIT */
/* Benchmarks: one solve in a child process under a CPU-time limit (see child.h). The child sends
   its head and answer back through a pipe. */
#define _POSIX_C_SOURCE 200809L
#include "child.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *bench_child_end_name(BenchChildEnd e)
{
    static const char *const names[] = {"ok", "timeout", "crashed", "failed"};
    return e >= 0 && e <= BENCH_CHILD_FAILED ? names[e] : "failed";
}

double bench_cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static bool write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t k = write(fd, p, len);
        if (k <= 0) return false;
        p += k;
        len -= (size_t)k;
    }
    return true;
}

static bool read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t k = read(fd, p, len);
        if (k <= 0) return false;
        p += k;
        len -= (size_t)k;
    }
    return true;
}

BenchChildEnd bench_child_run(double cpu_limit, BenchChildFn fn, void *ctx, double *head, double *out, int n_out)
{
    int fd[2];
    if (pipe(fd) != 0) return BENCH_CHILD_FAILED;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return BENCH_CHILD_FAILED;
    }
    if (pid == 0) {
        close(fd[0]);
        rlim_t secs = (rlim_t)ceil(cpu_limit > 1.0 ? cpu_limit : 1.0);
        struct rlimit rl = {secs, secs + 5}; /* SIGXCPU at the soft limit, SIGKILL at the hard one */
        setrlimit(RLIMIT_CPU, &rl);
        alarm((unsigned)(4 * secs + 60)); /* a child that waits instead of computing */
        memset(head, 0, BENCH_CHILD_HEAD * sizeof *head);
        if (n_out > 0) memset(out, 0, (size_t)n_out * sizeof *out);
        fn(ctx, head, out, n_out);
        bool ok = write_all(fd[1], head, BENCH_CHILD_HEAD * sizeof *head) &&
                  (n_out == 0 || write_all(fd[1], out, (size_t)n_out * sizeof *out));
        _exit(ok ? 0 : 1);
    }
    close(fd[1]);
    double h[BENCH_CHILD_HEAD];
    bool got = read_all(fd[0], h, sizeof h) && (n_out == 0 || read_all(fd[0], out, (size_t)n_out * sizeof *out));
    close(fd[0]);
    int ws = 0;
    waitpid(pid, &ws, 0);
    if (got && WIFEXITED(ws) && WEXITSTATUS(ws) == 0) {
        memcpy(head, h, sizeof h);
        return BENCH_CHILD_OK;
    }
    if (WIFSIGNALED(ws)) {
        int sig = WTERMSIG(ws);
        return sig == SIGXCPU || sig == SIGKILL || sig == SIGALRM ? BENCH_CHILD_TIMEOUT : BENCH_CHILD_CRASHED;
    }
    return BENCH_CHILD_FAILED;
}
