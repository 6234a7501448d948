/* SPDX-License-Identifier: MIT */
/* cfview internals: camera, 3D draw list, overlays, HUD, plots, runs and the application. */
#ifndef CFV_CFVIEW_H
#define CFV_CFVIEW_H

#include <SDL.h>
#include <stdbool.h>
#include <string.h>

#include "cf/cf_base.h"
#include "cf/cf_math.h"
#include "cf/cf_scene.h"
#include "cf/cf_world.h"
#include "demos.h"

/** Exit statuses of cfview. */
enum {
    CFV_EXIT_OK = 0,        /**< ran; a demo's prediction held */
    CFV_EXIT_PREDICTION = 1, /**< a demo's prediction failed */
    CFV_EXIT_USAGE = 2,     /**< bad input: options, unknown demo, missing scene, unwritable path */
    CFV_EXIT_TODO = 3       /**< an exercise stub was reached ("not implemented: chNN.K") */
};

/** Copy @p src into @p dst of @p cap bytes, truncating; always NUL-terminated. */
static inline void cfv_copy(char *dst, size_t cap, const char *src)
{
    if (cap == 0) return;
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = 0;
}

/* ---- colours ------------------------------------------------------------------------- */
/** Background of the 3D view. */
extern const SDL_Color cfv_background;
/** Base colour of dynamic object @p k of world slot @p slot (rigid or soft, fixed bodies aside). */
SDL_Color cfv_object_color(int slot, int k);
/** Base colour of fixed (non-plane) bodies. */
extern const SDL_Color cfv_fixed_color;
/** Colour of world slot @p slot in plots and labels (= its first object's colour). */
SDL_Color cfv_slot_color(int slot);

/* ---- camera ---------------------------------------------------------------------------- */
/** Orbit camera: z is up; looks at target from yaw/pitch (radians) at distance dist. */
typedef struct cfvCamera {
    cfVec3 target;
    double yaw, pitch, dist;
    double fov; /**< vertical field of view (radians) */
} cfvCamera;

/** A camera resolved for one frame of w x h pixels. */
typedef struct cfvView {
    cfVec3 eye, right, up, fwd;
    double focal;   /**< pixels per unit at depth 1 */
    double cx, cy;  /**< image centre */
    double near;    /**< near plane depth (m) */
    int w, h;
} cfvView;

/** Camera looking at the origin from the front, slightly above. */
cfvCamera cfv_camera_default(void);
/** Resolve @p cam for a w x h image; the target appears at the centre of @p area (NULL: the image). */
cfvView cfv_view_make(const cfvCamera *cam, int w, int h, const SDL_FRect *area);
/** World point to camera coordinates (right, up, depth). */
cfVec3 cfv_view_to_cam(const cfvView *v, cfVec3 p);
/** Project a world point; false when it is behind the near plane. */
bool cfv_view_project(const cfvView *v, cfVec3 p, float *sx, float *sy);
/** Orbit by yaw/pitch (radians), pan by a screen displacement (pixels), zoom by a factor. */
void cfv_camera_orbit(cfvCamera *cam, double dyaw, double dpitch);
void cfv_camera_pan(cfvCamera *cam, int w, int h, double dx_px, double dy_px);
void cfv_camera_zoom(cfvCamera *cam, double factor);
/** Fit the camera so every object of the run fits in @p area of a w x h image (keeps yaw, pitch). */
void cfv_camera_fit(cfvCamera *cam, const cfvRun *run, int w, int h, const SDL_FRect *area);
/** Fit the camera to the box [lo, hi]. */
void cfv_camera_fit_box(cfvCamera *cam, cfVec3 lo, cfVec3 hi, int w, int h, const SDL_FRect *area);
/** Axis-aligned box around everything that is not a plane (a unit cube when empty). */
void cfv_run_box(const cfvRun *run, cfVec3 *lo, cfVec3 *hi);
/** Bounding sphere of everything that is not a plane in the run. */
void cfv_run_bounds(const cfvRun *run, cfVec3 *centre, double *radius);

