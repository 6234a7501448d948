/* SPDX-License-Identifier: MIT */
/* The fast matrix-free blocked PGS (CF_SOLVER_PGS_FAST): ch05.6's method with compact rows, an inlined local solve and an interleaved order. */
#include "cf/cf_rigid_fast.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_problem.h"

void cf_rigid_fast_free(cfRigidFast *ws)
{
    if (!ws) return;
    free(ws->rows);
    free(ws->vel);
    free(ws->pv);
    free(ws->aux);
    free(ws->aux2);
    free(ws->perm);
    free(ws->nrm);
    memset(ws, 0, sizeof *ws);
}

static bool options_ok(const cfRigidPgsOptions *o)
{
    return o && isfinite(o->h) && o->h > 0.0 && o->max_iter >= 0 && o->tol >= 0.0 && o->erp >= 0.0 &&
           o->erp <= 1.0 && isfinite(o->cfm) && o->cfm >= 0.0 && o->omega > 0.0 && o->omega < 2.0 &&
           o->ordering >= CF_ORDER_SEQUENTIAL && o->ordering <= CF_ORDER_RANDOM;
}

static bool contact_ok(const cfContact *c, int nb)
{
    return c->body_a < nb && c->body_b < nb && (c->body_a != c->body_b || c->body_a < 0) &&
           cfu_vec3_finite(c->p) && cfu_vec3_finite(c->n) && cfu_vec3_finite(c->t) && cfu_vec3_finite(c->b) &&
           isfinite(c->phi) && isfinite(c->mu) && c->mu >= 0.0 && isfinite(c->lambda[0]) &&
           isfinite(c->lambda[1]) && isfinite(c->lambda[2]);
}

static void put3(double *dst, cfVec3 v)
{
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
}

static inline double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static cfStatus reserve(cfRigidFast *ws, int nc, int nb)
{
    if (nc > ws->cap) {
        cfFastRow *rows = realloc(ws->rows, (size_t)nc * sizeof *rows);
        if (rows) ws->rows = rows;
        int *perm = realloc(ws->perm, (size_t)nc * sizeof *perm);
        if (perm) ws->perm = perm;
        double *aux = realloc(ws->aux, (size_t)nc * sizeof *aux);
        if (aux) ws->aux = aux;
        double *aux2 = realloc(ws->aux2, (size_t)nc * sizeof *aux2);
        if (aux2) ws->aux2 = aux2;
        cfFastNormal *nrm = realloc(ws->nrm, (size_t)nc * sizeof *nrm);
        if (nrm) ws->nrm = nrm;
        if (!rows || !perm || !aux || !aux2 || !nrm) return CF_NO_MEMORY;
        ws->cap = nc;
    }
    if (nb + 1 > ws->cap_bodies) {
        double *vel = realloc(ws->vel, (size_t)6 * (nb + 1) * sizeof *vel);
        if (vel) ws->vel = vel;
        double *pv = realloc(ws->pv, (size_t)6 * (nb + 1) * sizeof *pv);
        if (pv) ws->pv = pv;
        if (!vel || !pv) return CF_NO_MEMORY;
        ws->cap_bodies = nb + 1;
    }
    return CF_OK;
}

