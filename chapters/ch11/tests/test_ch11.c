/* SPDX-License-Identifier: MIT */
/* Chapter 11 tests: the step as a pipeline (ch11.1), islands and a solver per island (ch11.2),
   sequential and simultaneous impacts on a Newton's cradle (ch11.3). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cf/cf_ch11.h"
#include "cf/cf_rng.h"
#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"
#include "cft.h"

/* ---- ch11.1: a mock world that logs every call --------------------------------------------- */

typedef struct Mock {
    char log[512];
    int fail_stage; /* the stage that fails (-1: none) */
    bool fail_save, fail_finite;
} Mock;

static void say(Mock *m, const char *word)
{
    size_t n = strlen(m->log);
    snprintf(m->log + n, sizeof m->log - n, "%s%s", n ? " " : "", word);
}

static const char *const stage_names[CF_STEP_STAGES] = {"detect", "contacts", "velocities", "assemble",
                                                        "solve", "positions", "stabilize"};

/* each stage spins 0.2 ms of wall time, so that its timing is seen */
static cfStatus mock_stage(void *ctx, int k)
{
    Mock *m = ctx;
    say(m, stage_names[k]);
    double t0 = cf_seconds();
    while (cf_seconds() - t0 < 2e-4) {
    }
    return m->fail_stage == k ? CF_SINGULAR : CF_OK;
}
static cfStatus mock_0(void *c) { return mock_stage(c, 0); }
static cfStatus mock_1(void *c) { return mock_stage(c, 1); }
static cfStatus mock_2(void *c) { return mock_stage(c, 2); }
static cfStatus mock_3(void *c) { return mock_stage(c, 3); }
static cfStatus mock_4(void *c) { return mock_stage(c, 4); }
static cfStatus mock_5(void *c) { return mock_stage(c, 5); }
static cfStatus mock_6(void *c) { return mock_stage(c, 6); }
static cfStatus mock_save(void *c)
{
    say(c, "save");
    return ((Mock *)c)->fail_save ? CF_NO_MEMORY : CF_OK;
}
static void mock_restore(void *c) { say(c, "restore"); }
static cfStatus mock_finite(void *c)
{
    say(c, "finite");
    return ((Mock *)c)->fail_finite ? CF_DIVERGED : CF_OK;
}
static void mock_commit(void *c) { say(c, "commit"); }

static cfStepOps mock_ops(Mock *m, double *seconds)
{
    memset(m, 0, sizeof *m);
    m->fail_stage = -1;
    cfStepOps o = {.ctx = m, .stage = {mock_0, mock_1, mock_2, mock_3, mock_4, mock_5, mock_6}, .seconds = seconds,
                   .save = mock_save, .restore = mock_restore, .finite = mock_finite, .commit = mock_commit};
    for (int k = 0; k < CF_STEP_STAGES; ++k) o.name[k] = stage_names[k];
    return o;
}

START_TEST(ch11_1_transaction)
{
    Mock m;
    double sec[CF_STEP_STAGES];
    for (int k = 0; k < CF_STEP_STAGES; ++k) sec[k] = 1.0; /* times are added, not overwritten */
    cfStepOps o = mock_ops(&m, sec);
    cft_assert_ok(cf_pipeline_step(&o));
    ck_assert_str_eq(m.log, "save detect contacts velocities assemble solve positions stabilize finite commit");
    for (int k = 0; k < CF_STEP_STAGES; ++k)
        cft_assert_at(sec[k] >= 1.0 + 2e-4 && sec[k] < 1.5, "stage %s: seconds %.6f", stage_names[k], sec[k]);
    /* a failing stage stops the step: the later stages do not run, the state is restored */
    for (int f = 0; f < CF_STEP_STAGES; ++f) {
        o = mock_ops(&m, sec);
        m.fail_stage = f;
        cft_assert_status_at(cf_pipeline_step(&o), CF_SINGULAR, "stage %s fails", stage_names[f]);
        char want[512] = "save";
        for (int k = 0; k <= f; ++k) snprintf(want + strlen(want), sizeof want - strlen(want), " %s", stage_names[k]);
        snprintf(want + strlen(want), sizeof want - strlen(want), " restore");
        ck_assert_str_eq(m.log, want);
    }
    o = mock_ops(&m, sec);
    m.fail_finite = true;
    cft_assert_status(cf_pipeline_step(&o), CF_DIVERGED);
    ck_assert_str_eq(m.log, "save detect contacts velocities assemble solve positions stabilize finite restore");
    o = mock_ops(&m, sec);
    m.fail_save = true;
    cft_assert_status(cf_pipeline_step(&o), CF_NO_MEMORY);
    ck_assert_str_eq(m.log, "save");
    cft_assert_status(cf_pipeline_step(NULL), CF_BAD_INPUT);
}
END_TEST

/* ---- ch11.1 in the world -------------------------------------------------------------------- */

static void load(cfWorld *w, const char *json)
{
    cfSceneInfo info;
    cfError err;
    cfStatus st = cf_scene_parse(json, "test scene", w, &info, &err);
    ck_assert_msg(st == CF_OK, "scene: %s", err.msg);
}

