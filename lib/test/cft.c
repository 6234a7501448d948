/* SPDX-License-Identifier: MIT */
/* Test support: graded registration, rubric, cost-grouped timeouts, tolerance asserts. */
#define _POSIX_C_SOURCE 200809L
#include "cft.h"
#include "cft_confine.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ---- the rubric: every registration is remembered so that --rubric can print it ---- */

typedef struct Entry {
    const char *name, *id, *title;
    int points;
    int ordinal; /* position among all registrations, CFT_CASE or not */
    bool hidden; /* registered by the instructor's hidden tests (cft_hidden_build) */
} Entry;

#define MAX_ENTRIES 1024
static Entry entries[MAX_ENTRIES];
static int n_entries;
static int n_registered;
static bool rubric_only;
static int only_ordinal = -1; /* grader mode: the one registration added to the suite */
static bool building_hidden; /* cft_hidden_build() runs */

static const char *case_filter(void)
{
    const char *f = getenv("CFT_CASE");
    return (f && *f) ? f : NULL;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* the group (test case) names, as Check prints them in failure lines (`ch01.3-long`), so that
   CFT_CASE also selects by group */
#define MAX_GROUPS 128
static struct {
    const TCase *tc;
    const char *name;
    int heavy; /* made by cft_tcase_heavy() */
} groups[MAX_GROUPS];
static int n_groups;

static const char *tcase_group(const TCase *tc)
{
    for (int i = 0; i < n_groups; ++i)
        if (groups[i].tc == tc) return groups[i].name;
    return NULL;
}

static void enter_test(void);
static void leave_test(void);

void cft_add_(TCase *tc, const TTest *fn, const char *name, const char *id, int points,
              const char *title)
{
    int ordinal = n_registered++;
    if (only_ordinal >= 0) {
        if (ordinal != only_ordinal) return;
        /* a test case not made by cft_tcase_*() (a hidden test's, say) still reports its end */
        if (!tcase_group(tc)) tcase_add_checked_fixture(tc, enter_test, leave_test);
        tcase_add_test(tc, fn);
        return;
    }
    if (n_entries >= MAX_ENTRIES) {
        fprintf(stderr, "cft: more than %d tests registered\n", MAX_ENTRIES);
        exit(2);
    }
    const char *f = case_filter();
    const char *group = tcase_group(tc);
    for (int i = 0; i < n_groups && id[0]; ++i)
        if (groups[i].tc == tc && groups[i].heavy) {
            /* a run that leaves the heavy tests out (CK_EXCLUDE_TAGS=heavy) must still grade */
            fprintf(stderr, "cft: %s: a graded test in the heavy test case %s\n", name, groups[i].name);
            exit(2);
        }
    if (f && !starts_with(id, f) && !starts_with(name, f) && !(group && starts_with(group, f))) return;
    entries[n_entries++] = (Entry){name, id, title, points, ordinal, building_hidden};
    if (!rubric_only) tcase_add_test(tc, fn);
}

/* ---- exit() inside a test is not a pass ----
   Check's fork mode counts a child that exits with status 0 as passed, so code under test that
   calls exit(0) would earn the points. A checked fixture marks the test as running and an atexit
   handler turns any exit during the test into "Early exit with return value 86". */

#define CFT_EXIT_IN_TEST 86
static volatile int in_test;
static volatile int test_ended; /* the test function and the checked teardown returned */
static pid_t runner_pid;        /* the runner; a test in fork mode runs in a child of it */
static bool leak_check_at_exit(void);
static void check_leaks(void);
static void start_clock(double seconds);
static void enter_test(void) /* a test case not made here (a hidden test's): Check's default */
{
    const char *d = getenv("CK_DEFAULT_TIMEOUT");
    double t = d && *d ? strtod(d, NULL) : 4.0;
    in_test = 1;
    start_clock(t > 0 ? t : 4.0);
}
static void enter_unit(void) { in_test = 1; start_clock(CFT_TIMEOUT_UNIT); }
static void enter_scene(void) { in_test = 1; start_clock(CFT_TIMEOUT_SCENE); }
static void enter_long(void) { in_test = 1; start_clock(CFT_TIMEOUT_LONG); }
static void leave_test(void)
{
    in_test = 0;
    test_ended = 1; /* the leak check follows when the process exits (exit_guard) */
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
}
static void exit_guard(void)
{
    if (in_test) {
        fputs("cft: the code under test called exit() before the test finished\n", stderr);
        _exit(CFT_EXIT_IN_TEST);
    }
    if (test_ended && leak_check_at_exit()) {
        check_leaks(); /* fails the test (and ends the process) on a leak */
        fflush(NULL);
        _exit(EXIT_SUCCESS); /* LeakSanitizer's own check at exit would only repeat this one */
    }
}

/* ---- a leak fails the test that made it, at the line that allocated ----
   In the sanitizer build (SAN=1) LeakSanitizer looks for leaks when a test's process exits; the
   test then ended as "Early exit with return value 1" and only its report, among the other
   output, named where the memory came from. Here the harness runs that check itself when a
   passed test's process exits (fork mode; in place of LeakSanitizer's, so it costs nothing more),
   shows its report as it is and fails the test at the largest leak's allocation outside the
   sanitizer: `exercises/ch01/soft.c:94: memory leak: 2880 byte(s) in 60 allocation(s) not freed,
   the largest allocated here in cf_soft_step_implicit`. */

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>

/* the first frame of LeakSanitizer's report that is not the sanitizer's own:
   "    #1 0x55ea62f2497c in cf_soft_step_implicit exercises/ch01/soft.c:94" */
static bool first_frame(const char *report, char *fn, size_t fn_size, char *file, size_t file_size, int *line)
{
    for (const char *l = report; (l = strstr(l, "    #")) != NULL; ++l) {
        char f[256], where[512];
        if (sscanf(l, " #%*d %*s in %255s %511s", f, where) != 2) continue;
        char *colon = strrchr(where, ':');
        if (!colon || strstr(where, "libsanitizer") || strstr(where, "compiler-rt")) continue;
        *colon = '\0';
        char *column = strrchr(where, ':'); /* file:line:column when the symbolizer gives one */
        if (column) {
            *column = '\0';
            *line = atoi(column + 1);
        } else {
            *line = atoi(colon + 1);
        }
        snprintf(fn, fn_size, "%s", f);
        snprintf(file, file_size, "%s", where);
        return true;
    }
    return false;
}

static void check_leaks(void)
{
    const char *to = __sanitizer_get_report_path();
    if (to && *to && strcmp(to, "stderr") != 0) { /* the user sent the reports elsewhere (log_path) */
        if (__lsan_do_recoverable_leak_check()) ck_abort_msg("memory leak (see LeakSanitizer's report)");
        return;
    }
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/cft-leaks-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd >= 0) {
        unlink(path);
        __sanitizer_set_report_fd((void *)(intptr_t)fd);
    }
    int leaked = __lsan_do_recoverable_leak_check();
    if (fd < 0) {
        if (leaked) ck_abort_msg("memory leak (see LeakSanitizer's report)");
        return;
    }
    __sanitizer_set_report_fd((void *)(intptr_t)2);
    static char report[1 << 16];
    ssize_t n = leaked ? pread(fd, report, sizeof report - 1, 0) : 0;
    report[n > 0 ? n : 0] = '\0';
    if (leaked) { /* the whole report, as LeakSanitizer wrote it */
        char buf[4096];
        ssize_t k;
        for (off_t at = 0; (k = pread(fd, buf, sizeof buf, at)) > 0; at += k)
            if (write(2, buf, (size_t)k) < 0) break;
    }
    close(fd);
    if (!leaked) return;
    /* "SUMMARY: AddressSanitizer: 2880 byte(s) leaked in 60 allocation(s)." */
    long long bytes = 0, count = 0;
    const char *sum = strstr(report, "SUMMARY: ");
    if (sum) sscanf(sum, "SUMMARY: %*s %lld byte(s) leaked in %lld", &bytes, &count);
    char fn[256], file[512];
    int line = 0;
    if (first_frame(report, fn, sizeof fn, file, sizeof file, &line))
        _ck_assert_failed(file, line, "Failed", "memory leak: %lld byte(s) in %lld allocation(s) not freed, the "
                          "largest allocated here in %s (LeakSanitizer's report is above)", bytes, count, fn);
    ck_abort_msg("memory leak: %lld byte(s) in %lld allocation(s) not freed (LeakSanitizer's report is above)", bytes,
                 count);
}
static bool leak_check_at_exit(void) { return getpid() != runner_pid; }
#else
static bool leak_check_at_exit(void) { return false; }
static void check_leaks(void) {}
#endif

