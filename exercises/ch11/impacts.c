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
    // TODO(ch11.3): implement this; the specification is in cf_ch11.h
    return CF_TODO_S("ch11.3");
    //< ch11:sequential
}

cfStatus cf_impacts_simultaneous(int n, const double *m, const double *v, double e, double *p, double *v_out)
{
    if (!chain_ok(n, m, v, e) || !v_out) return CF_BAD_INPUT;
    //> ch11:simultaneous
    // TODO(ch11.3): implement this; the specification is in cf_ch11.h
    return CF_TODO_S("ch11.3");
    //< ch11:simultaneous
}
