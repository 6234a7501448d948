/* SPDX-License-Identifier: MIT */
/* Chapter 8 benchmark (make bench-ch8): paper 004 in small.
 *
 * 1. Fig. 6: time per step of the constrained dynamics (velocities + assemble + solve) against
 *    the number of contacts for CA (the exact preconditioner: dense W_A by Algorithm 15, PGS) and
 *    ICA (block-diagonal), frictionless as in the paper; a field of co-rotational jelly cubes
 *    resting on the ground, 9 contacts per cube; the log-log slopes fitted over the larger half;
 *    a PNG of the log-log plot.
 * 2. CMR rounds per step on the cloth draped over a box (paper: <= 3 in > 90 %).
 * 3. A 50 x 50 cloth (2601 vertices) dropped hanging onto the ground at h = 4 ms, self-collision
 *    on: the share of collision detection against constrained dynamics (paper: 31 / 69).
 * 4. ICA's inner projected Gauss-Seidel sweeps per outer iteration (paper: < 10 in 90 %).
 * 5. The sparse Cholesky the build has, factor and solve, on the largest field's A.
 *
 *   bench_ch08 [--out DIR] [--quick]
 */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>
/* the plot's text (as the viewer's HUD includes it: the header has static functions we do not use) */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#endif
#include <stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "cf/cf_linalg.h"
#include "cf/cf_scene.h"
#include "cf/cf_soft.h"
#include "cf/cf_world.h"

#define MAX_SIZES 8
#define MAX_ROUNDS 16 /* world.cmr_rounds is at most 16 */

/* a scene of n x m jelly cubes (2 x 2 x 2 cells, 0.3 m) on the ground, 0.1 m apart */
static char *cube_field(int n, int m, const char *precond)
{
    size_t cap = 1024 + (size_t)n * m * 400;
    char *s = malloc(cap);
    if (!s) return NULL;
    int k = snprintf(s, cap,
                     "{\"name\": \"jelly field\", \"world\": {\"gravity\": [0, 0, -9.81], \"dt\": 0.03, "
                     "\"soft_integrator\": \"implicit\", \"detector\": \"primitives\", \"contact_margin\": 0.01, "
                     "\"solver\": \"dual\", \"solver_iterations\": 30, \"preconditioner\": \"%s\", "
                     "\"max_matrix_mb\": 4096}, "
                     "\"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0, \"shape\": {\"type\": \"plane\", "
                     "\"normal\": [0, 0, 1], \"offset\": 0}}], \"soft_bodies\": [",
                     precond);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j)
            k += snprintf(s + k, cap - (size_t)k,
                          "%s{\"name\": \"jelly %d %d\", \"type\": \"tet_box\", \"origin\": [%g, %g, 0], "
                          "\"size\": [0.3, 0.3, 0.3], \"cells\": [2, 2, 2], \"density\": 400, \"young\": 1e5, "
                          "\"poisson\": 0.3, \"damping\": [0.5, 0.01], \"mu\": 0, \"corotational\": true}",
                          i || j ? ", " : "", i, j, 0.4 * i, 0.4 * j);
    snprintf(s + k, cap - (size_t)k, "]}");
    return s;
}

static double dynamics_seconds(const cfStepStats *st)
{
    return st->stage_seconds[CF_STAGE_VELOCITIES] + st->stage_seconds[CF_STAGE_ASSEMBLE] + st->stage_seconds[CF_STAGE_SOLVE];
}

/* least-squares slope of log y against log x over points lo..n-1 */
static double loglog_slope(const double *x, const double *y, int lo, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int i = lo; i < n; ++i, ++k) {
        double a = log(x[i]), b = log(y[i]);
        sx += a, sy += b, sxx += a * a, sxy += a * b;
    }
    return k >= 2 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : NAN;
}

/* ---- a small log-log plot, written as PNG ---------------------------------------------------- */

#define PW 640
#define PH 420
typedef struct Plot {
    unsigned char px[PH][PW][3];
    double x0, x1, y0, y1; /* log10 ranges */
} Plot;

static void plot_dot(Plot *p, int x, int y, const unsigned char c[3])
{
    if (x >= 0 && x < PW && y >= 0 && y < PH) memcpy(p->px[y][x], c, 3);
}

