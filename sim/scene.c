/* SPDX-License-Identifier: MIT */
/* Scene files: JSON text -> cfWorld and cfSceneInfo, with one-line messages naming the source,
   the position or field path, and the reason. The world's settings and friction pairs are read
   here, the bodies in scene_bodies.c, every value through scene_json.c. */
#include "cf/cf_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch10.h"
#include "cf/cf_solvers.h"
#include "scene_json.h"

/* scene files are small; anything larger is almost certainly the wrong file */
#define SCENE_MAX_BYTES ((size_t)64 * 1024 * 1024)
/* default of cfSceneInfo::steps */
#define SCENE_DEFAULT_STEPS 600

/* ---- the "world" object -------------------------------------------------------------------- */

static const char *rigid_integrator_name(int i) { return cf_rigid_integrator_name((cfRigidIntegrator)i); }
static const char *soft_integrator_name(int i) { return cf_soft_integrator_name((cfSoftIntegrator)i); }
static const char *detector_name(int i) { return cf_detector_name((cfDetector)i); }
static const char *friction_model_name(int i) { return cf_friction_model_name((cfFrictionModel)i); }
static const char *ordering_name(int i) { return cf_ordering_name((cfOrdering)i); }
static const char *rfactor_name(int i) { return cf_rfactor_name((cfRFactor)i); }
static const char *stabilization_name(int i) { return cf_stabilization_name((cfStabilization)i); }
static const char *certify_name(int i) { return cf_certify_name((cfCertify)i); }
static const char *preconditioner_name(int i) { return cf_preconditioner_name((cfPreconditioner)i); }
static const char *pipeline_name(int i) { return cf_pipeline_name((cfPipelineKind)i); }
static const char *failure_name(int i) { return cf_solver_failure_name((cfSolverFailure)i); }
static const char *implicit_integrator_name(int i) { return cf_implicit_integrator_name((cfImplicitIntegrator)i); }
static const char *slide_profile_name(int i) { return cf_slide_profile_name((cfSlideProfile)i); }

/* the string member @p key as a value of an enum with @p count names (a no-op once st failed) */
#define GET_ENUM(key, what, names, count, field)                                                     \
    do {                                                                                           \
        int v_ = (int)(field);                                                                     \
        const cfJsonEnum e_ = {what, names, (int)(count)};                                         \
        if (st == CF_OK) st = cf_json_get_enum(p, obj, at, key, &e_, &v_);                         \
        (field) = v_;                                                                              \
    } while (0)

/* "solver": a row of the registry that a world can use (cf_solvers.h), "none", or "per-island"
   (cfWorldDef::per_island: pgs for the stages before the solve) */
static cfStatus get_solver(const cfSceneParser *p, const cJSON *obj, const char *at, cfWorldDef *def)
{
    const cfSolver **out = &def->solver;
    const cJSON *item = cf_json_member(obj, "solver");
    char path[PATH_CAP], names[512];
    cf_json_field_path(path, at, "solver");
    if (item && !cJSON_IsString(item)) return cf_json_fail(p, path, "must be a string (got %s)", cf_json_type(item));
    const char *name = p->solver ? p->solver : item ? item->valuestring : NULL;
    if (!name) return CF_OK;
    if (p->solver) snprintf(path, sizeof path, "the solver asked for instead of the scene's");
    def->per_island = false;
    if (strcmp(name, "none") == 0) {
        *out = NULL;
        return CF_OK;
    }
    if (strcmp(name, CF_SOLVER_PER_ISLAND) == 0) {
        def->per_island = true;
        *out = cf_solver_find("pgs");
        return CF_OK;
    }
    const cfSolver *s = cf_solver_find(name);
    if (!s)
        return cf_json_fail(p, path, "unknown solver '%s' (expected none, " CF_SOLVER_PER_ISLAND " or one of: %s)%s", name,
                    cf_solver_names(CF_SOLVERS_WORLD, names, sizeof names), cf_solver_absent_reason(name));
    *out = s; /* one that takes no contact problems is refused by cf_world_def_check(), with the reason */
    return CF_OK;
}

/* ---- the "world" object -------------------------------------------------------------------- */

