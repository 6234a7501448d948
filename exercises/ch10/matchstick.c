/* SPDX-License-Identifier: MIT */
/* Chapter 10, exercise ch10.1: the Matchstick cone generator (notes Algorithm 21 with projected
   directions and a clamped arc cosine): the frame and the ellipse of a contact from the structure
   directions of its two surfaces. Specification: lib/include/cf/cf_ch10.h; text:
   chapters/ch10/README.md. */
#include <math.h>

#include "cf/cf_ch02.h"
#include "cf/cf_ch10.h"


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
    // TODO(ch10.1): implement this; the specification is in cf_ch10.h
    return CF_TODO_S("ch10.1");
    //< ch10:matchstick
}
