/* SPDX-License-Identifier: MIT */
/* Library tests: the LCP part of cf_problem.h (reader, writer, residuals) and the generators of
   cf_lcpgen.h. The Siconos files are read from ../shared/data/siconos-lcp when present. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cft.h"
#include "cf/cf_lcpgen.h"
#include "cf/cf_problem.h"
#include "cf/cf_soft.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static char tmp_dir[256];

/* remove the scratch folder when the (forked) test process ends */
static void remove_tmp_dir(void)
{
    DIR *d = opendir(tmp_dir);
    if (!d) return;
    struct dirent *e;
    char path[600];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
        remove(path);
    }
    closedir(d);
    rmdir(tmp_dir);
}

static void make_tmp_dir(void)
{
    if (tmp_dir[0]) return;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/cf_test_lcp_XXXXXX");
    ck_assert(mkdtemp(tmp_dir) != NULL);
    atexit(remove_tmp_dir);
}

/* Write @p text to a scratch file and return its path (static buffer). */
static const char *scratch(const char *name, const char *text)
{
    static char path[512];
    make_tmp_dir();
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fputs(text, f);
    fclose(f);
    return path;
}

static double dense_get(const cfLcp *p, int i, int j) { return cf_csr_get(&p->A, i, j); }

static const char *siconos_dir(void)
{
    static char dir[1024];
    snprintf(dir, sizeof dir, "%s/siconos-lcp", cft_data_dir());
    return dir;
}

/* Reference z from reference/<stem>.ref; false when there is none. */
static bool read_ref(const char *file, int n, double *z)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/reference/%.*s.ref", siconos_dir(), (int)(strlen(file) - 4), file);
    int r = cft_read_ref(path, n, z);
    if (r < 0) return false;
    ck_assert_msg(r == 1, "%s: not the problem's %d values", path, n);
    return true;
}

/* ---- reader on the real files ------------------------------------------------------------- */

START_TEST(lcp_read_every_siconos_file)
{
    DIR *d = opendir(siconos_dir());
    if (!d) {
        printf("test_problem_lcp: %s not found: Siconos reader test skipped\n", siconos_dir());
        return;
    }
    int files = 0, refs = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".dat") != 0) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", siconos_dir(), e->d_name);
        cfLcp p;
        cfError err;
        ck_assert_msg(cf_lcp_read_siconos(path, &p, &err) == CF_OK, "%s", err.msg);
        ck_assert(p.n >= 1 && p.A.rows == p.n && p.A.cols == p.n);
        double *z = calloc((size_t)p.n, sizeof *z);
        if (read_ref(e->d_name, p.n, z)) {
            /* the reference solves the problem as we read it: the column-major reading is right */
            double r = cf_lcp_residual_siconos(&p, z);
            ck_assert_msg(r <= 1e-10, "%s: reference residual %.3g under our reading", e->d_name, r);
            ++refs;
        }
        free(z);
        cf_lcp_free(&p);
        ++files;
    }
    closedir(d);
    ck_assert_int_ge(files, 20);
    ck_assert_int_ge(refs, 17);
}
END_TEST

