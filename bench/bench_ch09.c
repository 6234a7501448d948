/* SPDX-License-Identifier: MIT */
/* Chapter 9 benchmark: IPC's projected Newton against dhat and kappa on two soft boxes dropped on a
   slab (Newton iterations, line-search halvings, CCD clamps and time per step, smallest distance),
   Newton against gradient descent on one step, the incline's creep speed against eps_v and its
   sliding acceleration against h (lagged friction), and penalty against IPC on the 100 m/s
   particle; paper 003's block slide with implicit and lagged friction (BE, TR) and the direct
   against the inexact Newton (ch09.7); the sparse path's scaling on a cloth and on a stack of
   tetrahedral blocks (bench_ch09 scaling, bench_ch09 tets). The reference solutions, one thread (the dense Cholesky is LAPACK's: make bench-ch9
   sets OPENBLAS_NUM_THREADS=1). The committed result is bench/results/ch09_ipc.txt. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "cf/cf_ch09.h"
#include "cf/cf_scene.h"
#include "cf/cf_world.h"
#include "../solutions/ch09/fast/cf_ipc_sparse.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the demo ch09/soft_stack's scene with the given barrier */
static cfStatus soft_stack(cfIpcSystem *s, double dhat, double kappa)
{
    cfStatus st = cf_ipc_init(s, 0.01, dhat, kappa);
    if (st != CF_OK) return st;
    s->gravity = cfu_vec3(0, 0, -9.81);
    s->mu = 0.5;
    s->eps_v = 1e-2;
    if (cf_ipc_add_box(s, cfu_vec3(-1.5, -1.2, -0.2), cfu_vec3(1.3, 1.4, 0), 1, 0, true) < 0 ||
        cf_ipc_add_box(s, cfu_vec3(0.2, -0.2, 0.03), cfu_vec3(0.6, 0.2, 0.43), 1.0, 2e3, false) < 0 ||
        cf_ipc_add_box(s, cfu_vec3(0.27, -0.13, 0.5), cfu_vec3(0.57, 0.17, 0.8), 1.0, 2e3, false) < 0)
        return CF_NO_MEMORY;
    return CF_OK;
}

static void table_dhat_kappa(void)
{
    printf("## Projected Newton on two soft boxes dropped on a slab (150 steps, h = 0.01, mu = 0.5)\n\n");
    printf("| dhat (m) | kappa (N/m) | Newton it/step (mean, max) | halvings/step | CCD clamps | ms/step | smallest d (m) | "
           "failed steps |\n|---|---|---|---|---|---|---|---|\n");
    const double dhat[] = {1e-2, 3e-3, 1e-3}, kappa[] = {1e2, 1e3, 1e4};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            cfIpcSystem s;
            if (soft_stack(&s, dhat[i], kappa[j]) != CF_OK) continue;
            long it = 0, halv = 0, clamps = 0;
            int max_it = 0, failed = 0;
            double dmin = INFINITY, t0 = now();
            const int steps = 150;
            for (int k = 0; k < steps; ++k) {
                cfIpcStats st;
                cfStatus r = cf_ipc_step(&s, NULL, &st);
                failed += r != CF_OK && r != CF_STAGNATED;
                it += st.iterations, halv += st.halvings, clamps += st.ccd_clamps;
                if (st.iterations > max_it) max_it = st.iterations;
                dmin = fmin(dmin, st.min_dist);
            }
            double ms = 1e3 * (now() - t0) / steps;
            printf("| %.0e | %.0e | %.2f, %d | %.2f | %ld | %.2f | %.3e | %d |\n", dhat[i], kappa[j], (double)it / steps, max_it,
                   (double)halv / steps, clamps, ms, dmin, failed);
            cf_ipc_free(&s);
        }
    printf("\n");
}

static void table_newton_vs_descent(void)
{
    printf("## One step of a soft box landing at 0.5 m/s from 0.8 mm (dhat = 1e-3, kappa = 1e3, no friction; the test's "
           "case): Newton against gradient descent\n\n");
    printf("| method | status | iterations | halvings | force imbalance (N) | ms |\n|---|---|---|---|---|---|\n");
    for (int m = 0; m < 2; ++m) {
        cfIpcSystem s;
        if (cf_ipc_init(&s, 0.01, 1e-3, 1e3) != CF_OK) return;
        s.gravity = cfu_vec3(0, 0, -9.81);
        cf_ipc_add_box(&s, cfu_vec3(-1, -1, -0.2), cfu_vec3(1, 1, 0), 1, 0, true);
        cf_ipc_add_box(&s, cfu_vec3(-0.1, -0.12, 0.0008), cfu_vec3(0.1, 0.08, 0.2008), 1.0, 2e3, false);
        for (int i = 8; i < 16; ++i) s.u[3 * i + 2] = -0.5;
        cfIpcOptions o = cf_ipc_options_default();
        o.direction = m ? CF_IPC_GRADIENT : CF_IPC_NEWTON;
        o.max_iter = m ? 20000 : 100;
        cfIpcStats st;
        double t0 = now();
        cfStatus r = cf_ipc_step(&s, &o, &st);
        printf("| %s | %s | %d | %d | %.2e | %.1f |\n", m ? "gradient descent (mass metric)" : "projected Newton",
               cf_status_name(r), st.iterations, st.halvings, st.grad_norm, 1e3 * (now() - t0));
        cf_ipc_free(&s);
    }
    printf("\n");
}

