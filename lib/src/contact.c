/* SPDX-License-Identifier: MIT */
/* Contacts: side kinds, friction laws and growable lists. */
#include "cf/cf_contact.h"

#include <stdlib.h>
#include <string.h>

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

cfStatus cf_contacts_push(cfContactList *list, const cfContact *c)
{
    cfStatus st = cf_contacts_reserve(list, 1);
    if (st != CF_OK) return st;
    list->items[list->count++] = *c;
    return CF_OK;
}

void cf_contacts_clear(cfContactList *list) { list->count = 0; }

void cf_contacts_free(cfContactList *list)
{
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
    case CF_LAW_COUNT: break;
    }
    return "unknown";
}

bool cf_contact_isotropic(const cfContact *c) { return c->friction.law == CF_LAW_ISOTROPIC; }
