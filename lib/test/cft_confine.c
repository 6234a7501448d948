/* SPDX-License-Identifier: MIT */
/* The proxy layer: direct calls that name the running exercise, and confined calls whose child
   can do nothing but compute and send its results (see cft_confine.h). */
#define _GNU_SOURCE
#include "cft_confine.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "cf/cf_base.h"

/* ---- which exercises are confined (CFT_CONFINE) ---- */

static int confine_all = -1;        /* -1: not read yet */
static unsigned long long confined; /* bit NN: chapter NN */

static void read_env(void)
{
    if (confine_all >= 0) return;
    confine_all = 0;
    const char *v = getenv("CFT_CONFINE");
    if (!v) return;
    for (const char *s = v; *s;) {
        while (*s == ' ' || *s == ',') ++s;
        if (!*s) break;
        if (strncmp(s, "all", 3) == 0 && (s[3] == 0 || s[3] == ' ' || s[3] == ',')) {
            confine_all = 1;
            s += 3;
            continue;
        }
        if (s[0] == 'c' && s[1] == 'h') s += 2;
        char *end;
        long n = strtol(s, &end, 10);
        if (end == s || n < 1 || n > 63) {
            fprintf(stderr, "cft: CFT_CONFINE=%s: want 'all' or chapters such as 'ch06 ch07'\n", v);
            exit(2);
        }
        confined |= 1ull << n;
        s = end;
    }
}

bool cft_confine_enabled(void)
{
    read_env();
    return confine_all == 1 || confined != 0;
}

static bool in_child; /* this process is a confined child or server: everything runs directly */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the running exercise (direct calls) and the test's deadline ---- */

static _Thread_local cftCall *top;
static double deadline, limit; /* the running test's: monotonic seconds */
/* the running test's CPU-time limit (0: none): seconds, and the value of cft_confine_cpu_used()
   at which it runs out; when it was last looked at (monotonic) */
static double cpu_limit, cpu_deadline, cpu_checked;
static pid_t running_child; /* the confined child of the running call (not a server), or 0 */

const cftExercise *cft_confine_running(void)
{
    return top ? top->ex : NULL;
}

/* hot functions whose server runs (for a new test in the same process: CK_FORK=no) */
static cftExercise *with_server[64];
static int n_with_server;

static double clock_seconds(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double pid_cpu(pid_t pid)
{
    clockid_t id;
    return pid > 0 && clock_getcpuclockid(pid, &id) == 0 ? clock_seconds(id) : 0.0;
}

static void cpu_servers(double *sum); /* below, with the servers */

double cft_confine_cpu_used(void)
{
    struct rusage ru;
    double s = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
        s += (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    s += pid_cpu(running_child);
    cpu_servers(&s);
    return s;
}

void cft_confine_test_start(double d, double l, double cpu)
{
    deadline = d;
    limit = l;
    cpu_limit = cpu;
    running_child = 0;
    top = NULL;
    for (int k = 0; k < n_with_server; ++k) {
        cftExercise *ex = with_server[k];
        if (ex->server > 0) {
            kill(ex->server, SIGKILL);
            while (waitpid(ex->server, NULL, 0) < 0 && errno == EINTR) {
            }
            close(ex->res);
            close(ex->out);
            close(ex->req);
            ex->server = 0;
        }
    }
    n_with_server = 0;
    cpu_deadline = cpu > 0 ? cft_confine_cpu_used() + cpu : 0.0;
    cpu_checked = now();
}

static void cpu_servers(double *sum)
{
    for (int k = 0; k < n_with_server; ++k)
        if (with_server[k]->server > 0) *sum += pid_cpu(with_server[k]->server);
}

/* CFT_CONFINE_STATS=1: how often each exercise function was called from outside the exercises,
   printed when the process ends */
#define MAX_STATS 256
static struct {
    const cftExercise *ex;
    long calls;
    double seconds;
} stats[MAX_STATS];
static int n_stats = -1;

static void print_stats(void)
{
    for (int k = 0; k < n_stats; ++k)
        fprintf(stderr, "cft: calls: %s %s %ld (%.3f s)\n", stats[k].ex->id, stats[k].ex->fn, stats[k].calls,
                stats[k].seconds);
}

static void count(const cftExercise *ex, double secs)
{
    if (n_stats == -1) {
        const char *v = getenv("CFT_CONFINE_STATS");
        n_stats = (v && *v && *v != '0') ? 0 : -2;
        if (n_stats == 0) atexit(print_stats);
    }
    if (n_stats < 0 || in_child) return;
    int k = 0;
    while (k < n_stats && stats[k].ex != ex) ++k;
    if (k == n_stats) {
        if (n_stats == MAX_STATS) return;
        stats[n_stats++].ex = ex;
    }
    stats[k].calls++;
    stats[k].seconds += secs;
}

/* ---- the child's side ---- */

/* the child's result and request pipes (high numbers: the test's own code, Check's included,
   keeps small descriptor numbers in statics) */
static int fd_res = -1, fd_req = -1;

/* records on the result pipe: kind, 32-bit length, payload */
enum { REC_DATA = 'D', REC_END = 'E', REC_TODO = 'T', REC_SYSCALL = 'S', REC_CALLBACK = 'C' };

static char wbuf[1 << 16];
static size_t wlen;

static void raw_write(int fd, const void *p, size_t n)
{
    const char *s = p;
    while (n > 0) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) _exit(125); /* the test's process has gone */
        s += k;
        n -= (size_t)k;
    }
}

