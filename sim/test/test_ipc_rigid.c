/* SPDX-License-Identifier: MIT */
/* Moving rigid boxes under the ipc pipeline (sim/ipc_affine.c, sim/ipc.c): each box a stiff affine
   body whose nodes are x = c + A X. Certificates: the chain-ruled incremental potential against
   finite differences, no crossing at any step (signed volumes, cf_world_crossings()), the resting
   gap the derived kappa predicts, momentum of a free spinning box, mixed rigid-soft stacks at rest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_ipc_affine.h"
#include "cf/cf_ch09.h"
#include "cf/cf_scene.h"
#include "cf/cf_world.h"
#include "scene_support.h"

/* step @p n times, certifying after every step that no surface crossed another and no node or
   corner went through static geometry (cf_world_crossings() with the world before the step) */
static void step_certified(cfWorld *w, int n)
{
    for (int k = 0; k < n; ++k) {
        cfWorld before;
        cft_assert_ok(cf_world_copy(&before, w));
        cfStatus st = cf_world_step(w);
        ck_assert_msg(st == CF_OK, "step %ld: %s", w->step + 1, w->error.msg);
        char what[200];
        int c = cf_world_crossings(w, &before, what, sizeof what);
        ck_assert_msg(c == 0, "step %ld: %d crossings, first: %s", w->step, c, what);
        cf_world_free(&before);
    }
}

/* lowest corner height of rigid box @p b */
static double lowest_corner(const cfRigidBody *b)
{
    double low = INFINITY;
    cfVec3 he = b->shape.half_extents;
    for (int k = 0; k < 8; ++k) {
        cfVec3 X = cfu_vec3(k & 1 ? he.x : -he.x, k & 2 ? he.y : -he.y, k & 4 ? he.z : -he.z);
        low = fmin(low, b->x.z + cfu_quat_rotate(b->q, X).z);
    }
    return low;
}

/* ---- the incremental potential in the affine unknowns ------------------------------------------ */

