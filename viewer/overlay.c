/* SPDX-License-Identifier: MIT */
/* Overlays on the 3D view: body ids, velocity / angular velocity / momentum arrows, contacts. */
#include "cfview.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const SDL_Color col_v = {120, 220, 255, 255};     /* linear velocity */
static const SDL_Color col_w = {255, 221, 87, 255};      /* angular velocity */
static const SDL_Color col_L = {255, 110, 225, 255};     /* angular momentum */
static const SDL_Color col_point = {255, 70, 70, 255};   /* contact points */
static const SDL_Color col_normal = {90, 140, 255, 255}; /* normals, frame n */
static const SDL_Color col_t1 = {255, 120, 120, 255};    /* tangent t1 */
static const SDL_Color col_t2 = {120, 230, 120, 255};    /* tangent t2 */
static const SDL_Color col_imp = {255, 255, 255, 255};   /* impulses */
static const SDL_Color col_cone = {200, 200, 120, 255};  /* friction cones */
static const SDL_Color col_depth = {255, 150, 40, 255};  /* penetration */
static const SDL_Color col_text = {235, 235, 235, 255};

bool cfv_parse_overlays(const char *list, unsigned *mask)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"ids", CFV_OV_IDS},         {"velocity", CFV_OV_VELOCITY}, {"omega", CFV_OV_OMEGA},
                 {"momentum", CFV_OV_MOMENTUM}, {"points", CFV_OV_POINTS},   {"normals", CFV_OV_NORMALS},
                 {"frames", CFV_OV_FRAMES},   {"impulses", CFV_OV_IMPULSES}, {"cones", CFV_OV_CONES},
                 {"depth", CFV_OV_DEPTH},     {"labels", CFV_OV_LABELS},     {"deformation", CFV_OV_DEFORMATION}};
    const char *p = list;
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        bool found = false;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
            if (strlen(names[i].name) == len && strncmp(p, names[i].name, len) == 0) {
                *mask |= names[i].bit;
                found = true;
            }
        if (len == 4 && strncmp(p, "none", 4) == 0) found = true;
        if (!found && len > 0) return false;
        p = e ? e + 1 : NULL;
    }
    return true;
}

/* ---- lines, arrows, dots and text in the 3D view ------------------------------------------ */

/* overlays pass the depth of the surface they sit on (a contact point on a face) within this
   tolerance, relative to the depth, and are hidden by whatever is nearer */
#define OVERLAY_BIAS 0.004f

/* a world segment clipped at the near plane and projected; false when nothing is left */
static bool clip_project(const cfvView *v, cfVec3 a, cfVec3 b, cfvRVert *A, cfvRVert *B)
{
    cfVec3 ca = cfv_view_to_cam(v, a), cb = cfv_view_to_cam(v, b);
    if (!cfu_vec3_finite(ca) || !cfu_vec3_finite(cb)) return false;
    if (ca.z < v->near && cb.z < v->near) return false;
    if (ca.z < v->near) ca = cfu_mul_add(ca, (v->near - ca.z) / (cb.z - ca.z), cfu_sub(cb, ca));
    if (cb.z < v->near) cb = cfu_mul_add(cb, (v->near - cb.z) / (ca.z - cb.z), cfu_sub(ca, cb));
    A->x = (float)(v->cx + v->focal * ca.x / ca.z);
    A->y = (float)(v->cy - v->focal * ca.y / ca.z);
    A->iz = (float)(1.0 / ca.z);
    B->x = (float)(v->cx + v->focal * cb.x / cb.z);
    B->y = (float)(v->cy - v->focal * cb.y / cb.z);
    B->iz = (float)(1.0 / cb.z);
    return true;
}

static unsigned depth_mode(cfvDraw *d, bool on_top)
{
    d->raster.bias = OVERLAY_BIAS;
    return on_top ? 0u : (unsigned)CFV_R_TEST;
}

