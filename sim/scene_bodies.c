/* SPDX-License-Identifier: MIT */
/* The bodies of a scene: rigid bodies and their shapes, soft bodies by type (one table row per
   type: its keys and its builder). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>
#include "cf/cf_solvers.h"
#include "scene_json.h"

/* ---- rigid bodies -------------------------------------------------------------------------- */

static cfStatus parse_shape(const cfSceneParser *p, const cJSON *obj, const char *at, cfShape *shape)
{
    static const char *const any_keys[] = {"type", "radius", "half_extents", "normal", "offset", "half_height", NULL};
    static const char *const sphere_keys[] = {"type", "radius", NULL};
    static const char *const box_keys[] = {"type", "half_extents", NULL};
    static const char *const plane_keys[] = {"type", "normal", "offset", NULL};
    static const char *const capsule_keys[] = {"type", "radius", "half_height", NULL};

    cfStatus st = cf_json_check_object(p, obj, at, any_keys);
    if (st != CF_OK) return st;
    char path[PATH_CAP];
    cf_json_field_path(path, at, "type");
    const cJSON *type = cf_json_member(obj, "type");
    if (!type) return cf_json_fail(p, path, "missing (one of: sphere, box, plane, capsule)");
    if (!cJSON_IsString(type)) return cf_json_fail(p, path, "must be a string (got %s)", cf_json_type(type));

    int t = -1;
    for (int i = 0; i < (int)CF_SHAPE_COUNT; ++i)
        if (strcmp(type->valuestring, cf_shape_name((cfShapeType)i)) == 0) t = i;
    double r = 0.0, hh = 0.0, offset = 0.0;
    cfVec3 he = cfu_zero3(), normal = cfu_zero3();
    switch (t) {
    case CF_SHAPE_SPHERE:
        st = cf_json_check_object(p, obj, at, sphere_keys);
        if (st == CF_OK) st = cf_json_need_number(p, obj, at, "radius", &r);
        if (st == CF_OK) *shape = cf_shape_sphere(r);
        break;
    case CF_SHAPE_BOX:
        st = cf_json_check_object(p, obj, at, box_keys);
        if (st == CF_OK) st = cf_json_need_vec3(p, obj, at, "half_extents", &he);
        if (st == CF_OK) *shape = cf_shape_box(he);
        break;
    case CF_SHAPE_PLANE:
        st = cf_json_check_object(p, obj, at, plane_keys);
        if (st == CF_OK) st = cf_json_need_vec3(p, obj, at, "normal", &normal);
        if (st == CF_OK) st = cf_json_get_number(p, obj, at, "offset", &offset);
        if (st == CF_OK) *shape = cf_shape_plane(normal, offset);
        break;
    case CF_SHAPE_CAPSULE:
        st = cf_json_check_object(p, obj, at, capsule_keys);
        if (st == CF_OK) st = cf_json_need_number(p, obj, at, "radius", &r);
        if (st == CF_OK) st = cf_json_need_number(p, obj, at, "half_height", &hh);
        if (st == CF_OK) *shape = cf_shape_capsule(r, hh);
        break;
    default:
        return cf_json_fail(p, path, "unknown shape type '%s' (expected one of: sphere, box, plane, capsule)",
                    type->valuestring);
    }
    if (st != CF_OK) return st;
    cfError inner = {{0}};
    st = cf_shape_validate(shape, &inner);
    if (st != CF_OK) return cf_json_fail_from(p, at, st, &inner);
    return CF_OK;
}

