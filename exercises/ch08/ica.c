/* SPDX-License-Identifier: MIT */
/* Chapter 8, exercise ch08.5: iterative constraint anticipation (ICA), Otaduy et al. 2009: block
   Jacobi anticipation with B = J D^-1 J^T, an inner projected Gauss-Seidel with friction
   interlaced, an outer block Gauss-Seidel (or Jacobi) sweep on the dynamics, the 5 % rules.
   Specification: lib/include/cf/cf_ch08.h; text: chapters/ch08/README.md. */
#include "cf/cf_ch08.h"

#include <stdlib.h>
#include <string.h>

//> ch08:ica-helpers
//< ch08:ica-helpers

cfStatus cf_ica_solve(const cfDualSystem *s, const double *vstar, const cfIcaOptions *o, double *dv, double *lambda,
                      cfReport *rep, cfIcaStats *st)
{
    double t0 = cf_seconds();
    cfIcaStats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    if (cf_dual_check(s, NULL) != CF_OK || !o || o->max_outer < 1 || o->max_inner < 1 || o->passes < 1 ||
        !(o->rel_change >= 0.0) || !(o->tol >= 0.0) || o->outer < 0 || o->outer >= CF_ICA_OUTER_COUNT || !vstar || !dv ||
        !lambda || !cf_vec_finite(s->n, vstar) || !cf_vec_finite(s->n, dv) || !cf_vec_finite(3 * s->nc, lambda))
        return cf_split_refuse(rep, CF_BAD_INPUT);
    cfStatus status;
    //> ch08:ica
    // TODO(ch08.5): implement this; the specification is in cf_ch08.h
    status = CF_TODO_S("ch08.5");
    //< ch08:ica
    if (rep) {
        rep->seconds = cf_seconds() - t0;
        rep->measure = CF_MEASURE_NATURAL_MAP;
    }
    return status;
}
