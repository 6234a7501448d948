/* SPDX-License-Identifier: MIT */
/* The application: one frame (3D view, overlays, HUD, plots, help) and the keyboard. */
#include "cfview.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const SDL_Color fg = {235, 235, 235, 255};
static const SDL_Color dim = {160, 166, 178, 255};
static const SDL_Color warn = {255, 120, 100, 255};
static const SDL_Color panel_bg = {12, 14, 20, 190};

const char *const cfv_key_help[][2] = {
    {"h", "this help"},
    {"space", "pause / run"},
    {"s", "single step (pauses)"},
    {"r", "reset to the initial state"},
    {"[  ]", "time step / 2, x 2"},
    {"g", "gyroscopic term on / off (every world)"},
    {"i  I", "next rigid / soft integrator (every world)"},
    {"o  O", "solver iterations / 2, x 2"},
    {"x  X", "next / previous contact solver of the registry (every world; --compare: the chosen one)"},
    {"1-4", "--compare: choose the world whose solver x changes"},
    {"m  M", "friction coefficient mu - 0.1, + 0.1 (every body)"},
    {"-  =", "fewer / more steps per frame"},
    {"tab", "next demo (shift+tab: previous)"},
    {"b", "body ids"},
    {"v  w  l", "velocity, angular velocity, angular momentum arrows"},
    {"c  n  t", "contact points, normals, tangent frames"},
    {"j  k  d", "impulses, friction cones, penetration depth"},
    {"p  u", "plots, HUD"},
    {"P", "next preconditioner of the dual-form solver (chapter 8; every world with one)"},
    {"f  home", "fit the camera / default view"},
    {"mouse", "left drag: orbit, right drag: pan, wheel: zoom"},
    {"arrows", "orbit (shift: pan); page up / down: zoom"},
    {"F12", "screenshot"},
    {"F9", "record frames on / off"},
    {"q  esc", "quit"},
    {NULL, NULL},
};

/* ---- setup -------------------------------------------------------------------------------- */

void cfv_app_init(cfvApp *app, int w, int h)
{
    memset(app, 0, sizeof *app);
    app->w = w;
    app->h = h;
    app->cam = cfv_camera_default();
    app->overlays = CFV_OV_LABELS;
    app->hud = true;
    app->plots = true;
    app->steps_per_frame = 1;
    app->text_scale = h >= 1000 ? 2.0f : (h >= 640 ? 1.5f : 1.0f);
    app->area = (SDL_FRect){0, 0, (float)w, (float)h};
}

void cfv_app_free(cfvApp *app)
{
    cfv_run_free(&app->run);
    cfv_draw_free(&app->draw);
}

void cfv_app_fit(cfvApp *app)
{
    cfv_app_layout(app);
    cfv_camera_fit(&app->cam, &app->run, app->w, app->h, &app->area);
}

void cfv_app_on_start(cfvApp *app)
{
    cfvRun *run = &app->run;
    app->cam = cfv_camera_default();
    if (run->has_camera) {
        app->cam.yaw = run->cam_yaw * CF_PI / 180.0;
        app->cam.pitch = run->cam_pitch * CF_PI / 180.0;
    }
    cfv_app_fit(app);
    if (run->has_camera && run->cam_dist > 0) {
        app->cam.target = run->cam_target;
        app->cam.dist = run->cam_dist;
    }
    app->scales = cfv_scales_for(run);
    app->overlays = CFV_OV_LABELS;
    if (run->demo && run->demo->overlays) cfv_parse_overlays(run->demo->overlays, &app->overlays);
    /* about real time in a window at 60 frames per second */
    double dt = run->n_slots ? run->slot[0].w.def.dt : 1.0 / 60;
    int k = (int)floor((1.0 / 60.0) / dt + 0.5);
    app->steps_per_frame = k < 1 ? 1 : (k > 100 ? 100 : k);
}

/* ---- text helpers ----------------------------------------------------------------------------- */

/* word-wrap @p s to lines of at most @p width characters */
static void wrap(const char *s, int width, char *out, size_t cap)
{
    size_t n = 0;
    int col = 0;
    while (*s && n + 2 < cap) {
        const char *e = s;
        while (*e && *e != ' ' && *e != '\n') ++e;
        int len = (int)(e - s);
        if (col > 0 && col + 1 + len > width) {
            out[n++] = '\n';
            col = 0;
        } else if (col > 0) {
            out[n++] = ' ';
            col++;
        }
        for (int i = 0; i < len && n + 2 < cap; ++i) out[n++] = s[i];
        col += len;
        if (*e == '\n') {
            if (n + 2 < cap) out[n++] = '\n';
            col = 0;
        }
        s = *e ? e + 1 : e;
    }
    out[n] = 0;
}

