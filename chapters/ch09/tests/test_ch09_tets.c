/* SPDX-License-Identifier: MIT */
/* Chapter 9's elasticity under IPC (provided: cf_tet_neohookean(), cf_ipc_add_tet()): the stable
   Neo-Hookean tetrahedron against its worked example, finite differences of its energy and
   gradient, zero energy and force at rest and under rotations, the small-strain limit of the
   linear element, the projected Hessian's eigenvalues, an inverted element's finite energy and
   restoring force, the system's refusals, and the assembled potential with tetrahedra by
   differences. Registered by test_ch09.c's build(). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_ch09.h"
#include "cf/cf_fdcheck.h"
#include "cf/cf_linalg.h"
#include "cf/cf_rng.h"

void cft_ch09_tet_tests(Suite *s);

/* one element: rest Dm^-1, volume and Lame parameters (from a system with its four nodes) */
typedef struct Tet {
    double Dm_inv[9], V, mu, lambda;
    bool project;
} Tet;

/* the rest tetrahedron @p X with (young, poisson) */
static Tet tet_of(const cfVec3 X[4], double young, double poisson)
{
    cfIpcSystem s;
    cft_assert_ok(cf_ipc_init(&s, 1.0, 1e-3, 1.0));
    for (int i = 0; i < 4; ++i) cft_assert_int_at(cf_ipc_add_node(&s, X[i], 1.0, false), ==, i, "i = %d", i);
    cft_assert_ok(cf_ipc_add_tet(&s, (int[4]){0, 1, 2, 3}, young, poisson));
    Tet t;
    memcpy(t.Dm_inv, s.tet_Dm_inv[0], sizeof t.Dm_inv);
    t.V = s.tet_volume[0], t.mu = s.tet_mu[0], t.lambda = s.tet_lambda[0], t.project = false;
    cf_ipc_free(&s);
    return t;
}

