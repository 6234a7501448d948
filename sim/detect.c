/* SPDX-License-Identifier: MIT */
/* World contact detection: broad phase, shape-pair dispatch to the chapter-3 routines, A->B normals. */
#include "cf/cf_detect.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cf/cf_ch02.h"
#include "cf/cf_ch03.h"
#include "cf/cf_world.h"
#include "internal.h"

const char *cf_broadphase_name(cfBroadphaseKind k)
{
    switch (k) {
    case CF_BROADPHASE_SAP: return "sap";
    case CF_BROADPHASE_ALL_PAIRS: return "all-pairs";
    case CF_BROADPHASE_COUNT: break;
    }
    return "unknown";
}

cfDetectOptions cf_detect_options_default(void)
{
    cfDetectOptions o = {0.0, 4, CF_BROADPHASE_SAP};
    return o;
}

static bool options_ok(const cfDetectOptions *o)
{
    return isfinite(o->margin) && o->margin >= 0.0 && o->max_contacts >= 1 &&
           o->max_contacts <= CF_BOX_MAX_CONTACTS &&
           (o->broadphase == CF_BROADPHASE_SAP || o->broadphase == CF_BROADPHASE_ALL_PAIRS);
}

/* ---- one pair ------------------------------------------------------------------------- */

/* ---- capsules: a segment swept by a sphere, reduced to the sphere routines ----------- */

/* end points of a capsule's core segment (body z axis) */
static void capsule_segment(const cfRigidBody *b, cfVec3 *p0, cfVec3 *p1)
{
    cfVec3 a = cfu_quat_rotate(cfu_quat_normalize(b->q), cfu_vec3(0, 0, b->shape.half_height));
    *p0 = cfu_sub(b->x, a);
    *p1 = cfu_add(b->x, a);
}

/* append the contact of sphere (c, r) as B against `first` as A; -1 when unsupported */
static int sphere_as_b(const cfRigidBody *first, cfVec3 c, double r, const cfDetectOptions *o, cfContact *out)
{
    const cfShape *s1 = &first->shape;
    switch (s1->type) {
    case CF_SHAPE_PLANE: return cf_collide_plane_sphere(s1->normal, s1->offset, c, r, o->margin, out);
    case CF_SHAPE_SPHERE: return cf_collide_sphere_sphere(first->x, s1->radius, c, r, o->margin, out);
    case CF_SHAPE_BOX: {
        /* the routine takes the sphere as A: swap the roles back */
        cfObb b = cf_obb_of_body(first);
        int n = cf_collide_sphere_box(c, r, &b, o->margin, out);
        if (n == 1) out->n = cfu_neg(out->n);
        return n;
    }
    case CF_SHAPE_CAPSULE:
    case CF_SHAPE_COUNT: break;
    }
    return -1;
}

/* signed distance from the point to `first` (box only) for the search along the segment */
static double box_distance(const cfRigidBody *first, cfVec3 x)
{
    cfObb b = cf_obb_of_body(first);
    return cf_sdf_obb(&b, x, NULL);
}

/* Contacts of a capsule (B) against a plane, sphere, box or capsule (A):
 * - plane and box: the two end spheres, plus for a box the deepest interior point of the
 *   segment (golden-section search on the box's signed distance, convex along a line) when it
 *   is deeper than both ends; feature CF_FEAT_CAPSULE | 0, 1 (ends), 2 (interior);
 * - sphere: the closest point of the segment (feature 2);
 * - capsule: the closest points of the two segments (feature 2); for nearly parallel segments
 *   the four end points against the other segment instead (features 0, 1 for A's ends, 4, 5
 *   for B's), so that a capsule lying on another gets a line of support. */
static int capsule_contacts(const cfRigidBody *first, const cfRigidBody *second, const cfDetectOptions *o,
                            cfContact *out)
{
    double r = second->shape.radius;
    cfVec3 q0, q1;
    capsule_segment(second, &q0, &q1);
    int n = 0;
    cfContact c;
    switch (first->shape.type) {
    case CF_SHAPE_PLANE:
    case CF_SHAPE_BOX: {
        cfVec3 ends[2] = {q0, q1};
        for (int k = 0; k < 2; ++k) {
            /* an end sphere's point is on the capsule only if n points into the segment there */
            if (sphere_as_b(first, ends[k], r, o, &c) == 1 && cfu_dot(c.n, cfu_sub(ends[1 - k], ends[k])) >= 0.0) {
                c.feature = cf_feature(CF_FEAT_CAPSULE, (uint32_t)k);
                out[n++] = c;
            }
        }
        if (first->shape.type == CF_SHAPE_BOX) {
            double lo = 0.0, hi = 1.0;
            const double g = 0.5 * (sqrt(5.0) - 1.0);
            for (int it = 0; it < 60; ++it) {
                double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
                if (box_distance(first, cfu_mul_add(q0, a, cfu_sub(q1, q0))) <
                    box_distance(first, cfu_mul_add(q0, b, cfu_sub(q1, q0))))
                    hi = b;
                else
                    lo = a;
            }
            double t = 0.5 * (lo + hi);
            cfVec3 x = cfu_mul_add(q0, t, cfu_sub(q1, q0));
            double dx = box_distance(first, x);
            if (t > 1e-3 && t < 1.0 - 1e-3 &&
                dx < fmin(box_distance(first, q0), box_distance(first, q1)) - 1e-9 &&
                sphere_as_b(first, x, r, o, &c) == 1) {
                c.feature = cf_feature(CF_FEAT_CAPSULE, 2);
                out[n++] = c;
            }
        }
        break;
    }
    case CF_SHAPE_SPHERE: {
        double t;
        cf_segment_closest(first->x, first->x, q0, q1, NULL, &t);
        if (sphere_as_b(first, cfu_mul_add(q0, t, cfu_sub(q1, q0)), r, o, &c) == 1) {
            c.feature = cf_feature(CF_FEAT_CAPSULE, 2);
            out[n++] = c;
        }
        break;
    }
    case CF_SHAPE_CAPSULE: {
        double ra = first->shape.radius;
        cfVec3 p0, p1;
        capsule_segment(first, &p0, &p1);
        cfVec3 da = cfu_sub(p1, p0), db = cfu_sub(q1, q0);
        bool parallel = cfu_norm(cfu_cross(da, db)) <= 0.05 * cfu_norm(da) * cfu_norm(db);
        if (!parallel) {
            double s, t;
            cf_segment_closest(p0, p1, q0, q1, &s, &t);
            if (cf_collide_sphere_sphere(cfu_mul_add(p0, s, da), ra, cfu_mul_add(q0, t, db), r, o->margin, &c)) {
                c.feature = cf_feature(CF_FEAT_CAPSULE, 2);
                out[n++] = c;
            }
            break;
        }
        /* nearly parallel: each end point against the other segment; a contact counts only if
           both its surface points lie on the capsules (at an end, n must point into the segment) */
        cfVec3 ea[2] = {p0, p1}, eb[2] = {q0, q1};
        for (int k = 0; k < 2; ++k) {
            double t;
            cf_segment_closest(ea[k], ea[k], q0, q1, NULL, &t);
            if (cf_collide_sphere_sphere(ea[k], ra, cfu_mul_add(q0, t, db), r, o->margin, &c) &&
                cfu_dot(c.n, cfu_sub(ea[1 - k], ea[k])) <= 0.0 && (t > 0.0 || cfu_dot(c.n, db) >= 0.0) &&
                (t < 1.0 || cfu_dot(c.n, db) <= 0.0)) {
                c.feature = cf_feature(CF_FEAT_CAPSULE, (uint32_t)k);
                out[n++] = c;
            }
            cf_segment_closest(eb[k], eb[k], p0, p1, NULL, &t);
            if (cf_collide_sphere_sphere(cfu_mul_add(p0, t, da), ra, eb[k], r, o->margin, &c) &&
                cfu_dot(c.n, cfu_sub(eb[1 - k], eb[k])) >= 0.0 && (t > 0.0 || cfu_dot(c.n, da) <= 0.0) &&
                (t < 1.0 || cfu_dot(c.n, da) >= 0.0)) {
                c.feature = cf_feature(CF_FEAT_CAPSULE, (uint32_t)(4 + k));
                out[n++] = c;
            }
        }
        if (n == 0) { /* no end pair qualifies: the closest points always do */
            double s, t;
            cf_segment_closest(p0, p1, q0, q1, &s, &t);
            if (cf_collide_sphere_sphere(cfu_mul_add(p0, s, da), ra, cfu_mul_add(q0, t, db), r, o->margin, &c)) {
                c.feature = cf_feature(CF_FEAT_CAPSULE, 2);
                out[n++] = c;
            }
        }
        break;
    }
    case CF_SHAPE_COUNT: return -1;
    }
    if (n > o->max_contacts) n = cf_manifold_reduce(out, n, o->max_contacts, out);
    return n;
}

/* contacts with `first` as A and `second` as B in the routines' roles; -1 when unsupported */
static int narrow(const cfRigidBody *first, const cfRigidBody *second, const cfDetectOptions *o, cfContact *out)
{
    const cfShape *s1 = &first->shape, *s2 = &second->shape;
    double m = o->margin;
    if (s1->type == CF_SHAPE_SPHERE && s2->type == CF_SHAPE_SPHERE)
        return cf_collide_sphere_sphere(first->x, s1->radius, second->x, s2->radius, m, out);
    if (s1->type == CF_SHAPE_SPHERE && s2->type == CF_SHAPE_BOX) {
        cfObb b = cf_obb_of_body(second);
        return cf_collide_sphere_box(first->x, s1->radius, &b, m, out);
    }
    if (s1->type == CF_SHAPE_BOX && s2->type == CF_SHAPE_BOX) {
        cfObb a = cf_obb_of_body(first), b = cf_obb_of_body(second);
        return cf_collide_box_box(&a, &b, m, o->max_contacts, out);
    }
    if (s1->type == CF_SHAPE_PLANE && s2->type == CF_SHAPE_SPHERE)
        return cf_collide_plane_sphere(s1->normal, s1->offset, second->x, s2->radius, m, out);
    if (s1->type == CF_SHAPE_PLANE && s2->type == CF_SHAPE_BOX) {
        cfObb b = cf_obb_of_body(second);
        return cf_collide_plane_box(s1->normal, s1->offset, &b, m, o->max_contacts, out);
    }
    if (s2->type == CF_SHAPE_CAPSULE) return capsule_contacts(first, second, o, out);
    return -1;
}

