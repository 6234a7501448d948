/* SPDX-License-Identifier: MIT */
/* Chapter 5 simulator benchmark: pyramid 10, pyramid 20 and the 1000-box grid at 20 iterations;
   ms per step by stage, contacts, drift after 10 s; the same scenes in ODE QuickStep and Bullet 3
   (at 10 and 20 iterations) when built with CF_HAVE_ODE / CF_HAVE_BULLET (mk/ch05.mk does so when
   pkg-config finds Debian's libode-dev / libbullet-dev), and issue 33's targets per scene, each a
   line "# target N (...): met / not met (measured ..., distance ...)". --scaling adds the scaling
   table: time per step and drift on pyramids of 10, 20, 50, 100 layers and grids of n^3 boxes
   (n = 10, and 20, 30 with --large), one round per engine, and a least-squares line of time
   against contacts per engine.

     bench_sim [--scaling] [--large] [scene.json ...]
   BENCH_REPEATS: rounds of the main table (3); BENCH_CLOCK=cpu: each engine's step timed by the CPU
   time of its thread instead of the wall clock (a loaded machine; the two-thread row then means
   nothing); BENCH_ENGINES: the engines to run, by name
   (cflab,cflab-fast,cflab-fast2,cflab-fast10,cflab-soft,cflab-soft40,cflab-world,cflab-color,cflab-color2,cflab-scene,ode,
   bullet,bullet20;
   all when unset; cflab-scene: in --scaling, a wall whose scene sets the soft step at another
   iteration count, run as it says; cflab-fast10 and bullet20 run in the main table only) */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include "progress.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

#ifdef CF_HAVE_ODE
#include <ode/ode.h>
#endif
#include "peer.h"

#define BULLET_ITERS 10 /* Bullet's default; the row bullet20 runs 20 */

#define ITERS 20
#define STEPS 600

typedef struct Row {
    double ms_step, ms_stage[CF_STAGE_COUNT];
    double contacts, drift;
} Row;

static double max_drift(const cfWorld *w, const cfVec3 *x0)
{
    double d = 0.0;
    for (int i = 0; i < w->n_bodies; ++i)
        if (!w->bodies[i].fixed) d = fmax(d, cfu_norm(cfu_sub(w->bodies[i].x, x0[i])));
    return d;
}

