/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.1: the Matchstick cone generator (notes Algorithm 21 with projected
   directions and a clamped arc cosine): the frame and the ellipse of a contact from the structure
   directions of its two surfaces. Specification: lib/include/cf/cf_ch10.h; text:
   chapters/ch10/README.md. */
#include <math.h>

#include "cf/cf_ch02.h"
#include "cf/cf_ch10.h"

// BEGIN SOLUTION ch10.1
/* the unit projection of s on the plane of n; false when it has no tangential part */
static bool tangential(cfVec3 n, cfVec3 s, cfVec3 *out)
{
    cfVec3 p = cfu_sub(s, cfu_scale(cfu_dot(s, n), n));
    double len = cfu_norm(p);
    if (!(len > 1e-9 * cfu_norm(s))) return false;
    *out = cfu_scale(1.0 / len, p);
    return true;
}
// END SOLUTION

cfStatus cf_matchstick_cone(cfVec3 n, cfVec3 s_a, cfVec3 s_b, const cfMatchstick *m, cfVec3 *t, cfVec3 *b,
                            double mu_tb[2])
{
    if (!m || !t || !b || !mu_tb || !cfu_vec3_finite(n) || !cfu_vec3_finite(s_a) || !cfu_vec3_finite(s_b) ||
        !(fabs(cfu_norm(n) - 1.0) <= 1e-6))
        return CF_BAD_INPUT;
    if (!(isfinite(m->mu) && isfinite(m->mu_t) && isfinite(m->mu_b) && m->mu >= 0.0 && m->mu_t >= 0.0 &&
          m->mu_b >= 0.0))
        return CF_BAD_INPUT;
    //> ch10:matchstick
    // BEGIN SOLUTION ch10.1
    cfVec3 a, c;
    bool has_a = tangential(n, s_a, &a), has_b = tangential(n, s_b, &c);
    double d = 0.0; /* an unstructured surface: isotropic */
    if (has_a && has_b) {
        if (cfu_dot(a, c) < 0.0) c = cfu_neg(c); /* orientation only: flip s_B */
        double theta = acos(fmin(1.0, fmax(0.0, cfu_dot(a, c))));
        d = 1.0 - 2.0 * theta / CF_PI;
        *t = cfu_normalize(cfu_add(a, c)); /* |a + c| >= sqrt 2 after the flip */
    } else if (has_a || has_b) {
        *t = has_a ? a : c;
    } else {
        cfStatus st = cf_contact_frame(n, t, b);
        if (st != CF_OK) return st;
    }
    *b = cfu_cross(n, *t);
    mu_tb[0] = d * m->mu_t + (1.0 - d) * m->mu;
    mu_tb[1] = d * m->mu_b + (1.0 - d) * m->mu;
    return CF_OK;
    // END SOLUTION
    // STUB ch10.1: return CF_TODO_S("ch10.1");
    //< ch10:matchstick
}
