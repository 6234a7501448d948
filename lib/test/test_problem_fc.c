/* SPDX-License-Identifier: MIT */
/* Library tests: boxed LCP and frictional contact (FC3D) problems. The cone projection is checked
   by Moreau's decomposition, the residuals on known solutions, the Siconos reader on every FC3D
   file of ../shared/data/siconos-fc3d (reference solutions, exact write/read round trip) and on
   malformed files, whose messages must name the file and the token. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cft.h"
#include "cf/cf_problem.h"
#include "cf/cf_rng.h"

/* ------------------------------------------------------------------------------------------ */
/* helpers                                                                                     */

static bool in_cone(const double x[3], double mu, double tol) { return hypot(x[1], x[2]) <= mu * x[0] + tol; }

static bool in_polar(const double x[3], double mu, double tol)
{
    return mu * hypot(x[1], x[2]) <= -x[0] + tol;
}

/* a temporary file path holding @p text */
static void write_temp(char *path, const char *text)
{
    strcpy(path, "/tmp/cflab-fc-XXXXXX");
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    ck_assert(f);
    fputs(text, f);
    fclose(f);
}

static bool problems_identical(const cfFrictionProblem *a, const cfFrictionProblem *b)
{
    if (a->nc != b->nc || a->W.brows != b->W.brows || a->W.bcols != b->W.bcols) return false;
    int nb = a->W.rowptr[a->nc];
    if (b->W.rowptr[b->nc] != nb) return false;
    return memcmp(a->W.rowptr, b->W.rowptr, (size_t)(a->nc + 1) * sizeof *a->W.rowptr) == 0 &&
           memcmp(a->W.colidx, b->W.colidx, (size_t)nb * sizeof *a->W.colidx) == 0 &&
           memcmp(a->W.val, b->W.val, (size_t)(9 * nb) * sizeof *a->W.val) == 0 &&
           memcmp(a->q, b->q, (size_t)(3 * a->nc) * sizeof *a->q) == 0 &&
           memcmp(a->mu, b->mu, (size_t)a->nc * sizeof *a->mu) == 0;
}

/* the folder of the FC3D data, or NULL (with a printed note) when it is not there */
static const char *fc3d_dir(void)
{
    static char dir[1024];
    snprintf(dir, sizeof dir, "%s/siconos-fc3d", cft_data_dir());
    DIR *d = opendir(dir);
    if (!d) {
        printf("test_problem_fc: %s not found: skipping the data-set checks (set CF_DATA_DIR)\n", dir);
        return NULL;
    }
    closedir(d);
    return dir;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* sorted names of the *.dat files in dir; returns the count (names freed by the caller) */
static int list_dat(const char *dir, char ***names)
{
    DIR *d = opendir(dir);
    ck_assert(d);
    int n = 0, cap = 64;
    char **v = malloc((size_t)cap * sizeof *v);
    ck_assert(v);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".dat") != 0) continue;
        if (n == cap) {
            cap *= 2;
            v = realloc(v, (size_t)cap * sizeof *v);
            ck_assert(v);
        }
        v[n] = malloc(len + 1);
        ck_assert(v[n]);
        memcpy(v[n], e->d_name, len + 1);
        ++n;
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof *v, cmp_str);
    *names = v;
    return n;
}

/* read a reference solution: comment lines (#), n, r (n values), u (n values) */
static bool read_ref(const char *path, int n, double *r, double *u)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char line[512];
    long pos = ftell(f);
    while (fgets(line, sizeof line, f) && line[0] == '#') pos = ftell(f);
    fseek(f, pos, SEEK_SET);
    int m = -1;
    ck_assert(fscanf(f, "%d", &m) == 1);
    ck_assert_int_eq(m, n);
    for (int i = 0; i < n; ++i) cft_assert_at(fscanf(f, "%lf", &r[i]) == 1, "i = %d", i);
    for (int i = 0; i < n; ++i) cft_assert_at(fscanf(f, "%lf", &u[i]) == 1, "i = %d", i);
    fclose(f);
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* cone projection                                                                             */

