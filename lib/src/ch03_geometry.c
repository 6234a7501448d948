/* SPDX-License-Identifier: MIT */
/* Geometry for contact generation: poses, boxes, AABBs, segments, manifold reduction, meshes, SDFs. */
#include "cf/cf_geometry.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* ---- poses ---------------------------------------------------------------------------- */

cfPose cf_pose_identity(void)
{
    cfPose P = {cfu_zero3(), cfu_mat3_identity()};
    return P;
}

cfPose cf_pose_make(cfVec3 x, cfQuat q)
{
    cfPose P = {x, cfu_quat_to_mat3(cfu_quat_normalize(q))};
    return P;
}

cfPose cf_pose_of_body(const cfRigidBody *b) { return cf_pose_make(b->x, b->q); }

cfVec3 cf_pose_apply(cfPose P, cfVec3 v) { return cfu_add(cfu_mat3_mul_vec(P.R, v), P.x); }

cfVec3 cf_pose_inv_apply(cfPose P, cfVec3 v) { return cfu_mat3_tmul_vec(P.R, cfu_sub(v, P.x)); }

cfPose cf_pose_mul(cfPose P, cfPose Q)
{
    cfPose r = {cf_pose_apply(P, Q.x), cfu_mat3_mul(P.R, Q.R)};
    return r;
}

/* ---- oriented boxes ------------------------------------------------------------------- */

cfObb cf_obb_make(cfVec3 c, cfQuat q, cfVec3 h)
{
    cfObb b = {c, cfu_quat_to_mat3(cfu_quat_normalize(q)), h};
    return b;
}

cfObb cf_obb_of_body(const cfRigidBody *b) { return cf_obb_make(b->x, b->q, b->shape.half_extents); }

void cf_capsule_segment(const cfRigidBody *b, cfVec3 *p0, cfVec3 *p1)
{
    cfVec3 a = cfu_quat_rotate(cfu_quat_normalize(b->q), cfu_vec3(0, 0, b->shape.half_height));
    *p0 = cfu_sub(b->x, a);
    *p1 = cfu_add(b->x, a);
}

static double sgn_bit(int k, int bit) { return (k >> bit) & 1 ? 1.0 : -1.0; }

cfVec3 cf_obb_vertex(const cfObb *b, int k)
{
    cfVec3 l = cfu_vec3(sgn_bit(k, 0) * b->h.x, sgn_bit(k, 1) * b->h.y, sgn_bit(k, 2) * b->h.z);
    return cfu_add(b->c, cfu_mat3_mul_vec(b->R, l));
}

void cf_obb_edge(const cfObb *b, int e, cfVec3 *p0, cfVec3 *p1)
{
    int i = e / 4, j = (i + 1) % 3, k = (i + 2) % 3;
    int lo = j < k ? j : k, hi = j < k ? k : j;
    double h[3] = {b->h.x, b->h.y, b->h.z};
    double l[3];
    l[i] = -h[i];
    l[lo] = sgn_bit(e % 4, 0) * h[lo];
    l[hi] = sgn_bit(e % 4, 1) * h[hi];
    cfVec3 a = cfu_vec3(l[0], l[1], l[2]);
    l[i] = h[i];
    cfVec3 c = cfu_vec3(l[0], l[1], l[2]);
    *p0 = cfu_add(b->c, cfu_mat3_mul_vec(b->R, a));
    *p1 = cfu_add(b->c, cfu_mat3_mul_vec(b->R, c));
}

cfVec3 cf_obb_face_normal(const cfObb *b, int f)
{
    cfVec3 a = cfu_mat3_col(b->R, f / 2);
    return (f % 2) ? cfu_neg(a) : a;
}

double cf_obb_project_radius(const cfObb *b, cfVec3 l)
{
    return b->h.x * fabs(cfu_dot(cfu_mat3_col(b->R, 0), l)) + b->h.y * fabs(cfu_dot(cfu_mat3_col(b->R, 1), l)) +
           b->h.z * fabs(cfu_dot(cfu_mat3_col(b->R, 2), l));
}

bool cf_obb_contains(const cfObb *b, cfVec3 p, double tol)
{
    cfVec3 l = cfu_mat3_tmul_vec(b->R, cfu_sub(p, b->c));
    return fabs(l.x) <= b->h.x + tol && fabs(l.y) <= b->h.y + tol && fabs(l.z) <= b->h.z + tol;
}

/* ---- AABBs ---------------------------------------------------------------------------- */

