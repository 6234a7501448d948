/* SPDX-License-Identifier: MIT */
/* The pieces the soft detection units share (detect_soft.h): a soft body's surface nodes and
   features, points against rigid shapes and soft triangles, and the contacts they make. */
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch02.h"
#include "detect_soft.h"

void cf_soft_hit_init(cfSoftHit *h)
{
    memset(&h->c, 0, sizeof h->c);
    memset(&h->x, 0, sizeof h->x);
    h->c.extra = &h->x;
}

cfSoftSide cf_soft_point(int body, int n, const int *node, const double *w)
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

unsigned char *cf_surface_nodes(const cfSoftBody *s)
{
    unsigned char *mark = calloc((size_t)(s->n_nodes > 0 ? s->n_nodes : 1), 1);
    if (!mark) return NULL;
    if (s->n_tris == 0) memset(mark, 1, (size_t)s->n_nodes);
    for (int t = 0; t < s->n_tris; ++t)
        for (int k = 0; k < 3; ++k) mark[s->tris[t][k]] = 1;
    return mark;
}

/* ---- points against rigid shapes and soft triangles ------------------------------------------- */

/* distance from the point x to the sphere (c, r) and the unit normal from the sphere to the point
   ((0, 0, 1) at the centre, as ch02.1 picks) */
static void point_sphere(cfVec3 c, double r, cfVec3 x, double *phi, cfVec3 *n)
{
    cfVec3 d = cfu_sub(x, c);
    double len = cfu_norm(d);
    *phi = len - r;
    *n = len > 1e-12 * r ? cfu_scale(1.0 / len, d) : cfu_vec3(0.0, 0.0, 1.0);
}

bool cf_point_gap(const cfRigidBody *r, cfVec3 x, double *phi, cfVec3 *n)
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
        cf_capsule_segment(r, &p0, &p1);
        cf_segment_closest(x, x, p0, p1, NULL, &t);
        point_sphere(cfu_mul_add(p0, t, cfu_sub(p1, p0)), sh->radius, x, phi, n);
        return true;
    }
    case CF_SHAPE_COUNT: break;
    }
    return false;
}

void cf_node_contact(cfSoftHit *h, const cfWorld *w, int si, int node, int ri, double phi, cfVec3 n)
{
    const cfSoftBody *s = &w->soft[si];
    const double one = 1.0;
    cf_soft_hit_init(h);
    h->c.body_a = ri;
    h->c.body_b = -1;
    h->x.soft_b = cf_soft_point(si, 1, &node, &one);
    h->c.n = n;
    h->c.p = cfu_sub(s->x[node], cfu_scale(phi, n)); /* on the rigid surface */
    h->c.phi = phi - cf_soft_offset(s);
    h->c.mu = sqrt(fmax(s->mu, 0.0) * fmax(w->bodies[ri].mu, 0.0));
    h->c.feature = cf_feature(CF_FEAT_SOFT_NODE, (uint32_t)node);
}

uint32_t cf_face_feature(int tri, int point)
{
    return cf_feature(CF_FEAT_SOFT_FACE, (uint32_t)tri * 2654435761u ^ (uint32_t)point * 40503u);
}

bool cf_point_triangle(const cfSoftBody *s, int si, int t, cfVec3 x, double margin, double extra, cfSoftHit *h)
{
    const int *v = s->tris[t];
    cfVec3 a = s->x[v[0]], b = s->x[v[1]], d = s->x[v[2]];
    cfVec3 m = cfu_cross(cfu_sub(b, a), cfu_sub(d, a));
    double area2 = cfu_norm(m);
    if (!(area2 > 0.0)) return false;
    m = cfu_scale(1.0 / area2, m);
    double dist = cfu_dot(m, cfu_sub(x, a));
    if (cf_soft_sheet(s) && dist < 0.0) {
        m = cfu_neg(m);
        dist = -dist;
    }
    double phi = dist - cf_soft_offset(s) - extra;
    double depth = 0.25 * fmin(cfu_norm(cfu_sub(b, a)), fmin(cfu_norm(cfu_sub(d, b)), cfu_norm(cfu_sub(a, d))));
    if (phi > margin || dist < -depth) return false;
    double w[3];
    if (cf_barycentric_triangle(x, a, b, d, w) != CF_OK || w[0] < 0.0 || w[1] < 0.0 || w[2] < 0.0) return false;
    cf_soft_hit_init(h);
    h->c.body_a = h->c.body_b = -1;
    h->x.soft_a = cf_soft_point(si, 3, v, w);
    h->c.n = m;
    h->c.p = cfu_sub(x, cfu_scale(dist, m)); /* the material point of the triangle */
    h->c.phi = phi;
    h->c.mu = fmax(s->mu, 0.0);
    return true;
}

static uint32_t edge_feature(const int e1[2], const int e2[2])
{
    uint32_t h = (uint32_t)e1[0] * 2654435761u ^ (uint32_t)e1[1] * 40503u;
    h ^= ((uint32_t)e2[0] * 97u + (uint32_t)e2[1]) * 2246822519u;
    return cf_feature(CF_FEAT_SOFT_EDGE, h);
}

