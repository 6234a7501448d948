/* SPDX-License-Identifier: MIT */
/* The ipc pipeline (cfWorldDef::pipeline = CF_PIPELINE_IPC): a step of the world is one step of
   chapter 9's Incremental Potential Contact. Three stages: gather (the world's soft bodies and
   static geometry become one cfIpcSystem), minimize (cf_ipc_step(): the inertial target, the
   friction lag, projected Newton with the CCD line search) and scatter (positions, velocities and
   the step's measurements back to the world). Also the independent no-crossing certificate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch09.h"
#include "internal.h"

/* ---- which worlds the pipeline takes ------------------------------------------------------------ */

/* the one friction coefficient of the system: every body's mu must agree (chapter 9 has one mu) */
static cfStatus same_mu(const char *kind, int i, const char *name, double mu, double *ref, const char **ref_name,
                        cfError *err)
{
    if (!*ref_name) {
        *ref = mu;
        *ref_name = name;
        return CF_OK;
    }
    if (mu == *ref) return CF_OK;
    return cf_error_set(err, CF_BAD_INPUT, "%s[%d] '%s': mu: the ipc pipeline has one friction coefficient "
                        "(chapter 9's system) and this body's %g differs from %g of '%s'", kind, i, name, mu, *ref,
                        *ref_name);
}

cfStatus cf_world_ipc_check(const cfWorld *w, cfError *err)
{
    double mu = 0.0;
    const char *mu_of = NULL;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (!b->fixed)
            return cf_error_set(err, CF_BAD_INPUT, "bodies[%d] '%s': the ipc pipeline moves soft bodies only (chapter 9 "
                                "derives IPC for nodes, not rigid bodies); make it fixed (static geometry) or a soft body",
                                i, b->name);
        if (b->shape.type != CF_SHAPE_BOX && b->shape.type != CF_SHAPE_PLANE)
            return cf_error_set(err, CF_BAD_INPUT, "bodies[%d] '%s': static geometry under ipc is a box or a plane "
                                "(got a %s)", i, b->name, cf_shape_name(b->shape.type));
        cfStatus st = same_mu("bodies", i, b->name, b->mu, &mu, &mu_of, err);
        if (st != CF_OK) return st;
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        const char *why = s->n_tets > 0 ? "tetrahedra: the ipc pipeline's elastic energy has springs only (chapter 9); "
                                          "use a spring_box, cloth, chain or particle"
                          : s->damping_alpha > 0.0 || s->damping_beta > 0.0 ? "damping: the ipc pipeline's energy has no "
                                                                              "Rayleigh damping"
                          : s->thickness > 0.0 ? "thickness: the ipc pipeline keeps surfaces dhat apart, not a thickness"
                          : s->consistent_mass ? "consistent_mass: the ipc pipeline uses lumped masses"
                                               : NULL;
        if (why) return cf_error_set(err, CF_BAD_INPUT, "soft_bodies[%d] '%s': %s", i, s->name, why);
        cfStatus st = same_mu("soft_bodies", i, s->name, s->mu, &mu, &mu_of, err);
        if (st != CF_OK) return st;
    }
    if (w->n_pairs > 0)
        return cf_error_set(err, CF_BAD_INPUT, "friction[0]: the ipc pipeline takes no material pairs (one mu for every "
                            "contact: give the bodies the same mu)");
    return CF_OK;
}

/* ---- stage 1, gather: the world as one IPC system ------------------------------------------------ */

/* the derived defaults of dhat and kappa (cfIpcSettings): the soft bodies' rest bounding box, and
   kappa |b'(dhat/2)| = m_max g with |b'(dhat/2)| = (ln 2 + 1/2) dhat (ch09.2's b' at d = dhat/2) */
