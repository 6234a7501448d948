/* SPDX-License-Identifier: MIT */
/* Text through stb_easy_font, translucent panels, time series and plot panels. */
#include "cfview.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#endif
#include <stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* ---- text ------------------------------------------------------------------------------ */

typedef struct EfVertex {
    float x, y, z;
    unsigned char c[4];
} EfVertex;

#define LINE_CHARS 400                 /* longest line drawn at once */
#define EF_BYTES (LINE_CHARS * 300)    /* stb_easy_font needs about 270 bytes per character */
#define EF_QUADS (EF_BYTES / (int)(4 * sizeof(EfVertex)))

static EfVertex ef_buf[EF_QUADS * 4];

/* a line of text: stb_easy_font's quads are axis-aligned rectangles, filled into the frame */
static float text_line(cfvRaster *R, float x, float y, float scale, SDL_Color c, const char *s, size_t len)
{
    char line[LINE_CHARS + 1];
    if (len > LINE_CHARS) len = LINE_CHARS;
    memcpy(line, s, len);
    line[len] = 0;
    unsigned char col[4] = {c.r, c.g, c.b, c.a};
    int nq = stb_easy_font_print(0, 0, line, col, ef_buf, (int)sizeof ef_buf);
    for (int q = 0; q < nq; ++q) {
        const EfVertex *v = &ef_buf[4 * q];
        float x0 = fminf(fminf(v[0].x, v[1].x), fminf(v[2].x, v[3].x)), x1 = fmaxf(fmaxf(v[0].x, v[1].x), fmaxf(v[2].x, v[3].x));
        float y0 = fminf(fminf(v[0].y, v[1].y), fminf(v[2].y, v[3].y)), y1 = fmaxf(fmaxf(v[0].y, v[1].y), fmaxf(v[2].y, v[3].y));
        cfv_raster_fill(R, x + x0 * scale, y + y0 * scale, (x1 - x0) * scale, (y1 - y0) * scale, c);
    }
    return (float)stb_easy_font_width(line) * scale;
}

float cfv_text(cfvRaster *r, float x, float y, float scale, SDL_Color c, const char *text)
{
    float wmax = 0;
    const char *p = text;
    for (;;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        float w = text_line(r, x, y, scale, c, p, len);
        if (w > wmax) wmax = w;
        if (!e) break;
        p = e + 1;
        y += 12.0f * scale;
    }
    return wmax;
}

void cfv_text_size(const char *text, float scale, float *w, float *h)
{
    int lines = 1, cur = 0, best = 0;
    char line[LINE_CHARS + 1];
    for (const char *p = text;; ++p) {
        if (*p == '\n' || *p == 0) {
            line[cur] = 0;
            int wl = stb_easy_font_width(line);
            if (wl > best) best = wl;
            cur = 0;
            if (*p == 0) break;
            lines++;
        } else if (cur < LINE_CHARS) {
            line[cur++] = *p;
        }
    }
    *w = best * scale;
    *h = lines * 12.0f * scale;
}

void cfv_panel(cfvRaster *r, float x, float y, float w, float h, SDL_Color c) { cfv_raster_fill(r, x, y, w, h, c); }

/* ---- series ---------------------------------------------------------------------------- */

#define SERIES_CAP 2048

bool cfv_series_push(cfvSeries *s, double t, double y)
{
    if (s->cap == 0) {
        s->t = malloc(SERIES_CAP * sizeof *s->t);
        s->y = malloc(SERIES_CAP * sizeof *s->y);
        if (!s->t || !s->y) {
            free(s->t);
            free(s->y);
            s->t = s->y = NULL;
            return false;
        }
        s->cap = SERIES_CAP;
        s->stride = 1;
    }
    if (s->seen++ % s->stride != 0) return true;
    if (s->n == s->cap) {
        /* full: keep every other sample and sample half as often from now on */
        for (int i = 0; i < s->n / 2; ++i) {
            s->t[i] = s->t[2 * i];
            s->y[i] = s->y[2 * i];
        }
        s->n /= 2;
        s->stride *= 2;
    }
    s->t[s->n] = t;
    s->y[s->n] = y;
    s->n++;
    return true;
}

