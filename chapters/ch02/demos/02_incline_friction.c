/* SPDX-License-Identifier: MIT */
/* Demo ch02/incline_friction: a block on an incline under box, pyramid and cone friction, tangents turned by 45 deg. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch02.h"

/*
 * What the viewer must show: three identical blocks on identical inclines of slope
 * tan(theta) = 1.2 mu, between mu and sqrt(2) mu. The contact's tangents t, b are turned by 45
 * degrees about n, so the downhill direction is a diagonal of the (t, b) plane. Left, the boxed
 * LCP of ch02.6 (|f_t|, |f_b| <= mu f_n: a square around the friction disk): along the diagonal
 * it allows sqrt(2) mu f_n, so the block sticks. Middle, the polyhedral LCP with k = 4 directions
 * (a diamond inside the disk): along the diagonal only mu f_n / sqrt(2), it slides fastest.
 * Right, the cone (the disk itself): it slides, as Coulomb says for tan(theta) > mu.
 *
 * Each step builds the contact problem with ch02.5 (one contact at the block's centre of mass,
 * so W = I/m), then each model's problem with ch02.6, and solves that small problem right here
 * (enumeration of its few index sets; chapter 4 and 5 solvers are not needed), then applies the
 * impulse (cf_rigid_apply_impulses) and moves the block.
 */

enum { BOX = 0, PYRAMID, CONE, MODELS };
static const char *const LABEL[MODELS] = {"box (boxed LCP)", "pyramid (LCP, k = 4)", "cone (Coulomb)"};

#define MU 0.5
#define SLOPE_RATIO 1.2 /* tan(theta) / mu at the start */
#define START (-0.9)    /* m along the slope from the middle of the incline */
#define END 1.0
#define SEGMENTS 8
#define SEG_HALF (1.3 / SEGMENTS)

typedef struct Data {
    double ratio;       /* tan(theta) / mu */
    bool aligned;       /* t along the slope instead of turned by 45 deg */
    double s[MODELS];   /* distance travelled down the slope (m) */
    double ft[MODELS];  /* last friction force magnitude / normal force */
    bool bad;           /* a problem could not be built or solved */
} Data;

static cfVec3 downhill(double th) { return cfu_vec3(cos(th), 0, -sin(th)); }
static cfVec3 normal(double th) { return cfu_vec3(sin(th), 0, cos(th)); }