START_TEST(affine_energy_matches_finite_differences)
{
    /* a slab (fixed box), a rigid box (9 nodes) tilted with one corner and one edge within dhat of
       the slab's top face and its A slightly off a rotation, a free node near the box's top face
       with a spring to a pinned node: the barrier (point-triangle and edge-edge), the spring, the
       inertia and the orthogonality potential all active. The gradient of f(z) against central
       differences of f, the Hessian (unprojected) against central differences of the gradient */
    cfIpcSystem s;
    cft_assert_ok(cf_ipc_init(&s, 0.01, 0.02, 500.0));
    s.gravity = cfu_vec3(0, 0, -9.81);
    ck_assert_int_eq(cf_ipc_add_box(&s, cfu_vec3(-1, -1, -0.2), cfu_vec3(1, 1, 0), 1, 0, true), 0);
    int first = cf_ipc_add_box(&s, cfu_vec3(-0.1, -0.15, -0.05), cfu_vec3(0.1, 0.15, 0.05), 1, 0, false);
    ck_assert_int_eq(first, 8);
    ck_assert_int_eq(cf_ipc_add_node(&s, cfu_zero3(), 0.5, false), 16); /* the box's centre */
    int p = cf_ipc_add_node(&s, cfu_vec3(0.02, 0.01, 0.16), 0.3, false);
    int pin = cf_ipc_add_node(&s, cfu_vec3(0.02, 0.01, 0.4), 1, true);
    ck_assert_int_ge(cf_ipc_add_spring(&s, p, pin, 50.0), 0);
    s.rest[0] = 0.2;
    int count = 9;
    double k = 2e3;
    cfIpcAffine a;
    cft_assert_ok(cf_ipc_affine_init(&a, &s, 1, &first, &count, &k));
    ck_assert_int_eq(a.n_z, 3 * 10 + 12);
    double *z = calloc((size_t)a.n_z, sizeof *z);
    for (int i = 0; i < s.n; ++i)
        if (a.body[i] < 0)
            for (int r = 0; r < 3; ++r) z[a.col[i] + r] = s.q[3 * i + r];
    double *zb = z + a.col[first];
    /* c, and A = a rotation about (1, 1, 0) by 0.3 rad times (I + a small strain) */
    cfMat3 R = cfu_quat_to_mat3(cfu_quat_from_axis_angle(cfu_normalize(cfu_vec3(1, 1, 0)), 0.3));
    const double strain[3][3] = {{0.01, 0.002, 0}, {0.002, -0.005, 0.003}, {0, 0.003, 0.004}};
    zb[0] = 0.0, zb[1] = 0.0, zb[2] = 0.0;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            double v = 0.0;
            for (int l = 0; l < 3; ++l) v += R.m[r][l] * ((l == c) + strain[l][c]);
            zb[3 + 3 * r + c] = v;
        }
    /* lower the box until its lowest corner is 0.006 above the slab (dhat 0.02): pairs active */
    cf_ipc_affine_positions(&a, &s, z, s.q);
    double low = INFINITY;
    for (int i = first; i < first + 8; ++i) low = fmin(low, s.q[3 * i + 2]);
    zb[2] = 0.006 - low;
    cf_ipc_affine_positions(&a, &s, z, s.q);
    memcpy(s.q_start, s.q, (size_t)3 * s.n * sizeof *s.q);
    for (int i = 0; i < 3 * s.n; ++i) s.q_tilde[i] = s.q[i] + 0.01 * sin(1.0 + i); /* an arbitrary target */
    int active = 0;
    double dmin = cf_ipc_min_distance(&s, s.q, &active);
    ck_assert_msg(active >= 2 && dmin > 0.0 && dmin < s.dhat, "active pairs %d, smallest distance %g", active, dmin);

    int n = a.n_z;
    /* the fixed nodes' columns: chapter 9's energy gives them a zero gradient and identity rows (they
       never move), not derivatives: left out of the comparison */
    bool *moves = malloc((size_t)n * sizeof *moves);
    for (int j = 0; j < n; ++j) moves[j] = true;
    for (int i = 0; i < s.n; ++i)
        if (s.fixed[i])
            for (int r = 0; r < 3; ++r) moves[a.col[i] + r] = false;
    double *g = malloc((size_t)n * sizeof *g), *H = malloc((size_t)n * n * sizeof *H);
    double *gp = malloc((size_t)n * sizeof *gp), *gm = malloc((size_t)n * sizeof *gm);
    double f = cf_ipc_affine_energy(&a, &s, z, g, H, false);
    ck_assert(isfinite(f));
    double eps = 1e-6, gmax = cf_vec_norm_inf(n, g), err_g = 0.0, err_h = 0.0, hmax = 0.0;
    for (int j = 0; j < n; ++j) hmax = fmax(hmax, cf_vec_norm_inf(n, H + (size_t)j * n));
    for (int j = 0; j < n; ++j) {
        if (!moves[j]) continue;
        double z0 = z[j];
        z[j] = z0 + eps;
        double fp = cf_ipc_affine_energy(&a, &s, z, gp, NULL, false);
        z[j] = z0 - eps;
        double fm = cf_ipc_affine_energy(&a, &s, z, gm, NULL, false);
        z[j] = z0;
        err_g = fmax(err_g, fabs((fp - fm) / (2 * eps) - g[j]));
        for (int i = 0; i < n; ++i)
            if (moves[i]) err_h = fmax(err_h, fabs((gp[i] - gm[i]) / (2 * eps) - H[(size_t)i * n + j]));
    }
    ck_assert_msg(err_g <= 1e-6 * gmax, "gradient: largest error %g of |g| %g", err_g, gmax);
    ck_assert_msg(err_h <= 1e-6 * hmax, "Hessian: largest error %g of |H| %g", err_h, hmax);
    /* the orthogonality potential alone: zero and stationary at a rotation, positive off it */
    double gr[9], Ar[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) Ar[3 * r + c] = R.m[r][c];
    ck_assert(fabs(cf_ipc_orthogonality(Ar, k, gr, NULL)) < 1e-20 && cf_vec_norm_inf(9, gr) < 1e-12);
    ck_assert(cf_ipc_orthogonality(zb + 3, k, NULL, NULL) > 0.0);
    free(g), free(H), free(gp), free(gm), free(z), free(moves);
    cf_ipc_affine_free(&a);
    cf_ipc_free(&s);
}
END_TEST

