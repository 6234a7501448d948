/* SPDX-License-Identifier: MIT */
/* Soft bodies: springs and linear tetrahedra, forces, energies, stiffness, generators. */
#include "cf/cf_soft.h"

#include <stdlib.h>
#include <string.h>

static void *grow(void *p, int *cap, int need, size_t elem)
{
    if (need <= *cap) return p;
    int nc = *cap ? 2 * *cap : 16;
    while (nc < need) nc *= 2;
    void *q = realloc(p, (size_t)nc * elem);
    if (q) *cap = nc;
    return q;
}

cfStatus cf_soft_init(cfSoftBody *s, int n_nodes)
{
    memset(s, 0, sizeof *s);
    if (n_nodes <= 0) return CF_BAD_INPUT;
    size_t n = (size_t)n_nodes;
    s->n_nodes = n_nodes;
    s->x = calloc(n, sizeof *s->x);
    s->v = calloc(n, sizeof *s->v);
    s->x_rest = calloc(n, sizeof *s->x_rest);
    s->x_prev = calloc(n, sizeof *s->x_prev);
    s->v_prev = calloc(n, sizeof *s->v_prev);
    s->mass = calloc(n, sizeof *s->mass);
    s->fixed = calloc(n, sizeof *s->fixed);
    if (!s->x || !s->v || !s->x_rest || !s->x_prev || !s->v_prev || !s->mass || !s->fixed) {
        cf_soft_free(s);
        return CF_NO_MEMORY;
    }
    for (int i = 0; i < n_nodes; ++i) s->mass[i] = 1.0;
    s->young = 1e5;
    s->poisson = 0.3;
    s->mu = 0.5;
    return CF_OK;
}

void cf_soft_free(cfSoftBody *s)
{
    free(s->x);
    free(s->v);
    free(s->x_rest);
    free(s->x_prev);
    free(s->v_prev);
    free(s->mass);
    free(s->fixed);
    free(s->springs);
    free(s->tets);
    free(s->tris);
    memset(s, 0, sizeof *s);
}

static void *dup(const void *p, size_t bytes)
{
    if (!p || bytes == 0) return NULL;
    void *q = malloc(bytes);
    if (q) memcpy(q, p, bytes);
    return q;
}

cfStatus cf_soft_copy(cfSoftBody *dst, const cfSoftBody *src)
{
    size_t n = (size_t)src->n_nodes;
    *dst = *src;
    dst->x = dup(src->x, n * sizeof *src->x);
    dst->v = dup(src->v, n * sizeof *src->v);
    dst->x_rest = dup(src->x_rest, n * sizeof *src->x_rest);
    dst->x_prev = dup(src->x_prev, n * sizeof *src->x_prev);
    dst->v_prev = dup(src->v_prev, n * sizeof *src->v_prev);
    dst->mass = dup(src->mass, n * sizeof *src->mass);
    dst->fixed = dup(src->fixed, n * sizeof *src->fixed);
    dst->springs = dup(src->springs, (size_t)src->n_springs * sizeof *src->springs);
    dst->tets = dup(src->tets, (size_t)src->n_tets * sizeof *src->tets);
    dst->tris = dup(src->tris, (size_t)src->n_tris * sizeof *src->tris);
    dst->cap_springs = src->n_springs;
    dst->cap_tets = src->n_tets;
    dst->cap_tris = src->n_tris;
    if ((n && (!dst->x || !dst->v || !dst->x_rest || !dst->x_prev || !dst->v_prev || !dst->mass || !dst->fixed)) ||
        (src->n_springs && !dst->springs) || (src->n_tets && !dst->tets) || (src->n_tris && !dst->tris)) {
        cf_soft_free(dst);
        return CF_NO_MEMORY;
    }
    return CF_OK;
}

static bool node_ok(const cfSoftBody *s, int i) { return i >= 0 && i < s->n_nodes; }

cfStatus cf_soft_add_spring(cfSoftBody *s, int i, int j, double k, double rest, cfError *err)
{
    if (!node_ok(s, i) || !node_ok(s, j) || i == j)
        return cf_error_set(err, CF_BAD_INPUT, "spring (%d, %d): node indices must be distinct and in [0, %d)", i,
                            j, s->n_nodes);
    if (!isfinite(k) || k < 0.0)
        return cf_error_set(err, CF_BAD_INPUT, "spring stiffness: must be finite and >= 0 (got %g)", k);
    if (rest < 0.0) rest = cfu_norm(cfu_sub(s->x[j], s->x[i]));
    if (!isfinite(rest) || rest < 1e-12)
        return cf_error_set(err, CF_BAD_INPUT, "spring (%d, %d): rest length must be > 0 (got %g)", i, j, rest);
    cfSpring *p = grow(s->springs, &s->cap_springs, s->n_springs + 1, sizeof *p);
    if (!p) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    s->springs = p;
    s->springs[s->n_springs++] = (cfSpring){i, j, rest, k};
    return CF_OK;
}

static cfMat3 edge_matrix(cfVec3 x0, cfVec3 x1, cfVec3 x2, cfVec3 x3)
{
    return cfu_mat3_cols(cfu_sub(x1, x0), cfu_sub(x2, x0), cfu_sub(x3, x0));
}

