/* SPDX-License-Identifier: MIT */
/* The application: one frame (3D view, overlays, HUD, plots, help), the camera that frames the
   subjects, and the keys (their table is viewer/keys.c). */
#include "cfview.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const SDL_Color fg = {235, 235, 235, 255};
static const SDL_Color dim = {160, 166, 178, 255};
static const SDL_Color warn = {255, 120, 100, 255};
static const SDL_Color yellow = {255, 221, 87, 255};
static const SDL_Color panel_bg = {12, 14, 20, 190};

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
    app->ctl.steps_per_frame = 1;
    app->text_scale = h >= 1000 ? 2.0f : (h >= 640 ? 1.5f : 1.0f);
    app->area = (SDL_FRect){0, 0, (float)w, (float)h};
}

void cfv_app_free(cfvApp *app)
{
    cfv_run_free(&app->run);
    cfv_draw_free(&app->draw);
}

void cfv_app_flash(cfvApp *app, const char *msg)
{
    cfv_copy(app->flash, sizeof app->flash, msg);
    app->flash_until = SDL_GetTicks() / 1000.0 + 3.0;
}

/* the seen box: what the subjects went through since the run started */
static bool track(cfvApp *app)
{
    cfVec3 lo, hi;
    cfv_run_frame_box(&app->run, &lo, &hi);
    if (!cfu_vec3_finite(lo) || !cfu_vec3_finite(hi)) return false;
    if (!app->seen_any || app->seen_generation != app->ctl.generation) {
        app->seen_lo = lo;
        app->seen_hi = hi;
        app->seen_any = true;
        app->seen_generation = app->ctl.generation;
        return true;
    }
    cfVec3 l = app->seen_lo, h = app->seen_hi;
    app->seen_lo = cfu_vec3(fmin(l.x, lo.x), fmin(l.y, lo.y), fmin(l.z, lo.z));
    app->seen_hi = cfu_vec3(fmax(h.x, hi.x), fmax(h.y, hi.y), fmax(h.z, hi.z));
    return cfu_norm(cfu_sub(app->seen_lo, l)) + cfu_norm(cfu_sub(app->seen_hi, h)) > 0;
}

void cfv_app_fit(cfvApp *app)
{
    cfv_app_layout(app);
    if (!app->seen_any) track(app);
    cfVec3 lo = app->seen_lo, hi = app->seen_hi;
    if (!app->seen_any) cfv_run_box(&app->run, &lo, &hi);
    cfv_camera_fit_box(&app->cam, lo, hi, app->w, app->h, &app->area);
    const cfvRun *run = &app->run;
    if (run->has_camera && run->cam_dist > 0) { /* the demo's own distance */
        app->cam.target = run->cam_target;
        app->cam.dist = run->cam_dist;
    }
}

void cfv_app_track(cfvApp *app)
{
    bool grew = track(app);
    /* a camera nobody moved keeps the subjects' path in the frame */
    if (grew && !app->camera_moved && !app->camera_fixed && !(app->run.has_camera && app->run.cam_dist > 0)) {
        double yaw = app->cam.yaw, pitch = app->cam.pitch;
        cfv_camera_fit_box(&app->cam, app->seen_lo, app->seen_hi, app->w, app->h, &app->area);
        app->cam.yaw = yaw;
        app->cam.pitch = pitch;
    }
}

void cfv_app_on_start(cfvApp *app)
{
    cfvRun *run = &app->run;
    app->cam = cfv_camera_default();
    if (run->has_camera) {
        app->cam.yaw = run->cam_yaw * CF_PI / 180.0;
        app->cam.pitch = run->cam_pitch * CF_PI / 180.0;
    }
    app->seen_any = false;
    app->camera_moved = false;
    cfv_app_fit(app);
    app->scales = cfv_scales_for(run);
    app->overlays = CFV_OV_LABELS;
    if (run->demo && run->demo->overlays) cfv_parse_overlays(run->demo->overlays, &app->overlays);
    if (!app->threaded) cfv_ctl_real_time(&app->ctl, run); /* a stepping thread sets its own */
}

void cfv_ctl_real_time(cfvCtl *ctl, const cfvRun *run)
{
    /* about real time at 60 frames per second */
    double dt = run->n_slots ? run->slot[0].w.def.dt : 1.0 / 60;
    int k = (int)floor((1.0 / 60.0) / dt + 0.5);
    ctl->steps_per_frame = k < 1 ? 1 : (k > 100 ? 100 : k);
}

/* ---- text helpers ----------------------------------------------------------------------------- */

