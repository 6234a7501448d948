/* SPDX-License-Identifier: MIT */
/* The LCP part of cf_problem.h: construction, w = A x + b, residuals, Siconos reader/writer. */
#define _POSIX_C_SOURCE 200809L
#include "cf/cf_problem.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- construction ------------------------------------------------------------------------ */

cfStatus cf_lcp_from_dense(cfLcp *p, const cfDense *A, const double *b)
{
    if (!p) return CF_BAD_INPUT;
    memset(p, 0, sizeof *p);
    if (!A || !b || !A->a || A->rows < 1 || A->rows != A->cols) return CF_BAD_INPUT;
    const int n = A->rows;
    for (long k = 0; k < (long)n * n; ++k)
        if (!isfinite(A->a[k])) return CF_BAD_INPUT;
    if (!cf_vec_finite(n, b)) return CF_BAD_INPUT;

    cfTriplets t;
    cfStatus st = cf_triplets_init(&t, n, n);
    for (int i = 0; st == CF_OK && i < n; ++i)
        for (int j = 0; st == CF_OK && j < n; ++j) {
            double v = A->a[(long)i * n + j];
            if (v != 0.0) st = cf_triplets_add(&t, i, j, v);
        }
    if (st == CF_OK) st = cf_csr_from_triplets(&t, &p->A);
    cf_triplets_free(&t);
    if (st == CF_OK) {
        p->b = malloc((size_t)n * sizeof *p->b);
        if (!p->b) st = CF_NO_MEMORY;
    }
    if (st != CF_OK) {
        cf_lcp_free(p);
        return st;
    }
    memcpy(p->b, b, (size_t)n * sizeof *p->b);
    p->n = n;
    return CF_OK;
}

void cf_lcp_free(cfLcp *p)
{
    if (!p) return;
    cf_csr_free(&p->A);
    free(p->b);
    memset(p, 0, sizeof *p);
}

/* ---- w and residuals: row by row, no scratch memory ---------------------------------------- */

static double row_w(const cfLcp *p, const double *x, int i)
{
    double s = p->b[i];
    for (int k = p->A.rowptr[i]; k < p->A.rowptr[i + 1]; ++k) s += p->A.val[k] * x[p->A.colidx[k]];
    return s;
}

void cf_lcp_w(const cfLcp *p, const double *x, double *w)
{
    for (int i = 0; i < p->n; ++i) w[i] = row_w(p, x, i);
}

/* sqrt of a sum of squares of n terms term(p, x, i): plain where nothing overflowed or underflowed
   (bit for bit the sum it always was), otherwise the terms again into a scaled norm */
typedef double (*Term)(const cfLcp *p, const double *x, int i);
static double norm_of_terms(const cfLcp *p, const double *x, Term term)
{
    double s = 0.0, big = 0.0;
    for (int i = 0; i < p->n; ++i) {
        double t = term(p, x, i);
        s += t * t;
        big = fmax(big, fabs(t));
    }
    if (isnan(s) || big == 0.0 || (s >= CF_NORM2_SAFE_MIN && s <= CF_NORM2_SAFE_MAX)) return sqrt(s);
    double *t = malloc((size_t)p->n * sizeof *t);
    if (!t) return INFINITY;
    for (int i = 0; i < p->n; ++i) t[i] = term(p, x, i);
    double r = cf_vec_norm(p->n, t);
    free(t);
    return r;
}

static double natural_term(const cfLcp *p, const double *x, int i)
{
    double m = fmin(x[i], row_w(p, x, i));
    return isnan(x[i]) ? NAN : m; /* fmin would hide a NaN iterate */
}

double cf_lcp_residual(const cfLcp *p, const double *x) { return norm_of_terms(p, x, natural_term); }

static double siconos_term(const cfLcp *p, const double *x, int i)
{
    double w = row_w(p, x, i);
    double d = x[i] - (x[i] - w > 0.0 ? x[i] - w : 0.0);
    return isnan(x[i]) || isnan(w) ? NAN : d;
}

double cf_lcp_residual_siconos(const cfLcp *p, const double *x)
{
    double nb = cf_vec_norm(p->n, p->b), s = norm_of_terms(p, x, siconos_term);
    return nb > DBL_EPSILON ? s / nb : s;
}