/* ---- worlds ------------------------------------------------------------------------------------ */

#define GROUND "{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.3, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}}"

START_TEST(rigid_box_rests_on_ground)
{
    /* a 2 kg box (0.2 x 0.3 x 0.1 m) dropped from 3 cm, tilted by 0.2 rad: it lands on a corner,
       falls flat and rests on its four bottom corners. The derived dhat is 1e-3 of the box's
       diagonal and kappa rests a quarter of its weight at dhat/2 (cfIpcSettings), so each corner
       ends at dhat/2 above the ground */
    const char *json = "{\"world\": {\"dt\": 0.01, \"pipeline\": \"ipc\"}, \"bodies\": [" GROUND ","
                       " {\"name\": \"crate\", \"mass\": 2, \"mu\": 0.3, \"position\": [0.05, -0.02, 0.09],"
                       "  \"orientation\": [0.995, 0.0998, 0, 0], \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.15, 0.05]}}]}";
    cfWorld w;
    sim_parse(json, &w);
    step_certified(&w, 50);
    const cfRigidBody *b = &w.bodies[1];
    double dhat = w.stats.ipc.dhat;
    cft_assert_near(dhat, 1e-3 * 2 * sqrt(0.01 + 0.0225 + 0.0025), 0, 1e-15);
    double low = lowest_corner(b);
    ck_assert_msg(low > 0.0 && low < dhat, "lowest corner at %g (dhat %g)", low, dhat);
    /* flat on four corners at dhat/2 (the equilibrium of kappa (-b'(d)) = m g / 4), at rest */
    cfVec3 up = cfu_quat_rotate(b->q, cfu_vec3(0, 0, 1));
    ck_assert_msg(up.z > 1.0 - 1e-9, "not flat: body z axis %g %g %g", up.x, up.y, up.z);
    cft_assert_near(low, 0.5 * dhat, 0, 0.01 * dhat);
    ck_assert_msg(cfu_norm(b->v) < 1e-3 && cfu_norm(b->w) < 1e-2, "still moving: v %g, w %g", cfu_norm(b->v), cfu_norm(b->w));
    /* the world's energy includes the barrier's: it is what carries the weight now */
    ck_assert(w.stats.ipc.barrier_energy > 0.0);
    cft_assert_near(cf_world_energy(&w) - w.stats.ipc.barrier_energy,
                    cf_rigid_kinetic_energy(b) + 2 * 9.81 * b->x.z, 1e-12, 0);
    cf_world_free(&w);
}
END_TEST

