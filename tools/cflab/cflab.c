/* SPDX-License-Identifier: MIT */
/* cflab: the command-line front end (`cflab run SCENE ...`); one table entry per subcommand. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h> /* openblas_set_num_threads */

#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

#include "args.h"

#ifndef CFLAB_VERSION
#define CFLAB_VERSION "0.1.0"
#endif

/* exit statuses */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_BAD_INPUT = 2 };

/* ---- small helpers ------------------------------------------------------------------------ */

static int parse_positive_double(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || !(v > 0.0)) return 0;
    *out = v;
    return 1;
}

/* Write @p s as one CSV field (quoted when it holds a comma, quote or line break). */
static void csv_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* ---- measurements per body ------------------------------------------------------------------ */

/* Kinetic plus gravitational potential energy of a rigid body (zero for fixed bodies, as in
   cf_world_energy()). */
static double rigid_energy(const cfRigidBody *b, cfVec3 g)
{
    if (b->fixed) return 0.0;
    return cf_rigid_kinetic_energy(b) - b->mass * cfu_dot(g, b->x);
}

/* Kinetic + elastic + gravitational potential energy of a soft body. */
static double soft_energy(const cfSoftBody *s, cfVec3 g)
{
    double e = cf_soft_kinetic_energy(s) + cf_soft_elastic_energy(s, s->x);
    for (int k = 0; k < s->n_nodes; ++k) e -= s->mass[k] * cfu_dot(g, s->x[k]);
    return e;
}

static const char CSV_HEADER[] = "time,body,name,kind,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,energy,solve\n";

static void csv_row(FILE *f, double t, int index, const char *name, const char *kind, cfVec3 x, cfQuat q,
                    cfVec3 v, cfVec3 w, double energy, const char *solve)
{
    fprintf(f, "%.12g,%d,", t, index);
    csv_text(f, name);
    fprintf(f, ",%s,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%s\n", kind,
            x.x, x.y, x.z, q.w, q.x, q.y, q.z, v.x, v.y, v.z, w.x, w.y, w.z, energy, solve);
}

/* the last step's solve as the CSV's last column: its status ("converged" only when the common
   residual met the tolerance), "none" before the first step or without a solve */
static const char *solve_column(const cfWorld *w)
{
    return w->step > 0 && w->stats.contact_solve ? cf_status_name(w->stats.solver_status) : "none";
}

/* One row per body: rigid bodies first, then soft bodies (centre of mass, identity
   orientation, momentum / mass as velocity, zero angular velocity). */
static void csv_rows(FILE *f, const cfWorld *w)
{
    cfVec3 g = w->def.gravity;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        csv_row(f, w->time, i, b->name, "rigid", b->x, b->q, b->v, b->w, rigid_energy(b, g), solve_column(w));
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        cfVec3 com = cfu_zero3(), p = cfu_zero3();
        cf_soft_com(s, &com, &p);
        double m = 0.0;
        for (int k = 0; k < s->n_nodes; ++k) m += s->mass[k];
        cfVec3 v = m > 0.0 ? cfu_scale(1.0 / m, p) : cfu_zero3();
        csv_row(f, w->time, w->n_bodies + i, s->name, "soft", com, cfu_quat_identity(), v, cfu_zero3(),
                soft_energy(s, g), solve_column(w));
    }
}

/* ---- cflab run ---------------------------------------------------------------------------- */

