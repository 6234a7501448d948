/* SPDX-License-Identifier: MIT */
/* Chapter 3 tests: contact generation and CCD. Graded tests check certificates: surface points
   on both surfaces, identities (swap, rigid motion), analytic signed distances, brute-force
   separation searches and fine time sampling; worked numbers are computed by hand for the
   notes' section they name. Run with `make test-ch3` (your code) or `make test-ch3 IMPL=solutions`. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "cft.h"
#include "cf/cf_ch03.h"
#include "cf/cf_detect.h"
#include "cf/cf_rng.h"
#include "cf/cf_scene.h"
#include "cf/cf_world.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

static cfVec3 V(double x, double y, double z) { return cfu_vec3(x, y, z); }

static cfQuat axis_angle(double x, double y, double z, double deg)
{
    return cfu_quat_from_axis_angle(V(x, y, z), deg * CF_PI / 180.0);
}

static cfObb unit_cube(cfVec3 c, cfQuat q) { return cf_obb_make(c, q, V(0.5, 0.5, 0.5)); }

/* surface points of a contact: p_A = p - phi/2 n, p_B = p + phi/2 n */
static cfVec3 point_a(const cfContact *c) { return cfu_mul_add(c->p, -0.5 * c->phi, c->n); }
static cfVec3 point_b(const cfContact *c) { return cfu_mul_add(c->p, 0.5 * c->phi, c->n); }

static void assert_unit(cfVec3 n)
{
    ck_assert_msg(cfu_vec3_finite(n), "normal is not finite");
    cft_assert_near(cfu_norm(n), 1.0, 1e-12, 0);
}

/* a random rigid motion */
static cfPose random_pose(cfRng *rng, double spread)
{
    return cf_pose_make(cf_rng_vec3(rng, -spread, spread), cf_rng_quat(rng));
}

static cfObb obb_moved(cfPose T, const cfObb *b)
{
    cfObb r = {cf_pose_apply(T, b->c), cfu_mat3_mul(T.R, b->R), b->h};
    return r;
}

static cfObb random_box(cfRng *rng, double spread)
{
    return cf_obb_make(cf_rng_vec3(rng, -spread, spread), cf_rng_quat(rng), cf_rng_vec3(rng, 0.2, 1.0));
}

/* projection interval of 8 vertices on l */
static void project(const cfVec3 v[8], cfVec3 l, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int k = 0; k < 8; ++k) {
        double d = cfu_dot(v[k], l);
        *lo = fmin(*lo, d);
        *hi = fmax(*hi, d);
    }
}

/* separation of the vertex projections of two boxes along unit l (either order) */
static double brute_gap_v(const cfVec3 va[8], const cfVec3 vb[8], cfVec3 l)
{
    double alo, ahi, blo, bhi;
    project(va, l, &alo, &ahi);
    project(vb, l, &blo, &bhi);
    return fmax(blo - ahi, alo - bhi);
}

static double brute_gap(const cfObb *a, const cfObb *b, cfVec3 l)
{
    cfVec3 va[8], vb[8];
    for (int k = 0; k < 8; ++k) va[k] = cf_obb_vertex(a, k), vb[k] = cf_obb_vertex(b, k);
    return brute_gap_v(va, vb, l);
}

/* does a sample point of A (9^3 grid) lie inside B? */
static bool boxes_share_a_point(const cfObb *a, const cfObb *b)
{
    for (int i = 0; i <= 8; ++i)
        for (int j = 0; j <= 8; ++j)
            for (int k = 0; k <= 8; ++k) {
                cfVec3 l = V(a->h.x * (i / 4.0 - 1.0), a->h.y * (j / 4.0 - 1.0), a->h.z * (k / 4.0 - 1.0));
                if (cf_obb_contains(b, cfu_add(a->c, cfu_mat3_mul_vec(a->R, l)), 0.0)) return true;
            }
    return false;
}

static cfRigidBody make_body(cfShape s, double mass)
{
    cfRigidBody b;
    cfError err;
    if (mass > 0)
        ck_assert_msg(cf_rigid_init(&b, s, mass, &err) == CF_OK, "%s", err.msg);
    else
        ck_assert_msg(cf_rigid_init_fixed(&b, s, &err) == CF_OK, "%s", err.msg);
    b.mu = 0.5;
    return b;
}

/* ------------------------------------------------------------------------------------------ */
/* ch03.1 spheres and planes                                                                   */

START_TEST(ch03_1_sphere_sphere_worked)
{
    /* notes 2.1.1: c1 = 0, r1 = 1, c2 = (1.5, 0, 0), r2 = 1 */
    cfContact c;
    ck_assert_int_eq(cf_collide_sphere_sphere(V(0, 0, 0), 1.0, V(1.5, 0, 0), 1.0, 0.0, &c), 1);
    cft_assert_near(c.phi, -0.5, 1e-15, 0);
    cft_assert_vec3_near(c.n, V(1, 0, 0), 1e-15);
    cft_assert_vec3_near(c.p, V(0.75, 0, 0), 1e-15);
    ck_assert_uint_eq(c.feature, cf_feature(CF_FEAT_SINGLE, 0));
    /* touching counts, separated does not */
    ck_assert_int_eq(cf_collide_sphere_sphere(V(0, 0, 0), 1.0, V(0, 2, 0), 1.0, 0.0, &c), 1);
    cft_assert_near(c.phi, 0.0, 1e-15, 0);
    ck_assert_int_eq(cf_collide_sphere_sphere(V(0, 0, 0), 1.0, V(0, 0, 2.01), 1.0, 0.0, &c), 0);
}
END_TEST

START_TEST(ch03_1_sphere_sphere_certificates)
{
    /* random pairs: surface points on both spheres, phi = |d| - r1 - r2, swap symmetry */
    cfRng rng;
    cf_rng_seed(&rng, 301);
    for (int k = 0; k < 2000; ++k) {
        cfVec3 ca = cf_rng_vec3(&rng, -1, 1), cb = cf_rng_vec3(&rng, -1, 1);
        double ra = cf_rng_range(&rng, 0.1, 1), rb = cf_rng_range(&rng, 0.1, 1);
        cfContact c, s;
        int n = cf_collide_sphere_sphere(ca, ra, cb, rb, 0.0, &c);
        double phi = cfu_norm(cfu_sub(cb, ca)) - ra - rb;
        ck_assert_int_eq(n, phi <= 0.0 ? 1 : 0);
        if (!n) continue;
        assert_unit(c.n);
        cft_assert_near(c.phi, phi, 1e-13, 0);
        cft_assert_near(cfu_norm(cfu_sub(point_a(&c), ca)), ra, 1e-12, 0);
        cft_assert_near(cfu_norm(cfu_sub(point_b(&c), cb)), rb, 1e-12, 0);
        ck_assert(cfu_dot(c.n, cfu_sub(cb, ca)) > 0.0);
        ck_assert_int_eq(cf_collide_sphere_sphere(cb, rb, ca, ra, 0.0, &s), 1);
        cft_assert_vec3_near(s.n, cfu_neg(c.n), 1e-14);
        cft_assert_vec3_near(s.p, c.p, 1e-14);
        cft_assert_near(s.phi, c.phi, 1e-14, 0);
    }
}
END_TEST

START_TEST(ch03_1_coincident_centres)
{
    /* the degenerate case of the notes: a finite unit normal, full overlap */
    cfContact c;
    ck_assert_int_eq(cf_collide_sphere_sphere(V(1, 2, 3), 0.5, V(1, 2, 3), 0.25, 0.0, &c), 1);
    assert_unit(c.n);
    cft_assert_near(c.phi, -0.75, 1e-15, 0);
    ck_assert(cfu_vec3_finite(c.p));
    ck_assert_uint_eq(c.feature, cf_feature(CF_FEAT_SINGLE, 0));
    /* the threshold is 1e-12 (ra + rb) = 2e-12 for two unit spheres: 1.5e-12 apart is coincident
       (n = (0, 0, 1), p = ca, phi = -2), 1e-11 apart is not (n along the centres) */
    ck_assert_int_eq(cf_collide_sphere_sphere(V(0, 0, 0), 1.0, V(1.5e-12, 0, 0), 1.0, 0.0, &c), 1);
    cft_assert_vec3_near(c.n, V(0, 0, 1), 0.0);
    cft_assert_vec3_near(c.p, V(0, 0, 0), 0.0);
    cft_assert_near(c.phi, -2.0, 0.0, 0);
    ck_assert_int_eq(cf_collide_sphere_sphere(V(0, 0, 0), 1.0, V(1e-11, 0, 0), 1.0, 0.0, &c), 1);
    cft_assert_vec3_near(c.n, V(1, 0, 0), 1e-15);
}
END_TEST

START_TEST(ch03_1_plane_sphere)
{
    /* worked example of the spec, then random planes: p_A on the plane, p_B on the sphere */
    cfContact c;
    ck_assert_int_eq(cf_collide_plane_sphere(V(0, 0, 1), 0.0, V(1, 2, 0.4), 0.5, 0.0, &c), 1);
    cft_assert_near(c.phi, -0.1, 1e-15, 0);
    cft_assert_vec3_near(c.p, V(1, 2, -0.05), 1e-15);
    cft_assert_vec3_near(c.n, V(0, 0, 1), 0.0);
    ck_assert_uint_eq(c.feature, cf_feature(CF_FEAT_SINGLE, 0));
    /* touching (phi = 0) counts at margin 0 */
    ck_assert_int_eq(cf_collide_plane_sphere(V(0, 0, 1), 0.0, V(1, 2, 0.5), 0.5, 0.0, &c), 1);
    cft_assert_near(c.phi, 0.0, 0.0, 0);
    cfRng rng;
    cf_rng_seed(&rng, 302);
    for (int k = 0; k < 1000; ++k) {
        cfVec3 n = cf_rng_unit_vec3(&rng), ctr = cf_rng_vec3(&rng, -2, 2);
        double off = cf_rng_range(&rng, -1, 1), r = cf_rng_range(&rng, 0.1, 1);
        double phi = cfu_dot(n, ctr) - off - r;
        int got = cf_collide_plane_sphere(n, off, ctr, r, 0.0, &c);
        ck_assert_int_eq(got, phi <= 0.0);
        if (!got) continue;
        cft_assert_near(c.phi, phi, 1e-13, 0);
        cft_assert_near(cfu_dot(n, point_a(&c)), off, 1e-12, 0);
        cft_assert_near(cfu_norm(cfu_sub(point_b(&c), ctr)), r, 1e-12, 0);
        cft_assert_vec3_near(c.n, n, 1e-15);
    }
}
END_TEST

