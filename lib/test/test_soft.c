/* SPDX-License-Identifier: MIT */
/* Library tests: the soft-body models of cf_soft.h that chapter 8 builds on (co-rotational
   tetrahedra, consistent mass, cloth, tetrahedralized balls, surfaces, the TetGen reader) and the
   spatial hash of its detection, checked against certificates: zero force under rigid motions,
   finite differences, row sums, closed oriented surfaces, the divergence theorem, all pairs. */
#include "cft.h"
#include "cf/cf_geometry.h"
#include "cf/cf_linalg.h"
#include "cf/cf_rng.h"
#include "cf/cf_soft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double *new_vec(int n)
{
    double *x = calloc((size_t)(n > 0 ? n : 1), sizeof *x);
    ck_assert_ptr_nonnull(x);
    return x;
}

static void make_block(cfSoftBody *s, bool corot)
{
    cfError err;
    cft_assert_ok(cf_soft_make_tet_box(s, cfu_vec3(0, 0, 0), cfu_vec3(0.4, 0.3, 0.2), 2, 2, 1, 1000, 1e5, 0.3, false, &err));
    s->corotational = corot;
}

static cfMat3 rotation(double ax, double ay, double az, double angle)
{
    return cfu_quat_to_mat3(cfu_quat_from_axis_angle(cfu_vec3(ax, ay, az), angle));
}

static double max_abs(int n, const double *f)
{
    double m = 0.0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(f[i]));
    return m;
}

START_TEST(polar_rotation_certificates)
{
    /* R orthogonal with det +1; for det F > 0, R^T F is symmetric positive definite (the polar
       factor S); an inverted F still gives a rotation */
    cfRng rng;
    cf_rng_seed(&rng, 11);
    for (int trial = 0; trial < 200; ++trial) {
        cfMat3 F;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) F.m[i][j] = (i == j ? 1.0 : 0.0) + cf_rng_range(&rng, -0.6, 0.6);
        if (trial % 4 == 3) F = cfu_mat3_scale(-1.0, F); /* inverted */
        cfMat3 R = cf_soft_polar_rotation(F);
        cfMat3 RtR = cfu_mat3_mul(cfu_mat3_transpose(R), R);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) cft_assert_near_at(RtR.m[i][j], i == j, 1e-12, 0, "trial %d", trial);
        cft_assert_near_at(cfu_mat3_det(R), 1.0, 1e-12, 0, "trial %d", trial);
        if (cfu_mat3_det(F) > 0.05) {
            cfMat3 S = cfu_mat3_mul(cfu_mat3_transpose(R), F);
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < i; ++j) cft_assert_near_at(S.m[i][j], S.m[j][i], 1e-10, 0, "trial %d", trial);
            for (int i = 0; i < 3; ++i) cft_assert_at(S.m[i][i] > 0.0, "trial %d", trial);
        }
    }
    /* a rotation times a stretch along the axes: R comes back exactly */
    cfMat3 Q = rotation(1, 2, 3, 0.7);
    cfMat3 R = cf_soft_polar_rotation(cfu_mat3_mul(Q, cfu_mat3_diag(cfu_vec3(1.2, 0.9, 1.05))));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) cft_assert_near_at(R.m[i][j], Q.m[i][j], 1e-12, 0, "i = %d, j = %d", i, j);
}
END_TEST

