/* SPDX-License-Identifier: MIT */
/* The soft step (registry row "soft-step"): substeps, soft contacts and a relax sweep on the fast rows (cf_soft_step.h). */
#include "cf_soft_step.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline double max2(double a, double b) { return a > b ? a : b; }
static inline double min2(double a, double b) { return a < b ? a : b; }

cfSoftness cf_softness(double hertz, double zeta, double h)
{
    double omega = 6.283185307179586 * hertz; /* 2 pi f */
    double a1 = 2.0 * zeta + h * omega, a2 = h * omega * a1, a3 = 1.0 / (1.0 + a2);
    return (cfSoftness){.bias_rate = omega / a1, .mass_scale = a2 * a3, .impulse_scale = a3};
}

void cf_soft_step_free(cfSoftStep *ws)
{
    if (!ws) return;
    cf_rigid_fast_free(&ws->rows);
    free(ws->disp);
    free(ws->ext);
    free(ws->sum);
    memset(ws, 0, sizeof *ws);
}

static cfStatus reserve(cfSoftStep *ws, int nb, int nc)
{
    if (nb + 1 > ws->cap_bodies) {
        double *d = realloc(ws->disp, (size_t)6 * (nb + 1) * sizeof *d);
        if (d) ws->disp = d;
        double *e = realloc(ws->ext, (size_t)3 * (nb + 1) * sizeof *e);
        if (e) ws->ext = e;
        if (!d || !e) return CF_NO_MEMORY;
        ws->cap_bodies = nb + 1;
    }
    if (nc > ws->cap_nc) {
        double *s = realloc(ws->sum, (size_t)3 * nc * sizeof *s);
        if (!s) return CF_NO_MEMORY;
        ws->sum = s;
        ws->cap_nc = nc;
    }
    return CF_OK;
}

/* the soft step's substeps: max(1, iterations / 2), one soft and one relax sweep each (an odd
   iteration count adds a relax sweep to the last substep) */
static int substeps_of(const cfSolverParams *par) { return par->max_iter / 2 > 1 ? par->max_iter / 2 : 1; }

typedef struct Sweep {
    const cfContact *contacts;
    double hs;        /* substep */
    cfSoftness soft;  /* the spring's update (soft sweep) */
    bool relax;       /* rigid rows without the spring's bias */
    bool last;        /* the substep's last sweep: add its impulses to the step's */
    bool box;         /* friction box instead of the cone */
} Sweep;

/* one Gauss-Seidel sweep in contact order (row i is contact i); the two bodies' velocities stay
   in va, vb while consecutive rows share both bodies (the points of one manifold); max |impulse
   change| */
