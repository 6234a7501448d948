/* SPDX-License-Identifier: MIT */
/* Demo ch02/frames_jacobian: the contact frame [n t b] and J u drawn on a sphere touching a tilted box. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch02.h"

/*
 * What the viewer must show: a box (body A) that tilts and turns slowly, a ball (body B) kept
 * touching its top face. At the contact point: the frame of ch02.2, n (blue), t (red), b (green);
 * the material point velocities v_A(p) (cyan) and v_B(p) (orange); and J u, the contact velocity
 * of ch02.3 turned back into a world vector n (J u)_n + t (J u)_t + b (J u)_b (white), drawn from
 * the tip of v_A(p): it must end exactly at the tip of v_B(p). Nothing is integrated: the poses
 * are set from the clock, so no later chapter is needed.
 */

typedef struct Data {
    double ju_err;    /* largest |C J u - (v_B(p) - v_A(p))| / |u| seen */
    double frame_err; /* largest deviation of [n t b] from orthonormal, right-handed */
    double ju_max;    /* largest |J u| (the check is not vacuous) */
    int samples;
} Data;

static const cfVec3 HALF = {0.6, 0.45, 0.2};
static const double RADIUS = 0.3;

static void step(cfvRun *run);

static cfStatus setup(cfvRun *run, cfError *err)
{
    cfWorldDef def = cf_world_def_default();
    def.gravity = cfu_zero3();
    int s = cfv_run_add_world(run, &def, "A: box, B: ball", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    cfRigidBody a, b;
    cfStatus st = cf_rigid_init(&a, cf_shape_box(HALF), 2.0, err);
    if (st == CF_OK) st = cf_rigid_init(&b, cf_shape_sphere(RADIUS), 1.0, err);
    if (st != CF_OK) return st;
    snprintf(a.name, sizeof a.name, "A");
    snprintf(b.name, sizeof b.name, "B");
    if (cf_world_add_body(cfv_run_world(run, s), &a) < 0 || cf_world_add_body(cfv_run_world(run, s), &b) < 0)
        return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    cfv_run_subject(run, s, 1); /* the ball and the contact under it: the arrows there are the lesson, the box around them */
    cfv_run_set_camera(run, cfu_zero3(), -30, 35, 0);
    step(run); /* place the bodies and draw the first frame */
    return CF_OK;
}

/* material point velocity of body k at p */
static cfVec3 point_velocity(const cfRigidBody *k, cfVec3 p) { return cfu_add(k->v, cfu_cross(k->w, cfu_sub(p, k->x))); }

static void step(cfvRun *run)
{
    Data *d = run->data;
    cfWorld *w = cfv_run_world(run, 0);
    cfRigidBody *A = &w->bodies[0], *B = &w->bodies[1];
    double t = w->time;
    /* pose and velocities from the clock: the tilt axis turns, the tilt grows and shrinks */
    double s = 0.4 * t, tilt = 0.6 * sin(0.5 * t);
    A->q = cfu_quat_from_axis_angle(cfu_vec3(cos(s), sin(s), 0), tilt);
    A->x = cfu_zero3();
    A->v = cfu_vec3(0.3 * cos(t), 0.2, 0);
    A->w = cfu_vec3(0, 0.4, 0.8);
    cfVec3 top = cfu_quat_rotate(A->q, cfu_vec3(0.25, 0.15, HALF.z)); /* a point of the top face */
    cfVec3 up = cfu_quat_rotate(A->q, cfu_vec3(0, 0, 1));
    B->x = cfu_mul_add(top, RADIUS, up);
    B->v = cfu_vec3(-0.3, 0.5 * sin(0.7 * t), 0.1);
    B->w = cfu_vec3(1.5, 0, -0.5);
    cf_rigid_update_inertia(A);
    cf_rigid_update_inertia(B);

    /* ch02.1: gap of the ball's centre to the box, normal from A to B */
    double phi;
    cfContact c = {0};
    if (cf_gap_point_box(B->x, A->x, A->q, HALF, &phi, &c.n) != CF_OK) return;
    c.body_a = 0;
    c.body_b = 1;
    c.phi = phi - RADIUS;
    c.p = cfu_mul_add(B->x, -RADIUS, c.n);
    /* ch02.2 and ch02.3 */
    double Ja[3][6], Jb[3][6];
    if (cf_contact_frame(c.n, &c.t, &c.b) != CF_OK) return;
    if (cf_contact_jacobian_rigid(&c, A, B, Ja, Jb) != CF_OK) return;
    double ua[6] = {A->v.x, A->v.y, A->v.z, A->w.x, A->w.y, A->w.z};
    double ub[6] = {B->v.x, B->v.y, B->v.z, B->w.x, B->w.y, B->w.z};
    double ju[3] = {0, 0, 0};
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 6; ++k) ju[r] += Ja[r][k] * ua[k] + Jb[r][k] * ub[k];
    cfVec3 ju_world = cfu_add(cfu_scale(ju[0], c.n), cfu_add(cfu_scale(ju[1], c.t), cfu_scale(ju[2], c.b)));
    cfVec3 va = point_velocity(A, c.p), vb = point_velocity(B, c.p);
    double unorm = 0;
    for (int k = 0; k < 6; ++k) unorm += ua[k] * ua[k] + ub[k] * ub[k];
    double e = cfu_norm(cfu_sub(ju_world, cfu_sub(vb, va))) / sqrt(unorm);
    cfMat3 C = cfu_mat3_cols(c.n, c.t, c.b);
    cfMat3 CtC = cfu_mat3_mul(cfu_mat3_transpose(C), C);
    double fe = fabs(cfu_mat3_det(C) - 1);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) fe = fmax(fe, fabs(cfu_vec3_at(cfu_mat3_col(CtC, j), i) - (i == j)));
    d->ju_err = fmax(d->ju_err, isfinite(e) ? e : INFINITY);
    d->frame_err = fmax(d->frame_err, fe);
    d->ju_max = fmax(d->ju_max, cfu_norm(ju_world));
    d->samples++;

    /* what the lecturer sees */
    cfv_run_add_contact(run, 0, &c);
    double L = 0.45;
    cfv_run_mark(run, 0, CFV_MARK_ARROW | CFV_MARK_ON_TOP, c.p, cfu_mul_add(c.p, L, c.n), 0x5a8cff, "n");
    cfv_run_mark(run, 0, CFV_MARK_ARROW | CFV_MARK_ON_TOP, c.p, cfu_mul_add(c.p, L, c.t), 0xff7878, "t");
    cfv_run_mark(run, 0, CFV_MARK_ARROW | CFV_MARK_ON_TOP, c.p, cfu_mul_add(c.p, L, c.b), 0x78e678, "b");
    cfVec3 tipa = cfu_add(c.p, va), tipb = cfu_add(c.p, vb);
    cfv_run_mark(run, 0, CFV_MARK_ARROW | CFV_MARK_ON_TOP, c.p, tipa, 0x78dcff, "v_A(p)");
    cfv_run_mark(run, 0, CFV_MARK_ARROW | CFV_MARK_ON_TOP, c.p, tipb, 0xffa040, "v_B(p)");
    cfv_run_mark(run, 0, CFV_MARK_ARROW | CFV_MARK_ON_TOP, tipa, cfu_add(tipa, ju_world), 0xffffff, "J u");
    cfv_run_info(run, 0, "n = (%+.3f %+.3f %+.3f)  t = (%+.3f %+.3f %+.3f)  b = (%+.3f %+.3f %+.3f)", c.n.x, c.n.y,
                 c.n.z, c.t.x, c.t.y, c.t.z, c.b.x, c.b.y, c.b.z);
    cfv_run_info(run, 1, "J u = (%+.4f, %+.4f, %+.4f) m/s  (n, t, b);  |J u - (v_B(p) - v_A(p))| = %.1e", ju[0], ju[1],
                 ju[2], e * sqrt(unorm));
    w->time += w->def.dt;
    w->step++;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    bool ok = d->samples > 100 && d->ju_err < 1e-12 && d->frame_err < 1e-12 && d->ju_max > 0.1;
    snprintf(msg, cap,
             "%d poses: |C J u - (v_B(p) - v_A(p))| / |u| <= %.2g (want < 1e-12), [n t b] off orthonormal and "
             "right-handed by %.2g (want < 1e-12), |J u| up to %.3g m/s",
             d->samples, d->ju_err, d->frame_err, d->ju_max);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch02_frames_jacobian = {
    .id = "ch02/frames_jacobian",
    .chapter = 2,
    .title = "Contact frame and Jacobian: J u is the relative velocity of the two material points",
    .point_at = "the frame at the contact: n (blue) follows the tilting face, t (red) and b (green) stay in the "
                "face and never flip; the white J u arrow starts at the tip of v_A(p) (cyan) and always ends on the "
                "tip of v_B(p) (orange): J u = v_B(p) - v_A(p), written in [n t b]",
    .keys = "pause,points,restart",
    .prediction = "for every pose, J u (ch02.3) turned back to world coordinates equals v_B(p) - v_A(p) to round-off, "
                  "and [n t b] (ch02.2) is orthonormal and right-handed",
    .overlays = "points",
    .steps = 600,
    CFV_DEMO_STEP_HOOKS,
};