static void wflush(void)
{
    if (wlen) raw_write(fd_res, wbuf, wlen);
    wlen = 0;
}

static void wbytes(const void *p, size_t n)
{
    const char *s = p;
    while (n > 0) {
        if (wlen == sizeof wbuf) wflush();
        size_t k = sizeof wbuf - wlen < n ? sizeof wbuf - wlen : n;
        memcpy(wbuf + wlen, s, k);
        wlen += k;
        s += k;
        n -= k;
    }
}

static void record(char kind, const void *p, size_t n)
{
    if (n > UINT32_MAX) _exit(124);
    uint32_t len = (uint32_t)n;
    wbytes(&kind, 1);
    wbytes(&len, 4);
    if (n) wbytes(p, n);
}

void cft_put(cftCall *c, const void *p, size_t n)
{
    (void)c;
    record(REC_DATA, p, n);
}

static bool serving; /* this child is a hot function's server */
static cftCall *child_call;

cftCall *cft_child_call(void)
{
    return child_call;
}

void cft_child_end(cftCall *c)
{
    (void)c;
    fflush(NULL);
    record(REC_END, NULL, 0);
    wflush();
    if (!serving) _exit(0);
}

void cft_callback(cftCall *c, int k)
{
    (void)c;
    fflush(NULL);
    record(REC_CALLBACK, &k, sizeof k);
    wflush();
}

void cft_child_get(cftCall *c, void *p, size_t n)
{
    (void)c;
    wflush();
    char *s = p;
    while (n > 0) {
        ssize_t k = read(fd_req, s, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) _exit(125);
        s += k;
        n -= (size_t)k;
    }
}

/* blocks received in this call (freed before the next) */
static void *blocks[64];
static int n_blocks;

void *cft_child_get_block(cftCall *c, size_t *n, size_t max)
{
    uint64_t len;
    cft_child_get(c, &len, sizeof len);
    if (len == UINT64_MAX) {
        *n = 0;
        return NULL;
    }
    if (len > max || n_blocks == (int)(sizeof blocks / sizeof *blocks)) _exit(124);
    void *p = malloc(len ? len : 1);
    if (!p) _exit(124);
    blocks[n_blocks++] = p;
    cft_child_get(c, p, len);
    *n = len;
    return p;
}

void *cft_recv_cached(cftCall *c, cftCache *k, size_t *n, bool *fresh)
{
    char same;
    cft_child_get(c, &same, 1);
    *fresh = !same;
    if (!same) {
        uint64_t len;
        cft_child_get(c, &len, sizeof len);
        void *p = malloc(len ? len : 1);
        if (!p) _exit(124);
        cft_child_get(c, p, len);
        free(k->got);
        k->got = p;
        k->n = len;
    }
    if (!k->got) _exit(124);
    *n = k->n;
    return k->got;
}

static void child_todo(const char *id, const char *file, int line)
{
    (void)file;
    (void)line;
    fflush(NULL);
    record(REC_TODO, id, strnlen(id, 64));
    wflush();
    _exit(0);
}

static void child_sigsys(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    int nr = si->si_syscall;
    record(REC_SYSCALL, &nr, sizeof nr);
    wflush();
    _exit(126);
}

/* The filter: what a computation needs and nothing that reaches outside the process. */
#if defined(__x86_64__)
#define CFT_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CFT_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define ANSWER(nr, ret) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, (ret))
#define QUIET(nr) ANSWER(nr, SECCOMP_RET_ERRNO | EPERM)
#define ARG_LO(k) offsetof(struct seccomp_data, args[k])
/* both filters start the same: another architecture's system calls (and x86-64's x32 numbers)
   kill the process, then the call's number is loaded */
#ifdef __x86_64__
#define NOT_X32 BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#else
#define NOT_X32
#endif
#define FILTER_START                                                                                                   \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),                                           \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CFT_AUDIT_ARCH, 1, 0), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS), \
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)), NOT_X32

