/* SPDX-License-Identifier: MIT */
/* Chapter 2, exercise ch02.8: the implicit soft-body system A = M + hB + h^2 K and its dual
   (Delassus) form W = J A^-1 J^T, q = J A^-1 b. Specification: lib/include/cf/cf_ch02.h; text:
   chapters/ch02/README.md. */
#include "cf/cf_ch01.h"
#include "cf/cf_ch02.h"

#include <stdlib.h>
#include <string.h>

cfStatus cf_soft_dual(const cfSoftBody *s, cfVec3 gravity, double h, const cfSoftContact *contacts, int nc,
                      cfSoftDual *d, cfFrictionProblem *fc)
{
    memset(d, 0, sizeof *d);
    memset(fc, 0, sizeof *fc);
    if (nc < 1 || !contacts || !(isfinite(h) && h > 0.0)) return CF_BAD_INPUT;
    for (int a = 0; a < nc; ++a) {
        const cfSoftContact *c = &contacts[a];
        if (!(isfinite(c->mu) && c->mu >= 0.0)) return CF_BAD_INPUT;
        for (int k = 0; k < c->na; ++k)
            if (c->node_a[k] < 0 || c->node_a[k] >= s->n_nodes) return CF_BAD_INPUT;
        for (int k = 0; k < c->nb; ++k)
            if (c->node_b[k] < 0 || c->node_b[k] >= s->n_nodes) return CF_BAD_INPUT;
    }
    //> ch02:soft-dual
    // TODO(ch02.8): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.8");
    //< ch02:soft-dual
}

cfStatus cf_soft_dual_velocity(const cfSoftDual *d, const double *lambda, double *u_plus)
{
    if (!cf_vec_finite(3 * d->nc, lambda)) return CF_BAD_INPUT;
    //> ch02:soft-dual-velocity
    // TODO(ch02.8): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.8");
    //< ch02:soft-dual-velocity
}