/* largest difference between the states of two worlds with the same bodies */
static double state_diff(const cfWorld *a, const cfWorld *b)
{
    double d = 0.0;
    for (int i = 0; i < a->n_bodies; ++i) {
        const cfRigidBody *p = &a->bodies[i], *q = &b->bodies[i];
        d = fmax(d, cfu_norm(cfu_sub(p->x, q->x)));
        d = fmax(d, cfu_norm(cfu_sub(p->v, q->v)));
        d = fmax(d, cfu_norm(cfu_sub(p->w, q->w)));
        d = fmax(d, fabs(p->q.w - q->q.w) + fabs(p->q.x - q->q.x) + fabs(p->q.y - q->q.y) + fabs(p->q.z - q->q.z));
    }
    for (int i = 0; i < a->n_soft; ++i)
        for (int n = 0; n < a->soft[i].n_nodes; ++n) {
            d = fmax(d, cfu_norm(cfu_sub(a->soft[i].x[n], b->soft[i].x[n])));
            d = fmax(d, cfu_norm(cfu_sub(a->soft[i].v[n], b->soft[i].v[n])));
        }
    return d;
}

#define WORLD_RIGID                                                                                              \
    "{\"name\": \"n\", \"chapter\": 11, \"description\": \"d\", \"expect\": \"e\",\n"                             \
    " \"world\": {\"dt\": 0.01, \"detector\": \"primitives\", \"contact_margin\": 0.01, \"solver\": \"pgs\", "     \
    "\"solver_iterations\": 20},\n"                                                                               \
    " \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.5, \"shape\": {\"type\": \"plane\", "        \
    "\"normal\": [0, 0, 1], \"offset\": 0}},\n"                                                                   \
    "  {\"name\": \"box\", \"mass\": 1, \"mu\": 0.5, \"position\": [0, 0, 0.095], \"velocity\": [1, 0, 0], "       \
    "\"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}},\n"                                        \
    "  {\"name\": \"ball\", \"mass\": 0.5, \"mu\": 0.5, \"position\": [0.02, 0.01, 0.4], "                        \
    "\"shape\": {\"type\": \"sphere\", \"radius\": 0.08}}]}"

#define WORLD_SOFT                                                                                               \
    "{\"name\": \"n\", \"chapter\": 11, \"description\": \"d\", \"expect\": \"e\",\n"                             \
    " \"world\": {\"dt\": 0.01, \"detector\": \"primitives\", \"contact_margin\": 0.01, \"solver\": \"pgs-blocked\", " \
    "\"solver_iterations\": 20},\n"                                                                               \
    " \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.5, \"shape\": {\"type\": \"plane\", "        \
    "\"normal\": [0, 0, 1], \"offset\": 0}}],\n"                                                                  \
    " \"soft_bodies\": [{\"name\": \"jelly\", \"type\": \"tet_box\", \"origin\": [0, 0, 0.02], \"size\": [0.3, 0.3, 0.3], " \
    "\"cells\": [1, 1, 1], \"density\": 500, \"young\": 1e5, \"poisson\": 0.3, \"mu\": 0.5}]}"

#define WORLD_MIXED                                                                                              \
    "{\"name\": \"n\", \"chapter\": 11, \"description\": \"d\", \"expect\": \"e\",\n"                             \
    " \"world\": {\"dt\": 0.01, \"detector\": \"primitives\", \"contact_margin\": 0.01, \"solver\": \"pgs-blocked\", " \
    "\"solver_iterations\": 20},\n"                                                                               \
    " \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.5, \"shape\": {\"type\": \"plane\", "        \
    "\"normal\": [0, 0, 1], \"offset\": 0}},\n"                                                                   \
    "  {\"name\": \"box\", \"mass\": 2, \"mu\": 0.5, \"position\": [0.15, 0.15, 0.42], "                          \
    "\"shape\": {\"type\": \"box\", \"half_extents\": [0.08, 0.08, 0.08]}}],\n"                                    \
    " \"soft_bodies\": [{\"name\": \"slab\", \"type\": \"tet_box\", \"origin\": [0, 0, 0], \"size\": [0.3, 0.3, 0.3], " \
    "\"cells\": [1, 1, 1], \"density\": 500, \"young\": 1e5, \"poisson\": 0.3, \"mu\": 0.5}]}"

/* the world stepped by the pipeline against the world's own step: the same stages in the same
   order do the same floating-point operations, so the two agree to rounding (1e-12 stated;
   bitwise in practice) at every step */
static void same_trajectory(const char *json, int steps, const char *what, int min_contacts)
{
    cfWorld ref, mine;
    load(&ref, json);
    cft_assert_ok(cf_world_copy(&mine, &ref));
    int contacts = 0;
    for (int k = 0; k < steps; ++k) {
        cft_assert_ok_at(cf_world_step(&ref), "%s: reference step %d: %s", what, k, ref.error.msg);
        cft_assert_ok_at(cf_world_step_with(&mine, cf_pipeline_step), "%s: step %d: %s", what, k, mine.error.msg);
        cft_assert_near_at(state_diff(&ref, &mine), 0.0, 1e-12, 0, "%s: step %d", what, k);
        cft_assert_int_at(mine.step, ==, k + 1, "k = %d", k);
        cft_assert_near_at(mine.time, ref.time, 0.0, 0, "%s: step %d", what, k);
        if (mine.contacts.count > contacts) contacts = mine.contacts.count;
    }
    cft_assert_int_at(contacts, >=, min_contacts, "%s: contacts seen", what);
    double t = 0.0;
    for (int s = 0; s < CF_STAGE_COUNT; ++s) t += mine.stats.stage_seconds[s];
    cft_assert_at(mine.stats.stage_seconds[CF_STAGE_DETECT] > 0.0 && t > 0.0, "%s: stage times recorded", what);
    cf_world_free(&ref);
    cf_world_free(&mine);
}