cfAabb cf_aabb_empty(void)
{
    cfAabb a = {cfu_vec3(INFINITY, INFINITY, INFINITY), cfu_vec3(-INFINITY, -INFINITY, -INFINITY)};
    return a;
}

cfAabb cf_aabb_union(cfAabb a, cfAabb b)
{
    cfAabb r = {cfu_vec3(fmin(a.lo.x, b.lo.x), fmin(a.lo.y, b.lo.y), fmin(a.lo.z, b.lo.z)),
                cfu_vec3(fmax(a.hi.x, b.hi.x), fmax(a.hi.y, b.hi.y), fmax(a.hi.z, b.hi.z))};
    return r;
}

cfAabb cf_aabb_add_point(cfAabb a, cfVec3 p)
{
    cfAabb b = {p, p};
    return cf_aabb_union(a, b);
}

cfAabb cf_aabb_inflate(cfAabb a, double m)
{
    cfAabb r = {cfu_sub(a.lo, cfu_vec3(m, m, m)), cfu_add(a.hi, cfu_vec3(m, m, m))};
    return r;
}

bool cf_aabb_overlap(cfAabb a, cfAabb b)
{
    return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y && a.lo.z <= b.hi.z &&
           b.lo.z <= a.hi.z;
}

cfAabb cf_aabb_of_obb(const cfObb *b)
{
    /* half width along world axis k: sum_i h_i |R_ki| */
    cfVec3 e = cfu_vec3(cf_obb_project_radius(b, cfu_vec3(1, 0, 0)), cf_obb_project_radius(b, cfu_vec3(0, 1, 0)),
                        cf_obb_project_radius(b, cfu_vec3(0, 0, 1)));
    cfAabb a = {cfu_sub(b->c, e), cfu_add(b->c, e)};
    return a;
}

cfAabb cf_aabb_of_body(const cfRigidBody *b)
{
    switch (b->shape.type) {
    case CF_SHAPE_SPHERE: {
        double r = b->shape.radius;
        cfAabb a = {cfu_sub(b->x, cfu_vec3(r, r, r)), cfu_add(b->x, cfu_vec3(r, r, r))};
        return a;
    }
    case CF_SHAPE_BOX: {
        cfObb o = cf_obb_of_body(b);
        return cf_aabb_of_obb(&o);
    }
    case CF_SHAPE_CAPSULE: {
        cfVec3 axis = cfu_quat_rotate(b->q, cfu_vec3(0, 0, b->shape.half_height));
        cfAabb a = cf_aabb_add_point(cf_aabb_add_point(cf_aabb_empty(), cfu_add(b->x, axis)), cfu_sub(b->x, axis));
        return cf_aabb_inflate(a, b->shape.radius);
    }
    case CF_SHAPE_PLANE:
    case CF_SHAPE_COUNT:
        break;
    }
    cfAabb all = {cfu_vec3(-INFINITY, -INFINITY, -INFINITY), cfu_vec3(INFINITY, INFINITY, INFINITY)};
    return all;
}

/* ---- segments ------------------------------------------------------------------------- */