static void points(const double *v, cfVec3 x[4])
{
    for (int i = 0; i < 4; ++i) x[i] = cfu_vec3(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
}

static void fd_energy(void *ctx, const double *v, double *y)
{
    const Tet *t = ctx;
    cfVec3 x[4];
    points(v, x);
    y[0] = cf_tet_neohookean(x, t->Dm_inv, t->V, t->mu, t->lambda, NULL, NULL, false);
}

static void fd_gradient(void *ctx, const double *v, double *y)
{
    const Tet *t = ctx;
    cfVec3 x[4];
    points(v, x);
    cf_tet_neohookean(x, t->Dm_inv, t->V, t->mu, t->lambda, y, NULL, false);
}

/* a rest tetrahedron near the unit right one */
static void rest_tet(cfRng *r, cfVec3 X[4])
{
    X[0] = cfu_vec3(0, 0, 0), X[1] = cfu_vec3(1, 0, 0), X[2] = cfu_vec3(0, 1, 0), X[3] = cfu_vec3(0, 0, 1);
    for (int i = 0; i < 4; ++i)
        X[i] = cfu_add(X[i], cfu_vec3(cf_rng_range(r, -0.15, 0.15), cf_rng_range(r, -0.15, 0.15), cf_rng_range(r, -0.15, 0.15)));
}

/* the smallest eigenvalue of the 12x12 @p H and its largest magnitude */
static double min_eig12(const double *H, double *big)
{
    cfDense A = {0};
    cft_assert_ok(cf_dense_init(&A, 12, 12));
    memcpy(A.a, H, 144 * sizeof *H);
    double l[12];
    cft_assert_ok(cf_dense_sym_eig(&A, l, NULL));
    cf_dense_free(&A);
    *big = fmax(fabs(l[0]), fabs(l[11]));
    return l[0];
}

START_TEST(tet_worked_example)
{
    /* the header's example: the unit right tetrahedron stretched to F = diag(2, 1, 1), mu = 1,
       lambda = 0 (young 2, poisson 0): psi = 1.5 - 1 + 0.5 = 1, E = V psi = 1/6 */
    cfVec3 X[4] = {cfu_vec3(0, 0, 0), cfu_vec3(1, 0, 0), cfu_vec3(0, 1, 0), cfu_vec3(0, 0, 1)};
    Tet t = tet_of(X, 2.0, 0.0);
    cft_assert_near(t.V, 1.0 / 6.0, 1e-15, 0);
    cft_assert_near(t.mu, 1.0, 1e-15, 0);
    cft_assert_near(t.lambda, 0.0, 1e-15, 0);
    cfVec3 x[4] = {X[0], cfu_vec3(2, 0, 0), X[2], X[3]};
    cft_assert_near(cf_tet_neohookean(x, t.Dm_inv, t.V, t.mu, t.lambda, NULL, NULL, false), 1.0 / 6.0, 1e-15, 0);
    /* the force on x1 along x: V P_00 G_10 = (1/6) (mu 2 + (mu (J - 1) - mu) cof_00) = (1/6) 2 */
    double g[12];
    cf_tet_neohookean(x, t.Dm_inv, t.V, t.mu, t.lambda, g, NULL, false);
    cft_assert_near(g[3], 2.0 / 6.0, 1e-15, 0);
}
END_TEST

START_TEST(tet_derivatives_by_differences)
{
    /* 40 random elements, deformations from mild to inverted: the gradient against central
       differences of E, the Hessian (unprojected) against differences of the gradient */
    cfRng r;
    cf_rng_seed(&r, 34);
    for (int k = 0; k < 40; ++k) {
        cfVec3 X[4];
        rest_tet(&r, X);
        Tet t = tet_of(X, cf_rng_range(&r, 0.5, 3.0), cf_rng_range(&r, 0.0, 0.45));
        double v[12], g[12], H[144], amp = k < 20 ? 0.2 : 0.8;
        for (int i = 0; i < 4; ++i)
            for (int a = 0; a < 3; ++a) v[3 * i + a] = cfu_vec3_at(X[i], a) + cf_rng_range(&r, -amp, amp);
        cfVec3 x[4];
        points(v, x);
        double e = cf_tet_neohookean(x, t.Dm_inv, t.V, t.mu, t.lambda, g, H, false);
        cft_assert_at(isfinite(e), "element %d", k);
        cfDense Jg = {.rows = 1, .cols = 12, .a = g}, JH = {.rows = 12, .cols = 12, .a = H};
        double eg = cf_fd_jacobian_error(1, 12, fd_energy, &t, v, &Jg, 1e-6, NULL, NULL);
        double eh = cf_fd_jacobian_error(12, 12, fd_gradient, &t, v, &JH, 1e-6, NULL, NULL);
        cft_assert_at(eg < 1e-7 && eh < 1e-7, "element %d: gradient error %g, Hessian error %g", k, eg, eh);
        for (int p = 0; p < 12; ++p)
            for (int q = 0; q < p; ++q) cft_assert_near_at(H[12 * p + q], H[12 * q + p], 1e-12, 0, "element %d, %d %d", k, p, q);
    }
}
END_TEST

START_TEST(tet_rest_and_rotations_are_free)
{
    /* at rest and after any rotation (and translation) of the rest shape: E = 0 and no force, to
       rounding of mu V */
    cfRng r;
    cf_rng_seed(&r, 35);
    for (int k = 0; k < 20; ++k) {
        cfVec3 X[4];
        rest_tet(&r, X);
        Tet t = tet_of(X, 1e5, 0.3);
        cfQuat q = cfu_quat_normalize(cfu_quat(cf_rng_range(&r, -1, 1), cf_rng_range(&r, -1, 1), cf_rng_range(&r, -1, 1),
                                               cf_rng_range(&r, -1, 1)));
        cfVec3 c = cfu_vec3(cf_rng_range(&r, -5, 5), cf_rng_range(&r, -5, 5), cf_rng_range(&r, -5, 5));
        for (int rot = 0; rot < 2; ++rot) {
            cfVec3 x[4];
            for (int i = 0; i < 4; ++i) x[i] = rot ? cfu_add(c, cfu_quat_rotate(q, X[i])) : X[i];
            double g[12], scale = t.mu * t.V;
            double e = cf_tet_neohookean(x, t.Dm_inv, t.V, t.mu, t.lambda, g, NULL, false);
            cft_assert_near_at(e, 0.0, 1e-12 * scale, 0, "element %d, rotated %d", k, rot);
            for (int p = 0; p < 12; ++p) cft_assert_near_at(g[p], 0.0, 1e-11 * scale, 0, "element %d, rotated %d, entry %d", k, rot, p);
        }
    }
}
END_TEST

START_TEST(tet_small_strain_is_the_linear_element)
{
    /* a small displacement u = eps x (random eps): E = V (mu e:e + lambda/2 (tr e)^2) + O(|eps|^3),
       e = sym(grad u), the linear element of cf_soft.h; with lambda in place of lambda + mu in psi
       (the reparametrization left out) the quadratic term would be V (mu e:e + (lambda - mu)/2 (tr e)^2) */
    cfRng r;
    cf_rng_seed(&r, 36);
    for (int k = 0; k < 10; ++k) {
        cfVec3 X[4];
        rest_tet(&r, X);
        double nu = cf_rng_range(&r, 0.1, 0.45);
        Tet t = tet_of(X, 1e4, nu);
        double Hu[9], size = 1e-4;
        for (int p = 0; p < 9; ++p) Hu[p] = cf_rng_range(&r, -size, size);
        cfVec3 x[4];
        for (int i = 0; i < 4; ++i) {
            double u[3];
            for (int a = 0; a < 3; ++a) u[a] = Hu[3 * a] * X[i].x + Hu[3 * a + 1] * X[i].y + Hu[3 * a + 2] * X[i].z;
            x[i] = cfu_add(X[i], cfu_vec3(u[0], u[1], u[2]));
        }
        double ee = 0.0, tr = Hu[0] + Hu[4] + Hu[8];
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) {
                double e = 0.5 * (Hu[3 * a + b] + Hu[3 * b + a]);
                ee += e * e;
            }
        double lin = t.V * (t.mu * ee + 0.5 * t.lambda * tr * tr);
        double E = cf_tet_neohookean(x, t.Dm_inv, t.V, t.mu, t.lambda, NULL, NULL, false);
        cft_assert_near_at(E, lin, 0, 1e-3, "element %d (nu %g)", k, nu);
    }
}
END_TEST

