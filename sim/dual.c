/* SPDX-License-Identifier: MIT */
/* CF_STAGE_ASSEMBLE for a dual-form solver (CF_FORM_DUAL, chapter 8): instead of an assembled W,
   the system A u+ = b + J^T lambda of every body that moves (rigid bodies as A = M, soft bodies in
   contact by their ch08.1 system of the velocities stage) with the contact rows, bias and CFM; and
   the form's apply, which hands the velocities the solver returned to the bodies. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch02.h"
#include "stages.h"

/* What the dual form will take: the preconditioners that build W_A hold it dense, (3 nc)^2 doubles
   (nc^2 without friction); the others a few blocks per contact */
static cfStatus check_size_dual(cfWorld *w, const cfContactList *contacts)
{
    int nc = contacts->count;
    bool frictionless = true;
    for (int a = 0; a < nc; ++a) frictionless = frictionless && contacts->items[a].mu == 0.0;
    cfPreconditioner p = w->def.preconditioner;
    double rows = frictionless ? nc : 3.0 * nc;
    double bytes = (p == CF_PRECOND_LUMPED || p == CF_PRECOND_BLOCK_DIAGONAL) ? 400.0 * nc : 2.0 * rows * rows * sizeof(double);
    double mb = bytes / (1024.0 * 1024.0);
    if (mb > w->def.max_matrix_mb)
        return cf_step_fail(w, CF_BAD_INPUT,
                            "assemble: solver '%s' with preconditioner '%s' needs the dense W_A of %d contacts, about "
                            "%.0f MB, more than max_matrix_mb = %g: use the block-diagonal (ICA) or lumped "
                            "preconditioner, or raise world.max_matrix_mb",
                            w->def.solver->name, cf_preconditioner_name(p), nc, mb, w->def.max_matrix_mb);
    return CF_OK;
}

/* The offsets of the unknowns: 6 per dynamic rigid body, 3 per node of a soft body in contact
   (-1: not in the system); their number in *n */
static cfStatus offsets(const cfWorld *w, const cfContactList *contacts, cfAssembly *as, int *n)
{
    int *ro = realloc(as->rigid_off, (size_t)(w->n_bodies + 1) * sizeof *ro);
    if (ro) as->rigid_off = ro;
    int *so = realloc(as->soft_off, (size_t)(w->n_soft + 1) * sizeof *so);
    if (so) as->soft_off = so;
    if (!ro || !so) return CF_NO_MEMORY;
    *n = 0;
    for (int i = 0; i < w->n_bodies; ++i) {
        ro[i] = w->bodies[i].fixed ? -1 : *n;
        *n += w->bodies[i].fixed ? 0 : 6;
    }
    for (int i = 0; i < w->n_soft; ++i) {
        so[i] = cf_soft_touched(contacts, i) ? *n : -1;
        *n += so[i] >= 0 ? 3 * w->soft[i].n_nodes : 0;
    }
    return CF_OK;
}

/* A block by block, straight into CSR, with b and vfree: rigid bodies diag(m I, I_w) (b = M u*,
   v* = u*), then the soft bodies' systems of the velocities stage */