static void plot_map(const Plot *p, double x, double y, int *X, int *Y)
{
    *X = 50 + (int)lround((log10(x) - p->x0) / (p->x1 - p->x0) * (PW - 70));
    *Y = PH - 40 - (int)lround((log10(y) - p->y0) / (p->y1 - p->y0) * (PH - 60));
}

static void plot_line(Plot *p, int xa, int ya, int xb, int yb, const unsigned char c[3])
{
    int n = abs(xb - xa) > abs(yb - ya) ? abs(xb - xa) : abs(yb - ya);
    for (int i = 0; i <= n; ++i) {
        double t = n ? (double)i / n : 0.0;
        plot_dot(p, (int)lround(xa + t * (xb - xa)), (int)lround(ya + t * (yb - ya)), c);
    }
}

/* text at (x, y) (top left), stb_easy_font's quads filled (they are axis-aligned rectangles) */
static void plot_text(Plot *p, int x, int y, const char *text, const unsigned char c[3])
{
    static char buf[40000];
    int quads = stb_easy_font_print(0.0f, 0.0f, (char *)text, NULL, buf, (int)sizeof buf);
    for (int q = 0; q < quads; ++q) {
        const float *a = (const float *)(buf + (size_t)(4 * q) * 16), *b = (const float *)(buf + (size_t)(4 * q + 2) * 16);
        for (int yy = (int)a[1]; yy < (int)b[1]; ++yy)
            for (int xx = (int)a[0]; xx < (int)b[0]; ++xx) plot_dot(p, x + xx, y + yy, c);
    }
}

/* axes with a tick per decade and its value; each series as squares joined by lines; a legend */
static int plot_write(const char *path, const double *x, const double *const ys[2], int n, const char *const names[2],
                      const char *title)
{
    static const unsigned char axis[3] = {60, 60, 60}, grid[3] = {225, 225, 225};
    static const unsigned char col[2][3] = {{200, 60, 30}, {30, 90, 200}};
    Plot *p = malloc(sizeof *p);
    if (!p) return 0;
    memset(p->px, 255, sizeof p->px);
    double lo = INFINITY, hi = -INFINITY;
    for (int s = 0; s < 2; ++s)
        for (int i = 0; i < n; ++i) lo = fmin(lo, ys[s][i]), hi = fmax(hi, ys[s][i]);
    p->x0 = floor(log10(x[0])), p->x1 = ceil(log10(x[n - 1]));
    p->y0 = floor(log10(lo)), p->y1 = ceil(log10(hi));
    char label[64];
    for (double d = p->x0; d <= p->x1; d += 1.0) {
        int X, Y;
        plot_map(p, pow(10, d), pow(10, p->y0), &X, &Y);
        plot_line(p, X, 20, X, PH - 40, grid);
        snprintf(label, sizeof label, "%g", pow(10, d));
        plot_text(p, X - 8, PH - 34, label, axis);
    }
    for (double d = p->y0; d <= p->y1; d += 1.0) {
        int X, Y;
        plot_map(p, pow(10, p->x0), pow(10, d), &X, &Y);
        plot_line(p, 50, Y, PW - 20, Y, grid);
        snprintf(label, sizeof label, "%g", pow(10, d));
        plot_text(p, 8, Y - 3, label, axis);
    }
    plot_text(p, 60, 6, title, axis);
    plot_text(p, PW / 2 - 60, PH - 20, "contacts (log scale)", axis);
    for (int s = 0; s < 2; ++s) plot_text(p, 70, 30 + 12 * s, names[s], col[s]);
    plot_line(p, 50, PH - 40, PW - 20, PH - 40, axis);
    plot_line(p, 50, 20, 50, PH - 40, axis);
    for (int s = 0; s < 2; ++s)
        for (int i = 0; i < n; ++i) {
            int X, Y, Xp, Yp;
            plot_map(p, x[i], ys[s][i], &X, &Y);
            for (int a = -3; a <= 3; ++a)
                for (int b = -3; b <= 3; ++b) plot_dot(p, X + a, Y + b, col[s]);
            if (i > 0) {
                plot_map(p, x[i - 1], ys[s][i - 1], &Xp, &Yp);
                plot_line(p, Xp, Yp, X, Y, col[s]);
            }
        }
    int ok = stbi_write_png(path, PW, PH, 3, p->px, PW * 3);
    free(p);
    return ok;
}

