/* SPDX-License-Identifier: MIT */
/* Chapter 2 tests: gaps, frames, Jacobians, Delassus operators, friction models, stabilization
   and the soft dual form. Graded tests check certificates (finite differences, independent
   velocity computations, closed forms of single contacts, complementarity found by an
   exhaustive LCP search, algebraic identities), never stored numbers. Tests of one exercise
   build their inputs without calling the other exercises of this chapter where that is cheap,
   so each exercise can be graded on its own. Run with `make test-ch2` or
   `make test-ch2 IMPL=solutions`. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cft.h"
#include "cf/cf_ch01.h" /* cf_soft_step_implicit */
#include "cf/cf_ch02.h"
#include "cf/cf_rng.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

static const double G = 9.81;

static cfRigidBody make_body(cfShape shape, double mass)
{
    cfRigidBody b;
    cfError err;
    ck_assert_msg(cf_rigid_init(&b, shape, mass, &err) == CF_OK, "%s", err.msg);
    return b;
}

static cfRigidBody make_fixed(cfShape shape)
{
    cfRigidBody b;
    cfError err;
    ck_assert_msg(cf_rigid_init_fixed(&b, shape, &err) == CF_OK, "%s", err.msg);
    return b;
}

/* a dynamic box with a random pose and velocity */
static cfRigidBody random_box(cfRng *rng)
{
    cfVec3 half =
        cfu_vec3(cf_rng_range(rng, 0.2, 1.0), cf_rng_range(rng, 0.2, 1.0), cf_rng_range(rng, 0.2, 1.0));
    cfRigidBody b = make_body(cf_shape_box(half), cf_rng_range(rng, 0.5, 3.0));
    b.x = cf_rng_vec3(rng, -2, 2);
    b.q = cf_rng_quat(rng);
    b.v = cf_rng_vec3(rng, -2, 2);
    b.w = cf_rng_vec3(rng, -3, 3);
    cf_rigid_update_inertia(&b);
    return b;
}

/* a random right-handed orthonormal frame: the columns of a rotation matrix (no ch02.2 needed) */
static void random_frame(cfRng *rng, cfContact *c)
{
    cfMat3 R = cfu_quat_to_mat3(cf_rng_quat(rng));
    c->n = cfu_mat3_col(R, 0);
    c->t = cfu_mat3_col(R, 1);
    c->b = cfu_mat3_col(R, 2);
}

static cfContact make_contact(int a, int b, cfVec3 p, cfVec3 n, cfVec3 t, double mu)
{
    cfContact c;
    memset(&c, 0, sizeof c);
    c.body_a = a;
    c.body_b = b;
    c.p = p;
    c.n = n;
    c.t = t;
    c.b = cfu_cross(n, t);
    c.mu = mu;
    return c;
}

/* 6-vector (v, w) of a body, zero for NULL */
static void body_u(const cfRigidBody *b, double u[6])
{
    cfVec3 v = b ? b->v : cfu_zero3(), w = b ? b->w : cfu_zero3();
    double t[6] = {v.x, v.y, v.z, w.x, w.y, w.z};
    memcpy(u, t, sizeof t);
}

static void jac_times_u(double J[3][6], const double u[6], double out[3])
{
    for (int r = 0; r < 3; ++r) {
        out[r] = 0.0;
        for (int m = 0; m < 6; ++m) out[r] += J[r][m] * u[m];
    }
}

/* position at time tau of the material point that is at p at time 0 (exact rigid motion) */
static cfVec3 material_point(const cfRigidBody *b, cfVec3 p, double tau)
{
    if (!b || b->fixed) return p;
    cfVec3 r = cfu_quat_rotate(cfu_quat_exp(cfu_scale(tau, b->w)), cfu_sub(p, b->x));
    return cfu_add(cfu_mul_add(b->x, tau, b->v), r);
}

/* a frictional contact problem from a dense symmetric 3nc x 3nc matrix (every block stored) */
static cfFrictionProblem fc_from_dense(int nc, const double *Wd, const double *q, const double *mu)
{
    cfFrictionProblem p;
    memset(&p, 0, sizeof p);
    p.nc = nc;
    ck_assert(cf_bsr_init(&p.W, nc, nc, 3, 3) == CF_OK);
    for (int a = 0; a < nc; ++a)
        for (int c = 0; c < nc; ++c) {
            double blk[9];
            for (int r = 0; r < 3; ++r)
                for (int k = 0; k < 3; ++k) blk[3 * r + k] = Wd[(3 * a + r) * 3 * nc + 3 * c + k];
            cft_assert_at(cf_bsr_add_block(&p.W, a, c, blk) == CF_OK, "a = %d, c = %d", a, c);
        }
    cf_bsr_finalize(&p.W);
    p.q = malloc((size_t)(3 * nc) * sizeof *p.q);
    p.mu = malloc((size_t)nc * sizeof *p.mu);
    ck_assert(p.q && p.mu);
    memcpy(p.q, q, (size_t)(3 * nc) * sizeof *q);
    memcpy(p.mu, mu, (size_t)nc * sizeof *mu);
    return p;
}

/* one particle of mass m on a fixed plane: W = I/m */
static cfFrictionProblem fc_particle(double m, const double q[3], double mu)
{
    double W[9] = {1 / m, 0, 0, 0, 1 / m, 0, 0, 0, 1 / m};
    return fc_from_dense(1, W, q, &mu);
}

/* a random symmetric PSD problem W = G G^T (G: 3nc x ncol) with ncol < 3nc (rank deficient) */
static cfFrictionProblem fc_random(cfRng *rng, int nc, int ncol)
{
    int n = 3 * nc;
    double *Gm = malloc((size_t)(n * ncol) * sizeof *Gm), *W = calloc((size_t)(n * n), sizeof *W);
    double *q = malloc((size_t)n * sizeof *q), *mu = malloc((size_t)nc * sizeof *mu);
    ck_assert(Gm && W && q && mu);
    for (int i = 0; i < n * ncol; ++i) Gm[i] = cf_rng_range(rng, -1, 1);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < ncol; ++k) W[i * n + j] += Gm[i * ncol + k] * Gm[j * ncol + k];
    for (int i = 0; i < n; ++i) q[i] = cf_rng_range(rng, -1, 1);
    for (int a = 0; a < nc; ++a) mu[a] = cf_rng_range(rng, 0.1, 1.0);
    cfFrictionProblem p = fc_from_dense(nc, W, q, mu);
    free(Gm);
    free(W);
    free(q);
    free(mu);
    return p;
}

/* free an LCP built by cf_friction_polyhedral_lcp() (the same as cf_lcp_free(), spelled out so
   that this chapter does not depend on the LCP library code of the solver chapters) */
static void lcp_release(cfLcp *p)
{
    cf_csr_free(&p->A);
    free(p->b);
    memset(p, 0, sizeof *p);
}

static cfDense bsr_dense(const cfBsr *B)
{
    cfDense D;
    ck_assert(cf_bsr_to_dense(B, &D) == CF_OK);
    return D;
}

static cfDense csr_dense(const cfCsr *A)
{
    cfDense D;
    ck_assert(cf_csr_to_dense(A, &D) == CF_OK);
    return D;
}

static double dense_max_abs(const cfDense *D) { return cf_vec_norm_inf(D->rows * D->cols, D->a); }

/* smallest and largest eigenvalue and the numerical rank (eigenvalues > tol_rel * largest) */
static void sym_spectrum(const cfDense *D, double *lmin, double *lmax, int *rank, double tol_rel)
{
    double *ev = malloc((size_t)D->rows * sizeof *ev);
    ck_assert(ev);
    ck_assert(cf_dense_sym_eig(D, ev, NULL) == CF_OK);
    *lmin = ev[0];
    *lmax = ev[D->rows - 1];
    *rank = 0;
    for (int i = 0; i < D->rows; ++i)
        if (ev[i] > tol_rel * fmax(*lmax, 1e-300)) ++*rank;
    free(ev);
}

/* Exhaustive LCP search (test oracle for n <= 12): try every index set alpha, solve
   A_aa x_a = -b_a with x = 0 elsewhere, accept when x >= 0 and w = A x + b >= 0. */
static bool lcp_enumerate(const cfDense *A, const double *b, double *x)
{
    const int n = A->rows;
    ck_assert(n <= 16);
    int idx[16];
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
        int m = 0;
        for (int i = 0; i < n; ++i)
            if (mask & (1u << i)) idx[m++] = i;
        cf_vec_zero(n, x);
        if (m > 0) {
            cfDense S;
            ck_assert(cf_dense_init(&S, m, m) == CF_OK);
            double rhs[16], sol[16];
            for (int r = 0; r < m; ++r) {
                rhs[r] = -b[idx[r]];
                for (int c = 0; c < m; ++c) *cf_dense_at(&S, r, c) = *cf_dense_at(A, idx[r], idx[c]);
            }
            cfStatus st = cf_dense_solve(&S, rhs, sol);
            cf_dense_free(&S);
            if (st != CF_OK) continue;
            for (int r = 0; r < m; ++r) x[idx[r]] = sol[r];
        }
        bool ok = true;
        for (int i = 0; i < n && ok; ++i) {
            double w = b[i];
            for (int j = 0; j < n; ++j) w += *cf_dense_at(A, i, j) * x[j];
            if (x[i] < -1e-12 || w < -1e-12) ok = false;
        }
        if (ok) return true;
    }
    return false;
}

/* projected Gauss-Seidel on a boxed LCP until its residual is below 1e-14 (test-local solver) */
static void blcp_pgs(const cfBlcp *p, double *x)
{
    cf_vec_zero(p->n, x);
    for (int sweep = 0; sweep < 1000; ++sweep) {
        for (int i = 0; i < p->n; ++i) {
            double w = p->b[i], aii = 0.0;
            for (int e = p->A.rowptr[i]; e < p->A.rowptr[i + 1]; ++e) {
                w += p->A.val[e] * x[p->A.colidx[e]];
                if (p->A.colidx[e] == i) aii = p->A.val[e];
            }
            ck_assert(aii > 0.0);
            double lo, hi;
            cf_blcp_bounds(p, x, i, &lo, &hi);
            x[i] = fmax(lo, fmin(hi, x[i] - w / aii));
        }
        if (cf_blcp_residual(p, x) < 1e-14) return;
    }
    ck_abort_msg("PGS did not converge");
}

/* ------------------------------------------------------------------------------------------ */
/* ch02.1 gap functions                                                                        */

START_TEST(ch02_1_worked_examples)
{
    double phi;
    cfVec3 n;
    cft_assert_ok(cf_gap_sphere_plane(cfu_vec3(1, 2, 0.7), 0.5, cfu_vec3(0, 0, 1), 0.0, &phi, &n));
    cft_assert_near(phi, 0.2, 1e-15, 0);
    cft_assert_vec3_near(n, cfu_vec3(0, 0, 1), 0.0);
    cft_assert_ok(cf_gap_sphere_sphere(cfu_zero3(), 1.0, cfu_vec3(3, 4, 0), 2.0, &phi, &n));
    cft_assert_near(phi, 2.0, 1e-15, 0);
    cft_assert_vec3_near(n, cfu_vec3(0.6, 0.8, 0), 1e-15);
    cfVec3 half = cfu_vec3(1, 2, 3);
    cft_assert_ok(cf_gap_point_box(cfu_vec3(1.5, 0, 0), cfu_zero3(), cfu_quat_identity(), half, &phi, &n));
    cft_assert_near(phi, 0.5, 1e-15, 0);
    cft_assert_vec3_near(n, cfu_vec3(1, 0, 0), 1e-15);
    cft_assert_ok(cf_gap_point_box(cfu_vec3(2, 3, 0), cfu_zero3(), cfu_quat_identity(), half, &phi, &n));
    cft_assert_near(phi, sqrt(2.0), 1e-15, 0);
    cft_assert_vec3_near(n, cfu_vec3(sqrt(0.5), sqrt(0.5), 0), 1e-15);
    cft_assert_ok(cf_gap_point_box(cfu_vec3(0, 0, -2.5), cfu_zero3(), cfu_quat_identity(), half, &phi, &n));
    cft_assert_near(phi, -0.5, 1e-15, 0);
    cft_assert_vec3_near(n, cfu_vec3(0, 0, -1), 1e-15);
    /* inside on a medial plane of the unit cube (d_0 = d_1, or d_1 = d_2): the spec's tie goes
       to the lowest index */
    half = cfu_vec3(1, 1, 1);
    cft_assert_ok(cf_gap_point_box(cfu_vec3(0.5, 0.5, 0), cfu_zero3(), cfu_quat_identity(), half, &phi, &n));
    cft_assert_near(phi, -0.5, 1e-15, 0);
    cft_assert_vec3_near(n, cfu_vec3(1, 0, 0), 0.0);
    cft_assert_ok(cf_gap_point_box(cfu_vec3(0, 0.5, -0.5), cfu_zero3(), cfu_quat_identity(), half, &phi, &n));
    cft_assert_near(phi, -0.5, 1e-15, 0);
    cft_assert_vec3_near(n, cfu_vec3(0, 1, 0), 0.0);
}
END_TEST

