/* SPDX-License-Identifier: MIT */
/* The world and its step: a fixed list of named stages, each chosen by an enum in cfWorldDef. */
#include "cf/cf_world.h"

#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch01.h"
#include "cf/cf_ch02.h"
#include "cf/cf_ch05.h"
#include "cf/cf_detect.h"
#include "cf/cf_rigid_fast.h"

/* scratch space of the contact solver, kept between steps to reuse its memory */
struct cfSolverWork {
    cfRigidPgs pgs;          /* matrix-free rows (CF_SOLVER_PGS) */
    cfRigidFast fast;        /* compact rows, contact order (CF_SOLVER_PGS_FAST) */
    cfFrictionProblem fc;    /* assembled W, q, mu (the other solvers) */
    cfBlcp blcp;             /* boxed LCP of fc (boxed solvers) */
    double *x;               /* impulses of the assembled solvers, 3 nc */
    int cap_x;               /* entries allocated in x */
};

static void work_release(struct cfSolverWork *k)
{
    cf_fc_free(&k->fc);
    cf_blcp_free(&k->blcp);
}

static void work_free(struct cfSolverWork *k)
{
    if (!k) return;
    work_release(k);
    cf_rigid_pgs_free(&k->pgs);
    cf_rigid_fast_free(&k->fast);
    free(k->x);
    free(k);
}

const char *cf_stage_name(cfStage s)
{
    static const char *names[CF_STAGE_COUNT] = {"detect",   "contacts", "velocities", "assemble",
                                                "solve",    "positions", "stabilize"};
    return (s >= 0 && s < CF_STAGE_COUNT) ? names[s] : "unknown";
}

const char *cf_rigid_integrator_name(cfRigidIntegrator i)
{
    switch (i) {
    case CF_RIGID_SEMI_IMPLICIT: return "semi-implicit";
    case CF_RIGID_EXPLICIT: return "explicit";
    }
    return "unknown";
}

const char *cf_soft_integrator_name(cfSoftIntegrator i)
{
    switch (i) {
    case CF_SOFT_IMPLICIT: return "implicit";
    case CF_SOFT_BDF2: return "bdf2";
    case CF_SOFT_SEMI_IMPLICIT: return "semi-implicit";
    case CF_SOFT_EXPLICIT: return "explicit";
    }
    return "unknown";
}

const char *cf_detector_name(cfDetector d)
{
    switch (d) {
    case CF_DETECT_NONE: return "none";
    case CF_DETECT_PRIMITIVES: return "primitives";
    case CF_DETECT_ALL_PAIRS: return "all-pairs";
    }
    return "unknown";
}

const char *cf_solver_name(cfSolverKind s)
{
    switch (s) {
    case CF_SOLVER_NONE: return "none";
    case CF_SOLVER_PGS: return "pgs";
    case CF_SOLVER_PGS_BLOCKED: return "pgs-blocked";
    case CF_SOLVER_PGS_BOXED: return "pgs-boxed";
    case CF_SOLVER_PGS_SM: return "pgs-sm";
    case CF_SOLVER_NNCG: return "nncg";
    case CF_SOLVER_PGS_FAST: return "pgs-fast";
    case CF_SOLVER_COUNT: break;
    }
    return "unknown";
}

const char *cf_friction_model_name(cfFrictionModel m)
{
    switch (m) {
    case CF_FRICTION_CONE: return "cone";
    case CF_FRICTION_BOX: return "box";
    }
    return "unknown";
}

const char *cf_stabilization_name(cfStabilization s)
{
    switch (s) {
    case CF_STAB_SPLIT: return "split";
    case CF_STAB_BAUMGARTE: return "baumgarte";
    }
    return "unknown";
}

const char *cf_ordering_name(cfOrdering o)
{
    switch (o) {
    case CF_ORDER_SEQUENTIAL: return "sequential";
    case CF_ORDER_SYMMETRIC: return "symmetric";
    case CF_ORDER_RANDOM: return "random";
    }
    return "unknown";
}