static void run_help(FILE *f)
{
    fputs("usage: cflab run SCENE.json [options]\n"
          "\n"
          "Run a scene headless. Without --csv nothing but a one-line result (or the summary) is\n"
          "printed.\n"
          "\n"
          "options:\n"
          "  --steps N     number of steps (default: the scene's world.steps)\n"
          "  --dt H        time step in seconds (default: the scene's world.dt)\n"
          "  --csv FILE    write the trajectory as CSV (\"-\" for standard output): a header row,\n"
          "                then one row per body for the initial state and every K-th step\n"
          "                (and the last step): time,body,name,kind,x,y,z,qw,qx,qy,qz,\n"
          "                vx,vy,vz,wx,wy,wz,energy,solve (the step's solve: converged, max-iterations,\n"
          "                ..., none). Soft bodies give their centre of mass,\n"
          "                identity orientation, momentum/mass and kinetic+elastic+potential energy.\n"
          "  --every K     write every K-th step (default 1)\n"
          "  --solver S    contact solver: none, a world solver of `cflab solvers`, or per-island\n"
          "                (chapter 11.2's rule chooses one for each island of rigid bodies)\n"
          "  --iters N     solver iterations (sweeps) per step\n"
          "  --friction M  friction model: cone or box\n"
          "  --r-factor R  r-factors of the PROX solvers: local, global or blocked\n"
          "  --preconditioner P  how the dual-form solver (dual) anticipates A^-1: exact,\n"
          "                lumped, block-diagonal, pcg-jacobi or pcg-ic (chapter 8)\n"
          "  --no-warm-start  start every solve from zero impulses\n"
          "  --summary     print scene, expectation, energy drift, angular momentum change, timing\n"
          "  --history     print the last step's solver residual after each iteration as CSV:\n"
          "                a header row iteration,residual, then one row per iteration (1, 2, ...;\n"
          "                at most the first 256). The measure is the solver's own (`cflab\n"
          "                solvers` names it): pgs gives the largest impulse change of each\n"
          "                sweep (N s), the assembled solvers their natural-map residual\n"
          "  --dump-problem FILE  when a step fails (or at the end), write its assembled contact problem\n"
          "                in the Siconos FC3D format, for `cflab solve FILE` (assembled solvers only); a\n"
          "                problem that format cannot hold (chapter 10's ellipses, texture friction's\n"
          "                directional boxes) is not written: the message says why, exit status 1\n"
          "  --quiet       print nothing but errors (and what --summary, --history or --csv - ask for)\n"
          "  -h, --help    this text\n"
          "\n"
          "exit status: 0 done, 1 a step failed, 2 bad arguments or an invalid scene\n",
          f);
}

typedef struct RunOptions {
    const char *scene;
    long steps;      /* -1: from the scene */
    double dt;       /* 0: from the scene */
    const char *csv; /* NULL: no trajectory */
    const char *dump; /* NULL: no problem written */
    long every;
    int summary, quiet;
    int history;     /* 1: print the last step's residual per iteration */
    const cfSolver *solver; /* with solver_set: NULL for none */
    int solver_set;  /* 0: from the scene */
    int per_island;  /* with solver_set: "per-island" (chapter 11.2's rule per island; solver is then pgs) */
    int iters;       /* -1: from the scene */
    int friction;    /* -1: from the scene */
    int r_factor;    /* -1: from the scene */
    int precond;     /* -1: from the scene */
    int cold;        /* 1: no warm start */
    char given[256]; /* " --iters 5 --solver pgs": the world settings given on the command line, for messages */
} RunOptions;

/* index of @p name among the names of an enum (name_of(0..n-1)), or -1 */
static int enum_index(const char *name, const char *(*name_of)(int), int n)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(name, name_of(i)) == 0) return i;
    return -1;
}
static const char *friction_name_i(int i) { return cf_friction_model_name((cfFrictionModel)i); }
static const char *rfactor_name_i(int i) { return cf_rfactor_name((cfRFactor)i); }
static const char *precond_name_i(int i) { return cf_preconditioner_name((cfPreconditioner)i); }