/* ---- panels: what they say and where they go ---------------------------------------------- */

typedef struct Hud {
    float s;                                 /* text scale */
    char title[600];                         /* wrapped, at 1.33 s */
    char status[200];                        /* at s */
    char worlds[CFV_MAX_WORLDS][320];        /* at s, with a colour box */
    int n_worlds;
    char info[CFV_INFO_LINES][160];          /* the demo's own lines, at s */
    int n_info;
    char detail[600];                        /* stage timings, solver: at scale 1 */
    char story[2400];                        /* prediction, what to look at, keys: at s */
    SDL_FRect top, bottom, plots;            /* panel rectangles (w == 0: not shown) */
    bool energy_plot, momentum_plot;         /* only when some sample is not zero */
    bool barrier_plot;                       /* the ipc pipeline's barrier energy, when not zero */
    bool residual_plot;                      /* the solver's residual per iteration (last step) */
} Hud;

static bool has_rigid(const cfvRun *run)
{
    for (int s = 0; s < run->n_slots; ++s)
        for (int i = 0; i < run->slot[s].w.n_bodies; ++i)
            if (!run->slot[s].w.bodies[i].fixed) return true;
    return false;
}

/* a panel carries information when some world has a sample that is not zero (a demo that only
   places bodies, with no dynamics, has energy and momentum 0 throughout: no panel) */
static bool informative(const cfvRun *run, size_t series_offset)
{
    for (int i = 0; i < run->n_slots; ++i) {
        const cfvSeries *se = (const cfvSeries *)((const char *)&run->slot[i] + series_offset);
        for (int k = 0; k < se->n; ++k)
            if (se->y[k] != 0.0) return true; /* NaN too: it says something went wrong */
    }
    return false;
}

static int plot_panels(const Hud *H) { return H->energy_plot + H->momentum_plot + H->barrier_plot + H->residual_plot; }