/* the routines take (plane, sphere, box, capsule) in this order of roles */
static int role_rank(cfShapeType t)
{
    switch (t) {
    case CF_SHAPE_PLANE: return 0;
    case CF_SHAPE_SPHERE: return 1;
    case CF_SHAPE_BOX: return 2;
    case CF_SHAPE_CAPSULE: return 3;
    case CF_SHAPE_COUNT: break;
    }
    return 4;
}

int cf_detect_pair(const cfRigidBody *a, int ia, const cfRigidBody *b, int ib, const cfDetectOptions *opt,
                   cfContact *out)
{
    cfDetectOptions o = opt ? *opt : cf_detect_options_default();
    bool swap = role_rank(b->shape.type) < role_rank(a->shape.type);
    int n = swap ? narrow(b, a, &o, out) : narrow(a, b, &o, out);
    if (n < 0) return -1;
    double mu = sqrt(fmax(a->mu, 0.0) * fmax(b->mu, 0.0));
    for (int k = 0; k < n; ++k) {
        if (swap) out[k].n = cfu_neg(out[k].n); /* p and phi are symmetric (midpoint rule) */
        out[k].body_a = ia;
        out[k].body_b = ib;
        out[k].mu = mu;
        /* rigid sides only, isotropic until the contacts stage applies the world's friction pairs */
        out[k].extra = NULL;
    }
    return n;
}

/* ---- the world ------------------------------------------------------------------------ */

