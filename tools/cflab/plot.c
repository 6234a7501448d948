/* SPDX-License-Identifier: MIT */
/* Line plots as PNG without SDL (plot.h): everything is drawn into an RGB buffer. Lines and dots
   are first rasterized as anti-aliased coverage (a mask, so that a polyline's joints are not
   blended twice), then composited in the series' colour; text comes from stb_easy_font's quads. */
#include "plot.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#endif
#include <stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

typedef struct Rgb {
    unsigned char r, g, b;
} Rgb;

/* Tableau 10: distinct hues that survive a projector */
static const Rgb PALETTE[CF_PLOT_MAX_SERIES] = {
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},   {148, 103, 189},
    {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207},
};
static const Rgb BLACK = {0, 0, 0}, INK = {40, 40, 40}, GRID = {225, 225, 225}, MINOR = {242, 242, 242},
                 FRAME = {90, 90, 90};

typedef struct Canvas {
    int w, h;
    unsigned char *px; /* RGB, row-major */
    float *mask;       /* coverage of the line being drawn, in [0, 1] */
} Canvas;

/* a rectangle in pixels: [x0, x1) x [y0, y1) */
typedef struct Box {
    double x0, y0, x1, y1;
} Box;

static void blend(Canvas *c, int x, int y, Rgb col, double a)
{
    if (x < 0 || y < 0 || x >= c->w || y >= c->h || !(a > 0.0)) return;
    if (a > 1.0) a = 1.0;
    unsigned char *p = &c->px[3 * ((size_t)y * (size_t)c->w + (size_t)x)];
    p[0] = (unsigned char)lround(p[0] + a * (col.r - p[0]));
    p[1] = (unsigned char)lround(p[1] + a * (col.g - p[1]));
    p[2] = (unsigned char)lround(p[2] + a * (col.b - p[2]));
}

/* the rectangle [x0, x1] x [y0, y1], each pixel covered by the area it shares with it */
static void fill_rect(Canvas *c, double x0, double y0, double x1, double y1, Rgb col)
{
    for (int y = (int)floor(y0); y < (int)ceil(y1); ++y) {
        double cy = fmin(y1, y + 1.0) - fmax(y0, (double)y);
        for (int x = (int)floor(x0); x < (int)ceil(x1); ++x) {
            double cx = fmin(x1, x + 1.0) - fmax(x0, (double)x);
            blend(c, x, y, col, cx * cy);
        }
    }
}

/* ---- coverage mask: lines and dots, clipped to a box ------------------------------------- */

/* the capsule of half-width r around the segment (x0, y0)-(x1, y1), anti-aliased over one pixel */
static void mask_segment(Canvas *c, const Box *clip, double x0, double y0, double x1, double y1, double r)
{
    int xa = (int)floor(fmax(fmin(x0, x1) - r - 1.0, clip->x0)), xb = (int)ceil(fmin(fmax(x0, x1) + r + 1.0, clip->x1));
    int ya = (int)floor(fmax(fmin(y0, y1) - r - 1.0, clip->y0)), yb = (int)ceil(fmin(fmax(y0, y1) + r + 1.0, clip->y1));
    double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    for (int y = ya; y < yb; ++y)
        for (int x = xa; x < xb; ++x) {
            double px = x + 0.5 - x0, py = y + 0.5 - y0;
            double t = len2 > 0.0 ? fmax(0.0, fmin(1.0, (px * dx + py * dy) / len2)) : 0.0;
            double d = hypot(px - t * dx, py - t * dy);
            double cov = fmin(1.0, r + 0.5 - d);
            float *m = &c->mask[(size_t)y * (size_t)c->w + (size_t)x];
            if (cov > *m) *m = (float)cov;
        }
}

/* composite the mask inside @p clip in colour @p col and clear it */
static void mask_flush(Canvas *c, const Box *clip, Rgb col)
{
    for (int y = (int)clip->y0; y < (int)ceil(clip->y1); ++y)
        for (int x = (int)clip->x0; x < (int)ceil(clip->x1); ++x) {
            float *m = &c->mask[(size_t)y * (size_t)c->w + (size_t)x];
            if (*m > 0.0f) blend(c, x, y, col, *m);
            *m = 0.0f;
        }
}