static int install_filter(void)
{
#ifndef CFT_AUDIT_ARCH
    errno = ENOSYS;
    return -1;
#else
    const uint32_t thread = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
    const uint32_t ns = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
                        CLONE_NEWPID | CLONE_NEWNET | CLONE_VFORK | CLONE_PTRACE;
    const uint32_t self = (uint32_t)getpid();
    struct sock_filter f[] = {
        FILTER_START
        /* computing: memory, time, its own descriptors, its threads' synchronisation */
        ALLOW(__NR_read), ALLOW(__NR_write), ALLOW(__NR_readv), ALLOW(__NR_writev),
        ALLOW(__NR_close), ALLOW(__NR_fstat), ALLOW(__NR_lseek), ALLOW(__NR_fcntl),
        ALLOW(__NR_dup), ALLOW(__NR_dup3),
        ALLOW(__NR_mmap), ALLOW(__NR_munmap), ALLOW(__NR_mremap), ALLOW(__NR_mprotect),
        ALLOW(__NR_madvise), ALLOW(__NR_brk), ALLOW(__NR_msync), ALLOW(__NR_mincore),
        ALLOW(__NR_futex), ALLOW(__NR_sched_yield), ALLOW(__NR_nanosleep), ALLOW(__NR_clock_nanosleep),
        ALLOW(__NR_clock_gettime), ALLOW(__NR_clock_getres), ALLOW(__NR_gettimeofday),
        ALLOW(__NR_getpid), ALLOW(__NR_gettid), ALLOW(__NR_getppid), ALLOW(__NR_getuid),
        ALLOW(__NR_geteuid), ALLOW(__NR_getgid), ALLOW(__NR_getegid), ALLOW(__NR_getrandom),
        ALLOW(__NR_rt_sigprocmask), ALLOW(__NR_rt_sigreturn), ALLOW(__NR_rt_sigaction),
        ALLOW(__NR_sigaltstack), ALLOW(__NR_set_robust_list), ALLOW(__NR_get_robust_list),
        ALLOW(__NR_set_tid_address), ALLOW(__NR_restart_syscall), ALLOW(__NR_sched_getaffinity),
        ALLOW(__NR_getrlimit), ALLOW(__NR_getrusage), ALLOW(__NR_times),
        ALLOW(__NR_exit), ALLOW(__NR_exit_group),
        ALLOW(__NR_mbind), ALLOW(__NR_get_mempolicy), ALLOW(__NR_set_mempolicy),
#ifdef __NR_rseq
        ALLOW(__NR_rseq),
#endif
#ifdef __NR_dup2
        ALLOW(__NR_dup2),
#endif
#ifdef __NR_time
        ALLOW(__NR_time),
#endif
        /* what the C library asks on the way (isatty, a file's status, its own paths, a limit):
           refused quietly */
        QUIET(__NR_openat), QUIET(__NR_newfstatat), QUIET(__NR_ioctl), QUIET(__NR_prctl),
        QUIET(__NR_readlinkat), QUIET(__NR_faccessat), QUIET(__NR_statx), QUIET(__NR_uname),
        QUIET(__NR_sysinfo), QUIET(__NR_getcwd), QUIET(__NR_sched_setaffinity), QUIET(__NR_prlimit64),
#ifdef __NR_open
        QUIET(__NR_open), QUIET(__NR_stat), QUIET(__NR_lstat), QUIET(__NR_access), QUIET(__NR_readlink),
#endif
#ifdef __NR_openat2
        QUIET(__NR_openat2),
#endif
#ifdef __NR_faccessat2
        QUIET(__NR_faccessat2),
#endif
        /* glibc tries clone3 first and falls back to clone when it is not there */
        ANSWER(__NR_clone3, SECCOMP_RET_ERRNO | ENOSYS),
        /* clone: a thread of this process, nothing else */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 6),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, ns, 3, 0),
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, thread),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, thread, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
        /* tgkill: only to this process (raise, abort) */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tgkill, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
        /* everything else: fork, exec, kill, ptrace, sockets, mounts, namespaces, ... */
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
    };
    struct sock_fprog prog = {.len = (unsigned short)(sizeof f / sizeof f[0]), .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
#endif
}

/* ---- the sanitizer build's run: the student's code runs in the test's process (it may only take
   points away, see tools/grade), but starts no process that outlives the test, enters no
   namespace and talks to no socket: a filter that refuses those (quietly) and allows the rest,
   threads and AddressSanitizer's leak check (a process sharing the test's memory, ptrace)
   included. A process started by a vfork (posix_spawn, popen: memory shared until its exec)
   stays in the test's process group (no setsid, no setpgid; the filter goes with it through
   exec), so Check's end of the test kills it. ---- */

#define DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)

