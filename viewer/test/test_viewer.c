/* SPDX-License-Identifier: MIT */
/* cfview tests: headless rendering of known scenes checked pixel by pixel, overlays, demo registry. */
#define _POSIX_C_SOURCE 200809L
#include "cft.h"
#include "cfview.h"
#include "cf/cf_solvers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stb_image.h>

#define W 320
#define H 240

/* ---- a tiny harness: a run built by hand, drawn into a surface, read back as RGB ---------- */

typedef struct Shot {
    unsigned char px[W * H * 3];
} Shot;

static cfvApp app;
static SDL_Surface *surf;
static SDL_Renderer *ren;

static void setup(void)
{
    ck_assert_int_eq(SDL_Init(0), 0);
    ren = cfv_headless_renderer(W, H, &surf);
    ck_assert_msg(ren != NULL, "software renderer: %s", SDL_GetError());
    cfv_app_init(&app, W, H);
    snprintf(app.run.name, sizeof app.run.name, "test");
}

static void teardown(void)
{
    cfv_app_free(&app);
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(surf);
    SDL_Quit();
}

static cfWorld *new_world(cfVec3 gravity)
{
    cfWorldDef def = cf_world_def_default();
    def.gravity = gravity;
    cfError err;
    int s = cfv_run_add_world(&app.run, &def, "", cfu_zero3(), &err);
    ck_assert_msg(s >= 0, "%s", err.msg);
    return cfv_run_world(&app.run, s);
}

static int add_body(cfWorld *w, cfShape shape, cfVec3 x, cfVec3 v)
{
    cfRigidBody b;
    cfError err;
    ck_assert_msg(cf_rigid_init(&b, shape, 1.0, &err) == CF_OK, "%s", err.msg);
    b.x = x;
    b.v = v;
    return cf_world_add_body(w, &b);
}

/* plain view: no HUD, no plots, no labels; camera from the front (-y), fitted */
static void plain_view(void)
{
    app.hud = false;
    app.plots = false;
    cfv_app_on_start(&app);
    app.overlays = 0;
    cfv_app_fit(&app);
}

static void render(Shot *s)
{
    cfv_app_draw(&app, ren);
    ck_assert_int_eq(SDL_RenderReadPixels(ren, NULL, SDL_PIXELFORMAT_RGB24, s->px, W * 3), 0);
}

static SDL_Color pixel(const Shot *s, int x, int y)
{
    const unsigned char *p = &s->px[(y * W + x) * 3];
    return (SDL_Color){p[0], p[1], p[2], 255};
}

static bool same(SDL_Color a, SDL_Color b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

/* a shaded version of base: c = k base for one k in [0.2, 1.05], per channel within 3 */
static bool shade_of(SDL_Color c, SDL_Color base)
{
    int m = base.r > base.g ? (base.r > base.b ? 0 : 2) : (base.g > base.b ? 1 : 2);
    double bc[3] = {base.r, base.g, base.b}, cc[3] = {c.r, c.g, c.b};
    double k = cc[m] / bc[m];
    if (k < 0.2 || k > 1.05) return false;
    for (int i = 0; i < 3; ++i)
        if (fabs(cc[i] - k * bc[i]) > 3.0) return false;
    return true;
}

static int count_background(const Shot *s)
{
    int n = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) n += same(pixel(s, x, y), cfv_background);
    return n;
}

static void cfv_contacts_clear_for_test(cfvRun *run) { cf_contacts_clear(&run->slot[0].extra); }

/* ---- tests ---------------------------------------------------------------------------------- */

START_TEST(sphere_where_the_camera_looks)
{
    cfWorld *w = new_world(cfu_zero3());
    add_body(w, cf_shape_sphere(0.5), cfu_zero3(), cfu_zero3());
    plain_view();
    Shot *s = malloc(sizeof *s);
    render(s);
    SDL_Color c = pixel(s, W / 2, H / 2);
    ck_assert_msg(shade_of(c, cfv_object_color(0, 0)), "centre pixel (%d,%d,%d) is not a shade of the body colour",
                  c.r, c.g, c.b);
    /* corners and edges: background */
    int xs[] = {0, W - 1, 0, W - 1, W / 2, 2}, ys[] = {0, 0, H - 1, H - 1, 1, H / 2};
    for (int i = 0; i < 6; ++i)
        ck_assert_msg(same(pixel(s, xs[i], ys[i]), cfv_background), "pixel (%d, %d) is not background", xs[i], ys[i]);
    /* the disc covers a sensible part of the image: fitted, so between 15% and 80% of the height */
    int top = H / 2;
    while (top > 0 && !same(pixel(s, W / 2, top - 1), cfv_background)) --top;
    double frac = 2.0 * (H / 2 - top) / H;
    ck_assert_msg(frac > 0.15 && frac < 0.8, "sphere spans %.2f of the height", frac);
    free(s);
}
END_TEST

START_TEST(box_colour_and_png_file)
{
    cfWorld *w = new_world(cfu_zero3());
    add_body(w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), cfu_zero3(), cfu_zero3());
    plain_view();
    Shot *s = malloc(sizeof *s);
    render(s);
    char path[64];
    snprintf(path, sizeof path, "/tmp/cfv_test_%ld.png", (long)getpid());
    cfError err = {{0}};
    ck_assert_msg(cfv_write_png(ren, path, &err), "%s", err.msg);
    int pw, ph, comp;
    unsigned char *img = stbi_load(path, &pw, &ph, &comp, 3);
    ck_assert_msg(img != NULL, "cannot read back %s", path);
    ck_assert_int_eq(pw, W);
    ck_assert_int_eq(ph, H);
    ck_assert_int_eq(memcmp(img, s->px, sizeof s->px), 0);
    SDL_Color c = {img[(H / 2 * W + W / 2) * 3], img[(H / 2 * W + W / 2) * 3 + 1], img[(H / 2 * W + W / 2) * 3 + 2], 255};
    ck_assert_msg(shade_of(c, cfv_object_color(0, 0)), "box centre (%d,%d,%d)", c.r, c.g, c.b);
    ck_assert(same((SDL_Color){img[0], img[1], img[2], 255}, cfv_background));
    stbi_image_free(img);
    unlink(path);
    free(s);
}
END_TEST

START_TEST(nothing_in_view_is_background_only)
{
    cfWorld *w = new_world(cfu_zero3());
    add_body(w, cf_shape_sphere(0.5), cfu_zero3(), cfu_zero3());
    add_body(w, cf_shape_box(cfu_vec3(0.3, 0.3, 0.3)), cfu_vec3(2, 0, 0), cfu_zero3());
    plain_view();
    /* look away: the bodies are behind the camera */
    app.cam.target = cfu_vec3(0, -20, 0);
    app.cam.yaw = CF_PI / 2; /* eye at y = -15, looking further along -y */
    app.cam.dist = 5;
    Shot *s = malloc(sizeof *s);
    render(s);
    ck_assert_int_eq(count_background(s), W * H);
    ck_assert_int_eq(app.draw.tris_drawn, 0);
    free(s);
}
END_TEST