static int pair_cmp(const void *x, const void *y)
{
    const cfPair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* the candidate pairs of the world, in lexicographic order of body indices (lower index first):
   bounded bodies through the broad phase (their boxes grown by margin/2 + grow), planes with
   everything */
static cfStatus candidate_pairs(const cfWorld *w, const cfDetectOptions *o, double grow, cfPairList *pairs, cfDetectStats *st)
{
    int n = w->n_bodies;
    int *ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
    cfAabb *boxes = malloc((size_t)(n > 0 ? n : 1) * sizeof *boxes);
    cfStatus s = (ids && boxes) ? CF_OK : CF_NO_MEMORY;
    int nb = 0;
    for (int i = 0; s == CF_OK && i < n; ++i) {
        if (w->bodies[i].shape.type == CF_SHAPE_PLANE) continue;
        ids[nb] = i;
        boxes[nb++] = cf_aabb_inflate(cf_aabb_of_body(&w->bodies[i]), 0.5 * o->margin + grow);
    }
    if (s == CF_OK)
        s = o->broadphase == CF_BROADPHASE_SAP ? cf_broadphase_sap(boxes, nb, pairs, &st->aabb_tests)
                                                : cf_broadphase_all_pairs(boxes, nb, pairs, &st->aabb_tests);
    /* back to body indices, then add the plane pairs, in lexicographic order */
    for (int k = 0; s == CF_OK && k < pairs->count; ++k) {
        int a = ids[pairs->items[k].a], b = ids[pairs->items[k].b];
        pairs->items[k].a = a < b ? a : b;
        pairs->items[k].b = a < b ? b : a;
    }
    for (int i = 0; s == CF_OK && i < n; ++i) {
        if (w->bodies[i].shape.type != CF_SHAPE_PLANE) continue;
        for (int j = 0; s == CF_OK && j < n; ++j) {
            if (j == i || (w->bodies[j].shape.type == CF_SHAPE_PLANE && j < i)) continue;
            s = cf_pairs_push(pairs, i < j ? i : j, i < j ? j : i);
        }
    }
    if (s == CF_OK && pairs->count > 1) qsort(pairs->items, (size_t)pairs->count, sizeof *pairs->items, pair_cmp);
    free(ids);
    free(boxes);
    return s;
}

/* ---- persistent manifolds ------------------------------------------------------------- */

/* A pair's contacts as they were computed: the relative pose of B in A's frame at that time and
   each contact's two surface points in their own bodies' frames (pa on A, pb on B; p is their
   midpoint, phi = n.(pb - pa), the midpoint rule of chapter 3) with the normal in A's frame. */
typedef struct CachedPair {
    int a, b;
    cfVec3 dx;  /* R_a^T (x_b - x_a) */
    cfQuat dq;  /* q_a^* q_b */
    int first, n;
} CachedPair;

typedef struct CachedPoint {
    cfVec3 pa, pb, n;
    uint32_t feature;
} CachedPoint;

/* the manifolds of one detection pass, in pair order */
typedef struct Manifolds {
    int n_pairs, cap_pairs;
    CachedPair *pairs;
    int n_pts, cap_pts;
    CachedPoint *pts;
} Manifolds;

/* Fat boxes (Box2D's idea): the broad phase runs on every body's box grown by CF_FAT_MARGIN and
   its pairs are kept while every body's box stays inside its fat box: they are then a superset of
   the pairs the boxes of this step give, and the narrow phase finds no contact in the extra ones. */
#define CF_FAT_MARGIN 0.02

/* pairs per run of the threads' shares of the narrow phase (a run walks old's pairs with one cursor) */
#define CF_DETECT_RUN 64

/* one candidate pair of a pass on several threads: what became of it, where its contacts are */
typedef struct PairJob {
    int n;      /* its contacts (-1: none, the pair was skipped or is unsupported) */
    int old;    /* its kept entry of the last pass, or -1: detected anew */
    int thread; /* detected anew: the thread whose scratch holds its contacts, from index src */
    int src;
    int at;     /* its first contact in the pass's list (and first point in the new cache) */
    int entry;  /* its entry in the new cache */
} PairJob;

struct cfManifoldCache {
    cfContactList scratch[CF_MAX_THREADS]; /* contacts each thread detected (several threads) */
    PairJob *jobs;            /* per candidate pair (several threads) */
    int cap_jobs;
    double margin;            /* the detection options the cache was filled with */
    int max_contacts;
    cfBroadphaseKind broadphase;
    int n_bodies;
    Manifolds set[2];         /* the last pass's (set[cur]) and the memory of the one before */
    int cur;
    bool has_pairs;           /* pairs and fat hold a broad phase of these bodies */
    cfPairList pairs;         /* candidate pairs (planes included) of the fat boxes, in pair order */
    cfAabb *fat;              /* per body (planes: unused) */
};

void cf_manifold_cache_free(struct cfManifoldCache *c)
{
    if (!c) return;
    for (int k = 0; k < 2; ++k) {
        free(c->set[k].pairs);
        free(c->set[k].pts);
    }
    for (int t = 0; t < CF_MAX_THREADS; ++t) cf_contacts_free(&c->scratch[t]);
    free(c->jobs);
    cf_pairs_free(&c->pairs);
    free(c->fat);
    free(c);
}

/* radius of a sphere about the body's origin that holds its shape (0 for a plane) */
static double bound_radius(const cfShape *s)
{
    switch (s->type) {
    case CF_SHAPE_SPHERE: return s->radius;
    case CF_SHAPE_BOX: return cfu_norm(s->half_extents);
    case CF_SHAPE_CAPSULE: return s->radius + s->half_height;
    case CF_SHAPE_PLANE:
    case CF_SHAPE_COUNT: break;
    }
    return 0.0;
}

static void relative_pose(const cfRigidBody *a, const cfRigidBody *b, cfVec3 *dx, cfQuat *dq)
{
    cfQuat qa = cfu_quat_normalize(a->q);
    *dx = cfu_quat_rotate(cfu_quat_conj(qa), cfu_sub(b->x, a->x));
    *dq = cfu_quat_mul(cfu_quat_conj(qa), cfu_quat_normalize(b->q));
}

/* how far a point of either body has moved relative to the other since the cache entry (m):
   the translation plus the rotation at the bodies' bounding radii (the rotation's chord
   2 sin(angle/2), the angle itself for the small ones that matter) */
static double pose_change(const CachedPair *e, const cfRigidBody *a, const cfRigidBody *b)
{
    cfVec3 dx;
    cfQuat dq;
    relative_pose(a, b, &dx, &dq);
    cfQuat r = cfu_quat_mul(cfu_quat_conj(e->dq), dq);
    double chord = 2.0 * sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    return cfu_norm(cfu_sub(dx, e->dx)) + chord * (bound_radius(&a->shape) + bound_radius(&b->shape));
}

/* *items holds at least @p need elements of @p size bytes (capacity doubled from @p first) */
static cfStatus grow(void **items, int *cap, int need, int first, size_t size)
{
    if (need <= *cap) return CF_OK;
    int n = *cap ? 2 * *cap : first;
    while (n < need) n *= 2;
    void *p = realloc(*items, (size_t)n * size);
    if (!p) return CF_NO_MEMORY;
    *items = p;
    *cap = n;
    return CF_OK;
}

static cfStatus cache_reserve(Manifolds *c, int pairs, int pts)
{
    void *pp = c->pairs, *pt = c->pts;
    cfStatus st = grow(&pp, &c->cap_pairs, pairs, 64, sizeof *c->pairs);
    c->pairs = pp;
    if (st == CF_OK) st = grow(&pt, &c->cap_pts, pts, 256, sizeof *c->pts);
    c->pts = pt;
    return st;
}

/* record the n contacts of pair (ia, ib) just detected at the bodies' present poses in entry e,
   its points in pts[first ..] */
static void manifold_record(CachedPair *e, CachedPoint *pts, int first, const cfRigidBody *A, int ia, const cfRigidBody *B,
                            int ib, const cfContact *con, int n)
{
    e->a = ia;
    e->b = ib;
    relative_pose(A, B, &e->dx, &e->dq);
    e->first = first;
    e->n = n;
    cfQuat qa = cfu_quat_conj(cfu_quat_normalize(A->q)), qb = cfu_quat_conj(cfu_quat_normalize(B->q));
    for (int k = 0; k < n; ++k) {
        CachedPoint *q = &pts[first + k];
        cfVec3 pa = cfu_mul_add(con[k].p, -0.5 * con[k].phi, con[k].n), pb = cfu_mul_add(con[k].p, 0.5 * con[k].phi, con[k].n);
        q->pa = cfu_quat_rotate(qa, cfu_sub(pa, A->x));
        q->pb = cfu_quat_rotate(qb, cfu_sub(pb, B->x));
        q->n = cfu_quat_rotate(qa, con[k].n);
        q->feature = con[k].feature;
    }
}

/* the same, appended to c */
static void cache_store(Manifolds *c, const cfRigidBody *A, int ia, const cfRigidBody *B, int ib, const cfContact *con,
                        int n)
{
    manifold_record(&c->pairs[c->n_pairs++], c->pts, c->n_pts, A, ia, B, ib, con, n);
    c->n_pts += n;
}

/* entry e of old, kept: copied to entry dst, its points to pts[first ..] */
static void cache_keep(const Manifolds *old, const CachedPair *e, CachedPair *dst, CachedPoint *pts, int first)
{
    *dst = *e;
    dst->first = first;
    memcpy(&pts[first], &old->pts[e->first], (size_t)e->n * sizeof *pts);
}

/* the cached contacts of entry e, moved with the bodies: points from their bodies' frames, the
   normal with A, the gap measured anew along it (inlined in both callers: called, it cost the
   one-thread pass 4.6 % more instructions on pyramid 20) */
__attribute__((always_inline)) static inline void cache_emit(const Manifolds *c, const CachedPair *e, const cfRigidBody *A, int ia, const cfRigidBody *B,
                       int ib, cfContact *out)
{
    cfMat3 Ra = cfu_quat_to_mat3(cfu_quat_normalize(A->q)), Rb = cfu_quat_to_mat3(cfu_quat_normalize(B->q));
    double mu = sqrt(fmax(A->mu, 0.0) * fmax(B->mu, 0.0));
    for (int k = 0; k < e->n; ++k) {
        const CachedPoint *q = &c->pts[e->first + k];
        cfVec3 pa = cfu_add(A->x, cfu_mat3_mul_vec(Ra, q->pa)), pb = cfu_add(B->x, cfu_mat3_mul_vec(Rb, q->pb));
        cfContact *o = &out[k];
        memset(o, 0, sizeof *o);
        o->body_a = ia;
        o->body_b = ib;
        o->n = cfu_mat3_mul_vec(Ra, q->n);
        o->p = cfu_scale(0.5, cfu_add(pa, pb));
        o->phi = cfu_dot(o->n, cfu_sub(pb, pa));
        o->mu = mu;
        o->feature = q->feature;
    }
}

/* ---- the world ------------------------------------------------------------------------ */

/* whether pair (i, j) of bodies a, b keeps its contacts of old: it is there (the cursor *j_old
   walks old's pairs in order and stops at it) and has moved less than tol since */
static inline bool kept_entry(const Manifolds *old, int *j_old, int i, int j, const cfRigidBody *a, const cfRigidBody *b, double tol)
{
    while (*j_old < old->n_pairs && (old->pairs[*j_old].a < i || (old->pairs[*j_old].a == i && old->pairs[*j_old].b < j)))
        ++*j_old;
    const CachedPair *e = *j_old < old->n_pairs ? &old->pairs[*j_old] : NULL;
    return e && e->a == i && e->b == j && pose_change(e, a, b) <= tol;
}

/* the contacts of pair (i, j), appended to out: from the cache `old` when the pair is there and
   has moved less than `tol` since (cursor *j_old walks old's pairs in order), else from the
   narrow phase; recorded in `now` when it is not NULL */
static cfStatus emit_pair(const cfWorld *w, int i, int j, const cfDetectOptions *o, const Manifolds *old, int *j_old,
                          Manifolds *now, double tol, cfContactList *out, cfDetectStats *st)
{
    const cfRigidBody *a = &w->bodies[i], *b = &w->bodies[j];
    if (a->fixed && b->fixed) return CF_OK;
    st->candidate_pairs++;
    /* the pair's contacts are written in place, at the end of the list */
    cfStatus s = cf_contacts_reserve(out, CF_BOX_MAX_CONTACTS);
    if (s == CF_OK && now) s = cache_reserve(now, now->n_pairs + 1, now->n_pts + CF_BOX_MAX_CONTACTS);
    if (s != CF_OK) return s;
    cfContact *c = out->items + out->count;
    if (old && kept_entry(old, j_old, i, j, a, b, tol)) {
        const CachedPair *e = &old->pairs[*j_old];
        cache_emit(old, e, a, i, b, j, c);
        cache_keep(old, e, &now->pairs[now->n_pairs++], now->pts, now->n_pts);
        now->n_pts += e->n;
        out->count += e->n;
        st->contacts += e->n;
        st->reused++;
        return CF_OK;
    }
    int n = cf_detect_pair(a, i, b, j, o, c);
    if (n < 0) {
        st->unsupported++;
        return CF_OK;
    }
    st->narrow_calls++;
    if (now) cache_store(now, a, i, b, j, c, n);
    out->count += n;
    st->contacts += n;
    return CF_OK;
}

/* the fat boxes' pairs when every body is still inside its fat box, else a broad phase of new fat
   boxes (kept in c) */
static cfStatus fat_pairs(const cfWorld *w, const cfDetectOptions *o, struct cfManifoldCache *c, cfPairList *pairs,
                          cfDetectStats *st)
{
    bool inside = c->has_pairs;
    for (int i = 0; inside && i < w->n_bodies; ++i) {
        if (w->bodies[i].shape.type == CF_SHAPE_PLANE) continue;
        cfAabb b = cf_aabb_inflate(cf_aabb_of_body(&w->bodies[i]), 0.5 * o->margin), f = c->fat[i];
        inside = b.lo.x >= f.lo.x && b.lo.y >= f.lo.y && b.lo.z >= f.lo.z && b.hi.x <= f.hi.x && b.hi.y <= f.hi.y &&
                 b.hi.z <= f.hi.z;
    }
    if (!inside) {
        c->has_pairs = false;
        cfAabb *fat = realloc(c->fat, (size_t)(w->n_bodies > 0 ? w->n_bodies : 1) * sizeof *fat);
        if (!fat) return CF_NO_MEMORY;
        c->fat = fat;
        for (int i = 0; i < w->n_bodies; ++i)
            if (w->bodies[i].shape.type != CF_SHAPE_PLANE)
                fat[i] = cf_aabb_inflate(cf_aabb_of_body(&w->bodies[i]), 0.5 * o->margin + CF_FAT_MARGIN);
        cfStatus s = candidate_pairs(w, o, CF_FAT_MARGIN, &c->pairs, st);
        if (s != CF_OK) return s;
        c->has_pairs = true;
    }
    pairs->count = 0;
    for (int k = 0; k < c->pairs.count; ++k) {
        cfStatus s = cf_pairs_push(pairs, c->pairs.items[k].a, c->pairs.items[k].b);
        if (s != CF_OK) return s;
    }
    return CF_OK;
}

/* the first of old's pairs at or after pair (i, j) (where emit_pair()'s cursor stands when it
   reaches that pair) */
static int old_cursor(const Manifolds *old, int i, int j)
{
    int lo = 0, hi = old->n_pairs;
    while (lo < hi) {
        int m = lo + (hi - lo) / 2;
        const CachedPair *e = &old->pairs[m];
        if (e->a < i || (e->a == i && e->b < j)) lo = m + 1;
        else hi = m;
    }
    return lo;
}

/* Phase 1 of a pass on several threads, pairs [lo, hi): what becomes of each (kept from old or
   detected anew into thread t's scratch) and its count of contacts */
static cfStatus classify_range(const cfWorld *w, const cfPairList *pairs, int lo, int hi, const cfDetectOptions *o,
                           const Manifolds *old, double tol, PairJob *jobs, cfContactList *scratch, int t)
{
    int j_old = old ? old_cursor(old, pairs->items[lo].a, pairs->items[lo].b) : 0;
    for (int k = lo; k < hi; ++k) {
        int i = pairs->items[k].a, j = pairs->items[k].b;
        const cfRigidBody *a = &w->bodies[i], *b = &w->bodies[j];
        PairJob *jb = &jobs[k];
        jb->n = jb->old = -1;
        if (a->fixed && b->fixed) continue;
        if (old && kept_entry(old, &j_old, i, j, a, b, tol)) {
            jb->old = j_old;
            jb->n = old->pairs[j_old].n;
            continue;
        }
        cfStatus s = cf_contacts_reserve(scratch, CF_BOX_MAX_CONTACTS);
        if (s != CF_OK) return s;
        jb->n = cf_detect_pair(a, i, b, j, o, scratch->items + scratch->count);
        jb->thread = t;
        jb->src = scratch->count;
        if (jb->n > 0) scratch->count += jb->n;
    }
    return CF_OK;
}

/* Phase 3, pairs [lo, hi): their contacts and manifolds written where phase 2 placed them */
static void place_range(const cfWorld *w, const cfPairList *pairs, int lo, int hi, const Manifolds *old, Manifolds *now,
                        const PairJob *jobs, const cfContactList *scratch, cfContactList *out)
{
    for (int k = lo; k < hi; ++k) {
        const PairJob *jb = &jobs[k];
        if (jb->n < 0) continue;
        int i = pairs->items[k].a, j = pairs->items[k].b;
        const cfRigidBody *a = &w->bodies[i], *b = &w->bodies[j];
        cfContact *c = out->items + jb->at;
        if (jb->old >= 0) {
            cache_emit(old, &old->pairs[jb->old], a, i, b, j, c);
            cache_keep(old, &old->pairs[jb->old], &now->pairs[jb->entry], now->pts, jb->at);
            continue;
        }
        memcpy(c, scratch[jb->thread].items + jb->src, (size_t)jb->n * sizeof *c);
        if (now) manifold_record(&now->pairs[jb->entry], now->pts, jb->at, a, i, b, j, c, jb->n);
    }
}

/* Phase 2 (one thread): every pair's place in the list and the cache, in pair order, and the
   counts emit_pair() keeps; room for them */
static cfStatus place_all(const cfWorld *w, const cfPairList *pairs, PairJob *jobs, Manifolds *now, cfContactList *out,
                          cfDetectStats *st)
{
    int at = 0, entry = 0;
    for (int k = 0; k < pairs->count; ++k) {
        PairJob *jb = &jobs[k];
        if (w->bodies[pairs->items[k].a].fixed && w->bodies[pairs->items[k].b].fixed) continue;
        st->candidate_pairs++;
        if (jb->old < 0 && jb->n < 0) {
            st->unsupported++;
            continue;
        }
        if (jb->old >= 0) st->reused++;
        else st->narrow_calls++;
        jb->at = at;
        jb->entry = entry++;
        at += jb->n;
    }
    st->contacts += at;
    cfStatus s = cf_contacts_reserve(out, at);
    if (s == CF_OK && now) s = cache_reserve(now, entry, at);
    if (s != CF_OK) return s;
    out->count = at;
    if (now) {
        now->n_pairs = entry;
        now->n_pts = at;
    }
    return CF_OK;
}

/* the end of the run of pairs that starts at lo, of n */
static int run_end(int lo, int n) { return lo + CF_DETECT_RUN < n ? lo + CF_DETECT_RUN : n; }

/* The narrow phase of every pair (emit_pair()'s work, in pair order), on @p threads threads
   (one below CF_DETECT_THREAD_MIN_PAIRS pairs) in three phases: each thread takes runs of pairs
   and decides for each whether its contacts are kept or detects them anew into its scratch;
   one thread places every pair's contacts and manifold in pair order; the threads write them
   there (kept contacts moved in place, new ones copied from the scratch). Every pair's contacts
   are computed as on one thread: the lists are one thread's, bit for bit. */
static cfStatus emit_all(const cfWorld *w, const cfPairList *pairs, const cfDetectOptions *o, const Manifolds *old,
                         Manifolds *now, double tol, struct cfManifoldCache *cache, int threads, cfContactList *out,
                         cfDetectStats *st)
{
    int T = cache && pairs->count >= CF_DETECT_THREAD_MIN_PAIRS ? threads : 1;
    if (T <= 1) {
        int j_old = 0;
        cfStatus s = CF_OK;
        for (int k = 0; s == CF_OK && k < pairs->count; ++k)
            s = emit_pair(w, pairs->items[k].a, pairs->items[k].b, o, old, &j_old, now, tol, out, st);
        return s;
    }
    void *jobs = cache->jobs;
    cfStatus s = grow(&jobs, &cache->cap_jobs, pairs->count, 256, sizeof *cache->jobs);
    cache->jobs = jobs;
    if (s != CF_OK) return s;
    cfStatus classified[CF_MAX_THREADS]; /* each thread's phase-1 status */
    for (int t = 0; t < T; ++t) classified[t] = CF_OK; /* also of threads OpenMP does not give */
    const int runs = (pairs->count + CF_DETECT_RUN - 1) / CF_DETECT_RUN;
#pragma omp parallel num_threads(T)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        cfContactList *scratch = &cache->scratch[t];
        cf_contacts_clear(scratch);
#pragma omp for schedule(dynamic)
        for (int r = 0; r < runs; ++r) {
            int lo = r * CF_DETECT_RUN, hi = run_end(lo, pairs->count);
            if (classified[t] == CF_OK) classified[t] = classify_range(w, pairs, lo, hi, o, old, tol, cache->jobs, scratch, t);
        }
#pragma omp single
        {
            for (int k = 0; k < T; ++k)
                if (s == CF_OK) s = classified[k];
            if (s == CF_OK) s = place_all(w, pairs, cache->jobs, now, out, st);
        }
        if (s == CF_OK) {
#pragma omp for schedule(dynamic)
            for (int r = 0; r < runs; ++r) {
                int lo = r * CF_DETECT_RUN;
                place_range(w, pairs, lo, run_end(lo, pairs->count), old, now, cache->jobs, cache->scratch, out);
            }
        }
    }
    return s;
}

