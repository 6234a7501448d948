/* SPDX-License-Identifier: MIT */
/* Chapter 6 benchmark: the non-smooth Newton solvers on all Siconos LCP problems and on all
   FC3D/FCLIB problems: status, iterations, both residual normalizations, time; with
   -DCF_HAVE_SICONOS also Siconos' NEWTONMIN and NEWTON_FB_FBLSA (LCP) and NSN-AC and NSN-FB (FC3D)
   in the same run, with the time ratio per problem and its geometric mean.

   "Solved" is the same test for every solver, recomputed from the returned solution with this
   toolkit's residuals: LCP err = |z - max(0, z - w)| / |q| <= 1e-10 (Siconos' LCP measure);
   FC3D err / |q| <= 1e-8 (the Acary-Bremond-Huber normalization; the Siconos one, err /
   max(|q|, |r|, |u|), is printed too). Times: best of repeated runs within a budget (one run for
   slow ones), one thread (OPENBLAS_NUM_THREADS=1 is set by make bench-ch6). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "cf/cf_ch02.h"
#include "cf/cf_ch04.h"
#include "cf/cf_ch05.h"
#include "cf/cf_ch06.h"
#include "cf/cf_problem.h"
#include "machine.h"

#ifdef CF_HAVE_SICONOS
#include <siconos/numerics/FrictionContactProblem.h>
#include <siconos/numerics/Friction_cst.h>
#include <siconos/numerics/LCP_Solvers.h>
#include <siconos/numerics/LinearComplementarityProblem.h>
#include <siconos/numerics/NonSmoothDrivers.h>
#include <siconos/numerics/NumericsMatrix.h>
#include <siconos/numerics/SolverOptions.h>
#include <siconos/numerics/lcp_cst.h>
#endif

static double g_budget = 0.2;  /* seconds of repeats for fast runs */
static int g_max_iter = 300;   /* Newton iterations allowed to our FC3D solvers */
static int g_siconos_iter = 2000;

typedef struct Outcome {
    const char *status;
    bool solved;
    int iterations;
    double err_q;       /* FC3D: abs / |q|; LCP: Siconos' measure */
    double err_siconos; /* FC3D: abs / max(|q|, |r|, |u|) */
    double seconds;
} Outcome;

/* one group of solvers compared with one Siconos solver */
typedef struct Pair {
    const char *ours, *theirs;
    int ours_solved, theirs_solved, both, n;
    double log_ratio; /* sum of log(t_ours / t_theirs) over problems both solved */
    int ratios;
} Pair;

static void print_row(const char *name, int n, const char *solver, const Outcome *o, bool fc)
{
    if (fc)
        printf("  %-46s %5d  %-14s %-15s %5d  %9.2e %9.2e %10.4f%s\n", name, n, solver, o->status, o->iterations,
               o->err_q, o->err_siconos, 1e3 * o->seconds, o->solved ? "" : "  (not solved)");
    else
        printf("  %-46s %5d  %-14s %-15s %5d  %9.2e %9s %10.4f%s\n", name, n, solver, o->status, o->iterations,
               o->err_q, "", 1e3 * o->seconds, o->solved ? "" : "  (not solved)");
}

static void pair_add(Pair *p, const Outcome *ours, const Outcome *theirs)
{
    p->n++;
    p->ours_solved += ours->solved;
    p->theirs_solved += theirs->solved;
    if (ours->solved && theirs->solved) {
        p->both++;
        /* times below 1 us are clock resolution: both are floored there */
        p->log_ratio += log(fmax(ours->seconds, 1e-6) / fmax(theirs->seconds, 1e-6));
        p->ratios++;
    }
}

static void pair_print(const Pair *p)
{
    printf("  %-10s vs %-18s on %2d problems: solved %2d vs %2d, both %2d; time ratio (geometric mean over both "
           "solved) %.3f\n",
           p->ours, p->theirs, p->n, p->ours_solved, p->theirs_solved, p->both,
           p->ratios ? exp(p->log_ratio / p->ratios) : NAN);
}

/* ---- LCP ------------------------------------------------------------------------------------ */

typedef cfStatus (*LcpNewton)(const cfLcp *, const cfNewtonOptions *, double *, cfReport *);

