/* SPDX-License-Identifier: MIT */
/* `cflab compare SCENE --solvers a,b,...`: the same scene stepped by each world solver of the
   registry; a table on standard output, CSV files and PNG plots in a folder. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf/cf_scene.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

#include "args.h"
#include "plot.h"

int cflab_compare_main(int argc, char **argv);

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_BAD_INPUT = 2 };

#define MAX_SOLVERS CF_PLOT_MAX_SERIES /* one colour per solver in the plots */
#define MAX_STEPS 1000000L
#define PLOT_W 1000
#define PLOT_H 600

static void compare_help(FILE *f)
{
    char names[512];
    fprintf(f,
            "usage: cflab compare SCENE.json --solvers A,B,... [options]\n"
            "\n"
            "Run the same scene once with each solver (each from the scene's initial state, every other\n"
            "setting the scene's) and compare them: a table on standard output, CSV files and PNG plots\n"
            "in a folder.\n"
            "\n"
            "options:\n"
            "  --solvers LIST      comma-separated world solvers, at most %d: %s; or per-island\n"
            "                      (chapter 11.2's rule per island: the table then lists the last step's\n"
            "                      solver of each island and the law it solves there)\n"
            "  --steps N           steps per solver, >= 1 (default: the scene's world.steps)\n"
            "  --iters N           iteration budget of every solver (default: the scene's)\n"
            "  --history-step K    the step whose residual per iteration is plotted (default: the last)\n"
            "  --out DIR           folder for the files, created if needed (default: compare-<scene file name>)\n"
            "  -h, --help          this text\n"
            "\n"
            "table columns (one row per solver; summary.csv has the same numbers at full precision):\n"
            "  status       ok, or failed@K: step K failed (its reason is printed); the numbers are those of\n"
            "               the steps done\n"
            "  ms/step      wall time of cf_world_step, mean over the steps; solve ms: of its solve stage\n"
            "  iters        iterations (sweeps, pivots) of the contact solve, mean over the steps that had\n"
            "               contacts\n"
            "  common       the common residual: the Coulomb natural map at the impulses found, the one\n"
            "               number every solver reports whatever it solves (cfStepStats::common_residual;\n"
            "               on texture friction the directional box's natural map, which has no cone);\n"
            "               of the last step, and the largest over all steps\n"
            "  dE           energy (kinetic + potential + elastic) at the end minus at the start, in J, and\n"
            "               relative to |E(0)|, as `cflab run --summary` reports it\n"
            "  max pen      deepest penetration (-gap) among the contacts the steps detected (m)\n"
            "  rest drift   largest displacement (m) at the end of a rigid body that was at rest at the\n"
            "               start, not moving and touching something (a stack that should stand shows its\n"
            "               creep here); '-' when no body starts so (every one is let go in the air)\n"
            "  friction     the friction law the solver really solves on the scene's contacts: cone, box\n"
            "               (the pyramid), polyhedral cone, elliptic cone, texture (directional boxes),\n"
            "               or a law it refuses (the step then fails)\n"
            "\n"
            "files in DIR:\n"
            "  summary.csv    the table (islands: per-island's solver:islands:contacts:friction of the\n"
            "                 last step, separated by ';')\n"
            "  steps.csv      solver,step,time,step_ms,solve_ms,contacts,iterations,common_residual,\n"
            "                 energy,max_penetration: one row per solver and step\n"
            "  history.csv    solver,step,iteration,residual,measure: the plotted residual per iteration\n"
            "  residual.png   residual per iteration of the chosen step, log axis, each solver in its own\n"
            "                 measure (the legend says which)\n"
            "  common.png     the common residual of every step against time, log axis\n"
            "  energy.png     E(t) - E(0) against time\n"
            "  step_time.png  wall time of every step against time, log axis\n"
            "\n"
            "exit status: 0 every solver ran every step, 1 a solver's step failed (the others are still\n"
            "compared), 2 bad arguments, an unknown or unsuitable solver, an invalid scene, or a folder or\n"
            "file that cannot be written\n",
            MAX_SOLVERS, cf_solver_names(CF_SOLVERS_WORLD, names, sizeof names));
}

