/* SPDX-License-Identifier: MIT */
/* Chapter 7, exercise ch07.4: the PROX-Gauss-Seidel sweep, blocked per contact, with the
   incremental matrix-free update of w (notes Algorithm 12, Eq. 231 fixed). Specification:
   lib/include/cf/cf_ch07.h; text: chapters/ch07/README.md. */
#include <math.h>
#include <string.h>

#include "cf/cf_ch07.h"

double cf_prox_gs_sweep(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                        const double *lambda, double *trial, double *w, double *v)
{
    (void)v; /* Gauss-Seidel reads each contact's velocity from the running w */
    //> ch07:gs-sweep
    // BEGIN SOLUTION ch07.4
    int d = p->dim;
    const cfCsr *J = &p->J, *G = &p->G;
    memcpy(trial, lambda, (size_t)d * p->nc * sizeof *trial);
    cf_prox_w(p, lambda, w);
    double e = 0.0;
    for (int a = 0; a < p->nc; ++a) {
        double *l = &trial[d * a], u[CF_PROX_MAX_DIM], z[CF_PROX_MAX_DIM], x[CF_PROX_MAX_DIM], rf[3];
        const double *Ra = &R[d * d * a];
        /* v_I = J_I w + b_I with the newest w */
        for (int k = 0; k < d; ++k) {
            int r = d * a + k;
            u[k] = p->b[r];
            for (int q = J->rowptr[r]; q < J->rowptr[r + 1]; ++q) u[k] += J->val[q] * w[J->colidx[q]];
        }
        /* z for the whole block at once, then the normal and the friction set of the NEW normal */
        for (int k = 0; k < d; ++k) {
            double ru = 0.0;
            for (int j = 0; j < d; ++j) ru += Ra[d * k + j] * u[j];
            z[k] = l[k] - scale * ru;
        }
        x[0] = cf_prox_normal(z[0]);
        cf_prox_friction(d - 1, &z[1], &p->mu[3 * a], x[0], cf_prox_friction_r(o, Ra, d, rf), o->box, o->ellipsoid_tol, &x[1]);
        /* w <- w + G_I^T (new - old): the listing's Eq. 231 drops the "w +" */
        for (int k = 0; k < d; ++k) {
            int r = d * a + k;
            double dl = x[k] - l[k];
            if (dl == 0.0) continue;
            for (int q = G->rowptr[r]; q < G->rowptr[r + 1]; ++q) w[G->colidx[q]] += dl * G->val[q];
            if (fabs(dl) > e || dl != dl) e = fabs(dl); /* a NaN must not hide: fmax would drop it */
            l[k] = x[k];
        }
    }
    return e;
    // END SOLUTION
    // STUB ch07.4: return CF_TODO_F("ch07.4");
    //< ch07:gs-sweep
}