cfStatus cf_scene_rigid(const cfSceneParser *p, const cJSON *obj, int index, cfRigidBody *b)
{
    static const char *const keys[] = {"name", "shape", "fixed", "mass", "inertia", "position", "orientation",
                                       "velocity", "angular_velocity", "force", "torque", "mu",
                                       "restitution", "texture", "pull", "island_solver", NULL};
    char at[PATH_CAP], path[PATH_CAP];
    cf_json_path(at, "bodies[%d]", index);
    cfStatus st = cf_json_check_object(p, obj, at, keys);
    if (st != CF_OK) return st;

    cf_json_field_path(path, at, "shape");
    const cJSON *shape_item = cf_json_member(obj, "shape");
    if (!shape_item) return cf_json_fail(p, path, "missing (an object with a \"type\" is required)");
    cfShape shape;
    st = parse_shape(p, shape_item, path, &shape);
    if (st != CF_OK) return st;
    bool plane = shape.type == CF_SHAPE_PLANE;

    bool fixed = false;
    st = cf_json_get_bool(p, obj, at, "fixed", &fixed);
    if (st != CF_OK) return st;

    /* keys that make no sense for a fixed body or a plane are refused rather than ignored */
    static const char *const not_fixed[] = {"mass",  "inertia", "velocity", "angular_velocity", "force", "torque",
                                            "pull", "island_solver", NULL};
    for (const char *const *k = not_fixed; fixed && *k; ++k)
        if (cf_json_member(obj, *k)) {
            cf_json_field_path(path, at, *k);
            return cf_json_fail(p, path, "not allowed on a fixed body (it never moves)");
        }
    static const char *const not_plane[] = {"position", "orientation", NULL};
    for (const char *const *k = not_plane; plane && *k; ++k)
        if (cf_json_member(obj, *k)) {
            cf_json_field_path(path, at, *k);
            return cf_json_fail(p, path, "not allowed on a plane (it is placed by its normal and offset)");
        }

    cfError inner = {{0}};
    if (fixed) {
        st = cf_rigid_init_fixed(b, shape, &inner);
    } else {
        /* a plane without "fixed" is refused by cf_rigid_init() ("a plane must be fixed") */
        double mass = 0.0;
        st = plane ? cf_json_get_number(p, obj, at, "mass", &mass) : cf_json_need_number(p, obj, at, "mass", &mass);
        if (st != CF_OK) return st;
        st = cf_rigid_init(b, shape, mass, &inner);
    }
    if (st != CF_OK) return cf_json_fail_from(p, at, st, &inner);

    if (cf_json_member(obj, "inertia")) {
        cfVec3 inertia = cfu_zero3();
        st = cf_json_get_vec3(p, obj, at, "inertia", &inertia);
        if (st != CF_OK) return st;
        st = cf_rigid_set_inertia(b, inertia, &inner);
        if (st != CF_OK) return cf_json_fail_from(p, at, st, &inner);
    }

    if ((st = cf_json_get_string(p, obj, at, "name", b->name, sizeof b->name)) != CF_OK) return st;
    if (!cf_json_member(obj, "name")) snprintf(b->name, sizeof b->name, "body%d", index);
    if ((st = cf_json_get_vec3(p, obj, at, "position", &b->x)) != CF_OK) return st;
    if ((st = cf_json_get_unit_quat(p, obj, at, "orientation", &b->q)) != CF_OK) return st;
    if ((st = cf_json_get_vec3(p, obj, at, "velocity", &b->v)) != CF_OK) return st;
    if ((st = cf_json_get_vec3(p, obj, at, "angular_velocity", &b->w)) != CF_OK) return st;
    if ((st = cf_json_get_vec3(p, obj, at, "force", &b->force)) != CF_OK) return st;
    if ((st = cf_json_get_vec3(p, obj, at, "torque", &b->torque)) != CF_OK) return st;
    if ((st = cf_json_get_number(p, obj, at, "mu", &b->mu)) != CF_OK) return st;
    if ((st = cf_json_nonnegative(p, at, "mu", b->mu)) != CF_OK) return st;
    if ((st = cf_json_get_number(p, obj, at, "restitution", &b->restitution)) != CF_OK) return st;
    if (!(b->restitution >= 0.0 && b->restitution <= 1.0)) {
        cf_json_field_path(path, at, "restitution");
        return cf_json_fail(p, path, "must be in [0, 1] (got %g)", b->restitution);
    }
    cf_rigid_update_inertia(b);
    return CF_OK;
}

/* bodies[i].texture (chapter 10.6): {"size": [nx, ny], "cell": c, "heights": [nx ny numbers, row j = v-index],
   "origin": o, "u": u, "v": v} in the body's frame (defaults: origin 0, u = x, v = y) */