void cfv_wrap(const char *s, int width, char *out, size_t cap)
{
    size_t n = 0;
    int col = 0;
    if (width < 8) width = 8;
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

#define HUD_LINES 48

typedef struct Line {
    char text[400];
    SDL_Color c;
    float scale;
    int box; /* slot whose colour box starts the line (-1: none) */
} Line;

typedef struct Hud {
    float s;                                 /* text scale */
    Line line[HUD_LINES];                    /* the top panel, in order */
    int n_lines;
    char story[2400];                        /* prediction, what to look at, keys: at s */
    SDL_FRect top, bottom, plots;            /* panel rectangles (w == 0: not shown) */
    bool plot[4];                            /* energy, momentum, barrier, residual: shown */
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

/* a line needs two iterations with a residual the log axis can show: a solve that took one (a stack
   at rest) or ended at exactly 0 leaves no panel */
static bool has_history(const cfvRun *run)
{
    for (int i = 0; i < run->n_slots; ++i) {
        const cfStepStats *st = &run->slot[i].w.stats;
        int n = st->solver_history_len < CF_STATS_HISTORY ? st->solver_history_len : CF_STATS_HISTORY, good = 0;
        for (int k = 0; k < n; ++k) good += st->solver_history[k] > 0 && isfinite(st->solver_history[k]);
        if (good >= 2) return true;
    }
    return false;
}

static int plot_panels(const Hud *H) { return H->plot[0] + H->plot[1] + H->plot[2] + H->plot[3]; }

/* add text as lines wrapped to @p chars characters */
static void add_lines(Hud *H, const char *text, SDL_Color c, float scale, int box, int chars)
{
    char wrapped[2400];
    cfv_wrap(text, chars, wrapped, sizeof wrapped);
    const char *p = wrapped;
    bool first = true;
    while (*p && H->n_lines < HUD_LINES) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        Line *L = &H->line[H->n_lines++];
        snprintf(L->text, sizeof L->text, "%.*s", (int)len, p);
        L->c = c;
        L->scale = scale;
        L->box = first ? box : -1;
        first = false;
        p = e ? e + 1 : p + len;
    }
}

/* the label a world shows: the demo's, and the solver it runs when that is not the one it was set up with */
void cfv_slot_label(const cfvSlot *sl, char *out, size_t cap)
{
    const cfSolver *now = sl->w.def.solver;
    if (now && sl->solver0 && now != sl->solver0) snprintf(out, cap, "%s, now %s", sl->label, now->name);
    else cfv_copy(out, cap, sl->label);
}

/* world @p i's line: its label, solver and integrators (or, compared, what its solver did), energy
   and momentum; the reason it halted */
static void hud_world(const cfvApp *app, Hud *H, int i, bool rigid, int chars)
{
    const cfvRun *run = &app->run;
    float s = H->s;
    char buf[1400];
    int n;
    const cfvSlot *sl = &run->slot[i];
    const cfWorldDef *d = &sl->w.def;
    char integ[200] = "", label[160];
    cfv_slot_label(sl, label, sizeof label);
    size_t m = 0;
    if (d->solver) m += (size_t)snprintf(integ + m, sizeof integ - m, "%s", d->per_island ? CF_SOLVER_PER_ISLAND : d->solver->name);
    if (d->pipeline != CF_PIPELINE_VELOCITY) /* its own step: the integrator settings are the velocity pipeline's */
        m += (size_t)snprintf(integ + m, sizeof integ - m, "%spipeline %s", m ? ", " : "", cf_pipeline_name(d->pipeline));
    else {
        bool r_i = false;
        for (int k = 0; k < sl->w.n_bodies && !r_i; ++k) r_i = !sl->w.bodies[k].fixed;
        if (r_i)
            m += (size_t)snprintf(integ + m, sizeof integ - m, "%srigid %s, gyroscopic %s", m ? ", " : "",
                                  cf_rigid_integrator_name(d->rigid_integrator), d->gyroscopic ? "on" : "off");
        if (sl->w.n_soft > 0)
            snprintf(integ + m, sizeof integ - m, "%ssoft %s", m ? ", " : "", cf_soft_integrator_name(d->soft_integrator));
    }
    double E = sl->energy.n ? sl->energy.y[sl->energy.n - 1] : 0.0;
    bool dyn = sl->w.n_soft > 0; /* a world of fixed bodies only (a demo that steps its own system) has no energy to show */
    for (int k = 0; k < sl->w.n_bodies && !dyn; ++k) dyn = !sl->w.bodies[k].fixed;
    if (i < run->n_compare) /* a compared scene: what each solver did in the last step */
        n = snprintf(buf, sizeof buf, "%d%s %s  %d it, common %.2e  E = %.5g J", i + 1, i == app->ctl.slot ? "*" : " ",
                     label, sl->w.stats.solver_iterations, sl->w.stats.common_residual, E);
    else
        n = snprintf(buf, sizeof buf, "%s%s%s%s%s", label, label[0] && integ[0] ? "  " : "", integ[0] ? "[" : "", integ,
                     integ[0] ? "]" : "");
    if (dyn && i >= run->n_compare && n > 0 && (size_t)n < sizeof buf)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "  E = %.5g J", E);
    if (rigid && dyn && n > 0 && (size_t)n < sizeof buf)
        snprintf(buf + n, sizeof buf - (size_t)n, "  L = %.4g", sl->momentum.n ? sl->momentum.y[sl->momentum.n - 1] : 0.0);
    add_lines(H, buf, sl->halted ? warn : fg, s, i, chars - 3);
    if (sl->halted && sl->note[0]) {
        snprintf(buf, sizeof buf, "   halted: %s", sl->note);
        add_lines(H, buf, warn, s, -1, chars);
    }
}

/* the lines under the worlds: the stage times of the worlds that run the first world's pipeline,
   then the solve (the pipeline's, the solver's, or the sums of compared worlds) */
