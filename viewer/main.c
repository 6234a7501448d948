/* SPDX-License-Identifier: MIT */
/* cfview: command line, window loop, headless runs with demo checks, and the benchmark. */
#define _POSIX_C_SOURCE 200809L
#include "cfview.h"

#include <cblas.h> /* openblas_set_num_threads */
#include <errno.h>
#include <math.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: cfview [options] [SCENE.json]\n"
    "  --list                 list the demos\n"
    "  --demo ID              run demo ID (e.g. ch01/tennis_racket)\n"
    "  --chapter N            the demos of chapter N (Tab switches; with --check: check them all)\n"
    "  --compare A,B,...      with SCENE.json: one world per solver (at most 4), side by side;\n"
    "                         keys 1-4 choose a world, x changes its solver, r restarts them all\n"
    "  --check                run headless and check each demo's prediction (exit 1 if one fails)\n"
    "  --all                  with --check: every demo\n"
    "  --heavy                with --check --all or --chapter: the demos of minutes too (else one\n"
    "                         step of each, its prediction not checked)\n"
    "  --headless             no window: draw into a software surface\n"
    "  --steps N              steps to run headless (default: the demo's or the scene's)\n"
    "  --max-steps N          with --check: at most N steps of each demo; a demo cut short is\n"
    "                         run and drawn but its prediction is not checked (a quick pass\n"
    "                         over every demo, as under a sanitizer)\n"
    "  --screenshot FILE.png  headless: the last frame; window: where F12 writes\n"
    "  --shots DIR            with --check: one screenshot per demo in DIR\n"
    "  --record DIR           write every frame as DIR/frame_NNNNNN.png\n"
    "  --size WxH             image size (default 1280x720)\n"
    "  --overlay LIST         exactly these overlays (comma list): ids,velocity,omega,momentum,\n"
    "                         points,normals,frames,impulses,cones,depth,labels, or none\n"
    "  --no-hud, --no-plots   hide the text or the plots\n"
    "  --camera YAW,PITCH[,DIST]  view direction in degrees, distance in m (default: fit)\n"
    "  --software             window with SDL's software renderer\n"
    "  --frames N             window: close after N frames, print the time per frame and the memory\n"
    "  --bench                frames per second at --size for 200, 1000 and 5000 boxes (headless);\n"
    "                         with --demo ID[,ID...] or a scene: drawing and stepping times of each, headless\n"
    "  --window               with --bench: in a window (with --software: SDL's software renderer)\n"
    "exit status: 0 ok, 1 a prediction failed, 2 bad input, 3 an exercise is not implemented\n";

typedef struct Opts {
    bool list, check, all, heavy, headless, bench, window, no_hud, no_plots, software, has_camera, help;
    const char *demo, *scene, *screenshot, *shots, *record, *compare;
    int chapter;
    long steps;  /* -1: default */
    long max_steps; /* with --check: -1 no limit */
    long frames; /* window: frames before it closes (0: until the user closes it) */
    int w, h;
    unsigned overlays;
    bool overlays_set;
    double yaw, pitch, dist;
} Opts;

static int bad(const char *fmt, const char *a)
{
    fprintf(stderr, "cfview: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n");
    return CFV_EXIT_USAGE;
}

/* a whole number in [lo, 1e8] into *out; false when v is not one */
static bool parse_count(const char *v, long lo, long *out)
{
    char *e;
    errno = 0;
    long n = strtol(v, &e, 10);
    if (*v == 0 || *e || errno || n < lo || n > 100000000) return false;
    *out = n;
    return true;
}

static int parse(int argc, char **argv, Opts *o)
{
    memset(o, 0, sizeof *o);
    o->steps = -1;
    o->max_steps = -1;
    o->w = 1280;
    o->h = 720;
    o->overlays = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                      \
    do {                                                            \
        if (!v) return bad("%s needs a value (try --help)", a);     \
        ++i;                                                        \
    } while (0)
        if (!strcmp(a, "--list")) o->list = true;
        else if (!strcmp(a, "--check")) o->check = true;
        else if (!strcmp(a, "--all")) o->all = true;
        else if (!strcmp(a, "--heavy")) o->heavy = true;
        else if (!strcmp(a, "--headless")) o->headless = true;
        else if (!strcmp(a, "--bench")) o->bench = true;
        else if (!strcmp(a, "--window")) o->window = true;
        else if (!strcmp(a, "--no-hud")) o->no_hud = true;
        else if (!strcmp(a, "--no-plots")) o->no_plots = true;
        else if (!strcmp(a, "--software")) o->software = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) o->help = true;
        else if (!strcmp(a, "--demo")) { NEED(); o->demo = v; }
        else if (!strcmp(a, "--compare")) { NEED(); o->compare = v; }
        else if (!strcmp(a, "--screenshot")) { NEED(); o->screenshot = v; }
        else if (!strcmp(a, "--shots")) { NEED(); o->shots = v; }
        else if (!strcmp(a, "--record")) { NEED(); o->record = v; }
        else if (!strcmp(a, "--chapter")) {
            NEED();
            char *e;
            long c = strtol(v, &e, 10);
            if (*e || c < 1 || c > 99) return bad("--chapter: expected a chapter number, got '%s'", v);
            o->chapter = (int)c;
        } else if (!strcmp(a, "--steps")) {
            NEED();
            if (!parse_count(v, 0, &o->steps)) return bad("--steps: expected a number of steps, got '%s'", v);
        } else if (!strcmp(a, "--max-steps")) {
            NEED();
            if (!parse_count(v, 0, &o->max_steps)) return bad("--max-steps: expected a number of steps, got '%s'", v);
        } else if (!strcmp(a, "--frames")) {
            NEED();
            if (!parse_count(v, 1, &o->frames)) return bad("--frames: expected a number of frames, got '%s'", v);
        } else if (!strcmp(a, "--size")) {
            NEED();
            int w, h;
            char tail;
            if (sscanf(v, "%dx%d%c", &w, &h, &tail) != 2 || w < 64 || h < 64 || w > 8192 || h > 8192)
                return bad("--size: expected WxH between 64x64 and 8192x8192, got '%s'", v);
            o->w = w;
            o->h = h;
        } else if (!strcmp(a, "--overlay")) {
            NEED();
            o->overlays_set = true;
            if (!cfv_parse_overlays(v, &o->overlays)) return bad("--overlay: unknown overlay in '%s' (try --help)", v);
        } else if (!strcmp(a, "--camera")) {
            NEED();
            double y, p, d = 0;
            int k = sscanf(v, "%lf,%lf,%lf", &y, &p, &d);
            if (k < 2 || !isfinite(y) || !isfinite(p) || !(d >= 0)) return bad("--camera: expected YAW,PITCH[,DIST], got '%s'", v);
            o->has_camera = true;
            o->yaw = y;
            o->pitch = p;
            o->dist = d;
        } else if (a[0] == '-') {
            return bad("unknown option '%s' (try --help)", a);
        } else if (!o->scene) {
            o->scene = a;
        } else {
            return bad("more than one scene file ('%s'); give one", a);
        }