START_TEST(ch02_1_sphere_gradients_fd)
{
    /* the normal is the gradient of phi: central differences in each coordinate of each centre */
    cfRng rng;
    cf_rng_seed(&rng, 201);
    const double d = 1e-6;
    for (int k = 0; k < 200; ++k) {
        cfVec3 c = cf_rng_vec3(&rng, -3, 3), pn = cf_rng_unit_vec3(&rng);
        double r = cf_rng_range(&rng, 0.1, 1), off = cf_rng_range(&rng, -1, 1), phi, ph2, pm2;
        cfVec3 n, tmp;
        cft_assert_ok(cf_gap_sphere_plane(c, r, pn, off, &phi, &n));
        cft_assert_near(phi, cfu_dot(pn, c) - off - r, 1e-14, 0); /* height above the plane minus r */
        for (int i = 0; i < 3; ++i) {
            cfVec3 e = cfu_vec3(i == 0, i == 1, i == 2);
            cft_assert_ok(cf_gap_sphere_plane(cfu_mul_add(c, d, e), r, pn, off, &ph2, &tmp));
            cft_assert_ok(cf_gap_sphere_plane(cfu_mul_add(c, -d, e), r, pn, off, &pm2, &tmp));
            cft_assert_near((ph2 - pm2) / (2 * d), cfu_vec3_at(n, i), 1e-8, 0);
        }
        cfVec3 ca = cf_rng_vec3(&rng, -3, 3), cb = cf_rng_vec3(&rng, -3, 3);
        double ra = cf_rng_range(&rng, 0.1, 1), rb = cf_rng_range(&rng, 0.1, 1);
        cft_assert_ok(cf_gap_sphere_sphere(ca, ra, cb, rb, &phi, &n));
        cft_assert_near(cfu_norm(n), 1.0, 1e-14, 0);
        for (int i = 0; i < 3; ++i) {
            cfVec3 e = cfu_vec3(i == 0, i == 1, i == 2);
            /* d phi / d c_B = n, d phi / d c_A = -n */
            cft_assert_ok(cf_gap_sphere_sphere(ca, ra, cfu_mul_add(cb, d, e), rb, &ph2, &tmp));
            cft_assert_ok(cf_gap_sphere_sphere(ca, ra, cfu_mul_add(cb, -d, e), rb, &pm2, &tmp));
            cft_assert_near((ph2 - pm2) / (2 * d), cfu_vec3_at(n, i), 1e-7, 0);
            cft_assert_ok(cf_gap_sphere_sphere(cfu_mul_add(ca, d, e), ra, cb, rb, &ph2, &tmp));
            cft_assert_ok(cf_gap_sphere_sphere(cfu_mul_add(ca, -d, e), ra, cb, rb, &pm2, &tmp));
            cft_assert_near((ph2 - pm2) / (2 * d), -cfu_vec3_at(n, i), 1e-7, 0);
        }
        /* symmetric: swapping the spheres keeps phi and flips n */
        cfVec3 n2;
        cft_assert_ok(cf_gap_sphere_sphere(cb, rb, ca, ra, &ph2, &n2));
        cft_assert_near(ph2, phi, 1e-14, 0);
        cft_assert_vec3_near(n2, cfu_neg(n), 1e-14);
    }
    /* coincident centres: deterministic normal +z */
    double phi;
    cfVec3 n;
    cft_assert_ok(cf_gap_sphere_sphere(cfu_vec3(1, 1, 1), 1.0, cfu_vec3(1, 1, 1), 0.5, &phi, &n));
    cft_assert_near(phi, -1.5, 1e-15, 0);
    cft_assert_vec3_near(n, cfu_vec3(0, 0, 1), 0.0);
    /* the spec's threshold is relative, 1e-12 (r_A + r_B): spheres of radius 5e5 with centres
       1e-7 apart along x coincide (+z); of radius 5e-7, 1e-7 apart, they do not (+x) */
    cft_assert_ok(cf_gap_sphere_sphere(cfu_zero3(), 5e5, cfu_vec3(1e-7, 0, 0), 5e5, &phi, &n));
    cft_assert_vec3_near(n, cfu_vec3(0, 0, 1), 0.0);
    cft_assert_ok(cf_gap_sphere_sphere(cfu_zero3(), 5e-7, cfu_vec3(1e-7, 0, 0), 5e-7, &phi, &n));
    cft_assert_vec3_near(n, cfu_vec3(1, 0, 0), 1e-15);
}
END_TEST

START_TEST(ch02_1_point_box_fd)
{
    /* random rotated boxes and points: |grad| = 1, and central differences of phi match the
       gradient away from the surface and the inner medial planes, where phi is not smooth */
    cfRng rng;
    cf_rng_seed(&rng, 202);
    const double d = 1e-6;
    int checked_in = 0, checked_out = 0;
    for (int k = 0; k < 2000; ++k) {
        cfVec3 half = cfu_vec3(cf_rng_range(&rng, 0.2, 1.5), cf_rng_range(&rng, 0.2, 1.5),
                               cf_rng_range(&rng, 0.2, 1.5));
        cfVec3 c = cf_rng_vec3(&rng, -1, 1);
        cfQuat q = cf_rng_quat(&rng);
        /* every other point near the box (many inside), the rest anywhere around it */
        cfVec3 p = k % 2 ? cfu_add(c, cf_rng_vec3(&rng, -2.5, 2.5))
                         : cfu_add(c, cfu_quat_rotate(q, cfu_hadamard(half, cf_rng_vec3(&rng, -1.3, 1.3))));
        double phi;
        cfVec3 n;
        cft_assert_ok(cf_gap_point_box(p, c, q, half, &phi, &n));
        cft_assert_near(cfu_norm(n), 1.0, 1e-12, 0);
        /* skip points near the surface or near a tie of the two largest inside excesses */
        cfVec3 l = cfu_quat_rotate(cfu_quat_conj(q), cfu_sub(p, c));
        double e[3] = {fabs(l.x) - half.x, fabs(l.y) - half.y, fabs(l.z) - half.z};
        if (fabs(phi) < 1e-3) continue;
        if (phi < 0) {
            double s[3] = {e[0], e[1], e[2]}, t;
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2 - i; ++j)
                    if (s[j] < s[j + 1]) t = s[j], s[j] = s[j + 1], s[j + 1] = t;
            if (s[0] - s[1] < 1e-3) continue;
            ++checked_in;
        } else {
            ++checked_out;
        }
        /* phi is the distance to the closest point: p - phi n lies on the surface */
        double phs;
        cfVec3 ns;
        cft_assert_ok(cf_gap_point_box(cfu_mul_add(p, -phi, n), c, q, half, &phs, &ns));
        cft_assert_near(phs, 0.0, 1e-12, 0);
        for (int i = 0; i < 3; ++i) {
            cfVec3 ei = cfu_vec3(i == 0, i == 1, i == 2), tmp;
            double ph2, pm2;
            cft_assert_ok(cf_gap_point_box(cfu_mul_add(p, d, ei), c, q, half, &ph2, &tmp));
            cft_assert_ok(cf_gap_point_box(cfu_mul_add(p, -d, ei), c, q, half, &pm2, &tmp));
            cft_assert_near((ph2 - pm2) / (2 * d), cfu_vec3_at(n, i), 1e-6, 0);
        }
    }
    ck_assert_int_gt(checked_in, 100);
    ck_assert_int_gt(checked_out, 500);
}
END_TEST

