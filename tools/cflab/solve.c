/* SPDX-License-Identifier: MIT */
/* `cflab solve FILE.dat`: solve a Siconos LCP or frictional-contact (FC3D) file, or an FCLIB local
   problem (FILE.hdf5, with HDF5=1), with any solver of the registry that takes its form, and print
   the outcome in one common measure. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_problem.h"
#include "cf/cf_solvers.h"

#include "args.h"
#include "fclib.h"

int cflab_solve_main(int argc, char **argv);

static void solve_help(FILE *f)
{
    fputs("usage: cflab solve FILE.dat|FILE.hdf5 [options]\n"
          "\n"
          "Solve a problem of a Siconos text file or an FCLIB HDF5 file and print the outcome: status,\n"
          "iterations (pivots, sweeps), residuals and time. The kind of file is recognized from its\n"
          "first bytes: HDF5's signature is an FCLIB problem (FC3D below; read by a cflab built with\n"
          "make HDF5=1; a global one, M v = H r + f, u = H' v + w with a diagonal M, is condensed to\n"
          "W = H' M^-1 H, q = H' M^-1 f + w), and a text file's first numbers tell:\n"
          "  LCP   w = M z + q, 0 <= z _|_ w >= 0 (dense column-major or sparse block). Residuals:\n"
          "        Siconos' ||z - max(0, z - w)|| / ||q|| and the absolute natural map ||min(z, w)||.\n"
          "  FC3D  u = W r + q, Coulomb's cone per contact (Siconos' local form). Residuals: the\n"
          "        natural map of the Coulomb problem with De Saxce's velocity (the common measure\n"
          "        every solver is compared on), absolute, / ||q|| and / max(||q||, ||r||, ||u||)\n"
          "        (Siconos), and the solver's own measure.\n"
          "\n"
          "options:\n",
          f);
    fprintf(f, "  --solver NAME   a solver of the table (default %s for LCP files, %s for FC3D):\n",
            cf_solver_default(CF_SOLVERS_LCP)->name, cf_solver_default(CF_SOLVERS_ASSEMBLED)->name);
    for (int i = 0; i < cf_solver_count(); ++i) {
        const cfSolver *s = cf_solver_at(i);
        bool lcp = cf_solver_matches(s, CF_SOLVERS_LCP), fc3d = cf_solver_matches(s, CF_SOLVERS_ASSEMBLED);
        const char *files = lcp && fc3d ? "LCP, FC3D" : lcp ? "LCP" : fc3d ? "FC3D" : NULL;
        if (files) fprintf(f, "                    %-14s %-9s %s\n", s->name, files, s->summary);
    }
    fputs("  --tol T         \"converged\" means the common residual, the natural map of the problem the\n"
          "                  solver solved over ||q|| (LCP; Coulomb cone, or the pyramid of the boxed\n"
          "                  solvers and of --friction box; the polyhedral LCP of the LCP solvers), is <= T\n"
          "                  (default 1e-10); a solver that stops on its own measure above it is reported\n"
          "                  stagnated or max-iterations, with both numbers\n"
          "  --max-iter N    iteration, sweep or pivot limit (default: 100 n + 1000 pivoting, 10000 iterative)\n"
          "  --omega W       relaxation of the splitting solvers, in (0, 2) (default 1)\n"
          "  --friction M    FC3D with pgs-blocked: cone (default) or box\n"
          "  --directions K  FC3D with an LCP solver: friction directions of the polyhedral cone (default 8)\n"
          "  --r-factor R    FC3D with a PROX solver: local (default), global or blocked r-factors\n"
          "  --json          one JSON object instead of text\n"
          "  --print-x       also print the solution (z, or r per contact)\n"
          "  --write-siconos OUT  FC3D: also write the problem read (a condensed global one too) in\n"
          "                  the Siconos text form, then solve\n"
          "  --write-fclib OUT    FC3D: also write it as an FCLIB local problem (HDF5; make HDF5=1), so\n"
          "                  that Siconos or fclib reads it; `cflab run --dump-problem` makes one of a step\n"
          "  -h, --help      this text\n"
          "\n"
          "exit status: 0 solved (\"solved\" in --json: the status is converged), 1 not solved (infeasible,\n"
          "iteration limit, stagnated, singular, ...), 2 bad arguments, a solver that does not take the\n"
          "file's problem or an option it would ignore, or an unreadable file\n",
          f);
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

/* a finite number, printed so that reading it back gives the same double (anyone can check x), or
   null in JSON */
static void json_number(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fputs("null", f);
}

