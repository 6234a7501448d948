/* SPDX-License-Identifier: MIT */
/* Demo ch03/ccd_tunnelling: a fast sphere through a thin plate, discrete detection beside CCD. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch03.h"

/*
 * What the viewer must show: two copies of a thin plate (2 m x 2 m, 2 cm thick) and a sphere of
 * radius 0.1 m falling onto it at 36 m/s, 0.6 m per step of 1/60 s. Left: discrete detection
 * (cf_collide_sphere_box, ch03.2) at the step positions only (grey dots): the sphere is at
 * z = 0.3 before the crossing and at -0.3 after, never within 0.11 of the plate's mid-plane, so
 * no contact is found and the sphere ends behind the plate. Right: CCD over each step: the
 * sphere centre against the plate's top face offset by the radius (z = 0.11, two triangles),
 * with the coplanarity cubic (ch03.4) and the inclusion test (ch03.5); the sphere stops at the
 * time of impact (red dot). The true TOI is known in closed form. Nothing is integrated: the
 * spheres move at constant velocity down to Z_END and the run restarts every CYCLE steps.
 */

#define R 0.1          /* sphere radius */
#define HALF_T 0.01    /* plate half thickness */
#define Z0 1.5         /* start height of the sphere centre */
#define V_DEFAULT 36.0 /* m/s */
#define CYCLE 90       /* steps per pass */
#define Z_END -0.9     /* the spheres stop here (out of the picture otherwise) */

typedef struct Data {
    double v;                  /* falling speed (m/s), changed by the keys */
    bool manual;               /* the speed was changed: the check keeps the first pass only */
    bool stopped;              /* CCD sphere stopped at the TOI in this pass */
    double stop_z;             /* its centre height there */
    /* first pass at the default speed (what check() tests) */
    bool done;                 /* the first pass is over */
    int discrete_contacts;     /* contacts found by discrete detection in the first pass */
    double end_z;              /* discrete sphere height at the end of the first pass */
    int hit_step;              /* step (1-based) in which CCD reported the hit; 0: none */
    int cross_step;            /* step in which the centre crosses z = HALF_T + R */
    double toi_cubic, toi_incl;/* time of impact within that step (s) */
    double toi_true;           /* exact */
    int incl_boxes;
} Data;

static const double FACE_Z = HALF_T + R;

static void show(cfvRun *run);

static cfStatus add(cfvRun *run, const char *label, double x, cfError *err)
{
    cfWorldDef def = cf_world_def_default();
    def.gravity = cfu_zero3();
    int s = cfv_run_add_world(run, &def, label, cfu_vec3(x, 0, 0), err);
    if (s < 0) return CF_BAD_INPUT;
    cfRigidBody plate, ball;
    cfStatus st = cf_rigid_init_fixed(&plate, cf_shape_box(cfu_vec3(1, 1, HALF_T)), err);
    if (st == CF_OK) st = cf_rigid_init(&ball, cf_shape_sphere(R), 1.0, err);
    if (st != CF_OK) return st;
    snprintf(plate.name, sizeof plate.name, "plate");
    snprintf(ball.name, sizeof ball.name, "ball");
    ball.x = cfu_vec3(0, 0, Z0);
    cfWorld *w = cfv_run_world(run, s);
    if (cf_world_add_body(w, &plate) < 0 || cf_world_add_body(w, &ball) < 0)
        return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    return CF_OK;
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    d->v = V_DEFAULT;
    cfStatus st = add(run, "discrete: step positions only", -1.4, err);
    if (st == CF_OK) st = add(run, "CCD: stops at the time of impact", 1.4, err);
    if (st != CF_OK) return st;
    /* exact crossing: z(t) = Z0 - v t reaches FACE_Z at t* = (Z0 - FACE_Z) / v */
    double dt = cfv_run_world(run, 0)->def.dt;
    double t_star = (Z0 - FACE_Z) / V_DEFAULT;
    d->cross_step = (int)floor(t_star / dt) + 1;
    d->toi_true = t_star - (d->cross_step - 1) * dt;
    d->toi_cubic = d->toi_incl = NAN;
    for (int k = 0; k < 2; ++k) {
        cfv_run_subject(run, k, 0); /* the plate */
        cfv_run_subject(run, k, 1); /* the ball */
    }
    cfv_run_set_camera(run, cfu_zero3(), -90, 12, 0);
    show(run);
    return CF_OK;
}

