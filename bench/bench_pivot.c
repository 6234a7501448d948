/* SPDX-License-Identifier: MIT */
/* Benchmark of the chapter 4 pivoting solvers: the Siconos LCP set and generated families
   (n = 10 ... 1000), pivots and time; with -DCF_HAVE_SICONOS also Siconos' LEMKE in the same run. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cf/cf_ch04.h"
#include "cf/cf_lcpgen.h"
#include "cf/cf_problem.h"
#include "machine.h"

#ifdef CF_HAVE_SICONOS
#include <siconos/numerics/LCP_Solvers.h>
#include <siconos/numerics/LinearComplementarityProblem.h>
#include <siconos/numerics/NumericsMatrix.h>
#include <siconos/numerics/SolverOptions.h>
#include <siconos/numerics/lcp_cst.h>
#endif

typedef cfStatus (*SolveFn)(const cfLcp *, const cfPivotOptions *, double *, cfReport *);

typedef struct Outcome {
    bool ran;
    bool solved;      /* status ok and Siconos residual <= 1e-10 */
    const char *status;
    int pivots;
    double seconds;   /* best of the repetitions */
    double residual;  /* Siconos measure */
} Outcome;

static double time_budget = 0.05; /* seconds of repetitions per measurement */

static FILE *csv;

/* ---- our solvers -------------------------------------------------------------------------- */

static Outcome run_ours(const cfLcp *p, SolveFn fn, const cfPivotOptions *opt)
{
    Outcome o = {true, false, "", 0, INFINITY, NAN};
    double *x = calloc((size_t)p->n, sizeof *x);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    double t0 = cf_seconds();
    cfStatus st = fn(p, opt, x, &rep);
    double first = cf_seconds() - t0;
    o.status = cf_status_name(st);
    o.pivots = rep.iterations;
    o.residual = cf_lcp_residual_siconos(p, x);
    o.solved = st == CF_OK && o.residual <= 1e-10;
    o.seconds = first;
    { /* best of several runs (at least 3 in all, more for fast problems): load on a shared
         machine only ever makes a run slower */
        int reps = (int)fmax(2.0, fmin(2000.0, ceil(time_budget / fmax(first, 1e-7))));
        for (int r = 0; r < reps; ++r) { /* the report is optional: repetitions go without one */
            t0 = cf_seconds();
            fn(p, opt, x, NULL);
            o.seconds = fmin(o.seconds, cf_seconds() - t0);
        }
    }
    free(x);
    return o;
}

/* ---- Siconos LEMKE ------------------------------------------------------------------------ */

#ifdef CF_HAVE_SICONOS
static Outcome run_siconos_once(const cfLcp *p, double *z, double *w, double *secs)
{
    Outcome o = {true, false, "", 0, INFINITY, NAN};
    const int n = p->n;
    double *M = calloc((size_t)n * n, sizeof *M); /* Siconos dense storage is column-major */
    for (int i = 0; i < n; ++i)
        for (int k = p->A.rowptr[i]; k < p->A.rowptr[i + 1]; ++k) M[(long)p->A.colidx[k] * n + i] = p->A.val[k];
    double *q = malloc((size_t)n * sizeof *q);
    memcpy(q, p->b, (size_t)n * sizeof *q);
    NumericsMatrix *NM = NM_create_from_data(NM_DENSE, n, n, M);
    LinearComplementarityProblem prob;
    prob.size = n;
    prob.M = NM;
    prob.q = q;
    SolverOptions *so = solver_options_create(SICONOS_LCP_LEMKE);
    so->iparam[SICONOS_IPARAM_MAX_ITER] = 100 * n + 1000;
    memset(z, 0, (size_t)n * sizeof *z);
    memset(w, 0, (size_t)n * sizeof *w);
    int info = -1;
    double t0 = cf_seconds();
    lcp_lexicolemke(&prob, z, w, &info, so);
    *secs = cf_seconds() - t0;
    o.pivots = so->iparam[SICONOS_IPARAM_ITER_DONE];
    o.status = info == 0 ? "converged" : info == 1 ? "max-iterations" : "failed";
    solver_options_delete(so);
    NM_free(NM); /* frees M as well */
    free(q);
    return o;
}