void cfv_line3(cfvDraw *d, const cfvView *view, cfVec3 a, cfVec3 b, float px, SDL_Color c, bool on_top)
{
    cfvRVert A, B;
    if (!clip_project(view, a, b, &A, &B)) return;
    cfv_raster_line(&d->raster, A.x, A.y, A.iz, B.x, B.y, B.iz, px, cfv_rgb(c), depth_mode(d, on_top));
}

void cfv_arrow3(cfvDraw *d, const cfvView *view, cfVec3 a, cfVec3 b, float px, SDL_Color c, bool on_top)
{
    cfvRVert A, B;
    if (!clip_project(view, a, b, &A, &B)) return;
    float dx = B.x - A.x, dy = B.y - A.y, l = sqrtf(dx * dx + dy * dy);
    if (!(l > 0.5f)) return;
    unsigned mode = depth_mode(d, on_top);
    Uint32 rgb = cfv_rgb(c);
    float head = fminf(4.0f * px + 6.0f, 0.5f * l), f = (l - head) / l;
    float ux = dx / l, uy = dy / l;
    float hx = B.x - ux * head, hy = B.y - uy * head, hz = A.iz + f * (B.iz - A.iz);
    cfv_raster_line(&d->raster, A.x, A.y, A.iz, hx, hy, hz, px, rgb, mode);
    float w = 0.55f * head;
    cfvRVert t0 = {B.x, B.y, B.iz, rgb}, t1 = {hx - uy * w, hy + ux * w, hz, rgb}, t2 = {hx + uy * w, hy - ux * w, hz, rgb};
    cfv_raster_tri(&d->raster, &t0, &t1, &t2, mode);
}

static void dot3(cfvDraw *d, const cfvView *view, cfVec3 p, float px, SDL_Color c, bool on_top)
{
    cfVec3 q = cfv_view_to_cam(view, p);
    if (!(q.z > view->near)) return;
    float x = (float)(view->cx + view->focal * q.x / q.z), y = (float)(view->cy - view->focal * q.y / q.z);
    cfv_raster_rect(&d->raster, x, y, 0.5f * px, (float)(1.0 / q.z), cfv_rgb(c), depth_mode(d, on_top));
}

/* a text next to a world point, unless a body hides the point */
static void text3(cfvDraw *d, const cfvView *view, cfVec3 p, float dx, float dy, float scale, SDL_Color c, const char *s,
                  bool on_top)
{
    cfVec3 q = cfv_view_to_cam(view, p);
    if (!(q.z > view->near)) return;
    float x = (float)(view->cx + view->focal * q.x / q.z), y = (float)(view->cy - view->focal * q.y / q.z);
    depth_mode(d, on_top);
    if (!on_top && !cfv_raster_visible(&d->raster, x, y, (float)(1.0 / q.z))) return;
    cfv_text(&d->raster, x + dx, y + dy, scale, c, s);
}

/* ---- physics helpers ------------------------------------------------------------------ */

/* angular momentum about the centre of mass, I_w w = R I_body R^T w */
static cfVec3 spin_momentum(const cfRigidBody *b)
{
    cfMat3 R = cfu_quat_to_mat3(cfu_quat_normalize(b->q));
    cfVec3 wb = cfu_mat3_tmul_vec(R, b->w);
    return cfu_mat3_mul_vec(R, cfu_mat3_mul_vec(b->inertia_body, wb));
}

static bool soft_com_velocity(const cfSoftBody *s, cfVec3 *com, cfVec3 *vel)
{
    double m = 0;
    cfVec3 c = cfu_zero3(), p = cfu_zero3();
    for (int i = 0; i < s->n_nodes; ++i) {
        double mi = s->mass ? s->mass[i] : 1.0;
        if (s->fixed && s->fixed[i]) continue;
        m += mi;
        c = cfu_mul_add(c, mi, s->x[i]);
        p = cfu_mul_add(p, mi, s->v[i]);
    }
    if (!(m > 0)) return false;
    *com = cfu_scale(1.0 / m, c);
    *vel = cfu_scale(1.0 / m, p);
    return cfu_vec3_finite(*com) && cfu_vec3_finite(*vel);
}