START_TEST(ch03_1_margin)
{
    /* speculative contacts: reported when phi <= margin, not otherwise */
    cfContact c;
    ck_assert_int_eq(cf_collide_sphere_sphere(V(0, 0, 0), 1.0, V(2.05, 0, 0), 1.0, 0.1, &c), 1);
    cft_assert_near(c.phi, 0.05, 1e-14, 0);
    ck_assert_int_eq(cf_collide_sphere_sphere(V(0, 0, 0), 1.0, V(2.15, 0, 0), 1.0, 0.1, &c), 0);
    ck_assert_int_eq(cf_collide_plane_sphere(V(0, 1, 0), 1.0, V(0, 2.55, 0), 1.5, 0.1, &c), 1);
    cft_assert_near(c.phi, 0.05, 1e-14, 0);
    ck_assert_int_eq(cf_collide_plane_sphere(V(0, 1, 0), 1.0, V(0, 2.65, 0), 1.5, 0.1, &c), 0);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch03.2 sphere against box                                                                    */

START_TEST(ch03_2_worked_examples)
{
    /* notes 2.1.2: unit box, r = 0.25; shallow at x = -0.7, deep at x = -0.4 */
    cfObb box = unit_cube(V(0, 0, 0), cfu_quat_identity());
    cfContact c;
    ck_assert_int_eq(cf_collide_sphere_box(V(-0.7, 0, 0), 0.25, &box, 0.0, &c), 1);
    cft_assert_near(c.phi, -0.05, 1e-15, 0);
    cft_assert_vec3_near(c.n, V(1, 0, 0), 1e-15);
    cft_assert_vec3_near(point_b(&c), V(-0.5, 0, 0), 1e-15);
    ck_assert_int_eq(cf_collide_sphere_box(V(-0.4, 0, 0), 0.25, &box, 0.0, &c), 1);
    cft_assert_near(c.phi, -0.35, 1e-15, 0);
    cft_assert_vec3_near(c.n, V(1, 0, 0), 1e-15);
    cft_assert_vec3_near(point_b(&c), V(-0.5, 0, 0), 1e-15);
    /* the corner region gives the diagonal normal */
    ck_assert_int_eq(cf_collide_sphere_box(V(0.6, 0.6, 0.6), 0.25, &box, 0.0, &c), 1);
    cft_assert_vec3_near(c.n, cfu_normalize(V(-1, -1, -1)), 1e-15);
    ck_assert_uint_eq(c.feature, cf_feature(CF_FEAT_SINGLE, 0));
    ck_assert_int_eq(cf_collide_sphere_box(V(0, 0, 0.8), 0.25, &box, 0.0, &c), 0);
    /* touching a face (phi = 0) counts at margin 0 */
    ck_assert_int_eq(cf_collide_sphere_box(V(0, 0, 0.75), 0.25, &box, 0.0, &c), 1);
    cft_assert_near(c.phi, 0.0, 0.0, 0);
    /* deep ties: the lowest axis wins, and a zero coordinate counts as + (spec). At (0.3, 0.3, 0)
       the x and y faces are equally near: x, n = (-1, 0, 0), p_B = (0.5, 0.3, 0). At the centre
       all three tie and the coordinate is 0: x, +side, n = (-1, 0, 0), p_B = (0.5, 0, 0). */
    ck_assert_int_eq(cf_collide_sphere_box(V(0.3, 0.3, 0), 0.25, &box, 0.0, &c), 1);
    cft_assert_vec3_near(c.n, V(-1, 0, 0), 0.0);
    cft_assert_vec3_near(point_b(&c), V(0.5, 0.3, 0), 1e-15);
    cft_assert_near(c.phi, -0.45, 1e-15, 0);
    ck_assert_int_eq(cf_collide_sphere_box(V(0, 0, 0), 0.25, &box, 0.0, &c), 1);
    cft_assert_vec3_near(c.n, V(-1, 0, 0), 0.0);
    cft_assert_vec3_near(point_b(&c), V(0.5, 0, 0), 1e-15);
    cft_assert_near(c.phi, -0.75, 1e-15, 0);
}
END_TEST

START_TEST(ch03_2_matches_box_distance)
{
    /* for any sphere and box: phi = (signed distance of the centre to the box) - r and
       n = -grad of that distance (cf_sdf_obb, a library function) except where the nearest
       face is ambiguous; p_B lies on the box surface, p_A on the sphere */
    cfRng rng;
    cf_rng_seed(&rng, 321);
    int deep = 0, shallow = 0;
    for (int k = 0; k < 3000; ++k) {
        cfObb box = random_box(&rng, 0.5);
        cfVec3 ctr = cf_rng_vec3(&rng, -1.5, 1.5);
        double r = cf_rng_range(&rng, 0.05, 0.6);
        cfVec3 g;
        double sd = cf_sdf_obb(&box, ctr, &g);
        cfContact c;
        int n = cf_collide_sphere_box(ctr, r, &box, 0.0, &c);
        ck_assert_int_eq(n, sd - r <= 0.0);
        if (!n) continue;
        sd < 0 ? ++deep : ++shallow;
        assert_unit(c.n);
        cft_assert_near(c.phi, sd - r, 1e-12, 0);
        /* skip the measure-zero ties between two nearest faces */
        cfVec3 l = cfu_mat3_tmul_vec(box.R, cfu_sub(ctr, box.c));
        double d[3] = {box.h.x - fabs(l.x), box.h.y - fabs(l.y), box.h.z - fabs(l.z)};
        bool tie = sd < 0 && (fabs(d[0] - d[1]) < 1e-9 || fabs(d[1] - d[2]) < 1e-9 || fabs(d[0] - d[2]) < 1e-9);
        if (!tie) cft_assert_vec3_near(c.n, cfu_neg(g), 1e-9);
        cft_assert_near(cf_sdf_obb(&box, point_b(&c), NULL), 0.0, 1e-12, 0);
        cft_assert_near(cfu_norm(cfu_sub(point_a(&c), ctr)), r, 1e-12, 0);
    }
    ck_assert(deep > 100 && shallow > 100);
}
END_TEST

START_TEST(ch03_2_continuous_across_faces)
{
    /* move the centre along random lines through the box: phi is 1-Lipschitz in the centre
       (continuous through faces, edges and the shallow/deep switch) and n never flips while
       the centre crosses a face */
    cfRng rng;
    cf_rng_seed(&rng, 322);
    for (int k = 0; k < 100; ++k) {
        cfObb box = random_box(&rng, 0.0);
        double r = cf_rng_range(&rng, 0.1, 0.5);
        cfVec3 dir = cf_rng_unit_vec3(&rng);
        cfVec3 start = cfu_mul_add(box.c, -2.0, dir);
        const int steps = 400;
        const double ds = 4.0 / steps;
        cfContact prev;
        bool have = false;
        for (int s = 0; s <= steps; ++s) {
            cfVec3 ctr = cfu_mul_add(start, s * ds, dir);
            cfContact c;
            int n = cf_collide_sphere_box(ctr, r, &box, 10.0, &c); /* large margin: always a contact */
            ck_assert_int_eq(n, 1);
            if (have) {
                ck_assert_msg(fabs(c.phi - prev.phi) <= ds * (1 + 1e-9), "phi jumps by %g over a step of %g",
                              fabs(c.phi - prev.phi), ds);
                double in_prev = cf_sdf_obb(&box, cfu_mul_add(ctr, -ds, dir), NULL), in_now = cf_sdf_obb(&box, ctr, NULL);
                if ((in_prev > 0) != (in_now > 0)) /* crossing the surface: the normal is kept */
                    ck_assert_msg(cfu_dot(c.n, prev.n) > 0.5, "normal flips across the face");
            }
            prev = c;
            have = true;
        }
    }
}
END_TEST

START_TEST(ch03_2_rigid_motion)
{
    /* moving sphere and box together by a rigid motion moves the contact with them */
    cfRng rng;
    cf_rng_seed(&rng, 323);
    for (int k = 0; k < 1000; ++k) {
        cfObb box = random_box(&rng, 0.3);
        cfVec3 ctr = cf_rng_vec3(&rng, -1, 1);
        double r = cf_rng_range(&rng, 0.2, 0.8);
        cfPose T = random_pose(&rng, 3.0);
        cfObb moved = obb_moved(T, &box);
        cfContact c, m;
        int n = cf_collide_sphere_box(ctr, r, &box, 0.0, &c);
        ck_assert_int_eq(cf_collide_sphere_box(cf_pose_apply(T, ctr), r, &moved, 0.0, &m), n);
        if (!n) continue;
        cft_assert_near(m.phi, c.phi, 1e-12, 0);
        cft_assert_vec3_near(m.n, cfu_mat3_mul_vec(T.R, c.n), 1e-9);
        cft_assert_vec3_near(m.p, cf_pose_apply(T, c.p), 1e-9);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch03.3 boxes                                                                                 */

START_TEST(ch03_3_sat_worked)
{
    /* notes 2.1.3, unit cubes, A at the origin */
    cfObb A = unit_cube(V(0, 0, 0), cfu_quat_identity());
    cfObb B = unit_cube(V(0, 1.1, 0), cfu_quat_identity());
    cfSatResult r = cf_sat_box_box(&A, &B, 0.0);
    ck_assert(r.separated);
    cft_assert_near(r.s, 0.1, 1e-12, 0);
    B = unit_cube(V(0, 0.9, 0), cfu_quat_identity());
    r = cf_sat_box_box(&A, &B, 0.0);
    ck_assert(!r.separated);
    ck_assert_int_eq(r.axis, 1); /* A's face wins the three-way tie with B's face and a_z x b_x */
    cft_assert_near(r.s, -0.1, 1e-12, 0);
    cft_assert_vec3_near(r.n, V(0, 1, 0), 1e-12);
    /* crossed edges: s = 1.4 - sqrt(2) on the axis a_z x b_x */
    A = unit_cube(V(0, 0, 0), axis_angle(0, 0, 1, 45));
    B = unit_cube(V(0, 1.4, 0), axis_angle(1, 0, 0, 45));
    r = cf_sat_box_box(&A, &B, 0.0);
    ck_assert(!r.separated);
    ck_assert_int_eq(r.axis, 6 + 3 * 2 + 0);
    cft_assert_near(r.s, 1.4 - sqrt(2.0), 1e-12, 0);
    cft_assert_vec3_near(r.n, V(0, 1, 0), 1e-12);
}
END_TEST

START_TEST(ch03_3_sat_touching_faces)
{
    /* unit cubes face to face, A at the origin and B at (0, 1, 0), margin 0: A's face axis y, B's
       face axis y and the cross axis a_z x b_x all give s = 0 exactly. At s = 0 the edge bias
       CF_SAT_EDGE_BIAS |s| vanishes, so only the tie tolerance CF_SAT_TIE_EPS L keeps the face:
       a test "s_edge >= s_face + bias |s_face|" or a missing tie term picks the edge axis and
       returns one edge-edge contact instead of the 4-point face manifold a resting box needs. */
    cfObb A = unit_cube(V(0, 0, 0), cfu_quat_identity());
    cfObb B = unit_cube(V(0, 1, 0), cfu_quat_identity());
    cfSatResult r = cf_sat_box_box(&A, &B, 0.0);
    ck_assert(!r.separated);
    ck_assert_int_eq(r.axis, 1);
    cft_assert_near(r.s, 0.0, 1e-12, 0);
    cft_assert_vec3_near(r.n, V(0, 1, 0), 1e-12);
    cfContact c[CF_BOX_MAX_CONTACTS];
    int n = cf_collide_box_box(&A, &B, 0.0, 4, c);
    ck_assert_int_eq(n, 4);
    for (int k = 0; k < n; ++k) {
        cft_assert_int_at(cf_feature_type(c[k].feature), ==, CF_FEAT_FACE_A, "k = %d", k);
        cft_assert_near_at(c[k].phi, 0.0, 1e-12, 0, "k = %d", k);
        cft_assert_vec3_near_at(c[k].n, V(0, 1, 0), 1e-12, "k = %d", k);
        cft_assert_near_at(c[k].p.y, 0.5, 1e-12, 0, "k = %d", k);
    }
    /* the same with B's face turned by 30 degrees about y: B's face axis ties with A's, A's wins */
    B = unit_cube(V(0, 1, 0), axis_angle(0, 1, 0, 30));
    r = cf_sat_box_box(&A, &B, 0.0);
    ck_assert_int_eq(r.axis, 1);
    ck_assert_int_eq(cf_collide_box_box(&A, &B, 0.0, 8, c), 8);
    /* the same pair (B turned about the common normal) under random rigid motions: the cross
       axes that are the normal again up to round-off have an s that can exceed the face's (about
       0) by 1e-16, and at s = 0 the bias is nothing: only the tie term keeps A's face (a margin
       of 1e-3: the face s itself may be 1e-16 > 0) */
    cfRng rng;
    cf_rng_seed(&rng, 303);
    for (int t = 0; t < 200; ++t) {
        cfQuat q = cf_rng_quat(&rng), spin = axis_angle(0, 1, 0, cf_rng_range(&rng, 1, 89));
        cfVec3 o = cf_rng_vec3(&rng, -1, 1);
        A = unit_cube(o, q);
        B = unit_cube(cfu_add(o, cfu_quat_rotate(q, V(0, 1, 0))), cfu_quat_mul(q, spin));
        r = cf_sat_box_box(&A, &B, 1e-3);
        ck_assert(!r.separated);
        cft_assert_int_at(r.axis, ==, 1, "t = %d", t);
    }
}
END_TEST

START_TEST(ch03_3_sat_ties_and_bias)
{
    /* 1. Separated along an edge axis: the crossed edges of ch03_3_sat_worked lifted by 0.02 are
       separated by s = 1.42 - sqrt(2) along a_z x b_x, axis 6 + 3 * 2 + 0 = 12 (the spec returns
       the separating axis itself, not only "separated"). */
    cfObb A = unit_cube(V(0, 0, 0), axis_angle(0, 0, 1, 45));
    cfObb B = unit_cube(V(0, 1.42, 0), axis_angle(1, 0, 0, 45));
    cfSatResult r = cf_sat_box_box(&A, &B, 0.0);
    ck_assert(r.separated);
    ck_assert_int_eq(r.axis, 12);
    cft_assert_near(r.s, 1.42 - sqrt(2.0), 1e-12, 0);
    cft_assert_near(r.s_max, r.s, 0.0, 0);
    cft_assert_vec3_near(r.n, V(0, 1, 0), 1e-12);
    /* the same cubes with their axes relabelled by quarter turns (the same sets of points): B's
       edge along x is now b_y (axis 6 + 3 * 2 + 1 = 13), then also A's edge along z is a_x
       (axis 6 + 3 * 0 + 1 = 7): the index names both edges */
    B = unit_cube(V(0, 1.42, 0), cfu_quat_mul(axis_angle(1, 0, 0, 45), axis_angle(0, 0, 1, 90)));
    r = cf_sat_box_box(&A, &B, 0.0);
    ck_assert(r.separated);
    ck_assert_int_eq(r.axis, 13);
    cft_assert_near(r.s, 1.42 - sqrt(2.0), 1e-12, 0);
    A = unit_cube(V(0, 0, 0), cfu_quat_mul(axis_angle(0, 0, 1, 45), axis_angle(0, 1, 0, 90)));
    r = cf_sat_box_box(&A, &B, 0.0);
    ck_assert(r.separated);
    ck_assert_int_eq(r.axis, 7);
    cft_assert_near(r.s, 1.42 - sqrt(2.0), 1e-12, 0);
    cft_assert_vec3_near(r.n, V(0, 1, 0), 1e-12);
    /* 2. A face of B better than A's by less than the tie tolerance keeps A's face. A turned by
       theta = 1e-5 rad (about an axis across the contact axis), B axis-aligned at 0.9 along the
       contact axis: s_B - s_A = 0.9 (1 - cos theta) = 4.5e-11, far above round-off and below
       CF_SAT_TIE_EPS L = 5e-10. Along x, y and z: A's face axes 0, 1, 2 against B's 3, 4, 5. */
    const double th = 1e-5 * 180.0 / CF_PI;
    const cfVec3 across[3] = {V(0, 0, 1), V(1, 0, 0), V(0, 1, 0)};
    for (int k = 0; k < 3; ++k) {
        cfVec3 off = V(k == 0 ? 0.9 : 0, k == 1 ? 0.9 : 0, k == 2 ? 0.9 : 0);
        A = unit_cube(V(0, 0, 0), axis_angle(across[k].x, across[k].y, across[k].z, th));
        B = unit_cube(off, cfu_quat_identity());
        r = cf_sat_box_box(&A, &B, 0.0);
        ck_assert_msg(r.axis == k, "contact along axis %d: SAT chose axis %d, B's face beats A's by 4.5e-11 only", k,
                      r.axis);
        /* the other way round B's face wins clearly: B turned, A axis-aligned */
        B = unit_cube(off, axis_angle(across[k].x, across[k].y, across[k].z, 1.0));
        A = unit_cube(V(0, 0, 0), cfu_quat_identity());
        r = cf_sat_box_box(&B, &A, 0.0);
        cft_assert_int_at(r.axis, ==, 3 + k, "k = %d", k);
    }
    /* 3. The face bias: random overlapping pairs whose best edge axis is shallower than the best
       face axis by 1 % to 4 % of the depth must keep the face (an edge axis needs more than
       CF_SAT_EDGE_BIAS = 5 %); between 6 % and 20 % the edge axis wins */
    cfRng rng;
    cf_rng_seed(&rng, 337);
    int kept = 0, taken = 0;
    for (int t = 0; t < 20000 && (kept < 20 || taken < 20); ++t) {
        A = random_box(&rng, 0.0);
        B = random_box(&rng, 0.9);
        cfVec3 d = cfu_sub(B.c, A.c);
        double sf = -INFINITY, se = -INFINITY;
        for (int i = 0; i < 3; ++i) {
            cfVec3 l = cfu_mat3_col(A.R, i);
            sf = fmax(sf, fabs(cfu_dot(d, l)) - cf_obb_project_radius(&A, l) - cf_obb_project_radius(&B, l));
            l = cfu_mat3_col(B.R, i);
            sf = fmax(sf, fabs(cfu_dot(d, l)) - cf_obb_project_radius(&A, l) - cf_obb_project_radius(&B, l));
            for (int j = 0; j < 3; ++j) {
                l = cfu_cross(cfu_mat3_col(A.R, i), cfu_mat3_col(B.R, j));
                if (cfu_norm(l) < 1e-3) continue;
                l = cfu_normalize(l);
                se = fmax(se, fabs(cfu_dot(d, l)) - cf_obb_project_radius(&A, l) - cf_obb_project_radius(&B, l));
            }
        }
        if (sf > -1e-3 || se <= sf) continue; /* deep enough that the tie tolerance is negligible */
        double rel = (se - sf) / fabs(sf);
        r = cf_sat_box_box(&A, &B, 0.0);
        if (rel > 0.01 && rel < 0.04) {
            ++kept;
            ck_assert_msg(r.axis < 6, "pair %d: edge axis %d chosen, %.1f %% shallower than the face", t, r.axis,
                          100 * rel);
        } else if (rel > 0.06 && rel < 0.2) {
            ++taken;
            ck_assert_msg(r.axis >= 6, "pair %d: face axis %d kept, the edge is %.1f %% shallower", t, r.axis, 100 * rel);
        }
    }
    ck_assert(kept >= 20 && taken >= 20);
    /* 4. Among A's own faces the largest s wins, the first on an exact tie: B at (0.9, 0.9, 0)
       ties x and y (axis 0); B at (0.9, 0, 0.9 + 1e-11) is deeper along x than along z by 1e-11,
       so z (axis 2) wins: the tie tolerance is only for B's faces and the edges */
    A = unit_cube(V(0, 0, 0), cfu_quat_identity());
    B = unit_cube(V(0.9, 0.9, 0), cfu_quat_identity());
    ck_assert_int_eq(cf_sat_box_box(&A, &B, 0.0).axis, 0);
    B = unit_cube(V(0.9, 0, 0.9 + 1e-11), cfu_quat_identity());
    ck_assert_int_eq(cf_sat_box_box(&A, &B, 0.0).axis, 2);
    /* 5. The tie tolerance scales with the largest half extent of both boxes, whichever comes
       first: a unit cube and a cube of half extent 1000 (L = 1000, CF_SAT_TIE_EPS L = 1e-6).
       B's face better by about 1e-7 keeps A's face (a tolerance of A's or the small box's
       size, 5e-10, would not); better by about 3e-6 it wins. The geometry is checked first. */
    const cfVec3 big = V(1000, 1000, 1000);
    const double turn[3] = {1e-10, 3e-9, -2e-7};
    for (int k = 0; k < 3; ++k) {
        if (k < 2) { /* small A, big B turned about z beside it along x: s_B - s_A = 1000 theta */
            A = unit_cube(V(0, 0, 0), cfu_quat_identity());
            B = cf_obb_make(V(1000.4, 0, 0), cfu_quat_from_axis_angle(V(0, 0, 1), turn[k]), big);
        } else { /* big A turned, small B at its edge (y = 1000): s_B - s_A = 0.5 |theta| */
            A = cf_obb_make(V(0, 0, 0), cfu_quat_from_axis_angle(V(0, 0, 1), turn[k]), big);
            B = unit_cube(V(1000.4, 1000, 0), cfu_quat_identity());
        }
        cfVec3 d = cfu_sub(B.c, A.c), la = cfu_mat3_col(A.R, 0), lb = cfu_mat3_col(B.R, 0);
        double sa = fabs(cfu_dot(d, la)) - cf_obb_project_radius(&A, la) - cf_obb_project_radius(&B, la);
        double sb = fabs(cfu_dot(d, lb)) - cf_obb_project_radius(&A, lb) - cf_obb_project_radius(&B, lb);
        bool b_wins = k == 1;
        cft_assert_at(b_wins ? sb - sa > 2e-6 && sb - sa < 5e-6 : sb - sa > 5e-8 && sb - sa < 5e-7,
                      "k = %d (s_B - s_A = %g)", k, sb - sa);
        r = cf_sat_box_box(&A, &B, 0.0);
        cft_assert_int_at(r.axis, ==, b_wins ? 3 : 0, "k = %d (s_B - s_A = %g, CF_SAT_TIE_EPS L = 1e-6)", k, sb - sa);
    }
}
END_TEST

START_TEST(ch03_3_feature_ids)
{
    /* feature ids name the features (cf_geometry.h numbering), so warm starting can match them:
       - stacked cubes, B at (0, 0.9, 0): reference face 2 (+y of A), incident face 3 (-y of B),
         and the 4 points are B's face vertices, tags 0..3 (they lie exactly on A's side planes
         x = +-0.5, z = +-0.5: on the plane counts as inside, no crossing is made);
       - the crossed edges: eA << 4 | eB with eA the edge of A along a_z highest in y (11: +x +y
         signs) and eB the edge of B along b_x lowest in y (2): the contact's surface points lie
         on those edges */
    cfObb A = unit_cube(V(0, 0, 0), cfu_quat_identity());
    cfObb B = unit_cube(V(0, 0.9, 0), cfu_quat_identity());
    cfContact c[CF_BOX_MAX_CONTACTS];
    ck_assert_int_eq(cf_collide_box_box(&A, &B, 0.0, 4, c), 4);
    int tags = 0;
    for (int k = 0; k < 4; ++k) {
        uint32_t pl = cf_feature_payload(c[k].feature);
        cft_assert_int_at(cf_feature_type(c[k].feature), ==, CF_FEAT_FACE_A, "k = %d", k);
        ck_assert_int_eq((int)(pl >> 9), 2);
        ck_assert_int_eq((int)((pl >> 6) & 7), 3);
        ck_assert_int_lt((int)(pl & 63), 4);
        tags |= 1 << (pl & 63);
    }
    ck_assert_int_eq(tags, 15);
    /* swapped: the reference face is B's -y face... of the first argument: A is now the upper box */
    ck_assert_int_eq(cf_collide_box_box(&B, &A, 0.0, 4, c), 4);
    for (int k = 0; k < 4; ++k) {
        uint32_t pl = cf_feature_payload(c[k].feature);
        cft_assert_int_at(cf_feature_type(c[k].feature), ==, CF_FEAT_FACE_A, "k = %d", k);
        ck_assert_int_eq((int)(pl >> 9), 3);
        ck_assert_int_eq((int)((pl >> 6) & 7), 2);
    }
    /* B turned 45 deg about y: its face's corners stick out of A's top face across the four side
       planes, x <= 0.5 (c = 0), -x <= 0.5 (1), z <= 0.5 (2), -z <= 0.5 (3): 8 crossings with
       tags 8 + 8 c + e, each on its plane c and on an edge (e <= 3) of B's bottom face */
    B = unit_cube(V(0, 0.9, 0), axis_angle(0, 1, 0, 45));
    ck_assert_int_eq(cf_collide_box_box(&A, &B, 0.0, 8, c), 8);
    int planes[4] = {0, 0, 0, 0};
    for (int k = 0; k < 8; ++k) {
        int tag = (int)(cf_feature_payload(c[k].feature) & 63);
        ck_assert_msg(tag >= 8 && tag < 40, "crossing tag %d", tag);
        int cp = (tag - 8) / 8, e = (tag - 8) % 8;
        ck_assert_int_le(e, 3);
        planes[cp]++;
        cfVec3 pa = point_a(&c[k]);
        double on = cp == 0 ? pa.x - 0.5 : cp == 1 ? -pa.x - 0.5 : cp == 2 ? pa.z - 0.5 : -pa.z - 0.5;
        cft_assert_near(on, 0.0, 1e-12, 0);
        /* on the boundary of B's bottom face: in B's frame |x| or |z| is 0.5, the other below */
        cfVec3 lb = cfu_mat3_tmul_vec(B.R, cfu_sub(point_b(&c[k]), B.c));
        cft_assert_near(fmax(fabs(lb.x), fabs(lb.z)), 0.5, 1e-12, 0);
    }
    for (int k = 0; k < 4; ++k) cft_assert_int_at(planes[k], ==, 2, "k = %d", k);
    /* an exact tie of the incident face: B on its edge, turned 45 deg about x with the rotation
       written exactly (b_y = (0, s, s), b_z = (0, -s, s), s = sqrt(1/2)), at (0, 1.1, 0): A's
       +y face is the reference (s = -0.107, B's faces -0.43), and |b_y . m| = |b_z . m| = s.
       Both faces hold B's lowest edge, so both give its two ends as the contacts (phi = 1.1 -
       2 s / 2 - 0.5); the spec's rule, the lowest j on a tie, names B's -y face (3), not +z (4) */
    B = unit_cube(V(0, 1.1, 0), cfu_quat_identity());
    {
        const double s = sqrt(0.5);
        B.R = (cfMat3){{{1, 0, 0}, {0, s, -s}, {0, s, s}}};
        ck_assert_int_eq(cf_collide_box_box(&A, &B, 0.0, 4, c), 2);
        for (int k = 0; k < 2; ++k) {
            uint32_t plk = cf_feature_payload(c[k].feature);
            cft_assert_int_at(cf_feature_type(c[k].feature), ==, CF_FEAT_FACE_A, "k = %d", k);
            cft_assert_int_at((int)(plk >> 9), ==, 2, "k = %d: the reference face", k);
            cft_assert_int_at((int)((plk >> 6) & 7), ==, 3, "k = %d: the incident face (the lowest j of a tie)", k);
            cft_assert_near_at(c[k].phi, 1.1 - s - 0.5, 1e-12, 0, "k = %d", k);
            cft_assert_near_at(fabs(point_b(&c[k]).x), 0.5, 1e-12, 0, "k = %d", k);
        }
    }
    A = unit_cube(V(0, 0, 0), axis_angle(0, 0, 1, 45));
    B = unit_cube(V(0, 1.4, 0), axis_angle(1, 0, 0, 45));
    ck_assert_int_eq(cf_collide_box_box(&A, &B, 0.0, 4, c), 1);
    uint32_t pl = cf_feature_payload(c[0].feature);
    int ea = (int)(pl >> 4), eb = (int)(pl & 15);
    ck_assert_int_eq(ea, 11);
    ck_assert_int_eq(eb, 2);
    cfVec3 a0, a1, b0, b1;
    cf_obb_edge(&A, ea, &a0, &a1);
    cf_obb_edge(&B, eb, &b0, &b1);
    cft_assert_near(sqrt(cf_segment_closest(point_a(&c[0]), point_a(&c[0]), a0, a1, NULL, NULL)), 0.0, 1e-12, 0);
    cft_assert_near(sqrt(cf_segment_closest(point_b(&c[0]), point_b(&c[0]), b0, b1, NULL, NULL)), 0.0, 1e-12, 0);
}
END_TEST

START_TEST(ch03_3_sat_brute_force)
{
    /* random box pairs: a separated verdict is certified by the vertex projections on the
       returned axis; an overlapping verdict by a shared sample point or by no sampled direction
       separating better than s_max; s_max is the separation of the returned axis up to the face
       bias */
    cfRng rng;
    cf_rng_seed(&rng, 331);
    int sep = 0, over = 0;
    for (int k = 0; k < 1500; ++k) {
        cfObb A = random_box(&rng, 0.0), B = random_box(&rng, 1.3);
        cfSatResult r = cf_sat_box_box(&A, &B, 0.0);
        assert_unit(r.n);
        ck_assert(cfu_dot(r.n, cfu_sub(B.c, A.c)) >= 0.0);
        if (r.separated) {
            ++sep;
            ck_assert(r.s > 0.0);
            cft_assert_near(brute_gap(&A, &B, r.n), r.s, 1e-9, 0);
            ck_assert_msg(!boxes_share_a_point(&A, &B), "SAT says separated, but a point of A lies in B");
            continue;
        }
        ++over;
        cft_assert_near(brute_gap(&A, &B, r.n), r.s, 1e-9, 0);
        ck_assert(r.s <= r.s_max + 1e-12);
        ck_assert(r.s >= r.s_max - CF_SAT_EDGE_BIAS * fabs(r.s) - 1e-9);
        cfVec3 va[8], vb[8];
        for (int v = 0; v < 8; ++v) va[v] = cf_obb_vertex(&A, v), vb[v] = cf_obb_vertex(&B, v);
        for (int d = 0; d < 300; ++d) {
            cfVec3 l = cf_rng_unit_vec3(&rng);
            double g = brute_gap_v(va, vb, l);
            ck_assert_msg(g <= r.s_max + 1e-9, "direction separates by %g > s_max %g", g, r.s_max);
        }
    }
    ck_assert(sep > 200 && over > 200);
}
END_TEST

static int find_near(const cfContact *c, int n, cfVec3 p, double tol)
{
    for (int k = 0; k < n; ++k)
        if (cfu_norm(cfu_sub(c[k].p, p)) <= tol) return k;
    return -1;
}

START_TEST(ch03_3_face_manifolds_worked)
{
    /* notes 2.1.3: stacked cubes give 4 points at depth 0.1 on A's top face; turning the top
       cube by 45 deg about y gives the clipped octagon, 8 points before reduction */
    cfObb A = unit_cube(V(0, 0, 0), cfu_quat_identity());
    cfObb B = unit_cube(V(0, 0.9, 0), cfu_quat_identity());
    cfContact c[CF_BOX_MAX_CONTACTS];
    int n = cf_collide_box_box(&A, &B, 0.0, 4, c);
    ck_assert_int_eq(n, 4);
    for (int k = 0; k < n; ++k) {
        cft_assert_near_at(c[k].phi, -0.1, 1e-12, 0, "k = %d", k);
        cft_assert_vec3_near_at(c[k].n, V(0, 1, 0), 1e-12, "k = %d", k);
        cfVec3 pa = point_a(&c[k]);
        cft_assert_near(fabs(pa.x), 0.5, 1e-12, 0);
        cft_assert_near(pa.y, 0.5, 1e-12, 0);
        cft_assert_near(fabs(pa.z), 0.5, 1e-12, 0);
        for (int j = 0; j < k; ++j) cft_assert_at(c[j].feature != c[k].feature, "k = %d, j = %d", k, j);
    }
    B = unit_cube(V(0, 0.9, 0), axis_angle(0, 1, 0, 45));
    n = cf_collide_box_box(&A, &B, 0.0, 8, c);
    ck_assert_int_eq(n, 8);
    const double q = sqrt(0.5) - 0.5; /* 0.2071 */
    const double want[8][2] = {{0.5, q}, {0.5, -q}, {-0.5, q}, {-0.5, -q}, {q, 0.5}, {-q, 0.5}, {q, -0.5}, {-q, -0.5}};
    for (int k = 0; k < 8; ++k) {
        cft_assert_near_at(c[k].phi, -0.1, 1e-12, 0, "k = %d", k);
        bool hit = false;
        for (int j = 0; j < 8; ++j)
            if (cfu_norm(cfu_sub(point_a(&c[j]), V(want[k][0], 0.5, want[k][1]))) < 1e-9) hit = true;
        ck_assert_msg(hit, "octagon vertex (%g, 0.5, %g) missing", want[k][0], want[k][1]);
    }
    /* reduced to 4: a subset that keeps at least half of the octagon's area */
    cfContact r[CF_BOX_MAX_CONTACTS];
    int m = cf_collide_box_box(&A, &B, 0.0, 4, r);
    ck_assert_int_eq(m, 4);
    for (int k = 0; k < 4; ++k) cft_assert_at(find_near(c, 8, r[k].p, 1e-12) >= 0, "k = %d", k);
    double area = 0.0; /* shoelace in the xz plane, after sorting by angle */
    double ang[4];
    int ord[4] = {0, 1, 2, 3};
    for (int k = 0; k < 4; ++k) ang[k] = atan2(r[k].p.z, r[k].p.x);
    for (int i = 1; i < 4; ++i)
        for (int j = i; j > 0 && ang[ord[j - 1]] > ang[ord[j]]; --j) {
            int t = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = t;
        }
    for (int k = 0; k < 4; ++k) {
        cfVec3 a = r[ord[k]].p, b = r[ord[(k + 1) % 4]].p;
        area += 0.5 * (a.x * b.z - b.x * a.z);
    }
    double octagon = 1.0 - 2.0 * (0.5 - q) * (0.5 - q);
    ck_assert_msg(fabs(area) >= 0.5 * octagon, "reduced manifold area %g of %g", fabs(area), octagon);
}
END_TEST

START_TEST(ch03_3_edge_edge_worked)
{
    /* notes 2.1.3: crossed edges give one contact at (0, 0.7, 0), phi = 1.4 - sqrt(2) */
    cfObb A = unit_cube(V(0, 0, 0), axis_angle(0, 0, 1, 45));
    cfObb B = unit_cube(V(0, 1.4, 0), axis_angle(1, 0, 0, 45));
    cfContact c[CF_BOX_MAX_CONTACTS];
    ck_assert_int_eq(cf_collide_box_box(&A, &B, 0.0, 4, c), 1);
    cft_assert_near(c[0].phi, 1.4 - sqrt(2.0), 1e-12, 0);
    cft_assert_vec3_near(c[0].p, V(0, 0.7, 0), 1e-12);
    cft_assert_vec3_near(c[0].n, V(0, 1, 0), 1e-12);
    ck_assert_int_eq(cf_feature_type(c[0].feature), CF_FEAT_EDGE_EDGE);
    /* lifted by 0.02 they separate */
    B.c.y += 0.02;
    ck_assert_int_eq(cf_collide_box_box(&A, &B, 0.0, 4, c), 0);
}
END_TEST

/* a random overlapping pair whose SAT choice is not near a tie (so swapping A and B keeps it) */
static bool random_overlapping_pair(cfRng *rng, cfObb *A, cfObb *B)
{
    *A = random_box(rng, 0.0);
    *B = random_box(rng, 0.9);
    cfSatResult r = cf_sat_box_box(A, B, 0.0);
    if (r.separated) return false;
    /* best face separations of A and B, and the best edge separation */
    cfVec3 d = cfu_sub(B->c, A->c);
    double sa = -INFINITY, sb = -INFINITY, se = -INFINITY;
    for (int i = 0; i < 3; ++i) {
        cfVec3 l = cfu_mat3_col(A->R, i);
        sa = fmax(sa, fabs(cfu_dot(d, l)) - cf_obb_project_radius(A, l) - cf_obb_project_radius(B, l));
        l = cfu_mat3_col(B->R, i);
        sb = fmax(sb, fabs(cfu_dot(d, l)) - cf_obb_project_radius(A, l) - cf_obb_project_radius(B, l));
        for (int j = 0; j < 3; ++j) {
            l = cfu_cross(cfu_mat3_col(A->R, i), cfu_mat3_col(B->R, j));
            if (cfu_norm(l) < 1e-3) continue;
            l = cfu_normalize(l);
            se = fmax(se, fabs(cfu_dot(d, l)) - cf_obb_project_radius(A, l) - cf_obb_project_radius(B, l));
        }
    }
    double sf = fmax(sa, sb);
    if (fabs(sa - sb) < 1e-4) return false;
    if (fabs(se - (sf + CF_SAT_EDGE_BIAS * fabs(sf))) < 1e-4) return false;
    return true;
}

START_TEST(ch03_3_manifold_certificates)
{
    /* random overlapping boxes: the manifold is non-empty, shares the SAT normal, every p_A lies
       on A's surface and every p_B on B's, phi <= 0 and no deeper than the SAT penetration,
       feature ids are distinct */
    cfRng rng;
    cf_rng_seed(&rng, 333);
    int tested = 0, edges = 0;
    for (int k = 0; k < 4000 && tested < 1500; ++k) {
        cfObb A, B;
        if (!random_overlapping_pair(&rng, &A, &B)) continue;
        ++tested;
        cfSatResult r = cf_sat_box_box(&A, &B, 0.0);
        cfContact c[CF_BOX_MAX_CONTACTS];
        int n = cf_collide_box_box(&A, &B, 0.0, 4, c);
        ck_assert_msg(n >= 1 && n <= 4, "%d contacts for an overlapping pair", n);
        for (int j = 0; j < n; ++j) {
            cft_assert_vec3_near_at(c[j].n, r.n, 1e-12, "j = %d", j);
            cft_assert_at(c[j].phi <= 0.0, "j = %d", j);
            cft_assert_at(c[j].phi >= r.s - 1e-9, "j = %d", j);
            cft_assert_near_at(cf_sdf_obb(&A, point_a(&c[j]), NULL), 0.0, 1e-9, 0, "j = %d", j);
            cft_assert_near_at(cf_sdf_obb(&B, point_b(&c[j]), NULL), 0.0, 1e-9, 0, "j = %d", j);
            if (cf_feature_type(c[j].feature) == CF_FEAT_EDGE_EDGE) ++edges;
            for (int i = 0; i < j; ++i) cft_assert_at(c[i].feature != c[j].feature, "j = %d, i = %d", j, i);
        }
    }
    ck_assert(tested >= 1000 && edges > 20);
}
END_TEST

START_TEST(ch03_3_swap_and_rigid_motion)
{
    /* swapping A and B flips the normal and keeps the points and depths; a rigid motion of
       both boxes moves the contacts with them and keeps their feature ids */
    cfRng rng;
    cf_rng_seed(&rng, 334);
    int tested = 0;
    for (int k = 0; k < 3000 && tested < 800; ++k) {
        cfObb A, B;
        if (!random_overlapping_pair(&rng, &A, &B)) continue;
        ++tested;
        cfContact c[8], s[8], m[8];
        int n = cf_collide_box_box(&A, &B, 0.0, 8, c);
        ck_assert_int_eq(cf_collide_box_box(&B, &A, 0.0, 8, s), n);
        for (int j = 0; j < n; ++j) {
            int i = find_near(s, n, c[j].p, 1e-9);
            ck_assert_msg(i >= 0, "swapped manifold lacks a point");
            cft_assert_vec3_near(s[i].n, cfu_neg(c[j].n), 1e-12);
            cft_assert_near(s[i].phi, c[j].phi, 1e-12, 0);
        }
        cfPose T = random_pose(&rng, 5.0);
        cfObb TA = obb_moved(T, &A), TB = obb_moved(T, &B);
        ck_assert_int_eq(cf_collide_box_box(&TA, &TB, 0.0, 8, m), n);
        for (int j = 0; j < n; ++j) {
            int i = -1;
            for (int q = 0; q < n; ++q)
                if (m[q].feature == c[j].feature) i = q;
            ck_assert_msg(i >= 0, "feature id changed under a rigid motion");
            cft_assert_vec3_near(m[i].p, cf_pose_apply(T, c[j].p), 1e-9);
            cft_assert_vec3_near(m[i].n, cfu_mat3_mul_vec(T.R, c[j].n), 1e-9);
            cft_assert_near(m[i].phi, c[j].phi, 1e-9, 0);
        }
    }
    ck_assert(tested >= 500);
}
END_TEST

START_TEST(ch03_3_box_plane)
{
    /* worked example of the spec, then random boxes: one contact per vertex below the plane */
    cfObb b = unit_cube(V(0, 0, 0.45), cfu_quat_identity());
    cfContact c[8];
    ck_assert_int_eq(cf_collide_plane_box(V(0, 0, 1), 0.0, &b, 0.0, 4, c), 4);
    for (int k = 0; k < 4; ++k) {
        cft_assert_near_at(c[k].phi, -0.05, 1e-12, 0, "k = %d", k);
        cft_assert_vec3_near_at(c[k].n, V(0, 0, 1), 0.0, "k = %d", k);
        cft_assert_near_at(c[k].p.z, -0.025, 1e-12, 0, "k = %d", k);
    }
    /* resting exactly on the plane (phi = 0) counts at margin 0 */
    b = unit_cube(V(0.3, -0.2, 0.5), cfu_quat_identity());
    ck_assert_int_eq(cf_collide_plane_box(V(0, 0, 1), 0.0, &b, 0.0, 4, c), 4);
    for (int k = 0; k < 4; ++k) cft_assert_near_at(c[k].phi, 0.0, 0.0, 0, "k = %d", k);
    cfRng rng;
    cf_rng_seed(&rng, 335);
    for (int k = 0; k < 1000; ++k) {
        cfObb box = random_box(&rng, 0.5);
        cfVec3 n = cf_rng_unit_vec3(&rng);
        double off = cf_rng_range(&rng, -0.5, 0.5);
        int below = 0;
        for (int v = 0; v < 8; ++v) below += cfu_dot(n, cf_obb_vertex(&box, v)) - off <= 0.0;
        int got = cf_collide_plane_box(n, off, &box, 0.0, 8, c);
        ck_assert_int_eq(got, below);
        for (int j = 0; j < got; ++j) {
            int v = (int)cf_feature_payload(c[j].feature);
            cft_assert_int_at(cf_feature_type(c[j].feature), ==, CF_FEAT_VERTEX, "j = %d", j);
            cft_assert_vec3_near_at(point_b(&c[j]), cf_obb_vertex(&box, v), 1e-12, "j = %d", j);
            cft_assert_near_at(cfu_dot(n, point_a(&c[j])), off, 1e-12, 0, "j = %d", j);
        }
        ck_assert_int_eq(cf_collide_plane_box(n, off, &box, 0.0, 4, c), below < 4 ? below : 4);
    }
}
END_TEST

/* a world with a ground plane (z up) and the given boxes */
static void world_with(cfWorld *w, int nbox, const cfVec3 *pos, const cfVec3 *half, const bool *fixed)
{
    ck_assert(cf_world_init(w, NULL) == CF_OK);
    cfRigidBody ground = make_body(cf_shape_plane(V(0, 0, 1), 0.0), 0);
    ck_assert_int_ge(cf_world_add_body(w, &ground), 0);
    for (int k = 0; k < nbox; ++k) {
        cfRigidBody b = make_body(cf_shape_box(half[k]), fixed && fixed[k] ? 0 : 1.0);
        b.x = pos[k];
        ck_assert_int_ge(cf_world_add_body(w, &b), 0);
    }
}

START_TEST(ch03_3_persistent_ids)
{
    /* a box resting on the ground and a small box resting on a large one keep the same four
       contacts (same feature ids) from frame to frame while they jitter slightly */
    cfVec3 pos[3] = {V(0, 0, 0.499), V(3, 0, 0.5), V(3, 0, 1.199)};
    cfVec3 half[3] = {V(0.5, 0.5, 0.5), V(1, 1, 0.5), V(0.3, 0.3, 0.2)};
    bool fixed[3] = {false, true, false};
    cfWorld w;
    world_with(&w, 3, pos, half, fixed);
    cfDetectOptions opt = cf_detect_options_default();
    opt.broadphase = CF_BROADPHASE_ALL_PAIRS; /* ch03.7 is tested on its own */
    cfContactList list = {0};
    uint32_t ids[2][4];
    cfRng rng;
    cf_rng_seed(&rng, 336);
    for (int frame = 0; frame < 60; ++frame) {
        for (int k = 1; k <= 3; ++k) {
            if (w.bodies[k].fixed) continue;
            /* jitter below the 1e-3 penetration: up to 1e-4 in position, 4e-4 rad in angle */
            w.bodies[k].x = cfu_add(pos[k - 1], cf_rng_vec3(&rng, -1e-4, 1e-4));
            w.bodies[k].q = cf_rng_quat(&rng);
            w.bodies[k].q = cfu_quat_normalize(cfu_quat_mul_add(cfu_quat_identity(), 2e-4, w.bodies[k].q));
        }
        ck_assert(cf_detect_world(&w, &opt, &list, NULL) == CF_OK);
        int per[2] = {0, 0};
        for (int k = 0; k < list.count; ++k) {
            const cfContact *c = &list.items[k];
            int which = (c->body_a == 0 && c->body_b == 1) ? 0 : (c->body_a == 2 && c->body_b == 3) ? 1 : -1;
            ck_assert_msg(which >= 0, "unexpected pair (%d, %d)", c->body_a, c->body_b);
            ck_assert(per[which] < 4);
            if (frame == 0)
                ids[which][per[which]] = c->feature;
            else
                ck_assert_msg(ids[which][per[which]] == c->feature, "frame %d: feature id changed", frame);
            per[which]++;
        }
        ck_assert_int_eq(per[0], 4);
        ck_assert_int_eq(per[1], 4);
    }
    cf_contacts_free(&list);
    cf_world_free(&w);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch03.4 cubic CCD                                                                             */

static double cubic_at(const double c[4], double t) { return ((c[3] * t + c[2]) * t + c[1]) * t + c[0]; }

START_TEST(ch03_4_cubic_roots)
{
    /* worked example, then cubics built from known roots (simple, double, at the ends), and
       the identically zero polynomial */
    double roots[3];
    const double lin[4] = {1, -2, 0, 0};
    ck_assert_int_eq(cf_cubic_roots(lin, 0, 1, 1e-14, roots), 1);
    cft_assert_near(roots[0], 0.5, 1e-15, 0);
    const double zero[4] = {0, 0, 0, 0};
    ck_assert_int_eq(cf_cubic_roots(zero, 0, 1, 1e-14, roots), -1);
    /* (t - 0.3)^2 (t - 2): a grazing double root at 0.3 */
    const double dbl[4] = {-0.18, 1.29, -2.6, 1.0};
    ck_assert_int_eq(cf_cubic_roots(dbl, 0, 1, 1e-12, roots), 1);
    cft_assert_near(roots[0], 0.3, 1e-6, 0);
    /* t (t - 1) (t - 0.5): roots at both ends and inside */
    const double ends[4] = {0, 0.5, -1.5, 1.0};
    ck_assert_int_eq(cf_cubic_roots(ends, 0, 1, 1e-14, roots), 3);
    cft_assert_near(roots[0], 0.0, 1e-15, 0);
    cft_assert_near(roots[1], 0.5, 1e-15, 0);
    cft_assert_near(roots[2], 1.0, 1e-15, 0);
    cfRng rng;
    cf_rng_seed(&rng, 341);
    for (int k = 0; k < 5000; ++k) {
        double r[3];
        for (int i = 0; i < 3; ++i) r[i] = cf_rng_range(&rng, -0.5, 1.5);
        double s = cf_rng_range(&rng, -10, 10);
        if (fabs(s) < 1e-3 || fabs(r[0] - r[1]) < 1e-3 || fabs(r[1] - r[2]) < 1e-3 || fabs(r[0] - r[2]) < 1e-3) continue;
        double c[4] = {-s * r[0] * r[1] * r[2], s * (r[0] * r[1] + r[1] * r[2] + r[0] * r[2]), -s * (r[0] + r[1] + r[2]), s};
        if (k % 3 == 0) { /* a quadratic or a line sometimes */
            c[3] = 0;
            c[2] = s;
            c[1] = -s * (r[0] + r[1]);
            c[0] = s * r[0] * r[1];
            r[2] = -1;
        }
        int want = 0;
        double sorted[3];
        for (int i = 0; i < 3; ++i)
            if (r[i] >= 0.0 && r[i] <= 1.0) sorted[want++] = r[i];
        for (int i = 1; i < want; ++i)
            for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; --j) {
                double t = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = t;
            }
        int got = cf_cubic_roots(c, 0, 1, 1e-14 * fabs(s), roots);
        /* a root within 1e-9 of an end may legitimately be found or not */
        bool edge = false;
        for (int i = 0; i < 3; ++i) edge |= fabs(r[i]) < 1e-6 || fabs(r[i] - 1.0) < 1e-6;
        if (edge) continue;
        ck_assert_int_eq(got, want);
        for (int i = 0; i < want; ++i) cft_assert_near_at(roots[i], sorted[i], 1e-9, 0, "i = %d", i);
        for (int i = 0; i < got; ++i) cft_assert_at(fabs(cubic_at(c, roots[i])) <= 1e-9 * fabs(s), "i = %d", i);
    }
}
END_TEST

START_TEST(ch03_4_cubic_roots_intervals)
{
    /* the spec's scale: a polynomial is zero when every |c_k| T^k <= tol with T = max(|t0|, |t1|):
       on [0, 100], c = (1e-15, 1e-16, 0, 0) is zero at tol 1e-12 (1e-15 and 1e-14), while
       c = (0, 1e-13, 0, 0) is not (1e-12 < 1e-13 * 100): its root t = 0 is found; on [-2, 1] the
       scale is 2, not 1 */
    double roots[3];
    const double tiny[4] = {1e-15, 1e-16, 0, 0}, lin[4] = {0, 1e-13, 0, 0}, cub[4] = {0, 0, 0, 2e-13};
    ck_assert_int_eq(cf_cubic_roots(tiny, 0, 100, 1e-12, roots), -1);
    ck_assert_int_eq(cf_cubic_roots(lin, 0, 100, 1e-12, roots), 1);
    cft_assert_near(roots[0], 0.0, 0.0, 0);
    /* 2e-13 * 2^3 > 1e-12: not zero; |f| <= tol at the break points 0 and 1: two roots */
    ck_assert_int_eq(cf_cubic_roots(cub, -2, 1, 1e-12, roots), 2);
    ck_assert_int_eq(cf_cubic_roots(cub, -1, 1, 1e-12, roots), -1);
    /* a single point: [0.5, 0.5] holds the root of 1 - 2t, and nothing else */
    const double l2[4] = {1, -2, 0, 0};
    ck_assert_int_eq(cf_cubic_roots(l2, 0.5, 0.5, 1e-14, roots), 1);
    cft_assert_near(roots[0], 0.5, 0.0, 0);
    ck_assert_int_eq(cf_cubic_roots(l2, 0.25, 0.25, 1e-14, roots), 0);
    ck_assert_int_eq(cf_cubic_roots(l2, 1.0, 0.0, 1e-14, roots), 0);
    /* a quadratic with both roots inside: (t - 1/4)(t - 3/4)/2, no sign change between the ends,
       found only by splitting at the vertex of the parabola (f' = 0 at 1/2) */
    const double quad[4] = {0.09375, -0.5, 0.5, 0};
    ck_assert_int_eq(cf_cubic_roots(quad, 0, 1, 1e-14, roots), 2);
    cft_assert_near(roots[0], 0.25, 1e-15, 0);
    cft_assert_near(roots[1], 0.75, 1e-15, 0);
    /* ascending order when a grazing (double) root, found at a break point, follows a crossing
       found by bisection: (t - 0.375)^2 (t - 0.125), dyadic so that f(0.375) = 0 exactly */
    const double dbl[4] = {-0.017578125, 0.234375, -0.875, 1.0};
    ck_assert_int_eq(cf_cubic_roots(dbl, 0, 1, 1e-14, roots), 2);
    cft_assert_near(roots[0], 0.125, 1e-15, 0);
    cft_assert_near(roots[1], 0.375, 1e-9, 0);
}
END_TEST

START_TEST(ch03_4_ccd_special_cases)
{
    /* the statuses and times the spec gives for the corner cases; the triangle (0,0,0), (1,0,0),
       (0,1,0) at rest throughout */
    cfVec3 x[4] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(0.2, 0.2, 1)};
    cfVec3 u[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 0, 0), V(0, 0, -2)};
    cfCcdResult r;
    /* bad input: MISS with toi = h (for h < 0: MISS) */
    const double bad[3] = {-1.0, NAN, INFINITY};
    for (int k = 0; k < 3; ++k) cft_assert_int_at(cf_ccd_vertex_face(x, u, bad[k]).status, ==, CF_CCD_MISS,
                                                  "k = %d", k);
    for (int i = 0; i < 4; ++i) {
        cfVec3 keep = x[i];
        x[i].y = NAN;
        ck_assert_int_eq(cf_ccd_vertex_face(x, u, 1.0).status, CF_CCD_MISS);
        ck_assert_int_eq(cf_ccd_edge_edge(x, u, 1.0).status, CF_CCD_MISS);
        x[i] = keep;
        keep = u[i];
        u[i].z = INFINITY;
        ck_assert_int_eq(cf_ccd_vertex_face(x, u, 1.0).status, CF_CCD_MISS);
        ck_assert_int_eq(cf_ccd_edge_edge(x, u, 1.0).status, CF_CCD_MISS);
        u[i] = keep;
    }
    /* no root at all (the vertex flies level above the plane): MISS, toi = h */
    u[3] = V(1, 0, 0);
    r = cf_ccd_vertex_face(x, u, 1.5);
    ck_assert_int_eq(r.status, CF_CCD_MISS);
    cft_assert_near(r.toi, 1.5, 0.0, 0);
    /* a step of length 0 is allowed (only h < 0 is bad input): on [0, 0] the scale T is 0, so
       the cubic "vanishes identically" exactly when f(0) = 0: touching gives DEGENERATE at 0,
       apart gives MISS */
    x[3] = V(0.2, 0.2, 0);
    u[3] = V(0, 0, 1);
    r = cf_ccd_vertex_face(x, u, 0.0);
    ck_assert_int_eq(r.status, CF_CCD_DEGENERATE);
    cft_assert_near(r.toi, 0.0, 0.0, 0);
    x[3] = V(0.2, 0.2, 0.5);
    ck_assert_int_eq(cf_ccd_vertex_face(x, u, 0.0).status, CF_CCD_MISS);
    /* coplanar motion: DEGENERATE with toi = 0 exactly (the lower bound of the spec) */
    x[3] = V(2, 0.2, 0);
    u[3] = V(-1, 0, 0);
    r = cf_ccd_vertex_face(x, u, 2.0);
    ck_assert_int_eq(r.status, CF_CCD_DEGENERATE);
    cft_assert_near(r.toi, 0.0, 0.0, 0);
    /* the triangle collapses at the root: x2 slides onto x0 at t = 1/2 while the vertex
       arrives, f(t) = (1 - 2t)^2: DEGENERATE with toi = 1/2 */
    x[3] = V(0.2, 0.2, 1);
    u[3] = V(0, 0, -2);
    u[2] = V(0, -2, 0);
    r = cf_ccd_vertex_face(x, u, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_DEGENERATE);
    cft_assert_near(r.toi, 0.5, 1e-6, 0);
    u[2] = V(0, 0, 0);
    /* a vertex landing exactly on an edge of the triangle is inside (weights >= -eps): on
       x0-x1 (b = 0), on x0-x2 (a = 0) and on the hypotenuse (1 - a - b = 0) */
    const cfVec3 on_edge[3] = {V(0.5, 0, 1), V(0, 0.5, 1), V(0.5, 0.5, 1)};
    for (int k = 0; k < 3; ++k) {
        x[3] = on_edge[k];
        r = cf_ccd_vertex_face(x, u, 1.0);
        ck_assert_msg(r.status == CF_CCD_HIT, "vertex on edge %d: status %d", k, r.status);
        cft_assert_near(r.toi, 0.5, 1e-12, 0);
    }
    /* edge-edge: edge B lands on an end point of edge A (a = 0, then a = 1), and with its own
       end point on edge A (b = 0, then b = 1) */
    cfVec3 xe[4] = {V(0, 0, 0), V(1, 0, 0), V(0, -1, 1), V(0, 1, 1)};
    cfVec3 ue[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 0, -2), V(0, 0, -2)};
    for (int k = 0; k < 4; ++k) {
        xe[2] = k == 0 ? V(0, -1, 1) : k == 1 ? V(1, -1, 1) : k == 2 ? V(0.5, 0, 1) : V(0.5, -1, 1);
        xe[3] = k == 0 ? V(0, 1, 1) : k == 1 ? V(1, 1, 1) : k == 2 ? V(0.5, 1, 1) : V(0.5, 0, 1);
        r = cf_ccd_edge_edge(xe, ue, 1.0);
        ck_assert_msg(r.status == CF_CCD_HIT, "edge-edge case %d: status %d", k, r.status);
        cft_assert_near(r.toi, 0.5, 1e-12, 0);
        cft_assert_near(r.a, k == 0 ? 0.0 : k == 1 ? 1.0 : 0.5, 1e-12, 0);
        cft_assert_near(r.b, k == 2 ? 0.0 : k == 3 ? 1.0 : 0.5, 1e-12, 0);
        cft_assert_vec3_near(r.p, V(r.a, 0, 0), 1e-12); /* the point on edge A: x0 + a e1 */
    }
    /* within the slack: edge B ends 5e-10 short of edge A (b = 1 + 5e-10 at the crossing of
       the lines, inside [-CF_CCD_INSIDE_EPS, 1 + CF_CCD_INSIDE_EPS]): a HIT, and the same for
       edge A, 1.5 long, ending 5e-10 short of B (a = 1 + 5e-10 / 1.5) */
    for (int k = 0; k < 2; ++k) {
        cfVec3 xs[4] = {V(0, 0, 0), V(1, 0, 0), V(0.5, -1, 1), V(0.5, -5e-10, 1)};
        if (k == 1) xs[0] = V(-1, 0, 0), xs[1] = V(0.5 - 5e-10, 0, 0), xs[2] = V(0.5, -1, 1), xs[3] = V(0.5, 1, 1);
        r = cf_ccd_edge_edge(xs, ue, 1.0);
        ck_assert_msg(r.status == CF_CCD_HIT, "an edge 5e-10 short (case %d): status %d", k, r.status);
        cft_assert_near_at(r.toi, 0.5, 1e-12, 0, "an edge 5e-10 short (case %d)", k);
        cft_assert_near_at(k == 0 ? r.b : r.a, 1.0 + 5e-10 / (k == 0 ? 1.0 : 1.5), 1e-12, 0,
                           "an edge 5e-10 short (case %d)", k);
    }
    /* edge B turns: direction (1, 2 - 4t, 0), height 1 - 1.6 t above edge A (0,0,0)-(1,0,0):
       f = -(e1 x e2) . w is proportional to (2 - 4t)(1 - 1.6t). At t = 1/2 the edges are
       parallel 0.2 apart (a root of the cubic that is no contact: go on), at t = 0.625 B crosses A
       at a = 0.75, b = 0.5 */
    cfVec3 xp[4] = {V(0, 0, 0), V(1, 0, 0), V(0.25, -1, 1), V(1.25, 1, 1)};
    cfVec3 up[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 2, -1.6), V(0, -2, -1.6)};
    r = cf_ccd_edge_edge(xp, up, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    cft_assert_near(r.toi, 0.625, 1e-12, 0);
    cft_assert_near(r.a, 0.75, 1e-12, 0);
    cft_assert_near(r.b, 0.5, 1e-12, 0);
    /* descending at 2 m/s instead, B lies on A's line at t = 1/2, overlapping it: parallel and
       touching at the (double) root: DEGENERATE with toi = 1/2 */
    up[2].z = up[3].z = -2.0;
    r = cf_ccd_edge_edge(xp, up, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_DEGENERATE);
    cft_assert_near(r.toi, 0.5, 1e-6, 0);
    /* parallel edges (the cubic vanishes): DEGENERATE with toi = 0 */
    xe[2] = V(0, 0, 1);
    xe[3] = V(1, 0, 1);
    r = cf_ccd_edge_edge(xe, ue, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_DEGENERATE);
    cft_assert_near(r.toi, 0.0, 0.0, 0);
    /* a double root at toi = 0: x2 rises at (0, 0, 1), tilting the plane, and the vertex
       (0.2, 0.2, 0), in the plane and inside the triangle at t = 0, moves (0, 0.1, 0.2): it
       rises with the plane to first order (f'(0) = 0.2 - 0.2 = 0 exactly) and falls behind it
       after, f(t) = -0.1 t^2. The spec's sign at toi 0 is then the sign of f''(0) = -0.2: the
       normal is -z (the vertex is on the side below, before and after) */
    x[2] = V(0, 1, 0);
    x[3] = V(0.2, 0.2, 0);
    u[2] = V(0, 0, 1);
    u[3] = V(0, 0.1, 0.2);
    r = cf_ccd_vertex_face(x, u, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    cft_assert_near(r.toi, 0.0, 1e-6, 0);
    cft_assert_vec3_near(r.n, V(0, 0, -1), 1e-6);
}
END_TEST

START_TEST(ch03_4_grazing_at_scale)
{
    /* the cubic's tolerance is a volume, 1e-12 L^3: x1 rises at (0, 0, 1) and the vertex
       (0.3, 0.3, 0.025) moves (-0.1, 0, 0.2), so that f(t) = 0.1 (t - 1/2)^2: the vertex grazes
       the tilting triangle at t = 1/2, at barycentric (0.25, 0.3), inside. Scaled by S = 1000.3
       (positions and velocities), f grows by S^3 and its rounding at t = 1/2 (about 1e-8) is far
       above a fixed 1e-12 but far below 1e-12 L^3 (L = 2 S, about 8e-3): the graze is found. */
    const double S = 1000.3;
    cfVec3 x[4] = {V(0, 0, 0), V(S, 0, 0), V(0, S, 0), V(0.3 * S, 0.3 * S, 0.025 * S)};
    cfVec3 u[4] = {V(0, 0, 0), V(0, 0, S), V(0, 0, 0), V(-0.1 * S, 0, 0.2 * S)};
    cfCcdResult r = cf_ccd_vertex_face(x, u, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    cft_assert_near(r.toi, 0.5, 1e-5, 0);
    cft_assert_near(r.a, 0.25, 1e-5, 0);
    cft_assert_near(r.b, 0.3, 1e-5, 0);
    /* grazes at other times t* in (0, 1), from either side, with a cubic f: x_1 rises at (0, 0, 1)
       and x_2 slides at (1, 0, 0), so the normal is (1, 0, t) x (t, 1, 0) = (-t, t^2, 1); the vertex
       p + t g with p = (0.1, 0.2, c_0), g = (0.2 - c_2, c_3, c_1 + 0.1) gives
       f(t) = c_0 + c_1 t + c_2 t^2 + c_3 t^3 = 0.02 (t - t*)^2 (t - T), T = 3 or -3 (the other
       root and critical point are outside [0, 1]; the vertex is inside the triangle at t*). The
       vertex stays on the side -sign(T), and the spec's side is the sign of f at t* / 2, so
       n = -sign(T) (-t*, t*^2, 1) / |.|. At a double root f'(t*) is rounding noise of either sign:
       the side cannot be read from it. */
    for (int k = 0; k < 60; ++k) {
        double T = k % 2 ? 3.0 : -3.0, ts = (k / 2 + 0.37) / 31.0, kk = 0.02;
        double c0 = -kk * ts * ts * T, c1 = kk * (ts * ts + 2 * ts * T), c2 = -kk * (2 * ts + T), c3 = kk;
        cfVec3 xg[4] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(0.1, 0.2, c0)};
        cfVec3 ug[4] = {V(0, 0, 0), V(0, 0, 1), V(1, 0, 0), V(0.2 - c2, c3, c1 + 0.1)};
        cfCcdResult rg = cf_ccd_vertex_face(xg, ug, 1.0);
        cft_assert_int_at(rg.status, ==, CF_CCD_HIT, "t* = %g, T = %g", ts, T);
        cft_assert_near_at(rg.toi, ts, 1e-5, 0, "t* = %g, T = %g", ts, T);
        cft_assert_vec3_near_at(rg.n, cfu_scale(-T / 3.0, cfu_normalize(V(-ts, ts * ts, 1))), 1e-6, "t* = %g, T = %g", ts, T);
    }
    /* the same motion with a simple root first: f(t) = kk (t - t1) (t - t*)^2 with
       kk = 0.6 / (t1 + 2 t*), so g_x = 0.8; the vertex starts at x = -0.2 and crosses the plane at t1
       outside the triangle (x(t1) = -0.2 + 0.8 t1 <= 0 < t1 y(t1)), then grazes it from above at
       t* inside: HIT at t*, and the side is the sign of f between t1 and t* (+), not f'(t*)'s */
    for (int k = 0; k < 20; ++k) {
        double t1 = 0.1 + 0.025 * (k % 5), ts = 0.7 + 0.0375 * (k / 5), kk = 0.6 / (t1 + 2 * ts);
        double c0 = -kk * t1 * ts * ts, c1 = kk * (2 * t1 * ts + ts * ts), c2 = -kk * (t1 + 2 * ts), c3 = kk;
        cfVec3 xg[4] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(-0.2, 0.2, c0)};
        cfVec3 ug[4] = {V(0, 0, 0), V(0, 0, 1), V(1, 0, 0), V(0.2 - c2, c3, c1 - 0.2)};
        cfCcdResult rg = cf_ccd_vertex_face(xg, ug, 1.0);
        cft_assert_int_at(rg.status, ==, CF_CCD_HIT, "t1 = %g, t* = %g", t1, ts);
        cft_assert_near_at(rg.toi, ts, 1e-5, 0, "t1 = %g, t* = %g", t1, ts);
        cft_assert_vec3_near_at(rg.n, cfu_normalize(V(-ts, ts * ts, 1)), 1e-6, "t1 = %g, t* = %g", t1, ts);
    }
    /* L is the largest of |x_k - x_0| + h |u_k - u_0| over k = 1, 2, 3 (the spec's). Two ends at
       f(h) = eps > 0, just above the plane, where only the spec's L calls it a root (HIT at h).
       (1) The vertex (k = 3) sets L: it starts 20 away at (-19.8, 0.2, 1) and slides over the
       unit triangle at rest to (0.2, 0.2, 1e-10): f(t) = 1 - (1 - 1e-10) t, f(1) = 1e-10 (exact
       to 1e-16), L = |x_3 - x_0| + |u_3| = 39.85, tol = 6.3e-8; an L over the triangle's
       vertices alone is 1 (tol 1e-12 < f(1)): MISS. */
    {
        cfVec3 xv[4] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(-19.8, 0.2, 1)};
        cfVec3 uv[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 0, 0), V(20, 0, -(1 - 1e-10))};
        cfCcdResult rv = cf_ccd_vertex_face(xv, uv, 1.0);
        ck_assert_msg(rv.status == CF_CCD_HIT, "f(h) = 1e-10 within 1e-12 L^3 = 6.3e-8 (L set by the vertex): status %d",
                      (int)rv.status);
        cft_assert_near(rv.toi, 1.0, 1e-12, 0);
    }
    /* (2) x_0 sets L: it slides along -x at speed 10 (the triangle stretches in its plane) while
       the vertex comes down from z = 1 to 1e-11: f(t) = (1 + 10 t)(1 - (1 - 1e-11) t), f(1) = 1.1e-10,
       L = 1 + 10 = 11 (tol 1.3e-9) from the speeds relative to u_0; speeds relative to any other
       vertex give L = 2.04 (tol 8.5e-12 < f(1)): MISS. At t = 1 the triangle is (-10, 0, 0),
       (1, 0, 0), (0, 1, 0) and the vertex (0.2, 0.2, 1e-11) is inside it. */
    {
        cfVec3 xv[4] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(0.2, 0.2, 1)};
        cfVec3 uv[4] = {V(-10, 0, 0), V(0, 0, 0), V(0, 0, 0), V(0, 0, -(1 - 1e-11))};
        cfCcdResult rv = cf_ccd_vertex_face(xv, uv, 1.0);
        ck_assert_msg(rv.status == CF_CCD_HIT, "f(h) = 1.1e-10 within 1e-12 L^3 = 1.3e-9 (L from u_k - u_0): status %d",
                      (int)rv.status);
        cft_assert_near(rv.toi, 1.0, 1e-12, 0);
    }
}
END_TEST