/* ---- the rasterizer: triangles with a depth buffer into a framebuffer (raster.c) ------------- */
/** 0xRRGGBB of a colour, the framebuffer's pixel format (SDL_PIXELFORMAT_RGB888). */
static inline Uint32 cfv_rgb(SDL_Color c) { return ((Uint32)c.r << 16) | ((Uint32)c.g << 8) | (Uint32)c.b; }
/** A projected vertex: image position (pixels), 1/depth (1/m; larger is nearer), colour 0xRRGGBB. */
typedef struct cfvRVert {
    float x, y, iz;
    Uint32 rgb;
} cfvRVert;
/** How a primitive meets the depth buffer (or-ed). */
enum {
    CFV_R_TEST = 1,   /**< drawn only where it is nearer than the buffer (within cfvRaster::bias) */
    CFV_R_WRITE = 2,  /**< writes its depth (and, with ids, cfvRaster::cur_id) */
    CFV_R_BLEND = 4,  /**< mixes its colour with what is there, by cfvRaster::alpha (glass) */
    CFV_R_NOCOLOR = 8 /**< depth and id only */
};
/** Framebuffer, depth buffer and (optional) object id per pixel; buffers grow, never shrink. */
typedef struct cfvRaster {
    int w, h;
    size_t cap, id_cap;
    Uint32 *color;   /**< w x h pixels 0xRRGGBB */
    float *depth;    /**< 1/depth of the nearest surface drawn (0: none) */
    Uint32 *id;      /**< object id of that surface (0: none; ground, glass and overlays write none) */
    bool ids;        /**< ids are recorded this frame */
    Uint32 cur_id;   /**< the id that writing primitives record */
    float bias;      /**< depth test tolerance, relative: passes when iz (1 + bias) > buffer */
    float alpha;     /**< opacity of CFV_R_BLEND primitives */
} cfvRaster;
/** Start a w x h frame cleared to @p bg (ids: record object ids); false when out of memory. */
bool cfv_raster_begin(cfvRaster *R, int w, int h, SDL_Color bg, bool ids);
void cfv_raster_free(cfvRaster *R);
/** A triangle (either winding; clipped to the image, huge ones first to a guard band). */
void cfv_raster_tri(cfvRaster *R, const cfvRVert *a, const cfvRVert *b, const cfvRVert *c, unsigned mode);
/** A line of width @p width pixels (1: single pixels), 1/depth interpolated along it. */
void cfv_raster_line(cfvRaster *R, float ax, float ay, float aiz, float bx, float by, float biz, float width, Uint32 rgb,
                     unsigned mode);
/** A square of half side @p half pixels at one depth. */
void cfv_raster_rect(cfvRaster *R, float x, float y, float half, float iz, Uint32 rgb, unsigned mode);
/** A rectangle (pixels whose centre is inside), blended by the colour's alpha; no depth. */
void cfv_raster_fill(cfvRaster *R, float x, float y, float w, float h, SDL_Color c);
/** Whether a point at (x, y) with 1/depth @p iz passes the depth test (false off the image). */
bool cfv_raster_visible(const cfvRaster *R, float x, float y, float iz);
/** Copy the framebuffer to the renderer's target through the streaming texture *tex (made or
 *  remade for the size); false when SDL refuses (message in SDL_GetError()). */
bool cfv_raster_present(cfvRaster *R, SDL_Renderer *r, SDL_Texture **tex, int *tex_w, int *tex_h);

