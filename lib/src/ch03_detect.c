/* SPDX-License-Identifier: MIT */
/* World contact detection: broad phase, shape-pair dispatch to the chapter-3 routines, A->B normals. */
#include "cf/cf_detect.h"

#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch03.h"
#include "cf/cf_world.h"

const char *cf_broadphase_name(cfBroadphaseKind k)
{
    switch (k) {
    case CF_BROADPHASE_SAP: return "sap";
    case CF_BROADPHASE_ALL_PAIRS: return "all-pairs";
    }
    return "unknown";
}

cfDetectOptions cf_detect_options_default(void)
{
    cfDetectOptions o = {0.0, 4, CF_BROADPHASE_SAP};
    return o;
}

static bool options_ok(const cfDetectOptions *o)
{
    return isfinite(o->margin) && o->margin >= 0.0 && o->max_contacts >= 1 &&
           o->max_contacts <= CF_BOX_MAX_CONTACTS &&
           (o->broadphase == CF_BROADPHASE_SAP || o->broadphase == CF_BROADPHASE_ALL_PAIRS);
}

/* ---- grid SDF as a cfSdf -------------------------------------------------------------- */

static double eval_grid(const void *data, cfVec3 x, cfVec3 *grad) { return cf_sdf_grid_eval(data, x, grad); }

cfSdf cf_sdf_of_grid(const cfSdfGrid *g)
{
    cfSdf s = {eval_grid, g};
    return s;
}

/* ---- one pair ------------------------------------------------------------------------- */

/* contacts with `first` as A and `second` as B in the routines' roles; -1 when unsupported */
static int narrow(const cfRigidBody *first, const cfRigidBody *second, const cfDetectOptions *o, cfContact *out)
{
    const cfShape *s1 = &first->shape, *s2 = &second->shape;
    double m = o->margin;
    if (s1->type == CF_SHAPE_SPHERE && s2->type == CF_SHAPE_SPHERE)
        return cf_collide_sphere_sphere(first->x, s1->radius, second->x, s2->radius, m, out);
    if (s1->type == CF_SHAPE_SPHERE && s2->type == CF_SHAPE_BOX) {
        cfObb b = cf_obb_of_body(second);
        return cf_collide_sphere_box(first->x, s1->radius, &b, m, out);
    }
    if (s1->type == CF_SHAPE_BOX && s2->type == CF_SHAPE_BOX) {
        cfObb a = cf_obb_of_body(first), b = cf_obb_of_body(second);
        return cf_collide_box_box(&a, &b, m, o->max_contacts, out);
    }
    if (s1->type == CF_SHAPE_PLANE && s2->type == CF_SHAPE_SPHERE)
        return cf_collide_plane_sphere(s1->normal, s1->offset, second->x, s2->radius, m, out);
    if (s1->type == CF_SHAPE_PLANE && s2->type == CF_SHAPE_BOX) {
        cfObb b = cf_obb_of_body(second);
        return cf_collide_plane_box(s1->normal, s1->offset, &b, m, o->max_contacts, out);
    }
    return -1;
}

/* the routines take (plane, sphere, box) in this order of roles */
static int role_rank(cfShapeType t)
{
    switch (t) {
    case CF_SHAPE_PLANE: return 0;
    case CF_SHAPE_SPHERE: return 1;
    case CF_SHAPE_BOX: return 2;
    case CF_SHAPE_CAPSULE:
    case CF_SHAPE_COUNT: break;
    }
    return 3;
}

int cf_detect_pair(const cfRigidBody *a, int ia, const cfRigidBody *b, int ib, const cfDetectOptions *opt,
                   cfContact *out)
{
    cfDetectOptions o = opt ? *opt : cf_detect_options_default();
    bool swap = role_rank(b->shape.type) < role_rank(a->shape.type);
    int n = swap ? narrow(b, a, &o, out) : narrow(a, b, &o, out);
    if (n < 0) return -1;
    double mu = sqrt(fmax(a->mu, 0.0) * fmax(b->mu, 0.0));
    for (int k = 0; k < n; ++k) {
        if (swap) out[k].n = cfu_neg(out[k].n); /* p and phi are symmetric (midpoint rule) */
        out[k].body_a = ia;
        out[k].body_b = ib;
        out[k].mu = mu;
    }
    return n;
}

