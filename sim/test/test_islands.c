/* SPDX-License-Identifier: MIT */
/* A solver per island (world.solver "per-island", issue 34): the world splits each step's contacts
   into chapter 11.2's islands and solves each by the solver of chapter 11.2's rule. A stack (40
   contacts: pgs) beside a lone sliding box (4 contacts: lemke) uses the two, and each island
   steps exactly as in a world of its bodies alone with that solver. Run with the reference
   solutions (`make test-sim IMPL=solutions`). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"
#include "scene_support.h"

#define BOX(name, x, z, vx)                                                                                          \
    "{\"name\": \"" name "\", \"mass\": 1, \"mu\": 0.5, \"position\": [" #x ", 0, " #z "], \"velocity\": [" #vx   \
    ", 0, 0], \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}}"
#define WORLD(solver)                                                                                                \
    "\"world\": {\"dt\": 0.016666666666666666, \"steps\": 60, \"detector\": \"primitives\", \"contact_margin\": 0.02," \
    " \"solver\": \"" solver "\", \"solver_iterations\": 20}"
#define GROUND "{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.5, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}}"
#define STACK                                                                                                        \
    BOX("b0", 0, 0.5, 0) "," BOX("b1", 0, 1.5, 0) "," BOX("b2", 0, 2.5, 0) "," BOX("b3", 0, 3.5, 0) ","             \
    BOX("b4", 0, 4.5, 0) "," BOX("b5", 0, 5.5, 0) "," BOX("b6", 0, 6.5, 0) "," BOX("b7", 0, 7.5, 0) ","             \
    BOX("b8", 0, 8.5, 0) "," BOX("b9", 0, 9.5, 0)
/* the lone box slides at 1 m/s and stops after v^2 / (2 mu g) = 0.10 m, well clear of the stack */
#define LONE BOX("lone", 3, 0.5, 1)

static const char *BOTH = "{" WORLD("per-island") ", \"bodies\": [" GROUND "," STACK "," LONE "]}";
static const char *STACK_ALONE = "{" WORLD("pgs") ", \"bodies\": [" GROUND "," STACK "]}";
static const char *LONE_ALONE = "{" WORLD("lemke") ", \"bodies\": [" GROUND "," LONE "]}";

static void step_ok(cfWorld *w, int n)
{
    for (int k = 0; k < n; ++k) {
        cfStatus st = cf_world_step(w);
        ck_assert_msg(st == CF_OK, "step %ld failed (%s): %s", w->step + 1, cf_status_name(st), w->error.msg);
    }
}

/* the number of contacts the island solved by @p name had in the last step (-1: no such solver) */
static int contacts_of(const cfWorld *w, const char *name)
{
    for (int j = 0; j < w->stats.island.n_solvers; ++j)
        if (strcmp(w->stats.island.solver[j]->name, name) == 0) return w->stats.island.contacts_of[j];
    return -1;
}

START_TEST(islands_two_kinds_two_solvers)
{
    cfWorld w;
    sim_parse(BOTH, &w);
    ck_assert(w.def.per_island);
    step_ok(&w, 5);
    ck_assert_int_eq(w.stats.island.islands, 2);
    ck_assert_int_eq(w.stats.island.n_solvers, 2);
    ck_assert_int_eq(contacts_of(&w, "pgs"), 40);
    ck_assert_int_eq(contacts_of(&w, "lemke"), 4);
    ck_assert(w.stats.contact_solve);
    cf_world_free(&w);
}
END_TEST

/* the same motion, bit for bit: the stack as in a world of the stack alone with pgs, the lone box
   as alone with lemke, over 60 steps (the lone box slides to rest meanwhile) */