/* ---- the 3D view: bodies into the rasterizer (render.c) --------------------------------- */
/** Object ids in the id buffer: world slot, rigid (0) or soft (1), index + 1. */
#define CFV_ID(slot, soft, index) (((Uint32)(slot) << 24) | ((Uint32)(soft) << 23) | (Uint32)((index) + 1))
/** Buffers of the 3D view (grown on demand, never shrunk: few allocations). */
typedef struct cfvDraw {
    cfvRaster raster;
    SDL_Texture *tex; int tex_w, tex_h;   /**< the framebuffer's texture (of the renderer last shown) */
    SDL_Renderer *tex_owner;
    cfVec3 *scratch; int cap_scratch;     /**< transformed mesh vertices */
    cfVec3 *scratch_n; int cap_scratch_n; /**< their normals */
    float *heat; int cap_heat;            /**< a soft body's deformation per node (CFV_OV_DEFORMATION) */
    /** when set, only the objects it keeps are drawn and no ground (the visual check's second image) */
    bool (*keep)(const void *ctx, Uint32 id);
    const void *keep_ctx;
    unsigned overlays;                    /**< CFV_OV_* of the frame (the deformation colours soft bodies) */
    long tris_drawn, tris_culled;         /**< statistics of the last frame */
} cfvDraw;

/** Free the buffers and the texture (call before the renderer the texture belongs to is destroyed). */
void cfv_draw_free(cfvDraw *d);
/** Forget the texture (its renderer is about to go; it is destroyed with it). */
void cfv_draw_release(cfvDraw *d);
/** Start a frame of the view's size: cleared image and depth (ids: record object ids). */
bool cfv_draw_begin(cfvDraw *d, const cfvView *view, bool ids);
/** Draw every world of the run (planes as a ground grid, bodies, glass last). */
void cfv_draw_worlds(cfvDraw *d, const cfvView *view, const cfvRun *run);
/** Show the frame (3D view, text, panels: all drawn into d->raster) on the renderer's target; false
 *  when SDL refuses. */
bool cfv_draw_present(cfvDraw *d, SDL_Renderer *r);

/* ---- overlays (drawn on top of the 3D view) ----------------------------------------- */
enum {
    CFV_OV_IDS = 1 << 0,       /**< body ids and names */
    CFV_OV_VELOCITY = 1 << 1,  /**< linear velocity arrows */
    CFV_OV_OMEGA = 1 << 2,     /**< angular velocity arrows */
    CFV_OV_MOMENTUM = 1 << 3,  /**< angular momentum (about the centre of mass) arrows */
    CFV_OV_POINTS = 1 << 4,    /**< contact points */
    CFV_OV_NORMALS = 1 << 5,   /**< contact normals */
    CFV_OV_FRAMES = 1 << 6,    /**< contact tangent frames */
    CFV_OV_IMPULSES = 1 << 7,  /**< impulse vectors scaled by lambda */
    CFV_OV_CONES = 1 << 8,     /**< friction cones with the current impulse inside */
    CFV_OV_DEPTH = 1 << 9,     /**< penetration depth */
    CFV_OV_LABELS = 1 << 10,   /**< world labels above each world */
    CFV_OV_DEFORMATION = 1 << 11 /**< soft bodies coloured by how far each node is from its rest shape (moved with the body) */
};
/** Add the overlays named in the comma list @p list ("ids,velocity,...") to @p mask; false on an unknown name. */
bool cfv_parse_overlays(const char *list, unsigned *mask);
/** Arrow scales (m per unit), fixed at reset so growth and decay stay visible. */
typedef struct cfvScales {
    double v, w, L, impulse;
} cfvScales;
/** Scales such that the largest initial arrow is about half the scene radius. */
cfvScales cfv_scales_for(const cfvRun *run);
/** Draw the overlays selected by @p mask, the demo's marks and trails (hidden where a body is in front). */
void cfv_draw_overlays(cfvDraw *d, const cfvView *view, const cfvRun *run, unsigned mask, const cfvScales *sc);
/** A line of width @p px between two world points (clipped at the near plane; hidden behind bodies
 *  unless @p on_top). */
void cfv_line3(cfvDraw *d, const cfvView *view, cfVec3 a, cfVec3 b, float px, SDL_Color c, bool on_top);
/** An arrow from @p a to @p b with a head. */
void cfv_arrow3(cfvDraw *d, const cfvView *view, cfVec3 a, cfVec3 b, float px, SDL_Color c, bool on_top);

