/* SPDX-License-Identifier: MIT */
/* Library tests: small value math (cf_math.h) and the seeded generator (cf_rng.h), checked
   against identities rather than stored numbers; the thread count of CF_THREADS (cf_base.h). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "cft.h"
#include "cf/cf_rng.h"

#define N_RANDOM 1000

START_TEST(math_cross_identities)
{
    cfRng rng;
    cf_rng_seed(&rng, 1);
    for (int k = 0; k < N_RANDOM; ++k) {
        cfVec3 a = cf_rng_vec3(&rng, -2, 2), b = cf_rng_vec3(&rng, -2, 2), c = cf_rng_vec3(&rng, -2, 2);
        cfVec3 axb = cfu_cross(a, b);
        /* a x b is orthogonal to a and b, anti-commutes, and matches the skew matrix */
        cft_assert_near(cfu_dot(axb, a), 0.0, 1e-12, 0);
        cft_assert_near(cfu_dot(axb, b), 0.0, 1e-12, 0);
        cft_assert_vec3_near(cfu_cross(b, a), cfu_neg(axb), 1e-14);
        cft_assert_vec3_near(cfu_mat3_mul_vec(cfu_skew(a), b), axb, 1e-14);
        /* Lagrange: |a x b|^2 = |a|^2 |b|^2 - (a.b)^2; BAC-CAB */
        cft_assert_near(cfu_norm2(axb), cfu_norm2(a) * cfu_norm2(b) - pow(cfu_dot(a, b), 2), 1e-12, 1e-12);
        cfVec3 bac = cfu_sub(cfu_scale(cfu_dot(a, c), b), cfu_scale(cfu_dot(a, b), c));
        cft_assert_vec3_near(cfu_cross(a, cfu_cross(b, c)), bac, 1e-12);
    }
}
END_TEST

START_TEST(math_mat3_inverse_and_transpose)
{
    cfRng rng;
    cf_rng_seed(&rng, 2);
    for (int k = 0; k < N_RANDOM; ++k) {
        cfMat3 m = cfu_mat3_rows(cf_rng_vec3(&rng, -1, 1), cf_rng_vec3(&rng, -1, 1), cf_rng_vec3(&rng, -1, 1));
        m = cfu_mat3_add(m, cfu_mat3_scale(3.0, cfu_mat3_identity())); /* well conditioned */
        cfMat3 inv;
        ck_assert(cfu_mat3_inverse(m, &inv));
        cfMat3 p = cfu_mat3_mul(m, inv);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) cft_assert_near_at(p.m[i][j], i == j ? 1.0 : 0.0, 1e-12, 0,
                                                           "i = %d, j = %d", i, j);
        cfVec3 v = cf_rng_vec3(&rng, -1, 1);
        cft_assert_vec3_near(cfu_mat3_tmul_vec(m, v), cfu_mat3_mul_vec(cfu_mat3_transpose(m), v), 1e-14);
        cft_assert_near(cfu_mat3_det(cfu_mat3_transpose(m)), cfu_mat3_det(m), 1e-12, 1e-12);
    }
    /* a singular matrix is refused, not inverted into infinities */
    cfMat3 s = cfu_mat3_rows(cfu_vec3(1, 2, 3), cfu_vec3(2, 4, 6), cfu_vec3(0, 1, 0));
    cfMat3 out = cfu_mat3_identity();
    ck_assert(!cfu_mat3_inverse(s, &out));
    ck_assert(out.m[0][0] == 1.0);
}
END_TEST

START_TEST(math_quat_rotation_matrix_orthonormal)
{
    cfRng rng;
    cf_rng_seed(&rng, 3);
    for (int k = 0; k < N_RANDOM; ++k) {
        cfQuat q = cf_rng_quat(&rng);
        cft_assert_near(cfu_quat_norm(q), 1.0, 1e-14, 0);
        cfMat3 R = cfu_quat_to_mat3(q);
        cfMat3 RtR = cfu_mat3_mul(cfu_mat3_transpose(R), R);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) cft_assert_near_at(RtR.m[i][j], i == j ? 1.0 : 0.0, 1e-14, 0,
                                                           "i = %d, j = %d", i, j);
        cft_assert_near(cfu_mat3_det(R), 1.0, 1e-13, 0);
        /* R v equals q (0,v) q* computed with the Hamilton product */
        cfVec3 v = cf_rng_vec3(&rng, -1, 1);
        cfQuat pv = cfu_quat_mul(cfu_quat_mul(q, cfu_quat(0, v.x, v.y, v.z)), cfu_quat_conj(q));
        cft_assert_vec3_near(cfu_mat3_mul_vec(R, v), cfu_vec3(pv.x, pv.y, pv.z), 1e-13);
        cft_assert_vec3_near(cfu_quat_rotate(q, v), cfu_vec3(pv.x, pv.y, pv.z), 1e-13);
        cft_assert_near(pv.w, 0.0, 1e-14, 0);
    }
}
END_TEST

