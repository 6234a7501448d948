/* SPDX-License-Identifier: MIT */
/* Rigid detection over a whole world: the pass over the broad phase's candidate pairs, each
   pair's contacts from the narrow phase (detect_rigid.c) or, with persistent manifolds, moved from
   the last pass's while the pair has hardly moved; on several threads for many pairs, with one
   thread's contacts bit for bit. */
#include "cf/cf_detect.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cf/cf_ch03.h"
#include "cf/cf_world.h"
#include "internal.h"

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
    struct BodyPose *pose;    /* per body: this pass's poses (a pass with manifolds) */
    int cap_pose;
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
    free(c->pose);
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

/* what the manifolds read of a body's pose, once per pass instead of once per pair: its unit
   quaternion, the rotation matrix of it and its bounding radius (each exactly what the pair's
   own computation would give) */
typedef struct BodyPose {
    cfQuat q;
    cfMat3 R;
    double radius;
} BodyPose;

static BodyPose body_pose(const cfRigidBody *b)
{
    BodyPose p;
    p.q = cfu_quat_normalize(b->q);
    p.R = cfu_quat_to_mat3(p.q);
    p.radius = bound_radius(&b->shape);
    return p;
}

static void relative_pose(const cfRigidBody *a, const BodyPose *pa, const cfRigidBody *b, const BodyPose *pb, cfVec3 *dx,
                          cfQuat *dq)
{
    *dx = cfu_quat_rotate(cfu_quat_conj(pa->q), cfu_sub(b->x, a->x));
    *dq = cfu_quat_mul(cfu_quat_conj(pa->q), pb->q);
}

/* how far a point of either body has moved relative to the other since the cache entry (m):
   the translation plus the rotation at the bodies' bounding radii (the rotation's chord
   2 sin(angle/2), the angle itself for the small ones that matter) */
