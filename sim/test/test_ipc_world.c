/* SPDX-License-Identifier: MIT */
/* The world's ipc pipeline (chapter 9 in the world): a world under ipc never interpenetrates
   (certified at every step by signed volumes, never by chapter 9's distances), a soft box steps
   exactly as chapter 9's own loop steps it, the derived kappa rests a particle at dhat/2, and bad
   IPC settings or bodies are refused with the field named. Run with the reference solutions
   (`make test-sim IMPL=solutions`). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_ch09.h"
#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"
#include "cf/cf_rng.h"
#include "../internal.h" /* cf_world_ipc_system(): the system the certificate checks, for the test's own every-pair count */
#include "scene_support.h"

static void load(const char *scene, cfWorld *w)
{
    cfError err = {{0}};
    cfStatus st = cf_scene_load(cft_scene_path(scene), w, NULL, &err);
    ck_assert_msg(st == CF_OK, "%s: %s", scene, err.msg);
}

/* a copy of @p w: the state before a step, whose paths the certificate checks (cf_world_free() it) */
static void copy(cfWorld *dst, const cfWorld *w)
{
    cft_assert_ok(cf_world_copy(dst, w));
}

/* step @p n times, certifying after every step that no surface crossed another (cf_world_crossings(),
   with the paths of the nodes over the step); returns the smallest pair distance seen */
static double step_certified(cfWorld *w, int n)
{
    double dmin = INFINITY;
    for (int k = 0; k < n; ++k) {
        cfWorld x0;
        copy(&x0, w);
        cfStatus st = cf_world_step(w);
        ck_assert_msg(st == CF_OK, "step %ld: %s", w->step + 1, w->error.msg);
        char what[200];
        int c = cf_world_crossings(w, &x0, what, sizeof what);
        ck_assert_msg(c == 0, "step %ld: %d crossings, first: %s", w->step, c, what);
        dmin = fmin(dmin, w->stats.ipc.min_distance);
        cf_world_free(&x0);
    }
    return dmin;
}

/* ---- no interpenetration ------------------------------------------------------------------------ */

START_TEST(stack_never_interpenetrates)
{
    /* the soft stack scene: both boxes land (the lower at about 0.08 s, the upper at about 0.12 s)
       within the 40 steps, and no surface edge crosses a triangle in any step */
    cfWorld w;
    load("ch09_ipc_soft_stack.json", &w);
    double dmin = step_certified(&w, 40);
    ck_assert_msg(dmin > 0.0 && dmin < w.def.ipc.dhat, "smallest distance %g: the boxes must have come within dhat", dmin);
    /* they landed: the lower box's lowest node is within dhat of the slab's top (z = 0) */
    double low = INFINITY;
    for (int k = 0; k < 8; ++k) low = fmin(low, w.soft[0].x[k].z);
    ck_assert_msg(low > 0.0 && low < w.def.ipc.dhat, "lower box bottom at %g", low);
    cf_world_free(&w);
}
END_TEST

START_TEST(certificate_sees_crossings)
{
    /* the certificate can fail: the upper box moved into the lower one gives crossing edges, and a
       particle that jumps through a plate in one step gives a path crossing */
    cfWorld w;
    load("ch09_ipc_soft_stack.json", &w);
    ck_assert_int_eq(cf_world_crossings(&w, NULL, NULL, 0), 0);
    for (int k = 0; k < 8; ++k) w.soft[1].x[k].z -= 0.3;
    char what[200];
    ck_assert_int_gt(cf_world_crossings(&w, NULL, what, sizeof what), 0);
    ck_assert_msg(strstr(what, "crosses triangle"), "%s", what);
    cf_world_free(&w);

    load("ch09_ipc_tunnel.json", &w);
    cfWorld x0;
    copy(&x0, &w);
    w.soft[0].x[0].z -= 2.0; /* from above the plate to below it */
    ck_assert_int_eq(cf_world_crossings(&w, NULL, NULL, 0), 0); /* a point alone crosses no surface ... */
    ck_assert_int_eq(cf_world_crossings(&w, &x0, what, sizeof what), 1); /* ... its path does */
    ck_assert_msg(strstr(what, "went through a static triangle"), "%s", what);
    cf_world_free(&x0);
    cf_world_free(&w);
}
END_TEST

