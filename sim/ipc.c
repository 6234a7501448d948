/* SPDX-License-Identifier: MIT */
/* The ipc pipeline (cfWorldDef::pipeline = CF_PIPELINE_IPC): a step of the world is one step of
   chapter 9's Incremental Potential Contact. Three stages: gather (the world's soft bodies, moving
   rigid boxes and static geometry become one cfIpcSystem), minimize (cf_ipc_step(): the inertial
   target, the friction lag, projected Newton with the CCD line search; with moving boxes the same
   over their affine unknowns, cf_ipc_affine_step()) and scatter (positions, velocities, the boxes'
   poses and the step's measurements back to the world). Also the world as one system for the
   certificate (ipc_certify.c) and the drawing of the pairs within dhat. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch09.h"
#include "cf/cf_ipc_affine.h"
#include "internal.h"

/* ---- the sparse path ------------------------------------------------------------------------------ */

/* Chapter 9's step at scale (solutions/ch09/fast/cf_ipc_sparse.h: the broad phase, the sparse
   projected Newton), linked with the reference solutions; without it (a handout) these weak
   references stay null and the pipeline runs chapter 9's own dense step and all-pairs distance. */
extern cfStatus cf_ipc_step_sparse(cfIpcSystem *s, const cfIpcOptions *opt, cfIpcStats *stats) __attribute__((weak));
extern cfStatus cf_ipc_min_distance_sparse(const cfIpcSystem *s, const double *q, double *d, int *active)
    __attribute__((weak));
extern cfStatus cf_ipc_broad_phase(const cfIpcSystem *s, const double *q, const double *dq, double r, cfIpcPairList *out)
    __attribute__((weak));
extern void cf_ipc_pair_list_free(cfIpcPairList *l) __attribute__((weak));

/* IPC's adaptive kappa (cf_ipc_sparse.h's cfIpcKappaRule, cf_ipc_step_sparse_adaptive()): the same
   layout, declared here since sim/ cannot include the reference's header */
typedef struct KappaRule {
    double kappa_min, kappa_max, d_thresh;
} KappaRule;
typedef struct KappaStats {
    double kappa0, kappa;
    int doublings;
} KappaStats;
extern cfStatus cf_ipc_step_sparse_adaptive(cfIpcSystem *s, const cfIpcOptions *opt, const KappaRule *rule,
                                            cfIpcStats *stats, KappaStats *ks) __attribute__((weak));

static bool cf_world_ipc_sparse(void) { return cf_ipc_step_sparse && cf_ipc_min_distance_sparse && cf_ipc_broad_phase && cf_ipc_pair_list_free; }

bool cf_world_ipc_sparse_linked(void) { return cf_world_ipc_sparse() && cf_ipc_step_sparse_adaptive; }

/* the smallest pair distance of s at its q: by the broad phase when linked */
static double min_distance(const cfIpcSystem *s)
{
    double d;
    if (cf_world_ipc_sparse()) return cf_ipc_min_distance_sparse(s, s->q, &d, NULL) == CF_OK ? d : NAN;
    return cf_ipc_min_distance(s, s->q, NULL);
}

/* ---- which worlds the pipeline takes ------------------------------------------------------------ */

cfStatus cf_world_same_mu(cfOneMu *one, const char *kind, int i, const char *name, double mu, cfError *err)
{
    if (!one->of) {
        one->mu = mu;
        one->of = name;
        return CF_OK;
    }
    if (mu == one->mu) return CF_OK;
    return cf_error_set(err, CF_BAD_INPUT, "%s[%d] '%s': mu: the %s pipeline has one friction coefficient "
                        "(chapter 9's system) and this body's %g differs from %g of '%s'", kind, i, name, one->pipeline,
                        mu, one->mu, one->of);
}

