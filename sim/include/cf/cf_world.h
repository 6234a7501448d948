/* SPDX-License-Identifier: MIT */
/**
 * @file cf_world.h
 * @brief The world: rigid and soft bodies, settings, and the step as a named list of stages.
 *
 * The world is the simulation layer (`sim/`): it sits above the chapters and is the only code
 * that calls chapter functions. One step of length h runs these stages, in this order:
 *
 * | stage               | what it does                                                              | chapter |
 * |---------------------|---------------------------------------------------------------------------|---------|
 * | CF_STAGE_DETECT     | contacts between rigid shapes, soft surfaces and the ground; warm-start impulses carried over (by feature, then by proximity) | 3 |
 * | CF_STAGE_CONTACTS   | contact frames (ch02.2), friction laws of the material pairs; an anisotropic law becomes its ellipse in the contact frame (t along its first axis) | 2, 10 |
 * | CF_STAGE_VELOCITIES | rigid: free velocities u* = u + h M^-1 f (ch01.1). Soft, without contacts: the implicit system A u+ = b of the integrator (ch01.4/5) solved; soft in contact: the state (x*, u*, beta) whose implicit system the next stage turns into the dual form | 1 |
 * | CF_STAGE_ASSEMBLE   | the contact problem in the form the solver consumes: matrix-free rows, or the assembled W, q (rigid: ch02.5; soft: the dual form W = J A^-1 J^T, ch02.8) with the bias and CFM (ch02.7), then the boxed LCP or polyhedral LCP (ch02.6) | 2, 5 |
 * | CF_STAGE_SOLVE      | the solver of the registry finds the impulses; ONE apply maps them to velocities for every solver: rigid u+ = u* + M^-1 J^T lambda, soft u+ = A^-1 (b + J^T lambda) | 4-7 |
 * | CF_STAGE_POSITIONS  | rigid q+ = q + h H(q) u+ (ch01.2, ch01.3); soft x+ = x* + beta u+         | 1 |
 * | CF_STAGE_STABILIZE  | split impulse: pseudo-velocities that move positions only (solvers with a split stage) | 5 |
 *
 * Every choice is a setting of ::cfWorldDef; the solver is a row of the registry (cf_solvers.h),
 * so a chapter's tests only ever reach the chapters they build on.
 *
 * A dual-form solver (CF_FORM_DUAL, chapter 8) gets, instead of an assembled W, the system
 * A u+ = b + J^T lambda of every body that moves (rigid bodies as A = M; soft bodies in contact by
 * ch08.1, implicit, or explicit for the lumped preconditioner) and returns the velocities with
 * the impulses: that is this form's apply.
 *
 * That stage list is the "velocity" pipeline (CF_PIPELINE_VELOCITY, the default): a step that
 * solves a velocity-level contact problem. cfWorldDef::pipeline chooses another stage list for the
 * whole step; see "Pipelines" below.
 *
 * With cfWorldDef::cmr_rounds > 0 a step is constraint manifold refinement (paper 004, ch08.6):
 * detect (proximity), contacts and velocities once, then rounds of assemble + solve (the
 * response), tentative positions and continuous collision detection on the linear motion, whose
 * new pairs join the contacts, until no pair crosses; positions and stabilize then commit. A step
 * still colliding after cmr_rounds rounds is redone as two halves (at most cmr_halvings deep).
 */
#ifndef CF_WORLD_H
#define CF_WORLD_H

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_contact.h"
#include "cf/cf_soft.h"
#include "cf/cf_solver.h"
#include "cf/cf_stages.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Stages of a step, in execution order. */
typedef enum cfStage {
    CF_STAGE_DETECT = 0,  /**< contacts and warm starts */
    CF_STAGE_CONTACTS,    /**< frames and friction laws */
    CF_STAGE_VELOCITIES,  /**< free velocities; soft implicit systems */
    CF_STAGE_ASSEMBLE,    /**< the solver's problem form */
    CF_STAGE_SOLVE,       /**< impulses, then one apply */
    CF_STAGE_POSITIONS,   /**< positions from the new velocities */
    CF_STAGE_STABILIZE,   /**< split-impulse position correction */
    CF_STAGE_COUNT        /**< number of stages */
} cfStage;

/** Name of a stage ("detect", "contacts", ...); "unknown" for other values. */
const char *cf_stage_name(cfStage s);

/** Time integrator of rigid bodies. */
typedef enum cfRigidIntegrator {
    CF_RIGID_SEMI_IMPLICIT = 0, /**< symplectic Euler: velocities first, positions with new velocity */
    CF_RIGID_EXPLICIT,          /**< explicit Euler: positions with the old velocity, then velocities */
    CF_RIGID_INTEGRATOR_COUNT   /**< number of rigid integrators */
} cfRigidIntegrator;

/** Time integrator of soft bodies. */
typedef enum cfSoftIntegrator {
    CF_SOFT_IMPLICIT = 0,     /**< linearized implicit (backward) Euler, ch01.4 */
    CF_SOFT_BDF2,             /**< linearized BDF2, ch01.5 (first step by implicit Euler) */
    CF_SOFT_SEMI_IMPLICIT,    /**< symplectic Euler (library; takes no contact impulses) */
    CF_SOFT_EXPLICIT,         /**< explicit Euler (library; unstable, for comparison; takes no contact impulses) */
    CF_SOFT_INTEGRATOR_COUNT  /**< number of soft integrators */
} cfSoftIntegrator;

/** Name of a rigid integrator as used in scene files ("semi-implicit", "explicit"). */
const char *cf_rigid_integrator_name(cfRigidIntegrator i);
/** Name of a soft integrator ("implicit", "bdf2", "semi-implicit", "explicit"). */
const char *cf_soft_integrator_name(cfSoftIntegrator i);

