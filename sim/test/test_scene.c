/* SPDX-License-Identifier: MIT */
/* Library tests: scene files (cf_scene.h): every scene in scenes/ loads, bad input is refused
   with one line naming file, position or field and reason, and values survive the round trip. */
#define _POSIX_C_SOURCE 200809L
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cft.h"
#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"

/* true when all @p n bytes at @p p are zero */
static bool all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; ++i)
        if (b[i]) return false;
    return true;
}

/* ---- every committed scene loads ------------------------------------------------------------ */

START_TEST(scene_every_file_loads)
{
    char pattern[1100];
    snprintf(pattern, sizeof pattern, "%s", cft_scene_path("*.json"));
    glob_t g;
    int rc = glob(pattern, 0, NULL, &g);
    ck_assert_msg(rc == 0, "no scene matches %s (run the tests from the repository root or set CF_SCENES_DIR)",
                  pattern);
    ck_assert_uint_ge(g.gl_pathc, 5);
    for (size_t i = 0; i < g.gl_pathc; ++i) {
        const char *path = g.gl_pathv[i];
        cfWorld w;
        cfSceneInfo info;
        cfError err = {{0}};
        cfStatus st = cf_scene_load(path, &w, &info, &err);
        ck_assert_msg(st == CF_OK, "%s: %s", path, err.msg);
        /* every scene tells its story */
        ck_assert_msg(info.name[0] && info.description[0] && info.expect[0],
                      "%s: name, description and expect are required in committed scenes", path);
        ck_assert_msg(info.chapter >= 1, "%s: chapter missing", path);
        ck_assert_int_gt(info.steps, 0);
        ck_assert_int_gt(w.n_bodies + w.n_soft, 0);
        for (int b = 0; b < w.n_bodies; ++b) ck_assert_msg(cf_rigid_state_ok(&w.bodies[b]), "%s: body %d", path, b);
        for (int s = 0; s < w.n_soft; ++s) cft_assert_int_at(w.soft[s].n_nodes, >, 0, "s = %d", s);
        cft_assert_finite(cf_world_energy(&w));
        cf_world_free(&w);
    }
    globfree(&g);
}
END_TEST

/* cf_scene_load_solved: the caller's solver instead of the scene's, checked by the same rules */
START_TEST(scene_load_with_another_solver)
{
    cfWorld w;
    cfError err;
    const char *file = cft_scene_path("ch05_stack_10.json");
    cft_assert_ok(cf_scene_load_solved(file, "pgs-blocked", &w, NULL, &err));
    ck_assert_msg(w.def.solver == cf_solver_find("pgs-blocked"), "the solver asked for, not the scene's");
    cf_world_free(&w);
    cft_assert_ok(cf_scene_load_solved(file, "none", &w, NULL, &err));
    ck_assert_msg(w.def.solver == NULL, "none: no contact solver");
    cf_world_free(&w);
    cft_assert_ok(cf_scene_load_solved(file, NULL, &w, NULL, &err));
    cfWorld plain;
    cft_assert_ok(cf_scene_load(file, &plain, NULL, &err));
    ck_assert_msg(w.def.solver == plain.def.solver, "NULL keeps the scene's");
    cf_world_free(&w);
    cf_world_free(&plain);
    ck_assert_int_eq(cf_scene_load_solved(file, "pgs-fastest", &w, NULL, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "ch05_stack_10.json") && strstr(err.msg, "'pgs-fastest'"), "got: %s", err.msg);
    ck_assert_int_eq(w.n_bodies, 0);
}
END_TEST

START_TEST(scene_demo_scene_exists)
{
    /* `make demo` runs this one */
    ck_assert_int_eq(access(cft_scene_path("ch01_tennis_racket.json"), R_OK), 0);
}
END_TEST

/* ---- bad input -------------------------------------------------------------------------------- */

/* a minimal valid body, for building bad scenes around */
#define BALL "{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1}"

typedef struct BadCase {
    const char *what;   /* the kind of bad input */
    const char *json;   /* the scene text */
    cfStatus status;    /* expected status */
    const char *expect; /* a substring the message must contain (field path or line:col) */
    const char *reason; /* a second substring: the reason */
} BadCase;