cfStatus cf_world_spring_soft_check(const cfWorld *w, cfOneMu *one, const char *thickness_why, cfError *err)
{
    const char *pipeline = one->pipeline;
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        const char *why = s->n_tets > 0 && !one->tets ? "tetrahedra: the %s pipeline's soft bodies have springs only; "
                                                        "use a spring_box, cloth, chain or particle"
                          : s->n_tets > 0 && s->corotational
                              ? "corotational: the %s pipeline's tetrahedra are stable Neo-Hookean (sim/ipc_tets.c), "
                                "invariant under rotation without it; remove the key"
                          : s->damping_alpha > 0.0 || s->damping_beta > 0.0 ? "damping: the %s pipeline has no Rayleigh damping"
                          : s->thickness > 0.0 ? "thickness: the %s pipeline %s"
                          : s->consistent_mass ? "consistent_mass: the %s pipeline uses lumped masses"
                                               : NULL;
        if (why) {
            char msg[256];
            snprintf(msg, sizeof msg, why, pipeline, thickness_why);
            return cf_error_set(err, CF_BAD_INPUT, "soft_bodies[%d] '%s': %s", i, s->name, msg);
        }
        cfStatus st = cf_world_same_mu(one, "soft_bodies", i, s->name, s->mu, err);
        if (st != CF_OK) return st;
    }
    if (w->n_pairs > 0)
        return cf_error_set(err, CF_BAD_INPUT, "friction[0]: the %s pipeline takes no material pairs (one mu for every "
                            "contact: give the bodies the same mu)", pipeline);
    return CF_OK;
}

/* the solid box's inertia, which the nine nodes of a moving box carry (gather()) */
static bool solid_box_inertia(const cfRigidBody *b)
{
    cfVec3 I = cf_shape_inertia(&b->shape, b->mass);
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) {
            double want = a == c ? cfu_vec3_at(I, a) : 0.0;
            if (fabs(b->inertia_body.m[a][c] - want) > 1e-9 * cfu_vec3_at(I, a)) return false;
        }
    return true;
}

cfStatus cf_world_ipc_check(const cfWorld *w, cfError *err)
{
    cfOneMu one = {.pipeline = "ipc", .tets = true}; /* stable Neo-Hookean elements (sim/ipc_tets.c) */
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        const char *why = b->fixed ? (b->shape.type != CF_SHAPE_BOX && b->shape.type != CF_SHAPE_PLANE &&
                                              b->shape.type != CF_SHAPE_SPHERE
                                          ? "static geometry under ipc is a box, a plane or a sphere"
                                          : NULL)
                          : b->shape.type != CF_SHAPE_BOX ? "a moving rigid body under ipc is a box (its 8 corners, 12 "
                                                            "triangles and 18 edges; chapter 9 has no smooth surfaces)"
                          : !solid_box_inertia(b) ? "inertia: a moving box under ipc has the solid box's inertia (its "
                                                    "nine nodes carry that second moment); remove the inertia key"
                          : cfu_norm(b->force) > 0.0 || cfu_norm(b->torque) > 0.0
                              ? "force/torque: the ipc pipeline's potential has gravity only"
                              : NULL;
        if (why)
            return cf_error_set(err, CF_BAD_INPUT, "bodies[%d] '%s': %s (got a %s)", i, b->name, why,
                                cf_shape_name(b->shape.type));
        cfStatus st = cf_world_same_mu(&one, "bodies", i, b->name, b->mu, err);
        if (st != CF_OK) return st;
        if (!b->fixed && w->def.ipc.adaptive_kappa)
            return cf_error_set(err, CF_BAD_INPUT, "bodies[%d] '%s': ipc.adaptive_kappa: the moving boxes' affine step "
                                "keeps kappa fixed (adaptive kappa is for soft bodies and static geometry)", i, b->name);
    }
    /* chapter 9's dense step assembles and factors a 3n x 3n Hessian: past CF_IPC_DENSE_MAX_FREE
       free nodes (a 160 MB matrix, minutes a step) only the sparse path takes the world */
    int n_free = 0;
    for (int i = 0; i < w->n_soft; ++i) n_free += w->soft[i].n_nodes;
    for (int i = 0; i < w->n_bodies; ++i) n_free += w->bodies[i].fixed ? 0 : 9;
    if (n_free > CF_IPC_DENSE_MAX_FREE && !cf_world_ipc_sparse())
        return cf_error_set(err, CF_BAD_INPUT, "ipc: %d free nodes: chapter 9's dense step takes at most %d (a 3n x 3n "
                            "Hessian); more need the sparse path (the reference solutions' solutions/ch09/fast/), which "
                            "this build does not link", n_free, CF_IPC_DENSE_MAX_FREE);
    if (w->def.ipc.adaptive_kappa && !(cf_world_ipc_sparse() && cf_ipc_step_sparse_adaptive))
        return cf_error_set(err, CF_BAD_INPUT, "ipc.adaptive_kappa: needs chapter 9's sparse path (the reference "
                            "solutions' solutions/ch09/fast/), which this build does not link");
    return cf_world_spring_soft_check(w, &one, "keeps surfaces dhat apart, not a thickness", err);
}

/* ---- stage 1, gather: the world as one IPC system ------------------------------------------------ */