/* the oracle of the test below: every pair tested, as cf_world_crossings() did before its sweep */
static double vol6(cfVec3 a, cfVec3 b, cfVec3 c, cfVec3 d)
{
    return cfu_dot(cfu_cross(cfu_sub(b, a), cfu_sub(c, a)), cfu_sub(d, a));
}
static bool brute_crosses(cfVec3 p, cfVec3 q, cfVec3 a, cfVec3 b, cfVec3 c)
{
    double sp = vol6(a, b, c, p), sq = vol6(a, b, c, q);
    if ((sp > 0.0 && sq > 0.0) || (sp < 0.0 && sq < 0.0) || (sp == 0.0 && sq == 0.0)) return false;
    double u = vol6(p, q, a, b), v = vol6(p, q, b, c), x = vol6(p, q, c, a);
    return (u >= 0.0 && v >= 0.0 && x >= 0.0) || (u <= 0.0 && v <= 0.0 && x <= 0.0);
}
static int brute_crossings(const cfWorld *w, const cfWorld *before)
{
    cfIpcSystem s;
    cft_assert_ok(cf_world_ipc_system(w, &s));
    int count = 0;
    for (int e = 0; e < s.n_edge; ++e)
        for (int t = 0; t < s.n_tri; ++t) {
            const int *E = s.edge[e], *T = s.tri[t];
            bool shared = false, all_fixed = s.fixed[E[0]] && s.fixed[E[1]];
            for (int k = 0; k < 3; ++k) shared |= E[0] == T[k] || E[1] == T[k], all_fixed &= s.fixed[T[k]];
            count += !shared && !all_fixed &&
                     brute_crosses(cf_ipc_node(s.q, E[0]), cf_ipc_node(s.q, E[1]), cf_ipc_node(s.q, T[0]),
                                   cf_ipc_node(s.q, T[1]), cf_ipc_node(s.q, T[2]));
        }
    /* the paths: every soft node, every corner of a moving box, through a triangle of fixed nodes */
    cfVec3 from[64], to[64];
    for (int i = 0; i < w->n_soft; ++i)
        for (int k = 0; k < w->soft[i].n_nodes; ++k) {
            const int *T;
            for (int t = 0; t < s.n_tri; ++t)
                if (T = s.tri[t], s.fixed[T[0]] && s.fixed[T[1]] && s.fixed[T[2]] &&
                    brute_crosses(before->soft[i].x[k], w->soft[i].x[k], cf_ipc_node(s.q, T[0]), cf_ipc_node(s.q, T[1]),
                                  cf_ipc_node(s.q, T[2]))) {
                    count++;
                    break;
                }
        }
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b0 = &before->bodies[i], *b1 = &w->bodies[i];
        if (b1->fixed) continue;
        for (int k = 0; k < 8; ++k) {
            cfVec3 h = b1->shape.half_extents, X = cfu_vec3(k & 1 ? h.x : -h.x, k & 2 ? h.y : -h.y, k & 4 ? h.z : -h.z);
            from[k] = cfu_add(b0->x, cfu_quat_rotate(b0->q, X)), to[k] = cfu_add(b1->x, cfu_quat_rotate(b1->q, X));
            for (int t = 0; t < s.n_tri; ++t) {
                const int *T = s.tri[t];
                if (s.fixed[T[0]] && s.fixed[T[1]] && s.fixed[T[2]] &&
                    brute_crosses(from[k], to[k], cf_ipc_node(s.q, T[0]), cf_ipc_node(s.q, T[1]), cf_ipc_node(s.q, T[2]))) {
                    count++;
                    break;
                }
            }
        }
    }
    cf_ipc_free(&s);
    return count;
}

START_TEST(certificate_sweep_is_every_pair)
{
    /* the certificate tests only the pairs whose boxes overlap (a sweep): on worlds scrambled at
       random (soft nodes thrown about, the moving boxes turned and moved, with hundreds of crossings
       and paths through the ground), it counts exactly what testing every pair counts */
    cfRng rng;
    cf_rng_seed(&rng, 20261204);
    int total = 0;
    for (int trial = 0; trial < 12; ++trial) {
        cfWorld w, x0;
        load("ch09_ipc_rigid_mixed.json", &w);
        double spread = trial < 6 ? 0.05 : 0.3; /* a few crossings, then many */
        for (int i = 0; i < w.n_soft; ++i)
            for (int k = 0; k < w.soft[i].n_nodes; ++k)
                w.soft[i].x[k] = cfu_add(w.soft[i].x[k], cf_rng_vec3(&rng, -spread, spread));
        copy(&x0, &w);
        for (int i = 0; i < w.n_soft; ++i)
            for (int k = 0; k < w.soft[i].n_nodes; ++k)
                w.soft[i].x[k] = cfu_add(w.soft[i].x[k], cf_rng_vec3(&rng, -2.0 * spread, 2.0 * spread));
        for (int i = 0; i < w.n_bodies; ++i)
            if (!w.bodies[i].fixed) {
                w.bodies[i].x = cfu_add(w.bodies[i].x, cf_rng_vec3(&rng, -4.0 * spread, 4.0 * spread));
                w.bodies[i].q = cf_rng_quat(&rng);
            }
        char what[200];
        int c = cf_world_crossings(&w, &x0, what, sizeof what), want = brute_crossings(&w, &x0);
        ck_assert_msg(c == want, "trial %d: the sweep counts %d crossings, every pair %d", trial, c, want);
        ck_assert_msg((c == 0) == (what[0] == '\0'), "trial %d: %d crossings, message '%s'", trial, c, what);
        total += c;
        cf_world_free(&x0);
        cf_world_free(&w);
    }
    ck_assert_msg(total > 100, "the scrambled worlds gave only %d crossings in all: the test tests little", total);
}
END_TEST