cfStatus cf_soft_add_tet(cfSoftBody *s, const int n_in[4], cfError *err)
{
    int n[4] = {n_in[0], n_in[1], n_in[2], n_in[3]};
    for (int a = 0; a < 4; ++a) {
        if (!node_ok(s, n[a]))
            return cf_error_set(err, CF_BAD_INPUT, "tet: node %d out of range [0, %d)", n[a], s->n_nodes);
        for (int b = 0; b < a; ++b)
            if (n[a] == n[b]) return cf_error_set(err, CF_BAD_INPUT, "tet: repeated node %d", n[a]);
    }
    cfMat3 Dm = edge_matrix(s->x[n[0]], s->x[n[1]], s->x[n[2]], s->x[n[3]]);
    double det = cfu_mat3_det(Dm);
    if (det < 0.0) { /* make the orientation positive by swapping two nodes */
        int t = n[1];
        n[1] = n[2];
        n[2] = t;
        Dm = edge_matrix(s->x[n[0]], s->x[n[1]], s->x[n[2]], s->x[n[3]]);
        det = -det;
    }
    double edge = 0.0;
    for (int c = 0; c < 3; ++c) edge = fmax(edge, cfu_norm(cfu_mat3_col(Dm, c)));
    cfTet t;
    if (!(det > 1e-14 * edge * edge * edge) || !cfu_mat3_inverse(Dm, &t.Dm_inv))
        return cf_error_set(err, CF_BAD_INPUT, "tet (%d, %d, %d, %d): degenerate (volume %g)", n[0], n[1], n[2],
                            n[3], det / 6.0);
    memcpy(t.n, n, sizeof n);
    t.rest_volume = det / 6.0;
    cfTet *p = grow(s->tets, &s->cap_tets, s->n_tets + 1, sizeof *p);
    if (!p) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    s->tets = p;
    s->tets[s->n_tets++] = t;
    return CF_OK;
}

cfStatus cf_soft_add_tri(cfSoftBody *s, int a, int b, int c, cfError *err)
{
    if (!node_ok(s, a) || !node_ok(s, b) || !node_ok(s, c) || a == b || b == c || a == c)
        return cf_error_set(err, CF_BAD_INPUT, "triangle (%d, %d, %d): bad node indices", a, b, c);
    int(*p)[3] = grow(s->tris, &s->cap_tris, s->n_tris + 1, sizeof *p);
    if (!p) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    s->tris = p;
    s->tris[s->n_tris][0] = a;
    s->tris[s->n_tris][1] = b;
    s->tris[s->n_tris][2] = c;
    s->n_tris++;
    return CF_OK;
}

void cf_lame(double young, double poisson, double *lambda, double *mu)
{
    *mu = young / (2.0 * (1.0 + poisson));
    *lambda = young * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
}

cfStatus cf_soft_finalize(cfSoftBody *s, cfError *err)
{
    memcpy(s->x_rest, s->x, (size_t)s->n_nodes * sizeof *s->x);
    if (s->n_tets > 0) {
        if (!(isfinite(s->young) && s->young > 0.0))
            return cf_error_set(err, CF_BAD_INPUT, "young: must be finite and > 0 (got %g)", s->young);
        if (!(s->poisson >= 0.0 && s->poisson < 0.5))
            return cf_error_set(err, CF_BAD_INPUT, "poisson: must be in [0, 0.5) (got %g)", s->poisson);
        if (s->density > 0.0) {
            bool *in_tet = calloc((size_t)s->n_nodes, sizeof *in_tet);
            if (!in_tet) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
            for (int e = 0; e < s->n_tets; ++e)
                for (int a = 0; a < 4; ++a) in_tet[s->tets[e].n[a]] = true;
            for (int i = 0; i < s->n_nodes; ++i)
                if (in_tet[i]) s->mass[i] = 0.0;
            for (int e = 0; e < s->n_tets; ++e)
                for (int a = 0; a < 4; ++a) s->mass[s->tets[e].n[a]] += 0.25 * s->density * s->tets[e].rest_volume;
            free(in_tet);
        }
    }
    for (int i = 0; i < s->n_nodes; ++i) {
        if (!cfu_vec3_finite(s->x[i]) || !cfu_vec3_finite(s->v[i]))
            return cf_error_set(err, CF_BAD_INPUT, "node %d: position and velocity must be finite", i);
        if (!s->fixed[i] && !(isfinite(s->mass[i]) && s->mass[i] > 0.0))
            return cf_error_set(err, CF_BAD_INPUT, "node %d: a free node needs mass > 0 (got %g)", i, s->mass[i]);
    }
    if (!(s->damping_alpha >= 0.0 && s->damping_beta >= 0.0 && isfinite(s->damping_alpha) &&
          isfinite(s->damping_beta)))
        return cf_error_set(err, CF_BAD_INPUT, "damping: Rayleigh coefficients must be finite and >= 0");
    s->has_prev = false;
    return CF_OK;
}

/* ---- elasticity ---- */

/* Linear-elastic force of one tet for node displacements d[4] (from rest): f[4].
   eps = sym(F) - I with F - I = D(d) Dm^-1; sigma = 2 mu eps + lambda tr(eps) I;
   forces on nodes 1..3 are the columns of -V sigma Dm^-T, node 0 balances them. */