static Outcome run_siconos(const cfLcp *p)
{
    double *z = calloc((size_t)p->n, sizeof *z), *w = calloc((size_t)p->n, sizeof *w), secs;
    Outcome o = run_siconos_once(p, z, w, &secs);
    bool finite = true;
    for (int i = 0; i < p->n; ++i) finite &= isfinite(z[i]) && isfinite(w[i]);
    o.residual = finite ? cf_lcp_residual_siconos(p, z) : NAN; /* recomputed: never trust info alone */
    o.solved = strcmp(o.status, "converged") == 0 && o.residual <= 1e-10;
    o.seconds = secs;
    {
        int reps = (int)fmax(2.0, fmin(2000.0, ceil(time_budget / fmax(secs, 1e-7))));
        for (int r = 0; r < reps; ++r) {
            double s;
            run_siconos_once(p, z, w, &s);
            o.seconds = fmin(o.seconds, s);
        }
    }
    free(z);
    free(w);
    return o;
}
#endif

/* ---- reporting ---------------------------------------------------------------------------- */

typedef struct Totals {
    double log_ratio_sum; /* sum of log(ours / siconos) over problems both solved */
    int ratio_count;
    double log_ratio_sum_big; /* the same over problems with n >= 20 (solver work, not call overhead) */
    int ratio_count_big;
    int ours_only, siconos_only, both, neither;
} Totals;

static void print_row(const char *set, const char *name, int n, const char *solver, const Outcome *o)
{
    printf("  %-34s %5d  %-16s %-15s %7d %11.4f  %9.2e%s\n", name, n, solver, o->status, o->pivots, 1e3 * o->seconds,
           o->residual, o->solved ? "" : "  (not solved)");
    if (csv)
        fprintf(csv, "%s,%s,%d,%s,%s,%d,%d,%.6e,%.3e\n", set, name, n, solver, o->status, o->solved ? 1 : 0, o->pivots,
                o->seconds, o->residual);
}

static bool is_symmetric(const cfLcp *p)
{
    for (int i = 0; i < p->n; ++i)
        for (int k = p->A.rowptr[i]; k < p->A.rowptr[i + 1]; ++k)
            if (fabs(p->A.val[k] - cf_csr_get(&p->A, p->A.colidx[k], i)) > 1e-12 * fabs(p->A.val[k])) return false;
    return true;
}

/* all solvers on one problem; limits keep the exponential or O(n^4) ones away from large n */
static void bench_problem(const char *set, const char *name, const cfLcp *p, Totals *tot, int murty_max_n,
                          int refactor_max_n)
{
    cfPivotOptions opt = cf_pivot_options_default();
    Outcome lemke = run_ours(p, cf_lcp_lemke, &opt);
    print_row(set, name, p->n, "lemke", &lemke);
    if (is_symmetric(p)) {
        Outcome o = run_ours(p, cf_lcp_dantzig, &opt);
        print_row(set, name, p->n, "dantzig", &o);
        if (p->n <= refactor_max_n) {
            cfPivotOptions r = opt;
            r.refactor = true;
            o = run_ours(p, cf_lcp_dantzig, &r);
            print_row(set, name, p->n, "dantzig-refactor", &o);
        }
    }
    if (p->n <= murty_max_n) {
        Outcome o = run_ours(p, cf_lcp_murty, &opt);
        print_row(set, name, p->n, "murty", &o);
    }
    Outcome o = run_ours(p, cf_lcp_bpp, &opt);
    print_row(set, name, p->n, "bpp", &o);
#ifdef CF_HAVE_SICONOS
    Outcome s = run_siconos(p);
    print_row(set, name, p->n, "siconos-lemke", &s);
    if (lemke.solved && s.solved) {
        tot->both++;
        tot->log_ratio_sum += log(lemke.seconds / s.seconds);
        tot->ratio_count++;
        if (p->n >= 20) {
            tot->log_ratio_sum_big += log(lemke.seconds / s.seconds);
            tot->ratio_count_big++;
        }
        printf("  %-34s %5s  time ratio lemke / siconos-lemke = %.2f\n", "", "", lemke.seconds / s.seconds);
    } else if (lemke.solved) {
        tot->ours_only++;
    } else if (s.solved) {
        tot->siconos_only++;
    } else {
        tot->neither++;
    }
#else
    (void)tot;
#endif
}

static void bench_siconos_set(const char *dir, Totals *tot)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("Siconos set: %s not found, skipped\n", dir);
        return;
    }
    closedir(d);
    char *names[256];
    int count = cf_data_files(dir, ".dat", false, names, 256);
    printf("Siconos LCP set (%s): %d files\n", dir, count);
    for (int i = 0; i < count; ++i) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        cfLcp p;
        cfError err;
        if (cf_lcp_read_siconos(path, &p, &err) != CF_OK) {
            printf("  %s\n", err.msg);
            free(names[i]);
            continue;
        }
        bench_problem("siconos", names[i], &p, tot, 1000, 1000);
        cf_lcp_free(&p);
        free(names[i]);
    }
}