/* pose the inclines and blocks for the current slope; blocks at rest at the top */
static void place(cfvRun *run)
{
    Data *d = run->data;
    double th = atan(d->ratio * MU);
    for (int k = 0; k < run->n_slots; ++k) {
        cfWorld *w = cfv_run_world(run, k);
        cfRigidBody *ramp = &w->bodies[0], *block = &w->bodies[1];
        ramp->q = block->q = cfu_quat_from_axis_angle(cfu_vec3(0, 1, 0), th);
        ramp->x = cfu_scale(-0.05, normal(th));
        /* the incline is drawn as short pieces too, so that the painter's sort keeps the block on top */
        for (int i = 0; i < SEGMENTS; ++i) {
            cfRigidBody *g = &w->bodies[2 + i];
            g->q = ramp->q;
            g->x = cfu_mul_add(ramp->x, 2 * SEG_HALF * (i - 0.5 * (SEGMENTS - 1)), downhill(th));
            cf_rigid_update_inertia(g);
        }
        block->x = cfu_mul_add(cfu_scale(START, downhill(th)), 0.12, normal(th));
        block->v = block->w = cfu_zero3();
        cf_rigid_update_inertia(ramp);
        cf_rigid_update_inertia(block);
        w->time = 0;
        w->step = 0;
        run->slot[k].halted = false;
        d->s[k] = d->ft[k] = 0;
    }
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    d->ratio = SLOPE_RATIO;
    for (int k = 0; k < MODELS; ++k) {
        cfWorldDef def = cf_world_def_default();
        def.dt = 1.0 / 60;
        int s = cfv_run_add_world(run, &def, LABEL[k], cfu_vec3(0, 1.2 * (k - 1), 0), err);
        if (s < 0) return CF_BAD_INPUT;
        cfRigidBody ramp, block, seg;
        cfStatus st = cf_rigid_init_fixed(&ramp, cf_shape_box(cfu_vec3(1.3, 0.4, 0.05)), err);
        if (st == CF_OK) st = cf_rigid_init_fixed(&seg, cf_shape_box(cfu_vec3(SEG_HALF, 0.4, 0.05)), err);
        if (st == CF_OK) st = cf_rigid_init(&block, cf_shape_box(cfu_vec3(0.12, 0.12, 0.12)), 1.0, err);
        if (st != CF_OK) return st;
        snprintf(ramp.name, sizeof ramp.name, "incline");
        snprintf(block.name, sizeof block.name, "block");
        cfWorld *w = cfv_run_world(run, s);
        ramp.shape = cf_shape_box(cfu_vec3(1e-3, 1e-3, 1e-3)); /* the solver's body; the pieces are drawn */
        if (cf_world_add_body(w, &ramp) < 0 || cf_world_add_body(w, &block) < 0)
            return cf_error_set(err, CF_NO_MEMORY, "out of memory");
        snprintf(seg.name, sizeof seg.name, "incline");
        for (int i = 0; i < SEGMENTS; ++i)
            if (cf_world_add_body(w, &seg) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    }
    place(run);
    for (int k = 0; k < MODELS; ++k) cfv_run_subject(run, k, 1); /* the blocks and the paths they slide */
    cfv_run_set_camera(run, cfu_zero3(), -25, 28, 0);
    return CF_OK;
}

static double csr_get(const cfCsr *A, int i, int j)
{
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k)
        if (A->colidx[k] == j) return A->val[k];
    return 0;
}

/* Gaussian elimination with partial pivoting on an n x n (n <= 8) system; false when singular */
static bool solve_small(int n, double M[8][9])
{
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if (fabs(M[r][c]) > fabs(M[p][c])) p = r;
        if (fabs(M[p][c]) < 1e-12) return false;
        for (int j = 0; j <= n; ++j) {
            double t = M[c][j];
            M[c][j] = M[p][j];
            M[p][j] = t;
        }
        for (int r = 0; r < n; ++r)
            if (r != c) {
                double f = M[r][c] / M[c][c];
                for (int j = c; j <= n; ++j) M[r][j] -= f * M[c][j];
            }
    }
    for (int r = 0; r < n; ++r) M[r][n] /= M[r][r];
    return true;
}

/* LCP of n <= 8 variables by enumerating the 2^n supports: w_F = 0, x elsewhere 0 */
static bool lcp_enumerate(const cfLcp *p, double *x)
{
    int n = p->n;
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
        double M[8][9] = {{0}};
        for (int i = 0; i < n; ++i) {
            if (mask >> i & 1) {
                for (int j = 0; j < n; ++j) M[i][j] = csr_get(&p->A, i, j);
                M[i][n] = -p->b[i];
            } else {
                M[i][i] = 1;
            }
        }
        if (!solve_small(n, M)) continue;
        bool ok = true;
        for (int i = 0; i < n && ok; ++i) {
            x[i] = M[i][n];
            ok = x[i] >= -1e-12;
        }
        for (int i = 0; i < n && ok; ++i) {
            double w = p->b[i];
            for (int j = 0; j < n; ++j) w += csr_get(&p->A, i, j) * M[j][n];
            ok = w >= -1e-12;
        }
        if (ok) return true;
    }
    return false;
}