static void hud_totals(const cfvRun *run, bool soft, float maxw, Hud *H)
{
    double stage[CF_STAGE_COUNT] = {0};
    int iters = 0, budget = 0, contacts = 0;
    long unconverged = 0, solved_steps = 0;
    double resid = 0, common = 0;
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
    char detail[700];
    size_t k = 0;
    k += (size_t)snprintf(detail + k, sizeof detail - k, "step (ms):");
    for (int j = 0; j < pl->n_stages && k < sizeof detail; ++j)
        k += (size_t)snprintf(detail + k, sizeof detail - k, " %s %.3f", pl->stages[j], stage[j] * 1e3);
    int dchars = (int)(maxw / 6.0f);
    add_lines(H, detail, dim, 1.0f, -1, dchars);
    if (run->n_compare > 0) {
        /* each world's line names its solver: the sums of all worlds only */
        snprintf(detail, sizeof detail, "contacts %d in %d worlds (1-4: choose a world, x: its solver)", contacts,
                 run->n_slots);
    } else if (run->n_slots) {
        const cfWorldDef *d = &run->slot[0].w.def;
        const cfStepStats *st = &run->slot[0].w.stats;
        if (d->pipeline == CF_PIPELINE_IPC)
            snprintf(detail, sizeof detail,
                     "pipeline ipc (dhat %.3g m, kappa %.3g N/m)   Newton iterations %d   pairs within dhat %d   smallest "
                     "distance %.3e m", st->ipc.dhat, st->ipc.kappa, st->solver_iterations, st->n_contacts, st->ipc.min_distance);
        else if (!d->solver && soft)
            snprintf(detail, sizeof detail,
                     "contact solver: none   contacts %d   last linear solve: %d iteration%s, residual %.2e", contacts, iters,
                     iters == 1 ? "" : "s", resid);
        else if (!d->solver)
            snprintf(detail, sizeof detail, "contact solver: none   contacts %d", contacts);
        else if (d->per_island) {
            /* each island's row and the law it solves there (cfStepStats::island) */
            char each[400];
            size_t m = 0;
            each[0] = '\0';
            for (int j = 0; j < st->island.n_solvers && m < sizeof each; ++j)
                m += (size_t)snprintf(each + m, sizeof each - m, "%s%s on %d (%d contacts, %s)", j ? ", " : "",
                                      st->island.solver[j]->name, st->island.islands_of[j], st->island.contacts_of[j],
                                      st->island.law_of[j]);
            snprintf(detail, sizeof detail,
                     "solver " CF_SOLVER_PER_ISLAND ": %d islands with contacts (%d asleep): %s   iterations %d   common %.3e"
                     "   contacts %d   not converged %ld of %ld steps",
                     st->island.islands, st->island.sleeping, m ? each : "none solved", iters, common, contacts,
                     unconverged, solved_steps);
        } else
            snprintf(detail, sizeof detail,
                     "solver %s (friction: %s)   iterations %d of %d   residual %.3e (%s), common %.3e   contacts %d"
                     "   not converged %ld of %ld steps",
                     d->solver->name, cf_world_friction_law(&run->slot[0].w, d->solver), iters, budget, resid,
                     cf_measure_name(d->solver->measure), common, contacts, unconverged, solved_steps);
    }
    add_lines(H, detail, dim, 1.0f, -1, dchars);
}

/* bottom left: the story and the keys, made from the key table */
static void hud_story(const cfvApp *app, Hud *H, float maxw)
{
    const cfvRun *run = &app->run;
    float s = H->s;
    char buf[1400];
    float sw = fminf(maxw, 0.62f * app->w);
    int chars = (int)(sw / (6.0f * s));
    if (chars < 30) chars = 30;
    char wrapped[1600];
    size_t o = 0;
    if (run->prediction[0]) {
        /* a demo's prediction is checked (its check()); a scene's expect line is not */
        snprintf(buf, sizeof buf, "%s: %s", run->demo ? "prediction" : "the scene expects", run->prediction);
        cfv_wrap(buf, chars, wrapped, sizeof wrapped);
        o += (size_t)snprintf(H->story + o, sizeof H->story - o, "%s\n", wrapped);
    }
    if (run->point_at[0] && o < sizeof H->story) {
        snprintf(buf, sizeof buf, "%s: %s", run->demo ? "look at" : "about", run->point_at);
        cfv_wrap(buf, chars, wrapped, sizeof wrapped);
        o += (size_t)snprintf(H->story + o, sizeof H->story - o, "%s\n", wrapped);
    }
    if (o < sizeof H->story) {
        cfv_footer(run, buf, sizeof buf);
        cfv_wrap(buf, chars, wrapped, sizeof wrapped);
        snprintf(H->story + o, sizeof H->story - o, "%s", wrapped);
    }
    float w2, h2;
    cfv_text_size(H->story, s, &w2, &h2);
    H->bottom = (SDL_FRect){4, app->h - h2 - 16, w2 + 12, h2 + 12};
}