/* Parse the options of `cflab run`; returns -1 to go on, or an exit status. */
static int run_parse(int argc, char **argv, RunOptions *o)
{
    o->scene = NULL;
    o->steps = -1;
    o->dt = 0.0;
    o->csv = NULL;
    o->dump = NULL;
    o->every = 1;
    o->summary = o->quiet = o->history = 0;
    o->solver = NULL;
    o->solver_set = 0;
    o->iters = o->friction = o->r_factor = o->precond = -1;
    o->cold = 0;
    o->given[0] = '\0';
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *val;
        int missing = 0;
        static const char *const settings[] = {"--dt", "--solver", "--iters", "--friction", "--r-factor", "--preconditioner",
                                               "--no-warm-start", NULL};
        for (int k = 0; settings[k]; ++k)
            if (strcmp(a, settings[k]) == 0) {
                size_t used = strlen(o->given);
                snprintf(o->given + used, sizeof o->given - used, " %s%s%s", a, i + 1 < argc && k < 6 ? " " : "",
                         i + 1 < argc && k < 6 ? argv[i + 1] : "");
            }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            run_help(stdout);
            return EXIT_OK;
        } else if (strcmp(a, "--summary") == 0) {
            o->summary = 1;
        } else if (strcmp(a, "--history") == 0) {
            o->history = 1;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = 1;
        } else if ((val = cflab_option_value(argc, argv, &i, "--steps", &missing))) {
            if (!cflab_parse_long(val, 0, INT_MAX, &o->steps)) {
                fprintf(stderr, "cflab run: --steps: expected an integer >= 0 (got '%s')\n", val);
                return EXIT_BAD_INPUT;
            }
        } else if ((val = cflab_option_value(argc, argv, &i, "--every", &missing))) {
            if (!cflab_parse_long(val, 1, INT_MAX, &o->every)) {
                fprintf(stderr, "cflab run: --every: expected an integer >= 1 (got '%s')\n", val);
                return EXIT_BAD_INPUT;
            }
        } else if ((val = cflab_option_value(argc, argv, &i, "--dt", &missing))) {
            if (!parse_positive_double(val, &o->dt)) {
                fprintf(stderr, "cflab run: --dt: expected a finite number > 0 (got '%s')\n", val);
                return EXIT_BAD_INPUT;
            }
        } else if (strcmp(a, "--no-warm-start") == 0) {
            o->cold = 1;
        } else if ((val = cflab_option_value(argc, argv, &i, "--solver", &missing))) {
            o->solver_set = 1;
            o->per_island = strcmp(val, CF_SOLVER_PER_ISLAND) == 0;
            o->solver = strcmp(val, "none") == 0 ? NULL : cf_solver_find(o->per_island ? "pgs" : val);
            if (strcmp(val, "none") != 0 && !(o->solver && o->solver->contacts)) {
                char names[512];
                fprintf(stderr, "cflab run: --solver: unknown solver '%s' (none, " CF_SOLVER_PER_ISLAND " or one of: %s)%s\n", val,
                        cf_solver_names(CF_SOLVERS_WORLD, names, sizeof names), cf_solver_absent_reason(val));
                return EXIT_BAD_INPUT;
            }
        } else if ((val = cflab_option_value(argc, argv, &i, "--friction", &missing))) {
            if ((o->friction = enum_index(val, friction_name_i, (int)CF_FRICTION_MODEL_COUNT)) < 0) {
                fprintf(stderr, "cflab run: --friction: expected cone or box (got '%s')\n", val);
                return EXIT_BAD_INPUT;
            }
        } else if ((val = cflab_option_value(argc, argv, &i, "--r-factor", &missing))) {
            if ((o->r_factor = enum_index(val, rfactor_name_i, (int)CF_RFACTOR_COUNT)) < 0) {
                fprintf(stderr, "cflab run: --r-factor: expected local, global or blocked (got '%s')\n", val);
                return EXIT_BAD_INPUT;
            }
        } else if ((val = cflab_option_value(argc, argv, &i, "--preconditioner", &missing))) {
            if ((o->precond = enum_index(val, precond_name_i, (int)CF_PRECONDITIONER_COUNT)) < 0) {
                fprintf(stderr, "cflab run: --preconditioner: expected exact, lumped, block-diagonal, pcg-jacobi or "
                        "pcg-ic (got '%s')\n", val);
                return EXIT_BAD_INPUT;
            }
        } else if ((val = cflab_option_value(argc, argv, &i, "--iters", &missing))) {
            char *end;
            long v = strtol(val, &end, 10);
            if (*end || v < 0 || v > 1000000) {
                fprintf(stderr, "cflab run: --iters: expected an integer >= 0 (got '%s')\n", val);
                return EXIT_BAD_INPUT;
            }
            o->iters = (int)v;
        } else if ((val = cflab_option_value(argc, argv, &i, "--csv", &missing))) {
            o->csv = val;
        } else if ((val = cflab_option_value(argc, argv, &i, "--dump-problem", &missing))) {
            o->dump = val;
        } else if (missing) {
            fprintf(stderr, "cflab run: %s needs a value (see cflab run --help)\n", a);
            return EXIT_BAD_INPUT;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "cflab run: unknown option '%s' (see cflab run --help)\n", a);
            return EXIT_BAD_INPUT;
        } else if (o->scene) {
            fprintf(stderr, "cflab run: one scene at a time (got '%s' and '%s')\n", o->scene, a);
            return EXIT_BAD_INPUT;
        } else {
            o->scene = a;
        }
    }
    if (!o->scene) {
        fprintf(stderr, "cflab run: no scene given (usage: cflab run SCENE.json [options]; see --help)\n");
        return EXIT_BAD_INPUT;
    }
    return -1;
}

