/* SPDX-License-Identifier: MIT */
/* Chapter 7 tests: proximal maps against their variational inequality and the library's cone,
   the ellipsoid projection against its KKT conditions from 1e-6 to 1e6, the matrix-free
   w = M^-1 J^T lambda against the bodies' own impulse response, PROX-GS against boxed PGS
   (chapter 5) iterate for iterate, Jacobi and Gauss-Seidel against the FC3D residual of the
   Siconos reference problems, the adaptive rule on an exact 2-cycle, and the Moreau stepper
   against analytic physics (free fall, stopping distance, restitution, torsion, post-projection).
   Run with `make test-ch7` (your code) or `make test-ch7 IMPL=solutions`. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_ch02.h"
#include "cf/cf_ch05.h"
#include "cf/cf_ch01.h"
#include "cf/cf_ch07.h"
#include "cf/cf_detect.h"
#include "cf/cf_rng.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

#define HIST 4096
static double g_hist[HIST];

/* a world (for detection) with a ground plane of friction mu; bodies are added by the caller */
static void world_ground(cfWorld *w, double mu)
{
    cfWorldDef def = cf_world_def_default();
    def.detector = CF_DETECT_PRIMITIVES;
    def.contact_margin = 0.01;
    cft_assert_ok(cf_world_init(w, &def));
    cfRigidBody g;
    cft_assert_ok(cf_rigid_init_fixed(&g, cf_shape_plane(cfu_vec3(0, 0, 1), 0), NULL));
    g.mu = mu;
    ck_assert_int_eq(cf_world_add_body(w, &g), 0);
}

static int add_body(cfWorld *w, cfShape shape, double mass, cfVec3 x, double mu)
{
    cfRigidBody b;
    cft_assert_ok(cf_rigid_init(&b, shape, mass, NULL));
    b.x = x;
    b.mu = mu;
    cf_rigid_update_inertia(&b);
    int i = cf_world_add_body(w, &b);
    ck_assert_int_ge(i, 0);
    return i;
}

/* the stepper's detection: the world's, on the bodies the stepper moves (w->bodies), impulses
   carried from the contacts of the previous call (warm start) */
static cfStatus detect_cb(void *ctx, cfRigidBody *bodies, int nb, cfContactList *out)
{
    cfWorld *w = ctx;
    ck_assert(bodies == w->bodies && nb == w->n_bodies);
    return cf_detect_world_again(w, bodies, nb, out);
}

/* rigid contacts of a world's current state as a factored problem (frames filled) */
static void rigid_problem(cfWorld *w, int dim, double mu_tau, cfProxProblem *p)
{
    cfDetectOptions opt = cf_detect_options_default();
    opt.margin = w->def.contact_margin;
    cft_assert_ok(cf_detect_world(w, &opt, &w->contacts, NULL));
    ck_assert_int_gt(w->contacts.count, 0);
    for (int a = 0; a < w->contacts.count; ++a) cft_assert_ok_at(cf_prox_frame(&w->contacts.items[a]), "a = %d", a);
    cft_assert_ok(cf_prox_problem_rigid(w->bodies, w->n_bodies, w->contacts.items, w->contacts.count, dim, mu_tau, p));
}

/* a small pile: two cubes on the ground, a sphere on top, some velocity everywhere */
static void small_pile(cfWorld *w)
{
    world_ground(w, 0.6);
    add_body(w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 1.0, cfu_vec3(0, 0, 0.495), 0.6);
    add_body(w, cf_shape_box(cfu_vec3(0.4, 0.3, 0.2)), 2.0, cfu_vec3(0.1, 0.05, 1.19), 0.6);
    add_body(w, cf_shape_sphere(0.3), 0.5, cfu_vec3(0.2, -0.1, 1.685), 0.6);
    for (int i = 1; i < w->n_bodies; ++i) {
        w->bodies[i].v = cfu_vec3(0.3 * i, -0.2, -0.5);
        w->bodies[i].w = cfu_vec3(0.1, 0.2 * i, -0.3);
    }
}

/* the dense A = J G^T of a factored problem (row-major m x m) */
static double *dense_A(const cfProxProblem *p)
{
    int m = p->dim * p->nc;
    double *A = calloc((size_t)m * m, sizeof *A), *e = calloc((size_t)m, sizeof *e), *w = calloc((size_t)p->nv + 1, sizeof *w);
    double *col = malloc((size_t)m * sizeof *col);
    for (int c = 0; c < m; ++c) {
        e[c] = 1.0;
        cf_csr_tmul_vec(&p->G, e, w);
        cf_csr_mul_vec(&p->J, w, col);
        for (int r = 0; r < m; ++r) A[(long)r * m + c] = col[r];
        e[c] = 0.0;
    }
    free(e), free(w), free(col);
    return A;
}

/* a one-contact problem of dim 3 with the dense block A (row-major 3x3) and b: J = I, G = A^T */
static void one_contact(cfProxProblem *p, const double A[9], const double b[3], double mu)
{
    cfFrictionProblem fc = {0};
    fc.nc = 1;
    cft_assert_ok(cf_bsr_init(&fc.W, 1, 1, 3, 3));
    cft_assert_ok(cf_bsr_add_block(&fc.W, 0, 0, A));
    cf_bsr_finalize(&fc.W);
    fc.q = malloc(3 * sizeof *fc.q);
    fc.mu = malloc(sizeof *fc.mu);
    memcpy(fc.q, b, 3 * sizeof *b);
    fc.mu[0] = mu;
    cft_assert_ok(cf_prox_problem_from_fc(&fc, p));
    cf_fc_free(&fc);
}

/* the Siconos reference problems (n <= 15): file names (without .ref) into names[], by name, count
   returned */
static int reference_files(char names[][128], int cap)
{
    char dir[1024], *files[64];
    snprintf(dir, sizeof dir, "%s/siconos-fc3d/reference", cft_data_dir());
    int n = cf_data_files(dir, ".ref", false, files, cap < 64 ? cap : 64);
    for (int i = 0; i < n; ++i) {
        snprintf(names[i], 128, "%.*s", (int)strlen(files[i]) - 4, files[i]);
        free(files[i]);
    }
    return n > 0 ? n : 0;
}

static void read_fc(const char *name, cfFrictionProblem *fc)
{
    char path[700];
    cfError err;
    snprintf(path, sizeof path, "%s/siconos-fc3d/%s", cft_data_dir(), name);
    cfStatus st = cf_fc_read_siconos(path, fc, &err);
    ck_assert_msg(st == CF_OK, "%s: %s", path, err.msg);
}

/* Siconos' error: the natural map over max(|q|, |r|, |u|) */
static double siconos_error(const cfFrictionProblem *fc, const double *r)
{
    int n = 3 * fc->nc;
    double *u = malloc((size_t)n * sizeof *u);
    cf_fc_velocity(fc, r, u);
    double scale = fmax(cf_fc_norm_q(fc), fmax(cf_vec_norm(n, r), cf_vec_norm(n, u)));
    free(u);
    double res = cf_fc_residual(fc, r);
    return scale > 0 ? res / scale : res;
}

/* ------------------------------------------------------------------------------------------ */
/* ch07.1 proximal maps                                                                        */

START_TEST(ch07_1_prox_maps_cases)
{
    ck_assert(cf_prox_normal(-2.0) == 0.0 && cf_prox_normal(0.0) == 0.0 && cf_prox_normal(3.0) == 3.0);
    double out[3];
    cf_prox_disk((double[]){3, 4}, 1.0, out);
    cft_assert_near(out[0], 0.6, 1e-15, 0);
    cft_assert_near(out[1], 0.8, 1e-15, 0);
    cf_prox_disk((double[]){0.3, -0.4}, 1.0, out); /* inside: unchanged */
    ck_assert(out[0] == 0.3 && out[1] == -0.4);
    cf_prox_disk((double[]){0.3, -0.4}, 0.0, out); /* radius 0: the set is {0} */
    ck_assert(out[0] == 0.0 && out[1] == 0.0);
    cf_prox_disk((double[]){0.3, -0.4}, -1.0, out);
    ck_assert(out[0] == 0.0 && out[1] == 0.0);
    cf_prox_cone((double[]){0, 2, 0}, 1.0, out); /* the worked example */
    cft_assert_near(out[0], 1.0, 1e-15, 0);
    cft_assert_near(out[1], 1.0, 1e-15, 0);
    cft_assert_near(out[2], 0.0, 1e-15, 0);
    cf_prox_cone((double[]){-3, 1, 1}, 0.5, out); /* polar cone: the apex */
    ck_assert(out[0] == 0.0 && out[1] == 0.0 && out[2] == 0.0);
    cf_prox_cone((double[]){2, 0.3, -0.4}, 0.5, out); /* inside */
    ck_assert(out[0] == 2.0 && out[1] == 0.3 && out[2] == -0.4);
    cf_prox_cone((double[]){-1, 0, 0}, 0.0, out); /* mu = 0: the ray x_T = 0, x_n >= 0 */
    ck_assert(out[0] == 0.0 && out[1] == 0.0 && out[2] == 0.0);
    cf_prox_box(3, (double[]){2, -3, 0.1}, (double[]){1, 2, 0.5}, out);
    ck_assert(out[0] == 1.0 && out[1] == -2.0 && out[2] == 0.1);
    cf_prox_box(2, (double[]){2, -3}, (double[]){-1, 0}, out); /* a negative bound counts as 0 */
    ck_assert(out[0] == 0.0 && out[1] == 0.0);
}
END_TEST