/** Contact detection (CF_STAGE_DETECT), chapter 3. */
typedef enum cfDetector {
    CF_DETECT_NONE = 0,     /**< no contacts: free motion */
    CF_DETECT_PRIMITIVES,   /**< analytic shapes and soft surfaces, sweep-and-prune broad phase (ch03) */
    CF_DETECT_ALL_PAIRS,    /**< the same, every pair of rigid shapes tested (reference broad phase) */
    CF_DETECT_SURFACES,     /**< primitives, plus soft surfaces in full (chapter 8): vertex-face and edge-edge
                                 between soft surfaces and within a sheet (self-collision), by a spatial hash */
    CF_DETECTOR_COUNT       /**< number of detectors */
} cfDetector;

/** Name of a detector as used in scene files ("none", "primitives", "all-pairs", "surfaces"). */
const char *cf_detector_name(cfDetector d);

/** How penetration is removed (chapter 5). */
typedef enum cfStabilization {
    CF_STAB_SPLIT = 0,     /**< split impulse: the velocity solve takes no erp bias; a separate pseudo-velocity solve moves positions only (CF_STAGE_STABILIZE), for every solver family: the rows solvers' own split stage (cfSolver::split), otherwise a frictionless position problem of the contacts between rigid sides solved by the same solver (the dual form: by pgs-blocked); contacts with a soft side keep the Baumgarte bias */
    CF_STAB_BAUMGARTE,     /**< Baumgarte: the velocity solve pushes out with erp phi / h (adds energy) */
    CF_STABILIZATION_COUNT /**< number of stabilizations */
} cfStabilization;

/** Name of a stabilization ("split", "baumgarte"). */
const char *cf_stabilization_name(cfStabilization s);

/** Which solves of the rows and dual forms the world certifies on the common residual (cf_solvers.h). */
typedef enum cfCertify {
    CF_CERTIFY_ALWAYS = 0, /**< every solve: its common residual computed and recorded (cfStepStats::solver_common), the status downgraded when it misses the tolerance (default) */
    CF_CERTIFY_CLAIMS,     /**< only a solve whose own measure claims convergence (status CF_OK), the one case where the common residual changes the status, or any
                                solve when on_solver_failure is not "continue" (its message names the residual); a solve that spent its budget keeps its own status
                                and records the residual as not computed (NaN): the same trajectory, without the pass over the contacts (and the free velocity's)
                                that only measured it. The assembled forms certify inside the registry's path either way */
    CF_CERTIFY_COUNT       /**< number of choices */
} cfCertify;

/** Name of a certification choice ("always", "claims"). */
const char *cf_certify_name(cfCertify c);

/**
 * Which stage list a step runs (cfWorldDef::pipeline; scene key world.pipeline). Each value is a
 * row of the pipeline table (cf_pipeline_of()); adding a pipeline is one value here and one row.
 */
typedef enum cfPipelineKind {
    CF_PIPELINE_VELOCITY = 0, /**< "velocity": the stages of cfStage, a velocity-level contact problem (chapters 1-8, 10) */
    CF_PIPELINE_IPC,          /**< "ipc": Incremental Potential Contact (chapter 9): the step minimizes the incremental potential over positions */
    CF_PIPELINE_IMPLICIT_SOFT, /**< "implicit-soft": paper 003 (ch09.7): the step finds the end velocity whose forces, friction included, are taken at the end of the step */
    CF_PIPELINE_COUNT         /**< number of pipelines */
} cfPipelineKind;

/**
 * Parameters of the ipc pipeline (cfWorldDef::ipc; scene object world.ipc). The notes give no
 * defaults; dhat and eps_v follow the IPC paper (Li et al.\ 2020), kappa's is ours: 0 for dhat
 * and kappa means "derived from the world at each step", as stated per field.
 */
typedef struct cfIpcSettings {
    double dhat;             /**< barrier activation distance (m, >= 0); 0 (default): 1e-3 of the larger of the diagonal of the bounding box of the soft bodies' rest positions and the diagonal of the largest moving rigid box */
    double kappa;            /**< barrier stiffness (N/m, >= 0); 0 (default): kappa |b'(dhat/2)| = m_max g, so that the heaviest free node (or a quarter of the heaviest moving box, on four corners) rests at dhat/2 (g = |gravity|, 9.81 without gravity) */
    double eps_v;            /**< friction's smoothing speed (m/s, > 0; default 1e-3): below it friction is viscous, the source of creep */
    int friction_iterations; /**< lagging iterations of the friction per step, in [1, 100] (default 1) */
    bool adaptive_kappa;     /**< IPC's adaptive barrier stiffness (Li et al.\ 2020; solutions/ch09/fast/cf_ipc_sparse.h): each step starts from the gradient balance at q^t, kappa doubles while the smallest distance keeps shrinking below dhat/10; bounds [kappa, 100 kappa] with kappa the setting or its derived default. Needs the sparse path (reference solutions) and soft bodies only (no moving boxes). Default false */
    double tolerance;        /**< Newton's stop |dq|_inf / h (m/s, > 0; default 1e-8, chapter 9's cf_ipc_options_default()) */
} cfIpcSettings;

/**
 * Parameters of the implicit-soft pipeline (cfWorldDef::implicit; scene object world.implicit):
 * those of chapter 9's cfImplicitSystem. The defaults: backward Euler and the quadratic profile
 * s_a (cf_implicit_init()'s), eps = 1e-3 m/s (cf_implicit_init()'s), delta = 1e-3 m (the ipc
 * pipeline's dhat scale) and kappa = 1e4 N/m, with which a 1 kg node rests delta -
 * sqrt(g delta / (3 kappa)) = 0.43 mm above a plane (lambda = -b'(d) = m g).
 */
