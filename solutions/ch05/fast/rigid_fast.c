/* SPDX-License-Identifier: MIT */
/* The fast matrix-free blocked PGS (registry row "pgs-fast"): ch05.6's method with compact rows, an inlined local solve and box pairs solved side by side. */
#define _POSIX_C_SOURCE 200809L /* sched_yield */

/* This file is compiled twice. As itself it solves two box pairs side by side, in the two lanes
   of SSE2 vectors (any x86-64; elsewhere the same code on GCC's generic vectors). On x86-64 with
   GCC, rigid_fast_wide.c compiles it again for AVX2 with four lanes (CF_FAST_WIDE), its public
   functions renamed *_wide; the functions of the first build hand a work space to the second when
   the processor has AVX2 (cfRigidFast::lanes). The lanes do not change the results: a sweep is the
   sequential sweep however its box pairs are grouped, and both builds do the same operations on
   each lane (no contracted multiply-adds in ISO C), so the two give the same impulses bit for bit
   (test_fast: fast_lanes_solve_as_one). */
#ifdef CF_FAST_WIDE
#define cf_rigid_fast_free cf_rigid_fast_free_wide
#define cf_rigid_fast_prepare cf_rigid_fast_prepare_wide
#define cf_rigid_fast_prepare_rows cf_rigid_fast_prepare_rows_wide
#define cf_rigid_fast_solve cf_rigid_fast_solve_wide
#define cf_rigid_fast_pseudo_velocities cf_rigid_fast_pseudo_velocities_wide
#define cf_rigid_fast_order cf_rigid_fast_order_wide
#define cf_rigid_fast_schedule_model cf_rigid_fast_schedule_model_wide
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CF_FAST_DISPATCH 1 /* rigid_fast_wide.c has the four-lane build */
#endif
#include "cf_rigid_fast.h"

#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cf/cf_problem.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

static void schedule_free(struct cfFastSchedule *s);

#ifdef CF_FAST_DISPATCH
void cf_rigid_fast_free_wide(cfRigidFast *ws);
cfStatus cf_rigid_fast_prepare_wide(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc,
                                    const cfRigidPgsOptions *o, cfRigidFast *ws);
cfStatus cf_rigid_fast_prepare_rows_wide(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc,
                                         const cfRigidPgsOptions *o, cfRigidFast *ws);
cfStatus cf_rigid_fast_solve_wide(cfRigidBody *bodies, int nb, cfContact *contacts, int nc, cfRigidFast *ws,
                                  const cfRigidPgsOptions *o, cfReport *rep);
cfStatus cf_rigid_fast_pseudo_velocities_wide(const cfContact *contacts, cfRigidFast *ws, double h, double erp,
                                              double slop, int sweeps);
int cf_rigid_fast_order_wide(const cfRigidFast *ws, int *order, int *color);
double cf_rigid_fast_schedule_model_wide(const cfRigidFast *ws, int sweeps, double wait_cost, bool barrier, double *waits);

int cf_fast_lanes(void)
{
    __builtin_cpu_init();
    int widest = __builtin_cpu_supports("avx2") ? 4 : 2;
    const char *e = getenv("CF_FAST_LANES");
    return e && strcmp(e, "2") == 0 ? 2 : widest;
}

/* the build this work space uses: chosen at its first prepare, kept until it is freed */
static bool wide(cfRigidFast *ws)
{
    if (ws->lanes != 2 && ws->lanes != 4) ws->lanes = cf_fast_lanes();
    if (ws->lanes == 4 && !__builtin_cpu_supports("avx2")) ws->lanes = 2;
    return ws->lanes == 4;
}
#elif !defined(CF_FAST_WIDE)
int cf_fast_lanes(void) { return 2; }

static bool wide(cfRigidFast *ws)
{
    ws->lanes = 2;
    return false;
}
#endif

void cf_rigid_fast_free(cfRigidFast *ws)
{
    if (!ws) return;
#ifdef CF_FAST_DISPATCH
    if (ws->lanes == 4) {
        cf_rigid_fast_free_wide(ws);
        return;
    }
#endif
    free(ws->rows);
    free(ws->vel);
    free(ws->pv);
    free(ws->perm);
    free(ws->ab);
    schedule_free(ws->sched);
    memset(ws, 0, sizeof *ws);
}

static int thread_min(const cfRigidFast *ws) { return ws->thread_min_contacts > 0 ? ws->thread_min_contacts : CF_FAST_THREAD_MIN_CONTACTS; }

#ifndef CF_FAST_WIDE
int cf_fast_colored(void)
{
    const char *e = getenv("CF_FAST_ORDER");
    return e && strcmp(e, "colored") == 0 ? 2 : 1;
}
#endif


static bool options_ok(const cfRigidPgsOptions *o)
{
    return o && isfinite(o->h) && o->h > 0.0 && o->max_iter >= 0 && o->tol >= 0.0 && o->erp >= 0.0 &&
           o->erp <= 1.0 && isfinite(o->cfm) && o->cfm >= 0.0 && o->omega > 0.0 && o->omega < 2.0 &&
           o->ordering >= CF_ORDER_SEQUENTIAL && o->ordering <= CF_ORDER_RANDOM;
}

static bool contact_ok(const cfContact *c, int nb)
{
    return c->body_a < nb && c->body_b < nb && (c->body_a != c->body_b || c->body_a < 0) &&
           cfu_vec3_finite(c->p) && cfu_vec3_finite(c->n) && cfu_vec3_finite(c->t) && cfu_vec3_finite(c->b) &&
           isfinite(c->phi) && isfinite(c->mu) && c->mu >= 0.0 && isfinite(c->lambda[0]) &&
           isfinite(c->lambda[1]) && isfinite(c->lambda[2]);
}

static void put3(double *dst, cfVec3 v)
{
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
}

static cfStatus reserve(cfRigidFast *ws, int nc, int nb)
{
    if (nc > ws->cap) {
        cfFastRow *rows = realloc(ws->rows, (size_t)nc * sizeof *rows);
        if (rows) ws->rows = rows;
        int *perm = realloc(ws->perm, (size_t)nc * sizeof *perm);
        if (perm) ws->perm = perm;
        int *ab = realloc(ws->ab, (size_t)2 * nc * sizeof *ab);
        if (ab) ws->ab = ab;
        if (!rows || !perm || !ab) return CF_NO_MEMORY;
        ws->cap = nc;
    }
    if (nb + 2 * CF_FAST_MAX_THREADS > ws->cap_bodies) {
        int slots = nb + 2 * CF_FAST_MAX_THREADS; /* a zero slot per thread, two apart: never one cache line */
        double *vel = realloc(ws->vel, (size_t)6 * slots * sizeof *vel);
        if (vel) ws->vel = vel;
        double *pv = realloc(ws->pv, (size_t)6 * slots * sizeof *pv);
        if (pv) ws->pv = pv;
        if (!vel || !pv) return CF_NO_MEMORY;
        ws->cap_bodies = slots;
    }
    return CF_OK;
}

/* the velocity slots of contact c's bodies: the body's index, or nb (the zero slot) for a fixed one */
static void slots_of(const cfRigidBody *bodies, int nb, const cfContact *c, int ab[2])
{
    ab[0] = c->body_a >= 0 && !bodies[c->body_a].fixed ? c->body_a : nb;
    ab[1] = c->body_b >= 0 && !bodies[c->body_b].fixed ? c->body_b : nb;
}

static void fill_row(const cfRigidBody *bodies, int nb, const cfContact *c, int index, const cfRigidPgsOptions *o,
                     cfFastRow *row)
{
    int ab[2];
    slots_of(bodies, nb, c, ab);
    row->a = ab[0];
    row->b = ab[1];
    const cfRigidBody *A = ab[0] < nb ? &bodies[ab[0]] : NULL, *B = ab[1] < nb ? &bodies[ab[1]] : NULL;
    row->contact = index;
    const cfVec3 *dir[3] = {&c->n, &c->t, &c->b};
    row->ima = A ? A->inv_mass : 0.0;
    row->imb = B ? B->inv_mass : 0.0;
    for (int k = 0; k < 3; ++k) {
        cfVec3 ja = A ? cfu_cross(cfu_sub(c->p, A->x), *dir[k]) : cfu_zero3();
        cfVec3 jb = B ? cfu_cross(cfu_sub(c->p, B->x), *dir[k]) : cfu_zero3();
        put3(&row->d[3 * k], *dir[k]);
        put3(&row->ja[3 * k], ja);
        put3(&row->jb[3 * k], jb);
        put3(&row->ka[3 * k], A ? cfu_mat3_mul_vec(A->inv_inertia_world, ja) : cfu_zero3());
        put3(&row->kb[3 * k], B ? cfu_mat3_mul_vec(B->inv_inertia_world, jb) : cfu_zero3());
    }
    double im = row->ima + row->imb;
    for (int k = 0; k < 3; ++k) /* W is symmetric: the upper triangle, mirrored */
        for (int l = k; l < 3; ++l)
            row->W[3 * k + l] = row->W[3 * l + k] = im * cf_fast_dot3(&row->d[3 * k], &row->d[3 * l]) +
                                                    cf_fast_dot3(&row->ja[3 * k], &row->ka[3 * l]) +
                                                    cf_fast_dot3(&row->jb[3 * k], &row->kb[3 * l]);
    row->W[0] += o->cfm;
    row->inv_wnn = 1.0 / row->W[0];
    double a = row->W[4], b = row->W[5], cc = row->W[8], det = a * cc - b * b;
    row->stick_ok = det > 1e-14 * (a * cc);
    row->kt[0] = row->stick_ok ? cc / det : 0.0;
    row->kt[1] = row->stick_ok ? -b / det : 0.0;
    row->kt[2] = row->stick_ok ? a / det : 0.0;
    row->inv_sigma = 1.0 / (0.5 * (a + cc) + sqrt(0.25 * (a - cc) * (a - cc) + b * b));
    row->bias = (c->phi >= 0.0 ? c->phi : o->erp * c->phi) / o->h;
    row->mu = c->mu;
    for (int k = 0; k < 3; ++k) row->lam[k] = o->warm_start ? c->lambda[k] : 0.0;
}

/* ---- the lane schedule: several box pairs solved side by side, in an order equivalent to the rows' ----

   Two contacts that share no moving body can be solved in either order, or at the same time: the
   result is the same to the last bit. So any visiting order that keeps, for every body, the
   sequence of contacts touching it gives exactly the sweep of the sequential order. The schedule
   groups the manifolds (runs of consecutive rows with the same two bodies: the points of one box
   pair) into groups of CF_LANES manifolds without a common moving body, by a topological sort
   (Kahn's algorithm, the earliest ready manifold first) of "m before m' when they share a body
   and m comes first". A group's manifolds are then solved point by point in the CF_LANES lanes of
   short vectors (GCC/Clang vector extensions: SSE2 on any x86-64 for two, AVX2 for four), so that
   one instruction does the work of two (four) contacts and one contact's update no longer waits
   for the previous one's. The reverse sweep of the symmetric order walks the same groups and
   points backwards. */

#ifndef CF_LANES
#define CF_LANES 2
#endif
typedef double cfLaneV __attribute__((vector_size(8 * CF_LANES)));
typedef long long cfLaneM __attribute__((vector_size(8 * CF_LANES)));

/* one point of each manifold of a group, lane by lane (padding lanes: zero rows that do nothing) */
typedef struct Pack {
    cfLaneV d[9], ja[9], jb[9], ka[9], kb[9];
    cfLaneV ima, imb, w3, w6, w7, w4, w8, inv_wnn, kt0, kt1, kt2, inv_sigma, bias, mu, stick_ok;
    cfLaneV lam[3];
} Pack;