/* boxed LCP of one contact (3 variables, tangent bounds mu x_n): enumerate lower / free / upper */
static bool blcp_enumerate(const cfBlcp *p, double *x)
{
    for (int code = 0; code < 27; ++code) {
        int state[3] = {code % 3, code / 3 % 3, code / 9}; /* 0 lower, 1 free, 2 upper */
        if (state[0] == 2) continue;                      /* the normal has no upper bound */
        double M[8][9] = {{0}};
        for (int i = 0; i < 3; ++i) {
            if (state[i] == 1) {
                for (int j = 0; j < 3; ++j) M[i][j] = csr_get(&p->A, i, j);
                M[i][3] = -p->b[i];
            } else if (p->findex[i] < 0) {
                M[i][i] = 1; /* x_i = lo = 0 */
            } else {
                M[i][i] = 1; /* x_i = -+ mu x_n */
                M[i][p->findex[i]] = state[i] == 2 ? -p->mu[i] : p->mu[i];
            }
        }
        if (!solve_small(3, M)) continue;
        bool ok = true;
        for (int i = 0; i < 3 && ok; ++i) {
            x[i] = M[i][3];
            double w = p->b[i], lo, hi;
            for (int j = 0; j < 3; ++j) w += csr_get(&p->A, i, j) * M[j][3];
            lo = p->findex[i] < 0 ? 0 : -p->mu[i] * M[p->findex[i]][3];
            hi = p->findex[i] < 0 ? INFINITY : p->mu[i] * M[p->findex[i]][3];
            if (state[i] == 1) ok = x[i] >= lo - 1e-12 && x[i] <= hi + 1e-12;
            else ok = state[i] == 0 ? w >= -1e-12 : w <= 1e-12;
        }
        if (ok) return true;
    }
    return false;
}

/* the cone for W = I/m (contact at the centre of mass): normal, then the disk, in closed form */
static void cone_single(const cfFrictionProblem *fc, double *r)
{
    double Wd[3];
    for (int i = 0; i < 3; ++i) Wd[i] = fc->W.val[i * 3 + i]; /* the one 3x3 block, row-major */
    r[0] = fmax(0, -fc->q[0] / Wd[0]);
    r[1] = -fc->q[1] / Wd[1];
    r[2] = -fc->q[2] / Wd[2];
    double rt = hypot(r[1], r[2]), lim = fc->mu[0] * r[0];
    if (rt > lim) {
        r[1] *= lim / rt;
        r[2] *= lim / rt;
    }
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    double th = atan(d->ratio * MU);
    for (int k = 0; k < MODELS; ++k) {
        if (run->slot[k].halted) continue;
        cfWorld *w = cfv_run_world(run, k);
        cfRigidBody *B = &w->bodies[1];
        double h = w->def.dt;
        B->v = cfu_mul_add(B->v, h, w->def.gravity); /* free velocity */
        cfContact c = {.body_a = 0, .body_b = 1, .p = B->x, .n = normal(th), .mu = MU};
        cfVec3 s = downhill(th), side = cfu_cross(c.n, s);
        double a = d->aligned ? 0 : CF_PI / 4;
        c.t = cfu_add(cfu_scale(cos(a), s), cfu_scale(sin(a), side));
        c.b = cfu_cross(c.n, c.t);
        cfFrictionProblem fc = {0};
        double r[3] = {0, 0, 0};
        bool ok = cf_friction_problem_rigid(w->bodies, w->n_bodies, &c, 1, &fc) == CF_OK;
        if (ok && k == BOX) {
            cfBlcp p = {0};
            ok = cf_friction_boxed_lcp(&fc, &p) == CF_OK && blcp_enumerate(&p, r);
            cf_blcp_free(&p);
        } else if (ok && k == PYRAMID) {
            cfLcp p = {0};
            double x[8] = {0};
            ok = cf_friction_polyhedral_lcp(&fc, 4, &p) == CF_OK && p.n == 6 && lcp_enumerate(&p, x);
            /* back to (n, t, b): directions d_i = cos(2 pi i/4) t + sin(2 pi i/4) b */
            r[0] = x[0];
            r[1] = x[1] - x[3];
            r[2] = x[2] - x[4];
            cf_lcp_free(&p);
        } else if (ok) {
            cone_single(&fc, r);
        }
        cf_fc_free(&fc);
        if (!ok) {
            d->bad = true;
            cfv_run_halt(run, k, "could not build or solve the problem");
            continue;
        }
        cf_rigid_apply_impulses(w->bodies, w->n_bodies, &c, 1, r);
        B->x = cfu_mul_add(B->x, h, B->v);
        w->time += h;
        w->step++;
        d->s[k] = cfu_dot(cfu_sub(B->x, cfu_scale(START, s)), s);
        d->ft[k] = r[0] > 0 ? hypot(r[1], r[2]) / r[0] : 0;
        if (d->s[k] > END - START) cfv_run_halt(run, k, "reached the bottom");
        /* the friction impulse (white) and the tangents at the block */
        cfVec3 f = cfu_add(cfu_scale(r[1], c.t), cfu_scale(r[2], c.b));
        cfVec3 base = cfu_mul_add(B->x, 0.14, c.n);
        cfv_run_mark(run, k, CFV_MARK_ARROW, base, cfu_mul_add(base, 0.25, c.t), 0xff7878, "t");
        cfv_run_mark(run, k, CFV_MARK_ARROW, base, cfu_mul_add(base, 0.25, c.b), 0x78e678, "b");
        cfv_run_mark(run, k, CFV_MARK_ARROW, base, cfu_mul_add(base, 0.4 / (h * 9.81), f), 0xffffff, NULL);
        cfv_run_info(run, k, "%-22s moved %.3f m   |f_T| / f_N = %.3f", LABEL[k], d->s[k], d->ft[k]);
    }
    cfv_run_info(run, MODELS, "tan(theta) = %.2f mu (mu = %.2f), tangents %s", d->ratio, MU,
                 d->aligned ? "along the slope" : "turned by 45 deg");
}

