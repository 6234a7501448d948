/* SPDX-License-Identifier: MIT */
/* statehash: the final state of every demo and every scene, hashed bit for bit. It is how a
   change that must not change results ("same trajectories bit for bit") shows that it did not:
   run it before and after, compare the lines (`make state-hashes`, docs/adding-a-chapter.md).

   Each demo of the viewer's registry runs headless for its own number of steps (as
   `cfview --check` runs it, the demo's step function included); each scene file of scenes/ loads
   and steps for --steps steps (default 30; fewer for the scenes of the table HEAVY) or until a
   step fails. One line per run:

     demo ch05/pyramid steps 600 state 1a2b... contacts 3c4d... stats 5e6f... check 7a8b...

   state: every rigid body's x, q, v, w and every soft node's x, v, of every world; contacts: the
   last step's contacts (count, sides, point, normal, gap, impulse); stats: the last step's solver
   iterations, residuals, status and contact count; check: the demo's check() message, whose
   numbers are often computed outside the worlds (scenes: the status of the last step and its
   message). FNV-1a over the bytes, so -0.0 and 0.0 differ: bit for bit is meant. OpenBLAS runs
   on one thread (OPENBLAS_NUM_THREADS=1 unless set), as in make check.

     statehash [--steps N] [--scenes-only | --demos-only] [ID or scene file ...]
*/
#define _POSIX_C_SOURCE 200809L /* setenv, execv */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cf/cf_scene.h"
#include "cfview.h"

typedef struct Hash {
    uint64_t h;
} Hash;

static void mix(Hash *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; ++i) {
        h->h ^= b[i];
        h->h *= 1099511628211ull;
    }
}

static Hash hash_new(void) { return (Hash){14695981039346656037ull}; }
static void mix_d(Hash *h, double x) { mix(h, &x, sizeof x); }
static void mix_i(Hash *h, long x) { mix(h, &x, sizeof x); }
static void mix_v(Hash *h, cfVec3 v)
{
    mix_d(h, v.x);
    mix_d(h, v.y);
    mix_d(h, v.z);
}

typedef struct Hashes {
    Hash state, contacts, stats;
} Hashes;

static void hash_world(Hashes *hs, const cfWorld *w)
{
    mix_i(&hs->state, w->n_bodies);
    mix_i(&hs->state, w->n_soft);
    mix_i(&hs->state, w->step);
    mix_d(&hs->state, w->time);
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        mix_v(&hs->state, b->x);
        mix_d(&hs->state, b->q.w);
        mix_d(&hs->state, b->q.x);
        mix_d(&hs->state, b->q.y);
        mix_d(&hs->state, b->q.z);
        mix_v(&hs->state, b->v);
        mix_v(&hs->state, b->w);
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        mix_i(&hs->state, s->n_nodes);
        for (int k = 0; k < s->n_nodes; ++k) {
            mix_v(&hs->state, s->x[k]);
            mix_v(&hs->state, s->v[k]);
        }
    }
    mix_i(&hs->contacts, w->contacts.count);
    for (int a = 0; a < w->contacts.count; ++a) {
        const cfContact *c = &w->contacts.items[a];
        mix_i(&hs->contacts, c->body_a);
        mix_i(&hs->contacts, c->body_b);
        mix_v(&hs->contacts, c->p);
        mix_v(&hs->contacts, c->n);
        mix_d(&hs->contacts, c->phi);
        for (int k = 0; k < 3; ++k) mix_d(&hs->contacts, c->lambda[k]);
        for (int side = 0; side < 2; ++side) {
            const cfSoftSide *ss = cf_contact_soft(c, side);
            mix_i(&hs->contacts, ss ? ss->body : -1);
            for (int q = 0; ss && q < ss->n; ++q) {
                mix_i(&hs->contacts, ss->node[q]);
                mix_d(&hs->contacts, ss->w[q]);
            }
        }
    }
    const cfStepStats *st = &w->stats;
    mix_i(&hs->stats, st->solver_iterations);
    mix_d(&hs->stats, st->solver_residual);
    mix_d(&hs->stats, st->common_residual);
    mix_i(&hs->stats, st->solver_status);
    mix_i(&hs->stats, st->n_contacts);
    mix_i(&hs->stats, st->cmr_rounds);
}

static void print_line(const char *kind, const char *id, long steps, const Hashes *hs, const char *check)
{
    Hash c = hash_new();
    mix(&c, check, strlen(check));
    printf("%s %s steps %ld state %016llx contacts %016llx stats %016llx check %016llx\n", kind, id, steps,
           (unsigned long long)hs->state.h, (unsigned long long)hs->contacts.h, (unsigned long long)hs->stats.h,
           (unsigned long long)c.h);
}