START_TEST(empty_world_is_background_only)
{
    new_world(cfu_zero3());
    plain_view();
    Shot *s = malloc(sizeof *s);
    render(s);
    ck_assert_int_eq(count_background(s), W * H);
    free(s);
}
END_TEST

START_TEST(velocity_overlay_draws_its_arrow)
{
    cfWorld *w = new_world(cfu_zero3());
    add_body(w, cf_shape_sphere(0.3), cfu_zero3(), cfu_vec3(2, 0, 0));
    plain_view();
    /* room for the arrow: look from the front at a fixed distance */
    app.cam.target = cfu_zero3();
    app.cam.pitch = 0;
    app.cam.dist = 4;
    app.scales.v = 0.5; /* s: the 2 m/s arrow is 1 m long, about 70 pixels here */
    Shot *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    render(a);
    app.overlays = CFV_OV_VELOCITY;
    render(b);
    /* the arrow runs from the centre along +x (screen right); everything left of the centre
       and away from the arrow's row is unchanged */
    int changed_right = 0, changed_elsewhere = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            bool diff = !same(pixel(a, x, y), pixel(b, x, y));
            bool near_arrow = x >= W / 2 - 2 && abs(y - H / 2) <= 12;
            if (diff && near_arrow) changed_right++;
            else if (diff) changed_elsewhere++;
        }
    ck_assert_msg(changed_right > 50, "arrow pixels changed: %d", changed_right);
    ck_assert_int_eq(changed_elsewhere, 0);
    /* the arrow reaches beyond the sphere's silhouette, onto background in the plain image */
    int xt = W / 2 + 50;
    ck_assert(same(pixel(a, xt, H / 2), cfv_background));
    ck_assert(!same(pixel(b, xt, H / 2), cfv_background));
    /* off again: the same image as before */
    app.overlays = 0;
    render(b);
    ck_assert_int_eq(memcmp(a->px, b->px, sizeof a->px), 0);
    free(a);
    free(b);
}
END_TEST

START_TEST(contact_overlay_marks_the_point)
{
    cfWorld *w = new_world(cfu_zero3());
    add_body(w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), cfu_zero3(), cfu_zero3());
    plain_view();
    app.cam.pitch = 0;
    cfContact c;
    memset(&c, 0, sizeof c);
    c.body_a = -1;
    c.body_b = 0;
    c.p = cfu_vec3(0.25, -0.5, 0.25); /* on the face towards the camera */
    c.n = cfu_vec3(0, 0, 1);
    c.t = cfu_vec3(1, 0, 0);
    c.b = cfu_vec3(0, 1, 0);
    c.mu = 0.5;
    c.lambda[0] = 1.0;
    ck_assert(cfv_run_add_contact(&app.run, 0, &c));
    Shot *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    render(a);
    app.overlays = CFV_OV_POINTS;
    render(b);
    cfvView v = cfv_view_make(&app.cam, W, H, &app.area);
    float sx, sy;
    ck_assert(cfv_view_project(&v, c.p, &sx, &sy));
    int px = (int)sx, py = (int)sy;
    ck_assert_msg(!same(pixel(a, px, py), pixel(b, px, py)), "contact point pixel unchanged");
    SDL_Color m = pixel(b, px, py);
    ck_assert_msg(m.r > 200 && m.g < 120 && m.b < 120, "contact point (%d,%d,%d) is not red", m.r, m.g, m.b);
    /* far from the point nothing changed */
    ck_assert(same(pixel(a, px - 30, py + 30), pixel(b, px - 30, py + 30)));
    /* normals overlay: pixels above the point change */
    app.overlays = CFV_OV_NORMALS;
    render(b);
    ck_assert(!same(pixel(a, px, py - 15), pixel(b, px, py - 15)));
    const char *dir = getenv("CFV_TEST_PNG_DIR");
    if (dir) {
        /* a sliding contact: impulse on the cone's surface, and a penetrating one */
        c.lambda[1] = 0.5;
        c.phi = -0.05;
        cfv_contacts_clear_for_test(&app.run);
        ck_assert(cfv_run_add_contact(&app.run, 0, &c));
        c.p = cfu_vec3(-0.25, -0.5, -0.25);
        c.lambda[0] = 0.5;
        c.lambda[1] = 0.1;
        c.lambda[2] = -0.1;
        c.phi = 0;
        ck_assert(cfv_run_add_contact(&app.run, 0, &c));
        app.cam.pitch = 0.4;
        app.cam.yaw = -1.2;
        app.overlays = CFV_OV_POINTS | CFV_OV_FRAMES | CFV_OV_IMPULSES | CFV_OV_CONES | CFV_OV_DEPTH;
        render(b);
        char path[512];
        snprintf(path, sizeof path, "%s/contacts.png", dir);
        cfError e2;
        ck_assert(cfv_write_png(ren, path, &e2));
    }
    free(a);
    free(b);
}
END_TEST

START_TEST(bodies_hide_the_markers_behind_them)
{
    /* the depth test: a contact point on the far side of a box is not drawn through it; the same
       point beside the box is */
    cfWorld *w = new_world(cfu_zero3());
    add_body(w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), cfu_zero3(), cfu_zero3());
    plain_view();
    app.cam.pitch = 0;
    cfContact c;
    memset(&c, 0, sizeof c);
    c.body_a = -1;
    c.p = cfu_vec3(0.0, 0.5, 0.0); /* the back face: the camera looks along +y */
    c.n = cfu_vec3(0, 1, 0);
    ck_assert(cfv_run_add_contact(&app.run, 0, &c));
    Shot *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    render(a);
    app.overlays = CFV_OV_POINTS;
    render(b);
    cfvView v = cfv_view_make(&app.cam, W, H, &app.area);
    float sx, sy;
    ck_assert(cfv_view_project(&v, c.p, &sx, &sy));
    ck_assert_msg(same(pixel(a, (int)sx, (int)sy), pixel(b, (int)sx, (int)sy)), "a point behind the box is drawn through it");
    /* moved beside the box (still behind its centre): seen */
    app.overlays = 0;
    cfv_contacts_clear_for_test(&app.run);
    c.p = cfu_vec3(0.8, 0.5, 0.0);
    ck_assert(cfv_run_add_contact(&app.run, 0, &c));
    render(a);
    app.overlays = CFV_OV_POINTS;
    render(b);
    ck_assert(cfv_view_project(&v, c.p, &sx, &sy));
    ck_assert_msg(!same(pixel(a, (int)sx, (int)sy), pixel(b, (int)sx, (int)sy)), "a point in the open is not drawn");
    free(a);
    free(b);
}
END_TEST