static cfStatus parse_texture(const cfSceneParser *p, const cJSON *obj, const char *at, int body, cfWorld *w)
{
    static const char *const keys[] = {"size", "cell", "heights", "origin", "u", "v", NULL};
    cfStatus st = cf_json_check_object(p, obj, at, keys);
    if (st != CF_OK) return st;
    char path[PATH_CAP];
    cfBodyTexture t = {.body = body, .origin = cfu_zero3(), .u = cfu_vec3(1, 0, 0), .v = cfu_vec3(0, 1, 0)};
    double size[2];
    cf_json_field_path(path, at, "size");
    if (!cf_json_member(obj, "size")) return cf_json_fail(p, path, "missing ([nx, ny]: samples per period along u and v)");
    if ((st = cf_json_numbers(p, cf_json_member(obj, "size"), path, 2, size)) != CF_OK) return st;
    for (int k = 0; k < 2; ++k)
        if (!(size[k] == floor(size[k]) && size[k] >= 2 && size[k] <= CF_TEXTURE_GRID_MAX)) {
            char ep[PATH_CAP];
            cf_json_path(ep, "%s[%d]", path, k);
            return cf_json_fail(p, ep, "must be an integer in 2..%d (got %g)", CF_TEXTURE_GRID_MAX, size[k]);
        }
    t.nx = (int)size[0];
    t.ny = (int)size[1];
    if ((st = cf_json_need_number(p, obj, at, "cell", &t.cell)) != CF_OK) return st;
    if (!(t.cell > 0.0)) {
        cf_json_field_path(path, at, "cell");
        return cf_json_fail(p, path, "must be > 0 m (got %g)", t.cell);
    }
    const cJSON *hs = cf_json_member(obj, "heights");
    cf_json_field_path(path, at, "heights");
    int n = t.nx * t.ny;
    if (!cJSON_IsArray(hs) || cJSON_GetArraySize(hs) != n)
        return cf_json_fail(p, path, "must be an array of nx ny = %d x %d = %d numbers (got %s%d)", t.nx, t.ny, n,
                            cJSON_IsArray(hs) ? "" : "no array, ", cJSON_IsArray(hs) ? cJSON_GetArraySize(hs) : 0);
    double *h = malloc((size_t)n * sizeof *h);
    if (!h) return cf_error_set(p->err, CF_NO_MEMORY, "%s: %s: out of memory", p->label, path);
    st = cf_json_numbers(p, hs, path, n, h);
    if (st == CF_OK) st = cf_json_get_vec3(p, obj, at, "origin", &t.origin);
    if (st == CF_OK) st = cf_json_get_vec3(p, obj, at, "u", &t.u);
    if (st == CF_OK) st = cf_json_get_vec3(p, obj, at, "v", &t.v);
    if (st == CF_OK) {
        t.h = h;
        cfError inner = {{0}};
        st = cf_world_add_texture(w, &t, &inner);
        if (st != CF_OK) st = cf_json_fail_from(p, at, st, &inner);
    }
    free(h);
    return st;
}

/* bodies[i].pull: {"velocity": v, "stiffness": k, "damping": c, "anchor": a} (a spring drive, cfPull;
   anchor default: the body's position) */
static cfStatus parse_pull(const cfSceneParser *p, const cJSON *obj, const char *at, int body, cfWorld *w)
{
    static const char *const keys[] = {"velocity", "stiffness", "damping", "anchor", NULL};
    cfStatus st = cf_json_check_object(p, obj, at, keys);
    if (st != CF_OK) return st;
    cfPull pu = {.body = body, .anchor = w->bodies[body].x};
    if ((st = cf_json_need_vec3(p, obj, at, "velocity", &pu.velocity)) != CF_OK) return st;
    if ((st = cf_json_need_number(p, obj, at, "stiffness", &pu.stiffness)) != CF_OK) return st;
    if ((st = cf_json_get_number(p, obj, at, "damping", &pu.damping)) != CF_OK) return st;
    if ((st = cf_json_get_vec3(p, obj, at, "anchor", &pu.anchor)) != CF_OK) return st;
    cfError inner = {{0}};
    st = cf_world_add_pull(w, &pu, &inner);
    return st == CF_OK ? CF_OK : cf_json_fail_from(p, at, st, &inner);
}

/* "island_solver": the world solver of this body's island under world.solver "per-island", in
   place of chapter 11.2's rule (cfWorldDef::island_solver) */