/* the signed volume of the 4 points at time t, computed directly */
static double volume_at(const cfVec3 x[4], const cfVec3 u[4], double t)
{
    cfVec3 y[4];
    for (int k = 0; k < 4; ++k) y[k] = cfu_mul_add(x[k], t, u[k]);
    return cfu_dot(cfu_cross(cfu_sub(y[1], y[0]), cfu_sub(y[2], y[0])), cfu_sub(y[3], y[0]));
}

START_TEST(ch03_4_coplanarity_cubic)
{
    /* notes 2.2.2: coefficients (1, -2, 0, 0); random motions: the cubic equals the signed
       volume of the moving points at any time */
    cfVec3 x[4] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(0.2, 0.2, 1)};
    cfVec3 u[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 0, 0), V(0, 0, -2)};
    double c[4];
    cf_ccd_cubic(x, u, c);
    cft_assert_near(c[0], 1, 1e-15, 0);
    cft_assert_near(c[1], -2, 1e-15, 0);
    cft_assert_near(c[2], 0, 1e-15, 0);
    cft_assert_near(c[3], 0, 1e-15, 0);
    cfRng rng;
    cf_rng_seed(&rng, 342);
    for (int k = 0; k < 1000; ++k) {
        for (int i = 0; i < 4; ++i) x[i] = cf_rng_vec3(&rng, -1, 1), u[i] = cf_rng_vec3(&rng, -2, 2);
        cf_ccd_cubic(x, u, c);
        for (int s = 0; s < 5; ++s) {
            double t = cf_rng_range(&rng, -1, 2);
            cft_assert_near(cubic_at(c, t), volume_at(x, u, t), 1e-12, 0);
        }
    }
}
END_TEST

