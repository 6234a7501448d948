/* SPDX-License-Identifier: MIT */
/* cfview: command line, window loop, headless runs with demo checks, and the benchmark. */
#define _POSIX_C_SOURCE 200809L
#include "cfview.h"

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
    "  --check                run headless and check each demo's prediction (exit 1 if one fails)\n"
    "  --all                  with --check: every demo\n"
    "  --headless             no window: draw into a software surface\n"
    "  --steps N              steps to run headless (default: the demo's or the scene's)\n"
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
    "  --bench                frames per second at --size for 200, 1000 and 5000 boxes (headless)\n"
    "  --window               with --bench: in a window (with --software: SDL's software renderer)\n"
    "exit status: 0 ok, 1 a prediction failed, 2 bad input, 3 an exercise is not implemented\n";

typedef struct Opts {
    bool list, check, all, headless, bench, window, no_hud, no_plots, software, has_camera, help;
    const char *demo, *scene, *screenshot, *shots, *record;
    int chapter;
    long steps;  /* -1: default */
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

static int parse(int argc, char **argv, Opts *o)
{
    memset(o, 0, sizeof *o);
    o->steps = -1;
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
        else if (!strcmp(a, "--headless")) o->headless = true;
        else if (!strcmp(a, "--bench")) o->bench = true;
        else if (!strcmp(a, "--window")) o->window = true;
        else if (!strcmp(a, "--no-hud")) o->no_hud = true;
        else if (!strcmp(a, "--no-plots")) o->no_plots = true;
        else if (!strcmp(a, "--software")) o->software = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) o->help = true;
        else if (!strcmp(a, "--demo")) { NEED(); o->demo = v; }
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
            char *e;
            errno = 0;
            long n = strtol(v, &e, 10);
            if (*e || errno || n < 0 || n > 100000000) return bad("--steps: expected a number of steps, got '%s'", v);
            o->steps = n;
        } else if (!strcmp(a, "--frames")) {
            NEED();
            char *e;
            errno = 0;
            long n = strtol(v, &e, 10);
            if (*e || errno || n < 1 || n > 100000000) return bad("--frames: expected a number of frames, got '%s'", v);
            o->frames = n;
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
    if (run->prediction[0]) fprintf(f, "  prediction: %s\n", run->prediction);
}

/* run the app's current run headless for `steps` steps; returns an exit status */
static int run_headless(cfvApp *app, SDL_Renderer *r, long steps, bool check, const char *shot, bool quiet)
{
    cfvRun *run = &app->run;
    cfError err = {{0}};
    char msg[640];
    if (app->record_dir[0] && !record_frame(app, r, &err)) return bad("%s", err.msg);
    /* a scene's screenshot frames everything the run went through (a demo frames itself) */
    cfVec3 lo, hi;
    cfv_run_box(run, &lo, &hi);
    for (long k = 0; k < steps && !run->todo[0]; ++k) {
        cfv_run_step(run);
        if (app->record_dir[0] && !record_frame(app, r, &err)) return bad("%s", err.msg);
        cfVec3 l, h;
        cfv_run_box(run, &l, &h);
        lo = cfu_vec3(fmin(lo.x, l.x), fmin(lo.y, l.y), fmin(lo.z, l.z));
        hi = cfu_vec3(fmax(hi.x, h.x), fmax(hi.y, h.y), fmax(hi.z, h.z));
    }
    if (shot) {
        if (!run->demo && !app->camera_fixed) cfv_camera_fit_box(&app->cam, lo, hi, app->w, app->h, &app->area);
        cfv_app_draw(app, r);
        if (!cfv_write_png(r, shot, &err)) return bad("%s", err.msg);
    }
    if (!quiet) summary(app, stdout);
    if (run->todo[0]) {
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
    }
    if (shot && !quiet) printf("  screenshot: %s (%dx%d)\n", shot, app->w, app->h);
    return status;
}

static void apply_view_options(cfvApp *app, const Opts *o)
{
    if (o->no_hud) app->hud = false;
    if (o->no_plots) app->plots = false;
    if (o->overlays_set) app->overlays = o->overlays;
    cfv_app_fit(app);
    if (app->run.has_camera && app->run.cam_dist > 0) {
        app->cam.target = app->run.cam_target;
        app->cam.dist = app->run.cam_dist;
    }
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
    int worst = 0, failed = 0, todo = 0;
    double t0 = SDL_GetTicks() / 1000.0;
    for (int i = 0; i < n; ++i) {
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
            status = run_headless(&app, r, steps, true, o->shots ? shot : NULL, true);
        }
        if (status == CFV_EXIT_TODO) todo++;
        else if (status != 0) failed++;
        if (status > worst && status != CFV_EXIT_USAGE) worst = status;
        if (status == CFV_EXIT_USAGE) worst = CFV_EXIT_USAGE;
        cfv_app_free(&app);
    }
    printf("cfview --check: %d demo%s, %d failed, %d not implemented (%.2f s)\n", n, n == 1 ? "" : "s", failed, todo,
           SDL_GetTicks() / 1000.0 - t0);
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

