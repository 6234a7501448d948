/* SPDX-License-Identifier: MIT */
/* 3D drawing: orbit camera, shape meshes and the ground grid, into the rasterizer (raster.c). */
#include "cfview.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- colours ------------------------------------------------------------------------- */

const SDL_Color cfv_background = {28, 32, 40, 255};
const SDL_Color cfv_fixed_color = {150, 150, 150, 255};
static const SDL_Color ground_fill = {46, 51, 60, 255};
static const SDL_Color ground_line = {66, 73, 85, 255};
static const SDL_Color incline_fill = {78, 86, 101, 255};
static const SDL_Color incline_line = {98, 107, 124, 255};

/* distinct, readable on the dark background and in print */
static const SDL_Color palette[] = {
    {230, 126, 34, 255},  /* orange */
    {52, 152, 219, 255},  /* blue */
    {46, 204, 113, 255},  /* green */
    {231, 76, 60, 255},   /* red */
    {155, 89, 182, 255},  /* purple */
    {241, 196, 15, 255},  /* yellow */
    {26, 188, 156, 255},  /* teal */
    {236, 112, 160, 255}, /* pink */
};
#define N_PALETTE ((int)(sizeof palette / sizeof palette[0]))

SDL_Color cfv_object_color(int slot, int k)
{
    int i = (slot + k) % N_PALETTE;
    return palette[i < 0 ? i + N_PALETTE : i];
}

SDL_Color cfv_slot_color(int slot) { return cfv_object_color(slot, 0); }

static SDL_Color shade(SDL_Color c, double f)
{
    if (!(f > 0)) f = 0;
    SDL_Color o;
    double r = c.r * f, g = c.g * f, b = c.b * f;
    o.r = (Uint8)(r > 255 ? 255 : r);
    o.g = (Uint8)(g > 255 ? 255 : g);
    o.b = (Uint8)(b > 255 ? 255 : b);
    o.a = 255;
    return o;
}

/* ---- camera ---------------------------------------------------------------------------- */

#define DEG (CF_PI / 180.0)

cfvCamera cfv_camera_default(void)
{
    cfvCamera c;
    c.target = cfu_zero3();
    c.yaw = -90.0 * DEG; /* eye on -y, looking along +y: x to the right, z up */
    c.pitch = 20.0 * DEG;
    c.dist = 6.0;
    c.fov = 45.0 * DEG;
    return c;
}

cfvView cfv_view_make(const cfvCamera *cam, int w, int h, const SDL_FRect *area)
{
    cfvView v;
    double cp = cos(cam->pitch), sp = sin(cam->pitch);
    cfVec3 dir = cfu_vec3(cp * cos(cam->yaw), cp * sin(cam->yaw), sp); /* target -> eye */
    v.eye = cfu_mul_add(cam->target, cam->dist, dir);
    v.fwd = cfu_neg(dir);
    v.right = cfu_normalize(cfu_cross(v.fwd, cfu_vec3(0, 0, 1)));
    if (cfu_norm2(v.right) == 0) v.right = cfu_vec3(1, 0, 0);
    v.up = cfu_cross(v.right, v.fwd);
    v.w = w;
    v.h = h;
    v.cx = area ? area->x + 0.5 * area->w : 0.5 * w;
    v.cy = area ? area->y + 0.5 * area->h : 0.5 * h;
    v.focal = 0.5 * h / tan(0.5 * cam->fov);
    v.near = fmax(1e-3, 1e-3 * cam->dist);
    return v;
}

cfVec3 cfv_view_to_cam(const cfvView *v, cfVec3 p)
{
    cfVec3 d = cfu_sub(p, v->eye);
    return cfu_vec3(cfu_dot(d, v->right), cfu_dot(d, v->up), cfu_dot(d, v->fwd));
}

bool cfv_view_project(const cfvView *v, cfVec3 p, float *sx, float *sy)
{
    cfVec3 c = cfv_view_to_cam(v, p);
    if (!(c.z > v->near)) return false;
    *sx = (float)(v->cx + v->focal * c.x / c.z);
    *sy = (float)(v->cy - v->focal * c.y / c.z);
    return true;
}

void cfv_camera_orbit(cfvCamera *cam, double dyaw, double dpitch)
{
    cam->yaw = fmod(cam->yaw + dyaw, 2 * CF_PI);
    cam->pitch += dpitch;
    double lim = 89.0 * DEG;
    if (cam->pitch > lim) cam->pitch = lim;
    if (cam->pitch < -lim) cam->pitch = -lim;
}

void cfv_camera_pan(cfvCamera *cam, int w, int h, double dx_px, double dy_px)
{
    cfvView v = cfv_view_make(cam, w, h, NULL);
    double s = cam->dist / v.focal; /* metres per pixel at the target */
    cam->target = cfu_mul_add(cam->target, -dx_px * s, v.right);
    cam->target = cfu_mul_add(cam->target, dy_px * s, v.up);
}

void cfv_camera_zoom(cfvCamera *cam, double factor)
{
    cam->dist *= factor;
    if (cam->dist < 0.05) cam->dist = 0.05;
    if (cam->dist > 1e4) cam->dist = 1e4;
}