static void hud_build(const cfvApp *app, Hud *H)
{
    const cfvRun *run = &app->run;
    memset(H, 0, sizeof *H);
    float s = H->s = app->text_scale;
    float pw = fminf(420.0f, 0.32f * app->w), ph = fminf(170.0f, 0.24f * app->h);
    bool rigid = has_rigid(run), soft = false;
    for (int i = 0; i < run->n_slots; ++i) soft = soft || run->slot[i].w.n_soft > 0;
    H->energy_plot = informative(run, offsetof(cfvSlot, energy));
    H->momentum_plot = rigid && informative(run, offsetof(cfvSlot, momentum));
    H->barrier_plot = informative(run, offsetof(cfvSlot, barrier));
    H->residual_plot = cfv_run_has_solver(run);
    int panels = plot_panels(H);
    if (app->plots && panels > 0)
        H->plots = (SDL_FRect){app->w - pw - 8, 8, pw, panels * ph + 8 * (panels - 1)};
    if (!app->hud) return;

    float maxw = (H->plots.w > 0 ? H->plots.x : (float)app->w) - 20;
    char buf[1200];
    int chars = (int)(maxw / (6.0f * 1.33f * s));
    snprintf(buf, sizeof buf, "%s  %s", run->name, run->title);
    wrap(buf, chars, H->title, sizeof H->title);

    double t = run->n_slots ? run->slot[0].w.time : 0;
    long step = run->n_slots ? run->slot[0].w.step : 0;
    double dt = run->n_slots ? run->slot[0].w.def.dt : 0;
    snprintf(H->status, sizeof H->status, "t = %.3f s   step %ld   h = %.4g ms   %d step%s/frame%s", t, step, dt * 1e3,
             app->steps_per_frame, app->steps_per_frame == 1 ? "" : "s", app->paused ? "   PAUSED" : "");

    H->n_worlds = run->n_slots;
    for (int i = 0; i < run->n_slots; ++i) {
        const cfvSlot *sl = &run->slot[i];
        const cfWorldDef *d = &sl->w.def;
        char integ[160] = "";
        if (d->pipeline != CF_PIPELINE_VELOCITY) /* its own step: the integrator settings are the velocity pipeline's */
            snprintf(integ, sizeof integ, "pipeline %s", cf_pipeline_name(d->pipeline));
        else if (rigid)
            snprintf(integ, sizeof integ, "rigid %s, gyroscopic %s%s", cf_rigid_integrator_name(d->rigid_integrator),
                     d->gyroscopic ? "on" : "off", soft ? ", " : "");
        if (soft && d->pipeline == CF_PIPELINE_VELOCITY)
            snprintf(integ + strlen(integ), sizeof integ - strlen(integ), "soft %s",
                     cf_soft_integrator_name(d->soft_integrator));
        int m;
        if (i < run->n_compare) /* a compared scene: what each solver did in the last step */
            m = snprintf(H->worlds[i], sizeof H->worlds[i], "%d%s %s  %d it, common %.2e  E = %.5g J", i + 1,
                         i == app->slot ? "*" : " ", sl->label, sl->w.stats.solver_iterations, sl->w.stats.common_residual,
                         sl->energy.n ? sl->energy.y[sl->energy.n - 1] : 0.0);
        else
            m = snprintf(H->worlds[i], sizeof H->worlds[i], "%s%s[%s]  E = %.5g J", sl->label, sl->label[0] ? "  " : "",
                         integ, sl->energy.n ? sl->energy.y[sl->energy.n - 1] : 0.0);
        if (rigid && m > 0 && (size_t)m < sizeof H->worlds[i])
            m += snprintf(H->worlds[i] + m, sizeof H->worlds[i] - (size_t)m, "  L = %.4g",
                          sl->momentum.n ? sl->momentum.y[sl->momentum.n - 1] : 0.0);
        if (sl->halted && m > 0 && (size_t)m < sizeof H->worlds[i])
            snprintf(H->worlds[i] + m, sizeof H->worlds[i] - (size_t)m, "  (%s)", sl->note);
        /* one line each: cut what does not fit */
        int wchars = (int)((maxw - 14 * s) / (6.0f * s));
        if (wchars > 8 && (int)strlen(H->worlds[i]) > wchars) strcpy(H->worlds[i] + wchars - 3, "...");
    }

    for (int i = 0; i < CFV_INFO_LINES; ++i)
        if (run->info[i][0]) {
            cfv_copy(H->info[H->n_info], sizeof H->info[0], run->info[i]);
            int wchars = (int)((maxw - 14 * s) / (6.0f * s));
            if (wchars > 8 && (int)strlen(H->info[H->n_info]) > wchars) strcpy(H->info[H->n_info] + wchars - 3, "...");
            H->n_info++;
        }

    double stage[CF_STAGE_COUNT] = {0};
    int iters = 0, budget = 0, contacts = 0;
    long unconverged = 0, solved_steps = 0;
    double resid = 0, common = 0;
    /* the stage times of the worlds that run the first world's pipeline */
    const cfPipeline *pl = cf_pipeline_of(run->n_slots ? run->slot[0].w.def.pipeline : CF_PIPELINE_VELOCITY);
    for (int i = 0; i < run->n_slots; ++i) {
        const cfWorld *w = &run->slot[i].w;
        common = fmax(common, w->stats.common_residual);
        if (cf_pipeline_of(w->def.pipeline) == pl)
            for (int k = 0; k < pl->n_stages; ++k) stage[k] += w->stats.stage_seconds[k];
        iters = w->stats.solver_iterations > iters ? w->stats.solver_iterations : iters;
        budget = w->def.solver_iterations > budget ? w->def.solver_iterations : budget; /* the worlds' largest */
        resid = fmax(resid, w->stats.solver_residual);
        contacts += w->stats.n_contacts;
        unconverged += w->unconverged_steps;
        solved_steps += w->step;
    }
    size_t n = 0;
    n += (size_t)snprintf(H->detail + n, sizeof H->detail - n, "step (ms):");
    for (int k = 0; k < pl->n_stages && n < sizeof H->detail; ++k)
        n += (size_t)snprintf(H->detail + n, sizeof H->detail - n, " %s %.3f", pl->stages[k], stage[k] * 1e3);
    if (run->n_compare > 0 && n < sizeof H->detail) {
        /* each world's line names its solver: the sums of all worlds only */
        snprintf(H->detail + n, sizeof H->detail - n, "\ncontacts %d in %d worlds (1-4: choose a world, x: its solver)", contacts,
                 run->n_slots);
    } else if (run->n_slots && n < sizeof H->detail) {
        const cfWorldDef *d = &run->slot[0].w.def;
        const cfStepStats *st = &run->slot[0].w.stats;
        if (d->pipeline == CF_PIPELINE_IPC)
            snprintf(H->detail + n, sizeof H->detail - n,
                     "\npipeline ipc (dhat %.3g m, kappa %.3g N/m)   Newton iterations %d   pairs within dhat %d   smallest "
                     "distance %.3e m", st->ipc.dhat, st->ipc.kappa, st->solver_iterations, st->n_contacts, st->ipc.min_distance);
        else if (!d->solver && soft)
            snprintf(H->detail + n, sizeof H->detail - n,
                     "\ncontact solver: none   contacts %d   last linear solve: %d iteration%s, residual %.2e", contacts,
                     iters, iters == 1 ? "" : "s", resid);
        else if (!d->solver)
            snprintf(H->detail + n, sizeof H->detail - n, "\ncontact solver: none   contacts %d", contacts);
        else
            snprintf(H->detail + n, sizeof H->detail - n,
                     "\nsolver %s (%s friction)   iterations %d of %d   residual %.3e (%s), common %.3e   contacts %d"
                     "   not converged %ld of %ld steps",
                     d->solver->name, cf_friction_model_name(d->friction_model), iters, budget, resid,
                     cf_measure_name(d->solver->measure), common, contacts, unconverged, solved_steps);
    }

    float w1, h1, w2, h2, w3, h3;
    cfv_text_size(H->title, 1.33f * s, &w1, &h1);
    cfv_text_size(H->status, s, &w2, &h2);
    cfv_text_size(H->detail, 1.0f, &w3, &h3);
    float ww = fmaxf(w1, fmaxf(w2, w3));
    for (int i = 0; i < H->n_worlds; ++i) {
        float a, b;
        cfv_text_size(H->worlds[i], s, &a, &b);
        ww = fmaxf(ww, a + 14 * s);
    }
    for (int i = 0; i < H->n_info; ++i) {
        float a, b;
        cfv_text_size(H->info[i], s, &a, &b);
        ww = fmaxf(ww, a);
    }
    float hh = h1 + 4 + h2 + 12.0f * s * (H->n_worlds + H->n_info) + 4 + h3;
    H->top = (SDL_FRect){4, 4, fminf(ww, maxw) + 12, hh + 10};

    /* bottom left: the story */
    float sw = fminf(maxw, 0.62f * app->w);
    chars = (int)(sw / (6.0f * s));
    if (chars < 30) chars = 30;
    n = 0;
    char wrapped[1600];
    if (run->prediction[0]) {
        snprintf(buf, sizeof buf, "prediction: %s", run->prediction);
        wrap(buf, chars, wrapped, sizeof wrapped);
        n += (size_t)snprintf(H->story + n, sizeof H->story - n, "%s\n", wrapped);
    }
    if (run->point_at[0] && n < sizeof H->story) {
        snprintf(buf, sizeof buf, "%s: %s", run->demo ? "look at" : "about", run->point_at);
        wrap(buf, chars, wrapped, sizeof wrapped);
        n += (size_t)snprintf(H->story + n, sizeof H->story - n, "%s\n", wrapped);
    }
    if (n < sizeof H->story) {
        if (run->keys[0]) snprintf(buf, sizeof buf, "keys: %s   (h: all keys)", run->keys);
        else snprintf(buf, sizeof buf, "h: keys");
        wrap(buf, chars, wrapped, sizeof wrapped);
        snprintf(H->story + n, sizeof H->story - n, "%s", wrapped);
    }
    cfv_text_size(H->story, s, &w2, &h2);
    H->bottom = (SDL_FRect){4, app->h - h2 - 16, w2 + 12, h2 + 12};
}

