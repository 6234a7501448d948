/* SPDX-License-Identifier: MIT */
/* Writes one small FCLIB local problem (2 contacts) for tools/check.d/46-fclib-hdf5.sh:
     46-fclib-hdf5 OUT.dat dat          its Siconos text form (dense, column-major)
     46-fclib-hdf5 OUT.hdf5 KIND        KIND: csr, csc, triplet (W in that storage), or one defect:
                                        no-mu, bad-index, m-float, spacedim-2, mixed
   Every form holds the same problem, so `cflab solve` must give the same answer on each. */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

enum { N = 6 };
static const double W[N][N] = {{4, 1, 0, 1.5, 0, 0}, {1, 3, 0, 0, 1, 0}, {0, 0, 3, 0, 0, 1},
                               {1, 0, 0, 4, 1, 0}, {0, 0.5, 0, 1, 3, 0}, {0, 0, 1, 0, 0, 3}};
static const double q[N] = {-1, 0.2, -0.1, -2, 0.5, 0.3}, mu[N / 3] = {0.5, 0.3};

static void put(hid_t f, const char *name, hid_t type, int n, const void *v)
{
    hsize_t dims = (hsize_t)n;
    hid_t s = H5Screate_simple(1, &dims, NULL), d = H5Dcreate2(f, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(s);
}
static void put_int(hid_t f, const char *name, int v) { put(f, name, H5T_NATIVE_INT, 1, &v); }

int main(int argc, char **argv)
{
    if (argc != 3) return fprintf(stderr, "usage: %s OUT KIND\n", argv[0]), 2;
    const char *kind = argv[2];
    if (!strcmp(kind, "dat")) {
        FILE *o = fopen(argv[1], "w");
        if (!o) return 1;
        fprintf(o, "3\n%d\n0\n%d\n%d\n%d\n%d\n", N / 3, N, N, N, N);
        for (int j = 0; j < N; ++j)
            for (int i = 0; i < N; ++i) fprintf(o, "%.17g%c", W[i][j], i + 1 < N ? ' ' : '\n');
        for (int i = 0; i < N; ++i) fprintf(o, "%.17g%c", q[i], i + 1 < N ? ' ' : '\n');
        for (int a = 0; a < N / 3; ++a) fprintf(o, "%.17g%c", mu[a], a + 1 < N / 3 ? ' ' : '\n');
        return fclose(o) != 0;
    }
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
