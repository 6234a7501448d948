/* SPDX-License-Identifier: MIT */
/* Chapter 11, exercise ch11.2: the islands of a step (connected components of the dynamic
   bodies through their contacts) and the rule that picks a solver for each. Specification:
   lib/include/cf/cf_ch11.h; text: chapters/ch11/README.md. */
#include "cf/cf_ch11.h"

#include <stdlib.h>

// BEGIN SOLUTION ch11.2
/* union-find over the nodes 0..nb-1 (rigid) and nb..nb+ns-1 (soft), by path halving */
static int root(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* the node of side @p side of contact @p c, -1 when that side is not a dynamic body */
static int node_of(const cfContact *c, int side, const cfRigidBody *bodies, int nb)
{
    switch (cf_contact_side_kind(c, side)) {
    case CF_SIDE_RIGID: {
        int i = side == 0 ? c->body_a : c->body_b;
        return bodies[i].fixed ? -1 : i;
    }
    case CF_SIDE_SOFT: return nb + cf_contact_soft(c, side)->body;
    case CF_SIDE_STATIC:
    case CF_SIDE_KIND_COUNT: break;
    }
    return -1;
}
// END SOLUTION

//> ch11:islands
static cfStatus islands_fill(const cfRigidBody *bodies, int nb, int ns, const cfContact *contacts, int nc, cfIslands *out)
{
    // BEGIN SOLUTION ch11.2
    int n = nb + ns;
    int *parent = malloc((size_t)(n > 0 ? n : 1) * sizeof *parent);
    int *label = malloc((size_t)(n > 0 ? n : 1) * sizeof *label);
    if (!parent || !label) {
        free(parent);
        free(label);
        return CF_NO_MEMORY;
    }
    for (int i = 0; i < n; ++i) parent[i] = i;
    for (int a = 0; a < nc; ++a) {
        int p = node_of(&contacts[a], 0, bodies, nb), q = node_of(&contacts[a], 1, bodies, nb);
        if (p >= 0 && q >= 0) parent[root(parent, p)] = root(parent, q);
    }
    /* number the roots in the order of their first node */
    for (int i = 0; i < n; ++i) label[i] = -1;
    out->count = 0;
    for (int i = 0; i < n; ++i) {
        if (i < nb && bodies[i].fixed) continue;
        int r = root(parent, i);
        if (label[r] < 0) label[r] = out->count++;
        if (i < nb) out->of_body[i] = label[r];
        else out->of_soft[i - nb] = label[r];
    }
    for (int i = 0; i < nb; ++i)
        if (bodies[i].fixed) out->of_body[i] = -1;
    for (int a = 0; a < nc; ++a) {
        int p = node_of(&contacts[a], 0, bodies, nb);
        if (p < 0) p = node_of(&contacts[a], 1, bodies, nb);
        out->of_contact[a] = p >= 0 ? label[root(parent, p)] : -1;
    }
    free(parent);
    free(label);
    return CF_OK;
    // END SOLUTION
    // STUB ch11.2: return CF_TODO_S("ch11.2");
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
    // BEGIN SOLUTION ch11.2
    if (s->contacts == 0) return NULL;
    if (s->directional) return "pgs-texture";
    if (s->soft > 0) return s->anisotropic ? "prox-gs-aniso" : "dual";
    if (s->anisotropic) return "pgs-blocked-aniso";
    if (s->contacts <= CF_EXACT_MAX_CONTACTS) return "lemke";
    return "pgs";
    // END SOLUTION
    // STUB ch11.2: return (CF_TODO("ch11.2"), (const char *)NULL);
}
//< ch11:rule
