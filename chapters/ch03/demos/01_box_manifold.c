/* SPDX-License-Identifier: MIT */
/* Demo ch03/box_manifold: the box-box contact manifold (SAT + clipping) while the upper box turns. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch03.h"

/*
 * What the viewer must show: two unit cubes, the upper one sunk 0.1 m into the lower one, and
 * the contacts of cf_collide_box_box (ch03.3) with their normals and depths. Unturned: the
 * incident face clipped against the reference face gives its 4 corners at depth 0.1. Turned
 * about z, the clipped square becomes an octagon: 8 points at 45 deg, before reduction; the
 * manifold actually kept (max 4, cf_manifold_reduce) is drawn as the contacts, the discarded
 * points as grey dots. Nothing is integrated: the keys (or the automatic swing) set the pose.
 * The upper box is drawn as glass: the contacts lie inside the overlap, which it would hide.
 */

typedef struct Data {
    bool manual;          /* keys have taken over from the automatic swing */
    cfQuat q;             /* orientation of the upper box (manual mode) */
    int n0, n45_full;     /* contacts at 0 deg (max 4) and at 45 deg (max 8) */
    int n45_kept;         /* at 45 deg after reduction to 4 */
    double depth0;        /* deepest |phi| - 0.1 error at 0 deg */
    bool seen0, seen45;
} Data;

static const cfVec3 HALF = {0.5, 0.5, 0.5};
#define SINK 0.1

static void show(cfvRun *run);

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    d->q = cfu_quat_identity();
    cfWorldDef def = cf_world_def_default();
    def.gravity = cfu_zero3();
    int s = cfv_run_add_world(run, &def, "", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    cfRigidBody a, b;
    cfStatus st = cf_rigid_init_fixed(&a, cf_shape_box(HALF), err);
    if (st == CF_OK) st = cf_rigid_init(&b, cf_shape_box(HALF), 1.0, err);
    if (st != CF_OK) return st;
    snprintf(a.name, sizeof a.name, "A");
    snprintf(b.name, sizeof b.name, "B");
    b.x = cfu_vec3(0, 0, 2 * HALF.z - SINK);
    if (cf_world_add_body(cfv_run_world(run, s), &a) < 0 || cf_world_add_body(cfv_run_world(run, s), &b) < 0)
        return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    cfv_run_glass(run, s, 1); /* the upper box: the manifold is seen through it */
    cfv_run_subject(run, s, 0);
    cfv_run_subject_region(run, s, cfu_vec3(-HALF.x, -HALF.y, -HALF.z), cfu_vec3(HALF.x, HALF.y, 3 * HALF.z - SINK));
    cfv_run_set_camera(run, cfu_zero3(), -30, 50, 0);
    show(run);
    return CF_OK;
}

/* angle of the automatic swing: 0 -> 45 deg in 2 s, hold 2 s, back in 2 s, hold 2 s */
static double swing(double t)
{
    double u = fmod(t, 8.0);
    double f = u < 2 ? u / 2 : u < 4 ? 1 : u < 6 ? (6 - u) / 2 : 0;
    return f * CF_PI / 4;
}

