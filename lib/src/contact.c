/* SPDX-License-Identifier: MIT */
/* Contacts: side kinds, friction laws and growable lists. */
#include "cf/cf_contact.h"

#include <stdlib.h>
#include <string.h>

/* Every pass over the contacts (detection writing them, warm start, assembly) walks this size per
   contact: the hot fields (152 bytes) and the pointer to the cold part, nothing more. A field added
   to cfContact belongs in cfContactExtra unless every solver reads it. */
_Static_assert(sizeof(cfContact) == 152 + sizeof(cfContactExtra *), "cfContact: the hot fields and one pointer");

cfStatus cf_contacts_reserve(cfContactList *list, int extra)
{
    if (list->count + extra <= list->cap) return CF_OK;
    int nc = list->cap ? 2 * list->cap : 16;
    while (nc < list->count + extra) nc *= 2;
    cfContact *p = realloc(list->items, (size_t)nc * sizeof *p);
    if (!p) return CF_NO_MEMORY;
    list->items = p;
    list->cap = nc;
    return CF_OK;
}

cfContactExtra *cf_contacts_extra(cfContactList *list, cfContact *c)
{
    if (c->extra) return c->extra;
    int block = list->n_extras / CF_CONTACT_EXTRA_BLOCK, slot = list->n_extras % CF_CONTACT_EXTRA_BLOCK;
    if (block == list->n_blocks) {
        /* only the array of block pointers moves; the blocks themselves never do */
        cfContactExtra **blocks = realloc(list->blocks, (size_t)(block + 1) * sizeof *blocks);
        if (!blocks) return NULL;
        list->blocks = blocks;
        if (!(blocks[block] = malloc(CF_CONTACT_EXTRA_BLOCK * sizeof **blocks))) return NULL;
        list->n_blocks++;
    }
    cfContactExtra *e = &list->blocks[block][slot];
    memset(e, 0, sizeof *e);
    list->n_extras++;
    c->extra = e;
    return e;
}

cfStatus cf_contacts_push(cfContactList *list, const cfContact *c)
{
    cfStatus st = cf_contacts_reserve(list, 1);
    if (st != CF_OK) return st;
    cfContact *d = &list->items[list->count];
    *d = *c;
    if (c->extra) {
        d->extra = NULL;
        cfContactExtra *e = cf_contacts_extra(list, d);
        if (!e) return CF_NO_MEMORY;
        *e = *c->extra;
    }
    list->count++;
    return CF_OK;
}

void cf_contacts_clear(cfContactList *list)
{
    list->count = 0;
    list->n_extras = 0;
}

void cf_contacts_free(cfContactList *list)
{
    for (int k = 0; k < list->n_blocks; ++k) free(list->blocks[k]);
    free(list->blocks);
    free(list->items);
    memset(list, 0, sizeof *list);
}

const char *cf_side_kind_name(cfSideKind k)
{
    switch (k) {
    case CF_SIDE_STATIC: return "static";
    case CF_SIDE_RIGID: return "rigid";
    case CF_SIDE_SOFT: return "soft";
    case CF_SIDE_KIND_COUNT: break;
    }
    return "unknown";
}

const char *cf_friction_law_name(cfFrictionLaw law)
{
    switch (law) {
    case CF_LAW_ISOTROPIC: return "isotropic";
    case CF_LAW_ORTHOTROPIC: return "orthotropic";
    case CF_LAW_TENSOR: return "tensor";
    case CF_LAW_DIRECTIONAL: return "directional";
    case CF_LAW_COUNT: break;
    }
    return "unknown";
}

const cfFriction *cf_contact_friction(const cfContact *c)
{
    static const cfFriction isotropic; /* zeroed: CF_LAW_ISOTROPIC */
    return c->extra ? &c->extra->friction : &isotropic;
}

bool cf_contact_isotropic(const cfContact *c) { return !c->extra || c->extra->friction.law == CF_LAW_ISOTROPIC; }
