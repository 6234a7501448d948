/* SPDX-License-Identifier: MIT */
/* Chapter 11, exercise ch11.3: restitution and impact ordering on a chain of balls (the Newton's
   cradle): impacts one pair at a time, or all at once as one LCP solved by chapter 4.
   Specification: lib/include/cf/cf_ch11.h; text: chapters/ch11/README.md. */
#include "cf/cf_ch11.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch04.h"

/* the checks both functions share */
static bool chain_ok(int n, const double *m, const double *v, double e)
{
    if (n < 2 || !m || !v || !(e >= 0.0 && e <= 1.0)) return false;
    for (int i = 0; i < n; ++i)
        if (!(isfinite(m[i]) && m[i] > 0.0 && isfinite(v[i]))) return false;
    return true;
}

cfStatus cf_impacts_sequential(int n, const double *m, const double *v, double e, double tol, int max_sweeps,
                               double *v_out, int *sweeps)
{
    if (sweeps) *sweeps = 0;
    if (!chain_ok(n, m, v, e) || !v_out || !(tol >= 0.0) || max_sweeps < 1) return CF_BAD_INPUT;
    if (v_out != v) memmove(v_out, v, (size_t)n * sizeof *v_out);
    //> ch11:sequential
    // BEGIN SOLUTION ch11.3
    for (int s = 0; s < max_sweeps; ++s) {
        bool resolved = false;
        for (int i = 0; i + 1 < n; ++i) {
            double a = v_out[i] - v_out[i + 1];
            if (!(a > tol)) continue;
            double p = (1.0 + e) * a / (1.0 / m[i] + 1.0 / m[i + 1]);
            v_out[i] -= p / m[i];
            v_out[i + 1] += p / m[i + 1];
            resolved = true;
        }
        if (!resolved) return CF_OK;
        if (sweeps) *sweeps = s + 1;
    }
    return CF_MAX_ITER;
    // END SOLUTION
    // STUB ch11.3: return CF_TODO_S("ch11.3");
    //< ch11:sequential
}

cfStatus cf_impacts_simultaneous(int n, const double *m, const double *v, double e, double *p, double *v_out)
{
    if (!chain_ok(n, m, v, e) || !v_out) return CF_BAD_INPUT;
    //> ch11:simultaneous
    // BEGIN SOLUTION ch11.3
    int k = n - 1;
    cfDense A = {0};
    cfLcp lcp = {0};
    double *b = malloc((size_t)k * sizeof *b), *x = calloc((size_t)k, sizeof *x);
    cfStatus st = b && x ? cf_dense_init(&A, k, k) : CF_NO_MEMORY;
    if (st == CF_OK) {
        for (int i = 0; i < k; ++i) {
            A.a[i * k + i] = 1.0 / m[i] + 1.0 / m[i + 1];
            if (i + 1 < k) A.a[i * k + i + 1] = A.a[(i + 1) * k + i] = -1.0 / m[i + 1];
            b[i] = (1.0 + e) * (v[i + 1] - v[i]);
        }
        st = cf_lcp_from_dense(&lcp, &A, b);
    }
    if (st == CF_OK) {
        cfPivotOptions o = cf_pivot_options_default();
        st = cf_lcp_lemke(&lcp, &o, x, NULL);
    }
    if (st == CF_OK) {
        /* v+ = v + M^-1 J^T p: contact i pushes ball i left and ball i + 1 right */
        if (v_out != v) memmove(v_out, v, (size_t)n * sizeof *v_out);
        for (int i = 0; i < k; ++i) {
            v_out[i] -= x[i] / m[i];
            v_out[i + 1] += x[i] / m[i + 1];
        }
        if (p) memcpy(p, x, (size_t)k * sizeof *p);
    }
    cf_lcp_free(&lcp);
    cf_dense_free(&A);
    free(b);
    free(x);
    return st;
    // END SOLUTION
    // STUB ch11.3: return CF_TODO_S("ch11.3");
    //< ch11:simultaneous
}
