/* SPDX-License-Identifier: MIT */
/* Frictional contact problems (FC3D): velocity, cone projection, natural-map residual, and the
   Siconos text format (reader for dense and sparse-block W, sparse-block writer). */
#include "cf/cf_problem.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cf_fc_free(cfFrictionProblem *p)
{
    if (!p) return;
    cf_bsr_free(&p->W);
    free(p->q);
    free(p->mu);
    free(p->ellipse);
    memset(p, 0, sizeof *p);
}

void cf_fc_velocity(const cfFrictionProblem *p, const double *r, double *u)
{
    cf_bsr_mul_vec(&p->W, r, u);
    cf_vec_axpy(3 * p->nc, 1.0, p->q, u);
}

//> ch02:cone-project
void cf_cone_project(const double x[3], double mu, double out[3])
{
    if (!(mu > 0.0)) mu = 0.0; /* the cone of mu = 0 is the ray x_T = 0, x_N >= 0 */
    double xn = x[0], xt = hypot(x[1], x[2]);
    if (xt <= mu * xn && xn >= 0.0) {
        /* inside K: unchanged (xn >= 0 matters for mu = 0 only: (-1, 0, 0) is not on the ray) */
        out[0] = x[0], out[1] = x[1], out[2] = x[2];
    } else if (mu * xt <= -xn) {
        /* inside the polar cone -K*: the closest point of K is its apex */
        out[0] = out[1] = out[2] = 0.0;
    } else {
        /* onto the boundary ray through x_T: minimize |(a, mu a x_T/|x_T|) - x| over a */
        double a = (mu * xt + xn) / (mu * mu + 1.0);
        out[0] = a;
        out[1] = mu * a * x[1] / xt;
        out[2] = mu * a * x[2] / xt;
        /* |x| near DBL_MAX: the product overflows where the direction x_T / |x_T| does not */
        if (!isfinite(out[1]) || !isfinite(out[2])) out[1] = mu * a * (x[1] / xt), out[2] = mu * a * (x[2] / xt);
    }
}
//< ch02:cone-project

const char *cf_friction_model_name(cfFrictionModel m)
{
    switch (m) {
    case CF_FRICTION_CONE: return "cone";
    case CF_FRICTION_BOX: return "box";
    case CF_FRICTION_MODEL_COUNT: break;
    }
    return "unknown";
}

/* |(a, b)| as sqrt(a^2 + b^2) where the squares neither overflow nor underflow (bit for bit what
   the residuals always used), by hypot() elsewhere */
static double norm2d(double a, double b)
{
    double t = sqrt(a * a + b * b);
    return t >= 0x1p-480 && t <= 0x1p500 ? t : hypot(a, b);
}

/* the error vector e = r - P(r - u_hat) of one contact (see cf_contact_residual2()) */
static void contact_error(const double r[3], const double u[3], double mu, cfFrictionModel model, double e[3])
{
    if (model == CF_FRICTION_BOX) {
        double hi = mu * fmax(r[0], 0.0);
        e[0] = r[0] - fmax(0.0, r[0] - u[0]);
        e[1] = r[1] - fmax(-hi, fmin(r[1] - u[1], hi));
        e[2] = r[2] - fmax(-hi, fmin(r[2] - u[2], hi));
        return;
    }
    /* De Saxce's modified velocity u_hat = u + (mu |u_T|, 0, 0), then e = r - P_K(r - u_hat) */
    double z[3] = {r[0] - (u[0] + mu * norm2d(u[1], u[2])), r[1] - u[1], r[2] - u[2]}, pz[3];
    cf_cone_project(z, mu, pz);
    for (int k = 0; k < 3; ++k) e[k] = r[k] - pz[k];
}

/* the same for the ellipse of (mu_t, mu_b) (see cf_contact_residual2_ellipse()): a pinned axis
   (coefficient 0) contributes its impulse */