START_TEST(ch07_1_projection_properties)
{
    /* each map is THE projection: equal to the library's cone projection; idempotent; the
       variational inequality (z - P z).(y - P z) <= 0 for every y of the set; non-expansive */
    cfRng rng;
    cf_rng_seed(&rng, 7);
    for (int it = 0; it < 2000; ++it) {
        double z[3], y[3], p[3], pp[3], q[3], want[3], z2[3];
        for (int k = 0; k < 3; ++k) z[k] = cf_rng_range(&rng, -3, 3), z2[k] = cf_rng_range(&rng, -3, 3);
        double mu = cf_rng_range(&rng, 0, 2);
        cf_prox_cone(z, mu, p);
        cf_cone_project(z, mu, want);
        for (int k = 0; k < 3; ++k) cft_assert_near_at(p[k], want[k], 1e-13, 1e-13, "it = %d, k = %d", it, k);
        cf_prox_cone(p, mu, pp);
        for (int k = 0; k < 3; ++k) cft_assert_near_at(pp[k], p[k], 1e-13, 1e-13, "it = %d, k = %d", it, k);
        /* a random point of the cone */
        y[0] = cf_rng_range(&rng, 0, 3);
        double ang = cf_rng_range(&rng, 0, 2 * CF_PI), rad = cf_rng_range(&rng, 0, mu * y[0]);
        y[1] = rad * cos(ang), y[2] = rad * sin(ang);
        double vi = 0;
        for (int k = 0; k < 3; ++k) vi += (z[k] - p[k]) * (y[k] - p[k]);
        cft_assert_at(vi <= 1e-12, "it = %d: cone VI %g", it, vi);
        /* disk */
        double r = cf_rng_range(&rng, 0, 2);
        cf_prox_disk(z, r, p);
        cf_prox_disk(z2, r, q);
        cft_assert_at(hypot(p[0], p[1]) <= r * (1 + 1e-15), "it = %d: outside the disk", it);
        double yd[2] = {rad / (mu > 0 ? mu * y[0] : 1) * r * cos(ang), rad / (mu > 0 ? mu * y[0] : 1) * r * sin(ang)};
        vi = (z[0] - p[0]) * (yd[0] - p[0]) + (z[1] - p[1]) * (yd[1] - p[1]);
        cft_assert_at(vi <= 1e-12, "it = %d: disk VI %g", it, vi);
        cft_assert_at(hypot(p[0] - q[0], p[1] - q[1]) <= hypot(z[0] - z2[0], z[1] - z2[1]) + 1e-14,
                      "it = %d: the disk projection expands a distance", it);
        /* box */
        double hi[3] = {cf_rng_range(&rng, 0, 1), cf_rng_range(&rng, 0, 1), cf_rng_range(&rng, 0, 1)};
        cf_prox_box(3, z, hi, p);
        for (int k = 0; k < 3; ++k) {
            cft_assert_at(fabs(p[k]) <= hi[k], "it = %d, k = %d: outside the box", it, k);
            cft_assert_at(p[k] == z[k] || fabs(p[k]) == hi[k], "it = %d, k = %d: moved although inside", it, k);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch07.2 ellipsoid                                                                            */

static void check_ellipsoid(const double abc[3], const double z[3], const double want[3], double tol)
{
    double x[3];
    cf_prox_ellipsoid(abc, z, 1e-15, x);
    for (int k = 0; k < 3; ++k) cft_assert_near_at(x[k], want[k], tol, 0, "k = %d", k);
}

START_TEST(ch07_2_ellipsoid_worked)
{
    check_ellipsoid((double[]){1, 1, 1}, (double[]){3, 4, 0}, (double[]){0.6, 0.8, 0}, 1e-14);
    check_ellipsoid((double[]){1, 0.5, 0.25}, (double[]){2, 0, 0}, (double[]){1, 0, 0}, 1e-14);
    double s = 1 / sqrt(3.0);
    check_ellipsoid((double[]){1, 1, 1}, (double[]){1, 1, 1}, (double[]){s, s, s}, 1e-14);
    /* general axes (6 digits: the bisection's answer, f(x) = 0 to 1e-12) */
    check_ellipsoid((double[]){2, 1, 0.5}, (double[]){3, 2, 1}, (double[]){1.708406, 0.497007, 0.076357}, 1e-6);
    check_ellipsoid((double[]){1, 2, 0.5}, (double[]){2, 2, 2}, (double[]){0.635009, 1.300906, 0.208371}, 1e-6);
    /* inside: z itself, no bisection */
    double x[3];
    ck_assert_int_eq(cf_prox_ellipsoid((double[]){2, 1, 1e-3}, (double[]){0.5, 0.5, 0}, 1e-15, x), 0);
    ck_assert(x[0] == 0.5 && x[1] == 0.5 && x[2] == 0);
    /* an axis of length 0 pins its coordinate: the ellipse in the (x, y) plane */
    cf_prox_ellipsoid((double[]){1, 1, 0}, (double[]){0.3, 0.4, 5}, 1e-15, x);
    ck_assert(x[0] == 0.3 && x[1] == 0.4 && x[2] == 0.0);
    cf_prox_ellipsoid((double[]){0, 0, 0}, (double[]){0.3, 0.4, 5}, 1e-15, x);
    ck_assert(x[0] == 0.0 && x[1] == 0.0 && x[2] == 0.0);
    /* two axes of length 0, in every position: the segment |x_j| <= 2 along the third, so z with
       z_j = 3 goes to 2 e_j (a test for "every axis is 0" that reads one axis twice gives 0) */
    for (int j = 0; j < 3; ++j) {
        double a2[3] = {0, 0, 0}, z2[3] = {1, -1, 1};
        a2[j] = 2, z2[j] = 3;
        cf_prox_ellipsoid(a2, z2, 1e-15, x);
        for (int k = 0; k < 3; ++k) cft_assert_near_at(x[k], k == j ? 2.0 : 0.0, 1e-14, 0, "j = %d, k = %d", j, k);
    }
    /* and outside that ellipse: the bisection's answer keeps the pinned coordinate at 0, the
       others on the unit circle */
    cf_prox_ellipsoid((double[]){1, 1, 0}, (double[]){3, 4, 5}, 1e-15, x);
    cft_assert_near(x[0], 0.6, 1e-14, 0);
    cft_assert_near(x[1], 0.8, 1e-14, 0);
    cft_assert_near(x[2], 0.0, 0.0, 0);
    /* the bisection of the spec counts its steps: bracket [0, max(a, b, c) |z|] (scaled), halve
       until hi - lo <= tol hi. Worked example: 42 steps at tol 1e-12, 22 at 1e-6 (the gap
       shrinks by 2^-k from t_1; the sign of g at a midpoint is never in doubt at these gaps, so
       any summation order counts the same); a bracket t_1 = max(a, b, c) or a loop that runs on
       past the tolerance counts differently */
    const double abc[3] = {2, 1, 0.5}, z[3] = {3, 2, 1};
    ck_assert_int_eq(cf_prox_ellipsoid(abc, z, 1e-12, x), 42);
    ck_assert_int_eq(cf_prox_ellipsoid(abc, z, 1e-6, x), 22);
    /* the bracket takes the largest of all three axes: the same problem with its axes in the
       other order (the largest last) takes the same 42 steps to the same point reordered */
    double xr[3];
    cf_prox_ellipsoid(abc, z, 1e-12, x);
    ck_assert_int_eq(cf_prox_ellipsoid((double[]){0.5, 1, 2}, (double[]){1, 2, 3}, 1e-12, xr), 42);
    for (int k = 0; k < 3; ++k) cft_assert_near_at(xr[k], x[2 - k], 1e-12, 0, "k = %d", k);
    /* the scale of step 2: the same problem times 1e200 (its squares overflow) takes the same
       steps to the same point times 1e200 */
    const double abc_big[3] = {2e200, 1e200, 0.5e200}, z_big[3] = {3e200, 2e200, 1e200};
    double want[3];
    ck_assert_int_eq(cf_prox_ellipsoid(abc, z, 1e-15, want), cf_prox_ellipsoid(abc_big, z_big, 1e-15, x));
    for (int k = 0; k < 3; ++k) cft_assert_near_at(x[k] / 1e200, want[k], 0, 1e-14, "k = %d", k);
    /* and times 1e-200 (its squares underflow to 0: a scale that never scales up gives 0/0) */
    const double abc_tiny[3] = {2e-200, 1e-200, 0.5e-200}, z_tiny[3] = {3e-200, 2e-200, 1e-200};
    ck_assert_int_eq(cf_prox_ellipsoid(abc, z, 1e-15, want), cf_prox_ellipsoid(abc_tiny, z_tiny, 1e-15, x));
    for (int k = 0; k < 3; ++k) cft_assert_near_at(x[k] / 1e-200, want[k], 0, 1e-14, "k = %d (tiny)", k);
}
END_TEST

START_TEST(ch07_2_ellipsoid_kkt_extremes)
{
    /* semi-axes from 1e-6 to 1e6 and points inside, outside and on an axis: the answer is on the
       surface, x - z = -t K x with t > 0 (KKT), and no point of a sample of the surface is
       closer to z (the tolerance of the distance test is relative: 1e-12) */
    cfRng rng;
    cf_rng_seed(&rng, 11);
    for (int it = 0; it < 600; ++it) {
        double abc[3], z[3], x[3];
        for (int k = 0; k < 3; ++k) abc[k] = pow(10.0, cf_rng_range(&rng, -6, 6));
        int kind = it % 3; /* 0 outside, 1 inside, 2 on an axis */
        for (int k = 0; k < 3; ++k) z[k] = abc[k] * cf_rng_range(&rng, -3, 3);
        if (kind == 1)
            for (int k = 0; k < 3; ++k) z[k] = abc[k] * cf_rng_range(&rng, -0.5, 0.5);
        if (kind == 2) {
            int ax = it % 2;
            z[0] = z[1] = z[2] = 0;
            z[ax] = abc[ax] * cf_rng_range(&rng, 1.5, 4) * (it % 4 < 2 ? 1 : -1);
        }
        double f = 0;
        for (int k = 0; k < 3; ++k) f += (z[k] / abc[k]) * (z[k] / abc[k]);
        int steps = cf_prox_ellipsoid(abc, z, 1e-15, x);
        if (f <= 1.0) {
            ck_assert_int_eq(steps, 0);
            for (int k = 0; k < 3; ++k) cft_assert_at(x[k] == z[k], "it = %d, k = %d: inside moved", it, k);
            continue;
        }
        double fx = -1;
        for (int k = 0; k < 3; ++k) fx += (x[k] / abc[k]) * (x[k] / abc[k]);
        cft_assert_near_at(fx, 0.0, 1e-12, 0, "it = %d: not on the surface", it);
        /* x_k - z_k = -t x_k / a_k^2 with one t > 0: compare the multipliers of the axes with x_k != 0 */
        double t = -1;
        for (int k = 0; k < 3; ++k) {
            /* t from an axis where x and z differ by at least 1e-6 relative (else it is rounding) */
            if (fabs(x[k]) < 1e-9 * fabs(z[k]) || x[k] == 0 || fabs(z[k] - x[k]) <= 1e-6 * fabs(z[k])) continue;
            double tk = (z[k] - x[k]) / x[k] * abc[k] * abc[k];
            cft_assert_at(tk >= 0, "it = %d, k = %d: negative multiplier %g", it, k, tk);
            if (t < 0) t = tk;
            else cft_assert_near_at(tk, t, 1e-7 * t, 1e-7, "it = %d, k = %d: KKT (x - z not parallel to K x)", it, k);
            cft_assert_at(x[k] * z[k] >= 0, "it = %d, k = %d: the projection changed a sign", it, k);
        }
        double best = hypot(hypot(x[0] - z[0], x[1] - z[1]), x[2] - z[2]);
        for (int s = 0; s < 200; ++s) {
            double th = cf_rng_range(&rng, 0, CF_PI), ph = cf_rng_range(&rng, 0, 2 * CF_PI);
            double y[3] = {abc[0] * sin(th) * cos(ph), abc[1] * sin(th) * sin(ph), abc[2] * cos(th)};
            double dist = hypot(hypot(y[0] - z[0], y[1] - z[1]), y[2] - z[2]);
            cft_assert_at(dist >= best * (1 - 1e-12), "it = %d, s = %d: a surface point is closer (%g < %g)", it, s, dist,
                          best);
        }
    }
    /* a point 1e155 out on each axis (both signs), far beyond the semi-axes (1, 2, 0.5): the
       scale of step 2 must include |z|, else z^2 overflows (scaled by the axes alone z is
       still 2.5e154); with it the axes' squares are subnormal (2.5e-311), accurate to about
       2e-13, and the answer is that axis's end */
    {
        const double abc[3] = {1, 2, 0.5};
        for (int k = 0; k < 6; ++k) {
            double z[3] = {0, 0, 0}, x[3];
            z[k % 3] = k < 3 ? 1e155 : -1e155;
            cf_prox_ellipsoid(abc, z, 1e-15, x);
            for (int i = 0; i < 3; ++i) {
                double want = i == k % 3 ? (k < 3 ? abc[i] : -abc[i]) : 0.0;
                cft_assert_near_at(x[i], want, 1e-10, 0, "z = %g e_%d: x[%d]", z[k % 3], k % 3, i);
            }
        }
    }
}
END_TEST

START_TEST(ch07_2_friction_set)
{
    double out[3], want[3];
    const double mu_iso[3] = {0.5, 0.5, 0.0};
    /* isotropic: the disk of radius mu lambda_n */
    cf_prox_friction(2, (double[]){3, 4}, mu_iso, 2.0, NULL, false, 1e-15, out);
    cft_assert_near(out[0], 0.6, 1e-15, 0);
    cft_assert_near(out[1], 0.8, 1e-15, 0);
    /* a negative normal impulse gives the set {0} */
    cf_prox_friction(2, (double[]){3, 4}, mu_iso, -1.0, NULL, false, 1e-15, out);
    ck_assert(out[0] == 0 && out[1] == 0);
    /* box: each row clamped to mu_k lambda_n */
    cf_prox_friction(3, (double[]){3, -4, 0.5}, (double[]){0.5, 0.25, 0.1}, 2.0, NULL, true, 1e-15, out);
    ck_assert(out[0] == 1.0 && out[1] == -0.5 && out[2] == 0.2);
    /* orthotropic ellipse, and the Coulomb-Contensou ellipsoid: the ellipsoid projection */
    cf_prox_friction(2, (double[]){3, 2}, (double[]){1.0, 0.5, 0.0}, 2.0, NULL, false, 1e-15, out);
    cf_prox_ellipsoid((double[]){2, 1, 0}, (double[]){3, 2, 0}, 1e-15, want);
    cft_assert_near(out[0], want[0], 1e-14, 0);
    cft_assert_near(out[1], want[1], 1e-14, 0);
    cf_prox_friction(3, (double[]){3, 2, 1}, (double[]){1.0, 0.5, 0.25}, 2.0, NULL, false, 1e-15, out);
    const double cc[3] = {1.708406, 0.497007, 0.076357};
    for (int k = 0; k < 3; ++k) cft_assert_near_at(out[k], cc[k], 1e-6, 0, "k = %d", k);
    /* equal r-factors: the Euclidean projection */
    cf_prox_friction(2, (double[]){3, 4}, mu_iso, 2.0, (double[]){0.7, 0.7}, false, 1e-15, out);
    cft_assert_near(out[0], 0.6, 1e-15, 0);
    /* r-factors that differ: the projection in the metric diag(1/r) is the point of the disk
       closest to z in that metric (checked against a dense sample of the rim), and its fixed
       point satisfies maximal dissipation: lambda = P(lambda - R v) with lambda on the rim means
       v is antiparallel to lambda (not to R^-1 lambda) */
    const double r[2] = {4.0, 0.25};
    double z[2] = {3, 4};
    cf_prox_friction(2, z, mu_iso, 2.0, r, false, 1e-15, out);
    cft_assert_near(hypot(out[0], out[1]), 1.0, 1e-12, 0);
    double best = (out[0] - z[0]) * (out[0] - z[0]) / r[0] + (out[1] - z[1]) * (out[1] - z[1]) / r[1];
    for (int s = 0; s < 3600; ++s) {
        double th = 2 * CF_PI * s / 3600, y[2] = {cos(th), sin(th)};
        double dist = (y[0] - z[0]) * (y[0] - z[0]) / r[0] + (y[1] - z[1]) * (y[1] - z[1]) / r[1];
        cft_assert_at(dist >= best * (1 - 1e-12), "s = %d: a closer point in the metric", s);
    }
    const double lam[2] = {0.6, -0.8}, v[2] = {-0.6 * 3, 0.8 * 3}; /* v = -3 lambda: sliding against it */
    double zz[2] = {lam[0] - r[0] * v[0], lam[1] - r[1] * v[1]};
    cf_prox_friction(2, zz, mu_iso, 2.0, r, false, 1e-15, out);
    cft_assert_near(out[0], lam[0], 1e-12, 0);
    cft_assert_near(out[1], lam[1], 1e-12, 0);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch07.3 PROX-Jacobi                                                                          */

START_TEST(ch07_3_w_matrix_free)
{
    /* w = M^-1 J^T lambda is the velocity change the impulses give the bodies: compare with
       chapter 2's apply (cf_rigid_apply_impulses()) on the pile's contacts, dim 3 */
    cfWorld w;
    small_pile(&w);
    cfProxProblem p;
    rigid_problem(&w, 3, 0.0, &p);
    int nc = p.nc, nb = w.n_bodies;
    double *lam = malloc((size_t)3 * nc * sizeof *lam), *wv = malloc((size_t)6 * nb * sizeof *wv);
    cfRng rng;
    cf_rng_seed(&rng, 3);
    for (int i = 0; i < 3 * nc; ++i) lam[i] = cf_rng_range(&rng, -1, 2);
    cf_prox_w(&p, lam, wv);
    cfRigidBody *b = malloc((size_t)nb * sizeof *b);
    memcpy(b, w.bodies, (size_t)nb * sizeof *b);
    for (int i = 0; i < nb; ++i) b[i].v = b[i].w = cfu_zero3();
    cft_assert_ok(cf_rigid_apply_impulses(b, nb, w.contacts.items, nc, lam));
    for (int i = 0; i < nb; ++i) {
        cft_assert_vec3_near_at(cfu_vec3(wv[6 * i], wv[6 * i + 1], wv[6 * i + 2]), b[i].v, 1e-12, "body %d", i);
        cft_assert_vec3_near_at(cfu_vec3(wv[6 * i + 3], wv[6 * i + 4], wv[6 * i + 5]), b[i].w, 1e-12, "body %d", i);
    }
    /* and J w + b is the contact velocity of the moved bodies */
    free(lam), free(wv), free(b);
    cf_prox_problem_free(&p);
    cf_world_free(&w);
}
END_TEST

START_TEST(ch07_3_jacobi_sweep)
{
    /* one sweep against the formula with the dense A: z = lambda - R (A lambda + b), the normal
       projected on [0, inf), the friction on the disk sized by the OLD normal impulse */
    cfWorld w;
    small_pile(&w);
    cfProxProblem p;
    rigid_problem(&w, 3, 0.0, &p);
    int nc = p.nc, m = 3 * nc;
    double *A = dense_A(&p), *R = malloc((size_t)9 * nc * sizeof *R);
    double *lam = malloc((size_t)m * sizeof *lam), *trial = malloc((size_t)m * sizeof *trial);
    double *wv = malloc((size_t)p.nv * sizeof *wv), *v = malloc((size_t)m * sizeof *v);
    cfRng rng;
    cf_rng_seed(&rng, 5);
    for (int i = 0; i < m; ++i) lam[i] = cf_rng_range(&rng, 0, 1);
    cfProxOptions o = cf_prox_options_default();
    o.strategy = CF_RFACTOR_GLOBAL;
    o.r_global = 0.3; /* one r: the Euclidean disk */
    for (int i = 0; i < 9 * nc; ++i) R[i] = (i % 9) % 4 == 0 ? 0.3 : 0.0;
    double e = cf_prox_jacobi_sweep(&p, R, 0.5, &o, lam, trial, wv, v);
    double emax = 0;
    for (int a = 0; a < nc; ++a) {
        double z[3];
        for (int k = 0; k < 3; ++k) {
            double va = p.b[3 * a + k];
            for (int c = 0; c < m; ++c) va += A[(long)(3 * a + k) * m + c] * lam[c];
            z[k] = lam[3 * a + k] - 0.5 * 0.3 * va;
        }
        double want[3] = {fmax(0, z[0]), 0, 0}, rad = p.mu[3 * a] * lam[3 * a], zt = hypot(z[1], z[2]);
        double s = zt > rad ? rad / zt : 1;
        want[1] = s * z[1], want[2] = s * z[2];
        for (int k = 0; k < 3; ++k) {
            cft_assert_near_at(trial[3 * a + k], want[k], 1e-12, 1e-12, "a = %d, k = %d", a, k);
            emax = fmax(emax, fabs(want[k] - lam[3 * a + k]));
        }
    }
    cft_assert_near(e, emax, 1e-12, 1e-12);
    free(A), free(R), free(lam), free(trial), free(wv), free(v);
    cf_prox_problem_free(&p);
    cf_world_free(&w);
}
END_TEST

/* a 2-cycle of fixed-r PROX (notes 3.4.4): friction rows A_FF = [[2, 1], [1, 2]], b_F = (-1, 1)
   on the unit disk; the normal row decoupled with lambda_n = 1 (A_nn = 1, b_n = -1, mu = 1) */
static void cycle_problem(cfProxProblem *p)
{
    const double A[9] = {1, 0, 0, 0, 2, 1, 0, 1, 2}, b[3] = {-1, -1, 1};
    one_contact(p, A, b, 1.0);
}

START_TEST(ch07_3_adaptive_cycle)
{
    cfProxProblem p;
    cycle_problem(&p);
    cfProxOptions o = cf_prox_options_default();
    o.strategy = CF_RFACTOR_GLOBAL;
    o.r_global = 1.0;
    o.tol_abs = 1e-10;
    o.max_iter = 1000;
    /* fixed r = 1 (nu = 1: never shrink): the exact 2-cycle (1, 0) <-> (0, -1), no convergence */
    o.nu = 1.0;
    double lam[3] = {1, 0, 1};
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    cfProxStats st;
    cft_assert_status(cf_prox_jacobi(&p, &o, lam, &rep, &st), CF_MAX_ITER);
    ck_assert_int_eq(st.sweeps, 1000);
    ck_assert_msg((fabs(lam[1] - 1) < 1e-12 && fabs(lam[2]) < 1e-12) || (fabs(lam[1]) < 1e-12 && fabs(lam[2] + 1) < 1e-12),
                  "fixed r = 1 should end on the cycle (1, 0) <-> (0, -1), got (%g, %g)", lam[1], lam[2]);
    /* adaptive from r = 1, nu 0.5, the ">=" rule: converges to (1/sqrt2, -1/sqrt2) */
    o.nu = 0.5;
    lam[0] = 1, lam[1] = 0, lam[2] = 1;
    cf_report_init(&rep, g_hist, HIST);
    cft_assert_ok(cf_prox_jacobi(&p, &o, lam, &rep, &st));
    cft_assert_near(lam[1], 1 / sqrt(2.0), 1e-9, 0);
    cft_assert_near(lam[2], -1 / sqrt(2.0), 1e-9, 0);
    ck_assert_int_ge(st.rollbacks, 1);
    ck_assert_int_eq(st.sweeps, st.accepted + st.rollbacks);
    ck_assert_int_eq(rep.iterations, st.sweeps);
    ck_assert(rep.reason == CF_STOP_ABSOLUTE && rep.measure == CF_MEASURE_IMPULSE_CHANGE);
    cft_assert_near(st.r_scale, 0.5, 0, 0); /* one halving ends the cycle (final r 0.5) */
    /* after the halving a sweep moves lambda by half as much for the same error: the stop
       compares e with scale tol_abs = 5e-11, not tol_abs (the listing's test) */
    cft_assert_near(st.tol_used, 0.5 * o.tol_abs, 0, 1e-15);
    ck_assert_msg(st.merit <= st.tol_used, "merit %g above the scaled tolerance %g", st.merit, st.tol_used);
    /* the accepted merit never grows */
    ck_assert_int_eq(rep.history_len, st.sweeps);
    for (int k = 1; k < rep.history_len; ++k)
        cft_assert_at(rep.history[k] <= rep.history[k - 1], "k = %d: accepted merit grew", k);
    /* the same from r = 5 and r = 100: converged, r shrunk below Foerg's 1/4 * 2 */
    for (int i = 0; i < 2; ++i) {
        o.r_global = i == 0 ? 5.0 : 100.0;
        lam[0] = 1, lam[1] = 0, lam[2] = 1;
        cft_assert_ok_at(cf_prox_jacobi(&p, &o, lam, NULL, &st), "r0 = %g", o.r_global);
        cft_assert_near_at(lam[1], 1 / sqrt(2.0), 1e-9, 0, "r0 = %g", o.r_global);
        cft_assert_at(st.r_scale * o.r_global < 0.8, "r0 = %g: final r %g", o.r_global, st.r_scale * o.r_global);
    }
    /* the accuracy bound only raises the tolerance: here it is 10 eps r |A| |lambda| ~ 1e-14,
       below scale tol_abs, which stays */
    o.r_global = 1.0;
    o.bound_tol = true;
    lam[0] = 1, lam[1] = 0, lam[2] = 1;
    cft_assert_ok(cf_prox_jacobi(&p, &o, lam, NULL, &st));
    cft_assert_near(st.tol_used, 0.5 * o.tol_abs, 0, 1e-15);
    o.bound_tol = false;
    /* growth: from scale0 = 1/4 with grow 1.25 after 3 accepted sweeps the scale is
       scale0 nu^rollbacks grow^grows (it stays between the floor and 1, so no clamp; powers of
       2 and 1.25 are exact). A much smaller start (0.01) only creeps here: each grown step's
       change is rejected against the last, and the scale ends on its floor scale_min */
    o.scale0 = 0.25;
    o.grow = 1.25;
    o.grow_after = 3;
    lam[0] = 1, lam[1] = 0, lam[2] = 1;
    cft_assert_ok(cf_prox_jacobi(&p, &o, lam, NULL, &st));
    ck_assert_int_gt(st.grows, 0);
    ck_assert(st.r_scale < 1.0);
    cft_assert_near(st.r_scale, 0.25 * pow(0.5, st.rollbacks) * pow(1.25, st.grows), 0, 1e-12);
    cf_prox_problem_free(&p);
}
END_TEST

START_TEST(ch07_3_jacobi_solves_references)
{
    /* PROX-Jacobi with local r-factors on every Siconos reference problem (n <= 15): Siconos'
       error below 1e-8 (the bar). First the one-contact cycle problem (so that a stub says
       "not implemented" before the data are needed) */
    cfProxProblem cyc;
    cycle_problem(&cyc);
    double l0[3] = {1, 0, 1};
    cfProxOptions o0 = cf_prox_options_default();
    cft_assert_ok(cf_prox_jacobi(&cyc, &o0, l0, NULL, NULL));
    cf_prox_problem_free(&cyc);
    if (!cft_data_or_skip("siconos-fc3d/reference", "ch07.3")) return;
    char names[64][128];
    int n = reference_files(names, 64);
    ck_assert_int_ge(n, 10);
    for (int i = 0; i < n; ++i) {
        cfFrictionProblem fc;
        read_fc(names[i], &fc);
        cfProxProblem p;
        cft_assert_ok(cf_prox_problem_from_fc(&fc, &p));
        cfProxOptions o = cf_prox_options_default();
        o.tol_abs = 1e-14;
        o.bound_tol = true;
        o.window = 16;
        o.max_iter = 100000;
        double *r = calloc((size_t)3 * fc.nc, sizeof *r);
        cfStatus st = cf_prox_jacobi(&p, &o, r, NULL, NULL);
        cft_assert_at(st == CF_OK || st == CF_MAX_ITER, "%s: %s", names[i], cf_status_name(st));
        double e = siconos_error(&fc, r);
        cft_assert_at(e <= 1e-8, "%s: Siconos error %g", names[i], e);
        free(r);
        cf_prox_problem_free(&p);
        cf_fc_free(&fc);
    }
}
END_TEST

START_TEST(ch07_3_stops_and_report)
{
    cfProxProblem p;
    cycle_problem(&p);
    cfProxOptions o = cf_prox_options_default();
    double lam[3] = {1, 0, 1};
    cfReport rep;
    cf_report_init(&rep, g_hist, HIST);
    /* max_iter 0: no sweep, lambda untouched */
    o.max_iter = 0;
    cfProxStats st;
    cft_assert_status(cf_prox_jacobi(&p, &o, lam, &rep, &st), CF_MAX_ITER);
    ck_assert(st.sweeps == 0 && lam[0] == 1 && lam[1] == 0 && lam[2] == 1 && rep.history_len == 0);
    /* the relative stop (paper 001: |e_k+1 - e_k| <= tol_rel e_k) ends earlier than the absolute one */
    o.max_iter = 1000;
    o.strategy = CF_RFACTOR_GLOBAL;
    o.r_global = 0.1;
    o.tol_abs = 1e-12;
    o.tol_rel = 0.2;
    cft_assert_ok(cf_prox_gs(&p, &o, lam, &rep, &st));
    ck_assert(rep.reason == CF_STOP_RELATIVE && st.reason == CF_STOP_RELATIVE);
    int relative_sweeps = st.sweeps;
    /* at the first sweep where the accepted merit changed by at most tol_rel of the one before
       (every sweep accepted here, so the history is that merit) */
    ck_assert_int_eq(st.rollbacks, 0);
    for (int k = 1; k < rep.history_len; ++k) {
        bool rule = fabs(g_hist[k] - g_hist[k - 1]) <= 0.2 * g_hist[k - 1];
        cft_assert_at(rule == (k == rep.history_len - 1), "sweep %d: |e - e_prev| = %g, e_prev %g", k + 1,
                      fabs(g_hist[k] - g_hist[k - 1]), g_hist[k - 1]);
    }
    /* r_max: the largest row sum |R_a|_inf of the r-factors at the start (blocked: with the
       friction block's off-diagonal entries) */
    {
        cfProxOptions ob = o;
        ob.strategy = CF_RFACTOR_BLOCKED;
        double Rb[9], lb[3] = {1, 0, 1}, want = 0;
        cft_assert_ok(cf_prox_r_init(&p, &ob, Rb));
        for (int k = 0; k < 3; ++k) want = fmax(want, fabs(Rb[3 * k]) + fabs(Rb[3 * k + 1]) + fabs(Rb[3 * k + 2]));
        cft_assert_ok(cf_prox_jacobi(&p, &ob, lb, NULL, &st));
        cft_assert_near(st.r_max, want, 0, 1e-15);
        /* local r-factors 1/A_ii of diagonal blocks: the largest on the normal row, then on a
           tangent row that is not the last */
        const double diag[2][3] = {{0.5, 2, 2}, {2, 0.25, 1}}, r_max[2] = {2, 4};
        for (int t = 0; t < 2; ++t) {
            const double A[9] = {diag[t][0], 0, 0, 0, diag[t][1], 0, 0, 0, diag[t][2]}, b[3] = {-1, 0.5, 0.5};
            cfProxProblem q;
            one_contact(&q, A, b, 0.5);
            double l[3] = {0, 0, 0};
            cfProxOptions ol = cf_prox_options_default();
            cft_assert_ok_at(cf_prox_jacobi(&q, &ol, l, NULL, &st), "t = %d", t);
            cft_assert_near_at(st.r_max, r_max[t], 0, 1e-15, "t = %d", t);
            cf_prox_problem_free(&q);
        }
    }
    o.tol_rel = 0.0;
    lam[0] = 1, lam[1] = 0, lam[2] = 1;
    cft_assert_ok(cf_prox_gs(&p, &o, lam, &rep, &st));
    ck_assert(rep.reason == CF_STOP_ABSOLUTE);
    ck_assert_int_gt(st.sweeps, relative_sweeps);
    cft_assert_near(rep.residual, st.merit, 0, 0);
    ck_assert(st.merit <= 1e-12);
    /* bad input: a NaN start, omega out of range */
    lam[1] = NAN;
    cft_assert_status(cf_prox_jacobi(&p, &o, lam, &rep, NULL), CF_BAD_INPUT);
    ck_assert(rep.status == CF_BAD_INPUT);
    lam[1] = 0;
    o.omega = 2.0;
    cft_assert_status(cf_prox_gs(&p, &o, lam, NULL, NULL), CF_BAD_INPUT);
    cf_prox_problem_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch07.4 PROX-Gauss-Seidel                                                                    */

START_TEST(ch07_4_w_incremental)
{
    /* after every sweep the running w equals G^T lambda recomputed from scratch (1e-12): the
       incremental update w <- w + G_I^T (new - old) is the matrix-free heart of the method */
    cfWorld w;
    small_pile(&w);
    for (int dim = 3; dim <= 4; ++dim) {
        cfProxProblem p;
        rigid_problem(&w, dim, 0.05, &p);
        int m = dim * p.nc;
        cfProxOptions o = cf_prox_options_default();
        double *R = malloc((size_t)dim * dim * p.nc * sizeof *R), *lam = calloc((size_t)m, sizeof *lam);
        double *trial = malloc((size_t)m * sizeof *trial), *wv = malloc((size_t)p.nv * sizeof *wv);
        double *w2 = malloc((size_t)p.nv * sizeof *w2), *v = malloc((size_t)m * sizeof *v);
        cft_assert_ok(cf_prox_r_init(&p, &o, R));
        for (int k = 0; k < 20; ++k) {
            double e = cf_prox_gs_sweep(&p, R, 1.0, &o, lam, trial, wv, v);
            cf_prox_w(&p, trial, w2);
            for (int j = 0; j < p.nv; ++j) cft_assert_near_at(wv[j], w2[j], 1e-12, 1e-12, "dim %d sweep %d j = %d", dim, k, j);
            double emax = 0;
            for (int i = 0; i < m; ++i) emax = fmax(emax, fabs(trial[i] - lam[i]));
            cft_assert_near_at(e, emax, 0, 0, "dim %d sweep %d", dim, k);
            memcpy(lam, trial, (size_t)m * sizeof *lam);
        }
        free(R), free(lam), free(trial), free(wv), free(w2), free(v);
        cf_prox_problem_free(&p);
    }
    cf_world_free(&w);
}
END_TEST

START_TEST(ch07_4_pgs_equivalence)
{
    /* one particle (A = I/m) on the ground: PROX-GS with the box set, local r = 1/A_ii and no
       adaptation equals boxed PGS (ch05.4) sweep for sweep; here with a slip along t and a stick
       along b (chapter 5's example: lambda = (2, -0.6, -0.1) in one sweep) */
    const double A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, b[3] = {-2, 1, 0.1};
    cfProxProblem p;
    one_contact(&p, A, b, 0.3);
    cfProxOptions o = cf_prox_options_default();
    o.box = true;
    o.nu = 1.0;
    o.tol_abs = 0;
    cfDense D = {3, 3, (double *)A};
    cfBlcp q;
    cfCsr C;
    cfLcp tmp;
    cft_assert_ok(cf_lcp_from_dense(&tmp, &D, b));
    C = tmp.A;
    cft_assert_ok(cf_blcp_init(&q, &C));
    cf_lcp_free(&tmp);
    memcpy(q.b, b, sizeof b);
    q.lo[1] = q.lo[2] = -INFINITY;
    q.findex[1] = q.findex[2] = 0;
    q.mu[1] = q.mu[2] = 0.3;
    for (int k = 1; k <= 3; ++k) {
        double x[3] = {0, 0, 0}, lam[3] = {0, 0, 0};
        cfSplitOptions so = cf_split_options_default();
        so.max_iter = k;
        so.tol_abs = 0;
        cf_blcp_pgs(&q, &so, x, NULL);
        o.max_iter = k;
        cf_prox_gs(&p, &o, lam, NULL, NULL);
        for (int i = 0; i < 3; ++i) cft_assert_near_at(lam[i], x[i], 1e-15, 0, "sweeps %d, i = %d", k, i);
    }
    double lam[3] = {0, 0, 0};
    o.max_iter = 1;
    cf_prox_gs(&p, &o, lam, NULL, NULL);
    cft_assert_near(lam[0], 2, 1e-15, 0);
    cft_assert_near(lam[1], -0.6, 1e-15, 0);
    cft_assert_near(lam[2], -0.1, 1e-15, 0);
    cf_blcp_free(&q);
    cf_prox_problem_free(&p);
}
END_TEST

START_TEST(ch07_4_sliding_particle)
{
    /* the sliding particle with the round cone: lambda_t = -mu lambda_n v_t/|v_t| (the friction
       opposes the sliding velocity), lambda_n = -b_n; unit mass, b = (-1, 2, 1), mu 0.5 */
    const double A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, b[3] = {-1, 2, 1};
    cfProxProblem p;
    one_contact(&p, A, b, 0.5);
    cfProxOptions o = cf_prox_options_default();
    o.tol_abs = 1e-14;
    double lam[3] = {0, 0, 0};
    cft_assert_ok(cf_prox_gs(&p, &o, lam, NULL, NULL));
    double vt = hypot(2, 1);
    cft_assert_near(lam[0], 1.0, 1e-13, 0);
    cft_assert_near(lam[1], -0.5 * 2 / vt, 1e-13, 0);
    cft_assert_near(lam[2], -0.5 * 1 / vt, 1e-13, 0);
    /* and the same with a rotated, scaled block (A_tt != A_bb, local r-factors: the metric) */
    const double A2[9] = {2, 0, 0, 0, 3, 0.5, 0, 0.5, 1}, b2[3] = {-2, 2, 1};
    cfProxProblem p2;
    one_contact(&p2, A2, b2, 0.5);
    double l2[3] = {0, 0, 0};
    cft_assert_ok(cf_prox_gs(&p2, &o, l2, NULL, NULL));
    double u[3] = {b2[0], b2[1], b2[2]};
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) u[r] += A2[3 * r + c] * l2[c];
    cft_assert_near(u[0], 0.0, 1e-12, 0);
    double ut = hypot(u[1], u[2]), lt = hypot(l2[1], l2[2]);
    ck_assert_msg(ut > 1e-3, "the particle slides");
    cft_assert_near(lt, 0.5 * l2[0], 1e-12, 0);
    cft_assert_near(l2[1] / lt, -u[1] / ut, 1e-10, 0);
    cft_assert_near(l2[2] / lt, -u[2] / ut, 1e-10, 0);
    cf_prox_problem_free(&p);
    cf_prox_problem_free(&p2);
}
END_TEST

START_TEST(ch07_4_gs_solves_references)
{
    /* PROX-GS (local and global r) on every Siconos reference problem: Siconos' error below 1e-8;
       where W is full rank (unique solution) Jacobi and GS agree to 1e-6 relative. First a sweep on
       a built-in problem (a stub says "not implemented" before the data are needed) */
    cfProxProblem cyc;
    cycle_problem(&cyc);
    double l0[3] = {1, 0, 1}, t0[3], w0[3], v0[3], R0[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    cfProxOptions o0 = cf_prox_options_default();
    cf_prox_gs_sweep(&cyc, R0, 0.5, &o0, l0, t0, w0, v0);
    cf_prox_problem_free(&cyc);
    if (!cft_data_or_skip("siconos-fc3d/reference", "ch07.4")) return;
    char names[64][128];
    int n = reference_files(names, 64);
    ck_assert_int_ge(n, 10);
    for (int i = 0; i < n; ++i)
        for (int s = 0; s < 2; ++s) {
            cfFrictionProblem fc;
            read_fc(names[i], &fc);
            cfProxProblem p;
            cft_assert_ok(cf_prox_problem_from_fc(&fc, &p));
            cfProxOptions o = cf_prox_options_default();
            o.strategy = s == 0 ? CF_RFACTOR_LOCAL : CF_RFACTOR_GLOBAL;
            o.tol_abs = 1e-14;
            o.bound_tol = true;
            o.window = 16;
            o.max_iter = 100000;
            double *r = calloc((size_t)3 * fc.nc, sizeof *r);
            cfStatus st = cf_prox_gs(&p, &o, r, NULL, NULL);
            cft_assert_at(st == CF_OK || st == CF_MAX_ITER, "%s: %s", names[i], cf_status_name(st));
            double e = siconos_error(&fc, r);
            cft_assert_at(e <= 1e-8, "%s, %s r: Siconos error %g", names[i], cf_rfactor_name(o.strategy), e);
            free(r);
            cf_prox_problem_free(&p);
            cf_fc_free(&fc);
        }
    /* NESpheres_10_1: W SPD, the solution is unique */
    cfFrictionProblem fc;
    read_fc("NESpheres_10_1.dat", &fc);
    cfProxProblem p;
    cft_assert_ok(cf_prox_problem_from_fc(&fc, &p));
    cfProxOptions o = cf_prox_options_default();
    o.tol_abs = 1e-13;
    o.max_iter = 100000;
    o.window = 16;
    double r1[27] = {0}, r2[27] = {0};
    cft_assert_ok(cf_prox_gs(&p, &o, r1, NULL, NULL));
    cft_assert_ok(cf_prox_jacobi(&p, &o, r2, NULL, NULL));
    double scale = cf_vec_norm_inf(27, r1);
    for (int k = 0; k < 27; ++k) cft_assert_near_at(r2[k], r1[k], 1e-6 * scale, 0, "k = %d", k);
    cf_prox_problem_free(&p);
    cf_fc_free(&fc);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch07.5 r-factors, the rule, the bound                                                       */

START_TEST(ch07_5_r_init_strategies)
{
    cfWorld w;
    small_pile(&w);
    cfProxProblem p;
    rigid_problem(&w, 4, 0.05, &p);
    int d = 4, nc = p.nc;
    double *R = malloc((size_t)d * d * nc * sizeof *R), B[16];
    cfProxOptions o = cf_prox_options_default();
    o.omega = 0.8;
    cft_assert_ok(cf_prox_r_init(&p, &o, R)); /* local: omega / A_ii */
    for (int a = 0; a < nc; ++a) {
        cf_prox_block(&p, a, B);
        for (int k = 0; k < d; ++k)
            for (int l = 0; l < d; ++l)
                cft_assert_near_at(R[16 * a + 4 * k + l], k == l ? 0.8 / B[5 * k] : 0.0, 1e-15, 1e-15, "a %d k %d l %d", a, k, l);
    }
    o.strategy = CF_RFACTOR_BLOCKED; /* 1/A_nn and the inverse friction block: R_F A_FF = omega I */
    for (int run = 0; run < 4; ++run) { /* the 3x3 friction block with torsion, then the 2x2 one */
        const int dim = run < 2 ? 4 : 3;
        cfProxProblem q;
        rigid_problem(&w, dim, 0.05, &q);
        /* the second time A times 2^-40 (G scaled exactly): determinants far below 1e-12 that
           are not small beside the product of their diagonal (the spec's singularity test), so
           the blocks are still inverted */
        if (run % 2)
            for (int e = 0; e < q.G.rowptr[q.G.rows]; ++e) q.G.val[e] = ldexp(q.G.val[e], -40);
        const int dd = dim * dim;
        cft_assert_ok(cf_prox_r_init(&q, &o, R));
        for (int a = 0; a < nc; ++a) {
            cf_prox_block(&q, a, B);
            cft_assert_near_at(R[dd * a], 0.8 / B[0], 1e-15, 1e-15, "dim %d, a = %d", dim, a);
            for (int k = 1; k < dim; ++k) {
                cft_assert_near_at(R[dd * a + k], 0, 0, 0, "dim %d, a = %d", dim, a);
                for (int l = 1; l < dim; ++l) {
                    double s = 0;
                    for (int j = 1; j < dim; ++j) s += R[dd * a + dim * k + j] * B[dim * j + l];
                    cft_assert_near_at(s, k == l ? 0.8 : 0.0, 1e-10, 0, "dim %d, a %d k %d l %d", dim, a, k, l);
                }
            }
        }
        cf_prox_problem_free(&q);
    }
    o.strategy = CF_RFACTOR_GLOBAL; /* r = 1/|A|_2 */
    double na = cf_prox_norm_estimate(&p, 100, 1e-6);
    cft_assert_ok(cf_prox_r_init(&p, &o, R));
    for (int a = 0; a < nc; ++a)
        for (int k = 0; k < d; ++k) cft_assert_near_at(R[16 * a + 5 * k], 1 / na, 0, 1e-15, "a %d k %d", a, k);
    o.r_global = 5;
    cft_assert_ok(cf_prox_r_init(&p, &o, R));
    ck_assert(R[0] == 5 && R[5] == 5 && R[1] == 0);
    free(R);
    cf_prox_problem_free(&p);
    cf_world_free(&w);
    /* the blocked inverse of a friction block that is not symmetric (a Siconos W is symmetric
       only to its rounding; here made clearly so): R_F A_FF = omega I */
    const double A[9] = {2, 0.1, 0.2, 0.3, 1.5, 0.4, -0.2, -0.3, 1.2}, b[3] = {-1, 0.5, 0.5};
    one_contact(&p, A, b, 0.5);
    o.strategy = CF_RFACTOR_BLOCKED;
    double R3[9];
    cft_assert_ok(cf_prox_r_init(&p, &o, R3));
    for (int k = 1; k < 3; ++k)
        for (int l = 1; l < 3; ++l) {
            double s = R3[3 * k + 1] * A[3 + l] + R3[3 * k + 2] * A[6 + l];
            cft_assert_near_at(s, k == l ? 0.8 : 0.0, 1e-14, 0, "k %d l %d", k, l);
        }
    cf_prox_problem_free(&p);
}
END_TEST

START_TEST(ch07_5_power_iteration)
{
    /* |A|_2 by the matrix-free power iteration, against the dense eigenvalues: lambda_max(A) for
       the symmetric rigid A, sqrt(lambda_max(A^T A)) for a slightly nonsymmetric W of a file */
    cfWorld w;
    small_pile(&w);
    cfProxProblem p;
    rigid_problem(&w, 3, 0.0, &p);
    int files = cft_data_or_skip("siconos-fc3d", "ch07.5") ? 2 : 1;
    for (int file = 0; file < files; ++file) {
        if (file == 1) {
            cf_prox_problem_free(&p);
            cfFrictionProblem fc;
            read_fc("Rover4144.dat", &fc);
            cft_assert_ok(cf_prox_problem_from_fc(&fc, &p));
            cf_fc_free(&fc);
        }
        int m = p.dim * p.nc;
        double *A = dense_A(&p);
        cfDense S, V;
        cft_assert_ok(cf_dense_init(&S, m, m));
        for (int r = 0; r < m; ++r)
            for (int c = 0; c < m; ++c) {
                double s = 0;
                for (int k = 0; k < m; ++k) s += A[(long)k * m + r] * A[(long)k * m + c]; /* A^T A */
                *cf_dense_at(&S, r, c) = s;
            }
        double *ev = malloc((size_t)m * sizeof *ev);
        cft_assert_ok(cf_dense_sym_eig(&S, ev, &V));
        double top = 0;
        for (int i = 0; i < m; ++i) top = fmax(top, ev[i]);
        double est = cf_prox_norm_estimate(&p, 2000, 1e-12);
        cft_assert_near_at(est, sqrt(top), 0, 1e-6, "file %d", file);
        free(A), free(ev);
        cf_dense_free(&S), cf_dense_free(&V);
    }
    cf_prox_problem_free(&p);
    cf_world_free(&w);
    /* A = 0 (a contact between bodies that cannot move): |A|_2 = 0, and the global strategy's
       r = 1 / |A|_2 does not exist: CF_SINGULAR */
    const double Z[9] = {0}, b[3] = {-1, 0, 0};
    one_contact(&p, Z, b, 0.5);
    cft_assert_near(cf_prox_norm_estimate(&p, 100, 1e-6), 0.0, 0, 0);
    cfProxOptions o = cf_prox_options_default();
    o.strategy = CF_RFACTOR_GLOBAL;
    double R[9];
    cft_assert_status(cf_prox_r_init(&p, &o, R), CF_SINGULAR);
    cf_prox_problem_free(&p);
}
END_TEST

START_TEST(ch07_5_accept_rule)
{
    cfProxOptions o = cf_prox_options_default();
    cfProxAdapt ad;
    cf_prox_adapt_init(&ad);
    ck_assert(cf_prox_accept(&o, &ad, 1.0));  /* the first finite merit */
    ck_assert(!cf_prox_accept(&o, &ad, 1.0)); /* equal: an exact cycle, rejected (">=") */
    cft_assert_near(ad.scale, 0.9, 0, 1e-15); /* local: nu 0.9 */
    ck_assert(!cf_prox_accept(&o, &ad, NAN));
    cft_assert_near(ad.scale, 0.81, 0, 1e-15);
    ck_assert(cf_prox_accept(&o, &ad, 0.5));
    ck_assert(!cf_prox_accept(&o, &ad, 0.7)); /* window 1: compared with the last */
    o.strategy = CF_RFACTOR_GLOBAL;
    cf_prox_adapt_init(&ad);
    ck_assert(!cf_prox_accept(&o, &ad, INFINITY));
    cft_assert_near(ad.scale, 0.5, 0, 0); /* global: nu 0.5 */
    /* a window of 3: a merit above the last but below the largest of the last three passes */
    o.window = 3;
    cf_prox_adapt_init(&ad);
    ck_assert(cf_prox_accept(&o, &ad, 1.0) && cf_prox_accept(&o, &ad, 0.5) && cf_prox_accept(&o, &ad, 0.6));
    ck_assert(!cf_prox_accept(&o, &ad, 1.0));
    ck_assert(cf_prox_accept(&o, &ad, 0.4) && cf_prox_accept(&o, &ad, 0.3));
    ck_assert(!cf_prox_accept(&o, &ad, 0.6)); /* 1.0 has left the window: max(0.6, 0.4, 0.3) */
    /* the longest window keeps the last CF_PROX_WINDOW_MAX merits: after 40 falling merits
       100, 99, ..., 61 the largest kept is 92 (100 .. 93 were dropped, oldest first), so 92.5
       is rejected and 91.5 accepted */
    o.window = CF_PROX_WINDOW_MAX;
    cf_prox_adapt_init(&ad);
    for (int k = 0; k < 40; ++k) cft_assert_at(cf_prox_accept(&o, &ad, 100.0 - k), "k = %d", k);
    ck_assert(!cf_prox_accept(&o, &ad, 92.5));
    ck_assert(cf_prox_accept(&o, &ad, 91.5));
    /* a reset empties the window: the merits accepted before it no longer count. With the
       floor at 1 a rejection resets at once; 5 and 4 accepted, 6 rejected (reset), 1 accepted:
       2 is compared with 1 alone (rejected), not with the 4 left in the array */
    o.window = 3;
    o.scale_min = 1.0;
    cf_prox_adapt_init(&ad);
    ck_assert(cf_prox_accept(&o, &ad, 5.0) && cf_prox_accept(&o, &ad, 4.0));
    ck_assert(!cf_prox_accept(&o, &ad, 6.0));
    ck_assert(ad.resets == 1 && ad.n == 0 && ad.scale == 1.0);
    ck_assert(cf_prox_accept(&o, &ad, 1.0));
    ck_assert(!cf_prox_accept(&o, &ad, 2.0));
    o.scale_min = CF_PROX_SCALE_MIN;
    /* growth: after grow_after accepted in a row, scale *= grow, never above 1 */
    o.window = 1;
    o.grow = 2;
    o.grow_after = 2;
    cf_prox_adapt_init(&ad);
    ck_assert(cf_prox_accept(&o, &ad, 1.0));
    ck_assert(!cf_prox_accept(&o, &ad, 2.0) && !cf_prox_accept(&o, &ad, 2.0));
    cft_assert_near(ad.scale, 0.25, 0, 0);
    ck_assert(cf_prox_accept(&o, &ad, 0.9));
    cft_assert_near(ad.scale, 0.25, 0, 0);
    ck_assert(cf_prox_accept(&o, &ad, 0.8));
    cft_assert_near(ad.scale, 0.5, 0, 0);
    ck_assert(cf_prox_accept(&o, &ad, 0.7) && cf_prox_accept(&o, &ad, 0.6) && cf_prox_accept(&o, &ad, 0.5) &&
              cf_prox_accept(&o, &ad, 0.4));
    cft_assert_near(ad.scale, 1.0, 0, 0);
}
END_TEST

START_TEST(ch07_5_tol_bound)
{
    cft_assert_near(cf_prox_tol_bound(2, 3, 4), 10 * 2 * DBL_EPSILON * 3 * 4, 0, 1e-15);
    if (!cft_data_or_skip("siconos-fc3d", "ch07.5")) return;
    /* the badly scaled Confeti-ex13-4contact (|r| ~ 1e5 |q|): a tolerance of 1e-14 on the merit
       is below what rounding allows; with the bound the solve stops "converged" at the floor,
       without it every sweep is spent */
    cfFrictionProblem fc;
    read_fc("Confeti-ex13-4contact-Fc3D-SBM.dat", &fc);
    cfProxProblem p;
    cft_assert_ok(cf_prox_problem_from_fc(&fc, &p));
    cfProxOptions o = cf_prox_options_default();
    o.tol_abs = 1e-14;
    o.max_iter = 20000;
    o.window = 16;
    double r[12] = {0};
    cfProxStats st;
    o.bound_tol = true;
    cft_assert_ok(cf_prox_gs(&p, &o, r, NULL, &st));
    ck_assert(st.tol_used > o.tol_abs && st.sweeps < 20000);
    cft_assert_at(siconos_error(&fc, r) <= 1e-8, "error %g", siconos_error(&fc, r));
    cf_prox_problem_free(&p);
    cf_fc_free(&fc);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch07.6 Moreau stepping, post-step projection                                                */

static double step_n(cfWorld *w, cfMoreauOptions *o, cfContactList *cl, int steps, cfMoreauStats *st)
{
    for (int s = 0; s < steps; ++s) cft_assert_ok_at(cf_moreau_step(w->bodies, w->n_bodies, detect_cb, w, o, cl, st, NULL), "step %d", s);
    return 0;
}

START_TEST(ch07_6_free_fall_exact)
{
    /* no contact: x^{t+1} = x + h v + h^2/2 g exactly, for every step (midpoint = exact for constant
       acceleration); the spin of a sphere is kept */
    cfWorld w;
    world_ground(&w, 0.5);
    int i = add_body(&w, cf_shape_sphere(0.5), 2.0, cfu_vec3(0, 0, 50), 0.5);
    w.bodies[i].v = cfu_vec3(1, -2, 3);
    w.bodies[i].w = cfu_vec3(0, 0, 4);
    cfMoreauOptions o = cf_moreau_options_default();
    cfContactList cl = {0};
    cfVec3 x0 = w.bodies[i].x, v0 = w.bodies[i].v;
    for (int s = 1; s <= 20; ++s) {
        cfMoreauStats st;
        step_n(&w, &o, &cl, 1, &st);
        ck_assert_int_eq(st.contacts, 0);
        double t = s * o.h;
        cfVec3 want = cfu_add(x0, cfu_add(cfu_scale(t, v0), cfu_scale(0.5 * t * t, o.gravity)));
        cft_assert_vec3_near_at(w.bodies[i].x, want, 1e-12, "step %d", s);
    }
    cft_assert_vec3_near(w.bodies[i].w, cfu_vec3(0, 0, 4), 1e-12);
    cf_contacts_free(&cl);
    cf_world_free(&w);
    /* still free, with another body in contact: a ball sliding on the ground along (2, 1)
       (friction turns it about x and y) and a second body in the air that falls and spins
       exactly as before */
    world_ground(&w, 0.5);
    int slide = add_body(&w, cf_shape_sphere(0.5), 1.0, cfu_vec3(0, 0, 0.5), 0.5);
    i = add_body(&w, cf_shape_box(cfu_vec3(0.2, 0.3, 0.4)), 2.0, cfu_vec3(5, 0, 50), 0.5);
    w.bodies[slide].v = cfu_vec3(2, 1, 0);
    w.bodies[i].v = v0;
    w.bodies[i].w = cfu_vec3(0, 0, 4);
    x0 = w.bodies[i].x;
    for (int s = 1; s <= 5; ++s) {
        cfMoreauStats st;
        step_n(&w, &o, &cl, 1, &st);
        ck_assert_int_eq(st.contacts, 1);
        double t = s * o.h;
        cfVec3 want = cfu_add(x0, cfu_add(cfu_scale(t, v0), cfu_scale(0.5 * t * t, o.gravity)));
        cft_assert_vec3_near_at(w.bodies[i].x, want, 1e-12, "step %d", s);
        cft_assert_vec3_near_at(w.bodies[i].w, cfu_vec3(0, 0, 4), 1e-12, "step %d", s);
    }
    cft_assert_at(w.bodies[slide].w.y > 0.1 && w.bodies[slide].w.x < -0.05, "the sliding ball does not turn (w %g %g)",
                  w.bodies[slide].w.x, w.bodies[slide].w.y);
    cf_contacts_free(&cl);
    cf_world_free(&w);
}
END_TEST

/* two boxes at rest on the ground, the top one (mass 2) off-centre by 0.2 in x: every body's
   linear and angular velocity stays 0 and the impulses carry the weights, m_top g h through the
   boxes' contacts and (m_bottom + m_top) g h into the ground */
static void resting_stack(void)
{
    cfWorld w;
    world_ground(&w, 0.5);
    int lo = add_body(&w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 1.0, cfu_vec3(0, 0, 0.5), 0.5);
    int hi = add_body(&w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 2.0, cfu_vec3(0.2, 0, 1.5), 0.5);
    cfMoreauOptions o = cf_moreau_options_default();
    o.prox.tol_abs = 1e-12;
    o.prox.tol_rel = 0;
    o.prox.max_iter = 10000;
    cfContactList cl = {0};
    for (int s = 0; s < 20; ++s) {
        cfMoreauStats st;
        step_n(&w, &o, &cl, 1, &st);
        double ground = 0, between = 0;
        for (int a = 0; a < cl.count; ++a) {
            const cfContact *c = &cl.items[a];
            if (c->body_a == 0 || c->body_b == 0) ground += c->lambda[0];
            else between += c->lambda[0];
        }
        cft_assert_near_at(ground, 3.0 * 9.81 * o.h, 1e-8, 0, "step %d", s);
        cft_assert_near_at(between, 2.0 * 9.81 * o.h, 1e-8, 0, "step %d", s);
        for (int k = lo; k <= hi; ++k) {
            cft_assert_at(cfu_norm(w.bodies[k].v) < 1e-8, "step %d, body %d: speed %g", s, k, cfu_norm(w.bodies[k].v));
            cft_assert_at(cfu_norm(w.bodies[k].w) < 1e-8, "step %d, body %d: spin %g", s, k, cfu_norm(w.bodies[k].w));
        }
    }
    cf_contacts_free(&cl);
    cf_world_free(&w);
}

START_TEST(ch07_6_resting_box)
{
    /* a box resting on the ground: after each step its velocity is ~0, the normal impulses add up
       to m g h, and it does not sink */
    cfWorld w;
    world_ground(&w, 0.5);
    int i = add_body(&w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 3.0, cfu_vec3(0, 0, 0.5), 0.5);
    cfMoreauOptions o = cf_moreau_options_default();
    o.prox.tol_abs = 1e-10;
    o.prox.tol_rel = 0;
    cfContactList cl = {0};
    for (int s = 0; s < 100; ++s) {
        cfMoreauStats st;
        step_n(&w, &o, &cl, 1, &st);
        ck_assert_int_eq(st.contacts, 4);
        double sum = 0;
        for (int a = 0; a < cl.count; ++a) sum += cl.items[a].lambda[0];
        cft_assert_near_at(sum, 3.0 * 9.81 * o.h, 1e-8, 0, "step %d", s);
        cft_assert_at(cfu_norm(w.bodies[i].v) < 1e-8, "step %d: speed %g", s, cfu_norm(w.bodies[i].v));
    }
    cft_assert_near(w.bodies[i].x.z, 0.5, 1e-6, 0);
    /* warm started from the last step's impulses, which solve this one too: a sweep or two (from
       zero the 4 contacts take dozens) */
    {
        cfMoreauStats ws;
        step_n(&w, &o, &cl, 1, &ws);
        ck_assert_int_le(ws.prox.sweeps, 2);
    }
    /* a budget of one sweep: the solve stops with CF_MAX_ITER, the step still applies the
       impulses it found and returns CF_OK (the spec), the stats tell */
    o.prox.max_iter = 1;
    w.bodies[i].v = cfu_vec3(0, 0, 0);
    for (int a = 0; a < cl.count; ++a) memset(cl.items[a].lambda, 0, sizeof cl.items[a].lambda);
    cfMoreauStats st;
    cft_assert_ok(cf_moreau_step(w.bodies, w.n_bodies, detect_cb, &w, &o, &cl, &st, NULL));
    ck_assert_int_eq(st.prox_status, CF_MAX_ITER);
    cft_assert_at(w.bodies[i].v.z > -0.5 * 9.81 * o.h, "v_z %g: the impulses of the sweep were not applied", w.bodies[i].v.z);
    cf_contacts_free(&cl);
    cf_world_free(&w);
    resting_stack();
}
END_TEST

START_TEST(ch07_6_sliding_stop_distance)
{
    /* a box sliding at v0 = 2 with mu = 0.5 stops after d = v0^2/(2 mu g) = 0.40775 m; the midpoint
       rule is exact but for the last partial step: |d_h - d| <= mu g h^2 / 8, plus the solver's
       tolerance; afterwards it rests exactly */
    cfWorld w;
    world_ground(&w, 0.5);
    int i = add_body(&w, cf_shape_box(cfu_vec3(0.2, 0.2, 0.2)), 1.0, cfu_vec3(0, 0, 0.2), 0.5);
    w.bodies[i].v = cfu_vec3(2, 0, 0);
    cfMoreauOptions o = cf_moreau_options_default();
    o.dim = 3;
    o.prox.tol_abs = 1e-12;
    o.prox.tol_rel = 0;
    cfContactList cl = {0};
    step_n(&w, &o, &cl, 60, NULL);
    double d = 4.0 / (2 * 0.5 * 9.81);
    cft_assert_near(w.bodies[i].x.x, d, 0.5 * 9.81 * o.h * o.h / 8 + 1e-6, 0);
    cft_assert_at(cfu_norm(w.bodies[i].v) < 1e-9, "still moving at %g", cfu_norm(w.bodies[i].v));
    cf_contacts_free(&cl);
    cf_world_free(&w);
}
END_TEST

START_TEST(ch07_6_restitution_bounce)
{
    /* Newton's impact law: a ball dropped from 1 m with restitution 1 comes back to within 2 % of
       its height (h = 1 ms); with restitution 0.5 the rebound height is 0.25 of the drop, within 5 % */
    for (int k = 0; k < 2; ++k) {
        double eps = k == 0 ? 1.0 : 0.5;
        cfWorld w;
        world_ground(&w, 0.5);
        w.def.contact_margin = 0.002;
        int i = add_body(&w, cf_shape_sphere(0.1), 1.0, cfu_vec3(0, 0, 1.1), 0.5);
        cfMoreauOptions o = cf_moreau_options_default();
        o.h = 0.001;
        o.restitution = eps;
        o.prox.tol_abs = 1e-12;
        o.prox.tol_rel = 0;
        cfContactList cl = {0};
        bool bounced = false;
        double top = 0;
        for (int s = 0; s < 1400; ++s) {
            step_n(&w, &o, &cl, 1, NULL);
            if (w.bodies[i].v.z > 0) bounced = true;
            if (bounced) top = fmax(top, w.bodies[i].x.z - 0.1);
        }
        ck_assert_msg(bounced, "restitution %g: no bounce", eps);
        cft_assert_near_at(top, eps * eps * 1.0, (k == 0 ? 0.02 : 0.05) * eps * eps, 0, "restitution %g", eps);
        cf_contacts_free(&cl);
        cf_world_free(&w);
    }
    /* restitution 0, the open gap of the spec: a ball (radius 0.1) falling at 1 m/s from 0.007
       above the ground, h = 0.01. At the midpoint the gap is phi = 0.002 and the free velocity
       -1.0981 would close it: v_n^{t+1} = -2 phi / h = -0.4 makes the second half step end
       exactly on the ground, z = 0.102 - (h/2) 0.4 = 0.1 (phi / h would stop it 0.001 above,
       4 phi / h 0.002 below, no gap term 0.002 above) */
    cfWorld w;
    world_ground(&w, 0.5);
    int i = add_body(&w, cf_shape_sphere(0.1), 1.0, cfu_vec3(0, 0, 0.107), 0.5);
    w.bodies[i].v = cfu_vec3(0, 0, -1);
    cfMoreauOptions o = cf_moreau_options_default();
    o.prox.tol_abs = 1e-12;
    o.prox.tol_rel = 0;
    cfContactList cl = {0};
    cfMoreauStats st;
    step_n(&w, &o, &cl, 1, &st);
    ck_assert_int_eq(st.contacts, 1);
    cft_assert_near(w.bodies[i].v.z, -0.4, 1e-9, 0);
    cft_assert_near(w.bodies[i].x.z, 0.1, 1e-9, 0);
    cf_contacts_free(&cl);
    cf_world_free(&w);
    /* restitution 0.5, but the gap does not close within the step: a ball at 0.1 m/s, the gap
       0.005 at the midpoint (b_n + g = -0.1981 + 1 > 0): no impact, no impulse, free fall */
    world_ground(&w, 0.5);
    i = add_body(&w, cf_shape_sphere(0.1), 1.0, cfu_vec3(0, 0, 0.1055), 0.5);
    w.bodies[i].v = cfu_vec3(0, 0, -0.1);
    o.restitution = 0.5;
    cl = (cfContactList){0};
    step_n(&w, &o, &cl, 1, &st);
    ck_assert_int_eq(st.contacts, 1);
    cft_assert_near(w.bodies[i].v.z, -0.1 - 9.81 * o.h, 1e-12, 0);
    cf_contacts_free(&cl);
    cf_world_free(&w);
    /* restitution 1, on the ground and moving up at 0.05 m/s (v^- > 0, not approaching): gravity
       would pull it in within the step (v* = -0.048), no impact law, the contact holds it: v = 0 */
    world_ground(&w, 0.5);
    i = add_body(&w, cf_shape_sphere(0.1), 1.0, cfu_vec3(0, 0, 0.0997), 0.5);
    w.bodies[i].v = cfu_vec3(0, 0, 0.05);
    o.restitution = 1.0;
    cl = (cfContactList){0};
    step_n(&w, &o, &cl, 1, &st);
    ck_assert_int_eq(st.contacts, 1);
    cft_assert_near(w.bodies[i].v.z, 0.0, 1e-9, 0);
    cf_contacts_free(&cl);
    cf_world_free(&w);
}
END_TEST

START_TEST(ch07_6_torsion_stops_spin)
{
    /* a ball spinning about the vertical on the ground (one contact at its lowest point, which
       does not slide): torsional friction mu_tau lambda_n stops it after t = I w0 / (mu_tau m g);
       the isotropic disk alone (dim 3) never does */
    for (int dim = 3; dim <= 4; ++dim) {
        cfWorld w;
        world_ground(&w, 0.5);
        double m = 2, R = 0.5, w0 = 10, mut = 0.05;
        int i = add_body(&w, cf_shape_sphere(R), m, cfu_vec3(0, 0, R), 0.5);
        w.bodies[i].w = cfu_vec3(0, 0, w0);
        cfMoreauOptions o = cf_moreau_options_default();
        o.dim = dim;
        o.mu_tau = mut;
        o.prox.tol_abs = 1e-12;
        o.prox.tol_rel = 0;
        cfContactList cl = {0};
        double t_stop = 0.4 * m * R * R * w0 / (mut * m * 9.81);
        int steps = (int)(1.2 * t_stop / o.h);
        double stopped_at = -1;
        for (int s = 1; s <= steps; ++s) {
            step_n(&w, &o, &cl, 1, NULL);
            if (stopped_at < 0 && fabs(w.bodies[i].w.z) < 1e-9) stopped_at = s * o.h;
        }
        if (dim == 3) {
            cft_assert_near(w.bodies[i].w.z, w0, 1e-9, 0);
        } else {
            cft_assert_near(stopped_at, t_stop, 2 * o.h, 0);
            cft_assert_near(w.bodies[i].w.z, 0, 1e-9, 0);
        }
        cf_contacts_free(&cl);
        cf_world_free(&w);
    }
}
END_TEST

/* detect_cb for a budget of g_detect_calls calls, then a failure (CF_NO_MEMORY) */
static int g_detect_calls;
static cfStatus detect_budget_cb(void *ctx, cfRigidBody *bodies, int nb, cfContactList *out)
{
    if (g_detect_calls-- <= 0) return CF_NO_MEMORY;
    return detect_cb(ctx, bodies, nb, out);
}

/* detect_cb with the sides of every contact made non-rigid (-1): a contact no body can resolve */
static cfStatus detect_no_body_cb(void *ctx, cfRigidBody *bodies, int nb, cfContactList *out)
{
    cfStatus st = detect_cb(ctx, bodies, nb, out);
    for (int a = 0; st == CF_OK && a < out->count; ++a) out->items[a].body_a = out->items[a].body_b = -1;
    return st;
}

START_TEST(ch07_6_post_projection)
{
    /* a sphere 0.01 into the ground rises by 0.01 in one pass, velocities unchanged */
    cfWorld w;
    world_ground(&w, 0.5);
    int i = add_body(&w, cf_shape_sphere(0.5), 1.0, cfu_vec3(0, 0, 0.49), 0.5);
    w.bodies[i].v = cfu_vec3(0.3, 0, -1);
    double gap = 1;
    int done = cf_prox_post_project(w.bodies, w.n_bodies, detect_cb, &w, 1, 1e-9, &gap);
    ck_assert_int_eq(done, 1);
    cft_assert_near(w.bodies[i].x.z, 0.5, 1e-9, 0);
    cft_assert_near(gap, 0.0, 1e-9, 0); /* the gap after the pass */
    cft_assert_vec3_near(w.bodies[i].v, cfu_vec3(0.3, 0, -1), 0);
    done = cf_prox_post_project(w.bodies, w.n_bodies, detect_cb, &w, 3, 1e-9, &gap);
    ck_assert_int_eq(done, 0); /* nothing below -tol: no pass */
    cf_world_free(&w);
    /* one pass moves by dq = M^-1 J^T d: a tilted box (mass 2) with one corner 0.01 into the
       ground has one contact (normal n = z, arm r), so d = 0.01 / (1/m + (r x n) . I^-1 (r x n))
       and the pass is the motion of v = d n / m, omega = d I^-1 (r x n) for one unit of time,
       every component of omega in play (the world inertia of a turned box is full); the
       rotation makes the linearization inexact, so one pass leaves a small gap: with passes = 1
       exactly one is done */
    {
        world_ground(&w, 0.5);
        int i = add_body(&w, cf_shape_box(cfu_vec3(0.5, 0.3, 0.2)), 2.0, cfu_vec3(0, 0, 0), 0.5);
        cfRigidBody *b = &w.bodies[i];
        b->q = cfu_quat_from_axis_angle(cfu_normalize(cfu_vec3(1, 2, 0.5)), 0.4);
        cf_rigid_update_inertia(b);
        double low = INFINITY;
        for (int c = 0; c < 8; ++c) {
            cfVec3 corner = cfu_vec3(c & 1 ? 0.5 : -0.5, c & 2 ? 0.3 : -0.3, c & 4 ? 0.2 : -0.2);
            low = fmin(low, cfu_quat_rotate(b->q, corner).z);
        }
        b->x = cfu_vec3(0.1, -0.2, -0.01 - low);
        cfContactList cl = {0};
        cft_assert_ok(detect_cb(&w, w.bodies, w.n_bodies, &cl));
        ck_assert_int_eq(cl.count, 1);
        cfVec3 n = cl.items[0].n, rn = cfu_cross(cfu_sub(cl.items[0].p, b->x), n);
        cft_assert_near(n.z, cl.items[0].body_a == 0 ? 1.0 : -1.0, 1e-12, 0);
        cfVec3 Irn = cfu_mat3_mul_vec(b->inv_inertia_world, rn);
        double d = -cl.items[0].phi / (b->inv_mass + cfu_dot(rn, Irn));
        cfRigidBody want = *b;
        want.v = cfu_scale(d * b->inv_mass, n);
        want.w = cfu_scale(d, Irn);
        cft_assert_ok(cf_rigid_integrate_position(&want, 1.0));
        cf_contacts_free(&cl);
        done = cf_prox_post_project(w.bodies, w.n_bodies, detect_cb, &w, 1, 1e-9, &gap);
        ck_assert_int_eq(done, 1);
        cft_assert_vec3_near(b->x, want.x, 1e-9);
        cft_assert_near(cfu_quat_dot(b->q, want.q), 1.0, 1e-12, 0);
        cft_assert_vec3_near(b->v, cfu_vec3(0, 0, 0), 0); /* velocities unchanged */
        cf_world_free(&w);
    }
    /* each body moves by its own part of dq: the same tilted box as body 2, behind a ball 0.01
       into the ground as body 1 (far away: two independent contacts), which only rises (its
       normal passes through its centre: omega = 0). The box turns by its own omega, all three
       components, and the ball does not turn */
    {
        world_ground(&w, 0.5);
        int ib = add_body(&w, cf_shape_sphere(0.5), 1.0, cfu_vec3(5, 0, 0.49), 0.5);
        int i = add_body(&w, cf_shape_box(cfu_vec3(0.5, 0.3, 0.2)), 2.0, cfu_vec3(0, 0, 0), 0.5);
        ck_assert_int_eq(i, 2);
        cfRigidBody *b = &w.bodies[i];
        b->q = cfu_quat_from_axis_angle(cfu_normalize(cfu_vec3(1, 2, 0.5)), 0.4);
        cf_rigid_update_inertia(b);
        double low = INFINITY;
        for (int c = 0; c < 8; ++c) {
            cfVec3 corner = cfu_vec3(c & 1 ? 0.5 : -0.5, c & 2 ? 0.3 : -0.3, c & 4 ? 0.2 : -0.2);
            low = fmin(low, cfu_quat_rotate(b->q, corner).z);
        }
        b->x = cfu_vec3(0.1, -0.2, -0.01 - low);
        cfContactList cl = {0};
        cft_assert_ok(detect_cb(&w, w.bodies, w.n_bodies, &cl));
        ck_assert_int_eq(cl.count, 2);
        int a = cl.items[0].body_a == i || cl.items[0].body_b == i ? 0 : 1;
        cfVec3 n = cl.items[a].n, rn = cfu_cross(cfu_sub(cl.items[a].p, b->x), n);
        cfVec3 Irn = cfu_mat3_mul_vec(b->inv_inertia_world, rn);
        double d = -cl.items[a].phi / (b->inv_mass + cfu_dot(rn, Irn));
        cfRigidBody want = *b;
        want.v = cfu_scale(d * b->inv_mass, n);
        want.w = cfu_scale(d, Irn);
        cft_assert_ok(cf_rigid_integrate_position(&want, 1.0));
        cf_contacts_free(&cl);
        cfQuat qball = w.bodies[ib].q;
        done = cf_prox_post_project(w.bodies, w.n_bodies, detect_cb, &w, 1, 1e-9, &gap);
        ck_assert_int_eq(done, 1);
        cft_assert_vec3_near(b->x, want.x, 1e-9);
        cft_assert_near(cfu_quat_dot(b->q, want.q), 1.0, 1e-12, 0);
        cft_assert_near(w.bodies[ib].x.z, 0.5, 1e-9, 0);
        cft_assert_near(cfu_quat_dot(w.bodies[ib].q, qball), 1.0, 1e-12, 0);
        cf_world_free(&w);
    }
    /* two balls of mass 1 and 3 in the air overlapping by 0.02 along (1, 1, 0) / sqrt 2: one pass
       of the linear problem separates them exactly, each moved along the normal in inverse
       proportion to its mass (0.015 and 0.005), both components of the motion in play */
    {
        world_ground(&w, 0.5);
        cfVec3 nrm = cfu_normalize(cfu_vec3(1, 1, 0));
        int i1 = add_body(&w, cf_shape_sphere(0.5), 1.0, cfu_vec3(0, 0, 5), 0.5);
        int i2 = add_body(&w, cf_shape_sphere(0.5), 3.0, cfu_add(cfu_vec3(0, 0, 5), cfu_scale(0.98, nrm)), 0.5);
        cfVec3 x1 = w.bodies[i1].x, x2 = w.bodies[i2].x;
        done = cf_prox_post_project(w.bodies, w.n_bodies, detect_cb, &w, 1, 1e-9, &gap);
        ck_assert_int_eq(done, 1);
        cft_assert_vec3_near(w.bodies[i1].x, cfu_sub(x1, cfu_scale(0.015, nrm)), 1e-9);
        cft_assert_vec3_near(w.bodies[i2].x, cfu_add(x2, cfu_scale(0.005, nrm)), 1e-9);
        cf_world_free(&w);
    }
    /* a seesaw: a long box (half length 1) tilted by 0.06 with one end 0.1 into the ground, the
       other 0.02 above it. The pass lifts the low end mostly by turning (its arm makes the
       rotational term three times the translational one), which dips the other end below the
       ground: one pass leaves a negative gap and, asked for one, does one; three resolve it */
    {
        world_ground(&w, 0.5);
        int i = add_body(&w, cf_shape_box(cfu_vec3(1.0, 0.1, 0.1)), 1.0, cfu_vec3(0, 0, 0), 0.5);
        cfRigidBody *b = &w.bodies[i];
        b->q = cfu_quat_from_axis_angle(cfu_vec3(0, 1, 0), 0.06);
        cf_rigid_update_inertia(b);
        b->x.z = -0.1 + 0.1 * cos(0.06) + sin(0.06);
        done = cf_prox_post_project(w.bodies, w.n_bodies, detect_cb, &w, 1, 1e-6, &gap);
        ck_assert_int_eq(done, 1);
        cft_assert_at(gap < -1e-3, "gap %g: the far end should dip below after one pass", gap);
        done = cf_prox_post_project(w.bodies, w.n_bodies, detect_cb, &w, 3, 1e-6, &gap);
        ck_assert(done >= 1 && done <= 3);
        cft_assert_at(gap >= -1e-6, "gap %g after %d more passes", gap, done);
        cf_world_free(&w);
    }
    /* a failing solve ends the passes with its status: a ball 0.01 into the ground whose
       contact names no rigid body on either side (-1, -1) has J = 0, so no displacement can
       resolve it and PROX-GS refuses the problem (CF_BAD_INPUT in the reference); the same
       would happen at every further pass, so going on instead of stopping never ends */
    {
        world_ground(&w, 0.5);
        add_body(&w, cf_shape_sphere(0.5), 1.0, cfu_vec3(0, 0, 0.49), 0.5);
        done = cf_prox_post_project(w.bodies, w.n_bodies, detect_no_body_cb, &w, 3, 1e-9, &gap);
        cft_assert_at(done < 0, "%d passes done: a failing solve returns its negative status", done);
        cf_world_free(&w);
    }
    /* two stacked boxes, both penetrating: all gaps >= -1e-6 after at most 3 passes */
    world_ground(&w, 0.5);
    add_body(&w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 1.0, cfu_vec3(0, 0, 0.48), 0.5);
    add_body(&w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 1.0, cfu_vec3(0, 0, 1.45), 0.5);
    done = cf_prox_post_project(w.bodies, w.n_bodies, detect_cb, &w, 3, 1e-6, &gap);
    ck_assert(done >= 1 && done <= 3);
    cft_assert_at(gap >= -1e-6, "gap %g after %d passes", gap, done);
    /* the stepper with post_passes: a stack that starts penetrating ends above -1e-6 */
    w.bodies[1].x.z = 0.47;
    w.bodies[2].x.z = 1.44;
    cfMoreauOptions o = cf_moreau_options_default();
    o.post_passes = 3;
    cfContactList cl = {0};
    cfMoreauStats st;
    step_n(&w, &o, &cl, 1, &st);
    ck_assert_int_ge(st.post_passes, 1);
    cft_assert_at(st.min_gap_after >= -1e-6, "gap %g", st.min_gap_after);
    /* with post_passes = 0 (off) nothing is projected and nothing measured: 0 passes and
       min_gap_after 0 ("not run"), though the stack starts deeper than one step can lift it */
    w.bodies[1].x.z = 0.4;
    w.bodies[2].x.z = 1.3;
    o.post_passes = 0;
    step_n(&w, &o, &cl, 1, &st);
    ck_assert_int_eq(st.post_passes, 0);
    cft_assert_near(st.min_gap_after, 0.0, 0, 0);
    o.post_passes = 3;
    /* a detection that fails in the post-step projection: the step returns its status */
    w.bodies[1].x.z = 0.47;
    g_detect_calls = 1;
    cft_assert_status(cf_moreau_step(w.bodies, w.n_bodies, detect_budget_cb, &w, &o, &cl, &st, NULL), CF_NO_MEMORY);
    cf_contacts_free(&cl);
    cf_world_free(&w);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* library: rows in the registry                                                               */

START_TEST(lib_prox_rows_in_world)
{
    /* prox-gs and prox-jacobi with every r strategy hold a resting two-box stack for a second */
    const char *rows[] = {"prox-gs", "prox-jacobi"};
    for (int r = 0; r < 2; ++r)
        for (int s = 0; s < CF_RFACTOR_COUNT; ++s) {
            const cfSolver *sol = cf_solver_find(rows[r]);
            ck_assert(sol && sol->chapter == 7 && sol->form == CF_FORM_FC3D);
            cfWorld w;
            world_ground(&w, 0.5);
            w.def.solver = sol;
            w.def.r_factor = (cfRFactor)s;
            w.def.solver_iterations = 200;
            w.def.dt = 1.0 / 60;
            add_body(&w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 1.0, cfu_vec3(0, 0, 0.5), 0.5);
            add_body(&w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 1.0, cfu_vec3(0.1, 0, 1.5), 0.5);
            cfVec3 x0 = w.bodies[2].x;
            for (int k = 0; k < 60; ++k) cft_assert_ok_at(cf_world_step(&w), "%s %s step %d", rows[r], cf_rfactor_name(s), k);
            double d = cfu_norm(cfu_sub(w.bodies[2].x, x0));
            cft_assert_at(d < 0.005, "%s with %s r: drift %g", rows[r], cf_rfactor_name(s), d);
            cf_world_free(&w);
        }
}
END_TEST

/* ---- issue 30: a status that tells the truth ------------------------------------------------- */

/* A rank-1 Delassus operator W = v v^T over nc contacts, q and mu drawn from cf_rng: most such
   problems have no solution the PROX map can reach, and its adaptive scale shrinks on every
   rejected sweep. */
static void rank_one_problem(uint64_t seed, int nc, cfFrictionProblem *fc)
{
    cfRng rng;
    cf_rng_seed(&rng, seed);
    int n = 3 * nc;
    double v[12];
    ck_assert(n <= 12);
    for (int i = 0; i < n; ++i) v[i] = cf_rng_normal(&rng);
    memset(fc, 0, sizeof *fc);
    fc->nc = nc;
    cft_assert_ok(cf_bsr_init(&fc->W, nc, nc, 3, 3));
    for (int a = 0; a < nc; ++a)
        for (int b = 0; b < nc; ++b) {
            double B[9];
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) B[3 * i + j] = v[3 * a + i] * v[3 * b + j];
            cft_assert_ok_at(cf_bsr_add_block(&fc->W, a, b, B), "a = %d, b = %d", a, b);
        }
    cf_bsr_finalize(&fc->W);
    fc->q = malloc((size_t)n * sizeof *fc->q);
    fc->mu = malloc((size_t)nc * sizeof *fc->mu);
    ck_assert(fc->q && fc->mu);
    for (int i = 0; i < n; ++i) fc->q[i] = cf_rng_normal(&rng);
    for (int a = 0; a < nc; ++a) fc->mu[a] = cf_rng_range(&rng, 0.1, 1.0);
}

/* The floor and the reset of the adaptive rule: a rejection never shrinks the scale below
   scale_min, a rejection at the floor restarts with the full step and an empty window, and a
   reset with nothing accepted since the last one says stalled. */
START_TEST(truth_prox_rule_floor_and_reset)
{
    cfProxOptions o = cf_prox_options_default();
    ck_assert(o.scale_min == CF_PROX_SCALE_MIN && o.scale_min > 0.0);
    o.strategy = CF_RFACTOR_GLOBAL; /* nu 0.5 */
    o.scale_min = 0.3;
    cfProxAdapt ad;
    cf_prox_adapt_init(&ad);
    ck_assert(cf_prox_accept(&o, &ad, 1.0));
    ck_assert(!cf_prox_accept(&o, &ad, 2.0));
    cft_assert_near(ad.scale, 0.5, 0, 0);
    ck_assert(!cf_prox_accept(&o, &ad, 2.0));
    cft_assert_near(ad.scale, 0.3, 0, 0); /* max(0.25, the floor) */
    ck_assert(!cf_prox_accept(&o, &ad, 2.0)); /* at the floor: reset */
    ck_assert(ad.scale == 1.0 && ad.n == 0 && ad.resets == 1 && !ad.stalled);
    ck_assert(cf_prox_accept(&o, &ad, 2.0)); /* an empty window takes any finite merit */
    /* merits that are never finite: down to the floor, reset, down again, stalled */
    cf_prox_adapt_init(&ad);
    for (int k = 0; k < 3; ++k) ck_assert(!cf_prox_accept(&o, &ad, NAN));
    ck_assert(ad.resets == 1 && ad.stalled); /* nothing was accepted since the start */
    /* nu = 1 never shrinks, so never reaches the floor: the listing's fixed r */
    o.nu = 1.0;
    cf_prox_adapt_init(&ad);
    ck_assert(cf_prox_accept(&o, &ad, 1.0));
    for (int k = 0; k < 50; ++k) ck_assert(!cf_prox_accept(&o, &ad, 1.0));
    ck_assert(ad.scale == 1.0 && ad.resets == 0);
    /* the check refuses a floor outside (0, 1] */
    cfProxProblem p;
    memset(&p, 0, sizeof p);
    p.dim = 3;
    o.scale_min = 0.0;
    cft_assert_status(cf_prox_check(&p, NULL, &o, NULL), CF_BAD_INPUT);
}
END_TEST

/* The case of the fuzzing round: on rank-1 problems PROX-GS and PROX-Jacobi cut their step on
   every rejected sweep until it underflowed, accepted a zero change and said converged with a
   Coulomb residual of order 1. Now "converged" comes with a small residual, the scale never goes
   below its floor, and the unsolvable ones end at the iteration limit. */
START_TEST(truth_prox_rank_one_no_false_convergence)
{
    cfProxSweep sweeps[2] = {cf_prox_gs_sweep, cf_prox_jacobi_sweep};
    int hard = 0, solved = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed)
        for (int k = 0; k < 2; ++k) {
            cfFrictionProblem fc;
            rank_one_problem(seed, 3, &fc);
            cfSolverParams par = cf_solver_params_default();
            par.tol = 1e-10; /* as cflab solve: a long solve of a file */
            par.max_iter = 4000;
            double r[9] = {0}, scale = 1.0;
            cfReport rep;
            cf_report_init(&rep, NULL, 0);
            cfStatus st = cf_prox_solve_fc(&fc, sweeps[k], &par, &scale, r, &rep);
            double rel = cf_fc_residual(&fc, r) / cf_fc_norm_q(&fc);
            cft_assert_at(st == CF_OK || st == CF_MAX_ITER, "seed %d %s: %s", (int)seed, k ? "jacobi" : "gs",
                          cf_status_name(st));
            cft_assert_at(st != CF_OK || rel <= 1e-6, "seed %d %s: converged with residual / |q| = %g after %d sweeps",
                          (int)seed, k ? "jacobi" : "gs", rel, rep.iterations);
            cft_assert_at(st == CF_OK || (isfinite(rep.residual) && rep.residual > 0.0), "seed %d: merit %g", (int)seed,
                          rep.residual);
            cft_assert_at(scale >= CF_PROX_SCALE_MIN, "seed %d: scale %g below the floor", (int)seed, scale);
            hard += rel > 1e-3;
            solved += st == CF_OK;
            cf_fc_free(&fc);
        }
    /* the family has both kinds (the old rule said converged on the hard ones too) */
    ck_assert_int_ge(hard, 4);
    ck_assert_int_ge(solved, 2);
}
END_TEST

static void build(Suite *s)
{
    TCase *t1 = cft_tcase_unit(s, "ch07.1");
    CFT_GRADED(t1, ch07_1_prox_maps_cases, "ch07.1", 4, "normal, disk, cone and box maps: worked cases");
    CFT_GRADED(t1, ch07_1_projection_properties, "ch07.1", 6, "projections: library cone, idempotent, VI, non-expansive");

    TCase *t2 = cft_tcase_unit(s, "ch07.2");
    CFT_GRADED(t2, ch07_2_ellipsoid_worked, "ch07.2", 4, "ellipsoid: worked points, inside, zero axes");
    CFT_GRADED(t2, ch07_2_ellipsoid_kkt_extremes, "ch07.2", 6, "ellipsoid: surface, KKT, closest; axes 1e-6..1e6");
    CFT_GRADED(t2, ch07_2_friction_set, "ch07.2", 5, "friction set: disk, box, ellipse, ellipsoid, R-metric");

    TCase *t3 = cft_tcase_unit(s, "ch07.3");
    CFT_GRADED(t3, ch07_3_w_matrix_free, "ch07.3", 4, "w = M^-1 J^T lambda equals the bodies' impulse response");
    CFT_GRADED(t3, ch07_3_jacobi_sweep, "ch07.3", 4, "a Jacobi sweep equals the dense formula (old normal)");
    CFT_GRADED(t3, ch07_3_adaptive_cycle, "ch07.3", 5, "fixed r = 1 cycles; adaptive r converges, merit monotone");
    CFT_GRADED(t3, ch07_3_stops_and_report, "ch07.3", 3, "stopping rules, report, bad input");
    TCase *t3l = cft_tcase_long(s, "ch07.3-files");
    CFT_GRADED(t3l, ch07_3_jacobi_solves_references, "ch07.3", 4, "Jacobi: Siconos error < 1e-8 on the reference problems");

    TCase *t4 = cft_tcase_unit(s, "ch07.4");
    CFT_GRADED(t4, ch07_4_w_incremental, "ch07.4", 5, "incremental w equals G^T lambda after every sweep (1e-12)");
    CFT_GRADED(t4, ch07_4_pgs_equivalence, "ch07.4", 3, "box set, r = 1/A_ii: boxed PGS sweep for sweep");
    CFT_GRADED(t4, ch07_4_sliding_particle, "ch07.4", 3, "sliding particle: lambda_t = -mu lambda_n v_t/|v_t|");
    TCase *t4l = cft_tcase_long(s, "ch07.4-files");
    CFT_GRADED(t4l, ch07_4_gs_solves_references, "ch07.4", 4, "GS: Siconos error < 1e-8; Jacobi and GS agree");

    TCase *t5 = cft_tcase_unit(s, "ch07.5");
    CFT_GRADED(t5, ch07_5_r_init_strategies, "ch07.5", 5, "local, blocked, global r-factors");
    CFT_GRADED(t5, ch07_5_power_iteration, "ch07.5", 4, "power iteration equals the dense |A|_2 (1e-6)");
    CFT_GRADED(t5, ch07_5_accept_rule, "ch07.5", 4, "the rule: >=, NaN, nu per strategy, window, growth");
    CFT_GRADED(t5, ch07_5_tol_bound, "ch07.5", 2, "accuracy bound stops a badly scaled solve at the floor");

    TCase *t6 = cft_tcase_scene(s, "ch07.6");
    CFT_GRADED(t6, ch07_6_free_fall_exact, "ch07.6", 4, "Moreau midpoint: free fall exact");
    CFT_GRADED(t6, ch07_6_resting_box, "ch07.6", 4, "resting box: velocity 0, impulses m g h, no sinking");
    CFT_GRADED(t6, ch07_6_sliding_stop_distance, "ch07.6", 4, "sliding box stops at v0^2/(2 mu g) within mu g h^2/8");
    CFT_GRADED(t6, ch07_6_restitution_bounce, "ch07.6", 4, "Newton impact law: rebound height eps^2 h0");
    CFT_GRADED(t6, ch07_6_torsion_stops_spin, "ch07.6", 4, "torsion stops a spin at I w0/(mu_tau m g); the disk does not");
    CFT_GRADED(t6, ch07_6_post_projection, "ch07.6", 5, "post-step projection: 0.01 in one pass; a stack in <= 3");

    TCase *tl = cft_tcase_scene(s, "ch07-integration");
    CFT_TEST(tl, lib_prox_rows_in_world, "prox-gs and prox-jacobi with each r strategy hold a stack");
    TCase *tt = cft_tcase_scene(s, "ch07-truth");
    CFT_TEST(tt, truth_prox_rule_floor_and_reset, "the adaptive rule: a floor, a reset at the floor, stalled");
    CFT_TEST(tt, truth_prox_rank_one_no_false_convergence, "rank-1 W: converged only with a small residual; the floor holds");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "ch07", build); }
