/* SPDX-License-Identifier: MIT */
/* Chapter 9 tests: penalty forces against analytic physics (resting depth mg/k, rebound sqrt(eps),
   Coulomb's bound), the barrier against exact spot values, scaling laws, finite
   differences and the resting-particle table, distances against their optimality conditions
   and every derivative against finite differences, PSD projection against its eigenvalues,
   Newton against gradient descent, the CCD line search over 10^4 random trajectories (no
   crossing ever), the 100 m/s particle against a 1 mm plate (penalty tunnels, IPC does not),
   and lagged friction on an incline (sliding acceleration, creep speed).
   Run with `make test-ch9` (your code) or `make test-ch9 IMPL=solutions`. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_ch09.h"
#include "cf/cf_fdcheck.h"
#include "cf/cf_linalg.h"
#include "cf/cf_rng.h"

#define G_EARTH 9.81

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

/* largest |J - D| over the largest |D| (floor 1e-30) with D the central differences of f at x */
static double fd_rel_error(int m, int n, cfVecFn f, void *ctx, const double *x, const double *J, double step)
{
    cfDense D = {0};
    if (cf_fd_jacobian(m, n, f, ctx, x, step, &D) != CF_OK) return INFINITY;
    double err = 0.0, big = 1e-30;
    for (int k = 0; k < m * n; ++k) {
        err = fmax(err, fabs(J[k] - D.a[k]));
        big = fmax(big, fabs(D.a[k]));
    }
    cf_dense_free(&D);
    return err / big;
}

static void to_points(const double *v, cfVec3 x[4])
{
    for (int i = 0; i < 4; ++i) x[i] = cfu_vec3(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
}

/* d^2 of a pair (ctx: 1 for edge-edge) with its region recomputed at x */
static void fd_dist2(void *ctx, const double *v, double *y)
{
    cfVec3 x[4];
    to_points(v, x);
    y[0] = *(int *)ctx ? cf_dist2_edge_edge(x, NULL) : cf_dist2_point_triangle(x, NULL);
}

/* the points of the pair v (12 values) and its distance stencil (@p ee: edge-edge, else
   point-triangle) */
static void pair_at(const double *v, int ee, cfVec3 x[4], cfDistStencil *st)
{
    to_points(v, x);
    if (ee) cf_dist2_edge_edge(x, st);
    else cf_dist2_point_triangle(x, st);
}

/* the gradient of d^2 in the region of x (ctx as above) */
static void fd_dist2_grad(void *ctx, const double *v, double *y)
{
    cfVec3 x[4];
    cfDistStencil st;
    pair_at(v, *(int *)ctx, x, &st);
    cf_dist2_derivatives(x, &st, y, NULL);
}

typedef struct PairCtx {
    int ee;
    double dhat;
} PairCtx;

static void fd_pair_barrier(void *ctx, const double *v, double *y)
{
    PairCtx *c = ctx;
    cfVec3 x[4];
    cfDistStencil st;
    pair_at(v, c->ee, x, &st);
    y[0] = cf_ipc_pair_barrier(x, &st, c->dhat, NULL, NULL);
}

static void fd_pair_barrier_grad(void *ctx, const double *v, double *y)
{
    PairCtx *c = ctx;
    cfVec3 x[4];
    cfDistStencil st;
    pair_at(v, c->ee, x, &st);
    cf_ipc_pair_barrier(x, &st, c->dhat, y, NULL);
}

/* a random pair configuration of size ~1 (12 values) */
static void random_pair(cfRng *rng, double *v)
{
    for (int k = 0; k < 12; ++k) v[k] = cf_rng_range(rng, -1.0, 1.0);
}

/* the pair's region at v, and whether it stays the same under every perturbation of size eps
   along the coordinate axes (so that finite differences of the Hessian stay in one region) */
static bool region_stable(const double *v, int ee, double eps, cfDistRegion *region)
{
    cfVec3 x[4];
    cfDistStencil st;
    pair_at(v, ee, x, &st);
    *region = st.region;
    double w[12];
    for (int k = 0; k < 12; ++k)
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            memcpy(w, v, sizeof w);
            w[k] += sgn * eps;
            cfDistStencil s2;
            pair_at(w, ee, x, &s2);
            if (s2.region != st.region || fabs(s2.c[0] - st.c[0]) > 1e3 * eps) return false;
        }
    return true;
}

/* a particle of mass m at height z0 over one large fixed ground triangle (covers |x|, |y| < 50) */
static int ground_and_particle(cfIpcSystem *s, double z0, double m)
{
    int a = cf_ipc_add_node(s, cfu_vec3(-50, -50, 0), 0, true);
    int b = cf_ipc_add_node(s, cfu_vec3(150, -50, 0), 0, true);
    int c = cf_ipc_add_node(s, cfu_vec3(-50, 150, 0), 0, true);
    ck_assert_int_ge(cf_ipc_add_triangle(s, a, b, c), 0);
    int p = cf_ipc_add_node(s, cfu_vec3(0, 0, z0), m, false);
    ck_assert_int_ge(p, 0);
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* ch09.1 penalty                                                                              */

START_TEST(ch09_1_normal_force_cases)
{
    /* the worked example: 1 kg at its resting depth mg/k */
    cft_assert_near(cf_penalty_normal(1e4, 0, 1, -9.81e-4, 0), 9.81, 1e-12, 1e-12);
    /* separated or touching: nothing, whatever the velocity */
    cft_assert_near(cf_penalty_normal(1e4, 50, 1, 1e-3, -2.0), 0.0, 0, 0);
    cft_assert_near(cf_penalty_normal(1e4, 50, 1, 0.0, -2.0), 0.0, 0, 0);
    /* approaching: spring plus damper, -b vn > 0 */
    cft_assert_near(cf_penalty_normal(100, 10, 0.5, -0.01, -1.0), 11.0, 1e-12, 1e-12);
    /* receding: the softer spring eps k, the damper now pulls back */
    cft_assert_near(cf_penalty_normal(100, 1, 0.25, -0.01, 0.1), 0.25 - 0.1, 1e-12, 1e-12);
    /* a damper that would pull is clamped: a contact never pulls */
    cft_assert_near(cf_penalty_normal(100, 10, 0.25, -0.01, 0.5), 0.0, 0, 0);
    /* eps only acts while receding */
    cft_assert_near(cf_penalty_normal(100, 0, 0.25, -0.01, -0.1), 1.0, 1e-12, 1e-12);
}
END_TEST

/* a particle of mass 1 under gravity, starting at the surface of a penalty floor with velocity v0
   (symplectic Euler); returns its final velocity and position */
static double drop(double k, double b, double v0, double h, int steps, double *zend)
{
    double z = 0.0, v = v0;
    for (int i = 0; i < steps; ++i) {
        v += h * (cf_penalty_normal(k, b, 1.0, z, v) - G_EARTH);
        z += h * v;
    }
    *zend = z;
    return v;
}

START_TEST(ch09_1_resting_depth_and_rebound)
{
    /* critical damping b = 2 sqrt(k m): settles at phi* = -m g / k */
    double zend;
    double v = drop(1e4, 200, -1.0, 1e-4, 20000, &zend);
    cft_assert_near(zend, -G_EARTH / 1e4, 1e-9, 1e-6);
    cft_assert_near(v, 0.0, 1e-6, 0);
    /* restitution: eps scales the receding spring; the stored energy comes back times eps, so the
       speed ratio is sqrt(eps) (not eps; errata); no gravity inside so short a contact matters little */
    const double eps[] = {1.0, 0.25, 0.64};
    for (int e = 0; e < 3; ++e) {
        double z = 0.0, vz = -1.0, h = 1e-6, k = 1e6;
        int n = 0;
        do { /* contact phase only, no gravity: the law itself */
            vz += h * cf_penalty_normal(k, 0, eps[e], z, vz);
            z += h * vz;
            ++n;
        } while (z < 0.0 && n < 1000000);
        cft_assert_near_at(vz, sqrt(eps[e]), 0, 0.02, "eps = %g", eps[e]);
    }
}
END_TEST

START_TEST(ch09_1_friction_laws)
{
    /* regularized Coulomb: viscous below mu fn / kf, Coulomb's magnitude above, continuous */
    double kf = 100, mu = 0.5, fn = 10; /* threshold speed 0.05 */
    cft_assert_vec3_near(cf_penalty_friction(cfu_zero3(), kf, mu, fn), cfu_zero3(), 0);
    cft_assert_vec3_near(cf_penalty_friction(cfu_vec3(0.01, -0.02, 0), kf, mu, fn), cfu_vec3(-1.0, 2.0, 0), 1e-12);
    cfVec3 f = cf_penalty_friction(cfu_vec3(3, 4, 0), kf, mu, fn);
    cft_assert_vec3_near(f, cfu_vec3(-3, -4, 0), 1e-12);
    for (int i = 1; i <= 200; ++i) {
        cfVec3 vt = cfu_vec3(0.001 * i * 0.6, 0.001 * i * 0.8, 0);
        cfVec3 fi = cf_penalty_friction(vt, kf, mu, fn);
        cft_assert_at(cfu_norm(fi) <= mu * fn * (1 + 1e-12), "i = %d", i);
        cft_assert_at(cfu_dot(fi, vt) < 0.0, "i = %d: dissipates", i);
        cft_assert_near_at(cfu_norm(fi), fmin(kf * cfu_norm(vt), mu * fn), 1e-12, 1e-12, "i = %d", i);
    }
    /* anchor spring: stick while kf |a - p| <= mu fn */
    cfVec3 anchor = cfu_zero3(), out;
    ck_assert_int_eq(cf_penalty_anchor(&anchor, cfu_vec3(0.03, 0.04, 0), kf, mu, fn, &out), 0);
    cft_assert_vec3_near(anchor, cfu_zero3(), 0);
    cft_assert_vec3_near(out, cfu_vec3(-3, -4, 0), 1e-12);
    /* slip: the anchor is dragged to mu fn / kf = 0.05 behind p, the force is exactly mu fn */
    ck_assert_int_eq(cf_penalty_anchor(&anchor, cfu_vec3(0.6, 0.8, 0), kf, mu, fn, &out), 1);
    cft_assert_vec3_near(anchor, cfu_vec3(0.57, 0.76, 0), 1e-12);
    cft_assert_vec3_near(out, cfu_vec3(-3, -4, 0), 1e-12);
    /* a block pulled by F through its anchor: held when F < mu m g, dragged at mu m g otherwise */
    for (int c = 0; c < 2; ++c) {
        double F = c == 0 ? 2.0 : 7.0, x = 0.0, v = 0.0, h = 1e-4, m = 1.0, fn1 = 10.0, ff = 0.0, v1 = 0.0;
        cfVec3 a = cfu_zero3();
        int slips = 0;
        for (int i = 0; i < 20000; ++i) {
            cfVec3 fr;
            slips += cf_penalty_anchor(&a, cfu_vec3(x, 0, 0), 1e4, mu, fn1, &fr);
            ff = fr.x;
            v += h * (F + fr.x - 20.0 * v * (c == 0)) / m; /* some damping for the stick case */
            x += h * v;
            if (i == 9999) v1 = v;
        }
        if (c == 0) {
            ck_assert_int_eq(slips, 0);
            cft_assert_near(x, F / 1e4, 1e-7, 1e-3);
        } else {
            ck_assert_int_gt(slips, 1000);
            cft_assert_near(ff, -mu * fn1, 1e-9, 1e-9);
            cft_assert_near(v - v1, (F - mu * fn1) / m, 0, 1e-3); /* a = 2 m/s^2 in the second second */
        }
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch09.2 barrier                                                                              */

START_TEST(ch09_2_spot_values_and_limits)
{
    double b1, b2;
    double b = cf_ipc_barrier(5e-4, 1e-3, &b1, &b2);
    cft_assert_near(b, 1.732868e-7, 0, 1e-6);
    cft_assert_near(b1, -1.193147e-3, 0, 1e-6);
    cft_assert_near(b2, 6.386294, 0, 1e-6);
    /* clamped: zero at and beyond dhat */
    const double far[] = {1e-3, 2e-3, 1.0};
    for (int k = 0; k < 3; ++k) {
        b = cf_ipc_barrier(far[k], 1e-3, &b1, &b2);
        ck_assert(b == 0.0 && b1 == 0.0 && b2 == 0.0);
    }
    /* contact and penetration: infinite, never NaN */
    const double bad[] = {0.0, -1e-9, -1.0};
    for (int k = 0; k < 3; ++k) {
        b = cf_ipc_barrier(bad[k], 1e-3, &b1, &b2);
        cft_assert_at(isinf(b) && b > 0 && isinf(b1) && b1 < 0 && isinf(b2) && b2 > 0, "d = %g", bad[k]);
    }
    /* NULL derivatives are allowed */
    cft_assert_near(cf_ipc_barrier(5e-4, 1e-3, NULL, NULL), 1.732868e-7, 0, 1e-6);
    /* growth is only logarithmic, the force like 1/d: d b'(d) -> -dhat^2 */
    cft_assert_near(cf_ipc_barrier(1e-12, 1e-3, &b1, NULL), 2.0723e-5, 0, 1e-4);
    cft_assert_near(1e-15 * (cf_ipc_barrier(1e-15, 1e-3, &b1, NULL), b1), -1e-6, 0, 1e-9);
}
END_TEST

static void fd_barrier(void *ctx, const double *x, double *y)
{
    double dhat = *(double *)ctx, b1;
    y[0] = cf_ipc_barrier(x[0], dhat, &b1, NULL);
    y[1] = b1;
}

START_TEST(ch09_2_derivatives_and_shape)
{
    /* b' and b'' against central differences, relative 1e-6, over (0, dhat) on three scales */
    const double dhats[] = {1e-3, 1.0, 0.05};
    for (int k = 0; k < 3; ++k) {
        double dhat = dhats[k];
        for (int i = 1; i < 40; ++i) {
            double d = dhat * i / 40.0, b1, b2, x[1] = {d};
            cf_ipc_barrier(d, dhat, &b1, &b2);
            cft_assert_at(cf_ipc_barrier(d, dhat, NULL, NULL) > 0 && b1 < 0 && b2 > 0, "dhat %g, d %g: signs", dhat, d);
            cfDense D = {0};
            cft_assert_ok(cf_fd_jacobian(2, 1, fd_barrier, &dhat, x, 1e-5 * d / fmax(1.0, d), &D));
            cft_assert_near_at(b1, D.a[0], 1e-9 * dhat, 1e-6, "dhat %g, d %g: b'", dhat, d);
            cft_assert_near_at(b2, D.a[1], 1e-8, 1e-6, "dhat %g, d %g: b''", dhat, d);
            cf_dense_free(&D);
            if (i > 1) { /* monotone: b decreases as d grows */
                double prev = cf_ipc_barrier(dhat * (i - 1) / 40.0, dhat, NULL, NULL);
                cft_assert_at(cf_ipc_barrier(d, dhat, NULL, NULL) < prev, "dhat %g, d %g: monotone", dhat, d);
            }
        }
        /* C2 at dhat: b, b', b'' go to 0 from inside like (dhat - d)^3, ^2, ^1 */
        double e = 1e-6 * dhat, b1, b2, b = cf_ipc_barrier(dhat - e, dhat, &b1, &b2);
        cft_assert_at(fabs(b) < 1e-17 * dhat * dhat && fabs(b1) < 1e-11 * dhat && fabs(b2) < 1e-5,
                      "dhat %g: b %g b' %g b'' %g just inside", dhat, b, b1, b2);
    }
}
END_TEST

START_TEST(ch09_2_scaling_and_resting_table)
{
    /* b(s d, s dhat) = s^2 b(d, dhat), b'(s d, s dhat) = s b'(d, dhat), b'' unchanged */
    const double s[] = {1e-3, 0.5, 7.0, 1e3};
    for (int k = 0; k < 4; ++k)
        for (int i = 1; i < 10; ++i) {
            double d = 0.1 * i, b1, b2, c1, c2;
            double b = cf_ipc_barrier(d, 1.0, &b1, &b2), c = cf_ipc_barrier(s[k] * d, s[k], &c1, &c2);
            cft_assert_near_at(c, s[k] * s[k] * b, 0, 1e-12, "s %g, d %g", s[k], d);
            cft_assert_near_at(c1, s[k] * b1, 0, 1e-12, "s %g, d %g", s[k], d);
            cft_assert_near_at(c2, b2, 0, 1e-10, "s %g, d %g", s[k], d);
        }
    /* the README's resting particle: m = 1, g = 9.81, dhat = 1e-3 */
    const double kappa[] = {1e3, 1e4, 1e5, 1e6}, dstar[] = {1.2444e-4, 5.3589e-4, 8.3006e-4, 9.4391e-4};
    for (int k = 0; k < 4; ++k)
        cft_assert_near_at(cf_ipc_resting_distance(G_EARTH, kappa[k], 1e-3), dstar[k], 0, 1e-4, "kappa %g", kappa[k]);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch09.3 distances                                                                            */

START_TEST(ch09_3_point_triangle_regions)
{
    /* the 7 regions of the triangle (0,0,0), (1,0,0), (0,1,0) */
    const struct {
        cfVec3 p;
        double d2;
        cfDistRegion region;
        double c[4];
    } cases[] = {
        {{0.2, 0.2, 0.5}, 0.25, CF_DIST_PT_FACE, {-0.6, -0.2, -0.2, 1}},
        {{0.5, -1, 1}, 2.0, CF_DIST_PT_EDGE, {-0.5, -0.5, 0, 1}},
        {{1, 1, 0}, 0.5, CF_DIST_PT_EDGE, {0, -0.5, -0.5, 1}},
        {{-1, 0.25, 2}, 5.0, CF_DIST_PT_EDGE, {-0.75, 0, -0.25, 1}},
        {{-1, -1, 0}, 2.0, CF_DIST_PT_VERTEX, {-1, 0, 0, 1}},
        {{2, -1, 0}, 2.0, CF_DIST_PT_VERTEX, {0, -1, 0, 1}},
        {{-1, 2, -1}, 3.0, CF_DIST_PT_VERTEX, {0, 0, -1, 1}},
    };
    for (int k = 0; k < 7; ++k) {
        cfVec3 x[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, cases[k].p};
        cfDistStencil st;
        cft_assert_near_at(cf_dist2_point_triangle(x, &st), cases[k].d2, 1e-14, 0, "case %d", k);
        cft_assert_int_at(st.region, ==, cases[k].region, "case %d", k);
        for (int i = 0; i < 4; ++i) cft_assert_near_at(st.c[i], cases[k].c[i], 1e-14, 0, "case %d, c[%d]", k, i);
        cft_assert_near_at(cf_dist2_point_triangle(x, NULL), cases[k].d2, 1e-14, 0, "case %d, NULL stencil", k);
    }
    /* random pairs: the closest point is in the triangle and optimal over it (the variational
       inequality r . (x_i - p) <= 0 at each vertex certifies the minimum over the convex hull) */
    cfRng rng;
    cf_rng_seed(&rng, 91);
    int seen[CF_DIST_REGION_COUNT] = {0};
    for (int it = 0; it < 3000; ++it) {
        double v[12];
        cfVec3 x[4];
        random_pair(&rng, v);
        to_points(v, x);
        cfDistStencil st;
        double d2 = cf_dist2_point_triangle(x, &st);
        seen[st.region]++;
        double w[3] = {-st.c[0], -st.c[1], -st.c[2]};
        cft_assert_near_at(st.c[3], 1.0, 0, 0, "it %d", it);
        cft_assert_near_at(w[0] + w[1] + w[2], 1.0, 1e-12, 0, "it %d: weights sum", it);
        cft_assert_at(w[0] >= -1e-12 && w[1] >= -1e-12 && w[2] >= -1e-12, "it %d: weights %g %g %g", it, w[0], w[1], w[2]);
        cfVec3 p = cfu_add(cfu_add(cfu_scale(w[0], x[0]), cfu_scale(w[1], x[1])), cfu_scale(w[2], x[2]));
        cfVec3 r = cfu_sub(x[3], p);
        cft_assert_near_at(d2, cfu_norm2(r), 1e-12, 1e-12, "it %d", it);
        for (int i = 0; i < 3; ++i) cft_assert_at(cfu_dot(r, cfu_sub(x[i], p)) <= 1e-10, "it %d, vertex %d", it, i);
    }
    for (int r = CF_DIST_PT_FACE; r <= CF_DIST_PT_VERTEX; ++r) cft_assert_int_at(seen[r], >, 100, "region %d", r);
}
END_TEST

START_TEST(ch09_3_edge_edge_cases)
{
    cfDistStencil st;
    cfVec3 x[4] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 1}, {0, 1, 1}};
    cft_assert_near(cf_dist2_edge_edge(x, &st), 1.0, 1e-14, 0);
    ck_assert_int_eq(st.region, CF_DIST_EE_INTERIOR);
    const double c[4] = {-0.5, -0.5, 0.5, 0.5};
    for (int i = 0; i < 4; ++i) cft_assert_near_at(st.c[i], c[i], 1e-14, 0, "c[%d]", i);
    /* parallel: finite, the true distance, the same for nearly parallel edges (continuous) */
    cfVec3 p[4] = {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0}, {1.5, 1, 0}};
    cft_assert_near(cf_dist2_edge_edge(p, &st), 1.0, 1e-14, 0);
    ck_assert(st.region == CF_DIST_EE_EDGE || st.region == CF_DIST_EE_VERTEX);
    cfVec3 pn[4] = {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0}, {1.5, 1, 1e-9}};
    cft_assert_near(cf_dist2_edge_edge(pn, NULL), 1.0, 1e-8, 0);
    cfVec3 pf[4] = {{0, 0, 0}, {1, 0, 0}, {2, 1, 0}, {3, 1, 0}}; /* parallel, no overlap: endpoints */
    cft_assert_near(cf_dist2_edge_edge(pf, &st), 2.0, 1e-14, 0);
    ck_assert_int_eq(st.region, CF_DIST_EE_VERTEX);
    /* parallel edges, the stencil still as the spec's r = (point of B) - (point of A): edge A
       on y = 0, edge B on y = 1, so r = (.., 1, ..), c of A's points sums to -1 and of B's to
       +1, whichever endpoint is nearest (x0 inside B's span; x1; x2 with B inside A's span; and
       B running the other way, so that x3 lies over A: each endpoint against the other edge, not
       against a segment made of one endpoint of each, which can be nearer) */
    {
        const cfVec3 par[6][4] = {{{0, 0, 0}, {1, 0, 0}, {-0.5, 1, 0}, {0.5, 1, 0}},
                                  {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0}, {1.5, 1, 0}},
                                  {{0, 0, 0}, {1, 0, 0}, {2, 1, 0}, {3, 1, 0}},
                                  {{0, 0, 0}, {4, 0, 0}, {1, 1, 0}, {2, 1, 0}},
                                  {{0, 0, 0}, {1, 0, 0}, {2, 1, 0}, {0.5, 1, 0}},
                                  {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0}, {-1, 1, 0}}};
        const double want[6] = {1, 1, 2, 1, 1, 1};
        for (int q = 0; q < 6; ++q) {
            double d2 = cf_dist2_edge_edge(par[q], &st);
            cft_assert_near_at(d2, want[q], 1e-14, 0, "parallel pair %d", q);
            cfVec3 r = cfu_zero3();
            for (int i = 0; i < 4; ++i) r = cfu_mul_add(r, st.c[i], par[q][i]);
            cft_assert_near_at(st.c[0] + st.c[1], -1.0, 1e-14, 0, "parallel pair %d: edge A's coefficients", q);
            cft_assert_near_at(st.c[2] + st.c[3], 1.0, 1e-14, 0, "parallel pair %d: edge B's coefficients", q);
            cft_assert_near_at(r.y, 1.0, 1e-14, 0, "parallel pair %d: r from A to B", q);
            cft_assert_near_at(cfu_norm2(r), d2, 1e-14, 0, "parallel pair %d: |r|^2", q);
            /* a distance does not depend on where the origin is: each endpoint moved to it */
            for (int k = 0; k < 4; ++k) {
                cfVec3 y[4];
                for (int i = 0; i < 4; ++i) y[i] = cfu_sub(par[q][i], par[q][k]);
                cft_assert_near_at(cf_dist2_edge_edge(y, NULL), want[q], 1e-14, 0,
                                   "parallel pair %d moved so that x%d is the origin", q, k);
            }
        }
    }
    /* random pairs: symmetric, closest points on the segments and optimal */
    cfRng rng;
    cf_rng_seed(&rng, 92);
    int seen[CF_DIST_REGION_COUNT] = {0};
    for (int it = 0; it < 3000; ++it) {
        double v[12];
        random_pair(&rng, v);
        to_points(v, x);
        double d2 = cf_dist2_edge_edge(x, &st);
        seen[st.region]++;
        cfVec3 y[4] = {x[2], x[3], x[0], x[1]};
        cft_assert_near_at(cf_dist2_edge_edge(y, NULL), d2, 1e-13, 1e-12, "it %d: symmetry", it);
        double a = -st.c[1], b = st.c[3];
        cft_assert_near_at(st.c[0], -(1 - a), 1e-14, 0, "it %d", it);
        cft_assert_near_at(st.c[2], 1 - b, 1e-14, 0, "it %d", it);
        cft_assert_at(a >= 0 && a <= 1 && b >= 0 && b <= 1, "it %d: a %g b %g", it, a, b);
        cfVec3 pa = cfu_mul_add(x[0], a, cfu_sub(x[1], x[0])), pb = cfu_mul_add(x[2], b, cfu_sub(x[3], x[2]));
        cfVec3 r = cfu_sub(pb, pa);
        cft_assert_near_at(d2, cfu_norm2(r), 1e-12, 1e-12, "it %d", it);
        for (int i = 0; i < 2; ++i) {
            cft_assert_at(cfu_dot(r, cfu_sub(x[i], pa)) <= 1e-10, "it %d, endpoint %d of A", it, i);
            cft_assert_at(cfu_dot(r, cfu_sub(x[2 + i], pb)) >= -1e-10, "it %d, endpoint %d of B", it, i);
        }
    }
    for (int r = CF_DIST_EE_INTERIOR; r <= CF_DIST_EE_VERTEX; ++r) cft_assert_int_at(seen[r], >, 100, "region %d", r);
}
END_TEST