typedef struct Group {
    int a[CF_LANES], b[CF_LANES]; /* velocity slots per lane (nb + 2 t: the zero slot of thread t, for fixed bodies and padding) */
    int m[CF_LANES];              /* manifold per lane (-1: padding) */
    bool signal;                  /* a thread of another share waits for it: it publishes its progress */
    int first, npoints;           /* its packs: [first, first + npoints) */
    int wfirst, nwaits;           /* its waits: [wfirst, wfirst + nwaits) */
} Group;

/* Before a group runs in sweep k (from 0), the manifolds of other threads that come first on one
   of its bodies must have run: in sweep k for a pair before it on a shared body, in sweep k - 1
   for the last pair on a body whose first pair this group holds (the wrap). A thread walks its
   share of G groups in order, so "group j of thread u has finished sweep k" is "u has finished
   k G + j + 1 groups of this solve", and one count per thread says it (progress[]). So a wait is
   a thread and a least count: the group may run in sweep k once progress[thread] >= k G + off,
   off = j + 1 for a pair of the same sweep, j + 1 - G for the wrap; of a group's waits on one
   thread only the largest off counts (build_schedule() keeps that one) */
typedef struct Wait {
    int thread, off; /* build_schedule() first records the manifold waited for and its wrap here */
} Wait;

/* ints per cache line: the threads' counts in progress[] and swept[] are this far apart */
#define DONE_PAD 16

struct cfFastSchedule {
    Pack *packs;      /* n_packs, 64-byte aligned */
    int *pack_row;    /* CF_LANES per pack: the row in that lane, -1 for padding */
    int *pack_row_tmp; /* the same size: scratch of build_schedule() */
    cfLaneV *nbias;   /* per pack: the split-impulse bias of each lane's normal row (after a solve, until the split
                         stage: each lane's normal velocity at the solve's final velocities, see un_ready) */
    bool un_ready;    /* nbias holds the normal velocities finish_lanes() found at ws->vel, which has not changed
                         since: the split stage's bias pass reads them instead of computing them again */
    cfLaneV *nlam;    /* per pack: the split-impulse normal impulses */
    int n_packs, cap_packs;
    Group *groups;    /* n_groups, in the order they were formed (one thread walks them so) */
    int n_groups;
    int *mstart;      /* the rows' manifolds in their order: rows [mstart[i], mstart[i + 1]) */
    int *mperm;       /* manifold m of the sweep order is the rows' manifold mperm[m] (identity but for the colored order) */
    int *color;       /* per rows' manifold: its color (the colored order; scratch) */
    uint32_t *bmask;  /* per body: the colors its pairs hold (the colored order; scratch) */
    int n_manifolds;  /* manifolds (box pairs) */
    int n_colors;     /* the colored order: colors used, the overflow (CF_FAST_COLORS) included; 0 otherwise */
    int colored_built; /* cfRigidFast::colored it was built for */
    int *succ;        /* 2 per manifold: the next manifold touching its body a, b (-1: none) */
    int *pred;        /* 2 per manifold: the previous one (-1: none) */
    int *indeg;       /* unfinished predecessors */
    int *heap;        /* ready manifolds, smallest index on top: one heap of nm + 1 per thread */
    int *last;        /* per body: the last manifold seen touching it */
    int *part;        /* per manifold: the thread that owns it */
    int *order;       /* per manifold: its bin in the slab cut (scratch) */
    int cap_m, cap_b;
    int *ab_built;    /* the rows' velocity slots it was built for (2 nc_built): the next step's
                         rows, when equal, reuse it (nothing in it depends on more than these) */
    int nc_built, nb_built;
    /* T > 1 threads: thread t walks groups tgroup[tstart[t] .. tstart[t + 1]) */
    int threads;
    int tstart[CF_FAST_MAX_THREADS + 1];
    int *tgroup;
    Wait *waits;
    int n_waits, cap_waits;
    int *mgroup;      /* per manifold: its group (scratch of build_schedule()) */
    int *gpos;        /* per group: its place in its thread's share (scratch of build_schedule()) */
    atomic_int progress[CF_FAST_MAX_THREADS * DONE_PAD]; /* groups thread t has run in this solve: progress[t DONE_PAD] */
    double *dm;       /* threads x sweeps: each thread's largest change per sweep */
    atomic_int swept[CF_FAST_MAX_THREADS * DONE_PAD]; /* thread t's sweeps whose dm it has written: swept[t DONE_PAD] */
    int cap_dm;
    bool ready;       /* built for the rows prepared last */
};

static void schedule_free(struct cfFastSchedule *s)
{
    if (!s) return;
    free(s->packs);
    free(s->pack_row);
    free(s->pack_row_tmp);
    free(s->nbias);
    free(s->nlam);
    free(s->groups);
    free(s->mstart);
    free(s->mperm);
    free(s->color);
    free(s->bmask);
    free(s->succ);
    free(s->pred);
    free(s->indeg);
    free(s->heap);
    free(s->last);
    free(s->ab_built);
    free(s->part);
    free(s->order);
    free(s->tgroup);
    free(s->waits);
    free(s->mgroup);
    free(s->gpos);
    free(s->dm);
    free(s);
}

/* manifold m of the sweep order: its first row and its row count */
static inline int mfirst(const struct cfFastSchedule *s, int m) { return s->mstart[s->mperm[m]]; }
static inline int mlen(const struct cfFastSchedule *s, int m) { return s->mstart[s->mperm[m] + 1] - s->mstart[s->mperm[m]]; }
/* G of thread t: the groups of its share (tgroup[tstart[t] .. tstart[t + 1])) */
static inline int share_len(const struct cfFastSchedule *s, int t) { return s->tstart[t + 1] - s->tstart[t]; }

static bool grow_int(int **p, int n)
{
    int *q = realloc(*p, (size_t)n * sizeof *q);
    if (q) *p = q;
    return q != NULL;
}

static void heap_push(int *h, int *n, int v)
{
    int i = (*n)++;
    while (i > 0 && h[(i - 1) / 2] > v) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static int heap_pop(int *h, int *n)
{
    int top = h[0], v = h[--*n], i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && h[c + 1] < h[c]) ++c;
        if (h[c] >= v) break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0) h[i] = v;
    return top;
}

static void pack_lane(Pack *q, int l, const cfFastRow *r)
{
    for (int i = 0; i < 9; ++i) {
        q->d[i][l] = r->d[i];
        q->ja[i][l] = r->ja[i];
        q->jb[i][l] = r->jb[i];
        q->ka[i][l] = r->ka[i];
        q->kb[i][l] = r->kb[i];
    }
    q->ima[l] = r->ima;
    q->imb[l] = r->imb;
    q->w3[l] = r->W[3];
    q->w6[l] = r->W[6];
    q->w7[l] = r->W[7];
    q->w4[l] = r->W[4];
    q->w8[l] = r->W[8];
    q->inv_wnn[l] = r->inv_wnn;
    q->kt0[l] = r->kt[0];
    q->kt1[l] = r->kt[1];
    q->kt2[l] = r->kt[2];
    q->inv_sigma[l] = r->inv_sigma;
    q->bias[l] = r->bias;
    q->mu[l] = r->mu;
    q->stick_ok[l] = r->stick_ok ? 1.0 : 0.0;
    for (int k = 0; k < 3; ++k) q->lam[k][l] = r->lam[k];
}

/* bins of the slab cut: each slab gets whole bins, so a slab's share of the rows is within a bin's of 1/T */
#define SLAB_BINS 256

/* the owner of every manifold for T threads when the slabs are cut along @p axis (each slab about
   1/T of the rows, by the pairs' first contact points, binned); returns the edges of the "comes
   first on a body" graph that join two threads (a thread waits at each, in every sweep) */
static int cut_along(struct cfFastSchedule *s, const cfContact *contacts, int nm, int T, int axis)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int m = 0; m < nm; ++m) {
        double x = cfu_vec3_at(contacts[mfirst(s, m)].p, axis);
        lo = fmin(lo, x);
        hi = fmax(hi, x);
    }
    double scale = hi > lo ? SLAB_BINS / (hi - lo) : 0.0;
    int rows_in[SLAB_BINS] = {0}, owner[SLAB_BINS];
    for (int m = 0; m < nm; ++m) {
        double x = cfu_vec3_at(contacts[mfirst(s, m)].p, axis);
        int b = (int)((x - lo) * scale);
        s->order[m] = b < 0 ? 0 : b >= SLAB_BINS ? SLAB_BINS - 1 : b; /* the bin of m */
        rows_in[s->order[m]] += mlen(s, m);
    }
    int nc = s->mstart[nm], seen = 0, cut = 0;
    for (int b = 0; b < SLAB_BINS; ++b) {
        long long mid = 2LL * seen + rows_in[b]; /* twice the rows before the bin's middle */
        owner[b] = (int)(mid * T / (2LL * (nc > 0 ? nc : 1)));
        if (owner[b] >= T) owner[b] = T - 1;
        seen += rows_in[b];
    }
    for (int m = 0; m < nm; ++m) s->part[m] = owner[s->order[m]];
    for (int m = 0; m < 2 * nm; ++m) cut += s->pred[m] >= 0 && s->part[s->pred[m]] != s->part[m / 2];
    return cut;
}

/* the slabs along the axis (x, y or z) that cuts the fewest edges: a wall's layers (z) rather than
   its width, so that the threads meet at one layer and not at every one */
static void partition(struct cfFastSchedule *s, const cfContact *contacts, int nm, int T)
{
    if (T == 1) {
        memset(s->part, 0, (size_t)nm * sizeof *s->part);
        return;
    }
    int best = 0, best_cut = -1;
    for (int axis = 0; axis < 3; ++axis) {
        int cut = cut_along(s, contacts, nm, T, axis);
        if (best_cut < 0 || cut < best_cut) best = axis, best_cut = cut;
    }
    if (best != 2) cut_along(s, contacts, nm, T, best);
}


static cfStatus reserve_schedule(struct cfFastSchedule *s, int nc, int nb)
{
    if (nc + 1 > s->cap_m) {
        bool ok = grow_int(&s->mstart, nc + 1) && grow_int(&s->mperm, nc + 1) && grow_int(&s->color, nc + 1) &&
                  grow_int(&s->succ, 2 * nc + 2) && grow_int(&s->pred, 2 * nc + 2) &&
                  grow_int(&s->indeg, nc + 1) && grow_int(&s->part, nc + 1) && grow_int(&s->order, nc + 1) &&
                  grow_int(&s->tgroup, nc + 1) && grow_int(&s->mgroup, nc + 1) && grow_int(&s->gpos, nc + 1) &&
                  grow_int(&s->ab_built, 2 * nc + 2);
        Group *g = realloc(s->groups, (size_t)(nc + 1) * sizeof *g);
        if (g) s->groups = g;
        if (!ok || !g) return CF_NO_MEMORY;
        s->cap_m = nc + 1; /* groups too: at most one per manifold */
        free(s->heap);     /* the heaps: T of them */
        s->heap = NULL;
    }
    if (!s->heap && !(s->heap = malloc((size_t)CF_FAST_MAX_THREADS * s->cap_m * sizeof *s->heap))) return CF_NO_MEMORY;
    if (nb + 1 > s->cap_b) {
        uint32_t *m = realloc(s->bmask, (size_t)(nb + 1) * sizeof *m);
        if (m) s->bmask = m;
        if (!grow_int(&s->last, nb + 1) || !m) return CF_NO_MEMORY;
        s->cap_b = nb + 1;
    }
    /* at most one pack per row */
    if (nc > s->cap_packs) {
        free(s->packs);
        free(s->nbias);
        free(s->nlam);
        size_t bytes = ((size_t)nc * sizeof *s->packs + 63) / 64 * 64; /* a multiple of the alignment */
        size_t vbytes = ((size_t)nc * sizeof(cfLaneV) + 63) / 64 * 64;
        s->packs = aligned_alloc(64, bytes);
        s->nbias = aligned_alloc(64, vbytes);
        s->nlam = aligned_alloc(64, vbytes);
        bool ok = grow_int(&s->pack_row, CF_LANES * nc) && grow_int(&s->pack_row_tmp, CF_LANES * nc);
        if (!s->packs || !s->nbias || !s->nlam || !ok) {
            s->cap_packs = 0;
            return CF_NO_MEMORY;
        }
        s->cap_packs = nc;
    }
    return CF_OK;
}

