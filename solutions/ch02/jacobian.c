/* SPDX-License-Identifier: MIT */
/* Chapter 2, exercises ch02.3-ch02.4: contact Jacobians of rigid bodies and of soft-body nodes
   with barycentric weights. Specification: lib/include/cf/cf_ch02.h; text: chapters/ch02/README.md. */
#include "cf/cf_ch02.h"

#include <string.h>

/* [n t b] orthonormal and right-handed within 1e-9 */
static bool frame_ok(cfVec3 n, cfVec3 t, cfVec3 b)
{
    if (!cfu_vec3_finite(n) || !cfu_vec3_finite(t) || !cfu_vec3_finite(b)) return false;
    const double tol = 1e-9;
    return fabs(cfu_norm2(n) - 1.0) <= tol && fabs(cfu_norm2(t) - 1.0) <= tol &&
           fabs(cfu_norm2(b) - 1.0) <= tol && fabs(cfu_dot(n, t)) <= tol && fabs(cfu_dot(n, b)) <= tol &&
           fabs(cfu_dot(t, b)) <= tol && cfu_norm(cfu_sub(cfu_cross(t, b), n)) <= tol;
}

cfStatus cf_contact_jacobian_rigid(const cfContact *c, const cfRigidBody *a, const cfRigidBody *b,
                                   double Ja[3][6], double Jb[3][6])
{
    if (!frame_ok(c->n, c->t, c->b) || !cfu_vec3_finite(c->p)) return CF_BAD_INPUT;
    memset(Ja, 0, 3 * sizeof Ja[0]);
    memset(Jb, 0, 3 * sizeof Jb[0]);
    //> ch02:jacobian-rigid
    // BEGIN SOLUTION ch02.3
    const cfVec3 dir[3] = {c->n, c->t, c->b};
    for (int r = 0; r < 3; ++r) {
        const cfVec3 d = dir[r];
        /* v_B(p) = v_B + w_B x r_B, and d.(w x r) = w.(r x d): the angular part is r x d */
        if (b && !b->fixed) {
            cfVec3 rxd = cfu_cross(cfu_sub(c->p, b->x), d);
            double row[6] = {d.x, d.y, d.z, rxd.x, rxd.y, rxd.z};
            memcpy(Jb[r], row, sizeof row);
        }
        /* body A enters with the opposite sign: v = C^T (v_B(p) - v_A(p)) */
        if (a && !a->fixed) {
            cfVec3 rxd = cfu_cross(cfu_sub(c->p, a->x), d);
            double row[6] = {-d.x, -d.y, -d.z, -rxd.x, -rxd.y, -rxd.z};
            memcpy(Ja[r], row, sizeof row);
        }
    }
    return CF_OK;
    // END SOLUTION
    // STUB ch02.3: return CF_TODO_S("ch02.3");
    //< ch02:jacobian-rigid
}

cfStatus cf_barycentric_triangle(cfVec3 p, cfVec3 a, cfVec3 b, cfVec3 c, double w[3])
{
    if (!cfu_vec3_finite(p) || !cfu_vec3_finite(a) || !cfu_vec3_finite(b) || !cfu_vec3_finite(c))
        return CF_BAD_INPUT;
    cfVec3 e1 = cfu_sub(b, a), e2 = cfu_sub(c, a);
    double longest = fmax(cfu_norm2(e1), fmax(cfu_norm2(e2), cfu_norm2(cfu_sub(c, b))));
    if (!(cfu_norm(cfu_cross(e1, e2)) > 1e-12 * longest)) return CF_BAD_INPUT; /* degenerate */
    //> ch02:barycentric
    // BEGIN SOLUTION ch02.4
    /* least squares: p - a ~ w1 e1 + w2 e2; the normal equations drop the off-plane part */
    cfVec3 d = cfu_sub(p, a);
    double d11 = cfu_dot(e1, e1), d12 = cfu_dot(e1, e2), d22 = cfu_dot(e2, e2);
    double r1 = cfu_dot(d, e1), r2 = cfu_dot(d, e2);
    double det = d11 * d22 - d12 * d12; /* = |e1 x e2|^2 > 0 */
    w[1] = (d22 * r1 - d12 * r2) / det;
    w[2] = (d11 * r2 - d12 * r1) / det;
    w[0] = 1.0 - w[1] - w[2];
    return CF_OK;
    // END SOLUTION
    // STUB ch02.4: return CF_TODO_S("ch02.4");
    //< ch02:barycentric
}