static double clamp01(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

double cf_segment_closest(cfVec3 p0, cfVec3 p1, cfVec3 q0, cfVec3 q1, double *s_out, double *t_out)
{
    /* minimise |p0 + s d1 - q0 - t d2|^2 over the unit square (Ericson, Real-Time Collision
       Detection, 5.1.9): solve for s with t free, clamp, then recompute t and clamp again */
    cfVec3 d1 = cfu_sub(p1, p0), d2 = cfu_sub(q1, q0), r = cfu_sub(p0, q0);
    double a = cfu_dot(d1, d1), e = cfu_dot(d2, d2), f = cfu_dot(d2, r);
    double s, t;
    const double tiny = 1e-300;
    if (a <= tiny && e <= tiny) {
        s = t = 0.0;
    } else if (a <= tiny) {
        s = 0.0;
        t = clamp01(f / e);
    } else {
        double c = cfu_dot(d1, r);
        if (e <= tiny) {
            t = 0.0;
            s = clamp01(-c / a);
        } else {
            double b = cfu_dot(d1, d2), den = a * e - b * b;
            /* parallel (den ~ 0): any s works; take the one closest to q0's projection */
            s = den > 1e-14 * a * e ? clamp01((b * f - c * e) / den) : clamp01(-c / a);
            t = (b * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = clamp01(-c / a);
            } else if (t > 1.0) {
                t = 1.0;
                s = clamp01((b - c) / a);
            }
        }
    }
    if (s_out) *s_out = s;
    if (t_out) *t_out = t;
    cfVec3 d = cfu_sub(cfu_mul_add(p0, s, d1), cfu_mul_add(q0, t, d2));
    return cfu_norm2(d);
}

/* ---- manifold reduction --------------------------------------------------------------- */

/* twice the signed area of (a, b, c) seen along n */
static double area2(cfVec3 a, cfVec3 b, cfVec3 c, cfVec3 n)
{
    return cfu_dot(cfu_cross(cfu_sub(b, a), cfu_sub(c, a)), n);
}

int cf_manifold_reduce(const cfContact *in, int n, int max_out, cfContact *out)
{
    if (n <= 0 || max_out <= 0) return 0;
    if (n <= max_out) {
        if (out != in) memmove(out, in, (size_t)n * sizeof *in);
        return n;
    }
    char *keep = calloc((size_t)n, 1);
    int *order = malloc((size_t)max_out * sizeof *order); /* chosen indices, in polygon order */
    if (!keep || !order) {
        /* out of memory: fall back to the first max_out contacts (still a valid subset) */
        free(keep);
        free(order);
        memmove(out, in, (size_t)max_out * sizeof *in);
        return max_out;
    }
    cfVec3 nrm = in[0].n;
    int m = 0;
    /* 1: the deepest point */
    int best = 0;
    for (int k = 1; k < n; ++k)
        if (in[k].phi < in[best].phi) best = k;
    keep[best] = 1;
    order[m++] = best;
    /* 2: the farthest point from it */
    if (m < max_out) {
        int b2 = -1;
        double d2 = -1.0;
        for (int k = 0; k < n; ++k) {
            if (keep[k]) continue;
            double d = cfu_norm2(cfu_sub(in[k].p, in[order[0]].p));
            if (d > d2) d2 = d, b2 = k;
        }
        keep[b2] = 1;
        order[m++] = b2;
    }
    /* 3, 4, ...: the point that adds the most area */
    while (m < max_out) {
        int bk = -1;
        double bs = -1.0;
        for (int k = 0; k < n; ++k) {
            if (keep[k]) continue;
            double score = 0.0;
            if (m == 2) {
                score = fabs(area2(in[order[0]].p, in[order[1]].p, in[k].p, nrm));
            } else {
                /* polygon order[0..m-1] is counter-clockwise about nrm: area beyond each edge */
                for (int e = 0; e < m; ++e) {
                    double a = -area2(in[order[e]].p, in[order[(e + 1) % m]].p, in[k].p, nrm);
                    if (a > score) score = a;
                }
            }
            if (score > bs) bs = score, bk = k;
        }
        keep[bk] = 1;
        if (m == 2) {
            /* make the triangle counter-clockwise */
            if (area2(in[order[0]].p, in[order[1]].p, in[bk].p, nrm) >= 0.0) {
                order[m++] = bk;
            } else {
                order[2] = order[1];
                order[1] = bk;
                m = 3;
            }
        } else {
            /* insert after the edge it sees most */
            int at = 0;
            double ba = -INFINITY;
            for (int e = 0; e < m; ++e) {
                double a = -area2(in[order[e]].p, in[order[(e + 1) % m]].p, in[bk].p, nrm);
                if (a > ba) ba = a, at = e;
            }
            memmove(order + at + 2, order + at + 1, (size_t)(m - at - 1) * sizeof *order);
            order[at + 1] = bk;
            ++m;
        }
    }
    /* copy the kept contacts in their original order; out may alias in */
    cfContact *tmp = malloc((size_t)max_out * sizeof *tmp);
    int c = 0;
    if (tmp) {
        for (int k = 0; k < n; ++k)
            if (keep[k]) tmp[c++] = in[k];
        memcpy(out, tmp, (size_t)c * sizeof *tmp);
    } else {
        for (int k = 0; k < n; ++k)
            if (keep[k]) out[c++] = in[k]; /* in order: k >= c, so never overwrites an unread kept entry */
    }
    free(tmp);
    free(keep);
    free(order);
    return c;
}

/* ---- triangle meshes ------------------------------------------------------------------ */

cfStatus cf_trimesh_init(cfTriMesh *m, int n_verts, int n_tris)
{
    memset(m, 0, sizeof *m);
    if (n_verts < 0 || n_tris < 0) return CF_BAD_INPUT;
    m->v = calloc((size_t)(n_verts ? n_verts : 1), sizeof *m->v);
    m->tri = calloc((size_t)(n_tris ? n_tris : 1), sizeof *m->tri);
    if (!m->v || !m->tri) {
        cf_trimesh_free(m);
        return CF_NO_MEMORY;
    }
    m->n_verts = n_verts;
    m->n_tris = n_tris;
    return CF_OK;
}

void cf_trimesh_free(cfTriMesh *m)
{
    free(m->v);
    free(m->tri);
    memset(m, 0, sizeof *m);
}

/* index of p among v[0..*nv-1], appending it when new (exact comparison: callers build
   shared vertices from the same expressions) */
static int weld(cfVec3 *v, int *nv, cfVec3 p)
{
    for (int i = 0; i < *nv; ++i)
        if (v[i].x == p.x && v[i].y == p.y && v[i].z == p.z) return i;
    v[*nv] = p;
    return (*nv)++;
}

cfStatus cf_trimesh_box(cfTriMesh *m, cfVec3 h, int n)
{
    memset(m, 0, sizeof *m);
    if (n < 1 || n > 32 || !(h.x > 0 && h.y > 0 && h.z > 0)) return CF_BAD_INPUT;
    int per_face = (n + 1) * (n + 1);
    cfStatus st = cf_trimesh_init(m, 6 * per_face, 12 * n * n);
    if (st != CF_OK) return st;
    double hh[3] = {h.x, h.y, h.z};
    int nv = 0, nt = 0;
    int *idx = malloc((size_t)per_face * sizeof *idx);
    if (!idx) {
        cf_trimesh_free(m);
        return CF_NO_MEMORY;
    }
    for (int f = 0; f < 6; ++f) {
        int ax = f / 2, u = (ax + 1) % 3, w = (ax + 2) % 3;
        double side = (f % 2) ? -1.0 : 1.0;
        for (int j = 0; j <= n; ++j)
            for (int i = 0; i <= n; ++i) {
                double c[3];
                c[ax] = side * hh[ax];
                c[u] = hh[u] * (2.0 * i / n - 1.0);
                c[w] = hh[w] * (2.0 * j / n - 1.0);
                idx[j * (n + 1) + i] = weld(m->v, &nv, cfu_vec3(c[0], c[1], c[2]));
            }
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                int a = idx[j * (n + 1) + i], b = idx[j * (n + 1) + i + 1];
                int c = idx[(j + 1) * (n + 1) + i + 1], d = idx[(j + 1) * (n + 1) + i];
                /* u x w = +axis: (a, b, c) is counter-clockwise seen from +axis */
                if (side > 0) {
                    m->tri[nt][0] = a, m->tri[nt][1] = b, m->tri[nt][2] = c, ++nt;
                    m->tri[nt][0] = a, m->tri[nt][1] = c, m->tri[nt][2] = d, ++nt;
                } else {
                    m->tri[nt][0] = a, m->tri[nt][1] = c, m->tri[nt][2] = b, ++nt;
                    m->tri[nt][0] = a, m->tri[nt][1] = d, m->tri[nt][2] = c, ++nt;
                }
            }
    }
    free(idx);
    m->n_verts = nv;
    m->n_tris = nt;
    return CF_OK;
}

