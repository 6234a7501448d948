/* SPDX-License-Identifier: MIT */
/* Chapter 3, exercise ch03.5: conservative CCD by interval inclusion and subdivision
   (Tight-Inclusion style). Specification: lib/include/cf/cf_ch03.h. */
#include "cf/cf_ch03.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* the multivariate map F at one point of the domain; *mag receives the largest |position|
   component used (for the rounding-error bound) */
static cfVec3 ccd_map(cfCcdKind kind, const cfVec3 x[4], const cfVec3 u[4], double t, double p, double q,
                      double *mag)
{
    cfVec3 y[4];
    double m = 0.0;
    for (int k = 0; k < 4; ++k) {
        y[k] = cfu_mul_add(x[k], t, u[k]);
        m = fmax(m, fmax(fabs(y[k].x), fmax(fabs(y[k].y), fabs(y[k].z))));
    }
    *mag = m;
    if (kind == CF_CCD_VF) {
        /* (1 - p - q) y0 + p y1 + q y2 - y3 */
        cfVec3 s = cfu_scale(1.0 - p - q, y[0]);
        s = cfu_mul_add(s, p, y[1]);
        s = cfu_mul_add(s, q, y[2]);
        return cfu_sub(s, y[3]);
    }
    /* y0 + p (y1 - y0) - y2 - q (y3 - y2) */
    cfVec3 a = cfu_mul_add(y[0], p, cfu_sub(y[1], y[0]));
    cfVec3 b = cfu_mul_add(y[2], q, cfu_sub(y[3], y[2]));
    return cfu_sub(a, b);
}

void cf_ccd_inclusion_bounds(cfCcdKind kind, const cfVec3 x[4], const cfVec3 u[4], const cfBox3 *dom, cfAabb *img)
{
    //> ch03:inclusion-bounds
    // BEGIN SOLUTION ch03.5
    cfAabb box = cf_aabb_empty();
    double mag = 0.0;
    for (int corner = 0; corner < 8; ++corner) {
        double t = (corner & 1) ? dom->hi[0] : dom->lo[0];
        double p = (corner & 2) ? dom->hi[1] : dom->lo[1];
        double q = (corner & 4) ? dom->hi[2] : dom->lo[2];
        double m;
        box = cf_aabb_add_point(box, ccd_map(kind, x, u, t, p, q, &m));
        mag = fmax(mag, m);
    }
    /* multilinear: the image of the box lies in the hull of the corner images; widen by a
       bound on the rounding error so that floating point cannot hide a root */
    *img = cf_aabb_inflate(box, 8.0 * DBL_EPSILON * mag);
    // END SOLUTION
    // STUB ch03.5: CF_TODO("ch03.5");
    // STUB ch03.5: img->lo = img->hi = cfu_zero3();
    //< ch03:inclusion-bounds
}

// BEGIN SOLUTION ch03.5
/* a binary min-heap of domain boxes keyed by (lo[0], insertion number) */
typedef struct Item {
    cfBox3 box;
    long seq;
} Item;

typedef struct Heap {
    Item *a;
    int n, cap;
} Heap;

static bool item_less(const Item *p, const Item *q)
{
    return p->box.lo[0] < q->box.lo[0] || (p->box.lo[0] == q->box.lo[0] && p->seq < q->seq);
}

static void heap_push(Heap *h, Item it)
{
    int i = h->n++;
    h->a[i] = it;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (!item_less(&h->a[i], &h->a[parent])) break;
        Item tmp = h->a[i];
        h->a[i] = h->a[parent];
        h->a[parent] = tmp;
        i = parent;
    }
}

static Item heap_pop(Heap *h)
{
    Item top = h->a[0];
    h->a[0] = h->a[--h->n];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && item_less(&h->a[l], &h->a[m])) m = l;
        if (r < h->n && item_less(&h->a[r], &h->a[m])) m = r;
        if (m == i) break;
        Item tmp = h->a[i];
        h->a[i] = h->a[m];
        h->a[m] = tmp;
        i = m;
    }
    return top;
}
// END SOLUTION

