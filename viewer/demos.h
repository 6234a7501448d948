/* SPDX-License-Identifier: MIT */
/* Demo template and registry: what a chapter demo declares and what it may call (cfv_run_*). */

/*
 * Writing a demo: copy this template to chapters/chNN/demos/MM_<name>.c, fill it in, and add
 * `extern const cfvDemo cfv_demo_chNN_<name>;` and `&cfv_demo_chNN_<name>,` to viewer/demos.c.
 * `make demos-check` runs it headless and fails when check() returns non-zero; viewer-test
 * checks that every field below is filled.
 *
 *   // SPDX line, then a one-line comment saying what the demo shows
 *   #include "demos.h"
 *
 *   // What the viewer must show, and why (a few lines for whoever maintains the demo).
 *
 *   typedef struct Data { int events; } Data;        // what check() needs, recorded by step()
 *
 *   static cfStatus setup(cfvRun *run, cfError *err)  // build worlds; no exercise calls here
 *   {
 *       cfWorldDef def = cf_world_def_default();
 *       int s = cfv_run_add_world(run, &def, "label shown under the world", cfu_zero3(), err);
 *       if (s < 0) return CF_BAD_INPUT;
 *       ... cf_world_add_body(cfv_run_world(run, s), &body) ...
 *       cfv_run_set_camera(run, cfu_zero3(), -90, 20, 0);   // yaw, pitch (degrees), 0: fit
 *       return CF_OK;
 *   }
 *
 *   static void step(cfvRun *run)                      // one step of every world, then record
 *   {
 *       Data *d = run->data;
 *       cfv_run_step_worlds(run);
 *       ... d->events += ...;
 *   }
 *
 *   static int check(const cfvRun *run, char *msg, size_t cap)   // 0: the prediction holds
 *   {
 *       const Data *d = run->data;
 *       snprintf(msg, cap, "events: %d (want >= 1)", d->events);
 *       return d->events >= 1 ? 0 : 1;
 *   }
 *
 *   const cfvDemo cfv_demo_chNN_name = {
 *       .id = "chNN/name", .chapter = NN, .title = "one line",
 *       .point_at = "what the lecturer points at while it runs",
 *       .keys = "the keys that matter here",
 *       .prediction = "what a correct implementation shows (check() tests exactly this)",
 *       .overlays = "omega,momentum",   // shown at start (optional)
 *       .steps = 600, .data_size = sizeof(Data), .setup = setup, .step = step, .check = check,
 *   };
 *
 * A demo never calls rand() (use cf_rng), never prints, and keeps its headless run to a fraction
 * of a second: `make check` runs every demo.
 */
#ifndef CFV_DEMOS_H
#define CFV_DEMOS_H

#include <stddef.h>
#include <stdint.h>

#include "cf/cf_base.h"
#include "cf/cf_contact.h"
#include "cf/cf_math.h"
#include "cf/cf_solvers.h"
#include "cf/cf_world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** At most this many worlds are shown side by side in one run. */
#define CFV_MAX_WORLDS 4

/** Lines of text a demo shows in the HUD (cfv_run_info()). */
#define CFV_INFO_LINES 6

/** What a demo draws itself: an arrow, a line or a point, in world coordinates of its slot. */
typedef enum cfvMarkKind { CFV_MARK_ARROW = 0, CFV_MARK_LINE, CFV_MARK_POINT, CFV_MARK_KIND_COUNT } cfvMarkKind;

/** One mark (cfv_run_mark()); cleared before every step like the extra contacts. */
typedef struct cfvMark {
    cfvMarkKind kind;
    cfVec3 a, b;       /**< from, to (a point uses a) */
    uint32_t rgb;      /**< colour 0xRRGGBB */
    char label[40];    /**< drawn next to b (the point: a); "" for none */
} cfvMark;

