/* SPDX-License-Identifier: MIT */
/* Chapter 10, provided (not exercises; copied unchanged into exercises/ch10/ and not handed in):
   structure direction fields, the ellipse of a problem and of a contact (the world's frames),
   the isotropic equivalent of an elliptic problem, the options and the Newton wrapper, height-field
   normals and the residual of the directional box. */
#include "cf/cf_ch10.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch02.h"

const char *cf_field_kind_name(cfFieldKind k)
{
    switch (k) {
    case CF_FIELD_WORLD: return "world";
    case CF_FIELD_BODY: return "body";
    case CF_FIELD_CIRCLES: return "circles";
    case CF_FIELD_KIND_COUNT: break;
    }
    return "unknown";
}

cfVec3 cf_direction_field_at(const cfDirectionField *f, cfVec3 p, const cfRigidBody *body)
{
    switch (f->kind) {
    case CF_FIELD_WORLD: return f->dir;
    case CF_FIELD_BODY: return body ? cfu_quat_rotate(body->q, f->dir) : f->dir;
    case CF_FIELD_CIRCLES: return cfu_cross(f->axis, cfu_sub(p, f->center));
    case CF_FIELD_KIND_COUNT: break;
    }
    return cfu_zero3();
}

cfStatus cf_direction_field_check(const cfDirectionField *f, const char *what, cfError *err)
{
    if (!(f->kind >= 0 && f->kind < CF_FIELD_KIND_COUNT))
        return cf_error_set(err, CF_BAD_INPUT, "%s: unknown field kind %d", what, (int)f->kind);
    bool circles = f->kind == CF_FIELD_CIRCLES;
    cfVec3 v = circles ? f->axis : f->dir;
    if (!cfu_vec3_finite(v) || !(cfu_norm(v) > 1e-12) || (circles && !cfu_vec3_finite(f->center)))
        return cf_error_set(err, CF_BAD_INPUT, "%s: the %s must be a finite vector of non-zero length", what,
                            circles ? "axis" : "direction");
    return CF_OK;
}

void cf_fc_ellipse_of(const cfFrictionProblem *p, int a, double mu_tb[2])
{
    mu_tb[0] = p->ellipse ? p->ellipse[2 * a] : p->mu[a];
    mu_tb[1] = p->ellipse ? p->ellipse[2 * a + 1] : p->mu[a];
}

cfStatus cf_fc_isotropic_equivalent(const cfFrictionProblem *p, cfFrictionProblem *iso, double *scale)
{
    memset(iso, 0, sizeof *iso);
    int nc = p->nc;
    if (nc < 0 || (nc > 0 && (p->W.br != 3 || p->W.bc != 3 || p->W.brows != nc || p->W.bcols != nc)))
        return CF_BAD_INPUT;
    /* S_a = diag(1, mu_t / m, mu_b / m) with m = mu[a] (1 when m = 0) */
    for (int a = 0; a < nc; ++a) {
        double mu_tb[2], m = p->mu[a];
        cf_fc_ellipse_of(p, a, mu_tb);
        if (!(isfinite(m) && m >= 0.0 && isfinite(mu_tb[0]) && isfinite(mu_tb[1]) && mu_tb[0] >= 0.0 &&
              mu_tb[1] >= 0.0 && mu_tb[0] <= m && mu_tb[1] <= m))
            return CF_BAD_INPUT;
        for (int k = 0; k < 2; ++k) scale[2 * a + k] = m > 0.0 ? mu_tb[k] / m : 1.0;
    }
    iso->nc = nc;
    iso->q = malloc((size_t)(3 * nc > 0 ? 3 * nc : 1) * sizeof *iso->q);
    iso->mu = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *iso->mu);
    cfStatus st = iso->q && iso->mu ? cf_bsr_init(&iso->W, nc, nc, 3, 3) : CF_NO_MEMORY;
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        double sa[3] = {1.0, scale[2 * a], scale[2 * a + 1]};
        iso->mu[a] = p->mu[a];
        for (int k = 0; k < 3; ++k) iso->q[3 * a + k] = sa[k] * p->q[3 * a + k];
        for (int e = p->W.rowptr[a]; e < p->W.rowptr[a + 1] && st == CF_OK; ++e) {
            int c = p->W.colidx[e];
            double sc[3] = {1.0, scale[2 * c], scale[2 * c + 1]}, B[9];
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) B[3 * i + j] = sa[i] * p->W.val[9 * e + 3 * i + j] * sc[j];
            st = cf_bsr_add_block(&iso->W, a, c, B);
        }
    }
    if (st == CF_OK) cf_bsr_finalize(&iso->W);
    else cf_fc_free(iso);
    return st;
}