#undef NEED
    }
    if (o->scene && o->demo) return bad("give a scene file or --demo, not both%s", "");
    if (o->compare && !o->scene) return bad("--compare %s needs a scene file (cfview --compare A,B SCENE.json)", o->compare);
    if (o->window && !o->bench) return bad("--window goes with --bench (a run opens a window by itself)%s", "");
    return -1;
}

/* ---- listing and lookup -------------------------------------------------------------------- */

static void list_demos(void)
{
    for (int i = 0; cfv_demos[i]; ++i) printf("%-28s ch%02d  %s\n", cfv_demos[i]->id, cfv_demos[i]->chapter, cfv_demos[i]->title);
}

static int chapter_demos(int chapter, const cfvDemo **out, int cap)
{
    int n = 0;
    for (int i = 0; cfv_demos[i] && n < cap; ++i)
        if (chapter == 0 || cfv_demos[i]->chapter == chapter) out[n++] = cfv_demos[i];
    return n;
}

/* ---- headless -------------------------------------------------------------------------------- */

static bool record_frame(cfvApp *app, SDL_Renderer *r, cfError *err)
{
    char path[700];
    snprintf(path, sizeof path, "%s/frame_%06ld.png", app->record_dir, app->frame);
    cfv_app_draw(app, r);
    return cfv_write_png(r, path, err);
}

static void summary(const cfvApp *app, FILE *f)
{
    const cfvRun *run = &app->run;
    fprintf(f, "cfview: %s: %s\n", run->name, run->title);
    if (run->n_slots) {
        const cfWorld *w = &run->slot[0].w;
        fprintf(f, "  %ld step%s, t = %.4g s, dt = %.4g s\n", w->step, w->step == 1 ? "" : "s", w->time, w->def.dt);
    }
    for (int i = 0; i < run->n_slots; ++i) {
        const cfvSlot *s = &run->slot[i];
        double e0 = s->energy.n ? s->energy.y[0] : 0, e1 = s->energy.n ? s->energy.y[s->energy.n - 1] : 0;
        double l0 = s->momentum.n ? s->momentum.y[0] : 0, l1 = s->momentum.n ? s->momentum.y[s->momentum.n - 1] : 0;
        fprintf(f, "  world %d%s%s%s: energy %.6g -> %.6g J, |L| %.6g -> %.6g%s%s\n", i + 1, s->label[0] ? " \"" : "",
                s->label, s->label[0] ? "\"" : "", e0, e1, l0, l1, s->halted ? ", halted: " : "", s->halted ? s->note : "");
    }
    /* a demo checks its prediction (its check()); a scene file's "expect" line is text this run
       shows but does not measure (the catalogue's demos measure those of their scenes) */
    if (run->prediction[0] && run->demo) fprintf(f, "  prediction: %s\n", run->prediction);
    else if (run->prediction[0]) fprintf(f, "  the scene expects (this run does not check it): %s\n", run->prediction);
}

/* the visual check needs an image a lecturer would show */
#define LOOK_MIN_W 960
#define LOOK_MIN_H 540

/* run the app's current run headless for `steps` steps; returns an exit status (a failed visual
   check counts as a failed prediction; *looked says whether it ran) */
static int run_headless(cfvApp *app, SDL_Renderer *r, long steps, bool check, const char *shot, bool quiet, bool *looked)
{
    cfvRun *run = &app->run;
    cfError err = {{0}};
    char msg[2048];
    if (looked) *looked = false;
    if (app->record_dir[0] && !record_frame(app, r, &err)) return bad("%s", err.msg);
    Uint64 f = SDL_GetPerformanceFrequency();
    for (long k = 0; k < steps && !run->todo[0]; ++k) {
        Uint64 t0 = SDL_GetPerformanceCounter();
        cfv_run_step(run);
        app->step_ms = 1e3 * (double)(SDL_GetPerformanceCounter() - t0) / (double)f;
        cfv_app_track(app);
        if (app->record_dir[0] && !record_frame(app, r, &err)) return bad("%s", err.msg);
    }
    /* the frame of the screenshot and of the visual check: the subjects and the paths they took,
       in the view the panels leave free at the end */
    cfv_app_layout(app);
    if (!app->camera_fixed) {
        double yaw = app->cam.yaw, pitch = app->cam.pitch;
        cfv_app_fit(app);
        app->cam.yaw = yaw;
        app->cam.pitch = pitch;
    }
    if (!quiet) summary(app, stdout);
    if (run->todo[0]) {
        if (shot) {
            cfv_app_draw(app, r);
            if (!cfv_write_png(r, shot, &err)) return bad("%s", err.msg);
        }
        fprintf(stderr, "cfview: %s: %s\n", run->name, cfv_run_todo_message(run, msg, sizeof msg));
        return CFV_EXIT_TODO;
    }
    int status = CFV_EXIT_OK;
    if (check && run->demo && run->demo->check) {
        msg[0] = 0;
        int c = run->demo->check(run, msg, sizeof msg);
        if (run->todo[0]) {
            fprintf(stderr, "cfview: %s: %s\n", run->name, cfv_run_todo_message(run, msg, sizeof msg));
            return CFV_EXIT_TODO;
        }
        if (c == 0) {
            printf("%s: prediction holds: %s\n", run->name, msg);
        } else {
            printf("%s: PREDICTION FAILED: %s\n", run->name, msg);
            status = CFV_EXIT_PREDICTION;
        }
        /* what the picture shows: the subjects, the labels, the plots the story points at */
        if (app->w >= LOOK_MIN_W && app->h >= LOOK_MIN_H) {
            int v = cfv_app_look(app, msg, sizeof msg);
            if (looked) *looked = true;
            if (v == 0) {
                printf("%s: the picture shows it: %s\n", run->name, msg);
            } else {
                printf("%s: VISUAL CHECK FAILED (%dx%d): %s\n", run->name, app->w, app->h, msg);
                status = CFV_EXIT_PREDICTION;
            }
        } else if (!quiet) {
            printf("%s: visual check skipped: it needs at least %dx%d (this image %dx%d)\n", run->name, LOOK_MIN_W, LOOK_MIN_H,
                   app->w, app->h);
        }
    }
    if (shot) {
        cfv_app_draw(app, r);
        if (!cfv_write_png(r, shot, &err)) return bad("%s", err.msg);
        if (!quiet) printf("  screenshot: %s (%dx%d)\n", shot, app->w, app->h);
    }
    return status;
}

