/* SPDX-License-Identifier: MIT */
/* Benchmark of chapter 7 (`make bench-ch7`):
   1. paper 001 where it fits two cores: the Wall (81 bricks) and a box Tower (49 blocks) on the
      Moreau stepper of ch07.6 with paper 001's settings (h 0.01, mu 0.75, mu_tau 0.01, 1000
      sweeps, absolute and relative tolerance 1e-3), PROX-GS and PROX-Jacobi with the local, global
      (r = 5) and blocked r-factors: per step sweeps, final merit, convergence class, rollbacks;
      quartiles per configuration;
   2. every FC3D-capable solver of the registry (assembled FC3D form, not a dense pivoting method:
      blocked GS of chapter 5, PROX of chapter 7, Newton of chapter 6 once it is registered) on the
      41 Siconos/FCLIB problems, with Siconos numerics' NSGS, PROX and NSN-AC in the same run when
      Debian's libsiconos-numerics-dev is installed (-DCF_HAVE_SICONOS).
   Prints tables and writes CSV into --out DIR. --quick: fewer steps and a smaller budget. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "cf/cf_ch07.h"
#include "cf/cf_detect.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

#ifdef CF_HAVE_SICONOS
#include <siconos/numerics/FrictionContactProblem.h>
#include <siconos/numerics/Friction_cst.h>
#include <siconos/numerics/NonSmoothDrivers.h>
#include <siconos/numerics/NumericsVerbose.h>
#include <siconos/numerics/SolverOptions.h>
#endif

static const char *out_dir = ".";
static bool quick = false;

/* ---- part 1: paper 001 -------------------------------------------------------------------- */

static cfStatus detect(void *ctx, cfRigidBody *bodies, int nb, cfContactList *out)
{
    cfWorld *w = ctx;
    (void)bodies, (void)nb;
    cfContactList prev = *out;
    memset(out, 0, sizeof *out);
    cfDetectOptions opt = cf_detect_options_default();
    opt.margin = w->def.contact_margin;
    cfStatus st = cf_detect_world(w, &opt, out, NULL);
    if (st == CF_OK && prev.count > 0 && cf_contacts_carry_impulses(out, &prev) < 0) st = CF_NO_MEMORY;
    cf_contacts_free(&prev);
    return st;
}

static void add_box(cfWorld *w, cfVec3 half, double m, cfVec3 x)
{
    cfRigidBody b;
    cf_rigid_init(&b, cf_shape_box(half), m, NULL);
    b.mu = 0.75;
    b.x = x;
    cf_world_add_body(w, &b);
}

/* scene 0: the Wall (9 courses of 9 bricks, running bond); 1: a Tower of 49 blocks (Jenga-like:
   16 layers of 3 crossed blocks and one cap) */
static void build_scene(int scene, cfWorld *w)
{
    cfWorldDef def = cf_world_def_default();
    def.detector = CF_DETECT_PRIMITIVES;
    def.contact_margin = 0.01;
    cf_world_init(w, &def);
    cfRigidBody g;
    cf_rigid_init_fixed(&g, cf_shape_plane(cfu_vec3(0, 0, 1), 0), NULL);
    g.mu = 0.75;
    cf_world_add_body(w, &g);
    if (scene == 0) {
        const cfVec3 h = {0.2, 0.1, 0.1};
        for (int c = 0; c < 9; ++c)
            for (int i = 0; i < 9; ++i)
                add_box(w, h, 16.0, cfu_vec3(2 * h.x * (i - 4) + (c % 2 ? h.x : 0), 0, h.z * (2 * c + 1)));
    } else {
        for (int l = 0; l < 16; ++l)
            for (int i = 0; i < 3; ++i) {
                cfVec3 h = l % 2 ? cfu_vec3(0.05, 0.25, 0.05) : cfu_vec3(0.25, 0.05, 0.05);
                cfVec3 x = l % 2 ? cfu_vec3(0.1 * (i - 1), 0, 0.05 + 0.1 * l) : cfu_vec3(0, 0.1 * (i - 1), 0.05 + 0.1 * l);
                add_box(w, h, 1.0, x);
            }
        add_box(w, cfu_vec3(0.25, 0.25, 0.05), 2.0, cfu_vec3(0, 0, 1.65));
    }
}

