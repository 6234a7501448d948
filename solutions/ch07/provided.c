/* SPDX-License-Identifier: MIT */
/* Chapter 7, provided (not exercises; copied unchanged into exercises/ch07/ and not handed in):
   the factored problem (from an FC3D problem or from rigid contacts), its blocks and velocities,
   the PROX model's natural map, options, the input check and the end of a solve. */
#include "cf/cf_ch07.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch02.h"

void cf_prox_problem_free(cfProxProblem *p)
{
    if (!p) return;
    cf_csr_free(&p->J);
    cf_csr_free(&p->G);
    cf_csr_free(&p->Gt);
    free(p->b);
    free(p->mu);
    memset(p, 0, sizeof *p);
}

cfStatus cf_prox_problem_transpose(cfProxProblem *p)
{
    cf_csr_free(&p->Gt);
    cfTriplets t = {0};
    cfStatus st = cf_triplets_init(&t, p->nv, p->G.rows);
    for (int r = 0; r < p->G.rows && st == CF_OK; ++r)
        for (int e = p->G.rowptr[r]; e < p->G.rowptr[r + 1] && st == CF_OK; ++e)
            st = cf_triplets_add(&t, p->G.colidx[e], r, p->G.val[e]);
    if (st == CF_OK) st = cf_csr_from_triplets(&t, &p->Gt);
    cf_triplets_free(&t);
    return st;
}

static cfStatus alloc_vectors(cfProxProblem *p)
{
    int m = p->dim * p->nc;
    p->b = calloc((size_t)(m > 0 ? m : 1), sizeof *p->b);
    p->mu = calloc((size_t)(p->nc > 0 ? 3 * p->nc : 1), sizeof *p->mu);
    return p->b && p->mu ? CF_OK : CF_NO_MEMORY;
}

cfStatus cf_prox_problem_from_fc(const cfFrictionProblem *fc, cfProxProblem *p)
{
    memset(p, 0, sizeof *p);
    if (!fc || fc->nc < 0) return CF_BAD_INPUT;
    int nc = fc->nc, m = 3 * nc;
    if (nc > 0 && (fc->W.br != 3 || fc->W.bc != 3 || fc->W.brows != nc || fc->W.bcols != nc)) return CF_BAD_INPUT;
    for (int a = 0; a < nc; ++a)
        if (!(isfinite(fc->mu[a]) && fc->mu[a] >= 0.0)) return CF_BAD_INPUT;
    p->nc = nc;
    p->dim = 3;
    p->nv = m;
    cfStatus st = alloc_vectors(p);
    cfTriplets I = {0}, Wt = {0};
    if (st == CF_OK) st = cf_triplets_init(&I, m, m);
    if (st == CF_OK) st = cf_triplets_init(&Wt, m, m);
    for (int r = 0; r < m && st == CF_OK; ++r) st = cf_triplets_add(&I, r, r, 1.0);
    /* G = W^T: block (i, j) of W lands transposed at block (j, i) */
    for (int i = 0; i < nc && st == CF_OK; ++i)
        for (int e = fc->W.rowptr[i]; e < fc->W.rowptr[i + 1] && st == CF_OK; ++e) {
            const double *B = &fc->W.val[9 * e];
            double T[9];
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) T[3 * c + r] = B[3 * r + c];
            st = cf_triplets_add_block3(&Wt, fc->W.colidx[e], i, T);
        }
    if (st == CF_OK) st = cf_csr_from_triplets(&I, &p->J);
    if (st == CF_OK) st = cf_csr_from_triplets(&Wt, &p->G);
    cf_triplets_free(&I);
    cf_triplets_free(&Wt);
    if (st == CF_OK) {
        memcpy(p->b, fc->q, (size_t)m * sizeof *p->b);
        for (int a = 0; a < nc; ++a) p->mu[3 * a] = p->mu[3 * a + 1] = fc->mu[a];
    } else {
        cf_prox_problem_free(p);
    }
    return st;
}

cfStatus cf_prox_frame(cfContact *c)
{
    const cfFriction *f = cf_contact_friction(c);
    if (f->law != CF_LAW_ORTHOTROPIC) return cf_contact_frame(c->n, &c->t, &c->b);
    cfStatus st = cf_contact_frame(c->n, &c->t, &c->b);
    if (st != CF_OK) return st;
    cfVec3 d = cfu_sub(f->dir, cfu_scale(cfu_dot(f->dir, c->n), c->n));
    double len = cfu_norm(d);
    if (len > 1e-9 * fmax(1.0, cfu_norm(f->dir))) {
        c->t = cfu_scale(1.0 / len, d);
        c->b = cfu_cross(c->n, c->t);
    }
    return CF_OK;
}