START_TEST(fast_particle_stops_on_thin_plate)
{
    /* 100 m/s against a plate 1 mm thick with h = 0.01 (a metre per step): the ipc pipeline stops it
       on the plate (certified at every step); the velocity pipeline with a stiff contact spring
       (penalty, k = 1e6 N/m) never sees it and passes through */
    cfWorld w;
    load("ch09_ipc_tunnel.json", &w);
    step_certified(&w, 20);
    ck_assert_msg(w.soft[0].x[0].z > 0.0, "ipc: the particle ended at z = %g, below the plate", w.soft[0].x[0].z);
    cf_world_free(&w);

    load("ch09_ipc_tunnel.json", &w);
    w.def.pipeline = CF_PIPELINE_VELOCITY;
    w.def.ipc = cf_world_def_default().ipc;
    w.def.detector = CF_DETECT_PRIMITIVES;
    w.def.solver = cf_solver_find("pgs");
    w.def.contact_stiffness = 1e6;
    int crossed = 0;
    for (int k = 0; k < 20; ++k) {
        cfWorld x0;
        copy(&x0, &w);
        cft_assert_ok(cf_world_step(&w));
        crossed += cf_world_crossings(&w, &x0, NULL, 0);
        cf_world_free(&x0);
    }
    ck_assert_int_eq(crossed, 1);
    ck_assert_msg(w.soft[0].x[0].z < -5.0, "penalty: the particle ended at z = %g", w.soft[0].x[0].z);
    cf_world_free(&w);
}
END_TEST

/* mean height of the nodes of soft body @p b at rest height @p z0 (the rest positions' z) */
static double mean_z_at(const cfSoftBody *b, double z0)
{
    double sum = 0.0;
    int n = 0;
    for (int k = 0; k < b->n_nodes; ++k)
        if (fabs(b->x_rest[k].z - z0) < 1e-9) sum += b->x[k].z, ++n;
    return n ? sum / n : NAN;
}

START_TEST(tet_column_shortens_under_its_weight)
{
    /* a column of 2 x 2 x 10 cells (0.1 x 0.1 x 1 m, rho 1000 kg/m^3, E = 1e6 Pa, nu 0.3) standing
       on a frictionless plane: implicit Euler with h = 0.05 s damps it to rest, where uniaxial
       stress rho g (L - z) shortens it by delta = rho g L^2 / (2 E) = 4.905 mm (strain 1 % at the
       base: the Neo-Hookean element is linear there to 1 %); within 2 % (measured 4.887 mm). With
       lambda in place of the stable Neo-Hookean's lambda + mu the column would be 11 % softer */
    const char *json =
        "{\"world\": {\"dt\": 0.05, \"pipeline\": \"ipc\", \"ipc\": {\"dhat\": 1e-4}, \"gravity\": [0, 0, -9.81]},"
        " \"bodies\": [{\"fixed\": true, \"mu\": 0, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}}],"
        " \"soft_bodies\": [{\"type\": \"tet_box\", \"origin\": [-0.05, -0.05, 5e-5], \"size\": [0.1, 0.1, 1.0],"
        "   \"cells\": [2, 2, 10], \"density\": 1000, \"young\": 1e6, \"poisson\": 0.3, \"mu\": 0}]}";
    cfWorld w;
    sim_parse(json, &w);
    step_certified(&w, 60);
    const cfSoftBody *c = &w.soft[0];
    double vmax = 0.0;
    for (int k = 0; k < c->n_nodes; ++k) vmax = fmax(vmax, cfu_norm(c->v[k]));
    ck_assert_msg(vmax < 1e-4, "largest speed %g m/s", vmax);
    double L = 1.0, want = 1000.0 * 9.81 * L * L / (2.0 * 1e6);
    double got = L - (mean_z_at(c, c->x_rest[c->n_nodes - 1].z) - mean_z_at(c, c->x_rest[0].z));
    ck_assert_msg(fabs(got / want - 1.0) < 0.02, "the column shortened by %.5e m, rho g L^2 / (2 E) = %.5e m", got, want);
    /* and it widens by Poisson's ratio: at mid-height the lateral strain is nu rho g (L/2) / E, the
       0.1 m width grows by 0.147 mm; within 5 % (measured 0.1468 mm) */
    double z_mid = c->x_rest[0].z + 0.5, lo = 0.0, hi = 0.0;
    int n_lo = 0, n_hi = 0;
    for (int k = 0; k < c->n_nodes; ++k) {
        if (fabs(c->x_rest[k].z - z_mid) > 1e-9) continue;
        if (fabs(c->x_rest[k].x + 0.05) < 1e-9) lo += c->x[k].x, ++n_lo;
        if (fabs(c->x_rest[k].x - 0.05) < 1e-9) hi += c->x[k].x, ++n_hi;
    }
    ck_assert(n_lo == 3 && n_hi == 3);
    double widen = hi / n_hi - lo / n_lo - 0.1, widen_want = 0.3 * 1000.0 * 9.81 * 0.5 / 1e6 * 0.1;
    ck_assert_msg(fabs(widen / widen_want - 1.0) < 0.05, "the column widened by %.4e m at mid-height, nu rho g (L/2) / E w = %.4e m",
                  widen, widen_want);
    cf_world_free(&w);
}
END_TEST

