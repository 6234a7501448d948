/* SPDX-License-Identifier: MIT */
/* Chapter 3, exercise ch03.4: vertex-face and edge-edge CCD through the coplanarity cubic with
   robust root isolation. Specification: lib/include/cf/cf_ch03.h. */
#include "cf/cf_ch03.h"

#include <string.h>

/* f(t) by Horner's rule */
static double cubic_eval(const double c[4], double t) { return ((c[3] * t + c[2]) * t + c[1]) * t + c[0]; }

static cfCcdResult ccd_miss(double h)
{
    cfCcdResult r;
    memset(&r, 0, sizeof r);
    r.status = CF_CCD_MISS;
    r.toi = h;
    return r;
}

/* x_k(t) = x_k + t u_k */
static cfVec3 at(const cfVec3 x[4], const cfVec3 u[4], int k, double t) { return cfu_mul_add(x[k], t, u[k]); }

int cf_cubic_roots(const double c[4], double t0, double t1, double tol, double roots[3])
{
    //> ch03:cubic-roots
    // BEGIN SOLUTION ch03.4
    if (!(t1 >= t0)) return 0;
    /* identically zero at the scale of the interval? */
    double T = fmax(fabs(t0), fabs(t1)), Tk = 1.0;
    bool zero = true;
    for (int k = 0; k < 4; ++k, Tk *= T)
        if (fabs(c[k]) * Tk > tol) zero = false;
    if (zero) return -1;

    /* break points: the ends and the roots of f' = c1 + 2 c2 t + 3 c3 t^2 inside */
    double pts[4];
    int np = 0;
    pts[np++] = t0;
    double A = 3.0 * c[3], B = 2.0 * c[2], C = c[1], crit[2];
    int nc = 0;
    if (A != 0.0) {
        double disc = B * B - 4.0 * A * C;
        if (disc >= 0.0) {
            /* q = -(B + sign(B) sqrt(disc))/2 avoids cancellation; roots q/A and C/q */
            double q = -0.5 * (B + (B < 0.0 ? -sqrt(disc) : sqrt(disc)));
            crit[nc++] = q / A;
            if (q != 0.0) crit[nc++] = C / q;
        }
    } else if (B != 0.0) {
        crit[nc++] = -C / B;
    }
    if (nc == 2 && crit[0] > crit[1]) {
        double tmp = crit[0];
        crit[0] = crit[1];
        crit[1] = tmp;
    }
    for (int k = 0; k < nc; ++k)
        if (crit[k] > t0 && crit[k] < t1) pts[np++] = crit[k];
    if (t1 > t0) pts[np++] = t1;

    double found[8];
    int nf = 0;
    /* break points where |f| <= tol are roots (ends, grazing double roots) */
    for (int k = 0; k < np; ++k)
        if (fabs(cubic_eval(c, pts[k])) <= tol) found[nf++] = pts[k];
    /* a sign change on a monotone piece is exactly one root: bisect */
    for (int k = 0; k + 1 < np; ++k) {
        double lo = pts[k], hi = pts[k + 1], flo = cubic_eval(c, lo), fhi = cubic_eval(c, hi);
        if (fabs(flo) <= tol || fabs(fhi) <= tol || (flo < 0.0) == (fhi < 0.0)) continue;
        for (int it = 0; it < 200; ++it) {
            double mid = 0.5 * (lo + hi);
            if (mid <= lo || mid >= hi) break;
            double fm = cubic_eval(c, mid);
            if ((fm < 0.0) == (flo < 0.0)) {
                lo = mid;
                flo = fm;
            } else {
                hi = mid;
            }
        }
        found[nf++] = 0.5 * (lo + hi);
    }
    /* sort, merge near duplicates, keep the earliest three */
    for (int i = 1; i < nf; ++i)
        for (int j = i; j > 0 && found[j - 1] > found[j]; --j) {
            double tmp = found[j];
            found[j] = found[j - 1];
            found[j - 1] = tmp;
        }
    double merge = 1e-12 * (t1 - t0);
    int n = 0;
    for (int i = 0; i < nf && n < 3; ++i)
        if (n == 0 || found[i] - roots[n - 1] > merge) roots[n++] = found[i];
    return n;
    // END SOLUTION
    // STUB ch03.4: return CF_TODO_I("ch03.4");
    //< ch03:cubic-roots
}