/* where the world's bodies are in the system: soft body i's nodes from soft[i], moving rigid body
   i's nine nodes (8 corners, then the centre) from body[i] (-1 for a fixed body) */
typedef struct Map {
    int *soft;
    int *body;
    int n_moving;
} Map;

static cfStatus map_alloc(const cfWorld *w, Map *m)
{
    m->soft = malloc((size_t)(w->n_soft + w->n_bodies + 1) * sizeof *m->soft);
    m->body = m->soft ? m->soft + w->n_soft : NULL;
    m->n_moving = 0;
    return m->soft ? CF_OK : CF_NO_MEMORY;
}

/* the derived defaults of dhat and kappa (cfIpcSettings): the size D = the larger of the diagonal
   of the soft bodies' rest bounding box and of the largest moving box, and kappa |b'(dhat/2)| =
   m_max g with |b'(dhat/2)| = (ln 2 + 1/2) dhat (ch09.2's b' at d = dhat/2), m_max the heaviest
   free soft node or a quarter of the heaviest moving box (resting on four corners) */
static void ipc_parameters(const cfWorld *w, double *dhat, double *kappa, cfVec3 *center, double *diag)
{
    cfVec3 lo = cfu_vec3(INFINITY, INFINITY, INFINITY), hi = cfu_scale(-1.0, lo);
    double m_max = 0.0, box = 0.0;
    for (int i = 0; i < w->n_soft; ++i)
        for (int k = 0; k < w->soft[i].n_nodes; ++k) {
            cfVec3 x = w->soft[i].x_rest[k];
            lo = cfu_vec3(fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z));
            hi = cfu_vec3(fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z));
            if (!w->soft[i].fixed[k]) m_max = fmax(m_max, w->soft[i].mass[k]);
        }
    for (int i = 0; i < w->n_bodies; ++i)
        if (!w->bodies[i].fixed) {
            box = fmax(box, 2.0 * cfu_norm(w->bodies[i].shape.half_extents));
            m_max = fmax(m_max, 0.25 * w->bodies[i].mass);
        }
    bool any = lo.x <= hi.x;
    *diag = fmax(any ? cfu_norm(cfu_sub(hi, lo)) : 0.0, box);
    *center = any ? cfu_scale(0.5, cfu_add(lo, hi)) : cfu_zero3();
    *dhat = w->def.ipc.dhat > 0.0 ? w->def.ipc.dhat : *diag > 0.0 ? 1e-3 * *diag : 1e-3;
    double g = cfu_norm(w->def.gravity);
    if (!(g > 0.0)) g = 9.81;
    *kappa = w->def.ipc.kappa > 0.0 ? w->def.ipc.kappa : m_max > 0.0 ? m_max * g / ((log(2.0) + 0.5) * *dhat) : 1.0;
}

/* Where a plane's slab goes this step: around everything that moves (soft nodes where they are now,
   moving boxes by their bounding spheres), grown by how far the fastest of it can go in a step
   (|v| h), so that every node that can reach the plane in this step's barrier or CCD is over the
   slab's top face and sees the plane's distance: a plane is unbounded. The slab is made anew each
   step, so it follows what slides on it (a face fixed around the rest positions ended 1.5 m away). */
static void plane_footprint(const cfWorld *w, cfVec3 *center, double *size)
{
    cfVec3 lo = cfu_vec3(INFINITY, INFINITY, INFINITY), hi = cfu_scale(-1.0, lo);
    double vmax = 0.0;
    for (int i = 0; i < w->n_soft; ++i)
        for (int k = 0; k < w->soft[i].n_nodes; ++k) {
            cfVec3 x = w->soft[i].x[k];
            lo = cfu_vec3(fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z));
            hi = cfu_vec3(fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z));
            if (!w->soft[i].fixed[k]) vmax = fmax(vmax, cfu_norm(w->soft[i].v[k]));
        }
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (b->fixed) continue;
        double r = cfu_norm(b->shape.half_extents);
        lo = cfu_vec3(fmin(lo.x, b->x.x - r), fmin(lo.y, b->x.y - r), fmin(lo.z, b->x.z - r));
        hi = cfu_vec3(fmax(hi.x, b->x.x + r), fmax(hi.y, b->x.y + r), fmax(hi.z, b->x.z + r));
        vmax = fmax(vmax, cfu_norm(b->v) + r * cfu_norm(b->w));
    }
    bool any = lo.x <= hi.x;
    *center = any ? cfu_scale(0.5, cfu_add(lo, hi)) : cfu_zero3();
    *size = (any ? cfu_norm(cfu_sub(hi, lo)) : 0.0) + 2.0 * vmax * w->def.dt;
}