/** A time series sampled once per step (kept whole: halved in resolution when full). */
typedef struct cfvSeries {
    int n, cap;      /**< samples stored, capacity */
    int stride;      /**< steps per stored sample (doubles each time the buffer fills) */
    long seen;       /**< samples offered so far */
    double *t, *y;   /**< time (s) and value */
} cfvSeries;

/** One world of a run, drawn shifted by @ref offset and labelled. */
typedef struct cfvSlot {
    cfWorld w;            /**< the world (owned) */
    char label[64];       /**< shown above the world and in plot legends */
    cfVec3 offset;        /**< drawing offset (m); physics is not affected */
    bool halted;          /**< no longer stepped (blew up, a stage failed, or a stub was hit) */
    char note[128];       /**< why it halted, shown in the HUD */
    cfvSeries energy;     /**< total energy against time */
    cfvSeries momentum;   /**< |angular momentum| against time */
    cfvSeries barrier;    /**< the ipc pipeline's barrier energy kappa sum b against time (cfStepStats::ipc; 0 under another pipeline) */
    long crossings;       /**< ipc pipeline: surface crossings cf_world_crossings() found after a step of cfv_run_step_worlds() (every step is checked; the slot halts at the first) */
    cfContactList extra;  /**< contacts a demo (or a test) adds for the overlays, besides w.contacts */
    cfvMark *marks;       /**< arrows, lines and points the demo draws (always shown) */
    int n_marks, cap_marks;
} cfvSlot;

struct cfvDemo;

/** A running demo or scene: up to CFV_MAX_WORLDS worlds plus the demo's own data. */
typedef struct cfvRun {
    const struct cfvDemo *demo;  /**< NULL for a scene file */
    char scene_path[512];        /**< scene file (when demo is NULL) */
    char name[96];               /**< demo id or scene name */
    char title[128];             /**< one-line title */
    char prediction[512];        /**< what should happen (demo prediction or scene "expect") */
    char point_at[512];          /**< what the lecturer should point at */
    char keys[256];              /**< the keys that matter */
    int steps;                   /**< default number of steps (headless) */
    int n_slots;
    cfvSlot slot[CFV_MAX_WORLDS];
    void *data;                  /**< demo data (demo->data_size bytes, zeroed at each setup) */
    long steps_taken;            /**< steps since setup */
    char todo[32];               /**< exercise id of a stub that was reached, "" if none */
    char todo_where[160];        /**< file:line of that stub */
    bool has_camera;             /**< the demo chose a camera (cam_* below) */
    cfVec3 cam_target;
    double cam_yaw, cam_pitch, cam_dist; /**< degrees, degrees, metres (0: fit) */
    char info[CFV_INFO_LINES][160]; /**< the demo's own HUD lines (cfv_run_info()); "" not shown */
    int n_compare;               /**< a scene compared across solvers (cfv_run_start_compare()): one slot each; 0 otherwise */
    const cfSolver *compare[CFV_MAX_WORLDS]; /**< the solver of each compared slot (kept over resets) */
} cfvRun;

/**
 * A demo: one concept, one prediction the demo checks itself. A file in chapters/chNN/demos/
 * defines one `const cfvDemo cfv_demo_chNN_<name>` and is listed in viewer/demos.c.
 */
typedef struct cfvDemo {
    const char *id;          /**< "ch01/<name>" */
    int chapter;             /**< chapter number */
    const char *title;       /**< one line */
    const char *point_at;    /**< what the lecturer should point at while it runs */
    const char *keys;        /**< the keys that matter for this demo */
    const char *prediction;  /**< what a correct implementation shows; check() tests it */
    const char *overlays;    /**< overlays shown at start, as for --overlay ("omega,momentum"; NULL: none) */
    int steps;               /**< steps the headless check runs */
    size_t data_size;        /**< bytes of per-run data (run->data), zeroed at setup */
    /** Build the worlds with cfv_run_add_world(). Non-CF_OK stops with the message in err. */
    cfStatus (*setup)(cfvRun *run, cfError *err);
    /** Advance one step; NULL means cfv_run_step_worlds(). Record what check() needs here. */
    void (*step)(cfvRun *run);
    /** After the headless steps: 0 when the prediction holds; message in @p msg either way. */
    int (*check)(const cfvRun *run, char *msg, size_t cap);
    /** Optional: a key the viewer does not use ('a', 'e', 'x', 'y', 'z', digits, ',', '.');
     *  return true when handled. May clear and redraw the marks (cfv_run_clear_marks()). */
    bool (*key)(cfvRun *run, int key);
} cfvDemo;