static cfStatus parse_world_def(const cfSceneParser *p, const cJSON *obj, cfWorldDef *def, cfSceneInfo *info)
{
    static const char *const keys[] = {"gravity", "dt", "steps", "rigid_integrator", "gyroscopic",
                                       "soft_integrator", "solver_iterations", "solver_tolerance", "soft_tolerance",
                                       "detector", "contact_margin", "manifold_tolerance", "solver", "friction_model",
                                       "friction_directions", "warm_start", "ordering", "relaxation", "r_factor", "erp",
                                       "cfm", "contact_stiffness", "contact_damping", "stabilization", "sleep_steps", "slop",
                                       "restitution_threshold", "split_iterations", "certify",
                                       "seed", "max_matrix_mb", "preconditioner", "cmr_rounds", "cmr_halvings",
                                       "pipeline", "ipc", "implicit", "on_solver_failure", "bounds", "step_budget", NULL};
    static const char *const ipc_keys[] = {"dhat", "kappa", "eps_v", "friction_iterations", "adaptive_kappa", "tolerance", NULL};
    static const char *const implicit_keys[] = {"integrator", "kappa", "delta", "eps", "profile", NULL};
    const char *at = "world";
    cfStatus st = cf_json_check_object(p, obj, at, keys);
    if (st == CF_OK) st = cf_json_get_vec3(p, obj, at, "gravity", &def->gravity);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "dt", &def->dt);
    if (st == CF_OK) st = cf_json_get_int(p, obj, at, "steps", &info->steps);
    if (st == CF_OK && info->steps <= 0) st = cf_json_fail(p, "world.steps", "must be > 0 (got %d)", info->steps);
    GET_ENUM("rigid_integrator", "integrator", rigid_integrator_name, CF_RIGID_INTEGRATOR_COUNT, def->rigid_integrator);
    if (st == CF_OK) st = cf_json_get_bool(p, obj, at, "gyroscopic", &def->gyroscopic);
    GET_ENUM("soft_integrator", "integrator", soft_integrator_name, CF_SOFT_INTEGRATOR_COUNT, def->soft_integrator);
    GET_ENUM("detector", "detector", detector_name, CF_DETECTOR_COUNT, def->detector);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "contact_margin", &def->contact_margin);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "manifold_tolerance", &def->manifold_tolerance);
    if (st == CF_OK) st = cf_json_get_int(p, obj, at, "solver_iterations", &def->solver_iterations);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "solver_tolerance", &def->solver_tolerance);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "soft_tolerance", &def->soft_tolerance);
    GET_ENUM("on_solver_failure", "policy", failure_name, CF_ON_FAILURE_COUNT, def->on_solver_failure);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "bounds", &def->bounds);
    if (st == CF_OK) st = get_solver(p, obj, at, def);
    GET_ENUM("friction_model", "friction model", friction_model_name, CF_FRICTION_MODEL_COUNT, def->friction_model);
    if (st == CF_OK) st = cf_json_get_int(p, obj, at, "friction_directions", &def->friction_directions);
    GET_ENUM("ordering", "ordering", ordering_name, CF_ORDER_COUNT, def->ordering);
    GET_ENUM("r_factor", "r-factor strategy", rfactor_name, CF_RFACTOR_COUNT, def->r_factor);
    GET_ENUM("stabilization", "stabilization", stabilization_name, CF_STABILIZATION_COUNT, def->stabilization);
    GET_ENUM("certify", "certification", certify_name, CF_CERTIFY_COUNT, def->certify);
    if (st == CF_OK) st = cf_json_get_bool(p, obj, at, "warm_start", &def->warm_start);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "relaxation", &def->relaxation);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "erp", &def->erp);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "cfm", &def->cfm);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "contact_stiffness", &def->contact_stiffness);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "contact_damping", &def->contact_damping);
    if (st == CF_OK) st = cf_json_get_int(p, obj, at, "sleep_steps", &def->sleep_steps);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "slop", &def->slop);
    if (st == CF_OK) st = cf_json_get_int(p, obj, at, "split_iterations", &def->split_iterations);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "restitution_threshold", &def->restitution_threshold);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "max_matrix_mb", &def->max_matrix_mb);
    if (st == CF_OK) st = cf_json_get_number(p, obj, at, "step_budget", &def->step_budget);
    GET_ENUM("preconditioner", "preconditioner", preconditioner_name, CF_PRECONDITIONER_COUNT, def->preconditioner);
    if (st == CF_OK) st = cf_json_get_int(p, obj, at, "cmr_rounds", &def->cmr_rounds);
    if (st == CF_OK) st = cf_json_get_int(p, obj, at, "cmr_halvings", &def->cmr_halvings);
    GET_ENUM("pipeline", "pipeline", pipeline_name, CF_PIPELINE_COUNT, def->pipeline);
    const cJSON *ipc = cf_json_member(obj, "ipc");
    if (st == CF_OK && ipc) {
        const char *at_ipc = "world.ipc";
        st = cf_json_check_object(p, ipc, at_ipc, ipc_keys);
        if (st == CF_OK) st = cf_json_get_number(p, ipc, at_ipc, "dhat", &def->ipc.dhat);
        if (st == CF_OK) st = cf_json_get_number(p, ipc, at_ipc, "kappa", &def->ipc.kappa);
        if (st == CF_OK) st = cf_json_get_number(p, ipc, at_ipc, "eps_v", &def->ipc.eps_v);
        if (st == CF_OK) st = cf_json_get_int(p, ipc, at_ipc, "friction_iterations", &def->ipc.friction_iterations);
        if (st == CF_OK) st = cf_json_get_bool(p, ipc, at_ipc, "adaptive_kappa", &def->ipc.adaptive_kappa);
        if (st == CF_OK) st = cf_json_get_number(p, ipc, at_ipc, "tolerance", &def->ipc.tolerance);
    }
    const cJSON *imp = cf_json_member(obj, "implicit");
    if (st == CF_OK && imp) {
        const char *at_imp = "world.implicit";
        int integ = (int)def->implicit.integrator, prof = (int)def->implicit.profile;
        st = cf_json_check_object(p, imp, at_imp, implicit_keys);
        const cfJsonEnum integrators = {"integrator", implicit_integrator_name, CF_IMPLICIT_INTEGRATOR_COUNT};
        const cfJsonEnum profiles = {"profile", slide_profile_name, CF_SLIDE_PROFILE_COUNT};
        if (st == CF_OK) st = cf_json_get_enum(p, imp, at_imp, "integrator", &integrators, &integ);
        if (st == CF_OK) st = cf_json_get_number(p, imp, at_imp, "kappa", &def->implicit.kappa);
        if (st == CF_OK) st = cf_json_get_number(p, imp, at_imp, "delta", &def->implicit.delta);
        if (st == CF_OK) st = cf_json_get_number(p, imp, at_imp, "eps", &def->implicit.eps);
        if (st == CF_OK) st = cf_json_get_enum(p, imp, at_imp, "profile", &profiles, &prof);
        def->implicit.integrator = (cfImplicitIntegrator)integ;
        def->implicit.profile = (cfSlideProfile)prof;
    }
    if (st == CF_OK) {
        int seed = (int)def->seed;
        st = cf_json_get_int(p, obj, at, "seed", &seed);
        if (st == CF_OK && seed < 0) st = cf_json_fail(p, "world.seed", "must be >= 0 (got %d)", seed);
        def->seed = (unsigned long)seed;
    }
    /* the ranges: the world's own validator, so that a scene and the world never disagree */
    cfError inner = {{0}};
    if (st == CF_OK && cf_world_def_check(def, &inner) != CF_OK) st = cf_json_fail_from(p, at, CF_BAD_INPUT, &inner);
    return st;
}