/* ---- test cases by cost ---- */

/* ---- the test's time limit: a test that runs out of time inside an exercise function says which ----
   Check's fork mode kills a test's process when its time limit (the test case's timeout times
   CK_TIMEOUT_MULTIPLIER) runs out. Shortly before that, a timer in the test's process fails the
   test naming the exercise function that runs (directly), and the proxies of confined calls stop
   waiting for theirs (cft_confine.h). */

static double test_limit, test_cpu_limit;

static void out_of_time(int sig)
{
    (void)sig;
    const cftExercise *ex = cft_confine_running();
    if (ex)
        _ck_assert_failed(__FILE__, __LINE__, "Failed",
                          "%s: %s was still running when the test's time limit (%.3g s) ran out", ex->id, ex->fn,
                          test_limit);
}

/* the CPU-time limit ran out in this process (its own CPU time: a confined child's is watched
   by the proxy that waits for it) */
static void out_of_cpu(int sig)
{
    (void)sig;
    const cftExercise *ex = cft_confine_running();
    if (ex)
        _ck_assert_failed(__FILE__, __LINE__, "Failed",
                          "%s: %s was still running when the test's time limit (%.3g s of CPU time) ran out", ex->id,
                          ex->fn, test_cpu_limit);
    _ck_assert_failed(__FILE__, __LINE__, "Failed", "Test timeout expired (the test's time limit, %.3g s of CPU time)",
                      test_cpu_limit);
}