static void tet_force(const cfTet *t, double lambda, double mu, const cfVec3 d[4], cfVec3 f[4])
{
    cfMat3 G = cfu_mat3_mul(edge_matrix(d[0], d[1], d[2], d[3]), t->Dm_inv); /* F - I */
    cfMat3 eps = cfu_mat3_scale(0.5, cfu_mat3_add(G, cfu_mat3_transpose(G)));
    double tr = eps.m[0][0] + eps.m[1][1] + eps.m[2][2];
    cfMat3 sigma = cfu_mat3_add(cfu_mat3_scale(2.0 * mu, eps), cfu_mat3_scale(lambda * tr, cfu_mat3_identity()));
    cfMat3 H = cfu_mat3_scale(-t->rest_volume, cfu_mat3_mul(sigma, cfu_mat3_transpose(t->Dm_inv)));
    f[1] = cfu_mat3_col(H, 0);
    f[2] = cfu_mat3_col(H, 1);
    f[3] = cfu_mat3_col(H, 2);
    f[0] = cfu_neg(cfu_add(f[1], cfu_add(f[2], f[3])));
}

static double tet_energy(const cfTet *t, double lambda, double mu, const cfVec3 d[4])
{
    cfMat3 G = cfu_mat3_mul(edge_matrix(d[0], d[1], d[2], d[3]), t->Dm_inv);
    cfMat3 eps = cfu_mat3_scale(0.5, cfu_mat3_add(G, cfu_mat3_transpose(G)));
    double tr = eps.m[0][0] + eps.m[1][1] + eps.m[2][2], ee = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) ee += eps.m[i][j] * eps.m[i][j];
    return t->rest_volume * (mu * ee + 0.5 * lambda * tr * tr);
}

/* ---- the rotation of a deformation gradient ---- */

/* eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations: A = V diag(w) V^T */
static void sym_eig3(double A[3][3], double w[3], double V[3][3])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) V[i][j] = i == j;
    for (int sweep = 0; sweep < 50; ++sweep) {
        double off = fabs(A[0][1]) + fabs(A[0][2]) + fabs(A[1][2]);
        double scale = fabs(A[0][0]) + fabs(A[1][1]) + fabs(A[2][2]);
        if (off <= 1e-15 * scale || off == 0.0) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (A[p][q] == 0.0) continue;
                double theta = (A[q][q] - A[p][p]) / (2.0 * A[p][q]);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), sn = t * c;
                for (int k = 0; k < 3; ++k) { /* A <- A J */
                    double akp = A[k][p], akq = A[k][q];
                    A[k][p] = c * akp - sn * akq;
                    A[k][q] = sn * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) { /* A <- J^T A */
                    double apk = A[p][k], aqk = A[q][k];
                    A[p][k] = c * apk - sn * aqk;
                    A[q][k] = sn * apk + c * aqk;
                }
                for (int k = 0; k < 3; ++k) {
                    double vkp = V[k][p], vkq = V[k][q];
                    V[k][p] = c * vkp - sn * vkq;
                    V[k][q] = sn * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < 3; ++i) w[i] = A[i][i];
}

/* a unit vector orthogonal to the unit vector a */
static cfVec3 any_orthogonal(cfVec3 a)
{
    cfVec3 e = fabs(a.x) < 0.6 ? cfu_vec3(1, 0, 0) : cfu_vec3(0, 1, 0);
    return cfu_normalize(cfu_sub(e, cfu_scale(cfu_dot(e, a), a)));
}