static cfStatus parse_island_solver(const cfSceneParser *p, const cJSON *obj, int index, cfWorld *w)
{
    char at[PATH_CAP], path[PATH_CAP], name[32];
    cf_json_path(at, "bodies[%d]", index);
    cf_json_field_path(path, at, "island_solver");
    cfStatus st = cf_json_get_string(p, obj, at, "island_solver", name, sizeof name);
    if (st != CF_OK) return st;
    /* a scene whose own solver is not per-island cannot mean it; a caller's solver in its place
       (cflab run --solver, compare) leaves the choice recorded and unused */
    if (!w->def.per_island && !p->solver)
        return cf_json_fail(p, path, "chooses the solver of the body's island, so it needs world.solver \"%s\" (got '%s')",
                            CF_SOLVER_PER_ISLAND, w->def.solver ? w->def.solver->name : "none");
    const cfSolver *s = cf_solver_find(name);
    if (!s || !s->contacts) {
        char names[512];
        return cf_json_fail(p, path, "'%s' is not a world solver of this build (%s)", name,
                            cf_solver_names(CF_SOLVERS_WORLD, names, sizeof names));
    }
    if (w->def.n_island_solvers == CF_ISLAND_SOLVERS_MAX)
        return cf_json_fail(p, path, "at most %d bodies of a scene choose their island's solver", CF_ISLAND_SOLVERS_MAX);
    w->def.island_solver[w->def.n_island_solvers].body = index;
    snprintf(w->def.island_solver[w->def.n_island_solvers].solver, sizeof w->def.island_solver[0].solver, "%s", s->name);
    w->def.n_island_solvers++;
    return CF_OK;
}

cfStatus cf_scene_rigid_extras(const cfSceneParser *p, const cJSON *obj, int index, cfWorld *w)
{
    char at[PATH_CAP];
    cfStatus st = CF_OK;
    const cJSON *t = cf_json_member(obj, "texture"), *pu = cf_json_member(obj, "pull");
    if (t) {
        cf_json_path(at, "bodies[%d].texture", index);
        st = parse_texture(p, t, at, index, w);
    }
    if (st == CF_OK && pu) {
        cf_json_path(at, "bodies[%d].pull", index);
        st = parse_pull(p, pu, at, index, w);
    }
    if (st == CF_OK && cf_json_member(obj, "island_solver")) st = parse_island_solver(p, obj, index, w);
    return st;
}

/* A box of 8 nodes (node i at the corner with x, y, z high by bits 0, 1, 2; total mass @p mass), its
   12 surface triangles counter-clockwise from outside and a spring of stiffness @p k between every
   two nodes (28): chapter 9's soft box (cf_ipc_add_box()), in the same order. */
static cfStatus spring_box(cfSoftBody *s, cfVec3 origin, cfVec3 size, double mass, double k, cfError *err)
{
    static const int F[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                 {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    cfStatus st = cf_soft_init(s, 8);
    if (st != CF_OK) return cf_error_set(err, st, "out of memory");
    for (int i = 0; i < 8; ++i) {
        s->x[i] = cfu_add(origin, cfu_vec3(i & 1 ? size.x : 0.0, i & 2 ? size.y : 0.0, i & 4 ? size.z : 0.0));
        s->mass[i] = mass / 8.0;
    }
    for (int f = 0; f < 12 && st == CF_OK; ++f) st = cf_soft_add_tri(s, F[f][0], F[f][1], F[f][2], err);
    for (int i = 0; i < 8 && st == CF_OK; ++i)
        for (int j = i + 1; j < 8 && st == CF_OK; ++j) st = cf_soft_add_spring(s, i, j, k, -1.0, err);
    if (st == CF_OK) st = cf_soft_finalize(s, err);
    if (st != CF_OK) cf_soft_free(s);
    return st;
}
/* ---- soft bodies, one builder per type ----------------------------------------------------------- */

static cfStatus build_tet_box(const cfSceneParser *p, const cJSON *obj, const char *at, cfSoftBody *s)
{
    cfVec3 origin = cfu_zero3(), size = cfu_zero3();
    double density = 0.0, young = 0.0, poisson = 0.0;
    bool fix = false;
    int n[3] = {0, 0, 0};
    cfStatus st = cf_json_get_vec3(p, obj, at, "origin", &origin);
    if (st == CF_OK) st = cf_json_need_vec3(p, obj, at, "size", &size);
    if (st == CF_OK) st = cf_json_need_int3(p, obj, at, "cells", n);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "density", &density);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "young", &young);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "poisson", &poisson);
    if (st == CF_OK) st = cf_json_get_bool(p, obj, at, "fix_min_x", &fix);
    if (st != CF_OK) return st;
    if (n[0] > 0 && n[1] > 0 && n[2] > 0 &&
        (st = cf_scene_spend(p, at, "cells", 5.0 * n[0] * n[1] * n[2] + (n[0] + 1.0) * (n[1] + 1.0) * (n[2] + 1.0))) != CF_OK)
        return st;
    cfError inner = {{0}};
    st = cf_soft_make_tet_box(s, origin, size, n[0], n[1], n[2], density, young, poisson, fix, &inner);
    return st == CF_OK ? CF_OK : cf_json_fail_from(p, at, st, &inner);
}

