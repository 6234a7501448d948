/* SPDX-License-Identifier: MIT */
/* FCLIB local problems read from their HDF5 files with libhdf5 (built with HDF5=1). The layout
   (Acary et al., FCLIB, INRIA RT-0444): /fclib_local/spacedim, /fclib_local/W/{m,n,nz,nzmax,p,i,x}
   with nz = -2 CSR (p: row pointers, i: columns), -1 CSC (p: column pointers, i: rows), nz >= 0
   nz triplets (i: row, p: column of each entry, CSparse's convention), /fclib_local/vectors/{q,mu}.
   Every message names the file and the dataset. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "fclib.h"

/* the largest file opened (cf_file_open() refuses larger ones): HDF5 files hold binary doubles */
#define FCLIB_MAX_BYTES (1L << 40)

typedef struct H5 {
    hid_t f;
    const char *path;
    cfError *err;
} H5;

/* true when every group on the way to @p name and @p name itself exist */
static bool exists(const H5 *h, const char *name)
{
    char part[256];
    size_t n = strlen(name);
    if (n >= sizeof part) return false;
    for (size_t k = 1; k <= n; ++k)
        if (k == n || name[k] == '/') {
            memcpy(part, name, k);
            part[k] = '\0';
            if (H5Lexists(h->f, part, H5P_DEFAULT) <= 0) return false;
        }
    return true;
}

/* the values of dataset @p name, of class @p cls read as @p mem (elements of @p size bytes), into
   a new array *out of *count values; between @p lo and @p hi values */
static cfStatus read_values(const H5 *h, const char *name, H5T_class_t cls, hid_t mem, size_t size, long lo, long hi,
                            void **out, long *count)
{
    *out = NULL;
    if (!exists(h, name)) return cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: no such dataset", h->path, name);
    hid_t d = H5Dopen2(h->f, name, H5P_DEFAULT);
    if (d < 0) return cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: not a dataset", h->path, name);
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    H5T_class_t c = t < 0 ? H5T_NO_CLASS : H5Tget_class(t);
    hssize_t np = s < 0 ? -1 : H5Sget_simple_extent_npoints(s);
    cfStatus st = CF_OK;
    if (c != cls)
        st = cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: %s values expected", h->path, name,
                          cls == H5T_INTEGER ? "integer" : "floating-point");
    else if (np < lo || np > hi)
        st = lo == hi ? cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: %lld values, %ld expected", h->path, name, (long long)np, lo)
                      : cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: %lld values, %ld to %ld expected", h->path, name,
                                     (long long)np, lo, hi);
    else if (!(*out = malloc((size_t)(np > 0 ? np : 1) * size)))
        st = cf_error_set(h->err, CF_NO_MEMORY, "%s: %s: out of memory", h->path, name);
    else if (np > 0 && H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0)
        st = cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: cannot be read (damaged, or values out of range)", h->path, name);
    if (st != CF_OK) {
        free(*out);
        *out = NULL;
    }
    *count = np;
    if (s >= 0) H5Sclose(s);
    if (t >= 0) H5Tclose(t);
    H5Dclose(d);
    return st;
}

static cfStatus read_ints(const H5 *h, const char *name, long lo, long hi, int **out, long *count)
{
    return read_values(h, name, H5T_INTEGER, H5T_NATIVE_INT, sizeof(int), lo, hi, (void **)out, count);
}

static cfStatus read_doubles(const H5 *h, const char *name, long lo, long hi, double **out, long *count)
{
    return read_values(h, name, H5T_FLOAT, H5T_NATIVE_DOUBLE, sizeof(double), lo, hi, (void **)out, count);
}

/* one integer, between lo and hi */
static cfStatus read_int(const H5 *h, const char *name, long lo, long hi, long *v)
{
    int *a;
    long n;
    cfStatus st = read_ints(h, name, 1, 1, &a, &n);
    if (st != CF_OK) return st;
    *v = a[0];
    free(a);
    if (*v < lo || *v > hi)
        return cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: %ld is out of range [%ld, %ld]", h->path, name, *v, lo, hi);
    return CF_OK;
}

/* W from K entries (row[k], col[k], val[k]) of an m x m matrix, m = 3 nc: the 3x3 blocks that
   hold an entry and every diagonal block, each row's in ascending block column; duplicates add up */
