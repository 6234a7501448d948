/* SPDX-License-Identifier: MIT */
/* The world's settings (cfWorldDef): the defaults, and the one validator every user of a world
   goes through (cf_world_init(), cf_world_step(), the scene loader). The names of their values
   are names.c's. */
#include <stdio.h>
#include <string.h>

#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

cfWorldDef cf_world_def_default(void)
{
    cfWorldDef d;
    memset(&d, 0, sizeof d);
    d.gravity = cfu_vec3(0.0, 0.0, -9.81);
    d.dt = 1.0 / 60.0;
    d.rigid_integrator = CF_RIGID_SEMI_IMPLICIT;
    d.gyroscopic = true;
    d.soft_integrator = CF_SOFT_IMPLICIT;
    d.detector = CF_DETECT_NONE;
    d.solver = NULL;
    d.solver_iterations = 20;
    d.solver_tolerance = 1e-8;
    d.on_solver_failure = CF_ON_FAILURE_CONTINUE;
    d.bounds = 1e6;
    d.friction_model = CF_FRICTION_CONE;
    d.friction_directions = 8;
    d.warm_start = true;
    d.ordering = CF_ORDER_SEQUENTIAL;
    d.relaxation = 1.0;
    d.r_factor = CF_RFACTOR_LOCAL;
    d.stabilization = CF_STAB_SPLIT;
    d.erp = 0.2;
    d.cfm = 0.0;
    d.contact_stiffness = 0.0;
    d.contact_damping = 0.0;
    d.restitution_threshold = 0.5;
    d.slop = 0.001;
    d.seed = 1;
    d.max_matrix_mb = 1024.0;
    d.step_budget = CF_STEP_BUDGET_DEFAULT;
    d.preconditioner = CF_PRECOND_EXACT;
    d.cmr_rounds = 0;
    d.cmr_halvings = 2;
    d.pipeline = CF_PIPELINE_VELOCITY;
    d.ipc.dhat = 0.0;
    d.ipc.kappa = 0.0;
    d.ipc.eps_v = 1e-3;
    d.ipc.friction_iterations = 1;
    d.ipc.adaptive_kappa = false;
    d.ipc.tolerance = 1e-8;
    d.implicit.integrator = CF_IMPLICIT_BE;
    d.implicit.kappa = 1e4;
    d.implicit.delta = 1e-3;
    d.implicit.eps = 1e-3;
    d.implicit.profile = CF_SLIDE_QUADRATIC;
    return d;
}

/* "<field>: must be ... (got ...)" */
#define REFUSE(err, ...) cf_error_set(err, CF_BAD_INPUT, __VA_ARGS__)

/* the ipc settings' ranges */
static cfStatus ipc_settings_check(const cfIpcSettings *p, cfError *err)
{
    if (!(isfinite(p->dhat) && p->dhat >= 0.0))
        return REFUSE(err, "ipc.dhat: must be >= 0 (m; 0: 1e-3 of the soft bodies' bounding box diagonal) (got %g)", p->dhat);
    if (!(isfinite(p->kappa) && p->kappa >= 0.0))
        return REFUSE(err, "ipc.kappa: must be >= 0 (N/m; 0: the heaviest node rests at dhat/2) (got %g)", p->kappa);
    if (!(isfinite(p->eps_v) && p->eps_v > 0.0)) return REFUSE(err, "ipc.eps_v: must be > 0 (m/s) (got %g)", p->eps_v);
    if (p->friction_iterations < 1 || p->friction_iterations > 100)
        return REFUSE(err, "ipc.friction_iterations: must be in [1, 100] (got %d)", p->friction_iterations);
    if (!(isfinite(p->tolerance) && p->tolerance > 0.0))
        return REFUSE(err, "ipc.tolerance: must be > 0 (m/s: Newton stops at |dq|_inf / h below it) (got %g)", p->tolerance);
    return CF_OK;
}

/* the first ipc setting changed from its default, or NULL (under another pipeline, a forgotten
   "pipeline" key would otherwise ignore the ipc keys silently) */
