/* SPDX-License-Identifier: MIT */
/* Demo template and registry: what a chapter demo declares and what it may call (cfv_run_*). */

/*
 * Writing a demo: copy this template to chapters/chNN/demos/MM_<name>.c and fill it in; nothing
 * else changes. The build finds it (tools/demo-list collects every `const cfvDemo cfv_demo_<name> =`
 * at the start of a line in the demo files, in chapter and file order, into the registry cfv_demos).
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
 *       cfv_run_subject(run, s, CFV_ALL);                    // what the picture must show
 *       cfv_run_set_camera(run, cfu_zero3(), -90, 20, 0);   // yaw, pitch (degrees), 0: fit the subjects
 *       return CF_OK;
 *   }
 *
 *   static void record(cfvRun *run)                    // after the viewer stepped every world
 *   {
 *       Data *d = run->data;
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
 *       .keys = "pause,points",          // viewer keys that matter here (names of viewer/keys.c)
 *       .demo_keys = (const cfvDemoKey[]){{'1', "what key 1 does"}, {0, NULL}},   // optional
 *       .prediction = "what a correct implementation shows (check() tests exactly this)",
 *       .overlays = "omega,momentum",   // shown at start (optional)
 *       .plots = "energy",               // plot panels the story points at (optional)
 *       .steps = 600,
 *       CFV_DEMO_HOOKS,                  // .data_size = sizeof(Data), .setup/.record/.check = setup/record/check
 *   };
 *
 * CFV_DEMO_HOOKS names the template's Data and its three functions. A demo that steps its worlds
 * itself (a solver called by hand, a parameter changed before the step) writes step() instead of
 * record(), calls cfv_run_step_worlds() or steps the worlds in it, and ends with
 * CFV_DEMO_STEP_HOOKS; a demo whose functions are called otherwise sets the fields itself.
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

/** What the picture of a run must show, at most this many (cfv_run_subject() ...). */
#define CFV_MAX_SUBJECTS 16
/** Paths drawn behind moving objects, at most this many (cfv_run_trail()). */
#define CFV_MAX_TRAILS 8
/** Bodies drawn as glass, at most this many (cfv_run_glass()). */
#define CFV_MAX_GLASS 8
/** cfv_run_subject(): every object of the slot that is not fixed, as one group. */
#define CFV_ALL (-1)

/** What a demo draws itself: an arrow, a line or a point, in world coordinates of its slot. */
typedef enum cfvMarkKind { CFV_MARK_ARROW = 0, CFV_MARK_LINE, CFV_MARK_POINT, CFV_MARK_KIND_COUNT } cfvMarkKind;
/** Or-ed into a mark's kind: drawn over the bodies (a mark is otherwise hidden where a body is in front). */
#define CFV_MARK_ON_TOP 0x100

/** One mark (cfv_run_mark()); cleared before every step like the extra contacts. */
typedef struct cfvMark {
    cfvMarkKind kind;
    bool on_top;       /**< drawn over the bodies (CFV_MARK_ON_TOP) */
    cfVec3 a, b;       /**< from, to (a point uses a) */
    uint32_t rgb;      /**< colour 0xRRGGBB */
    char label[40];    /**< drawn next to b (the point: a); "" for none */
} cfvMark;

/** What a run's picture must show (the camera frames these; the visual check finds them). */
typedef enum cfvSubjectKind {
    CFV_SUBJECT_BODY = 0, /**< one rigid body: inside the frame, mostly not hidden, not a speck */
    CFV_SUBJECT_SOFT,     /**< one soft body, the same */
    CFV_SUBJECT_GROUP,    /**< every object of the slot that is not fixed, checked as one */
    CFV_SUBJECT_REGION,   /**< a box in the slot's coordinates: inside the frame and not small */
    CFV_SUBJECT_KIND_COUNT
} cfvSubjectKind;

typedef struct cfvSubject {
    cfvSubjectKind kind;
    int slot, index;  /**< world slot; body or soft body index */
    cfVec3 lo, hi;    /**< a region's corners (slot coordinates) */
} cfvSubject;

