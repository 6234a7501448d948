/* SPDX-License-Identifier: MIT */
/* Texture friction in the world (chapter 10.6, notes 6.3, their Fig. 40): the friction pair law
   "texture" plows with the bodies' height fields (bodies[i].texture), the contacts stage makes each
   contact's directional box, and the directional row pgs-texture solves it. The scene
   scenes/ch10_texture_pull.json drags a block across a sawtooth at constant speed (a stiff spring
   drive, bodies[i].pull); the drive's force is the friction the texture makes. Run with the
   reference solutions (`make test-sim IMPL=solutions`).

   The numbers the tests expect come from the law, not from a run. The texture is a sawtooth along
   x of wavelength L = 0.1 m in ten cells of c = 1 cm: heights h_i = 0.25 mm i (i + 1), periodic,
   so cell k = 1..9 of a tooth climbs with slope k/20 (the tooth steepens towards its crest) and the
   tenth falls down a cliff of slope 9 (9 + 1) / 40 = 2.25. ch10.6's facet normal of a climbing cell
   is tilted by atan(k/20) towards -x, the cliff's by atan(2.25) towards +x. The block (B) slides
   along +x over the plane (A): A's facets are pushed along -x, and only those facing -x plow
   (Eq. 335's max), each with (2/pi) theta (the reading the reference keeps, ch10.6). So a patch
   sample on cell k gives mu_k = (2/pi) atan(k/20), on the cliff 0: the pull climbs from
   m g mu_1 = 0.312 N to m g mu_9 = 2.641 N along a tooth and falls to 0 over the cliff, a sawtooth.
   Every sample of every patch crosses each cell over the same distance, so the coefficient's
   average over the distance slid is the texture's:
       mean mu(+x) = (1/10) sum_{k=1..9} (2/pi) atan(k/20) = 0.138298,
   and pulled along -x only the cliffs plow:
       mean mu(-x) = (1/10) (2/pi) atan(9/4)                = 0.073375.
   The block's weight m g = 9.81 N rests on its contacts (its vertical momentum does not change),
   every contact sees the same phase (the block is 2 L long, its corners 2 L apart), and over
   whole periods the kinetic and spring energies come back, so the work of the drive per metre slid
   equals the friction's, m g times the average: 1.3567 N and 0.7198 N. That measure needs no
   constant speed (the drive lags where the force changes: its time average is a few per cent
   off). The pull repeats every L / v = 0.1 / 0.1 = 1 s. With the texture ignored the bodies' own
   mu = 0.5 acts: 4.905 N. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cf/cf_math.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"
#include "scene_support.h"

#define MG 9.81
#define WAVE 0.1  /* m */
#define SPEED 0.1 /* m/s */

/* the plowing coefficient of climbing cell k = 1..9 and of the cliff (header) */
static double mu_cell(int k) { return 2.0 / CF_PI * atan(k / 20.0); }
static double mu_cliff(void) { return 2.0 / CF_PI * atan(2.25); }
static double mu_plus(void)
{
    double s = 0.0;
    for (int k = 1; k <= 9; ++k) s += mu_cell(k);
    return s / 10.0;
}

static void load(cfWorld *w)
{
    cfError err = {{0}};
    cfStatus st = cf_scene_load(cft_scene_path("ch10_texture_pull.json"), w, NULL, &err);
    ck_assert_msg(st == CF_OK, "%s", err.msg);
}

/* What a run of the drive measured after t0 until t1, along sign x: the work per metre slid, the
   time mean, the largest force and the times where it fell below the +x mean (one per cliff) */
typedef struct Pull {
    double per_m, mean, fmax;
    int n_drops;
    double drop[64];
} Pull;

