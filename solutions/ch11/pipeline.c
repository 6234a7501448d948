/* SPDX-License-Identifier: MIT */
/* Chapter 11, exercise ch11.1: one step of the world as a transaction over its stages (detect,
   contacts, velocities, assemble, solve, positions, stabilize). Specification:
   lib/include/cf/cf_ch11.h; text: chapters/ch11/README.md. */
#include "cf/cf_ch11.h"

cfStatus cf_pipeline_step(const cfStepOps *ops)
{
    if (!ops || !ops->seconds || !ops->save || !ops->restore || !ops->finite || !ops->commit) return CF_BAD_INPUT;
    for (int k = 0; k < CF_STEP_STAGES; ++k)
        if (!ops->stage[k]) return CF_BAD_INPUT;
    //> ch11:pipeline
    // BEGIN SOLUTION ch11.1
    cfStatus st = ops->save(ops->ctx);
    if (st != CF_OK) return st;
    for (int k = 0; k < CF_STEP_STAGES && st == CF_OK; ++k) {
        double t0 = cf_seconds();
        st = ops->stage[k](ops->ctx);
        ops->seconds[k] += cf_seconds() - t0;
    }
    if (st == CF_OK) st = ops->finite(ops->ctx);
    if (st == CF_OK) ops->commit(ops->ctx);
    else ops->restore(ops->ctx);
    return st;
    // END SOLUTION
    // STUB ch11.1: return CF_TODO_S("ch11.1");
    //< ch11:pipeline
}