/* What --summary reports, measured during the run. */
typedef struct RunStats {
    double e0, e1;        /* energy at start and end */
    cfVec3 L0;            /* angular momentum at start */
    double max_dL;        /* max |L(t) - L0| */
    double seconds;       /* wall time spent in cf_world_step() */
    long steps_done;
    double stage[CF_STAGE_COUNT]; /* wall time per stage, summed */
    long contacts;        /* contacts summed over steps */
    int max_contacts;     /* most contacts in one step */
    double max_work;      /* the most work of one step (cfStepStats::solver_work) */
    long max_work_step;   /* that step */
    long budget_cuts;     /* solves whose iterations the budget cut (cfStepStats::budget_cuts) */
    double residual;      /* solver residual of the last step (its own measure) */
    double common;        /* the last step's common residual (Coulomb natural map) */
    long solves;          /* steps with a solve (cfStepStats::contact_solve) */
    cfStatus last_failure; /* the status of the last step whose solve did not converge */
    double failure_common, failure_tol; /* its common residual and tolerance */
} RunStats;

static void print_summary(FILE *f, const char *path, const cfSceneInfo *info, const cfWorld *w,
                          const RunStats *r)
{
    fprintf(f, "scene:      %s (%s)\n", info->name[0] ? info->name : "(unnamed)", path);
    if (info->expect[0]) fprintf(f, "expect:     %s\n", info->expect);
    fprintf(f, "bodies:     %d rigid, %d soft\n", w->n_bodies, w->n_soft);
    fprintf(f, "steps:      %ld x dt %g s = %g s simulated\n", r->steps_done, w->def.dt, w->time);
    fprintf(f, "energy:     start %.9g J, end %.9g J, ", r->e0, r->e1);
    if (fabs(r->e0) > 0.0)
        fprintf(f, "relative drift %+.3e\n", (r->e1 - r->e0) / fabs(r->e0));
    else
        fprintf(f, "absolute drift %+.3e J (start energy is zero)\n", r->e1 - r->e0);
    double L0 = cfu_norm(r->L0);
    fprintf(f, "ang. mom.:  (rigid bodies, about the origin) |L0| = %.9g kg m^2/s, max |L - L0| = %.3e", L0,
            r->max_dL);
    if (L0 > 0.0) fprintf(f, " (relative %.3e)", r->max_dL / L0);
    fputc('\n', f);
    double per_step = r->steps_done > 0 ? r->seconds / (double)r->steps_done : 0.0;
    fprintf(f, "wall time:  %.3g us per step (%.3g s in cf_world_step)\n", 1e6 * per_step, r->seconds);
    if (w->def.detector != CF_DETECT_NONE || w->def.solver) {
        const cfSolver *s = w->def.solver;
        char choice[160]; /* per-island: the rule, and the bodies that choose their island's row (island_solver) */
        snprintf(choice, sizeof choice, CF_SOLVER_PER_ISLAND " (chapter 11.2's rule per island%s%.0d%s)",
                 w->def.n_island_solvers ? "; the scene's row for the islands of " : "", w->def.n_island_solvers,
                 w->def.n_island_solvers == 1 ? " body" : w->def.n_island_solvers ? " bodies" : "");
        /* the law the row really solves (cf_solver_law()), not the setting it was asked for */
        fprintf(f, "solver:     %s, %d iterations, friction: %s, warm start %s",
                w->def.per_island ? choice : s ? s->name : "none", w->def.solver_iterations,
                w->def.per_island ? "each island's row's (below)" : cf_world_friction_law(w, s), w->def.warm_start ? "on" : "off");
        if (w->def.soft_tolerance > 0.0) fprintf(f, ", soft rows to %g absolute", w->def.soft_tolerance);
        fputc('\n', f);
        if (w->def.per_island) {
            fprintf(f, "islands:    last step %d with contacts", w->stats.island.islands);
            if (w->def.sleep_steps > 0) fprintf(f, " (%d asleep)", w->stats.island.sleeping);
            fputc(':', f);
            for (int j = 0; j < w->stats.island.n_solvers; ++j)
                fprintf(f, "%s %s on %d (%d contacts, friction: %s)", j ? "," : "", w->stats.island.solver[j]->name,
                        w->stats.island.islands_of[j], w->stats.island.contacts_of[j], w->stats.island.law_of[j]);
            fputc('\n', f);
            fprintf(f, "residual:   last step common %.3e (%s, the largest of its islands)\n", r->common,
                    w->stats.common_directional ? "each island's own law: a texture island's directional-box natural map"
                                                : "Coulomb natural map");
        } else if (s)
            fprintf(f, "residual:   last step %.3e (%s), common %.3e (%s)\n", r->residual, cf_measure_describe(s->measure),
                    r->common, w->stats.common_directional ? "directional-box natural map" : "Coulomb natural map");
    }
    if (w->def.solver || w->def.pipeline != CF_PIPELINE_VELOCITY) {
        fprintf(f, "converged:  %ld of the %ld solves", r->solves - w->unconverged_steps, r->solves);
        if (w->unconverged_steps > 0)
            fprintf(f, "; %ld did not (the last: %s, common residual %.3e above the tolerance %.3e; "
                    "world.on_solver_failure %s%s)", w->unconverged_steps, cf_status_name(r->last_failure),
                    r->failure_common, r->failure_tol, cf_solver_failure_name(w->def.on_solver_failure),
                    w->retried_steps > 0 ? ", some after a retry" : "");
        fputc('\n', f);
    }
    if (w->def.detector != CF_DETECT_NONE || w->def.solver) {
        fprintf(f, "contacts:   %.1f per step on average, %d at most\n",
                r->steps_done > 0 ? (double)r->contacts / (double)r->steps_done : 0.0, r->max_contacts);
    }
    if (w->def.solver && w->def.pipeline == CF_PIPELINE_VELOCITY)
        fprintf(f, "work:       at most %.4g contact couplings x sweeps in a step (step %ld), %.2g %% of world.step_budget %.4g; "
                "%ld solves cut by it\n", r->max_work, r->max_work_step, 100.0 * r->max_work / w->def.step_budget,
                w->def.step_budget, r->budget_cuts);
    if (w->def.pipeline == CF_PIPELINE_IPC)
        fprintf(f, "pipeline:   ipc, dhat %.3g m, kappa %.3g N/m, eps_v %.3g m/s; last step: %d Newton iterations, %d pairs "
                "within dhat, smallest distance %.3e m\n", w->stats.ipc.dhat, w->stats.ipc.kappa, w->def.ipc.eps_v,
                w->stats.solver_iterations, w->stats.n_contacts, w->stats.ipc.min_distance);
    if (w->def.detector != CF_DETECT_NONE || w->def.solver || w->def.pipeline != CF_PIPELINE_VELOCITY) {
        const cfPipeline *pl = cf_pipeline_of(w->def.pipeline);
        fprintf(f, "stages:     ms per step:");
        for (int s = 0; s < pl->n_stages; ++s)
            fprintf(f, " %s %.3f", pl->stages[s], r->steps_done > 0 ? 1e3 * r->stage[s] / (double)r->steps_done : 0.0);
        fputc('\n', f);
    }
}