typedef struct Options {
    const char *scene;
    const char *out;
    const cfSolver *solvers[MAX_SOLVERS]; /* for "per-island": pgs, the row of the stages before the solve */
    bool per_island[MAX_SOLVERS];         /* "per-island": chapter 11.2's rule per island (cfWorldDef::per_island) */
    int n_solvers;
    long steps;        /* -1: the scene's */
    long iters;        /* -1: the scene's */
    long history_step; /* -1: the last */
} Options;

/* Split @p list at commas into registry rows; 0, or an exit status after a message. */
static int parse_solvers(const char *list, Options *o)
{
    char names[512];
    cf_solver_names(CF_SOLVERS_WORLD, names, sizeof names);
    o->n_solvers = 0;
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[64];
        if (len == 0) {
            fprintf(stderr, "cflab compare: --solvers '%s': empty solver name (expected names separated by commas: %s)\n",
                    list, names);
            return EXIT_BAD_INPUT;
        }
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        bool islands = len < sizeof name && strcmp(name, CF_SOLVER_PER_ISLAND) == 0;
        const cfSolver *s = islands ? cf_solver_find("pgs") : cf_solver_find(name);
        if (!s || len >= sizeof name) {
            fprintf(stderr, "cflab compare: --solvers: unknown solver '%.*s' (world solvers: %s, or " CF_SOLVER_PER_ISLAND
                    ")%s\n", (int)len, p, names, cf_solver_absent_reason(name));
            return EXIT_BAD_INPUT;
        }
        if (!s->contacts) {
            fprintf(stderr,
                    "cflab compare: --solvers: solver '%s' cannot step a world: it takes %s files only (cflab solve); "
                    "world solvers: %s\n",
                    s->name, cf_form_name(s->form), names);
            return EXIT_BAD_INPUT;
        }
        for (int k = 0; k < o->n_solvers; ++k)
            if (o->solvers[k] == s && o->per_island[k] == islands) {
                fprintf(stderr, "cflab compare: --solvers: solver '%s' named twice\n", islands ? CF_SOLVER_PER_ISLAND : s->name);
                return EXIT_BAD_INPUT;
            }
        if (o->n_solvers == MAX_SOLVERS) {
            fprintf(stderr, "cflab compare: --solvers: at most %d solvers at a time\n", MAX_SOLVERS);
            return EXIT_BAD_INPUT;
        }
        o->per_island[o->n_solvers] = islands;
        o->solvers[o->n_solvers++] = s;
        if (!comma) break;
        p = comma + 1;
    }
    return 0;
}