/* the index of a body that can move, or -1 */
static int mover(const cfRigidBody *bodies, int i) { return (i >= 0 && !bodies[i].fixed) ? i : -1; }

cfStatus cf_prox_problem_rigid(const cfRigidBody *bodies, int nb, const cfContact *contacts, int nc, int dim,
                               double mu_tau, cfProxProblem *p)
{
    memset(p, 0, sizeof *p);
    if (nb < 0 || nc < 0 || (dim != 3 && dim != 4) || !(isfinite(mu_tau) && mu_tau >= 0.0)) return CF_BAD_INPUT;
    for (int a = 0; a < nc; ++a) {
        const cfContact *c = &contacts[a];
        if (c->body_a >= nb || c->body_b >= nb || (c->body_a == c->body_b && c->body_a >= 0)) return CF_BAD_INPUT;
        if (!(cfu_vec3_finite(c->p) && cfu_vec3_finite(c->n) && cfu_vec3_finite(c->t) && cfu_vec3_finite(c->b) &&
              isfinite(c->phi) && isfinite(c->mu) && c->mu >= 0.0))
            return CF_BAD_INPUT;
        const cfFriction *f = cf_contact_friction(c);
        if (f->law != CF_LAW_ISOTROPIC && f->law != CF_LAW_ORTHOTROPIC) return CF_BAD_INPUT;
        if (f->law == CF_LAW_ORTHOTROPIC &&
            !(isfinite(f->coef[0]) && isfinite(f->coef[1]) && f->coef[0] >= 0.0 && f->coef[1] >= 0.0))
            return CF_BAD_INPUT;
    }
    int m = dim * nc;
    p->nc = nc;
    p->dim = dim;
    p->nv = 6 * nb;
    cfStatus st = alloc_vectors(p);
    cfTriplets J = {0}, G = {0};
    if (st == CF_OK) st = cf_triplets_init(&J, m, p->nv);
    if (st == CF_OK) st = cf_triplets_init(&G, m, p->nv);
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        const cfContact *c = &contacts[a];
        const cfVec3 dir[3] = {c->n, c->t, c->b};
        for (int side = 0; side < 2 && st == CF_OK; ++side) {
            int k = mover(bodies, side == 0 ? c->body_a : c->body_b);
            if (k < 0) continue;
            const cfRigidBody *B = &bodies[k];
            double sign = side == 0 ? -1.0 : 1.0;
            cfVec3 arm = cfu_sub(c->p, B->x);
            for (int row = 0; row < dim && st == CF_OK; ++row) {
                /* linear and angular parts of the row: d and r x d (spin: 0 and n) */
                cfVec3 lin = row < 3 ? dir[row] : cfu_zero3();
                cfVec3 ang = row < 3 ? cfu_cross(arm, dir[row]) : c->n;
                cfVec3 iang = cfu_mat3_mul_vec(B->inv_inertia_world, ang);
                int r = dim * a + row;
                const double jl[3] = {lin.x, lin.y, lin.z}, ja[3] = {ang.x, ang.y, ang.z};
                const double ga[3] = {iang.x, iang.y, iang.z};
                for (int i = 0; i < 3 && st == CF_OK; ++i) {
                    if (jl[i] != 0.0) st = cf_triplets_add(&J, r, 6 * k + i, sign * jl[i]);
                    if (st == CF_OK && jl[i] != 0.0) st = cf_triplets_add(&G, r, 6 * k + i, sign * B->inv_mass * jl[i]);
                    if (st == CF_OK && ja[i] != 0.0) st = cf_triplets_add(&J, r, 6 * k + 3 + i, sign * ja[i]);
                    if (st == CF_OK && ga[i] != 0.0) st = cf_triplets_add(&G, r, 6 * k + 3 + i, sign * ga[i]);
                }
            }
        }
        double mt = c->mu, mb = c->mu;
        const cfFriction *f = cf_contact_friction(c);
        if (f->law == CF_LAW_ORTHOTROPIC) {
            mt = f->coef[0];
            mb = f->coef[1];
        }
        p->mu[3 * a] = mt;
        p->mu[3 * a + 1] = mb;
        p->mu[3 * a + 2] = dim == 4 ? mu_tau : 0.0;
    }
    if (st == CF_OK) st = cf_csr_from_triplets(&J, &p->J);
    if (st == CF_OK) st = cf_csr_from_triplets(&G, &p->G);
    cf_triplets_free(&J);
    cf_triplets_free(&G);
    if (st != CF_OK) {
        cf_prox_problem_free(p);
        return st;
    }
    /* b = J u at the bodies' current velocities */
    double *u = calloc((size_t)(p->nv > 0 ? p->nv : 1), sizeof *u);
    if (!u) {
        cf_prox_problem_free(p);
        return CF_NO_MEMORY;
    }
    for (int k = 0; k < nb; ++k) {
        const double v[6] = {bodies[k].v.x, bodies[k].v.y, bodies[k].v.z, bodies[k].w.x, bodies[k].w.y, bodies[k].w.z};
        memcpy(&u[6 * k], v, sizeof v);
    }
    cf_csr_mul_vec(&p->J, u, p->b);
    free(u);
    return CF_OK;
}

