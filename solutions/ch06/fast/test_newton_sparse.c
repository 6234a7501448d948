/* SPDX-License-Identifier: MIT */
/* Tests of chapter 6's sparse path (solutions/ch06/fast/): the block LU solves what a dense solve
   solves, and the solver "newton-ac-sparse" gives the reference's answers (cf_fc_newton_ac(),
   ch06.6) with the same certificates: the cone, the dual cone, complementarity, and the natural
   map recomputed by cf_fc_residual(). Run in the fast paths' binary (`make test-fast`, reference
   solutions only). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_newton_sparse.h"
#include "cft.h"
#include "cf/cf_rng.h"
#include "cf/cf_solvers.h"

void cft_newton_sparse_tests(Suite *s);

/* a random n x n block matrix: each off-diagonal block present with probability @p density
   (independently above and below the diagonal: the pattern need not be symmetric), entries in
   [-1, 1], plus 4 I on the diagonal blocks (block diagonally dominant enough to be safe without
   pivoting); also returned dense (row-major, 3n x 3n) */
static void random_bsr(int n, double density, uint64_t seed, cfBsr *A, double *dense)
{
    cfRng rng;
    cf_rng_seed(&rng, seed);
    int N = 3 * n;
    memset(dense, 0, (size_t)N * N * sizeof *dense);
    cft_assert_ok(cf_bsr_init(A, n, n, 3, 3));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if (i != j && cf_rng_uniform(&rng) >= density) continue;
            double m[9];
            for (int k = 0; k < 9; ++k) m[k] = cf_rng_range(&rng, -1, 1) + (i == j && k % 4 == 0 ? 4.0 * sqrt(n * density + 1) : 0.0);
            cft_assert_ok_at(cf_bsr_add_block(A, i, j, m), "i = %d, j = %d", i, j);
            for (int k = 0; k < 9; ++k) dense[(size_t)(3 * i + k / 3) * N + 3 * j + k % 3] = m[k];
        }
    cf_bsr_finalize(A);
}

START_TEST(newton_sparse_block_lu_solves)
{
    for (int trial = 0; trial < 6; ++trial) {
        int n = 5 + 17 * trial;
        double density = trial % 2 ? 0.15 : 0.05;
        cfBsr A = {0};
        double *D = malloc((size_t)9 * n * n * sizeof *D), *b = malloc((size_t)3 * n * sizeof *b),
               *x = malloc((size_t)3 * n * sizeof *x), *y = malloc((size_t)3 * n * sizeof *y);
        random_bsr(n, density, 11 + (uint64_t)trial, &A, D);
        cfBlockLu *F = NULL;
        cft_assert_ok(cf_block_lu_symbolic(&A, &F));
        /* the fill contains the pattern, made symmetric: at least nnzb blocks */
        cft_assert_int_at(cf_block_lu_blocks(F), >=, A.nnzb, "trial %d", trial);
        cf_block_lu_clear(F);
        for (int a = 0; a < n; ++a)
            for (int e = A.rowptr[a]; e < A.rowptr[a + 1]; ++e)
                cft_assert_at(cf_block_lu_add(F, a, A.colidx[e], &A.val[9 * e]), "trial %d block (%d, %d)", trial, a, A.colidx[e]);
        cft_assert_at(cf_block_lu_factor(F, 1e-13), "trial %d", trial);
        cfRng rng;
        cf_rng_seed(&rng, 99);
        for (int i = 0; i < 3 * n; ++i) b[i] = cf_rng_range(&rng, -1, 1);
        cf_block_lu_solve(F, b, x);
        /* A x = b to rounding: |A x - b| <= 1e-12 |b| on the dense copy (condition numbers here are
           below 100, so a backward-stable solve leaves about 1e-14) */
        double rn = 0, bn = 0;
        for (int i = 0; i < 3 * n; ++i) {
            double s = -b[i];
            for (int j = 0; j < 3 * n; ++j) s += D[(size_t)i * 3 * n + j] * x[j];
            rn += s * s, bn += b[i] * b[i];
        }
        cft_assert_at(sqrt(rn) <= 1e-12 * sqrt(bn), "trial %d: |Ax - b| = %g, |b| = %g", trial, sqrt(rn), sqrt(bn));
        /* in place (b and x alias) gives the same */
        memcpy(y, b, (size_t)3 * n * sizeof *y);
        cf_block_lu_solve(F, y, y);
        for (int i = 0; i < 3 * n; ++i) cft_assert_near_at(y[i], x[i], 0, 0, "trial %d i %d", trial, i);
        /* a block outside the pattern is refused, and a zero pivot block is singular */
        if (n > 2 && A.rowptr[1] - A.rowptr[0] == 1 && A.rowptr[n] > 0) {
            bool any = false;
            for (int j = 1; j < n && !any; ++j) any = !cf_block_lu_add(F, 0, j, &A.val[0]);
            ck_assert_msg(any, "trial %d: the first row has only its diagonal, so some (0, j) is outside", trial);
        }
        cf_block_lu_clear(F);
        ck_assert(!cf_block_lu_factor(F, 1e-13));
        cf_block_lu_free(F);
        cf_bsr_free(&A);
        free(D), free(b), free(x), free(y);
    }
}
END_TEST

