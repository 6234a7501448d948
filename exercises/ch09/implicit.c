/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.7 (part 1): paper 003's soft constraints: the cubic penalty, the
   stiffness bump, the sliding profiles, dual numbers, and the total force with friction whose
   normal force and tangent projector are evaluated at the end of the step, with its Jacobians.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch09.h"

double cf_cubic_penalty(double d, double delta, double kappa, double *db, double *d2b)
{
    //> ch09:cubic-penalty
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.7");
    //< ch09:cubic-penalty
}

double cf_implicit_bump(double d_min, double delta)
{
    //> ch09:bump
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.7");
    //< ch09:bump
}

double cf_slide_profile(cfSlideProfile p, double x, double eps, double *ds)
{
    //> ch09:slide-profile
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.7");
    //< ch09:slide-profile
}

double cf_volume_penalty(double V, double V0, double beta, double *dW)
{
    //> ch09:volume-penalty
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.7");
    //< ch09:volume-penalty
}

double cf_mesh_volume(int n, const double *q, int n_tri, const int (*tri)[3], double *grad)
{
    //> ch09:mesh-volume
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.7");
    //< ch09:mesh-volume
}

//> ch09:dual
cfDual cf_dual_mul(cfDual a, cfDual b)
{
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    CF_TODO("ch09.7");
    return cf_dual(0.0);
}

cfDual cf_dual_div(cfDual a, cfDual b)
{
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    CF_TODO("ch09.7");
    return cf_dual(0.0);
}

cfDual cf_dual_sqrt(cfDual a)
{
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    CF_TODO("ch09.7");
    return cf_dual(0.0);
}

cfDual cf_dual_log(cfDual a)
{
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    CF_TODO("ch09.7");
    return cf_dual(0.0);
}

cfDual cf_dual_pow(cfDual a, double p)
{
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    CF_TODO("ch09.7");
    return cf_dual(0.0);
}
//< ch09:dual


void cf_implicit_forces(const cfImplicitSystem *s, const cfDual *q, const cfDual *v, const double *q_lag, cfDual *f)
{
    //> ch09:soft-forces
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    CF_TODO("ch09.7");
    for (int p = 0; p < 3 * s->n; ++p) f[p] = cf_dual(0.0);
    //< ch09:soft-forces
}


cfStatus cf_implicit_force_jacobian(const cfImplicitSystem *s, const double *q, const double *v, const double *q_lag,
                                    double *K, double *D)
{
    //> ch09:soft-jacobian
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    return CF_TODO_S("ch09.7");
    //< ch09:soft-jacobian
}
