/* SPDX-License-Identifier: MIT */
/* 3D drawing: orbit camera, shape meshes, ground grid and the depth-sorted triangle list. */
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

typedef struct cfvItem {
    float depth;  /* larger = farther; drawn first */
    int first, n; /* range in idx */
} cfvItem;

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

void cfv_draw_free(cfvDraw *d)
{
    free(d->vtx);
    free(d->idx);
    free(d->items);
    free(d->tmp);
    free(d->out);
    free(d->scratch);
    free(d->scratch_n);
    memset(d, 0, sizeof *d);
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

static inline int push_vtx(cfvDraw *d, float x, float y, SDL_Color c)
{
    SDL_Vertex *v = &d->vtx[d->n_vtx];
    v->position.x = x;
    v->position.y = y;
    v->color = c;
    v->tex_coord.x = 0;
    v->tex_coord.y = 0;
    return d->n_vtx++;
}

static inline void begin_item(cfvDraw *d, float depth)
{
    cfvItem *it = &d->items[d->n_items++];
    it->depth = depth;
    it->first = d->n_idx;
    it->n = 0;
}

static inline void push_tri(cfvDraw *d, int a, int b, int c)
{
    d->idx[d->n_idx++] = a;
    d->idx[d->n_idx++] = b;
    d->idx[d->n_idx++] = c;
    d->items[d->n_items - 1].n += 3;
}

/* reserve room for nv vertices, ni indices and nitems items */
static bool reserve(cfvDraw *d, int nv, int ni, int nitems)
{
    return GROW_BUF(d->vtx, d->cap_vtx, d->n_vtx + nv) && GROW_BUF(d->idx, d->cap_idx, d->n_idx + ni) &&
           GROW_BUF(d->items, d->cap_items, d->n_items + nitems);
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

static inline void proj(const cfvView *v, cfVec3 c, float *x, float *y)
{
    double iz = 1.0 / c.z;
    *x = (float)(v->cx + v->focal * c.x * iz);
    *y = (float)(v->cy - v->focal * c.y * iz);
}

/* ---- boxes: 6 faces, the visible ones (at most 3) as flat-shaded quads ----------------- */

static void draw_box(cfvDraw *d, const cfvView *v, cfVec3 x, cfQuat q, cfVec3 he, SDL_Color base)
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
    float sx[8], sy[8];
    for (int k = 0; k < 8; ++k) {
        cfVec3 c = f.t;
        for (int j = 0; j < 3; ++j) c = cfu_mul_add(c, (k >> j) & 1 ? 1.0 : -1.0, ax[j]);
        if (c.z < v->near) {
            d->tris_culled += 12; /* crosses the near plane: skip the body */
            return;
        }
        proj(v, c, &sx[k], &sy[k]);
    }
    /* face (axis j, sign s): corners CCW about the outward normal */
    static const int faces[6][4] = {
        {1, 3, 7, 5}, {0, 4, 6, 2}, /* +x, -x */
        {2, 6, 7, 3}, {0, 1, 5, 4}, /* +y, -y */
        {4, 5, 7, 6}, {0, 2, 3, 1}, /* +z, -z */
    };
    reserve(d, 12, 18, 1);
    begin_item(d, (float)f.t.z);
    for (int fi = 0; fi < 6; ++fi) {
        int j = fi / 2;
        double s = fi % 2 ? -1.0 : 1.0;
        cfVec3 n = cfu_vec3(s * f.m[0][j], s * f.m[1][j], s * f.m[2][j]); /* unit, camera */
        cfVec3 centre = cfu_mul_add(f.t, s, ax[j]);
        if (cfu_dot(n, centre) >= 0) {
            d->tris_culled += 2;
            continue;
        }
        SDL_Color c = shade(base, light(n));
        const int *fc = faces[fi];
        int i0 = push_vtx(d, sx[fc[0]], sy[fc[0]], c);
        int i1 = push_vtx(d, sx[fc[1]], sy[fc[1]], c);
        int i2 = push_vtx(d, sx[fc[2]], sy[fc[2]], c);
        int i3 = push_vtx(d, sx[fc[3]], sy[fc[3]], c);
        push_tri(d, i0, i1, i2);
        push_tri(d, i0, i2, i3);
        d->tris_drawn += 2;
    }
}

/* ---- spheres and capsules: a latitude-longitude grid with smooth shading ---------------- */

#define SLICES 20
#define HEMI 6 /* rings from a pole to the equator */

static void draw_round(cfvDraw *d, const cfvView *v, cfVec3 x, cfQuat q, double radius, double half_h,
                       SDL_Color base, bool stripes)
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
    if (!reserve(d, NV, 6 * SLICES * (RINGS - 1), 1)) return;
    int v0 = d->n_vtx;
    for (int j = 0; j < RINGS; ++j)
        for (int k = 0; k < SLICES; ++k) {
            float sx, sy;
            proj(v, P[j * SLICES + k], &sx, &sy);
            double stripe = (stripes && ((k * 4 / SLICES) & 1)) ? 0.8 : 1.0;
            push_vtx(d, sx, sy, shade(base, stripe * light(N[j * SLICES + k])));
        }
    begin_item(d, (float)f.t.z);
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
                push_tri(d, v0 + tri[t][0], v0 + tri[t][1], v0 + tri[t][2]);
                d->tris_drawn++;
            }
        }
}