static const BadCase BAD[] = {
    {"syntax error: missing comma", "{\n  \"name\": \"x\",\n  \"bodies\": [" BALL " " BALL "]\n}", CF_BAD_INPUT,
     "bad.json:3:",
     "invalid JSON near '{\"shape\""},
    {"syntax error: line and column", "{\n  \"name\": \"x\",\n     \"chapter\": tru\n}", CF_BAD_INPUT, "bad.json:3:17: ",
     "invalid JSON near 'tru'"},
    {"syntax error: truncated", "{\"bodies\": [" BALL, CF_BAD_INPUT, "bad.json:1:", "unexpected end of input"},
    {"syntax error: empty", "", CF_BAD_INPUT, "bad.json:1:1: ", "unexpected end of input"},
    {"syntax error: trailing text", "{\"bodies\": [" BALL "]} x", CF_BAD_INPUT, "bad.json:1:", "near 'x'"},
    {"top level is not an object", "[1, 2]", CF_BAD_INPUT, "bad.json: ", "must be a JSON object (got an array)"},
    {"no bodies", "{\"name\": \"empty\"}", CF_BAD_INPUT, "bad.json: ", "no bodies"},
    {"unknown top-level key", "{\"bodys\": [" BALL "]}", CF_BAD_INPUT, "bad.json: ",
     "unknown key 'bodys' (did you mean 'bodies'?)"},
    {"unknown key (typo)", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"raduis\": 1}, \"mass\": 1}]}",
     CF_BAD_INPUT, "bodies[0].shape: ", "unknown key 'raduis' (did you mean 'radius'?)"},
    {"key of another shape", "{\"bodies\": [{\"shape\": {\"type\": \"box\", \"radius\": 1}, \"mass\": 1}]}",
     CF_BAD_INPUT, "bodies[0].shape: ", "unknown key 'radius' (expected one of: type, half_extents)"},
    {"duplicate key", "{\"bodies\": [" BALL "], \"name\": \"a\", \"name\": \"b\"}", CF_BAD_INPUT, "bad.json: ",
     "duplicate key 'name'"},
    {"wrong type: string for number", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": \"1\"}]}",
     CF_BAD_INPUT, "bodies[0].mass: ", "must be a number (got a string)"},
    {"wrong type: object for array", "{\"bodies\": {}}", CF_BAD_INPUT, "bad.json: bodies: ", "must be an array"},
    {"wrong type: number for boolean", "{\"world\": {\"gyroscopic\": 1}, \"bodies\": [" BALL "]}", CF_BAD_INPUT,
     "world.gyroscopic: ", "must be true or false (got a number)"},
    {"vector of wrong length", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1, "
                               "\"position\": [0, 1]}]}",
     CF_BAD_INPUT, "bodies[0].position: ", "must be an array of 3 numbers (got 2 elements)"},
    {"vector element not a number", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1, "
                                    "\"velocity\": [0, null, 0]}]}",
     CF_BAD_INPUT, "bodies[0].velocity[1]: ", "must be a number (got null)"},
    {"missing shape", "{\"bodies\": [{\"mass\": 1}]}", CF_BAD_INPUT, "bodies[0].shape: ", "missing"},
    {"unknown shape type", "{\"bodies\": [{\"shape\": {\"type\": \"cube\"}, \"mass\": 1}]}", CF_BAD_INPUT,
     "bodies[0].shape.type: ", "unknown shape type 'cube'"},
    {"unknown rigid integrator", "{\"world\": {\"rigid_integrator\": \"rk4\"}, \"bodies\": [" BALL "]}",
     CF_BAD_INPUT, "world.rigid_integrator: ", "unknown integrator 'rk4' (expected one of: semi-implicit, explicit)"},
    {"unknown preconditioner", "{\"world\": {\"solver\": \"dual\", \"preconditioner\": \"jacobi\"}, \"bodies\": [" BALL "]}",
     CF_BAD_INPUT, "world.preconditioner: ", "unknown preconditioner 'jacobi'"},
    {"preconditioner of a non-dual solver", "{\"world\": {\"solver\": \"pgs\", \"preconditioner\": \"lumped\"}, \"bodies\": [" BALL "]}",
     CF_BAD_INPUT, "world", "'lumped' is a choice of the dual-form solvers (dual)"},
    {"soft_tolerance of a non-dual solver", "{\"world\": {\"solver\": \"pgs\", \"soft_tolerance\": 1e-3}, \"bodies\": [" BALL "]}",
     CF_BAD_INPUT, "world", "soft_tolerance: a tolerance of the dual-form solvers' soft rows; solver 'pgs'"},
    {"negative soft_tolerance", "{\"world\": {\"solver\": \"dual\", \"soft_tolerance\": -1}, \"bodies\": [" BALL "]}",
     CF_BAD_INPUT, "world", "soft_tolerance: must be >= 0 (got -1)"},
    {"cmr without a detector", "{\"world\": {\"solver\": \"dual\", \"detector\": \"none\", \"cmr_rounds\": 5}, \"bodies\": [" BALL "]}",
     CF_BAD_INPUT, "world", "constraint manifold refinement needs a detector"},
    {"tetgen without files", "{\"soft_bodies\": [{\"type\": \"tetgen\", \"density\": 1, \"young\": 1, \"poisson\": 0.3}]}",
     CF_BAD_INPUT, "soft_bodies[0]", "needs \"node\" and \"ele\""},
    {"unknown soft integrator", "{\"world\": {\"soft_integrator\": \"verlet\"}, \"bodies\": [" BALL "]}",
     CF_BAD_INPUT, "world.soft_integrator: ", "unknown integrator 'verlet'"},
    {"negative mass", "{\"bodies\": [" BALL ", {\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": -2}]}",
     CF_BAD_INPUT, "bad.json: bodies[1].mass: ", "> 0"},
    {"zero mass", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 0}]}", CF_BAD_INPUT,
     "bodies[0].mass: ", "> 0"},
    {"missing mass", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}", CF_BAD_INPUT,
     "bodies[0].mass: ", "missing"},
    {"negative radius", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": -1}, \"mass\": 1}]}",
     CF_BAD_INPUT, "bad.json: bodies[0].shape.radius: ", "> 0"},
    {"zero half extent", "{\"bodies\": [{\"shape\": {\"type\": \"box\", \"half_extents\": [1, 0, 1]}, \"mass\": 1}]}",
     CF_BAD_INPUT, "bodies[0].shape.half_extents: ", "> 0"},
    /* issue 30: the key the user wrote, not one derived from it */
    {"sphere too small for its inertia", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1e-200}, \"mass\": 1}]}",
     CF_BAD_INPUT, "bad.json: bodies[0].shape.radius: ", "too small for a body of 1 kg"},
    {"cloth bend < 0", "{\"soft_bodies\": [{\"type\": \"cloth\", \"origin\": [0, 0, 1], \"du\": [1, 0, 0], \"dv\": [0, 1, 0],"
     " \"cells\": [2, 2], \"mass\": 1, \"stretch\": 10, \"shear\": 1, \"bend\": -1}]}",
     CF_BAD_INPUT, "bad.json: soft_bodies[0].bend: ", "must be finite and >= 0"},
    {"zero plane normal", "{\"bodies\": [{\"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 0]}, \"fixed\": true}]}",
     CF_BAD_INPUT, "bodies[0].shape.normal: ", "non-zero"},
    {"plane that is not fixed", "{\"bodies\": [{\"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1]}}]}",
     CF_BAD_INPUT, "bodies[0].fixed: ", "plane must be fixed"},
    {"mass on a fixed body", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"fixed\": true, "
                             "\"mass\": 1}]}",
     CF_BAD_INPUT, "bodies[0].mass: ", "not allowed on a fixed body"},
    {"position on a plane", "{\"bodies\": [{\"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1]}, \"fixed\": true, "
                            "\"position\": [0, 0, 1]}]}",
     CF_BAD_INPUT, "bodies[0].position: ", "not allowed on a plane"},
    {"negative friction", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1, \"mu\": -0.1}]}",
     CF_BAD_INPUT, "bodies[0].mu: ", "must be >= 0 (got -0.1)"},
    {"restitution above 1", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1, "
                            "\"restitution\": 1.5}]}",
     CF_BAD_INPUT, "bodies[0].restitution: ", "must be in [0, 1] (got 1.5)"},
    {"restitution below 0", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1, "
                            "\"restitution\": -0.5}]}",
     CF_BAD_INPUT, "bodies[0].restitution: ", "must be in [0, 1]"},
    {"number overflowing to infinity", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1e999}]}",
     CF_BAD_INPUT, "bodies[0].mass: ", "must be a finite number (got +inf: out of range)"},
    {"negative infinity in a vector", "{\"world\": {\"gravity\": [0, 0, -1e400]}, \"bodies\": [" BALL "]}",
     CF_BAD_INPUT, "world.gravity[2]: ", "must be a finite number (got -inf"},
    {"zero time step", "{\"world\": {\"dt\": 0}, \"bodies\": [" BALL "]}", CF_BAD_INPUT, "bad.json: world.dt: ",
     "must be > 0 (got 0)"},
    {"negative time step", "{\"world\": {\"dt\": -0.01}, \"bodies\": [" BALL "]}", CF_BAD_INPUT, "world.dt: ",
     "must be > 0"},
    {"zero steps", "{\"world\": {\"steps\": 0}, \"bodies\": [" BALL "]}", CF_BAD_INPUT, "world.steps: ", "must be > 0"},
    {"non-integer steps", "{\"world\": {\"steps\": 10.5}, \"bodies\": [" BALL "]}", CF_BAD_INPUT, "world.steps: ",
     "must be an integer (got 10.5)"},
    {"zero-length quaternion", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1, "
                               "\"orientation\": [0, 0, 0, 0]}]}",
     CF_BAD_INPUT, "bodies[0].orientation: ", "non-zero length"},
    {"inertia with a zero axis", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1, "
                                 "\"inertia\": [1, 0, 1]}]}",
     CF_BAD_INPUT, "bodies[0].inertia: ", "> 0"},
    {"inertia with a negative axis", "{\"bodies\": [{\"shape\": {\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1, "
                                     "\"inertia\": [1, 1, -3]}]}",
     CF_BAD_INPUT, "bodies[0].inertia: ", "> 0"},
    {"name too long", "{\"bodies\": [{\"name\": \"a-body-name-that-is-longer-than-31-chars\", \"shape\": "
                      "{\"type\": \"sphere\", \"radius\": 1}, \"mass\": 1}]}",
     CF_BAD_INPUT, "bodies[0].name: ", "too long"},
    {"soft: zero cells", "{\"soft_bodies\": [{\"type\": \"tet_box\", \"size\": [1, 1, 1], \"cells\": [0, 2, 2], "
                         "\"density\": 1000, \"young\": 1e5, \"poisson\": 0.3}]}",
     CF_BAD_INPUT, "soft_bodies[0].cells: ", "[1, 200]"},
    {"soft: fractional cells", "{\"soft_bodies\": [{\"type\": \"tet_box\", \"size\": [1, 1, 1], \"cells\": [2, 2.5, 2], "
                               "\"density\": 1000, \"young\": 1e5, \"poisson\": 0.3}]}",
     CF_BAD_INPUT, "soft_bodies[0].cells[1]: ", "must be an integer (got 2.5)"},
    {"soft: poisson 0.5", "{\"soft_bodies\": [{\"type\": \"tet_box\", \"size\": [1, 1, 1], \"cells\": [1, 1, 1], "
                          "\"density\": 1000, \"young\": 1e5, \"poisson\": 0.5}]}",
     CF_BAD_INPUT, "soft_bodies[0].poisson: ", "[0, 0.5)"},
    {"soft: negative poisson", "{\"soft_bodies\": [{\"type\": \"tet_box\", \"size\": [1, 1, 1], \"cells\": [1, 1, 1], "
                               "\"density\": 1000, \"young\": 1e5, \"poisson\": -0.1}]}",
     CF_BAD_INPUT, "soft_bodies[0].poisson: ", "[0, 0.5)"},
    {"soft: chain of one node", "{\"soft_bodies\": [{\"type\": \"chain\", \"from\": [0, 0, 0], \"to\": [1, 0, 0], "
                                "\"nodes\": 1, \"stiffness\": 10, \"node_mass\": 1}]}",
     CF_BAD_INPUT, "soft_bodies[0].nodes: ", "must be in [2,"},
    {"soft: unknown type", "{\"soft_bodies\": [{\"type\": \"jelly\"}]}", CF_BAD_INPUT, "soft_bodies[0].type: ",
     "unknown soft body type 'jelly'"},
    {"soft: key of the other type", "{\"soft_bodies\": [{\"type\": \"chain\", \"from\": [0, 0, 0], \"to\": [1, 0, 0], "
                                    "\"nodes\": 3, \"stiffness\": 10, \"node_mass\": 1, \"cells\": [1, 1, 1]}]}",
     CF_BAD_INPUT, "soft_bodies[0]: ", "unknown key 'cells'"},
    {"soft: negative damping", "{\"soft_bodies\": [{\"type\": \"chain\", \"from\": [0, 0, 0], \"to\": [1, 0, 0], "
                               "\"nodes\": 3, \"stiffness\": 10, \"node_mass\": 1, \"damping\": [0, -1]}]}",
     CF_BAD_INPUT, "soft_bodies[0].damping: ", "must be >= 0"},
    /* a valid rigid body and a valid soft body before the bad one: all of it must be freed */
    {"second soft body bad", "{\"bodies\": [" BALL "], \"soft_bodies\": ["
                             "{\"type\": \"chain\", \"from\": [0, 0, 0], \"to\": [1, 0, 0], \"nodes\": 3, "
                             "\"stiffness\": 10, \"node_mass\": 1},"
                             "{\"type\": \"chain\", \"from\": [0, 0, 0], \"to\": [1, 0, 0], \"nodes\": 3, "
                             "\"stiffness\": 10, \"node_mass\": -1}]}",
     CF_BAD_INPUT, "soft_bodies[1].node_mass: ", "> 0"},
};
#define N_BAD ((int)(sizeof BAD / sizeof BAD[0]))