START_TEST(fc_cone_projection_moreau)
{
    /* P_K(z) in K, z - P_K(z) in the polar cone, orthogonal, idempotent; and Moreau with the dual
       cone: z - P_K(z) = -P_K*(-z), where K* is the cone of coefficient 1/mu */
    cfRng rng;
    cf_rng_seed(&rng, 91);
    for (int k = 0; k < 20000; ++k) {
        double z[3] = {cf_rng_range(&rng, -2, 2), cf_rng_range(&rng, -2, 2), cf_rng_range(&rng, -2, 2)};
        double mu = k % 10 == 0 ? cf_rng_range(&rng, 1e-3, 0.05) : cf_rng_range(&rng, 0.05, 3.0);
        double p[3], pp[3], nz[3] = {-z[0], -z[1], -z[2]}, pd[3];
        cf_cone_project(z, mu, p);
        ck_assert(in_cone(p, mu, 1e-12));
        double res[3] = {z[0] - p[0], z[1] - p[1], z[2] - p[2]};
        ck_assert(in_polar(res, mu, 1e-12));
        cft_assert_near(res[0] * p[0] + res[1] * p[1] + res[2] * p[2], 0.0, 1e-12, 0);
        cf_cone_project(p, mu, pp);
        for (int i = 0; i < 3; ++i) cft_assert_near_at(pp[i], p[i], 1e-14, 0, "i = %d", i);
        cf_cone_project(nz, 1.0 / mu, pd);
        for (int i = 0; i < 3; ++i) cft_assert_near_at(res[i], -pd[i], 1e-11, 1e-12, "i = %d", i);
        /* no point of K is closer (random points of K) */
        double best = hypot(hypot(res[0], res[1]), res[2]);
        for (int s = 0; s < 5; ++s) {
            double yn = cf_rng_range(&rng, 0, 3), ang = cf_rng_range(&rng, 0, 2 * CF_PI),
                   rad = mu * yn * cf_rng_uniform(&rng);
            double y[3] = {yn, rad * cos(ang), rad * sin(ang)};
            ck_assert(best <= hypot(hypot(z[0] - y[0], z[1] - y[1]), z[2] - y[2]) + 1e-12);
        }
    }
}
END_TEST