START_TEST(lcp_read_known_matrix_and_block_twins)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/lcp_ortiz.dat", siconos_dir());
    cfLcp p, q;
    cfError err;
    if (cf_lcp_read_siconos(path, &p, &err) != CF_OK) {
        printf("test_problem_lcp: %s: Siconos twin test skipped\n", err.msg);
        return;
    }
    /* README: Siconos itself reads M = [[3,1,0,-1],[-1,2,1,1],[0,1,3,-1],[0,0,1,2]] */
    const double M[16] = {3, 1, 0, -1, -1, 2, 1, 1, 0, 1, 3, -1, 0, 0, 1, 2};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) cft_assert_near_at(dense_get(&p, i, j), M[i * 4 + j], 0.0, 0,
                                                       "i = %d, j = %d", i, j);
    cf_lcp_free(&p);
    /* every sparse-block file decodes to its dense twin */
    const char *twins[3] = {"lcp_deudeu", "lcp_ortiz", "lcp_trivial"};
    for (int k = 0; k < 3; ++k) {
        snprintf(path, sizeof path, "%s/%s.dat", siconos_dir(), twins[k]);
        ck_assert_msg(cf_lcp_read_siconos(path, &p, &err) == CF_OK, "%s", err.msg);
        snprintf(path, sizeof path, "%s/%s_block.dat", siconos_dir(), twins[k]);
        ck_assert_msg(cf_lcp_read_siconos(path, &q, &err) == CF_OK, "%s", err.msg);
        ck_assert_int_eq(p.n, q.n);
        for (int i = 0; i < p.n; ++i) {
            cft_assert_near_at(q.b[i], p.b[i], 0.0, 0, "i = %d", i);
            for (int j = 0; j < p.n; ++j) cft_assert_near_at(dense_get(&q, i, j), dense_get(&p, i, j), 0.0, 0,
                                                             "i = %d, j = %d", i, j);
        }
        cf_lcp_free(&p);
        cf_lcp_free(&q);
    }
}
END_TEST

/* ---- reader on synthetic files ------------------------------------------------------------ */

START_TEST(lcp_read_layouts)
{
    /* dense: each text line is a column; tabs, blank lines and a trailing comment are fine */
    const char *dense = "2\n0\n2\n2\n2\t2\n1 3\n\n2 4\n-1 -2\ntrailing comment 1 2 3\n";
    cfLcp p;
    cfError err;
    ck_assert_msg(cf_lcp_read_siconos(scratch("dense.dat", dense), &p, &err) == CF_OK, "%s", err.msg);
    cft_assert_near(dense_get(&p, 0, 0), 1.0, 0, 0);
    cft_assert_near(dense_get(&p, 1, 0), 3.0, 0, 0);
    cft_assert_near(dense_get(&p, 0, 1), 2.0, 0, 0);
    cft_assert_near(dense_get(&p, 1, 1), 4.0, 0, 0);
    cft_assert_near(p.b[1], -2.0, 0, 0);
    cf_lcp_free(&p);
    /* sparse block: a 3x3 with blocks of sizes 2 and 1, the (0,0) 2x2 block and the (1,1) 1x1
       block, plus an off-diagonal (0,1) 2x1 block */
    const char *sbm = "3\n1\n3\n3\n"
                      "3\n2\n2\n2 3\n2 3\n3\n3\n0 2 3\n0 1 1\n"
                      "0\n1 2 3 4\n"   /* [[1,3],[2,4]] column-major */
                      "1\n5 6\n"       /* column (5,6) at rows 0-1, column 2 */
                      "2\n7\n"         /* (2,2) */
                      "-1 -1 -1\n";
    ck_assert_msg(cf_lcp_read_siconos(scratch("sbm.dat", sbm), &p, &err) == CF_OK, "%s", err.msg);
    const double want[9] = {1, 3, 5, 2, 4, 6, 0, 0, 7};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) cft_assert_near_at(dense_get(&p, i, j), want[i * 3 + j], 0, 0,
                                                       "i = %d, j = %d", i, j);
    cf_lcp_free(&p);
}
END_TEST

/* one malformed input: the status, and the line and the token number named in the message */
typedef struct Bad {
    const char *text;
    int line;   /* expected "path:LINE: " */
    long token; /* expected "token N" */
    const char *phrase;
} Bad;