/* a box [lo, hi] of the frame (origin, columns R): fixed, or free with the nine nodes of a moving
   rigid box of mass m (8 corners of m/24 and the centre of 2m/3: the solid box's mass, centre and
   second moment m/3 diag(he^2)); q_rest keeps the body-frame positions X */
static int add_box(cfIpcSystem *s, cfVec3 origin, cfMat3 R, cfVec3 lo, cfVec3 hi, double m, bool fixed)
{
    int first = cf_ipc_add_box(s, lo, hi, 1.0, 0.0, fixed);
    if (first < 0 || (!fixed && cf_ipc_add_node(s, cfu_scale(0.5, cfu_add(lo, hi)), 2.0 * m / 3.0, false) < 0))
        return -1;
    for (int i = first; i < s->n; ++i) {
        cfVec3 x = cfu_add(origin, cfu_mat3_mul_vec(R, cf_ipc_node(s->q_rest, i)));
        if (!fixed) s->mass[i] = i < first + 8 ? m / 24.0 : 2.0 * m / 3.0;
        for (int a = 0; a < 3; ++a) {
            s->q[3 * i + a] = s->q_start[3 * i + a] = s->q_tilde[3 * i + a] = cfu_vec3_at(x, a);
            if (fixed) s->q_rest[3 * i + a] = cfu_vec3_at(x, a);
        }
    }
    return first;
}

/* The system of the world: static geometry first (a box as its 8 corners and 12 triangles, a
   sphere as its inscribed icosphere (cf_world_ipc_add_sphere()), a
   plane as the top face of a slab of half size L = max(10 D, 1 m) and depth L/10 whose centre
   is moved by (L/2)(t1 + t2) from the centre of what moves (plane_footprint(): D its size this
   step, with the way it can go in a step), so that the plane is unbounded for everything that can
   reach it and the diagonal of the face, where a point within dhat of both triangles is pushed
   twice (chapter 9's pitfall), passes L/sqrt 2 away from it), then each moving rigid box (add_box(),
   at its pose, node velocities v + w x (x - c)), then each soft body: its nodes (added at rest:
   the edge-edge mollifier's rest lengths), triangles (a body with tetrahedra: the tetrahedra as
   elements and their boundary faces, cf_world_ipc_add_tets()), edges (its triangles', or its
   springs' when it has no triangles), springs with their own rest lengths, then the state x, v. */