cfStatus cf_aniso_problem_from_fc(const cfFrictionProblem *fc, cfProxProblem *p)
{
    cfStatus st = cf_prox_problem_from_fc(fc, p);
    if (st != CF_OK || !fc->ellipse) return st;
    for (int a = 0; a < fc->nc; ++a) {
        double mu_tb[2];
        cf_fc_ellipse_of(fc, a, mu_tb);
        if (!(isfinite(mu_tb[0]) && isfinite(mu_tb[1]) && mu_tb[0] >= 0.0 && mu_tb[1] >= 0.0)) {
            cf_prox_problem_free(p);
            return CF_BAD_INPUT;
        }
        p->mu[3 * a] = mu_tb[0];
        p->mu[3 * a + 1] = mu_tb[1];
    }
    return CF_OK;
}

/* the contact's law (in its extra) becomes the ellipse (mu_t, mu_b) along the frame's t */
static void set_ellipse(cfContact *c, double mu_t, double mu_b)
{
    cfFriction *f = &c->extra->friction;
    f->law = CF_LAW_ORTHOTROPIC;
    f->dir = c->t;
    f->coef[0] = mu_t;
    f->coef[1] = mu_b;
    f->coef[2] = f->coef[3] = 0.0;
    c->mu = fmax(mu_t, mu_b);
}

cfStatus cf_contact_ellipse_frame(cfContact *c)
{
    if (cf_contact_isotropic(c)) return CF_OK;
    const cfFriction *f = &c->extra->friction;
    if (f->law != CF_LAW_ORTHOTROPIC && f->law != CF_LAW_TENSOR) return CF_BAD_INPUT;
    cfStatus st = cf_contact_frame(c->n, &c->t, &c->b);
    if (st != CF_OK) return st;
    /* t along the projection of the law's direction (ch02.2's t when the direction is along n) */
    cfVec3 d = cfu_sub(f->dir, cfu_scale(cfu_dot(f->dir, c->n), c->n));
    double len = cfu_norm(d);
    if (len > 1e-9 * cfu_norm(f->dir)) {
        c->t = cfu_scale(1.0 / len, d);
        c->b = cfu_cross(c->n, c->t);
    }
    if (f->law == CF_LAW_ORTHOTROPIC) {
        set_ellipse(c, f->coef[0], f->coef[1]);
        return CF_OK;
    }
    double mu_tb[2], angle;
    st = cf_friction_tensor_cone(f->coef, mu_tb, &angle);
    if (st != CF_OK) return st;
    cfVec3 t = cfu_add(cfu_scale(cos(angle), c->t), cfu_scale(sin(angle), c->b));
    c->t = t;
    c->b = cfu_cross(c->n, t);
    set_ellipse(c, mu_tb[0], mu_tb[1]);
    return CF_OK;
}

cfStatus cf_contact_matchstick(cfContact *c, cfVec3 s_a, cfVec3 s_b, const cfMatchstick *m)
{
    if (!c->extra) return CF_BAD_INPUT;
    double mu_tb[2];
    cfStatus st = cf_matchstick_cone(c->n, s_a, s_b, m, &c->t, &c->b, mu_tb);
    if (st == CF_OK) set_ellipse(c, mu_tb[0], mu_tb[1]);
    return st;
}

cfAnisoProxOptions cf_aniso_prox_options_default(void)
{
    cfAnisoProxOptions o;
    memset(&o, 0, sizeof o);
    o.max_iter = 1000;
    o.tol = 1e-10;
    o.r = 1.0;
    o.nu = 0.9;
    o.ellipse_tol = 1e-15;
    o.scale_min = CF_PROX_SCALE_MIN;
    return o;
}

/* ---- Newton on the NCP system ------------------------------------------------------------- */

typedef struct NcpCtx {
    const cfFrictionProblem *p;
    double *r; /* 3 nc scratch: the impulses of x */
} NcpCtx;

static cfStatus ncp_eval(void *ctx, const double *x, double *H, cfTriplets *J)
{
    const NcpCtx *c = ctx;
    return cf_fc_aniso_ncp_eval(c->p, x, H, J);
}

static double ncp_residual(void *ctx, const double *x)
{
    const NcpCtx *c = ctx;
    for (int a = 0; a < c->p->nc; ++a) memcpy(&c->r[3 * a], &x[4 * a], 3 * sizeof *c->r);
    return cf_fc_residual(c->p, c->r);
}

