/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch03.h
 * @brief Chapter 3 exercises: contact generation and continuous collision detection.
 *
 * The text is chapters/ch03/README.md; the tests are chapters/ch03/tests/test_ch03.c
 * (`make test-ch3`). Each function below marked "ch03.K" is an exercise: its specification
 * here is authoritative. Your implementations go in the files of exercises/ch03/; they may call
 * anything in lib/include/cf/ (cf_math.h, cf_geometry.h, cf_contact.h, ...) but nothing from
 * later chapters, and nothing from chapter 2's exercises (tangent frames are chapter 2's job:
 * leave cfContact::t, cfContact::b and cfContact::lambda zero).
 * The grader holds each exercise file to docs/grading.md ("What an exercise may use"): helpers
 * and file-scope variables are `static`; from the C library only allocation, memory and string
 * functions, qsort, bsearch, the math library and printing to stdout/stderr; and no file is
 * opened (the library's cf_*_read_siconos(), cf_*_write_siconos() and cf_scene_load() are refused).
 *
 * Every contact routine follows the conventions of cf_geometry.h:
 * - n is a unit vector from A to B; phi > 0 separated, < 0 penetrating;
 * - p is the midpoint of the two surface points: p_A = p - phi/2 n on A, p_B = p + phi/2 n on B;
 * - a contact is reported when phi <= margin (margin >= 0; 0 reports touching and penetrating
 *   pairs only);
 * - body_a, body_b and mu are left 0 (the caller, cf_detect_world(), fills them); feature is
 *   set as specified (cf_feature()).
 * - degenerate input (coincident centres, zero-length normals, parallel edges) gives a
 *   documented finite answer or status: never NaN. Test phi with `!(phi <= margin)` to
 *   reject a NaN gap from non-finite input as "no contact".
 */
#ifndef CF_CH03_H
#define CF_CH03_H

#include "cf/cf_base.h"
#include "cf/cf_contact.h"
#include "cf/cf_geometry.h"
#include "cf/cf_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==================================================================================== */
/** @name ch03.1 Spheres and planes (10 points)
 *  @{ */

/**
 * @brief ch03.1: contact between sphere A (centre @p ca, radius @p ra) and sphere B.
 *
 * With d = cb - ca (notes 2.1.1):
 * @f[ \phi = \|d\| - (r_a + r_b),\qquad n = d/\|d\|,\qquad
 *     p = \tfrac12\big(c_a + r_a n\big) + \tfrac12\big(c_b - r_b n\big) @f]
 * Returns 1 and fills @p out when phi <= @p margin, else 0 (@p out untouched).
 * Coincident centres (\f$\|d\| \le 10^{-12} (r_a + r_b)\f$): n = (0, 0, 1), \f$p = c_a\f$, \f$\phi = -(r_a + r_b)\f$.
 * feature = cf_feature(CF_FEAT_SINGLE, 0).
 *
 * Worked example (notes 2.1.1): ca = 0, ra = 1, cb = (1.5, 0, 0), rb = 1 gives
 * phi = -0.5, n = (1, 0, 0), p = (0.75, 0, 0).
 */
int cf_collide_sphere_sphere(cfVec3 ca, double ra, cfVec3 cb, double rb, double margin, cfContact *out);

/**
 * @brief ch03.1: contact between the plane A {x : n.x <= offset} (unit normal @p n, solid
 *        below) and sphere B (centre @p c, radius @p r).
 *
 * @f[ \phi = n\cdot c - \mathrm{offset} - r,\qquad p = c - (r + \phi/2)\,n @f]
 * (the midpoint of the sphere's lowest point c - r n and its projection on the plane); the
 * normal is the plane normal (it points from the plane, A, to the sphere, B).
 * Returns 1 and fills @p out when phi <= @p margin, else 0. feature = cf_feature(CF_FEAT_SINGLE, 0).
 *
 * Worked example: n = (0, 0, 1), offset = 0, c = (1, 2, 0.4), r = 0.5 gives phi = -0.1,
 * p = (1, 2, -0.05).
 */
int cf_collide_plane_sphere(cfVec3 n, double offset, cfVec3 c, double r, double margin, cfContact *out);
/** @} */

/* ==================================================================================== */
/** @name ch03.2 Sphere against oriented box (10 points)
 *  @{ */

/**
 * @brief ch03.2: contact between sphere A (centre @p c, radius @p r) and the oriented box B.
 *
 * In the box frame, \f$c_l = R^T (c - c_{box})\f$; the closest box point is the clamp (notes Eq.\ 85)
 * \f$g_i = \mathrm{clamp}(c_{l,i}, -h_i, h_i)\f$.
 * - Shallow case (\f$c_l\f$ outside the box, \f$\|g - c_l\| > 0\f$): \f$\phi = \|g - c_l\| - r\f$ and
 *   \f$n = R (g - c_l)/\|g - c_l\|\f$ (from the sphere centre toward the box).
 * - Deep case (centre inside or on the surface): pick the face with the smallest
 *   \f$d_i = h_i - |c_{l,i}|\f$ (lowest axis on ties; sign of \f$c_{l,i}\f$, + for 0), project onto it:
 *   g = c_l with component i set to +-h_i, and
 *   @f[ \phi = -(d_i + r),\qquad n = -R\,e_i\,\mathrm{sign}(c_{l,i}) @f]
 *   i.e. minus the outward face normal, so that n still points from A (sphere) into B (box).
 *   (The notes drop r and use the outward normal here: see the errata; with these formulas
 *   phi and n are continuous as the centre crosses a face.)
 * - In both cases \f$p_B = R g + c_{box}\f$ (on the box), \f$p_A = c + r n\f$ (on the sphere) and
 *   \f$p = (p_A + p_B)/2\f$.
 * Returns 1 and fills @p out when phi <= @p margin, else 0. feature = cf_feature(CF_FEAT_SINGLE, 0).
 *
 * Worked examples (notes 2.1.2; unit box h = 0.5 at the origin, r = 0.25):
 * centre (-0.7, 0, 0): phi = -0.05, n = (1, 0, 0), p_B = (-0.5, 0, 0);
 * centre (-0.4, 0, 0) (deep): phi = -0.35, n = (1, 0, 0), p_B = (-0.5, 0, 0).
 */
int cf_collide_sphere_box(cfVec3 c, double r, const cfObb *box, double margin, cfContact *out);
/** @} */

/* ==================================================================================== */
/** @name ch03.3 Boxes: separating axes and clipped manifolds (20 points)
 *  @{ */

/** Most contacts a box-box or plane-box call produces before reduction. */
#define CF_BOX_MAX_CONTACTS 8
/** Cross axes a_i x b_j shorter than this are skipped (parallel edges). */
#define CF_SAT_PARALLEL_EPS 1e-6
/** An edge axis must be shallower than the best face axis by this fraction of its depth. */
#define CF_SAT_EDGE_BIAS 0.05
/** Tie tolerance of the axis choice, times L = the largest half extent of both boxes: a face axis of
    B or an edge axis replaces A's face axis only when better by more (see cf_sat_box_box()). */
#define CF_SAT_TIE_EPS 1e-9

/** Result of the separating axis test of two boxes. */
typedef struct cfSatResult {
    bool separated; /**< some axis has s > margin */
    int axis;       /**< chosen axis: 0..2 face of A (axis i), 3..5 face of B (axis j), 6 + 3 i + j edges a_i x b_j */
    double s;       /**< separation along the chosen axis (m); negative: penetration */
    double s_max;   /**< largest separation over all tested axes (without the face bias) */
    cfVec3 n;       /**< chosen unit axis oriented from A to B: \f$n \cdot (c_B - c_A) \ge 0\f$ */
} cfSatResult;

/**
 * @brief ch03.3: separating axis test of boxes @p a and @p b over the 15 candidate axes.
 *
 * With d = b.c - a.c and for a unit axis l (notes Eq. 86, corrected):
 * @f[ s(l) = |d\cdot l| - \big(r_A(l) + r_B(l)\big),\qquad r_A(l) = \sum_i h_{A,i}\,|a_i\cdot l| @f]
 * (cf_obb_project_radius()). Axes: the 3 columns a_i of A's rotation (axis = i), the 3 columns
 * b_j of B's (axis = 3 + j), and the 9 cross products a_i x b_j (axis = 6 + 3 i + j),
 * normalized; cross products shorter than CF_SAT_PARALLEL_EPS are skipped.
 * - As soon as an axis has s > @p margin, return with separated = true, that axis, s = s_max
 *   = its s, and n oriented from A to B.
 * - Otherwise separated = false, s_max is the largest s, and the chosen axis is: the best face
 *   axis of A; replaced by a face axis of B only if its s is larger by more than
 *   CF_SAT_TIE_EPS * L; replaced by the best edge axis only if that one's s exceeds the face
 *   s by more than CF_SAT_EDGE_BIAS |s_face| + CF_SAT_TIE_EPS * L (prefer faces: they give
 *   4-point manifolds that stack). Among edge axes the largest s wins (first on ties).
 * - n = l or -l, whichever has n . d >= 0 (+l when d . l = 0).
 *
 * Worked examples (notes 2.1.3; unit cubes, h = 0.5, A at the origin): B at (0, 1.1, 0):
 * separated, s = 0.1 on axis 1. B at (0, 0.9, 0): axis 1, s = -0.1, n = (0, 1, 0) (the face
 * of B and the cross axes tie; A's face is kept). Crossed edges (A turned 45 deg about z, B
 * turned 45 deg about x at (0, 1.4, 0)): edge axis a_z x b_x, s = -0.014214, n = (0, 1, 0).
 */
cfSatResult cf_sat_box_box(const cfObb *a, const cfObb *b, double margin);

/**
 * @brief ch03.3: contact manifold of boxes @p a and @p b. @p out must have room for
 *        CF_BOX_MAX_CONTACTS; returns the number of contacts (0 when separated).
 *
 * Run cf_sat_box_box(a, b, margin). If separated, return 0. Then:
 * - Edge-edge (axis >= 6): the edge of A parallel to a_i that lies farthest along n and the
 *   edge of B parallel to b_j that lies farthest along -n; their closest points
 *   (cf_segment_closest()) are p_A and p_B; phi = n . (p_B - p_A), p = (p_A + p_B)/2. One
 *   contact if phi <= margin, feature = cf_feature(CF_FEAT_EDGE_EDGE, eA << 4 | eB) with the
 *   edge numbers of cf_geometry.h.
 * - Face (axis < 6): the reference face is the face of the axis's box facing the other box;
 *   its outward normal m is n (reference on A) or -n (on B). The incident face is the face
 *   of the other box whose outward normal is most anti-parallel to m (largest |b_j . m|, the
 *   lowest j on an exact tie: a box on an edge at 45 deg has two, whose quads share the edge
 *   and give the same points, but other feature ids).
 *   In the reference box's frame, clip the incident quad against the four side planes
 *   |x_k| <= h_k (k != reference axis) with Sutherland-Hodgman. For each clipped point x
 *   (world), its height above the reference face along m is phi = m . (x - x_ref); keep it
 *   when phi <= margin, with p_inc = x and p_ref = x - phi m (p_A, p_B accordingly), n as
 *   above, p = midpoint. Feature: cf_feature(CF_FEAT_FACE_A or CF_FEAT_FACE_B,
 *   ref << 9 | inc << 6 | tag) where ref, inc are face numbers and tag names the clipped
 *   point: 0..3 the incident face's vertex k (in the cycle order of the quad), 8 + 8 c + e
 *   the crossing of clip plane c (0..3) with polygon edge e (0..3: incident quad edge k from
 *   vertex k to k+1; 4 + c': the edge along an earlier clip plane c'). The clip planes are
 *   taken in the order x_k <= h_k, -x_k <= h_k for the lower of the two other axes k, then the
 *   same for the higher one (c = 0, 1, 2, 3); a point on a plane is inside.
 * - When more than @p max_contacts points survive (1 <= max_contacts <= 8), reduce them
 *   with cf_manifold_reduce().
 *
 * Worked examples (notes 2.1.3, unit cubes): B at (0, 0.9, 0): 4 contacts, phi = -0.1,
 * p_A = (+-0.5, 0.5, +-0.5); B also turned 45 deg about y: 8 contacts (max_contacts = 8) at
 * p_A = (+-0.5, 0.5, +-0.2071) and (+-0.2071, 0.5, +-0.5); the crossed edges: 1 contact at
 * p = (0, 0.7, 0), phi = -0.014214.
 */
int cf_collide_box_box(const cfObb *a, const cfObb *b, double margin, int max_contacts, cfContact *out);

/**
 * @brief ch03.3: contacts between the plane A {x : n.x <= offset} and box B: one per box
 *        vertex with \f$\phi = n \cdot v - \mathrm{offset} \le \mathrm{margin}\f$, p = v - phi/2 n, the plane normal as n,
 *        feature = cf_feature(CF_FEAT_VERTEX, k) for vertex k (cf_obb_vertex()). @p out has
 *        room for CF_BOX_MAX_CONTACTS; more than @p max_contacts contacts are reduced with
 *        cf_manifold_reduce(). Returns the number of contacts.
 *
 * Worked example: a unit cube at (0, 0, 0.45) on the plane z = 0: 4 contacts, phi = -0.05.
 */
int cf_collide_plane_box(cfVec3 n, double offset, const cfObb *b, double margin, int max_contacts,
                         cfContact *out);
/** @} */

/* ==================================================================================== */
/** @name ch03.4 Continuous collision detection with the coplanarity cubic (15 points)
 *
 * Linear motion over a step of length h: x_k(t) = x[k] + t u[k], 0 <= t <= h.
 * Vertex-face: x[0], x[1], x[2] are the triangle (body A), x[3] the vertex (body B).
 * Edge-edge: x[0]-x[1] is the edge of A, x[2]-x[3] the edge of B.
 *  @{ */

/** Outcome of a CCD query. */
typedef enum cfCcdStatus {
    CF_CCD_MISS = 0,     /**< certified: no contact during the step */
    CF_CCD_HIT,          /**< contact at time toi */
    CF_CCD_DEGENERATE,   /**< the method cannot decide (coplanar motion, parallel edges, degenerate triangle):
                              toi is a lower bound (0 when nothing better is known); use ch03.5 */
    CF_CCD_BUDGET,       /**< inclusion CCD ran out of boxes: toi is a valid lower bound, treat as a hit */
    CF_CCD_STATUS_COUNT  /**< number of statuses */
} cfCcdStatus;

/** Result of a CCD query. */
typedef struct cfCcdResult {
    cfCcdStatus status; /**< see cfCcdStatus */
    double toi;         /**< time of impact (HIT), or lower bound (DEGENERATE, BUDGET); h on a miss */
    cfVec3 p;           /**< contact point at toi (HIT) */
    cfVec3 n;           /**< unit normal at toi from A to B (cubic CCD HIT); zero when unknown */
    double a;           /**< vertex-face: barycentric weight of x[1]; edge-edge: parameter on edge A; inclusion: box centre */
    double b;           /**< vertex-face: barycentric weight of x[2]; edge-edge: parameter on edge B; inclusion: box centre */
    int boxes;          /**< inclusion CCD: domain boxes examined */
} cfCcdResult;

/** Barycentric slack of the inside tests (a point within this of an edge counts as inside). */
#define CF_CCD_INSIDE_EPS 1e-9
/** Edges with |e1 x e2| <= CF_CCD_PARALLEL_EPS |e1| |e2| are parallel. */
#define CF_CCD_PARALLEL_EPS 1e-9

/**
 * @brief ch03.4: real roots of c[0] + c[1] t + c[2] t^2 + c[3] t^3 in [t0, t1], ascending.
 *
 * Robust isolation, no Cardano: split [t0, t1] at the roots of the derivative (a quadratic,
 * solved with the cancellation-free formula) into monotone pieces; on each piece a sign change
 * gives one root, found by bisection to full precision (at most 200 halvings); a piece end
 * where |f| <= tol counts as a root (so grazing double roots and roots at t0 or t1 are found).
 * Roots closer than 1e-12 (t1 - t0) are merged. Returns the number of roots (0..3), or -1
 * when the polynomial vanishes identically (every |c_k| (max(|t0|,|t1|))^k <= tol).
 *
 * Worked example: c = (1, -2, 0, 0) on [0, 1] has the single root 0.5.
 */
int cf_cubic_roots(const double c[4], double t0, double t1, double tol, double roots[3]);

/**
 * @brief ch03.4: coefficients c[0..3] of the coplanarity cubic
 *        \f$f(t) = ((x_1 - x_0) \times (x_2 - x_0)) \cdot (x_3 - x_0)\f$ at time t (notes Eq.\ 91-97),
 *        with \f$a = x_1 - x_0\f$, \f$b = u_1 - u_0\f$, \f$c = x_2 - x_0\f$, \f$d = u_2 - u_0\f$,
 *        \f$e = x_3 - x_0\f$, \f$g = u_3 - u_0\f$:
 * @f[ c_0 = (a\times c)\cdot e, \qquad c_1 = (a\times c)\cdot g + (a\times d + b\times c)\cdot e, @f]
 * @f[ c_2 = (a\times d + b\times c)\cdot g + (b\times d)\cdot e, \qquad c_3 = (b\times d)\cdot g @f]
 * f(t) = 0 exactly when the four points are coplanar. Worked example: triangle (0,0,0),
 * (1,0,0), (0,1,0) at rest, vertex (0.2, 0.2, 1) moving (0, 0, -2): c = (1, -2, 0, 0).
 */
void cf_ccd_cubic(const cfVec3 x[4], const cfVec3 u[4], double c[4]);

/**
 * @brief ch03.4: earliest time in [0, h] at which the vertex x[3] touches the triangle
 *        x[0..2].
 *
 * Roots of cf_ccd_cubic() by cf_cubic_roots() with tol = \f$10^{-12} L^3\f$, where
 * \f$L = \max_k (\|x_k - x_0\| + h \|u_k - u_0\|)\f$ is the size of the configuration (f is a volume);
 * for each root in ascending order, the vertex is inside the
 * triangle at that time when its barycentric weights (w0, a, b) are all >= -CF_CCD_INSIDE_EPS.
 * The first root that passes: status HIT, toi, p = x3(toi), a, b, and n = the triangle's
 * unit normal at toi, turned toward the side where the vertex was just before toi: the sign
 * of f at the midpoint between the previous root (or 0) and toi; when toi is 0 itself, the
 * sign of -f'(0), or of f''(0) when f'(0) = 0, or + when both vanish. Degenerate: the cubic vanishes identically
 * (coplanar motion: status DEGENERATE, toi = 0) or the triangle has zero area at a root
 * (status DEGENERATE, toi = that root). No root passes: MISS with toi = h.
 * h < 0 or non-finite input: MISS.
 *
 * Worked example (notes 2.2.2): the triangle above, vertex (0.2, 0.2, 1) with u = (0, 0, -2)
 * and h = 1: HIT at 0.5, p = (0.2, 0.2, 0), n = (0, 0, 1) (the vertex comes from +z).
 */
cfCcdResult cf_ccd_vertex_face(const cfVec3 x[4], const cfVec3 u[4], double h);

/**
 * @brief ch03.4: earliest time in [0, h] at which edge x[0]-x[1] (A) touches edge x[2]-x[3] (B).
 *
 * Same cubic and roots. At each root (ascending), with \f$e_1 = x_1 - x_0\f$, \f$e_2 = x_3 - x_2\f$,
 * \f$w = x_2 - x_0\f$: if \f$\|e_1 \times e_2\| \le\f$ CF_CCD_PARALLEL_EPS \f$\|e_1\| \|e_2\|\f$ the
 * edges are parallel: status DEGENERATE with toi = that root when the segments are within
 * \f$10^{-9} (\|e_1\| + \|e_2\|)\f$ of
 * each other there (cf_segment_closest()), else go on to the next root. Otherwise solve the
 * normal equations (notes Eq. 101)
 * @f[ \begin{bmatrix} e_1\cdot e_1 & -e_1\cdot e_2\\ -e_1\cdot e_2 & e_2\cdot e_2\end{bmatrix}
 *     \begin{bmatrix} a\\ b\end{bmatrix} = \begin{bmatrix} e_1\cdot w\\ -e_2\cdot w\end{bmatrix} @f]
 * and accept when a, b are in [-CF_CCD_INSIDE_EPS, 1 + CF_CCD_INSIDE_EPS]: HIT with
 * \f$p = x_0 + a e_1\f$ (the contact point; the notes' formula is the difference vector, see the
 * errata), \f$n = e_1 \times e_2\f$ normalized and turned from A toward the side B came from: since
 * \f$f = -(e_1 \times e_2) \cdot w\f$, that is the sign of -f just before toi (same rule as the
 * vertex-face case with the sign flipped).
 * The cubic vanishing identically (parallel or coplanar motion): DEGENERATE, toi = 0.
 *
 * Worked example (notes 2.2.3): edge (-1,0,0)-(1,0,0) at rest, edge (0,-1,1)-(0,1,1) moving
 * (0, 0, -2), h = 1: HIT at 0.5, a = b = 0.5, p = 0, n = (0, 0, 1).
 */
cfCcdResult cf_ccd_edge_edge(const cfVec3 x[4], const cfVec3 u[4], double h);
/** @} */

/* ==================================================================================== */
/** @name ch03.5 Inclusion-based conservative CCD (15 points)
 *  Some of its tests also call ch03.4: write it first.
 *  @{ */

/** Which feature pair a CCD query is about. */
typedef enum cfCcdKind {
    CF_CCD_VF = 0, /**< vertex x[3] against triangle x[0..2] */
    CF_CCD_EE,     /**< edge x[0]-x[1] against edge x[2]-x[3] */
    CF_CCD_KIND_COUNT /**< number of kinds */
} cfCcdKind;

/** A box in the parameter domain (t, u, v) (vertex-face) or (t, a, b) (edge-edge). */
typedef struct cfBox3 {
    double lo[3]; /**< lower corner */
    double hi[3]; /**< upper corner */
} cfBox3;

/**
 * @brief ch03.5: inclusion function of the multivariate CCD map over the domain box @p dom.
 *
 * The maps (notes Eq. 102-103), with x_k(t) = x[k] + t u[k]:
 * @f[ F_{VF}(t,u,v) = (1-u-v)\,x_0(t) + u\,x_1(t) + v\,x_2(t) - x_3(t) @f]
 * @f[ F_{EE}(t,a,b) = x_0(t) + a\,(x_1(t) - x_0(t)) - x_2(t) - b\,(x_3(t) - x_2(t)) @f]
 * are linear in each variable separately, so over a box their image lies in the convex hull
 * of the images of its 8 corners. Write to @p img the AABB of those 8 values, inflated by
 * 8 DBL_EPSILON times the largest magnitude met in the evaluation (a bound on the rounding
 * error: no false negatives from floating point).
 */
void cf_ccd_inclusion_bounds(cfCcdKind kind, const cfVec3 x[4], const cfVec3 u[4], const cfBox3 *dom, cfAabb *img);

/**
 * @brief ch03.5: conservative CCD by interval subdivision (Algorithm 1 of the notes, in the
 *        manner of Tight-Inclusion).
 *
 * Start from the domain t in [0, h], (u, v) or (a, b) in [0, 1]^2. Keep the boxes still to
 * examine in a priority queue ordered by their lowest time lo[0] (ties: first inserted).
 * Pop the earliest box; drop it if 0 is not in cf_ccd_inclusion_bounds() (for VF also when
 * lo[1] + lo[2] > 1, outside the triangle); accept it if its widths are all <= @p delta
 * (the time width measured as (hi[0] - lo[0]) / h); otherwise split it in half across its
 * widest dimension (same measure; on equal widths the first of t, u, v) and push both halves
 * (the lower half first). The first accepted box gives
 * status HIT, toi = its lo[0]: a lower bound of the true time of impact, since every earlier
 * box was either excluded or is still queued behind it. p = the point on A at the box centre
 * (VF: the vertex x3, EE: the point of edge A). n is not computed (zero).
 * Empty queue: MISS (certified), toi = h. More than @p max_boxes pops (or a full queue of
 * max_boxes entries): status BUDGET with toi = lo[0] of the box being examined (still a lower
 * bound). @p boxes counts the pops. h <= 0, delta <= 0 or max_boxes < 1: MISS.
 *
 * No false negatives: whenever the features touch at some time, the status is HIT or BUDGET
 * with toi no later than the first touching time. At a HIT's toi the features are within
 * O(delta) (times the size of the configuration) of each other, since the accepted box's
 * image contains 0; when they approach at a grazing angle the true time of impact can be
 * later than toi by more than delta h (a tolerance in space, not in time). Worked example (notes 2.2.4): triangle
 * (0,0,0), (1,0,0), (0,1,0) at rest, vertex (2, 0.2, 0) moving (-1, 0, 0) in its plane, h = 2:
 * the cubic is identically zero (ch03.4 says DEGENERATE) but inclusion finds toi = 1.2.
 */
cfCcdResult cf_ccd_inclusion(cfCcdKind kind, const cfVec3 x[4], const cfVec3 u[4], double h, double delta,
                             int max_boxes);
/** @} */

/* ==================================================================================== */
/** @name ch03.6 Signed distance fields (15 points)
 *  @{ */

/**
 * @brief ch03.6: trilinear interpolation of a grid SDF and the gradient of the interpolant.
 *
 * For x inside the node box: cell (i, j, k) = floor((x - origin)/dx) clamped to
 * [0, n - 2], local coordinates f = (x - node(i, j, k))/dx in [0, 1]^3, and
 * @f[ s(x) = \sum_{a,b,c\in\{0,1\}} \phi_{i+a,j+b,k+c}\; w_a(f_x)\,w_b(f_y)\,w_c(f_z),\quad
 *     w_0(f) = 1 - f,\ w_1(f) = f @f]
 * with the gradient the exact derivative of this expression (divide by dx). Outside the node
 * box: evaluate at the clamped point y and return s(y) + |x - y| with gradient the
 * normalized sum of the gradient at y and (x - y)/|x - y| (never read outside the array).
 * A zero gradient becomes (0, 0, 1). A non-finite @p x returns HUGE_VAL (far outside) with
 * gradient (0, 0, 1). @p grad may be NULL.
 *
 * Interpolation reproduces node values exactly, and for a smooth field its error is O(dx^2).
 */
double cf_sdf_grid_eval(const cfSdfGrid *g, cfVec3 x, cfVec3 *grad);

/**
 * @brief ch03.6: contact between the SDF body A (field @p sdf in A's frame, pose @p A) and a
 *        point @p x (world) of body B.
 *
 * With x_A = R_A^T (x - x_A) (cf_pose_inv_apply()), s = s(x_A), g = grad s(x_A) (notes
 * Eq. 104-107): when s <= margin, one contact with phi = s, n = R_A g/|g| ((0,0,1) rotated
 * when |g| = 0), p = x - (s/2) n (midpoint of x and its projection x - s n on the surface).
 * Returns 1 or 0. feature is left 0 (the caller names the point).
 */
int cf_collide_sdf_point(const cfSdf *sdf, cfPose A, cfVec3 x, double margin, cfContact *out);

/**
 * @brief ch03.6: Euclidean projection of @p w onto the simplex {w >= 0, w0 + w1 + w2 = 1}
 *        (sort-based: find the shift tau with sum max(w_i - tau, 0) = 1).
 */
void cf_project_simplex3(double w[3]);

/**
 * @brief ch03.6: minimise s over the triangle (x1, x2, x3) by projected gradient descent on
 *        the barycentric weights (notes Eq.\ 109-110, corrected update order).
 *
 * Start at the centroid w = (1/3, 1/3, 1/3); repeat @p iters times:
 * x = w0 x1 + w1 x2 + w2 x3, d_i = grad s(x) . x_i, w <- Proj_simplex(w - alpha d)
 * (project AFTER the step); stop early when no weight changes by more than 1e-14.
 * Writes the final weights to @p w and returns s at the final point.
 * Worked example (notes 2.3.2): unit sphere SDF, triangle (-3,-3,0.95), (3,-3,0.95),
 * (0,3,0.95), alpha = 0.05, 200 iterations: w = (0.25, 0.25, 0.5), s = -0.05.
 */
double cf_sdf_triangle_min(const cfSdf *sdf, cfVec3 x1, cfVec3 x2, cfVec3 x3, double alpha, int iters, double w[3]);

/** Options of cf_collide_sdf_mesh(). */
typedef struct cfSdfMeshOptions {
    double margin;  /**< report phi <= margin (m) */
    bool faces;     /**< also refine every triangle with cf_sdf_triangle_min() */
    double alpha;   /**< PGD step (1/m); <= 0: 0.25 / L with L the triangle's longest edge */
    int iters;      /**< PGD iterations (default 100) */
} cfSdfMeshOptions;

/** Defaults: margin 0, faces on, alpha automatic, 100 iterations. */
cfSdfMeshOptions cf_sdf_mesh_options_default(void);

/**
 * @brief ch03.6: contacts between the SDF body A and the triangle mesh of body B.
 *
 * Vertices (notes Algorithm 2): each mesh vertex v (B's frame) goes to A's frame as
 * x = R_A^T (R_B v + x_B - x_A) (notes Eq. 108 corrected); when s(x) <= margin it gives the
 * cf_collide_sdf_point() contact of its world position, feature CF_FEAT_SDF_VERTEX | index.
 * Faces (opt->faces): for each triangle, cf_sdf_triangle_min() in A's frame; when the
 * minimum s_min <= margin and is lower than the value at each of the triangle's three
 * vertices by more than 1e-9 (a point vertex sampling cannot see), emit a contact at the
 * minimiser: feature CF_FEAT_SDF_EDGE | (lo << 14 | hi) when one weight is <= 1e-9 (the edge
 * of the two other vertices; skip it when that edge is already in @p out), else
 * CF_FEAT_SDF_FACE | triangle index.
 * Writes at most @p max_out contacts; returns how many were found (more than max_out means
 * some were dropped). @p opt NULL: defaults.
 *
 * Worked example (notes 2.3.2): unit sphere SDF at the origin, the large triangle above:
 * 0 vertex contacts; with faces, 1 contact with phi = -0.05 and n = (0, 0, 1).
 */
int cf_collide_sdf_mesh(const cfSdf *sdf, cfPose A, const cfTriMesh *mesh, cfPose B, const cfSdfMeshOptions *opt,
                        cfContact *out, int max_out);
/** @} */

/* ==================================================================================== */
/** @name ch03.7 Broad phase: sweep and prune (10 points)
 *  @{ */

/**
 * @brief ch03.7: all overlapping pairs of @p n finite AABBs by sweep and prune.
 *
 * Pick the sweep axis with the largest variance of the box centres (x on ties). Sort the
 * boxes by their lower bound on that axis (ties by index: qsort with a total order). Sweep in
 * that order with an active list: drop active boxes whose upper bound is below the new box's
 * lower bound, test the new box against every remaining active box with cf_aabb_overlap()
 * (one test each: add them to *@p tests), then add it to the active list.
 * Output: every overlapping pair (a < b) exactly once, sorted by (a, b), appended to
 * @p pairs after clearing it. The number of tests is far below n (n - 1)/2 when the boxes are
 * spread out (the tests check the growth rate). CF_BAD_INPUT for n < 0 or a non-finite box;
 * CF_NO_MEMORY. @p tests may be NULL; @p boxes may be NULL when n = 0 (no pairs, CF_OK).
 */
cfStatus cf_broadphase_sap(const cfAabb *boxes, int n, cfPairList *pairs, long *tests);
/** @} */

/* ==================================================================================== */
/** @name Provided with the chapter (provided.c, capsules.c; not exercises)
 *  @{ */

/** cfSdf view of a grid (evaluated with cf_sdf_grid_eval()); @p g must outlive the result. */
cfSdf cf_sdf_of_grid(const cfSdfGrid *g);

/**
 * Contacts of the capsule @p capsule (side B) against body @p a (side A: a plane, sphere, box or
 * capsule), from the sphere routines (ch03.1, ch03.2) on points of its core segment
 * (cf_capsule_segment()):
 * - plane and box: the two end spheres, plus for a box the deepest interior point of the segment
 *   (golden-section search on the box's signed distance) when it is deeper than both ends;
 *   features cf_feature(CF_FEAT_CAPSULE, 0 or 1) (ends), 2 (interior);
 * - sphere: the closest point of the segment (feature 2);
 * - capsule: the closest points of the two segments (feature 2); for nearly parallel segments
 *   the end points of each against the other segment (features 0, 1 for A's ends, 4, 5 for B's),
 *   so that a capsule lying on another gets a line of support.
 * An end contact counts only where its normal points into the segment. Contacts with
 * phi <= @p margin; more than @p max_contacts are reduced with cf_manifold_reduce(). @p out has
 * room for CF_BOX_MAX_CONTACTS. Returns their number, -1 for another shape of @p a.
 */
int cf_collide_capsule(const cfRigidBody *a, const cfRigidBody *capsule, double margin, int max_contacts, cfContact *out);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH03_H */
