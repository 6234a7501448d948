/* SPDX-License-Identifier: MIT */
/* Chapter 7, exercise ch07.3: the matrix-free w = M^-1 J^T lambda, the PROX-Jacobi sweep and the
   adaptive loop every PROX solver runs (notes Algorithm 11). Specification:
   lib/include/cf/cf_ch07.h; text: chapters/ch07/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch07.h"

void cf_prox_w(const cfProxProblem *p, const double *lambda, double *w)
{
    //> ch07:w
    // TODO(ch07.3): implement this; the specification is in cf_ch07.h
    CF_TODO("ch07.3");
    //< ch07:w
}

double cf_prox_jacobi_sweep(const cfProxProblem *p, const double *R, double scale, const cfProxOptions *o,
                            const double *lambda, double *trial, double *w, double *v)
{
    //> ch07:jacobi-sweep
    // TODO(ch07.3): implement this; the specification is in cf_ch07.h
    return CF_TODO_F("ch07.3");
    //< ch07:jacobi-sweep
}

cfStatus cf_prox_solve(const cfProxProblem *p, const cfProxOptions *o, cfProxSweep sweep, double *lambda,
                       cfReport *rep, cfProxStats *stats)
{
    double t0 = cf_seconds();
    cfStatus st = cf_prox_check(p, lambda, o, NULL);
    if (st != CF_OK) {
        if (rep) rep->status = st;
        return st;
    }
    int d = p->dim, m = d * p->nc;
    double *R = malloc((size_t)(p->nc > 0 ? d * d * p->nc : 1) * sizeof *R);
    double *trial = malloc((size_t)(m > 0 ? m : 1) * sizeof *trial), *v = malloc((size_t)(m > 0 ? m : 1) * sizeof *v);
    double *w = malloc((size_t)(p->nv > 0 ? p->nv : 1) * sizeof *w);
    cfProxStats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    st = R && trial && v && w ? cf_prox_r_init(p, o, R) : CF_NO_MEMORY;
    if (st != CF_OK) {
        free(R), free(trial), free(v), free(w);
        if (rep) rep->status = st;
        return st;
    }
    //> ch07:solve
    // TODO(ch07.3): implement this; the specification is in cf_ch07.h
    st = CF_TODO_S("ch07.3");
    //< ch07:solve
    free(R);
    free(trial);
    free(v);
    free(w);
    return st;
}
