/* SPDX-License-Identifier: MIT */
/* `cflab solve FILE.dat`: solve a Siconos LCP file with one of the chapter 4 pivoting solvers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch04.h"
#include "cf/cf_problem.h"

int cflab_solve_main(int argc, char **argv);

typedef cfStatus (*SolveFn)(const cfLcp *, const cfPivotOptions *, double *, cfReport *);

static const struct {
    const char *name;
    SolveFn fn;
    const char *what;
} SOLVERS[] = {
    {"lemke", cf_lcp_lemke, "Lemke, covering vector e, lexicographic ratio test (ch04.3)"},
    {"dantzig", cf_lcp_dantzig, "Dantzig/Baraff incremental pivoting, symmetric A only (ch04.1)"},
    {"murty", cf_lcp_murty, "principal pivoting, Murty's least-index rule (ch04.4)"},
    {"bpp", cf_lcp_bpp, "block principal pivoting with the Judice-Pires safeguard (ch04.5)"},
};
#define N_SOLVERS ((int)(sizeof SOLVERS / sizeof SOLVERS[0]))

static void solve_help(FILE *f)
{
    fputs("usage: cflab solve FILE.dat [options]\n"
          "\n"
          "Solve the LCP w = M z + q, 0 <= z _|_ w >= 0 of a Siconos .dat file (dense column-major or\n"
          "sparse block) and print the outcome: status, residual in Siconos' measure\n"
          "||z - max(0, z - w)|| / ||q|| and the absolute natural-map residual ||min(z, w)||, pivots\n"
          "(BPP: linear solves) and time.\n"
          "\n"
          "options:\n"
          "  --solver NAME   lemke (default), dantzig, murty or bpp\n",
          f);
    for (int i = 0; i < N_SOLVERS; ++i) fprintf(f, "                    %-8s %s\n", SOLVERS[i].name, SOLVERS[i].what);
    fputs("  --tol T         relative sign tolerance of the pivoting tests (default 1e-12)\n"
          "  --max-iter N    pivot limit (default 100 n + 1000)\n"
          "  --pbar P        BPP safeguard budget (default 3; negative: no safeguard)\n"
          "  --json          one JSON object instead of text\n"
          "  --print-x       also print the solution z\n"
          "  -h, --help      this text\n"
          "\n"
          "exit status: 0 solved, 1 not solved (infeasible, pivot limit, singular, ...), 2 bad\n"
          "arguments or an unreadable file\n",
          f);
}

/* "--name=value" or "--name value" */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t n = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, n) != 0) return NULL;
    if (arg[n] == '=') return arg + n + 1;
    if (arg[n] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* a finite number, or null in JSON */
static void json_number(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v); /* round-trip precision: anyone can check x */
    else fputs("null", f);
}