cfMat3 cf_soft_polar_rotation(cfMat3 F)
{
    /* F^T F = V diag(s^2) V^T; u_k = F v_k / s_k for the two largest singular values, the third
       completes a right-handed frame, so R = U V^T is a rotation even for an inverted F */
    cfMat3 C = cfu_mat3_mul(cfu_mat3_transpose(F), F);
    double A[3][3], w[3], V[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) A[i][j] = C.m[i][j];
    sym_eig3(A, w, V);
    int order[3] = {0, 1, 2};
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (w[order[j]] > w[order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    cfVec3 v[3], u[3];
    for (int k = 0; k < 3; ++k) v[k] = cfu_vec3(V[0][order[k]], V[1][order[k]], V[2][order[k]]);
    if (cfu_dot(cfu_cross(v[0], v[1]), v[2]) < 0.0) v[2] = cfu_neg(v[2]); /* V proper */
    double s0 = sqrt(fmax(w[order[0]], 0.0));
    if (!(s0 > 1e-300) || !isfinite(s0)) return cfu_mat3_identity();
    u[0] = cfu_normalize(cfu_mat3_mul_vec(F, v[0]));
    cfVec3 f1 = cfu_mat3_mul_vec(F, v[1]);
    f1 = cfu_sub(f1, cfu_scale(cfu_dot(f1, u[0]), u[0]));
    u[1] = cfu_norm(f1) > 1e-12 * s0 ? cfu_normalize(f1) : any_orthogonal(u[0]);
    u[2] = cfu_cross(u[0], u[1]);
    cfMat3 R;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            R.m[i][j] = cfu_vec3_at(u[0], i) * cfu_vec3_at(v[0], j) + cfu_vec3_at(u[1], i) * cfu_vec3_at(v[1], j) +
                        cfu_vec3_at(u[2], i) * cfu_vec3_at(v[2], j);
    return R;
}

cfMat3 cf_soft_tet_rotation(const cfSoftBody *s, int e, const cfVec3 *x)
{
    if (!s->corotational) return cfu_mat3_identity();
    const cfTet *t = &s->tets[e];
    cfMat3 Ds = edge_matrix(x[t->n[0]], x[t->n[1]], x[t->n[2]], x[t->n[3]]);
    return cf_soft_polar_rotation(cfu_mat3_mul(Ds, t->Dm_inv));
}

/* the displacements the linear element sees: d_a = R^T x_a - X_a (R = I: the small-strain model) */
static void tet_displacements(const cfSoftBody *s, const cfTet *t, cfMat3 R, const cfVec3 *x, cfVec3 d[4])
{
    for (int a = 0; a < 4; ++a)
        d[a] = cfu_sub(s->corotational ? cfu_mat3_tmul_vec(R, x[t->n[a]]) : x[t->n[a]], s->x_rest[t->n[a]]);
}

static void add3(double *f, int i, cfVec3 v)
{
    f[3 * i] += v.x;
    f[3 * i + 1] += v.y;
    f[3 * i + 2] += v.z;
}

void cf_soft_forces_rotated(const cfSoftBody *s, const cfVec3 *x, const cfMat3 *R, cfVec3 gravity, double *f)
{
    for (int i = 0; i < s->n_nodes; ++i) {
        cfVec3 g = cfu_scale(s->mass[i], gravity);
        f[3 * i] = g.x;
        f[3 * i + 1] = g.y;
        f[3 * i + 2] = g.z;
    }
    for (int e = 0; e < s->n_springs; ++e) {
        const cfSpring *sp = &s->springs[e];
        cfVec3 d = cfu_sub(x[sp->j], x[sp->i]);
        double l = cfu_norm(d);
        if (l < 1e-300) continue; /* coincident ends: no defined direction, no force */
        cfVec3 fi = cfu_scale(sp->k * (l - sp->rest) / l, d); /* pulls i toward j when stretched */
        add3(f, sp->i, fi);
        add3(f, sp->j, cfu_neg(fi));
    }
    double lambda, mu;
    cf_lame(s->young, s->poisson, &lambda, &mu);
    for (int e = 0; e < s->n_tets; ++e) {
        cfVec3 d[4], fe[4];
        cfMat3 Re = R ? R[e] : cf_soft_tet_rotation(s, e, x);
        tet_displacements(s, &s->tets[e], Re, x, d);
        tet_force(&s->tets[e], lambda, mu, d, fe);
        for (int a = 0; a < 4; ++a) add3(f, s->tets[e].n[a], s->corotational ? cfu_mat3_mul_vec(Re, fe[a]) : fe[a]);
    }
}

void cf_soft_forces(const cfSoftBody *s, const cfVec3 *x, cfVec3 gravity, double *f)
{
    cf_soft_forces_rotated(s, x, NULL, gravity, f);
}

double cf_soft_elastic_energy(const cfSoftBody *s, const cfVec3 *x)
{
    double E = 0.0;
    for (int e = 0; e < s->n_springs; ++e) {
        const cfSpring *sp = &s->springs[e];
        double stretch = cfu_norm(cfu_sub(x[sp->j], x[sp->i])) - sp->rest;
        E += 0.5 * sp->k * stretch * stretch;
    }
    double lambda, mu;
    cf_lame(s->young, s->poisson, &lambda, &mu);
    for (int e = 0; e < s->n_tets; ++e) {
        cfVec3 d[4];
        tet_displacements(s, &s->tets[e], cf_soft_tet_rotation(s, e, x), x, d);
        E += tet_energy(&s->tets[e], lambda, mu, d);
    }
    return E;
}

static cfStatus add_block(cfTriplets *K, int bi, int bj, cfMat3 m, double sign)
{
    double v[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) v[3 * r + c] = sign * m.m[r][c];
    return cf_triplets_add_block3(K, bi, bj, v);
}

cfStatus cf_soft_stiffness(const cfSoftBody *s, const cfVec3 *x, cfTriplets *K)
{
    cfStatus st = CF_OK;
    /* spring: d f_i / d x_j = k [ n n^T + max(0, 1 - L/l) (I - n n^T) ] =: Kb;
       K = -df/dx has +Kb on (i,i), (j,j) and -Kb on (i,j), (j,i) */
    for (int e = 0; e < s->n_springs && st == CF_OK; ++e) {
        const cfSpring *sp = &s->springs[e];
        cfVec3 d = cfu_sub(x[sp->j], x[sp->i]);
        double l = cfu_norm(d);
        if (l < 1e-300) continue;
        cfVec3 n = cfu_scale(1.0 / l, d);
        cfMat3 nn = cfu_outer(n, n);
        double geo = fmax(0.0, 1.0 - sp->rest / l);
        cfMat3 Kb = cfu_mat3_scale(sp->k, cfu_mat3_add(nn, cfu_mat3_scale(geo, cfu_mat3_add(cfu_mat3_identity(),
                                                                                        cfu_mat3_scale(-1.0, nn)))));
        st = add_block(K, sp->i, sp->i, Kb, 1.0);
        if (st == CF_OK) st = add_block(K, sp->j, sp->j, Kb, 1.0);
        if (st == CF_OK) st = add_block(K, sp->i, sp->j, Kb, -1.0);
        if (st == CF_OK) st = add_block(K, sp->j, sp->i, Kb, -1.0);
    }
    /* tet: the force is linear in the displacements, so column (b, c) of the 12x12 element
       stiffness is minus the force produced by a unit displacement of node b along axis c;
       co-rotated, the blocks are R K_ab R^T with R held at its value at x */
    double lambda, mu;
    cf_lame(s->young, s->poisson, &lambda, &mu);
    for (int e = 0; e < s->n_tets && st == CF_OK; ++e) {
        const cfTet *t = &s->tets[e];
        cfMat3 R = cf_soft_tet_rotation(s, e, x);
        cfMat3 blk[4][4];
        for (int b = 0; b < 4; ++b)
            for (int c = 0; c < 3; ++c) {
                cfVec3 d[4] = {{0}}, f[4];
                if (c == 0) d[b].x = 1.0;
                if (c == 1) d[b].y = 1.0;
                if (c == 2) d[b].z = 1.0;
                tet_force(t, lambda, mu, d, f);
                for (int a = 0; a < 4; ++a) {
                    blk[a][b].m[0][c] = -f[a].x;
                    blk[a][b].m[1][c] = -f[a].y;
                    blk[a][b].m[2][c] = -f[a].z;
                }
            }
        for (int a = 0; a < 4 && st == CF_OK; ++a)
            for (int b = 0; b < 4 && st == CF_OK; ++b) {
                cfMat3 k = s->corotational ? cfu_mat3_mul(R, cfu_mat3_mul(blk[a][b], cfu_mat3_transpose(R))) : blk[a][b];
                st = add_block(K, t->n[a], t->n[b], k, 1.0);
            }
    }
    return st;
}

double cf_soft_kinetic_energy(const cfSoftBody *s)
{
    double E = 0.0;
    for (int i = 0; i < s->n_nodes; ++i) E += 0.5 * s->mass[i] * cfu_norm2(s->v[i]);
    return E;
}

void cf_soft_com(const cfSoftBody *s, cfVec3 *com, cfVec3 *momentum)
{
    double m = 0.0;
    cfVec3 c = cfu_zero3(), p = cfu_zero3();
    for (int i = 0; i < s->n_nodes; ++i) {
        m += s->mass[i];
        c = cfu_mul_add(c, s->mass[i], s->x[i]);
        p = cfu_mul_add(p, s->mass[i], s->v[i]);
    }
    if (com) *com = m > 0.0 ? cfu_scale(1.0 / m, c) : cfu_zero3();
    if (momentum) *momentum = p;
}

int cf_soft_free_nodes(const cfSoftBody *s)
{
    int n = 0;
    for (int i = 0; i < s->n_nodes; ++i) n += !s->fixed[i];
    return n;
}

int cf_soft_fixed_dofs(const cfSoftBody *s, int *dofs)
{
    int n = 0;
    for (int i = 0; i < s->n_nodes; ++i)
        if (s->fixed[i])
            for (int c = 0; c < 3; ++c) dofs[n++] = 3 * i + c;
    return n;
}

/* ---- generators ---- */

/* The end of a generator of a tetrahedral solid: when @p st is CF_OK, the material and
   cf_soft_finalize(); on any failure the body is freed. Returns the final status. */
static cfStatus finish_solid(cfSoftBody *s, cfStatus st, double density, double young, double poisson, cfError *err)
{
    if (st == CF_OK) {
        s->density = density;
        s->young = young;
        s->poisson = poisson;
        st = cf_soft_finalize(s, err);
    }
    if (st != CF_OK) cf_soft_free(s);
    return st;
}

cfStatus cf_soft_make_tet_box(cfSoftBody *s, cfVec3 origin, cfVec3 size, int nx, int ny, int nz,
                              double density, double young, double poisson, bool fix_min_x, cfError *err)
{
    memset(s, 0, sizeof *s);
    if (nx < 1 || ny < 1 || nz < 1 || nx > 200 || ny > 200 || nz > 200)
        return cf_error_set(err, CF_BAD_INPUT, "cells: each count must be in [1, 200] (got %d, %d, %d)", nx, ny, nz);
    if (!(size.x > 0 && size.y > 0 && size.z > 0) || !cfu_vec3_finite(size))
        return cf_error_set(err, CF_BAD_INPUT, "size: must be finite and > 0");
    if (!cfu_vec3_finite(origin)) return cf_error_set(err, CF_BAD_INPUT, "origin: must be finite");
    if (!(isfinite(density) && density > 0.0))
        return cf_error_set(err, CF_BAD_INPUT, "density: must be finite and > 0 (got %g)", density);
    int NX = nx + 1, NY = ny + 1, NZ = nz + 1;
    cfStatus st = cf_soft_init(s, NX * NY * NZ);
    if (st != CF_OK) return cf_error_set(err, st, "out of memory");
#define NODE(i, j, k) ((i) + NX * ((j) + NY * (k)))
    for (int k = 0; k < NZ; ++k)
        for (int j = 0; j < NY; ++j)
            for (int i = 0; i < NX; ++i) {
                int id = NODE(i, j, k);
                s->x[id] = cfu_vec3(origin.x + size.x * i / nx, origin.y + size.y * j / ny, origin.z + size.z * k / nz);
                s->fixed[id] = fix_min_x && i == 0;
            }
    /* five tets per cell; the split alternates with cell parity so that shared faces match */
    static const int even[5][4] = {{0, 1, 2, 4}, {3, 1, 2, 7}, {5, 1, 4, 7}, {6, 2, 4, 7}, {1, 2, 4, 7}};
    static const int odd[5][4] = {{1, 0, 3, 5}, {2, 0, 3, 6}, {4, 0, 5, 6}, {7, 3, 5, 6}, {0, 3, 5, 6}};
    for (int k = 0; k < nz && st == CF_OK; ++k)
        for (int j = 0; j < ny && st == CF_OK; ++j)
            for (int i = 0; i < nx && st == CF_OK; ++i) {
                int c[8];
                for (int b = 0; b < 8; ++b) c[b] = NODE(i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1));
                const int(*split)[4] = ((i + j + k) % 2 == 0) ? even : odd;
                for (int t = 0; t < 5 && st == CF_OK; ++t) {
                    int n[4] = {c[split[t][0]], c[split[t][1]], c[split[t][2]], c[split[t][3]]};
                    st = cf_soft_add_tet(s, n, err);
                }
            }
    /* boundary quads as two outward triangles each */
    for (int axis = 0; axis < 3 && st == CF_OK; ++axis)
        for (int side = 0; side < 2 && st == CF_OK; ++side) {
            int n0 = axis == 0 ? ny : nx, n1 = axis == 2 ? ny : nz;
            for (int a = 0; a < n0 && st == CF_OK; ++a)
                for (int b = 0; b < n1 && st == CF_OK; ++b) {
                    int q[4];
                    for (int corner = 0; corner < 4; ++corner) {
                        int da = (corner == 1 || corner == 2), db = (corner >= 2);
                        int fixed_coord = side ? (axis == 0 ? nx : axis == 1 ? ny : nz) : 0;
                        int i = axis == 0 ? fixed_coord : a + da;
                        int j = axis == 1 ? fixed_coord : (axis == 0 ? a + da : b + db);
                        int kk = axis == 2 ? fixed_coord : b + db;
                        q[corner] = NODE(i, j, kk);
                    }
                    cfVec3 nrm = cfu_cross(cfu_sub(s->x[q[1]], s->x[q[0]]), cfu_sub(s->x[q[2]], s->x[q[0]]));
                    double outward = cfu_vec3_at(nrm, axis) * (side ? 1.0 : -1.0);
                    if (outward > 0) {
                        st = cf_soft_add_tri(s, q[0], q[1], q[2], err);
                        if (st == CF_OK) st = cf_soft_add_tri(s, q[0], q[2], q[3], err);
                    } else {
                        st = cf_soft_add_tri(s, q[0], q[2], q[1], err);
                        if (st == CF_OK) st = cf_soft_add_tri(s, q[0], q[3], q[2], err);
                    }
                }
        }
#undef NODE
    return finish_solid(s, st, density, young, poisson, err);
}

cfStatus cf_soft_make_chain(cfSoftBody *s, cfVec3 a, cfVec3 b, int n_nodes, double k, double node_mass,
                            bool fix_first, cfError *err)
{
    memset(s, 0, sizeof *s);
    if (n_nodes < 2 || n_nodes > 100000)
        return cf_error_set(err, CF_BAD_INPUT, "nodes: must be in [2, 100000] (got %d)", n_nodes);
    if (!(isfinite(node_mass) && node_mass > 0.0))
        return cf_error_set(err, CF_BAD_INPUT, "node_mass: must be finite and > 0 (got %g)", node_mass);
    if (!cfu_vec3_finite(a) || !cfu_vec3_finite(b) || cfu_norm(cfu_sub(b, a)) < 1e-12)
        return cf_error_set(err, CF_BAD_INPUT, "from/to: must be finite and distinct");
    cfStatus st = cf_soft_init(s, n_nodes);
    if (st != CF_OK) return cf_error_set(err, st, "out of memory");
    for (int i = 0; i < n_nodes; ++i) {
        s->x[i] = cfu_mul_add(a, (double)i / (n_nodes - 1), cfu_sub(b, a));
        s->mass[i] = node_mass;
    }
    s->fixed[0] = fix_first;
    for (int i = 0; i + 1 < n_nodes && st == CF_OK; ++i) st = cf_soft_add_spring(s, i, i + 1, k, -1.0, err);
    if (st == CF_OK) st = cf_soft_finalize(s, err);
    if (st != CF_OK) cf_soft_free(s);
    return st;
}

cfStatus cf_soft_mass_matrix(const cfSoftBody *s, cfTriplets *M)
{
    cfStatus st = CF_OK;
    bool *in_tet = NULL;
    if (s->consistent_mass && s->n_tets > 0) {
        in_tet = calloc((size_t)s->n_nodes, sizeof *in_tet);
        if (!in_tet) return CF_NO_MEMORY;
        for (int e = 0; e < s->n_tets && st == CF_OK; ++e) {
            const cfTet *t = &s->tets[e];
            double m = s->density * t->rest_volume / 20.0;
            for (int a = 0; a < 4; ++a) in_tet[t->n[a]] = true;
            for (int a = 0; a < 4 && st == CF_OK; ++a)
                for (int b = 0; b < 4 && st == CF_OK; ++b)
                    for (int c = 0; c < 3 && st == CF_OK; ++c)
                        st = cf_triplets_add(M, 3 * t->n[a] + c, 3 * t->n[b] + c, a == b ? 2.0 * m : m);
        }
    }
    for (int i = 0; i < s->n_nodes && st == CF_OK; ++i)
        if (!in_tet || !in_tet[i])
            for (int c = 0; c < 3 && st == CF_OK; ++c) st = cf_triplets_add(M, 3 * i + c, 3 * i + c, s->mass[i]);
    free(in_tet);
    return st;
}

/* ---- surfaces ---- */

typedef struct Face {
    int key[3]; /* sorted node indices */
    int tri[3]; /* the face, counter-clockwise seen from outside its tet */
} Face;

static int face_cmp(const void *a, const void *b)
{
    const Face *p = a, *q = b;
    for (int k = 0; k < 3; ++k)
        if (p->key[k] != q->key[k]) return (p->key[k] > q->key[k]) - (p->key[k] < q->key[k]);
    return 0;
}

cfStatus cf_soft_build_surface(cfSoftBody *s, cfError *err)
{
    if (s->n_tets < 1) return cf_error_set(err, CF_BAD_INPUT, "surface: the body has no tetrahedra");
    /* the outward faces of a positively oriented tet (0, 1, 2, 3) */
    static const int faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    int nf = 4 * s->n_tets;
    Face *f = malloc((size_t)nf * sizeof *f);
    if (!f) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    for (int e = 0; e < s->n_tets; ++e)
        for (int k = 0; k < 4; ++k) {
            Face *g = &f[4 * e + k];
            for (int c = 0; c < 3; ++c) g->tri[c] = g->key[c] = s->tets[e].n[faces[k][c]];
            for (int i = 0; i < 3; ++i)
                for (int j = i + 1; j < 3; ++j)
                    if (g->key[j] < g->key[i]) {
                        int t = g->key[i];
                        g->key[i] = g->key[j];
                        g->key[j] = t;
                    }
        }
    qsort(f, (size_t)nf, sizeof *f, face_cmp);
    s->n_tris = 0;
    cfStatus st = CF_OK;
    for (int i = 0; i < nf && st == CF_OK;) {
        int j = i + 1;
        while (j < nf && face_cmp(&f[i], &f[j]) == 0) ++j;
        if (j - i > 2)
            st = cf_error_set(err, CF_BAD_INPUT, "surface: face (%d, %d, %d) is shared by %d tetrahedra (a non-manifold mesh)",
                              f[i].key[0], f[i].key[1], f[i].key[2], j - i);
        else if (j - i == 1)
            st = cf_soft_add_tri(s, f[i].tri[0], f[i].tri[1], f[i].tri[2], err);
        i = j;
    }
    free(f);
    return st;
}

/* ---- more generators ---- */

cfStatus cf_soft_make_cloth(cfSoftBody *s, cfVec3 origin, cfVec3 du, cfVec3 dv, int nu, int nv, double mass,
                            double k_stretch, double k_shear, double k_bend, double thickness, cfError *err)
{
    memset(s, 0, sizeof *s);
    if (nu < 1 || nv < 1 || nu > 1000 || nv > 1000)
        return cf_error_set(err, CF_BAD_INPUT, "cells: each count must be in [1, 1000] (got %d, %d)", nu, nv);
    if (!cfu_vec3_finite(origin) || !cfu_vec3_finite(du) || !cfu_vec3_finite(dv) ||
        !(cfu_norm(cfu_cross(du, dv)) > 1e-12 * cfu_norm(du) * cfu_norm(dv)) || !(cfu_norm(du) > 0.0))
        return cf_error_set(err, CF_BAD_INPUT, "origin, du, dv: must be finite, du and dv not parallel or zero");
    if (!(isfinite(mass) && mass > 0.0)) return cf_error_set(err, CF_BAD_INPUT, "mass: must be finite and > 0 (got %g)", mass);
    const double k[3] = {k_stretch, k_shear, k_bend};
    static const char *const key[3] = {"stretch", "shear", "bend"};
    for (int i = 0; i < 3; ++i)
        if (!(isfinite(k[i]) && k[i] >= 0.0))
            return cf_error_set(err, CF_BAD_INPUT, "%s: must be finite and >= 0 (N/m; got %g)", key[i], k[i]);
    if (!(isfinite(thickness) && thickness >= 0.0))
        return cf_error_set(err, CF_BAD_INPUT, "thickness: must be finite and >= 0 (got %g)", thickness);
    int NU = nu + 1, NV = nv + 1;
    cfStatus st = cf_soft_init(s, NU * NV);
    if (st != CF_OK) return cf_error_set(err, st, "out of memory");
#define NODE(i, j) ((i) + NU * (j))
    for (int j = 0; j < NV; ++j)
        for (int i = 0; i < NU; ++i) {
            s->x[NODE(i, j)] = cfu_add(origin, cfu_add(cfu_scale((double)i / nu, du), cfu_scale((double)j / nv, dv)));
            s->mass[NODE(i, j)] = mass / (NU * NV);
        }
    for (int j = 0; j < NV && st == CF_OK; ++j)
        for (int i = 0; i < NU && st == CF_OK; ++i) {
            if (i + 1 < NU) st = cf_soft_add_spring(s, NODE(i, j), NODE(i + 1, j), k_stretch, -1.0, err);
            if (st == CF_OK && j + 1 < NV) st = cf_soft_add_spring(s, NODE(i, j), NODE(i, j + 1), k_stretch, -1.0, err);
            if (st == CF_OK && i + 1 < NU && j + 1 < NV && k_shear > 0.0) {
                st = cf_soft_add_spring(s, NODE(i, j), NODE(i + 1, j + 1), k_shear, -1.0, err);
                if (st == CF_OK) st = cf_soft_add_spring(s, NODE(i + 1, j), NODE(i, j + 1), k_shear, -1.0, err);
            }
            if (st == CF_OK && i + 2 < NU && k_bend > 0.0) st = cf_soft_add_spring(s, NODE(i, j), NODE(i + 2, j), k_bend, -1.0, err);
            if (st == CF_OK && j + 2 < NV && k_bend > 0.0) st = cf_soft_add_spring(s, NODE(i, j), NODE(i, j + 2), k_bend, -1.0, err);
        }
    for (int j = 0; j < nv && st == CF_OK; ++j)
        for (int i = 0; i < nu && st == CF_OK; ++i) {
            /* alternate the diagonal so that the sheet has no preferred fold direction */
            if ((i + j) % 2 == 0) {
                st = cf_soft_add_tri(s, NODE(i, j), NODE(i + 1, j), NODE(i + 1, j + 1), err);
                if (st == CF_OK) st = cf_soft_add_tri(s, NODE(i, j), NODE(i + 1, j + 1), NODE(i, j + 1), err);
            } else {
                st = cf_soft_add_tri(s, NODE(i, j), NODE(i + 1, j), NODE(i, j + 1), err);
                if (st == CF_OK) st = cf_soft_add_tri(s, NODE(i + 1, j), NODE(i + 1, j + 1), NODE(i, j + 1), err);
            }
        }
#undef NODE
    s->thickness = thickness;
    if (st == CF_OK) st = cf_soft_finalize(s, err);
    if (st != CF_OK) cf_soft_free(s);
    return st;
}

cfStatus cf_soft_make_tet_ball(cfSoftBody *s, cfVec3 center, double radius, int cells, double density, double young,
                               double poisson, cfError *err)
{
    memset(s, 0, sizeof *s);
    if (cells < 2 || cells > 60) return cf_error_set(err, CF_BAD_INPUT, "cells: must be in [2, 60] (got %d)", cells);
    if (!(isfinite(radius) && radius > 0.0)) return cf_error_set(err, CF_BAD_INPUT, "radius: must be finite and > 0 (got %g)", radius);
    if (!cfu_vec3_finite(center)) return cf_error_set(err, CF_BAD_INPUT, "center: must be finite");
    if (!(isfinite(density) && density > 0.0))
        return cf_error_set(err, CF_BAD_INPUT, "density: must be finite and > 0 (got %g)", density);
    int N = cells + 1;
    double hcell = 2.0 * radius / cells;
    int *id = malloc((size_t)N * N * N * sizeof *id);
    bool *keep = calloc((size_t)cells * cells * cells, sizeof *keep);
    if (!id || !keep) {
        free(id);
        free(keep);
        return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    }
    for (int k = 0; k < N * N * N; ++k) id[k] = -1;
    int nodes = 0;
#define GRID(i, j, k) ((i) + N * ((j) + N * (k)))
    for (int k = 0; k < cells; ++k)
        for (int j = 0; j < cells; ++j)
            for (int i = 0; i < cells; ++i) {
                cfVec3 c = cfu_vec3((i + 0.5) * hcell - radius, (j + 0.5) * hcell - radius, (k + 0.5) * hcell - radius);
                if (cfu_norm(c) > radius) continue;
                keep[i + cells * (j + cells * k)] = true;
                for (int b = 0; b < 8; ++b) {
                    int g = GRID(i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1));
                    if (id[g] < 0) id[g] = nodes++;
                }
            }
    cfStatus st = nodes > 0 ? cf_soft_init(s, nodes) : CF_BAD_INPUT;
    if (st == CF_OK) {
        for (int k = 0; k < N; ++k)
            for (int j = 0; j < N; ++j)
                for (int i = 0; i < N; ++i)
                    if (id[GRID(i, j, k)] >= 0)
                        s->x[id[GRID(i, j, k)]] = cfu_add(center, cfu_vec3(i * hcell - radius, j * hcell - radius, k * hcell - radius));
        static const int even[5][4] = {{0, 1, 2, 4}, {3, 1, 2, 7}, {5, 1, 4, 7}, {6, 2, 4, 7}, {1, 2, 4, 7}};
        static const int odd[5][4] = {{1, 0, 3, 5}, {2, 0, 3, 6}, {4, 0, 5, 6}, {7, 3, 5, 6}, {0, 3, 5, 6}};
        for (int k = 0; k < cells && st == CF_OK; ++k)
            for (int j = 0; j < cells && st == CF_OK; ++j)
                for (int i = 0; i < cells && st == CF_OK; ++i) {
                    if (!keep[i + cells * (j + cells * k)]) continue;
                    int c[8];
                    for (int b = 0; b < 8; ++b) c[b] = id[GRID(i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1))];
                    const int(*split)[4] = ((i + j + k) % 2 == 0) ? even : odd;
                    for (int t = 0; t < 5 && st == CF_OK; ++t) {
                        int n[4] = {c[split[t][0]], c[split[t][1]], c[split[t][2]], c[split[t][3]]};
                        st = cf_soft_add_tet(s, n, err);
                    }
                }
    } else {
        cf_error_set(err, st, st == CF_BAD_INPUT ? "cells: no cell of the grid lies inside the ball" : "out of memory");
    }
#undef GRID
    free(id);
    free(keep);
    if (st == CF_OK) st = cf_soft_build_surface(s, err);
    return finish_solid(s, st, density, young, poisson, err);
}
