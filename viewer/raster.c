/* SPDX-License-Identifier: MIT */
/* The 3D view's rasterizer: triangles, lines and squares into a framebuffer with a depth buffer, so a
   body hides what is behind it (other bodies, contact markers, arrows), and with an object id per pixel
   when asked (what the demos' visual check counts). SDL then shows the framebuffer as one texture. */
#include "cfview.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* triangles reaching further than this beyond the image are clipped first (float precision) */
#define GUARD 2048.0f

bool cfv_raster_begin(cfvRaster *R, int w, int h, SDL_Color bg, bool ids)
{
    size_t n = (size_t)w * (size_t)h;
    if (n > R->cap) {
        Uint32 *c = realloc(R->color, n * sizeof *c);
        if (c) R->color = c;
        float *d = realloc(R->depth, n * sizeof *d);
        if (d) R->depth = d;
        if (!c || !d) return false;
        R->cap = n;
        free(R->id);
        R->id = NULL;
        R->id_cap = 0;
    }
    if (ids && R->id_cap < n) {
        free(R->id);
        R->id = malloc(n * sizeof *R->id);
        R->id_cap = R->id ? n : 0;
        if (!R->id) return false;
    }
    R->w = w;
    R->h = h;
    R->ids = ids;
    R->cur_id = 0;
    R->bias = 0;
    R->alpha = 1;
    Uint32 c = cfv_rgb(bg), *px = R->color;
    for (size_t i = 0; i < n; ++i) px[i] = c;
    memset(R->depth, 0, n * sizeof *R->depth);
    if (ids) memset(R->id, 0, n * sizeof *R->id);
    return true;
}

void cfv_raster_free(cfvRaster *R)
{
    free(R->color);
    free(R->depth);
    free(R->id);
    memset(R, 0, sizeof *R);
}

static inline Uint32 blend(Uint32 dst, Uint32 src, float alpha)
{
    Uint32 a = (Uint32)(alpha * 256.0f + 0.5f), b = 256u - a;
    Uint32 rb = (((src & 0xff00ffu) * a + (dst & 0xff00ffu) * b) >> 8) & 0xff00ffu;
    Uint32 g = (((src & 0x00ff00u) * a + (dst & 0x00ff00u) * b) >> 8) & 0x00ff00u;
    return rb | g;
}

static inline Uint32 pack(float r, float g, float b)
{
    int ir = (int)(r + 0.5f), ig = (int)(g + 0.5f), ib = (int)(b + 0.5f);
    ir = ir < 0 ? 0 : ir > 255 ? 255 : ir;
    ig = ig < 0 ? 0 : ig > 255 ? 255 : ig;
    ib = ib < 0 ? 0 : ib > 255 ? 255 : ib;
    return ((Uint32)ir << 16) | ((Uint32)ig << 8) | (Uint32)ib;
}

/* one pixel: the depth test, then depth, id and colour as the mode says */
static inline void plot(cfvRaster *R, size_t i, float iz, Uint32 c, unsigned mode)
{
    if ((mode & CFV_R_TEST) && !(iz * (1.0f + R->bias) > R->depth[i])) return;
    if (mode & CFV_R_WRITE) {
        R->depth[i] = iz;
        if (R->ids) R->id[i] = R->cur_id;
    }
    if (mode & CFV_R_NOCOLOR) return;
    R->color[i] = (mode & CFV_R_BLEND) ? blend(R->color[i], c, R->alpha) : c;
}

/* a triangle whose vertices are within the guard band: scanlines between the sorted vertices, the
   attributes (1/z, colour) from their planes; a pixel is covered when its centre is inside (left and
   top edges included, right and bottom not: shared edges are drawn once) */