cfStatus cf_fc_newton_aniso(const cfFrictionProblem *p, const cfNewtonOptions *o, double *r, cfReport *rep)
{
    bool ok = p && r && p->nc >= 0 && cf_newton_options_check(o, NULL) == CF_OK;
    if (ok && p->nc > 0)
        ok = p->W.br == 3 && p->W.bc == 3 && p->W.brows == p->nc && p->W.bcols == p->nc &&
             cf_vec_finite(3 * p->nc, p->q) && cf_vec_finite(3 * p->nc, r) && cf_vec_finite(9 * p->W.nnzb, p->W.val);
    for (int a = 0; ok && a < p->nc; ++a) {
        double mu_tb[2];
        cf_fc_ellipse_of(p, a, mu_tb);
        ok = isfinite(p->mu[a]) && p->mu[a] >= 0.0 && isfinite(mu_tb[0]) && isfinite(mu_tb[1]) && mu_tb[0] >= 0.0 &&
             mu_tb[1] >= 0.0;
    }
    if (!ok) {
        if (rep) rep->status = CF_BAD_INPUT;
        return CF_BAD_INPUT;
    }
    int nc = p->nc;
    double *x = calloc((size_t)(4 * nc > 0 ? 4 * nc : 1), sizeof *x), *scratch = malloc((size_t)(3 * nc > 0 ? 3 * nc : 1) * sizeof *scratch);
    if (!x || !scratch) {
        free(x), free(scratch);
        if (rep) rep->status = CF_NO_MEMORY;
        return CF_NO_MEMORY;
    }
    for (int a = 0; a < nc; ++a) memcpy(&x[4 * a], &r[3 * a], 3 * sizeof *x); /* beta starts at 0 */
    NcpCtx c = {.p = p, .r = scratch};
    cfNewtonSystem sys = {.n = 4 * nc, .ctx = &c, .eval = ncp_eval, .residual = ncp_residual, .block_size = 4};
    cfStatus st = cf_newton_solve(&sys, o, x, rep, NULL);
    if (st != CF_NOT_IMPLEMENTED)
        for (int a = 0; a < nc; ++a) memcpy(&r[3 * a], &x[4 * a], 3 * sizeof *r);
    free(x), free(scratch);
    if (rep) rep->measure = CF_MEASURE_NATURAL_MAP;
    return st;
}

/* ---- textures ----------------------------------------------------------------------------- */

cfVec3 cf_height_field_normal(const cfHeightField *hf, cfVec3 x)
{
    cfVec3 d = cfu_sub(x, hf->origin);
    double gu = cfu_dot(d, hf->u) / hf->cell, gv = cfu_dot(d, hf->v) / hf->cell;
    double fu = floor(gu), fv = floor(gv), su = gu - fu, sv = gv - fv;
    /* the four corners of the cell, periodic */
    int i0 = (int)(((long)fu % hf->nx + hf->nx) % hf->nx), j0 = (int)(((long)fv % hf->ny + hf->ny) % hf->ny);
    int i1 = (i0 + 1) % hf->nx, j1 = (j0 + 1) % hf->ny;
    double h00 = hf->h[j0 * hf->nx + i0], h10 = hf->h[j0 * hf->nx + i1], h01 = hf->h[j1 * hf->nx + i0],
           h11 = hf->h[j1 * hf->nx + i1];
    /* slopes of the bilinear interpolation */
    double hu = ((1.0 - sv) * (h10 - h00) + sv * (h11 - h01)) / hf->cell;
    double hv = ((1.0 - su) * (h01 - h00) + su * (h11 - h10)) / hf->cell;
    cfVec3 w = cfu_cross(hf->u, hf->v);
    return cfu_normalize(cfu_sub(w, cfu_add(cfu_scale(hu, hf->u), cfu_scale(hv, hf->v))));
}

double cf_fc_texture_residual(const cfFrictionProblem *p, const double *mu4, const double *r)
{
    int n = 3 * p->nc;
    if (n == 0) return 0.0;
    if (!cf_vec_finite(n, r)) return INFINITY;
    double *u = malloc((size_t)n * sizeof *u);
    if (!u) return INFINITY;
    cf_fc_velocity(p, r, u);
    double sum = 0.0;
    for (int a = 0; a < p->nc; ++a) {
        const double *ra = &r[3 * a], *ua = &u[3 * a], *m = &mu4[4 * a];
        double ln = fmax(ra[0], 0.0), en = ra[0] - fmax(0.0, ra[0] - ua[0]);
        sum += en * en;
        for (int k = 0; k < 2; ++k) {
            double e = ra[1 + k] - fmax(-m[k] * ln, fmin(ra[1 + k] - ua[1 + k], m[2 + k] * ln));
            sum += e * e;
        }
    }
    free(u);
    return isfinite(sum) ? sqrt(sum) : INFINITY;
}
