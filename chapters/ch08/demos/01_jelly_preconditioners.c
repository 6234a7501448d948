/* SPDX-License-Identifier: MIT */
/* Demo ch08/jelly_preconditioners: one jelly cube dropped three times, its contacts solved with
   W_A (exact), ICA (block-diagonal) and W_M (lumped): how far up the cube one step's response goes. */
#include "demos.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * What the viewer must show: the cube of scenes/ch08_jelly_cube.json (64 nodes, co-rotational
 * tetrahedra, h = 1/60 s) three times, solved by the 'dual' row with the exact preconditioner
 * (W_A = J A^-1 J^T, Algorithm 15), the block-diagonal one (ICA) and the lumped one (W_M = J M^-1
 * J^T, explicit forces). In the step the cube lands, the arrows show the velocity change of the
 * front face's nodes against free fall (scaled; a node responds when its change is 5 % of the
 * largest): with W_A the response reaches the top layer in that one step (A^-1 couples every
 * node), with W_M only the nodes in contact move (notes 4.3: the lumped method's response travels
 * one element per step), ICA between them (its outer sweeps carry it up). Then W_A and ICA rest on
 * the ground while the lumped cube, stepped explicitly at 15 times its
 * stability limit, blows up and its world stops with the limit in the HUD.
 */

#define N_SLOTS 3
#define MAX_NODES 64

typedef struct Data {
    bool landed[N_SLOTS];               /* the landing step has been measured */
    double impact[N_SLOTS];             /* the largest sum of normal impulses of a step so far (N s) */
    double reach[N_SLOTS];              /* highest responding node above the bottom, over the cube's height */
    cfVec3 dv[N_SLOTS][MAX_NODES];      /* velocity change of the landing step against free fall */
    cfVec3 before[N_SLOTS][MAX_NODES];  /* velocities before the current step */
    double lowest[N_SLOTS];             /* lowest node seen (m) */
    double speed[N_SLOTS];              /* fastest node at the last step (m/s) */
} Data;

static const cfPreconditioner PRECOND[N_SLOTS] = {CF_PRECOND_EXACT, CF_PRECOND_BLOCK_DIAGONAL, CF_PRECOND_LUMPED};

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    static const char *const label[N_SLOTS] = {"exact W_A", "block-diagonal (ICA)", "lumped W_M"};
    for (int i = 0; i < N_SLOTS; ++i) {
        int s = cfv_run_add_scene(run, "ch08_jelly_cube.json", label[i], cfu_vec3(1.2 * (i - 1), 0, 0), err);
        if (s < 0) return CF_BAD_INPUT;
        cfWorld *w = cfv_run_world(run, s);
        w->def.preconditioner = PRECOND[i];
        if (w->n_soft != 1 || w->soft[0].n_nodes > MAX_NODES)
            return cf_error_set(err, CF_BAD_INPUT, "the scene's cube must be one body of at most %d nodes", MAX_NODES);
        d->lowest[i] = INFINITY;
    }
    for (int i = 0; i < N_SLOTS; ++i) cfv_run_subject_soft(run, i, 0);
    cfv_run_set_camera(run, cfu_zero3(), -90, 12, 0);
    return CF_OK;
}

/* the landing step (the step of the largest sum of normal impulses, the impact): each node's
   velocity change against free fall (the cube falls undeformed before, so without contact every
   node would gain g h), and how high up the change reaches */
static void measure_landing(Data *d, int i, const cfWorld *w)
{
    const cfSoftBody *b = &w->soft[0];
    double top = -INFINITY, bottom = INFINITY, big = 0.0;
    for (int k = 0; k < b->n_nodes; ++k) {
        cfVec3 free_v = cfu_add(d->before[i][k], cfu_scale(w->def.dt, w->def.gravity));
        d->dv[i][k] = cfu_sub(b->v[k], free_v);
        big = fmax(big, cfu_norm(d->dv[i][k]));
        top = fmax(top, b->x[k].z);
        bottom = fmin(bottom, b->x[k].z);
    }
    double reach = bottom;
    for (int k = 0; k < b->n_nodes; ++k)
        if (cfu_norm(d->dv[i][k]) > 0.05 * big) reach = fmax(reach, b->x[k].z);
    d->reach[i] = (reach - bottom) / (top - bottom);
    d->landed[i] = true;
}

