/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch02.h
 * @brief Chapter 2 exercises: gap functions, contact frames, contact Jacobians (rigid and soft),
 *        the Delassus operator, three friction formulations, stabilization and the soft dual form.
 *
 * The text is chapters/ch02/README.md; the tests are chapters/ch02/tests/test_ch02.c
 * (`make test-ch2`). Each function marked "chNN.K" below is an exercise: its specification here
 * is authoritative. Your implementations go in the files of exercises/ch02/; they may call anything in
 * lib/include/cf/ (cf_math.h, cf_body.h, cf_soft.h, cf_linalg.h, cf_contact.h, cf_problem.h),
 * the chapter 1 functions (include cf_ch01.h) and the earlier exercises of this chapter.
 * The grader holds each exercise file to docs/grading.md ("What an exercise may use"): helpers
 * and file-scope variables are `static`; from the C library only allocation, memory and string
 * functions, qsort, bsearch, the math library and printing to stdout/stderr; and no file is
 * opened (the library's cf_*_read_siconos(), cf_*_write_siconos() and cf_scene_load() are refused).
 *
 * Conventions used throughout (docs/conventions.md):
 * - the normal n points from body A to body B; the gap phi is > 0 when separated, 0 when
 *   touching, < 0 when penetrating;
 * - the contact frame C = [n t b] (columns) is orthonormal and right-handed: t x b = n;
 * - contact-space quantities are ordered (normal, t, b): velocities v = C^T (v_B(p) - v_A(p))
 *   and impulses lambda = (lambda_n, lambda_t, lambda_b) in N s;
 * - rigid generalized velocities are u = (v, w) per body (6 numbers, w in the world frame);
 *   soft ones are the stacked node velocities (3 per node);
 * - a body index < 0 in a ::cfContact means the static environment (infinite mass, at rest),
 *   exactly like a fixed body.
 *
 * The functions in the group "Provided" are complete chapter code (solutions/ch02/provided.c,
 * copied unchanged into exercises/ch02/) built on the exercises; they are not exercises.
 */
#ifndef CF_CH02_H
#define CF_CH02_H

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_contact.h"
#include "cf/cf_linalg.h"
#include "cf/cf_math.h"
#include "cf/cf_problem.h"
#include "cf/cf_soft.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/** @name ch02.1 Gap functions and their gradients (10 points)
 *  A gap function phi measures the signed distance between two shapes; its gradient with
 *  respect to the position of body B is the contact normal n (from A to B), and with respect to
 *  body A it is -n (notes section 1.4, Fig.\ 1). Each function checks its input first (provided
 *  code): non-finite values, radius <= 0, a plane normal or box half extent that is not usable
 *  give CF_BAD_INPUT and leave the outputs untouched.
 *  @{ */

/**
 * @brief ch02.1: gap between a fixed plane (body A) and a sphere (body B).
 *
 * The plane is \f$\{p : n \cdot p = d\}\f$ with unit normal @p n; the solid is the half-space
 * \f$n \cdot p \le d\f$ below it (as ::CF_SHAPE_PLANE). For a sphere of centre @p c and radius @p r:
 * @f[ \phi = n\cdot c - d - r, \qquad \nabla_c\phi = n . @f]
 * Writes phi to @p phi and the gradient (the contact normal, unit, from the plane to the sphere)
 * to @p normal. @p n must have unit length within 1e-9 (otherwise CF_BAD_INPUT).
 *
 * Worked example: n = (0, 0, 1), d = 0, c = (1, 2, 0.7), r = 0.5 gives phi = 0.2, normal = n.
 */
cfStatus cf_gap_sphere_plane(cfVec3 c, double r, cfVec3 n, double d, double *phi, cfVec3 *normal);

/**
 * @brief ch02.1: gap between two spheres, A (centre @p ca, radius @p ra) and B (@p cb, @p rb).
 *
 * @f[ \phi = |c_B - c_A| - r_A - r_B, \qquad n = \nabla_{c_B}\phi = \frac{c_B - c_A}{|c_B - c_A|}
 *     = -\nabla_{c_A}\phi . @f]
 * When the centres coincide (\f$\|c_B - c_A\| \le 10^{-12} (r_A + r_B)\f$) the gradient does not exist;
 * return the normal (0, 0, 1) then, so the result is deterministic.
 *
 * Worked example: c_A = 0, r_A = 1, c_B = (3, 4, 0), r_B = 2 gives phi = 2, n = (0.6, 0.8, 0).
 */
cfStatus cf_gap_sphere_sphere(cfVec3 ca, double ra, cfVec3 cb, double rb, double *phi, cfVec3 *normal);

/**
 * @brief ch02.1: signed distance from a point (body B) to a box (body A).
 *
 * The box has centre @p c, orientation @p q (body to world, unit) and half extents @p half
 * (all > 0). With the point in box coordinates, @f$ \ell = R(q)^T (p - c) @f$, and
 * @f$ d_i = |\ell_i| - h_i @f$:
 * - outside (some d_i > 0): @f$ \phi = |\max(d, 0)| @f$ (distance to the closest point of the
 *   box), and the gradient is the unit vector from that closest point to p;
 * - inside or on the surface (all d_i <= 0): @f$ \phi = \max_i d_i \le 0 @f$, and the gradient is
 *   the outward face normal of the closest face, @f$ \mathrm{sign}(\ell_k)\,R e_k @f$ with
 *   \f$k = \arg\max_i d_i\f$. Ties go to the lowest index, and sign(0) = +1.
 *
 * The gradient is the contact normal from the box to the point (unit, world frame). It is the
 * derivative of phi with respect to p wherever phi is differentiable (everywhere except on the
 * box's inner medial planes), which the tests check by central differences.
 *
 * Worked examples (axis-aligned box, c = 0, half = (1, 2, 3)): p = (1.5, 0, 0) gives phi = 0.5,
 * n = (1, 0, 0); p = (2, 3, 0) gives phi = sqrt(2), n = (1, 1, 0)/sqrt(2); p = (0, 0, -2.5)
 * gives \f$\phi = -0.5\f$, n = (0, 0, -1).
 */
cfStatus cf_gap_point_box(cfVec3 p, cfVec3 c, cfQuat q, cfVec3 half, double *phi, cfVec3 *normal);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch02.2 Contact frame (5 points)
 *  @{ */

/**
 * @brief ch02.2: an orthonormal right-handed frame [n t b] from a unit normal, by a fixed rule.
 *
 * Rule (so that every correct solution gives the same tangents): let k be the index of the
 * component of n with the smallest absolute value (ties go to the lowest index) and e_k the world
 * axis k. Then
 * @f[ t = \frac{e_k - n_k\,n}{|e_k - n_k\,n|}, \qquad b = n \times t . @f]
 * Because \f$|n_k| \le 1/\sqrt{3}\f$, \f$\|e_k - n_k n\|^2 = 1 - n_k^2 \ge 2/3\f$: the rule never
 * divides by a small number, whatever the direction of n (the course tutorial's
 * \f$n \times e_x\f$ breaks down near \f$n = \pm e_x\f$ and needs a fallback).
 *
 * Result: \f$t \cdot n = b \cdot n = t \cdot b = 0\f$, \f$\|t\| = \|b\| = 1\f$, \f$t \times b = n\f$
 * (det [n t b] = +1). @p n must be finite with \f$\big|\|n\| - 1\big| \le 10^{-9}\f$ (checked:
 * CF_BAD_INPUT, outputs untouched).
 *
 * Worked examples: n = (0, 0, 1) gives t = (1, 0, 0), b = (0, 1, 0); n = (1, 0, 0) gives
 * t = (0, 1, 0), b = (0, 0, 1); n = (0, 0, -1) gives t = (1, 0, 0), b = (0, -1, 0).
 */
cfStatus cf_contact_frame(cfVec3 n, cfVec3 *t, cfVec3 *b);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch02.3 Rigid contact Jacobian (10 points)
 *  @{ */

/**
 * @brief ch02.3: the 3x6 Jacobian blocks of one contact for its two rigid bodies.
 *
 * With arms \f$r_A = p - x_A\f$, \f$r_B = p - x_B\f$ and C = [n t b] (notes Eq.\ 22, 43, 64), the
 * contact velocity
 * \f$v = C^T \big((v_B + \omega_B \times r_B) - (v_A + \omega_A \times r_A)\big) = J_A u_A + J_B u_B\f$ with
 * @f[ J_A = \begin{bmatrix} -C^T & -(r_A\times C)^T \end{bmatrix},\qquad
 *     J_B = \begin{bmatrix} \phantom{-}C^T & \phantom{-}(r_B\times C)^T \end{bmatrix}, @f]
 * i.e. row \f$d \in \{n, t, b\}\f$ of \f$J_B\f$ is \f$(d^T, (r_B \times d)^T)\f$ and of
 * \f$J_A\f$ is \f$(-d^T, -(r_A \times d)^T)\f$.
 * Blocks are row-major: J[row][col], columns (v_x, v_y, v_z, w_x, w_y, w_z).
 *
 * @p a or @p b may be NULL (the static environment); a NULL or fixed body gets a zero block:
 * it cannot move, so it contributes nothing. The frame is read from c->n, c->t, c->b (fill it
 * with cf_contact_frame() or any other right-handed orthonormal frame); a frame that is not
 * orthonormal and right-handed within 1e-9 or a non-finite point gives CF_BAD_INPUT (checked).
 *
 * Worked example: body B at x_B = (0, 0, 1), p = 0, C = I (n = z, t = x, b = y): r_B = (0,0,-1),
 * the n row of J_B is (0, 0, 1, 0, 0, 0), the t row is (1, 0, 0, 0, -1, 0), the b row is
 * (0, 1, 0, 1, 0, 0).
 */
cfStatus cf_contact_jacobian_rigid(const cfContact *c, const cfRigidBody *a, const cfRigidBody *b,
                                   double Ja[3][6], double Jb[3][6]);
/** @} */

/** Most nodes on one side of a soft contact (4 would be a tetrahedron). */
#define CF_SOFT_CONTACT_NODES CF_CONTACT_NODES

/**
 * A contact between soft-body nodes in barycentric form. The material point of side A is
 * \f$p_A = \sum_k w_{a,k}\, x_{\mathrm{node}_a[k]}\f$, that of side B is
 * \f$p_B = \sum_k w_{b,k}\, x_{\mathrm{node}_b[k]}\f$; each side's weights sum to 1. A side with no nodes (na or nb = 0) is the static environment.
 * Node indices refer to one cfSoftBody (several objects may live in one soft body).
 */
typedef struct cfSoftContact {
    int na;                               /**< nodes on side A (0..4; 0 = static obstacle) */
    int nb;                               /**< nodes on side B (0..4; 0 = static obstacle) */
    int node_a[CF_SOFT_CONTACT_NODES];    /**< node indices of side A */
    int node_b[CF_SOFT_CONTACT_NODES];    /**< node indices of side B */
    double w_a[CF_SOFT_CONTACT_NODES];    /**< barycentric weights of side A */
    double w_b[CF_SOFT_CONTACT_NODES];    /**< barycentric weights of side B */
    cfVec3 p;                             /**< contact point p_A (m, world) */
    cfVec3 n;                             /**< contact normal, from A to B (unit) */
    cfVec3 t;                             /**< first tangent */
    cfVec3 b;                             /**< second tangent, t x b = n */
    double phi;                           /**< gap \f$n \cdot (p_B - p_A)\f$ (m) */
    double mu;                            /**< friction coefficient (>= 0) */
} cfSoftContact;

/* ------------------------------------------------------------------------------------ */
/** @name ch02.4 Soft contact Jacobian with barycentric weights (10 points)
 *  Some of its tests also call ch02.2: write it first.
 *  @{ */

/**
 * @brief ch02.4: barycentric weights of the projection of @p p onto the plane of triangle
 *        (a, b, c).
 *
 * Returns w with \f$w_0 + w_1 + w_2 = 1\f$ and
 * \f$w_0 a + w_1 b + w_2 c = p - ((p - a) \cdot m)\, m\f$, where m is the unit normal of the
 * triangle (notes Eq.\ 18 for a triangle). The weights are not clamped: a negative weight means
 * the projection is outside the triangle. A degenerate triangle
 * (\f$\|(b - a) \times (c - a)\| \le 10^{-12}\f$ times its longest edge squared) or non-finite
 * input gives CF_BAD_INPUT (w untouched).
 *
 * Worked example: a = 0, b = (1, 0, 0), c = (0, 1, 0), p = (0.2, 0.3, 5) gives w = (0.5, 0.2, 0.3).
 */
cfStatus cf_barycentric_triangle(cfVec3 p, cfVec3 a, cfVec3 b, cfVec3 c, double w[3]);

/**
 * @brief ch02.4: closest points of the segments [a0, a1] and [b0, b1].
 *
 * Finds s, t in [0, 1] minimizing \f$\|a_0 + s (a_1 - a_0) - b_0 - t (b_1 - b_0)\|\f$. When the
 * segments are parallel (\f$\|e_A \times e_B\|^2 \le 10^{-14} \|e_A\|^2 \|e_B\|^2\f$) the minimizer
 * is not unique: take s = 0, the
 * best t for it (clamped), then the best s for that t (clamped). A segment shorter than 1e-12
 * (relative to the other) or non-finite input gives CF_BAD_INPUT.
 *
 * Worked example: a = [(-1,0,0), (1,0,0)], b = [(0,-1,1), (0,1,1)] gives s = t = 0.5.
 */
cfStatus cf_closest_edge_edge(cfVec3 a0, cfVec3 a1, cfVec3 b0, cfVec3 b1, double *s, double *t);

/**
 * @brief ch02.4: a vertex-triangle contact: triangle (i, j, k) is side A, vertex @p v side B.
 *
 * Positions come from @p x. The normal is the triangle's unit normal
 * \f$n = (x_j - x_i) \times (x_k - x_i) / \|(x_j - x_i) \times (x_k - x_i)\|\f$ (counter-clockwise
 * seen from outside, so n points out of the object that owns the triangle, towards the vertex),
 * the weights of side A are those of cf_barycentric_triangle(x_v, x_i, x_j, x_k), side B is the
 * vertex with weight 1, \f$p = p_A = w_i x_i + w_j x_j + w_k x_k\f$ and \f$\phi = n \cdot (x_v - p)\f$. The tangents come from
 * cf_contact_frame(n); mu is set to 0 (the caller sets it). Errors of the helpers are passed on;
 * repeated node indices give CF_BAD_INPUT.
 */
cfStatus cf_soft_contact_vertex_triangle(const cfVec3 *x, int v, int i, int j, int k, cfSoftContact *c);

/**
 * @brief ch02.4: an edge-edge contact: edge (a0, a1) is side A, edge (b0, b1) side B.
 *
 * With (s, t) from cf_closest_edge_edge(), the weights are (1 - s, s) and (1 - t, t),
 * \f$p = p_A = (1 - s)\, x_{a0} + s\, x_{a1}\f$, \f$p_B\f$ likewise. The normal is the unit vector
 * along \f$e_A \times e_B\f$, \f$e_A = x_{a1} - x_{a0}\f$, \f$e_B = x_{b1} - x_{b0}\f$, with the
 * sign chosen so that \f$n \cdot (p_B - p_A) \ge 0\f$ (the plus sign when it is 0);
 * \f$\phi = n \cdot (p_B - p_A)\f$. Parallel edges have no such normal: CF_BAD_INPUT
 * (a vertex-edge contact handles them) when \f$|e_A \times e_B|^2 \le 10^{-14} |e_A|^2 |e_B|^2\f$
 * (an angle below about 1e-7); at an angle of 1e-6 the normal is still accurate to about 1e-10
 * and the contact is made. Frame from cf_contact_frame(n); mu = 0.
 */
cfStatus cf_soft_contact_edge_edge(const cfVec3 *x, int a0, int a1, int b0, int b1, cfSoftContact *c);

/**
 * @brief ch02.4: the 3x3 Jacobian blocks of a soft contact, one per node (notes Eq.\ 19-20).
 *
 * \f[ v = C^T \Big(\sum_k w_{b,k}\, v_{\mathrm{node}_b[k]} - \sum_k w_{a,k}\, v_{\mathrm{node}_a[k]}\Big)
 *     = \sum_k J_{A,k}\, v_{a,k} + \sum_k J_{B,k}\, v_{b,k} \f]
 * with
 * @f[ J_{A,k} = -w_{A,k}\, C^T, \qquad J_{B,k} = w_{B,k}\, C^T . @f]
 * Each block is 3x3 row-major (9 values; row 0 is the n row). Only the first na (nb) blocks are
 * written. Because each side's weights sum to 1, a uniform translation of all nodes gives \f$J u = 0\f$.
 * Checked (provided): na, nb in [0, 4], finite weights, an orthonormal right-handed frame.
 */
cfStatus cf_soft_contact_jacobian(const cfSoftContact *c, double Ja[CF_SOFT_CONTACT_NODES][9],
                                  double Jb[CF_SOFT_CONTACT_NODES][9]);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch02.5 Delassus operator and the frictional contact problem of rigid bodies (10 points)
 *  Some of its tests also call ch02.3: write it first.
 *  @{ */

/**
 * @brief ch02.5: the Delassus operator \f$W = J M^{-1} J^T\f$ of a contact set, block-sparse.
 *
 * @p W is initialized here (cf_bsr_init with nc x nc blocks of 3x3). Block (i, j) is
 * @f[ W_{ij} = \sum_{k \in \text{bodies}(i)\cap\text{bodies}(j)} J_{ik}\, M_k^{-1} J_{jk}^T,
 *     \qquad M_k^{-1} = \mathrm{diag}(m_k^{-1} I_3,\; I_{w,k}^{-1}) , @f]
 * summed over the dynamic (non-fixed) bodies the two contacts share, with \f$J_{ik}\f$ the blocks
 * of cf_contact_jacobian_rigid() and \f$I_w^{-1}\f$ = bodies[k].inv_inertia_world (notes section 1.10.1).
 * Stored blocks: every diagonal block (i, i), and block (i, j), i != j, exactly when contacts i
 * and j share a dynamic body; within a block row, in ascending column order. W is symmetric
 * positive semi-definite.
 *
 * CF_BAD_INPUT for body indices >= @p n_bodies or a contact whose two bodies are the same;
 * errors of cf_contact_jacobian_rigid() are passed on. On failure W is left empty (freed).
 *
 * Worked examples: one contact at the centre of mass of a body of mass m against the ground:
 * W = I/m. A solid sphere (mass m, radius R) touching the ground at its lowest point with
 * n = z: \f$W = \mathrm{diag}(1, 7/2, 7/2)/m\f$.
 */
cfStatus cf_delassus_rigid(const cfRigidBody *bodies, int n_bodies, const cfContact *contacts, int nc,
                           cfBsr *W);

/**
 * @brief ch02.5: the frictional contact problem (W, q, mu) of a rigid contact set.
 *
 * W from cf_delassus_rigid(); \f$q = J u\f$, the contact velocities produced by the bodies'
 * current velocities (call it after the free-velocity update \f$u^* = u + h M^{-1} f\f$, so q is the
 * b of notes Eq.\ 45 and 56: \f$b = J u + h J M^{-1} f\f$); mu[a] = contacts[a].mu. Allocates
 * @p p (free with cf_fc_free()). Then \f$u^+ = u^* + M^{-1} J^T \lambda\f$
 * (cf_rigid_apply_impulses()) gives the contact velocities \f$W \lambda + q\f$.
 *
 * CF_BAD_INPUT for nc < 1, a negative or non-finite mu, and the errors of cf_delassus_rigid().
 * On failure @p p is left empty.
 */
cfStatus cf_friction_problem_rigid(const cfRigidBody *bodies, int n_bodies, const cfContact *contacts,
                                   int nc, cfFrictionProblem *p);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch02.6 Three friction formulations of one contact set (15 points)
 *  Each takes the frictional contact problem (W, q, mu) of a contact set (from
 *  cf_friction_problem_rigid(), cf_soft_dual() or a file) and builds one model's data.
 *  @{ */

/**
 * @brief ch02.6: the polyhedral-cone LCP with @p k friction directions (Stewart-Trinkle /
 *        Anitescu-Potra, notes Eq.\ 34-39).
 *
 * Contact a (of p = nc contacts) gets k unit directions in its tangent plane,
 * \f$d_{a,i} = \cos\theta_i\, t_a + \sin\theta_i\, b_a\f$ with \f$\theta_i = 2\pi i/k\f$,
 * i = 0..k-1 (a positive span for k >= 3; for even k each direction has its opposite twin).
 * Unknowns, in this order: \f$x = (\lambda_n\,[p],\ \lambda_d\,[p k],\ \beta\,[p])\f$, contact a's
 * direction i at index p + a k + i and its slack at p + p k + a. With D the (1 + k) x 3 map of one
 * contact's frame components to \f$(n, d_0, \dots, d_{k-1})\f$ components, \f$G M^{-1} G^T\f$ is
 * the block matrix \f$D W_{ac} D^T\f$, and
 * @f[ A = \begin{bmatrix} W_{nn} & W_{nd} & 0 \\ W_{dn} & W_{dd} & E \\ \bar\mu & -E^T & 0 \end{bmatrix},
 *     \qquad b = \begin{bmatrix} q_n \\ q_d \\ 0 \end{bmatrix}, @f]
 * where \f$E = \mathrm{blockdiag}(e, \dots, e)\f$ with e a k-vector of ones,
 * \f$\bar\mu = \mathrm{diag}(\mu_a)\f$, and \f$q_d\f$ the direction components of q
 * (\f$q_{d,a,i} = \cos\theta_i\, q_{t,a} + \sin\theta_i\, q_{b,a}\f$).
 * The LCP \f$w = A x + b\f$, \f$0 \le x \perp w \ge 0\f$ then states: Signorini on the normal
 * rows, \f$\beta e + v_d \ge 0 \perp \lambda_d\f$ (friction only on the directions most opposed
 * to sliding) and \f$\mu \lambda_n - e^T \lambda_d \ge 0 \perp \beta\f$ (sliding puts the force
 * on the polygon's boundary). A is not symmetric: \f$A - A^T = C - C^T\f$ with C the last block
 * row and column.
 *
 * Allocates @p lcp (n = p (k + 2); free with cf_lcp_free()). CF_BAD_INPUT for k < 3 or k > 64 or
 * a problem that is not made of 3x3 blocks.
 */
cfStatus cf_friction_polyhedral_lcp(const cfFrictionProblem *fc, int k, cfLcp *lcp);

/**
 * @brief ch02.6: the boxed LCP of the friction pyramid (notes Eq.\ 40-45).
 *
 * Same unknowns as the cone problem, \f$r = (\lambda_n, \lambda_t, \lambda_b)\f$ per contact, and
 * A = W (as CSR, every stored entry of W copied), b = q. Bounds: the normal row 3a has
 * \f$[lo, hi] = [0, +\infty)\f$ and findex -1; the tangent rows 3a + 1 and 3a + 2 have
 * findex = 3a and \f$\mu = \mu_a\f$, so their bounds are \f$\pm\mu_a \lambda_n\f$ (lo/hi are set
 * to \f$\mp\infty\f$ there and not used). The box is the square around the disk
 * \f$\|\lambda_T\| \le \mu \lambda_n\f$: it allows up to \f$\sqrt{2}\, \mu \lambda_n\f$ along the
 * diagonals, so the model depends on the choice of (t, b).
 *
 * Allocates @p blcp (free with cf_blcp_free()). CF_BAD_INPUT for a problem that is not made of
 * 3x3 blocks.
 */
cfStatus cf_friction_boxed_lcp(const cfFrictionProblem *fc, cfBlcp *blcp);

/**
 * @brief ch02.6: natural-map residual of the cone complementarity problem (CCP, notes Eq.\ 51-57).
 *
 * The CCP drops De Saxce's term from the Coulomb problem: find r with \f$u = W r + q\f$ and
 * \f$K^* \ni u \perp r \in K\f$ per contact, \f$K = \{\|r_T\| \le \mu r_N\}\f$,
 * \f$K^* = \{\|u_T\| \le u_N/\mu\}\f$ (the dual cone). Its natural map is
 * \f$e_a = r_a - P_K(r_a - u_a)\f$ (\f$P_K\f$ = cf_cone_project()), zero exactly at a solution.
 * Return \f$\sqrt{\sum_a \|e_a\|^2}\f$ (absolute). Compare cf_fc_residual(), which uses
 * \f$u_a + (\mu \|u_T\|, 0, 0)\f$ instead of \f$u_a\f$: a CCP solution that slides has
 * \f$u_N = \mu \|u_T\| > 0\f$ (the bodies drift apart), a Coulomb solution has \f$u_N = 0\f$.
 *
 * Returns +INFINITY when r or u has a non-finite entry.
 * Worked example (W = I, q = (-0.1, 1, 0), mu = 0.5): r = (0.48, -0.24, 0) gives 0 (the CCP
 * solution, u = (0.38, 0.76, 0)); the Coulomb solution r = (0.1, -0.05, 0) gives
 * sqrt(0.1805) = 0.4249 (its u = (0, 0.95, 0) is not in the dual cone).
 */
double cf_ccp_residual(const cfFrictionProblem *fc, const double *r);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch02.7 Constraint stabilization: Baumgarte, ERP and CFM (10 points)
 *  @{ */

/**
 * @brief ch02.7: ERP and CFM of an implicit contact spring (stiffness k, damping b), notes Eq.\ 59.
 *
 * The spring \f$\lambda^+ = -k \phi^+ - b v^+\f$ with \f$\phi^+ = \phi + h v^+\f$ and impulse
 * \f$h \lambda\f$ gives \f$J u^+ + \varepsilon \lambda^+ = -\upsilon \phi/h\f$ with
 * @f[ \varepsilon = \frac{1}{h^2 k + h b}\ \text{(CFM)}, \qquad
 *     \upsilon = \frac{h k}{h k + b}\ \text{(ERP)} . @f]
 * CF_BAD_INPUT (outputs untouched) unless h > 0, k >= 0, b >= 0, k + b > 0, all finite.
 *
 * Worked example: h = 1/60, k = 1e4, b = 100 gives eps = 0.225, ups = 0.625.
 */
cfStatus cf_erp_cfm(double h, double k, double b, double *eps, double *ups);

/**
 * @brief ch02.7: add CFM and the ERP bias to the normal rows of a frictional contact problem.
 *
 * For every contact a: \f$W_{aa}(0, 0) \mathrel{+}= \varepsilon\f$ and
 * \f$q_{3a} \mathrel{+}= \upsilon\, \phi_a / h\f$ (notes Eq.\ 60: the Schur form
 * \f$(W + \Sigma)\, \lambda + q + \Upsilon \phi / h\f$). A penetrating contact (\f$\phi < 0\f$)
 * thus asks for a separating normal velocity \f$-\upsilon \phi/h\f$, and \f$\varepsilon > 0\f$
 * makes the normal part of \f$W + \Sigma\f$ positive definite even for redundant contacts. The
 * tangent rows are not changed. With \f$\upsilon = 1\f$ and \f$\varepsilon = 0\f$ this is the
 * speculative contact of notes Eq.\ 12 (\f$v_n \ge -\phi/h\f$).
 *
 * CF_BAD_INPUT (p unchanged) unless h > 0, eps >= 0, 0 <= ups <= 1, every phi finite and every
 * diagonal block stored.
 */
cfStatus cf_stabilize(cfFrictionProblem *p, const double *phi, double h, double eps, double ups);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch02.8 Soft system assembly and the soft dual form (10 points)
 *  Some of its tests also call ch02.4: write it first.
 *  @{ */

/**
 * Everything needed to turn contact impulses into new soft-body velocities: the implicit system
 * A u+ = b + J^T lambda of one step (notes Eq.\ 81-84) and its factorization.
 */
typedef struct cfSoftDual {
    int n;               /**< degrees of freedom, 3 N */
    int nc;              /**< contacts */
    cfCsr A;             /**< A = M + h B + h^2 K with pinned degrees of freedom (ch01.4) */
    double *b;           /**< right-hand side M u + h f (n entries) */
    cfCsr J;             /**< contact Jacobian, 3 nc x n (cf_soft_jacobian_csr()) */
    cfSparseChol *chol;  /**< Cholesky factorization of A */
    double *u_free;      /**< free velocity A^-1 b (n entries) */
} cfSoftDual;

/**
 * @brief ch02.8: assemble the soft-body system of one implicit step and its dual (Delassus) form.
 *
 * 1. \f$A = M + h B + h^2 K\f$ and \f$b = M u + h f\f$ at the current state, by
 *    cf_soft_assemble_implicit() (ch01.4; fixed nodes pinned);
 * 2. J = cf_soft_jacobian_csr() (fixed nodes get no entries);
 * 3. factor A (cf_sparse_chol_factor(); A is symmetric positive definite), \f$u_{free} = A^{-1} b\f$;
 * 4. \f$W = J A^{-1} J^T\f$, column by column: solve \f$A x = J^T e_j\f$, then column j of W is
 *    \f$J x\f$; replace W by \f$(W + W^T)/2\f$ to remove the round-off asymmetry of the solves;
 * 5. \f$q = J u_{free}\f$, mu[a] = contacts[a].mu.
 *
 *
 * @p fc gets W as nc x nc blocks of 3x3: block (a, c) is stored when a == c or when it has an
 * entry with \f$|W_{ij}| > 10^{-14} \max_i |W_{ii}|\f$ (contacts on unconnected pieces do not couple), in
 * ascending column order. W is symmetric positive semi-definite (positive definite when J has
 * full row rank). Allocates @p d and @p fc; free with cf_soft_dual_free() and cf_fc_free().
 * CF_BAD_INPUT for nc < 1, h <= 0, bad node indices or mu; errors of the steps are passed on and
 * leave both outputs empty.
 */
cfStatus cf_soft_dual(const cfSoftBody *s, cfVec3 gravity, double h, const cfSoftContact *contacts,
                      int nc, cfSoftDual *d, cfFrictionProblem *fc);

/**
 * @brief ch02.8: the velocity after the contact impulses: \f$u^+ = A^{-1} (b + J^T \lambda)\f$.
 *
 * @p lambda has 3 nc entries (the solution of the problem built by cf_soft_dual()), @p u_plus
 * has n entries. Then \f$J u^+ = W \lambda + q\f$. CF_BAD_INPUT for a non-finite lambda.
 */
cfStatus cf_soft_dual_velocity(const cfSoftDual *d, const double *lambda, double *u_plus);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Provided (chapter code in provided.c, not exercises)
 *  @{ */

/**
 * Global rigid contact Jacobian as a block-sparse matrix: nc x n_bodies blocks of 3x6, block
 * (a, k) = the block of body k from cf_contact_jacobian_rigid() for every dynamic body k of
 * contact a (fixed bodies and the environment get no block). Allocates @p J.
 */
cfStatus cf_rigid_jacobian_bsr(const cfRigidBody *bodies, int n_bodies, const cfContact *contacts,
                               int nc, cfBsr *J);

/**
 * Apply contact impulses: for every dynamic body, v += m^-1 sum_a J_{a,v}^T lambda_a and
 * w += I_w^-1 sum_a J_{a,w}^T lambda_a (u+ = u + M^-1 J^T lambda). @p lambda has 3 nc entries
 * ordered (n, t, b) per contact. J^T lambda is not formed from the blocks of ch02.3: the contact's
 * world impulse P = C lambda acts on B at p and -P on A, which is the same product (the world's one
 * apply, every step). CF_BAD_INPUT for a non-finite lambda or bad indices (bodies unchanged).
 */
cfStatus cf_rigid_apply_impulses(cfRigidBody *bodies, int n_bodies, const cfContact *contacts, int nc,
                                 const double *lambda);

/**
 * Global soft contact Jacobian, 3 nc x 3 N CSR: rows 3a..3a+2 hold the blocks of
 * cf_soft_contact_jacobian() for contact a at the columns of its nodes; fixed nodes (s->fixed)
 * are left out (they cannot move); a node appearing twice in a contact has its blocks summed.
 * CF_BAD_INPUT for node indices out of range.
 */
cfStatus cf_soft_jacobian_csr(const cfSoftBody *s, const cfSoftContact *contacts, int nc, cfCsr *J);

/** Free a ::cfSoftDual and zero it (safe on a zeroed struct). */
void cf_soft_dual_free(cfSoftDual *d);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH02_H */
