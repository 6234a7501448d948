/* SPDX-License-Identifier: MIT */
/* Runs: start a demo or a scene, step its worlds, catch exercise stubs, sample the plots. */
#include "cfview.h"

#include "cf/cf_solvers.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- exercise stubs: a reached stub halts the run with its id instead of ending the program.
   Stubs return a status after calling the hook (CF_TODO_S), so the world's step fails cleanly
   and restores its state; the hook only remembers the first stub it was told about. */

static char todo_id[32];
static char todo_where[160];

static void todo_hook(const char *id, const char *file, int line)
{
    if (todo_id[0]) return;
    snprintf(todo_id, sizeof todo_id, "%s", id ? id : "?");
    snprintf(todo_where, sizeof todo_where, "%s:%d", file ? file : "?", line);
}

typedef struct Call {
    cfvRun *run;
    const cfvDemo *demo;
    cfError *err;
    cfStatus st;
    int what; /* 0: setup, 1: demo step, 2: default step, 3: demo key */
    int key;
    bool handled;
} Call;

/* run c with the viewer's stub hook; false when a stub was reached */
static bool protected_call(Call *c)
{
    todo_id[0] = 0;
    todo_where[0] = 0;
    cfTodoHook old = cf_set_todo_hook(todo_hook);
    switch (c->what) {
    case 0: c->st = c->demo->setup(c->run, c->err); break;
    case 1: c->demo->step(c->run); break;
    case 3: c->handled = c->demo->key(c->run, c->key); break;
    default:
        cfv_run_step_worlds(c->run);
        if (c->demo && c->demo->record) c->demo->record(c->run);
        break;
    }
    cf_set_todo_hook(old);
    if (!todo_id[0]) return true;
    cfvRun *run = c->run;
    snprintf(run->todo, sizeof run->todo, "%s", todo_id);
    snprintf(run->todo_where, sizeof run->todo_where, "%s", todo_where);
    for (int i = 0; i < run->n_slots; ++i)
        if (!run->slot[i].halted) cfv_run_halt(run, i, "not implemented: %s", run->todo);
    return false;
}

const char *cfv_run_todo_message(const cfvRun *run, char *buf, size_t cap)
{
    if (!run->todo[0]) {
        if (cap) buf[0] = 0;
        return buf;
    }
    snprintf(buf, cap,
             "not implemented: %s (%s; the specification is in lib/include/cf/cf_ch%.2s.h; "
             "IMPL=solutions runs the reference)",
             run->todo, run->todo_where, run->todo + 2);
    return buf;
}

/* a world's label is drawn whole or not at all: one longer than its slot (cfvSlot::label) is
   the demo's mistake, said at setup rather than cut in the HUD */
static bool label_fits(const char *label, cfError *err)
{
    size_t cap = sizeof ((cfvSlot *)0)->label;
    if (!label || strlen(label) < cap) return true;
    cf_error_set(err, CF_BAD_INPUT, "world label \"%.40s...\": %zu characters, at most %zu fit", label, strlen(label), cap - 1);
    return false;
}

/* ---- worlds ----------------------------------------------------------------------------- */

int cfv_run_add_world(cfvRun *run, const cfWorldDef *def, const char *label, cfVec3 offset, cfError *err)
{
    if (run->n_slots >= CFV_MAX_WORLDS) {
        cf_error_set(err, CF_BAD_INPUT, "at most %d worlds per demo", CFV_MAX_WORLDS);
        return -1;
    }
    cfvSlot *s = &run->slot[run->n_slots];
    if (!label_fits(label, err)) return -1;
    memset(s, 0, sizeof *s);
    cfStatus st = cf_world_init(&s->w, def);
    if (st != CF_OK) {
        cf_error_set(err, st, "world %d: cf_world_init: %s", run->n_slots, cf_status_name(st));
        return -1;
    }
    snprintf(s->label, sizeof s->label, "%s", label ? label : "");
    s->offset = offset;
    return run->n_slots++;
}