START_TEST(lcp_read_errors_name_the_token)
{
    const Bad cases[] = {
        {"", 1, 1, "unexpected end of file"},
        {"two\n", 1, 1, "expected an integer"},
        {"0\n", 1, 1, "must be in"},
        {"2\n5\n", 2, 2, "must be in"},
        {"2\n2\n2\n2\n", 2, 2, "CSparse"},
        {"2\n0\n3\n", 3, 3, "must be in"},
        {"2\n0\n2\n2\n2 3\n", 5, 6, "must be in"},
        {"2\n0\n2\n2\n2 2\n1 0 0\n", 6, 10, "unexpected end of file"}, /* the end: the line of the last token */
        {"2\n0\n2\n2\n2 2\n1 0 nan 1\n-1 -1\n", 6, 9, "not a finite number"},
        {"2\n0\n2\n2\n2 2\n1 0 0 1e999\n-1 -1\n", 6, 10, "not a finite number"},
        {"2\n0\n2\n2\n2 2\n1 0 0 1\n-1 x\n", 7, 12, "expected a number"},
        {"2\n0\n2\n2\n2 2\n1 0 0x10 1\n-1 -1\n", 6, 9, "expected a number"}, /* decimal only, not hex */
        {"2\n0\n2\n2\n2 2\n1 0 0 1\n-1\n\n\n", 7, 12, "unexpected end of file"},
        /* SBM: filled1 must be block rows + 1, the block number must repeat, indices in range */
        {"2\n1\n2\n2\n1\n1\n1\n2\n2\n3\n", 10, 10, "filled1"},
        {"2\n1\n2\n2\n1\n1\n1\n2\n2\n2\n1\n0 1\n0\n7\n", 14, 15, "block number"},
        {"2\n1\n2\n2\n1\n1\n1\n2\n2\n2\n1\n0 1\n4\n", 13, 14, "block column index"},
        {"2\n1\n2\n2\n1\n1\n1\n3\n", 8, 8, "cumulative block row size"},
        /* a count beyond an int is refused, never wrapped (2^32 + 1 was read as 1) */
        {"65537\n1\n65537\n65537\n4294967297\n", 5, 5, "must be in [0, 2147483647]"},
        /* a control character of the file is escaped in the message: \x1b, not an escape sequence */
        {"2\n\x1b[31m\n", 2, 2, "\\x1b[31m"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu.dat", k);
        const char *path = scratch(name, cases[k].text);
        cfLcp p;
        cfError err;
        err.msg[0] = '\0';
        cft_assert_status(cf_lcp_read_siconos(path, &p, &err), CF_BAD_INPUT);
        char want[600];
        snprintf(want, sizeof want, "%s:%d: token %ld: ", path, cases[k].line, cases[k].token);
        ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "case %zu: '%s' does not start with '%s'", k,
                      err.msg, want);
        ck_assert_msg(strstr(err.msg, cases[k].phrase) != NULL, "case %zu: '%s' lacks '%s'", k, err.msg,
                      cases[k].phrase);
        ck_assert(p.n == 0 && p.b == NULL); /* nothing half-built is left */
    }
    cfLcp p;
    cfError err;
    cft_assert_status(cf_lcp_read_siconos("/nonexistent/dir/x.dat", &p, &err), CF_IO_ERROR);
    ck_assert(strstr(err.msg, "/nonexistent/dir/x.dat: cannot open") == err.msg);
    cft_assert_status(cf_lcp_read_siconos(NULL, &p, NULL), CF_BAD_INPUT);
}
END_TEST

/* Inputs that are not regular text files are refused at once, naming the file: a device that
   never ends (/dev/zero was read until 4 GB), a FIFO without a writer (opening it would block), a
   directory, a NUL byte (with its line), a file above the size cap; both Siconos readers and the
   TetGen reader take their files this way (cf_file_open()). */
