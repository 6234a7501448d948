/* SPDX-License-Identifier: MIT */
/* Demo ch11/hammock: a rigid box dropped into a cloth hung by its corners comes to rest in it. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch11_box_on_hammock.json. A cloth pinned at its four corners
 * catches a 2 kg box; the box's corners press on the cloth's triangles and the cloth's nodes on the
 * box's faces (rigid-soft contacts, one assembled problem); the springs carry the weight to the
 * corners. The box bounces on the sheet and settles about 0.3 m below the corners.
 */

typedef struct Data {
    double bottom; /* the box's lowest corner (m) */
    double speed;  /* the box's speed (m/s) */
    double up;     /* the box's up axis, z component */
    long n;
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    if (cfv_run_add_scene(run, "ch11_box_on_hammock.json", "box on a cloth hammock, pgs-blocked", cfu_zero3(), err) < 0)
        return CF_BAD_INPUT;
    cfv_run_subject(run, 0, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -60, 20, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    const cfRigidBody *b = &w->bodies[1];
    cfVec3 h = b->shape.half_extents;
    d->bottom = INFINITY;
    for (int k = 0; k < 8; ++k) {
        cfVec3 c = cfu_vec3(k & 1 ? h.x : -h.x, k & 2 ? h.y : -h.y, k & 4 ? h.z : -h.z);
        d->bottom = fmin(d->bottom, cfu_add(b->x, cfu_quat_rotate(b->q, c)).z);
    }
    d->speed = cfu_norm(b->v);
    d->up = cfu_quat_rotate(b->q, cfu_vec3(0, 0, 1)).z;
    d->n++;
    cfv_run_info(run, 0, "box: bottom %.3f m above the ground, speed %.1f mm/s; %d contacts", d->bottom, 1e3 * d->speed,
                 w->contacts.count);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    snprintf(msg, cap, "after %ld steps the box's bottom is %.3f m above the ground (want > 0.3), its speed %.4f m/s "
             "(want < 0.01), its up axis z %.4f (want > 0.99)", d->n, d->bottom, d->speed, d->up);
    return d->n > 0 && d->bottom > 0.3 && d->speed < 0.01 && d->up > 0.99 ? 0 : 1;
}

const cfvDemo cfv_demo_ch11_hammock = {
    .id = "ch11/hammock",
    .chapter = 11,
    .title = "A rigid box in a cloth hammock: rigid-soft contacts carry its weight to the pinned corners",
    .point_at = "the sheet stretching under the box and the box bouncing on it before it settles",
    .keys = "pause,points",
    .prediction = "after 4.5 s the box rests upright in the hammock, its bottom more than 0.3 m above the ground, "
                  "slower than 1 cm/s",
    .overlays = NULL,
    .steps = 450,
    CFV_DEMO_HOOKS,
};