typedef struct StepRec {
    int sweeps, rollbacks;
    double merit;
    cfStopReason reason;
} StepRec;

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static void quartiles(int n, const int *v, int q[3])
{
    int *s = malloc((size_t)n * sizeof *s);
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_int);
    for (int k = 0; k < 3; ++k) q[k] = n ? s[(k + 1) * (n - 1) / 4] : 0;
    free(s);
}

static void paper(void)
{
    static const char *scenes[] = {"Wall (81 bricks)", "Tower (49 blocks)"};
    int steps = quick ? 40 : 450;
    char path[1024];
    snprintf(path, sizeof path, "%s/ch07_paper.csv", out_dir);
    FILE *csv = fopen(path, "w");
    if (csv) fprintf(csv, "scene,solver,r_factor,step,contacts,sweeps,merit,class,rollbacks\n");
    printf("Paper 001 reproduced on the Moreau stepper (ch07.6): h 0.01, mu 0.75, mu_tau 0.01 (4 rows per contact),\n"
           "at most 1000 sweeps, absolute and relative tolerance 1e-3; %d steps per run; global r = 5 (the paper's)\n\n",
           steps);
    printf("%-18s %-7s %-8s %9s %9s %9s %7s %7s %7s %10s %9s %8s\n", "scene", "solver", "r", "sweeps-q1", "median",
           "q3", "abs", "rel", "cap", "rollbacks", "merit-med", "s/step");
    for (int sc = 0; sc < 2; ++sc)
        for (int jac = 0; jac < 2; ++jac)
            for (int rs = 0; rs < CF_RFACTOR_COUNT; ++rs) {
                cfWorld w;
                build_scene(sc, &w);
                cfMoreauOptions o = cf_moreau_options_default();
                o.mu_tau = 0.01;
                o.jacobi = jac;
                o.prox.strategy = (cfRFactor)rs;
                o.prox.r_global = 5.0;
                cfContactList cl = {0};
                StepRec *rec = calloc((size_t)steps, sizeof *rec);
                int *sw = malloc((size_t)steps * sizeof *sw), *mi = malloc((size_t)steps * sizeof *mi);
                int nabs = 0, nrel = 0, ncap = 0;
                long rb = 0;
                double t0 = cf_seconds();
                int done = 0;
                for (int s = 0; s < steps; ++s) {
                    cfMoreauStats st;
                    if (cf_moreau_step(w.bodies, w.n_bodies, detect, &w, &o, &cl, &st, NULL) != CF_OK) break;
                    rec[s] = (StepRec){st.prox.sweeps, st.prox.rollbacks, st.prox.merit, st.prox.reason};
                    sw[s] = st.prox.sweeps;
                    mi[s] = (int)fmin(2e9, 1e9 * st.prox.merit);
                    nabs += st.prox.reason == CF_STOP_ABSOLUTE;
                    nrel += st.prox.reason == CF_STOP_RELATIVE;
                    ncap += st.prox.reason == CF_STOP_MAX_ITER;
                    rb += st.prox.rollbacks;
                    if (csv)
                        fprintf(csv, "%s,%s,%s,%d,%d,%d,%.6e,%s,%d\n", sc ? "tower" : "wall", jac ? "jacobi" : "gs",
                                cf_rfactor_name(rs), s, st.contacts, st.prox.sweeps, st.prox.merit,
                                cf_stop_reason_name(st.prox.reason), st.prox.rollbacks);
                    done = s + 1;
                }
                int q[3], qm[3];
                quartiles(done, sw, q);
                quartiles(done, mi, qm);
                printf("%-18s %-7s %-8s %9d %9d %9d %7d %7d %7d %10ld %9.2e %8.3f\n", scenes[sc], jac ? "jacobi" : "gs",
                       cf_rfactor_name(rs), q[0], q[1], q[2], nabs, nrel, ncap, rb, qm[1] * 1e-9,
                       done ? (cf_seconds() - t0) / done : 0.0);
                fflush(stdout);
                free(rec), free(sw), free(mi);
                cf_contacts_free(&cl);
                cf_world_free(&w);
            }
    if (csv) fclose(csv);
    printf("\n(abs, rel, cap: steps ending in absolute or relative convergence, or at 1000 sweeps; merit-med:\n"
           " the median final merit |lambda^{k+1} - lambda^k|_inf in N s; rollbacks: rejected sweeps over the run)\n\n");
}

/* ---- part 2: the 41 FC3D problems --------------------------------------------------------- */

