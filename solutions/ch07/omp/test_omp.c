/* SPDX-License-Identifier: MIT */
/* Tests of the OpenMP PROX-Jacobi (solutions/ch07/omp/): with 1, 2 and 3 threads it gives the
   serial PROX-Jacobi of ch07.3 bit for bit, sweep by sweep, solve by solve and step by step in a
   world. Built and run with the reference solutions only (`make test-omp`, part of `make check`);
   a handout has neither the parallel path nor these tests. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_prox_omp.h"
#include "cft.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

static void read_fc(const char *name, cfFrictionProblem *fc)
{
    char path[700];
    cfError err;
    snprintf(path, sizeof path, "%s/%s", cft_data_dir(), name);
    cfStatus st = cf_fc_read_siconos(path, fc, &err);
    ck_assert_msg(st == CF_OK, "%s: %s", path, err.msg);
}

START_TEST(omp_is_registered)
{
    const cfSolver *s = cf_solver_find("prox-jacobi-omp");
    ck_assert_msg(s == &cf_solver_prox_jacobi_omp, "the registry lists the OpenMP row when it is linked");
    ck_assert(s->form == CF_FORM_FC3D && s->contacts && s->measure == cf_solver_find("prox-jacobi")->measure);
}
END_TEST

/* serial and parallel solves of a file from the same start, 300 sweeps, every strategy: equal bytes */
static void same_solve(const char *name)
{
    cfFrictionProblem fc;
    read_fc(name, &fc);
    cfProxProblem p;
    cft_assert_ok(cf_prox_problem_from_fc(&fc, &p));
    cft_assert_ok(cf_prox_problem_transpose(&p));
    int m = 3 * fc.nc;
    double *r1 = malloc((size_t)m * sizeof *r1), *r2 = malloc((size_t)m * sizeof *r2);
    for (int s = 0; s < CF_RFACTOR_COUNT; ++s)
        for (int threads = 1; threads <= 3; ++threads) {
            cfProxOptions o = cf_prox_options_default();
            o.strategy = (cfRFactor)s;
            o.max_iter = 300;
            o.tol_abs = 0;
            o.window = 4;
            for (int i = 0; i < m; ++i) r1[i] = r2[i] = 0.01 * (i % 7);
            cfProxStats s1, s2;
            cfStatus st1 = cf_prox_jacobi(&p, &o, r1, NULL, &s1);
            omp_set_num_threads(threads);
            cfStatus st2 = cf_prox_jacobi_omp(&p, &o, r2, NULL, &s2);
            ck_assert_msg(st1 == st2, "%s %s %d threads: status", name, cf_rfactor_name(s), threads);
            ck_assert_msg(memcmp(r1, r2, (size_t)m * sizeof *r1) == 0, "%s, %s r, %d threads: not bit for bit", name,
                          cf_rfactor_name(s), threads);
            ck_assert_msg(s1.sweeps == s2.sweeps && s1.rollbacks == s2.rollbacks && s1.merit == s2.merit,
                          "%s, %s r, %d threads: different statistics", name, cf_rfactor_name(s), threads);
        }
    free(r1), free(r2);
    cf_prox_problem_free(&p);
    cf_fc_free(&fc);
}

START_TEST(omp_bit_for_bit_files)
{
    if (!cft_data_or_skip("siconos-fc3d", "omp") || !cft_data_or_skip("fclib", "omp")) return;
    same_solve("siconos-fc3d/Capsules-i101-404.dat");
    same_solve("siconos-fc3d/OneObject-i1028-138.hdf5.dat");
    same_solve("fclib/converted/Box_Stacks-i0122-82-5.condensed.dat");
}
END_TEST

START_TEST(omp_bit_for_bit_world)
{
    /* two worlds, one with prox-jacobi, one with prox-jacobi-omp on 2 threads: the same state after
       every step of a falling, colliding pile */
    cfWorld w[2];
    for (int k = 0; k < 2; ++k) {
        cfWorldDef def = cf_world_def_default();
        def.detector = CF_DETECT_PRIMITIVES;
        def.contact_margin = 0.02;
        def.solver = cf_solver_find(k == 0 ? "prox-jacobi" : "prox-jacobi-omp");
        def.solver_iterations = 50;
        cft_assert_ok_at(cf_world_init(&w[k], &def), "k = %d", k);
        cfRigidBody g;
        cft_assert_ok(cf_rigid_init_fixed(&g, cf_shape_plane(cfu_vec3(0, 0, 1), 0), NULL));
        g.mu = 0.6;
        cf_world_add_body(&w[k], &g);
        for (int i = 0; i < 12; ++i) {
            cfRigidBody b;
            cft_assert_ok_at(cf_rigid_init(&b, i % 2 ? cf_shape_sphere(0.3) : cf_shape_box(cfu_vec3(0.3, 0.25, 0.2)), 1.0, NULL),
                             "i = %d", i);
            b.mu = 0.6;
            b.x = cfu_vec3(0.35 * (i % 3), 0.3 * (i % 2), 0.3 + 0.55 * i);
            b.w = cfu_vec3(0.2 * i, -0.1, 0.3);
            cf_world_add_body(&w[k], &b);
        }
    }
    omp_set_num_threads(2);
    for (int s = 0; s < 120; ++s) {
        cft_assert_ok(cf_world_step(&w[0]));
        cft_assert_ok(cf_world_step(&w[1]));
        for (int i = 0; i < w[0].n_bodies; ++i) {
            const cfRigidBody *a = &w[0].bodies[i], *b = &w[1].bodies[i];
            ck_assert_msg(memcmp(&a->x, &b->x, sizeof a->x) == 0 && memcmp(&a->v, &b->v, sizeof a->v) == 0 &&
                              memcmp(&a->w, &b->w, sizeof a->w) == 0,
                          "step %d body %d: the parallel world differs", s, i);
        }
    }
    ck_assert_int_gt(w[0].contacts.count, 10);
    cf_world_free(&w[0]);
    cf_world_free(&w[1]);
}
END_TEST

static void build(Suite *s)
{
    /* long: OpenMP threads on a busy machine wait for a core (make check also asks them to sleep,
       not spin, while they wait: OMP_WAIT_POLICY=passive) */
    TCase *t = cft_tcase_long(s, "omp");
    CFT_TEST(t, omp_is_registered, "prox-jacobi-omp is a row of the registry");
    CFT_TEST(t, omp_bit_for_bit_files, "1, 2, 3 threads: the serial Jacobi's impulses bit for bit, every strategy");
    CFT_TEST(t, omp_bit_for_bit_world, "a world stepped with the parallel row equals the serial one bit for bit");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "omp", build); }