static double shape_bound(const cfShape *s)
{
    switch (s->type) {
    case CF_SHAPE_SPHERE: return s->radius;
    case CF_SHAPE_BOX: return cfu_norm(s->half_extents);
    case CF_SHAPE_CAPSULE: return s->radius + s->half_height;
    default: return 0;
    }
}

void cfv_run_box(const cfvRun *run, cfVec3 *lo_out, cfVec3 *hi_out)
{
    cfVec3 lo = cfu_vec3(DBL_MAX, DBL_MAX, DBL_MAX), hi = cfu_vec3(-DBL_MAX, -DBL_MAX, -DBL_MAX);
    bool any = false;
#define GROW(p, r)                                                                             \
    do {                                                                                       \
        cfVec3 p_ = (p);                                                                       \
        double r_ = (r);                                                                       \
        if (!cfu_vec3_finite(p_) || !isfinite(r_)) break;                                      \
        lo = cfu_vec3(fmin(lo.x, p_.x - r_), fmin(lo.y, p_.y - r_), fmin(lo.z, p_.z - r_));    \
        hi = cfu_vec3(fmax(hi.x, p_.x + r_), fmax(hi.y, p_.y + r_), fmax(hi.z, p_.z + r_));    \
        any = true;                                                                            \
    } while (0)
    for (int s = 0; s < run->n_slots; ++s) {
        const cfWorld *w = &run->slot[s].w;
        cfVec3 off = run->slot[s].offset;
        for (int i = 0; i < w->n_bodies; ++i) {
            const cfRigidBody *b = &w->bodies[i];
            if (b->shape.type == CF_SHAPE_PLANE) continue;
            GROW(cfu_add(b->x, off), shape_bound(&b->shape));
        }
        for (int k = 0; k < w->n_soft; ++k) {
            const cfSoftBody *sb = &w->soft[k];
            for (int i = 0; i < sb->n_nodes; ++i) GROW(cfu_add(sb->x[i], off), 0.05);
        }
    }
#undef GROW
    if (!any) {
        lo = cfu_vec3(-0.5, -0.5, -0.5);
        hi = cfu_vec3(0.5, 0.5, 0.5);
    }
    *lo_out = lo;
    *hi_out = hi;
}

void cfv_run_bounds(const cfvRun *run, cfVec3 *centre, double *radius)
{
    cfVec3 lo, hi;
    cfv_run_box(run, &lo, &hi);
    *centre = cfu_scale(0.5, cfu_add(lo, hi));
    *radius = fmax(0.25, 0.5 * cfu_norm(cfu_sub(hi, lo)));
}

void cfv_camera_fit(cfvCamera *cam, const cfvRun *run, int w, int h, const SDL_FRect *area)
{
    cfVec3 lo, hi;
    cfv_run_box(run, &lo, &hi);
    cfv_camera_fit_box(cam, lo, hi, w, h, area);
}

void cfv_camera_fit_box(cfvCamera *cam, cfVec3 lo, cfVec3 hi, int w, int h, const SDL_FRect *area)
{
    cfVec3 e = cfu_scale(0.5, cfu_sub(hi, lo));
    cfvCamera unit = *cam;
    unit.dist = 1.0;
    cfvView v = cfv_view_make(&unit, w, h, area);
    /* half extents of the box along the camera axes */
    double er = fabs(v.right.x) * e.x + fabs(v.right.y) * e.y + fabs(v.right.z) * e.z;
    double eu = fabs(v.up.x) * e.x + fabs(v.up.y) * e.y + fabs(v.up.z) * e.z;
    double ef = fabs(v.fwd.x) * e.x + fabs(v.fwd.y) * e.y + fabs(v.fwd.z) * e.z;
    double aw = area ? area->w : w, ah = area ? area->h : h;
    double tx = 0.5 * aw / v.focal, ty = 0.5 * ah / v.focal;
    cam->target = cfu_scale(0.5, cfu_add(lo, hi));
    cam->dist = fmax(0.5, 1.08 * fmax(er / tx, eu / ty) + ef);
}

/* ---- buffers --------------------------------------------------------------------------- */

static bool grow(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap) return true;
    int c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}
#define GROW_BUF(ptr, cap, need) grow((void **)&(ptr), &(cap), (need), sizeof *(ptr))

void cfv_draw_release(cfvDraw *d)
{
    d->tex = NULL; /* destroyed with its renderer */
    d->tex_owner = NULL;
}

void cfv_draw_free(cfvDraw *d)
{
    if (d->tex) SDL_DestroyTexture(d->tex);
    cfv_raster_free(&d->raster);
    free(d->scratch);
    free(d->scratch_n);
    free(d->heat);
    memset(d, 0, sizeof *d);
}

bool cfv_draw_begin(cfvDraw *d, const cfvView *view, bool ids)
{
    d->tris_drawn = d->tris_culled = 0;
    return cfv_raster_begin(&d->raster, view->w, view->h, cfv_background, ids);
}

bool cfv_draw_present(cfvDraw *d, SDL_Renderer *r)
{
    if (d->tex && d->tex_owner != r) {
        SDL_DestroyTexture(d->tex);
        d->tex = NULL;
    }
    bool ok = cfv_raster_present(&d->raster, r, &d->tex, &d->tex_w, &d->tex_h);
    d->tex_owner = d->tex ? r : NULL;
    return ok;
}