START_TEST(the_visual_check_sees_what_the_picture_hides)
{
    /* cfv_app_look: a subject in the open passes; hidden behind another body, outside the frame,
       or a speck, it fails; so does a plot the story names that has no data */
    static const cfvDemo fake = {.id = "ch01/fake", .plots = "energy"};
    cfWorld *w = new_world(cfu_zero3());
    int ball = add_body(w, cf_shape_sphere(0.5), cfu_zero3(), cfu_zero3());
    app.run.demo = &fake;
    cfv_run_subject(&app.run, 0, ball);
    plain_view();
    app.plots = true;
    char msg[1024];
    ck_assert_int_eq(cfv_app_look(&app, msg, sizeof msg), 1); /* the energy plot has no data */
    ck_assert_msg(strstr(msg, "energy plot") != NULL, "%s", msg);
    ck_assert(cfv_series_push(&app.run.slot[0].energy, 0.0, 1.0) && cfv_series_push(&app.run.slot[0].energy, 0.1, 2.0));
    cfv_app_fit(&app);
    ck_assert_msg(cfv_app_look(&app, msg, sizeof msg) == 0, "%s", msg);
    /* a wall between the camera (on -y) and the ball */
    int wall = add_body(w, cf_shape_box(cfu_vec3(2, 0.1, 2)), cfu_vec3(0, -1.5, 0), cfu_zero3());
    w->bodies[wall].fixed = true;
    ck_assert_int_eq(cfv_app_look(&app, msg, sizeof msg), 1);
    ck_assert_msg(strstr(msg, "hidden") != NULL, "%s", msg);
    /* as glass it hides nothing */
    cfv_run_glass(&app.run, 0, wall);
    ck_assert_msg(cfv_app_look(&app, msg, sizeof msg) == 0, "%s", msg);
    /* looking elsewhere */
    app.cam.target = cfu_vec3(3, 0, 0);
    ck_assert_int_ge(cfv_app_look(&app, msg, sizeof msg), 1);
    ck_assert_msg(strstr(msg, "outside the frame") != NULL || strstr(msg, "not in front") != NULL, "%s", msg);
    /* far away: a speck */
    cfv_app_fit(&app);
    app.cam.dist *= 40;
    ck_assert_int_eq(cfv_app_look(&app, msg, sizeof msg), 1);
    ck_assert_msg(strstr(msg, "speck") != NULL, "%s", msg);
    app.run.demo = NULL;
}
END_TEST

START_TEST(world_contacts_are_drawn)
{
    cfWorld *w = new_world(cfu_zero3());
    add_body(w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), cfu_zero3(), cfu_zero3());
    plain_view();
    app.cam.pitch = 0;
    cfContact c;
    memset(&c, 0, sizeof c); /* no tangents: chapter 2 fills them; the overlay makes a frame */
    c.body_a = -1;
    c.p = cfu_vec3(-0.25, -0.5, -0.25);
    c.n = cfu_vec3(0, 0, 1);
    c.mu = 0.5;
    ck_assert(cf_contacts_push(&w->contacts, &c) == CF_OK);
    Shot *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    render(a);
    app.overlays = CFV_OV_POINTS | CFV_OV_FRAMES | CFV_OV_CONES;
    render(b);
    cfvView v = cfv_view_make(&app.cam, W, H, &app.area);
    float sx, sy;
    ck_assert(cfv_view_project(&v, c.p, &sx, &sy));
    ck_assert(!same(pixel(a, (int)sx, (int)sy), pixel(b, (int)sx, (int)sy)));
    /* the cone opens upwards: something changed above the point, off the normal */
    int changed = 0;
    for (int y = (int)sy - 30; y < (int)sy - 5; ++y)
        for (int x = (int)sx - 20; x <= (int)sx + 20; ++x)
            if (abs(x - (int)sx) > 3) changed += !same(pixel(a, x, y), pixel(b, x, y));
    ck_assert_int_gt(changed, 10);
    free(a);
    free(b);
}
END_TEST

START_TEST(ground_plane_below_the_horizon)
{
    cfWorld *w = new_world(cfu_vec3(0, 0, -9.81));
    cfRigidBody g;
    cfError err;
    ck_assert(cf_rigid_init_fixed(&g, cf_shape_plane(cfu_vec3(0, 0, 1), 0), &err) == CF_OK);
    cf_world_add_body(w, &g);
    add_body(w, cf_shape_sphere(0.5), cfu_vec3(0, 0, 0.5), cfu_zero3());
    plain_view();
    Shot *s = malloc(sizeof *s);
    render(s);
    /* bottom row: ground, not background; top row: sky (background) */
    int ground = 0;
    for (int x = 0; x < W; ++x) ground += !same(pixel(s, x, H - 1), cfv_background);
    ck_assert_msg(ground == W, "ground covers %d of %d bottom pixels", ground, W);
    ck_assert(same(pixel(s, 1, 1), cfv_background));
    ck_assert(shade_of(pixel(s, W / 2, H / 2), cfv_object_color(0, 0)));
    /* seen from below the plane is not drawn */
    app.cam.pitch = -0.5;
    app.cam.target = cfu_vec3(0, 0, -2);
    render(s);
    ck_assert(same(pixel(s, W / 2, H - 1), cfv_background));
    free(s);
}
END_TEST

START_TEST(soft_body_surface_is_drawn)
{
    cfWorld *w = new_world(cfu_zero3());
    cfSoftBody sb;
    memset(&sb, 0, sizeof sb);
    cfError err;
    ck_assert_msg(cf_soft_make_tet_box(&sb, cfu_vec3(-0.5, -0.5, -0.5), cfu_vec3(1, 1, 1), 2, 2, 2, 100, 1e4, 0.3,
                                       false, &err) == CF_OK,
                  "%s", err.msg);
    ck_assert_int_gt(sb.n_tris, 0);
    ck_assert_int_ge(cf_world_add_soft(w, &sb), 0);
    plain_view();
    Shot *s = malloc(sizeof *s);
    render(s);
    ck_assert(shade_of(pixel(s, W / 2, H / 2), cfv_object_color(0, 0)));
    ck_assert(same(pixel(s, 0, 0), cfv_background));
    ck_assert_int_gt(app.draw.tris_drawn, 0);
    /* back-face culling: at most about half of the closed surface faces the camera */
    ck_assert_int_gt(app.draw.tris_culled, app.draw.tris_drawn / 2);
    free(s);
}
END_TEST

START_TEST(non_finite_state_is_skipped)
{
    cfWorld *w = new_world(cfu_zero3());
    int i = add_body(w, cf_shape_box(cfu_vec3(0.5, 0.5, 0.5)), cfu_zero3(), cfu_zero3());
    plain_view();
    w->bodies[i].x.x = NAN;
    Shot *s = malloc(sizeof *s);
    render(s);
    ck_assert_int_eq(count_background(s), W * H);
    free(s);
}
END_TEST