START_TEST(corotational_no_ghost_forces)
{
    /* a rigid rotation of the rest shape: the co-rotational element gives no force and no energy,
       the small-strain one gives ghost forces of the order of E times the rotation */
    cfSoftBody lin, cor;
    make_block(&lin, false);
    make_block(&cor, true);
    int n = lin.n_nodes;
    cfMat3 Q = rotation(0.3, -1, 0.5, 1.1);
    cfVec3 *x = malloc((size_t)n * sizeof *x);
    for (int k = 0; k < n; ++k) x[k] = cfu_add(cfu_vec3(1, 2, 3), cfu_mat3_mul_vec(Q, lin.x_rest[k]));
    double *f = new_vec(3 * n);
    cf_soft_forces(&cor, x, cfu_zero3(), f);
    ck_assert_msg(max_abs(3 * n, f) <= 1e-9, "co-rotational force %g under a rigid motion", max_abs(3 * n, f));
    ck_assert_msg(cf_soft_elastic_energy(&cor, x) <= 1e-15, "energy %g", cf_soft_elastic_energy(&cor, x));
    cf_soft_forces(&lin, x, cfu_zero3(), f);
    ck_assert_msg(max_abs(3 * n, f) > 100.0, "small strain: ghost force %g", max_abs(3 * n, f));
    /* a small deformation at rest orientation: both models agree to second order */
    for (int k = 0; k < n; ++k) x[k] = cfu_add(lin.x_rest[k], cfu_vec3(1e-5 * k, -2e-5 * (k % 3), 1e-5 * (k % 5)));
    double *g = new_vec(3 * n);
    cf_soft_forces(&lin, x, cfu_zero3(), f);
    cf_soft_forces(&cor, x, cfu_zero3(), g);
    for (int i = 0; i < 3 * n; ++i) cft_assert_near_at(g[i], f[i], 1e-3 * max_abs(3 * n, f), 0, "dof %d", i);
    free(x), free(f), free(g);
    cf_soft_free(&lin);
    cf_soft_free(&cor);
}
END_TEST

START_TEST(corotational_stiffness_finite_differences)
{
    /* K = -d f / dx with the rotations held at their values at x (the warped stiffness), at a
       rotated and deformed state: central differences, error O(eps^2) = 0 for a linear force */
    cfSoftBody s;
    make_block(&s, true);
    int n = s.n_nodes, N = 3 * n;
    cfMat3 Q = rotation(1, 1, 0, 0.8);
    cfVec3 *x = malloc((size_t)n * sizeof *x), *xp = malloc((size_t)n * sizeof *xp);
    for (int k = 0; k < n; ++k)
        x[k] = cfu_mat3_mul_vec(Q, cfu_add(s.x_rest[k], cfu_vec3(0.01 * (k % 3), -0.02 * (k % 2), 0.015 * (k % 5))));
    cfMat3 *R = malloc((size_t)s.n_tets * sizeof *R);
    for (int e = 0; e < s.n_tets; ++e) R[e] = cf_soft_tet_rotation(&s, e, x);
    cfTriplets T;
    cft_assert_ok(cf_triplets_init(&T, N, N));
    cft_assert_ok(cf_soft_stiffness(&s, x, &T));
    cfCsr K;
    cft_assert_ok(cf_csr_from_triplets(&T, &K));
    cf_triplets_free(&T);
    ck_assert(cf_csr_asymmetry(&K) <= 1e-9 * max_abs(K.nnz, K.val));
    double *fp = new_vec(N), *fm = new_vec(N);
    const double eps = 1e-6;
    double kmax = max_abs(K.nnz, K.val);
    for (int j = 0; j < N; ++j) {
        memcpy(xp, x, (size_t)n * sizeof *x);
        double *c = &xp[j / 3].x + j % 3;
        *c += eps;
        cf_soft_forces_rotated(&s, xp, R, cfu_zero3(), fp);
        *c -= 2 * eps;
        cf_soft_forces_rotated(&s, xp, R, cfu_zero3(), fm);
        for (int i = 0; i < N; ++i)
            cft_assert_near_at(cf_csr_get(&K, i, j), -(fp[i] - fm[i]) / (2 * eps), 1e-7 * kmax, 0, "K[%d][%d]", i, j);
    }
    cf_csr_free(&K);
    free(x), free(xp), free(R), free(fp), free(fm);
    cf_soft_free(&s);
}
END_TEST