static void hud_build(const cfvApp *app, Hud *H)
{
    const cfvRun *run = &app->run;
    memset(H, 0, sizeof *H);
    float s = H->s = app->text_scale;
    float pw = fminf(420.0f, 0.32f * app->w), ph = fminf(170.0f, 0.24f * app->h);
    bool rigid = has_rigid(run), soft = false;
    for (int i = 0; i < run->n_slots; ++i) soft = soft || run->slot[i].w.n_soft > 0;
    H->plot[0] = informative(run, offsetof(cfvSlot, energy));
    H->plot[1] = rigid && informative(run, offsetof(cfvSlot, momentum));
    H->plot[2] = informative(run, offsetof(cfvSlot, barrier));
    H->plot[3] = has_history(run);
    int panels = plot_panels(H);
    if (app->plots && panels > 0)
        H->plots = (SDL_FRect){app->w - pw - 8, 8, pw, panels * ph + 8 * (panels - 1)};

    char buf[1400];
    if (!app->hud) return;

    float maxw = (H->plots.w > 0 ? H->plots.x : (float)app->w) - 20;
    int chars = (int)(maxw / (6.0f * s)), tchars = (int)(maxw / (6.0f * 1.33f * s));
    snprintf(buf, sizeof buf, "%s  %s", run->name, run->title);
    add_lines(H, buf, fg, 1.33f * s, -1, tchars);

    double t = run->n_slots ? run->slot[0].w.time : 0;
    long step = run->n_slots ? run->slot[0].w.step : 0;
    double dt = run->n_slots ? run->slot[0].w.def.dt : 0;
    int n = snprintf(buf, sizeof buf, "t = %.3f s   step %ld   h = %.4g ms   %d step%s/frame", t, step, dt * 1e3,
                     app->ctl.steps_per_frame, app->ctl.steps_per_frame == 1 ? "" : "s");
    if (app->threaded && n > 0)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "   stepping: %.1f ms a step, %.1f steps/s = %.2fx real time",
                      app->step_ms, app->steps_per_s, app->speed);
    if (app->ctl.paused && n > 0) snprintf(buf + n, sizeof buf - (size_t)n, "   PAUSED");
    add_lines(H, buf, fg, s, -1, chars);

    for (int i = 0; i < run->n_slots; ++i) hud_world(app, H, i, rigid, chars);

    for (int i = 0; i < CFV_INFO_LINES; ++i)
        if (run->info[i][0]) add_lines(H, run->info[i], yellow, s, -1, chars);

    hud_totals(run, soft, maxw, H);

    float ww = 0, hh = 0;
    for (int i = 0; i < H->n_lines; ++i) {
        float a, b;
        cfv_text_size(H->line[i].text, H->line[i].scale, &a, &b);
        ww = fmaxf(ww, a + (H->line[i].box >= 0 ? 14 * s : 0));
        hh += 12.0f * H->line[i].scale;
    }
    H->top = (SDL_FRect){4, 4, fminf(ww, maxw) + 12, hh + 14};

    hud_story(app, H, maxw);
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

int cfv_app_panels(cfvApp *app, SDL_FRect *out)
{
    Hud H;
    hud_build(app, &H);
    int n = 0;
    if (H.top.w > 0) out[n++] = H.top;
    if (H.bottom.w > 0) out[n++] = H.bottom;
    if (app->plots && H.plots.w > 0) out[n++] = H.plots;
    return n;
}

bool cfv_app_plot_shown(cfvApp *app, int p)
{
    if (p < 0 || p > 3 || !app->plots) return false;
    Hud H;
    hud_build(app, &H);
    if (!H.plot[p]) return false;
    if (p == 3) return true; /* has_history(): two iterations with a positive residual */
    static const size_t off[3] = {offsetof(cfvSlot, energy), offsetof(cfvSlot, momentum), offsetof(cfvSlot, barrier)};
    for (int i = 0; i < app->run.n_slots; ++i) {
        const cfvSeries *se = (const cfvSeries *)((const char *)&app->run.slot[i] + off[p]);
        int finite = 0;
        for (int k = 0; k < se->n; ++k) finite += isfinite(se->y[k]) != 0;
        if (finite >= 2) return true;
    }
    return false;
}

static void draw_hud(cfvRaster *r, const Hud *H)
{
    float s = H->s;
    float x = H->top.x + 6, y = H->top.y + 5;
    cfv_panel(r, H->top.x, H->top.y, H->top.w, H->top.h, panel_bg);
    for (int i = 0; i < H->n_lines; ++i) {
        const Line *L = &H->line[i];
        float dx = 0;
        if (L->box >= 0) {
            cfv_panel(r, x, y + 1, 9 * s, 7 * s, cfv_slot_color(L->box));
            dx = 14 * s;
        }
        cfv_text(r, x + dx, y, L->scale, L->c, L->text);
        y += 12.0f * L->scale;
    }
    cfv_panel(r, H->bottom.x, H->bottom.y, H->bottom.w, H->bottom.h, panel_bg);
    cfv_text(r, H->bottom.x + 6, H->bottom.y + 6, s, fg, H->story);
}

