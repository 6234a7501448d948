/* SPDX-License-Identifier: MIT */
/**
 * @file cf_math.h
 * @brief Small value math: 3-vectors, quaternions (w, x, y, z) and 3x3 matrices.
 *
 * Everything here is a pure function of its arguments (prefix `cfu_`), returns by value and
 * never allocates. Conventions (see docs/conventions.md):
 * - quaternions are stored scalar first, (w, x, y, z), and represent rotations when unit;
 * - a unit quaternion q rotates a vector v as q (0, v) q*, and its matrix is cfu_quat_to_mat3();
 * - 3x3 matrices are row-major: `m[row][col]`;
 * - angular velocity is expressed in the world frame.
 */
#ifndef CF_MATH_H
#define CF_MATH_H

#include <math.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** pi to double precision (M_PI is not part of ISO C). */
#define CF_PI 3.14159265358979323846

/** A 3-vector (positions in m, velocities in m/s, ...). */
typedef struct cfVec3 {
    double x; /**< x component */
    double y; /**< y component */
    double z; /**< z component */
} cfVec3;

/** A quaternion w + x i + y j + z k, scalar first. Unit quaternions are rotations. */
typedef struct cfQuat {
    double w; /**< scalar part */
    double x; /**< i component of the vector part */
    double y; /**< j component of the vector part */
    double z; /**< k component of the vector part */
} cfQuat;

/** A 3x3 matrix, row-major: m[row][col]. */
typedef struct cfMat3 {
    double m[3][3]; /**< entries, m[row][col] */
} cfMat3;

/** @name 3-vectors
 *  @{ */