static cfStatus build_tet_ball(const cfSceneParser *p, const cJSON *obj, const char *at, cfSoftBody *s)
{
    cfVec3 center = cfu_zero3();
    double radius = 0.0, density = 0.0, young = 0.0, poisson = 0.0;
    int cells = 0;
    cfStatus st = cf_json_get_vec3(p, obj, at, "center", &center);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "radius", &radius);
    if (st == CF_OK) st = cf_json_need_int(p, obj, at, "cells", &cells);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "density", &density);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "young", &young);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "poisson", &poisson);
    if (st != CF_OK) return st;
    if (cells > 0 && (st = cf_scene_spend(p, at, "cells", 6.0 * cells * cells * cells)) != CF_OK) return st;
    cfError inner = {{0}};
    st = cf_soft_make_tet_ball(s, center, radius, cells, density, young, poisson, &inner);
    return st == CF_OK ? CF_OK : cf_json_fail_from(p, at, st, &inner);
}

/* "cells": two integers [nu, nv] in [1, 1000] */
static cfStatus cloth_cells(const cfSceneParser *p, const cJSON *obj, const char *at, int n[2])
{
    char path[PATH_CAP];
    cf_json_field_path(path, at, "cells");
    const cJSON *c = cf_json_member(obj, "cells");
    double v[2];
    if (!c) return cf_json_fail(p, path, "missing (two cell counts [nu, nv])");
    cfStatus st = cf_json_numbers(p, c, path, 2, v);
    if (st != CF_OK) return st;
    if (v[0] != floor(v[0]) || v[1] != floor(v[1]) || v[0] < 1 || v[1] < 1 || v[0] > 1000 || v[1] > 1000)
        st = cf_json_fail(p, path, "two integers in [1, 1000] (got [%g, %g])", v[0], v[1]);
    n[0] = (int)v[0], n[1] = (int)v[1];
    return st;
}

static cfStatus build_cloth(const cfSceneParser *p, const cJSON *obj, const char *at, cfSoftBody *s)
{
    cfVec3 origin = cfu_zero3(), du = cfu_zero3(), dv = cfu_zero3();
    double mass = 0.0, ks = 0.0, kh = 0.0, kb = 0.0, th = 0.0;
    int n[2] = {0, 0};
    cfStatus st = cf_json_get_vec3(p, obj, at, "origin", &origin);
    if (st == CF_OK) st = cf_json_need_vec3(p, obj, at, "du", &du);
    if (st == CF_OK) st = cf_json_need_vec3(p, obj, at, "dv", &dv);
    if (st == CF_OK) st = cloth_cells(p, obj, at, n);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "mass", &mass);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "stretch", &ks);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "shear", &kh);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "bend", &kb);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "thickness", &th);
    if (st != CF_OK) return st;
    if ((st = cf_scene_spend(p, at, "cells", 8.0 * (n[0] + 1.0) * (n[1] + 1.0))) != CF_OK) return st;
    bool pin = false;
    if ((st = cf_json_get_bool(p, obj, at, "pin_corners", &pin)) != CF_OK) return st;
    cfError inner = {{0}};
    st = cf_soft_make_cloth(s, origin, du, dv, n[0], n[1], mass, ks, kh, kb, th, &inner);
    if (st != CF_OK) return cf_json_fail_from(p, at, st, &inner);
    /* a hammock: the nodes at the sheet's four corners never move */
    cfVec3 corner[4] = {origin, cfu_add(origin, du), cfu_add(origin, dv), cfu_add(cfu_add(origin, du), dv)};
    double tol = 1e-9 * (cfu_norm(du) + cfu_norm(dv));
    for (int i = 0; pin && i < s->n_nodes; ++i)
        for (int k = 0; k < 4; ++k)
            if (cfu_norm(cfu_sub(s->x[i], corner[k])) <= tol) s->fixed[i] = true;
    return CF_OK;
}