/* the times: drawing this frame so far, and the step (its own thread's in a window) */
static void draw_corner(cfvApp *app, cfvRaster *r, Uint64 t0)
{
    char buf[200];
    double ms = 1e3 * (double)(SDL_GetPerformanceCounter() - t0) / (double)SDL_GetPerformanceFrequency();
    if (app->fps > 0)
        snprintf(buf, sizeof buf, "%ld triangles, drawing %.1f ms, %.0f frames/s; a step %.1f ms%s", app->draw.tris_drawn, ms,
                 app->fps, app->step_ms, app->recording ? "  REC" : "");
    else
        snprintf(buf, sizeof buf, "%ld triangles, drawing %.1f ms; the last step %.1f ms%s", app->draw.tris_drawn, ms,
                 app->step_ms, app->recording ? "  REC" : "");
    float w, h;
    cfv_text_size(buf, 1.0f, &w, &h);
    cfv_text(r, app->w - w - 8, app->h - h - 4, 1.0f, dim, buf);
}

static void draw_plots(cfvApp *app, cfvRaster *r, const Hud *H)
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
    if (H->plot[0]) {
        cfv_plot(r, x, y, pw, ph, "energy (J) against time", se, col, run->n_slots, false, "s");
        y += ph + 8;
    }
    if (H->plot[1]) {
        cfv_plot(r, x, y, pw, ph, "angular momentum (kg m^2/s) against time", sm, col, run->n_slots, false, "s");
        y += ph + 8;
    }
    if (H->plot[2]) {
        cfv_plot(r, x, y, pw, ph, "barrier energy kappa sum b (J) against time", sb, col, run->n_slots, false, "s");
        y += ph + 8;
    }
    if (H->plot[3]) {
        /* every slot's last solve, one sample per iteration, log10 residual */
        static double t[CFV_MAX_WORLDS][CF_STATS_HISTORY], v[CFV_MAX_WORLDS][CF_STATS_HISTORY];
        cfvSeries hist[CFV_MAX_WORLDS];
        const cfvSeries *sh[CFV_MAX_WORLDS];
        const char *title = cfv_residual_series(run, hist, t, v);
        for (int i = 0; i < run->n_slots; ++i) sh[i] = &hist[i];
        cfv_plot(r, x, y, pw, ph, title, sh, col, run->n_slots, true, "iterations");
    }
}

/* the `h` help: the key table, then the demo's own keys */
static void draw_help(cfvApp *app, cfvRaster *r)
{
    float s = app->text_scale, lh = 12.0f * s, kw = 0, dw = 0;
    enum { ROWS = 64 };
    char keys[ROWS][48], help[ROWS][200];
    int n = 0;
    for (int i = 0; cfv_bindings[i].name && n < ROWS; ++i) {
        const cfvBinding *b = &cfv_bindings[i];
        if (b->compare_only && app->run.n_compare == 0) continue;
        cfv_binding_keys(b, keys[n], sizeof keys[n]);
        cfv_copy(help[n], sizeof help[n], b->help);
        n++;
    }
    const cfvDemo *d = app->run.demo;
    int first_demo = n;
    for (int i = 0; d && d->demo_keys && d->demo_keys[i].key && n < ROWS; ++i, ++n) {
        snprintf(keys[n], sizeof keys[n], "%c", d->demo_keys[i].key);
        snprintf(help[n], sizeof help[n], "%s (this demo)", d->demo_keys[i].what);
    }
    for (int i = 0; i < n; ++i) {
        float w, h;
        cfv_text_size(keys[i], s, &w, &h);
        kw = fmaxf(kw, w);
        cfv_text_size(help[i], s, &w, &h);
        dw = fmaxf(dw, w);
    }
    /* two columns when one does not fit */
    int cols = (n + 2) * lh > app->h - 40 ? 2 : 1, per = (n + cols - 1) / cols;
    float cw = kw + 24 * s + dw + 30, tw = cols * cw, th = (per + 2) * lh;
    if (tw > app->w - 20) tw = app->w - 20;
    float x = fmaxf(10, 0.5f * (app->w - tw)), y = fmaxf(10, 0.5f * (app->h - th));
    cfv_panel(r, x - 14, y - 12, tw + 28, th + 16, (SDL_Color){8, 10, 16, 240});
    cfv_text(r, x, y, s, fg, "keys (made from the key table; the demo's own keys last)");
    for (int i = 0; i < n; ++i) {
        int c = i / per, row = i % per;
        float cx = x + c * cw;
        cfv_text(r, cx, y + (row + 2) * lh, s, i >= first_demo ? (SDL_Color){120, 220, 255, 255} : yellow, keys[i]);
        cfv_text(r, cx + kw + 24 * s, y + (row + 2) * lh, s, fg, help[i]);
    }
}

