/* SPDX-License-Identifier: MIT */
/* Demo ch01/tennis_racket: a box spun about its middle axis flips, but only with the gyroscopic term. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: two identical boxes, spun about their intermediate principal axis
 * (body y) with a tiny wobble. Left, with the gyroscopic term -w x (I w): after about two
 * seconds the box turns over end for end, comes back, and keeps flipping (the tennis-racket or
 * Dzhanibekov effect). Right, without it: the box spins forever about a fixed world axis and
 * never flips: with the term dropped, w stays constant in the world frame, which is not what a
 * free rigid body does (its L = I w is what must stay constant, and I turns with the body).
 */

typedef struct Data {
    int flips[2]; /* sign changes of the body-frame spin about body y */
    int sign[2];  /* its current sign, +1 or -1 */
    cfVec3 L0[2];       /* angular momentum at the start */
    double dev[2];      /* largest |L - L0| / |L0| seen */
} Data;

static const cfVec3 HALF = {0.5, 0.25, 0.06}; /* m: the y axis has the middle moment of inertia */
static const double SPIN = 4.0;               /* rad/s about body y */
static const double WOBBLE = 0.02;            /* rad/s about x and z */

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    for (int k = 0; k < 2; ++k) {
        cfWorldDef def = cf_world_def_default();
        def.gravity = cfu_zero3();
        def.dt = 0.005;
        def.rigid_integrator = CF_RIGID_SEMI_IMPLICIT;
        def.gyroscopic = (k == 0);
        int s = cfv_run_add_world(run, &def, k == 0 ? "gyroscopic term on" : "gyroscopic term off",
                                  cfu_vec3(k == 0 ? -0.85 : 0.85, 0, 0), err);
        if (s < 0) return CF_BAD_INPUT;
        cfRigidBody b;
        cfStatus st = cf_rigid_init(&b, cf_shape_box(HALF), 1.0, err);
        if (st != CF_OK) return st;
        snprintf(b.name, sizeof b.name, "book");
        b.x = cfu_vec3(0, 0, 0);
        b.w = cfu_vec3(WOBBLE, SPIN, WOBBLE);
        if (cf_world_add_body(cfv_run_world(run, s), &b) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
        d->sign[k] = 1;
        d->L0[k] = cf_world_angular_momentum(cfv_run_world(run, s));
    }
    cfv_run_subject(run, 0, 0);
    cfv_run_subject(run, 1, 0);
    cfv_run_set_camera(run, cfu_zero3(), -70, 32, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    for (int k = 0; k < 2; ++k) {
        const cfRigidBody *b = &cfv_run_world(run, k)->bodies[0];
        /* spin about the body y axis, as a fraction of |w| */
        cfVec3 wb = cfu_quat_rotate(cfu_quat_conj(b->q), b->w);
        double f = wb.y / fmax(cfu_norm(b->w), 1e-12);
        int s = f > 0.5 ? 1 : (f < -0.5 ? -1 : d->sign[k]);
        if (s != d->sign[k]) d->flips[k]++;
        d->sign[k] = s;
        cfVec3 L = cf_world_angular_momentum(cfv_run_world(run, k));
        d->dev[k] = fmax(d->dev[k], cfu_norm(cfu_sub(L, d->L0[k])) / cfu_norm(d->L0[k]));
    }
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    bool ok = d->flips[0] >= 1 && d->flips[1] == 0;
    snprintf(msg, cap,
             "flips with the gyroscopic term: %d (want >= 1), without: %d (want 0); L drifts by up to %.2g%% with "
             "the term, %.2g%% without",
             d->flips[0], d->flips[1], 100 * d->dev[0], 100 * d->dev[1]);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch01_tennis_racket = {
    .id = "ch01/tennis_racket",
    .chapter = 1,
    .title = "The intermediate-axis (tennis racket) flip needs the gyroscopic term",
    .point_at = "the left box turns over every few seconds while the right one spins calmly about a fixed "
                "axis; the arrows: w (yellow) on the left swings away from L (pink) and back while L stays put, "
                "on the right w and L stay together",
    .keys = "omega,momentum,gyroscopic,dt,restart",
    .prediction = "with -w x (I w) the box spun about its middle axis flips (the body-frame spin about y "
                  "changes sign); without it, it never flips",
    .overlays = "omega,momentum",
    .steps = 1600,
    CFV_DEMO_HOOKS,
};