START_TEST(tet_projected_hessian_is_psd)
{
    /* projected (cf_psd_project() of the 9x9 d2psi/dF2): every eigenvalue of the 12x12 >= 0 to
       rounding, for deformations up to inverted; without the projection some are negative (so the
       projection acts); at rest (F = I) it is PSD already (the rotations its null space) and comes back
       unchanged to rounding */
    cfRng r;
    cf_rng_seed(&r, 37);
    int indefinite = 0;
    for (int k = 0; k < 40; ++k) {
        cfVec3 X[4];
        rest_tet(&r, X);
        Tet t = tet_of(X, 1.0, cf_rng_range(&r, 0.0, 0.45));
        cfVec3 x[4];
        for (int i = 0; i < 4; ++i)
            x[i] = cfu_add(X[i], cfu_vec3(cf_rng_range(&r, -0.7, 0.7), cf_rng_range(&r, -0.7, 0.7), cf_rng_range(&r, -0.7, 0.7)));
        double H[144], Hp[144], big;
        cf_tet_neohookean(x, t.Dm_inv, t.V, t.mu, t.lambda, NULL, H, false);
        double e = cf_tet_neohookean(x, t.Dm_inv, t.V, t.mu, t.lambda, NULL, Hp, true);
        cft_assert_at(isfinite(e), "element %d", k);
        indefinite += min_eig12(H, &big) < -1e-10 * big;
        double lp = min_eig12(Hp, &big);
        cft_assert_at(lp >= -1e-10 * big, "element %d: projected smallest eigenvalue %g (largest %g)", k, lp, big);
    }
    ck_assert_msg(indefinite >= 10, "only %d of 40 deformed elements had an indefinite Hessian", indefinite);
    /* at rest: the same matrix */
    cfVec3 X[4] = {cfu_vec3(0, 0, 0), cfu_vec3(1, 0, 0), cfu_vec3(0, 1, 0), cfu_vec3(0, 0, 1)};
    Tet t = tet_of(X, 1.0, 0.3);
    double H[144], Hp[144];
    cf_tet_neohookean(X, t.Dm_inv, t.V, t.mu, t.lambda, NULL, H, false);
    cf_tet_neohookean(X, t.Dm_inv, t.V, t.mu, t.lambda, NULL, Hp, true);
    for (int p = 0; p < 144; ++p) cft_assert_near_at(Hp[p], H[p], 1e-12, 0, "entry %d", p);
}
END_TEST