/* -1 to go on, or an exit status */
static int parse_args(int argc, char **argv, Options *o)
{
    memset(o, 0, sizeof *o);
    o->steps = o->iters = o->history_step = -1;
    const char *list = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *val;
        int missing = 0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            compare_help(stdout);
            return EXIT_OK;
        } else if ((val = cflab_option_value(argc, argv, &i, "--solvers", &missing))) {
            list = val;
        } else if ((val = cflab_option_value(argc, argv, &i, "--steps", &missing))) {
            if (!cflab_parse_long(val, 1, MAX_STEPS, &o->steps)) {
                fprintf(stderr, "cflab compare: --steps: expected an integer in [1, %ld] (got '%s')\n", MAX_STEPS, val);
                return EXIT_BAD_INPUT;
            }
        } else if ((val = cflab_option_value(argc, argv, &i, "--iters", &missing))) {
            if (!cflab_parse_long(val, 0, 1000000, &o->iters)) {
                fprintf(stderr, "cflab compare: --iters: expected an integer in [0, 1000000] (got '%s')\n", val);
                return EXIT_BAD_INPUT;
            }
        } else if ((val = cflab_option_value(argc, argv, &i, "--history-step", &missing))) {
            if (!cflab_parse_long(val, 1, MAX_STEPS, &o->history_step)) {
                fprintf(stderr, "cflab compare: --history-step: expected an integer >= 1 (got '%s')\n", val);
                return EXIT_BAD_INPUT;
            }
        } else if ((val = cflab_option_value(argc, argv, &i, "--out", &missing))) {
            if (!*val) {
                fprintf(stderr, "cflab compare: --out: empty folder name\n");
                return EXIT_BAD_INPUT;
            }
            o->out = val;
        } else if (missing) {
            fprintf(stderr, "cflab compare: %s needs a value (see cflab compare --help)\n", a);
            return EXIT_BAD_INPUT;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "cflab compare: unknown option '%s' (see cflab compare --help)\n", a);
            return EXIT_BAD_INPUT;
        } else if (o->scene) {
            fprintf(stderr, "cflab compare: one scene at a time (got '%s' and '%s')\n", o->scene, a);
            return EXIT_BAD_INPUT;
        } else {
            o->scene = a;
        }
    }
    if (!o->scene) {
        fprintf(stderr, "cflab compare: no scene given (usage: cflab compare SCENE.json --solvers A,B,...)\n");
        return EXIT_BAD_INPUT;
    }
    if (!list) {
        char names[512];
        fprintf(stderr, "cflab compare: --solvers missing: name the world solvers to compare, e.g. --solvers pgs,nncg "
                        "(world solvers: %s)\n",
                cf_solver_names(CF_SOLVERS_WORLD, names, sizeof names));
        return EXIT_BAD_INPUT;
    }
    int st = parse_solvers(list, o);
    return st ? st : -1;
}

/* ---- one solver's run ----------------------------------------------------------------------- */

/* per step k = 1..steps (index k - 1) */
typedef struct Series {
    double *t, *step_ms, *solve_ms, *iters, *common, *energy, *pen, *contacts;
} Series;
#define SERIES_FIELDS 8

typedef struct Run {
    const cfSolver *solver;
    const char *name;   /* the solver's name, or "per-island" */
    bool per_island;    /* chapter 11.2's rule per island: solver is then pgs, the stages' before the solve */
    cfStepStats islands; /* per_island: the stats of the last step done (cfStepStats::island: each island's solver) */
    Series s;
    long done;          /* steps done */
    long failed_step;   /* 0: none */
    double e0, e1;      /* energy at the start and the end */
    double seconds, solve_seconds;
    long solves;        /* steps with a contact solve */
    double iters_sum;
    int iters_max;
    double common_max, pen_max, drift;
    int resting;        /* bodies at rest at the start */
    double history[CF_STATS_HISTORY]; /* residual per iteration of the chosen step */
    int history_len;    /* -1: the chosen step had no contact solve (or was not reached) */
    cfMeasure measure;
    const char *law;    /* the friction law the solver solves on the scene (cf_world_friction_law()) */
    bool directional;   /* a step's common residual was the directional box's (texture friction) */
} Run;

static int series_alloc(Series *s, long n)
{
    double **f[SERIES_FIELDS] = {&s->t, &s->step_ms, &s->solve_ms, &s->iters, &s->common, &s->energy, &s->pen, &s->contacts};
    int ok = 1;
    for (int i = 0; i < SERIES_FIELDS; ++i) ok &= (*f[i] = calloc((size_t)n, sizeof(double))) != NULL;
    return ok;
}

static void series_free(Series *s)
{
    double *f[SERIES_FIELDS] = {s->t, s->step_ms, s->solve_ms, s->iters, s->common, s->energy, s->pen, s->contacts};
    for (int i = 0; i < SERIES_FIELDS; ++i) free(f[i]);
}