cfvScales cfv_scales_for(const cfvRun *run)
{
    cfVec3 c;
    double R;
    cfv_run_bounds(run, &c, &R);
    double mv = 0, mw = 0, mL = 0;
    for (int s = 0; s < run->n_slots; ++s) {
        const cfWorld *w = &run->slot[s].w;
        for (int i = 0; i < w->n_bodies; ++i) {
            const cfRigidBody *b = &w->bodies[i];
            if (b->fixed || b->shape.type == CF_SHAPE_PLANE) continue;
            mv = fmax(mv, cfu_norm(b->v));
            mw = fmax(mw, cfu_norm(b->w));
            mL = fmax(mL, cfu_norm(spin_momentum(b)));
        }
        for (int k = 0; k < w->n_soft; ++k) {
            cfVec3 com, vel;
            if (soft_com_velocity(&w->soft[k], &com, &vel)) mv = fmax(mv, cfu_norm(vel));
            for (int i = 0; i < w->soft[k].n_nodes; ++i) mv = fmax(mv, cfu_norm(w->soft[k].v[i]));
        }
    }
    /* w shorter than L so that both show when they are parallel */
    cfvScales sc;
    sc.v = (isfinite(mv) && mv > 1e-9) ? 0.5 * R / mv : 0.25 * R;
    sc.w = (isfinite(mw) && mw > 1e-9) ? 0.4 * R / mw : 0.25 * R;
    sc.L = (isfinite(mL) && mL > 1e-12) ? 0.6 * R / mL : 0.25 * R;
    sc.impulse = 0; /* chosen per frame from the largest impulse */
    return sc;
}

/* ---- contacts --------------------------------------------------------------------------- */

/* the world's contacts and the ones a demo added, as one sequence */
static int slot_contacts(const cfvSlot *sl, int k, const cfContact **c)
{
    int nw = sl->w.contacts.count;
    if (k < nw) {
        *c = &sl->w.contacts.items[k];
        return 1;
    }
    if (k - nw < sl->extra.count) {
        *c = &sl->extra.items[k - nw];
        return 1;
    }
    return 0;
}