static cfStatus detect_world(const cfWorld *w, const cfDetectOptions *opt, struct cfManifoldCache *cache, double tol,
                             int threads, cfContactList *out, cfDetectStats *stats)
{
    double t0 = cf_seconds();
    cfDetectOptions o = opt ? *opt : cf_detect_options_default();
    cfDetectStats st;
    memset(&st, 0, sizeof st);
    cf_contacts_clear(out);
    if (!options_ok(&o)) return CF_BAD_INPUT;
    for (int i = 0; i < w->n_bodies; ++i)
        if (!cfu_vec3_finite(w->bodies[i].x) || !cfu_quat_finite(w->bodies[i].q)) return CF_BAD_INPUT;
    const Manifolds *old = NULL;
    Manifolds *now = NULL;
    if (cache) {
        /* a cache filled with other options, or for another set of bodies, is forgotten */
        if (cache->margin != o.margin || cache->max_contacts != o.max_contacts || cache->broadphase != o.broadphase ||
            cache->n_bodies != w->n_bodies) {
            cache->set[cache->cur].n_pairs = cache->set[cache->cur].n_pts = 0;
            cache->has_pairs = false;
            cache->margin = o.margin;
            cache->max_contacts = o.max_contacts;
            cache->broadphase = o.broadphase;
            cache->n_bodies = w->n_bodies;
        }
        if (tol > 0.0) {
            old = &cache->set[cache->cur];
            now = &cache->set[1 - cache->cur];
            now->n_pairs = now->n_pts = 0;
        } else { /* nothing reused: a later pass with a tolerance starts afresh */
            cache->set[cache->cur].n_pairs = cache->set[cache->cur].n_pts = 0;
            cache->has_pairs = false;
        }
    }
    cfPairList pairs = {0, 0, NULL};
    cfStatus s = old ? fat_pairs(w, &o, cache, &pairs, &st) : candidate_pairs(w, &o, 0.0, &pairs, &st);
    if (s == CF_OK) s = emit_all(w, &pairs, &o, old, now, tol, cache, threads, out, &st);
    cf_pairs_free(&pairs);
    if (s == CF_OK && now) cache->cur = 1 - cache->cur;
    st.seconds = cf_seconds() - t0;
    if (stats) *stats = st;
    return s;
}

cfStatus cf_detect_world(const cfWorld *w, const cfDetectOptions *opt, cfContactList *out, cfDetectStats *stats)
{
    return detect_world(w, opt, NULL, 0.0, 1, out, stats);
}

cfStatus cf_detect_world_cached(const cfWorld *w, const cfDetectOptions *opt, double tol, int threads,
                                struct cfManifoldCache **cache, cfContactList *out, cfDetectStats *stats)
{
    if (!*cache && !(*cache = calloc(1, sizeof **cache))) return CF_NO_MEMORY;
    return detect_world(w, opt, *cache, tol, threads < 1 ? 1 : threads > CF_MAX_THREADS ? CF_MAX_THREADS : threads, out,
                        stats);
}

/* ---- soft bodies ---------------------------------------------------------------------------- */

/* the nodes of a soft body that can touch anything: those of its surface triangles, or every
   node of a body without triangles (a chain); marks[k] != 0 for them */
static unsigned char *surface_nodes(const cfSoftBody *s)
{
    unsigned char *mark = calloc((size_t)(s->n_nodes > 0 ? s->n_nodes : 1), 1);
    if (!mark) return NULL;
    if (s->n_tris == 0) memset(mark, 1, (size_t)s->n_nodes);
    for (int t = 0; t < s->n_tris; ++t)
        for (int k = 0; k < 3; ++k) mark[s->tris[t][k]] = 1;
    return mark;
}

static cfAabb soft_aabb(const cfSoftBody *s)
{
    cfAabb b = cf_aabb_empty();
    for (int k = 0; k < s->n_nodes; ++k) b = cf_aabb_add_point(b, s->x[k]);
    return b;
}

static bool aabb_has(cfAabb b, cfVec3 p)
{
    return p.x >= b.lo.x && p.x <= b.hi.x && p.y >= b.lo.y && p.y <= b.hi.y && p.z >= b.lo.z && p.z <= b.hi.z;
}

/* distance from the point x to the sphere (c, r) and the unit normal from the sphere to the point
   ((0, 0, 1) at the centre, as ch02.1 picks) */
static void point_sphere(cfVec3 c, double r, cfVec3 x, double *phi, cfVec3 *n)
{
    cfVec3 d = cfu_sub(x, c);
    double len = cfu_norm(d);
    *phi = len - r;
    *n = len > 1e-12 * r ? cfu_scale(1.0 / len, d) : cfu_vec3(0.0, 0.0, 1.0);
}