START_TEST(hud_draws_text_over_the_view)
{
    cfWorld *w = new_world(cfu_zero3());
    add_body(w, cf_shape_sphere(0.5), cfu_zero3(), cfu_zero3());
    plain_view();
    Shot *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    render(a);
    app.hud = true;
    app.plots = true;
    render(b);
    /* the top-left corner holds the HUD panel now */
    ck_assert(same(pixel(a, 6, 6), cfv_background));
    ck_assert(!same(pixel(b, 6, 6), cfv_background));
    free(a);
    free(b);
}
END_TEST

START_TEST(every_shape_is_drawn)
{
    cfWorld *w = new_world(cfu_vec3(0, 0, -9.81));
    cfRigidBody g;
    cfError err;
    ck_assert(cf_rigid_init_fixed(&g, cf_shape_plane(cfu_vec3(0, 0, 1), 0), &err) == CF_OK);
    cf_world_add_body(w, &g);
    int ib = add_body(w, cf_shape_box(cfu_vec3(0.4, 0.3, 0.2)), cfu_vec3(-1.5, 0, 0.2), cfu_zero3());
    int is = add_body(w, cf_shape_sphere(0.35), cfu_vec3(0, 0, 0.35), cfu_zero3());
    int ic = add_body(w, cf_shape_capsule(0.2, 0.4), cfu_vec3(1.5, 0, 0.6), cfu_zero3());
    w->bodies[ib].q = cfu_quat_from_axis_angle(cfu_vec3(0, 0, 1), 0.5);
    w->bodies[ic].q = cfu_quat_from_axis_angle(cfu_vec3(1, 0, 0), 0.6);
    cfRigidBody fx;
    ck_assert(cf_rigid_init_fixed(&fx, cf_shape_box(cfu_vec3(0.2, 0.2, 0.2)), &err) == CF_OK);
    fx.x = cfu_vec3(0, 1.2, 0.2);
    cf_world_add_body(w, &fx);
    plain_view();
    Shot *s = malloc(sizeof *s);
    render(s);
    cfvView v = cfv_view_make(&app.cam, W, H, &app.area);
    const int ids[3] = {ib, is, ic};
    for (int k = 0; k < 3; ++k) {
        float sx, sy;
        /* a point a little below the centre (the id label sits at the centre) */
        cft_assert_at(cfv_view_project(&v, w->bodies[ids[k]].x, &sx, &sy), "k = %d", k);
        SDL_Color c = pixel(s, (int)sx, (int)sy);
        ck_assert_msg(shade_of(c, cfv_object_color(0, k)), "body %d: (%d,%d,%d)", ids[k], c.r, c.g, c.b);
    }
    const char *dir = getenv("CFV_TEST_PNG_DIR");
    if (dir) {
        app.overlays = CFV_OV_IDS | CFV_OV_VELOCITY | CFV_OV_OMEGA;
        render(s);
        char path[512];
        snprintf(path, sizeof path, "%s/shapes.png", dir);
        cfError e2;
        ck_assert(cfv_write_png(ren, path, &e2));
    }
    free(s);
}
END_TEST

/* a falling residual history of @p n iterations in the stats of slot @p slot (as a solve leaves it) */
static void fake_history(cfvRun *run, int slot, const char *solver, int n)
{
    cfWorld *w = cfv_run_world(run, slot);
    w->def.solver = cf_solver_find(solver);
    w->stats.solver_measure = w->def.solver->measure;
    w->stats.solver_iterations = n;
    w->stats.solver_history_len = n < CF_STATS_HISTORY ? n : CF_STATS_HISTORY;
    for (int k = 0; k < w->stats.solver_history_len; ++k) w->stats.solver_history[k] = pow(10.0, -0.25 * k);
    w->stats.solver_residual = n > 0 ? w->stats.solver_history[w->stats.solver_history_len - 1] : 0.0;
}

START_TEST(residual_series_follow_the_stats)
{
    static cfvRun run; /* zeroed; freed below */
    cfError err;
    for (int i = 0; i < 2; ++i)
        cft_assert_int_at(cfv_run_add_world(&run, NULL, "", cfu_zero3(), &err), ==, i, "i = %d", i);
    ck_assert(!cfv_run_has_solver(&run));
    fake_history(&run, 0, "pgs-boxed", 12);
    fake_history(&run, 1, "nncg", 400); /* more than the stats keep */
    ck_assert(cfv_run_has_solver(&run));
    static double t[CFV_MAX_WORLDS][CF_STATS_HISTORY], y[CFV_MAX_WORLDS][CF_STATS_HISTORY];
    cfvSeries se[CFV_MAX_WORLDS];
    const char *title = cfv_residual_series(&run, se, t, y);
    ck_assert_str_eq(title, "residual per iteration (last step): natural-map residual");
    ck_assert_int_eq(se[0].n, 12);
    ck_assert_int_eq(se[1].n, CF_STATS_HISTORY);
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < se[i].n; ++k) {
            cft_assert_at(se[i].t[k] == k + 1, "i = %d, k = %d", i, k);
            cft_assert_at(se[i].y[k] == run.slot[i].w.stats.solver_history[k], "i = %d, k = %d", i, k);
        }
    /* the matrix-free PGS records another measure: the title says that the worlds' measures differ */
    fake_history(&run, 1, "pgs", 20);
    title = cfv_residual_series(&run, se, t, y);
    ck_assert_str_eq(title, "residual per iteration (last step): each world's own measure");
    fake_history(&run, 0, "pgs", 20);
    title = cfv_residual_series(&run, se, t, y);
    ck_assert_str_eq(title, "residual per iteration (last step): largest impulse change per sweep (N s)");
    /* no solve in the last step: an empty series */
    fake_history(&run, 0, "pgs-boxed", 0);
    cfv_residual_series(&run, se, t, y);
    ck_assert_int_eq(se[0].n, 0);
    cfv_run_free(&run);
}
END_TEST

/* pixels of exactly colour @p c in the rectangle [x0, x1) x [y0, y1); leftmost and rightmost hit */
static int count_colour(const Shot *s, SDL_Color c, int x0, int x1, int y0, int y1, int *yl, int *yr)
{
    int n = 0, xl = W, xr = -1;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
            if (same(pixel(s, x, y), c)) {
                n++;
                if (x < xl) xl = x, *yl = y;
                if (x > xr) xr = x, *yr = y;
            }
    return n;
}