START_TEST(ch02_1_point_box_regions)
{
    /* a rotated box; points built in box coordinates near a face, an edge, a corner and inside */
    cfQuat q = cfu_quat_from_axis_angle(cfu_vec3(1, 2, 3), 0.7);
    cfVec3 c = cfu_vec3(0.5, -1, 2), half = cfu_vec3(1, 2, 3);
    struct {
        cfVec3 local, normal;
        double phi;
    } cases[] = {
        /* face +y; edge x-z; corner; inside, closest face -y; the centre: smallest half extent */
        {{0.3, 2.4, -1.0}, {0, 1, 0}, 0.4},
        {{1.3, 0.0, -3.4}, {0.6, 0, -0.8}, 0.5},
        {{-1.2, -2.2, 3.2}, {-1 / sqrt(3.0), -1 / sqrt(3.0), 1 / sqrt(3.0)}, sqrt(0.12)},
        {{0.2, -1.5, 0.1}, {0, -1, 0}, -0.5},
        {{0.0, 0.0, 0.0}, {1, 0, 0}, -1.0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        double phi;
        cfVec3 n;
        cft_assert_ok_at(cf_gap_point_box(cfu_add(c, cfu_quat_rotate(q, cases[k].local)), c, q, half, &phi, &n),
                         "k = %zu", k);
        cft_assert_near(phi, cases[k].phi, 1e-13, 0);
        cft_assert_vec3_near(n, cfu_quat_rotate(q, cases[k].normal), 1e-13);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch02.2 contact frame                                                                        */

static void check_frame(cfVec3 n, cfVec3 t, cfVec3 b)
{
    cft_assert_near(cfu_norm(t), 1.0, 1e-14, 0);
    cft_assert_near(cfu_norm(b), 1.0, 1e-14, 0);
    cft_assert_near(cfu_dot(n, t), 0.0, 1e-14, 0);
    cft_assert_near(cfu_dot(n, b), 0.0, 1e-14, 0);
    cft_assert_near(cfu_dot(t, b), 0.0, 1e-14, 0);
    cft_assert_vec3_near(cfu_cross(t, b), n, 1e-14);
    cft_assert_near(cfu_mat3_det(cfu_mat3_cols(n, t, b)), 1.0, 1e-14, 0);
}

START_TEST(ch02_2_worked_examples)
{
    cfVec3 t, b;
    cft_assert_ok(cf_contact_frame(cfu_vec3(0, 0, 1), &t, &b));
    cft_assert_vec3_near(t, cfu_vec3(1, 0, 0), 1e-15);
    cft_assert_vec3_near(b, cfu_vec3(0, 1, 0), 1e-15);
    cft_assert_ok(cf_contact_frame(cfu_vec3(1, 0, 0), &t, &b));
    cft_assert_vec3_near(t, cfu_vec3(0, 1, 0), 1e-15);
    cft_assert_vec3_near(b, cfu_vec3(0, 0, 1), 1e-15);
    cft_assert_ok(cf_contact_frame(cfu_vec3(0, 0, -1), &t, &b));
    cft_assert_vec3_near(t, cfu_vec3(1, 0, 0), 1e-15);
    cft_assert_vec3_near(b, cfu_vec3(0, -1, 0), 1e-15);
}
END_TEST

START_TEST(ch02_2_orthonormal_right_handed)
{
    /* every axis direction, tiny perturbations of them, and random directions */
    cfRng rng;
    cf_rng_seed(&rng, 221);
    for (int axis = 0; axis < 6; ++axis) {
        cfVec3 e = cfu_scale(axis < 3 ? 1.0 : -1.0, cfu_vec3(axis % 3 == 0, axis % 3 == 1, axis % 3 == 2));
        for (int k = 0; k < 50; ++k) {
            double eps = k == 0 ? 0.0 : pow(10.0, -cf_rng_range(&rng, 1, 12));
            cfVec3 n = cfu_normalize(cfu_mul_add(e, eps, cf_rng_unit_vec3(&rng))), t, b;
            cft_assert_ok(cf_contact_frame(n, &t, &b));
            check_frame(n, t, b);
        }
    }
    for (int k = 0; k < 2000; ++k) {
        cfVec3 n = cf_rng_unit_vec3(&rng), t, b;
        cft_assert_ok(cf_contact_frame(n, &t, &b));
        check_frame(n, t, b);
    }
}
END_TEST

START_TEST(ch02_2_reference_axis_rule)
{
    /* the spec's rule, recomputed here: every solution gives the same tangents */
    cfRng rng;
    cf_rng_seed(&rng, 222);
    for (int k = 0; k < 2000; ++k) {
        cfVec3 n = cf_rng_unit_vec3(&rng), t, b;
        if (k % 4 == 0) n = cfu_normalize(cfu_vec3(n.x, n.x, n.z)); /* ties |n_x| = |n_y| */
        cft_assert_ok(cf_contact_frame(n, &t, &b));
        double a[3] = {fabs(n.x), fabs(n.y), fabs(n.z)};
        int m = 0;
        for (int i = 1; i < 3; ++i)
            if (a[i] < a[m]) m = i;
        cfVec3 e = cfu_vec3(m == 0, m == 1, m == 2);
        cfVec3 want = cfu_normalize(cfu_sub(e, cfu_scale(cfu_vec3_at(n, m), n)));
        cft_assert_vec3_near(t, want, 1e-14);
        cft_assert_vec3_near(b, cfu_cross(n, want), 1e-14);
    }
    /* the diagonal: all three tie, k = 0 */
    cfVec3 n = cfu_normalize(cfu_vec3(1, 1, 1)), t, b;
    cft_assert_ok(cf_contact_frame(n, &t, &b));
    cft_assert_vec3_near(t, cfu_normalize(cfu_vec3(2, -1, -1)), 1e-15);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch02.3 rigid contact Jacobian                                                               */

START_TEST(ch02_3_worked_example)
{
    cfRigidBody B = make_body(cf_shape_sphere(1.0), 1.0);
    B.x = cfu_vec3(0, 0, 1);
    cfContact c = make_contact(-1, 0, cfu_zero3(), cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), 0.5);
    double Ja[3][6], Jb[3][6];
    cft_assert_ok(cf_contact_jacobian_rigid(&c, NULL, &B, Ja, Jb));
    const double want[3][6] = {{0, 0, 1, 0, 0, 0}, {1, 0, 0, 0, -1, 0}, {0, 1, 0, 1, 0, 0}};
    for (int r = 0; r < 3; ++r)
        for (int m = 0; m < 6; ++m) {
            cft_assert_near_at(Jb[r][m], want[r][m], 1e-15, 0, "r = %d, m = %d", r, m);
            cft_assert_near_at(Ja[r][m], 0.0, 0.0, 0, "r = %d, m = %d", r, m);
        }
}
END_TEST

START_TEST(ch02_3_matches_point_velocity_fd)
{
    /* J u = C^T (d/dt of the material point of B - that of A), by central differences of the
       exact rigid motions (translation plus rotation by the exponential map) */
    cfRng rng;
    cf_rng_seed(&rng, 231);
    const double d = 1e-6;
    for (int k = 0; k < 500; ++k) {
        cfRigidBody A = random_box(&rng), B = random_box(&rng);
        cfContact c = make_contact(0, 1, cf_rng_vec3(&rng, -2, 2), cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), 0.3);
        random_frame(&rng, &c);
        double Ja[3][6], Jb[3][6], ua[6], ub[6], va[3], vb[3];
        cft_assert_ok(cf_contact_jacobian_rigid(&c, &A, &B, Ja, Jb));
        body_u(&A, ua);
        body_u(&B, ub);
        jac_times_u(Ja, ua, va);
        jac_times_u(Jb, ub, vb);
        cfVec3 dpa = cfu_scale(0.5 / d, cfu_sub(material_point(&A, c.p, d), material_point(&A, c.p, -d)));
        cfVec3 dpb = cfu_scale(0.5 / d, cfu_sub(material_point(&B, c.p, d), material_point(&B, c.p, -d)));
        cfVec3 rel = cfu_sub(dpb, dpa);
        cft_assert_near(va[0] + vb[0], cfu_dot(c.n, rel), 1e-7, 1e-8);
        cft_assert_near(va[1] + vb[1], cfu_dot(c.t, rel), 1e-7, 1e-8);
        cft_assert_near(va[2] + vb[2], cfu_dot(c.b, rel), 1e-7, 1e-8);
        /* each side alone: body B's block gives C^T v_B(p), body A's gives -C^T v_A(p) */
        cft_assert_near(vb[1], cfu_dot(c.t, dpb), 1e-7, 1e-8);
        cft_assert_near(va[2], -cfu_dot(c.b, dpa), 1e-7, 1e-8);
    }
}
END_TEST

START_TEST(ch02_3_fixed_and_static_bodies)
{
    cfRng rng;
    cf_rng_seed(&rng, 232);
    for (int k = 0; k < 100; ++k) {
        cfRigidBody B = random_box(&rng), F = make_fixed(cf_shape_box(cfu_vec3(1, 1, 1)));
        F.x = cf_rng_vec3(&rng, -1, 1);
        cfContact c = make_contact(0, 1, cf_rng_vec3(&rng, -2, 2), cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), 0.3);
        random_frame(&rng, &c);
        double Ja[3][6], Jb[3][6], Ja2[3][6], Jb2[3][6];
        cft_assert_ok(cf_contact_jacobian_rigid(&c, &F, &B, Ja, Jb));
        cft_assert_ok(cf_contact_jacobian_rigid(&c, NULL, &B, Ja2, Jb2));
        for (int r = 0; r < 3; ++r)
            for (int m = 0; m < 6; ++m) {
                cft_assert_near_at(Ja[r][m], 0.0, 0.0, 0,
                                   "r = %d, m = %d", r, m); /* a fixed body contributes nothing */
                cft_assert_near_at(Ja2[r][m], 0.0, 0.0, 0, "r = %d, m = %d", r, m); /* nor does the environment */
                cft_assert_near_at(Jb[r][m], Jb2[r][m], 0.0, 0, "r = %d, m = %d", r, m);
            }
        /* the dynamic body's block does not depend on what it touches */
        cft_assert_ok(cf_contact_jacobian_rigid(&c, &B, &F, Ja2, Jb2));
        for (int r = 0; r < 3; ++r)
            for (int m = 0; m < 6; ++m) {
                cft_assert_near_at(Ja2[r][m], -Jb[r][m], 1e-15, 0, "r = %d, m = %d", r, m);
                cft_assert_near_at(Jb2[r][m], 0.0, 0.0, 0, "r = %d, m = %d", r, m);
            }
    }
}
END_TEST

START_TEST(ch02_3_common_rigid_motion_zero)
{
    /* two bodies moving as one rigid body: v_B = v_A + w x (x_B - x_A), same w; then J u = 0 at
       every point, because the two material points at p have the same velocity */
    cfRng rng;
    cf_rng_seed(&rng, 233);
    for (int k = 0; k < 500; ++k) {
        cfRigidBody A = random_box(&rng), B = random_box(&rng);
        B.w = A.w;
        B.v = cfu_add(A.v, cfu_cross(A.w, cfu_sub(B.x, A.x)));
        cfContact c = make_contact(0, 1, cf_rng_vec3(&rng, -3, 3), cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), 0.3);
        random_frame(&rng, &c);
        double Ja[3][6], Jb[3][6], ua[6], ub[6], va[3], vb[3];
        cft_assert_ok(cf_contact_jacobian_rigid(&c, &A, &B, Ja, Jb));
        body_u(&A, ua);
        body_u(&B, ub);
        jac_times_u(Ja, ua, va);
        jac_times_u(Jb, ub, vb);
        for (int r = 0; r < 3; ++r) cft_assert_near_at(va[r] + vb[r], 0.0, 1e-12, 0, "r = %d", r);
        /* swapping A and B together with n -> -n gives the same normal velocity */
        cfContact s = c;
        s.body_a = 1, s.body_b = 0, s.n = cfu_neg(c.n), s.b = cfu_neg(c.b);
        B.v = cf_rng_vec3(&rng, -1, 1);
        double J2a[3][6], J2b[3][6], v2a[3], v2b[3];
        cft_assert_ok(cf_contact_jacobian_rigid(&c, &A, &B, Ja, Jb));
        cft_assert_ok(cf_contact_jacobian_rigid(&s, &B, &A, J2a, J2b));
        body_u(&B, ub);
        jac_times_u(Ja, ua, va);
        jac_times_u(Jb, ub, vb);
        jac_times_u(J2a, ub, v2a);
        jac_times_u(J2b, ua, v2b);
        cft_assert_near(v2a[0] + v2b[0], va[0] + vb[0], 1e-12, 0);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch02.4 soft contact Jacobian                                                                */

START_TEST(ch02_4_worked_examples)
{
    double w[3], s, t;
    cft_assert_ok(
        cf_barycentric_triangle(cfu_vec3(0.2, 0.3, 5), cfu_zero3(), cfu_vec3(1, 0, 0), cfu_vec3(0, 1, 0), w));
    cft_assert_near(w[0], 0.5, 1e-15, 0);
    cft_assert_near(w[1], 0.2, 1e-15, 0);
    cft_assert_near(w[2], 0.3, 1e-15, 0);
    cft_assert_ok(cf_closest_edge_edge(cfu_vec3(-1, 0, 0), cfu_vec3(1, 0, 0), cfu_vec3(0, -1, 1),
                                       cfu_vec3(0, 1, 1), &s, &t));
    cft_assert_near(s, 0.5, 1e-15, 0);
    cft_assert_near(t, 0.5, 1e-15, 0);
    /* parallel segments overlapping on x in [1, 2] (every pair of the overlap is closest): the
       spec's choice, s = 0, then the best t for a0 (-0.5, clamped to 0), then the best s for b0:
       (s, t) = (0.5, 0); starting from s = 1 would give (1, 0.5) */
    cft_assert_ok(cf_closest_edge_edge(cfu_vec3(0, 0, 0), cfu_vec3(2, 0, 0), cfu_vec3(1, 1, 0), cfu_vec3(3, 1, 0), &s, &t));
    cft_assert_near(s, 0.5, 1e-15, 0);
    cft_assert_near(t, 0.0, 1e-15, 0);
    /* nearly parallel is not parallel: edges at an angle of 1e-6 (|e_A x e_B|^2 = 1e-12
       |e_A|^2 |e_B|^2, above the spec's 1e-14) crossing 0.5 apart have the normal z, accurate to
       about 1e-10, and phi = 0.5: a contact, not CF_BAD_INPUT */
    {
        const cfVec3 xs[4] = {{-1, 0, 0}, {1, 0, 0}, {-1, -1e-6, 0.5}, {1, 1e-6, 0.5}};
        cfSoftContact c;
        cft_assert_ok(cf_soft_contact_edge_edge(xs, 0, 1, 2, 3, &c));
        cft_assert_vec3_near(c.n, cfu_vec3(0, 0, 1), 1e-9);
        cft_assert_near(c.phi, 0.5, 1e-9, 0);
    }
}
END_TEST

START_TEST(ch02_4_barycentric_reproduces_point)
{
    cfRng rng;
    cf_rng_seed(&rng, 241);
    for (int k = 0; k < 2000; ++k) {
        cfVec3 a = cf_rng_vec3(&rng, -1, 1), b = cf_rng_vec3(&rng, -1, 1), c = cf_rng_vec3(&rng, -1, 1);
        cfVec3 m = cfu_cross(cfu_sub(b, a), cfu_sub(c, a));
        if (cfu_norm(m) < 1e-3) continue;
        m = cfu_normalize(m);
        /* a point in the plane, inside or outside, lifted off the plane by h */
        double u = cf_rng_range(&rng, -0.5, 1.5), v = cf_rng_range(&rng, -0.5, 1.5),
               h = cf_rng_range(&rng, -1, 1);
        cfVec3 inplane = cfu_add(a, cfu_add(cfu_scale(u, cfu_sub(b, a)), cfu_scale(v, cfu_sub(c, a))));
        double w[3];
        cft_assert_ok(cf_barycentric_triangle(cfu_mul_add(inplane, h, m), a, b, c, w));
        cft_assert_near(w[0] + w[1] + w[2], 1.0, 1e-13, 0);
        cfVec3 back = cfu_add(cfu_add(cfu_scale(w[0], a), cfu_scale(w[1], b)), cfu_scale(w[2], c));
        cft_assert_vec3_near(back, inplane, 1e-12);
        cft_assert_near(w[1], u, 1e-11, 0);
        cft_assert_near(w[2], v, 1e-11, 0);
    }
    /* each vertex has weight 1 on itself */
    double w[3];
    cfVec3 a = cfu_vec3(0, 0, 1), b = cfu_vec3(2, 0, 1), c = cfu_vec3(0, 3, 1);
    cft_assert_ok(cf_barycentric_triangle(b, a, b, c, w));
    cft_assert_near(w[0], 0.0, 1e-15, 0);
    cft_assert_near(w[1], 1.0, 1e-15, 0);
    cft_assert_near(w[2], 0.0, 1e-15, 0);
}
END_TEST

/* squared distance of the segment points for (s, t) */
static double seg_dist2(cfVec3 a0, cfVec3 a1, cfVec3 b0, cfVec3 b1, double s, double t)
{
    cfVec3 pa = cfu_mul_add(a0, s, cfu_sub(a1, a0)), pb = cfu_mul_add(b0, t, cfu_sub(b1, b0));
    return cfu_norm2(cfu_sub(pa, pb));
}

START_TEST(ch02_4_edge_edge_optimal)
{
    /* the returned (s, t) is optimal: no point of a fine grid is closer, and the optimality
       conditions of the box-constrained problem hold (zero slope inside, outward slope at a bound) */
    cfRng rng;
    cf_rng_seed(&rng, 242);
    for (int k = 0; k < 300; ++k) {
        cfVec3 a0 = cf_rng_vec3(&rng, -1, 1), a1 = cf_rng_vec3(&rng, -1, 1);
        cfVec3 b0 = cf_rng_vec3(&rng, -1, 1), b1 = cf_rng_vec3(&rng, -1, 1);
        if (k % 5 == 0)
            b1 = cfu_add(b0, cfu_scale(cf_rng_range(&rng, -2, 2), cfu_sub(a1, a0))); /* parallel */
        if (cfu_norm(cfu_sub(b1, b0)) < 1e-3 || cfu_norm(cfu_sub(a1, a0)) < 1e-3) continue;
        double s, t;
        cft_assert_ok(cf_closest_edge_edge(a0, a1, b0, b1, &s, &t));
        ck_assert(s >= 0.0 && s <= 1.0 && t >= 0.0 && t <= 1.0);
        double best = seg_dist2(a0, a1, b0, b1, s, t);
        for (int i = 0; i <= 50; ++i)
            for (int j = 0; j <= 50; ++j)
                cft_assert_at(best <= seg_dist2(a0, a1, b0, b1, i / 50.0, j / 50.0) + 1e-12, "i = %d, j = %d", i, j);
        cfVec3 diff = cfu_sub(cfu_mul_add(a0, s, cfu_sub(a1, a0)), cfu_mul_add(b0, t, cfu_sub(b1, b0)));
        double gs = cfu_dot(diff, cfu_sub(a1, a0)), gt = -cfu_dot(diff, cfu_sub(b1, b0));
        if (s > 1e-12 && s < 1 - 1e-12) cft_assert_near(gs, 0.0, 1e-10, 0);
        if (s <= 1e-12) ck_assert(gs >= -1e-10);
        if (s >= 1 - 1e-12) ck_assert(gs <= 1e-10);
        if (t > 1e-12 && t < 1 - 1e-12) cft_assert_near(gt, 0.0, 1e-10, 0);
        if (t <= 1e-12) ck_assert(gt >= -1e-10);
        if (t >= 1 - 1e-12) ck_assert(gt <= 1e-10);
    }
}
END_TEST

/* a random node cloud with a vertex above a triangle and two crossing edges */
static void soft_points(cfRng *rng, cfVec3 *x)
{
    cfMat3 R = cfu_quat_to_mat3(cf_rng_quat(rng));
    cfVec3 o = cf_rng_vec3(rng, -1, 1);
    /* a triangle (0, 1, 2), a vertex above it (3), and edges 4-5 and 3-6 passing each other */
    const cfVec3 local[7] = {{0, 0, 0},       {1, 0, 0},       {0, 1, 0},       {0.3, 0.3, 0.2},
                             {-0.5, 0.1, 0.4}, {0.6, 0.2, 0.4}, {0.1, -0.5, 0.6}};
    for (int i = 0; i < 7; ++i)
        x[i] = cfu_add(o, cfu_mat3_mul_vec(R, cfu_add(local[i], cf_rng_vec3(rng, -0.05, 0.05))));
}

/* J u for a soft contact with node velocities v */
static void soft_ju(const cfSoftContact *c, const cfVec3 *v, double out[3])
{
    double Ja[CF_SOFT_CONTACT_NODES][9], Jb[CF_SOFT_CONTACT_NODES][9];
    cft_assert_ok(cf_soft_contact_jacobian(c, Ja, Jb));
    for (int r = 0; r < 3; ++r) {
        out[r] = 0.0;
        for (int k = 0; k < c->na; ++k)
            out[r] += cfu_dot(cfu_vec3(Ja[k][3 * r], Ja[k][3 * r + 1], Ja[k][3 * r + 2]), v[c->node_a[k]]);
        for (int k = 0; k < c->nb; ++k)
            out[r] += cfu_dot(cfu_vec3(Jb[k][3 * r], Jb[k][3 * r + 1], Jb[k][3 * r + 2]), v[c->node_b[k]]);
    }
}

/* a contact with weights and frame given directly (no ch02.2 or the contact builders needed) */
static cfSoftContact soft_contact_manual(cfRng *rng, int na, int nb)
{
    cfSoftContact c;
    memset(&c, 0, sizeof c);
    c.na = na, c.nb = nb;
    for (int side = 0; side < 2; ++side) {
        int m = side == 0 ? na : nb;
        double sum = 0.0, *w = side == 0 ? c.w_a : c.w_b;
        int *node = side == 0 ? c.node_a : c.node_b;
        for (int k = 0; k < m; ++k) {
            w[k] = cf_rng_range(rng, 0.05, 1.0);
            sum += w[k];
            node[k] = side * 4 + k;
        }
        for (int k = 0; k < m; ++k) w[k] /= sum;
    }
    cfMat3 R = cfu_quat_to_mat3(cf_rng_quat(rng));
    c.n = cfu_mat3_col(R, 0), c.t = cfu_mat3_col(R, 1), c.b = cfu_mat3_col(R, 2);
    return c;
}

START_TEST(ch02_4_jacobian_relative_velocity)
{
    /* J u = C^T (velocity of p_B - velocity of p_A), the material points moved by central
       differences of the interpolated node positions; a uniform translation gives zero */
    cfRng rng;
    cf_rng_seed(&rng, 243);
    const double d = 1e-6;
    for (int k = 0; k < 500; ++k) {
        cfSoftContact c = soft_contact_manual(&rng, 1 + k % 4, k % 5);
        cfVec3 x[8], v[8];
        for (int i = 0; i < 8; ++i) x[i] = cf_rng_vec3(&rng, -1, 1), v[i] = cf_rng_vec3(&rng, -2, 2);
        double ju[3];
        soft_ju(&c, v, ju);
        cfVec3 dpa = cfu_zero3(), dpb = cfu_zero3();
        for (int m = 0; m < c.na; ++m) {
            cfVec3 xp = cfu_mul_add(x[c.node_a[m]], d, v[c.node_a[m]]),
                   xm = cfu_mul_add(x[c.node_a[m]], -d, v[c.node_a[m]]);
            dpa = cfu_add(dpa, cfu_scale(c.w_a[m] * 0.5 / d, cfu_sub(xp, xm)));
        }
        for (int m = 0; m < c.nb; ++m) {
            cfVec3 xp = cfu_mul_add(x[c.node_b[m]], d, v[c.node_b[m]]),
                   xm = cfu_mul_add(x[c.node_b[m]], -d, v[c.node_b[m]]);
            dpb = cfu_add(dpb, cfu_scale(c.w_b[m] * 0.5 / d, cfu_sub(xp, xm)));
        }
        cfVec3 rel = cfu_sub(dpb, dpa);
        cft_assert_near(ju[0], cfu_dot(c.n, rel), 1e-8, 0);
        cft_assert_near(ju[1], cfu_dot(c.t, rel), 1e-8, 0);
        cft_assert_near(ju[2], cfu_dot(c.b, rel), 1e-8, 0);
        /* uniform translation of every node: zero when both sides have nodes (weights sum to 1) */
        if (c.na > 0 && c.nb > 0) {
            cfVec3 vu = cf_rng_vec3(&rng, -3, 3), vv[8];
            for (int i = 0; i < 8; ++i) vv[i] = vu;
            soft_ju(&c, vv, ju);
            for (int r = 0; r < 3; ++r) cft_assert_near_at(ju[r], 0.0, 1e-13, 0, "r = %d", r);
        }
    }
}
END_TEST

START_TEST(ch02_4_contacts_from_geometry)
{
    /* vertex-triangle and edge-edge contacts built from positions: weights reproduce p, the
       normal row of J is the gradient of phi (central differences of the rebuilt contact), and
       a rigid rotation of every node about the contact point of a touching pair gives J u = 0 */
    cfRng rng;
    cf_rng_seed(&rng, 244);
    const double d = 1e-6;
    for (int k = 0; k < 300; ++k) {
        cfVec3 x[7];
        soft_points(&rng, x);
        for (int kind = 0; kind < 2; ++kind) {
            cfSoftContact c;
            if (kind == 0)
                cft_assert_ok(cf_soft_contact_vertex_triangle(x, 3, 0, 1, 2, &c));
            else
                cft_assert_ok(cf_soft_contact_edge_edge(x, 4, 5, 3, 6, &c));
            check_frame(c.n, c.t, c.b);
            cfVec3 pa = cfu_zero3(), pb = cfu_zero3();
            double sa = 0.0, sb = 0.0;
            for (int m = 0; m < c.na; ++m) pa = cfu_mul_add(pa, c.w_a[m], x[c.node_a[m]]), sa += c.w_a[m];
            for (int m = 0; m < c.nb; ++m) pb = cfu_mul_add(pb, c.w_b[m], x[c.node_b[m]]), sb += c.w_b[m];
            cft_assert_near(sa, 1.0, 1e-14, 0);
            cft_assert_near(sb, 1.0, 1e-14, 0);
            cft_assert_vec3_near(c.p, pa, 1e-13);
            cft_assert_near(c.phi, cfu_dot(c.n, cfu_sub(pb, pa)), 1e-13, 0);
            ck_assert(c.phi > 0.0);
            /* the closest points are connected along the normal */
            cft_assert_near(cfu_norm(cfu_cross(cfu_sub(pb, pa), c.n)), 0.0, 1e-12, 0);
            /* n row of J = d phi / d x, node by node */
            double Ja[CF_SOFT_CONTACT_NODES][9], Jb[CF_SOFT_CONTACT_NODES][9];
            cft_assert_ok(cf_soft_contact_jacobian(&c, Ja, Jb));
            for (int side = 0; side < 2; ++side) {
                int m = side == 0 ? c.na : c.nb;
                for (int q = 0; q < m; ++q) {
                    int node = side == 0 ? c.node_a[q] : c.node_b[q];
                    for (int i = 0; i < 3; ++i) {
                        cfVec3 xs[7];
                        memcpy(xs, x, sizeof xs);
                        cfSoftContact cp, cm;
                        xs[node] = cfu_mul_add(x[node], d, cfu_vec3(i == 0, i == 1, i == 2));
                        if (kind == 0)
                            cft_assert_ok(cf_soft_contact_vertex_triangle(xs, 3, 0, 1, 2, &cp));
                        else
                            cft_assert_ok(cf_soft_contact_edge_edge(xs, 4, 5, 3, 6, &cp));
                        xs[node] = cfu_mul_add(x[node], -d, cfu_vec3(i == 0, i == 1, i == 2));
                        if (kind == 0)
                            cft_assert_ok(cf_soft_contact_vertex_triangle(xs, 3, 0, 1, 2, &cm));
                        else
                            cft_assert_ok(cf_soft_contact_edge_edge(xs, 4, 5, 3, 6, &cm));
                        double fd = (cp.phi - cm.phi) / (2 * d);
                        double jn = side == 0 ? Ja[q][i] : Jb[q][i];
                        cft_assert_near(jn, fd, 1e-7, 0);
                    }
                }
            }
            /* move B's point onto A's (touching) and rotate everything about it */
            cfVec3 xt[7], v[7];
            memcpy(xt, x, sizeof xt);
            for (int m = 0; m < c.nb; ++m) xt[c.node_b[m]] = cfu_mul_add(xt[c.node_b[m]], -c.phi, c.n);
            cfVec3 w = cf_rng_vec3(&rng, -2, 2), v0 = cf_rng_vec3(&rng, -1, 1);
            for (int i = 0; i < 7; ++i) v[i] = cfu_add(v0, cfu_cross(w, cfu_sub(xt[i], c.p)));
            double ju[3];
            soft_ju(&c, v, ju);
            for (int r = 0; r < 3; ++r) cft_assert_near_at(ju[r], 0.0, 1e-12, 0, "r = %d", r);
        }
    }
    /* a vertex over a corner of the triangle: the row reduces to node against node */
    cfVec3 y[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0.5}};
    cfSoftContact c;
    cft_assert_ok(cf_soft_contact_vertex_triangle(y, 3, 0, 1, 2, &c));
    cft_assert_near(c.w_a[0], 1.0, 1e-15, 0);
    cft_assert_near(c.w_a[1], 0.0, 1e-15, 0);
    cft_assert_near(c.w_a[2], 0.0, 1e-15, 0);
    cft_assert_near(c.phi, 0.5, 1e-15, 0);
    cft_assert_vec3_near(c.n, cfu_vec3(0, 0, 1), 1e-15);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch02.5 Delassus operator                                                                    */

START_TEST(ch02_5_worked_examples)
{
    /* a contact at the centre of mass: W = I/m, whatever the inertia and the frame */
    cfRng rng;
    cf_rng_seed(&rng, 250);
    cfRigidBody b = random_box(&rng);
    cfContact c = make_contact(-1, 0, b.x, cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), 0.5);
    random_frame(&rng, &c);
    cfBsr W;
    cft_assert_ok(cf_delassus_rigid(&b, 1, &c, 1, &W));
    cfDense D = bsr_dense(&W);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            cft_assert_near_at(*cf_dense_at(&D, i, j), i == j ? 1.0 / b.mass : 0.0, 1e-14, 0, "i = %d, j = %d", i, j);
    cf_dense_free(&D);
    cf_bsr_free(&W);
    /* a solid sphere on the ground, touching at its lowest point: diag(1, 7/2, 7/2)/m */
    const double m = 2.0, R = 0.5;
    cfRigidBody s = make_body(cf_shape_sphere(R), m);
    s.x = cfu_vec3(0.3, -0.2, R);
    cfRigidBody ground = make_fixed(cf_shape_plane(cfu_vec3(0, 0, 1), 0.0));
    cfRigidBody bodies[2] = {ground, s};
    c = make_contact(0, 1, cfu_vec3(0.3, -0.2, 0), cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), 0.5);
    cft_assert_ok(cf_delassus_rigid(bodies, 2, &c, 1, &W));
    D = bsr_dense(&W);
    const double want[3] = {1.0 / m, 3.5 / m, 3.5 / m};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) cft_assert_near_at(*cf_dense_at(&D, i, j), i == j ? want[i] : 0.0, 1e-14, 0,
                                                       "i = %d, j = %d", i, j);
    cf_dense_free(&D);
    cf_bsr_free(&W);
}
END_TEST