START_TEST(ch11_1_trajectories)
{
    same_trajectory(WORLD_RIGID, 40, "rigid box and ball", 5);
    same_trajectory(WORLD_SOFT, 30, "soft cube on the ground", 4);
    same_trajectory(WORLD_MIXED, 40, "box on a soft cube", 8);
}
END_TEST

START_TEST(ch11_1_failure_restores)
{
    /* two failures after stages that changed the world: a rows solver cannot take the soft
       contacts (the contacts stage fails after detect replaced the contact list), and an
       assembled problem larger than max_matrix_mb (the assemble stage fails after the velocities
       stage added gravity); the bodies, the clock and the step count are as before the step */
    for (int c = 0; c < 2; ++c) {
        cfWorld w, before;
        load(&w, WORLD_MIXED);
        for (int k = 0; k < 5; ++k) cft_assert_ok(cf_world_step_with(&w, cf_pipeline_step));
        if (c == 0) w.def.solver = cf_solver_find("pgs");
        else w.def.max_matrix_mb = 1e-6;
        cft_assert_ok(cf_world_copy(&before, &w));
        cft_assert_status_at(cf_world_step_with(&w, cf_pipeline_step), CF_BAD_INPUT, "case %d", c);
        const char *says = c == 0 ? "'pgs'" : "max_matrix_mb";
        ck_assert_msg(strstr(w.error.msg, says) != NULL, "the message names %s: %s", says, w.error.msg);
        cft_assert_near_at(state_diff(&w, &before), 0.0, 0.0, 0, "case %d", c);
        cft_assert_near_at(w.time, before.time, 0.0, 0, "case %d", c);
        ck_assert_int_eq(w.step, before.step);
        cf_world_free(&w);
        cf_world_free(&before);
    }
}
END_TEST

/* a world of one ground and dynamic boxes from a list of (position, half size, mass) */
static void boxes_world(cfWorld *w, const cfWorldDef *def, int n, const cfVec3 *pos, double half, double mu)
{
    cft_assert_ok(cf_world_init(w, def));
    cfRigidBody b;
    cft_assert_ok(cf_rigid_init_fixed(&b, cf_shape_plane(cfu_vec3(0, 0, 1), 0), NULL));
    b.mu = mu;
    ck_assert_int_eq(cf_world_add_body(w, &b), 0);
    for (int i = 0; i < n; ++i) {
        cft_assert_ok(cf_rigid_init(&b, cf_shape_box(cfu_vec3(half, half, half)), 1.0, NULL));
        b.x = pos[i];
        b.mu = mu;
        cf_rigid_update_inertia(&b);
        cft_assert_int_at(cf_world_add_body(w, &b), ==, i + 1, "i = %d", i);
    }
}

START_TEST(ch11_1_physics)
{
    /* no contacts: the linear momentum grows by M g t exactly (semi-implicit Euler is exact for
       constant forces in the velocities) */
    cfWorldDef def = cf_world_def_default();
    def.dt = 0.01;
    cfWorld w;
    cft_assert_ok(cf_world_init(&w, &def));
    cfRigidBody b;
    cft_assert_ok(cf_rigid_init(&b, cf_shape_box(cfu_vec3(0.1, 0.2, 0.3)), 2.0, NULL));
    b.v = cfu_vec3(1, -2, 3);
    b.w = cfu_vec3(3, 1, -2);
    cf_world_add_body(&w, &b);
    cft_assert_ok(cf_rigid_init(&b, cf_shape_sphere(0.2), 0.5, NULL));
    b.x = cfu_vec3(1, 0, 0);
    b.v = cfu_vec3(-1, 0, 2);
    cf_world_add_body(&w, &b);
    cfVec3 p0 = cf_world_linear_momentum(&w);
    for (int k = 0; k < 100; ++k) cft_assert_ok(cf_world_step_with(&w, cf_pipeline_step));
    cfVec3 p = cf_world_linear_momentum(&w), want = cfu_mul_add(p0, 2.5 * 100 * 0.01, def.gravity);
    cft_assert_vec3_near(p, want, 1e-11);
    cf_world_free(&w);

    /* a resting stack of three boxes (PGS, split impulse) stands: after 1 s the top box has moved
       less than 1 mm and every box is slower than 1 cm/s */
    def = cf_world_def_default();
    def.detector = CF_DETECT_PRIMITIVES;
    def.contact_margin = 0.01;
    def.solver = cf_solver_find("pgs");
    def.solver_iterations = 30;
    cfVec3 stack[3] = {cfu_vec3(0, 0, 0.1), cfu_vec3(0, 0, 0.3), cfu_vec3(0, 0, 0.5)};
    boxes_world(&w, &def, 3, stack, 0.1, 0.5);
    for (int k = 0; k < 60; ++k) cft_assert_ok_at(cf_world_step_with(&w, cf_pipeline_step), "step %d: %s", k, w.error.msg);
    cft_assert_at(cfu_norm(cfu_sub(w.bodies[3].x, stack[2])) < 1e-3, "top box moved %g m", cfu_norm(cfu_sub(w.bodies[3].x, stack[2])));
    for (int i = 1; i <= 3; ++i) cft_assert_at(cfu_norm(w.bodies[i].v) < 1e-2, "box %d at %g m/s", i, cfu_norm(w.bodies[i].v));
    cf_world_free(&w);

    /* a box sliding down an incline of 30 degrees (gravity tilted over a level ground) with
       mu = 0.3 accelerates at a = g (sin 30 - mu cos 30); from rest, semi-implicit Euler moves it
       d_n = a h^2 n (n + 1) / 2 in n steps. Lemke solves each step exactly. */
    const double g = 9.81, th = 3.14159265358979323846 / 6.0, mu = 0.3, h = 0.01;
    def = cf_world_def_default();
    def.dt = h;
    def.gravity = cfu_vec3(g * sin(th), 0, -g * cos(th));
    def.detector = CF_DETECT_PRIMITIVES;
    def.contact_margin = 0.01;
    def.solver = cf_solver_find("lemke");
    cfVec3 at = cfu_vec3(0, 0, 0.1);
    boxes_world(&w, &def, 1, &at, 0.1, mu);
    int n = 60;
    for (int k = 0; k < n; ++k) cft_assert_ok_at(cf_world_step_with(&w, cf_pipeline_step), "step %d: %s", k, w.error.msg);
    double a = g * (sin(th) - mu * cos(th)), d = a * h * h * n * (n + 1) / 2.0;
    cft_assert_near(w.bodies[1].x.x, d, 0, 1e-3);
    cft_assert_near(w.bodies[1].v.x, a * h * n, 0, 1e-3);
    cf_world_free(&w);
}
END_TEST