static void draw_contacts(cfvDraw *d, const cfvView *view, const cfvRun *run, unsigned mask, double R)
{
    const cfContact *c;
    double max_l = 0;
    for (int s = 0; s < run->n_slots; ++s)
        for (int k = 0; slot_contacts(&run->slot[s], k, &c); ++k) {
            double l = sqrt(c->lambda[0] * c->lambda[0] + c->lambda[1] * c->lambda[1] + c->lambda[2] * c->lambda[2]);
            if (isfinite(l)) max_l = fmax(max_l, l);
        }
    double isc = max_l > 0 ? 0.4 * R / max_l : 0; /* m per N s */
    double ln = 0.25 * R;                         /* length of unit directions */
    for (int s = 0; s < run->n_slots; ++s) {
        cfVec3 off = run->slot[s].offset;
        for (int k = 0; slot_contacts(&run->slot[s], k, &c); ++k) {
            cfContact cc = *c;
            c = &cc;
            if (!cfu_vec3_finite(cc.p) || !cfu_vec3_finite(cc.n)) continue;
            /* tangents are filled by chapter 2's contact frames; before that, make some */
            if (!(cfu_norm2(cc.t) > 0.5) || !(cfu_norm2(cc.b) > 0.5)) {
                cfVec3 a = fabs(cc.n.x) < 0.9 ? cfu_vec3(1, 0, 0) : cfu_vec3(0, 1, 0);
                cc.t = cfu_normalize(cfu_sub(a, cfu_scale(cfu_dot(a, cc.n), cc.n)));
                cc.b = cfu_cross(cc.n, cc.t);
            }
            cfVec3 p = cfu_add(c->p, off);
            if (mask & CFV_OV_CONES) {
                /* cone of height h along n with radius mu h; generators and the rim */
                double h = c->lambda[0] > 0 && isc > 0 ? c->lambda[0] * isc : ln;
                enum { G = 16 };
                cfVec3 prev = cfu_zero3();
                for (int g = 0; g <= G; ++g) {
                    double a = 2 * CF_PI * g / G;
                    cfVec3 dir = cfu_add(cfu_scale(cos(a), c->t), cfu_scale(sin(a), c->b));
                    cfVec3 rim = cfu_add(cfu_mul_add(p, h, c->n), cfu_scale(c->mu * h, dir));
                    if (g % 2 == 0 && g < G) cfv_line3(d, view, p, rim, 1.0f, col_cone, false);
                    if (g > 0) cfv_line3(d, view, prev, rim, 1.0f, col_cone, false);
                    prev = rim;
                }
            }
            if (mask & CFV_OV_NORMALS) cfv_arrow3(d, view, p, cfu_mul_add(p, ln, c->n), 2.0f, col_normal, false);
            if (mask & CFV_OV_FRAMES) {
                cfv_arrow3(d, view, p, cfu_mul_add(p, 0.6 * ln, c->n), 1.5f, col_normal, false);
                cfv_arrow3(d, view, p, cfu_mul_add(p, 0.6 * ln, c->t), 1.5f, col_t1, false);
                cfv_arrow3(d, view, p, cfu_mul_add(p, 0.6 * ln, c->b), 1.5f, col_t2, false);
            }
            if ((mask & (CFV_OV_IMPULSES | CFV_OV_CONES)) && isc > 0) {
                cfVec3 l = cfu_add(cfu_scale(c->lambda[0], c->n),
                                   cfu_add(cfu_scale(c->lambda[1], c->t), cfu_scale(c->lambda[2], c->b)));
                cfv_arrow3(d, view, p, cfu_mul_add(p, isc, l), 2.5f, col_imp, false);
            }
            if ((mask & CFV_OV_DEPTH) && c->phi < 0) {
                cfv_line3(d, view, p, cfu_mul_add(p, c->phi, c->n), 3.0f, col_depth, true);
                char buf[48];
                snprintf(buf, sizeof buf, "%.3g mm", -c->phi * 1e3);
                text3(d, view, p, 6, 6, 1.0f, col_depth, buf, true);
            }
            if (mask & CFV_OV_POINTS) dot3(d, view, p, 7.0f, col_point, false);
        }
    }
}

/* the demo's own marks: always drawn (hidden where a body is in front, unless on top) */
static void draw_marks(cfvDraw *d, const cfvView *view, const cfvRun *run)
{
    for (int s = 0; s < run->n_slots; ++s) {
        const cfvSlot *sl = &run->slot[s];
        for (int k = 0; k < sl->n_marks; ++k) {
            const cfvMark *m = &sl->marks[k];
            SDL_Color c = {(Uint8)(m->rgb >> 16), (Uint8)(m->rgb >> 8), (Uint8)m->rgb, 255};
            cfVec3 a = cfu_add(m->a, sl->offset), b = cfu_add(m->b, sl->offset);
            if (!cfu_vec3_finite(a) || !cfu_vec3_finite(b)) continue;
            switch (m->kind) {
            case CFV_MARK_ARROW: cfv_arrow3(d, view, a, b, 2.5f, c, m->on_top); break;
            case CFV_MARK_LINE: cfv_line3(d, view, a, b, 1.5f, c, m->on_top); break;
            default: dot3(d, view, a, 8.0f, c, m->on_top); b = a; break;
            }
            if (m->label[0]) text3(d, view, b, 5, -4, 1.3f, c, m->label, m->on_top);
        }
    }
}