void cf_ccd_cubic(const cfVec3 x[4], const cfVec3 u[4], double c[4])
{
    //> ch03:ccd-cubic
    // BEGIN SOLUTION ch03.4
    cfVec3 a = cfu_sub(x[1], x[0]), b = cfu_sub(u[1], u[0]);
    cfVec3 cc = cfu_sub(x[2], x[0]), d = cfu_sub(u[2], u[0]);
    cfVec3 e = cfu_sub(x[3], x[0]), g = cfu_sub(u[3], u[0]);
    /* (a + t b) x (cc + t d) = a x cc + t (a x d + b x cc) + t^2 (b x d), dotted with e + t g */
    cfVec3 k0 = cfu_cross(a, cc), k1 = cfu_add(cfu_cross(a, d), cfu_cross(b, cc)), k2 = cfu_cross(b, d);
    c[0] = cfu_dot(k0, e);
    c[1] = cfu_dot(k0, g) + cfu_dot(k1, e);
    c[2] = cfu_dot(k1, g) + cfu_dot(k2, e);
    c[3] = cfu_dot(k2, g);
    // END SOLUTION
    // STUB ch03.4: CF_TODO("ch03.4");
    // STUB ch03.4: c[0] = c[1] = c[2] = c[3] = 0.0;
    //< ch03:ccd-cubic
}

// BEGIN SOLUTION ch03.4
/* size of the configuration and the cubic's tolerance 1e-12 L^3 */
static double cubic_tol(const cfVec3 x[4], const cfVec3 u[4], double h)
{
    double L = 0.0;
    for (int k = 1; k < 4; ++k) {
        double l = cfu_norm(cfu_sub(x[k], x[0])) + h * cfu_norm(cfu_sub(u[k], u[0]));
        if (l > L) L = l;
    }
    return 1e-12 * L * L * L;
}

/* sign of f just before roots[k]: +1 or -1 */
static double side_before(const double c[4], const double *roots, int k)
{
    double prev = k > 0 ? roots[k - 1] : 0.0;
    if (roots[k] > prev) {
        double f = cubic_eval(c, 0.5 * (prev + roots[k]));
        if (f != 0.0) return f > 0.0 ? 1.0 : -1.0;
    }
    double t = roots[k];
    double d1 = c[1] + t * (2.0 * c[2] + 3.0 * t * c[3]); /* f'(t) */
    if (d1 != 0.0) return d1 > 0.0 ? -1.0 : 1.0;
    double d2 = 2.0 * c[2] + 6.0 * t * c[3]; /* f''(t) */
    return d2 < 0.0 ? -1.0 : 1.0;
}

static bool finite_input(const cfVec3 x[4], const cfVec3 u[4], double h)
{
    for (int k = 0; k < 4; ++k)
        if (!cfu_vec3_finite(x[k]) || !cfu_vec3_finite(u[k])) return false;
    return isfinite(h) && h >= 0.0;
}
// END SOLUTION