/* --history: the last step's residual after each solver iteration (cfStepStats) */
static void print_history(FILE *f, const cfStepStats *st)
{
    fputs("iteration,residual\n", f);
    for (int k = 0; k < st->solver_history_len; ++k) fprintf(f, "%d,%.12g\n", k + 1, st->solver_history[k]);
}

static int cmd_run(int argc, char **argv)
{
    RunOptions o;
    int done = run_parse(argc, argv, &o);
    if (done >= 0) return done;

    cfWorld w;
    cfSceneInfo info;
    cfError err;
    /* --solver replaces the scene's before it is checked: a scene written for a reference-only row runs on another */
    const char *asked = !o.solver_set ? NULL : o.per_island ? CF_SOLVER_PER_ISLAND : o.solver ? o.solver->name : "none";
    cfStatus st = cf_scene_load_solved(o.scene, asked, &w, &info, &err);
    if (st != CF_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return EXIT_BAD_INPUT;
    }
    if (o.dt > 0.0) w.def.dt = o.dt;
    if (o.solver_set) w.def.solver = o.solver;
    if (o.iters >= 0) w.def.solver_iterations = o.iters;
    if (o.friction >= 0) w.def.friction_model = (cfFrictionModel)o.friction;
    if (o.r_factor >= 0) w.def.r_factor = (cfRFactor)o.r_factor;
    if (o.precond >= 0) w.def.preconditioner = (cfPreconditioner)o.precond;
    if (o.cold) w.def.warm_start = false;
    /* the command line's values go through the scene's own checks: bad input is exit 2 wherever it is written */
    if (cf_scene_check(&w, o.scene, &err) != CF_OK) {
        fprintf(stderr, "%s (with the command line's%s)\n", err.msg, o.given);
        cf_world_free(&w);
        return EXIT_BAD_INPUT;
    }
    long steps = o.steps >= 0 ? o.steps : info.steps;

    FILE *csv = NULL;
    int csv_is_stdout = o.csv && strcmp(o.csv, "-") == 0;
    if (o.csv) {
        csv = csv_is_stdout ? stdout : fopen(o.csv, "w");
        if (!csv) {
            fprintf(stderr, "cflab run: %s: cannot write: %s\n", o.csv, strerror(errno));
            cf_world_free(&w);
            return EXIT_BAD_INPUT;
        }
        fputs(CSV_HEADER, csv);
        csv_rows(csv, &w);
    }
    /* messages that are not data go to stderr when the data goes to stdout */
    FILE *out = csv_is_stdout ? stderr : stdout;

    RunStats r;
    memset(&r, 0, sizeof r);
    r.e0 = cf_world_energy(&w);
    r.L0 = cf_world_angular_momentum(&w);
    int status = EXIT_OK;
    for (long k = 1; k <= steps; ++k) {
        double t0 = cf_seconds();
        st = cf_world_step(&w);
        r.seconds += cf_seconds() - t0;
        if (st != CF_OK) {
            fprintf(stderr, "cflab: %s: step %ld (t = %g s) failed: %s\n", o.scene, k, w.time, w.error.msg);
            status = EXIT_RUNTIME;
            break;
        }
        r.steps_done = k;
        for (int s = 0; s < CF_STAGE_COUNT; ++s) r.stage[s] += w.stats.stage_seconds[s];
        r.contacts += w.stats.n_contacts;
        if (w.stats.n_contacts > r.max_contacts) r.max_contacts = w.stats.n_contacts;
        if (w.stats.solver_work > r.max_work) r.max_work = w.stats.solver_work, r.max_work_step = k;
        r.budget_cuts += w.stats.budget_cuts;
        r.residual = w.stats.solver_residual;
        r.common = w.stats.common_residual;
        r.solves += w.stats.contact_solve;
        if (w.stats.contact_solve && w.stats.solver_status != CF_OK) {
            r.last_failure = w.stats.solver_status;
            r.failure_common = w.stats.solver_common;
            r.failure_tol = w.stats.solver_common_tol;
            if (w.def.on_solver_failure == CF_ON_FAILURE_WARN)
                fprintf(stderr, "cflab: %s: step %ld (t = %g s): the solve did not converge (%s): common residual %.3e above "
                        "the tolerance %.3e\n", o.scene, k, w.time, cf_status_name(w.stats.solver_status), w.stats.solver_common,
                        w.stats.solver_common_tol);
        }
        double dL = cfu_norm(cfu_sub(cf_world_angular_momentum(&w), r.L0));
        if (dL > r.max_dL || isnan(dL)) r.max_dL = dL;
        if (csv && (k % o.every == 0 || k == steps)) csv_rows(csv, &w);
    }
    r.e1 = cf_world_energy(&w);

    if (csv && !csv_is_stdout && fclose(csv) != 0) {
        fprintf(stderr, "cflab run: %s: write failed: %s\n", o.csv, strerror(errno));
        if (status == EXIT_OK) status = EXIT_RUNTIME;
    } else if (csv_is_stdout && fflush(stdout) != 0) {
        fprintf(stderr, "cflab run: standard output: write failed: %s\n", strerror(errno));
        if (status == EXIT_OK) status = EXIT_RUNTIME;
    }
    if (o.summary) {
        print_summary(out, o.scene, &info, &w, &r);
    } else if (!o.quiet && status == EXIT_OK) {
        fprintf(out, "%s: %ld steps, t = %g s", info.name[0] ? info.name : o.scene, r.steps_done, w.time);
        if (o.csv && !csv_is_stdout) fprintf(out, ", trajectory in %s", o.csv);
        fputc('\n', out);
    }
    if (o.history) print_history(out, &w.stats);
    if (o.dump) {
        cfError derr;
        if (cf_world_write_problem(&w, o.dump, &derr) != CF_OK) {
            fprintf(stderr, "cflab run: --dump-problem: %s\n", derr.msg);
            if (status == EXIT_OK) status = EXIT_RUNTIME;
        } else if (!o.quiet) {
            fprintf(out, "contact problem of step %ld written to %s (cflab solve %s)\n",
                    r.steps_done + (status == EXIT_OK ? 0 : 1), o.dump, o.dump);
        }
    }
    cf_world_free(&w);
    return status;
}