/* the scene file into a new slot, with its solver replaced by @p solver (NULL: the scene's) */
static int add_scene(cfvRun *run, const char *file, const char *label, cfVec3 offset, const char *solver, cfError *err)
{
    if (run->n_slots >= CFV_MAX_WORLDS) {
        cf_error_set(err, CF_BAD_INPUT, "at most %d worlds per demo", CFV_MAX_WORLDS);
        return -1;
    }
    if (!label_fits(label, err)) return -1;
    char path[1024];
    const char *dir = getenv("CF_SCENES_DIR");
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "scenes", file);
    cfvSlot *s = &run->slot[run->n_slots];
    memset(s, 0, sizeof *s);
    if (cf_scene_load_solved(path, solver, &s->w, NULL, err) != CF_OK) return -1;
    snprintf(s->label, sizeof s->label, "%s", label ? label : "");
    s->offset = offset;
    return run->n_slots++;
}

int cfv_run_add_scene(cfvRun *run, const char *file, const char *label, cfVec3 offset, cfError *err)
{
    return add_scene(run, file, label, offset, NULL, err);
}

int cfv_run_add_scene_solved(cfvRun *run, const char *file, const char *label, cfVec3 offset, const char *solver,
                             int iterations, double tolerance, cfError *err)
{
    const cfSolver *s = cf_solver_find(solver);
    if (!s || !s->contacts) {
        const char *why = cf_solver_absent_reason(solver);
        cf_error_set(err, CF_BAD_INPUT, "%s: %s '%s'%s%s", file, s ? "this solver cannot step a world:" : "no world solver",
                     solver, *why ? ": " : "", why);
        return -1;
    }
    int i = add_scene(run, file, label, offset, solver, err);
    if (i < 0) return -1;
    cfWorldDef *d = &run->slot[i].w.def;
    cf_world_def_use_solver(d, s);
    d->solver_iterations = iterations;
    d->solver_tolerance = tolerance;
    if (cf_world_def_check(d, err) != CF_OK) {
        cf_world_free(&run->slot[i].w);
        run->n_slots--;
        return -1;
    }
    return i;
}

cfWorld *cfv_run_world(cfvRun *run, int i) { return (i >= 0 && i < run->n_slots) ? &run->slot[i].w : NULL; }

void cfv_run_halt(cfvRun *run, int i, const char *fmt, ...)
{
    if (i < 0 || i >= run->n_slots) return;
    cfvSlot *s = &run->slot[i];
    s->halted = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->note, sizeof s->note, fmt, ap);
    va_end(ap);
}

void cfv_run_set_camera(cfvRun *run, cfVec3 target, double yaw, double pitch, double dist)
{
    run->has_camera = true;
    run->cam_target = target;
    run->cam_yaw = yaw;
    run->cam_pitch = pitch;
    run->cam_dist = dist;
}

bool cfv_run_add_contact(cfvRun *run, int i, const cfContact *c)
{
    if (i < 0 || i >= run->n_slots) return false;
    return cf_contacts_push(&run->slot[i].extra, c) == CF_OK;
}

bool cfv_run_mark(cfvRun *run, int i, int kind, cfVec3 a, cfVec3 b, uint32_t rgb, const char *label)
{
    if (i < 0 || i >= run->n_slots) return false;
    cfvSlot *s = &run->slot[i];
    if (s->n_marks == s->cap_marks) {
        int cap = s->cap_marks ? 2 * s->cap_marks : 16;
        cfvMark *m = realloc(s->marks, (size_t)cap * sizeof *m);
        if (!m) return false;
        s->marks = m;
        s->cap_marks = cap;
    }
    cfvMark *m = &s->marks[s->n_marks++];
    m->kind = (cfvMarkKind)(kind & ~CFV_MARK_ON_TOP);
    m->on_top = (kind & CFV_MARK_ON_TOP) != 0;
    m->a = a;
    m->b = b;
    m->rgb = rgb;
    snprintf(m->label, sizeof m->label, "%s", label ? label : "");
    return true;
}

