/* SPDX-License-Identifier: MIT */
/**
 * @file cft.h
 * @brief Test support on top of Check: graded registration with points, cost-grouped
 *        timeouts, tolerance asserts that print both values, the "not implemented" hook,
 *        and a main() that prints a rubric.
 *
 * A chapter test file looks like this:
 * @code
 * START_TEST(ch01_1_free_fall_exact) { ... } END_TEST
 *
 * static void build(Suite *s)
 * {
 *     TCase *tc = cft_tcase_unit(s, "ch01.1");
 *     CFT_GRADED(tc, ch01_1_free_fall_exact, "ch01.1", 2, "free fall is exact");
 * }
 * int main(int argc, char **argv) { return cft_main(argc, argv, "ch01", build); }
 * @endcode
 *
 * Environment: CK_FORK, CK_VERBOSITY, CK_TAP_LOG_FILE_NAME, CK_TIMEOUT_MULTIPLIER as in
 * Check; CFT_CASE=prefix runs only the tests whose exercise id, name or group (the test case
 * name printed in failure lines, e.g. `ch01.3-long`) starts with prefix.
 * `prog --rubric` prints one line per graded test: name, exercise id, points, title
 * (tab-separated) and exits. CFT_GRADE_FD=n is set by tools/grade only: the graded tests then
 * run one at a time and the runner reports each result over the socket n (see docs/grading.md).
 * CFT_CONFINE=all (or chapters, "ch06 ch07") runs the exercise functions confined, each call in
 * a child that can only compute and send its results (cft_confine.h); a test that runs out of
 * time inside an exercise function names it in either mode.
 */
#ifndef CFT_H
#define CFT_H

#include <check.h>
#include <math.h>

#include "cf/cf_base.h"
#include "cf/cf_contact.h"
#include "cf/cf_math.h"

/** @name Test cases grouped by cost; each timeout is scaled by CK_TIMEOUT_MULTIPLIER.
 *  @{ */
#define CFT_TIMEOUT_UNIT 5.0   /**< seconds: pure functions, tiny problems */
#define CFT_TIMEOUT_SCENE 20.0 /**< seconds: a few hundred simulation steps */
#define CFT_TIMEOUT_LONG 90.0  /**< seconds: long runs, convergence studies, data sets */
TCase *cft_tcase_unit(Suite *s, const char *name);
TCase *cft_tcase_scene(Suite *s, const char *name);
TCase *cft_tcase_long(Suite *s, const char *name);
/**
 * A long case (timeout as cft_tcase_long()) tagged `heavy`: long simulations of a physical claim
 * (a body at rest after 10 s) whose code paths shorter tests cover. `make check` runs them in
 * the release build and leaves them out of the sanitizer run (CK_EXCLUDE_TAGS=heavy), where they
 * cost minutes and find nothing the short ones do not. Ungraded tests only: a graded test
 * registered here stops the binary (exit 2), since the sanitizer run must still grade.
 */
TCase *cft_tcase_heavy(Suite *s, const char *name);
/** @} */

/**
 * Register @p fn in @p tc as a graded test of exercise @p id worth @p points.
 * Skipped (not added) when CFT_CASE selects other tests.
 */
#define CFT_GRADED(tc, fn, id, points, title) cft_add_((tc), (fn), #fn, (id), (points), (title))
/** Register an ungraded test (library tests, reference-only guards). */
#define CFT_TEST(tc, fn, title) cft_add_((tc), (fn), #fn, "", 0, (title))

void cft_add_(TCase *tc, const TTest *fn, const char *name, const char *id, int points,
              const char *title);

/**
 * Hidden (instructor) tests: a file in HIDDEN=dir/chNN/ defines this function to add its own
 * test cases to the chapter's suite; cft_main() calls it when it is linked in.
 */
void cft_hidden_build(Suite *s) __attribute__((weak));

/** Build the suite with @p build and run it; handles --rubric and --list. Returns exit status. */
int cft_main(int argc, char **argv, const char *suite_name, void (*build)(Suite *s));

/** @name Tolerance asserts: fail with both values, the difference and the tolerance.
 *  Each has an `_at` form for loops whose last arguments say where, printf-style, so that a
 *  failure names the values of the loop's indices, not their names:
 *  `cft_assert_near_at(cf_csr_get(&A, r, c), want, 1e-12, 0, "r = %d, c = %d", r, c)`.
 *  @{ */