/* ---- subcommands -------------------------------------------------------------------------- */

typedef struct Command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
    const char *summary;
} Command;

int cflab_solve_main(int argc, char **argv); /* tools/cflab/solve.c */
int cflab_compare_main(int argc, char **argv); /* tools/cflab/compare.c */

/* `cflab solvers`: the registry, one row per solver */
static int cmd_solvers(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        puts("usage: cflab solvers\n\nList the contact solvers of this build: name, chapter, the problem form each\n"
             "consumes, where it can be used (world: scenes and `cflab run --solver`; fc3d and lcp: files\n"
             "for `cflab solve`) and what its residual history measures.");
        return EXIT_OK;
    }
    if (argc > 1) {
        fprintf(stderr, "cflab solvers: no arguments expected (got '%s')\n", argv[1]);
        return EXIT_BAD_INPUT;
    }
    printf("%-14s %-3s %-5s %-17s %-15s %s\n", "solver", "ch", "form", "used on", "history", "what it is");
    for (int i = 0; i < cf_solver_count(); ++i) {
        const cfSolver *s = cf_solver_at(i);
        /* where the filters let it be used: a world (rigid bodies only without the soft filter), files */
        char use[32];
        bool world = cf_solver_matches(s, CF_SOLVERS_WORLD), fc3d = cf_solver_matches(s, CF_SOLVERS_ASSEMBLED),
             lcp = cf_solver_matches(s, CF_SOLVERS_LCP);
        snprintf(use, sizeof use, "%s%s%s%s%s", world ? "world" : "",
                 world && !cf_solver_matches(s, CF_SOLVERS_SOFT) ? " (rigid)" : "", world && fc3d ? ", " : "",
                 fc3d ? "fc3d" : "", lcp ? (world || fc3d ? ", lcp" : "lcp") : "");
        printf("%-14s %-3d %-5s %-17s %-15s %s\n", s->name, s->chapter, cf_form_name(s->form), use,
               cf_measure_name(s->measure), s->summary);
    }
    return EXIT_OK;
}