static Pull run(cfWorld *w, double t0, double t1, double sign)
{
    Pull p = {0};
    double level = MG * mu_plus(), sum = 0.0, prev = 0.0, work = 0.0, dist = 0.0;
    long n = 0;
    int steps = (int)lround(t1 / w->def.dt);
    for (int k = 0; k < steps; ++k) {
        double x0 = sign * w->bodies[1].x.x;
        cfStatus st = cf_world_step(w);
        ck_assert_msg(st == CF_OK, "step %d: %s", k + 1, w->error.msg);
        double t = w->time, f = sign * w->pulls[0].force.x; /* the force of the step just taken */
        if (getenv("CF_TEXTURE_TRACE")) printf("%.4f %.5f %.6f %.6f\n", t, f, w->bodies[1].x.x, w->bodies[1].v.x);
        if (t <= t0 + 1e-9) {
            prev = f;
            continue;
        }
        double dx = sign * w->bodies[1].x.x - x0;
        work += f * dx, dist += dx;
        sum += f, ++n;
        p.fmax = fmax(p.fmax, f);
        if (prev >= level && f < level && p.n_drops < 64) p.drop[p.n_drops++] = t;
        prev = f;
    }
    p.per_m = dist > 0.0 ? work / dist : NAN;
    p.mean = n ? sum / n : NAN;
    return p;
}

/* Pulled along +x: the drive's work per metre is m g (1/10) sum_k (2/pi) atan(k/20) (header),
   within 2 % (3 periods from t = 1 s, after the start); its time mean within 5 %; the crest's
   force m g (2/pi) atan(0.45) within 5 % (the drive's inertia where the force turns). */
START_TEST(pull_mean_plus_x)
{
    cfWorld w;
    load(&w);
    Pull p = run(&w, 1.0, 4.0, 1.0);
    cft_assert_near(p.per_m, MG * mu_plus(), 0, 0.02);
    cft_assert_near(p.mean, MG * mu_plus(), 0, 0.05);
    cft_assert_near(p.fmax, MG * mu_cell(9), 0, 0.05);
    cf_world_free(&w);
}
END_TEST

/* The force falls over every cliff: once per L / v = 1 s (within a step or two of the drive). */
START_TEST(pull_period)
{
    cfWorld w;
    load(&w);
    Pull p = run(&w, 0.5, 4.5, 1.0);
    ck_assert_msg(p.n_drops >= 3, "%d drops of the pull in 4 s", p.n_drops);
    for (int i = 1; i < p.n_drops; ++i)
        cft_assert_near_at(p.drop[i] - p.drop[i - 1], WAVE / SPEED, 2.5 * w.def.dt, 0, "drops %d and %d", i - 1, i);
    cf_world_free(&w);
}
END_TEST

/* Pulled along -x only the cliffs plow: m g (1/10)(2/pi) atan(9/4) per metre, about half the +x
   pull: the directional box is asymmetric (mu(d) != mu(-d), notes 6.3). */
START_TEST(pull_minus_x)
{
    cfWorld w;
    load(&w);
    w.pulls[0].velocity = cfu_vec3(-SPEED, 0, 0);
    Pull p = run(&w, 1.0, 4.0, -1.0);
    cft_assert_near(p.per_m, MG * 0.1 * mu_cliff(), 0, 0.02);
    ck_assert_msg(p.per_m < 0.7 * MG * mu_plus(), "-x pull %g is not clearly below the +x pull %g", p.per_m,
                  MG * mu_plus());
    cf_world_free(&w);
}
END_TEST

/* Along y, along the ridges, no facet faces the motion (the notes' Fig. 40, left): the block slides
   with no friction; and with the texture ignored (no pair: the bodies' mu 0.5) the pull is
   0.5 m g, far from the texture's. */
