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
static cfStatus blocks_of(const H5 *h, int nc, long K, const int *row, const int *col, const double *val, cfBsr *W)
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
            cf_error_set(h->err, st, "%s: /fclib_local/W/x: a value is not finite (block row %d)", h->path, bi);
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

/* W in its storage (nz: -2 CSR, -1 CSC, >= 0 triplets), every index checked, into 3x3 blocks */
static cfStatus read_W(const H5 *h, int nc, long nz, long nzmax, cfBsr *W)
{
    const long m = 3L * nc;
    const char *kind = nz == -2 ? "CSR" : nz == -1 ? "CSC" : "triplet";
    long np, ni, nx;
    int *p = NULL, *ix = NULL, *row = NULL, *col = NULL;
    double *x = NULL;
    long K = nz >= 0 ? nz : 0;
    cfStatus st = nz >= 0 ? read_ints(h, "/fclib_local/W/p", nz, LONG_MAX, &p, &np)
                          : read_ints(h, "/fclib_local/W/p", m + 1, m + 1, &p, &np);
    if (st == CF_OK) st = read_ints(h, "/fclib_local/W/i", nz >= 0 ? nz : 0, LONG_MAX, &ix, &ni);
    if (st == CF_OK) st = read_doubles(h, "/fclib_local/W/x", nz >= 0 ? nz : 0, LONG_MAX, &x, &nx);
    if (st == CF_OK && nz < 0) {
        /* compressed: pointers from 0, non-decreasing, ending within i and x */
        if (p[0] != 0) st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local/W/p: %s pointers start at %d, not 0", h->path, kind, p[0]);
        for (long j = 0; j < m && st == CF_OK; ++j)
            if (p[j + 1] < p[j])
                st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local/W/p: %s pointer %ld (%d) is below the one before (%d)",
                                  h->path, kind, j + 1, p[j + 1], p[j]);
        if (st == CF_OK && (p[m] > nzmax || p[m] > ni || p[m] > nx))
            st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local/W/p: %s holds %d entries; nzmax is %ld, i has %ld, x %ld",
                              h->path, kind, p[m], nzmax, ni, nx);
        K = st == CF_OK ? p[m] : 0;
    }
    if (st == CF_OK) {
        row = malloc((size_t)(K > 0 ? K : 1) * sizeof *row);
        col = malloc((size_t)(K > 0 ? K : 1) * sizeof *col);
        if (!row || !col) st = cf_error_set(h->err, CF_NO_MEMORY, "%s: out of memory", h->path);
    }
    for (long j = 0; j < m && st == CF_OK && nz < 0; ++j)
        for (int e = p[j]; e < p[j + 1]; ++e) {
            row[e] = nz == -2 ? (int)j : ix[e];
            col[e] = nz == -2 ? ix[e] : (int)j;
        }
    for (long k = 0; k < K && st == CF_OK && nz >= 0; ++k) {
        row[k] = ix[k];
        col[k] = p[k];
    }
    for (long k = 0; k < K && st == CF_OK; ++k)
        if (row[k] < 0 || row[k] >= m || col[k] < 0 || col[k] >= m)
            st = cf_error_set(h->err, CF_BAD_INPUT, "%s: %s: %s entry %ld at (%d, %d) is outside the %ld x %ld matrix", h->path,
                              nz == -2 ? "/fclib_local/W/i" : "/fclib_local/W/{i,p}", kind, k, row[k], col[k], m, m);
    if (st == CF_OK) st = blocks_of(h, nc, K, row, col, x, W);
    free(p);
    free(ix);
    free(x);
    free(row);
    free(col);
    return st;
}

static cfStatus read_local(const H5 *h, cfFrictionProblem *p)
{
    if (!exists(h, "/fclib_local"))
        return exists(h, "/fclib_global")
                   ? cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_global: a global problem; cflab reads FCLIB local problems "
                                  "(/fclib_local) only (solve its condensed Siconos text form)", h->path)
                   : cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local: no such group (not an FCLIB problem)", h->path);
    if (exists(h, "/fclib_local/V") || exists(h, "/fclib_local/R"))
        return cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local/%s: a mixed problem (equality multipliers); cflab reads "
                            "frictional contact alone", h->path, exists(h, "/fclib_local/V") ? "V" : "R");
    long dim, m, n, nz, nzmax, nq, nmu;
    cfStatus st = read_int(h, "/fclib_local/spacedim", 2, 3, &dim);
    if (st == CF_OK && dim != 3)
        st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local/spacedim: %ld: cflab reads 3-D problems (spacedim 3) only",
                          h->path, dim);
    if (st == CF_OK) st = read_int(h, "/fclib_local/W/m", 3, 3L * 20000000, &m);
    if (st == CF_OK && m % 3)
        st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local/W/m: %ld rows is not 3 per contact", h->path, m);
    if (st == CF_OK) st = read_int(h, "/fclib_local/W/n", m, m, &n);
    if (st == CF_OK) st = read_int(h, "/fclib_local/W/nz", -2, INT_MAX, &nz);
    if (st == CF_OK) st = read_int(h, "/fclib_local/W/nzmax", nz > 0 ? nz : 0, INT_MAX, &nzmax);
    const int nc = (int)(m / 3);
    if (st == CF_OK) st = read_W(h, nc, nz, nzmax, &p->W);
    if (st == CF_OK) st = read_doubles(h, "/fclib_local/vectors/q", m, m, &p->q, &nq);
    if (st == CF_OK) st = read_doubles(h, "/fclib_local/vectors/mu", nc, nc, &p->mu, &nmu);
    for (long i = 0; i < m && st == CF_OK; ++i)
        if (!isfinite(p->q[i])) st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local/vectors/q: q[%ld] is not finite", h->path, i);
    for (int a = 0; a < nc && st == CF_OK; ++a)
        if (!(isfinite(p->mu[a]) && p->mu[a] >= 0.0))
            st = cf_error_set(h->err, CF_BAD_INPUT, "%s: /fclib_local/vectors/mu: mu[%d] = %g must be >= 0", h->path, a, p->mu[a]);
    if (st == CF_OK) p->nc = nc;
    return st;
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
    st = read_local(&h, p);
    H5Fclose(h.f);
    if (st != CF_OK) {
        cf_fc_free(p);
        memset(p, 0, sizeof *p);
    }
    return st;
}
