/* SPDX-License-Identifier: MIT */
/* Continuous collision detection on the linear motion of a step (constraint manifold refinement,
   ch08.6; chapter 3's cubic CCD): soft surface vertices against rigid shapes and soft triangles,
   rigid box corners against soft triangles, soft edges against soft edges. */
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch03.h"
#include "detect_soft.h"
#include "internal.h"

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

/* One CCD pass: the world at the start, the end positions (x1: soft, one array per body; b1:
   rigid poses), the contacts already constrained (sorted keys into @ref known), the tolerance of
   a constrained pair's end gap; the new pairs found and the constrained ones still colliding */
typedef struct Ccd {
    const cfWorld *w;
    cfVec3 *const *x1;
    const cfRigidBody *b1;
    const cfContactList *known;
    const Key *keys;
    double tol;
    cfContactList found;
    int colliding;
} Ccd;

/* the material point of side @p side of @p c at the end positions */
static cfVec3 side_point(const Ccd *H, const cfContact *c, int side)
{
    const cfSoftSide *ss = cf_contact_soft(c, side);
    int body = side == 0 ? c->body_a : c->body_b;
    if (ss) {
        cfVec3 p = cfu_zero3();
        for (int k = 0; k < ss->n; ++k) p = cfu_mul_add(p, ss->w[k], H->x1[ss->body][ss->node[k]]);
        return p;
    }
    if (body >= 0) return moved_point(&H->w->bodies[body], &H->b1[body], c->p);
    return c->p;
}

static double side_offset(const cfWorld *w, const cfContact *c)
{
    const cfSoftSide *sa = cf_contact_soft(c, 0), *sb = cf_contact_soft(c, 1);
    return (sa ? cf_soft_offset(&w->soft[sa->body]) : 0.0) + (sb ? cf_soft_offset(&w->soft[sb->body]) : 0.0);
}

/* one CCD hit: a contact at the start positions, unless the pair is constrained already (then
   it counts as colliding when its end gap is below -tol) */
static cfStatus hit(Ccd *H, const cfContact *c)
{
    Key k = key_of(c, -1);
    int n_known = H->known->count;
    const Key *found = n_known ? bsearch(&k, H->keys, (size_t)n_known, sizeof k, key_cmp) : NULL;
    if (found) { /* constrained: does the pair still cross at the end beyond the tolerance? */
        const cfContact *o = &H->known->items[found->index];
        double gap = cfu_dot(o->n, cfu_sub(side_point(H, o, 1), side_point(H, o, 0))) - side_offset(H->w, o);
        if (gap < -H->tol) H->colliding++;
        return CF_OK;
    }
    return cf_contacts_push(&H->found, c);
}

/* the point of a CCD hit against a triangle: soft vertex @p node of body B, or corner @p corner of
   rigid body @p rb (>= 0) at @p q */
typedef struct HitPoint {
    int B, node;
    int rb, corner;
    cfVec3 q;
} HitPoint;

/* A contact for a CCD hit of a point against triangle t of soft body A, at the start positions:
   the normal at the time of impact, the triangle's weights at that time, the gap along the normal
   now */
static void face_contact(const cfWorld *w, int A, int t, const cfCcdResult *r, const HitPoint *pt, cfSoftHit *h)
{
    const cfSoftBody *sa = &w->soft[A];
    const int *v = sa->tris[t];
    double wt[3] = {1.0 - r->a - r->b, r->a, r->b};
    cf_soft_hit_init(h);
    cfContact *c = &h->c;
    c->body_a = -1;
    c->body_b = pt->rb;
    h->x.soft_a = cf_soft_point(A, 3, v, wt);
    cfVec3 pa = cfu_zero3();
    for (int k = 0; k < 3; ++k) pa = cfu_mul_add(pa, wt[k], sa->x[v[k]]);
    cfVec3 pb = pt->q;
    double mu;
    if (pt->rb < 0) {
        const double one = 1.0;
        h->x.soft_b = cf_soft_point(pt->B, 1, &pt->node, &one);
        pb = w->soft[pt->B].x[pt->node];
        mu = sqrt(fmax(sa->mu, 0.0) * fmax(w->soft[pt->B].mu, 0.0));
        c->feature = cf_face_feature(t, pt->node);
    } else {
        mu = sqrt(fmax(sa->mu, 0.0) * fmax(w->bodies[pt->rb].mu, 0.0));
        c->feature = cf_face_feature(t, pt->corner);
    }
    c->n = r->n;
    c->p = pt->rb < 0 ? pa : pt->q;
    c->phi = cfu_dot(c->n, cfu_sub(pb, pa)) - side_offset(w, c);
    c->mu = mu;
}