static Outcome run_lcp(LcpNewton fn, const cfLcp *p)
{
    Outcome o = {0};
    double *x = calloc((size_t)p->n, sizeof *x);
    double nq = cf_vec_norm(p->n, p->b);
    cfNewtonOptions opt = cf_newton_options_default();
    opt.max_iter = 100;
    opt.tol = 1e-10 * (nq > 0 ? nq : 1.0); /* Siconos' err = natural map / |q| <= 1e-10 */
    double best = INFINITY, spent = 0.0;
    cfStatus st = CF_OK;
    cfReport rep;
    for (int k = 0; k < 3 || spent < g_budget; ++k) {
        memset(x, 0, (size_t)p->n * sizeof *x);
        cf_report_init(&rep, NULL, 0);
        double t0 = cf_seconds();
        st = fn(p, &opt, x, &rep);
        double t = cf_seconds() - t0;
        best = fmin(best, t);
        spent += t;
        if (spent > 10 * g_budget) break;
    }
    o.status = cf_status_name(st);
    o.iterations = rep.iterations;
    o.err_q = cf_vec_finite(p->n, x) ? cf_lcp_residual_siconos(p, x) : INFINITY;
    o.solved = o.err_q <= 1e-10;
    o.seconds = best;
    free(x);
    return o;
}

#ifdef CF_HAVE_SICONOS
static Outcome run_siconos_lcp(int solver, const cfLcp *p)
{
    Outcome o = {0};
    int n = p->n;
    cfDense D;
    cf_csr_to_dense(&p->A, &D);
    double *M = malloc((size_t)n * n * sizeof *M), *q = malloc((size_t)n * sizeof *q);
    for (int i = 0; i < n; ++i) {
        q[i] = p->b[i];
        for (int j = 0; j < n; ++j) M[j * n + i] = *cf_dense_at(&D, i, j); /* column-major */
    }
    cf_dense_free(&D);
    NumericsMatrix *NM = NM_create_from_data(NM_DENSE, n, n, M);
    LinearComplementarityProblem *lcp = newLCP();
    lcp->size = n;
    lcp->M = NM;
    lcp->q = q;
    double *z = calloc((size_t)n, sizeof *z), *w = calloc((size_t)n, sizeof *w);
    double best = INFINITY, spent = 0.0;
    int info = 0, iters = 0;
    for (int k = 0; k < 3 || spent < g_budget; ++k) {
        SolverOptions *so = solver_options_create(solver);
        so->iparam[SICONOS_IPARAM_MAX_ITER] = 100;
        so->dparam[SICONOS_DPARAM_TOL] = 1e-10;
        memset(z, 0, (size_t)n * sizeof *z);
        memset(w, 0, (size_t)n * sizeof *w);
        double t0 = cf_seconds();
        info = linearComplementarity_driver(lcp, z, w, so);
        double t = cf_seconds() - t0;
        iters = so->iparam[SICONOS_IPARAM_ITER_DONE];
        solver_options_delete(so);
        best = fmin(best, t);
        spent += t;
        if (spent > 10 * g_budget) break;
    }
    o.status = info == 0 ? "info 0" : "info != 0";
    o.iterations = iters;
    o.err_q = cf_vec_finite(n, z) ? cf_lcp_residual_siconos(p, z) : INFINITY; /* never trust info alone */
    o.solved = o.err_q <= 1e-10;
    o.seconds = best;
    free(z);
    free(w);
    freeLinearComplementarityProblem(lcp); /* frees M (with its data) and q */
    return o;
}
#endif

static void bench_lcp(const char *dir, Pair *pm, Pair *pf)
{
    char *names[64];
    int nf = cf_data_files(dir, ".dat", false, names, 64);
    printf("Siconos LCP set (%s): %d files; solved = Siconos' err <= 1e-10 from z = 0, 100 iterations\n", dir, nf);
    for (int i = 0; i < nf; ++i) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        cfLcp p;
        cfError err;
        if (cf_lcp_read_siconos(path, &p, &err) != CF_OK) {
            printf("  %s: %s\n", names[i], err.msg);
            free(names[i]);
            continue;
        }
        Outcome mm = run_lcp(cf_lcp_newton_minmap, &p), fb = run_lcp(cf_lcp_newton_fb, &p);
        print_row(names[i], p.n, "newton-mm", &mm, false);
        print_row(names[i], p.n, "newton-fb", &fb, false);
#ifdef CF_HAVE_SICONOS
        Outcome sm = run_siconos_lcp(SICONOS_LCP_NEWTONMIN, &p), sf = run_siconos_lcp(SICONOS_LCP_NEWTON_FB_FBLSA, &p);
        print_row(names[i], p.n, "siconos-nmin", &sm, false);
        print_row(names[i], p.n, "siconos-fb", &sf, false);
        pair_add(pm, &mm, &sm);
        pair_add(pf, &fb, &sf);
#else
        Outcome none = {.status = "", .solved = false};
        pair_add(pm, &mm, &none);
        pair_add(pf, &fb, &none);
#endif
        cf_lcp_free(&p);
        free(names[i]);
    }
}