cfWorldDef cf_world_def_default(void)
{
    cfWorldDef d;
    memset(&d, 0, sizeof d);
    d.gravity = cfu_vec3(0.0, 0.0, -9.81);
    d.dt = 1.0 / 60.0;
    d.rigid_integrator = CF_RIGID_SEMI_IMPLICIT;
    d.gyroscopic = true;
    d.soft_integrator = CF_SOFT_IMPLICIT;
    d.detector = CF_DETECT_NONE;
    d.solver = CF_SOLVER_NONE;
    d.solver_iterations = 20;
    d.solver_tolerance = 1e-8;
    d.friction_model = CF_FRICTION_CONE;
    d.warm_start = true;
    d.ordering = CF_ORDER_SEQUENTIAL;
    d.relaxation = 1.0;
    d.stabilization = CF_STAB_SPLIT;
    d.erp = 0.2;
    d.slop = 0.001;
    d.cfm = 0.0;
    d.seed = 1;
    return d;
}

static bool def_ok(const cfWorldDef *d)
{
    return isfinite(d->dt) && d->dt > 0.0 && cfu_vec3_finite(d->gravity) && d->solver_iterations >= 0 &&
           isfinite(d->contact_margin) && d->contact_margin >= 0.0 && d->solver >= CF_SOLVER_NONE &&
           d->solver < CF_SOLVER_COUNT && (d->friction_model == CF_FRICTION_CONE || d->friction_model == CF_FRICTION_BOX) &&
           d->ordering >= CF_ORDER_SEQUENTIAL && d->ordering <= CF_ORDER_RANDOM && d->relaxation > 0.0 &&
           d->relaxation < 2.0 && d->erp >= 0.0 && d->erp <= 1.0 &&
           (d->stabilization == CF_STAB_SPLIT || d->stabilization == CF_STAB_BAUMGARTE) && isfinite(d->cfm) && d->cfm >= 0.0 && isfinite(d->slop) && d->slop >= 0.0 &&
           isfinite(d->solver_tolerance) && d->solver_tolerance >= 0.0;
}

cfStatus cf_world_init(cfWorld *w, const cfWorldDef *def)
{
    memset(w, 0, sizeof *w);
    w->def = def ? *def : cf_world_def_default();
    return def_ok(&w->def) ? CF_OK : CF_BAD_INPUT;
}

void cf_world_free(cfWorld *w)
{
    for (int i = 0; i < w->n_soft; ++i) cf_soft_free(&w->soft[i]);
    free(w->soft);
    free(w->bodies);
    cf_contacts_free(&w->contacts);
    work_free(w->work);
    memset(w, 0, sizeof *w);
}

cfStatus cf_world_copy(cfWorld *dst, const cfWorld *src)
{
    *dst = *src;
    dst->bodies = NULL;
    dst->soft = NULL;
    dst->work = NULL;
    memset(&dst->contacts, 0, sizeof dst->contacts);
    dst->n_bodies = dst->cap_bodies = dst->n_soft = dst->cap_soft = 0;
    if (src->n_bodies) {
        dst->bodies = malloc((size_t)src->n_bodies * sizeof *dst->bodies);
        if (!dst->bodies) return CF_NO_MEMORY;
        memcpy(dst->bodies, src->bodies, (size_t)src->n_bodies * sizeof *dst->bodies);
        dst->n_bodies = dst->cap_bodies = src->n_bodies;
    }
    for (int i = 0; i < src->contacts.count; ++i)
        if (cf_contacts_push(&dst->contacts, &src->contacts.items[i]) != CF_OK) {
            cf_world_free(dst);
            return CF_NO_MEMORY;
        }
    if (src->n_soft) {
        dst->soft = calloc((size_t)src->n_soft, sizeof *dst->soft);
        if (!dst->soft) {
            cf_world_free(dst);
            return CF_NO_MEMORY;
        }
        dst->cap_soft = src->n_soft;
        for (int i = 0; i < src->n_soft; ++i) {
            if (cf_soft_copy(&dst->soft[i], &src->soft[i]) != CF_OK) {
                cf_world_free(dst);
                return CF_NO_MEMORY;
            }
            dst->n_soft = i + 1;
        }
    }
    return CF_OK;
}