static cfStatus gather(const cfWorld *w, cfIpcSystem *s, Map *m)
{
    //> ch09:world-gather
    double dhat, kappa, diag, size;
    cfVec3 center;
    ipc_parameters(w, &dhat, &kappa, &center, &diag);
    plane_footprint(w, &center, &size);
    cfStatus st = cf_ipc_init(s, w->def.dt, dhat, kappa);
    if (st != CF_OK) return st;
    s->gravity = w->def.gravity;
    s->eps_v = w->def.ipc.eps_v;
    s->mu = w->n_bodies > 0 ? w->bodies[0].mu : w->n_soft > 0 ? w->soft[0].mu : 0.0; /* all agree (cf_world_ipc_check()) */
    for (int i = 0; i < w->n_bodies && st == CF_OK; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        m->body[i] = -1;
        if (!b->fixed) continue;
        if (b->shape.type == CF_SHAPE_BOX) {
            cfVec3 he = b->shape.half_extents;
            if (add_box(s, b->x, cfu_quat_to_mat3(b->q), cfu_scale(-1.0, he), he, 0.0, true) < 0) st = CF_NO_MEMORY;
        } else if (b->shape.type == CF_SHAPE_SPHERE) { /* its icosphere (ipc_shapes.c) */
            if (cf_world_ipc_add_sphere(s, b->x, b->shape.radius, dhat, NULL) < 0) st = CF_NO_MEMORY;
        } else {
            cfVec3 n = cfu_normalize(b->shape.normal);
            cfVec3 a = fabs(n.x) < 0.6 ? cfu_vec3(1, 0, 0) : cfu_vec3(0, 1, 0);
            cfVec3 t1 = cfu_normalize(cfu_sub(a, cfu_scale(cfu_dot(a, n), n))), t2 = cfu_cross(n, t1);
            double L = fmax(10.0 * size, 1.0);
            cfVec3 c = cfu_mul_add(center, b->shape.offset - cfu_dot(n, center), n);
            c = cfu_add(c, cfu_scale(0.5 * L, cfu_add(t1, t2)));
            cfMat3 R = cfu_mat3_cols(t1, t2, n);
            if (add_box(s, c, R, cfu_vec3(-L, -L, -0.1 * L), cfu_vec3(L, L, 0.0), 0.0, true) < 0) st = CF_NO_MEMORY;
        }
    }
    for (int i = 0; i < w->n_bodies && st == CF_OK; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (b->fixed) continue;
        cfVec3 he = b->shape.half_extents;
        int o = m->body[i] = add_box(s, b->x, cfu_quat_to_mat3(b->q), cfu_scale(-1.0, he), he, b->mass, false);
        if (o < 0) st = CF_NO_MEMORY;
        for (int k = o; k < o + 9 && st == CF_OK; ++k) {
            cfVec3 u = cfu_add(b->v, cfu_cross(b->w, cfu_sub(cf_ipc_node(s->q, k), b->x)));
            for (int a = 0; a < 3; ++a) s->u[3 * k + a] = cfu_vec3_at(u, a);
        }
        m->n_moving++;
    }
    for (int i = 0; i < w->n_soft && st == CF_OK; ++i) {
        const cfSoftBody *b = &w->soft[i];
        int o = m->soft[i] = s->n;
        for (int k = 0; k < b->n_nodes; ++k)
            if (cf_ipc_add_node(s, b->x_rest[k], b->mass[k], b->fixed[k]) < 0) st = CF_NO_MEMORY;
        if (st == CF_OK && b->n_tets > 0) st = cf_world_ipc_add_tets(s, b, o); /* elements and their boundary */
        for (int t = 0; t < b->n_tris && b->n_tets == 0 && st == CF_OK; ++t)
            if (cf_ipc_add_triangle(s, o + b->tris[t][0], o + b->tris[t][1], o + b->tris[t][2]) < 0) st = CF_NO_MEMORY;
        for (int k = 0; k < b->n_springs && st == CF_OK; ++k) {
            const cfSpring *sp = &b->springs[k];
            if (b->n_tris == 0 && cf_ipc_add_edge(s, o + sp->i, o + sp->j) < 0) st = CF_NO_MEMORY;
            if (st != CF_OK || !(sp->k > 0.0)) continue;
            int e = cf_ipc_add_spring(s, o + sp->i, o + sp->j, sp->k);
            if (e < 0) st = CF_NO_MEMORY;
            else s->rest[e] = sp->rest;
        }
        for (int k = 0; k < b->n_nodes && st == CF_OK; ++k)
            for (int a = 0; a < 3; ++a) {
                s->q[3 * (o + k) + a] = cfu_vec3_at(b->x[k], a);
                s->u[3 * (o + k) + a] = b->fixed[k] ? 0.0 : cfu_vec3_at(b->v[k], a);
            }
    }
    return st;
    //< ch09:world-gather
}

/* (internal.h) the system without its map: the certificate and the drawing need no scatter */
cfStatus cf_world_ipc_system(const cfWorld *w, cfIpcSystem *s)
{
    memset(s, 0, sizeof *s);
    Map m;
    cfStatus st = map_alloc(w, &m);
    if (st == CF_OK) st = gather(w, s, &m);
    if (st != CF_OK) cf_ipc_free(s);
    free(m.soft);
    return st;
}

/* The affine unknowns of the moving boxes (cf_ipc_affine.h): their nodes, the stiffness
   k = 1e6 s_min / h^2 of |A^T A - I|^2 (s_min = m min(he)^2 / 3, the smallest second moment: the
   stiff modes of A are 1e3 times faster than 1/h, so the box deforms by about 1e-6 h^2 |F| / (m L)
   under a force F), and z at the step's start (free nodes as they are, each box c = x, A = R(q)). */
