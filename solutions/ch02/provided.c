/* SPDX-License-Identifier: MIT */
/* Chapter 2, provided (not exercises; copied unchanged into exercises/ch02/ and not handed in):
   global contact Jacobians of rigid and soft bodies, applying contact impulses to rigid bodies,
   and freeing the soft dual form. */
#include "cf/cf_ch02.h"

#include <stdlib.h>
#include <string.h>

/* contact a's body on side s (0 = A, 1 = B) when it is dynamic, else -1 */
static int dynamic_body(const cfRigidBody *bodies, const cfContact *c, int s)
{
    int k = s == 0 ? c->body_a : c->body_b;
    return (k >= 0 && !bodies[k].fixed) ? k : -1;
}

static cfStatus check_indices(int n_bodies, const cfContact *contacts, int nc)
{
    if (nc < 0 || (nc > 0 && !contacts) || n_bodies < 0) return CF_BAD_INPUT;
    for (int a = 0; a < nc; ++a)
        if (contacts[a].body_a >= n_bodies || contacts[a].body_b >= n_bodies ||
            (contacts[a].body_a >= 0 && contacts[a].body_a == contacts[a].body_b))
            return CF_BAD_INPUT;
    return CF_OK;
}

static cfStatus jacobian_blocks(const cfRigidBody *bodies, const cfContact *c, double Ja[3][6],
                                double Jb[3][6])
{
    const cfRigidBody *A = c->body_a >= 0 ? &bodies[c->body_a] : NULL;
    const cfRigidBody *B = c->body_b >= 0 ? &bodies[c->body_b] : NULL;
    return cf_contact_jacobian_rigid(c, A, B, Ja, Jb);
}

cfStatus cf_rigid_jacobian_bsr(const cfRigidBody *bodies, int n_bodies, const cfContact *contacts, int nc,
                               cfBsr *J)
{
    memset(J, 0, sizeof *J);
    cfStatus st = check_indices(n_bodies, contacts, nc);
    if (st == CF_OK) st = cf_bsr_init(J, nc, n_bodies, 3, 6);
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        double Jab[2][3][6];
        st = jacobian_blocks(bodies, &contacts[a], Jab[0], Jab[1]);
        /* ascending block columns within the row */
        int k0 = dynamic_body(bodies, &contacts[a], 0), k1 = dynamic_body(bodies, &contacts[a], 1);
        int first = (k1 >= 0 && (k0 < 0 || k1 < k0)) ? 1 : 0;
        for (int s = 0; s < 2 && st == CF_OK; ++s) {
            int side = s == 0 ? first : 1 - first;
            int k = side == 0 ? k0 : k1;
            if (k >= 0) st = cf_bsr_add_block(J, a, k, &Jab[side][0][0]);
        }
    }
    if (st != CF_OK) {
        cf_bsr_free(J);
        return st;
    }
    cf_bsr_finalize(J);
    return CF_OK;
}

cfStatus cf_rigid_apply_impulses(cfRigidBody *bodies, int n_bodies, const cfContact *contacts, int nc,
                                 const double *lambda)
{
    cfStatus st = check_indices(n_bodies, contacts, nc);
    if (st != CF_OK) return st;
    if (nc > 0 && (!lambda || !cf_vec_finite(3 * nc, lambda))) return CF_BAD_INPUT;
    /* first the generalized impulse J^T lambda of every body, then the velocity change, so a
       failure leaves the bodies unchanged */
    double *imp = calloc(n_bodies > 0 ? (size_t)(6 * n_bodies) : 1, sizeof *imp);
    if (!imp) return CF_NO_MEMORY;
    for (int a = 0; a < nc; ++a) {
        /* J^T lambda without forming J: the world impulse P = C lambda acts on B at p, -P on A */
        const cfContact *c = &contacts[a];
        const double *l = &lambda[3 * a];
        cfVec3 P = cfu_add(cfu_scale(l[0], c->n), cfu_add(cfu_scale(l[1], c->t), cfu_scale(l[2], c->b)));
        for (int s = 0; s < 2; ++s) {
            int k = dynamic_body(bodies, c, s);
            if (k < 0) continue;
            cfVec3 Ps = s == 0 ? cfu_neg(P) : P, L = cfu_cross(cfu_sub(c->p, bodies[k].x), Ps);
            double *i6 = &imp[6 * k];
            i6[0] += Ps.x, i6[1] += Ps.y, i6[2] += Ps.z, i6[3] += L.x, i6[4] += L.y, i6[5] += L.z;
        }
    }
    for (int k = 0; k < n_bodies && st == CF_OK; ++k) {
        cfRigidBody *b = &bodies[k];
        if (b->fixed) continue;
        b->v = cfu_mul_add(b->v, b->inv_mass, cfu_vec3(imp[6 * k], imp[6 * k + 1], imp[6 * k + 2]));
        b->w = cfu_add(b->w, cfu_mat3_mul_vec(b->inv_inertia_world,
                                              cfu_vec3(imp[6 * k + 3], imp[6 * k + 4], imp[6 * k + 5])));
    }
    free(imp);
    return st;
}

cfStatus cf_soft_jacobian_csr(const cfSoftBody *s, const cfSoftContact *contacts, int nc, cfCsr *J)
{
    memset(J, 0, sizeof *J);
    if (nc < 0 || (nc > 0 && !contacts)) return CF_BAD_INPUT;
    for (int a = 0; a < nc; ++a) {
        const cfSoftContact *c = &contacts[a];
        if (c->na < 0 || c->na > CF_SOFT_CONTACT_NODES || c->nb < 0 || c->nb > CF_SOFT_CONTACT_NODES)
            return CF_BAD_INPUT;
        for (int k = 0; k < c->na; ++k)
            if (c->node_a[k] < 0 || c->node_a[k] >= s->n_nodes) return CF_BAD_INPUT;
        for (int k = 0; k < c->nb; ++k)
            if (c->node_b[k] < 0 || c->node_b[k] >= s->n_nodes) return CF_BAD_INPUT;
    }
    cfTriplets T;
    cfStatus st = cf_triplets_init(&T, 3 * nc, 3 * s->n_nodes);
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        const cfSoftContact *c = &contacts[a];
        double Ja[CF_SOFT_CONTACT_NODES][9], Jb[CF_SOFT_CONTACT_NODES][9];
        st = cf_soft_contact_jacobian(c, Ja, Jb);
        /* fixed nodes cannot move: their columns stay empty (duplicates are summed) */
        for (int k = 0; k < c->na && st == CF_OK; ++k)
            if (!s->fixed[c->node_a[k]]) st = cf_triplets_add_block3(&T, a, c->node_a[k], Ja[k]);
        for (int k = 0; k < c->nb && st == CF_OK; ++k)
            if (!s->fixed[c->node_b[k]]) st = cf_triplets_add_block3(&T, a, c->node_b[k], Jb[k]);
    }
    if (st == CF_OK) st = cf_csr_from_triplets(&T, J);
    cf_triplets_free(&T);
    return st;
}

void cf_soft_dual_free(cfSoftDual *d)
{
    if (!d) return;
    cf_csr_free(&d->A);
    cf_csr_free(&d->J);
    cf_sparse_chol_free(d->chol);
    free(d->b);
    free(d->u_free);
    memset(d, 0, sizeof *d);
}