/* where the packs' rows come from: the prepared rows, or (rows NULL) each made from its contact
   right where it is packed, so that no row array is written and read again */
typedef struct PackSource {
    const cfFastRow *rows;
    const cfRigidBody *bodies;
    int nb;
    const cfContact *contacts;
    const cfRigidPgsOptions *o;
    bool row_by_row; /* rows NULL: each made by fill_row() and copied into its lane (tests: cfRigidFast::fill_by_rows) */
} PackSource;

/* the row a padding lane holds: nothing moves it (no Jacobian, no mass, no impulse) */
static const cfFastRow pad_row = {.W = {0, 0, 0, 0, 1, 0, 0, 0, 1}, .a = -1, .b = -1, .contact = -1};

static inline cfLaneV vsel(cfLaneM m, cfLaneV a, cfLaneV b);

/* a . b of three lane vectors, grouped as cf_fast_dot3() */
static inline cfLaneV vdot3(const cfLaneV *a, const cfLaneV *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* The rows of one pack (its lanes' rows[l], -1 for padding) made in their lanes at once: the
   arithmetic of fill_row(), operation for operation in the same order, on lane vectors, so that
   every lane gets the bits fill_row() gives its row (ISO C: no contracted multiply-adds; the
   square root lane by lane). A padding lane computes some real row of the pack (no infinities)
   and then gets the padding row. Where fill_row() leaves a fixed body's terms at zero, the lanes
   select zero. */
static void fill_pack_lanes(Pack *q, const int *rows, const cfRigidBody *bodies, int nb, const cfContact *contacts,
                            const cfRigidPgsOptions *o)
{
    cfLaneV dir[9], p[3], xa[3], xb[3], Ia[9], Ib[9], ima, imb, phi, mu, lam[3];
    cfLaneM has_a, has_b;
    int any = -1;
    for (int l = 0; l < CF_LANES && any < 0; ++l) any = rows[l];
    static const cfRigidBody none; /* a fixed body's slot: x, inverse mass and inertia all zero */
    for (int l = 0; l < CF_LANES; ++l) {
        const cfContact *c = &contacts[rows[l] >= 0 ? rows[l] : any];
        int ab[2];
        slots_of(bodies, nb, c, ab);
        const cfRigidBody *A = ab[0] < nb ? &bodies[ab[0]] : &none, *B = ab[1] < nb ? &bodies[ab[1]] : &none;
        const cfVec3 *d[3] = {&c->n, &c->t, &c->b};
        for (int k = 0; k < 3; ++k) {
            dir[3 * k][l] = d[k]->x;
            dir[3 * k + 1][l] = d[k]->y;
            dir[3 * k + 2][l] = d[k]->z;
        }
        p[0][l] = c->p.x, p[1][l] = c->p.y, p[2][l] = c->p.z;
        xa[0][l] = A->x.x, xa[1][l] = A->x.y, xa[2][l] = A->x.z;
        xb[0][l] = B->x.x, xb[1][l] = B->x.y, xb[2][l] = B->x.z;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                Ia[3 * i + j][l] = A->inv_inertia_world.m[i][j];
                Ib[3 * i + j][l] = B->inv_inertia_world.m[i][j];
            }
        ima[l] = A->inv_mass;
        imb[l] = B->inv_mass;
        has_a[l] = ab[0] < nb ? -1 : 0;
        has_b[l] = ab[1] < nb ? -1 : 0;
        phi[l] = c->phi;
        mu[l] = c->mu;
        for (int k = 0; k < 3; ++k) lam[k][l] = o->warm_start ? c->lambda[k] : 0.0;
    }
    const cfLaneV zero = {0};
    cfLaneV ra[3] = {p[0] - xa[0], p[1] - xa[1], p[2] - xa[2]}, rb[3] = {p[0] - xb[0], p[1] - xb[1], p[2] - xb[2]};
    for (int k = 0; k < 3; ++k) {
        const cfLaneV *e = &dir[3 * k];
        cfLaneV ja[3] = {ra[1] * e[2] - ra[2] * e[1], ra[2] * e[0] - ra[0] * e[2], ra[0] * e[1] - ra[1] * e[0]};
        cfLaneV jb[3] = {rb[1] * e[2] - rb[2] * e[1], rb[2] * e[0] - rb[0] * e[2], rb[0] * e[1] - rb[1] * e[0]};
        for (int i = 0; i < 3; ++i) {
            ja[i] = vsel(has_a, ja[i], zero);
            jb[i] = vsel(has_b, jb[i], zero);
        }
        for (int i = 0; i < 3; ++i) {
            q->d[3 * k + i] = e[i];
            q->ja[3 * k + i] = ja[i];
            q->jb[3 * k + i] = jb[i];
            q->ka[3 * k + i] = vsel(has_a, Ia[3 * i] * ja[0] + Ia[3 * i + 1] * ja[1] + Ia[3 * i + 2] * ja[2], zero);
            q->kb[3 * k + i] = vsel(has_b, Ib[3 * i] * jb[0] + Ib[3 * i + 1] * jb[1] + Ib[3 * i + 2] * jb[2], zero);
        }
    }
    q->ima = ima;
    q->imb = imb;
    cfLaneV im = ima + imb, W[9];
    for (int k = 0; k < 3; ++k) /* the upper triangle, as fill_row() */
        for (int l = k; l < 3; ++l)
            W[3 * k + l] = im * vdot3(&q->d[3 * k], &q->d[3 * l]) + vdot3(&q->ja[3 * k], &q->ka[3 * l]) +
                           vdot3(&q->jb[3 * k], &q->kb[3 * l]);
    W[0] += o->cfm;
    q->inv_wnn = 1.0 / W[0];
    cfLaneV a = W[4], b = W[5], cc = W[8], det = a * cc - b * b;
    cfLaneM stick = det > 1e-14 * (a * cc);
    q->kt0 = vsel(stick, cc / det, zero);
    q->kt1 = vsel(stick, -b / det, zero);
    q->kt2 = vsel(stick, a / det, zero);
    cfLaneV disc = 0.25 * (a - cc) * (a - cc) + b * b, root;
    for (int l = 0; l < CF_LANES; ++l) root[l] = sqrt(disc[l]);
    q->inv_sigma = 1.0 / (0.5 * (a + cc) + root);
    q->w3 = W[1]; /* W[3] = W[1], W[6] = W[2], W[7] = W[5] (mirrored) */
    q->w6 = W[2];
    q->w7 = W[5];
    q->w4 = W[4];
    q->w8 = W[8];
    q->bias = vsel(phi >= 0.0, phi, o->erp * phi) / o->h;
    q->mu = mu;
    q->stick_ok = vsel(stick, zero + 1.0, zero);
    for (int k = 0; k < 3; ++k) q->lam[k] = lam[k];
    for (int l = 0; l < CF_LANES; ++l)
        if (rows[l] < 0) pack_lane(q, l, &pad_row);
}

/* the packs of groups [g0, g1) (the groups of tgroup order when T > 1) */
static void fill_packs(struct cfFastSchedule *s, const PackSource *src, int g0, int g1)
{
    cfFastRow made;
    for (int i = g0; i < g1; ++i) {
        const Group *g = &s->groups[s->threads > 1 ? s->tgroup[i] : i];
        for (int p = g->first; p < g->first + g->npoints; ++p) {
            if (!src->rows && !src->row_by_row) {
                fill_pack_lanes(&s->packs[p], &s->pack_row[CF_LANES * p], src->bodies, src->nb, src->contacts, src->o);
                continue;
            }
            for (int l = 0; l < CF_LANES; ++l) {
                int row = s->pack_row[CF_LANES * p + l];
                const cfFastRow *r = &pad_row;
                if (row >= 0 && src->rows) r = &src->rows[row];
                else if (row >= 0) {
                    fill_row(src->bodies, src->nb, &src->contacts[row], row, src->o, &made);
                    r = &made;
                }
                pack_lane(&s->packs[p], l, r);
            }
        }
    }
}

/* every group's packs, on the schedule's threads (each fills its own groups, into its own cache) */
static void fill_all_packs(struct cfFastSchedule *s, const PackSource *src)
{
    const int T = s->threads;
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static, 1)
    for (int t = 0; t < T; ++t) fill_packs(s, src, s->tstart[t], s->tstart[t + 1]);
}

/* a wait of group g (thread t) on manifold p, when another thread owns p */
static bool add_wait(struct cfFastSchedule *s, Group *g, int t, int p, int wrap)
{
    if (p < 0 || s->part[p] == t) return true;
    if (s->n_waits == s->cap_waits) {
        int cap = s->cap_waits ? 2 * s->cap_waits : 64;
        Wait *w = realloc(s->waits, (size_t)cap * sizeof *w);
        if (!w) return false;
        s->waits = w;
        s->cap_waits = cap;
    }
    s->waits[s->n_waits++] = (Wait){p, wrap}; /* the manifold and its wrap for now, a thread and a count once all are known */
    g->nwaits++;
    return true;
}

/* The colored order (cfRigidFast::colored, after Box2D v3's graph coloring): the box pairs, taken
   in the rows' order, each get the lowest of CF_FAST_COLORS colors that no pair on one of their
   moving bodies holds yet (a fixed body is never written, so it does not count), or, with every
   color taken, the overflow CF_FAST_COLORS; the sweep then visits the pairs color by color, in the
   rows' order within a color. The pairs of one color share no moving body, so Kahn's algorithm
   below finds a whole color ready at once and the threads wait for each other only between colors,
   not along the chains of bodies the rows' order makes (a wall's sweep from bottom to top). It
   depends on the rows' bodies only: the same order, and so the same results, for any number of
   threads and lanes. */
static void color_order(struct cfFastSchedule *s, const int *ab, int nm, int nb)
{
    int count[CF_FAST_COLORS + 1] = {0};
    memset(s->bmask, 0, (size_t)nb * sizeof *s->bmask);
    for (int m = 0; m < nm; ++m) {
        int a = ab[2 * s->mstart[m]], b = ab[2 * s->mstart[m] + 1], c = 0;
        uint32_t used = (a < nb ? s->bmask[a] : 0u) | (b < nb ? s->bmask[b] : 0u);
        while (c < CF_FAST_COLORS && (used >> c & 1u)) ++c;
        if (c < CF_FAST_COLORS) {
            if (a < nb) s->bmask[a] |= 1u << c;
            if (b < nb) s->bmask[b] |= 1u << c;
        }
        s->color[m] = c;
        count[c]++;
    }
    int start[CF_FAST_COLORS + 1], n = 0;
    s->n_colors = 0;
    for (int c = 0; c <= CF_FAST_COLORS; ++c) {
        start[c] = n;
        n += count[c];
        if (count[c] > 0) s->n_colors = c + 1;
    }
    for (int m = 0; m < nm; ++m) s->mperm[start[s->color[m]]++] = m;
}

