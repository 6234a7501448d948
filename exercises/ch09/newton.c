/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.4: projection of a symmetric matrix to PSD and projected Newton
   (Algorithm 18; gradient descent, Algorithm 17, on request) on the incremental potential.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch09.h"
#include "cf/cf_linalg.h"

cfStatus cf_psd_project(int n, double *A)
{
    //> ch09:psd-project
    // TODO(ch09.4): implement this; the specification is in cf_ch09.h
    return CF_TODO_S("ch09.4");
    //< ch09:psd-project
}

cfStatus cf_ipc_newton(cfIpcSystem *s, double *q, const cfIpcOptions *opt, cfIpcStats *st)
{
    //> ch09:newton
    // TODO(ch09.4): implement this; the specification is in cf_ch09.h
    return CF_TODO_S("ch09.4");
    //< ch09:newton
}