START_TEST(consistent_mass_certificates)
{
    /* symmetric, positive definite, row sums equal to the lumped masses */
    cfSoftBody s;
    make_block(&s, false);
    s.consistent_mass = true;
    int N = 3 * s.n_nodes;
    cfTriplets T;
    cft_assert_ok(cf_triplets_init(&T, N, N));
    cft_assert_ok(cf_soft_mass_matrix(&s, &T));
    cfCsr M;
    cft_assert_ok(cf_csr_from_triplets(&T, &M));
    cf_triplets_free(&T);
    ck_assert(cf_csr_asymmetry(&M) == 0.0);
    for (int i = 0; i < N; ++i) {
        double sum = 0.0;
        for (int e = M.rowptr[i]; e < M.rowptr[i + 1]; ++e) sum += M.val[e];
        cft_assert_near_at(sum, s.mass[i / 3], 1e-12 * s.mass[i / 3], 0, "row %d", i);
    }
    cfSparseChol *F;
    cft_assert_ok(cf_sparse_chol_factor(&M, &F)); /* positive definite */
    cf_sparse_chol_free(F);
    ck_assert(M.nnz > N); /* not diagonal */
    cf_csr_free(&M);
    /* lumped: the diagonal of the masses */
    s.consistent_mass = false;
    cft_assert_ok(cf_triplets_init(&T, N, N));
    cft_assert_ok(cf_soft_mass_matrix(&s, &T));
    cft_assert_ok(cf_csr_from_triplets(&T, &M));
    cf_triplets_free(&T);
    ck_assert_int_eq(M.nnz, N);
    for (int i = 0; i < N; ++i) cft_assert_at(cf_csr_get(&M, i, i) == s.mass[i / 3], "i = %d", i);
    cf_csr_free(&M);
    cf_soft_free(&s);
}
END_TEST

/* every edge of a closed surface is shared by exactly two triangles, traversed in opposite
   directions (a consistently oriented closed surface); returns the number of edges */
static int check_closed(const cfSoftBody *s)
{
    int nt = s->n_tris, ne = 0;
    int(*e)[2] = malloc((size_t)3 * nt * sizeof *e);
    for (int t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) {
            e[3 * t + k][0] = s->tris[t][k];
            e[3 * t + k][1] = s->tris[t][(k + 1) % 3];
        }
    for (int a = 0; a < 3 * nt; ++a) {
        int same = 0, opposite = 0;
        for (int b = 0; b < 3 * nt; ++b) {
            same += b != a && e[b][0] == e[a][0] && e[b][1] == e[a][1];
            opposite += e[b][0] == e[a][1] && e[b][1] == e[a][0];
        }
        cft_assert_int_at(same, ==, 0, "edge (%d, %d)", e[a][0], e[a][1]);
        cft_assert_int_at(opposite, ==, 1, "edge (%d, %d)", e[a][0], e[a][1]);
        ne += e[a][0] < e[a][1];
    }
    free(e);
    return ne;
}

/* volume enclosed by the surface (divergence theorem): positive when the triangles face outward */
static double surface_volume(const cfSoftBody *s)
{
    double v = 0.0;
    for (int t = 0; t < s->n_tris; ++t)
        v += cfu_dot(s->x[s->tris[t][0]], cfu_cross(s->x[s->tris[t][1]], s->x[s->tris[t][2]])) / 6.0;
    return v;
}

static double tet_volume(const cfSoftBody *s)
{
    double v = 0.0;
    for (int e = 0; e < s->n_tets; ++e) v += s->tets[e].rest_volume;
    return v;
}

