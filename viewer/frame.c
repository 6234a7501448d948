/* SPDX-License-Identifier: MIT */
/* What the picture must show: the subjects a demo declares (the camera frames them), where the
   world labels go (always on screen), and the visual check that a screenshot shows the subjects,
   the labels and the plots the story points at. */
#include "cfview.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- points of subjects -------------------------------------------------------------------- */

typedef struct Box {
    cfVec3 lo, hi;
    bool any;
} Box;

static void grow_pt(Box *b, cfVec3 p)
{
    if (!cfu_vec3_finite(p)) return;
    if (!b->any) {
        b->lo = b->hi = p;
        b->any = true;
        return;
    }
    b->lo = cfu_vec3(fmin(b->lo.x, p.x), fmin(b->lo.y, p.y), fmin(b->lo.z, p.z));
    b->hi = cfu_vec3(fmax(b->hi.x, p.x), fmax(b->hi.y, p.y), fmax(b->hi.z, p.z));
}

/* the corners of a rigid body's box (boxes exactly, round shapes by their axis-aligned bounds) */
static void grow_body(Box *b, const cfRigidBody *rb, cfVec3 off)
{
    if (rb->shape.type == CF_SHAPE_PLANE || !cfu_vec3_finite(rb->x)) return;
    cfVec3 x = cfu_add(rb->x, off);
    if (rb->shape.type == CF_SHAPE_BOX) {
        cfMat3 R = cfu_quat_to_mat3(cfu_quat_normalize(rb->q));
        cfVec3 he = rb->shape.half_extents;
        for (int k = 0; k < 8; ++k) {
            cfVec3 c = cfu_vec3(k & 1 ? he.x : -he.x, k & 2 ? he.y : -he.y, k & 4 ? he.z : -he.z);
            grow_pt(b, cfu_add(x, cfu_mat3_mul_vec(R, c)));
        }
        return;
    }
    double r = rb->shape.radius;
    cfVec3 ax = cfu_zero3();
    if (rb->shape.type == CF_SHAPE_CAPSULE) ax = cfu_quat_rotate(rb->q, cfu_vec3(0, 0, rb->shape.half_height));
    for (int e = -1; e <= 1; e += 2)
        for (int k = 0; k < 8; ++k) {
            cfVec3 c = cfu_vec3(k & 1 ? r : -r, k & 2 ? r : -r, k & 4 ? r : -r);
            grow_pt(b, cfu_add(cfu_mul_add(x, e, ax), c));
        }
}

static void grow_soft(Box *b, const cfSoftBody *s, cfVec3 off)
{
    /* without a surface the nodes are drawn as balls (render.c: 0.12 of the mean spring length) */
    double r = 0.0;
    if (s->n_tris == 0) {
        double mean = 0.0;
        int n = 0;
        for (int k = 0; k < s->n_springs && k < 64; ++k, ++n) mean += s->springs[k].rest;
        r = fmax(0.01, 0.12 * (n ? mean / n : 0.2));
    }
    for (int i = 0; i < s->n_nodes; ++i) {
        grow_pt(b, cfu_add(s->x[i], cfu_add(off, cfu_vec3(-r, -r, -r))));
        grow_pt(b, cfu_add(s->x[i], cfu_add(off, cfu_vec3(r, r, r))));
    }
}

bool cfv_subject_box(const cfvRun *run, int k, cfVec3 *lo, cfVec3 *hi)
{
    const cfvSubject *s = &run->subject[k];
    if (s->slot < 0 || s->slot >= run->n_slots) return false;
    const cfvSlot *sl = &run->slot[s->slot];
    const cfWorld *w = &sl->w;
    Box b = {{0, 0, 0}, {0, 0, 0}, false};
    switch (s->kind) {
    case CFV_SUBJECT_BODY:
        if (s->index >= 0 && s->index < w->n_bodies) grow_body(&b, &w->bodies[s->index], sl->offset);
        break;
    case CFV_SUBJECT_SOFT:
        if (s->index >= 0 && s->index < w->n_soft) grow_soft(&b, &w->soft[s->index], sl->offset);
        break;
    case CFV_SUBJECT_GROUP:
        for (int i = 0; i < w->n_bodies; ++i)
            if (!w->bodies[i].fixed) grow_body(&b, &w->bodies[i], sl->offset);
        for (int i = 0; i < w->n_soft; ++i) grow_soft(&b, &w->soft[i], sl->offset);
        break;
    case CFV_SUBJECT_REGION:
        grow_pt(&b, cfu_add(s->lo, sl->offset));
        grow_pt(&b, cfu_add(s->hi, sl->offset));
        break;
    default: break;
    }
    *lo = b.lo;
    *hi = b.hi;
    return b.any;
}

