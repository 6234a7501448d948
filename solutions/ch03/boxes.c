/* SPDX-License-Identifier: MIT */
/* Chapter 3, exercise ch03.3: separating axes of two boxes, clipped face manifolds, edge-edge
   contacts and box against plane. Specification: lib/include/cf/cf_ch03.h. */
#include "cf/cf_ch03.h"

#include <string.h>

/* *c: a contact from the two surface points: p = (p_A + p_B)/2, phi measured along n, the rest
   zero (written in place: a contact is a few hundred bytes) */
static void contact_from(cfContact *c, cfVec3 pa, cfVec3 pb, cfVec3 n, double phi, uint32_t feature)
{
    memset(c, 0, sizeof *c);
    c->p = cfu_scale(0.5, cfu_add(pa, pb));
    c->n = n;
    c->phi = phi;
    c->feature = feature;
}

/* the unit axis l oriented from A to B (n . d >= 0) */
static cfVec3 orient(cfVec3 l, cfVec3 d) { return cfu_dot(l, d) < 0.0 ? cfu_neg(l) : l; }

static double max3(cfVec3 v) { return fmax(v.x, fmax(v.y, v.z)); }

cfSatResult cf_sat_box_box(const cfObb *a, const cfObb *b, double margin)
{
    //> ch03:sat
    // BEGIN SOLUTION ch03.3
    cfSatResult r = {false, -1, -INFINITY, -INFINITY, cfu_vec3(0, 0, 1)};
    cfVec3 d = cfu_sub(b->c, a->c);
    double tie = CF_SAT_TIE_EPS * fmax(max3(a->h), max3(b->h));
    /* separation along the unit axis l (Eq. 86 with the projected radii) */
#define SAT_S(l) (fabs(cfu_dot(d, (l))) - cf_obb_project_radius(a, (l)) - cf_obb_project_radius(b, (l)))

    /* faces of A, then faces of B (which must beat A's by more than the tie tolerance) */
    double s_face = -INFINITY;
    for (int k = 0; k < 6; ++k) {
        cfVec3 l = k < 3 ? cfu_mat3_col(a->R, k) : cfu_mat3_col(b->R, k - 3);
        double s = SAT_S(l);
        if (s > margin) {
            cfSatResult sep = {true, k, s, s, orient(l, d)};
            return sep;
        }
        if (s > r.s_max) r.s_max = s;
        if (s > s_face + (k < 3 ? 0.0 : tie)) {
            s_face = s;
            r.axis = k;
            r.n = orient(l, d);
        }
    }
    r.s = s_face;

    /* edge pairs a_i x b_j, normalized; parallel edges give no new axis */
    int e_axis = -1;
    double s_edge = -INFINITY;
    cfVec3 n_edge = r.n;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            cfVec3 l = cfu_cross(cfu_mat3_col(a->R, i), cfu_mat3_col(b->R, j));
            double len = cfu_norm(l);
            if (len < CF_SAT_PARALLEL_EPS) continue;
            l = cfu_scale(1.0 / len, l);
            double s = SAT_S(l);
            if (s > margin) {
                cfSatResult sep = {true, 6 + 3 * i + j, s, s, orient(l, d)};
                return sep;
            }
            if (s > r.s_max) r.s_max = s;
            if (s > s_edge) {
                s_edge = s;
                e_axis = 6 + 3 * i + j;
                n_edge = orient(l, d);
            }
        }
#undef SAT_S
    /* prefer faces: an edge axis must be clearly shallower */
    if (e_axis >= 0 && s_edge > r.s + CF_SAT_EDGE_BIAS * fabs(r.s) + tie) {
        r.axis = e_axis;
        r.s = s_edge;
        r.n = n_edge;
    }
    return r;
    // END SOLUTION
    // STUB ch03.3: CF_TODO("ch03.3");
    // STUB ch03.3: cfSatResult none = {0};
    // STUB ch03.3: return none;
    //< ch03:sat
}

//> ch03:clip
// BEGIN SOLUTION ch03.3
/* Polygon being clipped: points, the tag of each point (which feature made it) and the id of
   the edge leaving each point (0..3 incident quad edges, 4 + c along clip plane c). */
