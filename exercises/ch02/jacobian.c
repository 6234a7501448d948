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
    // TODO(ch02.3): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.3");
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
    // TODO(ch02.4): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.4");
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
    // TODO(ch02.4): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.4");
    //< ch02:closest-edge-edge
}

cfStatus cf_soft_contact_vertex_triangle(const cfVec3 *x, int v, int i, int j, int k, cfSoftContact *c)
{
    if (v == i || v == j || v == k || i == j || j == k || i == k) return CF_BAD_INPUT;
    //> ch02:contact-vertex-triangle
    // TODO(ch02.4): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.4");
    //< ch02:contact-vertex-triangle
}

cfStatus cf_soft_contact_edge_edge(const cfVec3 *x, int a0, int a1, int b0, int b1, cfSoftContact *c)
{
    if (a0 == a1 || b0 == b1 || a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1) return CF_BAD_INPUT;
    //> ch02:contact-edge-edge
    // TODO(ch02.4): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.4");
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
    // TODO(ch02.4): implement this; the specification is in cf_ch02.h
    return CF_TODO_S("ch02.4");
    //< ch02:jacobian-soft
}
