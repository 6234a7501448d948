/* SPDX-License-Identifier: MIT */
/* Chapter 6, provided code (not exercises): options and checks, the Newton direction (dense LU
   or preconditioned GMRES: the linear algebra is not the lesson), the rigid contact system's
   data, and the thin wrappers that hand each root problem to the Newton loop of ch06.2.
   Specification: lib/include/cf/cf_ch06.h. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch02.h"
#include "cf/cf_ch06.h"
#include "cf/cf_gmres.h"

cfNewtonOptions cf_newton_options_default(void)
{
    cfNewtonOptions o;
    o.max_iter = 50;
    o.tol = 1e-10;
    o.sigma = 1e-4;
    o.max_backtracks = 30;
    o.penalty = 1.0;
    o.scale = true;
    o.eps = 1e-10;
    o.linear = CF_NEWTON_LINEAR_AUTO;
    o.dense_max = 2000;
    o.gmres_restart = 50;
    o.gmres_max_iter = 500;
    o.gmres_tol = 1e-2;
    return o;
}

const char *cf_ncp_kind_name(cfNcpKind k)
{
    switch (k) {
    case CF_NCP_MINMAP: return "min-map";
    case CF_NCP_FB: return "fischer-burmeister";
    case CF_NCP_KIND_COUNT: break;
    }
    return "unknown";
}

cfStatus cf_newton_options_check(const cfNewtonOptions *o, cfError *err)
{
    if (!o) return cf_error_set(err, CF_BAD_INPUT, "Newton options: NULL");
    if (o->max_iter < 0) return cf_error_set(err, CF_BAD_INPUT, "Newton options: max_iter = %d < 0", o->max_iter);
    if (!(o->tol >= 0.0)) return cf_error_set(err, CF_BAD_INPUT, "Newton options: tol = %g is not >= 0", o->tol);
    if (!(o->sigma > 0.0 && o->sigma < 0.5))
        return cf_error_set(err, CF_BAD_INPUT, "Newton options: sigma = %g is not in (0, 1/2)", o->sigma);
    if (o->max_backtracks < 0)
        return cf_error_set(err, CF_BAD_INPUT, "Newton options: max_backtracks = %d < 0", o->max_backtracks);
    if (!(o->penalty > 0.0 && o->penalty <= 1.0))
        return cf_error_set(err, CF_BAD_INPUT, "Newton options: penalty = %g is not in (0, 1]", o->penalty);
    if (!(o->eps > 0.0 && isfinite(o->eps)))
        return cf_error_set(err, CF_BAD_INPUT, "Newton options: eps = %g is not > 0", o->eps);
    if (o->linear < CF_NEWTON_LINEAR_AUTO || o->linear > CF_NEWTON_LINEAR_GMRES)
        return cf_error_set(err, CF_BAD_INPUT, "Newton options: linear = %d is not a linear solver", (int)o->linear);
    if (o->gmres_restart < 1 || o->gmres_max_iter < 1 || !(o->gmres_tol >= 0.0))
        return cf_error_set(err, CF_BAD_INPUT, "Newton options: GMRES restart %d, steps %d, tol %g", o->gmres_restart,
                            o->gmres_max_iter, o->gmres_tol);
    return CF_OK;
}

cfStatus cf_lcp_newton_check(const cfLcp *p, const double *x, cfError *err)
{
    if (!p || p->n < 0 || (p->n > 0 && (!p->b || !x)))
        return cf_error_set(err, CF_BAD_INPUT, "LCP: missing data");
    if (p->A.rows != p->n || p->A.cols != p->n)
        return cf_error_set(err, CF_BAD_INPUT, "LCP: A is %d x %d, n = %d", p->A.rows, p->A.cols, p->n);
    for (int e = 0; e < p->A.nnz; ++e)
        if (!isfinite(p->A.val[e])) return cf_error_set(err, CF_BAD_INPUT, "LCP: A entry %d is not finite", e);
    for (int i = 0; i < p->n; ++i)
        if (!isfinite(p->b[i]) || !isfinite(x[i]))
            return cf_error_set(err, CF_BAD_INPUT, "LCP: b[%d] or x[%d] is not finite", i, i);
    return CF_OK;
}

/* ---- the Newton direction ------------------------------------------------------------------ */