/* the paths the demo asked for: a line, or a dot per step */
static void draw_trails(cfvDraw *d, const cfvView *view, const cfvRun *run)
{
    for (int k = 0; k < run->n_trails; ++k) {
        const cfvTrail *t = &run->trail[k];
        SDL_Color c = {(Uint8)(t->rgb >> 16), (Uint8)(t->rgb >> 8), (Uint8)t->rgb, 255};
        cfVec3 off = run->slot[t->slot].offset;
        for (int i = 0; i < t->n; ++i) {
            cfVec3 p = cfu_add(t->p[i], off);
            if (t->dots) dot3(d, view, p, 6.0f, c, false);
            else if (i > 0) cfv_line3(d, view, cfu_add(t->p[i - 1], off), p, 2.0f, c, false);
        }
    }
}

/* ---- the overlays ------------------------------------------------------------------------ */

void cfv_draw_overlays(cfvDraw *d, const cfvView *view, const cfvRun *run, unsigned mask, const cfvScales *sc)
{
    cfVec3 centre;
    double R;
    cfv_run_bounds(run, &centre, &R);
    draw_trails(d, view, run);
    for (int s = 0; s < run->n_slots; ++s) {
        const cfvSlot *sl = &run->slot[s];
        const cfWorld *w = &sl->w;
        for (int i = 0; i < w->n_bodies; ++i) {
            const cfRigidBody *b = &w->bodies[i];
            if (b->shape.type == CF_SHAPE_PLANE || !cfu_vec3_finite(b->x)) continue;
            cfVec3 x = cfu_add(b->x, sl->offset);
            if ((mask & CFV_OV_VELOCITY) && !b->fixed) cfv_arrow3(d, view, x, cfu_mul_add(x, sc->v, b->v), 3.0f, col_v, false);
            if ((mask & CFV_OV_MOMENTUM) && !b->fixed)
                cfv_arrow3(d, view, x, cfu_mul_add(x, sc->L, spin_momentum(b)), 3.0f, col_L, false);
            if ((mask & CFV_OV_OMEGA) && !b->fixed) cfv_arrow3(d, view, x, cfu_mul_add(x, sc->w, b->w), 3.0f, col_w, false);
        }
        for (int k = 0; k < w->n_soft; ++k) {
            const cfSoftBody *sb = &w->soft[k];
            cfVec3 com, vel;
            if ((mask & CFV_OV_VELOCITY) && soft_com_velocity(sb, &com, &vel)) {
                com = cfu_add(com, sl->offset);
                cfv_arrow3(d, view, com, cfu_mul_add(com, sc->v, vel), 3.0f, col_v, false);
            }
        }
    }
    if (mask & (CFV_OV_POINTS | CFV_OV_NORMALS | CFV_OV_FRAMES | CFV_OV_IMPULSES | CFV_OV_CONES | CFV_OV_DEPTH))
        draw_contacts(d, view, run, mask, R);
    draw_marks(d, view, run);

    if (mask & CFV_OV_IDS) {
        for (int s = 0; s < run->n_slots; ++s) {
            const cfvSlot *sl = &run->slot[s];
            const cfWorld *w = &sl->w;
            char buf[64];
            for (int i = 0; i < w->n_bodies; ++i) {
                const cfRigidBody *b = &w->bodies[i];
                if (b->shape.type == CF_SHAPE_PLANE || !cfu_vec3_finite(b->x)) continue;
                snprintf(buf, sizeof buf, "#%d %s", i, b->name);
                text3(d, view, cfu_add(b->x, sl->offset), -4, -4, 1.5f, col_text, buf, true);
            }
            for (int k = 0; k < w->n_soft; ++k) {
                cfVec3 com, vel;
                if (!soft_com_velocity(&w->soft[k], &com, &vel)) continue;
                snprintf(buf, sizeof buf, "soft #%d %s", k, w->soft[k].name);
                text3(d, view, cfu_add(com, sl->offset), -4, -4, 1.5f, col_text, buf, true);
            }
        }
    }
    d->raster.bias = 0;
}