/* the "shares a body, comes first" edges of the manifolds in the sweep order (mperm) */
static void link_manifolds(struct cfFastSchedule *s, const int *ab, int nm, int nb)
{
    for (int i = 0; i < nb; ++i) s->last[i] = -1;
    for (int m = 0; m < nm; ++m) {
        s->indeg[m] = 0;
        s->succ[2 * m] = s->succ[2 * m + 1] = s->pred[2 * m] = s->pred[2 * m + 1] = -1;
        int body[2] = {ab[2 * mfirst(s, m)], ab[2 * mfirst(s, m) + 1]};
        for (int j = 0; j < 2; ++j) {
            int x = body[j];
            if (x >= nb) continue; /* fixed bodies are never written: no order to keep */
            int p = s->last[x];
            if (p >= 0) {
                int pj = ab[2 * mfirst(s, p)] == x ? 0 : 1;
                s->succ[2 * p + pj] = m;
                s->pred[2 * m + j] = p;
                s->indeg[m]++;
            }
            s->last[x] = m;
        }
    }
}

/* The groups for T threads (T = 1: the order of the rows, as above). Kahn's algorithm with one heap
   of ready manifolds per thread: each round forms a group of up to CF_LANES ready manifolds of
   each thread in turn, so the groups in the order formed are a topological order of the whole
   graph, and so is every thread's share of it. Thread t walks its groups in that order and, before
   a group, waits until the manifolds of other threads that come first on its bodies have run:
   no thread ever waits for a group that waits for it (the earliest group not yet run can always
   run), and every body sees its contacts in the sequential order. */
static cfStatus build_schedule(cfRigidFast *ws, const cfContact *contacts, int T)
{
    if (!ws->sched && !(ws->sched = calloc(1, sizeof *ws->sched))) return CF_NO_MEMORY;
    struct cfFastSchedule *s = ws->sched;
    const int *ab = ws->ab; /* row i joins slots ab[2 i] and ab[2 i + 1] */
    int nc = ws->nc, nb = ws->nb;
    cfStatus st = reserve_schedule(s, nc, nb);
    if (st != CF_OK) return st;
    /* manifolds and the "shares a body, comes first" edges */
    int nm = 0;
    for (int i = 0; i < nc; ++i)
        if (i == 0 || ab[2 * i] != ab[2 * i - 2] || ab[2 * i + 1] != ab[2 * i - 1]) s->mstart[nm++] = i;
    s->mstart[nm] = nc;
    s->n_manifolds = nm;
    for (int m = 0; m < nm; ++m) s->mperm[m] = m;
    s->n_colors = 0;
    if (ws->colored == 2) color_order(s, ab, nm, nb);
    link_manifolds(s, ab, nm, nb);
    partition(s, contacts, nm, T);
    /* Kahn's algorithm, CF_LANES ready manifolds per group (ready ones never share a body) */
    int nh[CF_FAST_MAX_THREADS] = {0}, ng = 0, npk = 0, left = 0, count[CF_FAST_MAX_THREADS] = {0};
    int *heap[CF_FAST_MAX_THREADS];
    for (int t = 0; t < T; ++t) heap[t] = s->heap + (size_t)t * s->cap_m;
    for (int m = 0; m < nm; ++m) {
        if (s->indeg[m] == 0) heap_push(heap[s->part[m]], &nh[s->part[m]], m), ++left;
    }
    s->n_waits = 0;
    while (left > 0)
        for (int t = 0; t < T; ++t) {
            if (nh[t] == 0) continue;
            Group *g = &s->groups[ng++];
            int lanes[CF_LANES], nl = 0, np = 0;
            while (nl < CF_LANES && nh[t] > 0) lanes[nl++] = heap_pop(heap[t], &nh[t]);
            left -= nl;
            count[t]++;
            g->signal = false;
            for (int l = 0; l < nl; ++l) s->mgroup[lanes[l]] = ng - 1;
            for (int l = 0; l < CF_LANES; ++l) {
                int a = l < nl ? ab[2 * mfirst(s, lanes[l])] : nb, b = l < nl ? ab[2 * mfirst(s, lanes[l]) + 1] : nb;
                g->a[l] = a == nb ? nb + 2 * t : a;
                g->b[l] = b == nb ? nb + 2 * t : b;
                g->m[l] = l < nl ? lanes[l] : -1;
                if (l < nl && mlen(s, lanes[l]) > np) np = mlen(s, lanes[l]);
            }
            g->first = npk;
            g->npoints = np;
            g->wfirst = s->n_waits;
            g->nwaits = 0;
            for (int p = 0; p < np; ++p, ++npk)
                for (int l = 0; l < CF_LANES; ++l) {
                    int row = l < nl && p < mlen(s, lanes[l]) ? mfirst(s, lanes[l]) + p : -1;
                    s->pack_row[CF_LANES * npk + l] = row;
                }
            for (int l = 0; l < nl; ++l)
                for (int j = 0; j < 2; ++j) {
                    int m = lanes[l], x = ab[2 * mfirst(s, m) + j];
                    if (x >= nb) continue;
                    bool ok = s->pred[2 * m + j] >= 0 ? add_wait(s, g, t, s->pred[2 * m + j], 0)
                                                       : s->last[x] == m || add_wait(s, g, t, s->last[x], 1);
                    if (!ok) return CF_NO_MEMORY;
                    int n = s->succ[2 * m + j];
                    if (n >= 0 && --s->indeg[n] == 0) heap_push(heap[s->part[n]], &nh[s->part[n]], n), ++left;
                }
        }
    /* every thread's groups, in the order formed */
    s->tstart[0] = 0;
    for (int t = 0; t < T; ++t) s->tstart[t + 1] = s->tstart[t] + count[t];
    int fill[CF_FAST_MAX_THREADS];
    memcpy(fill, s->tstart, sizeof fill);
    for (int gi = 0; gi < ng; ++gi) {
        const Group *g = &s->groups[gi];
        s->tgroup[fill[s->part[g->m[0]]]++] = gi; /* lane 0 always holds a manifold */
    }
    /* the packs of each thread in one block, in the order it walks them: the groups were formed
       in turns, so their packs alternate between threads, and a pack's impulses share a cache line
       with the next pack's first rows (a pack is not a whole number of lines) */
    if (T > 1) {
        int *row = s->pack_row_tmp, np = 0;
        for (int i = 0; i < ng; ++i) {
            Group *g = &s->groups[s->tgroup[i]];
            memcpy(&row[CF_LANES * np], &s->pack_row[CF_LANES * g->first], (size_t)CF_LANES * g->npoints * sizeof *row);
            g->first = np;
            np += g->npoints;
        }
        s->pack_row_tmp = s->pack_row;
        s->pack_row = row;
    }
    /* the waits as counts of the threads' progress (Wait): per group and other thread the largest
       count only, and the group of that count publishes its progress. A group's waits were
       recorded while it was formed, so they follow the groups' order and shrink in place */
    for (int t = 0; t < T; ++t)
        for (int i = s->tstart[t]; i < s->tstart[t + 1]; ++i) s->gpos[s->tgroup[i]] = i - s->tstart[t];
    int nw = 0;
    for (int gi = 0; gi < ng; ++gi) {
        Group *g = &s->groups[gi];
        int best[CF_FAST_MAX_THREADS];
        bool has[CF_FAST_MAX_THREADS] = {false};
        for (int w = g->wfirst; w < g->wfirst + g->nwaits; ++w) {
            int m = s->waits[w].thread, wrap = s->waits[w].off, u = s->part[m], G = share_len(s, u);
            int off = s->gpos[s->mgroup[m]] + 1 - wrap * G;
            if (!has[u] || off > best[u]) best[u] = off, has[u] = true;
        }
        g->wfirst = nw;
        for (int u = 0; u < T; ++u)
            if (has[u]) {
                int G = share_len(s, u), j = ((best[u] - 1) % G + G) % G; /* the waited group's place */
                s->groups[s->tgroup[s->tstart[u] + j]].signal = true;
                s->waits[nw++] = (Wait){u, best[u]};
            }
        g->nwaits = nw - g->wfirst;
    }
    s->n_waits = nw;
    s->threads = T;
    s->n_groups = ng;
    s->n_packs = npk;
    if (nc > 0) memcpy(s->ab_built, ab, (size_t)2 * nc * sizeof *ab);
    s->nc_built = nc;
    s->nb_built = nb;
    s->colored_built = ws->colored;
    s->ready = true;
    return CF_OK;
}

static inline cfLaneV vsel(cfLaneM m, cfLaneV a, cfLaneV b) { return (cfLaneV)((m & (cfLaneM)a) | (~m & (cfLaneM)b)); }
/* lane by lane, a > b ? a : b and a < b ? a : b. On x86-64 these are one instruction each (maxpd,
   minpd have exactly these semantics, NaN and signed zeros included); elsewhere a loop. */
#if CF_LANES == 2 && defined(__SSE2__)
static inline cfLaneV vmax(cfLaneV a, cfLaneV b) { return (cfLaneV)_mm_max_pd((__m128d)a, (__m128d)b); }
static inline cfLaneV vmin(cfLaneV a, cfLaneV b) { return (cfLaneV)_mm_min_pd((__m128d)a, (__m128d)b); }
#elif CF_LANES == 4 && defined(__AVX__)
static inline cfLaneV vmax(cfLaneV a, cfLaneV b) { return (cfLaneV)_mm256_max_pd((__m256d)a, (__m256d)b); }
static inline cfLaneV vmin(cfLaneV a, cfLaneV b) { return (cfLaneV)_mm256_min_pd((__m256d)a, (__m256d)b); }
#else
static inline cfLaneV vmax(cfLaneV a, cfLaneV b)
{
    cfLaneV r;
    for (int l = 0; l < CF_LANES; ++l) r[l] = a[l] > b[l] ? a[l] : b[l];
    return r;
}
static inline cfLaneV vmin(cfLaneV a, cfLaneV b)
{
    cfLaneV r;
    for (int l = 0; l < CF_LANES; ++l) r[l] = a[l] < b[l] ? a[l] : b[l];
    return r;
}
#endif
static inline cfLaneV vabs(cfLaneV a)
{
    const cfLaneM sign = (cfLaneM)(-(cfLaneV){0}); /* -0.0 in every lane: the sign bits */
    return (cfLaneV)((cfLaneM)a & ~sign);
}

/* The velocities (v, w) of one body per lane, from and back to the slots of a velocity array.
   Every lane is written back, fixed bodies and padding lanes too: their lanes read the zero slot
   and only ever add 0 * (finite), so the zero slot stays zero (a NaN spreads anyway, and the
   solve reports it as diverged). */
static inline void gather6(const double *v, const int slot[CF_LANES], cfLaneV out[6])
{
#if CF_LANES == 2 && defined(__SSE2__)
    const double *p0 = v + 6 * slot[0], *p1 = v + 6 * slot[1];
    for (int i = 0; i < 6; ++i) out[i] = (cfLaneV)_mm_loadh_pd(_mm_load_sd(p0 + i), p1 + i);
#else
    for (int i = 0; i < 6; ++i)
        for (int l = 0; l < CF_LANES; ++l) out[i][l] = v[6 * slot[l] + i];
#endif
}