static void contact_error_ellipse(const double r[3], const double u[3], double mu_t, double mu_b,
                                  cfFrictionModel model, double e[3])
{
    double m = fmax(mu_t, mu_b), mk[2] = {mu_t, mu_b};
    if (model == CF_FRICTION_BOX) {
        double n = fmax(r[0], 0.0);
        e[0] = r[0] - fmax(0.0, r[0] - u[0]);
        for (int k = 0; k < 2; ++k) e[1 + k] = r[1 + k] - fmax(-mk[k] * n, fmin(r[1 + k] - u[1 + k], mk[k] * n));
        return;
    }
    if (!(m > 0.0)) {
        contact_error(r, u, 0.0, CF_FRICTION_CONE, e);
        return;
    }
    /* the isotropic cone of m in the variables r'_T = S^-1 r_T, u'_T = S u_T, S = diag(mu_t, mu_b) / m */
    double rs[3] = {r[0], 0.0, 0.0}, us[3] = {u[0], 0.0, 0.0};
    for (int k = 0; k < 2; ++k)
        if (mk[k] > 0.0) {
            double s = mk[k] / m;
            rs[1 + k] = r[1 + k] / s;
            us[1 + k] = s * u[1 + k];
        }
    contact_error(rs, us, m, CF_FRICTION_CONE, e);
    for (int k = 0; k < 2; ++k)
        if (!(mk[k] > 0.0)) e[1 + k] = r[1 + k];
}

double cf_contact_residual2(const double r[3], const double u[3], double mu, cfFrictionModel model)
{
    double e[3];
    contact_error(r, u, mu, model, e);
    return e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
}

double cf_contact_residual2_ellipse(const double r[3], const double u[3], double mu_t, double mu_b,
                                    cfFrictionModel model)
{
    double m = fmax(mu_t, mu_b), e[3];
    contact_error_ellipse(r, u, mu_t, mu_b, model, e);
    if (model == CF_FRICTION_BOX || !(m > 0.0)) return e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    /* the mapped cone's term, then the pinned axes' (the order the terms were always summed in) */
    double cone = e[0] * e[0], pinned = 0.0;
    for (int k = 0; k < 2; ++k) {
        double t = e[1 + k] * e[1 + k];
        if (mu_t > 0.0 && k == 0) cone += t;
        else if (mu_b > 0.0 && k == 1) cone += t;
        else pinned += t;
    }
    return cone + pinned;
}

double cf_contacts_residual(int nc, const double *r, const double *u, const double *mu, const double *ellipse,
                            cfFrictionModel model)
{
    double sum = 0.0;
    for (int a = 0; a < nc; ++a)
        sum += ellipse ? cf_contact_residual2_ellipse(&r[3 * a], &u[3 * a], ellipse[2 * a], ellipse[2 * a + 1], model)
                       : cf_contact_residual2(&r[3 * a], &u[3 * a], mu[a], model);
    if (nc == 0 || (sum >= CF_NORM2_SAFE_MIN && sum <= CF_NORM2_SAFE_MAX)) return sqrt(sum);
    if (!cf_vec_finite(3 * nc, r) || !cf_vec_finite(3 * nc, u)) return INFINITY;
    /* a square overflowed or underflowed: the error vectors, then their scaled norm */
    double *e = malloc((size_t)3 * nc * sizeof *e);
    if (!e) return INFINITY;
    for (int a = 0; a < nc; ++a) {
        if (ellipse) contact_error_ellipse(&r[3 * a], &u[3 * a], ellipse[2 * a], ellipse[2 * a + 1], model, &e[3 * a]);
        else contact_error(&r[3 * a], &u[3 * a], mu[a], model, &e[3 * a]);
    }
    double res = cf_vec_norm(3 * nc, e);
    free(e);
    return isfinite(res) ? res : INFINITY;
}

static double fc_model_residual(const cfFrictionProblem *p, const double *r, cfFrictionModel model)
{
    const int n = 3 * p->nc;
    if (n == 0) return 0.0;
    if (!cf_vec_finite(n, r)) return INFINITY;
    double *u = malloc((size_t)n * sizeof *u);
    if (!u) return INFINITY;
    cf_fc_velocity(p, r, u);
    double res = cf_contacts_residual(p->nc, r, u, p->mu, p->ellipse, model);
    free(u);
    return res;
}

double cf_fc_residual(const cfFrictionProblem *p, const double *r) { return fc_model_residual(p, r, CF_FRICTION_CONE); }