static void ipc_parameters(const cfWorld *w, double *dhat, double *kappa, cfVec3 *center, double *diag)
{
    cfVec3 lo = cfu_vec3(INFINITY, INFINITY, INFINITY), hi = cfu_scale(-1.0, lo);
    double m_max = 0.0;
    for (int i = 0; i < w->n_soft; ++i)
        for (int k = 0; k < w->soft[i].n_nodes; ++k) {
            cfVec3 x = w->soft[i].x_rest[k];
            lo = cfu_vec3(fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z));
            hi = cfu_vec3(fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z));
            if (!w->soft[i].fixed[k]) m_max = fmax(m_max, w->soft[i].mass[k]);
        }
    bool any = lo.x <= hi.x;
    *diag = any ? cfu_norm(cfu_sub(hi, lo)) : 0.0;
    *center = any ? cfu_scale(0.5, cfu_add(lo, hi)) : cfu_zero3();
    *dhat = w->def.ipc.dhat > 0.0 ? w->def.ipc.dhat : *diag > 0.0 ? 1e-3 * *diag : 1e-3;
    double g = cfu_norm(w->def.gravity);
    if (!(g > 0.0)) g = 9.81;
    *kappa = w->def.ipc.kappa > 0.0 ? w->def.ipc.kappa : m_max > 0.0 ? m_max * g / ((log(2.0) + 0.5) * *dhat) : 1.0;
}

/* a fixed box [lo, hi] of the frame (origin, columns R) */
static cfStatus add_fixed_box(cfIpcSystem *s, cfVec3 origin, cfMat3 R, cfVec3 lo, cfVec3 hi)
{
    int first = cf_ipc_add_box(s, lo, hi, 1.0, 0.0, true);
    if (first < 0) return CF_NO_MEMORY;
    for (int i = first; i < first + 8; ++i) {
        cfVec3 x = cfu_add(origin, cfu_mat3_mul_vec(R, cf_ipc_node(s->q, i)));
        for (int a = 0; a < 3; ++a)
            s->q[3 * i + a] = s->q_rest[3 * i + a] = s->q_start[3 * i + a] = s->q_tilde[3 * i + a] = cfu_vec3_at(x, a);
    }
    return CF_OK;
}

/* The system of the world: static geometry first (a box as its 8 corners and 12 triangles, a
   plane as the top face of a slab of half size L = max(10 diag, 1 m) and depth L/10 whose centre
   is moved by (L/2)(t1 + t2) from the soft bodies' centre, so that the diagonal of the face, where
   a point within dhat of both triangles is pushed twice (chapter 9's pitfall), passes L/sqrt 2 away
   from it), then each soft body from soft_first[i]: its nodes (added at rest: the edge-edge
   mollifier's rest lengths), triangles, edges (its triangles', or its springs' when it has no
   triangles), springs with their own rest lengths, then the state x, v. */
