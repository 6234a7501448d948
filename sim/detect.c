/* SPDX-License-Identifier: MIT */
/* World contact detection: broad phase, shape-pair dispatch to the chapter-3 routines, A->B normals. */
#include "cf/cf_detect.h"

#include <stdlib.h>
#include <string.h>

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
        memset(&out[k].soft_a, 0, sizeof out[k].soft_a);
        memset(&out[k].soft_b, 0, sizeof out[k].soft_b);
        memset(&out[k].friction, 0, sizeof out[k].friction);
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

static uint32_t face_feature(int tri, int point)
{
    return cf_feature(CF_FEAT_SOFT_FACE, (uint32_t)tri * 2654435761u ^ (uint32_t)point * 40503u);
}

/* The point @p x against triangle @p t of soft body @p s (index @p si): a contact when its
   projection falls inside the triangle and it lies within [-depth, margin] of the triangle's
   plane, depth a quarter of the triangle's shortest edge: a point deeper than that is taken to be
   near another face of the body (a thin slab's far side, a side face), not this one. Side A is the
   triangle, the normal its outward normal. Returns true and fills @p c. */
static bool point_triangle(const cfSoftBody *s, int si, int t, cfVec3 x, double margin, cfContact *c)
{
    const int *v = s->tris[t];
    cfVec3 a = s->x[v[0]], b = s->x[v[1]], d = s->x[v[2]];
    cfVec3 m = cfu_cross(cfu_sub(b, a), cfu_sub(d, a));
    double area2 = cfu_norm(m);
    if (!(area2 > 0.0)) return false;
    m = cfu_scale(1.0 / area2, m);
    double phi = cfu_dot(m, cfu_sub(x, a));
    double depth = 0.25 * fmin(cfu_norm(cfu_sub(b, a)), fmin(cfu_norm(cfu_sub(d, b)), cfu_norm(cfu_sub(a, d))));
    if (phi > margin || phi < -depth) return false;
    double w[3];
    if (cf_barycentric_triangle(x, a, b, d, w) != CF_OK || w[0] < 0.0 || w[1] < 0.0 || w[2] < 0.0) return false;
    memset(c, 0, sizeof *c);
    c->body_a = c->body_b = -1;
    c->soft_a = soft_point(si, 3, v, w);
    c->n = m;
    c->p = cfu_sub(x, cfu_scale(phi, m)); /* the material point of the triangle */
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
        if (!surf[k] || s->fixed[k] || !point_gap(r, s->x[k], &phi, &n) || phi > o->margin) continue;
        cfContact c;
        memset(&c, 0, sizeof c);
        c.body_a = ri;
        c.body_b = -1;
        const double one = 1.0;
        c.soft_b = soft_point(si, 1, &k, &one);
        c.n = n;
        c.p = cfu_sub(s->x[k], cfu_scale(phi, n)); /* on the rigid surface */
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
            if (!point_triangle(s, si, t, x, o->margin, &c)) continue;
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
            if (!surf_b[k] || !aabb_has(tb, B->x[k]) || !point_triangle(A, sa, t, B->x[k], margin, &c)) continue;
            const double one = 1.0;
            c.soft_b = soft_point(sb, 1, &k, &one);
            c.mu = mu;
            c.feature = face_feature(t, k);
            res = push(out, &c, st);
        }
    }
    return res;
}

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
        box[i] = cf_aabb_inflate(soft_aabb(&w->soft[i]), o.margin);
    }
    for (int i = 0; i < w->n_soft && res == CF_OK; ++i) {
        for (int r = 0; r < w->n_bodies && res == CF_OK; ++r) res = soft_rigid(w, i, surf[i], box[i], r, &o, out, &st);
        for (int j = i + 1; j < w->n_soft && res == CF_OK; ++j) {
            if (!cf_aabb_overlap(box[i], box[j])) continue;
            st.candidate_pairs++;
            res = soft_soft(w, i, j, surf[j], o.margin, out, &st);
            if (res == CF_OK) res = soft_soft(w, j, i, surf[i], o.margin, out, &st);
        }
    }
    for (int i = 0; surf && i < w->n_soft; ++i) free(surf[i]);
    free(surf);
    free(box);
    if (stats) {
        stats->candidate_pairs += st.candidate_pairs;
        stats->contacts += st.contacts;
    }
    return res;
}