START_TEST(free_spinning_box_keeps_momentum)
{
    /* no gravity, no contact: a box (half sizes 0.1, 0.15, 0.05, 1.5 kg) translating at v = (0.3,
       -0.1, 0.2) and spinning at w = 2 rad/s about its z axis (principal). Linear momentum and the
       orbital angular momentum c x m v: kept to rounding (the incremental potential is translation
       invariant, and the pose projection takes v = dc/dt and w from the nodes' angular momentum).
       The spin I w keeps its direction (no torque, a principal axis) and loses what implicit Euler
       loses: the inertial target turns each point by the tangent h w x r, the stiff potential
       brings the box back to the nearest rotation, by atan(phi) with phi = |w| h, and the nodes'
       angular momentum is then 1/sqrt(1 + phi^2) of the start's (chapter text): after n steps
       |L_n| / |L_0| = (1 + phi^2)^(-n/2), to the box's strain (within 2 % of the loss). A box with
       the corners' inertia only (m/8 each, no centre node) or a projection that dropped the strain
       rate's share would miss it by far more. */
    const char *json = "{\"world\": {\"dt\": 0.01, \"gravity\": [0, 0, 0], \"pipeline\": \"ipc\"}, \"bodies\": ["
                       " {\"name\": \"spinner\", \"mass\": 1.5, \"mu\": 0, \"position\": [0, 0, 1],"
                       "  \"velocity\": [0.3, -0.1, 0.2], \"angular_velocity\": [0, 0, 2],"
                       "  \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.15, 0.05]}}]}";
    cfWorld w;
    sim_parse(json, &w);
    const cfRigidBody *b = &w.bodies[0];
    cfVec3 p0 = cf_world_linear_momentum(&w), orbit0 = cfu_cross(b->x, cfu_scale(b->mass, b->v));
    cfVec3 spin0 = cfu_sub(cf_world_angular_momentum(&w), orbit0);
    double phi = cfu_norm(b->w) * w.def.dt;
    int n = 50;
    step_certified(&w, n);
    cfVec3 p1 = cf_world_linear_momentum(&w), orbit1 = cfu_cross(b->x, cfu_scale(b->mass, b->v));
    cfVec3 spin1 = cfu_sub(cf_world_angular_momentum(&w), orbit1);
    double dp = cfu_norm(cfu_sub(p1, p0)) / cfu_norm(p0), dorbit = cfu_norm(cfu_sub(orbit1, orbit0)) / cfu_norm(orbit0);
    ck_assert_msg(dp < 1e-9 && dorbit < 1e-9, "linear momentum changed by %g, orbital angular momentum by %g (relative)", dp,
                  dorbit);
    double turn = cfu_norm(cfu_cross(spin0, spin1)) / (cfu_norm(spin0) * cfu_norm(spin1));
    ck_assert_msg(turn < 1e-9, "the spin turned by %g rad", turn);
    double loss = 1.0 - cfu_norm(spin1) / cfu_norm(spin0), want = 1.0 - pow(1.0 + phi * phi, -0.5 * n);
    ck_assert_msg(fabs(loss - want) <= 0.02 * want, "spin lost %.5e of its angular momentum, implicit Euler's %.5e", loss,
                  want);
    cf_world_free(&w);
}
END_TEST