/* Signed distance from the point x to a rigid shape and the unit normal from the shape to the
   point: planes and spheres directly, boxes by ch02.1's cf_gap_point_box(), capsules through the
   closest point of their core segment. False when ch02.1 refuses the input. */
static bool point_gap(const cfRigidBody *r, cfVec3 x, double *phi, cfVec3 *n)
{
    const cfShape *sh = &r->shape;
    switch (sh->type) {
    case CF_SHAPE_PLANE:
        *phi = cfu_dot(sh->normal, x) - sh->offset;
        *n = sh->normal;
        return true;
    case CF_SHAPE_SPHERE: point_sphere(r->x, sh->radius, x, phi, n); return true;
    case CF_SHAPE_BOX: return cf_gap_point_box(x, r->x, r->q, sh->half_extents, phi, n) == CF_OK;
    case CF_SHAPE_CAPSULE: {
        cfVec3 p0, p1;
        double t;
        capsule_segment(r, &p0, &p1);
        cf_segment_closest(x, x, p0, p1, NULL, &t);
        point_sphere(cfu_mul_add(p0, t, cfu_sub(p1, p0)), sh->radius, x, phi, n);
        return true;
    }
    case CF_SHAPE_COUNT: break;
    }
    return false;
}

static cfSoftSide soft_point(int body, int n, const int *node, const double *w)
{
    cfSoftSide s;
    memset(&s, 0, sizeof s);
    s.n = n;
    s.body = body;
    for (int k = 0; k < n; ++k) {
        s.node[k] = node[k];
        s.w[k] = w[k];
    }
    return s;
}

/* a zeroed contact @p c whose extra is the caller's @p x (zeroed too), for the soft sides:
   cf_contacts_push() copies it into the list */
static void soft_contact(cfContact *c, cfContactExtra *x)
{
    memset(c, 0, sizeof *c);
    memset(x, 0, sizeof *x);
    c->extra = x;
}

static uint32_t face_feature(int tri, int point)
{
    return cf_feature(CF_FEAT_SOFT_FACE, (uint32_t)tri * 2654435761u ^ (uint32_t)point * 40503u);
}

/* half the thickness of a soft body: the distance its surface keeps from others */
static double offset_of(const cfSoftBody *s) { return 0.5 * s->thickness; }
/* a sheet (cloth): triangles without tetrahedra, two-sided */
static bool sheet(const cfSoftBody *s) { return s->n_tets == 0 && s->n_tris > 0; }

/* The point @p x against triangle @p t of soft body @p s (index @p si): a contact when its
   projection falls inside the triangle and it lies within [-depth, margin] of the triangle's
   plane, depth a quarter of the triangle's shortest edge: a point deeper than that is taken to be
   near another face of the body (a thin slab's far side, a side face), not this one. Side A is the
   triangle, the normal its outward normal; a sheet's triangle is two-sided: the normal turns to
   the point's side. The gap is less the offsets (half thicknesses) of the two sides, @p extra
   the point's. Returns true and fills @p c, its extra in @p xc (soft_contact()). */
static bool point_triangle(const cfSoftBody *s, int si, int t, cfVec3 x, double margin, double extra, cfContact *c,
                           cfContactExtra *xc)
{
    const int *v = s->tris[t];
    cfVec3 a = s->x[v[0]], b = s->x[v[1]], d = s->x[v[2]];
    cfVec3 m = cfu_cross(cfu_sub(b, a), cfu_sub(d, a));
    double area2 = cfu_norm(m);
    if (!(area2 > 0.0)) return false;
    m = cfu_scale(1.0 / area2, m);
    double dist = cfu_dot(m, cfu_sub(x, a));
    if (sheet(s) && dist < 0.0) {
        m = cfu_neg(m);
        dist = -dist;
    }
    double phi = dist - offset_of(s) - extra;
    double depth = 0.25 * fmin(cfu_norm(cfu_sub(b, a)), fmin(cfu_norm(cfu_sub(d, b)), cfu_norm(cfu_sub(a, d))));
    if (phi > margin || dist < -depth) return false;
    double w[3];
    if (cf_barycentric_triangle(x, a, b, d, w) != CF_OK || w[0] < 0.0 || w[1] < 0.0 || w[2] < 0.0) return false;
    soft_contact(c, xc);
    c->body_a = c->body_b = -1;
    xc->soft_a = soft_point(si, 3, v, w);
    c->n = m;
    c->p = cfu_sub(x, cfu_scale(dist, m)); /* the material point of the triangle */
    c->phi = phi;
    c->mu = fmax(s->mu, 0.0);
    return true;
}

static cfStatus push(cfContactList *out, const cfContact *c, cfDetectStats *st)
{
    st->contacts++;
    return cf_contacts_push(out, c);
}

/* soft body si against rigid body ri: its surface nodes against the shape, and for a box, the
   box's corners against the soft surface */
static cfStatus soft_rigid(const cfWorld *w, int si, const unsigned char *surf, cfAabb sbox, int ri,
                           const cfDetectOptions *o, cfContactList *out, cfDetectStats *st)
{
    const cfSoftBody *s = &w->soft[si];
    const cfRigidBody *r = &w->bodies[ri];
    if (r->shape.type != CF_SHAPE_PLANE && !cf_aabb_overlap(sbox, cf_aabb_inflate(cf_aabb_of_body(r), o->margin)))
        return CF_OK;
    st->candidate_pairs++;
    double mu = sqrt(fmax(s->mu, 0.0) * fmax(r->mu, 0.0));
    cfStatus res = CF_OK;
    for (int k = 0; k < s->n_nodes && res == CF_OK; ++k) {
        double phi;
        cfVec3 n;
        if (!surf[k] || s->fixed[k] || !point_gap(r, s->x[k], &phi, &n)) continue;
        phi -= offset_of(s);
        if (phi > o->margin) continue;
        cfContact c;
        cfContactExtra x;
        soft_contact(&c, &x);
        c.body_a = ri;
        c.body_b = -1;
        const double one = 1.0;
        x.soft_b = soft_point(si, 1, &k, &one);
        c.n = n;
        c.p = cfu_sub(s->x[k], cfu_scale(phi + offset_of(s), n)); /* on the rigid surface */
        c.phi = phi;
        c.mu = mu;
        c.feature = cf_feature(CF_FEAT_SOFT_NODE, (uint32_t)k);
        res = push(out, &c, st);
    }
    if (r->shape.type != CF_SHAPE_BOX || s->n_tris == 0) return res;
    cfObb box = cf_obb_of_body(r);
    for (int v = 0; v < 8 && res == CF_OK; ++v) {
        cfVec3 x = cf_obb_vertex(&box, v);
        if (!aabb_has(sbox, x)) continue;
        for (int t = 0; t < s->n_tris && res == CF_OK; ++t) {
            cfContact c;
            cfContactExtra xc;
            if (!point_triangle(s, si, t, x, o->margin, 0.0, &c, &xc)) continue;
            c.body_b = ri;
            c.p = x; /* the rigid side's point: the box corner */
            c.mu = mu;
            c.feature = face_feature(t, v);
            res = push(out, &c, st);
        }
    }
    return res;
}

/* the surface nodes of soft body sb against the surface triangles of soft body sa */
static cfStatus soft_soft(const cfWorld *w, int sa, int sb, const unsigned char *surf_b, double margin,
                          cfContactList *out, cfDetectStats *st)
{
    const cfSoftBody *A = &w->soft[sa], *B = &w->soft[sb];
    double mu = sqrt(fmax(A->mu, 0.0) * fmax(B->mu, 0.0));
    cfStatus res = CF_OK;
    for (int t = 0; t < A->n_tris && res == CF_OK; ++t) {
        cfAabb tb = cf_aabb_empty();
        for (int k = 0; k < 3; ++k) tb = cf_aabb_add_point(tb, A->x[A->tris[t][k]]);
        tb = cf_aabb_inflate(tb, margin + 0.5 * cfu_norm(cfu_sub(tb.hi, tb.lo)));
        for (int k = 0; k < B->n_nodes && res == CF_OK; ++k) {
            cfContact c;
            cfContactExtra x;
            if (!surf_b[k] || !aabb_has(tb, B->x[k]) || !point_triangle(A, sa, t, B->x[k], margin, offset_of(B), &c, &x))
                continue;
            const double one = 1.0;
            x.soft_b = soft_point(sb, 1, &k, &one);
            c.mu = mu;
            c.feature = face_feature(t, k);
            res = push(out, &c, st);
        }
    }
    return res;
}

static cfStatus soft_surfaces(const cfWorld *w, double margin, cfContactList *out, cfDetectStats *st);

