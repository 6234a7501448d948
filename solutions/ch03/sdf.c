/* SPDX-License-Identifier: MIT */
/* Chapter 3, exercise ch03.6: grid signed distance fields, SDF-point and SDF-mesh contacts with
   per-face refinement. Specification: lib/include/cf/cf_ch03.h. */
#include "cf/cf_ch03.h"

#include <stdlib.h>
#include <string.h>

double cf_sdf_grid_eval(const cfSdfGrid *g, cfVec3 x, cfVec3 *grad)
{
    //> ch03:grid-eval
    // BEGIN SOLUTION ch03.6
    if (!cfu_vec3_finite(x)) { /* no position, no contact: far outside */
        if (grad) *grad = cfu_vec3(0, 0, 1);
        return HUGE_VAL;
    }
    /* clamp to the node box; outside, add the distance to it (|grad s| = 1 bounds the change) */
    double xv[3] = {x.x, x.y, x.z}, o[3] = {g->origin.x, g->origin.y, g->origin.z}, y[3], f[3];
    int idx[3];
    for (int a = 0; a < 3; ++a) {
        double top = o[a] + g->dx * (g->n[a] - 1);
        y[a] = xv[a] < o[a] ? o[a] : (xv[a] > top ? top : xv[a]);
        double fa = (y[a] - o[a]) / g->dx;
        int i = (int)floor(fa);
        if (i < 0) i = 0;
        if (i > g->n[a] - 2) i = g->n[a] - 2;
        idx[a] = i;
        f[a] = fa - i;
    }
    double s = 0.0, ds[3] = {0, 0, 0};
    for (int c = 0; c < 8; ++c) {
        int bx = c & 1, by = (c >> 1) & 1, bz = (c >> 2) & 1;
        double phi = g->phi[cf_sdf_grid_index(g, idx[0] + bx, idx[1] + by, idx[2] + bz)];
        double wx = bx ? f[0] : 1.0 - f[0], wy = by ? f[1] : 1.0 - f[1], wz = bz ? f[2] : 1.0 - f[2];
        double dx = bx ? 1.0 : -1.0, dy = by ? 1.0 : -1.0, dz = bz ? 1.0 : -1.0;
        s += phi * wx * wy * wz;
        ds[0] += phi * dx * wy * wz;
        ds[1] += phi * wx * dy * wz;
        ds[2] += phi * wx * wy * dz;
    }
    cfVec3 gr = cfu_scale(1.0 / g->dx, cfu_vec3(ds[0], ds[1], ds[2]));
    cfVec3 out = cfu_sub(x, cfu_vec3(y[0], y[1], y[2]));
    double dist = cfu_norm(out);
    if (dist > 0.0) {
        s += dist;
        gr = cfu_normalize(cfu_add(gr, cfu_scale(1.0 / dist, out)));
    }
    if (grad) *grad = cfu_norm2(gr) > 0.0 ? gr : cfu_vec3(0, 0, 1);
    return s;
    // END SOLUTION
    // STUB ch03.6: CF_TODO("ch03.6");
    // STUB ch03.6: if (grad) *grad = cfu_vec3(0, 0, 1);
    // STUB ch03.6: return 0.0;
    //< ch03:grid-eval
}

int cf_collide_sdf_point(const cfSdf *sdf, cfPose A, cfVec3 x, double margin, cfContact *out)
{
    //> ch03:sdf-point
    // BEGIN SOLUTION ch03.6
    cfVec3 g;
    double s = cf_sdf_eval(sdf, cf_pose_inv_apply(A, x), &g);
    if (!(s <= margin)) return 0; /* also rejects NaN */
    double len = cfu_norm(g);
    cfVec3 n = cfu_mat3_mul_vec(A.R, len > 0.0 ? cfu_scale(1.0 / len, g) : cfu_vec3(0, 0, 1));
    memset(out, 0, sizeof *out);
    out->phi = s;
    out->n = n;
    out->p = cfu_mul_add(x, -0.5 * s, n); /* midpoint of x and its projection x - s n */
    return 1;
    // END SOLUTION
    // STUB ch03.6: return CF_TODO_I("ch03.6");
    //< ch03:sdf-point
}

void cf_project_simplex3(double w[3])
{
    //> ch03:simplex
    // BEGIN SOLUTION ch03.6
    /* sort descending, find the largest rho with u_rho > (sum_{i<=rho} u_i - 1)/rho */
    double u[3] = {w[0], w[1], w[2]};
    for (int i = 1; i < 3; ++i)
        for (int j = i; j > 0 && u[j - 1] < u[j]; --j) {
            double t = u[j];
            u[j] = u[j - 1];
            u[j - 1] = t;
        }
    double sum = 0.0, tau = 0.0;
    for (int j = 0; j < 3; ++j) {
        sum += u[j];
        double t = (sum - 1.0) / (j + 1);
        if (u[j] - t > 0.0) tau = t;
    }
    for (int i = 0; i < 3; ++i) w[i] = w[i] - tau > 0.0 ? w[i] - tau : 0.0;
    // END SOLUTION
    // STUB ch03.6: CF_TODO("ch03.6");
    //< ch03:simplex
}

