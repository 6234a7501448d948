/* SPDX-License-Identifier: MIT */
/* Chapter 9, provided (not exercises; copied unchanged into exercises/ch09/ and not handed in):
   elasticity under IPC, the stable Neo-Hookean tetrahedron with its PSD-projected Hessian
   (cf_tet_neohookean()) and the system's tetrahedra (cf_ipc_add_tet()). cf_ipc_energy_blocks()
   (provided.c) adds them to the incremental potential. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch09.h"
#include "cf/cf_soft.h"

/* the columns of the edge matrix [x1 - x0, x2 - x0, x3 - x0] as a row-major 3x3 */
static void edge_matrix(const cfVec3 x[4], double D[9])
{
    for (int k = 0; k < 3; ++k) {
        cfVec3 e = cfu_sub(x[k + 1], x[0]);
        D[0 * 3 + k] = e.x, D[1 * 3 + k] = e.y, D[2 * 3 + k] = e.z;
    }
}

static double det3(const double A[9])
{
    return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
}

/* the PSD test of the 9x9 before projecting: a Cholesky that succeeds means positive definite */
static bool positive_definite9(const double A[81])
{
    double L[81];
    for (int j = 0; j < 9; ++j) {
        double d = A[9 * j + j];
        for (int k = 0; k < j; ++k) d -= L[9 * j + k] * L[9 * j + k];
        if (!(d > 0.0)) return false;
        L[9 * j + j] = sqrt(d);
        for (int i = j + 1; i < 9; ++i) {
            double v = A[9 * i + j];
            for (int k = 0; k < j; ++k) v -= L[9 * i + k] * L[9 * j + k];
            L[9 * i + j] = v / L[9 * j + j];
        }
    }
    return true;
}

double cf_tet_neohookean(const cfVec3 x[4], const double Dm_inv[9], double V, double mu, double lambda, double g[12],
                         double H[144], bool project)
{
    //> ch09:tet-neohookean
    double Ds[9], F[9];
    edge_matrix(x, Ds);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) F[3 * i + j] = Ds[3 * i] * Dm_inv[j] + Ds[3 * i + 1] * Dm_inv[3 + j] + Ds[3 * i + 2] * Dm_inv[6 + j];
    cfVec3 f[3], c[3]; /* the columns of F and of cof F */
    for (int j = 0; j < 3; ++j) f[j] = cfu_vec3(F[j], F[3 + j], F[6 + j]);
    c[0] = cfu_cross(f[1], f[2]), c[1] = cfu_cross(f[2], f[0]), c[2] = cfu_cross(f[0], f[1]);
    double J = cfu_dot(f[0], c[0]), I_C = 0.0;
    for (int p = 0; p < 9; ++p) I_C += F[p] * F[p];
    double la = lambda + mu, s = la * (J - 1.0) - mu; /* dpsi/dJ */
    double psi = 0.5 * mu * (I_C - 3.0) - mu * (J - 1.0) + 0.5 * la * (J - 1.0) * (J - 1.0);
    /* G (4x3): dF_ij / dx_{a,i} = G[a][j] */
    double G[4][3];
    for (int j = 0; j < 3; ++j) {
        G[1][j] = Dm_inv[j], G[2][j] = Dm_inv[3 + j], G[3][j] = Dm_inv[6 + j];
        G[0][j] = -(G[1][j] + G[2][j] + G[3][j]);
    }
    if (g) {
        double P[9]; /* row-major: P_ij */
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i) P[3 * i + j] = mu * F[3 * i + j] + s * cfu_vec3_at(c[j], i);
        for (int a = 0; a < 4; ++a)
            for (int i = 0; i < 3; ++i) g[3 * a + i] = V * (P[3 * i] * G[a][0] + P[3 * i + 1] * G[a][1] + P[3 * i + 2] * G[a][2]);
    }
    if (H) {
        /* d2psi/dF2 in vec order p = 3 j + i (column j of F, row i) */
        double A[81];
        for (int p = 0; p < 9; ++p)
            for (int q = 0; q < 9; ++q)
                A[9 * p + q] = (p == q ? mu : 0.0) + la * cfu_vec3_at(c[p / 3], p % 3) * cfu_vec3_at(c[q / 3], q % 3);
        /* s d2J/dF2: block (a, b) of columns is s [f_k]x with the sign of the permutation (a, b, k) */
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) {
                if (a == b) continue;
                int k = 3 - a - b;
                double sign = ((b - a + 3) % 3 == 1) ? -1.0 : 1.0; /* (0,1): -[f2], (0,2): +[f1], (1,2): -[f0] */
                cfVec3 v = f[k];
                double X[9] = {0, -v.z, v.y, v.z, 0, -v.x, -v.y, v.x, 0}; /* [v]x */
                for (int i = 0; i < 3; ++i)
                    for (int l = 0; l < 3; ++l) A[9 * (3 * a + i) + 3 * b + l] += s * sign * X[3 * i + l];
            }
        if (project && !positive_definite9(A) && cf_psd_project(9, A) != CF_OK) return NAN;
        /* H_{(a,i),(b,k)} = V sum_{j,l} A[(3j+i),(3l+k)] G[a][j] G[b][l] */
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b)
                for (int i = 0; i < 3; ++i)
                    for (int k = 0; k < 3; ++k) {
                        double h = 0.0;
                        for (int j = 0; j < 3; ++j)
                            for (int l = 0; l < 3; ++l) h += A[9 * (3 * j + i) + 3 * l + k] * G[a][j] * G[b][l];
                        H[12 * (3 * a + i) + 3 * b + k] = V * h;
                    }
    }
    return V * psi;
    //< ch09:tet-neohookean
}