/* ---- text, HUD and plots ------------------------------------------------------------- */
/** Draw @p text at (x, y) in pixels into the frame, scale 1 = stb_easy_font size; returns its width. */
float cfv_text(cfvRaster *r, float x, float y, float scale, SDL_Color c, const char *text);
/** Width and height of @p text at @p scale. */
void cfv_text_size(const char *text, float scale, float *w, float *h);
/** A filled rectangle with alpha blending. */
void cfv_panel(cfvRaster *r, float x, float y, float w, float h, SDL_Color c);

/** Add a sample (t, y) to a series; false on allocation failure. */
bool cfv_series_push(cfvSeries *s, double t, double y);
void cfv_series_free(cfvSeries *s);
/** One plot panel: a title, series from every slot, min/max labels; log10 y when @p logy;
 *  @p xunit follows the largest x label ("s" for time; "" for none). */
void cfv_plot(cfvRaster *r, float x, float y, float w, float h, const char *title,
              const cfvSeries *const *series, const SDL_Color *colors, int n, bool logy, const char *xunit);
/** The residual per iteration of each slot's last solve (cfStepStats::solver_history) as series
 *  against the iteration number 1, 2, ...; @p t and @p y hold CF_STATS_HISTORY doubles per slot.
 *  Returns the title of the plot panel (it names the matrix-free PGS's measure when a slot uses it). */
const char *cfv_residual_series(const cfvRun *run, cfvSeries *series, double (*t)[CF_STATS_HISTORY],
                                double (*y)[CF_STATS_HISTORY]);
/** Whether the run shows the residual-per-iteration panel: some world has a contact solver. */
bool cfv_run_has_solver(const cfvRun *run);

/* ---- runs: demos and scenes ----------------------------------------------------------- */
/** Whether this build has what @p demo needs (cfvDemo::available; true when it names nothing). */
bool cfv_demo_in_build(const cfvDemo *demo);
/** Start a demo (run is zeroed first). Non-CF_OK: message in err. */
cfStatus cfv_run_start_demo(cfvRun *run, const cfvDemo *demo, cfError *err);
/** Start a scene file. CF_IO_ERROR / CF_BAD_INPUT with the loader's message in err. */
cfStatus cfv_run_start_scene(cfvRun *run, const char *path, cfError *err);
/**
 * Start the scene file @p path once per solver of @p solvers (1..CFV_MAX_WORLDS world solvers of
 * the registry, cfSolver::contacts): slot i steps the scene with solvers[i], every other setting
 * the scene's, is labelled with the solver's name and drawn beside the previous one along x (the
 * scene's width plus a gap). A reset reloads every slot with its current solver. CF_BAD_INPUT for
 * a count out of range or a solver that cannot step a world; the loader's errors otherwise.
 */
cfStatus cfv_run_start_compare(cfvRun *run, const char *path, const cfSolver *const *solvers, int n, cfError *err);
/** Reset to the initial state (setup again). */
cfStatus cfv_run_reset(cfvRun *run, cfError *err);
/** Restart from the initial state; @p keep: keeping each world's solver and iterations and the time
 *  step the user changed (and a comparison's solvers), else exactly as set up. */
cfStatus cfv_run_restart(cfvRun *run, bool keep, cfError *err);
/** Deep copy of everything a frame draws (worlds, plots, marks, trails, text), into @p dst, which is
 *  freed first (zero it before the first use); the demo's data is not copied. */
cfStatus cfv_run_snapshot(cfvRun *dst, const cfvRun *src);
/** One step: the demo's step function or cfv_run_step_worlds(); samples the plots. */
void cfv_run_step(cfvRun *run);
/** Pass a key the viewer does not use to the demo's key hook; true when the demo handled it. */
bool cfv_run_key(cfvRun *run, int key);
/** Free everything; the run is zeroed. */
void cfv_run_free(cfvRun *run);
/** Apply a change to every world's definition (dt, integrators, gyroscopic). */
void cfv_run_set_dt(cfvRun *run, double dt);
void cfv_run_toggle_gyroscopic(cfvRun *run);
void cfv_run_cycle_rigid_integrator(cfvRun *run);
/** Every world with a contact solver takes the next (@p dir = 1) or previous (-1) world solver of the registry (cf_solvers.h). */
void cfv_run_cycle_solver(cfvRun *run, int dir);
/** The same for slot @p slot alone; in a compared scene its label and its solver of run->compare follow. */
void cfv_run_cycle_slot_solver(cfvRun *run, int slot, int dir);
/** Next preconditioner (cfWorldDef::preconditioner) of slot @p i when its solver takes one (the dual form,
 *  chapter 8); false for a slot whose solver does not. */