int cf_world_add_body(cfWorld *w, const cfRigidBody *b)
{
    if (w->n_bodies == w->cap_bodies) {
        int nc = w->cap_bodies ? 2 * w->cap_bodies : 8;
        cfRigidBody *p = realloc(w->bodies, (size_t)nc * sizeof *p);
        if (!p) return -1;
        w->bodies = p;
        w->cap_bodies = nc;
    }
    w->bodies[w->n_bodies] = *b;
    cf_rigid_update_inertia(&w->bodies[w->n_bodies]);
    return w->n_bodies++;
}

int cf_world_add_soft(cfWorld *w, cfSoftBody *s)
{
    if (w->n_soft == w->cap_soft) {
        int nc = w->cap_soft ? 2 * w->cap_soft : 4;
        cfSoftBody *p = realloc(w->soft, (size_t)nc * sizeof *p);
        if (!p) return -1;
        w->soft = p;
        w->cap_soft = nc;
    }
    w->soft[w->n_soft] = *s;
    memset(s, 0, sizeof *s);
    return w->n_soft++;
}

/* ---- soft-body integrators provided by the library (the implicit ones are ch01.4-5) ---- */

static cfStatus soft_step_explicit(cfSoftBody *s, cfVec3 g, double h, bool symplectic)
{
    int n = s->n_nodes;
    double *f = malloc((size_t)3 * n * sizeof *f);
    if (!f) return CF_NO_MEMORY;
    cf_soft_forces(s, s->x, g, f);
    memcpy(s->x_prev, s->x, (size_t)n * sizeof *s->x);
    memcpy(s->v_prev, s->v, (size_t)n * sizeof *s->v);
    for (int i = 0; i < n; ++i) {
        if (s->fixed[i]) {
            s->v[i] = cfu_zero3();
            continue;
        }
        cfVec3 a = cfu_scale(1.0 / s->mass[i], cfu_vec3(f[3 * i], f[3 * i + 1], f[3 * i + 2]));
        /* Rayleigh mass damping only (explicit stiffness damping is rarely stable) */
        a = cfu_mul_add(a, -s->damping_alpha, s->v[i]);
        cfVec3 v_old = s->v[i];
        s->v[i] = cfu_mul_add(s->v[i], h, a);
        s->x[i] = cfu_mul_add(s->x[i], h, symplectic ? s->v[i] : v_old);
    }
    s->has_prev = true;
    free(f);
    return CF_OK;
}

static cfStatus soft_step(const cfWorld *w, cfSoftBody *s, cfReport *rep)
{
    double h = w->def.dt;
    switch (w->def.soft_integrator) {
    case CF_SOFT_IMPLICIT: return cf_soft_step_implicit(s, w->def.gravity, h, rep);
    case CF_SOFT_BDF2: return cf_soft_step_bdf2(s, w->def.gravity, h, rep);
    case CF_SOFT_SEMI_IMPLICIT: return soft_step_explicit(s, w->def.gravity, h, true);
    case CF_SOFT_EXPLICIT: return soft_step_explicit(s, w->def.gravity, h, false);
    }
    return CF_BAD_INPUT;
}

/* ---- the step ---- */

/* state saved before a step so that a failing stage leaves the world as it was */
typedef struct Saved {
    cfRigidBody *bodies;
    cfVec3 **arr[4]; /* per soft body: x, v, x_prev, v_prev */
    bool *has_prev;
} Saved;

static cfVec3 **soft_field(cfWorld *w, int field, int i)
{
    cfSoftBody *s = &w->soft[i];
    return field == 0 ? &s->x : field == 1 ? &s->v : field == 2 ? &s->x_prev : &s->v_prev;
}

static void saved_free(Saved *sv, int n_soft)
{
    for (int f = 0; f < 4; ++f) {
        if (sv->arr[f])
            for (int i = 0; i < n_soft; ++i) free(sv->arr[f][i]);
        free(sv->arr[f]);
    }
    free(sv->has_prev);
    free(sv->bodies);
}