/* invert a k x k block in place (Gauss-Jordan with partial pivoting); false when singular */
static bool invert_block(int k, double *a)
{
    double inv[64];
    for (int i = 0; i < k * k; ++i) inv[i] = (i / k == i % k) ? 1.0 : 0.0;
    double scale = 0.0;
    for (int i = 0; i < k * k; ++i) scale = fmax(scale, fabs(a[i]));
    for (int c = 0; c < k; ++c) {
        int piv = c;
        for (int i = c + 1; i < k; ++i)
            if (fabs(a[i * k + c]) > fabs(a[piv * k + c])) piv = i;
        if (!(fabs(a[piv * k + c]) > 1e-14 * scale)) return false;
        for (int j = 0; j < k; ++j) {
            double t = a[c * k + j];
            a[c * k + j] = a[piv * k + j];
            a[piv * k + j] = t;
            t = inv[c * k + j];
            inv[c * k + j] = inv[piv * k + j];
            inv[piv * k + j] = t;
        }
        double d = a[c * k + c];
        for (int j = 0; j < k; ++j) {
            a[c * k + j] /= d;
            inv[c * k + j] /= d;
        }
        for (int i = 0; i < k; ++i) {
            if (i == c) continue;
            double f = a[i * k + c];
            if (f == 0.0) continue;
            for (int j = 0; j < k; ++j) {
                a[i * k + j] -= f * a[c * k + j];
                inv[i * k + j] -= f * inv[c * k + j];
            }
        }
    }
    memcpy(a, inv, (size_t)k * k * sizeof *a);
    return true;
}

/* block-Jacobi preconditioner: inverses of the diagonal blocks (identity where singular) */
typedef struct BlockJacobi {
    int n, k;
    double *inv; /* ceil(n / k) blocks of k x k */
} BlockJacobi;

static void block_jacobi_apply(void *ctx, const double *x, double *y)
{
    const BlockJacobi *P = ctx;
    for (int s = 0; s * P->k < P->n; ++s) {
        int k = P->n - s * P->k < P->k ? P->n - s * P->k : P->k;
        const double *B = &P->inv[(size_t)s * P->k * P->k];
        for (int i = 0; i < k; ++i) {
            double v = 0.0;
            for (int j = 0; j < k; ++j) v += B[i * k + j] * x[s * P->k + j];
            y[s * P->k + i] = v;
        }
    }
}

static cfStatus block_jacobi_init(const cfCsr *J, int k, BlockJacobi *P)
{
    P->n = J->rows;
    P->k = k;
    int nblocks = (J->rows + k - 1) / k;
    P->inv = calloc((size_t)(nblocks > 0 ? nblocks : 1) * k * k, sizeof *P->inv);
    if (!P->inv) return CF_NO_MEMORY;
    for (int s = 0; s < nblocks; ++s) {
        int m = J->rows - s * k < k ? J->rows - s * k : k;
        double *B = &P->inv[(size_t)s * k * k];
        for (int i = 0; i < m; ++i) {
            int row = s * k + i;
            for (int e = J->rowptr[row]; e < J->rowptr[row + 1]; ++e) {
                int c = J->colidx[e] - s * k;
                if (c >= 0 && c < m) B[i * m + c] = J->val[e];
            }
        }
        if (!invert_block(m, B))
            for (int i = 0; i < m * m; ++i) B[i] = (i / m == i % m) ? 1.0 : 0.0;
    }
    return CF_OK;
}

static void csr_apply(void *ctx, const double *x, double *y) { cf_csr_mul_vec(ctx, x, y); }

/* Solve D x = b in place by LU with partial pivoting (D is overwritten, b becomes x). A pivot
   below 1e-13 max|D| means singular to working precision: returns false. Written out rather than
   LAPACK's dgesv: Newton factors one small matrix after another, and a threaded BLAS on a loaded
   2-core machine spent 15 times the CPU time in wall time waiting for its workers (a world test of
   3 s took 90 s); this loop runs at the same speed for the sizes of the chapter's tests. */