static void line(Canvas *c, double x0, double y0, double x1, double y1, double width, Rgb col)
{
    Box all = {0, 0, c->w, c->h};
    mask_segment(c, &all, x0, y0, x1, y1, 0.5 * width);
    Box b = {fmax(0, floor(fmin(x0, x1) - width - 1)), fmax(0, floor(fmin(y0, y1) - width - 1)),
             fmin(c->w, ceil(fmax(x0, x1) + width + 1)), fmin(c->h, ceil(fmax(y0, y1) + width + 1))};
    mask_flush(c, &b, col);
}

/* ---- text ------------------------------------------------------------------------------- */

#define TEXT_CAP 160   /* longest text drawn */
#define CAP_HEIGHT 7.0 /* height of a capital in stb_easy_font units */

typedef struct EfVertex {
    float x, y, z;
    unsigned char c[4];
} EfVertex;

static double text_width(const char *s, double scale)
{
    char buf[TEXT_CAP];
    snprintf(buf, sizeof buf, "%s", s);
    return stb_easy_font_width(buf) * scale;
}

/* @p s with its top-left corner at (x, y); upwards (rotated a quarter turn to the left, reading
   from bottom to top) with its top-left corner at (x, y) of the turned text when @p up */
static void text(Canvas *c, double x, double y, double scale, Rgb col, const char *s, bool up)
{
    static EfVertex quads[TEXT_CAP * 300 / sizeof(EfVertex)]; /* stb_easy_font needs ~270 bytes a character */
    char buf[TEXT_CAP];
    snprintf(buf, sizeof buf, "%s", s);
    int nq = stb_easy_font_print(0, 0, buf, NULL, quads, (int)sizeof quads);
    for (int q = 0; q < nq; ++q) {
        const EfVertex *v = &quads[4 * q];
        double u0 = fmin(v[0].x, v[2].x) * scale, u1 = fmax(v[0].x, v[2].x) * scale;
        double w0 = fmin(v[0].y, v[2].y) * scale, w1 = fmax(v[0].y, v[2].y) * scale;
        if (up) fill_rect(c, x + w0, y - u1, x + w1, y - u0, col);
        else fill_rect(c, x + u0, y + w0, x + u1, y + w1, col);
    }
}

/* ---- ticks -------------------------------------------------------------------------------- */

/* 1, 2 or 5 times a power of ten, the smallest >= @p raw */
static double nice_step(double raw)
{
    double p = pow(10.0, floor(log10(raw))), f = raw / p;
    return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * p;
}

/* a linear axis: [lo, hi] widened to whole steps of about @p n ticks */
typedef struct Axis {
    double lo, hi, step; /* linear: values; log: exponents (step = decades between labels) */
    bool log;
} Axis;

static Axis linear_axis(double lo, double hi, int n, bool integral)
{
    if (!(hi > lo)) {
        double pad = lo != 0.0 ? 0.1 * fabs(lo) : 1.0;
        lo -= pad;
        hi += pad;
    }
    Axis a = {0, 0, nice_step((hi - lo) / n), false};
    if (integral && a.step < 1.0) a.step = 1.0;
    a.lo = floor(lo / a.step + 1e-9) * a.step;
    a.hi = ceil(hi / a.step - 1e-9) * a.step;
    return a;
}

static Axis log_axis(double lo, double hi)
{
    Axis a = {floor(log10(lo)), ceil(log10(hi)), 1.0, true};
    if (a.hi <= a.lo) a.hi = a.lo + 1.0;
    a.step = ceil((a.hi - a.lo) / 8.0); /* at most about 8 labelled decades */
    return a;
}