static cfStatus gather(const cfWorld *w, cfIpcSystem *s, int *soft_first)
{
    //> ch09:world-gather
    double dhat, kappa, diag;
    cfVec3 center;
    ipc_parameters(w, &dhat, &kappa, &center, &diag);
    cfStatus st = cf_ipc_init(s, w->def.dt, dhat, kappa);
    if (st != CF_OK) return st;
    s->gravity = w->def.gravity;
    s->eps_v = w->def.ipc.eps_v;
    s->mu = w->n_soft > 0 ? w->soft[0].mu : 0.0; /* all agree (cf_world_ipc_check()) */
    for (int i = 0; i < w->n_bodies && st == CF_OK; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (b->shape.type == CF_SHAPE_BOX) {
            cfVec3 he = b->shape.half_extents;
            st = add_fixed_box(s, b->x, cfu_quat_to_mat3(b->q), cfu_scale(-1.0, he), he);
        } else {
            cfVec3 n = cfu_normalize(b->shape.normal);
            cfVec3 a = fabs(n.x) < 0.6 ? cfu_vec3(1, 0, 0) : cfu_vec3(0, 1, 0);
            cfVec3 t1 = cfu_normalize(cfu_sub(a, cfu_scale(cfu_dot(a, n), n))), t2 = cfu_cross(n, t1);
            double L = fmax(10.0 * diag, 1.0);
            cfVec3 c = cfu_mul_add(center, b->shape.offset - cfu_dot(n, center), n);
            c = cfu_add(c, cfu_scale(0.5 * L, cfu_add(t1, t2)));
            cfMat3 R = cfu_mat3_cols(t1, t2, n);
            st = add_fixed_box(s, c, R, cfu_vec3(-L, -L, -0.1 * L), cfu_vec3(L, L, 0.0));
        }
    }
    for (int i = 0; i < w->n_soft && st == CF_OK; ++i) {
        const cfSoftBody *b = &w->soft[i];
        int o = soft_first[i] = s->n;
        for (int k = 0; k < b->n_nodes; ++k)
            if (cf_ipc_add_node(s, b->x_rest[k], b->mass[k], b->fixed[k]) < 0) st = CF_NO_MEMORY;
        for (int t = 0; t < b->n_tris && st == CF_OK; ++t)
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

/* ---- stage 3, scatter ----------------------------------------------------------------------------- */

/* kappa sum b of the state: chapter 9's own energy with the inertia (q_tilde = q), the springs and
   the friction left out, divided by the h^2 it carries (J) */
static double barrier_energy(const cfIpcSystem *s)
{
    cfIpcSystem b = *s; /* a shallow view: nothing is freed or written */
    b.n_spring = 0;
    b.n_fric = 0;
    b.q_tilde = b.q;
    return cf_ipc_energy(&b, b.q, NULL, NULL, false) / (s->h * s->h);
}

static void scatter(cfWorld *w, const cfIpcSystem *s, const int *soft_first, const cfIpcStats *is, cfStatus st)
{
    for (int i = 0; i < w->n_soft; ++i) {
        cfSoftBody *b = &w->soft[i];
        for (int k = 0; k < b->n_nodes; ++k) {
            if (b->fixed[k]) continue;
            b->x[k] = cf_ipc_node(s->q, soft_first[i] + k);
            b->v[k] = cf_ipc_node(s->u, soft_first[i] + k);
        }
        b->has_prev = false;
    }
    cfStepStats *t = &w->stats;
    t->solver_iterations = is->iterations;
    t->solver_status = st;
    t->n_contacts = is->active;
    t->ipc.dhat = s->dhat;
    t->ipc.kappa = s->kappa;
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
    int *first = malloc((size_t)(w->n_soft > 0 ? w->n_soft : 1) * sizeof *first);
    double t0 = cf_seconds();
    cfStatus st = first ? gather(w, &s, first) : CF_NO_MEMORY;
    double t1 = cf_seconds();
    w->stats.stage_seconds[0] = t1 - t0;
    cfIpcStats is;
    memset(&is, 0, sizeof is);
    if (st == CF_OK) {
        cfIpcOptions o = cf_ipc_options_default();
        o.lag_iters = w->def.ipc.friction_iterations;
        st = cf_ipc_step(&s, &o, &is);
    }
    double t2 = cf_seconds();
    w->stats.stage_seconds[1] = t2 - t1;
    /* a used-up Newton budget or a line search at the rounding floor still moves the state, as a
       velocity solver's used-up budget does (cf_ipc_step()); the status is kept in the stats */
    if (st == CF_OK || st == CF_MAX_ITER || st == CF_STAGNATED) {
        scatter(w, &s, first, &is, st);
        st = CF_OK;
    } else if (st == CF_BAD_INPUT) {
        fail_msg(w, st, "ipc: a pair is at distance 0 at the start of the step (an interpenetration or a touching "
                 "contact): IPC needs a state with every surface apart");
    } else if (st == CF_DIVERGED) {
        fail_msg(w, st, "ipc: the incremental potential stopped being finite during the Newton solve");
    }
    w->stats.stage_seconds[2] = cf_seconds() - t2;
    cf_ipc_free(&s);
    free(first);
    return st;
    //< ch09:world-ipc-step
}

/* ---- the certificate: signed volumes only ------------------------------------------------------- */

/* six times the signed volume of the tetrahedron (a, b, c, d) */
static double orient(cfVec3 a, cfVec3 b, cfVec3 c, cfVec3 d)
{
    return cfu_dot(cfu_cross(cfu_sub(b, a), cfu_sub(c, a)), cfu_sub(d, a));
}

/* the segment p-q meets the triangle a, b, c: p and q not strictly on one side of its plane and
   the line through them inside the triangle's three edges (all three volumes of one sign). A
   segment in the triangle's plane is not counted (it has no crossing direction). */
static bool segment_crosses(cfVec3 p, cfVec3 q, cfVec3 a, cfVec3 b, cfVec3 c)
{
    //> ch09:world-crossing
    double sp = orient(a, b, c, p), sq = orient(a, b, c, q);
    if ((sp > 0.0 && sq > 0.0) || (sp < 0.0 && sq < 0.0) || (sp == 0.0 && sq == 0.0)) return false;
    double u = orient(p, q, a, b), v = orient(p, q, b, c), x = orient(p, q, c, a);
    return (u >= 0.0 && v >= 0.0 && x >= 0.0) || (u <= 0.0 && v <= 0.0 && x <= 0.0);
    //< ch09:world-crossing
}

int cf_world_crossings(const cfWorld *w, cfVec3 *const *x_prev, char *what, size_t cap)
{
    if (what && cap) what[0] = '\0';
    cfError err = {{0}};
    if (cf_world_ipc_check(w, &err) != CF_OK) {
        if (what && cap) snprintf(what, cap, "%s", err.msg);
        return -1;
    }
    cfIpcSystem s;
    memset(&s, 0, sizeof s);
    int *first = malloc((size_t)(w->n_soft > 0 ? w->n_soft : 1) * sizeof *first);
    if (!first || gather(w, &s, first) != CF_OK) {
        cf_ipc_free(&s);
        free(first);
        return -1;
    }
    int count = 0;
    for (int e = 0; e < s.n_edge; ++e)
        for (int t = 0; t < s.n_tri; ++t) {
            const int *E = s.edge[e], *T = s.tri[t];
            if (E[0] == T[0] || E[0] == T[1] || E[0] == T[2] || E[1] == T[0] || E[1] == T[1] || E[1] == T[2]) continue;
            if (s.fixed[E[0]] && s.fixed[E[1]] && s.fixed[T[0]] && s.fixed[T[1]] && s.fixed[T[2]]) continue;
            if (!segment_crosses(cf_ipc_node(s.q, E[0]), cf_ipc_node(s.q, E[1]), cf_ipc_node(s.q, T[0]),
                                 cf_ipc_node(s.q, T[1]), cf_ipc_node(s.q, T[2])))
                continue;
            if (count++ == 0 && what && cap)
                snprintf(what, cap, "surface edge %d-%d crosses triangle %d-%d-%d (system nodes)", E[0], E[1], T[0], T[1],
                         T[2]);
        }
    for (int i = 0; x_prev && i < w->n_soft; ++i)
        for (int k = 0; k < w->soft[i].n_nodes; ++k)
            for (int t = 0; t < s.n_tri; ++t) {
                const int *T = s.tri[t];
                if (!(s.fixed[T[0]] && s.fixed[T[1]] && s.fixed[T[2]])) continue;
                if (!segment_crosses(x_prev[i][k], w->soft[i].x[k], cf_ipc_node(s.q, T[0]), cf_ipc_node(s.q, T[1]),
                                     cf_ipc_node(s.q, T[2])))
                    continue;
                if (count++ == 0 && what && cap)
                    snprintf(what, cap, "node %d of soft body '%s' went through a static triangle in the step", k,
                             w->soft[i].name);
                break; /* one count per node */
            }
    cf_ipc_free(&s);
    free(first);
    return count;
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
    memset(&s, 0, sizeof s);
    int *first = malloc((size_t)(w->n_soft > 0 ? w->n_soft : 1) * sizeof *first);
    cfStatus st = first ? gather(w, &s, first) : CF_NO_MEMORY;
    if (st == CF_OK) {
        Visit V = {&s, fn, ctx};
        cf_ipc_for_pairs(&s, visit_pair, &V);
    }
    cf_ipc_free(&s);
    free(first);
    return st;
}
