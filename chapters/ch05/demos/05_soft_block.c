/* SPDX-License-Identifier: MIT */
/* Demo ch05/soft_block: a jelly cube resting on the ground, its contacts solved in the dual form. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: the jelly cube of scenes/ch05_soft_block_on_ground.json standing on
 * the ground. Its 16 bottom nodes touch the plane; each contact's impulse is found by blocked
 * Gauss-Seidel (ch05.5) on W = J A^-1 J^T, the soft body's implicit system seen from its contacts
 * (ch02.8), and applied through u+ = A^-1 (b + J^T lambda). The cube sags a few millimetres under
 * its weight and then rests: the HUD shows the largest node displacement, the lowest node and the
 * weight carried per step (the sum of the normal impulses, m g h).
 */

typedef struct Data {
    double moved;   /* largest node displacement from the start (m) */
    double lowest;  /* lowest node height seen (m) */
    double carried; /* normal impulses of the last step over m g h */
    cfVec3 x0[64];  /* start positions (the scene's cube has 64 nodes) */
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    int s = cfv_run_add_scene(run, "ch05_soft_block_on_ground.json", "jelly on the ground, pgs-blocked", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    const cfSoftBody *b = &cfv_run_world(run, s)->soft[0];
    if (b->n_nodes > 64) return cf_error_set(err, CF_BAD_INPUT, "the scene's cube has %d nodes (at most 64)", b->n_nodes);
    for (int k = 0; k < b->n_nodes; ++k) d->x0[k] = b->x[k];
    d->lowest = INFINITY;
    /* the contacts are under the cube: it is drawn as glass, and the region it stands in is the subject */
    cfv_run_glass_soft(run, s, 0);
    cfv_run_subject_region(run, s, cfu_vec3(-0.3, -0.3, 0), cfu_vec3(0.3, 0.3, 0.6));
    cfv_run_set_camera(run, cfu_zero3(), -60, 20, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    const cfSoftBody *b = &w->soft[0];
    double m = 0.0, lam = 0.0;
    for (int k = 0; k < b->n_nodes; ++k) {
        d->moved = fmax(d->moved, cfu_norm(cfu_sub(b->x[k], d->x0[k])));
        d->lowest = fmin(d->lowest, b->x[k].z);
        m += b->mass[k];
    }
    for (int a = 0; a < w->contacts.count; ++a) lam += w->contacts.items[a].lambda[0];
    d->carried = lam / (m * 9.81 * w->def.dt);
    cfv_run_info(run, 0, "contacts %d, weight carried %.4f (sum of normal impulses / m g h), common residual %.1e",
                 w->stats.n_contacts, d->carried, w->stats.common_residual);
    cfv_run_info(run, 1, "largest node displacement %.2f mm, lowest node %.2f mm", 1e3 * d->moved, 1e3 * d->lowest);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    snprintf(msg, cap, "largest node displacement %.4f m (want < 0.01), lowest node %.4f m (want > -0.001), weight "
             "carried %.4f (want 1 within 0.1 %%)", d->moved, d->lowest, d->carried);
    return d->moved < 0.01 && d->lowest > -1e-3 && fabs(d->carried - 1.0) < 1e-3 ? 0 : 1;
}

const cfvDemo cfv_demo_ch05_soft_block = {
    .id = "ch05/soft_block",
    .chapter = 5,
    .title = "A jelly cube on the ground: soft contacts solved in the dual form W = J A^-1 J^T",
    .point_at = "the contact points under the cube and their impulses; the HUD's weight carried (1.000: the 16 "
                "contacts hold exactly m g h per step) and the few millimetres the jelly sags",
    .keys = "pause,points,impulses",
    .prediction = "after 10 s no node has moved 1 cm, none is 1 mm below the ground, and the contacts carry the weight",
    .overlays = "points,impulses",
    .steps = 600,
    CFV_DEMO_HOOKS,
};