static bool lu_solve(cfDense *D, double *b)
{
    int n = D->rows;
    double scale = 0.0;
    for (long i = 0; i < (long)n * n; ++i) scale = fmax(scale, fabs(D->a[i]));
    for (int k = 0; k < n; ++k) {
        int p = k;
        for (int i = k + 1; i < n; ++i)
            if (fabs(*cf_dense_at(D, i, k)) > fabs(*cf_dense_at(D, p, k))) p = i;
        double piv = *cf_dense_at(D, p, k);
        if (!(fabs(piv) > 1e-13 * scale)) return false;
        if (p != k) {
            double *rk = cf_dense_at(D, k, 0), *rp = cf_dense_at(D, p, 0);
            for (int j = 0; j < n; ++j) {
                double t = rk[j];
                rk[j] = rp[j];
                rp[j] = t;
            }
            double t = b[k];
            b[k] = b[p];
            b[p] = t;
        }
        const double *rk = cf_dense_at(D, k, 0);
        for (int i = k + 1; i < n; ++i) {
            double *ri = cf_dense_at(D, i, 0), f = ri[k] / piv;
            if (f == 0.0) continue;
            for (int j = k + 1; j < n; ++j) ri[j] -= f * rk[j];
            b[i] -= f * b[k];
        }
    }
    for (int i = n - 1; i >= 0; --i) {
        const double *ri = cf_dense_at(D, i, 0);
        double v = b[i];
        for (int j = i + 1; j < n; ++j) v -= ri[j] * b[j];
        b[i] = v / ri[i];
    }
    return cf_vec_finite(n, b);
}

/* J + delta I with delta = |H| clamped to [1e-10, 1e-2] max(1, max |J_ij|), as a dense matrix */
static void regularize(cfDense *D, double hnorm)
{
    double m = 1.0;
    for (long i = 0; i < (long)D->rows * D->cols; ++i) m = fmax(m, fabs(D->a[i]));
    double delta = fmin(fmax(hnorm, 1e-10 * m), 1e-2 * m);
    for (int i = 0; i < D->rows; ++i) *cf_dense_at(D, i, i) += delta;
}

cfStatus cf_newton_direction(const cfCsr *J, const double *rhs, const cfNewtonOptions *o, int block, double *d,
                             bool *regularized, int *gmres_iters)
{
    int n = J->rows;
    if (regularized) *regularized = false;
    if (gmres_iters) *gmres_iters = 0;
    bool lu = o->linear == CF_NEWTON_LINEAR_LU || (o->linear == CF_NEWTON_LINEAR_AUTO && n <= o->dense_max);
    if (lu) {
        cfDense D = {0}, C = {0};
        if (cf_csr_to_dense(J, &D) != CF_OK) return CF_NO_MEMORY;
        if (cf_dense_init(&C, n, n) != CF_OK) {
            cf_dense_free(&D);
            return CF_NO_MEMORY;
        }
        memcpy(C.a, D.a, (size_t)n * n * sizeof *C.a);
        memcpy(d, rhs, (size_t)n * sizeof *d);
        cfStatus st = CF_OK;
        if (!lu_solve(&C, d)) { /* singular: J + delta I, once */
            regularize(&D, cf_vec_norm(n, rhs));
            if (regularized) *regularized = true;
            memcpy(d, rhs, (size_t)n * sizeof *d);
            st = lu_solve(&D, d) ? CF_OK : CF_SINGULAR;
        }
        cf_dense_free(&D);
        cf_dense_free(&C);
        return st;
    }
    BlockJacobi P;
    cfStatus st = block_jacobi_init(J, block > 0 && block <= 8 ? block : 1, &P);
    if (st != CF_OK) return st;
    cfGmresOptions g = cf_gmres_options_default(n);
    g.restart = o->gmres_restart;
    g.max_iter = o->gmres_max_iter;
    /* inexact Newton: a relative residual min(gmres_tol, |H|) keeps the local quadratic rate
       (Dembo, Eisenstat and Steihaug 1982) without solving far from the root to 1e-12 */
    g.tol_rel = fmin(o->gmres_tol, cf_vec_norm(n, rhs));
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    memset(d, 0, (size_t)n * sizeof *d);
    st = cf_gmres(n, csr_apply, (void *)J, block_jacobi_apply, &P, rhs, d, &g, &rep);
    if (gmres_iters) *gmres_iters = rep.iterations;
    free(P.inv);
    if (st == CF_DIVERGED) return CF_SINGULAR;
    return st;
}