/* ---- friction pairs ------------------------------------------------------------------------ */

/* the body named @p name: a rigid or a soft body; exactly one must carry the name */
static cfStatus find_body(const cfSceneParser *p, const cfWorld *w, const char *path, const char *name, cfSideKind *kind,
                          int *index)
{
    int hits = 0;
    for (int i = 0; i < w->n_bodies; ++i)
        if (strcmp(w->bodies[i].name, name) == 0) hits++, *kind = CF_SIDE_RIGID, *index = i;
    for (int i = 0; i < w->n_soft; ++i)
        if (strcmp(w->soft[i].name, name) == 0) hits++, *kind = CF_SIDE_SOFT, *index = i;
    if (hits == 0) return cf_json_fail(p, path, "no body is named '%s'", name);
    if (hits > 1) return cf_json_fail(p, path, "%d bodies are named '%s': give them different names", hits, name);
    return CF_OK;
}

/* A direction field (chapter 10): [x, y, z] is a constant direction of kind @p plain (world for a
   law's "direction", the body's frame for a Matchstick "structure"), or an object
   {"field": "world" | "body", "direction": [x, y, z]} or {"field": "circles", "center": c, "axis": a}. */
static cfStatus parse_field(const cfSceneParser *p, const cJSON *item, const char *path, cfFieldKind plain,
                            cfDirectionField *f)
{
    memset(f, 0, sizeof *f);
    if (cJSON_IsArray(item)) {
        f->kind = plain;
        double v[3];
        cfStatus st = cf_json_numbers(p, item, path, 3, v);
        if (st == CF_OK) f->dir = cfu_vec3(v[0], v[1], v[2]);
        return st;
    }
    static const char *const keys[] = {"field", "direction", "center", "axis", NULL};
    cfStatus st = cf_json_check_object(p, item, path, keys);
    if (st != CF_OK) return st;
    const cJSON *kind = cf_json_member(item, "field");
    char fp[PATH_CAP];
    cf_json_field_path(fp, path, "field");
    if (!cJSON_IsString(kind)) return cf_json_fail(p, fp, "must be \"world\", \"body\" or \"circles\"");
    int k = 0;
    while (k < CF_FIELD_KIND_COUNT && strcmp(kind->valuestring, cf_field_kind_name((cfFieldKind)k)) != 0) ++k;
    if (k == CF_FIELD_KIND_COUNT)
        return cf_json_fail(p, fp, "unknown field '%s' (expected world, body or circles)", kind->valuestring);
    f->kind = (cfFieldKind)k;
    if (f->kind == CF_FIELD_CIRCLES) {
        if (cf_json_member(item, "direction")) return cf_json_fail(p, path, "\"direction\" belongs to the world and body fields");
        if ((st = cf_json_need_vec3(p, item, path, "center", &f->center)) != CF_OK) return st;
        return cf_json_need_vec3(p, item, path, "axis", &f->axis);
    }
    if (cf_json_member(item, "center") || cf_json_member(item, "axis"))
        return cf_json_fail(p, path, "\"center\" and \"axis\" belong to the circles field");
    return cf_json_need_vec3(p, item, path, "direction", &f->dir);
}