/* ---- what the picture must show ---------------------------------------------------------- */

static cfvSubject *new_subject(cfvRun *run, cfvSubjectKind kind, int slot, int index)
{
    if (run->n_subjects >= CFV_MAX_SUBJECTS || slot < 0 || slot >= run->n_slots) return NULL;
    cfvSubject *s = &run->subject[run->n_subjects++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->slot = slot;
    s->index = index;
    return s;
}

void cfv_run_subject(cfvRun *run, int slot, int body)
{
    new_subject(run, body == CFV_ALL ? CFV_SUBJECT_GROUP : CFV_SUBJECT_BODY, slot, body);
}

void cfv_run_subject_soft(cfvRun *run, int slot, int k) { new_subject(run, CFV_SUBJECT_SOFT, slot, k); }

void cfv_run_subject_region(cfvRun *run, int slot, cfVec3 lo, cfVec3 hi)
{
    cfvSubject *s = new_subject(run, CFV_SUBJECT_REGION, slot, 0);
    if (!s) return;
    s->lo = cfu_vec3(fmin(lo.x, hi.x), fmin(lo.y, hi.y), fmin(lo.z, hi.z));
    s->hi = cfu_vec3(fmax(lo.x, hi.x), fmax(lo.y, hi.y), fmax(lo.z, hi.z));
}

static void add_trail(cfvRun *run, int slot, int index, int node, uint32_t rgb, bool dots)
{
    if (run->n_trails >= CFV_MAX_TRAILS || slot < 0 || slot >= run->n_slots) return;
    cfvTrail *t = &run->trail[run->n_trails++];
    memset(t, 0, sizeof *t);
    t->slot = slot;
    t->index = index;
    t->node = node;
    t->rgb = rgb;
    t->dots = dots;
    t->stride = 1;
}

void cfv_run_trail(cfvRun *run, int slot, int body, uint32_t rgb, bool dots) { add_trail(run, slot, body, -1, rgb, dots); }

void cfv_run_trail_soft(cfvRun *run, int slot, int k, int node, uint32_t rgb, bool dots)
{
    add_trail(run, slot, k, node < 0 ? 0 : node, rgb, dots);
}

void cfv_run_deformation_from_now(cfvRun *run, int slot, int k)
{
    if (slot < 0 || slot >= run->n_slots) return;
    cfvSlot *s = &run->slot[slot];
    if (k < 0 || k >= s->w.n_soft) return;
    const cfSoftBody *b = &s->w.soft[k];
    cfVec3 *p = realloc(s->shape_ref, (size_t)(b->n_nodes > 0 ? b->n_nodes : 1) * sizeof *p);
    if (!p) return;
    memcpy(p, b->x, (size_t)b->n_nodes * sizeof *p);
    s->shape_ref = p;
    s->shape_ref_k = k;
    s->shape_ref_n = b->n_nodes;
}

static void add_glass(cfvRun *run, int slot, int index, bool soft)
{
    if (run->n_glass >= CFV_MAX_GLASS) return;
    run->glass[run->n_glass].slot = slot;
    run->glass[run->n_glass].soft = soft;
    run->glass[run->n_glass++].body = index;
}

void cfv_run_glass(cfvRun *run, int slot, int body) { add_glass(run, slot, body, false); }

void cfv_run_glass_soft(cfvRun *run, int slot, int k) { add_glass(run, slot, k, true); }

#define TRAIL_CAP 1024

/* the trails' next sample: where their points are after this step */
static void sample_trails(cfvRun *run)
{
    for (int k = 0; k < run->n_trails; ++k) {
        cfvTrail *t = &run->trail[k];
        const cfWorld *w = &run->slot[t->slot].w;
        cfVec3 p;
        if (t->node < 0 && t->index >= 0 && t->index < w->n_bodies) p = w->bodies[t->index].x;
        else if (t->node >= 0 && t->index >= 0 && t->index < w->n_soft && t->node < w->soft[t->index].n_nodes)
            p = w->soft[t->index].x[t->node];
        else continue;
        if (!cfu_vec3_finite(p)) continue;
        if (!t->p) {
            t->p = malloc(TRAIL_CAP * sizeof *t->p);
            if (!t->p) continue;
            t->cap = TRAIL_CAP;
        }
        if (t->seen++ % t->stride != 0) continue;
        if (t->n == t->cap) { /* full: every other sample, and half as often from now on */
            for (int i = 0; i < t->n / 2; ++i) t->p[i] = t->p[2 * i];
            t->n /= 2;
            t->stride *= 2;
        }
        t->p[t->n++] = p;
    }
}

void cfv_run_clear_marks(cfvRun *run)
{
    for (int i = 0; i < run->n_slots; ++i) {
        cf_contacts_clear(&run->slot[i].extra);
        run->slot[i].n_marks = 0;
    }
}

void cfv_run_info(cfvRun *run, int line, const char *fmt, ...)
{
    if (line < 0 || line >= CFV_INFO_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->info[line], sizeof run->info[line], fmt, ap);
    va_end(ap);
}

typedef struct IpcMarks {
    cfvRun *run;
    int slot, pairs;
} IpcMarks;

static void mark_ipc_pair(void *ctx, cfVec3 a, cfVec3 b, double d)
{
    (void)d;
    IpcMarks *m = ctx;
    cfv_run_mark(m->run, m->slot, CFV_MARK_LINE, a, b, 0xff3030, NULL);
    cfv_run_mark(m->run, m->slot, CFV_MARK_POINT, cfu_scale(0.5, cfu_add(a, b)), a, 0xff3030, NULL);
    m->pairs++;
}

int cfv_run_mark_ipc_pairs(cfvRun *run, int i)
{
    IpcMarks m = {run, i, 0};
    const cfWorld *w = cfv_run_world(run, i);
    if (w) cf_world_ipc_pairs(w, mark_ipc_pair, &m);
    return m.pairs;
}

double cfv_world_max_speed(const cfWorld *w)
{
    double m = 0;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (!cfu_vec3_finite(b->x) || !cfu_vec3_finite(b->v)) return INFINITY;
        m = fmax(m, cfu_norm(b->v));
    }
    for (int k = 0; k < w->n_soft; ++k) {
        const cfSoftBody *s = &w->soft[k];
        for (int i = 0; i < s->n_nodes; ++i) {
            if (!cfu_vec3_finite(s->x[i]) || !cfu_vec3_finite(s->v[i])) return INFINITY;
            m = fmax(m, cfu_norm(s->v[i]));
        }
    }
    return m;
}