static cfStatus blocks_of(const H5 *h, const char *what, int nc, long K, const int *row, const int *col, const double *val,
                          cfBsr *W)
{
    int *start = calloc((size_t)nc + 1, sizeof *start), *order = malloc((size_t)(K > 0 ? K : 1) * sizeof *order);
    int *slot = malloc((size_t)nc * sizeof *slot), *cols = malloc((size_t)nc * sizeof *cols);
    double *buf = malloc((size_t)nc * 9 * sizeof *buf);
    cfStatus st = start && order && slot && cols && buf ? cf_bsr_init(W, nc, nc, 3, 3) : CF_NO_MEMORY;
    if (st == CF_OK) {
        /* the entries of each block row, in the order they came */
        for (long k = 0; k < K; ++k) ++start[row[k] / 3 + 1];
        for (int b = 0; b < nc; ++b) start[b + 1] += start[b];
        for (long k = 0; k < K; ++k) order[start[row[k] / 3]++] = (int)k;
        for (int b = nc; b > 0; --b) start[b] = start[b - 1];
        start[0] = 0;
        for (int b = 0; b < nc; ++b) slot[b] = -1;
    }
    for (int bi = 0; bi < nc && st == CF_OK; ++bi) {
        int used = 0;
        slot[bi] = used;
        cols[used++] = bi;
        memset(buf, 0, 9 * sizeof *buf);
        for (int e = start[bi]; e < start[bi + 1]; ++e) {
            int k = order[e], bj = col[k] / 3;
            if (slot[bj] < 0) {
                slot[bj] = used;
                cols[used++] = bj;
                memset(&buf[9 * slot[bj]], 0, 9 * sizeof *buf);
            }
            buf[9 * slot[bj] + 3 * (row[k] % 3) + col[k] % 3] += val[k];
        }
        /* ascending block columns (insertion sort: a row has few blocks) */
        for (int a = 1; a < used; ++a)
            for (int b = a; b > 0 && cols[b - 1] > cols[b]; --b) {
                int c = cols[b];
                cols[b] = cols[b - 1];
                cols[b - 1] = c;
            }
        for (int a = 0; a < used && st == CF_OK; ++a) st = cf_bsr_add_block(W, bi, cols[a], &buf[9 * slot[cols[a]]]);
        if (st == CF_BAD_INPUT)
            cf_error_set(h->err, st, "%s: %s: a value is not finite (block row %d)", h->path, what, bi);
        for (int a = 0; a < used; ++a) slot[cols[a]] = -1;
    }
    if (st == CF_NO_MEMORY) cf_error_set(h->err, st, "%s: out of memory", h->path);
    if (st == CF_OK) cf_bsr_finalize(W);
    free(start);
    free(order);
    free(slot);
    free(cols);
    free(buf);
    return st;
}

/* A sparse matrix of FCLIB (fclib_matrix: group g holds m, n, nz, nzmax, p, i, x) as its entries */
typedef struct Entries {
    long m, n, K;      /* size and number of entries */
    int *row, *col;    /* K each */
    double *val;       /* K, finite */
} Entries;

static void entries_free(Entries *e)
{
    free(e->row);
    free(e->col);
    free(e->val);
    memset(e, 0, sizeof *e);
}

/* the matrix of group @p g in its storage (nz: -2 CSR, -1 CSC, >= 0 triplets), m rows in
   [m_lo, m_hi] and n columns in [n_lo, n_hi] (n_lo = -1: n = m), every index and value checked */
