/* SPDX-License-Identifier: MIT */
/**
 * @file cf_body.h
 * @brief Shapes and rigid bodies: mass, body and world inertia, state, energy and momentum.
 *
 * State of a rigid body: position x of the centre of mass (m), orientation q (unit quaternion,
 * body to world), linear velocity v (m/s) and angular velocity w (rad/s, world frame).
 * A fixed body has infinite mass: inv_mass = 0 and a zero inverse inertia, and never moves.
 */
#ifndef CF_BODY_H
#define CF_BODY_H

#include "cf/cf_base.h"
#include "cf/cf_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Kinds of collision shape. */
typedef enum cfShapeType {
    CF_SHAPE_SPHERE = 0, /**< ball of @ref cfShape::radius about the body origin */
    CF_SHAPE_BOX,        /**< box with @ref cfShape::half_extents along the body axes */
    CF_SHAPE_PLANE,      /**< half-space {p : n.p <= offset} below the world plane n.p = offset; fixed only */
    CF_SHAPE_CAPSULE,    /**< segment of half length @ref cfShape::half_height along body z, swept by radius */
    CF_SHAPE_COUNT
} cfShapeType;

/** A collision shape in body coordinates (planes are given in world coordinates). */
typedef struct cfShape {
    cfShapeType type;     /**< which shape */
    double radius;        /**< sphere and capsule radius (m) */
    cfVec3 half_extents;  /**< box half sizes (m) */
    double half_height;   /**< capsule: half length of the core segment (m) */
    cfVec3 normal;        /**< plane: unit outward normal (world) */
    double offset;        /**< plane: n.p = offset on the plane (m) */
} cfShape;

/** Name of a shape type ("sphere", "box", "plane", "capsule"). */
const char *cf_shape_name(cfShapeType t);
/** Sphere of radius r. */
cfShape cf_shape_sphere(double r);
/** Box with half extents h. */
cfShape cf_shape_box(cfVec3 half_extents);
/** Plane n.p = offset (n is normalized). */
cfShape cf_shape_plane(cfVec3 normal, double offset);
/** Capsule of radius r around the body z segment [-half_height, half_height]. */
cfShape cf_shape_capsule(double r, double half_height);
/**
 * Check a shape's parameters: radius > 0, half extents > 0, plane normal non-zero, all finite.
 * On failure writes "<field>: <reason>" into @p err and returns CF_BAD_INPUT.
 */
cfStatus cf_shape_validate(const cfShape *s, cfError *err);
/**
 * Principal moments of inertia (kg m^2) of a solid shape of mass @p m about its centre:
 * sphere 2/5 m r^2; box m/3 (b^2 + c^2) with half extents; capsule as cylinder plus hemispheres.
 * Planes have no inertia (returns zero).
 */
cfVec3 cf_shape_inertia(const cfShape *s, double m);
/** Volume of a shape (m^3); infinite for a plane. */
double cf_shape_volume(const cfShape *s);

/** A rigid body. Create with cf_rigid_init() or cf_rigid_init_fixed(). */
typedef struct cfRigidBody {
    char name[32];              /**< label for output and the viewer */
    cfShape shape;              /**< collision shape */
    bool fixed;                 /**< infinite mass: never moves */
    double mass;                /**< kg (0 for fixed bodies) */
    double inv_mass;            /**< 1/kg (0 for fixed bodies) */
    cfMat3 inertia_body;        /**< inertia tensor in body frame (kg m^2) */
    cfMat3 inv_inertia_body;    /**< its inverse (zero for fixed bodies) */
    cfMat3 inv_inertia_world;   /**< R I_body^-1 R^T, refreshed by cf_rigid_update_inertia() */
    cfVec3 x;                   /**< centre of mass, world (m) */
    cfQuat q;                   /**< orientation, body to world, unit */
    cfVec3 v;                   /**< linear velocity, world (m/s) */
    cfVec3 w;                   /**< angular velocity, world (rad/s) */
    cfVec3 force;               /**< external force besides gravity, world (N); persists */
    cfVec3 torque;              /**< external torque about the centre of mass, world (N m); persists */
    double mu;                  /**< Coulomb friction coefficient (>= 0) */
    double restitution;         /**< coefficient of restitution in [0, 1] */
} cfRigidBody;

/** Smallest mass (kg) of a dynamic body: below it a body is numerically massless to the solvers. */
#define CF_MASS_MIN 1e-6
/** Largest mass (kg) of a dynamic body (a heavier one is better fixed). */
#define CF_MASS_MAX 1e9
/** Largest ratio of a body's largest to smallest principal moment of inertia the solvers accept. */
#define CF_INERTIA_RATIO_MAX 1e6

/**
 * Make a dynamic body of mass @p mass with the solid-shape inertia of @p shape, at rest at the
 * origin. CF_BAD_INPUT (message in @p err) for mass <= 0, non-finite or outside
 * [#CF_MASS_MIN, #CF_MASS_MAX], an invalid shape, or a plane (planes must be fixed). The bound on
 * mass ratios between bodies is the solvers' own (chapter 5 measures PGS on ratios up to 1e6).
 */
cfStatus cf_rigid_init(cfRigidBody *b, cfShape shape, double mass, cfError *err);
/** Make a fixed (infinite-mass) body. CF_BAD_INPUT for an invalid shape. */
cfStatus cf_rigid_init_fixed(cfRigidBody *b, cfShape shape, cfError *err);
/**
 * Replace the body inertia by diag(principal) (kg m^2). Every moment must be finite and > 0
 * (a zero inertia axis would need an infinite angular acceleration), the moments must be those
 * of a body (each at most the sum of the other two), and the largest at most
 * #CF_INERTIA_RATIO_MAX times the smallest; otherwise CF_BAD_INPUT with the field named in
 * @p err. No-op on fixed bodies.
 */
cfStatus cf_rigid_set_inertia(cfRigidBody *b, cfVec3 principal, cfError *err);
/** Refresh inv_inertia_world = R(q) I_body^-1 R(q)^T from the current orientation. */
void cf_rigid_update_inertia(cfRigidBody *b);
/** World-frame inertia tensor I_w = R I_body R^T. */
cfMat3 cf_rigid_inertia_world(const cfRigidBody *b);
/** Kinetic energy 1/2 m |v|^2 + 1/2 w.I_w w (J). Zero for fixed bodies. */
double cf_rigid_kinetic_energy(const cfRigidBody *b);
/** Linear momentum m v (kg m/s). */
cfVec3 cf_rigid_linear_momentum(const cfRigidBody *b);
/** Angular momentum about the world origin: x × m v + I_w w (kg m^2/s). */
cfVec3 cf_rigid_angular_momentum(const cfRigidBody *b);
/** Velocity of the world point p attached to the body: v + w × (p - x). */
cfVec3 cf_rigid_point_velocity(const cfRigidBody *b, cfVec3 p);
/** True when the state (x, q, v, w) is finite and q has unit length within 1e-6. */
bool cf_rigid_state_ok(const cfRigidBody *b);

#ifdef __cplusplus
}
#endif
#endif /* CF_BODY_H */