START_TEST(pull_along_ridges_and_untextured)
{
    cfWorld w;
    load(&w);
    w.pulls[0].velocity = cfu_vec3(0, SPEED, 0);
    double ymean = 0.0;
    long n = 0;
    for (int k = 0; k < 400; ++k) {
        ck_assert_msg(cf_world_step(&w) == CF_OK, "%s", w.error.msg);
        if (w.time > 1.0) ymean += w.pulls[0].force.y, ++n;
    }
    ymean /= (double)n;
    ck_assert_msg(fabs(ymean) < 0.02 * MG * mu_plus(), "pull along the ridges %g N, want about 0", ymean);
    cf_world_free(&w);

    load(&w);
    w.n_pairs = 0; /* the texture ignored */
    Pull p = run(&w, 1.0, 3.0, 1.0);
    cft_assert_near(p.per_m, 0.5 * MG, 0, 0.02);
    cf_world_free(&w);
}
END_TEST

/* Every directional row (pgs-texture on the FC3D form, the boxed LCP's splitting rows with the
   box's own lower side) gives the law's pull per metre both ways; the -x run fails for a row that
   keeps the symmetric box (it would plow with the +x coefficient's side) */
START_TEST(pull_every_directional_row)
{
    int rows = 0;
    for (int i = 0; i < cf_solver_count(); ++i) {
        const cfSolver *s = cf_solver_at(i);
        if (!cf_solver_matches(s, CF_SOLVERS_DIRECTIONAL)) continue;
        for (int dir = -1; dir <= 1; dir += 2) {
            cfWorld w;
            load(&w);
            w.def.solver = s;
            w.pulls[0].velocity = w.bodies[1].v = cfu_vec3(dir * SPEED, 0, 0);
            Pull p = run(&w, 1.0, 3.0, dir);
            double want = dir > 0 ? MG * mu_plus() : MG * 0.1 * mu_cliff();
            cft_assert_near_at(p.per_m, want, 0, 0.02, "%s, pulled along %+d x", s->name, dir);
            cf_world_free(&w);
        }
        ++rows;
    }
    ck_assert_int_ge(rows, 5);
}
END_TEST

/* Only the directional rows take a texture contact: another solver is refused, naming them */
START_TEST(texture_needs_directional_row)
{
    const char *const others[] = {"pgs-blocked-aniso", "newton-mid", "lemke", "pgs"};
    for (int i = 0; i < 4; ++i) {
        cfWorld w;
        load(&w);
        w.def.solver = cf_solver_find(others[i]);
        cft_assert_status_at(cf_world_step(&w), CF_BAD_INPUT, "%s", others[i]);
        ck_assert_msg(strstr(w.error.msg, "texture law") && strstr(w.error.msg, "pgs-texture"), "%s: %s", others[i],
                      w.error.msg);
        cf_world_free(&w);
    }
}
END_TEST

/* What programs print as the law (cflab run --summary, cflab compare, the HUD) is the one the row
   solves: a directional row on the texture pair solves its directional boxes, not the cone the
   world's friction_model names; a row that refuses them says so; the step's common residual is
   the box's natural map, and says so (cfStepStats::common_directional) */
START_TEST(texture_law_named)
{
    cfWorld w;
    load(&w);
    ck_assert_int_eq(w.def.friction_model, CF_FRICTION_CONE);
    ck_assert_str_eq(cf_world_friction_law(&w, w.def.solver), "texture (directional boxes)");
    ck_assert_str_eq(cf_world_friction_law(&w, cf_solver_find("nncg")), "texture (directional boxes)");
    ck_assert_str_eq(cf_world_friction_law(&w, cf_solver_find("lemke")), "polyhedral cone (texture refused)");
    ck_assert_str_eq(cf_world_friction_law(&w, cf_solver_find("pgs")), "cone (texture refused)");
    cft_assert_ok(cf_world_step(&w));
    ck_assert(w.stats.common_directional);
    cf_world_free(&w);
    /* without texture: the cone, or the box of a boxed row whatever friction_model says */
    cfError err = {{0}};
    cft_assert_ok_at(cf_scene_load(cft_scene_path("ch05_stack_10.json"), &w, NULL, &err), "%s", err.msg);
    ck_assert_str_eq(cf_world_friction_law(&w, cf_solver_find("pgs")), "cone");
    ck_assert_str_eq(cf_world_friction_law(&w, cf_solver_find("pgs-boxed")), "box");
    ck_assert_str_eq(cf_world_friction_law(&w, cf_solver_find("pgs-texture")), "box");
    ck_assert_str_eq(cf_world_friction_law(&w, cf_solver_find("lemke")), "polyhedral cone");
    cft_assert_ok(cf_world_step(&w));
    ck_assert(!w.stats.common_directional);
    cf_world_free(&w);
    /* the grooved plane's ellipse */
    cft_assert_ok_at(cf_scene_load(cft_scene_path("ch10_grooved_box.json"), &w, NULL, &err), "%s", err.msg);
    ck_assert_str_eq(cf_world_friction_law(&w, cf_solver_find("pgs-blocked-aniso")), "elliptic cone");
    ck_assert_str_eq(cf_world_friction_law(&w, cf_solver_find("newton-ac")), "elliptic cone (isotropic equivalent)");
    ck_assert_str_eq(cf_world_friction_law(&w, cf_solver_find("pgs-boxed")), "box (the ellipses' pyramids)");
    ck_assert_str_eq(cf_world_friction_law(&w, cf_solver_find("pgs")), "cone (ellipses refused)");
    cf_world_free(&w);
}
END_TEST

