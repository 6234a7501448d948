/* SPDX-License-Identifier: MIT */
/* Demo ch03/sdf_triangle: a large triangle over a sphere SDF, which vertex sampling misses and face refinement finds. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

#include "cf/cf_ch03.h"

/*
 * What the viewer must show: the unit sphere (an analytic SDF at the origin) and the large
 * triangle (-3,-3,0.95), (3,-3,0.95), (0,3,0.95) of chapter 3's worked case (notes 2.3.2). Its
 * vertices are more than 2 m from the sphere, so vertex sampling (cf_collide_sdf_mesh with
 * faces off, ch03.6) finds nothing although the triangle cuts 5 cm into the sphere. Face
 * refinement (projected gradient descent on the barycentric weights, cf_sdf_triangle_min)
 * finds the minimum s = -0.05 at w = (0.25, 0.25, 0.5), the point (0, 0, 0.95), normal +z; the
 * contact point is the midpoint of that point and its projection on the sphere, (0, 0, 0.975).
 * Drawn: the triangle's edges, the sampled vertices with their s, and the contact found.
 * Nothing moves: the key switches face refinement on and off.
 */

typedef struct Data {
    bool vertices_only;  /* the key switched face refinement off */
    int n_vert, n_face;  /* contacts without and with face refinement */
    double phi;          /* depth of the face contact */
    cfVec3 p, n;         /* its point and normal */
    unsigned feature;
} Data;

static const cfVec3 TRI[3] = {{-3, -3, 0.95}, {3, -3, 0.95}, {0, 3, 0.95}};
static const cfSdfSphereData SPHERE = {{0, 0, 0}, 1.0};

static void show(cfvRun *run);

