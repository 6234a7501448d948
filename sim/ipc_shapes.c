/* SPDX-License-Identifier: MIT */
/* Static spheres under the ipc pipeline. Chapter 9's IPC has no smooth surfaces: its contact is
   between points, edges and triangles. A fixed sphere enters the system as an icosphere inscribed
   in it (lib's cf_trimesh_icosphere(): its vertices on the sphere), fine enough that its faces lie
   within dhat / 2 of the sphere, so what rests on the polyhedron rests within that of the sphere
   the viewer draws. */
#include <math.h>

#include "cf/cf_ch09.h"
#include "cf/cf_geometry.h"
#include "internal.h"

/* how far a face of @p m (a polyhedron about the origin) lies inside the sphere of radius r: r less
   the smallest distance of a face's plane from the centre */
static double sag(const cfTriMesh *m, double r)
{
    double dmin = r;
    for (int t = 0; t < m->n_tris; ++t) {
        cfVec3 a = m->v[m->tri[t][0]], b = m->v[m->tri[t][1]], c = m->v[m->tri[t][2]];
        cfVec3 n = cfu_normalize(cfu_cross(cfu_sub(b, a), cfu_sub(c, a)));
        dmin = fmin(dmin, fabs(cfu_dot(n, a)));
    }
    return r - dmin;
}

int cf_world_ipc_add_sphere(cfIpcSystem *s, cfVec3 centre, double radius, double dhat, int *level)
{
    cfTriMesh m = {0};
    int L = 1;
    for (;; ++L) {
        if (cf_trimesh_icosphere(&m, radius, L) != CF_OK) return -1;
        if (L == CF_IPC_SPHERE_LEVEL_MAX || sag(&m, radius) <= 0.5 * dhat) break;
        cf_trimesh_free(&m);
    }
    int first = s->n;
    for (int i = 0; i < m.n_verts && first >= 0; ++i)
        if (cf_ipc_add_node(s, cfu_add(centre, m.v[i]), 1.0, true) < 0) first = -1;
    for (int t = 0; t < m.n_tris && first >= 0; ++t)
        if (cf_ipc_add_triangle(s, first + m.tri[t][0], first + m.tri[t][1], first + m.tri[t][2]) < 0) first = -1;
    cf_trimesh_free(&m);
    if (level) *level = L;
    return first;
}
