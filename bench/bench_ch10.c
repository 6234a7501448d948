/* SPDX-License-Identifier: MIT */
/* Chapter 10's Table 5 (notes 6.4), measured: for each friction model of the chapter, its
   parameters, the bytes per contact the solver's problem carries, how far its sliding force is
   from maximal dissipation on its own limit set (the largest angle over 3600 sliding directions),
   and the world solvers that solve it (from the registry). The polyhedral LCP of an ellipse
   (notes 6.1.4) is measured too: its matrix grows with the square of the directions.
   `make bench-ch10` prints the table and writes it to build/<variant>/bench_ch10/table5.txt; the
   committed result is bench/results/ch10_table5.txt. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch02.h"
#include "cf/cf_ch05.h"
#include "cf/cf_ch10.h"
#include "cf/cf_solvers.h"

#define NDIR 3600

/* the angle (degrees) between two plane vectors */
static double angle_deg(const double a[2], const double b[2])
{
    /* atan2 of |cross| and dot: acos loses half the digits near 0 */
    return atan2(fabs(a[0] * b[1] - a[1] * b[0]), a[0] * b[0] + a[1] * b[1]) * 180.0 / CF_PI;
}

/* one sliding particle (W = I, pressed with 1, pulled hard along v) with the ellipse mu_tb solved
   by the chapter's blocked PGS: the largest angle between its friction and the maximal-dissipation
   force on the ellipse for the particle's sliding velocity */
static double ellipse_solver_gap(const double mu_tb[2])
{
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double worst = 0.0;
    for (int i = 0; i < NDIR; ++i) {
        double th = 2 * CF_PI * i / NDIR, u[3] = {-1, 5 * cos(th), 5 * sin(th)}, r[3] = {0, 0, 0};
        for (int sweep = 0; sweep < 100; ++sweep) cf_contact_local_solve_ellipse(I, mu_tb, CF_FRICTION_CONE, 1.0, u, r);
        double v[2] = {u[1], u[2]}, f[2] = {r[1], r[2]}, g[2];
        cf_ellipse_max_dissipation(mu_tb, r[0], v, g);
        worst = fmax(worst, angle_deg(f, g));
    }
    return worst;
}

/* the same with the directional box of mu4 and the chapter's PGS on it: the force of maximal
   dissipation on a box is its corner against the sliding velocity (on an axis that sticks, any
   point of the edge: the solver's own value) */
static double box_solver_gap(const double mu4[4])
{
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double worst = 0.0;
    for (int i = 0; i < NDIR; ++i) {
        double th = 2 * CF_PI * (i + 0.5) / NDIR, q[3] = {-1, 5 * cos(th), 5 * sin(th)}, mu = 1.0, r[3] = {0, 0, 0}, u[3];
        cfFrictionProblem p = {.nc = 1, .q = q, .mu = &mu};
        if (cf_bsr_init(&p.W, 1, 1, 3, 3) != CF_OK || cf_bsr_add_block(&p.W, 0, 0, I) != CF_OK) return NAN;
        cf_bsr_finalize(&p.W);
        cfSplitOptions o = cf_split_options_default();
        o.tol_abs = 1e-14;
        cf_fc_texture_pgs(&p, mu4, &o, r, NULL);
        cf_fc_velocity(&p, r, u);
        cf_bsr_free(&p.W);
        double f[2] = {r[1], r[2]}, g[2];
        for (int k = 0; k < 2; ++k)
            g[k] = fabs(u[1 + k]) <= 1e-12 ? f[k] : u[1 + k] > 0 ? -mu4[k] * r[0] : mu4[2 + k] * r[0];
        worst = fmax(worst, angle_deg(f, g));
    }
    return worst;
}

/* the tensor's own force against maximal dissipation on its equivalent cone */
static double tensor_gap(const double L[4])
{
    double worst = 0.0;
    for (int i = 0; i < NDIR; ++i) {
        double th = 2 * CF_PI * i / NDIR, v[2] = {cos(th), sin(th)};
        worst = fmax(worst, cf_friction_tensor_dissipation(L, v, 1.0, NULL) * 180.0 / CF_PI);
    }
    return worst;
}

/* the registry's contact solvers of one problem form (or the count of all contact solvers when
   form < 0): the world hands each form its version of an ellipse */
/* which rows a list names: every contact solver (counted), the FC3D rows that solve the ellipse,
   the rows that solve its pyramid (the boxed LCP's and the directional FC3D row's), Lemke's
   polygon, and the rows of texture friction's directional box */
enum { LIST_ALL, LIST_ELLIPSE, LIST_PYRAMID, LIST_POLYGON, LIST_DIRECTIONAL };

static bool listed(const cfSolver *s, int which)
{
    switch (which) {
    case LIST_ELLIPSE: return s->form == CF_FORM_FC3D && !s->directional;
    case LIST_PYRAMID: return s->form == CF_FORM_BLCP || (s->form == CF_FORM_FC3D && s->directional);
    case LIST_POLYGON: return s->form == CF_FORM_LCP;
    case LIST_DIRECTIONAL: return cf_solver_matches(s, CF_SOLVERS_DIRECTIONAL);
    default: return true;
    }
}

static void solver_names(int which, char *out, size_t cap)
{
    size_t used = 0;
    int count = 0;
    out[0] = '\0';
    for (int i = 0; i < cf_solver_count(); ++i) {
        const cfSolver *s = cf_solver_at(i);
        if (!s->contacts || !listed(s, which)) continue;
        ++count;
        if (which != LIST_ALL && used < cap) {
            int k = snprintf(out + used, cap - used, "%s%s", used ? ", " : "", s->name);
            if (k > 0) used += (size_t)k;
        }
    }
    if (which == LIST_ALL) snprintf(out, cap, "all %d contact solvers", count);
}

