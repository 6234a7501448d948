/* SPDX-License-Identifier: MIT */
/* Chapter 8, exercise ch08.6: constraint manifold refinement (Otaduy et al. 2009, section 4):
   response, tentative positions, CCD, new constraints, at most max_rounds times; a step that
   stays colliding is halved, at most max_halvings times. Specification: lib/include/cf/cf_ch08.h;
   text: chapters/ch08/README.md. */
#include "cf/cf_ch08.h"

#include <string.h>

//> ch08:cmr
//< ch08:cmr

cfStatus cf_cmr_step(const cfCmrOps *ops, const cfCmrOptions *o, double dt, cfCmrStats *st)
{
    if (st) memset(st, 0, sizeof *st);
    if (!ops || !o || !st || !(isfinite(dt) && dt > 0.0) || o->max_rounds < 1 || o->max_rounds > CF_CMR_MAX_ROUNDS ||
        o->max_halvings < 0 || o->max_halvings > 20 || !ops->begin || !ops->respond || !ops->advance || !ops->collide ||
        !ops->commit || !ops->restore)
        return CF_BAD_INPUT;
    //> ch08:cmr-step
    // TODO(ch08.6): implement this; the specification is in cf_ch08.h
    return CF_TODO_S("ch08.6");
    //< ch08:cmr-step
}