/* The certificates of a claimed solution r: per contact the cone (|r_T| <= mu r_n), the dual cone
   of De Saxce's velocity (u_n >= 0), complementarity r . u_hat = 0, and the natural map; the largest
   violation of each over the contacts, the first three relative to |q| max(1, |r|_inf) scales. */
typedef struct Cert {
    double cone, dual, compl, natural;
} Cert;

static Cert certify(const cfFrictionProblem *p, const double *r)
{
    int n = 3 * p->nc;
    double *u = malloc((size_t)(n > 0 ? n : 1) * sizeof *u);
    cf_fc_velocity(p, r, u);
    double rmax = 1.0, umax = 1.0;
    for (int i = 0; i < n; ++i) rmax = fmax(rmax, fabs(r[i])), umax = fmax(umax, fabs(u[i]));
    Cert c = {0, 0, 0, cf_fc_residual(p, r)};
    for (int a = 0; a < p->nc; ++a) {
        const double *ra = &r[3 * a], *ua = &u[3 * a];
        double mu = p->mu[a], ut = hypot(ua[1], ua[2]);
        c.cone = fmax(c.cone, (hypot(ra[1], ra[2]) - mu * ra[0]) / rmax);
        c.dual = fmax(c.dual, -ua[0] / umax);
        c.compl = fmax(c.compl, fabs(ra[0] * (ua[0] + mu * ut) + ra[1] * ua[1] + ra[2] * ua[2]) / (rmax * umax));
    }
    free(u);
    return c;
}

/* both solvers from r = 0 at tolerance tol_q |q|; the sparse path must converge whenever the
   reference does, with certificates of the tolerance's size */
static void compare(const char *name, const cfFrictionProblem *p, double tol_q, int max_iter, double same_r)
{
    int n = 3 * p->nc;
    double *rd = calloc((size_t)n, sizeof *rd), *rs = calloc((size_t)n, sizeof *rs);
    cfNewtonOptions o = cf_newton_options_default();
    o.max_iter = max_iter;
    o.tol = tol_q * cf_fc_norm_q(p);
    cfReport repd, reps;
    cf_report_init(&repd, NULL, 0);
    cf_report_init(&reps, NULL, 0);
    cfStatus sd = cf_fc_newton_ac(p, &o, rd, &repd);
    cfNewtonStats stats;
    cfStatus ss = cf_fc_newton_ac_sparse(p, &o, rs, &reps, &stats);
    cft_assert_ok_at(sd, "%s: the reference (%d iterations)", name, repd.iterations);
    cft_assert_ok_at(ss, "%s: the sparse path (%d iterations, err %g, singular %d, fallbacks %d)", name, reps.iterations,
                     reps.residual, stats.singular, stats.fallbacks);
    Cert c = certify(p, rs);
    /* converged means the recomputed natural map is at most the tolerance */
    cft_assert_at(c.natural <= o.tol, "%s: natural map %g > tol %g", name, c.natural, o.tol);
    cft_assert_near_at(reps.residual, c.natural, 0, 1e-12, "%s: the reported residual is the natural map", name);
    /* the natural map bounds the distances to the cone and its dual: each violation is at most of
       the order of the error; 10 tol_q |q| / scale leaves room for the scales' ratio */
    double scale = 10.0 * o.tol;
    cft_assert_at(c.cone <= scale, "%s: cone violation %g", name, c.cone);
    cft_assert_at(c.dual <= scale, "%s: dual-cone violation %g", name, c.dual);
    cft_assert_at(c.compl <= scale, "%s: complementarity %g", name, c.compl);
    if (same_r > 0) { /* a unique solution, or the same iterates: the reference's r */
        double dm = 0, rm = 1e-300;
        for (int i = 0; i < n; ++i) dm = fmax(dm, fabs(rs[i] - rd[i])), rm = fmax(rm, fabs(rd[i]));
        cft_assert_at(dm <= same_r * rm, "%s: |r_sparse - r_dense|_inf = %g, |r|_inf = %g", name, dm, rm);
        cft_assert_int_at(reps.iterations, ==, repd.iterations, "%s", name);
    }
    free(rd), free(rs);
}