/* sparse dot product of row r of A and row s of B (both with sorted column indices) */
static double row_dot(const cfCsr *A, int r, const cfCsr *B, int s)
{
    double sum = 0.0;
    int i = A->rowptr[r], ie = A->rowptr[r + 1], j = B->rowptr[s], je = B->rowptr[s + 1];
    while (i < ie && j < je) {
        if (A->colidx[i] < B->colidx[j]) ++i;
        else if (A->colidx[i] > B->colidx[j]) ++j;
        else sum += A->val[i++] * B->val[j++];
    }
    return sum;
}

void cf_prox_block(const cfProxProblem *p, int a, double *out)
{
    int d = p->dim;
    for (int k = 0; k < d; ++k)
        for (int l = 0; l < d; ++l) out[d * k + l] = row_dot(&p->J, d * a + k, &p->G, d * a + l);
}

void cf_prox_contact_velocity(const cfProxProblem *p, const double *w, double *v)
{
    int m = p->dim * p->nc;
    cf_csr_mul_vec(&p->J, w, v);
    for (int r = 0; r < m; ++r) v[r] += p->b[r];
}

double cf_prox_natural_map(const cfProxProblem *p, const double *lambda)
{
    int d = p->dim, m = d * p->nc;
    double *w = malloc((size_t)(p->nv > 0 ? p->nv : 1) * sizeof *w), *v = malloc((size_t)(m > 0 ? m : 1) * sizeof *v);
    if (!w || !v) {
        free(w);
        free(v);
        return INFINITY;
    }
    cf_prox_w(p, lambda, w);
    cf_prox_contact_velocity(p, w, v);
    double sum = 0.0;
    for (int a = 0; a < p->nc; ++a) {
        const double *l = &lambda[d * a], *u = &v[d * a];
        double z[CF_PROX_MAX_DIM], x[CF_PROX_MAX_DIM];
        for (int k = 0; k < d; ++k) z[k] = l[k] - u[k];
        x[0] = cf_prox_normal(z[0]);
        cf_prox_friction(d - 1, &z[1], &p->mu[3 * a], x[0], NULL, false, 1e-15, &x[1]);
        for (int k = 0; k < d; ++k) sum += (l[k] - x[k]) * (l[k] - x[k]);
    }
    free(w);
    free(v);
    return isfinite(sum) ? sqrt(sum) : INFINITY;
}

cfProxOptions cf_prox_options_default(void)
{
    cfProxOptions o;
    memset(&o, 0, sizeof o);
    o.max_iter = 1000;
    o.tol_abs = 1e-6;
    o.tol_rel = 0.0;
    o.strategy = CF_RFACTOR_LOCAL;
    o.r_global = 0.0;
    o.omega = 1.0;
    o.nu = 0.0;
    o.theta = 1.0;
    o.window = 1;
    o.grow = 1.0;
    o.grow_after = 10;
    o.box = false;
    o.bound_tol = false;
    o.ellipsoid_tol = 1e-15;
    o.scale0 = 1.0;
    o.scale_min = CF_PROX_SCALE_MIN;
    return o;
}

double cf_prox_nu(const cfProxOptions *o)
{
    if (o->nu > 0.0) return o->nu;
    return o->strategy == CF_RFACTOR_LOCAL ? 0.9 : 0.5;
}