/* ---- the rigid contact system (ch06.5's data) --------------------------------------------- */

void cf_contact_system_free(cfContactSystem *s)
{
    free(s->M);
    free(s->p);
    free(s->bias);
    free(s->mu);
    cf_bsr_free(&s->J);
    memset(s, 0, sizeof *s);
}

int cf_contact_system_size(const cfContactSystem *s) { return 6 * s->nb + 4 * s->nc; }

static bool dynamic(const cfRigidBody *b) { return !b->fixed && b->inv_mass > 0.0; }

cfStatus cf_contact_system_rigid(const cfRigidBody *bodies, int n_bodies, const cfContact *contacts, int nc,
                                 double h, double erp, cfContactSystem *s)
{
    memset(s, 0, sizeof *s);
    if (!(h > 0.0) || !(erp >= 0.0 && erp <= 1.0) || nc < 0 || n_bodies < 0) return CF_BAD_INPUT;
    int *slot = malloc((size_t)(n_bodies > 0 ? n_bodies : 1) * sizeof *slot);
    if (!slot) return CF_NO_MEMORY;
    int nb = 0;
    for (int i = 0; i < n_bodies; ++i) slot[i] = dynamic(&bodies[i]) ? nb++ : -1;
    s->nb = nb;
    s->nc = nc;
    s->M = calloc((size_t)(nb > 0 ? nb : 1) * 36, sizeof *s->M);
    s->p = calloc((size_t)(nb > 0 ? nb : 1) * 6, sizeof *s->p);
    s->bias = calloc((size_t)(nc > 0 ? nc : 1), sizeof *s->bias);
    s->mu = calloc((size_t)(nc > 0 ? nc : 1), sizeof *s->mu);
    cfStatus st = s->M && s->p && s->bias && s->mu ? CF_OK : CF_NO_MEMORY;
    for (int i = 0; st == CF_OK && i < n_bodies; ++i) {
        if (slot[i] < 0) continue;
        const cfRigidBody *b = &bodies[i];
        double *M = &s->M[36 * slot[i]], *p = &s->p[6 * slot[i]];
        double m = 1.0 / b->inv_mass;
        cfMat3 I;
        if (!cfu_mat3_inverse(b->inv_inertia_world, &I)) {
            st = CF_BAD_INPUT;
            break;
        }
        for (int r = 0; r < 3; ++r) {
            M[r * 6 + r] = m;
            for (int c = 0; c < 3; ++c) M[(3 + r) * 6 + 3 + c] = I.m[r][c];
        }
        double u[6] = {b->v.x, b->v.y, b->v.z, b->w.x, b->w.y, b->w.z};
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 6; ++c) p[r] += M[r * 6 + c] * u[c];
    }
    if (st == CF_OK) st = cf_bsr_init(&s->J, nc, nb > 0 ? nb : 1, 3, 6);
    for (int a = 0; st == CF_OK && a < nc; ++a) {
        const cfContact *c = &contacts[a];
        int ia = c->body_a, ib = c->body_b;
        if (ia >= n_bodies || ib >= n_bodies || (ia >= 0 && ia == ib)) {
            st = CF_BAD_INPUT;
            break;
        }
        const cfRigidBody *A = ia >= 0 ? &bodies[ia] : NULL, *B = ib >= 0 ? &bodies[ib] : NULL;
        double Ja[3][6], Jb[3][6];
        st = cf_contact_jacobian_rigid(c, A, B, Ja, Jb);
        if (st != CF_OK) break;
        if (ia >= 0 && slot[ia] >= 0) st = cf_bsr_add_block(&s->J, a, slot[ia], &Ja[0][0]);
        if (st == CF_OK && ib >= 0 && slot[ib] >= 0) st = cf_bsr_add_block(&s->J, a, slot[ib], &Jb[0][0]);
        s->bias[a] = c->phi >= 0.0 ? c->phi / h : erp * c->phi / h;
        s->mu[a] = c->mu;
    }
    free(slot);
    if (st != CF_OK) {
        cf_contact_system_free(s);
        return st;
    }
    cf_bsr_finalize(&s->J);
    return CF_OK;
}

