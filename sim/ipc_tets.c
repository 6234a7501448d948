/* SPDX-License-Identifier: MIT */
/* The ipc pipeline's tetrahedral soft bodies (gather() in ipc.c): a body's tetrahedra become
   chapter 9's elastic elements (cf_ipc_add_tet(): the stable Neo-Hookean energy with its projected
   Hessian, the body's E and nu) and the boundary of its tetrahedra its barrier geometry (the faces
   that belong to one tetrahedron only, outward, with their edges), so that the triangles IPC keeps
   apart are faces of the elements that deform. */
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch09.h"
#include "internal.h"

/* a face of a tetrahedron: its sorted nodes (the key), the nodes outward, the opposite node */
typedef struct Face {
    int key[3];
    int out[3];
} Face;

static int face_cmp(const void *a, const void *b)
{
    const Face *x = a, *y = b;
    for (int i = 0; i < 3; ++i)
        if (x->key[i] != y->key[i]) return x->key[i] < y->key[i] ? -1 : 1;
    /* equal keys: by the outward order, so that the sort is deterministic whatever qsort does */
    for (int i = 0; i < 3; ++i)
        if (x->out[i] != y->out[i]) return x->out[i] < y->out[i] ? -1 : 1;
    return 0;
}

static void sort3(int k[3])
{
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2 - i; ++j)
            if (k[j] > k[j + 1]) {
                int t = k[j];
                k[j] = k[j + 1], k[j + 1] = t;
            }
}

cfStatus cf_world_ipc_add_tets(cfIpcSystem *s, const cfSoftBody *b, int o)
{
    //> ch09:world-tets
    /* a positively oriented tet (n0, n1, n2, n3): its outward faces, counter-clockwise from outside */
    static const int F[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
    int nf = 4 * b->n_tets;
    Face *f = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *f);
    if (!f) return CF_NO_MEMORY;
    cfStatus st = CF_OK;
    for (int t = 0; t < b->n_tets && st == CF_OK; ++t) {
        const int *n = b->tets[t].n;
        int node[4] = {o + n[0], o + n[1], o + n[2], o + n[3]};
        st = cf_ipc_add_tet(s, node, b->young, b->poisson);
        for (int k = 0; k < 4; ++k) {
            Face *x = &f[4 * t + k];
            for (int i = 0; i < 3; ++i) x->key[i] = x->out[i] = n[F[k][i]];
            sort3(x->key);
        }
    }
    if (st == CF_OK) qsort(f, (size_t)nf, sizeof *f, face_cmp);
    for (int i = 0; i < nf && st == CF_OK;) { /* the faces of one tet only: the boundary */
        int j = i + 1;
        while (j < nf && memcmp(f[j].key, f[i].key, sizeof f[i].key) == 0) ++j;
        if (j == i + 1 && cf_ipc_add_triangle(s, o + f[i].out[0], o + f[i].out[1], o + f[i].out[2]) < 0) st = CF_NO_MEMORY;
        i = j;
    }
    free(f);
    return st;
    //< ch09:world-tets
}