/* a body at rest at the start: not moving, and touching something (it has a contact in the first
   step). A body let go in the air is not moving either, but it falls: its displacement says
   nothing about creep */
static bool at_rest(const cfRigidBody *b) { return !b->fixed && cfu_norm(b->v) == 0.0 && cfu_norm(b->w) == 0.0; }

/* Step a copy of @p scene with @p r->solver; 0, or EXIT_RUNTIME after a message. */
static int run_solver(const cfWorld *scene, const char *path, const Options *o, long steps, long history_step, Run *r)
{
    cfWorld w;
    if (cf_world_copy(&w, scene) != CF_OK) {
        fprintf(stderr, "cflab compare: %s: out of memory copying the scene\n", r->name);
        return EXIT_RUNTIME;
    }
    cf_world_def_use_solver(&w.def, r->solver);
    w.def.per_island = r->per_island;
    if (!r->per_island) w.def.sleep_steps = 0; /* islands sleep under per-island only */
    if (o->iters >= 0) w.def.solver_iterations = (int)o->iters;
    r->e0 = cf_world_energy(&w);
    r->history_len = -1;
    r->measure = r->solver->measure;
    r->law = r->per_island ? "each island's (below)" : cf_world_friction_law(&w, r->solver);
    int status = 0;
    bool *touching = calloc((size_t)(scene->n_bodies > 0 ? scene->n_bodies : 1), sizeof *touching);
    if (!touching) {
        cf_world_free(&w);
        fprintf(stderr, "cflab compare: out of memory\n");
        return EXIT_RUNTIME;
    }
    for (long k = 1; k <= steps; ++k) {
        double t0 = cf_seconds();
        cfStatus st = cf_world_step(&w);
        double dt = cf_seconds() - t0;
        if (st != CF_OK) {
            fprintf(stderr, "cflab compare: %s: %s: step %ld (t = %g s) failed: %s\n", r->name, path, k, w.time,
                    w.error.msg);
            r->failed_step = k;
            status = EXIT_RUNTIME;
            break;
        }
        const cfStepStats *ss = &w.stats;
        for (int c = 0; k == 1 && c < w.contacts.count; ++c) {
            const cfContact *ct = &w.contacts.items[c];
            if (ct->body_a >= 0 && ct->body_a < scene->n_bodies) touching[ct->body_a] = true;
            if (ct->body_b >= 0 && ct->body_b < scene->n_bodies) touching[ct->body_b] = true;
        }
        double pen = 0.0;
        for (int c = 0; c < w.contacts.count; ++c) pen = fmax(pen, -w.contacts.items[c].phi);
        bool solved = ss->n_contacts > 0;
        long i = k - 1;
        r->s.t[i] = w.time;
        r->s.step_ms[i] = 1e3 * dt;
        r->s.solve_ms[i] = 1e3 * ss->stage_seconds[CF_STAGE_SOLVE];
        r->s.iters[i] = solved ? ss->solver_iterations : 0;
        r->s.common[i] = solved ? ss->common_residual : NAN;
        r->s.energy[i] = cf_world_energy(&w);
        r->s.pen[i] = pen;
        r->s.contacts[i] = ss->n_contacts;
        r->done = k;
        r->seconds += dt;
        r->solve_seconds += ss->stage_seconds[CF_STAGE_SOLVE];
        r->pen_max = fmax(r->pen_max, pen);
        r->directional |= solved && ss->common_directional;
        if (r->per_island) r->islands = *ss;
        if (solved) {
            r->solves++;
            r->iters_sum += ss->solver_iterations;
            if (ss->solver_iterations > r->iters_max) r->iters_max = ss->solver_iterations;
            r->common_max = fmax(r->common_max, ss->common_residual);
        }
        if (k == history_step && solved) {
            r->history_len = ss->solver_history_len < CF_STATS_HISTORY ? ss->solver_history_len : CF_STATS_HISTORY;
            memcpy(r->history, ss->solver_history, (size_t)r->history_len * sizeof *r->history);
            r->measure = ss->solver_measure;
        }
    }
    r->e1 = cf_world_energy(&w);
    for (int b = 0; b < scene->n_bodies; ++b)
        if (at_rest(&scene->bodies[b]) && touching[b]) {
            r->resting++;
            r->drift = fmax(r->drift, cfu_norm(cfu_sub(w.bodies[b].x, scene->bodies[b].x)));
        }
    free(touching);
    cf_world_free(&w);
    return status;
}