/* ---- ch11.2 --------------------------------------------------------------------------------- */

/* side B a node of soft body @p soft, kept in the caller's @p x */
static cfContact soft_contact(int rigid, int soft, cfContactExtra *x)
{
    cfContact c = cft_rigid_contact(rigid, -1);
    memset(x, 0, sizeof *x);
    x->soft_b.n = 1;
    x->soft_b.body = soft;
    x->soft_b.w[0] = 1.0;
    c.extra = x;
    return c;
}

/* islands by a graph search, independent of the student's union-find: flood from each dynamic
   node in the numbering order */
static int islands_by_search(const cfRigidBody *bodies, int nb, int ns, const cfContact *cs, int nc, int *label)
{
    int n = nb + ns, count = 0;
    for (int i = 0; i < n; ++i) label[i] = -1;
    int stack[256];
    for (int i = 0; i < n; ++i) {
        if ((i < nb && bodies[i].fixed) || label[i] >= 0) continue;
        int top = 0;
        stack[top++] = i;
        label[i] = count;
        while (top > 0) {
            int u = stack[--top];
            for (int a = 0; a < nc; ++a) {
                int s[2];
                for (int side = 0; side < 2; ++side) {
                    cfSideKind k = cf_contact_side_kind(&cs[a], side);
                    int r = side == 0 ? cs[a].body_a : cs[a].body_b;
                    s[side] = k == CF_SIDE_RIGID  ? (bodies[r].fixed ? -1 : r)
                              : k == CF_SIDE_SOFT ? nb + cf_contact_soft(&cs[a], side)->body
                                                  : -1;
                }
                for (int side = 0; side < 2; ++side)
                    if (s[side] == u && s[1 - side] >= 0 && label[s[1 - side]] < 0) {
                        label[s[1 - side]] = count;
                        stack[top++] = s[1 - side];
                    }
            }
        }
        count++;
    }
    return count;
}