void cfv_run_frame_box(const cfvRun *run, cfVec3 *lo, cfVec3 *hi)
{
    Box b = {{0, 0, 0}, {0, 0, 0}, false};
    for (int k = 0; k < run->n_subjects; ++k) {
        cfVec3 l, h;
        if (!cfv_subject_box(run, k, &l, &h)) continue;
        grow_pt(&b, l);
        grow_pt(&b, h);
    }
    if (b.any) {
        *lo = b.lo;
        *hi = b.hi;
    } else {
        cfv_run_box(run, lo, hi);
    }
}

/* the image rectangle of a world box; false when a corner is behind the eye */
static bool project_box(const cfvView *v, cfVec3 lo, cfVec3 hi, SDL_FRect *out)
{
    float x0 = FLT_MAX, y0 = FLT_MAX, x1 = -FLT_MAX, y1 = -FLT_MAX;
    for (int k = 0; k < 8; ++k) {
        cfVec3 p = cfu_vec3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
        float x, y;
        if (!cfv_view_project(v, p, &x, &y)) return false;
        x0 = fminf(x0, x), y0 = fminf(y0, y), x1 = fmaxf(x1, x), y1 = fmaxf(y1, y);
    }
    *out = (SDL_FRect){x0, y0, x1 - x0, y1 - y0};
    return true;
}

