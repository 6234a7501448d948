/* SPDX-License-Identifier: MIT */
/* Chapter 3, exercises ch03.1-ch03.2: spheres, planes and spheres against oriented boxes.
   Specification: lib/include/cf/cf_ch03.h; text: chapters/ch03/README.md. */
#include "cf/cf_ch03.h"

#include <string.h>

/* a contact from the two surface points: p = (p_A + p_B)/2, phi measured along n */
static cfContact contact_from(cfVec3 pa, cfVec3 pb, cfVec3 n, double phi, uint32_t feature)
{
    cfContact c;
    memset(&c, 0, sizeof c);
    c.p = cfu_scale(0.5, cfu_add(pa, pb));
    c.n = n;
    c.phi = phi;
    c.feature = feature;
    return c;
}

int cf_collide_sphere_sphere(cfVec3 ca, double ra, cfVec3 cb, double rb, double margin, cfContact *out)
{
    //> ch03:sphere-sphere
    // TODO(ch03.1): implement this; the specification is in cf_ch03.h
    return CF_TODO_I("ch03.1");
    //< ch03:sphere-sphere
}

int cf_collide_plane_sphere(cfVec3 n, double offset, cfVec3 c, double r, double margin, cfContact *out)
{
    //> ch03:plane-sphere
    // TODO(ch03.1): implement this; the specification is in cf_ch03.h
    return CF_TODO_I("ch03.1");
    //< ch03:plane-sphere
}

int cf_collide_sphere_box(cfVec3 c, double r, const cfObb *box, double margin, cfContact *out)
{
    //> ch03:sphere-box
    // TODO(ch03.2): implement this; the specification is in cf_ch03.h
    return CF_TODO_I("ch03.2");
    //< ch03:sphere-box
}
