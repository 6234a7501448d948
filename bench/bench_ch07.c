/* SPDX-License-Identifier: MIT */
/* Benchmark of chapter 7 (`make bench-ch7`):
   1. paper 001 where it fits two cores: the Wall (81 bricks), a stone Tower (49 blocks) and Spheres
      (1730 balls) on the Moreau stepper of ch07.6 with paper 001's settings (h 0.01, mu 0.75,
      mu_tau 0.01, 1000 sweeps, absolute and relative tolerance 1e-3), PROX-GS and PROX-Jacobi with
      the local, global (r = 5) and blocked r-factors: per step sweeps, final merit, convergence
      class, rollbacks; quartiles per configuration, and per scene a PNG of the merit quartiles
      against sweeps (GS vs Jacobi; the three strategies), drawn with the viewer's plot panel;
   2. every FC3D row of the registry (blocked GS of chapter 5, Alart-Curnier Newton of chapter 6,
      PROX of chapter 7) on the 41 Siconos/FCLIB problems, with Siconos numerics' NSGS, PROX and
      NSN-AC in the same run when Debian's libsiconos-numerics-dev is installed (-DCF_HAVE_SICONOS);
      every solve in a child process under a CPU-time limit (child.h).
   Prints tables and writes CSV (and the PNGs) into --out DIR; the data come from CF_DATA_DIR
   (default ../shared/data) and the table is skipped when it is missing. After the table, the
   problems with 100 contacts or more once more: the best cflab solver against the best Siconos
   solver of the run, and their ratio (issue 34's target). --quick: 40 steps and a smaller budget;
   --scene KEY: one scene of part 1 only; --min-contacts N: the FC3D table on the problems with at
   least N contacts only. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cf/cf_ch07.h"
#include "cf/cf_detect.h"
#include "cf/cf_problem.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"
#include "cfview.h"
#include "child.h"
#include "fclib.h"

#ifdef CF_HAVE_SICONOS
#include <siconos/numerics/FrictionContactProblem.h>
#include <siconos/numerics/Friction_cst.h>
#include <siconos/numerics/NonSmoothDrivers.h>
#include <siconos/numerics/NumericsVerbose.h>
#include <siconos/numerics/SolverOptions.h>
#endif

static const char *out_dir = ".";
static bool quick = false;
/* --min-contacts N: the FC3D table on the problems with at least N contacts only */
static int min_contacts = 0;
/* the large-problem table: problems with at least this many contacts (issue 34's "large") */
#define LARGE_CONTACTS 100

/* ---- part 1: paper 001 -------------------------------------------------------------------- */

/* a dynamic body of mass m at x with mu 0.75 (every body of the paper's scenes) */
static void add_body(cfWorld *w, cfShape shape, double m, cfVec3 x)
{
    cfRigidBody b;
    cf_rigid_init(&b, shape, m, NULL);
    b.mu = 0.75;
    b.x = x;
    cf_world_add_body(w, &b);
}

static void add_plane(cfWorld *w, cfVec3 n, double offset)
{
    cfRigidBody g;
    cf_rigid_init_fixed(&g, cf_shape_plane(n, offset), NULL);
    g.mu = 0.75;
    cf_world_add_body(w, &g);
}

/* Paper 001's scenes that fit two cores, with mu 0.75 everywhere and the paper's global r = 5.
   That r is a mass (r has units of 1/A, kg), so the scenes have the paper's masses: with 1 kg
   blocks of small inertia r A_ii ~ 50, and the first Gauss-Seidel sweep, which Algorithm 11
   always accepts, grew by that factor per contact (a Tower's impulses reached 1e131 in one step);
   with Foerg's r = 1/|A|_2 instead one sweep moved lambda by less than the tolerance 1e-3 and
   every step "converged" in one sweep. */
typedef struct Scene {
    const char *key, *title;
    int steps; /* the paper's 450; the Spheres 30, to fit two shared, loaded cores */
} Scene;

static const Scene scenes[] = {
    {"wall", "Wall (81 bricks)", 450},
    {"tower", "Tower (49 blocks)", 450},
    {"spheres", "Spheres (1730 balls)", 30},
};
enum { N_SCENES = sizeof scenes / sizeof scenes[0] };

/* the Wall: 9 courses of 9 bricks of 16 kg, running bond; the Tower: 16 layers of 3 crossed
   stone blocks of 1 x 0.2 x 0.2 m and 100 kg and a 500 kg cap (Jenga-like); the Spheres: 1730 balls of radius 0.25 m and 68 kg
   (the paper's mass), 12 x 12 per layer with 5 mm gaps and a deterministic jitter of +-1 cm,
   dropped into a box of four walls: a pile that is in contact from the first steps */
