/* SPDX-License-Identifier: MIT */
/* The velocity pipeline's stages wired in order: each stage gets its inputs and outputs here and
   nowhere else (with a solver per island, the assemble, solve and stabilize stages are islands.c's);
   and the one driver that runs a range of them (the velocity step, CMR's rounds). */
#include "stages.h"

cfStatus cf_velocity_stage(cfWorld *w, cfStage s)
{
    struct cfStepWork *k = cf_step_work(w);
    if (!k) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    cfContactList *contacts = &w->contacts;
    switch (s) {
    case CF_STAGE_DETECT: return cf_stage_detect(w, &k->detect, contacts);
    case CF_STAGE_CONTACTS: return cf_stage_contacts(w, contacts);
    case CF_STAGE_VELOCITIES: return cf_stage_velocities(w, contacts, &k->soft);
    case CF_STAGE_ASSEMBLE:
        if (w->def.per_island) return cf_islands_assemble(w, contacts, &k->islands);
        return cf_stage_assemble(w, contacts, &k->soft, &k->as);
    case CF_STAGE_SOLVE:
        if (w->def.per_island) return cf_islands_solve(w, contacts, &k->islands, &k->as, &k->soft, &k->solve);
        return cf_stage_solve(w, contacts, &k->as, &k->soft, &k->solve);
    case CF_STAGE_POSITIONS: return cf_stage_positions(w, &k->soft);
    case CF_STAGE_STABILIZE:
        if (w->def.per_island) return cf_islands_stabilize(w, &k->islands);
        return cf_stage_stabilize(w, contacts, &k->as, &k->pv);
    case CF_STAGE_COUNT: break;
    }
    return CF_BAD_INPUT;
}

cfStatus cf_velocity_stages(cfWorld *w, cfStage first, cfStage last)
{
    cfStatus st = CF_OK;
    for (int s = (int)first; s <= (int)last && st == CF_OK; ++s) {
        double t0 = cf_seconds();
        st = cf_velocity_stage(w, (cfStage)s);
        w->stats.stage_seconds[s] += cf_seconds() - t0;
    }
    return st;
}
