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
    // TODO(ch01.4): implement this; the specification is in cf_ch01.h
    return CF_TODO_S("ch01.4");
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
    // TODO(ch01.4): implement this; the specification is in cf_ch01.h
    return CF_TODO_S("ch01.4");
    //< ch01:implicit-step
}

cfStatus cf_soft_step_bdf2(cfSoftBody *s, cfVec3 gravity, double h, cfReport *rep)
{
    if (!(isfinite(h) && h >= 0.0)) return CF_BAD_INPUT;
    if (h == 0.0) return CF_OK;
    //> ch01:bdf2-step
    // TODO(ch01.5): implement this; the specification is in cf_ch01.h
    return CF_TODO_S("ch01.5");
    //< ch01:bdf2-step
}
