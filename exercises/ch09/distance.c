/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.3: unsigned point-triangle and edge-edge distances as affine stencils
   per region, the gradient and Hessian of d^2 by the envelope theorem, the edge-edge mollifier and
   the barrier of a pair.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>
#include <string.h>

#include "cf/cf_ch09.h"


double cf_dist2_point_triangle(const cfVec3 x[4], cfDistStencil *st)
{
    //> ch09:dist-pt
    // TODO(ch09.3): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.3");
    //< ch09:dist-pt
}

double cf_dist2_edge_edge(const cfVec3 x[4], cfDistStencil *st)
{
    //> ch09:dist-ee
    // TODO(ch09.3): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.3");
    //< ch09:dist-ee
}

double cf_dist2_derivatives(const cfVec3 x[4], const cfDistStencil *st, double g[12], double H[144])
{
    //> ch09:dist-derivatives
    // TODO(ch09.3): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.3");
    //< ch09:dist-derivatives
}

double cf_ee_mollifier(const cfVec3 x[4], double eps_x, double g[12], double H[144])
{
    //> ch09:ee-mollifier
    // TODO(ch09.3): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.3");
    //< ch09:ee-mollifier
}

double cf_ipc_pair_barrier(const cfVec3 x[4], const cfDistStencil *st, double dhat, double g[12], double H[144])
{
    //> ch09:pair-barrier
    // TODO(ch09.3): implement this; the specification is in cf_ch09.h
    return CF_TODO_F("ch09.3");
    //< ch09:pair-barrier
}