/* ---- soft bodies ----------------------------------------------------------------------- */

/* a screen-space quad of width px between two camera-space points, as its own depth item */
static void segment_item(cfvDraw *d, const cfvView *v, cfVec3 a, cfVec3 b, float px, SDL_Color c)
{
    if (a.z < v->near || b.z < v->near) return;
    float ax, ay, bx, by;
    proj(v, a, &ax, &ay);
    proj(v, b, &bx, &by);
    float dx = bx - ax, dy = by - ay, l = sqrtf(dx * dx + dy * dy);
    if (!(l > 1e-3f)) return;
    float nx = -dy / l * 0.5f * px, ny = dx / l * 0.5f * px;
    if (!reserve(d, 4, 6, 1)) return;
    begin_item(d, (float)(0.5 * (a.z + b.z)));
    int i0 = push_vtx(d, ax + nx, ay + ny, c), i1 = push_vtx(d, bx + nx, by + ny, c);
    int i2 = push_vtx(d, bx - nx, by - ny, c), i3 = push_vtx(d, ax - nx, ay - ny, c);
    push_tri(d, i0, i1, i2);
    push_tri(d, i0, i2, i3);
}

static bool finite_nodes(const cfSoftBody *s)
{
    for (int i = 0; i < s->n_nodes; ++i)
        if (!cfu_vec3_finite(s->x[i])) return false;
    return true;
}