static void fill_row(const cfRigidBody *bodies, int nb, const cfContact *c, int index, const cfRigidPgsOptions *o,
                     cfFastRow *row)
{
    const cfRigidBody *A = (c->body_a >= 0 && !bodies[c->body_a].fixed) ? &bodies[c->body_a] : NULL;
    const cfRigidBody *B = (c->body_b >= 0 && !bodies[c->body_b].fixed) ? &bodies[c->body_b] : NULL;
    row->a = A ? c->body_a : nb;
    row->b = B ? c->body_b : nb;
    row->contact = index;
    cfVec3 dir[3] = {c->n, c->t, c->b};
    row->ima = A ? A->inv_mass : 0.0;
    row->imb = B ? B->inv_mass : 0.0;
    for (int k = 0; k < 3; ++k) {
        cfVec3 ja = A ? cfu_cross(cfu_sub(c->p, A->x), dir[k]) : cfu_zero3();
        cfVec3 jb = B ? cfu_cross(cfu_sub(c->p, B->x), dir[k]) : cfu_zero3();
        put3(&row->d[3 * k], dir[k]);
        put3(&row->ja[3 * k], ja);
        put3(&row->jb[3 * k], jb);
        put3(&row->ka[3 * k], A ? cfu_mat3_mul_vec(A->inv_inertia_world, ja) : cfu_zero3());
        put3(&row->kb[3 * k], B ? cfu_mat3_mul_vec(B->inv_inertia_world, jb) : cfu_zero3());
    }
    double im = row->ima + row->imb;
    for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l)
            row->W[3 * k + l] = im * dot3(&row->d[3 * k], &row->d[3 * l]) + dot3(&row->ja[3 * k], &row->ka[3 * l]) +
                                dot3(&row->jb[3 * k], &row->kb[3 * l]);
    row->W[0] += o->cfm;
    row->inv_wnn = 1.0 / row->W[0];
    double a = row->W[4], b = row->W[5], cc = row->W[8], det = a * cc - b * b;
    row->stick_ok = det > 1e-14 * (a * cc);
    row->kt[0] = row->stick_ok ? cc / det : 0.0;
    row->kt[1] = row->stick_ok ? -b / det : 0.0;
    row->kt[2] = row->stick_ok ? a / det : 0.0;
    row->inv_sigma = 1.0 / (0.5 * (a + cc) + sqrt(0.25 * (a - cc) * (a - cc) + b * b));
    row->bias = (c->phi >= 0.0 ? c->phi : o->erp * c->phi) / o->h;
    row->mu = c->mu;
    for (int k = 0; k < 3; ++k) row->lam[k] = o->warm_start ? c->lambda[k] : 0.0;
}

/* the interleaved order: walk the contacts in their order, but take as next the first of the
   next INTERLEAVE untaken contacts that shares no moving body with the one taken last (else the
   first untaken). The order stays close to the detection order (so stacks converge as with the
   sequential order) while consecutive rows rarely wait on each other's write. ws->perm[i] is the
   position of contact i. */
#define INTERLEAVE 8
static void interleave_order(const cfContact *contacts, const cfRigidBody *bodies, int nc, int nb, cfRigidFast *ws)
{
    double *taken = ws->aux;
    for (int i = 0; i < nc; ++i) taken[i] = 0.0;
    int first = 0, la = -1, lb = -1;
    for (int out = 0; out < nc; ++out) {
        while (taken[first] != 0.0) ++first;
        int pick = first;
        for (int j = first, seen = 0; j < nc && seen < INTERLEAVE; ++j) {
            if (taken[j] != 0.0) continue;
            ++seen;
            int a = contacts[j].body_a, b = contacts[j].body_b;
            a = (a >= 0 && !bodies[a].fixed) ? a : -1;
            b = (b >= 0 && !bodies[b].fixed) ? b : -1;
            bool clash = (a >= 0 && (a == la || a == lb)) || (b >= 0 && (b == la || b == lb));
            if (!clash) {
                pick = j;
                break;
            }
        }
        taken[pick] = 1.0;
        ws->perm[pick] = out;
        la = contacts[pick].body_a;
        lb = contacts[pick].body_b;
        la = (la >= 0 && !bodies[la].fixed) ? la : -1;
        lb = (lb >= 0 && !bodies[lb].fixed) ? lb : -1;
    }
    (void)nb;
}

cfStatus cf_rigid_fast_prepare(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc,
                               const cfRigidPgsOptions *o, bool reorder, cfRigidFast *ws)
{
    if (!options_ok(o) || nb < 0 || nc < 0 || (nc > 0 && !contacts) || !ws || (nb > 0 && !bodies)) return CF_BAD_INPUT;
    for (int a = 0; a < nc; ++a)
        if (!contact_ok(&contacts[a], nb)) return CF_BAD_INPUT;
    cfStatus st = reserve(ws, nc, nb);
    if (st != CF_OK) return st;
    ws->nc = nc;
    ws->nb = nb;
    if (reorder) {
        interleave_order(contacts, bodies, nc, nb, ws);
        for (int i = 0; i < nc; ++i) fill_row(bodies, nb, &contacts[i], i, o, &ws->rows[ws->perm[i]]);
    } else {
        for (int i = 0; i < nc; ++i) fill_row(bodies, nb, &contacts[i], i, o, &ws->rows[i]);
    }
    return CF_OK;
}