START_TEST(islands_each_as_alone)
{
    cfWorld both, stack, lone;
    sim_parse(BOTH, &both);
    sim_parse(STACK_ALONE, &stack);
    sim_parse(LONE_ALONE, &lone);
    for (int k = 0; k < 60; ++k) {
        step_ok(&both, 1);
        step_ok(&stack, 1);
        step_ok(&lone, 1);
        for (int i = 0; i < stack.n_bodies; ++i) {
            const cfRigidBody *p = &both.bodies[i], *q = &stack.bodies[i];
            ck_assert_msg(memcmp(&p->x, &q->x, sizeof p->x) == 0 && memcmp(&p->q, &q->q, sizeof p->q) == 0 &&
                              memcmp(&p->v, &q->v, sizeof p->v) == 0 && memcmp(&p->w, &q->w, sizeof p->w) == 0,
                          "step %d: body %s differs from the stack alone (z %.17g against %.17g)", k + 1, p->name, p->x.z,
                          q->x.z);
        }
        const cfRigidBody *p = &both.bodies[both.n_bodies - 1], *q = &lone.bodies[1];
        ck_assert_msg(memcmp(&p->x, &q->x, sizeof p->x) == 0 && memcmp(&p->v, &q->v, sizeof p->v) == 0 &&
                          memcmp(&p->q, &q->q, sizeof p->q) == 0 && memcmp(&p->w, &q->w, sizeof p->w) == 0,
                      "step %d: the lone box differs from the box alone (x %.17g against %.17g)", k + 1, p->x.x, q->x.x);
    }
    /* it slid and stopped: v^2 / (2 mu g) = 0.102 m, to the discretization's few mm */
    double slid = both.bodies[both.n_bodies - 1].x.x - 3.0;
    ck_assert_msg(fabs(slid - 1.0 / (2 * 0.5 * 9.81)) < 0.01, "the lone box slid %.4g m", slid);
    ck_assert_msg(fabs(both.bodies[both.n_bodies - 1].v.x) < 1e-9, "the lone box still moves at %g m/s",
                  both.bodies[both.n_bodies - 1].v.x);
    cf_world_free(&both);
    cf_world_free(&stack);
    cf_world_free(&lone);
}
END_TEST

/* Four islands that need four solvers (scenes/ch11_islands.json): the stack (40 contacts: pgs), the
   lone sliding cube (4: lemke), a box on ground grooved along x (orthotropic: pgs-blocked-aniso)
   and a block dragged across chapter 10's sawtooth texture (texture friction's directional boxes:
   pgs-texture, the only kind of row that reads them); the stats name each and the law it solves */
static void law_of(const cfWorld *w, const char *name, int contacts, const char *law)
{
    for (int j = 0; j < w->stats.island.n_solvers; ++j)
        if (strcmp(w->stats.island.solver[j]->name, name) == 0) {
            ck_assert_msg(w->stats.island.contacts_of[j] == contacts, "%s: %d contacts, want %d", name,
                          w->stats.island.contacts_of[j], contacts);
            ck_assert_msg(strcmp(w->stats.island.law_of[j], law) == 0, "%s solves '%s', want '%s'", name,
                          w->stats.island.law_of[j], law);
            return;
        }
    ck_abort_msg("no island was solved by %s", name);
}

static void load_scene(const char *file, const char *solver, cfWorld *w)
{
    cfError err = {{0}};
    cfStatus st = solver ? cf_scene_load_solved(cft_scene_path(file), solver, w, NULL, &err)
                         : cf_scene_load(cft_scene_path(file), w, NULL, &err);
    ck_assert_msg(st == CF_OK, "%s", err.msg);
}

START_TEST(islands_four_laws)
{
    cfWorld w;
    load_scene("ch11_islands.json", NULL, &w);
    ck_assert(w.def.per_island);
    step_ok(&w, 5);
    ck_assert_int_eq(w.stats.island.islands, 4);
    ck_assert_int_eq(w.stats.island.n_solvers, 4);
    law_of(&w, "pgs", 40, "cone");
    law_of(&w, "lemke", 4, "polyhedral cone");
    law_of(&w, "pgs-blocked-aniso", 4, "elliptic cone");
    law_of(&w, "pgs-texture", 4, "texture (directional boxes)");
    ck_assert(w.stats.common_directional);
    cf_world_free(&w);
}
END_TEST