START_TEST(tet_inverted_is_finite_and_restoring)
{
    /* x3 reflected through the face (x0, x1, x2): J = -1, E finite and positive, and -g points to
       growing J (dJ/dx . (-g) > 0); a few projected Newton steps on E alone (x0, x1, x2 held) bring
       the element back to J > 0 */
    cfVec3 X[4] = {cfu_vec3(0, 0, 0), cfu_vec3(1, 0, 0), cfu_vec3(0, 1, 0), cfu_vec3(0, 0, 1)};
    Tet t = tet_of(X, 1e3, 0.3);
    cfVec3 x[4] = {X[0], X[1], X[2], cfu_vec3(0.1, 0.1, -1.0)};
    double g[12], H[144];
    double e = cf_tet_neohookean(x, t.Dm_inv, t.V, t.mu, t.lambda, g, H, true);
    ck_assert_msg(isfinite(e) && e > 0.0, "E = %g", e);
    /* dJ/dx3 = cof F's third column (F = Ds here): e1 x e2 = (0, 0, 1) */
    cfVec3 f3 = cfu_vec3(-g[9], -g[10], -g[11]);
    ck_assert_msg(f3.z > 0.0, "the force on x3 (%g, %g, %g) does not raise J", f3.x, f3.y, f3.z);
    for (int it = 0; it < 30; ++it) {
        cf_tet_neohookean(x, t.Dm_inv, t.V, t.mu, t.lambda, g, H, true);
        /* Newton on x3 alone: the 3x3 block (PSD; 1e-12 mu V added) */
        double A[9], b[3];
        for (int a = 0; a < 3; ++a) {
            b[a] = -g[9 + a];
            for (int c = 0; c < 3; ++c) A[3 * a + c] = H[12 * (9 + a) + 9 + c] + (a == c) * 1e-12 * t.mu * t.V;
        }
        cfDense M = {.rows = 3, .cols = 3, .a = A}, L = {0};
        cft_assert_ok_at(cf_dense_cholesky(&M, &L), "iteration %d", it);
        double d[3];
        cf_dense_cholesky_solve(&L, b, d);
        cf_dense_free(&L);
        double e0 = cf_tet_neohookean(x, t.Dm_inv, t.V, t.mu, t.lambda, NULL, NULL, false), alpha = 1.0;
        for (int k = 0; k < 50; ++k, alpha *= 0.5) {
            cfVec3 y[4] = {x[0], x[1], x[2], cfu_add(x[3], cfu_vec3(alpha * d[0], alpha * d[1], alpha * d[2]))};
            if (cf_tet_neohookean(y, t.Dm_inv, t.V, t.mu, t.lambda, NULL, NULL, false) < e0) {
                x[3] = y[3];
                break;
            }
        }
    }
    ck_assert_msg(x[3].z > 0.5, "x3 ended at (%g, %g, %g)", x[3].x, x[3].y, x[3].z);
    cft_assert_near(cf_tet_neohookean(x, t.Dm_inv, t.V, t.mu, t.lambda, NULL, NULL, false), 0.0, 1e-9 * t.mu * t.V, 0);
}
END_TEST

