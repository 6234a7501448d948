/* SPDX-License-Identifier: MIT */
/* Chapter 9, provided (not exercises; copied unchanged into exercises/ch09/ and not handed in):
   the IPC system (nodes, triangles, edges, springs; its tetrahedra in provided_tet.c), its contact
   pairs, the assembled incremental potential with its gradient and PSD-projected Hessian, the
   friction lag and the time step. */
#include "cf/cf_ch09.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cfIpcOptions cf_ipc_options_default(void)
{
    cfIpcOptions o = {.direction = CF_IPC_NEWTON, .max_iter = 100, .tol = 1e-8, .ccd_fraction = 0.8,
                      .max_halvings = 60, .lag_iters = 1};
    return o;
}

cfStatus cf_ipc_init(cfIpcSystem *s, double h, double dhat, double kappa)
{
    memset(s, 0, sizeof *s);
    if (!(h > 0.0 && dhat > 0.0 && kappa > 0.0 && isfinite(h) && isfinite(dhat) && isfinite(kappa))) return CF_BAD_INPUT;
    s->h = h;
    s->dhat = dhat;
    s->kappa = kappa;
    s->eps_v = 1e-3;
    return CF_OK;
}

void cf_ipc_free(cfIpcSystem *s)
{
    if (!s) return;
    free(s->q), free(s->q_rest), free(s->u), free(s->mass), free(s->fixed), free(s->q_start), free(s->q_tilde);
    free(s->tri), free(s->edge), free(s->spring), free(s->rest), free(s->stiff), free(s->fric);
    free(s->tet), free(s->tet_Dm_inv), free(s->tet_volume), free(s->tet_mu), free(s->tet_lambda);
    free(s->edge_table);
    memset(s, 0, sizeof *s);
}