static void apply_view_options(cfvApp *app, const Opts *o)
{
    if (o->no_hud) app->hud = false;
    if (o->no_plots) app->plots = false;
    if (o->overlays_set) app->overlays = o->overlays;
    cfv_app_fit(app);
    if (o->has_camera) {
        app->camera_fixed = o->dist > 0;
        app->cam.yaw = o->yaw * CF_PI / 180.0;
        app->cam.pitch = o->pitch * CF_PI / 180.0;
        if (o->dist > 0) app->cam.dist = o->dist;
        else cfv_app_fit(app);
    }
}

/* check every demo of a list headless; one line each */
static int check_demos(const cfvDemo **list, int n, const Opts *o)
{
    SDL_Surface *surf;
    SDL_Renderer *r = cfv_headless_renderer(o->w, o->h, &surf);
    if (!r) return bad("cannot create a software renderer: %s", SDL_GetError());
    int worst = 0, failed = 0, todo = 0, looked = 0, cut = 0, absent = 0;
    double t0 = SDL_GetTicks() / 1000.0;
    for (int i = 0; i < n; ++i) {
        if (!cfv_demo_in_build(list[i])) { /* a handout, or IMPL=exercises: not a failure */
            printf("%s: not in this build, not run: it needs %s\n", list[i]->id, list[i]->needs ? list[i]->needs : "more");
            absent++;
            continue;
        }
        cfvApp app;
        cfv_app_init(&app, o->w, o->h);
        cfError err = {{0}};
        cfStatus st = cfv_run_start_demo(&app.run, list[i], &err);
        int status;
        if (st != CF_OK && st != CF_NOT_IMPLEMENTED) {
            fprintf(stderr, "cfview: %s: setup failed: %s\n", list[i]->id, err.msg);
            status = CFV_EXIT_PREDICTION;
        } else {
            cfv_app_on_start(&app);
            apply_view_options(&app, o);
            char shot[700];
            if (o->shots) {
                char name[96];
                snprintf(name, sizeof name, "%s", list[i]->id);
                for (char *p = name; *p; ++p)
                    if (*p == '/') *p = '_';
                snprintf(shot, sizeof shot, "%s/%s.png", o->shots, name);
            }
            long steps = o->steps >= 0 ? o->steps : app.run.steps;
            long cap = n > 1 && list[i]->heavy && !o->heavy ? 1 : o->max_steps;
            bool full = cap < 0 || steps <= cap;
            if (!full) steps = cap;
            bool l = false;
            status = run_headless(&app, r, steps, full, o->shots ? shot : NULL, true, &l);
            if (!full && status == CFV_EXIT_OK) {
                printf("%s: ran %ld step%s (%s), prediction not checked\n", list[i]->id, steps, steps == 1 ? "" : "s",
                       cap == o->max_steps ? "--max-steps" : "a heavy demo: --heavy runs it whole");
                cut++;
            }
            looked += l;
        }
        if (status == CFV_EXIT_TODO) todo++;
        else if (status != 0) failed++;
        if (status > worst && status != CFV_EXIT_USAGE) worst = status;
        if (status == CFV_EXIT_USAGE) worst = CFV_EXIT_USAGE;
        cfv_app_free(&app);
    }
    char absent_text[48] = ""; /* ", N not in this build": demos left out for what the build does not link */
    if (absent) snprintf(absent_text, sizeof absent_text, ", %d not in this build", absent);
    printf("cfview --check: %d demo%s, %d failed, %d not implemented, %d cut short, %d visual check%s%s (%.2f s)%s\n", n,
           n == 1 ? "" : "s", failed, todo, cut, looked, looked == 1 ? "" : "s", absent_text,
           SDL_GetTicks() / 1000.0 - t0,
           looked < n - todo - absent ? " (the visual checks need an image of at least 960x540)" : "");
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(surf);
    if (worst == CFV_EXIT_USAGE) return worst;
    return failed ? CFV_EXIT_PREDICTION : (todo ? CFV_EXIT_TODO : CFV_EXIT_OK);
}

/* ---- the window ------------------------------------------------------------------------------- */

