/* SPDX-License-Identifier: MIT */
/* Chapter 8, exercise ch08.1: the linear system A u+ = b of one soft-body step in the notes'
   sign convention, implicit (A = M - hB - h^2 K) or explicit with lumped mass. Specification:
   lib/include/cf/cf_ch08.h; text: chapters/ch08/README.md. */
#include "cf/cf_ch08.h"

#include <stdlib.h>
#include <string.h>

cfStatus cf_soft_system(const cfSoftBody *s, cfVec3 gravity, double h, const cfVec3 *x, const cfVec3 *u, bool implicit,
                        cfCsr *A, double *b)
{
    memset(A, 0, sizeof *A);
    if (!(isfinite(h) && h >= 0.0)) return CF_BAD_INPUT;
    //> ch08:system
    // BEGIN SOLUTION ch08.1
    const int n = 3 * s->n_nodes;
    cfTriplets M, K;
    cfStatus st = cf_triplets_init(&M, n, n);
    if (st == CF_OK) st = cf_triplets_init(&K, n, n);
    if (st != CF_OK) {
        cf_triplets_free(&M);
        return st;
    }
    /* the stiffness K+ = -K (positive) at x; the mass M (lumped or consistent; explicitly always lumped) */
    st = cf_soft_stiffness(s, x, &K);
    cfSoftBody lumped = *s;
    lumped.consistent_mass = lumped.consistent_mass && implicit;
    if (st == CF_OK) st = cf_soft_mass_matrix(&lumped, &M);
    cfCsr Mc = {0}, Kc = {0};
    if (st == CF_OK) st = cf_csr_from_triplets(&M, &Mc);
    if (st == CF_OK) st = cf_csr_from_triplets(&K, &Kc);
    double *Mu = malloc((size_t)(n > 0 ? n : 1) * sizeof *Mu);
    if (st == CF_OK && !Mu) st = CF_NO_MEMORY;
    if (st == CF_OK) {
        /* b = M u + h f(x) (+ h f_d(u) explicitly), f_d(u) = -(alpha M + beta K+) u */
        cf_csr_mul_vec(&Mc, &u[0].x, Mu);
        cf_soft_forces(s, x, gravity, b);
        for (int i = 0; i < n; ++i) b[i] = Mu[i] + h * b[i];
        if (!implicit) {
            double *Ku = malloc((size_t)(n > 0 ? n : 1) * sizeof *Ku);
            if (!Ku) st = CF_NO_MEMORY;
            else {
                cf_csr_mul_vec(&Kc, &u[0].x, Ku);
                for (int i = 0; i < n; ++i) b[i] -= h * (s->damping_alpha * Mu[i] + s->damping_beta * Ku[i]);
                free(Ku);
            }
        }
    }
    /* A = M - hB - h^2 K = (1 + h alpha) M + (h beta + h^2) K+ implicitly; A = M explicitly */
    cfTriplets T;
    if (st == CF_OK) st = cf_triplets_init(&T, n, n);
    if (st == CF_OK) {
        double cm = implicit ? 1.0 + h * s->damping_alpha : 1.0, ck = h * s->damping_beta + h * h;
        for (int e = 0; e < M.nnz && st == CF_OK; ++e) st = cf_triplets_add(&T, M.i[e], M.j[e], cm * M.v[e]);
        for (int e = 0; implicit && e < K.nnz && st == CF_OK; ++e) st = cf_triplets_add(&T, K.i[e], K.j[e], ck * K.v[e]);
        if (st == CF_OK) st = cf_csr_from_triplets(&T, A);
        cf_triplets_free(&T);
    }
    /* fixed nodes: u+ = 0 */
    int *dofs = st == CF_OK ? malloc((size_t)(n > 0 ? n : 1) * sizeof *dofs) : NULL;
    if (st == CF_OK && !dofs) st = CF_NO_MEMORY;
    if (st == CF_OK) {
        int nd = cf_soft_fixed_dofs(s, dofs);
        cf_csr_pin_dofs(A, nd, dofs);
        for (int k = 0; k < nd; ++k) b[dofs[k]] = 0.0;
    }
    free(dofs);
    free(Mu);
    cf_csr_free(&Mc);
    cf_csr_free(&Kc);
    cf_triplets_free(&M);
    cf_triplets_free(&K);
    if (st != CF_OK) cf_csr_free(A);
    return st;
    // END SOLUTION
    // STUB ch08.1: return CF_TODO_S("ch08.1");
    //< ch08:system
}