typedef struct cfImplicitSoftSettings {
    cfImplicitIntegrator integrator; /**< "be" (default), "tr", "bdf2" (its history: the soft bodies' x_prev, v_prev), "sdirk2" */
    double kappa;                    /**< penalty stiffness (N/m, > 0; default 1e4); a step that ends below a plane repeats with it raised (cf_implicit_bump()) for that step only */
    double delta;                    /**< contact thickness: a node feels a plane within this gap (m, > 0; default 1e-3) */
    double eps;                      /**< stick-slip speed of the smoothed friction (m/s, > 0; default 1e-3): a particle that Coulomb would hold creeps at the speed x with s(x) = tan(theta)/mu */
    cfSlideProfile profile;          /**< "quadratic" (s_a, default) or "rational" (s_b) */
} cfImplicitSoftSettings;

/** Name of an implicit-soft integrator as used in scene files ("be", "tr", "bdf2", "sdirk2"); "unknown" for other values. */
const char *cf_implicit_integrator_name(cfImplicitIntegrator i);

/** Name of a sliding profile as used in scene files ("quadratic", "rational"); "unknown" for other values. */
const char *cf_slide_profile_name(cfSlideProfile p);

/** Name of a pipeline as used in scene files ("velocity", "ipc", "implicit-soft"); "unknown" for other values. */
const char *cf_pipeline_name(cfPipelineKind k);

/**
 * What a world does with a step whose contact solve did not converge (cf_solvers.h: the common
 * residual above the tolerance; cfWorld::unconverged_steps counts them whatever the policy).
 */
typedef enum cfSolverFailure {
    CF_ON_FAILURE_CONTINUE = 0, /**< "continue": use the impulses (a used-up budget still gives usable ones) and count the step (default) */
    CF_ON_FAILURE_WARN,         /**< "warn": as continue, and the programs say so on standard error for each such step */
    CF_ON_FAILURE_RETRY,        /**< "retry": solve again from the answer with 4 times the iterations, once; count it when that fails too */
    CF_ON_FAILURE_STOP,         /**< "stop": the step fails (the world stays as it was; cflab run exits 1) */
    CF_ON_FAILURE_COUNT         /**< number of policies */
} cfSolverFailure;

/** Name of a policy as used in scene files ("continue", "warn", "retry", "stop"); "unknown" for other values. */
const char *cf_solver_failure_name(cfSolverFailure f);

/** Default of cfWorldDef::step_budget (contact couplings x sweeps per step): well above the largest
 *  step of every scene of scenes/ (`cflab run --summary` prints a run's largest, in its "work" line)
 *  and small enough that a step that reaches it stops within seconds (about 1e8 block products). */
#define CF_STEP_BUDGET_DEFAULT 1e8

/** Most rigid bodies of a world that choose their island's solver (cfWorldDef::island_solver). */
#define CF_ISLAND_SOLVERS_MAX 16

