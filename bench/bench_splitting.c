/* SPDX-License-Identifier: MIT */
/* Chapter 5 splitting benchmark: sweeps and time to an absolute natural-map residual of 1e-6 per
   method on generated LCPs (num4lcp's fluid stand-in with the corrected plant, n = 125..4096, and
   a sparse 7-point Poisson matrix, n = 10648). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch05.h"
#include "cf/cf_lcpgen.h"

#define TOL 1e-6
#define MAX_SWEEPS 20000

/* 7-point Poisson on a G^3 grid (6 on the diagonal, -1 to the neighbours), sparse, with a
   planted solution as in cf_lcpgen_plant(): x_i ~ U(0,1) zeroed below 0.5, b = -A x on the
   support, b_i = u_i - (A x)_i with u_i ~ U(0,1) elsewhere */
static cfStatus poisson_lcp(int G, uint64_t seed, cfLcp *p)
{
    int n = G * G * G;
    cfTriplets T;
    cfStatus st = cf_triplets_init(&T, n, n);
    for (int k = 0; k < G && st == CF_OK; ++k)
        for (int j = 0; j < G && st == CF_OK; ++j)
            for (int i = 0; i < G && st == CF_OK; ++i) {
                int r = (k * G + j) * G + i;
                st = cf_triplets_add(&T, r, r, 6.0);
                if (i > 0 && st == CF_OK) st = cf_triplets_add(&T, r, r - 1, -1.0);
                if (i < G - 1 && st == CF_OK) st = cf_triplets_add(&T, r, r + 1, -1.0);
                if (j > 0 && st == CF_OK) st = cf_triplets_add(&T, r, r - G, -1.0);
                if (j < G - 1 && st == CF_OK) st = cf_triplets_add(&T, r, r + G, -1.0);
                if (k > 0 && st == CF_OK) st = cf_triplets_add(&T, r, r - G * G, -1.0);
                if (k < G - 1 && st == CF_OK) st = cf_triplets_add(&T, r, r + G * G, -1.0);
            }
    memset(p, 0, sizeof *p);
    if (st == CF_OK) st = cf_csr_from_triplets(&T, &p->A);
    cf_triplets_free(&T);
    if (st != CF_OK) return st;
    p->n = n;
    p->b = malloc((size_t)n * sizeof *p->b);
    double *x = malloc((size_t)n * sizeof *x);
    cfRng rng;
    cf_rng_seed(&rng, seed);
    for (int i = 0; i < n; ++i) {
        x[i] = cf_rng_uniform(&rng);
        if (x[i] < 0.5) x[i] = 0.0;
    }
    cf_csr_mul_vec(&p->A, x, p->b);
    for (int i = 0; i < n; ++i) p->b[i] = x[i] > 0.0 ? -p->b[i] : cf_rng_uniform(&rng) - p->b[i];
    free(x);
    return CF_OK;
}

static cfStatus to_blcp(const cfLcp *l, cfBlcp *p)
{
    cfStatus st = cf_blcp_init(p, &l->A);
    if (st == CF_OK) memcpy(p->b, l->b, (size_t)l->n * sizeof *l->b);
    return st;
}

static void run(const char *family, const cfLcp *l)
{
    const char *names[] = {"jacobi(0.5)", "pgs", "psor(1.4)", "pgs-symmetric", "pgs-boxed", "pgs-sm", "nncg"};
    cfBlcp bl;
    if (to_blcp(l, &bl) != CF_OK) return;
    for (int m = 0; m < 7; ++m) {
        if (m == 5 && l->n > 1000) continue; /* dense Cholesky of the free set: O(n^3) per subspace step */
        double *x = calloc((size_t)l->n, sizeof *x);
        cfSplitOptions o = cf_split_options_default();
        o.tol_abs = TOL;
        o.max_iter = MAX_SWEEPS;
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        switch (m) {
        case 0: o.omega = 0.5; cf_lcp_jacobi(l, &o, x, &rep); break;
        case 1: cf_lcp_pgs(l, &o, x, &rep); break;
        case 2: o.omega = 1.4; cf_lcp_psor(l, &o, x, &rep); break;
        case 3: o.ordering = CF_ORDER_SYMMETRIC; cf_lcp_pgs_ordered(l, &o, x, &rep); break;
        case 4: cf_blcp_pgs(&bl, &o, x, &rep); break;
        case 5: o.inner = 3; o.inner_sm = 2; cf_blcp_pgs_sm(&bl, &o, x, &rep); break;
        case 6: cf_blcp_nncg(&bl, &o, x, &rep, NULL); break;
        }
        /* PGS-SM counts outer iterations of o.inner sweeps each */
        int sweeps = m == 5 ? rep.iterations * o.inner : rep.iterations;
        printf("%s,%d,%s,%d,%.4f,%.3e,%s\n", family, l->n, names[m], sweeps, rep.seconds, rep.residual,
               cf_stop_reason_name(rep.reason));
        fflush(stdout);
        free(x);
    }
    cf_blcp_free(&bl);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it comes, also through make's | tee */
    printf("# bench_splitting: x0 = 0, stop at ||min(x, Ax+b)||_2 <= %g (absolute) or %d sweeps; one core\n", TOL,
           MAX_SWEEPS);
    printf("# fluid = num4lcp's banded stand-in (cf_lcpgen, corrected plant, seed 1); poisson = 7-point, sparse\n");
    printf("family,n,method,sweeps,seconds,residual,reason\n");
    int sizes[3] = {125, 1000, 4096};
    for (int k = 0; k < 3; ++k) {
        cfLcp l;
        if (cf_lcpgen_family(CF_LCPGEN_FLUID, sizes[k], 1, &l, NULL) != CF_OK) return 1;
        run("fluid", &l);
        cf_lcp_free(&l);
    }
    cfLcp l;
    if (poisson_lcp(22, 1, &l) != CF_OK) return 1;
    run("poisson", &l);
    cf_lcp_free(&l);
    return 0;
}