/* `, "key": [v0, v1, ...]` */
static void json_array(FILE *f, const char *key, int n, const double *v)
{
    fprintf(f, ", \"%s\": [", key);
    for (int i = 0; i < n; ++i) {
        if (i) fputs(", ", f);
        json_number(f, v[i]);
    }
    fputc(']', f);
}

/* FC3D files start "3 nc storage size0 ..." with storage 0, 1 or 2; LCP files "n storage size0
   size1" with size0 = n. An LCP of n = 3 has its third number 3, an FC3D file never (storage <= 2),
   and an LCP's second number is a storage type (0, 1 or 2): so a file starting with 3 that is not
   "3 s 3" with s <= 2 is an FC3D file, whose reader then says what is wrong with its header (a
   corrupted FC3D header was read as an LCP, with messages about another format). Anything else is
   an LCP. Only a regular file is opened (cf_file_open(): a FIFO would block); the readers refuse
   the others with their message. */
static bool looks_fc3d(const char *path)
{
    cfStatus st;
    FILE *f = cf_file_open(path, 0, &st, NULL);
    if (!f) return false;
    double t[3];
    int n = 0;
    while (n < 3 && fscanf(f, "%lf", &t[n]) == 1) ++n;
    fclose(f);
    if (n < 1 || t[0] != 3.0) return false;
    bool lcp3 = n == 3 && (t[1] == 0.0 || t[1] == 1.0 || t[1] == 2.0) && t[2] == 3.0;
    return !lcp3;
}

typedef struct Args {
    const char *file, *solver;
    const char *write_siconos, *write_fclib; /* FC3D: write the problem read, in that form, before solving */
    cfSolverParams par;
    bool tol_set, iter_set, friction_set, r_factor_set, directions_set;
    int json, print_x;
} Args;

static int parse_args(int argc, char **argv, Args *a)
{
    memset(a, 0, sizeof *a);
    a->par = cf_solver_params_default();
    a->par.warm_start = false;
    for (int i = 1; i < argc; ++i) {
        int missing = 0;
        const char *v;
        char *end = NULL;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            solve_help(stdout);
            return 0;
        } else if (strcmp(argv[i], "--json") == 0) {
            a->json = 1;
        } else if (strcmp(argv[i], "--print-x") == 0) {
            a->print_x = 1;
        } else if ((v = cflab_option_value(argc, argv, &i, "--solver", &missing)) != NULL) {
            a->solver = v;
        } else if ((v = cflab_option_value(argc, argv, &i, "--write-siconos", &missing)) != NULL) {
            a->write_siconos = v;
        } else if ((v = cflab_option_value(argc, argv, &i, "--write-fclib", &missing)) != NULL) {
            a->write_fclib = v;
        } else if ((v = cflab_option_value(argc, argv, &i, "--tol", &missing)) != NULL) {
            errno = 0;
            a->par.tol = strtod(v, &end);
            if (errno || end == v || *end || !isfinite(a->par.tol) || a->par.tol < 0.0) {
                fprintf(stderr, "cflab solve: --tol: '%s' is not a non-negative number\n", v);
                return 2;
            }
            a->tol_set = true;
        } else if ((v = cflab_option_value(argc, argv, &i, "--max-iter", &missing)) != NULL) {
            errno = 0;
            long m = strtol(v, &end, 10);
            if (errno || end == v || *end || m < 1 || m > 100000000L) {
                fprintf(stderr, "cflab solve: --max-iter: '%s' is not an integer in [1, 1e8]\n", v);
                return 2;
            }
            a->par.max_iter = a->par.max_pivots = (int)m;
            a->iter_set = true;
        } else if ((v = cflab_option_value(argc, argv, &i, "--omega", &missing)) != NULL) {
            errno = 0;
            a->par.omega = strtod(v, &end);
            if (errno || end == v || *end || !(a->par.omega > 0.0 && a->par.omega < 2.0)) {
                fprintf(stderr, "cflab solve: --omega: '%s' is not a number in (0, 2)\n", v);
                return 2;
            }
        } else if ((v = cflab_option_value(argc, argv, &i, "--friction", &missing)) != NULL) {
            if (strcmp(v, "cone") == 0) a->par.friction = CF_FRICTION_CONE;
            else if (strcmp(v, "box") == 0) a->par.friction = CF_FRICTION_BOX;
            if (a->par.friction == CF_FRICTION_CONE || a->par.friction == CF_FRICTION_BOX) a->friction_set = true;
            else {
                fprintf(stderr, "cflab solve: --friction: expected cone or box (got '%s')\n", v);
                return 2;
            }
        } else if ((v = cflab_option_value(argc, argv, &i, "--r-factor", &missing)) != NULL) {
            int k = 0;
            while (k < CF_RFACTOR_COUNT && strcmp(v, cf_rfactor_name((cfRFactor)k)) != 0) ++k;
            if (k == CF_RFACTOR_COUNT) {
                fprintf(stderr, "cflab solve: --r-factor: expected local, global or blocked (got '%s')\n", v);
                return 2;
            }
            a->par.r_factor = (cfRFactor)k;
            a->r_factor_set = true;
        } else if ((v = cflab_option_value(argc, argv, &i, "--directions", &missing)) != NULL) {
            errno = 0;
            long k = strtol(v, &end, 10);
            if (errno || end == v || *end || k < 3 || k > 64) {
                fprintf(stderr, "cflab solve: --directions: '%s' is not an integer in [3, 64]\n", v);
                return 2;
            }
            a->par.directions = (int)k;
            a->directions_set = true;
        } else if (missing) {
            fprintf(stderr, "cflab solve: %s needs a value (see cflab solve --help)\n", argv[i]);
            return 2;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "cflab solve: unknown option '%s' (see cflab solve --help)\n", argv[i]);
            return 2;
        } else if (!a->file) {
            a->file = argv[i];
        } else {
            fprintf(stderr, "cflab solve: one file at a time ('%s' and '%s')\n", a->file, argv[i]);
            return 2;
        }
        if (missing) {
            fprintf(stderr, "cflab solve: %s needs a value (see cflab solve --help)\n", argv[i]);
            return 2;
        }
    }
    if (!a->file) {
        solve_help(stderr);
        return 2;
    }
    return -1;
}