START_TEST(ch03_4_vertex_face_worked)
{
    /* notes 2.2.2 */
    cfVec3 x[4] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(0.2, 0.2, 1)};
    cfVec3 u[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 0, 0), V(0, 0, -2)};
    cfCcdResult r = cf_ccd_vertex_face(x, u, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    cft_assert_near(r.toi, 0.5, 1e-12, 0);
    cft_assert_vec3_near(r.p, V(0.2, 0.2, 0), 1e-12);
    cft_assert_vec3_near(r.n, V(0, 0, 1), 1e-12);
    /* coplanar at 0.5 but outside the triangle */
    x[3] = V(2, 2, 1);
    ck_assert_int_eq(cf_ccd_vertex_face(x, u, 1.0).status, CF_CCD_MISS);
    /* only the relative motion counts: triangle up at +1, vertex (0.25, 0.25, 1) down at -1 */
    x[3] = V(0.25, 0.25, 1);
    u[0] = u[1] = u[2] = V(0, 0, 1);
    u[3] = V(0, 0, -1);
    r = cf_ccd_vertex_face(x, u, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    cft_assert_near(r.toi, 0.5, 1e-12, 0);
    cft_assert_vec3_near(r.p, V(0.25, 0.25, 0.5), 1e-12);
    /* from below: the normal turns to the vertex's side */
    x[3] = V(0.25, 0.25, -1);
    u[0] = u[1] = u[2] = V(0, 0, 0);
    u[3] = V(0, 0, 2);
    r = cf_ccd_vertex_face(x, u, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    cft_assert_vec3_near(r.n, V(0, 0, -1), 1e-12);
    /* the vertex moves in the triangle's plane: reported, not missed */
    x[3] = V(2, 0.2, 0);
    u[3] = V(-1, 0, 0);
    r = cf_ccd_vertex_face(x, u, 2.0);
    ck_assert_int_eq(r.status, CF_CCD_DEGENERATE);
    ck_assert(r.toi <= 1.2);
}
END_TEST

START_TEST(ch03_4_edge_edge_worked)
{
    /* notes 2.2.3 */
    cfVec3 x[4] = {V(-1, 0, 0), V(1, 0, 0), V(0, -1, 1), V(0, 1, 1)};
    cfVec3 u[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 0, -2), V(0, 0, -2)};
    cfCcdResult r = cf_ccd_edge_edge(x, u, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    cft_assert_near(r.toi, 0.5, 1e-12, 0);
    cft_assert_near(r.a, 0.5, 1e-12, 0);
    cft_assert_near(r.b, 0.5, 1e-12, 0);
    cft_assert_vec3_near(r.p, V(0, 0, 0), 1e-12);
    cft_assert_vec3_near(r.n, V(0, 0, 1), 1e-12);
    /* the lines cross outside the segments */
    x[2] = V(3, -1, 1), x[3] = V(3, 1, 1);
    ck_assert_int_eq(cf_ccd_edge_edge(x, u, 1.0).status, CF_CCD_MISS);
    /* parallel edges: no NaN, reported as degenerate */
    x[2] = V(-1, 0, 1), x[3] = V(1, 0, 1);
    r = cf_ccd_edge_edge(x, u, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_DEGENERATE);
    ck_assert(isfinite(r.toi) && cfu_vec3_finite(r.p) && cfu_vec3_finite(r.n));
}
END_TEST

START_TEST(ch03_4_normal_at_toi_zero)
{
    /* touching at t = 0 itself: there is no "just before toi" inside the step, and the spec's
       rule is the sign of -f'(0), or of f''(0) when f'(0) = 0. Triangle (0,0,0), (1,0,0),
       (0,1,0) at rest, vertex (0.2, 0.2, 0) moving (0, 0, +1), h = 1: f(t) = t, HIT at 0 and the
       vertex came from below, n = (0, 0, -1) (the midpoint rule with prev = toi = 0 evaluates
       f(0) = 0 and gives no sign) */
    cfVec3 x[4] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(0.2, 0.2, 0)};
    cfVec3 u[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 0, 0), V(0, 0, 1)};
    cfCcdResult r = cf_ccd_vertex_face(x, u, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    cft_assert_near(r.toi, 0.0, 0.0, 0);
    cft_assert_vec3_near(r.p, V(0.2, 0.2, 0), 1e-12);
    cft_assert_vec3_near(r.n, V(0, 0, -1), 1e-12);
    /* grazing at t = 0 (dyadic numbers: the coefficients are exact in any summation order):
       x1 rises at (0, 0, 1), the vertex (0.25, 0.25, 0) moves (-0.125, 0, 0.25), so that
       c = (0, 0, 0.125, 0): f(t) = t^2 / 8 >= 0, f'(0) = 0, f''(0) > 0: the vertex stays on the +
       side, n = (0, 0, 1) */
    x[3] = V(0.25, 0.25, 0);
    u[1] = V(0, 0, 1);
    u[3] = V(-0.125, 0, 0.25);
    double c[4];
    cf_ccd_cubic(x, u, c);
    cft_assert_near(c[1], 0.0, 0.0, 0);
    cft_assert_near(c[2], 0.125, 0.0, 0);
    r = cf_ccd_vertex_face(x, u, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    cft_assert_near(r.toi, 0.0, 0.0, 0);
    cft_assert_vec3_near(r.n, V(0, 0, 1), 1e-12);
    /* edge-edge: edge A (-1,0,0)-(1,0,0) at rest, edge B (0,-1,0)-(0,1,0) crossing it at t = 0
       and moving up (0, 0, 1): f(t) = -4 t, B comes from below: n = (0, 0, -1), a = b = 1/2 */
    cfVec3 xe[4] = {V(-1, 0, 0), V(1, 0, 0), V(0, -1, 0), V(0, 1, 0)};
    cfVec3 ue[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 0, 1), V(0, 0, 1)};
    r = cf_ccd_edge_edge(xe, ue, 1.0);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    cft_assert_near(r.toi, 0.0, 0.0, 0);
    cft_assert_near(r.a, 0.5, 1e-12, 0);
    cft_assert_near(r.b, 0.5, 1e-12, 0);
    cft_assert_vec3_near(r.n, V(0, 0, -1), 1e-12);
}
END_TEST

/* random trajectory: half of them aimed so that the features meet around mid-step */
static void random_trajectory(cfRng *rng, bool ee, cfVec3 x[4], cfVec3 u[4])
{
    for (int i = 0; i < 4; ++i) x[i] = cf_rng_vec3(rng, -1, 1), u[i] = cf_rng_vec3(rng, -1, 1);
    if (cf_rng_uniform(rng) < 0.5) return;
    double tm = cf_rng_range(rng, 0.05, 0.95);
    /* choose a meeting point on A at time tm and move B's feature through it */
    cfVec3 a[4];
    for (int i = 0; i < 4; ++i) a[i] = cfu_mul_add(x[i], tm, u[i]);
    cfVec3 target;
    if (!ee) {
        double p = cf_rng_uniform(rng), q = cf_rng_uniform(rng);
        if (p + q > 1) p = 1 - p, q = 1 - q;
        target = cfu_add(cfu_scale(1 - p - q, a[0]), cfu_add(cfu_scale(p, a[1]), cfu_scale(q, a[2])));
        u[3] = cfu_scale(1.0 / tm, cfu_sub(target, x[3]));
    } else {
        target = cfu_mul_add(a[0], cf_rng_uniform(rng), cfu_sub(a[1], a[0]));
        double b = cf_rng_uniform(rng);
        /* move edge B rigidly so its point at parameter b reaches target at tm */
        cfVec3 pb = cfu_mul_add(x[2], b, cfu_sub(x[3], x[2]));
        cfVec3 v = cfu_scale(1.0 / tm, cfu_sub(target, pb));
        u[2] = u[3] = v;
    }
}

/* first time in [0, h] at which fine sampling sees the features cross robustly (inside by a
   margin of 1e-4 in the barycentric or segment parameters); -1 when none */
static double sampled_first_hit(const cfVec3 x[4], const cfVec3 u[4], double h, bool ee)
{
    const int N = 1000;
    double f0 = volume_at(x, u, 0.0);
    for (int s = 1; s <= N; ++s) {
        double t1 = h * s / N, f1 = volume_at(x, u, t1);
        if ((f0 < 0) != (f1 < 0) || f1 == 0.0) {
            double lo = h * (s - 1) / N, hi = t1, flo = volume_at(x, u, lo);
            for (int it = 0; it < 80; ++it) {
                double mid = 0.5 * (lo + hi), fm = volume_at(x, u, mid);
                if ((fm < 0) == (flo < 0) && fm != 0.0)
                    lo = mid, flo = fm;
                else
                    hi = mid;
            }
            double t = hi;
            cfVec3 y[4];
            for (int k = 0; k < 4; ++k) y[k] = cfu_mul_add(x[k], t, u[k]);
            bool inside;
            if (!ee) {
                cfVec3 v0 = cfu_sub(y[1], y[0]), v1 = cfu_sub(y[2], y[0]), v2 = cfu_sub(y[3], y[0]);
                double d00 = cfu_dot(v0, v0), d01 = cfu_dot(v0, v1), d11 = cfu_dot(v1, v1);
                double d20 = cfu_dot(v2, v0), d21 = cfu_dot(v2, v1), den = d00 * d11 - d01 * d01;
                double a = (d11 * d20 - d01 * d21) / den, b = (d00 * d21 - d01 * d20) / den;
                inside = den > 1e-12 && a > 1e-4 && b > 1e-4 && 1 - a - b > 1e-4;
            } else {
                double sa, sb;
                double d2 = cf_segment_closest(y[0], y[1], y[2], y[3], &sa, &sb);
                inside = d2 < 1e-16 && sa > 1e-4 && sa < 1 - 1e-4 && sb > 1e-4 && sb < 1 - 1e-4;
            }
            if (inside) return t;
        }
        f0 = f1;
    }
    return -1.0;
}

static void ccd_never_misses(bool ee, uint64_t seed, int cases)
{
    cfRng rng;
    cf_rng_seed(&rng, seed);
    int hits = 0;
    for (int k = 0; k < cases; ++k) {
        cfVec3 x[4], u[4];
        random_trajectory(&rng, ee, x, u);
        cfCcdResult r = ee ? cf_ccd_edge_edge(x, u, 1.0) : cf_ccd_vertex_face(x, u, 1.0);
        double t = sampled_first_hit(x, u, 1.0, ee);
        if (t >= 0.0) {
            ++hits;
            ck_assert_msg(r.status == CF_CCD_HIT || r.status == CF_CCD_DEGENERATE, "case %d: missed a hit at %g", k, t);
            ck_assert_msg(r.toi <= t + 1e-9, "case %d: toi %.12g later than the sampled %.12g", k, r.toi, t);
        }
        if (r.status == CF_CCD_HIT) {
            /* the reported time is a real contact: the features touch there */
            cfVec3 y[4];
            for (int i = 0; i < 4; ++i) y[i] = cfu_mul_add(x[i], r.toi, u[i]);
            double L = 1.0 + cfu_norm(cfu_sub(y[1], y[0]));
            if (ee) {
                ck_assert(cf_segment_closest(y[0], y[1], y[2], y[3], NULL, NULL) <= 1e-12 * L * L);
            } else {
                cfVec3 q = cfu_add(cfu_scale(1 - r.a - r.b, y[0]), cfu_add(cfu_scale(r.a, y[1]), cfu_scale(r.b, y[2])));
                ck_assert(cfu_norm(cfu_sub(q, y[3])) <= 1e-6 * L);
            }
            ck_assert(r.toi >= 0.0 && r.toi <= 1.0);
            assert_unit(r.n);
            /* n is turned toward the side B came from: f = N . (x3 - x0) (vertex-face, N the
               triangle normal) or -(e1 x e2) . w (edge-edge) has, just before toi, the sign of
               n . N, resp. of -n . (e1 x e2). Checked 1e-6 before toi where f is clearly away
               from zero (the previous root, if any, is farther back in these cases). */
            const double dt = 1e-6;
            double fb = volume_at(x, u, r.toi - dt);
            if (r.toi > 2 * dt && fabs(fb) > 1e-12) {
                cfVec3 N = ee ? cfu_cross(cfu_sub(y[1], y[0]), cfu_sub(y[3], y[2]))
                              : cfu_cross(cfu_sub(y[1], y[0]), cfu_sub(y[2], y[0]));
                double side = cfu_dot(r.n, N) * (ee ? -fb : fb);
                ck_assert_msg(side > 0.0, "case %d: n points to the side B goes to, not the side it came from", k);
            }
        }
    }
    ck_assert(hits > cases / 4);
}

START_TEST(ch03_4_vertex_face_never_misses)
{
    /* 3000 random trajectories: every crossing fine sampling finds is found, no later */
    ccd_never_misses(false, 343, 3000);
}
END_TEST

START_TEST(ch03_4_edge_edge_never_misses)
{
    ccd_never_misses(true, 344, 3000);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch03.5 inclusion CCD                                                                         */

START_TEST(ch03_5_inclusion_is_sound)
{
    /* the rounding allowance is exactly 8 DBL_EPSILON times the largest coordinate met: x0 and
       x3 move together from (4, 0, 0) to (1, 0, 0) (u = v = 0: F = x0 - x3 = 0 over the box), the
       largest magnitude is 4, met at t = 0: the image is [-2^-47, 2^-47] in each component,
       exactly (8 DBL_EPSILON = 2^-49) */
    {
        cfVec3 x[4] = {V(4, 0, 0), V(0, 0, 0), V(0, 0, 0), V(4, 0, 0)};
        cfVec3 u[4] = {V(-3, 0, 0), V(0, 0, 0), V(0, 0, 0), V(-3, 0, 0)};
        cfBox3 B = {{0, 0, 0}, {1, 0, 0}};
        cfAabb img;
        cf_ccd_inclusion_bounds(CF_CCD_VF, x, u, &B, &img);
        cft_assert_vec3_near(img.lo, V(-ldexp(1, -47), -ldexp(1, -47), -ldexp(1, -47)), 0.0);
        cft_assert_vec3_near(img.hi, V(ldexp(1, -47), ldexp(1, -47), ldexp(1, -47)), 0.0);
        /* coordinates below 1: 0.25 gives 2^-51 (not 2^-49: no floor of 1) */
        x[0] = x[3] = V(0.25, 0, 0);
        u[0] = u[3] = V(0, 0, 0);
        cf_ccd_inclusion_bounds(CF_CCD_VF, x, u, &B, &img);
        cft_assert_near(img.hi.x, ldexp(1, -51), 0.0, 0);
    }
    /* for random motions, domain boxes and points inside them, F(point) lies in the bounds;
       the bounds shrink to a point with the box (a convergent inclusion function) */
    cfRng rng;
    cf_rng_seed(&rng, 351);
    for (int k = 0; k < 500; ++k) {
        cfVec3 x[4], u[4];
        for (int i = 0; i < 4; ++i) x[i] = cf_rng_vec3(&rng, -1, 1), u[i] = cf_rng_vec3(&rng, -2, 2);
        cfCcdKind kind = k % 2 ? CF_CCD_EE : CF_CCD_VF;
        cfBox3 B;
        for (int d = 0; d < 3; ++d) {
            double a = cf_rng_uniform(&rng), b = cf_rng_uniform(&rng);
            B.lo[d] = fmin(a, b);
            B.hi[d] = fmax(a, b);
        }
        cfAabb img;
        cf_ccd_inclusion_bounds(kind, x, u, &B, &img);
        for (int s = 0; s < 20; ++s) {
            double p[3];
            for (int d = 0; d < 3; ++d) p[d] = cf_rng_range(&rng, B.lo[d], B.hi[d]);
            cfVec3 y[4];
            for (int i = 0; i < 4; ++i) y[i] = cfu_mul_add(x[i], p[0], u[i]);
            cfVec3 F = kind == CF_CCD_VF
                           ? cfu_sub(cfu_add(cfu_scale(1 - p[1] - p[2], y[0]), cfu_add(cfu_scale(p[1], y[1]), cfu_scale(p[2], y[2]))), y[3])
                           : cfu_sub(cfu_mul_add(y[0], p[1], cfu_sub(y[1], y[0])), cfu_mul_add(y[2], p[2], cfu_sub(y[3], y[2])));
            ck_assert(F.x >= img.lo.x && F.x <= img.hi.x && F.y >= img.lo.y && F.y <= img.hi.y && F.z >= img.lo.z &&
                      F.z <= img.hi.z);
        }
        /* shrink the box around its centre: the bounds' width goes to (almost) zero */
        cfBox3 tiny;
        for (int d = 0; d < 3; ++d) {
            double m = 0.5 * (B.lo[d] + B.hi[d]);
            tiny.lo[d] = m - 1e-9;
            tiny.hi[d] = m + 1e-9;
        }
        cf_ccd_inclusion_bounds(kind, x, u, &tiny, &img);
        cfVec3 w = cfu_sub(img.hi, img.lo);
        ck_assert(w.x < 1e-7 && w.y < 1e-7 && w.z < 1e-7);
    }
}
END_TEST

START_TEST(ch03_5_worked_cases)
{
    /* notes 2.2.4: the in-plane vertex reaches the hypotenuse at t = 1.2 */
    const double delta = 1e-6;
    cfVec3 x[4] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(2, 0.2, 0)};
    cfVec3 u[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 0, 0), V(-1, 0, 0)};
    cfCcdResult r = cf_ccd_inclusion(CF_CCD_VF, x, u, 2.0, delta, 100000);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    ck_assert(r.toi <= 1.2 + 1e-12);
    ck_assert(r.toi >= 1.2 - 4 * delta * 2.0);
    /* the accepted box (widths <= delta) holds the contact (u, v) = (0.8, 0.2): its centre is
       within delta of it, and p is the vertex x3 at the box's mid time */
    cft_assert_near(r.a, 0.8, 4 * delta, 0);
    cft_assert_near(r.b, 0.2, 4 * delta, 0);
    cft_assert_vec3_near(r.p, V(0.8, 0.2, 0), 8 * delta);
    /* the vertex-face example of 2.2.2: t = 0.5 at (u, v) = (0.2, 0.2), p = (0.2, 0.2, 0) */
    x[3] = V(0.2, 0.2, 1);
    u[3] = V(0, 0, -2);
    r = cf_ccd_inclusion(CF_CCD_VF, x, u, 1.0, delta, 100000);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    ck_assert(r.toi <= 0.5 && r.toi >= 0.5 - 4 * delta);
    cft_assert_near(r.a, 0.2, 4 * delta, 0);
    cft_assert_near(r.b, 0.2, 4 * delta, 0);
    cft_assert_vec3_near(r.p, V(0.2, 0.2, 0), 8 * delta);
    /* edge-edge example of 2.2.3: a = b = 1/2, p on edge A at (0, 0, 0); edge A moves along x
       here so that its point depends on a and on the time: (-1 + 2a + t, 0, 0) */
    cfVec3 xe[4] = {V(-1, 0, 0), V(1, 0, 0), V(0, -1, 1), V(0, 1, 1)};
    cfVec3 ue[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 0, -2), V(0, 0, -2)};
    r = cf_ccd_inclusion(CF_CCD_EE, xe, ue, 1.0, delta, 100000);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    ck_assert(r.toi <= 0.5 && r.toi >= 0.5 - 4 * delta);
    cft_assert_near(r.a, 0.5, 4 * delta, 0);
    cft_assert_near(r.b, 0.5, 4 * delta, 0);
    cft_assert_vec3_near(r.p, V(0, 0, 0), 8 * delta);
    xe[0] = V(-1.5, 0, 0);
    xe[1] = V(0.5, 0, 0);
    ue[0] = ue[1] = V(1, 0, 0);
    r = cf_ccd_inclusion(CF_CCD_EE, xe, ue, 1.0, delta, 100000);
    ck_assert_int_eq(r.status, CF_CCD_HIT);
    cft_assert_near(r.a, 0.5, 4 * delta, 0);
    cft_assert_vec3_near(r.p, V(0, 0, 0), 8 * delta);
    /* clearly separated: certified miss */
    x[3] = V(0.2, 0.2, 1);
    u[3] = V(0, 0, 0.5);
    r = cf_ccd_inclusion(CF_CCD_VF, x, u, 1.5, delta, 100000);
    ck_assert_int_eq(r.status, CF_CCD_MISS);
    cft_assert_near(r.toi, 1.5, 0.0, 0);
}
END_TEST