double cf_fc_box_residual(const cfFrictionProblem *p, const double *r) { return fc_model_residual(p, r, CF_FRICTION_BOX); }

double cf_fc_norm_q(const cfFrictionProblem *p) { return cf_vec_norm(3 * p->nc, p->q); }

/* ------------------------------------------------------------------------------------------ */
/* Reading: the whole file is split into whitespace-separated tokens, numbered from 1, each with
   its line, so that every message can say where the wrong one is: "path:LINE: token N ('x')". */

typedef struct Tokens {
    const char *path;
    char *buf; /* file contents, each token NUL-terminated in place */
    char **tok; /* token start pointers */
    int *line; /* the line of each token */
    int last_line; /* the line of the last token (for messages at the end of the file) */
    long count; /* tokens in the file */
    long next; /* index of the next token to read */
    cfError *err;
} Tokens;

static void tokens_free(Tokens *t)
{
    free(t->buf);
    free(t->tok);
    free(t->line);
}

static cfStatus tokens_load(Tokens *t, const char *path, cfError *err)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    t->err = err;
    size_t len;
    cfStatus st = cf_file_read_text(path, 0, &t->buf, &len, err);
    if (st != CF_OK) return st;
    char *buf = t->buf;
    /* count, then record and terminate the tokens */
    long count = 0;
    for (size_t i = 0; i < len;) {
        while (i < len && isspace((unsigned char)buf[i])) ++i;
        if (i >= len) break;
        ++count;
        while (i < len && !isspace((unsigned char)buf[i])) ++i;
    }
    t->tok = malloc((size_t)(count > 0 ? count : 1) * sizeof *t->tok);
    t->line = malloc((size_t)(count > 0 ? count : 1) * sizeof *t->line);
    if (!t->tok || !t->line) {
        tokens_free(t);
        return cf_error_set(err, CF_NO_MEMORY, "%s: out of memory", path);
    }
    long k = 0;
    int line = 1;
    for (size_t i = 0; i < len;) {
        while (i < len && isspace((unsigned char)buf[i])) line += buf[i++] == '\n';
        if (i >= len) break;
        t->line[k] = line;
        t->tok[k++] = &buf[i];
        while (i < len && !isspace((unsigned char)buf[i])) ++i;
        if (i < len) {
            line += buf[i] == '\n';
            buf[i++] = '\0';
        }
    }
    t->last_line = count > 0 ? t->line[count - 1] : 1; /* the end of the file: where its last token is */
    t->count = count;
    return CF_OK;
}

/* the line of token number @p k (from 1), or the file's last line past its end */
static int tokens_line(const Tokens *t, long k) { return k >= 1 && k <= t->count ? t->line[k - 1] : t->last_line; }

static long tokens_left(const Tokens *t) { return t->count - t->next; }

/* the next token, or NULL with a message naming what was expected */
static const char *tokens_next(Tokens *t, const char *what)
{
    if (t->next >= t->count) {
        cf_error_set(t->err, CF_BAD_INPUT, "%s:%d: token %ld: unexpected end of file, expected %s", t->path,
                     t->last_line, t->next + 1, what);
        return NULL;
    }
    return t->tok[t->next++];
}

/* an integer in [lo, hi] (hi cut to INT_MAX: every count ends up in an int, and one that does not
   fit is refused, never wrapped) */
static cfStatus read_int(Tokens *t, const char *what, long lo, long hi, long *out)
{
    if (hi > INT_MAX) hi = INT_MAX;
    const char *s = tokens_next(t, what);
    if (!s) return CF_BAD_INPUT;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        return cf_error_set(t->err, CF_BAD_INPUT, "%s:%d: token %ld ('%.40s'): expected an integer (%s)",
                            t->path, tokens_line(t, t->next), t->next, s, what);
    if (v < lo || v > hi)
        return cf_error_set(t->err, CF_BAD_INPUT, "%s:%d: token %ld ('%.40s'): %s must be in [%ld, %ld]",
                            t->path, tokens_line(t, t->next), t->next, s, what, lo, hi);
    *out = v;
    return CF_OK;
}

