/* SPDX-License-Identifier: MIT */
/* Contact persistence: the impulses of the previous step carried to this step's contacts for
   warm starting, first by feature id (the same two sides, the same pair of features), then by
   proximity (the closest previous contact of the same two sides). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int cf_contact_side_id(const cfContact *c, int side)
{
    switch (cf_contact_side_kind(c, side)) {
    case CF_SIDE_RIGID: return side == 0 ? c->body_a : c->body_b;
    case CF_SIDE_SOFT: return -2 - cf_contact_soft(c, side)->body;
    case CF_SIDE_STATIC:
    case CF_SIDE_KIND_COUNT: break;
    }
    return -1;
}

/* the same, inlined in the hot comparisons (every contact of a step is compared a few times) */
static inline int side_a(const cfContact *c)
{
    const cfSoftSide *s = cf_contact_soft(c, 0);
    return c->body_a >= 0 ? c->body_a : s ? -2 - s->body : -1;
}
static inline int side_b(const cfContact *c)
{
    const cfSoftSide *s = cf_contact_soft(c, 1);
    return c->body_b >= 0 ? c->body_b : s ? -2 - s->body : -1;
}

/* order of the two sides: negative when p's pair comes before q's */
static inline int pair_cmp(const cfContact *p, const cfContact *q)
{
    if ((p->body_a | p->body_b | q->body_a | q->body_b) >= 0) /* rigid pairs (the common case): the body indices */
        return p->body_a != q->body_a ? (p->body_a > q->body_a) - (p->body_a < q->body_a)
                                      : (p->body_b > q->body_b) - (p->body_b < q->body_b);
    int pa = side_a(p), qa = side_a(q);
    if (pa != qa) return pa < qa ? -1 : 1;
    int pb = side_b(p), qb = side_b(q);
    return (pb > qb) - (pb < qb);
}

/* the contacts of a list come pair by pair in pair order (as cf_detect_world() emits rigid pairs) */
static bool pair_ordered(const cfContactList *l)
{
    for (int i = 1; i < l->count; ++i)
        if (pair_cmp(&l->items[i - 1], &l->items[i]) > 0) return false;
    return true;
}

typedef struct Key {
    int a, b;
    uint32_t f;
    int index;
} Key;

static int key_cmp(const void *x, const void *y)
{
    const Key *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->f != q->f) return p->f < q->f ? -1 : 1;
    return 0;
}

static Key key_of(const cfContact *c, int index)
{
    return (Key){side_a(c), side_b(c), c->feature, index};
}

/* both lists in pair order (every step of a rigid world): one merge walk over now's contacts
   [k, k1) (whole pairs), pair by pair, from prev's contact j on (none of an earlier pair after
   it); each contact takes the impulse of the first previous contact of its pair with its feature */
static int carry_walk(cfContactList *now, const cfContactList *prev, int k, int k1, int j)
{
    int matched = 0;
    while (k < k1) {
        const cfContact *c = &now->items[k];
        while (j < prev->count && pair_cmp(&prev->items[j], c) < 0) ++j;
        int j_end = j, k_end = k + 1;
        while (j_end < prev->count && pair_cmp(c, &prev->items[j_end]) == 0) ++j_end;
        while (k_end < k1 && pair_cmp(c, &now->items[k_end]) == 0) ++k_end;
        for (; k < k_end; ++k) {
            cfContact *ck = &now->items[k];
            for (int i = j; i < j_end; ++i)
                if (prev->items[i].feature == ck->feature) {
                    memcpy(ck->lambda, prev->items[i].lambda, sizeof ck->lambda);
                    ++matched;
                    break;
                }
        }
    }
    return matched;
}

static int carry_features(cfContactList *now, const cfContactList *prev, bool ordered)
{
    if (prev->count == 0 || now->count == 0) return 0;
    if (ordered) return carry_walk(now, prev, 0, now->count, 0);
    Key *keys = malloc((size_t)prev->count * sizeof *keys);
    if (!keys) return -1;
    for (int i = 0; i < prev->count; ++i) keys[i] = key_of(&prev->items[i], i);
    qsort(keys, (size_t)prev->count, sizeof *keys, key_cmp);
    int matched = 0;
    for (int k = 0; k < now->count; ++k) {
        cfContact *c = &now->items[k];
        Key want = key_of(c, 0);
        const Key *hit = bsearch(&want, keys, (size_t)prev->count, sizeof *keys, key_cmp);
        if (hit) {
            memcpy(c->lambda, prev->items[hit->index].lambda, sizeof c->lambda);
            ++matched;
        }
    }
    free(keys);
    return matched;
}