bool cfv_run_step_worlds(cfvRun *run)
{
    bool ok = true;
    for (int i = 0; i < run->n_slots; ++i) {
        cfvSlot *s = &run->slot[i];
        if (s->halted) continue;
        bool ipc = s->w.def.pipeline == CF_PIPELINE_IPC;
        cfWorld before = {0}; /* an ipc world's state before the step: the paths of its certificate */
        cfStatus st = ipc ? cf_world_copy(&before, &s->w) : CF_OK;
        if (st == CF_OK) st = cf_world_step(&s->w);
        if (st == CF_NOT_IMPLEMENTED) ok = false; /* the hook has the id; protected_call halts */
        else if (st != CF_OK) cfv_run_halt(run, i, "step %ld failed: %s", s->w.step + 1, s->w.error.msg);
        else if (ipc) {
            char what[160];
            int c = cf_world_crossings(&s->w, &before, what, sizeof what);
            if (c != 0) {
                s->crossings += c > 0 ? c : 1;
                cfv_run_halt(run, i, "step %ld: %s", s->w.step, c > 0 ? what : "crossing check failed");
            }
        }
        if (ipc) cf_world_free(&before);
    }
    return ok && !todo_id[0];
}

/* ---- plots ------------------------------------------------------------------------------ */

/* what each world was set up with (a restart keeps what the user changed from it) */
static void note_setup(cfvRun *run)
{
    for (int i = 0; i < run->n_slots; ++i) {
        cfvSlot *s = &run->slot[i];
        s->solver0 = s->w.def.solver;
        s->iterations0 = s->w.def.solver_iterations;
        s->dt0 = s->w.def.dt;
    }
}