START_TEST(tet_blocks_land_certified)
{
    /* scenes/ch09_ipc_tets.json's first 15 steps, where the upper block lands on the lower one and
       the rigid box on it: every step certified, every distance positive, the elements not inverted
       (their energy finite: the step would fail) and the contacts within dhat */
    cfWorld w;
    load("ch09_ipc_tets.json", &w);
    double dmin = step_certified(&w, 15);
    ck_assert_msg(dmin > 0.0 && dmin < w.def.ipc.dhat, "smallest distance %g", dmin);
    ck_assert_int_gt(w.stats.n_contacts, 0);
    /* the certificate sees the surfaces the step gathered: that the blocks have surfaces at all is
       checked here, by where the nodes are: the upper block's lowest node not below the lower
       block's top layer (it landed there at about step 8), the box above the upper block */
    const cfSoftBody *lo = &w.soft[0], *up = &w.soft[1];
    double lo_top = INFINITY, up_low = INFINITY, up_top = INFINITY;
    for (int k = 0; k < lo->n_nodes; ++k)
        if (lo->x_rest[k].z == lo->x_rest[lo->n_nodes - 1].z) lo_top = fmin(lo_top, lo->x[k].z);
    for (int k = 0; k < up->n_nodes; ++k) {
        up_low = fmin(up_low, up->x[k].z);
        if (up->x_rest[k].z == up->x_rest[up->n_nodes - 1].z) up_top = fmin(up_top, up->x[k].z);
    }
    ck_assert_msg(up_low > lo_top - 1e-3, "the upper block's lowest node at %g, the lower block's top layer from %g", up_low, lo_top);
    ck_assert_msg(w.bodies[1].x.z > up_top, "the box's centre at %g, the upper block's top layer from %g", w.bodies[1].x.z, up_top);
    cf_world_free(&w);
}
END_TEST

