/* SPDX-License-Identifier: MIT */
/* Rigid detection, one pair at a time: the narrow phase as one table indexed by the two shapes
   (MuJoCo's collision table), each entry a routine of chapter 3 (cf_ch03.h), and the candidate
   pairs of the broad phase. The pass over a world's pairs (persistent manifolds, threads) is
   detect_world.c's; soft bodies are detect_soft.c's, continuous detection detect_ccd.c's. */
#include "cf/cf_detect.h"

#include <stdlib.h>

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

bool cf_detect_options_ok(const cfDetectOptions *o)
{
    return isfinite(o->margin) && o->margin >= 0.0 && o->max_contacts >= 1 &&
           o->max_contacts <= CF_BOX_MAX_CONTACTS &&
           (o->broadphase == CF_BROADPHASE_SAP || o->broadphase == CF_BROADPHASE_ALL_PAIRS);
}

/* ---- the narrow phase: one routine per pair of shapes -------------------------------------- */

/* the contacts of @p a (side A) and @p b (side B) in the roles of the routine's arguments */
typedef int (*NarrowFn)(const cfRigidBody *a, const cfRigidBody *b, const cfDetectOptions *o, cfContact *out);

static int sphere_sphere(const cfRigidBody *a, const cfRigidBody *b, const cfDetectOptions *o, cfContact *out)
{
    return cf_collide_sphere_sphere(a->x, a->shape.radius, b->x, b->shape.radius, o->margin, out);
}

static int sphere_box(const cfRigidBody *a, const cfRigidBody *b, const cfDetectOptions *o, cfContact *out)
{
    cfObb box = cf_obb_of_body(b);
    return cf_collide_sphere_box(a->x, a->shape.radius, &box, o->margin, out);
}

static int box_box(const cfRigidBody *a, const cfRigidBody *b, const cfDetectOptions *o, cfContact *out)
{
    cfObb A = cf_obb_of_body(a), B = cf_obb_of_body(b);
    return cf_collide_box_box(&A, &B, o->margin, o->max_contacts, out);
}

static int plane_sphere(const cfRigidBody *a, const cfRigidBody *b, const cfDetectOptions *o, cfContact *out)
{
    return cf_collide_plane_sphere(a->shape.normal, a->shape.offset, b->x, b->shape.radius, o->margin, out);
}

/* a box whose centre is in front of the plane by more than its half diagonal (times |n|) plus the
   margin has no vertex within the margin, so no contacts: found without its eight vertices (the
   bound holds for every vertex with room to spare for their rounding; the boxes of a stack above
   the bottom layer, most plane pairs of a world, end here) */
static int plane_box(const cfRigidBody *a, const cfRigidBody *b, const cfDetectOptions *o, cfContact *out)
{
    const cfVec3 n = a->shape.normal;
    double reach = cfu_norm(b->shape.half_extents) * cfu_norm(n), ahead = cfu_dot(n, b->x) - a->shape.offset;
    if (ahead - reach > o->margin + 1e-9 * (1.0 + fabs(a->shape.offset) + cfu_norm_inf(b->x) + reach)) return 0;
    cfObb box = cf_obb_of_body(b);
    return cf_collide_plane_box(a->shape.normal, a->shape.offset, &box, o->margin, o->max_contacts, out);
}

static int any_capsule(const cfRigidBody *a, const cfRigidBody *b, const cfDetectOptions *o, cfContact *out)
{
    return cf_collide_capsule(a, b, o->margin, o->max_contacts, out);
}

/* NARROW[A][B]: the routine for shape A as side A and shape B as side B, for the pairs in role
   order (role_rank(A) <= role_rank(B)); NULL: no routine (two planes) */
static const NarrowFn NARROW[CF_SHAPE_COUNT][CF_SHAPE_COUNT] = {
    [CF_SHAPE_PLANE][CF_SHAPE_SPHERE] = plane_sphere,
    [CF_SHAPE_PLANE][CF_SHAPE_BOX] = plane_box,
    [CF_SHAPE_PLANE][CF_SHAPE_CAPSULE] = any_capsule,
    [CF_SHAPE_SPHERE][CF_SHAPE_SPHERE] = sphere_sphere,
    [CF_SHAPE_SPHERE][CF_SHAPE_BOX] = sphere_box,
    [CF_SHAPE_SPHERE][CF_SHAPE_CAPSULE] = any_capsule,
    [CF_SHAPE_BOX][CF_SHAPE_BOX] = box_box,
    [CF_SHAPE_BOX][CF_SHAPE_CAPSULE] = any_capsule,
    [CF_SHAPE_CAPSULE][CF_SHAPE_CAPSULE] = any_capsule,
};

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
    const cfRigidBody *first = swap ? b : a, *second = swap ? a : b;
    if (!(first->shape.type >= 0 && first->shape.type < CF_SHAPE_COUNT && second->shape.type >= 0 &&
          second->shape.type < CF_SHAPE_COUNT))
        return -1;
    NarrowFn fn = NARROW[first->shape.type][second->shape.type];
    int n = fn ? fn(first, second, &o, out) : -1;
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

/* ---- the broad phase ---------------------------------------------------------------------- */

static int pair_cmp(const void *x, const void *y)
{
    const cfPair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

cfStatus cf_candidate_pairs(const cfWorld *w, const cfDetectOptions *o, double grow, cfPairList *pairs, cfDetectStats *st)
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