/** World settings. Start from cf_world_def_default(); check with cf_world_def_check(). */
typedef struct cfWorldDef {
    cfVec3 gravity;                     /**< m/s^2 (default (0, 0, -9.81): z is up) */
    double dt;                          /**< time step h (s, > 0), default 1/60 */
    cfRigidIntegrator rigid_integrator; /**< default semi-implicit */
    bool gyroscopic;                    /**< include -w x (I w) in the rigid velocity update (default true) */
    cfSoftIntegrator soft_integrator;   /**< default implicit Euler */
    cfDetector detector;                /**< default none */
    double contact_margin;              /**< report contacts with gap phi <= margin (m, >= 0 and <= bounds; default 0) */
    double manifold_tolerance;          /**< > 0: persistent manifolds: a rigid pair's contacts are reused, moved with the bodies, while its relative pose has changed by less than this (m, at the bodies' bounding radii) since they were computed (a body's shape must not change meanwhile); 0: every pair through the narrow phase every step (default) */
    const cfSolver *solver;             /**< a row of the registry (cf_solver_find()), NULL: contacts are ignored (default) */
    int solver_iterations;              /**< iteration budget of iterative solvers (>= 0, default 20) */
    double soft_tolerance;              /**< > 0: the dual row (the soft rows: CA's PGS, ICA) stops when its own residuals are <= this absolute value (m/s and N s),
                                             ICA's 5 % change rule off (the plateau it stops on carries about 1.4 m g h at rest, ch08); 0: solver_tolerance and the paper's rules (default) */
    double solver_tolerance;            /**< "converged" means the common residual (cf_solvers.h: relative) is <= this (>= 0; 0 spends the budget; default 1e-8);
                                             a solver's own measure stops it there too: a natural map at tol |q|, an impulse change at tol m g h
                                             (m the mean mass of the dynamic bodies, g = max(|gravity|, 1 m/s^2), h = dt) */
    cfSolverFailure on_solver_failure;  /**< what a step whose contact solve did not converge does (default continue) */
    double bounds;                      /**< m, > 0: a body whose centre (a soft node) leaves the box |x|_inf <= bounds fails the step, naming it (default 1e6) */
    cfFrictionModel friction_model;     /**< cone or box, for solvers that offer both (default cone; boxed-LCP solvers always use box) */
    int friction_directions;            /**< directions of the polyhedral cone of LCP-form solvers (3..64, default 8) */
    bool warm_start;                    /**< start from the previous step's impulses (default true) */
    cfOrdering ordering;                /**< sweep order of the Gauss-Seidel solvers (default sequential) */
    double relaxation;                  /**< relaxation omega of the splitting solvers, in (0, 2) (default 1) */
    cfRFactor r_factor;                 /**< r-factor strategy of the PROX solvers (chapter 7; default local) */
    bool per_island;                    /**< a solver per island (scene: world.solver "per-island"): each step the contacts are split into islands (ch11.2's cf_islands_find()) and each island is solved by the solver of ch11.2's rule (cf_island_solver()), `solver` (pgs) serving the stages before the solve; rigid bodies only (false by default) */
    /** with per_island: the scene's choices (a body's "island_solver"): the island of body
     *  island_solver[k].body is solved by the world solver named island_solver[k].solver instead of
     *  ch11.2's rule; two bodies of one island naming different solvers fail the step, naming both */
    struct {
        int body;        /**< a rigid body's index */
        char solver[32]; /**< a world solver that takes contacts */
    } island_solver[CF_ISLAND_SOLVERS_MAX];
    int n_island_solvers;               /**< choices in island_solver (0 by default) */
    int sleep_steps;                    /**< with per_island, > 0: an island whose every body has moved slower than #CF_SLEEP_LINEAR and #CF_SLEEP_ANGULAR for this many steps sleeps (its bodies frozen, its solve skipped) until a body that is not asleep touches it; 0: off (default) */
    cfStabilization stabilization;      /**< split impulse or Baumgarte (default split) */
    double erp;                         /**< ERP in [0, 1]: fraction of penetration removed per step (default 0.2) */
    double cfm;                         /**< CFM >= 0 added to the normal diagonal (default 0) */
    double contact_stiffness;           /**< N/m (>= 0): when > 0, erp and cfm are those of this implicit contact spring with contact_damping (ch02.7), replacing the two above */
    double contact_damping;             /**< N s/m (>= 0), with contact_stiffness */
    double restitution_threshold;       /**< m/s (>= 0): a contact approaching faster than this (u_n^- < -threshold) impacts with Newton's law u_n^+ >= -e u_n^-, e the larger restitution of its two rigid sides (static and soft sides count 0); slower ones are inelastic, so resting contacts (u_n^- = -g h) never bounce (default 0.5) */
    double slop;                        /**< split impulse: penetration (m, >= 0) left uncorrected, so that solver noise does not rock stacks (default 0.001) */
    cfCertify certify;                  /**< which solves of the rows and dual forms are certified on the common residual (default always) */
    int split_iterations;               /**< split impulse: the sweeps (iterations) of the position problem (>= 0); 0: max(solver_iterations, 4) (default).
                                             Every solver with a split stage takes this count (pgs and pgs-fast alike), so a setting keeps them equal;
                                             docs/performance.md: pgs-fast's walls stand with 8 at 20 iterations */
    unsigned long seed;                 /**< seed of the random ordering (default 1) */
    double max_matrix_mb;               /**< largest assembled contact problem (MB) a step may build before it refuses with a message (default 1024): a typo or a pile of a thousand boxes must not eat the machine */
    double step_budget;                 /**< the most contact-solve work a step may do (> 0, default #CF_STEP_BUDGET_DEFAULT), in contact couplings x sweeps: a solve's sweeps (its iterations,
                                             plus a nested solver's inner sweeps: ICA's up to 50 per iteration) times its contacts' couplings (for the assembled and dual forms the sum over the dynamic bodies and free soft nodes of k^2,
                                             k the contacts touching it: the nonzero blocks of W = J M^-1 J^T, what a sweep visits; for the rows form, which builds no W, the contacts), summed over the step's solves (CMR rounds, halved
                                             substeps, a retry). A solve gets at most the iterations the rest pays for (at the most sweeps an iteration may take); when not even one is left, or a solve so cut uses them all,
                                             the step fails with CF_MAX_ITER and a message naming the work (a pivoting solver counts its pivots and is not cut). Velocity pipeline only */
    cfPreconditioner preconditioner;    /**< how a dual-form solver (cfSolver::form CF_FORM_DUAL) anticipates A^-1, chapter 8; soft bodies follow it (lumped: explicit forces). Default exact; other solvers take exact only */
    int cmr_rounds;                     /**< > 0: constraint manifold refinement (ch08.6) with at most this many response-CCD rounds per step (the paper's 5; at most 16); 0: off (default) */
    int cmr_halvings;                   /**< CMR: times a step may be halved when still colliding (0..8, default 2) */
    cfPipelineKind pipeline;            /**< the step's stage list (default CF_PIPELINE_VELOCITY); the settings above the ipc ones belong to the velocity pipeline and must keep their defaults under another (solver none, detector none, implicit soft integrator, no CMR) */
    cfIpcSettings ipc;                  /**< the ipc pipeline's parameters; must keep their defaults under another pipeline */
    cfImplicitSoftSettings implicit;    /**< the implicit-soft pipeline's parameters; must keep their defaults under another pipeline */
} cfWorldDef;

/** Defaults described in ::cfWorldDef. */
cfWorldDef cf_world_def_default(void);

/**
 * Check every setting of @p d. On failure, CF_BAD_INPUT and "<field>: <reason>" in @p err, e.g.
 * "erp: must be in [0, 1] (got 2)" (the scene loader prefixes the file and "world."). The one
 * validator of world settings: cf_world_init(), cf_world_step() and the scene loader use it.
 */
cfStatus cf_world_def_check(const cfWorldDef *d, cfError *err);

/**
 * Switch @p d to solver @p s (NULL: none) and put back to its default every setting that @p s does
 * not take (today: the preconditioner and soft_tolerance, choices of the dual-form solvers only), so that a program
 * that lets the user change solvers (the viewer's key, `cflab compare`) keeps settings that
 * cf_world_def_check() accepts without repeating its rules. Only those settings change.
 */
