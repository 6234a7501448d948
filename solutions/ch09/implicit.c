/* SPDX-License-Identifier: MIT */
/* Chapter 9, exercise ch09.7 (part 1): paper 003's soft constraints: the cubic penalty, the
   stiffness bump, the sliding profiles, dual numbers, and the total force with friction whose
   normal force and tangent projector are evaluated at the end of the step, with its Jacobians.
   Specification: lib/include/cf/cf_ch09.h; text: chapters/ch09/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch09.h"

double cf_cubic_penalty(double d, double delta, double kappa, double *db, double *d2b)
{
    //> ch09:cubic-penalty
    // BEGIN SOLUTION ch09.7
    double e = d < delta ? delta - d : 0.0; /* 0 beyond delta: all three vanish there */
    if (db) *db = -3.0 * kappa * e * e / delta;
    if (d2b) *d2b = 6.0 * kappa * e / delta;
    return kappa * e * e * e / delta;
    // END SOLUTION
    // STUB ch09.7: return CF_TODO_F("ch09.7");
    //< ch09:cubic-penalty
}

double cf_implicit_bump(double d_min, double delta)
{
    //> ch09:bump
    // BEGIN SOLUTION ch09.7
    if (d_min >= 0.0) return 1.0;
    double r = (delta - d_min) / (0.5 * delta); /* b'(d_min) / b'(delta/2) */
    return r * r;
    // END SOLUTION
    // STUB ch09.7: return CF_TODO_F("ch09.7");
    //< ch09:bump
}

double cf_slide_profile(cfSlideProfile p, double x, double eps, double *ds)
{
    //> ch09:slide-profile
    // BEGIN SOLUTION ch09.7
    double s, d;
    if (p == CF_SLIDE_RATIONAL) {
        s = x / (x + eps);
        d = eps / ((x + eps) * (x + eps));
    } else if (x < eps) {
        double t = x / eps;
        s = t * (2.0 - t);
        d = 2.0 * (1.0 - t) / eps;
    } else {
        s = 1.0, d = 0.0;
    }
    if (ds) *ds = d;
    return s;
    // END SOLUTION
    // STUB ch09.7: return CF_TODO_F("ch09.7");
    //< ch09:slide-profile
}

double cf_volume_penalty(double V, double V0, double beta, double *dW)
{
    //> ch09:volume-penalty
    // BEGIN SOLUTION ch09.7
    double e = V - V0;
    if (dW) *dW = e / (beta * V0);
    return e * e / (2.0 * beta * V0);
    // END SOLUTION
    // STUB ch09.7: return CF_TODO_F("ch09.7");
    //< ch09:volume-penalty
}

double cf_mesh_volume(int n, const double *q, int n_tri, const int (*tri)[3], double *grad)
{
    //> ch09:mesh-volume
    // BEGIN SOLUTION ch09.7
    if (grad) memset(grad, 0, (size_t)3 * n * sizeof *grad);
    double V = 0.0;
    for (int t = 0; t < n_tri; ++t) {
        cfVec3 x[3];
        for (int k = 0; k < 3; ++k) x[k] = cf_ipc_node(q, tri[t][k]);
        V += cfu_dot(x[0], cfu_cross(x[1], x[2])) / 6.0;
        if (grad)
            for (int k = 0; k < 3; ++k) { /* node k: (x_{k+1} x x_{k+2}) / 6 */
                cfVec3 g = cfu_scale(1.0 / 6.0, cfu_cross(x[(k + 1) % 3], x[(k + 2) % 3]));
                for (int l = 0; l < 3; ++l) grad[3 * tri[t][k] + l] += cfu_vec3_at(g, l);
            }
    }
    return V;
    // END SOLUTION
    // STUB ch09.7: return CF_TODO_F("ch09.7");
    //< ch09:mesh-volume
}