static inline void scatter6(double *v, const int slot[CF_LANES], const cfLaneV in[6])
{
#if CF_LANES == 2 && defined(__SSE2__)
    double *p0 = v + 6 * slot[0], *p1 = v + 6 * slot[1];
    for (int i = 0; i < 6; ++i) {
        _mm_storel_pd(p0 + i, (__m128d)in[i]);
        _mm_storeh_pd(p1 + i, (__m128d)in[i]);
    }
#else
    for (int l = 0; l < CF_LANES; ++l)
        for (int i = 0; i < 6; ++i) v[6 * slot[l] + i] = in[i][l];
#endif
}

/* one point in every lane: the row step of cf_rigid_fast_solve() (the same local solve), branch-free
   (stick and slide both computed, one selected), with its arithmetic arranged for a short chain
   from one point's velocities to the next point's: what does not depend on the velocities (the
   bias, the impulses of the last sweep, the couplings of the 3x3 block) is folded in beside the
   chain, so that each quantity on it is one product and one sum from the previous. The sums are
   grouped differently from the reference's, so the impulses agree with it to rounding. */
static inline __attribute__((always_inline)) cfLaneV pack_step(Pack *q, bool box, double omega, double cfm, cfLaneV va[6], cfLaneV vb[6])
{
    cfLaneV dv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]}, u[3];
    for (int k = 0; k < 3; ++k)
        u[k] = (q->d[3 * k] * dv[0] + q->d[3 * k + 1] * dv[1] + q->d[3 * k + 2] * dv[2]) +
               ((q->jb[3 * k] * vb[3] + q->jb[3 * k + 1] * vb[4] + q->jb[3 * k + 2] * vb[5]) -
                (q->ja[3 * k] * va[3] + q->ja[3 * k + 1] * va[4] + q->ja[3 * k + 2] * va[5]));
    const cfLaneV zero = {0}, one = zero + 1.0;
    cfLaneV l0 = q->lam[0], l1 = q->lam[1], l2 = q->lam[2];
    /* normal: rn = max(0, l0 - omega (u_n + bias + cfm l0) / W_nn), the velocity-free part first */
    cfLaneV sn = omega * q->inv_wnn;
    cfLaneV rn = vmax(zero, (l0 - sn * (q->bias + cfm * l0)) - sn * u[0]);
    /* the tangent velocities after the normal change, u_t + W_tn (rn - l0), as a1 + W_tn rn */
    cfLaneV a1 = u[1] - q->w3 * l0, a2 = u[2] - q->w6 * l0;
    cfLaneV radius = q->mu * rn, t0, t1;
    if (box) {
        cfLaneV u1 = a1 + q->w3 * rn;
        t0 = vmax(-radius, vmin(l1 - omega * u1 / q->w4, radius));
        cfLaneV u2 = (a2 + q->w6 * rn) + q->w7 * (t0 - l1);
        t1 = vmax(-radius, vmin(l2 - omega * u2 / q->w8, radius));
    } else {
        cfLaneV r2 = radius * radius;
        /* stick: lam_t - K_tt^-1 u_t; the rn coefficient K_tt^-1 W_tn off the chain */
        cfLaneV g0 = q->kt0 * q->w3 + q->kt1 * q->w6, g1 = q->kt1 * q->w3 + q->kt2 * q->w6;
        cfLaneV s0 = (l1 - (q->kt0 * a1 + q->kt1 * a2)) - g0 * rn;
        cfLaneV s1 = (l2 - (q->kt1 * a1 + q->kt2 * a2)) - g1 * rn;
        cfLaneM stick = (q->stick_ok != 0.0) & (s0 * s0 + s1 * s1 <= r2);
        /* slide: lam_t - omega u_t / sigma, projected on the disk */
        cfLaneV st = omega * q->inv_sigma;
        cfLaneV p0 = (l1 - st * a1) - (st * q->w3) * rn, p1 = (l2 - st * a2) - (st * q->w6) * rn;
        cfLaneV m2 = p0 * p0 + p1 * p1;
        cfLaneM open = radius > 0.0, out = (m2 > r2) & ~stick & open;
        p0 = vsel(open, p0, zero); /* no normal impulse: the disk is a point */
        p1 = vsel(open, p1, zero);
        /* a contact at rest sticks: the square root only when some lane slides outside the disk */
        bool any = false;
        for (int l = 0; l < CF_LANES; ++l) any |= out[l] != 0;
        if (any) {
            cfLaneV safe = vsel(out, m2, one), root;
            for (int l = 0; l < CF_LANES; ++l) root[l] = sqrt(safe[l]);
            cfLaneV sc = radius / root;
            p0 = vsel(out, p0 * sc, p0);
            p1 = vsel(out, p1 * sc, p1);
        }
        t0 = vsel(stick, s0, p0);
        t1 = vsel(stick, s1, p1);
    }
    /* the change of impulse to the bodies; the normal part (known first) off the chain */
    cfLaneV dl0 = rn - l0, dl1 = t0 - l1, dl2 = t1 - l2;
    for (int i = 0; i < 3; ++i) {
        cfLaneV Pt = dl1 * q->d[3 + i] + dl2 * q->d[6 + i];
        cfLaneV Pn = dl0 * q->d[i];
        va[i] = (va[i] - q->ima * Pn) - q->ima * Pt;
        vb[i] = (vb[i] + q->imb * Pn) + q->imb * Pt;
        va[3 + i] = (va[3 + i] - dl0 * q->ka[i]) - (dl1 * q->ka[3 + i] + dl2 * q->ka[6 + i]);
        vb[3 + i] = (vb[3 + i] + dl0 * q->kb[i]) + (dl1 * q->kb[3 + i] + dl2 * q->kb[6 + i]);
    }
    q->lam[0] = rn;
    q->lam[1] = t0;
    q->lam[2] = t1;
    return vmax(vabs(dl0), vmax(vabs(dl1), vabs(dl2)));
}

/* one normal row in every lane, for the split-impulse pseudo-velocities (the same operations as
   the reference stage in world.c) */
static inline __attribute__((always_inline)) void pack_normal_step(const Pack *q, cfLaneV bias, cfLaneV *lam,
                                                                    cfLaneV va[6], cfLaneV vb[6])
{
    const cfLaneV zero = {0};
    cfLaneV dv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
    cfLaneV un = bias + (q->d[0] * dv[0] + q->d[1] * dv[1] + q->d[2] * dv[2]) +
                 (q->jb[0] * vb[3] + q->jb[1] * vb[4] + q->jb[2] * vb[5]) -
                 (q->ja[0] * va[3] + q->ja[1] * va[4] + q->ja[2] * va[5]);
    cfLaneV l = vmax(zero, *lam - un * q->inv_wnn), dl = l - *lam;
    *lam = l;
    for (int i = 0; i < 3; ++i) {
        va[i] -= dl * (q->ima * q->d[i]);
        va[3 + i] -= dl * q->ka[i];
        vb[i] += dl * (q->imb * q->d[i]);
        vb[3 + i] += dl * q->kb[i];
    }
}

/* one group: the velocity rows of its packs (backward: points in reverse), or with normal_only the
   split-impulse normal rows on the pseudo-velocities; returns dmax raised by its changes */
static inline __attribute__((always_inline)) cfLaneV run_group(struct cfFastSchedule *s, const Group *g, double *v,
                                                               bool normal_only, bool box, double omega, double cfm,
                                                               bool backward, cfLaneV dmax)
{
    cfLaneV va[6], vb[6];
    gather6(v, g->a, va);
    gather6(v, g->b, vb);
    Pack *q = &s->packs[g->first];
    if (normal_only)
        for (int p = g->first; p < g->first + g->npoints; ++p) pack_normal_step(&s->packs[p], s->nbias[p], &s->nlam[p], va, vb);
    else if (backward)
        for (int p = g->npoints - 1; p >= 0; --p) dmax = vmax(dmax, pack_step(&q[p], box, omega, cfm, va, vb));
    else
        for (int p = 0; p < g->npoints; ++p) dmax = vmax(dmax, pack_step(&q[p], box, omega, cfm, va, vb));
    scatter6(v, g->a, va);
    scatter6(v, g->b, vb);
    return dmax;
}

static inline double lane_max(cfLaneV d)
{
    double m = 0.0;
    for (int l = 0; l < CF_LANES; ++l) m = m > d[l] ? m : d[l];
    return m;
}

/* one sweep over all groups in the order formed (backward: groups and points in reverse), on one
   thread whatever the schedule was built for; returns max |change| */
static inline __attribute__((always_inline)) double sweep_lanes_with(struct cfFastSchedule *s, double *v,
                                                                      bool normal_only, bool box, double omega,
                                                                      double cfm, bool backward)
{
    cfLaneV dmax = {0};
    for (int gi = 0; gi < s->n_groups; ++gi)
        dmax = run_group(s, &s->groups[backward ? s->n_groups - 1 - gi : gi], v, normal_only, box, omega, cfm, backward, dmax);
    return lane_max(dmax);
}

/* the sweep specialized for the common case: cone friction, no relaxation (omega = 1, and
   x * 1.0 is x exactly, so the compiler drops the products and the results do not change) */
static double sweep_lanes(struct cfFastSchedule *s, double *v, bool normal_only, bool box, double omega, double cfm,
                          bool backward)
{
    if (normal_only) return sweep_lanes_with(s, v, true, false, 1.0, 0.0, false);
    if (!box && omega == 1.0 && !backward) return sweep_lanes_with(s, v, false, false, 1.0, cfm, false);
    return sweep_lanes_with(s, v, false, box, omega, cfm, backward);
}

/* ---- the sweeps on several threads ---- */

static inline void cpu_relax(void)
{
#if defined(__SSE2__)
    _mm_pause();
#endif
}

/* until *d >= v: spin a little, then leave the core to others (a busy machine, more threads than
   cores); returns the value seen */
static inline int wait_done(atomic_int *d, int v)
{
    int x;
    for (int spin = 0; (x = atomic_load_explicit(d, memory_order_acquire)) < v; ++spin)
        if (spin < 2000) cpu_relax();
        else sched_yield();
    return x;
}

/* thread t's groups in sweep k (forward): each waits for the pairs of other threads before it.
   seen[u]: the largest progress of thread u this thread has read in this solve; a wait it already
   covers costs no read of u's cache line (a count, once seen, only grows) */
static inline __attribute__((always_inline)) double sweep_share(struct cfFastSchedule *s, double *v, int t, int k,
                                                                 int *seen, bool normal_only, bool box, double omega,
                                                                 double cfm)
{
    cfLaneV dmax = {0};
    const int t0 = s->tstart[t], done0 = k * share_len(s, t);
    for (int i = t0; i < s->tstart[t + 1]; ++i) {
        const Group *g = &s->groups[s->tgroup[i]];
        for (int w = g->wfirst; w < g->wfirst + g->nwaits; ++w) {
            int u = s->waits[w].thread, need = k * (share_len(s, u)) + s->waits[w].off;
            if (seen[u] < need) seen[u] = wait_done(&s->progress[u * DONE_PAD], need);
        }
        dmax = run_group(s, g, v, normal_only, box, omega, cfm, false, dmax);
        if (g->signal) atomic_store_explicit(&s->progress[t * DONE_PAD], done0 + i - t0 + 1, memory_order_release);
    }
    return lane_max(dmax);
}

static double sweep_share_any(struct cfFastSchedule *s, double *v, int t, int k, int *seen, bool normal_only, bool box,
                              double omega, double cfm)
{
    if (normal_only) return sweep_share(s, v, t, k, seen, true, false, 1.0, 0.0);
    if (!box && omega == 1.0) return sweep_share(s, v, t, k, seen, false, false, 1.0, cfm);
    return sweep_share(s, v, t, k, seen, false, box, omega, cfm);
}