/* a random scene: 5 bodies (body 2 fixed) and contacts between random pairs, the environment
   (-1) included; every contact gets a random frame */
enum { SCENE_BODIES = 5, SCENE_CONTACTS = 9 };
static void random_scene(cfRng *rng, cfRigidBody *bodies, cfContact *contacts)
{
    for (int i = 0; i < SCENE_BODIES; ++i) bodies[i] = random_box(rng);
    bodies[2] = make_fixed(cf_shape_box(cfu_vec3(1, 1, 1)));
    bodies[2].x = cf_rng_vec3(rng, -1, 1);
    const int pairs[SCENE_CONTACTS][2] = {{0, 1}, {1, 0},  {-1, 0}, {2, 3}, {3, 4},
                                          {2, 4}, {4, -1}, {0, 3},  {-1, 2}};
    for (int a = 0; a < SCENE_CONTACTS; ++a) {
        contacts[a] = make_contact(pairs[a][0], pairs[a][1], cf_rng_vec3(rng, -2, 2), cfu_vec3(0, 0, 1),
                                   cfu_vec3(1, 0, 0), cf_rng_range(rng, 0, 1));
        random_frame(rng, &contacts[a]);
    }
}

/* dense M^-1 of all bodies (6 per body) */
static cfDense dense_minv(const cfRigidBody *bodies, int nb)
{
    cfDense M;
    ck_assert(cf_dense_init(&M, 6 * nb, 6 * nb) == CF_OK);
    for (int k = 0; k < nb; ++k) {
        if (bodies[k].fixed) continue;
        for (int i = 0; i < 3; ++i) {
            *cf_dense_at(&M, 6 * k + i, 6 * k + i) = bodies[k].inv_mass;
            for (int j = 0; j < 3; ++j)
                *cf_dense_at(&M, 6 * k + 3 + i, 6 * k + 3 + j) = bodies[k].inv_inertia_world.m[i][j];
        }
    }
    return M;
}

START_TEST(ch02_5_equals_dense_reference)
{
    cfRng rng;
    cf_rng_seed(&rng, 251);
    for (int rep = 0; rep < 20; ++rep) {
        cfRigidBody bodies[SCENE_BODIES];
        cfContact contacts[SCENE_CONTACTS];
        random_scene(&rng, bodies, contacts);
        cfBsr W, J;
        cft_assert_ok(cf_delassus_rigid(bodies, SCENE_BODIES, contacts, SCENE_CONTACTS, &W));
        cft_assert_ok(cf_rigid_jacobian_bsr(bodies, SCENE_BODIES, contacts, SCENE_CONTACTS, &J));
        cfDense Jd = bsr_dense(&J), Minv = dense_minv(bodies, SCENE_BODIES), MJt, Wref, Wd = bsr_dense(&W);
        cfDense Jt;
        ck_assert(cf_dense_init(&Jt, Jd.cols, Jd.rows) == CF_OK);
        for (int i = 0; i < Jd.rows; ++i)
            for (int j = 0; j < Jd.cols; ++j) *cf_dense_at(&Jt, j, i) = *cf_dense_at(&Jd, i, j);
        memset(&MJt, 0, sizeof MJt);
        memset(&Wref, 0, sizeof Wref);
        ck_assert(cf_dense_mul(&Minv, &Jt, &MJt) == CF_OK);
        ck_assert(cf_dense_mul(&Jd, &MJt, &Wref) == CF_OK);
        double scale = dense_max_abs(&Wref);
        for (int i = 0; i < Wref.rows * Wref.cols; ++i) cft_assert_near_at(Wd.a[i], Wref.a[i], 1e-12 * scale, 0,
                                                                           "i = %d", i);
        cf_dense_free(&Jd);
        cf_dense_free(&Jt);
        cf_dense_free(&Minv);
        cf_dense_free(&MJt);
        cf_dense_free(&Wref);
        cf_dense_free(&Wd);
        cf_bsr_free(&W);
        cf_bsr_free(&J);
    }
}
END_TEST

START_TEST(ch02_5_symmetric_psd_pattern)
{
    cfRng rng;
    cf_rng_seed(&rng, 252);
    for (int rep = 0; rep < 20; ++rep) {
        cfRigidBody bodies[SCENE_BODIES];
        cfContact contacts[SCENE_CONTACTS];
        random_scene(&rng, bodies, contacts);
        cfBsr W;
        cft_assert_ok(cf_delassus_rigid(bodies, SCENE_BODIES, contacts, SCENE_CONTACTS, &W));
        ck_assert_int_eq(W.brows, SCENE_CONTACTS);
        ck_assert_int_eq(W.br, 3);
        ck_assert_int_eq(W.bc, 3);
        /* stored blocks: the diagonal, and pairs sharing a dynamic body, ascending columns */
        for (int i = 0; i < SCENE_CONTACTS; ++i) {
            int e = W.rowptr[i];
            for (int j = 0; j < SCENE_CONTACTS; ++j) {
                int bi[2] = {contacts[i].body_a, contacts[i].body_b},
                    bj[2] = {contacts[j].body_a, contacts[j].body_b};
                bool share = false;
                for (int s = 0; s < 2; ++s)
                    for (int t = 0; t < 2; ++t)
                        if (bi[s] >= 0 && bi[s] == bj[t] && !bodies[bi[s]].fixed) share = true;
                if (share || i == j) {
                    ck_assert_msg(e < W.rowptr[i + 1] && W.colidx[e] == j,
                                  "block (%d, %d) missing or out of order", i, j);
                    ++e;
                }
            }
            ck_assert_msg(e == W.rowptr[i + 1], "row %d stores blocks that couple nothing", i);
        }
        cfDense D = bsr_dense(&W);
        double scale = dense_max_abs(&D), lmin, lmax;
        int rank;
        cft_assert_near(cf_dense_asymmetry(&D), 0.0, 1e-13 * scale, 0);
        sym_spectrum(&D, &lmin, &lmax, &rank, 1e-10);
        ck_assert_msg(lmin >= -1e-12 * lmax, "W has a negative eigenvalue %g", lmin);
        /* 4 dynamic bodies: rank(W) <= 24 < 27 */
        ck_assert_int_le(rank, 24);
        cf_dense_free(&D);
        cf_bsr_free(&W);
    }
}
END_TEST