static double clamp01(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

cfStatus cf_closest_edge_edge(cfVec3 a0, cfVec3 a1, cfVec3 b0, cfVec3 b1, double *s, double *t)
{
    if (!cfu_vec3_finite(a0) || !cfu_vec3_finite(a1) || !cfu_vec3_finite(b0) || !cfu_vec3_finite(b1))
        return CF_BAD_INPUT;
    double la = cfu_norm(cfu_sub(a1, a0)), lb = cfu_norm(cfu_sub(b1, b0));
    if (!(la > 1e-12 * lb) || !(lb > 1e-12 * la)) return CF_BAD_INPUT; /* a segment is a point */
    //> ch02:closest-edge-edge
    // BEGIN SOLUTION ch02.4
    /* minimize |r + s eA - t eB|^2 with r = a0 - b0 over the unit square */
    cfVec3 eA = cfu_sub(a1, a0), eB = cfu_sub(b1, b0), r = cfu_sub(a0, b0);
    double aa = cfu_dot(eA, eA), bb = cfu_dot(eB, eB), ab = cfu_dot(eA, eB);
    double ar = cfu_dot(eA, r), br = cfu_dot(eB, r);
    double den = aa * bb - ab * ab; /* = |eA x eB|^2 */
    double ss = 0.0, tt;
    /* unconstrained optimum for s (lines), clamped; parallel edges: start from s = 0 */
    if (den > 1e-14 * aa * bb) ss = clamp01((ab * br - bb * ar) / den);
    /* best t for this s, clamped; if t was clamped, best s for that t, clamped */
    tt = (ab * ss + br) / bb;
    if (tt < 0.0 || tt > 1.0) {
        tt = clamp01(tt);
        ss = clamp01((ab * tt - ar) / aa);
    }
    *s = ss;
    *t = tt;
    return CF_OK;
    // END SOLUTION
    // STUB ch02.4: return CF_TODO_S("ch02.4");
    //< ch02:closest-edge-edge
}

cfStatus cf_soft_contact_vertex_triangle(const cfVec3 *x, int v, int i, int j, int k, cfSoftContact *c)
{
    if (v == i || v == j || v == k || i == j || j == k || i == k) return CF_BAD_INPUT;
    //> ch02:contact-vertex-triangle
    // BEGIN SOLUTION ch02.4
    double w[3];
    cfStatus st = cf_barycentric_triangle(x[v], x[i], x[j], x[k], w);
    if (st != CF_OK) return st;
    cfSoftContact out = {0};
    out.na = 3;
    out.nb = 1;
    const int tri[3] = {i, j, k};
    for (int m = 0; m < 3; ++m) {
        out.node_a[m] = tri[m];
        out.w_a[m] = w[m];
    }
    out.node_b[0] = v;
    out.w_b[0] = 1.0;
    /* the triangle's outward normal, from the triangle (A) towards the vertex (B) side */
    out.n = cfu_normalize(cfu_cross(cfu_sub(x[j], x[i]), cfu_sub(x[k], x[i])));
    out.p = cfu_add(cfu_add(cfu_scale(w[0], x[i]), cfu_scale(w[1], x[j])), cfu_scale(w[2], x[k]));
    out.phi = cfu_dot(out.n, cfu_sub(x[v], out.p));
    st = cf_contact_frame(out.n, &out.t, &out.b);
    if (st != CF_OK) return st;
    *c = out;
    return CF_OK;
    // END SOLUTION
    // STUB ch02.4: return CF_TODO_S("ch02.4");
    //< ch02:contact-vertex-triangle
}

cfStatus cf_soft_contact_edge_edge(const cfVec3 *x, int a0, int a1, int b0, int b1, cfSoftContact *c)
{
    if (a0 == a1 || b0 == b1 || a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1) return CF_BAD_INPUT;
    //> ch02:contact-edge-edge
    // BEGIN SOLUTION ch02.4
    double s, t;
    cfStatus st = cf_closest_edge_edge(x[a0], x[a1], x[b0], x[b1], &s, &t);
    if (st != CF_OK) return st;
    cfVec3 eA = cfu_sub(x[a1], x[a0]), eB = cfu_sub(x[b1], x[b0]);
    cfVec3 m = cfu_cross(eA, eB);
    if (!(cfu_norm2(m) > 1e-14 * cfu_norm2(eA) * cfu_norm2(eB))) return CF_BAD_INPUT; /* parallel */
    cfSoftContact out = {0};
    out.na = out.nb = 2;
    out.node_a[0] = a0;
    out.node_a[1] = a1;
    out.w_a[0] = 1.0 - s;
    out.w_a[1] = s;
    out.node_b[0] = b0;
    out.node_b[1] = b1;
    out.w_b[0] = 1.0 - t;
    out.w_b[1] = t;
    out.p = cfu_mul_add(x[a0], s, eA);
    cfVec3 pb = cfu_mul_add(x[b0], t, eB);
    /* the common perpendicular, pointing from edge A to edge B */
    out.n = cfu_normalize(m);
    if (cfu_dot(out.n, cfu_sub(pb, out.p)) < 0.0) out.n = cfu_neg(out.n);
    out.phi = cfu_dot(out.n, cfu_sub(pb, out.p));
    st = cf_contact_frame(out.n, &out.t, &out.b);
    if (st != CF_OK) return st;
    *c = out;
    return CF_OK;
    // END SOLUTION
    // STUB ch02.4: return CF_TODO_S("ch02.4");
    //< ch02:contact-edge-edge
}

cfStatus cf_soft_contact_jacobian(const cfSoftContact *c, double Ja[CF_SOFT_CONTACT_NODES][9],
                                  double Jb[CF_SOFT_CONTACT_NODES][9])
{
    if (c->na < 0 || c->na > CF_SOFT_CONTACT_NODES || c->nb < 0 || c->nb > CF_SOFT_CONTACT_NODES ||
        !frame_ok(c->n, c->t, c->b))
        return CF_BAD_INPUT;
    for (int k = 0; k < c->na; ++k)
        if (!isfinite(c->w_a[k])) return CF_BAD_INPUT;
    for (int k = 0; k < c->nb; ++k)
        if (!isfinite(c->w_b[k])) return CF_BAD_INPUT;
    //> ch02:jacobian-soft
    // BEGIN SOLUTION ch02.4
    /* C^T row-major: row r is the frame vector r */
    const cfVec3 dir[3] = {c->n, c->t, c->b};
    for (int k = 0; k < c->na; ++k)
        for (int r = 0; r < 3; ++r) {
            Ja[k][3 * r + 0] = -c->w_a[k] * dir[r].x;
            Ja[k][3 * r + 1] = -c->w_a[k] * dir[r].y;
            Ja[k][3 * r + 2] = -c->w_a[k] * dir[r].z;
        }
    for (int k = 0; k < c->nb; ++k)
        for (int r = 0; r < 3; ++r) {
            Jb[k][3 * r + 0] = c->w_b[k] * dir[r].x;
            Jb[k][3 * r + 1] = c->w_b[k] * dir[r].y;
            Jb[k][3 * r + 2] = c->w_b[k] * dir[r].z;
        }
    return CF_OK;
    // END SOLUTION
    // STUB ch02.4: return CF_TODO_S("ch02.4");
    //< ch02:jacobian-soft
}