/* friction[i]: {"bodies": [name, name], "mu": m} (isotropic), or with "law": "orthotropic",
   "mu": [mu_1, mu_2], "direction": d, or "law": "tensor", "tensor": [4 values], "direction": d,
   "mu": bound, or "law": "matchstick", "mu": m, "anisotropic": [mu_t, mu_b], "structure": [sA, sB]
   (d, sA, sB: direction fields, parse_field()) */
static cfStatus parse_friction_pair(const cfSceneParser *p, const cJSON *obj, int index, cfWorld *w)
{
    static const char *const keys[] = {"bodies", "mu", "law", "direction", "tensor", "anisotropic", "structure",
                                       "patch", "samples", NULL};
    char at[PATH_CAP], path[PATH_CAP];
    cf_json_path(at, "friction[%d]", index);
    cfStatus st = cf_json_check_object(p, obj, at, keys);
    if (st != CF_OK) return st;
    cfFrictionPair fp;
    memset(&fp, 0, sizeof fp);
    const cJSON *bodies = cf_json_member(obj, "bodies");
    cf_json_field_path(path, at, "bodies");
    if (!cJSON_IsArray(bodies) || cJSON_GetArraySize(bodies) != 2)
        return cf_json_fail(p, path, "must be an array of two body names");
    for (int s = 0; s < 2; ++s) {
        const cJSON *name = cJSON_GetArrayItem(bodies, s);
        char bp[PATH_CAP];
        cf_json_path(bp, "%s[%d]", path, s);
        if (!cJSON_IsString(name)) return cf_json_fail(p, bp, "must be a string (got %s)", cf_json_type(name));
        if ((st = find_body(p, w, bp, name->valuestring, &fp.kind[s], &fp.index[s])) != CF_OK) return st;
    }
    static const char *const laws[] = {"isotropic", "orthotropic", "tensor", "matchstick", "texture"};
    const cJSON *law = cf_json_member(obj, "law");
    cf_json_field_path(path, at, "law");
    if (law) {
        if (!cJSON_IsString(law)) return cf_json_fail(p, path, "must be a string (got %s)", cf_json_type(law));
        int k = 0;
        while (k < 5 && strcmp(law->valuestring, laws[k]) != 0) ++k;
        if (k == 5)
            return cf_json_fail(p, path, "unknown law '%s' (expected isotropic, orthotropic, tensor, matchstick or texture)",
                        law->valuestring);
        if (k == 3) fp.matchstick = true;
        else if (k == 4) fp.texture = true;
        else fp.law.law = (cfFrictionLaw)k;
    }
    if (fp.texture) {
        /* texture friction (ch10.6): the bodies' height fields, sampled on a patch of half side "patch"
           (default 5 mm) with "samples" per side (default 8); "mu" (default 0) is added to every
           direction's plowing coefficient */
        fp.patch = 0.005;
        fp.samples = 8;
        if ((st = cf_json_get_number(p, obj, at, "patch", &fp.patch)) != CF_OK) return st;
        if ((st = cf_json_get_int(p, obj, at, "samples", &fp.samples)) != CF_OK) return st;
        bool textured = false;
        for (int s = 0; s < 2; ++s) textured |= fp.kind[s] == CF_SIDE_RIGID && cf_world_texture_of(w, fp.index[s]);
        if (!textured)
            return cf_json_fail(p, path, "texture friction plows with height fields, and neither '%s' nor '%s' has one "
                                "(give one of them \"texture\", bodies[i].texture)",
                                cJSON_GetArrayItem(bodies, 0)->valuestring, cJSON_GetArrayItem(bodies, 1)->valuestring);
    } else if (cf_json_member(obj, "patch") || cf_json_member(obj, "samples")) {
        return cf_json_fail(p, at, "\"patch\" and \"samples\" belong to the texture law only");
    }
    if (fp.matchstick) {
        const cJSON *an = cf_json_member(obj, "anisotropic"), *sd = cf_json_member(obj, "structure");
        cf_json_field_path(path, at, "anisotropic");
        if (!an) return cf_json_fail(p, path, "missing (the Matchstick model needs [mu_t, mu_b] of parallel structures)");
        if ((st = cf_json_numbers(p, an, path, 2, fp.aniso)) != CF_OK) return st;
        cf_json_field_path(path, at, "structure");
        if (!cJSON_IsArray(sd) || cJSON_GetArraySize(sd) != 2)
            return cf_json_fail(p, path, "must be an array of two structure directions, one per body");
        for (int s = 0; s < 2; ++s) {
            char sp[PATH_CAP];
            cf_json_path(sp, "%s[%d]", path, s);
            if ((st = parse_field(p, cJSON_GetArrayItem(sd, s), sp, CF_FIELD_BODY, &fp.structure[s])) != CF_OK) return st;
        }
    } else if (cf_json_member(obj, "anisotropic") || cf_json_member(obj, "structure")) {
        return cf_json_fail(p, at, "\"anisotropic\" and \"structure\" belong to the matchstick law only");
    }
    const cJSON *mu = cf_json_member(obj, "mu");
    cf_json_field_path(path, at, "mu");
    if (fp.law.law == CF_LAW_ORTHOTROPIC) {
        if (!cJSON_IsArray(mu) || cJSON_GetArraySize(mu) != 2 || !cJSON_IsNumber(cJSON_GetArrayItem(mu, 0)) ||
            !cJSON_IsNumber(cJSON_GetArrayItem(mu, 1)))
            return cf_json_fail(p, path, "an orthotropic law needs two coefficients [mu_1, mu_2]");
        fp.law.coef[0] = cJSON_GetArrayItem(mu, 0)->valuedouble;
        fp.law.coef[1] = cJSON_GetArrayItem(mu, 1)->valuedouble;
        fp.mu = fmax(fp.law.coef[0], fp.law.coef[1]);
    } else if (fp.texture) {
        if ((st = cf_json_get_number(p, obj, at, "mu", &fp.mu)) != CF_OK) return st;
    } else if ((st = cf_json_need_number(p, obj, at, "mu", &fp.mu)) != CF_OK) {
        return st;
    }
    if (fp.law.law == CF_LAW_TENSOR) {
        const cJSON *t = cf_json_member(obj, "tensor");
        cf_json_field_path(path, at, "tensor");
        if (!cJSON_IsArray(t) || cJSON_GetArraySize(t) != 4) return cf_json_fail(p, path, "needs 4 numbers (2x2, row-major)");
        for (int k = 0; k < 4; ++k) {
            const cJSON *v = cJSON_GetArrayItem(t, k);
            if (!cJSON_IsNumber(v)) return cf_json_fail(p, path, "needs 4 numbers (2x2, row-major)");
            fp.law.coef[k] = v->valuedouble;
        }
    } else if (cf_json_member(obj, "tensor")) {
        return cf_json_fail(p, at, "\"tensor\" belongs to the tensor law only");
    }
    if (fp.law.law != CF_LAW_ISOTROPIC) {
        cf_json_field_path(path, at, "direction");
        const cJSON *d = cf_json_member(obj, "direction");
        if (!d) return cf_json_fail(p, path, "missing (an array of 3 numbers or a direction field is required)");
        if ((st = parse_field(p, d, path, CF_FIELD_WORLD, &fp.field)) != CF_OK) return st;
        if (fp.field.kind == CF_FIELD_BODY)
            return cf_json_fail(p, path, "a law's direction belongs to no one body: use a world or circles field (or the "
                        "matchstick law's structure)");
        /* law.dir: the constant direction, or a placeholder the field replaces at every contact */
        fp.law.dir = fp.field.kind == CF_FIELD_CIRCLES ? fp.field.axis : fp.field.dir;
    } else if (cf_json_member(obj, "direction")) {
        return cf_json_fail(p, at, "\"direction\" belongs to the orthotropic and tensor laws only");
    }
    cfError inner = {{0}};
    st = cf_world_add_friction_pair(w, &fp, &inner);
    return st == CF_OK ? CF_OK : cf_json_fail_from(p, at, st, &inner);
}