/* Check one bad case; returns NULL when it behaves, else what went wrong (static buffer). */
static const char *check_bad_case(const BadCase *c)
{
    static char why[1024];
    cfWorld w;
    cfSceneInfo info;
    cfError err = {{0}};
    memset(&w, 0xAB, sizeof w); /* garbage: the loader must leave it zeroed */
    memset(&info, 0xAB, sizeof info);
    cfStatus st = cf_scene_parse(c->json, "bad.json", &w, &info, &err);
    why[0] = '\0';
    if (st != c->status)
        snprintf(why, sizeof why, "status %s, expected %s", cf_status_name(st), cf_status_name(c->status));
    else if (strncmp(err.msg, "bad.json", 8) != 0)
        snprintf(why, sizeof why, "the message does not start with the source name");
    else if (!strstr(err.msg, c->expect))
        snprintf(why, sizeof why, "the message lacks '%s'", c->expect);
    else if (!strstr(err.msg, c->reason))
        snprintf(why, sizeof why, "the message lacks '%s'", c->reason);
    else if (strchr(err.msg, '\n'))
        snprintf(why, sizeof why, "the message is not one line");
    else if (!all_zero(&w, sizeof w) || !all_zero(&info, sizeof info))
        snprintf(why, sizeof why, "world or info not zeroed after the error");
    if (!why[0]) return NULL;
    size_t n = strlen(why);
    snprintf(why + n, sizeof why - n, " [message: %s]", err.msg);
    return why;
}

