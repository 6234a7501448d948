/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.3 (second half): chapter 5's blocked Gauss-Seidel with the friction
   ellipse in the local solve. Specification: lib/include/cf/cf_ch10.h; text: chapters/ch10/README.md. */
#include <math.h>

#include "cf/cf_ch10.h"

double cf_contact_local_solve_ellipse(const double Waa[9], const double mu_tb[2], cfFrictionModel model,
                                      double omega, double u[3], double r[3])
{
    //> ch10:local-solve
    // BEGIN SOLUTION ch10.3
    const double *W = Waa;
    double old[3] = {r[0], r[1], r[2]};
    double rn = fmax(0.0, r[0] - omega * u[0] / W[0]), dn = rn - r[0];
    for (int i = 0; i < 3; ++i) u[i] += W[3 * i] * dn;
    r[0] = rn;
    double axes[2] = {mu_tb[0] * rn, mu_tb[1] * rn};
    if (model == CF_FRICTION_BOX) {
        /* the anisotropic pyramid: each tangent in its own interval, u refreshed in between */
        for (int k = 1; k < 3; ++k) {
            double h = axes[k - 1], rk = fmax(-h, fmin(r[k] - omega * u[k] / W[4 * k], h)), d = rk - r[k];
            for (int i = 0; i < 3; ++i) u[i] += W[3 * i + k] * d;
            r[k] = rk;
        }
    } else {
        double a = W[4], b = W[5], c = W[8], det = a * c - b * b, rt[2];
        bool stick = false;
        if (det > 1e-14 * (a * c)) {
            rt[0] = r[1] - (c * u[1] - b * u[2]) / det;
            rt[1] = r[2] - (-b * u[1] + a * u[2]) / det;
            /* inside the ellipse (a zero axis holds only 0) */
            double f = 0.0;
            stick = true;
            for (int k = 0; k < 2; ++k) {
                if (axes[k] > 0.0) f += (rt[k] / axes[k]) * (rt[k] / axes[k]);
                else stick &= rt[k] == 0.0;
            }
            stick &= f <= 1.0;
        }
        if (!stick) {
            double sigma = 0.5 * (a + c) + sqrt(0.25 * (a - c) * (a - c) + b * b), z[2];
            z[0] = r[1] - omega * u[1] / sigma;
            z[1] = r[2] - omega * u[2] / sigma;
            cf_ellipse_project(axes, z, 1e-15, rt);
        }
        double d1 = rt[0] - r[1], d2 = rt[1] - r[2];
        for (int i = 0; i < 3; ++i) u[i] += W[3 * i + 1] * d1 + W[3 * i + 2] * d2;
        r[1] = rt[0];
        r[2] = rt[1];
    }
    return fmax(fabs(r[0] - old[0]), fmax(fabs(r[1] - old[1]), fabs(r[2] - old[2])));
    // END SOLUTION
    // STUB ch10.3: (void)Waa; (void)mu_tb; (void)model; (void)omega; (void)u; (void)r;
    // STUB ch10.3: return CF_TODO_F("ch10.3");
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
    // BEGIN SOLUTION ch10.3
    const cfBsr *W = &p->W;
    cfStopReason why = CF_STOP_NONE;
    int k = 0;
    double res = r0;
    while (why == CF_STOP_NONE) {
        double dx = 0.0;
        for (int a = 0; a < p->nc; ++a) {
            double u[3] = {p->q[3 * a], p->q[3 * a + 1], p->q[3 * a + 2]}, mu_tb[2];
            const double *Waa = NULL;
            for (int e = W->rowptr[a]; e < W->rowptr[a + 1]; ++e) {
                const double *B = &W->val[9 * e], *rj = &r[3 * W->colidx[e]];
                if (W->colidx[e] == a) Waa = B;
                for (int i = 0; i < 3; ++i) u[i] += B[3 * i] * rj[0] + B[3 * i + 1] * rj[1] + B[3 * i + 2] * rj[2];
            }
            cf_fc_ellipse_of(p, a, mu_tb);
            dx = fmax(dx, cf_contact_local_solve_ellipse(Waa, mu_tb, o->friction, o->omega, u, &r[3 * a]));
        }
        ++k;
        res = residual(p, r);
        if (rep) cf_report_push(rep, res);
        why = cf_split_stop(o, k, r0, res, dx);
    }
    st = cf_split_finish(rep, why, k, res);
    // END SOLUTION
    // STUB ch10.3: st = CF_TODO_S("ch10.3");
    //< ch10:bgs
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