/* earliest CCD hit of the centre moving from c by u over h against the offset face (two triangles) */
static cfCcdResult ccd(cfVec3 c, cfVec3 u, double h, bool inclusion)
{
    const cfVec3 q[4] = {{-1, -1, FACE_Z}, {1, -1, FACE_Z}, {1, 1, FACE_Z}, {-1, 1, FACE_Z}};
    const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
    cfCcdResult best = {.status = CF_CCD_MISS, .toi = h};
    for (int k = 0; k < 2; ++k) {
        cfVec3 x[4] = {q[tri[k][0]], q[tri[k][1]], q[tri[k][2]], c};
        cfVec3 v[4] = {cfu_zero3(), cfu_zero3(), cfu_zero3(), u};
        cfCcdResult r = inclusion ? cf_ccd_inclusion(CF_CCD_VF, x, v, h, 1e-9, 100000) : cf_ccd_vertex_face(x, v, h);
        if (r.status != CF_CCD_MISS && (best.status == CF_CCD_MISS || r.toi < best.toi)) best = r;
    }
    return best;
}

static void show(cfvRun *run)
{
    Data *d = run->data;
    cfWorld *wd = cfv_run_world(run, 0), *wc = cfv_run_world(run, 1);
    double dt = wd->def.dt;
    long k = wd->step % CYCLE; /* steps taken in this pass */
    cfVec3 pd = cfu_vec3(0, 0, fmax(Z_END, Z0 - d->v * dt * (double)k));
    wd->bodies[1].x = pd;
    /* discrete: the step positions so far, and a contact test at the current one */
    for (long j = 0; j <= k && Z0 - d->v * dt * (double)j >= Z_END; ++j) {
        cfVec3 p = cfu_vec3(-0.3, 0, Z0 - d->v * dt * (double)j);
        cfv_run_mark(run, 0, CFV_MARK_POINT, p, p, 0xa0a0a0, NULL);
    }
    cfObb plate = cf_obb_of_body(&wd->bodies[0]);
    cfContact c;
    int nd = cf_collide_sphere_box(pd, R, &plate, 0.0, &c);
    if (nd > 0) {
        c.body_a = 1;
        c.body_b = 0;
        cfv_run_add_contact(run, 0, &c);
    }
    if (k == 0) d->stopped = false;
    /* CCD: test the step that leads here, stop at the TOI */
    if (!d->stopped && k > 0) {
        cfVec3 c0 = cfu_vec3(0, 0, Z0 - d->v * dt * (double)(k - 1)), u = cfu_vec3(0, 0, -d->v);
        cfCcdResult rc = ccd(c0, u, dt, false);
        cfCcdResult ri = ccd(c0, u, dt, true);
        if (rc.status != CF_CCD_MISS || ri.status != CF_CCD_MISS) {
            double toi = rc.status != CF_CCD_MISS ? rc.toi : ri.toi;
            d->stopped = true;
            d->stop_z = c0.z - d->v * toi;
            if (!d->manual && !d->done && d->hit_step == 0) {
                d->hit_step = (int)k;
                d->toi_cubic = rc.status == CF_CCD_HIT ? rc.toi : NAN;
                d->toi_incl = ri.status != CF_CCD_MISS ? ri.toi : NAN;
                d->incl_boxes = ri.boxes;
            }
        }
    }
    wc->bodies[1].x = d->stopped ? cfu_vec3(0, 0, d->stop_z) : pd;
    if (d->stopped) {
        cfVec3 p = cfu_vec3(0, 0, d->stop_z - R);
        cfv_run_mark(run, 1, CFV_MARK_POINT, p, p, 0xff4040, "time of impact");
    }
    for (int s = 0; s < 2; ++s) /* the path */
        cfv_run_mark(run, s, CFV_MARK_LINE, cfu_vec3(0, 0, Z0), cfu_vec3(0, 0, Z_END), 0x606060, NULL);
    if (!d->manual && !d->done) d->discrete_contacts += nd;
    if (!d->manual && !d->done && k == CYCLE - 1) {
        d->done = true;
        d->end_z = pd.z;
    }
    cfv_run_info(run, 0, "speed %.1f m/s = %.3f m per step (sphere radius %.2f, plate %.2f thick)", d->v, d->v * dt, R,
                 2 * HALF_T);
    cfv_run_info(run, 1, "discrete: %s at z = %+.3f", nd ? "CONTACT" : "no contact", pd.z);
    if (!d->manual && d->hit_step)
        cfv_run_info(run, 2, "CCD hit in step %d: cubic toi %.6f ms, inclusion %.6f ms, exact %.6f ms", d->hit_step,
                     1e3 * d->toi_cubic, 1e3 * d->toi_incl, 1e3 * d->toi_true);
    else
        cfv_run_info(run, 2, "CCD: %s", d->stopped ? "stopped at the time of impact" : "no hit yet");
}