/* a box on the fixed ground with contacts at its four bottom corners */
static void box_on_ground(cfRigidBody *bodies, cfContact *contacts, int n_contacts, double mu)
{
    cfVec3 half = cfu_vec3(0.5, 0.3, 0.2);
    bodies[0] = make_fixed(cf_shape_plane(cfu_vec3(0, 0, 1), 0.0));
    bodies[1] = make_body(cf_shape_box(half), 2.0);
    bodies[1].x = cfu_vec3(0, 0, half.z);
    cf_rigid_update_inertia(&bodies[1]);
    for (int a = 0; a < n_contacts; ++a) {
        int k = a % 4;
        cfVec3 p = cfu_vec3(k & 1 ? half.x : -half.x, k & 2 ? half.y : -half.y, 0.0);
        contacts[a] = make_contact(0, 1, p, cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), mu);
    }
}

START_TEST(ch02_5_box_four_corners_rank)
{
    /* one body has 6 degrees of freedom: the 12 x 12 W of four corner contacts has rank 6 */
    cfRigidBody bodies[2];
    cfContact contacts[4];
    box_on_ground(bodies, contacts, 4, 0.5);
    bodies[1].q = cfu_quat_from_axis_angle(cfu_vec3(0, 0, 1), 0.3); /* the corners move with it */
    for (int a = 0; a < 4; ++a)
        contacts[a].p =
            cfu_add(bodies[1].x, cfu_quat_rotate(bodies[1].q, cfu_sub(contacts[a].p, bodies[1].x)));
    cf_rigid_update_inertia(&bodies[1]);
    cfBsr W;
    cft_assert_ok(cf_delassus_rigid(bodies, 2, contacts, 4, &W));
    cfDense D = bsr_dense(&W);
    ck_assert_int_eq(D.rows, 12);
    double lmin, lmax;
    int rank;
    sym_spectrum(&D, &lmin, &lmax, &rank, 1e-10);
    ck_assert_int_eq(rank, 6);
    ck_assert(lmin > -1e-12 * lmax);
    /* every pair of corners shares the box: all 16 blocks stored */
    ck_assert_int_eq(W.rowptr[4], 16);
    cf_dense_free(&D);
    cf_bsr_free(&W);
}
END_TEST

START_TEST(ch02_5_problem_and_impulses)
{
    /* q = J u is the contact velocity C^T (v_B(p) - v_A(p)) of the current state, mu is copied,
       and applying impulses lambda changes the contact velocities to W lambda + q */
    cfRng rng;
    cf_rng_seed(&rng, 253);
    for (int rep = 0; rep < 20; ++rep) {
        cfRigidBody bodies[SCENE_BODIES];
        cfContact contacts[SCENE_CONTACTS];
        random_scene(&rng, bodies, contacts);
        cfFrictionProblem p;
        cft_assert_ok(cf_friction_problem_rigid(bodies, SCENE_BODIES, contacts, SCENE_CONTACTS, &p));
        ck_assert_int_eq(p.nc, SCENE_CONTACTS);
        for (int a = 0; a < SCENE_CONTACTS; ++a) {
            const cfContact *c = &contacts[a];
            cfVec3 va = c->body_a >= 0 ? cf_rigid_point_velocity(&bodies[c->body_a], c->p) : cfu_zero3();
            cfVec3 vb = c->body_b >= 0 ? cf_rigid_point_velocity(&bodies[c->body_b], c->p) : cfu_zero3();
            if (c->body_a >= 0 && bodies[c->body_a].fixed) va = cfu_zero3();
            if (c->body_b >= 0 && bodies[c->body_b].fixed) vb = cfu_zero3();
            cfVec3 rel = cfu_sub(vb, va);
            cft_assert_near_at(p.q[3 * a], cfu_dot(c->n, rel), 1e-12, 0, "a = %d", a);
            cft_assert_near_at(p.q[3 * a + 1], cfu_dot(c->t, rel), 1e-12, 0, "a = %d", a);
            cft_assert_near_at(p.q[3 * a + 2], cfu_dot(c->b, rel), 1e-12, 0, "a = %d", a);
            cft_assert_near_at(p.mu[a], c->mu, 0.0, 0, "a = %d", a);
        }
        double lam[3 * SCENE_CONTACTS], want[3 * SCENE_CONTACTS];
        for (int i = 0; i < 3 * SCENE_CONTACTS; ++i) lam[i] = cf_rng_range(&rng, -1, 1);
        cf_fc_velocity(&p, lam, want);
        cft_assert_ok(cf_rigid_apply_impulses(bodies, SCENE_BODIES, contacts, SCENE_CONTACTS, lam));
        cfFrictionProblem after;
        cft_assert_ok(cf_friction_problem_rigid(bodies, SCENE_BODIES, contacts, SCENE_CONTACTS, &after));
        for (int i = 0; i < 3 * SCENE_CONTACTS; ++i) cft_assert_near_at(after.q[i], want[i], 1e-11, 1e-12, "i = %d", i);
        cf_fc_free(&p);
        cf_fc_free(&after);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch02.6 friction formulations                                                                */

START_TEST(ch02_6_polyhedral_structure)
{
    /* sizes, A - A^T = C - C^T, the symmetric part is D W D^T (PSD), b = (q_n, q_d, 0) */
    cfRng rng;
    cf_rng_seed(&rng, 261);
    for (int rep = 0; rep < 10; ++rep) {
        int nc = 1 + rep % 3, k = rep % 2 ? 6 : 4;
        cfFrictionProblem fc = fc_random(&rng, nc, 2 * nc);
        cfLcp lcp;
        cft_assert_ok(cf_friction_polyhedral_lcp(&fc, k, &lcp));
        int n = nc * (k + 2);
        ck_assert_int_eq(lcp.n, n);
        cfDense A = csr_dense(&lcp.A), Wd = bsr_dense(&fc.W);
        ck_assert_int_eq(A.rows, n);
        /* D: global row -> (contact, weights on n, t, b) */
        double(*Dm)[4] = calloc((size_t)n, sizeof *Dm);
        ck_assert(Dm);
        for (int a = 0; a < nc; ++a) {
            Dm[a][0] = a, Dm[a][1] = 1;
            for (int i = 0; i < k; ++i) {
                double th = 2 * CF_PI * i / k;
                Dm[nc + a * k + i][0] = a, Dm[nc + a * k + i][2] = cos(th), Dm[nc + a * k + i][3] = sin(th);
            }
        }
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double got = *cf_dense_at(&A, i, j), want = 0.0;
                bool ri = i < nc + nc * k, rj = j < nc + nc * k;
                if (ri && rj) {
                    int a = (int)Dm[i][0], c = (int)Dm[j][0];
                    for (int r = 0; r < 3; ++r)
                        for (int s = 0; s < 3; ++s)
                            want += Dm[i][1 + r] * *cf_dense_at(&Wd, 3 * a + r, 3 * c + s) * Dm[j][1 + s];
                } else if (ri && !rj) {
                    int a = j - nc - nc * k; /* E: direction rows of contact a, slack column a */
                    want = (i >= nc && (i - nc) / k == a) ? 1.0 : 0.0;
                } else if (!ri && rj) {
                    int a = i - nc - nc * k; /* mu on the normal, -1 on the directions */
                    if (j == a) want = fc.mu[a];
                    if (j >= nc && (j - nc) / k == a) want = -1.0;
                }
                cft_assert_near(got, want, 1e-12, 0);
            }
        for (int a = 0; a < nc; ++a) {
            cft_assert_near_at(lcp.b[a], fc.q[3 * a], 1e-15, 0, "a = %d", a);
            for (int i = 0; i < k; ++i) {
                double th = 2 * CF_PI * i / k;
                cft_assert_near_at(lcp.b[nc + a * k + i], cos(th) * fc.q[3 * a + 1] + sin(th) * fc.q[3 * a + 2],
                                   1e-14, 0, "i = %d, a = %d", i, a);
            }
            cft_assert_near_at(lcp.b[nc + nc * k + a], 0.0, 0.0, 0, "a = %d", a);
        }
        /* the symmetric part restricted to (n, d) is PSD */
        int m = nc + nc * k;
        cfDense S;
        ck_assert(cf_dense_init(&S, m, m) == CF_OK);
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < m; ++j)
                *cf_dense_at(&S, i, j) = 0.5 * (*cf_dense_at(&A, i, j) + *cf_dense_at(&A, j, i));
        double lmin, lmax;
        int rank;
        sym_spectrum(&S, &lmin, &lmax, &rank, 1e-10);
        ck_assert(lmin > -1e-12 * lmax);
        free(Dm);
        cf_dense_free(&S);
        cf_dense_free(&A);
        cf_dense_free(&Wd);
        lcp_release(&lcp);
        cf_fc_free(&fc);
    }
}
END_TEST

/* one step of a particle (m = 1) sliding along x at speed V on the ground, polyhedral LCP with
   k = 4 and the contact tangent rotated by angle rot about n; returns the solution x */
static void polyhedral_particle_step(double V, double mu, double rot, double *x, double *vt, double *vb)
{
    const double h = 0.01;
    cfVec3 t = cfu_vec3(cos(rot), sin(rot), 0), b = cfu_vec3(-sin(rot), cos(rot), 0);
    cfVec3 vfree = cfu_vec3(V, 0, -G * h);
    double q[3] = {vfree.z, cfu_dot(t, vfree), cfu_dot(b, vfree)};
    cfFrictionProblem fc = fc_particle(1.0, q, mu);
    cfLcp lcp;
    cft_assert_ok(cf_friction_polyhedral_lcp(&fc, 4, &lcp));
    ck_assert_int_eq(lcp.n, 6);
    cfDense A = csr_dense(&lcp.A);
    ck_assert_msg(lcp_enumerate(&A, lcp.b, x), "the polyhedral LCP has no solution?");
    /* the particle's velocity after the impulses: v = v_free + lambda_n n + sum lambda_i d_i */
    cfVec3 v = cfu_vec3(vfree.x, vfree.y, vfree.z + x[0]);
    for (int i = 0; i < 4; ++i) {
        double th = 2 * CF_PI * i / 4;
        v = cfu_mul_add(v, x[1 + i], cfu_add(cfu_scale(cos(th), t), cfu_scale(sin(th), b)));
    }
    cft_assert_near(v.z, 0.0, 1e-12, 0); /* resting on the ground: v_n = 0 */
    *vt = v.x;
    *vb = v.y;
    cf_dense_free(&A);
    lcp_release(&lcp);
    cf_fc_free(&fc);
}

START_TEST(ch02_6_polyhedral_sliding_particle)
{
    const double V = 1.0, mu = 0.5, h = 0.01;
    double x[6], vx, vy;
    /* directions +-x, +-y: all friction on -x, beta = the sliding speed after the step */
    polyhedral_particle_step(V, mu, 0.0, x, &vx, &vy);
    cft_assert_near(x[0], G * h, 1e-12, 0); /* lambda_n = m g h */
    cft_assert_near(x[3], mu * G * h, 1e-12, 0); /* direction 2 = -t */
    cft_assert_near(x[1] + x[2] + x[4], 0.0, 1e-12, 0);
    cft_assert_near(x[5], V - mu * G * h, 1e-12, 0); /* beta */
    cft_assert_near(vx, V - mu * G * h, 1e-12, 0);
    cft_assert_near(vy, 0.0, 1e-12, 0);
    /* rotated by 45 degrees: sliding hits an edge of the inscribed square, friction mu lambda_n/sqrt 2 */
    polyhedral_particle_step(V, mu, CF_PI / 4, x, &vx, &vy);
    cft_assert_near(vx, V - mu * G * h / sqrt(2.0), 1e-12, 0);
    cft_assert_near(vy, 0.0, 1e-12, 0);
    cft_assert_near(x[2] + x[3], mu * x[0], 1e-12, 0); /* on the cone's boundary, split over two directions */
    /* slow sliding: the particle sticks, beta = 0 */
    polyhedral_particle_step(0.3 * mu * G * h, mu, 0.2, x, &vx, &vy);
    cft_assert_near(vx, 0.0, 1e-12, 0);
    cft_assert_near(vy, 0.0, 1e-12, 0);
    cft_assert_near(x[5], 0.0, 1e-12, 0);
}
END_TEST

START_TEST(ch02_6_boxed_structure)
{
    cfRng rng;
    cf_rng_seed(&rng, 262);
    int nc = 3;
    cfFrictionProblem fc = fc_random(&rng, nc, 5);
    cfBlcp p;
    cft_assert_ok(cf_friction_boxed_lcp(&fc, &p));
    ck_assert_int_eq(p.n, 3 * nc);
    cfDense A = csr_dense(&p.A), Wd = bsr_dense(&fc.W);
    for (int i = 0; i < 9 * nc * nc; ++i) cft_assert_near_at(A.a[i], Wd.a[i], 0.0, 0, "i = %d", i);
    double x[9];
    for (int i = 0; i < 9; ++i) x[i] = cf_rng_range(&rng, 0.1, 2);
    for (int a = 0; a < nc; ++a) {
        cft_assert_near_at(p.b[3 * a], fc.q[3 * a], 0.0, 0, "a = %d", a);
        cft_assert_near_at(p.b[3 * a + 1], fc.q[3 * a + 1], 0.0, 0, "a = %d", a);
        cft_assert_near_at(p.b[3 * a + 2], fc.q[3 * a + 2], 0.0, 0, "a = %d", a);
        double lo, hi;
        cf_blcp_bounds(&p, x, 3 * a, &lo, &hi);
        ck_assert(lo == 0.0 && hi == INFINITY);
        for (int r = 1; r < 3; ++r) {
            cft_assert_int_at(p.findex[3 * a + r], ==, 3 * a, "a = %d, r = %d", a, r);
            cf_blcp_bounds(&p, x, 3 * a + r, &lo, &hi);
            cft_assert_near(hi, fc.mu[a] * x[3 * a], 1e-15, 0);
            cft_assert_near(lo, -fc.mu[a] * x[3 * a], 1e-15, 0);
        }
    }
    cf_dense_free(&A);
    cf_dense_free(&Wd);
    cf_blcp_free(&p);
    cf_fc_free(&fc);
}
END_TEST