/* ---- output ------------------------------------------------------------------------------- */

static double mean_ms(const Run *r, double seconds) { return r->done > 0 ? 1e3 * seconds / (double)r->done : 0.0; }
static double mean_iters(const Run *r) { return r->solves > 0 ? r->iters_sum / (double)r->solves : 0.0; }
static double common_last(const Run *r) { return r->done > 0 && r->s.contacts[r->done - 1] > 0 ? r->s.common[r->done - 1] : 0.0; }
static double rel_drift(const Run *r) { return fabs(r->e0) > 0.0 ? (r->e1 - r->e0) / fabs(r->e0) : NAN; }

static void status_text(const Run *r, char *buf, size_t cap)
{
    if (r->failed_step) snprintf(buf, cap, "failed@%ld", r->failed_step);
    else snprintf(buf, cap, "ok");
}

static void print_table(FILE *f, const Run *runs, int n)
{
    fprintf(f, "%-15s %-10s %9s %9s %7s %11s %11s %11s %11s %10s %10s  %s\n", "solver", "status", "ms/step", "solve ms",
            "iters", "common last", "common max", "dE (J)", "dE/|E0|", "max pen", "rest drift", "friction");
    for (int i = 0; i < n; ++i) {
        const Run *r = &runs[i];
        char st[32];
        status_text(r, st, sizeof st);
        if (r->done == 0) {
            fprintf(f, "%-15s %-10s %9s %9s %7s %11s %11s %11s %11s %10s %10s  %s\n", r->name, st, "-", "-", "-",
                    "-", "-", "-", "-", "-", "-", r->law);
            continue;
        }
        char drift[32];
        if (r->resting > 0) snprintf(drift, sizeof drift, "%10.2e", r->drift);
        else snprintf(drift, sizeof drift, "%10s", "-");
        fprintf(f, "%-15s %-10s %9.3g %9.3g %7.1f %11.3e %11.3e %+11.3e %+11.3e %10.2e %s  %s\n", r->name, st,
                mean_ms(r, r->seconds), mean_ms(r, r->solve_seconds), mean_iters(r), common_last(r), r->common_max,
                r->e1 - r->e0, rel_drift(r), r->pen_max, drift, r->law);
        if (!r->per_island) continue;
        /* each island's solver, as the rule chose them in the last step done, its law under friction */
        const cfStepStats *is = &r->islands;
        char what[128];
        snprintf(what, sizeof what, "the last step's %d islands with contacts, %d asleep; by solver:", is->island.islands,
                 is->island.sleeping);
        fprintf(f, "  %s\n", what);
        for (int j = 0; j < is->island.n_solvers; ++j) {
            snprintf(what, sizeof what, "%d island%s, %d contacts", is->island.islands_of[j],
                     is->island.islands_of[j] == 1 ? "" : "s", is->island.contacts_of[j]);
            /* the law under the friction column (124 characters before it and its two spaces) */
            int name = (int)strlen(is->island.solver[j]->name), pad = 124 - (3 + (name > 13 ? name : 13) + (int)strlen(what));
            fprintf(f, "  %-13s %s%*s  %s\n", is->island.solver[j]->name, what, pad > 0 ? pad : 0, "", is->island.law_of[j]);
        }
    }
}