START_TEST(scene_bad_input_is_refused)
{
    /* every case is checked, and every failing one is reported */
    int failed = 0;
    for (int i = 0; i < N_BAD; ++i) {
        const char *why = check_bad_case(&BAD[i]);
        if (why) {
            fprintf(stderr, "bad input '%s': %s\n", BAD[i].what, why);
            ++failed;
        }
    }
    ck_assert_msg(failed == 0, "%d of %d bad-input cases misbehave (listed on stderr)", failed, N_BAD);
}
END_TEST

START_TEST(scene_null_arguments)
{
    cfWorld w;
    cfError err = {{0}};
    cft_assert_status(cf_scene_parse(NULL, "x", &w, NULL, &err), CF_BAD_INPUT);
    ck_assert(all_zero(&w, sizeof w));
    cft_assert_status(cf_scene_parse("{}", "x", NULL, NULL, &err), CF_BAD_INPUT);
    cft_assert_status(cf_scene_load(NULL, &w, NULL, NULL), CF_IO_ERROR);
    /* a NULL cfError is allowed */
    cft_assert_status(cf_scene_parse("{", NULL, &w, NULL, NULL), CF_BAD_INPUT);
}
END_TEST

START_TEST(scene_missing_file_names_the_path)
{
    const char *path = "build/no-such-dir/missing_scene.json";
    cfWorld w;
    cfSceneInfo info;
    cfError err = {{0}};
    memset(&w, 0xAB, sizeof w);
    cft_assert_status(cf_scene_load(path, &w, &info, &err), CF_IO_ERROR);
    ck_assert_msg(strncmp(err.msg, path, strlen(path)) == 0, "message: %s", err.msg);
    ck_assert_msg(strstr(err.msg, "cannot open"), "message: %s", err.msg);
    ck_assert(all_zero(&w, sizeof w));
    ck_assert(all_zero(&info, sizeof info));

    /* a directory, a device that never ends and a FIFO without a writer: refused at once, not read
       (cflab run /dev/zero read 64 MB; a FIFO would block) */
    cft_assert_status(cf_scene_load(".", &w, &info, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, ".: a directory, not a regular file") == err.msg, "message: %s", err.msg);
    cft_assert_status(cf_scene_load("/dev/zero", &w, &info, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "/dev/zero: a device, not a regular file") == err.msg, "message: %s", err.msg);
    char fifo[64];
    snprintf(fifo, sizeof fifo, "/tmp/cf_scene_fifo_%d", (int)getpid());
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    cft_assert_status(cf_scene_load(fifo, &w, &info, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "a FIFO (pipe), not a regular file"), "message: %s", err.msg);
    unlink(fifo);
    ck_assert(all_zero(&w, sizeof w));
}
END_TEST