/* one BLCP step of a particle (m) with free velocity vfree on the ground n = z and tangents t, b */
static cfVec3 blcp_particle_step(double m, cfVec3 vfree, cfVec3 t, double mu, double lam[3])
{
    cfVec3 b = cfu_cross(cfu_vec3(0, 0, 1), t);
    double q[3] = {vfree.z, cfu_dot(t, vfree), cfu_dot(b, vfree)};
    cfFrictionProblem fc = fc_particle(m, q, mu);
    cfBlcp p;
    cft_assert_ok(cf_friction_boxed_lcp(&fc, &p));
    blcp_pgs(&p, lam);
    cf_blcp_free(&p);
    cf_fc_free(&fc);
    return cfu_add(vfree, cfu_scale(1.0 / m, cfu_vec3(lam[1] * t.x + lam[2] * b.x,
                                                      lam[1] * t.y + lam[2] * b.y, lam[0])));
}

START_TEST(ch02_6_sliding_block_stops)
{
    /* m = 1, mu = 0.5, g = 9.81, h = 0.01, v0 = 2: the speed drops by mu g h per step and the
       block stops in step 41; the distance is h sum_k (v0 - k mu g h) over the 40 moving steps */
    const double m = 1.0, mu = 0.5, h = 0.01, v0 = 2.0;
    cfVec3 v = cfu_vec3(v0, 0, 0);
    double x = 0.0, lam[3];
    int steps = 0;
    while (v.x > 0.0 && steps < 100) {
        v = blcp_particle_step(m, cfu_vec3(v.x, v.y, v.z - G * h), cfu_vec3(1, 0, 0), mu, lam);
        cft_assert_near(v.z, 0.0, 1e-14, 0);
        cft_assert_near(lam[0], m * G * h, 1e-14, 0);
        x += h * v.x;
        ++steps;
        if (v.x > 0.0) cft_assert_near(v.x, v0 - steps * mu * G * h, 1e-12, 0);
    }
    ck_assert_int_eq(steps, 41);
    cft_assert_near(v.x, 0.0, 1e-14, 0);
    double want = 0.0;
    for (int k = 1; k <= 40; ++k) want += h * (v0 - k * mu * G * h);
    cft_assert_near(x, want, 1e-12, 0);
    cft_assert_near(x, 0.3978, 1e-4, 0); /* discrete, O(h) = v0 h / 2 short of v0^2/(2 mu g) = 0.4077 */
}
END_TEST

START_TEST(ch02_6_box_anisotropy_on_incline)
{
    /* gravity tilted by theta (an incline): with t along the slope the particle sticks iff
       tan(theta) <= mu; with the box rotated 45 degrees about n it sticks up to sqrt(2) mu */
    const double m = 1.0, mu = 0.5, h = 0.01;
    const double ratios[4] = {0.95, 1.2, 1.4, 1.45};
    for (int k = 0; k < 4; ++k) {
        double th = atan(ratios[k] * mu), lam[3];
        cfVec3 vfree = cfu_vec3(G * sin(th) * h, 0, -G * cos(th) * h);
        cfVec3 va = blcp_particle_step(m, vfree, cfu_vec3(1, 0, 0), mu, lam);
        cfVec3 vr = blcp_particle_step(m, vfree, cfu_vec3(sqrt(0.5), sqrt(0.5), 0), mu, lam);
        if (ratios[k] <= 1.0) {
            cft_assert_near(va.x, 0.0, 1e-14, 0);
        } else {
            /* sliding: acceleration g (sin - mu cos) */
            cft_assert_near(va.x, h * G * (sin(th) - mu * cos(th)), 1e-14, 0);
        }
        if (ratios[k] <= sqrt(2.0)) {
            cft_assert_near(cfu_norm(vr), 0.0, 1e-14, 0);
        } else {
            ck_assert(vr.x > 1e-6);
        }
    }
}
END_TEST

START_TEST(ch02_6_ccp_lift_off)
{
    /* W = I (m = 1), q = (-0.1, 1, 0) (h = 0.01, g = 10, sliding at 1), mu = 0.5 */
    const double q[3] = {-0.1, 1.0, 0.0};
    cfFrictionProblem fc = fc_particle(1.0, q, 0.5);
    /* the CCP is the KKT system of min 1/2 r.W r + r.q over K: here r = P_K(-q) */
    double mq[3] = {0.1, -1.0, 0.0}, r[3], u[3];
    cf_cone_project(mq, 0.5, r);
    cft_assert_near(r[0], 0.48, 1e-15, 0);
    cft_assert_near(r[1], -0.24, 1e-15, 0);
    cft_assert_near(cf_ccp_residual(&fc, r), 0.0, 1e-15, 0);
    cf_fc_velocity(&fc, r, u);
    cft_assert_near(u[0], 0.38, 1e-15, 0); /* lift-off */
    cft_assert_near(u[0], 0.5 * hypot(u[1], u[2]), 1e-15, 0); /* u_N = mu |u_T| */
    ck_assert(cf_fc_residual(&fc, r) > 0.1); /* not a Coulomb solution */
    /* the boxed LCP gives the Coulomb solution: no lift-off, and a CCP residual of sqrt(0.1805) */
    cfBlcp p;
    cft_assert_ok(cf_friction_boxed_lcp(&fc, &p));
    double x[3];
    blcp_pgs(&p, x);
    cft_assert_near(x[0], 0.1, 1e-15, 0);
    cft_assert_near(x[1], -0.05, 1e-15, 0);
    cf_fc_velocity(&fc, x, u);
    cft_assert_near(u[0], 0.0, 1e-15, 0);
    cft_assert_near(cf_fc_residual(&fc, x), 0.0, 1e-15, 0);
    cft_assert_near(cf_ccp_residual(&fc, x), sqrt(0.1805), 1e-14, 0);
    /* the residual vanishes exactly on the CCP's certificates: random r in K with u in K* and r.u = 0 */
    cfRng rng;
    cf_rng_seed(&rng, 263);
    for (int k = 0; k < 200; ++k) {
        double z[3] = {cf_rng_range(&rng, -1, 1), cf_rng_range(&rng, -1, 1), cf_rng_range(&rng, -1, 1)},
               pz[3];
        double mu = cf_rng_range(&rng, 0.1, 1.5);
        cf_cone_project(z, mu, pz);
        /* Moreau: r = P_K(z) and u = r - z in K* with r.u = 0; with W = I that is q = u - r = -z */
        double qq[3] = {-z[0], -z[1], -z[2]};
        cfFrictionProblem f2 = fc_particle(1.0, qq, mu);
        cft_assert_near(cf_ccp_residual(&f2, pz), 0.0, 1e-14, 0);
        double bad[3] = {pz[0] + 0.1, pz[1], pz[2]};
        ck_assert(cf_ccp_residual(&f2, bad) > 1e-3);
        cf_fc_free(&f2);
    }
    /* contacts add up in squares: three decoupled particles (W = I), the lift-off one of
       residual sqrt(0.1805) in the middle between two CCP certificates: sqrt(0.1805) */
    {
        double W3[81] = {0}, q3[9], r3[9], mu3[3] = {0.7, 0.5, 0.3};
        for (int i = 0; i < 9; ++i) W3[10 * i] = 1.0;
        const double z0[3] = {0.4, -0.3, 0.2}, z2[3] = {-0.2, 0.5, 0.1};
        for (int i = 0; i < 3; ++i) {
            q3[i] = -z0[i];
            q3[3 + i] = q[i];
            q3[6 + i] = -z2[i];
            r3[3 + i] = x[i];
        }
        cf_cone_project(z0, mu3[0], r3);
        cf_cone_project(z2, mu3[2], r3 + 6);
        cfFrictionProblem f3 = fc_from_dense(3, W3, q3, mu3);
        cft_assert_near(cf_ccp_residual(&f3, r3), sqrt(0.1805), 1e-14, 0);
        /* a non-finite velocity of the last contact (r finite, q not) is seen too: +INFINITY,
           not NaN */
        f3.q[8] = INFINITY;
        ck_assert(cf_ccp_residual(&f3, r3) == INFINITY);
        cf_fc_free(&f3);
    }
    cf_blcp_free(&p);
    cf_fc_free(&fc);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch02.7 stabilization                                                                        */

START_TEST(ch02_7_parameters)
{
    double eps, ups;
    cft_assert_ok(cf_erp_cfm(1.0 / 60, 1e4, 100, &eps, &ups));
    cft_assert_near(eps, 0.225, 1e-15, 0);
    cft_assert_near(ups, 0.625, 1e-15, 0);
    cft_assert_ok(cf_erp_cfm(0.01, 1e5, 1e3, &eps, &ups));
    cft_assert_near(eps, 0.05, 1e-15, 0);
    cft_assert_near(ups, 0.5, 1e-15, 0);
    /* no damping: ERP 1 (the whole error in one step), CFM 1/(h^2 k) */
    cft_assert_ok(cf_erp_cfm(0.01, 1e4, 0.0, &eps, &ups));
    cft_assert_near(ups, 1.0, 1e-15, 0);
    cft_assert_near(eps, 1.0, 1e-15, 0);
    /* no spring: no correction */
    cft_assert_ok(cf_erp_cfm(0.01, 0.0, 50.0, &eps, &ups));
    cft_assert_near(ups, 0.0, 0.0, 0);
    cft_assert_near(eps, 2.0, 1e-15, 0);
}
END_TEST

START_TEST(ch02_7_stabilize_rows)
{
    cfRng rng;
    cf_rng_seed(&rng, 271);
    int nc = 3;
    cfFrictionProblem p = fc_random(&rng, nc, 9), orig = fc_random(&rng, nc, 9);
    /* same data in both */
    cf_vec_copy(9 * p.W.rowptr[nc], p.W.val, orig.W.val);
    cf_vec_copy(3 * nc, p.q, orig.q);
    double phi[3] = {-0.01, 0.02, 0.0}, h = 0.01, eps = 0.3, ups = 0.4;
    cft_assert_ok(cf_stabilize(&p, phi, h, eps, ups));
    cfDense A = bsr_dense(&p.W), B = bsr_dense(&orig.W);
    for (int i = 0; i < 3 * nc; ++i)
        for (int j = 0; j < 3 * nc; ++j) {
            double add = (i == j && i % 3 == 0) ? eps : 0.0;
            cft_assert_near_at(*cf_dense_at(&A, i, j), *cf_dense_at(&B, i, j) + add, 1e-15, 0, "i = %d, j = %d", i, j);
        }
    for (int a = 0; a < nc; ++a) {
        cft_assert_near_at(p.q[3 * a], orig.q[3 * a] + ups * phi[a] / h, 1e-15, 0, "a = %d", a);
        cft_assert_near_at(p.q[3 * a + 1], orig.q[3 * a + 1], 0.0, 0, "a = %d", a);
        cft_assert_near_at(p.q[3 * a + 2], orig.q[3 * a + 2], 0.0, 0, "a = %d", a);
    }
    cf_dense_free(&A);
    cf_dense_free(&B);
    cf_fc_free(&p);
    cf_fc_free(&orig);
}
END_TEST

/* one normal-only step of a particle resting on the ground with gap phi and velocity v:
   stabilized problem, lambda = max(0, -q / W), then v+ and phi+ */
static void stabilized_particle_step(double m, double h, double eps, double ups, double *phi, double *v)
{
    double q[3] = {*v - G * h, 0, 0};
    cfFrictionProblem p = fc_particle(m, q, 0.0);
    cft_assert_ok(cf_stabilize(&p, phi, h, eps, ups));
    double lam = fmax(0.0, -p.q[0] / p.W.val[0]);
    *v = *v - G * h + lam / m;
    *phi += h * *v;
    cf_fc_free(&p);
}

START_TEST(ch02_7_erp_geometric_decay)
{
    /* pure ERP (eps = 0): the penetration shrinks by exactly (1 - ups) per step */
    double phi = -0.01, v = 0.0, ups = 0.2;
    for (int n = 1; n <= 40; ++n) {
        stabilized_particle_step(1.0, 0.01, 0.0, ups, &phi, &v);
        cft_assert_near(phi, -0.01 * pow(1 - ups, n), 1e-16, 1e-12);
    }
    cft_assert_near(-0.01 * pow(0.8, 3), -0.00512, 1e-18, 0);
}
END_TEST

START_TEST(ch02_7_cfm_steady_state)
{
    /* with the spring's eps and ups the rest penetration is the spring's equilibrium -m g / k */
    const double m = 1.0, h = 0.01, k = 1e4, b = 100.0;
    double eps, ups, phi = 0.0, v = 0.0;
    cft_assert_ok(cf_erp_cfm(h, k, b, &eps, &ups));
    for (int n = 0; n < 2000; ++n) stabilized_particle_step(m, h, eps, ups, &phi, &v);
    cft_assert_near(phi, -m * G / k, 1e-12, 0);
    cft_assert_near(v, 0.0, 1e-12, 0);
    /* heavier body, stiffer spring */
    const double m2 = 3.0, k2 = 5e4, b2 = 400.0;
    phi = 0.002, v = -0.1;
    cft_assert_ok(cf_erp_cfm(h, k2, b2, &eps, &ups));
    for (int n = 0; n < 2000; ++n) stabilized_particle_step(m2, h, eps, ups, &phi, &v);
    cft_assert_near(phi, -m2 * G / k2, 1e-12, 0);
}
END_TEST

START_TEST(ch02_7_cfm_regularizes_redundant_rows)
{
    /* W = G G^T from a Jacobian with duplicated rows is singular; the normal block of W + Sigma
       has every eigenvalue >= eps, so Cholesky succeeds */
    cfRng rng;
    cf_rng_seed(&rng, 272);
    const int nc = 4, n = 12, cols = 6;
    double Gm[12 * 6], W[144] = {0}, q[12] = {0}, mu[4] = {0.5, 0.5, 0.5, 0.5}, phi[4] = {0};
    for (int i = 0; i < n * cols; ++i) Gm[i] = cf_rng_range(&rng, -1, 1);
    memcpy(&Gm[9 * cols], &Gm[0], (size_t)(3 * cols) * sizeof Gm[0]); /* contact 3 = contact 0 */
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < cols; ++k) W[i * n + j] += Gm[i * cols + k] * Gm[j * cols + k];
    cfFrictionProblem p = fc_from_dense(nc, W, q, mu);
    const double eps = 1e-3;
    cft_assert_ok(cf_stabilize(&p, phi, 0.01, eps, 0.2));
    cfDense D = bsr_dense(&p.W), Nn, L;
    ck_assert(cf_dense_init(&Nn, nc, nc) == CF_OK);
    for (int a = 0; a < nc; ++a)
        for (int c = 0; c < nc; ++c) *cf_dense_at(&Nn, a, c) = *cf_dense_at(&D, 3 * a, 3 * c);
    double lmin, lmax;
    int rank;
    sym_spectrum(&Nn, &lmin, &lmax, &rank, 1e-12);
    cft_assert_near(lmin, eps, 1e-12, 0); /* the duplicate leaves a zero eigenvalue, shifted to eps */
    cft_assert_ok(cf_dense_cholesky(&Nn, &L));
    cf_dense_free(&L);
    cf_dense_free(&Nn);
    cf_dense_free(&D);
    cf_fc_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch02.8 soft dual form                                                                       */

/* a tet box (2 x 1 x 1 cells) standing on the ground, with contacts at its 4 lowest corner
   nodes (static side A) and one vertex-triangle contact between two of its own nodes; frames
   are set by hand */
static cfSoftBody soft_box(void)
{
    cfSoftBody s;
    cfError err;
    ck_assert_msg(cf_soft_make_tet_box(&s, cfu_vec3(0, 0, 0), cfu_vec3(2, 1, 1), 2, 1, 1, 1000.0, 1e5, 0.3,
                                       false, &err) == CF_OK,
                  "%s", err.msg);
    s.damping_alpha = 0.1;
    s.damping_beta = 0.01;
    for (int i = 0; i < s.n_nodes; ++i) s.v[i] = cfu_vec3(0.1 * i, -0.05 * i, 0.02);
    return s;
}

static int soft_box_contacts(const cfSoftBody *s, cfSoftContact *c)
{
    int nc = 0;
    for (int i = 0; i < s->n_nodes && nc < 4; ++i) {
        cfVec3 x = s->x[i];
        if (x.z == 0.0 && (x.x == 0.0 || x.x == 2.0) && (x.y == 0.0 || x.y == 1.0)) {
            memset(&c[nc], 0, sizeof c[nc]);
            c[nc].na = 0, c[nc].nb = 1, c[nc].node_b[0] = i, c[nc].w_b[0] = 1.0;
            c[nc].p = x, c[nc].n = cfu_vec3(0, 0, 1), c[nc].t = cfu_vec3(1, 0, 0),
            c[nc].b = cfu_vec3(0, 1, 0);
            c[nc].mu = 0.4;
            ++nc;
        }
    }
    ck_assert_int_eq(nc, 4);
    /* a top node against the triangle of three other nodes (self contact) */
    memset(&c[nc], 0, sizeof c[nc]);
    c[nc].na = 3, c[nc].nb = 1;
    c[nc].node_a[0] = 0, c[nc].node_a[1] = 1, c[nc].node_a[2] = 2;
    c[nc].w_a[0] = 0.2, c[nc].w_a[1] = 0.3, c[nc].w_a[2] = 0.5;
    c[nc].node_b[0] = s->n_nodes - 1, c[nc].w_b[0] = 1.0;
    cfMat3 R = cfu_quat_to_mat3(cfu_quat_from_axis_angle(cfu_vec3(1, 1, 0), 0.4));
    c[nc].n = cfu_mat3_col(R, 0), c[nc].t = cfu_mat3_col(R, 1), c[nc].b = cfu_mat3_col(R, 2);
    c[nc].mu = 0.2;
    return nc + 1;
}

START_TEST(ch02_8_equals_dense_reference)
{
    /* A = M + hB + h^2 K recomputed from the stiffness, W = J A^-1 J^T and q = J A^-1 b by dense
       solves */
    cfSoftBody s = soft_box();
    cfSoftContact c[5];
    int nc = soft_box_contacts(&s, c);
    const double h = 0.01;
    cfVec3 g = cfu_vec3(0, 0, -9.81);
    cfSoftDual d;
    cfFrictionProblem fc;
    cft_assert_ok(cf_soft_dual(&s, g, h, c, nc, &d, &fc));
    int n = 3 * s.n_nodes;
    ck_assert_int_eq(d.n, n);
    ck_assert_int_eq(fc.nc, nc);
    /* A against M (1 + h alpha) + (h beta + h^2) K */
    cfTriplets T;
    cfCsr K;
    ck_assert(cf_triplets_init(&T, n, n) == CF_OK);
    ck_assert(cf_soft_stiffness(&s, s.x, &T) == CF_OK);
    ck_assert(cf_csr_from_triplets(&T, &K) == CF_OK);
    cfDense Ad = csr_dense(&d.A), Kd = csr_dense(&K), Jd = csr_dense(&d.J), Wd = bsr_dense(&fc.W);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double want = (h * s.damping_beta + h * h) * *cf_dense_at(&Kd, i, j);
            if (i == j) want += (1 + h * s.damping_alpha) * s.mass[i / 3];
            cft_assert_near_at(*cf_dense_at(&Ad, i, j), want, 1e-9, 1e-12, "i = %d, j = %d", i, j);
        }
    /* X = A^-1 J^T column by column, W = J X */
    int m = 3 * nc;
    double *col = malloc((size_t)n * sizeof *col), *X = malloc((size_t)(n * m) * sizeof *X),
           *uf = malloc((size_t)n * sizeof *uf);
    ck_assert(col && X && uf);
    for (int j = 0; j < m; ++j) {
        for (int i = 0; i < n; ++i) col[i] = *cf_dense_at(&Jd, j, i);
        ck_assert(cf_dense_solve(&Ad, col, col) == CF_OK);
        for (int i = 0; i < n; ++i) X[i * m + j] = col[i];
    }
    double scale = 0.0;
    for (int i = 0; i < m; ++i) scale = fmax(scale, fabs(*cf_dense_at(&Wd, i, i)));
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
            double want = 0.0;
            for (int k = 0; k < n; ++k) want += *cf_dense_at(&Jd, i, k) * X[k * m + j];
            cft_assert_near_at(*cf_dense_at(&Wd, i, j), want, 1e-10 * scale, 0, "i = %d, j = %d", i, j);
        }
    ck_assert(cf_dense_solve(&Ad, d.b, uf) == CF_OK);
    for (int i = 0; i < m; ++i) {
        double want = 0.0;
        for (int k = 0; k < n; ++k) want += *cf_dense_at(&Jd, i, k) * uf[k];
        cft_assert_near_at(fc.q[i], want, 1e-10, 1e-10, "i = %d", i);
    }
    for (int a = 0; a < nc; ++a) cft_assert_near_at(fc.mu[a], c[a].mu, 0.0, 0, "a = %d", a);
    free(col);
    free(X);
    free(uf);
    cf_dense_free(&Ad);
    cf_dense_free(&Kd);
    cf_dense_free(&Jd);
    cf_dense_free(&Wd);
    cf_triplets_free(&T);
    cf_csr_free(&K);
    cf_soft_dual_free(&d);
    cf_fc_free(&fc);
    cf_soft_free(&s);
}
END_TEST

