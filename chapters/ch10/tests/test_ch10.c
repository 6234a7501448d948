/* SPDX-License-Identifier: MIT */
/* Chapter 10 tests: the Matchstick generator against worked numbers (README) and under a
   rotation of the whole configuration; the ellipse projection against its KKT conditions and a
   sampled rim; the force of maximal dissipation against the minimum of f.v over the rim; the
   anisotropic solvers (blocked PGS, PROX-GS of Algorithm 22, Newton on the NCP) against the
   natural map of the elliptic cone, against each other and against chapters 5-7 on the
   isotropic equivalent problem; the NCP Jacobians against finite differences; friction tensors
   against f^T C_P f = lambda_n^2 and worked forces; plowing against a texture whose
   coefficients are known in closed form. Run with `make test-ch10` (your code) or
   `make test-ch10 IMPL=solutions`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_ch02.h"
#include "cf/cf_ch05.h"
#include "cf/cf_ch06.h"
#include "cf/cf_ch07.h"
#include "cf/cf_ch10.h"
#include "cf/cf_rng.h"
#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

static const cfMatchstick MS = {.mu = 0.5, .mu_t = 0.2, .mu_b = 0.8};

/* a problem of nc contacts with the dense W (row-major 3nc x 3nc), q, and the ellipses (NULL:
   isotropic, mu[a] = mu_tb[2a]) */
static void make_problem(int nc, const double *W, const double *q, const double *mu_tb, bool ellipse,
                         cfFrictionProblem *p)
{
    memset(p, 0, sizeof *p);
    int n = 3 * nc;
    p->nc = nc;
    cft_assert_ok(cf_bsr_init(&p->W, nc, nc, 3, 3));
    for (int a = 0; a < nc; ++a)
        for (int c = 0; c < nc; ++c) {
            double B[9];
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) B[3 * i + j] = W[(3 * a + i) * n + 3 * c + j];
            cft_assert_ok_at(cf_bsr_add_block(&p->W, a, c, B), "a = %d, c = %d", a, c);
        }
    cf_bsr_finalize(&p->W);
    p->q = malloc((size_t)n * sizeof *p->q);
    p->mu = malloc((size_t)nc * sizeof *p->mu);
    ck_assert(p->q && p->mu);
    memcpy(p->q, q, (size_t)n * sizeof *q);
    for (int a = 0; a < nc; ++a) p->mu[a] = fmax(mu_tb[2 * a], mu_tb[2 * a + 1]);
    if (ellipse) {
        p->ellipse = malloc((size_t)2 * nc * sizeof *p->ellipse);
        ck_assert(p->ellipse);
        memcpy(p->ellipse, mu_tb, (size_t)2 * nc * sizeof *mu_tb);
    }
}

/* a random problem: W = I + (0.3 / n) B B^T (SPD, coupled, well conditioned: one solution),
   normal q in [-1, 0.2] (most contacts pressed), tangent q in [-1, 1], ellipses in [lo, hi] */
static void random_problem(cfRng *g, int nc, double lo, double hi, bool ellipse, cfFrictionProblem *p)
{
    int n = 3 * nc;
    double *B = malloc((size_t)n * n * sizeof *B), *W = calloc((size_t)n * n, sizeof *W), *q = malloc((size_t)n * sizeof *q),
           *mu = malloc((size_t)2 * nc * sizeof *mu);
    ck_assert(B && W && q && mu);
    for (int i = 0; i < n * n; ++i) B[i] = cf_rng_range(g, -1, 1);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = i == j ? 1.0 : 0.0;
            for (int k = 0; k < n; ++k) s += 0.3 / n * B[i * n + k] * B[j * n + k];
            W[i * n + j] = s;
        }
    for (int a = 0; a < nc; ++a) {
        q[3 * a] = cf_rng_range(g, -1, 0.2);
        q[3 * a + 1] = cf_rng_range(g, -1, 1);
        q[3 * a + 2] = cf_rng_range(g, -1, 1);
        mu[2 * a] = cf_rng_range(g, lo, hi);
        mu[2 * a + 1] = cf_rng_range(g, lo, hi);
    }
    make_problem(nc, W, q, mu, ellipse, p);
    free(B), free(W), free(q), free(mu);
}

/* the angle between two plane vectors (radians) */
static double angle2(const double a[2], const double b[2])
{
    return acos(fmax(-1.0, fmin(1.0, (a[0] * b[0] + a[1] * b[1]) / (hypot(a[0], a[1]) * hypot(b[0], b[1])))));
}

/* (x/a)^2 + (y/b)^2 */
static double ellipse_level(const double axes[2], const double x[2])
{
    return (x[0] / axes[0]) * (x[0] / axes[0]) + (x[1] / axes[1]) * (x[1] / axes[1]);
}

/* the rotation of the world used to check that a result turns with its input */
static cfVec3 turn(cfQuat q, cfVec3 v) { return cfu_quat_rotate(q, v); }

/* ------------------------------------------------------------------------------------------ */
/* ch10.1 the Matchstick generator                                                             */

START_TEST(ch10_1_worked)
{
    /* the README's numbers: mu 0.5, mu^A (0.2, 0.8), n = z, s_A = x */
    const cfVec3 n = cfu_vec3(0, 0, 1), x = cfu_vec3(1, 0, 0);
    struct {
        cfVec3 sb;
        double mt, mb;
        cfVec3 t;
    } cases[] = {
        {cfu_vec3(1, 0, 0), 0.2, 0.8, cfu_vec3(1, 0, 0)},     /* parallel: fully anisotropic */
        {cfu_vec3(-3, 0, 0), 0.2, 0.8, cfu_vec3(1, 0, 0)},    /* flipped and longer: orientation only */
        {cfu_vec3(0, 1, 0), 0.5, 0.5, cfu_vec3(sqrt(0.5), sqrt(0.5), 0)}, /* orthogonal: isotropic */
        {cfu_vec3(sqrt(0.5), sqrt(0.5), 0), 0.35, 0.65, cfu_vec3(0.9238795325112867, 0.3826834323650898, 0)},
        /* 30 degrees: d = 2/3, linear in d (a cosine interpolation gives other numbers) */
        {cfu_vec3(cos(CF_PI / 6), sin(CF_PI / 6), 0), 0.3, 0.7, cfu_vec3(cos(CF_PI / 12), sin(CF_PI / 12), 0)},
        /* -60 degrees with the flip: s_B = (-cos 60, sin 60) is 60 degrees from -x... d = 1/3 */
        {cfu_vec3(-0.5, sqrt(0.75), 0), 0.4, 0.6, cfu_vec3(cos(-CF_PI / 6), sin(-CF_PI / 6), 0)},
    };
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); ++k) {
        cfVec3 t, b;
        double mu[2];
        cft_assert_ok_at(cf_matchstick_cone(n, x, cases[k].sb, &MS, &t, &b, mu), "case %d", k);
        cft_assert_near_at(mu[0], cases[k].mt, 1e-14, 0, "case %d", k);
        cft_assert_near_at(mu[1], cases[k].mb, 1e-14, 0, "case %d", k);
        /* t: the mean direction (up to sign only when isotropic) */
        double s = cases[k].mt == cases[k].mb && cfu_dot(t, cases[k].t) < 0 ? -1.0 : 1.0;
        cft_assert_vec3_near_at(cfu_scale(s, t), cases[k].t, 1e-14, "case %d", k);
        cft_assert_near_at(cfu_norm(t), 1.0, 1e-15, 0, "case %d", k);
        cft_assert_near_at(cfu_dot(t, b), 0.0, 1e-15, 0, "case %d", k);
        cft_assert_near_at(cfu_dot(n, b), 0.0, 1e-15, 0, "case %d", k);
        cft_assert_near_at(cfu_dot(cfu_cross(n, t), b), 1.0, 1e-15, 0, "case %d (right-handed)", k);
    }
    /* the 45 degree frame of the README: b = (-0.38268, 0.92388, 0) */
    cfVec3 t, b;
    double mu[2];
    cft_assert_ok(cf_matchstick_cone(n, x, cfu_vec3(1, 1, 0), &MS, &t, &b, mu));
    cft_assert_vec3_near(b, cfu_vec3(-0.3826834323650898, 0.9238795325112867, 0), 1e-14);
    /* parallel directions off the axes: the dot of the two unit tangents may round above 1,
       and the angle is still 0 (fully anisotropic, finite) */
    for (int k = 1; k <= 40; ++k) {
        cfVec3 v = cfu_vec3(1.0 + k, 0.37 * k * k, 0);
        cft_assert_ok_at(cf_matchstick_cone(n, v, v, &MS, &t, &b, mu), "k = %d", k);
        cft_assert_near_at(mu[0], 0.2, 1e-7, 0, "k = %d", k);
        cft_assert_near_at(mu[1], 0.8, 1e-7, 0, "k = %d", k);
    }
}
END_TEST

