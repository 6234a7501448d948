/* SPDX-License-Identifier: MIT */
/* Detection benchmark (chapter 3): box grid and pyramid walls, sweep and prune vs all pairs. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_detect.h"
#include "cf/cf_world.h"
#include "machine.h"

/* Scenes (z up, unit boxes of half extent 0.5 on a ground plane z = 0):
 *   grid-resting  10 x 10 columns of 10 boxes, 0.1 gaps between columns, boxes in a column
 *                 resting on each other with 1 mm overlap (1000 boxes, the peer engines' case)
 *   grid-gapped   the same columns with 0.1 gaps also between the boxes of a column
 *                 (a pure broad-phase load: only the bottom layer touches the ground)
 *   pyramid-N     a wall of N layers, layer k holding N - k boxes, 0.05 gaps between
 *                 neighbours, each box resting on two below with 1 mm overlap */

static void add_box(cfWorld *w, cfVec3 x)
{
    cfRigidBody b;
    cf_rigid_init(&b, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), 1.0, NULL);
    b.x = x;
    b.mu = 0.5;
    cf_world_add_body(w, &b);
}

static void add_ground(cfWorld *w)
{
    cfRigidBody g;
    cf_rigid_init_fixed(&g, cf_shape_plane(cfu_vec3(0, 0, 1), 0.0), NULL);
    g.mu = 0.5;
    cf_world_add_body(w, &g);
}

static void scene_grid(cfWorld *w, double vertical_gap)
{
    add_ground(w);
    for (int i = 0; i < 10; ++i)
        for (int j = 0; j < 10; ++j)
            for (int k = 0; k < 10; ++k)
                add_box(w, cfu_vec3(1.1 * i, 1.1 * j, 0.5 - 1e-3 + k * (1.0 + vertical_gap)));
}

static void scene_pyramid(cfWorld *w, int layers)
{
    add_ground(w);
    const double dx = 1.05, dz = 1.0 - 1e-3;
    for (int k = 0; k < layers; ++k)
        for (int i = 0; i < layers - k; ++i) add_box(w, cfu_vec3(dx * (i + 0.5 * k), 0.0, 0.5 - 1e-3 + dz * k));
}

typedef struct Scene {
    const char *name;
    int kind;  /* 0 grid resting, 1 grid gapped, 2 pyramid */
    int layers;
} Scene;

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it comes, also through make's | tee */
    int repeats = argc > 1 ? atoi(argv[1]) : 20;
    if (repeats < 1) repeats = 1;
    char machine[512];
    printf("# bench_detect: contact detection, chapter 3 reference solutions\n");
    printf("# machine: %s\n", bench_machine(machine, sizeof machine));
    printf("# compiler: %s; method: min wall time of %d repeats of cf_detect_world(),"
           " margin 0, 4 contacts per pair\n",
#ifdef __VERSION__
           __VERSION__,
#else
           "unknown",
#endif
           repeats);
    printf("scene,bodies,broadphase,aabb_tests,candidate_pairs,narrow_calls,contacts,ms\n");
    const Scene scenes[] = {{"grid-resting", 0, 0}, {"grid-gapped", 1, 0}, {"pyramid-10", 2, 10}, {"pyramid-20", 2, 20}};
    for (size_t s = 0; s < sizeof scenes / sizeof scenes[0]; ++s) {
        cfWorld w;
        if (cf_world_init(&w, NULL) != CF_OK) return 1;
        if (scenes[s].kind == 2)
            scene_pyramid(&w, scenes[s].layers);
        else
            scene_grid(&w, scenes[s].kind == 0 ? -1e-3 : 0.1);
        for (int m = 0; m < 2; ++m) {
            cfDetectOptions o = cf_detect_options_default();
            o.broadphase = m == 0 ? CF_BROADPHASE_SAP : CF_BROADPHASE_ALL_PAIRS;
            cfContactList list = {0};
            cfDetectStats st, best;
            memset(&best, 0, sizeof best);
            double ms = 1e300;
            for (int r = 0; r < repeats; ++r) {
                if (cf_detect_world(&w, &o, &list, &st) != CF_OK) {
                    fprintf(stderr, "bench_detect: detection failed\n");
                    return 1;
                }
                if (st.seconds * 1e3 < ms) ms = st.seconds * 1e3, best = st;
            }
            printf("%s,%d,%s,%ld,%d,%d,%d,%.3f\n", scenes[s].name, w.n_bodies, cf_broadphase_name(o.broadphase),
                   best.aabb_tests, best.candidate_pairs, best.narrow_calls, best.contacts, ms);
            cf_contacts_free(&list);
        }
        cf_world_free(&w);
    }
    return 0;
}
