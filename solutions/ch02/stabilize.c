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
    // BEGIN SOLUTION ch02.7
    /* lambda+ = -k (phi + h v+) - b v+ and impulse h lambda+ give
       v+ + lambda / (h^2 k + h b) = -(h k / (h k + b)) phi / h */
    *eps = 1.0 / (h * h * k + h * b);
    *ups = h * k / (h * k + b);
    return CF_OK;
    // END SOLUTION
    // STUB ch02.7: return CF_TODO_S("ch02.7");
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
    // BEGIN SOLUTION ch02.7
    for (int a = 0; a < p->nc; ++a) {
        /* CFM on the normal diagonal, ERP bias on the normal right-hand side */
        p->W.val[9 * diagonal_block(&p->W, a)] += eps;
        p->q[3 * a] += ups * phi[a] / h;
    }
    return CF_OK;
    // END SOLUTION
    // STUB ch02.7: return CF_TODO_S("ch02.7");
    //< ch02:stabilize
}