void cf_prox_adapt_init(cfProxAdapt *ad)
{
    memset(ad, 0, sizeof *ad);
    ad->scale = 1.0;
}

const double *cf_prox_friction_r(const cfProxOptions *o, const double *Ra, int dim, double rf[3])
{
    if (o->strategy != CF_RFACTOR_LOCAL) return NULL;
    for (int k = 1; k < dim; ++k) rf[k - 1] = Ra[(dim + 1) * k];
    return rf;
}

cfStatus cf_prox_check(const cfProxProblem *p, const double *lambda, const cfProxOptions *o, cfError *err)
{
    if (!p || !o || (!lambda && p && p->nc > 0)) return cf_error_set(err, CF_BAD_INPUT, "problem, options or lambda: NULL");
    if (o->max_iter < 0) return cf_error_set(err, CF_BAD_INPUT, "max_iter: must be >= 0 (got %d)", o->max_iter);
    if (!(o->tol_abs >= 0.0 && o->tol_rel >= 0.0 && isfinite(o->tol_abs) && isfinite(o->tol_rel)))
        return cf_error_set(err, CF_BAD_INPUT, "tol_abs, tol_rel: must be >= 0 and finite");
    if (!(o->omega > 0.0 && o->omega < 2.0)) return cf_error_set(err, CF_BAD_INPUT, "omega: must be in (0, 2) (got %g)", o->omega);
    if (!(o->nu >= 0.0 && o->nu <= 1.0)) return cf_error_set(err, CF_BAD_INPUT, "nu: must be in [0, 1] (got %g)", o->nu);
    if (!(o->theta > 0.0 && o->theta <= 1.0)) return cf_error_set(err, CF_BAD_INPUT, "theta: must be in (0, 1] (got %g)", o->theta);
    if (o->window < 1 || o->window > CF_PROX_WINDOW_MAX)
        return cf_error_set(err, CF_BAD_INPUT, "window: must be in [1, %d] (got %d)", CF_PROX_WINDOW_MAX, o->window);
    if (!(o->grow >= 1.0 && isfinite(o->grow)) || o->grow_after < 1)
        return cf_error_set(err, CF_BAD_INPUT, "grow: must be >= 1 and grow_after >= 1 (got %g, %d)", o->grow, o->grow_after);
    if (!(o->r_global >= 0.0 && isfinite(o->r_global)))
        return cf_error_set(err, CF_BAD_INPUT, "r_global: must be >= 0 (got %g)", o->r_global);
    if (!(o->strategy >= 0 && o->strategy < CF_RFACTOR_COUNT))
        return cf_error_set(err, CF_BAD_INPUT, "strategy: unknown value %d", (int)o->strategy);
    if (!(o->scale0 > 0.0 && o->scale0 <= 1.0)) return cf_error_set(err, CF_BAD_INPUT, "scale0: must be in (0, 1] (got %g)", o->scale0);
    if (!(o->scale_min > 0.0 && o->scale_min <= 1.0))
        return cf_error_set(err, CF_BAD_INPUT, "scale_min: must be in (0, 1] (got %g)", o->scale_min);
    if (!(o->ellipsoid_tol >= 0.0 && o->ellipsoid_tol < 1.0))
        return cf_error_set(err, CF_BAD_INPUT, "ellipsoid_tol: must be in [0, 1) (got %g)", o->ellipsoid_tol);
    if (p->dim != 3 && p->dim != 4) return cf_error_set(err, CF_BAD_INPUT, "dim: must be 3 or 4 (got %d)", p->dim);
    if (p->nc < 0 || p->nv < 0) return cf_error_set(err, CF_BAD_INPUT, "nc, nv: must be >= 0");
    int m = p->dim * p->nc;
    if (p->nc == 0) return CF_OK;
    if (p->J.rows != m || p->G.rows != m || p->J.cols != p->nv || p->G.cols != p->nv)
        return cf_error_set(err, CF_BAD_INPUT, "J, G: must be %d x %d (got %d x %d and %d x %d)", m, p->nv, p->J.rows,
                            p->J.cols, p->G.rows, p->G.cols);
    if (!cf_vec_finite(p->J.nnz, p->J.val) || !cf_vec_finite(p->G.nnz, p->G.val) || !cf_vec_finite(m, p->b))
        return cf_error_set(err, CF_BAD_INPUT, "J, G or b: non-finite entry");
    if (!cf_vec_finite(m, lambda)) return cf_error_set(err, CF_BAD_INPUT, "lambda: non-finite initial guess");
    for (int a = 0; a < p->nc; ++a) {
        for (int k = 0; k < 3; ++k)
            if (!(isfinite(p->mu[3 * a + k]) && p->mu[3 * a + k] >= 0.0))
                return cf_error_set(err, CF_BAD_INPUT, "mu[%d][%d]: must be finite and >= 0 (got %g)", a, k,
                                    p->mu[3 * a + k]);
        double B[CF_PROX_MAX_DIM * CF_PROX_MAX_DIM];
        cf_prox_block(p, a, B);
        for (int k = 0; k < p->dim; ++k)
            if (!(B[(p->dim + 1) * k] > 0.0))
                return cf_error_set(err, CF_BAD_INPUT,
                                    "A[%d][%d] = %g (contact %d, row %d): nothing moves this row, it cannot be solved for",
                                    p->dim * a + k, p->dim * a + k, B[(p->dim + 1) * k], a, k);
    }
    return CF_OK;
}