/** (x, y, z) */
static inline cfVec3 cfu_vec3(double x, double y, double z) { cfVec3 r = {x, y, z}; return r; }
/** The zero vector. */
static inline cfVec3 cfu_zero3(void) { return cfu_vec3(0.0, 0.0, 0.0); }
/** a + b */
static inline cfVec3 cfu_add(cfVec3 a, cfVec3 b) { return cfu_vec3(a.x + b.x, a.y + b.y, a.z + b.z); }
/** a - b */
static inline cfVec3 cfu_sub(cfVec3 a, cfVec3 b) { return cfu_vec3(a.x - b.x, a.y - b.y, a.z - b.z); }
/** -a */
static inline cfVec3 cfu_neg(cfVec3 a) { return cfu_vec3(-a.x, -a.y, -a.z); }
/** s a (scalar times vector) */
static inline cfVec3 cfu_scale(double s, cfVec3 a) { return cfu_vec3(s * a.x, s * a.y, s * a.z); }
/** a + s b (the workhorse of every integrator) */
static inline cfVec3 cfu_mul_add(cfVec3 a, double s, cfVec3 b)
{
    return cfu_vec3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
/** \f$a \cdot b\f$ */
static inline double cfu_dot(cfVec3 a, cfVec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
/** a x b (right-handed) */
static inline cfVec3 cfu_cross(cfVec3 a, cfVec3 b)
{
    return cfu_vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
/** |a| */
static inline double cfu_norm(cfVec3 a) { return sqrt(cfu_dot(a, a)); }
/** max(|x|, |y|, |z|): NaN when a component is NaN (fmax would drop it). */
static inline double cfu_norm_inf(cfVec3 a)
{
    double m = fabs(a.x);
    if (fabs(a.y) > m || isnan(a.y)) m = fabs(a.y);
    if (fabs(a.z) > m || isnan(a.z)) m = fabs(a.z);
    return isnan(a.x) ? NAN : m;
}
/** |a|^2 */
static inline double cfu_norm2(cfVec3 a) { return cfu_dot(a, a); }
/** a / |a|, or the zero vector when |a| == 0. */
static inline cfVec3 cfu_normalize(cfVec3 a)
{
    double n = cfu_norm(a);
    return n > 0.0 ? cfu_scale(1.0 / n, a) : cfu_zero3();
}
/** Component-wise product. */
static inline cfVec3 cfu_hadamard(cfVec3 a, cfVec3 b) { return cfu_vec3(a.x * b.x, a.y * b.y, a.z * b.z); }
/** Component @p i (0, 1, 2) of @p a. */
static inline double cfu_vec3_at(cfVec3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }
/** True when all components are finite (no NaN, no infinity). */
static inline bool cfu_vec3_finite(cfVec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
/** @} */

/** @name 3x3 matrices
 *  @{ */
/** The identity. */
static inline cfMat3 cfu_mat3_identity(void)
{
    cfMat3 r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    return r;
}
/** diag(d.x, d.y, d.z) */
static inline cfMat3 cfu_mat3_diag(cfVec3 d)
{
    cfMat3 r = {{{d.x, 0, 0}, {0, d.y, 0}, {0, 0, d.z}}};
    return r;
}
/** Matrix with rows a, b, c. */
static inline cfMat3 cfu_mat3_rows(cfVec3 a, cfVec3 b, cfVec3 c)
{
    cfMat3 r = {{{a.x, a.y, a.z}, {b.x, b.y, b.z}, {c.x, c.y, c.z}}};
    return r;
}
/** Matrix with columns a, b, c. */
static inline cfMat3 cfu_mat3_cols(cfVec3 a, cfVec3 b, cfVec3 c)
{
    cfMat3 r = {{{a.x, b.x, c.x}, {a.y, b.y, c.y}, {a.z, b.z, c.z}}};
    return r;
}
/** Column @p j of @p m. */
static inline cfVec3 cfu_mat3_col(cfMat3 m, int j) { return cfu_vec3(m.m[0][j], m.m[1][j], m.m[2][j]); }
/** Row @p i of @p m. */
static inline cfVec3 cfu_mat3_row(cfMat3 m, int i) { return cfu_vec3(m.m[i][0], m.m[i][1], m.m[i][2]); }
/** m v */
static inline cfVec3 cfu_mat3_mul_vec(cfMat3 m, cfVec3 v)
{
    return cfu_vec3(m.m[0][0] * v.x + m.m[0][1] * v.y + m.m[0][2] * v.z,
                    m.m[1][0] * v.x + m.m[1][1] * v.y + m.m[1][2] * v.z,
                    m.m[2][0] * v.x + m.m[2][1] * v.y + m.m[2][2] * v.z);
}
/** m^T v */
static inline cfVec3 cfu_mat3_tmul_vec(cfMat3 m, cfVec3 v)
{
    return cfu_vec3(m.m[0][0] * v.x + m.m[1][0] * v.y + m.m[2][0] * v.z,
                    m.m[0][1] * v.x + m.m[1][1] * v.y + m.m[2][1] * v.z,
                    m.m[0][2] * v.x + m.m[1][2] * v.y + m.m[2][2] * v.z);
}
/** a b */
static inline cfMat3 cfu_mat3_mul(cfMat3 a, cfMat3 b)
{
    cfMat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return r;
}
/** m^T */
static inline cfMat3 cfu_mat3_transpose(cfMat3 m)
{
    cfMat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = m.m[j][i];
    return r;
}
/** a + b */
static inline cfMat3 cfu_mat3_add(cfMat3 a, cfMat3 b)
{
    cfMat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[i][j] + b.m[i][j];
    return r;
}
/** s m */
static inline cfMat3 cfu_mat3_scale(double s, cfMat3 m)
{
    cfMat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = s * m.m[i][j];
    return r;
}
/** det m */
static inline double cfu_mat3_det(cfMat3 m)
{
    return m.m[0][0] * (m.m[1][1] * m.m[2][2] - m.m[1][2] * m.m[2][1]) -
           m.m[0][1] * (m.m[1][0] * m.m[2][2] - m.m[1][2] * m.m[2][0]) +
           m.m[0][2] * (m.m[1][0] * m.m[2][1] - m.m[1][1] * m.m[2][0]);
}
/**
 * Inverse of @p m through the adjugate. Returns false (and leaves @p out untouched) when
 * |det m| <= 1e-300 or the result is not finite.
 */
static inline bool cfu_mat3_inverse(cfMat3 m, cfMat3 *out)
{
    double d = cfu_mat3_det(m);
    if (!(fabs(d) > 1e-300)) return false;
    cfMat3 r;
    r.m[0][0] = (m.m[1][1] * m.m[2][2] - m.m[1][2] * m.m[2][1]) / d;
    r.m[0][1] = (m.m[0][2] * m.m[2][1] - m.m[0][1] * m.m[2][2]) / d;
    r.m[0][2] = (m.m[0][1] * m.m[1][2] - m.m[0][2] * m.m[1][1]) / d;
    r.m[1][0] = (m.m[1][2] * m.m[2][0] - m.m[1][0] * m.m[2][2]) / d;
    r.m[1][1] = (m.m[0][0] * m.m[2][2] - m.m[0][2] * m.m[2][0]) / d;
    r.m[1][2] = (m.m[0][2] * m.m[1][0] - m.m[0][0] * m.m[1][2]) / d;
    r.m[2][0] = (m.m[1][0] * m.m[2][1] - m.m[1][1] * m.m[2][0]) / d;
    r.m[2][1] = (m.m[0][1] * m.m[2][0] - m.m[0][0] * m.m[2][1]) / d;
    r.m[2][2] = (m.m[0][0] * m.m[1][1] - m.m[0][1] * m.m[1][0]) / d;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (!isfinite(r.m[i][j])) return false;
    *out = r;
    return true;
}
/** The cross-product matrix [a]x, so that [a]x b = a x b. */
static inline cfMat3 cfu_skew(cfVec3 a)
{
    cfMat3 r = {{{0, -a.z, a.y}, {a.z, 0, -a.x}, {-a.y, a.x, 0}}};
    return r;
}
/** a b^T */
static inline cfMat3 cfu_outer(cfVec3 a, cfVec3 b)
{
    cfMat3 r = {{{a.x * b.x, a.x * b.y, a.x * b.z}, {a.y * b.x, a.y * b.y, a.y * b.z},
                 {a.z * b.x, a.z * b.y, a.z * b.z}}};
    return r;
}
/** @} */

/** @name Quaternions (w, x, y, z)
 *  @{ */
/** (w, x, y, z) */
static inline cfQuat cfu_quat(double w, double x, double y, double z) { cfQuat q = {w, x, y, z}; return q; }
/** The identity rotation (1, 0, 0, 0). */
static inline cfQuat cfu_quat_identity(void) { return cfu_quat(1.0, 0.0, 0.0, 0.0); }
/** Hamilton product a b. For rotations, a b rotates by b first, then by a. */
static inline cfQuat cfu_quat_mul(cfQuat a, cfQuat b)
{
    return cfu_quat(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                    a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                    a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                    a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}
/** Conjugate (w, -x, -y, -z): the inverse of a unit quaternion. */
static inline cfQuat cfu_quat_conj(cfQuat q) { return cfu_quat(q.w, -q.x, -q.y, -q.z); }
/** |q| */
static inline double cfu_quat_norm(cfQuat q) { return sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z); }
/** \f$a \cdot b\f$ as 4-vectors */
static inline double cfu_quat_dot(cfQuat a, cfQuat b) { return a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z; }
/** a + s b as 4-vectors */
static inline cfQuat cfu_quat_mul_add(cfQuat a, double s, cfQuat b)
{
    return cfu_quat(a.w + s * b.w, a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
/** q / |q|; the identity when |q| == 0. */
static inline cfQuat cfu_quat_normalize(cfQuat q)
{
    double n = cfu_quat_norm(q);
    return n > 0.0 ? cfu_quat(q.w / n, q.x / n, q.y / n, q.z / n) : cfu_quat_identity();
}
/** True when all components are finite. */
static inline bool cfu_quat_finite(cfQuat q)
{
    return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z);
}
/** Rotate @p v by the unit quaternion @p q: q (0, v) q*. */
static inline cfVec3 cfu_quat_rotate(cfQuat q, cfVec3 v)
{
    /* v' = v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z) */
    cfVec3 u = cfu_vec3(q.x, q.y, q.z);
    cfVec3 t = cfu_scale(2.0, cfu_cross(u, v));
    return cfu_add(cfu_mul_add(v, q.w, t), cfu_cross(u, t));
}
/** Rotation matrix R(q) of a unit quaternion: R v == cfu_quat_rotate(q, v). */
static inline cfMat3 cfu_quat_to_mat3(cfQuat q)
{
    double w = q.w, x = q.x, y = q.y, z = q.z;
    cfMat3 r = {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                 {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                 {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
    return r;
}
/** Unit quaternion of a rotation by @p angle radians about the axis @p axis (need not be unit). */
static inline cfQuat cfu_quat_from_axis_angle(cfVec3 axis, double angle)
{
    cfVec3 a = cfu_normalize(axis);
    double s = sin(0.5 * angle);
    return cfu_quat(cos(0.5 * angle), s * a.x, s * a.y, s * a.z);
}
/**
 * Exponential map: the unit quaternion of the rotation vector @p r (axis r/|r|, angle |r|),
 * exp(r) = (cos(|r|/2), sin(|r|/2) r/|r|). Accurate for small |r| (series below 1e-8).
 */
static inline cfQuat cfu_quat_exp(cfVec3 r)
{
    double a = cfu_norm(r);
    if (a < 1e-8) {
        /* sin(a/2)/a = 1/2 - a^2/48 + ... */
        double s = 0.5 - a * a / 48.0;
        return cfu_quat_normalize(cfu_quat(1.0 - a * a / 8.0, s * r.x, s * r.y, s * r.z));
    }
    double s = sin(0.5 * a) / a;
    return cfu_quat(cos(0.5 * a), s * r.x, s * r.y, s * r.z);
}
/**
 * Logarithm map, the inverse of cfu_quat_exp(): the rotation vector of the unit quaternion
 * @p q with angle in [0, pi] (q and -q give the same vector).
 */
static inline cfVec3 cfu_quat_log(cfQuat q)
{
    if (q.w < 0.0) q = cfu_quat(-q.w, -q.x, -q.y, -q.z);
    cfVec3 u = cfu_vec3(q.x, q.y, q.z);
    double s = cfu_norm(u);
    if (s < 1e-12) return cfu_scale(2.0, u); /* angle ~ 2 s */
    double angle = 2.0 * atan2(s, q.w);
    return cfu_scale(angle / s, u);
}
/** Angle in [0, pi] of the rotation taking unit quaternion a to unit quaternion b. */
static inline double cfu_quat_angle_between(cfQuat a, cfQuat b)
{
    double d = fabs(cfu_quat_dot(a, b));
    if (d > 1.0) d = 1.0;
    return 2.0 * acos(d);
}
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_MATH_H */