int cft_confine_harden_direct(void)
{
#ifndef CFT_AUDIT_ARCH
    errno = ENOSYS;
    return -1;
#else
    const uint32_t ns = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
                        CLONE_NEWPID | CLONE_NEWNET;
    struct sock_filter f[] = {
        FILTER_START
#ifdef __NR_fork
        DENY(__NR_fork), DENY(__NR_vfork),
#endif
        DENY(__NR_setsid), DENY(__NR_setpgid),
        DENY(__NR_unshare), DENY(__NR_setns), DENY(__NR_mount), DENY(__NR_umount2),
        DENY(__NR_pivot_root), DENY(__NR_chroot), DENY(__NR_socket), DENY(__NR_socketpair),
        DENY(__NR_process_vm_writev), DENY(__NR_bpf), DENY(__NR_perf_event_open), DENY(__NR_userfaultfd),
        DENY(__NR_io_uring_setup), DENY(__NR_keyctl), DENY(__NR_add_key), DENY(__NR_request_key),
        ANSWER(__NR_clone3, SECCOMP_RET_ERRNO | ENOSYS),
        /* clone: memory shared with this process (threads, the leak check's tracer), no namespace */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 5),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, ns, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_VM, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = (unsigned short)(sizeof f / sizeof f[0]), .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
#endif
}

/* Every descriptor the child inherited, except its own pipes: /dev/null from now on, so that
   code of the test's that runs in the child (a callback, Check's bookkeeping of an assertion)
   writes into nothing instead of into a descriptor that is gone or, worse, one of the pipes. */
static void blank_descriptors(int keep_lo, int keep_hi)
{
    /* small numbers (where a library keeps its descriptors) become /dev/null; the rest closes */
    enum { BLANK = 64 };
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < BLANK && fd < keep_lo; ++fd) {
        if (fd == 1 || fd == 2 || fd == null) continue;
        if (fcntl(fd, F_GETFD) < 0) continue; /* not open */
        if (null < 0 || dup2(null, fd) != fd) close(fd);
    }
    if (null >= 0) close(null);
    int from = BLANK < keep_lo ? BLANK : keep_lo;
    if (from < keep_lo && syscall(__NR_close_range, from, keep_lo - 1, 0) != 0)
        for (int fd = from; fd < keep_lo; ++fd) close(fd);
    if (syscall(__NR_close_range, keep_hi + 1, ~0u, 0) != 0)
        for (int fd = keep_hi + 1; fd < 65536; ++fd) close(fd);
}

static void enter_child(pid_t parent, int res_w, int out_w, int req_r)
{
    in_child = true;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(125);
    /* descriptors 1 and 2: the output pipe; two high ones: results and requests; the rest /dev/null */
    struct rlimit lim;
    int hi = getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur > 64 ? (int)(lim.rlim_cur < 1024 ? lim.rlim_cur : 1024) - 2
                                                                      : 62;
    if (dup2(out_w, 1) != 1 || dup2(out_w, 2) != 2 || dup2(res_w, hi) != hi || dup2(req_r, hi + 1) != hi + 1)
        _exit(125);
    fd_res = hi;
    fd_req = hi + 1;
    blank_descriptors(hi, hi + 1);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = child_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSYS, &sa, NULL);
    signal(SIGALRM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    cf_set_todo_hook(child_todo);
    wlen = 0;
    if (install_filter() != 0) {
        static const char msg[] = "cft: cannot install the seccomp filter\n";
        raw_write(2, msg, sizeof msg - 1);
        _exit(123);
    }
}

/* a hot function's server: one call per request, until the test's process goes */
static _Noreturn void serve(cftExercise *ex)
{
    serving = true;
    for (;;) {
        char cmd;
        ssize_t k = read(fd_req, &cmd, 1);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0 || cmd != 'R') _exit(0);
        for (int j = 0; j < n_blocks; ++j) free(blocks[j]);
        n_blocks = 0;
        cftCall c;
        memset(&c, 0, sizeof c);
        c.ex = ex;
        c.child = true;
        child_call = &c;
        ex->serve(&c);
    }
}

/* ---- the test's side ---- */

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* fork a child that is confined before it returns; false (with errno) on failure */
static bool spawn(cftCall *c, bool server)
{
    int p[3][2];
    for (int k = 0; k < 3; ++k)
        if (pipe2(p[k], O_CLOEXEC) != 0) {
            int e = errno;
            for (int j = 0; j < k; ++j) close(p[j][0]), close(p[j][1]);
            errno = e;
            return false;
        }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        for (int k = 0; k < 3; ++k) close(p[k][0]), close(p[k][1]);
        errno = e;
        return false;
    }
    if (pid == 0) {
        enter_child(parent, p[0][1], p[1][1], p[2][0]);
        if (server) serve(c->ex);
        c->child = true;
        child_call = c;
        c->confined = false;
        return true;
    }
    close(p[0][1]);
    close(p[1][1]);
    close(p[2][0]);
    fcntl(p[2][1], F_SETFL, O_NONBLOCK);
    c->pid = pid;
    c->res = p[0][0];
    c->out = p[1][0];
    c->req = p[2][1];
    return true;
}

