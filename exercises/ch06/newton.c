/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.2: the damped non-smooth Newton loop (Newton direction, Armijo
   back-tracking on theta = |H|^2 / 2, a steepest-descent fallback) and the min-map
   reformulation of the LCP. Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch06.h"

cfStatus cf_lcp_minmap_eval(const cfLcp *p, const double *r, const double *x, double *H, cfTriplets *J)
{
    //> ch06:minmap-eval
    // TODO(ch06.2): implement this; the specification is in cf_ch06.h
    (void)p; (void)r; (void)x; (void)H; (void)J;
    return CF_TODO_S("ch06.2");
    //< ch06:minmap-eval
}


cfStatus cf_newton_solve(const cfNewtonSystem *sys, const cfNewtonOptions *o, double *x, cfReport *rep,
                         cfNewtonStats *stats)
{
    double t0 = cf_seconds();
    if (rep) cf_report_init(rep, rep->history, rep->history_cap);
    cfNewtonStats local = {0};
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    int n = sys->n;
    double r = sys->residual(sys->ctx, x);
    if (r <= o->tol) {
        if (rep) {
            rep->status = CF_OK;
            rep->reason = CF_STOP_ABSOLUTE;
            rep->residual = r;
            rep->seconds = cf_seconds() - t0;
        }
        return CF_OK;
    }
    cfStatus st = CF_MAX_ITER;
    cfStopReason why = CF_STOP_MAX_ITER;
    int k = 0;
    //> ch06:newton
    // TODO(ch06.2): implement this; the specification is in cf_ch06.h
    (void)n;
    st = CF_TODO_S("ch06.2");
    //< ch06:newton
    if (rep) {
        rep->status = st;
        rep->reason = st == CF_OK ? CF_STOP_ABSOLUTE : why;
        rep->iterations = k;
        rep->residual = r;
        rep->seconds = cf_seconds() - t0;
    }
    return st;
}
