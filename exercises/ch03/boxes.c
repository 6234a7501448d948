/* SPDX-License-Identifier: MIT */
/* Chapter 3, exercise ch03.3: separating axes of two boxes, clipped face manifolds, edge-edge
   contacts and box against plane. Specification: lib/include/cf/cf_ch03.h. */
#include "cf/cf_ch03.h"

#include <string.h>

/* *c: a contact from the two surface points: p = (p_A + p_B)/2, phi measured along n, the rest
   zero (written in place: a contact is a few hundred bytes) */
static void contact_from(cfContact *c, cfVec3 pa, cfVec3 pb, cfVec3 n, double phi, uint32_t feature)
{
    memset(c, 0, sizeof *c);
    c->p = cfu_scale(0.5, cfu_add(pa, pb));
    c->n = n;
    c->phi = phi;
    c->feature = feature;
}

/* the unit axis l oriented from A to B (n . d >= 0) */
static cfVec3 orient(cfVec3 l, cfVec3 d) { return cfu_dot(l, d) < 0.0 ? cfu_neg(l) : l; }

static double max3(cfVec3 v) { return fmax(v.x, fmax(v.y, v.z)); }

cfSatResult cf_sat_box_box(const cfObb *a, const cfObb *b, double margin)
{
    //> ch03:sat
    // TODO(ch03.3): implement this; the specification is in cf_ch03.h
    CF_TODO("ch03.3");
    cfSatResult none = {0};
    return none;
    //< ch03:sat
}

//> ch03:clip
// TODO(ch03.3): implement this; the specification is in cf_ch03.h
/* helpers of your own: polygon clipping (text section 3.4) */
//< ch03:clip

//> ch03:face-contacts
// TODO(ch03.3): implement this; the specification is in cf_ch03.h
/* helpers of your own: face contacts from the reference and incident faces */
//< ch03:face-contacts


int cf_collide_box_box(const cfObb *a, const cfObb *b, double margin, int max_contacts, cfContact *out)
{
    //> ch03:box-box
    // TODO(ch03.3): implement this; the specification is in cf_ch03.h
    return CF_TODO_I("ch03.3");
    //< ch03:box-box
}

int cf_collide_plane_box(cfVec3 n, double offset, const cfObb *b, double margin, int max_contacts, cfContact *out)
{
    //> ch03:plane-box
    // TODO(ch03.3): implement this; the specification is in cf_ch03.h
    return CF_TODO_I("ch03.3");
    //< ch03:plane-box
}