START_TEST(tet_blocks_rest_certified)
{
    /* scenes/ch09_ipc_tets.json: two tetrahedral blocks (stable Neo-Hookean) stacked on the ground and
       a rigid (affine) box dropped on them, 150 steps each certified by signed volumes (no surface
       edge through a triangle, no node's or corner's path through the ground); at the end all rest
       (speeds below 2 cm/s), the stack within dhat, and the lower block shortened by its static
       compression: its own weight's rho g L^2 / (2 E) plus the load's (m g / A) L / E, m the upper
       block and the box, A its 0.3 x 0.3 m section (uniaxial stress: within 10 %, as the block's base
       is held by friction, the load covers 0.2 x 0.2 m of its top and it has 3 cells; measured
       5.98 mm against 6.28 mm) */
    cfWorld w;
    load("ch09_ipc_tets.json", &w);
    ck_assert_int_eq(w.n_soft, 2);
    ck_assert_int_gt(w.soft[0].n_tets, 0);
    double dmin = step_certified(&w, 150);
    double dhat = w.def.ipc.dhat;
    ck_assert_msg(dmin > 0.0 && dmin < dhat, "smallest distance %g", dmin);
    const cfSoftBody *lo = &w.soft[0], *up = &w.soft[1];
    const cfRigidBody *lid = &w.bodies[1];
    double vmax = cfu_norm(lid->v);
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < w.soft[i].n_nodes; ++k) vmax = fmax(vmax, cfu_norm(w.soft[i].v[k]));
    ck_assert_msg(vmax < 0.02, "largest speed %g m/s", vmax);
    double lo_bottom = INFINITY, lo_top = -INFINITY, up_bottom = INFINITY, up_top = -INFINITY;
    for (int k = 0; k < lo->n_nodes; ++k) lo_bottom = fmin(lo_bottom, lo->x[k].z), lo_top = fmax(lo_top, lo->x[k].z);
    for (int k = 0; k < up->n_nodes; ++k) up_bottom = fmin(up_bottom, up->x[k].z), up_top = fmax(up_top, up->x[k].z);
    ck_assert_msg(lo_bottom > 0.0 && lo_bottom < dhat, "lower block's bottom at %g", lo_bottom);
    ck_assert_msg(up_bottom > lo_top - 1e-3 && up_bottom < lo_top + dhat, "upper block's bottom %g, lower's top %g", up_bottom, lo_top);
    double L = 0.3, E = lo->young, g = 9.81, rho = 400.0, m = rho * 0.2 * 0.2 * 0.2 + lid->mass;
    double want = rho * g * L * L / (2.0 * E) + m * g / (L * L) * L / E;
    double got = L - (mean_z_at(lo, lo->x_rest[lo->n_nodes - 1].z) - mean_z_at(lo, lo->x_rest[0].z));
    ck_assert_msg(fabs(got / want - 1.0) < 0.1, "the lower block shortened by %.4e m, static compression %.4e m", got, want);
    cf_world_free(&w);
}
END_TEST

/* ---- the world steps as chapter 9 does ---------------------------------------------------------- */

START_TEST(soft_box_matches_chapter_loop)
{
    /* chapter 9's soft stack demo loop (cf_ipc_step() on a system built by cf_ipc_add_box()) with one
       box, against the same box as a world of the ipc pipeline: the same positions at every step
       while it lands and comes to rest. The same system in the same order; with the reference
       solutions linked the world solves it on chapter 9's sparse path (solutions/ch09/fast/: the
       broad phase, the sparse Cholesky), whose iterates differ from the dense Cholesky's by rounding,
       which Newton's last iterations at the rounding floor of f carry to ~2e-10 m: 1e-8 m (the
       sparse path's own tests' tolerance against the dense one) */
    const char *json =
        "{\"world\": {\"dt\": 0.01, \"pipeline\": \"ipc\", \"ipc\": {\"dhat\": 0.01, \"kappa\": 1000, \"eps_v\": 0.01}},"
        " \"bodies\": [{\"fixed\": true, \"mu\": 0.5, \"position\": [-0.1, 0.1, -0.1],"
        "   \"shape\": {\"type\": \"box\", \"half_extents\": [1.4, 1.3, 0.1]}}],"
        " \"soft_bodies\": [{\"type\": \"spring_box\", \"origin\": [0.2, -0.2, 0.03], \"size\": [0.4, 0.4, 0.4],"
        "   \"mass\": 1, \"stiffness\": 2000, \"mu\": 0.5}]}";
    cfWorld w;
    sim_parse(json, &w);
    cfIpcSystem s;
    cft_assert_ok(cf_ipc_init(&s, 0.01, 0.01, 1e3));
    s.gravity = cfu_vec3(0, 0, -9.81);
    s.mu = 0.5;
    s.eps_v = 1e-2;
    ck_assert_int_eq(cf_ipc_add_box(&s, cfu_vec3(-1.5, -1.2, -0.2), cfu_vec3(1.3, 1.4, 0), 1, 0, true), 0);
    ck_assert_int_eq(cf_ipc_add_box(&s, cfu_vec3(0.2, -0.2, 0.03), cfu_vec3(0.6, 0.2, 0.43), 1.0, 2e3, false), 8);
    double worst = 0.0;
    for (int k = 0; k < 60; ++k) {
        cfIpcStats st;
        cfStatus a = cf_ipc_step(&s, NULL, &st);
        ck_assert_msg(a == CF_OK || a == CF_STAGNATED, "chapter loop, step %d: %s", k + 1, cf_status_name(a));
        ck_assert_msg(cf_world_step(&w) == CF_OK, "world, step %d: %s", k + 1, w.error.msg);
        ck_assert_int_eq(w.stats.solver_iterations, st.iterations);
        for (int i = 0; i < 8; ++i) {
            worst = fmax(worst, cfu_norm(cfu_sub(w.soft[0].x[i], cf_ipc_node(s.q, 8 + i))));
            worst = fmax(worst, cfu_norm(cfu_sub(w.soft[0].v[i], cf_ipc_node(s.u, 8 + i))) * 0.01);
        }
    }
    ck_assert_msg(worst < 1e-8, "largest difference %g m", worst);
    /* and it rests: on the slab, within dhat, slower than 5 cm/s */
    double vmax = 0.0, low = INFINITY;
    for (int i = 0; i < 8; ++i) vmax = fmax(vmax, cfu_norm(w.soft[0].v[i])), low = fmin(low, w.soft[0].x[i].z);
    ck_assert_msg(vmax < 0.05 && low > 0.0 && low < 0.01, "speed %g, bottom %g", vmax, low);
    cf_ipc_free(&s);
    cf_world_free(&w);
}
END_TEST

