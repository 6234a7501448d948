/* SPDX-License-Identifier: MIT */
/* Demo ch04/dantzig_sets: the index sets of Dantzig's method, one pivot at a time, on a stack of three boxes. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch04.h"

/*
 * What the viewer must show: three unit-mass boxes stacked on the ground, frictionless, and the
 * velocity-level LCP of one step: W = J M^-1 J^T = [[1, -1, 0], [-1, 2, -1], [0, -1, 2]] and
 * q = (-h g, 0, 0) (only the bottom box is pushed into the ground by the free velocity). The
 * solve (ch04.1) runs once; its trace is then replayed, one pivot every 40 steps: each contact
 * shows its label (grey UNSEEN, green FREE = clamped, blue LOWER = not clamped) and its impulse
 * x_i as an arrow. The drive of the bottom contact creates a negative w at the middle one, whose
 * drive creates one at the top: three pivots, and the impulses end at (3, 2, 1) h g.
 */

#define NC 3
#define MAXEV 32
#define HOLD 40 /* steps per pivot shown */
#define HG (9.81 / 60)

typedef struct Event {
    int entering, leaving;
    unsigned char label[NC];
    double x[NC], w[NC];
} Event;

typedef struct Data {
    Event ev[MAXEV];
    int n_ev;
    double x[NC];
    cfStatus st;
    bool solved;
    double inv_err; /* largest |w_i| on FREE indices or negative x over all pivots */
} Data;