/* ---- the wrappers: each root problem handed to the Newton loop ---------------------------- */

typedef struct LcpCtx {
    const cfLcp *p;
    const cfBlcp *bp;
    const double *r;
    double penalty;
    cfNcpKind kind;
} LcpCtx;

static cfStatus lcp_eval(void *ctx, const double *x, double *H, cfTriplets *J)
{
    const LcpCtx *c = ctx;
    return c->kind == CF_NCP_MINMAP ? cf_lcp_minmap_eval(c->p, c->r, x, H, J)
                                    : cf_lcp_fb_eval(c->p, c->r, c->penalty, x, H, J);
}
static double lcp_res(void *ctx, const double *x) { return cf_lcp_residual(((const LcpCtx *)ctx)->p, x); }

static cfStatus refuse(cfReport *rep, cfStatus st)
{
    if (rep) rep->status = st;
    return st;
}

static cfStatus lcp_newton(const cfLcp *p, cfNcpKind kind, const cfNewtonOptions *o, double *x, cfReport *rep)
{
    if (cf_lcp_newton_check(p, x, NULL) != CF_OK || cf_newton_options_check(o, NULL) != CF_OK)
        return refuse(rep, CF_BAD_INPUT);
    double *r = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof *r);
    if (!r) return refuse(rep, CF_NO_MEMORY);
    if (o->scale) cf_lcp_r_scaling(p, r);
    else
        for (int i = 0; i < p->n; ++i) r[i] = 1.0;
    LcpCtx c = {.p = p, .r = r, .penalty = o->penalty, .kind = kind};
    cfNewtonSystem sys = {.n = p->n, .ctx = &c, .eval = lcp_eval, .residual = lcp_res, .block_size = 1};
    cfStatus st = cf_newton_solve(&sys, o, x, rep, NULL);
    free(r);
    return st;
}

cfStatus cf_lcp_newton_minmap(const cfLcp *p, const cfNewtonOptions *o, double *x, cfReport *rep)
{
    return lcp_newton(p, CF_NCP_MINMAP, o, x, rep);
}

cfStatus cf_lcp_newton_fb(const cfLcp *p, const cfNewtonOptions *o, double *x, cfReport *rep)
{
    return lcp_newton(p, CF_NCP_FB, o, x, rep);
}

static cfStatus blcp_eval(void *ctx, const double *x, double *H, cfTriplets *J)
{
    const LcpCtx *c = ctx;
    return cf_blcp_midmap_eval(c->bp, c->r, x, H, J);
}
static double blcp_res(void *ctx, const double *x) { return cf_blcp_residual(((const LcpCtx *)ctx)->bp, x); }

cfStatus cf_blcp_newton(const cfBlcp *p, const cfNewtonOptions *o, double *x, cfReport *rep)
{
    cfLcp view = {.n = p ? p->n : 0, .A = p ? p->A : (cfCsr){0}, .b = p ? p->b : NULL};
    if (!p || cf_lcp_newton_check(&view, x, NULL) != CF_OK || cf_newton_options_check(o, NULL) != CF_OK)
        return refuse(rep, CF_BAD_INPUT);
    for (int i = 0; i < p->n; ++i) {
        bool bad_f = p->findex[i] >= p->n || (p->findex[i] >= 0 && !(p->mu[i] >= 0.0));
        if (bad_f || (p->findex[i] < 0 && !(p->lo[i] <= p->hi[i]))) return refuse(rep, CF_BAD_INPUT);
    }
    double *r = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof *r);
    if (!r) return refuse(rep, CF_NO_MEMORY);
    if (o->scale) cf_lcp_r_scaling(&view, r);
    else
        for (int i = 0; i < p->n; ++i) r[i] = 1.0;
    LcpCtx c = {.bp = p, .r = r};
    cfNewtonSystem sys = {.n = p->n, .ctx = &c, .eval = blcp_eval, .residual = blcp_res, .block_size = 3};
    cfStatus st = cf_newton_solve(&sys, o, x, rep, NULL);
    free(r);
    return st;
}

