/* SPDX-License-Identifier: MIT */
/* Demo ch09/world_incline: on a 30 degree slope with mu 0.8 the world's ipc pipeline creeps; beside it, the slot of paper 003's implicit friction. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch09_ipc_incline.json, a particle on a 30 degree slope with
 * mu = 0.8 > tan 30, where Coulomb's law sticks. Left, the ipc pipeline (lagged friction smoothed
 * below eps_v = 1 cm/s): it creeps at eps_v (1 - sqrt(1 - tan 30 / 0.8)) = 4.724 mm/s. Right, the
 * slot of paper 003's implicit friction (an implicit-soft pipeline over exercise ch09.7's
 * cf_implicit_step()): not in the world yet, so the slot is halted with a note. ch09.7's tests show
 * that it would creep too, at the speed its smoothing sets (on a plane, exactly as lagged friction).
 */

#define THETA (30.0 * CF_PI / 180.0)

typedef struct Data {
    double speed;    /* the ipc particle's speed in the last step (m/s) */
    double min_dist; /* over the run */
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    if (cfv_run_add_scene(run, "ch09_ipc_incline.json", "ipc, lagged friction: creeps", cfu_vec3(-1.8, 0, 0), err) < 0 ||
        cfv_run_add_scene(run, "ch09_ipc_incline.json", "implicit friction (ch09.7)", cfu_vec3(1.8, 0, 0), err) < 0)
        return CF_BAD_INPUT;
    cfv_run_halt(run, 1, "the implicit-soft pipeline (paper 003, exercise ch09.7) is not in the world yet");
    d->min_dist = INFINITY;
    cfv_run_set_camera(run, cfu_zero3(), -90, 15, 0);
    return CF_OK;
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    cfv_run_step_worlds(run);
    const cfWorld *w = cfv_run_world(run, 0);
    cfVec3 p = w->soft[0].x[0];
    d->speed = cfu_norm(w->soft[0].v[0]);
    d->min_dist = fmin(d->min_dist, w->stats.ipc.min_distance);
    cfv_run_mark(run, 0, CFV_MARK_POINT, p, p, 0xffa040, "particle");
    double creep = w->def.ipc.eps_v * (1.0 - sqrt(1.0 - tan(THETA) / 0.8));
    cfv_run_info(run, 0, "ipc: creep speed %.4f mm/s (predicted %.4f), smallest distance %.3e m", 1e3 * d->speed, 1e3 * creep,
                 d->min_dist);
    cfv_run_info(run, 1, "implicit friction (ch09.7): no world pipeline yet; its tests show a creep at the smoothing's speed");
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    const cfvSlot *s = &run->slot[0];
    double creep = s->w.def.ipc.eps_v * (1.0 - sqrt(1.0 - tan(THETA) / 0.8)), r = d->speed / creep;
    bool ok = !s->halted && s->crossings == 0 && d->min_dist > 0.0 && fabs(r - 1.0) < 0.05;
    snprintf(msg, cap, "ipc: creep speed / eps_v (1 - sqrt(1 - tan 30 / mu)) = %.4f (want 1 within 5 %%); %ld steps "
             "certified, %ld crossings (want 0)%s; smallest distance %.3e m (want > 0)",
             r, s->w.step, s->crossings, s->halted ? " (halted)" : "", d->min_dist);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_world_incline = {
    .id = "ch09/world_incline",
    .chapter = 9,
    .title = "mu 0.8 on a 30 degree slope: the world's ipc pipeline creeps at 0.47 eps_v; a slot for implicit friction (ch09.7)",
    .point_at = "the HUD's creep speed: Coulomb's law holds the particle (tan 30 < 0.8), IPC's lagged, smoothed friction "
                "has no static force and lets it creep; the right slot waits for paper 003's implicit friction",
    .keys = "space pause",
    .prediction = "the ipc particle creeps at eps_v (1 - sqrt(1 - tan 30 / 0.8)) within 5 %, no crossing in any step",
    .steps = 200,
    .data_size = sizeof(Data),
    .setup = setup,
    .step = step,
    .check = check,
};