static void sample(cfvRun *run)
{
    for (int i = 0; i < run->n_slots; ++i) {
        cfvSlot *s = &run->slot[i];
        if (s->halted && s->energy.n > 0) continue;
        cfv_series_push(&s->energy, s->w.time, cf_world_energy(&s->w));
        cfv_series_push(&s->momentum, s->w.time, cfu_norm(cf_world_angular_momentum(&s->w)));
        if (s->w.def.pipeline == CF_PIPELINE_IPC) /* the barrier plot has a line for ipc worlds only */
            cfv_series_push(&s->barrier, s->w.time, s->w.stats.ipc.barrier_energy);
    }
}

/* ---- start, step, reset, free ------------------------------------------------------------ */

static void free_slots(cfvRun *run)
{
    for (int i = 0; i < run->n_slots; ++i) {
        cfvSlot *s = &run->slot[i];
        cf_world_free(&s->w);
        cfv_series_free(&s->energy);
        cfv_series_free(&s->momentum);
        cfv_series_free(&s->barrier);
        cf_contacts_free(&s->extra);
        free(s->marks);
        free(s->shape_ref);
        memset(s, 0, sizeof *s);
    }
    run->n_slots = 0;
}

static void free_declarations(cfvRun *run)
{
    for (int k = 0; k < run->n_trails; ++k) free(run->trail[k].p);
    run->n_trails = run->n_subjects = run->n_glass = 0;
}

static cfStatus setup_demo(cfvRun *run, cfError *err)
{
    const cfvDemo *d = run->demo;
    free_declarations(run);
    free(run->data);
    run->data = NULL;
    if (d->data_size > 0) {
        run->data = calloc(1, d->data_size);
        if (!run->data) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    }
    run->todo[0] = 0;
    run->steps_taken = 0;
    run->has_camera = false;
    memset(run->info, 0, sizeof run->info);
    Call c = {run, d, err, CF_OK, 0, 0, false};
    if (!protected_call(&c)) return CF_NOT_IMPLEMENTED;
    if (c.st != CF_OK) {
        free_slots(run);
        free_declarations(run);
        return c.st;
    }
    if (run->n_slots == 0) return cf_error_set(err, CF_BAD_INPUT, "demo %s built no world", d->id);
    note_setup(run);
    sample(run);
    sample_trails(run);
    return CF_OK;
}

bool cfv_demo_in_build(const cfvDemo *demo) { return !demo->available || demo->available(); }

cfStatus cfv_run_start_demo(cfvRun *run, const cfvDemo *demo, cfError *err)
{
    memset(run, 0, sizeof *run);
    if (!cfv_demo_in_build(demo))
        return cf_error_set(err, CF_BAD_INPUT, "demo %s is not in this build: it needs %s", demo->id,
                            demo->needs ? demo->needs : "what this build does not link");
    run->demo = demo;
    snprintf(run->name, sizeof run->name, "%s", demo->id);
    snprintf(run->title, sizeof run->title, "%s", demo->title ? demo->title : "");
    snprintf(run->prediction, sizeof run->prediction, "%s", demo->prediction ? demo->prediction : "");
    snprintf(run->point_at, sizeof run->point_at, "%s", demo->point_at ? demo->point_at : "");
    snprintf(run->keys, sizeof run->keys, "%s", demo->keys ? demo->keys : "");
    run->steps = demo->steps > 0 ? demo->steps : 600;
    return setup_demo(run, err);
}

/* the slots of a compared scene: slot 0 is loaded; the others are copies of it, each with its
   solver, side by side along x */