bool cfv_run_cycle_preconditioner(cfvRun *run, int i);
void cfv_run_cycle_soft_integrator(cfvRun *run);
/** Message of the stub that was reached ("" when none). */
const char *cfv_run_todo_message(const cfvRun *run, char *buf, size_t cap);

/* ---- images ---------------------------------------------------------------------------- */
/** Write the renderer's target as a PNG; false with a message in err. */
bool cfv_write_png(SDL_Renderer *r, const char *path, cfError *err);
/** Check that @p path can be created (its folder exists and is writable); message in err. */
bool cfv_path_writable(const char *path, cfError *err);
/** Create folder @p dir if it does not exist and check it is writable. */
bool cfv_dir_ready(const char *dir, cfError *err);

/* ---- keys (keys.c): one table, read by the dispatch, the help and the footers ----------- */
/** What a key does. */
typedef enum cfvAction {
    CFV_A_NONE = 0, CFV_A_HELP, CFV_A_PAUSE, CFV_A_STEP, CFV_A_RESTART, CFV_A_RESET, CFV_A_DT_DOWN, CFV_A_DT_UP,
    CFV_A_GYRO, CFV_A_RIGID_INT, CFV_A_SOFT_INT, CFV_A_ITER_DOWN, CFV_A_ITER_UP, CFV_A_SOLVER_NEXT, CFV_A_SOLVER_PREV,
    CFV_A_WORLD, CFV_A_MU_DOWN, CFV_A_MU_UP, CFV_A_SPF_DOWN, CFV_A_SPF_UP, CFV_A_DEMO_NEXT, CFV_A_DEMO_PREV,
    CFV_A_IDS, CFV_A_VELOCITY, CFV_A_OMEGA, CFV_A_MOMENTUM, CFV_A_POINTS, CFV_A_NORMALS, CFV_A_FRAMES,
    CFV_A_IMPULSES, CFV_A_CONES, CFV_A_DEPTH, CFV_A_DEFORMATION, CFV_A_PLOTS, CFV_A_HUD, CFV_A_PRECOND, CFV_A_FIT, CFV_A_HOME,
    CFV_A_ORBIT_LEFT, CFV_A_ORBIT_RIGHT, CFV_A_ORBIT_UP, CFV_A_ORBIT_DOWN, CFV_A_PAN_LEFT, CFV_A_PAN_RIGHT,
    CFV_A_PAN_UP, CFV_A_PAN_DOWN, CFV_A_ZOOM_IN, CFV_A_ZOOM_OUT, CFV_A_SHOT, CFV_A_RECORD, CFV_A_QUIT,
    CFV_A_COUNT
} cfvAction;
/** A key: SDL key code, with or without shift. */
typedef struct cfvKey {
    SDL_Keycode sym;
    bool shift;
} cfvKey;
/** One row of the key table: up to four keys, each with its action. */
typedef struct cfvBinding {
    const char *name;   /**< what a demo's .keys list calls it ("points") */
    const char *what;   /**< footer text ("contact points") */
    const char *help;   /**< the `h` help's line */
    const char *label;  /**< how the keys are written when not one by one ("arrows"); NULL: from the keys */
    cfvAction act[4];
    cfvKey key[4];
    int n_keys;
    bool compare_only;  /**< only with --compare (the digits are the demos' otherwise) */
} cfvBinding;
/** The table, ending with a row whose name is NULL. */
extern const cfvBinding cfv_bindings[];
/** "space", "R", "[": how a key is written on screen. Returns @p buf. */
const char *cfv_key_name(SDL_Keycode sym, bool shift, char *buf, size_t cap);
/** The keys of a row as written on screen ("[ ]", "x X", "arrows"). Returns @p buf. */
const char *cfv_binding_keys(const cfvBinding *b, char *buf, size_t cap);
/** The row named by the first @p len characters of @p name, or NULL. */
const cfvBinding *cfv_binding_find(const char *name, size_t len);
/** The viewer's action of a key (CFV_A_NONE: a key the viewer does not bind); @p compare: --compare's keys too. */
cfvAction cfv_binding_action(SDL_Keycode sym, bool shift, bool compare);
/** Whether @p key is in the demos' namespace (digits, ',' and '.'), which the viewer never binds. */
bool cfv_demo_key_free(int key);
/** The footer of a run: its demo keys, then the viewer keys its .keys names, written from the table;
 *  returns the number of names .keys gives that the table does not have (0 for a sound demo). */