/* Box manifolds change their clipping features whenever a resting box wobbles by a hair, and a
   stack that loses its impulses every few steps jitters: a contact without a match by feature
   takes the impulse of the closest previous contact of the same two sides. */
static void carry_one(cfContact *c, const cfContact *first, const cfContact *end)
{
    double best = CF_WARM_RADIUS * CF_WARM_RADIUS;
    const cfContact *pick = NULL;
    for (const cfContact *q = first; q < end && pair_cmp(q, c) == 0; ++q) {
        cfVec3 d = cfu_sub(q->p, c->p);
        double d2 = cfu_dot(d, d);
        if (d2 < best && cfu_dot(q->n, c->n) > 0.99) {
            best = d2;
            pick = q;
        }
    }
    if (pick)
        for (int r = 0; r < 3; ++r) c->lambda[r] = pick->lambda[r];
}

/* carry_proximity() over now's contacts [i0, i1), prev's first j contacts of earlier pairs */
static void carry_proximity_range(cfContactList *now, const cfContactList *prev, bool ordered, int i0, int i1, int j)
{
    for (int i = i0; i < i1; ++i) {
        cfContact *c = &now->items[i];
        if (c->lambda[0] != 0.0 || c->lambda[1] != 0.0 || c->lambda[2] != 0.0) continue;
        if (ordered) {
            while (j < prev->count && pair_cmp(&prev->items[j], c) < 0) ++j;
            carry_one(c, &prev->items[j], prev->items + prev->count);
        } else {
            /* mixed lists (soft contacts come after the rigid pairs): find the pair's first contact */
            int k = 0;
            while (k < prev->count && pair_cmp(&prev->items[k], c) != 0) ++k;
            carry_one(c, &prev->items[k], prev->items + prev->count);
        }
    }
}

static void carry_proximity(cfContactList *now, const cfContactList *prev, bool ordered)
{
    carry_proximity_range(now, prev, ordered, 0, now->count, 0);
}

/* the first contact of prev whose pair is not before c's (binary search: prev in pair order) */
static int pair_lower_bound(const cfContactList *prev, const cfContact *c)
{
    int lo = 0, hi = prev->count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (pair_cmp(&prev->items[mid], c) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* the start of the pair that holds now's contact k (k itself when it starts one; count at the end) */
static int pair_start_at(const cfContactList *now, int k)
{
    while (k > 0 && k < now->count && pair_cmp(&now->items[k - 1], &now->items[k]) == 0) --k;
    return k;
}

/* fewer contacts than this: the carrying on one thread */
#define CF_CARRY_THREAD_MIN 1000

/* both lists in pair order, on @p T threads: each takes whole pairs of now, a share of about
   1/T, and starts its walks where its first pair's previous contacts begin. Every contact's
   impulse depends on prev and itself only, so the results are those of one thread. */
static int carry_ordered_threaded(cfContactList *now, const cfContactList *prev, bool proximity, int T)
{
    int n = now->count, matched = 0;
#pragma omp parallel for num_threads(T) schedule(static, 1) reduction(+ : matched)
    for (int t = 0; t < T; ++t) {
        int k0 = pair_start_at(now, (int)((long long)n * t / T)), k1 = pair_start_at(now, (int)((long long)n * (t + 1) / T));
        if (k0 >= k1) continue;
        int j0 = pair_lower_bound(prev, &now->items[k0]);
        matched += carry_walk(now, prev, k0, k1, j0);
        if (proximity) carry_proximity_range(now, prev, true, k0, k1, j0);
    }
    return matched;
}

int cf_contacts_carry_impulses(cfContactList *now, const cfContactList *prev)
{
    return carry_features(now, prev, pair_ordered(prev) && pair_ordered(now));
}

int cf_contacts_carry(cfContactList *now, const cfContactList *prev, bool proximity, int threads)
{
    bool ordered = pair_ordered(prev) && pair_ordered(now);
    if (ordered && threads > 1 && now->count >= CF_CARRY_THREAD_MIN && prev->count > 0)
        return carry_ordered_threaded(now, prev, proximity, threads < CF_MAX_THREADS ? threads : CF_MAX_THREADS);
    int matched = carry_features(now, prev, ordered);
    if (matched >= 0 && proximity) carry_proximity(now, prev, ordered);
    return matched;
}