static void raster_tri(cfvRaster *R, const cfvRVert *v0, const cfvRVert *v1, const cfvRVert *v2, unsigned mode)
{
    float area = (v1->x - v0->x) * (v2->y - v0->y) - (v1->y - v0->y) * (v2->x - v0->x);
    if (!(fabsf(area) > 1e-9f)) return;
    /* plane gradients of 1/z and colour */
    float dx1 = v1->x - v0->x, dy1 = v1->y - v0->y, dx2 = v2->x - v0->x, dy2 = v2->y - v0->y, ia = 1.0f / area;
#define GRAD(a0, a1, a2, gx, gy)                                      \
    do {                                                              \
        float d1_ = (a1) - (a0), d2_ = (a2) - (a0);                   \
        gx = (d1_ * dy2 - d2_ * dy1) * ia;                            \
        gy = (d2_ * dx1 - d1_ * dx2) * ia;                            \
    } while (0)
    float zx, zy;
    GRAD(v0->iz, v1->iz, v2->iz, zx, zy);
    bool flat = v0->rgb == v1->rgb && v0->rgb == v2->rgb;
    float c0[3] = {0}, cx[3] = {0}, cy[3] = {0};
    if (!flat && !(mode & CFV_R_NOCOLOR)) {
        const Uint32 a[3] = {v0->rgb, v1->rgb, v2->rgb};
        for (int k = 0; k < 3; ++k) {
            int sh = 16 - 8 * k;
            float q0 = (float)((a[0] >> sh) & 255), q1 = (float)((a[1] >> sh) & 255), q2 = (float)((a[2] >> sh) & 255);
            c0[k] = q0;
            GRAD(q0, q1, q2, cx[k], cy[k]);
        }
    }
#undef GRAD
    /* vertices by y */
    const cfvRVert *t = v0, *m = v1, *b = v2, *s;
    if (m->y < t->y) s = t, t = m, m = s;
    if (b->y < t->y) s = t, t = b, b = s;
    if (b->y < m->y) s = m, m = b, b = s;
    int y0 = (int)ceilf(t->y - 0.5f), y1 = (int)ceilf(b->y - 0.5f) - 1;
    if (y0 < 0) y0 = 0;
    if (y1 > R->h - 1) y1 = R->h - 1;
    float long_dx = (b->y - t->y) > 0 ? (b->x - t->x) / (b->y - t->y) : 0;
    for (int y = y0; y <= y1; ++y) {
        float yc = (float)y + 0.5f;
        float xa = t->x + (yc - t->y) * long_dx, xb;
        if (yc < m->y) xb = (m->y - t->y) > 0 ? t->x + (yc - t->y) * (m->x - t->x) / (m->y - t->y) : m->x;
        else xb = (b->y - m->y) > 0 ? m->x + (yc - m->y) * (b->x - m->x) / (b->y - m->y) : m->x;
        if (xa > xb) {
            float tmp = xa;
            xa = xb;
            xb = tmp;
        }
        int xs = (int)ceilf(xa - 0.5f), xe = (int)ceilf(xb - 0.5f) - 1;
        if (xs < 0) xs = 0;
        if (xe > R->w - 1) xe = R->w - 1;
        if (xs > xe) continue;
        float px = (float)xs + 0.5f - v0->x, py = yc - v0->y;
        float iz = v0->iz + zx * px + zy * py;
        size_t i = (size_t)y * (size_t)R->w + (size_t)xs;
        if (flat && mode == (CFV_R_TEST | CFV_R_WRITE) && !R->ids) {
            /* the common case, bodies and the ground: a tight loop the compiler vectorizes */
            float *restrict dp = R->depth + i;
            Uint32 *restrict cp = R->color + i;
            const Uint32 c = v0->rgb;
            const int n = xe - xs + 1;
            for (int k = 0; k < n; ++k) { /* branch-free: masks, not jumps */
                float z = iz + zx * (float)k, old = dp[k];
                Uint32 m = 0u - (Uint32)(z > old);
                dp[k] = z > old ? z : old;
                cp[k] = (c & m) | (cp[k] & ~m);
            }
        } else if (flat || (mode & CFV_R_NOCOLOR)) {
            Uint32 c = v0->rgb;
            for (int x = xs; x <= xe; ++x, ++i, iz += zx) plot(R, i, iz, c, mode);
        } else {
            float r = c0[0] + cx[0] * px + cy[0] * py, g = c0[1] + cx[1] * px + cy[1] * py,
                  bl = c0[2] + cx[2] * px + cy[2] * py;
            for (int x = xs; x <= xe; ++x, ++i, iz += zx, r += cx[0], g += cx[1], bl += cx[2])
                plot(R, i, iz, pack(r, g, bl), mode);
        }
    }
}

/* clip a polygon to one side of x = lim or y = lim (axis 0 / 1), the attributes interpolated
   linearly: they are affine in the image plane (1/z too) */