static void build_scene(int scene, cfWorld *w)
{
    cfWorldDef def = cf_world_def_default();
    def.detector = CF_DETECT_PRIMITIVES;
    def.contact_margin = 0.01;
    cf_world_init(w, &def);
    add_plane(w, cfu_vec3(0, 0, 1), 0);
    if (scene == 0) {
        const cfVec3 h = {0.2, 0.1, 0.1};
        for (int c = 0; c < 9; ++c)
            for (int i = 0; i < 9; ++i)
                add_body(w, cf_shape_box(h), 16.0, cfu_vec3(2 * h.x * (i - 4) + (c % 2 ? h.x : 0), 0, h.z * (2 * c + 1)));
    } else if (scene == 1) {
        for (int l = 0; l < 16; ++l)
            for (int i = 0; i < 3; ++i) {
                cfVec3 h = l % 2 ? cfu_vec3(0.1, 0.5, 0.1) : cfu_vec3(0.5, 0.1, 0.1);
                cfVec3 x = l % 2 ? cfu_vec3(0.2 * (i - 1), 0, 0.1 + 0.2 * l) : cfu_vec3(0, 0.2 * (i - 1), 0.1 + 0.2 * l);
                add_body(w, cf_shape_box(h), 100.0, x);
            }
        add_body(w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.1)), 500.0, cfu_vec3(0, 0, 3.3));
    } else {
        const double R = 0.25, pitch = 2 * R + 0.005, half = 6 * pitch + 0.01;
        add_plane(w, cfu_vec3(1, 0, 0), -half);
        add_plane(w, cfu_vec3(-1, 0, 0), -half);
        add_plane(w, cfu_vec3(0, 1, 0), -half);
        add_plane(w, cfu_vec3(0, -1, 0), -half);
        uint64_t seed = 7;
        for (int k = 0; k < 1730; ++k) {
            int i = k % 12, j = k / 12 % 12, l = k / 144;
            double jit[2];
            for (int c = 0; c < 2; ++c) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                jit[c] = 0.01 * ((double)(seed >> 11) / 9007199254740992.0 * 2 - 1);
            }
            add_body(w, cf_shape_sphere(R), 68.0, cfu_vec3(pitch * (i - 5.5) + jit[0], pitch * (j - 5.5) + jit[1], R + 0.005 + pitch * l));
        }
    }
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* quartiles q[0..2] of n values (the nearest-rank rule on the sorted copy) */
static void quartiles(int n, const int *v, int q[3])
{
    int *s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_int);
    for (int k = 0; k < 3; ++k) q[k] = n ? s[(k + 1) * (n - 1) / 4] : 0;
    free(s);
}

static void quartiles_d(int n, double *scratch, double q[3])
{
    qsort(scratch, (size_t)n, sizeof *scratch, cmp_dbl);
    for (int k = 0; k < 3; ++k) q[k] = n ? scratch[(k + 1) * (n - 1) / 4] : NAN;
}

#define PAPER_SWEEPS 1000

/* one configuration's run: per step the merit after every sweep (the history of cfReport) */
typedef struct Run {
    int jacobi;
    cfRFactor strategy;
    int steps;          /* steps done */
    int *sweeps;        /* per step */
    double *merit;      /* per step, final */
    double *hist;       /* steps x PAPER_SWEEPS; hist_len per step */
    int *hist_len;
} Run;

static void run_free(Run *r) { free(r->sweeps), free(r->merit), free(r->hist), free(r->hist_len); }

/* quartiles over the steps of the merit after sweep k, a step that stopped earlier counting with
   its final merit (it had converged, or was rolled back to it) */
static void merit_quartiles(const Run *r, cfvSeries q[3])
{
    int kmax = 0;
    for (int s = 0; s < r->steps; ++s) kmax = r->hist_len[s] > kmax ? r->hist_len[s] : kmax;
    double *col = malloc((size_t)(r->steps > 0 ? r->steps : 1) * sizeof *col);
    for (int k = 0; k < kmax; ++k) {
        int n = 0;
        for (int s = 0; s < r->steps; ++s) {
            int len = r->hist_len[s];
            if (len > 0) col[n++] = r->hist[(size_t)s * PAPER_SWEEPS + (k < len ? k : len - 1)];
        }
        double v[3];
        quartiles_d(n, col, v);
        for (int j = 0; j < 3; ++j) cfv_series_push(&q[j], k + 1, v[j]);
    }
    free(col);
}

/* the PNG: two panels of merit quartiles against sweeps, GS vs Jacobi (local r) and the three r
   strategies (GS); the median solid, the quartiles in a darker shade */
