/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.3: the (penalized) Fischer-Burmeister reformulation of the LCP.
   Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include "cf/cf_ch06.h"

cfStatus cf_lcp_fb_eval(const cfLcp *p, const double *r, double penalty, const double *x, double *H, cfTriplets *J)
{
    //> ch06:fb-eval
    // TODO(ch06.3): implement this; the specification is in cf_ch06.h
    (void)p; (void)r; (void)penalty; (void)x; (void)H; (void)J;
    return CF_TODO_S("ch06.3");
    //< ch06:fb-eval
}