static bool have_display(const char **why)
{
#if defined(__linux__) || defined(__unix__)
#if !defined(__APPLE__)
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    const char *drv = getenv("SDL_VIDEODRIVER");
    if (drv && (!strcmp(drv, "dummy") || !strcmp(drv, "offscreen"))) {
        *why = "SDL_VIDEODRIVER selects no display";
        return false;
    }
    if ((!x || !*x) && (!wl || !*wl)) {
        *why = "no display: $DISPLAY and $WAYLAND_DISPLAY are unset";
        return false;
    }
#endif
#endif
    *why = NULL;
    return true;
}

/* peak resident memory of the process so far, in MB */
static double peak_rss_mb(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_maxrss / 1024.0 : 0.0; /* ru_maxrss: KB on Linux */
}

/* a w x h window titled `title` and its renderer (accelerated unless `software`, falling back to
   SDL's software renderer); NULL with the reason in *why (video is shut down again then) */
static SDL_Renderer *open_window(const char *title, int w, int h, bool software, SDL_Window **win, const char **why)
{
    static char reason[300];
    /* try only the window systems the environment names (no noise from the others) */
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    bool hx = x && *x, hw = wl && *wl;
    if (!getenv("SDL_VIDEODRIVER") && (hx || hw))
        SDL_SetHint(SDL_HINT_VIDEODRIVER, hx && hw ? "wayland,x11" : (hw ? "wayland" : "x11"));
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
        snprintf(reason, sizeof reason, "cannot open a window: %s", SDL_GetError());
        *why = reason;
        return NULL;
    }
    const char *drv = SDL_GetCurrentVideoDriver();
    if (!drv || !strcmp(drv, "offscreen") || !strcmp(drv, "dummy")) {
        snprintf(reason, sizeof reason, "cannot open a window: no display reachable (SDL video driver '%s')",
                 drv ? drv : "none");
        *why = reason;
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        return NULL;
    }
    *win = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h, SDL_WINDOW_RESIZABLE);
    if (!*win) {
        snprintf(reason, sizeof reason, "cannot open a window: %s", SDL_GetError());
        *why = reason;
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        return NULL;
    }
    SDL_Renderer *r = NULL;
    if (!software) r = SDL_CreateRenderer(*win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
    if (!r) {
        /* the software renderer draws into the window's framebuffer; SDL would show that through
           OpenGL, which without a GPU is a second software rasterizer: 2.5x the frame time at
           1280x720 under Xvfb and 100 MB more memory. The window system's own path is as fast as
           headless. */
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
        r = SDL_CreateRenderer(*win, -1, SDL_RENDERER_SOFTWARE);
    }
    if (!r) {
        snprintf(reason, sizeof reason, "cannot create a renderer: %s", SDL_GetError());
        *why = reason;
        SDL_DestroyWindow(*win);
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
    }
    return r;
}