static double fb_term(const cfLcp *p, const double *x, int i)
{
    double w = row_w(p, x, i);
    return hypot(x[i], w) - x[i] - w;
}

double cf_lcp_residual_fb(const cfLcp *p, const double *x) { return norm_of_terms(p, x, fb_term); }

/* ---- Siconos reader ---------------------------------------------------------------------- */

/* Whitespace-separated tokens of a whole file; `count` numbers them from 1 in messages, `line`
   is the line of the current one. */
typedef struct Tokens {
    const char *path;
    char *text;
    char *cur;
    long count;
    int line;
    char tok[128];
    cfError *err;
} Tokens;

/* Next token into t->tok; false at the end of the file. */
static bool next_token(Tokens *t)
{
    char *s = t->cur;
    int line = t->line;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\v' || *s == '\f') line += *s++ == '\n';
    if (!*s) { /* the end of the file: messages name the line of its last token */
        t->cur = s;
        return false;
    }
    t->line = line;
    size_t len = 0;
    while (s[len] && !strchr(" \t\n\r\v\f", s[len])) ++len;
    size_t keep = len < sizeof t->tok - 1 ? len : sizeof t->tok - 1;
    memcpy(t->tok, s, keep);
    t->tok[keep] = '\0';
    t->cur = s + len;
    ++t->count;
    return true;
}

static cfStatus bad(Tokens *t, const char *what, const char *why)
{
    if (t->tok[0])
        return cf_error_set(t->err, CF_BAD_INPUT, "%s:%d: token %ld: %s: %s (read '%s')", t->path, t->line, t->count,
                            what, why, t->tok);
    return cf_error_set(t->err, CF_BAD_INPUT, "%s:%d: token %ld: %s: %s", t->path, t->line, t->count, what, why);
}

/* The next token for the value named `what`, or the error of a file that ends before it. */
static cfStatus need_token(Tokens *t, const char *what)
{
    if (next_token(t)) return CF_OK;
    t->tok[0] = '\0';
    ++t->count;
    return bad(t, what, "unexpected end of file");
}

/* An integer in [lo, hi] named `what` (hi is cut to INT_MAX: a count that does not fit an int is
   refused, never wrapped). */
static cfStatus read_int(Tokens *t, const char *what, long lo, long hi, int *out)
{
    if (hi > INT_MAX) hi = INT_MAX;
    cfStatus st = need_token(t, what);
    if (st != CF_OK) return st;
    char *end = NULL;
    errno = 0;
    long v = strtol(t->tok, &end, 10);
    if (errno || end == t->tok || *end) return bad(t, what, "expected an integer");
    if (v < lo || v > hi) {
        char why[96];
        snprintf(why, sizeof why, "must be in [%ld, %ld]", lo, hi);
        return bad(t, what, why);
    }
    *out = (int)v;
    return CF_OK;
}

/* A finite double named `what`. */
static cfStatus read_double(Tokens *t, const char *what, double *out)
{
    cfStatus st = need_token(t, what);
    if (st != CF_OK) return st;
    char *end = NULL;
    errno = 0;
    double v = cf_strtod(t->tok, &end);
    if (end == t->tok || *end) return bad(t, what, "expected a number");
    if (!isfinite(v)) return bad(t, what, "not a finite number");
    *out = v;
    return CF_OK;
}

/* Dense storage: "size0 size1" again, then the entries column by column. */
static cfStatus read_dense_matrix(Tokens *t, int n, cfTriplets *trip)
{
    int r, c;
    cfStatus st = read_int(t, "dense matrix rows (repeated)", n, n, &r);
    if (st == CF_OK) st = read_int(t, "dense matrix columns (repeated)", n, n, &c);
    for (int j = 0; st == CF_OK && j < n; ++j)
        for (int i = 0; st == CF_OK && i < n; ++i) {
            double v;
            st = read_double(t, "matrix entry (column-major)", &v);
            if (st == CF_OK && v != 0.0) st = cf_triplets_add(trip, i, j, v);
        }
    return st;
}