static void draw_banner(cfvApp *app, cfvRaster *r)
{
    char msg[512], wrapped[640];
    cfv_run_todo_message(&app->run, msg, sizeof msg);
    float s = app->text_scale * 1.33f;
    int chars = (int)(app->w * 0.8f / (6.0f * s));
    cfv_wrap(msg, chars, wrapped, sizeof wrapped);
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
    cfvView view = cfv_view_make(&app->cam, app->w, app->h, &app->area);
    /* everything is drawn into the frame, which SDL then shows as one texture */
    app->draw.overlays = app->overlays;
    cfvRaster *R = &app->draw.raster;
    if (!cfv_draw_begin(&app->draw, &view, false)) {
        SDL_SetRenderDrawColor(r, cfv_background.r, cfv_background.g, cfv_background.b, 255);
        SDL_RenderClear(r);
        return;
    }
    cfv_draw_worlds(&app->draw, &view, &app->run);
    cfv_draw_overlays(&app->draw, &view, &app->run, app->overlays, &app->scales);
    cfvWorldLabel labels[CFV_MAX_WORLDS];
    int nl = cfv_world_labels(app, &view, labels);
    cfv_draw_world_labels(R, labels, nl);
    if (app->hud) draw_hud(R, &H);
    if (app->plots && H.plots.w > 0) draw_plots(app, R, &H);
    if (app->run.todo[0]) draw_banner(app, R);
    if (app->help) draw_help(app, R);
    if (app->flash[0] && SDL_GetTicks() / 1000.0 < app->flash_until) {
        char wrapped[400];
        cfv_wrap(app->flash, (int)(0.8f * app->w / (6.0f * app->text_scale)), wrapped, sizeof wrapped);
        float w, h;
        cfv_text_size(wrapped, app->text_scale, &w, &h);
        float x = 0.5f * (app->w - w), y = (app->hud ? H.bottom.y : (float)app->h) - h - 16;
        cfv_panel(R, x - 8, y - 6, w + 16, h + 10, panel_bg);
        cfv_text(R, x, y, app->text_scale, fg, wrapped);
    }
    if (app->hud) draw_corner(app, R, t0);
    cfv_draw_present(&app->draw, r);
    app->draw_ms = 1e3 * (double)(SDL_GetPerformanceCounter() - t0) / (double)SDL_GetPerformanceFrequency();
    app->frame++;
}

/* ---- keys --------------------------------------------------------------------------------- */

static void toggle(cfvApp *app, unsigned bit, const char *name)
{
    app->overlays ^= bit;
    char buf[96];
    snprintf(buf, sizeof buf, "%s %s", name, (app->overlays & bit) ? "on" : "off");
    cfv_app_flash(app, buf);
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
        cfv_app_flash(app, buf);
        fprintf(stderr, "cfview: saved %s\n", path);
    } else {
        cfv_app_flash(app, err.msg);
        fprintf(stderr, "cfview: %s\n", err.msg);
    }
}

bool cfv_action_on_run(cfvAction a)
{
    switch (a) {
    case CFV_A_NONE: /* a demo key */
    case CFV_A_PAUSE:
    case CFV_A_STEP:
    case CFV_A_RESTART:
    case CFV_A_RESET:
    case CFV_A_DT_DOWN:
    case CFV_A_DT_UP:
    case CFV_A_GYRO:
    case CFV_A_RIGID_INT:
    case CFV_A_SOFT_INT:
    case CFV_A_ITER_DOWN:
    case CFV_A_ITER_UP:
    case CFV_A_SOLVER_NEXT:
    case CFV_A_SOLVER_PREV:
    case CFV_A_WORLD:
    case CFV_A_MU_DOWN:
    case CFV_A_MU_UP:
    case CFV_A_SPF_DOWN:
    case CFV_A_SPF_UP:
    case CFV_A_DEMO_NEXT:
    case CFV_A_DEMO_PREV:
    case CFV_A_PRECOND: return true;
    default: return false;
    }
}

/* the solver line of the flash: what it is, and why it may misbehave here */
static void solver_flash(const cfvRun *run, int slot, char *msg, size_t cap)
{
    const cfWorldDef *d = &run->slot[slot].w.def;
    int n = snprintf(msg, cap, "%s%d: contact solver %s (%s)", run->n_compare ? "world " : "", slot + 1, d->solver->name,
                     d->solver->summary);
    if (!run->n_compare) n = snprintf(msg, cap, "contact solver: %s (%s)", d->solver->name, d->solver->summary);
    (void)n; /* every solver family gets the world's stabilization (cfStabilization): a switch changes the solver only */
}

/* the mu keys (viewer/keys.c): every body's and soft body's friction coefficient changed by @p dm (not below 0) */
static void change_mu(cfvRun *run, double dm, char *msg, size_t cap)
{
    double mu = -1;
    for (int i = 0; i < run->n_slots; ++i) {
        cfWorld *w = &run->slot[i].w;
        for (int k = 0; k < w->n_bodies; ++k) mu = w->bodies[k].mu = fmax(0.0, w->bodies[k].mu + dm);
        for (int k = 0; k < w->n_soft; ++k) mu = w->soft[k].mu = fmax(0.0, w->soft[k].mu + dm);
    }
    if (mu >= 0) snprintf(msg, cap, "friction coefficient mu = %.2f", mu);
    else snprintf(msg, cap, "no bodies");
}