/* first robust in-plane hit of a vertex moving in the triangle's plane z = 0 (2D sampling) */
static double sampled_inplane_hit(const cfVec3 x[4], const cfVec3 u[4], double h)
{
    const int N = 4000;
    for (int s = 0; s <= N; ++s) {
        double t = h * s / N;
        cfVec3 y[4];
        for (int k = 0; k < 4; ++k) y[k] = cfu_mul_add(x[k], t, u[k]);
        double det = (y[1].x - y[0].x) * (y[2].y - y[0].y) - (y[2].x - y[0].x) * (y[1].y - y[0].y);
        if (fabs(det) < 1e-9) continue;
        double px = y[3].x - y[0].x, py = y[3].y - y[0].y;
        double a = (px * (y[2].y - y[0].y) - py * (y[2].x - y[0].x)) / det;
        double b = ((y[1].x - y[0].x) * py - (y[1].y - y[0].y) * px) / det;
        if (a > 1e-4 && b > 1e-4 && 1 - a - b > 1e-4) return t;
    }
    return -1;
}

/* distance from q to the triangle (a, b, c) */
static double point_triangle_distance(cfVec3 q, cfVec3 a, cfVec3 b, cfVec3 c)
{
    cfVec3 n = cfu_cross(cfu_sub(b, a), cfu_sub(c, a));
    double best = sqrt(fmin(cf_segment_closest(q, q, a, b, NULL, NULL),
                            fmin(cf_segment_closest(q, q, b, c, NULL, NULL), cf_segment_closest(q, q, c, a, NULL, NULL))));
    if (cfu_norm(n) > 0) {
        n = cfu_normalize(n);
        cfVec3 p = cfu_mul_add(q, -cfu_dot(n, cfu_sub(q, a)), n); /* projection on the plane */
        bool in = cfu_dot(cfu_cross(cfu_sub(b, a), cfu_sub(p, a)), n) >= 0 && cfu_dot(cfu_cross(cfu_sub(c, b), cfu_sub(p, b)), n) >= 0 &&
                  cfu_dot(cfu_cross(cfu_sub(a, c), cfu_sub(p, c)), n) >= 0;
        if (in) best = fmin(best, fabs(cfu_dot(n, cfu_sub(q, a))));
    }
    return best;
}

