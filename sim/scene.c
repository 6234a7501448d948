/* SPDX-License-Identifier: MIT */
/* Scene files: JSON text -> cfWorld and cfSceneInfo, with one-line messages naming the source,
   the position or field path, and the reason. */
#include "cf/cf_scene.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_solvers.h"

/* scene files are small; anything larger is almost certainly the wrong file */
#define SCENE_MAX_BYTES ((size_t)64 * 1024 * 1024)
/* default of cfSceneInfo::steps */
#define SCENE_DEFAULT_STEPS 600
/* longest field path we build, e.g. "soft_bodies[12].damping[1]" */
#define PATH_CAP 128

/* What the parser needs to report an error: the source label and the caller's cfError. */
typedef struct Parser {
    const char *label;
    cfError *err;
    double *elements_left; /* soft-body nodes and elements the scene may still build (max_elements) */
    const char *solver;    /* the caller's world.solver instead of the scene's (NULL: the scene's) */
} Parser;

/* default of the top-level "max_elements": soft-body nodes plus tetrahedra plus springs, about
   0.5 GB of state, so that a typo (200 cells per axis for 20) is refused instead of eating memory */
#define SCENE_DEFAULT_MAX_ELEMENTS 1e6

/* ---- messages ----------------------------------------------------------------------------- */

/* "label: path: reason"; a NULL or empty path gives "label: reason" */
static cfStatus fail(const Parser *p, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static cfStatus fail(const Parser *p, const char *path, const char *fmt, ...)
{
    char reason[CF_ERROR_MSG_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (path && *path) return cf_error_set(p->err, CF_BAD_INPUT, "%s: %s: %s", p->label, path, reason);
    return cf_error_set(p->err, CF_BAD_INPUT, "%s: %s", p->label, reason);
}

/* Pass on the message of a library constructor under the field path @p path. The library
   writes "<field>: <reason>" (e.g. "radius: must be > 0"), which becomes "path.radius: ...";
   a message that does not start with a field name becomes "path: message". */
static cfStatus fail_from(const Parser *p, const char *path, cfStatus st, const cfError *inner)
{
    const char *m = inner->msg;
    size_t n = 0;
    while ((m[n] >= 'a' && m[n] <= 'z') || (m[n] >= 'A' && m[n] <= 'Z') || m[n] == '_' ||
           (n > 0 && m[n] >= '0' && m[n] <= '9'))
        ++n;
    bool starts_with_field = n > 0 && (m[n] == ':' || m[n] == '.' || m[n] == '[');
    if (st == CF_OK) st = CF_BAD_INPUT;
    if (!*m) m = "invalid value";
    if (starts_with_field) return cf_error_set(p->err, st, "%s: %s.%s", p->label, path, m);
    return cf_error_set(p->err, st, "%s: %s: %s", p->label, path, m);
}

/* printf into a path buffer of PATH_CAP bytes (a longer path is cut, never overflows) */
static void make_path(char *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void make_path(char *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, PATH_CAP, fmt, ap);
    va_end(ap);
}

/* "parent.key" (or "key" at the top level) */
static void field_path(char *out, const char *parent, const char *key)
{
    if (parent && *parent)
        make_path(out, "%s.%s", parent, key);
    else
        make_path(out, "%s", key);
}

static const char *json_type_name(const cJSON *item)
{
    if (cJSON_IsNumber(item)) return "a number";
    if (cJSON_IsString(item)) return "a string";
    if (cJSON_IsBool(item)) return "a boolean";
    if (cJSON_IsNull(item)) return "null";
    if (cJSON_IsArray(item)) return "an array";
    if (cJSON_IsObject(item)) return "an object";
    return "an invalid value";
}

/* Levenshtein distance of two short keys, capped: used for "did you mean" hints */
static int edit_distance(const char *a, const char *b)
{
    enum { CAP = 40 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= CAP || lb >= CAP) return CAP;
    int prev[CAP + 1], cur[CAP + 1];
    for (size_t j = 0; j <= lb; ++j) prev[j] = (int)j;
    for (size_t i = 1; i <= la; ++i) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; ++j) {
            int best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < best) best = prev[j] + 1;
            if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
            cur[j] = best;
        }
        memcpy(prev, cur, sizeof cur);
    }
    return prev[lb];
}

/* ---- structure: objects and their keys ------------------------------------------------------ */

/* Fail unless @p item is an object whose keys are all in @p allowed (NULL-terminated) and
   appear once each. */
static cfStatus check_object(const Parser *p, const cJSON *item, const char *path, const char *const *allowed)
{
    if (!cJSON_IsObject(item))
        return fail(p, path && *path ? path : NULL, "must be an object (got %s)", json_type_name(item));
    for (const cJSON *c = item->child; c; c = c->next) {
        bool known = false;
        for (const char *const *k = allowed; *k && !known; ++k) known = strcmp(c->string, *k) == 0;
        if (!known) {
            /* suggest the closest allowed key when it is a likely typo, else list them all */
            const char *best = NULL;
            int best_d = 3;
            for (const char *const *k = allowed; *k; ++k) {
                int d = edit_distance(c->string, *k);
                if (d < best_d) best_d = d, best = *k;
            }
            if (best) return fail(p, path, "unknown key '%s' (did you mean '%s'?)", c->string, best);
            char list[256] = "";
            for (const char *const *k = allowed; *k; ++k) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *k);
            }
            return fail(p, path, "unknown key '%s' (expected one of: %s)", c->string, list);
        }
        for (const cJSON *d = item->child; d != c; d = d->next)
            if (strcmp(d->string, c->string) == 0) return fail(p, path, "duplicate key '%s'", c->string);
    }
    return CF_OK;
}

/* The member @p key of @p obj, or NULL. Keys are compared exactly (case matters). */
static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* ---- values ------------------------------------------------------------------------------ */

/* A finite number. @p path names the item. */
static cfStatus number_value(const Parser *p, const cJSON *item, const char *path, double *out)
{
    if (!cJSON_IsNumber(item)) return fail(p, path, "must be a number (got %s)", json_type_name(item));
    if (!isfinite(item->valuedouble))
        return fail(p, path, "must be a finite number (got %s: out of range)",
                    item->valuedouble > 0 ? "+inf" : "-inf");
    *out = item->valuedouble;
    return CF_OK;
}

/* Optional number member: @p out keeps its value when @p key is absent. */
static cfStatus get_number(const Parser *p, const cJSON *obj, const char *parent, const char *key, double *out)
{
    const cJSON *item = member(obj, key);
    if (!item) return CF_OK;
    char path[PATH_CAP];
    field_path(path, parent, key);
    return number_value(p, item, path, out);
}

/* Required number member. */
static cfStatus need_number(const Parser *p, const cJSON *obj, const char *parent, const char *key, double *out)
{
    char path[PATH_CAP];
    field_path(path, parent, key);
    if (!member(obj, key)) return fail(p, path, "missing (a number is required)");
    return get_number(p, obj, parent, key, out);
}

static cfStatus int_value(const Parser *p, const cJSON *item, const char *path, int *out)
{
    double d = 0.0;
    cfStatus st = number_value(p, item, path, &d);
    if (st != CF_OK) return st;
    if (d != floor(d)) return fail(p, path, "must be an integer (got %g)", d);
    if (d < (double)INT_MIN || d > (double)INT_MAX) return fail(p, path, "integer out of range (got %g)", d);
    *out = (int)d;
    return CF_OK;
}