static int grade_fd = -1;

static void start_clock(double seconds)
{
    /* the grader's run with direct calls (the sanitizer build's): the student's code is in this
       process; nothing it starts may outlive the test (cft_confine.h) */
    static bool hardened;
    if (grade_fd >= 0 && !hardened && !cft_confine_enabled()) {
        hardened = true;
        if (cft_confine_harden_direct() != 0)
            fprintf(stderr, "cft: cannot restrict the test's process (%s)\n", strerror(errno));
    }
    const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
    double mult = m && *m ? strtod(m, NULL) : 1.0;
    test_limit = seconds * (mult > 0 ? mult : 1.0);
    /* CFT_CPU_MULTIPLIER (the grader's): the limit in CPU seconds of the test's process and its
       confined children, which a loaded machine does not use up; Check's limit in wall-clock
       seconds (CK_TIMEOUT_MULTIPLIER) then only ends what sleeps */
    const char *cm = getenv("CFT_CPU_MULTIPLIER");
    double cmult = cm && *cm ? strtod(cm, NULL) : 0.0;
    test_cpu_limit = cmult > 0 ? seconds * cmult : 0.0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double start = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    /* some time before Check's own limit, which started when it forked this process */
    double margin = fmin(0.5, 0.1 * test_limit);
    const char *f = getenv("CK_FORK");
    if (f && strcmp(f, "no") == 0) {
        cft_confine_test_start(0, 0, 0); /* one process for every test: no limit */
        return;
    }
    cft_confine_test_start(start + test_limit - margin, test_limit, test_cpu_limit);
    double left = test_limit - margin;
    struct itimerval t = {{0, 0}, {(time_t)left, (suseconds_t)((left - floor(left)) * 1e6)}};
    signal(SIGALRM, out_of_time);
    setitimer(ITIMER_REAL, &t, NULL);
    if (test_cpu_limit > 0) {
        double c = test_cpu_limit;
        struct itimerval tc = {{0, 0}, {(time_t)c, (suseconds_t)((c - floor(c)) * 1e6)}};
        signal(SIGPROF, out_of_cpu);
        setitimer(ITIMER_PROF, &tc, NULL);
    }
}