static cfStatus read_sparse(const H5 *h, const char *g, long m_lo, long m_hi, long n_lo, long n_hi, Entries *e)
{
    char name[96];
#define DS(leaf) (snprintf(name, sizeof name, "%s/" leaf, g), name)
    memset(e, 0, sizeof *e);
    long m = 0, n = 0, nz = 0, nzmax = 0, np, ni, nx;
    cfStatus st = read_int(h, DS("m"), m_lo, m_hi, &m);
    if (st == CF_OK) st = n_lo < 0 ? read_int(h, DS("n"), m, m, &n) : read_int(h, DS("n"), n_lo, n_hi, &n);
    if (st == CF_OK) st = read_int(h, DS("nz"), -2, INT_MAX, &nz);
    if (st == CF_OK) st = read_int(h, DS("nzmax"), nz > 0 ? nz : 0, INT_MAX, &nzmax);
    if (st != CF_OK) return st;
    const char *kind = nz == -2 ? "CSR" : nz == -1 ? "CSC" : "triplet";
    const long outer = nz == -2 ? m : n; /* compressed: pointers per row (CSR) or column (CSC) */
    int *p = NULL, *ix = NULL;
    double *x = NULL;
    long K = nz >= 0 ? nz : 0;
    st = nz >= 0 ? read_ints(h, DS("p"), nz, LONG_MAX, &p, &np) : read_ints(h, DS("p"), outer + 1, outer + 1, &p, &np);
    if (st == CF_OK) st = read_ints(h, DS("i"), nz >= 0 ? nz : 0, LONG_MAX, &ix, &ni);
    if (st == CF_OK) st = read_doubles(h, DS("x"), nz >= 0 ? nz : 0, LONG_MAX, &x, &nx);
    if (st == CF_OK && nz < 0) {
        /* compressed: pointers from 0, non-decreasing, ending within i and x */
        if (p[0] != 0) st = cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: %s pointers start at %d, not 0", h->path, DS("p"), kind, p[0]);
        for (long j = 0; j < outer && st == CF_OK; ++j)
            if (p[j + 1] < p[j])
                st = cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: %s pointer %ld (%d) is below the one before (%d)", h->path,
                                  DS("p"), kind, j + 1, p[j + 1], p[j]);
        if (st == CF_OK && (p[outer] > nzmax || p[outer] > ni || p[outer] > nx))
            st = cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: %s holds %d entries; nzmax is %ld, i has %ld, x %ld", h->path,
                              DS("p"), kind, p[outer], nzmax, ni, nx);
        K = st == CF_OK ? p[outer] : 0;
    }
    if (st == CF_OK) {
        e->row = malloc((size_t)(K > 0 ? K : 1) * sizeof *e->row);
        e->col = malloc((size_t)(K > 0 ? K : 1) * sizeof *e->col);
        e->val = malloc((size_t)(K > 0 ? K : 1) * sizeof *e->val);
        if (!e->row || !e->col || !e->val) st = cf_error_set(h->err, CF_NO_MEMORY, "%s: out of memory", h->path);
    }
    for (long j = 0; j < outer && st == CF_OK && nz < 0; ++j)
        for (int k = p[j]; k < p[j + 1]; ++k) {
            e->row[k] = nz == -2 ? (int)j : ix[k];
            e->col[k] = nz == -2 ? ix[k] : (int)j;
        }
    for (long k = 0; k < K && st == CF_OK && nz >= 0; ++k) {
        e->row[k] = ix[k];
        e->col[k] = p[k];
    }
    for (long k = 0; k < K && st == CF_OK; ++k) {
        e->val[k] = x[k];
        if (e->row[k] < 0 || e->row[k] >= m || e->col[k] < 0 || e->col[k] >= n)
            st = cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: %s entry %ld at (%d, %d) is outside the %ld x %ld matrix", h->path,
                              nz < 0 ? DS("i") : DS("{i,p}"), kind, k, e->row[k], e->col[k], m, n);
        else if (!isfinite(x[k]))
            st = cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: entry %ld at (%d, %d) is not finite", h->path, DS("x"), k, e->row[k],
                              e->col[k]);
    }
#undef DS
    free(p);
    free(ix);
    free(x);
    e->m = m, e->n = n, e->K = K;
    if (st != CF_OK) entries_free(e);
    return st;
}

/* the common tail of both forms: q and mu of nc contacts read (local) or given (global), checked */
static cfStatus check_vectors(const H5 *h, const char *qname, const char *muname, cfFrictionProblem *p, int nc)
{
    cfStatus st = CF_OK;
    for (long i = 0; i < 3L * nc && st == CF_OK; ++i)
        if (!isfinite(p->q[i])) st = cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: q[%ld] is not finite", h->path, qname, i);
    for (int a = 0; a < nc && st == CF_OK; ++a)
        if (!(p->mu[a] >= 0.0 && p->mu[a] <= CF_FC_MU_MAX))
            st = cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: mu[%d] = %g must be in [0, %g] (cf_problem.h)", h->path, muname,
                              a, p->mu[a], CF_FC_MU_MAX);
    if (st == CF_OK) p->nc = nc;
    return st;
}

static cfStatus read_spacedim(const H5 *h, const char *name)
{
    long dim;
    cfStatus st = read_int(h, name, 2, 3, &dim);
    if (st == CF_OK && dim != 3)
        st = cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: %ld: cflab reads 3-D problems (spacedim 3) only", h->path, name, dim);
    return st;
}

