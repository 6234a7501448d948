/* SPDX-License-Identifier: MIT */
/* Soft detection: the contacts of the soft bodies' surfaces against rigid shapes, against each
   other and (detector "surfaces") between soft surfaces in full, vertex-face and edge-edge, a
   sheet against itself too. */
#include <stdlib.h>
#include <string.h>

#include "detect_soft.h"
#include "internal.h"

/* one pass: the world, the margin, each soft body's surface nodes and box, where contacts go */
typedef struct SoftPass {
    const cfWorld *w;
    double margin;
    unsigned char **surf; /* per soft body: its surface nodes (cf_surface_nodes()) */
    cfAabb *box;          /* per soft body: the box of its nodes grown by margin and offset */
    cfContactList *out;
    cfDetectStats *st;
} SoftPass;

static cfStatus push(const SoftPass *p, const cfContact *c)
{
    p->st->contacts++;
    return cf_contacts_push(p->out, c);
}

static bool aabb_has(cfAabb b, cfVec3 p)
{
    return p.x >= b.lo.x && p.x <= b.hi.x && p.y >= b.lo.y && p.y <= b.hi.y && p.z >= b.lo.z && p.z <= b.hi.z;
}

/* soft body si against rigid body ri: its surface nodes against the shape, and for a box, the
   box's corners against the soft surface */
static cfStatus soft_rigid(const SoftPass *p, int si, int ri)
{
    const cfWorld *w = p->w;
    const cfSoftBody *s = &w->soft[si];
    const cfRigidBody *r = &w->bodies[ri];
    cfAabb sbox = p->box[si];
    if (r->shape.type != CF_SHAPE_PLANE && !cf_aabb_overlap(sbox, cf_aabb_inflate(cf_aabb_of_body(r), p->margin)))
        return CF_OK;
    p->st->candidate_pairs++;
    double mu = sqrt(fmax(s->mu, 0.0) * fmax(r->mu, 0.0));
    cfStatus res = CF_OK;
    for (int k = 0; k < s->n_nodes && res == CF_OK; ++k) {
        double phi;
        cfVec3 n;
        if (!p->surf[si][k] || s->fixed[k] || !cf_point_gap(r, s->x[k], &phi, &n)) continue;
        if (phi - cf_soft_offset(s) > p->margin) continue;
        cfSoftHit h;
        cf_node_contact(&h, w, si, k, ri, phi, n);
        res = push(p, &h.c);
    }
    if (r->shape.type != CF_SHAPE_BOX || s->n_tris == 0) return res;
    cfObb box = cf_obb_of_body(r);
    for (int v = 0; v < 8 && res == CF_OK; ++v) {
        cfVec3 x = cf_obb_vertex(&box, v);
        if (!aabb_has(sbox, x)) continue;
        for (int t = 0; t < s->n_tris && res == CF_OK; ++t) {
            cfSoftHit h;
            if (!cf_point_triangle(s, si, t, x, p->margin, 0.0, &h)) continue;
            h.c.body_b = ri;
            h.c.p = x; /* the rigid side's point: the box corner */
            h.c.mu = mu;
            h.c.feature = cf_face_feature(t, v);
            res = push(p, &h.c);
        }
    }
    return res;
}

/* the surface nodes of soft body sb against the surface triangles of soft body sa */
static cfStatus soft_soft(const SoftPass *p, int sa, int sb)
{
    const cfSoftBody *A = &p->w->soft[sa], *B = &p->w->soft[sb];
    double mu = sqrt(fmax(A->mu, 0.0) * fmax(B->mu, 0.0));
    const double one = 1.0;
    cfStatus res = CF_OK;
    for (int t = 0; t < A->n_tris && res == CF_OK; ++t) {
        cfAabb tb = cf_aabb_empty();
        for (int k = 0; k < 3; ++k) tb = cf_aabb_add_point(tb, A->x[A->tris[t][k]]);
        tb = cf_aabb_inflate(tb, p->margin + 0.5 * cfu_norm(cfu_sub(tb.hi, tb.lo)));
        for (int k = 0; k < B->n_nodes && res == CF_OK; ++k) {
            cfSoftHit h;
            if (!p->surf[sb][k] || !aabb_has(tb, B->x[k]) ||
                !cf_point_triangle(A, sa, t, B->x[k], p->margin, cf_soft_offset(B), &h))
                continue;
            h.x.soft_b = cf_soft_point(sb, 1, &k, &one);
            h.c.mu = mu;
            h.c.feature = cf_face_feature(t, k);
            res = push(p, &h.c);
        }
    }
    return res;
}