/* a particle on a ground triangle under gravity tilted by theta: speed along the slope */
static double incline(double theta, double mu, double eps_v, double h, double T, double *accel)
{
    cfIpcSystem s;
    if (cf_ipc_init(&s, h, 1e-3, 1e4) != CF_OK) return NAN;
    s.gravity = cfu_vec3(9.81 * sin(theta), 0, -9.81 * cos(theta));
    s.mu = mu;
    s.eps_v = eps_v;
    int a = cf_ipc_add_node(&s, cfu_vec3(-50, -50, 0), 0, true), b = cf_ipc_add_node(&s, cfu_vec3(150, -50, 0), 0, true);
    int c = cf_ipc_add_node(&s, cfu_vec3(-50, 150, 0), 0, true);
    cf_ipc_add_triangle(&s, a, b, c);
    int p = cf_ipc_add_node(&s, cfu_vec3(0, 0, 5.3e-4), 1.0, false);
    int n = (int)lround(T / h);
    double v_half = 0.0;
    for (int k = 0; k < n; ++k) {
        cf_ipc_step(&s, NULL, NULL);
        if (k == n / 2 - 1) v_half = s.u[3 * p];
    }
    double v = s.u[3 * p];
    if (accel) *accel = (v - v_half) / (h * (n - n / 2));
    cf_ipc_free(&s);
    return v;
}

static void table_incline(void)
{
    const double th = 30.0 * CF_PI / 180.0;
    printf("## Incline at 30 degrees with lagged IPC friction (dhat = 1e-3, kappa = 1e4)\n\n");
    printf("mu = 0.8 > tan 30: creep instead of stick, v = eps_v (1 - sqrt(1 - tan/mu)) = 0.4724 eps_v (h = 0.01, 2 s)\n\n");
    printf("| eps_v (m/s) | measured v (m/s) | predicted (m/s) | ratio |\n|---|---|---|---|\n");
    const double eps[] = {1e-2, 1e-3, 1e-4, 1e-5};
    for (int k = 0; k < 4; ++k) {
        double v = incline(th, 0.8, eps[k], 0.01, 2.0, NULL), pred = eps[k] * (1 - sqrt(1 - tan(th) / 0.8));
        printf("| %.0e | %.4e | %.4e | %.4f |\n", eps[k], v, pred, v / pred);
    }
    printf("\nmu = 0.5 < tan 30: slides with a = g (sin - mu cos) = 0.6571 m/s^2 (eps_v = 1e-3, 2 s)\n\n");
    printf("| h (s) | measured a (m/s^2) |\n|---|---|\n");
    const double hs[] = {0.02, 0.01, 0.005};
    for (int k = 0; k < 3; ++k) {
        double a;
        incline(th, 0.5, 1e-3, hs[k], 2.0, &a);
        printf("| %.3f | %.5f |\n", hs[k], a);
    }
    printf("\n");
}

static void table_stopping(void)
{
    const double v0 = 1.0, mu = 0.5, want = v0 * v0 / (2 * mu * 9.81);
    printf("## Stopping on flat ground, v0 = 1 m/s, mu = 0.5 (lagged IPC friction, eps_v = 1e-3): v0^2/(2 mu g) = %.5f m\n\n", want);
    printf("| h (s) | distance (m) | error (m) | h v0 (m) |\n|---|---|---|---|\n");
    const double hs[] = {0.02, 0.01, 0.005, 0.0025};
    for (int k = 0; k < 4; ++k) {
        cfIpcSystem s;
        if (cf_ipc_init(&s, hs[k], 1e-3, 1e4) != CF_OK) return;
        s.gravity = cfu_vec3(0, 0, -9.81);
        s.mu = mu;
        int a = cf_ipc_add_node(&s, cfu_vec3(-50, -50, 0), 0, true), b = cf_ipc_add_node(&s, cfu_vec3(150, -50, 0), 0, true);
        int c = cf_ipc_add_node(&s, cfu_vec3(-50, 150, 0), 0, true);
        cf_ipc_add_triangle(&s, a, b, c);
        int p = cf_ipc_add_node(&s, cfu_vec3(0, 0, 5.3e-4), 1.0, false);
        s.u[3 * p] = v0;
        int n = (int)lround(2.0 * v0 / (mu * 9.81) / hs[k]);
        for (int i = 0; i < n; ++i) cf_ipc_step(&s, NULL, NULL);
        double d = s.q[3 * p];
        printf("| %.4f | %.5f | %+.5f | %.4f |\n", hs[k], d, d - want, hs[k] * v0);
        cf_ipc_free(&s);
    }
    printf("\n");
}