static cfStatus read_local(const H5 *h, cfFrictionProblem *p)
{
    if (exists(h, "/fclib_local/V") || exists(h, "/fclib_local/R"))
        return cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local/%s: a mixed problem (equality multipliers); cflab reads "
                            "frictional contact alone", h->path, exists(h, "/fclib_local/V") ? "V" : "R");
    long nq, nmu;
    Entries W = {0};
    cfStatus st = read_spacedim(h, "/fclib_local/spacedim");
    if (st == CF_OK) st = read_sparse(h, "/fclib_local/W", 3, 3L * 20000000, -1, -1, &W);
    if (st == CF_OK && W.m % 3)
        st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local/W/m: %ld rows is not 3 per contact", h->path, W.m);
    const int nc = (int)(W.m / 3);
    if (st == CF_OK) st = blocks_of(h, "/fclib_local/W/x", nc, W.K, W.row, W.col, W.val, &p->W);
    entries_free(&W);
    if (st == CF_OK) st = read_doubles(h, "/fclib_local/vectors/q", 3L * nc, 3L * nc, &p->q, &nq);
    if (st == CF_OK) st = read_doubles(h, "/fclib_local/vectors/mu", nc, nc, &p->mu, &nmu);
    return st == CF_OK ? check_vectors(h, "/fclib_local/vectors/q", "/fclib_local/vectors/mu", p, nc) : st;
}

/* H' M^-1 H as entries: for a diagonal M, row k of H (its entries h_ka) adds h_ka h_kb / M_kk at
   (a, b) for every pair of its entries; blocks_of() sums what falls on one place */
static cfStatus condense(const H5 *h, const Entries *H, const double *d, Entries *W)
{
    memset(W, 0, sizeof *W);
    long *start = calloc((size_t)H->m + 1, sizeof *start), K = 0;
    int *order = malloc((size_t)(H->K > 0 ? H->K : 1) * sizeof *order);
    cfStatus st = start && order ? CF_OK : cf_error_set(h->err, CF_NO_MEMORY, "%s: out of memory", h->path);
    if (st == CF_OK) {
        for (long k = 0; k < H->K; ++k) ++start[H->row[k] + 1];
        for (long r = 0; r < H->m; ++r) {
            K += start[r + 1] * start[r + 1];
            start[r + 1] += start[r];
        }
        long *fill = malloc((size_t)(H->m > 0 ? H->m : 1) * sizeof *fill);
        if (!fill) st = cf_error_set(h->err, CF_NO_MEMORY, "%s: out of memory", h->path);
        for (long r = 0; r < H->m && st == CF_OK; ++r) fill[r] = start[r];
        for (long k = 0; k < H->K && st == CF_OK; ++k) order[fill[H->row[k]]++] = (int)k;
        free(fill);
    }
    if (st == CF_OK && K > INT_MAX)
        st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_global/H: H' M^-1 H has %ld products, more than cflab condenses",
                          h->path, K);
    if (st == CF_OK) {
        W->row = malloc((size_t)(K > 0 ? K : 1) * sizeof *W->row);
        W->col = malloc((size_t)(K > 0 ? K : 1) * sizeof *W->col);
        W->val = malloc((size_t)(K > 0 ? K : 1) * sizeof *W->val);
        if (!W->row || !W->col || !W->val) st = cf_error_set(h->err, CF_NO_MEMORY, "%s: out of memory", h->path);
    }
    long e = 0;
    for (long r = 0; r < H->m && st == CF_OK; ++r)
        for (long a = start[r]; a < start[r + 1]; ++a)
            for (long b = start[r]; b < start[r + 1]; ++b) {
                const int ka = order[a], kb = order[b];
                W->row[e] = H->col[ka];
                W->col[e] = H->col[kb];
                W->val[e++] = H->val[ka] * H->val[kb] / d[r];
            }
    W->m = W->n = H->n, W->K = e;
    free(start);
    free(order);
    if (st != CF_OK) entries_free(W);
    return st;
}

/* A global problem M v = H r + f, u = H' v + w (no G) with a diagonal M, condensed to the local
   u = W r + q with W = H' M^-1 H and q = H' M^-1 f + w, as the Siconos text forms in
   ../shared/data/fclib/converted were made */