typedef struct Result {
    bool ran;
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

static Result run_row(const cfSolver *s, const cfFrictionProblem *fc, int budget)
{
    Result R = {true, INFINITY, INFINITY, 0, 0, CF_OK};
    cfSolverParams par = cf_solver_params_default();
    par.warm_start = false;
    par.max_iter = budget;
    par.tol = s->measure == CF_MEASURE_NATURAL_MAP ? 1e-8 * cf_fc_norm_q(fc) : 1e-14;
    cfFormWork fw = {0};
    cfContactProblem prob;
    cfError err;
    double *r = calloc((size_t)3 * fc->nc, sizeof *r);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    double t0 = cf_seconds();
    cfStatus st = cf_form_build(&fw, s, fc, &par, &prob, &err);
    if (st == CF_OK) st = cf_form_solve(&fw, s, &prob, &par, r, &rep);
    R.seconds = cf_seconds() - t0;
    R.status = st;
    R.iterations = rep.iterations;
    if (st != CF_BAD_INPUT && st != CF_NO_MEMORY && st != CF_NOT_IMPLEMENTED) errors(fc, r, &R.err_q, &R.err_sic);
    cf_form_work_free(&fw);
    free(r);
    return R;
}

#ifdef CF_HAVE_SICONOS
static Result run_siconos(const char *path, const cfFrictionProblem *fc, int id, int max_iter)
{
    Result R = {true, INFINITY, INFINITY, 0, 0, CF_OK};
    FrictionContactProblem *p = frictionContact_new_from_filename(path);
    if (!p) {
        R.ran = false;
        return R;
    }
    SolverOptions *o = solver_options_create(id);
    o->dparam[SICONOS_DPARAM_TOL] = 1e-8;
    o->iparam[SICONOS_IPARAM_MAX_ITER] = max_iter;
    int n = 3 * fc->nc;
    double *r = calloc((size_t)n, sizeof *r), *u = calloc((size_t)n, sizeof *u);
    double t0 = cf_seconds();
    int info = fc3d_driver(p, r, u, o);
    R.seconds = cf_seconds() - t0;
    R.status = info == 0 ? CF_OK : CF_MAX_ITER;
    R.iterations = o->iparam[SICONOS_IPARAM_ITER_DONE];
    if (cf_vec_finite(n, r)) errors(fc, r, &R.err_q, &R.err_sic);
    free(r), free(u);
    solver_options_delete(o);
    frictionContactProblem_free(p);
    return R;
}
#endif

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int list_dat(const char *dir, char **names, int cap)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < cap) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".dat") == 0) {
            names[n] = malloc(strlen(dir) + len + 2);
            sprintf(names[n], "%s/%s", dir, e->d_name);
            ++n;
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    return n;
}