START_TEST(residual_plot_draws_the_last_solve)
{
    /* the plot column (hud_build in app.c): panels of height min(170, 0.24 H), 8 pixels apart,
       energy, angular momentum (rigid bodies), then the residual per iteration (once a solve left
       a history: a solver that keeps none, as Lemke, gets no empty panel); the first two show
       once some sample is not zero */
    cfWorld *w = new_world(cfu_zero3());
    add_body(w, cf_shape_sphere(0.5), cfu_zero3(), cfu_zero3());
    ck_assert(cfv_series_push(&app.run.slot[0].energy, 0.0, 1.0));
    ck_assert(cfv_series_push(&app.run.slot[0].momentum, 0.0, 1.0));
    plain_view();
    app.plots = true;
    cfv_app_layout(&app);
    float pw = fminf(420.0f, 0.32f * W), ph = fminf(170.0f, 0.24f * H);
    int x0 = (int)(W - pw - 8) + 1, x1 = W - 8 - 1;
    int y0 = (int)(8 + 2 * (ph + 8)) + 1, y1 = (int)(8 + 3 * ph + 16) - 1;
    Shot *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    render(a); /* no solver: no third panel */
    ck_assert(same(pixel(a, (x0 + x1) / 2, (y0 + y1) / 2), cfv_background));
    fake_history(&app.run, 0, "pgs-boxed", 0); /* a solver, but no solve yet: no panel either */
    render(a);
    ck_assert(same(pixel(a, (x0 + x1) / 2, (y0 + y1) / 2), cfv_background));
    int yl = 0, yr = 0;
    SDL_Color c = cfv_slot_color(0);
    ck_assert_int_eq(count_colour(a, c, x0, x1, y0, y1, &yl, &yr), 0);
    fake_history(&app.run, 0, "pgs-boxed", 20); /* falling from 1 to 1e-4.75 */
    render(b);
    int n = count_colour(b, c, x0, x1, y0, y1, &yl, &yr);
    ck_assert_msg(n > 20, "%d pixels of the slot's colour in the residual panel", n);
    ck_assert_msg(yr > yl + 5, "the curve falls: left end at y = %d, right end at y = %d", yl, yr);
    /* the energy panel above is untouched (its one sample drawn as before) */
    int e0 = 0, e1 = 0;
    ck_assert_int_eq(count_colour(b, c, x0, x1, 9, (int)(8 + ph) - 1, &e0, &e1),
                     count_colour(a, c, x0, x1, 9, (int)(8 + ph) - 1, &e0, &e1));
    const char *dir = getenv("CFV_TEST_PNG_DIR");
    if (dir) {
        char path[512];
        snprintf(path, sizeof path, "%s/residual_plot.png", dir);
        cfError e2;
        ck_assert(cfv_write_png(ren, path, &e2));
    }
    free(a);
    free(b);
}
END_TEST

START_TEST(plots_only_with_information)
{
    /* a world with no dynamics (energy and momentum 0 throughout) gets no plot panel and the 3D
       view keeps the whole width; a sample that is not zero brings its panel, and the view makes
       room for it */
    cfWorld *w = new_world(cfu_zero3());
    add_body(w, cf_shape_sphere(0.5), cfu_zero3(), cfu_zero3());
    for (int k = 0; k < 3; ++k) {
        cft_assert_at(cfv_series_push(&app.run.slot[0].energy, 0.1 * k, 0.0), "k = %d", k);
        cft_assert_at(cfv_series_push(&app.run.slot[0].momentum, 0.1 * k, 0.0), "k = %d", k);
    }
    plain_view();
    app.plots = true;
    cfv_app_layout(&app);
    float pw = fminf(420.0f, 0.32f * W), ph = fminf(170.0f, 0.24f * H);
    int xm = (int)(W - 8 - 0.5f * pw), y_energy = (int)(8 + 0.5f * ph), y_momentum = (int)(8 + 1.5f * ph + 8);
    Shot *a = malloc(sizeof *a);
    render(a);
    ck_assert(same(pixel(a, xm, y_energy), cfv_background));
    ck_assert(same(pixel(a, xm, y_momentum), cfv_background));
    ck_assert(app.area.w == (float)W);
    ck_assert(cfv_series_push(&app.run.slot[0].energy, 0.3, -2.0)); /* the energy changes */
    render(a);
    ck_assert(!same(pixel(a, xm, y_energy), cfv_background));
    ck_assert(same(pixel(a, xm, y_momentum), cfv_background));
    ck_assert_msg(app.area.w < W - pw, "3D area %g wide beside a %g wide panel", app.area.w, pw);
    free(a);
}
END_TEST

START_TEST(series_keep_the_whole_history)
{
    cfvSeries s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < 10000; ++i) cft_assert_at(cfv_series_push(&s, i * 0.01, (double)i), "i = %d", i);
    ck_assert_int_le(s.n, s.cap);
    ck_assert(s.t[0] == 0.0);
    ck_assert(s.t[s.n - 1] > 99.0 - 0.01 * s.stride);
    for (int i = 1; i < s.n; ++i) cft_assert_at(s.t[i] > s.t[i - 1], "i = %d", i);
    cfv_series_free(&s);
}
END_TEST

START_TEST(every_demo_is_complete)
{
    int n = 0;
    for (int i = 0; cfv_demos[i]; ++i, ++n) {
        const cfvDemo *d = cfv_demos[i];
        char prefix[8];
        snprintf(prefix, sizeof prefix, "ch%02d/", d->chapter);
        ck_assert_msg(strncmp(d->id, prefix, 5) == 0, "%s: id must start with %s", d->id, prefix);
        ck_assert_msg(d->title && d->title[0], "%s: title", d->id);
        ck_assert_msg(d->point_at && d->point_at[0], "%s: what to point at", d->id);
        ck_assert_msg(d->keys && d->keys[0], "%s: keys", d->id);
        ck_assert_msg(d->prediction && d->prediction[0], "%s: prediction", d->id);
        ck_assert_msg(d->setup && d->check && d->steps > 0, "%s: setup, check, steps", d->id);
        ck_assert_msg(!(d->step && d->record), "%s: record() runs after the default step only: not with step()", d->id);
        unsigned mask = 0;
        ck_assert_msg(!d->overlays || cfv_parse_overlays(d->overlays, &mask), "%s: overlays", d->id);
        ck_assert(cfv_demo_find(d->id) == d);
        for (int j = 0; j < i; ++j) ck_assert_msg(strcmp(cfv_demos[j]->id, d->id) != 0, "%s twice", d->id);
    }
    ck_assert_int_ge(n, 3);
    ck_assert(cfv_demo_find("ch01/no_such_demo") == NULL);
    ck_assert(cfv_demo_find("tennis_racket") == cfv_demo_find("ch01/tennis_racket"));
}
END_TEST