START_TEST(ch03_5_no_false_negatives)
{
    /* random trajectories, including in-plane motion that defeats the cubic: whenever sampling
       finds a collision, inclusion reports HIT (or BUDGET) no later; no later than the cubic
       method's hit either; and at the reported time the features are within O(delta) of each
       other (the accepted box's image contains 0) */
    const double delta = 1e-6;
    cfRng rng;
    cf_rng_seed(&rng, 352);
    int hits = 0;
    for (int k = 0; k < 600; ++k) {
        bool ee = k % 3 == 1, plane = k % 3 == 2;
        cfVec3 x[4], u[4];
        random_trajectory(&rng, ee, x, u);
        if (plane) {
            for (int i = 0; i < 4; ++i) x[i].z = u[i].z = 0.0;
            x[3] = cf_rng_vec3(&rng, -1.5, 1.5);
            x[3].z = 0;
            cfVec3 c = cfu_scale(1.0 / 3.0, cfu_add(x[0], cfu_add(x[1], x[2])));
            u[3] = cfu_add(cfu_sub(c, x[3]), cf_rng_vec3(&rng, -0.5, 0.5));
            u[3].z = 0;
        }
        cfCcdResult r = cf_ccd_inclusion(ee ? CF_CCD_EE : CF_CCD_VF, x, u, 1.0, delta, 200000);
        ck_assert(r.toi >= 0.0 && r.toi <= 1.0);
        double t = plane ? sampled_inplane_hit(x, u, 1.0) : sampled_first_hit(x, u, 1.0, ee);
        if (t >= 0) {
            ++hits;
            ck_assert_msg(r.status == CF_CCD_HIT || r.status == CF_CCD_BUDGET, "case %d: missed a hit at %g", k, t);
            ck_assert_msg(r.toi <= t + 1e-9, "case %d: toi %.12g > sampled %.12g", k, r.toi, t);
        }
        if (!plane) {
            cfCcdResult c = ee ? cf_ccd_edge_edge(x, u, 1.0) : cf_ccd_vertex_face(x, u, 1.0);
            if (c.status == CF_CCD_HIT) ck_assert(r.toi <= c.toi + 1e-12);
        }
        if (r.status == CF_CCD_HIT) {
            cfVec3 y[4];
            double L = 0.0, U = 0.0;
            for (int i = 0; i < 4; ++i) {
                y[i] = cfu_mul_add(x[i], r.toi, u[i]);
                L = fmax(L, cfu_norm(cfu_sub(x[i], x[0])));
                U = fmax(U, cfu_norm(cfu_sub(u[i], u[0])));
            }
            double d = ee ? sqrt(cf_segment_closest(y[0], y[1], y[2], y[3], NULL, NULL))
                          : point_triangle_distance(y[3], y[0], y[1], y[2]);
            ck_assert_msg(d <= 10.0 * delta * (2.0 * L + U + 1.0), "case %d: features %g apart at toi", k, d);
        }
    }
    ck_assert(hits > 150);
}
END_TEST

START_TEST(ch03_5_budget_is_a_lower_bound)
{
    /* The vertex (0.2, 0.2, 1) falls at 2 m/s onto the triangle (0,0,0), (1,0,0), (0,1,0), h = 1:
       F = (u - 0.2, v - 0.2, 2t - 1). With delta = 1e-9 no box is accepted within the budget,
       so the count of popped boxes is fixed by the spec (earliest lo[0] first, first inserted on
       ties, widest dimension split with t, u, v in that order on ties). By hand: pop 1 splits t,
       pop 2 (t <= 1/2) splits u, pop 3 splits v, pop 4 (u >= 1/2) is excluded, pop 5 splits t
       at 1/4, ... until pop 20, the box t in [7/16, 1/2], u, v in [1/8, 1/4], splits u; its
       lower half is pop 21: more than 20 pops, BUDGET with boxes = 21 and toi = 7/16 = 0.4375,
       a lower bound of the true 0.5. */
    cfVec3 x[4] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(0.2, 0.2, 1)};
    cfVec3 u[4] = {V(0, 0, 0), V(0, 0, 0), V(0, 0, 0), V(0, 0, -2)};
    cfCcdResult r = cf_ccd_inclusion(CF_CCD_VF, x, u, 1.0, 1e-9, 20);
    ck_assert_int_eq(r.status, CF_CCD_BUDGET);
    ck_assert_int_eq(r.boxes, 21);
    cft_assert_near(r.toi, 0.4375, 0.0, 0);
    /* a full queue: with room for 3 boxes, pop 3 (t <= 1/2, u <= 1/2) would push 2 boxes onto
       the 2 still queued: BUDGET after 3 pops, toi = its lo[0] = 0 */
    r = cf_ccd_inclusion(CF_CCD_VF, x, u, 1.0, 1e-9, 3);
    ck_assert_int_eq(r.status, CF_CCD_BUDGET);
    ck_assert_int_eq(r.boxes, 3);
    cft_assert_near(r.toi, 0.0, 0.0, 0);
    /* one box: the first pop cannot be split */
    r = cf_ccd_inclusion(CF_CCD_VF, x, u, 1.0, 1e-9, 1);
    ck_assert_int_eq(r.status, CF_CCD_BUDGET);
    ck_assert_int_eq(r.boxes, 1);
    /* the same motion over h = 2 at half the speed: time is measured as a fraction of h, so the
       boxes are the same and the times double: 21 pops, toi = 7/8 */
    u[3] = V(0, 0, -1);
    r = cf_ccd_inclusion(CF_CCD_VF, x, u, 2.0, 1e-9, 20);
    ck_assert_int_eq(r.status, CF_CCD_BUDGET);
    ck_assert_int_eq(r.boxes, 21);
    cft_assert_near(r.toi, 0.875, 0.0, 0);
    /* no search: h <= 0 or not finite, delta <= 0, no box allowed: MISS with toi = h */
    const double hs[4] = {0.0, -1.0, 1.0, 1.0}, ds[4] = {1e-6, 1e-6, 0.0, 1e-6};
    const int ms[4] = {100, 100, 100, 0};
    for (int k = 0; k < 4; ++k) {
        r = cf_ccd_inclusion(CF_CCD_VF, x, u, hs[k], ds[k], ms[k]);
        ck_assert_msg(r.status == CF_CCD_MISS, "case %d: status %d", k, r.status);
        cft_assert_near(r.toi, hs[k], 0.0, 0);
    }
    ck_assert_int_eq(cf_ccd_inclusion(CF_CCD_VF, x, u, NAN, 1e-6, 100).status, CF_CCD_MISS);
    ck_assert_int_eq(cf_ccd_inclusion(CF_CCD_VF, x, u, INFINITY, 1e-6, 100).status, CF_CCD_MISS);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch03.6 signed distance fields                                                                */

typedef struct LinearField {
    cfVec3 a;
    double b;
} LinearField;

static double eval_linear(const void *d, cfVec3 x, cfVec3 *g)
{
    const LinearField *f = d;
    if (g) *g = f->a;
    return cfu_dot(f->a, x) + f->b;
}

START_TEST(ch03_6_grid_reproduces_linear_fields)
{
    /* trilinear interpolation is exact at nodes and for linear fields (value and gradient) */
    LinearField lf = {V(0.3, -0.7, 0.2), 0.1};
    cfSdf lin = {eval_linear, &lf};
    cfSdfGrid g;
    ck_assert(cf_sdf_grid_init(&g, V(-1, -1, -1), V(1, 1, 1), 0.0, 0.25) == CF_OK);
    cf_sdf_grid_fill(&g, &lin);
    cfRng rng;
    cf_rng_seed(&rng, 361);
    for (int k = 0; k < 2000; ++k) {
        cfVec3 x = cf_rng_vec3(&rng, -1, 1), gr;
        double s = cf_sdf_grid_eval(&g, x, &gr);
        cft_assert_near(s, cfu_dot(lf.a, x) + lf.b, 1e-13, 0);
        cft_assert_vec3_near(gr, lf.a, 1e-12);
    }
    for (int i = 0; i < g.n[0]; i += 3)
        for (int j = 0; j < g.n[1]; j += 2)
            for (int k = 0; k < g.n[2]; ++k)
                cft_assert_near_at(cf_sdf_grid_eval(&g, cf_sdf_grid_node(&g, i, j, k), NULL),
                                   g.phi[cf_sdf_grid_index(&g, i, j, k)], 1e-15, 0, "i = %d, j = %d, k = %d", i, j, k);
    cf_sdf_grid_free(&g);
}
END_TEST

static double grid_sphere_error(double dx, uint64_t seed)
{
    cfSdfSphereData sd = {V(0.05, -0.02, 0.01), 0.6};
    cfSdf sph = cf_sdf_of_sphere(&sd);
    cfSdfGrid g;
    ck_assert(cf_sdf_grid_init(&g, V(-1, -1, -1), V(1, 1, 1), 0.1, dx) == CF_OK);
    cf_sdf_grid_fill(&g, &sph);
    cfRng rng;
    cf_rng_seed(&rng, seed);
    double err = 0.0;
    for (int k = 0; k < 3000; ++k) {
        cfVec3 x = cf_rng_vec3(&rng, -1, 1);
        double d = cfu_norm(cfu_sub(x, sd.c));
        if (d < 0.3) continue; /* the cone point at the centre is not smooth */
        err = fmax(err, fabs(cf_sdf_grid_eval(&g, x, NULL) - (d - sd.r)));
    }
    cf_sdf_grid_free(&g);
    return err;
}

START_TEST(ch03_6_grid_second_order)
{
    /* sphere SDF sampled at dx, dx/2, dx/4: the interpolation error falls by ~4 each time */
    double e1 = grid_sphere_error(0.1, 362), e2 = grid_sphere_error(0.05, 362), e3 = grid_sphere_error(0.025, 362);
    ck_assert_msg(e1 / e2 > 3.0 && e2 / e3 > 3.0, "errors %g %g %g are not O(dx^2)", e1, e2, e3);
    ck_assert(e1 < 0.1 * 0.1);
}
END_TEST

START_TEST(ch03_6_grid_outside)
{
    /* queries outside the grid read no memory outside it and return an upper bound that is
       within twice the distance to the grid (|grad s| = 1) */
    cfSdfSphereData sd = {V(0, 0, 0), 0.5};
    cfSdf sph = cf_sdf_of_sphere(&sd);
    cfSdfGrid g;
    ck_assert(cf_sdf_grid_init(&g, V(-1, -1, -1), V(1, 1, 1), 0.0, 0.1) == CF_OK);
    cf_sdf_grid_fill(&g, &sph);
    cfRng rng;
    cf_rng_seed(&rng, 363);
    for (int k = 0; k < 1000; ++k) {
        cfVec3 x = cf_rng_vec3(&rng, -4, 4), gr;
        double s = cf_sdf_grid_eval(&g, x, &gr);
        double truth = cfu_norm(x) - 0.5;
        cfAabb bb = cf_sdf_grid_bounds(&g);
        cfVec3 y = V(fmin(fmax(x.x, bb.lo.x), bb.hi.x), fmin(fmax(x.y, bb.lo.y), bb.hi.y), fmin(fmax(x.z, bb.lo.z), bb.hi.z));
        double out = cfu_norm(cfu_sub(x, y));
        ck_assert(isfinite(s) && cfu_vec3_finite(gr));
        ck_assert(s >= truth - 0.01);
        ck_assert(s <= truth + 2 * out + 0.01);
    }
    cf_sdf_grid_free(&g);
}
END_TEST

START_TEST(ch03_6_grid_outside_gradient)
{
    /* the field phi = z on the grid over [-1, 1]^3 with dx = 0.5 (linear: interpolation is exact
       inside). At x = (2, 0, 0.25), outside in x: the clamped point y = (1, 0, 0.25) has
       s(y) = 0.25 and grad (0, 0, 1); |x - y| = 1 along (1, 0, 0). The spec's value is
       0.25 + 1 = 1.25 and its gradient normalize((0, 0, 1) + (1, 0, 0)) = (1, 0, 1)/sqrt(2):
       neither the gradient at y alone nor the outward direction alone. */
    LinearField lf = {V(0, 0, 1), 0.0};
    cfSdf lin = {eval_linear, &lf};
    cfSdfGrid g;
    ck_assert(cf_sdf_grid_init(&g, V(-1, -1, -1), V(1, 1, 1), 0.0, 0.5) == CF_OK);
    ck_assert_int_eq(g.n[0], 5);
    cf_sdf_grid_fill(&g, &lin);
    cfVec3 gr;
    /* tolerances as in ch03_6_grid_reproduces_linear_fields: the interpolation sums 8 terms */
    cft_assert_near(cf_sdf_grid_eval(&g, V(2, 0, 0.25), &gr), 1.25, 1e-13, 0);
    cft_assert_vec3_near(gr, V(sqrt(0.5), 0, sqrt(0.5)), 1e-12);
    /* twice as far: s = 2.25 and the same direction ((x - y)/|x - y| is a unit vector) */
    cft_assert_near(cf_sdf_grid_eval(&g, V(3, 0, 0.25), &gr), 2.25, 1e-13, 0);
    cft_assert_vec3_near(gr, V(sqrt(0.5), 0, sqrt(0.5)), 1e-12);
    /* a field that varies along every axis, evaluated on the top faces and corner of the node
       box (the last cell is n - 2: reading node n - 1 + 1 would take a value from the next row) */
    LinearField lf2 = {V(0.3, -0.7, 0.2), 0.1};
    cfSdf lin2 = {eval_linear, &lf2};
    cf_sdf_grid_fill(&g, &lin2);
    const cfVec3 top[4] = {V(1, 1, 1), V(1, -0.3, 0.2), V(0.4, 1, -0.6), V(-0.2, 0.7, 1)};
    for (int k = 0; k < 4; ++k) {
        cft_assert_near_at(cf_sdf_grid_eval(&g, top[k], &gr), cfu_dot(lf2.a, top[k]) + lf2.b, 1e-13, 0,
                           "k = %d", k);
        cft_assert_vec3_near(gr, lf2.a, 1e-12);
    }
    /* a zero field has no gradient: (0, 0, 1) (exactly zero only for zero samples: a constant
       c != 0 leaves round-off); a position that is not finite is far outside */
    LinearField flat = {V(0, 0, 0), 0.0};
    cfSdf cst = {eval_linear, &flat};
    cf_sdf_grid_fill(&g, &cst);
    cft_assert_near(cf_sdf_grid_eval(&g, V(0.1, 0.2, 0.3), &gr), 0.0, 0.0, 0);
    cft_assert_vec3_near(gr, V(0, 0, 1), 0.0);
    ck_assert(cf_sdf_grid_eval(&g, V(NAN, 0, 0), &gr) == HUGE_VAL);
    cft_assert_vec3_near(gr, V(0, 0, 1), 0.0);
    ck_assert(cf_sdf_grid_eval(&g, V(0, INFINITY, 0), NULL) == HUGE_VAL);
    cf_sdf_grid_free(&g);
}
END_TEST

START_TEST(ch03_6_sdf_point)
{
    /* an analytic sphere in a moved frame: phi is the distance, n radial, p_A = x - phi n lies on
       the sphere; the centre itself gives a finite unit normal */
    cfSdfSphereData sd = {V(0.1, 0.2, -0.1), 0.7};
    cfSdf sph = cf_sdf_of_sphere(&sd);
    cfRng rng;
    cf_rng_seed(&rng, 364);
    for (int k = 0; k < 1000; ++k) {
        cfPose A = random_pose(&rng, 2.0);
        cfVec3 cw = cf_pose_apply(A, sd.c);
        cfVec3 x = cfu_add(cw, cf_rng_vec3(&rng, -1, 1));
        cfContact c;
        double d = cfu_norm(cfu_sub(x, cw));
        int n = cf_collide_sdf_point(&sph, A, x, 0.0, &c);
        ck_assert_int_eq(n, d - sd.r <= 0.0);
        if (!n) continue;
        cft_assert_near(c.phi, d - sd.r, 1e-12, 0);
        cft_assert_vec3_near(c.n, cfu_scale(1.0 / d, cfu_sub(x, cw)), 1e-9);
        cft_assert_near(cfu_norm(cfu_sub(point_a(&c), cw)), sd.r, 1e-12, 0);
        cft_assert_vec3_near(point_b(&c), x, 1e-12);
    }
    cfContact c;
    ck_assert_int_eq(cf_collide_sdf_point(&sph, cf_pose_identity(), sd.c, 0.0, &c), 1);
    assert_unit(c.n);
    /* on the surface (s = 0) counts at margin 0; the fields the spec leaves 0 are 0 */
    cfSdfSphereData half = {V(0, 0, 0), 0.5};
    cfSdf hs = cf_sdf_of_sphere(&half);
    memset(&c, 0x5a, sizeof c);
    ck_assert_int_eq(cf_collide_sdf_point(&hs, cf_pose_identity(), V(0, 0.5, 0), 0.0, &c), 1);
    cft_assert_near(c.phi, 0.0, 1e-15, 0);
    ck_assert_uint_eq(c.feature, 0);
    ck_assert(c.lambda[0] == 0.0 && c.lambda[1] == 0.0 && c.lambda[2] == 0.0);
    ck_assert(c.body_a == 0 && c.body_b == 0);
    /* a field whose gradient is not a unit vector (s = 2 z in A's frame): n is normalized, then
       rotated into the world; a constant field gives R (0, 0, 1) */
    LinearField steep = {V(0, 0, 2), 0.0}, flat = {V(0, 0, 0), -0.1};
    cfSdf fs = {eval_linear, &steep}, ff = {eval_linear, &flat};
    cfPose A = cf_pose_make(V(1, 2, 3), axis_angle(1, 0, 0, 90));
    ck_assert_int_eq(cf_collide_sdf_point(&fs, A, cf_pose_apply(A, V(0.3, 0.4, -0.05)), 0.0, &c), 1);
    cft_assert_near(c.phi, -0.1, 1e-15, 0);
    cft_assert_vec3_near(c.n, cfu_mat3_mul_vec(A.R, V(0, 0, 1)), 1e-15);
    ck_assert_int_eq(cf_collide_sdf_point(&ff, A, V(5, 5, 5), 0.0, &c), 1);
    cft_assert_vec3_near(c.n, cfu_mat3_mul_vec(A.R, V(0, 0, 1)), 1e-15);
    /* not finite: no contact */
    ck_assert_int_eq(cf_collide_sdf_point(&sph, cf_pose_identity(), V(NAN, 0, 0), 0.0, &c), 0);
}
END_TEST

START_TEST(ch03_6_simplex_projection)
{
    /* the projection lands on the simplex, is idempotent there, and satisfies the optimality
       condition (y - w) . (z - w) <= 0 for every simplex vertex z */
    cfRng rng;
    cf_rng_seed(&rng, 365);
    for (int k = 0; k < 5000; ++k) {
        double y[3] = {cf_rng_range(&rng, -2, 2), cf_rng_range(&rng, -2, 2), cf_rng_range(&rng, -2, 2)};
        double w[3] = {y[0], y[1], y[2]};
        cf_project_simplex3(w);
        ck_assert(w[0] >= 0 && w[1] >= 0 && w[2] >= 0);
        cft_assert_near(w[0] + w[1] + w[2], 1.0, 1e-14, 0);
        for (int z = 0; z < 3; ++z) {
            double dot = 0;
            for (int i = 0; i < 3; ++i) dot += (y[i] - w[i]) * ((i == z ? 1.0 : 0.0) - w[i]);
            ck_assert(dot <= 1e-12);
        }
        double v[3] = {w[0], w[1], w[2]};
        cf_project_simplex3(v);
        for (int i = 0; i < 3; ++i) cft_assert_near_at(v[i], w[i], 1e-15, 0, "i = %d", i);
    }
}
END_TEST