/* ---- the world ------------------------------------------------------------------------ */

static cfStatus emit_pair(const cfWorld *w, int i, int j, const cfDetectOptions *o, cfContactList *out,
                          cfDetectStats *st)
{
    const cfRigidBody *a = &w->bodies[i], *b = &w->bodies[j];
    if (a->fixed && b->fixed) return CF_OK;
    st->candidate_pairs++;
    cfContact buf[CF_BOX_MAX_CONTACTS];
    int n = cf_detect_pair(a, i, b, j, o, buf);
    if (n < 0) {
        st->unsupported++;
        return CF_OK;
    }
    st->narrow_calls++;
    for (int k = 0; k < n; ++k) {
        cfStatus s = cf_contacts_push(out, &buf[k]);
        if (s != CF_OK) return s;
    }
    st->contacts += n;
    return CF_OK;
}

static int pair_cmp(const void *x, const void *y)
{
    const cfPair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

cfStatus cf_detect_world(const cfWorld *w, const cfDetectOptions *opt, cfContactList *out, cfDetectStats *stats)
{
    double t0 = cf_seconds();
    cfDetectOptions o = opt ? *opt : cf_detect_options_default();
    cfDetectStats st;
    memset(&st, 0, sizeof st);
    cf_contacts_clear(out);
    if (!options_ok(&o)) return CF_BAD_INPUT;
    int n = w->n_bodies;
    for (int i = 0; i < n; ++i)
        if (!cfu_vec3_finite(w->bodies[i].x) || !cfu_quat_finite(w->bodies[i].q)) return CF_BAD_INPUT;

    /* bounded bodies go through the broad phase; planes pair with everything */
    int *ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
    cfAabb *boxes = malloc((size_t)(n > 0 ? n : 1) * sizeof *boxes);
    cfPairList pairs = {0, 0, NULL};
    cfStatus s = (ids && boxes) ? CF_OK : CF_NO_MEMORY;
    int nb = 0;
    for (int i = 0; s == CF_OK && i < n; ++i) {
        if (w->bodies[i].shape.type == CF_SHAPE_PLANE) continue;
        ids[nb] = i;
        boxes[nb++] = cf_aabb_inflate(cf_aabb_of_body(&w->bodies[i]), 0.5 * o.margin);
    }
    if (s == CF_OK)
        s = o.broadphase == CF_BROADPHASE_SAP ? cf_broadphase_sap(boxes, nb, &pairs, &st.aabb_tests)
                                               : cf_broadphase_all_pairs(boxes, nb, &pairs, &st.aabb_tests);
    /* back to body indices, then add the plane pairs, in lexicographic order */
    for (int k = 0; s == CF_OK && k < pairs.count; ++k) {
        int a = ids[pairs.items[k].a], b = ids[pairs.items[k].b];
        pairs.items[k].a = a < b ? a : b;
        pairs.items[k].b = a < b ? b : a;
    }
    for (int i = 0; s == CF_OK && i < n; ++i) {
        if (w->bodies[i].shape.type != CF_SHAPE_PLANE) continue;
        for (int j = 0; s == CF_OK && j < n; ++j) {
            if (j == i || (w->bodies[j].shape.type == CF_SHAPE_PLANE && j < i)) continue;
            s = cf_pairs_push(&pairs, i < j ? i : j, i < j ? j : i);
        }
    }
    if (s == CF_OK && pairs.count > 1) qsort(pairs.items, (size_t)pairs.count, sizeof *pairs.items, pair_cmp);
    for (int k = 0; s == CF_OK && k < pairs.count; ++k) s = emit_pair(w, pairs.items[k].a, pairs.items[k].b, &o, out, &st);
    free(ids);
    free(boxes);
    cf_pairs_free(&pairs);
    st.seconds = cf_seconds() - t0;
    if (stats) *stats = st;
    return s;
}