void cfv_app_layout(cfvApp *app)
{
    Hud H;
    hud_build(app, &H);
    app->plot_panels = plot_panels(&H);
    float top = H.top.w > 0 ? H.top.y + H.top.h + 4 : 0;
    float bottom = H.bottom.w > 0 ? H.bottom.y - 4 : (float)app->h;
    float right = H.plots.w > 0 ? H.plots.x - 4 : (float)app->w;
    SDL_FRect a = {0, top, right, bottom - top};
    /* too little left: use the whole image under translucent panels */
    if (a.w < 0.4f * app->w || a.h < 0.4f * app->h) a = (SDL_FRect){0, 0, (float)app->w, (float)app->h};
    app->area = a;
}

static void draw_hud(cfvApp *app, SDL_Renderer *r, const Hud *H)
{
    float s = H->s;
    float x = H->top.x + 6, y = H->top.y + 5, w, h;
    cfv_panel(r, H->top.x, H->top.y, H->top.w, H->top.h, panel_bg);
    cfv_text(r, x, y, 1.33f * s, fg, H->title);
    cfv_text_size(H->title, 1.33f * s, &w, &h);
    y += h + 4;
    cfv_text(r, x, y, s, fg, H->status);
    y += 12.0f * s;
    for (int i = 0; i < H->n_worlds; ++i) {
        cfv_panel(r, x, y + 1, 9 * s, 7 * s, cfv_slot_color(i));
        cfv_text(r, x + 14 * s, y, s, app->run.slot[i].halted ? warn : fg, H->worlds[i]);
        y += 12.0f * s;
    }
    for (int i = 0; i < H->n_info; ++i) {
        cfv_text(r, x, y, s, (SDL_Color){255, 221, 87, 255}, H->info[i]);
        y += 12.0f * s;
    }
    cfv_text(r, x, y + 4, 1.0f, dim, H->detail);

    cfv_panel(r, H->bottom.x, H->bottom.y, H->bottom.w, H->bottom.h, panel_bg);
    cfv_text(r, H->bottom.x + 6, H->bottom.y + 6, s, fg, H->story);

    char buf[160];
    snprintf(buf, sizeof buf, "%ld triangles, %.1f ms/frame%s", app->draw.tris_drawn, app->frame_ms,
             app->recording ? "  REC" : "");
    if (app->fps > 0) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ", %.0f fps", app->fps);
    cfv_text_size(buf, 1.0f, &w, &h);
    cfv_text(r, app->w - w - 8, app->h - h - 4, 1.0f, dim, buf);
}