START_TEST(ch09_3_distance_derivatives)
{
    /* gradient (everywhere: d^2 is C1) and Hessian (inside a region) of d^2 against central
       differences, relative 1e-6, for every region of both kinds */
    cfRng rng;
    cf_rng_seed(&rng, 93);
    int tested[CF_DIST_REGION_COUNT] = {0};
    for (int ee = 0; ee < 2; ++ee)
        for (int it = 0; it < 600; ++it) {
            double v[12], g[12], H[144];
            cfVec3 x[4];
            cfDistStencil st;
            random_pair(&rng, v);
            cfDistRegion region;
            if (!region_stable(v, ee, 1e-4, &region)) continue;
            to_points(v, x);
            double d2 = ee ? cf_dist2_edge_edge(x, &st) : cf_dist2_point_triangle(x, &st);
            cft_assert_near_at(cf_dist2_derivatives(x, &st, g, H), d2, 1e-14, 1e-12, "ee %d it %d", ee, it);
            double eg = fd_rel_error(1, 12, fd_dist2, &ee, v, g, 1e-6);
            double eh = fd_rel_error(12, 12, fd_dist2_grad, &ee, v, H, 1e-6);
            cft_assert_at(eg < 1e-6, "ee %d it %d region %d: gradient error %g", ee, it, region, eg);
            cft_assert_at(eh < 1e-6, "ee %d it %d region %d: Hessian error %g", ee, it, region, eh);
            for (int p = 0; p < 12; ++p)
                for (int q = 0; q < p; ++q) cft_assert_near_at(H[p * 12 + q], H[q * 12 + p], 1e-12, 0, "symmetric (%d, %d)", p, q);
            tested[region]++;
        }
    for (int r = 0; r < CF_DIST_REGION_COUNT; ++r) cft_assert_int_at(tested[r], >, 20, "region %d", r);
}
END_TEST

static void fd_moll(void *ctx, const double *v, double *y)
{
    cfVec3 x[4];
    to_points(v, x);
    y[0] = cf_ee_mollifier(x, *(double *)ctx, NULL, NULL);
}

static void fd_moll_grad(void *ctx, const double *v, double *y)
{
    cfVec3 x[4];
    to_points(v, x);
    cf_ee_mollifier(x, *(double *)ctx, y, NULL);
}

START_TEST(ch09_3_ee_mollifier)
{
    /* perpendicular edges: outside the mollified zone, m = 1 and flat */
    cfVec3 x[4] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 1}, {0, 1, 1}};
    double g[12], H[144];
    ck_assert(cf_ee_mollifier(x, 1e-3 * 4 * 4, g, H) == 1.0);
    for (int p = 0; p < 12; ++p) cft_assert_near_at(g[p], 0.0, 0, 0, "p = %d", p);
    /* parallel edges: c = 0, m = 0 (the barrier of a parallel pair is switched off) */
    cfVec3 par[4] = {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0}, {1.5, 1, 0}};
    cft_assert_near(cf_ee_mollifier(par, 1e-3, NULL, NULL), 0.0, 1e-15, 0);
    /* m(c) = (2 - c/eps) c/eps: half way, 0.75; C1 at eps: m -> 1 with zero slope */
    cfVec3 y[4] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0.1, 1}}; /* |e1 x e2|^2 = 0.01 */
    cft_assert_near(cf_ee_mollifier(y, 0.02, NULL, NULL), 0.75, 1e-14, 0);
    cft_assert_near(cf_ee_mollifier(y, 0.01 * (1 + 1e-9), NULL, NULL), 1.0, 1e-12, 0);
    /* gradient and Hessian by differences inside the zone (eps_x chosen above c) */
    cfRng rng;
    cf_rng_seed(&rng, 99);
    for (int it = 0; it < 200; ++it) {
        double v[12];
        random_pair(&rng, v);
        to_points(v, x);
        double c = cfu_norm2(cfu_cross(cfu_sub(x[1], x[0]), cfu_sub(x[3], x[2])));
        double eps = c * cf_rng_range(&rng, 1.2, 4.0);
        double m = cf_ee_mollifier(x, eps, g, H);
        cft_assert_near_at(m, (2 - c / eps) * c / eps, 1e-14, 1e-12, "it %d", it);
        double eg = fd_rel_error(1, 12, fd_moll, &eps, v, g, 1e-6);
        double eh = fd_rel_error(12, 12, fd_moll_grad, &eps, v, H, 1e-6);
        cft_assert_at(eg < 1e-6 && eh < 1e-6, "it %d: gradient error %g, Hessian error %g", it, eg, eh);
    }
}
END_TEST