/* Sparse block storage (Siconos SBM): block layout, CSR over blocks, then each block. */
static cfStatus read_sbm_matrix(Tokens *t, int n, cfTriplets *trip)
{
    int nbblocks, bn0, bn1;
    cfStatus st = read_int(t, "number of blocks", 0, (long)n * n, &nbblocks);
    if (st == CF_OK) st = read_int(t, "number of block rows", 1, n, &bn0);
    if (st == CF_OK) st = read_int(t, "number of block columns", 1, n, &bn1);
    if (st != CF_OK) return st;

    int *rowend = calloc((size_t)bn0, sizeof *rowend), *colend = calloc((size_t)bn1, sizeof *colend);
    int *index1 = calloc((size_t)bn0 + 1, sizeof *index1), *index2 = calloc((size_t)nbblocks + 1, sizeof *index2);
    if (!rowend || !colend || !index1 || !index2) st = CF_NO_MEMORY;

    /* cumulative block sizes: strictly increasing, ending at n */
    for (int k = 0; st == CF_OK && k < bn0; ++k) {
        int lo = k ? rowend[k - 1] + 1 : 1, hi = k == bn0 - 1 ? n : n - (bn0 - 1 - k);
        if (k == bn0 - 1) lo = n;
        st = read_int(t, "cumulative block row size", lo, hi, &rowend[k]);
    }
    for (int k = 0; st == CF_OK && k < bn1; ++k) {
        int lo = k ? colend[k - 1] + 1 : 1, hi = k == bn1 - 1 ? n : n - (bn1 - 1 - k);
        if (k == bn1 - 1) lo = n;
        st = read_int(t, "cumulative block column size", lo, hi, &colend[k]);
    }
    int filled1, filled2;
    if (st == CF_OK) st = read_int(t, "filled1 (block rows + 1)", bn0 + 1, bn0 + 1, &filled1);
    if (st == CF_OK) st = read_int(t, "filled2 (number of blocks)", nbblocks, nbblocks, &filled2);
    /* block-row pointer: 0, non-decreasing, ends at nbblocks */
    for (int k = 0; st == CF_OK && k <= bn0; ++k) {
        int lo = k ? index1[k - 1] : 0, hi = k == 0 ? 0 : nbblocks;
        if (k == bn0) lo = nbblocks;
        st = read_int(t, "block row pointer", lo, hi, &index1[k]);
    }
    /* block column of each block: strictly increasing within a block row */
    for (int r = 0; st == CF_OK && r < bn0; ++r)
        for (int b = index1[r]; st == CF_OK && b < index1[r + 1]; ++b) {
            int lo = b > index1[r] ? index2[b - 1] + 1 : 0;
            st = read_int(t, "block column index", lo, bn1 - 1, &index2[b]);
        }
    /* the blocks, each announced by its own number, entries column-major */
    for (int r = 0; st == CF_OK && r < bn0; ++r)
        for (int b = index1[r]; st == CF_OK && b < index1[r + 1]; ++b) {
            int num;
            st = read_int(t, "block number", b, b, &num);
            int c = index2[b];
            int r0 = r ? rowend[r - 1] : 0, c0 = c ? colend[c - 1] : 0;
            int rows = rowend[r] - r0, cols = colend[c] - c0;
            for (int j = 0; st == CF_OK && j < cols; ++j)
                for (int i = 0; st == CF_OK && i < rows; ++i) {
                    double v;
                    st = read_double(t, "block entry (column-major)", &v);
                    if (st == CF_OK && v != 0.0) st = cf_triplets_add(trip, r0 + i, c0 + j, v);
                }
        }
    if (st == CF_NO_MEMORY) cf_error_set(t->err, st, "%s: out of memory", t->path);
    free(rowend);
    free(colend);
    free(index1);
    free(index2);
    return st;
}