/* fopen DIR/NAME for writing; NULL after a message */
static FILE *open_out(const char *dir, const char *name, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "cflab compare: %s: cannot write: %s\n", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path)
{
    if (fclose(f) != 0) {
        fprintf(stderr, "cflab compare: %s: write failed: %s\n", path, strerror(errno));
        return 0;
    }
    return 1;
}

static int write_csvs(const char *dir, const Run *runs, int n, long history_step)
{
    char path[1100];
    FILE *f = open_out(dir, "summary.csv", path, sizeof path);
    if (!f) return 0;
    fputs("solver,status,steps,ms_per_step,solve_ms_per_step,iterations_mean,iterations_max,common_residual_last,"
          "common_residual_max,energy_start,energy_end,energy_change,energy_change_relative,max_penetration,"
          "resting_bodies,resting_drift,friction,islands\n",
          f);
    for (int i = 0; i < n; ++i) {
        const Run *r = &runs[i];
        char st[32];
        status_text(r, st, sizeof st);
        fprintf(f, "%s,%s,%ld,%.6g,%.6g,%.12g,%d,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%d,%.12g,\"%s\",\"",
                r->name, st, r->done, mean_ms(r, r->seconds), mean_ms(r, r->solve_seconds), mean_iters(r),
                r->iters_max, common_last(r), r->common_max, r->e0, r->e1, r->e1 - r->e0, rel_drift(r), r->pen_max,
                r->resting, r->drift, r->per_island ? "per island (islands)" : r->law);
        /* per-island: the last step's solvers, solver:islands:contacts:law separated by ';' */
        for (int j = 0; r->per_island && j < r->islands.island.n_solvers; ++j)
            fprintf(f, "%s%s:%d:%d:%s", j ? ";" : "", r->islands.island.solver[j]->name, r->islands.island.islands_of[j],
                    r->islands.island.contacts_of[j], r->islands.island.law_of[j]);
        fputs("\"\n", f);
    }
    if (!close_out(f, path) || !(f = open_out(dir, "steps.csv", path, sizeof path))) return 0;
    fputs("solver,step,time,step_ms,solve_ms,contacts,iterations,common_residual,energy,max_penetration\n", f);
    for (int i = 0; i < n; ++i) {
        const Run *r = &runs[i];
        for (long k = 0; k < r->done; ++k) {
            fprintf(f, "%s,%ld,%.12g,%.6g,%.6g,%.0f,%.0f,", r->name, k + 1, r->s.t[k], r->s.step_ms[k],
                    r->s.solve_ms[k], r->s.contacts[k], r->s.iters[k]);
            if (isfinite(r->s.common[k])) fprintf(f, "%.12g", r->s.common[k]);
            fprintf(f, ",%.12g,%.12g\n", r->s.energy[k], r->s.pen[k]);
        }
    }
    if (!close_out(f, path) || !(f = open_out(dir, "history.csv", path, sizeof path))) return 0;
    fputs("solver,step,iteration,residual,measure\n", f);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < runs[i].history_len; ++k)
            fprintf(f, "%s,%ld,%d,%.12g,%s\n", runs[i].name, history_step, k + 1, runs[i].history[k],
                    cf_measure_name(runs[i].measure));
    return close_out(f, path);
}

static int plot(const char *dir, const char *name, const cfPlot *p, const cfPlotSeries *s, int n)
{
    char path[1100];
    cfError err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (cf_plot_png(p, s, n, path, &err) != CF_OK) {
        fprintf(stderr, "cflab compare: %s\n", err.msg);
        return 0;
    }
    return 1;
}