static cfStatus build_tetgen(const cfSceneParser *p, const cJSON *obj, const char *at, cfSoftBody *s)
{
    char node[256] = "", ele[256] = "", npath[PATH_CAP + 256], epath[PATH_CAP + 256];
    cfVec3 offset = cfu_zero3();
    double scale = 1.0, density = 0.0, young = 0.0, poisson = 0.0;
    cfStatus st = cf_json_get_string(p, obj, at, "node", node, sizeof node);
    if (st == CF_OK) st = cf_json_get_string(p, obj, at, "ele", ele, sizeof ele);
    if (st == CF_OK && (!node[0] || !ele[0]))
        st = cf_json_fail(p, at, "a tetgen body needs \"node\" and \"ele\" (file names, relative to the scene file)");
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "scale", &scale);
    if (st == CF_OK) st = cf_json_get_vec3(p, obj, at, "offset", &offset);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "density", &density);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "young", &young);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "poisson", &poisson);
    if (st != CF_OK) return st;
    cf_scene_relative(p, node, npath, sizeof npath);
    cf_scene_relative(p, ele, epath, sizeof epath);
    cfError inner = {{0}};
    st = cf_soft_read_tetgen(s, npath, epath, scale, offset, density, young, poisson, fmax(*p->elements_left, 0.5), &inner);
    if (st != CF_OK) {
        cf_soft_free(s);
        /* the reader names its file and line ("mesh.node:2: ..."): after the body, not glued to its path */
        return cf_error_set(p->err, st, "%s: %s: %s", p->label, at, inner.msg[0] ? inner.msg : cf_status_name(st));
    }
    st = cf_scene_spend(p, at, "node", (double)s->n_nodes + s->n_tets);
    if (st != CF_OK) cf_soft_free(s);
    return st;
}

static cfStatus build_chain(const cfSceneParser *p, const cJSON *obj, const char *at, cfSoftBody *s)
{
    cfVec3 from = cfu_zero3(), to = cfu_zero3();
    int nodes = 0;
    double k = 0.0, node_mass = 0.0;
    bool fix = false;
    cfStatus st = cf_json_need_vec3(p, obj, at, "from", &from);
    if (st == CF_OK) st = cf_json_need_vec3(p, obj, at, "to", &to);
    if (st == CF_OK) st = cf_json_need_int(p, obj, at, "nodes", &nodes);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "stiffness", &k);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "node_mass", &node_mass);
    if (st == CF_OK) st = cf_json_get_bool(p, obj, at, "fix_first", &fix);
    if (st != CF_OK) return st;
    if (nodes > 0 && (st = cf_scene_spend(p, at, "nodes", 2.0 * nodes)) != CF_OK) return st;
    cfError inner = {{0}};
    st = cf_soft_make_chain(s, from, to, nodes, k, node_mass, fix, &inner);
    return st == CF_OK ? CF_OK : cf_json_fail_from(p, at, st, &inner);
}

static cfStatus build_spring_box(const cfSceneParser *p, const cJSON *obj, const char *at, cfSoftBody *s)
{
    cfVec3 origin = cfu_zero3(), size = cfu_zero3();
    double mass = 0.0, k = 0.0;
    cfStatus st = cf_json_get_vec3(p, obj, at, "origin", &origin);
    if (st == CF_OK) st = cf_json_need_vec3(p, obj, at, "size", &size);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "mass", &mass);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "stiffness", &k);
    if (st != CF_OK) return st;
    if (!(size.x > 0.0 && size.y > 0.0 && size.z > 0.0))
        return cf_json_fail(p, at, "size: every side must be > 0 (got [%g, %g, %g])", size.x, size.y, size.z);
    if (!(mass > 0.0)) return cf_json_fail(p, at, "mass: must be > 0 (got %g)", mass);
    if (!(k > 0.0)) return cf_json_fail(p, at, "stiffness: must be > 0 (got %g)", k);
    cfError inner = {{0}};
    st = spring_box(s, origin, size, mass, k, &inner);
    return st == CF_OK ? CF_OK : cf_json_fail_from(p, at, st, &inner);
}

