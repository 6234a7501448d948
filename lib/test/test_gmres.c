/* SPDX-License-Identifier: MIT */
/* Library tests: restarted GMRES (cf_gmres.h) and the finite-difference Jacobian check
   (cf_fdcheck.h), against dense LU solutions, residual certificates and analytic derivatives. */
#include "cft.h"
#include "cf/cf_fdcheck.h"
#include "cf/cf_gmres.h"
#include "cf/cf_rng.h"

#include <stdlib.h>
#include <string.h>

static void dense_apply(void *ctx, const double *x, double *y) { cf_dense_mul_vec(ctx, x, y); }

/* y = x / d (the Jacobi preconditioner of a matrix with diagonal d) */
static void jacobi_apply(void *ctx, const double *x, double *y)
{
    const cfDense *A = ctx;
    for (int i = 0; i < A->rows; ++i) y[i] = x[i] / *cf_dense_at(A, i, i);
}

/* a non-symmetric matrix: entries in [-1, 1) plus @p diag on the diagonal */
static void random_matrix(cfRng *rng, int n, double diag, cfDense *A)
{
    cft_assert_ok(cf_dense_init(A, n, n));
    for (int i = 0; i < n * n; ++i) A->a[i] = cf_rng_range(rng, -1.0, 1.0);
    for (int i = 0; i < n; ++i) *cf_dense_at(A, i, i) += diag;
}

static double true_residual(const cfDense *A, const double *b, const double *x)
{
    double *r = malloc((size_t)A->rows * sizeof *r);
    cf_dense_mul_vec(A, x, r);
    for (int i = 0; i < A->rows; ++i) r[i] -= b[i];
    double n = cf_vec_norm(A->rows, r);
    free(r);
    return n;
}

START_TEST(gmres_restarted_matches_lu)
{
    cfRng rng;
    cf_rng_seed(&rng, 7);
    int n = 60;
    cfDense A;
    random_matrix(&rng, n, 6.0, &A); /* eigenvalues in a disk around 6 of radius about sqrt(n/3): GMRES(10) converges */
    double b[60], x[60] = {0}, xd[60];
    for (int i = 0; i < n; ++i) b[i] = cf_rng_range(&rng, -1.0, 1.0);
    cft_assert_ok(cf_dense_solve(&A, b, xd));
    cfGmresOptions o = cf_gmres_options_default(n);
    o.restart = 10;
    double hist[2000];
    cfReport rep;
    cf_report_init(&rep, hist, 2000);
    cft_assert_ok(cf_gmres(n, dense_apply, &A, NULL, NULL, b, x, &o, &rep));
    ck_assert_int_eq(rep.reason, CF_STOP_RELATIVE);
    /* the reported residual is the true one, within the tolerance */
    cft_assert_near(rep.residual, true_residual(&A, b, x), 1e-15, 1e-6);
    ck_assert(rep.residual <= 1e-10 * cf_vec_norm(n, b));
    /* |x - x_LU| <= |A^-1| |r|: A is dominant enough that |A^-1| < 1 */
    for (int i = 0; i < n; ++i) cft_assert_near_at(x[i], xd[i], 1e-9, 0, "i = %d", i);
    ck_assert_int_gt(rep.iterations, 10); /* it did restart */
    /* within a cycle the estimate never increases (GMRES minimizes over a growing space) */
    for (int k = 1; k < 10; ++k) cft_assert_at(hist[k] <= hist[k - 1] * (1 + 1e-12), "k = %d", k);
    cf_dense_free(&A);
}
END_TEST

START_TEST(gmres_full_converges_in_n_steps)
{
    cfRng rng;
    cf_rng_seed(&rng, 11);
    int n = 8;
    cfDense A;
    random_matrix(&rng, n, 3.0, &A);
    double b[8], x[8] = {0};
    for (int i = 0; i < n; ++i) b[i] = cf_rng_range(&rng, -1.0, 1.0);
    cfGmresOptions o = cf_gmres_options_default(n);
    ck_assert_int_eq(o.restart, n);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_ok(cf_gmres(n, dense_apply, &A, NULL, NULL, b, x, &o, &rep));
    /* the Krylov space of dimension n is the whole space: n steps suffice (rounding keeps the
       residual near 1e-15 |b|, far below the 1e-10 target) */
    ck_assert_int_le(rep.iterations, n);
    cf_dense_free(&A);
}
END_TEST

/* rows scaled by 10^(i mod 5): GMRES(10) without a preconditioner does not get there in 400
   steps; a Jacobi preconditioner on either side undoes the scaling and converges in a few dozen */
START_TEST(gmres_preconditioner_left_and_right)
{
    cfRng rng;
    cf_rng_seed(&rng, 3);
    int n = 40;
    cfDense A;
    random_matrix(&rng, n, 8.0, &A);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) *cf_dense_at(&A, i, j) *= pow(10.0, i % 5);
    double b[40];
    for (int i = 0; i < n; ++i) b[i] = cf_rng_range(&rng, -1.0, 1.0);
    cfGmresOptions o = cf_gmres_options_default(n);
    o.restart = 10;
    o.max_iter = 400;
    for (int v = 0; v < 3; ++v) {
        double x[40] = {0};
        cfReport rep;
        cf_report_init(&rep, NULL, 0);
        o.side = v == 2 ? CF_GMRES_LEFT : CF_GMRES_RIGHT;
        cfStatus st = cf_gmres(n, dense_apply, &A, v ? jacobi_apply : NULL, &A, b, x, &o, &rep);
        if (v == 0) {
            cft_assert_at(st != CF_OK, "unpreconditioned: %d steps", rep.iterations);
            continue;
        }
        cft_assert_ok_at(st, "variant %d", v);
        cft_assert_int_at(rep.iterations, <=, 100, "variant %d", v);
        /* with either side the stop is on the true residual */
        cft_assert_at(true_residual(&A, b, x) <= 1e-10 * cf_vec_norm(n, b) * (1 + 1e-6), "variant %d", v);
    }
    cf_dense_free(&A);
}
END_TEST

