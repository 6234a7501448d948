/* SPDX-License-Identifier: MIT */
/* Demo ch08/mixed: paper 004's mixed pile in small: rigid boxes, jelly blocks and a cloth in one dual-form system. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch08_mixed.json as it is (Otaduy et al., Fig. 4 in small): two
 * rigid boxes, two jelly blocks and a cloth dropped on each other. Every contact, whatever its two
 * sides (rigid-rigid, rigid-soft, soft-soft, the cloth on itself), is one row of one dual-form
 * system solved by ICA, with constraint manifold refinement; the pile settles. The HUD shows the
 * fastest body's speed (the centre of mass of each body: a soft body's is mass-weighted) and the
 * lowest point over the run, which must stay above the ground's surface less the contact margin.
 */

typedef struct Data {
    double fastest; /* fastest centre of mass at the last step (m/s) */
    double lowest;  /* lowest point (rigid centre less its half height, soft node) over the run (m) */
    long n;
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    if (cfv_run_add_scene(run, "ch08_mixed.json", "rigid, jelly and cloth: one dual-form system (ICA, CMR)", cfu_zero3(),
                          err) < 0)
        return CF_BAD_INPUT;
    d->lowest = INFINITY;
    cfv_run_subject(run, 0, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -70, 20, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    d->fastest = 0.0;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (b->fixed) continue;
        d->fastest = fmax(d->fastest, cfu_norm(b->v));
        if (b->shape.type != CF_SHAPE_BOX) continue;
        const cfVec3 h = b->shape.half_extents;
        for (int c = 0; c < 8; ++c) { /* the box's corners */
            cfVec3 r = cfu_vec3(c & 1 ? h.x : -h.x, c & 2 ? h.y : -h.y, c & 4 ? h.z : -h.z);
            d->lowest = fmin(d->lowest, b->x.z + cfu_quat_rotate(b->q, r).z);
        }
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        cfVec3 p = cfu_zero3();
        double m = 0.0;
        for (int n = 0; n < s->n_nodes; ++n) {
            p = cfu_mul_add(p, s->mass[n], s->v[n]);
            m += s->mass[n];
            d->lowest = fmin(d->lowest, s->x[n].z);
        }
        if (m > 0.0) d->fastest = fmax(d->fastest, cfu_norm(p) / m);
    }
    d->n++;
    cfv_run_info(run, 0, "fastest centre of mass %.4f m/s; lowest point over the run %.4f m", d->fastest, d->lowest);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    const cfWorld *w = cfv_run_world((cfvRun *)run, 0);
    double floor_z = -w->def.contact_margin; /* the ground is z = 0; deeper than the margin, a contact would be missed */
    snprintf(msg, cap, "after %ld steps (%.1f s) the fastest centre of mass moves at %.4f m/s (want < 0.02); lowest point "
             "over the run %.4f m (want above %.3f)", d->n, d->n * w->def.dt, d->fastest, d->lowest, floor_z);
    return d->n > 0 && d->n * w->def.dt >= 4.0 - 1e-9 && d->fastest < 0.02 && d->lowest > floor_z ? 0 : 1;
}

const cfvDemo cfv_demo_ch08_mixed = {
    .id = "ch08/mixed",
    .chapter = 8,
    .title = "Paper 004's mixed pile: rigid boxes, jelly blocks and a cloth in one dual-form system",
    .point_at = "every contact, rigid or soft on either side, is a row of one system; the cloth drapes over the pile",
    .keys = "restart,preconditioner,pause",
    .prediction = "after 4 s no body's centre of mass moves faster than 2 cm/s and nothing went through the ground",
    .overlays = NULL,
    .steps = 800,
    CFV_DEMO_HOOKS,
    .key = NULL,
};