/* the row named on the command line, or the registry's default for the file's kind of problem,
   which it must take */
static const cfSolver *pick(Args *a, cfSolverFilter kind, const char *what)
{
    const char *name = a->solver ? a->solver : cf_solver_default(kind)->name;
    const cfSolver *s = cf_solver_find(name);
    char names[512];
    cf_solver_names(kind, names, sizeof names);
    if (!s) fprintf(stderr, "cflab solve: --solver: unknown solver '%s' (for %s files: %s)\n", name, what, names);
    else if (!cf_solver_matches(s, kind))
        fprintf(stderr, "cflab solve: %s: solver '%s' does not take %s problems (%s form; for %s files: %s)\n", a->file,
                name, what, cf_form_name(s->form), what, names);
    if (!s || !cf_solver_matches(s, kind)) return NULL;
    /* an option the row would ignore is refused, with the reason */
    const char *why = kind == CF_SOLVERS_LCP && (a->friction_set || a->r_factor_set || a->directions_set)
                          ? "--friction, --r-factor and --directions: an LCP file has no friction"
                      : a->friction_set && !s->friction_model
                          ? (cf_solver_friction(s, CF_FRICTION_CONE) == CF_FRICTION_BOX
                                 ? "--friction: it solves the pyramid (box) of the boxed LCP, always"
                                 : "--friction: it solves the Coulomb cone only")
                      : a->r_factor_set && !s->r_factors ? "--r-factor: r-factors are a choice of the PROX solvers (chapter 7)"
                      : a->directions_set && s->form != CF_FORM_LCP
                          ? "--directions: friction directions make the polyhedral cone of the LCP solvers"
                          : NULL;
    if (why) {
        fprintf(stderr, "cflab solve: solver '%s' would ignore %s\n", s->name, why);
        return NULL;
    }
    /* a file's defaults: an iterative solver's budget, the tolerance of "converged" */
    if (!a->iter_set && !s->dense) a->par.max_iter = 10000;
    if (!a->tol_set) a->par.tol = 1e-10;
    return s;
}