/* The texture island steps bit for bit as the dragged block alone with pgs-texture, and the grooved
   one as the grooved box alone with pgs-blocked-aniso: the bodies of the mixed scene without the
   others (same order of each island's bodies and contacts, so the same arithmetic) */
START_TEST(islands_texture_as_alone)
{
    cfWorld both, tex, groove;
    load_scene("ch11_islands.json", NULL, &both);
    load_scene("ch11_islands.json", "pgs-texture", &tex);
    load_scene("ch11_islands.json", "pgs-blocked-aniso", &groove);
    /* the other bodies removed: every body but the ground and the island's own made fixed, far away */
    const int plow = both.n_bodies - 1, grooved = both.n_bodies - 2;
    for (int i = 1; i < both.n_bodies; ++i) {
        if (i != plow) tex.bodies[i].fixed = true, tex.bodies[i].x.z += 100.0;
        if (i != grooved) groove.bodies[i].fixed = true, groove.bodies[i].x.z += 100.0;
    }
    for (int k = 0; k < 200; ++k) {
        step_ok(&both, 1);
        step_ok(&tex, 1);
        step_ok(&groove, 1);
        const int id[2] = {plow, grooved};
        const cfWorld *alone[2] = {&tex, &groove};
        for (int m = 0; m < 2; ++m) {
            const cfRigidBody *p = &both.bodies[id[m]], *q = &alone[m]->bodies[id[m]];
            ck_assert_msg(memcmp(&p->x, &q->x, sizeof p->x) == 0 && memcmp(&p->q, &q->q, sizeof p->q) == 0 &&
                              memcmp(&p->v, &q->v, sizeof p->v) == 0 && memcmp(&p->w, &q->w, sizeof p->w) == 0,
                          "step %d: %s differs from it alone (x %.17g against %.17g)", k + 1, p->name, p->x.x, q->x.x);
        }
    }
    /* the drag plowed: the block moved with the drive, 0.1 m/s for 1 s */
    ck_assert_msg(fabs(both.bodies[plow].x.x - 0.05 - 0.1) < 0.01, "the dragged block is at x %g", both.bodies[plow].x.x);
    cf_world_free(&both);
    cf_world_free(&tex);
    cf_world_free(&groove);
}
END_TEST

START_TEST(islands_settings_refused)
{
    sim_refused("{\"world\": {\"solver\": \"per-islands\"}}", "expected none, per-island or one of");
    sim_refused("{\"world\": {\"solver\": \"per-island\", \"cmr_rounds\": 2}}", "cmr_rounds must be 0");
    sim_refused("{\"world\": {\"stabilization\": \"bogus\"}}", "expected one of: split, baumgarte");
    /* a soft contact: refused at the step, naming the bodies */
    cfWorld w;
    sim_parse("{\"world\": {\"solver\": \"per-island\", \"detector\": \"primitives\", \"contact_margin\": 0.02},"
              " \"bodies\": [" GROUND "], \"soft_bodies\": [{\"name\": \"jelly\", \"type\": \"tet_box\", \"origin\": [0, 0, 0],"
              " \"size\": [0.6, 0.6, 0.6], \"cells\": [1, 1, 1], \"density\": 500, \"young\": 2e5, \"poisson\": 0.3, \"mu\": 0.5}]}",
              &w);
    cfStatus st = CF_OK;
    for (int k = 0; k < 5 && st == CF_OK; ++k) st = cf_world_step(&w);
    cft_assert_status(st, CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "per-island") && strstr(w.error.msg, "jelly"), "%s", w.error.msg);
    cf_world_free(&w);
}
END_TEST

/* The scene's choice ("island_solver" of a body): the lone box names nncg, so its island is solved
   by nncg instead of the rule's lemke, bit for bit as a world of it alone with nncg, while the
   stack keeps the rule's pgs; the stats name both */
#define LONE_NNCG                                                                                                    \
    "{\"name\": \"lone\", \"mass\": 1, \"mu\": 0.5, \"position\": [3, 0, 0.5], \"velocity\": [1, 0, 0],"             \
    " \"island_solver\": \"nncg\", \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}}"

