/* SPDX-License-Identifier: MIT */
/* Chapter 7, exercise ch07.5: the r-factor strategies (global, local, blocked), the power
   iteration for |A|_2 without assembling A, the adaptive accept/reject rule and the accuracy
   bound. Specification: lib/include/cf/cf_ch07.h; text: chapters/ch07/README.md. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch07.h"
#include "cf/cf_rng.h"

double cf_prox_norm_estimate(const cfProxProblem *p, int max_iter, double tol)
{
    //> ch07:power
    // TODO(ch07.5): implement this; the specification is in cf_ch07.h
    return CF_TODO_F("ch07.5");
    //< ch07:power
}


cfStatus cf_prox_r_init(const cfProxProblem *p, const cfProxOptions *o, double *R)
{
    //> ch07:r-init
    // TODO(ch07.5): implement this; the specification is in cf_ch07.h
    return CF_TODO_S("ch07.5");
    //< ch07:r-init
}

bool cf_prox_accept(const cfProxOptions *o, cfProxAdapt *ad, double e_new)
{
    //> ch07:accept
    // TODO(ch07.5): implement this; the specification is in cf_ch07.h
    return CF_TODO_I("ch07.5");
    //< ch07:accept
}

double cf_prox_tol_bound(double r_max, double norm_A, double norm_lambda)
{
    // TODO(ch07.5): implement this; the specification is in cf_ch07.h
    return CF_TODO_F("ch07.5");
}