START_TEST(ch09_3_pair_barrier_derivatives)
{
    /* the chain rule through d = sqrt(d^2): configurations of size 1 scaled so that d lies in
       (0.2, 0.9) dhat (dhat = 1: the scaling law makes it the general case) */
    cfRng rng;
    cf_rng_seed(&rng, 94);
    int tested = 0;
    for (int ee = 0; ee < 2; ++ee)
        for (int it = 0; it < 400 && tested < 2 * 80; ++it) {
            double v[12], g[12], H[144];
            cfVec3 x[4];
            cfDistStencil st;
            random_pair(&rng, v);
            to_points(v, x);
            double d = sqrt(ee ? cf_dist2_edge_edge(x, &st) : cf_dist2_point_triangle(x, &st));
            if (!(d > 0.05)) continue;
            /* move feature B toward A along r so that d becomes target */
            double target = cf_rng_range(&rng, 0.2, 0.9), shift = d - target;
            cfVec3 r = cfu_zero3();
            for (int i = 0; i < 4; ++i) r = cfu_mul_add(r, st.c[i], x[i]);
            cfVec3 dir = cfu_scale(-shift / d, r);
            for (int i = ee ? 2 : 3; i < 4; ++i)
                for (int a = 0; a < 3; ++a) v[3 * i + a] += cfu_vec3_at(dir, a);
            cfDistRegion region;
            if (!region_stable(v, ee, 1e-4, &region)) continue;
            to_points(v, x);
            d = sqrt(ee ? cf_dist2_edge_edge(x, &st) : cf_dist2_point_triangle(x, &st));
            PairCtx c = {ee, 1.0};
            double b = cf_ipc_pair_barrier(x, &st, 1.0, g, H);
            cft_assert_near_at(b, cf_ipc_barrier(d, 1.0, NULL, NULL), 1e-14, 1e-12, "ee %d it %d", ee, it);
            double eg = fd_rel_error(1, 12, fd_pair_barrier, &c, v, g, 1e-6);
            double eh = fd_rel_error(12, 12, fd_pair_barrier_grad, &c, v, H, 1e-6);
            cft_assert_at(eg < 1e-6, "ee %d it %d region %d d %g: gradient error %g", ee, it, region, d, eg);
            cft_assert_at(eh < 1e-6, "ee %d it %d region %d d %g: Hessian error %g", ee, it, region, d, eh);
            tested++;
        }
    ck_assert_int_gt(tested, 100);
    /* outside dhat: zero; at contact: infinite */
    cfVec3 far[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.2, 0.2, 2}};
    cfDistStencil st;
    double g[12];
    cf_dist2_point_triangle(far, &st);
    ck_assert(cf_ipc_pair_barrier(far, &st, 1.0, g, NULL) == 0.0);
    for (int p = 0; p < 12; ++p) cft_assert_at(g[p] == 0.0, "p = %d", p);
    far[3].z = 0.0;
    cf_dist2_point_triangle(far, &st);
    ck_assert(isinf(cf_ipc_pair_barrier(far, &st, 1.0, NULL, NULL)));
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch09.4 PSD projection, Newton                                                               */

START_TEST(ch09_4_psd_projection)
{
    cfRng rng;
    cf_rng_seed(&rng, 95);
    for (int it = 0; it < 40; ++it) {
        int n = 2 + (int)cf_rng_below(&rng, 11);
        cfDense A = {0}, P = {0};
        cft_assert_ok(cf_dense_init(&A, n, n));
        cft_assert_ok(cf_dense_init(&P, n, n));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j <= i; ++j) *cf_dense_at(&A, i, j) = *cf_dense_at(&A, j, i) = cf_rng_range(&rng, -1, 1);
        memcpy(P.a, A.a, (size_t)n * n * sizeof *P.a);
        cft_assert_ok(cf_psd_project(n, P.a));
        double lA[13], lP[13];
        cft_assert_ok(cf_dense_sym_eig(&A, lA, NULL));
        cft_assert_ok(cf_dense_sym_eig(&P, lP, NULL));
        /* eigenvalues: the negative ones become 0, the others stay */
        double lc[13], neg2 = 0.0;
        for (int i = 0; i < n; ++i) lc[i] = fmax(lA[i], 0.0), neg2 += lA[i] < 0 ? lA[i] * lA[i] : 0.0;
        for (int i = 0; i < n; ++i) cft_assert_near_at(lP[i], lc[i], 1e-12, 0, "it %d, eigenvalue %d", it, i);
        ck_assert(cf_dense_asymmetry(&P) < 1e-13);
        /* nearest: |A - P|_F^2 is the sum of the squared negative eigenvalues */
        double dist2 = 0.0;
        for (int k = 0; k < n * n; ++k) dist2 += (A.a[k] - P.a[k]) * (A.a[k] - P.a[k]);
        cft_assert_near_at(dist2, neg2, 1e-12, 1e-10, "it %d", it);
        /* a PSD matrix comes back unchanged (idempotent) */
        memcpy(A.a, P.a, (size_t)n * n * sizeof *A.a);
        cft_assert_ok(cf_psd_project(n, P.a));
        for (int k = 0; k < n * n; ++k) cft_assert_near_at(P.a[k], A.a[k], 1e-12, 0, "it %d, entry %d", it, k);
        cf_dense_free(&A);
        cf_dense_free(&P);
    }
    double bad[4] = {1, NAN, NAN, 1};
    cft_assert_status(cf_psd_project(2, bad), CF_BAD_INPUT);
    /* 1 x 1: max(a, 0) */
    double one[1] = {-3};
    cft_assert_ok(cf_psd_project(1, one));
    ck_assert(one[0] == 0.0);
    one[0] = 2;
    cft_assert_ok(cf_psd_project(1, one));
    ck_assert(one[0] == 2.0);
}
END_TEST

/* a soft box (8 nodes, springs) just above a fixed ground box, falling */
static void soft_box_on_ground(cfIpcSystem *s, double kappa)
{
    cft_assert_ok(cf_ipc_init(s, 0.01, 1e-3, kappa));
    s->gravity = cfu_vec3(0, 0, -G_EARTH);
    ck_assert_int_ge(cf_ipc_add_box(s, cfu_vec3(-1, -1, -0.2), cfu_vec3(1, 1, 0), 1, 0, true), 0);
    ck_assert_int_ge(cf_ipc_add_box(s, cfu_vec3(-0.1, -0.12, 0.0008), cfu_vec3(0.1, 0.08, 0.2008), 1.0, 2e3, false), 0);
}

START_TEST(ch09_4_newton_beats_gradient_descent)
{
    /* one step of the soft box landing: Newton converges in a handful of iterations, gradient
       descent (Algorithm 17) does not within 10 times as many */
    int iters[2];
    double q_newton[48];
    for (int m = 0; m < 2; ++m) {
        cfIpcSystem s;
        soft_box_on_ground(&s, 1e3);
        for (int i = 8; i < 16; ++i) s.u[3 * i + 2] = -0.5;
        cfIpcOptions o = cf_ipc_options_default();
        o.direction = m == 0 ? CF_IPC_NEWTON : CF_IPC_GRADIENT;
        o.max_iter = m == 0 ? 50 : 500;
        cfIpcStats st;
        cfStatus status = cf_ipc_step(&s, &o, &st);
        iters[m] = st.iterations;
        if (m == 0) {
            cft_assert_ok(status);
            cft_assert_at(st.grad_norm <= 1e-4, "Newton: force imbalance %g N", st.grad_norm);
            cft_assert_at(st.min_dist > 0.0 && st.active > 0, "Newton: min distance %g, active %d", st.min_dist, st.active);
            memcpy(q_newton, s.q, sizeof q_newton);
        } else {
            cft_assert_at(status == CF_MAX_ITER || st.iterations > 10 * iters[0], "gradient descent: %d iterations",
                          st.iterations);
            cft_assert_at(st.min_dist > 0.0, "gradient descent: min distance %g", st.min_dist);
        }
        cf_ipc_free(&s);
    }
    cft_assert_at(iters[0] <= 30 && iters[0] * 10 < iters[1], "Newton %d iterations, gradient descent %d", iters[0], iters[1]);
    /* the limit is exact: one iteration fewer than Newton needs stops with CF_MAX_ITER after
       exactly max_iter iterations (the spec's "after opt->max_iter iterations"), not one more */
    cft_assert_at(iters[0] >= 2, "Newton converged in %d iteration(s): the landing should need several", iters[0]);
    cfIpcSystem s;
    soft_box_on_ground(&s, 1e3);
    for (int i = 8; i < 16; ++i) s.u[3 * i + 2] = -0.5;
    cfIpcOptions o = cf_ipc_options_default();
    o.max_iter = iters[0] - 1;
    cfIpcStats st;
    cft_assert_status(cf_ipc_step(&s, &o, &st), CF_MAX_ITER);
    cft_assert_at(st.iterations == o.max_iter, "max_iter %d: %d iterations", o.max_iter, st.iterations);
    cf_ipc_free(&s);
}
END_TEST

START_TEST(ch09_4_resting_particle_table)
{
    /* the README's resting particle, simulated: it settles where kappa (-b'(d*)) = m g */
    const double kappa[] = {1e3, 1e4, 1e5, 1e6}, dstar[] = {1.2444e-4, 5.3589e-4, 8.3006e-4, 9.4391e-4};
    for (int k = 0; k < 4; ++k) {
        cfIpcSystem s;
        cft_assert_ok_at(cf_ipc_init(&s, 0.01, 1e-3, kappa[k]), "k = %d", k);
        s.gravity = cfu_vec3(0, 0, -G_EARTH);
        int p = ground_and_particle(&s, 1.5e-3, 1.0);
        cfIpcStats st;
        for (int i = 0; i < 150; ++i) {
            cft_assert_ok_at(cf_ipc_step(&s, NULL, &st), "kappa %g, step %d", kappa[k], i);
            cft_assert_at(st.min_dist > 0.0, "kappa %g, step %d: distance %g", kappa[k], i, st.min_dist);
        }
        cft_assert_near_at(s.q[3 * p + 2], dstar[k], 0, 2e-4, "kappa %g", kappa[k]);
        cft_assert_near_at(s.u[3 * p + 2], 0.0, 1e-6, 0, "kappa %g", kappa[k]);
        cf_ipc_free(&s);
    }
}
END_TEST