cfCcdResult cf_ccd_inclusion(cfCcdKind kind, const cfVec3 x[4], const cfVec3 u[4], double h, double delta,
                             int max_boxes)
{
    //> ch03:inclusion
    // BEGIN SOLUTION ch03.5
    cfCcdResult r;
    memset(&r, 0, sizeof r);
    r.status = CF_CCD_MISS;
    r.toi = h;
    if (!(h > 0.0) || !isfinite(h) || !(delta > 0.0) || max_boxes < 1) return r;
    /* the queue grows as boxes are split, to max_boxes entries: most queries exclude the first few
       boxes and need no more than a handful (a queue of max_boxes from the start cost a 5.6 MB
       allocation per query, the CCD line search of a 10k-node cloth makes thousands) */
    Heap heap = {malloc(64 * sizeof(Item)), 0, 64};
    if (!heap.a) {
        r.status = CF_CCD_BUDGET; /* cannot search: 0 is a valid lower bound */
        r.toi = 0.0;
        return r;
    }
    long seq = 0;
    Item start = {{{0.0, 0.0, 0.0}, {h, 1.0, 1.0}}, seq++};
    heap_push(&heap, start);
    while (heap.n > 0) {
        Item it = heap_pop(&heap);
        cfBox3 *B = &it.box;
        if (++r.boxes > max_boxes) {
            r.status = CF_CCD_BUDGET;
            r.toi = B->lo[0];
            break;
        }
        if (kind == CF_CCD_VF && B->lo[1] + B->lo[2] > 1.0) continue; /* outside the triangle */
        cfAabb img;
        cf_ccd_inclusion_bounds(kind, x, u, B, &img);
        if (img.lo.x > 0.0 || img.hi.x < 0.0 || img.lo.y > 0.0 || img.hi.y < 0.0 || img.lo.z > 0.0 ||
            img.hi.z < 0.0)
            continue; /* certified: no root in this box */
        double w[3] = {(B->hi[0] - B->lo[0]) / h, B->hi[1] - B->lo[1], B->hi[2] - B->lo[2]};
        int k = 0;
        for (int d = 1; d < 3; ++d)
            if (w[d] > w[k]) k = d;
        if (w[k] <= delta) {
            /* small enough: every earlier box was excluded or still waits behind this one */
            r.status = CF_CCD_HIT;
            r.toi = B->lo[0];
            double tm = 0.5 * (B->lo[0] + B->hi[0]), pm = 0.5 * (B->lo[1] + B->hi[1]);
            if (kind == CF_CCD_VF) {
                r.p = cfu_mul_add(x[3], tm, u[3]);
            } else {
                cfVec3 a0 = cfu_mul_add(x[0], tm, u[0]), a1 = cfu_mul_add(x[1], tm, u[1]);
                r.p = cfu_mul_add(a0, pm, cfu_sub(a1, a0));
            }
            r.a = pm;
            r.b = 0.5 * (B->lo[2] + B->hi[2]);
            break;
        }
        if (heap.n + 2 > max_boxes) {
            r.status = CF_CCD_BUDGET;
            r.toi = B->lo[0];
            break;
        }
        if (heap.n + 2 > heap.cap) {
            int cap = heap.cap > max_boxes / 2 ? max_boxes : 2 * heap.cap;
            Item *a = realloc(heap.a, (size_t)cap * sizeof(Item));
            if (!a) { /* out of memory: the box being examined still bounds the time from below */
                r.status = CF_CCD_BUDGET;
                r.toi = B->lo[0];
                break;
            }
            heap.a = a;
            heap.cap = cap;
        }
        double mid = 0.5 * (B->lo[k] + B->hi[k]);
        Item lo = it, hi = it;
        lo.box.hi[k] = mid;
        hi.box.lo[k] = mid;
        lo.seq = seq++;
        hi.seq = seq++;
        heap_push(&heap, lo);
        heap_push(&heap, hi);
    }
    free(heap.a);
    return r;
    // END SOLUTION
    // STUB ch03.5: CF_TODO("ch03.5");
    // STUB ch03.5: cfCcdResult none = {CF_CCD_MISS, h, {0, 0, 0}, {0, 0, 0}, 0, 0, 0};
    // STUB ch03.5: return none;
    //< ch03:inclusion
}
