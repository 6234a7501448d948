/* SPDX-License-Identifier: MIT */
/* Status names, error messages, the exercise-stub hook and solver reports. */
#define _POSIX_C_SOURCE 200809L
#include "cf/cf_base.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *cf_status_name(cfStatus st)
{
    switch (st) {
    case CF_OK: return "converged";
    case CF_MAX_ITER: return "max-iterations";
    case CF_STAGNATED: return "stagnated";
    case CF_DIVERGED: return "diverged";
    case CF_INFEASIBLE: return "infeasible";
    case CF_SINGULAR: return "singular";
    case CF_BAD_INPUT: return "bad-input";
    case CF_IO_ERROR: return "io-error";
    case CF_NO_MEMORY: return "no-memory";
    case CF_NOT_IMPLEMENTED: return "not-implemented";
    case CF_STATUS_COUNT: break;
    }
    return "unknown-status";
}

const char *cf_stop_reason_name(cfStopReason r)
{
    switch (r) {
    case CF_STOP_NONE: return "none";
    case CF_STOP_ABSOLUTE: return "absolute";
    case CF_STOP_RELATIVE: return "relative";
    case CF_STOP_STAGNATION: return "stagnation";
    case CF_STOP_DIVERGENCE: return "divergence";
    case CF_STOP_MAX_ITER: return "max-iterations";
    case CF_STOP_REASON_COUNT: break;
    }
    return "unknown-reason";
}

const char *cf_measure_name(cfMeasure m)
{
    switch (m) {
    case CF_MEASURE_NONE: return "none";
    case CF_MEASURE_NATURAL_MAP: return "natural-map";
    case CF_MEASURE_IMPULSE_CHANGE: return "impulse-change";
    case CF_MEASURE_FISCHER: return "fischer-burmeister";
    case CF_MEASURE_VIOLATION: return "violation";
    case CF_MEASURE_LINEAR: return "linear-residual";
    case CF_MEASURE_COUNT: break;
    }
    return "unknown-measure";
}

const char *cf_measure_describe(cfMeasure m)
{
    switch (m) {
    case CF_MEASURE_NONE: return "no per-iteration measure";
    case CF_MEASURE_NATURAL_MAP: return "natural-map residual";
    case CF_MEASURE_IMPULSE_CHANGE: return "largest impulse change per sweep (N s)";
    case CF_MEASURE_FISCHER: return "Fischer-Burmeister merit";
    case CF_MEASURE_VIOLATION: return "largest violation of the contact conditions";
    case CF_MEASURE_LINEAR: return "linear residual |b - A x|";
    case CF_MEASURE_COUNT: break;
    }
    return "unknown measure";
}