START_TEST(files_refused_without_blocking)
{
    make_tmp_dir();
    char fifo[600], dir[600], nul[600];
    snprintf(fifo, sizeof fifo, "%s/pipe.dat", tmp_dir);
    snprintf(dir, sizeof dir, "%s/folder.dat", tmp_dir);
    snprintf(nul, sizeof nul, "%s/nul.dat", tmp_dir);
    ck_assert(mkfifo(fifo, 0600) == 0);
    ck_assert(mkdir(dir, 0700) == 0);
    FILE *f = fopen(nul, "wb");
    ck_assert(f);
    fwrite("2\n0\n2 \0 2\n", 1, 11, f);
    fclose(f);
    const struct {
        const char *path, *why;
    } cases[] = {{"/dev/zero", "a device"}, {fifo, "a FIFO"}, {dir, "a directory"}, {nul, ":3: not a text file (NUL byte)"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        cfLcp p;
        cfFrictionProblem fc;
        cfError err;
        cft_assert_status_at(cf_lcp_read_siconos(cases[k].path, &p, &err), CF_BAD_INPUT, "k = %zu", k);
        cft_assert_at(strstr(err.msg, cases[k].path) == err.msg && strstr(err.msg, cases[k].why), "LCP: %s", err.msg);
        cft_assert_status_at(cf_fc_read_siconos(cases[k].path, &fc, &err), CF_BAD_INPUT, "k = %zu", k);
        cft_assert_at(strstr(err.msg, cases[k].path) == err.msg && strstr(err.msg, cases[k].why), "FC3D: %s", err.msg);
        cfSoftBody s;
        cft_assert_status_at(cf_soft_read_tetgen(&s, cases[k].path, cases[k].path, 1.0, cfu_zero3(), 1000, 1e5, 0.3, 0, &err),
                             CF_BAD_INPUT, "k = %zu", k);
        cft_assert_at(strstr(err.msg, cases[k].path) == err.msg, "TetGen: %s", err.msg);
    }
    /* the size cap, on a small file and a small cap */
    cfStatus st;
    cfError err;
    ck_assert(cf_file_open(nul, 10, &st, &err) == NULL);
    ck_assert(st == CF_BAD_INPUT && strstr(err.msg, "11 bytes, more than the 10"));
    f = cf_file_open(nul, 11, &st, &err);
    ck_assert(f && st == CF_OK);
    fclose(f);
    char *text;
    cft_assert_status(cf_file_read_text("/nonexistent/cflab/x", 0, &text, NULL, &err), CF_IO_ERROR);
    ck_assert(text == NULL);
    unlink(fifo);
    rmdir(dir);
    unlink(nul);
}
END_TEST

START_TEST(data_files_sorted_by_ending)
{
    /* b.dat, a.dat, c.ref and a bare ".dat": the two problems by name, with or without the folder */
    make_tmp_dir();
    const char *make[] = {"b.dat", "a.dat", "c.ref", ".dat"};
    for (int i = 0; i < 4; ++i) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", tmp_dir, make[i]);
        FILE *f = fopen(path, "w");
        cft_assert_at(f != NULL, "file %s", make[i]);
        fclose(f);
    }
    char *names[4], want[600];
    ck_assert_int_eq(cf_data_files(tmp_dir, ".dat", false, names, 4), 2);
    ck_assert_str_eq(names[0], "a.dat");
    ck_assert_str_eq(names[1], "b.dat");
    free(names[0]);
    free(names[1]);
    ck_assert_int_eq(cf_data_files(tmp_dir, ".dat", true, names, 1), 1);
    snprintf(want, sizeof want, "%s/", tmp_dir);
    ck_assert(strncmp(names[0], want, strlen(want)) == 0);
    free(names[0]);
    ck_assert_int_eq(cf_data_files(tmp_dir, ".ref", false, names, 4), 1);
    free(names[0]);
    ck_assert_int_eq(cf_data_files("/no/such/folder", ".dat", false, names, 4), 0);
}
END_TEST

START_TEST(lcp_write_read_round_trip)
{
    cfRng rng;
    cf_rng_seed(&rng, 7);
    for (int n = 1; n <= 12; n += 11) {
        cfDense A;
        cft_assert_int_at(cf_dense_init(&A, n, n), ==, CF_OK, "n = %d", n);
        double *b = malloc((size_t)n * sizeof *b);
        for (int i = 0; i < n * n; ++i) A.a[i] = cf_rng_uniform(&rng) < 0.3 ? 0.0 : cf_rng_normal(&rng) * 1e3;
        for (int i = 0; i < n; ++i) b[i] = cf_rng_normal(&rng) / 7.0;
        cfLcp p, q;
        cfError err;
        cft_assert_ok(cf_lcp_from_dense(&p, &A, b));
        const char *path = scratch("round.dat", "");
        ck_assert_msg(cf_lcp_write_siconos(path, &p, &err) == CF_OK, "%s", err.msg);
        ck_assert_msg(cf_lcp_read_siconos(path, &q, &err) == CF_OK, "%s", err.msg);
        cft_assert_int_at(q.n, ==, n, "n = %d", n);
        for (int i = 0; i < n; ++i) {
            cft_assert_at(q.b[i] == b[i], "i = %d", i); /* %.17g: exact */
            for (int j = 0; j < n; ++j) cft_assert_at(dense_get(&q, i, j) == A.a[i * n + j],
                                                      "n = %d, i = %d, j = %d", n, i, j);
        }
        cf_lcp_free(&p);
        cf_lcp_free(&q);
        cf_dense_free(&A);
        free(b);
    }
    cfError err;
    cfLcp empty = {0};
    cft_assert_status(cf_lcp_write_siconos(scratch("x.dat", ""), &empty, &err), CF_BAD_INPUT);
}
END_TEST