static TCase *make_tcase(Suite *s, const char *name, double timeout)
{
    TCase *tc = tcase_create(name);
    if (n_groups >= MAX_GROUPS) {
        fprintf(stderr, "cft: more than %d test cases created\n", MAX_GROUPS);
        exit(2);
    }
    groups[n_groups].tc = tc;
    groups[n_groups++].name = name;
    tcase_add_checked_fixture(tc, timeout == CFT_TIMEOUT_UNIT ? enter_unit : timeout == CFT_TIMEOUT_SCENE ? enter_scene
                                  : timeout == CFT_TIMEOUT_LONG ? enter_long : enter_test, leave_test);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    return tc;
}

TCase *cft_tcase_unit(Suite *s, const char *name) { return make_tcase(s, name, CFT_TIMEOUT_UNIT); }
TCase *cft_tcase_scene(Suite *s, const char *name) { return make_tcase(s, name, CFT_TIMEOUT_SCENE); }
TCase *cft_tcase_long(Suite *s, const char *name) { return make_tcase(s, name, CFT_TIMEOUT_LONG); }
TCase *cft_tcase_heavy(Suite *s, const char *name)
{
    TCase *tc = make_tcase(s, name, CFT_TIMEOUT_LONG);
    groups[n_groups - 1].heavy = 1;
    tcase_set_tags(tc, "heavy");
    return tc;
}

/* ---- the stub hook: a reached stub fails the running test with a distinct message ---- */

/* The exercise of the running test (its CFT_GRADED id; "" for an ungraded test). Check names the
   running test (tcase_name()); the entries were registered before the test's process forked. */
static const char *running_exercise(void)
{
    const char *name = tcase_name();
    for (int i = 0; name && i < n_entries; ++i)
        if (strcmp(entries[i].name, name) == 0) return entries[i].id;
    return "";
}

/* A test of ch06.7 that reaches the stub of ch06.6 says which exercise to write first; one of
   chapter 6 that reaches a stub of chapter 4 (linked from exercises/ because the tree has no
   solution of it) says so too. The message always starts "not implemented: <stub's id>". */
static void todo_fails_test(const char *id, const char *file, int line)
{
    const char *own = running_exercise();
    if (!own[0] || strcmp(own, id) == 0)
        _ck_assert_failed(file, line, "Failed", "not implemented: %s", id);
    else if (strncmp(own, id, 4) == 0)
        _ck_assert_failed(file, line, "Failed", "not implemented: %s (this test of %s needs %s first)", id,
                          own, id);
    else
        _ck_assert_failed(file, line, "Failed",
                          "not implemented: %s (this test of %s needs %s of chapter %d first: write it, or "
                          "ask for chapter %d's released solution)",
                          id, own, id, atoi(id + 2), atoi(id + 2));
}


/* ---- grader mode: one graded test at a time, results over a socket ----
   tools/grade runs this program with CFT_GRADE_FD naming one end of a socket whose other end it
   keeps, outside the sandbox. The runner then runs each graded test alone in its own forked
   process and reports its result ("RESULT name kind seconds file:line<TAB>message"); the grader
   writes the logs for the instructor from these, Check's own logs are not used. In the run that
   decides (CFT_CONFINE: every exercise function in a confined child, cft_confine.h) no code of
   the student's runs in this process or the test's, so these results are the verdict; a child
   cannot reach the socket (its descriptors are /dev/null). In the sanitizer build's run the
   student's code runs in the test's process and could write here: the grader only lets that run
   take points away (docs/grading.md). */

static int grader_fd(void)
{
    const char *v = getenv("CFT_GRADE_FD");
    if (!v || !*v) return -1;
    char *end;
    long fd = strtol(v, &end, 10);
    struct stat st;
    if (*end || fd < 3 || fd > 1 << 20 || fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
        fprintf(stderr, "cft: CFT_GRADE_FD=%s is not a socket\n", v);
        exit(2);
    }
    return (int)fd;
}