START_TEST(ball_surface_is_closed_and_outward)
{
    cfSoftBody s;
    cfError err;
    cft_assert_ok(cf_soft_make_tet_ball(&s, cfu_vec3(0.1, -0.2, 1), 0.5, 6, 500, 2e4, 0.3, &err));
    int ne = check_closed(&s), nv = 0;
    bool *on = calloc((size_t)s.n_nodes, sizeof *on);
    for (int t = 0; t < s.n_tris; ++t)
        for (int k = 0; k < 3; ++k) on[s.tris[t][k]] = true;
    for (int k = 0; k < s.n_nodes; ++k) nv += on[k];
    free(on);
    ck_assert_int_eq(nv - ne + s.n_tris, 2); /* Euler: a sphere's surface */
    cft_assert_near(surface_volume(&s), tet_volume(&s), 1e-12, 1e-10);
    /* a voxel ball: within 30 % of the sphere's volume */
    double sphere = 4.0 / 3.0 * CF_PI * 0.125;
    ck_assert_msg(fabs(tet_volume(&s) - sphere) < 0.3 * sphere, "volume %g, sphere %g", tet_volume(&s), sphere);
    double m = 0.0;
    for (int k = 0; k < s.n_nodes; ++k) m += s.mass[k];
    cft_assert_near(m, 500 * tet_volume(&s), 1e-9, 1e-12);
    cf_soft_free(&s);
    /* the box's own surface and the extracted one enclose the same volume, outward */
    make_block(&s, false);
    int nt = s.n_tris;
    double v0 = surface_volume(&s);
    cft_assert_ok(cf_soft_build_surface(&s, &err));
    ck_assert_int_eq(s.n_tris, nt);
    check_closed(&s);
    cft_assert_near(surface_volume(&s), v0, 1e-14, 1e-12);
    cft_assert_near(v0, tet_volume(&s), 1e-14, 1e-12);
    cf_soft_free(&s);
    cft_assert_status(cf_soft_make_tet_ball(&s, cfu_zero3(), 0.5, 1, 500, 2e4, 0.3, &err), CF_BAD_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "cells"));
}
END_TEST

START_TEST(cloth_sheet_contract)
{
    cfSoftBody s;
    cfError err;
    cft_assert_ok(cf_soft_make_cloth(&s, cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), cfu_vec3(0, 2, 0), 4, 5, 0.6, 100, 50, 10, 0.004,
                                     &err));
    ck_assert_int_eq(s.n_nodes, 30);
    /* stretch 4*6 + 5*5, shear 2*4*5, bending 3*6 + 4*5 */
    ck_assert_int_eq(s.n_springs, 49 + 40 + 38);
    ck_assert_int_eq(s.n_tris, 40);
    ck_assert_int_eq(s.n_tets, 0);
    cft_assert_near(s.thickness, 0.004, 0, 0);
    double m = 0.0;
    for (int k = 0; k < s.n_nodes; ++k) m += s.mass[k];
    cft_assert_near(m, 0.6, 1e-15, 0);
    /* at rest the springs pull nothing; the triangles face +z (du x dv) */
    double *f = new_vec(3 * s.n_nodes);
    cf_soft_forces(&s, s.x, cfu_zero3(), f);
    ck_assert(max_abs(3 * s.n_nodes, f) < 1e-12);
    for (int t = 0; t < s.n_tris; ++t) {
        cfVec3 nrm = cfu_cross(cfu_sub(s.x[s.tris[t][1]], s.x[s.tris[t][0]]), cfu_sub(s.x[s.tris[t][2]], s.x[s.tris[t][0]]));
        cft_assert_at(nrm.z > 0.0, "triangle %d", t);
    }
    free(f);
    cf_soft_free(&s);
    cft_assert_status(cf_soft_make_cloth(&s, cfu_zero3(), cfu_vec3(1, 0, 0), cfu_vec3(2, 0, 0), 4, 4, 1, 1, 1, 1, 0, &err),
                      CF_BAD_INPUT);
    cft_assert_status(cf_soft_make_cloth(&s, cfu_zero3(), cfu_vec3(1, 0, 0), cfu_vec3(0, 1, 0), 4, 4, 1, 1, 1, 1, -1, &err),
                      CF_BAD_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "thickness"));
}
END_TEST