/* ---- residuals and construction ----------------------------------------------------------- */

START_TEST(lcp_residuals_known_values)
{
    double Ad[4] = {2, 1, 1, 2}, b[2] = {-3, 4}, x[2] = {1, 0}, w[2];
    cfDense A = {2, 2, Ad};
    cfLcp p;
    cft_assert_ok(cf_lcp_from_dense(&p, &A, b));
    cf_lcp_w(&p, x, w); /* w = (-1, 5) */
    cft_assert_near(w[0], -1.0, 0, 0);
    cft_assert_near(w[1], 5.0, 0, 0);
    cft_assert_near(cf_lcp_residual(&p, x), 1.0, 1e-15, 0); /* min(1,-1) = -1, min(0,5) = 0 */
    /* Siconos: ||x - max(0, x - w)|| / ||b|| = ||(1 - 2, 0 - 0)|| / 5 */
    cft_assert_near(cf_lcp_residual_siconos(&p, x), 1.0 / 5.0, 1e-15, 0);
    /* FB: sqrt(1 + 1) - 1 + 1 and sqrt(0 + 25) - 0 - 5 = 0 */
    cft_assert_near(cf_lcp_residual_fb(&p, x), sqrt(2.0), 1e-15, 0);
    double sol[2] = {1.5, 0};
    cft_assert_near(cf_lcp_residual(&p, sol), 0.0, 0, 0);
    /* no division when ||b|| <= DBL_EPSILON */
    p.b[0] = p.b[1] = 0.0;
    cft_assert_near(cf_lcp_residual_siconos(&p, x), 1.0, 1e-15, 0);
    /* a NaN iterate gives a NaN residual, not a small number */
    double bad[2] = {NAN, 0};
    ck_assert(isnan(cf_lcp_residual(&p, bad)));
    cf_lcp_free(&p);
    /* construction refuses bad matrices */
    double nanA[4] = {1, NAN, 0, 1};
    cfDense N = {2, 2, nanA}, R = {2, 1, Ad};
    cft_assert_status(cf_lcp_from_dense(&p, &N, b), CF_BAD_INPUT);
    cft_assert_status(cf_lcp_from_dense(&p, &R, b), CF_BAD_INPUT);
    cft_assert_status(cf_lcp_from_dense(&p, &A, NULL), CF_BAD_INPUT);
}
END_TEST

/* ---- generators --------------------------------------------------------------------------- */

static double lambda_min(const cfDense *A)
{
    double *ev = malloc((size_t)A->rows * sizeof *ev);
    ck_assert_int_eq(cf_dense_sym_eig(A, ev, NULL), CF_OK);
    double m = ev[0];
    free(ev);
    return m;
}