static void draw_soft(cfvDraw *d, const cfvView *v, const cfSoftBody *s, cfVec3 off, SDL_Color base)
{
    if (s->n_nodes <= 0 || !finite_nodes(s)) return;
    if (!GROW_BUF(d->scratch, d->cap_scratch, s->n_nodes)) return;
    cfVec3 *P = d->scratch;
    for (int i = 0; i < s->n_nodes; ++i) P[i] = cfv_view_to_cam(v, cfu_add(s->x[i], off));

    /* a length scale for markers: the mean spring rest length or surface edge */
    double mean = 0;
    int cnt = 0;
    for (int k = 0; k < s->n_springs && k < 64; ++k, ++cnt) mean += s->springs[k].rest;
    for (int t = 0; t < s->n_tris && t < 64; ++t) {
        const int *tr = s->tris[t];
        if (tr[0] < 0 || tr[1] < 0 || tr[0] >= s->n_nodes || tr[1] >= s->n_nodes) continue;
        mean += cfu_norm(cfu_sub(s->x_rest ? s->x_rest[tr[0]] : s->x[tr[0]], s->x_rest ? s->x_rest[tr[1]] : s->x[tr[1]]));
        cnt++;
    }
    mean = cnt ? mean / cnt : 0.2;
    double node_r = fmax(0.01, 0.12 * mean);

    if (s->n_tris > 0) {
        if (!reserve(d, 3 * s->n_tris, 3 * s->n_tris, s->n_tris)) return;
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
                d->tris_culled++;
                continue;
            }
            cfVec3 n = cfu_normalize(cfu_neg(cr));
            SDL_Color c = shade(base, light(n));
            float x0, y0, x1, y1, x2, y2;
            proj(v, A, &x0, &y0);
            proj(v, B, &x1, &y1);
            proj(v, C, &x2, &y2);
            begin_item(d, (float)((A.z + B.z + C.z) / 3.0));
            int i0 = push_vtx(d, x0, y0, c), i1 = push_vtx(d, x1, y1, c), i2 = push_vtx(d, x2, y2, c);
            push_tri(d, i0, i1, i2);
            d->tris_drawn++;
        }
        /* clamped nodes as small grey cubes */
        for (int i = 0; i < s->n_nodes; ++i)
            if (s->fixed && s->fixed[i])
                draw_box(d, v, cfu_add(s->x[i], off), cfu_quat_identity(),
                         cfu_vec3(0.5 * node_r, 0.5 * node_r, 0.5 * node_r), cfv_fixed_color);
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
                    segment_item(d, v, cfv_view_to_cam(v, a), cfv_view_to_cam(v, cfu_mul_add(a, 0.5 / Z, ab)),
                                 2.0f, coil);
                    prev = cfu_mul_add(a, 0.5 / Z, ab);
                }
            }
            segment_item(d, v, cfv_view_to_cam(v, prev), cfv_view_to_cam(v, p), 2.0f, coil);
            prev = p;
        }
    }
    for (int i = 0; i < s->n_nodes; ++i) {
        cfVec3 p = cfu_add(s->x[i], off);
        if (s->fixed && s->fixed[i])
            draw_box(d, v, p, cfu_quat_identity(), cfu_vec3(0.6 * node_r, 0.6 * node_r, 0.6 * node_r),
                     cfv_fixed_color);
        else
            draw_round(d, v, p, cfu_quat_identity(), node_r, 0, base, false);
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

/* clip a convex polygon in the image plane to x0 <= x <= x1, y0 <= y <= y1 (at most 16 points) */
static int clip_edge(float *x, float *y, int n, int axis, float lim, bool keep_greater)
{
    float ox[16], oy[16];
    int m = 0;
    for (int i = 0; i < n && m < 15; ++i) {
        int j = (i + 1) % n;
        float a = axis ? y[i] : x[i], b = axis ? y[j] : x[j];
        bool ia = keep_greater ? a >= lim : a <= lim, ib = keep_greater ? b >= lim : b <= lim;
        if (ia) {
            ox[m] = x[i];
            oy[m++] = y[i];
        }
        if (ia != ib && m < 16) {
            float t = (lim - a) / (b - a);
            ox[m] = x[i] + t * (x[j] - x[i]);
            oy[m++] = y[i] + t * (y[j] - y[i]);
        }
    }
    memcpy(x, ox, (size_t)m * sizeof *x);
    memcpy(y, oy, (size_t)m * sizeof *y);
    return m;
}

static int clip_rect(float *x, float *y, int n, float x0, float y0, float x1, float y1)
{
    n = clip_edge(x, y, n, 0, x0, true);
    if (n >= 3) n = clip_edge(x, y, n, 0, x1, false);
    if (n >= 3) n = clip_edge(x, y, n, 1, y0, true);
    if (n >= 3) n = clip_edge(x, y, n, 1, y1, false);
    return n < 3 ? 0 : n;
}

/* clip the segment (ax, ay)-(bx, by) to x0 <= x <= x1, y0 <= y <= y1 (Liang-Barsky); false when
   nothing is left */
static bool clip_segment(double *ax, double *ay, double *bx, double *by, double x0, double y0, double x1,
                         double y1)
{
    double dx = *bx - *ax, dy = *by - *ay, t0 = 0.0, t1 = 1.0;
    const double p[4] = {-dx, dx, -dy, dy}, q[4] = {*ax - x0, x1 - *ax, *ay - y0, y1 - *ay};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0) return false; /* parallel to this edge and outside it */
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0.0) t0 = t > t0 ? t : t0;
        else t1 = t < t1 ? t : t1;
        if (t0 > t1) return false;
    }
    double sx = *ax, sy = *ay;
    *ax = sx + t0 * dx;
    *ay = sy + t0 * dy;
    *bx = sx + t1 * dx;
    *by = sy + t1 * dy;
    return true;
}

