/* SPDX-License-Identifier: MIT */
/* Chapter 3, exercise ch03.7: sweep-and-prune broad phase. Specification: lib/include/cf/cf_ch03.h. */
#include "cf/cf_ch03.h"

#include <stdlib.h>

/* a box's sort key on the sweep axis; ties broken by index so the order is total */
typedef struct SortKey {
    double lo;
    int index;
} SortKey;

static int key_cmp(const void *x, const void *y)
{
    const SortKey *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

cfStatus cf_broadphase_sap(const cfAabb *boxes, int n, cfPairList *pairs, long *tests)
{
    //> ch03:sap
    // TODO(ch03.7): implement this; the specification is in cf_ch03.h
    return CF_TODO_S("ch03.7");
    //< ch03:sap
}