/* forward sweeps 0 .. n - 1 on the schedule's threads; s->dm[t n + k]: thread t's largest change in
   sweep k. With tol > 0 all threads stop after the first sweep whose largest change is <= tol.
   Returns the sweeps run, or -1 (nothing done) when the schedule has one thread or OpenMP gives
   fewer threads than it was built for */
/* cfRigidFast::emulate: the shares on this thread, the highest- (policy 1) or lowest- (2) numbered
   thread whose next group's waits are met first; returns n */
static int sweeps_emulated(struct cfFastSchedule *s, double *v, int n, bool normal_only, bool box, double omega,
                           double cfm, int policy)
{
    int T = s->threads, pos[CF_FAST_MAX_THREADS] = {0}, sweep[CF_FAST_MAX_THREADS], busy = 0;
    int published[CF_FAST_MAX_THREADS] = {0}; /* progress[] as the real threads would publish it */
    double d[CF_FAST_MAX_THREADS] = {0};
    for (int t = 0; t < T; ++t) {
        sweep[t] = s->tstart[t] == s->tstart[t + 1] ? n : 0; /* no groups: done */
        busy += sweep[t] < n;
    }
    while (busy > 0) {
        int t = -1;
        for (int i = 0; i < T && t < 0; ++i) {
            int u = policy == 1 ? T - 1 - i : i;
            if (sweep[u] == n) continue;
            const Group *g = &s->groups[s->tgroup[s->tstart[u] + pos[u]]];
            bool ok = true;
            for (int w = g->wfirst; w < g->wfirst + g->nwaits && ok; ++w) {
                int x = s->waits[w].thread;
                ok = published[x] >= sweep[u] * share_len(s, x) + s->waits[w].off;
            }
            if (ok) t = u;
        }
        if (t < 0) { /* the real threads would wait for ever: a bug of build_schedule() */
            fprintf(stderr, "rigid_fast: no thread of the schedule can go on\n");
            abort();
        }
        const Group *g = &s->groups[s->tgroup[s->tstart[t] + pos[t]]];
        d[t] = fmax(d[t], lane_max(run_group(s, g, v, normal_only, box, omega, cfm, false, (cfLaneV){0})));
        if (g->signal) published[t] = sweep[t] * share_len(s, t) + pos[t] + 1;
        if (++pos[t] == share_len(s, t)) {
            s->dm[t * n + sweep[t]] = d[t];
            d[t] = 0.0;
            pos[t] = 0;
            busy -= ++sweep[t] == n;
        }
    }
    return n;
}

static int sweeps_threaded(struct cfFastSchedule *s, double *v, int n, double tol, bool normal_only, bool box,
                           double omega, double cfm, int emulate)
{
    int T = s->threads;
    if (T < 2 || n < 1) return -1;
    for (int t = 0; t < T; ++t) atomic_store_explicit(&s->progress[t * DONE_PAD], 0, memory_order_relaxed);
    for (int t = 0; t < T; ++t) atomic_store_explicit(&s->swept[t * DONE_PAD], 0, memory_order_relaxed);
    for (int t = 0; t < T; ++t) /* a thread without groups has finished every sweep */
        if (s->tstart[t] == s->tstart[t + 1])
            for (int k = 0; k < n; ++k) s->dm[t * n + k] = 0.0;
    if (emulate) return tol > 0.0 ? -1 : sweeps_emulated(s, v, n, normal_only, box, omega, cfm, emulate);
#ifdef _OPENMP
    int ran = n, got = T;
#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num(), seen[CF_FAST_MAX_THREADS] = {0};
        if (omp_get_num_threads() != T) {
            if (t == 0) got = omp_get_num_threads();
        } else {
            for (int k = 0; k < n; ++k) {
                double mine = sweep_share_any(s, v, t, k, seen, normal_only, box, omega, cfm);
                s->dm[t * n + k] = mine;
                if (tol > 0.0) {
                    /* the solve stops after sweep k only if every thread's change is <= tol: a
                       thread whose own is larger knows it goes on and does not wait (a barrier
                       here would cost the lag between the threads at every sweep); the others
                       wait for every thread's change of sweep k and all decide alike */
                    atomic_store_explicit(&s->swept[t * DONE_PAD], k + 1, memory_order_release);
                    if (mine <= tol) {
                        double d = 0.0;
                        for (int u = 0; u < T; ++u) {
                            wait_done(&s->swept[u * DONE_PAD], k + 1);
                            d = d > s->dm[u * n + k] ? d : s->dm[u * n + k];
                        }
                        if (d <= tol) {
                            if (t == 0) ran = k + 1;
                            break;
                        }
                    }
                }
            }
        }
    }
    return got == T ? ran : -1;
#else
    (void)v, (void)tol, (void)normal_only, (void)box, (void)omega, (void)cfm;
    return -1;
#endif
}

static cfStatus reserve_dm(struct cfFastSchedule *s, int n)
{
    if (s->threads * n <= s->cap_dm) return CF_OK;
    double *dm = realloc(s->dm, (size_t)s->threads * n * sizeof *dm);
    if (!dm) return CF_NO_MEMORY;
    s->dm = dm;
    s->cap_dm = s->threads * n;
    return CF_OK;
}

/* ---- the lane schedule's other passes: warm start, and results ---- */

/* the warm-start impulses of the packs to the velocities, group by group (every body sees its
   contacts in order; the arithmetic of cf_fast_apply() lane by lane) */
static void warm_start_lanes(const struct cfFastSchedule *s, double *v)
{
    for (int gi = 0; gi < s->n_groups; ++gi) {
        const Group *g = &s->groups[gi];
        cfLaneV va[6], vb[6];
        gather6(v, g->a, va);
        gather6(v, g->b, vb);
        for (int p = g->first; p < g->first + g->npoints; ++p) {
            const Pack *q = &s->packs[p];
            for (int i = 0; i < 3; ++i) {
                cfLaneV P = q->lam[0] * q->d[i] + (q->lam[1] * q->d[3 + i] + q->lam[2] * q->d[6 + i]);
                cfLaneV wa = q->lam[0] * q->ka[i] + (q->lam[1] * q->ka[3 + i] + q->lam[2] * q->ka[6 + i]);
                cfLaneV wb = q->lam[0] * q->kb[i] + (q->lam[1] * q->kb[3 + i] + q->lam[2] * q->kb[6 + i]);
                va[i] -= q->ima * P;
                va[3 + i] -= wa;
                vb[i] += q->imb * P;
                vb[3 + i] += wb;
            }
        }
        scatter6(v, g->a, va);
        scatter6(v, g->b, vb);
    }
}

/* the contact velocities of pack @p q at the velocities of its lanes' bodies (as cf_fast_contact_velocity()) */
static inline void pack_velocity(const Pack *q, const cfLaneV va[6], const cfLaneV vb[6], cfLaneV u[3])
{
    cfLaneV dv[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
    for (int k = 0; k < 3; ++k)
        u[k] = (q->d[3 * k] * dv[0] + q->d[3 * k + 1] * dv[1] + q->d[3 * k + 2] * dv[2]) +
               (q->jb[3 * k] * vb[3] + q->jb[3 * k + 1] * vb[4] + q->jb[3 * k + 2] * vb[5]) -
               (q->ja[3 * k] * va[3] + q->ja[3 * k + 1] * va[4] + q->ja[3 * k + 2] * va[5]);
}

/* the square root lane by lane (ISO C sqrt, as the rows' own) */
static inline cfLaneV vsqrt(cfLaneV x)
{
    cfLaneV r;
    for (int l = 0; l < CF_LANES; ++l) r[l] = sqrt(x[l]);
    return r;
}

/* cf_contact_residual2() of the cone law in every lane, branch-free: De Saxce's modified velocity
   u + (mu |u_T|, 0, 0), then the error r - P_K(r - u_hat) of the projection onto the cone (as
   cf_cone_project()); the norms are square roots of sums of squares instead of hypot(), so the sum
   agrees with the reference's to rounding (the impulses do not depend on it) */
static inline cfLaneV cone_error2(const cfLaneV r[3], const cfLaneV u[3], cfLaneV mu)
{
    const cfLaneV zero = {0}, one = zero + 1.0;
    mu = vmax(mu, zero); /* the cone of mu = 0 is the ray */
    cfLaneV z0 = r[0] - (u[0] + mu * vsqrt(u[1] * u[1] + u[2] * u[2])), z1 = r[1] - u[1], z2 = r[2] - u[2];
    cfLaneV xt = vsqrt(z1 * z1 + z2 * z2);
    cfLaneM inside = (xt <= mu * z0) & (z0 >= 0.0), apex = ~inside & (mu * xt <= -z0);
    /* onto the boundary ray (there xt > 0: xt = 0 is inside or at the apex) */
    cfLaneV a = (mu * xt + z0) / (mu * mu + 1.0), s = mu * a / vsel(xt > 0.0, xt, one);
    cfLaneV e0 = r[0] - vsel(inside, z0, vsel(apex, zero, a));
    cfLaneV e1 = r[1] - vsel(inside, z1, vsel(apex, zero, s * z1));
    cfLaneV e2 = r[2] - vsel(inside, z2, vsel(apex, zero, s * z2));
    return e0 * e0 + e1 * e1 + e2 * e2;
}

/* the impulses of the packs of groups [g0, g1) (tgroup order when T > 1) to their contacts; each
   lane's squared natural-map residual of the contact law at the final (biased) velocities (the
   cone's in lanes) in s->nlam (free until the split stage) and its normal velocity (unbiased) in
   s->nbias, for the split stage's bias pass */
static void finish_range(struct cfFastSchedule *s, const double *v, cfContact *contacts, bool box, double cfm, int g0, int g1)
{
    for (int i = g0; i < g1; ++i) {
        const Group *g = &s->groups[s->threads > 1 ? s->tgroup[i] : i];
        cfLaneV va[6], vb[6];
        gather6(v, g->a, va);
        gather6(v, g->b, vb);
        for (int p = g->first; p < g->first + g->npoints; ++p) {
            const Pack *q = &s->packs[p];
            cfLaneV u[3];
            pack_velocity(q, va, vb, u);
            s->nbias[p] = u[0];
            cfLaneV e2 = {0};
            if (!box) {
                cfLaneV ub[3] = {u[0] + q->bias + cfm * q->lam[0], u[1], u[2]};
                e2 = cone_error2(q->lam, ub, q->mu);
            }
            for (int l = 0; l < CF_LANES; ++l) {
                int row = s->pack_row[CF_LANES * p + l];
                if (row < 0) continue;
                double r[3] = {q->lam[0][l], q->lam[1][l], q->lam[2][l]};
                double ul[3] = {u[0][l] + q->bias[l] + cfm * r[0], u[1][l], u[2][l]};
                if (box) e2[l] = cf_contact_residual2(r, ul, q->mu[l], CF_FRICTION_BOX);
                memcpy(contacts[row].lambda, r, sizeof r);
            }
            s->nlam[p] = e2;
        }
    }
}

/* finish_range() of every group, on the schedule's threads (the packs only read the velocities);
   returns the sum over the contacts of their squared residuals, added in group order on one thread
   (the same sum for any number of threads) */
static double finish_lanes(struct cfFastSchedule *s, const double *v, cfContact *contacts, bool box, double cfm)
{
    const int T = s->threads;
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static, 1)
    for (int t = 0; t < T; ++t) finish_range(s, v, contacts, box, cfm, s->tstart[t], s->tstart[t + 1]);
    double sum = 0.0;
    for (int gi = 0; gi < s->n_groups; ++gi) {
        const Group *g = &s->groups[gi];
        for (int p = g->first; p < g->first + g->npoints; ++p)
            for (int l = 0; l < CF_LANES; ++l)
                if (s->pack_row[CF_LANES * p + l] >= 0) sum += s->nlam[p][l];
    }
    s->un_ready = true;
    return sum;
}
int cf_rigid_fast_order(const cfRigidFast *ws, int *order, int *color)
{
#ifdef CF_FAST_DISPATCH
    if (ws && ws->lanes == 4) return cf_rigid_fast_order_wide(ws, order, color);
#endif
    const struct cfFastSchedule *s = ws ? ws->sched : NULL;
    if (!s || !s->ready || !ws->lanes_only || !order) return -1;
    int k = 0;
    for (int m = 0; m < s->n_manifolds; ++m)
        for (int r = 0; r < mlen(s, m); ++r) {
            if (color) color[k] = s->n_colors > 0 ? s->color[s->mperm[m]] : 0;
            order[k++] = mfirst(s, m) + r;
        }
    return s->n_colors > 0 ? s->n_colors : 1;
}

