/* SPDX-License-Identifier: MIT */
/* Chapter 3, exercise ch03.5: conservative CCD by interval inclusion and subdivision
   (Tight-Inclusion style). Specification: lib/include/cf/cf_ch03.h. */
#include "cf/cf_ch03.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* the multivariate map F at one point of the domain; *mag receives the largest |position|
   component used (for the rounding-error bound) */
static cfVec3 ccd_map(cfCcdKind kind, const cfVec3 x[4], const cfVec3 u[4], double t, double p, double q,
                      double *mag)
{
    cfVec3 y[4];
    double m = 0.0;
    for (int k = 0; k < 4; ++k) {
        y[k] = cfu_mul_add(x[k], t, u[k]);
        m = fmax(m, fmax(fabs(y[k].x), fmax(fabs(y[k].y), fabs(y[k].z))));
    }
    *mag = m;
    if (kind == CF_CCD_VF) {
        /* (1 - p - q) y0 + p y1 + q y2 - y3 */
        cfVec3 s = cfu_scale(1.0 - p - q, y[0]);
        s = cfu_mul_add(s, p, y[1]);
        s = cfu_mul_add(s, q, y[2]);
        return cfu_sub(s, y[3]);
    }
    /* y0 + p (y1 - y0) - y2 - q (y3 - y2) */
    cfVec3 a = cfu_mul_add(y[0], p, cfu_sub(y[1], y[0]));
    cfVec3 b = cfu_mul_add(y[2], q, cfu_sub(y[3], y[2]));
    return cfu_sub(a, b);
}

void cf_ccd_inclusion_bounds(cfCcdKind kind, const cfVec3 x[4], const cfVec3 u[4], const cfBox3 *dom, cfAabb *img)
{
    //> ch03:inclusion-bounds
    // TODO(ch03.5): implement this; the specification is in cf_ch03.h
    CF_TODO("ch03.5");
    img->lo = img->hi = cfu_zero3();
    //< ch03:inclusion-bounds
}


cfCcdResult cf_ccd_inclusion(cfCcdKind kind, const cfVec3 x[4], const cfVec3 u[4], double h, double delta,
                             int max_boxes)
{
    //> ch03:inclusion
    // TODO(ch03.5): implement this; the specification is in cf_ch03.h
    CF_TODO("ch03.5");
    cfCcdResult none = {CF_CCD_MISS, h, {0, 0, 0}, {0, 0, 0}, 0, 0, 0};
    return none;
    //< ch03:inclusion
}