static cfStatus compare_slots(cfvRun *run, cfError *err)
{
    cfVec3 lo, hi;
    cfv_run_box(run, &lo, &hi);
    double width = hi.x - lo.x, gap = fmax(0.5, 0.25 * width);
    for (int i = 0; i < run->n_compare; ++i) {
        cfvSlot *s = &run->slot[i];
        if (i > 0) {
            memset(s, 0, sizeof *s);
            if (cf_world_copy(&s->w, &run->slot[0].w) != CF_OK)
                return cf_error_set(err, CF_NO_MEMORY, "out of memory for world %d of the comparison", i + 1);
            run->n_slots = i + 1;
        }
        cf_world_def_use_solver(&s->w.def, run->compare[i]);
        s->offset = cfu_vec3(i * (width + gap), 0, 0);
        snprintf(s->label, sizeof s->label, "%s", run->compare[i]->name);
    }
    return CF_OK;
}

static cfStatus load_scene(cfvRun *run, cfError *err)
{
    cfSceneInfo info;
    memset(&info, 0, sizeof info);
    cfvSlot *s = &run->slot[0];
    memset(s, 0, sizeof *s);
    cfStatus st = cf_scene_load(run->scene_path, &s->w, &info, err);
    if (st != CF_OK) return st;
    run->n_slots = 1;
    snprintf(s->label, sizeof s->label, "%s", info.name);
    if (run->n_compare > 0 && (st = compare_slots(run, err)) != CF_OK) return st;
    cfv_copy(run->name, sizeof run->name, info.name[0] ? info.name : run->scene_path);
    cfv_copy(run->title, sizeof run->title, run->scene_path);
    snprintf(run->prediction, sizeof run->prediction, "%s", info.expect);
    snprintf(run->point_at, sizeof run->point_at, "%s", info.description);
    run->steps = info.steps > 0 ? info.steps : 600;
    run->todo[0] = 0;
    run->steps_taken = 0;
    note_setup(run);
    sample(run);
    return CF_OK;
}

cfStatus cfv_run_start_scene(cfvRun *run, const char *path, cfError *err)
{
    memset(run, 0, sizeof *run);
    if (strlen(path) >= sizeof run->scene_path)
        return cf_error_set(err, CF_BAD_INPUT, "%s: path too long", path);
    snprintf(run->scene_path, sizeof run->scene_path, "%s", path);
    return load_scene(run, err);
}

cfStatus cfv_run_start_compare(cfvRun *run, const char *path, const cfSolver *const *solvers, int n, cfError *err)
{
    memset(run, 0, sizeof *run);
    if (n < 1 || n > CFV_MAX_WORLDS)
        return cf_error_set(err, CF_BAD_INPUT, "%d solvers to compare: 1 to %d", n, CFV_MAX_WORLDS);
    for (int i = 0; i < n; ++i) {
        if (!solvers[i] || !solvers[i]->contacts)
            return cf_error_set(err, CF_BAD_INPUT, "solver '%s' cannot step a world",
                                solvers[i] ? solvers[i]->name : "(none)");
        run->compare[i] = run->compare0[i] = solvers[i];
    }
    run->n_compare = n;
    if (strlen(path) >= sizeof run->scene_path)
        return cf_error_set(err, CF_BAD_INPUT, "%s: path too long", path);
    snprintf(run->scene_path, sizeof run->scene_path, "%s", path);
    return load_scene(run, err);
}

cfStatus cfv_run_reset(cfvRun *run, cfError *err)
{
    free_slots(run);
    return run->demo ? setup_demo(run, err) : load_scene(run, err);
}

