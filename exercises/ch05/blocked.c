/* SPDX-License-Identifier: MIT */
/* Chapter 5, exercise ch05.5: blocked Gauss-Seidel with one 3x3 block per contact, a local
   solve and a cone or box projection. Specification: lib/include/cf/cf_ch05.h; text:
   chapters/ch05/README.md. */
#include <stdlib.h>

#include "cf/cf_ch05.h"

double cf_contact_local_solve(const double Waa[9], double mu, cfFrictionModel model, double omega, double u[3],
                              double r[3])
{
    //> ch05:local-solve
    // TODO(ch05.5): implement this; the specification is in cf_ch05.h
    return CF_TODO_F("ch05.5");
    //< ch05:local-solve
}

cfStatus cf_fc_bgs(const cfFrictionProblem *p, const cfSplitOptions *o, double *r, cfReport *rep)
{
    double t0 = cf_seconds();
    cfStatus st = cf_fc_split_check(p, r, o, NULL);
    if (st != CF_OK) return cf_split_refuse(rep, st);
    double (*residual)(const cfFrictionProblem *, const double *) =
        o->friction == CF_FRICTION_BOX ? cf_fc_box_residual : cf_fc_residual;
    double r0 = residual(p, r);
    if (r0 <= o->tol_abs) return cf_split_solved_at_start(rep, r0, t0);
    //> ch05:bgs
    // TODO(ch05.5): implement this; the specification is in cf_ch05.h
    st = CF_TODO_S("ch05.5");
    //< ch05:bgs
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