static void step(cfvRun *run)
{
    for (int s = 0; s < 2; ++s) {
        cfWorld *w = cfv_run_world(run, s);
        w->time += w->def.dt;
        w->step++;
    }
    show(run);
}

static bool key(cfvRun *run, int k)
{
    Data *d = run->data;
    if (k == ',') d->v = fmax(3.0, d->v / 1.5);
    else if (k == '.') d->v = fmin(120.0, d->v * 1.5);
    else if (k == '0') d->v = V_DEFAULT;
    else return false;
    d->manual = true;
    cfv_run_clear_marks(run);
    show(run);
    return true;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    double dt = run->slot[0].w.def.dt;
    bool behind = d->end_z < -(HALF_T + R);
    bool in_step = d->hit_step == d->cross_step;
    /* the cubic's root is found to full precision: allow rounding only; inclusion is a lower bound */
    bool cubic_ok = d->toi_cubic >= 0 && d->toi_cubic <= d->toi_true + 1e-12 * dt && d->toi_cubic > d->toi_true - 1e-9 * dt;
    bool incl_ok = d->toi_incl >= 0 && d->toi_incl <= d->toi_true;
    bool ok = d->done && d->discrete_contacts == 0 && behind && in_step && cubic_ok && incl_ok;
    snprintf(msg, cap,
             "discrete: %d contacts (want 0), sphere ends at z = %.2f (want < %.2f); CCD hit in step %d (crossing in step "
             "%d), toi cubic %.9f ms, inclusion %.9f ms (%d boxes), exact %.9f ms (want cubic = exact within rounding, "
             "inclusion <= exact)",
             d->discrete_contacts, d->end_z, -(HALF_T + R), d->hit_step, d->cross_step, 1e3 * d->toi_cubic,
             1e3 * d->toi_incl, d->incl_boxes, 1e3 * d->toi_true);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch03_ccd_tunnelling = {
    .id = "ch03/ccd_tunnelling",
    .chapter = 3,
    .title = "Tunnelling: a fast sphere through a thin plate, discrete detection beside CCD",
    .point_at = "the grey dots on the left: the only positions discrete detection sees, 0.6 m apart, none of them "
                "touching a 2 cm plate, so the sphere passes through; on the right CCD sweeps the centre against the "
                "face offset by the radius and stops the sphere at the red dot",
    .keys = "pause,restart",
    .demo_keys = (const cfvDemoKey[]){{',', "slower"}, {'.', "faster"}, {'0', "the default speed (36 m/s)"}, {0, NULL}},
    .prediction = "discrete detection finds no contact and the sphere ends behind the plate; CCD reports the hit in "
                  "the step where the centre crosses the offset face, the cubic at the exact time of impact (to "
                  "rounding), the inclusion test no later than it",
    .overlays = "points,normals",
    .steps = CYCLE,
    CFV_DEMO_STEP_HOOKS,
    .key = key,
};