/* write @p text to a fresh temporary file; its name goes to @p path (capacity 64) */
static void temp_file(char *path, const char *text)
{
    snprintf(path, 64, "/tmp/cf_scene_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(scene_load_reports_file_line_col)
{
    char path[64], want[128];
    temp_file(path, "{\n  \"bodies\": [\n    {\"mass\": 1,, }\n  ]\n}\n");
    cfWorld w;
    cfError err = {{0}};
    cfStatus st = cf_scene_load(path, &w, NULL, &err);
    remove(path);
    cft_assert_status(st, CF_BAD_INPUT);
    snprintf(want, sizeof want, "%s:3:17: invalid JSON near ' }'", path);
    ck_assert_str_eq(err.msg, want);

    /* a valid file goes through the same path as cf_scene_parse */
    temp_file(path, "{\"bodies\": [" BALL "]}");
    st = cf_scene_load(path, &w, NULL, &err);
    remove(path);
    cft_assert_ok(st);
    ck_assert_int_eq(w.n_bodies, 1);
    cf_world_free(&w);

    /* a NUL byte is not JSON */
    snprintf(path, sizeof path, "/tmp/cf_scene_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "{\n\0}", 4), 4);
    close(fd);
    st = cf_scene_load(path, &w, NULL, &err);
    remove(path);
    cft_assert_status(st, CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, ":2: not a text file (NUL byte)"), "message: %s", err.msg);
}
END_TEST

/* ---- round trip ---------------------------------------------------------------------------- */

static const char ROUND_TRIP[] =
    "{\n"
    "  \"name\": \"round trip\", \"chapter\": 3, \"description\": \"d\", \"expect\": \"e\",\n"
    "  \"world\": {\"gravity\": [0.5, -1, -3], \"dt\": 0.004, \"steps\": 77, \"rigid_integrator\": \"explicit\",\n"
    "            \"gyroscopic\": false, \"soft_integrator\": \"bdf2\", \"solver_iterations\": 7,\n"
    "            \"solver_tolerance\": 1e-6},\n"
    "  \"bodies\": [\n"
    "    {\"name\": \"ground\", \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 2], \"offset\": -1}, \"fixed\": true,\n"
    "     \"mu\": 0.8},\n"
    "    {\"name\": \"box\", \"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.25, 0.125]}, \"mass\": 2,\n"
    "     \"position\": [1, 2, 3], \"orientation\": [2, 0, 0, 2], \"velocity\": [-1, 0.5, 0.25],\n"
    "     \"angular_velocity\": [0.1, 0.2, 0.3], \"inertia\": [1, 2, 3], \"mu\": 0.3, \"restitution\": 0.6,\n"
    "     \"force\": [0, 0, 1], \"torque\": [0, 1, 0]},\n"
    "    {\"shape\": {\"type\": \"capsule\", \"radius\": 0.1, \"half_height\": 0.4}, \"mass\": 0.5}\n"
    "  ],\n"
    "  \"soft_bodies\": [\n"
    "    {\"name\": \"rope\", \"type\": \"chain\", \"from\": [0, 0, 2], \"to\": [3, 0, 2], \"nodes\": 4,\n"
    "     \"stiffness\": 100, \"node_mass\": 0.25, \"fix_first\": true, \"damping\": [0.1, 0.01], \"mu\": 0.2},\n"
    "    {\"type\": \"tet_box\", \"origin\": [0, 0, 1], \"size\": [2, 1, 1], \"cells\": [2, 1, 1],\n"
    "     \"density\": 100, \"young\": 1e5, \"poisson\": 0.25, \"fix_min_x\": true, \"velocity\": [0, 0, -1]}\n"
    "  ]\n"
    "}\n";

START_TEST(scene_round_trip)
{
    cfWorld w;
    cfSceneInfo info;
    cfError err = {{0}};
    cfStatus st = cf_scene_parse(ROUND_TRIP, "round.json", &w, &info, &err);
    ck_assert_msg(st == CF_OK, "%s", err.msg);

    ck_assert_str_eq(info.name, "round trip");
    ck_assert_str_eq(info.description, "d");
    ck_assert_str_eq(info.expect, "e");
    ck_assert_int_eq(info.chapter, 3);
    ck_assert_int_eq(info.steps, 77);

    cft_assert_vec3_near(w.def.gravity, cfu_vec3(0.5, -1, -3), 0);
    ck_assert(w.def.dt == 0.004);
    ck_assert_int_eq(w.def.rigid_integrator, CF_RIGID_EXPLICIT);
    ck_assert(!w.def.gyroscopic);
    ck_assert_int_eq(w.def.soft_integrator, CF_SOFT_BDF2);
    ck_assert_int_eq(w.def.solver_iterations, 7);
    ck_assert(w.def.solver_tolerance == 1e-6);
    ck_assert(w.time == 0.0 && w.step == 0);

    ck_assert_int_eq(w.n_bodies, 3);
    const cfRigidBody *g = &w.bodies[0], *b = &w.bodies[1], *c = &w.bodies[2];
    ck_assert_str_eq(g->name, "ground");
    ck_assert(g->fixed && g->inv_mass == 0.0);
    ck_assert_int_eq(g->shape.type, CF_SHAPE_PLANE);
    cft_assert_vec3_near(g->shape.normal, cfu_vec3(0, 0, 1), 1e-15); /* normalized */
    ck_assert(g->shape.offset == -1.0);
    ck_assert(g->mu == 0.8);

    ck_assert_str_eq(b->name, "box");
    ck_assert(!b->fixed);
    ck_assert_int_eq(b->shape.type, CF_SHAPE_BOX);
    cft_assert_vec3_near(b->shape.half_extents, cfu_vec3(0.5, 0.25, 0.125), 0);
    ck_assert(b->mass == 2.0 && b->inv_mass == 0.5);
    cft_assert_vec3_near(b->x, cfu_vec3(1, 2, 3), 0);
    double h = sqrt(0.5);
    cft_assert_near(b->q.w, h, 1e-15, 0);
    cft_assert_near(b->q.x, 0.0, 0, 0);
    cft_assert_near(b->q.y, 0.0, 0, 0);
    cft_assert_near(b->q.z, h, 1e-15, 0);
    cft_assert_near(cfu_quat_norm(b->q), 1.0, 1e-15, 0);
    cft_assert_vec3_near(b->v, cfu_vec3(-1, 0.5, 0.25), 0);
    cft_assert_vec3_near(b->w, cfu_vec3(0.1, 0.2, 0.3), 0);
    cft_assert_vec3_near(b->force, cfu_vec3(0, 0, 1), 0);
    cft_assert_vec3_near(b->torque, cfu_vec3(0, 1, 0), 0);
    ck_assert(b->mu == 0.3 && b->restitution == 0.6);
    /* the given inertia replaces the box's, and the world inverse inertia is R I^-1 R^T for
       the loaded orientation (a quarter turn about z swaps the x and y moments) */
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            cft_assert_near_at(b->inertia_body.m[i][j], i == j ? (double)(i + 1) : 0.0, 1e-15, 0,
                               "i = %d, j = %d", i, j);
    cft_assert_near(b->inv_inertia_world.m[0][0], 1.0 / 2.0, 1e-14, 0);
    cft_assert_near(b->inv_inertia_world.m[1][1], 1.0 / 1.0, 1e-14, 0);
    cft_assert_near(b->inv_inertia_world.m[2][2], 1.0 / 3.0, 1e-14, 0);
    ck_assert(cf_rigid_state_ok(b));

    /* defaults: generated name, identity orientation, the shape's own inertia */
    ck_assert_str_eq(c->name, "body2");
    ck_assert_int_eq(c->shape.type, CF_SHAPE_CAPSULE);
    ck_assert(c->shape.radius == 0.1 && c->shape.half_height == 0.4);
    cft_assert_near(c->q.w, 1.0, 0, 0);
    cfVec3 I = cf_shape_inertia(&c->shape, 0.5);
    cft_assert_near(c->inertia_body.m[0][0], I.x, 1e-15, 1e-15);
    cft_assert_near(c->inertia_body.m[2][2], I.z, 1e-15, 1e-15);

    ck_assert_int_eq(w.n_soft, 2);
    const cfSoftBody *r = &w.soft[0], *box = &w.soft[1];
    ck_assert_str_eq(r->name, "rope");
    ck_assert_int_eq(r->n_nodes, 4);
    ck_assert_int_eq(r->n_springs, 3);
    ck_assert(r->fixed[0] && !r->fixed[1]);
    cft_assert_vec3_near(r->x[0], cfu_vec3(0, 0, 2), 1e-15);
    cft_assert_vec3_near(r->x[3], cfu_vec3(3, 0, 2), 1e-15);
    cft_assert_near(r->springs[0].k, 100.0, 0, 0);
    cft_assert_near(r->springs[0].rest, 1.0, 1e-15, 0);
    cft_assert_near(r->mass[2], 0.25, 0, 0);
    ck_assert(r->damping_alpha == 0.1 && r->damping_beta == 0.01 && r->mu == 0.2);

    ck_assert_str_eq(box->name, "soft1");
    ck_assert_int_eq(box->n_nodes, 3 * 2 * 2);
    ck_assert_int_eq(box->n_tets, 2 * 5);
    ck_assert(box->young == 1e5 && box->poisson == 0.25);
    double m = 0.0;
    for (int i = 0; i < box->n_nodes; ++i) {
        m += box->mass[i];
        bool at_min_x = box->x[i].x == 0.0;
        cft_assert_at(box->fixed[i] == at_min_x, "i = %d", i);
        cft_assert_vec3_near_at(box->v[i], at_min_x ? cfu_zero3() : cfu_vec3(0, 0, -1), 0, "i = %d", i);
    }
    cft_assert_near(m, 100.0 * 2.0, 1e-12, 1e-12); /* density x volume */
    cf_world_free(&w);
}
END_TEST

START_TEST(scene_defaults)
{
    cfWorld w;
    cfSceneInfo info;
    cfError err = {{0}};
    cfStatus st = cf_scene_parse("{\"bodies\": [" BALL "]}", "min.json", &w, &info, &err);
    ck_assert_msg(st == CF_OK, "%s", err.msg);
    cfWorldDef d = cf_world_def_default();
    ck_assert(memcmp(&w.def, &d, sizeof d) == 0);
    ck_assert_int_eq(info.steps, 600);
    ck_assert_int_eq(info.chapter, 0);
    ck_assert_str_eq(info.name, "");
    ck_assert_str_eq(w.bodies[0].name, "body0");
    cf_world_free(&w);

    /* info may be NULL */
    st = cf_scene_parse("{\"bodies\": [" BALL "]}", "min.json", &w, NULL, &err);
    ck_assert_msg(st == CF_OK, "%s", err.msg);
    cf_world_free(&w);
}
END_TEST


/* a cloth hammock: "pin_corners" fixes the four corner nodes and no other (by position, whatever
   the node order); a sheet without it has none fixed */
START_TEST(scene_cloth_pin_corners)
{
    for (int pin = 0; pin < 2; ++pin) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"name\": \"n\", \"chapter\": 11, \"description\": \"d\", \"expect\": \"e\", \"world\": {},\n"
                 " \"soft_bodies\": [{\"type\": \"cloth\", \"origin\": [1, 2, 3], \"du\": [2, 0, 0], \"dv\": [0, 1, 0],\n"
                 "   \"cells\": [4, 3], \"mass\": 0.2, \"stretch\": 100%s}]}",
                 pin ? ", \"pin_corners\": true" : "");
        cfWorld w;
        cfSceneInfo info;
        cfError err = {{0}};
        cfStatus st = cf_scene_parse(json, "pin.json", &w, &info, &err);
        ck_assert_msg(st == CF_OK, "%s", err.msg);
        const cfSoftBody *c = &w.soft[0];
        int fixed = 0;
        for (int i = 0; i < c->n_nodes; ++i) {
            if (!c->fixed[i]) continue;
            fixed++;
            cft_assert_at((c->x[i].x == 1 || c->x[i].x == 3) && (c->x[i].y == 2 || c->x[i].y == 3),
                          "pin %d: node %d fixed at (%g, %g)", pin, i, c->x[i].x, c->x[i].y);
        }
        cft_assert_int_at(fixed, ==, pin ? 4 : 0, "pin %d", pin);
        cf_world_free(&w);
    }
}
END_TEST

static void build(Suite *s)
{
    TCase *tf = cft_tcase_scene(s, "scene-files");
    CFT_TEST(tf, scene_every_file_loads, "every scene in scenes/ loads");
    CFT_TEST(tf, scene_demo_scene_exists, "the make demo scene exists");
    CFT_TEST(tf, scene_load_with_another_solver, "cf_scene_load_solved: the caller's solver replaces the scene's");
    TCase *tb = cft_tcase_unit(s, "scene-bad");
    CFT_TEST(tb, scene_bad_input_is_refused, "bad input is refused with one line");
    CFT_TEST(tb, scene_null_arguments, "NULL arguments");
    CFT_TEST(tb, scene_missing_file_names_the_path, "a missing file is named");
    CFT_TEST(tb, scene_load_reports_file_line_col, "file:line:col for syntax errors");
    TCase *tr = cft_tcase_unit(s, "scene-values");
    CFT_TEST(tr, scene_round_trip, "values survive the round trip");
    CFT_TEST(tr, scene_defaults, "defaults of a minimal scene");
    CFT_TEST(tr, scene_cloth_pin_corners, "a cloth's pin_corners fixes its four corners");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "lib-scene", build); }