cfvKeyResult cfv_run_act(cfvRun *run, cfvCtl *ctl, cfvAction a, int key, char *msg, size_t cap)
{
    cfError err = {{0}};
    msg[0] = 0;
    switch (a) {
    case CFV_A_NONE:
        if (key > 0 && key < 128 && cfv_demo_key_free(key) && cfv_run_key(run, key)) {
            if (run->todo[0]) cfv_run_todo_message(run, msg, cap);
            return CFV_KEY_DEMO;
        }
        if (key > 32 && key < 127) snprintf(msg, cap, "key %c does nothing here (h: the keys)", (char)key);
        return CFV_KEY_UNBOUND;
    case CFV_A_PAUSE: ctl->paused = !ctl->paused; break;
    case CFV_A_STEP:
        ctl->paused = true;
        ctl->single_step = true;
        break;
    case CFV_A_RESTART:
    case CFV_A_RESET: {
        cfStatus st = cfv_run_restart(run, a == CFV_A_RESTART, &err);
        ctl->generation++;
        if (st != CF_OK && st != CF_NOT_IMPLEMENTED) snprintf(msg, cap, "restart: %s", err.msg);
        else
            snprintf(msg, cap, "%s", a == CFV_A_RESTART ? "restarted with the settings you chose (R: as set up)"
                                                        : "restarted as set up");
        if (a == CFV_A_RESET) cfv_ctl_real_time(ctl, run);
        break;
    }
    case CFV_A_DT_DOWN:
    case CFV_A_DT_UP:
        if (run->n_slots) {
            double dt = run->slot[0].w.def.dt * (a == CFV_A_DT_UP ? 2.0 : 0.5);
            dt = fmin(1.0, fmax(1e-6, dt));
            cfv_run_set_dt(run, dt);
            snprintf(msg, cap, "time step %.4g ms", dt * 1e3);
        }
        break;
    case CFV_A_GYRO:
        cfv_run_toggle_gyroscopic(run);
        if (run->n_slots) snprintf(msg, cap, "gyroscopic term %s", run->slot[0].w.def.gyroscopic ? "on" : "off");
        break;
    case CFV_A_RIGID_INT:
    case CFV_A_SOFT_INT:
        if (a == CFV_A_SOFT_INT) cfv_run_cycle_soft_integrator(run);
        else cfv_run_cycle_rigid_integrator(run);
        if (run->n_slots) {
            const cfWorldDef *d = &run->slot[0].w.def;
            snprintf(msg, cap, "%s integrator: %s", a == CFV_A_SOFT_INT ? "soft" : "rigid",
                     a == CFV_A_SOFT_INT ? cf_soft_integrator_name(d->soft_integrator) : cf_rigid_integrator_name(d->rigid_integrator));
        }
        break;
    case CFV_A_ITER_DOWN:
    case CFV_A_ITER_UP:
        for (int i = 0; i < run->n_slots; ++i) {
            int *it = &run->slot[i].w.def.solver_iterations;
            *it = a == CFV_A_ITER_UP ? (*it < 100000 ? *it * 2 : *it) : (*it > 1 ? *it / 2 : 1);
        }
        if (run->n_slots) snprintf(msg, cap, "solver iterations %d", run->slot[0].w.def.solver_iterations);
        break;
    case CFV_A_SOLVER_NEXT:
    case CFV_A_SOLVER_PREV: {
        int dir = a == CFV_A_SOLVER_NEXT ? 1 : -1;
        if (run->n_compare > 0) {
            cfv_run_cycle_slot_solver(run, ctl->slot, dir);
            solver_flash(run, ctl->slot, msg, cap);
            break;
        }
        cfv_run_cycle_solver(run, dir);
        snprintf(msg, cap, "no world here has a contact solver");
        for (int i = 0; i < run->n_slots; ++i)
            if (run->slot[i].w.def.solver) {
                solver_flash(run, i, msg, cap);
                break;
            }
        break;
    }
    case CFV_A_WORLD:
        if (key >= '1' && key < '1' + run->n_compare) {
            ctl->slot = key - '1';
            snprintf(msg, cap, "world %d (%s): x changes its solver", ctl->slot + 1, run->compare[ctl->slot]->name);
        }
        break;
    case CFV_A_MU_DOWN:
    case CFV_A_MU_UP: change_mu(run, a == CFV_A_MU_UP ? 0.1 : -0.1, msg, cap); break;
    case CFV_A_SPF_DOWN:
    case CFV_A_SPF_UP:
        if (a == CFV_A_SPF_DOWN && ctl->steps_per_frame > 1) ctl->steps_per_frame--;
        if (a == CFV_A_SPF_UP && ctl->steps_per_frame < 200) ctl->steps_per_frame++;
        snprintf(msg, cap, "%d steps per frame", ctl->steps_per_frame);
        break;
    case CFV_A_DEMO_NEXT:
    case CFV_A_DEMO_PREV: {
        if (!ctl->playlist || ctl->n_playlist < 2) {
            snprintf(msg, cap, "no other demo in this chapter");
            break;
        }
        int delta = a == CFV_A_DEMO_NEXT ? 1 : -1;
        ctl->playlist_at = (ctl->playlist_at + delta + ctl->n_playlist) % ctl->n_playlist;
        cfv_run_free(run);
        cfStatus st = cfv_run_start_demo(run, ctl->playlist[ctl->playlist_at], &err);
        if (st != CF_OK && st != CF_NOT_IMPLEMENTED) snprintf(msg, cap, "%s", err.msg);
        ctl->generation++;
        cfv_ctl_real_time(ctl, run);
        break;
    }
    case CFV_A_PRECOND:
        for (int i = 0; i < run->n_slots; ++i)
            if (cfv_run_cycle_preconditioner(run, i))
                snprintf(msg, cap, "preconditioner: %s", cf_preconditioner_name(run->slot[i].w.def.preconditioner));
        if (!msg[0]) snprintf(msg, cap, "no world here runs a dual-form solver (chapter 8)");
        break;
    default: return CFV_KEY_UNBOUND;
    }
    return CFV_KEY_VIEWER;
}