/* nonzeros of the polyhedral LCP of one elliptic contact with k directions */
static int polyhedral_nnz(int k)
{
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    cfFrictionProblem p;
    memset(&p, 0, sizeof p);
    p.nc = 1;
    double q[3] = {-1, 0.5, 0.5}, mu = 0.8, ell[2] = {0.2, 0.8};
    p.q = q;
    p.mu = &mu;
    p.ellipse = ell;
    if (cf_bsr_init(&p.W, 1, 1, 3, 3) != CF_OK || cf_bsr_add_block(&p.W, 0, 0, I) != CF_OK) return -1;
    cf_bsr_finalize(&p.W);
    cfFrictionProblem iso;
    double scale[2];
    int nnz = -1;
    if (cf_fc_isotropic_equivalent(&p, &iso, scale) == CF_OK) {
        cfLcp lcp;
        if (cf_friction_polyhedral_lcp(&iso, k, &lcp) == CF_OK) {
            nnz = lcp.A.rowptr[lcp.n];
            cf_lcp_free(&lcp);
        }
        cf_fc_free(&iso);
    }
    cf_bsr_free(&p.W);
    return nnz;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it comes, also through make's | tee */
    const char *out_dir = argc == 3 && strcmp(argv[1], "--out") == 0 ? argv[2] : NULL;
    if (argc != 1 && !out_dir) {
        fprintf(stderr, "usage: bench_ch10 [--out DIR]\n");
        return 2;
    }
    char path[1024];
    FILE *f = stdout;
    if (out_dir) {
        snprintf(path, sizeof path, "%s/table5.txt", out_dir);
        if (!(f = fopen(path, "w"))) {
            fprintf(stderr, "bench_ch10: cannot write %s\n", path);
            return 1;
        }
    }
    const double circle[2] = {0.5, 0.5}, ellipse[2] = {0.2, 0.8}, L[4] = {0.2, 0, 0, 0.8}, mu4[4] = {0.1, 0.3, 0.6, 0.3};
    /* Matchstick at 45 degrees: its ellipse from the generator */
    cfMatchstick m = {.mu = 0.5, .mu_t = 0.2, .mu_b = 0.8};
    cfVec3 t, b;
    double ms[2];
    if (cf_matchstick_cone(cfu_vec3(0, 0, 1), cfu_vec3(1, 0, 0), cfu_vec3(1, 1, 0), &m, &t, &b, ms) != CF_OK) return 1;
    double tcone[2], tangle;
    if (cf_friction_tensor_cone(L, tcone, &tangle) != CF_OK) return 1;
    char all[256], fc3d[512], blcp[512], lcp[256], dir[512], dir_line[600];
    solver_names(LIST_ALL, all, sizeof all);
    solver_names(LIST_ELLIPSE, fc3d, sizeof fc3d);
    solver_names(LIST_PYRAMID, blcp, sizeof blcp);
    solver_names(LIST_POLYGON, lcp, sizeof lcp);
    solver_names(LIST_DIRECTIONAL, dir, sizeof dir);
    snprintf(dir_line, sizeof dir_line, "%s (world law \"texture\")", dir);
    fprintf(f, "Table 5 of the course notes (6.4), measured by bench/bench_ch10.c\n");
    fprintf(f, "max. dissipation gap: the largest angle (degrees) over %d sliding directions between the model's\n"
               "sliding force and the force of maximal dissipation on its own limit set (0: PMD holds)\n\n", NDIR);
    fprintf(f, "%-22s %-44s %-13s %-9s %s\n", "model", "parameters", "bytes/contact", "PMD gap", "world solvers");
    fprintf(f, "%-22s %-44s %-13d %-9.2e %s\n", "isotropic Coulomb", "1: mu (pair: sqrt(mu_a mu_b) or a table)",
            (int)sizeof(double), ellipse_solver_gap(circle), all);
    fprintf(f, "%-22s %-44s %-13d %-9.2e %s\n", "orthotropic ellipse", "2 + a direction field: mu_t, mu_b, t",
            (int)(3 * sizeof(double)), ellipse_solver_gap(ellipse), fc3d);
    fprintf(f, "%-22s %-44s %-13d %-9.2e %s (45 degrees: ellipse (%.2f, %.2f))\n", "Matchstick", "3 + two structure fields: mu, mu_t^A, mu_b^A",
            (int)(3 * sizeof(double)), ellipse_solver_gap(ms), "as the ellipse", ms[0], ms[1]);
    fprintf(f, "%-22s %-44s %-13s %-9.2f %s (L = diag(0.2, 0.8): cone (%.2f, %.2f))\n", "friction tensor (L v)",
            "9: kappa, Q_A, Q_B (+ frames)", "force only", tensor_gap(L), "none directly; its cone as the ellipse", tcone[0],
            tcone[1]);
    fprintf(f, "%-22s %-44s %-13d %-9.2e %s\n", "texture (directional)", "height fields, sampled: 4 mu per contact",
            (int)(4 * sizeof(double)), box_solver_gap(mu4), dir_line);
    fprintf(f, "\nthe ellipse's pyramid (each tangent in [-mu_k, mu_k] lambda_n, not the ellipse): %s\n", blcp);
    fprintf(f, "the ellipse's polygon (polyhedral LCP): %s\n", lcp);
    fprintf(f, "\npolyhedral LCP of one elliptic contact (notes 6.1.4: rays on the rim), nonzeros of its matrix:\n");
    for (int k = 4; k <= 64; k *= 2) fprintf(f, "  %2d directions: %5d nonzeros\n", k, polyhedral_nnz(k));
    if (out_dir) {
        fclose(f);
        printf("bench_ch10: wrote %s\n", path);
    }
    return 0;
}