START_TEST(ch11_2_islands)
{
    /* the worked example: ground (fixed), A, B, C; ground-A, A-B, ground-C */
    cfRigidBody bodies[40];
    memset(bodies, 0, sizeof bodies);
    bodies[0].fixed = true;
    cfContact cs[3] = {cft_rigid_contact(0, 1), cft_rigid_contact(1, 2), cft_rigid_contact(0, 3)};
    cfIslands is;
    cft_assert_ok(cf_islands_find(bodies, 4, 0, cs, 3, &is));
    ck_assert_int_eq(is.count, 2);
    int ob[4] = {-1, 0, 0, 1}, oc[3] = {0, 0, 1};
    for (int i = 0; i < 4; ++i) cft_assert_int_at(is.of_body[i], ==, ob[i], "i = %d", i);
    for (int a = 0; a < 3; ++a) cft_assert_int_at(is.of_contact[a], ==, oc[a], "a = %d", a);
    cf_islands_free(&is);

    /* the numbering follows the first body, not the first contact; a contact with the body on
       side B and static side A; soft bodies after the rigid ones. The array holds more bodies
       than nb = 4: the fifth is fixed, and nothing may look at it */
    memset(bodies, 0, sizeof bodies);
    bodies[4].fixed = true;
    cfContactExtra x2[2];
    cfContact c2[4] = {cft_rigid_contact(2, 3), cft_rigid_contact(-1, 1), soft_contact(3, 1, &x2[0]), soft_contact(-1, 0, &x2[1])};
    cft_assert_ok(cf_islands_find(bodies, 4, 2, c2, 4, &is));
    ck_assert_int_eq(is.count, 4); /* {0}, {1}, {2, 3, soft 1}, {soft 0} */
    int ob2[4] = {0, 1, 2, 2}, os2[2] = {3, 2}, oc2[4] = {2, 1, 2, 3};
    for (int i = 0; i < 4; ++i) cft_assert_int_at(is.of_body[i], ==, ob2[i], "i = %d", i);
    for (int i = 0; i < 2; ++i) cft_assert_int_at(is.of_soft[i], ==, os2[i], "i = %d", i);
    for (int a = 0; a < 4; ++a) cft_assert_int_at(is.of_contact[a], ==, oc2[a], "a = %d", a);
    cf_islands_free(&is);

    /* random graphs against a graph search */
    cfRng rng;
    cf_rng_seed(&rng, 11);
    for (int trial = 0; trial < 200; ++trial) {
        int nb = 1 + (int)cf_rng_below(&rng, 30), ns = (int)cf_rng_below(&rng, 4), nc = (int)cf_rng_below(&rng, 40);
        memset(bodies, 0, sizeof bodies);
        for (int i = 0; i < nb; ++i) bodies[i].fixed = cf_rng_below(&rng, 5) == 0;
        cfContact rc[40];
        cfContactExtra rx[40];
        for (int a = 0; a < nc; ++a) {
            int kind = (int)cf_rng_below(&rng, 4);
            int x = (int)cf_rng_below(&rng, (uint32_t)nb), y = (int)cf_rng_below(&rng, (uint32_t)nb);
            if (kind == 0 || ns == 0) rc[a] = cft_rigid_contact(x, y == x ? -1 : y);
            else if (kind == 1) rc[a] = soft_contact(x, (int)cf_rng_below(&rng, (uint32_t)ns), &rx[a]);
            else if (kind == 2) rc[a] = soft_contact(-1, (int)cf_rng_below(&rng, (uint32_t)ns), &rx[a]);
            else {
                rc[a] = soft_contact(-1, (int)cf_rng_below(&rng, (uint32_t)ns), &rx[a]);
                rx[a].soft_a.n = 1;
                rx[a].soft_a.body = (int)cf_rng_below(&rng, (uint32_t)ns);
            }
        }
        int label[64];
        int want = islands_by_search(bodies, nb, ns, rc, nc, label);
        cft_assert_ok_at(cf_islands_find(bodies, nb, ns, rc, nc, &is), "trial %d", trial);
        cft_assert_int_at(is.count, ==, want, "trial %d", trial);
        for (int i = 0; i < nb; ++i) cft_assert_int_at(is.of_body[i], ==, label[i], "trial %d, body %d", trial, i);
        for (int i = 0; i < ns; ++i) cft_assert_int_at(is.of_soft[i], ==, label[nb + i], "trial %d, soft %d", trial, i);
        for (int a = 0; a < nc; ++a) {
            const cfSoftSide *sa = cf_contact_soft(&rc[a], 0), *sb = cf_contact_soft(&rc[a], 1);
            int r = rc[a].body_a >= 0 && !bodies[rc[a].body_a].fixed ? label[rc[a].body_a]
                    : sa                                              ? label[nb + sa->body]
                    : rc[a].body_b >= 0 && !bodies[rc[a].body_b].fixed ? label[rc[a].body_b]
                    : sb                                              ? label[nb + sb->body]
                                                                      : -1;
            cft_assert_int_at(is.of_contact[a], ==, r, "trial %d, contact %d", trial, a);
        }
        cf_islands_free(&is);
    }
    cfContact bad = cft_rigid_contact(0, 7);
    cft_assert_status(cf_islands_find(bodies, 4, 0, &bad, 1, &is), CF_BAD_INPUT);
}
END_TEST

/* A rule's answer for an island, judged by what makes it sensible rather than by the reference's
   numbers (the spec): nothing for no contacts; otherwise a registry row that takes the island
   (a world solver, an assembled form for soft contacts, the directional box for texture friction,
   else ellipses for anisotropic ones). Empty when it is, else why not. */
static const char *rule_fault(const cfIslandSummary *is, const char *got)
{
    if (is->contacts == 0) return got ? "an island without contacts gets no solver" : "";
    if (!got) return "an island with contacts needs a solver";
    const cfSolver *s = cf_solver_find(got);
    if (!s) return "not a row of the registry (cflab solvers)";
    if (!s->contacts) return "not a world solver (it solves LCP files only)";
    if (is->soft && s->form == CF_FORM_ROWS) return "soft contacts need an assembled form (the matrix-free rows are rigid only)";
    if (is->directional && !s->directional)
        return "texture friction's directional box needs a row that reads it (cfSolver::directional)";
    if (is->anisotropic && !is->directional && !s->anisotropic) return "anisotropic contacts need a row that solves ellipses";
    return "";
}