static cfStatus save(cfWorld *w, Saved *sv)
{
    memset(sv, 0, sizeof *sv);
    if (w->n_bodies) {
        sv->bodies = malloc((size_t)w->n_bodies * sizeof *sv->bodies);
        if (!sv->bodies) return CF_NO_MEMORY;
        memcpy(sv->bodies, w->bodies, (size_t)w->n_bodies * sizeof *sv->bodies);
    }
    if (w->n_soft == 0) return CF_OK;
    sv->has_prev = malloc((size_t)w->n_soft * sizeof *sv->has_prev);
    if (!sv->has_prev) return CF_NO_MEMORY;
    for (int f = 0; f < 4; ++f) {
        sv->arr[f] = calloc((size_t)w->n_soft, sizeof *sv->arr[f]);
        if (!sv->arr[f]) return CF_NO_MEMORY;
        for (int i = 0; i < w->n_soft; ++i) {
            size_t bytes = (size_t)w->soft[i].n_nodes * sizeof(cfVec3);
            sv->arr[f][i] = malloc(bytes);
            if (!sv->arr[f][i]) return CF_NO_MEMORY;
            memcpy(sv->arr[f][i], *soft_field(w, f, i), bytes);
        }
    }
    for (int i = 0; i < w->n_soft; ++i) sv->has_prev[i] = w->soft[i].has_prev;
    return CF_OK;
}

static void restore(cfWorld *w, const Saved *sv)
{
    if (w->n_bodies) memcpy(w->bodies, sv->bodies, (size_t)w->n_bodies * sizeof *w->bodies);
    for (int i = 0; i < w->n_soft; ++i) {
        size_t bytes = (size_t)w->soft[i].n_nodes * sizeof(cfVec3);
        for (int f = 0; f < 4; ++f) memcpy(*soft_field(w, f, i), sv->arr[f][i], bytes);
        w->soft[i].has_prev = sv->has_prev[i];
    }
}

/* the stats of the step's last solve: iterations, final residual and the history the solver
   wrote into stats->solver_history (passed to cf_report_init) */
static void record_solve(cfStepStats *stats, const cfReport *rep)
{
    stats->solver_iterations = rep->iterations;
    stats->solver_residual = rep->residual;
    stats->solver_history_len = rep->history_len;
}

static cfStatus stage_velocities(cfWorld *w)
{
    const cfWorldDef *d = &w->def;
    for (int i = 0; i < w->n_bodies; ++i) {
        cfRigidBody *b = &w->bodies[i];
        /* explicit Euler moves with the old velocity first: same two updates, other order */
        if (d->rigid_integrator == CF_RIGID_EXPLICIT) {
            cfStatus st = cf_rigid_integrate_position(b, d->dt);
            if (st != CF_OK) return st;
        }
        cfStatus st = cf_rigid_integrate_velocity(b, d->gravity, d->dt, d->gyroscopic);
        if (st != CF_OK) return st;
    }
    for (int i = 0; i < w->n_soft; ++i) {
        cfReport rep;
        cf_report_init(&rep, w->stats.solver_history, CF_STATS_HISTORY);
        cfStatus st = soft_step(w, &w->soft[i], &rep);
        record_solve(&w->stats, &rep);
        if (st != CF_OK) return st;
    }
    return CF_OK;
}

static cfStatus stage_positions(cfWorld *w)
{
    if (w->def.rigid_integrator == CF_RIGID_EXPLICIT) return CF_OK; /* done before the velocities */
    for (int i = 0; i < w->n_bodies; ++i) {
        cfStatus st = cf_rigid_integrate_position(&w->bodies[i], w->def.dt);
        if (st != CF_OK) return st;
    }
    return CF_OK;
}

/* Warm starting by proximity, for contacts that found no previous contact with their feature id:
   box manifolds change their clipping features whenever a resting box wobbles by a hair, and a
   stack that loses its impulses every few steps jitters. Take the impulse of the closest previous
   contact of the same body pair within CF_WARM_RADIUS. Both lists come in pair order. */
#define CF_WARM_RADIUS 0.05

static int pair_cmp(const cfContact *a, const cfContact *b)
{
    if (a->body_a != b->body_a) return a->body_a < b->body_a ? -1 : 1;
    if (a->body_b != b->body_b) return a->body_b < b->body_b ? -1 : 1;
    return 0;
}