static bool send_text(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(grade_fd, s, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        s += k;
        n -= (size_t)k;
    }
    return true;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static Suite *make_suite(const char *suite_name, void (*build)(Suite *s))
{
    n_registered = n_groups = 0; /* a suite built again registers its test cases again */
    Suite *s = suite_create(suite_name);
    build(s);
    if (cft_hidden_build) { /* instructor tests compiled in with HIDDEN=dir */
        building_hidden = true;
        cft_hidden_build(s);
        building_hidden = false;
    }
    return s;
}

static void send_result(const char *name, TestResult *tr, double seconds)
{
    static const char *const kinds[] = {"invalid", "pass", "failure", "error"};
    int kind = tr ? tr_rtype(tr) : 0;
    const char *file = tr && tr_lfile(tr) ? tr_lfile(tr) : "-";
    char text[1024];
    snprintf(text, sizeof text, "%s", tr && tr_msg(tr) ? tr_msg(tr) : "no result");
    for (char *c = text; *c; ++c)
        if (*c == '\n' || *c == '\t' || *c == '\r') *c = ' ';
    char msg[2048];
    int n = snprintf(msg, sizeof msg, "RESULT %s %s %.3f %s:%d\t%s\n", name,
                     kind >= 0 && kind <= 3 ? kinds[kind] : "invalid", seconds, file,
                     tr ? tr_lno(tr) : 0, text);
    if (n > 0) send_text(msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

/* Each graded test alone: the suite is built again with only that registration, so the forked
   process knows which test it runs. */
static int run_for_grader(const char *suite_name, void (*build)(Suite *s))
{
    rubric_only = true;
    srunner_free(srunner_create(make_suite(suite_name, build))); /* collect the entries */
    rubric_only = false;
    cf_set_todo_hook(todo_fails_test);
    runner_pid = getpid();
    atexit(exit_guard);
    for (int i = 0; i < n_entries; ++i) {
        const Entry *e = &entries[i];
        if (e->points == 0) continue;
        char msg[512];
        int n = snprintf(msg, sizeof msg, "RUN %s\n", e->name);
        if (n > 0 && (size_t)n < sizeof msg) send_text(msg, (size_t)n);
        fprintf(stderr, "cft: ==== %s ====\n", e->name); /* the grader splits the output here */
        only_ordinal = e->ordinal;
        SRunner *sr = srunner_create(make_suite(suite_name, build));
        only_ordinal = -1;
        srunner_set_fork_status(sr, CK_FORK);
        double t0 = now_seconds();
        srunner_run_all(sr, CK_SILENT);
        double t1 = now_seconds();
        TestResult **r = srunner_ntests_run(sr) == 1 ? srunner_results(sr) : NULL;
        send_result(e->name, r ? r[0] : NULL, t1 - t0);
        free(r);
        srunner_free(sr);
    }
    send_text("END\n", 4);
    return EXIT_SUCCESS;
}

int cft_main(int argc, char **argv, const char *suite_name, void (*build)(Suite *s))
{
    bool list = false;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--rubric") == 0) {
            rubric_only = true;
        } else if (strcmp(argv[i], "--list") == 0) {
            list = rubric_only = true;
        } else {
            fprintf(stderr,
                    "usage: %s [--rubric | --list]\n"
                    "  --rubric  print graded tests: name, exercise, points, title, public|hidden\n"
                    "  --list    print every test: name, exercise, points, title, public|hidden\n"
                    "environment: CFT_CASE=prefix selects tests by exercise id, name or group;\n"
                    "  CK_FORK, CK_VERBOSITY, CK_TAP_LOG_FILE_NAME, CK_TIMEOUT_MULTIPLIER as in Check\n",
                    argv[0]);
            return 2;
        }
    }

    if (!rubric_only && (grade_fd = grader_fd()) >= 0) return run_for_grader(suite_name, build);

    Suite *s = make_suite(suite_name, build);
    if (rubric_only) {
        int total = 0, graded = 0;
        for (int i = 0; i < n_entries; ++i) {
            const Entry *e = &entries[i];
            if (!list && e->points == 0) continue;
            printf("%s\t%s\t%d\t%s\t%s\n", e->name, e->id[0] ? e->id : "-", e->points, e->title,
                   e->hidden ? "hidden" : "public");
            total += e->points;
            graded += e->points > 0;
        }
        if (!list) fprintf(stderr, "%s: %d graded tests, %d points\n", suite_name, graded, total);
        srunner_free(srunner_create(s)); /* frees the suite */
        return 0;
    }

    cf_set_todo_hook(todo_fails_test);
    runner_pid = getpid();
    atexit(exit_guard);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    int run = srunner_ntests_run(sr);
    srunner_free(sr);
    if (run == 0 && case_filter()) {
        fprintf(stderr, "%s: no test matches CFT_CASE=%s\n", suite_name, case_filter());
        return 2;
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* ---- tolerance asserts ---- */

const char *cft_where_(const char *fmt, ...)
{
    static char buf[256];
    int n = snprintf(buf, sizeof buf, " (at ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    strcat(buf, ")");
    return buf;
}

void cft_near_(double got, double want, double abs_tol, double rel_tol, const char *expr,
               const char *file, int line, const char *where)
{
    double tol = abs_tol + rel_tol * fabs(want);
    double diff = fabs(got - want);
    if (!(diff <= tol)) /* also catches NaN */
        _ck_assert_failed(file, line, "Failed", "%s = %.17g, expected %.17g (|diff| = %.3g > tol %.3g)%s",
                          expr, got, want, diff, tol, where);
}

void cft_vec3_near_(cfVec3 got, cfVec3 want, double abs_tol, const char *expr, const char *file,
                    int line, const char *where)
{
    cfVec3 d = cfu_sub(got, want);
    double diff = fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z)));
    if (!(diff <= abs_tol))
        _ck_assert_failed(file, line, "Failed",
                          "%s = (%.12g, %.12g, %.12g), expected (%.12g, %.12g, %.12g) "
                          "(max |diff| = %.3g > tol %.3g)%s",
                          expr, got.x, got.y, got.z, want.x, want.y, want.z, diff, abs_tol, where);
}