static void plot_scene(const Scene *sc, Run runs[2][CF_RFACTOR_COUNT])
{
    const int W = 1200, H = 460;
    SDL_Surface *surf = NULL;
    SDL_Renderer *ren = cfv_headless_renderer(W, H, &surf);
    if (!ren) {
        printf("(no plot: %s)\n", SDL_GetError());
        return;
    }
    cfvRaster frame = {0}; /* the viewer's plots draw into its frame, then onto the renderer */
    if (!cfv_raster_begin(&frame, W, H, (SDL_Color){8, 10, 14, 255}, false)) {
        printf("(no plot: out of memory)\n");
        SDL_DestroyRenderer(ren);
        SDL_FreeSurface(surf);
        return;
    }
    static const SDL_Color pal[3] = {{90, 170, 255, 255}, {255, 150, 60, 255}, {120, 220, 120, 255}};
    for (int panel = 0; panel < 2; ++panel) {
        const Run *sel[3];
        const char *label[3];
        int n = 0;
        if (panel == 0) {
            sel[n] = &runs[0][CF_RFACTOR_LOCAL], label[n++] = "PROX-GS";
            sel[n] = &runs[1][CF_RFACTOR_LOCAL], label[n++] = "PROX-Jacobi";
        } else
            for (int rs = 0; rs < CF_RFACTOR_COUNT; ++rs) sel[n] = &runs[0][rs], label[n++] = cf_rfactor_name(rs);
        cfvSeries series[9];
        const cfvSeries *ptr[9];
        SDL_Color col[9];
        memset(series, 0, sizeof series);
        for (int i = 0; i < n; ++i) {
            merit_quartiles(sel[i], &series[3 * i]);
            for (int j = 0; j < 3; ++j) {
                ptr[3 * i + j] = &series[3 * i + j];
                float f = j == 1 ? 1.0f : 0.45f;
                col[3 * i + j] = (SDL_Color){(Uint8)(pal[i].r * f), (Uint8)(pal[i].g * f), (Uint8)(pal[i].b * f), 255};
            }
        }
        char title[160];
        snprintf(title, sizeof title, "%s, %d steps: merit |dl|_inf (N s) after each sweep, quartiles over steps (%s)",
                 sc->title, runs[0][0].steps, panel == 0 ? "local r" : "PROX-GS");
        float x0 = 10.0f + panel * (W / 2.0f), pw = W / 2.0f - 20.0f;
        cfv_plot(&frame, x0, 10, pw, H - 50, title, ptr, col, 3 * n, true, "sweeps");
        float lx = x0 + 60;
        for (int i = 0; i < n; ++i) {
            char buf[96];
            int q[3];
            quartiles(sel[i]->steps, sel[i]->sweeps, q);
            snprintf(buf, sizeof buf, "%s (median %d sweeps)", label[i], q[1]);
            lx += cfv_text(&frame, lx, H - 30, 1.0f, pal[i], buf) + 18;
        }
        for (int i = 0; i < 3 * n; ++i) cfv_series_free(&series[i]);
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/ch07_paper_%s.png", out_dir, sc->key);
    cfError err;
    SDL_Texture *tex = NULL;
    int tw = 0, th = 0;
    if (!cfv_raster_present(&frame, ren, &tex, &tw, &th)) printf("(no plot: %s)\n", SDL_GetError());
    else if (cfv_write_png(ren, path, &err)) printf("plot: %s\n", path);
    else printf("(no plot: %s)\n", err.msg);
    if (tex) SDL_DestroyTexture(tex);
    cfv_raster_free(&frame);
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(surf);
}

static void paper_scene(int sc_i, FILE *csv)
{
    const Scene *sc = &scenes[sc_i];
    int steps = quick ? 40 : sc->steps;
    Run runs[2][CF_RFACTOR_COUNT];
    memset(runs, 0, sizeof runs);
    double *hbuf = malloc(PAPER_SWEEPS * sizeof *hbuf);
    for (int jac = 0; jac < 2; ++jac)
        for (int rs = 0; rs < CF_RFACTOR_COUNT; ++rs) {
            Run *R = &runs[jac][rs];
            R->jacobi = jac;
            R->strategy = (cfRFactor)rs;
            R->sweeps = calloc((size_t)steps, sizeof *R->sweeps);
            R->merit = calloc((size_t)steps, sizeof *R->merit);
            R->hist = calloc((size_t)steps * PAPER_SWEEPS, sizeof *R->hist);
            R->hist_len = calloc((size_t)steps, sizeof *R->hist_len);
            cfWorld w;
            build_scene(sc_i, &w);
            cfMoreauOptions o = cf_moreau_options_default();
            o.mu_tau = 0.01;
            o.jacobi = jac;
            o.prox.max_iter = PAPER_SWEEPS;
            o.prox.strategy = (cfRFactor)rs;
            o.prox.r_global = 5.0;
            cfContactList cl = {0};
            int nabs = 0, nrel = 0, ncap = 0, ndiv = 0, maxc = 0;
            long rb = 0;
            double t0 = bench_cpu_seconds();
            cfStatus failed = CF_OK;
            for (int s = 0; s < steps; ++s) {
                cfMoreauStats st;
                cfReport rep;
                cf_report_init(&rep, hbuf, PAPER_SWEEPS);
                failed = cf_moreau_step(w.bodies, w.n_bodies, cf_detect_world_again, &w, &o, &cl, &st, &rep);
                if (failed != CF_OK) break;
                R->sweeps[s] = st.prox.sweeps;
                R->merit[s] = st.prox.merit;
                R->hist_len[s] = rep.history_len;
                memcpy(&R->hist[(size_t)s * PAPER_SWEEPS], hbuf, (size_t)rep.history_len * sizeof *hbuf);
                nabs += st.prox.reason == CF_STOP_ABSOLUTE;
                nrel += st.prox.reason == CF_STOP_RELATIVE;
                ncap += st.prox.reason == CF_STOP_MAX_ITER;
                ndiv += st.prox.reason == CF_STOP_DIVERGENCE;
                rb += st.prox.rollbacks;
                maxc = st.contacts > maxc ? st.contacts : maxc;
                if (csv)
                    fprintf(csv, "%s,%s,%s,%d,%d,%d,%.6e,%s,%d\n", sc->key, jac ? "jacobi" : "gs", cf_rfactor_name(rs), s,
                            st.contacts, st.prox.sweeps, st.prox.merit, cf_stop_reason_name(st.prox.reason),
                            st.prox.rollbacks);
                R->steps = s + 1;
            }
            int q[3];
            quartiles(R->steps, R->sweeps, q);
            double *m = malloc((size_t)(R->steps > 0 ? R->steps : 1) * sizeof *m), mq[3];
            memcpy(m, R->merit, (size_t)R->steps * sizeof *m);
            quartiles_d(R->steps, m, mq);
            free(m);
            printf("%-21s %-7s %-13s %5d %6d %6d %6d %5d %5d %5d %5d %9ld %9.2e %8.3f%s%s\n", sc->title, jac ? "jacobi" : "gs",
                   cf_rfactor_name(rs), maxc, q[0], q[1], q[2], nabs, nrel, ncap, ndiv, rb, mq[1], R->steps ? (bench_cpu_seconds() - t0) / R->steps : 0.0,
                   failed != CF_OK ? "  stopped: " : "", failed != CF_OK ? cf_status_name(failed) : "");
            fflush(stdout);
            cf_contacts_free(&cl);
            cf_world_free(&w);
        }
    free(hbuf);
    plot_scene(sc, runs);
    for (int jac = 0; jac < 2; ++jac)
        for (int rs = 0; rs < CF_RFACTOR_COUNT; ++rs) run_free(&runs[jac][rs]);
}

static void paper(const char *only)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/ch07_paper%s%s.csv", out_dir, only ? "_" : "", only ? only : "");
    FILE *csv = fopen(path, "w");
    if (csv) fprintf(csv, "scene,solver,r_factor,step,contacts,sweeps,merit,class,rollbacks\n");
    printf("Paper 001 reproduced on the Moreau stepper (ch07.6): h 0.01, mu 0.75, mu_tau 0.01 (4 rows per contact), at most\n"
           "%d sweeps, absolute and relative tolerance 1e-3; global r = 5; nu 0.5 (global, blocked) and 0.9 (local); window 1\n"
           "(Algorithm 11); the Wall and the Tower 450 steps as in the paper, the Spheres 30\n\n",
           PAPER_SWEEPS);
    printf("%-21s %-7s %-13s %5s %6s %6s %6s %5s %5s %5s %5s %9s %9s %8s\n", "scene", "solver", "r", "max-c", "sw-q1", "median",
           "sw-q3", "abs", "rel", "cap", "div", "rollbacks", "merit-med", "cpu/step");
    for (int sc = 0; sc < N_SCENES; ++sc)
        if (!only || strcmp(only, scenes[sc].key) == 0) paper_scene(sc, csv);
    if (csv) fclose(csv);
    printf("\n(max-c: most contacts in a step; sw-q1/median/q3: quartiles of sweeps per step; abs, rel, cap, div: steps\n"
           " ending in absolute or relative convergence, at the sweep limit, or with the r scale underflowed; rollbacks:\n"
           " rejected sweeps over the run; merit-med: median final merit |lambda^{k+1} - lambda^k|_inf in N s; cpu/step:\n"
           " CPU seconds per step, detection included)\n\n");
}