static void carry_by_proximity(cfContactList *now, const cfContactList *prev)
{
    int j = 0;
    for (int i = 0; i < now->count; ++i) {
        cfContact *c = &now->items[i];
        while (j < prev->count && pair_cmp(&prev->items[j], c) < 0) ++j;
        if (c->lambda[0] != 0.0 || c->lambda[1] != 0.0 || c->lambda[2] != 0.0) continue;
        double best = CF_WARM_RADIUS * CF_WARM_RADIUS;
        const cfContact *pick = NULL;
        for (int k = j; k < prev->count && pair_cmp(&prev->items[k], c) == 0; ++k) {
            cfVec3 d = cfu_sub(prev->items[k].p, c->p);
            double d2 = cfu_dot(d, d);
            if (d2 < best && cfu_dot(prev->items[k].n, c->n) > 0.99) {
                best = d2;
                pick = &prev->items[k];
            }
        }
        if (pick)
            for (int r = 0; r < 3; ++r) c->lambda[r] = pick->lambda[r];
    }
}

/* contacts of this step; impulses of persisting contacts (same bodies and feature) are carried
   over from the previous step for warm starting, then by proximity (above) */
static cfStatus stage_detect(cfWorld *w)
{
    if (w->def.detector == CF_DETECT_NONE) {
        cf_contacts_clear(&w->contacts);
        return CF_OK;
    }
    cfDetectOptions opt = cf_detect_options_default();
    opt.margin = w->def.contact_margin;
    opt.broadphase = w->def.detector == CF_DETECT_ALL_PAIRS ? CF_BROADPHASE_ALL_PAIRS : CF_BROADPHASE_SAP;
    cfContactList prev = w->contacts;
    memset(&w->contacts, 0, sizeof w->contacts);
    cfStatus st = cf_detect_world(w, &opt, &w->contacts, NULL);
    if (st == CF_OK && prev.count > 0 && cf_contacts_carry_impulses(&w->contacts, &prev) < 0) st = CF_NO_MEMORY;
    if (st == CF_OK && prev.count > 0 && w->def.solver != CF_SOLVER_NONE) {
        carry_by_proximity(&w->contacts, &prev);
    }
    if (st == CF_OK) {
        cf_contacts_free(&prev);
    } else {
        cf_contacts_free(&w->contacts);
        w->contacts = prev; /* nothing is lost on failure */
    }
    w->stats.n_contacts = w->contacts.count;
    return st;
}

/* contact frames (ch02.2) of this step's contacts; only when a solver will use them */
static cfStatus stage_contacts(cfWorld *w)
{
    if (w->def.solver == CF_SOLVER_NONE) return CF_OK;
    for (int a = 0; a < w->contacts.count; ++a) {
        cfContact *c = &w->contacts.items[a];
        cfStatus st = cf_contact_frame(c->n, &c->t, &c->b);
        if (st != CF_OK) return st;
        if (!w->def.warm_start) c->lambda[0] = c->lambda[1] = c->lambda[2] = 0.0;
    }
    return CF_OK;
}

static cfRigidPgsOptions rigid_options(const cfWorldDef *d)
{
    cfRigidPgsOptions o = cf_rigid_pgs_options_default();
    o.h = d->dt;
    o.max_iter = d->solver_iterations;
    o.tol = 0.0; /* a fixed sweep budget, as in real-time engines */
    o.erp = d->stabilization == CF_STAB_SPLIT ? 0.0 : d->erp; /* split: positions are fixed later */
    o.cfm = d->cfm;
    o.omega = d->relaxation;
    o.warm_start = d->warm_start;
    o.friction = d->friction_model;
    o.ordering = d->ordering;
    o.seed = d->seed;
    return o;
}

static cfSplitOptions split_options(const cfWorldDef *d)
{
    cfSplitOptions o = cf_split_options_default();
    o.max_iter = d->solver_iterations;
    o.tol_abs = d->solver_tolerance;
    o.omega = d->relaxation;
    o.ordering = d->ordering;
    o.seed = d->seed;
    o.friction = d->friction_model;
    o.inner = 5; /* PGS-SM: five PGS sweeps guess the active set */
    return o;
}

/* the solver's data: per-contact rows (matrix-free PGS) or the assembled problem with the same
   bias (gap/h when open, erp gap/h when penetrating) and CFM as the matrix-free rows */
