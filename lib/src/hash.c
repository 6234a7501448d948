/* SPDX-License-Identifier: MIT */
/* A spatial hash: boxes entered in the cells of a uniform grid, hashed into buckets. */
#include "cf/cf_geometry.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* boxes covering more cells than this go to the list every query checks */
#define BIG_CELLS 4096

void cf_hash_free(cfSpatialHash *h)
{
    free(h->start);
    free(h->entry);
    free(h->big);
    free(h->boxes);
    free(h->mark);
    free(h->found);
    memset(h, 0, sizeof *h);
}

/* the cell range [lo, hi] of a box along each axis; false when it covers too many cells */
static bool cell_range(const cfSpatialHash *h, cfAabb b, int64_t lo[3], int64_t hi[3])
{
    double count = 1.0;
    for (int a = 0; a < 3; ++a) {
        double l = floor(cfu_vec3_at(b.lo, a) / h->cell), u = floor(cfu_vec3_at(b.hi, a) / h->cell);
        if (!(isfinite(l) && isfinite(u)) || fabs(l) > 1e15 || fabs(u) > 1e15) return false;
        lo[a] = (int64_t)l;
        hi[a] = (int64_t)u;
        count *= (u - l + 1.0);
    }
    return count <= BIG_CELLS;
}

static unsigned bucket(const cfSpatialHash *h, int64_t x, int64_t y, int64_t z)
{
    uint64_t k = (uint64_t)x * 73856093u ^ (uint64_t)y * 19349663u ^ (uint64_t)z * 83492791u;
    k ^= k >> 29;
    return (unsigned)(k & (uint64_t)(h->n_buckets - 1));
}

cfStatus cf_hash_build(cfSpatialHash *h, const cfAabb *boxes, int n, double cell)
{
    memset(h, 0, sizeof *h);
    if (!(isfinite(cell) && cell > 0.0) || n < 0) return CF_BAD_INPUT;
    for (int i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a)
            if (isnan(cfu_vec3_at(boxes[i].lo, a)) || isnan(cfu_vec3_at(boxes[i].hi, a))) return CF_BAD_INPUT;
    h->cell = cell;
    h->n_items = n;
    size_t m = (size_t)(n > 0 ? n : 1);
    h->boxes = malloc(m * sizeof *h->boxes);
    h->mark = calloc(m, sizeof *h->mark);
    h->big = malloc(m * sizeof *h->big);
    if (!h->boxes || !h->mark || !h->big) {
        cf_hash_free(h);
        return CF_NO_MEMORY;
    }
    if (n > 0) memcpy(h->boxes, boxes, (size_t)n * sizeof *boxes);
    /* count the entries, size the buckets, then count per bucket and fill */
    long entries = 0;
    int64_t lo[3], hi[3];
    for (int i = 0; i < n; ++i)
        if (cell_range(h, boxes[i], lo, hi)) entries += (long)((hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1));
    h->n_buckets = 16;
    while (h->n_buckets < entries && h->n_buckets < (1 << 26)) h->n_buckets *= 2;
    h->start = calloc((size_t)h->n_buckets + 1, sizeof *h->start);
    h->entry = malloc((size_t)(entries > 0 ? entries : 1) * sizeof *h->entry);
    if (!h->start || !h->entry) {
        cf_hash_free(h);
        return CF_NO_MEMORY;
    }
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < n; ++i) {
            if (!cell_range(h, boxes[i], lo, hi)) {
                if (pass == 0) h->big[h->n_big++] = i;
                continue;
            }
            for (int64_t z = lo[2]; z <= hi[2]; ++z)
                for (int64_t y = lo[1]; y <= hi[1]; ++y)
                    for (int64_t x = lo[0]; x <= hi[0]; ++x) {
                        unsigned k = bucket(h, x, y, z);
                        if (pass == 0) h->start[k + 1]++;
                        else h->entry[h->start[k]++] = i;
                    }
        }
        if (pass == 0)
            for (int k = 0; k < h->n_buckets; ++k) h->start[k + 1] += h->start[k];
    }
    /* the fill advanced start[k] to the end of bucket k: shift back */
    for (int k = h->n_buckets; k > 0; --k) h->start[k] = h->start[k - 1];
    h->start[0] = 0;
    return CF_OK;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static bool take(cfSpatialHash *h, int i, cfAabb box, int *count)
{
    if (h->mark[i] == h->stamp) return true;
    h->mark[i] = h->stamp;
    if (!cf_aabb_overlap(h->boxes[i], box)) return true;
    if (*count == h->cap_found) {
        int nc = h->cap_found ? 2 * h->cap_found : 64;
        int *f = realloc(h->found, (size_t)nc * sizeof *f);
        if (!f) return false;
        h->found = f;
        h->cap_found = nc;
    }
    h->found[(*count)++] = i;
    return true;
}

int cf_hash_query(cfSpatialHash *h, cfAabb box, const int **items)
{
    *items = h->found;
    if (h->stamp == INT_MAX) { /* the stamps ran out: forget every mark */
        memset(h->mark, 0, (size_t)(h->n_items > 0 ? h->n_items : 1) * sizeof *h->mark);
        h->stamp = 0;
    }
    h->stamp++;
    int count = 0;
    for (int k = 0; k < h->n_big; ++k)
        if (!take(h, h->big[k], box, &count)) return -1;
    int64_t lo[3], hi[3];
    if (cell_range(h, box, lo, hi)) {
        for (int64_t z = lo[2]; z <= hi[2]; ++z)
            for (int64_t y = lo[1]; y <= hi[1]; ++y)
                for (int64_t x = lo[0]; x <= hi[0]; ++x) {
                    unsigned k = bucket(h, x, y, z);
                    for (int e = h->start[k]; e < h->start[k + 1]; ++e)
                        if (!take(h, h->entry[e], box, &count)) return -1;
                }
    } else { /* a huge query box: test every box */
        for (int i = 0; i < h->n_items; ++i)
            if (!take(h, i, box, &count)) return -1;
    }
    if (count > 1) qsort(h->found, (size_t)count, sizeof *h->found, int_cmp); /* found may be NULL when empty */
    *items = h->found;
    return count;
}