static double sweep(cfSoftStep *ws, const Sweep *sw)
{
    cfRigidFast *f = &ws->rows;
    double *vel = f->vel, va[6], vb[6], dmax = 0.0;
    const double *disp = ws->disp;
    int nb = f->nb, pa = -1, pb = -1;
    for (int i = 0; i < f->nc; ++i) {
        cfFastRow *r = &f->rows[i];
        if (r->a != pa || r->b != pb) {
            if (pa >= 0 && pa < nb) memcpy(&vel[6 * pa], va, sizeof va);
            if (pb >= 0 && pb < nb) memcpy(&vel[6 * pb], vb, sizeof vb);
            memcpy(va, &vel[6 * r->a], sizeof va);
            memcpy(vb, &vel[6 * r->b], sizeof vb);
            pa = r->a;
            pb = r->b;
        }
        /* the gap now: the step's gap moved by the displacements so far (linearized) */
        const double *DA = &disp[6 * r->a], *DB = &disp[6 * r->b];
        double dd[3] = {DB[0] - DA[0], DB[1] - DA[1], DB[2] - DA[2]};
        double s = sw->contacts[r->contact].phi + cf_fast_dot3(r->d, dd) + cf_fast_dot3(r->jb, DB + 3) -
                   cf_fast_dot3(r->ja, DA + 3);
        double bias = 0.0, mass_scale = 1.0, impulse_scale = 0.0;
        if (s > 0.0) {
            bias = s / sw->hs; /* open: close at most the gap in this substep */
        } else if (!sw->relax) {
            bias = max2(sw->soft.bias_rate * s, -CF_SOFT_PUSH);
            mass_scale = sw->soft.mass_scale;
            impulse_scale = sw->soft.impulse_scale;
        }
        double u[3], lam[3] = {r->lam[0], r->lam[1], r->lam[2]};
        cf_fast_contact_velocity(r, va, vb, u);
        double ln = max2(0.0, lam[0] - mass_scale * r->inv_wnn * (u[0] + bias) - impulse_scale * lam[0]);
        double dn = ln - lam[0];
        u[1] += r->W[3] * dn;
        u[2] += r->W[6] * dn;
        lam[0] = ln;
        double radius = r->mu * ln;
        if (sw->box) {
            double l1 = max2(-radius, min2(lam[1] - u[1] / r->W[4], radius));
            u[2] += r->W[7] * (l1 - lam[1]);
            lam[1] = l1;
            lam[2] = max2(-radius, min2(lam[2] - u[2] / r->W[8], radius));
        } else {
            cf_fast_cone_friction(r, 1.0, radius, u, lam);
        }
        double dl[3] = {lam[0] - r->lam[0], lam[1] - r->lam[1], lam[2] - r->lam[2]};
        dmax = max2(dmax, max2(fabs(dl[0]), max2(fabs(dl[1]), fabs(dl[2]))));
        cf_fast_apply(r, dl, va, vb);
        memcpy(r->lam, lam, sizeof lam);
        if (sw->last) /* the substep's impulse is final: add it to the step's */
            for (int c = 0; c < 3; ++c) ws->sum[3 * i + c] += lam[c];
    }
    if (pa >= 0 && pa < nb) memcpy(&vel[6 * pa], va, sizeof va);
    if (pb >= 0 && pb < nb) memcpy(&vel[6 * pb], vb, sizeof vb);
    return dmax;
}

static cfStatus soft_prepare(void **work, const cfContactProblem *p, const cfSolverParams *par)
{
    /* the row needs the split-impulse stage to hand over its substeps' positions; under Baumgarte
       the world asks for a velocity bias (erp > 0) that this method has no use for */
    if (p->erp > 0.0) return CF_BAD_INPUT;
    if (!*work && !(*work = calloc(1, sizeof(cfSoftStep)))) return CF_NO_MEMORY;
    cfSoftStep *ws = *work;
    cfRigidPgsOptions o = cf_rigid_pgs_options_of(p, par);
    o.cfm = 0.0; /* the spring is the softness */
    cfStatus st = cf_rigid_fast_prepare_rows(p->bodies, p->nb, p->contacts, p->nc, &o, &ws->rows);
    if (st == CF_OK) st = reserve(ws, p->nb, p->nc);
    return st;
}