static void line_cam(SDL_Renderer *r, const cfvView *v, cfVec3 a, cfVec3 b)
{
    if (a.z < v->near && b.z < v->near) return;
    if (a.z < v->near) a = cfu_mul_add(a, (v->near - a.z) / (b.z - a.z), cfu_sub(b, a));
    if (b.z < v->near) b = cfu_mul_add(b, (v->near - b.z) / (a.z - b.z), cfu_sub(a, b));
    /* clip to (a margin around) the image: a point near the near plane projects millions of pixels
       away, and SDL draws a line by its pixels (a window's renderer queues one point per pixel,
       allocating for all of them, on screen or not) */
    double ax = v->cx + v->focal * a.x / a.z, ay = v->cy - v->focal * a.y / a.z;
    double bx = v->cx + v->focal * b.x / b.z, by = v->cy - v->focal * b.y / b.z;
    if (!clip_segment(&ax, &ay, &bx, &by, -8.0, -8.0, v->w + 8.0, v->h + 8.0)) return;
    SDL_RenderDrawLineF(r, (float)ax, (float)ay, (float)bx, (float)by);
}

static void draw_plane(SDL_Renderer *r, const cfvView *v, const cfShape *s, cfVec3 target, double scene_r,
                       cfVec3 off)
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
    double half = fmax(3.0 * scene_r, 8.0 * dist);
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

    cfVec3 quad[4], clipped[8];
    const double sg[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int i = 0; i < 4; ++i)
        quad[i] = cfv_view_to_cam(v, cfu_add(c, cfu_add(cfu_scale(sg[i][0] * half, t1), cfu_scale(sg[i][1] * half, t2))));
    int m = clip_near(quad, 4, clipped, v->near);
    if (m >= 3) {
        /* project, then clip to (a margin around) the image: the rasterizer dislikes vertices
           millions of pixels away, which is what points near the near plane become */
        float px[16], py[16];
        for (int i = 0; i < m; ++i) proj(v, clipped[i], &px[i], &py[i]);
        m = clip_rect(px, py, m, -8.0f, -8.0f, v->w + 8.0f, v->h + 8.0f);
        SDL_Vertex vx[16];
        int ix[48], ni = 0;
        for (int i = 0; i < m; ++i) {
            vx[i].position.x = px[i];
            vx[i].position.y = py[i];
            vx[i].color = ground_fill;
            vx[i].tex_coord.x = vx[i].tex_coord.y = 0;
        }
        for (int i = 1; i + 1 < m; ++i) {
            ix[ni++] = 0;
            ix[ni++] = i;
            ix[ni++] = i + 1;
        }
        SDL_RenderGeometry(r, NULL, vx, m, ix, ni);
    }
    for (int i = -nc; i <= nc; ++i) {
        cfVec3 a1 = cfu_add(c, cfu_add(cfu_scale(i * cell, t1), cfu_scale(-half, t2)));
        cfVec3 b1 = cfu_add(c, cfu_add(cfu_scale(i * cell, t1), cfu_scale(half, t2)));
        cfVec3 a2 = cfu_add(c, cfu_add(cfu_scale(-half, t1), cfu_scale(i * cell, t2)));
        cfVec3 b2 = cfu_add(c, cfu_add(cfu_scale(half, t1), cfu_scale(i * cell, t2)));
        SDL_SetRenderDrawColor(r, ground_line.r, ground_line.g, ground_line.b, 255);
        line_cam(r, v, cfv_view_to_cam(v, a1), cfv_view_to_cam(v, b1));
        line_cam(r, v, cfv_view_to_cam(v, a2), cfv_view_to_cam(v, b2));
    }
}