//> ch09:dual
cfDual cf_dual_mul(cfDual a, cfDual b)
{
    // BEGIN SOLUTION ch09.7
    return (cfDual){a.re * b.re, a.du * b.re + a.re * b.du};
    // END SOLUTION
    // STUB ch09.7: CF_TODO("ch09.7");
    // STUB ch09.7: return cf_dual(0.0);
}

cfDual cf_dual_div(cfDual a, cfDual b)
{
    // BEGIN SOLUTION ch09.7
    double q = a.re / b.re;
    return (cfDual){q, (a.du - q * b.du) / b.re};
    // END SOLUTION
    // STUB ch09.7: CF_TODO("ch09.7");
    // STUB ch09.7: return cf_dual(0.0);
}

cfDual cf_dual_sqrt(cfDual a)
{
    // BEGIN SOLUTION ch09.7
    double r = sqrt(a.re);
    return (cfDual){r, a.du == 0.0 ? 0.0 : a.du / (2.0 * r)};
    // END SOLUTION
    // STUB ch09.7: CF_TODO("ch09.7");
    // STUB ch09.7: return cf_dual(0.0);
}

cfDual cf_dual_log(cfDual a)
{
    // BEGIN SOLUTION ch09.7
    return (cfDual){log(a.re), a.du / a.re};
    // END SOLUTION
    // STUB ch09.7: CF_TODO("ch09.7");
    // STUB ch09.7: return cf_dual(0.0);
}

cfDual cf_dual_pow(cfDual a, double p)
{
    // BEGIN SOLUTION ch09.7
    double r = pow(a.re, p - 1.0);
    return (cfDual){r * a.re, p * r * a.du};
    // END SOLUTION
    // STUB ch09.7: CF_TODO("ch09.7");
    // STUB ch09.7: return cf_dual(0.0);
}
//< ch09:dual

// BEGIN SOLUTION ch09.7
/* a 3-vector of dual numbers */
typedef struct DVec3 {
    cfDual x[3];
} DVec3;

static DVec3 dvec_at(const cfDual *a, int i) { return (DVec3){{a[3 * i], a[3 * i + 1], a[3 * i + 2]}}; }

static cfDual dvec_dot(DVec3 a, DVec3 b)
{
    cfDual s = cf_dual(0.0);
    for (int k = 0; k < 3; ++k) s = cf_dual_add(s, cf_dual_mul(a.x[k], b.x[k]));
    return s;
}

static DVec3 dvec_cross(DVec3 a, DVec3 b)
{
    DVec3 c;
    for (int k = 0; k < 3; ++k) {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        c.x[k] = cf_dual_sub(cf_dual_mul(a.x[i], b.x[j]), cf_dual_mul(a.x[j], b.x[i]));
    }
    return c;
}

static void dvec_add_to(cfDual *f, int i, cfDual s, DVec3 a) /* f_i += s a */
{
    for (int k = 0; k < 3; ++k) f[3 * i + k] = cf_dual_add(f[3 * i + k], cf_dual_mul(s, a.x[k]));
}

/* g(x) = s(x)/x and g'(x) of a profile; at x = 0 the limit g = s'(0), and g' is given as 0 since
   it only ever multiplies w = 0 there */
static double profile_over_x(cfSlideProfile p, double x, double eps, double *dg)
{
    double ds, s = cf_slide_profile(p, x, eps, &ds);
    if (x > 0.0) {
        *dg = (ds * x - s) / (x * x);
        return s / x;
    }
    *dg = 0.0;
    return ds;
}

