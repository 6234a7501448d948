/* SPDX-License-Identifier: MIT */
/**
 * @file plot.h
 * @brief Line plots written as PNG files by cflab itself, without SDL: an RGB canvas, anti-aliased
 *        lines, stb_easy_font text, a linear or log-10 y axis with labelled ticks, and a legend.
 *
 * `cflab compare` draws its residual, energy and timing plots with it. The viewer draws its live
 * plots through SDL (viewer/hud.c); this module is the offline one, for files a lecturer puts on
 * a slide.
 */
#ifndef CFLAB_PLOT_H
#define CFLAB_PLOT_H

#include <stdbool.h>

#include "cf/cf_base.h"

/** One line of a plot. */
typedef struct cfPlotSeries {
    const char *label;   /**< legend text */
    const double *x;     /**< n abscissae */
    const double *y;     /**< n ordinates; a non-finite value (or one <= 0 on a log axis) breaks the line */
    int n;               /**< number of points (0: only the legend entry) */
} cfPlotSeries;

/** What a plot shows and how large it is. */
typedef struct cfPlot {
    const char *title;   /**< top line */
    const char *xlabel;  /**< under the x axis, with its unit */
    const char *ylabel;  /**< beside the y axis (drawn upwards), with its unit */
    bool logy;           /**< log-10 y axis: ticks at powers of ten, labelled 10^k, minor ticks 2..9 */
    int width, height;   /**< pixels, each in [320, 4096] */
} cfPlot;

/** Largest number of series one plot takes (their colours are distinct). */
#define CF_PLOT_MAX_SERIES 10

/**
 * Draw the @p n series (0 <= n <= #CF_PLOT_MAX_SERIES) on one pair of axes and write the image
 * to @p path as an RGB PNG of p->width x p->height pixels. The x range is that of the data; the
 * y range is that of the finite data (positive data on a log axis), widened to whole ticks; a
 * plot without data says so in its middle. Series with few points (<= 60) get a dot at every
 * point, so that a one-iteration solve is visible. Series i has colour i of a fixed palette, the
 * legend sits to the right of the axes. CF_BAD_INPUT for a size out of range or too many series,
 * CF_NO_MEMORY, CF_IO_ERROR when the file cannot be written; the message is in @p err.
 */
cfStatus cf_plot_png(const cfPlot *p, const cfPlotSeries *series, int n, const char *path, cfError *err);

#endif /* CFLAB_PLOT_H */