cfStatus cfv_run_restart(cfvRun *run, bool keep, cfError *err)
{
    /* what the user changed: each world's solver and iterations, the time step */
    const cfSolver *solver[CFV_MAX_WORLDS] = {0};
    int iterations[CFV_MAX_WORLDS] = {0}, n = run->n_slots;
    double dt[CFV_MAX_WORLDS] = {0};
    for (int i = 0; i < n; ++i) {
        const cfvSlot *s = &run->slot[i];
        solver[i] = s->w.def.solver != s->solver0 ? s->w.def.solver : NULL;
        iterations[i] = s->w.def.solver_iterations != s->iterations0 ? s->w.def.solver_iterations : 0;
        dt[i] = s->w.def.dt != s->dt0 ? s->w.def.dt : 0.0;
    }
    if (!keep)
        for (int i = 0; i < run->n_compare; ++i) run->compare[i] = run->compare0[i];
    cfStatus st = cfv_run_reset(run, err);
    if (st != CF_OK || !keep || run->n_slots != n) return st;
    for (int i = 0; i < n; ++i) {
        cfWorldDef *d = &run->slot[i].w.def;
        if (solver[i] && d->solver) {
            cf_world_def_use_solver(d, solver[i]);
            d->per_island = false, d->sleep_steps = 0; /* as cfv_run_cycle_slot_solver() */
        }
        if (iterations[i]) d->solver_iterations = iterations[i];
        if (dt[i] > 0) d->dt = dt[i];
    }
    return CF_OK;
}

void cfv_run_step(cfvRun *run)
{
    if (run->todo[0]) return;
    cfv_run_clear_marks(run);
    Call c = {run, run->demo, NULL, CF_OK, (run->demo && run->demo->step) ? 1 : 2, 0, false};
    protected_call(&c);
    run->steps_taken++;
    sample(run);
    sample_trails(run);
}

bool cfv_run_key(cfvRun *run, int key)
{
    if (!run->demo || !run->demo->key || run->todo[0]) return false;
    Call c = {run, run->demo, NULL, CF_OK, 3, key, false};
    protected_call(&c);
    return c.handled || run->todo[0];
}

void cfv_run_free(cfvRun *run)
{
    free_slots(run);
    free_declarations(run);
    free(run->data);
    memset(run, 0, sizeof *run);
}

/* ---- settings shared by every world ------------------------------------------------------ */

void cfv_run_set_dt(cfvRun *run, double dt)
{
    for (int i = 0; i < run->n_slots; ++i) run->slot[i].w.def.dt = dt;
}

void cfv_run_toggle_gyroscopic(cfvRun *run)
{
    for (int i = 0; i < run->n_slots; ++i) run->slot[i].w.def.gyroscopic = !run->slot[i].w.def.gyroscopic;
}

void cfv_run_cycle_rigid_integrator(cfvRun *run)
{
    for (int i = 0; i < run->n_slots; ++i) {
        cfWorldDef *d = &run->slot[i].w.def;
        d->rigid_integrator = d->rigid_integrator == CF_RIGID_SEMI_IMPLICIT ? CF_RIGID_EXPLICIT : CF_RIGID_SEMI_IMPLICIT;
    }
}

void cfv_run_cycle_slot_solver(cfvRun *run, int slot, int dir)
{
    if (slot < 0 || slot >= run->n_slots) return;
    cfvSlot *sl = &run->slot[slot];
    cfWorldDef *d = &sl->w.def;
    if (!d->solver) return; /* a world without contacts stays without */
    int n = cf_solver_count(), k = 0;
    while (k < n && cf_solver_at(k) != d->solver) ++k;
    /* the next row of the table that a world can use */
    for (int step = 1; step <= n; ++step) {
        const cfSolver *s = cf_solver_at(((k + dir * step) % n + n) % n);
        if (s->contacts) {
            cf_world_def_use_solver(d, s);
            /* a named row replaces chapter 11.2's rule per island (and its sleeping islands) */
            d->per_island = false;
            d->sleep_steps = 0;
            break;
        }
    }
    if (slot < run->n_compare) { /* the label is the solver's name */
        run->compare[slot] = sl->solver0 = d->solver;
        snprintf(sl->label, sizeof sl->label, "%s", d->solver->name);
    }
}

void cfv_run_cycle_solver(cfvRun *run, int dir)
{
    for (int i = 0; i < run->n_slots; ++i) cfv_run_cycle_slot_solver(run, i, dir);
}

