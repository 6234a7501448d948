/* SPDX-License-Identifier: MIT */
/* Demo ch05/box_on_slab: a rigid box on a soft slab on the ground, mixed contacts in one problem. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch05_box_on_soft_slab.json. Three kinds of contact take part
 * in one frictional contact problem: slab nodes on the ground (soft-static), slab nodes under the
 * box (rigid-soft, the box's face against each node) and the box's corners on the slab's top
 * triangles (rigid-soft, barycentric weights on the triangle's nodes). Each contact's row of W sums
 * the rigid part J M^-1 J^T (ch02.5) and the slab's part J A^-1 J^T (ch02.8). The box presses a
 * small dent into the slab and both stand.
 */

typedef struct Data {
    cfVec3 x0;       /* the box's start */
    double moved;    /* the box's largest displacement (m) */
    double tilt;     /* the box's smallest up-axis z component */
    int kinds[3];    /* contacts of the last step: slab-ground, slab node-box, box corner-slab */
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    int s = cfv_run_add_scene(run, "ch05_box_on_soft_slab.json", "box on a soft slab, pgs-blocked", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    d->x0 = cfv_run_world(run, s)->bodies[1].x;
    d->tilt = 1.0;
    /* the box is glass: the contacts under it (its corners on the slab, the slab nodes it presses)
       show through it */
    cfv_run_glass(run, s, 1);
    cfv_run_subject_region(run, s, cfu_vec3(-0.15, -0.2, 0.25), cfu_vec3(0.35, 0.3, 0.8)); /* the box */
    cfv_run_subject_soft(run, s, 0); /* the slab */
    cfv_run_set_camera(run, cfu_zero3(), -60, 25, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    const cfRigidBody *box = &w->bodies[1];
    d->moved = fmax(d->moved, cfu_norm(cfu_sub(box->x, d->x0)));
    d->tilt = fmin(d->tilt, cfu_quat_rotate(box->q, cfu_vec3(0, 0, 1)).z);
    for (int k = 0; k < 3; ++k) d->kinds[k] = 0;
    for (int a = 0; a < w->contacts.count; ++a) {
        const cfContact *c = &w->contacts.items[a];
        d->kinds[c->body_a == 0 ? 0 : cf_contact_soft(c, 1) ? 1 : 2]++;
    }
    cfv_run_info(run, 0, "contacts: slab on ground %d, slab nodes under the box %d, box corners on the slab %d",
                 d->kinds[0], d->kinds[1], d->kinds[2]);
    cfv_run_info(run, 1, "box: sank %.2f mm, largest move %.2f mm; common residual %.1e", 1e3 * (d->x0.z - box->x.z),
                 1e3 * d->moved, w->stats.common_residual);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    snprintf(msg, cap, "box moved at most %.4f m (want < 0.01), up axis z >= %.5f (want > 0.999), last step's "
             "contacts %d/%d/%d (want ground and box contacts)", d->moved, d->tilt, d->kinds[0], d->kinds[1], d->kinds[2]);
    return d->moved < 0.01 && d->tilt > 0.999 && d->kinds[0] > 0 && d->kinds[1] + d->kinds[2] > 0 ? 0 : 1;
}

const cfvDemo cfv_demo_ch05_box_on_slab = {
    .id = "ch05/box_on_slab",
    .chapter = 5,
    .title = "A rigid box on a soft slab: rigid-soft and soft-static contacts in one problem",
    .point_at = "the box's corners and the slab nodes under it (c shows the contacts), the dent they make, and the "
                "HUD's three kinds of contact",
    .keys = "pause,points,impulses",
    .prediction = "after 10 s the box has moved less than 1 cm and stays upright on the slab, which stays on the ground",
    .overlays = "points,impulses",
    .steps = 600,
    CFV_DEMO_HOOKS,
};