cfStatus cf_detect_soft(const cfWorld *w, const cfDetectOptions *opt, cfContactList *out, cfDetectStats *stats)
{
    cfDetectOptions o = opt ? *opt : cf_detect_options_default();
    if (!options_ok(&o)) return CF_BAD_INPUT;
    cfDetectStats st;
    memset(&st, 0, sizeof st);
    cfStatus res = CF_OK;
    unsigned char **surf = calloc((size_t)(w->n_soft > 0 ? w->n_soft : 1), sizeof *surf);
    cfAabb *box = malloc((size_t)(w->n_soft > 0 ? w->n_soft : 1) * sizeof *box);
    if (!surf || !box) res = CF_NO_MEMORY;
    for (int i = 0; i < w->n_soft && res == CF_OK; ++i) {
        for (int k = 0; k < w->soft[i].n_nodes; ++k)
            if (!cfu_vec3_finite(w->soft[i].x[k])) res = CF_BAD_INPUT;
        surf[i] = surface_nodes(&w->soft[i]);
        if (!surf[i]) res = CF_NO_MEMORY;
        box[i] = cf_aabb_inflate(soft_aabb(&w->soft[i]), o.margin + offset_of(&w->soft[i]));
    }
    bool full = w->def.detector == CF_DETECT_SURFACES;
    for (int i = 0; i < w->n_soft && res == CF_OK; ++i) {
        for (int r = 0; r < w->n_bodies && res == CF_OK; ++r) res = soft_rigid(w, i, surf[i], box[i], r, &o, out, &st);
        for (int j = i + 1; j < w->n_soft && res == CF_OK && !full; ++j) {
            if (!cf_aabb_overlap(box[i], box[j])) continue;
            st.candidate_pairs++;
            res = soft_soft(w, i, j, surf[j], o.margin, out, &st);
            if (res == CF_OK) res = soft_soft(w, j, i, surf[i], o.margin, out, &st);
        }
    }
    if (res == CF_OK && full) res = soft_surfaces(w, o.margin, out, &st);
    for (int i = 0; surf && i < w->n_soft; ++i) free(surf[i]);
    free(surf);
    free(box);
    if (stats) {
        stats->candidate_pairs += st.candidate_pairs;
        stats->contacts += st.contacts;
    }
    return res;
}

/* ---- continuous collision detection on the linear motion (constraint manifold refinement) ---- */

/* a contact's sides and feature, for "is this pair constrained already?" */
typedef struct Key {
    int ba, bb, sa, sb;
    uint32_t feature;
    int index; /* the contact's index in its list (not compared) */
} Key;

static Key key_of(const cfContact *c, int index)
{
    const cfSoftSide *sa = cf_contact_soft(c, 0), *sb = cf_contact_soft(c, 1);
    Key k = {c->body_a, c->body_b, sa ? sa->body : -1, sb ? sb->body : -1, c->feature, index};
    return k;
}

static int key_cmp(const void *x, const void *y)
{
    const Key *p = x, *q = y;
    if (p->ba != q->ba) return p->ba < q->ba ? -1 : 1;
    if (p->bb != q->bb) return p->bb < q->bb ? -1 : 1;
    if (p->sa != q->sa) return p->sa < q->sa ? -1 : 1;
    if (p->sb != q->sb) return p->sb < q->sb ? -1 : 1;
    return (p->feature > q->feature) - (p->feature < q->feature);
}

/* where a body point p (world, at the start pose of b0) is at the pose of b1 */
static cfVec3 moved_point(const cfRigidBody *b0, const cfRigidBody *b1, cfVec3 p)
{
    cfVec3 local = cfu_quat_rotate(cfu_quat_conj(b0->q), cfu_sub(p, b0->x));
    return cfu_add(b1->x, cfu_quat_rotate(b1->q, local));
}

/* the material point of side @p side of @p c at the positions x1 (soft) and poses b1 (rigid) */
static cfVec3 side_point(const cfWorld *w, const cfContact *c, int side, cfVec3 *const *x1, const cfRigidBody *b1)
{
    const cfSoftSide *ss = cf_contact_soft(c, side);
    int body = side == 0 ? c->body_a : c->body_b;
    if (ss) {
        cfVec3 p = cfu_zero3();
        for (int k = 0; k < ss->n; ++k) p = cfu_mul_add(p, ss->w[k], x1[ss->body][ss->node[k]]);
        return p;
    }
    if (body >= 0) return moved_point(&w->bodies[body], &b1[body], c->p);
    return c->p;
}

static double side_offset(const cfWorld *w, const cfContact *c)
{
    const cfSoftSide *sa = cf_contact_soft(c, 0), *sb = cf_contact_soft(c, 1);
    return (sa ? offset_of(&w->soft[sa->body]) : 0.0) + (sb ? offset_of(&w->soft[sb->body]) : 0.0);
}

/* A contact for a CCD hit of point (side B: a soft vertex, or rigid body rb's point q) against
   triangle t of soft body A, at the start positions: the normal at the time of impact, the
   triangle's weights at that time, the gap along the normal now. In @p out, its extra in @p x. */
static void ccd_face_contact(const cfWorld *w, int A, int t, const cfCcdResult *r, int B, int vert, int rb, int corner,
                             cfVec3 q, cfContact *out, cfContactExtra *x)
{
    const cfSoftBody *sa = &w->soft[A];
    const int *v = sa->tris[t];
    double wt[3] = {1.0 - r->a - r->b, r->a, r->b};
    cfContact c;
    soft_contact(&c, x);
    c.body_a = -1;
    c.body_b = rb;
    x->soft_a = soft_point(A, 3, v, wt);
    cfVec3 pa = cfu_zero3();
    for (int k = 0; k < 3; ++k) pa = cfu_mul_add(pa, wt[k], sa->x[v[k]]);
    cfVec3 pb = q;
    double mu = sa->mu;
    if (rb < 0) {
        const double one = 1.0;
        x->soft_b = soft_point(B, 1, &vert, &one);
        pb = w->soft[B].x[vert];
        mu = sqrt(fmax(sa->mu, 0.0) * fmax(w->soft[B].mu, 0.0));
        c.feature = face_feature(t, vert);
    } else {
        mu = sqrt(fmax(sa->mu, 0.0) * fmax(w->bodies[rb].mu, 0.0));
        c.feature = face_feature(t, corner);
    }
    c.n = r->n;
    c.p = rb < 0 ? pa : q;
    c.phi = cfu_dot(c.n, cfu_sub(pb, pa)) - side_offset(w, &c);
    c.mu = mu;
    *out = c;
}

static uint32_t edge_feature(const int e1[2], const int e2[2])
{
    uint32_t h = (uint32_t)e1[0] * 2654435761u ^ (uint32_t)e1[1] * 40503u;
    h ^= ((uint32_t)e2[0] * 97u + (uint32_t)e2[1]) * 2246822519u;
    return cf_feature(CF_FEAT_SOFT_EDGE, h);
}

/* edge-edge contact of edge (A, ea) and (B, eb) with parameters s, t along them, normal n from A
   to B, at the start positions; in @p out, its extra in @p x */
static void edge_contact(const cfWorld *w, int A, const int ea[2], int B, const int eb[2], double sp, double tp, cfVec3 n,
                         cfContact *out, cfContactExtra *x)
{
    const cfSoftBody *a = &w->soft[A], *b = &w->soft[B];
    double wa[2] = {1.0 - sp, sp}, wb[2] = {1.0 - tp, tp};
    cfContact c;
    soft_contact(&c, x);
    c.body_a = c.body_b = -1;
    x->soft_a = soft_point(A, 2, ea, wa);
    x->soft_b = soft_point(B, 2, eb, wb);
    cfVec3 pa = cfu_mul_add(cfu_scale(wa[0], a->x[ea[0]]), wa[1], a->x[ea[1]]);
    cfVec3 pb = cfu_mul_add(cfu_scale(wb[0], b->x[eb[0]]), wb[1], b->x[eb[1]]);
    c.n = n;
    c.p = pa;
    c.phi = cfu_dot(n, cfu_sub(pb, pa)) - offset_of(a) - offset_of(b);
    c.mu = sqrt(fmax(a->mu, 0.0) * fmax(b->mu, 0.0));
    c.feature = edge_feature(ea, eb);
    *out = c;
}


/* ---- the surfaces of every soft body as features -------------------------------------------- */

/* every surface triangle, edge and vertex of the world's soft bodies (global lists) */
typedef struct Surfaces {
    int nt, ne, nv;
    int *tri_body, *tri;      /* triangle t: body, index in the body */
    int *edge_body, (*edge)[2]; /* edge e: body, nodes (lo < hi) */
    cfVec3 *edge_normal;      /* sum of the outward normals of the edge's triangles */
    int *vert_body, *vert;    /* vertex v: body, node */
    double cell;              /* hash cell: about the longest surface edge */
} Surfaces;

static void surfaces_free(Surfaces *S)
{
    free(S->tri_body), free(S->tri), free(S->edge_body), free(S->edge), free(S->edge_normal);
    free(S->vert_body), free(S->vert);
    memset(S, 0, sizeof *S);
}

typedef struct EdgeRec {
    int lo, hi, tri;
} EdgeRec;

static int edge_rec_cmp(const void *x, const void *y)
{
    const EdgeRec *p = x, *q = y;
    if (p->lo != q->lo) return p->lo < q->lo ? -1 : 1;
    if (p->hi != q->hi) return p->hi < q->hi ? -1 : 1;
    return (p->tri > q->tri) - (p->tri < q->tri);
}