static cfStatus system_matrix(const cfWorld *w, const cfSoftSteps *soft, const cfAssembly *as, cfDualSystem *d)
{
    const int *ro = as->rigid_off, *so = as->soft_off;
    int n = d->n;
    long nnz = 0;
    for (int i = 0; i < w->n_bodies; ++i) nnz += ro[i] >= 0 ? 12 : 0;
    for (int i = 0; i < w->n_soft; ++i) nnz += so[i] >= 0 ? soft->body[i].A.nnz : 0;
    if (nnz > INT_MAX) return CF_NO_MEMORY;
    d->A.rows = d->A.cols = n;
    d->A.rowptr = malloc((size_t)(n + 1) * sizeof *d->A.rowptr);
    d->A.colidx = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *d->A.colidx);
    d->A.val = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *d->A.val);
    if (!d->A.rowptr || !d->A.colidx || !d->A.val) return CF_NO_MEMORY;
    int e = 0, row = 0;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *r = &w->bodies[i];
        if (ro[i] < 0) continue;
        cfMat3 Iw = cf_rigid_inertia_world(r);
        for (int a = 0; a < 3; ++a, ++row) { /* m I */
            d->A.rowptr[row] = e;
            d->A.colidx[e] = ro[i] + a;
            d->A.val[e++] = r->mass;
        }
        for (int a = 0; a < 3; ++a, ++row) { /* I_w */
            d->A.rowptr[row] = e;
            for (int c = 0; c < 3; ++c) {
                d->A.colidx[e] = ro[i] + 3 + c;
                d->A.val[e++] = Iw.m[a][c];
            }
        }
        cfVec3 Lw = cfu_mat3_mul_vec(Iw, r->w);
        double bi[6] = {r->mass * r->v.x, r->mass * r->v.y, r->mass * r->v.z, Lw.x, Lw.y, Lw.z};
        double vi[6] = {r->v.x, r->v.y, r->v.z, r->w.x, r->w.y, r->w.z};
        memcpy(&d->b[ro[i]], bi, sizeof bi);
        memcpy(&d->vfree[ro[i]], vi, sizeof vi);
    }
    for (int i = 0; i < w->n_soft; ++i) {
        if (so[i] < 0) continue;
        const cfSoftStep *sw = &soft->body[i];
        for (int r = 0; r < sw->A.rows; ++r, ++row) {
            d->A.rowptr[row] = e;
            for (int q = sw->A.rowptr[r]; q < sw->A.rowptr[r + 1]; ++q) {
                d->A.colidx[e] = so[i] + sw->A.colidx[q];
                d->A.val[e++] = sw->A.val[q];
            }
        }
        memcpy(&d->b[so[i]], sw->b, (size_t)sw->A.rows * sizeof *d->b);
        memcpy(&d->vfree[so[i]], sw->vfree, (size_t)sw->A.rows * sizeof *d->vfree);
    }
    d->A.rowptr[n] = e;
    d->A.nnz = e;
    return CF_OK;
}

/* add the 3x3 block m (row-major) at unknowns (r, c) with factor f */
static cfStatus add_block3(cfTriplets *T, int r, int c, const double *m, double f)
{
    cfStatus st = CF_OK;
    for (int i = 0; i < 3 && st == CF_OK; ++i)
        for (int j = 0; j < 3 && st == CF_OK; ++j)
            if (m[3 * i + j] != 0.0) st = cf_triplets_add(T, r + i, c + j, f * m[3 * i + j]);
    return st;
}

/* the three rows of contact @p a in J: rigid sides by ch02.3, soft sides by ch02.4 (fixed nodes
   left out) */
static cfStatus contact_rows(const cfWorld *w, const cfContact *c, int a, const cfAssembly *as, cfTriplets *J)
{
    const int *ro = as->rigid_off, *so = as->soft_off;
    double Ja[3][6], Jb[3][6];
    const cfRigidBody *ra = c->body_a >= 0 ? &w->bodies[c->body_a] : NULL, *rb = c->body_b >= 0 ? &w->bodies[c->body_b] : NULL;
    cfStatus st = cf_contact_jacobian_rigid(c, ra, rb, Ja, Jb);
    for (int side = 0; side < 2 && st == CF_OK; ++side) {
        int body = side == 0 ? c->body_a : c->body_b;
        if (body < 0 || ro[body] < 0) continue;
        double(*Jr)[6] = side == 0 ? Ja : Jb;
        for (int r = 0; r < 3 && st == CF_OK; ++r)
            for (int col = 0; col < 6 && st == CF_OK; ++col)
                if (Jr[r][col] != 0.0) st = cf_triplets_add(J, 3 * a + r, ro[body] + col, Jr[r][col]);
    }
    if (st != CF_OK || !cf_contact_has_soft(c)) return st;
    cfSoftContact sc = cf_soft_contact_of(c, -1);
    double Sa[CF_SOFT_CONTACT_NODES][9], Sb[CF_SOFT_CONTACT_NODES][9];
    st = cf_soft_contact_jacobian(&sc, Sa, Sb);
    for (int side = 0; side < 2 && st == CF_OK; ++side) {
        const cfSoftSide *ss = side == 0 ? &c->extra->soft_a : &c->extra->soft_b;
        for (int q = 0; q < ss->n && st == CF_OK; ++q) {
            if (w->soft[ss->body].fixed[ss->node[q]]) continue;
            st = add_block3(J, 3 * a, so[ss->body] + 3 * ss->node[q], side == 0 ? Sa[q] : Sb[q], 1.0);
        }
    }
    return st;
}