START_TEST(fc_cone_projection_cases)
{
    double out[3];
    /* inside: unchanged */
    double in[3] = {2.0, 0.3, -0.4};
    cf_cone_project(in, 0.5, out);
    for (int i = 0; i < 3; ++i) cft_assert_at(out[i] == in[i], "i = %d", i);
    /* in the polar cone: the apex */
    double pol[3] = {-2.0, 0.3, -0.4};
    cf_cone_project(pol, 0.5, out);
    for (int i = 0; i < 3; ++i) cft_assert_at(out[i] == 0.0, "i = %d", i);
    /* the README's closed form on the boundary, and a worked number (0.48, -0.24) */
    double x[3] = {0.1, -1.0, 0.0};
    cf_cone_project(x, 0.5, out);
    cft_assert_near(out[0], 0.48, 1e-15, 0);
    cft_assert_near(out[1], -0.24, 1e-15, 0);
    cft_assert_near(out[2], 0.0, 0.0, 0);
    /* mu = 0: the cone is the non-negative normal ray */
    double y[3] = {0.7, 3.0, -1.0};
    cf_cone_project(y, 0.0, out);
    ck_assert(out[0] == 0.7 && out[1] == 0.0 && out[2] == 0.0);
    y[0] = -0.7;
    cf_cone_project(y, 0.0, out);
    ck_assert(out[0] == 0.0 && out[1] == 0.0 && out[2] == 0.0);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* residuals                                                                                   */

static cfFrictionProblem one_contact(const double W[9], const double q[3], double mu)
{
    cfFrictionProblem p;
    memset(&p, 0, sizeof p);
    p.nc = 1;
    ck_assert(cf_bsr_init(&p.W, 1, 1, 3, 3) == CF_OK);
    ck_assert(cf_bsr_add_block(&p.W, 0, 0, W) == CF_OK);
    cf_bsr_finalize(&p.W);
    p.q = malloc(3 * sizeof *p.q);
    p.mu = malloc(sizeof *p.mu);
    ck_assert(p.q && p.mu);
    memcpy(p.q, q, 3 * sizeof *q);
    p.mu[0] = mu;
    return p;
}

START_TEST(fc_residual_known_solutions)
{
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    /* sliding: q = (-0.1, 1, 0), mu = 0.5: r = (0.1, -0.05, 0), u = (0, 0.95, 0) */
    const double q[3] = {-0.1, 1.0, 0.0};
    cfFrictionProblem p = one_contact(I, q, 0.5);
    double r[3] = {0.1, -0.05, 0.0}, u[3];
    cf_fc_velocity(&p, r, u);
    cft_assert_near(u[0], 0.0, 1e-16, 0);
    cft_assert_near(u[1], 0.95, 1e-16, 0);
    cft_assert_near(cf_fc_residual(&p, r), 0.0, 1e-16, 0);
    cft_assert_near(cf_fc_norm_q(&p), sqrt(1.01), 1e-15, 0);
    /* the CCP answer is not a Coulomb solution */
    double rc[3] = {0.48, -0.24, 0.0};
    ck_assert(cf_fc_residual(&p, rc) > 0.1);
    /* sticking: q = (-1, 0.1, 0.05), mu = 0.5: r = -q, u = 0 */
    const double q2[3] = {-1.0, 0.1, 0.05};
    cfFrictionProblem s = one_contact(I, q2, 0.5);
    double r2[3] = {1.0, -0.1, -0.05};
    cft_assert_near(cf_fc_residual(&s, r2), 0.0, 1e-16, 0);
    /* separating: q_N > 0, r = 0 */
    s.q[0] = 0.5;
    double r0[3] = {0, 0, 0};
    cft_assert_near(cf_fc_residual(&s, r0), 0.0, 0.0, 0);
    /* non-finite r: +infinity, never NaN */
    double rn[3] = {NAN, 0, 0};
    ck_assert(cf_fc_residual(&s, rn) == INFINITY);
    cf_fc_free(&p);
    cf_fc_free(&s);
}
END_TEST

/* the elliptic cone of chapter 10: a sliding solution of the ellipse (0.2, 0.8) has the force of
   maximal dissipation, f = -r_n D^2 v / |D v| with D = diag(mu_t, mu_b), NOT anti-parallel to v */
START_TEST(fc_residual_ellipse)
{
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, mt = 0.2, mb = 0.8;
    double v[2] = {sqrt(0.5), sqrt(0.5)}, dv = hypot(mt * v[0], mb * v[1]);
    double r[3] = {1.0, -mt * mt * v[0] / dv, -mb * mb * v[1] / dv}, u[3] = {0.0, 0.3 * v[0], 0.3 * v[1]};
    const double q[3] = {u[0] - r[0], u[1] - r[1], u[2] - r[2]};
    cfFrictionProblem p = one_contact(I, q, mb);
    p.ellipse = malloc(2 * sizeof *p.ellipse);
    ck_assert(p.ellipse);
    p.ellipse[0] = mt;
    p.ellipse[1] = mb;
    cft_assert_near(cf_contact_residual2_ellipse(r, u, mt, mb, CF_FRICTION_CONE), 0.0, 1e-30, 0);
    cft_assert_near(cf_fc_residual(&p, r), 0.0, 1e-15, 0);
    /* the force on the rim anti-parallel to v is not the law's */
    double t = 1.0 / hypot(v[0] / mt, v[1] / mb), ra[3] = {1.0, -t * v[0], -t * v[1]}, ua[3];
    for (int k = 0; k < 3; ++k) ua[k] = q[k] + ra[k];
    ck_assert(cf_contact_residual2_ellipse(ra, ua, mt, mb, CF_FRICTION_CONE) > 1e-3);
    /* equal coefficients: the isotropic term bit for bit */
    double z[3] = {0.7, -0.4, 0.9}, w[3] = {-0.3, 0.5, 0.2};
    ck_assert(cf_contact_residual2_ellipse(z, w, 0.6, 0.6, CF_FRICTION_CONE) == cf_contact_residual2(z, w, 0.6, CF_FRICTION_CONE));
    ck_assert(cf_contact_residual2_ellipse(z, w, 0.6, 0.6, CF_FRICTION_BOX) == cf_contact_residual2(z, w, 0.6, CF_FRICTION_BOX));
    /* a zero axis pins its impulse; the box bounds each axis by its own coefficient */
    double pin[3] = {1.0, 0.0, 0.25}, up[3] = {0.0, 0.0, 0.0};
    cft_assert_near(cf_contact_residual2_ellipse(pin, up, 0.5, 0.0, CF_FRICTION_CONE), 0.0625, 1e-15, 0);
    double bx[3] = {1.0, 0.2, -0.8}, ub[3] = {0.0, -1.0, 1.0};
    cft_assert_near(cf_contact_residual2_ellipse(bx, ub, mt, mb, CF_FRICTION_BOX), 0.0, 0.0, 0);
    ck_assert(cf_contact_residual2(bx, ub, mt, CF_FRICTION_BOX) > 0.1);
    /* no Siconos file can say it */
    cfError err;
    cft_assert_status(cf_fc_write_siconos("/tmp/cflab-never-written-ellipse.dat", &p, &err), CF_BAD_INPUT);
    ck_assert(access("/tmp/cflab-never-written-ellipse.dat", F_OK) != 0);
    cf_fc_free(&p);
}
END_TEST

/* Residuals are positively homogeneous: with W fixed, q -> 2^k q and r -> 2^k r give u -> 2^k u,
   every error vector scales by 2^k exactly, so the residual must be 2^k times the plain one, also
   where its squares overflow (k = 900) or underflow (k = -900); the cone projection likewise. */
START_TEST(fc_residuals_scale_without_overflow)
{
    cfRng rng;
    cf_rng_seed(&rng, 30);
    enum { NC = 3, N = 3 * NC };
    cfTriplets T;
    ck_assert(cf_triplets_init(&T, N, N) == CF_OK);
    double G[N][N];
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) G[i][j] = cf_rng_range(&rng, -1, 1);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            double s = i == j ? 0.5 : 0.0;
            for (int k = 0; k < N; ++k) s += G[i][k] * G[j][k];
            cft_assert_at(cf_triplets_add(&T, i, j, s) == CF_OK, "i = %d, j = %d", i, j);
        }
    cfCsr A;
    ck_assert(cf_csr_from_triplets(&T, &A) == CF_OK);
    cf_triplets_free(&T);
    cfFrictionProblem p = {.nc = NC};
    ck_assert(cf_bsr_init(&p.W, NC, NC, 3, 3) == CF_OK);
    for (int a = 0; a < NC; ++a)
        for (int b = 0; b < NC; ++b) {
            double B[9];
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) B[3 * i + j] = cf_csr_get(&A, 3 * a + i, 3 * b + j);
            cft_assert_at(cf_bsr_add_block(&p.W, a, b, B) == CF_OK, "a = %d, b = %d", a, b);
        }
    cf_bsr_finalize(&p.W);
    p.q = malloc(N * sizeof *p.q);
    p.mu = malloc(NC * sizeof *p.mu);
    ck_assert(p.q && p.mu);
    double r[N], rk[N], q0[N];
    for (int i = 0; i < N; ++i) q0[i] = cf_rng_range(&rng, -1, 1), r[i] = cf_rng_range(&rng, -1, 1);
    for (int a = 0; a < NC; ++a) p.mu[a] = 0.3 + 0.2 * a;
    memcpy(p.q, q0, sizeof q0);
    const double cone = cf_fc_residual(&p, r), box = cf_fc_box_residual(&p, r), nq = cf_fc_norm_q(&p);
    ck_assert(cone > 0.1 && box > 0.1);
    /* the problem as an LCP (frictionless: W and q) and a boxed LCP (its pyramid) too */
    cfLcp lcp = {.n = N, .A = A, .b = p.q};
    cfBlcp bl;
    ck_assert(cf_blcp_init(&bl, &A) == CF_OK);
    for (int i = 0; i < N; ++i) {
        bl.b[i] = q0[i];
        if (i % 3) bl.findex[i] = i - i % 3, bl.mu[i] = p.mu[i / 3], bl.lo[i] = -INFINITY;
    }
    const double lres = cf_lcp_residual(&lcp, r), lfb = cf_lcp_residual_fb(&lcp, r), bres = cf_blcp_residual(&bl, r);
    const int ks[] = {900, -900};
    for (int j = 0; j < 2; ++j) {
        int k = ks[j];
        for (int i = 0; i < N; ++i) p.q[i] = bl.b[i] = ldexp(q0[i], k), rk[i] = ldexp(r[i], k);
        cft_assert_near_at(cf_fc_residual(&p, rk), ldexp(cone, k), 0, 1e-14, "k = %d", k);
        cft_assert_near_at(cf_fc_box_residual(&p, rk), ldexp(box, k), 0, 1e-14, "k = %d", k);
        cft_assert_near_at(cf_fc_norm_q(&p), ldexp(nq, k), 0, 1e-14, "k = %d", k);
        cft_assert_near_at(cf_lcp_residual(&lcp, rk), ldexp(lres, k), 0, 1e-14, "k = %d", k);
        cft_assert_near_at(cf_lcp_residual_fb(&lcp, rk), ldexp(lfb, k), 0, 1e-14, "k = %d", k);
        cft_assert_near_at(cf_blcp_residual(&bl, rk), ldexp(bres, k), 0, 1e-14, "k = %d", k);
        /* Siconos' measure is relative (above |q| = DBL_EPSILON): the same number at 2^900 */
        if (k < 0) continue;
        for (int i = 0; i < N; ++i) p.q[i] = q0[i];
        double rel = cf_lcp_residual_siconos(&lcp, r);
        for (int i = 0; i < N; ++i) p.q[i] = ldexp(q0[i], k);
        cft_assert_near_at(cf_lcp_residual_siconos(&lcp, rk), rel, 0, 1e-14, "k = %d", k);
    }
    /* the elliptic cone's residual too */
    p.ellipse = malloc(2 * NC * sizeof *p.ellipse);
    ck_assert(p.ellipse);
    for (int a = 0; a < NC; ++a) p.ellipse[2 * a] = 0.2 * (a + 1), p.ellipse[2 * a + 1] = a == 1 ? 0.0 : 0.7;
    memcpy(p.q, q0, sizeof q0);
    const double ell = cf_fc_residual(&p, r);
    for (int i = 0; i < N; ++i) p.q[i] = ldexp(q0[i], 900), rk[i] = ldexp(r[i], 900);
    cft_assert_near(cf_fc_residual(&p, rk), ldexp(ell, 900), 0, 1e-14);
    /* the cone projection near DBL_MAX: the direction, not the product, is scaled */
    double z[3] = {1.0, 3.0, -4.0}, zk[3], pz[3], pk[3];
    cf_cone_project(z, 0.5, pz);
    for (int i = 0; i < 3; ++i) zk[i] = ldexp(z[i], 1000);
    cf_cone_project(zk, 0.5, pk);
    for (int i = 0; i < 3; ++i) cft_assert_near_at(pk[i], ldexp(pz[i], 1000), 0, 1e-15, "i = %d", i);
    cf_blcp_free(&bl);
    cf_csr_free(&A);
    cf_fc_free(&p);
}
END_TEST

