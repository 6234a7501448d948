/* SPDX-License-Identifier: MIT */
/**
 * @file cf_geometry.h
 * @brief Geometry for contact generation (chapter 3): poses, oriented boxes, AABBs, box
 *        features, segment closest points, manifold reduction, feature ids, triangle meshes,
 *        signed distance functions and the grid SDF container.
 *
 * Everything here is complete library code; the chapter-3 exercises (cf_ch03.h) build on it.
 * Conventions used by every contact routine of chapter 3 (docs/conventions.md):
 * - the normal n points from body A to body B and has unit length;
 * - the gap phi is > 0 when separated, < 0 when penetrating;
 * - the contact point p is the midpoint of the two surface points that realise phi:
 *   p_A = p - phi/2 n lies on the surface of A, p_B = p + phi/2 n on the surface of B, and
 *   p_B - p_A = phi n. Swapping A and B therefore flips n and keeps p and phi.
 */
#ifndef CF_GEOMETRY_H
#define CF_GEOMETRY_H

#include <stdint.h>

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_contact.h"
#include "cf/cf_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/** @name Poses
 *  @{ */

/** A rigid placement: world = R body + x. The columns of R are the body axes in the world. */
typedef struct cfPose {
    cfVec3 x;  /**< origin of the body frame, world (m) */
    cfMat3 R;  /**< rotation body -> world */
} cfPose;

/** The identity pose. */
cfPose cf_pose_identity(void);
/** Pose from a position and a unit quaternion. */
cfPose cf_pose_make(cfVec3 x, cfQuat q);
/** Pose of a rigid body (x, R(q)). */
cfPose cf_pose_of_body(const cfRigidBody *b);
/** Body point to world: R v + x. */
cfVec3 cf_pose_apply(cfPose P, cfVec3 v);
/** World point to body: R^T (v - x). */
cfVec3 cf_pose_inv_apply(cfPose P, cfVec3 v);
/** Composition P Q (first Q, then P): x = P.R Q.x + P.x, R = P.R Q.R. */
cfPose cf_pose_mul(cfPose P, cfPose Q);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Oriented boxes and their features
 *
 * Numbering (used in feature ids and by the tests):
 * - vertex k in 0..7: local position (s0 h.x, s1 h.y, s2 h.z) with s_i = +1 when bit i of k
 *   is set, else -1;
 * - face f in 0..5: axis f/2, outward normal +axis when f is even, -axis when odd;
 * - edge e in 0..11: parallel to axis i = e/4; bits 0 and 1 of e%4 give the signs (set: +) of
 *   the two other axes in increasing order.
 *  @{ */

/** An oriented box: centre c, rotation R (columns = box axes, world), half extents h > 0. */
typedef struct cfObb {
    cfVec3 c;  /**< centre, world (m) */
    cfMat3 R;  /**< rotation box -> world */
    cfVec3 h;  /**< half extents (m) */
} cfObb;

/** Box of a body with a CF_SHAPE_BOX shape (centre x, R(q), half extents). */
cfObb cf_obb_of_body(const cfRigidBody *b);
/** End points of the core segment of a body with a CF_SHAPE_CAPSULE shape: x -+ R(q) (0, 0, half_height). */
void cf_capsule_segment(const cfRigidBody *b, cfVec3 *p0, cfVec3 *p1);
/** Box from centre, unit quaternion and half extents. */
cfObb cf_obb_make(cfVec3 c, cfQuat q, cfVec3 h);
/** World position of vertex @p k (0..7). */
cfVec3 cf_obb_vertex(const cfObb *b, int k);
/** World end points of edge @p e (0..11), from the -axis end to the +axis end. */
void cf_obb_edge(const cfObb *b, int e, cfVec3 *p0, cfVec3 *p1);
/** Unit outward world normal of face @p f (0..5). */
cfVec3 cf_obb_face_normal(const cfObb *b, int f);
/** Half width of the projection of the box on the unit axis @p l: \f$\sum_i h_i |a_i \cdot l|\f$ (\f$a_i\f$ the box axes). */
double cf_obb_project_radius(const cfObb *b, cfVec3 l);
/** True when the world point @p p is inside the box or on its surface (within @p tol). */
bool cf_obb_contains(const cfObb *b, cfVec3 p, double tol);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Axis-aligned bounding boxes
 *  @{ */

/** An axis-aligned box [lo, hi] (lo <= hi componentwise for a non-empty box). */
typedef struct cfAabb {
    cfVec3 lo; /**< minimum corner */
    cfVec3 hi; /**< maximum corner */
} cfAabb;

/** The empty box (lo = +inf, hi = -inf): the identity of cf_aabb_union(). */
cfAabb cf_aabb_empty(void);
/** Smallest box holding @p a and @p b. */
cfAabb cf_aabb_union(cfAabb a, cfAabb b);
/** Smallest box holding @p a and the point @p p. */
cfAabb cf_aabb_add_point(cfAabb a, cfVec3 p);
/** Box grown by @p margin on every side. */
cfAabb cf_aabb_inflate(cfAabb a, double margin);
/** True when the closed boxes intersect (touching counts). */
bool cf_aabb_overlap(cfAabb a, cfAabb b);
/** Tight AABB of an oriented box. */
cfAabb cf_aabb_of_obb(const cfObb *b);
/**
 * AABB of a body's shape at its pose. Planes are unbounded: the result has infinite
 * components (callers treat planes separately, see cf_detect_world()).
 */
cfAabb cf_aabb_of_body(const cfRigidBody *b);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Candidate pairs (broad phase output)
 *  @{ */

/** A pair of indices, a < b. */
typedef struct cfPair {
    int a; /**< lower index */
    int b; /**< higher index */
} cfPair;

/** A growable array of pairs. Zero-initialize before first use. */
typedef struct cfPairList {
    int count;      /**< pairs in use */
    int cap;        /**< allocated */
    cfPair *items;  /**< the pairs */
} cfPairList;

/** Append (a, b) (CF_NO_MEMORY on failure). */
cfStatus cf_pairs_push(cfPairList *list, int a, int b);
/** Free and zero. */
void cf_pairs_free(cfPairList *list);
/** Sort by (a, b). */
void cf_pairs_sort(cfPairList *list);
/**
 * Reference broad phase: test all n (n - 1)/2 pairs with cf_aabb_overlap(); overlapping pairs
 * (a < b) in lexicographic order replace the contents of @p pairs. Adds the number of tests
 * to *@p tests (may be NULL). CF_NO_MEMORY on allocation failure.
 */
cfStatus cf_broadphase_all_pairs(const cfAabb *boxes, int n, cfPairList *pairs, long *tests);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Spatial hash (broad phase of many small boxes: soft surfaces, self-collision)
 *  A uniform grid of cubic cells of side cfSpatialHash::cell, hashed into buckets: a box is
 *  entered in every cell it overlaps, a query visits the cells of its box. Boxes that cover more
 *  than 4096 cells (a huge or unbounded box) are kept in a list every query checks. Not for
 *  concurrent use (a query writes the hash's scratch).
 *  @{ */

/** A spatial hash over n boxes (build with cf_hash_build(), free with cf_hash_free()). */
typedef struct cfSpatialHash {
    double cell;     /**< cell side (m) */
    int n_items;     /**< boxes entered */
    int n_buckets;   /**< buckets (a power of two) */
    int *start;      /**< n_buckets + 1: the entries of bucket k are entry[start[k]] to entry[start[k + 1] - 1] */
    int *entry;      /**< box indices, one per (box, cell) */
    int *big;        /**< boxes covering too many cells, checked by every query */
    int n_big;       /**< their number */
    cfAabb *boxes;   /**< a copy of the boxes */
    int *mark;       /**< per box: the query that saw it last (scratch) */
    int stamp;       /**< the current query */
    int *found;      /**< the last query's result (scratch) */
    int cap_found;   /**< its capacity */
} cfSpatialHash;

/**
 * Enter @p n boxes (finite or with infinite components) into a hash with cells of side @p cell
 * (> 0; about the size of a typical box). Allocates @p h. CF_BAD_INPUT for a bad cell or NaN
 * components, CF_NO_MEMORY.
 */
cfStatus cf_hash_build(cfSpatialHash *h, const cfAabb *boxes, int n, double cell);
/**
 * The boxes that overlap @p box (cf_aabb_overlap()), each once, in ascending index order: returns
 * their number and points @p items at them (valid until the next query); -1 when out of memory.
 */
int cf_hash_query(cfSpatialHash *h, cfAabb box, const int **items);
/** Free and zero (safe on a zeroed struct). */
void cf_hash_free(cfSpatialHash *h);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Segments
 *  @{ */

/**
 * Closest points of the segments [p0, p1] and [q0, q1]: writes the parameters s, t in [0, 1]
 * of the points p0 + s (p1 - p0) and q0 + t (q1 - q0) and returns the squared distance.
 * Degenerate segments (points) and parallel segments are handled (the point of the
 * parallel overlap closest to the middle of the first segment's projection is chosen);
 * never produces NaN for finite input. Either output pointer may be NULL.
 */
double cf_segment_closest(cfVec3 p0, cfVec3 p1, cfVec3 q0, cfVec3 q1, double *s, double *t);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Feature ids
 *
 * A contact's feature id names the pair of features that produced it, so a contact found
 * again in the next frame keeps its id (warm starting, chapter 5) and duplicates can be
 * removed without comparing floating-point positions. 4 bits of type, 28 bits of payload.
 *  @{ */

/** Feature types (high 4 bits of cfContact::feature). */
typedef enum cfFeatureType {
    CF_FEAT_NONE = 0,
    CF_FEAT_SINGLE = 1,     /**< the only contact of a smooth pair (sphere-sphere, sphere-plane, sphere-box) */
    CF_FEAT_FACE_A = 2,     /**< box-box face contact, reference face on A: ref<<9 | inc<<6 | clip tag */
    CF_FEAT_FACE_B = 3,     /**< box-box face contact, reference face on B: ref<<9 | inc<<6 | clip tag */
    CF_FEAT_EDGE_EDGE = 4,  /**< box-box edge-edge: edgeA<<4 | edgeB */
    CF_FEAT_VERTEX = 5,     /**< box vertex against a plane: vertex index */
    CF_FEAT_SDF_VERTEX = 6, /**< mesh vertex against an SDF: vertex index */
    CF_FEAT_SDF_FACE = 7,   /**< interior of a mesh triangle against an SDF: triangle index */
    CF_FEAT_SDF_EDGE = 8,   /**< mesh edge against an SDF: min vertex<<14 | max vertex */
    CF_FEAT_CAPSULE = 9,    /**< capsule contacts of cf_detect_pair(): 0, 1 end points, 2 closest point, 4, 5 end points of B */
    CF_FEAT_SOFT_NODE = 10, /**< a soft body's node against a rigid shape: node index */
    CF_FEAT_SOFT_FACE = 11, /**< a point (rigid box corner or soft node) against a soft surface triangle: a hash of triangle and point (a collision only mixes up one warm start) */
    CF_FEAT_SOFT_EDGE = 12, /**< an edge of a soft surface against another: a hash of the two edges' nodes */
    CF_FEAT_TYPE_COUNT      /**< number of feature types */
} cfFeatureType;

/** Pack a feature id. */
static inline uint32_t cf_feature(cfFeatureType type, uint32_t payload)
{
    return ((uint32_t)type << 28) | (payload & 0x0fffffffu);
}
/** Type of a feature id. */
static inline cfFeatureType cf_feature_type(uint32_t id) { return (cfFeatureType)(id >> 28); }
/** Payload of a feature id. */
static inline uint32_t cf_feature_payload(uint32_t id) { return id & 0x0fffffffu; }
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Contact manifolds
 *  @{ */

/**
 * Keep at most @p max_out of the @p n contacts @p in (all with the same normal) so that the
 * kept points span as much area as possible: the deepest point first, then the point
 * farthest from it, then the point giving the largest triangle, then the point adding the
 * most area outside that triangle; further points (max_out > 4) by the same greedy rule.
 * Ties go to the lower index, so the choice is deterministic. Writes the kept contacts, in
 * their original order, to @p out (may alias @p in) and returns their number.
 */
int cf_manifold_reduce(const cfContact *in, int n, int max_out, cfContact *out);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Triangle meshes
 *  @{ */

/** An indexed triangle mesh in its own (body) frame; triangles counter-clockwise seen from outside. */
typedef struct cfTriMesh {
    int n_verts;    /**< number of vertices */
    int n_tris;     /**< number of triangles */
    cfVec3 *v;      /**< vertex positions (owned) */
    int (*tri)[3];  /**< vertex indices of each triangle (owned) */
} cfTriMesh;

/** Allocate a mesh with room for the given counts (contents zero). CF_NO_MEMORY / CF_BAD_INPUT. */
cfStatus cf_trimesh_init(cfTriMesh *m, int n_verts, int n_tris);
/** Free and zero (safe on a zeroed mesh). */
void cf_trimesh_free(cfTriMesh *m);
/**
 * Closed box surface with half extents @p h (> 0), each face split into n x n quads of 2
 * triangles (1 <= n <= 32), shared vertices welded. CF_BAD_INPUT / CF_NO_MEMORY.
 */
cfStatus cf_trimesh_box(cfTriMesh *m, cfVec3 h, int n);
/** Sphere of radius @p r > 0: an icosahedron subdivided @p level (0..6) times (12, 42, 162, ... vertices). */
cfStatus cf_trimesh_icosphere(cfTriMesh *m, double r, int level);
/** Length of the longest triangle edge (0 for an empty mesh). */
double cf_trimesh_max_edge(const cfTriMesh *m);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Signed distance functions
 *
 * s(x) < 0 inside, > 0 outside, 0 on the surface; the gradient points outward and has unit
 * length where s is differentiable.
 *  @{ */

/**
 * A signed distance function in its own (body) frame. eval returns s(x) and, when @p grad
 * is not NULL, writes the gradient there. Implementations must never return NaN.
 */
typedef struct cfSdf {
    double (*eval)(const void *data, cfVec3 x, cfVec3 *grad); /**< s(x) and optionally its gradient */
    const void *data;                                          /**< the shape parameters */
} cfSdf;

/** Evaluate @p sdf at @p x (gradient optional). */
static inline double cf_sdf_eval(const cfSdf *sdf, cfVec3 x, cfVec3 *grad) { return sdf->eval(sdf->data, x, grad); }

/** Analytic sphere: |x - c| - r; gradient (x - c)/|x - c|, and (0, 0, 1) at the centre. */
double cf_sdf_sphere(cfVec3 x, cfVec3 c, double r, cfVec3 *grad);
/**
 * Analytic axis-aligned box of half extents @p h centred at the origin: exact signed distance
 * (outside: distance to the box; inside: minus the distance to the nearest face). Gradient:
 * unit, outward; inside it is the normal of the nearest face (lowest axis on ties).
 */
double cf_sdf_box(cfVec3 x, cfVec3 h, cfVec3 *grad);
/** Analytic signed distance to a world oriented box (via cf_sdf_box in its frame). */
double cf_sdf_obb(const cfObb *b, cfVec3 x, cfVec3 *grad);

/** Parameters of an analytic sphere SDF (for cf_sdf_of_sphere()). */
typedef struct cfSdfSphereData {
    cfVec3 c;  /**< centre (m) */
    double r;  /**< radius (m) */
} cfSdfSphereData;
/** Parameters of an analytic box SDF (for cf_sdf_of_box()). */
typedef struct cfSdfBoxData {
    cfVec3 h;  /**< half extents (m), centred at the origin */
} cfSdfBoxData;
/** cfSdf view of a sphere; @p d must outlive the result. */
cfSdf cf_sdf_of_sphere(const cfSdfSphereData *d);
/** cfSdf view of an origin-centred box; @p d must outlive the result. */
cfSdf cf_sdf_of_box(const cfSdfBoxData *d);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Grid SDF container
 *
 * Node (i, j, k), 0 <= i < n[0] etc., sits at origin + dx (i, j, k) and stores
 * phi[i + n[0] (j + n[1] k)]. Evaluation (trilinear interpolation) is exercise ch03.6,
 * cf_sdf_grid_eval() in cf_ch03.h.
 *  @{ */

/** A uniform grid of signed distance samples. */
typedef struct cfSdfGrid {
    int n[3];        /**< nodes per axis (>= 2) */
    double dx;       /**< node spacing (m) */
    cfVec3 origin;   /**< position of node (0, 0, 0) */
    double *phi;     /**< n[0] n[1] n[2] samples (owned) */
} cfSdfGrid;

/**
 * Allocate a grid whose nodes cover the box [lo, hi] grown by @p pad on every side, with
 * spacing @p dx (the far corner is rounded up to a whole number of cells). Samples are 0.
 * CF_BAD_INPUT for dx <= 0, an empty box, more than 4096 cells along an axis or more than
 * 2^26 nodes; CF_NO_MEMORY.
 */
cfStatus cf_sdf_grid_init(cfSdfGrid *g, cfVec3 lo, cfVec3 hi, double pad, double dx);
/** Free and zero (safe on a zeroed grid). */
void cf_sdf_grid_free(cfSdfGrid *g);
/** Position of node (i, j, k). */
cfVec3 cf_sdf_grid_node(const cfSdfGrid *g, int i, int j, int k);
/** Index of node (i, j, k) in phi. */
static inline long cf_sdf_grid_index(const cfSdfGrid *g, int i, int j, int k)
{
    return (long)i + (long)g->n[0] * ((long)j + (long)g->n[1] * (long)k);
}
/** Fill every node with the value of @p sdf there. */
void cf_sdf_grid_fill(cfSdfGrid *g, const cfSdf *sdf);
/** The world box spanned by the nodes. */
cfAabb cf_sdf_grid_bounds(const cfSdfGrid *g);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_GEOMETRY_H */