START_TEST(pyramid_demo_keys_change_the_solver)
{
    /* the lecture demo's keys reach the world's definition, and every setting still steps */
    static cfvRun run; /* zeroed; freed below */
    cfError err;
    ck_assert_int_eq(cfv_run_start_demo(&run, cfv_demo_find("ch05/pyramid"), &err), CF_OK);
    const cfWorldDef *d = &cfv_run_world(&run, 0)->def;
    int iters = d->solver_iterations;
    cfOrdering order = d->ordering;
    bool warm = d->warm_start;
    double omega = d->relaxation;
    cfFrictionModel fric = d->friction_model;
    ck_assert(d->solver == cf_solver_find("pgs"));
    /* pgs-fast when this build links it (the reference solutions' fast path), else pgs stays */
    const cfSolver *fast = cf_solver_find("pgs-fast");
    ck_assert(cfv_run_key(&run, '5') && d->solver == (fast ? fast : cf_solver_find("pgs")));
    ck_assert(cfv_run_key(&run, '1') && d->ordering != order);
    ck_assert(cfv_run_key(&run, '2') && d->warm_start != warm);
    ck_assert(cfv_run_key(&run, '3') && d->relaxation != omega);
    ck_assert(cfv_run_key(&run, '4') && d->friction_model != fric);
    ck_assert(!cfv_run_key(&run, 'z'));
    for (int s = 0; s < 3; ++s) cfv_run_step(&run);
    const cfWorld *w = cfv_run_world(&run, 0);
    ck_assert_int_gt(w->stats.n_contacts, 500); /* the wall at rest: 580 (scenes/ch05_pyramid_10.json) */
    ck_assert_int_eq(w->stats.solver_iterations, iters);
    ck_assert(isfinite(w->stats.solver_residual));
    ck_assert(cfv_run_key(&run, '5') && d->solver == cf_solver_find("pgs"));
    cfv_run_step(&run);
    ck_assert_int_eq(cfv_run_world(&run, 0)->stats.solver_iterations, iters);
    cfv_run_free(&run);
}
END_TEST

START_TEST(footer_keys_are_bound)
{
    /* every key a demo's footer shows does what it says: each viewer key its .keys names dispatches
       to that row's action, and the app handles it as the viewer's; each demo key is in the demos'
       namespace, bound by no viewer row, and the demo's key hook takes it */
    static cfvApp a; /* zeroed; freed below */
    for (int i = 0; cfv_demos[i]; ++i) {
        const cfvDemo *d = cfv_demos[i];
        cfv_app_init(&a, W, H);
        cfError err;
        cfStatus st = cfv_run_start_demo(&a.run, d, &err);
        ck_assert_msg(st == CF_OK, "%s: %s", d->id, err.msg);
        cfv_app_on_start(&a);
        char footer[1200];
        ck_assert_msg(cfv_footer(&a.run, footer, sizeof footer) == 0, "%s: .keys \"%s\" names a key the table does not bind",
                      d->id, d->keys);
        for (const char *p = d->keys; p && *p;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            const cfvBinding *b = cfv_binding_find(p, len);
            ck_assert_msg(b != NULL, "%s: '%.*s' is not a row of the key table", d->id, (int)len, p);
            for (int k = 0; k < b->n_keys; ++k)
                ck_assert_msg(cfv_binding_action(b->key[k].sym, b->key[k].shift, false) == b->act[k],
                              "%s: the footer's '%s' key %d does something else", d->id, b->name, k);
            /* the first key through the app: the viewer's (screenshots and quitting aside) */
            if (b->act[0] != CFV_A_SHOT && b->act[0] != CFV_A_QUIT && b->act[0] != CFV_A_RECORD) {
                cfvKeyResult r = cfv_app_key(&a, ren, b->key[0].sym, b->key[0].shift ? KMOD_SHIFT : 0);
                ck_assert_msg(r == CFV_KEY_VIEWER, "%s: the footer's '%s' key is not handled (%d)", d->id, b->name, (int)r);
            }
            p = e ? e + 1 : NULL;
        }
        for (int k = 0; d->demo_keys && d->demo_keys[k].key; ++k) {
            int key = d->demo_keys[k].key;
            ck_assert_msg(cfv_demo_key_free(key), "%s: demo key '%c' is outside the demos' namespace (digits , .)", d->id, key);
            ck_assert_msg(cfv_binding_action(key, false, false) == CFV_A_NONE, "%s: demo key '%c' is a viewer key", d->id, key);
            ck_assert_msg(cfv_app_key(&a, ren, key, 0) == CFV_KEY_DEMO, "%s: demo key '%c' (%s) is not handled", d->id, key,
                          d->demo_keys[k].what);
        }
        /* a key that is neither the viewer's nor this demo's is said to do nothing */
        ck_assert(cfv_app_key(&a, ren, SDLK_y, 0) == CFV_KEY_UNBOUND);
        ck_assert(strstr(a.flash, "does nothing") != NULL);
        cfv_app_free(&a);
    }
    /* the `h` help and the footers come from one table: its keys are unique */
    for (int i = 0; cfv_bindings[i].name; ++i)
        for (int k = 0; k < cfv_bindings[i].n_keys; ++k)
            for (int j = 0; cfv_bindings[j].name; ++j)
                for (int m = 0; m < cfv_bindings[j].n_keys; ++m)
                    if (i != j || k != m)
                        ck_assert_msg(cfv_bindings[i].key[k].sym != cfv_bindings[j].key[m].sym ||
                                          cfv_bindings[i].key[k].shift != cfv_bindings[j].key[m].shift,
                                      "'%s' and '%s' share a key", cfv_bindings[i].name, cfv_bindings[j].name);
}
END_TEST

START_TEST(the_label_follows_the_solver_and_restart_keeps_it)
{
    /* the solver key: the world's label says which solver runs; r restarts with it, R as set up */
    static cfvApp a; /* zeroed; freed below */
    cfv_app_init(&a, W, H);
    cfError err;
    ck_assert_int_eq(cfv_run_start_demo(&a.run, cfv_demo_find("ch06/incline_mu"), &err), CF_OK);
    cfv_app_on_start(&a);
    const cfSolver *first = cfv_run_world(&a.run, 0)->def.solver;
    char label[160];
    cfv_slot_label(&a.run.slot[0], label, sizeof label);
    ck_assert_str_eq(label, "Alart-Curnier Newton");
    ck_assert(cfv_app_key(&a, ren, SDLK_x, 0) == CFV_KEY_VIEWER);
    const cfSolver *next = cfv_run_world(&a.run, 0)->def.solver;
    ck_assert(next != first);
    cfv_slot_label(&a.run.slot[0], label, sizeof label);
    char want[160];
    snprintf(want, sizeof want, "Alart-Curnier Newton, now %s", next->name);
    ck_assert_str_eq(label, want);
    /* the demo's mu keys are its own: the solver stays */
    ck_assert(cfv_app_key(&a, ren, SDLK_PERIOD, 0) == CFV_KEY_DEMO);
    ck_assert(cfv_run_world(&a.run, 0)->def.solver == next);
    for (int k = 0; k < 3; ++k) cfv_run_step(&a.run);
    ck_assert(cfv_app_key(&a, ren, SDLK_r, 0) == CFV_KEY_VIEWER);
    ck_assert_int_eq(cfv_run_world(&a.run, 0)->step, 0);
    ck_assert(cfv_run_world(&a.run, 0)->def.solver == next);
    ck_assert(cfv_app_key(&a, ren, SDLK_r, KMOD_SHIFT) == CFV_KEY_VIEWER);
    ck_assert(cfv_run_world(&a.run, 0)->def.solver == first);
    cfv_app_free(&a);
}
END_TEST

