/* SPDX-License-Identifier: MIT */
/* Boxed LCP: allocation, effective bounds with friction coupling (findex), natural-map residual. */
#include "cf/cf_problem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cf_blcp_free(cfBlcp *p)
{
    if (!p) return;
    cf_csr_free(&p->A);
    free(p->b);
    free(p->lo);
    free(p->hi);
    free(p->findex);
    free(p->mu);
    free(p->mu_lo);
    memset(p, 0, sizeof *p);
}

cfStatus cf_blcp_init(cfBlcp *p, const cfCsr *A)
{
    memset(p, 0, sizeof *p);
    if (!A || A->rows != A->cols || A->rows < 0 || A->nnz < 0 || !A->rowptr) return CF_BAD_INPUT;
    const int n = A->rows, nnz = A->nnz;
    if (A->rowptr[n] != nnz || !cf_vec_finite(nnz, A->val)) return CF_BAD_INPUT;
    size_t nn = n > 0 ? (size_t)n : 1, nz = nnz > 0 ? (size_t)nnz : 1;
    p->n = n;
    p->A.rows = p->A.cols = n;
    p->A.nnz = nnz;
    p->A.rowptr = malloc((nn + 1) * sizeof *p->A.rowptr);
    p->A.colidx = malloc(nz * sizeof *p->A.colidx);
    p->A.val = malloc(nz * sizeof *p->A.val);
    p->b = calloc(nn, sizeof *p->b);
    p->lo = calloc(nn, sizeof *p->lo);
    p->hi = malloc(nn * sizeof *p->hi);
    p->findex = malloc(nn * sizeof *p->findex);
    p->mu = calloc(nn, sizeof *p->mu);
    if (!p->A.rowptr || !p->A.colidx || !p->A.val || !p->b || !p->lo || !p->hi || !p->findex || !p->mu) {
        cf_blcp_free(p);
        return CF_NO_MEMORY;
    }
    memcpy(p->A.rowptr, A->rowptr, ((size_t)n + 1) * sizeof *p->A.rowptr);
    if (nnz > 0) {
        memcpy(p->A.colidx, A->colidx, (size_t)nnz * sizeof *p->A.colidx);
        memcpy(p->A.val, A->val, (size_t)nnz * sizeof *p->A.val);
    }
    for (int i = 0; i < n; ++i) {
        p->hi[i] = INFINITY;
        p->findex[i] = -1;
    }
    return CF_OK;
}

void cf_blcp_bounds(const cfBlcp *p, const double *x, int i, double *lo, double *hi)
{
    int f = p->findex ? p->findex[i] : -1;
    if (f >= 0 && f < p->n) {
        /* friction: |x_i| <= mu_i x_f; a negative normal value gives the empty box {0} rather
           than an inverted interval */
        double h = p->mu[i] * fmax(x[f], 0.0);
        *lo = p->mu_lo ? -(p->mu_lo[i] * fmax(x[f], 0.0)) : -h; /* the directional box (ch10.6): its own lower side */
        *hi = h;
    } else {
        *lo = p->lo[i];
        *hi = p->hi[i];
    }
}

double cf_blcp_residual(const cfBlcp *p, const double *x)
{
    if (p->n == 0) return 0.0;
    if (!cf_vec_finite(p->n, x)) return INFINITY;
    double *w = malloc((size_t)p->n * sizeof *w);
    if (!w) return INFINITY;
    cf_csr_mul_vec(&p->A, x, w);
    double sum = 0.0;
    for (int i = 0; i < p->n; ++i) {
        double lo, hi;
        cf_blcp_bounds(p, x, i, &lo, &hi);
        /* x = mid(lo, x - w, hi) exactly at a solution */
        double y = x[i] - (w[i] + p->b[i]);
        double m = fmax(lo, fmin(y, hi));
        sum += (x[i] - m) * (x[i] - m);
        w[i] = x[i] - m; /* kept for the scaled norm below */
    }
    /* a square overflowed or underflowed: the scaled norm of the terms */
    double res = sum >= CF_NORM2_SAFE_MIN && sum <= CF_NORM2_SAFE_MAX ? sqrt(sum) : cf_vec_norm(p->n, w);
    free(w);
    return isfinite(res) ? res : INFINITY;
}
