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
    // BEGIN SOLUTION ch10.6
    cfVec3 nh = cfu_normalize(n), mh = cfu_normalize(m);
    double theta = acos(fmax(-1.0, fmin(1.0, cfu_dot(mh, nh))));
    cfVec3 mp = cfu_sub(mh, cfu_scale(cfu_dot(mh, nh), nh)), dp = cfu_sub(d, cfu_scale(cfu_dot(d, nh), nh));
    double lm = cfu_norm(mp), ld = cfu_norm(dp);
    if (!(lm > 1e-12) || !(ld > 0.0)) return 0.0; /* a flat facet, or no direction in the plane */
    double c = cfu_dot(mp, dp) / (lm * ld);
    return fmax(0.0, c) * (2.0 / CF_PI) * theta;
    // END SOLUTION
    // STUB ch10.6: return CF_TODO_F("ch10.6");
    //< ch10:plowing
}

cfStatus cf_texture_patch_mu(const cfHeightField *A, const cfHeightField *B, cfVec3 p, cfVec3 n, cfVec3 t,
                             cfVec3 b, double half, int res, int nd, double *mu)
{
    if (res < 1 || nd < 1 || !(half > 0.0 && isfinite(half)) || !cfu_vec3_finite(p) || !cfu_vec3_finite(n) ||
        !cfu_vec3_finite(t) || !cfu_vec3_finite(b) || !mu)
        return CF_BAD_INPUT;
    //> ch10:patch
    // BEGIN SOLUTION ch10.6
    for (int k = 0; k < nd; ++k) mu[k] = 0.0;
    double step = 2.0 * half / res, inv = 1.0 / ((double)res * res);
    for (int i = 0; i < res; ++i)
        for (int j = 0; j < res; ++j) {
            cfVec3 x = cfu_add(p, cfu_add(cfu_scale(-half + (i + 0.5) * step, t), cfu_scale(-half + (j + 0.5) * step, b)));
            cfVec3 ma = A ? cf_height_field_normal(A, x) : n, mb = B ? cf_height_field_normal(B, x) : cfu_neg(n);
            for (int k = 0; k < nd; ++k) {
                double th = 2.0 * CF_PI * k / nd;
                cfVec3 d = cfu_add(cfu_scale(cos(th), t), cfu_scale(sin(th), b));
                /* B slides along d relative to A: A's facets are pushed along -d, B's along d */
                mu[k] += inv * (cf_plowing_mu(ma, n, cfu_neg(d)) + cf_plowing_mu(mb, cfu_neg(n), d));
            }
        }
    return CF_OK;
    // END SOLUTION
    // STUB ch10.6: return CF_TODO_S("ch10.6");
    //< ch10:patch
}

void cf_box_project_directional(double lambda_n, const double mu4[4], double lt[2])
{
    //> ch10:box-directional
    // BEGIN SOLUTION ch10.6
    double ln = fmax(lambda_n, 0.0);
    /* sliding along +t is resisted on the -t side: lower bound -mu_{+t}, upper bound mu_{-t} */
    for (int k = 0; k < 2; ++k) lt[k] = fmax(-mu4[k] * ln, fmin(lt[k], mu4[2 + k] * ln));
    // END SOLUTION
    // STUB ch10.6: CF_TODO("ch10.6");
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
    // BEGIN SOLUTION ch10.6
    const cfBsr *W = &p->W;
    cfStopReason why = CF_STOP_NONE;
    int k = 0;
    double res = r0;
    while (why == CF_STOP_NONE) {
        double dx = 0.0;
        for (int a = 0; a < p->nc; ++a)
            for (int i = 0; i < 3; ++i) {
                /* row i of contact a with the current r */
                double u = p->q[3 * a + i], wii = 1.0;
                for (int e = W->rowptr[a]; e < W->rowptr[a + 1]; ++e) {
                    const double *B = &W->val[9 * e], *rj = &r[3 * W->colidx[e]];
                    if (W->colidx[e] == a) wii = B[4 * i];
                    u += B[3 * i] * rj[0] + B[3 * i + 1] * rj[1] + B[3 * i + 2] * rj[2];
                }
                double *ra = &r[3 * a], old = ra[i], z = old - o->omega * u / wii;
                if (i == 0) {
                    ra[0] = fmax(0.0, z);
                } else {
                    /* this row's interval of the directional box at the current normal impulse */
                    double ln = fmax(ra[0], 0.0), lo = -mu4[4 * a + i - 1] * ln, hi = mu4[4 * a + i + 1] * ln;
                    ra[i] = fmax(lo, fmin(z, hi));
                }
                dx = fmax(dx, fabs(ra[i] - old));
            }
        ++k;
        res = cf_fc_texture_residual(p, mu4, r);
        if (rep) cf_report_push(rep, res);
        why = cf_split_stop(o, k, r0, res, dx);
    }
    st = cf_split_finish(rep, why, k, res);
    // END SOLUTION
    // STUB ch10.6: st = CF_TODO_S("ch10.6");
    //< ch10:texture-pgs
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
