/* SPDX-License-Identifier: MIT */
/* Chapter 7, exercise ch07.2: the closest point on an ellipsoid by bisection (notes Algorithm 13,
   corrected), and the friction set of one contact (disk, ellipse, Coulomb-Contensou ellipsoid or
   box). Specification: lib/include/cf/cf_ch07.h; text: chapters/ch07/README.md. */
#include <math.h>

#include "cf/cf_ch07.h"


int cf_prox_ellipsoid(const double abc[3], const double z[3], double tol, double x[3])
{
    //> ch07:ellipsoid
    // TODO(ch07.2): implement this; the specification is in cf_ch07.h
    return CF_TODO_I("ch07.2");
    //< ch07:ellipsoid
}

void cf_prox_friction(int n, const double *z, const double mu[3], double lambda_n, const double *r, bool box,
                      double tol, double *out)
{
    //> ch07:friction-set
    // TODO(ch07.2): implement this; the specification is in cf_ch07.h
    CF_TODO("ch07.2");
    //< ch07:friction-set
}