START_TEST(mixed_stacks_rest)
{
    /* two stacks on the ground: a rigid box on a soft box (mass-spring, 8 nodes), and a soft box on
       a rigid box. Both settle without a crossing in any step and rest apart: every gap in (0, dhat) */
    const char *json =
        "{\"world\": {\"dt\": 0.01, \"pipeline\": \"ipc\", \"ipc\": {\"dhat\": 0.002}}, \"bodies\": [" GROUND ","
        " {\"name\": \"rigid on soft\", \"mass\": 1, \"mu\": 0.3, \"position\": [0, 0, 0.31],"
        "  \"shape\": {\"type\": \"box\", \"half_extents\": [0.08, 0.08, 0.05]}},"
        " {\"name\": \"rigid below\", \"mass\": 1, \"mu\": 0.3, \"position\": [0.6, 0, 0.052],"
        "  \"shape\": {\"type\": \"box\", \"half_extents\": [0.12, 0.12, 0.05]}}],"
        " \"soft_bodies\": ["
        "  {\"name\": \"soft below\", \"type\": \"spring_box\", \"origin\": [-0.1, -0.1, 0.003], \"size\": [0.2, 0.2, 0.2],"
        "   \"mass\": 1, \"stiffness\": 3000, \"mu\": 0.3},"
        "  {\"name\": \"soft on rigid\", \"type\": \"spring_box\", \"origin\": [0.52, -0.08, 0.13], \"size\": [0.16, 0.16, 0.16],"
        "   \"mass\": 0.5, \"stiffness\": 3000, \"mu\": 0.3}]}";
    cfWorld w;
    sim_parse(json, &w);
    step_certified(&w, 40);
    double dhat = w.stats.ipc.dhat;
    /* rigid on soft: its lowest corner above the soft box's highest node, within dhat */
    double top = -INFINITY, bottom = INFINITY, vmax = 0.0;
    for (int k = 0; k < w.soft[0].n_nodes; ++k) top = fmax(top, w.soft[0].x[k].z), vmax = fmax(vmax, cfu_norm(w.soft[0].v[k]));
    double gap = lowest_corner(&w.bodies[1]) - top;
    ck_assert_msg(gap > 0.0 && gap < dhat, "rigid on soft: gap %g (dhat %g)", gap, dhat);
    /* soft on rigid: the soft box's lowest node above the rigid box's top face */
    for (int k = 0; k < w.soft[1].n_nodes; ++k)
        bottom = fmin(bottom, w.soft[1].x[k].z), vmax = fmax(vmax, cfu_norm(w.soft[1].v[k]));
    gap = bottom - (w.bodies[2].x.z + 0.05);
    ck_assert_msg(gap > 0.0 && gap < dhat, "soft on rigid: gap %g (dhat %g)", gap, dhat);
    for (int i = 1; i < 3; ++i) vmax = fmax(vmax, cfu_norm(w.bodies[i].v));
    ck_assert_msg(vmax < 0.02, "not at rest: largest speed %g m/s", vmax);
    cf_world_free(&w);
}
END_TEST

START_TEST(certificate_sees_rigid_crossings)
{
    /* the certificate can fail on rigid surfaces: a box moved into another gives crossing edges, a
       box moved from above the ground to below it in one step gives corner paths through it */
    const char *json = "{\"world\": {\"dt\": 0.01, \"pipeline\": \"ipc\"}, \"bodies\": [" GROUND ","
                       " {\"name\": \"a\", \"mass\": 1, \"mu\": 0.3, \"position\": [0, 0, 0.2],"
                       "  \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}},"
                       " {\"name\": \"b\", \"mass\": 1, \"mu\": 0.3, \"position\": [0.05, 0.03, 0.45],"
                       "  \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}}]}";
    cfWorld w;
    sim_parse(json, &w);
    ck_assert_int_eq(cf_world_crossings(&w, NULL, NULL, 0), 0);
    cfWorld before;
    cft_assert_ok(cf_world_copy(&before, &w));
    w.bodies[2].x.z = 0.3; /* into box a */
    char what[200];
    ck_assert_int_gt(cf_world_crossings(&w, NULL, what, sizeof what), 0);
    ck_assert_msg(strstr(what, "crosses triangle"), "%s", what);
    w.bodies[2].x.z = 0.45;
    w.bodies[1].x.z = -5.0; /* box a through the ground in one step */
    ck_assert_int_eq(cf_world_crossings(&w, NULL, NULL, 0), 0);
    ck_assert_int_eq(cf_world_crossings(&w, &before, what, sizeof what), 8);
    ck_assert_msg(strstr(what, "of rigid body 'a' went through a static triangle"), "%s", what);
    cf_world_free(&before);
    cf_world_free(&w);
}
END_TEST

/* ---- issue 30: planes are planes ------------------------------------------------------------- */

/* A puck sliding at 10 m/s on a frictionless plane: under ipc the plane was the top face of a slab
   around the rest positions, so it fell off the "infinite" floor (2.55 m from the origin here; a
   puck at 2 m/s fell after 1.5 s). It must slide on, x = v t (no friction, and the barrier pushes
   straight up), at its resting height, for 5 m. */
