/* SPDX-License-Identifier: MIT */
/* Demo ch09/world_incline: on a 30 degree slope with mu 0.8 the world's ipc pipeline (lagged friction) and its
   implicit-soft pipeline (paper 003's implicit friction) both creep, at the speed their smoothing sets. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: a particle on a 30 degree slope with mu = 0.8 > tan 30, where
 * Coulomb's law sticks. Left, scenes/ch09_ipc_incline.json under the ipc pipeline (lagged friction
 * smoothed below eps_v = 1 cm/s): it creeps at eps_v (1 - sqrt(1 - tan 30 / 0.8)) = 4.724 mm/s.
 * Right, scenes/ch09_implicit_incline.json, the same particle and slope (a plane) under the
 * implicit-soft pipeline (paper 003, ch09.7's cf_implicit_step()): friction's normal force and
 * direction are taken at the end of the step, and still it does not stop: its friction is smoothed
 * below eps = 1 cm/s by s_a and has no static force, so it creeps at the x with s_a(x) = tan 30 / 0.8,
 * the same eps (1 - sqrt(1 - tan 30 / 0.8)) = 4.724 mm/s. The creep belongs to the smoothing, not
 * to the lag; the two frictions differ in the transient, not in this steady state.
 */

#define THETA (30.0 * CF_PI / 180.0)

typedef struct Data {
    double speed[2]; /* each particle's speed in the last step (m/s) */
    double min_dist; /* the ipc particle's smallest pair distance over the run */
    double min_gap;  /* the implicit particle's smallest gap to the plane over the run */
} Data;

/* the creep speed of a smoothing speed eps: s(x) = tan 30 / mu for both slots' profile (s_a, IPC's f1) */
static double creep(double eps) { return eps * (1.0 - sqrt(1.0 - tan(THETA) / 0.8)); }

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    if (cfv_run_add_scene(run, "ch09_ipc_incline.json", "ipc, lagged friction: creeps", cfu_vec3(0, -1.2, 0), err) < 0 ||
        cfv_run_add_scene(run, "ch09_implicit_incline.json", "implicit-soft, implicit friction: creeps too",
                          cfu_vec3(0, 1.2, 0), err) < 0)
        return CF_BAD_INPUT;
    d->min_dist = d->min_gap = INFINITY;
    for (int k = 0; k < 2; ++k) cfv_run_subject_soft(run, k, 0); /* the particles */
    cfv_run_subject(run, 0, 0);                                   /* the ipc world's slope */
    cfv_run_subject_region(run, 1, cfu_vec3(-0.6, -0.4, -0.4), cfu_vec3(0.6, 0.4, 0.3)); /* the plane around the particle */
    /* the slopes go down towards +x: seen from above them */
    cfv_run_set_camera(run, cfu_zero3(), -55, 28, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    for (int i = 0; i < 2; ++i) {
        const cfWorld *w = cfv_run_world(run, i);
        cfVec3 p = w->soft[0].x[0];
        d->speed[i] = cfu_norm(w->soft[0].v[0]);
        (void)p;
    }
    const cfWorld *wi = cfv_run_world(run, 0), *wm = cfv_run_world(run, 1);
    d->min_dist = fmin(d->min_dist, wi->stats.ipc.min_distance);
    d->min_gap = fmin(d->min_gap, wm->stats.implicit.min_gap);
    cfv_run_info(run, 0, "ipc: creep speed %.4f mm/s (predicted %.4f), smallest distance %.3e m", 1e3 * d->speed[0],
                 1e3 * creep(wi->def.ipc.eps_v), d->min_dist);
    cfv_run_info(run, 1, "implicit-soft: creep speed %.4f mm/s (predicted %.4f: it creeps, it does not stop), smallest "
                 "gap %.3e m, %d Newton iterations", 1e3 * d->speed[1], 1e3 * creep(wm->def.implicit.eps), d->min_gap,
                 wm->stats.solver_iterations);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    const cfvSlot *s = &run->slot[0], *m = &run->slot[1];
    double r = d->speed[0] / creep(s->w.def.ipc.eps_v), rm = d->speed[1] / creep(m->w.def.implicit.eps);
    bool ok = !s->halted && s->crossings == 0 && d->min_dist > 0.0 && fabs(r - 1.0) < 0.05 && !m->halted &&
              d->min_gap > 0.0 && fabs(rm - 1.0) < 1e-6;
    snprintf(msg, cap, "ipc: creep speed / eps_v (1 - sqrt(1 - tan 30 / mu)) = %.4f (want 1 within 5 %%); %ld steps "
             "certified, %ld crossings (want 0)%s; smallest distance %.3e m (want > 0); implicit-soft: creep speed / "
             "eps (1 - sqrt(1 - tan 30 / mu)) = %.8f (want 1 within 1e-6: it creeps, not stops)%s, smallest gap %.3e m "
             "(want > 0)",
             r, s->w.step, s->crossings, s->halted ? " (halted)" : "", d->min_dist, rm, m->halted ? " (halted)" : "",
             d->min_gap);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch09_world_incline = {
    .id = "ch09/world_incline",
    .chapter = 9,
    .title = "mu 0.8 on 30 degrees: lagged (ipc) and implicit (implicit-soft) friction both creep at 0.47 eps",
    .point_at = "the HUD's creep speeds: Coulomb's law holds the particle (tan 30 < 0.8), yet both smoothed frictions have "
                "no static force; taking friction at the end of the step (right) does not make it stop",
    .keys = "pause,restart",
    .prediction = "both particles creep at eps (1 - sqrt(1 - tan 30 / 0.8)): ipc within 5 % with no crossing in any step, "
                  "implicit-soft to 1e-6",
    .steps = 200,
    CFV_DEMO_HOOKS,
};