int cfv_footer(const cfvRun *run, char *out, size_t cap);
/** What a key press did. */
typedef enum cfvKeyResult {
    CFV_KEY_UNBOUND = 0, /**< nothing (a flash says so) */
    CFV_KEY_VIEWER,      /**< a viewer action */
    CFV_KEY_DEMO,        /**< the demo's key hook handled it */
    CFV_KEY_QUIT         /**< the user asked to quit */
} cfvKeyResult;

/* ---- the application ---------------------------------------------------------------- */
/** What the run-changing keys act on, and what a stepping thread shares with the window. */
typedef struct cfvCtl {
    bool paused, single_step;
    int steps_per_frame;     /**< simulation steps per frame of 1/60 s (the speed of a window's run) */
    int slot;                /**< a compared scene: the world whose solver x cycles (keys 1-4 choose) */
    const cfvDemo *const *playlist; /**< demos Tab cycles through (NULL: none) */
    int n_playlist, playlist_at;
    long generation;         /**< +1 whenever the run restarts or is replaced (the camera starts again) */
} cfvCtl;

/** Steps per frame for about real time at 60 frames per second (the first world's time step). */
void cfv_ctl_real_time(cfvCtl *ctl, const cfvRun *run);
/** Whether an action changes the run (a stepping thread applies it between two steps). */
bool cfv_action_on_run(cfvAction a);
/**
 * Apply a run action (@p a; CFV_A_NONE with a demo key in @p key) to @p run and @p ctl; a line for
 * the screen in @p msg. CFV_KEY_DEMO when the demo's key hook took @p key, CFV_KEY_UNBOUND when
 * nothing did, CFV_KEY_VIEWER otherwise.
 */
cfvKeyResult cfv_run_act(cfvRun *run, cfvCtl *ctl, cfvAction a, int key, char *msg, size_t cap);

/** A world's label as placed in the image: under its world, inside the view, off the others. */
typedef struct cfvWorldLabel {
    int slot;
    SDL_FRect rect;          /**< label and note */
    float text_w, text_h;
    char text[96];
    char note[640];          /**< why the world halted, wrapped ("" none) */
} cfvWorldLabel;

/** Everything the program keeps between frames. */
typedef struct cfvApp {
    cfvRun run;              /**< the run drawn (with a stepping thread: its last finished state) */
    cfvCtl ctl;
    cfvCamera cam;
    cfvDraw draw;
    cfvScales scales;
    unsigned overlays;       /**< CFV_OV_* mask */
    bool hud, plots, help;
    int w, h;                /**< image size */
    float text_scale;        /**< HUD text scale */
    double draw_ms;          /**< last frame's drawing time */
    double step_ms;          /**< the last step's time (every world) */
    double fps;              /**< smoothed frames per second (windowed) */
    double steps_per_s;      /**< steps per second of a window's run (0: headless) */
    double speed;            /**< simulated seconds per second of a window's run */
    bool threaded;           /**< a thread steps the run; the window shows its last finished state */
    SDL_FRect area;          /**< the part of the image the panels leave free for the 3D view */
    int plot_panels;         /**< plot panels the area was laid out for */
    bool camera_fixed;       /**< the user chose the camera (--camera with a distance): never refit */
    bool camera_moved;       /**< the user moved the camera: it no longer follows the subject */
    cfVec3 seen_lo, seen_hi; /**< the box the subjects (or, without subjects, all objects) went through */
    bool seen_any;
    long seen_generation;    /**< ctl.generation the seen box belongs to */
    char shot_path[512];     /**< F12 / headless screenshot path ("" : automatic) */
    char record_dir[512];    /**< --record folder ("" : off) */
    bool recording;
    long frame;              /**< frames drawn */
    long shots;              /**< screenshots taken with F12 */
    char flash[300];         /**< a short message shown for a moment ("saved x.png") */
    double flash_until;
    /** a stepping thread: run actions go to it (NULL: applied at once) */
    void (*post)(void *ctx, cfvAction a, int key);
    void *post_ctx;
} cfvApp;