double cf_sdf_triangle_min(const cfSdf *sdf, cfVec3 x1, cfVec3 x2, cfVec3 x3, double alpha, int iters, double w[3])
{
    //> ch03:triangle-min
    // BEGIN SOLUTION ch03.6
    w[0] = w[1] = w[2] = 1.0 / 3.0;
    cfVec3 g;
    for (int it = 0; it < iters; ++it) {
        cfVec3 x = cfu_add(cfu_add(cfu_scale(w[0], x1), cfu_scale(w[1], x2)), cfu_scale(w[2], x3));
        cf_sdf_eval(sdf, x, &g);
        /* gradient with respect to the weights, a step, THEN the projection */
        double nw[3] = {w[0] - alpha * cfu_dot(g, x1), w[1] - alpha * cfu_dot(g, x2), w[2] - alpha * cfu_dot(g, x3)};
        cf_project_simplex3(nw);
        double change = fmax(fabs(nw[0] - w[0]), fmax(fabs(nw[1] - w[1]), fabs(nw[2] - w[2])));
        w[0] = nw[0], w[1] = nw[1], w[2] = nw[2];
        if (change <= 1e-14) break;
    }
    cfVec3 x = cfu_add(cfu_add(cfu_scale(w[0], x1), cfu_scale(w[1], x2)), cfu_scale(w[2], x3));
    return cf_sdf_eval(sdf, x, NULL);
    // END SOLUTION
    // STUB ch03.6: CF_TODO("ch03.6");
    // STUB ch03.6: w[0] = w[1] = w[2] = 1.0 / 3.0;
    // STUB ch03.6: return 0.0;
    //< ch03:triangle-min
}

cfSdfMeshOptions cf_sdf_mesh_options_default(void)
{
    cfSdfMeshOptions o = {0.0, true, 0.0, 100};
    return o;
}

int cf_collide_sdf_mesh(const cfSdf *sdf, cfPose A, const cfTriMesh *mesh, cfPose B, const cfSdfMeshOptions *opt,
                        cfContact *out, int max_out)
{
    //> ch03:sdf-mesh
    // BEGIN SOLUTION ch03.6
    cfSdfMeshOptions o = opt ? *opt : cf_sdf_mesh_options_default();
    int found = 0;
    /* every vertex in A's frame: x = R_A^T (R_B v + x_B - x_A) (Eq. 108, corrected) */
    cfVec3 *xa = malloc((size_t)(mesh->n_verts > 0 ? mesh->n_verts : 1) * sizeof *xa);
    double *sv = malloc((size_t)(mesh->n_verts > 0 ? mesh->n_verts : 1) * sizeof *sv);
    if (!xa || !sv) {
        free(xa);
        free(sv);
        return 0;
    }
    for (int i = 0; i < mesh->n_verts; ++i) {
        cfVec3 world = cf_pose_apply(B, mesh->v[i]);
        xa[i] = cf_pose_inv_apply(A, world);
        sv[i] = cf_sdf_eval(sdf, xa[i], NULL);
        cfContact c;
        if (sv[i] <= o.margin && cf_collide_sdf_point(sdf, A, world, o.margin, &c)) {
            c.feature = cf_feature(CF_FEAT_SDF_VERTEX, (uint32_t)i);
            if (found < max_out) out[found] = c;
            ++found;
        }
    }
    for (int f = 0; o.faces && f < mesh->n_tris; ++f) {
        const int *t = mesh->tri[f];
        cfVec3 p1 = xa[t[0]], p2 = xa[t[1]], p3 = xa[t[2]];
        double alpha = o.alpha;
        if (!(alpha > 0.0)) {
            double L = fmax(cfu_norm(cfu_sub(p2, p1)), fmax(cfu_norm(cfu_sub(p3, p2)), cfu_norm(cfu_sub(p1, p3))));
            if (!(L > 0.0)) continue; /* a collapsed triangle is its vertices */
            alpha = 0.25 / L;
        }
        double w[3];
        double smin = cf_sdf_triangle_min(sdf, p1, p2, p3, alpha, o.iters, w);
        /* only a point deeper than all three vertices is new information */
        if (smin > o.margin || !(smin < fmin(sv[t[0]], fmin(sv[t[1]], sv[t[2]])) - 1e-9)) continue;
        uint32_t id = cf_feature(CF_FEAT_SDF_FACE, (uint32_t)f);
        for (int k = 0; k < 3; ++k)
            if (w[k] <= 1e-9) {
                int va = t[(k + 1) % 3], vb = t[(k + 2) % 3];
                int lo = va < vb ? va : vb, hi = va < vb ? vb : va;
                id = cf_feature(CF_FEAT_SDF_EDGE, (uint32_t)(lo << 14 | hi));
                break;
            }
        bool dup = false;
        for (int k = 0; k < found && k < max_out; ++k)
            if (out[k].feature == id) dup = true;
        if (dup) continue;
        cfVec3 xl = cfu_add(cfu_add(cfu_scale(w[0], p1), cfu_scale(w[1], p2)), cfu_scale(w[2], p3));
        cfContact c;
        if (cf_collide_sdf_point(sdf, A, cf_pose_apply(A, xl), o.margin, &c)) {
            c.feature = id;
            if (found < max_out) out[found] = c;
            ++found;
        }
    }
    free(xa);
    free(sv);
    return found;
    // END SOLUTION
    // STUB ch03.6: return CF_TODO_I("ch03.6");
    //< ch03:sdf-mesh
}
