/* SPDX-License-Identifier: MIT */
/* Chapter 5, exercise ch05.6: matrix-free blocked PGS on the rigid system, the simulator's
   solver. Specification: lib/include/cf/cf_ch05.h; text: chapters/ch05/README.md. */
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch05.h"

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

/* the index of a body that can move, or -1 */
static int mover(const cfRigidBody *bodies, int i) { return (i >= 0 && !bodies[i].fixed) ? i : -1; }

cfStatus cf_rigid_pgs_prepare(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc,
                              const cfRigidPgsOptions *o, cfRigidPgs *ws)
{
    if (!options_ok(o) || nb < 0 || nc < 0 || (nc > 0 && !contacts) || !ws) return CF_BAD_INPUT;
    for (int a = 0; a < nc; ++a)
        if (!contact_ok(&contacts[a], nb)) return CF_BAD_INPUT;
    if (nc > ws->cap) {
        cfRigidRow *rows = realloc(ws->rows, (size_t)nc * sizeof *rows);
        int *perm = realloc(ws->perm, (size_t)nc * sizeof *perm);
        if (rows) ws->rows = rows;
        if (perm) ws->perm = perm;
        if (!rows || !perm) return CF_NO_MEMORY;
        ws->cap = nc;
    }
    if (nb > ws->cap_bodies) {
        cfVec3 *vel = realloc(ws->vel, (size_t)2 * nb * sizeof *vel);
        if (!vel) return CF_NO_MEMORY;
        ws->vel = vel;
        ws->cap_bodies = nb;
    }
    ws->nc = nc;
    ws->nb = nb;
    //> ch05:rigid-prepare
    // BEGIN SOLUTION ch05.6
    for (int a = 0; a < nc; ++a) {
        const cfContact *c = &contacts[a];
        cfRigidRow *row = &ws->rows[a];
        row->ia = mover(bodies, c->body_a);
        row->ib = mover(bodies, c->body_b);
        row->dir[0] = c->n;
        row->dir[1] = c->t;
        row->dir[2] = c->b;
        const cfRigidBody *A = row->ia >= 0 ? &bodies[row->ia] : NULL;
        const cfRigidBody *B = row->ib >= 0 ? &bodies[row->ib] : NULL;
        row->inv_mass_a = A ? A->inv_mass : 0.0;
        row->inv_mass_b = B ? B->inv_mass : 0.0;
        for (int k = 0; k < 3; ++k) {
            /* angular rows r x d and their images I^-1 (r x d): the velocity change per unit impulse */
            row->ang_a[k] = A ? cfu_cross(cfu_sub(c->p, A->x), row->dir[k]) : cfu_zero3();
            row->ang_b[k] = B ? cfu_cross(cfu_sub(c->p, B->x), row->dir[k]) : cfu_zero3();
            row->iang_a[k] = A ? cfu_mat3_mul_vec(A->inv_inertia_world, row->ang_a[k]) : cfu_zero3();
            row->iang_b[k] = B ? cfu_mat3_mul_vec(B->inv_inertia_world, row->ang_b[k]) : cfu_zero3();
        }
        double im = row->inv_mass_a + row->inv_mass_b;
        for (int k = 0; k < 3; ++k)
            for (int l = 0; l < 3; ++l)
                row->W[3 * k + l] = im * cfu_dot(row->dir[k], row->dir[l]) + cfu_dot(row->ang_a[k], row->iang_a[l]) +
                                    cfu_dot(row->ang_b[k], row->iang_b[l]);
        row->W[0] += o->cfm;
        /* a gap may close within the step; a penetration is removed by the fraction erp */
        row->bias = (c->phi >= 0.0 ? c->phi : o->erp * c->phi) / o->h;
        row->mu = c->mu;
        for (int k = 0; k < 3; ++k) row->lambda[k] = o->warm_start ? c->lambda[k] : 0.0;
    }
    return CF_OK;
    // END SOLUTION
    // STUB ch05.6: return CF_TODO_S("ch05.6");
    //< ch05:rigid-prepare
}

//> ch05:rigid-contact
// BEGIN SOLUTION ch05.6
/* contact velocity (n, t, b) of a row from the four velocity vectors */
static inline void contact_velocity(const cfRigidRow *row, cfVec3 va, cfVec3 wa, cfVec3 vb, cfVec3 wb, double u[3])
{
    cfVec3 dv = cfu_sub(vb, va);
    for (int k = 0; k < 3; ++k)
        u[k] = cfu_dot(row->dir[k], dv) + cfu_dot(row->ang_b[k], wb) - cfu_dot(row->ang_a[k], wa);
}

/* apply the impulse change d (contact frame) to the four velocity vectors */
static inline void apply(const cfRigidRow *row, const double d[3], cfVec3 *va, cfVec3 *wa, cfVec3 *vb, cfVec3 *wb)
{
    cfVec3 P = cfu_add(cfu_scale(d[0], row->dir[0]), cfu_add(cfu_scale(d[1], row->dir[1]), cfu_scale(d[2], row->dir[2])));
    cfVec3 dwa = cfu_add(cfu_scale(d[0], row->iang_a[0]), cfu_add(cfu_scale(d[1], row->iang_a[1]), cfu_scale(d[2], row->iang_a[2])));
    cfVec3 dwb = cfu_add(cfu_scale(d[0], row->iang_b[0]), cfu_add(cfu_scale(d[1], row->iang_b[1]), cfu_scale(d[2], row->iang_b[2])));
    *va = cfu_mul_add(*va, -row->inv_mass_a, P);
    *wa = cfu_sub(*wa, dwa);
    *vb = cfu_mul_add(*vb, row->inv_mass_b, P);
    *wb = cfu_add(*wb, dwb);
}
// END SOLUTION
//< ch05:rigid-contact