START_TEST(ch02_8_symmetric_psd)
{
    cfSoftBody s = soft_box();
    cfSoftContact c[5];
    int nc = soft_box_contacts(&s, c);
    cfSoftDual d;
    cfFrictionProblem fc;
    cft_assert_ok(cf_soft_dual(&s, cfu_vec3(0, 0, -9.81), 0.02, c, nc, &d, &fc));
    cfDense W = bsr_dense(&fc.W);
    double lmin, lmax;
    int rank;
    /* exactly: the spec's step 4 averages W and W^T (the column solves leave a round-off
       asymmetry of about 1e-16 |W|) */
    cft_assert_near(cf_dense_asymmetry(&W), 0.0, 0.0, 0);
    sym_spectrum(&W, &lmin, &lmax, &rank, 1e-10);
    ck_assert(lmin > -1e-12 * lmax);
    ck_assert_int_eq(rank, 3 * nc); /* independent contacts on a soft body: positive definite */
    cf_dense_free(&W);
    cf_soft_dual_free(&d);
    cf_fc_free(&fc);
    cf_soft_free(&s);
}
END_TEST

START_TEST(ch02_8_lumped_closed_form)
{
    /* no elasticity: A = M, so W = (1/m_v + sum_i w_i^2 / m_i) I for a vertex-triangle contact,
       and q = C^T (v_v - sum w_i v_i) + h C^T g (1 - 1) = C^T (relative velocity) */
    cfSoftBody s;
    ck_assert(cf_soft_init(&s, 4) == CF_OK);
    const double mass[4] = {1.0, 2.0, 0.5, 4.0};
    for (int i = 0; i < 4; ++i)
        s.mass[i] = mass[i], s.x[i] = cfu_vec3(i, i * i, 0.1 * i), s.v[i] = cfu_vec3(0.3 * i, 0, -0.2 * i);
    ck_assert(cf_soft_finalize(&s, NULL) == CF_OK);
    cfRng rng;
    cf_rng_seed(&rng, 281);
    cfSoftContact c = soft_contact_manual(&rng, 3, 1);
    c.node_a[0] = 0, c.node_a[1] = 1, c.node_a[2] = 2, c.node_b[0] = 3, c.mu = 0.3;
    const double h = 0.01;
    cfSoftDual d;
    cfFrictionProblem fc;
    cft_assert_ok(cf_soft_dual(&s, cfu_vec3(0, 0, -9.81), h, &c, 1, &d, &fc));
    double wsum = 1.0 / mass[3];
    for (int k = 0; k < 3; ++k) wsum += c.w_a[k] * c.w_a[k] / mass[k];
    cfDense W = bsr_dense(&fc.W);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) cft_assert_near_at(*cf_dense_at(&W, i, j), i == j ? wsum : 0.0, 1e-13, 0,
                                                       "i = %d, j = %d", i, j);
    /* gravity moves every node alike, so it cancels: q is the relative velocity now */
    cfVec3 rel = s.v[3];
    for (int k = 0; k < 3; ++k) rel = cfu_mul_add(rel, -c.w_a[k], s.v[k]);
    cft_assert_near(fc.q[0], cfu_dot(c.n, rel), 1e-13, 0);
    cft_assert_near(fc.q[1], cfu_dot(c.t, rel), 1e-13, 0);
    cft_assert_near(fc.q[2], cfu_dot(c.b, rel), 1e-13, 0);
    /* a pinned triangle cannot move: only the vertex remains, W = I / m_v */
    cf_dense_free(&W);
    cf_soft_dual_free(&d);
    cf_fc_free(&fc);
    s.fixed[0] = s.fixed[1] = s.fixed[2] = true;
    cft_assert_ok(cf_soft_dual(&s, cfu_vec3(0, 0, -9.81), h, &c, 1, &d, &fc));
    W = bsr_dense(&fc.W);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            cft_assert_near_at(*cf_dense_at(&W, i, j), i == j ? 1.0 / mass[3] : 0.0, 1e-13, 0, "i = %d, j = %d", i, j);
    cf_dense_free(&W);
    cf_soft_dual_free(&d);
    cf_fc_free(&fc);
    /* a chain: contact 0 between nodes 0 (A) and 1 (B), contact 1 between nodes 1 (A) and 2
       (B), one frame for both. Node 1 is on side B of one and side A of the other, so the
       coupling block is W_01 = C^T (1 / m_1) (-C) = -I / m_1: no entry above 0, and it is
       still a block of W */
    s.fixed[0] = s.fixed[1] = s.fixed[2] = false;
    cfSoftContact cc[2];
    for (int a = 0; a < 2; ++a) {
        cc[a] = c;
        cc[a].na = cc[a].nb = 1;
        cc[a].node_a[0] = a, cc[a].w_a[0] = 1.0;
        cc[a].node_b[0] = a + 1, cc[a].w_b[0] = 1.0;
    }
    cft_assert_ok(cf_soft_dual(&s, cfu_vec3(0, 0, -9.81), h, cc, 2, &d, &fc));
    W = bsr_dense(&fc.W);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double want = 0.0;
            if (i == j) want = i < 3 ? 1.0 / mass[0] + 1.0 / mass[1] : 1.0 / mass[1] + 1.0 / mass[2];
            else if (i % 3 == j % 3) want = -1.0 / mass[1]; /* the coupling blocks */
            cft_assert_near_at(*cf_dense_at(&W, i, j), want, 1e-13, 0, "chain: i = %d, j = %d", i, j);
        }
    cf_dense_free(&W);
    cf_soft_dual_free(&d);
    cf_fc_free(&fc);
    cf_soft_free(&s);
}
END_TEST

