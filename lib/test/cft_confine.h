/* SPDX-License-Identifier: MIT */
/**
 * @file cft_confine.h
 * @brief The proxy layer between a chapter's tests and the student's exercise functions.
 *
 * A chapter's test binary is linked with `-Wl,--wrap=F` for every exercise function F of
 * chapters 1..N (lib/test/confine/chNN.tbl lists them), so every call of F from the tests, the
 * library, the simulation layer or another chapter reaches a proxy written by tools/confine-gen.
 * The proxy runs F one of two ways:
 *
 * - **direct** (the default: `make test-chN`, gdb): F runs in the test's own process, and the
 *   proxy records that it runs, so that a test that runs out of time inside F fails with
 *   "chNN.K: F was still running when the test's time limit (T s) ran out" rather than with
 *   Check's bare "Test timeout expired";
 * - **confined** (CFT_CONFINE=all or a list of chapters such as "ch06 ch07"; tools/grade sets
 *   it): F runs in a child process that can do nothing but compute. The child closes every
 *   descriptor but its pipes, installs a seccomp filter (memory, writes to its pipes, threads of
 *   its own, exit: nothing that opens a file, starts a process, signals another, traces, mounts or
 *   talks to a socket) and only then calls F. It sends back F's value and the outputs the table
 *   declares; the test's process copies them into the caller's memory within sizes it computed
 *   itself before the call, and never takes a pointer from the child. Whatever else F writes
 *   stays in the child, which is killed when its results are in. So the process that evaluates a
 *   test's assertions never runs the student's code, and nothing that code does can forge a pass.
 *   A child that crashes, ends early, makes a forbidden call, runs out of time, or sends a result
 *   that does not fit fails the test with a message that names F.
 *
 * A confined call forks the test's process, so F sees the caller's memory as it is (inputs need
 * no copying). Functions marked `hot` in the table (pure functions called thousands of times by
 * the tests or by provided code) run instead in one child per test and function, a server forked
 * at the first call, that receives each call's inputs (as the table declares them) and answers
 * with the outputs: a round trip instead of a fork per call.
 *
 * Calls made inside a child (F calling another exercise function, or a library function that
 * calls one) go straight through.
 */
#ifndef CFT_CONFINE_H
#define CFT_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cftCall;

/** One exercise function (a static of its proxy). */
typedef struct cftExercise {
    const char *fn;                     /**< the function's name */
    const char *id;                     /**< its exercise id, "chNN.K" */
    int chapter;                        /**< NN */
    void (*serve)(struct cftCall *c);   /**< hot functions: one call in the server */
    int mode;                           /**< 0 not decided yet, 1 direct, 2 confined */
    pid_t server;                       /**< hot functions: the server of this process's test, or 0 */
    int res, out, req;                  /**< its pipes (the test's ends) */
} cftExercise;

/** One call through a proxy. */
typedef struct cftCall {
    cftExercise *ex;
    bool child;         /**< in the confined child (or server): send the outputs after the call */
    bool confined;      /**< the test's side of a confined call */
    bool nested;        /**< a direct call made inside another exercise function */
    pid_t pid;          /**< the child */
    int res, out, req;  /**< result, output and request pipes (the test's ends) */
    double t0;          /**< when the call started */
    struct cftCall *up; /**< the call this one runs in (direct calls nest) */
    void (*cb)(struct cftCall *c, int k, void *ctx); /**< the test's side: callback requests */
    void *cb_ctx;
    long cb_arg;
} cftCall;

/**
 * Start a call of @p ex. Returns true when the function is to be called here: directly, or in
 * the confined child (then @p c->child is true; the outputs go back with cft_put() and
 * cft_child_end() after the call). Returns false in the test's process of a confined call: a
 * hot function's inputs go with cft_send(), then the results are read with cft_get() and
 * cft_call_finish().
 */
bool cft_call_begin(cftCall *c, cftExercise *ex);
/** End a direct call. */
void cft_call_end(cftCall *c);

/** Child: send @p n bytes at @p p. */
void cft_put(cftCall *c, const void *p, size_t n);
/** Child: the results are complete. A fork's child ends; a server waits for the next call. */
void cft_child_end(cftCall *c);