static cfStatus surfaces_build(const cfWorld *w, Surfaces *S)
{
    memset(S, 0, sizeof *S);
    int nt = 0, nv = 0, ne_max = 0;
    for (int i = 0; i < w->n_soft; ++i) {
        nt += w->soft[i].n_tris;
        ne_max += 3 * w->soft[i].n_tris;
        nv += w->soft[i].n_nodes;
    }
    size_t one = 1;
    S->tri_body = malloc((nt ? (size_t)nt : one) * sizeof *S->tri_body);
    S->tri = malloc((nt ? (size_t)nt : one) * sizeof *S->tri);
    S->edge_body = malloc((ne_max ? (size_t)ne_max : one) * sizeof *S->edge_body);
    S->edge = malloc((ne_max ? (size_t)ne_max : one) * sizeof *S->edge);
    S->edge_normal = malloc((ne_max ? (size_t)ne_max : one) * sizeof *S->edge_normal);
    S->vert_body = malloc((nv ? (size_t)nv : one) * sizeof *S->vert_body);
    S->vert = malloc((nv ? (size_t)nv : one) * sizeof *S->vert);
    EdgeRec *rec = malloc((ne_max ? (size_t)ne_max : one) * sizeof *rec);
    if (!S->tri_body || !S->tri || !S->edge_body || !S->edge || !S->edge_normal || !S->vert_body || !S->vert || !rec) {
        free(rec);
        surfaces_free(S);
        return CF_NO_MEMORY;
    }
    double longest = 0.0;
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *b = &w->soft[i];
        unsigned char *mark = surface_nodes(b);
        if (!mark) {
            free(rec);
            surfaces_free(S);
            return CF_NO_MEMORY;
        }
        for (int k = 0; k < b->n_nodes; ++k)
            if (mark[k]) S->vert_body[S->nv] = i, S->vert[S->nv++] = k;
        free(mark);
        int nr = 0;
        for (int t = 0; t < b->n_tris; ++t) {
            S->tri_body[S->nt] = i, S->tri[S->nt++] = t;
            for (int k = 0; k < 3; ++k) {
                int p = b->tris[t][k], q = b->tris[t][(k + 1) % 3];
                rec[nr++] = (EdgeRec){p < q ? p : q, p < q ? q : p, t};
                longest = fmax(longest, cfu_norm(cfu_sub(b->x[p], b->x[q])));
            }
        }
        qsort(rec, (size_t)nr, sizeof *rec, edge_rec_cmp);
        for (int r = 0; r < nr;) {
            int e = S->ne++;
            S->edge_body[e] = i;
            S->edge[e][0] = rec[r].lo;
            S->edge[e][1] = rec[r].hi;
            S->edge_normal[e] = cfu_zero3();
            int q = r;
            for (; q < nr && rec[q].lo == rec[r].lo && rec[q].hi == rec[r].hi; ++q) {
                const int *v = b->tris[rec[q].tri];
                cfVec3 m = cfu_cross(cfu_sub(b->x[v[1]], b->x[v[0]]), cfu_sub(b->x[v[2]], b->x[v[0]]));
                double len = cfu_norm(m);
                if (len > 0.0) S->edge_normal[e] = cfu_add(S->edge_normal[e], cfu_scale(1.0 / len, m));
            }
            r = q;
        }
    }
    free(rec);
    S->cell = longest > 0.0 ? longest : 1.0;
    return CF_OK;
}

static bool in_tri(const int *v, int node) { return v[0] == node || v[1] == node || v[2] == node; }

static bool share_node(const int a[2], const int b[2])
{
    return a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1];
}

/* the features of two soft bodies may touch: different bodies, or a sheet with itself */
static bool may_touch(const cfWorld *w, int A, int B) { return A != B || sheet(&w->soft[A]); }

/* the box of triangle t of body b at positions x0 and (when x1) x1 */
static cfAabb tri_box(const cfWorld *w, int b, int t, cfVec3 *const *x1)
{
    cfAabb box = cf_aabb_empty();
    for (int k = 0; k < 3; ++k) {
        int n = w->soft[b].tris[t][k];
        box = cf_aabb_add_point(box, w->soft[b].x[n]);
        if (x1) box = cf_aabb_add_point(box, x1[b][n]);
    }
    return box;
}

static cfAabb edge_box(const cfWorld *w, int b, const int e[2], cfVec3 *const *x1)
{
    cfAabb box = cf_aabb_empty();
    for (int k = 0; k < 2; ++k) {
        box = cf_aabb_add_point(box, w->soft[b].x[e[k]]);
        if (x1) box = cf_aabb_add_point(box, x1[b][e[k]]);
    }
    return box;
}

static double max_offset(const cfWorld *w)
{
    double m = 0.0;
    for (int i = 0; i < w->n_soft; ++i) m = fmax(m, offset_of(&w->soft[i]));
    return m;
}

/* Proximity between soft surfaces (detector "surfaces"): every surface vertex against every
   triangle near it (point_triangle()), and every pair of surface edges whose closest points are
   interior to both (5 % from the ends) and within the margin of each other, the gap negative
   when a volumetric side's outward normals say the other edge is inside;
   a sheet also against itself, features that share a node excepted. Candidates by a spatial
   hash; contacts in vertex order, then edge order. */
static cfStatus soft_surfaces(const cfWorld *w, double margin, cfContactList *out, cfDetectStats *st)
{
    Surfaces S;
    cfStatus res = surfaces_build(w, &S);
    if (res != CF_OK) return res;
    double reach = margin + 2.0 * max_offset(w);
    cfAabb *box = malloc((size_t)(S.nt > S.ne ? (S.nt > 0 ? S.nt : 1) : S.ne) * sizeof *box);
    cfSpatialHash h;
    memset(&h, 0, sizeof h);
    if (!box) res = CF_NO_MEMORY;
    /* vertices against triangles */
    for (int t = 0; t < S.nt && res == CF_OK; ++t) box[t] = cf_aabb_inflate(tri_box(w, S.tri_body[t], S.tri[t], NULL), reach);
    if (res == CF_OK) res = cf_hash_build(&h, box, S.nt, S.cell);
    for (int v = 0; v < S.nv && res == CF_OK; ++v) {
        int B = S.vert_body[v], node = S.vert[v];
        cfVec3 x = w->soft[B].x[node];
        const int *items;
        int m = cf_hash_query(&h, cf_aabb_add_point(cf_aabb_empty(), x), &items);
        if (m < 0) res = CF_NO_MEMORY;
        for (int q = 0; q < m && res == CF_OK; ++q) {
            int A = S.tri_body[items[q]], t = S.tri[items[q]];
            if (!may_touch(w, A, B) || (A == B && in_tri(w->soft[A].tris[t], node))) continue;
            st->candidate_pairs++;
            cfContact c;
            cfContactExtra xc;
            if (!point_triangle(&w->soft[A], A, t, x, margin, offset_of(&w->soft[B]), &c, &xc)) continue;
            const double one = 1.0;
            xc.soft_b = soft_point(B, 1, &node, &one);
            c.mu = sqrt(fmax(w->soft[A].mu, 0.0) * fmax(w->soft[B].mu, 0.0));
            c.feature = face_feature(t, node);
            res = push(out, &c, st);
        }
    }
    cf_hash_free(&h);
    /* edges against edges */
    for (int e = 0; e < S.ne && res == CF_OK; ++e) box[e] = cf_aabb_inflate(edge_box(w, S.edge_body[e], S.edge[e], NULL), 0.5 * reach);
    if (res == CF_OK) res = cf_hash_build(&h, box, S.ne, S.cell);
    for (int e = 0; e < S.ne && res == CF_OK; ++e) {
        const int *items;
        int m = cf_hash_query(&h, box[e], &items);
        if (m < 0) res = CF_NO_MEMORY;
        int A = S.edge_body[e];
        const cfVec3 *xa = w->soft[A].x;
        for (int q = 0; q < m && res == CF_OK; ++q) {
            int f = items[q], B = S.edge_body[f];
            if (f <= e || !may_touch(w, A, B) || (A == B && share_node(S.edge[e], S.edge[f]))) continue;
            st->candidate_pairs++;
            const cfVec3 *xb = w->soft[B].x;
            double sp, tp;
            double d2 = cf_segment_closest(xa[S.edge[e][0]], xa[S.edge[e][1]], xb[S.edge[f][0]], xb[S.edge[f][1]], &sp, &tp);
            /* closest points near an end are vertex cases, left to vertex-face */
            if (sp <= 0.05 || sp >= 0.95 || tp <= 0.05 || tp >= 0.95) continue;
            double dist = sqrt(d2);
            if (!(dist > 1e-12) || dist - offset_of(&w->soft[A]) - offset_of(&w->soft[B]) > margin) continue;
            cfVec3 pa = cfu_mul_add(xa[S.edge[e][0]], sp, cfu_sub(xa[S.edge[e][1]], xa[S.edge[e][0]]));
            cfVec3 pb = cfu_mul_add(xb[S.edge[f][0]], tp, cfu_sub(xb[S.edge[f][1]], xb[S.edge[f][0]]));
            cfVec3 n = cfu_scale(1.0 / dist, cfu_sub(pb, pa));
            /* a volumetric side says which side is outside: pointing into A (or out of B's outside
               toward A) means the edges have crossed: the normal turns, the gap is negative */
            bool crossed = (!sheet(&w->soft[A]) && cfu_dot(n, S.edge_normal[e]) < 0.0) ||
                           (sheet(&w->soft[A]) && !sheet(&w->soft[B]) && cfu_dot(n, S.edge_normal[f]) > 0.0);
            if (crossed) n = cfu_neg(n);
            cfContact c;
            cfContactExtra x;
            edge_contact(w, A, S.edge[e], B, S.edge[f], sp, tp, n, &c, &x);
            res = push(out, &c, st);
        }
    }
    cf_hash_free(&h);
    free(box);
    surfaces_free(&S);
    return res;
}

/* ---- CCD ---------------------------------------------------------------------------------- */

/* one CCD hit: a contact at the start positions, unless the pair is constrained already (then
   it counts as colliding when its end gap is below -tol) */
typedef struct Hits {
    const cfWorld *w;
    cfVec3 *const *x1;
    const cfRigidBody *b1;
    const Key *known;
    int n_known;
    const cfContactList *known_list; /* the contacts the keys index */
    double tol;
    cfContactList found;
    int colliding;
} Hits;

static cfStatus hit(Hits *H, const cfContact *c)
{
    Key k = key_of(c, -1);
    const Key *found = H->n_known ? bsearch(&k, H->known, (size_t)H->n_known, sizeof k, key_cmp) : NULL;
    if (found) { /* constrained: does the pair still cross at the end beyond the tolerance? */
        const cfWorld *w = H->w;
        const cfContact *o = &H->known_list->items[found->index];
        double gap = cfu_dot(o->n, cfu_sub(side_point(w, o, 1, H->x1, H->b1), side_point(w, o, 0, H->x1, H->b1))) -
                     side_offset(w, o);
        if (gap < -H->tol) H->colliding++;
        return CF_OK;
    }
    return cf_contacts_push(&H->found, c);
}