static cfStatus read_global(const H5 *h, cfFrictionProblem *p)
{
    if (exists(h, "/fclib_global/G"))
        return cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_global/G: a global problem with equality constraints; cflab "
                            "reads frictional contact alone", h->path);
    Entries M = {0}, H = {0}, W = {0};
    double *d = NULL, *f = NULL, *w = NULL;
    long nf, nw, nmu;
    cfStatus st = read_spacedim(h, "/fclib_global/spacedim");
    if (st == CF_OK) st = read_sparse(h, "/fclib_global/M", 1, 3L * 20000000, -1, -1, &M);
    if (st == CF_OK) st = read_sparse(h, "/fclib_global/H", M.m, M.m, 3, 3L * 20000000, &H);
    if (st == CF_OK && H.n % 3)
        st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_global/H/n: %ld columns is not 3 per contact", h->path, H.n);
    const int nc = (int)(H.n / 3);
    if (st == CF_OK && !(d = calloc((size_t)M.m, sizeof *d))) st = cf_error_set(h->err, CF_NO_MEMORY, "%s: out of memory", h->path);
    for (long k = 0; k < M.K && st == CF_OK; ++k) {
        if (M.row[k] == M.col[k]) d[M.row[k]] += M.val[k];
        else if (M.val[k] != 0.0)
            st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_global/M: M(%d, %d) = %g: cflab condenses a global problem "
                              "with a diagonal M only", h->path, M.row[k], M.col[k], M.val[k]);
    }
    for (long k = 0; k < M.m && st == CF_OK; ++k)
        if (!(d[k] > 0.0))
            st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_global/M: M(%ld, %ld) = %g must be > 0 (a mass)", h->path, k, k, d[k]);
    if (st == CF_OK) st = read_doubles(h, "/fclib_global/vectors/f", M.m, M.m, &f, &nf);
    if (st == CF_OK) st = read_doubles(h, "/fclib_global/vectors/w", H.n, H.n, &w, &nw);
    if (st == CF_OK) st = read_doubles(h, "/fclib_global/vectors/mu", nc, nc, &p->mu, &nmu);
    for (long k = 0; k < M.m && st == CF_OK; ++k)
        if (!isfinite(f[k])) st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_global/vectors/f: f[%ld] is not finite", h->path, k);
    if (st == CF_OK) st = condense(h, &H, d, &W);
    if (st == CF_OK) st = blocks_of(h, "/fclib_global/H", nc, W.K, W.row, W.col, W.val, &p->W);
    if (st == CF_OK) {
        /* q = w + H' (f / d), summed over H's entries in storage order */
        p->q = w, w = NULL;
        for (long k = 0; k < H.K; ++k) p->q[H.col[k]] += H.val[k] * (f[H.row[k]] / d[H.row[k]]);
    }
    entries_free(&M);
    entries_free(&H);
    entries_free(&W);
    free(d);
    free(f);
    free(w);
    return st == CF_OK ? check_vectors(h, "/fclib_global/vectors/w", "/fclib_global/vectors/mu", p, nc) : st;
}

static cfStatus read_problem(const H5 *h, cfFrictionProblem *p)
{
    if (exists(h, "/fclib_local")) return read_local(h, p);
    if (exists(h, "/fclib_global")) return read_global(h, p);
    return cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local: no such group (not an FCLIB problem)", h->path);
}

cfStatus cflab_fc_read_fclib(const char *path, cfFrictionProblem *p, cfError *err)
{
    memset(p, 0, sizeof *p);
    /* the text readers' rules for the file itself: a regular file (no FIFO, no device) */
    cfStatus st;
    FILE *f = cf_file_open(path, FCLIB_MAX_BYTES, &st, err);
    if (!f) return st;
    fclose(f);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* HDF5 prints nothing: every failure has its message here */
    if (H5Fis_hdf5(path) <= 0) return cf_error_set(err, CF_BAD_INPUT, "%s: not an HDF5 file", path);
    H5 h = {H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), path, err};
    if (h.f < 0) return cf_error_set(err, CF_BAD_INPUT, "%s: the HDF5 file cannot be opened (damaged?)", path);
    st = read_problem(&h, p);
    H5Fclose(h.f);
    if (st != CF_OK) {
        cf_fc_free(p);
        memset(p, 0, sizeof *p);
    }
    return st;
}

/* ---- writing ------------------------------------------------------------------------------ */