/* ---- part 2: the 41 FC3D problems --------------------------------------------------------- */

/* Every solve runs in a child process under a CPU-time limit (child.h): a solver that runs past it
   (Siconos PROX on RockPile_tob1 has no limit of its own), asserts or crashes ends the child, never
   the table. Times are CPU seconds of the child's solve: on a shared, loaded machine wall time
   measures the neighbours. */
static const double cpu_limit_full = 60.0, cpu_limit_quick = 5.0;

typedef struct Result {
    BenchChildEnd end;
    double err_q, err_sic, seconds;
    int iterations;
    cfStatus status;
} Result;

static void errors(const cfFrictionProblem *fc, const double *r, double *eq, double *es)
{
    int n = 3 * fc->nc;
    double *u = malloc((size_t)n * sizeof *u);
    cf_fc_velocity(fc, r, u);
    double res = cf_fc_residual(fc, r), nq = cf_fc_norm_q(fc);
    double sc = fmax(nq, fmax(cf_vec_norm(n, r), cf_vec_norm(n, u)));
    *eq = nq > 0 ? res / nq : res;
    *es = sc > 0 ? res / sc : res;
    free(u);
}

/* what one child solves: a registry row on fc (s set) or a Siconos solver on the file (path set) */
typedef struct Job {
    const cfSolver *s;
    const cfFrictionProblem *fc;
    int budget;
    const char *path;
    int siconos_id;
} Job;