bool cfv_run_cycle_preconditioner(cfvRun *run, int i)
{
    cfWorldDef *d = &run->slot[i].w.def;
    if (!cf_solver_takes_preconditioner(d->solver)) return false;
    d->preconditioner = (cfPreconditioner)((d->preconditioner + 1) % CF_PRECONDITIONER_COUNT);
    return true;
}

void cfv_run_cycle_soft_integrator(cfvRun *run)
{
    static const cfSoftIntegrator order[] = {CF_SOFT_IMPLICIT, CF_SOFT_BDF2, CF_SOFT_SEMI_IMPLICIT, CF_SOFT_EXPLICIT};
    for (int i = 0; i < run->n_slots; ++i) {
        cfWorldDef *d = &run->slot[i].w.def;
        int k = 0;
        while (k < 4 && order[k] != d->soft_integrator) ++k;
        d->soft_integrator = order[(k + 1) % 4];
    }
}

/* ---- a copy of what a frame draws (a stepping thread publishes one) ---------------------- */

static bool copy_series(cfvSeries *d, const cfvSeries *s)
{
    *d = *s;
    d->t = d->y = NULL;
    if (s->cap == 0) return true;
    d->t = malloc((size_t)s->cap * sizeof *d->t);
    d->y = malloc((size_t)s->cap * sizeof *d->y);
    if (!d->t || !d->y) return false;
    memcpy(d->t, s->t, (size_t)s->n * sizeof *d->t);
    memcpy(d->y, s->y, (size_t)s->n * sizeof *d->y);
    return true;
}

cfStatus cfv_run_snapshot(cfvRun *dst, const cfvRun *src)
{
    cfv_run_free(dst);
    *dst = *src;
    dst->data = NULL;
    dst->n_slots = 0;
    dst->n_trails = 0;
    for (int k = 0; k < src->n_trails; ++k) {
        cfvTrail *t = &dst->trail[k];
        *t = src->trail[k];
        t->p = NULL;
        dst->n_trails = k + 1;
        if (src->trail[k].p) {
            t->p = malloc((size_t)t->cap * sizeof *t->p);
            if (!t->p) return CF_NO_MEMORY;
            memcpy(t->p, src->trail[k].p, (size_t)t->n * sizeof *t->p);
        }
    }
    for (int i = 0; i < src->n_slots; ++i) {
        const cfvSlot *s = &src->slot[i];
        cfvSlot *d = &dst->slot[i];
        memset(d, 0, sizeof *d);
        dst->n_slots = i + 1;
        if (cf_world_copy(&d->w, &s->w) != CF_OK) return CF_NO_MEMORY;
        cfv_copy(d->label, sizeof d->label, s->label);
        d->offset = s->offset;
        d->halted = s->halted;
        cfv_copy(d->note, sizeof d->note, s->note);
        d->crossings = s->crossings;
        d->solver0 = s->solver0;
        d->iterations0 = s->iterations0;
        d->dt0 = s->dt0;
        if (!copy_series(&d->energy, &s->energy) || !copy_series(&d->momentum, &s->momentum) ||
            !copy_series(&d->barrier, &s->barrier))
            return CF_NO_MEMORY;
        for (int k = 0; k < s->extra.count; ++k)
            if (cf_contacts_push(&d->extra, &s->extra.items[k]) != CF_OK) return CF_NO_MEMORY;
        if (s->shape_ref) {
            d->shape_ref = malloc((size_t)s->shape_ref_n * sizeof *d->shape_ref);
            if (!d->shape_ref) return CF_NO_MEMORY;
            memcpy(d->shape_ref, s->shape_ref, (size_t)s->shape_ref_n * sizeof *d->shape_ref);
            d->shape_ref_k = s->shape_ref_k;
            d->shape_ref_n = s->shape_ref_n;
        }
        if (s->n_marks) {
            d->marks = malloc((size_t)s->n_marks * sizeof *d->marks);
            if (!d->marks) return CF_NO_MEMORY;
            memcpy(d->marks, s->marks, (size_t)s->n_marks * sizeof *d->marks);
            d->n_marks = d->cap_marks = s->n_marks;
        }
    }
    return CF_OK;
}