/* A rigid-body problem without files: nb bodies of mass 1..4 and unit-ish inertia, nc contacts
   each between one or two bodies with random 3x6 Jacobian blocks, W = H M^-1 H^T (rank at most
   6 nb < 3 nc when contacts outnumber twice the bodies), q with approaching normals. */
static void rigid_problem(int nb, int nc, uint64_t seed, cfFrictionProblem *p)
{
    cfRng rng;
    cf_rng_seed(&rng, seed);
    memset(p, 0, sizeof *p);
    p->nc = nc;
    p->q = malloc((size_t)3 * nc * sizeof *p->q);
    p->mu = malloc((size_t)nc * sizeof *p->mu);
    int *ba = malloc((size_t)nc * sizeof *ba), *bb = malloc((size_t)nc * sizeof *bb);
    double *H = malloc((size_t)nc * 2 * 18 * sizeof *H), *minv = malloc((size_t)nb * 6 * sizeof *minv);
    for (int i = 0; i < 6 * nb; ++i) minv[i] = 1.0 / cf_rng_range(&rng, 1, 4);
    for (int a = 0; a < nc; ++a) {
        ba[a] = (int)cf_rng_below(&rng, (uint32_t)nb);
        bb[a] = cf_rng_uniform(&rng) < 0.3 ? -1 : (ba[a] + 1 + (int)cf_rng_below(&rng, 3)) % nb;
        if (bb[a] == ba[a]) bb[a] = -1;
        for (int k = 0; k < 36; ++k) H[36 * a + k] = cf_rng_range(&rng, -1, 1);
        p->q[3 * a] = cf_rng_range(&rng, -1, 0.2);
        p->q[3 * a + 1] = cf_rng_range(&rng, -1, 1);
        p->q[3 * a + 2] = cf_rng_range(&rng, -1, 1);
        p->mu[a] = cf_rng_range(&rng, 0.1, 0.8);
    }
    cft_assert_ok(cf_bsr_init(&p->W, nc, nc, 3, 3));
    for (int a = 0; a < nc; ++a)
        for (int b = 0; b < nc; ++b) {
            double B[9] = {0};
            bool any = false;
            for (int sa = 0; sa < 2; ++sa)
                for (int sb = 0; sb < 2; ++sb) {
                    int ka = sa ? bb[a] : ba[a], kb = sb ? bb[b] : ba[b];
                    if (ka < 0 || ka != kb) continue;
                    any = true;
                    const double *Ha = &H[36 * a + 18 * sa], *Hb = &H[36 * b + 18 * sb];
                    for (int i = 0; i < 3; ++i)
                        for (int j = 0; j < 3; ++j)
                            for (int k = 0; k < 6; ++k) B[3 * i + j] += Ha[6 * i + k] * minv[6 * ka + k] * Hb[6 * j + k];
                }
            if (any) cft_assert_ok_at(cf_bsr_add_block(&p->W, a, b, B), "a = %d, b = %d", a, b);
        }
    cf_bsr_finalize(&p->W);
    free(ba), free(bb), free(H), free(minv);
}

START_TEST(newton_sparse_is_registered)
{
    const cfSolver *s = cf_solver_find("newton-ac-sparse"), *ref = cf_solver_find("newton-ac");
    ck_assert_msg(s == &cf_solver_newton_ac_sparse, "the registry lists the sparse row when it is linked");
    ck_assert(cf_solver_reference_only(s));
    ck_assert(s->form == ref->form && s->measure == ref->measure && s->chapter == 6 && s->contacts);
}
END_TEST