START_TEST(derived_kappa_rests_at_half_dhat)
{
    /* the derived defaults: a particle alone has no bounding box, dhat = 1e-3 m; kappa makes the
       heaviest node (this one, 2 kg) rest where kappa (-b'(d)) = m g, at d = dhat/2. The particle
       starts at 0.6 dhat above a plane and settles (implicit Euler damps) to dhat/2 */
    const char *json = "{\"world\": {\"dt\": 0.01, \"pipeline\": \"ipc\"},"
                       " \"bodies\": [{\"fixed\": true, \"mu\": 0, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}}],"
                       " \"soft_bodies\": [{\"type\": \"particle\", \"position\": [0.3, -0.2, 6e-4], \"mass\": 2, \"mu\": 0}]}";
    cfWorld w;
    sim_parse(json, &w);
    step_certified(&w, 60);
    cft_assert_near(w.stats.ipc.dhat, 1e-3, 0, 1e-15);
    cft_assert_near(w.stats.ipc.kappa, 2 * 9.81 / ((log(2.0) + 0.5) * 1e-3), 0, 1e-12);
    cft_assert_near(w.soft[0].x[0].z, 5e-4, 0, 1e-6);
    cft_assert_near(w.stats.ipc.min_distance, 5e-4, 0, 1e-6);
    cf_world_free(&w);
}
END_TEST

START_TEST(cloth_drapes_on_sphere)
{
    /* a 0.3 m cloth of 9 x 9 nodes dropped 3 mm over a fixed sphere of radius 0.12 m centred at
       (0.02, -0.01, -0.12): the sphere is its icosphere, fine enough that its faces lie within
       dhat/2 of it, so no node ever comes closer to the centre than r - dhat/2 (a coarser mesh, or the
       sphere at the origin, lets the nodes in); the middle of the cloth stays on the top while the corners, held by nothing, fall past it as the cloth drapes */
    const char *json = "{\"world\": {\"dt\": 0.016666666666666666, \"pipeline\": \"ipc\", \"gravity\": [0, 0, -9.81],"
                       " \"ipc\": {\"dhat\": 0.002, \"tolerance\": 0.001}},"
                       " \"bodies\": [{\"fixed\": true, \"mu\": 0, \"position\": [0.02, -0.01, -0.12],"
                       " \"shape\": {\"type\": \"sphere\", \"radius\": 0.12}}],"
                       " \"soft_bodies\": [{\"type\": \"cloth\", \"origin\": [-0.13, -0.16, 0.003], \"du\": [0.3, 0, 0],"
                       " \"dv\": [0, 0.3, 0], \"cells\": [8, 8], \"mass\": 0.1, \"stretch\": 100, \"shear\": 10,"
                       " \"bend\": 0, \"mu\": 0}]}";
    cfWorld w;
    sim_parse(json, &w);
    const cfVec3 c = cfu_vec3(0.02, -0.01, -0.12);
    const double r = 0.12, dhat = 0.002;
    double dmin = INFINITY;
    for (int k = 0; k < 4; ++k) {
        dmin = fmin(dmin, step_certified(&w, 5));
        for (int i = 0; i < w.soft[0].n_nodes; ++i) {
            double d = cfu_norm(cfu_sub(w.soft[0].x[i], c));
            ck_assert_msg(d >= r - 0.5 * dhat, "step %ld, node %d: %.6f m from the centre, below r - dhat/2 = %.6f",
                          w.step, i, d, r - 0.5 * dhat);
        }
    }
    ck_assert_msg(dmin > 0.0, "smallest distance %g", dmin);
    const cfSoftBody *b = &w.soft[0];
    double top = b->x[4 * 9 + 4].z, corner = b->x[0].z; /* the middle node, over the sphere's top */
    /* the cloth's triangles (side L = 0.3/8 m) rest on the icosphere's points near the top, so the
       middle node may ride up to L^2 / (2 r) = 5.9 mm over it, never below it by more than dhat/2 */
    const double L = 0.3 / 8;
    ck_assert_msg(top > -0.5 * dhat && top < L * L / (2 * r), "the middle node at z = %.5f m: not held on the top (0)", top);
    ck_assert_msg(corner < top - 0.05, "a corner at z = %.4f m: not draped below the middle (%.4f m) by 5 cm", corner, top);
    cf_world_free(&w);
}
END_TEST