START_TEST(tet_system_refusals)
{
    cfIpcSystem s;
    cft_assert_ok(cf_ipc_init(&s, 0.01, 1e-3, 1.0));
    cfVec3 X[5] = {cfu_vec3(0, 0, 0), cfu_vec3(1, 0, 0), cfu_vec3(0, 1, 0), cfu_vec3(0, 0, 1), cfu_vec3(0.5, 0.5, 0)};
    for (int i = 0; i < 5; ++i) cft_assert_int_at(cf_ipc_add_node(&s, X[i], 1.0, false), ==, i, "i = %d", i);
    cft_assert_status(cf_ipc_add_tet(&s, (int[4]){0, 2, 1, 3}, 1e5, 0.3), CF_BAD_INPUT); /* inverted */
    cft_assert_status(cf_ipc_add_tet(&s, (int[4]){0, 1, 2, 4}, 1e5, 0.3), CF_BAD_INPUT); /* flat */
    cft_assert_status(cf_ipc_add_tet(&s, (int[4]){0, 1, 2, 2}, 1e5, 0.3), CF_BAD_INPUT); /* repeated */
    cft_assert_status(cf_ipc_add_tet(&s, (int[4]){0, 1, 2, 5}, 1e5, 0.3), CF_BAD_INPUT); /* no node 5 */
    cft_assert_status(cf_ipc_add_tet(&s, (int[4]){0, 1, 2, 3}, 0.0, 0.3), CF_BAD_INPUT);
    cft_assert_status(cf_ipc_add_tet(&s, (int[4]){0, 1, 2, 3}, INFINITY, 0.3), CF_BAD_INPUT);
    cft_assert_status(cf_ipc_add_tet(&s, (int[4]){0, 1, 2, 3}, 1e5, 0.5), CF_BAD_INPUT);
    cft_assert_status(cf_ipc_add_tet(&s, (int[4]){0, 1, 2, 3}, 1e5, -0.1), CF_BAD_INPUT);
    cft_assert_status(cf_ipc_add_tet(&s, (int[4]){0, 1, 2, 3}, 1e5, NAN), CF_BAD_INPUT);
    ck_assert_int_eq(s.n_tet, 0);
    cft_assert_ok(cf_ipc_add_tet(&s, (int[4]){0, 1, 2, 3}, 1e5, 0.3));
    ck_assert_int_eq(s.n_tet, 1);
    cft_assert_near(s.tet_volume[0], 1.0 / 6.0, 1e-15, 0);
    cf_ipc_free(&s);
    ck_assert_int_eq(s.n_tet, 0);
}
END_TEST

static void fd_system_energy(void *ctx, const double *q, double *y)
{
    y[0] = cf_ipc_energy(ctx, q, NULL, NULL, false);
}

static void fd_system_gradient(void *ctx, const double *q, double *y)
{
    cf_ipc_energy(ctx, q, y, NULL, false);
}