/* every body inside the world's bounds, and none that would leave them within a step
   ("label: bodies[i].position: ..." in @p err) */
static cfStatus world_bounds_check(const cfWorld *w, cfError *err, const char *label)
{
    const double lim = w->def.bounds, vlim = w->def.bounds / w->def.dt;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (!(cfu_norm_inf(b->x) <= lim))
            return cf_error_set(err, CF_BAD_INPUT, "%s: bodies[%d].position: (%g, %g, %g) lies outside the world's bounds "
                                "|x|_inf <= %g m (world.bounds)", label, i, b->x.x, b->x.y, b->x.z, lim);
        if (!b->fixed && !(cfu_norm_inf(b->v) <= vlim))
            return cf_error_set(err, CF_BAD_INPUT, "%s: bodies[%d].velocity: (%g, %g, %g) m/s would leave the world's bounds "
                                "(%g m, world.bounds) within one step of %g s", label, i, b->v.x, b->v.y, b->v.z, lim, w->def.dt);
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        for (int n = 0; n < s->n_nodes; ++n) {
            if (!(cfu_norm_inf(s->x[n]) <= lim))
                return cf_error_set(err, CF_BAD_INPUT, "%s: soft_bodies[%d] '%s': node %d at (%g, %g, %g) lies outside the "
                                    "world's bounds |x|_inf <= %g m (world.bounds)", label, i, s->name, n, s->x[n].x, s->x[n].y,
                                    s->x[n].z, lim);
            if (!(cfu_norm_inf(s->v[n]) <= vlim))
                return cf_error_set(err, CF_BAD_INPUT, "%s: soft_bodies[%d] '%s': node %d moves at (%g, %g, %g) m/s and would "
                                    "leave the world's bounds (%g m, world.bounds) within one step of %g s", label, i, s->name,
                                    n, s->v[n].x, s->v[n].y, s->v[n].z, lim, w->def.dt);
        }
    }
    return CF_OK;
}