cfvKeyResult cfv_app_key(cfvApp *app, SDL_Renderer *r, SDL_Keycode key, Uint16 mod)
{
    bool shift = (mod & KMOD_SHIFT) != 0;
    cfvAction a = cfv_binding_action(key, shift, app->run.n_compare > 0);
    if (a == CFV_A_QUIT) return CFV_KEY_QUIT;
    if (cfv_action_on_run(a)) {
        int k = (int)key;
        if (app->post) { /* a thread steps the run: it applies the action between two steps */
            app->post(app->post_ctx, a, k);
            return a == CFV_A_NONE ? (cfv_demo_key_free(k) ? CFV_KEY_DEMO : CFV_KEY_UNBOUND) : CFV_KEY_VIEWER;
        }
        char msg[700];
        long gen = app->ctl.generation;
        cfvKeyResult res = cfv_run_act(&app->run, &app->ctl, a, k, msg, sizeof msg);
        if (app->ctl.generation != gen) {
            int spf = app->ctl.steps_per_frame; /* the action chose the speed */
            cfv_app_on_start(app);
            app->ctl.steps_per_frame = spf;
        }
        if (a == CFV_A_RESTART || a == CFV_A_RESET) app->scales = cfv_scales_for(&app->run);
        if (msg[0]) cfv_app_flash(app, msg);
        return res;
    }
    switch (a) {
    case CFV_A_HELP: app->help = !app->help; break;
    case CFV_A_IDS: toggle(app, CFV_OV_IDS, "body ids"); break;
    case CFV_A_VELOCITY: toggle(app, CFV_OV_VELOCITY, "velocity arrows"); break;
    case CFV_A_OMEGA: toggle(app, CFV_OV_OMEGA, "angular velocity arrows"); break;
    case CFV_A_MOMENTUM: toggle(app, CFV_OV_MOMENTUM, "angular momentum arrows"); break;
    case CFV_A_POINTS: toggle(app, CFV_OV_POINTS, "contact points"); break;
    case CFV_A_NORMALS: toggle(app, CFV_OV_NORMALS, "contact normals"); break;
    case CFV_A_FRAMES: toggle(app, CFV_OV_FRAMES, "tangent frames"); break;
    case CFV_A_IMPULSES: toggle(app, CFV_OV_IMPULSES, "impulses"); break;
    case CFV_A_CONES: toggle(app, CFV_OV_CONES, "friction cones"); break;
    case CFV_A_DEPTH: toggle(app, CFV_OV_DEPTH, "penetration depth"); break;
    case CFV_A_DEFORMATION: toggle(app, CFV_OV_DEFORMATION, "deformation colours"); break;
    case CFV_A_PLOTS:
        app->plots = !app->plots;
        cfv_app_layout(app);
        break;
    case CFV_A_HUD:
        app->hud = !app->hud;
        cfv_app_layout(app);
        break;
    case CFV_A_FIT:
        app->camera_moved = false;
        cfv_app_fit(app);
        break;
    case CFV_A_HOME: cfv_app_on_start(app); break;
    case CFV_A_ORBIT_LEFT:
    case CFV_A_ORBIT_RIGHT:
    case CFV_A_ORBIT_UP:
    case CFV_A_ORBIT_DOWN:
    case CFV_A_PAN_LEFT:
    case CFV_A_PAN_RIGHT:
    case CFV_A_PAN_UP:
    case CFV_A_PAN_DOWN: {
        int i = (a - CFV_A_ORBIT_LEFT) % 4;
        double dx = i == 0 ? -1 : i == 1 ? 1 : 0, dy = i == 2 ? -1 : i == 3 ? 1 : 0;
        if (a >= CFV_A_PAN_LEFT) cfv_camera_pan(&app->cam, app->w, app->h, -40 * dx, -40 * dy);
        else cfv_camera_orbit(&app->cam, 0.08 * dx, -0.06 * dy);
        app->camera_moved = true;
        break;
    }
    case CFV_A_ZOOM_IN:
    case CFV_A_ZOOM_OUT:
        cfv_camera_zoom(&app->cam, a == CFV_A_ZOOM_IN ? 1 / 1.15 : 1.15);
        app->camera_moved = true;
        break;
    case CFV_A_SHOT: screenshot(app, r); break;
    case CFV_A_RECORD: {
        cfError err = {{0}};
        char buf[700];
        if (!app->record_dir[0]) snprintf(app->record_dir, sizeof app->record_dir, "cfview-frames");
        if (!app->recording && !cfv_dir_ready(app->record_dir, &err)) {
            cfv_app_flash(app, err.msg);
            break;
        }
        app->recording = !app->recording;
        snprintf(buf, sizeof buf, "recording %s (%s)", app->recording ? "on" : "off", app->record_dir);
        cfv_app_flash(app, buf);
        break;
    }
    default: return CFV_KEY_UNBOUND;
    }
    return CFV_KEY_VIEWER;
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