/* --dump-problem on a texture step: the Siconos FC3D file would hold the boxes' symmetric bound as an
   ellipse, another law; refused, naming the file and the directional boxes (not "elliptic cones") */
START_TEST(texture_problem_not_written)
{
    cfWorld w;
    load(&w);
    cft_assert_ok(cf_world_step(&w));
    char path[64];
    snprintf(path, sizeof path, "/tmp/cf_texture_problem_%d.dat", (int)getpid());
    remove(path);
    cfError err = {{0}};
    cft_assert_status(cf_world_write_problem(&w, path, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "4 of the last step's 4 contacts have texture friction") &&
                      strstr(err.msg, "directional boxes") && !strstr(err.msg, "elliptic"),
                  "%s", err.msg);
    FILE *f = fopen(path, "r");
    ck_assert_msg(!f, "%s was written", path);
    cf_world_free(&w);
}
END_TEST

#define PLANE "{\"name\": \"ground\", \"fixed\": true, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1]}"
#define BLOCK "{\"name\": \"block\", \"mass\": 1, \"position\": [0, 0, 0.02], \"shape\": {\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.02]}"
#define PAIR ", \"friction\": [{\"bodies\": [\"ground\", \"block\"], \"law\": \"texture\"}]"

/* Bad scenes: a texture law on bodies without a height field, a height field of the wrong size,
   a bad drive; each names the key path */