/* ---- FC3D ----------------------------------------------------------------------------------- */

static void fc_errors(const cfFrictionProblem *p, const double *r, Outcome *o)
{
    int n = 3 * p->nc;
    double *u = malloc((size_t)n * sizeof *u);
    cf_fc_velocity(p, r, u);
    double abs_err = cf_vec_finite(n, r) ? cf_fc_residual(p, r) : INFINITY, nq = cf_fc_norm_q(p);
    double den = fmax(nq, fmax(cf_vec_norm(n, r), cf_vec_norm(n, u)));
    o->err_q = abs_err / (nq > 0 ? nq : 1.0);
    o->err_siconos = abs_err / (den > 0 ? den : 1.0);
    o->solved = o->err_q <= 1e-8;
    free(u);
}

static Outcome run_fc(const cfFrictionProblem *p, bool box)
{
    Outcome o = {0};
    int n = 3 * p->nc;
    double *r = calloc((size_t)n, sizeof *r);
    cfNewtonOptions opt = cf_newton_options_default();
    opt.max_iter = g_max_iter;
    double nq = cf_fc_norm_q(p);
    opt.tol = 1e-8 * (nq > 0 ? nq : 1.0);
    cfBlcp B = {0};
    if (box && cf_friction_boxed_lcp(p, &B) != CF_OK) box = false;
    double best = INFINITY, spent = 0.0;
    cfStatus st = CF_OK;
    cfReport rep;
    for (int k = 0; k < 3 || spent < g_budget; ++k) {
        memset(r, 0, (size_t)n * sizeof *r);
        cf_report_init(&rep, NULL, 0);
        double t0 = cf_seconds();
        st = box ? cf_blcp_newton(&B, &opt, r, &rep) : cf_fc_newton_ac(p, &opt, r, &rep);
        double t = cf_seconds() - t0;
        best = fmin(best, t);
        spent += t;
        if (spent > 5 * g_budget || t > g_budget) break;
    }
    o.status = cf_status_name(st);
    o.iterations = rep.iterations;
    fc_errors(p, r, &o);
    if (box) { /* the pyramid is another model: solved means its own natural map / |q| <= 1e-8 */
        o.err_q = cf_blcp_residual(&B, r) / (nq > 0 ? nq : 1.0);
        o.solved = o.err_q <= 1e-8;
        cf_blcp_free(&B);
    }
    o.seconds = best;
    free(r);
    return o;
}

#ifdef CF_HAVE_SICONOS
/* Siconos runs in a child process: an assertion inside it (NSN-FB asserts on RockPile_tob1) or a
   run past the time limit (60 s, as in ../shared/data/siconos-fc3d/README.md) ends the child, not
   the benchmark. The child sends back info, iterations, time and r through a pipe. */
