/* SPDX-License-Identifier: MIT */
/* Contact lists. */
#include "cf/cf_contact.h"

#include <stdlib.h>
#include <string.h>

cfStatus cf_contacts_push(cfContactList *list, const cfContact *c)
{
    if (list->count == list->cap) {
        int nc = list->cap ? 2 * list->cap : 16;
        cfContact *p = realloc(list->items, (size_t)nc * sizeof *p);
        if (!p) return CF_NO_MEMORY;
        list->items = p;
        list->cap = nc;
    }
    list->items[list->count++] = *c;
    return CF_OK;
}

void cf_contacts_clear(cfContactList *list) { list->count = 0; }

void cf_contacts_free(cfContactList *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}
