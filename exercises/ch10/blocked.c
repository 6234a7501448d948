/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.3 (second half): chapter 5's blocked Gauss-Seidel with the friction
   ellipse in the local solve. Specification: lib/include/cf/cf_ch10.h; text: chapters/ch10/README.md. */
#include <math.h>

#include "cf/cf_ch10.h"

double cf_contact_local_solve_ellipse(const double Waa[9], const double mu_tb[2], cfFrictionModel model,
                                      double omega, double u[3], double r[3])
{
    //> ch10:local-solve
    // TODO(ch10.3): implement this; the specification is in cf_ch10.h
    (void)Waa; (void)mu_tb; (void)model; (void)omega; (void)u; (void)r;
    return CF_TODO_F("ch10.3");
    //< ch10:local-solve
}

cfStatus cf_fc_bgs_aniso(const cfFrictionProblem *p, const cfSplitOptions *o, double *r, cfReport *rep)
{
    double t0 = cf_seconds();
    cfStatus st = cf_fc_split_check(p, r, o, NULL);
    for (int a = 0; st == CF_OK && p->ellipse && a < 2 * p->nc; ++a)
        if (!(isfinite(p->ellipse[a]) && p->ellipse[a] >= 0.0)) st = CF_BAD_INPUT;
    if (st != CF_OK) return cf_split_refuse(rep, st);
    double (*residual)(const cfFrictionProblem *, const double *) =
        o->friction == CF_FRICTION_BOX ? cf_fc_box_residual : cf_fc_residual;
    double r0 = residual(p, r);
    if (r0 <= o->tol_abs) return cf_split_solved_at_start(rep, r0, t0);
    //> ch10:bgs
    // TODO(ch10.3): implement this; the specification is in cf_ch10.h
    st = CF_TODO_S("ch10.3");
    //< ch10:bgs
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