/* gap, normal and |x - p| (1 for a plane: dn/dx = 0 there) of a node against an obstacle, on duals */
static cfDual dual_gap(const cfImplicitObstacle *o, DVec3 x, DVec3 *n)
{
    if (o->kind == CF_IMPLICIT_PLANE) {
        cfVec3 nn = o->n;
        cfDual d = cf_dual(0.0);
        for (int k = 0; k < 3; ++k) {
            n->x[k] = cf_dual(cfu_vec3_at(nn, k));
            d = cf_dual_add(d, cf_dual_scale(cfu_vec3_at(nn, k), cf_dual_sub(x.x[k], cf_dual(cfu_vec3_at(o->p, k)))));
        }
        return d;
    }
    DVec3 e;
    for (int k = 0; k < 3; ++k) e.x[k] = cf_dual_sub(x.x[k], cf_dual(cfu_vec3_at(o->p, k)));
    cfDual len = cf_dual_sqrt(dvec_dot(e, e));
    for (int k = 0; k < 3; ++k) n->x[k] = cf_dual_div(e.x[k], len);
    return cf_dual_sub(len, cf_dual(o->radius));
}
// END SOLUTION

void cf_implicit_forces(const cfImplicitSystem *s, const cfDual *q, const cfDual *v, const double *q_lag, cfDual *f)
{
    //> ch09:soft-forces
    // BEGIN SOLUTION ch09.7
    for (int i = 0; i < s->n; ++i)
        for (int k = 0; k < 3; ++k)
            f[3 * i + k] = cf_dual(s->fixed[i] ? 0.0 : s->mass[i] * cfu_vec3_at(s->gravity, k));
    for (int e = 0; e < s->n_spring; ++e) { /* k (L - L0) e/L on a, the opposite on b */
        int a = s->spring[e][0], b = s->spring[e][1];
        DVec3 xa = dvec_at(q, a), xb = dvec_at(q, b), d;
        for (int k = 0; k < 3; ++k) d.x[k] = cf_dual_sub(xb.x[k], xa.x[k]);
        cfDual L = cf_dual_sqrt(dvec_dot(d, d));
        cfDual t = cf_dual_scale(s->stiff[e], cf_dual_div(cf_dual_sub(L, cf_dual(s->rest[e])), L));
        if (!s->fixed[a]) dvec_add_to(f, a, t, d);
        if (!s->fixed[b]) dvec_add_to(f, b, cf_dual_scale(-1.0, t), d);
    }
    for (int i = 0; i < s->n; ++i) {
        if (s->fixed[i]) continue;
        DVec3 x = dvec_at(q, i), vi = dvec_at(v, i);
        for (int o = 0; o < s->n_obst; ++o) {
            DVec3 n;
            cfDual d = dual_gap(&s->obst[o], x, &n);
            double db, d2b;
            cf_cubic_penalty(d.re, s->delta, s->kappa, &db, &d2b);
            cfDual lambda = cf_dual_lift(-db, -d2b, d);
            if (d.re < s->delta) dvec_add_to(f, i, lambda, n); /* the normal force, implicit in q */
            if (s->mu == 0.0) continue;
            if (q_lag) { /* IPC's lag: lambda and n (so P) are constants of the step */
                DVec3 xl;
                for (int k = 0; k < 3; ++k) xl.x[k] = cf_dual(q_lag[3 * i + k]);
                d = dual_gap(&s->obst[o], xl, &n);
                cf_cubic_penalty(d.re, s->delta, s->kappa, &db, NULL);
                lambda = cf_dual(-db);
            }
            if (!(d.re < s->delta)) continue;
            cfDual vn = dvec_dot(n, vi);
            DVec3 w; /* the tangential velocity P v = v - n (n . v) */
            for (int k = 0; k < 3; ++k) w.x[k] = cf_dual_sub(vi.x[k], cf_dual_mul(n.x[k], vn));
            cfDual xw = cf_dual_sqrt(dvec_dot(w, w));
            double dg, g = profile_over_x(s->profile, xw.re, s->eps, &dg);
            cfDual gx = cf_dual_lift(g, dg, xw); /* eta = g(|w|) w */
            dvec_add_to(f, i, cf_dual_scale(-s->mu, cf_dual_mul(lambda, gx)), w);
        }
    }
    if (s->beta > 0.0) { /* the volume force -W'(V) grad V */
        cfDual V = cf_dual(0.0);
        for (int t = 0; t < s->n_tri; ++t)
            V = cf_dual_add(V, cf_dual_scale(1.0 / 6.0, dvec_dot(dvec_at(q, s->tri[t][0]),
                                                                 dvec_cross(dvec_at(q, s->tri[t][1]), dvec_at(q, s->tri[t][2])))));
        double dW;
        cf_volume_penalty(V.re, s->V0, s->beta, &dW);
        cfDual p = cf_dual_scale(-1.0 / 6.0, cf_dual_lift(dW, 1.0 / (s->beta * s->V0), V));
        for (int t = 0; t < s->n_tri; ++t)
            for (int k = 0; k < 3; ++k) {
                int a = s->tri[t][k];
                if (!s->fixed[a])
                    dvec_add_to(f, a, p, dvec_cross(dvec_at(q, s->tri[t][(k + 1) % 3]), dvec_at(q, s->tri[t][(k + 2) % 3])));
            }
    }
    // END SOLUTION
    // STUB ch09.7: CF_TODO("ch09.7");
    // STUB ch09.7: for (int p = 0; p < 3 * s->n; ++p) f[p] = cf_dual(0.0);
    //< ch09:soft-forces
}

