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
    // TODO(ch02.5): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.5");
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
    // TODO(ch02.5): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.5");
    //< ch02:friction-problem-rigid
}