static void close_window(SDL_Window *win, SDL_Renderer *r)
{
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(win);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

/* ---- the stepping thread: the window shows the last state it finished -------------------------- */

/* The window never waits for a step: a thread steps the run (in real time when it can, as fast as
   it can when a step takes longer) and publishes a copy of each finished state; the window draws
   the newest copy at its own rate. Keys that change the run are queued to the thread, which applies
   them between two steps. */
typedef struct Worker {
    SDL_Thread *thread;
    SDL_mutex *lock;
    SDL_cond *wake;
    cfvRun live;                 /* the run the thread steps (the thread's alone) */
    cfvRun spare;                /* its next copy, made outside the lock */
    cfvRun shown;                /* the newest copy, for the window to take (under the lock) */
    cfvCtl ctl;                  /* the thread's settings (the window gets a copy with each state) */
    bool fresh;                  /* shown has not been taken yet */
    struct {
        cfvAction a;
        int key;
    } queue[64];
    int n_queue;
    char msg[700];               /* the last action's line for the screen ("" none) */
    bool quit;
    double step_ms, steps_per_s; /* over the last second */
} Worker;

static void worker_post(void *ctx, cfvAction a, int key)
{
    Worker *w = ctx;
    SDL_LockMutex(w->lock);
    if (w->n_queue < (int)(sizeof w->queue / sizeof w->queue[0])) {
        w->queue[w->n_queue].a = a;
        w->queue[w->n_queue++].key = key;
    }
    SDL_CondSignal(w->wake);
    SDL_UnlockMutex(w->lock);
}

static double now_s(void) { return (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency(); }

static int worker_main(void *p)
{
    Worker *w = p;
    double last = now_s(), debt = 0, window_t0 = last, window_step_s = 0;
    long window_steps = 0;
    for (;;) {
        /* the keys queued since the last steps */
        SDL_LockMutex(w->lock);
        int applied = 0;
        for (int i = 0; i < w->n_queue; ++i) {
            char msg[700];
            cfv_run_act(&w->live, &w->ctl, w->queue[i].a, w->queue[i].key, msg, sizeof msg);
            if (msg[0]) cfv_copy(w->msg, sizeof w->msg, msg);
            applied++;
        }
        w->n_queue = 0;
        if (w->quit) {
            SDL_UnlockMutex(w->lock);
            break;
        }
        bool single = w->ctl.single_step;
        w->ctl.single_step = false;
        bool run = !w->ctl.paused || single;
        if (!run && !applied) SDL_CondWaitTimeout(w->wake, w->lock, 100);
        int spf = w->ctl.steps_per_frame;
        SDL_UnlockMutex(w->lock);

        /* real time: steps_per_frame steps each 1/60 s; a step that takes longer is not caught up with */
        double t = now_s();
        int n = 0;
        if (single) {
            n = 1;
        } else if (run) {
            debt += (t - last) * 60.0 * spf;
            if (debt > 4.0 * spf) debt = spf;
            n = (int)debt;
            debt -= n;
        }
        last = t;
        for (int k = 0; k < n && !w->live.todo[0]; ++k) {
            double t0 = now_s();
            cfv_run_step(&w->live);
            window_step_s += now_s() - t0;
            window_steps++;
        }
        t = now_s();
        if (t - window_t0 >= 1.0 || (window_steps > 0 && t - window_t0 >= 0.25 && w->steps_per_s == 0)) {
            SDL_LockMutex(w->lock);
            w->steps_per_s = window_steps / (t - window_t0);
            w->step_ms = window_steps ? 1e3 * window_step_s / window_steps : w->step_ms;
            SDL_UnlockMutex(w->lock);
            window_t0 = t;
            window_step_s = 0;
            window_steps = 0;
        }
        if (n > 0 || applied) {
            /* publish: copy outside the lock, swap under it */
            if (cfv_run_snapshot(&w->spare, &w->live) == CF_OK) {
                SDL_LockMutex(w->lock);
                cfvRun tmp = w->shown;
                w->shown = w->spare;
                w->spare = tmp;
                w->fresh = true;
                SDL_UnlockMutex(w->lock);
            }
        } else {
            SDL_Delay(1);
        }
    }
    return 0;
}

/* the window takes the newest finished state; returns true when the run restarted or changed */
static bool worker_take(Worker *w, cfvApp *app)
{
    bool changed = false;
    SDL_LockMutex(w->lock);
    if (w->fresh) {
        cfvRun tmp = app->run;
        app->run = w->shown;
        w->shown = tmp;
        w->fresh = false;
        changed = app->ctl.generation != w->ctl.generation;
        app->ctl = w->ctl;
    }
    app->step_ms = w->step_ms;
    app->steps_per_s = w->steps_per_s;
    app->speed = app->run.n_slots ? w->steps_per_s * app->run.slot[0].w.def.dt : 0.0;
    if (w->msg[0]) {
        cfv_app_flash(app, w->msg);
        w->msg[0] = 0;
    }
    SDL_UnlockMutex(w->lock);
    return changed;
}

static bool worker_start(Worker *w, cfvApp *app)
{
    memset(w, 0, sizeof *w);
    w->lock = SDL_CreateMutex();
    w->wake = SDL_CreateCond();
    if (!w->lock || !w->wake) return false;
    w->live = app->run; /* the thread owns the run from now on; the window draws copies */
    memset(&app->run, 0, sizeof app->run);
    w->ctl = app->ctl;
    if (cfv_run_snapshot(&app->run, &w->live) != CF_OK) return false;
    w->thread = SDL_CreateThread(worker_main, "cfview-step", w);
    if (!w->thread) return false;
    app->post = worker_post;
    app->post_ctx = w;
    app->threaded = true;
    return true;
}

static void worker_stop(Worker *w, cfvApp *app)
{
    if (w->thread) {
        SDL_LockMutex(w->lock);
        w->quit = true;
        SDL_CondSignal(w->wake);
        SDL_UnlockMutex(w->lock);
        SDL_WaitThread(w->thread, NULL);
    }
    /* the run is the window's again */
    cfv_run_free(&app->run);
    app->run = w->live;
    cfv_run_free(&w->shown);
    cfv_run_free(&w->spare);
    app->post = NULL;
    app->post_ctx = NULL;
    app->threaded = false;
    if (w->wake) SDL_DestroyCond(w->wake);
    if (w->lock) SDL_DestroyMutex(w->lock);
}

static int run_window(cfvApp *app, const Opts *o, const char **why)
{
    char title[200];
    snprintf(title, sizeof title, "cfview - %s", app->run.name);
    SDL_Window *win;
    SDL_Renderer *r = open_window(title, app->w, app->h, o->software, &win, why);
    if (!r) return -1;
    SDL_GetRendererOutputSize(r, &app->w, &app->h);
    cfv_app_layout(app);
    cfv_app_fit(app);
    Worker worker;
    if (!worker_start(&worker, app)) {
        fprintf(stderr, "cfview: cannot start the stepping thread: %s\n", SDL_GetError());
        worker_stop(&worker, app);
        cfv_draw_release(&app->draw);
        close_window(win, r);
        return CFV_EXIT_USAGE;
    }
    bool running = true;
    int drag = 0, last_x = 0, last_y = 0;
    Uint64 freq = SDL_GetPerformanceFrequency(), last = SDL_GetPerformanceCounter(), first = 0;
    double draw_s = 0.0; /* drawing and presenting, after the first frame */
    long frames = 0, steps0 = -1;
    while (running) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
            switch (e.type) {
            case SDL_QUIT: running = false; break;
            case SDL_KEYDOWN:
                running = cfv_app_key(app, r, e.key.keysym.sym, e.key.keysym.mod) != CFV_KEY_QUIT && running;
                break;
            case SDL_MOUSEBUTTONDOWN:
                drag = e.button.button == SDL_BUTTON_LEFT ? 1 : 2;
                last_x = e.button.x;
                last_y = e.button.y;
                break;
            case SDL_MOUSEBUTTONUP: drag = 0; break;
            case SDL_MOUSEMOTION:
                if (drag) {
                    int dx = e.motion.x - last_x, dy = e.motion.y - last_y;
                    bool pan = drag == 2 || (SDL_GetModState() & KMOD_SHIFT);
                    if (pan) cfv_camera_pan(&app->cam, app->w, app->h, dx, dy);
                    else cfv_camera_orbit(&app->cam, -0.006 * dx, 0.006 * dy);
                    app->camera_moved = true;
                    last_x = e.motion.x;
                    last_y = e.motion.y;
                }
                break;
            case SDL_MOUSEWHEEL:
                cfv_camera_zoom(&app->cam, pow(1.12, -e.wheel.y));
                app->camera_moved = true;
                break;
            case SDL_WINDOWEVENT:
                if (e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
                    SDL_GetRendererOutputSize(r, &app->w, &app->h);
                    cfv_app_layout(app);
                }
                break;
            default: break;
            }
        }
        if (!running) break;
        if (worker_take(&worker, app)) {
            cfv_app_on_start(app); /* a restart or another demo: its camera */
            app->scales = cfv_scales_for(&app->run);
        } else {
            cfv_app_track(app);
        }
        if (steps0 < 0 && app->run.n_slots) steps0 = app->run.slot[0].w.step;
        if (strcmp(title + 9, app->run.name) != 0) {
            snprintf(title, sizeof title, "cfview - %s", app->run.name);
            SDL_SetWindowTitle(win, title);
        }
        Uint64 t_draw = SDL_GetPerformanceCounter();
        cfv_app_draw(app, r);
        if (app->recording) {
            cfError err = {{0}};
            if (!record_frame(app, r, &err)) {
                fprintf(stderr, "cfview: %s\n", err.msg);
                app->recording = false;
            }
        }
        SDL_RenderPresent(r);
        Uint64 now = SDL_GetPerformanceCounter();
        if (frames++ > 0) draw_s += (double)(now - t_draw) / (double)freq;
        else first = now;
        double dt = (double)(now - last) / (double)freq;
        last = now;
        if (dt > 0) app->fps = app->fps > 0 ? 0.9 * app->fps + 0.1 / dt : 1.0 / dt;
        if (o->frames > 0 && frames >= o->frames) break;
        if (dt < 1.0 / 120) SDL_Delay(2); /* no vsync: do not spin */
    }
    long steps = app->run.n_slots && steps0 >= 0 ? app->run.slot[0].w.step - steps0 : 0;
    double secs = frames > 1 ? (double)(last - first) / (double)freq : 0;
    worker_stop(&worker, app);
    if (o->frames > 0 && frames > 1) {
        /* the first frame (setup, first allocations) is left out of the averages */
        SDL_RendererInfo info;
        SDL_GetRendererInfo(r, &info);
        printf("cfview: %ld frames in a %dx%d window, renderer '%s': %.2f ms per frame (drawing and presenting "
               "%.2f ms), %.1f frames/s; stepping beside it: %ld steps shown, %.1f steps/s (%.1f ms a step); peak "
               "resident memory %.0f MB\n",
               frames, app->w, app->h, info.name, 1e3 * secs / (double)(frames - 1), 1e3 * draw_s / (double)(frames - 1),
               (double)(frames - 1) / secs, steps, secs > 0 ? steps / secs : 0.0, app->step_ms, peak_rss_mb());
    }
    cfv_draw_release(&app->draw);
    close_window(win, r);
    return CFV_EXIT_OK;
}