static cfStatus stage_assemble(cfWorld *w)
{
    const cfWorldDef *d = &w->def;
    int nc = w->contacts.count;
    if (d->solver == CF_SOLVER_NONE || nc == 0) return CF_OK;
    if (!w->work) {
        w->work = calloc(1, sizeof *w->work);
        if (!w->work) return CF_NO_MEMORY;
    }
    struct cfSolverWork *k = w->work;
    work_release(k);
    if (d->solver == CF_SOLVER_PGS) {
        cfRigidPgsOptions o = rigid_options(d);
        return cf_rigid_pgs_prepare(w->bodies, w->n_bodies, w->contacts.items, nc, &o, &k->pgs);
    }
    if (d->solver == CF_SOLVER_PGS_FAST) {
        cfRigidPgsOptions o = rigid_options(d);
        return cf_rigid_fast_prepare(w->bodies, w->n_bodies, w->contacts.items, nc, &o, &k->fast);
    }
    if (3 * nc > k->cap_x) {
        double *x = realloc(k->x, (size_t)3 * nc * sizeof *x);
        if (!x) return CF_NO_MEMORY;
        k->x = x;
        k->cap_x = 3 * nc;
    }
    cfStatus st = cf_friction_problem_rigid(w->bodies, w->n_bodies, w->contacts.items, nc, &k->fc);
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        const cfContact *c = &w->contacts.items[a];
        k->fc.q[3 * a] += (c->phi >= 0.0 ? c->phi : d->erp * c->phi) / d->dt;
        for (int e = k->fc.W.rowptr[a]; e < k->fc.W.rowptr[a + 1]; ++e)
            if (k->fc.W.colidx[e] == a) k->fc.W.val[9 * e] += d->cfm;
        for (int i = 0; i < 3; ++i) k->x[3 * a + i] = c->lambda[i]; /* zero unless warm starting */
    }
    if (st == CF_OK && d->solver != CF_SOLVER_PGS_BLOCKED) st = cf_friction_boxed_lcp(&k->fc, &k->blcp);
    return st;
}

static cfStatus stage_solve(cfWorld *w)
{
    const cfWorldDef *d = &w->def;
    int nc = w->contacts.count;
    if (d->solver == CF_SOLVER_NONE || nc == 0) return CF_OK;
    struct cfSolverWork *k = w->work;
    cfReport rep;
    cf_report_init(&rep, w->stats.solver_history, CF_STATS_HISTORY);
    cfStatus st;
    if (d->solver == CF_SOLVER_PGS) {
        cfRigidPgsOptions o = rigid_options(d);
        st = cf_rigid_pgs_solve(w->bodies, w->n_bodies, w->contacts.items, nc, &k->pgs, &o, &rep);
    } else if (d->solver == CF_SOLVER_PGS_FAST) {
        cfRigidPgsOptions o = rigid_options(d);
        st = cf_rigid_fast_solve(w->bodies, w->n_bodies, w->contacts.items, nc, &k->fast, &o, &rep);
    } else {
        cfSplitOptions o = split_options(d);
        switch (d->solver) {
        case CF_SOLVER_PGS_BLOCKED: st = cf_fc_bgs(&k->fc, &o, k->x, &rep); break;
        case CF_SOLVER_PGS_BOXED: st = cf_blcp_pgs(&k->blcp, &o, k->x, &rep); break;
        case CF_SOLVER_PGS_SM: st = cf_blcp_pgs_sm(&k->blcp, &o, k->x, &rep); break;
        case CF_SOLVER_NNCG: st = cf_blcp_nncg(&k->blcp, &o, k->x, &rep, NULL); break;
        default: st = CF_BAD_INPUT; break;
        }
        /* a used-up budget or stagnation still gives usable impulses */
        if (st == CF_MAX_ITER || st == CF_STAGNATED) st = CF_OK;
        if (st == CF_OK) st = cf_rigid_apply_impulses(w->bodies, w->n_bodies, w->contacts.items, nc, k->x);
        if (st == CF_OK)
            for (int a = 0; a < nc; ++a)
                for (int i = 0; i < 3; ++i) w->contacts.items[a].lambda[i] = k->x[3 * a + i];
    }
    record_solve(&w->stats, &rep);
    return st;
}