/* Optional integer member. */
static cfStatus get_int(const Parser *p, const cJSON *obj, const char *parent, const char *key, int *out)
{
    const cJSON *item = member(obj, key);
    if (!item) return CF_OK;
    char path[PATH_CAP];
    field_path(path, parent, key);
    return int_value(p, item, path, out);
}

/* Required integer member. */
static cfStatus need_int(const Parser *p, const cJSON *obj, const char *parent, const char *key, int *out)
{
    char path[PATH_CAP];
    field_path(path, parent, key);
    if (!member(obj, key)) return fail(p, path, "missing (an integer is required)");
    return get_int(p, obj, parent, key, out);
}

/* Optional boolean member. */
static cfStatus get_bool(const Parser *p, const cJSON *obj, const char *parent, const char *key, bool *out)
{
    const cJSON *item = member(obj, key);
    if (!item) return CF_OK;
    char path[PATH_CAP];
    field_path(path, parent, key);
    if (!cJSON_IsBool(item)) return fail(p, path, "must be true or false (got %s)", json_type_name(item));
    *out = cJSON_IsTrue(item);
    return CF_OK;
}

/* Optional string member copied into @p buf of @p cap bytes; too long is an error, not a
   silent truncation. */
static cfStatus get_string(const Parser *p, const cJSON *obj, const char *parent, const char *key, char *buf,
                           size_t cap)
{
    const cJSON *item = member(obj, key);
    if (!item) return CF_OK;
    char path[PATH_CAP];
    field_path(path, parent, key);
    if (!cJSON_IsString(item)) return fail(p, path, "must be a string (got %s)", json_type_name(item));
    size_t n = strlen(item->valuestring);
    if (n >= cap) return fail(p, path, "too long (%zu characters, at most %zu)", n, cap - 1);
    memcpy(buf, item->valuestring, n + 1);
    return CF_OK;
}

/* An array of exactly @p n finite numbers into @p out. */
static cfStatus numbers_value(const Parser *p, const cJSON *item, const char *path, int n, double *out)
{
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != n) {
        if (cJSON_IsArray(item))
            return fail(p, path, "must be an array of %d numbers (got %d elements)", n, cJSON_GetArraySize(item));
        return fail(p, path, "must be an array of %d numbers (got %s)", n, json_type_name(item));
    }
    int i = 0;
    for (const cJSON *c = item->child; c; c = c->next, ++i) {
        char elem[PATH_CAP];
        make_path(elem, "%s[%d]", path, i);
        cfStatus st = number_value(p, c, elem, &out[i]);
        if (st != CF_OK) return st;
    }
    return CF_OK;
}

/* Optional [x, y, z] member. */
static cfStatus get_vec3(const Parser *p, const cJSON *obj, const char *parent, const char *key, cfVec3 *out)
{
    const cJSON *item = member(obj, key);
    if (!item) return CF_OK;
    char path[PATH_CAP];
    field_path(path, parent, key);
    double v[3];
    cfStatus st = numbers_value(p, item, path, 3, v);
    if (st == CF_OK) *out = cfu_vec3(v[0], v[1], v[2]);
    return st;
}

/* Required [x, y, z] member. */
static cfStatus need_vec3(const Parser *p, const cJSON *obj, const char *parent, const char *key, cfVec3 *out)
{
    char path[PATH_CAP];
    field_path(path, parent, key);
    if (!member(obj, key)) return fail(p, path, "missing (an array of 3 numbers is required)");
    return get_vec3(p, obj, parent, key, out);
}

/* Required array of 3 integers. */
static cfStatus need_int3(const Parser *p, const cJSON *obj, const char *parent, const char *key, int out[3])
{
    char path[PATH_CAP];
    field_path(path, parent, key);
    const cJSON *item = member(obj, key);
    if (!item) return fail(p, path, "missing (an array of 3 integers is required)");
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 3)
        return fail(p, path, "must be an array of 3 integers");
    for (int i = 0; i < 3; ++i) {
        char elem[PATH_CAP];
        make_path(elem, "%s[%d]", path, i);
        cfStatus st = int_value(p, cJSON_GetArrayItem(item, i), elem, &out[i]);
        if (st != CF_OK) return st;
    }
    return CF_OK;
}

/* Optional [w, x, y, z] member, normalized; a quaternion of zero length is an error. */
static cfStatus get_unit_quat(const Parser *p, const cJSON *obj, const char *parent, const char *key, cfQuat *out)
{
    const cJSON *item = member(obj, key);
    if (!item) return CF_OK;
    char path[PATH_CAP];
    field_path(path, parent, key);
    double v[4];
    cfStatus st = numbers_value(p, item, path, 4, v);
    if (st != CF_OK) return st;
    cfQuat q = cfu_quat(v[0], v[1], v[2], v[3]);
    double n = cfu_quat_norm(q);
    if (!(n > 1e-12) || !isfinite(n))
        return fail(p, path, "quaternion (w, x, y, z) must have non-zero length (got length %g)", n);
    *out = cfu_quat(q.w / n, q.x / n, q.y / n, q.z / n);
    return CF_OK;
}

/* Fail unless @p x >= 0 (the reason names the quantity). */
static cfStatus check_nonnegative(const Parser *p, const char *parent, const char *key, double x)
{
    char path[PATH_CAP];
    field_path(path, parent, key);
    if (x < 0.0) return fail(p, path, "must be >= 0 (got %g)", x);
    return CF_OK;
}

/* ---- enums by name ------------------------------------------------------------------------- */

/* Look the string member @p key up among the names name_of(0..count-1); @p out keeps its
   value when the key is absent. The names come from the library (cf_world.h), so scene files
   and the library never disagree. */
static cfStatus get_enum(const Parser *p, const cJSON *obj, const char *parent, const char *key,
                         const char *what, const char *(*name_of)(int), int count, int *out)
{
    const cJSON *item = member(obj, key);
    if (!item) return CF_OK;
    char path[PATH_CAP];
    field_path(path, parent, key);
    if (!cJSON_IsString(item)) return fail(p, path, "must be a string (got %s)", json_type_name(item));
    char list[256] = "";
    for (int i = 0; i < count; ++i) {
        if (strcmp(item->valuestring, name_of(i)) == 0) {
            *out = i;
            return CF_OK;
        }
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", name_of(i));
    }
    return fail(p, path, "unknown %s '%s' (expected one of: %s)", what, item->valuestring, list);
}

static const char *rigid_integrator_name(int i) { return cf_rigid_integrator_name((cfRigidIntegrator)i); }
static const char *soft_integrator_name(int i) { return cf_soft_integrator_name((cfSoftIntegrator)i); }
static const char *detector_name(int i) { return cf_detector_name((cfDetector)i); }
static const char *friction_model_name(int i) { return cf_friction_model_name((cfFrictionModel)i); }
static const char *ordering_name(int i) { return cf_ordering_name((cfOrdering)i); }
static const char *rfactor_name(int i) { return cf_rfactor_name((cfRFactor)i); }
static const char *stabilization_name(int i) { return cf_stabilization_name((cfStabilization)i); }
static const char *preconditioner_name(int i) { return cf_preconditioner_name((cfPreconditioner)i); }
static const char *pipeline_name(int i) { return cf_pipeline_name((cfPipelineKind)i); }
static const char *failure_name(int i) { return cf_solver_failure_name((cfSolverFailure)i); }
static const char *implicit_integrator_name(int i) { return cf_implicit_integrator_name((cfImplicitIntegrator)i); }
static const char *slide_profile_name(int i) { return cf_slide_profile_name((cfSlideProfile)i); }