/* ---- bad input ----------------------------------------------------------------------------------- */

#define SOFT "\"soft_bodies\": [{\"type\": \"particle\", \"position\": [0, 0, 1], \"mass\": 1}]"

START_TEST(bad_ipc_settings_named)
{
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"ipc\": {\"dhat\": -1}}, " SOFT "}", "t.json: world.ipc.dhat: must be >= 0");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"ipc\": {\"kappa\": -5}}, " SOFT "}", "t.json: world.ipc.kappa: must be >= 0");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"ipc\": {\"eps_v\": 0}}, " SOFT "}", "t.json: world.ipc.eps_v: must be > 0");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"ipc\": {\"friction_iterations\": 0}}, " SOFT "}",
            "t.json: world.ipc.friction_iterations: must be in [1, 100]");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"ipc\": {\"dhat\": \"1mm\"}}, " SOFT "}", "world.ipc.dhat: must be a number");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"ipc\": {\"dhta\": 1e-3}}, " SOFT "}",
            "world.ipc: unknown key 'dhta' (did you mean 'dhat'?)");
    sim_refused("{\"world\": {\"pipeline\": \"icp\"}, " SOFT "}", "world.pipeline: unknown pipeline 'icp' (expected one of: velocity, ipc, implicit-soft)");
    /* an ipc key without the ipc pipeline would be ignored: refused */
    sim_refused("{\"world\": {\"ipc\": {\"kappa\": 1e4}}, " SOFT "}", "world.ipc.kappa: a setting of the ipc pipeline, and the pipeline is 'velocity'");
    sim_refused("{\"world\": {\"ipc\": {\"adaptive_kappa\": true}}, " SOFT "}",
            "world.ipc.adaptive_kappa: a setting of the ipc pipeline, and the pipeline is 'velocity'");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"ipc\": {\"tolerance\": 0}}, " SOFT "}", "t.json: world.ipc.tolerance: must be > 0");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"ipc\": {\"adaptive_kappa\": 1}}, " SOFT "}", "world.ipc.adaptive_kappa:");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"ipc\": {\"adaptive_kappa\": true}}, \"bodies\": [{\"name\": \"b\", "
                "\"mass\": 1, \"position\": [0, 0, 1], \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}}]}",
                "bodies[0] 'b': ipc.adaptive_kappa: the moving boxes' affine step keeps kappa fixed");
    /* the velocity pipeline's stages do not run under ipc */
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"solver\": \"pgs\"}, " SOFT "}", "world.solver: the ipc pipeline solves no velocity-level problem");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"detector\": \"primitives\"}, " SOFT "}", "world.detector:");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\", \"soft_integrator\": \"bdf2\"}, " SOFT "}", "world.soft_integrator: the ipc pipeline integrates by its own settings");
    /* the one validator: a world built in code gets the same line */
    cfWorldDef d = cf_world_def_default();
    d.pipeline = CF_PIPELINE_IPC;
    d.ipc.kappa = NAN;
    cfError err = {{0}};
    cft_assert_status(cf_world_def_check(&d, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "ipc.kappa: must be >= 0"), "%s", err.msg);
}
END_TEST