static cfStatus affine_map(const cfWorld *w, const cfIpcSystem *s, const Map *m, cfIpcAffine *a, double **z, double **guess)
{
    //> ch09:world-affine
    int nb = m->n_moving, *first = malloc((size_t)(nb + 1) * 2 * sizeof *first);
    double *k = malloc((size_t)(nb + 1) * sizeof *k);
    cfStatus st = first && k ? CF_OK : CF_NO_MEMORY;
    int *count = first ? first + nb + 1 : NULL;
    for (int i = 0, j = 0; i < w->n_bodies && st == CF_OK; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (b->fixed) continue;
        cfVec3 he = b->shape.half_extents;
        double h_min = fmin(he.x, fmin(he.y, he.z));
        first[j] = m->body[i], count[j] = 9;
        k[j++] = 1e6 * b->mass * h_min * h_min / 3.0 / (w->def.dt * w->def.dt);
    }
    if (st == CF_OK) st = cf_ipc_affine_init(a, s, nb, first, count, k);
    *z = st == CF_OK ? malloc((size_t)a->n_z * sizeof **z) : NULL;
    *guess = st == CF_OK ? malloc((size_t)a->n_z * sizeof **guess) : NULL;
    if (st == CF_OK && (!*z || !*guess)) st = CF_NO_MEMORY;
    for (int i = 0; i < s->n && st == CF_OK; ++i)
        if (a->body[i] < 0)
            for (int r = 0; r < 3; ++r) (*z)[a->col[i] + r] = (*guess)[a->col[i] + r] = s->q[3 * i + r];
    double h = w->def.dt;
    for (int i = 0; i < w->n_bodies && st == CF_OK; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (b->fixed) continue;
        double *zb = *z + a->col[m->body[i]], *gb = *guess + a->col[m->body[i]];
        /* z: the pose; the guess: its free motion, c + h v + h^2 g and exp(h [w]) R */
        cfMat3 R = cfu_quat_to_mat3(b->q), Rg = cfu_quat_to_mat3(cfu_quat_mul(cfu_quat_exp(cfu_scale(h, b->w)), b->q));
        for (int r = 0; r < 3; ++r) {
            zb[r] = cfu_vec3_at(b->x, r);
            gb[r] = zb[r] + h * cfu_vec3_at(b->v, r) + h * h * cfu_vec3_at(w->def.gravity, r);
            for (int c = 0; c < 3; ++c) zb[3 + 3 * r + c] = R.m[r][c], gb[3 + 3 * r + c] = Rg.m[r][c];
        }
    }
    free(first), free(k);
    return st;
    //< ch09:world-affine
}

/* ---- stage 3, scatter ----------------------------------------------------------------------------- */

/* kappa sum b of the state: chapter 9's own energy with the inertia (q_tilde = q), the springs and
   the friction left out, divided by the h^2 it carries (J) */
static double barrier_energy(const cfIpcSystem *s)
{
    cfIpcSystem b = *s; /* a shallow view: nothing is freed or written */
    b.n_spring = 0;
    b.n_fric = 0;
    b.q_tilde = b.q;
    cfIpcPairList L = {0}; /* with the broad phase: the pairs within dhat, the only ones with a barrier */
    if (cf_world_ipc_sparse() && cf_ipc_broad_phase(s, s->q, NULL, s->dhat, &L) == CF_OK) b.pairs = &L;
    double e = cf_ipc_energy(&b, b.q, NULL, NULL, false) / (s->h * s->h);
    if (cf_world_ipc_sparse()) cf_ipc_pair_list_free(&L);
    return e;
}

/* the quaternion of the rotation matrix R (Shepperd: from the largest of 4 w^2, 4 x^2, 4 y^2, 4 z^2) */
static cfQuat quat_of(cfMat3 R)
{
    double t = R.m[0][0] + R.m[1][1] + R.m[2][2];
    const double (*m)[3] = R.m;
    cfQuat q;
    if (t >= m[0][0] && t >= m[1][1] && t >= m[2][2]) {
        double r = sqrt(1.0 + t);
        q = cfu_quat(0.5 * r, 0.5 * (m[2][1] - m[1][2]) / r, 0.5 * (m[0][2] - m[2][0]) / r, 0.5 * (m[1][0] - m[0][1]) / r);
    } else if (m[0][0] >= m[1][1] && m[0][0] >= m[2][2]) {
        double r = sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]);
        q = cfu_quat(0.5 * (m[2][1] - m[1][2]) / r, 0.5 * r, 0.5 * (m[0][1] + m[1][0]) / r, 0.5 * (m[0][2] + m[2][0]) / r);
    } else if (m[1][1] >= m[2][2]) {
        double r = sqrt(1.0 - m[0][0] + m[1][1] - m[2][2]);
        q = cfu_quat(0.5 * (m[0][2] - m[2][0]) / r, 0.5 * (m[0][1] + m[1][0]) / r, 0.5 * r, 0.5 * (m[1][2] + m[2][1]) / r);
    } else {
        double r = sqrt(1.0 - m[0][0] - m[1][1] + m[2][2]);
        q = cfu_quat(0.5 * (m[1][0] - m[0][1]) / r, 0.5 * (m[0][2] + m[2][0]) / r, 0.5 * (m[1][2] + m[2][1]) / r, 0.5 * r);
    }
    return cfu_quat_normalize(q);
}