static void draw_plots(cfvApp *app, SDL_Renderer *r, const Hud *H)
{
    const cfvRun *run = &app->run;
    const cfvSeries *se[CFV_MAX_WORLDS], *sm[CFV_MAX_WORLDS], *sb[CFV_MAX_WORLDS];
    SDL_Color col[CFV_MAX_WORLDS];
    for (int i = 0; i < run->n_slots; ++i) {
        se[i] = &run->slot[i].energy;
        sm[i] = &run->slot[i].momentum;
        sb[i] = &run->slot[i].barrier;
        col[i] = cfv_slot_color(i);
    }
    float x = H->plots.x, y = H->plots.y, pw = H->plots.w;
    int panels = plot_panels(H);
    float ph = (H->plots.h - 8 * (panels - 1)) / panels;
    if (H->energy_plot) {
        cfv_plot(r, x, y, pw, ph, "energy (J) against time", se, col, run->n_slots, false, "s");
        y += ph + 8;
    }
    if (H->momentum_plot) {
        cfv_plot(r, x, y, pw, ph, "angular momentum (kg m^2/s) against time", sm, col, run->n_slots, false, "s");
        y += ph + 8;
    }
    if (H->barrier_plot) {
        cfv_plot(r, x, y, pw, ph, "barrier energy kappa sum b (J) against time", sb, col, run->n_slots, false, "s");
        y += ph + 8;
    }
    if (H->residual_plot) {
        /* every slot's last solve, one sample per iteration, log10 residual */
        static double t[CFV_MAX_WORLDS][CF_STATS_HISTORY], v[CFV_MAX_WORLDS][CF_STATS_HISTORY];
        cfvSeries hist[CFV_MAX_WORLDS];
        const cfvSeries *sh[CFV_MAX_WORLDS];
        const char *title = cfv_residual_series(run, hist, t, v);
        for (int i = 0; i < run->n_slots; ++i) sh[i] = &hist[i];
        cfv_plot(r, x, y, pw, ph, title, sh, col, run->n_slots, true, "iterations");
    }
}

static void draw_help(cfvApp *app, SDL_Renderer *r)
{
    float s = app->text_scale, lh = 12.0f * s, kw = 0, dw = 0;
    int n = 0;
    for (; cfv_key_help[n][0]; ++n) {
        float w, h;
        cfv_text_size(cfv_key_help[n][0], s, &w, &h);
        kw = fmaxf(kw, w);
        cfv_text_size(cfv_key_help[n][1], s, &w, &h);
        dw = fmaxf(dw, w);
    }
    float tw = kw + 24 * s + dw, th = (n + 2) * lh;
    float x = 0.5f * (app->w - tw), y = 0.5f * (app->h - th);
    cfv_panel(r, x - 14, y - 12, tw + 28, th + 16, (SDL_Color){8, 10, 16, 240});
    cfv_text(r, x, y, s, fg, "keys");
    for (int i = 0; i < n; ++i) {
        cfv_text(r, x, y + (i + 2) * lh, s, (SDL_Color){255, 221, 87, 255}, cfv_key_help[i][0]);
        cfv_text(r, x + kw + 24 * s, y + (i + 2) * lh, s, fg, cfv_key_help[i][1]);
    }
}