/* surface vertices against rigid shapes: the end position inside the shape's end pose */
static cfStatus vertices_on_shapes(Ccd *H, const cfSurfaces *S)
{
    const cfWorld *w = H->w;
    cfStatus res = CF_OK;
    for (int v = 0; v < S->nv && res == CF_OK; ++v) {
        int B = S->vert_body[v], node = S->vert[v];
        const cfSoftBody *sb = &w->soft[B];
        if (sb->fixed[node]) continue;
        cfAabb sw = cf_aabb_add_point(cf_aabb_add_point(cf_aabb_empty(), sb->x[node]), H->x1[B][node]);
        for (int r = 0; r < w->n_bodies && res == CF_OK; ++r) {
            const cfRigidBody *r0 = &w->bodies[r], *r1 = &H->b1[r];
            if (r0->shape.type != CF_SHAPE_PLANE && !cf_aabb_overlap(sw, cf_aabb_union(cf_aabb_of_body(r0), cf_aabb_of_body(r1))))
                continue;
            double phi1, phi0;
            cfVec3 n1, n0;
            if (!cf_point_gap(r1, H->x1[B][node], &phi1, &n1) || phi1 - cf_soft_offset(sb) >= 0.0) continue;
            if (!cf_point_gap(r0, sb->x[node], &phi0, &n0)) continue;
            cfSoftHit h;
            cf_node_contact(&h, w, B, node, r, phi0, n0);
            res = hit(H, &h.c);
        }
    }
    return res;
}

/* the point's path p0 -> p1 against every triangle of the hash near it (vertex-face CCD) */
static cfStatus point_on_triangles(Ccd *H, const cfSurfaces *S, cfSpatialHash *h, const HitPoint *pt, cfVec3 p1)
{
    const cfWorld *w = H->w;
    cfVec3 p0 = pt->q;
    const int *items;
    int m = cf_hash_query(h, cf_aabb_add_point(cf_aabb_add_point(cf_aabb_empty(), p0), p1), &items);
    if (m < 0) return CF_NO_MEMORY;
    cfStatus res = CF_OK;
    for (int q = 0; q < m && res == CF_OK; ++q) {
        int A = S->tri_body[items[q]], t = S->tri[items[q]];
        const int *tv = w->soft[A].tris[t];
        if (pt->rb < 0 && (!cf_soft_may_touch(w, A, pt->B) || (A == pt->B && cf_tri_has(tv, pt->node)))) continue;
        cfVec3 x[4] = {w->soft[A].x[tv[0]], w->soft[A].x[tv[1]], w->soft[A].x[tv[2]], p0};
        cfVec3 u[4] = {cfu_sub(H->x1[A][tv[0]], x[0]), cfu_sub(H->x1[A][tv[1]], x[1]), cfu_sub(H->x1[A][tv[2]], x[2]),
                       cfu_sub(p1, p0)};
        cfCcdResult r = cf_ccd_vertex_face(x, u, 1.0);
        if (r.status != CF_CCD_HIT) continue;
        cfSoftHit hc;
        face_contact(w, A, t, &r, pt, &hc);
        res = hit(H, &hc.c);
    }
    return res;
}

/* soft surface vertices and rigid box corners against soft triangles */
static cfStatus points_on_triangles(Ccd *H, const cfSurfaces *S, cfAabb *box)
{
    const cfWorld *w = H->w;
    cfSpatialHash h;
    memset(&h, 0, sizeof h);
    for (int t = 0; t < S->nt; ++t) box[t] = cf_tri_box(w, S->tri_body[t], S->tri[t], H->x1);
    cfStatus res = cf_hash_build(&h, box, S->nt, S->cell);
    for (int v = 0; v < S->nv && res == CF_OK; ++v) {
        int B = S->vert_body[v], node = S->vert[v];
        HitPoint pt = {B, node, -1, 0, w->soft[B].x[node]};
        res = point_on_triangles(H, S, &h, &pt, H->x1[B][node]);
    }
    for (int rb = 0; rb < w->n_bodies && res == CF_OK; ++rb) {
        if (w->bodies[rb].shape.type != CF_SHAPE_BOX) continue;
        cfObb o0 = cf_obb_of_body(&w->bodies[rb]), o1 = cf_obb_of_body(&H->b1[rb]);
        for (int k = 0; k < 8 && res == CF_OK; ++k) {
            HitPoint pt = {-1, 0, rb, k, cf_obb_vertex(&o0, k)};
            res = point_on_triangles(H, S, &h, &pt, cf_obb_vertex(&o1, k));
        }
    }
    cf_hash_free(&h);
    return res;
}

/* soft edges against soft edges (edge-edge CCD, crossings interior to both) */
typedef struct EdgeCcd {
    Ccd *H;
    const cfSurfaces *S;
} EdgeCcd;