/* A moving box from its affine state: the pose is the nearest rigid one (c, and the rotation of A's
   polar decomposition A = R S, by R <- (R + R^-T)/2 from R = A), the velocity v = (c - c^t)/h, and
   w = I_world^-1 L with L = sum_i m_i (x_i - c) x (u_i - v) the angular momentum of its nine nodes:
   the projection keeps the body's linear and angular momentum. */
static void scatter_box(cfRigidBody *b, const cfIpcSystem *s, const double *zb, int first)
{
    //> ch09:world-scatter-box
    cfVec3 c = cfu_vec3(zb[0], zb[1], zb[2]);
    cfMat3 R;
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) R.m[r][k] = zb[3 + 3 * r + k];
    for (int it = 0; it < 30; ++it) {
        cfMat3 Ri, Rn;
        if (!cfu_mat3_inverse(R, &Ri)) break;
        Rn = cfu_mat3_scale(0.5, cfu_mat3_add(R, cfu_mat3_transpose(Ri)));
        double change = 0.0;
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) change = fmax(change, fabs(Rn.m[r][k] - R.m[r][k]));
        R = Rn;
        if (change < 1e-15) break;
    }
    b->v = cfu_scale(1.0 / s->h, cfu_sub(c, b->x));
    b->x = c;
    b->q = quat_of(R);
    cf_rigid_update_inertia(b);
    cfVec3 L = cfu_zero3();
    for (int i = first; i < first + 9; ++i)
        L = cfu_add(L, cfu_scale(s->mass[i], cfu_cross(cfu_sub(cf_ipc_node(s->q, i), c), cfu_sub(cf_ipc_node(s->u, i), b->v))));
    b->w = cfu_mat3_mul_vec(b->inv_inertia_world, L);
    //< ch09:world-scatter-box
}

static void scatter(cfWorld *w, const cfIpcSystem *s, const Map *m, const cfIpcAffine *a, const double *z,
                    const cfIpcStats *is, int doublings, cfStatus st)
{
    for (int i = 0; i < w->n_soft; ++i) {
        cfSoftBody *b = &w->soft[i];
        for (int k = 0; k < b->n_nodes; ++k) {
            if (b->fixed[k]) continue;
            b->x[k] = cf_ipc_node(s->q, m->soft[i] + k);
            b->v[k] = cf_ipc_node(s->u, m->soft[i] + k);
        }
        b->has_prev = false;
    }
    for (int i = 0; i < w->n_bodies; ++i)
        if (!w->bodies[i].fixed) scatter_box(&w->bodies[i], s, z + a->col[m->body[i]], m->body[i]);
    cfStepStats *t = &w->stats;
    t->solver_iterations = is->iterations;
    t->solver_status = st;
    t->contact_solve = true;
    t->n_contacts = is->active;
    t->ipc.dhat = s->dhat;
    t->ipc.kappa = s->kappa;
    t->ipc.kappa_doublings = doublings;
    t->ipc.halvings = is->halvings;
    t->ipc.ccd_clamps = is->ccd_clamps;
    t->ipc.min_distance = is->min_dist;
    t->ipc.force_residual = is->grad_norm;
    t->ipc.barrier_energy = barrier_energy(s);
}

/* ---- the step ------------------------------------------------------------------------------------- */

static cfStatus fail_msg(cfWorld *w, cfStatus st, const char *msg)
{
    if (w->error.msg[0] == '\0') cf_error_set(&w->error, st, "%s", msg);
    return st;
}