typedef struct Poly {
    int n;
    cfVec3 p[16];
    int tag[16];
    int edge[16];
} Poly;

/* Sutherland-Hodgman against one clip plane: keep the points with sign * x_axis <= lim (in the
   reference box frame); crossings get tag 8 + 8 plane + edge id */
static void clip_plane(const Poly *in, Poly *out, int axis, double sign, double lim, int plane)
{
    out->n = 0;
    for (int k = 0; k < in->n; ++k) {
        int k1 = (k + 1) % in->n;
        cfVec3 P = in->p[k], Q = in->p[k1];
        double dp = sign * cfu_vec3_at(P, axis) - lim, dq = sign * cfu_vec3_at(Q, axis) - lim;
        bool pin = dp <= 0.0, qin = dq <= 0.0;
        if (pin) {
            out->p[out->n] = P;
            out->tag[out->n] = in->tag[k];
            out->edge[out->n] = in->edge[k];
            out->n++;
        }
        if (pin != qin) {
            /* the edge crosses the plane: add the crossing point */
            double t = dp / (dp - dq);
            out->p[out->n] = cfu_add(P, cfu_scale(t, cfu_sub(Q, P)));
            out->tag[out->n] = 8 + 8 * plane + in->edge[k];
            /* leaving the kept side we continue along the plane; entering, along the edge */
            out->edge[out->n] = pin ? 4 + plane : in->edge[k];
            out->n++;
        }
    }
}
// END SOLUTION
// STUB ch03.3: /* helpers of your own: polygon clipping (text section 3.4) */
//< ch03:clip

//> ch03:face-contacts
// BEGIN SOLUTION ch03.3
/* contacts of a face of box ref (axis i, outward normal m toward box inc) against the most
   anti-parallel face of inc; ref_is_a says which body the reference box is */