START_TEST(ch03_6_face_refinement_worked)
{
    /* notes 2.3.2: a large triangle at z = 0.95 over the unit sphere: vertex sampling sees
       nothing, per-face PGD finds the point (0, 0, 0.95) at s = -0.05 */
    cfSdfSphereData sd = {V(0, 0, 0), 1.0};
    cfSdf sph = cf_sdf_of_sphere(&sd);
    cfVec3 a = V(-3, -3, 0.95), b = V(3, -3, 0.95), c = V(0, 3, 0.95);
    double w[3];
    double s = cf_sdf_triangle_min(&sph, a, b, c, 0.05, 200, w);
    cft_assert_near(s, -0.05, 1e-9, 0);
    cft_assert_near(w[0], 0.25, 1e-6, 0);
    cft_assert_near(w[1], 0.25, 1e-6, 0);
    cft_assert_near(w[2], 0.5, 1e-6, 0);
    /* one iteration: one projected gradient step from the centroid, w = P(w0 - alpha (g . x_i)) */
    {
        cfVec3 x0 = V(0, -1, 0.95), g;
        cf_sdf_eval(&sph, x0, &g);
        double want[3] = {1.0 / 3.0 - 0.05 * cfu_dot(g, a), 1.0 / 3.0 - 0.05 * cfu_dot(g, b), 1.0 / 3.0 - 0.05 * cfu_dot(g, c)};
        cf_project_simplex3(want);
        cf_sdf_triangle_min(&sph, a, b, c, 0.05, 1, w);
        for (int k = 0; k < 3; ++k) cft_assert_near_at(w[k], want[k], 1e-15, 0, "k = %d (one step)", k);
    }
    /* no iteration: the centroid (0, -1, 0.95) and its value; whatever w held before */
    w[0] = 0.9, w[1] = w[2] = 0.05;
    s = cf_sdf_triangle_min(&sph, a, b, c, 0.05, 0, w);
    for (int k = 0; k < 3; ++k) cft_assert_near_at(w[k], 1.0 / 3.0, 1e-15, 0, "k = %d", k);
    cft_assert_near(s, sqrt(1.0 + 0.95 * 0.95) - 1.0, 1e-12, 0);
    /* a lopsided triangle: the minimiser is still the point above the centre, (0, 0, 0.95), with
       weights solved from w0 a + w1 b' + w2 c = 0 in the plane (every weight different) */
    cfVec3 b2 = V(4, -3, 0.95);
    double m00 = a.x - c.x, m01 = b2.x - c.x, m10 = a.y - c.y, m11 = b2.y - c.y, det = m00 * m11 - m01 * m10;
    double w0 = (-c.x * m11 + c.y * m01) / det, w1 = (-m00 * c.y + m10 * c.x) / det;
    s = cf_sdf_triangle_min(&sph, a, b2, c, 0.05, 400, w);
    cft_assert_near(s, -0.05, 1e-9, 0);
    cft_assert_near(w[0], w0, 1e-6, 0);
    cft_assert_near(w[1], w1, 1e-6, 0);
    cft_assert_near(w[2], 1.0 - w0 - w1, 1e-6, 0);
    cfTriMesh m;
    ck_assert(cf_trimesh_init(&m, 3, 1) == CF_OK);
    m.v[0] = a, m.v[1] = b, m.v[2] = c;
    m.tri[0][0] = 0, m.tri[0][1] = 1, m.tri[0][2] = 2;
    cfSdfMeshOptions opt = cf_sdf_mesh_options_default();
    opt.faces = false;
    cfContact out[8];
    ck_assert_int_eq(cf_collide_sdf_mesh(&sph, cf_pose_identity(), &m, cf_pose_identity(), &opt, out, 8), 0);
    opt.faces = true;
    opt.alpha = 0.05;
    opt.iters = 200;
    ck_assert_int_eq(cf_collide_sdf_mesh(&sph, cf_pose_identity(), &m, cf_pose_identity(), &opt, out, 8), 1);
    cft_assert_near(out[0].phi, -0.05, 1e-9, 0);
    cft_assert_vec3_near(out[0].n, V(0, 0, 1), 1e-6);
    ck_assert_uint_eq(out[0].feature, cf_feature(CF_FEAT_SDF_FACE, 0));
    /* the automatic step size finds it too */
    opt.alpha = 0.0;
    opt.iters = 300;
    ck_assert_int_eq(cf_collide_sdf_mesh(&sph, cf_pose_identity(), &m, cf_pose_identity(), &opt, out, 8), 1);
    cft_assert_near(out[0].phi, -0.05, 1e-6, 0);
    cf_trimesh_free(&m);
    /* the minimiser on an edge: the triangle (3, 2, 1) at z = 0.3 with vertex 2 far out at y = 5
       and vertices 1, 3 at (-+3, 0.5): the lowest point (0, 0.5, 0.3) has weight 0 on vertex 2,
       so the contact is the edge {1, 3}: feature CF_FEAT_SDF_EDGE | (1 << 14 | 3) (the lower
       index first, whatever the triangle's order); vertex 0 (far away) is not in it */
    ck_assert(cf_trimesh_init(&m, 4, 1) == CF_OK);
    m.v[0] = V(10, 10, 10), m.v[1] = V(-3, 0.5, 0.3), m.v[2] = V(0, 5, 0.3), m.v[3] = V(3, 0.5, 0.3);
    m.tri[0][0] = 3, m.tri[0][1] = 2, m.tri[0][2] = 1;
    opt.alpha = 0.05;
    opt.iters = 400;
    ck_assert_int_eq(cf_collide_sdf_mesh(&sph, cf_pose_identity(), &m, cf_pose_identity(), &opt, out, 8), 1);
    cft_assert_near(out[0].phi, sqrt(0.25 + 0.09) - 1.0, 1e-6, 0);
    ck_assert_uint_eq(out[0].feature, cf_feature(CF_FEAT_SDF_EDGE, 1u << 14 | 3u));
    /* the same triangle listed from vertex 2: now the FIRST weight is the zero one */
    m.tri[0][0] = 2, m.tri[0][1] = 3, m.tri[0][2] = 1;
    ck_assert_int_eq(cf_collide_sdf_mesh(&sph, cf_pose_identity(), &m, cf_pose_identity(), &opt, out, 8), 1);
    ck_assert_uint_eq(out[0].feature, cf_feature(CF_FEAT_SDF_EDGE, 1u << 14 | 3u));
    cf_trimesh_free(&m);
    /* the PGD step of the faces: a given alpha > 0 is used as it is, and alpha <= 0 means 0.25 / L
       with L the longest edge. One iteration (from the centroid) shows the step: the contact is at
       the point of cf_sdf_triangle_min(alpha, 1 iteration), phi its value. Margin 1: the vertices
       (s >= 2.1) give no contact, the face's point (s < 0.1) does. First alpha = 0.05 (not the
       automatic 0.25 / 6.708 = 0.0373), then the automatic step on a triangle whose longest edge is
       its first one, from vertex 0 to 1 (8, the others 7.21). */
    ck_assert(cf_trimesh_init(&m, 3, 1) == CF_OK);
    m.tri[0][0] = 0, m.tri[0][1] = 1, m.tri[0][2] = 2;
    for (int run = 0; run < 2; ++run) {
        cfVec3 p0 = run == 0 ? a : V(-4, -3, 0.95), p1 = run == 0 ? b : V(4, -3, 0.95);
        m.v[0] = p0, m.v[1] = p1, m.v[2] = c;
        cfSdfMeshOptions o1 = cf_sdf_mesh_options_default();
        o1.margin = 1.0;
        o1.iters = 1;
        o1.alpha = run == 0 ? 0.05 : 0.0;
        double step = run == 0 ? 0.05 : 0.25 / 8.0;
        double want = cf_sdf_triangle_min(&sph, p0, p1, c, step, 1, w);
        ck_assert_int_eq(cf_collide_sdf_mesh(&sph, cf_pose_identity(), &m, cf_pose_identity(), &o1, out, 8), 1);
        cft_assert_near_at(out[0].phi, want, 1e-12, 0, "run %d (alpha %g)", run, step);
    }
    cf_trimesh_free(&m);
    /* the lowest point at a vertex (0, 0, 0.5), the others far out: the vertex contact only (the
       face's minimum is no lower than that vertex, so it adds nothing) */
    ck_assert(cf_trimesh_init(&m, 3, 1) == CF_OK);
    m.v[0] = V(0, 0, 0.5), m.v[1] = V(3, 0, 3), m.v[2] = V(0, 3, 3);
    m.tri[0][0] = 0, m.tri[0][1] = 1, m.tri[0][2] = 2;
    ck_assert_int_eq(cf_collide_sdf_mesh(&sph, cf_pose_identity(), &m, cf_pose_identity(), &opt, out, 8), 1);
    ck_assert_uint_eq(out[0].feature, cf_feature(CF_FEAT_SDF_VERTEX, 0));
    /* listed with that vertex second: the face is compared with each of its three vertices */
    m.tri[0][0] = 1, m.tri[0][1] = 0, m.tri[0][2] = 2;
    ck_assert_int_eq(cf_collide_sdf_mesh(&sph, cf_pose_identity(), &m, cf_pose_identity(), &opt, out, 8), 1);
    ck_assert_uint_eq(out[0].feature, cf_feature(CF_FEAT_SDF_VERTEX, 0));
    cf_trimesh_free(&m);
}
END_TEST

