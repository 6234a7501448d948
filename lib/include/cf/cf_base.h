/* SPDX-License-Identifier: MIT */
/**
 * @file cf_base.h
 * @brief Status codes, error messages, solver reports and the "not implemented" hook.
 *
 * Every fallible function in cflab returns a ::cfStatus. Functions that read files or
 * validate user input also take a ::cfError, which receives a one-line message naming
 * the file, the position or field, and the reason.
 */
#ifndef CF_BASE_H
#define CF_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Outcome of a call. ::CF_OK is zero, so `if (st != CF_OK)` reads naturally. */
typedef enum cfStatus {
    CF_OK = 0,          /**< success; for an iterative solver: converged */
    CF_MAX_ITER,        /**< iterative solver stopped at its iteration limit */
    CF_STAGNATED,       /**< iterates stopped changing before the tolerance was met */
    CF_DIVERGED,        /**< residual grew without bound or became non-finite */
    CF_INFEASIBLE,      /**< the problem has no solution (e.g.\ Lemke ray termination) */
    CF_SINGULAR,        /**< a matrix that had to be factorized or inverted is singular */
    CF_BAD_INPUT,       /**< an argument violates the function's contract (NaN, h < 0, mu < 0, ...) */
    CF_IO_ERROR,        /**< a file could not be read or written */
    CF_NO_MEMORY,       /**< an allocation failed */
    CF_NOT_IMPLEMENTED, /**< an exercise stub was reached */
    CF_STATUS_COUNT     /**< number of statuses */
} cfStatus;

/** Short lowercase name of a status, e.g.\ "converged", "max-iterations". Never NULL. */
const char *cf_status_name(cfStatus st);

/** Capacity of ::cfError::msg in bytes. */
#define CF_ERROR_MSG_CAP 512

/**
 * A one-line error message. Functions that take a `cfError *` write to it only when they
 * return a status other than ::CF_OK; passing NULL is always allowed.
 */
typedef struct cfError {
    char msg[CF_ERROR_MSG_CAP]; /**< "file:line:col: what: why", NUL-terminated */
} cfError;

/** printf-style: write a message into @p err (no-op when @p err is NULL). Returns @p st. Control
 *  characters in the result (bytes below 0x20 and 0x7f) are written as `\xNN`, so that a message
 *  quoting a file's bytes stays one harmless line on a terminal. */
