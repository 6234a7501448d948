/* SPDX-License-Identifier: MIT */
/* Demo ch05/exact_vs_pgs: Lemke's exact solution of a stack's contact LCP beside k sweeps of PGS. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch04.h"
#include "cf/cf_ch05.h"

/*
 * What the viewer must show: two copies of a stack of four boxes (masses 1, 1, 1, 2 kg from the
 * bottom) on the ground, and the frictionless velocity-level LCP of one step: contact 0 between
 * the ground and box 1, contact i between boxes i and i+1, W = J M^-1 J^T (tridiagonal), and
 * b = (-h g, 0, 0, 0) (only the bottom contact is closing). The exact impulses are
 * x_i = h g (sum of the masses above contact i) = (5, 4, 3, 2) h g. Left: Lemke's method (ch04.3,
 * chapter 4 is the yardstick); right: PGS (ch05.2) from x = 0 with k sweeps, k on the keys or
 * stepping through 1, 2, 5, ..., 500 by itself. Arrows from the contacts: the impulses (white exact, orange PGS
 * over the exact ones in grey).
 * This demo calls chapter 5, so it lives in chapter 5 (a chapter-4 demo may only call
 * chapters <= 4).
 */

#define NC 4
#define HG (9.81 / 60)
#define NK 9
#define HOLD 45 /* steps per k in the automatic mode */

static const double MASS[NC] = {1, 1, 1, 2};
static const int KS[NK] = {1, 2, 5, 10, 20, 50, 100, 200, 500};

typedef struct Data {
    bool solved;
    cfStatus st_exact;
    double x_exact[NC];
    double r_exact;         /* natural-map residual of Lemke's x */
    double r_pgs[NK];       /* PGS residual after KS[j] sweeps */
    double diff[NK];        /* max |x_pgs - x_exact| / max x_exact */
    cfStatus st_pgs[NK];
    bool manual;
    int k;                  /* sweeps shown (manual mode) */
} Data;

/* W = J M^-1 J^T and b of the stack */
static cfStatus build(cfLcp *p)
{
    double A[NC * NC] = {0}, b[NC] = {-HG};
    for (int i = 0; i < NC; ++i) {
        A[i * NC + i] = 1 / MASS[i] + (i > 0 ? 1 / MASS[i - 1] : 0);
        if (i + 1 < NC) A[i * NC + i + 1] = A[(i + 1) * NC + i] = -1 / MASS[i];
    }
    cfDense M = {NC, NC, A};
    return cf_lcp_from_dense(p, &M, b);
}

/* k sweeps of PGS from zero; returns the status, x and residual */
static cfStatus pgs(const cfLcp *p, int k, double *x, double *r)
{
    for (int i = 0; i < NC; ++i) x[i] = 0;
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = k;
    o.tol_abs = 0; /* exactly k sweeps */
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cfStatus st = cf_lcp_pgs(p, &o, x, &rep);
    *r = cf_lcp_residual(p, x);
    return st;
}

static double scale(const Data *d)
{
    double s = 0;
    for (int i = 0; i < NC; ++i) s = fmax(s, fabs(d->x_exact[i]));
    return s > 0 ? s : 1;
}

static void solve(Data *d)
{
    d->solved = true;
    cfLcp p = {0};
    if (build(&p) != CF_OK) {
        d->st_exact = CF_NO_MEMORY;
        return;
    }
    cfPivotOptions opt = cf_pivot_options_default();
    d->st_exact = cf_lcp_lemke(&p, &opt, d->x_exact, NULL);
    d->r_exact = cf_lcp_residual(&p, d->x_exact);
    for (int j = 0; j < NK; ++j) {
        double x[NC];
        d->st_pgs[j] = pgs(&p, KS[j], x, &d->r_pgs[j]);
        d->diff[j] = 0;
        for (int i = 0; i < NC; ++i) d->diff[j] = fmax(d->diff[j], fabs(x[i] - d->x_exact[i]) / scale(d));
    }
    cf_lcp_free(&p);
}