static cfCsr csr_from_dense3(const double *a, int n)
{
    cfTriplets T;
    cfCsr A;
    ck_assert(cf_triplets_init(&T, n, n) == CF_OK);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (a[i * n + j] != 0.0) cft_assert_at(cf_triplets_add(&T, i, j, a[i * n + j]) == CF_OK,
                                                   "i = %d, j = %d", i, j);
    ck_assert(cf_csr_from_triplets(&T, &A) == CF_OK);
    cf_triplets_free(&T);
    return A;
}

START_TEST(blcp_init_bounds_residual)
{
    const double a[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
    cfCsr A = csr_from_dense3(a, 3);
    cfBlcp p;
    cft_assert_ok(cf_blcp_init(&p, &A));
    ck_assert_int_eq(p.n, 3);
    for (int i = 0; i < 3; ++i)
        cft_assert_at(p.b[i] == 0.0 && p.lo[i] == 0.0 && p.hi[i] == INFINITY && p.findex[i] == -1, "i = %d", i);
    A.val[0] = 99.0; /* a copy: the problem does not see later changes */
    ck_assert(cf_csr_get(&p.A, 0, 0) == 2.0);
    cf_csr_free(&A);
    /* one contact: normal row, two friction rows bounded by mu x_0 */
    p.b[0] = -2.0, p.b[1] = 1.0, p.b[2] = 0.0;
    p.findex[1] = p.findex[2] = 0;
    p.mu[1] = p.mu[2] = 0.3;
    double x[3] = {1.0, -0.3, 0.0}, lo, hi;
    cf_blcp_bounds(&p, x, 1, &lo, &hi);
    ck_assert(lo == -0.3 && hi == 0.3);
    cf_blcp_bounds(&p, x, 0, &lo, &hi);
    ck_assert(lo == 0.0 && hi == INFINITY);
    cft_assert_near(cf_blcp_residual(&p, x), 0.0, 1e-16, 0); /* x_1 at its lower bound, w_1 = 0.4 > 0 */
    double y[3] = {1.0, 0.3, 0.0}; /* at the wrong bound: w_1 = 1.6 > 0 */
    cft_assert_near(cf_blcp_residual(&p, y), 0.6, 1e-15, 0);
    /* a negative normal value gives the empty box {0} for its friction rows */
    double z[3] = {-1.0, 0.0, 0.0};
    cf_blcp_bounds(&p, z, 2, &lo, &hi);
    ck_assert(lo == 0.0 && hi == 0.0);
    /* a free row (-inf, inf) needs w = 0 */
    p.findex[2] = -1, p.lo[2] = -INFINITY, p.hi[2] = INFINITY, p.b[2] = 1.0;
    double f[3] = {1.0, -0.3, -0.5};
    cft_assert_near(cf_blcp_residual(&p, f), 0.0, 1e-16, 0);
    f[2] = 0.0;
    cft_assert_near(cf_blcp_residual(&p, f), 1.0, 1e-16, 0);
    double nan3[3] = {NAN, 0, 0};
    ck_assert(cf_blcp_residual(&p, nan3) == INFINITY);
    cf_blcp_free(&p);
    /* not square */
    cfTriplets T;
    ck_assert(cf_triplets_init(&T, 2, 3) == CF_OK);
    ck_assert(cf_csr_from_triplets(&T, &A) == CF_OK);
    cft_assert_status(cf_blcp_init(&p, &A), CF_BAD_INPUT);
    cf_triplets_free(&T);
    cf_csr_free(&A);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* the Siconos format                                                                          */

START_TEST(fc_read_small_files)
{
    /* the dense file is column-major on disk; the single-contact file's W, q and mu by hand */
    char path[64];
    write_temp(path, "3\n1\n0\n3\n3\n3 3\n1 2 3\n4 5 6\n7 8 9\n-1 2 3\n0.25\ntrailing comment is ignored\n");
    cfFrictionProblem p;
    cfError err;
    ck_assert_msg(cf_fc_read_siconos(path, &p, &err) == CF_OK, "%s", err.msg);
    unlink(path);
    ck_assert_int_eq(p.nc, 1);
    const double want[9] = {1, 4, 7, 2, 5, 8, 3, 6, 9}; /* row-major: each text line was a column */
    for (int i = 0; i < 9; ++i) cft_assert_at(p.W.val[i] == want[i], "i = %d", i);
    ck_assert(p.q[0] == -1 && p.q[1] == 2 && p.q[2] == 3 && p.mu[0] == 0.25);
    cf_fc_free(&p);
    /* sparse-block: 2 contacts, blocks (0,0), (0,1), (1,1) */
    write_temp(path, "3 2 1 6 6 3 2 2 3 6 3 6 3 3 0 2 3 0 1 1\n"
                     "0  1 0 0 0 1 0 0 0 1\n1  1 2 3 4 5 6 7 8 9\n2  2 0 0 0 2 0 0 0 2\n"
                     "1 2 3 4 5 6\n0.1 0.2\n");
    ck_assert_msg(cf_fc_read_siconos(path, &p, &err) == CF_OK, "%s", err.msg);
    unlink(path);
    ck_assert_int_eq(p.nc, 2);
    ck_assert_int_eq(p.W.rowptr[2], 3);
    ck_assert(p.W.colidx[0] == 0 && p.W.colidx[1] == 1 && p.W.colidx[2] == 1);
    ck_assert(p.W.val[9 + 1] == 4.0 && p.W.val[9 + 3] == 2.0); /* column-major block */
    ck_assert(p.mu[1] == 0.2);
    cf_fc_free(&p);
}
END_TEST

START_TEST(fc_malformed_files)
{
    /* each malformed file gives CF_BAD_INPUT and a message with the path, the line, the token and a reason */
    static const struct {
        const char *text, *expect;
    } cases[] = {
        {"2\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n0 0 0\n0.1\n", ":1: token 1 ('2')"},
        {"3\n0\n", ":2: token 2 ('0')"},
        {"3\n1\n2\n3\n3\n", ":3: token 3 ('2'): storage type"},
        {"3\n1\n0\n6\n6\n", ":4: token 4 ('6')"},
        {"3\n1\n0\n3\n3\n3 3\n1 0 0 0 x 0 0 0 1\n0 0 0\n0.1\n", ":7: token 12 ('x'): expected a number"},
        {"3\n1\n0\n3\n3\n3 3\n1 0 0 0 nan 0 0 0 1\n0 0 0\n0.1\n", ":7: token 12 ('nan')"},
        /* decimal only: strtod() would read 0x10 as 16, which Siconos and tools/certify refuse */
        {"3\n1\n0\n3\n3\n3 3\n1 0 0 0 0x10 0 0 0 1\n0 0 0\n0.1\n", ":7: token 12 ('0x10'): expected a number"},
        {"3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n0 -0X1p-3 0\n0.1\n", ":8: token 18 ('-0X1p-3'): expected a number"},
        {"3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n0 0 0\n-0.1\n", ":9: token 20 ('-0.1'): mu[0]"},
        /* make fuzz's file (solve:1:121): a mu of 1e154 no residual in doubles can certify */
        {"3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n0 0 0\n1e154\n", ":9: token 20 ('1e154'): mu[0] = 1e+154 must be in [0, 6.71089e+07]"},
        {"3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n0 0\n", ":8: token 17: file ends early"},
        {"3\n1\n0\n3\n3\n3 3\n1 0 0\n", ":7: token 8: file ends early"},
        {"3\n1\n0\n3\n3\n3 4\n", ":6: token 7 ('4')"},
        {"3 1 1 3 3 1 1 1 4 4 2 1 0 1 0 0 1 0 0 0 1 0 0 0 1 0 0 0 0.1", ":1: token 9 ('4')"}, /* block size 4 */
        {"3 2 1 6 6 2 2 2 3 6 3 6 3 2 0 2 2 0 0 0 1 0 0 0 1 0 0 0 1 1 1 0 0 0 1 0 0 0 1 0 0 0 0 0 0 0.1 0.1",
         "listed twice"},
        {"3 1 1 3 3 1 1 1 3 3 2 1 0 1 0 7 1 0 0 0 1 0 0 0 1 0 0 0 0.1", ":1: token 16 ('7'): block number"},
        {"3 1 1 3 3 1 1 1 3 3 2 1 0 1 3 0 1 0 0 0 1 0 0 0 1 0 0 0 0.1", ":1: token 15 ('3'): block column index"},
    };
    char path[64];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        write_temp(path, cases[k].text);
        cfFrictionProblem p;
        cfError err;
        err.msg[0] = '\0';
        cfStatus st = cf_fc_read_siconos(path, &p, &err);
        unlink(path);
        ck_assert_msg(st == CF_BAD_INPUT, "case %zu: status %s", k, cf_status_name(st));
        ck_assert_msg(strstr(err.msg, path) != NULL, "case %zu: message does not name the file: %s", k,
                      err.msg);
        ck_assert_msg(strstr(err.msg, cases[k].expect) != NULL, "case %zu: expected '%s' in: %s", k,
                      cases[k].expect, err.msg);
        ck_assert(p.nc == 0 && p.q == NULL && p.W.val == NULL); /* nothing to free */
    }
    /* a file that does not exist */
    cfFrictionProblem p;
    cfError err;
    cft_assert_status(cf_fc_read_siconos("/nonexistent/cflab.dat", &p, &err), CF_IO_ERROR);
    ck_assert(strstr(err.msg, "/nonexistent/cflab.dat") != NULL);
    /* the writer refuses a problem it cannot represent */
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {0, 0, 0};
    p = one_contact(I, q, 0.5);
    p.mu[0] = -1.0;
    cft_assert_status(cf_fc_write_siconos("/tmp/cflab-never-written.dat", &p, &err), CF_BAD_INPUT);
    ck_assert(access("/tmp/cflab-never-written.dat", F_OK) != 0);
    p.mu[0] = 0.5;
    cft_assert_status(cf_fc_write_siconos("/nonexistent/dir/x.dat", &p, &err), CF_IO_ERROR);
    cf_fc_free(&p);
}
END_TEST

START_TEST(fc_dataset_references_and_round_trip)
{
    const char *dir = fc3d_dir();
    if (!dir) return;
    char **names;
    int n = list_dat(dir, &names);
    ck_assert_int_gt(n, 20);
    int with_ref = 0;
    for (int k = 0; k < n; ++k) {
        char path[2048], tmp[64];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        cfFrictionProblem p, r;
        cfError err;
        ck_assert_msg(cf_fc_read_siconos(path, &p, &err) == CF_OK, "%s", err.msg);
        ck_assert(p.nc >= 1);
        /* write, read back: identical */
        write_temp(tmp, "");
        ck_assert_msg(cf_fc_write_siconos(tmp, &p, &err) == CF_OK, "%s", err.msg);
        ck_assert_msg(cf_fc_read_siconos(tmp, &r, &err) == CF_OK, "%s", err.msg);
        unlink(tmp);
        ck_assert_msg(problems_identical(&p, &r), "%s: round trip differs", names[k]);
        /* the reference solution, when there is one: u = W r + q and a tiny residual */
        snprintf(path, sizeof path, "%s/reference/%s.ref", dir, names[k]);
        int m = 3 * p.nc;
        double *rr = malloc((size_t)m * sizeof *rr), *uu = malloc((size_t)m * sizeof *uu),
               *u = malloc((size_t)m * sizeof *u);
        ck_assert(rr && uu && u);
        if (read_ref(path, m, rr, uu)) {
            ++with_ref;
            cf_fc_velocity(&p, rr, u);
            double scale = fmax(cf_vec_norm(m, uu), cf_fc_norm_q(&p));
            for (int i = 0; i < m; ++i) cft_assert_near_at(u[i], uu[i], 1e-10 * scale, 0, "i = %d", i);
            double res = cf_fc_residual(&p, rr) / cf_fc_norm_q(&p);
            ck_assert_msg(res <= 1e-10, "%s: reference residual %g", names[k], res);
            ck_assert(cf_fc_residual(&r, rr) == cf_fc_residual(&p, rr));
        }
        free(rr);
        free(uu);
        free(u);
        cf_fc_free(&p);
        cf_fc_free(&r);
    }
    ck_assert_int_ge(with_ref, 14);
    printf("test_problem_fc: %d FC3D files read and round-tripped, %d reference solutions checked\n", n,
           with_ref);
    for (int k = 0; k < n; ++k) free(names[k]);
    free(names);
}
END_TEST

START_TEST(fc_dataset_dense_equals_sbm)
{
    /* FC3D_Example1 in dense and in sparse-block storage is the same problem */
    const char *dir = fc3d_dir();
    if (!dir) return;
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/FC3D_Example1.dat", dir);
    snprintf(b, sizeof b, "%s/FC3D_Example1_SBM.dat", dir);
    cfFrictionProblem p, q;
    cfError err;
    ck_assert_msg(cf_fc_read_siconos(a, &p, &err) == CF_OK, "%s", err.msg);
    ck_assert_msg(cf_fc_read_siconos(b, &q, &err) == CF_OK, "%s", err.msg);
    cfDense Dp, Dq;
    ck_assert(cf_bsr_to_dense(&p.W, &Dp) == CF_OK && cf_bsr_to_dense(&q.W, &Dq) == CF_OK);
    for (int i = 0; i < 81; ++i) cft_assert_at(Dp.a[i] == Dq.a[i] && Dp.a[i] == (i % 10 == 0 ? 1.0 : 0.0), "i = %d", i);
    ck_assert(memcmp(p.q, q.q, 9 * sizeof *p.q) == 0 && memcmp(p.mu, q.mu, 3 * sizeof *p.mu) == 0);
    /* the dense reader keeps the diagonal blocks only (the rest is zero) */
    ck_assert_int_eq(p.W.rowptr[3], 3);
    cf_dense_free(&Dp);
    cf_dense_free(&Dq);
    cf_fc_free(&p);
    cf_fc_free(&q);
}
END_TEST

static void build(Suite *s)
{
    TCase *tc = cft_tcase_unit(s, "cone");
    CFT_TEST(tc, fc_cone_projection_moreau, "cone projection: Moreau decomposition, optimality");
    CFT_TEST(tc, fc_cone_projection_cases, "cone projection: inside, polar, boundary, mu = 0");
    TCase *tr = cft_tcase_unit(s, "residuals");
    CFT_TEST(tr, fc_residual_known_solutions, "FC3D residual: slide, stick, separate");
    CFT_TEST(tr, fc_residual_ellipse, "FC3D residual of elliptic cones: maximal dissipation, pinned axis, box");
    CFT_TEST(tr, blcp_init_bounds_residual, "BLCP: copy, findex bounds, natural-map residual");
    CFT_TEST(tr, fc_residuals_scale_without_overflow, "residuals at 2^900 and 2^-900 scale: no overflow or underflow");
    TCase *tf = cft_tcase_unit(s, "format");
    CFT_TEST(tf, fc_read_small_files, "Siconos format: dense column-major and sparse-block");
    CFT_TEST(tf, fc_malformed_files, "malformed files: status and a message naming file and token");
    TCase *td = cft_tcase_long(s, "dataset");
    CFT_TEST(td, fc_dataset_references_and_round_trip,
             "every FC3D file: reference residuals, exact round trip");
    CFT_TEST(td, fc_dataset_dense_equals_sbm, "dense and sparse-block twins agree");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "lib-problem-fc", build); }