/* the label of linear tick @p v of step @p step: as many decimals as the step needs */
static void tick_label(char *buf, size_t cap, double v, double step)
{
    if (fabs(v) < 1e-9 * step) v = 0.0; /* no "-0" */
    double big = fmax(fabs(v), step);
    if (step >= 1e-3 && big < 1e6) {
        int dec = (int)fmax(0.0, ceil(-log10(step) - 1e-9));
        snprintf(buf, cap, "%.*f", dec, v);
    } else {
        snprintf(buf, cap, "%.3g", v);
    }
}

/* ---- the plot ------------------------------------------------------------------------------- */

#define SCALE_TITLE 2.0
#define SCALE_LABEL 1.75
#define SCALE_TICK 1.5
#define FEW_POINTS 60

static double y_of(const Axis *a, const Box *area, double v)
{
    double t = a->log ? (log10(v) - a->lo) / (a->hi - a->lo) : (v - a->lo) / (a->hi - a->lo);
    return area->y1 - t * (area->y1 - area->y0);
}

static double x_of(const Axis *a, const Box *area, double v)
{
    return area->x0 + (v - a->lo) / (a->hi - a->lo) * (area->x1 - area->x0);
}

static bool usable(const cfPlot *p, double y) { return isfinite(y) && (!p->logy || y > 0.0); }

static void draw_y_axis(Canvas *c, const Axis *ya, const Box *area)
{
    double ch = CAP_HEIGHT * SCALE_TICK;
    char buf[64];
    if (!ya->log) {
        for (double v = ya->lo; v <= ya->hi + 1e-9 * ya->step; v += ya->step) {
            double y = round(y_of(ya, area, v)) + 0.5;
            line(c, area->x0, y, area->x1, y, 1.0, GRID);
            line(c, area->x0 - 6, y, area->x0, y, 1.5, FRAME);
            tick_label(buf, sizeof buf, v, ya->step);
            text(c, area->x0 - 10 - text_width(buf, SCALE_TICK), y - 0.5 * ch, SCALE_TICK, INK, buf, false);
        }
        return;
    }
    bool minor = ya->hi - ya->lo <= 8.0;
    for (int e = (int)ya->lo; e <= (int)ya->hi; ++e) {
        if (minor && e < (int)ya->hi)
            for (int k = 2; k <= 9; ++k) {
                double y = round(y_of(ya, area, k * pow(10.0, e))) + 0.5;
                line(c, area->x0, y, area->x1, y, 1.0, MINOR);
                line(c, area->x0 - 3, y, area->x0, y, 1.0, FRAME);
            }
        double y = round(y_of(ya, area, pow(10.0, e))) + 0.5;
        bool labelled = (e - (int)ya->lo) % (int)ya->step == 0;
        if (labelled) line(c, area->x0, y, area->x1, y, 1.0, GRID);
        line(c, area->x0 - (labelled ? 6 : 4), y, area->x0, y, 1.5, FRAME);
        if (!labelled) continue;
        /* 10 with the exponent raised and smaller */
        snprintf(buf, sizeof buf, "%d", e);
        double sup = 0.75 * SCALE_TICK, we = text_width(buf, sup), wt = text_width("10", SCALE_TICK);
        double x = area->x0 - 10 - we - wt;
        text(c, x, y - 0.3 * ch, SCALE_TICK, INK, "10", false);
        text(c, x + wt, y - 0.3 * ch - 0.55 * CAP_HEIGHT * sup, sup, INK, buf, false);
    }
}

static void draw_x_axis(Canvas *c, const Axis *xa, const Box *area)
{
    char buf[64];
    for (double v = xa->lo; v <= xa->hi + 1e-9 * xa->step; v += xa->step) {
        double x = round(x_of(xa, area, v)) + 0.5;
        line(c, x, area->y0, x, area->y1, 1.0, GRID);
        line(c, x, area->y1, x, area->y1 + 6, 1.5, FRAME);
        tick_label(buf, sizeof buf, v, xa->step);
        text(c, x - 0.5 * text_width(buf, SCALE_TICK), area->y1 + 11, SCALE_TICK, INK, buf, false);
    }
}

