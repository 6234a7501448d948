/* SPDX-License-Identifier: MIT */
/* World contact detection: broad phase, shape-pair dispatch to the chapter-3 routines, A->B normals. */
#include "cf/cf_detect.h"

#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch03.h"
#include "cf/cf_world.h"

const char *cf_broadphase_name(cfBroadphaseKind k)
{
    switch (k) {
    case CF_BROADPHASE_SAP: return "sap";
    case CF_BROADPHASE_ALL_PAIRS: return "all-pairs";
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

/* ---- grid SDF as a cfSdf -------------------------------------------------------------- */

static double eval_grid(const void *data, cfVec3 x, cfVec3 *grad) { return cf_sdf_grid_eval(data, x, grad); }

cfSdf cf_sdf_of_grid(const cfSdfGrid *g)
{
    cfSdf s = {eval_grid, g};
    return s;
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
    }
    return n;
}

/* ---- the world ------------------------------------------------------------------------ */

static cfStatus emit_pair(const cfWorld *w, int i, int j, const cfDetectOptions *o, cfContactList *out,
                          cfDetectStats *st)
{
    const cfRigidBody *a = &w->bodies[i], *b = &w->bodies[j];
    if (a->fixed && b->fixed) return CF_OK;
    st->candidate_pairs++;
    cfContact buf[CF_BOX_MAX_CONTACTS];
    int n = cf_detect_pair(a, i, b, j, o, buf);
    if (n < 0) {
        st->unsupported++;
        return CF_OK;
    }
    st->narrow_calls++;
    for (int k = 0; k < n; ++k) {
        cfStatus s = cf_contacts_push(out, &buf[k]);
        if (s != CF_OK) return s;
    }
    st->contacts += n;
    return CF_OK;
}

static int pair_cmp(const void *x, const void *y)
{
    const cfPair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

cfStatus cf_detect_world(const cfWorld *w, const cfDetectOptions *opt, cfContactList *out, cfDetectStats *stats)
{
    double t0 = cf_seconds();
    cfDetectOptions o = opt ? *opt : cf_detect_options_default();
    cfDetectStats st;
    memset(&st, 0, sizeof st);
    cf_contacts_clear(out);
    if (!options_ok(&o)) return CF_BAD_INPUT;
    int n = w->n_bodies;
    for (int i = 0; i < n; ++i)
        if (!cfu_vec3_finite(w->bodies[i].x) || !cfu_quat_finite(w->bodies[i].q)) return CF_BAD_INPUT;

    /* bounded bodies go through the broad phase; planes pair with everything */
    int *ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
    cfAabb *boxes = malloc((size_t)(n > 0 ? n : 1) * sizeof *boxes);
    cfPairList pairs = {0, 0, NULL};
    cfStatus s = (ids && boxes) ? CF_OK : CF_NO_MEMORY;
    int nb = 0;
    for (int i = 0; s == CF_OK && i < n; ++i) {
        if (w->bodies[i].shape.type == CF_SHAPE_PLANE) continue;
        ids[nb] = i;
        boxes[nb++] = cf_aabb_inflate(cf_aabb_of_body(&w->bodies[i]), 0.5 * o.margin);
    }
    if (s == CF_OK)
        s = o.broadphase == CF_BROADPHASE_SAP ? cf_broadphase_sap(boxes, nb, &pairs, &st.aabb_tests)
                                               : cf_broadphase_all_pairs(boxes, nb, &pairs, &st.aabb_tests);
    /* back to body indices, then add the plane pairs, in lexicographic order */
    for (int k = 0; s == CF_OK && k < pairs.count; ++k) {
        int a = ids[pairs.items[k].a], b = ids[pairs.items[k].b];
        pairs.items[k].a = a < b ? a : b;
        pairs.items[k].b = a < b ? b : a;
    }
    for (int i = 0; s == CF_OK && i < n; ++i) {
        if (w->bodies[i].shape.type != CF_SHAPE_PLANE) continue;
        for (int j = 0; s == CF_OK && j < n; ++j) {
            if (j == i || (w->bodies[j].shape.type == CF_SHAPE_PLANE && j < i)) continue;
            s = cf_pairs_push(&pairs, i < j ? i : j, i < j ? j : i);
        }
    }
    if (s == CF_OK && pairs.count > 1) qsort(pairs.items, (size_t)pairs.count, sizeof *pairs.items, pair_cmp);
    for (int k = 0; s == CF_OK && k < pairs.count; ++k) s = emit_pair(w, pairs.items[k].a, pairs.items[k].b, &o, out, &st);
    free(ids);
    free(boxes);
    cf_pairs_free(&pairs);
    st.seconds = cf_seconds() - t0;
    if (stats) *stats = st;
    return s;
}

/* ---- warm starting -------------------------------------------------------------------- */

typedef struct Key {
    int a, b;
    uint32_t f;
    int index;
} Key;

static int key_cmp(const Key *p, const Key *q)
{
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->f != q->f) return p->f < q->f ? -1 : 1;
    return 0;
}

static int key_sort(const void *x, const void *y) { return key_cmp(x, y); }

/* the contacts of a list come pair by pair in (body_a, body_b) order (as cf_detect_world() emits them) */
static bool pair_ordered(const cfContactList *l)
{
    for (int i = 1; i < l->count; ++i) {
        const cfContact *p = &l->items[i - 1], *q = &l->items[i];
        if (p->body_a > q->body_a || (p->body_a == q->body_a && p->body_b > q->body_b)) return false;
    }
    return true;
}

static int pair_before(const cfContact *p, const cfContact *q)
{
    return p->body_a < q->body_a || (p->body_a == q->body_a && p->body_b < q->body_b);
}

int cf_contacts_carry_impulses(cfContactList *now, const cfContactList *prev)
{
    if (prev->count == 0 || now->count == 0) return 0;
    if (pair_ordered(prev) && pair_ordered(now)) {
        /* both in pair order (every step of a world): one merge walk, features matched within a pair */
        int matched = 0, j = 0;
        for (int k = 0; k < now->count; ++k) {
            cfContact *c = &now->items[k];
            while (j < prev->count && pair_before(&prev->items[j], c)) ++j;
            for (int i = j; i < prev->count && !pair_before(c, &prev->items[i]); ++i)
                if (prev->items[i].feature == c->feature) {
                    memcpy(c->lambda, prev->items[i].lambda, sizeof c->lambda);
                    ++matched;
                    break;
                }
        }
        return matched;
    }
    Key *keys = malloc((size_t)prev->count * sizeof *keys);
    if (!keys) return -1;
    for (int i = 0; i < prev->count; ++i)
        keys[i] = (Key){prev->items[i].body_a, prev->items[i].body_b, prev->items[i].feature, i};
    qsort(keys, (size_t)prev->count, sizeof *keys, key_sort);
    int matched = 0;
    for (int k = 0; k < now->count; ++k) {
        cfContact *c = &now->items[k];
        Key want = {c->body_a, c->body_b, c->feature, 0};
        const Key *hit = bsearch(&want, keys, (size_t)prev->count, sizeof *keys, key_sort);
        if (hit) {
            memcpy(c->lambda, prev->items[hit->index].lambda, sizeof c->lambda);
            ++matched;
        }
    }
    free(keys);
    return matched;
}