static int write_plots(const char *dir, const char *scene_name, const Run *runs, int n, long history_step)
{
    cfPlotSeries s[MAX_SOLVERS];
    char labels[MAX_SOLVERS][96], title[160];
    static double iter_x[CF_STATS_HISTORY];
    for (int k = 0; k < CF_STATS_HISTORY; ++k) iter_x[k] = k + 1;
    int ok = 1;

    /* residual per iteration of the chosen step, each in its own measure */
    for (int i = 0; i < n; ++i) {
        const Run *r = &runs[i];
        if (r->history_len == 0) /* solved by its warm start */
            snprintf(labels[i], sizeof labels[i], "%s (0 iterations)", r->name);
        else if (r->history_len > 0)
            snprintf(labels[i], sizeof labels[i], "%s (%s)", r->name, cf_measure_name(r->measure));
        else if (r->failed_step && r->failed_step <= history_step)
            snprintf(labels[i], sizeof labels[i], "%s (failed at step %ld)", r->name, r->failed_step);
        else
            snprintf(labels[i], sizeof labels[i], "%s (no contacts)", r->name);
        s[i] = (cfPlotSeries){labels[i], iter_x, r->history, r->history_len > 0 ? r->history_len : 0};
    }
    snprintf(title, sizeof title, "%s: residual per iteration, step %ld", scene_name, history_step);
    ok &= plot(dir, "residual.png", &(cfPlot){title, "iteration", "residual (each solver's own measure)", true, PLOT_W, PLOT_H},
               s, n);

    /* against time */
    for (int i = 0; i < n; ++i) {
        const Run *r = &runs[i];
        if (r->failed_step) snprintf(labels[i], sizeof labels[i], "%s (failed at step %ld)", r->name, r->failed_step);
        else snprintf(labels[i], sizeof labels[i], "%s", r->name);
        s[i] = (cfPlotSeries){labels[i], r->s.t, r->s.common, (int)r->done};
    }
    snprintf(title, sizeof title, "%s: common residual per step", scene_name);
    ok &= plot(dir, "common.png", &(cfPlot){title, "time (s)", "Coulomb natural-map residual", true, PLOT_W, PLOT_H}, s, n);

    double *de[MAX_SOLVERS] = {0};
    for (int i = 0; i < n; ++i) {
        const Run *r = &runs[i];
        if (r->done > 0 && !(de[i] = malloc((size_t)r->done * sizeof(double)))) {
            fprintf(stderr, "cflab compare: out of memory for the energy plot\n");
            ok = 0;
            break;
        }
        for (long k = 0; k < r->done; ++k) de[i][k] = r->s.energy[k] - r->e0;
        s[i].y = de[i];
    }
    snprintf(title, sizeof title, "%s: energy change", scene_name);
    if (ok) ok &= plot(dir, "energy.png", &(cfPlot){title, "time (s)", "E(t) - E(0) (J)", false, PLOT_W, PLOT_H}, s, n);
    for (int i = 0; i < n; ++i) free(de[i]);

    for (int i = 0; i < n; ++i) s[i].y = runs[i].s.step_ms;
    snprintf(title, sizeof title, "%s: wall time per step", scene_name);
    ok &= plot(dir, "step_time.png", &(cfPlot){title, "time (s)", "step time (ms)", true, PLOT_W, PLOT_H}, s, n);
    return ok;
}

/* mkdir -p; 0 after a message */
static int make_dir(const char *dir)
{
    char buf[1024];
    if (strlen(dir) >= sizeof buf) {
        fprintf(stderr, "cflab compare: --out: folder name too long\n");
        return 0;
    }
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1;; ++p) {
        if (*p != '/' && *p != '\0') continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "cflab compare: cannot create folder %s: %s\n", buf, strerror(errno));
            return 0;
        }
        *p = c;
        if (!c) break;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "cflab compare: %s is not a writable folder\n", dir);
        return 0;
    }
    return 1;
}

/* "compare-<file name without folder and .json>" */
static void default_out(const char *scene, char *buf, size_t cap)
{
    const char *base = strrchr(scene, '/');
    base = base ? base + 1 : scene;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0) len -= 5;
    snprintf(buf, cap, "compare-%.*s", (int)len, base);
}