/* grow *p to @p cap items of @p size bytes; false when out of memory (*p unchanged) */
static bool room(void **p, int cap, size_t size)
{
    void *n = realloc(*p, (size_t)cap * size);
    if (!n) return false;
    *p = n;
    return true;
}

cfStatus cf_ipc_add_tet(cfIpcSystem *s, const int node[4], double young, double poisson)
{
    for (int i = 0; i < 4; ++i) {
        if (node[i] < 0 || node[i] >= s->n) return CF_BAD_INPUT;
        for (int j = 0; j < i; ++j)
            if (node[i] == node[j]) return CF_BAD_INPUT;
    }
    if (!(young > 0.0 && isfinite(young)) || !(poisson >= 0.0 && poisson < 0.5)) return CF_BAD_INPUT;
    cfVec3 x[4];
    cf_ipc_pair_points(s->q, node, x);
    double D[9], ell = 0.0;
    edge_matrix(x, D);
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) ell = fmax(ell, cfu_norm(cfu_sub(x[i], x[j])));
    double det = det3(D);
    if (!(det > 1e-12 * ell * ell * ell)) return CF_BAD_INPUT; /* inverted, degenerate or not finite */
    if (s->n_tet == s->cap_tet) {
        int cap = s->cap_tet ? 2 * s->cap_tet : 16;
        if (!room((void **)&s->tet, cap, sizeof *s->tet) || !room((void **)&s->tet_Dm_inv, cap, sizeof *s->tet_Dm_inv) ||
            !room((void **)&s->tet_volume, cap, sizeof *s->tet_volume) || !room((void **)&s->tet_mu, cap, sizeof *s->tet_mu) ||
            !room((void **)&s->tet_lambda, cap, sizeof *s->tet_lambda))
            return CF_NO_MEMORY;
        s->cap_tet = cap;
    }
    int e = s->n_tet;
    double *Mi = s->tet_Dm_inv[e]; /* the adjugate over the determinant */
    Mi[0] = (D[4] * D[8] - D[5] * D[7]) / det, Mi[1] = (D[2] * D[7] - D[1] * D[8]) / det, Mi[2] = (D[1] * D[5] - D[2] * D[4]) / det;
    Mi[3] = (D[5] * D[6] - D[3] * D[8]) / det, Mi[4] = (D[0] * D[8] - D[2] * D[6]) / det, Mi[5] = (D[2] * D[3] - D[0] * D[5]) / det;
    Mi[6] = (D[3] * D[7] - D[4] * D[6]) / det, Mi[7] = (D[1] * D[6] - D[0] * D[7]) / det, Mi[8] = (D[0] * D[4] - D[1] * D[3]) / det;
    memcpy(s->tet[e], node, sizeof s->tet[e]);
    s->tet_volume[e] = det / 6.0;
    cf_lame(young, poisson, &s->tet_lambda[e], &s->tet_mu[e]);
    s->n_tet++;
    return CF_OK;
}