cfStatus cf_assemble_dual(cfWorld *w, const cfContactList *contacts, const cfSoftSteps *soft, cfAssembly *as)
{
    int nc = contacts->count, n = 0;
    cfDualSystem *d = &as->dual;
    cf_dual_free(d);
    cfStatus st = check_size_dual(w, contacts);
    if (st != CF_OK) return st;
    if (offsets(w, contacts, as, &n) != CF_OK) return CF_NO_MEMORY;
    d->n = n;
    d->nc = nc;
    d->b = calloc((size_t)(n > 0 ? n : 1), sizeof *d->b);
    d->vfree = malloc((size_t)(n > 0 ? n : 1) * sizeof *d->vfree);
    d->bias = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *d->bias);
    d->mu = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *d->mu);
    if (!d->b || !d->vfree || !d->bias || !d->mu || cf_buf_reserve(&as->u_dual, n > 0 ? n : 1) != CF_OK) st = CF_NO_MEMORY;
    if (st == CF_OK) st = system_matrix(w, soft, as, d);
    cfTriplets J = {0};
    if (st == CF_OK) st = cf_triplets_init(&J, 3 * nc, n);
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        const cfContact *c = &contacts->items[a];
        st = contact_rows(w, c, a, as, &J);
        if (st != CF_OK) st = cf_step_fail(w, st, "assemble: the Jacobian of contact %d (ch02.3/ch02.4: %s)", a, cf_status_name(st));
        d->bias[a] = (c->phi >= 0.0 ? c->phi : cf_bias_erp(w, as, c) * c->phi) / w->def.dt;
        if (as->impacts && as->impact.v[a] < 0.0) d->bias[a] = fmin(d->bias[a], as->impact.v[a]);
        d->mu[a] = c->mu;
    }
    if (st == CF_OK) st = cf_csr_from_triplets(&J, &d->J);
    cf_triplets_free(&J);
    d->cfm = as->cfm;
    d->h = w->def.dt;
    d->delta = w->def.contact_margin;
    if (st != CF_OK) return cf_step_fail(w, st, "assemble: the dual system (%s)", cf_status_name(st));
    memset(&as->prob, 0, sizeof as->prob);
    as->prob = (cfContactProblem){.form = CF_FORM_DUAL, .nc = nc, .dual = d, .u = as->u_dual.v};
    cf_form_work_use(&as->form, w->def.solver);
    return CF_OK;
}

void cf_apply_dual(cfWorld *w, const cfAssembly *as, cfSoftSteps *soft)
{
    const double *u = as->u_dual.v;
    for (int i = 0; i < w->n_bodies; ++i) {
        int o = as->rigid_off[i];
        if (o < 0) continue;
        w->bodies[i].v = cfu_vec3(u[o], u[o + 1], u[o + 2]);
        w->bodies[i].w = cfu_vec3(u[o + 3], u[o + 4], u[o + 5]);
    }
    for (int i = 0; i < w->n_soft; ++i) {
        int o = as->soft_off[i];
        if (o < 0) continue;
        cfSoftStep *sw = &soft->body[i];
        for (int n = 0; n < w->soft[i].n_nodes; ++n) sw->u_new[n] = cfu_vec3(u[o + 3 * n], u[o + 3 * n + 1], u[o + 3 * n + 2]);
    }
}