/* light direction in camera coordinates (right, up, depth): from the upper left, behind the eye */
static const cfVec3 LIGHT = {-0.42, 0.62, -0.66};
#define AMBIENT 0.34
#define DIFFUSE 0.66

static double light(cfVec3 n_cam)
{
    double d = cfu_dot(n_cam, LIGHT);
    return AMBIENT + DIFFUSE * (d > 0 ? d : 0);
}

/* camera-space affine map: c = M p_body + t */
typedef struct Xf {
    double m[3][3];
    cfVec3 t;
} Xf;

static inline cfVec3 xf_apply(const Xf *x, cfVec3 p)
{
    return cfu_vec3(x->m[0][0] * p.x + x->m[0][1] * p.y + x->m[0][2] * p.z + x->t.x,
                    x->m[1][0] * p.x + x->m[1][1] * p.y + x->m[1][2] * p.z + x->t.y,
                    x->m[2][0] * p.x + x->m[2][1] * p.y + x->m[2][2] * p.z + x->t.z);
}

static inline cfVec3 xf_dir(const Xf *x, cfVec3 p)
{
    return cfu_vec3(x->m[0][0] * p.x + x->m[0][1] * p.y + x->m[0][2] * p.z,
                    x->m[1][0] * p.x + x->m[1][1] * p.y + x->m[1][2] * p.z,
                    x->m[2][0] * p.x + x->m[2][1] * p.y + x->m[2][2] * p.z);
}

/* rotation part B R (no scale) and translation B (x - eye) of a body */
static Xf body_xf(const cfvView *v, cfQuat q, cfVec3 x)
{
    cfMat3 R = cfu_quat_to_mat3(cfu_quat_normalize(q));
    Xf f;
    cfVec3 rows[3] = {v->right, v->up, v->fwd};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            f.m[i][j] = rows[i].x * R.m[0][j] + rows[i].y * R.m[1][j] + rows[i].z * R.m[2][j];
    f.t = cfv_view_to_cam(v, x);
    return f;
}

static inline bool visible_sphere(const cfvView *v, cfVec3 c, double r)
{
    if (c.z + r < v->near) return false;
    double z = c.z > v->near ? c.z : v->near;
    double ax = (v->cx + 2) * z / v->focal + r * 1.5, ay = (v->cy + 2) * z / v->focal + r * 1.5;
    return fabs(c.x) <= ax && fabs(c.y) <= ay;
}

/* a camera-space point as a rasterizer vertex */
static inline cfvRVert rv(const cfvView *v, cfVec3 c, Uint32 rgb)
{
    double iz = 1.0 / c.z;
    cfvRVert o;
    o.x = (float)(v->cx + v->focal * c.x * iz);
    o.y = (float)(v->cy - v->focal * c.y * iz);
    o.iz = (float)iz;
    o.rgb = rgb;
    return o;
}

/* how bodies are drawn: opaque (depth tested and written), the id pass (no colour) or glass */
typedef struct Pen {
    unsigned mode;
    bool glass;
} Pen;

/* ---- boxes: 6 faces, the visible ones (at most 3) as flat-shaded quads ----------------- */

