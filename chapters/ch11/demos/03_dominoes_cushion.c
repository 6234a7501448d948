/* SPDX-License-Identifier: MIT */
/* Demo ch11/dominoes_cushion: a domino run ends on a soft cushion that holds the last one leaning. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch11_dominoes_cushion.json. Six dominoes fall one after the
 * other; the last lands on a soft cushion of tetrahedra, which dents and holds it leaning instead
 * of letting it fall flat. Rigid-rigid, rigid-soft and soft-static contacts are rows of one
 * assembled problem (pgs-blocked). The dent is millimetres deep in a cushion 0.4 m high: the
 * cushion is coloured by its deformation since it settled under its own weight (at 1 s, before the
 * first domino arrives; yellow: the nodes furthest from their place then), so the dent shows as the
 * bright patch under the last domino, and the HUD gives its depth.
 */

typedef struct Data {
    cfVec3 cushion0;     /* the cushion's centre at the start */
    double tilt_min;     /* the smallest tilt of a domino at the last step (degrees) */
    double tilt_last;    /* the last domino's tilt (degrees) */
    double cushion_move; /* the cushion's largest move (m) */
    double speed;        /* the fastest body at the last step (m/s) */
    double dent;         /* the deepest node below its rest height (m) */
    long n;
} Data;

static cfVec3 soft_centre(const cfSoftBody *s)
{
    cfVec3 c = cfu_zero3();
    double m = 0.0;
    for (int i = 0; i < s->n_nodes; ++i) {
        c = cfu_mul_add(c, s->mass[i], s->x[i]);
        m += s->mass[i];
    }
    return cfu_scale(1.0 / m, c);
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    int s = cfv_run_add_scene(run, "ch11_dominoes_cushion.json", "dominoes into a soft cushion, pgs-blocked", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    d->cushion0 = soft_centre(&cfv_run_world(run, s)->soft[0]);
    cfv_run_subject(run, s, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -60, 20, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    if (fabs(w->time - 1.0) < 0.5 * w->def.dt) cfv_run_deformation_from_now(run, 0, 0); /* settled, no domino yet */
    d->tilt_min = 180.0;
    d->speed = 0.0;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (b->fixed) continue;
        double up = cfu_quat_rotate(b->q, cfu_vec3(0, 0, 1)).z;
        double tilt = acos(fmax(-1.0, fmin(1.0, up))) * 180.0 / CF_PI;
        d->tilt_min = fmin(d->tilt_min, tilt);
        d->tilt_last = tilt;
        d->speed = fmax(d->speed, cfu_norm(b->v));
    }
    const cfSoftBody *c = &w->soft[0];
    for (int i = 0; i < c->n_nodes; ++i) d->speed = fmax(d->speed, cfu_norm(c->v[i]));
    d->cushion_move = fmax(d->cushion_move, cfu_norm(cfu_sub(soft_centre(c), d->cushion0)));
    /* the dent: how far a node sank below where the moved cushion would hold it */
    cfVec3 shift = cfu_sub(soft_centre(c), d->cushion0);
    d->dent = 0.0;
    for (int i = 0; c->x_rest && i < c->n_nodes; ++i) d->dent = fmax(d->dent, c->x_rest[i].z + shift.z - c->x[i].z);
    d->n++;
    cfv_run_info(run, 0, "least tilted domino %.1f degrees, the last %.1f; cushion moved %.1f mm, dented %.1f mm; %d contacts",
                 d->tilt_min, d->tilt_last, 1e3 * d->cushion_move, 1e3 * d->dent, w->contacts.count);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    snprintf(msg, cap, "after %ld steps every domino is tilted >= %.1f degrees (want > 30), the last %.1f (want < 70), the "
             "cushion moved %.4f m (want < 0.05), the fastest body %.4f m/s (want < 0.02)",
             d->n, d->tilt_min, d->tilt_last, d->cushion_move, d->speed);
    return d->n > 0 && d->tilt_min > 30 && d->tilt_last < 70 && d->cushion_move < 0.05 && d->speed < 0.02 ? 0 : 1;
}

const cfvDemo cfv_demo_ch11_dominoes_cushion = {
    .id = "ch11/dominoes_cushion",
    .chapter = 11,
    .title = "A domino run into a soft cushion: rigid and soft contacts in one problem",
    .point_at = "the wave of falling dominoes and the dent the last one makes in the cushion, which holds it leaning: "
                "the bright patch under it (the cushion coloured by how far it moved since it settled; the HUD "
                "gives the depth)",
    .keys = "pause,deformation,points,impulses",
    .prediction = "after 5 s every domino has fallen (tilted more than 30 degrees) and the last leans on the cushion "
                  "(less than 70 degrees), which has moved less than 5 cm; nothing moves faster than 2 cm/s",
    .overlays = "deformation",
    .steps = 300,
    CFV_DEMO_HOOKS,
};
