/* SPDX-License-Identifier: MIT */
/* What the soft detection units share (detect_features.c): a soft body's surface, points against
   rigid shapes and soft triangles, the contacts they make, and the world's soft surfaces as lists
   of features. Used by detect_soft.c (proximity) and detect_ccd.c (continuous), nothing else. */
#ifndef CF_SIM_DETECT_SOFT_H
#define CF_SIM_DETECT_SOFT_H

#include "cf/cf_detect.h"
#include "cf/cf_world.h"

/* a contact with soft sides and the storage of its extra (h->c.extra is &h->x); cf_contacts_push()
   copies both into a list. Never copied by value (the extra would point into the original). */
typedef struct cfSoftHit {
    cfContact c;
    cfContactExtra x;
} cfSoftHit;

/* a zeroed hit whose contact's extra is its own */
void cf_soft_hit_init(cfSoftHit *h);

/* the side of a contact at @p n nodes of soft body @p body with barycentric weights @p w */
cfSoftSide cf_soft_point(int body, int n, const int *node, const double *w);

/* the nodes of a soft body that can touch anything: those of its surface triangles, or every
   node of a body without triangles (a chain); marks[k] != 0 for them (free() it); NULL when out
   of memory */
unsigned char *cf_surface_nodes(const cfSoftBody *s);

/* half the thickness of a soft body: the distance its surface keeps from others */
static inline double cf_soft_offset(const cfSoftBody *s) { return 0.5 * s->thickness; }
/* a sheet (cloth): triangles without tetrahedra, two-sided */
static inline bool cf_soft_sheet(const cfSoftBody *s) { return s->n_tets == 0 && s->n_tris > 0; }

/* Signed distance from the point x to a rigid shape and the unit normal from the shape to the
   point: planes and spheres directly, boxes by ch02.1's cf_gap_point_box(), capsules through the
   closest point of their core segment. False when ch02.1 refuses the input. */
bool cf_point_gap(const cfRigidBody *r, cfVec3 x, double *phi, cfVec3 *n);

/* The contact of soft node @p node of body @p si (side B) with rigid body @p ri (side A) at the
   distance @p phi (cf_point_gap()) along the normal @p n: the gap less the body's offset, the
   point on the rigid surface, sqrt(mu_a mu_b), feature CF_FEAT_SOFT_NODE | node. */
void cf_node_contact(cfSoftHit *h, const cfWorld *w, int si, int node, int ri, double phi, cfVec3 n);

/* The point @p x against triangle @p t of soft body @p s (index @p si): a contact when its
   projection falls inside the triangle and it lies within [-depth, margin] of the triangle's
   plane, depth a quarter of the triangle's shortest edge: a point deeper than that is taken to be
   near another face of the body (a thin slab's far side, a side face), not this one. Side A is the
   triangle, the normal its outward normal; a sheet's triangle is two-sided: the normal turns to
   the point's side. The gap is less the offsets (half thicknesses) of the two sides, @p extra
   the point's. Returns true and fills @p h (side B, mu and feature are the caller's). */
bool cf_point_triangle(const cfSoftBody *s, int si, int t, cfVec3 x, double margin, double extra, cfSoftHit *h);

/* the feature of point @p point (a node or a box corner) against triangle @p tri */
uint32_t cf_face_feature(int tri, int point);

/* An edge of soft body A against an edge of soft body B, at parameters s, t along them */
typedef struct cfEdgePair {
    int A, B;
    const int *ea, *eb; /* the edges' two nodes each */
    double s, t;
} cfEdgePair;

/* the edge-edge contact of @p e with normal @p n from A to B, at the start positions */
void cf_edge_contact(const cfWorld *w, const cfEdgePair *e, cfVec3 n, cfSoftHit *h);

/* every surface triangle, edge and vertex of the world's soft bodies (global lists) */
typedef struct cfSurfaces {
    int nt, ne, nv;
    int *tri_body, *tri;        /* triangle t: body, index in the body */
    int *edge_body, (*edge)[2]; /* edge e: body, nodes (lo < hi) */
    cfVec3 *edge_normal;        /* sum of the outward normals of the edge's triangles */
    int *vert_body, *vert;      /* vertex v: body, node */
    double cell;                /* hash cell: about the longest surface edge */
} cfSurfaces;

cfStatus cf_surfaces_build(const cfWorld *w, cfSurfaces *S);
void cf_surfaces_free(cfSurfaces *S);

/* the features of two soft bodies may touch: different bodies, or a sheet with itself */
static inline bool cf_soft_may_touch(const cfWorld *w, int A, int B) { return A != B || cf_soft_sheet(&w->soft[A]); }
/* does triangle v (3 nodes) have @p node? do the edges a and b share a node? */
static inline bool cf_tri_has(const int *v, int node) { return v[0] == node || v[1] == node || v[2] == node; }
static inline bool cf_edges_share(const int a[2], const int b[2])
{
    return a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1];
}

/* Every pair of surface edges e < f whose boxes @p box (one per edge, filled by the caller)
   overlap, that may touch (cf_soft_may_touch) and share no node: @p visit(ctx, e, f) for each, in
   the order of e, then of the spatial hash's answer, until it returns a status other than CF_OK
   (returned). The proximity pass and the CCD pass ask the same candidates. */
typedef cfStatus (*cfEdgePairVisit)(void *ctx, int e, int f);
cfStatus cf_soft_edge_pairs(const cfWorld *w, const cfSurfaces *S, const cfAabb *box, cfEdgePairVisit visit, void *ctx);

/* the box of triangle t of body b at the positions x and, when @p x1 is not NULL, x1 */
cfAabb cf_tri_box(const cfWorld *w, int b, int t, cfVec3 *const *x1);
/* the box of edge e of body b, likewise */
cfAabb cf_edge_box(const cfWorld *w, int b, const int e[2], cfVec3 *const *x1);

#endif