void cf_world_def_use_solver(cfWorldDef *d, const cfSolver *s);

/** Whether solver @p s takes a preconditioner choice (cfWorldDef::preconditioner other than exact). */
bool cf_solver_takes_preconditioner(const cfSolver *s);

/**
 * The ERP and CFM the step uses (one conversion for every solver): those of the spring
 * (contact_stiffness, contact_damping) by cf_erp_cfm() (ch02.7) when contact_stiffness > 0,
 * else def.erp and def.cfm. CF_BAD_INPUT for an invalid spring.
 */
cfStatus cf_world_erp_cfm(const cfWorldDef *d, double *erp, double *cfm);

/** Sleeping (cfWorldDef::sleep_steps): a body is at rest below this speed (m/s), Box2D's
 *  b2_linearSleepTolerance. */
#define CF_SLEEP_LINEAR 0.01
/** Sleeping: and below this angular speed (rad/s), Box2D's b2_angularSleepTolerance of 2 degrees/s. */
#define CF_SLEEP_ANGULAR 0.035

/** The scene's name of cfWorldDef::per_island (world.solver). */
#define CF_SOLVER_PER_ISLAND "per-island"

/** Capacity of cfStepStats::solver_history: per-iteration residuals kept of one solve. */
#define CF_STATS_HISTORY 256
/** Solvers per step that cfStepStats::island counts (a solver per island). */
#define CF_STATS_ISLAND_SOLVERS 8

/**
 * Per-step measurements, reset at the start of every cf_world_step().
 *
 * The last solve of the step is the contact solve of CF_STAGE_SOLVE when it ran (a solver is
 * set and there are contacts), otherwise the conjugate-gradient solve of the last soft body
 * without contacts, otherwise none: iterations, residuals and history are then all zero.
 *
 * cfStepStats::solver_history holds the solver's own measure (cfStepStats::solver_measure says
 * which: cfSolver::measure for a contact solver, CF_MEASURE_LINEAR for conjugate gradients)
 * after each of its first min(iterations, #CF_STATS_HISTORY) iterations; the buffer lives in the
 * world, filling it allocates nothing. To compare solvers on one number, every contact solve
 * also gets cfStepStats::common_residual: the natural-map residual of the Coulomb problem
 * (cone, De Saxce; cf_contact_residual2()) at the impulses found and the velocities they give,
 * whatever the solver's model or form.
 */
typedef struct cfStepStats {
    double stage_seconds[CF_STAGE_COUNT]; /**< wall time of each stage of the world's pipeline in the last step: entry k is stage k of cf_pipeline_of(def.pipeline)->stages (for the velocity pipeline, the cfStage order) */
    int solver_iterations;                /**< iterations used by the last solve */
    double solver_residual;               /**< final residual of the last solve, in its own measure */
    cfMeasure solver_measure;             /**< what solver_residual and solver_history hold */
    double common_residual;               /**< the contact solve's Coulomb natural-map residual (0 without one); with
                                               @ref common_directional, the directional box's */
    bool common_directional;              /**< the step's row solved texture contacts on their directional boxes (chapter
                                               10.6): common_residual is that box's natural map (cf_fc_texture_residual()),
                                               not the Coulomb cone's */
    cfStatus solver_status;               /**< the last solve's status (a used-up budget is CF_MAX_ITER, yet the step goes on); for a
                                               contact solve, CF_OK only when the common residual met the tolerance (cf_solvers.h) */
    bool contact_solve;                   /**< the step solved its contacts (velocity pipeline) or its pipeline's own system (ipc,
                                               implicit-soft): solver_status is that solve's, and a status other than CF_OK counts */
    double solver_common;                 /**< the common residual the contact solve was checked against (relative, cf_solvers.h; 0 without one) */
    double solver_common_tol;             /**< the tolerance it was checked against */
    cfStatus solver_claimed;              /**< the status the solver returned before the check (solver_status unless downgraded) */
    int solver_retries;                   /**< solves repeated by on_solver_failure "retry" this step (0 or 1) */
    int split_iterations;                 /**< iterations of the split stage's position solve this step (assembled and dual forms; 0: none ran) */
    double solver_work;                   /**< work of the step's contact solves so far, in couplings x sweeps (what cfWorldDef::step_budget bounds) */
    int solves;                           /**< contact solves of the step (more than 1 with CMR rounds, halvings or a retry) */
    int budget_cuts;                      /**< solves of the step whose iterations step_budget cut (that converged or stagnated within them) */
    int n_contacts;                       /**< contacts in the last step */
    /** a solver per island (cfWorldDef::per_island): the islands with contacts of the last step and,
     *  for each solver the rule chose for the islands awake (at most CF_STATS_ISLAND_SOLVERS, in the
     *  order first chosen), its islands and their contacts */
    struct {
        int islands;
        int sleeping;     /**< of them, asleep (cfWorldDef::sleep_steps): not solved */
        int n_solvers;
        const cfSolver *solver[CF_STATS_ISLAND_SOLVERS];
        int islands_of[CF_STATS_ISLAND_SOLVERS];
        int contacts_of[CF_STATS_ISLAND_SOLVERS];
        bool ellipses_of[CF_STATS_ISLAND_SOLVERS]; /**< its islands had anisotropic contacts (ellipses) */
        bool texture_of[CF_STATS_ISLAND_SOLVERS];  /**< its islands had texture contacts (directional boxes) */
        const char *law_of[CF_STATS_ISLAND_SOLVERS]; /**< the law it solved there (cf_solver_law()) */
    } island;
    /** residual after iteration k + 1 of the last solve, for k < cfStepStats::solver_history_len
     *  (see above); the entries past it mean nothing */
    double solver_history[CF_STATS_HISTORY];
    int solver_history_len;               /**< entries of cfStepStats::solver_history written by the last solve */
    /** inner iterations of outer iteration k of a nested solver (ICA's inner sweeps), beside
     *  solver_history[k]; zero for the others */
    int solver_inner[CF_STATS_HISTORY];
    int cmr_rounds;                       /**< CMR: rounds of the step, over every (sub)step attempted (0 without CMR) */
    int cmr_rounds_max;                   /**< CMR: the most rounds a committed (sub)step needed */
    int cmr_substeps;                     /**< CMR: (sub)steps committed (1 unless the step was halved) */
    int cmr_halvings;                     /**< CMR: the deepest halving */
    int cmr_unresolved;                   /**< CMR: substeps committed with collisions left */
    /** the ipc pipeline's step (zero under another pipeline); its Newton iterations, status and
     *  pairs within dhat are also solver_iterations, solver_status and n_contacts */
    struct {
        double dhat, kappa;    /**< the values the step used (the settings, or the derived defaults) */
        int halvings;          /**< line-search halvings */
        int ccd_clamps;        /**< line searches whose start CCD cut below 1 */
        double min_distance;   /**< smallest pair distance after the step (m; INFINITY without pairs) */
        double barrier_energy; /**< kappa sum_k b(d_k, dhat) after the step (J; edge-edge pairs with their mollifier) */
        double force_residual; /**< |grad f|_inf / h^2 of the last Newton iterate (N) */
        int kappa_doublings;   /**< adaptive_kappa: how many times the step doubled kappa (kappa above is its final value) */
    } ipc;
    /** the implicit-soft pipeline's step (zero under another pipeline); its Newton iterations,
     *  final |r|_inf, status and node-plane pairs within delta are also solver_iterations,
     *  solver_residual, solver_status and n_contacts */
    struct {
        double kappa;   /**< the penalty stiffness the step ended with (the setting, or bumped) */
        int bumps;      /**< stiffness bumps (repeats) of the step */
        double min_gap; /**< smallest node-plane gap after the step (m; INFINITY without planes) */
    } implicit;
} cfStepStats;

