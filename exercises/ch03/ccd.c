/* SPDX-License-Identifier: MIT */
/* Chapter 3, exercise ch03.4: vertex-face and edge-edge CCD through the coplanarity cubic with
   robust root isolation. Specification: lib/include/cf/cf_ch03.h. */
#include "cf/cf_ch03.h"

#include <string.h>

/* f(t) by Horner's rule */
static double cubic_eval(const double c[4], double t) { return ((c[3] * t + c[2]) * t + c[1]) * t + c[0]; }

static cfCcdResult ccd_miss(double h)
{
    cfCcdResult r;
    memset(&r, 0, sizeof r);
    r.status = CF_CCD_MISS;
    r.toi = h;
    return r;
}

/* x_k(t) = x_k + t u_k */
static cfVec3 at(const cfVec3 x[4], const cfVec3 u[4], int k, double t) { return cfu_mul_add(x[k], t, u[k]); }

int cf_cubic_roots(const double c[4], double t0, double t1, double tol, double roots[3])
{
    //> ch03:cubic-roots
    // TODO(ch03.4): implement this; the specification is in cf_ch03.h
    return CF_TODO_I("ch03.4");
    //< ch03:cubic-roots
}

void cf_ccd_cubic(const cfVec3 x[4], const cfVec3 u[4], double c[4])
{
    //> ch03:ccd-cubic
    // TODO(ch03.4): implement this; the specification is in cf_ch03.h
    CF_TODO("ch03.4");
    c[0] = c[1] = c[2] = c[3] = 0.0;
    //< ch03:ccd-cubic
}


cfCcdResult cf_ccd_vertex_face(const cfVec3 x[4], const cfVec3 u[4], double h)
{
    //> ch03:ccd-vf
    // TODO(ch03.4): implement this; the specification is in cf_ch03.h
    CF_TODO("ch03.4");
    return ccd_miss(h);
    //< ch03:ccd-vf
}

cfCcdResult cf_ccd_edge_edge(const cfVec3 x[4], const cfVec3 u[4], double h)
{
    //> ch03:ccd-ee
    // TODO(ch03.4): implement this; the specification is in cf_ch03.h
    CF_TODO("ch03.4");
    return ccd_miss(h);
    //< ch03:ccd-ee
}
