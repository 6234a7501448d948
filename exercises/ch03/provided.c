/* SPDX-License-Identifier: MIT */
/* Chapter 3, provided (not an exercise; copied unchanged into exercises/ch03/ and not handed in):
   the cfSdf view of a sampled grid, evaluated by the student's cf_sdf_grid_eval() (ch03.6). */
#include "cf/cf_ch03.h"

static double eval_grid(const void *data, cfVec3 x, cfVec3 *grad) { return cf_sdf_grid_eval(data, x, grad); }

cfSdf cf_sdf_of_grid(const cfSdfGrid *g)
{
    cfSdf s = {eval_grid, g};
    return s;
}