/**
 * A friction law for the contacts between two bodies (a scene's material pair). Sides are named
 * by kind and index: a rigid body, a soft body, or CF_SIDE_STATIC (index -1) for every static
 * side. The pair is unordered: structure[k] belongs to the body of kind[k], index[k].
 *
 * Chapter 10: an orthotropic or tensor law takes its direction at each contact from cfFrictionPair::field
 * (CF_FIELD_WORLD: law.dir itself); the Matchstick model (cfFrictionPair::matchstick) makes each contact's
 * ellipse from the structure directions of the two bodies at the contact point (ch10.1), with
 * mu the isotropic coefficient. The contacts stage turns every anisotropic law into its ellipse
 * in the contact's frame (cf_contact_ellipse_frame(), cf_contact_matchstick()).
 */
typedef struct cfFrictionPair {
    cfSideKind kind[2];  /**< kinds of the two bodies */
    int index[2];        /**< their indices (rigid or soft; -1 for static) */
    double mu;           /**< the isotropic coefficient (>= 0), replacing sqrt(mu_a mu_b) */
    cfFriction law;      /**< the law (zeroed: isotropic) */
    cfDirectionField field;        /**< orthotropic and tensor laws: the field of law.dir (zeroed: CF_FIELD_WORLD, law.dir) */
    bool matchstick;               /**< the Matchstick model (law stays zeroed): mu, @ref aniso and @ref structure */
    double aniso[2];               /**< Matchstick: (mu_t^A, mu_b^A) of parallel structures (>= 0) */
    cfDirectionField structure[2]; /**< Matchstick: the structure direction field of each body */
    bool texture;                  /**< texture friction by plowing (chapter 10.6, notes 6.3; law stays zeroed): each
                                        contact's directional box from the height fields of the two bodies
                                        (cf_world_add_texture(); at least one of them has one), plus @ref mu */
    double patch;                  /**< texture: half the side of the square patch sampled around a contact (m, > 0) */
    int samples;                   /**< texture: samples per side of the patch, 1 to #CF_TEXTURE_SAMPLES_MAX */
} cfFrictionPair;

/** Most samples per side of a texture pair's patch (cfFrictionPair::samples). */
#define CF_TEXTURE_SAMPLES_MAX 64
/** Most samples per period of a body's height field (cfBodyTexture::nx, ny). */
#define CF_TEXTURE_GRID_MAX 4096

/**
 * A rigid body's height-field texture (chapter 10.6): the surface detail texture friction plows
 * with. The heights h[j nx + i] (m) sit at origin + i cell u + j cell v, periodic in both
 * directions; u, v orthonormal and u x v the surface's outward mean normal, all in the BODY's
 * frame (a fixed body's frame is the world's). The contacts stage turns it into ch10.6's
 * cfHeightField at the body's pose.
 */
typedef struct cfBodyTexture {
    int body;      /**< the rigid body (index) */
    int nx;        /**< samples per period along u, 2 to #CF_TEXTURE_GRID_MAX */
    int ny;        /**< samples per period along v, 2 to #CF_TEXTURE_GRID_MAX */
    double cell;   /**< grid spacing (m, > 0) */
    double *h;     /**< nx ny heights (owned by the world) */
    cfVec3 origin; /**< sample (0, 0), body frame */
    cfVec3 u;      /**< the first texture axis, body frame (unit) */
    cfVec3 v;      /**< the second texture axis, body frame (unit, orthogonal to u) */
} cfBodyTexture;