static cfStatus read_double(Tokens *t, const char *what, long index, double *out)
{
    const char *s = tokens_next(t, what);
    if (!s) return CF_BAD_INPUT;
    char *end;
    double v = cf_strtod(s, &end);
    if (end == s || *end != '\0')
        return cf_error_set(t->err, CF_BAD_INPUT, "%s:%d: token %ld ('%.40s'): expected a number (%s[%ld])",
                            t->path, tokens_line(t, t->next), t->next, s, what, index);
    if (!isfinite(v))
        return cf_error_set(t->err, CF_BAD_INPUT, "%s:%d: token %ld ('%.40s'): %s[%ld] is not finite", t->path,
                            tokens_line(t, t->next), t->next, s, what, index);
    *out = v;
    return CF_OK;
}

/* make sure the file still holds @p need tokens before allocating for them */
static cfStatus require_tokens(Tokens *t, long need, const char *what)
{
    if (tokens_left(t) >= need) return CF_OK;
    return cf_error_set(t->err, CF_BAD_INPUT,
                        "%s:%d: token %ld: file ends early: %s needs %ld more values, %ld left", t->path,
                        tokens_line(t, t->next + 1), t->next + 1, what, need, tokens_left(t));
}

/* dense W, column-major on disk: keep every diagonal block and the non-zero off-diagonal ones */
static cfStatus read_dense_W(Tokens *t, int nc, cfBsr *W)
{
    const long n = 3L * nc;
    long r0, r1;
    cfStatus st = read_int(t, "dense matrix rows (repeated)", n, n, &r0);
    if (st == CF_OK) st = read_int(t, "dense matrix columns (repeated)", n, n, &r1);
    if (st == CF_OK) st = require_tokens(t, n * n, "the dense matrix W");
    if (st != CF_OK) return st;
    double *a = malloc((size_t)(n * n) * sizeof *a);
    if (!a)
        return cf_error_set(t->err, CF_NO_MEMORY, "%s: out of memory for a %ld x %ld matrix", t->path, n, n);
    for (long j = 0; j < n && st == CF_OK; ++j)
        for (long i = 0; i < n && st == CF_OK; ++i) st = read_double(t, "W", i + j * n, &a[i * n + j]);
    if (st == CF_OK) st = cf_bsr_init(W, nc, nc, 3, 3);
    for (int bi = 0; bi < nc && st == CF_OK; ++bi)
        for (int bj = 0; bj < nc && st == CF_OK; ++bj) {
            double blk[9];
            bool keep = bi == bj;
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) {
                    blk[3 * r + c] = a[(3L * bi + r) * n + 3L * bj + c];
                    if (blk[3 * r + c] != 0.0) keep = true;
                }
            if (keep) st = cf_bsr_add_block(W, bi, bj, blk);
        }
    free(a);
    if (st == CF_NO_MEMORY) cf_error_set(t->err, st, "%s: out of memory", t->path);
    if (st == CF_OK) cf_bsr_finalize(W);
    return st;
}