START_TEST(tet_system_energy_by_differences)
{
    /* two tetrahedra sharing a face, deformed, over a triangle within dhat: f = inertia +
       h^2 (elasticity + barrier), its gradient and Hessian against differences; the h^2 V psi of
       each element is in f */
    cfIpcSystem s;
    cft_assert_ok(cf_ipc_init(&s, 0.1, 0.05, 10.0));
    cfVec3 X[4] = {cfu_vec3(0, 0, 0.03), cfu_vec3(1, 0, 0.03), cfu_vec3(0, 1, 0.03), cfu_vec3(0.2, 0.2, 1)};
    for (int i = 0; i < 4; ++i) cft_assert_int_at(cf_ipc_add_node(&s, X[i], 0.5, false), ==, i, "i = %d", i);
    /* a free triangle (fixed nodes' rows are the identity, which differences do not see) */
    int f0 = cf_ipc_add_node(&s, cfu_vec3(-1, -1, 0), 1, false), f1 = cf_ipc_add_node(&s, cfu_vec3(3, -1, 0), 1, false);
    int f2 = cf_ipc_add_node(&s, cfu_vec3(-1, 3, 0), 1, false);
    ck_assert_int_ge(cf_ipc_add_triangle(&s, f0, f1, f2), 0);
    int top = cf_ipc_add_node(&s, cfu_vec3(0.3, 0.3, 1.5), 0.5, false);
    cft_assert_ok(cf_ipc_add_tet(&s, (int[4]){0, 1, 2, 3}, 50.0, 0.3));
    cft_assert_ok(cf_ipc_add_tet(&s, (int[4]){1, 2, 3, top}, 50.0, 0.3));
    cf_ipc_step_begin(&s);
    cfRng r;
    cf_rng_seed(&r, 38);
    for (int i = 0; i < s.n; ++i)
        for (int a = 0; a < 3 && !s.fixed[i]; ++a) s.q[3 * i + a] += cf_rng_range(&r, -0.01, 0.01);
    int N = 3 * s.n;
    double *g = malloc((size_t)N * sizeof *g), *H = malloc((size_t)N * N * sizeof *H);
    double f = cf_ipc_energy(&s, s.q, g, H, false);
    cft_assert_finite(f);
    int active;
    ck_assert(cf_ipc_min_distance(&s, s.q, &active) < s.dhat && active > 0);
    /* the elastic part: f minus the same system without tetrahedra */
    cfIpcSystem bare = s;
    bare.n_tet = 0;
    double el = 0.0;
    for (int k = 0; k < s.n_tet; ++k) {
        cfVec3 x[4];
        cf_ipc_pair_points(s.q, s.tet[k], x);
        el += cf_tet_neohookean(x, s.tet_Dm_inv[k], s.tet_volume[k], s.tet_mu[k], s.tet_lambda[k], NULL, NULL, false);
    }
    ck_assert_double_gt(el, 0.0);
    cft_assert_near(f - cf_ipc_energy(&bare, s.q, NULL, NULL, false), s.h * s.h * el, 0, 1e-10);
    cfDense Jg = {.rows = 1, .cols = N, .a = g}, JH = {.rows = N, .cols = N, .a = H};
    double eg = cf_fd_jacobian_error(1, N, fd_system_energy, &s, s.q, &Jg, 1e-6, NULL, NULL);
    double eh = cf_fd_jacobian_error(N, N, fd_system_gradient, &s, s.q, &JH, 1e-6, NULL, NULL);
    ck_assert_msg(eg < 1e-6 && eh < 1e-6, "gradient error %g, Hessian error %g", eg, eh);
    free(g), free(H);
    cf_ipc_free(&s);
}
END_TEST

void cft_ch09_tet_tests(Suite *s)
{
    TCase *t = cft_tcase_unit(s, "ch09-tets");
    CFT_TEST(t, tet_worked_example, "Neo-Hookean tet: the header's worked example E = 1/6, its force");
    CFT_TEST(t, tet_derivatives_by_differences, "Neo-Hookean tet: gradient and Hessian by differences, 40 elements up to inverted");
    CFT_TEST(t, tet_rest_and_rotations_are_free, "Neo-Hookean tet: no energy, no force at rest and rotated");
    CFT_TEST(t, tet_small_strain_is_the_linear_element, "Neo-Hookean tet: small strain gives the linear element's mu e:e + lambda/2 tr^2 e");
    CFT_TEST(t, tet_projected_hessian_is_psd, "Neo-Hookean tet: the projected Hessian is PSD, the raw one often not; near rest unchanged");
    CFT_TEST(t, tet_inverted_is_finite_and_restoring, "Neo-Hookean tet: an inverted element has finite energy and is pushed back");
    CFT_TEST(t, tet_system_refusals, "cf_ipc_add_tet(): inverted, flat, repeated, missing nodes and bad moduli refused");
    CFT_TEST(t, tet_system_energy_by_differences, "the incremental potential with tetrahedra and a barrier by differences");
}