/** Test's side: receive exactly @p n bytes into @p p (anything else fails the test). */
void cft_get(cftCall *c, void *p, size_t n);
/** Test's side: receive at most @p max bytes into @p p; returns how many came. */
size_t cft_get_upto(cftCall *c, void *p, size_t max);
/** Test's side: the results are complete. Fails the test otherwise. */
void cft_call_finish(cftCall *c);
/** Fail the running test because of what the child sent (a count out of range, say), naming
 *  the function. Never returns. */
_Noreturn void cft_call_reject(cftCall *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** @name The other direction: a hot function's inputs, a callback's results
 *  @{ */
/** Test's side: send @p n bytes to the child (a hot call's inputs, a callback's results). */
void cft_send(cftCall *c, const void *p, size_t n);
/** Child: receive exactly @p n bytes of what cft_send() sent. */
void cft_child_get(cftCall *c, void *p, size_t n);
/** Child: receive a block of at most @p max bytes that cft_send_block() sent, in memory
 *  allocated here (kept until the next call); NULL for a NULL block. */
void *cft_child_get_block(cftCall *c, size_t *n, size_t max);
/** Test's side: send @p n bytes at @p p as a block (NULL: a NULL block). */
void cft_send_block(cftCall *c, const void *p, size_t n);
/** A hot function's input that rarely changes between calls (a problem): the test's side keeps
 *  a copy of what it sent to which server, the server what it received and what it built. */
typedef struct cftCache {
    void *sent;       /**< test's side: the bytes sent last */
    size_t n;         /**< their length */
    pid_t server;     /**< the server they went to */
    void *got;        /**< server: the bytes received last */
    void *obj;        /**< server: what was built from them */
} cftCache;
/** Test's side: send @p n bytes, or a mark that they are the ones sent last to this server. */
void cft_send_cached(cftCall *c, cftCache *k, const void *p, size_t n);
/** Server: the bytes of cft_send_cached() (kept in @p k); @p fresh tells whether they are new. */
void *cft_recv_cached(cftCall *c, cftCache *k, size_t *n, bool *fresh);
/** @} */

/** @name Callbacks: a function the exercise calls that must run in the test's process (a
 *  trace of the test's, a world's stage). Hand-written proxies (`custom` in the table) use these.
 *  @{ */
/** Child: ask the test's process to run callback @p k; then cft_put() its arguments, then
 *  cft_child_get() its results. */
void cft_callback(cftCall *c, int k);
/** Test's side: the handler of callback requests during the call @p c, called with the index k;
 *  it reads the arguments with cft_get() and answers with cft_send(). */
typedef void (*cftCallbackHandler)(cftCall *c, int k, void *ctx);
void cft_call_on_callback(cftCall *c, cftCallbackHandler h, void *ctx);
/** Child: the call a callback stub belongs to (the innermost confined call of this child). */
cftCall *cft_child_call(void);
/** @} */

/** max(0, 1 + the largest of the @p n indices that follow): the elements an array indexed by them
 *  needs (for the table's counts). */
size_t cft_count_of(int n, ...);

/** @name The harness's side (lib/test/cft.c)
 *  @{ */
/** A test starts: its deadline on the monotonic clock and its limit in seconds (0: none), and
 *  its limit in CPU seconds (0: none) of this process, its confined children and servers
 *  together (CFT_CPU_MULTIPLIER; a load on the machine does not use it up). */
void cft_confine_test_start(double deadline, double limit, double cpu_limit);
/** CPU seconds used so far by this process, its children waited for, its running confined
 *  child and the servers of its hot functions. */
double cft_confine_cpu_used(void);
/** True when some exercise is confined in this run (CFT_CONFINE). */
bool cft_confine_enabled(void);
/** The sanitizer build's run under the grader (direct calls): refuse, for the rest of this
 *  process, what starts a process, enters a namespace or opens a socket. 0 on success. */
int cft_confine_harden_direct(void);
/** The exercise running directly in this process, or NULL (for timeout messages). */
const cftExercise *cft_confine_running(void);
/** @} */

#endif /* CFT_CONFINE_H */
