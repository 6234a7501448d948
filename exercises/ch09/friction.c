/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.6: IPC's smoothed friction: the mollifier f1 with its potential f0,
   and the lagged dissipative potential of one pair with its gradient and Hessian.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>
#include <string.h>

#include "cf/cf_ch09.h"

double cf_friction_f1(double s, double a, double *df1, double *f0)
{
    //> ch09:mollifier
    // TODO(ch09.6): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.6");
    //< ch09:mollifier
}

double cf_ipc_pair_friction(const cfIpcFrictionPair *p, const double dx[12], double mu, double a, double g[12],
                            double H[144])
{
    //> ch09:pair-friction
    // TODO(ch09.6): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.6");
    //< ch09:pair-friction
}