START_TEST(ch11_2_rule)
{
    /* every kind of island and size: the answer takes the island */
    for (int soft = 0; soft <= 1; ++soft)
        for (int aniso = 0; aniso <= 2; ++aniso) /* 2: texture friction's directional box (anisotropic too) */
            for (int nc = 0; nc <= 400; nc += nc < 20 ? 1 : 20) {
                cfIslandSummary is = {.rigid = 2 + nc / 4, .soft = soft, .contacts = nc, .anisotropic = aniso > 0,
                                      .directional = aniso == 2};
                const char *got = cf_island_solver(&is), *why = rule_fault(&is, got);
                ck_assert_msg(!*why, "island of %d contacts (soft %d, anisotropic %d, directional %d): '%s': %s", nc, soft,
                              aniso > 0, aniso == 2, got ? got : "NULL", why);
            }
    /* rigid, isotropic: an exact (dense pivoting) method for the smallest islands, where iterative
       methods are weakest and pivoting is cheapest; none from 64 contacts on, where its cubic cost
       does not pay; in between a threshold of your choice: once a size gets an iterative method,
       every larger one does */
    bool iterative_seen = false;
    for (int nc = 1; nc <= 400; ++nc) {
        cfIslandSummary is = {.rigid = 1 + nc / 4, .contacts = nc};
        const char *got = cf_island_solver(&is);
        const cfSolver *s = got ? cf_solver_find(got) : NULL;
        ck_assert_msg(s, "island of %d contacts: '%s' is not a row", nc, got ? got : "NULL");
        if (nc <= 4) ck_assert_msg(s->dense, "island of %d contacts: '%s' is not an exact pivoting method", nc, got);
        if (nc >= 64) ck_assert_msg(!s->dense, "island of %d contacts: '%s' pivots on a dense matrix", nc, got);
        ck_assert_msg(!(iterative_seen && s->dense), "island of %d contacts: '%s' is exact again after a smaller "
                      "island got an iterative method", nc, got);
        iterative_seen |= !s->dense;
    }
}
END_TEST

/* the mixed scene: a stack of two boxes (8 contacts), a pile of spheres, a soft cube on the
   ground, a box in flight */
static const char *mixed_islands =
    "{\"name\": \"islands\", \"chapter\": 11, \"description\": \"d\", \"expect\": \"e\",\n"
    " \"world\": {\"dt\": 0.01, \"detector\": \"primitives\", \"contact_margin\": 0.02, \"solver\": \"dual\"},\n"
    " \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.5, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}},\n"
    "  {\"name\": \"low\", \"mass\": 1, \"position\": [0, 0, 0.1], \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}},\n"
    "  {\"name\": \"high\", \"mass\": 1, \"position\": [0, 0, 0.3], \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}},\n"
    "  {\"name\": \"flying\", \"mass\": 1, \"position\": [0, 3, 2], \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}},\n"
    "  {\"name\": \"s1\", \"mass\": 1, \"position\": [2, 0, 0.1], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}},\n"
    "  {\"name\": \"s2\", \"mass\": 1, \"position\": [2.2, 0, 0.1], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}},\n"
    "  {\"name\": \"s3\", \"mass\": 1, \"position\": [2.4, 0, 0.1], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}},\n"
    "  {\"name\": \"s4\", \"mass\": 1, \"position\": [2.1, 0, 0.27], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}},\n"
    "  {\"name\": \"s5\", \"mass\": 1, \"position\": [2.3, 0, 0.27], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}},\n"
    "  {\"name\": \"s6\", \"mass\": 1, \"position\": [2.2, 0, 0.44], \"shape\": {\"type\": \"sphere\", \"radius\": 0.1}}],\n"
    " \"soft_bodies\": [{\"name\": \"jelly\", \"type\": \"tet_box\", \"origin\": [-2, 0, 0.0], \"size\": [0.3, 0.3, 0.3],"
    " \"cells\": [1, 1, 1], \"density\": 500, \"young\": 1e5, \"poisson\": 0.3, \"mu\": 0.5}]}";

START_TEST(ch11_2_mixed_scene)
{
    cfWorld w;
    load(&w, mixed_islands);
    cft_assert_ok_at(cf_world_step(&w), "%s", w.error.msg);
    cfIslands is;
    cft_assert_ok(cf_islands_find(w.bodies, w.n_bodies, w.n_soft, w.contacts.items, w.contacts.count, &is));
    /* islands in the order of their first body: the stack (low), flying, the pile (s1), the jelly;
       each gets a solver that takes it (the reference: lemke, none, pgs, dual) */
    ck_assert_int_eq(is.count, 4);
    int expect_contacts[4] = {8, 0, -1, 4};
    for (int k = 0; k < 4; ++k) {
        cfIslandSummary s = cf_island_summary(&is, k, w.contacts.items);
        const char *got = cf_island_solver(&s), *why = rule_fault(&s, got);
        ck_assert_msg(!*why, "island %d (%d contacts): '%s': %s", k, s.contacts, got ? got : "NULL", why);
        if (expect_contacts[k] >= 0) cft_assert_int_at(s.contacts, ==, expect_contacts[k], "island %d", k);
        else cft_assert_int_at(s.contacts, >, CF_EXACT_MAX_CONTACTS, "island %d (the pile)", k);
    }
    ck_assert_int_eq(is.of_body[1], 0);
    ck_assert_int_eq(is.of_body[2], 0);
    ck_assert_int_eq(is.of_body[3], 1);
    for (int i = 4; i <= 9; ++i) cft_assert_int_at(is.of_body[i], ==, 2, "i = %d", i);
    ck_assert_int_eq(is.of_soft[0], 3);
    cf_islands_free(&is);
    cf_world_free(&w);
}
END_TEST