/**
 * A spring drive on a rigid body: its anchor moves at constant velocity, anchor(t) = anchor +
 * t velocity, and pulls the body's centre of mass with
 * \f$F = k\,(\mathrm{anchor}(t) - x) + c\,(\mathrm{velocity} - v)\f$, evaluated at the start of each step
 * (t = cfWorld::time) and added to the body's force for that step only. A stiff spring is a
 * constant-speed drive and F reads the force it takes (the texture pull of chapter 10).
 */
typedef struct cfPull {
    int body;          /**< the rigid body (index, not fixed) */
    cfVec3 anchor;     /**< the anchor at t = 0 (world, m) */
    cfVec3 velocity;   /**< the anchor's velocity (m/s) */
    double stiffness;  /**< k (N/m, > 0) */
    double damping;    /**< c (N s/m, >= 0) */
    cfVec3 force;      /**< out: the force of the last step (N); zero before the first */
} cfPull;

/** Most spring drives of a world (cf_world_add_pull()). */
#define CF_PULLS_MAX 8

struct cfWorld;

/**
 * A pipeline: one stage list for the whole step. The world runs the row of def.pipeline; what a
 * row must do:
 * - check(): can this pipeline step the world's bodies? CF_BAD_INPUT with "bodies[i] 'name': ..." or
 *   "soft_bodies[i] 'name': ..." (the scene file's field) in @p err otherwise. The scene loader calls
 *   it after building a world, cf_world_step() before every step.
 * - step(): one step of def.dt from the world's state (soft x, v; rigid poses and velocities),
 *   writing the new state, w->stats (stage k's time in stage_seconds[k]) and, on failure, one line
 *   in w->error (the caller restores the state and adds "the step failed").
 * - stages: the names of its stages in order (at most CF_STAGE_COUNT), for timings and the text.
 *
 * Paper 003's implicit frictional dynamics (exercise ch09.7) is the row "implicit-soft": a value
 * of cfPipelineKind, its settings (cfWorldDef::implicit), its check (mass-spring soft bodies
 * against fixed planes) and its step (cf_implicit_step(): a root finding of the momentum balance
 * over the end velocity).
 */
typedef struct cfPipeline {
    const char *name;                                       /**< scene value of world.pipeline */
    const char *summary;                                    /**< one line */
    int n_stages;                                           /**< stages (1..CF_STAGE_COUNT) */
    const char *stages[CF_STAGE_COUNT];                     /**< their names, in order */
    cfStatus (*check)(const struct cfWorld *w, cfError *err); /**< bodies this pipeline can step */
    cfStatus (*step)(struct cfWorld *w);                    /**< one step (see above) */
} cfPipeline;

/** The row of pipeline @p k, NULL for a value outside [0, CF_PIPELINE_COUNT). */
const cfPipeline *cf_pipeline_of(cfPipelineKind k);

/** Opaque scratch space of the step (sim/stages.h: one member per stage). */
struct cfStepWork;

/** A world of rigid and soft bodies. */
typedef struct cfWorld {
    cfWorldDef def;             /**< settings; may be changed between steps */
    int n_bodies;               /**< rigid bodies in use */
    int cap_bodies;             /**< rigid bodies allocated */
    cfRigidBody *bodies;        /**< rigid bodies (owned) */
    int n_soft;                 /**< soft bodies in use */
    int cap_soft;               /**< soft bodies allocated */
    cfSoftBody *soft;           /**< soft bodies (owned) */
    int n_pairs;                /**< friction pairs in use */
    cfFrictionPair *pairs;      /**< friction laws per pair of bodies (owned) */
    int n_textures;             /**< height-field textures in use */
    cfBodyTexture *textures;    /**< the rigid bodies' textures (owned, heights included; chapter 10.6) */
    int n_pulls;                /**< spring drives in use */
    cfPull *pulls;              /**< spring drives of rigid bodies (owned) */
    cfContactList contacts;     /**< contacts of the last step (empty without a detector) */
    double time;                /**< simulated time (s) */
    long step;                  /**< steps taken */
    long unconverged_steps;     /**< steps taken whose solve did not converge (cfStepStats::contact_solve and a status other than CF_OK) */
    long retried_steps;         /**< steps taken that repeated their solve (on_solver_failure "retry") */
    cfStepStats stats;          /**< measurements of the last step */
    cfError error;              /**< why the last cf_world_step() failed (empty after a successful one) */
    struct cfStepWork *work;    /**< the step's scratch space between stages (owned, not copied) */
} cfWorld;

/** Initialize an empty world with settings @p def (NULL: defaults). CF_BAD_INPUT (message in w->error) for invalid settings. */
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
 * Add a friction law for the contacts between two bodies (cfFrictionPair). CF_BAD_INPUT with a
 * message for an unknown body, mu < 0, or an invalid law (coefficients < 0, a direction of zero
 * length, an invalid direction field, a Matchstick pair with a law or negative coefficients, the
 * CF_LAW_DIRECTIONAL law given by hand, a texture pair whose bodies have no texture
 * (cf_world_add_texture() first) or whose patch or samples are out of range);
 * CF_NO_MEMORY.
 */
cfStatus cf_world_add_friction_pair(cfWorld *w, const cfFrictionPair *p, cfError *err);
/**
 * Give rigid body @p t->body the height-field texture @p t (the heights are copied). CF_BAD_INPUT
 * with a message for an unknown body, a body that already has one, nx or ny outside
 * [2, #CF_TEXTURE_GRID_MAX], cell <= 0, a height or vector that is not finite, or u, v not unit
 * and orthogonal within 1e-9; CF_NO_MEMORY.
 */