/* the contacts of the linear motion from the current state to x1 (soft) and b1 (rigid) that
   cross: new pairs in @p out, pairs already in @p known counted in *colliding */
cfStatus cf_detect_ccd(const cfWorld *w, const cfContactList *known_list, cfVec3 *const *x1, const cfRigidBody *b1,
                       double margin, cfContactList *out, int *colliding)
{
    *colliding = 0;
    Hits H = {.w = w, .x1 = x1, .b1 = b1, .tol = fmax(0.5 * margin, 1e-9)};
    Key *known = malloc((size_t)(known_list->count > 0 ? known_list->count : 1) * sizeof *known);
    if (!known) return CF_NO_MEMORY;
    for (int a = 0; a < known_list->count; ++a) known[a] = key_of(&known_list->items[a], a);
    qsort(known, (size_t)known_list->count, sizeof *known, key_cmp);
    H.known = known;
    H.n_known = known_list->count;
    H.known_list = known_list;
    Surfaces S;
    cfStatus res = surfaces_build(w, &S);
    cfSpatialHash h;
    memset(&h, 0, sizeof h);
    int nbox = S.nt > S.ne ? S.nt : S.ne;
    cfAabb *box = res == CF_OK ? malloc((size_t)(nbox > 0 ? nbox : 1) * sizeof *box) : NULL;
    if (res == CF_OK && !box) res = CF_NO_MEMORY;
    /* surface vertices against rigid shapes: the end position inside the shape's end pose */
    for (int v = 0; v < S.nv && res == CF_OK; ++v) {
        int B = S.vert_body[v], node = S.vert[v];
        const cfSoftBody *sb = &w->soft[B];
        if (sb->fixed[node]) continue;
        cfAabb sw = cf_aabb_add_point(cf_aabb_add_point(cf_aabb_empty(), sb->x[node]), x1[B][node]);
        for (int r = 0; r < w->n_bodies && res == CF_OK; ++r) {
            const cfRigidBody *r0 = &w->bodies[r], *r1 = &b1[r];
            if (r0->shape.type != CF_SHAPE_PLANE &&
                !cf_aabb_overlap(sw, cf_aabb_union(cf_aabb_of_body(r0), cf_aabb_of_body(r1))))
                continue;
            double phi1, phi0;
            cfVec3 n1, n0;
            if (!point_gap(r1, x1[B][node], &phi1, &n1) || phi1 - offset_of(sb) >= 0.0) continue;
            if (!point_gap(r0, sb->x[node], &phi0, &n0)) continue;
            cfContact c;
            cfContactExtra x;
            soft_contact(&c, &x);
            c.body_a = r;
            c.body_b = -1;
            const double one = 1.0;
            x.soft_b = soft_point(B, 1, &node, &one);
            c.n = n0;
            c.p = cfu_sub(sb->x[node], cfu_scale(phi0, n0));
            c.phi = phi0 - offset_of(sb);
            c.mu = sqrt(fmax(sb->mu, 0.0) * fmax(r0->mu, 0.0));
            c.feature = cf_feature(CF_FEAT_SOFT_NODE, (uint32_t)node);
            res = hit(&H, &c);
        }
    }
    /* vertices (soft surface vertices, rigid box corners) against triangles */
    for (int t = 0; t < S.nt && res == CF_OK; ++t) box[t] = tri_box(w, S.tri_body[t], S.tri[t], x1);
    if (res == CF_OK) res = cf_hash_build(&h, box, S.nt, S.cell);
    for (int v = 0; v < S.nv && res == CF_OK; ++v) {
        int B = S.vert_body[v], node = S.vert[v];
        cfVec3 p0 = w->soft[B].x[node], p1 = x1[B][node];
        const int *items;
        int m = cf_hash_query(&h, cf_aabb_add_point(cf_aabb_add_point(cf_aabb_empty(), p0), p1), &items);
        if (m < 0) res = CF_NO_MEMORY;
        for (int q = 0; q < m && res == CF_OK; ++q) {
            int A = S.tri_body[items[q]], t = S.tri[items[q]];
            const int *tv = w->soft[A].tris[t];
            if (!may_touch(w, A, B) || (A == B && in_tri(tv, node))) continue;
            cfVec3 x[4] = {w->soft[A].x[tv[0]], w->soft[A].x[tv[1]], w->soft[A].x[tv[2]], p0};
            cfVec3 u[4] = {cfu_sub(x1[A][tv[0]], x[0]), cfu_sub(x1[A][tv[1]], x[1]), cfu_sub(x1[A][tv[2]], x[2]), cfu_sub(p1, p0)};
            cfCcdResult r = cf_ccd_vertex_face(x, u, 1.0);
            if (r.status != CF_CCD_HIT) continue;
            cfContact c;
            cfContactExtra xc;
            ccd_face_contact(w, A, t, &r, B, node, -1, 0, p0, &c, &xc);
            res = hit(&H, &c);
        }
    }
    for (int rb = 0; rb < w->n_bodies && res == CF_OK; ++rb) {
        if (w->bodies[rb].shape.type != CF_SHAPE_BOX) continue;
        cfObb o0 = cf_obb_of_body(&w->bodies[rb]), o1 = cf_obb_of_body(&b1[rb]);
        for (int k = 0; k < 8 && res == CF_OK; ++k) {
            cfVec3 p0 = cf_obb_vertex(&o0, k), p1 = cf_obb_vertex(&o1, k);
            const int *items;
            int m = cf_hash_query(&h, cf_aabb_add_point(cf_aabb_add_point(cf_aabb_empty(), p0), p1), &items);
            if (m < 0) res = CF_NO_MEMORY;
            for (int q = 0; q < m && res == CF_OK; ++q) {
                int A = S.tri_body[items[q]], t = S.tri[items[q]];
                const int *tv = w->soft[A].tris[t];
                cfVec3 x[4] = {w->soft[A].x[tv[0]], w->soft[A].x[tv[1]], w->soft[A].x[tv[2]], p0};
                cfVec3 u[4] = {cfu_sub(x1[A][tv[0]], x[0]), cfu_sub(x1[A][tv[1]], x[1]), cfu_sub(x1[A][tv[2]], x[2]), cfu_sub(p1, p0)};
                cfCcdResult r = cf_ccd_vertex_face(x, u, 1.0);
                if (r.status != CF_CCD_HIT) continue;
                cfContact c;
                cfContactExtra xc;
                ccd_face_contact(w, A, t, &r, -1, 0, rb, k, p0, &c, &xc);
                res = hit(&H, &c);
            }
        }
    }
    cf_hash_free(&h);
    /* edges against edges */
    for (int e = 0; e < S.ne && res == CF_OK; ++e) box[e] = edge_box(w, S.edge_body[e], S.edge[e], x1);
    if (res == CF_OK) res = cf_hash_build(&h, box, S.ne, S.cell);
    for (int e = 0; e < S.ne && res == CF_OK; ++e) {
        const int *items;
        int m = cf_hash_query(&h, box[e], &items);
        if (m < 0) res = CF_NO_MEMORY;
        int A = S.edge_body[e];
        for (int q = 0; q < m && res == CF_OK; ++q) {
            int f = items[q], B = S.edge_body[f];
            if (f <= e || !may_touch(w, A, B) || (A == B && share_node(S.edge[e], S.edge[f]))) continue;
            const int *ea = S.edge[e], *eb = S.edge[f];
            cfVec3 x[4] = {w->soft[A].x[ea[0]], w->soft[A].x[ea[1]], w->soft[B].x[eb[0]], w->soft[B].x[eb[1]]};
            cfVec3 u[4] = {cfu_sub(x1[A][ea[0]], x[0]), cfu_sub(x1[A][ea[1]], x[1]), cfu_sub(x1[B][eb[0]], x[2]),
                           cfu_sub(x1[B][eb[1]], x[3])};
            cfCcdResult r = cf_ccd_edge_edge(x, u, 1.0);
            if (r.status != CF_CCD_HIT || r.a <= 0.0 || r.a >= 1.0 || r.b <= 0.0 || r.b >= 1.0) continue;
            cfContact c;
            cfContactExtra xc;
            edge_contact(w, A, ea, B, eb, r.a, r.b, r.n, &c, &xc);
            res = hit(&H, &c);
        }
    }
    cf_hash_free(&h);
    free(box);
    surfaces_free(&S);
    free(known);
    /* new pairs once each (a pair can be hit from both of its features) */
    int nf = H.found.count;
    if (res == CF_OK && nf > 0) {
        Key *keys = malloc((size_t)nf * sizeof *keys);
        if (!keys) res = CF_NO_MEMORY;
        for (int a = 0; a < nf && res == CF_OK; ++a) keys[a] = key_of(&H.found.items[a], a);
        if (res == CF_OK) {
            /* sort by pair, keep the first hit of each, then restore the order of discovery */
            qsort(keys, (size_t)nf, sizeof *keys, key_cmp);
            int nu = 0;
            for (int a = 0; a < nf; ++a)
                if (a == 0 || key_cmp(&keys[a], &keys[nu - 1]) != 0) keys[nu++] = keys[a];
                else if (keys[a].index < keys[nu - 1].index) keys[nu - 1].index = keys[a].index;
            bool *keep = calloc((size_t)nf, sizeof *keep);
            if (!keep) res = CF_NO_MEMORY;
            for (int a = 0; keep && a < nu; ++a) keep[keys[a].index] = true;
            for (int a = 0; keep && a < nf && res == CF_OK; ++a)
                if (keep[a]) res = cf_contacts_push(out, &H.found.items[a]);
            free(keep);
        }
        free(keys);
    }
    cf_contacts_free(&H.found);
    *colliding = H.colliding;
    return res;
}