static int run_cflab(const char *path, const char *solver, int iters, double manifold_tol, int split_iters, bool claims,
                     Row *r)
{
    cfWorld w;
    cfError err;
    if (cf_scene_load(path, &w, NULL, &err) != CF_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    w.def.solver = cf_solver_find(solver);
    if (!w.def.solver) {
        fprintf(stderr, "solver %s is not in this build\n", solver);
        cf_world_free(&w);
        return 1;
    }
    w.def.solver_iterations = iters;
    w.def.manifold_tolerance = manifold_tol;
    w.def.split_iterations = split_iters;
    w.def.certify = claims ? CF_CERTIFY_CLAIMS : CF_CERTIFY_ALWAYS;
    cfVec3 *x0 = malloc((size_t)w.n_bodies * sizeof *x0);
    for (int i = 0; i < w.n_bodies; ++i) x0[i] = w.bodies[i].x;
    memset(r, 0, sizeof *r);
    for (int s = 0; s < STEPS; ++s) {
        double t0 = bench_clock();
        if (cf_world_step(&w) != CF_OK) {
            fprintf(stderr, "%s: step %d failed: %s\n", path, s, w.error.msg);
            free(x0);
            cf_world_free(&w);
            return 1;
        }
        r->ms_step += 1e3 * (bench_clock() - t0);
        for (int k = 0; k < CF_STAGE_COUNT; ++k) r->ms_stage[k] += 1e3 * w.stats.stage_seconds[k];
        r->contacts += w.stats.n_contacts;
    }
    r->ms_step /= STEPS;
    for (int k = 0; k < CF_STAGE_COUNT; ++k) r->ms_stage[k] /= STEPS;
    r->contacts /= STEPS;
    r->drift = max_drift(&w, x0);
    free(x0);
    cf_world_free(&w);
    return 0;
}

#ifdef CF_HAVE_ODE
/* ---- the same scene in ODE: boxes and the ground plane from the scene file, QuickStep ---- */
typedef struct OdeCtx {
    dWorldID world;
    dJointGroupID contacts;
    int count;
} OdeCtx;

static void near_cb(void *data, dGeomID a, dGeomID b)
{
    OdeCtx *c = data;
    dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
    if (!ba && !bb) return;
    dContact con[4];
    int n = dCollide(a, b, 4, &con[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
        con[i].surface.mode = dContactApprox1;
        con[i].surface.mu = 0.5;
        dJointID j = dJointCreateContact(c->world, c->contacts, &con[i]);
        dJointAttach(j, ba, bb);
    }
    c->count += n;
}

static int run_ode(const char *path, double *ms_step, double *ms_solve, double *contacts, double *drift)
{
    cfWorld w;
    cfError err;
    if (cf_scene_load(path, &w, NULL, &err) != CF_OK) return 1;
    OdeCtx c;
    dRandSetSeed(0); /* QuickStep shuffles its rows with ODE's global generator: the same run every round */
    c.world = dWorldCreate();
    c.contacts = dJointGroupCreate(0);
    dSpaceID space = dHashSpaceCreate(0);
    dWorldSetGravity(c.world, w.def.gravity.x, w.def.gravity.y, w.def.gravity.z);
    dWorldSetQuickStepNumIterations(c.world, ITERS);
    dBodyID *bodies = calloc((size_t)w.n_bodies, sizeof *bodies);
    for (int i = 0; i < w.n_bodies; ++i) {
        const cfRigidBody *b = &w.bodies[i];
        if (b->shape.type == CF_SHAPE_PLANE) {
            dCreatePlane(space, b->shape.normal.x, b->shape.normal.y, b->shape.normal.z, b->shape.offset);
            continue;
        }
        cfVec3 h = b->shape.half_extents;
        dGeomID g = dCreateBox(space, 2 * h.x, 2 * h.y, 2 * h.z);
        dGeomSetPosition(g, b->x.x, b->x.y, b->x.z);
        if (b->fixed) continue;
        bodies[i] = dBodyCreate(c.world);
        dMass m;
        dMassSetBoxTotal(&m, b->mass, 2 * h.x, 2 * h.y, 2 * h.z);
        dBodySetMass(bodies[i], &m);
        dBodySetPosition(bodies[i], b->x.x, b->x.y, b->x.z);
        dGeomSetBody(g, bodies[i]);
    }
    double total = 0, solve = 0, nc = 0;
    for (int s = 0; s < STEPS; ++s) {
        double t0 = bench_clock();
        c.count = 0;
        dSpaceCollide(space, &c, near_cb);
        double t1 = bench_clock();
        dWorldQuickStep(c.world, w.def.dt);
        double t2 = bench_clock();
        dJointGroupEmpty(c.contacts);
        total += bench_clock() - t0;
        solve += t2 - t1;
        nc += c.count;
    }
    double d = 0;
    for (int i = 0; i < w.n_bodies; ++i)
        if (bodies[i]) {
            const dReal *p = dBodyGetPosition(bodies[i]);
            d = fmax(d, cfu_norm(cfu_sub(cfu_vec3(p[0], p[1], p[2]), w.bodies[i].x)));
        }
    *ms_step = 1e3 * total / STEPS;
    *ms_solve = 1e3 * solve / STEPS;
    *contacts = nc / STEPS;
    *drift = d;
    free(bodies);
    dJointGroupDestroy(c.contacts);
    dSpaceDestroy(space);
    dWorldDestroy(c.world);
    cf_world_free(&w);
    return 0;
}
#endif

#ifdef CF_HAVE_BULLET
/* ---- the same scene in Bullet 3 (bench/peer_bullet.cc): boxes on the ground plane ---- */
static int run_bullet(const char *path, int iters, BenchRun *out)
{
    cfWorld w;
    cfError err;
    if (cf_scene_load(path, &w, NULL, &err) != CF_OK) return 1;
    BenchBox *boxes = calloc((size_t)w.n_bodies, sizeof *boxes);
    int n = 0;
    double mu = 0.5;
    for (int i = 0; i < w.n_bodies; ++i) {
        const cfRigidBody *b = &w.bodies[i];
        if (b->shape.type == CF_SHAPE_PLANE) {
            mu = b->mu;
            continue;
        }
        BenchBox *x = &boxes[n++];
        x->x[0] = b->x.x, x->x[1] = b->x.y, x->x[2] = b->x.z;
        x->half[0] = b->shape.half_extents.x, x->half[1] = b->shape.half_extents.y, x->half[2] = b->shape.half_extents.z;
        x->mass = b->fixed ? 0.0 : b->mass;
    }
    int st = bench_bullet(boxes, n, -w.def.gravity.z, mu, w.def.dt, STEPS, iters, out);
    free(boxes);
    cf_world_free(&w);
    return st;
}
#endif

/* ---- the engines of one scene ------------------------------------------------------------- */

/* cflab's rows: the readable reference, the fast PGS (same sweeps) and the soft step, at 20
   iterations, the fast PGS at 10 (Bullet's default count: issue 33's first target lets cflab run at
   the count it needs to stand) and the soft step at 40 (the setting of the walls of 50 and 100 layers) */
/* cflab-world: the reference pgs (its code unchanged) in the fast path's world: persistent manifolds,
   8 split sweeps and certify "claims" (issue 33's fourth target: the gain from the world around the
   readable solver; not in the scaling table) */
/* cflab-color, cflab-color2: the fast PGS in the colored order (CF_FAST_ORDER=colored: a different sweep,
   the same results on any number of threads) on one and two threads (issue 33's third target) */
#define N_CFLAB 9
enum { E_REF, E_FAST, E_FAST2, E_FAST10, E_SOFT, E_SOFT40, E_REFW, E_COLOR, E_COLOR2 };
static const char *const CFLAB_SOLVER[N_CFLAB] = {"pgs", "pgs-fast", "pgs-fast", "pgs-fast", "soft-step", "soft-step", "pgs",
                                                  "pgs-fast", "pgs-fast"};
static const char *const CFLAB_ENGINE[N_CFLAB] = {"cflab", "cflab-fast", "cflab-fast2", "cflab-fast10", "cflab-soft", "cflab-soft40",
                                                  "cflab-world", "cflab-color", "cflab-color2"};
static const int CFLAB_ITERS[N_CFLAB] = {ITERS, ITERS, ITERS, ITERS / 2, ITERS, 2 * ITERS, ITERS, ITERS, ITERS};
/* the fast PGS on two threads (CF_THREADS: the same results, bit for bit) */
static const char *const CFLAB_THREADS[N_CFLAB] = {"1", "1", "2", "1", "1", "1", "1", "1", "2"};
/* the fast PGS's sweep order (CF_FAST_ORDER) */
static const char *const CFLAB_ORDER[N_CFLAB] = {"rows", "rows", "rows", "rows", "rows", "rows", "rows", "colored", "colored"};

/* the fast path reuses a pair's contacts while its relative pose moves less than 0.1 mm
   (persistent manifolds, the world's manifold_tolerance; docs/performance.md) */
static const double CFLAB_MANIFOLD_TOL[N_CFLAB] = {0.0, 1e-4, 1e-4, 1e-4, 0.0, 0.0, 1e-4, 1e-4, 1e-4};
/* the fast path's split-impulse stage sweeps 8 times (world.split_iterations; the reference keeps
   the default, max(iterations, 4) = 20): the walls stand as well (pyramid 20 1.2 cm against 1.6 cm,
   the grid 5.9 mm against 7.4 mm; docs/performance.md) at 8/20 of the stage's cost. The soft step
   has its own position stage (the setting does not reach it) */
static const int CFLAB_SPLIT_ITERS[N_CFLAB] = {0, 8, 8, 8, 0, 0, 8, 8, 8};
/* and certifies only the solves its own measure stops early (world.certify "claims"): a solve that
   spends its budget, every step of these scenes at tolerance 1e-8, is reported as not converged
   without the passes over the contacts that measured its common residual (the same trajectory) */
static const bool CFLAB_CLAIMS[N_CFLAB] = {false, true, true, true, false, false, true, true, true};
/* the rows of the scaling table (cflab-fast10 is there for the targets of the main table) */
static const bool CFLAB_SCALING[N_CFLAB] = {true, true, true, false, true, true, false, false, false};

typedef struct Peer {
    bool ran;
    double ms_step, ms_solve, contacts, drift; /* ms_solve: QuickStep (ODE); Bullet reports no stages */
} Peer;

/* the peers: ODE QuickStep at 20 iterations, Bullet at its default 10 and at cflab's 20 */
enum { P_ODE, P_BULLET, P_BULLET20, N_PEER };
static const char *const PEER_ENGINE[N_PEER] = {"ode", "bullet", "bullet20"};

/* the engine runs unless BENCH_ENGINES (a comma-separated list of names) leaves it out */
static bool wanted(const char *engine)
{
    const char *list = getenv("BENCH_ENGINES");
    if (!list || !*list) return true;
    size_t n = strlen(engine);
    for (const char *p = list; (p = strstr(p, engine)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return true;
    return false;
}

/* cflab's engine e runs in this build, is asked for, and belongs to this table */
static bool cflab_runs(int e, bool main_table)
{
    return cf_solver_find(CFLAB_SOLVER[e]) && wanted(CFLAB_ENGINE[e]) && (main_table || (e != E_REF && CFLAB_SCALING[e]));
}

/* the peer runs in this build, is asked for, and belongs to this table (bullet20: the main table) */
static bool peer_runs(int p, bool main_table)
{
#ifndef CF_HAVE_ODE
    if (p == P_ODE) return false;
#endif
#ifndef CF_HAVE_BULLET
    if (p != P_ODE) return false;
#endif
    return wanted(PEER_ENGINE[p]) && (main_table || p != P_BULLET20);
}

static BenchProgress g_progress;

/* rounds of every engine in turn, so that each sees the same machine load; the fastest round
   counts. The main table runs every engine, the scaling table (main_table false) leaves out the
   reference, cflab-fast10 and bullet20. */
static int run_scene(const char *path, int repeats, bool main_table, Row r[N_CFLAB], Peer peer[N_PEER])
{
    for (int p = 0; p < N_PEER; ++p) peer[p] = (Peer){.ran = false, .ms_step = INFINITY};
    for (int round = 0; round < repeats; ++round) {
        for (int e = 0; e < N_CFLAB; ++e) {
            Row t;
            if (!cflab_runs(e, main_table)) continue; /* not in this build, not asked for, or not in this table */
            bench_progress(&g_progress, "%s, %s, round %d of %d", path, CFLAB_ENGINE[e], round + 1, repeats);
            setenv("CF_THREADS", CFLAB_THREADS[e], 1); /* read by the solver's first prepare */
            setenv("CF_FAST_ORDER", CFLAB_ORDER[e], 1);
            int bad = run_cflab(path, CFLAB_SOLVER[e], CFLAB_ITERS[e], CFLAB_MANIFOLD_TOL[e], CFLAB_SPLIT_ITERS[e],
                                CFLAB_CLAIMS[e], &t);
            unsetenv("CF_THREADS");
            unsetenv("CF_FAST_ORDER");
            if (bad) return 1;
            if (round == 0 || t.ms_step < r[e].ms_step) r[e] = t;
        }
#ifdef CF_HAVE_BULLET
        for (int p = P_BULLET; p <= P_BULLET20; ++p) {
            BenchRun bt;
            if (!peer_runs(p, main_table)) continue;
            bench_progress(&g_progress, "%s, %s, round %d of %d", path, PEER_ENGINE[p], round + 1, repeats);
            if (run_bullet(path, p == P_BULLET ? BULLET_ITERS : ITERS, &bt) == 0 && bt.ms_step < peer[p].ms_step)
                peer[p] = (Peer){true, bt.ms_step, 0.0, bt.contacts, bt.drift};
        }
#endif
#ifdef CF_HAVE_ODE
        Peer o = {true, 0, 0, 0, 0};
        if (peer_runs(P_ODE, main_table)) {
            bench_progress(&g_progress, "%s, ode, round %d of %d", path, round + 1, repeats);
            if (run_ode(path, &o.ms_step, &o.ms_solve, &o.contacts, &o.drift) == 0 && o.ms_step < peer[P_ODE].ms_step)
                peer[P_ODE] = o;
        }
#endif
    }
    return 0;
}

/* ---- the scaling table ------------------------------------------------------------------- */

/* a grid of n x n columns of n unit cubes (mass 1, mu 0.5, 0.1 m gaps), as the catalogue's grid */
static int write_grid(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) return 1;
    fprintf(f, "{\"name\": \"grid %dx%dx%d\", \"chapter\": 5, \"description\": \"bench_sim's scaling grid\", "
               "\"expect\": \"stands\", \"world\": {\"gravity\": [0, 0, -9.81], \"dt\": 0.016666666666666666, "
               "\"steps\": %d, \"detector\": \"primitives\", \"contact_margin\": 0.02, \"solver\": \"pgs\", "
               "\"solver_iterations\": %d}, \"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.5, "
               "\"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}}",
            n, n, n, STEPS, ITERS);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k)
                fprintf(f, ",\n{\"name\": \"c%d_%d_%d\", \"mass\": 1.0, \"mu\": 0.5, \"position\": [%.1f, %.1f, %.1f], "
                           "\"shape\": {\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}}",
                        i, j, k, 1.1 * i, 1.1 * j, 0.5 + k);
    fprintf(f, "]}\n");
    return fclose(f) != 0;
}

/* least squares ms = a + b contacts over the scenes; R^2 and the largest relative deviation */
static void print_fit(const char *engine, const char *which, const double *x, const double *y, int n)
{
    if (n < 2) return;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; ++i) sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
    double b = (n * sxy - sx * sy) / (n * sxx - sx * sx), a = (sy - b * sx) / n;
    double ss = 0, st = 0, dev = 0, my = sy / n;
    for (int i = 0; i < n; ++i) {
        double f = a + b * x[i];
        ss += (y[i] - f) * (y[i] - f);
        st += (y[i] - my) * (y[i] - my);
        dev = fmax(dev, fabs(y[i] - f) / y[i]);
    }
    printf("# fit %s%s: ms_step = %.3f + %.3f per 1000 contacts (%.1f ns per contact), R^2 %.4f, largest deviation %.0f %%\n",
           engine, which, a, 1e3 * b, 1e6 * b, 1.0 - ss / st, 100.0 * dev);
}

static int scaling(bool large)
{
    char grid[2][512];
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    const char *scenes[8] = {"scenes/ch05_pyramid_10.json", "scenes/ch05_pyramid_20.json", "scenes/ch05_pyramid_50.json",
                             "scenes/ch05_pyramid_100.json", "scenes/ch05_grid_10x10x10.json"};
    int ns = 5;
    for (int g = 0; g < 2 && large; ++g) {
        snprintf(grid[g], sizeof grid[g], "%s/bench_sim_grid%d_%ld.json", tmp, 20 + 10 * g, (long)getpid());
        if (write_grid(grid[g], 20 + 10 * g)) {
            fprintf(stderr, "bench_sim: cannot write %s\n", grid[g]);
            return 1;
        }
        scenes[ns++] = grid[g];
    }
    printf("# scaling: one round per engine; stands: no box moved more than 5 cm in 10 s\n");
    printf("engine,scene,bodies,contacts,ms_step,drift_m,stands_5cm\n");
    enum { E = N_CFLAB + N_PEER };
    double x[E][8], y[E][8], xs[E][8], ys[E][8]; /* every scene; the scenes the engine keeps standing */
    int m[E] = {0}, n_up[E] = {0};
    const char *name[E];
    for (int e = 0; e < E; ++e) name[e] = e < N_CFLAB ? CFLAB_ENGINE[e] : PEER_ENGINE[e - N_CFLAB];
    int st = 0;
    for (int i = 0; i < ns && st == 0; ++i) {
        Row r[N_CFLAB] = {{0}};
        Peer p[N_PEER];
        cfWorld w;
        cfError err;
        if (cf_scene_load(scenes[i], &w, NULL, &err) != CF_OK) {
            fprintf(stderr, "%s\n", err.msg);
            st = 1;
            break;
        }
        int bodies = w.n_bodies, own = w.def.solver_iterations;
        bool own_soft = w.def.solver == cf_solver_find("soft-step"); /* at a count no engine row runs */
        for (int e = 0; e < N_CFLAB; ++e) own_soft = own_soft && !(!strcmp(CFLAB_SOLVER[e], "soft-step") && CFLAB_ITERS[e] == own);
        cf_world_free(&w);
        if ((st = run_scene(scenes[i], 1, false, r, p)) != 0) break;
        /* a wall whose scene sets the soft step at another count (pyramid 100: 60) also runs as the
           scene says, the catalogue's prediction in full (a row of its own, not in the fits) */
        if (own_soft && wanted("cflab-scene")) {
            Row t;
            bench_progress(&g_progress, "%s, cflab-soft%d (the scene's own count)", scenes[i], own);
            if ((st = run_cflab(scenes[i], "soft-step", own, 0.0, 0, false, &t)) != 0) break;
            printf("cflab-soft%d,%s,%d,%.0f,%.3f,%.5f,%s\n", own, scenes[i], bodies, t.contacts, t.ms_step, t.drift,
                   t.drift <= 0.05 ? "yes" : "no");
        }
        for (int e = 1; e < E; ++e) {
            double c, ms, d;
            if (e < N_CFLAB) {
                if (!cflab_runs(e, false)) continue;
                c = r[e].contacts, ms = r[e].ms_step, d = r[e].drift;
            } else {
                const Peer *q = &p[e - N_CFLAB];
                if (!q->ran) continue;
                c = q->contacts, ms = q->ms_step, d = q->drift;
            }
            printf("%s,%s,%d,%.0f,%.3f,%.5f,%s\n", name[e], scenes[i], bodies, c, ms, d, d <= 0.05 ? "yes" : "no");
            fflush(stdout);
            x[e][m[e]] = c, y[e][m[e]] = ms, ++m[e];
            if (d <= 0.05) xs[e][n_up[e]] = c, ys[e][n_up[e]] = ms, ++n_up[e];
        }
    }
    /* a collapsing wall is no measure of the step's growth (boxes in flight cost more per contact,
       and the engine keeps fewer contacts): the second line fits the scenes that stand only */
    for (int e = 1; e < E && st == 0; ++e) {
        if (m[e] == 0) continue;
        print_fit(name[e], "", x[e], y[e], m[e]);
        print_fit(name[e], " (standing scenes)", xs[e], ys[e], n_up[e]);
    }
    for (int g = 0; g < 2 && large; ++g) remove(grid[g]);
    return st;
}

/* ---- issue 33's targets, one line each: met or not, the measured ratio and its distance ---------- */

static void print_verdict(double measured, double bound, bool at_most)
{
    bool met = at_most ? measured <= bound : measured >= bound;
    printf("%s (measured %.2fx, distance %.2fx)", met ? "met" : "not met", measured, met ? 0.0 : fabs(measured - bound));
}

/* standing for target 1: the largest displacement below Bullet's (10 iterations) and below 2 cm */
static bool stands_for_target(const Row *r, const Peer *bullet) { return r->drift < bullet->drift && r->drift < 0.02; }

static void print_targets(const Row r[N_CFLAB], const Peer peer[N_PEER])
{
    const Peer *ode = &peer[P_ODE], *bullet = &peer[P_BULLET], *bullet20 = &peer[P_BULLET20];
    /* 1: the fast path at Bullet's default count of 10, at whatever count cflab needs to stand */
    if (bullet->ran && (cflab_runs(E_FAST, true) || cflab_runs(E_FAST10, true))) {
        const int cand[2] = {E_FAST, E_FAST10};
        double best = INFINITY;
        printf("# target 1 (cflab-fast <= 1.0x bullet at 10 iterations while standing: drift below bullet's %.2f cm "
               "and below 2 cm; aimed for 0.7x):", 100 * bullet->drift);
        for (int k = 0; k < 2; ++k) {
            int e = cand[k];
            if (!cflab_runs(e, true)) continue;
            bool up = stands_for_target(&r[e], bullet);
            printf(" %s %.2fx at %d iterations, drift %.2f cm%s;", CFLAB_ENGINE[e], r[e].ms_step / bullet->ms_step,
                   CFLAB_ITERS[e], 100 * r[e].drift, up ? "" : " (does not stand)");
            if (up) best = fmin(best, r[e].ms_step / bullet->ms_step);
        }
        if (isfinite(best)) {
            printf(" ");
            print_verdict(best, 1.0, true);
        } else {
            printf(" not met (no iteration count run stands)");
        }
        printf("\n");
    }
    /* 2: equal iterations, 20 */
    if (bullet20->ran && cflab_runs(E_FAST, true)) {
        printf("# target 2 (cflab-fast <= 0.6x bullet20, both at 20 iterations): ");
        print_verdict(r[E_FAST].ms_step / bullet20->ms_step, 0.6, true);
        printf("\n");
    }
    /* 3: two threads (the issue asks it of pyramid 20 and the grid) */
    if (cflab_runs(E_FAST, true) && cflab_runs(E_FAST2, true)) {
        printf("# target 3 (cflab-fast2, two threads, >= 1.5x as fast as cflab-fast; asked of pyramid 20 and the grid): ");
        print_verdict(r[E_FAST].ms_step / r[E_FAST2].ms_step, 1.5, false);
        printf("\n");
    }
    if (cflab_runs(E_FAST, true) && cflab_runs(E_COLOR2, true)) {
        printf("# target 3, colored (cflab-color2, the colored sweep on two threads, against cflab-fast on one): ");
        print_verdict(r[E_FAST].ms_step / r[E_COLOR2].ms_step, 1.5, false);
        if (cflab_runs(E_COLOR, true))
            printf("; against cflab-color on one thread %.2fx; drift %.2f cm colored, %.2f cm in the rows' order",
                   r[E_COLOR].ms_step / r[E_COLOR2].ms_step, 100 * r[E_COLOR2].drift, 100 * r[E_FAST].drift);
        printf("\n");
    }
    /* 4: the readable reference against ODE */
    for (int k = 0; k < 2; ++k) {
        int e = k == 0 ? E_REF : E_REFW;
        if (!ode->ran || !cflab_runs(e, true)) continue;
        printf("# target 4 (%s, the reference pgs%s, <= 1.2x ode): ", CFLAB_ENGINE[e],
               e == E_REF ? "" : " in the fast path's world");
        print_verdict(r[e].ms_step / ode->ms_step, 1.2, true);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    const char *scenes[3] = {"scenes/ch05_pyramid_10.json", "scenes/ch05_pyramid_20.json",
                             "scenes/ch05_grid_10x10x10.json"};
    const char *env = getenv("BENCH_REPEATS");
    int repeats = env && atoi(env) > 0 ? atoi(env) : 3;
    bool with_scaling = false, large = false;
    const char *list[64];
    int n = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--scaling") == 0) with_scaling = true;
        else if (strcmp(argv[i], "--large") == 0) large = with_scaling = true;
        else if (n < 64) list[n++] = argv[i];
    }
    if (n == 0)
        for (n = 0; n < 3; ++n) list[n] = scenes[n];
    /* the runs to come, for the progress lines: every engine of every scene per round, then the
       scaling table's scenes (5, and the 2 large grids) once each */
    int engines = 0, engines_scaling = 0;
    for (int e = 0; e < N_CFLAB; ++e) engines += cflab_runs(e, true), engines_scaling += cflab_runs(e, false);
    for (int p = 0; p < N_PEER; ++p) engines += peer_runs(p, true), engines_scaling += peer_runs(p, false);
    bench_progress_start(&g_progress, "bench_sim",
                         n * engines * repeats + (with_scaling ? (5 + (large ? 2 : 0)) * engines_scaling : 0));
    printf("# bench_sim: %d steps of 1/60 s, %d iterations, warm start, split impulse: cflab = matrix-free PGS, the reference ch05.6;\n"
           "# cflab-fast = solver pgs-fast (solutions/ch05/fast/, the same sweeps, box pairs side by side: 4 lanes where the processor has AVX2,\n"
           "# else 2; CF_FAST_LANES=2 asks for 2) with persistent manifolds (manifold_tolerance 0.1 mm) and %d split-impulse sweeps\n"
           "# (world.split_iterations; cflab's reference: max(iterations, 4)), certifying only the solves its own measure stops early\n"
           "# (world.certify \"claims\"; the reference: every solve);\n"
           "# cflab-fast2 the same on 2 threads (CF_THREADS=2: the same results bit for bit, slabs of space per thread);\n"
           "# cflab-fast10 the same on one thread at 10 iterations (Bullet's default count; not in the scaling table);\n"
           "# cflab-soft = solver soft-step (solutions/ch05/fast/soft_step.c: %d substeps, one soft and one relax sweep each),\n"
           "# cflab-soft40 the same at 40 iterations (20 substeps); ns_per_contact_iter counts sweeps;\n"
           "# cflab-world = the reference pgs (its code as the text's) in cflab-fast's world: persistent manifolds, %d split sweeps,\n"
           "# certify \"claims\" (issue 33's fourth target; not in the scaling table);\n"
           "# cflab-color, cflab-color2 = cflab-fast in the colored order (CF_FAST_ORDER=colored: the box pairs colored so that\n"
           "# none of a color shares a moving body, swept color by color; a different sweep) on 1 and 2 threads (not in the scaling table);\n"
           "# ms per step (%s, one thread but cflab-fast2; the fastest of %d rounds, engines in turn: BENCH_REPEATS), stage times,\n"
           "# average contacts, max drift after 10 s (stands: < 1 cm)\n",
           STEPS, ITERS, CFLAB_SPLIT_ITERS[E_FAST], ITERS / 2, CFLAB_SPLIT_ITERS[E_REFW],
           getenv("BENCH_CLOCK") && strcmp(getenv("BENCH_CLOCK"), "cpu") == 0
               ? "the CPU time of the stepping thread, BENCH_CLOCK=cpu; stage times wall"
               : "wall",
           repeats);
#ifdef CF_HAVE_ODE
    dInitODE();
    printf("# ODE %s QuickStep, %d iterations, dContactApprox1 mu 0.5, ERP 0.2, CFM 1e-5 (defaults), hash space, 4 contacts per pair\n",
           "0.16", ITERS);
#else
    printf("# ODE not built in (install libode-dev and rebuild to compare)\n");
#endif
#ifdef CF_HAVE_BULLET
    printf("# Bullet %s btDiscreteDynamicsWorld, sequential impulse %d iterations (split impulse, its defaults), "
           "dbvt broadphase, mu 0.5 per pair, no sleeping; bullet20 the same at %d iterations (not in the scaling table)\n",
           bench_bullet_version(), BULLET_ITERS, ITERS);
#else
    printf("# Bullet not built in (install libbullet-dev and rebuild to compare)\n");
#endif
    printf("engine,scene,contacts,ms_step,ms_detect,ms_assemble,ms_solve,ms_stabilize,ns_per_contact_iter,drift_m,stands\n");
    for (int i = 0; i < n; ++i) {
        Row r[N_CFLAB] = {{0}};
        Peer peer[N_PEER];
        if (run_scene(list[i], repeats, true, r, peer)) return 1;
        for (int e = 0; e < N_CFLAB; ++e) {
            if (!cflab_runs(e, true)) continue;
            double ms_asm = r[e].ms_stage[CF_STAGE_CONTACTS] + r[e].ms_stage[CF_STAGE_ASSEMBLE];
            printf("%s,%s,%.0f,%.3f,%.3f,%.3f,%.3f,%.3f,%.1f,%.5f,%s\n", CFLAB_ENGINE[e], list[i], r[e].contacts,
                   r[e].ms_step, r[e].ms_stage[CF_STAGE_DETECT], ms_asm, r[e].ms_stage[CF_STAGE_SOLVE],
                   r[e].ms_stage[CF_STAGE_STABILIZE], 1e6 * r[e].ms_stage[CF_STAGE_SOLVE] / (r[e].contacts * CFLAB_ITERS[e]),
                   r[e].drift, r[e].drift < 0.01 ? "yes" : "no");
        }
        const Peer *ode = &peer[P_ODE], *bullet = &peer[P_BULLET], *bullet20 = &peer[P_BULLET20];
        if (ode->ran)
            printf("ode,%s,%.0f,%.3f,%.3f,,%.3f,,%.1f,%.5f,%s\n", list[i], ode->contacts, ode->ms_step,
                   ode->ms_step - ode->ms_solve, ode->ms_solve, 1e6 * ode->ms_solve / (ode->contacts * ITERS), ode->drift,
                   ode->drift < 0.01 ? "yes" : "no");
        for (int p = P_BULLET; p <= P_BULLET20; ++p)
            if (peer[p].ran)
                printf("%s,%s,%.0f,%.3f,,,,,,%.5f,%s\n", PEER_ENGINE[p], list[i], peer[p].contacts, peer[p].ms_step,
                       peer[p].drift, peer[p].drift < 0.01 ? "yes" : "no");
        for (int e = 0; e < N_CFLAB; ++e) {
            if (!cflab_runs(e, true)) continue;
            if (ode->ran)
                printf("# ratio %s/ODE: step %.2f (target <= 0.5: %s), solve (solve+stabilize vs QuickStep) %.2f\n",
                       CFLAB_ENGINE[e], r[e].ms_step / ode->ms_step, r[e].ms_step <= 0.5 * ode->ms_step ? "met" : "not met",
                       (r[e].ms_stage[CF_STAGE_SOLVE] + r[e].ms_stage[CF_STAGE_STABILIZE]) / ode->ms_solve);
            if (bullet->ran || bullet20->ran) {
                printf("# ratio %s/Bullet: step", CFLAB_ENGINE[e]);
                if (bullet->ran) printf(" %.2f", r[e].ms_step / bullet->ms_step);
                if (bullet20->ran) printf("%s%.2f against Bullet at 20 iterations", bullet->ran ? ", " : " ", r[e].ms_step / bullet20->ms_step);
                printf("\n");
            }
        }
        print_targets(r, peer);
        fflush(stdout);
    }
    int st = with_scaling ? scaling(large) : 0;
#ifdef CF_HAVE_ODE
    dCloseODE();
#endif
    return st;
}
