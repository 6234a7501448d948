/* SPDX-License-Identifier: MIT */
/**
 * @file cf_soft.h
 * @brief Soft bodies: nodes with lumped masses, springs and linear tetrahedra, their elastic
 *        forces and stiffness matrices, Rayleigh damping.
 *
 * Generalized coordinates are the stacked node positions q = (x_0, x_1, ...) in R^{3N} and
 * velocities u = (v_0, ...). Node i owns entries 3i, 3i+1, 3i+2 of every stacked vector.
 *
 * Elastic models (f_el = -dE/dq, K = -d f_el/dq):
 * - spring (i, j): E = k/2 (l - L)^2 with l = |x_j - x_i|, rest length L;
 * - linear tetrahedron (small strain): E = V (mu eps:eps + lambda/2 tr(eps)^2) with the strain
 *   eps = sym(F) - I of the deformation gradient F = D_s D_m^-1; its K is constant.
 * Damping is Rayleigh: B = alpha M + beta K.
 */
#ifndef CF_SOFT_H
#define CF_SOFT_H

#include "cf/cf_base.h"
#include "cf/cf_linalg.h"
#include "cf/cf_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A spring between nodes i and j. */
typedef struct cfSpring {
    int i;         /**< first node index */
    int j;         /**< second node index */
    double rest;   /**< rest length L (m) */
    double k;      /**< stiffness (N/m) */
} cfSpring;

/** A linear tetrahedral element. */
typedef struct cfTet {
    int n[4];            /**< node indices, positively oriented at rest */
    double rest_volume;  /**< V (m^3) */
    cfMat3 Dm_inv;       /**< inverse of the rest edge matrix [x1-x0, x2-x0, x3-x0] */
} cfTet;

/** A soft body. Create with cf_soft_init(), add elements, then cf_soft_finalize(). */
typedef struct cfSoftBody {
    char name[32];          /**< label */
    int n_nodes;            /**< N */
    cfVec3 *x;              /**< positions (m), N */
    cfVec3 *v;              /**< velocities (m/s), N */
    cfVec3 *x_rest;         /**< rest positions (m), N */
    double *mass;           /**< lumped node masses (kg), N; 0 allowed only for fixed nodes */
    bool *fixed;            /**< pinned nodes never move, N */
    int n_springs;          /**< springs in use */
    int cap_springs;        /**< springs allocated */
    cfSpring *springs;      /**< springs */
    int n_tets;             /**< tetrahedra in use */
    int cap_tets;           /**< tetrahedra allocated */
    cfTet *tets;            /**< tetrahedra */
    double young;           /**< Young's modulus E (Pa) of the tetrahedra */
    double poisson;         /**< Poisson ratio nu in [0, 0.5) */
    double density;         /**< kg/m^3, used by cf_soft_finalize() to lump tet masses */
    double damping_alpha;   /**< Rayleigh mass coefficient alpha (1/s) */
    double damping_beta;    /**< Rayleigh stiffness coefficient beta (s) */
    double mu;              /**< friction coefficient against other bodies */
    int n_tris;             /**< surface triangles in use */
    int cap_tris;           /**< surface triangles allocated */
    int (*tris)[3];         /**< surface triangles for drawing and contact (outward CCW) */
    /* history for two-step methods (BDF2); valid when has_prev */
    cfVec3 *x_prev;         /**< positions one step ago, N */
    cfVec3 *v_prev;         /**< velocities one step ago, N */
    bool has_prev;          /**< x_prev/v_prev hold the previous step */
} cfSoftBody;

/** Allocate @p n_nodes nodes at the origin, unit mass, not fixed. */
cfStatus cf_soft_init(cfSoftBody *s, int n_nodes);
/** Free everything and zero the struct (safe on a zeroed struct). */
void cf_soft_free(cfSoftBody *s);
/** Deep copy @p src into @p dst (dst is overwritten, not freed). */
cfStatus cf_soft_copy(cfSoftBody *dst, const cfSoftBody *src);
/**
 * Add a spring between nodes i != j with stiffness k >= 0; rest length = current distance when
 * rest < 0. CF_BAD_INPUT for bad indices, k < 0, or a zero rest length.
 */