/** |got - want| <= abs_tol + rel_tol * |want| */
#define cft_assert_near(got, want, abs_tol, rel_tol) \
    cft_near_((got), (want), (abs_tol), (rel_tol), #got, __FILE__, __LINE__, "")
#define cft_assert_near_at(got, want, abs_tol, rel_tol, ...) \
    cft_near_((got), (want), (abs_tol), (rel_tol), #got, __FILE__, __LINE__, cft_where_(__VA_ARGS__))
/** Component-wise cft_assert_near for cfVec3. */
#define cft_assert_vec3_near(got, want, abs_tol) \
    cft_vec3_near_((got), (want), (abs_tol), #got, __FILE__, __LINE__, "")
#define cft_assert_vec3_near_at(got, want, abs_tol, ...) \
    cft_vec3_near_((got), (want), (abs_tol), #got, __FILE__, __LINE__, cft_where_(__VA_ARGS__))
/** Assert that a double is finite. */
#define cft_assert_finite(x) cft_finite_((x), #x, __FILE__, __LINE__)
/** Assert a function returned CF_OK, printing the status name otherwise. */
#define cft_assert_ok(st) cft_ok_((st), #st, __FILE__, __LINE__, "")
#define cft_assert_ok_at(st, ...) cft_ok_((st), #st, __FILE__, __LINE__, cft_where_(__VA_ARGS__))
/** Assert a status equals an expected one. */
#define cft_assert_status(st, want) cft_status_((st), (want), #st, __FILE__, __LINE__, "")
#define cft_assert_status_at(st, want, ...) \
    cft_status_((st), (want), #st, __FILE__, __LINE__, cft_where_(__VA_ARGS__))
/** Integer comparison in a loop, @p op one of == != < <= > >=: prints both values and where. */
#define cft_assert_int_at(x, op, y, ...) \
    cft_int_((long long)(x), #op, (long long)(y), #x " " #op " " #y, __FILE__, __LINE__, cft_where_(__VA_ARGS__))
/** ck_assert in a loop: the failure names the expression and where (printf-style). */
#define cft_assert_at(expr, ...) ck_assert_msg((expr), "Assertion '%s' failed%s", #expr, cft_where_(__VA_ARGS__))
/** @} */

/** " (at ...)" formatted into a static buffer, for the `_at` asserts. */
const char *cft_where_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cft_near_(double got, double want, double abs_tol, double rel_tol, const char *expr,
               const char *file, int line, const char *where);
void cft_vec3_near_(cfVec3 got, cfVec3 want, double abs_tol, const char *expr, const char *file,
                    int line, const char *where);
void cft_int_(long long x, const char *op, long long y, const char *expr, const char *file, int line,
              const char *where);
void cft_finite_(double x, const char *expr, const char *file, int line);
void cft_ok_(cfStatus st, const char *expr, const char *file, int line, const char *where);
void cft_status_(cfStatus st, cfStatus want, const char *expr, const char *file, int line, const char *where);

/** Directory holding the Siconos/FCLIB data (`../shared/data` by default, $CF_DATA_DIR wins). */
const char *cft_data_dir(void);
/** True when `cft_data_dir()/sub` is a directory. Otherwise prints one line naming @p who and the
    missing path (a clone without ../shared/data, say) and returns false; the caller then returns
    after the part of its test that needs no file, which comes first, so that a stub still fails
    as "not implemented" and a correct solution passes without the data. */
bool cft_data_or_skip(const char *sub, const char *who);
/** Path of a scene file under scenes/ ($CF_SCENES_DIR wins); returns a static buffer. */
const char *cft_scene_path(const char *name);

/** A contact between rigid bodies @p a and @p b (-1: static geometry): normal +z, mu 0.5, every
 *  other field zero (no extra: two rigid sides, the isotropic law). */
cfContact cft_rigid_contact(int a, int b);
/**
 * The reference solution of a Siconos LCP file, `reference/<stem>.ref` in its folder: '#' lines,
 * then a line with its size, then its values. Reads the @p n values into @p z when the file says
 * n; returns 1 then, 0 when the file holds another size or fewer values, -1 when there is no file
 * at @p path.
 */
int cft_read_ref(const char *path, int n, double *z);

#endif /* CFT_H */