static void draw_box(cfvDraw *d, const cfvView *v, cfVec3 x, cfQuat q, cfVec3 he, SDL_Color base, const Pen *pen)
{
    Xf f = body_xf(v, q, x);
    double r = cfu_norm(he);
    if (!visible_sphere(v, f.t, r)) {
        d->tris_culled += 12;
        return;
    }
    /* scaled axes in camera space */
    cfVec3 ax[3];
    for (int j = 0; j < 3; ++j) {
        double h = cfu_vec3_at(he, j);
        ax[j] = cfu_vec3(f.m[0][j] * h, f.m[1][j] * h, f.m[2][j] * h);
    }
    /* the 8 corners: bit j set means +axis j */
    cfVec3 cc[8];
    for (int k = 0; k < 8; ++k) {
        cfVec3 c = f.t;
        for (int j = 0; j < 3; ++j) c = cfu_mul_add(c, (k >> j) & 1 ? 1.0 : -1.0, ax[j]);
        if (c.z < v->near) {
            d->tris_culled += 12; /* crosses the near plane: skip the body */
            return;
        }
        cc[k] = c;
    }
    /* face (axis j, sign s): corners CCW about the outward normal */
    static const int faces[6][4] = {
        {1, 3, 7, 5}, {0, 4, 6, 2}, /* +x, -x */
        {2, 6, 7, 3}, {0, 1, 5, 4}, /* +y, -y */
        {4, 5, 7, 6}, {0, 2, 3, 1}, /* +z, -z */
    };
    cfvRaster *R = &d->raster;
    for (int fi = 0; fi < 6; ++fi) {
        int j = fi / 2;
        double s = fi % 2 ? -1.0 : 1.0;
        cfVec3 n = cfu_vec3(s * f.m[0][j], s * f.m[1][j], s * f.m[2][j]); /* unit, camera */
        cfVec3 centre = cfu_mul_add(f.t, s, ax[j]);
        if (cfu_dot(n, centre) >= 0) {
            d->tris_culled += 2;
            continue;
        }
        Uint32 c = cfv_rgb(shade(base, light(n)));
        const int *fc = faces[fi];
        cfvRVert p0 = rv(v, cc[fc[0]], c), p1 = rv(v, cc[fc[1]], c), p2 = rv(v, cc[fc[2]], c), p3 = rv(v, cc[fc[3]], c);
        cfv_raster_tri(R, &p0, &p1, &p2, pen->mode);
        cfv_raster_tri(R, &p0, &p2, &p3, pen->mode);
        d->tris_drawn += 2;
    }
    if (pen->glass) {
        /* glass shows its edges */
        static const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                         {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
        Uint32 c = cfv_rgb(shade(base, 1.15));
        float bias = R->bias;
        R->bias = 0.002f;
        for (int e = 0; e < 12; ++e) {
            cfvRVert a = rv(v, cc[edges[e][0]], c), b = rv(v, cc[edges[e][1]], c);
            cfv_raster_line(R, a.x, a.y, a.iz, b.x, b.y, b.iz, 1.0f, c, CFV_R_TEST);
        }
        R->bias = bias;
    }
}

/* ---- spheres and capsules: a latitude-longitude grid with smooth shading ---------------- */

#define SLICES 20
#define HEMI 6 /* rings from a pole to the equator */

static void draw_round(cfvDraw *d, const cfvView *v, cfVec3 x, cfQuat q, double radius, double half_h,
                       SDL_Color base, bool stripes, const Pen *pen)
{
    Xf f = body_xf(v, q, x);
    if (!visible_sphere(v, f.t, radius + half_h)) {
        d->tris_culled += 2 * SLICES * (2 * HEMI + 1);
        return;
    }
    /* rings: upper hemisphere shifted +half_h, lower -half_h; the equator is doubled so that a
       capsule gets its cylinder band (for a sphere that band has zero height) */
    enum { RINGS = 2 * (HEMI + 1), NV = RINGS * SLICES };
    if (!GROW_BUF(d->scratch, d->cap_scratch, NV) || !GROW_BUF(d->scratch_n, d->cap_scratch_n, NV)) return;
    static double cphi[SLICES], sphi[SLICES], cth[RINGS], sth[RINGS], shift[RINGS];
    static bool init = false;
    if (!init) {
        for (int k = 0; k < SLICES; ++k) {
            cphi[k] = cos(2 * CF_PI * k / SLICES);
            sphi[k] = sin(2 * CF_PI * k / SLICES);
        }
        for (int j = 0; j < RINGS; ++j) {
            int a = j <= HEMI ? j : j - 1; /* polar angle index 0..2*HEMI */
            double th = CF_PI * a / (2 * HEMI);
            cth[j] = cos(th);
            sth[j] = sin(th);
            shift[j] = j <= HEMI ? 1.0 : -1.0;
        }
        init = true;
    }
    cfVec3 *P = d->scratch, *N = d->scratch_n;
    for (int j = 0; j < RINGS; ++j)
        for (int k = 0; k < SLICES; ++k) {
            cfVec3 n = cfu_vec3(sth[j] * cphi[k], sth[j] * sphi[k], cth[j]);
            cfVec3 p = cfu_vec3(radius * n.x, radius * n.y, radius * n.z + shift[j] * half_h);
            P[j * SLICES + k] = xf_apply(&f, p);
            N[j * SLICES + k] = xf_dir(&f, n);
            if (P[j * SLICES + k].z < v->near) {
                d->tris_culled += 2 * SLICES * (RINGS - 1);
                return;
            }
        }
    cfvRVert V[NV];
    for (int j = 0; j < RINGS; ++j)
        for (int k = 0; k < SLICES; ++k) {
            double stripe = (stripes && ((k * 4 / SLICES) & 1)) ? 0.8 : 1.0;
            V[j * SLICES + k] = rv(v, P[j * SLICES + k], cfv_rgb(shade(base, stripe * light(N[j * SLICES + k]))));
        }
    for (int j = 0; j + 1 < RINGS; ++j)
        for (int k = 0; k < SLICES; ++k) {
            int k1 = (k + 1) % SLICES;
            int a = j * SLICES + k, b = (j + 1) * SLICES + k, c = j * SLICES + k1, e = (j + 1) * SLICES + k1;
            /* (a, b, c) and (c, b, e) are CCW about the outward normal */
            const int tri[2][3] = {{a, b, c}, {c, b, e}};
            for (int t = 0; t < 2; ++t) {
                cfVec3 A = P[tri[t][0]], B = P[tri[t][1]], C = P[tri[t][2]];
                /* camera coordinates are left-handed: the outward normal is -(B-A)x(C-A) there,
                   and the face is visible when it points at the eye (the origin) */
                cfVec3 cr = cfu_cross(cfu_sub(B, A), cfu_sub(C, A));
                if (!(cfu_dot(cr, A) > 0)) {
                    d->tris_culled++;
                    continue;
                }
                cfv_raster_tri(&d->raster, &V[tri[t][0]], &V[tri[t][1]], &V[tri[t][2]], pen->mode);
                d->tris_drawn++;
            }
        }
}

/* ---- soft bodies ----------------------------------------------------------------------- */

/* a line of width px between two camera-space points */
static void segment(cfvDraw *d, const cfvView *v, cfVec3 a, cfVec3 b, float px, SDL_Color c, const Pen *pen)
{
    if (a.z < v->near || b.z < v->near) return;
    cfvRVert A = rv(v, a, 0), B = rv(v, b, 0);
    cfv_raster_line(&d->raster, A.x, A.y, A.iz, B.x, B.y, B.iz, px, cfv_rgb(c), pen->mode);
}

static SDL_Color mix(SDL_Color a, SDL_Color b, float t)
{
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return (SDL_Color){(Uint8)(a.r + t * (b.r - a.r)), (Uint8)(a.g + t * (b.g - a.g)), (Uint8)(a.b + t * (b.b - a.b)), 255};
}

static bool finite_nodes(const cfSoftBody *s)
{
    for (int i = 0; i < s->n_nodes; ++i)
        if (!cfu_vec3_finite(s->x[i])) return false;
    return true;
}

/* a length scale for the markers of soft body @p s: the mean rest length of its first springs and
   surface edges (0.2 m without either) */
static double marker_length(const cfSoftBody *s)
{
    double mean = 0;
    int cnt = 0;
    for (int k = 0; k < s->n_springs && k < 64; ++k, ++cnt) mean += s->springs[k].rest;
    for (int t = 0; t < s->n_tris && t < 64; ++t) {
        const int *tr = s->tris[t];
        if (tr[0] < 0 || tr[1] < 0 || tr[0] >= s->n_nodes || tr[1] >= s->n_nodes) continue;
        mean += cfu_norm(cfu_sub(s->x_rest ? s->x_rest[tr[0]] : s->x[tr[0]], s->x_rest ? s->x_rest[tr[1]] : s->x[tr[1]]));
        cnt++;
    }
    return cnt ? mean / cnt : 0.2;
}

/* the deformation overlay of soft body @p s: each node's distance from its place in @p ref (NULL: its
   rest shape) moved with the body's centre, as a weight in [0, 1] towards yellow, the largest (at
   least 0.5 mm) full; in d->heat, or NULL when the overlay is off or there is nothing to compare */
static float *deformation_heat(cfvDraw *d, const cfSoftBody *s, const cfVec3 *ref)
{
    if (!ref) ref = s->x_rest;
    if (!(d->overlays & CFV_OV_DEFORMATION) || !ref || !GROW_BUF(d->heat, d->cap_heat, s->n_nodes)) return NULL;
    float *heat = d->heat;
    cfVec3 c = cfu_zero3(), c0 = cfu_zero3();
    for (int i = 0; i < s->n_nodes; ++i) {
        c = cfu_add(c, s->x[i]);
        c0 = cfu_add(c0, ref[i]);
    }
    cfVec3 shift = cfu_scale(1.0 / s->n_nodes, cfu_sub(c, c0));
    double big = 5e-4;
    for (int i = 0; i < s->n_nodes; ++i) {
        heat[i] = (float)cfu_norm(cfu_sub(s->x[i], cfu_add(ref[i], shift)));
        big = fmax(big, heat[i]);
    }
    for (int i = 0; i < s->n_nodes; ++i) heat[i] = (float)(heat[i] / big);
    return heat;
}

static void draw_soft(cfvDraw *d, const cfvView *v, const cfSoftBody *s, const cfVec3 *ref, cfVec3 off, SDL_Color base,
                      const Pen *pen)
{
    if (s->n_nodes <= 0 || !finite_nodes(s)) return;
    if (!GROW_BUF(d->scratch, d->cap_scratch, s->n_nodes)) return;
    cfVec3 *P = d->scratch;
    for (int i = 0; i < s->n_nodes; ++i) P[i] = cfv_view_to_cam(v, cfu_add(s->x[i], off));

    double node_r = fmax(0.01, 0.12 * marker_length(s));
    float *heat = deformation_heat(d, s, ref);
    SDL_Color hot = {255, 226, 70, 255};

    if (s->n_tris > 0) {
        bool closed = s->n_tets > 0;
        for (int t = 0; t < s->n_tris; ++t) {
            const int *tr = s->tris[t];
            if (tr[0] < 0 || tr[1] < 0 || tr[2] < 0 || tr[0] >= s->n_nodes || tr[1] >= s->n_nodes ||
                tr[2] >= s->n_nodes)
                continue;
            cfVec3 A = P[tr[0]], B = P[tr[1]], C = P[tr[2]];
            if (A.z < v->near || B.z < v->near || C.z < v->near) {
                d->tris_culled++;
                continue;
            }
            cfVec3 cr = cfu_cross(cfu_sub(B, A), cfu_sub(C, A));
            if (!(cfu_dot(cr, A) > 0)) {
                /* a closed surface (of a volume) hides its back faces; a sheet shows both sides */
                if (closed) {
                    d->tris_culled++;
                    continue;
                }
                cr = cfu_neg(cr);
            }
            double li = light(cfu_normalize(cfu_neg(cr)));
            Uint32 c = cfv_rgb(shade(base, li)), ca = c, cb = c, ce = c;
            if (heat) {
                ca = cfv_rgb(shade(mix(base, hot, heat[tr[0]]), li));
                cb = cfv_rgb(shade(mix(base, hot, heat[tr[1]]), li));
                ce = cfv_rgb(shade(mix(base, hot, heat[tr[2]]), li));
            }
            cfvRVert a = rv(v, A, ca), b = rv(v, B, cb), e = rv(v, C, ce);
            cfv_raster_tri(&d->raster, &a, &b, &e, pen->mode);
            d->tris_drawn++;
        }
        /* clamped nodes as small grey cubes */
        for (int i = 0; i < s->n_nodes; ++i)
            if (s->fixed && s->fixed[i])
                draw_box(d, v, cfu_add(s->x[i], off), cfu_quat_identity(),
                         cfu_vec3(0.5 * node_r, 0.5 * node_r, 0.5 * node_r), cfv_fixed_color, pen);
        return;
    }

    /* no surface: springs as zig-zag coils, nodes as small balls (fixed nodes as grey cubes) */
    SDL_Color coil = shade(base, 0.8);
    for (int k = 0; k < s->n_springs; ++k) {
        const cfSpring *sp = &s->springs[k];
        if (sp->i < 0 || sp->j < 0 || sp->i >= s->n_nodes || sp->j >= s->n_nodes) continue;
        cfVec3 a = cfu_add(s->x[sp->i], off), b = cfu_add(s->x[sp->j], off);
        cfVec3 ab = cfu_sub(b, a);
        double l = cfu_norm(ab);
        if (!(l > 0)) continue;
        /* zig-zag across the spring, in the plane that faces the camera */
        cfVec3 side = cfu_normalize(cfu_cross(ab, v->fwd));
        if (cfu_norm2(side) == 0) side = v->right;
        double amp = 0.35 * node_r;
        enum { Z = 12 };
        cfVec3 prev = a;
        for (int z = 1; z <= Z + 1; ++z) {
            cfVec3 p;
            if (z == Z + 1) {
                p = b;
            } else {
                double f = (z - 0.5) / Z;
                p = cfu_mul_add(cfu_mul_add(a, f, ab), (z & 1) ? amp : -amp, side);
                if (z == 1) {
                    segment(d, v, cfv_view_to_cam(v, a), cfv_view_to_cam(v, cfu_mul_add(a, 0.5 / Z, ab)), 2.0f, coil, pen);
                    prev = cfu_mul_add(a, 0.5 / Z, ab);
                }
            }
            segment(d, v, cfv_view_to_cam(v, prev), cfv_view_to_cam(v, p), 2.0f, coil, pen);
            prev = p;
        }
    }
    bool particles = s->n_springs == 0; /* nodes alone: drawn 10 pixels in radius at least, whatever the distance */
    for (int i = 0; i < s->n_nodes; ++i) {
        cfVec3 p = cfu_add(s->x[i], off);
        double r = particles ? fmax(node_r, 10.0 * fmax(P[i].z, v->near) / v->focal) : node_r;
        if (particles && !(s->fixed && s->fixed[i])) {
            draw_round(d, v, p, cfu_quat_identity(), r, 0, base, false, pen);
            continue;
        }
        if (s->fixed && s->fixed[i])
            draw_box(d, v, p, cfu_quat_identity(), cfu_vec3(0.6 * node_r, 0.6 * node_r, 0.6 * node_r), cfv_fixed_color, pen);
        else
            draw_round(d, v, p, cfu_quat_identity(), node_r, 0, base, false, pen);
    }
}

/* ---- ground planes: a filled square around the target and grid lines -------------------- */

/* clip a convex polygon (camera space) to depth >= near; returns the new vertex count */
static int clip_near(const cfVec3 *in, int n, cfVec3 *out, double near)
{
    int m = 0;
    for (int i = 0; i < n; ++i) {
        cfVec3 a = in[i], b = in[(i + 1) % n];
        bool ia = a.z >= near, ib = b.z >= near;
        if (ia) out[m++] = a;
        if (ia != ib) {
            double t = (near - a.z) / (b.z - a.z);
            out[m++] = cfu_mul_add(a, t, cfu_sub(b, a));
        }
    }
    return m;
}

/* a camera-space segment clipped at the near plane, one pixel wide, hidden behind bodies */
static void line_cam(cfvDraw *d, const cfvView *v, cfVec3 a, cfVec3 b, Uint32 rgb)
{
    if (a.z < v->near && b.z < v->near) return;
    if (a.z < v->near) a = cfu_mul_add(a, (v->near - a.z) / (b.z - a.z), cfu_sub(b, a));
    if (b.z < v->near) b = cfu_mul_add(b, (v->near - b.z) / (a.z - b.z), cfu_sub(a, b));
    cfvRVert A = rv(v, a, rgb), B = rv(v, b, rgb);
    cfv_raster_line(&d->raster, A.x, A.y, A.iz, B.x, B.y, B.iz, 1.0f, rgb, CFV_R_TEST);
}

/* a plane: a square around the target (the whole view), or with @p local > 0 a square of that half
   size around it (a tilted plane of one of several worlds side by side: an incline that reached
   into the neighbour's world would hide it) */
static void draw_plane(cfvDraw *d, const cfvView *v, const cfShape *s, cfVec3 target, double scene_r, cfVec3 off,
                       double local)
{
    cfVec3 n = cfu_normalize(s->normal);
    if (cfu_norm2(n) == 0) return;
    double d0 = s->offset + cfu_dot(n, off);
    if (cfu_dot(n, v->eye) <= d0) return; /* seen from below */
    /* tangent basis; for a z-up plane t1 = x, t2 = y so the grid follows the world axes */
    cfVec3 t1 = fabs(n.z) > 0.9 ? cfu_vec3(1, 0, 0) : cfu_vec3(0, 0, 1);
    t1 = cfu_normalize(cfu_sub(t1, cfu_scale(cfu_dot(t1, n), n)));
    cfVec3 t2 = cfu_cross(n, t1);
    double dist = cfu_norm(cfu_sub(v->eye, target));
    double half = local > 0 ? local : fmax(3.0 * scene_r, 8.0 * dist);
    double cell = pow(10.0, floor(log10(half / 4.0)));
    if (half / cell > 40) cell *= 5;
    else if (half / cell > 20) cell *= 2;
    int nc = (int)ceil(half / cell);
    half = nc * cell;
    /* centre: the target projected onto the plane, snapped to the grid */
    cfVec3 o = cfu_scale(d0, n);
    cfVec3 tp = cfu_sub(target, o);
    double u0 = cell * floor(cfu_dot(tp, t1) / cell + 0.5), w0 = cell * floor(cfu_dot(tp, t2) / cell + 0.5);
    cfVec3 c = cfu_add(o, cfu_add(cfu_scale(u0, t1), cfu_scale(w0, t2)));

    /* a tilted plane (an incline) is lighter than the floor, so that it stands out from the background */
    Uint32 fill = cfv_rgb(n.z > 0.999 ? ground_fill : incline_fill);
    cfVec3 quad[4], clipped[8];
    const double sg[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int i = 0; i < 4; ++i)
        quad[i] = cfv_view_to_cam(v, cfu_add(c, cfu_add(cfu_scale(sg[i][0] * half, t1), cfu_scale(sg[i][1] * half, t2))));
    int m = clip_near(quad, 4, clipped, v->near);
    if (m >= 3) {
        cfvRVert p0 = rv(v, clipped[0], fill);
        for (int i = 1; i + 1 < m; ++i) {
            cfvRVert p1 = rv(v, clipped[i], fill), p2 = rv(v, clipped[i + 1], fill);
            cfv_raster_tri(&d->raster, &p0, &p1, &p2, CFV_R_TEST | CFV_R_WRITE);
        }
    }
    /* the grid lies on the plane: a small tolerance lets it pass the plane's own depth */
    float bias = d->raster.bias;
    d->raster.bias = 1e-4f;
    Uint32 line = cfv_rgb(n.z > 0.999 ? ground_line : incline_line);
    for (int i = -nc; i <= nc; ++i) {
        cfVec3 a1 = cfu_add(c, cfu_add(cfu_scale(i * cell, t1), cfu_scale(-half, t2)));
        cfVec3 b1 = cfu_add(c, cfu_add(cfu_scale(i * cell, t1), cfu_scale(half, t2)));
        cfVec3 a2 = cfu_add(c, cfu_add(cfu_scale(-half, t1), cfu_scale(i * cell, t2)));
        cfVec3 b2 = cfu_add(c, cfu_add(cfu_scale(half, t1), cfu_scale(i * cell, t2)));
        line_cam(d, v, cfv_view_to_cam(v, a1), cfv_view_to_cam(v, b1), line);
        line_cam(d, v, cfv_view_to_cam(v, a2), cfv_view_to_cam(v, b2), line);
    }
    d->raster.bias = bias;
}

/* ---- the frame --------------------------------------------------------------------------- */

static bool is_glass(const cfvRun *run, int slot, int index, bool soft)
{
    for (int g = 0; g < run->n_glass; ++g)
        if (run->glass[g].slot == slot && run->glass[g].body == index && run->glass[g].soft == soft) return true;
    return false;
}

static void draw_body(cfvDraw *d, const cfvView *view, const cfRigidBody *b, cfVec3 x, SDL_Color col, const Pen *pen)
{
    switch (b->shape.type) {
    case CF_SHAPE_BOX: draw_box(d, view, x, b->q, b->shape.half_extents, col, pen); break;
    case CF_SHAPE_SPHERE: draw_round(d, view, x, b->q, b->shape.radius, 0, col, true, pen); break;
    case CF_SHAPE_CAPSULE: draw_round(d, view, x, b->q, b->shape.radius, b->shape.half_height, col, true, pen); break;
    default: break;
    }
}

void cfv_draw_worlds(cfvDraw *d, const cfvView *view, const cfvRun *run)
{
    cfvRaster *R = &d->raster;
    cfVec3 centre;
    double scene_r;
    cfv_run_bounds(run, &centre, &scene_r);
    cfVec3 target = cfu_mul_add(view->eye, cfu_dot(cfu_sub(centre, view->eye), view->fwd), view->fwd);
    bool only = d->keep != NULL;
    Pen solid = {CFV_R_TEST | CFV_R_WRITE | (only ? CFV_R_NOCOLOR : 0u), false};

    /* planes first: each plane once, however many worlds share it */
    cfVec3 seen_n[8];
    double seen_d[8];
    int n_seen = 0;
    R->cur_id = 0;
    for (int s = 0; s < run->n_slots && !only; ++s) {
        const cfWorld *w = &run->slot[s].w;
        for (int i = 0; i < w->n_bodies; ++i) {
            const cfShape *sh = &w->bodies[i].shape;
            if (sh->type != CF_SHAPE_PLANE) continue;
            cfVec3 n = cfu_normalize(sh->normal);
            double d0 = sh->offset + cfu_dot(n, run->slot[s].offset);
            double local = 0;
            cfVec3 at = target;
            if (run->n_slots > 1 && n.z < 0.999) { /* around this world's objects, their paths and regions */
                cfVec3 lo = cfu_vec3(1e300, 1e300, 1e300), hi = cfu_scale(-1, lo);
#define LOCAL_GROW(p)                                                                                    \
    do {                                                                                                 \
        cfVec3 p_ = (p);                                                                                 \
        if (!cfu_vec3_finite(p_)) break;                                                                 \
        lo = cfu_vec3(fmin(lo.x, p_.x), fmin(lo.y, p_.y), fmin(lo.z, p_.z));                             \
        hi = cfu_vec3(fmax(hi.x, p_.x), fmax(hi.y, p_.y), fmax(hi.z, p_.z));                             \
    } while (0)
                for (int k = 0; k < w->n_bodies; ++k)
                    if (w->bodies[k].shape.type != CF_SHAPE_PLANE) LOCAL_GROW(w->bodies[k].x);
                for (int k = 0; k < w->n_soft; ++k)
                    for (int j = 0; j < w->soft[k].n_nodes; ++j) LOCAL_GROW(w->soft[k].x[j]);
                for (int k = 0; k < run->n_trails; ++k)
                    for (int j = 0; run->trail[k].slot == s && j < run->trail[k].n; ++j) LOCAL_GROW(run->trail[k].p[j]);
                for (int k = 0; k < run->n_subjects; ++k)
                    if (run->subject[k].slot == s && run->subject[k].kind == CFV_SUBJECT_REGION) {
                        LOCAL_GROW(run->subject[k].lo);
                        LOCAL_GROW(run->subject[k].hi);
                    }
#undef LOCAL_GROW
                if (lo.x <= hi.x) {
                    at = cfu_add(cfu_scale(0.5, cfu_add(lo, hi)), run->slot[s].offset);
                    local = 0.5 * cfu_norm(cfu_sub(hi, lo)) + 0.25;
                }
            }
            bool dup = false; /* a floor shared by the worlds: drawn once */
            for (int k = 0; k < n_seen && !dup && local == 0; ++k)
                dup = cfu_norm(cfu_sub(seen_n[k], n)) < 1e-9 && fabs(seen_d[k] - d0) < 1e-9;
            if (dup) continue;
            if (n_seen < 8 && local == 0) {
                seen_n[n_seen] = n;
                seen_d[n_seen++] = d0;
            }
            draw_plane(d, view, sh, at, scene_r, run->slot[s].offset, local);
        }
    }

    for (int pass = 0; pass < 2; ++pass) {
        /* pass 0: everything solid; pass 1: glass, over it, without hiding anything */
        if (pass == 1 && (only || run->n_glass == 0)) break;
        Pen glass = {CFV_R_TEST | CFV_R_BLEND, true};
        R->alpha = 0.22f;
        for (int s = 0; s < run->n_slots; ++s) {
            const cfvSlot *sl = &run->slot[s];
            const cfWorld *w = &sl->w;
            int k = 0; /* dynamic objects of this world, for colours */
            for (int i = 0; i < w->n_bodies; ++i) {
                const cfRigidBody *b = &w->bodies[i];
                if (b->shape.type == CF_SHAPE_PLANE) continue;
                SDL_Color col = b->fixed ? cfv_fixed_color : cfv_object_color(s, k++);
                if (!cfu_vec3_finite(b->x) || !cfu_quat_finite(b->q)) continue;
                bool g = is_glass(run, s, i, false);
                if (g != (pass == 1)) continue;
                Uint32 id = CFV_ID(s, 0, i);
                if (only && !d->keep(d->keep_ctx, id)) continue;
                R->cur_id = g ? 0 : id;
                draw_body(d, view, b, cfu_add(b->x, sl->offset), col, g ? &glass : &solid);
            }
            for (int i = 0; i < w->n_soft; ++i) {
                Uint32 id = CFV_ID(s, 1, i);
                SDL_Color col = cfv_object_color(s, k++);
                bool g = is_glass(run, s, i, true);
                if (g != (pass == 1)) continue;
                if (only && !d->keep(d->keep_ctx, id)) continue;
                R->cur_id = g ? 0 : id;
                const cfVec3 *ref = sl->shape_ref && sl->shape_ref_k == i && sl->shape_ref_n == w->soft[i].n_nodes ? sl->shape_ref : NULL;
                draw_soft(d, view, &w->soft[i], ref, sl->offset, col, g ? &glass : &solid);
            }
        }
    }
    R->cur_id = 0;
    R->alpha = 1;
}
