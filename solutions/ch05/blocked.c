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
    // BEGIN SOLUTION ch05.5
    const double *W = Waa;
    double old[3] = {r[0], r[1], r[2]};
    /* 1. normal row: Signorini by projection onto [0, inf) */
    double rn = fmax(0.0, r[0] - omega * u[0] / W[0]);
    double dn = rn - r[0];
    for (int i = 0; i < 3; ++i) u[i] += W[3 * i] * dn;
    r[0] = rn;
    double radius = mu * rn;
    if (model == CF_FRICTION_BOX) {
        /* 2b. each tangent row clamped to [-mu r_n, mu r_n], velocity refreshed in between */
        for (int k = 1; k < 3; ++k) {
            double rk = fmax(-radius, fmin(r[k] - omega * u[k] / W[4 * k], radius));
            double d = rk - r[k];
            for (int i = 0; i < 3; ++i) u[i] += W[3 * i + k] * d;
            r[k] = rk;
        }
    } else {
        /* 2a. stick candidate from the 2x2 tangent block, else a projected gradient step */
        double a = W[4], b = W[5], c = W[8]; /* W_TT = [[a, b], [b, c]] */
        double det = a * c - b * b;
        double rt[2];
        bool stick = false;
        if (det > 1e-14 * (a * c)) {
            rt[0] = r[1] - (c * u[1] - b * u[2]) / det;
            rt[1] = r[2] - (-b * u[1] + a * u[2]) / det;
            stick = rt[0] * rt[0] + rt[1] * rt[1] <= radius * radius; /* |rt| <= radius, without a square root */
        }
        if (!stick) {
            double sigma = 0.5 * (a + c) + sqrt(0.25 * (a - c) * (a - c) + b * b); /* largest eigenvalue */
            rt[0] = r[1] - omega * u[1] / sigma;
            rt[1] = r[2] - omega * u[2] / sigma;
            cf_disk_project(rt, radius);
        }
        double d1 = rt[0] - r[1], d2 = rt[1] - r[2];
        for (int i = 0; i < 3; ++i) u[i] += W[3 * i + 1] * d1 + W[3 * i + 2] * d2;
        r[1] = rt[0];
        r[2] = rt[1];
    }
    return fmax(fabs(r[0] - old[0]), fmax(fabs(r[1] - old[1]), fabs(r[2] - old[2])));
    // END SOLUTION
    // STUB ch05.5: return CF_TODO_F("ch05.5");
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
    // BEGIN SOLUTION ch05.5
    const cfBsr *W = &p->W;
    cfStopReason why = CF_STOP_NONE;
    int k = 0;
    double res = r0;
    while (why == CF_STOP_NONE) {
        double dx = 0.0;
        for (int a = 0; a < p->nc; ++a) {
            /* u_a = q_a + sum_j W_aj r_j with the current r (plus sign: the listing's minus is an erratum) */
            double u[3] = {p->q[3 * a], p->q[3 * a + 1], p->q[3 * a + 2]};
            const double *Waa = NULL;
            for (int e = W->rowptr[a]; e < W->rowptr[a + 1]; ++e) {
                const double *B = &W->val[9 * e];
                const double *rj = &r[3 * W->colidx[e]];
                if (W->colidx[e] == a) Waa = B;
                for (int i = 0; i < 3; ++i) u[i] += B[3 * i] * rj[0] + B[3 * i + 1] * rj[1] + B[3 * i + 2] * rj[2];
            }
            dx = fmax(dx, cf_contact_local_solve(Waa, p->mu[a], o->friction, o->omega, u, &r[3 * a]));
        }
        ++k;
        res = residual(p, r);
        if (rep) cf_report_push(rep, res);
        why = cf_split_stop(o, k, r0, res, dx);
    }
    st = cf_split_finish(rep, why, k, res);
    // END SOLUTION
    // STUB ch05.5: st = CF_TODO_S("ch05.5");
    //< ch05:bgs
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