static const char *ipc_changed(const cfIpcSettings *p, const cfIpcSettings *def)
{
    return p->dhat != def->dhat ? "dhat" : p->kappa != def->kappa ? "kappa" : p->eps_v != def->eps_v ? "eps_v"
           : p->friction_iterations != def->friction_iterations ? "friction_iterations"
           : p->adaptive_kappa != def->adaptive_kappa ? "adaptive_kappa"
           : p->tolerance != def->tolerance ? "tolerance" : NULL;
}

/* the implicit-soft settings' ranges, and the first changed from its default */
static cfStatus implicit_settings_check(const cfImplicitSoftSettings *p, cfError *err)
{
    if (!(p->integrator >= 0 && p->integrator < CF_IMPLICIT_INTEGRATOR_COUNT))
        return REFUSE(err, "implicit.integrator: unknown value %d", (int)p->integrator);
    if (!(isfinite(p->kappa) && p->kappa > 0.0)) return REFUSE(err, "implicit.kappa: must be > 0 (N/m) (got %g)", p->kappa);
    if (!(isfinite(p->delta) && p->delta > 0.0)) return REFUSE(err, "implicit.delta: must be > 0 (m) (got %g)", p->delta);
    if (!(isfinite(p->eps) && p->eps > 0.0)) return REFUSE(err, "implicit.eps: must be > 0 (m/s) (got %g)", p->eps);
    if (!(p->profile >= 0 && p->profile < CF_SLIDE_PROFILE_COUNT))
        return REFUSE(err, "implicit.profile: unknown value %d", (int)p->profile);
    return CF_OK;
}

static const char *implicit_changed(const cfImplicitSoftSettings *p, const cfImplicitSoftSettings *def)
{
    return p->integrator != def->integrator ? "integrator" : p->kappa != def->kappa ? "kappa"
           : p->delta != def->delta ? "delta" : p->eps != def->eps ? "eps" : p->profile != def->profile ? "profile" : NULL;
}

/* the pipeline and its settings: ranges, no setting of one pipeline under another, and none of the
   velocity pipeline's under another */
static cfStatus pipeline_check(const cfWorldDef *d, cfError *err)
{
    if (!(d->pipeline >= 0 && d->pipeline < CF_PIPELINE_COUNT))
        return REFUSE(err, "pipeline: unknown value %d", (int)d->pipeline);
    cfStatus st = ipc_settings_check(&d->ipc, err);
    if (st == CF_OK) st = implicit_settings_check(&d->implicit, err);
    if (st != CF_OK) return st;
    cfWorldDef def = cf_world_def_default();
    const char *name = cf_pipeline_name(d->pipeline);
    const char *key = d->pipeline != CF_PIPELINE_IPC ? ipc_changed(&d->ipc, &def.ipc) : NULL;
    if (key) return REFUSE(err, "ipc.%s: a setting of the ipc pipeline, and the pipeline is '%s'", key, name);
    key = d->pipeline != CF_PIPELINE_IMPLICIT_SOFT ? implicit_changed(&d->implicit, &def.implicit) : NULL;
    if (key) return REFUSE(err, "implicit.%s: a setting of the implicit-soft pipeline, and the pipeline is '%s'", key, name);
    if (d->pipeline == CF_PIPELINE_VELOCITY) return CF_OK;
    /* the velocity pipeline's stages do not run under another: a setting of theirs would do nothing */
    if (d->solver) return REFUSE(err, "solver: the %s pipeline solves no velocity-level problem; leave it none", name);
    if (d->detector != CF_DETECT_NONE)
        return REFUSE(err, "detector: the %s pipeline finds its contacts itself; leave it none", name);
    if (d->soft_integrator != CF_SOFT_IMPLICIT)
        return REFUSE(err, "soft_integrator: the %s pipeline integrates by its own settings; leave it 'implicit' (got '%s')",
                      name, cf_soft_integrator_name(d->soft_integrator));
    if (d->cmr_rounds != 0) return REFUSE(err, "cmr_rounds: constraint manifold refinement is a velocity-pipeline step");
    /* the contact solve's settings: the pipeline has none, so they would change nothing */
    const char *unused = d->solver_iterations != def.solver_iterations         ? "solver_iterations"
                         : d->solver_tolerance != def.solver_tolerance         ? "solver_tolerance"
                         : d->soft_tolerance != def.soft_tolerance             ? "soft_tolerance"
                         : d->friction_model != def.friction_model             ? "friction_model"
                         : d->friction_directions != def.friction_directions   ? "friction_directions"
                         : d->r_factor != def.r_factor                         ? "r_factor"
                         : d->relaxation != def.relaxation                     ? "relaxation"
                         : d->ordering != def.ordering                         ? "ordering"
                         : d->warm_start != def.warm_start                     ? "warm_start"
                         : d->preconditioner != def.preconditioner             ? "preconditioner"
                         : d->on_solver_failure != def.on_solver_failure       ? "on_solver_failure"
                         : d->step_budget != def.step_budget                   ? "step_budget"
                         : d->split_iterations != def.split_iterations         ? "split_iterations"
                         : d->certify != def.certify                           ? "certify"
                                                                               : NULL;
    if (unused)
        return REFUSE(err, "%s: a setting of the velocity pipeline's contact solve; the %s pipeline solves its own system "
                      "and would ignore it", unused, name);
    return CF_OK;
}