cfStatus cf_soft_add_spring(cfSoftBody *s, int i, int j, double k, double rest, cfError *err);
/**
 * Add a tetrahedron on four distinct nodes, using the current positions as rest shape. A tet
 * with negative orientation is reordered; one with volume below 1e-14 of its edge length cubed
 * is degenerate and rejected with CF_BAD_INPUT.
 */
cfStatus cf_soft_add_tet(cfSoftBody *s, const int n[4], cfError *err);
/** Add a surface triangle (for drawing and contact). */
cfStatus cf_soft_add_tri(cfSoftBody *s, int a, int b, int c, cfError *err);
/**
 * Finish construction: copy x into x_rest; when tetrahedra exist and density > 0, set node
 * masses by lumping (each tet gives density*V/4 to each of its nodes; nodes in no tet keep their
 * mass). Validates: every free node has mass > 0, E > 0 and 0 <= nu < 0.5 when tets exist.
 */
cfStatus cf_soft_finalize(cfSoftBody *s, cfError *err);
/** Lamé parameters from (E, nu): mu = E / (2(1+nu)), lambda = E nu / ((1+nu)(1-2nu)). */
void cf_lame(double young, double poisson, double *lambda, double *mu);

/**
 * Elastic plus gravity forces at positions @p x (N nodes): f[3i..3i+2] = f_el,i + m_i g.
 * Damping is not included (it is implicit in the integrators). @p f has 3N entries.
 */
void cf_soft_forces(const cfSoftBody *s, const cfVec3 *x, cfVec3 gravity, double *f);
/** Elastic potential energy at positions @p x (J). */
double cf_soft_elastic_energy(const cfSoftBody *s, const cfVec3 *x);
/**
 * Append the stiffness K = -d f_el / dq at positions @p x to @p K (3N x 3N triplets).
 * For springs the geometric term (1 - L/l) is clamped at 0 so that K stays positive
 * semi-definite in compression (the usual choice for implicit cloth and mass-spring models).
 */
cfStatus cf_soft_stiffness(const cfSoftBody *s, const cfVec3 *x, cfTriplets *K);
/** Total kinetic energy 1/2 sum m_i |v_i|^2 (J). */
double cf_soft_kinetic_energy(const cfSoftBody *s);
/** Centre of mass and total linear momentum (free and fixed nodes alike). */
void cf_soft_com(const cfSoftBody *s, cfVec3 *com, cfVec3 *momentum);
/** Number of free (non-fixed) nodes. */
int cf_soft_free_nodes(const cfSoftBody *s);
/** Degrees of freedom of fixed nodes (3 per node) into @p dofs (capacity 3N); returns count. */
int cf_soft_fixed_dofs(const cfSoftBody *s, int *dofs);

/**
 * Build a box of tetrahedra: nx*ny*nz cells of size @p size / cells, each cut into 5 tets (with
 * alternating orientation so faces match), origin at the min corner @p origin. Node masses come
 * from @p density. Surface triangles are added. Nodes with x == origin.x are fixed when @p fix_min_x.
 */
cfStatus cf_soft_make_tet_box(cfSoftBody *s, cfVec3 origin, cfVec3 size, int nx, int ny, int nz,
                              double density, double young, double poisson, bool fix_min_x,
                              cfError *err);
/**
 * Build a chain of @p n_nodes nodes from @p a to @p b joined by springs of stiffness @p k, node
 * mass @p node_mass; the first node is fixed when @p fix_first.
 */
cfStatus cf_soft_make_chain(cfSoftBody *s, cfVec3 a, cfVec3 b, int n_nodes, double k, double node_mass,
                            bool fix_first, cfError *err);

#ifdef __cplusplus
}
#endif
#endif /* CF_SOFT_H */