static void bench_families(int max_n, unsigned long seed, Totals *tot)
{
    const cfLcpFamily fams[] = {CF_LCPGEN_PD,     CF_LCPGEN_PSD,   CF_LCPGEN_BLOCKED, CF_LCPGEN_CONTACT,
                                CF_LCPGEN_BANDED, CF_LCPGEN_FLUID, CF_LCPGEN_POISSON};
    const int sizes[] = {10, 30, 100, 300, 1000};
    printf("\nGenerated families (corrected planted solution, zero fraction 0.5, seed %lu)\n", seed);
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; ++f)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
            if (sizes[s] > max_n) continue;
            cfLcp p;
            cfStatus st = cf_lcpgen_family(fams[f], sizes[s], seed + 17 * f + s, &p, NULL);
            char name[64];
            snprintf(name, sizeof name, "%s-%d", cf_lcpgen_family_name(fams[f]), cf_lcpgen_family_size(fams[f], sizes[s]));
            if (st != CF_OK) {
                printf("  %s: generation failed: %s\n", name, cf_status_name(st));
                continue;
            }
            bench_problem("generated", name, &p, tot, 100, 300);
            cf_lcp_free(&p);
        }
}

static void usage(FILE *f)
{
    fputs("usage: bench_pivot [--max-n N] [--quick] [--data DIR] [--csv FILE] [--seed S] [--budget SECONDS]\n"
          "  --max-n N     largest generated size (default 1000; sizes 10, 30, 100, 300, 1000)\n"
          "  --quick       --max-n 100 --budget 0.01\n"
          "  --data DIR    Siconos LCP folder (default $CF_DATA_DIR/siconos-lcp or ../shared/data/siconos-lcp)\n"
          "  --csv FILE    also write one CSV row per (problem, solver)\n"
          "  --budget S    repeat fast runs for S seconds and keep the best time (default 0.05)\n",
          f);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it comes, also through make's | tee */
    int max_n = 1000;
    unsigned long seed = 2024;
    const char *csv_path = NULL;
    char data[1024];
    const char *env = getenv("CF_DATA_DIR");
    snprintf(data, sizeof data, "%s/siconos-lcp", env && *env ? env : "../shared/data");
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--max-n") && i + 1 < argc) max_n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) {
            max_n = 100;
            time_budget = 0.01;
        } else if (!strcmp(argv[i], "--data") && i + 1 < argc) snprintf(data, sizeof data, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc) time_budget = atof(argv[++i]);
        else {
            usage(!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ? stdout : stderr);
            return !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ? 0 : 2;
        }
    }
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "bench_pivot: cannot write %s\n", csv_path);
            return 2;
        }
        char machine[512];
        time_t now = time(NULL);
        fprintf(csv, "# bench_pivot: chapter 4 pivoting solvers; best of >= 3 runs (more within %.3g s); one thread\n",
                time_budget);
        fprintf(csv, "# machine: %s; date: %s", bench_machine(machine, sizeof machine), ctime(&now));
#ifdef CF_HAVE_SICONOS
        fprintf(csv, "# siconos-lemke: Debian libsiconos-numerics (lcp_lexicolemke, default options)\n");
#endif
        fprintf(csv, "set,problem,n,solver,status,solved,pivots,seconds,residual_siconos\n");
    }
    printf("  %-34s %5s  %-16s %-15s %7s %11s  %9s\n", "problem", "n", "solver", "status", "pivots", "time[ms]",
           "residual");
    Totals tot = {0};
    bench_siconos_set(data, &tot);
    bench_families(max_n, seed, &tot);
#ifdef CF_HAVE_SICONOS
    printf("\nLemke vs Siconos LEMKE: both solved %d, only ours %d, only Siconos %d, neither %d\n", tot.both,
           tot.ours_only, tot.siconos_only, tot.neither);
    if (tot.ratio_count > 0)
        printf("time ratio ours / Siconos (geometric mean over %d problems both solved): %.3f\n", tot.ratio_count,
               exp(tot.log_ratio_sum / tot.ratio_count));
    if (tot.ratio_count_big > 0)
        printf("time ratio ours / Siconos (geometric mean over the %d of them with n >= 20): %.3f\n",
               tot.ratio_count_big, exp(tot.log_ratio_sum_big / tot.ratio_count_big));
#else
    printf("\n(Siconos LEMKE comparison not built: install libsiconos-numerics-dev and rebuild)\n");
#endif
    if (csv) fclose(csv);
    return 0;
}