START_TEST(ch02_8_velocity_recovery)
{
    /* u+ = A^-1 (b + J^T lambda) gives J u+ = W lambda + q for any lambda; lambda = 0 is the
       contact-free implicit Euler velocity of chapter 1 */
    cfSoftBody s = soft_box();
    cfSoftContact c[5];
    int nc = soft_box_contacts(&s, c);
    const double h = 0.01;
    cfVec3 g = cfu_vec3(0, 0, -9.81);
    cfSoftDual d;
    cfFrictionProblem fc;
    cft_assert_ok(cf_soft_dual(&s, g, h, c, nc, &d, &fc));
    int n = d.n, m = 3 * nc;
    double *u = malloc((size_t)n * sizeof *u), lam[15], Ju[15], want[15];
    ck_assert(u);
    cfRng rng;
    cf_rng_seed(&rng, 282);
    for (int rep = 0; rep < 5; ++rep) {
        for (int i = 0; i < m; ++i) lam[i] = cf_rng_range(&rng, -1, 1);
        cft_assert_ok(cf_soft_dual_velocity(&d, lam, u));
        cf_csr_mul_vec(&d.J, u, Ju);
        cf_fc_velocity(&fc, lam, want);
        for (int i = 0; i < m; ++i) cft_assert_near_at(Ju[i], want[i], 1e-10, 1e-10, "i = %d", i);
    }
    cf_vec_zero(m, lam);
    cft_assert_ok(cf_soft_dual_velocity(&d, lam, u));
    cfSoftBody s2;
    ck_assert(cf_soft_copy(&s2, &s) == CF_OK);
    cft_assert_ok(cf_soft_step_implicit(&s2, g, h, NULL));
    for (int i = 0; i < s.n_nodes; ++i) {
        cft_assert_near_at(u[3 * i], s2.v[i].x, 1e-9, 1e-9, "i = %d", i);
        cft_assert_near_at(u[3 * i + 1], s2.v[i].y, 1e-9, 1e-9, "i = %d", i);
        cft_assert_near_at(u[3 * i + 2], s2.v[i].z, 1e-9, 1e-9, "i = %d", i);
    }
    free(u);
    cf_soft_free(&s2);
    cf_soft_dual_free(&d);
    cf_fc_free(&fc);
    cf_soft_free(&s);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* contracts (ungraded): bad input is refused with a status, never NaN                         */

START_TEST(ch02_bad_input_rejected)
{
    double phi = 7.0, w[3] = {7, 7, 7}, s, t, eps = 7, ups = 7;
    cfVec3 n = cfu_vec3(7, 7, 7), tt, bb;
    cft_assert_status(cf_gap_sphere_plane(cfu_zero3(), -1.0, cfu_vec3(0, 0, 1), 0.0, &phi, &n), CF_BAD_INPUT);
    cft_assert_status(cf_gap_sphere_plane(cfu_zero3(), 1.0, cfu_vec3(0, 0, 2), 0.0, &phi, &n), CF_BAD_INPUT);
    cft_assert_status(cf_gap_sphere_sphere(cfu_vec3(NAN, 0, 0), 1.0, cfu_zero3(), 1.0, &phi, &n),
                      CF_BAD_INPUT);
    cft_assert_status(
        cf_gap_point_box(cfu_zero3(), cfu_zero3(), cfu_quat_identity(), cfu_vec3(1, 0, 1), &phi, &n),
        CF_BAD_INPUT);
    cft_assert_status(
        cf_gap_point_box(cfu_zero3(), cfu_zero3(), cfu_quat(2, 0, 0, 0), cfu_vec3(1, 1, 1), &phi, &n),
        CF_BAD_INPUT);
    ck_assert(phi == 7.0 && n.x == 7.0);
    cft_assert_status(cf_contact_frame(cfu_vec3(0, 0, 0), &tt, &bb), CF_BAD_INPUT);
    cft_assert_status(cf_contact_frame(cfu_vec3(0, 0, INFINITY), &tt, &bb), CF_BAD_INPUT);
    cfContact c = make_contact(-1, 0, cfu_zero3(), cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), 0.5);
    c.t = cfu_vec3(1, 0.1, 0); /* not orthogonal */
    double Ja[3][6], Jb[3][6];
    cft_assert_status(cf_contact_jacobian_rigid(&c, NULL, NULL, Ja, Jb), CF_BAD_INPUT);
    c = make_contact(-1, 0, cfu_zero3(), cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), 0.5);
    c.b = cfu_neg(c.b); /* left-handed */
    cft_assert_status(cf_contact_jacobian_rigid(&c, NULL, NULL, Ja, Jb), CF_BAD_INPUT);
    cft_assert_status(
        cf_barycentric_triangle(cfu_zero3(), cfu_zero3(), cfu_vec3(1, 0, 0), cfu_vec3(2, 0, 0), w),
        CF_BAD_INPUT);
    ck_assert(w[0] == 7.0);
    cft_assert_status(
        cf_closest_edge_edge(cfu_zero3(), cfu_zero3(), cfu_vec3(1, 0, 0), cfu_vec3(2, 0, 0), &s, &t),
        CF_BAD_INPUT);
    cfVec3 par[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    cfSoftContact sc;
    cft_assert_status(cf_soft_contact_edge_edge(par, 0, 1, 2, 3, &sc), CF_BAD_INPUT);
    cft_assert_status(cf_soft_contact_vertex_triangle(par, 0, 0, 1, 2, &sc), CF_BAD_INPUT);
    cft_assert_status(cf_erp_cfm(0.0, 1e4, 1.0, &eps, &ups), CF_BAD_INPUT);
    cft_assert_status(cf_erp_cfm(0.01, -1.0, 1.0, &eps, &ups), CF_BAD_INPUT);
    cft_assert_status(cf_erp_cfm(0.01, 0.0, 0.0, &eps, &ups), CF_BAD_INPUT);
    ck_assert(eps == 7.0 && ups == 7.0);
    /* rigid assembly: a body index out of range, a body touching itself, a negative mu */
    cfRigidBody b = make_body(cf_shape_sphere(1.0), 1.0);
    cfBsr W;
    cfFrictionProblem p;
    c = make_contact(-1, 3, cfu_zero3(), cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), 0.5);
    cft_assert_status(cf_delassus_rigid(&b, 1, &c, 1, &W), CF_BAD_INPUT);
    c.body_a = c.body_b = 0;
    cft_assert_status(cf_delassus_rigid(&b, 1, &c, 1, &W), CF_BAD_INPUT);
    c.body_a = -1, c.mu = -0.1;
    cft_assert_status(cf_friction_problem_rigid(&b, 1, &c, 1, &p), CF_BAD_INPUT);
    /* friction models: k out of range; stabilization with bad parameters leaves p unchanged */
    double q[3] = {-1, 0, 0};
    cfFrictionProblem fc = fc_particle(1.0, q, 0.5);
    cfLcp lcp;
    cft_assert_status(cf_friction_polyhedral_lcp(&fc, 2, &lcp), CF_BAD_INPUT);
    double ph[1] = {NAN};
    cft_assert_status(cf_stabilize(&fc, ph, 0.01, 0.1, 0.2), CF_BAD_INPUT);
    ph[0] = -0.01;
    cft_assert_status(cf_stabilize(&fc, ph, 0.01, 0.1, 1.5), CF_BAD_INPUT);
    ck_assert(fc.q[0] == -1.0 && fc.W.val[0] == 1.0);
    double rbad[3] = {NAN, 0, 0};
    ck_assert(cf_ccp_residual(&fc, rbad) == INFINITY);
    cf_fc_free(&fc);
}
END_TEST

START_TEST(ch02_scene_problem_round_trip)
{
    /* a scene's contact problem (box on the ground, a sphere on the box) written in the Siconos
       format and read back: identical data, identical residuals for the same r */
    cfRigidBody bodies[3];
    cfContact contacts[6];
    box_on_ground(bodies, contacts, 4, 0.6);
    bodies[2] = make_body(cf_shape_sphere(0.25), 0.7);
    bodies[2].x = cfu_vec3(0.1, 0.05, 0.4 + 0.25);
    bodies[2].v = cfu_vec3(0.3, 0, -0.2);
    bodies[2].w = cfu_vec3(0, 1, 0);
    bodies[1].v = cfu_vec3(0, 0, -0.1);
    contacts[4] = make_contact(1, 2, cfu_vec3(0.1, 0.05, 0.4), cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), 0.3);
    int nc = 5;
    cfFrictionProblem p, r;
    cft_assert_ok(cf_friction_problem_rigid(bodies, 3, contacts, nc, &p));
    char path[] = "/tmp/cflab-ch02-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    cfError err;
    ck_assert_msg(cf_fc_write_siconos(path, &p, &err) == CF_OK, "%s", err.msg);
    ck_assert_msg(cf_fc_read_siconos(path, &r, &err) == CF_OK, "%s", err.msg);
    unlink(path);
    ck_assert_int_eq(r.nc, p.nc);
    ck_assert_int_eq(r.W.rowptr[nc], p.W.rowptr[nc]);
    ck_assert(memcmp(r.W.rowptr, p.W.rowptr, (size_t)(nc + 1) * sizeof *p.W.rowptr) == 0);
    ck_assert(memcmp(r.W.colidx, p.W.colidx, (size_t)p.W.rowptr[nc] * sizeof *p.W.colidx) == 0);
    ck_assert(memcmp(r.W.val, p.W.val, (size_t)(9 * p.W.rowptr[nc]) * sizeof *p.W.val) == 0);
    ck_assert(memcmp(r.q, p.q, (size_t)(3 * nc) * sizeof *p.q) == 0);
    ck_assert(memcmp(r.mu, p.mu, (size_t)nc * sizeof *p.mu) == 0);
    double lam[15];
    cfRng rng;
    cf_rng_seed(&rng, 290);
    for (int i = 0; i < 3 * nc; ++i) lam[i] = cf_rng_range(&rng, 0, 1);
    ck_assert(cf_fc_residual(&p, lam) == cf_fc_residual(&r, lam));
    ck_assert(cf_ccp_residual(&p, lam) == cf_ccp_residual(&r, lam));
    cf_fc_free(&p);
    cf_fc_free(&r);
}
END_TEST

static void build(Suite *s)
{
    TCase *t1 = cft_tcase_unit(s, "ch02.1");
    CFT_GRADED(t1, ch02_1_worked_examples, "ch02.1", 2, "worked examples of the spec");
    CFT_GRADED(t1, ch02_1_sphere_gradients_fd, "ch02.1", 3,
               "sphere gaps: normal = gradient (finite differences)");
    CFT_GRADED(t1, ch02_1_point_box_fd, "ch02.1", 3, "point-box: unit gradient = finite differences");
    CFT_GRADED(t1, ch02_1_point_box_regions, "ch02.1", 2, "point-box: face, edge, corner, inside");

    TCase *t2 = cft_tcase_unit(s, "ch02.2");
    CFT_GRADED(t2, ch02_2_worked_examples, "ch02.2", 1, "worked examples of the spec");
    CFT_GRADED(t2, ch02_2_orthonormal_right_handed, "ch02.2", 2,
               "orthonormal, right-handed, near every axis");
    CFT_GRADED(t2, ch02_2_reference_axis_rule, "ch02.2", 2, "the reference-axis rule");

    TCase *t3 = cft_tcase_unit(s, "ch02.3");
    CFT_GRADED(t3, ch02_3_worked_example, "ch02.3", 2, "worked example of the spec");
    CFT_GRADED(t3, ch02_3_matches_point_velocity_fd, "ch02.3", 4,
               "J u = relative velocity of material points");
    CFT_GRADED(t3, ch02_3_fixed_and_static_bodies, "ch02.3", 2, "fixed bodies contribute nothing");
    CFT_GRADED(t3, ch02_3_common_rigid_motion_zero, "ch02.3", 2, "common rigid motion gives zero");

    TCase *t4 = cft_tcase_unit(s, "ch02.4");
    CFT_GRADED(t4, ch02_4_worked_examples, "ch02.4", 1, "worked examples of the spec");
    CFT_GRADED(t4, ch02_4_barycentric_reproduces_point, "ch02.4", 2, "weights reproduce the point");
    CFT_GRADED(t4, ch02_4_edge_edge_optimal, "ch02.4", 2, "closest points of two segments are optimal");
    CFT_GRADED(t4, ch02_4_jacobian_relative_velocity, "ch02.4", 2,
               "J u = relative velocity; translation gives 0");
    CFT_GRADED(t4, ch02_4_contacts_from_geometry, "ch02.4", 3,
               "vertex-triangle, edge-edge: n row = grad phi");

    TCase *t5 = cft_tcase_unit(s, "ch02.5");
    CFT_GRADED(t5, ch02_5_worked_examples, "ch02.5", 2, "worked examples: particle, sphere");
    CFT_GRADED(t5, ch02_5_equals_dense_reference, "ch02.5", 3, "W equals the dense J M^-1 J^T");
    CFT_GRADED(t5, ch02_5_symmetric_psd_pattern, "ch02.5", 2, "symmetric PSD, block pattern");
    CFT_GRADED(t5, ch02_5_box_four_corners_rank, "ch02.5", 2, "box on four corners: rank 6");
    CFT_GRADED(t5, ch02_5_problem_and_impulses, "ch02.5", 1, "q = J u; impulses give W lambda + q");

    TCase *t6 = cft_tcase_unit(s, "ch02.6");
    CFT_GRADED(t6, ch02_6_polyhedral_structure, "ch02.6", 3, "polyhedral LCP: A - A^T = C - C^T, D W D^T");
    CFT_GRADED(t6, ch02_6_polyhedral_sliding_particle, "ch02.6", 3,
               "polyhedral LCP: sliding particle (exhaustive LCP)");
    CFT_GRADED(t6, ch02_6_boxed_structure, "ch02.6", 2, "boxed LCP: A = W, findex bounds");
    CFT_GRADED(t6, ch02_6_sliding_block_stops, "ch02.6", 3, "boxed LCP: sliding block stops in step 41");
    CFT_GRADED(t6, ch02_6_box_anisotropy_on_incline, "ch02.6", 2,
               "boxed LCP: stick up to sqrt(2) mu at 45 deg");
    CFT_GRADED(t6, ch02_6_ccp_lift_off, "ch02.6", 2, "CCP: lift-off 0.38, residuals");

    TCase *t7 = cft_tcase_unit(s, "ch02.7");
    CFT_GRADED(t7, ch02_7_parameters, "ch02.7", 2, "ERP and CFM formulas");
    CFT_GRADED(t7, ch02_7_stabilize_rows, "ch02.7", 2, "CFM and bias on the normal rows only");
    CFT_GRADED(t7, ch02_7_erp_geometric_decay, "ch02.7", 3, "gap decays as phi0 (1 - ups)^n");
    CFT_GRADED(t7, ch02_7_cfm_steady_state, "ch02.7", 2, "rest penetration -m g / k");
    CFT_GRADED(t7, ch02_7_cfm_regularizes_redundant_rows, "ch02.7", 1, "CFM makes redundant contacts PD");

    TCase *t8 = cft_tcase_unit(s, "ch02.8");
    CFT_GRADED(t8, ch02_8_equals_dense_reference, "ch02.8", 3, "A, W = J A^-1 J^T, q: dense reference");
    CFT_GRADED(t8, ch02_8_symmetric_psd, "ch02.8", 2, "soft W symmetric positive definite");
    CFT_GRADED(t8, ch02_8_lumped_closed_form, "ch02.8", 3, "no elasticity: closed form; pinned nodes");
    CFT_GRADED(t8, ch02_8_velocity_recovery, "ch02.8", 2, "J u+ = W lambda + q; lambda = 0 is ch01.4");

    TCase *tc = cft_tcase_unit(s, "ch02-contracts");
    CFT_TEST(tc, ch02_bad_input_rejected, "bad input is refused with a status, outputs untouched");
    CFT_TEST(tc, ch02_scene_problem_round_trip, "a scene's problem written and read back is identical");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "ch02", build); }
