/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.5: the CCD-filtered backtracking line search (Algorithm 20) on
   chapter 3's continuous collision detection. Specification: lib/include/cf/cf_ch09.h; text:
   chapters/ch09/README.md. */
#include <math.h>
#include <string.h>

#include "cf/cf_ch03.h"
#include "cf/cf_ch09.h"

// BEGIN SOLUTION ch09.5
typedef struct Toi {
    const double *q, *dq;
    double t;
} Toi;

/* the earliest time of impact in [0, 1] of one pair moving linearly from q along dq */
static int pair_toi(void *ctx, const int node[4], bool ee)
{
    Toi *T = ctx;
    cfVec3 x[4], u[4];
    cf_ipc_pair_points(T->q, node, x);
    cf_ipc_pair_points(T->dq, node, u);
    int na = ee ? 2 : 3;
    for (int a = 0; a < 3; ++a) { /* the swept boxes of the two features must overlap */
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (int i = 0; i < 4; ++i) {
            int f = i >= na;
            double v0 = cfu_vec3_at(x[i], a), v1 = v0 + cfu_vec3_at(u[i], a);
            lo[f] = fmin(lo[f], fmin(v0, v1));
            hi[f] = fmax(hi[f], fmax(v0, v1));
        }
        if (lo[0] > hi[1] || lo[1] > hi[0]) return 0;
    }
    cfCcdResult r = ee ? cf_ccd_edge_edge(x, u, 1.0) : cf_ccd_vertex_face(x, u, 1.0);
    if (r.status == CF_CCD_DEGENERATE) r = cf_ccd_inclusion(ee ? CF_CCD_EE : CF_CCD_VF, x, u, 1.0, 1e-6, 100000);
    if (r.status != CF_CCD_MISS && r.toi < T->t) T->t = r.toi;
    return 0;
}
// END SOLUTION

double cf_ipc_ccd_step(const cfIpcSystem *s, const double *q, const double *dq, double fraction)
{
    //> ch09:ccd-step
    // BEGIN SOLUTION ch09.5
    Toi T = {q, dq, INFINITY};
    cf_ipc_for_pairs(s, pair_toi, &T);
    return isfinite(T.t) ? fmin(1.0, fraction * T.t) : 1.0;
    // END SOLUTION
    // STUB ch09.5: return CF_TODO_F("ch09.5");
    //< ch09:ccd-step
}

double cf_ipc_line_search(const cfIpcSystem *s, const double *q, const double *dq, double f0, const cfIpcOptions *opt,
                          double *q_new, int *halvings, bool *clamped)
{
    //> ch09:line-search
    // BEGIN SOLUTION ch09.5
    int N = 3 * s->n, k = 0;
    double alpha = cf_ipc_ccd_step(s, q, dq, opt->ccd_fraction);
    if (clamped) *clamped = alpha < 1.0;
    for (;; ++k) {
        for (int p = 0; p < N; ++p) q_new[p] = q[p] + alpha * dq[p];
        if (cf_ipc_energy(s, q_new, NULL, NULL, false) < f0) break; /* +inf at contact: never accepted */
        if (k == opt->max_halvings) {
            alpha = 0.0;
            cf_vec_copy(N, q, q_new);
            break;
        }
        alpha *= 0.5;
    }
    if (halvings) *halvings = k;
    return alpha;
    // END SOLUTION
    // STUB ch09.5: return CF_TODO_F("ch09.5");
    //< ch09:line-search
}