/* A solve is repeated, from zero each time, until 0.05 s of CPU time is spent (at most 1000 times)
   and the fastest counts: a problem of one contact takes microseconds, below the clock's noise. */
static bool again(int runs, double spent) { return runs < 1000 && spent < 0.05; }

/* head: status, iterations, CPU seconds of the fastest run; out: r */
static void row_child(void *ctx, double *head, double *r, int n)
{
    const Job *j = ctx;
    cfSolverParams par = cf_solver_params_default();
    par.warm_start = false;
    par.max_iter = j->budget;
    /* a natural-map row's tolerance is relative: cf_form_solve() scales it by |q| */
    par.tol = j->s->measure == CF_MEASURE_NATURAL_MAP ? 1e-8 : 1e-14;
    double best = INFINITY, spent = 0;
    for (int runs = 0; again(runs, spent); ++runs) {
        cfFormWork fw = {0};
        cfContactProblem prob;
        cfError err;
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        memset(r, 0, (size_t)n * sizeof *r);
        double t0 = bench_cpu_seconds();
        cfStatus st = cf_form_build(&fw, j->s, j->fc, &par, &prob, &err);
        if (st == CF_OK) st = cf_form_solve(&fw, j->s, &prob, &par, r, &rep);
        double t = bench_cpu_seconds() - t0;
        cf_form_work_free(&fw);
        best = fmin(best, t);
        spent += t;
        head[0] = st;
        head[1] = rep.iterations;
    }
    head[2] = best;
}

#ifdef CF_HAVE_SICONOS
static void siconos_child(void *ctx, double *head, double *r, int n)
{
    const Job *j = ctx;
    head[0] = CF_IO_ERROR;
    FrictionContactProblem *p = frictionContact_new_from_filename(j->path);
    if (!p) return;
    double *u = calloc((size_t)n, sizeof *u), best = INFINITY, spent = 0;
    for (int runs = 0; again(runs, spent); ++runs) {
        SolverOptions *o = solver_options_create(j->siconos_id);
        o->dparam[SICONOS_DPARAM_TOL] = 1e-8;
        o->iparam[SICONOS_IPARAM_MAX_ITER] = j->budget;
        memset(r, 0, (size_t)n * sizeof *r);
        memset(u, 0, (size_t)n * sizeof *u);
        double t0 = bench_cpu_seconds();
        int info = fc3d_driver(p, r, u, o);
        double t = bench_cpu_seconds() - t0;
        best = fmin(best, t);
        spent += t;
        head[0] = info == 0 ? CF_OK : CF_MAX_ITER;
        head[1] = o->iparam[SICONOS_IPARAM_ITER_DONE];
        solver_options_delete(o);
    }
    head[2] = best;
    free(u);
    frictionContactProblem_free(p);
}
#endif

/* run the job in a child; the errors are recomputed here from its r with our residual */
static Result run_job(BenchChildFn fn, Job *j)
{
    Result R = {BENCH_CHILD_FAILED, INFINITY, INFINITY, NAN, 0, CF_OK};
    int n = 3 * j->fc->nc;
    double *r = calloc((size_t)n, sizeof *r), head[BENCH_CHILD_HEAD] = {0};
    R.end = bench_child_run(quick ? cpu_limit_quick : cpu_limit_full, fn, j, head, r, n);
    if (R.end == BENCH_CHILD_OK) {
        R.status = (cfStatus)head[0];
        R.iterations = (int)head[1];
        R.seconds = head[2];
        if (R.status != CF_BAD_INPUT && R.status != CF_NO_MEMORY && R.status != CF_NOT_IMPLEMENTED &&
            R.status != CF_IO_ERROR && cf_vec_finite(n, r))
            errors(j->fc, r, &R.err_q, &R.err_sic);
    }
    free(r);
    return R;
}