cfStatus cf_scene_check(const cfWorld *w, const char *label, cfError *err)
{
    cfError inner = {{0}};
    if (!label || !*label) label = "<scene>";
    if (cf_world_def_check(&w->def, &inner) != CF_OK) return cf_error_set(err, CF_BAD_INPUT, "%s: world.%s", label, inner.msg);
    cfStatus st = world_bounds_check(w, err, label);
    if (st != CF_OK) return st;
    if (cf_pipeline_of(w->def.pipeline)->check(w, &inner) != CF_OK)
        return cf_error_set(err, CF_BAD_INPUT, "%s: %s", label, inner.msg);
    return CF_OK;
}

static cfStatus build_scene(const cfSceneParser *p, const cJSON *root, cfWorld *w, cfSceneInfo *info)
{
    static const char *const keys[] = {"name", "chapter", "description", "expect", "world", "bodies",
                                       "soft_bodies", "friction", "max_elements", NULL};
    if (!cJSON_IsObject(root)) return cf_json_fail(p, NULL, "a scene must be a JSON object (got %s)", cf_json_type(root));
    cfStatus st = cf_json_check_object(p, root, "", keys);
    if (st == CF_OK) st = cf_json_get_string(p, root, "", "name", info->name, sizeof info->name);
    if (st == CF_OK) st = cf_json_get_string(p, root, "", "description", info->description, sizeof info->description);
    if (st == CF_OK) st = cf_json_get_string(p, root, "", "expect", info->expect, sizeof info->expect);
    if (st == CF_OK) st = cf_json_get_int(p, root, "", "chapter", &info->chapter);
    if (st == CF_OK && info->chapter < 0) st = cf_json_fail(p, "chapter", "must be >= 0 (got %d)", info->chapter);
    if (st != CF_OK) return st;

    if (cf_json_member(root, "max_elements")) {
        st = cf_json_get_number(p, root, "", "max_elements", p->elements_left);
        if (st == CF_OK && !(*p->elements_left >= 0.0))
            st = cf_json_fail(p, "max_elements", "must be >= 0 (got %g)", *p->elements_left);
        if (st != CF_OK) return st;
    }
    cfWorldDef def = cf_world_def_default();
    const cJSON *world = cf_json_member(root, "world");
    if (world && (st = parse_world_def(p, world, &def, info)) != CF_OK) return st;
    st = cf_world_init(w, &def); /* the same validator as parse_world_def() */
    if (st != CF_OK) return cf_json_fail_from(p, "world", st, &w->error);

    const cJSON *bodies = NULL, *soft = NULL;
    if ((st = cf_json_get_array(p, root, "bodies", &bodies)) != CF_OK) return st;
    if ((st = cf_json_get_array(p, root, "soft_bodies", &soft)) != CF_OK) return st;
    if (cJSON_GetArraySize(bodies) + cJSON_GetArraySize(soft) == 0)
        return cf_json_fail(p, NULL, "the scene has no bodies (give \"bodies\" or \"soft_bodies\")");

    int i = 0;
    for (const cJSON *c = bodies ? bodies->child : NULL; c; c = c->next, ++i) {
        cfRigidBody b;
        memset(&b, 0, sizeof b);
        if ((st = cf_scene_rigid(p, c, i, &b)) != CF_OK) return st;
        if (cf_world_add_body(w, &b) < 0)
            return cf_error_set(p->err, CF_NO_MEMORY, "%s: bodies[%d]: out of memory", p->label, i);
        if ((st = cf_scene_rigid_extras(p, c, i, w)) != CF_OK) return st;
    }
    i = 0;
    for (const cJSON *c = soft ? soft->child : NULL; c; c = c->next, ++i)
        if ((st = cf_scene_soft(p, c, i, w)) != CF_OK) return st;
    const cJSON *friction = NULL;
    if ((st = cf_json_get_array(p, root, "friction", &friction)) != CF_OK) return st;
    i = 0;
    for (const cJSON *c = friction ? friction->child : NULL; c; c = c->next, ++i)
        if ((st = parse_friction_pair(p, c, i, w)) != CF_OK) return st;
    if ((st = world_bounds_check(w, p->err, p->label)) != CF_OK) return st;
    /* the bodies the pipeline can step (the velocity pipeline takes every world) */
    cfError inner = {{0}};
    if (cf_pipeline_of(w->def.pipeline)->check(w, &inner) != CF_OK) return cf_json_fail(p, NULL, "%s", inner.msg);
    return CF_OK;
}