START_TEST(gen_orthogonal_and_spectra)
{
    cfRng rng;
    cf_rng_seed(&rng, 11);
    const int n = 24;
    cfDense Q, A;
    cft_assert_ok(cf_lcpgen_orthogonal(n, &rng, &Q));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k) s += Q.a[k * n + i] * Q.a[k * n + j];
            cft_assert_near(s, i == j ? 1.0 : 0.0, 1e-13, 0);
        }
    cf_dense_free(&Q);
    double ev[24];
    cft_assert_ok(cf_lcpgen_pd_matrix(n, &rng, &A));
    ck_assert(cf_dense_asymmetry(&A) == 0.0);
    cft_assert_ok(cf_dense_sym_eig(&A, ev, NULL));
    for (int k = 0; k < n; ++k) cft_assert_near_at(ev[k], (k + 1.0) / n, 1e-13, 0, "k = %d", k);
    cf_dense_free(&A);
    cft_assert_ok(cf_lcpgen_psd_matrix(n, 0.5, &rng, &A));
    cft_assert_ok(cf_dense_sym_eig(&A, ev, NULL));
    for (int k = 0; k < n; ++k) cft_assert_near_at(ev[k], k < n / 2 ? 0.0 : (k + 1.0) / n, 1e-13, 0, "k = %d", k);
    cf_dense_free(&A);
}
END_TEST

START_TEST(gen_structures)
{
    cfRng rng;
    cf_rng_seed(&rng, 12);
    cfDense A;
    /* blocked: symmetric, non-negative off-diagonals, lambda_min >= 0.5 after the shift */
    cft_assert_ok(cf_lcpgen_blocked_matrix(3, 10, 0.5, &rng, &A));
    ck_assert(cf_dense_asymmetry(&A) == 0.0);
    for (int i = 0; i < 30; ++i)
        for (int j = 0; j < 30; ++j)
            if (i != j) cft_assert_at(A.a[i * 30 + j] >= 0.0, "i = %d, j = %d", i, j);
    ck_assert(lambda_min(&A) >= 0.5 - 1e-10);
    cf_dense_free(&A);
    /* contact-like: the Stewart-Trinkle pattern in every non-empty block, zero slack diagonal */
    cft_assert_ok(cf_lcpgen_contact_matrix(5, 0.5, &rng, &A));
    ck_assert_int_eq(A.rows, 30);
    for (int I = 0; I < 5; ++I) {
        int r = 6 * I;
        cft_assert_near(A.a[(r + 5) * 30 + r + 5], 0.0, 0, 0);
        cft_assert_near(A.a[(r + 5) * 30 + r], 0.5, 0, 0);
        for (int k = 1; k <= 4; ++k) {
            cft_assert_near_at(A.a[(r + 5) * 30 + r + k], -1.0, 0, 0, "k = %d", k);
            cft_assert_near_at(A.a[(r + k) * 30 + r + 5], 1.0, 0, 0, "k = %d", k);
        }
    }
    ck_assert(cf_dense_asymmetry(&A) > 0.5);
    cf_dense_free(&A);
    /* banded: zero outside the band, constant negative values on each off-diagonal */
    cft_assert_ok(cf_lcpgen_banded_matrix(3, 40, &rng, &A));
    for (int i = 0; i < 40; ++i)
        for (int j = 0; j < 40; ++j) {
            double v = A.a[i * 40 + j];
            if (abs(i - j) > 3) cft_assert_near(v, 0.0, 0, 0);
            else if (i != j) {
                ck_assert(v <= 0.0);
                cft_assert_near(v, A.a[abs(i - j)], 0, 0);
            }
        }
    ck_assert(lambda_min(&A) > 0.0);
    cf_dense_free(&A);
    /* Poisson: 6 on the diagonal, -1 to each of up to six neighbours, SPD, eigenvalues in (0, 12) */
    cft_assert_ok(cf_lcpgen_poisson_matrix(4, &A));
    ck_assert_int_eq(A.rows, 64);
    double ev[64];
    cft_assert_ok(cf_dense_sym_eig(&A, ev, NULL));
    ck_assert(ev[0] > 0.0 && ev[63] < 12.0);
    cft_assert_near(A.a[0], 6.0, 0, 0);
    cft_assert_near(A.a[1], -1.0, 0, 0);  /* x neighbour */
    cft_assert_near(A.a[4], -1.0, 0, 0);  /* y neighbour */
    cft_assert_near(A.a[16], -1.0, 0, 0); /* z neighbour */
    cft_assert_near(A.a[2], 0.0, 0, 0);
    cf_dense_free(&A);
    /* bad arguments */
    cft_assert_status(cf_lcpgen_psd_matrix(5, 1.5, &rng, &A), CF_BAD_INPUT);
    cft_assert_status(cf_lcpgen_pd_matrix(0, &rng, &A), CF_BAD_INPUT);
    cft_assert_status(cf_lcpgen_contact_matrix(2, -1.0, &rng, &A), CF_BAD_INPUT);
}
END_TEST