static void draw_banner(cfvApp *app, SDL_Renderer *r)
{
    char msg[512], wrapped[640];
    cfv_run_todo_message(&app->run, msg, sizeof msg);
    float s = app->text_scale * 1.33f;
    int chars = (int)(app->w * 0.8f / (6.0f * s));
    wrap(msg, chars, wrapped, sizeof wrapped);
    float w, h;
    cfv_text_size(wrapped, s, &w, &h);
    float x = 0.5f * (app->w - w), y = 0.42f * app->h;
    cfv_panel(r, x - 16, y - 12, w + 32, h + 20, (SDL_Color){120, 20, 20, 235});
    cfv_text(r, x, y, s, (SDL_Color){255, 255, 255, 255}, wrapped);
}

void cfv_app_draw(cfvApp *app, SDL_Renderer *r)
{
    Uint64 t0 = SDL_GetPerformanceCounter();
    Hud H;
    hud_build(app, &H);
    if (plot_panels(&H) != app->plot_panels) {
        /* a panel began to carry information (or a reset emptied it): make room for it */
        cfv_app_layout(app);
        hud_build(app, &H);
    }
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
    SDL_SetRenderDrawColor(r, cfv_background.r, cfv_background.g, cfv_background.b, 255);
    SDL_RenderClear(r);
    cfvView view = cfv_view_make(&app->cam, app->w, app->h, &app->area);
    cfv_draw_worlds(&app->draw, r, &view, &app->run);
    cfv_draw_overlays(r, &view, &app->run, app->overlays, &app->scales);
    if (app->hud) draw_hud(app, r, &H);
    if (app->plots && H.plots.w > 0) draw_plots(app, r, &H);
    if (app->run.todo[0]) draw_banner(app, r);
    if (app->help) draw_help(app, r);
    if (app->flash[0] && SDL_GetTicks() / 1000.0 < app->flash_until) {
        float w, h;
        cfv_text_size(app->flash, app->text_scale, &w, &h);
        float x = 0.5f * (app->w - w), y = (app->hud ? H.bottom.y : (float)app->h) - h - 16;
        cfv_panel(r, x - 8, y - 6, w + 16, h + 10, panel_bg);
        cfv_text(r, x, y, app->text_scale, fg, app->flash);
    }
    app->frame_ms = 1e3 * (double)(SDL_GetPerformanceCounter() - t0) / (double)SDL_GetPerformanceFrequency();
    app->frame++;
}

/* ---- keys --------------------------------------------------------------------------------- */

static void flash(cfvApp *app, const char *msg)
{
    cfv_copy(app->flash, sizeof app->flash, msg);
    app->flash_until = SDL_GetTicks() / 1000.0 + 2.5;
}

static void toggle(cfvApp *app, unsigned bit, const char *name)
{
    app->overlays ^= bit;
    char buf[96];
    snprintf(buf, sizeof buf, "%s %s", name, (app->overlays & bit) ? "on" : "off");
    flash(app, buf);
}

static void screenshot(cfvApp *app, SDL_Renderer *r)
{
    char path[600];
    if (app->shot_path[0]) {
        snprintf(path, sizeof path, "%s", app->shot_path);
    } else {
        char name[96];
        snprintf(name, sizeof name, "%s", app->run.name);
        for (char *p = name; *p; ++p)
            if (*p == '/' || *p == ' ') *p = '_';
        snprintf(path, sizeof path, "cfview-%s-%03ld.png", name, app->shots);
    }
    cfError err = {{0}};
    /* the shot shows the frame without the flash message of the last key */
    app->flash[0] = 0;
    cfv_app_draw(app, r);
    if (cfv_write_png(r, path, &err)) {
        app->shots++;
        char buf[700];
        snprintf(buf, sizeof buf, "saved %s", path);
        flash(app, buf);
        fprintf(stderr, "cfview: saved %s\n", path);
    } else {
        flash(app, err.msg);
        fprintf(stderr, "cfview: %s\n", err.msg);
    }
}

static void restart(cfvApp *app)
{
    cfError err = {{0}};
    cfStatus st = cfv_run_reset(&app->run, &err);
    if (st != CF_OK && st != CF_NOT_IMPLEMENTED) {
        flash(app, err.msg);
        fprintf(stderr, "cfview: reset: %s\n", err.msg);
    }
    app->scales = cfv_scales_for(&app->run);
}

