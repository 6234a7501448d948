/* SPDX-License-Identifier: MIT */
/* The ipc pipeline's no-crossing certificate, cf_world_crossings(): independent of the step (no
   distance, no barrier, no CCD), from signed volumes only. The world is gathered into one IPC
   system as the step sees it (cf_world_ipc_system(), ipc.c); a crossing is a surface edge through
   a triangle now, or a node's or a box corner's straight path since the state before the step
   through a static triangle. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch09.h"
#include "internal.h"

/* ---- the certificate: signed volumes only ------------------------------------------------------- */

/* six times the signed volume of the tetrahedron (a, b, c, d) */
static double orient(cfVec3 a, cfVec3 b, cfVec3 c, cfVec3 d)
{
    return cfu_dot(cfu_cross(cfu_sub(b, a), cfu_sub(c, a)), cfu_sub(d, a));
}

/* the segment p-q meets the triangle a, b, c: p and q not strictly on one side of its plane and
   the line through them inside the triangle's three edges (all three volumes of one sign). A
   segment in the triangle's plane is not counted (it has no crossing direction). */
static bool segment_crosses(cfVec3 p, cfVec3 q, cfVec3 a, cfVec3 b, cfVec3 c)
{
    //> ch09:world-crossing
    double sp = orient(a, b, c, p), sq = orient(a, b, c, q);
    if ((sp > 0.0 && sq > 0.0) || (sp < 0.0 && sq < 0.0) || (sp == 0.0 && sq == 0.0)) return false;
    double u = orient(p, q, a, b), v = orient(p, q, b, c), x = orient(p, q, c, a);
    return (u >= 0.0 && v >= 0.0 && x >= 0.0) || (u <= 0.0 && v <= 0.0 && x <= 0.0);
    //< ch09:world-crossing
}

/* ---- which pairs to test: boxes swept along one axis ------------------------------------------
   A segment can meet a triangle only where their axis-aligned boxes overlap. The boxes are
   compared coordinate by coordinate (no arithmetic on them), so the filter loses no crossing: it
   only spares the signed volumes of the pairs that are far apart (a 10k-node cloth has 600 M
   edge-triangle pairs, of which a few hundred thousand overlap). */

typedef struct {
    double lo[3], hi[3];
    double key; /* lo[] along the axis of the sweep: what the boxes are sorted by */
    int id;     /* the segment's or the triangle's index */
} Box;

static Box box_of(int id, const cfVec3 *p, int np)
{
    Box b = {{p[0].x, p[0].y, p[0].z}, {p[0].x, p[0].y, p[0].z}, 0.0, id};
    for (int k = 1; k < np; ++k) {
        const double c[3] = {p[k].x, p[k].y, p[k].z};
        for (int a = 0; a < 3; ++a) {
            if (c[a] < b.lo[a]) b.lo[a] = c[a];
            if (c[a] > b.hi[a]) b.hi[a] = c[a];
        }
    }
    return b;
}

static bool boxes_overlap(const Box *x, const Box *y)
{
    for (int a = 0; a < 3; ++a)
        if (x->hi[a] < y->lo[a] || y->hi[a] < x->lo[a]) return false;
    return true;
}

static int by_low_end(const void *pa, const void *pb)
{
    const Box *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1; /* finite: checked before */
    return (a->id > b->id) - (a->id < b->id); /* ties by index: the same order on every platform */
}

/* the axis along which the boxes' low ends spread most */
static int widest_axis(const Box *b, int n)
{
    int best = 0;
    double best_w = -1.0;
    for (int a = 0; a < 3 && n > 0; ++a) {
        double lo = b[0].lo[a], hi = b[0].lo[a];
        for (int i = 1; i < n; ++i) {
            if (b[i].lo[a] < lo) lo = b[i].lo[a];
            if (b[i].lo[a] > hi) hi = b[i].lo[a];
        }
        if (hi - lo > best_w) best_w = hi - lo, best = a;
    }
    return best;
}

typedef bool (*PairFn)(void *ctx, int seg, int tri); /* false: out of memory, stop */

/* calls @p visit once for every segment box of @p sb and triangle box of @p tb that overlap (both
   arrays are sorted here). Returns false when out of memory. */