START_TEST(bad_ipc_bodies_named)
{
    sim_refused("{\"world\": {\"pipeline\": \"ipc\"}, \"bodies\": [{\"name\": \"ball\", \"mass\": 1, \"mu\": 0.5,"
            " \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}]}",
            "t.json: bodies[0] 'ball': a moving rigid body under ipc is a box");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\"}, \"bodies\": [{\"name\": \"crate\", \"mass\": 1, \"mu\": 0.5,"
            " \"inertia\": [1, 1, 1], \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}}]}",
            "t.json: bodies[0] 'crate': inertia: a moving box under ipc has the solid box's inertia");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\"}, \"bodies\": [{\"name\": \"post\", \"fixed\": true, \"mu\": 0,"
            " \"shape\": {\"type\": \"capsule\", \"radius\": 0.1, \"half_height\": 1}}], " SOFT "}",
            "bodies[0] 'post': static geometry under ipc is a box, a plane or a sphere (got a capsule)");
    /* tetrahedra are taken (sim/ipc_tets.c); their damping is not */
    sim_refused("{\"world\": {\"pipeline\": \"ipc\"}, \"soft_bodies\": [{\"name\": \"jelly\", \"type\": \"tet_box\","
            " \"size\": [1, 1, 1], \"cells\": [1, 1, 1], \"density\": 100, \"young\": 1e5, \"poisson\": 0.3, \"damping\": [0.1, 0]}]}",
            "soft_bodies[0] 'jelly': damping: the ipc pipeline has no Rayleigh damping");
    /* nor the co-rotational flag of chapter 8's linear elements: Neo-Hookean needs none, and a flag
       taken in silence would tell the user the run used it */
    sim_refused("{\"world\": {\"pipeline\": \"ipc\"}, \"soft_bodies\": [{\"name\": \"jelly\", \"type\": \"tet_box\","
            " \"size\": [1, 1, 1], \"cells\": [1, 1, 1], \"density\": 100, \"young\": 1e5, \"poisson\": 0.3, \"corotational\": true}]}",
            "soft_bodies[0] 'jelly': corotational: the ipc pipeline's tetrahedra are stable Neo-Hookean");
    sim_refused("{\"world\": {\"pipeline\": \"ipc\"}, \"soft_bodies\": [{\"name\": \"a\", \"type\": \"particle\", \"position\": [0, 0, 1],"
            " \"mass\": 1, \"mu\": 0.5}, {\"name\": \"b\", \"type\": \"particle\", \"position\": [1, 0, 1], \"mass\": 1, \"mu\": 0.3}]}",
            "soft_bodies[1] 'b': mu: the ipc pipeline has one friction coefficient");
    /* the step refuses the same world built in code (no scene loader) */
    cfWorld w;
    sim_parse("{\"world\": {\"pipeline\": \"ipc\"}, " SOFT "}", &w);
    cfRigidBody b;
    cfError err = {{0}};
    cft_assert_ok(cf_rigid_init(&b, cf_shape_sphere(0.1), 1.0, &err));
    ck_assert_int_eq(cf_world_add_body(&w, &b), 0);
    cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "bodies[0] '") && strstr(w.error.msg, "a moving rigid body under ipc is a box"), "%s",
                  w.error.msg);
    cf_world_free(&w);
}
END_TEST

static void build(Suite *s)
{
    TCase *c = cft_tcase_scene(s, "ipc");
    CFT_TEST(c, stack_never_interpenetrates, "the soft stack under ipc: no crossing in any step (signed volumes)");
    CFT_TEST(c, certificate_sees_crossings, "the crossing certificate finds an overlap and a path through a plate");
    CFT_TEST(c, certificate_sweep_is_every_pair, "the crossing certificate's sweep counts what testing every pair counts");
    CFT_TEST(c, fast_particle_stops_on_thin_plate, "100 m/s against 1 mm: ipc stops on the plate, penalty passes");
    CFT_TEST(c, soft_box_matches_chapter_loop, "a soft box under the world's ipc steps as chapter 9's own loop");
    CFT_TEST(c, tet_column_shortens_under_its_weight, "a tet column under ipc rests shortened by rho g L^2/(2E) within 2 %");
    CFT_TEST(c, tet_blocks_land_certified, "tet blocks (Neo-Hookean) and a rigid box under ipc: 15 steps of landing certified");
    /* 30 s in the release build (the moving box's affine step is dense): the release run only */
    TCase *h = cft_tcase_heavy(s, "ipc-heavy");
    CFT_TEST(h, tet_blocks_rest_certified, "tet blocks (Neo-Hookean) and a rigid box under ipc: 150 steps certified, at rest, the static compression");
    CFT_TEST(c, derived_kappa_rests_at_half_dhat, "the derived kappa rests the heaviest node at dhat/2");
    CFT_TEST(c, cloth_drapes_on_sphere, "a cloth drapes on a static sphere (its icosphere within dhat/2): no node inside");
    TCase *in = cft_tcase_unit(s, "input");
    CFT_TEST(in, bad_ipc_settings_named, "bad ipc settings refused with the field named");
    CFT_TEST(in, bad_ipc_bodies_named, "bodies the ipc pipeline cannot step refused with the body named");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "sim-ipc-world", build); }