/* write @p text to a file in the test's temporary folder; returns its path (static buffer per slot) */
static const char *temp_file(int slot, const char *name, const char *text)
{
    static char path[2][256];
    snprintf(path[slot], sizeof path[slot], "/tmp/cflab-test-soft-%d-%s", (int)getpid(), name);
    FILE *f = fopen(path[slot], "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path[slot];
}

/* a unit cube as five tetrahedra, TetGen format with 1-based indices, comments and a marker column */
static const char *cube_node = "# a unit cube\n8 3 0 1\n"
                               "1 0 0 0 1\n2 1 0 0 1\n3 0 1 0 1\n4 1 1 0 1\n"
                               "5 0 0 1 1\n6 1 0 1 1\n7 0 1 1 1\n8 1 1 1 1  # last corner\n";
static const char *cube_ele = "5 4 0\n1 1 2 3 5\n2 4 2 3 8\n3 6 2 5 8\n4 7 3 5 8\n5 2 3 5 8\n";

START_TEST(tetgen_reader_reads_a_cube)
{
    const char *np = temp_file(0, "cube.node", cube_node), *ep = temp_file(1, "cube.ele", cube_ele);
    cfSoftBody s;
    cfError err = {{0}};
    cft_assert_ok(cf_soft_read_tetgen(&s, np, ep, 2.0, cfu_vec3(0, 0, 1), 100, 1e5, 0.3, 0, &err));
    ck_assert_int_eq(s.n_nodes, 8);
    ck_assert_int_eq(s.n_tets, 5);
    ck_assert_int_eq(s.n_tris, 12);
    check_closed(&s);
    cft_assert_near(tet_volume(&s), 8.0, 1e-12, 0);
    cft_assert_vec3_near(s.x[7], cfu_vec3(2, 2, 3), 0);
    double m = 0.0;
    for (int k = 0; k < s.n_nodes; ++k) m += s.mass[k];
    cft_assert_near(m, 800.0, 1e-9, 0);
    cf_soft_free(&s);
    unlink(np);
    unlink(ep);
}
END_TEST

START_TEST(tetgen_reader_names_file_and_line)
{
    struct {
        const char *node, *ele, *want; /* want: part of the message, after the file name */
        cfStatus st;
    } cases[] = {
        {"8 2 0 0\n", cube_ele, "cube.node:1: the dimension must be 3", CF_BAD_INPUT},
        {"8 3 0 1\n1 0 0 0 1\n2 1 0\n", cube_ele, "cube.node:3: a point needs 5 values", CF_BAD_INPUT},
        {"2 3 0 0\n1 0 0 0\n", cube_ele, "cube.node:2: the file ends after 1 of 2 points", CF_BAD_INPUT},
        {"2 3 0 0\n1 0 0 0\n1 1 1 1\n", cube_ele, "cube.node:3: point 1 defined twice", CF_BAD_INPUT},
        {"2 3 0 0\n1 0 0 0\n7 1 1 1\n", cube_ele, "cube.node:3: point index 7 out of range [1, 2]", CF_BAD_INPUT},
        {"1 3 0 0\n1 0 0 x\n", cube_ele, "cube.node:2: not a number", CF_BAD_INPUT},
        {cube_node, "5 10 0\n", "cube.ele:1: nodes per tetrahedron must be 4 (got 10: quadratic", CF_BAD_INPUT},
        {cube_node, "1 4 0\n1 1 2 3 9\n", "cube.ele:2: node index 9 out of range [1, 8]", CF_BAD_INPUT},
        {cube_node, "1 4 0\n1 1 2 3 4\n", "cube.ele:2: tet (0, 1, 2, 3): degenerate", CF_BAD_INPUT},
        {cube_node, "1 4 0\n1 1 2 3 5\n2 4 2 3 8\n", "cube.ele:3: data after the 1 tetrahedra", CF_BAD_INPUT},
        {cube_node, "1 4 0\n1 1 2 3 5\n", "cube.node: point 4 belongs to no tetrahedron", CF_BAD_INPUT},
        /* indices far beyond an int: refused by value, never converted first (UBSan) */
        {"2 3 0 0\n1 0 0 0\n1e300 1 1 1\n", cube_ele, "cube.node:3: point index 1e+300 out of range [1, 2]", CF_BAD_INPUT},
        {cube_node, "1 4 0\n1 1 2 3 -3e9\n", "cube.ele:2: node index -3e+09 out of range [1, 8]", CF_BAD_INPUT},
        {cube_node, "1 4 0\n1 1 2 3 2147483648\n", "cube.ele:2: node index 2.14748e+09 out of range", CF_BAD_INPUT},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
        const char *np = temp_file(0, "cube.node", cases[k].node), *ep = temp_file(1, "cube.ele", cases[k].ele);
        cfSoftBody s;
        cfError err = {{0}};
        cft_assert_status_at(cf_soft_read_tetgen(&s, np, ep, 1.0, cfu_zero3(), 100, 1e5, 0.3, 0, &err), cases[k].st, "case %zu", k);
        ck_assert_msg(strstr(err.msg, cases[k].want), "case %zu: message '%s' lacks '%s'", k, err.msg, cases[k].want);
        ck_assert_int_eq(s.n_nodes, 0); /* nothing kept */
        unlink(np);
        unlink(ep);
    }
    cfSoftBody s;
    cfError err = {{0}};
    cft_assert_status(cf_soft_read_tetgen(&s, "/nonexistent/x.node", "x.ele", 1.0, cfu_zero3(), 100, 1e5, 0.3, 0, &err),
                      CF_IO_ERROR);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/x.node: cannot open"));
    /* the budget: a header asking ten million points is refused before anything is allocated */
    const char *np = temp_file(0, "big.node", "10000000 3 0 0\n1 0 0 0\n"), *ep = temp_file(1, "big.ele", cube_ele);
    cft_assert_status(cf_soft_read_tetgen(&s, np, ep, 1.0, cfu_zero3(), 100, 1e5, 0.3, 1e6, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "big.node:1: 10000000 points and 5 tetrahedra") && strstr(err.msg, "exceed the 1e+06 elements"),
                  "%s", err.msg);
    ck_assert_ptr_null(s.x);
    /* the cube within a budget of its 13 elements, not of 12 */
    np = temp_file(0, "cube.node", cube_node);
    cft_assert_ok(cf_soft_read_tetgen(&s, np, ep, 1.0, cfu_zero3(), 100, 1e5, 0.3, 13, &err));
    cf_soft_free(&s);
    cft_assert_status(cf_soft_read_tetgen(&s, np, ep, 1.0, cfu_zero3(), 100, 1e5, 0.3, 12, &err), CF_BAD_INPUT);
    /* a line longer than the reader's buffer is named, not split into two lines */
    char *longline = malloc(6000);
    ck_assert_ptr_nonnull(longline);
    strcpy(longline, "1 3 0 0\n1 0 0 ");
    size_t n = strlen(longline);
    memset(longline + n, '0', 5000);
    strcpy(longline + n + 5000, "\n");
    np = temp_file(0, "long.node", longline);
    free(longline);
    cft_assert_status(cf_soft_read_tetgen(&s, np, ep, 1.0, cfu_zero3(), 100, 1e5, 0.3, 0, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "long.node:2: line longer than 4095 characters"), "%s", err.msg);
    unlink(np);
    unlink(ep);
}
END_TEST

START_TEST(spatial_hash_equals_all_pairs)
{
    /* random small boxes, a few huge ones and a plane-like unbounded one: every query returns
       exactly the boxes that overlap it, in ascending order */
    cfRng rng;
    cf_rng_seed(&rng, 12);
    const int n = 600;
    cfAabb *b = malloc((size_t)n * sizeof *b);
    for (int i = 0; i < n; ++i) {
        cfVec3 c = cfu_vec3(cf_rng_range(&rng, -2, 2), cf_rng_range(&rng, -2, 2), cf_rng_range(&rng, -1, 1));
        double r = i % 97 == 0 ? 3.0 : cf_rng_range(&rng, 0.01, 0.15);
        b[i] = cf_aabb_inflate(cf_aabb_add_point(cf_aabb_empty(), c), r);
    }
    b[5].lo = cfu_vec3(-INFINITY, -INFINITY, -INFINITY);
    b[5].hi = cfu_vec3(INFINITY, INFINITY, 0.0);
    cfSpatialHash h;
    cft_assert_ok(cf_hash_build(&h, b, n, 0.2));
    for (int q = 0; q < n; ++q) {
        const int *items;
        int m = cf_hash_query(&h, b[q], &items);
        int want = 0;
        for (int j = 0; j < n; ++j) want += cf_aabb_overlap(b[q], b[j]);
        cft_assert_int_at(m, ==, want, "query %d", q);
        for (int k = 0; k < m; ++k) {
            cft_assert_at(cf_aabb_overlap(b[q], b[items[k]]), "query %d, item %d", q, items[k]);
            if (k > 0) cft_assert_int_at(items[k - 1], <, items[k], "query %d", q);
        }
    }
    cf_hash_free(&h);
    /* a hash of no boxes, and a query that finds nothing (no result buffer yet: qsort must not
       be handed it; UBSan in make check says so) */
    cft_assert_ok(cf_hash_build(&h, b, 0, 0.2));
    const int *none;
    cfAabb far = cf_aabb_inflate(cf_aabb_add_point(cf_aabb_empty(), cfu_vec3(50, 50, 50)), 0.1);
    ck_assert_int_eq(cf_hash_query(&h, far, &none), 0);
    cf_hash_free(&h);
    cft_assert_ok(cf_hash_build(&h, b + 1, 1, 0.2));
    ck_assert_int_eq(cf_hash_query(&h, far, &none), 0);
    cf_hash_free(&h);
    cfAabb bad = b[0];
    bad.lo.x = NAN;
    cft_assert_status(cf_hash_build(&h, &bad, 1, 0.2), CF_BAD_INPUT);
    cft_assert_status(cf_hash_build(&h, b, n, 0.0), CF_BAD_INPUT);
    free(b);
}
END_TEST

static void build(Suite *s)
{
    TCase *tc = cft_tcase_unit(s, "soft-models");
    CFT_TEST(tc, polar_rotation_certificates, "polar rotation: orthogonal, det 1, R^T F symmetric");
    CFT_TEST(tc, corotational_no_ghost_forces, "co-rotational tets: no force under rigid motions");
    CFT_TEST(tc, corotational_stiffness_finite_differences, "warped stiffness equals -df/dx with R held");
    CFT_TEST(tc, consistent_mass_certificates, "consistent mass: symmetric, SPD, row sums the lumped masses");
    CFT_TEST(tc, ball_surface_is_closed_and_outward, "tet ball and extracted surfaces: closed, outward");
    CFT_TEST(tc, cloth_sheet_contract, "cloth sheet: springs, triangles, mass, rest");
    TCase *th = cft_tcase_unit(s, "hash");
    CFT_TEST(th, spatial_hash_equals_all_pairs, "spatial hash queries equal all pairs");
    TCase *tio = cft_tcase_unit(s, "tetgen");
    CFT_TEST(tio, tetgen_reader_reads_a_cube, "TetGen reader: a cube of five tets");
    CFT_TEST(tio, tetgen_reader_names_file_and_line, "TetGen reader: every error names file and line");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "lib-soft", build); }