/* detect, draw, record */
static void show(cfvRun *run)
{
    Data *d = run->data;
    cfWorld *w = cfv_run_world(run, 0);
    cfRigidBody *A = &w->bodies[0], *B = &w->bodies[1];
    double ang = swing(w->time);
    B->q = d->manual ? d->q : cfu_quat_from_axis_angle(cfu_vec3(0, 0, 1), ang);
    cfObb oa = cf_obb_of_body(A), ob = cf_obb_of_body(B);
    cfContact full[CF_BOX_MAX_CONTACTS], kept[CF_BOX_MAX_CONTACTS];
    int nf = cf_collide_box_box(&oa, &ob, 0.0, CF_BOX_MAX_CONTACTS, full);
    int nk = cf_collide_box_box(&oa, &ob, 0.0, 4, kept);
    for (int i = 0; i < nk; ++i) {
        kept[i].body_a = 0;
        kept[i].body_b = 1;
        cfv_run_add_contact(run, 0, &kept[i]);
    }
    for (int i = 0; i < nf; ++i) { /* the points the reduction dropped */
        bool dropped = true;
        for (int j = 0; j < nk; ++j) dropped = dropped && cfu_norm(cfu_sub(full[i].p, kept[j].p)) > 1e-9;
        if (dropped) cfv_run_mark(run, 0, CFV_MARK_POINT | CFV_MARK_ON_TOP, full[i].p, full[i].p, 0xb0b0b0, NULL);
    }
    double deepest = 0;
    for (int i = 0; i < nk; ++i) deepest = fmax(deepest, -kept[i].phi);
    cfv_run_info(run, 0, "%s: %d points before reduction, %d kept (max 4), deepest %.4f m",
                 d->manual ? "turned by the keys" : "automatic swing", nf, nk, deepest);
    if (!d->manual) {
        cfv_run_info(run, 1, "turned %.1f deg about z", ang * 180 / CF_PI);
        if (ang == 0 && !d->seen0) {
            d->seen0 = true;
            d->n0 = nk;
            for (int i = 0; i < nk; ++i) d->depth0 = fmax(d->depth0, fabs(-kept[i].phi - SINK));
        }
        if (ang == CF_PI / 4 && !d->seen45) {
            d->seen45 = true;
            d->n45_full = nf;
            d->n45_kept = nk;
        }
    } else {
        cfv_run_info(run, 1, "1 2 3 turn the upper box by 5 deg about x, y, z; 0 back to the automatic swing");
    }
}

static void step(cfvRun *run)
{
    cfWorld *w = cfv_run_world(run, 0);
    w->time += w->def.dt;
    w->step++;
    show(run);
}

static bool key(cfvRun *run, int k)
{
    Data *d = run->data;
    cfVec3 axis = k == '1' ? cfu_vec3(1, 0, 0) : k == '2' ? cfu_vec3(0, 1, 0) : cfu_vec3(0, 0, 1);
    if (k == '1' || k == '2' || k == '3') {
        if (!d->manual) d->q = cfv_run_world(run, 0)->bodies[1].q;
        d->manual = true;
        d->q = cfu_quat_normalize(cfu_quat_mul(cfu_quat_from_axis_angle(axis, 5 * CF_PI / 180), d->q));
    } else if (k == '0') {
        d->manual = false;
    } else {
        return false;
    }
    cfv_run_clear_marks(run);
    show(run);
    return true;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    bool ok = d->seen0 && d->seen45 && d->n0 == 4 && d->depth0 < 1e-9 && d->n45_full == 8 && d->n45_kept == 4;
    snprintf(msg, cap,
             "unturned: %d contacts (want 4), depth off 0.1 by %.2g (want < 1e-9); at 45 deg: %d before reduction "
             "(want 8), %d kept (want 4)",
             d->n0, d->depth0, d->n45_full, d->n45_kept);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch03_box_manifold = {
    .id = "ch03/box_manifold",
    .chapter = 3,
    .title = "Box-box manifolds: separating axes, then the incident face clipped by the reference face",
    .point_at = "the red contact points: 4 at the corners while the boxes are aligned; as the upper box turns the "
                "clipped square becomes an octagon (grey dots: all 8 points), of which 4 are kept; turn about x or "
                "y and watch the manifold shrink to an edge or a point",
    .keys = "depth,normals,pause",
    .demo_keys = (const cfvDemoKey[]){{'1', "turn the upper box 5 deg about x"}, {'2', "about y"}, {'3', "about z"},
                                      {'0', "the automatic swing"}, {0, NULL}},
    .prediction = "stacked unit cubes sunk by 0.1 m: 4 contacts at depth 0.1; turned by 45 deg about z: 8 points "
                  "before reduction, 4 after",
    .overlays = "points,normals,depth",
    .steps = 300,
    CFV_DEMO_STEP_HOOKS,
    .key = key,
};
