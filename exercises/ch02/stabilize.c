/* SPDX-License-Identifier: MIT */
/* Chapter 2, exercise ch02.7: constraint stabilization with an implicit contact spring
   (Baumgarte), written as ERP and CFM. Specification: lib/include/cf/cf_ch02.h; text:
   chapters/ch02/README.md. */
#include "cf/cf_ch02.h"

cfStatus cf_erp_cfm(double h, double k, double b, double *eps, double *ups)
{
    if (!(isfinite(h) && h > 0.0 && isfinite(k) && k >= 0.0 && isfinite(b) && b >= 0.0 && k + b > 0.0))
        return CF_BAD_INPUT;
    //> ch02:erp-cfm
    // TODO(ch02.7): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.7");
    //< ch02:erp-cfm
}

/* position of the diagonal block of row a in W, or -1 */
static int diagonal_block(const cfBsr *W, int a)
{
    for (int e = W->rowptr[a]; e < W->rowptr[a + 1]; ++e)
        if (W->colidx[e] == a) return e;
    return -1;
}

cfStatus cf_stabilize(cfFrictionProblem *p, const double *phi, double h, double eps, double ups)
{
    if (!(isfinite(h) && h > 0.0 && isfinite(eps) && eps >= 0.0 && ups >= 0.0 && ups <= 1.0))
        return CF_BAD_INPUT;
    if (p->W.br != 3 || p->W.bc != 3 || p->W.brows != p->nc || !cf_vec_finite(p->nc, phi))
        return CF_BAD_INPUT;
    for (int a = 0; a < p->nc; ++a)
        if (diagonal_block(&p->W, a) < 0) return CF_BAD_INPUT;
    //> ch02:stabilize
    // TODO(ch02.7): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.7");
    //< ch02:stabilize
}
