/* SPDX-License-Identifier: MIT */
/* Chapter 7, exercise ch07.4: the PROX-Gauss-Seidel sweep, blocked per contact, with the
   incremental matrix-free update of w (notes Algorithm 12, Eq. 231 fixed). Specification:
   lib/include/cf/cf_ch07.h; text: chapters/ch07/README.md. */
#include <math.h>
#include <string.h>

#include "cf/cf_ch07.h"

double cf_prox_gs_sweep(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                        const double *lambda, double *trial, double *w, double *v)
{
    (void)v; /* Gauss-Seidel reads each contact's velocity from the running w */
    //> ch07:gs-sweep
    // TODO(ch07.4): implement this; the specification is in cf_ch07.h
    return CF_TODO_F("ch07.4");
    //< ch07:gs-sweep
}