bool cft_call_begin(cftCall *c, cftExercise *ex)
{
    memset(c, 0, sizeof *c);
    c->ex = ex;
    c->res = c->out = c->req = -1;
    if (ex->mode == 0) {
        read_env();
        ex->mode = (confine_all == 1 || (ex->chapter > 0 && ex->chapter < 64 && (confined >> ex->chapter & 1))) ? 2 : 1;
    }
    c->t0 = now();
    if (in_child || ex->mode == 1) {
        c->nested = top != NULL;
        c->up = top;
        top = c;
        return true;
    }
    static bool hardened;
    if (!hardened) { /* no other process of this user may read or write this one's memory */
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        hardened = true;
    }
    c->confined = true;
    if (ex->serve) {
        if (ex->server == 0) {
            if (!spawn(c, true))
                ck_abort_msg("%s: %s: cannot start its confined server (%s)", ex->id, ex->fn, strerror(errno));
            ex->server = c->pid;
            if (n_with_server < (int)(sizeof with_server / sizeof *with_server)) with_server[n_with_server++] = ex;
            ex->res = c->res;
            ex->out = c->out;
            ex->req = c->req;
        }
        c->pid = ex->server;
        c->res = ex->res;
        c->out = ex->out;
        c->req = ex->req;
        cft_send(c, "R", 1);
        return false;
    }
    if (!spawn(c, false))
        ck_abort_msg("%s: %s: cannot start the confined call (%s)", ex->id, ex->fn, strerror(errno));
    if (!c->child) running_child = c->pid;
    return c->child;
}

void cft_call_end(cftCall *c)
{
    if (top == c) top = c->up;
    if (!c->child && !in_child && !c->nested) count(c->ex, now() - c->t0);
}

/* what the child printed: forwarded to our stderr (capped per test process); its tail kept for
   the sanitizer's summary */
#define OUT_CAP (1 << 20)
static size_t forwarded;
static bool truncated_note;
static char tail[16384];
static size_t tail_len;

static void keep_tail(const char *p, size_t n) /* n <= sizeof tail / 2 */
{
    if (tail_len + n > sizeof tail) {
        size_t drop = tail_len + n - sizeof tail;
        memmove(tail, tail + drop, tail_len - drop);
        tail_len -= drop;
    }
    memcpy(tail + tail_len, p, n);
    tail_len += n;
}

static bool drain_output(cftCall *c)
{
    char buf[8192];
    ssize_t k = read(c->out, buf, sizeof buf);
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (k <= 0) {
        close_fd(&c->out);
        return false;
    }
    keep_tail(buf, (size_t)k);
    size_t n = (size_t)k;
    if (forwarded < OUT_CAP) {
        size_t m = n < OUT_CAP - forwarded ? n : OUT_CAP - forwarded;
        ssize_t w = write(2, buf, m);
        (void)w;
        forwarded += m;
    } else if (!truncated_note) {
        static const char note[] = "\ncft: [the exercise's output is cut here: more than 1 MiB]\n";
        ssize_t w = write(2, note, sizeof note - 1);
        (void)w;
        truncated_note = true;
    }
    return true;
}

static const char *syscall_name(int nr)
{
    switch (nr) {
#ifdef __NR_open
    case __NR_open: return "open";
    case __NR_fork: return "fork";
    case __NR_vfork: return "vfork";
    case __NR_symlink: return "symlink";
    case __NR_link: return "link";
    case __NR_unlink: return "unlink";
    case __NR_mkdir: return "mkdir";
    case __NR_rename: return "rename";
    case __NR_chmod: return "chmod";
    case __NR_creat: return "creat";
#endif
    case __NR_openat: return "openat";
    case __NR_clone: return "clone (a new process)";
    case __NR_execve: return "execve";
    case __NR_execveat: return "execveat";
    case __NR_kill: return "kill";
    case __NR_tkill: return "tkill";
    case __NR_tgkill: return "tgkill (another process)";
    case __NR_ptrace: return "ptrace";
    case __NR_socket: return "socket";
    case __NR_connect: return "connect";
    case __NR_mount: return "mount";
    case __NR_umount2: return "umount2";
    case __NR_unshare: return "unshare";
    case __NR_setns: return "setns";
    case __NR_process_vm_writev: return "process_vm_writev";
    case __NR_process_vm_readv: return "process_vm_readv";
    case __NR_pipe2: return "pipe2";
    case __NR_setsid: return "setsid";
    case __NR_setpgid: return "setpgid";
    case __NR_unlinkat: return "unlinkat";
    case __NR_symlinkat: return "symlinkat";
    case __NR_mkdirat: return "mkdirat";
    case __NR_memfd_create: return "memfd_create";
    case __NR_bpf: return "bpf";
    case __NR_io_uring_setup: return "io_uring_setup";
    case __NR_setitimer: return "setitimer";
    case __NR_renameat: return "renameat";
    case __NR_linkat: return "linkat";
    case __NR_fchmodat: return "fchmodat";
    case __NR_chroot: return "chroot";
    case __NR_pivot_root: return "pivot_root";
    case __NR_seccomp: return "seccomp";
    case __NR_prctl: return "prctl";
    case __NR_personality: return "personality";
    case __NR_socketpair: return "socketpair";
    case __NR_sendto: return "sendto";
    case __NR_sendmsg: return "sendmsg";
    case __NR_wait4: return "wait4";
    case __NR_alarm: return "alarm";
    default: return NULL;
    }
}

