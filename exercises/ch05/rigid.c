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
    // TODO(ch05.6): implement this; the specification is in cf_ch05.h
    return CF_TODO_S("ch05.6");
    //< ch05:rigid-prepare
}

//> ch05:rigid-contact
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
    // TODO(ch05.6): implement this; the specification is in cf_ch05.h
    st = CF_TODO_S("ch05.6");
    //< ch05:rigid-solve
    if (rep) rep->seconds = cf_seconds() - t0;
    return st;
}