static int solve_lcp(Args *a)
{
    if (a->write_siconos || a->write_fclib) {
        fprintf(stderr, "cflab solve: %s: an LCP file; %s writes frictional-contact (FC3D) problems only\n", a->file,
                a->write_siconos ? "--write-siconos" : "--write-fclib");
        return 2;
    }
    const cfSolver *s = pick(a, CF_SOLVERS_LCP, "LCP");
    if (!s) return 2;
    cfLcp p;
    cfError err;
    if (cf_lcp_read_siconos(a->file, &p, &err) != CF_OK) {
        fprintf(stderr, "cflab solve: %s\n", err.msg);
        return 2;
    }
    double *x = calloc((size_t)p.n, sizeof *x);
    if (!x) {
        fprintf(stderr, "cflab solve: out of memory (n = %d)\n", p.n);
        cf_lcp_free(&p);
        return 2;
    }
    cfFormWork fw = {0};
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cfStatus st = cf_solve_lcp(&fw, s, &p, &a->par, x, &rep);
    cf_form_work_free(&fw);
    const double res_sic = cf_lcp_residual_siconos(&p, x), res_abs = cf_lcp_residual(&p, x);
    const char *note = cf_solver_status_note(s, st);
    if (a->json) {
        printf("{\"file\": ");
        json_string(stdout, a->file);
        printf(", \"kind\": \"lcp\", \"n\": %d, \"solver\": \"%s\", \"form\": \"lcp\", \"tol\": %.17g, \"status\": \"%s\", "
               "\"solved\": %s, \"residual_siconos\": ",
               p.n, s->name, a->par.tol, cf_status_name(st), st == CF_OK ? "true" : "false");
        json_number(stdout, res_sic);
        printf(", \"residual_abs\": ");
        json_number(stdout, res_abs);
        printf(", \"common\": ");
        json_number(stdout, rep.common);
        printf(", \"claimed\": \"%s\"", cf_status_name(rep.claimed));
        printf(", \"iterations\": %d, \"pivots\": %d, \"seconds\": %.6e", rep.iterations, rep.iterations, rep.seconds);
        if (note[0]) {
            printf(", \"note\": ");
            json_string(stdout, note);
        }
        if (a->print_x) json_array(stdout, "x", p.n, x);
        printf("}\n");
    } else {
        printf("%s: LCP, n = %d, solver %s\n", a->file, p.n, s->name);
        printf("  status    %s%s%s%s\n", cf_status_name(st), note[0] ? " (" : "", note, note[0] ? ")" : "");
        printf("  residual  %.3e (Siconos ||z - max(0, z - w)|| / ||q||: the common one; converged means <= %.3g), %.3e "
               "(absolute ||min(z, w)||)%s%s%s\n", res_sic, rep.common_tol, res_abs, rep.claimed != st ? " (the solver said " : "",
               rep.claimed != st ? cf_status_name(rep.claimed) : "", rep.claimed != st ? ")" : "");
        printf("  %-9s %d\n", cf_solver_counts(s), rep.iterations);
        printf("  time      %.3f ms\n", 1e3 * rep.seconds);
        if (a->print_x) {
            printf("  z        ");
            for (int i = 0; i < p.n; ++i) printf(" %.17g", x[i]);
            printf("\n");
        }
    }
    free(x);
    cf_lcp_free(&p);
    return st == CF_OK ? 0 : 1;
}

/* HDF5's signature at the start of a regular file (FCLIB's files have no user block before it) */
static bool looks_hdf5(const char *path)
{
    cfStatus st;
    FILE *f = cf_file_open(path, 1L << 40, &st, NULL);
    if (!f) return false;
    unsigned char sig[8];
    bool yes = fread(sig, 1, 8, f) == 8 && memcmp(sig, "\x89HDF\r\n\x1a\n", 8) == 0;
    fclose(f);
    return yes;
}