/* ---- the parts ------------------------------------------------------------------------------- */

static int load(const char *json_or_path, bool is_path, cfWorld *w)
{
    cfSceneInfo info;
    cfError err = {{0}};
    cfStatus st = is_path ? cf_scene_load(json_or_path, w, &info, &err) : cf_scene_parse(json_or_path, "bench", w, &info, &err);
    if (st != CF_OK) fprintf(stderr, "bench_ch08: %s\n", err.msg);
    return st == CF_OK;
}

/* ICA's inner sweeps per outer iteration, by scene kind (0: the resting fields, 1: the cloth runs) */
static long g_inner_hist[2][64], g_inner_total[2];

static void record_inner(const cfStepStats *st, int kind)
{
    for (int i = 0; i < st->solver_history_len && i < CF_STATS_HISTORY; ++i) {
        int j = st->solver_inner[i];
        g_inner_hist[kind][j < 63 ? j : 63]++;
        g_inner_total[kind]++;
    }
}

static BenchProgress g_progress;

/* Fig. 6: per size, CA and ICA; returns 0 on success */
static int scaling(bool quick, const char *out)
{
    static const int sides[][2] = {{2, 3}, {3, 4}, {4, 6}, {6, 8}, {8, 12}, {12, 16}, {16, 20}};
    int nsizes = quick ? 4 : 7;
    double contacts[MAX_SIZES], t[2][MAX_SIZES];
    const char *pre[2] = {"exact", "block-diagonal"};
    printf("== 1. time per step against contacts (paper 004 Fig. 6; frictionless, h = 30 ms; after 10 steps "
           "of settling, the mean of 5)\n");
    printf("%8s %8s %14s %14s %10s\n", "cubes", "contacts", "CA ms/step", "ICA ms/step", "ICA outer");
    for (int k = 0; k < nsizes; ++k) {
        int cubes = sides[k][0] * sides[k][1];
        double outer = 0.0;
        for (int p = 0; p < 2; ++p) {
            bench_progress(&g_progress, "part 1: %d cubes, %s", cubes, p ? "ICA" : "CA");
            char *json = cube_field(sides[k][0], sides[k][1], pre[p]);
            cfWorld w;
            if (!json || !load(json, false, &w)) {
                free(json);
                return 1;
            }
            free(json);
            double sum = 0.0, nc = 0.0;
            for (int s = 0; s < 15; ++s) {
                if (cf_world_step(&w) != CF_OK) {
                    fprintf(stderr, "bench_ch08: %s\n", w.error.msg);
                    cf_world_free(&w);
                    return 1;
                }
                if (s < 10) continue;
                sum += dynamics_seconds(&w.stats);
                nc += w.contacts.count;
                if (p == 1) {
                    outer += w.stats.solver_history_len;
                    record_inner(&w.stats, 0);
                }
            }
            t[p][k] = 1e3 * sum / 5.0;
            contacts[k] = nc / 5.0;
            cf_world_free(&w);
        }
        printf("%8d %8.0f %14.2f %14.2f %10.1f\n", cubes, contacts[k], t[0][k], t[1][k], outer / 5.0);
    }
    int lo = nsizes / 2;
    printf("log-log slopes over the %d largest: CA %.2f, ICA %.2f (paper: about 2 and about 1)\n", nsizes - lo,
           loglog_slope(contacts, t[0], lo, nsizes), loglog_slope(contacts, t[1], lo, nsizes));
    char path[512];
    snprintf(path, sizeof path, "%s/ch08_scaling.png", out);
    const double *ys[2] = {t[0], t[1]};
    char names[2][96];
    snprintf(names[0], sizeof names[0], "CA: dense W_A by Algorithm 15, PGS (slope %.2f)", loglog_slope(contacts, t[0], lo, nsizes));
    snprintf(names[1], sizeof names[1], "ICA: block-diagonal (slope %.2f)", loglog_slope(contacts, t[1], lo, nsizes));
    const char *const legend[2] = {names[0], names[1]};
    if (plot_write(path, contacts, ys, nsizes, legend, "ms per step against contacts, frictionless (paper 004 Fig. 6 in small)"))
        printf("plot: %s (x: contacts, y: ms per step, log-log; red CA, blue ICA)\n", path);
    else
        printf("plot: could not write %s\n", path);
    return 0;
}