/* 1-based line and column (in bytes) of @p offset in @p text */
static void line_col(const char *text, size_t offset, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < offset && text[i]; ++i) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

static cfStatus syntax_error(const cfSceneParser *p, const char *json, const char *where)
{
    size_t offset = where && where >= json ? (size_t)(where - json) : 0;
    size_t len = strlen(json);
    if (offset > len) offset = len;
    int line, col;
    line_col(json, offset, &line, &col);
    /* show the text at the error, up to the end of its line */
    char near[24];
    size_t n = 0;
    while (n + 1 < sizeof near && json[offset + n] && json[offset + n] != '\n' && json[offset + n] != '\r') {
        near[n] = json[offset + n];
        ++n;
    }
    near[n] = '\0';
    const char *rest = json + offset;
    while (*rest == ' ' || *rest == '\t' || *rest == '\n' || *rest == '\r') ++rest;
    if (!*rest)
        return cf_error_set(p->err, CF_BAD_INPUT, "%s:%d:%d: invalid JSON: unexpected end of input", p->label,
                            line, col);
    return cf_error_set(p->err, CF_BAD_INPUT, "%s:%d:%d: invalid JSON near '%s'", p->label, line, col, near);
}

static cfStatus parse_scene(const char *json, const char *label, const char *solver, cfWorld *w, cfSceneInfo *info,
                            cfError *err)
{
    double budget = SCENE_DEFAULT_MAX_ELEMENTS;
    cfSceneParser p = {label && *label ? label : "<scene>", err, &budget, solver};
    if (w) memset(w, 0, sizeof *w);
    if (info) memset(info, 0, sizeof *info);
    if (!w) return cf_json_fail(&p, NULL, "no world to load into (w is NULL)");
    if (!json) return cf_json_fail(&p, NULL, "no scene text (json is NULL)");

    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(json, &end, 1);
    if (!root) return syntax_error(&p, json, end);

    cfSceneInfo tmp_info;
    memset(&tmp_info, 0, sizeof tmp_info);
    tmp_info.steps = SCENE_DEFAULT_STEPS;
    cfWorld tmp;
    memset(&tmp, 0, sizeof tmp);
    cfStatus st = build_scene(&p, root, &tmp, &tmp_info);
    cJSON_Delete(root);
    if (st != CF_OK) {
        cf_world_free(&tmp);
        return st;
    }
    *w = tmp;
    if (info) *info = tmp_info;
    return CF_OK;
}

cfStatus cf_scene_parse(const char *json, const char *label, cfWorld *w, cfSceneInfo *info, cfError *err)
{
    return parse_scene(json, label, NULL, w, info, err);
}

cfStatus cf_scene_load(const char *path, cfWorld *w, cfSceneInfo *info, cfError *err)
{
    return cf_scene_load_solved(path, NULL, w, info, err);
}

cfStatus cf_scene_load_solved(const char *path, const char *solver, cfWorld *w, cfSceneInfo *info, cfError *err)
{
    if (w) memset(w, 0, sizeof *w);
    if (info) memset(info, 0, sizeof *info);
    if (!path) return cf_error_set(err, CF_IO_ERROR, "<scene>: no file name (path is NULL)");
    /* a regular text file of at most SCENE_MAX_BYTES (cf_file_read_text(): a FIFO or a device is
       refused without blocking, a NUL byte is named by its line) */
    char *text;
    cfStatus st = cf_file_read_text(path, (long)SCENE_MAX_BYTES, &text, NULL, err);
    if (st != CF_OK) return st;
    st = parse_scene(text, path, solver, w, info, err);
    free(text);
    return st;
}
