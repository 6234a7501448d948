/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.1: classical penalty contact: the normal spring-damper with
   Moore-Wilhelms restitution, regularized Coulomb friction and anchor-spring friction.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>

#include "cf/cf_ch09.h"

double cf_penalty_normal(double k, double b, double eps, double phi, double vn)
{
    //> ch09:penalty-normal
    // BEGIN SOLUTION ch09.1
    if (phi >= 0.0) return 0.0;
    double k_eff = vn > 0.0 ? eps * k : k; /* receding: a softer spring returns less energy */
    double lambda = k_eff * (-phi) - b * vn;
    return lambda > 0.0 ? lambda : 0.0; /* a contact pushes, never pulls */
    // END SOLUTION
    // STUB ch09.1: return CF_TODO_F("ch09.1");
    //< ch09:penalty-normal
}

cfVec3 cf_penalty_friction(cfVec3 vt, double kf, double mu, double fn)
{
    //> ch09:penalty-friction
    // BEGIN SOLUTION ch09.1
    double s = cfu_norm(vt);
    if (s == 0.0) return cfu_zero3();
    double c = fmin(kf, mu * fn / s); /* viscous below mu fn / kf, Coulomb's bound above */
    return cfu_scale(-c, vt);
    // END SOLUTION
    // STUB ch09.1: CF_TODO("ch09.1");
    // STUB ch09.1: return cfu_zero3();
    //< ch09:penalty-friction
}

int cf_penalty_anchor(cfVec3 *anchor, cfVec3 p, double kf, double mu, double fn, cfVec3 *f_out)
{
    //> ch09:penalty-anchor
    // BEGIN SOLUTION ch09.1
    cfVec3 e = cfu_sub(*anchor, p);
    double len = cfu_norm(e), bound = mu * fn;
    if (kf * len <= bound) {
        *f_out = cfu_scale(kf, e);
        return 0;
    }
    *anchor = cfu_mul_add(p, bound / (kf * len), e); /* dragged: the spring holds exactly mu fn */
    *f_out = cfu_scale(kf, cfu_sub(*anchor, p));
    return 1;
    // END SOLUTION
    // STUB ch09.1: return CF_TODO_I("ch09.1");
    //< ch09:penalty-anchor
}
