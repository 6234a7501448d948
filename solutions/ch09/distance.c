/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.3: unsigned point-triangle and edge-edge distances as affine stencils
   per region, the gradient and Hessian of d^2 by the envelope theorem, the edge-edge mollifier and
   the barrier of a pair.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>
#include <string.h>

#include "cf/cf_ch09.h"

// BEGIN SOLUTION ch09.3
/* r = sum c_i x_i of a stencil */
static cfVec3 stencil_r(const cfVec3 x[4], const cfDistStencil *st)
{
    cfVec3 r = cfu_zero3();
    for (int i = 0; i < 4; ++i) r = cfu_mul_add(r, st->c[i], x[i]);
    return r;
}

/* the point x[p] against the segment x[a]-x[b], r = sign (x[p] - (x[a] + t (x[b] - x[a]))):
   an edge region when t is inside, else a vertex region (kinds given by the caller) */
static double point_segment(const cfVec3 x[4], int p, int a, int b, double sign, cfDistRegion edge,
                            cfDistRegion vertex, cfDistStencil *st)
{
    cfVec3 e = cfu_sub(x[b], x[a]);
    double ee = cfu_dot(e, e), t = ee > 0.0 ? cfu_dot(cfu_sub(x[p], x[a]), e) / ee : 0.0;
    t = fmax(0.0, fmin(1.0, t));
    memset(st, 0, sizeof *st);
    st->c[p] = sign;
    st->c[a] = -sign * (1.0 - t);
    st->c[b] = -sign * t;
    if (t > 0.0 && t < 1.0) {
        st->region = edge;
        st->k = 1;
        st->D[a][0] = sign;
        st->D[b][0] = -sign;
    } else {
        st->region = vertex;
        st->k = 0;
    }
    return cfu_norm2(stencil_r(x, st));
}
// END SOLUTION