void cfv_series_free(cfvSeries *s)
{
    free(s->t);
    free(s->y);
    memset(s, 0, sizeof *s);
}

/* ---- plots ------------------------------------------------------------------------------- */

static double yval(double v, bool logy) { return logy ? (v > 0 ? log10(v) : NAN) : v; }

static void fmt_num(char *buf, size_t cap, double v, bool logy, int digits)
{
    if (logy) snprintf(buf, cap, "1e%d", (int)lround(v)); /* the axis ends on whole decades */
    else snprintf(buf, cap, "%.*g", digits, v);
}

void cfv_plot(cfvRaster *r, float x, float y, float w, float h, const char *title,
              const cfvSeries *const *series, const SDL_Color *colors, int n, bool logy, const char *xunit)
{
    const SDL_Color fg = {220, 220, 220, 255}, dim = {150, 155, 165, 255};
    cfv_panel(r, x, y, w, h, (SDL_Color){12, 14, 20, 200});
    /* a title wider than the panel is cut with "..." */
    char head[160];
    cfv_copy(head, sizeof head, title);
    float tw, th;
    cfv_text_size(head, 1.0f, &tw, &th);
    for (size_t len = strlen(head); tw > w - 12 && len > 4; --len) {
        memcpy(head + len - 4, "...", 4);
        cfv_text_size(head, 1.0f, &tw, &th);
    }
    cfv_text(r, x + 6, y + 5, 1.0f, fg, head);
    float px = x + 56, py = y + 20, pw = w - 64, ph = h - 36; /* plot area */
    double t0 = DBL_MAX, t1 = -DBL_MAX, y0 = DBL_MAX, y1 = -DBL_MAX;
    for (int k = 0; k < n; ++k) {
        const cfvSeries *s = series[k];
        if (!s) continue;
        for (int i = 0; i < s->n; ++i) {
            double v = yval(s->y[i], logy);
            if (!isfinite(v) || !isfinite(s->t[i])) continue;
            t0 = fmin(t0, s->t[i]);
            t1 = fmax(t1, s->t[i]);
            y0 = fmin(y0, v);
            y1 = fmax(y1, v);
        }
    }
    Uint32 axis = cfv_rgb((SDL_Color){80, 86, 98, 255});
    cfv_raster_line(r, px, py, 0, px, py + ph, 0, 1, axis, 0);
    cfv_raster_line(r, px, py + ph, 0, px + pw, py + ph, 0, 1, axis, 0);
    if (t0 > t1) {
        cfv_text(r, px + 8, py + ph / 2 - 6, 1.0f, dim, "no data yet");
        return;
    }
    if (t1 - t0 < 1e-12) t1 = t0 + 1e-12;
    /* a flat line sits in the middle; tiny relative changes are shown as what they are */
    double span = y1 - y0, mag = fmax(fabs(y0), fabs(y1));
    if (logy) {
        /* whole decades, at least one: a residual that barely moves looks flat, as it is */
        y0 = floor(y0);
        y1 = fmax(ceil(y1), y0 + 1.0);
    } else if (span < 1e-9 * fmax(mag, 1e-30) || span == 0) {
        double pad = fmax(1e-3 * mag, 1e-12);
        y0 -= pad;
        y1 += pad;
    } else {
        double pad = 0.05 * span;
        y0 -= pad;
        y1 += pad;
    }
    char buf[64];
    for (int end = 0; end < 2; ++end) { /* the top and the bottom of the y axis, clear of its line */
        double v = end ? y0 : y1;
        fmt_num(buf, sizeof buf, v, logy, 5);
        cfv_text_size(buf, 1.0f, &tw, &th);
        for (int digits = 3; tw > px - x - 10 && digits >= 1; digits -= 2) {
            fmt_num(buf, sizeof buf, v, logy, digits);
            cfv_text_size(buf, 1.0f, &tw, &th);
        }
        cfv_text(r, px - 6 - tw, end ? py + ph - 8 : py, 1.0f, dim, buf);
    }
    snprintf(buf, sizeof buf, "%.3g", t0);
    cfv_text(r, px, py + ph + 3, 1.0f, dim, buf);
    snprintf(buf, sizeof buf, "%.3g%s%s", t1, xunit && xunit[0] ? " " : "", xunit ? xunit : "");
    cfv_text_size(buf, 1.0f, &tw, &th);
    cfv_text(r, px + pw - tw, py + ph + 3, 1.0f, dim, buf);

    static SDL_FPoint pts[SERIES_CAP + 1];
    for (int k = 0; k < n; ++k) {
        const cfvSeries *s = series[k];
        if (!s || s->n == 0) continue;
        Uint32 c = cfv_rgb(colors[k]);
        for (int pass = 0; pass < 2; ++pass) {
            int m = 0;
            for (int i = 0; i <= s->n; ++i) {
                double v = i < s->n ? yval(s->y[i], logy) : NAN;
                if (!isfinite(v)) { /* a gap (or the end): draw what we have */
                    for (int j = 1; j < m; ++j) cfv_raster_line(r, pts[j - 1].x, pts[j - 1].y, 0, pts[j].x, pts[j].y, 0, 1, c, 0);
                    if (m == 1) cfv_raster_fill(r, pts[0].x - 1.5f, pts[0].y - 1.5f, 3, 3, colors[k]);
                    m = 0;
                    continue;
                }
                double fy = (v - y0) / (y1 - y0);
                if (fy < 0) fy = 0;
                if (fy > 1) fy = 1;
                pts[m].x = px + (float)((s->t[i] - t0) / (t1 - t0)) * pw;
                pts[m].y = py + ph - (float)fy * ph + (float)pass;
                m++;
            }
        }
    }
}

