/* SPDX-License-Identifier: MIT */
/* Chapter 2, exercise ch02.5: the Delassus operator W = J M^-1 J^T of rigid contacts, stored
   block-sparse, and the frictional contact problem (W, q, mu).
   Specification: lib/include/cf/cf_ch02.h; text: chapters/ch02/README.md. */
#include "cf/cf_ch02.h"

#include <stdlib.h>
#include <string.h>

/* the body of a contact side, or NULL for the static environment */
static const cfRigidBody *body_or_null(const cfRigidBody *bodies, int k) { return k < 0 ? NULL : &bodies[k]; }

/* index checks shared by both functions */
static cfStatus check_contacts(int n_bodies, const cfContact *contacts, int nc)
{
    if (nc < 0 || (nc > 0 && !contacts)) return CF_BAD_INPUT;
    for (int a = 0; a < nc; ++a) {
        int i = contacts[a].body_a, j = contacts[a].body_b;
        if (i >= n_bodies || j >= n_bodies) return CF_BAD_INPUT;
        if (i >= 0 && i == j) return CF_BAD_INPUT; /* a body cannot touch itself */
    }
    return CF_OK;
}

/* the 6x3 product M_k^-1 J^T of a 3x6 block J for body k */
static void minv_jt(const cfRigidBody *b, double J[3][6], double out[6][3])
{
    for (int r = 0; r < 3; ++r) {
        cfVec3 lin = cfu_scale(b->inv_mass, cfu_vec3(J[r][0], J[r][1], J[r][2]));
        cfVec3 ang = cfu_mat3_mul_vec(b->inv_inertia_world, cfu_vec3(J[r][3], J[r][4], J[r][5]));
        double col[6] = {lin.x, lin.y, lin.z, ang.x, ang.y, ang.z};
        for (int i = 0; i < 6; ++i) out[i][r] = col[i];
    }
}

cfStatus cf_delassus_rigid(const cfRigidBody *bodies, int n_bodies, const cfContact *contacts, int nc,
                           cfBsr *W)
{
    memset(W, 0, sizeof *W);
    cfStatus st = check_contacts(n_bodies, contacts, nc);
    if (st != CF_OK) return st;
    //> ch02:delassus
    // BEGIN SOLUTION ch02.5
    /* per contact and side: the dynamic body (or -1), its 3x6 block J and 6x3 block M^-1 J^T */
    typedef struct Side {
        int body;
        double J[3][6];
        double MJt[6][3];
    } Side;
    Side(*side)[2] = calloc(nc > 0 ? (size_t)nc : 1, sizeof *side);
    if (!side) return CF_NO_MEMORY;
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        const cfContact *c = &contacts[a];
        const cfRigidBody *A = body_or_null(bodies, c->body_a), *B = body_or_null(bodies, c->body_b);
        st = cf_contact_jacobian_rigid(c, A, B, side[a][0].J, side[a][1].J);
        side[a][0].body = (A && !A->fixed) ? c->body_a : -1;
        side[a][1].body = (B && !B->fixed) ? c->body_b : -1;
        for (int s = 0; s < 2; ++s)
            if (side[a][s].body >= 0) minv_jt(&bodies[side[a][s].body], side[a][s].J, side[a][s].MJt);
    }
    if (st == CF_OK) st = cf_bsr_init(W, nc, nc, 3, 3);

    /* block row i: W_ij = sum over shared dynamic bodies of J_i (M^-1 J_j^T) */
    for (int i = 0; i < nc && st == CF_OK; ++i) {
        for (int j = 0; j < nc && st == CF_OK; ++j) {
            double blk[9] = {0};
            bool shared = false;
            for (int si = 0; si < 2; ++si)
                for (int sj = 0; sj < 2; ++sj) {
                    int k = side[i][si].body;
                    if (k < 0 || k != side[j][sj].body) continue;
                    shared = true;
                    for (int r = 0; r < 3; ++r)
                        for (int c = 0; c < 3; ++c)
                            for (int m = 0; m < 6; ++m)
                                blk[3 * r + c] += side[i][si].J[r][m] * side[j][sj].MJt[m][c];
                }
            if (shared || i == j) st = cf_bsr_add_block(W, i, j, blk);
        }
    }
    free(side);
    if (st != CF_OK) {
        cf_bsr_free(W);
        return st;
    }
    cf_bsr_finalize(W);
    return CF_OK;
    // END SOLUTION
    // STUB ch02.5: return CF_TODO_S("ch02.5");
    //< ch02:delassus
}

cfStatus cf_friction_problem_rigid(const cfRigidBody *bodies, int n_bodies, const cfContact *contacts, int nc,
                                   cfFrictionProblem *p)
{
    memset(p, 0, sizeof *p);
    if (nc < 1) return CF_BAD_INPUT;
    cfStatus st = check_contacts(n_bodies, contacts, nc);
    if (st != CF_OK) return st;
    for (int a = 0; a < nc; ++a)
        if (!(isfinite(contacts[a].mu) && contacts[a].mu >= 0.0)) return CF_BAD_INPUT;
    //> ch02:friction-problem-rigid
    // BEGIN SOLUTION ch02.5
    p->nc = nc;
    p->q = calloc((size_t)(3 * nc), sizeof *p->q);
    p->mu = calloc((size_t)nc, sizeof *p->mu);
    if (!p->q || !p->mu) {
        cf_fc_free(p);
        return CF_NO_MEMORY;
    }
    st = cf_delassus_rigid(bodies, n_bodies, contacts, nc, &p->W);
    /* q = J u: the contact velocities of the current body velocities */
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        const cfContact *c = &contacts[a];
        const cfRigidBody *A = body_or_null(bodies, c->body_a), *B = body_or_null(bodies, c->body_b);
        double Ja[3][6], Jb[3][6];
        st = cf_contact_jacobian_rigid(c, A, B, Ja, Jb);
        for (int r = 0; r < 3 && st == CF_OK; ++r) {
            double v = 0.0;
            if (A)
                v += cfu_dot(cfu_vec3(Ja[r][0], Ja[r][1], Ja[r][2]), A->v) +
                     cfu_dot(cfu_vec3(Ja[r][3], Ja[r][4], Ja[r][5]), A->w);
            if (B)
                v += cfu_dot(cfu_vec3(Jb[r][0], Jb[r][1], Jb[r][2]), B->v) +
                     cfu_dot(cfu_vec3(Jb[r][3], Jb[r][4], Jb[r][5]), B->w);
            p->q[3 * a + r] = v;
        }
        p->mu[a] = c->mu;
    }
    if (st == CF_OK && !cf_vec_finite(3 * nc, p->q)) st = CF_BAD_INPUT; /* non-finite velocities */
    if (st != CF_OK) cf_fc_free(p);
    return st;
    // END SOLUTION
    // STUB ch02.5: return CF_TODO_S("ch02.5");
    //< ch02:friction-problem-rigid
}