static bool key(cfvRun *run, int k)
{
    Data *d = run->data;
    if (k == '1') d->aligned = !d->aligned;
    else if (k == ',') d->ratio = fmax(0.5, d->ratio - 0.05);
    else if (k == '.') d->ratio = fmin(2.0, d->ratio + 0.05);
    else return false;
    place(run);
    return true;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    bool ok = !d->bad && d->s[BOX] < 1e-9 && d->s[PYRAMID] > 0.1 && d->s[CONE] > 0.1 && d->s[PYRAMID] > d->s[CONE];
    snprintf(msg, cap,
             "tan(theta) = %.2f mu, tangents turned by 45 deg: box moved %.2g m (want 0, |f_T|/f_N = %.3f), pyramid "
             "%.3f m, cone %.3f m (want both > 0.1, pyramid farther)",
             d->ratio, d->s[BOX], d->ft[BOX], d->s[PYRAMID], d->s[CONE]);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch02_incline_friction = {
    .id = "ch02/incline_friction",
    .chapter = 2,
    .title = "Box, pyramid and cone friction on an incline: the box model is anisotropic",
    .point_at = "the left block (box friction) stays put while the other two slide; the red and green tangents are "
                "turned 45 deg from the slope; press 1 to align them with the slope: then box and cone agree and "
                "all three slide; , and . change the slope (between mu and sqrt(2) mu only the box holds)",
    .keys = "restart,pause",
    .demo_keys = (const cfvDemoKey[]){{'1', "tangents along the slope / turned 45 deg"}, {',', "slope down"}, {'.', "slope up"}, {0, NULL}},
    .prediction = "at tan(theta) = 1.2 mu with the tangents turned by 45 deg the box-friction block sticks (the square "
                  "allows sqrt(2) mu along its diagonal) while the pyramid (k = 4) and cone blocks slide, the pyramid "
                  "fastest",
    .steps = 60,
    CFV_DEMO_STEP_HOOKS,
    .key = key,
};