typedef struct SystemCtx {
    const cfContactSystem *s;
    cfNcpKind kind;
    double eps;
    double *F;
} SystemCtx;

static cfStatus system_eval(void *ctx, const double *x, double *F, cfTriplets *J)
{
    const SystemCtx *c = ctx;
    return cf_contact_system_eval(c->s, c->kind, 1.0, c->eps, x, F, J);
}
static double system_res(void *ctx, const double *x)
{
    const SystemCtx *c = ctx;
    int n = cf_contact_system_size(c->s);
    if (cf_contact_system_eval(c->s, c->kind, 1.0, c->eps, x, c->F, NULL) != CF_OK) return INFINITY;
    return cf_vec_norm(n, c->F);
}

cfStatus cf_contact_system_newton(const cfContactSystem *s, cfNcpKind kind, const cfNewtonOptions *o, double *x,
                                  cfReport *rep)
{
    if (!s || cf_newton_options_check(o, NULL) != CF_OK || kind < 0 || kind >= CF_NCP_KIND_COUNT)
        return refuse(rep, CF_BAD_INPUT);
    int n = cf_contact_system_size(s);
    if (!cf_vec_finite(n, x)) return refuse(rep, CF_BAD_INPUT);
    SystemCtx c = {.s = s, .kind = kind, .eps = o->eps, .F = malloc((size_t)(n > 0 ? n : 1) * sizeof(double))};
    if (!c.F) return refuse(rep, CF_NO_MEMORY);
    cfNewtonSystem sys = {.n = n, .ctx = &c, .eval = system_eval, .residual = system_res, .block_size = 1};
    cfStatus st = cf_newton_solve(&sys, o, x, rep, NULL);
    free(c.F);
    return st;
}

typedef struct FcCtx {
    const cfFrictionProblem *p;
    const double *rho;
} FcCtx;

static cfStatus fc_eval(void *ctx, const double *r, double *Phi, cfTriplets *J)
{
    const FcCtx *c = ctx;
    return cf_fc_ac_eval(c->p, c->rho, r, Phi, J);
}
static double fc_res(void *ctx, const double *r) { return cf_fc_residual(((const FcCtx *)ctx)->p, r); }

cfStatus cf_fc_newton_ac(const cfFrictionProblem *p, const cfNewtonOptions *o, double *r, cfReport *rep)
{
    if (!p || p->nc < 0 || cf_newton_options_check(o, NULL) != CF_OK) return refuse(rep, CF_BAD_INPUT);
    if (p->W.br != 3 || p->W.bc != 3 || p->W.brows != p->nc || p->W.bcols != p->nc) return refuse(rep, CF_BAD_INPUT);
    int n = 3 * p->nc;
    if (!cf_vec_finite(n, p->q) || !cf_vec_finite(n, r) || !cf_vec_finite(9 * p->W.nnzb, p->W.val))
        return refuse(rep, CF_BAD_INPUT);
    for (int a = 0; a < p->nc; ++a)
        if (!(p->mu[a] >= 0.0) || isinf(p->mu[a])) return refuse(rep, CF_BAD_INPUT);
    double *rho = malloc((size_t)(p->nc > 0 ? p->nc : 1) * sizeof *rho);
    if (!rho) return refuse(rep, CF_NO_MEMORY);
    if (o->scale) cf_fc_rho_scaling(p, rho);
    else
        for (int a = 0; a < p->nc; ++a) rho[a] = 1.0;
    FcCtx c = {.p = p, .rho = rho};
    cfNewtonSystem sys = {.n = n, .ctx = &c, .eval = fc_eval, .residual = fc_res, .block_size = 3};
    cfStatus st = cf_newton_solve(&sys, o, r, rep, NULL);
    free(rho);
    return st;
}