START_TEST(math_quat_product_composes_rotations)
{
    cfRng rng;
    cf_rng_seed(&rng, 4);
    for (int k = 0; k < N_RANDOM; ++k) {
        cfQuat a = cf_rng_quat(&rng), b = cf_rng_quat(&rng);
        cfMat3 Rab = cfu_quat_to_mat3(cfu_quat_mul(a, b));
        cfMat3 RaRb = cfu_mat3_mul(cfu_quat_to_mat3(a), cfu_quat_to_mat3(b));
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) cft_assert_near_at(Rab.m[i][j], RaRb.m[i][j], 1e-13, 0, "i = %d, j = %d", i, j);
    }
    /* a quarter turn about z maps x to y */
    cfQuat qz = cfu_quat_from_axis_angle(cfu_vec3(0, 0, 2), 0.5 * CF_PI);
    cft_assert_vec3_near(cfu_quat_rotate(qz, cfu_vec3(1, 0, 0)), cfu_vec3(0, 1, 0), 1e-15);
}
END_TEST

START_TEST(math_quat_exp_log_round_trip)
{
    cfRng rng;
    cf_rng_seed(&rng, 5);
    for (int k = 0; k < N_RANDOM; ++k) {
        /* rotation vectors with angle in (0, pi): log(exp(r)) == r */
        cfVec3 axis = cf_rng_unit_vec3(&rng);
        double angle = cf_rng_range(&rng, 1e-6, CF_PI - 1e-6);
        cfVec3 r = cfu_scale(angle, axis);
        cfQuat q = cfu_quat_exp(r);
        cft_assert_near(cfu_quat_norm(q), 1.0, 1e-14, 0);
        cft_assert_vec3_near(cfu_quat_log(q), r, 1e-9);
        /* exp(r) is the axis-angle quaternion */
        cfQuat qa = cfu_quat_from_axis_angle(axis, angle);
        cft_assert_near(cfu_quat_angle_between(q, qa), 0.0, 1e-7, 0);
        /* and exp(log(q)) == +-q for any unit q */
        cfQuat p = cf_rng_quat(&rng);
        cft_assert_near(cfu_quat_angle_between(cfu_quat_exp(cfu_quat_log(p)), p), 0.0, 1e-7, 0);
    }
    /* tiny rotation vectors use the series and stay unit */
    cfQuat t = cfu_quat_exp(cfu_vec3(1e-12, -2e-12, 3e-12));
    cft_assert_near(cfu_quat_norm(t), 1.0, 1e-15, 0);
    cft_assert_near(t.x, 0.5e-12, 1e-24, 0);
}
END_TEST

START_TEST(rng_is_deterministic_and_uniform)
{
    cfRng a, b;
    cf_rng_seed(&a, 42);
    cf_rng_seed(&b, 42);
    for (int k = 0; k < 100; ++k) ck_assert_uint_eq(cf_rng_u32(&a), cf_rng_u32(&b));
    cf_rng_seed(&b, 43);
    int same = 0;
    for (int k = 0; k < 100; ++k) same += cf_rng_u32(&a) == cf_rng_u32(&b);
    ck_assert_int_lt(same, 3);
    /* mean and variance of U(0,1) over 1e5 draws: 1/2 and 1/12 within 5 sigma */
    const int n = 100000;
    double s = 0, s2 = 0;
    for (int k = 0; k < n; ++k) {
        double u = cf_rng_uniform(&a);
        ck_assert(u >= 0.0 && u < 1.0);
        s += u;
        s2 += u * u;
    }
    double mean = s / n, var = s2 / n - mean * mean;
    cft_assert_near(mean, 0.5, 5.0 * sqrt(1.0 / 12.0 / n), 0);
    cft_assert_near(var, 1.0 / 12.0, 5.0 * sqrt(1.0 / 180.0 / n), 0);
    for (int k = 0; k < 1000; ++k) ck_assert_uint_lt(cf_rng_below(&a, 7), 7);
}
END_TEST

START_TEST(threads_from_environment)
{
    static const struct {
        const char *value;
        int threads;
    } cases[] = {{"1", 1}, {"2", 2}, {"3", 3}, {"64", CF_MAX_THREADS}, {"0", 1}, {"-2", 1}, {"two", 1}, {"2x", 1}, {"", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        setenv("CF_THREADS", cases[i].value, 1);
        ck_assert_msg(cf_threads() == cases[i].threads, "CF_THREADS=\"%s\": %d threads, expected %d", cases[i].value,
                      cf_threads(), cases[i].threads);
    }
    unsetenv("CF_THREADS");
    ck_assert_int_eq(cf_threads(), 1);
}
END_TEST

static void build(Suite *s)
{
    TCase *tc = cft_tcase_unit(s, "math");
    CFT_TEST(tc, math_cross_identities, "cross product identities");
    CFT_TEST(tc, math_mat3_inverse_and_transpose, "3x3 inverse, transpose, determinant");
    CFT_TEST(tc, math_quat_rotation_matrix_orthonormal, "quaternion matrix is a rotation");
    CFT_TEST(tc, math_quat_product_composes_rotations, "quaternion product composes rotations");
    CFT_TEST(tc, math_quat_exp_log_round_trip, "exponential map round trip");
    TCase *tr = cft_tcase_unit(s, "rng");
    CFT_TEST(tr, rng_is_deterministic_and_uniform, "seeded generator");
    TCase *tt = cft_tcase_unit(s, "threads");
    CFT_TEST(tt, threads_from_environment, "CF_THREADS: 1 to 8 threads, 1 unless a positive integer");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "lib-math", build); }