START_TEST(gmres_reports_stagnation_max_iter_bad_input)
{
    /* singular A = diag(1, 0) with b = (1, 1) outside its range: no x reaches the tolerance */
    cfDense A;
    cft_assert_ok(cf_dense_init(&A, 2, 2));
    *cf_dense_at(&A, 0, 0) = 1.0;
    double b[2] = {1.0, 1.0}, x[2] = {0.0, 0.0};
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cft_assert_status(cf_gmres(2, dense_apply, &A, NULL, NULL, b, x, NULL, &rep), CF_STAGNATED);
    cft_assert_near(x[0], 1.0, 1e-14, 0); /* the least-squares part is solved */
    cft_assert_near(rep.residual, 1.0, 1e-14, 0);
    /* a budget of one step on a 2x2 non-normal matrix */
    *cf_dense_at(&A, 1, 1) = 1.0;
    *cf_dense_at(&A, 0, 1) = 5.0;
    cfGmresOptions o = cf_gmres_options_default(2);
    o.max_iter = 1;
    x[0] = x[1] = 0.0;
    cft_assert_status(cf_gmres(2, dense_apply, &A, NULL, NULL, b, x, &o, &rep), CF_MAX_ITER);
    ck_assert_int_eq(rep.iterations, 1);
    double bad[2] = {NAN, 1.0};
    cft_assert_status(cf_gmres(2, dense_apply, &A, NULL, NULL, bad, x, NULL, &rep), CF_BAD_INPUT);
    o.restart = 0;
    cft_assert_status(cf_gmres(2, dense_apply, &A, NULL, NULL, b, x, &o, &rep), CF_BAD_INPUT);
    /* the CSR front end refuses a non-square matrix */
    cfTriplets t;
    cfCsr C;
    cft_assert_ok(cf_triplets_init(&t, 2, 3));
    cft_assert_ok(cf_triplets_add(&t, 0, 0, 1.0));
    cft_assert_ok(cf_csr_from_triplets(&t, &C));
    cft_assert_status(cf_csr_gmres(&C, b, x, NULL, NULL), CF_BAD_INPUT);
    cf_csr_free(&C);
    cf_triplets_free(&t);
    cf_dense_free(&A);
}
END_TEST

/* f(x) = (x0^2 x1, sin x1, exp(x0) x2, x0 x1 x2) with its analytic Jacobian */
static void fun(void *ctx, const double *x, double *y)
{
    (void)ctx;
    y[0] = x[0] * x[0] * x[1];
    y[1] = sin(x[1]);
    y[2] = exp(x[0]) * x[2];
    y[3] = x[0] * x[1] * x[2];
}

START_TEST(fd_jacobian_matches_analytic)
{
    double x[3] = {0.7, -1.3, 2.1};
    cfDense J;
    cft_assert_ok(cf_dense_init(&J, 4, 3));
    double a[12] = {2 * x[0] * x[1], x[0] * x[0], 0, 0, cos(x[1]), 0, exp(x[0]) * x[2], 0, exp(x[0]),
                    x[1] * x[2], x[0] * x[2], x[0] * x[1]};
    memcpy(J.a, a, sizeof a);
    int wi = -1, wj = -1;
    /* central differences with h = 1e-6 max(1, |x|): truncation h^2 |f'''| / 6 ~ 1e-12 * 10 and
       rounding eps |f| / h ~ 1e-10 * 10: 1e-8 is a safe bound for these magnitudes */
    ck_assert(cf_fd_jacobian_error(4, 3, fun, NULL, x, &J, 1e-6, &wi, &wj) < 1e-8);
    /* a dropped term is found, and located */
    *cf_dense_at(&J, 3, 1) = 0.0;
    ck_assert(cf_fd_jacobian_error(4, 3, fun, NULL, x, &J, 1e-6, &wi, &wj) > 0.5);
    ck_assert_int_eq(wi, 3);
    ck_assert_int_eq(wj, 1);
    /* wrong sizes and a bad step */
    ck_assert(isinf(cf_fd_jacobian_error(3, 3, fun, NULL, x, &J, 1e-6, NULL, NULL)));
    cfDense D = {0};
    cft_assert_status(cf_fd_jacobian(4, 3, fun, NULL, x, 0.0, &D), CF_BAD_INPUT);
    cf_dense_free(&J);
}
END_TEST

static void build(Suite *s)
{
    TCase *tg = cft_tcase_unit(s, "gmres");
    CFT_TEST(tg, gmres_restarted_matches_lu, "GMRES(10) equals the LU solution; residual estimate monotone");
    CFT_TEST(tg, gmres_full_converges_in_n_steps, "full GMRES converges in n steps");
    CFT_TEST(tg, gmres_preconditioner_left_and_right, "Jacobi on either side converges where plain GMRES(10) does not");
    CFT_TEST(tg, gmres_reports_stagnation_max_iter_bad_input, "stagnation, iteration cap, bad input");
    TCase *tf = cft_tcase_unit(s, "fdcheck");
    CFT_TEST(tf, fd_jacobian_matches_analytic, "central differences match an analytic Jacobian, find a dropped term");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "gmres", build); }