/** Add a world built from @p def (NULL: defaults); returns its slot index or -1 (message in err). */
int cfv_run_add_world(cfvRun *run, const cfWorldDef *def, const char *label, cfVec3 offset,
                      cfError *err);
/**
 * Add a world loaded from the scene file @p file of scenes/ (or of $CF_SCENES_DIR), so that a demo
 * and `cflab run` show one and the same scene; returns its slot index or -1 (message in err).
 */
int cfv_run_add_scene(cfvRun *run, const char *file, const char *label, cfVec3 offset, cfError *err);
/**
 * cfv_run_add_scene() with the scene's solver replaced by the world solver named @p solver (a row
 * of cf_solver_find() that can step a world), @p iterations of it and tolerance @p tolerance (so
 * that demos compare solvers on one scene file); returns the slot index or -1 (message in err).
 */
int cfv_run_add_scene_solved(cfvRun *run, const char *file, const char *label, cfVec3 offset, const char *solver,
                             int iterations, double tolerance, cfError *err);
/** The world of slot @p i. */
cfWorld *cfv_run_world(cfvRun *run, int i);
/** Step every world that is not halted once; returns false when a stub was reached. A world of the ipc
 *  pipeline is certified after every step by cf_world_crossings() (node paths included): a crossing
 *  is counted in cfvSlot::crossings and halts the slot, with the crossing in its note. */
bool cfv_run_step_worlds(cfvRun *run);
/** Stop stepping slot @p i, with a note for the HUD (printf-style). */
void cfv_run_halt(cfvRun *run, int i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/** Suggest a camera: view from @p yaw/@p pitch degrees; @p dist > 0: look at @p target from
 *  that distance (m), 0: fit everything (the target is then ignored). */
void cfv_run_set_camera(cfvRun *run, cfVec3 target, double yaw, double pitch, double dist);
/** Add a contact for the overlays of slot @p i (demos that compute their own, tests); cleared each step. */
bool cfv_run_add_contact(cfvRun *run, int i, const cfContact *c);
/** Add a mark to slot @p i (colour 0xRRGGBB, label may be NULL); false when out of memory. */
bool cfv_run_mark(cfvRun *run, int i, cfvMarkKind kind, cfVec3 a, cfVec3 b, uint32_t rgb, const char *label);
/**
 * Mark every pair of slot @p i's ipc-pipeline world closer than its dhat (cf_world_ipc_pairs()): a
 * red segment between the two closest points and a red dot at its middle (the segments are often
 * millimetres long). Returns how many pairs were marked.
 */
int cfv_run_mark_ipc_pairs(cfvRun *run, int i);
/** Forget every slot's marks and extra contacts (a key handler that redraws calls this first). */
void cfv_run_clear_marks(cfvRun *run);
/** Set HUD line @p line (0 .. CFV_INFO_LINES-1) of the demo (printf-style). */
void cfv_run_info(cfvRun *run, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/** Largest node or body speed in slot @p i (m/s); infinity when a state is not finite. */
double cfv_world_max_speed(const cfWorld *w);

/** The registry: every demo, in chapter order, ending with NULL. */
extern const cfvDemo *const cfv_demos[];
/** The demo with id @p id ("ch01/tennis_racket"; "tennis_racket" also matches when unique). */
const cfvDemo *cfv_demo_find(const char *id);

#ifdef __cplusplus
}
#endif
#endif /* CFV_DEMOS_H */