/* ---- ch11.3 --------------------------------------------------------------------------------- */

static double momentum(int n, const double *m, const double *v)
{
    double p = 0.0;
    for (int i = 0; i < n; ++i) p += m[i] * v[i];
    return p;
}

static double kinetic(int n, const double *m, const double *v)
{
    double k = 0.0;
    for (int i = 0; i < n; ++i) k += 0.5 * m[i] * v[i] * v[i];
    return k;
}

START_TEST(ch11_3_sequential)
{
    double m3[3] = {1, 1, 1}, v3[3] = {1, 0, 0}, out[5];
    int sweeps = -1;
    /* the cradle: the first ball stops, the last leaves with all the speed */
    cft_assert_ok(cf_impacts_sequential(3, m3, v3, 1.0, 1e-12, 100, out, &sweeps));
    double want3[3] = {0, 0, 1};
    for (int i = 0; i < 3; ++i) cft_assert_near_at(out[i], want3[i], 1e-15, 0, "ball %d", i);
    ck_assert_int_eq(sweeps, 1);
    /* five balls, two pulled: two leave */
    double m5[5] = {1, 1, 1, 1, 1}, v5[5] = {1, 1, 0, 0, 0}, want5[5] = {0, 0, 0, 1, 1};
    cft_assert_ok(cf_impacts_sequential(5, m5, v5, 1.0, 1e-12, 100, out, &sweeps));
    for (int i = 0; i < 5; ++i) cft_assert_near_at(out[i], want5[i], 1e-15, 0, "ball %d", i);
    /* e = 0: a geometric sequence of impacts that ends with all three at 1/3; one sweep gives
       (1/2, 1/4, 1/4) and the budget is spent */
    cft_assert_ok(cf_impacts_sequential(3, m3, v3, 0.0, 1e-12, 1000, out, &sweeps));
    for (int i = 0; i < 3; ++i) cft_assert_near_at(out[i], 1.0 / 3.0, 1e-11, 0, "ball %d", i);
    cft_assert_int_at(sweeps, >, 5, "e = 0 takes many sweeps");
    cft_assert_status(cf_impacts_sequential(3, m3, v3, 0.0, 1e-12, 1, out, &sweeps), CF_MAX_ITER);
    double one[3] = {0.5, 0.25, 0.25};
    for (int i = 0; i < 3; ++i) cft_assert_near_at(out[i], one[i], 1e-15, 0, "ball %d after one sweep", i);
    /* the order of a sweep matters: masses (1, 2, 1), v = (2, 0, -1), e = 1.
       Left to right: contact 0 (approach 2, p = 8/3): (-2/3, 4/3, -1); contact 1 (approach 7/3,
       p = 28/9): (-2/3, -2/9, 19/9); sweep 2, contact 0 (approach -4/9): nothing; done.
       (Right to left would give (-4/3, 5/9, 11/9)... the spec's order is left to right.) */
    double m[3] = {1, 2, 1}, v[3] = {2, 0, -1}, wantm[3] = {-2.0 / 3.0, -2.0 / 9.0, 19.0 / 9.0};
    cft_assert_ok(cf_impacts_sequential(3, m, v, 1.0, 1e-12, 100, out, &sweeps));
    for (int i = 0; i < 3; ++i) cft_assert_near_at(out[i], wantm[i], 1e-14, 0, "ball %d", i);
    /* in place, and random chains: momentum kept; energy kept for e = 1, lost for e < 1; no
       contact approaches at the end */
    cfRng rng;
    cf_rng_seed(&rng, 3);
    for (int trial = 0; trial < 100; ++trial) {
        int n = 2 + (int)cf_rng_below(&rng, 4);
        double mm[5], vv[5], e = trial % 2 ? 1.0 : cf_rng_uniform(&rng) * 0.9;
        for (int i = 0; i < n; ++i) mm[i] = cf_rng_range(&rng, 0.2, 5), vv[i] = cf_rng_range(&rng, -2, 2);
        double p0 = momentum(n, mm, vv), k0 = kinetic(n, mm, vv);
        cfStatus st = cf_impacts_sequential(n, mm, vv, e, 1e-12, 100000, vv, NULL);
        cft_assert_ok_at(st, "trial %d", trial);
        cft_assert_near_at(momentum(n, mm, vv), p0, 1e-12, 1e-12, "trial %d", trial);
        if (e == 1.0) cft_assert_near_at(kinetic(n, mm, vv), k0, 1e-12, 1e-10, "trial %d", trial);
        else cft_assert_at(kinetic(n, mm, vv) <= k0 + 1e-12, "trial %d: energy grew", trial);
        for (int i = 0; i + 1 < n; ++i) cft_assert_at(vv[i] - vv[i + 1] <= 1e-12, "trial %d: contact %d approaches", trial, i);
    }
    /* balls moving together do not approach (a_i = 0 is not > tol = 0): nothing to resolve */
    double same[3] = {0.5, 0.5, 0.5};
    cft_assert_ok(cf_impacts_sequential(3, m3, same, 1.0, 0.0, 1, out, &sweeps));
    ck_assert_int_eq(sweeps, 0);
    cft_assert_status(cf_impacts_sequential(1, m3, v3, 1.0, 0.0, 10, out, NULL), CF_BAD_INPUT);
    cft_assert_status(cf_impacts_sequential(3, m3, v3, 1.5, 0.0, 10, out, NULL), CF_BAD_INPUT);
}
END_TEST

