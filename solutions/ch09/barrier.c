/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.2: the clamped log barrier of IPC and its derivatives.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>

#include "cf/cf_ch09.h"

double cf_ipc_barrier(double d, double dhat, double *db, double *d2b)
{
    //> ch09:barrier
    // BEGIN SOLUTION ch09.2
    double b1 = 0.0, b2 = 0.0, b = 0.0;
    if (!(d > 0.0)) { /* contact or penetration: infinite, and no ln of d <= 0 */
        b = INFINITY;
        b1 = -INFINITY;
        b2 = INFINITY;
    } else if (d < dhat) {
        double l = log(d / dhat), e = d - dhat, r = dhat / d;
        b = -e * e * l;
        b1 = -e * (2.0 * l - r + 1.0);
        b2 = (r + 2.0) * r - 2.0 * l - 3.0;
    }
    if (db) *db = b1;
    if (d2b) *d2b = b2;
    return b;
    // END SOLUTION
    // STUB ch09.2: return CF_TODO_F("ch09.2");
    //< ch09:barrier
}