static bool overlapping_pairs(Box *sb, int ns, Box *tb, int nt, PairFn visit, void *ctx)
{
    int ax = ns >= nt ? widest_axis(sb, ns) : widest_axis(tb, nt);
    for (int i = 0; i < ns; ++i) sb[i].key = sb[i].lo[ax];
    for (int j = 0; j < nt; ++j) tb[j].key = tb[j].lo[ax];
    qsort(sb, (size_t)ns, sizeof *sb, by_low_end);
    qsort(tb, (size_t)nt, sizeof *tb, by_low_end);
    /* in order of low ends: each box meets the open boxes of the other set, those whose high end
       is not below its low end (the others have closed for good: the low ends only grow) */
    int *open_s = malloc(sizeof(int) * (size_t)(ns > 0 ? ns : 1)), *open_t = malloc(sizeof(int) * (size_t)(nt > 0 ? nt : 1));
    bool ok = open_s && open_t;
    int i = 0, j = 0, n_os = 0, n_ot = 0;
    while (ok && (i < ns || j < nt)) {
        bool seg = j >= nt || (i < ns && sb[i].lo[ax] <= tb[j].lo[ax]);
        const Box *x = seg ? &sb[i] : &tb[j];
        const Box *other = seg ? tb : sb;
        int *open = seg ? open_t : open_s, *n_open = seg ? &n_ot : &n_os;
        for (int k = 0; ok && k < *n_open;) {
            const Box *y = &other[open[k]];
            if (y->hi[ax] < x->lo[ax]) { /* closed */
                open[k] = open[--*n_open];
                continue;
            }
            if (boxes_overlap(x, y)) ok = seg ? visit(ctx, x->id, y->id) : visit(ctx, y->id, x->id);
            ++k;
        }
        if (seg) open_s[n_os++] = i++;
        else open_t[n_ot++] = j++;
    }
    free(open_s);
    free(open_t);
    return ok;
}

/* ---- the certificate ------------------------------------------------------------------------ */

typedef struct {
    const cfIpcSystem *s;
    const cfVec3 *from, *to; /* the paths (crossing_path) */
    int count;
    int first_a, first_b; /* the crossing that comes first in index order (-1: none): the message */
    unsigned char *path_hit; /* per path: already counted */
} Tally;

static void keep_first(Tally *t, int a, int b)
{
    if (t->first_a < 0 || a < t->first_a || (a == t->first_a && b < t->first_b)) t->first_a = a, t->first_b = b;
}

/* a surface edge through a triangle of the current state (no shared node, not all of them fixed) */
static bool edge_meets_triangle(void *ctx, int e, int t)
{
    Tally *ty = ctx;
    const cfIpcSystem *s = ty->s;
    const int *E = s->edge[e], *T = s->tri[t];
    if (E[0] == T[0] || E[0] == T[1] || E[0] == T[2] || E[1] == T[0] || E[1] == T[1] || E[1] == T[2]) return true;
    if (s->fixed[E[0]] && s->fixed[E[1]] && s->fixed[T[0]] && s->fixed[T[1]] && s->fixed[T[2]]) return true;
    if (segment_crosses(cf_ipc_node(s->q, E[0]), cf_ipc_node(s->q, E[1]), cf_ipc_node(s->q, T[0]), cf_ipc_node(s->q, T[1]),
                        cf_ipc_node(s->q, T[2]))) {
        ty->count++;
        keep_first(ty, e, t);
    }
    return true;
}

/* a path (a soft node's or a box corner's, from -> to) through a static triangle: counted once */
static bool path_meets_triangle(void *ctx, int p, int t)
{
    Tally *ty = ctx;
    const cfIpcSystem *s = ty->s;
    const int *T = s->tri[t];
    if (!ty->path_hit[p] && segment_crosses(ty->from[p], ty->to[p], cf_ipc_node(s->q, T[0]), cf_ipc_node(s->q, T[1]),
                                            cf_ipc_node(s->q, T[2]))) {
        ty->path_hit[p] = 1;
        ty->count++;
        keep_first(ty, p, 0);
    }
    return true;
}