/* the sanitizer's own summary in the child's output, or NULL */
static const char *sanitizer_summary(char *out, size_t cap)
{
    char text[sizeof tail + 1];
    memcpy(text, tail, tail_len);
    text[tail_len] = '\0';
    static const char *const pats[] = {"SUMMARY: AddressSanitizer: ", "SUMMARY: UndefinedBehaviorSanitizer: ",
                                       "SUMMARY: LeakSanitizer: ", "runtime error: ", "ERROR: AddressSanitizer: ",
                                       "ERROR: LeakSanitizer: "};
    for (size_t k = 0; k < sizeof pats / sizeof *pats; ++k) {
        const char *s = strstr(text, pats[k]);
        if (!s) continue;
        if (k == 3) { /* "file:line:col: runtime error: ...": the whole line */
            while (s > text && s[-1] != '\n') --s;
        } else if (strncmp(s, "SUMMARY: ", 9) == 0) {
            s += 9;
        }
        size_t n = strcspn(s, "\n");
        if (n >= cap) n = cap - 1;
        for (size_t j = 0; j < n; ++j) out[j] = (s[j] >= 0x20 && s[j] < 0x7f) ? s[j] : '?';
        out[n] = '\0';
        return out;
    }
    return NULL;
}

/* children killed after their results came: reaped later, without waiting for them to die */
static pid_t dying[64];
static int n_dying;

static void reap_dying(bool block)
{
    int k = 0;
    while (k < n_dying) {
        if (waitpid(dying[k], NULL, block ? 0 : WNOHANG) != 0) {
            dying[k] = dying[--n_dying];
            continue;
        }
        ++k;
    }
}

static void let_die(pid_t pid)
{
    kill(pid, SIGKILL);
    if (n_dying == (int)(sizeof dying / sizeof *dying)) reap_dying(true);
    dying[n_dying++] = pid;
    reap_dying(false);
}

/* the child is gone or goes now; forget a hot function's server */
static int reap(cftCall *c, bool wait_first)
{
    int status = 0;
    if (c->pid > 0) {
        bool gone = false;
        for (int k = 0; wait_first && k < 100; ++k) { /* it ended by itself: let it finish */
            if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
                gone = true;
                break;
            }
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
        if (!gone) {
            kill(c->pid, SIGKILL);
            while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {
            }
            if (!wait_first) status = -1;
        }
    }
    if (c->ex->serve && c->ex->server == c->pid) c->ex->server = 0;
    if (running_child == c->pid) running_child = 0;
    c->pid = 0;
    return status;
}

static void close_call(cftCall *c)
{
    close_fd(&c->res);
    close_fd(&c->out);
    close_fd(&c->req);
}

enum { WHY_EOF = 1, WHY_TIMEOUT, WHY_MALFORMED };

static _Noreturn void fail_call(cftCall *c, int why, const char *detail)
{
    const cftExercise *ex = c->ex;
    double took = now() - c->t0;
    /* the CPU time before the child is reaped (its clock goes with it) */
    double cpu_used = why == WHY_TIMEOUT && cpu_limit > 0 ? cft_confine_cpu_used() - (cpu_deadline - cpu_limit) : 0;
    char msg[1024], san[512];
    int status = reap(c, why == WHY_EOF);
    while (c->out >= 0) { /* what it printed before it ended */
        struct pollfd p = {c->out, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0 || !drain_output(c)) break;
    }
    close_call(c);
    if (why == WHY_TIMEOUT && cpu_limit > 0 && cpu_used >= cpu_limit) {
        snprintf(msg, sizeof msg,
                 "%s: %s gave no result within the test's time limit (%.3g s of CPU time; the test used %.3g s of CPU "
                 "in %.3g s)", ex->id, ex->fn, cpu_limit, cpu_used, took);
    } else if (why == WHY_TIMEOUT && cpu_limit > 0) {
        snprintf(msg, sizeof msg,
                 "%s: %s gave no result within the test's time limit (%.3g s of wall-clock time, which ends what waits "
                 "rather than computes; it ran %.3g s, the test used %.3g s of CPU)", ex->id, ex->fn, limit, took,
                 cpu_used);
    } else if (why == WHY_TIMEOUT) {
        snprintf(msg, sizeof msg, "%s: %s gave no result within the test's time limit (%.3g s; it ran %.3g s)", ex->id,
                 ex->fn, limit, took);
    } else if (why == WHY_MALFORMED) {
        snprintf(msg, sizeof msg, "%s: %s sent a result that does not fit (%s)", ex->id, ex->fn, detail);
    } else if (sanitizer_summary(san, sizeof san)) {
        snprintf(msg, sizeof msg, "%s: %s: %s", ex->id, ex->fn, san);
    } else if (status >= 0 && WIFSIGNALED(status)) {
        const char *d = sigdescr_np(WTERMSIG(status));
        snprintf(msg, sizeof msg, "%s: %s crashed (signal %d, %s)", ex->id, ex->fn, WTERMSIG(status),
                 d ? d : "unknown signal");
    } else if (status >= 0 && WIFEXITED(status)) {
        snprintf(msg, sizeof msg, "%s: %s ended its process (exit status %d) before returning", ex->id, ex->fn,
                 WEXITSTATUS(status));
    } else {
        snprintf(msg, sizeof msg, "%s: %s ended without a result", ex->id, ex->fn);
    }
    tail_len = 0;
    _ck_assert_failed(__FILE__, __LINE__, "Failed", "%s", msg);
    abort(); /* not reached: Check ends the test */
}

