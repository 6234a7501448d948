/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.5: the full rigid contact system with friction of notes Eq. 198 (body
   velocities, impulses and the friction slack as unknowns) and its non-symmetric Jacobian,
   Eq. 199. Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include <math.h>

#include "cf/cf_ch06.h"

cfStatus cf_contact_system_eval(const cfContactSystem *s, cfNcpKind kind, double r, double eps, const double *x,
                                double *F, cfTriplets *J)
{
    int nu = 6 * s->nb;
    const cfBsr *Jc = &s->J;
    //> ch06:system-eval
    // BEGIN SOLUTION ch06.5
    cfStatus st = CF_OK;
    /* momentum rows: M u - p - J^T lambda */
    for (int k = 0; k < s->nb; ++k) {
        const double *M = &s->M[36 * k], *u = &x[6 * k];
        for (int i = 0; i < 6; ++i) {
            double v = -s->p[6 * k + i];
            for (int j = 0; j < 6; ++j) v += M[6 * i + j] * u[j];
            F[6 * k + i] = v;
        }
        for (int i = 0; J && i < 6 && st == CF_OK; ++i)
            for (int j = 0; j < 6 && st == CF_OK; ++j)
                if (M[6 * i + j] != 0.0) st = cf_triplets_add(J, 6 * k + i, 6 * k + j, M[6 * i + j]);
    }
    for (int a = 0; a < s->nc && st == CF_OK; ++a) {
        const double *l = &x[nu + 4 * a];
        double gamma = l[3], v[3] = {0, 0, 0};
        for (int e = Jc->rowptr[a]; e < Jc->rowptr[a + 1]; ++e) {
            const double *B = &Jc->val[18 * e], *u = &x[6 * Jc->colidx[e]];
            int row0 = 6 * Jc->colidx[e];
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 6; ++j) {
                    v[i] += B[6 * i + j] * u[j];
                    F[row0 + j] -= B[6 * i + j] * l[i]; /* - J^T lambda */
                }
            for (int i = 0; J && i < 3 && st == CF_OK; ++i)
                for (int j = 0; j < 6 && st == CF_OK; ++j)
                    if (B[6 * i + j] != 0.0) st = cf_triplets_add(J, row0 + j, nu + 4 * a + i, -B[6 * i + j]);
        }
        int row = nu + 4 * a;
        /* normal: psi(v_n + bias, r lambda_n) */
        double da, db;
        F[row] = cf_ncp_eval(kind, v[0] + s->bias[a], l[0], r, 1.0, &da, &db);
        /* tangents: s = v_t + gamma lambda_t / n_eps */
        double nl = hypot(l[1], l[2]), neps = sqrt(nl * nl + eps * eps);
        F[row + 1] = v[1] + gamma * l[1] / neps;
        F[row + 2] = v[2] + gamma * l[2] / neps;
        /* slack: psi(mu lambda_n - |lambda_t|, r gamma) */
        double sa, sb;
        F[row + 3] = cf_ncp_eval(kind, s->mu[a] * l[0] - nl, gamma, r, 1.0, &sa, &sb);
        if (!J) continue;
        /* d/du: the rows of J (normal scaled by da) */
        for (int e = Jc->rowptr[a]; e < Jc->rowptr[a + 1] && st == CF_OK; ++e) {
            const double *B = &Jc->val[18 * e];
            int col0 = 6 * Jc->colidx[e];
            for (int j = 0; j < 6 && st == CF_OK; ++j) {
                if (B[j] != 0.0 && da != 0.0) st = cf_triplets_add(J, row, col0 + j, da * B[j]);
                for (int i = 1; i < 3 && st == CF_OK; ++i)
                    if (B[6 * i + j] != 0.0) st = cf_triplets_add(J, row + i, col0 + j, B[6 * i + j]);
            }
        }
        int c = nu + 4 * a; /* columns of lambda_n, lambda_t, lambda_b, gamma */
        if (st == CF_OK && db != 0.0) st = cf_triplets_add(J, row, c, db);
        for (int i = 0; i < 2 && st == CF_OK; ++i) {
            for (int j = 0; j < 2 && st == CF_OK; ++j) {
                double d = gamma * ((i == j) - l[1 + i] * l[1 + j] / (neps * neps)) / neps;
                st = cf_triplets_add(J, row + 1 + i, c + 1 + j, d);
            }
            if (st == CF_OK) st = cf_triplets_add(J, row + 1 + i, c + 3, l[1 + i] / neps);
        }
        if (st == CF_OK && sa != 0.0) {
            st = cf_triplets_add(J, row + 3, c, sa * s->mu[a]);
            for (int j = 0; j < 2 && st == CF_OK && nl > 0.0; ++j)
                st = cf_triplets_add(J, row + 3, c + 1 + j, -sa * l[1 + j] / nl);
        }
        if (st == CF_OK && sb != 0.0) st = cf_triplets_add(J, row + 3, c + 3, sb);
    }
    return st;
    // END SOLUTION
    // STUB ch06.5: (void)kind; (void)r; (void)eps; (void)x; (void)F; (void)J; (void)nu; (void)Jc;
    // STUB ch06.5: return CF_TODO_S("ch06.5");
    //< ch06:system-eval
}