/** The path of a point of an object: one sample per step (halved in resolution when full). */
typedef struct cfvTrail {
    int slot, index, node;  /**< node < 0: rigid body index; else soft body index's node */
    uint32_t rgb;           /**< colour 0xRRGGBB */
    bool dots;              /**< a dot per sample (the positions a discrete step sees), else a line */
    int n, cap, stride;
    long seen;
    cfVec3 *p;
} cfvTrail;

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
    char note[512];       /**< why it halted, shown in the HUD (wrapped, never cut) */
    cfvSeries energy;     /**< total energy against time */
    cfvSeries momentum;   /**< |angular momentum| against time */
    cfvSeries barrier;    /**< the ipc pipeline's barrier energy kappa sum b against time (cfStepStats::ipc; 0 under another pipeline) */
    long crossings;       /**< ipc pipeline: surface crossings cf_world_crossings() found after a step of cfv_run_step_worlds() (every step is checked; the slot halts at the first) */
    cfContactList extra;  /**< contacts a demo (or a test) adds for the overlays, besides w.contacts */
    cfvMark *marks;       /**< arrows, lines and points the demo draws (always shown) */
    int n_marks, cap_marks;
    cfVec3 *shape_ref;       /**< the shape soft body shape_ref_k's deformation colours compare with (NULL: its rest shape) */
    int shape_ref_k, shape_ref_n;
    const cfSolver *solver0; /**< the solver, iterations and time step the world was set up with (a */
    int iterations0;         /**< label names the solver it was set up with: the HUD says when it runs */
    double dt0;              /**< another; a restart keeps what the user changed) */
} cfvSlot;

struct cfvDemo;

/** A key of a demo's own (cfvDemo::demo_keys): a digit, ',' or '.', which the viewer never binds. */
typedef struct cfvDemoKey {
    char key;          /**< '0'-'9', ',' or '.'; 0 ends the list */
    const char *what;  /**< what it does, for the footer and the help ("halve iterations") */
} cfvDemoKey;

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
    cfvSubject subject[CFV_MAX_SUBJECTS]; /**< what the picture must show (cfv_run_subject() ...) */
    int n_subjects;
    cfvTrail trail[CFV_MAX_TRAILS];      /**< paths drawn behind objects (cfv_run_trail()) */
    int n_trails;
    struct { int slot, body; bool soft; } glass[CFV_MAX_GLASS]; /**< bodies drawn as glass (cfv_run_glass()) */
    int n_glass;
    int n_compare;               /**< a scene compared across solvers (cfv_run_start_compare()): one slot each; 0 otherwise */
    const cfSolver *compare[CFV_MAX_WORLDS]; /**< the solver of each compared slot (kept over restarts) */
    const cfSolver *compare0[CFV_MAX_WORLDS]; /**< the solvers the comparison was started with */
} cfvRun;

/**
 * A demo: one concept, one prediction the demo checks itself. A file in chapters/chNN/demos/
 * defines one `const cfvDemo cfv_demo_chNN_<name>`, which tools/demo-list puts in cfv_demos.
 */
typedef struct cfvDemo {
    const char *id;          /**< "ch01/<name>" */
    int chapter;             /**< chapter number */
    const char *title;       /**< one line */
    const char *point_at;    /**< what the lecturer should point at while it runs */
    /** the viewer's keys that matter here, as binding names of the key table (viewer/keys.c), comma
     *  list: "pause,points,solver"; the footer shows their keys, made from the table */
    const char *keys;
    /** the demo's own keys, ending with {0} (NULL: none); each must reach key() and be handled */
    const cfvDemoKey *demo_keys;
    const char *prediction;  /**< what a correct implementation shows; check() tests it */
    const char *overlays;    /**< overlays shown at start, as for --overlay ("omega,momentum"; NULL: none) */
    /** the plot panels the story points at, comma list of energy, momentum, barrier, residual (NULL:
     *  none): the visual check wants each shown and not empty */
    const char *plots;
    int steps;               /**< steps the headless check runs */
    /** a run of minutes (ch09/world_cloth_10k): a --check of a chapter or of --all takes one step
     *  of it, prediction not checked, unless --heavy (make demos-check HEAVY=1); --check --demo ID
     *  runs it whole */
    bool heavy;
    /** what the demo needs that a build may not link, as "the sparse path of chapter 9
     *  (solutions/ch09/fast/, reference solutions only)" (NULL: nothing) */
    const char *needs;
    /** whether this build has what @ref needs names (NULL: always): a --check lists a demo without
     *  it as not in this build, not as failed, and the viewer says why instead of starting it */
    bool (*available)(void);
    size_t data_size;        /**< bytes of per-run data (run->data), zeroed at setup */
    /** Build the worlds with cfv_run_add_world(). Non-CF_OK stops with the message in err. */
    cfStatus (*setup)(cfvRun *run, cfError *err);
    /** Advance one step; NULL means cfv_run_step_worlds(), then record(). Record what check() needs here. */
    void (*step)(cfvRun *run);
    /** After the headless steps: 0 when the prediction holds; message in @p msg either way. */
    int (*check)(const cfvRun *run, char *msg, size_t cap);
    /** Optional: one of the demo's keys (demo_keys: digits, ',', '.'); return true when handled.
     *  May clear and redraw the marks (cfv_run_clear_marks()). */
    bool (*key)(cfvRun *run, int key);
    /** Optional, with step NULL: called after every default step (cfv_run_step_worlds(), whatever it
     *  returned) to record what check() needs (NULL: nothing to record). */
    void (*record)(cfvRun *run);
} cfvDemo;

