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
    cfTriplets T;
    cfStatus st = cf_triplets_init(&T, n, n);
    double *Mu = calloc((size_t)(n > 0 ? n : 1), sizeof *Mu), *Ku = calloc((size_t)(n > 0 ? n : 1), sizeof *Ku);
    if (st == CF_OK && (!Mu || !Ku)) st = CF_NO_MEMORY;
    /* the stiffness K+ = -K (positive) at x, scaled by h beta + h^2 (implicitly), then the mass M
       (lumped or consistent; explicitly always lumped), scaled by 1 + h alpha (implicitly) */
    cfSoftBody lumped = *s;
    lumped.consistent_mass = lumped.consistent_mass && implicit;
    if (st == CF_OK) st = cf_soft_stiffness(s, x, &T);
    int nk = T.nnz;
    for (int e = 0; e < nk; ++e) Ku[T.i[e]] += T.v[e] * (&u[T.j[e] / 3].x)[T.j[e] % 3];
    if (implicit) {
        double ck = h * s->damping_beta + h * h;
        for (int e = 0; e < nk; ++e) T.v[e] *= ck;
    } else {
        cf_triplets_clear(&T); /* A = M */
    }
    int m0 = T.nnz;
    if (st == CF_OK) st = cf_soft_mass_matrix(&lumped, &T);
    double cm = implicit ? 1.0 + h * s->damping_alpha : 1.0;
    for (int e = m0; e < T.nnz; ++e) {
        Mu[T.i[e]] += T.v[e] * (&u[T.j[e] / 3].x)[T.j[e] % 3];
        T.v[e] *= cm;
    }
    /* A = M - hB - h^2 K = (1 + h alpha) M + (h beta + h^2) K+ implicitly; A = M explicitly */
    if (st == CF_OK) st = cf_csr_from_triplets(&T, A);
    /* b = M u + h f(x) (+ h f_d(u) explicitly), f_d(u) = -(alpha M + beta K+) u */
    if (st == CF_OK) {
        cf_soft_forces(s, x, gravity, b);
        for (int i = 0; i < n; ++i) {
            b[i] = Mu[i] + h * b[i];
            if (!implicit) b[i] -= h * (s->damping_alpha * Mu[i] + s->damping_beta * Ku[i]);
        }
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
    free(Ku);
    cf_triplets_free(&T);
    if (st != CF_OK) cf_csr_free(A);
    return st;
    // END SOLUTION
    // STUB ch08.1: return CF_TODO_S("ch08.1");
    //< ch08:system
}