/* midpoint vertex of edge (a, b), created once: a small open-addressing table */
typedef struct EdgeMap {
    int cap;
    long *key;
    int *val;
} EdgeMap;

static int edge_mid(EdgeMap *em, cfTriMesh *m, int *nv, int a, int b, double r)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    long key = (long)lo * 1000003L + hi;
    unsigned long hsh = (unsigned long)key * 2654435761UL;
    for (int probe = 0; probe < em->cap; ++probe) {
        int s = (int)((hsh + (unsigned long)probe) % (unsigned long)em->cap);
        if (em->key[s] == key) return em->val[s];
        if (em->key[s] < 0) {
            cfVec3 p = cfu_scale(r, cfu_normalize(cfu_add(m->v[lo], m->v[hi])));
            m->v[*nv] = p;
            em->key[s] = key;
            em->val[s] = (*nv)++;
            return em->val[s];
        }
    }
    return lo; /* unreachable: the table is sized for every edge */
}

cfStatus cf_trimesh_icosphere(cfTriMesh *m, double r, int level)
{
    memset(m, 0, sizeof *m);
    if (!(r > 0) || level < 0 || level > 6) return CF_BAD_INPUT;
    int nt_final = 20, nv_final = 12;
    for (int l = 0; l < level; ++l) {
        nv_final += 3 * nt_final / 2;
        nt_final *= 4;
    }
    cfStatus st = cf_trimesh_init(m, nv_final, nt_final);
    if (st != CF_OK) return st;
    const double t = (1.0 + sqrt(5.0)) / 2.0;
    const double base[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                                {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    const int faces[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                              {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                              {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    for (int i = 0; i < 12; ++i)
        m->v[i] = cfu_scale(r, cfu_normalize(cfu_vec3(base[i][0], base[i][1], base[i][2])));
    for (int f = 0; f < 20; ++f)
        for (int k = 0; k < 3; ++k) m->tri[f][k] = faces[f][k];
    int nv = 12, nt = 20;
    int (*tmp)[3] = malloc((size_t)nt_final * sizeof *tmp);
    EdgeMap em = {2 * nt_final + 7, NULL, NULL};
    em.key = malloc((size_t)em.cap * sizeof *em.key);
    em.val = malloc((size_t)em.cap * sizeof *em.val);
    if (!tmp || !em.key || !em.val) {
        free(tmp), free(em.key), free(em.val);
        cf_trimesh_free(m);
        return CF_NO_MEMORY;
    }
    for (int l = 0; l < level; ++l) {
        for (int s = 0; s < em.cap; ++s) em.key[s] = -1;
        int nt2 = 0;
        for (int f = 0; f < nt; ++f) {
            int a = m->tri[f][0], b = m->tri[f][1], c = m->tri[f][2];
            int ab = edge_mid(&em, m, &nv, a, b, r), bc = edge_mid(&em, m, &nv, b, c, r);
            int ca = edge_mid(&em, m, &nv, c, a, r);
            int nf[4][3] = {{a, ab, ca}, {b, bc, ab}, {c, ca, bc}, {ab, bc, ca}};
            for (int q = 0; q < 4; ++q)
                for (int k = 0; k < 3; ++k) tmp[nt2 + q][k] = nf[q][k];
            nt2 += 4;
        }
        memcpy(m->tri, tmp, (size_t)nt2 * sizeof *tmp);
        nt = nt2;
    }
    free(tmp), free(em.key), free(em.val);
    m->n_verts = nv;
    m->n_tris = nt;
    return CF_OK;
}

double cf_trimesh_max_edge(const cfTriMesh *m)
{
    double L = 0.0;
    for (int f = 0; f < m->n_tris; ++f)
        for (int k = 0; k < 3; ++k) {
            double d = cfu_norm(cfu_sub(m->v[m->tri[f][k]], m->v[m->tri[f][(k + 1) % 3]]));
            if (d > L) L = d;
        }
    return L;
}

/* ---- analytic SDFs -------------------------------------------------------------------- */

double cf_sdf_sphere(cfVec3 x, cfVec3 c, double r, cfVec3 *grad)
{
    cfVec3 d = cfu_sub(x, c);
    double L = cfu_norm(d);
    if (grad) *grad = L > 0.0 ? cfu_scale(1.0 / L, d) : cfu_vec3(0, 0, 1);
    return L - r;
}

double cf_sdf_box(cfVec3 x, cfVec3 h, cfVec3 *grad)
{
    double p[3] = {x.x, x.y, x.z}, hh[3] = {h.x, h.y, h.z}, q[3], o[3];
    double out2 = 0.0;
    int imax = 0;
    for (int i = 0; i < 3; ++i) {
        q[i] = fabs(p[i]) - hh[i];
        o[i] = q[i] > 0.0 ? q[i] : 0.0;
        out2 += o[i] * o[i];
        if (q[i] > q[imax]) imax = i;
    }
    if (out2 > 0.0) {
        double d = sqrt(out2);
        if (grad) {
            double g[3];
            for (int i = 0; i < 3; ++i) g[i] = (p[i] < 0.0 ? -o[i] : o[i]) / d;
            *grad = cfu_vec3(g[0], g[1], g[2]);
        }
        return d;
    }
    if (grad) {
        double g[3] = {0, 0, 0};
        g[imax] = p[imax] < 0.0 ? -1.0 : 1.0;
        *grad = cfu_vec3(g[0], g[1], g[2]);
    }
    return q[imax];
}

double cf_sdf_obb(const cfObb *b, cfVec3 x, cfVec3 *grad)
{
    cfVec3 l = cfu_mat3_tmul_vec(b->R, cfu_sub(x, b->c));
    cfVec3 gl;
    double s = cf_sdf_box(l, b->h, &gl);
    if (grad) *grad = cfu_mat3_mul_vec(b->R, gl);
    return s;
}

static double eval_sphere(const void *data, cfVec3 x, cfVec3 *grad)
{
    const cfSdfSphereData *d = data;
    return cf_sdf_sphere(x, d->c, d->r, grad);
}

static double eval_box(const void *data, cfVec3 x, cfVec3 *grad)
{
    const cfSdfBoxData *d = data;
    return cf_sdf_box(x, d->h, grad);
}

cfSdf cf_sdf_of_sphere(const cfSdfSphereData *d)
{
    cfSdf s = {eval_sphere, d};
    return s;
}

cfSdf cf_sdf_of_box(const cfSdfBoxData *d)
{
    cfSdf s = {eval_box, d};
    return s;
}

/* ---- grid SDF container --------------------------------------------------------------- */

cfStatus cf_sdf_grid_init(cfSdfGrid *g, cfVec3 lo, cfVec3 hi, double pad, double dx)
{
    memset(g, 0, sizeof *g);
    if (!(dx > 0.0) || !isfinite(dx) || !(pad >= 0.0) || !cfu_vec3_finite(lo) || !cfu_vec3_finite(hi))
        return CF_BAD_INPUT;
    double l[3] = {lo.x - pad, lo.y - pad, lo.z - pad}, u[3] = {hi.x + pad, hi.y + pad, hi.z + pad};
    double total = 1.0;
    for (int i = 0; i < 3; ++i) {
        if (!(u[i] > l[i])) return CF_BAD_INPUT;
        double cells = ceil((u[i] - l[i]) / dx - 1e-9);
        if (cells < 1.0) cells = 1.0;
        if (cells > 4096.0) {
            memset(g, 0, sizeof *g);
            return CF_BAD_INPUT;
        }
        g->n[i] = (int)cells + 1;
        total *= g->n[i];
    }
    if (total > (double)(1 << 26)) {
        memset(g, 0, sizeof *g);
        return CF_BAD_INPUT;
    }
    g->phi = calloc((size_t)total, sizeof *g->phi);
    if (!g->phi) {
        memset(g, 0, sizeof *g);
        return CF_NO_MEMORY;
    }
    g->dx = dx;
    g->origin = cfu_vec3(l[0], l[1], l[2]);
    return CF_OK;
}

void cf_sdf_grid_free(cfSdfGrid *g)
{
    free(g->phi);
    memset(g, 0, sizeof *g);
}

cfVec3 cf_sdf_grid_node(const cfSdfGrid *g, int i, int j, int k)
{
    return cfu_add(g->origin, cfu_vec3(g->dx * i, g->dx * j, g->dx * k));
}

void cf_sdf_grid_fill(cfSdfGrid *g, const cfSdf *sdf)
{
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j)
            for (int i = 0; i < g->n[0]; ++i)
                g->phi[cf_sdf_grid_index(g, i, j, k)] = cf_sdf_eval(sdf, cf_sdf_grid_node(g, i, j, k), NULL);
}

cfAabb cf_sdf_grid_bounds(const cfSdfGrid *g)
{
    cfAabb a = {g->origin, cf_sdf_grid_node(g, g->n[0] - 1, g->n[1] - 1, g->n[2] - 1)};
    return a;
}

/* ---- candidate pairs ------------------------------------------------------------------ */

cfStatus cf_pairs_push(cfPairList *list, int a, int b)
{
    if (list->count == list->cap) {
        int nc = list->cap ? 2 * list->cap : 64;
        cfPair *p = realloc(list->items, (size_t)nc * sizeof *p);
        if (!p) return CF_NO_MEMORY;
        list->items = p;
        list->cap = nc;
    }
    list->items[list->count].a = a;
    list->items[list->count].b = b;
    list->count++;
    return CF_OK;
}

void cf_pairs_free(cfPairList *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}

static int pair_cmp(const void *x, const void *y)
{
    const cfPair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return 0;
}

void cf_pairs_sort(cfPairList *list)
{
    if (list->count > 1) qsort(list->items, (size_t)list->count, sizeof *list->items, pair_cmp);
}

cfStatus cf_broadphase_all_pairs(const cfAabb *boxes, int n, cfPairList *pairs, long *tests)
{
    pairs->count = 0;
    long t = 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            ++t;
            if (cf_aabb_overlap(boxes[i], boxes[j])) {
                cfStatus st = cf_pairs_push(pairs, i, j);
                if (st != CF_OK) return st;
            }
        }
    if (tests) *tests += t;
    return CF_OK;
}