double cf_rigid_fast_schedule_model(const cfRigidFast *ws, int sweeps, double wait_cost, bool barrier, double *waits)
{
#ifdef CF_FAST_DISPATCH
    if (ws && ws->lanes == 4) return cf_rigid_fast_schedule_model_wide(ws, sweeps, wait_cost, barrier, waits);
#endif
    const struct cfFastSchedule *s = ws ? ws->sched : NULL;
    if (!s || !s->ready || !ws->lanes_only || sweeps < 1) return -1.0;
    const int T = s->threads;
    double total = 0.0, clock[CF_FAST_MAX_THREADS] = {0};
    for (int gi = 0; gi < s->n_groups; ++gi) total += s->groups[gi].npoints;
    if (waits) *waits = (double)s->n_waits;
    if (T < 2) return 1.0;
    /* finish[tstart[u] sweeps + c - 1]: when thread u had run c groups (negative: not yet) */
    double *finish = malloc((size_t)(s->n_groups > 0 ? s->n_groups : 1) * sweeps * sizeof *finish);
    if (!finish) return -1.0;
    for (int i = 0; i < s->n_groups * sweeps; ++i) finish[i] = -1.0;
    int pos[CF_FAST_MAX_THREADS] = {0}, sweep[CF_FAST_MAX_THREADS], busy = 0;
    for (int t = 0; t < T; ++t) {
        sweep[t] = s->tstart[t] == s->tstart[t + 1] ? sweeps : 0;
        busy += sweep[t] < sweeps;
    }
    while (busy > 0) {
        int best = -1;
        double best_start = INFINITY;
        int behind = sweeps; /* the sweep the slowest thread is in */
        for (int t = 0; t < T; ++t) behind = behind < sweep[t] ? behind : sweep[t];
        for (int t = 0; t < T; ++t) { /* the thread whose next group can start first */
            if (sweep[t] == sweeps || (barrier && sweep[t] > behind)) continue;
            const Group *g = &s->groups[s->tgroup[s->tstart[t] + pos[t]]];
            double start = clock[t];
            bool ok = true;
            for (int w = g->wfirst; w < g->wfirst + g->nwaits && ok; ++w) {
                int u = s->waits[w].thread, need = sweep[t] * (share_len(s, u)) + s->waits[w].off;
                if (need <= 0) continue; /* a wrap in the first sweep */
                double f = finish[s->tstart[u] * sweeps + need - 1];
                ok = f >= 0.0;
                if (ok && f + wait_cost > start) start = f + wait_cost;
            }
            if (ok && start < best_start) best = t, best_start = start;
        }
        if (best < 0) break; /* cannot happen for a valid schedule */
        int t = best;
        const Group *g = &s->groups[s->tgroup[s->tstart[t] + pos[t]]];
        clock[t] = best_start + g->npoints;
        finish[s->tstart[t] * sweeps + sweep[t] * share_len(s, t) + pos[t]] = clock[t];
        if (++pos[t] == share_len(s, t)) {
            pos[t] = 0;
            busy -= ++sweep[t] == sweeps;
            bool all = barrier;
            for (int u = 0; u < T && all; ++u) all = sweep[u] == sweep[t];
            if (all) { /* the last thread to finish this sweep: the barrier lets all go on */
                double at = 0.0;
                for (int u = 0; u < T; ++u) at = at > clock[u] ? at : clock[u];
                for (int u = 0; u < T; ++u) clock[u] = at + wait_cost;
            }
        }
    }
    free(finish);
    double span = 0.0;
    for (int t = 0; t < T; ++t) span = span > clock[t] ? span : clock[t];
    return span > 0.0 ? total * sweeps / span : 1.0;
}

/* the checks and sizes both prepares share */
static cfStatus prepare_begin(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc,
                              const cfRigidPgsOptions *o, cfRigidFast *ws)
{
    if (!options_ok(o) || nb < 0 || nc < 0 || (nc > 0 && !contacts) || !ws || (nb > 0 && !bodies)) return CF_BAD_INPUT;
    for (int a = 0; a < nc; ++a)
        if (!contact_ok(&contacts[a], nb)) return CF_BAD_INPUT;
    cfStatus st = reserve(ws, nc, nb);
    if (st != CF_OK) return st;
    ws->nc = nc;
    ws->nb = nb;
    if (ws->threads < 1 || ws->threads > CF_FAST_MAX_THREADS) ws->threads = cf_threads();
    if (ws->colored != 1 && ws->colored != 2) ws->colored = cf_fast_colored();
    if (ws->sched) ws->sched->ready = ws->sched->un_ready = false;
    ws->vel_solved = false;
    return CF_OK;
}

cfStatus cf_rigid_fast_prepare_rows(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc,
                                    const cfRigidPgsOptions *o, cfRigidFast *ws)
{
#ifndef CF_FAST_WIDE
    if (ws && wide(ws)) return cf_rigid_fast_prepare_rows_wide(bodies, nb, contacts, nc, o, ws);
#endif
    cfStatus st = prepare_begin(bodies, nb, contacts, nc, o, ws);
    if (st != CF_OK) return st;
    /* rows are independent: on the solver's threads when there are enough of them */
#pragma omp parallel for num_threads(ws->threads) if (ws->threads > 1 && nc >= thread_min(ws)) schedule(static)
    for (int i = 0; i < nc; ++i) {
        fill_row(bodies, nb, &contacts[i], i, o, &ws->rows[i]);
        ws->ab[2 * i] = ws->rows[i].a;
        ws->ab[2 * i + 1] = ws->rows[i].b;
    }
    ws->lanes_only = false;
    return CF_OK;
}

cfStatus cf_rigid_fast_prepare(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc,
                               const cfRigidPgsOptions *o, cfRigidFast *ws)
{
#ifndef CF_FAST_WIDE
    if (ws && wide(ws)) return cf_rigid_fast_prepare_wide(bodies, nb, contacts, nc, o, ws);
#endif
    if (o && o->ordering == CF_ORDER_RANDOM) return cf_rigid_fast_prepare_rows(bodies, nb, contacts, nc, o, ws);
    cfStatus st = prepare_begin(bodies, nb, contacts, nc, o, ws);
    if (st != CF_OK) return st;
    /* the sequential and symmetric orders: the lane schedule, and each row made in its pack */
    for (int i = 0; i < nc; ++i) slots_of(bodies, nb, &contacts[i], &ws->ab[2 * i]);
    const int T = o->ordering == CF_ORDER_SEQUENTIAL && nc >= thread_min(ws) ? ws->threads : 1;
    /* the same pairs in the same order as the last step's (persistent manifolds): the same schedule */
    struct cfFastSchedule *s = ws->sched;
    if (s && s->threads == T && s->nc_built == nc && s->nb_built == nb && s->colored_built == ws->colored &&
        (nc == 0 || memcmp(s->ab_built, ws->ab, (size_t)2 * nc * sizeof *ws->ab) == 0))
        s->ready = true;
    else if ((st = build_schedule(ws, contacts, T)) != CF_OK)
        return st;
    if (T > 1 && (st = reserve_dm(ws->sched, o->max_iter)) != CF_OK) return st;
    fill_all_packs(ws->sched, &(PackSource){.bodies = bodies, .nb = nb, .contacts = contacts, .o = o,
                                            .row_by_row = ws->fill_by_rows != 0});
    ws->lanes_only = true;
    return CF_OK;
}

static inline double max2(double a, double b) { return a > b ? a : b; }
static inline double min2(double a, double b) { return a < b ? a : b; }

/* ch05.5's local solve on one row with the precomputed inverses; returns max |change| */
static inline double local_solve(const cfFastRow *r, bool box, double omega, double u[3], double lam[3])
{
    const double *W = r->W;
    double old0 = lam[0], old1 = lam[1], old2 = lam[2];
    double rn = max2(0.0, lam[0] - omega * u[0] * r->inv_wnn);
    double dn = rn - lam[0];
    u[1] += W[3] * dn;
    u[2] += W[6] * dn;
    lam[0] = rn;
    double radius = r->mu * rn;
    if (box) {
        double r1 = max2(-radius, min2(lam[1] - omega * u[1] / W[4], radius));
        u[2] += W[7] * (r1 - lam[1]);
        lam[1] = r1;
        lam[2] = max2(-radius, min2(lam[2] - omega * u[2] / W[8], radius));
    } else {
        cf_fast_cone_friction(r, omega, radius, u, lam);
    }
    return max2(fabs(lam[0] - old0), max2(fabs(lam[1] - old1), fabs(lam[2] - old2)));
}

/* one sweep row by row in the order ws->perm (the random order, drawn per sweep); the two
   bodies' velocities stay in va, vb while consecutive rows share both bodies; max |change| */
static double sweep_rows(cfRigidFast *ws, bool box, double omega, double cfm)
{
    double *vel = ws->vel, dmax = 0.0, va[6], vb[6];
    int nb = ws->nb, pa = -1, pb = -1;
    for (int idx = 0; idx < ws->nc; ++idx) {
        cfFastRow *r = &ws->rows[ws->perm[idx]];
        if (r->a != pa || r->b != pb) {
            if (pa >= 0 && pa < nb) memcpy(&vel[6 * pa], va, sizeof va);
            if (pb >= 0 && pb < nb) memcpy(&vel[6 * pb], vb, sizeof vb);
            memcpy(va, &vel[6 * r->a], sizeof va);
            memcpy(vb, &vel[6 * r->b], sizeof vb);
            pa = r->a;
            pb = r->b;
        }
        double u[3];
        cf_fast_contact_velocity(r, va, vb, u);
        u[0] += r->bias + cfm * r->lam[0];
        double lam[3] = {r->lam[0], r->lam[1], r->lam[2]};
        dmax = max2(dmax, local_solve(r, box, omega, u, lam));
        double dl[3] = {lam[0] - r->lam[0], lam[1] - r->lam[1], lam[2] - r->lam[2]};
        cf_fast_apply(r, dl, va, vb);
        memcpy(r->lam, lam, sizeof lam);
    }
    if (pa >= 0 && pa < nb) memcpy(&vel[6 * pa], va, sizeof va);
    if (pb >= 0 && pb < nb) memcpy(&vel[6 * pb], vb, sizeof vb);
    return dmax;
}

/* the random order's passes, row by row: warm start, and the impulses to the contacts with the
   residual (as finish_lanes()) */