START_TEST(gen_planted_solution_is_real)
{
    /* the corrected recipe: for every family the planted x solves the LCP it comes with */
    const cfLcpFamily fams[] = {CF_LCPGEN_PD, CF_LCPGEN_PSD, CF_LCPGEN_BLOCKED, CF_LCPGEN_CONTACT,
                                CF_LCPGEN_BANDED, CF_LCPGEN_FLUID, CF_LCPGEN_POISSON};
    for (size_t k = 0; k < sizeof fams / sizeof fams[0]; ++k) {
        int n = cf_lcpgen_family_size(fams[k], 60);
        ck_assert_int_gt(n, 0);
        double *x = malloc((size_t)n * sizeof *x), *w = malloc((size_t)n * sizeof *w);
        cfLcp p;
        cft_assert_ok_at(cf_lcpgen_family(fams[k], 60, 99 + k, &p, x), "k = %zu", k);
        ck_assert_int_eq(p.n, n);
        cf_lcp_w(&p, x, w);
        int zeros = 0;
        for (int i = 0; i < n; ++i) {
            cft_assert_at(x[i] >= 0.0 && x[i] < 1.0, "i = %d", i);
            if (x[i] == 0.0) {
                ++zeros;
                ck_assert_msg(w[i] > 0.0, "%s: w[%d] = %g on the zero set", cf_lcpgen_family_name(fams[k]), i, w[i]);
            } else {
                cft_assert_near_at(w[i], 0.0, 1e-12, 0, "i = %d", i);
            }
        }
        ck_assert_msg(zeros > 0 && zeros < n, "%s: %d zeros of %d", cf_lcpgen_family_name(fams[k]), zeros, n);
        ck_assert(cf_lcp_residual(&p, x) <= 1e-12 * sqrt(n));
        cf_lcp_free(&p);
        free(x);
        free(w);
    }
}
END_TEST

START_TEST(gen_stack_mass_ratio)
{
    /* three particles, the top one 10 kg, h = 0.01: A = [[1, -1, 0], [-1, 2, -1], [0, -1, 1.1]],
       b = (-h g, 0, 0); the contacts carry 12, 11 and 10 kg times h g, and that solves it */
    double x[3];
    cfLcp p;
    cft_assert_ok(cf_lcpgen_stack(3, 10.0, 0.01, &p, x));
    ck_assert_int_eq(p.n, 3);
    cfDense D;
    cft_assert_ok(cf_csr_to_dense(&p.A, &D));
    const double want[9] = {1, -1, 0, -1, 2, -1, 0, -1, 1.1};
    for (int i = 0; i < 9; ++i) cft_assert_near_at(D.a[i], want[i], 1e-15, 0, "entry %d", i);
    cft_assert_near(p.b[0], -0.0981, 1e-15, 0);
    ck_assert(p.b[1] == 0.0 && p.b[2] == 0.0);
    for (int i = 0; i < 3; ++i) cft_assert_near_at(x[i], 0.0981 * (12 - i), 1e-15, 0, "contact %d", i);
    ck_assert(cf_lcp_residual(&p, x) <= 1e-15);
    cf_dense_free(&D);
    cf_lcp_free(&p);
    cft_assert_status(cf_lcpgen_stack(0, 10.0, 0.01, &p, x), CF_BAD_INPUT);
    cft_assert_status(cf_lcpgen_stack(3, 0.0, 0.01, &p, x), CF_BAD_INPUT);
}
END_TEST