static Outcome run_siconos_fc(int solver, const char *path, const cfFrictionProblem *mine)
{
    Outcome o = {0};
    int n = 3 * mine->nc, fd[2];
    double *r = calloc((size_t)n, sizeof *r);
    if (pipe(fd) != 0) {
        o.status = "no pipe";
        free(r);
        return o;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        alarm(60);
        FrictionContactProblem *fc = frictionContact_new_from_filename(path);
        double head[3] = {-1, 0, 0}; /* info, iterations, seconds */
        double *u = calloc((size_t)n, sizeof *u), best = INFINITY, spent = 0.0;
        for (int k = 0; fc && (k < 3 || spent < g_budget); ++k) {
            SolverOptions *so = solver_options_create(solver);
            so->iparam[SICONOS_IPARAM_MAX_ITER] = g_siconos_iter;
            so->dparam[SICONOS_DPARAM_TOL] = 1e-8;
            memset(r, 0, (size_t)n * sizeof *r);
            memset(u, 0, (size_t)n * sizeof *u);
            double t0 = cf_seconds();
            head[0] = fc3d_driver(fc, r, u, so);
            double t = cf_seconds() - t0;
            head[1] = so->iparam[SICONOS_IPARAM_ITER_DONE];
            solver_options_delete(so);
            best = fmin(best, t);
            spent += t;
            if (spent > 5 * g_budget || t > g_budget) break;
        }
        head[2] = best;
        bool ok = write(fd[1], head, sizeof head) == (ssize_t)sizeof head &&
                  write(fd[1], r, (size_t)n * sizeof *r) == (ssize_t)((size_t)n * sizeof *r);
        _exit(ok ? 0 : 1);
    }
    close(fd[1]);
    double head[3] = {0};
    bool got = pid > 0 && read(fd[0], head, sizeof head) == (ssize_t)sizeof head;
    size_t want = (size_t)n * sizeof *r, have = 0;
    while (got && have < want) {
        ssize_t k = read(fd[0], (char *)r + have, want - have);
        if (k <= 0) break;
        have += (size_t)k;
    }
    close(fd[0]);
    int ws = 0;
    if (pid > 0) waitpid(pid, &ws, 0);
    if (!got || have < want) {
        o.status = WIFSIGNALED(ws) ? (WTERMSIG(ws) == SIGALRM ? "timeout 60 s" : "crashed") : "failed";
        o.err_q = o.err_siconos = INFINITY;
        o.seconds = NAN;
        free(r);
        return o;
    }
    o.status = head[0] == 0 ? "info 0" : "info != 0";
    o.iterations = (int)head[1];
    fc_errors(mine, r, &o); /* recomputed with our residual, never trusting info */
    o.seconds = head[2];
    free(r);
    return o;
}
#endif

static void bench_fc_dir(const char *dir, Pair *pa, Pair *pf, int *box_solved, int *count)
{
    char *names[64];
    int nf = cf_data_files(dir, ".dat", false, names, 64);
    for (int i = 0; i < nf; ++i) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        cfFrictionProblem p;
        cfError err;
        if (cf_fc_read_siconos(path, &p, &err) != CF_OK) {
            printf("  %s: %s\n", names[i], err.msg);
            free(names[i]);
            continue;
        }
        ++*count;
        Outcome ac = run_fc(&p, false), mid = run_fc(&p, true);
        print_row(names[i], 3 * p.nc, "newton-ac", &ac, true);
        print_row(names[i], 3 * p.nc, "newton-mid", &mid, true);
        *box_solved += mid.solved;
#ifdef CF_HAVE_SICONOS
        Outcome sa = run_siconos_fc(SICONOS_FRICTION_3D_NSN_AC, path, &p);
        Outcome sf = run_siconos_fc(SICONOS_FRICTION_3D_NSN_FB, path, &p);
        print_row(names[i], 3 * p.nc, "siconos-nsn-ac", &sa, true);
        print_row(names[i], 3 * p.nc, "siconos-nsn-fb", &sf, true);
        pair_add(pa, &ac, &sa);
        pair_add(pf, &ac, &sf);
#else
        Outcome none = {.status = "", .solved = false};
        pair_add(pa, &ac, &none);
        pair_add(pf, &ac, &none);
#endif
        fflush(stdout);
        cf_fc_free(&p);
        free(names[i]);
    }
}

/* ---- Newton vs PGS vs Lemke on the same problems ------------------------------------------ */

static void compare_row(const char *problem, const char *solver, int iters, double secs, double acc, const char *what)
{
    printf("  %-34s %-12s %8d %10.3f  %9.2e  %s\n", problem, solver, iters, 1e3 * secs, acc, what);
}