static void fc3d_table(const char *data)
{
    char *files[128], dir[900];
    snprintf(dir, sizeof dir, "%s/siconos-fc3d", data);
    int n = list_dat(dir, files, 128);
    snprintf(dir, sizeof dir, "%s/fclib/converted", data);
    n += list_dat(dir, files + n, 128 - n);
    const cfSolver *rows[32];
    int nr = 0;
    for (int i = 0; i < cf_solver_count() && nr < 32; ++i) {
        const cfSolver *s = cf_solver_at(i);
        if (s->contacts && s->form == CF_FORM_FC3D && !s->dense) rows[nr++] = s;
    }
    int budget = quick ? 2000 : 20000;
    char path[1024];
    snprintf(path, sizeof path, "%s/ch07_fc3d.csv", out_dir);
    FILE *csv = fopen(path, "w");
    if (csv) fprintf(csv, "problem,contacts,solver,status,iterations,seconds,err_q,err_siconos\n");
    printf("The %d FC3D problems: every FC3D-capable row of the registry (", n);
    for (int k = 0; k < nr; ++k) printf("%s%s", k ? ", " : "", rows[k]->name);
    printf("), at most %d iterations,\ntolerance 1e-8 |q| on the natural map (or 1e-14 on the PROX merit, raised to the "
           "accuracy bound); solved = err/|q| <= 1e-6\n",
           budget);
#ifdef CF_HAVE_SICONOS
    numerics_set_verbose(0);
    static const int sic_id[] = {SICONOS_FRICTION_3D_NSGS, SICONOS_FRICTION_3D_PROX, SICONOS_FRICTION_3D_NSN_AC};
    static const char *sic_name[] = {"NSGS", "PROX", "NSN-AC"};
    printf("Siconos numerics 4.4 in the same run: NSGS, PROX and NSN-AC at tol 1e-8 (NSGS %d iterations, PROX 1000, NSN-AC 2000)\n",
           budget);
#else
    printf("Siconos numerics: not installed (libsiconos-numerics-dev); its columns are empty\n");
#endif
    printf("\n%-44s %4s  %-15s %9s %9s %9s  %-7s %9s %9s\n", "problem", "nc", "best cflab", "err/|q|", "err/max", "time[s]",
           "siconos", "err/|q|", "time[s]");
    int solved = 0, both = 0;
    double log_ratio = 0;
    for (int f = 0; f < n; ++f) {
        cfFrictionProblem fc;
        cfError err;
        if (cf_fc_read_siconos(files[f], &fc, &err) != CF_OK) {
            printf("%s: %s\n", files[f], err.msg);
            continue;
        }
        const char *base = strrchr(files[f], '/') + 1;
        int best = -1;
        Result res[32];
        for (int k = 0; k < nr; ++k) {
            res[k] = run_row(rows[k], &fc, budget);
            if (csv)
                fprintf(csv, "%s,%d,%s,%s,%d,%.6e,%.3e,%.3e\n", base, fc.nc, rows[k]->name, cf_status_name(res[k].status),
                        res[k].iterations, res[k].seconds, res[k].err_q, res[k].err_sic);
            bool ok = res[k].err_q <= 1e-6, bok = best >= 0 && res[best].err_q <= 1e-6;
            if (best < 0 || (ok && (!bok || res[k].seconds < res[best].seconds)) || (!ok && !bok && res[k].err_q < res[best].err_q))
                best = k;
        }
        bool ours = best >= 0 && res[best].err_q <= 1e-6;
        solved += ours;
        const char *sbest = "-";
        Result sres = {false, INFINITY, INFINITY, 0, 0, CF_OK};
        double prox_time = -1;
#ifdef CF_HAVE_SICONOS
        for (int k = 0; k < 3; ++k) {
            Result r = run_siconos(files[f], &fc, sic_id[k], k == 0 ? budget : k == 1 ? 1000 : 2000);
            if (csv)
                fprintf(csv, "%s,%d,siconos-%s,%s,%d,%.6e,%.3e,%.3e\n", base, fc.nc, sic_name[k], cf_status_name(r.status),
                        r.iterations, r.seconds, r.err_q, r.err_sic);
            if (k == 1 && r.err_q <= 1e-6) prox_time = r.seconds;
            bool ok = r.err_q <= 1e-6, bok = sres.ran && sres.err_q <= 1e-6;
            if (!sres.ran || (ok && (!bok || r.seconds < sres.seconds)) || (!ok && !bok && r.err_q < sres.err_q)) {
                sres = r;
                sbest = sic_name[k];
            }
        }
#endif
        if (ours && prox_time > 0) {
            both++;
            log_ratio += log(fmax(res[best].seconds, 1e-7) / fmax(prox_time, 1e-7));
        }
        printf("%-44s %4d  %-15s %9.1e %9.1e %9.4f  %-7s %9.1e %9.4f%s\n", base, fc.nc, rows[best]->name, res[best].err_q,
               res[best].err_sic, res[best].seconds, sbest, sres.err_q, sres.seconds, ours ? "" : "  (not reached)");
        fflush(stdout);
        cf_fc_free(&fc);
    }
    if (csv) fclose(csv);
    printf("\nsolved to 1e-6 in err/|q| by some cflab solver: %d of %d\n", solved, n);
    if (both)
        printf("time of the best cflab solver / Siconos PROX, geometric mean over the %d problems both solve: %.3f\n", both,
               exp(log_ratio / both));
    for (int f = 0; f < n; ++f) free(files[f]);
}

int main(int argc, char **argv)
{
    const char *data = getenv("CF_DATA_DIR") ? getenv("CF_DATA_DIR") : "../shared/data";
    bool do_paper = true, do_fc3d = true;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) quick = true;
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out_dir = argv[++i];
        else if (strcmp(argv[i], "--paper-only") == 0) do_fc3d = false;
        else if (strcmp(argv[i], "--fc3d-only") == 0) do_paper = false;
        else {
            fprintf(stderr, "usage: bench_ch07 [--quick] [--out DIR] [--paper-only | --fc3d-only]\n");
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
    if (do_paper) paper();
    if (do_fc3d) fc3d_table(data);
    return 0;
}
