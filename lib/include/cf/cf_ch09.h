/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch09.h
 * @brief Chapter 9 exercises: classical penalty contact, the IPC barrier, unsigned distances
 *        with their derivatives, PSD projection and projected Newton on the incremental
 *        potential, the CCD-filtered line search and lagged smoothed friction.
 *
 * The text is chapters/ch09/README.md; the tests are chapters/ch09/tests/test_ch09.c
 * (`make test-ch9`). Each function marked "ch09.K" is an exercise: its specification here is
 * authoritative. Your implementations go in exercises/ch09/; they may call anything in
 * lib/include/cf/ (cf_linalg.h for the symmetric eigen-decomposition and Cholesky), the
 * "Provided" functions of this header and chapters 1-8 (chapter 3's CCD in particular).
 *
 * The model (notes 5.3, IPC). A step of size h minimizes over the positions q (3 per node) the
 * incremental potential
 *   f(q) = 1/2 (q - qt)^T M (q - qt) + h^2 [ Psi(q) + kappa sum_k b(d_k(q), dhat) + sum_k D_k(q) ],
 *   qt = q^t + h u^t + h^2 g,
 * with M the lumped masses, Psi the elastic energy (springs here), b the barrier of the unsigned
 * distance d_k of every point-triangle and edge-edge pair closer than dhat, and D_k the lagged
 * friction potential. The h^2 in front of the barrier follows the digest's [ext] fix (errata 12):
 * kappa then has units of a force per length, and a particle of mass m rests where
 * kappa (-b'(d)) = m g. Velocities are u = (q - q^t)/h (implicit Euler).
 *
 * Conventions (docs/conventions.md): SI units, forces in N. A pair's four nodes follow chapter 3:
 * point-triangle = triangle x[0], x[1], x[2] and point x[3]; edge-edge = edge x[0]-x[1] and edge
 * x[2]-x[3]. Their 12 coordinates are stacked node by node (x[0].x, x[0].y, x[0].z, x[1].x, ...);
 * a 12x12 local Hessian is row-major.
 */
#ifndef CF_CH09_H
#define CF_CH09_H

#include <stdbool.h>

#include "cf/cf_base.h"
#include "cf/cf_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==================================================================================== */
/** @name ch09.1 Classical penalty contact (15 points)
 *  @{ */

/**
 * @brief ch09.1: normal penalty force magnitude (notes Eq.\ 270, 273 with Eq.\ 279).
 *
 * A spring-damper acts only while penetrating (gap phi < 0):
 *   lambda = k_eff (-phi) - b vn,   k_eff = k when approaching (vn <= 0), eps k when receding (vn > 0),
 * clamped at 0 (a contact never pulls). phi >= 0: 0. vn = d phi/dt is the normal velocity of B
 * relative to A (the digest's fix of Eq.\ 271-272: negative when approaching). eps in [0, 1] is
 * Moore and Wilhelms' elasticity: with b = 0 it returns the fraction eps of the stored energy, so
 * the rebound speed ratio is sqrt(eps) (the digest's [ext] derivation), not eps.
 *
 * Worked example: k = 1e4, b = 0, eps = 1, phi = -9.81e-4, vn = 0: lambda = 9.81 (a 1 kg mass at rest).
 */
double cf_penalty_normal(double k, double b, double eps, double phi, double vn);

/**
 * @brief ch09.1: regularized Coulomb friction from a dissipative potential (notes Eq.\ 287-288):
 *   f = -min(kf, mu fn / |vt|) vt      (f = 0 at vt = 0),
 * linear (viscous, slope kf) for |vt| < mu fn / kf and of magnitude mu fn beyond. fn >= 0 is the
 * normal force magnitude, vt the tangential velocity.
 */
cfVec3 cf_penalty_friction(cfVec3 vt, double kf, double mu, double fn);

/**
 * @brief ch09.1: anchor-spring friction (notes Eq.\ 276-277). The friction force is
 * f = kf (anchor - p). If |f| <= mu fn the contact sticks: *f_out = f, returns 0. Otherwise it
 * slips: the anchor is dragged toward p until the bound holds with equality,
 * anchor <- p + (mu fn / kf) (anchor - p)/|anchor - p| (the digest's exact update),
 * *f_out = kf (anchor - p) of magnitude mu fn, returns 1.
 */
int cf_penalty_anchor(cfVec3 *anchor, cfVec3 p, double kf, double mu, double fn, cfVec3 *f_out);
/** @} */

/* ==================================================================================== */
/** @name ch09.2 The IPC barrier (15 points)
 *  @{ */

/**
 * @brief ch09.2: the clamped log barrier of IPC (notes Eq.\ 292) and its first two derivatives.
 *
 *   b(d) = -(d - dhat)^2 ln(d/dhat)                           for 0 < d < dhat,
 *   b'(d) = (dhat - d)(2 ln(d/dhat) - dhat/d + 1),
 *   b''(d) = (dhat/d + 2)(dhat/d) - 2 ln(d/dhat) - 3,
 * and b = b' = b'' = 0 for d >= dhat (the join is C2). d <= 0 (contact or penetration): returns
 * +INFINITY with b' = -INFINITY, b'' = +INFINITY, and ln is never evaluated there. @p db and
 * @p d2b may be NULL. dhat > 0.
 *
 * Spot values (digest 3.3): dhat = 1e-3, d = 5e-4: b = 1.732868e-7, b' = -1.193147e-3,
 * b'' = 6.386294. Scaling: b(s d, s dhat) = s^2 b(d, dhat), b'(s d, s dhat) = s b'(d, dhat).
 */
double cf_ipc_barrier(double d, double dhat, double *db, double *d2b);
/** @} */

/* ==================================================================================== */
/** @name ch09.3 Unsigned distances, their derivatives, the edge-edge mollifier (20 points)
 *  @{ */

/** Which pair of features the closest points of a pair lie on. */
typedef enum cfDistRegion {
    CF_DIST_PT_FACE = 0, /**< point-triangle: inside the face (2 free parameters) */
    CF_DIST_PT_EDGE,     /**< point-triangle: on an edge (1 free parameter) */
    CF_DIST_PT_VERTEX,   /**< point-triangle: at a vertex */
    CF_DIST_EE_INTERIOR, /**< edge-edge: inside both edges (2 free parameters) */
    CF_DIST_EE_EDGE,     /**< edge-edge: an endpoint of one edge against the inside of the other (1) */
    CF_DIST_EE_VERTEX,   /**< edge-edge: endpoint against endpoint */
    CF_DIST_REGION_COUNT /**< number of regions */
} cfDistRegion;

/**
 * The closest points of a pair as an affine stencil: the difference vector between them is
 *   r = sum_i c[i] x[i]   (i = 0..3),     d^2 = |r|^2,
 * and the k free parameters t_j of the region (barycentric coordinates, edge parameters) move the
 * coefficients by dc[i]/dt_j = D[i][j], constant in each region. A vertex-vertex region has k = 0.
 * The stencil fully determines d^2 and its derivatives (ch09.3) and the friction's relative
 * displacement (ch09.6).
 */
typedef struct cfDistStencil {
    cfDistRegion region; /**< which features */
    int k;               /**< free parameters of the region (0, 1 or 2) */
    double c[4];         /**< coefficients of r, the coefficient of x[3] or of edge B carries + */
    double D[4][2];      /**< dc[i]/dt_j for j < k (unused columns 0) */
} cfDistStencil;

/**
 * @brief ch09.3: squared distance from the point x[3] to the triangle x[0], x[1], x[2] (notes
 * Eq.\ 293) and the stencil of its region (7 regions: the face, 3 edges, 3 vertices).
 *
 * Project x[3] onto the plane: if the barycentric coordinates (1 - u - v, u, v) are all >= 0 the
 * region is the face, c = (-(1-u-v), -u, -v, 1), D = columns d/du = (1, -1, 0, 0),
 * d/dv = (1, 0, -1, 0). Otherwise the closest point lies on the boundary: the nearest of the three
 * edges (segment parameter t clamped to [0, 1]); an interior t gives an edge region with
 * c_a = -(1 - t), c_b = -t, c_3 = 1, D column (1, -1) at (a, b), a clamped t a vertex region
 * (c = -1 at that vertex, 1 at x[3], k = 0). A degenerate triangle (zero area) takes the boundary
 * path. Returns d^2; fills @p st (may be NULL).
 *
 * Worked example: triangle (0,0,0), (1,0,0), (0,1,0), point (0.2, 0.2, 0.5): face, d^2 = 0.25;
 * point (2, -1, 0): vertex x[1], d^2 = 2.
 */
double cf_dist2_point_triangle(const cfVec3 x[4], cfDistStencil *st);

/**
 * @brief ch09.3: squared distance between the segments x[0]-x[1] and x[2]-x[3] (notes Eq.\ 294),
 * and the stencil, r = (x[2] + b (x[3] - x[2])) - (x[0] + a (x[1] - x[0])):
 * c = (-(1 - a), -a, 1 - b, b). Minimize over a, b in [0, 1]: both interior gives the interior
 * region (D columns d/da = (1, -1, 0, 0), d/db = (0, 0, -1, 1)); one clamped the edge region (one
 * column, the other's); both clamped the vertex region. Parallel edges (|e1 x e2|^2 <=
 * 1e-20 |e1|^2 |e2|^2) have a set of minimizers: take the smallest of the four endpoint-segment
 * distances (a finite, continuous value: an edge or vertex region). Returns d^2; fills @p st (may
 * be NULL). Symmetric: swapping the edges gives the same d^2.
 *
 * Worked example: (-1,0,0)-(1,0,0) and (0,-1,1)-(0,1,1): interior, a = b = 0.5, d^2 = 1.
 */
double cf_dist2_edge_edge(const cfVec3 x[4], cfDistStencil *st);

/**
 * @brief ch09.3: gradient and Hessian of d^2 with respect to the 12 coordinates, in the region of
 * @p st, by the envelope theorem. With F(x, t) = |r(x, t)|^2 minimized over the region's free
 * parameters t (the stencil's c at the minimizer), S = dr/dx = [c_0 I, c_1 I, c_2 I, c_3 I]
 * (3x12), E_j = dr/dt_j = sum_i D[i][j] x[i]:
 *   grad d^2 = F_x = 2 S^T r                                (block i: 2 c_i r)
 *   Hess d^2 = F_xx - F_xt F_tt^-1 F_tx,   F_xx = 2 S^T S,  F_tt = 2 E^T E (k x k),
 *   column j of F_xt = block i: 2 (D[i][j] r + c_i E_j).
 * k = 0: just F_xx. Returns d^2 = |r|^2; @p g (12) and @p H (144, row-major) may be NULL.
 * Exact wherever the region is locally constant (the test compares with finite differences).
 */
double cf_dist2_derivatives(const cfVec3 x[4], const cfDistStencil *st, double g[12], double H[144]);

/**
 * @brief ch09.3: IPC's edge-edge mollifier, which switches the barrier of nearly parallel edges off
 * smoothly (the distance is not smooth there). With e1 = x[1] - x[0], e2 = x[3] - x[2] and
 * c = |e1 x e2|^2:
 *   m = (2 - c/eps_x) c/eps_x  for c < eps_x,   m = 1 otherwise
 * (C1 at eps_x). IPC takes eps_x = 1e-3 |e1_rest|^2 |e2_rest|^2. Returns m; @p g (12) and @p H (144) get
 * its gradient and Hessian (zero where m = 1), either may be NULL. With
 * grad c = 2 ((e2.e2) e1 - (e1.e2) e2) along e1 and 2 ((e1.e1) e2 - (e1.e2) e1) along e2, and the
 * chain rule through e1 = x1 - x0, e2 = x3 - x2: grad m = m'(c) grad c, Hess m = m'' grad c grad c^T + m' Hess c.
 */
double cf_ee_mollifier(const cfVec3 x[4], double eps_x, double g[12], double H[144]);

/**
 * @brief ch09.3: the barrier of one pair and its 12-gradient and 12x12 Hessian (not projected):
 * with s = d^2 (from the stencil), d = sqrt(s), b(d) from ch09.2:
 *   grad b = b'(d) grad s / (2 d),
 *   Hess b = b''(d) grad s grad s^T / (4 s) + b'(d) ( Hess s / (2 d) - grad s grad s^T / (4 d^3) ).
 * Returns b (0 with zero derivatives when d >= dhat, +INFINITY when d <= 0). @p g, @p H may be NULL.
 */
double cf_ipc_pair_barrier(const cfVec3 x[4], const cfDistStencil *st, double dhat, double g[12], double H[144]);
/** @} */

/* ==================================================================================== */
/** @name Provided: the IPC system (provided.c, not exercises)
 *  @{ */

/** Which method cf_ipc_newton() uses for the search direction. */
typedef enum cfIpcDirection {
    CF_IPC_NEWTON = 0,   /**< Algorithm 18: dq = -H^-1 grad f, H with every local Hessian PSD-projected */
    CF_IPC_GRADIENT,     /**< Algorithm 17 in the mass metric: dq = -M^-1 grad f */
    CF_IPC_DIRECTION_COUNT /**< number of methods */
} cfIpcDirection;

/** Lagged friction data of one contact pair (ch09.6), frozen at the start of a lagging iteration. */
typedef struct cfIpcFrictionPair {
    int node[4];         /**< the pair's nodes (as its stencil's x[0..3]) */
    double c[4];         /**< the stencil coefficients at the lag: the relative displacement is sum c_i dx_i */
    cfVec3 t1;           /**< first tangent: t1, t2 are an orthonormal basis of the plane orthogonal to r */
    cfVec3 t2;           /**< second tangent */
    double N;            /**< lagged normal force magnitude kappa (-b'(d)) (N) */
} cfIpcFrictionPair;

/**
 * A deformable or fixed point set with IPC contact: nodes (3 coordinates each) with lumped masses,
 * surface triangles and edges, optional springs, gravity. Fixed nodes (pinned, as obstacles)
 * never move. Fill with cf_ipc_init() and the cf_ipc_add_*() functions; free with cf_ipc_free().
 */
typedef struct cfIpcSystem {
    int n;                 /**< nodes */
    double *q;             /**< 3n: current positions (q^t between steps) */
    double *u;             /**< 3n: velocities */
    double *q_rest;        /**< 3n: positions when added (the edge-edge mollifier's rest lengths) */
    double *mass;          /**< n: lumped masses (> 0 for free nodes) */
    bool *fixed;           /**< n: pinned nodes */
    int n_tri;             /**< surface triangles */
    int n_edge;            /**< surface edges */
    int n_spring;          /**< springs */
    int (*tri)[3];         /**< surface triangles (node indices) */
    int (*edge)[2];        /**< surface edges */
    int (*spring)[2];      /**< springs */
    double *rest;          /**< per spring: rest length (m) */
    double *stiff;         /**< per spring: stiffness (N/m) */
    int cap_n;             /**< allocated nodes */
    int cap_tri;           /**< allocated triangles */
    int cap_edge;          /**< allocated edges */
    int cap_spring;        /**< allocated springs */
    cfVec3 gravity;        /**< m/s^2 */
    double h;              /**< time step (s), > 0 */
    double dhat;           /**< barrier activation distance (m), > 0 */
    double kappa;          /**< barrier stiffness (N/m), > 0 */
    double mu;             /**< friction coefficient (>= 0; 0: no friction) */
    double eps_v;          /**< friction's static-to-dynamic speed (m/s), > 0 */
    /* step data (set by cf_ipc_step(); the tests set them directly) */
    double *q_start;       /**< 3n: q^t of the step (friction's reference) */
    double *q_tilde;       /**< 3n: the inertial target q^t + h u^t + h^2 g */
    int n_fric;            /**< lagged friction pairs */
    int cap_fric;          /**< allocated friction pairs */
    cfIpcFrictionPair *fric; /**< lagged friction pairs (empty: no friction term) */
} cfIpcSystem;

/** Options of cf_ipc_newton() and cf_ipc_step(). Start from cf_ipc_options_default(). */
typedef struct cfIpcOptions {
    cfIpcDirection direction; /**< Newton (default) or gradient descent */
    int max_iter;             /**< Newton (or descent) iterations per solve (default 100) */
    double tol;               /**< stop when the direction's |dq|_inf / h <= tol (m/s; default 1e-8) */
    double ccd_fraction;      /**< the line search starts at this fraction of the CCD time of impact, in (0, 1) (default 0.8) */
    int max_halvings;         /**< most halvings of one line search (default 60) */
    int lag_iters;            /**< friction lagging iterations per step, >= 1 (default 1) */
} cfIpcOptions;

/** Statistics of cf_ipc_newton() (one solve) and cf_ipc_step() (sums over its solves). */
typedef struct cfIpcStats {
    int iterations;        /**< Newton/descent iterations */
    int halvings;          /**< line-search halvings */
    int ccd_clamps;        /**< line searches whose start was cut below 1 by CCD */
    double grad_norm;      /**< final |grad f|_inf / h^2 (N): the force imbalance */
    double energy;         /**< final f */
    double min_dist;       /**< smallest pair distance at the end (INFINITY without pairs) */
    int active;            /**< pairs closer than dhat at the end */
} cfIpcStats;

/** max_iter 100, tol 1e-8 m/s, ccd_fraction 0.8, max_halvings 60, lag_iters 1, Newton. */
cfIpcOptions cf_ipc_options_default(void);

/** An empty system with h, dhat, kappa (mu 0, eps_v 1e-3, gravity 0). CF_BAD_INPUT for h, dhat or kappa not > 0. */
cfStatus cf_ipc_init(cfIpcSystem *s, double h, double dhat, double kappa);
/** Free and zero (safe on a zeroed struct). */
void cf_ipc_free(cfIpcSystem *s);
/** Add a node at @p x with mass @p m (ignored when fixed); returns its index or -1 (no memory, m <= 0 for a free node). */
int cf_ipc_add_node(cfIpcSystem *s, cfVec3 x, double m, bool fixed);
/** Add a surface triangle (its three edges are added too, once each); -1 on bad indices or no memory. */
int cf_ipc_add_triangle(cfIpcSystem *s, int a, int b, int c);
/** Add a surface edge (no duplicate); returns its index or -1. */
int cf_ipc_add_edge(cfIpcSystem *s, int a, int b);
/** Add a spring of stiffness @p k at its current length; returns its index or -1. */
int cf_ipc_add_spring(cfIpcSystem *s, int a, int b, double k);
/** Add a box of 8 nodes (total mass @p m, fixed or free) with its 12 triangles, 18 edges and, when k > 0, 28 springs (all pairs). Returns the first node or -1. */
int cf_ipc_add_box(cfIpcSystem *s, cfVec3 lo, cfVec3 hi, double m, double k, bool fixed);

/** Coordinates of node @p i of @p q. */
static inline cfVec3 cf_ipc_node(const double *q, int i) { return cfu_vec3(q[3 * i], q[3 * i + 1], q[3 * i + 2]); }

/**
 * Visit the contact pairs: every point-triangle pair (a node not of the triangle) and every
 * edge-edge pair (no shared node) that has a free node. @p fn gets the four nodes (chapter 3's
 * order) and whether it is edge-edge; a non-zero return stops the visit and is returned.
 */
int cf_ipc_for_pairs(const cfIpcSystem *s, int (*fn)(void *ctx, const int node[4], bool ee), void *ctx);

/** The four points of a pair in @p q. */
void cf_ipc_pair_points(const double *q, const int node[4], cfVec3 x[4]);

/** Squared distance and stencil of a pair (ch09.3's point-triangle or edge-edge). */
double cf_ipc_pair_dist2(const cfVec3 x[4], bool ee, cfDistStencil *st);

/** Smallest pair distance of @p q (INFINITY without pairs); @p active gets the pairs closer than dhat (may be NULL). */
double cf_ipc_min_distance(const cfIpcSystem *s, const double *q, int *active);

/**
 * The incremental potential f(q) of the model (file comment) with s->q_tilde, s->q_start and
 * s->fric (an edge-edge pair's barrier is kappa m b with the mollifier m of ch09.3, eps_x from
 * q_rest), its gradient @p g (3n, may be NULL) and, when @p H is not NULL, its Hessian (3n x 3n
 * row-major, dense, allocated by the caller) with every local block (spring 6x6, pair 12x12)
 * projected to PSD by ch09.4 when @p project. Rows and columns of fixed nodes
 * are the identity, their gradient 0. Returns +INFINITY (g and H untouched) when a pair has d <= 0.
 * Calls ch09.2, ch09.3, ch09.4 (projection) and ch09.6 (friction).
 */
double cf_ipc_energy(const cfIpcSystem *s, const double *q, double *g, double *H, bool project);

/**
 * Freeze the friction of the pairs closer than dhat at @p q (ch09.6's lag): stencil coefficients,
 * tangent basis orthogonal to r, N = kappa (-b'(d)) (times the mollifier for edge-edge pairs). No pairs
 * when mu = 0. CF_NO_MEMORY.
 */
cfStatus cf_ipc_lag_friction(cfIpcSystem *s, const double *q);

/**
 * One implicit Euler step: q_start = q, q_tilde = q + h u + h^2 g (free nodes), then lag_iters
 * times: lag the friction at the current iterate and minimize f by cf_ipc_newton() from it. Then
 * u = (q - q_start)/h and q is the minimizer. @p stats (may be NULL) sums the solves and reports the
 * final distance. The status of the last failing solve (CF_MAX_ITER still moves the state).
 */
cfStatus cf_ipc_step(cfIpcSystem *s, const cfIpcOptions *opt, cfIpcStats *stats);
/** @} */

/* ==================================================================================== */
/** @name ch09.4 PSD projection and projected Newton (20 points)
 *  @{ */

/**
 * @brief ch09.4: project the symmetric n x n matrix @p A (row-major, in place) to the nearest
 * positive semi-definite matrix: A = V diag(l) V^T (cf_dense_sym_eig()), l_i <- max(l_i, 0),
 * A <- V diag(l) V^T. An already PSD matrix comes back unchanged (to rounding). CF_BAD_INPUT for
 * n < 1 or a non-finite entry, CF_NO_MEMORY.
 */
cfStatus cf_psd_project(int n, double *A);

/**
 * @brief ch09.4: minimize the incremental potential from @p q (3n values, intersection-free: every
 * pair at d > 0) by Algorithm 18 (or 17), in place.
 *
 * Loop: f, g = grad f (cf_ipc_energy()); the direction: Newton: H with projected blocks,
 * dq = -H^-1 g by Cholesky (cf_dense_cholesky()); gradient descent: dq_i = -g_i / m_i (0 for fixed
 * nodes). Stop with CF_OK when |dq|_inf / h <= opt->tol (IPC's criterion, a velocity: near the
 * minimum the decrease of f falls below its rounding long before |g| reaches a force tolerance).
 * Then q <- q + alpha dq with alpha from cf_ipc_line_search() (ch09.5); the contact set is
 * re-evaluated at the new iterate by the next cf_ipc_energy() (the digest's fix of where C is
 * refreshed). CF_MAX_ITER after opt->max_iter iterations, CF_STAGNATED when the line search
 * finds no decrease (alpha = 0), CF_BAD_INPUT when f(q) is not finite on entry. @p st (may be
 * NULL) gets iterations, halvings, CCD clamps, the final gradient norm and energy.
 */
cfStatus cf_ipc_newton(cfIpcSystem *s, double *q, const cfIpcOptions *opt, cfIpcStats *st);
/** @} */

/* ==================================================================================== */
/** @name ch09.5 CCD-filtered line search (15 points)
 *  @{ */

/**
 * @brief ch09.5: the largest safe step along @p dq from @p q: over every pair
 * (cf_ipc_for_pairs()), the time of impact t in [0, 1] of the linear motion x + t dx, by chapter
 * 3's cubic CCD (cf_ccd_vertex_face(), cf_ccd_edge_edge() with h = 1), its conservative lower
 * bound by cf_ccd_inclusion() (delta 1e-6, 100000 boxes) when the cubic one says DEGENERATE.
 * Returns min(1, @p fraction * min t): 1 when no pair touches. @p fraction in (0, 1) keeps the
 * start of the line search strictly before the first contact.
 */
double cf_ipc_ccd_step(const cfIpcSystem *s, const double *q, const double *dq, double fraction);

/**
 * @brief ch09.5: Algorithm 20. alpha starts at cf_ipc_ccd_step(s, q, dq, opt->ccd_fraction); while
 * f(q + alpha dq) (cf_ipc_energy(), +INFINITY at contact) is not < @p f0 = f(q), halve alpha, at
 * most opt->max_halvings times; then give up with 0. Returns alpha (and @p halvings, @p clamped:
 * whether CCD cut the start below 1; either may be NULL); @p q_new (3n) holds q + alpha dq.
 */
double cf_ipc_line_search(const cfIpcSystem *s, const double *q, const double *dq, double f0, const cfIpcOptions *opt,
                          double *q_new, int *halvings, bool *clamped);
/** @} */

/* ==================================================================================== */
/** @name ch09.6 Lagged smoothed friction (15 points)
 *  @{ */

/**
 * @brief ch09.6: IPC's friction mollifier f1 (notes Eq.\ 296) and its potential f0 (M, [ext]),
 * for s >= 0 and a = h eps_v > 0:
 *   f1(s) = -s^2/a^2 + 2 s/a,   f1'(s) = -2 s/a^2 + 2/a,   f0(s) = -s^3/(3 a^2) + s^2/a + a/3   (s < a),
 *   f1 = 1, f1' = 0, f0 = s                                                                      (s >= a).
 * Returns f1; @p df1 and @p f0 may be NULL. f0' = f1, f1(0) = 0, f1(a) = 1, f1'(a) = 0.
 */
double cf_friction_f1(double s, double a, double *df1, double *f0);

/**
 * @brief ch09.6: the lagged friction potential of one pair and its derivatives in the 12
 * displacements dx = x - x^t of its nodes (notes Eq.\ 298):
 *   u = (t1 . w, t2 . w) with w = sum_i c_i dx_i,   s = |u|,   D = mu N f0(s),
 *   grad D (node i) = mu N c_i f1(s)/s (t1 u_1 + t2 u_2),
 *   Hess D (i, j) = mu N c_i c_j T K T^T,  T = [t1 t2],  K = (f1/s) I + ((f1/s)'/s) u u^T
 * with (f1/s)' = (f1' s - f1)/s^2. At s = 0 use the limits f1/s = 2/a, ((f1/s)'/s) u u^T = 0.
 * K needs no projection with this f1: its eigenvalues are f1/s >= 0 across u and f1' >= 0 along u
 * (the digest's "project the 2x2 to PSD" is a no-op here; the test checks it). Returns D; @p g (12),
 * @p H (144) may be NULL.
 */
double cf_ipc_pair_friction(const cfIpcFrictionPair *p, const double dx[12], double mu, double a, double g[12],
                            double H[144]);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH09_H */