static cfStatus build_particle(const cfSceneParser *p, const cJSON *obj, const char *at, cfSoftBody *s)
{
    cfVec3 x = cfu_zero3();
    double mass = 0.0;
    cfStatus st = cf_json_need_vec3(p, obj, at, "position", &x);
    if (st == CF_OK) st = cf_json_need_number(p, obj, at, "mass", &mass);
    if (st != CF_OK) return st;
    if (!(mass > 0.0)) return cf_json_fail(p, at, "mass: must be > 0 (got %g)", mass);
    cfError inner = {{0}};
    st = cf_soft_init(s, 1);
    if (st == CF_OK) {
        s->x[0] = x;
        s->mass[0] = mass;
        st = cf_soft_finalize(s, &inner);
    }
    if (st == CF_OK) return CF_OK;
    cf_soft_free(s);
    return inner.msg[0] ? cf_json_fail_from(p, at, st, &inner) : cf_error_set(p->err, st, "%s: %s: out of memory", p->label, at);
}

/* every type's keys (the common ones too) and its builder, in the order messages list them */
typedef struct SoftType {
    const char *name;
    const char *const *keys;
    cfStatus (*build)(const cfSceneParser *p, const cJSON *obj, const char *at, cfSoftBody *s);
} SoftType;

static const char *const box_keys[] = {"name", "type", "origin", "size", "cells", "density", "young", "poisson",
                                       "fix_min_x", "damping", "mu", "velocity", "corotational", "consistent_mass",
                                       "thickness", NULL};
static const char *const ball_keys[] = {"name", "type", "center", "radius", "cells", "density", "young", "poisson",
                                        "damping", "mu", "velocity", "corotational", "consistent_mass", "thickness", NULL};
static const char *const tetgen_keys[] = {"name", "type", "node", "ele", "scale", "offset", "density", "young",
                                          "poisson", "damping", "mu", "velocity", "corotational", "consistent_mass",
                                          "thickness", NULL};
static const char *const cloth_keys[] = {"name", "type", "origin", "du", "dv", "cells", "mass", "stretch", "shear",
                                         "bend", "thickness", "damping", "mu", "velocity", "pin_corners", NULL};
static const char *const chain_keys[] = {"name", "type", "from", "to", "nodes", "stiffness", "node_mass",
                                         "fix_first", "damping", "mu", "velocity", "thickness", NULL};
static const char *const spring_box_keys[] = {"name", "type", "origin", "size", "mass", "stiffness", "mu",
                                              "velocity", NULL};
static const char *const particle_keys[] = {"name", "type", "position", "mass", "mu", "velocity", NULL};

static const SoftType SOFT_TYPES[] = {
    {"tet_box", box_keys, build_tet_box},          {"tet_ball", ball_keys, build_tet_ball},
    {"tetgen", tetgen_keys, build_tetgen},         {"cloth", cloth_keys, build_cloth},
    {"chain", chain_keys, build_chain},            {"spring_box", spring_box_keys, build_spring_box},
    {"particle", particle_keys, build_particle},
};
#define N_SOFT_TYPES ((int)(sizeof SOFT_TYPES / sizeof SOFT_TYPES[0]))

/* the models of the tetrahedra (chapter 8), the contact thickness and the settings every type has,
   applied to the constructed body */