cfStatus cf_lcp_read_siconos(const char *path, cfLcp *p, cfError *err)
{
    if (!p) return cf_error_set(err, CF_BAD_INPUT, "cf_lcp_read_siconos: no problem to fill");
    memset(p, 0, sizeof *p);
    if (!path) return cf_error_set(err, CF_BAD_INPUT, "cf_lcp_read_siconos: no path");
    char *text;
    cfStatus st = cf_file_read_text(path, 0, &text, NULL, err);
    if (st != CF_OK) return st;

    Tokens t = {.path = path, .text = text, .cur = text, .count = 0, .line = 1, .err = err};
    int n, storage, s0, s1;
    st = read_int(&t, "problem size n", 1, 1 << 20, &n);
    if (st == CF_OK) st = read_int(&t, "matrix storage type", 0, 2, &storage);
    if (st == CF_OK && storage == 2)
        st = bad(&t, "matrix storage type", "CSparse storage (2) is not supported; use 0 (dense) or 1 (sparse block)");
    if (st == CF_OK) st = read_int(&t, "matrix rows", n, n, &s0);
    if (st == CF_OK) st = read_int(&t, "matrix columns", n, n, &s1);

    cfTriplets trip;
    memset(&trip, 0, sizeof trip);
    if (st == CF_OK) st = cf_triplets_init(&trip, n, n);
    if (st == CF_OK) st = storage == 0 ? read_dense_matrix(&t, n, &trip) : read_sbm_matrix(&t, n, &trip);
    double *b = NULL;
    if (st == CF_OK) {
        b = malloc((size_t)n * sizeof *b);
        if (!b) st = cf_error_set(err, CF_NO_MEMORY, "%s: out of memory", path);
    }
    for (int i = 0; st == CF_OK && i < n; ++i) st = read_double(&t, "vector q", &b[i]);
    if (st == CF_OK) {
        st = cf_csr_from_triplets(&trip, &p->A);
        if (st != CF_OK) cf_error_set(err, st, "%s: cannot build the matrix", path);
    }
    cf_triplets_free(&trip);
    free(text);
    if (st != CF_OK) {
        free(b);
        cf_lcp_free(p);
        return st;
    }
    p->n = n;
    p->b = b;
    return CF_OK;
}

/* ---- Siconos writer: dense, one text line per column ------------------------------------- */

cfStatus cf_lcp_write_siconos(const char *path, const cfLcp *p, cfError *err)
{
    if (!path || !p || p->n < 1 || !p->b || p->A.rows != p->n || p->A.cols != p->n)
        return cf_error_set(err, CF_BAD_INPUT, "%s: not a valid LCP to write", path ? path : "(null)");
    FILE *f = fopen(path, "w");
    if (!f) return cf_error_set(err, CF_IO_ERROR, "%s: cannot open for writing: %s", path, strerror(errno));
    const int n = p->n;
    double *col = malloc((size_t)n * sizeof *col);
    if (!col) {
        fclose(f);
        return cf_error_set(err, CF_NO_MEMORY, "%s: out of memory", path);
    }
    fprintf(f, "%d\n0\n%d\n%d\n%d\t%d\n", n, n, n, n, n);
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) col[i] = cf_csr_get(&p->A, i, j);
        for (int i = 0; i < n; ++i) fprintf(f, i ? " %.17g" : "%.17g", col[i]);
        fputc('\n', f);
    }
    for (int i = 0; i < n; ++i) fprintf(f, i ? " %.17g" : "%.17g", p->b[i]);
    fputc('\n', f);
    free(col);
    bool failed = ferror(f) != 0;
    if (fclose(f) != 0) failed = true;
    if (failed) return cf_error_set(err, CF_IO_ERROR, "%s: write error", path);
    return CF_OK;
}

/* ---- the files of a data set ---------------------------------------------------------- */

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int cf_data_files(const char *dir, const char *ending, bool with_dir, char **names, int cap)
{
    DIR *d = dir && ending ? opendir(dir) : NULL;
    if (!d) return 0;
    size_t tail = strlen(ending);
    int n = 0;
    bool ok = true;
    struct dirent *e;
    while (ok && n < cap && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= tail || strcmp(e->d_name + len - tail, ending) != 0) continue;
        size_t size = (with_dir ? strlen(dir) + 1 : 0) + len + 1;
        if (!(names[n] = malloc(size))) ok = false;
        else snprintf(names[n++], size, "%s%s%s", with_dir ? dir : "", with_dir ? "/" : "", e->d_name);
    }
    closedir(d);
    if (!ok) {
        while (n > 0) free(names[--n]);
        return -1;
    }
    qsort(names, (size_t)n, sizeof *names, by_name);
    return n;
}