START_TEST(texture_scene_errors)
{
    sim_refused("{\"bodies\": [" PLANE "}, " BLOCK "}]" PAIR "}",
                "t.json: friction[0].law: texture friction plows with height fields, and neither 'ground' nor 'block'");
    sim_refused("{\"bodies\": [" PLANE ", \"texture\": {\"size\": [2, 2], \"cell\": 0.01, \"heights\": [0, 1, 2]}}, " BLOCK "}]" PAIR "}",
                "t.json: bodies[0].texture.heights: must be an array of nx ny = 2 x 2 = 4 numbers (got 3)");
    sim_refused("{\"bodies\": [" PLANE ", \"texture\": {\"size\": [1, 2], \"cell\": 0.01, \"heights\": [0, 1]}}, " BLOCK "}]" PAIR "}",
                "t.json: bodies[0].texture.size[0]: must be an integer in 2..");
    sim_refused("{\"bodies\": [" PLANE ", \"texture\": {\"size\": [2, 2], \"cell\": 0, \"heights\": [0, 1, 2, 3]}}, " BLOCK "}]" PAIR "}",
                "t.json: bodies[0].texture.cell: must be > 0 m");
    sim_refused("{\"bodies\": [" PLANE ", \"texture\": {\"size\": [2, 2], \"cell\": 0.01, \"heights\": [0, 1, 2, 3], "
                "\"u\": [1, 1, 0]}}, " BLOCK "}]" PAIR "}",
                "t.json: bodies[0].texture: u, v: the texture axes must be unit and orthogonal");
    sim_refused("{\"bodies\": [" PLANE ", \"texture\": {\"size\": [2, 2], \"cell\": 0.01, \"heights\": [0, 1, 2, 3]}}, " BLOCK "}], "
                "\"friction\": [{\"bodies\": [\"ground\", \"block\"], \"law\": \"texture\", \"samples\": 0}]}",
                "t.json: friction[0].samples: must be in 1..64 (got 0)");
    sim_refused("{\"bodies\": [" PLANE "}, " BLOCK "}], \"friction\": [{\"bodies\": [\"ground\", \"block\"], \"mu\": 1, "
                "\"patch\": 0.01}]}",
                "t.json: friction[0]: \"patch\" and \"samples\" belong to the texture law only");
    sim_refused("{\"bodies\": [" PLANE "}, " BLOCK ", \"pull\": {\"velocity\": [1, 0, 0], \"stiffness\": -1}}]}",
                "t.json: bodies[1].pull.stiffness: must be > 0 N/m (got -1)");
    sim_refused("{\"bodies\": [" PLANE ", \"pull\": {\"velocity\": [1, 0, 0], \"stiffness\": 1}}, " BLOCK "}]}",
                "t.json: bodies[0].pull: not allowed on a fixed body");
}
END_TEST

/* A world copy keeps its own textures and drives (deep copy: the heights are not shared) */
START_TEST(texture_world_copy)
{
    cfWorld w, c;
    load(&w);
    cft_assert_ok(cf_world_copy(&c, &w));
    ck_assert_int_eq(c.n_textures, 1);
    ck_assert_int_eq(c.n_pulls, 1);
    ck_assert_ptr_ne(c.textures[0].h, w.textures[0].h);
    ck_assert(memcmp(c.textures[0].h, w.textures[0].h, 20 * sizeof(double)) == 0);
    for (int k = 0; k < 20; ++k) {
        cft_assert_ok(cf_world_step(&w));
        cft_assert_ok(cf_world_step(&c));
    }
    ck_assert(memcmp(&c.bodies[1].x, &w.bodies[1].x, sizeof(cfVec3)) == 0);
    /* the drive's force is its body's for one step only: the body's own force is unchanged */
    ck_assert(c.bodies[1].force.x == 0.0 && c.bodies[1].force.y == 0.0);
    cf_world_free(&c);
    cf_world_free(&w);
}
END_TEST

static void build(Suite *s)
{
    TCase *p = cft_tcase_scene(s, "pull");
    CFT_TEST(p, pull_mean_plus_x, "+x: the pull per metre is m g (1/10) sum_k (2/pi) atan(k/20), the texture's plowing average");
    CFT_TEST(p, pull_period, "the sawtooth falls once per wavelength: period L / v = 1 s");
    CFT_TEST(p, pull_minus_x, "-x: m g (1/10)(2/pi) atan(9/4), about half: the law is asymmetric");
    CFT_TEST(p, pull_along_ridges_and_untextured, "along the ridges no friction; without the texture 0.5 m g");
    CFT_TEST(p, pull_every_directional_row, "every directional row (FC3D and boxed LCP) gives the law's pull both ways");
    CFT_TEST(p, texture_needs_directional_row, "a texture contact is refused to a row without the directional box");
    CFT_TEST(p, texture_law_named, "the law printed is the one the row solves: texture's directional boxes, the box, refusals");
    CFT_TEST(p, texture_problem_not_written, "--dump-problem refuses a texture step's problem: FC3D has no directional box");
    CFT_TEST(p, texture_world_copy, "a world copy has its own heights and drive, and steps the same");
    TCase *in = cft_tcase_unit(s, "input");
    CFT_TEST(in, texture_scene_errors, "texture without height field, bad field size, bad drive: the key path named");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "sim-texture", build); }