/* the settings of the dual-form solvers only (the preconditioner, soft_tolerance) under another solver */
static cfStatus dual_only_check(const cfWorldDef *d, cfError *err)
{
    if (d->preconditioner != CF_PRECOND_EXACT && !cf_solver_takes_preconditioner(d->solver)) {
        char names[256] = "";
        for (int i = 0, n = 0; i < cf_solver_count() && n < (int)sizeof names; ++i)
            if (cf_solver_takes_preconditioner(cf_solver_at(i)))
                n += snprintf(names + n, sizeof names - (size_t)n, "%s%s", n ? ", " : "", cf_solver_at(i)->name);
        return REFUSE(err, "preconditioner: '%s' is a choice of the dual-form solvers (%s); solver '%s' builds the exact "
                      "W = J A^-1 J^T itself", cf_preconditioner_name(d->preconditioner), names,
                      d->solver ? d->solver->name : "none");
    }
    if (d->soft_tolerance > 0.0 && !cf_solver_takes_preconditioner(d->solver))
        return REFUSE(err, "soft_tolerance: a tolerance of the dual-form solvers' soft rows; solver '%s' stops on "
                      "solver_tolerance", d->solver ? d->solver->name : "none");
    return CF_OK;
}

cfStatus cf_world_def_check(const cfWorldDef *d, cfError *err)
{
    if (!(isfinite(d->dt) && d->dt > 0.0)) return REFUSE(err, "dt: must be > 0 (got %g)", d->dt);
    if (!cfu_vec3_finite(d->gravity)) return REFUSE(err, "gravity: must be finite");
    if (!(d->rigid_integrator >= 0 && d->rigid_integrator < CF_RIGID_INTEGRATOR_COUNT))
        return REFUSE(err, "rigid_integrator: unknown value %d", (int)d->rigid_integrator);
    if (!(d->soft_integrator >= 0 && d->soft_integrator < CF_SOFT_INTEGRATOR_COUNT))
        return REFUSE(err, "soft_integrator: unknown value %d", (int)d->soft_integrator);
    if (!(d->detector >= 0 && d->detector < CF_DETECTOR_COUNT))
        return REFUSE(err, "detector: unknown value %d", (int)d->detector);
    if (!(isfinite(d->contact_margin) && d->contact_margin >= 0.0))
        return REFUSE(err, "contact_margin: must be >= 0 (got %g)", d->contact_margin);
    if (d->solver && !cf_solver_registered(d->solver))
        return REFUSE(err, "solver: not a row of this build's solver table");
    if (d->solver && !d->solver->contacts) {
        char names[512];
        return REFUSE(err, "solver: '%s' solves LCP files only, not contact problems (world solvers: %s)",
                      d->solver->name, cf_solver_names(CF_SOLVERS_WORLD, names, sizeof names));
    }
    if (d->per_island && (!d->solver || d->pipeline != CF_PIPELINE_VELOCITY || d->cmr_rounds > 0))
        return REFUSE(err, "solver: \"" CF_SOLVER_PER_ISLAND "\" steps the velocity pipeline's islands, each by its own "
                      "solver: %s", !d->solver ? "it needs a solver for the stages before the solve (pgs)"
                      : d->pipeline != CF_PIPELINE_VELOCITY ? "pipeline must be \"velocity\"" : "cmr_rounds must be 0");
    if (d->sleep_steps < 0) return REFUSE(err, "sleep_steps: must be >= 0 (got %d)", d->sleep_steps);
    if (d->sleep_steps > 0 && !d->per_island)
        return REFUSE(err, "sleep_steps: islands sleep under solver \"" CF_SOLVER_PER_ISLAND "\" only (solver '%s')",
                      d->solver ? d->solver->name : "none");
    if (d->solver_iterations < 0) return REFUSE(err, "solver_iterations: must be >= 0 (got %d)", d->solver_iterations);
    if (!(d->certify >= 0 && d->certify < CF_CERTIFY_COUNT)) return REFUSE(err, "certify: unknown value %d", (int)d->certify);
    if (d->split_iterations < 0)
        return REFUSE(err, "split_iterations: must be >= 0 (0: max(solver_iterations, 4)) (got %d)", d->split_iterations);
    if (!(isfinite(d->soft_tolerance) && d->soft_tolerance >= 0.0))
        return REFUSE(err, "soft_tolerance: must be >= 0 (got %g)", d->soft_tolerance);
    if (!(isfinite(d->solver_tolerance) && d->solver_tolerance >= 0.0))
        return REFUSE(err, "solver_tolerance: must be >= 0 (got %g)", d->solver_tolerance);
    if (!(d->on_solver_failure >= 0 && d->on_solver_failure < CF_ON_FAILURE_COUNT))
        return REFUSE(err, "on_solver_failure: unknown value %d", (int)d->on_solver_failure);
    if (!(isfinite(d->bounds) && d->bounds > 0.0)) return REFUSE(err, "bounds: must be > 0 (m) (got %g)", d->bounds);
    /* a gap wider than the world cannot be needed, and makes every pair of features a contact
       (make fuzz: a margin of 1e300 on the mixed ch08 scene ran past 60 s of CPU in 20 steps) */
    if (d->contact_margin > d->bounds)
        return REFUSE(err, "contact_margin: must be at most world.bounds, %g m (got %g)", d->bounds, d->contact_margin);
    if (!(d->friction_model >= 0 && d->friction_model < CF_FRICTION_MODEL_COUNT))
        return REFUSE(err, "friction_model: unknown value %d", (int)d->friction_model);
    if (d->solver && d->friction_model == CF_FRICTION_BOX && !d->solver->friction_model && d->solver->form != CF_FORM_BLCP &&
        !d->solver->directional) { /* a directional row solves a box: its own */
        char names[512] = "";
        for (int i = 0, n = 0; i < cf_solver_count() && n < (int)sizeof names; ++i) {
            const cfSolver *r = cf_solver_at(i);
            if (r->contacts && (r->friction_model || r->form == CF_FORM_BLCP))
                n += snprintf(names + n, sizeof names - (size_t)n, "%s%s", n ? ", " : "", r->name);
        }
        return REFUSE(err, "friction_model: solver '%s' solves the Coulomb cone only and would ignore \"box\" (it is a "
                      "choice of: %s)", d->solver->name, names);
    }
    if (d->friction_directions < 3 || d->friction_directions > 64)
        return REFUSE(err, "friction_directions: must be in [3, 64] (got %d)", d->friction_directions);
    if (!(d->ordering >= 0 && d->ordering < CF_ORDER_COUNT))
        return REFUSE(err, "ordering: unknown value %d", (int)d->ordering);
    if (d->solver && d->ordering != CF_ORDER_SEQUENTIAL && !d->solver->ordered) {
        char names[256] = "";
        for (int i = 0, n = 0; i < cf_solver_count() && n < (int)sizeof names; ++i)
            if (cf_solver_at(i)->ordered && cf_solver_at(i)->contacts)
                n += snprintf(names + n, sizeof names - (size_t)n, "%s%s", n ? ", " : "", cf_solver_at(i)->name);
        return REFUSE(err, "ordering: solver '%s' sweeps in one order only; '%s' applies to: %s", d->solver->name,
                      cf_ordering_name(d->ordering), names);
    }
    if (!(d->r_factor >= 0 && d->r_factor < CF_RFACTOR_COUNT))
        return REFUSE(err, "r_factor: unknown value %d", (int)d->r_factor);
    if (d->solver && d->r_factor != CF_RFACTOR_LOCAL && !d->solver->r_factors)
        return REFUSE(err, "r_factor: '%s' is a strategy of the PROX solvers (chapter 7); solver '%s' would ignore it",
                      cf_rfactor_name(d->r_factor), d->solver->name);
    if (!(d->relaxation > 0.0 && d->relaxation < 2.0))
        return REFUSE(err, "relaxation: must be in (0, 2) (got %g)", d->relaxation);
    if (!(d->stabilization >= 0 && d->stabilization < CF_STABILIZATION_COUNT))
        return REFUSE(err, "stabilization: unknown value %d", (int)d->stabilization);
    if (d->solver && d->solver->split_only && d->stabilization != CF_STAB_SPLIT)
        return REFUSE(err, "stabilization: solver '%s' corrects positions in its own substeps and takes no velocity bias: "
                      "use \"split\", not \"%s\"", d->solver->name, cf_stabilization_name(d->stabilization));
    if (!(d->erp >= 0.0 && d->erp <= 1.0)) return REFUSE(err, "erp: must be in [0, 1] (got %g)", d->erp);
    if (!(isfinite(d->cfm) && d->cfm >= 0.0)) return REFUSE(err, "cfm: must be >= 0 (got %g)", d->cfm);
    if (!(isfinite(d->contact_stiffness) && d->contact_stiffness >= 0.0))
        return REFUSE(err, "contact_stiffness: must be >= 0 (got %g)", d->contact_stiffness);
    if (!(isfinite(d->contact_damping) && d->contact_damping >= 0.0))
        return REFUSE(err, "contact_damping: must be >= 0 (got %g)", d->contact_damping);
    if (d->contact_damping > 0.0 && d->contact_stiffness == 0.0)
        return REFUSE(err, "contact_damping: needs contact_stiffness > 0 (a damper alone does not remove penetration)");
    if (!(isfinite(d->slop) && d->slop >= 0.0)) return REFUSE(err, "slop: must be >= 0 (got %g)", d->slop);
    if (!(isfinite(d->restitution_threshold) && d->restitution_threshold >= 0.0))
        return REFUSE(err, "restitution_threshold: must be >= 0 (m/s) (got %g)", d->restitution_threshold);
    if (!(isfinite(d->manifold_tolerance) && d->manifold_tolerance >= 0.0))
        return REFUSE(err, "manifold_tolerance: must be >= 0 (got %g)", d->manifold_tolerance);
    if (!(isfinite(d->max_matrix_mb) && d->max_matrix_mb > 0.0))
        return REFUSE(err, "max_matrix_mb: must be > 0 (got %g)", d->max_matrix_mb);
    if (!(isfinite(d->step_budget) && d->step_budget > 0.0))
        return REFUSE(err, "step_budget: must be > 0 (contact sweeps) (got %g)", d->step_budget);
    if (!(d->preconditioner >= 0 && d->preconditioner < CF_PRECONDITIONER_COUNT))
        return REFUSE(err, "preconditioner: unknown value %d", (int)d->preconditioner);
    cfStatus st = dual_only_check(d, err);
    if (st != CF_OK) return st;
    if (d->cmr_rounds < 0 || d->cmr_rounds > 16) return REFUSE(err, "cmr_rounds: must be in [0, 16] (got %d)", d->cmr_rounds);
    if (d->cmr_halvings < 0 || d->cmr_halvings > 8)
        return REFUSE(err, "cmr_halvings: must be in [0, 8] (got %d)", d->cmr_halvings);
    if (d->cmr_rounds > 0 && (!d->solver || d->solver->form == CF_FORM_ROWS || d->detector == CF_DETECT_NONE))
        return REFUSE(err, "cmr_rounds: constraint manifold refinement needs a detector and a solver of assembled or "
                      "dual-form problems (got detector '%s', solver '%s')", cf_detector_name(d->detector),
                      d->solver ? d->solver->name : "none");
    return pipeline_check(d, err);
}

bool cf_solver_takes_preconditioner(const cfSolver *s) { return s && s->form == CF_FORM_DUAL; }

void cf_world_def_use_solver(cfWorldDef *d, const cfSolver *s)
{
    d->solver = s;
    if (!cf_solver_takes_preconditioner(s)) {
        d->preconditioner = cf_world_def_default().preconditioner;
        d->soft_tolerance = cf_world_def_default().soft_tolerance;
    }
}