static cfStatus soft_common(const cfSceneParser *p, const cJSON *obj, const char *at, cfSoftBody *s)
{
    cfStatus st;
    if ((st = cf_json_get_bool(p, obj, at, "corotational", &s->corotational)) != CF_OK) return st;
    if ((st = cf_json_get_bool(p, obj, at, "consistent_mass", &s->consistent_mass)) != CF_OK) return st;
    if ((st = cf_json_get_number(p, obj, at, "thickness", &s->thickness)) != CF_OK) return st;
    if ((st = cf_json_nonnegative(p, at, "thickness", s->thickness)) != CF_OK) return st;
    if ((st = cf_json_get_string(p, obj, at, "name", s->name, sizeof s->name)) != CF_OK) return st;
    if ((st = cf_json_get_number(p, obj, at, "mu", &s->mu)) != CF_OK) return st;
    if ((st = cf_json_nonnegative(p, at, "mu", s->mu)) != CF_OK) return st;
    if (cf_json_member(obj, "damping")) {
        double d[2];
        char path[PATH_CAP];
        cf_json_field_path(path, at, "damping");
        if ((st = cf_json_numbers(p, cf_json_member(obj, "damping"), path, 2, d)) != CF_OK) return st;
        if (d[0] < 0.0 || d[1] < 0.0)
            return cf_json_fail(p, path, "Rayleigh coefficients [alpha, beta] must be >= 0 (got [%g, %g])", d[0], d[1]);
        s->damping_alpha = d[0];
        s->damping_beta = d[1];
    }
    if (cf_json_member(obj, "velocity")) {
        cfVec3 v = cfu_zero3();
        if ((st = cf_json_get_vec3(p, obj, at, "velocity", &v)) != CF_OK) return st;
        for (int i = 0; i < s->n_nodes; ++i) s->v[i] = s->fixed[i] ? cfu_zero3() : v;
    }
    return CF_OK;
}

/* Build the soft body of @p obj into @p s (zeroed by the caller; freed by the caller on error). */
static cfStatus build_soft(const cfSceneParser *p, const cJSON *obj, const char *at, cfSoftBody *s)
{
    static const char *const any_keys[] = {"name", "type", "origin", "size", "cells", "density", "young", "poisson",
                                           "fix_min_x", "from", "to", "nodes", "stiffness", "node_mass", "fix_first",
                                           "damping", "mu", "velocity", "center", "radius", "du", "dv", "mass",
                                           "stretch", "shear", "bend", "thickness", "node", "ele", "scale", "offset",
                                           "corotational", "consistent_mass", "position", "pin_corners", NULL};
    char path[PATH_CAP], types[160] = "";
    for (int i = 0; i < N_SOFT_TYPES; ++i) {
        size_t used = strlen(types);
        snprintf(types + used, sizeof types - used, "%s%s", i ? ", " : "", SOFT_TYPES[i].name);
    }
    cfStatus st = cf_json_check_object(p, obj, at, any_keys);
    if (st != CF_OK) return st;
    cf_json_field_path(path, at, "type");
    const cJSON *type = cf_json_member(obj, "type");
    if (!type) return cf_json_fail(p, path, "missing (one of: %s)", types);
    if (!cJSON_IsString(type)) return cf_json_fail(p, path, "must be a string (got %s)", cf_json_type(type));
    const SoftType *t = NULL;
    for (int i = 0; i < N_SOFT_TYPES && !t; ++i)
        if (strcmp(type->valuestring, SOFT_TYPES[i].name) == 0) t = &SOFT_TYPES[i];
    if (!t) return cf_json_fail(p, path, "unknown soft body type '%s' (expected one of: %s)", type->valuestring, types);
    st = cf_json_check_object(p, obj, at, t->keys);
    if (st == CF_OK) st = t->build(p, obj, at, s);
    return st == CF_OK ? soft_common(p, obj, at, s) : st;
}

cfStatus cf_scene_soft(const cfSceneParser *p, const cJSON *obj, int index, cfWorld *w)
{
    char at[PATH_CAP];
    cf_json_path(at, "soft_bodies[%d]", index);
    cfSoftBody s;
    memset(&s, 0, sizeof s);
    cfStatus st = build_soft(p, obj, at, &s);
    if (st == CF_OK && !cf_json_member(obj, "name")) snprintf(s.name, sizeof s.name, "soft%d", index);
    if (st == CF_OK && cf_world_add_soft(w, &s) < 0)
        st = cf_error_set(p->err, CF_NO_MEMORY, "%s: %s: out of memory", p->label, at);
    cf_soft_free(&s); /* zeroed when the world took it */
    return st;
}