/* sparse-block W (Siconos SBM): block structure, CSR over blocks, then each 3x3 block column-major */
static cfStatus read_sbm_W(Tokens *t, int nc, cfBsr *W)
{
    long nblocks, nb0, nb1, filled1, filled2, v;
    cfStatus st = read_int(t, "number of blocks", 0, (long)nc * nc, &nblocks);
    if (st == CF_OK) st = read_int(t, "number of block rows", nc, nc, &nb0);
    if (st == CF_OK) st = read_int(t, "number of block columns", nc, nc, &nb1);
    /* cumulative block sizes: every block is 3x3 */
    for (long i = 0; i < nb0 && st == CF_OK; ++i)
        st = read_int(t, "cumulative block row size", 3 * (i + 1), 3 * (i + 1), &v);
    for (long i = 0; i < nb1 && st == CF_OK; ++i)
        st = read_int(t, "cumulative block column size", 3 * (i + 1), 3 * (i + 1), &v);
    if (st == CF_OK) st = read_int(t, "filled1 (block rows + 1)", nb0 + 1, nb0 + 1, &filled1);
    if (st == CF_OK) st = read_int(t, "filled2 (number of blocks)", nblocks, nblocks, &filled2);
    if (st == CF_OK) st = require_tokens(t, filled1 + filled2 + 10 * nblocks, "the sparse-block matrix W");
    if (st != CF_OK) return st;
    long *rowptr = malloc((size_t)filled1 * sizeof *rowptr);
    int *colidx = malloc((size_t)(filled2 > 0 ? filled2 : 1) * sizeof *colidx);
    if (!rowptr || !colidx) st = cf_error_set(t->err, CF_NO_MEMORY, "%s: out of memory", t->path);
    for (long i = 0; i < filled1 && st == CF_OK; ++i) {
        if (i == 0)
            st = read_int(t, "first block row offset", 0, 0, &rowptr[i]);
        else if (i == filled1 - 1)
            st = read_int(t, "last block row offset (the number of blocks)", nblocks, nblocks, &rowptr[i]);
        else
            st = read_int(t, "block row offset (non-decreasing)", rowptr[i - 1], nblocks, &rowptr[i]);
    }
    for (long e = 0; e < filled2 && st == CF_OK; ++e) {
        st = read_int(t, "block column index", 0, nb1 - 1, &v);
        colidx[e] = (int)v;
    }
    /* no block twice in a row */
    for (long r = 0; r + 1 < filled1 && st == CF_OK; ++r)
        for (long e = rowptr[r]; e < rowptr[r + 1] && st == CF_OK; ++e)
            for (long f = rowptr[r]; f < e; ++f)
                if (colidx[f] == colidx[e])
                    st = cf_error_set(t->err, CF_BAD_INPUT, "%s: block (%ld, %d) is listed twice", t->path, r,
                                      colidx[e]);
    if (st == CF_OK) st = cf_bsr_init(W, nc, nc, 3, 3);
    for (long r = 0; r + 1 < filled1 && st == CF_OK; ++r)
        for (long e = rowptr[r]; e < rowptr[r + 1] && st == CF_OK; ++e) {
            st = read_int(t, "block number", e, e, &v);
            double cm[9], blk[9];
            for (int k = 0; k < 9 && st == CF_OK; ++k) st = read_double(t, "block value", 9 * e + k, &cm[k]);
            if (st != CF_OK) break;
            for (int rr = 0; rr < 3; ++rr)
                for (int cc = 0; cc < 3; ++cc) blk[3 * rr + cc] = cm[rr + 3 * cc]; /* column-major on disk */
            st = cf_bsr_add_block(W, (int)r, colidx[e], blk);
            if (st == CF_NO_MEMORY) cf_error_set(t->err, st, "%s: out of memory", t->path);
        }
    if (st == CF_OK) cf_bsr_finalize(W);
    free(rowptr);
    free(colidx);
    return st;
}

