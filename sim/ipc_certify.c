/* SPDX-License-Identifier: MIT */
/* The ipc pipeline's no-crossing certificate, cf_world_crossings(): independent of the step (no
   distance, no barrier, no CCD), from signed volumes only. The world is gathered into one IPC
   system as the step sees it (cf_world_ipc_system(), ipc.c); a crossing is a surface edge through
   a triangle now, or a node's or a box corner's straight path since the state before the step
   through a static triangle. */
#include <stdio.h>
#include <string.h>

#include "cf/cf_ch09.h"
#include "internal.h"

/* ---- the certificate: signed volumes only ------------------------------------------------------- */

/* six times the signed volume of the tetrahedron (a, b, c, d) */
static double orient(cfVec3 a, cfVec3 b, cfVec3 c, cfVec3 d)
{
    return cfu_dot(cfu_cross(cfu_sub(b, a), cfu_sub(c, a)), cfu_sub(d, a));
}

/* the segment p-q meets the triangle a, b, c: p and q not strictly on one side of its plane and
   the line through them inside the triangle's three edges (all three volumes of one sign). A
   segment in the triangle's plane is not counted (it has no crossing direction). */
static bool segment_crosses(cfVec3 p, cfVec3 q, cfVec3 a, cfVec3 b, cfVec3 c)
{
    //> ch09:world-crossing
    double sp = orient(a, b, c, p), sq = orient(a, b, c, q);
    if ((sp > 0.0 && sq > 0.0) || (sp < 0.0 && sq < 0.0) || (sp == 0.0 && sq == 0.0)) return false;
    double u = orient(p, q, a, b), v = orient(p, q, b, c), x = orient(p, q, c, a);
    return (u >= 0.0 && v >= 0.0 && x >= 0.0) || (u <= 0.0 && v <= 0.0 && x <= 0.0);
    //< ch09:world-crossing
}

/* counts a node whose straight path p0 -> p1 crosses a static triangle of @p s (once) */
static int path_crosses(const cfIpcSystem *s, cfVec3 p0, cfVec3 p1)
{
    for (int t = 0; t < s->n_tri; ++t) {
        const int *T = s->tri[t];
        if (s->fixed[T[0]] && s->fixed[T[1]] && s->fixed[T[2]] &&
            segment_crosses(p0, p1, cf_ipc_node(s->q, T[0]), cf_ipc_node(s->q, T[1]), cf_ipc_node(s->q, T[2])))
            return 1;
    }
    return 0;
}

int cf_world_crossings(const cfWorld *w, const cfWorld *before, char *what, size_t cap)
{
    if (what && cap) what[0] = '\0';
    cfError err = {{0}};
    if (cf_world_ipc_check(w, &err) != CF_OK) {
        if (what && cap) snprintf(what, cap, "%s", err.msg);
        return -1;
    }
    if (before && (before->n_soft != w->n_soft || before->n_bodies != w->n_bodies)) {
        if (what && cap) snprintf(what, cap, "the world before the step has other bodies");
        return -1;
    }
    cfIpcSystem s;
    if (cf_world_ipc_system(w, &s) != CF_OK) return -1;
    int count = 0;
    for (int e = 0; e < s.n_edge; ++e)
        for (int t = 0; t < s.n_tri; ++t) {
            const int *E = s.edge[e], *T = s.tri[t];
            if (E[0] == T[0] || E[0] == T[1] || E[0] == T[2] || E[1] == T[0] || E[1] == T[1] || E[1] == T[2]) continue;
            if (s.fixed[E[0]] && s.fixed[E[1]] && s.fixed[T[0]] && s.fixed[T[1]] && s.fixed[T[2]]) continue;
            if (!segment_crosses(cf_ipc_node(s.q, E[0]), cf_ipc_node(s.q, E[1]), cf_ipc_node(s.q, T[0]),
                                 cf_ipc_node(s.q, T[1]), cf_ipc_node(s.q, T[2])))
                continue;
            if (count++ == 0 && what && cap)
                snprintf(what, cap, "surface edge %d-%d crosses triangle %d-%d-%d (system nodes)", E[0], E[1], T[0], T[1],
                         T[2]);
        }
    for (int i = 0; before && i < w->n_soft; ++i)
        for (int k = 0; k < w->soft[i].n_nodes; ++k)
            if (path_crosses(&s, before->soft[i].x[k], w->soft[i].x[k]) && count++ == 0 && what && cap)
                snprintf(what, cap, "node %d of soft body '%s' went through a static triangle in the step", k,
                         w->soft[i].name);
    for (int i = 0; before && i < w->n_bodies; ++i) {
        const cfRigidBody *b0 = &before->bodies[i], *b1 = &w->bodies[i];
        for (int k = 0; !b1->fixed && k < 8; ++k) { /* the corners' straight paths between the two poses */
            cfVec3 X = cfu_vec3(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);
            X = cfu_vec3(X.x * b1->shape.half_extents.x, X.y * b1->shape.half_extents.y, X.z * b1->shape.half_extents.z);
            if (path_crosses(&s, cfu_add(b0->x, cfu_quat_rotate(b0->q, X)), cfu_add(b1->x, cfu_quat_rotate(b1->q, X))) &&
                count++ == 0 && what && cap)
                snprintf(what, cap, "corner %d of rigid body '%s' went through a static triangle in the step", k, b1->name);
        }
    }
    cf_ipc_free(&s);
    return count;
}
