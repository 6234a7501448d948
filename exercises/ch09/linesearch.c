/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.5: the CCD-filtered backtracking line search (Algorithm 20) on
   chapter 3's continuous collision detection. Specification: lib/include/cf/cf_ch09.h; text:
   chapters/ch09/README.md. */
#include <math.h>
#include <string.h>

#include "cf/cf_ch03.h"
#include "cf/cf_ch09.h"


double cf_ipc_ccd_step(const cfIpcSystem *s, const double *q, const double *dq, double fraction)
{
    //> ch09:ccd-step
    // TODO(ch09.5): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.5");
    //< ch09:ccd-step
}

double cf_ipc_line_search(const cfIpcSystem *s, const double *q, const double *dq, double f0, const cfIpcOptions *opt,
                          double *q_new, int *halvings, bool *clamped)
{
    //> ch09:line-search
    // TODO(ch09.5): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.5");
    //< ch09:line-search
}