START_TEST(gen_num4lcp_bug_and_determinism)
{
    /* num4lcp's make_lcp leaves w_i = (A x)_i < 0 on the zero set of a PD matrix: not a solution */
    cfRng rng;
    cf_rng_seed(&rng, 5);
    cfDense A;
    cft_assert_ok(cf_lcpgen_pd_matrix(50, &rng, &A));
    double x[50], w[50], x2[50];
    cfLcp p, q;
    cf_rng_seed(&rng, 6);
    cft_assert_ok(cf_lcpgen_plant_num4lcp(&A, 0.5, &rng, &p, x));
    cf_lcp_w(&p, x, w);
    int negative = 0;
    for (int i = 0; i < 50; ++i) negative += w[i] < -1e-12;
    ck_assert_msg(negative > 0, "num4lcp's recipe happened to give a solution");
    ck_assert(cf_lcp_residual(&p, x) > 1e-3);
    /* the corrected recipe with the same seed plants the same x, and it is a solution */
    cf_rng_seed(&rng, 6);
    cft_assert_ok(cf_lcpgen_plant(&A, 0.5, &rng, &q, x2));
    for (int i = 0; i < 50; ++i) cft_assert_at(x2[i] == x[i], "i = %d", i);
    ck_assert(cf_lcp_residual(&q, x2) <= 1e-12);
    cf_lcp_free(&p);
    cf_lcp_free(&q);
    cf_dense_free(&A);
    /* same seed, same problem; another seed, another problem */
    cfLcp a, b, c;
    cft_assert_ok(cf_lcpgen_family(CF_LCPGEN_PD, 20, 1, &a, NULL));
    cft_assert_ok(cf_lcpgen_family(CF_LCPGEN_PD, 20, 1, &b, NULL));
    cft_assert_ok(cf_lcpgen_family(CF_LCPGEN_PD, 20, 2, &c, NULL));
    bool same = true, differ = false;
    for (int i = 0; i < 20; ++i) {
        same &= a.b[i] == b.b[i];
        differ |= a.b[i] != c.b[i];
        for (int j = 0; j < 20; ++j) same &= dense_get(&a, i, j) == dense_get(&b, i, j);
    }
    ck_assert(same && differ);
    cf_lcp_free(&a);
    cf_lcp_free(&b);
    cf_lcp_free(&c);
    ck_assert_int_eq(cf_lcpgen_family_size(CF_LCPGEN_FLUID, 1000), 1000);
    ck_assert_int_eq(cf_lcpgen_family_size(CF_LCPGEN_CONTACT, 100), 96);
    ck_assert_str_eq(cf_lcpgen_family_name(CF_LCPGEN_POISSON), "poisson");
}
END_TEST

static void build(Suite *s)
{
    TCase *tr = cft_tcase_unit(s, "lcp-io");
    CFT_TEST(tr, lcp_read_every_siconos_file, "every Siconos LCP file reads; references solve it");
    CFT_TEST(tr, lcp_read_known_matrix_and_block_twins, "column-major reading; block twins equal dense");
    CFT_TEST(tr, lcp_read_layouts, "dense and sparse-block layouts");
    CFT_TEST(tr, lcp_read_errors_name_the_token, "malformed files: path:LINE: token N: reason");
    CFT_TEST(tr, data_files_sorted_by_ending, "the files of a data folder: by ending, sorted, with or without the folder");
    CFT_TEST(tr, files_refused_without_blocking, "devices, FIFOs, directories, NUL bytes, oversized files: refused at once");
    CFT_TEST(tr, lcp_write_read_round_trip, "writer and reader round trip exactly");
    CFT_TEST(tr, lcp_residuals_known_values, "residual measures on known values");
    TCase *tg = cft_tcase_unit(s, "lcp-gen");
    CFT_TEST(tg, gen_orthogonal_and_spectra, "orthogonal basis; PD and PSD spectra");
    CFT_TEST(tg, gen_structures, "blocked, contact, banded and Poisson structure");
    CFT_TEST(tg, gen_planted_solution_is_real, "the planted solution solves every family");
    CFT_TEST(tg, gen_num4lcp_bug_and_determinism, "num4lcp's recipe fails; seeds are reproducible");
    CFT_TEST(tg, gen_stack_mass_ratio, "the 1D mass-ratio stack: its matrix, vector and solution");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "lib-problem-lcp", build); }
