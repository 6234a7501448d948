/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.6: texture friction by plowing (notes 6.3, Andrews et al. 2021): the
   one-sided coefficient of a meso-facet, the directional coefficients of a contact patch sampled
   on the CPU, the directional box projection and projected Gauss-Seidel on it. Specification:
   lib/include/cf/cf_ch10.h; text: chapters/ch10/README.md. */
#include <math.h>

#include "cf/cf_ch10.h"

double cf_plowing_mu(cfVec3 m, cfVec3 n, cfVec3 d)
{
    //> ch10:plowing
    // TODO(ch10.6): implement this; the specification is in cf_ch10.h
    return CF_TODO_F("ch10.6");
    //< ch10:plowing
}

cfStatus cf_texture_patch_mu(const cfHeightField *A, const cfHeightField *B, cfVec3 p, cfVec3 n, cfVec3 t,
                             cfVec3 b, double half, int res, int nd, double *mu)
{
    if (res < 1 || nd < 1 || !(half > 0.0 && isfinite(half)) || !cfu_vec3_finite(p) || !cfu_vec3_finite(n) ||
        !cfu_vec3_finite(t) || !cfu_vec3_finite(b) || !mu)
        return CF_BAD_INPUT;
    //> ch10:patch
    // TODO(ch10.6): implement this; the specification is in cf_ch10.h
    return CF_TODO_S("ch10.6");
    //< ch10:patch
}

void cf_box_project_directional(double lambda_n, const double mu4[4], double lt[2])
{
    //> ch10:box-directional
    // TODO(ch10.6): implement this; the specification is in cf_ch10.h
    CF_TODO("ch10.6");
    //< ch10:box-directional
}

cfStatus cf_fc_texture_pgs(const cfFrictionProblem *p, const double *mu4, const cfSplitOptions *o, double *r,
                           cfReport *rep)
{
    double t0 = cf_seconds();
    cfStatus st = mu4 ? cf_fc_split_check(p, r, o, NULL) : CF_BAD_INPUT;
    for (int i = 0; st == CF_OK && i < 4 * p->nc; ++i)
        if (!(isfinite(mu4[i]) && mu4[i] >= 0.0)) st = CF_BAD_INPUT;
    if (st != CF_OK) return cf_split_refuse(rep, st);
    double r0 = cf_fc_texture_residual(p, mu4, r);
    if (r0 <= o->tol_abs) return cf_split_solved_at_start(rep, r0, t0);
    //> ch10:texture-pgs
    // TODO(ch10.6): implement this; the specification is in cf_ch10.h
    st = CF_TODO_S("ch10.6");
    //< ch10:texture-pgs
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