/**
 * The four fields of a demo written as the template above: its per-run data is the type `Data`
 * and its hooks are the static functions setup(), record() and check() of the file (the viewer
 * steps the worlds). Use it in the initialiser list of the cfvDemo (`CFV_DEMO_HOOKS,`).
 */
#define CFV_DEMO_HOOKS .data_size = sizeof(Data), .setup = setup, .record = record, .check = check
/** The same for a demo that steps its worlds itself in its static step() (no record()). */
#define CFV_DEMO_STEP_HOOKS .data_size = sizeof(Data), .setup = setup, .step = step, .check = check

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
/**
 * Declare what the picture must show: rigid body @p body of slot @p slot, or with CFV_ALL every
 * object of the slot that is not fixed, as one group. The camera frames the subjects (and the paths
 * they take), and `make demos-check` fails when its screenshot shows one outside the frame, mostly
 * hidden or too small to see. Call in setup; every demo declares at least one subject.
 */
void cfv_run_subject(cfvRun *run, int slot, int body);
/** The same for soft body @p k of slot @p slot. */
void cfv_run_subject_soft(cfvRun *run, int slot, int k);
/** The same for the box [lo, hi] of slot @p slot's coordinates (what a demo draws with marks, or the
 *  stage its bodies move on): inside the frame and not small. */
void cfv_run_subject_region(cfvRun *run, int slot, cfVec3 lo, cfVec3 hi);
/** Draw the path of rigid body @p body's centre (a line, or with @p dots a dot per step). */
void cfv_run_trail(cfvRun *run, int slot, int body, uint32_t rgb, bool dots);
/** Draw the path of node @p node of soft body @p k. */
void cfv_run_trail_soft(cfvRun *run, int slot, int k, int node, uint32_t rgb, bool dots);
/** The deformation colours (overlay "deformation") of soft body @p k of slot @p slot compare with its
 *  shape now from here on, not with its rest shape (a cushion settled under its own weight, so
 *  that the dent a body makes stands out). */
void cfv_run_deformation_from_now(cfvRun *run, int slot, int k);
/** Draw body @p body as glass: translucent with its edges, hiding nothing behind it (so the
 *  contacts under or inside it show). A glass body is seen, not checked: declare a region subject. */
void cfv_run_glass(cfvRun *run, int slot, int body);
/** The same for soft body @p k (translucent, no edges). */
void cfv_run_glass_soft(cfvRun *run, int slot, int k);
/** Add a contact for the overlays of slot @p i (demos that compute their own, tests); cleared each step. */
bool cfv_run_add_contact(cfvRun *run, int i, const cfContact *c);
/** Add a mark to slot @p i (colour 0xRRGGBB, label may be NULL; kind | CFV_MARK_ON_TOP: over the
 *  bodies); false when out of memory. */
bool cfv_run_mark(cfvRun *run, int i, int kind, cfVec3 a, cfVec3 b, uint32_t rgb, const char *label);
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