void cft_int_(long long x, const char *op, long long y, const char *expr, const char *file, int line,
              const char *where)
{
    bool holds = !strcmp(op, "==") ? x == y : !strcmp(op, "!=") ? x != y : !strcmp(op, "<") ? x < y :
                 !strcmp(op, "<=") ? x <= y : !strcmp(op, ">") ? x > y : !strcmp(op, ">=") ? x >= y : false;
    if (!holds) _ck_assert_failed(file, line, "Failed", "%s failed: %lld %s %lld%s", expr, x, op, y, where);
}

void cft_finite_(double x, const char *expr, const char *file, int line)
{
    if (!isfinite(x)) _ck_assert_failed(file, line, "Failed", "%s = %g is not finite", expr, x);
}

void cft_ok_(cfStatus st, const char *expr, const char *file, int line, const char *where)
{
    if (st != CF_OK)
        _ck_assert_failed(file, line, "Failed", "%s returned %s, expected ok%s", expr, cf_status_name(st), where);
}

void cft_status_(cfStatus st, cfStatus want, const char *expr, const char *file, int line, const char *where)
{
    if (st != want)
        _ck_assert_failed(file, line, "Failed", "%s returned %s, expected %s%s", expr, cf_status_name(st),
                          cf_status_name(want), where);
}

/* ---- data locations ---- */

const char *cft_data_dir(void)
{
    const char *d = getenv("CF_DATA_DIR");
    return (d && *d) ? d : "../shared/data";
}

bool cft_data_or_skip(const char *sub, const char *who)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", cft_data_dir(), sub);
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return true;
    printf("%s: %s not found: its data-set checks skipped (set CF_DATA_DIR)\n", who, dir);
    return false;
}

const char *cft_scene_path(const char *name)
{
    static char buf[1024];
    const char *d = getenv("CF_SCENES_DIR");
    snprintf(buf, sizeof buf, "%s/%s", (d && *d) ? d : "scenes", name);
    return buf;
}

cfContact cft_rigid_contact(int a, int b)
{
    cfContact c;
    memset(&c, 0, sizeof c);
    c.body_a = a;
    c.body_b = b;
    c.n = cfu_vec3(0, 0, 1);
    c.mu = 0.5;
    return c;
}

int cft_read_ref(const char *path, int n, double *z)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[4096];
    int got = -1;
    while (fgets(line, sizeof line, f))
        if (line[0] != '#') {
            got = atoi(line);
            break;
        }
    bool ok = got == n;
    for (int i = 0; ok && i < n; ++i) ok = fscanf(f, "%lf", &z[i]) == 1;
    fclose(f);
    return ok ? 1 : 0;
}