/* the string member @p key as a value of an enum with @p count names (a no-op once st failed) */
#define GET_ENUM(key, what, names, count, field)                                                     \
    do {                                                                                           \
        int v_ = (int)(field);                                                                     \
        if (st == CF_OK) st = get_enum(p, obj, at, key, what, names, (int)(count), &v_);           \
        (field) = v_;                                                                              \
    } while (0)

/* "solver": a row of the registry that a world can use (cf_solvers.h), or "none" */
static cfStatus get_solver(const Parser *p, const cJSON *obj, const char *at, const cfSolver **out)
{
    const cJSON *item = member(obj, "solver");
    char path[PATH_CAP], names[512];
    field_path(path, at, "solver");
    if (item && !cJSON_IsString(item)) return fail(p, path, "must be a string (got %s)", json_type_name(item));
    const char *name = p->solver ? p->solver : item ? item->valuestring : NULL;
    if (!name) return CF_OK;
    if (p->solver) snprintf(path, sizeof path, "the solver asked for instead of the scene's");
    if (strcmp(name, "none") == 0) {
        *out = NULL;
        return CF_OK;
    }
    const cfSolver *s = cf_solver_find(name);
    if (!s)
        return fail(p, path, "unknown solver '%s' (expected none or one of: %s)%s", name,
                    cf_solver_names(CF_SOLVERS_WORLD, names, sizeof names), cf_solver_absent_reason(name));
    *out = s; /* one that takes no contact problems is refused by cf_world_def_check(), with the reason */
    return CF_OK;
}

/* ---- the "world" object -------------------------------------------------------------------- */

static cfStatus parse_world_def(const Parser *p, const cJSON *obj, cfWorldDef *def, cfSceneInfo *info)
{
    static const char *const keys[] = {"gravity", "dt", "steps", "rigid_integrator", "gyroscopic",
                                       "soft_integrator", "solver_iterations", "solver_tolerance",
                                       "detector", "contact_margin", "manifold_tolerance", "solver", "friction_model",
                                       "friction_directions", "warm_start", "ordering", "relaxation", "r_factor", "erp",
                                       "cfm", "contact_stiffness", "contact_damping", "stabilization", "slop",
                                       "restitution_threshold",
                                       "seed", "max_matrix_mb", "preconditioner", "cmr_rounds", "cmr_halvings",
                                       "pipeline", "ipc", "implicit", "on_solver_failure", "bounds", NULL};
    static const char *const ipc_keys[] = {"dhat", "kappa", "eps_v", "friction_iterations", NULL};
    static const char *const implicit_keys[] = {"integrator", "kappa", "delta", "eps", "profile", NULL};
    const char *at = "world";
    cfStatus st = check_object(p, obj, at, keys);
    if (st == CF_OK) st = get_vec3(p, obj, at, "gravity", &def->gravity);
    if (st == CF_OK) st = get_number(p, obj, at, "dt", &def->dt);
    if (st == CF_OK) st = get_int(p, obj, at, "steps", &info->steps);
    if (st == CF_OK && info->steps <= 0) st = fail(p, "world.steps", "must be > 0 (got %d)", info->steps);
    GET_ENUM("rigid_integrator", "integrator", rigid_integrator_name, CF_RIGID_INTEGRATOR_COUNT, def->rigid_integrator);
    if (st == CF_OK) st = get_bool(p, obj, at, "gyroscopic", &def->gyroscopic);
    GET_ENUM("soft_integrator", "integrator", soft_integrator_name, CF_SOFT_INTEGRATOR_COUNT, def->soft_integrator);
    GET_ENUM("detector", "detector", detector_name, CF_DETECTOR_COUNT, def->detector);
    if (st == CF_OK) st = get_number(p, obj, at, "contact_margin", &def->contact_margin);
    if (st == CF_OK) st = get_number(p, obj, at, "manifold_tolerance", &def->manifold_tolerance);
    if (st == CF_OK) st = get_int(p, obj, at, "solver_iterations", &def->solver_iterations);
    if (st == CF_OK) st = get_number(p, obj, at, "solver_tolerance", &def->solver_tolerance);
    GET_ENUM("on_solver_failure", "policy", failure_name, CF_ON_FAILURE_COUNT, def->on_solver_failure);
    if (st == CF_OK) st = get_number(p, obj, at, "bounds", &def->bounds);
    if (st == CF_OK) st = get_solver(p, obj, at, &def->solver);
    GET_ENUM("friction_model", "friction model", friction_model_name, CF_FRICTION_MODEL_COUNT, def->friction_model);
    if (st == CF_OK) st = get_int(p, obj, at, "friction_directions", &def->friction_directions);
    GET_ENUM("ordering", "ordering", ordering_name, CF_ORDER_COUNT, def->ordering);
    GET_ENUM("r_factor", "r-factor strategy", rfactor_name, CF_RFACTOR_COUNT, def->r_factor);
    GET_ENUM("stabilization", "stabilization", stabilization_name, CF_STABILIZATION_COUNT, def->stabilization);
    if (st == CF_OK) st = get_bool(p, obj, at, "warm_start", &def->warm_start);
    if (st == CF_OK) st = get_number(p, obj, at, "relaxation", &def->relaxation);
    if (st == CF_OK) st = get_number(p, obj, at, "erp", &def->erp);
    if (st == CF_OK) st = get_number(p, obj, at, "cfm", &def->cfm);
    if (st == CF_OK) st = get_number(p, obj, at, "contact_stiffness", &def->contact_stiffness);
    if (st == CF_OK) st = get_number(p, obj, at, "contact_damping", &def->contact_damping);
    if (st == CF_OK) st = get_number(p, obj, at, "slop", &def->slop);
    if (st == CF_OK) st = get_number(p, obj, at, "restitution_threshold", &def->restitution_threshold);
    if (st == CF_OK) st = get_number(p, obj, at, "max_matrix_mb", &def->max_matrix_mb);
    GET_ENUM("preconditioner", "preconditioner", preconditioner_name, CF_PRECONDITIONER_COUNT, def->preconditioner);
    if (st == CF_OK) st = get_int(p, obj, at, "cmr_rounds", &def->cmr_rounds);
    if (st == CF_OK) st = get_int(p, obj, at, "cmr_halvings", &def->cmr_halvings);
    GET_ENUM("pipeline", "pipeline", pipeline_name, CF_PIPELINE_COUNT, def->pipeline);
    const cJSON *ipc = member(obj, "ipc");
    if (st == CF_OK && ipc) {
        const char *at_ipc = "world.ipc";
        st = check_object(p, ipc, at_ipc, ipc_keys);
        if (st == CF_OK) st = get_number(p, ipc, at_ipc, "dhat", &def->ipc.dhat);
        if (st == CF_OK) st = get_number(p, ipc, at_ipc, "kappa", &def->ipc.kappa);
        if (st == CF_OK) st = get_number(p, ipc, at_ipc, "eps_v", &def->ipc.eps_v);
        if (st == CF_OK) st = get_int(p, ipc, at_ipc, "friction_iterations", &def->ipc.friction_iterations);
    }
    const cJSON *imp = member(obj, "implicit");
    if (st == CF_OK && imp) {
        const char *at_imp = "world.implicit";
        int integ = (int)def->implicit.integrator, prof = (int)def->implicit.profile;
        st = check_object(p, imp, at_imp, implicit_keys);
        if (st == CF_OK)
            st = get_enum(p, imp, at_imp, "integrator", "integrator", implicit_integrator_name, CF_IMPLICIT_INTEGRATOR_COUNT,
                          &integ);
        if (st == CF_OK) st = get_number(p, imp, at_imp, "kappa", &def->implicit.kappa);
        if (st == CF_OK) st = get_number(p, imp, at_imp, "delta", &def->implicit.delta);
        if (st == CF_OK) st = get_number(p, imp, at_imp, "eps", &def->implicit.eps);
        if (st == CF_OK) st = get_enum(p, imp, at_imp, "profile", "profile", slide_profile_name, CF_SLIDE_PROFILE_COUNT, &prof);
        def->implicit.integrator = (cfImplicitIntegrator)integ;
        def->implicit.profile = (cfSlideProfile)prof;
    }
    if (st == CF_OK) {
        int seed = (int)def->seed;
        st = get_int(p, obj, at, "seed", &seed);
        if (st == CF_OK && seed < 0) st = fail(p, "world.seed", "must be >= 0 (got %d)", seed);
        def->seed = (unsigned long)seed;
    }
    /* the ranges: the world's own validator, so that a scene and the world never disagree */
    cfError inner = {{0}};
    if (st == CF_OK && cf_world_def_check(def, &inner) != CF_OK) st = fail_from(p, at, CF_BAD_INPUT, &inner);
    return st;
}