START_TEST(newton_sparse_matches_reference_generated)
{
    /* full rank (8 bodies, 12 contacts: 36 <= 48 dofs) and rank deficient (6 bodies, 20 contacts:
       rank <= 36 of 60), the regime of the data sets. None of these Newton matrices is singular,
       so the iterates are the reference's up to the rounding of two different LU (pivoting across
       blocks or not): measured 2.3e-15 of |r| at most, asserted to 1e-12 */
    for (int s = 0; s < 4; ++s) {
        cfFrictionProblem p;
        char name[64];
        bool full = s < 2;
        rigid_problem(full ? 8 : 6, full ? 12 : 20, 5 + (uint64_t)s, &p);
        snprintf(name, sizeof name, "generated %s %d", full ? "full-rank" : "rank-deficient", s);
        compare(name, &p, 1e-10, 200, 1e-12);
        cf_fc_free(&p);
    }
    /* a converged answer is never claimed on a large residual: one iteration is not enough here */
    cfFrictionProblem p;
    rigid_problem(6, 20, 5, &p);
    double *r = calloc(60, sizeof *r);
    cfNewtonOptions o = cf_newton_options_default();
    o.max_iter = 1;
    o.tol = 1e-10 * cf_fc_norm_q(&p);
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cfStatus st = cf_fc_newton_ac_sparse(&p, &o, r, &rep, NULL);
    ck_assert_msg(st != CF_OK || cf_fc_residual(&p, r) <= o.tol, "status %s at err %g", cf_status_name(st), cf_fc_residual(&p, r));
    cft_assert_near(rep.residual, cf_fc_residual(&p, r), 0, 1e-12);
    /* bad input is refused like the reference: a NaN in q */
    p.q[4] = NAN;
    cft_assert_status(cf_fc_newton_ac_sparse(&p, &o, r, NULL, NULL), CF_BAD_INPUT);
    free(r);
    cf_fc_free(&p);
}
END_TEST

static void compare_file(const char *rel, double tol_q, int max_iter, double same_r)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", cft_data_dir(), rel);
    cfFrictionProblem p;
    cfError err;
    ck_assert_msg(cf_fc_read_siconos(path, &p, &err) == CF_OK, "%s", err.msg);
    compare(rel, &p, tol_q, max_iter, same_r);
    cf_fc_free(&p);
}

START_TEST(newton_sparse_matches_reference_files)
{
    if (!cft_data_or_skip("siconos-fc3d/reference", "newton-ac-sparse")) return;
    /* every problem with a reference solution (n <= 15), as ch06.6's test: to 1e-10 |q|. No Newton
       matrix on the way is singular (not even on the rank-deficient Rovers), so the sparse iterates
       are the reference's: the same iteration counts, r measured equal to 5e-16 of |r|, asserted
       to 1e-12 */
    char dir[1024], *files[64];
    snprintf(dir, sizeof dir, "%s/siconos-fc3d/reference", cft_data_dir());
    int nf = cf_data_files(dir, ".ref", false, files, 64);
    ck_assert_int_ge(nf, 20);
    for (int f = 0; f < nf; ++f) {
        char rel[256];
        snprintf(rel, sizeof rel, "siconos-fc3d/%.*s", (int)strlen(files[f]) - 4, files[f]);
        compare_file(rel, 1e-10, 200, 1e-12);
        free(files[f]);
    }
    /* larger ones of the bench (ch07's table), rank deficient: the certificates only, as the
       solution is not unique there and every iteration of BoxesStack1 and Capsules-i101-404 is
       regularized (measured: r within 5e-6 of |r| on BoxesStack1, 86 iterations against 87;
       1.3e-10 on Capsules-i101-404, 16 against 16) */
    compare_file("siconos-fc3d/BoxesStack1-i100000-32.hdf5.dat", 1e-8, 300, 0);
    compare_file("siconos-fc3d/Capsules-i101-404.dat", 1e-8, 300, 0);
    compare_file("siconos-fc3d/Confeti-ex13-Fc3D-SBM.dat", 1e-8, 300, 0);
}
END_TEST

void cft_newton_sparse_tests(Suite *s)
{
    TCase *t = cft_tcase_long(s, "newton-sparse");
    CFT_TEST(t, newton_sparse_is_registered, "the registry lists newton-ac-sparse beside newton-ac, reference only");
    CFT_TEST(t, newton_sparse_block_lu_solves, "the minimum-degree block LU solves random block-sparse systems to 1e-12");
    CFT_TEST(t, newton_sparse_matches_reference_generated,
             "newton-ac-sparse on generated rigid problems: the reference's iterates (full rank), its certificates (rank deficient)");
    CFT_TEST(t, newton_sparse_matches_reference_files,
             "newton-ac-sparse on the Siconos reference problems and three large ones: converged, certified, the reference's r where unique");
}