static const char *result_status(const Result *r)
{
    return r->end == BENCH_CHILD_OK ? cf_status_name(r->status) : bench_child_end_name(r->end);
}

/* the better of two results: solved (err/|q| <= 1e-6) beats not solved; among solved the faster,
   among unsolved the smaller error */
static bool better(const Result *a, const Result *b)
{
    bool oa = a->err_q <= 1e-6, ob = b->err_q <= 1e-6;
    if (oa != ob) return oa;
    return oa ? a->seconds < b->seconds : a->err_q < b->err_q;
}

/* FCLIB's originals: fclib/converted/X.hdf5.dat is fclib/X.hdf5, X.condensed.dat fclib/global/X.hdf5.
   The problem is read from the original when it is there and this bench was built with HDF5=1
   (cflab's reader, tools/cflab/fclib.c), else from the converted text form; *from says which. */
static cfStatus read_fc3d(const char *file, cfFrictionProblem *fc, cfError *err, const char **from)
{
    *from = "text";
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file, *conv = strstr(file, "/fclib/converted/");
    size_t len = strlen(base);
    char orig[1200] = "";
    if (conv && len > 9 && strcmp(base + len - 9, ".hdf5.dat") == 0)
        snprintf(orig, sizeof orig, "%.*s/fclib/%.*s", (int)(conv - file), file, (int)(len - 4), base);
    else if (conv && len > 14 && strcmp(base + len - 14, ".condensed.dat") == 0)
        snprintf(orig, sizeof orig, "%.*s/fclib/global/%.*s.hdf5", (int)(conv - file), file, (int)(len - 14), base);
    if (orig[0] && access(orig, R_OK) == 0) {
        cfError e2;
        if (cflab_fc_read_fclib(orig, fc, &e2) == CF_OK) {
            *from = "hdf5";
            return CF_OK;
        }
    }
    return cf_fc_read_siconos(file, fc, err);
}

