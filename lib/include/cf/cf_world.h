/* SPDX-License-Identifier: MIT */
/**
 * @file cf_world.h
 * @brief The world: bodies, settings, and the step as a named list of stages.
 *
 * One step of length h runs these stages in order; each is chosen by an enum in ::cfWorldDef,
 * so a chapter's tests only ever reach the chapters they build on:
 *
 * | stage               | what it does                                   | chosen by            |
 * |---------------------|------------------------------------------------|----------------------|
 * | CF_STAGE_DETECT     | find contacts between shapes                   | detector (ch03)      |
 * | CF_STAGE_CONTACTS   | contact frames, Jacobians (ch02)               | contact model        |
 * | CF_STAGE_VELOCITIES | free velocities u* = u + h M^-1 f (ch01.1)     | integrator           |
 * | CF_STAGE_ASSEMBLE   | contact problem data W, b, bounds (ch02)       | contact model        |
 * | CF_STAGE_SOLVE      | contact impulses, u+ = u* + M^-1 J^T lambda    | solver (ch04-07)     |
 * | CF_STAGE_POSITIONS  | q+ = q + h H(q) u+ (ch01.2, ch01.3)            | integrator           |
 * | CF_STAGE_STABILIZE  | position-level correction                      | stabilization        |
 *
 * Soft bodies are advanced in CF_STAGE_VELOCITIES/POSITIONS by the soft integrator (ch01.4,
 * ch01.5). Later chapters add enum values and fill the other stages.
 */
#ifndef CF_WORLD_H
#define CF_WORLD_H

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_contact.h"
#include "cf/cf_soft.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Stages of a step, in execution order. */
typedef enum cfStage {
    CF_STAGE_DETECT = 0,
    CF_STAGE_CONTACTS,
    CF_STAGE_VELOCITIES,
    CF_STAGE_ASSEMBLE,
    CF_STAGE_SOLVE,
    CF_STAGE_POSITIONS,
    CF_STAGE_STABILIZE,
    CF_STAGE_COUNT
} cfStage;

/** Name of a stage ("detect", "contacts", ...). */
const char *cf_stage_name(cfStage s);

/** Time integrator of rigid bodies. */
typedef enum cfRigidIntegrator {
    CF_RIGID_SEMI_IMPLICIT = 0, /**< symplectic Euler: velocities first, positions with new velocity */
    CF_RIGID_EXPLICIT           /**< explicit Euler: positions with the old velocity, then velocities */
} cfRigidIntegrator;

/** Time integrator of soft bodies. */
typedef enum cfSoftIntegrator {
    CF_SOFT_IMPLICIT = 0,  /**< linearized implicit (backward) Euler, ch01.4 */
    CF_SOFT_BDF2,          /**< linearized BDF2, ch01.5 (first step by implicit Euler) */
    CF_SOFT_SEMI_IMPLICIT, /**< symplectic Euler (library) */
    CF_SOFT_EXPLICIT       /**< explicit Euler (library; unstable, for comparison) */
} cfSoftIntegrator;

/** Name of an integrator value as used in scene files ("semi-implicit", "bdf2", ...). */
const char *cf_rigid_integrator_name(cfRigidIntegrator i);
/** Name of a soft integrator value. */
const char *cf_soft_integrator_name(cfSoftIntegrator i);

/** Contact detection (CF_STAGE_DETECT), chapter 3. */
typedef enum cfDetector {
    CF_DETECT_NONE = 0,     /**< no contacts: free motion */
    CF_DETECT_PRIMITIVES,   /**< analytic shapes, sweep-and-prune broad phase (ch03) */
    CF_DETECT_ALL_PAIRS     /**< analytic shapes, every pair tested (reference broad phase) */
} cfDetector;

/** Name of a detector as used in scene files ("none", "primitives", "all-pairs"). */
const char *cf_detector_name(cfDetector d);

/** Contact solver (CF_STAGE_SOLVE). Only NONE until the solver chapters. */
typedef enum cfSolverKind {
    CF_SOLVER_NONE = 0 /**< contacts are ignored */
} cfSolverKind;

/** World settings. Start from cf_world_def_default(). */
typedef struct cfWorldDef {
    cfVec3 gravity;                     /**< m/s^2 (default (0, 0, -9.81): z is up) */
    double dt;                          /**< time step h (s), default 1/60 */
    cfRigidIntegrator rigid_integrator; /**< default semi-implicit */
    bool gyroscopic;                    /**< include -w x (I w) in the rigid velocity update (default true) */
    cfSoftIntegrator soft_integrator;   /**< default implicit Euler */
    cfDetector detector;                /**< default none */
    double contact_margin;              /**< report contacts with gap phi <= margin (m, >= 0; default 0) */
    cfSolverKind solver;                /**< default none */
    int solver_iterations;              /**< iteration budget of iterative solvers (default 20) */
    double solver_tolerance;            /**< residual tolerance of iterative solvers (default 1e-8) */
} cfWorldDef;

/** Defaults described in ::cfWorldDef. */
cfWorldDef cf_world_def_default(void);

/** Per-step measurements. */
typedef struct cfStepStats {
    double stage_seconds[CF_STAGE_COUNT]; /**< wall time of each stage in the last step */
    int solver_iterations;                /**< iterations used by the last solve */
    double solver_residual;               /**< final residual of the last solve */
    int n_contacts;                       /**< contacts in the last step */
} cfStepStats;

/** A world of rigid and soft bodies. */
typedef struct cfWorld {
    cfWorldDef def;             /**< settings; may be changed between steps */
    int n_bodies;               /**< rigid bodies in use */
    int cap_bodies;             /**< rigid bodies allocated */
    cfRigidBody *bodies;        /**< rigid bodies (owned) */
    int n_soft;                 /**< soft bodies in use */
    int cap_soft;               /**< soft bodies allocated */
    cfSoftBody *soft;           /**< soft bodies (owned) */
    cfContactList contacts;     /**< contacts of the last step (empty without a detector) */
    double time;                /**< simulated time (s) */
    long step;                  /**< steps taken */
    cfStepStats stats;          /**< measurements of the last step */
} cfWorld;

/** Initialize an empty world with settings @p def (NULL: defaults). CF_BAD_INPUT for dt <= 0. */
cfStatus cf_world_init(cfWorld *w, const cfWorldDef *def);
/** Free all bodies and zero the struct. */
void cf_world_free(cfWorld *w);
/** Deep copy (for reset and comparisons). @p dst must not be initialized. */
cfStatus cf_world_copy(cfWorld *dst, const cfWorld *src);
/** Add a copy of @p b; returns its index, or -1 on allocation failure. */
int cf_world_add_body(cfWorld *w, const cfRigidBody *b);
/** Move @p s into the world (the world owns its arrays afterwards; @p s is zeroed). Index or -1. */
int cf_world_add_soft(cfWorld *w, cfSoftBody *s);
/**
 * Advance one step of def.dt through the stages. CF_BAD_INPUT for an invalid def; any status
 * of a stage is passed on, and then the state is left as it was before the step.
 */
cfStatus cf_world_step(cfWorld *w);
/** Total energy: kinetic + gravitational potential (relative to the origin) + elastic (J). */
double cf_world_energy(const cfWorld *w);
/** Total linear momentum of all bodies (kg m/s). */
cfVec3 cf_world_linear_momentum(const cfWorld *w);
/** Total angular momentum of rigid bodies about the origin (kg m^2/s). */
cfVec3 cf_world_angular_momentum(const cfWorld *w);

#ifdef __cplusplus
}
#endif
#endif /* CF_WORLD_H */