static int clip_side(const cfvRVert *in, int n, cfvRVert *out, int axis, float lim, bool keep_greater)
{
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const cfvRVert *a = &in[i], *b = &in[(i + 1) % n];
        float pa = axis ? a->y : a->x, pb = axis ? b->y : b->x;
        bool ia = keep_greater ? pa >= lim : pa <= lim, ib = keep_greater ? pb >= lim : pb <= lim;
        if (ia) out[m++] = *a;
        if (ia != ib) {
            float t = (lim - pa) / (pb - pa);
            cfvRVert v;
            v.x = a->x + t * (b->x - a->x);
            v.y = a->y + t * (b->y - a->y);
            v.iz = a->iz + t * (b->iz - a->iz);
            v.rgb = t < 0.5f ? a->rgb : b->rgb; /* huge triangles are flat-shaded in practice */
            out[m++] = v;
        }
    }
    return m;
}

void cfv_raster_tri(cfvRaster *R, const cfvRVert *a, const cfvRVert *b, const cfvRVert *c, unsigned mode)
{
    float minx = fminf(a->x, fminf(b->x, c->x)), maxx = fmaxf(a->x, fmaxf(b->x, c->x));
    float miny = fminf(a->y, fminf(b->y, c->y)), maxy = fmaxf(a->y, fmaxf(b->y, c->y));
    if (!(maxx >= 0 && maxy >= 0 && minx < (float)R->w && miny < (float)R->h)) return; /* off the image or NaN */
    if (minx > -GUARD && miny > -GUARD && maxx < R->w + GUARD && maxy < R->h + GUARD) {
        raster_tri(R, a, b, c, mode);
        return;
    }
    if (!isfinite(minx) || !isfinite(miny) || !isfinite(maxx) || !isfinite(maxy)) return;
    cfvRVert p[12], q[12];
    p[0] = *a, p[1] = *b, p[2] = *c;
    int n = 3;
    n = clip_side(p, n, q, 0, -GUARD / 2, true);
    n = clip_side(q, n, p, 0, R->w + GUARD / 2, false);
    n = clip_side(p, n, q, 1, -GUARD / 2, true);
    n = clip_side(q, n, p, 1, R->h + GUARD / 2, false);
    for (int i = 1; i + 1 < n; ++i) raster_tri(R, &p[0], &p[i], &p[i + 1], mode);
}

void cfv_raster_rect(cfvRaster *R, float x, float y, float half, float iz, Uint32 rgb, unsigned mode)
{
    int x0 = (int)floorf(x - half + 0.5f), x1 = (int)floorf(x + half - 0.5f);
    int y0 = (int)floorf(y - half + 0.5f), y1 = (int)floorf(y + half - 0.5f);
    if (!(x1 >= 0 && y1 >= 0 && x0 < R->w && y0 < R->h)) return;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > R->w - 1) x1 = R->w - 1;
    if (y1 > R->h - 1) y1 = R->h - 1;
    for (int yy = y0; yy <= y1; ++yy)
        for (int xx = x0; xx <= x1; ++xx) plot(R, (size_t)yy * (size_t)R->w + (size_t)xx, iz, rgb, mode);
}

/* Liang-Barsky clip of (a, b) to the image with a margin; false when nothing is left */
static bool clip_line(float *ax, float *ay, float *az, float *bx, float *by, float *bz, float x0, float y0, float x1,
                      float y1)
{
    float dx = *bx - *ax, dy = *by - *ay, dz = *bz - *az, t0 = 0, t1 = 1;
    const float p[4] = {-dx, dx, -dy, dy}, q[4] = {*ax - x0, x1 - *ax, *ay - y0, y1 - *ay};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0) {
            if (q[i] < 0) return false;
            continue;
        }
        float t = q[i] / p[i];
        if (p[i] < 0) t0 = t > t0 ? t : t0;
        else t1 = t < t1 ? t : t1;
        if (t0 > t1) return false;
    }
    float sx = *ax, sy = *ay, sz = *az;
    *ax = sx + t0 * dx, *ay = sy + t0 * dy, *az = sz + t0 * dz;
    *bx = sx + t1 * dx, *by = sy + t1 * dy, *bz = sz + t1 * dz;
    return true;
}