double cf_dist2_point_triangle(const cfVec3 x[4], cfDistStencil *st)
{
    //> ch09:dist-pt
    // BEGIN SOLUTION ch09.3
    cfDistStencil tmp;
    if (!st) st = &tmp;
    cfVec3 e0 = cfu_sub(x[1], x[0]), e1 = cfu_sub(x[2], x[0]), w = cfu_sub(x[3], x[0]);
    double a = cfu_dot(e0, e0), b = cfu_dot(e0, e1), c = cfu_dot(e1, e1);
    double det = a * c - b * b;
    if (det > 1e-20 * a * c) { /* the projection on the plane, in barycentric coordinates */
        double d = cfu_dot(e0, w), e = cfu_dot(e1, w);
        double u = (c * d - b * e) / det, v = (a * e - b * d) / det;
        if (u >= 0.0 && v >= 0.0 && u + v <= 1.0) {
            memset(st, 0, sizeof *st);
            st->region = CF_DIST_PT_FACE;
            st->k = 2;
            st->c[0] = -(1.0 - u - v);
            st->c[1] = -u;
            st->c[2] = -v;
            st->c[3] = 1.0;
            st->D[0][0] = 1.0, st->D[1][0] = -1.0;
            st->D[0][1] = 1.0, st->D[2][1] = -1.0;
            return cfu_norm2(stencil_r(x, st));
        }
    }
    /* outside the face (or a degenerate triangle): the nearest of the three edges */
    static const int E[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    double best = INFINITY;
    for (int k = 0; k < 3; ++k) {
        cfDistStencil s;
        double d2 = point_segment(x, 3, E[k][0], E[k][1], 1.0, CF_DIST_PT_EDGE, CF_DIST_PT_VERTEX, &s);
        if (d2 < best) best = d2, *st = s;
    }
    return best;
    // END SOLUTION
    // STUB ch09.3: return CF_TODO_F("ch09.3");
    //< ch09:dist-pt
}

double cf_dist2_edge_edge(const cfVec3 x[4], cfDistStencil *st)
{
    //> ch09:dist-ee
    // BEGIN SOLUTION ch09.3
    cfDistStencil tmp;
    if (!st) st = &tmp;
    cfVec3 e1 = cfu_sub(x[1], x[0]), e2 = cfu_sub(x[3], x[2]), w = cfu_sub(x[0], x[2]);
    double a = cfu_dot(e1, e1), b = cfu_dot(e1, e2), e = cfu_dot(e2, e2);
    double c = cfu_dot(e1, w), f = cfu_dot(e2, w), denom = a * e - b * b; /* = |e1 x e2|^2 */
    if (denom <= 1e-20 * a * e) {
        /* parallel (or a point): the smallest of the four endpoint-segment distances */
        static const int P[4][3] = {{0, 2, 3}, {1, 2, 3}, {2, 0, 1}, {3, 0, 1}};
        double best = INFINITY;
        for (int k = 0; k < 4; ++k) {
            cfDistStencil s; /* r points from edge A to edge B: minus for a point of A */
            double d2 = point_segment(x, P[k][0], P[k][1], P[k][2], k < 2 ? -1.0 : 1.0, CF_DIST_EE_EDGE,
                                      CF_DIST_EE_VERTEX, &s);
            if (d2 < best) best = d2, *st = s;
        }
        return best;
    }
    double s = fmax(0.0, fmin(1.0, (b * f - c * e) / denom));
    double t = (b * s + f) / e;
    if (t < 0.0) {
        t = 0.0;
        s = fmax(0.0, fmin(1.0, -c / a));
    } else if (t > 1.0) {
        t = 1.0;
        s = fmax(0.0, fmin(1.0, (b - c) / a));
    }
    bool s_in = s > 0.0 && s < 1.0, t_in = t > 0.0 && t < 1.0;
    memset(st, 0, sizeof *st);
    st->c[0] = -(1.0 - s);
    st->c[1] = -s;
    st->c[2] = 1.0 - t;
    st->c[3] = t;
    st->region = s_in && t_in ? CF_DIST_EE_INTERIOR : (s_in || t_in ? CF_DIST_EE_EDGE : CF_DIST_EE_VERTEX);
    if (s_in) {
        st->D[0][st->k] = 1.0, st->D[1][st->k] = -1.0;
        st->k++;
    }
    if (t_in) {
        st->D[2][st->k] = -1.0, st->D[3][st->k] = 1.0;
        st->k++;
    }
    return cfu_norm2(stencil_r(x, st));
    // END SOLUTION
    // STUB ch09.3: return CF_TODO_F("ch09.3");
    //< ch09:dist-ee
}

double cf_dist2_derivatives(const cfVec3 x[4], const cfDistStencil *st, double g[12], double H[144])
{
    //> ch09:dist-derivatives
    // BEGIN SOLUTION ch09.3
    cfVec3 r = stencil_r(x, st);
    if (g)
        for (int i = 0; i < 4; ++i)
            for (int a = 0; a < 3; ++a) g[3 * i + a] = 2.0 * st->c[i] * cfu_vec3_at(r, a);
    if (!H) return cfu_norm2(r);
    memset(H, 0, 144 * sizeof *H);
    for (int i = 0; i < 4; ++i) /* F_xx = 2 S^T S: 2 c_i c_j I per block */
        for (int j = 0; j < 4; ++j)
            for (int a = 0; a < 3; ++a) H[(3 * i + a) * 12 + 3 * j + a] = 2.0 * st->c[i] * st->c[j];
    int k = st->k;
    if (k == 0) return cfu_norm2(r);
    cfVec3 E[2];
    double G[12][2] = {{0}}, Ftt[2][2] = {{0}}, Fi[2][2];
    for (int j = 0; j < k; ++j) {
        E[j] = cfu_zero3();
        for (int i = 0; i < 4; ++i) E[j] = cfu_mul_add(E[j], st->D[i][j], x[i]);
    }
    for (int j = 0; j < k; ++j) {
        for (int l = 0; l < k; ++l) Ftt[j][l] = 2.0 * cfu_dot(E[j], E[l]);
        for (int i = 0; i < 4; ++i) /* F_xt column j: 2 (D_ij r + c_i E_j) */
            for (int a = 0; a < 3; ++a)
                G[3 * i + a][j] = 2.0 * (st->D[i][j] * cfu_vec3_at(r, a) + st->c[i] * cfu_vec3_at(E[j], a));
    }
    if (k == 1) {
        if (!(Ftt[0][0] > 0.0)) return cfu_norm2(r); /* a zero-length feature: nothing moves along it */
        Fi[0][0] = 1.0 / Ftt[0][0];
    } else {
        double det = Ftt[0][0] * Ftt[1][1] - Ftt[0][1] * Ftt[1][0];
        if (!(det > 0.0)) return cfu_norm2(r);
        Fi[0][0] = Ftt[1][1] / det, Fi[1][1] = Ftt[0][0] / det;
        Fi[0][1] = -Ftt[0][1] / det, Fi[1][0] = -Ftt[1][0] / det;
    }
    for (int p = 0; p < 12; ++p) /* H -= F_xt F_tt^-1 F_tx */
        for (int q = 0; q < 12; ++q) {
            double s = 0.0;
            for (int j = 0; j < k; ++j)
                for (int l = 0; l < k; ++l) s += G[p][j] * Fi[j][l] * G[q][l];
            H[p * 12 + q] -= s;
        }
    return cfu_norm2(r);
    // END SOLUTION
    // STUB ch09.3: return CF_TODO_F("ch09.3");
    //< ch09:dist-derivatives
}

double cf_ee_mollifier(const cfVec3 x[4], double eps_x, double g[12], double H[144])
{
    //> ch09:ee-mollifier
    // BEGIN SOLUTION ch09.3
    cfVec3 a = cfu_sub(x[1], x[0]), b = cfu_sub(x[3], x[2]);
    double c = cfu_norm2(cfu_cross(a, b));
    if (g) memset(g, 0, 12 * sizeof *g);
    if (H) memset(H, 0, 144 * sizeof *H);
    if (c >= eps_x) return 1.0;
    double y = c / eps_x, m = (2.0 - y) * y, dm = (2.0 - 2.0 * y) / eps_x, d2m = -2.0 / (eps_x * eps_x);
    double aa = cfu_dot(a, a), bb = cfu_dot(b, b), ab = cfu_dot(a, b);
    /* c as a function of (a, b): gradient and Hessian (6 and 6x6) */
    double gc[6], Hc[6][6];
    for (int i = 0; i < 3; ++i) {
        double ai = cfu_vec3_at(a, i), bi = cfu_vec3_at(b, i);
        gc[i] = 2.0 * (bb * ai - ab * bi);
        gc[3 + i] = 2.0 * (aa * bi - ab * ai);
        for (int j = 0; j < 3; ++j) {
            double aj = cfu_vec3_at(a, j), bj = cfu_vec3_at(b, j), I = i == j;
            Hc[i][j] = 2.0 * (bb * I - bi * bj);
            Hc[3 + i][3 + j] = 2.0 * (aa * I - ai * aj);
            Hc[i][3 + j] = 2.0 * (2.0 * ai * bj - bi * aj - ab * I);
            Hc[3 + j][i] = Hc[i][3 + j];
        }
    }
    /* (a, b) from the 12 coordinates: a = x1 - x0, b = x3 - x2 */
    static const int node[2][2] = {{1, 0}, {3, 2}}; /* + node, - node of a and of b */
    double G[12] = {0};
    for (int v = 0; v < 2; ++v)
        for (int i = 0; i < 3; ++i) {
            G[3 * node[v][0] + i] += gc[3 * v + i];
            G[3 * node[v][1] + i] -= gc[3 * v + i];
        }
    if (g)
        for (int p = 0; p < 12; ++p) g[p] = dm * G[p];
    if (H)
        for (int v = 0; v < 2; ++v)
            for (int w = 0; w < 2; ++w)
                for (int sv = 0; sv < 2; ++sv)
                    for (int sw = 0; sw < 2; ++sw)
                        for (int i = 0; i < 3; ++i)
                            for (int j = 0; j < 3; ++j) {
                                double sign = (sv ? -1.0 : 1.0) * (sw ? -1.0 : 1.0);
                                H[(3 * node[v][sv] + i) * 12 + 3 * node[w][sw] + j] += sign * dm * Hc[3 * v + i][3 * w + j];
                            }
    if (H)
        for (int p = 0; p < 12; ++p)
            for (int q = 0; q < 12; ++q) H[p * 12 + q] += d2m * G[p] * G[q];
    return m;
    // END SOLUTION
    // STUB ch09.3: return CF_TODO_F("ch09.3");
    //< ch09:ee-mollifier
}

double cf_ipc_pair_barrier(const cfVec3 x[4], const cfDistStencil *st, double dhat, double g[12], double H[144])
{
    //> ch09:pair-barrier
    // BEGIN SOLUTION ch09.3
    double gs[12], Hs[144];
    double s = cf_dist2_derivatives(x, st, gs, H ? Hs : NULL);
    double d = sqrt(s), b1, b2;
    double b = cf_ipc_barrier(d, dhat, &b1, &b2);
    if (g) memset(g, 0, 12 * sizeof *g);
    if (H) memset(H, 0, 144 * sizeof *H);
    if (!(d > 0.0)) return INFINITY;
    if (d >= dhat) return 0.0;
    if (g)
        for (int p = 0; p < 12; ++p) g[p] = b1 * gs[p] / (2.0 * d);
    if (H)
        for (int p = 0; p < 12; ++p)
            for (int q = 0; q < 12; ++q)
                H[p * 12 + q] = b2 * gs[p] * gs[q] / (4.0 * s) + b1 * (Hs[p * 12 + q] / (2.0 * d) - gs[p] * gs[q] / (4.0 * s * d));
    return b;
    // END SOLUTION
    // STUB ch09.3: return CF_TODO_F("ch09.3");
    //< ch09:pair-barrier
}