START_TEST(islands_scene_choice)
{
    cfWorld both, lone;
    sim_parse("{" WORLD("per-island") ", \"bodies\": [" GROUND "," STACK "," LONE_NNCG "]}", &both);
    sim_parse("{" WORLD("nncg") ", \"bodies\": [" GROUND "," LONE "]}", &lone);
    for (int k = 0; k < 30; ++k) {
        step_ok(&both, 1);
        step_ok(&lone, 1);
        const cfRigidBody *p = &both.bodies[both.n_bodies - 1], *q = &lone.bodies[1];
        ck_assert_msg(memcmp(&p->x, &q->x, sizeof p->x) == 0 && memcmp(&p->v, &q->v, sizeof p->v) == 0,
                      "step %d: the lone box differs from the box alone with nncg (x %.17g against %.17g)", k + 1, p->x.x,
                      q->x.x);
    }
    ck_assert_int_eq(contacts_of(&both, "nncg"), 4);
    ck_assert_int_eq(contacts_of(&both, "pgs"), 40);
    ck_assert_int_eq(contacts_of(&both, "lemke"), -1);
    cf_world_free(&both);
    cf_world_free(&lone);
    /* two bodies of one island that disagree: the step fails naming both */
    char stack2[2048];
    snprintf(stack2, sizeof stack2,
             "{" WORLD("per-island") ", \"bodies\": [" GROUND ", {\"name\": \"low\", \"mass\": 1, \"mu\": 0.5,"
             " \"position\": [0, 0, 0.5], \"island_solver\": \"nncg\", \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}},"
             " {\"name\": \"high\", \"mass\": 1, \"mu\": 0.5, \"position\": [0, 0, 1.5], \"island_solver\": \"pgs-blocked\","
             " \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}}]}");
    cfWorld w;
    sim_parse(stack2, &w);
    cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "body 'low' chooses 'nncg' and body 'high' chooses 'pgs-blocked'"), "%s", w.error.msg);
    cf_world_free(&w);
}
END_TEST

START_TEST(islands_scene_choice_refused)
{
    sim_refused("{" WORLD("pgs") ", \"bodies\": [" GROUND "," LONE_NNCG "]}",
                "t.json: bodies[1].island_solver: chooses the solver of the body's island, so it needs world.solver "
                "\"per-island\" (got 'pgs')");
    sim_refused("{" WORLD("per-island") ", \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"island_solver\": \"pgs\","
                " \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}}]}",
                "t.json: bodies[0].island_solver: not allowed on a fixed body");
    sim_refused("{" WORLD("per-island") ", \"bodies\": [" GROUND ", {\"name\": \"b\", \"mass\": 1, \"island_solver\": \"bogus\","
                " \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}}]}",
                "t.json: bodies[1].island_solver: 'bogus' is not a world solver of this build (");
    /* a caller's solver in the scene's place (cflab run --solver, compare): the choice is kept, unused */
    cfWorld w;
    cfError err = {{0}};
    char path[] = "/tmp/cflab_island_choice_XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("{" WORLD("per-island") ", \"bodies\": [" GROUND "," LONE_NNCG "]}", f);
    fclose(f);
    cfStatus st = cf_scene_load_solved(path, "pgs", &w, NULL, &err);
    remove(path);
    ck_assert_msg(st == CF_OK, "%s", err.msg);
    ck_assert(!w.def.per_island && w.def.n_island_solvers == 1);
    cf_world_free(&w);
}
END_TEST

/* Sleeping: a stack of three (12 contacts: pgs) falls asleep after 10 steps at rest and stays
   frozen bit for bit; a box dropped from 8 m reaches it after about 1 s, wakes it (the island is
   solved again and the top box moves), lands on it and the island sleeps again */