static void fc3d_table(const char *data)
{
    char *files[128], dir[900];
    snprintf(dir, sizeof dir, "%s/siconos-fc3d", data);
    int n = cf_data_files(dir, ".dat", true, files, 128);
    if (n < 0) n = 0;
    snprintf(dir, sizeof dir, "%s/fclib/converted", data);
    int more = cf_data_files(dir, ".dat", true, files + n, 128 - n);
    if (more > 0) n += more;
    if (n == 0) {
        printf("The FC3D problems: none found under %s (set CF_DATA_DIR); the table is skipped\n", data);
        return;
    }
    /* the registry's FC3D rows that solve an assembled isotropic problem: not chapter 10's rows for
       friction ellipses and texture (on isotropic contacts they are their chapter 5-7 row's method
       in another arrangement); of the reference-only rows only the sparse Newton (newton-ac-sparse,
       solutions/ch06/fast/), which factors differently from newton-ac: the OpenMP Jacobi gives
       prox-jacobi's answer bit for bit (make test-omp), so its single-thread CPU time would only
       repeat that row */
    const cfSolver *rows[32];
    int nr = 0, row_solved[32] = {0};
    for (int i = 0; i < cf_solver_count() && nr < 32; ++i) {
        const cfSolver *s = cf_solver_at(i);
        bool listed = !cf_solver_reference_only(s) || strcmp(s->name, "newton-ac-sparse") == 0;
        if (s->contacts && s->form == CF_FORM_FC3D && !s->dense && !s->anisotropic && listed) rows[nr++] = s;
    }
    /* sweeps: PROX 20000 (its merit stalls on the rank-deficient stacks long before), blocked GS and
       Siconos NSGS 200000 (they still gain on RockPile_tob1 and spheres-in-a-box at 20000);
       Newton 300 iterations, as in chapter 6 */
    int budget = quick ? 2000 : 20000, gs_budget = quick ? 2000 : 200000, newton_budget = quick ? 50 : 300;
    double limit = quick ? cpu_limit_quick : cpu_limit_full;
    char path[1024];
    snprintf(path, sizeof path, "%s/ch07_fc3d.csv", out_dir);
    FILE *csv = fopen(path, "w");
    if (csv) fprintf(csv, "problem,contacts,solver,status,iterations,cpu_seconds,err_q,err_siconos\n");
    printf("The %d FC3D problems of %s/siconos-fc3d and fclib/converted", n, data);
    if (min_contacts > 0) printf(" (--min-contacts: of these only those with at least %d contacts are solved)", min_contacts);
    printf(": every FC3D row of the registry (");
    for (int k = 0; k < nr; ++k) printf("%s%s", k ? ", " : "", rows[k]->name);
    printf(")\nfrom r = 0, at most %d sweeps (PROX %d) or %d Newton iterations, tolerance 1e-8 |q| on the natural map (PROX: 1e-14 on its\n"
           "merit, raised to the accuracy bound); each solve in a child process limited to %.0f s of CPU time;\n"
           "solved = err/|q| <= 1e-6 recomputed with our residual; time = CPU time of the fastest of the runs within\n"
           "0.05 s (a slow solve runs once)\n",
           gs_budget, budget, newton_budget, limit);
#ifdef CF_HAVE_SICONOS
    numerics_set_verbose(0);
    static const int sic_id[] = {SICONOS_FRICTION_3D_NSGS, SICONOS_FRICTION_3D_PROX, SICONOS_FRICTION_3D_NSN_AC};
    static const char *sic_name[] = {"NSGS", "PROX", "NSN-AC"};
    const int sic_budget[] = {gs_budget, 1000, 2000};
    int sic_solved[3] = {0};
    printf("Siconos numerics 4.4 in the same run and the same child limit: NSGS (%d iterations), PROX (1000), NSN-AC (2000),\n"
           "tolerance 1e-8 (its own err/max(|q|,|r|,|u|)), answers re-checked with our residual\n",
           gs_budget);
#else
    printf("Siconos numerics: not installed (libsiconos-numerics-dev); its columns are empty\n");
#endif
    printf("\n%-44s %4s  %-16s %9s %9s %10s  %-7s %9s %10s\n", "problem", "nc", "best cflab", "err/|q|", "err/max", "cpu[ms]",
           "siconos", "err/|q|", "cpu[ms]");
    int solved = 0, both = 0, read = 0, n_hdf5 = 0;
    double log_ratio = 0;
    /* the large problems, for the table after the main one */
    typedef struct Large {
        char name[64];
        int nc;
        const char *ours, *theirs;
        Result r_ours, r_theirs;
    } Large;
    Large large[64];
    int n_large = 0;
    for (int f = 0; f < n; ++f) {
        cfFrictionProblem fc;
        cfError err;
        const char *from;
        if (read_fc3d(files[f], &fc, &err, &from) != CF_OK) {
            printf("%s: %s\n", files[f], err.msg);
            continue;
        }
        if (fc.nc < min_contacts) {
            cf_fc_free(&fc);
            continue;
        }
        ++read;
        n_hdf5 += strcmp(from, "hdf5") == 0;
        const char *base = strrchr(files[f], '/') + 1;
        int best = -1;
        Result res[32];
        for (int k = 0; k < nr; ++k) {
            int b = rows[k]->chapter == 6 ? newton_budget : rows[k]->chapter == 5 ? gs_budget : budget;
            Job j = {rows[k], &fc, b, NULL, 0};
            res[k] = run_job(row_child, &j);
            if (csv)
                fprintf(csv, "%s,%d,%s,%s,%d,%.6e,%.3e,%.3e\n", base, fc.nc, rows[k]->name, result_status(&res[k]),
                        res[k].iterations, res[k].seconds, res[k].err_q, res[k].err_sic);
            row_solved[k] += res[k].err_q <= 1e-6;
            if (best < 0 || better(&res[k], &res[best])) best = k;
        }
        bool ours = res[best].err_q <= 1e-6;
        solved += ours;
        const char *sbest = "-";
        Result sres = {BENCH_CHILD_FAILED, INFINITY, INFINITY, NAN, 0, CF_OK};
        double prox_time = -1;
#ifdef CF_HAVE_SICONOS
        for (int k = 0; k < 3; ++k) {
            Job j = {NULL, &fc, sic_budget[k], files[f], sic_id[k]};
            Result r = run_job(siconos_child, &j);
            if (csv)
                fprintf(csv, "%s,%d,siconos-%s,%s,%d,%.6e,%.3e,%.3e\n", base, fc.nc, sic_name[k], result_status(&r),
                        r.iterations, r.seconds, r.err_q, r.err_sic);
            sic_solved[k] += r.err_q <= 1e-6;
            if (k == 1 && r.err_q <= 1e-6) prox_time = r.seconds;
            if (k == 0 || better(&r, &sres)) {
                sres = r;
                sbest = sic_name[k];
            }
        }
#endif
        if (ours && prox_time >= 0) {
            both++;
            log_ratio += log(fmax(res[best].seconds, 1e-9) / fmax(prox_time, 1e-9));
        }
        printf("%-44s %4d  %-16s %9.1e %9.1e %10.4g  %-7s %9.1e %10.4g%s\n", base, fc.nc, rows[best]->name, res[best].err_q,
               res[best].err_sic, 1e3 * res[best].seconds, sbest, sres.err_q, 1e3 * sres.seconds, ours ? "" : "  (not reached)");
        fflush(stdout);
        if (fc.nc >= LARGE_CONTACTS && n_large < 64) {
            Large *L = &large[n_large++];
            snprintf(L->name, sizeof L->name, "%s", base);
            L->nc = fc.nc;
            L->ours = rows[best]->name;
            L->theirs = sbest;
            L->r_ours = res[best];
            L->r_theirs = sres;
        }
        cf_fc_free(&fc);
    }
    if (csv) fclose(csv);
    printf("\n%d of the %d problems read from FCLIB's HDF5 originals (the rest from their Siconos text form%s)\n", n_hdf5, read,
           n_hdf5 ? "" : "; build with make HDF5=1 to read the originals");
    printf("solved to 1e-6 in err/|q| by some cflab solver: %d of %d\nper solver:", solved, read);
    for (int k = 0; k < nr; ++k) printf(" %s %d%s", rows[k]->name, row_solved[k], k + 1 < nr ? "," : "");
#ifdef CF_HAVE_SICONOS
    printf("; Siconos NSGS %d, PROX %d, NSN-AC %d", sic_solved[0], sic_solved[1], sic_solved[2]);
#endif
    printf("\n");
    if (both)
        printf("CPU time of the best cflab solver / Siconos PROX, geometric mean over the %d problems both solve: %.3f\n", both,
               exp(log_ratio / both));
    /* the large problems: the best of each side (solved first, then the fastest) and the ratio */
    if (n_large) {
        printf("\nThe %d problems with %d contacts or more: the best cflab solver against the best Siconos solver of this run\n"
               "(CPU ms of the fastest run; ratio = cflab / Siconos, where both solve to err/|q| <= 1e-6)\n\n",
               n_large, LARGE_CONTACTS);
        printf("%-44s %4s  %-16s %10s  %-7s %10s  %7s\n", "problem", "nc", "best cflab", "cpu[ms]", "siconos", "cpu[ms]", "ratio");
        int n_both = 0, n_met = 0;
        double lr = 0, worst = 0;
        for (int i = 0; i < n_large; ++i) {
            const Large *L = &large[i];
            bool o = L->r_ours.err_q <= 1e-6, t = L->r_theirs.err_q <= 1e-6;
            char ratio[32];
            if (o && t) {
                double q = fmax(L->r_ours.seconds, 1e-9) / fmax(L->r_theirs.seconds, 1e-9);
                snprintf(ratio, sizeof ratio, "%.3f", q);
                ++n_both;
                n_met += q <= 1.0;
                lr += log(q);
                worst = fmax(worst, q);
            } else
                snprintf(ratio, sizeof ratio, "%s", o ? "(S: -)" : t ? "(c: -)" : "(-)");
            printf("%-44s %4d  %-16s %10.4g  %-7s %10.4g  %7s\n", L->name, L->nc, L->ours, 1e3 * L->r_ours.seconds, L->theirs,
                   1e3 * L->r_theirs.seconds, ratio);
        }
        printf("(S: -: Siconos solves it with none of its three solvers; c: -: no cflab solver does)\n");
        if (n_both)
            printf("ratio <= 1 on %d of the %d large problems both solve; geometric mean %.3f, largest %.3f\n", n_met, n_both,
                   exp(lr / n_both), worst);
    }
    for (int f = 0; f < n; ++f) free(files[f]);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it comes, also through make's | tee */
    const char *data = getenv("CF_DATA_DIR") ? getenv("CF_DATA_DIR") : "../shared/data";
    bool do_paper = true, do_fc3d = true;
    const char *only = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) quick = true;
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out_dir = argv[++i];
        else if (strcmp(argv[i], "--paper-only") == 0) do_fc3d = false;
        else if (strcmp(argv[i], "--fc3d-only") == 0) do_paper = false;
        else if (strcmp(argv[i], "--min-contacts") == 0 && i + 1 < argc) {
            min_contacts = atoi(argv[++i]);
            do_paper = false;
        }
        else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
            only = argv[++i];
            do_fc3d = false;
            bool known = false;
            for (int k = 0; k < N_SCENES; ++k) known |= strcmp(only, scenes[k].key) == 0;
            if (!known) {
                fprintf(stderr, "bench_ch07: --scene: unknown scene '%s' (wall, tower, spheres)\n", only);
                return 2;
            }
        }
        else {
            fprintf(stderr, "usage: bench_ch07 [--quick] [--out DIR] [--paper-only | --fc3d-only | --min-contacts N |\n"
                            "                  --scene wall|tower|spheres]\n");
            return 2;
        }
    }
    struct utsname u;
    uname(&u);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
    printf("bench_ch07 %s on %s %s (%s), single thread unless OMP_NUM_THREADS says otherwise%s\n\n", date, u.sysname,
           u.release, u.machine, quick ? "; --quick" : "");
    if (do_paper) paper(only);
    if (do_fc3d) fc3d_table(data);
    return 0;
}