START_TEST(ch03_6_sdf_mesh_transform)
{
    /* a box mesh (body B) against a sphere SDF (body A), both at random poses: every vertex
       contact sits at the vertex's world position and its depth is the analytic distance to the
       world sphere; the count equals the number of vertices inside (Eq. 108 done right) */
    cfSdfSphereData sd = {V(0, 0, 0), 0.8};
    cfSdf sph = cf_sdf_of_sphere(&sd);
    cfTriMesh m;
    ck_assert(cf_trimesh_box(&m, V(0.5, 0.4, 0.3), 2) == CF_OK);
    cfRng rng;
    cf_rng_seed(&rng, 366);
    cfSdfMeshOptions opt = cf_sdf_mesh_options_default();
    opt.faces = false;
    cfContact out[64];
    for (int k = 0; k < 300; ++k) {
        cfPose A = random_pose(&rng, 1.0), B = random_pose(&rng, 1.0);
        B.x = cfu_add(A.x, cf_rng_vec3(&rng, -0.9, 0.9));
        int inside = 0;
        for (int i = 0; i < m.n_verts; ++i) inside += cfu_norm(cfu_sub(cf_pose_apply(B, m.v[i]), A.x)) <= sd.r;
        int n = cf_collide_sdf_mesh(&sph, A, &m, B, &opt, out, 64);
        ck_assert_int_eq(n, inside);
        for (int j = 0; j < n; ++j) {
            int i = (int)cf_feature_payload(out[j].feature);
            cfVec3 v = cf_pose_apply(B, m.v[i]);
            cft_assert_vec3_near_at(point_b(&out[j]), v, 1e-12, "j = %d", j);
            cft_assert_near_at(out[j].phi, cfu_norm(cfu_sub(v, A.x)) - sd.r, 1e-12, 0, "j = %d", j);
        }
    }
    cf_trimesh_free(&m);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* ch03.7 broad phase                                                                           */

static void random_aabbs(cfRng *rng, cfAabb *b, int n, double extent, double size)
{
    for (int i = 0; i < n; ++i) {
        cfVec3 c = cf_rng_vec3(rng, -extent, extent);
        cfVec3 h = cf_rng_vec3(rng, 0.1 * size, size);
        if (i % 7 == 3 && i > 0) c = cfu_scale(0.5, cfu_add(b[i - 1].lo, b[i - 1].hi)); /* identical centres */
        b[i].lo = cfu_sub(c, h);
        b[i].hi = cfu_add(c, h);
        if (i % 11 == 5 && i > 0) { /* exactly touching the previous box */
            double w = b[i].hi.x - b[i].lo.x;
            b[i].lo.x = b[i - 1].hi.x;
            b[i].hi.x = b[i].lo.x + w;
        }
    }
}

START_TEST(ch03_7_same_pairs_as_all_pairs)
{
    /* random sets with identical centres and exactly touching boxes: SAP returns exactly the
       pairs of the all-pairs reference, in the same order */
    cfRng rng;
    cf_rng_seed(&rng, 371);
    cfPairList a = {0, 0, NULL}, b = {0, 0, NULL};
    for (int k = 0; k < 60; ++k) {
        int n = 1 + (int)cf_rng_below(&rng, 400);
        cfAabb *boxes = malloc((size_t)n * sizeof *boxes);
        random_aabbs(&rng, boxes, n, cf_rng_range(&rng, 1, 10), 0.5);
        long ta = 0, tb = 0;
        ck_assert(cf_broadphase_sap(boxes, n, &a, &ta) == CF_OK);
        ck_assert(cf_broadphase_all_pairs(boxes, n, &b, &tb) == CF_OK);
        ck_assert_int_eq(a.count, b.count);
        for (int i = 0; i < a.count; ++i) {
            cft_assert_int_at(a.items[i].a, ==, b.items[i].a, "i = %d", i);
            cft_assert_int_at(a.items[i].b, ==, b.items[i].b, "i = %d", i);
        }
        ck_assert(ta <= tb);
        free(boxes);
    }
    cf_pairs_free(&a);
    cf_pairs_free(&b);
}
END_TEST

static long sap_tests(int n, uint64_t seed)
{
    /* constant density: the volume grows with n */
    cfRng rng;
    cf_rng_seed(&rng, seed);
    cfAabb *boxes = malloc((size_t)n * sizeof *boxes);
    random_aabbs(&rng, boxes, n, 2.0 * cbrt((double)n), 0.5);
    cfPairList p = {0, 0, NULL};
    long t = 0;
    ck_assert(cf_broadphase_sap(boxes, n, &p, &t) == CF_OK);
    cf_pairs_free(&p);
    free(boxes);
    return t;
}

START_TEST(ch03_7_subquadratic)
{
    /* counting the AABB tests at constant density: 8x the boxes costs far less than 64x the
       tests (all-pairs), and a small fraction of n(n-1)/2 */
    long t1 = sap_tests(1000, 372), t2 = sap_tests(8000, 373);
    double ratio = (double)t2 / (double)t1, all = 8000.0 * 7999.0 / 2.0;
    ck_assert_msg(ratio < 45.0, "tests grew by %g for 8x the boxes (all-pairs: 64)", ratio);
    ck_assert_msg(t2 < 0.05 * all, "%ld tests of %g pairs", t2, all);
}
END_TEST

START_TEST(ch03_7_sweep_axis)
{
    /* boxes strung along one axis, far from the origin in the other two: 1000 boxes of size 0.2
       at spacing 0.5 along axis a, all at (1000, -500) across it. Sweeping along a, each box
       meets only the ones still open: 0 tests. Any other axis sees 1000 identical intervals:
       n (n - 1)/2 = 499500 tests. The largest variance of the centres must pick a (a mean
       that is off, or the smallest variance, picks a wrong one). */
    enum { N = 1000 };
    cfAabb *b = malloc(N * sizeof *b);
    cfPairList p = {0, 0, NULL};
    for (int a = 0; a < 3; ++a) {
        for (int i = 0; i < N; ++i) {
            double c[3] = {1000.0, -500.0, 1000.0};
            c[(a + 2) % 3] = -500.0;
            c[a] = 0.5 * i;
            b[i].lo = V(c[0] - 0.1, c[1] - 0.1, c[2] - 0.1);
            b[i].hi = V(c[0] + 0.1, c[1] + 0.1, c[2] + 0.1);
        }
        long t = 0;
        ck_assert(cf_broadphase_sap(b, N, &p, &t) == CF_OK);
        ck_assert_int_eq(p.count, 0);
        ck_assert_msg(t == 0, "strung along axis %d: %ld box tests (the sweep axis is wrong)", a, t);
    }
    /* a small spread decides too: three boxes of size 0.2 at 0, 0.5, 1 along axis a (a variance of
       1/6, a sum of squares of 0.5), at 0 on the others: along a no interval meets the next (0
       tests), along another axis all 3 pairs are tested (a variance or mean that starts at 1
       instead of 0 picks a wrong axis) */
    for (int a = 0; a < 3; ++a) {
        for (int i = 0; i < 3; ++i) {
            double c[3] = {0, 0, 0};
            c[a] = 0.5 * i;
            b[i].lo = V(c[0] - 0.1, c[1] - 0.1, c[2] - 0.1);
            b[i].hi = V(c[0] + 0.1, c[1] + 0.1, c[2] + 0.1);
        }
        long t3 = 0;
        cft_assert_at(cf_broadphase_sap(b, 3, &p, &t3) == CF_OK, "a = %d", a);
        cft_assert_int_at(p.count, ==, 0, "a = %d", a);
        ck_assert_msg(t3 == 0, "three boxes along axis %d: %ld box tests (the sweep axis is wrong)", a, t3);
    }
    cf_pairs_free(&p);
    free(b);
}
END_TEST

START_TEST(ch03_7_edge_cases)
{
    /* no boxes, one box, all boxes at one point, bad input */
    cfPairList p = {0, 0, NULL};
    long t = 0;
    ck_assert(cf_broadphase_sap(NULL, 0, &p, &t) == CF_OK);
    ck_assert_int_eq(p.count, 0);
    cfAabb b[5];
    for (int i = 0; i < 5; ++i) b[i].lo = b[i].hi = V(1, 1, 1);
    ck_assert(cf_broadphase_sap(b, 1, &p, &t) == CF_OK);
    ck_assert_int_eq(p.count, 0);
    ck_assert(cf_broadphase_sap(b, 5, &p, &t) == CF_OK);
    ck_assert_int_eq(p.count, 10);
    /* the smallest set with a pair: two boxes, overlapping (one test, added to *tests), then
       apart along the sweep axis (the second starts after the first ends: no test) */
    t = 5;
    ck_assert(cf_broadphase_sap(b, 2, &p, &t) == CF_OK);
    ck_assert_int_eq(p.count, 1);
    ck_assert(p.items[0].a == 0 && p.items[0].b == 1);
    ck_assert_int_eq(t, 6);
    b[1].lo.x = b[1].hi.x = 3.0;
    ck_assert(cf_broadphase_sap(b, 2, &p, &t) == CF_OK);
    ck_assert_int_eq(p.count, 0);
    ck_assert_int_eq(t, 6);
    ck_assert(cf_broadphase_sap(b, 2, &p, NULL) == CF_OK); /* tests may be NULL */
    b[1].lo.x = b[1].hi.x = 1.0;
    b[2].hi.x = NAN;
    ck_assert(cf_broadphase_sap(b, 5, &p, &t) == CF_BAD_INPUT);
    /* every box is checked, the first one too (and off the sweep axis) */
    b[2].hi.x = 1.0;
    b[0].lo.y = NAN;
    ck_assert(cf_broadphase_sap(b, 5, &p, &t) == CF_BAD_INPUT);
    cf_pairs_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* integration and library (ungraded)                                                           */

START_TEST(lib_segment_closest)
{
    /* against a dense brute-force search of the two parameters */
    cfRng rng;
    cf_rng_seed(&rng, 381);
    for (int k = 0; k < 300; ++k) {
        cfVec3 p0 = cf_rng_vec3(&rng, -1, 1), p1 = cf_rng_vec3(&rng, -1, 1);
        cfVec3 q0 = cf_rng_vec3(&rng, -1, 1), q1 = k % 5 == 0 ? cfu_add(q0, cfu_scale(0.7, cfu_sub(p1, p0)))
                                                              : cf_rng_vec3(&rng, -1, 1);
        double s, t, d2 = cf_segment_closest(p0, p1, q0, q1, &s, &t);
        ck_assert(s >= 0 && s <= 1 && t >= 0 && t <= 1);
        double best = INFINITY;
        for (int i = 0; i <= 200; ++i)
            for (int j = 0; j <= 200; ++j) {
                cfVec3 d = cfu_sub(cfu_mul_add(p0, i / 200.0, cfu_sub(p1, p0)), cfu_mul_add(q0, j / 200.0, cfu_sub(q1, q0)));
                best = fmin(best, cfu_norm2(d));
            }
        ck_assert(d2 <= best + 1e-12);
        ck_assert(sqrt(best) - sqrt(d2) <= 0.02);
    }
}
END_TEST

START_TEST(lib_meshes_closed)
{
    /* box and icosphere meshes are closed 2-manifolds: V - E + F = 2, every edge in 2 faces */
    cfTriMesh m[2];
    ck_assert(cf_trimesh_box(&m[0], V(0.5, 0.3, 0.2), 3) == CF_OK);
    ck_assert(cf_trimesh_icosphere(&m[1], 0.7, 2) == CF_OK);
    ck_assert_int_eq(m[1].n_verts, 162);
    for (int q = 0; q < 2; ++q) {
        int E2 = 0;
        for (int f = 0; f < m[q].n_tris; ++f)
            for (int k = 0; k < 3; ++k) {
                int a = m[q].tri[f][k], b = m[q].tri[f][(k + 1) % 3], twins = 0;
                for (int g = 0; g < m[q].n_tris; ++g)
                    for (int j = 0; j < 3; ++j)
                        if (m[q].tri[g][j] == b && m[q].tri[g][(j + 1) % 3] == a) ++twins;
                ck_assert_int_eq(twins, 1);
                ++E2;
            }
        cft_assert_int_at(m[q].n_verts - E2 / 2 + m[q].n_tris, ==, 2, "q = %d", q);
        /* outward orientation: the signed volume is positive */
        double vol = 0;
        for (int f = 0; f < m[q].n_tris; ++f)
            vol += cfu_dot(m[q].v[m[q].tri[f][0]], cfu_cross(m[q].v[m[q].tri[f][1]], m[q].v[m[q].tri[f][2]])) / 6.0;
        ck_assert(vol > 0);
        cf_trimesh_free(&m[q]);
    }
}
END_TEST

START_TEST(lib_sdf_box_exact)
{
    /* cf_sdf_box: outside it is the distance to the box, inside minus the distance to the
       surface (checked against the clamp and the face distances); unit gradient */
    cfRng rng;
    cf_rng_seed(&rng, 382);
    cfVec3 h = V(0.5, 0.3, 0.2);
    for (int k = 0; k < 2000; ++k) {
        cfVec3 x = cf_rng_vec3(&rng, -1, 1), g;
        double s = cf_sdf_box(x, h, &g);
        cfVec3 c = V(fmin(fmax(x.x, -h.x), h.x), fmin(fmax(x.y, -h.y), h.y), fmin(fmax(x.z, -h.z), h.z));
        double out = cfu_norm(cfu_sub(x, c));
        double in = fmin(h.x - fabs(x.x), fmin(h.y - fabs(x.y), h.z - fabs(x.z)));
        cft_assert_near(s, out > 0 ? out : -in, 1e-14, 0);
        cft_assert_near(cfu_norm(g), 1.0, 1e-12, 0);
    }
}
END_TEST

START_TEST(lib_manifold_reduce)
{
    /* keeps the deepest point, a subset of the input, max_out points, deterministic */
    cfRng rng;
    cf_rng_seed(&rng, 383);
    for (int k = 0; k < 500; ++k) {
        cfContact in[8], out[8], again[8];
        int n = 5 + (int)cf_rng_below(&rng, 4), deep = 0;
        for (int i = 0; i < n; ++i) {
            memset(&in[i], 0, sizeof in[i]);
            in[i].p = cf_rng_vec3(&rng, -1, 1);
            in[i].p.z = 0;
            in[i].n = V(0, 0, 1);
            in[i].phi = cf_rng_range(&rng, -0.1, 0);
            in[i].feature = (uint32_t)i;
            if (in[i].phi < in[deep].phi) deep = i;
        }
        int m = cf_manifold_reduce(in, n, 4, out);
        ck_assert_int_eq(m, 4);
        bool has_deep = false;
        for (int i = 0; i < m; ++i) {
            has_deep |= out[i].feature == (uint32_t)deep;
            if (i) cft_assert_at(out[i].feature > out[i - 1].feature, "i = %d", i); /* original order */
        }
        ck_assert(has_deep);
        memcpy(again, in, sizeof in);
        ck_assert_int_eq(cf_manifold_reduce(again, n, 4, again), 4); /* in place */
        for (int i = 0; i < 4; ++i) cft_assert_int_at(again[i].feature, ==, out[i].feature, "i = %d", i);
    }
}
END_TEST

START_TEST(integration_detect_world)
{
    /* a pile of spheres and boxes above a plane: the sweep-and-prune pass and the all-pairs pass
       give identical contact lists; every normal points from body_a to body_b's side */
    cfWorld w;
    ck_assert(cf_world_init(&w, NULL) == CF_OK);
    cfRng rng;
    cf_rng_seed(&rng, 391);
    cfRigidBody ground = make_body(cf_shape_plane(V(0, 0, 1), 0.0), 0);
    cf_world_add_body(&w, &ground);
    for (int k = 0; k < 120; ++k) {
        cfRigidBody b = k % 2 ? make_body(cf_shape_sphere(cf_rng_range(&rng, 0.2, 0.5)), 1.0)
                              : make_body(cf_shape_box(cf_rng_vec3(&rng, 0.15, 0.5)), 1.0);
        b.x = cf_rng_vec3(&rng, -2.5, 2.5);
        b.x.z = cf_rng_range(&rng, 0.0, 3.0);
        b.q = cf_rng_quat(&rng);
        cf_world_add_body(&w, &b);
    }
    cfDetectOptions o1 = cf_detect_options_default(), o2 = o1;
    o2.broadphase = CF_BROADPHASE_ALL_PAIRS;
    cfContactList l1 = {0}, l2 = {0};
    cfDetectStats s1, s2;
    ck_assert(cf_detect_world(&w, &o1, &l1, &s1) == CF_OK);
    ck_assert(cf_detect_world(&w, &o2, &l2, &s2) == CF_OK);
    ck_assert_int_gt(l1.count, 50);
    ck_assert_int_eq(l1.count, l2.count);
    ck_assert(s1.aabb_tests < s2.aabb_tests);
    for (int k = 0; k < l1.count; ++k) {
        cft_assert_at(memcmp(&l1.items[k], &l2.items[k], sizeof l1.items[k]) == 0, "k = %d", k);
        const cfContact *c = &l1.items[k];
        ck_assert(c->body_a < c->body_b);
        cft_assert_near(cfu_norm(c->n), 1.0, 1e-12, 0);
        /* swapping the pair reproduces the contact with the opposite normal */
        cfContact buf[8];
        int n = cf_detect_pair(&w.bodies[c->body_b], c->body_b, &w.bodies[c->body_a], c->body_a, &o1, buf);
        bool found = false;
        for (int j = 0; j < n; ++j)
            found |= cfu_norm(cfu_sub(buf[j].p, c->p)) < 1e-9 && cfu_norm(cfu_add(buf[j].n, c->n)) < 1e-9 &&
                     fabs(buf[j].phi - c->phi) < 1e-12;
        ck_assert_msg(found, "pair (%d, %d) swapped lacks the contact", c->body_a, c->body_b);
    }
    cf_contacts_free(&l1);
    cf_contacts_free(&l2);
    cf_world_free(&w);
}
END_TEST

/* signed distance of x to a body's surface (brute-force references for the certificates) */
static double body_distance(const cfRigidBody *b, cfVec3 x)
{
    switch (b->shape.type) {
    case CF_SHAPE_SPHERE: return cfu_norm(cfu_sub(x, b->x)) - b->shape.radius;
    case CF_SHAPE_PLANE: return cfu_dot(b->shape.normal, x) - b->shape.offset;
    case CF_SHAPE_BOX: {
        cfObb o = cf_obb_of_body(b);
        return cf_sdf_obb(&o, x, NULL);
    }
    case CF_SHAPE_CAPSULE: {
        cfVec3 a = cfu_quat_rotate(b->q, V(0, 0, b->shape.half_height));
        return sqrt(cf_segment_closest(x, x, cfu_sub(b->x, a), cfu_add(b->x, a), NULL, NULL)) - b->shape.radius;
    }
    case CF_SHAPE_COUNT: break;
    }
    return 0;
}

START_TEST(integration_capsules)
{
    /* capsules against every shape: surface points on both surfaces, swapping the pair flips
       the normal, and a capsule that truly penetrates (dense sampling of its segment) gets a
       contact */
    cfRng rng;
    cf_rng_seed(&rng, 392);
    int with = 0;
    for (int k = 0; k < 2000; ++k) {
        cfRigidBody cap = make_body(cf_shape_capsule(cf_rng_range(&rng, 0.1, 0.4), cf_rng_range(&rng, 0.0, 0.8)), 1.0);
        cap.x = cf_rng_vec3(&rng, -0.8, 0.8);
        cap.q = cf_rng_quat(&rng);
        cfRigidBody other;
        switch (k % 4) {
        case 0: other = make_body(cf_shape_plane(cf_rng_unit_vec3(&rng), cf_rng_range(&rng, -0.5, 0.5)), 0); break;
        case 1: other = make_body(cf_shape_sphere(cf_rng_range(&rng, 0.1, 0.6)), 1.0); break;
        case 2: other = make_body(cf_shape_box(cf_rng_vec3(&rng, 0.1, 0.6)), 1.0); break;
        default: other = make_body(cf_shape_capsule(cf_rng_range(&rng, 0.1, 0.4), cf_rng_range(&rng, 0.0, 0.8)), 1.0); break;
        }
        if (k % 4) other.q = cf_rng_quat(&rng);
        if (k % 8 == 7) other.q = cap.q; /* parallel capsules */
        cfContact c[8], sw[8];
        int n = cf_detect_pair(&other, 0, &cap, 1, NULL, c);
        ck_assert_int_ge(n, 0);
        ck_assert_int_eq(cf_detect_pair(&cap, 1, &other, 0, NULL, sw), n);
        for (int j = 0; j < n; ++j) {
            assert_unit(c[j].n);
            cft_assert_at(c[j].phi <= 0.0, "j = %d", j);
            cft_assert_near_at(body_distance(&other, point_a(&c[j])), 0.0, 1e-7, 0, "j = %d", j);
            /* a box's interior point with the core segment inside the box sits at a kink of the
               box distance: its capsule point is only approximate (documented) */
            bool kink = other.shape.type == CF_SHAPE_BOX && cf_feature_payload(c[j].feature) == 2 &&
                        c[j].phi < -cap.shape.radius;
            if (!kink) cft_assert_near_at(body_distance(&cap, point_b(&c[j])), 0.0, 1e-7, 0, "j = %d", j);
            int i = find_near(sw, n, c[j].p, 1e-12);
            ck_assert_msg(i >= 0, "case %d: the swapped pair lacks a contact", k);
            cft_assert_vec3_near(sw[i].n, cfu_neg(c[j].n), 1e-12);
            cft_assert_near(sw[i].phi, c[j].phi, 1e-12, 0);
        }
        /* dense sampling of the capsule's core: the deepest point's penetration */
        cfVec3 a = cfu_quat_rotate(cap.q, V(0, 0, cap.shape.half_height));
        double deepest = INFINITY;
        for (int i = 0; i <= 200; ++i)
            deepest = fmin(deepest, body_distance(&other, cfu_mul_add(cfu_sub(cap.x, a), i / 100.0, a)) - cap.shape.radius);
        if (deepest < -1e-3) {
            ++with;
            ck_assert_msg(n >= 1, "case %d: a penetrating capsule got no contact", k);
        }
    }
    ck_assert(with > 500);
}
END_TEST

START_TEST(integration_warm_start)
{
    /* impulses follow contacts by (body_a, body_b, feature) from one frame to the next */
    cfVec3 pos[1] = {V(0, 0, 0.499)}, half[1] = {V(0.5, 0.5, 0.5)};
    cfWorld w;
    world_with(&w, 1, pos, half, NULL);
    cfContactList prev = {0}, now = {0};
    ck_assert(cf_detect_world(&w, NULL, &prev, NULL) == CF_OK);
    ck_assert_int_eq(prev.count, 4);
    for (int k = 0; k < 4; ++k) prev.items[k].lambda[0] = 1.0 + prev.items[k].feature;
    w.bodies[1].x.x += 1e-4;
    ck_assert(cf_detect_world(&w, NULL, &now, NULL) == CF_OK);
    ck_assert_int_eq(cf_contacts_carry_impulses(&now, &prev), 4);
    for (int k = 0; k < 4; ++k) cft_assert_near_at(now.items[k].lambda[0], 1.0 + now.items[k].feature, 0, 0,
                                                   "k = %d", k);
    cf_contacts_free(&prev);
    cf_contacts_free(&now);
    cf_world_free(&w);
}
END_TEST

START_TEST(integration_warm_start_merge_equals_search)
{
    /* the merge walk (both lists in pair order, every world step) and the sorted search (any
       order) carry the same impulses: a pyramid's contacts, the previous list once as detected
       and once reversed */
    cfWorld w;
    cfError err;
    cft_assert_ok(cf_scene_load(cft_scene_path("ch05_pyramid_10.json"), &w, NULL, &err));
    cfContactList prev = {0}, now = {0}, now2 = {0}, rev = {0};
    ck_assert(cf_detect_world(&w, NULL, &prev, NULL) == CF_OK);
    ck_assert_int_gt(prev.count, 100);
    for (int k = 0; k < prev.count; ++k) prev.items[k].lambda[0] = k + 1.0;
    for (int i = 0; i < w.n_bodies; ++i) w.bodies[i].x.x += 1e-4 * (i % 3);
    ck_assert(cf_detect_world(&w, NULL, &now, NULL) == CF_OK);
    ck_assert(cf_detect_world(&w, NULL, &now2, NULL) == CF_OK);
    for (int k = prev.count - 1; k >= 0; --k) cft_assert_ok_at(cf_contacts_push(&rev, &prev.items[k]), "k = %d", k);
    int m1 = cf_contacts_carry_impulses(&now, &prev), m2 = cf_contacts_carry_impulses(&now2, &rev);
    ck_assert_int_eq(m1, m2);
    ck_assert_int_gt(m1, prev.count / 2); /* a shift of at most 0.2 mm keeps most features: the walk must find them */
    for (int k = 0; k < now.count; ++k) cft_assert_at(now.items[k].lambda[0] == now2.items[k].lambda[0], "k = %d", k);
    cf_contacts_free(&prev);
    cf_contacts_free(&now);
    cf_contacts_free(&now2);
    cf_contacts_free(&rev);
    cf_world_free(&w);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */

START_TEST(world_detect_stage)
{
    /* the world's DETECT stage: a box resting on the ground yields its 4 corner contacts with
       normals from the ground (body 0) to the box (body 1); impulses of persisting contacts are
       carried to the next step; with the detector off the list is empty */
    cfWorldDef def = cf_world_def_default();
    def.detector = CF_DETECT_PRIMITIVES;
    def.gravity = cfu_zero3(); /* no solver yet: keep the box where it is */
    cfWorld w;
    ck_assert(cf_world_init(&w, &def) == CF_OK);
    cfRigidBody ground, box;
    ck_assert(cf_rigid_init_fixed(&ground, cf_shape_plane(cfu_vec3(0, 0, 1), 0.0), NULL) == CF_OK);
    ck_assert(cf_rigid_init(&box, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 1.0, NULL) == CF_OK);
    box.x = cfu_vec3(0, 0, 0.49);
    ck_assert_int_eq(cf_world_add_body(&w, &ground), 0);
    ck_assert_int_eq(cf_world_add_body(&w, &box), 1);
    cft_assert_ok(cf_world_step(&w));
    ck_assert_int_eq(w.contacts.count, 4);
    ck_assert_int_eq(w.stats.n_contacts, 4);
    for (int i = 0; i < 4; ++i) {
        const cfContact *c = &w.contacts.items[i];
        ck_assert_int_eq(c->body_a, 0);
        ck_assert_int_eq(c->body_b, 1);
        cft_assert_vec3_near(c->n, cfu_vec3(0, 0, 1), 1e-12);
        cft_assert_near(c->phi, -0.01, 1e-12, 0);
        w.contacts.items[i].lambda[0] = 1.0 + i; /* as a solver would leave them */
    }
    cft_assert_ok(cf_world_step(&w));
    ck_assert_int_eq(w.contacts.count, 4);
    double sum = 0.0;
    for (int i = 0; i < 4; ++i) sum += w.contacts.items[i].lambda[0];
    cft_assert_near(sum, 10.0, 1e-12, 0); /* all four warm-start values came back */
    w.def.detector = CF_DETECT_NONE;
    cft_assert_ok(cf_world_step(&w));
    ck_assert_int_eq(w.contacts.count, 0);
    cf_world_free(&w);
}
END_TEST

static void build(Suite *s)
{
    TCase *t1 = cft_tcase_unit(s, "ch03.1");
    CFT_GRADED(t1, ch03_1_sphere_sphere_worked, "ch03.1", 2, "sphere-sphere worked example (notes 2.1.1)");
    CFT_GRADED(t1, ch03_1_sphere_sphere_certificates, "ch03.1", 3, "surface points, depth and swap symmetry");
    CFT_GRADED(t1, ch03_1_coincident_centres, "ch03.1", 1, "coincident centres give a finite normal");
    CFT_GRADED(t1, ch03_1_plane_sphere, "ch03.1", 2, "plane-sphere: point on the plane and on the sphere");
    CFT_GRADED(t1, ch03_1_margin, "ch03.1", 2, "speculative contacts within the margin");

    TCase *t2 = cft_tcase_unit(s, "ch03.2");
    CFT_GRADED(t2, ch03_2_worked_examples, "ch03.2", 2, "shallow, deep and corner cases (notes 2.1.2)");
    CFT_GRADED(t2, ch03_2_matches_box_distance, "ch03.2", 3, "depth = box distance - r, normal = -gradient");
    CFT_GRADED(t2, ch03_2_continuous_across_faces, "ch03.2", 3, "depth continuous, normal kept across faces");
    CFT_GRADED(t2, ch03_2_rigid_motion, "ch03.2", 2, "rigid motions move the contact");

    TCase *t3 = cft_tcase_unit(s, "ch03.3");
    CFT_GRADED(t3, ch03_3_sat_worked, "ch03.3", 2, "SAT: separated, stacked and crossed edges (notes 2.1.3)");
    CFT_GRADED(t3, ch03_3_sat_touching_faces, "ch03.3", 1, "touching faces (s = 0): the face axis and 4 contacts");
    CFT_GRADED(t3, ch03_3_sat_ties_and_bias, "ch03.3", 1, "SAT: the separating edge axis, ties within 5e-10, the 5 % face bias");
    CFT_GRADED(t3, ch03_3_feature_ids, "ch03.3", 1, "feature ids: faces, vertex tags and edge numbers");
    CFT_GRADED(t3, ch03_3_sat_brute_force, "ch03.3", 2, "SAT agrees with a brute-force separation search");
    CFT_GRADED(t3, ch03_3_face_manifolds_worked, "ch03.3", 3, "4 contacts stacked, 8 turned 45 deg, reduction");
    CFT_GRADED(t3, ch03_3_edge_edge_worked, "ch03.3", 2, "crossed edges: one contact at depth 0.01421");
    CFT_GRADED(t3, ch03_3_manifold_certificates, "ch03.3", 4, "manifold points on both surfaces, depth bounds");
    CFT_GRADED(t3, ch03_3_swap_and_rigid_motion, "ch03.3", 2, "swap flips n; rigid motions keep feature ids");
    CFT_GRADED(t3, ch03_3_box_plane, "ch03.3", 2, "box-plane: one contact per vertex below");
    CFT_GRADED(t3, ch03_3_persistent_ids, "ch03.3", 1, "resting boxes keep their 4 feature ids");

    TCase *t4 = cft_tcase_scene(s, "ch03.4");
    CFT_GRADED(t4, ch03_4_cubic_roots, "ch03.4", 2, "cubic roots: simple, double, at the ends, zero");
    CFT_GRADED(t4, ch03_4_cubic_roots_intervals, "ch03.4", 1, "cubic roots: the scale T, one-point intervals, order");
    CFT_GRADED(t4, ch03_4_coplanarity_cubic, "ch03.4", 2, "coplanarity cubic equals the signed volume");
    CFT_GRADED(t4, ch03_4_vertex_face_worked, "ch03.4", 2, "vertex-face worked cases (notes 2.2.2)");
    CFT_GRADED(t4, ch03_4_ccd_special_cases, "ch03.4", 1, "bad input, no root, h = 0, degenerate, hits on edges and ends");
    CFT_GRADED(t4, ch03_4_edge_edge_worked, "ch03.4", 1, "edge-edge worked cases (notes 2.2.3)");
    CFT_GRADED(t4, ch03_4_grazing_at_scale, "ch03.4", 1, "grazes: the tolerance 1e-12 L^3 (at scale 1000, L's terms), the side of a double root");
    CFT_GRADED(t4, ch03_4_normal_at_toi_zero, "ch03.4", 1, "contact at t = 0: the normal from -f'(0) or f''(0)");
    CFT_GRADED(t4, ch03_4_vertex_face_never_misses, "ch03.4", 2, "vertex-face never misses a sampled hit");
    CFT_GRADED(t4, ch03_4_edge_edge_never_misses, "ch03.4", 2, "edge-edge never misses a sampled hit");

    TCase *t5 = cft_tcase_scene(s, "ch03.5");
    CFT_GRADED(t5, ch03_5_inclusion_is_sound, "ch03.5", 4, "inclusion bounds contain F and converge");
    CFT_GRADED(t5, ch03_5_worked_cases, "ch03.5", 3, "in-plane t = 1.2 and the cubic examples");
    CFT_GRADED(t5, ch03_5_no_false_negatives, "ch03.5", 6, "no false negatives; features within O(delta) at toi");
    CFT_GRADED(t5, ch03_5_budget_is_a_lower_bound, "ch03.5", 2, "a budget stop: exact box count, a lower bound");

    TCase *t6 = cft_tcase_scene(s, "ch03.6");
    CFT_GRADED(t6, ch03_6_grid_reproduces_linear_fields, "ch03.6", 2, "trilinear: exact at nodes and for linear fields");
    CFT_GRADED(t6, ch03_6_grid_second_order, "ch03.6", 2, "grid SDF error is O(dx^2)");
    CFT_GRADED(t6, ch03_6_grid_outside_gradient, "ch03.6", 1, "outside the grid: value s(y) + |x - y|, summed gradient");
    CFT_GRADED(t6, ch03_6_grid_outside, "ch03.6", 1, "queries outside the grid are safe bounds");
    CFT_GRADED(t6, ch03_6_sdf_point, "ch03.6", 2, "SDF-point: depth, normal, projected point");
    CFT_GRADED(t6, ch03_6_simplex_projection, "ch03.6", 2, "simplex projection: feasible, optimal, idempotent");
    CFT_GRADED(t6, ch03_6_face_refinement_worked, "ch03.6", 3, "large triangle over a sphere (notes 2.3.2)");
    CFT_GRADED(t6, ch03_6_sdf_mesh_transform, "ch03.6", 2, "SDF-mesh vertices in the right frame (Eq. 108)");

    TCase *t7 = cft_tcase_scene(s, "ch03.7");
    CFT_GRADED(t7, ch03_7_same_pairs_as_all_pairs, "ch03.7", 4, "sweep and prune finds exactly the overlapping pairs");
    CFT_GRADED(t7, ch03_7_subquadratic, "ch03.7", 3, "pair tests grow sub-quadratically");
    CFT_GRADED(t7, ch03_7_sweep_axis, "ch03.7", 1, "the sweep axis: largest variance of the centres");
    CFT_GRADED(t7, ch03_7_edge_cases, "ch03.7", 2, "empty, single, coincident boxes, bad input");

    TCase *tl = cft_tcase_unit(s, "ch03-library");
    CFT_TEST(tl, lib_segment_closest, "segment closest points vs brute force");
    CFT_TEST(tl, world_detect_stage, "the world's detect stage and warm-start carry-over");
    CFT_TEST(tl, lib_meshes_closed, "box and icosphere meshes are closed and outward");
    CFT_TEST(tl, lib_sdf_box_exact, "analytic box SDF");
    CFT_TEST(tl, lib_manifold_reduce, "manifold reduction keeps the deepest point");
    TCase *ti = cft_tcase_scene(s, "ch03-integration");
    CFT_TEST(ti, integration_detect_world, "world detection: SAP equals all-pairs, A->B normals");
    CFT_TEST(ti, integration_capsules, "capsules against every shape: surface points, swap, no misses");
    CFT_TEST(ti, integration_warm_start, "impulses carried over by feature id");
    CFT_TEST(ti, integration_warm_start_merge_equals_search, "warm start: merge walk equals sorted search");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "ch03", build); }