/* half-width of series k of n: the first ones widest, so that a line drawn over an equal one
   leaves a coloured edge (two solvers that agree both stay visible) */
static double half_width(int k, int n) { return n > 1 ? 1.0 + 1.2 * (n - 1 - k) / (n - 1) : 1.2; }

static void draw_series(Canvas *c, const cfPlot *p, const cfPlotSeries *s, double r, Rgb col, const Axis *xa,
                        const Axis *ya, const Box *area)
{
    Box clip = {area->x0 - 4, area->y0 - 4, area->x1 + 4, area->y1 + 4};
    bool dots = s->n <= FEW_POINTS;
    double px = 0, py = 0;
    bool have = false;
    for (int i = 0; i < s->n; ++i) {
        if (!usable(p, s->y[i]) || !isfinite(s->x[i])) {
            have = false;
            continue;
        }
        double x = x_of(xa, area, s->x[i]), y = y_of(ya, area, s->y[i]);
        if (have) mask_segment(c, &clip, px, py, x, y, r);
        if (dots) mask_segment(c, &clip, x, y, x, y, r + 2.0);
        px = x;
        py = y;
        have = true;
    }
    mask_flush(c, &clip, col);
}

static void draw_legend(Canvas *c, const cfPlotSeries *series, int n, double x, double y)
{
    double row = 12.0 * SCALE_TICK + 6;
    for (int k = 0; k < n; ++k) {
        double yc = y + k * row + 0.5 * CAP_HEIGHT * SCALE_TICK;
        Box all = {0, 0, c->w, c->h};
        double r = half_width(k, n);
        mask_segment(c, &all, x, yc, x + 28, yc, r);
        if (series[k].n <= FEW_POINTS) mask_segment(c, &all, x + 14, yc, x + 14, yc, r + 2.0);
        mask_flush(c, &(Box){x - 8, yc - 8, x + 37, yc + 8}, PALETTE[k]);
        text(c, x + 36, y + k * row, SCALE_TICK, INK, series[k].label ? series[k].label : "", false);
    }
}