static void table_tunnelling(void)
{
    printf("## 100 m/s against a 1 mm plate, h = 0.01 (10 steps, no gravity)\n\n");
    printf("| method | final z (m) | through the plate |\n|---|---|---|\n");
    const double ks[] = {1e4, 1e6, 1e8};
    for (int i = 0; i < 3; ++i) {
        double z = 0.5, v = -100.0, h = 0.01;
        for (int k = 0; k < 10; ++k) {
            double depth = fmin(5e-4 - z, z + 5e-4);
            double f = depth > 0 ? (z >= 0 ? 1.0 : -1.0) * cf_penalty_normal(ks[i], 0, 1, -depth, z >= 0 ? v : -v) : 0.0;
            v += h * f;
            z += h * v;
        }
        printf("| penalty k = %.0e | %.4f | %s |\n", ks[i], z, z < -5e-4 ? "yes" : "no");
    }
    cfIpcSystem s;
    if (cf_ipc_init(&s, 0.01, 1e-3, 1e6) != CF_OK) return;
    for (int f = 0; f < 2; ++f) {
        double zf = f ? -5e-4 : 5e-4;
        int a = cf_ipc_add_node(&s, cfu_vec3(-1, -1, zf), 0, true), b = cf_ipc_add_node(&s, cfu_vec3(1, -1, zf), 0, true);
        int c = cf_ipc_add_node(&s, cfu_vec3(1, 1, zf), 0, true), d = cf_ipc_add_node(&s, cfu_vec3(-1, 1, zf), 0, true);
        cf_ipc_add_triangle(&s, a, b, c);
        cf_ipc_add_triangle(&s, a, c, d);
    }
    int p = cf_ipc_add_node(&s, cfu_vec3(0.1, 0.3, 0.5), 1.0, false);
    s.u[3 * p + 2] = -100.0;
    double dmin = INFINITY;
    for (int k = 0; k < 10; ++k) {
        cfIpcStats st;
        cf_ipc_step(&s, NULL, &st);
        dmin = fmin(dmin, st.min_dist);
    }
    printf("| IPC dhat = 1e-3, kappa = 1e6 | %.4f (smallest distance %.2e) | %s |\n\n", s.q[3 * p + 2], dmin,
           s.q[3 * p + 2] < 5e-4 ? "yes" : "no");
    cf_ipc_free(&s);
}


/* ---- paper 003 (ch09.7): implicit friction with soft constraints ---- */

/* a stiff spring block (8 nodes, 28 springs, 1 kg, 10 cm) on a 10 degree slope (gravity tilted,
   the plane z = 0), resting on its penalty, thrown down the slope at v0 */
static void implicit_block(cfImplicitSystem *s, double h, double mu, double v0, bool lagged)
{
    const double th = 10.0 * CF_PI / 180.0, kappa = 1e4, delta = 1e-3;
    cf_implicit_init(s, h, kappa, delta);
    s->gravity = cfu_vec3(9.81 * sin(th), 0, -9.81 * cos(th));
    s->mu = mu;
    s->eps = 1e-4;
    s->lagged = lagged;
    double d = delta - sqrt(0.125 * 9.81 * cos(th) * delta / (3 * kappa)); /* each node carries 1/8 */
    for (int k = 0; k < 8; ++k)
        cf_implicit_add_node(s, cfu_vec3(0.1 * (k & 1), 0.1 * ((k >> 1) & 1), d + 0.1 * (k >> 2)), cfu_vec3(v0, 0, 0),
                             0.125, false);
    for (int a = 0; a < 8; ++a)
        for (int b = a + 1; b < 8; ++b) cf_implicit_add_spring(s, a, b, 1e4);
    cfImplicitObstacle plane = {.kind = CF_IMPLICIT_PLANE, .n = cfu_vec3(0, 0, 1)};
    cf_implicit_add_obstacle(s, plane);
}

static void table_block_slide(void)
{
    const double th = 10.0 * CF_PI / 180.0, mu = 0.5, v0 = 1.0;
    const double want = v0 * v0 / (2 * 9.81 * (mu * cos(th) - sin(th))), t_stop = 2 * want / v0;
    printf("## Paper 003's block slide (ch09.7): a stiff spring block (8 nodes, 28 springs of 1e4 N/m, 1 kg) thrown "
           "down a 10 deg slope at %.0f m/s, mu = %.1f, eps = 1e-4 m/s, kappa = 1e4 N/m, delta = 1 mm; "
           "v0^2/(2 g (mu cos - sin)) = %.5f m, stopping time %.4f s; run for twice that\n\n",
           v0, mu, want, t_stop);
    printf("| friction | integrator | h (s) | distance (m) | error (m) | h v0 (m) | largest speed, last quarter (m/s) | Newton it/step | "
           "bumps | failed steps |\n|---|---|---|---|---|---|---|---|---|---|\n");
    const double hs[] = {1e-3, 5e-3, 1e-2, 2e-2, 4e-2};
    const char *names[] = {"BE", "TR"};
    for (int lag = 0; lag < 2; ++lag)
        for (int in = CF_IMPLICIT_BE; in <= CF_IMPLICIT_TR; ++in)
            for (int k = 0; k < 5; ++k) {
                cfImplicitSystem s;
                implicit_block(&s, hs[k], mu, v0, lag);
                int n = (int)lround(2.0 * t_stop / hs[k]), failed = 0, bumps = 0;
                long it = 0;
                double v = 0.0; /* the largest mean speed over the last quarter of the run */
                for (int i = 0; i < n; ++i) {
                    cfImplicitStats st;
                    failed += cf_implicit_step(&s, in, NULL, &st) != CF_OK;
                    it += st.iterations, bumps += st.bumps;
                    double vm = 0.0;
                    for (int p = 0; p < 8; ++p) vm += s.v[3 * p] / 8;
                    if (4 * i >= 3 * n) v = fmax(v, fabs(vm));
                }
                double x = 0.0;
                for (int p = 0; p < 8; ++p) x += s.q[3 * p] / 8;
                x -= 0.05;
                printf("| %s | %s | %.3f | %.5f | %+.5f | %.3f | %.1e | %.2f | %d | %d |\n", lag ? "lagged" : "implicit",
                       names[in], hs[k], x, x - want, hs[k] * v0, v, (double)it / n, bumps, failed);
                cf_implicit_free(&s);
            }
    printf("\n");
}