static Hashes hashes_new(void) { return (Hashes){hash_new(), hash_new(), hash_new()}; }

static int run_demo(const cfvDemo *d)
{
    cfvRun run;
    memset(&run, 0, sizeof run);
    cfError err = {{0}};
    char msg[640] = "";
    cfStatus st = cfv_run_start_demo(&run, d, &err);
    if (st != CF_OK) {
        snprintf(msg, sizeof msg, "setup: %s: %s", cf_status_name(st), err.msg);
    } else {
        for (long k = 0; k < run.steps && !run.todo[0]; ++k) cfv_run_step(&run);
        if (run.todo[0]) snprintf(msg, sizeof msg, "todo %s", run.todo);
        else if (d->check) {
            int c = d->check(&run, msg, sizeof msg);
            size_t n = strlen(msg);
            snprintf(msg + n, sizeof msg - n, " -> %d", c);
        }
    }
    Hashes hs = hashes_new();
    for (int i = 0; i < run.n_slots; ++i) {
        hash_world(&hs, &run.slot[i].w);
        mix_i(&hs.state, run.slot[i].halted);
    }
    print_line("demo", d->id, run.steps_taken, &hs, msg);
    cfv_run_free(&run);
    return 0;
}

/* scenes too heavy for the common step count run fewer steps here (the line names the count) */
static const struct {
    const char *scene;
    long steps;
} HEAVY[] = {
    {"ch09_ipc_cloth_10k.json", 2}, /* 10 000 IPC nodes, 5-20 s a step: its demo's 10 steps are hashed too */
    {"ch09_ipc_cloth_sphere.json", 2}, /* 2 000 IPC nodes and 4 boxes, 1-5 s a step: its demo's 20 steps are hashed too */
};

static int run_scene(const char *path, long steps)
{
    cfWorld w;
    cfSceneInfo info;
    cfError err = {{0}};
    char msg[640] = "";
    cfStatus st = cf_scene_load(path, &w, &info, &err);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof HEAVY / sizeof HEAVY[0]; ++i)
        if (strcmp(base, HEAVY[i].scene) == 0 && HEAVY[i].steps < steps) steps = HEAVY[i].steps;
    Hashes hs = hashes_new();
    long k = 0;
    if (st != CF_OK) {
        snprintf(msg, sizeof msg, "load: %s: %s", cf_status_name(st), err.msg);
    } else {
        for (; k < steps && st == CF_OK; ++k) st = cf_world_step(&w);
        snprintf(msg, sizeof msg, "%s %s", cf_status_name(st), w.error.msg);
        hash_world(&hs, &w);
        cf_world_free(&w);
    }
    print_line("scene", base, k, &hs, msg);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_scenes(const char *dir, long steps)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "statehash: cannot open %s\n", dir);
        return 1;
    }
    char *names[512];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 512;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 && (names[n] = malloc(len + 1)))
            memcpy(names[n++], e->d_name, len + 1);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 0; i < n; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        run_scene(path, steps);
        fflush(stdout);
        free(names[i]);
    }
    return 0;
}

int main(int argc, char **argv)
{
    /* a threaded OpenBLAS sums in another order from run to run (the ipc pipeline's states
       differ): one thread, as make and make check run everything; it reads the variable when it
       is loaded, so the program starts again with it set */
    if (!getenv("OPENBLAS_NUM_THREADS")) {
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
        execv("/proc/self/exe", argv);
    }
    long steps = 30;
    bool demos = true, scenes = true;
    int first = argc;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--scenes-only")) demos = false;
        else if (!strcmp(argv[i], "--demos-only")) scenes = false;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: statehash [--steps N] [--scenes-only | --demos-only] [demo id or scene file ...]\n");
            return 2;
        } else {
            first = i;
            break;
        }
    }
    if (first < argc) {
        for (int i = first; i < argc; ++i) {
            const cfvDemo *d = cfv_demo_find(argv[i]);
            if (d) run_demo(d);
            else run_scene(argv[i], steps);
        }
        return 0;
    }
    if (demos)
        for (int i = 0; cfv_demos[i]; ++i) {
            run_demo(cfv_demos[i]);
            fflush(stdout);
        }
    const char *dir = getenv("CF_SCENES_DIR");
    if (scenes) return run_scenes(dir && dir[0] ? dir : "scenes", steps);
    return 0;
}