static void trace(void *ctx, const cfPivotEvent *e)
{
    Data *d = ctx;
    if (d->n_ev >= MAXEV || e->n != NC) return;
    Event *v = &d->ev[d->n_ev++];
    v->entering = e->entering;
    v->leaving = e->leaving;
    for (int i = 0; i < NC; ++i) {
        v->label[i] = e->label[i];
        v->x[i] = e->x[i];
        v->w[i] = e->w[i];
        if (e->label[i] == CF_PIV_FREE) d->inv_err = fmax(d->inv_err, fabs(e->w[i]));
        d->inv_err = fmax(d->inv_err, -e->x[i]);
    }
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    cfWorldDef def = cf_world_def_default();
    def.gravity = cfu_zero3();
    int s = cfv_run_add_world(run, &def, "", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    cfWorld *w = cfv_run_world(run, s);
    for (int i = 0; i < NC; ++i) {
        cfRigidBody b;
        cfStatus st = cf_rigid_init(&b, cf_shape_box(cfu_vec3(0.25, 0.25, 0.25)), 1.0, err);
        if (st != CF_OK) return st;
        b.x = cfu_vec3(0, 0, 0.25 + 0.5 * i);
        snprintf(b.name, sizeof b.name, "box %d", i + 1);
        if (cf_world_add_body(w, &b) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    }
    cfRigidBody ground;
    cfStatus st = cf_rigid_init_fixed(&ground, cf_shape_plane(cfu_vec3(0, 0, 1), 0), err);
    if (st != CF_OK) return st;
    if (cf_world_add_body(w, &ground) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    cfv_run_subject(run, s, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -90, 10, 0);
    return CF_OK;
}

static void solve(cfvRun *run)
{
    Data *d = run->data;
    double A[NC * NC] = {1, -1, 0, -1, 2, -1, 0, -1, 2}, b[NC] = {-HG, 0, 0};
    cfDense M = {NC, NC, A};
    cfLcp p = {0};
    if (cf_lcp_from_dense(&p, &M, b) != CF_OK) {
        d->st = CF_NO_MEMORY;
        return;
    }
    cfPivotOptions opt = cf_pivot_options_default();
    opt.trace = trace;
    opt.trace_ctx = d;
    d->st = cf_lcp_dantzig(&p, &opt, d->x, NULL);
    cf_lcp_free(&p);
    d->solved = true;
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    cfWorld *w = cfv_run_world(run, 0);
    if (!d->solved) solve(run);
    w->time += w->def.dt;
    w->step++;
    if (d->n_ev == 0) return;
    int k = (int)(w->step / HOLD); /* 0: before the first pivot; the last pivot's state stays (r replays) */
    if (k > d->n_ev) k = d->n_ev;
    static const uint32_t col[4] = {0x909090, 0x50e070, 0x5a8cff, 0xffa040};
    static const char *const name[4] = {"UNSEEN", "FREE", "LOWER", "UPPER"};
    const char *lbl[NC];
    for (int i = 0; i < NC; ++i) {
        int L = k == 0 ? CF_PIV_UNSEEN : d->ev[k - 1].label[i];
        double x = k == 0 ? 0 : d->ev[k - 1].x[i];
        lbl[i] = name[L & 3];
        cfVec3 p = cfu_vec3(0.3, -0.3, 0.5 * i);
        char buf[40];
        snprintf(buf, sizeof buf, "%d: %s", i, lbl[i]);
        cfv_run_mark(run, 0, CFV_MARK_POINT, p, p, col[L & 3], buf);
        if (x > 0) cfv_run_mark(run, 0, CFV_MARK_ARROW, cfu_vec3(0, -0.3, 0.5 * i), cfu_vec3(0, -0.3, 0.5 * i + 0.15 * x / HG), 0xffffff, NULL);
    }
    if (k == 0) {
        cfv_run_info(run, 0, "before pivoting: x = 0, w = q = (%.3f, 0, 0), every index UNSEEN", -HG);
        cfv_run_info(run, 1, " ");
    } else {
        const Event *e = &d->ev[k - 1];
        cfv_run_info(run, 0, "pivot %d of %d: entering %d, leaving %d;  labels %s %s %s", k, d->n_ev, e->entering,
                     e->leaving, lbl[0], lbl[1], lbl[2]);
        cfv_run_info(run, 1, "x = (%.4f, %.4f, %.4f) N s   w = (%+.4f, %+.4f, %+.4f) m/s", e->x[0], e->x[1], e->x[2],
                     e->w[0], e->w[1], e->w[2]);
    }
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    double err = 0;
    for (int i = 0; i < NC; ++i) err = fmax(err, fabs(d->x[i] - (NC - i) * HG));
    bool all_free = d->n_ev > 0;
    for (int i = 0; i < NC && all_free; ++i) all_free = d->ev[d->n_ev - 1].label[i] == CF_PIV_FREE;
    bool ok = d->st == CF_OK && err < 1e-12 && d->n_ev == 3 && all_free && d->inv_err < 1e-12;
    snprintf(msg, cap,
             "%s after %d pivots (want 3), x = (%.4f, %.4f, %.4f) = (%.3g, %.3g, %.3g) h g (want 3, 2, 1; error %.2g), "
             "all FREE at the end: %s, w_FREE = 0 and x >= 0 after every pivot within %.2g",
             cf_status_name(d->st), d->n_ev, d->x[0], d->x[1], d->x[2], d->x[0] / HG, d->x[1] / HG, d->x[2] / HG, err,
             all_free ? "yes" : "NO", d->inv_err);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch04_dantzig_sets = {
    .id = "ch04/dantzig_sets",
    .chapter = 4,
    .title = "Dantzig's method pivot by pivot: the index sets on a stack of three boxes",
    .point_at = "the labels next to the contacts (0: ground, 1 and 2 between the boxes): each pivot moves one index "
                "from UNSEEN to FREE, and pushing the bottom box up makes the next contact's w negative, so it is "
                "driven next; the white arrows are the impulses, ending at 3, 2, 1 times h g",
    .keys = "pause,restart",
    .prediction = "Dantzig (ch04.1) solves the stack in 3 pivots, keeps w = 0 on the FREE set and x >= 0 after each "
                  "pivot, and ends with every contact FREE and x = (3, 2, 1) h g",
    .steps = 200,
    CFV_DEMO_STEP_HOOKS,
};