/* ---- the frame --------------------------------------------------------------------------- */

static int cmp_item(const void *a, const void *b)
{
    float x = ((const cfvItem *)a)->depth, y = ((const cfvItem *)b)->depth;
    return (x < y) - (x > y); /* far first */
}

void cfv_draw_worlds(cfvDraw *d, SDL_Renderer *r, const cfvView *view, const cfvRun *run)
{
    d->n_vtx = d->n_idx = d->n_items = 0;
    d->tris_drawn = d->tris_culled = 0;
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);

    cfVec3 centre;
    double scene_r;
    cfv_run_bounds(run, &centre, &scene_r);
    cfVec3 target = cfu_mul_add(view->eye, cfu_dot(cfu_sub(centre, view->eye), view->fwd), view->fwd);

    /* planes first: each plane once, however many worlds share it */
    cfVec3 seen_n[8];
    double seen_d[8];
    int n_seen = 0;
    for (int s = 0; s < run->n_slots; ++s) {
        const cfWorld *w = &run->slot[s].w;
        for (int i = 0; i < w->n_bodies; ++i) {
            const cfShape *sh = &w->bodies[i].shape;
            if (sh->type != CF_SHAPE_PLANE) continue;
            cfVec3 n = cfu_normalize(sh->normal);
            double d0 = sh->offset + cfu_dot(n, run->slot[s].offset);
            bool dup = false;
            for (int k = 0; k < n_seen && !dup; ++k)
                dup = cfu_norm(cfu_sub(seen_n[k], n)) < 1e-9 && fabs(seen_d[k] - d0) < 1e-9;
            if (dup) continue;
            if (n_seen < 8) {
                seen_n[n_seen] = n;
                seen_d[n_seen++] = d0;
            }
            draw_plane(r, view, sh, target, scene_r, run->slot[s].offset);
        }
    }

    for (int s = 0; s < run->n_slots; ++s) {
        const cfvSlot *sl = &run->slot[s];
        const cfWorld *w = &sl->w;
        int k = 0; /* dynamic objects of this world, for colours */
        for (int i = 0; i < w->n_bodies; ++i) {
            const cfRigidBody *b = &w->bodies[i];
            if (b->shape.type == CF_SHAPE_PLANE) continue;
            if (!cfu_vec3_finite(b->x) || !cfu_quat_finite(b->q)) continue;
            SDL_Color col = b->fixed ? cfv_fixed_color : cfv_object_color(s, k++);
            cfVec3 x = cfu_add(b->x, sl->offset);
            switch (b->shape.type) {
            case CF_SHAPE_BOX: draw_box(d, view, x, b->q, b->shape.half_extents, col); break;
            case CF_SHAPE_SPHERE: draw_round(d, view, x, b->q, b->shape.radius, 0, col, true); break;
            case CF_SHAPE_CAPSULE:
                draw_round(d, view, x, b->q, b->shape.radius, b->shape.half_height, col, true);
                break;
            default: break;
            }
        }
        for (int i = 0; i < w->n_soft; ++i) draw_soft(d, view, &w->soft[i], sl->offset, cfv_object_color(s, k++));
    }
    if (d->n_items == 0) return;

    /* painter's order: far items first; within a convex body the visible faces never overlap */
    qsort(d->items, (size_t)d->n_items, sizeof *d->items, cmp_item);
    if (!GROW_BUF(d->out, d->cap_out, d->n_idx)) return;
    int n = 0;
    for (int i = 0; i < d->n_items; ++i) {
        memcpy(d->out + n, d->idx + d->items[i].first, (size_t)d->items[i].n * sizeof(int));
        n += d->items[i].n;
    }
    SDL_RenderGeometry(r, NULL, d->vtx, d->n_vtx, d->out, n);
}