_Noreturn void cft_call_reject(cftCall *c, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    fail_call(c, WHY_MALFORMED, detail);
}

void cft_call_on_callback(cftCall *c, cftCallbackHandler h, void *ctx)
{
    c->cb = h;
    c->cb_ctx = ctx;
}

size_t cft_count_of(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    long m = -1;
    for (int k = 0; k < n; ++k) {
        long v = va_arg(ap, int);
        if (v > m) m = v;
    }
    va_end(ap);
    return (size_t)(m + 1);
}

/* the requests the test's side has not written yet */
static char sbuf[1 << 16];
static size_t slen;

/* wait for one of the call's pipes (@p out_dir: the request pipe writable); false: the deadline */
static void wait_io(cftCall *c, bool out_dir, struct pollfd *first)
{
    for (;;) {
        struct pollfd fds[2] = {{out_dir ? c->req : c->res, out_dir ? POLLOUT : POLLIN, 0}, {c->out, POLLIN, 0}};
        int wait_ms = -1;
        double t = now();
        if (deadline > 0) {
            double left = deadline - t;
            if (left <= 0) fail_call(c, WHY_TIMEOUT, NULL);
            wait_ms = (int)(left * 1000.0) + 1;
        }
        if (cpu_limit > 0) { /* the CPU time, looked at every 50 ms (a clock read costs a system call) */
            if (t - cpu_checked >= 0.05) {
                cpu_checked = t;
                if (cft_confine_cpu_used() >= cpu_deadline) fail_call(c, WHY_TIMEOUT, NULL);
            }
            if (wait_ms < 0 || wait_ms > 50) wait_ms = 50;
        }
        int r = poll(fds, c->out >= 0 ? 2 : 1, wait_ms);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) fail_call(c, WHY_EOF, NULL);
        if (r == 0) continue; /* the deadline is checked above */
        if (c->out >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) drain_output(c);
        if (fds[0].revents) {
            *first = fds[0];
            return;
        }
    }
}

static void send_flush(cftCall *c)
{
    size_t done = 0;
    while (done < slen) {
        ssize_t k = write(c->req, sbuf + done, slen - done);
        if (k > 0) {
            done += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && errno != EAGAIN) {
            slen = 0;
            fail_call(c, WHY_EOF, NULL);
        }
        struct pollfd p;
        wait_io(c, true, &p);
        if (p.revents & (POLLERR | POLLHUP)) {
            slen = 0;
            fail_call(c, WHY_EOF, NULL);
        }
    }
    slen = 0;
}

void cft_send(cftCall *c, const void *p, size_t n)
{
    const char *s = p;
    while (n > 0) {
        if (slen == sizeof sbuf) send_flush(c);
        size_t k = sizeof sbuf - slen < n ? sizeof sbuf - slen : n;
        memcpy(sbuf + slen, s, k);
        slen += k;
        s += k;
        n -= k;
    }
}

void cft_send_block(cftCall *c, const void *p, size_t n)
{
    uint64_t len = p ? (uint64_t)n : UINT64_MAX;
    cft_send(c, &len, sizeof len);
    if (p) cft_send(c, p, n);
}

void cft_send_cached(cftCall *c, cftCache *k, const void *p, size_t n)
{
    char same = k->sent && k->server == c->pid && k->n == n && (p == k->sent || memcmp(k->sent, p, n) == 0);
    cft_send(c, &same, 1);
    if (same) return;
    uint64_t len = n;
    cft_send(c, &len, sizeof len);
    cft_send(c, p, n);
    void *copy = malloc(n ? n : 1);
    free(k->sent);
    k->sent = copy;
    k->n = copy ? n : 0;
    k->server = copy ? c->pid : 0;
    if (copy) memcpy(copy, p, n);
}