static void inner_histogram(void)
{
    static const char *const what[2] = {"the resting fields of part 1 (warm started)", "the cloth runs of parts 2 and 3"};
    printf("\n== 4. ICA's inner sweeps per outer iteration (paper: < 10 in 90 %%)\n");
    for (int k = 0; k < 2; ++k) {
        long below10 = 0;
        printf("%s:", what[k]);
        for (int j = 0; j < 64; ++j) {
            if (g_inner_hist[k][j]) printf(" %d%s: %ld", j, j == 63 ? "+" : "", g_inner_hist[k][j]);
            if (j < 10) below10 += g_inner_hist[k][j];
        }
        printf("\n  fewer than 10 sweeps: %.1f %% of %ld outer iterations\n",
               g_inner_total[k] ? 100.0 * below10 / g_inner_total[k] : 0.0, g_inner_total[k]);
    }
}

static int cmr_histogram(bool quick, const char *scenes)
{
    char path[512];
    snprintf(path, sizeof path, "%s/ch08_cloth_on_box.json", scenes);
    cfWorld w;
    if (!load(path, true, &w)) return 1;
    int steps = quick ? 100 : 300;
    long hist[MAX_ROUNDS + 2] = {0}, halved = 0;
    for (int s = 0; s < steps; ++s) {
        if (cf_world_step(&w) != CF_OK) {
            fprintf(stderr, "bench_ch08: %s\n", w.error.msg);
            cf_world_free(&w);
            return 1;
        }
        record_inner(&w.stats, 1);
        int r = w.stats.cmr_rounds_max;
        hist[r <= MAX_ROUNDS ? r : MAX_ROUNDS + 1]++;
        halved += w.stats.cmr_substeps > 1;
    }
    bench_progress(&g_progress, "part 2: CMR rounds on the cloth over a box");
    printf("\n== 2. CMR rounds per step, scenes/ch08_cloth_on_box.json, %d steps (paper: <= 3 in > 90 %%)\n", steps);
    long upto3 = 0;
    for (int r = 0; r <= MAX_ROUNDS + 1; ++r) {
        if (hist[r]) printf("  %d round%s: %ld\n", r, r == 1 ? "" : "s", hist[r]);
        if (r <= 3) upto3 += hist[r];
    }
    printf("at most 3 rounds: %.1f %% of steps; steps halved: %ld\n", 100.0 * upto3 / steps, halved);
    cf_world_free(&w);
    return 0;
}

static int falling_cloth(bool quick)
{
    static const char *json =
        "{\"name\": \"falling cloth\", \"world\": {\"gravity\": [0, 0, -9.81], \"dt\": 0.004, "
        "\"soft_integrator\": \"implicit\", \"detector\": \"surfaces\", \"contact_margin\": 0.002, \"solver\": \"dual\", "
        "\"solver_iterations\": 30, \"preconditioner\": \"block-diagonal\", \"cmr_rounds\": 5}, "
        "\"bodies\": [{\"name\": \"ground\", \"fixed\": true, \"mu\": 0.4, \"shape\": {\"type\": \"plane\", "
        "\"normal\": [0, 0, 1], \"offset\": 0}}], "
        "\"soft_bodies\": [{\"name\": \"cloth\", \"type\": \"cloth\", \"origin\": [-0.5, 0, 0.05], \"du\": [1, 0, 0], "
        "\"dv\": [0.1, 0.3, 1], \"cells\": [50, 50], \"mass\": 0.4, \"stretch\": 2000, \"shear\": 200, \"bend\": 2, "
        "\"thickness\": 0.003, \"damping\": [0.1, 0.001], \"mu\": 0.4}]}";
    cfWorld w;
    if (!load(json, false, &w)) return 1;
    int steps = quick ? 50 : 250;
    double detect = 0.0, dyn = 0.0, all = 0.0;
    long contacts = 0;
    for (int s = 0; s < steps; ++s) {
        if (cf_world_step(&w) != CF_OK) {
            fprintf(stderr, "bench_ch08: falling cloth, step %d: %s\n", s, w.error.msg);
            cf_world_free(&w);
            return 1;
        }
        record_inner(&w.stats, 1);
        detect += w.stats.stage_seconds[CF_STAGE_DETECT];
        dyn += dynamics_seconds(&w.stats);
        for (int k = 0; k < CF_STAGE_COUNT; ++k) all += w.stats.stage_seconds[k];
        contacts += w.contacts.count;
    }
    bench_progress(&g_progress, "part 3: the falling 50 x 50 cloth");
    printf("\n== 3. a 50 x 50 cloth (2601 vertices) dropped hanging onto the ground, h = 4 ms, %d steps (%.2f s), "
           "self-collision on\n", steps, steps * 0.004);
    printf("%.1f ms per step, %.0f contacts on average; collision detection (proximity and CCD) %.0f %%, constrained "
           "dynamics %.0f %% (paper: 31 / 69)\n", 1e3 * all / steps, (double)contacts / steps, 100 * detect / all,
           100 * dyn / all);
    cf_world_free(&w);
    return 0;
}