/* ---- the solver's residual per iteration ------------------------------------------------------ */

bool cfv_run_has_solver(const cfvRun *run)
{
    for (int i = 0; i < run->n_slots; ++i)
        if (run->slot[i].w.def.solver) return true;
    return false;
}

const char *cfv_residual_series(const cfvRun *run, cfvSeries *series, double (*t)[CF_STATS_HISTORY],
                                double (*y)[CF_STATS_HISTORY])
{
    /* the title names what the histories measure (cfStepStats::solver_measure) when they agree */
    cfMeasure measure = CF_MEASURE_COUNT;
    bool mixed = false;
    for (int i = 0; i < run->n_slots; ++i) {
        const cfStepStats *st = &run->slot[i].w.stats;
        int n = st->solver_history_len;
        if (n < 0) n = 0;
        if (n > CF_STATS_HISTORY) n = CF_STATS_HISTORY;
        for (int j = 0; j < n; ++j) {
            t[i][j] = j + 1;
            y[i][j] = st->solver_history[j];
        }
        memset(&series[i], 0, sizeof series[i]);
        series[i].n = series[i].cap = n;
        series[i].stride = 1;
        series[i].seen = n;
        series[i].t = t[i];
        series[i].y = y[i];
        if (n == 0) continue;
        if (measure == CF_MEASURE_COUNT) measure = st->solver_measure;
        else if (measure != st->solver_measure) mixed = true;
    }
    static char title[160];
    if (mixed || measure == CF_MEASURE_COUNT)
        snprintf(title, sizeof title, "residual per iteration (last step)%s", mixed ? ": each world's own measure" : "");
    else
        snprintf(title, sizeof title, "residual per iteration (last step): %s", cf_measure_describe(measure));
    return title;
}