/* the split-impulse stage of CF_SOLVER_PGS_FAST: the same pseudo-velocities from the fast rows
   (in their order), then the same position update as stage_stabilize() */
static cfStatus stabilize_fast(cfWorld *w)
{
    const cfWorldDef *d = &w->def;
    cfRigidFast *ws = &w->work->fast;
    int sweeps = d->solver_iterations > 4 ? d->solver_iterations : 4;
    cfStatus st = cf_rigid_fast_pseudo_velocities(w->contacts.items, ws, d->dt, d->erp, d->slop, sweeps);
    for (int i = 0; i < w->n_bodies && st == CF_OK; ++i) {
        cfRigidBody *b = &w->bodies[i];
        const double *p = &ws->pv[6 * i];
        if (b->fixed || (p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0 && p[3] == 0.0 && p[4] == 0.0 && p[5] == 0.0)) continue;
        cfVec3 v = b->v, om = b->w;
        b->v = cfu_vec3(p[0], p[1], p[2]);
        b->w = cfu_vec3(p[3], p[4], p[5]);
        st = cf_rigid_integrate_position(b, d->dt);
        b->v = v;
        b->w = om;
    }
    return st;
}

/* Split impulse (pseudo-velocities): after the positions moved, the predicted gap of each contact
   is phi + h u_n. A normal-only projected Gauss-Seidel on the rows of the velocity solve finds
   pseudo-velocities that remove the fraction erp of the remaining penetration; they move the
   positions and are then forgotten, so no velocity (and no energy) is added. */
static cfStatus stage_stabilize(cfWorld *w)
{
    const cfWorldDef *d = &w->def;
    int nc = w->contacts.count, nb = w->n_bodies;
    if (d->solver == CF_SOLVER_PGS_FAST && d->stabilization == CF_STAB_SPLIT && nc > 0 && d->erp != 0.0)
        return stabilize_fast(w);
    if (d->solver != CF_SOLVER_PGS || d->stabilization != CF_STAB_SPLIT || nc == 0 || d->erp == 0.0) return CF_OK;
    cfRigidPgs *ws = &w->work->pgs;
    cfVec3 *pv = calloc((size_t)2 * nb, sizeof *pv);
    double *lam = calloc((size_t)nc, sizeof *lam), *bias = malloc((size_t)nc * sizeof *bias);
    if (!pv || !lam || !bias) {
        free(pv);
        free(lam);
        free(bias);
        return CF_NO_MEMORY;
    }
    static const cfVec3 zero = {0.0, 0.0, 0.0};
    bool active = false;
    for (int a = 0; a < nc; ++a) {
        const cfRigidRow *r = &ws->rows[a];
        cfVec3 va = r->ia >= 0 ? w->bodies[r->ia].v : zero, wa = r->ia >= 0 ? w->bodies[r->ia].w : zero;
        cfVec3 vb = r->ib >= 0 ? w->bodies[r->ib].v : zero, wb = r->ib >= 0 ? w->bodies[r->ib].w : zero;
        double un = cfu_dot(r->dir[0], cfu_sub(vb, va)) + cfu_dot(r->ang_b[0], wb) - cfu_dot(r->ang_a[0], wa);
        double phi = w->contacts.items[a].phi + d->dt * un;
        bias[a] = d->erp * fmin(phi + d->slop, 0.0) / d->dt;
        active |= bias[a] != 0.0;
    }
    /* nothing penetrates beyond the slop: every sweep would leave all impulses at zero */
    int sweeps = !active ? 0 : d->solver_iterations > 4 ? d->solver_iterations : 4;
    for (int k = 0; k < sweeps; ++k)
        for (int a = 0; a < nc; ++a) {
            const cfRigidRow *r = &ws->rows[a];
            cfVec3 *va = r->ia >= 0 ? &pv[2 * r->ia] : NULL, *vb = r->ib >= 0 ? &pv[2 * r->ib] : NULL;
            double un = bias[a];
            if (va) un -= cfu_dot(r->dir[0], va[0]) + cfu_dot(r->ang_a[0], va[1]);
            if (vb) un += cfu_dot(r->dir[0], vb[0]) + cfu_dot(r->ang_b[0], vb[1]);
            double l = fmax(0.0, lam[a] - un / r->W[0]), dl = l - lam[a];
            lam[a] = l;
            if (va) {
                va[0] = cfu_mul_add(va[0], -dl * r->inv_mass_a, r->dir[0]);
                va[1] = cfu_mul_add(va[1], -dl, r->iang_a[0]);
            }
            if (vb) {
                vb[0] = cfu_mul_add(vb[0], dl * r->inv_mass_b, r->dir[0]);
                vb[1] = cfu_mul_add(vb[1], dl, r->iang_b[0]);
            }
        }
    cfStatus st = CF_OK;
    for (int i = 0; i < nb && st == CF_OK; ++i) {
        cfRigidBody *b = &w->bodies[i];
        if (b->fixed || (cfu_dot(pv[2 * i], pv[2 * i]) == 0.0 && cfu_dot(pv[2 * i + 1], pv[2 * i + 1]) == 0.0)) continue;
        cfVec3 v = b->v, om = b->w;
        b->v = pv[2 * i];
        b->w = pv[2 * i + 1];
        st = cf_rigid_integrate_position(b, d->dt);
        b->v = v;
        b->w = om;
    }
    free(pv);
    free(lam);
    free(bias);
    return st;
}

