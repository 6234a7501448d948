/* SPDX-License-Identifier: MIT */
/**
 * @file cf_soft.h
 * @brief Soft bodies: nodes with lumped masses, springs and linear tetrahedra, their elastic
 *        forces and stiffness matrices, Rayleigh damping.
 *
 * Generalized coordinates are the stacked node positions \f$q = (x_0, x_1, \dots) \in \mathbb{R}^{3N}\f$
 * and velocities \f$u = (v_0, \dots)\f$. Node i owns entries 3i, 3i+1, 3i+2 of every stacked vector.
 *
 * Elastic models (\f$f_{el} = -\partial E/\partial q\f$, \f$K = -\partial f_{el}/\partial q\f$):
 * - spring (i, j): \f$E = \tfrac{k}{2} (l - L)^2\f$ with \f$l = \|x_j - x_i\|\f$, rest length L;
 * - linear tetrahedron (small strain):
 *   \f$E = V \big(\mu\, \varepsilon : \varepsilon + \tfrac{\lambda}{2} \mathrm{tr}(\varepsilon)^2\big)\f$
 *   with the strain \f$\varepsilon = \mathrm{sym}(F) - I\f$ of the deformation gradient
 *   \f$F = D_s D_m^{-1}\f$; its K is constant;
 * - co-rotational tetrahedron (cfSoftBody::corotational; Mueller and Gross 2004): the linear
 *   element seen in the frame of the rotation R of F's polar decomposition F = R S: node forces
 *   \f$f = -R K_e (R^T x - X)\f$, stiffness \f$R K_e R^T\f$ with R held at its value (the warped stiffness:
 *   the derivative of R is neglected, as in paper 004). A rigid motion of the rest shape gives no
 *   force, so a tumbling body has no ghost forces, which the small-strain model has.
 * Damping is Rayleigh: \f$B = \alpha M + \beta K\f$. Mass is lumped (cfSoftBody::mass) or consistent
 * (cfSoftBody::consistent_mass, cf_soft_mass_matrix()).
 *
 * A soft body without tetrahedra but with triangles is a sheet (cloth): its triangles are
 * two-sided for contact and cfSoftBody::thickness keeps other surfaces away from it.
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
    bool corotational;      /**< tetrahedra use the co-rotational formulation (default false: small strain) */
    bool consistent_mass;   /**< cf_soft_mass_matrix() is the consistent mass of the tetrahedra (default false: lumped) */
    double thickness;       /**< m (>= 0): contacts with this body keep this distance (half of it from each side of a sheet) */
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
/** Lamé parameters from \f$(E, \nu)\f$: \f$\mu = \frac{E}{2(1+\nu)}\f$, \f$\lambda = \frac{E \nu}{(1+\nu)(1-2\nu)}\f$. */
void cf_lame(double young, double poisson, double *lambda, double *mu);

/**
 * Elastic plus gravity forces at positions @p x (N nodes): f[3i..3i+2] = f_el,i + m_i g.
 * Damping is not included (it is implicit in the integrators). @p f has 3N entries.
 */
void cf_soft_forces(const cfSoftBody *s, const cfVec3 *x, cfVec3 gravity, double *f);
/**
 * As cf_soft_forces() with the rotations of a co-rotational body's tetrahedra given (@p R: one
 * per tet, NULL: computed at @p x by cf_soft_tet_rotation(); ignored by other bodies). With R held
 * fixed the force is linear in x and cf_soft_stiffness() is exactly minus its derivative, which is
 * what a finite-difference test checks.
 */
void cf_soft_forces_rotated(const cfSoftBody *s, const cfVec3 *x, const cfMat3 *R, cfVec3 gravity, double *f);
/**
 * The rotation R of the polar decomposition F = R S (R orthogonal with det R = +1, S symmetric),
 * by the eigen-decomposition of F^T F (cyclic Jacobi). For an inverted F (det F < 0) R is the
 * rotation closest to F (the smallest singular direction flipped); a zero F gives I.
 */
cfMat3 cf_soft_polar_rotation(cfMat3 F);
/** Rotation of tetrahedron @p e at positions @p x: cf_soft_polar_rotation(D_s D_m^-1) for a co-rotational body, I otherwise. */
cfMat3 cf_soft_tet_rotation(const cfSoftBody *s, int e, const cfVec3 *x);
/**
 * Append the mass matrix M (3N x 3N triplets): the lumped masses on the diagonal, or with
 * consistent_mass the consistent mass of every tetrahedron, density V / 20 (1 + delta_ab) I_3
 * between its nodes a and b, plus the lumped mass of nodes in no tetrahedron. Both have the same
 * row sums (the lumped masses), so gravity m_i g is the same. Fixed nodes are included (the
 * integrator pins them).
 */
