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
 * | CF_STAGE_STABILIZE  | position-level correction (split impulse, ch05) | stabilization        |
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

/**
 * Contact solver (CF_STAGE_SOLVE). Chapter 5 adds the splitting solvers; every one of them
 * solves for impulses at the velocity level and writes them back into cfContact::lambda (the
 * next step's warm start).
 */
typedef enum cfSolverKind {
    CF_SOLVER_NONE = 0,   /**< contacts are ignored */
    CF_SOLVER_PGS,        /**< matrix-free blocked PGS on the rigid system (ch05.6), the default engine */
    CF_SOLVER_PGS_BLOCKED,/**< assembled Delassus W, blocked Gauss-Seidel per contact (ch05.5) */
    CF_SOLVER_PGS_BOXED,  /**< assembled boxed LCP, PGS with bounds that move with lambda_n (ch05.4) */
    CF_SOLVER_PGS_SM,     /**< assembled boxed LCP, PGS with subspace minimization (ch05.8) */
    CF_SOLVER_NNCG,       /**< assembled boxed LCP, non-smooth nonlinear conjugate gradient (ch05.9) */
    CF_SOLVER_PGS_FAST,   /**< ch05.6's matrix-free blocked PGS arranged for speed (cf_rigid_fast.h) */
    CF_SOLVER_COUNT       /**< number of solver kinds */
} cfSolverKind;

/** Name of a solver as used in scene files and on the command line ("pgs", "nncg", ...). */
const char *cf_solver_name(cfSolverKind s);

/** Friction model used by the splitting solvers. */
typedef enum cfFrictionModel {
    CF_FRICTION_CONE = 0, /**< Coulomb cone |lambda_T| <= mu lambda_n (exact projection on the disk) */
    CF_FRICTION_BOX       /**< friction pyramid: |lambda_t|, |lambda_b| <= mu lambda_n separately */
} cfFrictionModel;

/** Name of a friction model ("cone", "box"). */
const char *cf_friction_model_name(cfFrictionModel m);

/** Order in which a Gauss-Seidel sweep visits its variables or contacts (chapter 5). */
typedef enum cfOrdering {
    CF_ORDER_SEQUENTIAL = 0, /**< 0, 1, ..., n-1 in every sweep */
    CF_ORDER_SYMMETRIC,      /**< forward on even sweeps (0, 2, ...), backward on odd ones */
    CF_ORDER_RANDOM          /**< a fresh random permutation per sweep (cf_rng, seeded) */
} cfOrdering;

/** Name of an ordering ("sequential", "symmetric", "random"). */
const char *cf_ordering_name(cfOrdering o);

/** Opaque scratch space of the contact solver (lib/src/world.c). */
struct cfSolverWork;

/** How penetration is removed (chapter 5). */
typedef enum cfStabilization {
    CF_STAB_SPLIT = 0, /**< split impulse: a separate pseudo-velocity solve moves positions only (CF_STAGE_STABILIZE); matrix-free PGS only, the other solvers use Baumgarte */
    CF_STAB_BAUMGARTE  /**< Baumgarte: the velocity solve pushes out with erp phi / h (adds energy) */
} cfStabilization;

/** Name of a stabilization ("split", "baumgarte"). */
const char *cf_stabilization_name(cfStabilization s);

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
    cfFrictionModel friction_model;     /**< cone or box (default cone; the boxed-LCP solvers always use box) */
    bool warm_start;                    /**< start from the previous step's impulses (default true) */
    cfOrdering ordering;                /**< sweep order of the Gauss-Seidel solvers (default sequential) */
    double relaxation;                  /**< relaxation omega of the splitting solvers, in (0, 2) (default 1) */
    cfStabilization stabilization;      /**< split impulse or Baumgarte (default split) */
    double erp;                         /**< ERP in [0, 1]: fraction of penetration removed per step (default 0.2) */
    double cfm;                         /**< CFM >= 0 added to the normal diagonal (default 0) */
    double slop;                        /**< split impulse: penetration (m, >= 0) left uncorrected, so that solver noise does not rock stacks (default 0.001) */
    unsigned long seed;                 /**< seed of the random ordering (default 1) */
} cfWorldDef;

/** Defaults described in ::cfWorldDef. */
cfWorldDef cf_world_def_default(void);

/** Capacity of cfStepStats::solver_history: per-iteration residuals kept of one solve. */
#define CF_STATS_HISTORY 256

/**
 * Per-step measurements, reset at the start of every cf_world_step().
 *
 * The last solve of the step is the contact solve of CF_STAGE_SOLVE when it ran (a solver is
 * set and there are contacts), otherwise the soft integrator's linear solve (the last soft
 * body's), otherwise none: iterations, residual and history are then all zero.
 *
 * Per-iteration history: cfStepStats::solver_history holds the residual the solver reports after
 * each of its first min(solver_iterations, #CF_STATS_HISTORY) iterations, in order, so
 * cfStepStats::solver_history_len equals solver_iterations whenever solver_iterations <=
 * #CF_STATS_HISTORY (0 when the start value already met the tolerance). The buffer lives in the
 * world: filling it allocates nothing. The measure is the solver's own (cfReport::history):
 * - the assembled solvers (CF_SOLVER_PGS_BLOCKED, _BOXED, _SM, NNCG) record the residual that
 *   cfStepStats::solver_residual reports, so the last entry equals it when the whole history fits;
 * - the soft integrator's conjugate gradients record the recurrence residual |b - A x_k|, which
 *   cfStepStats::solver_residual recomputes from x at the end (equal up to rounding);
 * - the matrix-free PGS (CF_SOLVER_PGS, CF_SOLVER_PGS_FAST) records the largest change of an
 *   impulse in each sweep (N s, its stopping measure; cf_rigid_pgs_solve()), while
 *   cfStepStats::solver_residual is the natural-map residual computed once after the last sweep.
 */
typedef struct cfStepStats {
    double stage_seconds[CF_STAGE_COUNT]; /**< wall time of each stage in the last step */
    int solver_iterations;                /**< iterations used by the last solve */
    double solver_residual;               /**< final residual of the last solve */
    int n_contacts;                       /**< contacts in the last step */
    /** residual after iteration k + 1 of the last solve, for k < cfStepStats::solver_history_len
     *  (see above); the entries past it mean nothing */
    double solver_history[CF_STATS_HISTORY];
    int solver_history_len;               /**< entries of cfStepStats::solver_history written by the last solve */
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
    struct cfSolverWork *work;  /**< the solver's scratch space between ASSEMBLE and SOLVE (owned, not copied) */
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