void cfv_raster_line(cfvRaster *R, float ax, float ay, float aiz, float bx, float by, float biz, float width, Uint32 rgb,
                     unsigned mode)
{
    if (!(isfinite(ax) && isfinite(ay) && isfinite(bx) && isfinite(by))) return;
    float m = width + 2;
    if (!clip_line(&ax, &ay, &aiz, &bx, &by, &biz, -m, -m, (float)R->w + m, (float)R->h + m)) return;
    float dx = bx - ax, dy = by - ay, l = sqrtf(dx * dx + dy * dy);
    if (width > 1.25f && l > 1e-3f) {
        /* a quad of the width, across the line */
        float nx = -dy / l * 0.5f * width, ny = dx / l * 0.5f * width;
        cfvRVert q[4] = {{ax + nx, ay + ny, aiz, rgb}, {bx + nx, by + ny, biz, rgb}, {bx - nx, by - ny, biz, rgb},
                         {ax - nx, ay - ny, aiz, rgb}};
        raster_tri(R, &q[0], &q[1], &q[2], mode);
        raster_tri(R, &q[0], &q[2], &q[3], mode);
        return;
    }
    /* one pixel wide: a step per pixel along the longer axis */
    int n = (int)ceilf(fmaxf(fabsf(dx), fabsf(dy)));
    if (n < 1) n = 1;
    float sx = dx / (float)n, sy = dy / (float)n, sz = (biz - aiz) / (float)n, x = ax, y = ay, z = aiz;
    for (int k = 0; k <= n; ++k, x += sx, y += sy, z += sz) {
        int ix = (int)floorf(x), iy = (int)floorf(y);
        if (ix >= 0 && iy >= 0 && ix < R->w && iy < R->h) plot(R, (size_t)iy * (size_t)R->w + (size_t)ix, z, rgb, mode);
    }
}

void cfv_raster_fill(cfvRaster *R, float x, float y, float w, float h, SDL_Color c)
{
    int x0 = (int)ceilf(x - 0.5f), x1 = (int)ceilf(x + w - 0.5f) - 1;
    int y0 = (int)ceilf(y - 0.5f), y1 = (int)ceilf(y + h - 0.5f) - 1;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > R->w - 1) x1 = R->w - 1;
    if (y1 > R->h - 1) y1 = R->h - 1;
    if (x0 > x1 || y0 > y1 || !R->color) return;
    Uint32 rgb = cfv_rgb(c), a = c.a + 1u, b = 256u - a; /* weights out of 256 */
    Uint32 s_rb = (rgb & 0xff00ffu) * a, s_g = (rgb & 0x00ff00u) * a;
    for (int yy = y0; yy <= y1; ++yy) {
        Uint32 *p = R->color + (size_t)yy * (size_t)R->w;
        if (c.a == 255) {
            for (int xx = x0; xx <= x1; ++xx) p[xx] = rgb;
            continue;
        }
        for (int xx = x0; xx <= x1; ++xx) { /* red and blue in one word, green in another */
            Uint32 d = p[xx];
            Uint32 rb = ((s_rb + (d & 0xff00ffu) * b) >> 8) & 0xff00ffu, g = ((s_g + (d & 0x00ff00u) * b) >> 8) & 0x00ff00u;
            p[xx] = rb | g;
        }
    }
}

bool cfv_raster_visible(const cfvRaster *R, float x, float y, float iz)
{
    int ix = (int)floorf(x), iy = (int)floorf(y);
    if (ix < 0 || iy < 0 || ix >= R->w || iy >= R->h) return false;
    return iz * (1.0f + R->bias) > R->depth[(size_t)iy * (size_t)R->w + (size_t)ix];
}

bool cfv_raster_present(cfvRaster *R, SDL_Renderer *r, SDL_Texture **tex, int *tex_w, int *tex_h)
{
    if (!R->color || R->w <= 0) return false;
    if (*tex && (*tex_w != R->w || *tex_h != R->h)) {
        SDL_DestroyTexture(*tex);
        *tex = NULL;
    }
    if (!*tex) {
        *tex = SDL_CreateTexture(r, SDL_PIXELFORMAT_RGB888, SDL_TEXTUREACCESS_STREAMING, R->w, R->h);
        if (!*tex) return false;
        SDL_SetTextureBlendMode(*tex, SDL_BLENDMODE_NONE);
        *tex_w = R->w;
        *tex_h = R->h;
    }
    if (SDL_UpdateTexture(*tex, NULL, R->color, R->w * (int)sizeof(Uint32)) != 0) return false;
    return SDL_RenderCopy(r, *tex, NULL, NULL) == 0;
}