static int run_window(cfvApp *app, const Opts *o, const char **why)
{
    char title[200];
    snprintf(title, sizeof title, "cfview - %s", app->run.name);
    SDL_Window *win;
    SDL_Renderer *r = open_window(title, app->w, app->h, o->software, &win, why);
    if (!r) return -1;
    SDL_GetRendererOutputSize(r, &app->w, &app->h);
    cfv_app_layout(app);
    bool running = true;
    int drag = 0, last_x = 0, last_y = 0;
    Uint64 freq = SDL_GetPerformanceFrequency(), last = SDL_GetPerformanceCounter(), first = 0;
    double draw_s = 0.0; /* drawing and presenting, after the first frame */
    long frames = 0;
    while (running) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
            switch (e.type) {
            case SDL_QUIT: running = false; break;
            case SDL_KEYDOWN: running = cfv_app_key(app, r, e.key.keysym.sym, e.key.keysym.mod) && running; break;
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
                    last_x = e.motion.x;
                    last_y = e.motion.y;
                }
                break;
            case SDL_MOUSEWHEEL: cfv_camera_zoom(&app->cam, pow(1.12, -e.wheel.y)); break;
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
        if (!app->paused) {
            for (int k = 0; k < app->steps_per_frame; ++k) cfv_run_step(&app->run);
        } else if (app->single_step) {
            cfv_run_step(&app->run);
        }
        app->single_step = false;
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
    if (o->frames > 0 && frames > 1) {
        /* the first frame (setup, first allocations) is left out of the averages */
        SDL_RendererInfo info;
        SDL_GetRendererInfo(r, &info);
        printf("cfview: %ld frames in a %dx%d window, renderer '%s': %.2f ms per frame (drawing and presenting "
               "%.2f ms), peak resident memory %.0f MB\n",
               frames, app->w, app->h, info.name, 1e3 * (double)(last - first) / (double)freq / (double)(frames - 1),
               1e3 * draw_s / (double)(frames - 1), peak_rss_mb());
    }
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

/* ---- main --------------------------------------------------------------------------------------- */

static int run_main(const Opts *o)
{
    if (o->list) {
        list_demos();
        return CFV_EXIT_OK;
    }
    if (o->bench) return bench(o);

    cfError err = {{0}};
    const char *shot = o->screenshot;
    if (shot && !cfv_path_writable(shot, &err)) return bad("screenshot: %s", err.msg);
    if (o->record && !cfv_dir_ready(o->record, &err)) return bad("--record: %s", err.msg);
    if (o->shots && !cfv_dir_ready(o->shots, &err)) return bad("--shots: %s", err.msg);

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
        app.n_playlist = chapter_demos(o->chapter ? o->chapter : demo->chapter, list, 256);
        app.playlist = list;
        for (int i = 0; i < app.n_playlist; ++i)
            if (list[i] == demo) app.playlist_at = i;
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
        st = cfv_run_start_scene(&app.run, o->scene, &err);
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
    if (!window && !o->headless && !o->check && !o->demo && !o->scene && app.n_playlist > 1) {
        /* a chapter's demos without a display: check them all, one screenshot each */
        fprintf(stderr, "cfview: %s; checking the demos headless instead%s%s\n", why ? why : "no window",
                o->shots ? ", screenshots in " : "", o->shots ? o->shots : "");
        int n = app.n_playlist;
        cfv_app_free(&app);
        return check_demos(list, n, o);
    }
    if (!window) {
        bool fallback = !o->headless && !o->check;
        char auto_shot[700];
        if (fallback) {
            /* asked for a window but there is no display: run headless and say so */
            if (!shot && o->shots) {
                char name[96];
                cfv_copy(name, sizeof name, app.run.name);
                for (char *p = name; *p; ++p)
                    if (*p == '/' || *p == ' ') *p = '_';
                snprintf(auto_shot, sizeof auto_shot, "%s/%s.png", o->shots, name);
                shot = auto_shot;
            }
            if (!shot) shot = "cfview.png";
            fprintf(stderr, "cfview: %s; running headless instead (screenshot: %s)\n", why ? why : "no window", shot);
            if (!cfv_path_writable(shot, &err)) {
                cfv_app_free(&app);
                return bad("screenshot: %s", err.msg);
            }
        }
        SDL_Surface *surf;
        SDL_Renderer *r = cfv_headless_renderer(app.w, app.h, &surf);
        if (!r) {
            cfv_app_free(&app);
            return bad("cannot create a software renderer: %s", SDL_GetError());
        }
        long steps = o->steps >= 0 ? o->steps : app.run.steps;
        bool check = o->check || (demo && o->steps < 0);
        if (app.run.todo[0]) steps = 0; /* setup already reached a stub */
        status = run_headless(&app, r, steps, check, shot, false);
        SDL_DestroyRenderer(r);
        SDL_FreeSurface(surf);
    }
    cfv_app_free(&app);
    return status;
}

int main(int argc, char **argv)
{
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
