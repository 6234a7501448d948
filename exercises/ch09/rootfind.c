/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.7 (part 2): the momentum balance of paper 003 as root finding:
   BiCGSTAB, damped Newton with backtracking on 1/2 |r|^2 (direct, or inexact with
   Eisenstat-Walker forcing and dual-number Jacobian products), and the BE, TR, BDF2 and SDIRK2
   steps with the adaptive stiffness bump.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch09.h"
#include "cf/cf_linalg.h"

cfStatus cf_bicgstab(int n, cfMatVec A, void *ctx, const double *b, double *x, double tol, int max_iter, int *iters)
{
    //> ch09:bicgstab
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    return CF_TODO_S("ch09.7");
    //< ch09:bicgstab
}


cfStatus cf_implicit_newton(const cfImplicitSystem *s, const cfImplicitStage *stage, double *v, const cfImplicitOptions *opt,
                        cfImplicitStats *st)
{
    //> ch09:soft-newton
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    return CF_TODO_S("ch09.7");
    //< ch09:soft-newton
}


cfStatus cf_implicit_step(cfImplicitSystem *s, cfImplicitIntegrator integ, const cfImplicitOptions *opt, cfImplicitStats *st)
{
    //> ch09:soft-step
    // TODO(ch09.7): implement this; the specification is in cf_ch09.h
    return CF_TODO_S("ch09.7");
    //< ch09:soft-step
}