/* an FC3D problem from a Siconos text file or an FCLIB HDF5 file (read) */
static int solve_fc3d(Args *a, cfStatus (*read)(const char *, cfFrictionProblem *, cfError *))
{
    const cfSolver *s = pick(a, CF_SOLVERS_ASSEMBLED, "FC3D");
    if (!s) return 2;
    cfFrictionProblem p;
    cfError err;
    if (read(a->file, &p, &err) != CF_OK) {
        fprintf(stderr, "cflab solve: %s\n", err.msg);
        return 2;
    }
    if ((a->write_siconos && cf_fc_write_siconos(a->write_siconos, &p, &err) != CF_OK) ||
        (a->write_fclib && cflab_fc_write_fclib(a->write_fclib, &p, &err) != CF_OK)) {
        fprintf(stderr, "cflab solve: %s\n", err.msg);
        cf_fc_free(&p);
        return 2;
    }
    int n = 3 * p.nc;
    double *r = calloc((size_t)n, sizeof *r), *u = malloc((size_t)n * sizeof *u);
    cfFormWork fw = {0};
    cfContactProblem prob;
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cfStatus st = r && u ? cf_form_build(&fw, s, &p, &a->par, &prob, &err) : CF_NO_MEMORY;
    if (st != CF_OK) {
        fprintf(stderr, "cflab solve: %s: %s\n", a->file, st == CF_NO_MEMORY ? "out of memory" : err.msg);
        cf_form_work_free(&fw);
        cf_fc_free(&p);
        free(r);
        free(u);
        return 2;
    }
    st = cf_form_solve(&fw, s, &prob, &a->par, r, &rep);
    /* the LCP form's own unknowns (lambda_n, lambda_d, beta), which --print-x shows too */
    int n_lcp = s->form == CF_FORM_LCP && prob.lcp ? prob.lcp->n : 0;
    double *x_lcp = n_lcp ? malloc((size_t)n_lcp * sizeof *x_lcp) : NULL;
    if (x_lcp) memcpy(x_lcp, fw.x, (size_t)n_lcp * sizeof *x_lcp);
    else n_lcp = 0;
    cf_form_work_free(&fw);
    cf_fc_velocity(&p, r, u);
    double res = cf_fc_residual(&p, r), nq = cf_fc_norm_q(&p);
    double scale = fmax(nq, fmax(cf_vec_norm(n, r), cf_vec_norm(n, u)));
    double res_q = nq > 0.0 ? res / nq : res, res_sic = scale > 0.0 ? res / scale : res;
    const char *note = cf_solver_status_note(s, st);
    if (a->json) {
        printf("{\"file\": ");
        json_string(stdout, a->file);
        printf(", \"kind\": \"fc3d\", \"contacts\": %d, \"n\": %d, \"solver\": \"%s\", \"form\": \"%s\", \"friction\": \"%s\"",
               p.nc, n, s->name, cf_form_name(s->form), cf_friction_model_name(cf_solver_friction(s, a->par.friction)));
        if (s->form == CF_FORM_LCP) printf(", \"directions\": %d", a->par.directions);
        printf(", \"tol\": %.17g, \"status\": \"%s\", \"solved\": %s", a->par.tol, cf_status_name(st),
               st == CF_OK ? "true" : "false");
        printf(", \"residual_abs\": ");
        json_number(stdout, res);
        printf(", \"residual_q\": ");
        json_number(stdout, res_q);
        printf(", \"residual_siconos\": ");
        json_number(stdout, res_sic);
        printf(", \"own_measure\": \"%s\", \"own_residual\": ", cf_measure_name(s->measure));
        json_number(stdout, rep.residual);
        printf(", \"common\": ");
        json_number(stdout, rep.common);
        printf(", \"claimed\": \"%s\"", cf_status_name(rep.claimed));
        printf(", \"iterations\": %d, \"seconds\": %.6e", rep.iterations, rep.seconds);
        if (note[0]) {
            printf(", \"note\": ");
            json_string(stdout, note);
        }
        if (a->print_x) json_array(stdout, "r", n, r);
        if (a->print_x && n_lcp) json_array(stdout, "x_lcp", n_lcp, x_lcp);
        printf("}\n");
    } else {
        printf("%s: FC3D, %d contacts, solver %s\n", a->file, p.nc, s->name);
        printf("  status    %s%s%s%s\n", cf_status_name(st), note[0] ? " (" : "", note, note[0] ? ")" : "");
        printf("  residual  %.3e (Coulomb natural map, absolute), %.3e (/ ||q||), %.3e (Siconos: / max(||q||, ||r||, ||u||))\n",
               res, res_q, res_sic);
        printf("  own       %.3e (%s)\n", rep.residual, cf_measure_describe(s->measure));
        printf("  common    %.3e (the %s natural map / ||q||; converged means <= %.3g)%s%s%s\n", rep.common,
               s->form == CF_FORM_LCP ? "polyhedral LCP's" : cf_solver_friction(s, a->par.friction) == CF_FRICTION_BOX ? "pyramid's" : "Coulomb",
               rep.common_tol, rep.claimed != st ? " (the solver said " : "", rep.claimed != st ? cf_status_name(rep.claimed) : "",
               rep.claimed != st ? ")" : "");
        printf("  %-9s %d\n", cf_solver_counts(s), rep.iterations);
        printf("  time      %.3f ms\n", 1e3 * rep.seconds);
        if (a->print_x) {
            printf("  r        ");
            for (int i = 0; i < n; ++i) printf(" %.17g", r[i]);
            printf("\n");
        }
    }
    cf_fc_free(&p);
    free(r);
    free(u);
    free(x_lcp);
    return st == CF_OK ? 0 : 1;
}

int cflab_solve_main(int argc, char **argv)
{
    Args a;
    int done = parse_args(argc, argv, &a);
    if (done >= 0) return done;
    if (looks_hdf5(a.file)) return solve_fc3d(&a, cflab_fc_read_fclib);
    return looks_fc3d(a.file) ? solve_fc3d(&a, cf_fc_read_siconos) : solve_lcp(&a);
}