cfStatus cf_error_set(cfError *err, cfStatus st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ------------------------------------------------------------------------------------ */
/** @name Input files
 *  Every reader of the library and the simulation layer opens its file through these, so that no
 *  input can make it block, read without end or allocate what the file cannot back.
 *  @{ */

/** The largest file a reader takes by default: 256 MiB (the largest Siconos problem here is 4 MB). */
#define CF_FILE_MAX_BYTES (256L << 20)

/**
 * Open @p path for reading when it is a regular file of at most @p max_bytes bytes (<= 0:
 * #CF_FILE_MAX_BYTES). A directory, device (/dev/zero, a terminal), FIFO or socket is refused
 * without blocking (opened non-blocking, then checked with fstat): such a file may never end or
 * never deliver. NULL with the status in @p st and a message "path: why" in @p err: CF_IO_ERROR
 * when the file cannot be opened, CF_BAD_INPUT when it is not a regular file or too large.
 */
FILE *cf_file_open(const char *path, long max_bytes, cfStatus *st, cfError *err);

/**
 * The whole text file @p path (cf_file_open() with @p max_bytes) into a NUL-terminated buffer
 * @p text (the caller frees it) of @p len bytes (@p len may be NULL). CF_BAD_INPUT also for a NUL
 * byte (not a text file: "path:LINE: not a text file (NUL byte)") and for a file that grew past the
 * cap while it was read; CF_NO_MEMORY. On failure *text is NULL.
 */
cfStatus cf_file_read_text(const char *path, long max_bytes, char **text, size_t *len, cfError *err);

/**
 * strtod() for the text formats (Siconos, TetGen): a decimal number only. strtod() also takes a
 * hexadecimal one ("0x10" is 16, "0x1p-3" is 0.125), which none of these formats writes and
 * other tools reading the same file (Siconos, Python's float()) refuse; it is not converted:
 * *@p end is @p s and the result 0, as for any word that is not a number. Otherwise exactly
 * strtod(@p s, @p end) (leading white space, "inf" and "nan" included: the callers refuse
 * non-finite values with their own message).
 */
double cf_strtod(const char *s, char **end);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Exercise stubs
 *  An exercise stub calls CF_TODO("chNN.K"). The default hook prints
 *  `not implemented: chNN.K (see cf_chNN.h)` to stderr and exits with status 3; the test
 *  harness installs a hook that fails the running test with the same message.
 *  @{ */

/** A function that is told which exercise stub was reached, and where. It should not return. */
typedef void (*cfTodoHook)(const char *exercise_id, const char *file, int line);

/** Install @p hook (NULL restores the default). Returns the previous hook. */
cfTodoHook cf_set_todo_hook(cfTodoHook hook);

/** Report that exercise @p exercise_id (stub at @p file:@p line) is not implemented. Returns 0 if the hook returns. */
int cf_todo(const char *exercise_id, const char *file, int line);

/** Stub statement for a function returning void or whose return is written after it. */
#define CF_TODO(id) ((void)cf_todo(id, __FILE__, __LINE__))
/** Stub expression for a function returning double. */
#define CF_TODO_F(id) (cf_todo(id, __FILE__, __LINE__), 0.0)
/** Stub expression for a function returning int. */
#define CF_TODO_I(id) (cf_todo(id, __FILE__, __LINE__), 0)
/** Stub expression for a function returning ::cfStatus. */
#define CF_TODO_S(id) (cf_todo(id, __FILE__, __LINE__), CF_NOT_IMPLEMENTED)
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Solver reports
 *  Every solver fills a ::cfReport: status, iterations, final residual, per-iteration history
 *  and wall time. The history buffer belongs to the caller.
 *  @{ */

/** Why an iterative method stopped (more specific than ::cfStatus). */
typedef enum cfStopReason {
    CF_STOP_NONE = 0,   /**< not stopped yet / direct method */
    CF_STOP_ABSOLUTE,   /**< residual below the absolute tolerance */
    CF_STOP_RELATIVE,   /**< residual below relative tolerance times the initial residual */
    CF_STOP_STAGNATION, /**< change between iterates below the stagnation tolerance */
    CF_STOP_DIVERGENCE, /**< residual non-finite or above the divergence bound */
    CF_STOP_MAX_ITER,   /**< iteration limit reached */
    CF_STOP_REASON_COUNT /**< number of stop reasons */
} cfStopReason;

/** Short lowercase name of a stop reason. Never NULL. */
const char *cf_stop_reason_name(cfStopReason r);

/**
 * What a solver's residual and per-iteration history measure. Solvers of different families stop
 * on different quantities; a report says which one it holds, so that a plot or a table can say
 * it too. To compare solvers on one number, the world also computes the common residual of every
 * solve (cfStepStats::common_residual: the natural map of the Coulomb problem).
 */
typedef enum cfMeasure {
    CF_MEASURE_NONE = 0,        /**< nothing per iteration (a direct method, for one) */
    CF_MEASURE_NATURAL_MAP,     /**< natural-map residual |x - P(x - w)| of the problem solved (LCP, boxed LCP, FC3D) */
    CF_MEASURE_IMPULSE_CHANGE,  /**< largest change of an impulse in a sweep (N s), the matrix-free PGS's stopping measure */
    CF_MEASURE_FISCHER,         /**< Fischer-Burmeister merit |phi_FB(x, w)| */
    CF_MEASURE_VIOLATION,       /**< largest violation of the contact conditions (Baraff's certificate) */
    CF_MEASURE_LINEAR,          /**< linear-system residual |b - A x| (conjugate gradients) */
    CF_MEASURE_COUNT            /**< number of measures */
} cfMeasure;

/** Short lowercase name of a measure, such as "natural-map". Never NULL. */
const char *cf_measure_name(cfMeasure m);
/** A few words for plot titles and help texts, such as "largest impulse change per sweep (N s)". Never NULL. */
const char *cf_measure_describe(cfMeasure m);

/**
 * Result of a solver call. Initialize with cf_report_init().
 *
 * Every function of cflab that takes a `cfReport *` accepts NULL: it then reports nothing, and
 * the status it returns is the whole answer. An exercise that writes to its report therefore
 * writes only when the pointer is not NULL (`if (rep) cf_report_push(rep, r);`): the tests pass
 * NULL to most solvers somewhere.
 */
typedef struct cfReport {
    cfStatus status;       /**< outcome */
    cfStopReason reason;   /**< why an iterative method stopped */
    cfMeasure measure;     /**< what @ref residual and @ref history hold (set by the solver; NONE when it does not say) */
    int iterations;        /**< iterations, sweeps or pivots performed */
    double residual;       /**< final residual in the solver's stated measure */
    double seconds;        /**< wall time of the solve */
    double *history;       /**< caller-owned buffer: residual after each iteration (may be NULL) */
    int history_cap;       /**< capacity of @ref history */
    int history_len;       /**< entries written to @ref history */
    int *inner;            /**< caller-owned, @ref history_cap entries (may be NULL): inner iterations of outer
                                iteration k of a nested solver (chapter 8's ICA), beside history[k] */
    long inner_total;      /**< inner iterations over all outer ones of a nested solver (cf_report_push_inner()
                                sums them, whether or not @ref inner has room); 0 for the others */
    double common;         /**< the common residual of the problem solved (relative, cf_solvers.h): what "converged"
                                is checked against, beside the solver's own @ref residual; NAN when not computed */
    double common_tol;     /**< the tolerance @ref common was checked against (0 when not checked) */
    cfStatus claimed;      /**< the status the solver itself returned: @ref status unless the check downgraded it */
} cfReport;

/** Reset @p r (status CF_OK, common NAN); @p history (may be NULL) of @p cap doubles receives per-iteration residuals. */
void cf_report_init(cfReport *r, double *history, int cap);

/** Append @p residual to the history (dropped silently when the buffer is full). */
void cf_report_push(cfReport *r, double residual);
/** As cf_report_push() for an outer iteration of a nested solver, which also took @p inner inner
 *  iterations (recorded in cfReport::inner when the caller gave one, always added to cfReport::inner_total). */
void cf_report_push_inner(cfReport *r, double residual, int inner);

/** Monotonic wall clock in seconds (for timings; never used for results). */
double cf_seconds(void);

/** Most threads a world step uses (cf_threads()). */
#define CF_MAX_THREADS 8

/**
 * Threads of the world step and the fast solver, the one knob for both: the environment variable
 * CF_THREADS (an integer 1..CF_MAX_THREADS; larger values are clamped), 1 when it is unset or not a
 * positive integer. Results never depend on it: every threaded stage gives one thread's bits.
 */
int cf_threads(void);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_BASE_H */