static bool overlap(const SDL_FRect *a, const SDL_FRect *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

/* ---- world labels: under their world, kept inside the view, not on each other ----------------- */

/* the box a world's label sits under: its subjects, else its objects */
static bool slot_box(const cfvRun *run, int s, cfVec3 *lo, cfVec3 *hi)
{
    Box b = {{0, 0, 0}, {0, 0, 0}, false};
    for (int k = 0; k < run->n_subjects; ++k) {
        cfVec3 l, h;
        if (run->subject[k].slot != s || !cfv_subject_box(run, k, &l, &h)) continue;
        grow_pt(&b, l);
        grow_pt(&b, h);
    }
    if (!b.any) {
        const cfvSlot *sl = &run->slot[s];
        for (int i = 0; i < sl->w.n_bodies; ++i) grow_body(&b, &sl->w.bodies[i], sl->offset);
        for (int i = 0; i < sl->w.n_soft; ++i) grow_soft(&b, &sl->w.soft[i], sl->offset);
    }
    *lo = b.lo;
    *hi = b.hi;
    return b.any;
}

int cfv_world_labels(const cfvApp *app, const cfvView *view, cfvWorldLabel *out)
{
    const cfvRun *run = &app->run;
    if (!(app->overlays & CFV_OV_LABELS) || run->n_slots < 2) return 0;
    const SDL_FRect *A = &app->area;
    int n = 0;
    for (int s = 0; s < run->n_slots; ++s) {
        const cfvSlot *sl = &run->slot[s];
        if (!sl->label[0]) continue;
        cfvWorldLabel *L = &out[n];
        memset(L, 0, sizeof *L);
        L->slot = s;
        cfv_slot_label(sl, L->text, sizeof L->text);
        if (sl->halted && sl->note[0]) cfv_copy(L->note, sizeof L->note, sl->note);
        float tw, th, nw = 0, nh = 0;
        cfv_text_size(L->text, 1.5f, &tw, &th);
        if (L->note[0]) {
            /* the note wrapped to the label's width or 60 characters, never cut */
            int chars = (int)fmaxf(40.0f, fminf(90.0f, (tw + 200) / 6.0f));
            cfv_wrap(sl->note, chars, L->note, sizeof L->note);
            cfv_text_size(L->note, 1.0f, &nw, &nh);
        }
        float w = fmaxf(tw, nw), h = th + (L->note[0] ? nh + 4 : 0);
        cfVec3 lo, hi;
        SDL_FRect pr;
        float cx = A->x + A->w * (s + 0.5f) / run->n_slots, top = A->y + A->h - h - 4;
        if (slot_box(run, s, &lo, &hi) && project_box(view, lo, hi, &pr)) {
            cx = pr.x + 0.5f * pr.w;
            top = pr.y + pr.h + 8;
        }
        /* inside the view's free area */
        float x = cx - 0.5f * w;
        x = fminf(fmaxf(x, A->x + 4), A->x + A->w - w - 4);
        top = fminf(fmaxf(top, A->y + 4), A->y + A->h - h - 4);
        L->rect = (SDL_FRect){x, top, w, h};
        L->text_w = tw;
        L->text_h = th;
        n++;
    }
    /* labels that would lie on each other: the later one goes below (or above) the earlier */
    for (int i = 1; i < n; ++i)
        for (int pass = 0; pass < 2 * n; ++pass) {
            bool moved = false;
            for (int j = 0; j < i; ++j) {
                if (!overlap(&out[i].rect, &out[j].rect)) continue;
                float down = out[j].rect.y + out[j].rect.h + 3;
                if (down + out[i].rect.h <= A->y + A->h) out[i].rect.y = down;
                else out[i].rect.y = out[j].rect.y - out[i].rect.h - 3;
                moved = true;
            }
            if (!moved) break;
        }
    return n;
}

void cfv_draw_world_labels(cfvRaster *r, const cfvWorldLabel *labels, int n)
{
    for (int i = 0; i < n; ++i) {
        const cfvWorldLabel *L = &labels[i];
        float x = L->rect.x + 0.5f * (L->rect.w - L->text_w);
        cfv_text(r, x, L->rect.y, 1.5f, cfv_slot_color(L->slot), L->text);
        if (L->note[0]) {
            float nw, nh;
            cfv_text_size(L->note, 1.0f, &nw, &nh);
            cfv_text(r, L->rect.x + 0.5f * (L->rect.w - nw), L->rect.y + L->text_h + 4, 1.0f,
                     (SDL_Color){255, 120, 100, 255}, L->note);
        }
    }
}

/* ---- the visual check ------------------------------------------------------------------------ */

typedef struct Keep {
    const cfvRun *run;
} Keep;

/* the objects the subjects name */
static bool subject_id(const cfvRun *run, Uint32 id)
{
    int slot = (int)(id >> 24), soft = (int)((id >> 23) & 1), index = (int)(id & 0x7fffff) - 1;
    for (int k = 0; k < run->n_subjects; ++k) {
        const cfvSubject *s = &run->subject[k];
        if (s->slot != slot) continue;
        if (s->kind == CFV_SUBJECT_BODY && !soft && s->index == index) return true;
        if (s->kind == CFV_SUBJECT_SOFT && soft && s->index == index) return true;
        if (s->kind == CFV_SUBJECT_GROUP) {
            if (soft) return true;
            const cfWorld *w = &run->slot[slot].w;
            if (index >= 0 && index < w->n_bodies && !w->bodies[index].fixed) return true;
        }
    }
    return false;
}

static bool keep_subject(const void *ctx, Uint32 id) { return subject_id(((const Keep *)ctx)->run, id); }

/* pixels of one subject in an id image, counted where the view is not under a panel */
typedef struct Count {
    long px;
} Count;

static bool in_panels(const SDL_FRect *panels, int np, int x, int y)
{
    for (int i = 0; i < np; ++i)
        if (x >= panels[i].x && x < panels[i].x + panels[i].w && y >= panels[i].y && y < panels[i].y + panels[i].h)
            return true;
    return false;
}

static long count_subject(const cfvRaster *R, const cfvRun *run, int k, const SDL_FRect *panels, int np)
{
    const cfvSubject *s = &run->subject[k];
    long n = 0;
    for (int y = 0; y < R->h; ++y)
        for (int x = 0; x < R->w; ++x) {
            Uint32 id = R->id[(size_t)y * (size_t)R->w + (size_t)x];
            if (!id || (int)(id >> 24) != s->slot) continue;
            int soft = (int)((id >> 23) & 1), index = (int)(id & 0x7fffff) - 1;
            bool mine;
            if (s->kind == CFV_SUBJECT_BODY) mine = !soft && index == s->index;
            else if (s->kind == CFV_SUBJECT_SOFT) mine = soft && index == s->index;
            else mine = soft || (index >= 0 && index < run->slot[s->slot].w.n_bodies && !run->slot[s->slot].w.bodies[index].fixed);
            if (mine && !in_panels(panels, np, x, y)) n++;
        }
    return n;
}

static const char *subject_name(const cfvRun *run, int k, char *buf, size_t cap)
{
    const cfvSubject *s = &run->subject[k];
    const cfWorld *w = &run->slot[s->slot].w;
    switch (s->kind) {
    case CFV_SUBJECT_BODY:
        snprintf(buf, cap, "world %d body %d%s%s", s->slot + 1, s->index,
                 s->index >= 0 && s->index < w->n_bodies && w->bodies[s->index].name[0] ? " " : "",
                 s->index >= 0 && s->index < w->n_bodies ? w->bodies[s->index].name : "");
        break;
    case CFV_SUBJECT_SOFT: snprintf(buf, cap, "world %d soft body %d", s->slot + 1, s->index); break;
    case CFV_SUBJECT_GROUP: snprintf(buf, cap, "world %d's moving objects", s->slot + 1); break;
    default: snprintf(buf, cap, "world %d's region", s->slot + 1); break;
    }
    return buf;
}

static bool plot_named(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

#define APPEND(...)                                                                        \
    do {                                                                                   \
        if (used < cap) used += (size_t)snprintf(msg + used, cap - used, __VA_ARGS__);     \
    } while (0)

/* cfv_app_look()'s part for the plots the demo's story points at (cfvDemo::plots): each shown and
   not empty, each name known. Appends to @p msg at *@p usedp as cfv_app_look() does; returns the
   number of faults, and the plots asked for in *@p n_plots. */
static int look_plots(cfvApp *app, char *msg, size_t cap, size_t *usedp, int *n_plots)
{
    const cfvRun *run = &app->run;
    size_t used = *usedp;
    int bad = 0;
    const char *want = run->demo ? run->demo->plots : NULL;
    static const char *const names[] = {"energy", "momentum", "barrier", "residual"};
    for (int p = 0; p < 4 && app->plots; ++p) { /* plots the user hid (--no-plots) are not asked for */
        if (!want || !plot_named(want, names[p])) continue;
        (*n_plots)++;
        if (!cfv_app_plot_shown(app, p)) {
            APPEND("the %s plot is not shown or empty; ", names[p]);
            bad++;
        }
    }
    if (want) {
        for (const char *p = want; *p;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            bool known = false;
            for (int q = 0; q < 4; ++q) known = known || (strlen(names[q]) == len && !strncmp(names[q], p, len));
            if (!known) {
                APPEND("unknown plot '%.*s' in .plots; ", (int)len, p);
                bad++;
            }
            p = e ? e + 1 : p + len;
        }
    }
    *usedp = used;
    return bad;
}

int cfv_app_look(cfvApp *app, char *msg, size_t cap)
{
    const cfvRun *run = &app->run;
    size_t used = 0;
    int bad = 0;
    if (cap) msg[0] = 0;
    cfv_app_layout(app);
    SDL_FRect panels[4];
    int np = cfv_app_panels(app, panels);
    cfvView view = cfv_view_make(&app->cam, app->w, app->h, &app->area);
    const SDL_FRect *A = &app->area;

    if (run->n_subjects == 0) {
        APPEND("declares no subject (cfv_run_subject() ...); ");
        bad++;
    }
    /* the picture as shown, with ids, then the subjects alone: what the others hide */
    cfvDraw *d = &app->draw;
    long full[CFV_MAX_SUBJECTS] = {0}, alone[CFV_MAX_SUBJECTS] = {0};
    bool counted = run->n_subjects > 0 && cfv_draw_begin(d, &view, true);
    if (counted) {
        cfv_draw_worlds(d, &view, run);
        for (int k = 0; k < run->n_subjects; ++k) full[k] = count_subject(&d->raster, run, k, panels, np);
        Keep keep = {run};
        d->keep = keep_subject;
        d->keep_ctx = &keep;
        counted = cfv_draw_begin(d, &view, true);
        if (counted) {
            cfv_draw_worlds(d, &view, run);
            for (int k = 0; k < run->n_subjects; ++k) alone[k] = count_subject(&d->raster, run, k, panels, np);
        }
        d->keep = NULL;
        d->keep_ctx = NULL;
    }
    double area_px = (double)A->w * A->h;
    /* a body smaller than about 14 x 14 pixels of a 1280 x 720 image is a speck */
    long min_px = (long)fmax(30.0, 2.0e-4 * (double)app->w * app->h);
    float tol_x = 0.03f * A->w, tol_y = 0.03f * A->h;
    for (int k = 0; k < run->n_subjects; ++k) {
        const cfvSubject *s = &run->subject[k];
        char name[96];
        subject_name(run, k, name, sizeof name);
        cfVec3 lo, hi;
        SDL_FRect pr;
        if (!cfv_subject_box(run, k, &lo, &hi) || !project_box(&view, lo, hi, &pr)) {
            APPEND("%s: not in front of the camera; ", name);
            bad++;
            continue;
        }
        if (pr.x < A->x - tol_x || pr.y < A->y - tol_y || pr.x + pr.w > A->x + A->w + tol_x ||
            pr.y + pr.h > A->y + A->h + tol_y) {
            APPEND("%s: outside the frame (%.0f,%.0f %.0fx%.0f px, the view %.0f,%.0f %.0fx%.0f); ", name, pr.x, pr.y, pr.w,
                   pr.h, A->x, A->y, A->w, A->h);
            bad++;
            continue;
        }
        if (s->kind == CFV_SUBJECT_REGION || s->kind == CFV_SUBJECT_GROUP) {
            /* the stage of the lesson fills a good part of the view */
            if (pr.w < 0.25f * A->w && pr.h < 0.25f * A->h) {
                APPEND("%s: small (%.0fx%.0f px of a %.0fx%.0f view; want a quarter of its width or height); ", name, pr.w,
                       pr.h, A->w, A->h);
                bad++;
            }
        }
        if (s->kind == CFV_SUBJECT_REGION || !counted) continue;
        if (alone[k] < (s->kind == CFV_SUBJECT_GROUP ? 4 * min_px : min_px)) {
            APPEND("%s: a speck (%ld px, want %ld); ", name, alone[k], s->kind == CFV_SUBJECT_GROUP ? 4 * min_px : min_px);
            bad++;
        } else if (2 * full[k] < alone[k]) {
            APPEND("%s: hidden (%ld of its %ld px visible, want half); ", name, full[k], alone[k]);
            bad++;
        }
    }
    (void)area_px;

    /* the world labels: each on screen, off the panels and off each other */
    cfvWorldLabel labels[CFV_MAX_WORLDS];
    int nl = cfv_world_labels(app, &view, labels);
    for (int i = 0; i < nl; ++i) {
        const SDL_FRect *r = &labels[i].rect;
        bool off = r->x < 0 || r->y < 0 || r->x + r->w > app->w || r->y + r->h > app->h;
        for (int p = 0; p < np && !off; ++p) off = overlap(r, &panels[p]);
        for (int j = 0; j < nl && !off; ++j) off = j != i && overlap(r, &labels[j].rect);
        if (off) {
            APPEND("label \"%s\" not readable (off the view, under a panel or another label); ", labels[i].text);
            bad++;
        }
    }
    int wanted_labels = 0;
    if ((app->overlays & CFV_OV_LABELS) && run->n_slots > 1)
        for (int s = 0; s < run->n_slots; ++s) wanted_labels += run->slot[s].label[0] != 0;
    if (nl != wanted_labels) {
        APPEND("%d of %d world labels shown; ", nl, wanted_labels);
        bad++;
    }

    /* the plots the story points at: shown and not empty */
    int n_plots = 0;
    bad += look_plots(app, msg, cap, &used, &n_plots);
    if (bad == 0)
        APPEND("%d subject%s in the frame and visible, %d label%s readable, %d plot%s with data", run->n_subjects,
               run->n_subjects == 1 ? "" : "s", nl, nl == 1 ? "" : "s", n_plots, n_plots == 1 ? "" : "s");
    else if (used >= 2 && used < cap)
        msg[used - 2] = 0; /* the last "; " */
    return bad;
}