cfStatus cf_error_set(cfError *err, cfStatus st, const char *fmt, ...)
{
    if (!err) return st;
    char raw[CF_ERROR_MSG_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* one line, safe for a terminal: control characters (from a file's bytes quoted in the message,
       an escape sequence in a JSON key) are written as \xNN */
    size_t o = 0;
    for (const unsigned char *c = (const unsigned char *)raw; *c && o + 1 < sizeof err->msg; ++c) {
        if (*c < 0x20 || *c == 0x7f) {
            if (o + 5 > sizeof err->msg) break;
            o += (size_t)snprintf(err->msg + o, sizeof err->msg - o, "\\x%02x", *c);
        } else {
            err->msg[o++] = (char)*c;
        }
    }
    err->msg[o] = '\0';
    return st;
}

/* the default hook: a stub reached outside the test harness ends the program with a
   message that says what to do, instead of silently returning a wrong number */
static void default_todo_hook(const char *id, const char *file, int line)
{
    fprintf(stderr, "%s:%d: not implemented: %s (the specification is in lib/include/cf/cf_ch%.2s.h)\n", file,
            line, id, id + 2);
    exit(3);
}

static cfTodoHook todo_hook = default_todo_hook;

cfTodoHook cf_set_todo_hook(cfTodoHook hook)
{
    cfTodoHook old = todo_hook;
    todo_hook = hook ? hook : default_todo_hook;
    return old;
}

int cf_todo(const char *exercise_id, const char *file, int line)
{
    todo_hook(exercise_id, file, line);
    return 0;
}

void cf_report_init(cfReport *r, double *history, int cap)
{
    memset(r, 0, sizeof *r);
    r->status = r->claimed = CF_OK;
    r->common = NAN;
    r->history = history;
    r->history_cap = history ? cap : 0;
}

void cf_report_push(cfReport *r, double residual)
{
    if (r->history && r->history_len < r->history_cap)
        r->history[r->history_len++] = residual;
}

void cf_report_push_inner(cfReport *r, double residual, int inner)
{
    if (r->history && r->history_len < r->history_cap && r->inner) r->inner[r->history_len] = inner;
    r->inner_total += inner > 0 ? inner : 0;
    cf_report_push(r, residual);
}

double cf_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cf_threads(void)
{
    const char *e = getenv("CF_THREADS");
    char *end;
    long n = e ? strtol(e, &end, 10) : 0;
    if (!e || end == e || *end != '\0' || n < 1) return 1;
    return n > CF_MAX_THREADS ? CF_MAX_THREADS : (int)n;
}

/* ---- input files ---------------------------------------------------------------------------- */

FILE *cf_file_open(const char *path, long max_bytes, cfStatus *st, cfError *err)
{
    cfStatus dummy;
    if (!st) st = &dummy;
    if (max_bytes <= 0) max_bytes = CF_FILE_MAX_BYTES;
    if (!path) {
        *st = cf_error_set(err, CF_BAD_INPUT, "no file name");
        return NULL;
    }
    /* non-blocking: opening a FIFO without a writer would wait for one */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        *st = cf_error_set(err, CF_IO_ERROR, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat sb;
    const char *kind = NULL;
    if (fstat(fd, &sb) != 0) kind = "a file whose status cannot be read";
    else if (S_ISDIR(sb.st_mode)) kind = "a directory";
    else if (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode)) kind = "a device";
    else if (S_ISFIFO(sb.st_mode)) kind = "a FIFO (pipe)";
    else if (S_ISSOCK(sb.st_mode)) kind = "a socket";
    else if (!S_ISREG(sb.st_mode)) kind = "not a regular file";
    if (kind) {
        close(fd);
        *st = cf_error_set(err, CF_BAD_INPUT, "%s: %s, not a regular file: refused (it may never end)", path, kind);
        return NULL;
    }
    if (sb.st_size > max_bytes) {
        close(fd);
        *st = cf_error_set(err, CF_BAD_INPUT, "%s: %lld bytes, more than the %ld a reader takes: refused", path,
                           (long long)sb.st_size, max_bytes);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        *st = cf_error_set(err, CF_IO_ERROR, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    *st = CF_OK;
    return f;
}

cfStatus cf_file_read_text(const char *path, long max_bytes, char **text, size_t *len, cfError *err)
{
    *text = NULL;
    if (len) *len = 0;
    if (max_bytes <= 0) max_bytes = CF_FILE_MAX_BYTES;
    cfStatus st;
    FILE *f = cf_file_open(path, max_bytes, &st, err);
    if (!f) return st;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    st = buf ? CF_OK : CF_NO_MEMORY;
    while (st == CF_OK) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                st = CF_NO_MEMORY;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (n > (size_t)max_bytes) st = cf_error_set(err, CF_BAD_INPUT, "%s: grew past %ld bytes while read: refused", path, max_bytes);
        if (got == 0) break;
    }
    if (st == CF_OK && ferror(f)) st = cf_error_set(err, CF_IO_ERROR, "%s: read error", path);
    fclose(f);
    if (st == CF_NO_MEMORY) cf_error_set(err, st, "%s: out of memory", path);
    if (st == CF_OK) {
        buf[n] = '\0';
        const char *nul = memchr(buf, '\0', n);
        if (nul) {
            int line = 1;
            for (const char *c = buf; c < nul; ++c) line += *c == '\n';
            st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: not a text file (NUL byte)", path, line);
        }
    }
    if (st != CF_OK) {
        free(buf);
        return st;
    }
    *text = buf;
    if (len) *len = n;
    return CF_OK;
}

double cf_strtod(const char *s, char **end)
{
    const char *p = s;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f') ++p;
    if (*p == '+' || *p == '-') ++p;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        *end = (char *)s;
        return 0.0;
    }
    return strtod(s, end);
}
