/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.5: the full rigid contact system with friction of notes Eq. 198 (body
   velocities, impulses and the friction slack as unknowns) and its non-symmetric Jacobian,
   Eq. 199. Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include <math.h>

#include "cf/cf_ch06.h"

cfStatus cf_contact_system_eval(const cfContactSystem *s, cfNcpKind kind, double r, double eps, const double *x,
                                double *F, cfTriplets *J)
{
    int nu = 6 * s->nb;
    const cfBsr *Jc = &s->J;
    //> ch06:system-eval
    // TODO(ch06.5): implement this; the specification is in cf_ch06.h
    (void)kind; (void)r; (void)eps; (void)x; (void)F; (void)J; (void)nu; (void)Jc;
    return CF_TODO_S("ch06.5");
    //< ch06:system-eval
}