/* ---- soft surfaces in full (detector "surfaces") -------------------------------------------- */

static double max_offset(const cfWorld *w)
{
    double m = 0.0;
    for (int i = 0; i < w->n_soft; ++i) m = fmax(m, cf_soft_offset(&w->soft[i]));
    return m;
}

/* every surface vertex against every triangle near it (cf_point_triangle()), by a spatial hash of
   the triangles' boxes grown by @p reach */
static cfStatus vertices_on_triangles(const SoftPass *p, const cfSurfaces *S, cfAabb *box, double reach)
{
    const cfWorld *w = p->w;
    const double one = 1.0;
    cfSpatialHash h;
    memset(&h, 0, sizeof h);
    for (int t = 0; t < S->nt; ++t) box[t] = cf_aabb_inflate(cf_tri_box(w, S->tri_body[t], S->tri[t], NULL), reach);
    cfStatus res = cf_hash_build(&h, box, S->nt, S->cell);
    for (int v = 0; v < S->nv && res == CF_OK; ++v) {
        int B = S->vert_body[v], node = S->vert[v];
        cfVec3 x = w->soft[B].x[node];
        const int *items;
        int m = cf_hash_query(&h, cf_aabb_add_point(cf_aabb_empty(), x), &items);
        if (m < 0) res = CF_NO_MEMORY;
        for (int q = 0; q < m && res == CF_OK; ++q) {
            int A = S->tri_body[items[q]], t = S->tri[items[q]];
            if (!cf_soft_may_touch(w, A, B) || (A == B && cf_tri_has(w->soft[A].tris[t], node))) continue;
            p->st->candidate_pairs++;
            cfSoftHit hit;
            if (!cf_point_triangle(&w->soft[A], A, t, x, p->margin, cf_soft_offset(&w->soft[B]), &hit)) continue;
            hit.x.soft_b = cf_soft_point(B, 1, &node, &one);
            hit.c.mu = sqrt(fmax(w->soft[A].mu, 0.0) * fmax(w->soft[B].mu, 0.0));
            hit.c.feature = cf_face_feature(t, node);
            res = push(p, &hit.c);
        }
    }
    cf_hash_free(&h);
    return res;
}

/* every pair of surface edges whose closest points are interior to both (5 % from the ends) and
   within the margin of each other, the gap negative when a volumetric side's outward normals say
   the other edge is inside */
typedef struct EdgeNear {
    const SoftPass *p;
    const cfSurfaces *S;
} EdgeNear;

static cfStatus edge_pair_near(void *ctx, int e, int f)
{
    const EdgeNear *c = ctx;
    const SoftPass *p = c->p;
    const cfSurfaces *S = c->S;
    const cfWorld *w = p->w;
    int A = S->edge_body[e], B = S->edge_body[f];
    const cfVec3 *xa = w->soft[A].x, *xb = w->soft[B].x;
    p->st->candidate_pairs++;
    double sp, tp;
    double d2 = cf_segment_closest(xa[S->edge[e][0]], xa[S->edge[e][1]], xb[S->edge[f][0]], xb[S->edge[f][1]], &sp, &tp);
    /* closest points near an end are vertex cases, left to vertex-face */
    if (sp <= 0.05 || sp >= 0.95 || tp <= 0.05 || tp >= 0.95) return CF_OK;
    double dist = sqrt(d2);
    if (!(dist > 1e-12) || dist - cf_soft_offset(&w->soft[A]) - cf_soft_offset(&w->soft[B]) > p->margin) return CF_OK;
    cfVec3 pa = cfu_mul_add(xa[S->edge[e][0]], sp, cfu_sub(xa[S->edge[e][1]], xa[S->edge[e][0]]));
    cfVec3 pb = cfu_mul_add(xb[S->edge[f][0]], tp, cfu_sub(xb[S->edge[f][1]], xb[S->edge[f][0]]));
    cfVec3 n = cfu_scale(1.0 / dist, cfu_sub(pb, pa));
    /* a volumetric side says which side is outside: pointing into A (or out of B's outside
       toward A) means the edges have crossed: the normal turns, the gap is negative */
    bool sheet_a = cf_soft_sheet(&w->soft[A]);
    bool crossed = (!sheet_a && cfu_dot(n, S->edge_normal[e]) < 0.0) ||
                   (sheet_a && !cf_soft_sheet(&w->soft[B]) && cfu_dot(n, S->edge_normal[f]) > 0.0);
    if (crossed) n = cfu_neg(n);
    cfSoftHit hit;
    cfEdgePair ep = {A, B, S->edge[e], S->edge[f], sp, tp};
    cf_edge_contact(w, &ep, n, &hit);
    return push(p, &hit.c);
}