#define SLEEPY "{\"world\": {\"dt\": 0.016666666666666666, \"detector\": \"primitives\", \"contact_margin\": 0.02," \
    " \"solver\": \"per-island\", \"solver_iterations\": 30, \"sleep_steps\": 10}, \"bodies\": [" GROUND "," \
    BOX("s0", 0, 0.5, 0) "," BOX("s1", 0, 1.5, 0) "," BOX("s2", 0, 2.5, 0) "," BOX("drop", 0, 8, 0) "]}"

START_TEST(islands_sleep_and_wake)
{
    cfWorld w;
    sim_parse(SLEEPY, &w);
    int slept_at = -1;
    for (int k = 0; k < 40 && slept_at < 0; ++k) {
        step_ok(&w, 1);
        if (w.stats.island.sleeping == 1) slept_at = k + 1;
    }
    ck_assert_msg(slept_at > 10 && slept_at < 40, "the stack fell asleep at step %d (want after its 10 steps at rest)", slept_at);
    cfRigidBody top = w.bodies[3];
    for (int k = 0; k < 20; ++k) {
        step_ok(&w, 1);
        ck_assert_int_eq(w.stats.island.sleeping, 1);
        ck_assert_int_eq(w.stats.island.n_solvers, 0); /* the dropped box has no contacts yet, the stack is not solved */
        ck_assert_msg(memcmp(&w.bodies[3].x, &top.x, sizeof top.x) == 0 && memcmp(&w.bodies[3].q, &top.q, sizeof top.q) == 0,
                      "step %ld: the sleeping stack moved", w.step);
    }
    /* the drop: it touches the stack's top (z = 3) at about 1.1 s */
    int woke_at = -1, resleep_at = -1;
    for (int k = 0; k < 200 && resleep_at < 0; ++k) {
        step_ok(&w, 1);
        if (woke_at < 0 && w.stats.island.islands == 1 && w.stats.island.sleeping == 0) woke_at = (int)w.step;
        if (woke_at > 0 && w.stats.island.sleeping == 1) resleep_at = (int)w.step;
    }
    ck_assert_msg(woke_at > 0, "the stack never woke");
    ck_assert_msg(memcmp(&w.bodies[3].x, &top.x, sizeof top.x) != 0, "the top box never moved after the hit");
    ck_assert_msg(resleep_at > woke_at, "the stack with the box on it did not sleep again (woke at step %d)", woke_at);
    /* the dropped box rests on the top one: its centre 1 m above the top box's */
    ck_assert_msg(fabs(w.bodies[4].x.z - w.bodies[3].x.z - 1.0) < 0.02, "the dropped box rests at z %g over the top at %g",
                  w.bodies[4].x.z, w.bodies[3].x.z);
    cf_world_free(&w);
    sim_refused("{\"world\": {\"solver\": \"pgs\", \"sleep_steps\": 10}}", "islands sleep under solver \"per-island\" only");
}
END_TEST

static void build(Suite *s)
{
    TCase *t = cft_tcase_scene(s, "islands");
    CFT_TEST(t, islands_two_kinds_two_solvers, "a stack and a lone box: two islands, pgs and lemke (the stats say so)");
    CFT_TEST(t, islands_each_as_alone, "each island steps bit for bit as in a world of its bodies alone with its solver");
    CFT_TEST(t, islands_sleep_and_wake, "a resting stack sleeps frozen; a dropped box wakes it, lands, and it sleeps again");
    CFT_TEST(t, islands_four_laws, "four islands, four solvers: pgs, lemke, pgs-blocked-aniso, and pgs-texture for texture friction");
    CFT_TEST(t, islands_texture_as_alone, "the texture and grooved islands step bit for bit as alone with their rows");
    CFT_TEST(t, islands_scene_choice, "a body's island_solver overrides the rule for its island (bit for bit as alone with it); a disagreeing island fails naming both");
    CFT_TEST(t, islands_scene_choice_refused, "island_solver refused without per-island, on a fixed body, for an unknown solver; kept under a caller's solver");
    CFT_TEST(t, islands_settings_refused, "per-island: unknown names, CMR and soft contacts refused with the reason");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "sim-islands", build); }