int cflab_solve_main(int argc, char **argv)
{
    const char *file = NULL, *solver = "lemke";
    cfPivotOptions opt = cf_pivot_options_default();
    int json = 0, print_x = 0;
    for (int i = 1; i < argc; ++i) {
        int missing = 0;
        const char *v;
        char *end = NULL;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            solve_help(stdout);
            return 0;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--print-x") == 0) {
            print_x = 1;
        } else if ((v = opt_value(argc, argv, &i, "--solver", &missing)) != NULL) {
            solver = v;
        } else if ((v = opt_value(argc, argv, &i, "--tol", &missing)) != NULL) {
            errno = 0;
            opt.tol = strtod(v, &end);
            if (errno || end == v || *end || !isfinite(opt.tol) || opt.tol < 0.0) {
                fprintf(stderr, "cflab solve: --tol: '%s' is not a non-negative number\n", v);
                return 2;
            }
        } else if ((v = opt_value(argc, argv, &i, "--max-iter", &missing)) != NULL) {
            errno = 0;
            long m = strtol(v, &end, 10);
            if (errno || end == v || *end || m < 1 || m > 100000000L) {
                fprintf(stderr, "cflab solve: --max-iter: '%s' is not an integer in [1, 1e8]\n", v);
                return 2;
            }
            opt.max_pivots = (int)m;
        } else if ((v = opt_value(argc, argv, &i, "--pbar", &missing)) != NULL) {
            errno = 0;
            long m = strtol(v, &end, 10);
            if (errno || end == v || *end || m < -1 || m > 1000) {
                fprintf(stderr, "cflab solve: --pbar: '%s' is not an integer in [-1, 1000]\n", v);
                return 2;
            }
            opt.bpp_pbar = (int)m;
        } else if (missing) {
            fprintf(stderr, "cflab solve: %s needs a value (see cflab solve --help)\n", argv[i]);
            return 2;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "cflab solve: unknown option '%s' (see cflab solve --help)\n", argv[i]);
            return 2;
        } else if (!file) {
            file = argv[i];
        } else {
            fprintf(stderr, "cflab solve: one file at a time ('%s' and '%s')\n", file, argv[i]);
            return 2;
        }
        if (missing) {
            fprintf(stderr, "cflab solve: %s needs a value (see cflab solve --help)\n", argv[i]);
            return 2;
        }
    }
    if (!file) {
        solve_help(stderr);
        return 2;
    }
    SolveFn fn = NULL;
    for (int i = 0; i < N_SOLVERS; ++i)
        if (strcmp(solver, SOLVERS[i].name) == 0) fn = SOLVERS[i].fn;
    if (!fn) {
        fprintf(stderr, "cflab solve: unknown solver '%s' (lemke, dantzig, murty, bpp)\n", solver);
        return 2;
    }

    cfLcp p;
    cfError err;
    cfStatus st = cf_lcp_read_siconos(file, &p, &err);
    if (st != CF_OK) {
        fprintf(stderr, "cflab solve: %s\n", err.msg);
        return 2;
    }
    double *x = calloc((size_t)p.n, sizeof *x);
    if (!x) {
        fprintf(stderr, "cflab solve: out of memory (n = %d)\n", p.n);
        cf_lcp_free(&p);
        return 2;
    }
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    st = fn(&p, &opt, x, &rep);
    const double res_sic = cf_lcp_residual_siconos(&p, x), res_abs = cf_lcp_residual(&p, x);
    const char *note = "";
    if (st == CF_BAD_INPUT && strcmp(solver, "dantzig") == 0) note = "Dantzig's method needs a symmetric matrix";
    else if (st == CF_INFEASIBLE && strcmp(solver, "lemke") == 0)
        note = "ray termination: no solution if M is copositive-plus, otherwise inconclusive";
    else if (st == CF_INFEASIBLE) note = "unbounded drive: no solution for symmetric PSD M";
    else if (st == CF_SINGULAR) note = "a principal submatrix is singular (method needs a P-matrix)";
    else if (st == CF_STAGNATED) note = "an index set repeated: cycling (M is not a P-matrix)";
    else if (st == CF_MAX_ITER) note = "pivot limit reached (raise --max-iter)";

    if (json) {
        printf("{\"file\": ");
        json_string(stdout, file);
        printf(", \"n\": %d, \"solver\": \"%s\", \"status\": \"%s\", \"solved\": %s, \"residual_siconos\": ", p.n,
               solver, cf_status_name(st), st == CF_OK ? "true" : "false");
        json_number(stdout, res_sic);
        printf(", \"residual_abs\": ");
        json_number(stdout, res_abs);
        printf(", \"pivots\": %d, \"seconds\": %.6e", rep.iterations, rep.seconds);
        if (note[0]) {
            printf(", \"note\": ");
            json_string(stdout, note);
        }
        if (print_x) {
            printf(", \"x\": [");
            for (int i = 0; i < p.n; ++i) {
                if (i) printf(", ");
                json_number(stdout, x[i]);
            }
            printf("]");
        }
        printf("}\n");
    } else {
        printf("%s: n = %d, solver %s\n", file, p.n, solver);
        printf("  status    %s%s%s%s\n", cf_status_name(st), note[0] ? " (" : "", note, note[0] ? ")" : "");
        printf("  residual  %.3e (Siconos ||z - max(0, z - w)|| / ||q||), %.3e (absolute ||min(z, w)||)\n", res_sic,
               res_abs);
        printf("  %-9s %d\n", strcmp(solver, "bpp") == 0 ? "solves" : "pivots", rep.iterations);
        printf("  time      %.3f ms\n", 1e3 * rep.seconds);
        if (print_x) {
            printf("  z        ");
            for (int i = 0; i < p.n; ++i) printf(" %.17g", x[i]);
            printf("\n");
        }
    }
    free(x);
    cf_lcp_free(&p);
    return st == CF_OK ? 0 : 1;
}