START_TEST(ch10_1_robust_and_rotated)
{
    cfRng g;
    cf_rng_seed(&g, 101);
    const cfVec3 z = cfu_vec3(0, 0, 1);
    /* directions with a normal part are projected first: the same answer as without it */
    cfVec3 t0, b0, t1, b1;
    double m0[2], m1[2];
    cft_assert_ok(cf_matchstick_cone(z, cfu_vec3(1, 0, 0), cfu_vec3(1, 1, 0), &MS, &t0, &b0, m0));
    cft_assert_ok(cf_matchstick_cone(z, cfu_vec3(1, 0, 5), cfu_vec3(2, 2, -7), &MS, &t1, &b1, m1));
    cft_assert_near(m1[0], m0[0], 1e-14, 0);
    cft_assert_near(m1[1], m0[1], 1e-14, 0);
    cft_assert_vec3_near(t1, t0, 1e-14);
    /* a whole configuration turned by a random rotation: the frame turns with it, the ellipse stays */
    for (int k = 0; k < 50; ++k) {
        cfQuat q = cf_rng_quat(&g);
        cfVec3 sa = cfu_vec3(cf_rng_range(&g, -1, 1), cf_rng_range(&g, -1, 1), cf_rng_range(&g, -1, 1));
        cfVec3 sb = cfu_vec3(cf_rng_range(&g, -1, 1), cf_rng_range(&g, -1, 1), cf_rng_range(&g, -1, 1));
        cfVec3 t, b, tr, br;
        double mu[2], mr[2];
        cft_assert_ok_at(cf_matchstick_cone(z, sa, sb, &MS, &t, &b, mu), "k = %d", k);
        cft_assert_ok_at(cf_matchstick_cone(turn(q, z), turn(q, sa), turn(q, sb), &MS, &tr, &br, mr), "k = %d", k);
        cft_assert_near_at(mr[0], mu[0], 1e-12, 0, "k = %d", k);
        cft_assert_near_at(mr[1], mu[1], 1e-12, 0, "k = %d", k);
        cft_assert_vec3_near_at(tr, turn(q, t), 1e-12, "k = %d", k);
        cft_assert_vec3_near_at(br, turn(q, b), 1e-12, "k = %d", k);
        /* between the two extremes, mu_t <= mu_b here */
        cft_assert_at(mu[0] >= 0.2 - 1e-15 && mu[0] <= 0.5 + 1e-15 && mu[1] >= 0.5 - 1e-15 && mu[1] <= 0.8 + 1e-15,
                      "k = %d: mu = (%g, %g)", k, mu[0], mu[1]);
        /* swapping the surfaces gives the same ellipse and the same axis (up to sign) */
        cfVec3 ts, bs;
        double ms[2];
        cft_assert_ok_at(cf_matchstick_cone(z, sb, sa, &MS, &ts, &bs, ms), "k = %d", k);
        cft_assert_near_at(ms[0], mu[0], 1e-12, 0, "k = %d", k);
        cft_assert_near_at(fabs(cfu_dot(ts, t)), 1.0, 1e-12, 0, "k = %d", k);
    }
    /* an unstructured surface (direction along n): isotropic, t from the other surface */
    cfVec3 t, b;
    double mu[2];
    cft_assert_ok(cf_matchstick_cone(z, cfu_vec3(0, 0, 2), cfu_vec3(0, 3, 1), &MS, &t, &b, mu));
    cft_assert_near(mu[0], 0.5, 1e-15, 0);
    cft_assert_near(mu[1], 0.5, 1e-15, 0);
    cft_assert_vec3_near(t, cfu_vec3(0, 1, 0), 1e-15);
    /* the threshold is 1e-9 |s|: a projection of 1e-7 |s| still orients its surface, so s_b =
       (0, 1e-7, 1) is parallel to s_a = y (d = 1: the ellipse (mu_t^A, mu_b^A), not isotropic) */
    cft_assert_ok(cf_matchstick_cone(z, cfu_vec3(0, 1, 0), cfu_vec3(0, 1e-7, 1), &MS, &t, &b, mu));
    cft_assert_near(mu[0], 0.2, 1e-12, 0);
    cft_assert_near(mu[1], 0.8, 1e-12, 0);
    cft_assert_vec3_near(t, cfu_vec3(0, 1, 0), 1e-12);
    /* neither: chapter 2's frame */
    cfVec3 tc, bc;
    cft_assert_ok(cf_contact_frame(z, &tc, &bc));
    cft_assert_ok(cf_matchstick_cone(z, cfu_vec3(0, 0, 1), cfu_vec3(0, 0, 0), &MS, &t, &b, mu));
    cft_assert_vec3_near(t, tc, 1e-15);
    cft_assert_vec3_near(b, bc, 1e-15);
    /* bad input */
    cfMatchstick neg = {.mu = 0.5, .mu_t = -0.1, .mu_b = 0.8};
    cft_assert_status(cf_matchstick_cone(cfu_vec3(0, 0, 2), cfu_vec3(1, 0, 0), cfu_vec3(1, 0, 0), &MS, &t, &b, mu), CF_BAD_INPUT);
    cft_assert_status(cf_matchstick_cone(z, cfu_vec3(NAN, 0, 0), cfu_vec3(1, 0, 0), &MS, &t, &b, mu), CF_BAD_INPUT);
    cft_assert_status(cf_matchstick_cone(z, cfu_vec3(1, 0, 0), cfu_vec3(1, 0, 0), &neg, &t, &b, mu), CF_BAD_INPUT);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch10.2 the ellipse                                                                          */

/* the certificate of a projection of z onto the ellipse of axes: x inside; when z is outside, x
   on the rim with z - x = s K x, s >= 0 (the outward normal); and no sampled rim point closer */
static void check_projection(const double axes[2], const double z[2], const double x[2], double tol, const char *where)
{
    double lv = ellipse_level(axes, z), d = hypot(z[0] - x[0], z[1] - x[1]);
    if (lv <= 1.0) {
        ck_assert_msg(x[0] == z[0] && x[1] == z[1], "%s: inside point moved to (%g, %g)", where, x[0], x[1]);
        return;
    }
    cft_assert_near_at(ellipse_level(axes, x), 1.0, tol, 0, "%s: on the rim", where);
    double kx[2] = {x[0] / (axes[0] * axes[0]), x[1] / (axes[1] * axes[1])}, r[2] = {z[0] - x[0], z[1] - x[1]};
    /* z - x parallel to K x and in its direction */
    double cross = (r[0] * kx[1] - r[1] * kx[0]) / (hypot(r[0], r[1]) * hypot(kx[0], kx[1]));
    cft_assert_near_at(cross, 0.0, tol, 0, "%s: z - x along the normal", where);
    ck_assert_msg(r[0] * kx[0] + r[1] * kx[1] >= 0, "%s: z - x points inwards", where);
    for (int i = 0; i < 720; ++i) {
        double th = 2 * CF_PI * i / 720, p[2] = {axes[0] * cos(th), axes[1] * sin(th)};
        cft_assert_at(hypot(z[0] - p[0], z[1] - p[1]) >= d * (1 - 1e-12), "%s: rim point %d is closer", where, i);
    }
}

START_TEST(ch10_2_projection)
{
    /* the worked point */
    const double ax[2] = {2, 1}, z[2] = {3, 2};
    double x[2];
    ck_assert_int_gt(cf_ellipse_project(ax, z, 1e-15, x), 0);
    cft_assert_near(x[0], 1.7254112548559848, 1e-12, 0);
    cft_assert_near(x[1], 0.5057064369810554, 1e-12, 0);
    check_projection(ax, z, x, 1e-12, "worked");
    /* inside: unchanged, no steps */
    const double in[2] = {1.0, 0.5};
    ck_assert_int_eq(cf_ellipse_project(ax, in, 1e-15, x), 0);
    ck_assert(x[0] == in[0] && x[1] == in[1]);
    /* degenerate ellipses: both axes 0 and z = 0 gives 0 (whatever x held); one axis 0 is the
       segment along the other, so z outside goes to its end */
    x[0] = x[1] = 7.0;
    cf_ellipse_project((double[]){0, 0}, (double[]){0, 0}, 1e-15, x);
    ck_assert(x[0] == 0.0 && x[1] == 0.0);
    cf_ellipse_project((double[]){2, 0}, (double[]){3, 1}, 1e-15, x);
    cft_assert_near(x[0], 2.0, 1e-14, 0);
    cft_assert_near(x[1], 0.0, 0, 0);
    cf_ellipse_project((double[]){0, 2}, (double[]){-1, -3}, 1e-15, x);
    cft_assert_near(x[0], 0.0, 0, 0);
    cft_assert_near(x[1], -2.0, 1e-14, 0);
    /* random points and axes from 1e-6 to 1e6: the certificate, idempotence */
    cfRng g;
    cf_rng_seed(&g, 202);
    for (int k = 0; k < 300; ++k) {
        double s = pow(10.0, cf_rng_range(&g, -6, 6)), a[2] = {s * cf_rng_range(&g, 0.05, 1), s * cf_rng_range(&g, 0.05, 1)};
        double zz[2] = {s * cf_rng_range(&g, -3, 3), s * cf_rng_range(&g, -3, 3)}, p[2], pp[2];
        cf_ellipse_project(a, zz, 1e-15, p);
        char where[64];
        snprintf(where, sizeof where, "k = %d, scale %g", k, s);
        check_projection(a, zz, p, 1e-9, where);
        cf_ellipse_project(a, p, 1e-15, pp);
        cft_assert_near_at(pp[0], p[0], 1e-12 * s, 0, "k = %d (idempotent)", k);
        cft_assert_near_at(pp[1], p[1], 1e-12 * s, 0, "k = %d (idempotent)", k);
    }
    /* tol = 0: the bisection runs to adjacent doubles and stops when the midpoint equals EITHER
       end (which one depends on the rounding of (lo + hi) / 2). From [0, t_1] with t_1 / t* < 20
       here that is about 60 halvings; a stop on one end only runs on to the 1100-step cap
       whenever the midpoint rounds to the other. 16 points around the ellipse (2, 1). */
    for (int k = 0; k < 16; ++k) {
        double th = 2 * CF_PI * (k + 0.3) / 16, zk[2] = {3 * cos(th), 3 * sin(th)};
        int steps = cf_ellipse_project(ax, zk, 0.0, x);
        cft_assert_at(steps >= 1 && steps <= 200, "k = %d: %d bisection steps at tol 0", k, steps);
        check_projection(ax, zk, x, 1e-12, "tol 0");
    }
    /* the worked point scaled by 1e-200 and 1e200: the same answer, scaled (a scale of
       1/max(1, ...) squares 1e-200 to 0) */
    for (int k = -1; k <= 1; k += 2) {
        double sc = pow(10.0, 200 * k), as[2] = {2 * sc, sc}, zs[2] = {3 * sc, 2 * sc};
        cf_ellipse_project(as, zs, 1e-15, x);
        cft_assert_near_at(x[0], 1.7254112548559848 * sc, 1e-12 * sc, 0, "scale %g", sc);
        cft_assert_near_at(x[1], 0.5057064369810554 * sc, 1e-12 * sc, 0, "scale %g", sc);
    }
    /* a circle: the disk's radial projection */
    const double c[2] = {0.5, 0.5}, zc[2] = {3, -4};
    cf_ellipse_project(c, zc, 1e-15, x);
    cft_assert_near(x[0], 0.3, 1e-14, 0);
    cft_assert_near(x[1], -0.4, 1e-14, 0);
    /* a zero axis pins its coordinate; both zero: the origin */
    const double pin[2] = {0.0, 2.0}, zp[2] = {1.0, 3.0}, zero[2] = {0, 0};
    cf_ellipse_project(pin, zp, 1e-15, x);
    cft_assert_near(x[0], 0.0, 0, 0);
    cft_assert_near(x[1], 2.0, 1e-14, 0);
    const double zi[2] = {1.0, 1.0};
    cf_ellipse_project(pin, zi, 1e-15, x);
    cft_assert_near(x[0], 0.0, 0, 0);
    cft_assert_near(x[1], 1.0, 0, 0);
    cf_ellipse_project(zero, zp, 1e-15, x);
    ck_assert(x[0] == 0 && x[1] == 0);
}
END_TEST

START_TEST(ch10_2_max_dissipation)
{
    /* (0.2, 0.8), v at 45 degrees: f at 86.4 degrees from -t (atan 16), on the rim */
    const double mu[2] = {0.2, 0.8}, v45[2] = {1, 1}, mt[2] = {-1, 0};
    double f[2];
    cf_ellipse_max_dissipation(mu, 1.0, v45, f);
    cft_assert_near(angle2(f, mt) * 180 / CF_PI, atan(16.0) * 180 / CF_PI, 1e-10, 0);
    cft_assert_near(atan(16.0) * 180 / CF_PI, 86.42, 0.01, 0);
    cft_assert_near(ellipse_level(mu, f), 1.0, 1e-14, 0);
    /* along an axis: anti-parallel with the axis' coefficient; sized by lambda_n; lambda_n < 0 is 0 */
    const double vt[2] = {2, 0}, vb[2] = {0, -0.1};
    cf_ellipse_max_dissipation(mu, 3.0, vt, f);
    cft_assert_near(f[0], -0.6, 1e-15, 0);
    cft_assert_near(f[1], 0.0, 1e-15, 0);
    cf_ellipse_max_dissipation(mu, 3.0, vb, f);
    cft_assert_near(f[0], 0.0, 1e-15, 0);
    cft_assert_near(f[1], 2.4, 1e-15, 0);
    cf_ellipse_max_dissipation(mu, -1.0, v45, f);
    ck_assert(f[0] == 0 && f[1] == 0);
    /* the certificate: f minimizes f.v over the rim (sampled), for random ellipses and v */
    cfRng g;
    cf_rng_seed(&g, 303);
    for (int k = 0; k < 100; ++k) {
        double m[2] = {cf_rng_range(&g, 0.05, 1.5), cf_rng_range(&g, 0.05, 1.5)}, ln = cf_rng_range(&g, 0.1, 3);
        double v[2] = {cf_rng_range(&g, -1, 1), cf_rng_range(&g, -1, 1)}, axes[2] = {m[0] * ln, m[1] * ln};
        cf_ellipse_max_dissipation(m, ln, v, f);
        cft_assert_near_at(ellipse_level(axes, f), 1.0, 1e-12, 0, "k = %d", k);
        double fv = f[0] * v[0] + f[1] * v[1];
        for (int i = 0; i < 360; ++i) {
            double th = 2 * CF_PI * i / 360;
            cft_assert_at(axes[0] * cos(th) * v[0] + axes[1] * sin(th) * v[1] >= fv - 1e-12, "k = %d, rim %d", k, i);
        }
    }
    /* steady sliding under a pull F on the rim (lambda_n = 1): the friction is -F, and the
       velocity v ~ diag(1/mu_t^2, 1/mu_b^2) F, 3.58 degrees from t for F at 45 degrees */
    double s = 1.0 / sqrt(25.0 + 1.5625), F[2] = {s, s}, v[2] = {F[0] / 0.04, F[1] / 0.64};
    cft_assert_near(atan2(v[1], v[0]) * 180 / CF_PI, 3.58, 0.005, 0);
    cf_ellipse_max_dissipation(mu, 1.0, v, f);
    cft_assert_near(f[0], -F[0], 1e-14, 0);
    cft_assert_near(f[1], -F[1], 1e-14, 0);
    /* stick or slide at lambda_n = 1: (0.1, 0.1) is inside (sticks), (0.2, 0.2) outside */
    const double stick[2] = {0.1, 0.1}, slide[2] = {0.2, 0.2};
    double x[2];
    cf_ellipse_project(mu, stick, 1e-15, x);
    ck_assert(x[0] == 0.1 && x[1] == 0.1);
    cf_ellipse_project(mu, slide, 1e-15, x);
    ck_assert(fabs(x[0] - 0.2) > 1e-3);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch10.3 anisotropic PROX-GS and blocked PGS                                                  */

/* the isotropic equivalent solved by chapter 5's blocked PGS, mapped back: r = S r' */
static void solve_by_equivalent(const cfFrictionProblem *p, double *r)
{
    cfFrictionProblem iso;
    double *scale = malloc((size_t)2 * p->nc * sizeof *scale);
    ck_assert(scale);
    cft_assert_ok(cf_fc_isotropic_equivalent(p, &iso, scale));
    cfSplitOptions o = cf_split_options_default();
    o.tol_abs = 1e-13;
    o.max_iter = 20000;
    memset(r, 0, (size_t)3 * p->nc * sizeof *r);
    cft_assert_ok(cf_fc_bgs(&iso, &o, r, NULL));
    for (int a = 0; a < p->nc; ++a) {
        r[3 * a + 1] *= scale[2 * a];
        r[3 * a + 2] *= scale[2 * a + 1];
    }
    cf_fc_free(&iso);
    free(scale);
}

START_TEST(ch10_3_local_solve)
{
    /* one sliding particle (W = I): after the local solve u_T = 0 or r_T = max dissipation */
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, mu[2] = {0.2, 0.8};
    double q[3] = {-1, 0.5, 0.5}, u[3] = {q[0], q[1], q[2]}, r[3] = {0, 0, 0};
    cf_contact_local_solve_ellipse(I, mu, CF_FRICTION_CONE, 1.0, u, r);
    cft_assert_near(r[0], 1.0, 1e-15, 0);
    double uT[2] = {u[1], u[2]}, rT[2] = {r[1], r[2]}, f[2];
    cft_assert_near(cf_contact_residual2_ellipse(r, u, mu[0], mu[1], CF_FRICTION_CONE), 0.0, 1e-24, 0);
    cf_ellipse_max_dissipation(mu, r[0], uT, f);
    cft_assert_near(rT[0], f[0], 1e-12, 0);
    cft_assert_near(rT[1], f[1], 1e-12, 0);
    /* u stays W r + q */
    for (int i = 0; i < 3; ++i) cft_assert_near_at(u[i], q[i] + r[i], 1e-15, 0, "i = %d", i);
    /* the stick candidate's test det W_TT > 1e-14 W_tt W_bb is relative: W and u scaled by 1e-9,
       1 and 1e6 give the same sticking impulse r_T = -W_TT^-1 u_T = -(0.005, 0.015) / 1.75 (u_T =
       0 after); an absolute det > 1e-14 takes the projected step at 1e-9 (det = 1.75e-18) */
    for (int e = 0; e < 3; ++e) {
        double sc = e == 0 ? 1e-9 : e == 1 ? 1.0 : 1e6;
        double Ws[9] = {sc, 0, 0, 0, 2 * sc, 0.5 * sc, 0, 0.5 * sc, sc}, us[3] = {-sc, 0.01 * sc, 0.01 * sc}, rs[3] = {0, 0, 0};
        cf_contact_local_solve_ellipse(Ws, mu, CF_FRICTION_CONE, 1.0, us, rs);
        cft_assert_near_at(rs[0], 1.0, 1e-12, 0, "scale %g", sc);
        cft_assert_near_at(rs[1], -0.005 / 1.75, 1e-12, 0, "scale %g", sc);
        cft_assert_near_at(rs[2], -0.015 / 1.75, 1e-12, 0, "scale %g", sc);
        cft_assert_near_at(us[1], 0.0, 1e-12 * sc, 0, "scale %g", sc);
        cft_assert_near_at(us[2], 0.0, 1e-12 * sc, 0, "scale %g", sc);
    }
    /* the box: each tangent bounded by its own coefficient (swapped axes fail here) */
    double ub[3] = {-1, 0.5, 0.5}, rb[3] = {0, 0, 0};
    cf_contact_local_solve_ellipse(I, mu, CF_FRICTION_BOX, 1.0, ub, rb);
    cft_assert_near(rb[1], -0.2, 1e-15, 0);
    cft_assert_near(rb[2], -0.5, 1e-15, 0);
    /* equal coefficients: chapter 5's local solve, on random blocks and states */
    cfRng g;
    cf_rng_seed(&g, 404);
    for (int k = 0; k < 200; ++k) {
        double B[9], W[9], m = cf_rng_range(&g, 0.1, 1.0), u1[3], u2[3], r1[3], r2[3], mm[2] = {m, m};
        for (int i = 0; i < 9; ++i) B[i] = cf_rng_range(&g, -1, 1);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) W[3 * i + j] = (i == j) + 0.5 * (B[i] * B[j] + B[3 + i] * B[3 + j] + B[6 + i] * B[6 + j]);
        for (int i = 0; i < 3; ++i) {
            u1[i] = u2[i] = cf_rng_range(&g, -1, 1);
            r1[i] = r2[i] = i == 0 ? cf_rng_range(&g, 0, 1) : cf_rng_range(&g, -0.3, 0.3); /* a warm start */
        }
        cfFrictionModel model = k % 2 ? CF_FRICTION_BOX : CF_FRICTION_CONE;
        double d1 = cf_contact_local_solve_ellipse(W, mm, model, 1.0, u1, r1);
        double d2 = cf_contact_local_solve(W, m, model, 1.0, u2, r2);
        cft_assert_near_at(d1, d2, 1e-12, 0, "k = %d", k);
        for (int i = 0; i < 3; ++i) {
            cft_assert_near_at(r1[i], r2[i], 1e-12, 0, "k = %d, i = %d", k, i);
            cft_assert_near_at(u1[i], u2[i], 1e-12, 0, "k = %d, i = %d", k, i);
        }
    }
}
END_TEST

START_TEST(ch10_3_bgs_solves)
{
    /* random coupled problems with ellipses: natural map of the elliptic cone below 1e-10, and the
       same impulses as chapter 5 on the isotropic equivalent (an independent route) */
    cfRng g;
    cf_rng_seed(&g, 505);
    for (int k = 0; k < 12; ++k) {
        cfFrictionProblem p;
        int nc = 1 + k % 5;
        random_problem(&g, nc, 0.05, 0.9, true, &p);
        double *r = calloc((size_t)3 * nc, sizeof *r), *ref = malloc((size_t)3 * nc * sizeof *ref);
        ck_assert(r && ref);
        cfSplitOptions o = cf_split_options_default();
        o.tol_abs = 1e-12;
        o.max_iter = 20000;
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok_at(cf_fc_bgs_aniso(&p, &o, r, &rep), "k = %d", k);
        cft_assert_at(cf_fc_residual(&p, r) <= 1e-12, "k = %d: residual %g", k, cf_fc_residual(&p, r));
        cft_assert_at(rep.residual <= 1e-12 && rep.iterations > 0, "k = %d", k);
        solve_by_equivalent(&p, ref);
        for (int i = 0; i < 3 * nc; ++i) cft_assert_near_at(r[i], ref[i], 1e-8, 0, "k = %d, i = %d", k, i);
        /* the box: each axis' own bound */
        memset(r, 0, (size_t)3 * nc * sizeof *r);
        o.friction = CF_FRICTION_BOX;
        cft_assert_ok_at(cf_fc_bgs_aniso(&p, &o, r, NULL), "k = %d (box)", k);
        cft_assert_at(cf_fc_box_residual(&p, r) <= 1e-12, "k = %d (box)", k);
        for (int a = 0; a < nc; ++a)
            for (int j = 0; j < 2; ++j)
                cft_assert_at(fabs(r[3 * a + 1 + j]) <= p.ellipse[2 * a + j] * r[3 * a] * (1 + 1e-12) + 1e-15,
                              "k = %d, a = %d, j = %d", k, a, j);
        free(r), free(ref);
        cf_fc_free(&p);
    }
    /* bad input: a negative ellipse */
    cfFrictionProblem p;
    random_problem(&g, 2, 0.1, 0.5, true, &p);
    p.ellipse[1] = -0.1;
    double r[6] = {0};
    cfSplitOptions o = cf_split_options_default();
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_status(cf_fc_bgs_aniso(&p, &o, r, &rep), CF_BAD_INPUT);
    cft_assert_status(rep.status, CF_BAD_INPUT);
    cf_fc_free(&p);
}
END_TEST

/* a cone generator that records the normal impulse it is given and returns the fixed ellipse */
typedef struct GenLog {
    const double *mu_tb;
    double lambda_n[16];
    int calls;
} GenLog;

static void gen_log(void *ctx, int a, double lambda_n, const double v_t[2], double axes[2])
{
    GenLog *l = ctx;
    (void)v_t;
    if (a < 16) l->lambda_n[a] = lambda_n;
    ++l->calls;
    axes[0] = l->mu_tb[2 * a] * lambda_n;
    axes[1] = l->mu_tb[2 * a + 1] * lambda_n;
}

START_TEST(ch10_3_prox_gs)
{
    cfRng g;
    cf_rng_seed(&g, 606);
    for (int k = 0; k < 10; ++k) {
        int nc = 1 + k % 4;
        cfFrictionProblem fc;
        random_problem(&g, nc, 0.05, 0.9, true, &fc);
        cfProxProblem p;
        cft_assert_ok_at(cf_aniso_problem_from_fc(&fc, &p), "k = %d", k);
        double *lam = calloc((size_t)3 * nc, sizeof *lam), *ref = malloc((size_t)3 * nc * sizeof *ref);
        ck_assert(lam && ref);
        cfAnisoProxOptions o = cf_aniso_prox_options_default();
        o.tol = 1e-14;
        o.max_iter = 20000;
        cft_assert_ok_at(cf_aniso_prox_gs(&p, NULL, NULL, &o, lam, NULL, NULL), "k = %d", k);
        /* the certificate and the independent route */
        cft_assert_at(cf_fc_residual(&fc, lam) <= 1e-10, "k = %d: residual %g", k, cf_fc_residual(&fc, lam));
        solve_by_equivalent(&fc, ref);
        for (int i = 0; i < 3 * nc; ++i) cft_assert_near_at(lam[i], ref[i], 1e-8, 0, "k = %d, i = %d", k, i);
        /* the generator is called once per contact with the NEW normal impulse */
        GenLog log = {.mu_tb = fc.ellipse};
        double *trial = malloc((size_t)3 * nc * sizeof *trial), *w = malloc((size_t)(p.nv > 0 ? p.nv : 1) * sizeof *w),
               *r = malloc((size_t)3 * nc * sizeof *r), *zero = calloc((size_t)3 * nc, sizeof *zero);
        ck_assert(trial && w && r && zero);
        for (int a = 0; a < nc; ++a) {
            double A[9];
            cf_prox_block(&p, a, A);
            for (int i = 0; i < 3; ++i) r[3 * a + i] = 1.0 / A[4 * i];
        }
        cf_aniso_prox_gs_sweep(&p, r, gen_log, &log, 1e-15, zero, trial, w);
        ck_assert_int_eq(log.calls, nc);
        for (int a = 0; a < nc; ++a) cft_assert_near_at(log.lambda_n[a], trial[3 * a], 0, 0, "k = %d, a = %d", k, a);
        /* the fixed ellipse (no generator) is also sized by the new normal impulse: the same sweep
           (sized by the old one, 0 here, the first sweep would have no friction at all) */
        double *fixed = malloc((size_t)3 * nc * sizeof *fixed);
        ck_assert(fixed);
        cf_aniso_prox_gs_sweep(&p, r, NULL, NULL, 1e-15, zero, fixed, w);
        for (int i = 0; i < 3 * nc; ++i) cft_assert_near_at(fixed[i], trial[i], 0, 0, "k = %d, i = %d", k, i);
        /* Gauss-Seidel: contact a sees the NEW impulses of contacts 0 .. a-1 through w (here J = I,
           G = W^T: v = W lambda + q). The sweep written out, from 0 with these r: every contact
           after the first differs from a Jacobi sweep (W couples them all) */
        {
            double *gs = calloc((size_t)3 * nc, sizeof *gs), *v = malloc((size_t)3 * nc * sizeof *v);
            ck_assert(gs && v);
            for (int a = 0; a < nc; ++a) {
                cf_bsr_mul_vec(&fc.W, gs, v);
                double zt[3];
                for (int i = 0; i < 3; ++i) zt[i] = gs[3 * a + i] - r[3 * a + i] * (v[3 * a + i] + fc.q[3 * a + i]);
                double nn = fmax(0.0, zt[0]), sr[2] = {sqrt(r[3 * a + 1]), sqrt(r[3 * a + 2])};
                double axs[2] = {fc.ellipse[2 * a] * nn / sr[0], fc.ellipse[2 * a + 1] * nn / sr[1]};
                double ys[2] = {zt[1] / sr[0], zt[2] / sr[1]}, y[2];
                cf_ellipse_project(axs, ys, 1e-15, y);
                gs[3 * a] = nn, gs[3 * a + 1] = sr[0] * y[0], gs[3 * a + 2] = sr[1] * y[1];
            }
            for (int i = 0; i < 3 * nc; ++i)
                cft_assert_near_at(fixed[i], gs[i], 1e-12, 1e-12, "k = %d, i = %d (the Gauss-Seidel sweep)", k, i);
            free(gs), free(v);
        }
        /* the loop's first sweep is that sweep, with the local r-factors r / A_ii (o.r = 1) */
        memset(lam, 0, (size_t)3 * nc * sizeof *lam);
        cfAnisoProxOptions o1 = o;
        o1.max_iter = 1;
        o1.r = 1.0;
        cf_aniso_prox_gs(&p, NULL, NULL, &o1, lam, NULL, NULL);
        for (int i = 0; i < 3 * nc; ++i) cft_assert_near_at(lam[i], fixed[i], 0, 0, "k = %d, i = %d (first sweep)", k, i);
        free(fixed);
        /* and with the generator, the same solution */
        memset(lam, 0, (size_t)3 * nc * sizeof *lam);
        cft_assert_ok_at(cf_aniso_prox_gs(&p, gen_log, &log, &o, lam, NULL, NULL), "k = %d (generator)", k);
        for (int i = 0; i < 3 * nc; ++i) cft_assert_near_at(lam[i], ref[i], 1e-8, 0, "k = %d, i = %d", k, i);
        free(lam), free(ref), free(trial), free(w), free(r), free(zero);
        cf_prox_problem_free(&p);
        cf_fc_free(&fc);
    }
}
END_TEST

START_TEST(ch10_3_prox_isotropic_and_adaptive)
{
    /* equal coefficients: chapter 7's PROX-GS answer */
    cfRng g;
    cf_rng_seed(&g, 707);
    cfFrictionProblem fc;
    random_problem(&g, 4, 0.3, 0.3, true, &fc);
    cfProxProblem p, p7;
    cft_assert_ok(cf_aniso_problem_from_fc(&fc, &p));
    double *e = fc.ellipse;
    fc.ellipse = NULL;
    cft_assert_ok(cf_prox_problem_from_fc(&fc, &p7));
    fc.ellipse = e;
    double lam[12] = {0}, l7[12] = {0};
    cfAnisoProxOptions o = cf_aniso_prox_options_default();
    o.tol = 1e-14;
    o.max_iter = 20000;
    cft_assert_ok(cf_aniso_prox_gs(&p, NULL, NULL, &o, lam, NULL, NULL));
    cfProxOptions o7 = cf_prox_options_default();
    o7.tol_abs = 1e-14;
    o7.max_iter = 20000;
    cft_assert_ok(cf_prox_gs(&p7, &o7, l7, NULL, NULL));
    for (int i = 0; i < 12; ++i) cft_assert_near_at(lam[i], l7[i], 1e-9, 0, "i = %d", i);
    /* r = 10 / A_ii: without adaptation it never settles; with nu = 0.9 it converges after rollbacks */
    double hist[64];
    cfReport rep;
    o.r = 10.0;
    o.nu = 1.0;
    o.max_iter = 300;
    double bad[12] = {0};
    cf_report_init(&rep, NULL, 0);
    cfStatus st = cf_aniso_prox_gs(&p, NULL, NULL, &o, bad, &rep, NULL);
    ck_assert_msg(st != CF_OK, "r = 10 without rollback converged (%s)", cf_status_name(st));
    o.nu = 0.9;
    o.max_iter = 20000;
    int rollbacks = 0;
    double good[12] = {0};
    cf_report_init(&rep, hist, 64);
    cft_assert_ok(cf_aniso_prox_gs(&p, NULL, NULL, &o, good, &rep, &rollbacks));
    ck_assert_int_gt(rollbacks, 0);
    cft_assert_status(rep.status, CF_OK);
    ck_assert_int_eq(rep.measure, CF_MEASURE_IMPULSE_CHANGE);
    cft_assert_at(rep.residual <= 1e-14, "merit %g", rep.residual);
    /* the history of accepted merits never grows */
    for (int i = 1; i < rep.history_len; ++i) cft_assert_at(hist[i] <= hist[i - 1], "i = %d", i);
    for (int i = 0; i < 12; ++i) cft_assert_near_at(good[i], l7[i], 1e-9, 0, "i = %d", i);
    /* the floor's reset, worked by hand: one contact, W = I, q = (-1, 0, 0) (lambda* = (1, 0, 0);
       the tangents stay 0), r0 = 5, nu = 0.5, scale_min = 0.5, so a sweep is
       lambda_n <- max(0, lambda_n - r (lambda_n - 1)) (all values exact):
       1: r 5, 0 -> 5, e 5: accepted (ref 5);  2: 5 -> 0, e 5 >= 5: rejected, r = 2.5 (s = 0.5);
       3: r 2.5, 5 -> 0, e 5: rejected at the floor: reset r = r0 = 5, s = 1, ref = INFINITY;
       4: r 5, 5 -> 0, e 5: accepted (ref 5);  5: r 5, 0 -> 5, e 5: rejected (3 rollbacks).
       After 5 sweeps lambda_n = 0; a reset that leaves r at 2.5 accepts 0 -> 2.5 at sweep 5. */
    {
        const double W1[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q1[3] = {-1, 0, 0}, mu1[2] = {0.5, 0.5};
        cfFrictionProblem f1;
        make_problem(1, W1, q1, mu1, true, &f1);
        cfProxProblem p1;
        cft_assert_ok(cf_aniso_problem_from_fc(&f1, &p1));
        cfAnisoProxOptions of = cf_aniso_prox_options_default();
        of.r = 5.0;
        of.nu = 0.5;
        of.scale_min = 0.5;
        of.tol = 1e-12;
        double l1[3] = {0, 0, 0};
        int rb = 0;
        for (int n = 3; n <= 5; n += 2) {
            of.max_iter = n;
            l1[0] = l1[1] = l1[2] = 0.0;
            rb = 0;
            cft_assert_status_at(cf_aniso_prox_gs(&p1, NULL, NULL, &of, l1, NULL, &rb), CF_MAX_ITER, "after %d sweeps", n);
            cft_assert_near_at(l1[0], n == 3 ? 5.0 : 0.0, 1e-12, 0, "after %d sweeps", n);
            ck_assert_msg(rb == (n == 3 ? 2 : 3), "after %d sweeps: %d rollbacks", n, rb);
        }
        /* the clip to the floor sets EVERY r: from lambda_n = 2 with r0 = 2.5, nu = 0.4:
           1: 2 -> 0, e 2: accepted;  2: 0 -> 2.5, e 2.5: rejected, s nu = 0.4 < 0.5: r = 0.5 r0 = 1.25;
           3: 0 -> 1.25, e 1.25 < 2: accepted (r_n left at 2.5 repeats sweep 2: a second rejection) */
        of.r = 2.5;
        of.nu = 0.4;
        of.max_iter = 3;
        l1[0] = 2.0, l1[1] = l1[2] = 0.0;
        rb = 0;
        cft_assert_status(cf_aniso_prox_gs(&p1, NULL, NULL, &of, l1, NULL, &rb), CF_MAX_ITER);
        cft_assert_near(l1[0], 1.25, 1e-12, 0);
        ck_assert_int_eq(rb, 1);
        /* an accepting stop keeps that sweep: r0 = 1 reaches lambda* = (1, 0, 0) in one sweep from 0,
           e = 1 <= tol = 2: lambda is that sweep's result, not the start */
        of.r = 1.0;
        of.tol = 2.0;
        of.max_iter = 10;
        l1[0] = l1[1] = l1[2] = 0.0;
        rb = 0;
        cft_assert_ok(cf_aniso_prox_gs(&p1, NULL, NULL, &of, l1, NULL, &rb));
        cft_assert_near(l1[0], 1.0, 1e-15, 0);
        ck_assert_int_eq(rb, 0);
        cf_prox_problem_free(&p1);
        cf_fc_free(&f1);
    }
    /* bad options */
    o.nu = 0.0;
    cft_assert_status(cf_aniso_prox_gs(&p, NULL, NULL, &o, good, &rep, NULL), CF_BAD_INPUT);
    cf_prox_problem_free(&p);
    cf_prox_problem_free(&p7);
    cf_fc_free(&fc);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch10.4 the NCP formulation                                                                  */

START_TEST(ch10_4_rows)
{
    const double mu[2] = {0.3, 0.7};
    cfRng g;
    cf_rng_seed(&g, 808);
    /* the generalized gradient equals central differences away from the kinks */
    for (int k = 0; k < 100; ++k) {
        double x[5], psi[2], row[10], ln = cf_rng_range(&g, 0.2, 2);
        for (int i = 0; i < 5; ++i) x[i] = cf_rng_range(&g, -1, 1);
        cf_aniso_ncp_rows(mu, ln, x, psi, row);
        for (int j = 0; j < 5; ++j) {
            double xp[5], xm[5], pp[2], pm[2], rr[10], h = 1e-6;
            memcpy(xp, x, sizeof x);
            memcpy(xm, x, sizeof x);
            xp[j] += h;
            xm[j] -= h;
            cf_aniso_ncp_rows(mu, ln, xp, pp, rr);
            cf_aniso_ncp_rows(mu, ln, xm, pm, rr);
            for (int i = 0; i < 2; ++i)
                cft_assert_near_at(row[5 * i + j], (pp[i] - pm[i]) / (2 * h), 1e-5, 1e-5, "k = %d, row %d, col %d", k, i, j);
        }
    }
    /* a sliding solution: f of maximal dissipation, beta = 2 lambda_n / |D v|: both rows zero */
    double v[2] = {0.4, -0.3}, ln = 1.5, f[2], psi[2], row[10];
    cf_ellipse_max_dissipation(mu, ln, v, f);
    double x[5] = {2 * ln / hypot(mu[0] * v[0], mu[1] * v[1]), f[0], f[1], v[0], v[1]};
    cf_aniso_ncp_rows(mu, ln, x, psi, row);
    cft_assert_near(psi[0], 0.0, 1e-13, 0);
    cft_assert_near(psi[1], 0.0, 1e-13, 0);
    /* the force anti-parallel to v instead: not a solution */
    double a = hypot(v[0] / mu[0], v[1] / mu[1]);
    x[1] = -ln * v[0] / a;
    x[2] = -ln * v[1] / a;
    cf_aniso_ncp_rows(mu, ln, x, psi, row);
    ck_assert(fabs(psi[1]) > 1e-3);
    /* sticking (v = 0, beta = 0, f inside): the second row vanishes with its gradient (the erratum) */
    double xs[5] = {0, 0.1, 0.1, 0, 0};
    cf_aniso_ncp_rows(mu, ln, xs, psi, row);
    cft_assert_near(psi[0], 0.0, 1e-15, 0);
    for (int j = 0; j < 5; ++j) cft_assert_near_at(row[5 + j], 0.0, 1e-15, 0, "col %d", j);
}
END_TEST

/* the dense matrix of a triplet list (duplicates summed) */
static double *dense_of(const cfTriplets *T, int n)
{
    double *D = calloc((size_t)n * n, sizeof *D);
    ck_assert(D);
    for (int e = 0; e < T->nnz; ++e) D[T->i[e] * n + T->j[e]] += T->v[e];
    return D;
}

START_TEST(ch10_4_eval_jacobian)
{
    cfRng g;
    cf_rng_seed(&g, 909);
    for (int k = 0; k < 10; ++k) {
        int nc = 1 + k % 3, n = 4 * nc;
        cfFrictionProblem p;
        random_problem(&g, nc, 0.1, 0.9, true, &p);
        if (k == 9) p.ellipse[0] = 0.0; /* a pinned axis */
        if (k == 8) p.ellipse[3] = 0.0; /* the other one, of contact 1 of 3 (its r_b != 0 here) */
        double x[12], H[12], Hp[12], Hm[12];
        for (int i = 0; i < n; ++i) x[i] = cf_rng_range(&g, -1, 1);
        for (int a = 0; a < nc; ++a) x[4 * a] = fabs(x[4 * a]) + 0.1; /* away from the Signorini kink */
        cfTriplets T;
        cft_assert_ok(cf_triplets_init(&T, n, n));
        cft_assert_ok_at(cf_fc_aniso_ncp_eval(&p, x, H, &T), "k = %d", k);
        double *D = dense_of(&T, n);
        for (int j = 0; j < n; ++j) {
            double h = 1e-6, xs = x[j];
            x[j] = xs + h;
            cft_assert_ok(cf_fc_aniso_ncp_eval(&p, x, Hp, NULL));
            x[j] = xs - h;
            cft_assert_ok(cf_fc_aniso_ncp_eval(&p, x, Hm, NULL));
            x[j] = xs;
            for (int i = 0; i < n; ++i)
                cft_assert_near_at(D[i * n + j], (Hp[i] - Hm[i]) / (2 * h), 1e-5, 1e-5, "k = %d, row %d, col %d", k, i, j);
        }
        free(D);
        cf_triplets_free(&T);
        cf_fc_free(&p);
    }
    /* an entry that cannot be stored does not get lost: W_nt = 1e300 and r_t = 1e10 make u_n
       overflow to inf, and the normal row's derivative da = 1 - u_n / |(u_n, r_n)| may then be NaN
       (chapter 6's FB gives inf / inf), which cf_triplets_add() refuses. Either the status says
       so, or (a FB that takes the limit da = 0) J is complete: the tangent rows still hold W's
       tangent rows, 1 on their diagonal. A refusal that a later successful add overwrites returns
       CF_OK with those rows missing. */
    {
        const double W1[9] = {1, 1e300, 0, 0, 1, 0, 0, 0, 1}, q1[3] = {0, 0, 0}, mu1[2] = {0.5, 0.5};
        cfFrictionProblem p;
        make_problem(1, W1, q1, mu1, true, &p);
        double x[4] = {1, 1e10, 0, 0}, H[4];
        cfTriplets T;
        cft_assert_ok(cf_triplets_init(&T, 4, 4));
        cfStatus st = cf_fc_aniso_ncp_eval(&p, x, H, &T);
        if (st == CF_OK) {
            double *D = dense_of(&T, 4);
            cft_assert_near(D[1 * 4 + 1], 1.0, 1e-15, 0);
            cft_assert_near(D[2 * 4 + 2], 1.0, 1e-15, 0);
            free(D);
        }
        cf_triplets_free(&T);
        cf_fc_free(&p);
    }
    /* at a Signorini solution, u_n = 0 < r_n (every Newton solve ends there): FB(0, s r_n) has
       da = 1 exactly and db = 0, so the normal row is W's normal row (2, 0.5, 0), nothing at beta */
    {
        const double W1[9] = {2, 0.5, 0, 0.5, 1, 0, 0, 0, 1}, q1[3] = {-2, 0, 0}, mu1[2] = {0.5, 0.5};
        cfFrictionProblem p;
        make_problem(1, W1, q1, mu1, true, &p);
        double x[4] = {1, 0, 0, 0}, H[4];
        cfTriplets T;
        cft_assert_ok(cf_triplets_init(&T, 4, 4));
        cft_assert_ok(cf_fc_aniso_ncp_eval(&p, x, H, &T));
        cft_assert_near(H[0], 0.0, 1e-15, 0);
        double *D = dense_of(&T, 4);
        cft_assert_near(D[0], 2.0, 1e-15, 0);
        cft_assert_near(D[1], 0.5, 1e-15, 0);
        cft_assert_near(D[2], 0.0, 1e-15, 0);
        free(D);
        cf_triplets_free(&T);
        cf_fc_free(&p);
    }
}
END_TEST

START_TEST(ch10_4_newton_solves)
{
    /* Newton on the NCP system: the elliptic natural map below 1e-10 and the blocked PGS answer;
       with equal coefficients chapter 6's Alart-Curnier answer */
    cfRng g;
    cf_rng_seed(&g, 1010);
    for (int k = 0; k < 8; ++k) {
        int nc = 1 + k % 4;
        cfFrictionProblem p;
        random_problem(&g, nc, 0.05, 0.9, true, &p);
        /* every contact pressed: at a separated contact that slides (r_n = 0, u_T != 0) the
           notes' system has no multiplier (beta -> infinity, see the text's errata) */
        for (int a = 0; a < nc; ++a) p.q[3 * a] = -0.2 - fabs(p.q[3 * a]);
        double *r = calloc((size_t)3 * nc, sizeof *r), *ref = malloc((size_t)3 * nc * sizeof *ref);
        ck_assert(r && ref);
        cfNewtonOptions o = cf_newton_options_default();
        o.tol = 1e-11;
        o.max_iter = 200;
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cft_assert_ok_at(cf_fc_newton_aniso(&p, &o, r, &rep), "k = %d", k);
        cft_assert_at(cf_fc_residual(&p, r) <= 1e-10, "k = %d: residual %g", k, cf_fc_residual(&p, r));
        solve_by_equivalent(&p, ref);
        for (int i = 0; i < 3 * nc; ++i) cft_assert_near_at(r[i], ref[i], 1e-8, 0, "k = %d, i = %d", k, i);
        /* H = 0 at the solution with beta from the tangent rows */
        double x[16], H[16];
        cfFrictionProblem *pp = &p;
        double *u = malloc((size_t)3 * nc * sizeof *u);
        cf_fc_velocity(pp, r, u);
        for (int a = 0; a < nc; ++a) {
            double gr[2] = {2 * r[3 * a + 1] / (p.ellipse[2 * a] * p.ellipse[2 * a]),
                            2 * r[3 * a + 2] / (p.ellipse[2 * a + 1] * p.ellipse[2 * a + 1])};
            double gg = gr[0] * gr[0] + gr[1] * gr[1];
            memcpy(&x[4 * a], &r[3 * a], 3 * sizeof *x);
            x[4 * a + 3] = gg > 0 ? fmax(0.0, -(u[3 * a + 1] * gr[0] + u[3 * a + 2] * gr[1]) / gg) : 0.0;
        }
        cft_assert_ok(cf_fc_aniso_ncp_eval(&p, x, H, NULL));
        for (int i = 0; i < 4 * nc; ++i) cft_assert_near_at(H[i], 0.0, 1e-8, 0, "k = %d, i = %d", k, i);
        free(u), free(r), free(ref);
        cf_fc_free(&p);
    }
    cfFrictionProblem p;
    random_problem(&g, 3, 0.4, 0.4, true, &p);
    for (int a = 0; a < 3; ++a) p.q[3 * a] = -0.2 - fabs(p.q[3 * a]);
    double r[9] = {0}, ac[9] = {0};
    cfNewtonOptions o = cf_newton_options_default();
    o.tol = 1e-12;
    o.max_iter = 200;
    cft_assert_ok(cf_fc_newton_aniso(&p, &o, r, NULL));
    cft_assert_ok(cf_fc_newton_ac(&p, &o, ac, NULL));
    for (int i = 0; i < 9; ++i) cft_assert_near_at(r[i], ac[i], 1e-9, 0, "i = %d", i);
    cf_fc_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch10.5 friction tensors                                                                     */

START_TEST(ch10_5_tensor_force)
{
    const double QA[4] = {0.2, 0, 0, 0.8}, Z[4] = {0, 0, 0, 0};
    const cfVec3 n = cfu_vec3(0, 0, 1), x = cfu_vec3(1, 0, 0), y = cfu_vec3(0, 1, 0);
    cfVec3 f;
    cf_friction_tensor_force(QA, Z, 1.0, n, x, x, x, 1.0, &f);
    cft_assert_vec3_near(f, cfu_vec3(-0.2, 0, 0), 1e-15);
    /* the tangents are projected on the plane and normalized: a longer, tilted t_a (and t_b)
       gives the same force */
    cf_friction_tensor_force(QA, Z, 1.0, n, cfu_vec3(2, 0, 0.7), cfu_vec3(0.5, 0, -3), x, 1.0, &f);
    cft_assert_vec3_near(f, cfu_vec3(-0.2, 0, 0), 1e-15);
    cf_friction_tensor_force(QA, Z, 1.0, n, x, x, cfu_vec3(3, 3, 0.5), 1.0, &f);
    cft_assert_vec3_near(f, cfu_vec3(-0.1414213562373095, -0.5656854249492381, 0), 1e-13);
    cft_assert_at(cfu_dot(f, cfu_vec3(1, 1, 0)) < 0, "power %g", cfu_dot(f, cfu_vec3(1, 1, 0)));
    /* no sliding, no force */
    cf_friction_tensor_force(QA, Z, 1.0, n, x, x, cfu_vec3(0, 0, 2), 1.0, &f);
    cft_assert_vec3_near(f, cfu_zero3(), 0);
    /* a t_b along the normal has no direction in the plane: B's frame is taken as A's (theta = 0),
       a finite force, not NaN */
    const double QBd[4] = {0.5, 0.2, 0.2, 0.1};
    cfVec3 fd, f0;
    cf_friction_tensor_force(QA, QBd, 1.0, n, x, cfu_vec3(0, 0, -2), cfu_vec3(1, 0.4, 0), 1.0, &fd);
    cf_friction_tensor_force(QA, QBd, 1.0, n, x, x, cfu_vec3(1, 0.4, 0), 1.0, &f0);
    cft_assert_vec3_near(fd, f0, 1e-15);
    /* B's tensor turned by 90 degrees: L = tr(Q_A) I, isotropic (Matchstick's orthogonal case) */
    cfRng g;
    cf_rng_seed(&g, 1111);
    for (int k = 0; k < 20; ++k) {
        double th = cf_rng_range(&g, 0, 2 * CF_PI);
        cfVec3 v = cfu_vec3(cos(th), sin(th), 0);
        cf_friction_tensor_force(QA, QA, 2.0, n, x, y, v, 1.5, &f);
        cft_assert_vec3_near_at(f, cfu_scale(-3.0, v), 1e-13, "k = %d", k);
    }
    /* the SIGNED angle: t_B at +30 and -30 degrees give different forces for a non-diagonal Q_B */
    const double QB[4] = {0.5, 0.2, 0.2, 0.1};
    cfVec3 fp, fm, v = cfu_vec3(1, 0.3, 0);
    cf_friction_tensor_force(Z, QB, 1.0, n, x, cfu_vec3(cos(CF_PI / 6), sin(CF_PI / 6), 0), v, 1.0, &fp);
    cf_friction_tensor_force(Z, QB, 1.0, n, x, cfu_vec3(cos(CF_PI / 6), -sin(CF_PI / 6), 0), v, 1.0, &fm);
    /* R Q_B R^T by hand for +30 degrees */
    double c = cos(CF_PI / 6), s = sin(CF_PI / 6), R[4] = {c, -s, s, c}, L[4];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            L[2 * i + j] = 0;
            for (int a = 0; a < 2; ++a)
                for (int b = 0; b < 2; ++b) L[2 * i + j] += R[2 * i + a] * QB[2 * a + b] * R[2 * j + b];
        }
    double vl = hypot(1, 0.3), vh[2] = {1 / vl, 0.3 / vl};
    cft_assert_vec3_near(fp, cfu_vec3(-(L[0] * vh[0] + L[1] * vh[1]), -(L[2] * vh[0] + L[3] * vh[1]), 0), 1e-14);
    ck_assert(cfu_norm(cfu_sub(fp, fm)) > 1e-3);
    /* everything turned by a random rotation: the force turns with it */
    for (int k = 0; k < 20; ++k) {
        cfQuat q = cf_rng_quat(&g);
        cfVec3 ta = cfu_vec3(cf_rng_range(&g, -1, 1), cf_rng_range(&g, -1, 1), 0);
        cfVec3 tb = cfu_vec3(cf_rng_range(&g, -1, 1), cf_rng_range(&g, -1, 1), 0);
        cfVec3 vv = cfu_vec3(cf_rng_range(&g, -1, 1), cf_rng_range(&g, -1, 1), cf_rng_range(&g, -1, 1));
        cfVec3 f0, f1;
        cf_friction_tensor_force(QA, QB, 0.7, n, ta, tb, vv, 2.0, &f0);
        cf_friction_tensor_force(QA, QB, 0.7, turn(q, n), turn(q, ta), turn(q, tb), turn(q, vv), 2.0, &f1);
        cft_assert_vec3_near_at(f1, turn(q, f0), 1e-12, "k = %d", k);
    }
}
END_TEST

START_TEST(ch10_5_tensor_cone)
{
    /* every tensor force lies on its cone: f^T C_P f = lambda_n^2 with the cone's axes and angle */
    cfRng g;
    cf_rng_seed(&g, 1212);
    for (int k = 0; k < 100; ++k) {
        double L[4];
        for (int i = 0; i < 4; ++i) L[i] = cf_rng_range(&g, -1, 1);
        if (k == 0) L[0] = 0.2, L[1] = 0, L[2] = 0, L[3] = 0.8;
        double mu[2], ang;
        cfStatus st = cf_friction_tensor_cone(L, mu, &ang);
        if (st == CF_SINGULAR) continue;
        cft_assert_ok_at(st, "k = %d", k);
        cft_assert_at(mu[0] <= mu[1] && mu[0] > 0, "k = %d: (%g, %g)", k, mu[0], mu[1]);
        cft_assert_at(ang > -CF_PI / 2 && ang <= CF_PI / 2, "k = %d: angle %g", k, ang);
        /* the singular values: product |det L|, squares sum to |L|_F^2 */
        cft_assert_near_at(mu[0] * mu[1], fabs(L[0] * L[3] - L[1] * L[2]), 1e-13, 0, "k = %d", k);
        cft_assert_near_at(mu[0] * mu[0] + mu[1] * mu[1], L[0] * L[0] + L[1] * L[1] + L[2] * L[2] + L[3] * L[3], 1e-13, 0,
                           "k = %d", k);
        double c = cos(ang), s = sin(ang);
        for (int i = 0; i < 36; ++i) {
            double th = 2 * CF_PI * i / 36, v[2] = {cos(th), sin(th)}, ln = 1.7;
            double f[2] = {-ln * (L[0] * v[0] + L[1] * v[1]), -ln * (L[2] * v[0] + L[3] * v[1])};
            double fa[2] = {c * f[0] + s * f[1], -s * f[0] + c * f[1]}; /* in the cone's axes */
            double axes[2] = {mu[0] * ln, mu[1] * ln};
            cft_assert_near_at(ellipse_level(axes, fa), 1.0, 1e-10, 0, "k = %d, i = %d", k, i);
        }
        if (k == 0) {
            cft_assert_near(mu[0], 0.2, 1e-15, 0);
            cft_assert_near(mu[1], 0.8, 1e-15, 0);
            cft_assert_near(ang, 0.0, 1e-15, 0);
        }
    }
    double mu[2], ang;
    const double sing[4] = {1, 2, 2, 4}, zero[4] = {0, 0, 0, 0}, bad[4] = {NAN, 0, 0, 1};
    cft_assert_status(cf_friction_tensor_cone(sing, mu, &ang), CF_SINGULAR);
    cft_assert_status(cf_friction_tensor_cone(zero, mu, &ang), CF_SINGULAR);
    cft_assert_status(cf_friction_tensor_cone(bad, mu, &ang), CF_BAD_INPUT);
    /* the world's use (provided): a contact with a tensor law becomes its ellipse, frame turned */
    for (int k = 0; k < 20; ++k) {
        cfContact ct;
        cfContactExtra ext;
        memset(&ct, 0, sizeof ct);
        memset(&ext, 0, sizeof ext);
        ct.extra = &ext;
        ct.n = cf_rng_unit_vec3(&g);
        ext.friction.law = CF_LAW_TENSOR;
        ext.friction.dir = cf_rng_unit_vec3(&g);
        for (int i = 0; i < 4; ++i) ext.friction.coef[i] = cf_rng_range(&g, -1, 1) + (i == 0 || i == 3 ? 1.5 : 0);
        double Lc[4];
        memcpy(Lc, ext.friction.coef, sizeof Lc);
        cfVec3 d = cfu_sub(ext.friction.dir, cfu_scale(cfu_dot(ext.friction.dir, ct.n), ct.n));
        cfVec3 t0 = cfu_normalize(d), b0 = cfu_cross(ct.n, t0);
        cft_assert_ok_at(cf_contact_ellipse_frame(&ct), "k = %d", k);
        ck_assert_int_eq(ext.friction.law, CF_LAW_ORTHOTROPIC);
        for (int i = 0; i < 12; ++i) {
            double th = 2 * CF_PI * i / 12, v[2] = {cos(th), sin(th)};
            cfVec3 f = cfu_add(cfu_scale(-(Lc[0] * v[0] + Lc[1] * v[1]), t0), cfu_scale(-(Lc[2] * v[0] + Lc[3] * v[1]), b0));
            double fa[2] = {cfu_dot(f, ct.t), cfu_dot(f, ct.b)};
            cft_assert_near_at(ellipse_level(ext.friction.coef, fa), 1.0, 1e-10, 0, "k = %d, i = %d", k, i);
        }
    }
}
END_TEST

START_TEST(ch10_5_dissipation)
{
    const double L[4] = {0.2, 0, 0, 0.8}, v45[2] = {1, 1}, vx[2] = {1, 0};
    double power;
    cft_assert_near(cf_friction_tensor_dissipation(L, v45, 1.0, &power) * 180 / CF_PI, 10.46, 0.005, 0);
    cft_assert_near(power, -(0.2 + 0.8) / sqrt(2.0), 1e-14, 0);
    /* an eigenvector: maximal dissipation */
    cft_assert_near(cf_friction_tensor_dissipation(L, vx, 1.0, &power), 0.0, 1e-8, 0);
    cft_assert_near(power, -0.2, 1e-15, 0);
    /* the power f . v with f = -lambda_n L v / |v| at v = (3, 4), lambda_n = 2:
       -2 (0.2 * 9 + 0.8 * 16) / 5 = -5.84 (both components count) */
    const double v34[2] = {3, 4};
    cf_friction_tensor_dissipation(L, v34, 2.0, &power);
    cft_assert_near(power, -5.84, 1e-14, 0);
    /* no load or no sliding: angle 0 and power 0 (the spec's); lambda_n < 0 would otherwise give
       the same 10.46 degrees as lambda_n > 0 (f and f* both turn round), and v = 0 gives 0 / 0 */
    const double v0[2] = {0, 0};
    power = 1.0;
    cft_assert_near(cf_friction_tensor_dissipation(L, v45, -1.0, &power), 0.0, 0, 0);
    cft_assert_near(power, 0.0, 0, 0);
    power = 1.0;
    cft_assert_near(cf_friction_tensor_dissipation(L, v0, 1.0, &power), 0.0, 0, 0);
    cft_assert_near(power, 0.0, 0, 0);
    /* against the ellipse's force of maximal dissipation in the cone's own axes */
    cfRng g;
    cf_rng_seed(&g, 1313);
    for (int k = 0; k < 50; ++k) {
        double M[4];
        for (int i = 0; i < 4; ++i) M[i] = cf_rng_range(&g, -1, 1);
        double mu[2], ang, v[2] = {cf_rng_range(&g, -1, 1), cf_rng_range(&g, -1, 1)};
        if (cf_friction_tensor_cone(M, mu, &ang) != CF_OK) continue;
        double c = cos(ang), s = sin(ang), va[2] = {c * v[0] + s * v[1], -s * v[0] + c * v[1]}, fa[2];
        cf_ellipse_max_dissipation(mu, 1.0, va, fa);
        double fs[2] = {c * fa[0] - s * fa[1], s * fa[0] + c * fa[1]}, len = hypot(v[0], v[1]);
        double f[2] = {-(M[0] * v[0] + M[1] * v[1]) / len, -(M[2] * v[0] + M[3] * v[1]) / len};
        cft_assert_near_at(cf_friction_tensor_dissipation(M, v, 1.0, NULL), angle2(f, fs), 1e-7, 0, "k = %d", k);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch10.6 texture friction                                                                     */

/* The law of the tilt angle: the notes print (2/pi) theta (Eq. 334-336, the reference's) and
   (2/pi) tan theta (Eq. 333); the spec allows either, used consistently. The reading of the
   solution is taken at a facet tilted 30 degrees (1/3 or 0.36755), and every expected value of
   the tests follows from it. */
static double plowing_law(double theta)
{
    const cfVec3 n = cfu_vec3(0, 0, 1), m = cfu_vec3(-sin(CF_PI / 6), 0, cos(CF_PI / 6));
    double got = cf_plowing_mu(m, n, cfu_vec3(-1, 0, 0));
    bool tan_reading = fabs(got - (2 / CF_PI) * tan(CF_PI / 6)) <= 1e-14;
    ck_assert_msg(tan_reading || fabs(got - 1.0 / 3.0) <= 1e-14,
                  "a facet tilted 30 degrees towards d: mu_d = %.17g, neither (2/pi) theta = 1/3 nor (2/pi) tan theta = "
                  "0.36755",
                  got);
    return (2 / CF_PI) * (tan_reading ? tan(theta) : theta);
}

START_TEST(ch10_6_plowing)
{
    const cfVec3 n = cfu_vec3(0, 0, 1), x = cfu_vec3(1, 0, 0);
    /* a facet tilted 30 degrees, its normal leaning to -x (a slope rising along +x): pushed
       along -x it runs into the other surface and plows; pushed along +x it leaves it */
    cfVec3 m = cfu_vec3(-sin(CF_PI / 6), 0, cos(CF_PI / 6));
    const double g30 = plowing_law(CF_PI / 6); /* 1/3, or 0.36755 with tan */
    cft_assert_near(cf_plowing_mu(m, n, cfu_neg(x)), g30, 1e-14, 0);
    cft_assert_near(cf_plowing_mu(m, n, x), 0.0, 0, 0);
    cft_assert_near(cf_plowing_mu(m, n, cfu_vec3(0, 1, 0)), 0.0, 1e-15, 0);
    /* 60 degrees off the facet's direction: cos 60 of it */
    cft_assert_near(cf_plowing_mu(m, n, cfu_vec3(-cos(CF_PI / 3), sin(CF_PI / 3), 0)), g30 / 2, 1e-14, 0);
    /* lengths do not matter; d's normal part is dropped */
    cft_assert_near(cf_plowing_mu(cfu_scale(3, m), cfu_scale(0.5, n), cfu_vec3(-2, 0, 7)), g30, 1e-14, 0);
    /* the law grows with the tilt: 60 degrees */
    cfVec3 m60 = cfu_vec3(-sin(CF_PI / 3), 0, cos(CF_PI / 3));
    cft_assert_near(cf_plowing_mu(m60, n, cfu_neg(x)), plowing_law(CF_PI / 3), 1e-14, 0);
    /* flat facets and d along n give nothing */
    cft_assert_near(cf_plowing_mu(n, n, x), 0.0, 0, 0);
    cft_assert_near(cf_plowing_mu(m, n, n), 0.0, 0, 0);
}
END_TEST

START_TEST(ch10_6_patch)
{
    /* a ramp texture on A: heights (0, c, 2c, 0) per period of 4 cells along u, constant along v.
       Slopes per cell: c/h, c/h, -2c/h, 0. Sliding B along +u pushes A's facets along -u: the
       rising facets (normal leaning to -u) plow, half of the samples: mu_{+t} = (2/4) g(atan(c/h));
       along -u the falling cell, a quarter: mu_{-t} = (1/4) g(atan(2c/h)), g = plowing_law()
       ((2/pi) theta: asymmetric; with tan both are c/(2h): a periodic texture is symmetric) */
    const double h = 0.01, c = 0.004;
    double H[8] = {0, c, 2 * c, 0, 0, c, 2 * c, 0};
    cfHeightField A = {.nx = 4, .ny = 2, .cell = h, .h = H, .origin = cfu_vec3(0, 0, 0),
                       .u = cfu_vec3(1, 0, 0), .v = cfu_vec3(0, 1, 0)};
    const cfVec3 n = cfu_vec3(0, 0, 1), t = cfu_vec3(1, 0, 0), b = cfu_vec3(0, 1, 0);
    double mu[4];
    /* the patch covers one period along u with 2 samples per cell, centres off the cell edges */
    cft_assert_ok(cf_texture_patch_mu(&A, NULL, cfu_vec3(2 * h, 0.3 * h, 0), n, t, b, 2 * h, 8, 4, mu));
    cft_assert_near(mu[0], 0.5 * plowing_law(atan(c / h)), 1e-12, 0);
    cft_assert_near(mu[2], 0.25 * plowing_law(atan(2 * c / h)), 1e-12, 0);
    cft_assert_near(mu[1], 0.0, 1e-15, 0);
    cft_assert_near(mu[3], 0.0, 1e-15, 0);
    /* the same texture on B (its normal -n): B's facets are pushed along d, the other way round */
    cfHeightField Bf = A;
    Bf.v = cfu_vec3(0, -1, 0); /* u x v = -z: B's outward normal */
    double mb[4];
    cft_assert_ok(cf_texture_patch_mu(NULL, &Bf, cfu_vec3(2 * h, -0.3 * h, 0), n, t, b, 2 * h, 8, 4, mb));
    cft_assert_near(mb[0], mu[2], 1e-12, 0);
    cft_assert_near(mb[2], mu[0], 1e-12, 0);
    /* both: the sum (Eq. 336) */
    double ms[8];
    cft_assert_ok(cf_texture_patch_mu(&A, &Bf, cfu_vec3(2 * h, 0.3 * h, 0), n, t, b, 2 * h, 8, 4, ms));
    cft_assert_near(ms[0], mu[0] + mb[0], 1e-12, 0);
    /* flat textures: nothing; bad input */
    double F[4] = {0, 0, 0, 0};
    cfHeightField flat = {.nx = 2, .ny = 2, .cell = h, .h = F, .u = t, .v = b};
    cft_assert_ok(cf_texture_patch_mu(&flat, NULL, cfu_zero3(), n, t, b, h, 5, 8, ms));
    for (int k = 0; k < 8; ++k) cft_assert_near_at(ms[k], 0.0, 1e-15, 0, "k = %d", k);
    cft_assert_status(cf_texture_patch_mu(&A, NULL, cfu_zero3(), n, t, b, 0.0, 8, 4, ms), CF_BAD_INPUT);
    cft_assert_status(cf_texture_patch_mu(&A, NULL, cfu_zero3(), n, t, b, h, 0, 4, ms), CF_BAD_INPUT);
}
END_TEST

START_TEST(ch10_6_directional_box)
{
    /* mu4 = (mu_{+t}, mu_{+b}, mu_{-t}, mu_{-b}) by B's sliding direction */
    const double mu4[4] = {0.1, 0.2, 0.6, 0.7};
    double lt[2] = {-5, 5};
    cf_box_project_directional(2.0, mu4, lt);
    cft_assert_near(lt[0], -0.2, 1e-15, 0);
    cft_assert_near(lt[1], 1.4, 1e-15, 0);
    double in[2] = {0.5, -0.1};
    cf_box_project_directional(2.0, mu4, in);
    cft_assert_near(in[0], 0.5, 0, 0);
    cft_assert_near(in[1], -0.1, 0, 0);
    double neg[2] = {1, 1};
    cf_box_project_directional(-1.0, mu4, neg);
    ck_assert(neg[0] == 0 && neg[1] == 0);
    /* in place inside a problem's arrays: the tangents (r_t, r_b) of contact 0 with the next
       contact's normal after them, two contacts' coefficients back to back; only the two
       tangents change (the next normal 7 is not clamped by the next contact's mu_{+t}) */
    const double mu8[8] = {0.1, 0.2, 0.6, 0.7, 0.3, 0.3, 0.3, 0.3};
    double r4[4] = {2, -5, 5, 7};
    cf_box_project_directional(2.0, mu8, &r4[1]);
    cft_assert_near(r4[1], -0.2, 1e-15, 0);
    cft_assert_near(r4[2], 1.4, 1e-15, 0);
    cft_assert_near(r4[0], 2.0, 0, 0);
    cft_assert_near(r4[3], 7.0, 0, 0);
    /* a particle (W = I) pressed with 1 and pulled: along +t it slides against mu_{+t}, along -t
       against mu_{-t} (the asymmetric threshold of the sawtooth) */
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, mu_tb[2] = {0.7, 0.7};
    const double qp[3] = {-1, 2, 0}, qm[3] = {-1, -2, 0};
    for (int s = 0; s < 2; ++s) {
        cfFrictionProblem p;
        make_problem(1, I, s ? qm : qp, mu_tb, false, &p);
        double r[3] = {0, 0, 0};
        cfSplitOptions o = cf_split_options_default();
        o.tol_abs = 1e-14;
        cft_assert_ok_at(cf_fc_texture_pgs(&p, mu4, &o, r, NULL), "s = %d", s);
        cft_assert_near_at(r[0], 1.0, 1e-14, 0, "s = %d", s);
        cft_assert_near_at(r[1], s ? 0.6 : -0.1, 1e-14, 0, "s = %d", s);
        cf_fc_free(&p);
    }
    /* random coupled problems: the natural map of the directional box vanishes */
    cfRng g;
    cf_rng_seed(&g, 1414);
    for (int k = 0; k < 10; ++k) {
        int nc = 1 + k % 4;
        cfFrictionProblem p;
        random_problem(&g, nc, 0.1, 0.9, false, &p);
        double m4[16], r[12] = {0};
        for (int i = 0; i < 4 * nc; ++i) m4[i] = cf_rng_range(&g, 0.0, 0.8);
        cfSplitOptions o = cf_split_options_default();
        o.tol_abs = 1e-12;
        o.max_iter = 20000;
        cft_assert_ok_at(cf_fc_texture_pgs(&p, m4, &o, r, NULL), "k = %d", k);
        cft_assert_at(cf_fc_texture_residual(&p, m4, r) <= 1e-12, "k = %d", k);
        /* the stagnation stop as a certificate: a solve that stops on tol_stag after K sweeps
           changed no impulse by more than tol_stag in sweep K (the same solve stopped after K - 1
           sweeps is the previous iterate), whichever row changed most */
        double ra[12] = {0}, rb[12] = {0};
        cfSplitOptions os = cf_split_options_default();
        os.tol_abs = 0.0;
        os.tol_stag = 1e-7;
        os.max_iter = 20000;
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cf_fc_texture_pgs(&p, m4, &os, ra, &rep);
        ck_assert_msg(rep.reason == CF_STOP_STAGNATION && rep.iterations > 1, "k = %d: stopped by %d after %d sweeps", k,
                      rep.reason, rep.iterations);
        cfSplitOptions ob = os;
        ob.tol_stag = 0.0;
        ob.max_iter = rep.iterations - 1;
        cf_fc_texture_pgs(&p, m4, &ob, rb, NULL);
        double dmax = 0.0;
        for (int i = 0; i < 3 * nc; ++i) dmax = fmax(dmax, fabs(ra[i] - rb[i]));
        cft_assert_at(dmax <= 1e-7, "k = %d: stopped on a change of at most 1e-7 in sweep %d, but an impulse moved %g",
                      k, rep.iterations, dmax);
        cf_fc_free(&p);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* the world: every assembled row on the grooved plane                                        */

/* the direction phi of steady acceleration of a body pulled by F on the ellipse mu (weight N):
   F + f(v) parallel to v, f of maximal dissipation (bisection on the cross product) */
static double pulled_direction(const double mu[2], double N, const double F[2], double *accel)
{
    double lo = 0.0, hi = CF_PI / 4, a[2] = {0, 0};
    for (int it = 0; it < 200; ++it) {
        double p = 0.5 * (lo + hi), v[2] = {cos(p), sin(p)}, f[2];
        cf_ellipse_max_dissipation(mu, N, v, f);
        a[0] = F[0] + f[0];
        a[1] = F[1] + f[1];
        if (a[0] * v[1] - a[1] * v[0] < 0) lo = p;
        else hi = p;
    }
    *accel = hypot(a[0], a[1]);
    return 0.5 * (lo + hi);
}

START_TEST(world_grooved_box)
{
    /* scenes/ch10_grooved_box.json: the box accelerates at 7.60 degrees from the grooves under a
       pull at 45 with every FC3D row (chapter 10's on the ellipse, the others on its isotropic
       equivalent), along the grooves with the boxed rows (the pyramid), near it with Lemke's polygon */
    const double mu[2] = {0.2, 0.8}, F[2] = {4, 4}, g = 9.81, h = 0.01;
    double acc, phi = pulled_direction(mu, g, F, &acc);
    cft_assert_near(phi * 180 / CF_PI, 7.6047, 1e-3, 0);
    int tested = 0;
    for (int i = 0; i < cf_solver_count(); ++i) {
        const cfSolver *s = cf_solver_at(i);
        if (!cf_solver_matches(s, CF_SOLVERS_ASSEMBLED)) continue; /* rows and the dual form refuse the law */
        cfWorld w;
        cfError err;
        cfStatus st = cf_scene_load(cft_scene_path("ch10_grooved_box.json"), &w, NULL, &err);
        ck_assert_msg(st == CF_OK, "%s", err.msg);
        w.def.solver = s;
        w.def.solver_iterations = 100;
        const int steps = 100;
        for (int k = 0; k < steps; ++k) cft_assert_ok_at(cf_world_step(&w), "%s, step %d", s->name, k);
        cfVec3 v = w.bodies[1].v;
        double a[2] = {v.x / (steps * h), v.y / (steps * h)};
        if (s->form == CF_FORM_BLCP || s->directional) {
            /* the pyramid (also the directional row's box): stick across, slide along at 4 - 0.2 g */
            cft_assert_near_at(a[0], F[0] - mu[0] * g, 1e-6, 0, "%s", s->name);
            cft_assert_near_at(a[1], 0.0, 1e-6, 0, "%s", s->name);
        } else if (s->form == CF_FORM_LCP) { /* a polygon inscribed in the ellipse: near it */
            cft_assert_near_at(atan2(a[1], a[0]), phi, 2.0 * CF_PI / 180, 0, "%s", s->name);
        } else if (strcmp(s->name, "baraff") != 0) { /* Baraff's static friction (ch04.2) only steps */
            cft_assert_near_at(atan2(a[1], a[0]), phi, 1e-3, 0, "%s", s->name);
            cft_assert_near_at(hypot(a[0], a[1]), acc, 5e-3, 0, "%s", s->name);
        }
        ++tested;
        cf_world_free(&w);
    }
    ck_assert_int_ge(tested, 10);
    /* a matrix-free solver refuses the law with a message */
    cfWorld w;
    cfError err;
    cft_assert_ok(cf_scene_load(cft_scene_path("ch10_grooved_box.json"), &w, NULL, &err));
    w.def.solver = cf_solver_find("pgs");
    cft_assert_status(cf_world_step(&w), CF_BAD_INPUT);
    ck_assert_msg(strstr(w.error.msg, "pgs-blocked-aniso"), "%s", w.error.msg);
    cf_world_free(&w);
}
END_TEST

START_TEST(world_matchstick_pair)
{
    /* Matchstick in the world: a box pushed along x on a ground whose structure is x; the box's
       structure along its own x (parallel: mu_t^A = 0.2 along x) decelerates at 0.2 g; turned 90
       degrees in the body (orthogonal: isotropic mu = 0.5) at 0.5 g */
    const double g = 9.81, h = 0.01;
    for (int turned = 0; turned < 2; ++turned) {
        cfWorldDef def = cf_world_def_default();
        def.detector = CF_DETECT_PRIMITIVES;
        def.contact_margin = 0.01;
        def.dt = h;
        def.solver = cf_solver_find("pgs-blocked-aniso");
        def.solver_iterations = 100;
        cfWorld w;
        cft_assert_ok(cf_world_init(&w, &def));
        cfRigidBody ground, box;
        cft_assert_ok(cf_rigid_init_fixed(&ground, cf_shape_plane(cfu_vec3(0, 0, 1), 0), NULL));
        cft_assert_ok(cf_rigid_init(&box, cf_shape_box(cfu_vec3(0.5, 0.5, 0.05)), 1.0, NULL));
        box.x = cfu_vec3(0, 0, 0.05);
        box.v = cfu_vec3(3, 0, 0);
        cf_rigid_update_inertia(&box);
        ck_assert_int_eq(cf_world_add_body(&w, &ground), 0);
        ck_assert_int_eq(cf_world_add_body(&w, &box), 1);
        cfFrictionPair p;
        memset(&p, 0, sizeof p);
        p.kind[0] = p.kind[1] = CF_SIDE_RIGID;
        p.index[0] = 0;
        p.index[1] = 1;
        p.mu = 0.5;
        p.matchstick = true;
        p.aniso[0] = 0.2;
        p.aniso[1] = 0.8;
        p.structure[0] = (cfDirectionField){.kind = CF_FIELD_WORLD, .dir = cfu_vec3(1, 0, 0)};
        p.structure[1] = (cfDirectionField){.kind = CF_FIELD_BODY, .dir = turned ? cfu_vec3(0, 1, 0) : cfu_vec3(1, 0, 0)};
        cfError err;
        cft_assert_ok(cf_world_add_friction_pair(&w, &p, &err));
        for (int k = 0; k < 50; ++k) cft_assert_ok_at(cf_world_step(&w), "turned %d, step %d", turned, k);
        double want = 3.0 - (turned ? 0.5 : 0.2) * g * 50 * h;
        cft_assert_near_at(w.bodies[1].v.x, want, 1e-6, 0, "turned %d", turned);
        cft_assert_near_at(w.bodies[1].v.y, 0.0, 1e-9, 0, "turned %d", turned);
        cf_world_free(&w);
    }
}
END_TEST

/* ---- issue 30: a status that tells the truth ------------------------------------------------- */

/* The anisotropic PROX-GS tested an absolute e <= tol while its r-factors only shrank: on rank-1
   problems its step underflowed towards a change below tol, and on OneObject-i100000-499 (which
   chapter 7's PROX-GS solves to 2e-10) it said converged at 3e-4. Now its tolerance scales with
   the r-factors (per unit of the starting step, as chapter 7's) and a floor stops the shrinking. */
START_TEST(truth_aniso_prox_no_false_convergence)
{
    int hard = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        cfRng rng;
        cf_rng_seed(&rng, seed);
        enum { NC = 3, N = 9 };
        double v[N];
        for (int i = 0; i < N; ++i) v[i] = cf_rng_normal(&rng);
        cfFrictionProblem fc = {.nc = NC};
        cft_assert_ok(cf_bsr_init(&fc.W, NC, NC, 3, 3));
        for (int a = 0; a < NC; ++a)
            for (int b = 0; b < NC; ++b) {
                double B[9];
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j) B[3 * i + j] = v[3 * a + i] * v[3 * b + j];
                cft_assert_ok_at(cf_bsr_add_block(&fc.W, a, b, B), "a = %d, b = %d", a, b);
            }
        cf_bsr_finalize(&fc.W);
        fc.q = malloc(N * sizeof *fc.q);
        fc.mu = malloc(NC * sizeof *fc.mu);
        ck_assert(fc.q && fc.mu);
        for (int i = 0; i < N; ++i) fc.q[i] = cf_rng_normal(&rng);
        for (int a = 0; a < NC; ++a) fc.mu[a] = cf_rng_range(&rng, 0.1, 1.0);
        cfProxProblem pp;
        cft_assert_ok(cf_aniso_problem_from_fc(&fc, &pp));
        cfAnisoProxOptions o = cf_aniso_prox_options_default();
        o.max_iter = 4000;
        double r[N] = {0};
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        cfStatus st = cf_aniso_prox_gs(&pp, NULL, NULL, &o, r, &rep, NULL);
        double rel = cf_fc_residual(&fc, r) / cf_fc_norm_q(&fc);
        cft_assert_at(st != CF_OK || rel <= 1e-6, "seed %d: converged with residual / |q| = %g after %d sweeps", (int)seed,
                      rel, rep.iterations);
        cft_assert_at(st == CF_OK || st == CF_MAX_ITER, "seed %d: %s", (int)seed, cf_status_name(st));
        hard += rel > 1e-3;
        cf_prox_problem_free(&pp);
        cf_fc_free(&fc);
    }
    ck_assert_int_ge(hard, 4);
    /* the Siconos problem of the fuzzing round, when the data are there */
    char path[700];
    snprintf(path, sizeof path, "%s/siconos-fc3d/OneObject-i100000-499.hdf5.dat", cft_data_dir());
    cfFrictionProblem fc;
    if (cf_fc_read_siconos(path, &fc, NULL) != CF_OK) {
        printf("test_ch10: %s not found: skipping its check\n", path);
        return;
    }
    cfProxProblem pp;
    cft_assert_ok(cf_aniso_problem_from_fc(&fc, &pp));
    cfAnisoProxOptions o = cf_aniso_prox_options_default();
    o.max_iter = 10000;
    double *r = calloc((size_t)3 * fc.nc, sizeof *r);
    ck_assert(r);
    cfStatus st = cf_aniso_prox_gs(&pp, NULL, NULL, &o, r, NULL, NULL);
    double rel = cf_fc_residual(&fc, r) / cf_fc_norm_q(&fc);
    cft_assert_at(st != CF_OK || rel <= 1e-8, "OneObject-i100000-499: converged at residual / |q| = %g", rel);
    free(r);
    cf_prox_problem_free(&pp);
    cf_fc_free(&fc);
}
END_TEST

static void build(Suite *s)
{
    TCase *t1 = cft_tcase_unit(s, "ch10.1");
    CFT_GRADED(t1, ch10_1_worked, "ch10.1", 5, "Matchstick: worked cases, parallel, flipped, orthogonal, 45 and 30 degrees");
    CFT_GRADED(t1, ch10_1_robust_and_rotated, "ch10.1", 5, "Matchstick: projected directions, rotated world, unstructured, bad input");

    TCase *t2 = cft_tcase_unit(s, "ch10.2");
    CFT_GRADED(t2, ch10_2_projection, "ch10.2", 8, "ellipse projection: worked, KKT, closest, idempotent, 1e-6..1e6");
    CFT_GRADED(t2, ch10_2_max_dissipation, "ch10.2", 7, "maximal dissipation: 86.4 degrees, minimal f.v, steady sliding 3.58");

    TCase *t3 = cft_tcase_unit(s, "ch10.3");
    CFT_GRADED(t3, ch10_3_local_solve, "ch10.3", 5, "local solve: ellipse, per-axis box, chapter 5 when isotropic");
    CFT_GRADED(t3, ch10_3_bgs_solves, "ch10.3", 7, "blocked PGS: elliptic natural map, the isotropic equivalent's answer");
    CFT_GRADED(t3, ch10_3_prox_gs, "ch10.3", 8, "Algorithm 22: the cone of the new normal impulse, same answers");
    CFT_GRADED(t3, ch10_3_prox_isotropic_and_adaptive, "ch10.3", 5, "Algorithm 22: chapter 7 when isotropic; r = 10 converges");

    TCase *t4 = cft_tcase_unit(s, "ch10.4");
    CFT_GRADED(t4, ch10_4_rows, "ch10.4", 6, "the notes' rows: gradients by differences, solution, the v = 0 erratum");
    CFT_GRADED(t4, ch10_4_eval_jacobian, "ch10.4", 7, "the NCP system: Jacobian by finite differences, pinned axis");
    CFT_GRADED(t4, ch10_4_newton_solves, "ch10.4", 7, "Newton: elliptic natural map, PGS's answer, Alart-Curnier when isotropic");

    TCase *t5 = cft_tcase_unit(s, "ch10.5");
    CFT_GRADED(t5, ch10_5_tensor_force, "ch10.5", 5, "tensor force: worked values, 90-degree isotropy, signed angle, rotation");
    CFT_GRADED(t5, ch10_5_tensor_cone, "ch10.5", 6, "equivalent cone: f^T C_P f = lambda_n^2, singular values, the world's frame");
    CFT_GRADED(t5, ch10_5_dissipation, "ch10.5", 4, "dissipation: 10.46 degrees, eigenvectors, the ellipse's maximum");

    TCase *t6 = cft_tcase_unit(s, "ch10.6");
    CFT_GRADED(t6, ch10_6_plowing, "ch10.6", 4, "plowing: 30 degrees (1/3, or 0.36755 with tan), one-sided, flat");
    CFT_GRADED(t6, ch10_6_patch, "ch10.6", 6, "patch sampling: a ramp texture in closed form, both sides");
    CFT_GRADED(t6, ch10_6_directional_box, "ch10.6", 5, "directional box and its PGS: asymmetric thresholds, residual");

    TCase *tw = cft_tcase_scene(s, "ch10-world");
    CFT_TEST(tw, world_grooved_box, "grooved plane: every assembled row against the analytic direction");
    CFT_TEST(tw, world_matchstick_pair, "Matchstick pair: parallel 0.2 g, orthogonal 0.5 g");
    TCase *tt = cft_tcase_scene(s, "ch10-truth");
    CFT_TEST(tt, truth_aniso_prox_no_false_convergence, "anisotropic PROX-GS: converged only with a small residual");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "ch10", build); }