/* ---- benchmark ------------------------------------------------------------------------------ */

static unsigned hash32(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static double unit(unsigned x) { return (hash32(x) & 0xffffff) / (double)0x1000000; }

static int bench(const Opts *o)
{
    static const int counts[] = {200, 1000, 5000};
    SDL_Surface *surf = NULL;
    SDL_Window *win = NULL;
    SDL_Renderer *r;
    if (o->window) {
        const char *why = NULL;
        r = open_window("cfview --bench", o->w, o->h, o->software, &win, &why);
        if (!r) return bad("--bench --window: %s", why);
    } else {
        r = cfv_headless_renderer(o->w, o->h, &surf);
        if (!r) return bad("cannot create a software renderer: %s", SDL_GetError());
    }
    SDL_RendererInfo info;
    SDL_GetRendererInfo(r, &info);
    printf("cfview --bench: %dx%d, SDL %d.%d.%d renderer '%s' (%s), HUD and plots on\n", o->w, o->h,
           SDL_MAJOR_VERSION, SDL_MINOR_VERSION, SDL_PATCHLEVEL, info.name, o->window ? "window" : "headless");
    printf("boxes,fps,ms_per_frame,triangles_drawn,triangles_culled,frames,peak_rss_mb\n");
    int status = CFV_EXIT_OK;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        int n = counts[c];
        cfvApp app;
        cfv_app_init(&app, o->w, o->h);
        cfError err = {{0}};
        snprintf(app.run.name, sizeof app.run.name, "bench");
        snprintf(app.run.title, sizeof app.run.title, "%d boxes", n);
        if (cfv_run_add_world(&app.run, NULL, "", cfu_zero3(), &err) < 0) {
            cfv_app_free(&app);
            status = bad("bench: %s", err.msg);
            break;
        }
        cfWorld *w = &app.run.slot[0].w;
        cfRigidBody b;
        if (cf_rigid_init_fixed(&b, cf_shape_plane(cfu_vec3(0, 0, 1), 0), &err) == CF_OK) cf_world_add_body(w, &b);
        int side = (int)ceil(sqrt(n / 4.0));
        double sp = 0.6;
        for (int i = 0; i < n; ++i) {
            int layer = i / (side * side), row = (i / side) % side, col = i % side;
            if (cf_rigid_init(&b, cf_shape_box(cfu_vec3(0.2, 0.15, 0.1)), 1.0, &err) != CF_OK) break;
            b.x = cfu_vec3((col - 0.5 * (side - 1)) * sp, (row - 0.5 * (side - 1)) * sp, 0.3 + layer * sp);
            cf_world_add_body(w, &b);
        }
        cfv_series_push(&app.run.slot[0].energy, 0, 0);
        cfv_app_on_start(&app);
        app.run.n_slots = 1;
        Uint64 f = SDL_GetPerformanceFrequency(), t0 = SDL_GetPerformanceCounter(), t = t0;
        int frames = 0;
        while (frames < 10 || (double)(t - t0) / (double)f < 1.5) {
            double time = frames / 60.0;
            for (int i = 0; i < w->n_bodies; ++i) {
                cfRigidBody *bb = &w->bodies[i];
                if (bb->fixed) continue;
                cfVec3 axis = cfu_vec3(unit(3 * (unsigned)i) - 0.5, unit(3 * (unsigned)i + 1) - 0.5, unit(3 * (unsigned)i + 2) - 0.5);
                bb->q = cfu_quat_from_axis_angle(axis, 6.0 * unit((unsigned)i + 77) + time * (0.5 + unit((unsigned)i + 99)));
            }
            w->time = time;
            cfv_series_push(&app.run.slot[0].energy, time, sin(time));
            cfv_app_draw(&app, r);
            if (win) {
                SDL_RenderPresent(r);
                SDL_PumpEvents();
            }
            frames++;
            t = SDL_GetPerformanceCounter();
        }
        double secs = (double)(t - t0) / (double)f;
        printf("%d,%.1f,%.2f,%ld,%ld,%d,%.0f\n", n, frames / secs, 1e3 * secs / frames, app.draw.tris_drawn,
               app.draw.tris_culled, frames, peak_rss_mb());
        fflush(stdout);
        if (o->screenshot && c + 1 == sizeof counts / sizeof counts[0]) cfv_write_png(r, o->screenshot, &err);
        cfv_app_free(&app);
    }
    if (win) {
        close_window(win, r);
    } else {
        SDL_DestroyRenderer(r);
        SDL_FreeSurface(surf);
    }
    return status;
}