/* an n x n spring net (1 kg, 1 m wide, structural and shear springs) falling onto a sphere, with friction */
static void implicit_net(cfImplicitSystem *s, int n, cfSlideProfile prof)
{
    cf_implicit_init(s, 0.01, 1e4, 5e-3);
    s->profile = prof;
    s->gravity = cfu_vec3(0, 0, -9.81);
    s->mu = 0.4;
    s->eps = 1e-3;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            cf_implicit_add_node(s, cfu_vec3((double)i / (n - 1) - 0.5, (double)j / (n - 1) - 0.5, 0.52), cfu_zero3(),
                                 1.0 / (n * n), false);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            int a = j * n + i;
            if (i + 1 < n) cf_implicit_add_spring(s, a, a + 1, 200.0);
            if (j + 1 < n) cf_implicit_add_spring(s, a, a + n, 200.0);
            if (i + 1 < n && j + 1 < n) cf_implicit_add_spring(s, a, a + n + 1, 100.0), cf_implicit_add_spring(s, a + 1, a + n, 100.0);
        }
    cfImplicitObstacle ball = {.kind = CF_IMPLICIT_SPHERE, .p = cfu_vec3(0.1, 0, 0), .radius = 0.5};
    cf_implicit_add_obstacle(s, ball);
}

static void table_direct_vs_iterative(void)
{
    printf("## Direct (analytic Jacobian, dense LU) against inexact Newton (BiCGSTAB on dual-number J p, "
           "Eisenstat-Walker) (ch09.7): a spring net dropped on a sphere with implicit friction (mu = 0.4), "
           "BE, h = 0.01, 40 steps, tol 1e-10 N s\n\n");
    printf("| nodes | unknowns | profile | method | Newton it/step | BiCGSTAB it/Newton it | ms/step | Jacobian storage (MB) | "
           "largest per-step |v - v_direct| (m/s) | failed steps |\n|---|---|---|---|---|---|---|---|---|---|\n");
    const int ns[] = {6, 10, 14};
    for (int pr = 0; pr < CF_SLIDE_PROFILE_COUNT; ++pr)
        for (int k = 0; k < 3; ++k)
            for (int li = 0; li < CF_IMPLICIT_LINEAR_COUNT; ++li) {
                cfImplicitSystem s, shadow; /* shadow: the direct step from the same state */
                implicit_net(&s, ns[k], pr);
                implicit_net(&shadow, ns[k], pr);
                cfImplicitOptions o = cf_implicit_options_default(), od = o;
                o.linear = li;
                o.tol = od.tol = 1e-10;
                long it = 0, lin = 0;
                int failed = 0, N = 3 * s.n;
                const int steps = 40;
                double t = 0.0, diff = 0.0;
                for (int i = 0; i < steps; ++i) {
                    if (li != CF_IMPLICIT_DIRECT) {
                        memcpy(shadow.q, s.q, (size_t)N * sizeof *s.q), memcpy(shadow.v, s.v, (size_t)N * sizeof *s.v);
                        shadow.kappa = s.kappa;
                        if (cf_implicit_step(&shadow, CF_IMPLICIT_BE, &od, NULL) != CF_OK) diff = INFINITY;
                    }
                    cfImplicitStats st;
                    double t0 = now();
                    failed += cf_implicit_step(&s, CF_IMPLICIT_BE, &o, &st) != CF_OK;
                    t += now() - t0;
                    it += st.iterations, lin += st.linear_iters;
                    if (li != CF_IMPLICIT_DIRECT)
                        for (int p = 0; p < N; ++p) diff = fmax(diff, fabs(s.v[p] - shadow.v[p]));
                }
                char cmp[32] = "(reference)";
                if (li != CF_IMPLICIT_DIRECT) snprintf(cmp, sizeof cmp, "%.1e", diff);
                printf("| %d | %d | %s | %s | %.2f | %.1f | %.2f | %.2f | %s | %d |\n", s.n, N, pr ? "s_b" : "s_a",
                       li == CF_IMPLICIT_DIRECT ? "direct" : "BiCGSTAB", (double)it / steps, it ? (double)lin / it : 0.0,
                       1e3 * t / steps, li == CF_IMPLICIT_DIRECT ? 8.0 * 3 * N * N / 1e6 : 0.0, cmp, failed);
                cf_implicit_free(&s);
                cf_implicit_free(&shadow);
            }
    printf("\n(direct: J, K and D are three dense N x N matrices; BiCGSTAB stores none. The BiCGSTAB rows compare each "
           "step with a direct step from the same state (inf: that direct step failed). A failed step is a stage that "
           "stagnated in a local minimum of 1/2 |r|^2; the state then stays at the step's start.)\n\n");
}


/* a cloth of k x k nodes (1 m, 0.3 kg, springs of 300 N/m on edges, 30 N/m on diagonals) 5 mm over a
   fixed 0.4 m box, falling at 0.5 m/s; dhat 2 mm, kappa as the world's default rule (m_node g /
   ((ln 2 + 1/2) dhat)) */
