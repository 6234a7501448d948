/* SPDX-License-Identifier: MIT */
/* Chapter 5 simulator benchmark: pyramid 10, pyramid 20 and the 1000-box grid at 20 iterations;
   ms per step by stage, contacts, drift after 10 s; the same scenes in ODE QuickStep when built
   with CF_HAVE_ODE (mk/ch05.mk does so when pkg-config finds Debian's libode-dev). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

#ifdef CF_HAVE_ODE
#include <ode/ode.h>
#endif
#include "peer.h"

#define BULLET_ITERS 10

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

static int run_cflab(const char *path, const char *solver, Row *r)
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
    w.def.solver_iterations = ITERS;
    cfVec3 *x0 = malloc((size_t)w.n_bodies * sizeof *x0);
    for (int i = 0; i < w.n_bodies; ++i) x0[i] = w.bodies[i].x;
    memset(r, 0, sizeof *r);
    for (int s = 0; s < STEPS; ++s) {
        double t0 = cf_seconds();
        if (cf_world_step(&w) != CF_OK) {
            fprintf(stderr, "%s: step %d failed: %s\n", path, s, w.error.msg);
            free(x0);
            cf_world_free(&w);
            return 1;
        }
        r->ms_step += 1e3 * (cf_seconds() - t0);
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
        double t0 = cf_seconds();
        c.count = 0;
        dSpaceCollide(space, &c, near_cb);
        double t1 = cf_seconds();
        dWorldQuickStep(c.world, w.def.dt);
        double t2 = cf_seconds();
        dJointGroupEmpty(c.contacts);
        total += cf_seconds() - t0;
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
static int run_bullet(const char *path, BenchRun *out)
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
    int st = bench_bullet(boxes, n, -w.def.gravity.z, mu, w.def.dt, STEPS, BULLET_ITERS, out);
    free(boxes);
    cf_world_free(&w);
    return st;
}
#endif

int main(int argc, char **argv)
{
    const char *scenes[3] = {"scenes/ch05_pyramid_10.json", "scenes/ch05_pyramid_20.json",
                             "scenes/ch05_grid_10x10x10.json"};
    const char *env = getenv("BENCH_REPEATS");
    int repeats = env && atoi(env) > 0 ? atoi(env) : 3;
    int n = argc > 1 ? argc - 1 : 3;
    const char **list = argc > 1 ? (const char **)argv + 1 : scenes;
    printf("# bench_sim: %d steps of 1/60 s, matrix-free PGS: cflab = reference ch05.6 (solutions),\n"
           "# cflab-fast = solver pgs-fast (solutions/ch05/fast/, same sweeps, box pairs side by side); %d iterations, warm start, split impulse;\n"
           "# ms per step (wall, one core; the fastest of %d rounds, engines in turn: BENCH_REPEATS), stage times,\n"
           "# average contacts, max drift after 10 s (stands: < 1 cm)\n",
           STEPS, ITERS, repeats);
#ifdef CF_HAVE_ODE
    dInitODE();
    printf("# ODE %s QuickStep, %d iterations, dContactApprox1 mu 0.5, ERP 0.2, CFM 1e-5 (defaults), hash space, 4 contacts per pair\n",
           "0.16", ITERS);
#else
    printf("# ODE not built in (install libode-dev and rebuild to compare)\n");
#endif
#ifdef CF_HAVE_BULLET
    printf("# Bullet %s btDiscreteDynamicsWorld, sequential impulse %d iterations (split impulse, its defaults), "
           "dbvt broadphase, mu 0.5 per pair, no sleeping\n", bench_bullet_version(), BULLET_ITERS);
#else
    printf("# Bullet not built in (install libbullet-dev and rebuild to compare)\n");
#endif
    printf("engine,scene,contacts,ms_step,ms_detect,ms_assemble,ms_solve,ms_stabilize,ns_per_contact_iter,drift_m,stands\n");
    for (int i = 0; i < n; ++i) {
        Row r[2], t;
        const char *kinds[2] = {"pgs", "pgs-fast"};
        const char *engine[2] = {"cflab", "cflab-fast"};
#ifdef CF_HAVE_ODE
        double ms = INFINITY, ms_solve = 0.0, nc = 0.0, d = 0.0;
#endif
#ifdef CF_HAVE_BULLET
        BenchRun bt = {INFINITY, 0, 0}, bt1;
#endif
        /* rounds of every engine in turn, so that each sees the same machine load; the fastest round counts */
        for (int round = 0; round < repeats; ++round) {
            for (int e = 0; e < 2; ++e) {
                if (run_cflab(list[i], kinds[e], &t)) return 1;
                if (round == 0 || t.ms_step < r[e].ms_step) r[e] = t;
            }
#ifdef CF_HAVE_BULLET
            if (run_bullet(list[i], &bt1) == 0 && bt1.ms_step < bt.ms_step) bt = bt1;
#endif
#ifdef CF_HAVE_ODE
            double ms1, solve1, nc1, d1;
            if (run_ode(list[i], &ms1, &solve1, &nc1, &d1) == 0 && ms1 < ms) {
                ms = ms1;
                ms_solve = solve1;
                nc = nc1;
                d = d1;
            }
#endif
        }
        for (int e = 0; e < 2; ++e) {
            double ms_asm = r[e].ms_stage[CF_STAGE_CONTACTS] + r[e].ms_stage[CF_STAGE_ASSEMBLE];
            printf("%s,%s,%.0f,%.3f,%.3f,%.3f,%.3f,%.3f,%.1f,%.5f,%s\n", engine[e], list[i], r[e].contacts,
                   r[e].ms_step, r[e].ms_stage[CF_STAGE_DETECT], ms_asm, r[e].ms_stage[CF_STAGE_SOLVE],
                   r[e].ms_stage[CF_STAGE_STABILIZE], 1e6 * r[e].ms_stage[CF_STAGE_SOLVE] / (r[e].contacts * ITERS),
                   r[e].drift, r[e].drift < 0.01 ? "yes" : "no");
            fflush(stdout);
        }
#ifdef CF_HAVE_ODE
        if (isfinite(ms)) {
            printf("ode,%s,%.0f,%.3f,%.3f,,%.3f,,%.1f,%.5f,%s\n", list[i], nc, ms, ms - ms_solve, ms_solve,
                   1e6 * ms_solve / (nc * ITERS), d, d < 0.01 ? "yes" : "no");
            for (int e = 0; e < 2; ++e)
                printf("# ratio %s/ODE: step %.2f, solve (solve+stabilize vs QuickStep) %.2f\n", engine[e],
                       r[e].ms_step / ms, (r[e].ms_stage[CF_STAGE_SOLVE] + r[e].ms_stage[CF_STAGE_STABILIZE]) / ms_solve);
        }
#endif
#ifdef CF_HAVE_BULLET
        if (isfinite(bt.ms_step)) {
            printf("bullet,%s,%.0f,%.3f,,,,,,%.5f,%s\n", list[i], bt.contacts, bt.ms_step, bt.drift,
                   bt.drift < 0.01 ? "yes" : "no");
            for (int e = 0; e < 2; ++e)
                printf("# ratio %s/Bullet: step %.2f\n", engine[e], r[e].ms_step / bt.ms_step);
        }
#endif
        fflush(stdout);
    }
#ifdef CF_HAVE_ODE
    dCloseODE();
#endif
    return 0;
}