/* the 1D stack of chapter 5 (10 unit masses, the top one ratio): Newton, PGS and Lemke to 1e-10 |b| */
static void compare_stack(double ratio)
{
    int n = 10;
    cfDense A;
    cf_dense_init(&A, n, n);
    double b[10] = {0};
    for (int i = 0; i < n; ++i) {
        double mi = i == n - 1 ? ratio : 1.0, mp = i > 0 ? (i - 1 == n - 1 ? ratio : 1.0) : 1.0;
        *cf_dense_at(&A, i, i) = 1.0 / mi + (i > 0 ? 1.0 / mp : 0.0);
        if (i > 0) *cf_dense_at(&A, i, i - 1) = *cf_dense_at(&A, i - 1, i) = -1.0 / mp;
    }
    b[0] = -0.01 * 9.81;
    cfLcp p;
    cf_lcp_from_dense(&p, &A, b);
    cf_dense_free(&A);
    char name[64];
    snprintf(name, sizeof name, "1D stack n=10, ratio %g", ratio);
    double x[10], tol = 1e-10 * cf_vec_norm(n, b);
    cfReport rep;
    memset(x, 0, sizeof x);
    cfNewtonOptions o = cf_newton_options_default();
    o.tol = tol;
    cf_report_init(&rep, NULL, 0);
    cf_lcp_newton_minmap(&p, &o, x, &rep);
    compare_row(name, "newton-mm", rep.iterations, rep.seconds, cf_lcp_residual(&p, x) / cf_vec_norm(n, b), "iterations");
    memset(x, 0, sizeof x);
    cfSplitOptions so = cf_split_options_default();
    so.max_iter = 1000000;
    so.tol_abs = tol;
    cf_report_init(&rep, NULL, 0);
    cf_lcp_pgs(&p, &so, x, &rep);
    compare_row(name, "pgs", rep.iterations, rep.seconds, cf_lcp_residual(&p, x) / cf_vec_norm(n, b), "sweeps");
    memset(x, 0, sizeof x);
    cfPivotOptions po = cf_pivot_options_default();
    cf_report_init(&rep, NULL, 0);
    cf_lcp_lemke(&p, &po, x, &rep);
    compare_row(name, "lemke", rep.iterations, rep.seconds, cf_lcp_residual(&p, x) / cf_vec_norm(n, b), "pivots");
    cf_lcp_free(&p);
}

/* an FC3D file: Alart-Curnier Newton and blocked PGS to err/|q| <= 1e-8 (or their budgets), and
   Lemke on the 8-direction polyhedral LCP (another model: its cone residual says how far) */
static void compare_fc(const char *dir, const char *file)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cfFrictionProblem p;
    cfError err;
    if (cf_fc_read_siconos(path, &p, &err) != CF_OK) {
        printf("  %s: %s\n", file, err.msg);
        return;
    }
    int n = 3 * p.nc;
    double nq = cf_fc_norm_q(&p), *r = calloc((size_t)n, sizeof *r);
    cfReport rep;
    cfNewtonOptions o = cf_newton_options_default();
    o.max_iter = g_max_iter;
    o.tol = 1e-8 * nq;
    cf_report_init(&rep, NULL, 0);
    cf_fc_newton_ac(&p, &o, r, &rep);
    compare_row(file, "newton-ac", rep.iterations, rep.seconds, cf_fc_residual(&p, r) / nq, "iterations");
    memset(r, 0, (size_t)n * sizeof *r);
    cfSplitOptions so = cf_split_options_default();
    so.max_iter = 100000;
    so.tol_abs = 1e-8 * nq;
    cf_report_init(&rep, NULL, 0);
    cf_fc_bgs(&p, &so, r, &rep);
    compare_row(file, "pgs-blocked", rep.iterations, rep.seconds, cf_fc_residual(&p, r) / nq, "sweeps (budget 100000)");
    cfLcp L;
    if (n <= 300 && cf_friction_polyhedral_lcp(&p, 8, &L) == CF_OK) {
        double *z = calloc((size_t)L.n, sizeof *z);
        cfPivotOptions po = cf_pivot_options_default();
        cf_report_init(&rep, NULL, 0);
        cfStatus st = cf_lcp_lemke(&L, &po, z, &rep);
        for (int a = 0; a < p.nc; ++a) { /* impulses from the polyhedral unknowns */
            double lt = 0, lb = 0;
            for (int i = 0; i < 8; ++i) {
                lt += z[p.nc + 8 * a + i] * cos(2 * CF_PI * i / 8);
                lb += z[p.nc + 8 * a + i] * sin(2 * CF_PI * i / 8);
            }
            r[3 * a] = z[a];
            r[3 * a + 1] = lt;
            r[3 * a + 2] = lb;
        }
        char what[96];
        snprintf(what, sizeof what, "pivots (%s; the 8-sided pyramid's own error %.1e)", cf_status_name(st),
                 cf_lcp_residual(&L, z) / nq);
        compare_row(file, "lemke", rep.iterations, rep.seconds, cf_fc_residual(&p, r) / nq, what);
        free(z);
        cf_lcp_free(&L);
    }
    free(r);
    cf_fc_free(&p);
}