static cfStatus edges_on_edges(const SoftPass *p, const cfSurfaces *S, cfAabb *box, double reach)
{
    const cfWorld *w = p->w;
    for (int e = 0; e < S->ne; ++e) box[e] = cf_aabb_inflate(cf_edge_box(w, S->edge_body[e], S->edge[e], NULL), 0.5 * reach);
    EdgeNear c = {p, S};
    return cf_soft_edge_pairs(w, S, box, edge_pair_near, &c);
}

/* Proximity between soft surfaces: vertices against triangles, then edges against edges; a sheet
   also against itself, features that share a node excepted. Candidates by a spatial hash;
   contacts in vertex order, then edge order. */
static cfStatus soft_surfaces(const SoftPass *p)
{
    cfSurfaces S;
    cfStatus res = cf_surfaces_build(p->w, &S);
    if (res != CF_OK) return res;
    double reach = p->margin + 2.0 * max_offset(p->w);
    cfAabb *box = malloc((size_t)(S.nt > S.ne ? (S.nt > 0 ? S.nt : 1) : S.ne) * sizeof *box);
    if (!box) res = CF_NO_MEMORY;
    if (res == CF_OK) res = vertices_on_triangles(p, &S, box, reach);
    if (res == CF_OK) res = edges_on_edges(p, &S, box, reach);
    free(box);
    cf_surfaces_free(&S);
    return res;
}

cfStatus cf_detect_soft(const cfWorld *w, const cfDetectOptions *opt, cfContactList *out, cfDetectStats *stats)
{
    cfDetectOptions o = opt ? *opt : cf_detect_options_default();
    if (!cf_detect_options_ok(&o)) return CF_BAD_INPUT;
    cfDetectStats st;
    memset(&st, 0, sizeof st);
    cfStatus res = CF_OK;
    SoftPass p = {.w = w, .margin = o.margin, .out = out, .st = &st};
    p.surf = calloc((size_t)(w->n_soft > 0 ? w->n_soft : 1), sizeof *p.surf);
    p.box = malloc((size_t)(w->n_soft > 0 ? w->n_soft : 1) * sizeof *p.box);
    if (!p.surf || !p.box) res = CF_NO_MEMORY;
    for (int i = 0; i < w->n_soft && res == CF_OK; ++i) {
        for (int k = 0; k < w->soft[i].n_nodes; ++k)
            if (!cfu_vec3_finite(w->soft[i].x[k])) res = CF_BAD_INPUT;
        p.surf[i] = cf_surface_nodes(&w->soft[i]);
        if (!p.surf[i]) res = CF_NO_MEMORY;
        cfAabb b = cf_aabb_empty();
        for (int k = 0; k < w->soft[i].n_nodes; ++k) b = cf_aabb_add_point(b, w->soft[i].x[k]);
        p.box[i] = cf_aabb_inflate(b, o.margin + cf_soft_offset(&w->soft[i]));
    }
    bool full = w->def.detector == CF_DETECT_SURFACES;
    for (int i = 0; i < w->n_soft && res == CF_OK; ++i) {
        for (int r = 0; r < w->n_bodies && res == CF_OK; ++r) res = soft_rigid(&p, i, r);
        for (int j = i + 1; j < w->n_soft && res == CF_OK && !full; ++j) {
            if (!cf_aabb_overlap(p.box[i], p.box[j])) continue;
            st.candidate_pairs++;
            res = soft_soft(&p, i, j);
            if (res == CF_OK) res = soft_soft(&p, j, i);
        }
    }
    if (res == CF_OK && full) res = soft_surfaces(&p);
    for (int i = 0; p.surf && i < w->n_soft; ++i) free(p.surf[i]);
    free(p.surf);
    free(p.box);
    if (stats) {
        stats->candidate_pairs += st.candidate_pairs;
        stats->contacts += st.contacts;
    }
    return res;
}