static cfStatus add(cfvRun *run, const char *label, double x, cfError *err)
{
    cfWorldDef def = cf_world_def_default();
    def.gravity = cfu_zero3();
    int s = cfv_run_add_world(run, &def, label, cfu_vec3(x, 0, 0), err);
    if (s < 0) return CF_BAD_INPUT;
    cfWorld *w = cfv_run_world(run, s);
    for (int i = 0; i < NC; ++i) {
        cfRigidBody b;
        cfStatus st = cf_rigid_init(&b, cf_shape_box(cfu_vec3(0.25, 0.25, 0.25)), MASS[i], err);
        if (st != CF_OK) return st;
        b.x = cfu_vec3(0, 0, 0.25 + 0.5 * i);
        snprintf(b.name, sizeof b.name, "%g kg", MASS[i]);
        if (cf_world_add_body(w, &b) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    }
    cfRigidBody ground;
    cfStatus st = cf_rigid_init_fixed(&ground, cf_shape_plane(cfu_vec3(0, 0, 1), 0), err);
    if (st != CF_OK) return st;
    if (cf_world_add_body(w, &ground) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    return CF_OK;
}

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    d->k = 10;
    cfStatus st = add(run, "exact: Lemke (ch04.3)", -1.3, err);
    if (st == CF_OK) st = add(run, "PGS (ch05.2), k sweeps from 0", 1.3, err);
    for (int k = 0; k < run->n_slots; ++k) cfv_run_subject(run, k, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -90, 8, 0);
    return st;
}

/* the impulses as horizontal arrows from the contacts, 0.12 m per h g (a bar chart beside the stack) */
static void arrows(cfvRun *run, int s, const double *x, uint32_t rgb, bool labels)
{
    for (int i = 0; i < NC; ++i) {
        cfVec3 a = cfu_vec3(0.3, 0, 0.5 * i);
        cfVec3 b = cfu_add(a, cfu_vec3(0.12 * x[i] / HG, 0, 0));
        char lbl[40];
        snprintf(lbl, sizeof lbl, "%.4f", x[i] / HG);
        cfv_run_mark(run, s, labels ? CFV_MARK_ARROW : CFV_MARK_LINE, a, b, rgb, labels ? lbl : NULL);
    }
}

static void show(cfvRun *run)
{
    Data *d = run->data;
    cfWorld *w = cfv_run_world(run, 0);
    int k = d->manual ? d->k : KS[(int)(w->step / HOLD) % NK];
    cfLcp p = {0};
    if (build(&p) != CF_OK) return;
    double x[NC], r;
    cfStatus st = pgs(&p, k, x, &r);
    cf_lcp_free(&p);
    double diff = 0;
    for (int i = 0; i < NC; ++i) diff = fmax(diff, fabs(x[i] - d->x_exact[i]) / scale(d));
    arrows(run, 0, d->x_exact, 0xffffff, true);
    arrows(run, 1, d->x_exact, 0x808080, false); /* the target, under PGS's arrows */
    arrows(run, 1, x, 0xffa040, true);
    cfv_run_info(run, 0, "exact (%s): x = (%.4f, %.4f, %.4f, %.4f) h g, residual %.1e", cf_status_name(d->st_exact),
                 d->x_exact[0] / HG, d->x_exact[1] / HG, d->x_exact[2] / HG, d->x_exact[3] / HG, d->r_exact);
    cfv_run_info(run, 1, "PGS, k = %d sweeps (%s): x = (%.4f, %.4f, %.4f, %.4f) h g", k, cf_status_name(st), x[0] / HG,
                 x[1] / HG, x[2] / HG, x[3] / HG);
    cfv_run_info(run, 2, "PGS residual %.2e, largest difference from exact %.2e of the largest impulse", r, diff);
    cfv_run_info(run, 3, "%s", d->manual ? ", halves k, . doubles it, 0 back to the automatic sequence"
                                         : "k steps through 1 2 5 10 20 50 100 200 500 (, . set it)");
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    cfWorld *w0 = cfv_run_world(run, 0), *w1 = cfv_run_world(run, 1);
    if (!d->solved) solve(d);
    w0->time += w0->def.dt;
    w0->step++;
    w1->time = w0->time;
    w1->step = w0->step;
    show(run);
}

static bool key(cfvRun *run, int k)
{
    Data *d = run->data;
    if (k == ',' || k == '.') {
        if (!d->manual) d->k = KS[(int)(cfv_run_world(run, 0)->step / HOLD) % NK];
        d->manual = true;
        d->k = k == ',' ? (d->k > 1 ? d->k / 2 : 1) : (d->k < 4096 ? d->k * 2 : 4096);
    } else if (k == '0') {
        d->manual = false;
    } else {
        return false;
    }
    if (!d->solved) solve(d);
    cfv_run_clear_marks(run);
    show(run);
    return true;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    bool falls = true;
    for (int j = 1; j < NK; ++j) falls = falls && d->r_pgs[j] < d->r_pgs[j - 1];
    double xerr = 0; /* exact against the closed form */
    for (int i = 0; i < NC; ++i) {
        double want = 0;
        for (int j = i; j < NC; ++j) want += MASS[j] * HG;
        xerr = fmax(xerr, fabs(d->x_exact[i] - want) / scale(d));
    }
    const int j200 = 7; /* KS[7] = 200 */
    bool ok = d->solved && d->st_exact == CF_OK && d->r_exact <= 1e-10 && xerr < 1e-12 && falls &&
              d->diff[j200] < 1e-6;
    int len = snprintf(msg, cap, "Lemke %s, residual %.2g (want <= 1e-10), off (5, 4, 3, 2) h g by %.2g; PGS residual "
                                 "(want falling) / difference from exact:",
                       cf_status_name(d->st_exact), d->r_exact, xerr);
    for (int j = 0; j < NK && len > 0 && (size_t)len < cap; ++j)
        len += snprintf(msg + len, cap - (size_t)len, " k=%d %.2e/%.2e", KS[j], d->r_pgs[j], d->diff[j]);
    if (len > 0 && (size_t)len < cap)
        snprintf(msg + len, cap - (size_t)len, " (want difference < 1e-6 at k = 200)");
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch05_exact_vs_pgs = {
    .id = "ch05/exact_vs_pgs",
    .chapter = 5,
    .title = "Exact beside iterative: Lemke's solution of a stack's contact LCP and k sweeps of PGS",
    .point_at = "the orange arrows on the right grow toward the exact lengths (white on the left, grey under them) as k rises: after one sweep "
                "only the bottom contacts carry load, the top one's impulse arrives last; the HUD shows the residual "
                "and the distance to the exact impulses falling with k",
    .keys = "pause",
    .demo_keys = (const cfvDemoKey[]){{',', "halve k"}, {'.', "double k"}, {'0', "the automatic sequence"}, {0, NULL}},
    .prediction = "Lemke solves the 4-contact stack to residual <= 1e-10 with x = (5, 4, 3, 2) h g; PGS's residual "
                  "falls with k (1, 2, 5, ..., 500) and after 200 sweeps its impulses are within 1e-6 of the largest "
                  "exact one",
    .steps = HOLD * NK,
    CFV_DEMO_STEP_HOOKS,
    .key = key,
};