static cfStatus run_stage(cfWorld *w, cfStage s)
{
    switch (s) {
    case CF_STAGE_DETECT: return stage_detect(w);
    case CF_STAGE_CONTACTS: return stage_contacts(w);
    case CF_STAGE_ASSEMBLE: return stage_assemble(w);
    case CF_STAGE_SOLVE: return stage_solve(w);
    case CF_STAGE_STABILIZE: return stage_stabilize(w);
    case CF_STAGE_VELOCITIES: return stage_velocities(w);
    case CF_STAGE_POSITIONS: return stage_positions(w);
    case CF_STAGE_COUNT: break;
    }
    return CF_BAD_INPUT;
}

cfStatus cf_world_step(cfWorld *w)
{
    if (!def_ok(&w->def)) return CF_BAD_INPUT;
    Saved sv;
    cfStatus st = save(w, &sv);
    if (st != CF_OK) {
        saved_free(&sv, w->n_soft);
        return st;
    }
    memset(&w->stats, 0, sizeof w->stats);
    for (int s = 0; s < CF_STAGE_COUNT && st == CF_OK; ++s) {
        double t0 = cf_seconds();
        st = run_stage(w, (cfStage)s);
        w->stats.stage_seconds[s] = cf_seconds() - t0;
    }
    if (st == CF_OK) {
        w->time += w->def.dt;
        w->step += 1;
    } else {
        restore(w, &sv);
    }
    saved_free(&sv, w->n_soft);
    return st;
}

double cf_world_energy(const cfWorld *w)
{
    double E = 0.0;
    cfVec3 g = w->def.gravity;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (b->fixed) continue;
        E += cf_rigid_kinetic_energy(b) - b->mass * cfu_dot(g, b->x);
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        E += cf_soft_kinetic_energy(s) + cf_soft_elastic_energy(s, s->x);
        for (int k = 0; k < s->n_nodes; ++k) E -= s->mass[k] * cfu_dot(g, s->x[k]);
    }
    return E;
}

cfVec3 cf_world_linear_momentum(const cfWorld *w)
{
    cfVec3 p = cfu_zero3();
    for (int i = 0; i < w->n_bodies; ++i) p = cfu_add(p, cf_rigid_linear_momentum(&w->bodies[i]));
    for (int i = 0; i < w->n_soft; ++i) {
        cfVec3 ps;
        cf_soft_com(&w->soft[i], NULL, &ps);
        p = cfu_add(p, ps);
    }
    return p;
}

cfVec3 cf_world_angular_momentum(const cfWorld *w)
{
    cfVec3 L = cfu_zero3();
    for (int i = 0; i < w->n_bodies; ++i) L = cfu_add(L, cf_rigid_angular_momentum(&w->bodies[i]));
    return L;
}