static cfStatus setup(cfvRun *run, cfError *err)
{
    cfWorldDef def = cf_world_def_default();
    def.gravity = cfu_zero3();
    int s = cfv_run_add_world(run, &def, "", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    cfRigidBody ball;
    cfStatus st = cf_rigid_init_fixed(&ball, cf_shape_sphere(SPHERE.r), err);
    if (st != CF_OK) return st;
    snprintf(ball.name, sizeof ball.name, "SDF sphere");
    if (cf_world_add_body(cfv_run_world(run, s), &ball) < 0) return cf_error_set(err, CF_NO_MEMORY, "out of memory");
    cfv_run_subject(run, s, 0);
    cfv_run_subject_region(run, s, cfu_vec3(-3, -3, 0.95), cfu_vec3(3, 3, 0.95)); /* the triangle */
    cfv_run_set_camera(run, cfu_zero3(), -60, 30, 0);
    show(run);
    return CF_OK;
}

/* contacts between the sphere SDF and the one-triangle mesh; -1 when out of memory */
static int collide(bool faces, cfContact *out, int max_out)
{
    cfTriMesh m = {0};
    if (cf_trimesh_init(&m, 3, 1) != CF_OK) return -1;
    for (int i = 0; i < 3; ++i) {
        m.v[i] = TRI[i];
        m.tri[0][i] = i;
    }
    cfSdf sdf = cf_sdf_of_sphere(&SPHERE);
    cfSdfMeshOptions opt = cf_sdf_mesh_options_default();
    opt.faces = faces;
    opt.alpha = 0.05; /* the worked case's step and iterations */
    opt.iters = 200;
    int n = cf_collide_sdf_mesh(&sdf, cf_pose_identity(), &m, cf_pose_identity(), &opt, out, max_out);
    cf_trimesh_free(&m);
    return n;
}

static void show(cfvRun *run)
{
    Data *d = run->data;
    cfContact cv[4], cfc[4];
    d->n_vert = collide(false, cv, 4);
    d->n_face = collide(true, cfc, 4);
    if (d->n_face >= 1) {
        d->phi = cfc[0].phi;
        d->p = cfc[0].p;
        d->n = cfc[0].n;
        d->feature = cfc[0].feature;
    }
    for (int i = 0; i < 3; ++i) { /* edges, and the vertices with the value vertex sampling sees */
        cfv_run_mark(run, 0, CFV_MARK_LINE, TRI[i], TRI[(i + 1) % 3], 0xffc040, NULL);
        char lbl[40];
        snprintf(lbl, sizeof lbl, "s = %.2f", cf_sdf_sphere(TRI[i], SPHERE.c, SPHERE.r, NULL));
        cfv_run_mark(run, 0, CFV_MARK_POINT, TRI[i], TRI[i], 0xffc040, lbl);
    }
    const cfContact *shown = d->vertices_only ? cv : cfc;
    int ns = d->vertices_only ? d->n_vert : d->n_face;
    for (int i = 0; i < ns && i < 4; ++i) {
        cfContact c = shown[i];
        c.body_a = 0;
        c.body_b = 0;
        cfv_run_add_contact(run, 0, &c);
        char lbl[40];
        snprintf(lbl, sizeof lbl, "s = %.3f", c.phi);
        cfv_run_mark(run, 0, CFV_MARK_ARROW | CFV_MARK_ON_TOP, c.p, cfu_add(c.p, cfu_scale(0.5, c.n)), 0xff4040, lbl);
        cfVec3 x = cfu_add(c.p, cfu_scale(0.5 * c.phi, c.n)); /* the point of the triangle */
        cfv_run_mark(run, 0, CFV_MARK_POINT | CFV_MARK_ON_TOP, x, x, 0xffffff, NULL);
    }
    cfv_run_info(run, 0, "%s: %d contact%s", d->vertices_only ? "vertex sampling only" : "vertices + face refinement",
                 ns, ns == 1 ? "" : "s");
    cfv_run_info(run, 1, "vertex sampling: %d; face refinement: %d, s = %.4f", d->n_vert, d->n_face, d->phi);
    cfv_run_info(run, 2, "contact point (%.3f, %.3f, %.3f), normal (%.2f, %.2f, %.2f)", d->p.x, d->p.y, d->p.z, d->n.x,
                 d->n.y, d->n.z);
}

static void step(cfvRun *run)
{
    cfWorld *w = cfv_run_world(run, 0);
    w->time += w->def.dt;
    w->step++;
    show(run);
}

static bool key(cfvRun *run, int k)
{
    Data *d = run->data;
    if (k != '1') return false;
    d->vertices_only = !d->vertices_only;
    cfv_run_clear_marks(run);
    show(run);
    return true;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    /* the contact point is the midpoint of the face point (0, 0, 0.95) and its projection (0, 0, 1) */
    double perr = cfu_norm(cfu_sub(d->p, cfu_vec3(0, 0, 0.975)));
    double nerr = cfu_norm(cfu_sub(d->n, cfu_vec3(0, 0, 1)));
    bool ok = d->n_vert == 0 && d->n_face == 1 && fabs(d->phi + 0.05) < 1e-6 && perr < 1e-4 && nerr < 1e-6;
    snprintf(msg, cap,
             "vertex sampling: %d contacts (want 0); face refinement: %d (want 1) with s = %.8f (want -0.05 within "
             "1e-6), contact point off (0, 0, 0.975) by %.2g (want < 1e-4), normal off +z by %.2g",
             d->n_vert, d->n_face, d->phi, perr, nerr);
    return ok ? 0 : 1;
}

const cfvDemo cfv_demo_ch03_sdf_triangle = {
    .id = "ch03/sdf_triangle",
    .chapter = 3,
    .title = "SDF contacts on a triangle: vertex sampling misses what face refinement finds",
    .point_at = "the triangle's corners: all more than 2 m outside the sphere (s >= 2.15), so sampling them finds "
                "nothing, yet the face cuts 5 cm into the sphere; with face refinement the red arrow marks the "
                "deepest point of the face, s = -0.05, normal +z",
    .keys = "depth,normals",
    .demo_keys = (const cfvDemoKey[]){{'1', "face refinement on / off"}, {0, NULL}},
    .prediction = "unit sphere SDF under the triangle (-3,-3,0.95), (3,-3,0.95), (0,3,0.95): vertex sampling finds "
                  "0 contacts, face refinement 1 contact with s = -0.05 and normal +z at the face point (0, 0, 0.95) (contact point (0, 0, 0.975), halfway to the surface)",
    .overlays = "points,normals,depth",
    .steps = 10,
    CFV_DEMO_STEP_HOOKS,
    .key = key,
};