cfStatus cf_soft_mass_matrix(const cfSoftBody *s, cfTriplets *M);
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
 * Build a sheet of cloth: (nu + 1) x (nv + 1) nodes at origin + i/nu du + j/nv dv, each of mass
 * @p mass / nodes; springs along the grid lines (stretch, @p k_stretch), along both diagonals of
 * every cell (shear, @p k_shear) and between nodes two apart on a grid line (bending, @p k_bend; 0
 * leaves them out); two triangles per cell, counter-clockwise seen from du x dv. A sheet: no
 * tetrahedra, contacts two-sided, s->thickness = @p thickness. CF_BAD_INPUT for counts outside
 * [1, 1000], parallel or zero du, dv, non-positive mass, negative stiffness or thickness.
 */
cfStatus cf_soft_make_cloth(cfSoftBody *s, cfVec3 origin, cfVec3 du, cfVec3 dv, int nu, int nv, double mass,
                            double k_stretch, double k_shear, double k_bend, double thickness, cfError *err);
/**
 * Build a tetrahedralized ball: the cells of a grid of @p cells^3 cubes over the ball's bounding
 * cube whose centres lie inside the ball, five tetrahedra each (as cf_soft_make_tet_box()), nodes
 * shared, the boundary faces as surface triangles (cf_soft_build_surface()). CF_BAD_INPUT for
 * cells outside [2, 60], a radius <= 0 and the material checks of cf_soft_finalize().
 */
cfStatus cf_soft_make_tet_ball(cfSoftBody *s, cfVec3 center, double radius, int cells, double density, double young,
                               double poisson, cfError *err);
/**
 * Replace the surface triangles by the boundary of the tetrahedra: every face that belongs to one
 * tetrahedron only, ordered counter-clockwise seen from outside. CF_BAD_INPUT when the body has no
 * tetrahedra or a face is shared by more than two (a non-manifold mesh).
 */
cfStatus cf_soft_build_surface(cfSoftBody *s, cfError *err);
/**
 * Read a tetrahedral mesh in TetGen's text format: @p node_path ("<points> 3 <attributes>
 * <markers>", then "<index> <x> <y> <z> [attributes] [marker]" per point) and @p ele_path
 * ("<tets> 4 <attributes>", then "<index> <n0> <n1> <n2> <n3> [attributes]"); '#' starts a
 * comment, indices start at 0 or 1 (the first point's index says which). Positions are scaled by
 * @p scale and moved by @p offset; masses come from @p density, the surface from
 * cf_soft_build_surface(). Every error names the file and line: `mesh.ele:7: node index 12 out of
 * range [1, 10]`; CF_IO_ERROR for a file that cannot be read, CF_BAD_INPUT otherwise: a file that is
 * not a regular text file of at most #CF_FILE_MAX_BYTES (cf_file_open(): a device, FIFO or directory
 * never blocks the reader), a line longer than 4095 characters, counts outside [1, 1e7], and
 * points plus tetrahedra above @p max_elements (> 0; 0: no limit but the format's), which both
 * headers are checked against before anything is allocated.
 */
cfStatus cf_soft_read_tetgen(cfSoftBody *s, const char *node_path, const char *ele_path, double scale, cfVec3 offset,
                             double density, double young, double poisson, double max_elements, cfError *err);
/**
 * Build a chain of @p n_nodes nodes from @p a to @p b joined by springs of stiffness @p k, node
 * mass @p node_mass; the first node is fixed when @p fix_first.
 */
cfStatus cf_soft_make_chain(cfSoftBody *s, cfVec3 a, cfVec3 b, int n_nodes, double k, double node_mass,
                            bool fix_first, cfError *err);

/* Two choices of chapter 9's implicit soft bodies that the world's settings name (cfWorldDef::implicit),
 * here so that the world's header need not include a chapter's. */

/** The pre-sliding transition s(x) of paper 003's smoothed friction (Eq.\ 14-15). */
typedef enum cfSlideProfile {
    CF_SLIDE_QUADRATIC = 0, /**< s_a(x) = 2x/eps - x^2/eps^2 for x < eps, 1 beyond (IPC's f1; C1) */
    CF_SLIDE_RATIONAL,      /**< s_b(x) = x/(x + eps) (smooth for x >= 0, never exactly 1) */
    CF_SLIDE_PROFILE_COUNT  /**< number of profiles */
} cfSlideProfile;

/** Which time integrator cf_implicit_step() uses (the stages in the section comment). */
typedef enum cfImplicitIntegrator {
    CF_IMPLICIT_BE = 0,          /**< backward Euler: first order, L-stable */
    CF_IMPLICIT_TR,              /**< trapezoidal rule (implicit Newmark beta 1/4, gamma 1/2): second order, not L-stable */
    CF_IMPLICIT_BDF2,            /**< BDF2 (its first step is BE): second order, L-stable */
    CF_IMPLICIT_SDIRK2,          /**< 2-stage stiffly accurate SDIRK: second order, L-stable */
    CF_IMPLICIT_INTEGRATOR_COUNT /**< number of integrators */
} cfImplicitIntegrator;

#ifdef __cplusplus
}
#endif

#endif /* CF_SOFT_H */