cfStatus cf_plot_png(const cfPlot *p, const cfPlotSeries *series, int n, const char *path, cfError *err)
{
    if (p->width < 320 || p->width > 4096 || p->height < 320 || p->height > 4096)
        return cf_error_set(err, CF_BAD_INPUT, "plot %s: size %dx%d out of range (320..4096 pixels a side)", path,
                            p->width, p->height);
    if (n < 0 || n > CF_PLOT_MAX_SERIES)
        return cf_error_set(err, CF_BAD_INPUT, "plot %s: %d series, at most %d", path, n, CF_PLOT_MAX_SERIES);
    Canvas c = {p->width, p->height, NULL, NULL};
    size_t npx = (size_t)c.w * (size_t)c.h;
    c.px = malloc(3 * npx);
    c.mask = calloc(npx, sizeof *c.mask);
    if (!c.px || !c.mask) {
        free(c.px);
        free(c.mask);
        return cf_error_set(err, CF_NO_MEMORY, "plot %s: out of memory for %dx%d pixels", path, c.w, c.h);
    }
    memset(c.px, 255, 3 * npx);

    /* the data's ranges */
    double x0 = DBL_MAX, x1 = -DBL_MAX, y0 = DBL_MAX, y1 = -DBL_MAX;
    bool integral = true;
    for (int k = 0; k < n; ++k)
        for (int i = 0; i < series[k].n; ++i) {
            double x = series[k].x[i], y = series[k].y[i];
            if (!isfinite(x) || !usable(p, y)) continue;
            x0 = fmin(x0, x);
            x1 = fmax(x1, x);
            y0 = fmin(y0, y);
            y1 = fmax(y1, y);
            integral = integral && x == floor(x);
        }
    bool data = x0 <= x1;

    /* layout: title on top, legend on the right, tick labels and axis labels left and below */
    double legend_w = 0.0;
    for (int k = 0; k < n; ++k)
        legend_w = fmax(legend_w, 36 + text_width(series[k].label ? series[k].label : "", SCALE_TICK));
    legend_w = fmin(legend_w, 0.4 * c.w);
    Box area = {118, 54, c.w - 24 - (n > 0 ? legend_w + 16 : 0), c.h - 78};

    /* the title: on one line when it fits the image, else on two, broken at the last ": " (or space)
       that makes the first fit, the plot moved down by a line; never cut */
    const char *title = p->title ? p->title : "";
    char first[TEXT_CAP], second[TEXT_CAP];
    snprintf(first, sizeof first, "%s", title);
    second[0] = 0;
    double room = c.w - 16.0;
    if (text_width(first, SCALE_TITLE) > room) {
        size_t len = strlen(first), colon = 0, space = 0;
        char head[TEXT_CAP];
        for (size_t k = 1; k < len; ++k) { /* the last ": " and the last space whose head fits */
            if (first[k] != ' ') continue;
            snprintf(head, sizeof head, "%.*s", (int)k, first);
            if (text_width(head, SCALE_TITLE) > room) break;
            space = k;
            if (first[k - 1] == ':') colon = k;
        }
        size_t cut = colon ? colon : space;
        if (cut > 0) {
            snprintf(second, sizeof second, "%s", first + cut + 1);
            first[cut] = 0;
        } else {
            second[0] = 0;
        }
    }
    double scale = SCALE_TITLE;
    while (scale > 1.0 && (text_width(first, scale) > room || text_width(second, scale) > room)) scale -= 0.25;
    double tw = text_width(first, scale);
    text(&c, fmax(8, 0.5 * (c.w - tw)), 16, scale, BLACK, first, false);
    if (second[0]) {
        double tw2 = text_width(second, scale);
        text(&c, fmax(8, 0.5 * (c.w - tw2)), 16 + 12 * scale, scale, BLACK, second, false);
        area.y0 += 12 * scale;
    }
    const char *xl = p->xlabel ? p->xlabel : "", *yl = p->ylabel ? p->ylabel : "";
    text(&c, 0.5 * (area.x0 + area.x1 - text_width(xl, SCALE_LABEL)), c.h - 12 - CAP_HEIGHT * SCALE_LABEL,
         SCALE_LABEL, BLACK, xl, false);
    text(&c, 14, 0.5 * (area.y0 + area.y1 + text_width(yl, SCALE_LABEL)), SCALE_LABEL, BLACK, yl, true);

    if (data) {
        Axis xa = linear_axis(x0, x1, 8, integral);
        Axis ya = p->logy ? log_axis(y0, y1) : linear_axis(y0, y1, 6, false);
        draw_y_axis(&c, &ya, &area);
        draw_x_axis(&c, &xa, &area);
        for (int k = 0; k < n; ++k) draw_series(&c, p, &series[k], half_width(k, n), PALETTE[k], &xa, &ya, &area);
    } else {
        const char *msg = p->logy ? "no positive data to plot" : "no data to plot";
        text(&c, 0.5 * (area.x0 + area.x1 - text_width(msg, SCALE_LABEL)), 0.5 * (area.y0 + area.y1), SCALE_LABEL,
             INK, msg, false);
    }
    /* the frame */
    line(&c, area.x0, area.y0, area.x1, area.y0, 1.5, FRAME);
    line(&c, area.x0, area.y1, area.x1, area.y1, 1.5, FRAME);
    line(&c, area.x0, area.y0, area.x0, area.y1, 1.5, FRAME);
    line(&c, area.x1, area.y0, area.x1, area.y1, 1.5, FRAME);
    if (n > 0) draw_legend(&c, series, n, area.x1 + 16, area.y0 + 4);

    errno = 0;
    int ok = stbi_write_png(path, c.w, c.h, 3, c.px, 3 * c.w);
    int e = errno;
    free(c.px);
    free(c.mask);
    if (!ok) return cf_error_set(err, CF_IO_ERROR, "cannot write %s: %s", path, e ? strerror(e) : "write failed");
    return CF_OK;
}