static double pose_change(const CachedPair *e, const cfRigidBody *a, const BodyPose *pa, const cfRigidBody *b,
                          const BodyPose *pb)
{
    cfVec3 dx;
    cfQuat dq;
    relative_pose(a, pa, b, pb, &dx, &dq);
    cfQuat r = cfu_quat_mul(cfu_quat_conj(e->dq), dq);
    double chord = 2.0 * sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    return cfu_norm(cfu_sub(dx, e->dx)) + chord * (pa->radius + pb->radius);
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

/* the two bodies of a pair, with their indices and (a pass with manifolds) their poses */
typedef struct Sides {
    const cfRigidBody *a, *b;
    int ia, ib;
    const BodyPose *pa, *pb;
} Sides;

/* record the n contacts of pair @p s just detected at the bodies' present poses in entry e, its
   points in pts[first ..] */
static void manifold_record(CachedPair *e, CachedPoint *pts, int first, const Sides *s, const cfContact *con, int n)
{
    const cfRigidBody *A = s->a, *B = s->b;
    e->a = s->ia;
    e->b = s->ib;
    relative_pose(A, s->pa, B, s->pb, &e->dx, &e->dq);
    e->first = first;
    e->n = n;
    cfQuat qa = cfu_quat_conj(s->pa->q), qb = cfu_quat_conj(s->pb->q);
    for (int k = 0; k < n; ++k) {
        CachedPoint *q = &pts[first + k];
        cfVec3 pa = cfu_mul_add(con[k].p, -0.5 * con[k].phi, con[k].n), pb = cfu_mul_add(con[k].p, 0.5 * con[k].phi, con[k].n);
        q->pa = cfu_quat_rotate(qa, cfu_sub(pa, A->x));
        q->pb = cfu_quat_rotate(qb, cfu_sub(pb, B->x));
        q->n = cfu_quat_rotate(qa, con[k].n);
        q->feature = con[k].feature;
    }
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
__attribute__((always_inline)) static inline void cache_emit(const Manifolds *c, const CachedPair *e, const Sides *s,
                                                             cfContact *out)
{
    const cfRigidBody *A = s->a, *B = s->b;
    const cfMat3 Ra = s->pa->R, Rb = s->pb->R;
    double mu = sqrt(fmax(A->mu, 0.0) * fmax(B->mu, 0.0));
    for (int k = 0; k < e->n; ++k) {
        const CachedPoint *q = &c->pts[e->first + k];
        cfVec3 pa = cfu_add(A->x, cfu_mat3_mul_vec(Ra, q->pa)), pb = cfu_add(B->x, cfu_mat3_mul_vec(Rb, q->pb));
        cfContact *o = &out[k];
        memset(o, 0, sizeof *o);
        o->body_a = s->ia;
        o->body_b = s->ib;
        o->n = cfu_mat3_mul_vec(Ra, q->n);
        o->p = cfu_scale(0.5, cfu_add(pa, pb));
        o->phi = cfu_dot(o->n, cfu_sub(pb, pa));
        o->mu = mu;
        o->feature = q->feature;
    }
}

/* ---- a pass over the candidate pairs -------------------------------------------------------- */

/* One pass: the world and options; the manifolds of the last pass (old; NULL: nothing is kept) and
   of this one (now; NULL: nothing recorded), the tolerance on a kept pair's motion; where the
   contacts and the counts go */
typedef struct Pass {
    const cfWorld *w;
    const cfDetectOptions *o;
    const Manifolds *old;
    Manifolds *now;
    double tol;
    cfContactList *out;
    cfDetectStats *st;
    const BodyPose *pose; /* per body (old or now present), else NULL */
} Pass;

static Sides sides_of(const Pass *p, int i, int j)
{
    return (Sides){&p->w->bodies[i], &p->w->bodies[j], i, j, p->pose ? &p->pose[i] : NULL, p->pose ? &p->pose[j] : NULL};
}

/* whether the pair keeps its contacts of the last pass: it is there (the cursor *j_old walks old's
   pairs in order and stops at it) and has moved less than tol since */
static inline bool kept_entry(const Pass *p, int *j_old, const Sides *s)
{
    const Manifolds *old = p->old;
    int i = s->ia, j = s->ib;
    while (*j_old < old->n_pairs && (old->pairs[*j_old].a < i || (old->pairs[*j_old].a == i && old->pairs[*j_old].b < j)))
        ++*j_old;
    const CachedPair *e = *j_old < old->n_pairs ? &old->pairs[*j_old] : NULL;
    return e && e->a == i && e->b == j && pose_change(e, s->a, s->pa, s->b, s->pb) <= p->tol;
}

/* the contacts of pair (i, j), appended to the pass's list: kept from the last pass's manifolds
   (kept_entry()), else from the narrow phase; recorded in the pass's manifolds when it has them */
static cfStatus emit_pair(const Pass *p, int i, int j, int *j_old)
{
    Sides s = sides_of(p, i, j);
    if (s.a->fixed && s.b->fixed) return CF_OK;
    Manifolds *now = p->now;
    cfContactList *out = p->out;
    p->st->candidate_pairs++;
    /* the pair's contacts are written in place, at the end of the list */
    cfStatus r = cf_contacts_reserve(out, CF_BOX_MAX_CONTACTS);
    if (r == CF_OK && now) r = cache_reserve(now, now->n_pairs + 1, now->n_pts + CF_BOX_MAX_CONTACTS);
    if (r != CF_OK) return r;
    cfContact *c = out->items + out->count;
    if (p->old && kept_entry(p, j_old, &s)) {
        const CachedPair *e = &p->old->pairs[*j_old];
        cache_emit(p->old, e, &s, c);
        cache_keep(p->old, e, &now->pairs[now->n_pairs++], now->pts, now->n_pts);
        now->n_pts += e->n;
        out->count += e->n;
        p->st->contacts += e->n;
        p->st->reused++;
        return CF_OK;
    }
    int n = cf_detect_pair(s.a, i, s.b, j, p->o, c);
    if (n < 0) {
        p->st->unsupported++;
        return CF_OK;
    }
    p->st->narrow_calls++;
    if (now) {
        manifold_record(&now->pairs[now->n_pairs++], now->pts, now->n_pts, &s, c, n);
        now->n_pts += n;
    }
    out->count += n;
    p->st->contacts += n;
    return CF_OK;
}

/* the fat boxes' pairs (c->pairs, which the pass reads in place) when every body is still inside
   its fat box, else a broad phase of new fat boxes (kept in c) */
static cfStatus fat_pairs(const cfWorld *w, const cfDetectOptions *o, struct cfManifoldCache *c, cfDetectStats *st)
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
        cfStatus s = cf_candidate_pairs(w, o, CF_FAT_MARGIN, &c->pairs, st);
        if (s != CF_OK) return s;
        c->has_pairs = true;
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
static cfStatus classify_range(const Pass *p, const cfPairList *pairs, int lo, int hi, PairJob *jobs, cfContactList *scratch,
                               int t)
{
    const Manifolds *old = p->old;
    int j_old = old ? old_cursor(old, pairs->items[lo].a, pairs->items[lo].b) : 0;
    for (int k = lo; k < hi; ++k) {
        Sides s = sides_of(p, pairs->items[k].a, pairs->items[k].b);
        PairJob *jb = &jobs[k];
        jb->n = jb->old = -1;
        if (s.a->fixed && s.b->fixed) continue;
        if (old && kept_entry(p, &j_old, &s)) {
            jb->old = j_old;
            jb->n = old->pairs[j_old].n;
            continue;
        }
        cfStatus r = cf_contacts_reserve(scratch, CF_BOX_MAX_CONTACTS);
        if (r != CF_OK) return r;
        jb->n = cf_detect_pair(s.a, s.ia, s.b, s.ib, p->o, scratch->items + scratch->count);
        jb->thread = t;
        jb->src = scratch->count;
        if (jb->n > 0) scratch->count += jb->n;
    }
    return CF_OK;
}

/* Phase 2 (one thread): every pair's place in the list and the cache, in pair order, and the
   counts emit_pair() keeps; room for them */
static cfStatus place_all(const Pass *p, const cfPairList *pairs, PairJob *jobs)
{
    const cfWorld *w = p->w;
    cfDetectStats *st = p->st;
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
    cfStatus r = cf_contacts_reserve(p->out, at);
    if (r == CF_OK && p->now) r = cache_reserve(p->now, entry, at);
    if (r != CF_OK) return r;
    p->out->count = at;
    if (p->now) {
        p->now->n_pairs = entry;
        p->now->n_pts = at;
    }
    return CF_OK;
}

/* Phase 3, pairs [lo, hi): their contacts and manifolds written where phase 2 placed them */
static void place_range(const Pass *p, const cfPairList *pairs, int lo, int hi, const PairJob *jobs,
                        const cfContactList *scratch)
{
    for (int k = lo; k < hi; ++k) {
        const PairJob *jb = &jobs[k];
        if (jb->n < 0) continue;
        Sides s = sides_of(p, pairs->items[k].a, pairs->items[k].b);
        cfContact *c = p->out->items + jb->at;
        if (jb->old >= 0) {
            cache_emit(p->old, &p->old->pairs[jb->old], &s, c);
            cache_keep(p->old, &p->old->pairs[jb->old], &p->now->pairs[jb->entry], p->now->pts, jb->at);
            continue;
        }
        memcpy(c, scratch[jb->thread].items + jb->src, (size_t)jb->n * sizeof *c);
        if (p->now) manifold_record(&p->now->pairs[jb->entry], p->now->pts, jb->at, &s, c, jb->n);
    }
}

/* the end of the run of pairs that starts at lo, of n */
static int run_end(int lo, int n) { return lo + CF_DETECT_RUN < n ? lo + CF_DETECT_RUN : n; }

/* The narrow phase of every pair (emit_pair()'s work, in pair order), on @p threads threads
   (one below CF_DETECT_THREAD_MIN_PAIRS pairs) in three phases: each thread takes runs of pairs
   and decides for each whether its contacts are kept or detected anew into its scratch;
   one thread places every pair's contacts and manifold in pair order; the threads write them
   there (kept contacts moved in place, new ones copied from the scratch). Every pair's contacts
   are computed as on one thread: the lists are one thread's, bit for bit. */
static cfStatus emit_all(const Pass *p, const cfPairList *pairs, struct cfManifoldCache *cache, int threads)
{
    int T = cache && pairs->count >= CF_DETECT_THREAD_MIN_PAIRS ? threads : 1;
    if (T <= 1) {
        int j_old = 0;
        cfStatus s = CF_OK;
        for (int k = 0; s == CF_OK && k < pairs->count; ++k) s = emit_pair(p, pairs->items[k].a, pairs->items[k].b, &j_old);
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
            if (classified[t] == CF_OK) classified[t] = classify_range(p, pairs, lo, hi, cache->jobs, scratch, t);
        }
#pragma omp single
        {
            for (int k = 0; k < T; ++k)
                if (s == CF_OK) s = classified[k];
            if (s == CF_OK) s = place_all(p, pairs, cache->jobs);
        }
        if (s == CF_OK) {
#pragma omp for schedule(dynamic)
            for (int r = 0; r < runs; ++r) {
                int lo = r * CF_DETECT_RUN;
                place_range(p, pairs, lo, run_end(lo, pairs->count), cache->jobs, cache->scratch);
            }
        }
    }
    return s;
}

/* ---- the world ------------------------------------------------------------------------------ */

/* the manifolds of the last pass (*old) and of this one (*now) for a pass with tolerance @p tol;
   a cache filled with other options, or for another set of bodies, is forgotten */
static void cache_sets(struct cfManifoldCache *cache, const cfWorld *w, const cfDetectOptions *o, double tol,
                       const Manifolds **old, Manifolds **now)
{
    if (cache->margin != o->margin || cache->max_contacts != o->max_contacts || cache->broadphase != o->broadphase ||
        cache->n_bodies != w->n_bodies) {
        cache->set[cache->cur].n_pairs = cache->set[cache->cur].n_pts = 0;
        cache->has_pairs = false;
        cache->margin = o->margin;
        cache->max_contacts = o->max_contacts;
        cache->broadphase = o->broadphase;
        cache->n_bodies = w->n_bodies;
    }
    if (tol > 0.0) {
        *old = &cache->set[cache->cur];
        *now = &cache->set[1 - cache->cur];
        (*now)->n_pairs = (*now)->n_pts = 0;
    } else { /* nothing reused: a later pass with a tolerance starts afresh */
        cache->set[cache->cur].n_pairs = cache->set[cache->cur].n_pts = 0;
        cache->has_pairs = false;
    }
}

static cfStatus detect_world(const cfWorld *w, const cfDetectOptions *opt, struct cfManifoldCache *cache, double tol,
                             int threads, cfContactList *out, cfDetectStats *stats)
{
    double t0 = cf_seconds();
    cfDetectOptions o = opt ? *opt : cf_detect_options_default();
    cfDetectStats st;
    memset(&st, 0, sizeof st);
    cf_contacts_clear(out);
    if (!cf_detect_options_ok(&o)) return CF_BAD_INPUT;
    for (int i = 0; i < w->n_bodies; ++i)
        if (!cfu_vec3_finite(w->bodies[i].x) || !cfu_quat_finite(w->bodies[i].q)) return CF_BAD_INPUT;
    Pass p = {.w = w, .o = &o, .tol = tol, .out = out, .st = &st};
    if (cache) cache_sets(cache, w, &o, tol, &p.old, &p.now);
    cfPairList pairs = {0, 0, NULL};
    cfStatus s = CF_OK;
    if (p.old || p.now) { /* the manifolds read every body's pose: once per body */
        void *pose = cache->pose;
        s = grow(&pose, &cache->cap_pose, w->n_bodies, 64, sizeof *cache->pose);
        cache->pose = pose;
        for (int i = 0; s == CF_OK && i < w->n_bodies; ++i) cache->pose[i] = body_pose(&w->bodies[i]);
        p.pose = cache->pose;
    }
    if (s == CF_OK) s = p.old ? fat_pairs(w, &o, cache, &st) : cf_candidate_pairs(w, &o, 0.0, &pairs, &st);
    if (s == CF_OK) s = emit_all(&p, p.old ? &cache->pairs : &pairs, cache, threads);
    cf_pairs_free(&pairs);
    if (s == CF_OK && p.now) cache->cur = 1 - cache->cur;
    st.seconds = cf_seconds() - t0;
    if (stats) *stats = st;
    return s;
}

cfStatus cf_detect_world(const cfWorld *w, const cfDetectOptions *opt, cfContactList *out, cfDetectStats *stats)
{
    return detect_world(w, opt, NULL, 0.0, 1, out, stats);
}

cfStatus cf_detect_world_again(void *world, cfRigidBody *bodies, int nb, cfContactList *out)
{
    const cfWorld *w = world;
    (void)bodies, (void)nb;
    cfContactList prev = *out;
    memset(out, 0, sizeof *out);
    cfDetectOptions opt = cf_detect_options_default();
    opt.margin = w->def.contact_margin;
    cfStatus st = cf_detect_world(w, &opt, out, NULL);
    if (st == CF_OK && prev.count > 0 && cf_contacts_carry_impulses(out, &prev) < 0) st = CF_NO_MEMORY;
    cf_contacts_free(&prev);
    return st;
}

cfStatus cf_detect_world_cached(const cfWorld *w, const cfDetectOptions *opt, double tol, int threads,
                                struct cfManifoldCache **cache, cfContactList *out, cfDetectStats *stats)
{
    if (!*cache && !(*cache = calloc(1, sizeof **cache))) return CF_NO_MEMORY;
    return detect_world(w, opt, *cache, tol, threads < 1 ? 1 : threads > CF_MAX_THREADS ? CF_MAX_THREADS : threads, out,
                        stats);
}
