/* SPDX-License-Identifier: MIT */
/* Chapter 1, exercises ch01.4-ch01.5: linearized implicit Euler and BDF2 for soft bodies.
   Specification: lib/include/cf/cf_ch01.h; text: chapters/ch01/README.md. */
#include "cf/cf_ch01.h"

#include <stdlib.h>
#include <string.h>

cfStatus cf_soft_assemble_implicit(const cfSoftBody *s, cfVec3 gravity, double h, const cfVec3 *x,
                                   const cfVec3 *u, cfCsr *A, double *b)
{
    if (!(isfinite(h) && h >= 0.0)) return CF_BAD_INPUT;
    //> ch01:implicit-assembly
    // BEGIN SOLUTION ch01.4
    int n = 3 * s->n_nodes;
    cfTriplets T;
    cfStatus st = cf_triplets_init(&T, n, n);
    if (st != CF_OK) return st;

    /* A = M + h B + h^2 K with B = alpha M + beta K:
       the diagonal gets (1 + h alpha) m_i, the stiffness enters with (h beta + h^2) */
    st = cf_soft_stiffness(s, x, &T);
    double k_scale = h * s->damping_beta + h * h;
    for (int e = 0; e < T.nnz; ++e) T.v[e] *= k_scale;
    for (int i = 0; i < s->n_nodes && st == CF_OK; ++i)
        for (int c = 0; c < 3 && st == CF_OK; ++c)
            st = cf_triplets_add(&T, 3 * i + c, 3 * i + c, (1.0 + h * s->damping_alpha) * s->mass[i]);

    /* b = M u + h f(x) */
    cf_soft_forces(s, x, gravity, b);
    for (int i = 0; i < s->n_nodes; ++i) {
        b[3 * i] = s->mass[i] * u[i].x + h * b[3 * i];
        b[3 * i + 1] = s->mass[i] * u[i].y + h * b[3 * i + 1];
        b[3 * i + 2] = s->mass[i] * u[i].z + h * b[3 * i + 2];
    }
    if (st == CF_OK) st = cf_csr_from_triplets(&T, A);
    cf_triplets_free(&T);
    if (st != CF_OK) return st;

    /* fixed nodes: u+ = 0 on their degrees of freedom */
    int *dofs = malloc((size_t)n * sizeof *dofs);
    if (!dofs) {
        cf_csr_free(A);
        return CF_NO_MEMORY;
    }
    int nd = cf_soft_fixed_dofs(s, dofs);
    cf_csr_pin_dofs(A, nd, dofs);
    for (int k = 0; k < nd; ++k) b[dofs[k]] = 0.0;
    free(dofs);
    return CF_OK;
    // END SOLUTION
    // STUB ch01.4: return CF_TODO_S("ch01.4");
    //< ch01:implicit-assembly
}

/* Solve the implicit system assembled at (x, u) with step beta and return the new velocity in
   u_new (N entries); used by both integrators. */
static cfStatus solve_velocity(const cfSoftBody *s, cfVec3 gravity, double beta, const cfVec3 *x,
                               const cfVec3 *u, cfVec3 *u_new, cfReport *rep)
{
    int n = 3 * s->n_nodes;
    cfCsr A = {0};
    double *b = malloc((size_t)n * sizeof *b);
    double *sol = malloc((size_t)n * sizeof *sol);
    cfStatus st = (b && sol) ? cf_soft_assemble_implicit(s, gravity, beta, x, u, &A, b) : CF_NO_MEMORY;
    if (st == CF_OK) {
        /* warm start from the current velocity */
        for (int i = 0; i < s->n_nodes; ++i) {
            sol[3 * i] = u[i].x;
            sol[3 * i + 1] = u[i].y;
            sol[3 * i + 2] = u[i].z;
        }
        cfCgOptions opt = cf_cg_options_default(n);
        opt.tol_rel = 1e-12;
        cfReport local;
        cf_report_init(&local, NULL, 0);
        st = cf_csr_cg(&A, b, sol, &opt, rep ? rep : &local);
    }
    if (st == CF_OK)
        for (int i = 0; i < s->n_nodes; ++i) u_new[i] = cfu_vec3(sol[3 * i], sol[3 * i + 1], sol[3 * i + 2]);
    cf_csr_free(&A);
    free(b);
    free(sol);
    return st;
}

cfStatus cf_soft_step_implicit(cfSoftBody *s, cfVec3 gravity, double h, cfReport *rep)
{
    if (!(isfinite(h) && h >= 0.0)) return CF_BAD_INPUT;
    if (h == 0.0) return CF_OK;
    //> ch01:implicit-step
    // BEGIN SOLUTION ch01.4
    size_t bytes = (size_t)s->n_nodes * sizeof(cfVec3);
    cfVec3 *u_new = malloc(bytes);
    if (!u_new) return CF_NO_MEMORY;
    cfStatus st = solve_velocity(s, gravity, h, s->x, s->v, u_new, rep);
    if (st == CF_OK) {
        memcpy(s->x_prev, s->x, bytes);
        memcpy(s->v_prev, s->v, bytes);
        s->has_prev = true;
        for (int i = 0; i < s->n_nodes; ++i) {
            s->v[i] = u_new[i];
            s->x[i] = cfu_mul_add(s->x[i], h, u_new[i]); /* x+ = x + h u+ */
        }
    }
    free(u_new);
    return st;
    // END SOLUTION
    // STUB ch01.4: return CF_TODO_S("ch01.4");
    //< ch01:implicit-step
}

cfStatus cf_soft_step_bdf2(cfSoftBody *s, cfVec3 gravity, double h, cfReport *rep)
{
    if (!(isfinite(h) && h >= 0.0)) return CF_BAD_INPUT;
    if (h == 0.0) return CF_OK;
    //> ch01:bdf2-step
    // BEGIN SOLUTION ch01.5
    if (!s->has_prev) return cf_soft_step_implicit(s, gravity, h, rep); /* start-up step */

    size_t bytes = (size_t)s->n_nodes * sizeof(cfVec3);
    cfVec3 *xs = malloc(bytes), *us = malloc(bytes), *u_new = malloc(bytes);
    cfStatus st = (xs && us && u_new) ? CF_OK : CF_NO_MEMORY;
    /* BDF2 is implicit Euler with beta = 2h/3 about the extrapolations x*, u* */
    double beta = 2.0 * h / 3.0;
    for (int i = 0; i < s->n_nodes && st == CF_OK; ++i) {
        xs[i] = cfu_sub(cfu_scale(4.0 / 3.0, s->x[i]), cfu_scale(1.0 / 3.0, s->x_prev[i]));
        us[i] = cfu_sub(cfu_scale(4.0 / 3.0, s->v[i]), cfu_scale(1.0 / 3.0, s->v_prev[i]));
    }
    if (st == CF_OK) st = solve_velocity(s, gravity, beta, xs, us, u_new, rep);
    if (st == CF_OK) {
        memcpy(s->x_prev, s->x, bytes);
        memcpy(s->v_prev, s->v, bytes);
        for (int i = 0; i < s->n_nodes; ++i) {
            s->v[i] = u_new[i];
            s->x[i] = s->fixed[i] ? s->x[i] : cfu_mul_add(xs[i], beta, u_new[i]);
        }
    }
    free(xs);
    free(us);
    free(u_new);
    return st;
    // END SOLUTION
    // STUB ch01.5: return CF_TODO_S("ch01.5");
    //< ch01:bdf2-step
}