static cfStatus cloth_on_box(cfIpcSystem *s, int k)
{
    double m = 0.3 / (k * k), dhat = 2e-3;
    cfStatus st = cf_ipc_init(s, 1.0 / 60.0, dhat, m * 9.81 / ((log(2.0) + 0.5) * dhat));
    if (st != CF_OK) return st;
    s->gravity = cfu_vec3(0, 0, -9.81);
    if (cf_ipc_add_box(s, cfu_vec3(-0.2, -0.2, -0.4), cfu_vec3(0.2, 0.2, 0.0), 0.0, 0.0, true) < 0) return CF_NO_MEMORY;
    int first = s->n;
    for (int j = 0; j < k; ++j)
        for (int i = 0; i < k; ++i)
            if (cf_ipc_add_node(s, cfu_vec3(-0.5 + (double)i / (k - 1), -0.5 + (double)j / (k - 1), 0.005), m, false) < 0)
                return CF_NO_MEMORY;
    for (int j = 0; j + 1 < k; ++j)
        for (int i = 0; i + 1 < k; ++i) {
            int a = first + j * k + i, b = a + 1, c = a + k, d = c + 1;
            if (cf_ipc_add_triangle(s, a, b, d) < 0 || cf_ipc_add_triangle(s, a, d, c) < 0 ||
                cf_ipc_add_spring(s, a, b, 300.0) < 0 || cf_ipc_add_spring(s, a, c, 300.0) < 0 ||
                cf_ipc_add_spring(s, a, d, 30.0) < 0)
                return CF_NO_MEMORY;
        }
    for (int i = first; i < s->n; ++i) s->u[3 * i + 2] = -0.5;
    return CF_OK;
}

/* the triplets of the projected Hessian at q (cf_ipc_energy_blocks()'s receiver, as the sparse
   path's): free nodes' blocks, 1 on the fixed nodes' diagonals */
typedef struct Trip {
    cfTriplets T;
    const bool *fixed;
} Trip;

static void trip_block(void *ctx, int k, const int *node, const double *lH, double w)
{
    Trip *t = ctx;
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) {
            if (t->fixed[node[i]] || t->fixed[node[j]]) continue;
            double m[9];
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) m[3 * a + b] = w * lH[(3 * i + a) * 3 * k + 3 * j + b];
            cf_triplets_add_block3(&t->T, node[i], node[j], m);
        }
}

/* bench_ch09 scaling, part 1: the linear solve alone on the Hessian of the first Newton iterate of
   the cloth's first step, by the sparse Cholesky with RCM and with nested dissection */
static void table_orderings(int k_max)
{
    printf("## The linear solve: one factorization of the projected Hessian at the first step's start (cloth on "
           "a box), RCM against nested dissection (lib's up-looking sparse Cholesky), and the supernodal one "
           "(cf_chol_super_*: numeric refactorization on one analysis, best of 3; OpenMP's threads)\n\n");
    printf("| nodes | unknowns | ordering | nonzeros of L | factorization (s) | solve (s) | relative residual |\n");
    printf("|---|---|---|---|---|---|---|\n");
    static const int K[] = {22, 45, 100, 224};
    for (int c = 0; c < 4 && K[c] <= k_max; ++c) {
        cfIpcSystem s;
        if (cloth_on_box(&s, K[c]) != CF_OK) return;
        cf_ipc_step_begin(&s);
        int N = 3 * s.n;
        Trip t = {.fixed = s.fixed};
        cfIpcPairList L = {0};
        double *g = malloc((size_t)N * sizeof *g), *x = malloc((size_t)N * sizeof *x), *r = malloc((size_t)N * sizeof *r);
        if (!g || !x || !r || cf_triplets_init(&t.T, N, N) != CF_OK || cf_ipc_broad_phase(&s, s.q, NULL, s.dhat, &L) != CF_OK)
            return;
        s.pairs = &L;
        cf_ipc_energy_blocks(&s, s.q, g, trip_block, &t, true);
        for (int p = 0; p < N; ++p) g[p] += 1e-6 * sin(p); /* a right-hand side that is not a rigid translation */
        static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        for (int i = 0; i < s.n; ++i)
            if (s.fixed[i]) cf_triplets_add_block3(&t.T, i, i, I);
        cfCsr H;
        if (cf_csr_from_triplets(&t.T, &H) != CF_OK) return;
        for (int o = 0; o < 3; ++o) {
            cfCholOrdering ord = o ? CF_CHOL_ORDER_ND : CF_CHOL_ORDER_RCM;
            if (o == 2) { /* the supernodal factorization (the sparse Newton's): analysis, then the best of 3 refactorizations */
                cfCholSuper *S = NULL;
                double a0 = now();
                cfStatus st = cf_chol_super_analyze(&H, ord, &S);
                double a1 = now(), best = INFINITY;
                for (int rep = 0; rep < 3 && st == CF_OK; ++rep) {
                    double f0 = now();
                    st = cf_chol_super_factor(S, &H);
                    best = fmin(best, now() - f0);
                }
                if (st != CF_OK) {
                    printf("| %d | %d | ND, supernodal | factorization failed (%d) | | | |\n", s.n, N, st);
                    cf_chol_super_free(S);
                    continue;
                }
                double t1 = now();
                cf_chol_super_solve(S, g, x);
                double t2 = now();
                cf_csr_mul_vec(&H, x, r);
                for (int p = 0; p < N; ++p) r[p] -= g[p];
                printf("| %d | %d | ND, supernodal (analysis %.3f s, %d supernodes) | %ld | %.3f | %.4f | %.1e |\n", s.n, N,
                       a1 - a0, cf_chol_super_supernodes(S), cf_chol_super_nnz(S), best, t2 - t1, cf_vec_norm(N, r) / cf_vec_norm(N, g));
                cf_chol_super_free(S);
                continue;
            }
            if (!o && K[c] > 100) { /* RCM at 50 000 nodes: ~25x the 10 000-node time; skipped */
                printf("| %d | %d | RCM | not measured (O(n^2): ~14 s) | | | |\n", s.n, N);
                continue;
            }
            cfSparseChol *F = NULL;
            double t0 = now();
            cfStatus st = cf_sparse_chol_factor_ordered(&H, ord, &F);
            double t1 = now();
            if (st != CF_OK) {
                printf("| %d | %d | %s | factorization failed (%d) | | | |\n", s.n, N, o ? "ND" : "RCM", st);
                continue;
            }
            cf_sparse_chol_solve(F, g, x);
            double t2 = now();
            cf_csr_mul_vec(&H, x, r);
            for (int p = 0; p < N; ++p) r[p] -= g[p];
            printf("| %d | %d | %s | %ld | %.3f | %.4f | %.1e |\n", s.n, N, o ? "nested dissection" : "RCM",
                   cf_sparse_chol_nnz(F), t1 - t0, t2 - t1, cf_vec_norm(N, r) / cf_vec_norm(N, g));
            cf_sparse_chol_free(F);
        }
        cf_csr_free(&H);
        cf_triplets_free(&t.T);
        cf_ipc_pair_list_free(&L);
        free(g), free(x), free(r);
        cf_ipc_free(&s);
    }
    printf("\n");
}