/* make room for @p need items of @p size bytes in *p (capacity *cap); false when out of memory */
double cf_ipc_resting_distance(double weight, double kappa, double dhat)
{
    double lo = 1e-12 * dhat, hi = dhat;
    for (int i = 0; i < 200; ++i) {
        double mid = 0.5 * (lo + hi), db;
        cf_ipc_barrier(mid, dhat, &db, NULL);
        if (kappa * -db > weight) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

static bool grow(void **p, int *cap, int need, size_t size)
{
    if (need <= *cap) return true;
    int c = *cap > 0 ? 2 * *cap : 8;
    while (c < need) c *= 2;
    void *n = realloc(*p, (size_t)c * size);
    if (!n) return false;
    *p = n;
    *cap = c;
    return true;
}

int cf_ipc_add_node(cfIpcSystem *s, cfVec3 x, double m, bool fixed)
{
    if (!fixed && !(m > 0.0 && isfinite(m))) return -1;
    if (!cfu_vec3_finite(x)) return -1;
    int n = s->n + 1, cap = s->cap_n;
    if (n > cap) {
        int c = cap > 0 ? 2 * cap : 16;
        double *q = realloc(s->q, (size_t)c * 3 * sizeof *q);
        if (q) s->q = q;
        double *u = realloc(s->u, (size_t)c * 3 * sizeof *u);
        if (u) s->u = u;
        double *qr = realloc(s->q_rest, (size_t)c * 3 * sizeof *qr);
        if (qr) s->q_rest = qr;
        double *qs = realloc(s->q_start, (size_t)c * 3 * sizeof *qs);
        if (qs) s->q_start = qs;
        double *qt = realloc(s->q_tilde, (size_t)c * 3 * sizeof *qt);
        if (qt) s->q_tilde = qt;
        double *m2 = realloc(s->mass, (size_t)c * sizeof *m2);
        if (m2) s->mass = m2;
        bool *f = realloc(s->fixed, (size_t)c * sizeof *f);
        if (f) s->fixed = f;
        if (!(q && u && qr && qs && qt && m2 && f)) return -1;
        s->cap_n = c;
    }
    int i = s->n;
    double xv[3] = {x.x, x.y, x.z};
    for (int a = 0; a < 3; ++a) {
        s->q[3 * i + a] = s->q_rest[3 * i + a] = s->q_start[3 * i + a] = s->q_tilde[3 * i + a] = xv[a];
        s->u[3 * i + a] = 0.0;
    }
    s->mass[i] = fixed ? 0.0 : m;
    s->fixed[i] = fixed;
    s->n = n;
    return i;
}

/* the slot of edge {a, b} in s->edge_table (open addressing, linear probing): the slot that holds
   it, or the empty slot where it goes */
static int edge_slot(const cfIpcSystem *s, int a, int b)
{
    unsigned lo = (unsigned)(a < b ? a : b), hi = (unsigned)(a < b ? b : a), mask = (unsigned)s->cap_edge_table - 1;
    for (unsigned k = (lo * 2654435761u ^ hi * 40503u) & mask;; k = (k + 1) & mask) {
        int e = s->edge_table[k] - 1;
        if (e < 0 || (s->edge[e][0] == a && s->edge[e][1] == b) || (s->edge[e][0] == b && s->edge[e][1] == a)) return (int)k;
    }
}

/* a table that holds every edge and stays at most half full (else built anew, larger) */
static bool edge_table_ready(cfIpcSystem *s)
{
    if (s->edge_table && s->n_edge_table == s->n_edge && 2 * (s->n_edge + 1) <= s->cap_edge_table) return true;
    int cap = 64;
    while (cap < 4 * (s->n_edge + 1)) cap *= 2;
    int *t = calloc((size_t)cap, sizeof *t);
    if (!t) return false;
    free(s->edge_table);
    s->edge_table = t;
    s->cap_edge_table = cap;
    for (int e = 0; e < s->n_edge; ++e) s->edge_table[edge_slot(s, s->edge[e][0], s->edge[e][1])] = e + 1;
    s->n_edge_table = s->n_edge;
    return true;
}

int cf_ipc_add_edge(cfIpcSystem *s, int a, int b)
{
    if (a < 0 || b < 0 || a >= s->n || b >= s->n || a == b) return -1;
    if (!edge_table_ready(s)) return -1;
    int k = edge_slot(s, a, b);
    if (s->edge_table[k] > 0) return s->edge_table[k] - 1; /* there already */
    if (!grow((void **)&s->edge, &s->cap_edge, s->n_edge + 1, sizeof *s->edge)) return -1;
    s->edge[s->n_edge][0] = a;
    s->edge[s->n_edge][1] = b;
    s->edge_table[k] = s->n_edge + 1;
    s->n_edge_table = s->n_edge + 1;
    return s->n_edge++;
}

int cf_ipc_add_triangle(cfIpcSystem *s, int a, int b, int c)
{
    if (a < 0 || b < 0 || c < 0 || a >= s->n || b >= s->n || c >= s->n || a == b || b == c || a == c) return -1;
    if (!grow((void **)&s->tri, &s->cap_tri, s->n_tri + 1, sizeof *s->tri)) return -1;
    if (cf_ipc_add_edge(s, a, b) < 0 || cf_ipc_add_edge(s, b, c) < 0 || cf_ipc_add_edge(s, c, a) < 0) return -1;
    s->tri[s->n_tri][0] = a;
    s->tri[s->n_tri][1] = b;
    s->tri[s->n_tri][2] = c;
    return s->n_tri++;
}

int cf_ipc_add_spring(cfIpcSystem *s, int a, int b, double k)
{
    if (a < 0 || b < 0 || a >= s->n || b >= s->n || a == b || !(k > 0.0)) return -1;
    int n = s->n_spring + 1, cap = s->cap_spring;
    if (!grow((void **)&s->spring, &cap, n, sizeof *s->spring)) return -1;
    cap = s->cap_spring;
    if (!grow((void **)&s->rest, &cap, n, sizeof *s->rest)) return -1;
    cap = s->cap_spring;
    if (!grow((void **)&s->stiff, &cap, n, sizeof *s->stiff)) return -1;
    s->cap_spring = cap;
    int i = s->n_spring;
    s->spring[i][0] = a;
    s->spring[i][1] = b;
    s->rest[i] = cfu_norm(cfu_sub(cf_ipc_node(s->q, a), cf_ipc_node(s->q, b)));
    s->stiff[i] = k;
    s->n_spring = n;
    return i;
}

int cf_ipc_add_box(cfIpcSystem *s, cfVec3 lo, cfVec3 hi, double m, double k, bool fixed)
{
    int first = s->n;
    for (int i = 0; i < 8; ++i) {
        cfVec3 x = cfu_vec3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z);
        if (cf_ipc_add_node(s, x, m / 8.0, fixed) < 0) return -1;
    }
    static const int F[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                 {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    for (int f = 0; f < 12; ++f)
        if (cf_ipc_add_triangle(s, first + F[f][0], first + F[f][1], first + F[f][2]) < 0) return -1;
    if (k > 0.0 && !fixed)
        for (int i = 0; i < 8; ++i)
            for (int j = i + 1; j < 8; ++j)
                if (cf_ipc_add_spring(s, first + i, first + j, k) < 0) return -1;
    return first;
}

int cf_ipc_for_pairs(const cfIpcSystem *s, int (*fn)(void *ctx, const int node[4], bool ee), void *ctx)
{
    if (s->pairs) { /* a broad phase's candidates (cfIpcSystem::pairs) */
        for (int k = 0; k < s->pairs->n; ++k) {
            int r = fn(ctx, s->pairs->node[k], s->pairs->ee[k]);
            if (r) return r;
        }
        return 0;
    }
    for (int t = 0; t < s->n_tri; ++t) {
        const int *tr = s->tri[t];
        bool tri_fixed = s->fixed[tr[0]] && s->fixed[tr[1]] && s->fixed[tr[2]];
        for (int v = 0; v < s->n; ++v) {
            if (v == tr[0] || v == tr[1] || v == tr[2] || (tri_fixed && s->fixed[v])) continue;
            int node[4] = {tr[0], tr[1], tr[2], v};
            int r = fn(ctx, node, false);
            if (r) return r;
        }
    }
    for (int e = 0; e < s->n_edge; ++e)
        for (int f = e + 1; f < s->n_edge; ++f) {
            const int *A = s->edge[e], *B = s->edge[f];
            if (A[0] == B[0] || A[0] == B[1] || A[1] == B[0] || A[1] == B[1]) continue;
            if (s->fixed[A[0]] && s->fixed[A[1]] && s->fixed[B[0]] && s->fixed[B[1]]) continue;
            int node[4] = {A[0], A[1], B[0], B[1]};
            int r = fn(ctx, node, true);
            if (r) return r;
        }
    return 0;
}

void cf_ipc_pair_points(const double *q, const int node[4], cfVec3 x[4])
{
    for (int i = 0; i < 4; ++i) x[i] = cf_ipc_node(q, node[i]);
}

double cf_ipc_pair_dist2(const cfVec3 x[4], bool ee, cfDistStencil *st)
{
    return ee ? cf_dist2_edge_edge(x, st) : cf_dist2_point_triangle(x, st);
}

/* true when the pair cannot be closer than r: the boxes of its two features, grown by r, are apart */
static bool pair_far(const cfVec3 x[4], bool ee, double r)
{
    int na = ee ? 2 : 3; /* feature A: x[0..na-1], feature B: the rest */
    for (int a = 0; a < 3; ++a) {
        double lo_a = INFINITY, hi_a = -INFINITY, lo_b = INFINITY, hi_b = -INFINITY;
        for (int i = 0; i < 4; ++i) {
            double v = cfu_vec3_at(x[i], a);
            if (i < na) lo_a = fmin(lo_a, v), hi_a = fmax(hi_a, v);
            else lo_b = fmin(lo_b, v), hi_b = fmax(hi_b, v);
        }
        if (lo_b > hi_a + r || lo_a > hi_b + r) return true;
    }
    return false;
}

/* IPC's mollifier threshold of an edge-edge pair: 1e-3 |e1|^2 |e2|^2 at rest */
static double ee_eps_x(const cfIpcSystem *s, const int node[4])
{
    cfVec3 r[4];
    cf_ipc_pair_points(s->q_rest, node, r);
    return 1e-3 * cfu_norm2(cfu_sub(r[1], r[0])) * cfu_norm2(cfu_sub(r[3], r[2]));
}

typedef struct MinDist {
    const cfIpcSystem *s;
    const double *q;
    double d2;
    int active;
} MinDist;

static int min_dist_pair(void *ctx, const int node[4], bool ee)
{
    MinDist *m = ctx;
    cfVec3 x[4];
    cf_ipc_pair_points(m->q, node, x);
    double d2 = cf_ipc_pair_dist2(x, ee, NULL);
    if (d2 < m->d2) m->d2 = d2;
    m->active += d2 < m->s->dhat * m->s->dhat;
    return 0;
}

double cf_ipc_min_distance(const cfIpcSystem *s, const double *q, int *active)
{
    MinDist m = {s, q, INFINITY, 0};
    cf_ipc_for_pairs(s, min_dist_pair, &m);
    if (active) *active = m.active;
    return sqrt(m.d2);
}

/* the assembly: f, gradient, the local Hessians handed to block() */
typedef struct Assembly {
    const cfIpcSystem *s;
    const double *q;
    double f, *g;
    cfIpcBlockFn block;
    void *ctx;
    bool project;
    cfStatus st;
} Assembly;

/* add the local gradient of the nodes @p node (k of them) times @p w; the local Hessian (projected
   when asked) to block() */
static void scatter(Assembly *A, int k, const int *node, const double *lg, double *lH, double w)
{
    if (A->block && A->project && cf_psd_project(3 * k, lH) != CF_OK) A->st = CF_BAD_INPUT;
    if (A->g)
        for (int i = 0; i < k; ++i)
            for (int a = 0; a < 3; ++a) A->g[3 * node[i] + a] += w * lg[3 * i + a];
    if (A->block) A->block(A->ctx, k, node, lH, w);
}

/* the dense receiver: H (3n x 3n, row-major) += w lH */
typedef struct DenseH {
    double *H;
    int N;
} DenseH;

static void dense_block(void *ctx, int k, const int *node, const double *lH, double w)
{
    DenseH *D = ctx;
    for (int i = 0; i < k; ++i)
        for (int a = 0; a < 3; ++a) {
            long p = 3 * node[i] + a;
            for (int j = 0; j < k; ++j)
                for (int b = 0; b < 3; ++b) D->H[p * D->N + 3 * node[j] + b] += w * lH[(3 * i + a) * 3 * k + 3 * j + b];
        }
}

static int barrier_pair(void *ctx, const int node[4], bool ee)
{
    Assembly *A = ctx;
    const cfIpcSystem *s = A->s;
    cfVec3 x[4];
    cf_ipc_pair_points(A->q, node, x);
    if (pair_far(x, ee, s->dhat)) return 0;
    cfDistStencil st;
    double d2 = cf_ipc_pair_dist2(x, ee, &st);
    if (d2 >= s->dhat * s->dhat) return 0;
    if (!(d2 > 0.0)) return 1; /* contact: f = +inf */
    double lg[12], lH[144];
    double b = cf_ipc_pair_barrier(x, &st, s->dhat, A->g || A->block ? lg : NULL, A->block ? lH : NULL);
    if (!isfinite(b)) return 1;
    if (ee) { /* kappa m b: the product rule with the mollifier */
        double mg[12], mH[144];
        double m = cf_ee_mollifier(x, ee_eps_x(s, node), mg, mH);
        if (A->block)
            for (int p = 0; p < 12; ++p)
                for (int q = 0; q < 12; ++q)
                    lH[p * 12 + q] = m * lH[p * 12 + q] + b * mH[p * 12 + q] + mg[p] * lg[q] + lg[p] * mg[q];
        if (A->g)
            for (int p = 0; p < 12; ++p) lg[p] = m * lg[p] + b * mg[p];
        b *= m;
    }
    A->f += s->h * s->h * s->kappa * b;
    scatter(A, 4, node, lg, lH, s->h * s->h * s->kappa);
    return 0;
}

double cf_ipc_energy_blocks(const cfIpcSystem *s, const double *q, double *g, cfIpcBlockFn block, void *ctx, bool project)
{
    int N = 3 * s->n;
    double h2 = s->h * s->h;
    Assembly A = {s, q, 0.0, g, block, ctx, project, CF_OK};
    if (g) memset(g, 0, (size_t)N * sizeof *g);
    for (int i = 0; i < s->n; ++i) { /* inertia: 1/2 |q - qt|^2_M */
        if (s->fixed[i]) continue;
        for (int a = 0; a < 3; ++a) {
            int p = 3 * i + a;
            double e = q[p] - s->q_tilde[p];
            A.f += 0.5 * s->mass[i] * e * e;
            if (g) g[p] += s->mass[i] * e;
        }
        if (block) {
            double M[9] = {s->mass[i], 0, 0, 0, s->mass[i], 0, 0, 0, s->mass[i]};
            block(ctx, 1, &i, M, 1.0);
        }
    }
    for (int k = 0; k < s->n_spring; ++k) { /* springs: 1/2 k (l - L)^2 */
        int node[2] = {s->spring[k][0], s->spring[k][1]};
        cfVec3 x = cfu_sub(cf_ipc_node(q, node[0]), cf_ipc_node(q, node[1]));
        double l = cfu_norm(x), e = l - s->rest[k], ks = s->stiff[k];
        A.f += h2 * 0.5 * ks * e * e;
        if (!(l > 0.0)) continue;
        cfVec3 n = cfu_scale(1.0 / l, x);
        /* K = ks (n n^T + (e / l)(I - n n^T)) has the eigenvalues ks (along n) and ks e / l (twice,
           across n), so [K -K; -K K] has 2 ks, 2 ks e / l (twice) and 0 (three times): its PSD
           projection clamps e / l at 0, in closed form (what cf_psd_project() gives, to rounding) */
        double c = A.project ? fmax(e / l, 0.0) : e / l;
        double lg[6], lH[36];
        for (int a = 0; a < 3; ++a) {
            lg[a] = ks * e * cfu_vec3_at(n, a);
            lg[3 + a] = -lg[a];
            for (int b = 0; b < 3; ++b) {
                double K = ks * (cfu_vec3_at(n, a) * cfu_vec3_at(n, b) + c * ((a == b) - cfu_vec3_at(n, a) * cfu_vec3_at(n, b)));
                lH[a * 6 + b] = lH[(3 + a) * 6 + 3 + b] = K;
                lH[a * 6 + 3 + b] = lH[(3 + a) * 6 + b] = -K;
            }
        }
        bool keep = A.project;
        A.project = false; /* projected above */
        scatter(&A, 2, node, lg, lH, h2);
        A.project = keep;
    }
    for (int k = 0; k < s->n_tet; ++k) { /* tetrahedra: V psi(F), projected by their 9x9 (cf_tet_neohookean()) */
        cfVec3 x[4];
        double lg[12], lH[144];
        cf_ipc_pair_points(q, s->tet[k], x);
        double e = cf_tet_neohookean(x, s->tet_Dm_inv[k], s->tet_volume[k], s->tet_mu[k], s->tet_lambda[k], g ? lg : NULL,
                                     block ? lH : NULL, project);
        if (isnan(e)) A.st = CF_BAD_INPUT;
        A.f += h2 * e;
        bool keep = A.project;
        A.project = false;
        scatter(&A, 4, s->tet[k], lg, lH, h2);
        A.project = keep;
    }
    if (cf_ipc_for_pairs(s, barrier_pair, &A)) return INFINITY;
    for (int k = 0; k < s->n_fric; ++k) { /* lagged friction */
        const cfIpcFrictionPair *p = &s->fric[k];
        double dx[12], lg[12], lH[144];
        for (int i = 0; i < 4; ++i)
            for (int a = 0; a < 3; ++a) dx[3 * i + a] = q[3 * p->node[i] + a] - s->q_start[3 * p->node[i] + a];
        A.f += h2 * cf_ipc_pair_friction(p, dx, s->mu, s->h * s->eps_v, g ? lg : NULL, block ? lH : NULL);
        bool keep = A.project;
        A.project = false; /* PSD by construction (cf_ipc_pair_friction()) */
        scatter(&A, 4, p->node, lg, lH, h2);
        A.project = keep;
    }
    if (g)
        for (int i = 0; i < s->n; ++i)
            if (s->fixed[i]) g[3 * i] = g[3 * i + 1] = g[3 * i + 2] = 0.0;
    return A.st == CF_OK ? A.f : NAN;
}

double cf_ipc_energy(const cfIpcSystem *s, const double *q, double *g, double *H, bool project)
{
    int N = 3 * s->n;
    DenseH D = {H, N};
    if (H) memset(H, 0, (size_t)N * N * sizeof *H);
    double f = cf_ipc_energy_blocks(s, q, g, H ? dense_block : NULL, &D, project);
    if (H && f != INFINITY)
        for (int i = 0; i < s->n; ++i) { /* fixed nodes: identity rows and columns */
            if (!s->fixed[i]) continue;
            for (int a = 0; a < 3; ++a) {
                int p = 3 * i + a;
                for (int c = 0; c < N; ++c) H[(long)p * N + c] = H[(long)c * N + p] = 0.0;
                H[(long)p * N + p] = 1.0;
            }
        }
    return f;
}

typedef struct Lag {
    cfIpcSystem *s;
    const double *q;
    cfStatus st;
} Lag;

static int lag_pair(void *ctx, const int node[4], bool ee)
{
    Lag *L = ctx;
    cfIpcSystem *s = L->s;
    cfVec3 x[4];
    cf_ipc_pair_points(L->q, node, x);
    if (pair_far(x, ee, s->dhat)) return 0;
    cfDistStencil st;
    double d2 = cf_ipc_pair_dist2(x, ee, &st);
    if (!(d2 < s->dhat * s->dhat && d2 > 0.0)) return 0;
    if (!grow((void **)&s->fric, &s->cap_fric, s->n_fric + 1, sizeof *s->fric)) {
        L->st = CF_NO_MEMORY;
        return 1;
    }
    cfIpcFrictionPair *p = &s->fric[s->n_fric++];
    cfVec3 r = cfu_zero3();
    for (int i = 0; i < 4; ++i) {
        p->node[i] = node[i];
        p->c[i] = st.c[i];
        r = cfu_mul_add(r, st.c[i], x[i]);
    }
    double d = sqrt(d2), db;
    cf_ipc_barrier(d, s->dhat, &db, NULL);
    p->N = s->kappa * -db * (ee ? cf_ee_mollifier(x, ee_eps_x(s, node), NULL, NULL) : 1.0);
    cfVec3 n = cfu_scale(1.0 / d, r);
    cfVec3 a = fabs(n.x) < 0.6 ? cfu_vec3(1, 0, 0) : cfu_vec3(0, 1, 0);
    p->t1 = cfu_normalize(cfu_sub(a, cfu_scale(cfu_dot(a, n), n)));
    p->t2 = cfu_cross(n, p->t1);
    return 0;
}

cfStatus cf_ipc_lag_friction(cfIpcSystem *s, const double *q)
{
    s->n_fric = 0;
    if (!(s->mu > 0.0)) return CF_OK;
    Lag L = {s, q, CF_OK};
    cf_ipc_for_pairs(s, lag_pair, &L);
    return L.st;
}

void cf_ipc_step_begin(cfIpcSystem *s)
{
    double h = s->h;
    for (int i = 0; i < s->n; ++i)
        for (int a = 0; a < 3; ++a) {
            int p = 3 * i + a;
            s->q_start[p] = s->q[p];
            s->q_tilde[p] = s->fixed[i] ? s->q[p] : s->q[p] + h * s->u[p] + h * h * cfu_vec3_at(s->gravity, a);
        }
}

cfStatus cf_ipc_step_lagged(cfIpcSystem *s, const cfIpcOptions *o, cfIpcSolveFn solve, void *ctx, cfIpcStats *stats)
{
    cfIpcStats sum = {0};
    cfStatus result = CF_OK;
    for (int l = 0; l < (o->lag_iters > 0 ? o->lag_iters : 1); ++l) {
        cfIpcStats one = {0};
        cfStatus st = cf_ipc_lag_friction(s, s->q);
        if (st == CF_OK) st = solve(ctx, s, o, &one);
        if (st == CF_NOT_IMPLEMENTED || st == CF_NO_MEMORY || st == CF_BAD_INPUT) return st;
        if (st != CF_OK) result = st;
        sum.iterations += one.iterations;
        sum.halvings += one.halvings;
        sum.ccd_clamps += one.ccd_clamps;
        sum.grad_norm = one.grad_norm;
        sum.energy = one.energy;
    }
    for (int p = 0; p < 3 * s->n; ++p) s->u[p] = (s->q[p] - s->q_start[p]) / s->h;
    sum.min_dist = cf_ipc_min_distance(s, s->q, &sum.active);
    if (stats) *stats = sum;
    return result;
}

static cfStatus newton_from_q(void *ctx, cfIpcSystem *s, const cfIpcOptions *o, cfIpcStats *one)
{
    (void)ctx;
    return cf_ipc_newton(s, s->q, o, one);
}

cfStatus cf_ipc_step(cfIpcSystem *s, const cfIpcOptions *opt, cfIpcStats *stats)
{
    cfIpcOptions o = opt ? *opt : cf_ipc_options_default();
    cf_ipc_step_begin(s);
    return cf_ipc_step_lagged(s, &o, newton_from_q, NULL, stats);
}

/* ------------------------------------------------------------------------------------------ */
/* paper 003's soft system (ch09.7): building, gaps, the stage residual and Jacobian            */

cfImplicitOptions cf_implicit_options_default(void)
{
    cfImplicitOptions o = {.linear = CF_IMPLICIT_DIRECT, .tol = 1e-11, .max_iter = 50, .c_armijo = 1e-4, .rho = 0.5,
                       .max_backtracks = 60, .eta_max = 0.1, .ew_gamma = 0.9, .ew_alpha = 2.0,
                       .max_linear = 1000, .max_bumps = 10};
    return o;
}

cfStatus cf_implicit_init(cfImplicitSystem *s, double h, double kappa, double delta)
{
    memset(s, 0, sizeof *s);
    if (!(h > 0.0 && kappa > 0.0 && delta > 0.0 && isfinite(h) && isfinite(kappa) && isfinite(delta)))
        return CF_BAD_INPUT;
    s->h = h;
    s->kappa = kappa;
    s->delta = delta;
    s->eps = 1e-3;
    s->profile = CF_SLIDE_QUADRATIC;
    return CF_OK;
}

void cf_implicit_free(cfImplicitSystem *s)
{
    if (!s) return;
    free(s->q), free(s->v), free(s->q_prev), free(s->v_prev), free(s->mass), free(s->fixed);
    free(s->spring), free(s->rest), free(s->stiff), free(s->obst), free(s->tri);
    memset(s, 0, sizeof *s);
}

int cf_implicit_add_node(cfImplicitSystem *s, cfVec3 x, cfVec3 v, double m, bool fixed)
{
    if (!fixed && !(m > 0.0 && isfinite(m))) return -1;
    if (!cfu_vec3_finite(x) || !cfu_vec3_finite(v)) return -1;
    int n = s->n + 1, c = s->cap_n;
    if (n > c) {
        c = c > 0 ? 2 * c : 8;
        double **vec[] = {&s->q, &s->v, &s->q_prev, &s->v_prev};
        for (int k = 0; k < 4; ++k) {
            double *p = realloc(*vec[k], (size_t)c * 3 * sizeof *p);
            if (!p) return -1;
            *vec[k] = p;
        }
        double *m2 = realloc(s->mass, (size_t)c * sizeof *m2);
        if (!m2) return -1;
        s->mass = m2;
        bool *f2 = realloc(s->fixed, (size_t)c * sizeof *f2);
        if (!f2) return -1;
        s->fixed = f2;
        s->cap_n = c;
    }
    int i = s->n++;
    for (int k = 0; k < 3; ++k) {
        s->q[3 * i + k] = s->q_prev[3 * i + k] = cfu_vec3_at(x, k);
        s->v[3 * i + k] = s->v_prev[3 * i + k] = fixed ? 0.0 : cfu_vec3_at(v, k);
    }
    s->mass[i] = fixed ? 1.0 : m;
    s->fixed[i] = fixed;
    s->has_prev = false;
    return i;
}

int cf_implicit_add_spring(cfImplicitSystem *s, int a, int b, double k)
{
    if (a < 0 || b < 0 || a >= s->n || b >= s->n || a == b || !(k >= 0.0 && isfinite(k))) return -1;
    double L = cfu_norm(cfu_sub(cf_ipc_node(s->q, a), cf_ipc_node(s->q, b)));
    if (!(L > 0.0)) return -1;
    if (!grow((void **)&s->spring, &s->cap_spring, s->n_spring + 1, sizeof *s->spring)) return -1;
    int c = s->cap_spring;
    double *r = realloc(s->rest, (size_t)c * sizeof *r);
    if (!r) return -1;
    s->rest = r;
    double *st = realloc(s->stiff, (size_t)c * sizeof *st);
    if (!st) return -1;
    s->stiff = st;
    int e = s->n_spring++;
    s->spring[e][0] = a, s->spring[e][1] = b;
    s->rest[e] = L;
    s->stiff[e] = k;
    return e;
}

int cf_implicit_add_obstacle(cfImplicitSystem *s, cfImplicitObstacle o)
{
    if (!cfu_vec3_finite(o.p)) return -1;
    if (o.kind == CF_IMPLICIT_PLANE) {
        double len = cfu_norm(o.n);
        if (!(len > 0.0 && isfinite(len))) return -1;
        o.n = cfu_scale(1.0 / len, o.n);
    } else if (o.kind != CF_IMPLICIT_SPHERE || !(o.radius > 0.0 && isfinite(o.radius))) {
        return -1;
    }
    if (!grow((void **)&s->obst, &s->cap_obst, s->n_obst + 1, sizeof *s->obst)) return -1;
    s->obst[s->n_obst] = o;
    return s->n_obst++;
}

int cf_implicit_add_triangle(cfImplicitSystem *s, int a, int b, int c)
{
    if (a < 0 || b < 0 || c < 0 || a >= s->n || b >= s->n || c >= s->n || a == b || b == c || a == c) return -1;
    if (!grow((void **)&s->tri, &s->cap_tri, s->n_tri + 1, sizeof *s->tri)) return -1;
    s->tri[s->n_tri][0] = a, s->tri[s->n_tri][1] = b, s->tri[s->n_tri][2] = c;
    return s->n_tri++;
}

cfStatus cf_implicit_set_volume(cfImplicitSystem *s, double beta)
{
    double V0 = cf_mesh_volume(s->n, s->q, s->n_tri, (const int(*)[3])s->tri, NULL);
    if (!(beta > 0.0 && isfinite(beta) && V0 > 0.0)) return CF_BAD_INPUT;
    s->V0 = V0;
    s->beta = beta;
    return CF_OK;
}

double cf_implicit_gap(const cfImplicitObstacle *o, cfVec3 x, cfVec3 *normal)
{
    if (o->kind == CF_IMPLICIT_PLANE) {
        if (normal) *normal = o->n;
        return cfu_dot(o->n, cfu_sub(x, o->p));
    }
    cfVec3 e = cfu_sub(x, o->p);
    double len = cfu_norm(e);
    if (normal) *normal = cfu_scale(1.0 / len, e);
    return len - o->radius;
}

double cf_implicit_min_gap(const cfImplicitSystem *s, const double *q)
{
    double d = INFINITY;
    for (int i = 0; i < s->n; ++i)
        if (!s->fixed[i])
            for (int o = 0; o < s->n_obst; ++o) d = fmin(d, cf_implicit_gap(&s->obst[o], cf_ipc_node(q, i), NULL));
    return d;
}

double cf_implicit_kinetic_energy(const cfImplicitSystem *s, const double *v)
{
    double e = 0.0;
    for (int i = 0; i < s->n; ++i)
        if (!s->fixed[i]) e += 0.5 * s->mass[i] * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
    return e;
}

void cf_implicit_residual_dual(const cfImplicitSystem *s, const cfImplicitStage *st, const cfDual *v, cfDual *r)
{
    int N = 3 * s->n;
    cfDual *q = calloc((size_t)2 * N, sizeof *q);
    if (!q) { /* no memory: a NaN residual, which the Newton solve reports as diverged */
        for (int p = 0; p < N; ++p) r[p] = cf_dual(NAN);
        return;
    }
    cfDual *f = q + N;
    for (int p = 0; p < N; ++p) q[p] = cf_dual_add(cf_dual(st->qa[p]), cf_dual_scale(st->c, v[p]));
    cf_implicit_forces(s, q, v, st->q_lag, f);
    for (int p = 0; p < N; ++p)
        r[p] = s->fixed[p / 3] ? v[p]
                               : cf_dual_sub(cf_dual_sub(cf_dual_scale(s->mass[p / 3], v[p]), cf_dual(st->b[p])),
                                             cf_dual_scale(st->c, f[p]));
    free(q);
}

/* the residual at v + p e: r (may be NULL) and J p (may be NULL) */
static void soft_residual_dir(const cfImplicitSystem *s, const cfImplicitStage *st, const double *v, const double *p, double *r,
                              double *Jp)
{
    int N = 3 * s->n;
    cfDual *vd = calloc((size_t)2 * N, sizeof *vd);
    if (!vd) {
        for (int k = 0; k < N; ++k) {
            if (r) r[k] = NAN;
            if (Jp) Jp[k] = NAN;
        }
        return;
    }
    cfDual *rd = vd + N;
    for (int k = 0; k < N; ++k) vd[k] = (cfDual){v[k], p ? p[k] : 0.0};
    cf_implicit_residual_dual(s, st, vd, rd);
    for (int k = 0; k < N; ++k) {
        if (r) r[k] = rd[k].re;
        if (Jp) Jp[k] = rd[k].du;
    }
    free(vd);
}

void cf_implicit_residual(const cfImplicitSystem *s, const cfImplicitStage *st, const double *v, double *r)
{
    soft_residual_dir(s, st, v, NULL, r, NULL);
}

void cf_implicit_jvp(const cfImplicitSystem *s, const cfImplicitStage *st, const double *v, const double *p, double *Jp)
{
    soft_residual_dir(s, st, v, p, NULL, Jp);
}

cfStatus cf_implicit_jacobian(const cfImplicitSystem *s, const cfImplicitStage *st, const double *v, double *J)
{
    int N = 3 * s->n;
    double *K = malloc((size_t)2 * N * N * sizeof *K), *q = calloc((size_t)N, sizeof *q);
    if (!K || !q) {
        free(K), free(q);
        return CF_NO_MEMORY;
    }
    double *D = K + (size_t)N * N;
    for (int p = 0; p < N; ++p) q[p] = st->qa[p] + st->c * v[p];
    cfStatus status = cf_implicit_force_jacobian(s, q, v, st->q_lag, K, D);
    for (int i = 0; i < N && status == CF_OK; ++i)
        for (int j = 0; j < N; ++j) {
            size_t a = (size_t)i * N + j;
            J[a] = s->fixed[i / 3] ? (double)(i == j)
                                   : (i == j ? s->mass[i / 3] : 0.0) - st->c * (st->c * K[a] + D[a]);
        }
    free(K), free(q);
    return status;
}