START_TEST(ch09_4_projected_newton_descends)
{
    /* a pair whose barrier Hessian is indefinite: with projection the Newton direction descends */
    cfRng rng;
    cf_rng_seed(&rng, 96);
    int indefinite = 0;
    for (int it = 0; it < 200; ++it) {
        double v[12], H[144], g[12], l[12];
        cfVec3 x[4];
        cfDistStencil st;
        random_pair(&rng, v);
        to_points(v, x);
        int ee = it & 1;
        double d = sqrt(ee ? cf_dist2_edge_edge(x, &st) : cf_dist2_point_triangle(x, &st));
        double dhat = 1.5 * d;
        cf_ipc_pair_barrier(x, &st, dhat, g, H);
        cfDense M = {12, 12, H};
        cft_assert_ok(cf_dense_sym_eig(&M, l, NULL));
        indefinite += l[0] < -1e-9 * fabs(l[11]);
        cft_assert_ok(cf_psd_project(12, H));
        for (int p = 0; p < 12; ++p) H[p * 13] += 1.0; /* plus a mass: PD */
        cfDense L = {0};
        cft_assert_ok(cf_dense_cholesky(&M, &L));
        double dq[12];
        cf_dense_cholesky_solve(&L, g, dq);
        cf_dense_free(&L);
        cft_assert_at(cf_vec_dot(12, dq, g) > 0.0, "it %d: -H^-1 g is a descent direction", it);
    }
    ck_assert_int_gt(indefinite, 50);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch09.5 CCD line search                                                                      */

START_TEST(ch09_5_ccd_step_cases)
{
    cfIpcSystem s;
    cft_assert_ok(cf_ipc_init(&s, 0.01, 1e-3, 1.0));
    int a = cf_ipc_add_node(&s, cfu_vec3(0, 0, 0), 1, false), b = cf_ipc_add_node(&s, cfu_vec3(1, 0, 0), 1, false);
    int c = cf_ipc_add_node(&s, cfu_vec3(0, 1, 0), 1, false), p = cf_ipc_add_node(&s, cfu_vec3(0.2, 0.2, 1), 1, false);
    ck_assert_int_ge(cf_ipc_add_triangle(&s, a, b, c), 0);
    double q[12], dq[12] = {0};
    memcpy(q, s.q, sizeof q);
    dq[3 * p + 2] = -2.0; /* hits at t = 0.5 */
    cft_assert_near(cf_ipc_ccd_step(&s, q, dq, 0.8), 0.4, 1e-12, 0);
    cft_assert_near(cf_ipc_ccd_step(&s, q, dq, 0.5), 0.25, 1e-12, 0);
    dq[3 * p + 2] = 2.0; /* moving away */
    ck_assert(cf_ipc_ccd_step(&s, q, dq, 0.8) == 1.0);
    dq[3 * p + 2] = -0.5; /* stops short */
    ck_assert(cf_ipc_ccd_step(&s, q, dq, 0.8) == 1.0);
    dq[3 * p + 2] = -2.0;
    dq[3 * p] = 5.0; /* passes beside the triangle: its plane is crossed outside it */
    ck_assert(cf_ipc_ccd_step(&s, q, dq, 0.8) == 1.0);
    /* the triangle comes up to meet the point: relative motion counts */
    memset(dq, 0, sizeof dq);
    dq[3 * a + 2] = dq[3 * b + 2] = dq[3 * c + 2] = 4.0;
    cft_assert_near(cf_ipc_ccd_step(&s, q, dq, 0.8), 0.2, 1e-12, 0);
    cf_ipc_free(&s);
    /* edge-edge: (-1,0,0)-(1,0,0) and (0,-1,1)-(0,1,1) moving (0,0,-2): toi 0.5 */
    cft_assert_ok(cf_ipc_init(&s, 0.01, 1e-3, 1.0));
    int e0 = cf_ipc_add_node(&s, cfu_vec3(-1, 0, 0), 1, false), e1 = cf_ipc_add_node(&s, cfu_vec3(1, 0, 0), 1, false);
    int f0 = cf_ipc_add_node(&s, cfu_vec3(0, -1, 1), 1, false), f1 = cf_ipc_add_node(&s, cfu_vec3(0, 1, 1), 1, false);
    ck_assert_int_ge(cf_ipc_add_edge(&s, e0, e1), 0);
    ck_assert_int_ge(cf_ipc_add_edge(&s, f0, f1), 0);
    memcpy(q, s.q, sizeof q);
    memset(dq, 0, sizeof dq);
    dq[3 * f0 + 2] = dq[3 * f1 + 2] = -2.0;
    cft_assert_near(cf_ipc_ccd_step(&s, q, dq, 0.8), 0.4, 1e-12, 0);
    cf_ipc_free(&s);
}
END_TEST

/* the signed volume of a pair: zero exactly when its four points are coplanar */
static double signed_volume(const double *q)
{
    cfVec3 x[4];
    to_points(q, x);
    return cfu_dot(cfu_cross(cfu_sub(x[1], x[0]), cfu_sub(x[2], x[0])), cfu_sub(x[3], x[0]));
}

/* when the four points are coplanar: do the features intersect? (independent of ch09.3) */
static bool features_touch(const double *q, int ee)
{
    cfVec3 x[4];
    to_points(q, x);
    if (!ee) { /* barycentric coordinates of x3 in the triangle's plane */
        cfVec3 e0 = cfu_sub(x[1], x[0]), e1 = cfu_sub(x[2], x[0]), w = cfu_sub(x[3], x[0]);
        double a = cfu_dot(e0, e0), b = cfu_dot(e0, e1), c = cfu_dot(e1, e1), d = cfu_dot(e0, w), e = cfu_dot(e1, w);
        double det = a * c - b * b, u = (c * d - b * e) / det, v = (a * e - b * d) / det;
        return u >= -1e-9 && v >= -1e-9 && u + v <= 1 + 1e-9;
    }
    cfVec3 e1 = cfu_sub(x[1], x[0]), e2 = cfu_sub(x[3], x[2]), w = cfu_sub(x[2], x[0]); /* x0 + a e1 = x2 + b e2 */
    double a11 = cfu_dot(e1, e1), a12 = -cfu_dot(e1, e2), a22 = cfu_dot(e2, e2);
    double r1 = cfu_dot(e1, w), r2 = -cfu_dot(e2, w), det = a11 * a22 - a12 * a12;
    double a = (r1 * a22 - a12 * r2) / det, b = (a11 * r2 - a12 * r1) / det;
    return a >= -1e-9 && a <= 1 + 1e-9 && b >= -1e-9 && b <= 1 + 1e-9;
}

START_TEST(ch09_5_never_penetrates)
{
    /* 10^4 random point-triangle and edge-edge trajectories, each a line search of the pair's
       incremental potential whose target q~ = q + dq lies across the other feature as often as
       not; along q + s alpha dq, s in [0, 1], the pair never becomes coplanar while touching */
    cfRng rng;
    cf_rng_seed(&rng, 97);
    cfIpcOptions o = cf_ipc_options_default();
    int crossings_wanted = 0, clamps = 0;
    for (int it = 0; it < 10000; ++it) {
        int ee = it & 1;
        cfIpcSystem s;
        cft_assert_ok(cf_ipc_init(&s, 0.1, 0.05, 1.0));
        for (int i = 0; i < 4; ++i) ck_assert_int_ge(cf_ipc_add_node(&s, cf_rng_vec3(&rng, -1, 1), 1.0, false), 0);
        if (ee) {
            ck_assert_int_ge(cf_ipc_add_edge(&s, 0, 1), 0);
            ck_assert_int_ge(cf_ipc_add_edge(&s, 2, 3), 0);
        } else {
            ck_assert_int_ge(cf_ipc_add_triangle(&s, 0, 1, 2), 0);
        }
        if (!(cf_ipc_min_distance(&s, s.q, NULL) > 1e-3)) {
            cf_ipc_free(&s);
            continue;
        }
        double dq[12], qn[12], q[12];
        memcpy(q, s.q, sizeof q);
        for (int p = 0; p < 12; ++p) dq[p] = cf_rng_range(&rng, -2, 2);
        for (int p = 0; p < 12; ++p) s.q_tilde[p] = q[p] + dq[p];
        double vol0 = signed_volume(q), qe[12];
        for (int p = 0; p < 12; ++p) qe[p] = q[p] + dq[p];
        crossings_wanted += signed_volume(qe) * vol0 < 0.0;
        double f0 = cf_ipc_energy(&s, q, NULL, NULL, false);
        bool clamped = false;
        int halvings = 0;
        double alpha = cf_ipc_line_search(&s, q, dq, f0, &o, qn, &halvings, &clamped);
        clamps += clamped;
        cft_assert_at(alpha >= 0.0 && alpha <= 1.0 && halvings <= o.max_halvings, "it %d: alpha %g", it, alpha);
        for (int p = 0; p < 12; ++p) cft_assert_near_at(qn[p], q[p] + alpha * dq[p], 1e-15, 1e-15, "it %d", it);
        double f1 = cf_ipc_energy(&s, qn, NULL, NULL, false);
        cft_assert_at(alpha == 0.0 || f1 < f0, "it %d: f %g -> %g", it, f0, f1);
        /* no crossing along the accepted segment: sign changes of the volume, bisected */
        double prev = vol0, t_prev = 0.0;
        for (int k = 1; k <= 256; ++k) {
            double t = alpha * k / 256.0, qt[12];
            for (int p = 0; p < 12; ++p) qt[p] = q[p] + t * dq[p];
            double vol = signed_volume(qt);
            if (vol * prev <= 0.0) {
                double lo = t_prev, hi = t;
                for (int b = 0; b < 60; ++b) {
                    double mid = 0.5 * (lo + hi), qm[12];
                    for (int p = 0; p < 12; ++p) qm[p] = q[p] + mid * dq[p];
                    if (signed_volume(qm) * prev > 0.0) lo = mid;
                    else hi = mid;
                }
                for (int p = 0; p < 12; ++p) qt[p] = q[p] + hi * dq[p];
                cft_assert_at(!features_touch(qt, ee), "it %d (%s): the features meet at t = %.17g (alpha %g)", it,
                              ee ? "edge-edge" : "point-triangle", hi, alpha);
            }
            prev = vol, t_prev = t;
        }
        cf_ipc_free(&s);
    }
    cft_assert_at(crossings_wanted > 1000 && clamps > 500, "crossings asked for %d, CCD clamps %d", crossings_wanted, clamps);
}
END_TEST

START_TEST(ch09_5_tunnelling_penalty_and_ipc)
{
    /* a particle at 100 m/s toward a 1 mm plate (faces z = +-0.5 mm), h = 0.01: one step is 1 m */
    const double h = 0.01, v0 = -100.0, z0 = 0.5;
    /* penalty (k = 1e6, symplectic Euler): it never sees a penetration and goes through */
    double z = z0, v = v0;
    for (int i = 0; i < 10; ++i) {
        double depth = fmin(5e-4 - z, z + 5e-4); /* > 0 inside the slab; pushed out of the nearer face */
        double f = depth > 0.0 ? (z >= 0.0 ? 1.0 : -1.0) * cf_penalty_normal(1e6, 0, 1, -depth, z >= 0.0 ? v : -v) : 0.0;
        v += h * (f - G_EARTH);
        z += h * v;
    }
    cft_assert_at(z < -1.0, "penalty: the particle ends at z = %g (tunnelled)", z);
    /* IPC: the CCD line search stops it on the plate */
    cfIpcSystem s;
    cft_assert_ok(cf_ipc_init(&s, h, 1e-3, 1e6));
    s.gravity = cfu_vec3(0, 0, -G_EARTH);
    for (int f = 0; f < 2; ++f) {
        double zf = f ? -5e-4 : 5e-4;
        int a = cf_ipc_add_node(&s, cfu_vec3(-1, -1, zf), 0, true), b = cf_ipc_add_node(&s, cfu_vec3(1, -1, zf), 0, true);
        int c = cf_ipc_add_node(&s, cfu_vec3(1, 1, zf), 0, true), d = cf_ipc_add_node(&s, cfu_vec3(-1, 1, zf), 0, true);
        ck_assert(cf_ipc_add_triangle(&s, a, b, c) >= 0 && cf_ipc_add_triangle(&s, a, c, d) >= 0);
    }
    int p = cf_ipc_add_node(&s, cfu_vec3(0.1, 0.3, z0), 1.0, false);
    s.u[3 * p + 2] = v0;
    cfIpcStats st;
    int clamps = 0;
    for (int i = 0; i < 10; ++i) {
        cfStatus status = cf_ipc_step(&s, NULL, &st);
        /* stagnated: the line search met the rounding floor of f, the state is the minimizer */
        cft_assert_at(status == CF_OK || status == CF_STAGNATED, "IPC step %d: %s", i, cf_status_name(status));
        clamps += st.ccd_clamps;
        cft_assert_at(s.q[3 * p + 2] > 5e-4 && st.min_dist > 0.0, "IPC step %d: z = %g, distance %g", i, s.q[3 * p + 2],
                      st.min_dist);
    }
    ck_assert_int_gt(clamps, 0);
    /* at the minimizer every direction climbs: the line search gives up after max_halvings, alpha 0 */
    double g[27] = {0}, qn[27];
    g[3 * p + 2] = 1.0;
    double f0 = cf_ipc_energy(&s, s.q, NULL, NULL, false);
    cfIpcOptions o = cf_ipc_options_default();
    o.max_halvings = 7;
    int halvings;
    ck_assert(cf_ipc_line_search(&s, s.q, g, f0, &o, qn, &halvings, NULL) == 0.0);
    ck_assert_int_eq(halvings, 7);
    for (int k = 0; k < 27; ++k) cft_assert_at(qn[k] == s.q[k], "k = %d", k);
    cf_ipc_free(&s);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch09.6 friction                                                                             */

static void fd_f0(void *ctx, const double *x, double *y)
{
    double a = *(double *)ctx, f0, df1;
    y[1] = cf_friction_f1(x[0], a, &df1, &f0);
    y[0] = f0;
}

START_TEST(ch09_6_mollifier)
{
    double a = 1e-5, df1, f0; /* eps_v = 1e-3, h = 0.01 */
    ck_assert(cf_friction_f1(0.0, a, &df1, &f0) == 0.0);
    cft_assert_near(df1, 2.0 / a, 0, 1e-14);
    cft_assert_near(f0, a / 3.0, 0, 1e-14);
    cft_assert_near(cf_friction_f1(0.5e-5, a, NULL, NULL), 0.75, 0, 1e-14);
    cft_assert_near(cf_friction_f1(a, a, &df1, &f0), 1.0, 0, 1e-14);
    cft_assert_near(df1, 0.0, 1e-9, 0);
    cft_assert_near(f0, a, 0, 1e-14);
    ck_assert(cf_friction_f1(3 * a, a, &df1, &f0) == 1.0 && df1 == 0.0);
    cft_assert_near(f0, 3 * a, 0, 1e-14);
    /* f1(s)/s -> 2/a; C1 join of f0 at a; f0' = f1 and f1' by differences */
    cft_assert_near(cf_friction_f1(1e-12, a, NULL, NULL) / 1e-12, 2.0 / a, 0, 1e-6);
    double below, above;
    cf_friction_f1(a * (1 - 1e-9), a, NULL, &below);
    cf_friction_f1(a * (1 + 1e-9), a, NULL, &above);
    cft_assert_near(above - below, 2e-9 * a, 1e-20, 1e-5);
    for (int i = 1; i < 30; ++i) {
        double s = a * i / 15.0, x[1] = {s}, f1 = cf_friction_f1(s, a, &df1, NULL);
        if (i == 15) continue;
        cfDense D = {0};
        cft_assert_ok(cf_fd_jacobian(2, 1, fd_f0, &a, x, 1e-4 * a, &D));
        cft_assert_near_at(D.a[0], f1, 1e-9, 1e-7, "s = %g: f0' = f1", s);
        cft_assert_near_at(D.a[1], df1, 1e-9 / a, 1e-7, "s = %g: f1'", s);
        cf_dense_free(&D);
        cft_assert_at(f1 >= 0 && f1 <= 1 && df1 >= 0, "s = %g", s);
    }
}
END_TEST

typedef struct FricCtx {
    cfIpcFrictionPair p;
    double mu, a;
} FricCtx;

static void fd_fric(void *ctx, const double *dx, double *y)
{
    FricCtx *c = ctx;
    y[0] = cf_ipc_pair_friction(&c->p, dx, c->mu, c->a, NULL, NULL);
}

static void fd_fric_grad(void *ctx, const double *dx, double *y)
{
    FricCtx *c = ctx;
    cf_ipc_pair_friction(&c->p, dx, c->mu, c->a, y, NULL);
}

START_TEST(ch09_6_pair_friction_derivatives)
{
    cfRng rng;
    cf_rng_seed(&rng, 98);
    for (int it = 0; it < 200; ++it) {
        FricCtx c = {.mu = cf_rng_range(&rng, 0.1, 1.0), .a = 1e-2};
        c.p.N = cf_rng_range(&rng, 0.5, 20);
        double u = cf_rng_uniform(&rng), v = cf_rng_uniform(&rng) * (1 - u);
        c.p.c[0] = -(1 - u - v), c.p.c[1] = -u, c.p.c[2] = -v, c.p.c[3] = 1;
        cfVec3 n = cf_rng_unit_vec3(&rng), t = cfu_normalize(cfu_cross(n, cf_rng_unit_vec3(&rng)));
        c.p.t1 = t;
        c.p.t2 = cfu_cross(n, t);
        double dx[12], g[12], H[144], l[12];
        double scale = it % 2 ? 0.3 * c.a : 5 * c.a; /* inside the static zone or sliding */
        for (int p = 0; p < 12; ++p) dx[p] = cf_rng_range(&rng, -scale, scale);
        double D = cf_ipc_pair_friction(&c.p, dx, c.mu, c.a, g, H);
        cfVec3 w = cfu_zero3();
        for (int i = 0; i < 4; ++i) w = cfu_mul_add(w, c.p.c[i], cfu_vec3(dx[3 * i], dx[3 * i + 1], dx[3 * i + 2]));
        double s = hypot(cfu_dot(w, c.p.t1), cfu_dot(w, c.p.t2)), f0;
        double f1 = cf_friction_f1(s, c.a, NULL, &f0);
        cft_assert_near_at(D, c.mu * c.p.N * f0, 1e-15, 1e-12, "it %d", it);
        /* the force on the point (node 3): magnitude mu N f1(s), tangential, against the slip */
        cfVec3 f3 = cfu_vec3(-g[9], -g[10], -g[11]);
        cft_assert_near_at(cfu_norm(f3), c.mu * c.p.N * f1, 1e-12, 1e-9, "it %d", it);
        cft_assert_near_at(cfu_dot(f3, n), 0.0, 1e-10, 0, "it %d: tangential", it);
        cft_assert_at(cfu_dot(f3, w) <= 0.0, "it %d: against the slip", it);
        double eg = fd_rel_error(1, 12, fd_fric, &c, dx, g, 1e-9);
        double eh = fd_rel_error(12, 12, fd_fric_grad, &c, dx, H, 1e-9);
        cft_assert_at(eg < 1e-5 && eh < 1e-5, "it %d (s/a = %g): gradient error %g, Hessian error %g", it, s / c.a, eg, eh);
        cfDense M = {12, 12, H};
        cft_assert_ok(cf_dense_sym_eig(&M, l, NULL));
        cft_assert_at(l[0] >= -1e-9 * fabs(l[11]), "it %d: PSD, smallest eigenvalue %g", it, l[0]);
    }
    /* at zero slip: no force, the stiffness 2 mu N / a across the tangent plane */
    FricCtx c = {.mu = 0.5, .a = 1e-3};
    c.p.N = 2.0;
    c.p.c[3] = 1.0;
    c.p.t1 = cfu_vec3(1, 0, 0), c.p.t2 = cfu_vec3(0, 1, 0);
    double dx[12] = {0}, g[12], H[144];
    cft_assert_near(cf_ipc_pair_friction(&c.p, dx, c.mu, c.a, g, H), 0.5 * 2.0 * 1e-3 / 3.0, 0, 1e-12);
    for (int p = 0; p < 12; ++p) cft_assert_at(g[p] == 0.0, "p = %d", p);
    cft_assert_near(H[9 * 12 + 9], 2.0 * 0.5 * 2.0 / 1e-3, 0, 1e-12);
    cft_assert_near(H[11 * 12 + 11], 0.0, 1e-12, 0);
}
END_TEST

/* a particle on the ground under gravity tilted by theta (the incline's frame): its speed along
   the slope after @p steps with lagged friction */
static double incline_speed(double theta, double mu, double eps_v, int steps, double *v_half)
{
    cfIpcSystem s;
    cft_assert_ok(cf_ipc_init(&s, 0.01, 1e-3, 1e4));
    s.gravity = cfu_vec3(G_EARTH * sin(theta), 0, -G_EARTH * cos(theta));
    s.mu = mu;
    s.eps_v = eps_v;
    int p = ground_and_particle(&s, 5.3e-4, 1.0);
    cfIpcStats st;
    for (int i = 0; i < steps; ++i) {
        cfStatus status = cf_ipc_step(&s, NULL, &st);
        cft_assert_at(status == CF_OK, "step %d: %s", i, cf_status_name(status));
        cft_assert_at(st.min_dist > 0.0, "step %d: distance %g", i, st.min_dist);
        if (i == steps / 2 - 1) *v_half = s.u[3 * p];
    }
    double v = s.u[3 * p];
    cf_ipc_free(&s);
    return v;
}

/* a particle sliding on the ground at v0 with friction mu: where it stops (lagged IPC friction) */
static double stopping_distance(double v0, double mu, double h, double eps_v, double *t_stop)
{
    cfIpcSystem s;
    cft_assert_ok(cf_ipc_init(&s, h, 1e-3, 1e4));
    s.gravity = cfu_vec3(0, 0, -G_EARTH);
    s.mu = mu;
    s.eps_v = eps_v;
    int p = ground_and_particle(&s, 5.3e-4, 1.0);
    s.u[3 * p] = v0;
    double x0 = s.q[3 * p];
    int n = (int)lround(2.0 * v0 / (mu * G_EARTH) / h); /* twice the stopping time */
    *t_stop = -1.0;
    for (int i = 0; i < n; ++i) {
        cft_assert_ok_at(cf_ipc_step(&s, NULL, NULL), "h %g, step %d", h, i);
        if (*t_stop < 0 && s.u[3 * p] < eps_v) *t_stop = (i + 1) * h;
    }
    cft_assert_at(fabs(s.u[3 * p]) < 1e-3 * eps_v, "h %g: still moving at %g m/s", h, s.u[3 * p]);
    double d = s.q[3 * p] - x0;
    cf_ipc_free(&s);
    return d;
}

START_TEST(ch09_6_stopping_distance)
{
    /* v0 = 1 m/s, mu = 0.5: v0^2 / (2 mu g) = 0.10194 m, within O(h v0) + O(eps_v t); two steps agree */
    const double v0 = 1.0, mu = 0.5, eps_v = 1e-3, want = v0 * v0 / (2 * mu * G_EARTH);
    const double hs[] = {0.01, 0.005};
    double d[2], t;
    for (int k = 0; k < 2; ++k) {
        d[k] = stopping_distance(v0, mu, hs[k], eps_v, &t);
        cft_assert_near_at(d[k], want, hs[k] * v0 + eps_v * t, 0, "h = %g", hs[k]);
        cft_assert_near_at(t, v0 / (mu * G_EARTH), 2 * hs[k], 0, "h = %g: stopping time", hs[k]);
    }
    cft_assert_near(d[1], d[0], 0.01 * v0, 0);
}
END_TEST

START_TEST(ch09_6_incline_slide_and_creep)
{
    /* tan 30 deg > 0.5: slides with a = g (sin - mu cos) = 0.6571 m/s^2 */
    double th = 30.0 * CF_PI / 180.0, vh;
    double v = incline_speed(th, 0.5, 1e-3, 200, &vh);
    cft_assert_near((v - vh) / 1.0, G_EARTH * (sin(th) - 0.5 * cos(th)), 0, 0.01);
    cft_assert_near(G_EARTH * (sin(th) - 0.5 * cos(th)), 0.6571, 1e-4, 0);
    /* tan 30 deg < 0.8: lagged IPC friction creeps at eps_v (1 - sqrt(1 - tan/mu)) = 0.4724 eps_v */
    const double eps[] = {1e-3, 1e-4};
    for (int k = 0; k < 2; ++k) {
        double creep = incline_speed(th, 0.8, eps[k], 200, &vh);
        cft_assert_near_at(creep, eps[k] * (1.0 - sqrt(1.0 - tan(th) / 0.8)), 0, 0.05, "eps_v = %g", eps[k]);
        cft_assert_near_at(creep, vh, 0, 0.01, "eps_v = %g: steady", eps[k]);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch09.7 paper 003: implicit frictional dynamics with soft constraints                        */

START_TEST(ch09_7_penalty_and_bump)
{
    double db, d2b;
    /* worked example: kappa 2, delta 0.1, d = 0 */
    cft_assert_near(cf_cubic_penalty(0.0, 0.1, 2.0, &db, &d2b), 2.0 * 0.01, 0, 1e-14);
    cft_assert_near(db, -0.6, 0, 1e-14);
    cft_assert_near(d2b, 12.0, 0, 1e-14);
    /* zero at and beyond delta */
    const double delta = 1e-3, kappa = 1e4;
    for (int k = 0; k < 8; ++k) {
        double d = delta * (1.0 + 0.25 * k);
        cft_assert_near_at(cf_cubic_penalty(d, delta, kappa, &db, &d2b), 0.0, 0, 0, "d = %g", d);
        cft_assert_at(db == 0.0 && d2b == 0.0, "d = %g: b' = %g, b'' = %g", d, db, d2b);
    }
    /* b' and b'' by central differences, inside, at 0 and penetrating (finite there); lambda = -b' > 0 */
    const double ds[] = {0.9e-3, 0.5e-3, 1e-4, 0.0, -2e-4, -1e-3};
    for (int k = 0; k < 6; ++k) {
        double d = ds[k], step = 1e-8, dbp, dbm, d2;
        double bp = cf_cubic_penalty(d + step, delta, kappa, &dbp, NULL);
        double bm = cf_cubic_penalty(d - step, delta, kappa, &dbm, NULL);
        double b = cf_cubic_penalty(d, delta, kappa, &db, &d2);
        cft_assert_at(b > 0.0 && -db > 0.0 && d2 > 0.0, "d = %g: b = %g, b' = %g, b'' = %g", d, b, db, d2);
        cft_assert_near_at(db, (bp - bm) / (2 * step), 0, 1e-7, "d = %g: b'", d);
        cft_assert_near_at(d2, (dbp - dbm) / (2 * step), 0, 1e-7, "d = %g: b''", d);
    }
    /* the C2 join: b, b', b'' tend to 0 at delta from below */
    double b = cf_cubic_penalty(delta * (1 - 1e-6), delta, kappa, &db, &d2b);
    cft_assert_at(b < 1e-16 && fabs(db) < 1e-7 && fabs(d2b) < 1e-1, "b = %g, b' = %g, b'' = %g below delta", b, db, d2b);
    /* the bump: 16 at -delta, 1 without penetration; the bumped kappa gives at delta/2 the old force at d_min */
    cft_assert_near(cf_implicit_bump(-delta, delta), 16.0, 0, 1e-14);
    cft_assert_near(cf_implicit_bump(0.0, delta), 1.0, 0, 0);
    cft_assert_near(cf_implicit_bump(0.5 * delta, delta), 1.0, 0, 0);
    const double dmins[] = {-1e-6, -3e-4, -2.5e-3};
    for (int k = 0; k < 3; ++k) {
        double f = cf_implicit_bump(dmins[k], delta), old, bumped;
        cf_cubic_penalty(dmins[k], delta, kappa, &old, NULL);
        cf_cubic_penalty(0.5 * delta, delta, kappa * f, &bumped, NULL);
        cft_assert_at(f > 4.0, "d_min = %g: factor %g", dmins[k], f);
        cft_assert_near_at(bumped, old, 0, 1e-12, "d_min = %g", dmins[k]);
    }
}
END_TEST

START_TEST(ch09_7_slide_profiles)
{
    const double eps = 1e-3;
    for (int p = 0; p < CF_SLIDE_PROFILE_COUNT; ++p) {
        double ds;
        cft_assert_near_at(cf_slide_profile(p, 0.0, eps, &ds), 0.0, 0, 0, "profile %d", p);
        cft_assert_near_at(ds, p == CF_SLIDE_QUADRATIC ? 2.0 / eps : 1.0 / eps, 0, 1e-14, "profile %d: s'(0)", p);
        double prev = 0.0;
        for (int k = 1; k <= 400; ++k) { /* monotone in [0, 1]; s' by differences */
            double x = k * 5e-3 * eps, step = 1e-9 * eps;
            double s = cf_slide_profile(p, x, eps, &ds);
            cft_assert_at(s >= prev && s <= 1.0, "profile %d, x = %g: s = %g after %g", p, x, s, prev);
            prev = s;
            if (fabs(x - eps) < 2 * step) continue; /* s_a's kink of s' at eps */
            double fd = (cf_slide_profile(p, x + step, eps, NULL) - cf_slide_profile(p, x - step, eps, NULL)) / (2 * step);
            cft_assert_near_at(ds, fd, 1e-6 / eps, 1e-6, "profile %d, x = %g: s'", p, x);
        }
    }
    /* s_a: 1 at eps, C1 there (s' -> 0 from below), 1 beyond; s_b = x/(x + eps) */
    double ds;
    cft_assert_near(cf_slide_profile(CF_SLIDE_QUADRATIC, eps, eps, NULL), 1.0, 0, 1e-15);
    cf_slide_profile(CF_SLIDE_QUADRATIC, eps * (1 - 1e-9), eps, &ds);
    cft_assert_near(ds * eps, 0.0, 1e-8, 0);
    cft_assert_near(cf_slide_profile(CF_SLIDE_QUADRATIC, 3 * eps, eps, &ds), 1.0, 0, 0);
    cft_assert_near(ds, 0.0, 0, 0);
    cft_assert_near(cf_slide_profile(CF_SLIDE_QUADRATIC, 0.25 * eps, eps, NULL), 0.4375, 0, 1e-14);
    cft_assert_near(cf_slide_profile(CF_SLIDE_RATIONAL, 3 * eps, eps, NULL), 0.75, 0, 1e-14);
    /* creep speeds s(x) = r = tan(theta)/mu: the README's example theta = 10 deg, mu = 0.2 */
    double r = tan(10.0 * CF_PI / 180.0) / 0.2;
    cft_assert_near(r, 0.88163, 1e-5, 0);
    const double want[2] = {0.65596, 7.4484};
    for (int p = 0; p < CF_SLIDE_PROFILE_COUNT; ++p) {
        double lo = 0.0, hi = 100 * eps;
        for (int it = 0; it < 200; ++it) {
            double mid = 0.5 * (lo + hi);
            if (cf_slide_profile(p, mid, eps, NULL) < r) lo = mid;
            else hi = mid;
        }
        cft_assert_near_at(lo / eps, want[p], 1e-4, 0, "profile %d", p);
    }
}
END_TEST

START_TEST(ch09_7_dual_numbers)
{
    /* each operation's derivative part against its analytic derivative */
    cfRng rng;
    cf_rng_seed(&rng, 97);
    for (int it = 0; it < 100; ++it) {
        double a = cf_rng_range(&rng, 0.1, 3.0), b = cf_rng_range(&rng, -2.0, 2.0), da = cf_rng_range(&rng, -1, 1),
               db = cf_rng_range(&rng, -1, 1), p = cf_rng_range(&rng, -2.5, 2.5);
        if (fabs(b) < 0.1) b = 0.5;
        cfDual A = {a, da}, B = {b, db};
        cfDual m = cf_dual_mul(A, B), q = cf_dual_div(A, B), s = cf_dual_sqrt(A), l = cf_dual_log(A),
               w = cf_dual_pow(A, p);
        cft_assert_near_at(m.re, a * b, 0, 1e-15, "it %d", it);
        cft_assert_near_at(m.du, da * b + a * db, 1e-15, 1e-13, "it %d: mul", it);
        cft_assert_near_at(q.re, a / b, 0, 1e-15, "it %d", it);
        cft_assert_near_at(q.du, (da * b - a * db) / (b * b), 1e-15, 1e-13, "it %d: div", it);
        cft_assert_near_at(s.re, sqrt(a), 0, 1e-15, "it %d", it);
        cft_assert_near_at(s.du, da / (2 * sqrt(a)), 1e-15, 1e-13, "it %d: sqrt", it);
        cft_assert_near_at(l.re, log(a), 1e-15, 1e-15, "it %d", it);
        cft_assert_near_at(l.du, da / a, 1e-15, 1e-13, "it %d: log", it);
        cft_assert_near_at(w.re, pow(a, p), 0, 1e-14, "it %d", it);
        cft_assert_near_at(w.du, p * pow(a, p - 1) * da, 1e-15, 1e-13, "it %d: pow", it);
    }
    /* a composite against central differences: f(x) = sqrt(x) log(x) / (x^2 + 1)^1.5 */
    for (int k = 1; k <= 20; ++k) {
        double x = 0.2 * k, h = 1e-6;
        cfDual X = {x, 1.0};
        cfDual f = cf_dual_div(cf_dual_mul(cf_dual_sqrt(X), cf_dual_log(X)),
                               cf_dual_pow(cf_dual_add(cf_dual_mul(X, X), cf_dual(1.0)), 1.5));
#define F(t) (sqrt(t) * log(t) / pow((t) * (t) + 1.0, 1.5))
        cft_assert_near_at(f.re, F(x), 1e-15, 1e-14, "x = %g", x);
        cft_assert_near_at(f.du, (F(x + h) - F(x - h)) / (2 * h), 1e-8, 1e-6, "x = %g", x);
#undef F
    }
    /* sqrt at 0 with a zero direction has no NaN (|w| of a sticking contact) */
    cfDual z = cf_dual_sqrt(cf_dual(0.0));
    cft_assert_at(z.re == 0.0 && z.du == 0.0, "sqrt(0) = (%g, %g)", z.re, z.du);
}
END_TEST

/* three nodes on springs (one to a fixed anchor), over a plane and against a sphere, all closer
   than delta: node 0 slides on the plane, node 1 sticks on it (|P v| < eps), node 2 slides on the
   sphere (a curved surface: P(q) varies) */
static void implicit_cluster(cfImplicitSystem *s, double mu, bool lagged)
{
    cft_assert_ok(cf_implicit_init(s, 0.01, 2e4, 1e-2));
    s->gravity = cfu_vec3(0, 0, -G_EARTH);
    s->mu = mu;
    s->eps = 1e-2;
    s->lagged = lagged;
    cf_implicit_add_node(s, cfu_vec3(0.0, 0.0, 0.004), cfu_vec3(0.8, 0.3, -0.05), 1.0, false);
    cf_implicit_add_node(s, cfu_vec3(0.3, 0.05, 0.006), cfu_vec3(0.002, -0.003, 0.01), 2.0, false);
    cf_implicit_add_node(s, cfu_vec3(0.6, 0.1, 0.2 + 0.5 + 0.003), cfu_vec3(-0.4, 0.5, 0.1), 0.5, false);
    cf_implicit_add_node(s, cfu_vec3(0.2, 0.6, 0.4), cfu_vec3(0, 0, 0), 1.0, true);
    s->q[3 * 2] += 0.05; /* off the sphere's pole */
    ck_assert_int_eq(cf_implicit_add_spring(s, 0, 1, 300.0), 0);
    ck_assert_int_eq(cf_implicit_add_spring(s, 1, 2, 150.0), 1);
    ck_assert_int_eq(cf_implicit_add_spring(s, 2, 3, 80.0), 2);
    s->q[0] += 0.01, s->q[4] -= 0.02; /* springs off their rest lengths */
    cfImplicitObstacle plane = {.kind = CF_IMPLICIT_PLANE, .p = cfu_vec3(0, 0, 0), .n = cfu_vec3(0, 0, 2)};
    cfImplicitObstacle ball = {.kind = CF_IMPLICIT_SPHERE, .p = cfu_vec3(0.6, 0.1, 0.2), .radius = 0.5};
    ck_assert_int_eq(cf_implicit_add_obstacle(s, plane), 0);
    ck_assert_int_eq(cf_implicit_add_obstacle(s, ball), 1);
}

typedef struct ForceCtx {
    const cfImplicitSystem *s;
    const double *q, *v, *q_lag;
    bool wrt_v; /* differentiate in v (else in q) */
} ForceCtx;

static void fd_forces(void *ctx, const double *x, double *y)
{
    ForceCtx *c = ctx;
    int N = 3 * c->s->n;
    cfDual qd[24] = {{0}}, vd[24] = {{0}}, fd[24];
    for (int k = 0; k < N; ++k) {
        qd[k] = cf_dual(c->wrt_v ? c->q[k] : x[k]);
        vd[k] = cf_dual(c->wrt_v ? x[k] : c->v[k]);
    }
    cf_implicit_forces(c->s, qd, vd, c->q_lag, fd);
    for (int k = 0; k < N; ++k) y[k] = fd[k].re;
}

/* the stage Jacobian's asymmetry relative to its largest entry */
static double stage_asymmetry(const cfImplicitSystem *s, const double *qa, const double *b, const double *q_lag)
{
    double v[12], J[144], F[81];
    memcpy(v, s->v, sizeof v);
    cfImplicitStage st = {qa, b, s->h, q_lag};
    cft_assert_ok(cf_implicit_jacobian(s, &st, v, J));
    for (int i = 0; i < 9; ++i) /* the free nodes' block (node 3 is fixed: its row is the identity) */
        for (int j = 0; j < 9; ++j) F[9 * i + j] = J[12 * i + j];
    cfDense A = {9, 9, F};
    return cf_dense_asymmetry(&A) / cf_vec_norm_inf(81, F);
}

START_TEST(ch09_7_force_jacobians)
{
    for (int lag = 0; lag < 2; ++lag) {
        cfImplicitSystem s;
        implicit_cluster(&s, 0.4, lag);
        double K[144], D[144], q_lag[12];
        for (int k = 0; k < 12; ++k) q_lag[k] = s.q[k] + 1e-4 * sin(k); /* lagged: another position */
        const double *ql = lag ? q_lag : NULL;
        cft_assert_ok(cf_implicit_force_jacobian(&s, s.q, s.v, ql, K, D));
        ForceCtx c = {&s, s.q, s.v, ql, false};
        double ek = fd_rel_error(12, 12, fd_forces, &c, s.q, K, 1e-7);
        c.wrt_v = true;
        double ed = fd_rel_error(12, 12, fd_forces, &c, s.v, D, 1e-7);
        cft_assert_at(ek < 1e-6 && ed < 1e-6, "lagged %d: K error %g, D error %g", lag, ek, ed);
        /* the dual-number product equals the analytic J p to rounding */
        double qa[12], b[12], J[144], p[12], Jp[12], Ja[12];
        for (int k = 0; k < 12; ++k) qa[k] = s.q[k] - s.h * s.v[k], b[k] = 0.3 * k, p[k] = cos(3.0 * k);
        cfImplicitStage st = {qa, b, s.h, ql};
        cft_assert_ok(cf_implicit_jacobian(&s, &st, s.v, J));
        cf_implicit_jvp(&s, &st, s.v, p, Jp);
        cfDense A = {12, 12, J};
        cf_dense_mul_vec(&A, p, Ja);
        for (int k = 0; k < 12; ++k) cft_assert_near_at(Jp[k], Ja[k], 1e-12 * cf_vec_norm_inf(12, Ja), 0, "lagged %d, k = %d", lag, k);
        cf_implicit_free(&s);
    }
    /* symmetry: mu = 0 symmetric; sliding with implicit friction not; lagged friction symmetric */
    double b[12] = {0};
    cfImplicitSystem s;
    implicit_cluster(&s, 0.0, false);
    double a0 = stage_asymmetry(&s, s.q, b, NULL);
    cf_implicit_free(&s);
    implicit_cluster(&s, 0.4, false);
    double a1 = stage_asymmetry(&s, s.q, b, NULL);
    double a2 = stage_asymmetry(&s, s.q, b, s.q);
    cf_implicit_free(&s);
    cft_assert_at(a0 < 1e-12 && a2 < 1e-12 && a1 > 1e-4, "asymmetry: mu = 0 %g, implicit %g, lagged %g", a0, a1, a2);
    /* the forces do not depend on the order of the nodes: the cluster with its fixed node first
       (node k of the copy is node perm[k]) gives the same forces, permuted (a fixed node is
       skipped, the nodes after it still feel the obstacles) */
    implicit_cluster(&s, 0.4, false);
    cfImplicitSystem t;
    cft_assert_ok(cf_implicit_init(&t, s.h, s.kappa, s.delta));
    t.gravity = s.gravity, t.mu = s.mu, t.eps = s.eps, t.lagged = s.lagged, t.profile = s.profile;
    const int perm[4] = {3, 0, 1, 2}, inv[4] = {1, 2, 3, 0};
    for (int k = 0; k < 4; ++k) {
        const int i = perm[k];
        cft_assert_int_at(cf_implicit_add_node(&t, cfu_vec3(s.q[3 * i], s.q[3 * i + 1], s.q[3 * i + 2]),
                                              cfu_vec3(s.v[3 * i], s.v[3 * i + 1], s.v[3 * i + 2]), s.mass[i], s.fixed[i]), ==, k,
                          "k = %d", k);
    }
    for (int e = 0; e < s.n_spring; ++e) {
        cft_assert_int_at(cf_implicit_add_spring(&t, inv[s.spring[e][0]], inv[s.spring[e][1]], s.stiff[e]), ==, e,
                          "e = %d", e);
        t.rest[e] = s.rest[e];
    }
    for (int o = 0; o < s.n_obst; ++o) cft_assert_int_at(cf_implicit_add_obstacle(&t, s.obst[o]), ==, o, "o = %d", o);
    cfDual qs[12], vs[12], fs[12], qt[12], vt[12], ft[12];
    for (int k = 0; k < 12; ++k) {
        qs[k] = cf_dual(s.q[k]), vs[k] = cf_dual(s.v[k]);
        qt[k] = cf_dual(t.q[k]), vt[k] = cf_dual(t.v[k]);
    }
    cf_implicit_forces(&s, qs, vs, NULL, fs);
    cf_implicit_forces(&t, qt, vt, NULL, ft);
    for (int k = 0; k < 4; ++k)
        for (int c = 0; c < 3; ++c)
            cft_assert_near_at(ft[3 * k + c].re, fs[3 * perm[k] + c].re, 1e-12, 1e-12, "node %d, coordinate %d", k, c);
    cf_implicit_free(&t);
    cf_implicit_free(&s);
}
END_TEST

/* y = A x for a dense matrix (ctx) */
static void dense_apply(void *ctx, const double *x, double *y) { cf_dense_mul_vec(ctx, x, y); }

START_TEST(ch09_7_bicgstab)
{
    cfRng rng;
    cf_rng_seed(&rng, 2024);
    const int n = 40;
    cfDense A = {0};
    cft_assert_ok(cf_dense_init(&A, n, n));
    double b[40], x[40], r[40];
    for (int trial = 0; trial < 5; ++trial) {
        for (int i = 0; i < n; ++i) { /* non-symmetric, diagonally dominant */
            double row = 0.0;
            for (int j = 0; j < n; ++j) {
                double a = i == j ? 0.0 : cf_rng_range(&rng, -1, 1) * (j > i ? 1.0 : 0.3);
                *cf_dense_at(&A, i, j) = a;
                row += fabs(a);
            }
            *cf_dense_at(&A, i, i) = row * cf_rng_range(&rng, 1.1, 2.0) * (i % 3 ? 1 : -1);
            b[i] = cf_rng_normal(&rng);
            x[i] = 0.0;
        }
        int it = -1;
        cft_assert_ok_at(cf_bicgstab(n, dense_apply, &A, b, x, 1e-10, 200, &it), "trial %d", trial);
        cf_dense_mul_vec(&A, x, r);
        for (int i = 0; i < n; ++i) r[i] -= b[i];
        cft_assert_at(cf_vec_norm(n, r) <= 1e-10 * cf_vec_norm(n, b), "trial %d: |Ax - b| = %g", trial, cf_vec_norm(n, r));
        cft_assert_at(it > 0 && it < 200, "trial %d: %d iterations", trial, it);
        /* from the solution: no iteration; a limit of 1: not converged, max-iterations */
        cft_assert_ok(cf_bicgstab(n, dense_apply, &A, b, x, 1e-8, 200, &it));
        ck_assert_int_eq(it, 0);
        for (int i = 0; i < n; ++i) x[i] = 0.0;
        cft_assert_status(cf_bicgstab(n, dense_apply, &A, b, x, 1e-12, 1, &it), CF_MAX_ITER);
    }
    /* a breakdown: A = 0 */
    cf_vec_zero(n * n, A.a);
    for (int i = 0; i < n; ++i) x[i] = 0.0;
    cft_assert_status(cf_bicgstab(n, dense_apply, &A, b, x, 1e-10, 50, NULL), CF_SINGULAR);
    /* b = 0: x = 0 */
    for (int i = 0; i < n; ++i) b[i] = 0.0, x[i] = 1.0;
    cft_assert_ok(cf_bicgstab(n, dense_apply, &A, b, x, 1e-10, 10, NULL));
    cft_assert_near(cf_vec_norm_inf(n, x), 0.0, 0, 0);
    cf_dense_free(&A);
}
END_TEST

START_TEST(ch09_7_newton_direct_and_inexact)
{
    /* one BE stage of the cluster (implicit friction, sliding on the sphere) */
    cfImplicitSystem s;
    implicit_cluster(&s, 0.4, false);
    double b[12], vd[12], vi[12], r[12];
    for (int k = 0; k < 12; ++k) b[k] = s.fixed[k / 3] ? 0.0 : s.mass[k / 3] * s.v[k];
    cfImplicitStage st = {s.q, b, s.h, NULL};
    cfImplicitOptions o = cf_implicit_options_default();
    cfImplicitStats sd, si;
    memcpy(vd, s.v, sizeof vd);
    cft_assert_ok(cf_implicit_newton(&s, &st, vd, &o, &sd));
    cf_implicit_residual(&s, &st, vd, r);
    cft_assert_at(cf_vec_norm_inf(12, r) <= o.tol, "direct: |r| = %g", cf_vec_norm_inf(12, r));
    cft_assert_near(sd.residual, cf_vec_norm_inf(12, r), 0, 1e-9); /* the stats report that residual */
    /* the line search never increases |r|; the last iterations are quadratic */
    cft_assert_at(sd.n_hist == sd.iterations + 1 && sd.iterations >= 2 && sd.residuals == sd.iterations + 1 + sd.backtracks,
                  "%d iterations, %d entries, %d residuals, %d backtracks", sd.iterations, sd.n_hist, sd.residuals, sd.backtracks);
    for (int k = 1; k < sd.n_hist; ++k) cft_assert_at(sd.hist[k] < sd.hist[k - 1], "direct, k = %d: %g after %g", k, sd.hist[k], sd.hist[k - 1]);
    int quad = 0;
    for (int k = 1; k < sd.n_hist; ++k)
        if (sd.hist[k - 1] < 1e-2 && sd.hist[k] > 1e-14) {
            double ratio = sd.hist[k] / (sd.hist[k - 1] * sd.hist[k - 1]);
            cft_assert_at(ratio < 1e3, "k = %d: |r_k| / |r_k-1|^2 = %g", k, ratio);
            ++quad;
        }
    cft_assert_at(quad >= 1, "no iteration in the quadratic range: %d iterations", sd.iterations);
    /* inexact Newton: the same root, superlinear, J p only by dual numbers */
    o.linear = CF_IMPLICIT_BICGSTAB;
    memcpy(vi, s.v, sizeof vi);
    cft_assert_ok(cf_implicit_newton(&s, &st, vi, &o, &si));
    for (int k = 0; k < 12; ++k) cft_assert_near_at(vi[k], vd[k], 1e-10, 0, "k = %d", k);
    cft_assert_at(si.linear_iters > 0 && si.iterations <= sd.iterations + 3, "inexact %d iterations (%d BiCGSTAB), direct %d",
                  si.iterations, si.linear_iters, sd.iterations);
    for (int k = 1; k < si.n_hist; ++k) cft_assert_at(si.hist[k] < si.hist[k - 1], "inexact, k = %d", k);
    cft_assert_at(si.hist[si.n_hist - 1] < 1e-2 * si.hist[si.n_hist - 2], "inexact: last ratio %g", si.hist[si.n_hist - 1] / si.hist[si.n_hist - 2]);
    /* the forcing terms save linear work: against solving every direction to 1e-14 */
    cfImplicitOptions ox = o;
    ox.eta_max = 1e-14;
    cfImplicitStats sx;
    memcpy(vi, s.v, sizeof vi);
    cft_assert_ok(cf_implicit_newton(&s, &st, vi, &ox, &sx));
    cft_assert_at(si.linear_iters < 0.6 * sx.linear_iters, "BiCGSTAB iterations: Eisenstat-Walker %d, exact solves %d",
                  si.linear_iters, sx.linear_iters);
    /* a far start (deep penetration, a stiff penalty) needs the line search, and still converges */
    s.kappa = 1e8;
    s.q[2] = -0.02;
    for (int li = 0; li < CF_IMPLICIT_LINEAR_COUNT; ++li) {
        o.linear = li;
        memcpy(vd, s.v, sizeof vd);
        cft_assert_ok_at(cf_implicit_newton(&s, &st, vd, &o, &sd), "linear %d", li);
        cft_assert_at(sd.backtracks > 0, "linear %d: %d backtracks", li, sd.backtracks);
        for (int k = 1; k < sd.n_hist; ++k) cft_assert_at(sd.hist[k] <= sd.hist[k - 1], "linear %d, k = %d", li, k);
    }
    /* no backtracking allowed: the first rejected step stops the solve, v stays at the last accepted iterate */
    o.linear = CF_IMPLICIT_DIRECT;
    o.max_backtracks = 0;
    memcpy(vd, s.v, sizeof vd);
    cft_assert_status(cf_implicit_newton(&s, &st, vd, &o, &sd), CF_STAGNATED);
    cf_implicit_residual(&s, &st, vd, r);
    cft_assert_near(cf_vec_norm(12, r), sd.hist[sd.n_hist - 1], 0, 1e-12);
    o.max_backtracks = cf_implicit_options_default().max_backtracks;
    /* a non-finite residual is reported, not iterated on */
    memcpy(vd, s.v, sizeof vd);
    vd[4] = NAN;
    cft_assert_status(cf_implicit_newton(&s, &st, vd, &o, &sd), CF_DIVERGED);
        /* the step limit is reported */
    o.max_iter = 1;
    memcpy(vd, s.v, sizeof vd);
    cft_assert_status(cf_implicit_newton(&s, &st, vd, &o, NULL), CF_MAX_ITER);
    cf_implicit_free(&s);
}
END_TEST

START_TEST(ch09_7_step_bump_and_failure)
{
    /* a particle thrown at 3 m/s onto the plane with a soft penalty: the step ends below the surface,
       kappa is bumped and the step repeated until it does not; kappa never decreases */
    cfImplicitSystem s;
    cft_assert_ok(cf_implicit_init(&s, 0.01, 10.0, 1e-3));
    s.gravity = cfu_vec3(0, 0, -G_EARTH);
    cf_implicit_add_node(&s, cfu_vec3(0, 0, 0.02), cfu_vec3(0, 0, -3.0), 1.0, false);
    cfImplicitObstacle plane = {.kind = CF_IMPLICIT_PLANE, .n = cfu_vec3(0, 0, 1)};
    cf_implicit_add_obstacle(&s, plane);
    int bumps = 0;
    double kappa = s.kappa;
    for (int i = 0; i < 30; ++i) {
        cfImplicitStats st;
        cft_assert_ok_at(cf_implicit_step(&s, CF_IMPLICIT_BE, NULL, &st), "step %d", i);
        cft_assert_at(st.d_min >= 0.0 && st.d_min == s.q[2], "step %d: gap %g, z %g", i, st.d_min, s.q[2]);
        cft_assert_at(s.kappa >= kappa, "step %d: kappa %g after %g", i, s.kappa, kappa);
        cft_assert_at(st.bumps == 0 || s.kappa >= 4 * kappa, "step %d: %d bumps, kappa %g after %g", i, st.bumps, s.kappa, kappa);
        kappa = s.kappa;
        bumps += st.bumps;
    }
    cft_assert_at(bumps > 0 && s.kappa > 1e3, "%d bumps, kappa %g", bumps, s.kappa);
    cf_implicit_free(&s);
    /* a failing stage: its status, and the state left at the step's start */
    implicit_cluster(&s, 0.4, false);
    double q0[12], v0[12];
    memcpy(q0, s.q, sizeof q0), memcpy(v0, s.v, sizeof v0);
    cfImplicitOptions o = cf_implicit_options_default();
    o.max_iter = 1;
    for (int in = 0; in < CF_IMPLICIT_INTEGRATOR_COUNT; ++in) {
        cft_assert_status_at(cf_implicit_step(&s, in, &o, NULL), CF_MAX_ITER, "integrator %d", in);
        for (int k = 0; k < 12; ++k) cft_assert_at(s.q[k] == q0[k] && s.v[k] == v0[k], "integrator %d, k = %d", in, k);
    }
    cf_implicit_free(&s);
}
END_TEST

/* a cube of side L (8 nodes, mass m each) with its 12 outward triangles and springs of stiffness k
   along its 12 edges and 12 face diagonals, resting at depth @p z0 on the plane z = 0 */
static void implicit_cube(cfImplicitSystem *s, double L, double m, double k, double z0)
{
    static const int T[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                 {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    for (int i = 0; i < 8; ++i)
        cf_implicit_add_node(s, cfu_vec3(L * (i & 1), L * ((i >> 1) & 1), z0 + L * (i >> 2)), cfu_zero3(), m, false);
    for (int t = 0; t < 12; ++t) cft_assert_int_at(cf_implicit_add_triangle(s, T[t][0], T[t][1], T[t][2]), ==, t, "t = %d", t);
    for (int a = 0; a < 8; ++a)
        for (int b = a + 1; b < 8; ++b)
            if (__builtin_popcount((unsigned)(a ^ b)) <= 2) cf_implicit_add_spring(s, a, b, k);
}

typedef struct VolCtx {
    const cfImplicitSystem *s;
} VolCtx;

static void fd_volume(void *ctx, const double *q, double *y)
{
    const cfImplicitSystem *s = ((VolCtx *)ctx)->s;
    y[0] = cf_mesh_volume(s->n, q, s->n_tri, (const int(*)[3])s->tri, NULL);
}

START_TEST(ch09_7_volume_penalty)
{
    /* W, its derivative, the pressure; the ideal gas's work agrees to third order in dV/V0 when beta = 1/p0 */
    double dW;
    cft_assert_near(cf_volume_penalty(0.9, 1.0, 0.5, &dW), 0.01, 0, 1e-14);
    cft_assert_near(dW, -0.2, 0, 1e-14);
    cft_assert_near(cf_volume_penalty(2.0, 2.0, 0.3, &dW), 0.0, 0, 0);
    cft_assert_near(dW, 0.0, 0, 0);
    const double p0 = 101325.0, V0 = 2e-3;
    double gap[2];
    for (int k = 0; k < 2; ++k) {
        double x = 0.02 / (1 << k), V = V0 * (1 - x), step = 1e-9 * V0;
        double W = cf_volume_penalty(V, V0, 1 / p0, &dW);
        double fd = (cf_volume_penalty(V + step, V0, 1 / p0, NULL) - cf_volume_penalty(V - step, V0, 1 / p0, NULL)) / (2 * step);
        cft_assert_at(W > 0.0, "x = %g: W = %g", x, W);
        cft_assert_near_at(dW, fd, 0, 1e-6, "x = %g: W'", x);
        gap[k] = fabs(W - p0 * V0 * (V / V0 - 1 - log(V / V0)));
    }
    cft_assert_near(log2(gap[0] / gap[1]), 3.0, 0.1, 0);
    /* the unit cube's volume, its gradient by differences on a deformed cube, invariant under translation */
    cfImplicitSystem s;
    cft_assert_ok(cf_implicit_init(&s, 0.01, 1e4, 1e-3));
    implicit_cube(&s, 1.0, 0.125, 20.0, 0.0);
    cft_assert_near(cf_mesh_volume(s.n, s.q, s.n_tri, (const int(*)[3])s.tri, NULL), 1.0, 0, 1e-14);
    cfRng rng;
    cf_rng_seed(&rng, 33);
    for (int p = 0; p < 24; ++p) s.q[p] += cf_rng_range(&rng, -0.1, 0.1);
    double g[24], q2[24];
    double V = cf_mesh_volume(s.n, s.q, s.n_tri, (const int(*)[3])s.tri, g);
    VolCtx vc = {&s};
    double eg = fd_rel_error(1, 24, fd_volume, &vc, s.q, g, 1e-7);
    cft_assert_at(eg < 1e-7, "volume gradient error %g", eg);
    for (int p = 0; p < 24; ++p) q2[p] = s.q[p] + (p % 3 == 0 ? 3.0 : -1.5);
    cft_assert_near(cf_mesh_volume(s.n, q2, s.n_tri, (const int(*)[3])s.tri, NULL), V, 1e-13, 0);
    cf_implicit_free(&s);
    /* a soft cube (weak springs) resting on the plane loses volume; the penalty keeps it, the more the
       smaller beta (paper 003's table 2 trend); the force's Jacobian (dense rank one included) by differences */
    const double betas[3] = {0.0, 1e-4, 1e-6};
    double loss[3];
    for (int b = 0; b < 3; ++b) {
        cft_assert_ok(cf_implicit_init(&s, 0.01, 1e4, 1e-3));
        s.gravity = cfu_vec3(0, 0, -G_EARTH);
        cfImplicitObstacle plane = {.kind = CF_IMPLICIT_PLANE, .n = cfu_vec3(0, 0, 1)};
        cf_implicit_add_obstacle(&s, plane);
        implicit_cube(&s, 0.1, 0.125, 20.0, 6e-4);
        double V0c = cf_mesh_volume(s.n, s.q, s.n_tri, (const int(*)[3])s.tri, NULL);
        if (betas[b] > 0.0) cft_assert_ok_at(cf_implicit_set_volume(&s, betas[b]), "b = %d", b);
        for (int i = 0; i < 100; ++i) cft_assert_ok_at(cf_implicit_step(&s, CF_IMPLICIT_BE, NULL, NULL), "beta %g, step %d", betas[b], i);
        loss[b] = 1.0 - cf_mesh_volume(s.n, s.q, s.n_tri, (const int(*)[3])s.tri, NULL) / V0c;
        if (b == 2) {
            double K[576], D[576];
            cft_assert_ok(cf_implicit_force_jacobian(&s, s.q, s.v, NULL, K, D));
            ForceCtx c = {&s, s.q, s.v, NULL, false};
            double ek = fd_rel_error(24, 24, fd_forces, &c, s.q, K, 1e-8);
            cft_assert_at(ek < 1e-6, "K error %g with the volume penalty", ek);
            double qa[24], bb[24], J[576], pd[24], Jp[24], Ja[24];
            for (int k = 0; k < 24; ++k) qa[k] = s.q[k] - s.h * s.v[k], bb[k] = 0.0, pd[k] = sin(1.0 + k);
            cfImplicitStage st = {qa, bb, s.h, NULL};
            cft_assert_ok(cf_implicit_jacobian(&s, &st, s.v, J));
            cf_implicit_jvp(&s, &st, s.v, pd, Jp);
            cfDense A = {24, 24, J};
            cf_dense_mul_vec(&A, pd, Ja);
            for (int k = 0; k < 24; ++k) cft_assert_near_at(Jp[k], Ja[k], 1e-12 * cf_vec_norm_inf(24, Ja), 0, "volume: J p, k = %d", k);
            /* a pinned node carries no force, the volume term's included: its rows of K are zero
               and the rest still the forces' differences (node 5: rows 15-17) */
            s.fixed[5] = true;
            s.v[15] = s.v[16] = s.v[17] = 0.0;
            cft_assert_ok(cf_implicit_force_jacobian(&s, s.q, s.v, NULL, K, D));
            double ekf = fd_rel_error(24, 24, fd_forces, &c, s.q, K, 1e-8);
            cft_assert_at(ekf < 1e-6, "K error %g with the volume penalty and node 5 pinned", ekf);
            for (int k = 15 * 24; k < 18 * 24; ++k) cft_assert_at(K[k] == 0.0, "K[%d][%d] = %g: a row of the pinned node", k / 24, k % 24, K[k]);
        }
        cf_implicit_free(&s);
    }
    cft_assert_at(loss[0] > 0.05 && loss[1] < 0.5 * loss[0] && loss[2] < 0.05 * loss[1] && loss[2] > 0.0,
                  "volume loss: none %g, beta 1e-4 %g, beta 1e-6 %g", loss[0], loss[1], loss[2]);
    cft_assert_status(cf_implicit_set_volume(&s, 1e-3), CF_BAD_INPUT); /* no triangles */
}
END_TEST

/* the undamped oscillator: a particle on a spring of stiffness k (mass 1) from a fixed anchor, the
   displacement A (< 1, the rest length) along the spring, no gravity; returns the displacement after @p steps (and the
   velocity, and the largest energy change relative to the first) */
static double oscillator(cfImplicitIntegrator integ, double k, double A, double h, int steps, double *v_out,
                         double *energy_ratio, bool *monotone)
{
    cfImplicitSystem s;
    cft_assert_ok(cf_implicit_init(&s, h, 1.0, 1.0));
    const double L0 = 1.0;
    cf_implicit_add_node(&s, cfu_vec3(0, 0, 0), cfu_zero3(), 1.0, true);
    cf_implicit_add_node(&s, cfu_vec3(L0, 0, 0), cfu_zero3(), 1.0, false);
    ck_assert_int_eq(cf_implicit_add_spring(&s, 0, 1, k), 0);
    s.q[3] += A;
    cfImplicitOptions o = cf_implicit_options_default();
    o.tol = 1e-14 * (1.0 + h * k * L0); /* the rounding of the spring force h k (L - L0) */
    double e0 = 0.5 * k * A * A, e_prev = e0, worst = 1.0;
    *monotone = true;
    for (int i = 0; i < steps; ++i) {
        cft_assert_ok_at(cf_implicit_step(&s, integ, &o, NULL), "integrator %d, step %d", integ, i);
        double x = s.q[3] - L0, e = 0.5 * s.v[3] * s.v[3] + 0.5 * k * x * x;
        if (!(e < e_prev)) *monotone = false;
        if (fabs(e / e0 - 1.0) > fabs(worst - 1.0)) worst = e / e0;
        e_prev = e;
    }
    double x = s.q[3] - L0;
    *v_out = s.v[3];
    *energy_ratio = worst;
    cf_implicit_free(&s);
    return x;
}

START_TEST(ch09_7_integrators_oscillator)
{
    double v, ratio;
    bool mono;
    /* TR conserves the energy of a linear oscillator; BE loses some in every step */
    oscillator(CF_IMPLICIT_TR, 1.0, 0.5, 0.3, 100, &v, &ratio, &mono);
    cft_assert_near(ratio, 1.0, 1e-10, 0);
    oscillator(CF_IMPLICIT_BE, 1.0, 0.5, 0.3, 100, &v, &ratio, &mono);
    cft_assert_at(mono && ratio < 0.5, "BE: energy decreasing %d, ratio %g", mono, ratio);
    /* orders by step halving: x(1) against A cos(1) (omega = 1, from rest at displacement A = 0.5) */
    const double want_order[CF_IMPLICIT_INTEGRATOR_COUNT] = {1.0, 2.0, 2.0, 2.0};
    for (int in = 0; in < CF_IMPLICIT_INTEGRATOR_COUNT; ++in) {
        double err[2];
        for (int k = 0; k < 2; ++k) {
            double h = 0.02 / (1 << k), x = oscillator(in, 1.0, 0.5, h, (int)lround(1.0 / h), &v, &ratio, &mono);
            err[k] = hypot(x - 0.5 * cos(1.0), v + 0.5 * sin(1.0));
        }
        double order = log2(err[0] / err[1]);
        cft_assert_near_at(order, want_order[in], 0.1, 0, "integrator %d: errors %g, %g", in, err[0], err[1]);
    }
    /* two free particles of masses 1 and 3 on a spring, thrown apart: every scheme conserves the total
       momentum (the spring's forces cancel), and the stage statistics add up */
    for (int in = 0; in < CF_IMPLICIT_INTEGRATOR_COUNT; ++in) {
        cfImplicitSystem s;
        cft_assert_ok(cf_implicit_init(&s, 0.05, 1.0, 1.0));
        cf_implicit_add_node(&s, cfu_vec3(0, 0, 0), cfu_vec3(-1.0, 0.5, 0.2), 1.0, false);
        cf_implicit_add_node(&s, cfu_vec3(0.8, 0.3, 0), cfu_vec3(0.7, -0.1, 0.4), 3.0, false);
        ck_assert_int_eq(cf_implicit_add_spring(&s, 0, 1, 50.0), 0);
        double p0[3] = {-1.0 + 2.1, 0.5 - 0.3, 0.2 + 1.2};
        for (int i = 0; i < 20; ++i) {
            cfImplicitOptions o = cf_implicit_options_default();
            o.linear = i % 2 ? CF_IMPLICIT_BICGSTAB : CF_IMPLICIT_DIRECT;
            cfImplicitStats st;
            cft_assert_ok_at(cf_implicit_step(&s, in, &o, &st), "integrator %d, step %d", in, i);
            int stages = in == CF_IMPLICIT_SDIRK2 ? 2 : 1;
            cft_assert_at(st.iterations >= stages && st.residual <= o.tol && (o.linear == CF_IMPLICIT_DIRECT) == (st.linear_iters == 0),
                          "integrator %d, step %d: %d iterations, %d BiCGSTAB, |r| %g", in, i, st.iterations, st.linear_iters, st.residual);
            for (int k = 0; k < 3; ++k)
                cft_assert_near_at(s.v[k] + 3.0 * s.v[3 + k], p0[k], 1e-10, 0, "integrator %d, step %d, k = %d", in, i, k);
        }
        cf_implicit_free(&s);
    }
    /* L-stability: a stiff spring (h omega = 1000): BDF2 and SDIRK2 (and BE) damp it out within a few
       steps, TR keeps its energy */
    for (int in = 0; in < CF_IMPLICIT_INTEGRATOR_COUNT; ++in) {
        double k = 1e8, A = 1e-3, x = oscillator(in, k, A, 0.1, 6, &v, &ratio, &mono);
        double amp = hypot(x, v / sqrt(k)) / A;
        if (in == CF_IMPLICIT_TR) cft_assert_near_at(amp, 1.0, 1e-6, 0, "TR: amplitude %g", amp);
        else cft_assert_at(amp < 1e-5, "integrator %d: amplitude %g after 6 steps", in, amp);
    }
}
END_TEST

/* a particle on a slope of angle theta (gravity tilted, the plane z = 0), at rest at the depth
   where the penalty carries its weight, sliding down at v0 along +x */
static void slope_particle(cfImplicitSystem *s, double theta, double mu, double eps, double h, double v0,
                           cfSlideProfile prof)
{
    const double kappa = 1e5, delta = 1e-3;
    cft_assert_ok(cf_implicit_init(s, h, kappa, delta));
    s->gravity = cfu_vec3(G_EARTH * sin(theta), 0, -G_EARTH * cos(theta));
    s->mu = mu;
    s->eps = eps;
    s->profile = prof;
    double d = delta - sqrt(G_EARTH * cos(theta) * delta / (3 * kappa)); /* lambda = m g cos theta */
    cf_implicit_add_node(s, cfu_vec3(0, 0, d), cfu_vec3(v0, 0, 0), 1.0, false);
    cfImplicitObstacle plane = {.kind = CF_IMPLICIT_PLANE, .n = cfu_vec3(0, 0, 1)};
    cf_implicit_add_obstacle(s, plane);
}

START_TEST(ch09_7_incline_creep)
{
    /* theta 10 deg, mu 0.2 (tan theta < mu): the smoothed law creeps at the x with s(x) = tan(theta)/mu,
       for implicit BE to 1e-6; lagged friction has the same fixed point on a plane */
    const double th = 10.0 * CF_PI / 180.0, mu = 0.2, r = tan(th) / mu;
    const double eps[2] = {1e-3, 1e-4};
    for (int p = 0; p < CF_SLIDE_PROFILE_COUNT; ++p)
        for (int e = 0; e < 2; ++e)
            for (int lag = 0; lag < 2; ++lag) {
                cfImplicitSystem s;
                slope_particle(&s, th, mu, eps[e], 0.01, 0.0, p);
                s.lagged = lag;
                double want = p == CF_SLIDE_QUADRATIC ? eps[e] * (1 - sqrt(1 - r)) : r * eps[e] / (1 - r);
                for (int i = 0; i < 150; ++i) cft_assert_ok_at(cf_implicit_step(&s, CF_IMPLICIT_BE, NULL, NULL), "step %d", i);
                cft_assert_near_at(s.v[0], want, 0, 1e-6, "profile %d, eps %g, lagged %d", p, eps[e], lag);
                cft_assert_near_at(s.v[2], 0.0, 1e-12, 0, "profile %d, eps %g: normal speed", p, eps[e]);
                cf_implicit_free(&s);
            }
}
END_TEST

/* paper 003's block slide: where a particle thrown down the slope at v0 stops (its position after
   twice the analytic stopping time), and its final speed */
static double slide_distance(cfImplicitIntegrator integ, double h, double v0, double *v_end, double *t_end)
{
    const double th = 10.0 * CF_PI / 180.0, mu = 0.5;
    cfImplicitSystem s;
    slope_particle(&s, th, mu, 1e-4, h, v0, CF_SLIDE_QUADRATIC);
    int n = (int)lround(2.0 * v0 / (G_EARTH * (mu * cos(th) - sin(th))) / h);
    for (int i = 0; i < n; ++i) cft_assert_ok_at(cf_implicit_step(&s, integ, NULL, NULL), "h %g, step %d", h, i);
    double d = s.q[0];
    *v_end = s.v[0];
    *t_end = n * h;
    cf_implicit_free(&s);
    return d;
}

START_TEST(ch09_7_block_slide_stopping)
{
    /* 10 deg, mu 0.5, v0 1 m/s: v0^2 / (2 g (mu cos - sin)) = 0.15990 m; within h v0 + eps t, step sizes agree */
    const double th = 10.0 * CF_PI / 180.0, mu = 0.5, v0 = 1.0, eps = 1e-4;
    const double want = v0 * v0 / (2 * G_EARTH * (mu * cos(th) - sin(th)));
    cft_assert_near(want, 0.15990, 1e-5, 0);
    const double hs[2] = {0.01, 0.005};
    for (int in = CF_IMPLICIT_BE; in <= CF_IMPLICIT_TR; ++in) {
        double d[2], v, t;
        for (int k = 0; k < 2; ++k) {
            d[k] = slide_distance(in, hs[k], v0, &v, &t);
            cft_assert_near_at(d[k], want, hs[k] * v0 + eps * t, 0, "integrator %d, h %g", in, hs[k]);
            cft_assert_at(fabs(v) < eps, "integrator %d, h %g: still moving at %g m/s", in, hs[k], v);
        }
        cft_assert_near_at(d[1], d[0], hs[0] * v0, 0, "integrator %d", in);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* library: the provided system                                                                */

static void fd_energy(void *ctx, const double *q, double *y)
{
    y[0] = cf_ipc_energy(ctx, q, NULL, NULL, false);
}

static void fd_energy_grad(void *ctx, const double *q, double *y)
{
    cf_ipc_energy(ctx, q, y, NULL, false);
}

START_TEST(lib_ipc_energy_derivatives)
{
    /* the assembled incremental potential: inertia, a spring, a point-triangle barrier, a mollified
       edge-edge barrier (nearly parallel edges) and lagged friction, against central differences */
    cfIpcSystem s;
    cft_assert_ok(cf_ipc_init(&s, 1.0, 0.01, 1.0));
    s.mu = 0.5;
    int a = cf_ipc_add_node(&s, cfu_vec3(0, 0, 0), 1, false), b = cf_ipc_add_node(&s, cfu_vec3(1, 0, 0), 1, false);
    int c = cf_ipc_add_node(&s, cfu_vec3(0, 1, 0), 1, false), p = cf_ipc_add_node(&s, cfu_vec3(0.2, 0.2, 0.004), 1, false);
    ck_assert(cf_ipc_add_triangle(&s, a, b, c) >= 0 && cf_ipc_add_spring(&s, a, p, 10.0) >= 0);
    int e0 = cf_ipc_add_node(&s, cfu_vec3(4, 0.5, 0.01), 1, false), e1 = cf_ipc_add_node(&s, cfu_vec3(6, 0.5, 0.01), 1, false);
    int f0 = cf_ipc_add_node(&s, cfu_vec3(4, 0.53, 0.015), 1, false), f1 = cf_ipc_add_node(&s, cfu_vec3(6, 0.49, 0.015), 1, false);
    ck_assert(cf_ipc_add_edge(&s, e0, e1) >= 0 && cf_ipc_add_edge(&s, f0, f1) >= 0);
    int N = 3 * s.n;
    cfRng rng;
    cf_rng_seed(&rng, 100);
    for (int k = 0; k < N; ++k) {
        s.q_start[k] = s.q[k];
        s.q_tilde[k] = s.q[k] + cf_rng_range(&rng, -0.01, 0.01);
        s.q[k] += cf_rng_range(&rng, -2e-4, 2e-4);
    }
    cft_assert_ok(cf_ipc_lag_friction(&s, s.q_start));
    ck_assert_int_eq(s.n_fric, 2);
    cfVec3 x[4] = {cf_ipc_node(s.q, e0), cf_ipc_node(s.q, e1), cf_ipc_node(s.q, f0),
                   cf_ipc_node(s.q, f1)};
    ck_assert(cf_ee_mollifier(x, 0.016, NULL, NULL) < 0.9); /* the mollifier acts */
    double *g = malloc((size_t)N * sizeof *g), *H = malloc((size_t)N * N * sizeof *H);
    double f = cf_ipc_energy(&s, s.q, g, H, false);
    cft_assert_finite(f);
    double eg = fd_rel_error(1, N, fd_energy, &s, s.q, g, 1e-7);
    double eh = fd_rel_error(N, N, fd_energy_grad, &s, s.q, H, 1e-7);
    cft_assert_at(eg < 1e-6 && eh < 1e-6, "gradient error %g, Hessian error %g", eg, eh);
    free(g), free(H);
    cf_ipc_free(&s);
}
END_TEST

START_TEST(lib_ipc_system_checks)
{
    cfIpcSystem s;
    cft_assert_status(cf_ipc_init(&s, 0.0, 1e-3, 1.0), CF_BAD_INPUT);
    cft_assert_status(cf_ipc_init(&s, 0.01, -1.0, 1.0), CF_BAD_INPUT);
    cft_assert_ok(cf_ipc_init(&s, 0.01, 1e-3, 1.0));
    ck_assert_int_eq(cf_ipc_add_node(&s, cfu_vec3(0, 0, 0), 0.0, false), -1);
    ck_assert_int_eq(cf_ipc_add_node(&s, cfu_vec3(NAN, 0, 0), 1.0, false), -1);
    ck_assert_int_eq(cf_ipc_add_box(&s, cfu_vec3(0, 0, 0), cfu_vec3(1, 1, 1), 8.0, 100.0, false), 0);
    ck_assert_int_eq(s.n, 8);
    ck_assert_int_eq(s.n_tri, 12);
    ck_assert_int_eq(s.n_edge, 18);
    ck_assert_int_eq(s.n_spring, 28);
    ck_assert_int_eq(cf_ipc_add_triangle(&s, 0, 0, 1), -1);
    ck_assert_int_eq(cf_ipc_add_edge(&s, 0, 9), -1);
    cf_ipc_free(&s);
    cf_ipc_free(&s);
}
END_TEST

/* ---- issue 30: a status that tells the truth ------------------------------------------------- */

/* A system without nodes steps to nothing with every integrator (its arrays are NULL: the copies
   of the Newton loop and the step must not hand them to memcpy; UBSan in make check says so). */
START_TEST(truth_implicit_empty_system)
{
    const cfImplicitIntegrator integ[] = {CF_IMPLICIT_BE, CF_IMPLICIT_TR, CF_IMPLICIT_BDF2, CF_IMPLICIT_SDIRK2};
    for (int i = 0; i < 4; ++i) {
        cfImplicitSystem s;
        cft_assert_ok(cf_implicit_init(&s, 0.01, 1e4, 1e-3));
        for (int k = 0; k < 2; ++k) cft_assert_ok_at(cf_implicit_step(&s, integ[i], NULL, NULL), "integrator %d step %d", i, k);
        ck_assert_int_eq(s.n, 0);
        cf_implicit_free(&s);
    }
}
END_TEST

void cft_ch09_tet_tests(Suite *s);

static void build(Suite *s)
{
    TCase *t1 = cft_tcase_unit(s, "ch09.1");
    CFT_GRADED(t1, ch09_1_normal_force_cases, "ch09.1", 5, "penalty force: spring, damper, eps k receding, no pull");
    CFT_GRADED(t1, ch09_1_resting_depth_and_rebound, "ch09.1", 5, "resting depth mg/k; rebound speed sqrt(eps)");
    CFT_GRADED(t1, ch09_1_friction_laws, "ch09.1", 5, "regularized Coulomb and anchor friction: stick, slip, drag");

    TCase *t2 = cft_tcase_unit(s, "ch09.2");
    CFT_GRADED(t2, ch09_2_spot_values_and_limits, "ch09.2", 5, "barrier: spot values, clamp, +inf at contact, d b' -> -dhat^2");
    CFT_GRADED(t2, ch09_2_derivatives_and_shape, "ch09.2", 5, "barrier: b', b'' by differences, signs, C2 at dhat");
    CFT_GRADED(t2, ch09_2_scaling_and_resting_table, "ch09.2", 5, "barrier: scaling laws; resting distance table");

    TCase *t3 = cft_tcase_unit(s, "ch09.3");
    CFT_GRADED(t3, ch09_3_point_triangle_regions, "ch09.3", 4, "point-triangle: 7 regions, optimality certificate");
    CFT_GRADED(t3, ch09_3_edge_edge_cases, "ch09.3", 4, "edge-edge: interior, parallel, symmetry, optimality");
    CFT_GRADED(t3, ch09_3_distance_derivatives, "ch09.3", 5, "d^2 gradient and Hessian by differences, every region");
    CFT_GRADED(t3, ch09_3_ee_mollifier, "ch09.3", 3, "edge-edge mollifier: values, C1 join, derivatives by differences");
    CFT_GRADED(t3, ch09_3_pair_barrier_derivatives, "ch09.3", 4, "pair barrier gradient and Hessian by differences");

    TCase *t4 = cft_tcase_unit(s, "ch09.4");
    CFT_GRADED(t4, ch09_4_psd_projection, "ch09.4", 6, "PSD projection: eigenvalues, nearest, idempotent");
    CFT_GRADED(t4, ch09_4_projected_newton_descends, "ch09.4", 4, "projected barrier Hessian gives a descent direction");
    TCase *t4s = cft_tcase_scene(s, "ch09.4-scene");
    CFT_GRADED(t4s, ch09_4_newton_beats_gradient_descent, "ch09.4", 4, "Newton converges; gradient descent needs 10x more");
    CFT_GRADED(t4s, ch09_4_resting_particle_table, "ch09.4", 6, "simulated resting particle: kappa 1e3..1e6 -> d*");

    TCase *t5 = cft_tcase_unit(s, "ch09.5");
    CFT_GRADED(t5, ch09_5_ccd_step_cases, "ch09.5", 4, "CCD step: time of impact times the fraction, misses");
    TCase *t5s = cft_tcase_scene(s, "ch09.5-scene");
    CFT_GRADED(t5s, ch09_5_never_penetrates, "ch09.5", 7, "10^4 random trajectories: never a crossing, f decreases");
    CFT_GRADED(t5s, ch09_5_tunnelling_penalty_and_ipc, "ch09.5", 4, "100 m/s against 1 mm: penalty tunnels, IPC stops");

    TCase *t6 = cft_tcase_unit(s, "ch09.6");
    CFT_GRADED(t6, ch09_6_mollifier, "ch09.6", 4, "mollifier f1 and potential f0: values, C1 join, derivatives");
    CFT_GRADED(t6, ch09_6_pair_friction_derivatives, "ch09.6", 5, "pair friction: force, gradient, Hessian, PSD");
    TCase *t6s = cft_tcase_scene(s, "ch09.6-scene");
    CFT_GRADED(t6s, ch09_6_stopping_distance, "ch09.6", 2, "stopping distance v0^2/(2 mu g) within h v0 + eps_v t");
    CFT_GRADED(t6s, ch09_6_incline_slide_and_creep, "ch09.6", 4, "incline: a = g(sin - mu cos); creep speed within 5 %");

    TCase *t7 = cft_tcase_unit(s, "ch09.7");
    CFT_GRADED(t7, ch09_7_penalty_and_bump, "ch09.7", 2, "cubic penalty: derivatives, C2 join; the stiffness bump");
    CFT_GRADED(t7, ch09_7_slide_profiles, "ch09.7", 2, "sliding profiles: values, derivatives, creep speeds");
    CFT_GRADED(t7, ch09_7_dual_numbers, "ch09.7", 2, "dual numbers against analytic derivatives and differences");
    CFT_GRADED(t7, ch09_7_force_jacobians, "ch09.7", 3, "force Jacobians by differences, J p by duals, (a)symmetry");
    CFT_GRADED(t7, ch09_7_bicgstab, "ch09.7", 2, "BiCGSTAB on non-symmetric systems");
    CFT_GRADED(t7, ch09_7_newton_direct_and_inexact, "ch09.7", 3, "damped Newton: quadratic, monotone; inexact: same root");
    TCase *t7s = cft_tcase_scene(s, "ch09.7-scene");
    CFT_GRADED(t7s, ch09_7_integrators_oscillator, "ch09.7", 3, "BE, TR, BDF2, SDIRK2: energy, orders, L-stability");
    CFT_GRADED(t7s, ch09_7_incline_creep, "ch09.7", 1, "implicit BE creep on the incline: s(x) = tan/mu to 1e-6");
    CFT_GRADED(t7s, ch09_7_block_slide_stopping, "ch09.7", 1, "block slide: stopping distance, BE and TR, two steps");
    CFT_GRADED(t7s, ch09_7_volume_penalty, "ch09.7", 2, "volume penalty: W, ideal-gas agreement, mesh volume, Jacobian, loss vs beta");
    CFT_GRADED(t7, ch09_7_step_bump_and_failure, "ch09.7", 1, "the stiffness bump repeats a penetrating step; a failed step keeps the state");

    TCase *tl = cft_tcase_unit(s, "ch09-library");
    CFT_TEST(tl, lib_ipc_system_checks, "the IPC system's builders reject bad input");
    CFT_TEST(tl, lib_ipc_energy_derivatives, "the assembled energy's gradient and Hessian by differences");
    cft_ch09_tet_tests(s); /* test_ch09_tets.c: elasticity under IPC (provided) */
    TCase *tt = cft_tcase_unit(s, "ch09-truth");
    CFT_TEST(tt, truth_implicit_empty_system, "an implicit system without nodes steps with every integrator");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "ch09", build); }