START_TEST(ch11_3_simultaneous)
{
    double m3[3] = {1, 1, 1}, v3[3] = {1, 0, 0}, out[6], p[5];
    /* the worked example, and for every e: v+ = ((1 - 2e)/3, (1 + e)/3, (1 + e)/3), p = (1 + e)(2/3, 1/3) */
    for (int k = 0; k <= 4; ++k) {
        double e = k / 4.0;
        cft_assert_ok_at(cf_impacts_simultaneous(3, m3, v3, e, p, out), "e = %g", e);
        double want[3] = {(1 - 2 * e) / 3, (1 + e) / 3, (1 + e) / 3};
        for (int i = 0; i < 3; ++i) cft_assert_near_at(out[i], want[i], 1e-12, 0, "e = %g, ball %d", e, i);
        cft_assert_near_at(p[0], (1 + e) * 2.0 / 3.0, 1e-12, 0, "e = %g", e);
        cft_assert_near_at(p[1], (1 + e) / 3.0, 1e-12, 0, "e = %g", e);
    }
    /* e = 1 keeps the energy of the worked example yet spreads it: not the cradle */
    cft_assert_ok(cf_impacts_simultaneous(3, m3, v3, 1.0, NULL, out));
    cft_assert_near(kinetic(3, m3, out), 0.5, 1e-12, 0);
    /* the LCP's certificate on random chains: p >= 0, w >= 0, p w = 0 with
       w_i = (v+_{i+1} - v+_i) + e (v_{i+1} - v_i); momentum kept; in place */
    cfRng rng;
    cf_rng_seed(&rng, 5);
    for (int trial = 0; trial < 100; ++trial) {
        int n = 2 + (int)cf_rng_below(&rng, 5);
        double mm[6], vv[6], e = cf_rng_uniform(&rng);
        for (int i = 0; i < n; ++i) mm[i] = cf_rng_range(&rng, 0.2, 5), vv[i] = cf_rng_range(&rng, -2, 2);
        cft_assert_ok_at(cf_impacts_simultaneous(n, mm, vv, e, p, out), "trial %d", trial);
        cft_assert_near_at(momentum(n, mm, out), momentum(n, mm, vv), 1e-12, 1e-12, "trial %d", trial);
        for (int i = 0; i + 1 < n; ++i) {
            double w = (out[i + 1] - out[i]) + e * (vv[i + 1] - vv[i]);
            cft_assert_at(p[i] >= 0 && w >= -1e-12 && fabs(p[i] * w) <= 1e-12, "trial %d, contact %d: p %g, w %g", trial, i, p[i], w);
        }
        /* v+ = v + M^-1 J^T p from the impulses returned */
        for (int i = 0; i < n; ++i) {
            double dv = (i + 1 < n ? -p[i] : 0.0) + (i > 0 ? p[i - 1] : 0.0);
            cft_assert_near_at(out[i], vv[i] + dv / mm[i], 1e-12, 0, "trial %d, ball %d", trial, i);
        }
        double before[6];
        memcpy(before, out, sizeof before);
        cft_assert_ok(cf_impacts_simultaneous(n, mm, vv, e, NULL, vv));
        for (int i = 0; i < n; ++i) cft_assert_near_at(vv[i], before[i], 1e-14, 0, "in place, trial %d", trial);
    }
    cft_assert_status(cf_impacts_simultaneous(3, m3, v3, -0.1, p, out), CF_BAD_INPUT);
}
END_TEST

static void build(Suite *s)
{
    TCase *t1 = cft_tcase_unit(s, "ch11.1");
    CFT_GRADED(t1, ch11_1_transaction, "ch11.1", 6, "the pipeline: stage order, timing, failure and restore (mock world)");
    TCase *t1w = cft_tcase_scene(s, "ch11.1-world");
    CFT_GRADED(t1w, ch11_1_trajectories, "ch11.1", 6, "rigid, soft and mixed worlds: the reference world's trajectories");
    CFT_GRADED(t1w, ch11_1_failure_restores, "ch11.1", 3, "a failing stage leaves the world as it was");
    CFT_GRADED(t1w, ch11_1_physics, "ch11.1", 5, "momentum without contacts, a resting stack, the incline's distance");

    TCase *t2 = cft_tcase_unit(s, "ch11.2");
    CFT_GRADED(t2, ch11_2_islands, "ch11.2", 6, "islands: worked example, numbering, static sides, random graphs");
    CFT_GRADED(t2, ch11_2_rule, "ch11.2", 4, "the solver rule, its boundary, rows that can take the island");
    TCase *t2w = cft_tcase_scene(s, "ch11.2-world");
    CFT_GRADED(t2w, ch11_2_mixed_scene, "ch11.2", 5, "a mixed scene: stack, pile, jelly and a box in flight");

    TCase *t3 = cft_tcase_unit(s, "ch11.3");
    CFT_GRADED(t3, ch11_3_sequential, "ch11.3", 8, "sequential impacts: the cradle, e = 0, sweep order, momentum");
    CFT_GRADED(t3, ch11_3_simultaneous, "ch11.3", 7, "simultaneous impacts: the LCP, (1 - 2e)/3, certificate");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "ch11", build); }