static cfStatus edge_pair_ccd(void *ctx, int e, int f)
{
    const EdgeCcd *c = ctx;
    const cfWorld *w = c->H->w;
    cfVec3 *const *x1 = c->H->x1;
    int A = c->S->edge_body[e], B = c->S->edge_body[f];
    const int *ea = c->S->edge[e], *eb = c->S->edge[f];
    cfVec3 x[4] = {w->soft[A].x[ea[0]], w->soft[A].x[ea[1]], w->soft[B].x[eb[0]], w->soft[B].x[eb[1]]};
    cfVec3 u[4] = {cfu_sub(x1[A][ea[0]], x[0]), cfu_sub(x1[A][ea[1]], x[1]), cfu_sub(x1[B][eb[0]], x[2]),
                   cfu_sub(x1[B][eb[1]], x[3])};
    cfCcdResult r = cf_ccd_edge_edge(x, u, 1.0);
    if (r.status != CF_CCD_HIT || r.a <= 0.0 || r.a >= 1.0 || r.b <= 0.0 || r.b >= 1.0) return CF_OK;
    cfSoftHit hc;
    cfEdgePair ep = {A, B, ea, eb, r.a, r.b};
    cf_edge_contact(w, &ep, r.n, &hc);
    return hit(c->H, &hc.c);
}

static cfStatus edges_on_edges(Ccd *H, const cfSurfaces *S, cfAabb *box)
{
    for (int e = 0; e < S->ne; ++e) box[e] = cf_edge_box(H->w, S->edge_body[e], S->edge[e], H->x1);
    EdgeCcd c = {H, S};
    return cf_soft_edge_pairs(H->w, S, box, edge_pair_ccd, &c);
}

/* the new pairs of @p found appended to @p out once each (a pair can be hit from both of its
   features), in the order they were found */
static cfStatus unique_pairs(const cfContactList *found, cfContactList *out)
{
    int nf = found->count;
    if (nf == 0) return CF_OK;
    Key *keys = malloc((size_t)nf * sizeof *keys);
    bool *keep = calloc((size_t)nf, sizeof *keep);
    cfStatus res = keys && keep ? CF_OK : CF_NO_MEMORY;
    if (res == CF_OK) {
        for (int a = 0; a < nf; ++a) keys[a] = key_of(&found->items[a], a);
        /* sort by pair, keep the first hit of each, then restore the order of discovery */
        qsort(keys, (size_t)nf, sizeof *keys, key_cmp);
        int nu = 0;
        for (int a = 0; a < nf; ++a)
            if (a == 0 || key_cmp(&keys[a], &keys[nu - 1]) != 0) keys[nu++] = keys[a];
            else if (keys[a].index < keys[nu - 1].index) keys[nu - 1].index = keys[a].index;
        for (int a = 0; a < nu; ++a) keep[keys[a].index] = true;
        for (int a = 0; a < nf && res == CF_OK; ++a)
            if (keep[a]) res = cf_contacts_push(out, &found->items[a]);
    }
    free(keep);
    free(keys);
    return res;
}

cfStatus cf_detect_ccd(const cfWorld *w, const cfContactList *known, cfVec3 *const *x1, const cfRigidBody *b1,
                       double margin, cfContactList *out, int *colliding)
{
    *colliding = 0;
    Ccd H = {.w = w, .x1 = x1, .b1 = b1, .known = known, .tol = fmax(0.5 * margin, 1e-9)};
    Key *keys = malloc((size_t)(known->count > 0 ? known->count : 1) * sizeof *keys);
    if (!keys) return CF_NO_MEMORY;
    for (int a = 0; a < known->count; ++a) keys[a] = key_of(&known->items[a], a);
    qsort(keys, (size_t)known->count, sizeof *keys, key_cmp);
    H.keys = keys;
    cfSurfaces S;
    cfStatus res = cf_surfaces_build(w, &S);
    int nbox = S.nt > S.ne ? S.nt : S.ne;
    cfAabb *box = res == CF_OK ? malloc((size_t)(nbox > 0 ? nbox : 1) * sizeof *box) : NULL;
    if (res == CF_OK && !box) res = CF_NO_MEMORY;
    if (res == CF_OK) res = vertices_on_shapes(&H, &S);
    if (res == CF_OK) res = points_on_triangles(&H, &S, box);
    if (res == CF_OK) res = edges_on_edges(&H, &S, box);
    free(box);
    cf_surfaces_free(&S);
    free(keys);
    if (res == CF_OK) res = unique_pairs(&H.found, out);
    cf_contacts_free(&H.found);
    *colliding = H.colliding;
    return res;
}