static int face_contacts(const cfObb *ref, int i, cfVec3 m, const cfObb *inc, bool ref_is_a, double margin,
                         cfContact *out)
{
    int ref_face = 2 * i + (cfu_dot(cfu_mat3_col(ref->R, i), m) < 0.0 ? 1 : 0);
    /* incident face: outward normal most opposed to m */
    int j = 0;
    double best = -1.0;
    for (int k = 0; k < 3; ++k) {
        double c = fabs(cfu_dot(cfu_mat3_col(inc->R, k), m));
        if (c > best) best = c, j = k;
    }
    double js = cfu_dot(cfu_mat3_col(inc->R, j), m) > 0.0 ? -1.0 : 1.0; /* sign of the incident face */
    int inc_face = 2 * j + (js < 0.0 ? 1 : 0);

    /* the incident quad, cycling over the two other axes, in the reference box frame */
    double hi[3] = {inc->h.x, inc->h.y, inc->h.z};
    int u = (j + 1) % 3, w = (j + 2) % 3;
    const double cyc[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    Poly P, Q;
    P.n = 4;
    for (int k = 0; k < 4; ++k) {
        double l[3];
        l[j] = js * hi[j];
        l[u] = cyc[k][0] * hi[u];
        l[w] = cyc[k][1] * hi[w];
        cfVec3 world = cfu_add(inc->c, cfu_mat3_mul_vec(inc->R, cfu_vec3(l[0], l[1], l[2])));
        P.p[k] = cfu_mat3_tmul_vec(ref->R, cfu_sub(world, ref->c));
        P.tag[k] = k;
        P.edge[k] = k;
    }

    /* clip against the four side planes |x_k| <= h_k, k != i */
    double hr[3] = {ref->h.x, ref->h.y, ref->h.z};
    int plane = 0;
    for (int k = 0; k < 3; ++k) {
        if (k == i) continue;
        clip_plane(&P, &Q, k, 1.0, hr[k], plane++);
        clip_plane(&Q, &P, k, -1.0, hr[k], plane++);
    }

    /* keep the points below the reference face (within the margin) */
    double side = ref_face % 2 ? -1.0 : 1.0;
    cfVec3 n = ref_is_a ? m : cfu_neg(m);
    uint32_t type = ref_is_a ? CF_FEAT_FACE_A : CF_FEAT_FACE_B;
    int count = 0;
    for (int k = 0; k < P.n; ++k) {
        cfVec3 x = P.p[k];
        double phi = side * cfu_vec3_at(x, i) - hr[i]; /* height above the face along m */
        if (!(phi <= margin)) continue;
        cfVec3 p_inc = cfu_add(ref->c, cfu_mat3_mul_vec(ref->R, x));
        cfVec3 p_ref = cfu_mul_add(p_inc, -phi, m);
        uint32_t id = cf_feature(type, (uint32_t)(ref_face << 9 | inc_face << 6 | P.tag[k]));
        if (ref_is_a) contact_from(&out[count++], p_ref, p_inc, n, phi, id);
        else contact_from(&out[count++], p_inc, p_ref, n, phi, id);
    }
    return count;
}
// END SOLUTION
// STUB ch03.3: /* helpers of your own: face contacts from the reference and incident faces */
//< ch03:face-contacts

// BEGIN SOLUTION ch03.3
/* edge of box b parallel to axis i that lies farthest along direction v */
static int support_edge(const cfObb *b, int i, cfVec3 v)
{
    int j = (i + 1) % 3, k = (i + 2) % 3;
    int lo = j < k ? j : k, hi = j < k ? k : j;
    int bits = (cfu_dot(cfu_mat3_col(b->R, lo), v) >= 0.0 ? 1 : 0) | (cfu_dot(cfu_mat3_col(b->R, hi), v) >= 0.0 ? 2 : 0);
    return 4 * i + bits;
}
// END SOLUTION

int cf_collide_box_box(const cfObb *a, const cfObb *b, double margin, int max_contacts, cfContact *out)
{
    //> ch03:box-box
    // BEGIN SOLUTION ch03.3
    cfSatResult sat = cf_sat_box_box(a, b, margin);
    if (sat.separated || sat.axis < 0) return 0;
    cfVec3 n = sat.n;
    if (sat.axis >= 6) {
        /* edge-edge: closest points of the two support edges */
        int i = (sat.axis - 6) / 3, j = (sat.axis - 6) % 3;
        int ea = support_edge(a, i, n), eb = support_edge(b, j, cfu_neg(n));
        cfVec3 a0, a1, b0, b1;
        cf_obb_edge(a, ea, &a0, &a1);
        cf_obb_edge(b, eb, &b0, &b1);
        double s, t;
        cf_segment_closest(a0, a1, b0, b1, &s, &t);
        cfVec3 pa = cfu_add(a0, cfu_scale(s, cfu_sub(a1, a0)));
        cfVec3 pb = cfu_add(b0, cfu_scale(t, cfu_sub(b1, b0)));
        double phi = cfu_dot(n, cfu_sub(pb, pa));
        if (!(phi <= margin)) return 0; /* also rejects NaN */
        contact_from(&out[0], pa, pb, n, phi, cf_feature(CF_FEAT_EDGE_EDGE, (uint32_t)(ea << 4 | eb)));
        return 1;
    }
    int count = sat.axis < 3 ? face_contacts(a, sat.axis, n, b, true, margin, out)
                             : face_contacts(b, sat.axis - 3, cfu_neg(n), a, false, margin, out);
    if (count > max_contacts) count = cf_manifold_reduce(out, count, max_contacts, out);
    return count;
    // END SOLUTION
    // STUB ch03.3: return CF_TODO_I("ch03.3");
    //< ch03:box-box
}

int cf_collide_plane_box(cfVec3 n, double offset, const cfObb *b, double margin, int max_contacts, cfContact *out)
{
    //> ch03:plane-box
    // BEGIN SOLUTION ch03.3
    int count = 0;
    for (int k = 0; k < 8; ++k) {
        cfVec3 v = cf_obb_vertex(b, k);
        double phi = cfu_dot(n, v) - offset;
        if (!(phi <= margin)) continue;
        contact_from(&out[count++], cfu_mul_add(v, -phi, n), v, n, phi, cf_feature(CF_FEAT_VERTEX, (uint32_t)k));
    }
    if (count > max_contacts) count = cf_manifold_reduce(out, count, max_contacts, out);
    return count;
    // END SOLUTION
    // STUB ch03.3: return CF_TODO_I("ch03.3");
    //< ch03:plane-box
}