static void compare(const char *data)
{
    printf("\nNewton vs PGS vs Lemke on the same problems (one run each, from zero; accuracy: LCP natural map / |b|, "
           "FC3D Coulomb natural map / |q|)\n");
    printf("  %-34s %-12s %8s %10s  %9s\n", "problem", "solver", "count", "time[ms]", "accuracy");
    compare_stack(1.0);
    compare_stack(1e3);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/siconos-fc3d", data);
    compare_fc(dir, "NESpheres_10_1.dat");
    compare_fc(dir, "BoxesStack1-i100000-32.hdf5.dat");
    compare_fc(dir, "Capsules-i101-404.dat");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it comes, also through make's | tee */
    const char *env = getenv("CF_DATA_DIR");
    char data[1024];
    snprintf(data, sizeof data, "%s", env && *env ? env : "../shared/data");
    bool lcp = true, fc = true, cmp = true;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc) snprintf(data, sizeof data, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc) g_budget = atof(argv[++i]);
        else if (!strcmp(argv[i], "--max-iter") && i + 1 < argc) g_max_iter = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--lcp-only")) fc = cmp = false;
        else if (!strcmp(argv[i], "--fc-only")) lcp = cmp = false;
        else if (!strcmp(argv[i], "--compare-only")) lcp = fc = false;
        else {
            fprintf(stderr, "usage: bench_newton [--data DIR] [--budget S] [--max-iter N] [--lcp-only | --fc-only | --compare-only]\n");
            return 2;
        }
    }
    char machine[512];
    time_t now = time(NULL);
    printf("# bench_newton: chapter 6 Newton solvers (reference solutions); best of >= 3 runs within %.3g s "
           "(one run when a run takes longer)\n",
           g_budget);
    printf("# machine: %s; date: %s", bench_machine(machine, sizeof machine), ctime(&now));
#ifdef CF_HAVE_SICONOS
    printf("# Siconos: Debian libsiconos-numerics 4.4 in the same process, default options but tolerance and "
           "iteration limit; its solutions re-checked with our residuals\n");
#else
    printf("# Siconos: not installed (libsiconos-numerics-dev); our solvers only\n");
#endif
    printf("  %-46s %5s  %-14s %-15s %5s  %9s %9s %10s\n", "problem", "n", "solver", "status", "iter", "err/|q|",
           "err/max", "time[ms]");
    Pair pm = {.ours = "newton-mm", .theirs = "siconos-newtonmin"}, pf = {.ours = "newton-fb", .theirs = "siconos-newton-fb"};
    Pair pa = {.ours = "newton-ac", .theirs = "siconos-nsn-ac"}, pfb = {.ours = "newton-ac", .theirs = "siconos-nsn-fb"};
    if (lcp) {
        char dir[1100];
        snprintf(dir, sizeof dir, "%s/siconos-lcp", data);
        bench_lcp(dir, &pm, &pf);
    }
    int box_solved = 0, count = 0;
    if (fc) {
        char dir[1100];
        snprintf(dir, sizeof dir, "%s/siconos-fc3d", data);
        printf("\nFC3D: Siconos set and FCLIB conversions; solved = err/|q| <= 1e-8 from r = 0 (newton-mid: its "
               "own boxed-LCP natural map / |q|); ours %d iterations, Siconos %d\n",
               g_max_iter, g_siconos_iter);
        bench_fc_dir(dir, &pa, &pfb, &box_solved, &count);
        snprintf(dir, sizeof dir, "%s/fclib/converted", data);
        bench_fc_dir(dir, &pa, &pfb, &box_solved, &count);
    }
    if (cmp) compare(data);
    printf("\nSummary (solved counts; time ratio ours / Siconos, geometric mean over the problems both solved; "
           "times under 1 us floored)\n");
    if (lcp) {
        pair_print(&pm);
        pair_print(&pf);
    }
    if (fc) {
        pair_print(&pa);
        pair_print(&pfb);
        printf("  newton-mid (pyramid model) solved its boxed LCP on %d of %d problems\n", box_solved, count);
    }
    return 0;
}