START_TEST(truth_ipc_plane_is_unbounded)
{
    const char *json = "{\"world\": {\"dt\": 0.01, \"pipeline\": \"ipc\"}, \"bodies\": ["
                       " {\"name\": \"floor\", \"fixed\": true, \"mu\": 0, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}},"
                       " {\"name\": \"puck\", \"mass\": 1, \"mu\": 0, \"position\": [0, 0, 0.0502], \"velocity\": [10, 0, 0],"
                       "  \"shape\": {\"type\": \"box\", \"half_extents\": [0.05, 0.05, 0.05]}}]}";
    cfWorld w;
    sim_parse(json, &w);
    step_certified(&w, 10); /* settled on its corners */
    double z = w.bodies[1].x.z, x0 = w.bodies[1].x.x;
    for (int k = 0; k < 50; ++k) {
        cfStatus st = cf_world_step(&w);
        ck_assert_msg(st == CF_OK, "step %ld: %s", w.step + 1, w.error.msg);
    }
    const cfRigidBody *b = &w.bodies[1];
    cft_assert_near(b->x.x - x0, 10.0 * 0.5, 1e-6, 0);
    cft_assert_near(b->x.z, z, 1e-6, 0);
    ck_assert(b->x.x > 5.0);
    cf_world_free(&w);
}
END_TEST

/* Boxes stacked exactly touching (distance 0) are refused before the Newton solve, which took 19 s
   to find out on a pyramid: the refusal names the reason, and the world stays as it was */
START_TEST(truth_ipc_touching_refused_first)
{
    char json[4096];
    int n = snprintf(json, sizeof json, "{\"world\": {\"dt\": 0.01, \"pipeline\": \"ipc\"}, \"bodies\": [" GROUND);
    for (int layer = 0, k = 0; layer < 3; ++layer)
        for (int i = 0; i < 3 - layer; ++i, ++k)
            n += snprintf(json + n, sizeof json - (size_t)n,
                          ", {\"name\": \"b%d\", \"mass\": 1, \"mu\": 0.3, \"position\": [%g, 0, %g],"
                          " \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}}",
                          k, i - (2 - layer) / 2.0, 0.5 + layer);
    snprintf(json + n, sizeof json - (size_t)n, "]}");
    cfWorld w;
    sim_parse(json, &w);
    cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "a pair is at distance 0 at the start of the step"), "%s", w.error.msg);
    ck_assert(w.step == 0 && w.stats.solver_iterations == 0);
    cf_world_free(&w);
}
END_TEST

static void build(Suite *s)
{
    TCase *u = cft_tcase_unit(s, "affine");
    CFT_TEST(u, affine_energy_matches_finite_differences, "the rigid (affine) incremental potential: gradient and Hessian by finite differences");
    TCase *c = cft_tcase_scene(s, "worlds");
    CFT_TEST(c, rigid_box_rests_on_ground, "a rigid box dropped under ipc rests at dhat/2 on four corners, no crossing");
    CFT_TEST(c, free_spinning_box_keeps_momentum, "a free spinning box: momentum kept, spin decays as implicit Euler's (1 + phi^2)^(-n/2)");
    /* release build only: 13 s of CPU under ASan; the sanitizer run steps rigid and soft boxes together in
       the demo ch09/world_rigid_mixed (cfview's first steps) */
    TCase *h = cft_tcase_heavy(s, "worlds-heavy");
    CFT_TEST(h, mixed_stacks_rest, "rigid on soft and soft on rigid rest without crossing, gaps in (0, dhat)");
    CFT_TEST(c, certificate_sees_rigid_crossings, "the certificate finds rigid overlaps and corner paths through the ground");
    CFT_TEST(c, truth_ipc_plane_is_unbounded, "a puck slides 5 m on an ipc plane: the plane has no edge");
    CFT_TEST(c, truth_ipc_touching_refused_first, "touching boxes under ipc: refused before the Newton solve");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "sim-ipc-rigid", build); }