/* ---- rigid bodies -------------------------------------------------------------------------- */

static cfStatus parse_shape(const Parser *p, const cJSON *obj, const char *at, cfShape *shape)
{
    static const char *const any_keys[] = {"type", "radius", "half_extents", "normal", "offset", "half_height", NULL};
    static const char *const sphere_keys[] = {"type", "radius", NULL};
    static const char *const box_keys[] = {"type", "half_extents", NULL};
    static const char *const plane_keys[] = {"type", "normal", "offset", NULL};
    static const char *const capsule_keys[] = {"type", "radius", "half_height", NULL};

    cfStatus st = check_object(p, obj, at, any_keys);
    if (st != CF_OK) return st;
    char path[PATH_CAP];
    field_path(path, at, "type");
    const cJSON *type = member(obj, "type");
    if (!type) return fail(p, path, "missing (one of: sphere, box, plane, capsule)");
    if (!cJSON_IsString(type)) return fail(p, path, "must be a string (got %s)", json_type_name(type));

    int t = -1;
    for (int i = 0; i < (int)CF_SHAPE_COUNT; ++i)
        if (strcmp(type->valuestring, cf_shape_name((cfShapeType)i)) == 0) t = i;
    double r = 0.0, hh = 0.0, offset = 0.0;
    cfVec3 he = cfu_zero3(), normal = cfu_zero3();
    switch (t) {
    case CF_SHAPE_SPHERE:
        st = check_object(p, obj, at, sphere_keys);
        if (st == CF_OK) st = need_number(p, obj, at, "radius", &r);
        if (st == CF_OK) *shape = cf_shape_sphere(r);
        break;
    case CF_SHAPE_BOX:
        st = check_object(p, obj, at, box_keys);
        if (st == CF_OK) st = need_vec3(p, obj, at, "half_extents", &he);
        if (st == CF_OK) *shape = cf_shape_box(he);
        break;
    case CF_SHAPE_PLANE:
        st = check_object(p, obj, at, plane_keys);
        if (st == CF_OK) st = need_vec3(p, obj, at, "normal", &normal);
        if (st == CF_OK) st = get_number(p, obj, at, "offset", &offset);
        if (st == CF_OK) *shape = cf_shape_plane(normal, offset);
        break;
    case CF_SHAPE_CAPSULE:
        st = check_object(p, obj, at, capsule_keys);
        if (st == CF_OK) st = need_number(p, obj, at, "radius", &r);
        if (st == CF_OK) st = need_number(p, obj, at, "half_height", &hh);
        if (st == CF_OK) *shape = cf_shape_capsule(r, hh);
        break;
    default:
        return fail(p, path, "unknown shape type '%s' (expected one of: sphere, box, plane, capsule)",
                    type->valuestring);
    }
    if (st != CF_OK) return st;
    cfError inner = {{0}};
    st = cf_shape_validate(shape, &inner);
    if (st != CF_OK) return fail_from(p, at, st, &inner);
    return CF_OK;
}

static cfStatus parse_rigid(const Parser *p, const cJSON *obj, int index, cfRigidBody *b)
{
    static const char *const keys[] = {"name", "shape", "fixed", "mass", "inertia", "position", "orientation",
                                       "velocity", "angular_velocity", "force", "torque", "mu",
                                       "restitution", NULL};
    char at[PATH_CAP], path[PATH_CAP];
    make_path(at, "bodies[%d]", index);
    cfStatus st = check_object(p, obj, at, keys);
    if (st != CF_OK) return st;

    field_path(path, at, "shape");
    const cJSON *shape_item = member(obj, "shape");
    if (!shape_item) return fail(p, path, "missing (an object with a \"type\" is required)");
    cfShape shape;
    st = parse_shape(p, shape_item, path, &shape);
    if (st != CF_OK) return st;
    bool plane = shape.type == CF_SHAPE_PLANE;

    bool fixed = false;
    st = get_bool(p, obj, at, "fixed", &fixed);
    if (st != CF_OK) return st;

    /* keys that make no sense for a fixed body or a plane are refused rather than ignored */
    static const char *const not_fixed[] = {"mass", "inertia", "velocity", "angular_velocity", "force", "torque", NULL};
    for (const char *const *k = not_fixed; fixed && *k; ++k)
        if (member(obj, *k)) {
            field_path(path, at, *k);
            return fail(p, path, "not allowed on a fixed body (it never moves)");
        }
    static const char *const not_plane[] = {"position", "orientation", NULL};
    for (const char *const *k = not_plane; plane && *k; ++k)
        if (member(obj, *k)) {
            field_path(path, at, *k);
            return fail(p, path, "not allowed on a plane (it is placed by its normal and offset)");
        }

    cfError inner = {{0}};
    if (fixed) {
        st = cf_rigid_init_fixed(b, shape, &inner);
    } else {
        /* a plane without "fixed" is refused by cf_rigid_init() ("a plane must be fixed") */
        double mass = 0.0;
        st = plane ? get_number(p, obj, at, "mass", &mass) : need_number(p, obj, at, "mass", &mass);
        if (st != CF_OK) return st;
        st = cf_rigid_init(b, shape, mass, &inner);
    }
    if (st != CF_OK) return fail_from(p, at, st, &inner);

    if (member(obj, "inertia")) {
        cfVec3 inertia = cfu_zero3();
        st = get_vec3(p, obj, at, "inertia", &inertia);
        if (st != CF_OK) return st;
        st = cf_rigid_set_inertia(b, inertia, &inner);
        if (st != CF_OK) return fail_from(p, at, st, &inner);
    }

    if ((st = get_string(p, obj, at, "name", b->name, sizeof b->name)) != CF_OK) return st;
    if (!member(obj, "name")) snprintf(b->name, sizeof b->name, "body%d", index);
    if ((st = get_vec3(p, obj, at, "position", &b->x)) != CF_OK) return st;
    if ((st = get_unit_quat(p, obj, at, "orientation", &b->q)) != CF_OK) return st;
    if ((st = get_vec3(p, obj, at, "velocity", &b->v)) != CF_OK) return st;
    if ((st = get_vec3(p, obj, at, "angular_velocity", &b->w)) != CF_OK) return st;
    if ((st = get_vec3(p, obj, at, "force", &b->force)) != CF_OK) return st;
    if ((st = get_vec3(p, obj, at, "torque", &b->torque)) != CF_OK) return st;
    if ((st = get_number(p, obj, at, "mu", &b->mu)) != CF_OK) return st;
    if ((st = check_nonnegative(p, at, "mu", b->mu)) != CF_OK) return st;
    if ((st = get_number(p, obj, at, "restitution", &b->restitution)) != CF_OK) return st;
    if (!(b->restitution >= 0.0 && b->restitution <= 1.0)) {
        field_path(path, at, "restitution");
        return fail(p, path, "must be in [0, 1] (got %g)", b->restitution);
    }
    cf_rigid_update_inertia(b);
    return CF_OK;
}

