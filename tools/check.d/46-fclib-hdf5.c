/* SPDX-License-Identifier: MIT */
/* Writes one small FCLIB local problem (2 contacts) for tools/check.d/46-fclib-hdf5.sh:
     46-fclib-hdf5 OUT.dat dat          its Siconos text form (dense, column-major)
     46-fclib-hdf5 OUT.hdf5 KIND        KIND: csr, csc, triplet (W in that storage), or one defect:
                                        no-mu, bad-index, m-float, spacedim-2, mixed
     46-fclib-hdf5 OUT.dat global-dat   the condensed text form of the global problem below
     46-fclib-hdf5 OUT.hdf5 global      a global problem M v = H r + f, u = H' v + w (M diagonal in
                                        CSR, H in triplets), or a defect: global-G, global-offdiag
   Every form holds the same problem, so `cflab solve` must give the same answer on each. The global
   problem's numbers are chosen so that its condensation W = H' M^-1 H, q = H' M^-1 f + w is exact
   in floating point (masses powers of two, small integers): the reader's must match bit for bit. */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

enum { N = 6 };
static const double W[N][N] = {{4, 1, 0, 1.5, 0, 0}, {1, 3, 0, 0, 1, 0}, {0, 0, 3, 0, 0, 1},
                               {1, 0, 0, 4, 1, 0}, {0, 0.5, 0, 1, 3, 0}, {0, 0, 1, 0, 0, 3}};
static const double q[N] = {-1, 0.2, -0.1, -2, 0.5, 0.3}, mu[N / 3] = {0.5, 0.3};

/* the global problem: 6 degrees of freedom, the 2 contacts of W above */
static const double Md[N] = {2, 4, 1, 2, 0.5, 1}, f_ext[N] = {1, -2, 0.5, 3, -1, 2}, w_g[N] = {-1, 0.25, 0, -2, 0.5, 0.125};
static const double H[N][N] = {{1, 0, 0, 1, 0, 0}, {0, 1, 0, 0, 2, 0}, {0, 0, 1, 0, 0, 1},
                               {2, 0, 0, 1, 0, 0}, {0, 1, 1, 0, 1, 0}, {0, 0, 0, 0, 0, 3}};

static void put(hid_t f, const char *name, hid_t type, int n, const void *v)
{
    hsize_t dims = (hsize_t)n;
    hid_t s = H5Screate_simple(1, &dims, NULL), d = H5Dcreate2(f, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(s);
}
static void put_int(hid_t f, const char *name, int v) { put(f, name, H5T_NATIVE_INT, 1, &v); }

/* the Siconos text form of u = Wt r + qt with the contacts' mu (dense, column-major) */
static int write_text(const char *out, const double Wt[N][N], const double qt[N])
{
    FILE *o = fopen(out, "w");
    if (!o) return 1;
    fprintf(o, "3\n%d\n0\n%d\n%d\n%d\n%d\n", N / 3, N, N, N, N);
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) fprintf(o, "%.17g%c", Wt[i][j], i + 1 < N ? ' ' : '\n');
    for (int i = 0; i < N; ++i) fprintf(o, "%.17g%c", qt[i], i + 1 < N ? ' ' : '\n');
    for (int a = 0; a < N / 3; ++a) fprintf(o, "%.17g%c", mu[a], a + 1 < N / 3 ? ' ' : '\n');
    return fclose(o) != 0;
}

static void group(hid_t f, const char *name) { H5Gclose(H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)); }

static int global_dat(const char *out)
{
    double Wg[N][N], qg[N];
    for (int a = 0; a < N; ++a) {
        qg[a] = w_g[a];
        for (int k = 0; k < N; ++k) qg[a] += H[k][a] * f_ext[k] / Md[k];
        for (int b = 0; b < N; ++b) {
            Wg[a][b] = 0.0;
            for (int k = 0; k < N; ++k) Wg[a][b] += H[k][a] * H[k][b] / Md[k];
        }
    }
    return write_text(out, (const double(*)[N])Wg, qg);
}