/* exactly n bytes from the result pipe; false at the end of the stream */
static bool read_exact(cftCall *c, void *p, size_t n)
{
    if (slen) send_flush(c);
    char *s = p;
    /* a hot call's answer usually comes within microseconds: look for it a little while
       before sleeping (a sleep and a wake-up cost more than the call) */
    if (c->ex->serve && n > 0) {
        double until = now() + 30e-6;
        struct pollfd q = {c->res, POLLIN, 0};
        while (poll(&q, 1, 0) == 0 && now() < until) {
        }
    }
    while (n > 0) {
        struct pollfd first;
        wait_io(c, false, &first);
        ssize_t k = read(c->res, s, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        s += k;
        n -= (size_t)k;
    }
    return true;
}

static _Noreturn void fail_with(cftCall *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static _Noreturn void fail_with(cftCall *c, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    reap(c, false);
    close_call(c);
    tail_len = 0;
    _ck_assert_failed(__FILE__, __LINE__, "Failed", "%s", msg);
    abort();
}

/* the next record's header (callbacks served on the way); its kind and length */
static char next_record(cftCall *c, uint32_t *len)
{
    for (;;) {
        char head[5];
        if (!read_exact(c, head, sizeof head)) fail_call(c, WHY_EOF, NULL);
        memcpy(len, head + 1, 4);
        if (head[0] == REC_CALLBACK) {
            int k;
            if (*len != sizeof k || !read_exact(c, &k, sizeof k))
                fail_call(c, WHY_MALFORMED, "a broken callback request");
            if (!c->cb) fail_call(c, WHY_MALFORMED, "a callback request where none is expected");
            c->cb(c, k, c->cb_ctx);
            if (slen) send_flush(c);
            continue;
        }
        if (head[0] == REC_TODO) {
            char id[65];
            if (*len > 64 || !read_exact(c, id, *len)) fail_call(c, WHY_MALFORMED, "a broken stub message");
            id[*len] = '\0';
            for (uint32_t j = 0; j < *len; ++j)
                if (!((id[j] >= '0' && id[j] <= '9') || (id[j] >= 'a' && id[j] <= 'z') || id[j] == '.'))
                    id[j] = '?';
            fail_with(c, "not implemented: %s", id);
        }
        if (head[0] == REC_SYSCALL) {
            int nr = -1;
            if (*len != sizeof nr || !read_exact(c, &nr, sizeof nr)) fail_call(c, WHY_MALFORMED, "a broken message");
            const char *name = syscall_name(nr);
            if (name)
                fail_with(c, "%s: %s made a system call that exercises may not make (%s)", c->ex->id, c->ex->fn, name);
            fail_with(c, "%s: %s made a system call that exercises may not make (number %d)", c->ex->id, c->ex->fn, nr);
        }
        return head[0];
    }
}

void cft_get(cftCall *c, void *p, size_t n)
{
    uint32_t len;
    char kind = next_record(c, &len);
    if (kind != REC_DATA || len != n) {
        char d[128];
        snprintf(d, sizeof d, "expected %zu bytes, got a record '%c' of %u", n, kind >= 32 && kind < 127 ? kind : '?',
                 len);
        fail_call(c, WHY_MALFORMED, d);
    }
    if (n && !read_exact(c, p, n)) fail_call(c, WHY_EOF, NULL);
}

size_t cft_get_upto(cftCall *c, void *p, size_t max)
{
    uint32_t len;
    char kind = next_record(c, &len);
    if (kind != REC_DATA || len > max) {
        char d[128];
        snprintf(d, sizeof d, "expected at most %zu bytes, got a record '%c' of %u", max,
                 kind >= 32 && kind < 127 ? kind : '?', len);
        fail_call(c, WHY_MALFORMED, d);
    }
    if (len && !read_exact(c, p, len)) fail_call(c, WHY_EOF, NULL);
    return len;
}

void cft_call_finish(cftCall *c)
{
    uint32_t len;
    char kind = next_record(c, &len);
    if (kind != REC_END || len != 0) fail_call(c, WHY_MALFORMED, "more results than expected");
    if (!c->ex->serve) {
        if (running_child == c->pid) running_child = 0; /* its time counts once it is reaped */
        let_die(c->pid);
        c->pid = 0;
        while (c->out >= 0) { /* what it printed before its end is in the pipe already */
            struct pollfd p = {c->out, POLLIN, 0};
            if (poll(&p, 1, 0) <= 0 || !drain_output(c)) break;
        }
        close_call(c);
    } else {
        while (c->out >= 0) {
            struct pollfd p = {c->out, POLLIN, 0};
            if (poll(&p, 1, 0) <= 0 || !drain_output(c)) break;
        }
    }
    tail_len = 0;
    count(c->ex, now() - c->t0);
}
