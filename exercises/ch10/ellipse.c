/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.2: the friction ellipse: the closest point by bisection (chapter 7's
   ellipsoid in the plane) and the force of maximal dissipation. Specification:
   lib/include/cf/cf_ch10.h; text: chapters/ch10/README.md. */
#include <math.h>

#include "cf/cf_ch10.h"


int cf_ellipse_project(const double axes[2], const double z[2], double tol, double x[2])
{
    //> ch10:ellipse-project
    // TODO(ch10.2): implement this; the specification is in cf_ch10.h
    return CF_TODO_I("ch10.2");
    //< ch10:ellipse-project
}

void cf_ellipse_max_dissipation(const double mu_tb[2], double lambda_n, const double v[2], double f[2])
{
    //> ch10:max-dissipation
    // TODO(ch10.2): implement this; the specification is in cf_ch10.h
    CF_TODO("ch10.2");
    //< ch10:max-dissipation
}