/* contact velocity (n, t, b) from the two bodies' velocity slots (v then w) */
static inline void contact_velocity(const cfFastRow *r, const double *A, const double *B, double u[3])
{
    double dv[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
    for (int k = 0; k < 3; ++k)
        u[k] = dot3(&r->d[3 * k], dv) + dot3(&r->jb[3 * k], B + 3) - dot3(&r->ja[3 * k], A + 3);
}

/* add the impulse change dl (contact frame) to the two velocity vectors va, vb (6 each) */
static inline void apply(const cfFastRow *r, const double dl[3], double *va, double *vb)
{
    for (int i = 0; i < 3; ++i) {
        double P = dl[0] * r->d[i] + (dl[1] * r->d[3 + i] + dl[2] * r->d[6 + i]);
        double wa = dl[0] * r->ka[i] + (dl[1] * r->ka[3 + i] + dl[2] * r->ka[6 + i]);
        double wb = dl[0] * r->kb[i] + (dl[1] * r->kb[3 + i] + dl[2] * r->kb[6 + i]);
        va[i] -= r->ima * P;
        va[3 + i] -= wa;
        vb[i] += r->imb * P;
        vb[3 + i] += wb;
    }
}

static inline double max2(double a, double b) { return a > b ? a : b; }
static inline double min2(double a, double b) { return a < b ? a : b; }

/* ch05.5's local solve on one row with the precomputed inverses; returns max |change| */
static inline double local_solve(const cfFastRow *r, bool box, double omega, double u[3], double lam[3])
{
    const double *W = r->W;
    double old0 = lam[0], old1 = lam[1], old2 = lam[2];
    double rn = max2(0.0, lam[0] - omega * u[0] * r->inv_wnn);
    double dn = rn - lam[0];
    u[1] += W[3] * dn;
    u[2] += W[6] * dn;
    lam[0] = rn;
    double radius = r->mu * rn;
    if (box) {
        double r1 = max2(-radius, min2(lam[1] - omega * u[1] / W[4], radius));
        u[2] += W[7] * (r1 - lam[1]);
        lam[1] = r1;
        lam[2] = max2(-radius, min2(lam[2] - omega * u[2] / W[8], radius));
    } else {
        double t0, t1;
        bool stick = false;
        if (r->stick_ok) {
            t0 = lam[1] - (r->kt[0] * u[1] + r->kt[1] * u[2]);
            t1 = lam[2] - (r->kt[1] * u[1] + r->kt[2] * u[2]);
            stick = t0 * t0 + t1 * t1 <= radius * radius;
        }
        if (!stick) {
            t0 = lam[1] - omega * u[1] * r->inv_sigma;
            t1 = lam[2] - omega * u[2] * r->inv_sigma;
            double m2 = t0 * t0 + t1 * t1;
            if (m2 > radius * radius) {
                double s = radius / sqrt(m2);
                t0 *= s;
                t1 *= s;
            }
        }
        lam[1] = t0;
        lam[2] = t1;
    }
    return max2(fabs(lam[0] - old0), max2(fabs(lam[1] - old1), fabs(lam[2] - old2)));
}

cfStatus cf_rigid_fast_solve(cfRigidBody *bodies, int nb, cfContact *contacts, int nc, cfRigidFast *ws,
                             const cfRigidPgsOptions *o, cfReport *rep)
{
    double t0 = cf_seconds();
    if (!options_ok(o) || !ws || ws->nc != nc || ws->nb != nb || (nc > 0 && !contacts)) {
        if (rep) rep->status = CF_BAD_INPUT;
        return CF_BAD_INPUT;
    }
    double *vel = ws->vel;
    for (int i = 0; i < nb; ++i) {
        put3(&vel[6 * i], bodies[i].v);
        put3(&vel[6 * i + 3], bodies[i].w);
    }
    memset(&vel[6 * nb], 0, 6 * sizeof *vel);
    cfFastRow *rows = ws->rows;
    /* warm start; writes to the zero slot are skipped so that it stays zero */
    for (int a = 0; a < nc; ++a) {
        const cfFastRow *r = &rows[a];
        double va[6], vb[6];
        memcpy(va, &vel[6 * r->a], sizeof va);
        memcpy(vb, &vel[6 * r->b], sizeof vb);
        apply(r, r->lam, va, vb);
        if (r->a < nb) memcpy(&vel[6 * r->a], va, sizeof va);
        if (r->b < nb) memcpy(&vel[6 * r->b], vb, sizeof vb);
    }
    const bool box = o->friction == CF_FRICTION_BOX;
    const double omega = o->omega, cfm = o->cfm;
    cfRng rng;
    cf_rng_seed(&rng, o->seed);
    cfStopReason why = o->max_iter == 0 ? CF_STOP_MAX_ITER : CF_STOP_NONE;
    int k = 0;
    while (why == CF_STOP_NONE) {
        bool seq = o->ordering == CF_ORDER_SEQUENTIAL || (o->ordering == CF_ORDER_SYMMETRIC && k % 2 == 0);
        if (!seq) cf_ordering_permutation(o->ordering, nc, k, &rng, ws->perm);
        double dmax = 0.0;
        /* the two bodies' velocities stay in va, vb while consecutive rows share both bodies (the
           points of one box pair): written back only when the pair changes */
        double va[6], vb[6];
        int pa = -1, pb = -1;
        for (int idx = 0; idx < nc; ++idx) {
            cfFastRow *r = &rows[seq ? idx : ws->perm[idx]];
            if (r->a != pa || r->b != pb) {
                if (pa >= 0 && pa < nb) memcpy(&vel[6 * pa], va, sizeof va);
                if (pb >= 0 && pb < nb) memcpy(&vel[6 * pb], vb, sizeof vb);
                memcpy(va, &vel[6 * r->a], sizeof va);
                memcpy(vb, &vel[6 * r->b], sizeof vb);
                pa = r->a;
                pb = r->b;
            }
            double u[3];
            contact_velocity(r, va, vb, u);
            u[0] += r->bias + cfm * r->lam[0];
            double lam[3] = {r->lam[0], r->lam[1], r->lam[2]};
            dmax = max2(dmax, local_solve(r, box, omega, u, lam));
            double dl[3] = {lam[0] - r->lam[0], lam[1] - r->lam[1], lam[2] - r->lam[2]};
            apply(r, dl, va, vb);
            memcpy(r->lam, lam, sizeof lam);
        }
        if (pa >= 0 && pa < nb) memcpy(&vel[6 * pa], va, sizeof va);
        if (pb >= 0 && pb < nb) memcpy(&vel[6 * pb], vb, sizeof vb);
        ++k;
        if (rep) cf_report_push(rep, dmax);
        if (o->tol > 0.0 && dmax <= o->tol) why = CF_STOP_STAGNATION;
        else if (k >= o->max_iter) why = CF_STOP_MAX_ITER;
    }
    /* the natural-map residual of the contact law at the final (biased) velocities */
    double sum = 0.0;
    for (int a = 0; a < nc; ++a) {
        const cfFastRow *row = &rows[a];
        double u[3];
        const double *r = row->lam;
        contact_velocity(row, &vel[6 * row->a], &vel[6 * row->b], u);
        u[0] += row->bias + cfm * r[0];
        if (box) {
            double hi = row->mu * max2(r[0], 0.0), en = r[0] - max2(0.0, r[0] - u[0]);
            double et = r[1] - max2(-hi, min2(r[1] - u[1], hi)), eb = r[2] - max2(-hi, min2(r[2] - u[2], hi));
            sum += en * en + et * et + eb * eb;
        } else {
            double z[3] = {r[0] - (u[0] + row->mu * sqrt(u[1] * u[1] + u[2] * u[2])), r[1] - u[1], r[2] - u[2]}, pz[3];
            cf_cone_project(z, row->mu, pz);
            for (int i = 0; i < 3; ++i) sum += (r[i] - pz[i]) * (r[i] - pz[i]);
        }
        memcpy(contacts[row->contact].lambda, r, 3 * sizeof *r);
    }
    for (int i = 0; i < nb; ++i)
        if (!bodies[i].fixed) {
            bodies[i].v = cfu_vec3(vel[6 * i], vel[6 * i + 1], vel[6 * i + 2]);
            bodies[i].w = cfu_vec3(vel[6 * i + 3], vel[6 * i + 4], vel[6 * i + 5]);
        }
    cf_split_finish(rep, why, k, sqrt(sum));
    cfStatus st = isfinite(sum) ? CF_OK : CF_DIVERGED;
    if (rep) {
        rep->status = st;
        rep->seconds = cf_seconds() - t0;
    }
    return st;
}

void cf_rigid_fast_pseudo_velocities(const cfRigidBody *bodies, const cfContact *contacts, cfRigidFast *ws,
                                     double h, double erp, double slop, int sweeps)
{
    int nc = ws->nc, nb = ws->nb;
    double *pv = ws->pv, *bias = ws->aux, *lam = ws->aux2;
    memset(pv, 0, (size_t)6 * (nb + 1) * sizeof *pv);
    bool active = false;
    const double *vel = ws->vel; /* the solver's final velocities (the bodies' v, w; zero slot for fixed) */
    for (int a = 0; a < nc; ++a) {
        const cfFastRow *r = &ws->rows[a];
        const double *A = &vel[6 * r->a], *B = &vel[6 * r->b];
        double dv[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
        double un = dot3(r->d, dv) + dot3(r->jb, B + 3) - dot3(r->ja, A + 3);
        double phi = contacts[r->contact].phi + h * un;
        bias[a] = erp * min2(phi + slop, 0.0) / h;
        lam[a] = 0.0;
        active |= bias[a] != 0.0;
    }
    /* nothing penetrates beyond the slop: every sweep would leave all impulses at zero */
    if (!active) return;
    (void)bodies;
    /* the normal rows alone, compact: the sweeps below read 4 cache lines per contact, not 9 */
    cfFastNormal *nrm = ws->nrm;
    for (int a = 0; a < nc; ++a) {
        const cfFastRow *r = &ws->rows[a];
        cfFastNormal *q = &nrm[a];
        for (int i = 0; i < 3; ++i) {
            q->n[i] = r->d[i];
            q->ja[i] = r->ja[i];
            q->jb[i] = r->jb[i];
            q->ma[i] = r->ima * r->d[i];
            q->mb[i] = r->imb * r->d[i];
            q->ka[i] = r->ka[i];
            q->kb[i] = r->kb[i];
        }
        q->inv_wnn = r->inv_wnn;
        q->a = r->a;
        q->b = r->b;
    }
    for (int k = 0; k < sweeps; ++k)
        for (int a = 0; a < nc; ++a) {
            const cfFastNormal *q = &nrm[a];
            double *A = &pv[6 * q->a], *B = &pv[6 * q->b];
            double dv[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
            double un = bias[a] + dot3(q->n, dv) + dot3(q->jb, B + 3) - dot3(q->ja, A + 3);
            double l = max2(0.0, lam[a] - un * q->inv_wnn), dl = l - lam[a];
            lam[a] = l;
            if (q->a < nb)
                for (int i = 0; i < 3; ++i) {
                    A[i] -= dl * q->ma[i];
                    A[3 + i] -= dl * q->ka[i];
                }
            if (q->b < nb)
                for (int i = 0; i < 3; ++i) {
                    B[i] += dl * q->mb[i];
                    B[3 + i] += dl * q->kb[i];
                }
        }
}
