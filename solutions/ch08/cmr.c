/* SPDX-License-Identifier: MIT */
/* Chapter 8, exercise ch08.6: constraint manifold refinement (Otaduy et al. 2009, section 4):
   response, tentative positions, CCD, new constraints, at most max_rounds times; a step that
   stays colliding is halved, at most max_halvings times. Specification: lib/include/cf/cf_ch08.h;
   text: chapters/ch08/README.md. */
#include "cf/cf_ch08.h"

#include <string.h>

//> ch08:cmr
// BEGIN SOLUTION ch08.6
/* one (sub)step of length dt at halving depth `depth` */
static cfStatus cmr_substep(const cfCmrOps *ops, const cfCmrOptions *o, double dt, int depth, cfCmrStats *st)
{
    if (depth > st->halvings) st->halvings = depth;
    cfStatus r = ops->begin(ops->ctx, dt);
    if (r != CF_OK) return r;
    int round = 0;
    int added = 0, colliding = 0;
    while (round < o->max_rounds) {
        ++round;
        st->rounds_total++;
        if ((r = ops->respond(ops->ctx)) != CF_OK) return r;
        if ((r = ops->advance(ops->ctx)) != CF_OK) return r;
        if ((r = ops->collide(ops->ctx, &added, &colliding)) != CF_OK) return r;
        if (added == 0 && colliding == 0) { /* collision-free */
            st->rounds[round]++;
            st->substeps++;
            return ops->commit(ops->ctx);
        }
        if (added == 0) break; /* nothing new to constrain: more rounds give the same answer */
    }
    if (depth < o->max_halvings) {
        if ((r = ops->restore(ops->ctx)) != CF_OK) return r;
        r = cmr_substep(ops, o, 0.5 * dt, depth + 1, st);
        return r == CF_OK ? cmr_substep(ops, o, 0.5 * dt, depth + 1, st) : r;
    }
    st->rounds[round]++;
    st->substeps++;
    st->unresolved++;
    return ops->commit(ops->ctx);
}
// END SOLUTION
//< ch08:cmr

cfStatus cf_cmr_step(const cfCmrOps *ops, const cfCmrOptions *o, double dt, cfCmrStats *st)
{
    if (st) memset(st, 0, sizeof *st);
    if (!ops || !o || !st || !(isfinite(dt) && dt > 0.0) || o->max_rounds < 1 || o->max_rounds > CF_CMR_MAX_ROUNDS ||
        o->max_halvings < 0 || o->max_halvings > 20 || !ops->begin || !ops->respond || !ops->advance || !ops->collide ||
        !ops->commit || !ops->restore)
        return CF_BAD_INPUT;
    //> ch08:cmr-step
    // BEGIN SOLUTION ch08.6
    return cmr_substep(ops, o, dt, 0, st);
    // END SOLUTION
    // STUB ch08.6: return CF_TODO_S("ch08.6");
    //< ch08:cmr-step
}