static void warm_start_rows(const cfRigidFast *ws, double *vel)
{
    /* writes to the zero slot are skipped so that it stays zero */
    for (int a = 0; a < ws->nc; ++a) {
        const cfFastRow *r = &ws->rows[a];
        double va[6], vb[6];
        memcpy(va, &vel[6 * r->a], sizeof va);
        memcpy(vb, &vel[6 * r->b], sizeof vb);
        cf_fast_apply(r, r->lam, va, vb);
        if (r->a < ws->nb) memcpy(&vel[6 * r->a], va, sizeof va);
        if (r->b < ws->nb) memcpy(&vel[6 * r->b], vb, sizeof vb);
    }
}

static double finish_rows(const cfRigidFast *ws, const double *vel, cfContact *contacts, bool box, double cfm)
{
    double sum = 0.0;
    for (int a = 0; a < ws->nc; ++a) {
        const cfFastRow *row = &ws->rows[a];
        double u[3];
        const double *r = row->lam;
        cf_fast_contact_velocity(row, &vel[6 * row->a], &vel[6 * row->b], u);
        u[0] += row->bias + cfm * r[0];
        sum += cf_contact_residual2(r, u, row->mu, box ? CF_FRICTION_BOX : CF_FRICTION_CONE);
        memcpy(contacts[row->contact].lambda, r, 3 * sizeof *r);
    }
    return sum;
}

cfStatus cf_rigid_fast_solve(cfRigidBody *bodies, int nb, cfContact *contacts, int nc, cfRigidFast *ws,
                             const cfRigidPgsOptions *o, cfReport *rep)
{
#ifdef CF_FAST_DISPATCH
    if (ws && ws->lanes == 4) return cf_rigid_fast_solve_wide(bodies, nb, contacts, nc, ws, o, rep);
#endif
    double t0 = cf_seconds();
    const bool random = o && o->ordering == CF_ORDER_RANDOM;
    /* prepared for this order: rows for the random one, the lane schedule for the others */
    if (!options_ok(o) || !ws || ws->nc != nc || ws->nb != nb || (nc > 0 && !contacts) || ws->lanes_only == random ||
        (!random && !(ws->sched && ws->sched->ready))) {
        if (rep) rep->status = CF_BAD_INPUT;
        return CF_BAD_INPUT;
    }
    struct cfFastSchedule *s = ws->sched;
    const int T = random ? 1 : s->threads;
    double *vel = ws->vel;
    for (int i = 0; i < nb; ++i) {
        put3(&vel[6 * i], bodies[i].v);
        put3(&vel[6 * i + 3], bodies[i].w);
    }
    memset(&vel[6 * nb], 0, (size_t)12 * T * sizeof *vel); /* every thread's zero slot */
    if (random) warm_start_rows(ws, vel);
    else warm_start_lanes(s, vel);
    const bool box = o->friction == CF_FRICTION_BOX;
    const double omega = o->omega, cfm = o->cfm;
    cfRng rng;
    cf_rng_seed(&rng, o->seed);
    cfStopReason why = o->max_iter == 0 ? CF_STOP_MAX_ITER : CF_STOP_NONE;
    int k = 0;
    /* sequential and symmetric orders: the lane schedule (the same sweeps, see build_schedule());
       the random order is drawn per sweep and goes row by row */
    int ran = random ? -1 : sweeps_threaded(s, vel, o->max_iter, o->tol, false, box, omega, cfm, ws->emulate);
    if (ran >= 0) { /* the threads' sweeps, reported as one thread would */
        for (k = 0; k < ran; ++k) {
            double dmax = 0.0;
            for (int t = 0; t < T; ++t) dmax = max2(dmax, s->dm[t * o->max_iter + k]);
            if (rep) cf_report_push(rep, dmax);
            why = o->tol > 0.0 && dmax <= o->tol ? CF_STOP_STAGNATION : CF_STOP_MAX_ITER;
        }
    }
    while (why == CF_STOP_NONE) {
        double dmax;
        if (random) {
            cf_ordering_permutation(o->ordering, nc, k, &rng, ws->perm);
            dmax = sweep_rows(ws, box, omega, cfm);
        } else {
            dmax = sweep_lanes(s, vel, false, box, omega, cfm, o->ordering == CF_ORDER_SYMMETRIC && k % 2 == 1);
        }
        ++k;
        if (rep) cf_report_push(rep, dmax);
        if (o->tol > 0.0 && dmax <= o->tol) why = CF_STOP_STAGNATION;
        else if (k >= o->max_iter) why = CF_STOP_MAX_ITER;
    }
    /* the natural-map residual of the contact law at the final (biased) velocities */
    double sum = random ? finish_rows(ws, vel, contacts, box, cfm) : finish_lanes(s, vel, contacts, box, cfm);
    for (int i = 0; i < nb; ++i)
        if (!bodies[i].fixed) {
            bodies[i].v = cfu_vec3(vel[6 * i], vel[6 * i + 1], vel[6 * i + 2]);
            bodies[i].w = cfu_vec3(vel[6 * i + 3], vel[6 * i + 4], vel[6 * i + 5]);
        }
    ws->vel_solved = true;
    cf_split_finish(rep, why, k, sqrt(sum));
    cfStatus st = isfinite(sum) ? CF_OK : CF_DIVERGED;
    if (rep) {
        rep->status = st;
        rep->seconds = cf_seconds() - t0;
    }
    return st;
}

/* the split-impulse biases erp min(phi + h u_n + slop, 0) / h of the packs of groups [g0, g1)
   (tgroup order when T > 1), u_n the kept normal velocities (have_un) or computed at @p vel, and
   their impulses zeroed; true when some bias is not zero */
static bool bias_range(struct cfFastSchedule *s, const cfContact *contacts, const double *vel, bool have_un, double h,
                       double erp, double slop, int g0, int g1)
{
    bool active = false;
    for (int i = g0; i < g1; ++i) {
        const Group *g = &s->groups[s->threads > 1 ? s->tgroup[i] : i];
        cfLaneV va[6], vb[6];
        if (!have_un) {
            gather6(vel, g->a, va);
            gather6(vel, g->b, vb);
        }
        for (int p = g->first; p < g->first + g->npoints; ++p) {
            cfLaneV un = s->nbias[p];
            if (!have_un) {
                cfLaneV u[3];
                pack_velocity(&s->packs[p], va, vb, u);
                un = u[0];
            }
            for (int l = 0; l < CF_LANES; ++l) {
                int row = s->pack_row[CF_LANES * p + l];
                double phi = row >= 0 ? contacts[row].phi + h * un[l] : 0.0;
                s->nbias[p][l] = row >= 0 ? erp * min2(phi + slop, 0.0) / h : 0.0;
                active |= s->nbias[p][l] != 0.0;
            }
            s->nlam[p] = (cfLaneV){0};
        }
    }
    return active;
}

cfStatus cf_rigid_fast_pseudo_velocities(const cfContact *contacts, cfRigidFast *ws, double h, double erp,
                                         double slop, int sweeps)
{
#ifdef CF_FAST_DISPATCH
    if (ws->lanes == 4) return cf_rigid_fast_pseudo_velocities_wide(contacts, ws, h, erp, slop, sweeps);
#endif
    /* after a random-order solve (rows): the lane schedule now, its packs from the rows */
    if (!(ws->sched && ws->sched->ready)) {
        if (ws->sched) ws->sched->un_ready = false;
        cfStatus st = build_schedule(ws, contacts, ws->nc >= thread_min(ws) ? ws->threads : 1);
        if (st != CF_OK) return st;
        fill_all_packs(ws->sched, &(PackSource){.rows = ws->rows});
    }
    struct cfFastSchedule *s = ws->sched;
    /* each normal row's bias erp min(phi + h u_n + slop, 0) / h, u_n at the solver's final
       velocities (the bodies' v, w; zero slot for fixed): kept by the solve's finish_lanes() when
       ws->vel is still what it left (s->un_ready), else computed here, the same numbers */
    bool active = false;
    const bool have_un = s->un_ready && ws->vel_solved;
    const int T = s->threads; /* each pack alone: on the schedule's threads, each over its own groups */
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static, 1) reduction(| : active)
    for (int t = 0; t < T; ++t)
        active |= bias_range(s, contacts, ws->vel, have_un, h, erp, slop, s->tstart[t], s->tstart[t + 1]);
    s->un_ready = false; /* nbias holds the biases now */
    double *pv = ws->pv;
    memset(pv, 0, (size_t)6 * (ws->nb + 2 * s->threads) * sizeof *pv); /* and every thread's zero slot */
    /* nothing penetrates beyond the slop: every sweep would leave all impulses at zero */
    if (!active) return CF_OK;
    if (reserve_dm(s, sweeps) != CF_OK) return CF_NO_MEMORY;
    if (sweeps_threaded(s, pv, sweeps, 0.0, true, false, 1.0, 0.0, ws->emulate) < 0)
        for (int k = 0; k < sweeps; ++k) sweep_lanes(s, pv, true, false, 1.0, 0.0, false);
    return CF_OK;
}

#ifndef CF_FAST_WIDE
/* ---- the registry row "pgs-fast" (sim/solvers.c lists it when this file is linked) ---------- */

static cfStatus fast_prepare(void **work, const cfContactProblem *p, const cfSolverParams *par)
{
    if (!*work && !(*work = calloc(1, sizeof(cfRigidFast)))) return CF_NO_MEMORY;
    cfRigidPgsOptions o = cf_rigid_pgs_options_of(p, par);
    return cf_rigid_fast_prepare(p->bodies, p->nb, p->contacts, p->nc, &o, *work);
}

static cfStatus fast_solve(void **work, const cfContactProblem *p, const cfSolverParams *par, double *x, cfReport *rep)
{
    cfRigidPgsOptions o = cf_rigid_pgs_options_of(p, par);
    cfStatus st = cf_rigid_fast_solve(p->bodies, p->nb, p->contacts, p->nc, *work, &o, rep);
    for (int a = 0; a < p->nc; ++a) memcpy(&x[3 * a], p->contacts[a].lambda, 3 * sizeof *x);
    return st;
}

/* the pseudo-velocities start from the bodies' velocities after the world applied the impulses
   (the same numbers the reference stage reads) */
static cfStatus fast_split(void *work, const cfContactProblem *p, double erp, double slop, int sweeps, double *pv)
{
    cfRigidFast *ws = work;
    bool same = true; /* the bodies still have the solve's velocities (cfSolver::velocities: the world did not apply) */
    for (int i = 0; i < p->nb; ++i) {
        same = same && memcmp(&ws->vel[6 * i], &p->bodies[i].v, 3 * sizeof(double)) == 0 &&
               memcmp(&ws->vel[6 * i + 3], &p->bodies[i].w, 3 * sizeof(double)) == 0;
        put3(&ws->vel[6 * i], p->bodies[i].v);
        put3(&ws->vel[6 * i + 3], p->bodies[i].w);
    }
    if (!same) ws->vel_solved = false;
    cfStatus st = cf_rigid_fast_pseudo_velocities(p->contacts, ws, p->h, erp, slop, sweeps);
    if (st == CF_OK) memcpy(pv, ws->pv, (size_t)6 * p->nb * sizeof *pv);
    return st;
}

static void fast_release(void *work)
{
    cf_rigid_fast_free(work);
    free(work);
}

const cfSolver cf_solver_pgs_fast = {
    .name = "pgs-fast",
    .no_impacts = true,
    .friction_model = true,
    .chapter = 5,
    .form = CF_FORM_ROWS,
    .velocities = true,
    .contacts = true,
    .measure = CF_MEASURE_IMPULSE_CHANGE,
    .ordered = true,
    .summary = "the same sweeps as pgs, arranged for speed (reference solutions only: solutions/ch05/fast/)",
    .prepare = fast_prepare,
    .solve = fast_solve,
    .split = fast_split,
    .release = fast_release,
};
#endif /* CF_FAST_WIDE */