static void switch_demo(cfvApp *app, int delta)
{
    if (!app->playlist || app->n_playlist < 2) return;
    app->playlist_at = (app->playlist_at + delta + app->n_playlist) % app->n_playlist;
    cfv_run_free(&app->run);
    cfError err = {{0}};
    cfStatus st = cfv_run_start_demo(&app->run, app->playlist[app->playlist_at], &err);
    if (st != CF_OK && st != CF_NOT_IMPLEMENTED) flash(app, err.msg);
    cfv_app_on_start(app);
}

bool cfv_app_key(cfvApp *app, SDL_Renderer *r, SDL_Keycode key, Uint16 mod)
{
    bool shift = (mod & KMOD_SHIFT) != 0;
    cfvRun *run = &app->run;
    char buf[700];
    switch (key) {
    case SDLK_q:
    case SDLK_ESCAPE: return false;
    case SDLK_h: app->help = !app->help; break;
    case SDLK_SPACE: app->paused = !app->paused; break;
    case SDLK_s:
        app->paused = true;
        app->single_step = true;
        break;
    case SDLK_r: restart(app); break;
    case SDLK_LEFTBRACKET:
    case SDLK_RIGHTBRACKET:
        if (run->n_slots) {
            double dt = run->slot[0].w.def.dt * (key == SDLK_RIGHTBRACKET ? 2.0 : 0.5);
            if (dt < 1e-6) dt = 1e-6;
            if (dt > 1.0) dt = 1.0;
            cfv_run_set_dt(run, dt);
            snprintf(buf, sizeof buf, "time step %.4g ms", dt * 1e3);
            flash(app, buf);
        }
        break;
    case SDLK_g:
        cfv_run_toggle_gyroscopic(run);
        if (run->n_slots) {
            snprintf(buf, sizeof buf, "gyroscopic term %s", run->slot[0].w.def.gyroscopic ? "on" : "off (world 1)");
            flash(app, buf);
        }
        break;
    case SDLK_i:
        if (shift) cfv_run_cycle_soft_integrator(run);
        else cfv_run_cycle_rigid_integrator(run);
        if (run->n_slots) {
            const cfWorldDef *d = &run->slot[0].w.def;
            snprintf(buf, sizeof buf, "%s integrator: %s", shift ? "soft" : "rigid",
                     shift ? cf_soft_integrator_name(d->soft_integrator) : cf_rigid_integrator_name(d->rigid_integrator));
            flash(app, buf);
        }
        break;
    case SDLK_x:
        if (run->n_compare > 0) {
            cfv_run_cycle_slot_solver(run, app->slot, shift ? -1 : 1);
            snprintf(buf, sizeof buf, "world %d: contact solver %s (%s); r restarts every world", app->slot + 1,
                     run->compare[app->slot]->name, run->compare[app->slot]->summary);
            flash(app, buf);
            break;
        }
        cfv_run_cycle_solver(run, shift ? -1 : 1);
        for (int i = 0; i < run->n_slots; ++i)
            if (run->slot[i].w.def.solver) {
                snprintf(buf, sizeof buf, "contact solver: %s (%s)", run->slot[i].w.def.solver->name,
                         run->slot[i].w.def.solver->summary);
                flash(app, buf);
                break;
            }
        break;
    case SDLK_o:
        for (int i = 0; i < run->n_slots; ++i) {
            int *it = &run->slot[i].w.def.solver_iterations;
            *it = shift ? (*it < 100000 ? *it * 2 : *it) : (*it > 1 ? *it / 2 : 1);
        }
        if (run->n_slots) {
            snprintf(buf, sizeof buf, "solver iterations %d", run->slot[0].w.def.solver_iterations);
            flash(app, buf);
        }
        break;
    case SDLK_m: {
        double mu = -1;
        for (int i = 0; i < run->n_slots; ++i) {
            cfWorld *w = &run->slot[i].w;
            for (int k = 0; k < w->n_bodies; ++k) {
                double *m = &w->bodies[k].mu;
                *m = fmax(0.0, *m + (shift ? 0.1 : -0.1));
                mu = *m;
            }
            for (int k = 0; k < w->n_soft; ++k) {
                double *m = &w->soft[k].mu;
                *m = fmax(0.0, *m + (shift ? 0.1 : -0.1));
                mu = *m;
            }
        }
        if (mu >= 0) snprintf(buf, sizeof buf, "friction coefficient mu = %.2f", mu);
        else snprintf(buf, sizeof buf, "no bodies");
        flash(app, buf);
        break;
    }
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        if (app->steps_per_frame > 1) app->steps_per_frame--;
        snprintf(buf, sizeof buf, "%d steps per frame", app->steps_per_frame);
        flash(app, buf);
        break;
    case SDLK_EQUALS:
    case SDLK_PLUS:
    case SDLK_KP_PLUS:
        if (app->steps_per_frame < 200) app->steps_per_frame++;
        snprintf(buf, sizeof buf, "%d steps per frame", app->steps_per_frame);
        flash(app, buf);
        break;
    case SDLK_TAB: switch_demo(app, shift ? -1 : 1); break;
    case SDLK_b: toggle(app, CFV_OV_IDS, "body ids"); break;
    case SDLK_v: toggle(app, CFV_OV_VELOCITY, "velocity arrows"); break;
    case SDLK_w: toggle(app, CFV_OV_OMEGA, "angular velocity arrows"); break;
    case SDLK_l: toggle(app, CFV_OV_MOMENTUM, "angular momentum arrows"); break;
    case SDLK_c: toggle(app, CFV_OV_POINTS, "contact points"); break;
    case SDLK_n: toggle(app, CFV_OV_NORMALS, "contact normals"); break;
    case SDLK_t: toggle(app, CFV_OV_FRAMES, "tangent frames"); break;
    case SDLK_j: toggle(app, CFV_OV_IMPULSES, "impulses"); break;
    case SDLK_k: toggle(app, CFV_OV_CONES, "friction cones"); break;
    case SDLK_d: toggle(app, CFV_OV_DEPTH, "penetration depth"); break;
    case SDLK_p:
        if (shift) {
            for (int i = 0; i < run->n_slots; ++i)
                if (cfv_run_cycle_preconditioner(run, i)) {
                    snprintf(buf, sizeof buf, "preconditioner: %s", cf_preconditioner_name(run->slot[i].w.def.preconditioner));
                    flash(app, buf);
                }
            break;
        }
        app->plots = !app->plots;
        cfv_app_layout(app);
        break;
    case SDLK_u:
        app->hud = !app->hud;
        cfv_app_layout(app);
        break;
    case SDLK_f: cfv_app_fit(app); break;
    case SDLK_HOME: cfv_app_on_start(app); break;
    case SDLK_LEFT:
    case SDLK_RIGHT:
    case SDLK_UP:
    case SDLK_DOWN: {
        double dx = key == SDLK_LEFT ? -1 : key == SDLK_RIGHT ? 1 : 0;
        double dy = key == SDLK_UP ? -1 : key == SDLK_DOWN ? 1 : 0;
        if (shift) cfv_camera_pan(&app->cam, app->w, app->h, -40 * dx, -40 * dy);
        else cfv_camera_orbit(&app->cam, 0.08 * dx, -0.06 * dy);
        break;
    }
    case SDLK_PAGEUP: cfv_camera_zoom(&app->cam, 1 / 1.15); break;
    case SDLK_PAGEDOWN: cfv_camera_zoom(&app->cam, 1.15); break;
    case SDLK_F12: screenshot(app, r); break;
    case SDLK_F9: {
        cfError err = {{0}};
        if (!app->record_dir[0]) snprintf(app->record_dir, sizeof app->record_dir, "cfview-frames");
        if (!app->recording && !cfv_dir_ready(app->record_dir, &err)) {
            flash(app, err.msg);
            break;
        }
        app->recording = !app->recording;
        snprintf(buf, sizeof buf, "recording %s (%s)", app->recording ? "on" : "off", app->record_dir);
        flash(app, buf);
        break;
    }
    case SDLK_1:
    case SDLK_2:
    case SDLK_3:
    case SDLK_4:
        if (run->n_compare > (int)(key - SDLK_1)) {
            app->slot = (int)(key - SDLK_1);
            snprintf(buf, sizeof buf, "world %d (%s): x changes its solver", app->slot + 1, run->compare[app->slot]->name);
            flash(app, buf);
            break;
        }
        /* fall through - without a comparison, digits belong to the demo */
    default:
        /* keys the viewer leaves free go to the demo */
        if (key > 0 && key < 128 && cfv_run_key(run, (int)key)) {
            if (run->todo[0]) flash(app, cfv_run_todo_message(run, buf, sizeof buf));
        }
        break;
    }
    return true;
}

SDL_Renderer *cfv_headless_renderer(int w, int h, SDL_Surface **surface)
{
    *surface = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGB888);
    if (!*surface) return NULL;
    SDL_Renderer *r = SDL_CreateSoftwareRenderer(*surface);
    if (!r) {
        SDL_FreeSurface(*surface);
        *surface = NULL;
    }
    return r;
}