static void step(cfvRun *run)
{
    Data *d = run->data;
    for (int i = 0; i < N_SLOTS; ++i) {
        const cfSoftBody *b = &cfv_run_world(run, i)->soft[0];
        memcpy(d->before[i], b->v, (size_t)b->n_nodes * sizeof *b->v);
    }
    cfv_run_step_worlds(run);
    for (int i = 0; i < N_SLOTS; ++i) {
        const cfWorld *w = cfv_run_world(run, i);
        const cfSoftBody *b = &w->soft[0];
        if (run->slot[i].halted) continue;
        double lam = 0.0;
        for (int a = 0; a < w->contacts.count; ++a) lam += w->contacts.items[a].lambda[0];
        if (lam > d->impact[i] && run->steps_taken < 60) { /* the impact is over after a second */
            d->impact[i] = lam;
            measure_landing(d, i, w);
        }
        d->speed[i] = 0.0;
        for (int k = 0; k < b->n_nodes; ++k) {
            d->lowest[i] = fmin(d->lowest[i], b->x[k].z);
            d->speed[i] = fmax(d->speed[i], cfu_norm(b->v[k]));
        }
    }
    /* the arrows of the landing step on the cube's front face (the halted world keeps them too) */
    for (int i = 0; i < N_SLOTS; ++i) {
        const cfSoftBody *b = &cfv_run_world(run, i)->soft[0];
        double front = INFINITY;
        for (int k = 0; k < b->n_nodes; ++k) front = fmin(front, b->x[k].y);
        for (int k = 0; d->landed[i] && k < b->n_nodes; ++k)
            if (b->x[k].y < front + 0.05)
                cfv_run_mark(run, i, CFV_MARK_ARROW, b->x[k], cfu_mul_add(b->x[k], 0.12, d->dv[i][k]), 0xff8000, NULL);
    }
    cfv_run_info(run, 0, "landing step: the response reaches %.0f %% / %.0f %% / %.0f %% of the cube's height "
                 "(exact / ICA / lumped; arrows: velocity change against free fall)",
                 100 * d->reach[0], 100 * d->reach[1], 100 * d->reach[2]);
    cfv_run_info(run, 1, "lowest node %.1f / %.1f mm, fastest node %.3f / %.3f m/s (exact / ICA)", 1e3 * d->lowest[0],
                 1e3 * d->lowest[1], d->speed[0], d->speed[1]);
    cfv_run_info(run, 2, "lumped: %s", run->slot[2].halted ? run->slot[2].note : "running");
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    bool blew = run->slot[2].halted && strstr(run->slot[2].note, "blew up");
    snprintf(msg, cap, "reach of the landing step %.2f / %.2f / %.2f (want exact 1, lumped < 0.2); lowest %.4f / %.4f m "
             "(want > -0.001), fastest %.4f / %.4f m/s (want < 0.01); lumped blew up and said so: %s",
             d->reach[0], d->reach[1], d->reach[2], d->lowest[0], d->lowest[1], d->speed[0], d->speed[1], blew ? "yes" : "no");
    bool ok = d->landed[0] && d->landed[2] && d->reach[0] > 0.99 && d->reach[2] < 0.2 && d->lowest[0] > -1e-3 &&
              d->lowest[1] > -1e-3 && d->speed[0] < 1e-2 && d->speed[1] < 1e-2 && !run->slot[0].halted &&
              !run->slot[1].halted && blew;
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch08_jelly_preconditioners = {
    .id = "ch08/jelly_preconditioners",
    .chapter = 8,
    .title = "A jelly cube lands with W_A, ICA and W_M: how far one step's contact response travels",
    .point_at = "the orange arrows of the landing step: on the left every node slows down at once, on the right only "
                "the bottom layer; then the right cube, stepped explicitly at 15 times its limit, blows up",
    .keys = "pause,points,impulses,preconditioner",
    .prediction = "the exact response reaches the top layer in the landing step, the lumped one stays in the bottom "
                  "fifth; exact and ICA cubes rest above the ground after 3 s; the lumped world stops with its limit",
    .overlays = "points",
    .steps = 180,
    CFV_DEMO_STEP_HOOKS,
};
