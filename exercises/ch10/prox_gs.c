/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.3 (first half): anisotropic PROX-Gauss-Seidel, notes Algorithm 22:
   chapter 7's sweep with the cone made from the new normal impulse before each friction prox,
   inside the adaptive r loop. Specification: lib/include/cf/cf_ch10.h; text: chapters/ch10/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch10.h"

double cf_aniso_prox_gs_sweep(const cfProxProblem *p, const double *r, cfConeGenerator gen, void *ctx,
                              double ellipse_tol, const double *lambda, double *trial, double *w)
{
    //> ch10:prox-sweep
    // TODO(ch10.3): implement this; the specification is in cf_ch10.h
    (void)r; (void)gen; (void)ctx; (void)ellipse_tol; (void)lambda; (void)trial; (void)w;
    return CF_TODO_F("ch10.3");
    //< ch10:prox-sweep
}

cfStatus cf_aniso_prox_gs(const cfProxProblem *p, cfConeGenerator gen, void *ctx, const cfAnisoProxOptions *o,
                          double *lambda, cfReport *rep, int *rollbacks)
{
    double t0 = cf_seconds();
    if (rollbacks) *rollbacks = 0;
    cfProxOptions check = cf_prox_options_default();
    cfStatus st = o && p && p->dim == 3 && o->max_iter >= 0 && o->tol >= 0.0 && o->r > 0.0 && isfinite(o->r) &&
                          o->nu > 0.0 && o->nu <= 1.0 && o->scale_min > 0.0 && o->scale_min <= 1.0
                      ? cf_prox_check(p, lambda, &check, NULL)
                      : CF_BAD_INPUT;
    if (st != CF_OK) {
        if (rep) rep->status = st;
        return st;
    }
    int m = 3 * p->nc, k = 0;
    cfStopReason why = CF_STOP_NONE;
    double e_old = INFINITY;
    //> ch10:prox-loop
    // TODO(ch10.3): implement this; the specification is in cf_ch10.h
    (void)gen; (void)ctx; (void)m; (void)e_old;
    st = CF_TODO_S("ch10.3");
    if (rep) rep->status = st;
    return st;
    //< ch10:prox-loop
    st = why == CF_STOP_ABSOLUTE ? CF_OK : why == CF_STOP_DIVERGENCE ? CF_DIVERGED : CF_MAX_ITER;
    if (rep) {
        rep->status = st;
        rep->reason = why;
        rep->iterations = k;
        rep->residual = e_old;
        rep->measure = CF_MEASURE_IMPULSE_CHANGE;
        rep->seconds = cf_seconds() - t0;
    }
    return st;
}