void cf_edge_contact(const cfWorld *w, const cfEdgePair *e, cfVec3 n, cfSoftHit *h)
{
    const cfSoftBody *a = &w->soft[e->A], *b = &w->soft[e->B];
    double wa[2] = {1.0 - e->s, e->s}, wb[2] = {1.0 - e->t, e->t};
    cf_soft_hit_init(h);
    h->c.body_a = h->c.body_b = -1;
    h->x.soft_a = cf_soft_point(e->A, 2, e->ea, wa);
    h->x.soft_b = cf_soft_point(e->B, 2, e->eb, wb);
    cfVec3 pa = cfu_mul_add(cfu_scale(wa[0], a->x[e->ea[0]]), wa[1], a->x[e->ea[1]]);
    cfVec3 pb = cfu_mul_add(cfu_scale(wb[0], b->x[e->eb[0]]), wb[1], b->x[e->eb[1]]);
    h->c.n = n;
    h->c.p = pa;
    h->c.phi = cfu_dot(n, cfu_sub(pb, pa)) - cf_soft_offset(a) - cf_soft_offset(b);
    h->c.mu = sqrt(fmax(a->mu, 0.0) * fmax(b->mu, 0.0));
    h->c.feature = edge_feature(e->ea, e->eb);
}

/* ---- the surfaces of every soft body as features -------------------------------------------- */

void cf_surfaces_free(cfSurfaces *S)
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

/* body i's surface vertices, triangles and edges (its nr edge records, sorted, one edge each with
   the sum of its triangles' normals) appended to S; the longest edge in *longest */
static cfStatus add_body(const cfWorld *w, int i, EdgeRec *rec, cfSurfaces *S, double *longest)
{
    const cfSoftBody *b = &w->soft[i];
    unsigned char *mark = cf_surface_nodes(b);
    if (!mark) return CF_NO_MEMORY;
    for (int k = 0; k < b->n_nodes; ++k)
        if (mark[k]) S->vert_body[S->nv] = i, S->vert[S->nv++] = k;
    free(mark);
    int nr = 0;
    for (int t = 0; t < b->n_tris; ++t) {
        S->tri_body[S->nt] = i, S->tri[S->nt++] = t;
        for (int k = 0; k < 3; ++k) {
            int p = b->tris[t][k], q = b->tris[t][(k + 1) % 3];
            rec[nr++] = (EdgeRec){p < q ? p : q, p < q ? q : p, t};
            *longest = fmax(*longest, cfu_norm(cfu_sub(b->x[p], b->x[q])));
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
    return CF_OK;
}

cfStatus cf_surfaces_build(const cfWorld *w, cfSurfaces *S)
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
    cfStatus st = S->tri_body && S->tri && S->edge_body && S->edge && S->edge_normal && S->vert_body && S->vert && rec
                      ? CF_OK
                      : CF_NO_MEMORY;
    double longest = 0.0;
    for (int i = 0; i < w->n_soft && st == CF_OK; ++i) st = add_body(w, i, rec, S, &longest);
    free(rec);
    if (st != CF_OK) {
        cf_surfaces_free(S);
        return st;
    }
    S->cell = longest > 0.0 ? longest : 1.0;
    return CF_OK;
}

cfAabb cf_tri_box(const cfWorld *w, int b, int t, cfVec3 *const *x1)
{
    cfAabb box = cf_aabb_empty();
    for (int k = 0; k < 3; ++k) {
        int n = w->soft[b].tris[t][k];
        box = cf_aabb_add_point(box, w->soft[b].x[n]);
        if (x1) box = cf_aabb_add_point(box, x1[b][n]);
    }
    return box;
}

cfAabb cf_edge_box(const cfWorld *w, int b, const int e[2], cfVec3 *const *x1)
{
    cfAabb box = cf_aabb_empty();
    for (int k = 0; k < 2; ++k) {
        box = cf_aabb_add_point(box, w->soft[b].x[e[k]]);
        if (x1) box = cf_aabb_add_point(box, x1[b][e[k]]);
    }
    return box;
}

cfStatus cf_soft_edge_pairs(const cfWorld *w, const cfSurfaces *S, const cfAabb *box, cfEdgePairVisit visit, void *ctx)
{
    cfSpatialHash h;
    memset(&h, 0, sizeof h);
    cfStatus res = cf_hash_build(&h, box, S->ne, S->cell);
    for (int e = 0; e < S->ne && res == CF_OK; ++e) {
        const int *items;
        int m = cf_hash_query(&h, box[e], &items);
        if (m < 0) res = CF_NO_MEMORY;
        int A = S->edge_body[e];
        for (int q = 0; q < m && res == CF_OK; ++q) {
            int f = items[q], B = S->edge_body[f];
            if (f <= e || !cf_soft_may_touch(w, A, B) || (A == B && cf_edges_share(S->edge[e], S->edge[f]))) continue;
            res = visit(ctx, e, f);
        }
    }
    cf_hash_free(&h);
    return res;
}