cfStatus cf_fc_read_siconos(const char *path, cfFrictionProblem *p, cfError *err)
{
    memset(p, 0, sizeof *p);
    Tokens t;
    cfStatus st = tokens_load(&t, path, err);
    if (st != CF_OK) return st;
    long d = 0, nc = 0, storage = 0, s0 = 0, s1 = 0;
    st = read_int(&t, "dimension (3)", 3, 3, &d);
    if (st == CF_OK) st = read_int(&t, "number of contacts", 1, 20000000, &nc);
    if (st == CF_OK) st = read_int(&t, "storage type (0 dense, 1 sparse-block)", 0, 1, &storage);
    if (st == CF_OK) st = read_int(&t, "matrix rows (3 x contacts)", 3 * nc, 3 * nc, &s0);
    if (st == CF_OK) st = read_int(&t, "matrix columns (3 x contacts)", 3 * nc, 3 * nc, &s1);
    if (st == CF_OK) st = storage == 0 ? read_dense_W(&t, (int)nc, &p->W) : read_sbm_W(&t, (int)nc, &p->W);
    if (st == CF_OK) st = require_tokens(&t, 4 * nc, "q and mu");
    if (st == CF_OK) {
        p->q = malloc((size_t)(3 * nc) * sizeof *p->q);
        p->mu = malloc((size_t)nc * sizeof *p->mu);
        if (!p->q || !p->mu) st = cf_error_set(err, CF_NO_MEMORY, "%s: out of memory", path);
    }
    for (long i = 0; i < 3 * nc && st == CF_OK; ++i) st = read_double(&t, "q", i, &p->q[i]);
    for (long a = 0; a < nc && st == CF_OK; ++a) {
        st = read_double(&t, "mu", a, &p->mu[a]);
        if (st == CF_OK && !(p->mu[a] >= 0.0 && p->mu[a] <= CF_FC_MU_MAX))
            st = cf_error_set(err, CF_BAD_INPUT,
                              "%s:%d: token %ld ('%.40s'): mu[%ld] = %g must be in [0, %g] (beyond it no residual in "
                              "doubles certifies a solution: cf_problem.h)",
                              path, tokens_line(&t, t.next), t.next, t.tok[t.next - 1], a, p->mu[a], CF_FC_MU_MAX);
    }
    /* anything after mu (Siconos files sometimes end with a comment) is ignored */
    tokens_free(&t);
    if (st != CF_OK) {
        cf_fc_free(p);
        return st;
    }
    p->nc = (int)nc;
    return CF_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Writing: sparse-block format, every double with 17 significant digits (exact round trip).   */

cfStatus cf_fc_write_siconos(const char *path, const cfFrictionProblem *p, cfError *err)
{
    const int nc = p->nc;
    if (nc < 1 || p->W.br != 3 || p->W.bc != 3 || p->W.brows != nc || p->W.bcols != nc || !p->q || !p->mu ||
        !p->W.rowptr)
        return cf_error_set(err, CF_BAD_INPUT,
                            "%s: not a frictional contact problem with nc >= 1 and 3x3 blocks", path);
    if (p->ellipse)
        return cf_error_set(err, CF_BAD_INPUT, "%s: the Siconos FC3D format has no elliptic friction cones (chapter 10)",
                            path);
    const int nblocks = p->W.rowptr[nc];
    if (!cf_vec_finite(9 * nblocks, p->W.val) || !cf_vec_finite(3 * nc, p->q))
        return cf_error_set(err, CF_BAD_INPUT, "%s: W or q has a non-finite entry", path);
    for (int a = 0; a < nc; ++a)
        if (!(isfinite(p->mu[a]) && p->mu[a] >= 0.0))
            return cf_error_set(err, CF_BAD_INPUT, "%s: mu[%d] = %g must be finite and >= 0", path, a,
                                p->mu[a]);
    FILE *f = fopen(path, "w");
    if (!f) return cf_error_set(err, CF_IO_ERROR, "%s: cannot open for writing: %s", path, strerror(errno));
    fprintf(f, "3\n%d\n1\n%d\n%d\n%d\n%d\n%d\n", nc, 3 * nc, 3 * nc, nblocks, nc, nc);
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < nc; ++i) fprintf(f, "%d%c", 3 * (i + 1), i + 1 < nc ? '\t' : '\n');
    }
    fprintf(f, "%d\n%d\n", nc + 1, nblocks);
    for (int i = 0; i <= nc; ++i) fprintf(f, "%d%c", p->W.rowptr[i], i < nc ? '\t' : '\n');
    for (int e = 0; e < nblocks; ++e) fprintf(f, "%d%c", p->W.colidx[e], e + 1 < nblocks ? '\t' : '\n');
    if (nblocks == 0) fputc('\n', f);
    for (int e = 0; e < nblocks; ++e) {
        const double *blk = &p->W.val[9 * e];
        fprintf(f, "%d\n", e);
        for (int c = 0; c < 3; ++c)
            for (int r = 0; r < 3; ++r) fprintf(f, "%.17g\n", blk[3 * r + c]); /* column-major */
    }
    for (int i = 0; i < 3 * nc; ++i) fprintf(f, "%.17g%c", p->q[i], i + 1 < 3 * nc ? ' ' : '\n');
    for (int a = 0; a < nc; ++a) fprintf(f, "%.17g%c", p->mu[a], a + 1 < nc ? ' ' : '\n');
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0) bad = true;
    if (bad) return cf_error_set(err, CF_IO_ERROR, "%s: write error: %s", path, strerror(errno));
    return CF_OK;
}