static int cholesky(void)
{
    char *json = cube_field(16, 20, "exact");
    cfWorld w;
    if (!json || !load(json, false, &w)) {
        free(json);
        return 1;
    }
    free(json);
    const cfSoftBody *s = &w.soft[0];
    int n1 = 3 * s->n_nodes, bodies = w.n_soft, n = n1 * bodies;
    cfTriplets T;
    cfStatus st = cf_triplets_init(&T, n, n);
    for (int b = 0; b < bodies && st == CF_OK; ++b) {
        cfTriplets K;
        st = cf_triplets_init(&K, n1, n1);
        if (st == CF_OK) st = cf_soft_stiffness(&w.soft[b], w.soft[b].x, &K);
        for (int e = 0; e < K.nnz && st == CF_OK; ++e) st = cf_triplets_add(&T, b * n1 + K.i[e], b * n1 + K.j[e], 9e-4 * K.v[e]);
        for (int i = 0; i < n1 && st == CF_OK; ++i) st = cf_triplets_add(&T, b * n1 + i, b * n1 + i, w.soft[b].mass[i / 3]);
        cf_triplets_free(&K);
    }
    cfCsr A = {0};
    if (st == CF_OK) st = cf_csr_from_triplets(&T, &A);
    cf_triplets_free(&T);
    cfLinSolver *S = NULL;
    double t0 = cf_seconds();
    if (st == CF_OK) st = cf_linsolver_setup(&A, CF_LINSOLVE_CHOLESKY, 0.0, &S);
    double t1 = cf_seconds();
    double *b = calloc((size_t)n, sizeof *b), *x = calloc((size_t)n, sizeof *x);
    double *work = S ? malloc((size_t)cf_linsolver_work_size(S) * sizeof *work) : NULL;
    int reps = 50;
    for (int r = 0; r < reps && st == CF_OK && b && x && work; ++r) {
        b[(r * 7919) % n] = 1.0;
        st = cf_linsolver_solve(S, b, x, work, NULL);
        b[(r * 7919) % n] = 0.0;
    }
    double t2 = cf_seconds();
    bench_progress(&g_progress, "part 5: sparse Cholesky");
    printf("\n== 5. sparse Cholesky of this build (%s) on the A of 320 cubes (%d unknowns, %d non-zeros): "
           "factor %.1f ms, solve %.3f ms\n",
#ifdef CF_HAVE_CHOLMOD
           "CHOLMOD",
#else
           "the project's own; build with CHOLMOD=1 for CHOLMOD",
#endif
           n, A.nnz, 1e3 * (t1 - t0), 1e3 * (t2 - t1) / reps);
    free(b), free(x), free(work);
    cf_linsolver_free(S);
    cf_csr_free(&A);
    cf_world_free(&w);
    return st == CF_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *out = ".", *scenes = "scenes";
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) quick = true;
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(argv[i], "--scenes") == 0 && i + 1 < argc) scenes = argv[++i];
        else {
            fprintf(stderr, "usage: bench_ch08 [--out DIR] [--scenes DIR] [--quick]\n");
            return 2;
        }
    }
    bench_progress_start(&g_progress, "bench_ch08", (quick ? 4 : 7) * 2 + 3);
    printf("bench_ch08: paper 004 in small%s\n\n", quick ? " (--quick)" : "");
    int st = scaling(quick, out);
    if (st == 0) st = cmr_histogram(quick, scenes);
    if (st == 0) st = falling_cloth(quick);
    if (st == 0) inner_histogram();
    if (st == 0) st = cholesky();
    return st;
}
