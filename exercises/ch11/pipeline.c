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
    // TODO(ch11.1): implement this; the specification is in cf_ch11.h
    return CF_TODO_S("ch11.1");
    //< ch11:pipeline
}