cfStatus cf_rigid_pgs_solve(cfRigidBody *bodies, int nb, cfContact *contacts, int nc, cfRigidPgs *ws,
                            const cfRigidPgsOptions *o, cfReport *rep)
{
    double t0 = cf_seconds();
    if (!options_ok(o) || !ws || ws->nc != nc || ws->nb != nb || (nc > 0 && !contacts)) {
        if (rep) rep->status = CF_BAD_INPUT;
        return CF_BAD_INPUT;
    }
    cfStatus st = CF_OK;
    //> ch05:rigid-solve
    // BEGIN SOLUTION ch05.6
    cfVec3 *vel = ws->vel;
    static const cfVec3 zero = {0.0, 0.0, 0.0};
    for (int i = 0; i < nb; ++i) {
        vel[2 * i] = bodies[i].v;
        vel[2 * i + 1] = bodies[i].w;
    }
    /* warm start: the impulses we start from act on the velocities first */
    for (int a = 0; a < nc; ++a) {
        const cfRigidRow *row = &ws->rows[a];
        cfVec3 va = zero, wa = zero, vb = zero, wb = zero;
        if (row->ia >= 0) va = vel[2 * row->ia], wa = vel[2 * row->ia + 1];
        if (row->ib >= 0) vb = vel[2 * row->ib], wb = vel[2 * row->ib + 1];
        apply(row, row->lambda, &va, &wa, &vb, &wb);
        if (row->ia >= 0) vel[2 * row->ia] = va, vel[2 * row->ia + 1] = wa;
        if (row->ib >= 0) vel[2 * row->ib] = vb, vel[2 * row->ib + 1] = wb;
    }
    cfRng rng;
    cf_rng_seed(&rng, o->seed);
    cfStopReason why = o->max_iter == 0 ? CF_STOP_MAX_ITER : CF_STOP_NONE;
    int k = 0;
    while (why == CF_STOP_NONE) {
        cf_ordering_permutation(o->ordering, nc, k, &rng, ws->perm);
        double dmax = 0.0;
        for (int idx = 0; idx < nc; ++idx) {
            cfRigidRow *row = &ws->rows[ws->perm[idx]];
            /* one read of the two bodies ... */
            cfVec3 va = zero, wa = zero, vb = zero, wb = zero;
            if (row->ia >= 0) va = vel[2 * row->ia], wa = vel[2 * row->ia + 1];
            if (row->ib >= 0) vb = vel[2 * row->ib], wb = vel[2 * row->ib + 1];
            /* ... all three rows at once, with the bias and CFM on the normal ... */
            double u[3], lam[3] = {row->lambda[0], row->lambda[1], row->lambda[2]};
            contact_velocity(row, va, wa, vb, wb, u);
            u[0] += row->bias + o->cfm * lam[0];
            dmax = fmax(dmax, cf_contact_local_solve(row->W, row->mu, o->friction, o->omega, u, lam));
            double d[3] = {lam[0] - row->lambda[0], lam[1] - row->lambda[1], lam[2] - row->lambda[2]};
            apply(row, d, &va, &wa, &vb, &wb);
            /* ... and one write back */
            if (row->ia >= 0) vel[2 * row->ia] = va, vel[2 * row->ia + 1] = wa;
            if (row->ib >= 0) vel[2 * row->ib] = vb, vel[2 * row->ib + 1] = wb;
            memcpy(row->lambda, lam, sizeof lam);
        }
        ++k;
        if (rep) cf_report_push(rep, dmax);
        if (o->tol > 0.0 && dmax <= o->tol) why = CF_STOP_STAGNATION;
        else if (k >= o->max_iter) why = CF_STOP_MAX_ITER;
    }
    /* the natural-map residual of the contact law at the final (biased) velocities */
    double sum = 0.0;
    for (int a = 0; a < nc; ++a) {
        const cfRigidRow *row = &ws->rows[a];
        cfVec3 va = zero, wa = zero, vb = zero, wb = zero;
        if (row->ia >= 0) va = vel[2 * row->ia], wa = vel[2 * row->ia + 1];
        if (row->ib >= 0) vb = vel[2 * row->ib], wb = vel[2 * row->ib + 1];
        double u[3];
        contact_velocity(row, va, wa, vb, wb, u);
        u[0] += row->bias + o->cfm * row->lambda[0];
        sum += cf_contact_residual2(row->lambda, u, row->mu, o->friction);
    }
    for (int i = 0; i < nb; ++i)
        if (!bodies[i].fixed) {
            bodies[i].v = vel[2 * i];
            bodies[i].w = vel[2 * i + 1];
        }
    for (int a = 0; a < nc; ++a) memcpy(contacts[a].lambda, ws->rows[a].lambda, sizeof contacts[a].lambda);
    cf_split_finish(rep, why, k, sqrt(sum));
    if (rep) rep->status = isfinite(sum) ? CF_OK : CF_DIVERGED;
    st = isfinite(sum) ? CF_OK : CF_DIVERGED;
    // END SOLUTION
    // STUB ch05.6: st = CF_TODO_S("ch05.6");
    //< ch05:rigid-solve
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