// BEGIN SOLUTION ch09.7
/* a 3x3 block of a 3n x 3n row-major matrix: A(bi, bj) += s m */
static void block_add(double *A, int n3, int bi, int bj, double s, const double m[3][3])
{
    for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) A[(long)(3 * bi + k) * n3 + 3 * bj + l] += s * m[k][l];
}

/* gap, normal and dn/dx of a node at x against an obstacle */
static double real_gap(const cfImplicitObstacle *o, cfVec3 x, double n[3], double dn[3][3])
{
    cfVec3 nv;
    double d = cf_implicit_gap(o, x, &nv);
    double inv = o->kind == CF_IMPLICIT_SPHERE ? 1.0 / cfu_norm(cfu_sub(x, o->p)) : 0.0;
    for (int k = 0; k < 3; ++k) n[k] = cfu_vec3_at(nv, k);
    for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) dn[k][l] = inv * ((k == l) - n[k] * n[l]);
    return d;
}
// END SOLUTION

cfStatus cf_implicit_force_jacobian(const cfImplicitSystem *s, const double *q, const double *v, const double *q_lag,
                                    double *K, double *D)
{
    //> ch09:soft-jacobian
    // BEGIN SOLUTION ch09.7
    int n3 = 3 * s->n;
    memset(K, 0, (size_t)n3 * n3 * sizeof *K);
    memset(D, 0, (size_t)n3 * n3 * sizeof *D);
    for (int e = 0; e < s->n_spring; ++e) {
        int a = s->spring[e][0], b = s->spring[e][1];
        double d[3], L2 = 0.0;
        for (int k = 0; k < 3; ++k) d[k] = q[3 * b + k] - q[3 * a + k], L2 += d[k] * d[k];
        double L = sqrt(L2), r = s->rest[e] / L, Ks[3][3];
        for (int k = 0; k < 3; ++k)
            for (int l = 0; l < 3; ++l) Ks[k][l] = s->stiff[e] * ((k == l) * (1.0 - r) + r * d[k] * d[l] / L2);
        if (!s->fixed[a]) block_add(K, n3, a, a, -1.0, Ks), block_add(K, n3, a, b, 1.0, Ks);
        if (!s->fixed[b]) block_add(K, n3, b, b, -1.0, Ks), block_add(K, n3, b, a, 1.0, Ks);
    }
    for (int i = 0; i < s->n; ++i) {
        if (s->fixed[i]) continue;
        cfVec3 x = cf_ipc_node(q, i);
        const double *vi = v + 3 * i;
        for (int o = 0; o < s->n_obst; ++o) {
            double n[3], dn[3][3], db, d2b, B[3][3];
            double d = real_gap(&s->obst[o], x, n, dn);
            if (!(d < s->delta)) continue;
            cf_cubic_penalty(d, s->delta, s->kappa, &db, &d2b);
            double lambda = -db;
            for (int k = 0; k < 3; ++k) /* d(lambda n)/dx = n (-b'' n)^T + lambda dn/dx */
                for (int l = 0; l < 3; ++l) B[k][l] = -d2b * n[k] * n[l] + lambda * dn[k][l];
            block_add(K, n3, i, i, 1.0, B);
            if (s->mu == 0.0) continue;
            bool lag = q_lag != NULL;
            if (lag) {
                d = real_gap(&s->obst[o], cf_ipc_node(q_lag, i), n, dn);
                if (!(d < s->delta)) continue;
                cf_cubic_penalty(d, s->delta, s->kappa, &db, &d2b);
                lambda = -db;
            }
            double vn = n[0] * vi[0] + n[1] * vi[1] + n[2] * vi[2], w[3], P[3][3], E[3][3];
            for (int k = 0; k < 3; ++k) w[k] = vi[k] - n[k] * vn;
            double xw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), dg;
            double g = profile_over_x(s->profile, xw, s->eps, &dg);
            double c2 = xw > 0.0 ? dg / xw : 0.0;
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 3; ++l) {
                    P[k][l] = (k == l) - n[k] * n[l];
                    E[k][l] = g * (k == l) + c2 * w[k] * w[l];
                }
            double EP[3][3] = {{0}}, F[3][3] = {{0}};
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 3; ++l)
                    for (int m = 0; m < 3; ++m) EP[k][l] += E[k][m] * P[m][l];
            block_add(D, n3, i, i, -s->mu * lambda, EP);
            if (lag) continue;
            /* dw/dx = -((n.v) I + n v^T) dn/dx; F = -mu [eta (-b'' n)^T + lambda E dw/dx] */
            double W[3][3] = {{0}}, A[3][3];
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 3; ++l) A[k][l] = -(vn * (k == l) + n[k] * vi[l]);
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 3; ++l)
                    for (int m = 0; m < 3; ++m) W[k][l] += A[k][m] * dn[m][l];
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 3; ++l) {
                    double ew = 0.0;
                    for (int m = 0; m < 3; ++m) ew += E[k][m] * W[m][l];
                    F[k][l] = -s->mu * (g * w[k] * (-d2b * n[l]) + lambda * ew);
                }
            block_add(K, n3, i, i, 1.0, F);
        }
    }
    if (s->beta > 0.0) { /* -(1/(beta V0)) [grad V grad V^T + (V - V0) Hess V] */
        double *g = malloc((size_t)n3 * sizeof *g);
        if (!g) return CF_NO_MEMORY;
        double V = cf_mesh_volume(s->n, q, s->n_tri, (const int(*)[3])s->tri, g), w = 1.0 / (s->beta * s->V0);
        for (int r = 0; r < n3; ++r)
            if (!s->fixed[r / 3])
                for (int c = 0; c < n3; ++c) K[(long)r * n3 + c] -= w * g[r] * g[c];
        for (int t = 0; t < s->n_tri; ++t)
            for (int k = 0; k < 3; ++k) { /* blocks (k, k+1) = -[x_{k+2}]/6 and (k+1, k) = [x_{k+2}]/6 */
                int a = s->tri[t][k], b = s->tri[t][(k + 1) % 3];
                const double *y = q + 3 * s->tri[t][(k + 2) % 3];
                double X[3][3] = {{0, -y[2], y[1]}, {y[2], 0, -y[0]}, {-y[1], y[0], 0}};
                double sc = -w * (V - s->V0) / 6.0;
                if (!s->fixed[a]) block_add(K, n3, a, b, -sc, X);
                if (!s->fixed[b]) block_add(K, n3, b, a, sc, X);
            }
        free(g);
    }
    return CF_OK;
    // END SOLUTION
    // STUB ch09.7: return CF_TODO_S("ch09.7");
    //< ch09:soft-jacobian
}