cfCcdResult cf_ccd_vertex_face(const cfVec3 x[4], const cfVec3 u[4], double h)
{
    //> ch03:ccd-vf
    // BEGIN SOLUTION ch03.4
    cfCcdResult r = ccd_miss(h);
    if (!finite_input(x, u, h)) return r;
    double c[4], roots[3];
    cf_ccd_cubic(x, u, c);
    int nr = cf_cubic_roots(c, 0.0, h, cubic_tol(x, u, h), roots);
    if (nr < 0) {
        /* the vertex moves in the triangle's plane: infinitely many roots */
        r.status = CF_CCD_DEGENERATE;
        r.toi = 0.0;
        return r;
    }
    for (int k = 0; k < nr; ++k) {
        double t = roots[k];
        cfVec3 p0 = at(x, u, 0, t), p1 = at(x, u, 1, t), p2 = at(x, u, 2, t), q = at(x, u, 3, t);
        /* barycentric weights of q in the triangle's plane (Ericson 3.4) */
        cfVec3 v0 = cfu_sub(p1, p0), v1 = cfu_sub(p2, p0), v2 = cfu_sub(q, p0);
        double d00 = cfu_dot(v0, v0), d01 = cfu_dot(v0, v1), d11 = cfu_dot(v1, v1);
        double d20 = cfu_dot(v2, v0), d21 = cfu_dot(v2, v1);
        double den = d00 * d11 - d01 * d01;
        if (!(den > 1e-24 * d00 * d11) || d00 == 0.0 || d11 == 0.0) {
            r.status = CF_CCD_DEGENERATE; /* the triangle has no area at this time */
            r.toi = t;
            return r;
        }
        double a = (d11 * d20 - d01 * d21) / den, b = (d00 * d21 - d01 * d20) / den;
        if (a < -CF_CCD_INSIDE_EPS || b < -CF_CCD_INSIDE_EPS || 1.0 - a - b < -CF_CCD_INSIDE_EPS) continue;
        r.status = CF_CCD_HIT;
        r.toi = t;
        r.p = q;
        r.a = a;
        r.b = b;
        r.n = cfu_scale(side_before(c, roots, k), cfu_normalize(cfu_cross(v0, v1)));
        return r;
    }
    return r;
    // END SOLUTION
    // STUB ch03.4: CF_TODO("ch03.4");
    // STUB ch03.4: return ccd_miss(h);
    //< ch03:ccd-vf
}

cfCcdResult cf_ccd_edge_edge(const cfVec3 x[4], const cfVec3 u[4], double h)
{
    //> ch03:ccd-ee
    // BEGIN SOLUTION ch03.4
    cfCcdResult r = ccd_miss(h);
    if (!finite_input(x, u, h)) return r;
    double c[4], roots[3];
    cf_ccd_cubic(x, u, c);
    int nr = cf_cubic_roots(c, 0.0, h, cubic_tol(x, u, h), roots);
    if (nr < 0) {
        r.status = CF_CCD_DEGENERATE; /* always coplanar: parallel edges or motion in a plane */
        r.toi = 0.0;
        return r;
    }
    for (int k = 0; k < nr; ++k) {
        double t = roots[k];
        cfVec3 p0 = at(x, u, 0, t), p1 = at(x, u, 1, t), q0 = at(x, u, 2, t), q1 = at(x, u, 3, t);
        cfVec3 e1 = cfu_sub(p1, p0), e2 = cfu_sub(q1, q0), w = cfu_sub(q0, p0);
        cfVec3 cr = cfu_cross(e1, e2);
        double l1 = cfu_norm(e1), l2 = cfu_norm(e2);
        if (cfu_norm(cr) <= CF_CCD_PARALLEL_EPS * l1 * l2) {
            /* parallel at this time: report it if the segments touch */
            double tol = 1e-9 * (l1 + l2);
            if (cf_segment_closest(p0, p1, q0, q1, NULL, NULL) <= tol * tol) {
                r.status = CF_CCD_DEGENERATE;
                r.toi = t;
                return r;
            }
            continue;
        }
        /* closest points of the two lines: the 2x2 normal equations (Eq. 101) */
        double m11 = cfu_dot(e1, e1), m12 = -cfu_dot(e1, e2), m22 = cfu_dot(e2, e2);
        double r1 = cfu_dot(e1, w), r2 = -cfu_dot(e2, w);
        double det = m11 * m22 - m12 * m12;
        double a = (r1 * m22 - m12 * r2) / det, b = (m11 * r2 - m12 * r1) / det;
        if (a < -CF_CCD_INSIDE_EPS || a > 1.0 + CF_CCD_INSIDE_EPS || b < -CF_CCD_INSIDE_EPS ||
            b > 1.0 + CF_CCD_INSIDE_EPS)
            continue;
        r.status = CF_CCD_HIT;
        r.toi = t;
        r.a = a;
        r.b = b;
        r.p = cfu_mul_add(p0, a, e1);
        r.n = cfu_scale(-side_before(c, roots, k), cfu_normalize(cr));
        return r;
    }
    return r;
    // END SOLUTION
    // STUB ch03.4: CF_TODO("ch03.4");
    // STUB ch03.4: return ccd_miss(h);
    //< ch03:ccd-ee
}