/* bench_ch09 scaling, part 2: whole steps of the sparse path (and the dense one where it is
   affordable) against n, with kappa fixed or adaptive and two Newton tolerances */
static void table_scaling(int steps, int k_max, bool fast_only)
{
    table_orderings(k_max);
    printf("## Scaling: a cloth falling onto a box, %d steps of 1/60 s (sparse path: broad phase + sparse "
           "Cholesky, nested dissection; dense: chapter 9's cf_ipc_step)\n\n", steps);
    printf("| nodes | path | kappa | Newton tol (m/s) | s per step | Newton iterations per step | ms per iteration | "
           "smallest distance (m) | kappa at the end (N/m) | statuses |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    static const int K[] = {22, 45, 100, 224};
    double ms_fixed[4] = {0}, ms_ad[4] = {0};
    for (int c = 0; c < 4 && K[c] <= k_max; ++c)
        for (int v = 0; v < 4; ++v) {
            /* v: 0 dense (492 nodes only), 1 sparse fixed 1e-8, 2 sparse adaptive 1e-8, 3 sparse adaptive 1e-3 */
            if (v == 0 && K[c] > 22) continue;
            if (fast_only && v < 3) continue; /* `scaling STEPS K_MAX fast`: the catalogue scene's setting alone */
            if (K[c] > 100 && v < 3) continue; /* 50 000 nodes: the fastest setting only */
            cfIpcSystem s;
            if (cloth_on_box(&s, K[c]) != CF_OK) return;
            cfIpcOptions o = cf_ipc_options_default();
            o.tol = v == 3 ? 1e-3 : 1e-8;
            cfIpcKappaRule rule = cf_ipc_kappa_rule_default(s.kappa, s.dhat);
            int it = 0, bad = 0;
            double dmin = INFINITY, t0 = now();
            for (int n = 0; n < steps; ++n) {
                cfIpcStats st;
                cfStatus r = v == 0 ? cf_ipc_step(&s, &o, &st)
                             : v == 1 ? cf_ipc_step_sparse(&s, &o, &st)
                                      : cf_ipc_step_sparse_adaptive(&s, &o, &rule, &st, NULL);
                bad += r != CF_OK;
                it += st.iterations;
                dmin = fmin(dmin, st.min_dist);
            }
            double T = now() - t0, ms = 1e3 * T / (it > 0 ? it : 1);
            if (v == 1) ms_fixed[c] = ms;
            if (v == 3) ms_ad[c] = ms;
            printf("| %d | %s | %s | %.0e | %.3f | %.1f | %.2f | %.3e | %.3g | %d of %d not CF_OK |\n", s.n,
                   v == 0 ? "dense" : "sparse", v < 2 ? "fixed" : "adaptive", o.tol, T / steps, (double)it / steps, ms,
                   dmin, s.kappa, bad, steps);
            cf_ipc_free(&s);
        }
    printf("\nGrowth of the time per Newton iteration, exponent p of n^p between consecutive sizes:");
    for (int c = 0; c + 1 < 4 && K[c + 1] <= k_max; ++c) {
        double n0 = K[c] * K[c] + 8.0, n1 = K[c + 1] * K[c + 1] + 8.0;
        if (ms_fixed[c] > 0 && ms_fixed[c + 1] > 0)
            printf(" %d -> %d nodes: %.2f (fixed, tol 1e-8);", K[c] * K[c] + 8, K[c + 1] * K[c + 1] + 8,
                   log(ms_fixed[c + 1] / ms_fixed[c]) / log(n1 / n0));
        if (ms_ad[c] > 0 && ms_ad[c + 1] > 0)
            printf(" %d -> %d nodes: %.2f (adaptive, tol 1e-3);", K[c] * K[c] + 8, K[c + 1] * K[c + 1] + 8,
                   log(ms_ad[c + 1] / ms_ad[c]) / log(n1 / n0));
    }
    printf("\n\n");
}

/* bench_ch09 world: the catalogue scene scenes/ch09_ipc_cloth_sphere.json (a cloth, four rigid
   boxes as affine bodies, a fixed sphere as its icosphere) through the world's ipc pipeline, its
   cloth at k x k nodes; every step certified by signed volumes (cf_world_crossings()) */
static void table_world(int steps, int k_max)
{
    const char *path = "scenes/ch09_ipc_cloth_sphere.json", *key = "\"cells\": [44, 44]";
    FILE *f = fopen(path, "rb");
    char *text = f ? malloc(1 << 16) : NULL;
    size_t len = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
    if (f) fclose(f);
    char *at = text ? (text[len] = '\0', strstr(text, key)) : NULL;
    if (!at) {
        printf("## The world: %s not found or without %s (run from the repository's root)\n\n", path, key);
        free(text);
        return;
    }
    printf("## The world at scale: %s (a cloth on a sphere, four rigid boxes as affine bodies falling on it), "
           "%d steps of 1/60 s, the cloth at k x k nodes, each step certified by signed volumes\n\n", path, steps);
    printf("Besides the cloth the system has the sphere's 642 fixed nodes (level 3: faces within dhat/2 of a 0.3 m "
           "sphere) and the boxes' 36 (4 x 12 affine unknowns).\n\n");
    printf("| cloth nodes | s per step | Newton iterations per step | ms per iteration | smallest distance (m) | "
           "crossings | statuses |\n|---|---|---|---|---|---|---|\n");
    static const int K[] = {22, 45, 100, 224};
    for (int c = 0; c < 4 && K[c] <= k_max; ++c) {
        char *json = malloc(len + 64);
        if (!json) break;
        size_t head = (size_t)(at - text);
        memcpy(json, text, head);
        sprintf(json + head, "\"cells\": [%d, %d]%s", K[c] - 1, K[c] - 1, at + strlen(key));
        cfWorld w;
        cfError err = {{0}};
        if (cf_scene_parse(json, path, &w, NULL, &err) != CF_OK) {
            printf("| %d | scene refused: %s |\n", K[c] * K[c], err.msg);
            free(json);
            continue;
        }
        int it = 0, bad = 0, crossings = 0;
        cfStatus last_bad = CF_OK;
        double dmin = INFINITY, T = 0.0;
        for (int n = 0; n < steps; ++n) {
            cfWorld before;
            if (cf_world_copy(&before, &w) != CF_OK) break;
            double t0 = now();
            cfStatus st = cf_world_step(&w);
            T += now() - t0;
            if (st != CF_OK || w.stats.solver_status != CF_OK) bad++, last_bad = st != CF_OK ? st : w.stats.solver_status;
            it += w.stats.solver_iterations;
            dmin = fmin(dmin, w.stats.ipc.min_distance);
            crossings += cf_world_crossings(&w, &before, NULL, 0);
            cf_world_free(&before);
            if (st != CF_OK) break;
        }
        printf("| %d | %.3f | %.1f | %.1f | %.3e | %d | %d of %d not CF_OK%s%s |\n", K[c] * K[c], T / steps, (double)it / steps,
               1e3 * T / (it > 0 ? it : 1), dmin, crossings, bad, steps, bad ? ", the last " : "",
               bad ? cf_status_name(last_bad) : "");
        cf_world_free(&w);
        free(json);
    }
    free(text);
    printf("\n");
}

/* bench_ch09 tets: a stack of two tetrahedral blocks (k^3 cells of five tets each, stable
   Neo-Hookean) falling onto the ground under the world's ipc pipeline (the sparse path), each step
   certified by signed volumes (cf_world_crossings()) */
static void table_tets(int steps, int max_nodes)
{
    printf("## Scaling: a stack of two tet blocks (k^3 cells each, stable Neo-Hookean, E = 1e5 Pa, nu 0.3, 400 kg/m^3) "
           "falling at 0.3 m/s onto a plane (with a 1 kg rigid box on top: the affine step), %d steps of 1/60 s, the "
           "world's ipc pipeline (sparse path), dhat 1 mm, kappa the world's rule, mu 0.3\n\n", steps);
    printf("| k | nodes | tets | rigid box | Newton tol (m/s) | s per step | Newton iterations per step | ms per iteration | "
           "smallest distance (m) | crossings | statuses |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    static const int K[] = {5, 9, 16, 28};
    double ms_at[4] = {0};
    int nodes_at[4] = {0};
    for (int c = 0; c < 4; ++c)
        for (int v = 0; v < 3; ++v) {
            /* v: 0 tol 1e-3, 1 tol 1e-8 (the two smaller stacks), 2 tol 1e-3 with a rigid box on top */
            int k = K[c], nodes = 2 * (k + 1) * (k + 1) * (k + 1);
            if (nodes > max_nodes || (v == 1 && k > 9)) continue;
            char json[1400];
            snprintf(json, sizeof json,
                     "{\"world\": {\"dt\": %.17g, \"pipeline\": \"ipc\", \"gravity\": [0, 0, -9.81],"
                     " \"ipc\": {\"dhat\": 0.001, \"tolerance\": %g}},"
                     " \"bodies\": [{\"fixed\": true, \"mu\": 0.3, \"shape\": {\"type\": \"plane\", \"normal\": [0, 0, 1], \"offset\": 0}}%s],"
                     " \"soft_bodies\": [{\"type\": \"tet_box\", \"origin\": [-0.1, -0.1, 0.0005], \"size\": [0.2, 0.2, 0.2],"
                     " \"cells\": [%d, %d, %d], \"density\": 400, \"young\": 1e5, \"poisson\": 0.3, \"mu\": 0.3, \"velocity\": [0, 0, -0.3]},"
                     " {\"type\": \"tet_box\", \"origin\": [-0.07, -0.09, 0.2017], \"size\": [0.16, 0.16, 0.16],"
                     " \"cells\": [%d, %d, %d], \"density\": 400, \"young\": 1e5, \"poisson\": 0.3, \"mu\": 0.3, \"velocity\": [0, 0, -0.3]}]}",
                     1.0 / 60.0, v == 1 ? 1e-8 : 1e-3,
                     v == 2 ? ", {\"mass\": 1, \"mu\": 0.3, \"position\": [0.01, 0, 0.3875], \"velocity\": [0, 0, -0.3],"
                              " \"shape\": {\"type\": \"box\", \"half_extents\": [0.05, 0.05, 0.025]}}"
                            : "",
                     k, k, k, k, k, k);
            cfWorld w;
            cfError err = {{0}};
            if (cf_scene_parse(json, "tets", &w, NULL, &err) != CF_OK) {
                printf("| %d | scene refused: %s |\n", k, err.msg);
                return;
            }
            int it = 0, bad = 0, crossings = 0;
            double dmin = INFINITY, t_solve = 0.0;
            for (int n = 0; n < steps; ++n) {
                cfWorld before;
                if (cf_world_copy(&before, &w) != CF_OK) return;
                double t1 = now();
                cfStatus r = cf_world_step(&w);
                t_solve += now() - t1;
                if (r != CF_OK) {
                    printf("| %d | step %d failed: %s |\n", k, n, w.error.msg);
                    cf_world_free(&before), cf_world_free(&w);
                    return;
                }
                int x = cf_world_crossings(&w, &before, NULL, 0);
                crossings += x > 0 ? x : 0;
                bad += w.stats.solver_status != CF_OK;
                it += w.stats.solver_iterations;
                dmin = fmin(dmin, w.stats.ipc.min_distance);
                cf_world_free(&before);
            }
            int tets = w.soft[0].n_tets + w.soft[1].n_tets;
            double ms = 1e3 * t_solve / (it > 0 ? it : 1);
            if (v == 0) ms_at[c] = ms, nodes_at[c] = nodes;
            printf("| %d | %d | %d | %s | %.0e | %.3f | %.1f | %.2f | %.3e | %d | %d of %d not CF_OK |\n", k, nodes, tets,
                   v == 2 ? "1 (affine)" : "none", v == 1 ? 1e-8 : 1e-3, t_solve / steps, (double)it / steps, ms, dmin,
                   crossings, bad, steps);
            cf_world_free(&w);
        }
    printf("\nGrowth of the time per Newton iteration (tol 1e-3), exponent p of n^p between consecutive sizes:");
    for (int c = 0; c + 1 < 4; ++c)
        if (ms_at[c] > 0 && ms_at[c + 1] > 0)
            printf(" %d -> %d nodes: %.2f;", nodes_at[c], nodes_at[c + 1],
                   log(ms_at[c + 1] / ms_at[c]) / log((double)nodes_at[c + 1] / nodes_at[c]));
    printf("\n\n");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it comes, also through make's | tee */
    struct utsname u;
    uname(&u);
    printf("# bench-ch9: IPC and paper 003 (chapter 9 reference), %s %s, one thread\n\n", u.sysname, u.machine);
    if (argc > 1 && strcmp(argv[1], "world") == 0) { /* bench_ch09 world [steps [k_max]]: that table only */
        table_world(argc > 2 ? atoi(argv[2]) : 10, argc > 3 ? atoi(argv[3]) : 100);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "tets") == 0) { /* bench_ch09 tets [steps [max_nodes]]: that table only */
        table_tets(argc > 2 ? atoi(argv[2]) : 3, argc > 3 ? atoi(argv[3]) : 10000);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "scaling") == 0) { /* bench_ch09 scaling [steps [k_max [fast]]]: that table only */
        table_scaling(argc > 2 ? atoi(argv[2]) : 3, argc > 3 ? atoi(argv[3]) : 100, argc > 4 && strcmp(argv[4], "fast") == 0);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "orderings") == 0) { /* bench_ch09 orderings [k_max]: the linear solve's table only */
        table_orderings(argc > 2 ? atoi(argv[2]) : 100);
        return 0;
    }
    table_dhat_kappa();
    table_newton_vs_descent();
    table_incline();
    table_stopping();
    table_tunnelling();
    table_block_slide();
    table_direct_vs_iterative();
    table_scaling(3, 100, false);
    table_tets(3, 10000);
    return 0;
}
