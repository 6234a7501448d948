/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.4: the mid-map reformulation of the boxed LCP with friction bounds
   that move with the normal impulse (findex). Specification: lib/include/cf/cf_ch06.h; text:
   chapters/ch06/README.md. */
#include <math.h>

#include "cf/cf_ch06.h"

cfStatus cf_blcp_midmap_eval(const cfBlcp *p, const double *r, const double *x, double *H, cfTriplets *J)
{
    //> ch06:midmap-eval
    // TODO(ch06.4): implement this; the specification is in cf_ch06.h
    (void)p; (void)r; (void)x; (void)H; (void)J;
    return CF_TODO_S("ch06.4");
    //< ch06:midmap-eval
}