static int global_hdf5(const char *out, const char *kind)
{
    hid_t f = H5Fcreate(out, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    group(f, "/fclib_global");
    group(f, "/fclib_global/M");
    group(f, "/fclib_global/H");
    group(f, "/fclib_global/vectors");
    put_int(f, "/fclib_global/spacedim", 3);
    /* M: CSR, one entry per row (global-offdiag: row 1 also holds (1, 0)) */
    const int off = !strcmp(kind, "global-offdiag");
    int mp[N + 1], mi[N + 1], k = 0;
    double mx[N + 1];
    for (int r = 0; r < N; ++r) {
        mp[r] = k;
        if (off && r == 1) mi[k] = 0, mx[k++] = 0.5;
        mi[k] = r, mx[k++] = Md[r];
    }
    mp[N] = k;
    put_int(f, "/fclib_global/M/m", N);
    put_int(f, "/fclib_global/M/n", N);
    put_int(f, "/fclib_global/M/nz", -2);
    put_int(f, "/fclib_global/M/nzmax", k);
    put(f, "/fclib_global/M/p", H5T_NATIVE_INT, N + 1, mp);
    put(f, "/fclib_global/M/i", H5T_NATIVE_INT, k, mi);
    put(f, "/fclib_global/M/x", H5T_NATIVE_DOUBLE, k, mx);
    /* H: triplets, i the row (degree of freedom), p the column (contact unknown) */
    int hr[N * N], hc[N * N], nz = 0;
    double hx[N * N];
    for (int c = 0; c < N; ++c)
        for (int r = 0; r < N; ++r)
            if (H[r][c] != 0.0) hr[nz] = r, hc[nz] = c, hx[nz++] = H[r][c];
    put_int(f, "/fclib_global/H/m", N);
    put_int(f, "/fclib_global/H/n", N);
    put_int(f, "/fclib_global/H/nz", nz);
    put_int(f, "/fclib_global/H/nzmax", nz);
    put(f, "/fclib_global/H/p", H5T_NATIVE_INT, nz, hc);
    put(f, "/fclib_global/H/i", H5T_NATIVE_INT, nz, hr);
    put(f, "/fclib_global/H/x", H5T_NATIVE_DOUBLE, nz, hx);
    put(f, "/fclib_global/vectors/f", H5T_NATIVE_DOUBLE, N, f_ext);
    put(f, "/fclib_global/vectors/w", H5T_NATIVE_DOUBLE, N, w_g);
    put(f, "/fclib_global/vectors/mu", H5T_NATIVE_DOUBLE, N / 3, mu);
    if (!strcmp(kind, "global-G")) group(f, "/fclib_global/G");
    return H5Fclose(f) < 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) return fprintf(stderr, "usage: %s OUT KIND\n", argv[0]), 2;
    const char *kind = argv[2];
    if (!strcmp(kind, "global-dat")) return global_dat(argv[1]);
    if (!strncmp(kind, "global", 6)) return global_hdf5(argv[1], kind);
    if (!strcmp(kind, "dat")) return write_text(argv[1], W, q);
    /* the non-zeros by rows (CSR, triplets) or by columns (CSC); W is not symmetric, so a reader
       that swaps rows and columns reads another problem */
    const int csc = !strcmp(kind, "csc"), trip = !strcmp(kind, "triplet");
    int p[N + 1] = {0}, ix[N * N], nz = 0, rows[N * N], cols[N * N];
    double x[N * N];
    for (int o = 0; o < N; ++o) {
        for (int k = 0; k < N; ++k) {
            int i = csc ? k : o, j = csc ? o : k;
            if (W[i][j] == 0.0) continue;
            rows[nz] = i, cols[nz] = j, x[nz] = W[i][j];
            ix[nz++] = csc ? i : j;
        }
        p[o + 1] = nz;
    }
    if (!strcmp(kind, "bad-index")) ix[4] = 9;
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(f, "/fclib_local", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(H5Gcreate2(f, "/fclib_local/W", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(H5Gcreate2(f, "/fclib_local/vectors", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    put_int(f, "/fclib_local/spacedim", strcmp(kind, "spacedim-2") ? 3 : 2);
    if (strcmp(kind, "m-float")) put_int(f, "/fclib_local/W/m", N);
    else put(f, "/fclib_local/W/m", H5T_NATIVE_DOUBLE, 1, &(double){N});
    put_int(f, "/fclib_local/W/n", N);
    put_int(f, "/fclib_local/W/nz", trip ? nz : csc ? -1 : -2);
    put_int(f, "/fclib_local/W/nzmax", nz);
    /* triplets: i the row, p the column of each entry */
    put(f, "/fclib_local/W/p", H5T_NATIVE_INT, trip ? nz : N + 1, trip ? cols : p);
    put(f, "/fclib_local/W/i", H5T_NATIVE_INT, nz, trip ? rows : ix);
    put(f, "/fclib_local/W/x", H5T_NATIVE_DOUBLE, nz, x);
    put(f, "/fclib_local/vectors/q", H5T_NATIVE_DOUBLE, N, q);
    if (strcmp(kind, "no-mu")) put(f, "/fclib_local/vectors/mu", H5T_NATIVE_DOUBLE, N / 3, mu);
    if (!strcmp(kind, "mixed")) put(f, "/fclib_local/V", H5T_NATIVE_DOUBLE, N, q);
    return H5Fclose(f) < 0;
}
