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

/* ---- the 3D draw list ---------------------------------------------------------------- */
/** Reusable buffers of the 3D renderer (grown on demand, never shrunk: few allocations). */
typedef struct cfvDraw {
    SDL_Vertex *vtx; int n_vtx, cap_vtx;  /**< projected vertices */
    int *idx; int n_idx, cap_idx;         /**< triangles as vertex indices */
    struct cfvItem *items; int n_items, cap_items; /**< depth-sorted groups of triangles */
    struct cfvItem *tmp; int cap_tmp;     /**< sort scratch */
    int *out; int cap_out;                /**< indices in sorted order */
    cfVec3 *scratch; int cap_scratch;     /**< transformed mesh vertices */
    cfVec3 *scratch_n; int cap_scratch_n; /**< their normals */
    long tris_drawn, tris_culled;         /**< statistics of the last frame */
} cfvDraw;

/** Free the buffers. */
void cfv_draw_free(cfvDraw *d);
/** Draw every world of the run (planes as a ground grid, then depth-sorted bodies). */
void cfv_draw_worlds(cfvDraw *d, SDL_Renderer *r, const cfvView *view, const cfvRun *run);

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
    CFV_OV_LABELS = 1 << 10    /**< world labels above each world */
};
/** Add the overlays named in the comma list @p list ("ids,velocity,...") to @p mask; false on an unknown name. */
bool cfv_parse_overlays(const char *list, unsigned *mask);
/** Arrow scales (m per unit), fixed at reset so growth and decay stay visible. */
typedef struct cfvScales {
    double v, w, L, impulse;
} cfvScales;
/** Scales such that the largest initial arrow is about half the scene radius. */
cfvScales cfv_scales_for(const cfvRun *run);
/** Draw the overlays selected by @p mask. */
void cfv_draw_overlays(SDL_Renderer *r, const cfvView *view, const cfvRun *run, unsigned mask,
                       const cfvScales *sc);
/** A screen-space line of width @p px between two world points (clipped at the near plane). */
void cfv_line3(SDL_Renderer *r, const cfvView *view, cfVec3 a, cfVec3 b, float px, SDL_Color c);
/** An arrow from @p a to @p b with a head. */
void cfv_arrow3(SDL_Renderer *r, const cfvView *view, cfVec3 a, cfVec3 b, float px, SDL_Color c);

/* ---- text, HUD and plots ------------------------------------------------------------- */
/** Draw @p text at (x, y) in pixels, scale 1 = stb_easy_font size; returns its width. */
float cfv_text(SDL_Renderer *r, float x, float y, float scale, SDL_Color c, const char *text);
/** Width and height of @p text at @p scale. */
void cfv_text_size(const char *text, float scale, float *w, float *h);
/** A filled rectangle with alpha blending. */
void cfv_panel(SDL_Renderer *r, float x, float y, float w, float h, SDL_Color c);

/** Add a sample (t, y) to a series; false on allocation failure. */
bool cfv_series_push(cfvSeries *s, double t, double y);
void cfv_series_free(cfvSeries *s);
/** One plot panel: a title, series from every slot, min/max labels; log10 y when @p logy;
 *  @p xunit follows the largest x label ("s" for time; "" for none). */
void cfv_plot(SDL_Renderer *r, float x, float y, float w, float h, const char *title,
              const cfvSeries *const *series, const SDL_Color *colors, int n, bool logy, const char *xunit);
/** The residual per iteration of each slot's last solve (cfStepStats::solver_history) as series
 *  against the iteration number 1, 2, ...; @p t and @p y hold CF_STATS_HISTORY doubles per slot.
 *  Returns the title of the plot panel (it names the matrix-free PGS's measure when a slot uses it). */
const char *cfv_residual_series(const cfvRun *run, cfvSeries *series, double (*t)[CF_STATS_HISTORY],
                                double (*y)[CF_STATS_HISTORY]);
/** Whether the run shows the residual-per-iteration panel: some world has a contact solver. */
bool cfv_run_has_solver(const cfvRun *run);

/* ---- runs: demos and scenes ----------------------------------------------------------- */
/** Start a demo (run is zeroed first). Non-CF_OK: message in err. */
cfStatus cfv_run_start_demo(cfvRun *run, const cfvDemo *demo, cfError *err);
/** Start a scene file. CF_IO_ERROR / CF_BAD_INPUT with the loader's message in err. */
cfStatus cfv_run_start_scene(cfvRun *run, const char *path, cfError *err);
/** Reset to the initial state (setup again). */
cfStatus cfv_run_reset(cfvRun *run, cfError *err);
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

/* ---- the application ---------------------------------------------------------------- */
/** Everything the program keeps between frames. */
typedef struct cfvApp {
    cfvRun run;
    cfvCamera cam;
    cfvDraw draw;
    cfvScales scales;
    unsigned overlays;       /**< CFV_OV_* mask */
    bool hud, plots, help, paused, single_step;
    int steps_per_frame;     /**< simulation steps per drawn frame (windowed) */
    int w, h;                /**< image size */
    float text_scale;        /**< HUD text scale */
    double frame_ms;         /**< last frame's drawing time */
    double fps;              /**< smoothed frames per second (windowed) */
    SDL_FRect area;          /**< the part of the image the panels leave free for the 3D view */
    int plot_panels;         /**< plot panels the area was laid out for */
    bool camera_fixed;       /**< the user chose the camera (--camera): never refit */
    char shot_path[512];     /**< F12 / headless screenshot path ("" : automatic) */
    char record_dir[512];    /**< --record folder ("" : off) */
    bool recording;
    long frame;              /**< frames drawn */
    long shots;              /**< screenshots taken with F12 */
    char flash[160];         /**< a short message shown for a moment ("saved x.png") */
    double flash_until;
    const cfvDemo *const *playlist; /**< demos Tab cycles through (NULL: none) */
    int n_playlist, playlist_at;
} cfvApp;

/** Set up the app defaults for a w x h image (run not started). */
void cfv_app_init(cfvApp *app, int w, int h);
/** Free the app (run, buffers). */
void cfv_app_free(cfvApp *app);
/** After a run starts or resets: camera, scales. */
void cfv_app_on_start(cfvApp *app);
/** Recompute the free 3D area from the panels' sizes (call after changing size or panels). */
void cfv_app_layout(cfvApp *app);
/** Fit the camera into the free area. */
void cfv_app_fit(cfvApp *app);
/** Draw one full frame (3D, overlays, HUD, plots, help). */
void cfv_app_draw(cfvApp *app, SDL_Renderer *r);
/** Handle a key; returns false when the user asked to quit. */
bool cfv_app_key(cfvApp *app, SDL_Renderer *r, SDL_Keycode key, Uint16 mod);
/** Keys and what they do, for `h` and the docs; ends with {NULL, NULL}. */
extern const char *const cfv_key_help[][2];

/** A software renderer on a new w x h surface (no window, no display). */
SDL_Renderer *cfv_headless_renderer(int w, int h, SDL_Surface **surface);

#endif /* CFV_CFVIEW_H */