cfStatus cf_world_ipc_step(cfWorld *w)
{
    //> ch09:world-ipc-step
    cfIpcSystem s;
    memset(&s, 0, sizeof s);
    cfIpcAffine a;
    memset(&a, 0, sizeof a);
    double *z = NULL, *guess = NULL;
    Map m;
    double t0 = cf_seconds();
    cfStatus st = map_alloc(w, &m);
    if (st == CF_OK) st = gather(w, &s, &m);
    if (st == CF_OK && m.n_moving > 0) st = affine_map(w, &s, &m, &a, &z, &guess);
    double t1 = cf_seconds();
    w->stats.stage_seconds[0] = t1 - t0;
    cfIpcStats is;
    memset(&is, 0, sizeof is);
    KappaStats ks = {0};
    /* a pair at distance 0 has an infinite barrier: refused before the solve, which would find out
       only after assembling the whole energy and its Hessian (19 s on a touching pyramid) */
    if (st == CF_OK && !(min_distance(&s) > 0.0)) st = CF_BAD_INPUT;
    if (st == CF_OK) {
        cfIpcOptions o = cf_ipc_options_default();
        o.lag_iters = w->def.ipc.friction_iterations;
        o.tol = w->def.ipc.tolerance;
        /* the adaptive rule's bounds: [kappa, 100 kappa] from the setting or its derived default,
           threshold dhat/10 (cf_ipc_kappa_rule_default()) */
        KappaRule rule = {s.kappa, 100.0 * s.kappa, 0.1 * s.dhat};
        /* moving boxes: the step over their affine unknowns (sparse with the reference's broad
           phase); soft bodies alone: chapter 9's own */
        const cfIpcBroadPhase bp = {cf_ipc_broad_phase, cf_ipc_pair_list_free, cf_ipc_min_distance_sparse};
        st = m.n_moving > 0 && cf_world_ipc_sparse() ? cf_ipc_affine_step_sparse(&a, &s, z, guess, &o, &bp, &is)
             : m.n_moving > 0       ? cf_ipc_affine_step(&a, &s, z, guess, &o, &is)
             : w->def.ipc.adaptive_kappa ? cf_ipc_step_sparse_adaptive(&s, &o, &rule, &is, &ks)
             : cf_world_ipc_sparse() ? cf_ipc_step_sparse(&s, &o, &is)
                                     : cf_ipc_step(&s, &o, &is);
    }
    double t2 = cf_seconds();
    w->stats.stage_seconds[1] = t2 - t1;
    /* a used-up Newton budget or a line search at the rounding floor still moves the state, as a
       velocity solver's used-up budget does (cf_ipc_step()); the status is kept in the stats */
    if (st == CF_OK || st == CF_MAX_ITER || st == CF_STAGNATED) {
        scatter(w, &s, &m, &a, z, &is, ks.doublings, st);
        st = CF_OK;
    } else if (st == CF_BAD_INPUT) {
        fail_msg(w, st, "ipc: a pair is at distance 0 at the start of the step (an interpenetration or a touching "
                 "contact): IPC needs a state with every surface apart");
    } else if (st == CF_DIVERGED) {
        fail_msg(w, st, "ipc: the incremental potential stopped being finite during the Newton solve");
    }
    w->stats.stage_seconds[2] = cf_seconds() - t2;
    cf_ipc_affine_free(&a);
    cf_ipc_free(&s);
    free(m.soft);
    free(z), free(guess);
    return st;
    //< ch09:world-ipc-step
}

/* ---- drawing: the pairs within dhat ------------------------------------------------------------- */

typedef struct Visit {
    const cfIpcSystem *s;
    void (*fn)(void *ctx, cfVec3 a, cfVec3 b, double d);
    void *ctx;
} Visit;

static int visit_pair(void *ctx, const int node[4], bool ee)
{
    const Visit *V = ctx;
    cfVec3 x[4];
    cf_ipc_pair_points(V->s->q, node, x);
    cfDistStencil st;
    double d2 = cf_ipc_pair_dist2(x, ee, &st);
    if (!(d2 < V->s->dhat * V->s->dhat)) return 0;
    /* closest points: on feature B (positive coefficients) and on feature A (negative) */
    cfVec3 a = cfu_zero3(), b = cfu_zero3();
    for (int i = 0; i < 4; ++i) {
        if (st.c[i] > 0) b = cfu_mul_add(b, st.c[i], x[i]);
        else a = cfu_mul_add(a, -st.c[i], x[i]);
    }
    V->fn(V->ctx, a, b, sqrt(d2));
    return 0;
}

cfStatus cf_world_ipc_pairs(const cfWorld *w, void (*fn)(void *ctx, cfVec3 a, cfVec3 b, double d), void *ctx)
{
    if (w->def.pipeline != CF_PIPELINE_IPC) return CF_BAD_INPUT;
    cfIpcSystem s;
    cfStatus st = cf_world_ipc_system(w, &s);
    cfIpcPairList L = {0}; /* with the broad phase: only the pairs within dhat are drawn anyway */
    if (st == CF_OK && cf_world_ipc_sparse()) st = cf_ipc_broad_phase(&s, s.q, NULL, s.dhat, &L);
    if (st == CF_OK) {
        Visit V = {&s, fn, ctx};
        if (cf_world_ipc_sparse()) s.pairs = &L;
        cf_ipc_for_pairs(&s, visit_pair, &V);
    }
    if (cf_world_ipc_sparse()) cf_ipc_pair_list_free(&L);
    cf_ipc_free(&s);
    return st;
}
