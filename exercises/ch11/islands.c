/* SPDX-License-Identifier: MIT */
/* Chapter 11, exercise ch11.2: the islands of a step (connected components of the dynamic
   bodies through their contacts) and the rule that picks a solver for each. Specification:
   lib/include/cf/cf_ch11.h; text: chapters/ch11/README.md. */
#include "cf/cf_ch11.h"

#include <stdlib.h>


//> ch11:islands
static cfStatus islands_fill(const cfRigidBody *bodies, int nb, int ns, const cfContact *contacts, int nc, cfIslands *out)
{
    // TODO(ch11.2): implement this; the specification is in cf_ch11.h
    return CF_TODO_S("ch11.2");
}
//< ch11:islands

cfStatus cf_islands_find(const cfRigidBody *bodies, int nb, int ns, const cfContact *contacts, int nc, cfIslands *out)
{
    if (!out) return CF_BAD_INPUT;
    cfIslands zero = {0};
    *out = zero;
    if (nb < 0 || ns < 0 || nc < 0 || (nb > 0 && !bodies) || (nc > 0 && !contacts)) return CF_BAD_INPUT;
    for (int a = 0; a < nc; ++a)
        for (int side = 0; side < 2; ++side) {
            const cfContact *c = &contacts[a];
            int r = side == 0 ? c->body_a : c->body_b;
            const cfSoftSide *s = cf_contact_soft(c, side);
            cfSideKind k = cf_contact_side_kind(c, side);
            if ((k == CF_SIDE_RIGID && r >= nb) || (k == CF_SIDE_SOFT && (s->body < 0 || s->body >= ns))) return CF_BAD_INPUT;
        }
    out->nb = nb, out->ns = ns, out->nc = nc;
    out->of_body = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *out->of_body);
    out->of_soft = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *out->of_soft);
    out->of_contact = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *out->of_contact);
    cfStatus st = out->of_body && out->of_soft && out->of_contact ? CF_OK : CF_NO_MEMORY;
    if (st == CF_OK) st = islands_fill(bodies, nb, ns, contacts, nc, out);
    if (st != CF_OK) cf_islands_free(out);
    return st;
}

//> ch11:rule
const char *cf_island_solver(const cfIslandSummary *s)
{
    if (!s) return NULL;
    // TODO(ch11.2): implement this; the specification is in cf_ch11.h
    return (CF_TODO("ch11.2"), (const char *)NULL);
}
//< ch11:rule