START_TEST(a_solver_switch_keeps_the_stabilization)
{
    /* the lecturer's solver key on the pyramid (set up on pgs, split impulse) walks into
       pgs-blocked, an assembled form: it gets the same split stage (issue 34), so the flash names
       the solver only and the pyramid does not spread (before, Baumgarte spread it by 10.8 cm in
       120 steps) */
    static cfvApp a; /* zeroed; freed below */
    cfv_app_init(&a, W, H);
    cfError err;
    ck_assert_int_eq(cfv_run_start_demo(&a.run, cfv_demo_find("ch05/pyramid"), &err), CF_OK);
    cfv_app_on_start(&a);
    const cfSolver *blocked = cf_solver_find("pgs-blocked");
    ck_assert(blocked && !blocked->split && cf_solver_find("pgs")->split);
    for (int k = 0; k < cf_solver_count() && cfv_run_world(&a.run, 0)->def.solver != blocked; ++k)
        ck_assert(cfv_app_key(&a, ren, SDLK_x, 0) == CFV_KEY_VIEWER);
    cfWorld *w = (cfWorld *)cfv_run_world(&a.run, 0);
    ck_assert(w->def.solver == blocked);
    ck_assert_msg(strstr(a.flash, "split") == NULL && strstr(a.flash, "Baumgarte") == NULL, "flash: %s", a.flash);
    ck_assert_int_eq(w->def.stabilization, CF_STAB_SPLIT);
    cfVec3 *x0 = malloc((size_t)w->n_bodies * sizeof *x0);
    ck_assert_ptr_nonnull(x0);
    for (int i = 0; i < w->n_bodies; ++i) x0[i] = w->bodies[i].x;
    for (int k = 0; k < 60; ++k) ck_assert_int_eq(cf_world_step(w), CF_OK);
    for (int i = 0; i < w->n_bodies; ++i)
        ck_assert_msg(cfu_norm(cfu_sub(w->bodies[i].x, x0[i])) < 0.01, "box %d moved %g m", i,
                      cfu_norm(cfu_sub(w->bodies[i].x, x0[i])));
    free(x0);
    cfv_app_free(&a);
}
END_TEST

START_TEST(compared_worlds_step_as_their_solvers)
{
    /* cfview --compare: one world per solver, side by side; each steps exactly as the scene does
       with that solver alone; one slot's solver changes, the other's not; a reset keeps them */
    static cfvRun run; /* zeroed; freed below */
    const char *path = "scenes/ch05_stack_10.json";
    const cfSolver *pgs = cf_solver_find("pgs"), *prox = cf_solver_find("prox-gs");
    const cfSolver *two[] = {prox, pgs}; /* slot 0 not the scene's own solver (pgs) */
    cfError err;
    ck_assert_msg(cfv_run_start_compare(&run, path, two, 2, &err) == CF_OK, "%s", err.msg);
    ck_assert_int_eq(run.n_slots, 2);
    ck_assert(run.slot[0].w.def.solver == prox && run.slot[1].w.def.solver == pgs);
    ck_assert_str_eq(run.slot[0].label, "prox-gs");
    ck_assert_str_eq(run.slot[1].label, "pgs");
    ck_assert_double_eq(run.slot[0].offset.x, 0.0);
    ck_assert_double_ge(run.slot[1].offset.x, 1.25); /* the stack is 1 m wide: no overlap, a gap */
    for (int k = 0; k < 30; ++k) cfv_run_step(&run);
    for (int s = 0; s < 2; ++s) {
        cfWorld ref;
        ck_assert_msg(cf_scene_load(path, &ref, NULL, &err) == CF_OK, "%s", err.msg);
        ref.def.solver = two[s];
        for (int k = 0; k < 30; ++k) ck_assert_int_eq(cf_world_step(&ref), CF_OK);
        const cfWorld *w = cfv_run_world(&run, s);
        ck_assert_int_eq(w->step, 30);
        for (int b = 0; b < ref.n_bodies; ++b)
            ck_assert_msg(cfu_norm(cfu_sub(w->bodies[b].x, ref.bodies[b].x)) == 0.0, "slot %d body %d differs from %s alone",
                          s, b, two[s]->name);
        cf_world_free(&ref);
    }
    /* the two solvers give different stacks (else the comparison shows nothing) */
    ck_assert(cfu_norm(cfu_sub(run.slot[0].w.bodies[10].x, run.slot[1].w.bodies[10].x)) > 0.0);

    cfv_run_cycle_slot_solver(&run, 0, 1);
    const cfSolver *next = run.slot[0].w.def.solver;
    ck_assert(next != prox && next->contacts);
    ck_assert(run.compare[0] == next && run.slot[1].w.def.solver == pgs);
    ck_assert_str_eq(run.slot[0].label, next->name);
    ck_assert_int_eq(cfv_run_reset(&run, &err), CF_OK);
    ck_assert_int_eq(run.n_slots, 2);
    ck_assert(run.slot[0].w.def.solver == next && run.slot[1].w.def.solver == pgs);
    ck_assert_int_eq(run.slot[0].w.step, 0);
    cfv_run_free(&run);

    const cfSolver *lcp_only[] = {cf_solver_find("dantzig")};
    ck_assert_int_eq(cfv_run_start_compare(&run, path, lcp_only, 1, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "'dantzig' cannot step a world") != NULL, "%s", err.msg);
    const cfSolver *five[] = {pgs, prox, pgs, prox, pgs};
    ck_assert_int_eq(cfv_run_start_compare(&run, path, five, 5, &err), CF_BAD_INPUT);
    cfv_run_free(&run);
}
END_TEST