/* ---- soft bodies --------------------------------------------------------------------------- */

/* Build the soft body of @p obj into @p s (zeroed by the caller; freed by the caller on error). */
/* take @p need nodes and elements from the scene's budget, or refuse naming the field */
static cfStatus spend_elements(const Parser *p, const char *at, const char *key, double need)
{
    if (need <= *p->elements_left) {
        *p->elements_left -= need;
        return CF_OK;
    }
    char path[PATH_CAP];
    field_path(path, at, key);
    return fail(p, path, "%.3g nodes and elements exceed what the scene has left of its budget (%.3g; top-level "
                "\"max_elements\", default %g): a typo? give \"max_elements\" to build more", need, *p->elements_left,
                SCENE_DEFAULT_MAX_ELEMENTS);
}

/* a file named in a scene: relative to the scene file's folder */
static void scene_relative(const Parser *p, const char *name, char *out, size_t cap)
{
    const char *slash = strrchr(p->label, '/');
    if (name[0] == '/' || !slash) snprintf(out, cap, "%s", name);
    else snprintf(out, cap, "%.*s/%s", (int)(slash - p->label), p->label, name);
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

static cfStatus build_soft(const Parser *p, const cJSON *obj, const char *at, cfSoftBody *s)
{
    static const char *const any_keys[] = {"name", "type", "origin", "size", "cells", "density", "young", "poisson",
                                           "fix_min_x", "from", "to", "nodes", "stiffness", "node_mass", "fix_first",
                                           "damping", "mu", "velocity", "center", "radius", "du", "dv", "mass",
                                           "stretch", "shear", "bend", "thickness", "node", "ele", "scale", "offset",
                                           "corotational", "consistent_mass", "position", "pin_corners", NULL};
    static const char *const box_keys[] = {"name", "type", "origin", "size", "cells", "density", "young", "poisson",
                                           "fix_min_x", "damping", "mu", "velocity", "corotational", "consistent_mass",
                                           "thickness", NULL};
    static const char *const chain_keys[] = {"name", "type", "from", "to", "nodes", "stiffness", "node_mass",
                                             "fix_first", "damping", "mu", "velocity", "thickness", NULL};
    static const char *const ball_keys[] = {"name", "type", "center", "radius", "cells", "density", "young", "poisson",
                                            "damping", "mu", "velocity", "corotational", "consistent_mass", "thickness",
                                            NULL};
    static const char *const cloth_keys[] = {"name", "type", "origin", "du", "dv", "cells", "mass", "stretch", "shear",
                                             "bend", "thickness", "damping", "mu", "velocity", "pin_corners", NULL};
    static const char *const spring_box_keys[] = {"name", "type", "origin", "size", "mass", "stiffness", "mu",
                                                  "velocity", NULL};
    static const char *const particle_keys[] = {"name", "type", "position", "mass", "mu", "velocity", NULL};
    static const char *const tetgen_keys[] = {"name", "type", "node", "ele", "scale", "offset", "density", "young",
                                              "poisson", "damping", "mu", "velocity", "corotational", "consistent_mass",
                                              "thickness", NULL};
    char path[PATH_CAP];
    cfStatus st = check_object(p, obj, at, any_keys);
    if (st != CF_OK) return st;
    field_path(path, at, "type");
    const cJSON *type = member(obj, "type");
    if (!type) return fail(p, path, "missing (one of: tet_box, tet_ball, tetgen, cloth, chain, spring_box, particle)");
    if (!cJSON_IsString(type)) return fail(p, path, "must be a string (got %s)", json_type_name(type));

    cfError inner = {{0}};
    if (strcmp(type->valuestring, "tet_box") == 0) {
        cfVec3 origin = cfu_zero3(), size = cfu_zero3();
        double density = 0.0, young = 0.0, poisson = 0.0;
        bool fix = false;
        st = check_object(p, obj, at, box_keys);
        if (st == CF_OK) st = get_vec3(p, obj, at, "origin", &origin);
        if (st == CF_OK) st = need_vec3(p, obj, at, "size", &size);
        int n[3] = {0, 0, 0};
        if (st == CF_OK) st = need_int3(p, obj, at, "cells", n);
        if (st == CF_OK) st = need_number(p, obj, at, "density", &density);
        if (st == CF_OK) st = need_number(p, obj, at, "young", &young);
        if (st == CF_OK) st = need_number(p, obj, at, "poisson", &poisson);
        if (st == CF_OK) st = get_bool(p, obj, at, "fix_min_x", &fix);
        if (st != CF_OK) return st;
        if (n[0] > 0 && n[1] > 0 && n[2] > 0 &&
            (st = spend_elements(p, at, "cells", 5.0 * n[0] * n[1] * n[2] + (n[0] + 1.0) * (n[1] + 1.0) * (n[2] + 1.0))) != CF_OK)
            return st;
        st = cf_soft_make_tet_box(s, origin, size, n[0], n[1], n[2], density, young, poisson, fix, &inner);
        if (st != CF_OK) return fail_from(p, at, st, &inner);
    } else if (strcmp(type->valuestring, "tet_ball") == 0) {
        cfVec3 center = cfu_zero3();
        double radius = 0.0, density = 0.0, young = 0.0, poisson = 0.0;
        int cells = 0;
        st = check_object(p, obj, at, ball_keys);
        if (st == CF_OK) st = get_vec3(p, obj, at, "center", &center);
        if (st == CF_OK) st = need_number(p, obj, at, "radius", &radius);
        if (st == CF_OK) st = need_int(p, obj, at, "cells", &cells);
        if (st == CF_OK) st = need_number(p, obj, at, "density", &density);
        if (st == CF_OK) st = need_number(p, obj, at, "young", &young);
        if (st == CF_OK) st = need_number(p, obj, at, "poisson", &poisson);
        if (st != CF_OK) return st;
        if (cells > 0 && (st = spend_elements(p, at, "cells", 6.0 * cells * cells * cells)) != CF_OK) return st;
        st = cf_soft_make_tet_ball(s, center, radius, cells, density, young, poisson, &inner);
        if (st != CF_OK) return fail_from(p, at, st, &inner);
    } else if (strcmp(type->valuestring, "cloth") == 0) {
        cfVec3 origin = cfu_zero3(), du = cfu_zero3(), dv = cfu_zero3();
        double mass = 0.0, ks = 0.0, kh = 0.0, kb = 0.0, th = 0.0;
        int n[2] = {0, 0};
        st = check_object(p, obj, at, cloth_keys);
        if (st == CF_OK) st = get_vec3(p, obj, at, "origin", &origin);
        if (st == CF_OK) st = need_vec3(p, obj, at, "du", &du);
        if (st == CF_OK) st = need_vec3(p, obj, at, "dv", &dv);
        if (st == CF_OK) {
            field_path(path, at, "cells");
            const cJSON *c = member(obj, "cells");
            double v[2];
            if (!c) st = fail(p, path, "missing (two cell counts [nu, nv])");
            else if ((st = numbers_value(p, c, path, 2, v)) == CF_OK) {
                if (v[0] != floor(v[0]) || v[1] != floor(v[1]) || v[0] < 1 || v[1] < 1 || v[0] > 1000 || v[1] > 1000)
                    st = fail(p, path, "two integers in [1, 1000] (got [%g, %g])", v[0], v[1]);
                n[0] = (int)v[0], n[1] = (int)v[1];
            }
        }
        if (st == CF_OK) st = need_number(p, obj, at, "mass", &mass);
        if (st == CF_OK) st = need_number(p, obj, at, "stretch", &ks);
        if (st == CF_OK) st = get_number(p, obj, at, "shear", &kh);
        if (st == CF_OK) st = get_number(p, obj, at, "bend", &kb);
        if (st == CF_OK) st = get_number(p, obj, at, "thickness", &th);
        if (st != CF_OK) return st;
        if ((st = spend_elements(p, at, "cells", 8.0 * (n[0] + 1.0) * (n[1] + 1.0))) != CF_OK) return st;
        bool pin = false;
        if ((st = get_bool(p, obj, at, "pin_corners", &pin)) != CF_OK) return st;
        st = cf_soft_make_cloth(s, origin, du, dv, n[0], n[1], mass, ks, kh, kb, th, &inner);
        if (st != CF_OK) return fail_from(p, at, st, &inner);
        /* a hammock: the nodes at the sheet's four corners never move */
        cfVec3 corner[4] = {origin, cfu_add(origin, du), cfu_add(origin, dv), cfu_add(cfu_add(origin, du), dv)};
        double tol = 1e-9 * (cfu_norm(du) + cfu_norm(dv));
        for (int i = 0; pin && i < s->n_nodes; ++i)
            for (int k = 0; k < 4; ++k)
                if (cfu_norm(cfu_sub(s->x[i], corner[k])) <= tol) s->fixed[i] = true;
    } else if (strcmp(type->valuestring, "tetgen") == 0) {
        char node[256] = "", ele[256] = "", npath[PATH_CAP + 256], epath[PATH_CAP + 256];
        cfVec3 offset = cfu_zero3();
        double scale = 1.0, density = 0.0, young = 0.0, poisson = 0.0;
        st = check_object(p, obj, at, tetgen_keys);
        if (st == CF_OK) st = get_string(p, obj, at, "node", node, sizeof node);
        if (st == CF_OK) st = get_string(p, obj, at, "ele", ele, sizeof ele);
        if (st == CF_OK && (!node[0] || !ele[0]))
            st = fail(p, at, "a tetgen body needs \"node\" and \"ele\" (file names, relative to the scene file)");
        if (st == CF_OK) st = get_number(p, obj, at, "scale", &scale);
        if (st == CF_OK) st = get_vec3(p, obj, at, "offset", &offset);
        if (st == CF_OK) st = need_number(p, obj, at, "density", &density);
        if (st == CF_OK) st = need_number(p, obj, at, "young", &young);
        if (st == CF_OK) st = need_number(p, obj, at, "poisson", &poisson);
        if (st != CF_OK) return st;
        scene_relative(p, node, npath, sizeof npath);
        scene_relative(p, ele, epath, sizeof epath);
        st = cf_soft_read_tetgen(s, npath, epath, scale, offset, density, young, poisson, fmax(*p->elements_left, 0.5), &inner);
        if (st != CF_OK) {
            cf_soft_free(s);
            /* the reader names its file and line ("mesh.node:2: ..."): after the body, not glued to its path */
            return cf_error_set(p->err, st, "%s: %s: %s", p->label, at, inner.msg[0] ? inner.msg : cf_status_name(st));
        }
        st = spend_elements(p, at, "node", (double)s->n_nodes + s->n_tets);
        if (st != CF_OK) {
            cf_soft_free(s);
            return st;
        }
    } else if (strcmp(type->valuestring, "chain") == 0) {
        cfVec3 from = cfu_zero3(), to = cfu_zero3();
        int nodes = 0;
        double k = 0.0, node_mass = 0.0;
        bool fix = false;
        st = check_object(p, obj, at, chain_keys);
        if (st == CF_OK) st = need_vec3(p, obj, at, "from", &from);
        if (st == CF_OK) st = need_vec3(p, obj, at, "to", &to);
        if (st == CF_OK) st = need_int(p, obj, at, "nodes", &nodes);
        if (st == CF_OK) st = need_number(p, obj, at, "stiffness", &k);
        if (st == CF_OK) st = need_number(p, obj, at, "node_mass", &node_mass);
        if (st == CF_OK) st = get_bool(p, obj, at, "fix_first", &fix);
        if (st != CF_OK) return st;
        if (nodes > 0 && (st = spend_elements(p, at, "nodes", 2.0 * nodes)) != CF_OK) return st;
        st = cf_soft_make_chain(s, from, to, nodes, k, node_mass, fix, &inner);
        if (st != CF_OK) return fail_from(p, at, st, &inner);
    } else if (strcmp(type->valuestring, "spring_box") == 0) {
        cfVec3 origin = cfu_zero3(), size = cfu_zero3();
        double mass = 0.0, k = 0.0;
        st = check_object(p, obj, at, spring_box_keys);
        if (st == CF_OK) st = get_vec3(p, obj, at, "origin", &origin);
        if (st == CF_OK) st = need_vec3(p, obj, at, "size", &size);
        if (st == CF_OK) st = need_number(p, obj, at, "mass", &mass);
        if (st == CF_OK) st = need_number(p, obj, at, "stiffness", &k);
        if (st != CF_OK) return st;
        if (!(size.x > 0.0 && size.y > 0.0 && size.z > 0.0))
            return fail(p, at, "size: every side must be > 0 (got [%g, %g, %g])", size.x, size.y, size.z);
        if (!(mass > 0.0)) return fail(p, at, "mass: must be > 0 (got %g)", mass);
        if (!(k > 0.0)) return fail(p, at, "stiffness: must be > 0 (got %g)", k);
        st = spring_box(s, origin, size, mass, k, &inner);
        if (st != CF_OK) return fail_from(p, at, st, &inner);
    } else if (strcmp(type->valuestring, "particle") == 0) {
        cfVec3 x = cfu_zero3();
        double mass = 0.0;
        st = check_object(p, obj, at, particle_keys);
        if (st == CF_OK) st = need_vec3(p, obj, at, "position", &x);
        if (st == CF_OK) st = need_number(p, obj, at, "mass", &mass);
        if (st != CF_OK) return st;
        if (!(mass > 0.0)) return fail(p, at, "mass: must be > 0 (got %g)", mass);
        st = cf_soft_init(s, 1);
        if (st == CF_OK) {
            s->x[0] = x;
            s->mass[0] = mass;
            st = cf_soft_finalize(s, &inner);
        }
        if (st != CF_OK) {
            cf_soft_free(s);
            return inner.msg[0] ? fail_from(p, at, st, &inner) : cf_error_set(p->err, st, "%s: %s: out of memory", p->label, at);
        }
    } else {
        return fail(p, path, "unknown soft body type '%s' (expected one of: tet_box, tet_ball, tetgen, cloth, chain, spring_box, particle)",
                    type->valuestring);
    }

    /* models of the tetrahedra (chapter 8) and the contact thickness */
    if ((st = get_bool(p, obj, at, "corotational", &s->corotational)) != CF_OK) return st;
    if ((st = get_bool(p, obj, at, "consistent_mass", &s->consistent_mass)) != CF_OK) return st;
    if ((st = get_number(p, obj, at, "thickness", &s->thickness)) != CF_OK) return st;
    if ((st = check_nonnegative(p, at, "thickness", s->thickness)) != CF_OK) return st;
    /* settings common to both kinds, applied to the constructed body */
    if ((st = get_string(p, obj, at, "name", s->name, sizeof s->name)) != CF_OK) return st;
    if ((st = get_number(p, obj, at, "mu", &s->mu)) != CF_OK) return st;
    if ((st = check_nonnegative(p, at, "mu", s->mu)) != CF_OK) return st;
    if (member(obj, "damping")) {
        double d[2];
        field_path(path, at, "damping");
        if ((st = numbers_value(p, member(obj, "damping"), path, 2, d)) != CF_OK) return st;
        if (d[0] < 0.0 || d[1] < 0.0)
            return fail(p, path, "Rayleigh coefficients [alpha, beta] must be >= 0 (got [%g, %g])", d[0], d[1]);
        s->damping_alpha = d[0];
        s->damping_beta = d[1];
    }
    if (member(obj, "velocity")) {
        cfVec3 v = cfu_zero3();
        if ((st = get_vec3(p, obj, at, "velocity", &v)) != CF_OK) return st;
        for (int i = 0; i < s->n_nodes; ++i) s->v[i] = s->fixed[i] ? cfu_zero3() : v;
    }
    return CF_OK;
}

static cfStatus parse_soft(const Parser *p, const cJSON *obj, int index, cfWorld *w)
{
    char at[PATH_CAP];
    make_path(at, "soft_bodies[%d]", index);
    cfSoftBody s;
    memset(&s, 0, sizeof s);
    cfStatus st = build_soft(p, obj, at, &s);
    if (st == CF_OK && !member(obj, "name")) snprintf(s.name, sizeof s.name, "soft%d", index);
    if (st == CF_OK && cf_world_add_soft(w, &s) < 0)
        st = cf_error_set(p->err, CF_NO_MEMORY, "%s: %s: out of memory", p->label, at);
    cf_soft_free(&s); /* zeroed when the world took it */
    return st;
}

/* ---- the whole scene ----------------------------------------------------------------------- */

/* An optional array member; @p out is NULL when absent. */
/* ---- friction pairs ------------------------------------------------------------------------ */

/* the body named @p name: a rigid or a soft body; exactly one must carry the name */
static cfStatus find_body(const Parser *p, const cfWorld *w, const char *path, const char *name, cfSideKind *kind,
                          int *index)
{
    int hits = 0;
    for (int i = 0; i < w->n_bodies; ++i)
        if (strcmp(w->bodies[i].name, name) == 0) hits++, *kind = CF_SIDE_RIGID, *index = i;
    for (int i = 0; i < w->n_soft; ++i)
        if (strcmp(w->soft[i].name, name) == 0) hits++, *kind = CF_SIDE_SOFT, *index = i;
    if (hits == 0) return fail(p, path, "no body is named '%s'", name);
    if (hits > 1) return fail(p, path, "%d bodies are named '%s': give them different names", hits, name);
    return CF_OK;
}

/* A direction field (chapter 10): [x, y, z] is a constant direction of kind @p plain (world for a
   law's "direction", the body's frame for a Matchstick "structure"), or an object
   {"field": "world" | "body", "direction": [x, y, z]} or {"field": "circles", "center": c, "axis": a}. */
static cfStatus parse_field(const Parser *p, const cJSON *item, const char *path, cfFieldKind plain,
                            cfDirectionField *f)
{
    memset(f, 0, sizeof *f);
    if (cJSON_IsArray(item)) {
        f->kind = plain;
        double v[3];
        cfStatus st = numbers_value(p, item, path, 3, v);
        if (st == CF_OK) f->dir = cfu_vec3(v[0], v[1], v[2]);
        return st;
    }
    static const char *const keys[] = {"field", "direction", "center", "axis", NULL};
    cfStatus st = check_object(p, item, path, keys);
    if (st != CF_OK) return st;
    const cJSON *kind = member(item, "field");
    char fp[PATH_CAP];
    field_path(fp, path, "field");
    if (!cJSON_IsString(kind)) return fail(p, fp, "must be \"world\", \"body\" or \"circles\"");
    int k = 0;
    while (k < CF_FIELD_KIND_COUNT && strcmp(kind->valuestring, cf_field_kind_name((cfFieldKind)k)) != 0) ++k;
    if (k == CF_FIELD_KIND_COUNT)
        return fail(p, fp, "unknown field '%s' (expected world, body or circles)", kind->valuestring);
    f->kind = (cfFieldKind)k;
    if (f->kind == CF_FIELD_CIRCLES) {
        if (member(item, "direction")) return fail(p, path, "\"direction\" belongs to the world and body fields");
        if ((st = need_vec3(p, item, path, "center", &f->center)) != CF_OK) return st;
        return need_vec3(p, item, path, "axis", &f->axis);
    }
    if (member(item, "center") || member(item, "axis"))
        return fail(p, path, "\"center\" and \"axis\" belong to the circles field");
    return need_vec3(p, item, path, "direction", &f->dir);
}

/* friction[i]: {"bodies": [name, name], "mu": m} (isotropic), or with "law": "orthotropic",
   "mu": [mu_1, mu_2], "direction": d, or "law": "tensor", "tensor": [4 values], "direction": d,
   "mu": bound, or "law": "matchstick", "mu": m, "anisotropic": [mu_t, mu_b], "structure": [sA, sB]
   (d, sA, sB: direction fields, parse_field()) */
static cfStatus parse_friction_pair(const Parser *p, const cJSON *obj, int index, cfWorld *w)
{
    static const char *const keys[] = {"bodies", "mu", "law", "direction", "tensor", "anisotropic", "structure", NULL};
    char at[PATH_CAP], path[PATH_CAP];
    make_path(at, "friction[%d]", index);
    cfStatus st = check_object(p, obj, at, keys);
    if (st != CF_OK) return st;
    cfFrictionPair fp;
    memset(&fp, 0, sizeof fp);
    const cJSON *bodies = member(obj, "bodies");
    field_path(path, at, "bodies");
    if (!cJSON_IsArray(bodies) || cJSON_GetArraySize(bodies) != 2)
        return fail(p, path, "must be an array of two body names");
    for (int s = 0; s < 2; ++s) {
        const cJSON *name = cJSON_GetArrayItem(bodies, s);
        char bp[PATH_CAP];
        make_path(bp, "%s[%d]", path, s);
        if (!cJSON_IsString(name)) return fail(p, bp, "must be a string (got %s)", json_type_name(name));
        if ((st = find_body(p, w, bp, name->valuestring, &fp.kind[s], &fp.index[s])) != CF_OK) return st;
    }
    static const char *const laws[] = {"isotropic", "orthotropic", "tensor", "matchstick"};
    const cJSON *law = member(obj, "law");
    field_path(path, at, "law");
    if (law) {
        if (!cJSON_IsString(law)) return fail(p, path, "must be a string (got %s)", json_type_name(law));
        int k = 0;
        while (k < 4 && strcmp(law->valuestring, laws[k]) != 0) ++k;
        if (k == 4)
            return fail(p, path, "unknown law '%s' (expected isotropic, orthotropic, tensor or matchstick)",
                        law->valuestring);
        if (k == 3) fp.matchstick = true;
        else fp.law.law = (cfFrictionLaw)k;
    }
    if (fp.matchstick) {
        const cJSON *an = member(obj, "anisotropic"), *sd = member(obj, "structure");
        field_path(path, at, "anisotropic");
        if (!an) return fail(p, path, "missing (the Matchstick model needs [mu_t, mu_b] of parallel structures)");
        if ((st = numbers_value(p, an, path, 2, fp.aniso)) != CF_OK) return st;
        field_path(path, at, "structure");
        if (!cJSON_IsArray(sd) || cJSON_GetArraySize(sd) != 2)
            return fail(p, path, "must be an array of two structure directions, one per body");
        for (int s = 0; s < 2; ++s) {
            char sp[PATH_CAP];
            make_path(sp, "%s[%d]", path, s);
            if ((st = parse_field(p, cJSON_GetArrayItem(sd, s), sp, CF_FIELD_BODY, &fp.structure[s])) != CF_OK) return st;
        }
    } else if (member(obj, "anisotropic") || member(obj, "structure")) {
        return fail(p, at, "\"anisotropic\" and \"structure\" belong to the matchstick law only");
    }
    const cJSON *mu = member(obj, "mu");
    field_path(path, at, "mu");
    if (fp.law.law == CF_LAW_ORTHOTROPIC) {
        if (!cJSON_IsArray(mu) || cJSON_GetArraySize(mu) != 2 || !cJSON_IsNumber(cJSON_GetArrayItem(mu, 0)) ||
            !cJSON_IsNumber(cJSON_GetArrayItem(mu, 1)))
            return fail(p, path, "an orthotropic law needs two coefficients [mu_1, mu_2]");
        fp.law.coef[0] = cJSON_GetArrayItem(mu, 0)->valuedouble;
        fp.law.coef[1] = cJSON_GetArrayItem(mu, 1)->valuedouble;
        fp.mu = fmax(fp.law.coef[0], fp.law.coef[1]);
    } else if ((st = need_number(p, obj, at, "mu", &fp.mu)) != CF_OK) {
        return st;
    }
    if (fp.law.law == CF_LAW_TENSOR) {
        const cJSON *t = member(obj, "tensor");
        field_path(path, at, "tensor");
        if (!cJSON_IsArray(t) || cJSON_GetArraySize(t) != 4) return fail(p, path, "needs 4 numbers (2x2, row-major)");
        for (int k = 0; k < 4; ++k) {
            const cJSON *v = cJSON_GetArrayItem(t, k);
            if (!cJSON_IsNumber(v)) return fail(p, path, "needs 4 numbers (2x2, row-major)");
            fp.law.coef[k] = v->valuedouble;
        }
    } else if (member(obj, "tensor")) {
        return fail(p, at, "\"tensor\" belongs to the tensor law only");
    }
    if (fp.law.law != CF_LAW_ISOTROPIC) {
        field_path(path, at, "direction");
        const cJSON *d = member(obj, "direction");
        if (!d) return fail(p, path, "missing (an array of 3 numbers or a direction field is required)");
        if ((st = parse_field(p, d, path, CF_FIELD_WORLD, &fp.field)) != CF_OK) return st;
        if (fp.field.kind == CF_FIELD_BODY)
            return fail(p, path, "a law's direction belongs to no one body: use a world or circles field (or the "
                        "matchstick law's structure)");
        /* law.dir: the constant direction, or a placeholder the field replaces at every contact */
        fp.law.dir = fp.field.kind == CF_FIELD_CIRCLES ? fp.field.axis : fp.field.dir;
    } else if (member(obj, "direction")) {
        return fail(p, at, "\"direction\" belongs to the orthotropic and tensor laws only");
    }
    cfError inner = {{0}};
    st = cf_world_add_friction_pair(w, &fp, &inner);
    return st == CF_OK ? CF_OK : fail_from(p, at, st, &inner);
}

static cfStatus get_array(const Parser *p, const cJSON *obj, const char *key, const cJSON **out)
{
    *out = member(obj, key);
    if (*out && !cJSON_IsArray(*out)) return fail(p, key, "must be an array (got %s)", json_type_name(*out));
    return CF_OK;
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

static cfStatus build_scene(const Parser *p, const cJSON *root, cfWorld *w, cfSceneInfo *info)
{
    static const char *const keys[] = {"name", "chapter", "description", "expect", "world", "bodies",
                                       "soft_bodies", "friction", "max_elements", NULL};
    if (!cJSON_IsObject(root)) return fail(p, NULL, "a scene must be a JSON object (got %s)", json_type_name(root));
    cfStatus st = check_object(p, root, "", keys);
    if (st == CF_OK) st = get_string(p, root, "", "name", info->name, sizeof info->name);
    if (st == CF_OK) st = get_string(p, root, "", "description", info->description, sizeof info->description);
    if (st == CF_OK) st = get_string(p, root, "", "expect", info->expect, sizeof info->expect);
    if (st == CF_OK) st = get_int(p, root, "", "chapter", &info->chapter);
    if (st == CF_OK && info->chapter < 0) st = fail(p, "chapter", "must be >= 0 (got %d)", info->chapter);
    if (st != CF_OK) return st;

    if (member(root, "max_elements")) {
        st = get_number(p, root, "", "max_elements", p->elements_left);
        if (st == CF_OK && !(*p->elements_left >= 0.0))
            st = fail(p, "max_elements", "must be >= 0 (got %g)", *p->elements_left);
        if (st != CF_OK) return st;
    }
    cfWorldDef def = cf_world_def_default();
    const cJSON *world = member(root, "world");
    if (world && (st = parse_world_def(p, world, &def, info)) != CF_OK) return st;
    st = cf_world_init(w, &def); /* the same validator as parse_world_def() */
    if (st != CF_OK) return fail_from(p, "world", st, &w->error);

    const cJSON *bodies = NULL, *soft = NULL;
    if ((st = get_array(p, root, "bodies", &bodies)) != CF_OK) return st;
    if ((st = get_array(p, root, "soft_bodies", &soft)) != CF_OK) return st;
    if (cJSON_GetArraySize(bodies) + cJSON_GetArraySize(soft) == 0)
        return fail(p, NULL, "the scene has no bodies (give \"bodies\" or \"soft_bodies\")");

    int i = 0;
    for (const cJSON *c = bodies ? bodies->child : NULL; c; c = c->next, ++i) {
        cfRigidBody b;
        memset(&b, 0, sizeof b);
        if ((st = parse_rigid(p, c, i, &b)) != CF_OK) return st;
        if (cf_world_add_body(w, &b) < 0)
            return cf_error_set(p->err, CF_NO_MEMORY, "%s: bodies[%d]: out of memory", p->label, i);
    }
    i = 0;
    for (const cJSON *c = soft ? soft->child : NULL; c; c = c->next, ++i)
        if ((st = parse_soft(p, c, i, w)) != CF_OK) return st;
    const cJSON *friction = NULL;
    if ((st = get_array(p, root, "friction", &friction)) != CF_OK) return st;
    i = 0;
    for (const cJSON *c = friction ? friction->child : NULL; c; c = c->next, ++i)
        if ((st = parse_friction_pair(p, c, i, w)) != CF_OK) return st;
    if ((st = world_bounds_check(w, p->err, p->label)) != CF_OK) return st;
    /* the bodies the pipeline can step (the velocity pipeline takes every world) */
    cfError inner = {{0}};
    if (cf_pipeline_of(w->def.pipeline)->check(w, &inner) != CF_OK) return fail(p, NULL, "%s", inner.msg);
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

static cfStatus syntax_error(const Parser *p, const char *json, const char *where)
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
    Parser p = {label && *label ? label : "<scene>", err, &budget, solver};
    if (w) memset(w, 0, sizeof *w);
    if (info) memset(info, 0, sizeof *info);
    if (!w) return fail(&p, NULL, "no world to load into (w is NULL)");
    if (!json) return fail(&p, NULL, "no scene text (json is NULL)");

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