/* the drawing and stepping times of demos (or a scene), headless: the frames a window would draw,
   each after its steps, one CSV line per demo */
static int bench_runs(const Opts *o)
{
    SDL_Surface *surf = NULL;
    SDL_Renderer *r = cfv_headless_renderer(o->w, o->h, &surf);
    if (!r) return bad("cannot create a software renderer: %s", SDL_GetError());
    printf("cfview --bench: %dx%d headless, SDL's software renderer; each frame: the steps of 1/60 s, then the drawing\n",
           o->w, o->h);
    printf("run,frames,steps_per_frame,draw_ms,step_ms,frame_ms,fps_drawing,fps_with_steps,triangles\n");
    int status = CFV_EXIT_OK;
    char list[512];
    cfv_copy(list, sizeof list, o->demo ? o->demo : "");
    for (char *p = list, *next; p && (*p || o->scene); p = next) {
        next = strchr(p, ',');
        if (next) *next++ = 0;
        cfvApp app;
        cfv_app_init(&app, o->w, o->h);
        cfError err = {{0}};
        const cfvDemo *demo = o->scene ? NULL : cfv_demo_find(p);
        cfStatus st = demo ? cfv_run_start_demo(&app.run, demo, &err)
                           : o->scene ? cfv_run_start_scene(&app.run, o->scene, &err)
                                      : cf_error_set(&err, CF_BAD_INPUT, "unknown demo '%s'", p);
        if (st != CF_OK) {
            status = bad("--bench: %s", err.msg);
            cfv_app_free(&app);
            break;
        }
        cfv_app_on_start(&app);
        Uint64 f = SDL_GetPerformanceFrequency(), t_start = SDL_GetPerformanceCounter();
        double draw = 0, step = 0;
        int frames = 0;
        cfv_app_draw(&app, r); /* the first frame: allocations */
        while (frames < 10 || ((double)(SDL_GetPerformanceCounter() - t_start) / (double)f < 3.0 && frames < 600)) {
            Uint64 t0 = SDL_GetPerformanceCounter();
            for (int k = 0; k < app.ctl.steps_per_frame && !app.run.todo[0]; ++k) cfv_run_step(&app.run);
            Uint64 t1 = SDL_GetPerformanceCounter();
            cfv_app_track(&app);
            cfv_app_draw(&app, r);
            Uint64 t2 = SDL_GetPerformanceCounter();
            step += (double)(t1 - t0) / (double)f;
            draw += (double)(t2 - t1) / (double)f;
            frames++;
        }
        printf("%s,%d,%d,%.2f,%.2f,%.2f,%.1f,%.1f,%ld\n", app.run.name, frames, app.ctl.steps_per_frame, 1e3 * draw / frames,
               1e3 * step / frames, 1e3 * (draw + step) / frames, frames / draw, frames / (draw + step), app.draw.tris_drawn);
        fflush(stdout);
        cfv_app_free(&app);
        if (o->scene) break;
    }
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(surf);
    return status;
}

/* ---- main --------------------------------------------------------------------------------------- */

/* --compare LIST: the world solvers of the registry it names; their number, or -1 after a message */
static int compare_solvers(const char *list, const cfSolver **out)
{
    char names[512], msg[800];
    cf_solver_names(CF_SOLVERS_WORLD, names, sizeof names);
    int n = 0;
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        const cfSolver *s = len < sizeof name ? cf_solver_find(name) : NULL;
        if (len == 0) snprintf(msg, sizeof msg, "--compare '%s': empty solver name (world solvers: %s)", list, names);
        else if (!s) snprintf(msg, sizeof msg, "--compare: unknown solver '%.*s' (world solvers: %s)", (int)len, p, names);
        else if (!s->contacts) snprintf(msg, sizeof msg, "--compare: solver '%s' cannot step a world (world solvers: %s)", s->name, names);
        else if (n == CFV_MAX_WORLDS) snprintf(msg, sizeof msg, "--compare: at most %d solvers side by side", CFV_MAX_WORLDS);
        else msg[0] = 0;
        if (msg[0]) {
            bad("%s", msg);
            return -1;
        }
        out[n++] = s;
        if (!p[len]) return n;
        p += len + 1;
    }
}

/* The run of run_main() without a window (--headless, --check, or no display: then headless with one
   screenshot, @p shot or named after the run in --shots or cfview.png), its steps checked as --check
   says. Returns the exit status; the caller frees @p app. */
static int run_without_window(cfvApp *app, const Opts *o, const cfvDemo *demo, const char *shot, const char *why)
{
    cfError err = {{0}};
    bool fallback = !o->headless && !o->check;
    char auto_shot[700];
    if (fallback) {
        /* asked for a window but there is no display: run headless and say so */
        if (!shot && o->shots) {
            char name[96];
            cfv_copy(name, sizeof name, app->run.name);
            for (char *p = name; *p; ++p)
                if (*p == '/' || *p == ' ') *p = '_';
            snprintf(auto_shot, sizeof auto_shot, "%s/%s.png", o->shots, name);
            shot = auto_shot;
        }
        if (!shot) shot = "cfview.png";
        fprintf(stderr, "cfview: %s; running headless instead (screenshot: %s)\n", why ? why : "no window", shot);
        if (!cfv_path_writable(shot, &err)) return bad("screenshot: %s", err.msg);
    }
    SDL_Surface *surf;
    SDL_Renderer *r = cfv_headless_renderer(app->w, app->h, &surf);
    if (!r) return bad("cannot create a software renderer: %s", SDL_GetError());
    long steps = o->steps >= 0 ? o->steps : app->run.steps;
    bool check = o->check || (demo && o->steps < 0);
    if (o->max_steps >= 0 && steps > o->max_steps) {
        steps = o->max_steps;
        check = false;
    }
    if (app->run.todo[0]) steps = 0; /* setup already reached a stub */
    int status = run_headless(app, r, steps, check, shot, false, NULL);
    cfv_draw_release(&app->draw);
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(surf);
    return status;
}