START_TEST(leaving_the_dual_form_drops_its_preconditioner)
{
    /* a preconditioner is a setting of the dual-form solvers only (cf_world_def_check refuses it
       with any other): cycling away from `dual` with block-diagonal W resets it, and the world
       keeps stepping */
    static cfvRun run; /* zeroed; freed below */
    const cfSolver *dual[] = {cf_solver_find("dual")};
    cfError err;
    ck_assert(dual[0] != NULL);
    ck_assert_msg(cfv_run_start_compare(&run, "scenes/ch08_jelly_cube.json", dual, 1, &err) == CF_OK, "%s", err.msg);
    ck_assert(cfv_run_cycle_preconditioner(&run, 0));
    ck_assert_int_ne(run.slot[0].w.def.preconditioner, CF_PRECOND_EXACT);
    cfv_run_cycle_slot_solver(&run, 0, 1);
    ck_assert(run.slot[0].w.def.solver->form != CF_FORM_DUAL);
    ck_assert_int_eq(run.slot[0].w.def.preconditioner, CF_PRECOND_EXACT);
    ck_assert_msg(cf_world_def_check(&run.slot[0].w.def, &err) == CF_OK, "%s", err.msg);
    cfv_run_free(&run);
}
END_TEST

START_TEST(leaving_per_island_names_one_solver)
{
    /* x on a world of chapter 11.2's rule per island: the named row solves every island, and the
       sleeping islands go with the rule (sleep_steps belongs to per-island only); it survives r */
    static cfvRun run; /* zeroed; freed below */
    cfError err;
    ck_assert_msg(cfv_run_start_scene(&run, "scenes/ch11_islands.json", &err) == CF_OK, "%s", err.msg);
    ck_assert(run.slot[0].w.def.per_island);
    cfv_run_step(&run);
    ck_assert_int_eq(run.slot[0].w.stats.island.n_solvers, 4);
    while (!run.slot[0].w.def.solver->directional) cfv_run_cycle_slot_solver(&run, 0, 1);
    ck_assert(!run.slot[0].w.def.per_island);
    ck_assert_msg(cf_world_def_check(&run.slot[0].w.def, &err) == CF_OK, "%s", err.msg);
    const cfSolver *chosen = run.slot[0].w.def.solver;
    ck_assert_int_eq(cfv_run_restart(&run, true, &err), CF_OK);
    ck_assert(!run.slot[0].w.def.per_island && run.slot[0].w.def.solver == chosen);
    cfv_run_step(&run);
    ck_assert_int_eq(run.slot[0].w.stats.island.n_solvers, 0);
    ck_assert_int_gt(run.slot[0].w.step, 0);
    cfv_run_free(&run);
}
END_TEST

START_TEST(overlay_names)
{
    unsigned m = 0;
    ck_assert(cfv_parse_overlays("ids,velocity,cones", &m));
    ck_assert_uint_eq(m, CFV_OV_IDS | CFV_OV_VELOCITY | CFV_OV_CONES);
    m = 0;
    ck_assert(cfv_parse_overlays("none", &m));
    ck_assert_uint_eq(m, 0);
    ck_assert(!cfv_parse_overlays("ids,bogus", &m));
}
END_TEST

START_TEST(unwritable_paths_are_refused)
{
    cfError err = {{0}};
    ck_assert(!cfv_path_writable("/nonexistent-cfv-dir/x.png", &err));
    ck_assert_msg(strstr(err.msg, "does not exist") != NULL, "%s", err.msg);
    ck_assert(!cfv_path_writable("/tmp", &err));
    ck_assert(cfv_path_writable("/tmp/cfv-ok.png", &err));
}
END_TEST

static void build(Suite *s)
{
    TCase *tc = cft_tcase_unit(s, "render");
    tcase_add_checked_fixture(tc, setup, teardown);
    CFT_TEST(tc, sphere_where_the_camera_looks, "a sphere is drawn where the camera looks, background elsewhere");
    CFT_TEST(tc, box_colour_and_png_file, "the PNG has the size and pixels of the frame");
    CFT_TEST(tc, nothing_in_view_is_background_only, "nothing in view: background only");
    CFT_TEST(tc, empty_world_is_background_only, "an empty world: background only");
    CFT_TEST(tc, velocity_overlay_draws_its_arrow, "the velocity overlay changes exactly the arrow's pixels");
    CFT_TEST(tc, contact_overlay_marks_the_point, "contact points and normals are drawn where the contact is");
    CFT_TEST(tc, world_contacts_are_drawn, "the world's contacts are drawn, with a made-up frame before chapter 2");
    CFT_TEST(tc, bodies_hide_the_markers_behind_them, "a contact point behind a body is hidden, beside it drawn");
    CFT_TEST(tc, the_visual_check_sees_what_the_picture_hides, "the visual check fails on a hidden, outside or tiny subject and an empty plot");
    CFT_TEST(tc, ground_plane_below_the_horizon, "a ground plane fills the view below the horizon");
    CFT_TEST(tc, soft_body_surface_is_drawn, "soft body surfaces are drawn with back-face culling");
    CFT_TEST(tc, non_finite_state_is_skipped, "a body with a non-finite state is not drawn");
    CFT_TEST(tc, hud_draws_text_over_the_view, "the HUD draws its panel");
    CFT_TEST(tc, every_shape_is_drawn, "boxes, spheres, capsules, fixed bodies and the ground are drawn");
    CFT_TEST(tc, residual_plot_draws_the_last_solve, "the residual panel draws the last solve's history, falling");
    CFT_TEST(tc, plots_only_with_information, "energy and momentum panels only when some sample is not zero");
    TCase *tu = cft_tcase_unit(s, "parts");
    CFT_TEST(tu, series_keep_the_whole_history, "plot series keep the whole run at reduced resolution");
    CFT_TEST(tu, residual_series_follow_the_stats, "residual series: one sample per iteration of the last solve");
    CFT_TEST(tu, every_demo_is_complete, "every demo has id, title, story, keys, prediction and a check");
    CFT_TEST(tu, footer_keys_are_bound, "every footer key is bound and does what it says; demo keys are the demo's");
    CFT_TEST(tu, the_label_follows_the_solver_and_restart_keeps_it, "the world label names the solver it runs; r keeps it, R not");
    CFT_TEST(tu, leaving_per_island_names_one_solver, "x on a per-island world: the named row solves every island, r keeps it");
    CFT_TEST(tu, pyramid_demo_keys_change_the_solver, "the pyramid demo's keys change iterations, order, warm start, omega, friction, solver");
    CFT_TEST(tu, compared_worlds_step_as_their_solvers, "--compare: one world per solver, each as that solver alone; x changes one");
    CFT_TEST(tu, leaving_the_dual_form_drops_its_preconditioner, "cycling from dual resets its preconditioner: the def stays valid");
    CFT_TEST(tu, overlay_names, "overlay names parse");
    CFT_TEST(tu, unwritable_paths_are_refused, "unwritable screenshot paths are refused");
    /* 60 steps of the pyramid by pgs-blocked: about 1 s of CPU, a scene's time limit */
    TCase *tsc = cft_tcase_scene(s, "scenes");
    CFT_TEST(tsc, a_solver_switch_keeps_the_stabilization, "cycling the pyramid into pgs-blocked keeps its split stage: it stands");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "viewer", build); }