static bool finite3(cfVec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

int cf_world_crossings(const cfWorld *w, const cfWorld *before, char *what, size_t cap)
{
    if (what && cap) what[0] = '\0';
    cfError err = {{0}};
    if (cf_world_ipc_check(w, &err) != CF_OK) {
        if (what && cap) snprintf(what, cap, "%s", err.msg);
        return -1;
    }
    if (before && (before->n_soft != w->n_soft || before->n_bodies != w->n_bodies)) {
        if (what && cap) snprintf(what, cap, "the world before the step has other bodies");
        return -1;
    }
    cfIpcSystem s;
    if (cf_world_ipc_system(w, &s) != CF_OK) return -1;
    int n_path = 0; /* every soft node, then 8 corners of every moving box */
    for (int i = 0; before && i < w->n_soft; ++i) n_path += w->soft[i].n_nodes;
    for (int i = 0; before && i < w->n_bodies; ++i) n_path += w->bodies[i].fixed ? 0 : 8;
    int nb = s.n_edge > n_path ? s.n_edge : n_path;
    Box *seg = malloc(sizeof(Box) * (size_t)(nb > 0 ? nb : 1)), *tri = malloc(sizeof(Box) * (size_t)(s.n_tri > 0 ? s.n_tri : 1));
    cfVec3 *from = malloc(sizeof(cfVec3) * (size_t)(n_path > 0 ? 2 * n_path : 1));
    unsigned char *hit = calloc((size_t)(n_path > 0 ? n_path : 1), 1);
    int count = -1;
    if (!seg || !tri || !from || !hit) goto done;
    for (int i = 0; i < s.n; ++i)
        if (!finite3(cf_ipc_node(s.q, i))) {
            if (what && cap) snprintf(what, cap, "system node %d is not finite: nothing to certify", i);
            goto done;
        }
    /* surface edges through surface triangles, now */
    Tally t = {&s, NULL, NULL, 0, -1, -1, hit};
    for (int e = 0; e < s.n_edge; ++e) {
        const cfVec3 p[2] = {cf_ipc_node(s.q, s.edge[e][0]), cf_ipc_node(s.q, s.edge[e][1])};
        seg[e] = box_of(e, p, 2);
    }
    for (int k = 0; k < s.n_tri; ++k) {
        const cfVec3 p[3] = {cf_ipc_node(s.q, s.tri[k][0]), cf_ipc_node(s.q, s.tri[k][1]), cf_ipc_node(s.q, s.tri[k][2])};
        tri[k] = box_of(k, p, 3);
    }
    if (!overlapping_pairs(seg, s.n_edge, tri, s.n_tri, edge_meets_triangle, &t)) goto done;
    if (t.count > 0 && what && cap) {
        const int *E = s.edge[t.first_a], *T = s.tri[t.first_b];
        snprintf(what, cap, "surface edge %d-%d crosses triangle %d-%d-%d (system nodes)", E[0], E[1], T[0], T[1], T[2]);
    }
    int crossed_now = t.count;
    /* the paths over the step through static triangles */
    cfVec3 *to = from + n_path;
    int np = 0;
    for (int i = 0; before && i < w->n_soft; ++i)
        for (int k = 0; k < w->soft[i].n_nodes; ++k, ++np) from[np] = before->soft[i].x[k], to[np] = w->soft[i].x[k];
    for (int i = 0; before && i < w->n_bodies; ++i) {
        const cfRigidBody *b0 = &before->bodies[i], *b1 = &w->bodies[i];
        for (int k = 0; !b1->fixed && k < 8; ++k, ++np) { /* the corners' straight paths between the two poses */
            cfVec3 X = cfu_vec3(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);
            X = cfu_vec3(X.x * b1->shape.half_extents.x, X.y * b1->shape.half_extents.y, X.z * b1->shape.half_extents.z);
            from[np] = cfu_add(b0->x, cfu_quat_rotate(b0->q, X));
            to[np] = cfu_add(b1->x, cfu_quat_rotate(b1->q, X));
        }
    }
    for (int k = 0; k < n_path; ++k)
        if (!finite3(from[k]) || !finite3(to[k])) {
            if (what && cap) snprintf(what, cap, "a path over the step is not finite: nothing to certify");
            goto done;
        }
    int n_static = 0;
    for (int k = 0; k < s.n_tri; ++k) {
        const int *T = s.tri[k];
        if (s.fixed[T[0]] && s.fixed[T[1]] && s.fixed[T[2]]) {
            const cfVec3 p[3] = {cf_ipc_node(s.q, T[0]), cf_ipc_node(s.q, T[1]), cf_ipc_node(s.q, T[2])};
            tri[n_static++] = box_of(k, p, 3);
        }
    }
    for (int k = 0; k < n_path; ++k) {
        const cfVec3 p[2] = {from[k], to[k]};
        seg[k] = box_of(k, p, 2);
    }
    t.from = from, t.to = to, t.first_a = -1, t.first_b = -1;
    if (!overlapping_pairs(seg, n_path, tri, n_static, path_meets_triangle, &t)) goto done;
    if (t.count > crossed_now && crossed_now == 0 && what && cap) {
        int p = t.first_a, soft_nodes = 0;
        for (int i = 0; i < w->n_soft; ++i) soft_nodes += w->soft[i].n_nodes;
        if (p < soft_nodes) {
            int i = 0;
            while (p >= w->soft[i].n_nodes) p -= w->soft[i++].n_nodes;
            snprintf(what, cap, "node %d of soft body '%s' went through a static triangle in the step", p, w->soft[i].name);
        } else {
            p -= soft_nodes;
            int i = 0;
            for (;; ++i) {
                if (w->bodies[i].fixed) continue;
                if (p < 8) break;
                p -= 8;
            }
            snprintf(what, cap, "corner %d of rigid body '%s' went through a static triangle in the step", p, w->bodies[i].name);
        }
    }
    count = t.count;
done:
    free(seg);
    free(tri);
    free(from);
    free(hit);
    cf_ipc_free(&s);
    return count;
}