static const Command COMMANDS[] = {
    {"run", cmd_run, "run a scene headless; trajectory CSV and summary"},
    {"compare", cflab_compare_main, "run a scene with several solvers: table, CSV and PNG plots"},
    {"solve", cflab_solve_main, "solve a Siconos LCP or FC3D file with any solver that takes it"},
    {"solvers", cmd_solvers, "list the contact solvers of this build"},
};
#define N_COMMANDS ((int)(sizeof COMMANDS / sizeof COMMANDS[0]))

static void main_help(FILE *f)
{
    fputs("usage: cflab COMMAND [options]\n"
          "       cflab --help | --version\n"
          "\n"
          "cflab, the Contact and Friction Lab: simulate the scenes in scenes/ from the command line.\n"
          "\n"
          "commands:\n",
          f);
    for (int i = 0; i < N_COMMANDS; ++i) fprintf(f, "  %-8s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fputs("\n`cflab COMMAND --help` describes a command. Example:\n"
          "  cflab run scenes/ch01_tennis_racket.json --summary\n",
          f);
}

int main(int argc, char **argv)
{
    /* OpenBLAS on one thread unless the caller says otherwise: every dense system here is small, and
       a threaded OpenBLAS on a busy machine spins (Baraff on an 82-contact Siconos problem took
       minutes instead of 0.4 s); make and tools/check set the variable, a user's shell does not */
    if (!getenv("OPENBLAS_NUM_THREADS")) openblas_set_num_threads(1);
    if (argc < 2) {
        main_help(stderr);
        return EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        main_help(stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("cflab %s\n", CFLAB_VERSION);
        return EXIT_OK;
    }
    for (int i = 0; i < N_COMMANDS; ++i)
        if (strcmp(cmd, COMMANDS[i].name) == 0) return COMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "cflab: unknown command '%s' (see cflab --help)\n", cmd);
    return EXIT_BAD_INPUT;
}
