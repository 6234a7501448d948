/* SPDX-License-Identifier: MIT */
/* Test support: graded registration, rubric, cost-grouped timeouts, tolerance asserts. */
#define _POSIX_C_SOURCE 200809L
#include "cft.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the rubric: every registration is remembered so that --rubric can print it ---- */

typedef struct Entry {
    const char *name, *id, *title;
    int points;
} Entry;

#define MAX_ENTRIES 1024
static Entry entries[MAX_ENTRIES];
static int n_entries;
static bool rubric_only;

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
} groups[MAX_GROUPS];
static int n_groups;

static const char *tcase_group(const TCase *tc)
{
    for (int i = 0; i < n_groups; ++i)
        if (groups[i].tc == tc) return groups[i].name;
    return NULL;
}

void cft_add_(TCase *tc, const TTest *fn, const char *name, const char *id, int points,
              const char *title)
{
    if (n_entries >= MAX_ENTRIES) {
        fprintf(stderr, "cft: more than %d tests registered\n", MAX_ENTRIES);
        exit(2);
    }
    const char *f = case_filter();
    const char *group = tcase_group(tc);
    if (f && !starts_with(id, f) && !starts_with(name, f) && !(group && starts_with(group, f))) return;
    entries[n_entries++] = (Entry){name, id, title, points};
    if (!rubric_only) tcase_add_test(tc, fn);
}

/* ---- exit() inside a test is not a pass ----
   Check's fork mode counts a child that exits with status 0 as passed, so code under test that
   calls exit(0) would earn the points. A checked fixture marks the test as running and an atexit
   handler turns any exit during the test into "Early exit with return value 86". */

#define CFT_EXIT_IN_TEST 86
static volatile int in_test;
static void enter_test(void) { in_test = 1; }
static void leave_test(void) { in_test = 0; }
static void exit_guard(void)
{
    if (in_test) {
        fputs("cft: the code under test called exit() before the test finished\n", stderr);
        _exit(CFT_EXIT_IN_TEST);
    }
}

/* ---- test cases by cost ---- */

static TCase *make_tcase(Suite *s, const char *name, double timeout)
{
    TCase *tc = tcase_create(name);
    if (n_groups >= MAX_GROUPS) {
        fprintf(stderr, "cft: more than %d test cases created\n", MAX_GROUPS);
        exit(2);
    }
    groups[n_groups].tc = tc;
    groups[n_groups++].name = name;
    tcase_add_checked_fixture(tc, enter_test, leave_test);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    return tc;
}

TCase *cft_tcase_unit(Suite *s, const char *name) { return make_tcase(s, name, CFT_TIMEOUT_UNIT); }
TCase *cft_tcase_scene(Suite *s, const char *name) { return make_tcase(s, name, CFT_TIMEOUT_SCENE); }
TCase *cft_tcase_long(Suite *s, const char *name) { return make_tcase(s, name, CFT_TIMEOUT_LONG); }

/* ---- the stub hook: a reached stub fails the running test with a distinct message ---- */

static void todo_fails_test(const char *id, const char *file, int line)
{
    _ck_assert_failed(file, line, "Failed", "not implemented: %s", id);
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
                    "  --rubric  print graded tests: name, exercise, points, title\n"
                    "  --list    print every test: name, exercise, points, title\n"
                    "environment: CFT_CASE=prefix selects tests by exercise id, name or group;\n"
                    "  CK_FORK, CK_VERBOSITY, CK_TAP_LOG_FILE_NAME, CK_TIMEOUT_MULTIPLIER as in Check\n",
                    argv[0]);
            return 2;
        }
    }

    Suite *s = suite_create(suite_name);
    build(s);
    if (cft_hidden_build) cft_hidden_build(s); /* instructor tests compiled in with HIDDEN=dir */

    if (rubric_only) {
        int total = 0, graded = 0;
        for (int i = 0; i < n_entries; ++i) {
            const Entry *e = &entries[i];
            if (!list && e->points == 0) continue;
            printf("%s\t%s\t%d\t%s\n", e->name, e->id[0] ? e->id : "-", e->points, e->title);
            total += e->points;
            graded += e->points > 0;
        }
        if (!list) fprintf(stderr, "%s: %d graded tests, %d points\n", suite_name, graded, total);
        srunner_free(srunner_create(s)); /* frees the suite */
        return 0;
    }

    cf_set_todo_hook(todo_fails_test);
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

const char *cft_scene_path(const char *name)
{
    static char buf[1024];
    const char *d = getenv("CF_SCENES_DIR");
    snprintf(buf, sizeof buf, "%s/%s", (d && *d) ? d : "scenes", name);
    return buf;
}
