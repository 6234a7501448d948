/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch09.h
 * @brief Chapter 9 exercises: classical penalty contact, the IPC barrier, unsigned distances
 *        with their derivatives, PSD projection and projected Newton on the incremental
 *        potential, the CCD-filtered line search, lagged smoothed friction, and paper 003's
 *        fully implicit frictional dynamics with soft constraints (ch09.7).
 *
 * The text is chapters/ch09/README.md; the tests are chapters/ch09/tests/test_ch09.c
 * (`make test-ch9`). Each function marked "ch09.K" is an exercise: its specification here is
 * authoritative. Your implementations go in exercises/ch09/; they may call anything in
 * lib/include/cf/ (cf_linalg.h for the symmetric eigen-decomposition, Cholesky and LU), the
 * "Provided" functions of this header and chapters 1-8 (chapter 3's CCD in particular).
 * The grader holds each exercise file to docs/grading.md ("What an exercise may use"): helpers
 * and file-scope variables are `static`; from the C library only allocation, memory and string
 * functions, qsort, bsearch, the math library and printing to stdout/stderr; and no file is
 * opened (the library's cf_*_read_siconos(), cf_*_write_siconos() and cf_scene_load() are refused).
 *
 * The model (notes 5.3, IPC). A step of size h minimizes over the positions q (3 per node) the
 * incremental potential
 * \f[ f(q) = \tfrac12 (q - \tilde q)^T M (q - \tilde q)
 *          + h^2 \Big[ \Psi(q) + \kappa \sum_k b(d_k(q), \hat d) + \sum_k D_k(q) \Big],
 *     \qquad \tilde q = q^t + h u^t + h^2 g, \f]
 * with M the lumped masses, \f$\Psi\f$ the elastic energy (springs and tetrahedra here), b the barrier of the
 * unsigned distance \f$d_k\f$ of every point-triangle and edge-edge pair closer than \f$\hat d\f$,
 * and \f$D_k\f$ the lagged friction potential. The \f$h^2\f$ in front of the barrier is not in the
 * notes' Eq. 291 (see the errata): \f$\kappa\f$ then has units of a force per length, and a particle
 * of mass m rests where \f$\kappa\, (-b'(d)) = m g\f$. Velocities are \f$u = (q - q^t)/h\f$
 * (implicit Euler).
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
#include "cf/cf_linalg.h"
#include "cf/cf_math.h"
#include "cf/cf_soft.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==================================================================================== */
/** @name ch09.1 Classical penalty contact (15 points)
 *  @{ */

/**
 * @brief ch09.1: normal penalty force magnitude (notes Eq.\ 270, 273 with Eq.\ 279).
 *
 * A spring-damper acts only while penetrating (gap \f$\phi < 0\f$):
 * \f[ \lambda = \max\big(0,\; k_{eff}\, (-\phi) - b\, v_n\big), \qquad
 *     k_{eff} = \begin{cases} k & v_n \le 0 \text{ (approaching)} \\ \epsilon k & v_n > 0 \text{ (receding)} \end{cases} \f]
 * (a contact never pulls); \f$\phi \ge 0\f$: 0. vn = d phi/dt is the normal velocity of B
 * relative to A (Eq.\ 271-272 corrected: negative when approaching). eps in [0, 1] is
 * Moore and Wilhelms' elasticity: with b = 0 it returns the fraction eps of the stored energy, so
 * the rebound speed ratio is \f$\sqrt{\epsilon}\f$ (an energy ratio; see the text), not \f$\epsilon\f$.
 *
 * Worked example: k = 1e4, b = 0, eps = 1, phi = -9.81e-4, vn = 0: lambda = 9.81 (a 1 kg mass at rest).
 */
double cf_penalty_normal(double k, double b, double eps, double phi, double vn);

/**
 * @brief ch09.1: regularized Coulomb friction from a dissipative potential (notes Eq.\ 287-288):
 * \f[ f = -\min\Big(k_f,\; \frac{\mu f_n}{\|v_t\|}\Big)\, v_t \qquad (f = 0 \text{ at } v_t = 0), \f]
 * linear (viscous, slope kf) for \f$\|v_t\| < \mu f_n / k_f\f$ and of magnitude \f$\mu f_n\f$ beyond. fn >= 0 is the
 * normal force magnitude, vt the tangential velocity.
 */
cfVec3 cf_penalty_friction(cfVec3 vt, double kf, double mu, double fn);

/**
 * @brief ch09.1: anchor-spring friction (notes Eq.\ 276-277). The friction force is
 * \f$f = k_f (a - p)\f$ (a the anchor). If \f$\|f\| \le \mu f_n\f$ the contact sticks:
 * *f_out = f, returns 0. Otherwise it slips: the anchor is dragged toward p until the bound holds
 * with equality,
 * \f[ a \leftarrow p + \frac{\mu f_n}{k_f}\, \frac{a - p}{\|a - p\|} \f]
 * (the exact update), *f_out \f$= k_f (a - p)\f$ of magnitude \f$\mu f_n\f$, returns 1.
 */
int cf_penalty_anchor(cfVec3 *anchor, cfVec3 p, double kf, double mu, double fn, cfVec3 *f_out);
/** @} */

/* ==================================================================================== */
/** @name ch09.2 The IPC barrier (15 points)
 *  @{ */

/**
 * @brief ch09.2: the clamped log barrier of IPC (notes Eq.\ 292) and its first two derivatives.
 *
 * \f[ b(d) = -(d - \hat d)^2 \ln(d/\hat d), \qquad
 *     b'(d) = (\hat d - d)\Big(2 \ln(d/\hat d) - \frac{\hat d}{d} + 1\Big), \qquad
 *     b''(d) = \Big(\frac{\hat d}{d} + 2\Big)\frac{\hat d}{d} - 2 \ln(d/\hat d) - 3 \f]
 * for \f$0 < d < \hat d\f$ (dhat \f$= \hat d\f$), and b = b' = b'' = 0 for \f$d \ge \hat d\f$ (the join is C2). d <= 0 (contact or penetration): returns
 * +INFINITY with b' = -INFINITY, b'' = +INFINITY, and ln is never evaluated there. @p db and
 * @p d2b may be NULL. dhat > 0.
 *
 * Spot values: dhat = 1e-3, d = 5e-4: b = 1.732868e-7, b' = -1.193147e-3,
 * b'' = 6.386294. Scaling: \f$b(s d, s \hat d) = s^2 b(d, \hat d)\f$, \f$b'(s d, s \hat d) = s\, b'(d, \hat d)\f$.
 */
double cf_ipc_barrier(double d, double dhat, double *db, double *d2b);
/** @} */

/* ==================================================================================== */
/** @name ch09.3 Unsigned distances, their derivatives, the edge-edge mollifier (20 points)
 *  Some of its tests also call ch09.2: write it first.
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
 * \f[ r = \sum_{i=0}^{3} c_i\, x_i, \qquad d^2 = \|r\|^2, \f]
 * and the k free parameters \f$t_j\f$ of the region (barycentric coordinates, edge parameters)
 * move the coefficients by \f$\partial c_i/\partial t_j = D_{ij}\f$, constant in each region. A vertex-vertex region has k = 0.
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
 * distances (a finite, continuous value: an edge or vertex region; r still points from the
 * point of edge A to the point of edge B, so A's coefficients sum to -1). Returns d^2; fills @p st (may
 * be NULL). Symmetric: swapping the edges gives the same d^2.
 *
 * Worked example: (-1,0,0)-(1,0,0) and (0,-1,1)-(0,1,1): interior, a = b = 0.5, d^2 = 1.
 */
double cf_dist2_edge_edge(const cfVec3 x[4], cfDistStencil *st);

/**
 * @brief ch09.3: gradient and Hessian of d^2 with respect to the 12 coordinates, in the region of
 * @p st, by the envelope theorem. With F(x, t) = |r(x, t)|^2 minimized over the region's free
 * parameters t (the stencil's c at the minimizer),
 * \f$S = \partial r/\partial x = [c_0 I,\ c_1 I,\ c_2 I,\ c_3 I]\f$ (3x12),
 * \f$E_j = \partial r/\partial t_j = \sum_i D_{ij}\, x_i\f$:
 * \f[ \nabla d^2 = F_x = 2 S^T r \quad (\text{block } i\text{: } 2 c_i r), \qquad
 *     \nabla^2 d^2 = F_{xx} - F_{xt} F_{tt}^{-1} F_{tx}, \f]
 * \f[ F_{xx} = 2 S^T S, \qquad F_{tt} = 2 E^T E \ (k \times k), \qquad
 *     (F_{xt})_{\text{block } i,\ \text{column } j} = 2\, (D_{ij}\, r + c_i E_j). \f]
 * k = 0: just \f$F_{xx}\f$. Returns d^2 = |r|^2; @p g (12) and @p H (144, row-major) may be NULL.
 * Exact wherever the region is locally constant (the test compares with finite differences).
 */
double cf_dist2_derivatives(const cfVec3 x[4], const cfDistStencil *st, double g[12], double H[144]);

/**
 * @brief ch09.3: IPC's edge-edge mollifier, which switches the barrier of nearly parallel edges off
 * smoothly (the distance is not smooth there). With \f$e_1 = x_1 - x_0\f$, \f$e_2 = x_3 - x_2\f$ and
 * \f$c = \|e_1 \times e_2\|^2\f$:
 * \f[ m = \Big(2 - \frac{c}{\epsilon_x}\Big) \frac{c}{\epsilon_x} \quad (c < \epsilon_x), \qquad m = 1 \text{ otherwise} \f]
 * (C1 at \f$\epsilon_x\f$). IPC takes \f$\epsilon_x = 10^{-3} \|e_1^{rest}\|^2 \|e_2^{rest}\|^2\f$.
 * Returns m; @p g (12) and @p H (144) get its gradient and Hessian (zero where m = 1), either may be
 * NULL. With \f$\nabla c = 2 ((e_2 \cdot e_2) e_1 - (e_1 \cdot e_2) e_2)\f$ along \f$e_1\f$ and
 * \f$2 ((e_1 \cdot e_1) e_2 - (e_1 \cdot e_2) e_1)\f$ along \f$e_2\f$, and the chain rule through
 * \f$e_1\f$, \f$e_2\f$: \f$\nabla m = m'(c) \nabla c\f$,
 * \f$\nabla^2 m = m'' \nabla c\, \nabla c^T + m' \nabla^2 c\f$.
 */
double cf_ee_mollifier(const cfVec3 x[4], double eps_x, double g[12], double H[144]);

/**
 * @brief ch09.3: the barrier of one pair and its 12-gradient and 12x12 Hessian (not projected):
 * with \f$s = d^2\f$ (from the stencil), \f$d = \sqrt{s}\f$, b(d) from ch09.2:
 * \f[ \nabla b = b'(d)\, \frac{\nabla s}{2 d}, \qquad
 *     \nabla^2 b = b''(d)\, \frac{\nabla s\, \nabla s^T}{4 s}
 *       + b'(d) \Big( \frac{\nabla^2 s}{2 d} - \frac{\nabla s\, \nabla s^T}{4 d^3} \Big). \f]
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
 * surface triangles and edges, optional springs and tetrahedra (cf_ipc_add_tet(), the energy of
 * cf_tet_neohookean()), gravity. Fixed nodes (pinned, as obstacles)
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
    int n_tet;             /**< tetrahedra (elastic elements, cf_ipc_add_tet()) */
    int cap_tet;           /**< allocated tetrahedra */
    int (*tet)[4];         /**< per tetrahedron: its nodes, positively oriented at rest */
    double (*tet_Dm_inv)[9]; /**< per tetrahedron: the inverse of its rest edge matrix, row-major */
    double *tet_volume;    /**< per tetrahedron: rest volume V (m^3) */
    double *tet_mu;        /**< per tetrahedron: Lame mu (Pa) */
    double *tet_lambda;    /**< per tetrahedron: Lame lambda (Pa) */
    int *edge_table;       /**< cap_edge_table slots: a hash table of the edges (edge index + 1, 0: empty), cf_ipc_add_edge()'s; owned */
    int cap_edge_table;    /**< slots of edge_table (a power of 2; 0: none yet) */
    int n_edge_table;      /**< edges in edge_table: when this is not n_edge, cf_ipc_add_edge() builds the table anew */
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
    /** NULL (the reference, cf_ipc_init()'s default): cf_ipc_for_pairs() visits every pair. Else it
        visits only these, a broad phase's candidates (the sparse path, solutions/ch09/fast/), which
        must hold every pair that can matter where the system is evaluated; not owned, not freed. */
    const struct cfIpcPairList *pairs;
} cfIpcSystem;

/** Candidate pairs of a broad phase, in cf_ipc_for_pairs()'s order (see cfIpcSystem::pairs). */
typedef struct cfIpcPairList {
    int n;            /**< pairs */
    int cap;          /**< allocated */
    int (*node)[4];   /**< the four nodes of each pair (chapter 3's order) */
    bool *ee;         /**< edge-edge (else point-triangle: node[3] is the point) */
} cfIpcPairList;

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
/** Add a surface edge (no duplicate: an edge already there, either way round, returns its index); returns its index or -1. Expected O(1) (a hash table of the edges). */
int cf_ipc_add_edge(cfIpcSystem *s, int a, int b);
/** Add a spring of stiffness @p k at its current length; returns its index or -1. */
int cf_ipc_add_spring(cfIpcSystem *s, int a, int b, double k);
/**
 * Add a tetrahedron on the nodes @p node (distinct, existing) as an elastic element with the rest
 * shape of their current positions: its rest edge matrix \f$D_m = [x_1 - x_0, x_2 - x_0, x_3 - x_0]\f$
 * (inverted and kept), its rest volume \f$V = \det D_m / 6\f$ and the Lame parameters of
 * (@p young, @p poisson) by cf_lame(); the energy is cf_tet_neohookean()'s, added to f as
 * \f$h^2 V \psi(F)\f$ by cf_ipc_energy_blocks(). CF_BAD_INPUT (nothing added) for a bad or
 * repeated node, a rest tetrahedron that is inverted (\f$\det D_m < 0\f$: list the nodes the other
 * way round) or degenerate (\f$|\det D_m| \le 10^{-12} \ell^3\f$, \f$\ell\f$ its longest edge), young not
 * finite and > 0, poisson not in [0, 0.5); CF_NO_MEMORY.
 */
cfStatus cf_ipc_add_tet(cfIpcSystem *s, const int node[4], double young, double poisson);
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
 * Where a barrier contact carrying the weight @p weight (N, > 0) rests: the d in (0, dhat) with
 * kappa (-b'(d)) = weight, b = cf_ipc_barrier() (-b' falls from +infinity to 0 on (0, dhat), so
 * bisection: 200 halvings of [1e-12 dhat, dhat]). kappa > 0, dhat > 0.
 */
double cf_ipc_resting_distance(double weight, double kappa, double dhat);

/**
 * The stable Neo-Hookean energy of one tetrahedron (Smith, de Goes and Kim 2018, "Stable
 * Neo-Hookean Flesh Simulation", ACM TOG 37(2), section 3.4's rest-stable form without the log):
 * with \f$F = D_s D_m^{-1}\f$, \f$D_s = [x_1 - x_0, x_2 - x_0, x_3 - x_0]\f$, \f$J = \det F\f$,
 * \f[ E = V \psi(F), \qquad \psi(F) = \tfrac{\mu}{2} (\mathrm{tr}\, F^T F - 3) - \mu (J - 1)
 *      + \tfrac{\lambda + \mu}{2} (J - 1)^2 , \f]
 * \f$\mu, \lambda\f$ the Lame parameters (cf_lame()): the \f$\lambda + \mu\f$ makes the small-strain
 * limit the linear element's \f$\mu\, \varepsilon : \varepsilon + \tfrac{\lambda}{2} (\mathrm{tr}\, \varepsilon)^2\f$
 * (the paper's reparametrization). \f$\psi(R) = 0\f$ and \f$P(R) = 0\f$ for every rotation R; an
 * inverted element (J < 0) has a finite energy that decreases as J grows back.
 * With \f$\partial J/\partial F = \mathrm{cof}\, F\f$ (columns \f$f_1 \times f_2, f_2 \times f_0, f_0 \times f_1\f$):
 * \f[ P = \mu F + \big((\lambda + \mu)(J - 1) - \mu\big) \mathrm{cof}\, F, \qquad
 *     \frac{\partial^2 \psi}{\partial F^2} = \mu I_9 + (\lambda + \mu)\, \mathrm{vec}(\mathrm{cof} F) \mathrm{vec}(\mathrm{cof} F)^T
 *     + \big((\lambda + \mu)(J - 1) - \mu\big) \frac{\partial^2 J}{\partial F^2}, \f]
 * \f$\partial^2 J/\partial F^2\f$ linear in F (blocks between columns a, b of F: \f$\partial^2 J / \partial f_0 \partial f_1 = -[f_2]_\times\f$,
 * \f$\partial^2 J / \partial f_0 \partial f_2 = [f_1]_\times\f$, \f$\partial^2 J / \partial f_1 \partial f_2 = -[f_0]_\times\f$, their
 * transposes, zero diagonal blocks). F is linear in x, \f$\partial F_{ij}/\partial x_{a,i} = G_{aj}\f$ with
 * \f$G_{k+1, j} = (D_m^{-1})_{kj}\f$ and \f$G_{0, j} = -\sum_k (D_m^{-1})_{kj}\f$, so the 12-gradient is
 * \f$V\, \sum_j P_{ij} G_{aj}\f$ (node a, coordinate i) and the 12x12 Hessian \f$V\, B^T (\partial^2 \psi/\partial F^2) B\f$
 * (B = dvec F/dx). When @p project, the 9x9 \f$\partial^2 \psi/\partial F^2\f$ is made PSD by ch09.4's
 * cf_psd_project() before that product (skipped when its Cholesky succeeds: it is positive
 * definite already), so the 12x12 is PSD. @p Dm_inv is row-major, @p V > 0; @p g (12) and @p H (144,
 * row-major, chapter 9's node-by-node stacking) may be NULL. Returns E, or NAN when the projection
 * fails (a non-finite x).
 *
 * Worked example: the unit right tetrahedron (0, e_x, e_y, e_z), V = 1/6, mu = 1, lambda = 0,
 * stretched to F = diag(2, 1, 1): tr F^T F - 3 = 3, J = 2, psi = 1.5 - 1 + 0.5 = 1, E = 1/6.
 */
double cf_tet_neohookean(const cfVec3 x[4], const double Dm_inv[9], double V, double mu, double lambda, double g[12],
                         double H[144], bool project);

/**
 * The incremental potential f(q) of the model (file comment) with s->q_tilde, s->q_start and
 * s->fric (an edge-edge pair's barrier is kappa m b with the mollifier m of ch09.3, eps_x from
 * q_rest), its gradient @p g (3n, may be NULL) and, when @p H is not NULL, its Hessian (3n x 3n
 * row-major, dense, allocated by the caller) with every local block (spring 6x6, pair 12x12)
 * projected to PSD by ch09.4 when @p project (a tetrahedron, h^2 cf_tet_neohookean(), by its 9x9
 * \f$\partial^2 \psi/\partial F^2\f$). Rows and columns of fixed nodes
 * are the identity, their gradient 0. Returns +INFINITY (g and H untouched) when a pair has d <= 0.
 * Calls ch09.2, ch09.3, ch09.4 (projection) and ch09.6 (friction).
 */
double cf_ipc_energy(const cfIpcSystem *s, const double *q, double *g, double *H, bool project);

/** Receives one local Hessian of cf_ipc_energy_blocks(): @p k nodes, the 3k x 3k block @p lH
    (row-major, projected when asked) to be added times @p w. */
typedef void (*cfIpcBlockFn)(void *ctx, int k, const int *node, const double *lH, double w);
/**
 * cf_ipc_energy() with the Hessian handed out term by term instead of assembled dense: @p block
 * (may be NULL: no Hessian) gets each term's local block (inertia as one-node diagonal blocks,
 * springs, tetrahedra, barriers, friction), in the order cf_ipc_energy() adds them; fixed nodes' blocks are
 * included (the receiver drops their rows and columns and puts 1 on their diagonal). @p g as in
 * cf_ipc_energy() (fixed nodes' entries 0).
 */
double cf_ipc_energy_blocks(const cfIpcSystem *s, const double *q, double *g, cfIpcBlockFn block, void *ctx, bool project);

/**
 * Freeze the friction of the pairs closer than dhat at @p q (ch09.6's lag): stencil coefficients,
 * tangent basis orthogonal to r, N = kappa (-b'(d)) (times the mollifier for edge-edge pairs). No pairs
 * when mu = 0. CF_NO_MEMORY.
 */
cfStatus cf_ipc_lag_friction(cfIpcSystem *s, const double *q);

/**
 * One implicit Euler step: q_start = q, q_tilde = q + h u + h^2 g (free nodes), then lag_iters
 * times: lag the friction at the current iterate and minimize f by cf_ipc_newton() from it. Then
 * u = (q - q_start)/h and q is the minimizer. @p opt may be NULL (cf_ipc_options_default()).
 * @p stats (may be NULL) sums the solves and reports the final distance. The status of the last
 * failing solve (CF_MAX_ITER still moves the state).
 */
cfStatus cf_ipc_step(cfIpcSystem *s, const cfIpcOptions *opt, cfIpcStats *stats);

/** A minimizer of f for cf_ipc_step_lagged(): leaves its iterate in s->q (cf_ipc_newton() from s->q, say). */
typedef cfStatus (*cfIpcSolveFn)(void *ctx, cfIpcSystem *s, const cfIpcOptions *o, cfIpcStats *one);
/** cf_ipc_step()'s start: q_start = q and the inertial target q_tilde = q + h u + h^2 g (free nodes). */
void cf_ipc_step_begin(cfIpcSystem *s);
/**
 * cf_ipc_step()'s lagging loop, for steps that minimize over other unknowns too (the world's affine
 * bodies, sim/ipc_affine.c): after cf_ipc_step_begin(), max(lag_iters, 1) times lag the friction at
 * s->q and call @p solve; then u = (q - q_start)/h. Returns CF_NOT_IMPLEMENTED, CF_NO_MEMORY or
 * CF_BAD_INPUT of a lag or solve at once, else the status of the last failing solve, else CF_OK;
 * @p stats (may be NULL) sums the solves and reports the final distance.
 */
cfStatus cf_ipc_step_lagged(cfIpcSystem *s, const cfIpcOptions *o, cfIpcSolveFn solve, void *ctx, cfIpcStats *stats);
/** @} */

/* ==================================================================================== */
/** @name ch09.4 PSD projection and projected Newton (20 points)
 *  Some of its tests also call ch09.2, ch09.3 and ch09.5: write those first.
 *  @{ */

/**
 * @brief ch09.4: project the symmetric n x n matrix @p A (row-major, in place) to the nearest
 * positive semi-definite matrix: \f$A = V \mathrm{diag}(l) V^T\f$ (cf_dense_sym_eig()),
 * \f$l_i \leftarrow \max(l_i, 0)\f$, \f$A \leftarrow V \mathrm{diag}(l) V^T\f$. An already PSD matrix comes back unchanged (to rounding). CF_BAD_INPUT for
 * n < 1 or a non-finite entry, CF_NO_MEMORY.
 */
cfStatus cf_psd_project(int n, double *A);

/**
 * @brief ch09.4: minimize the incremental potential from @p q (3n values, intersection-free: every
 * pair at d > 0) by Algorithm 18 (or 17), in place.
 *
 * Loop: f, \f$g = \nabla f\f$ (cf_ipc_energy()); the direction: Newton: H with projected blocks,
 * \f$\Delta q = -H^{-1} g\f$ by Cholesky (cf_dense_cholesky()); gradient descent:
 * \f$\Delta q_i = -g_i / m_i\f$ (0 for fixed nodes). Stop with CF_OK when
 * \f$\|\Delta q\|_\infty / h \le\f$ opt->tol (IPC's criterion, a velocity: near the
 * minimum the decrease of f falls below its rounding long before |g| reaches a force tolerance).
 * Then q <- q + alpha dq with alpha from cf_ipc_line_search() (ch09.5); the contact set is
 * re-evaluated at the new iterate by the next cf_ipc_energy() (notes Algorithm 18: the old one;
 * see the errata). CF_MAX_ITER after opt->max_iter iterations, CF_STAGNATED when the line search
 * finds no decrease (alpha = 0), CF_BAD_INPUT when f(q) is not finite on entry. @p st (may be
 * NULL) gets iterations, halvings, CCD clamps, the final gradient norm and energy. @p opt may
 * be NULL: cf_ipc_options_default().
 */
cfStatus cf_ipc_newton(cfIpcSystem *s, double *q, const cfIpcOptions *opt, cfIpcStats *st);
/** @} */

/* ==================================================================================== */
/** @name ch09.5 CCD-filtered line search (15 points)
 *  Some of its tests also call ch09.2, ch09.3 and ch09.4: write those first.
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
 *  Some of its tests also call ch09.2, ch09.3, ch09.4 and ch09.5: write those first.
 *  @{ */

/**
 * @brief ch09.6: IPC's friction mollifier f1 (notes Eq.\ 296) and its potential f0 (from the IPC paper, Li et al.\ 2020, not one of the course's papers),
 * for \f$s \ge 0\f$ and \f$a = h \epsilon_v > 0\f$:
 * \f[ f_1(s) = -\frac{s^2}{a^2} + \frac{2s}{a}, \qquad f_1'(s) = -\frac{2s}{a^2} + \frac{2}{a}, \qquad
 *     f_0(s) = -\frac{s^3}{3a^2} + \frac{s^2}{a} + \frac{a}{3} \qquad (s < a), \f]
 * and \f$f_1 = 1\f$, \f$f_1' = 0\f$, \f$f_0 = s\f$ for \f$s \ge a\f$.
 * Returns f1; @p df1 and @p f0 may be NULL. f0' = f1, f1(0) = 0, f1(a) = 1, f1'(a) = 0.
 */
double cf_friction_f1(double s, double a, double *df1, double *f0);

/**
 * @brief ch09.6: the lagged friction potential of one pair and its derivatives in the 12
 * displacements dx = x - x^t of its nodes (notes Eq.\ 298):
 * \f[ u = (t_1 \cdot w,\ t_2 \cdot w), \quad w = \sum_i c_i\, \Delta x_i, \quad s = \|u\|, \quad D = \mu N f_0(s), \f]
 * \f[ \nabla_i D = \mu N c_i \frac{f_1(s)}{s} (t_1 u_1 + t_2 u_2), \qquad
 *     \nabla^2_{ij} D = \mu N c_i c_j\, T K T^T, \quad T = [t_1\ t_2], \quad
 *     K = \frac{f_1}{s} I + \frac{(f_1/s)'}{s}\, u u^T, \f]
 * with \f$(f_1/s)' = (f_1' s - f_1)/s^2\f$. At s = 0 use the limits \f$f_1/s = 2/a\f$,
 * \f$((f_1/s)'/s)\, u u^T = 0\f$.
 * K needs no projection with this f1: its eigenvalues are f1/s >= 0 across u and f1' >= 0 along u
 * (projecting the 2x2 to PSD would be a no-op here; the test checks it). Returns D; @p g (12),
 * @p H (144) may be NULL.
 */
double cf_ipc_pair_friction(const cfIpcFrictionPair *p, const double dx[12], double mu, double a, double g[12],
                            double H[144]);
/** @} */

/* ==================================================================================== */
/** @name ch09.7 Paper 003: fully implicit frictional dynamics with soft constraints (22 points)
 *
 * Larionov, Longva, Ascher, Bender, Pai (paper 003, arXiv 2211.10618). The unknown of a step is
 * the end velocity v (3 per node); every integrator here is a sequence of stages, each a root
 * finding problem of the one form
 * \f[ r(v) = M v - b - c\, f(q_a + c v, v) = 0, \qquad q = q_a + c v, \f]
 * with f(q, v) the total force: gravity, springs, the cubic penalty of every node against every
 * obstacle and its smoothed friction, whose normal force \f$\lambda(q)\f$ and tangent projector
 * P(q) are evaluated at the unknown end of the step (the paper's point: IPC freezes them at the
 * start). Stages (the stiffly accurate SDIRK2 has \f$\gamma = 1 - \sqrt{2}/2\f$):
 * \f[ \begin{array}{llll}
 *   \mathrm{BE} & q_a = q^n & b = M v^n & c = h \\
 *   \mathrm{TR} & q_a = q^n + \tfrac{h}{2} v^n & b = M v^n + \tfrac{h}{2} f(q^n, v^n) & c = h/2 \\
 *   \mathrm{BDF2} & q_a = (4 q^n - q^{n-1})/3 & b = M (4 v^n - v^{n-1})/3 & c = 2h/3 \\
 *   \mathrm{SDIRK2},\ 1 & q_a = q^n & b = M v^n & c = \gamma h \quad (v_1,\ q_1 = q^n + \gamma h v_1) \\
 *   \mathrm{SDIRK2},\ 2 & q_a = q^n + (1-\gamma) h v_1 & b = M v^n + (1-\gamma) h f(q_1, v_1) & c = \gamma h
 * \end{array} \f]
 * The Jacobian is \f$J = M - c\,(c K + D)\f$ with \f$K = \partial f/\partial q\f$,
 * \f$D = \partial f/\partial v\f$: symmetric for \f$\mu = 0\f$, not when sliding (friction's
 * \f$\lambda(q)\f$ and P(q)). An optional closed surface adds the volume change penalty of
 * section 3.4.
 *  @{ */

/**
 * @brief ch09.7: the cubic penalty of paper 003 (Eq.\ 2, re-derived from the paper's prose) and its
 * first two derivatives in the gap d:
 * \f[ b(d) = \frac{\kappa (\delta - d)^3}{\delta}, \qquad b'(d) = -\frac{3 \kappa (\delta - d)^2}{\delta}, \qquad
 *     b''(d) = \frac{6 \kappa (\delta - d)}{\delta} \qquad (d < \delta), \f]
 * and b = b' = b'' = 0 for \f$d \ge \delta\f$ (a C2 join). Finite for d <= 0: a penetrating start is
 * allowed. The normal force magnitude is lambda = -b'(d) >= 0. @p db, @p d2b may be NULL.
 *
 * Worked example: kappa = 2, delta = 0.1, d = 0: b = kappa delta^2 = 0.02, b' = -0.6, b'' = 12.
 */
double cf_cubic_penalty(double d, double delta, double kappa, double *db, double *d2b);

/**
 * @brief ch09.7: the adaptive stiffness bump (paper 003, section 4.4). After a step whose deepest
 * gap is @p d_min < 0, kappa is multiplied by
 * \f$b'(d_{min})/b'(\delta/2) = \big((\delta - d_{min})/(\delta/2)\big)^2\f$
 * (always > 4), so that the force Newton needed at \f$d_{min}\f$ is produced \f$\delta/2\f$ outside the surface;
 * the step is then repeated. Returns 1 for d_min >= 0 (kappa is never decreased).
 *
 * Worked example: d_min = -delta gives 16.
 */
double cf_implicit_bump(double d_min, double delta);

/**
 * @brief ch09.7: the sliding profile s(x) for a tangential speed x >= 0 and the stick-slip
 * parameter eps > 0 (m/s), and its derivative s'(x) (@p ds, may be NULL). Both profiles give
 * s(0) = 0, s' >= 0, 0 <= s <= 1 and s'(0) = 2/eps (quadratic) or 1/eps (rational).
 * The friction force of a contact is -mu lambda eta(u), eta(u) = s(|u|) u/|u| (0 at u = 0).
 */
double cf_slide_profile(cfSlideProfile p, double x, double eps, double *ds);

/**
 * A dual number re + du e with e^2 = 0: evaluating a function on x + p e gives f(x) + f'(x) p e,
 * forward-mode automatic differentiation (paper 003 uses it for matrix-free J p).
 */
typedef struct cfDual {
    double re; /**< the value */
    double du; /**< the derivative part (a directional derivative) */
} cfDual;

/** A constant (derivative part 0). */
static inline cfDual cf_dual(double re) { return (cfDual){re, 0.0}; }
/** a + b */
static inline cfDual cf_dual_add(cfDual a, cfDual b) { return (cfDual){a.re + b.re, a.du + b.du}; }
/** a - b */
static inline cfDual cf_dual_sub(cfDual a, cfDual b) { return (cfDual){a.re - b.re, a.du - b.du}; }
/** s a for a real s */
static inline cfDual cf_dual_scale(double s, cfDual a) { return (cfDual){s * a.re, s * a.du}; }
/** f(a) for a scalar function with value @p f and derivative @p df at a.re: (f, df a.du) (the chain rule) */
static inline cfDual cf_dual_lift(double f, double df, cfDual a) { return (cfDual){f, df * a.du}; }

/** @brief ch09.7: a b = (a.re b.re, a.du b.re + a.re b.du). */
cfDual cf_dual_mul(cfDual a, cfDual b);
/** @brief ch09.7: a / b (b.re != 0; IEEE results otherwise). */
cfDual cf_dual_div(cfDual a, cfDual b);
/** @brief ch09.7: sqrt(a) for a.re > 0 (the derivative part is 0 when a.du = 0, also at a.re = 0). */
cfDual cf_dual_sqrt(cfDual a);
/** @brief ch09.7: ln(a) for a.re > 0. */
cfDual cf_dual_log(cfDual a);
/** @brief ch09.7: a^p for a real exponent p and a.re > 0. */
cfDual cf_dual_pow(cfDual a, double p);

/**
 * @brief ch09.7: paper 003's volume change penalty (Eq.\ 20: the second-order work of compressing an
 * enclosed medium of isothermal compressibility beta from its rest volume V0 > 0):
 * \f[ W(V) = \frac{(V - V_0)^2}{2 \beta V_0}, \qquad W'(V) = \frac{V - V_0}{\beta V_0} \f]
 * (W' into @p dW, may be NULL), \f$\beta > 0\f$ (1/Pa). The pressure above ambient is
 * \f$p = -W'(V)\f$; the force on the nodes \f$f_V = -W'(V) \nabla V\f$. It is the expansion to
 * second order of the ideal gas's \f$p_0 V_0 [V/V_0 - 1 - \ln(V/V_0)]\f$ with
 * \f$\beta = 1/p_0\f$, and, unlike it, defined for any V.
 *
 * Worked example: V = 0.9, V0 = 1, beta = 0.5: W = 0.01, W' = -0.2.
 */
double cf_volume_penalty(double V, double V0, double beta, double *dW);

/**
 * @brief ch09.7: the volume enclosed by a closed triangle mesh with outward (counter-clockwise seen
 * from outside) triangles, \f$V = \sum_{(a, b, c)} x_a \cdot (x_b \times x_c) / 6\f$ over the triangles, and its gradient
 * @p grad (3n, overwritten; may be NULL): triangle (a, b, c) adds (x_b x x_c)/6 to node a,
 * (x_c x x_a)/6 to b and (x_a x x_b)/6 to c.
 *
 * Worked example: the unit cube's 12 outward triangles give V = 1.
 */
double cf_mesh_volume(int n, const double *q, int n_tri, const int (*tri)[3], double *grad);

/** An obstacle: a fixed smooth surface whose gap function d(x) the nodes are kept outside of. */
typedef enum cfImplicitObstacleKind {
    CF_IMPLICIT_PLANE = 0, /**< \f$d(x) = n \cdot (x - p)\f$, n a unit normal */
    CF_IMPLICIT_SPHERE,    /**< d(x) = |x - p| - radius (outside the ball), normal (x - p)/|x - p| */
} cfImplicitObstacleKind;

/** One obstacle (see cfImplicitObstacleKind). */
typedef struct cfImplicitObstacle {
    cfImplicitObstacleKind kind; /**< plane or sphere */
    cfVec3 p;                /**< a point of the plane, or the sphere's centre */
    cfVec3 n;                /**< the plane's unit normal (unused for a sphere) */
    double radius;           /**< the sphere's radius (m) */
} cfImplicitObstacle;

/**
 * Nodes (point masses, 3 coordinates each) with springs, against fixed obstacles, under the
 * cubic penalty and smoothed friction. Fill with cf_implicit_init() and cf_implicit_add_*(), free with
 * cf_implicit_free(). Fixed nodes keep v = 0 (springs may anchor to them).
 */
typedef struct cfImplicitSystem {
    int n;                  /**< nodes */
    double *q;              /**< 3n: positions q^n */
    double *v;              /**< 3n: velocities v^n */
    double *q_prev;         /**< 3n: q^{n-1} (BDF2's history) */
    double *v_prev;         /**< 3n: v^{n-1} */
    bool has_prev;          /**< q_prev, v_prev hold the previous step (set by cf_implicit_step()) */
    double *mass;           /**< n: masses (> 0; 1 for fixed nodes, unused) */
    bool *fixed;            /**< n: pinned nodes */
    int n_spring;           /**< springs */
    int (*spring)[2];       /**< springs' nodes */
    double *rest;           /**< per spring: rest length (m) */
    double *stiff;          /**< per spring: stiffness (N/m) */
    int n_obst;             /**< obstacles */
    cfImplicitObstacle *obst;   /**< obstacles */
    int n_tri;              /**< triangles of the closed surface of the volume penalty */
    int (*tri)[3];          /**< its outward triangles */
    double V0;              /**< its rest volume (m^3) */
    double beta;            /**< its compressibility (1/Pa); 0: no volume penalty */
    int cap_n;              /**< allocated nodes */
    int cap_spring;         /**< allocated springs */
    int cap_obst;           /**< allocated obstacles */
    int cap_tri;            /**< allocated triangles */
    cfVec3 gravity;         /**< m/s^2 */
    double h;               /**< time step (s) */
    double kappa;           /**< penalty stiffness (N/m; raised by the bump) */
    double delta;           /**< thickness tolerance: contacts act for gaps d < delta (m) */
    double mu;              /**< friction coefficient (>= 0) */
    double eps;             /**< stick-slip parameter of the profile (m/s) */
    cfSlideProfile profile; /**< s_a or s_b */
    bool lagged;            /**< IPC-style friction for comparison: lambda and P frozen at q^n */
} cfImplicitSystem;

/** One stage r(v) = M v - b - c f(qa + c v, v) (section comment). */
typedef struct cfImplicitStage {
    const double *qa;    /**< 3n: the position offset */
    const double *b;     /**< 3n: the momentum right-hand side (0 at fixed nodes) */
    double c;            /**< the weight of the implicit force (s) */
    const double *q_lag; /**< 3n or NULL: friction's lambda and P frozen at these positions (lagged) */
} cfImplicitStage;

/** How cf_implicit_newton() computes its direction. */
typedef enum cfImplicitLinear {
    CF_IMPLICIT_DIRECT = 0, /**< Algorithm 1: the analytic Jacobian, dense LU */
    CF_IMPLICIT_BICGSTAB,   /**< Algorithm 2: BiCGSTAB on dual-number J p, Eisenstat-Walker forcing */
    CF_IMPLICIT_LINEAR_COUNT /**< number of methods */
} cfImplicitLinear;

/** Options of cf_implicit_newton() and cf_implicit_step(). Start from cf_implicit_options_default(). */
typedef struct cfImplicitOptions {
    cfImplicitLinear linear; /**< direct or BiCGSTAB (default direct) */
    double tol;          /**< stop when |r|_inf <= tol (N s; default 1e-11) */
    int max_iter;        /**< Newton iterations per stage (default 50) */
    double c_armijo;     /**< sufficient decrease constant c (default 1e-4) */
    double rho;          /**< backtracking factor (default 0.5) */
    int max_backtracks;  /**< most backtracks of one line search (default 60) */
    double eta_max;      /**< Eisenstat-Walker: first and largest forcing term (default 0.1) */
    double ew_gamma;     /**< Eisenstat-Walker choice 2: eta = gamma (|r_k|/|r_k-1|)^alpha (default 0.9) */
    double ew_alpha;     /**< its exponent (default 2: Q-quadratic) */
    int max_linear;      /**< BiCGSTAB iterations per solve (default 1000) */
    int max_bumps;       /**< stiffness bumps per step (default 10) */
} cfImplicitOptions;

/** Statistics of cf_implicit_newton() (one stage) and cf_implicit_step() (sums over stages and repeats). */
typedef struct cfImplicitStats {
    int iterations;      /**< Newton iterations */
    int residuals;       /**< residual evaluations (line search included) */
    int linear_iters;    /**< BiCGSTAB iterations (each 2 J p products) */
    int backtracks;      /**< line-search reductions */
    int bumps;           /**< stiffness bumps (repeated steps) */
    double residual;     /**< final |r|_inf of the last stage */
    double d_min;        /**< smallest node-obstacle gap at the end (INFINITY without obstacles) */
    int n_hist;          /**< entries of hist */
    double hist[64];     /**< |r_k|_2 (the merit's norm) of the last stage's iterates (k = 0, 1, ...; the first 64) */
} cfImplicitStats;

/** direct, tol 1e-11, 50 iterations, c 1e-4, rho 0.5, 60 backtracks, eta_max 0.1, gamma 0.9, alpha 2, 1000 BiCGSTAB iterations, 10 bumps. */
cfImplicitOptions cf_implicit_options_default(void);
/**
 * An empty system: step @p h, penalty @p kappa and @p delta, no friction (mu 0), eps 1e-3 m/s,
 * the quadratic profile, gravity 0, implicit friction. CF_BAD_INPUT for h, kappa, delta not > 0.
 */
cfStatus cf_implicit_init(cfImplicitSystem *s, double h, double kappa, double delta);
/** Free and zero (safe on a zeroed struct). */
void cf_implicit_free(cfImplicitSystem *s);
/** Add a node at @p x with velocity @p v and mass @p m (ignored when fixed); its index, or -1 (m <= 0 for a free node, non-finite input, no memory). */
int cf_implicit_add_node(cfImplicitSystem *s, cfVec3 x, cfVec3 v, double m, bool fixed);
/** Add a spring of stiffness @p k >= 0 at its current length (> 0); its index or -1. */
int cf_implicit_add_spring(cfImplicitSystem *s, int a, int b, double k);
/** Add an obstacle (the plane's normal is normalized; a sphere needs radius > 0); its index or -1. */
int cf_implicit_add_obstacle(cfImplicitSystem *s, cfImplicitObstacle o);
/** Add an outward triangle of the volume penalty's closed surface; its index or -1. */
int cf_implicit_add_triangle(cfImplicitSystem *s, int a, int b, int c);
/** Turn the volume penalty on: V0 = the current enclosed volume (cf_mesh_volume()), beta > 0. CF_BAD_INPUT when beta <= 0 or V0 <= 0 (no or inward triangles). */
cfStatus cf_implicit_set_volume(cfImplicitSystem *s, double beta);
/** The gap of @p x to obstacle @p o and its unit normal (the gap's gradient; may be NULL). */
double cf_implicit_gap(const cfImplicitObstacle *o, cfVec3 x, cfVec3 *normal);
/** Smallest gap of a free node of @p q to an obstacle (INFINITY without obstacles). */
double cf_implicit_min_gap(const cfImplicitSystem *s, const double *q);
/** Kinetic energy 1/2 v^T M v of the free nodes. */
double cf_implicit_kinetic_energy(const cfImplicitSystem *s, const double *v);

/**
 * @brief ch09.7: the total force f(q, v) on every node, on dual numbers (3n each; f of fixed nodes
 * is 0): for a free node i with mass \f$m_i\f$
 * \f[ f_i = m_i g + \sum_{\mathrm{springs}\ (i, j)} k\, (L - L_0)\, \frac{e}{L}
 *       + \sum_{\mathrm{obstacles},\ d(x_i) < \delta} \big( \lambda\, n - \mu \lambda\, \eta(P v_i) \big),
 *   \qquad e = x_j - x_i,\ L = \|e\|, \f]
 * \f$\lambda = -b'(d)\f$ (cf_cubic_penalty() with s->kappa, s->delta), \f$n = \nabla d\f$,
 * \f$P = I - n n^T\f$, \f$\eta(w) = s(\|w\|)\, w/\|w\|\f$ (cf_slide_profile(); 0 at w = 0),
 * and with s->beta > 0 the volume force \f$-W'(V) \nabla V\f$ (cf_volume_penalty() with s->V0,
 * s->beta; V and \f$\nabla V\f$ as in cf_mesh_volume()) on every free node.
 *
 * Lagged friction: with @p q_lag (3n real, may be NULL) the friction term of node i and an
 * obstacle uses \f$d = d(x^{lag}_i)\f$, \f$\lambda = -b'(d)\f$, n and P all taken at q_lag, and
 * acts exactly when \f$d(x^{lag}_i) < \delta\f$ (the gate too is lagged: a node that reaches the
 * obstacle during the step gets no friction this step, as in IPC); the normal force is always
 * evaluated, and gated, at q. Without q_lag both are gated by \f$d(x_i) < \delta\f$.
 * Real functions of a dual x are lifted with cf_dual_lift(); \f$\|w\|\f$ is a cf_dual_sqrt() and
 * \f$\eta = (s(\|w\|)/\|w\|)\, w\f$ with the limit s'(0) at w = 0. Evaluating at v + p e
 * (q + c p e) gives f and its directional derivative at once.
 */
void cf_implicit_forces(const cfImplicitSystem *s, const cfDual *q, const cfDual *v, const double *q_lag, cfDual *f);

/**
 * @brief ch09.7: the force's Jacobians K = df/dq and D = df/dv (3n x 3n, row-major, overwritten)
 * at (q, v), analytically, with @p q_lag as in cf_implicit_forces(). Per free node i and obstacle
 * with d < delta, with w = P v_i, x = |w|, g(x) = s(x)/x (limit s'(0) at 0), E = dη/dw =
 * g I + (g'(x)/x) w w^T (the second term 0 at w = 0), dn/dx = (I - n n^T)/|x - p| for a sphere
 * (0 for a plane), b'' from cf_cubic_penalty():
 *   normal:   K_ii += n (-b'' n)^T + lambda dn/dx
 *   friction: D_ii += -mu lambda E P,
 *             K_ii += -mu [ eta (-b'' n)^T + lambda E dw/dx ],  dw/dx = -((n.v_i) I + n v_i^T) dn/dx
 * (with q_lag, friction adds only its D term, with lambda, n, P at q_lag). A spring (i, j) with
 * e = x_j - x_i adds Ks = k [(1 - L0/L) I + (L0/L) e e^T/L^2] to K_ij and K_ji and -Ks to K_ii, K_jj.
 * The volume force adds -(1/(beta V0)) [grad V grad V^T + (V - V0) Hess V] (the first term dense,
 * rank one), with Hess V's blocks of triangle (a, b, c): (a, b) -[x_c]/6, (a, c) [x_b]/6, (b, c) -[x_a]/6
 * and their transposes, [y] the cross-product matrix ([y] z = y x z).
 * Rows and columns of fixed nodes are 0 in D; K rows of fixed nodes are 0. CF_NO_MEMORY.
 * @p q_lag gates friction as in cf_implicit_forces() (by the gap at q_lag).
 */
cfStatus cf_implicit_force_jacobian(const cfImplicitSystem *s, const double *q, const double *v, const double *q_lag, double *K,
                            double *D);

/** The stage residual r(v) on dual numbers (provided): r_i = m_i v_i - b_i - c f_i(qa + c v, v), r_i = v_i at fixed nodes. */
void cf_implicit_residual_dual(const cfImplicitSystem *s, const cfImplicitStage *st, const cfDual *v, cfDual *r);
/** The stage residual at real @p v (provided; cf_implicit_residual_dual() with zero derivative parts). */
void cf_implicit_residual(const cfImplicitSystem *s, const cfImplicitStage *st, const double *v, double *r);
/** J p by one dual evaluation at v + p e (provided): the matrix-free product of the inexact Newton. */
void cf_implicit_jvp(const cfImplicitSystem *s, const cfImplicitStage *st, const double *v, const double *p, double *Jp);
/** The stage Jacobian J = M - c (c K + D) (provided, 3n x 3n row-major; identity rows at fixed nodes). CF_NO_MEMORY. */
cfStatus cf_implicit_jacobian(const cfImplicitSystem *s, const cfImplicitStage *st, const double *v, double *J);

/**
 * @brief ch09.7: BiCGSTAB (van der Vorst 1992) for a square, possibly non-symmetric A given by
 * its product @p A (ctx @p ctx), from the guess in @p x: iterate until |b - A x|_2 <= tol |b|_2
 * (x = 0 when b = 0). Returns CF_OK, CF_MAX_ITER after @p max_iter iterations (x the last iterate),
 * CF_SINGULAR (a breakdown) when rho or (r0, v) vanishes before convergence, CF_NO_MEMORY; @p iters (may be NULL)
 * gets the iterations (each two products).
 */
cfStatus cf_bicgstab(int n, cfMatVec A, void *ctx, const double *b, double *x, double tol, int max_iter, int *iters);

/**
 * @brief ch09.7: solve the stage r(v) = 0 (cf_implicit_residual()) from the guess @p v (3n, in place) by
 * damped Newton with backtracking on the merit 1/2 |r|^2. @p opt may be NULL: then
 * cf_implicit_options_default() (the tests call it so).
 *
 * Loop: stop with CF_OK when |r|_inf <= opt->tol. Direction: direct: J p = -r with
 * cf_implicit_jacobian() and cf_dense_solve(); BiCGSTAB: |J p + r| <= eta_k |r| by cf_bicgstab() on
 * cf_implicit_jvp() with eta_0 = eta_max, eta_k = min(eta_max, max(gamma (|r_k|/|r_k-1|)^alpha,
 * gamma eta_{k-1}^alpha when that exceeds 0.1, 0.5 tol/|r_k|)) (Eisenstat-Walker choice 2 with
 * its safeguards; 2-norms). Line search: alpha = 1, 1 rho, rho^2, ... until
 * |r(v + alpha p)| <= (1 - c alpha (1 - eta)) |r| (eta = 0 for direct: the Armijo condition on
 * 1/2 |r|^2 to first order), at most opt->max_backtracks reductions; then CF_STAGNATED (v unchanged
 * by that iteration). CF_MAX_ITER after opt->max_iter iterations, CF_SINGULAR from the LU,
 * CF_DIVERGED for a non-finite residual, CF_NO_MEMORY. @p st (may be NULL) is overwritten with
 * the stage's counts, its final |r|_inf and the |r_k|_2 history.
 */
cfStatus cf_implicit_newton(const cfImplicitSystem *s, const cfImplicitStage *stage, double *v, const cfImplicitOptions *opt,
                        cfImplicitStats *st);

/**
 * @brief ch09.7: advance the system one step of size s->h with integrator @p integ: the stages of
 * the section comment solved by cf_implicit_newton() from the guess v^n, then q^{n+1}, v^{n+1}
 * (SDIRK2: the second stage's; BDF2 without history: one BE step), q_prev, v_prev <- q^n, v^n and
 * has_prev. If the smallest gap at q^{n+1} (cf_implicit_min_gap()) is negative, kappa is multiplied by
 * cf_implicit_bump() and the step is repeated from q^n, v^n, at most opt->max_bumps times. With
 * s->lagged, friction's lambda and P are those of q^n. On a failing stage (its status is returned)
 * the state is left at q^n, v^n. @p st (may be NULL) sums the stages' counts; d_min is the final
 * gap. @p opt may be NULL: cf_implicit_options_default() (the tests call it so). This is the one
 * entry point a world pipeline needs.
 */
cfStatus cf_implicit_step(cfImplicitSystem *s, cfImplicitIntegrator integ, const cfImplicitOptions *opt, cfImplicitStats *st);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH09_H */
