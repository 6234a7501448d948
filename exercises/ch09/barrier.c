/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.2: the clamped log barrier of IPC and its derivatives.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>

#include "cf/cf_ch09.h"

double cf_ipc_barrier(double d, double dhat, double *db, double *d2b)
{
    //> ch09:barrier
    // TODO(ch09.2): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.2");
    //< ch09:barrier
}