/** Set up the app defaults for a w x h image (run not started). */
void cfv_app_init(cfvApp *app, int w, int h);
/** Free the app (run, buffers). */
void cfv_app_free(cfvApp *app);
/** After a run starts or resets: camera, scales, the seen box. */
void cfv_app_on_start(cfvApp *app);
/** After a step: grow the box the subjects went through; a camera the user did not move follows it. */
void cfv_app_track(cfvApp *app);
/** Recompute the free 3D area from the panels' sizes (call after changing size or panels). */
void cfv_app_layout(cfvApp *app);
/** The panels' rectangles (text, story, plots) in @p out (at most 4); returns how many are shown. */
int cfv_app_panels(cfvApp *app, SDL_FRect *out);
/** Whether plot panel @p p (0 energy, 1 momentum, 2 barrier, 3 residual) is shown and has data. */
bool cfv_app_plot_shown(cfvApp *app, int p);
/** Fit the camera into the free area: the subjects and the paths they took (the demo's distance,
 *  when it gives one, stays). */
void cfv_app_fit(cfvApp *app);
/** Draw one full frame (3D, overlays, HUD, plots, help). */
void cfv_app_draw(cfvApp *app, SDL_Renderer *r);
/** Handle a key. */
cfvKeyResult cfv_app_key(cfvApp *app, SDL_Renderer *r, SDL_Keycode key, Uint16 mod);
/** The label world @p sl shows: its own, and ", now SOLVER" when it runs another solver than it was set up with. */
void cfv_slot_label(const cfvSlot *sl, char *out, size_t cap);
/** Show a message for a moment. */
void cfv_app_flash(cfvApp *app, const char *msg);

/* ---- the frame: subjects, labels, the visual check (frame.c) ---------------------------- */
/** Box of subject @p k now (world coordinates, offsets applied); false when it has no finite point. */
bool cfv_subject_box(const cfvRun *run, int k, cfVec3 *lo, cfVec3 *hi);
/** The box of every subject (without subjects: of every object, cfv_run_box()). */
void cfv_run_frame_box(const cfvRun *run, cfVec3 *lo, cfVec3 *hi);
/** Place the world labels for @p view (none for a single world or without CFV_OV_LABELS); returns how many. */
int cfv_world_labels(const cfvApp *app, const cfvView *view, cfvWorldLabel *out);
void cfv_draw_world_labels(cfvRaster *r, const cfvWorldLabel *labels, int n);
/**
 * The visual check of the frame the app would draw now: every subject inside the free area, at
 * least half of it not hidden by other objects and not a speck (a region or group: a quarter of
 * the view wide or high); every world label readable (on screen, off the panels and each other);
 * every plot the demo's .plots names shown with data. Returns the number of failures, with them
 * (or a summary) in @p msg. Draws into app->draw (twice, with object ids): call before the frame
 * that is shown.
 */
int cfv_app_look(cfvApp *app, char *msg, size_t cap);
/** Word-wrap @p s to lines of at most @p width characters. */
void cfv_wrap(const char *s, int width, char *out, size_t cap);

/** A software renderer on a new w x h surface (no window, no display). */
SDL_Renderer *cfv_headless_renderer(int w, int h, SDL_Surface **surface);

#endif /* CFV_CFVIEW_H */
