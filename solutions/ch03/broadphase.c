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
    // BEGIN SOLUTION ch03.7
    if (n < 0) return CF_BAD_INPUT;
    pairs->count = 0;
    if (n < 2) return CF_OK;
    /* the sweep axis: largest variance of the centres */
    double mean[3] = {0, 0, 0}, var[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i) {
        if (!cfu_vec3_finite(boxes[i].lo) || !cfu_vec3_finite(boxes[i].hi)) return CF_BAD_INPUT;
        cfVec3 c = cfu_scale(0.5, cfu_add(boxes[i].lo, boxes[i].hi));
        for (int a = 0; a < 3; ++a) mean[a] += cfu_vec3_at(c, a) / n;
    }
    for (int i = 0; i < n; ++i) {
        cfVec3 c = cfu_scale(0.5, cfu_add(boxes[i].lo, boxes[i].hi));
        for (int a = 0; a < 3; ++a) {
            double d = cfu_vec3_at(c, a) - mean[a];
            var[a] += d * d;
        }
    }
    int axis = 0;
    for (int a = 1; a < 3; ++a)
        if (var[a] > var[axis]) axis = a;

    SortKey *keys = malloc((size_t)n * sizeof *keys);
    int *active = malloc((size_t)n * sizeof *active);
    if (!keys || !active) {
        free(keys);
        free(active);
        return CF_NO_MEMORY;
    }
    for (int i = 0; i < n; ++i) keys[i] = (SortKey){cfu_vec3_at(boxes[i].lo, axis), i};
    qsort(keys, (size_t)n, sizeof *keys, key_cmp);

    /* sweep: the active list holds the boxes whose interval may still reach the current one */
    cfStatus st = CF_OK;
    long t = 0;
    int na = 0;
    for (int s = 0; s < n && st == CF_OK; ++s) {
        int i = keys[s].index;
        double lo = keys[s].lo;
        int keep = 0;
        for (int k = 0; k < na; ++k) {
            int j = active[k];
            if (cfu_vec3_at(boxes[j].hi, axis) < lo) continue; /* ended before this box starts */
            active[keep++] = j;
            ++t;
            if (cf_aabb_overlap(boxes[i], boxes[j])) {
                st = cf_pairs_push(pairs, i < j ? i : j, i < j ? j : i);
                if (st != CF_OK) break;
            }
        }
        if (st != CF_OK) break;
        na = keep;
        active[na++] = i;
    }
    free(keys);
    free(active);
    if (st != CF_OK) return st;
    cf_pairs_sort(pairs);
    if (tests) *tests += t;
    return CF_OK;
    // END SOLUTION
    // STUB ch03.7: return CF_TODO_S("ch03.7");
    //< ch03:sap
}