int cflab_compare_main(int argc, char **argv)
{
    Options o;
    int done = parse_args(argc, argv, &o);
    if (done >= 0) return done;

    cfWorld scene;
    cfSceneInfo info;
    cfError err;
    if (cf_scene_load(o.scene, &scene, &info, &err) != CF_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return EXIT_BAD_INPUT;
    }
    long steps = o.steps > 0 ? o.steps : info.steps;
    long history_step = o.history_step > 0 ? o.history_step : steps;
    char outbuf[1024];
    if (!o.out) default_out(o.scene, outbuf, sizeof outbuf);
    const char *out = o.out ? o.out : outbuf;
    int status = EXIT_OK;
    if (history_step > steps) {
        fprintf(stderr, "cflab compare: --history-step %ld: after the last step (%ld)\n", history_step, steps);
        status = EXIT_BAD_INPUT;
    } else if (!make_dir(out)) {
        status = EXIT_BAD_INPUT;
    }
    if (status != EXIT_OK) {
        cf_world_free(&scene);
        return status;
    }
    if (scene.def.detector == CF_DETECT_NONE)
        fprintf(stderr, "cflab compare: note: %s detects no contacts (world.detector is none): the solvers have "
                        "nothing to solve\n", o.scene);

    Run runs[MAX_SOLVERS];
    memset(runs, 0, sizeof runs);
    const char *name = info.name[0] ? info.name : o.scene;
    int ok = 1;
    for (int i = 0; i < o.n_solvers; ++i) ok &= series_alloc(&runs[i].s, steps);
    if (!ok) {
        fprintf(stderr, "cflab compare: out of memory for %ld steps of %d solvers\n", steps, o.n_solvers);
        status = EXIT_RUNTIME;
    }
    for (int i = 0; ok && i < o.n_solvers; ++i) {
        runs[i].solver = o.solvers[i];
        runs[i].per_island = o.per_island[i];
        runs[i].name = o.per_island[i] ? CF_SOLVER_PER_ISLAND : o.solvers[i]->name;
        if (isatty(STDERR_FILENO)) fprintf(stderr, "cflab compare: %s ...\n", runs[i].name);
        if (run_solver(&scene, o.scene, &o, steps, history_step, &runs[i]) != 0) status = EXIT_RUNTIME;
    }
    if (ok) {
        printf("%s (%s): %ld steps x dt %g s = %g s, %d rigid and %d soft bodies, %d iterations per solve\n", name,
               o.scene, steps, scene.def.dt, (double)steps * scene.def.dt, scene.n_bodies, scene.n_soft,
               o.iters >= 0 ? (int)o.iters : scene.def.solver_iterations);
        print_table(stdout, runs, o.n_solvers);
        bool texture = false;
        for (int i = 0; i < o.n_solvers; ++i) texture |= runs[i].directional;
        if (texture) printf("(common: on the steps with texture contacts, the directional box's natural-map residual)\n");
        if (runs[0].resting > 0)
            printf("(common: Coulomb natural-map residual; dE: energy change; max pen: deepest contact (m); rest drift (m):\n"
                   " of the %d %s at rest on something at the start; cflab compare --help explains every column)\n",
                   runs[0].resting, runs[0].resting == 1 ? "body" : "bodies");
        else
            printf("(common: Coulomb natural-map residual; dE: energy change; max pen: deepest contact (m); rest drift:\n"
                   " not measured, no body starts at rest on something (they are let go in the air); cflab compare --help\n"
                   " explains every column)\n");
        if (write_csvs(out, runs, o.n_solvers, history_step) && write_plots(out, name, runs, o.n_solvers, history_step))
            printf("written: %s/{summary,steps,history}.csv, %s/{residual,common,energy,step_time}.png\n", out, out);
        else
            status = EXIT_BAD_INPUT;
    }
    for (int i = 0; i < o.n_solvers; ++i) series_free(&runs[i].s);
    cf_world_free(&scene);
    return status;
}
