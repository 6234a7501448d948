/* SPDX-License-Identifier: MIT */
/* Demo ch11/showcase: the capstone scene, rigid boxes, jelly and a cloth in one assembled problem, checked after 3 s. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch11_showcase.json, the scene `make demo` opens. Three rigid
 * boxes, two jelly blocks of co-rotational tetrahedra and a 10 x 10 cloth fall on each other and on
 * the ground; every contact between them (rigid-rigid, rigid-soft, soft-soft, cloth-cloth) is a row
 * of one assembled problem, solved by the scene's pgs-blocked. The pile settles: this demo checks
 * the scene's expect line, which `make demo` shows but does not check.
 */

typedef struct Data {
    double speed;  /* the fastest rigid body's centre (m/s) */
    double lowest; /* the lowest rigid-box corner or soft node (m; the ground is z = 0) */
    long n;
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    if (cfv_run_add_scene(run, "ch11_showcase.json", "the showcase, pgs-blocked", cfu_zero3(), err) < 0)
        return CF_BAD_INPUT;
    cfv_run_subject(run, 0, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -60, 20, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    d->speed = 0.0;
    d->lowest = INFINITY;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (b->fixed) continue;
        d->speed = fmax(d->speed, cfu_norm(b->v));
        if (b->shape.type != CF_SHAPE_BOX) continue;
        cfVec3 h = b->shape.half_extents;
        for (int k = 0; k < 8; ++k) {
            cfVec3 c = cfu_vec3(k & 1 ? h.x : -h.x, k & 2 ? h.y : -h.y, k & 4 ? h.z : -h.z);
            d->lowest = fmin(d->lowest, cfu_add(b->x, cfu_quat_rotate(b->q, c)).z);
        }
    }
    for (int i = 0; i < w->n_soft; ++i)
        for (int k = 0; k < w->soft[i].n_nodes; ++k) d->lowest = fmin(d->lowest, w->soft[i].x[k].z);
    d->n++;
    cfv_run_info(run, 0, "fastest box %.1f mm/s; lowest corner or node %.2f mm; %d contacts", 1e3 * d->speed,
                 1e3 * d->lowest, w->contacts.count);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    /* "below the ground": deeper than the 5 mm contact margin the scene gives its detector */
    snprintf(msg, cap, "after %ld steps the fastest rigid body's centre moves at %.4f m/s (want < 0.05), the lowest "
             "corner or node is at z = %.4f m (want > -0.005)", d->n, d->speed, d->lowest);
    return d->n > 0 && d->speed < 0.05 && d->lowest > -0.005 ? 0 : 1;
}

const cfvDemo cfv_demo_ch11_showcase = {
    .id = "ch11/showcase",
    .chapter = 11,
    .title = "The capstone showcase: boxes, jelly and a cloth in one assembled contact problem",
    .point_at = "the cloth settling over the jelly blocks, which rest on the boxes (c shows the contacts)",
    .keys = "pause,points",
    .prediction = "after 3 s everything has landed: no rigid body's centre moves faster than 5 cm/s and no corner "
                  "or node is below the ground",
    .overlays = NULL,
    .steps = 600,
    CFV_DEMO_HOOKS,
};