static cfStatus soft_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep)
{
    double t0 = cf_seconds();
    cfSoftStep *ws = *work;
    int nb = p->nb, nc = p->nc, n = substeps_of(par);
    if (!ws || ws->rows.nc != nc || ws->rows.nb != nb || !(p->h > 0.0) || !cfu_vec3_finite(p->gravity))
        return cf_split_refuse(rep, CF_BAD_INPUT);
    cfRigidFast *f = &ws->rows;
    double h = p->h, hs = h / n, *vel = f->vel, *ext = ws->ext, *disp = ws->disp;
    /* velocities before the step's external velocity change (the world added h (g + F/m)); the
       substeps add it back in n shares */
    for (int i = 0; i < nb; ++i) {
        const cfRigidBody *b = &p->bodies[i];
        cfVec3 a = b->fixed ? cfu_zero3() : cfu_add(p->gravity, cfu_scale(b->inv_mass, b->force));
        memcpy(&ext[3 * i], &a, 3 * sizeof *ext);
        cfVec3 v = cfu_mul_add(b->v, -h, a);
        memcpy(&vel[6 * i], &v, 3 * sizeof *vel);
        memcpy(&vel[6 * i + 3], &b->w, 3 * sizeof *vel);
    }
    memset(&vel[6 * nb], 0, 6 * sizeof *vel);
    memset(&ext[3 * nb], 0, 3 * sizeof *ext);
    memset(disp, 0, (size_t)6 * (nb + 1) * sizeof *disp);
    /* warm start: the last step's summed impulse, shared over the substeps */
    for (int a = 0; a < nc; ++a)
        for (int k = 0; k < 3; ++k) f->rows[a].lam[k] /= n;
    memset(ws->sum, 0, (size_t)3 * nc * sizeof *ws->sum);
    Sweep sw = {.contacts = p->contacts, .hs = hs, .soft = cf_softness(0.1 / hs, CF_SOFT_ZETA, hs),
                .box = par->friction == CF_FRICTION_BOX};
    int sweeps = 0;
    double dmax = 0.0;
    for (int k = 0; k < n; ++k) {
        for (int i = 0; i < nb; ++i)
            for (int c = 0; c < 3; ++c) vel[6 * i + c] += hs * ext[3 * i + c];
        for (int a = 0; a < nc; ++a) {
            const cfFastRow *r = &f->rows[a];
            double va[6], vb[6];
            memcpy(va, &vel[6 * r->a], sizeof va);
            memcpy(vb, &vel[6 * r->b], sizeof vb);
            cf_fast_apply(r, r->lam, va, vb);
            if (r->a < nb) memcpy(&vel[6 * r->a], va, sizeof va);
            if (r->b < nb) memcpy(&vel[6 * r->b], vb, sizeof vb);
        }
        sw.relax = sw.last = false;
        dmax = sweep(ws, &sw);
        if (rep) cf_report_push(rep, dmax);
        for (int i = 0; i < 6 * nb; ++i) disp[i] += hs * vel[i];
        int relax = k == n - 1 && par->max_iter > 2 * n ? 2 : 1;
        for (int j = 0; j < relax; ++j) {
            sw.relax = true;
            sw.last = j == relax - 1;
            dmax = sweep(ws, &sw);
            if (rep) cf_report_push(rep, dmax);
        }
        sweeps += 1 + relax;
    }
    /* the summed impulses are the step's answer (and, kept in the contacts, the next step's warm start) */
    memcpy(x, ws->sum, (size_t)3 * nc * sizeof *x);
    bool finite = cf_vec_finite(3 * nc, x);
    cf_split_finish(rep, CF_STOP_MAX_ITER, sweeps, dmax);
    cfStatus st = finite ? CF_OK : CF_DIVERGED;
    if (rep) {
        rep->status = st;
        rep->seconds = cf_seconds() - t0;
    }
    return st;
}

/* the split-impulse stage: the pseudo-velocity d / h - u+ that takes each body from where u+
   moved it to where the substeps did (p->bodies hold u+ now) */
static cfStatus soft_split(void *work, const cfContactProblem *p, double erp, double slop, int sweeps, double *pv)
{
    (void)erp, (void)slop, (void)sweeps;
    const cfSoftStep *ws = work;
    for (int i = 0; i < p->nb; ++i) {
        const cfRigidBody *b = &p->bodies[i];
        double *q = &pv[6 * i];
        const double *d = &ws->disp[6 * i];
        if (b->fixed) {
            memset(q, 0, 6 * sizeof *q);
            continue;
        }
        q[0] = d[0] / p->h - b->v.x;
        q[1] = d[1] / p->h - b->v.y;
        q[2] = d[2] / p->h - b->v.z;
        q[3] = d[3] / p->h - b->w.x;
        q[4] = d[4] / p->h - b->w.y;
        q[5] = d[5] / p->h - b->w.z;
    }
    return CF_OK;
}

static void soft_release(void *work)
{
    cf_soft_step_free(work);
    free(work);
}

const cfSolver cf_solver_soft_step = {
    .name = "soft-step",
    .no_impacts = true,
    .friction_model = true,
    .chapter = 5,
    .form = CF_FORM_ROWS,
    .contacts = true,
    .measure = CF_MEASURE_IMPULSE_CHANGE,
    .summary = "substeps with soft contacts and relaxation, after Box2D v3 (iterations / 2 substeps; "
               "reference solutions only: solutions/ch05/fast/)",
    .split_only = true,
    .prepare = soft_prepare,
    .solve = soft_solve,
    .split = soft_split,
    .release = soft_release,
};