cfStatus cf_prox_finish(cfReport *rep, cfProxStats *stats, cfStopReason why, int sweeps, double merit, double t0)
{
    cfStatus st = why == CF_STOP_ABSOLUTE || why == CF_STOP_RELATIVE ? CF_OK
                  : why == CF_STOP_DIVERGENCE                        ? CF_DIVERGED
                  : why == CF_STOP_STAGNATION                        ? CF_STAGNATED
                                                                     : CF_MAX_ITER;
    if (stats) stats->reason = why;
    if (rep) {
        rep->status = st;
        rep->reason = why;
        rep->iterations = sweeps;
        rep->residual = merit;
        rep->measure = CF_MEASURE_IMPULSE_CHANGE;
        rep->seconds = cf_seconds() - t0;
    }
    return st;
}

cfStatus cf_prox_jacobi(const cfProxProblem *p, const cfProxOptions *o, double *lambda, cfReport *rep,
                        cfProxStats *stats)
{
    return cf_prox_solve(p, o, cf_prox_jacobi_sweep, lambda, rep, stats);
}

cfStatus cf_prox_gs(const cfProxProblem *p, const cfProxOptions *o, double *lambda, cfReport *rep, cfProxStats *stats)
{
    return cf_prox_solve(p, o, cf_prox_gs_sweep, lambda, rep, stats);
}

cfMoreauOptions cf_moreau_options_default(void)
{
    cfMoreauOptions o;
    memset(&o, 0, sizeof o);
    o.h = 0.01;
    o.gravity = cfu_vec3(0.0, 0.0, -9.81);
    o.gyroscopic = true;
    o.dim = 4;
    o.mu_tau = 0.01;
    o.restitution = 0.0;
    o.jacobi = false;
    o.prox = cf_prox_options_default();
    o.prox.tol_abs = 1e-3;
    o.prox.tol_rel = 1e-3;
    o.post_passes = 0;
    return o;
}

cfProxOptions cf_prox_options_of(const cfSolverParams *par)
{
    cfProxOptions o = cf_prox_options_default();
    o.max_iter = par->max_iter;
    o.tol_abs = par->tol;
    o.strategy = par->r_factor;
    o.omega = par->omega;
    o.box = par->friction == CF_FRICTION_BOX;
    o.bound_tol = par->tol > 0.0 && par->max_iter >= 1000;
    o.window = 16; /* Gauss-Seidel's merit converges without falling at every sweep */
    return o;
}

cfStatus cf_prox_solve_fc(const cfFrictionProblem *fc, cfProxSweep sweep, const cfSolverParams *par, double *scale,
                          double *r, cfReport *rep)
{
    cfProxProblem pp;
    cfStatus st = cf_prox_problem_from_fc(fc, &pp);
    if (st != CF_OK) {
        if (rep) rep->status = st;
        return st;
    }
    cfProxOptions o = cf_prox_options_of(par);
    if (scale && *scale > 0.0 && *scale <= 1.0) o.scale0 = *scale;
    cfProxStats stats;
    st = cf_prox_solve(&pp, &o, sweep, r, rep, &stats);
    /* carry the scale to the next solve, but let it recover: at most half-way back towards 1 */
    if (scale && st != CF_BAD_INPUT && st != CF_NO_MEMORY && stats.r_scale > 0.0) *scale = fmin(1.0, 2.0 * stats.r_scale);
    cf_prox_problem_free(&pp);
    return st;
}