static int run_main(const Opts *o)
{
    if (o->list) {
        list_demos();
        return CFV_EXIT_OK;
    }
    if (o->bench) return o->demo || o->scene ? bench_runs(o) : bench(o);

    cfError err = {{0}};
    const char *shot = o->screenshot;
    if (shot && !cfv_path_writable(shot, &err)) return bad("screenshot: %s", err.msg);
    if (o->record && !cfv_dir_ready(o->record, &err)) return bad("--record: %s", err.msg);
    if (o->shots && !cfv_dir_ready(o->shots, &err)) return bad("--shots: %s", err.msg);

    if (o->max_steps >= 0 && !o->check) return bad("--max-steps is for --check (a cut-short run checks no prediction)%s", "");
    const cfvDemo *list[256];
    if (o->check && !o->demo && !o->scene) {
        if (!o->all && !o->chapter) return bad("--check needs --demo ID, --chapter N or --all%s", "");
        int n = chapter_demos(o->all ? 0 : o->chapter, list, 256);
        if (n == 0) return bad("no demos for chapter %s (cfview --list shows the demos)", o->all ? "any" : "given");
        return check_demos(list, n, o);
    }

    cfvApp app;
    cfv_app_init(&app, o->w, o->h);
    if (o->record) snprintf(app.record_dir, sizeof app.record_dir, "%s", o->record);
    if (shot) snprintf(app.shot_path, sizeof app.shot_path, "%s", shot);

    const cfvDemo *demo = NULL;
    if (o->demo) {
        demo = cfv_demo_find(o->demo);
        if (!demo) {
            cfv_app_free(&app);
            return bad("unknown demo '%s' (cfview --list shows the demos)", o->demo);
        }
    } else if (!o->scene) {
        int n = chapter_demos(o->chapter, list, 256);
        if (n == 0) {
            cfv_app_free(&app);
            return bad("no demos for chapter %s (cfview --list shows the demos)", o->chapter ? "given" : "any");
        }
        demo = list[0];
    }
    if (demo) {
        app.ctl.n_playlist = chapter_demos(o->chapter ? o->chapter : demo->chapter, list, 256);
        app.ctl.playlist = list;
        for (int i = 0; i < app.ctl.n_playlist; ++i)
            if (list[i] == demo) app.ctl.playlist_at = i;
    }

    cfStatus st;
    if (demo) {
        st = cfv_run_start_demo(&app.run, demo, &err);
    } else {
        FILE *f = fopen(o->scene, "r");
        if (!f) {
            int e = errno;
            cfv_app_free(&app);
            fprintf(stderr, "cfview: %s: cannot open scene: %s\n", o->scene, strerror(e));
            return CFV_EXIT_USAGE;
        }
        fclose(f);
        const cfSolver *solvers[CFV_MAX_WORLDS];
        int n = o->compare ? compare_solvers(o->compare, solvers) : 0;
        if (n < 0) {
            cfv_app_free(&app);
            return CFV_EXIT_USAGE;
        }
        st = n > 0 ? cfv_run_start_compare(&app.run, o->scene, solvers, n, &err) : cfv_run_start_scene(&app.run, o->scene, &err);
    }
    if (st != CF_OK && st != CF_NOT_IMPLEMENTED) {
        fprintf(stderr, "cfview: %s\n", err.msg);
        cfv_app_free(&app);
        return CFV_EXIT_USAGE;
    }
    cfv_app_on_start(&app);
    apply_view_options(&app, o);

    int status;
    const char *why = NULL;
    bool window = !o->headless && !o->check && have_display(&why);
    if (window) {
        status = run_window(&app, o, &why);
        if (status < 0) window = false;
    }
    if (!window && !o->headless && !o->check && !o->demo && !o->scene && app.ctl.n_playlist > 1) {
        /* a chapter's demos without a display: check them all, one screenshot each */
        fprintf(stderr, "cfview: %s; checking the demos headless instead%s%s\n", why ? why : "no window",
                o->shots ? ", screenshots in " : "", o->shots ? o->shots : "");
        int n = app.ctl.n_playlist;
        cfv_app_free(&app);
        return check_demos(list, n, o);
    }
    if (!window) status = run_without_window(&app, o, demo, shot, why);
    cfv_app_free(&app);
    return status;
}

int main(int argc, char **argv)
{
    /* OpenBLAS on one thread unless the caller says otherwise, as in cflab: the dense systems are
       small, and a threaded OpenBLAS spins beside the stepping thread (IPC's 12 x 12 PSD
       projections took 1.28 s per Newton iteration instead of 0.048 s) */
    if (!getenv("OPENBLAS_NUM_THREADS")) openblas_set_num_threads(1);
    Opts o;
    int st = parse(argc, argv, &o);
    if (st >= 0) return st;
    if (o.help) {
        fputs(usage, stdout);
        return CFV_EXIT_OK;
    }
    if (argc == 1) {
        fputs(usage, stderr);
        return CFV_EXIT_USAGE;
    }
    /* SDL is used for its renderer and, with a window, for video and events */
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    if (SDL_Init(0) != 0) return bad("SDL_Init: %s", SDL_GetError());
    st = run_main(&o);
    SDL_Quit();
    return st;
}
