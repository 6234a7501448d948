/* SPDX-License-Identifier: MIT */
/* Chapter 7, exercise ch07.1: the proximal maps (projections) of the contact law: the normal
   cone's max(0, z), the friction disk, the friction cone and the box. Specification:
   lib/include/cf/cf_ch07.h; text: chapters/ch07/README.md. */
#include <math.h>

#include "cf/cf_ch07.h"

double cf_prox_normal(double z)
{
    //> ch07:prox-normal
    // BEGIN SOLUTION ch07.1
    return z > 0.0 ? z : 0.0;
    // END SOLUTION
    // STUB ch07.1: return CF_TODO_F("ch07.1");
    //< ch07:prox-normal
}

void cf_prox_disk(const double z[2], double radius, double out[2])
{
    //> ch07:prox-disk
    // BEGIN SOLUTION ch07.1
    double r = radius > 0.0 ? radius : 0.0;
    double m2 = z[0] * z[0] + z[1] * z[1];
    double s = 1.0;
    if (m2 > r * r) s = r / sqrt(m2); /* outside: scale back onto the rim */
    out[0] = s * z[0];
    out[1] = s * z[1];
    // END SOLUTION
    // STUB ch07.1: CF_TODO("ch07.1");
    //< ch07:prox-disk
}

void cf_prox_cone(const double z[3], double mu, double out[3])
{
    //> ch07:prox-cone
    // BEGIN SOLUTION ch07.1
    double zt = sqrt(z[1] * z[1] + z[2] * z[2]);
    if (zt <= mu * z[0] && z[0] >= 0.0) { /* inside the cone (z_n >= 0 matters when mu = 0) */
        out[0] = z[0];
        out[1] = z[1];
        out[2] = z[2];
    } else if (mu * zt <= -z[0]) { /* in the polar cone: the apex is closest */
        out[0] = out[1] = out[2] = 0.0;
    } else { /* onto the boundary ray in the plane of z and the axis */
        double xn = (mu * zt + z[0]) / (mu * mu + 1.0);
        double s = mu * xn / zt;
        out[0] = xn;
        out[1] = s * z[1];
        out[2] = s * z[2];
    }
    // END SOLUTION
    // STUB ch07.1: CF_TODO("ch07.1");
    //< ch07:prox-cone
}

void cf_prox_box(int n, const double *z, const double *hi, double *out)
{
    //> ch07:prox-box
    // BEGIN SOLUTION ch07.1
    for (int k = 0; k < n; ++k) {
        double h = hi[k] > 0.0 ? hi[k] : 0.0;
        out[k] = fmax(-h, fmin(z[k], h));
    }
    // END SOLUTION
    // STUB ch07.1: CF_TODO("ch07.1");
    //< ch07:prox-box
}