/* dataset @p name of @p n values of @p mem type from @p data; false on failure */
static bool write_values(hid_t f, const char *name, hid_t file_type, hid_t mem, hsize_t n, const void *data)
{
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = s < 0 ? -1 : H5Dcreate2(f, name, file_type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = d >= 0 && H5Dwrite(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
    if (d >= 0) H5Dclose(d);
    if (s >= 0) H5Sclose(s);
    return ok;
}

static bool write_int(hid_t f, const char *name, int v)
{
    return write_values(f, name, H5T_STD_I32LE, H5T_NATIVE_INT, 1, &v);
}

static bool write_group(hid_t f, const char *name)
{
    hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return false;
    H5Gclose(g);
    return true;
}

static bool write_string(hid_t f, const char *name, const char *text)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    bool ok = t >= 0 && H5Tset_size(t, strlen(text) + 1) >= 0;
    hid_t s = ok ? H5Screate(H5S_SCALAR) : -1;
    hid_t d = s < 0 ? -1 : H5Dcreate2(f, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ok = d >= 0 && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, text) >= 0;
    if (d >= 0) H5Dclose(d);
    if (s >= 0) H5Sclose(s);
    if (t >= 0) H5Tclose(t);
    return ok;
}

cfStatus cflab_fc_write_fclib(const char *path, const cfFrictionProblem *p, cfError *err)
{
    if (!p || p->nc < 1 || !p->q || !p->mu || p->W.brows != p->nc || p->W.br != 3 || p->W.bc != 3 || !p->W.rowptr)
        return cf_error_set(err, CF_BAD_INPUT, "%s: no frictional-contact problem to write (no contacts, or W is not 3x3 blocks)",
                            path ? path : "(null)");
    const cfBsr *W = &p->W;
    const int m = 3 * p->nc, nzmax = 9 * W->nnzb;
    int *rp = malloc((size_t)(m + 1) * sizeof *rp), *ci = malloc((size_t)(nzmax > 0 ? nzmax : 1) * sizeof *ci);
    double *x = malloc((size_t)(nzmax > 0 ? nzmax : 1) * sizeof *x);
    if (!rp || !ci || !x) {
        free(rp), free(ci), free(x);
        return cf_error_set(err, CF_NO_MEMORY, "%s: out of memory", path);
    }
    /* CSR: row 3 bi + r holds row r of each block of block row bi, blocks in their stored order */
    int e = 0;
    rp[0] = 0;
    for (int bi = 0; bi < W->brows; ++bi)
        for (int r = 0; r < 3; ++r) {
            for (int k = W->rowptr[bi]; k < W->rowptr[bi + 1]; ++k)
                for (int c = 0; c < 3; ++c) {
                    ci[e] = 3 * W->colidx[k] + c;
                    x[e++] = W->val[9 * k + 3 * r + c];
                }
            rp[3 * bi + r + 1] = e;
        }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = f >= 0 && write_group(f, "/fclib_local") && write_group(f, "/fclib_local/W") &&
              write_group(f, "/fclib_local/vectors") && write_group(f, "/fclib_local/info") &&
              write_int(f, "/fclib_local/spacedim", 3) && write_int(f, "/fclib_local/W/m", m) &&
              write_int(f, "/fclib_local/W/n", m) && write_int(f, "/fclib_local/W/nz", -2) &&
              write_int(f, "/fclib_local/W/nzmax", nzmax) &&
              write_values(f, "/fclib_local/W/p", H5T_STD_I32LE, H5T_NATIVE_INT, (hsize_t)m + 1, rp) &&
              write_values(f, "/fclib_local/W/i", H5T_STD_I32LE, H5T_NATIVE_INT, (hsize_t)nzmax, ci) &&
              write_values(f, "/fclib_local/W/x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (hsize_t)nzmax, x) &&
              write_values(f, "/fclib_local/vectors/q", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (hsize_t)m, p->q) &&
              write_values(f, "/fclib_local/vectors/mu", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (hsize_t)p->nc, p->mu) &&
              write_string(f, "/fclib_local/info/title", "written by cflab") &&
              write_string(f, "/fclib_local/info/description", "u = W r + q, Coulomb's cone per contact (N, T1, T2)") &&
              write_string(f, "/fclib_local/info/math_info", "");
    if (f >= 0 && H5Fclose(f) < 0) ok = false;
    free(rp), free(ci), free(x);
    return ok ? CF_OK : cf_error_set(err, CF_IO_ERROR, "%s: cannot write the HDF5 file", path);
}