cfStatus cf_world_add_texture(cfWorld *w, const cfBodyTexture *t, cfError *err);
/** The texture of rigid body @p body, or NULL when it has none. */
const cfBodyTexture *cf_world_texture_of(const cfWorld *w, int body);
/**
 * Add the spring drive @p p (its force zeroed). CF_BAD_INPUT with a message for more than
 * #CF_PULLS_MAX drives, an unknown or fixed body, stiffness <= 0, damping < 0 or vectors that are not finite; CF_NO_MEMORY.
 */
cfStatus cf_world_add_pull(cfWorld *w, const cfPull *p, cfError *err);
/** The force of drive @p p on its body in the world's present state (N), as the next step applies it. */
cfVec3 cf_pull_force(const cfWorld *w, const cfPull *p);

/**
 * Advance one step of def.dt through the stages. On failure the state is left as it was before
 * the step, the status says why and w->error holds one line naming the setting, body or contact:
 * CF_BAD_INPUT for invalid settings or a solver that cannot take this world's contacts (e.g. a
 * matrix-free rigid solver and a soft contact, or an anisotropic law), CF_DIVERGED when a state
 * would stop being finite, any status of a stage otherwise. A solver that used up its budget is
 * not a failure (cfStepStats::solver_status says so).
 */
cfStatus cf_world_step(cfWorld *w);
/**
 * One step as cf_world_step(), with the stages run by @p step (chapter 11's pipeline,
 * cf_pipeline_step(), ch11.1) on the world's table of stages (::cfStepOps); NULL: the world's own.
 * With cfWorldDef::cmr_rounds > 0 the step is constraint manifold refinement (ch08.6) and @p step
 * is not called. The stages are those of the velocity pipeline: under another (cfWorldDef::pipeline)
 * a non-NULL @p step is refused with CF_BAD_INPUT, NULL runs that pipeline's own step. The settings
 * are checked first (CF_BAD_INPUT and w->error, as cf_world_step()).
 */
cfStatus cf_world_step_with(cfWorld *w, cfStepFn step);
/**
 * Write the last assembled contact problem (the FC3D form of the last step that assembled one,
 * bias and CFM included: exactly what its solver got, also when the step failed) in the Siconos
 * format, so that `cflab solve` reproduces the solve. CF_BAD_INPUT when no problem was assembled
 * (a rows-form solver, no contacts); errors of cf_fc_write_siconos() are passed on.
 */
cfStatus cf_world_write_problem(const cfWorld *w, const char *path, cfError *err);
/**
 * An independent certificate that no surface passes through another, for the worlds the ipc
 * pipeline takes (its check() passes): the surfaces of the soft bodies and of the moving rigid
 * boxes (at their poses) and the static geometry exactly as the ipc pipeline sees them (fixed
 * boxes, planes as the top face of a slab). Counts, by signed volumes only (never chapter 9's
 * distances): every surface edge that crosses a surface triangle of the current state (no shared
 * node), every soft node (once) and every moving box corner whose straight path from its position
 * in @p before (the same world before the step; NULL: no paths) crosses a static triangle.
 * Only the pairs whose axis-aligned boxes overlap are tested (a sweep along one axis; the boxes are
 * compared, never computed with, so no crossing is lost), and the count is that of every pair.
 * Returns the count (0: none), -1 when out of memory, the world is not one the ipc pipeline takes,
 * @p before has other bodies or a position is not finite; @p what (may be NULL) gets the first
 * crossing in index order (edges before paths), in words.
 */
int cf_world_crossings(const cfWorld *w, const cfWorld *before, char *what, size_t cap);

/**
 * Whether this build links chapter 9's sparse path (the reference solutions' solutions/ch09/fast/:
 * broad phase, sparse Newton, adaptive kappa), without which the ipc pipeline takes at most
 * CF_IPC_DENSE_MAX_FREE free nodes and no adaptive kappa: false in a handout and with
 * IMPL=exercises. What the viewer asks before a demo that needs it (cfvDemo::available).
 */
bool cf_world_ipc_sparse_linked(void);

/**
 * For drawing the dhat shells: visit every contact pair of an ipc world (cf_ipc_for_pairs() on the
 * system the pipeline builds from its state) closer than dhat (the setting or its derived default), with the
 * closest points @p a (first feature) and @p b (second) and their distance @p d. CF_BAD_INPUT for
 * another pipeline, CF_NO_MEMORY.
 */
cfStatus cf_world_ipc_pairs(const cfWorld *w, void (*fn)(void *ctx, cfVec3 a, cfVec3 b, double d), void *ctx);

/**
 * The friction law solver @p s (such as cfWorldDef::solver) solves on @p w's contacts, for what
 * programs print: cf_solver_law() of the world's friction_model, with
 * ellipses when a material pair has an orthotropic, tensor or Matchstick law and texture when one
 * has the texture law (the pairs say what the contacts between their bodies will carry). A
 * solver per island: the law of each island is its own row's (cfStepStats::island). Never NULL.
 */
const char *cf_world_friction_law(const cfWorld *w, const cfSolver *s);

/**
 * Total energy: kinetic + gravitational potential (relative to the origin) + elastic (J); for an
 * ipc world also the barrier energy kappa sum b of the state the last step left
 * (cfStepStats::ipc.barrier_energy), the potential that holds the bodies apart.
 */
double cf_world_energy(const cfWorld *w);
/** Total linear momentum of all bodies (kg m/s). */
cfVec3 cf_world_linear_momentum(const cfWorld *w);
/** Total angular momentum of rigid bodies about the origin (kg m^2/s). */
cfVec3 cf_world_angular_momentum(const cfWorld *w);

#ifdef __cplusplus
}
#endif
#endif /* CF_WORLD_H */
