/* SPDX-License-Identifier: MIT */
/* Reading a scene's JSON (scene_json.h): messages that name the source, the field path and the
   reason; objects and their keys; values of every kind. */
#include "scene_json.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- messages ----------------------------------------------------------------------------- */

/* "label: path: reason"; a NULL or empty path gives "label: reason" */
cfStatus cf_json_fail(const cfSceneParser *p, const char *path, const char *fmt, ...)
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
cfStatus cf_json_fail_from(const cfSceneParser *p, const char *path, cfStatus st, const cfError *inner)
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
void cf_json_path(char *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, PATH_CAP, fmt, ap);
    va_end(ap);
}

/* "parent.key" (or "key" at the top level) */
void cf_json_field_path(char *out, const char *parent, const char *key)
{
    if (parent && *parent)
        cf_json_path(out, "%s.%s", parent, key);
    else
        cf_json_path(out, "%s", key);
}

const char *cf_json_type(const cJSON *item)
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
cfStatus cf_json_check_object(const cfSceneParser *p, const cJSON *item, const char *path, const char *const *allowed)
{
    if (!cJSON_IsObject(item))
        return cf_json_fail(p, path && *path ? path : NULL, "must be an object (got %s)", cf_json_type(item));
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
            if (best) return cf_json_fail(p, path, "unknown key '%s' (did you mean '%s'?)", c->string, best);
            char list[256] = "";
            for (const char *const *k = allowed; *k; ++k) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *k);
            }
            return cf_json_fail(p, path, "unknown key '%s' (expected one of: %s)", c->string, list);
        }
        for (const cJSON *d = item->child; d != c; d = d->next)
            if (strcmp(d->string, c->string) == 0) return cf_json_fail(p, path, "duplicate key '%s'", c->string);
    }
    return CF_OK;
}

/* The member @p key of @p obj, or NULL. Keys are compared exactly (case matters). */
const cJSON *cf_json_member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* ---- values ------------------------------------------------------------------------------ */

/* the member @p key of @p obj (NULL: absent) and, when it is there, its path "parent.key" in @p path */
static const cJSON *field(const cJSON *obj, const char *parent, const char *key, char path[PATH_CAP])
{
    const cJSON *item = cf_json_member(obj, key);
    if (item) cf_json_field_path(path, parent, key);
    return item;
}

/* CF_OK when the member @p key is there, else "path: missing (@p what is required)" */
static cfStatus present(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, const char *what)
{
    if (cf_json_member(obj, key)) return CF_OK;
    char path[PATH_CAP];
    cf_json_field_path(path, parent, key);
    return cf_json_fail(p, path, "missing (%s is required)", what);
}

cfStatus cf_json_number(const cfSceneParser *p, const cJSON *item, const char *path, double *out)
{
    if (!cJSON_IsNumber(item)) return cf_json_fail(p, path, "must be a number (got %s)", cf_json_type(item));
    if (!isfinite(item->valuedouble))
        return cf_json_fail(p, path, "must be a finite number (got %s: out of range)", item->valuedouble > 0 ? "+inf" : "-inf");
    *out = item->valuedouble;
    return CF_OK;
}

cfStatus cf_json_int(const cfSceneParser *p, const cJSON *item, const char *path, int *out)
{
    double d = 0.0;
    cfStatus st = cf_json_number(p, item, path, &d);
    if (st != CF_OK) return st;
    if (d != floor(d)) return cf_json_fail(p, path, "must be an integer (got %g)", d);
    if (d < (double)INT_MIN || d > (double)INT_MAX) return cf_json_fail(p, path, "integer out of range (got %g)", d);
    *out = (int)d;
    return CF_OK;
}

cfStatus cf_json_numbers(const cfSceneParser *p, const cJSON *item, const char *path, int n, double *out)
{
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != n) {
        if (cJSON_IsArray(item))
            return cf_json_fail(p, path, "must be an array of %d numbers (got %d elements)", n, cJSON_GetArraySize(item));
        return cf_json_fail(p, path, "must be an array of %d numbers (got %s)", n, cf_json_type(item));
    }
    int i = 0;
    for (const cJSON *c = item->child; c; c = c->next, ++i) {
        char elem[PATH_CAP];
        cf_json_path(elem, "%s[%d]", path, i);
        cfStatus st = cf_json_number(p, c, elem, &out[i]);
        if (st != CF_OK) return st;
    }
    return CF_OK;
}

cfStatus cf_json_get_number(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, double *out)
{
    char path[PATH_CAP];
    const cJSON *item = field(obj, parent, key, path);
    return item ? cf_json_number(p, item, path, out) : CF_OK;
}

cfStatus cf_json_need_number(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, double *out)
{
    cfStatus st = present(p, obj, parent, key, "a number");
    return st == CF_OK ? cf_json_get_number(p, obj, parent, key, out) : st;
}

cfStatus cf_json_get_int(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, int *out)
{
    char path[PATH_CAP];
    const cJSON *item = field(obj, parent, key, path);
    return item ? cf_json_int(p, item, path, out) : CF_OK;
}

cfStatus cf_json_need_int(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, int *out)
{
    cfStatus st = present(p, obj, parent, key, "an integer");
    return st == CF_OK ? cf_json_get_int(p, obj, parent, key, out) : st;
}

cfStatus cf_json_get_bool(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, bool *out)
{
    char path[PATH_CAP];
    const cJSON *item = field(obj, parent, key, path);
    if (!item) return CF_OK;
    if (!cJSON_IsBool(item)) return cf_json_fail(p, path, "must be true or false (got %s)", cf_json_type(item));
    *out = cJSON_IsTrue(item);
    return CF_OK;
}

cfStatus cf_json_get_string(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, char *buf,
                            size_t cap)
{
    char path[PATH_CAP];
    const cJSON *item = field(obj, parent, key, path);
    if (!item) return CF_OK;
    if (!cJSON_IsString(item)) return cf_json_fail(p, path, "must be a string (got %s)", cf_json_type(item));
    size_t n = strlen(item->valuestring);
    if (n >= cap) return cf_json_fail(p, path, "too long (%zu characters, at most %zu)", n, cap - 1);
    memcpy(buf, item->valuestring, n + 1);
    return CF_OK;
}

cfStatus cf_json_get_vec3(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, cfVec3 *out)
{
    char path[PATH_CAP];
    const cJSON *item = field(obj, parent, key, path);
    if (!item) return CF_OK;
    double v[3];
    cfStatus st = cf_json_numbers(p, item, path, 3, v);
    if (st == CF_OK) *out = cfu_vec3(v[0], v[1], v[2]);
    return st;
}

cfStatus cf_json_need_vec3(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, cfVec3 *out)
{
    cfStatus st = present(p, obj, parent, key, "an array of 3 numbers");
    return st == CF_OK ? cf_json_get_vec3(p, obj, parent, key, out) : st;
}

cfStatus cf_json_need_int3(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, int out[3])
{
    cfStatus st = present(p, obj, parent, key, "an array of 3 integers");
    if (st != CF_OK) return st;
    char path[PATH_CAP];
    const cJSON *item = field(obj, parent, key, path);
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 3) return cf_json_fail(p, path, "must be an array of 3 integers");
    for (int i = 0; i < 3; ++i) {
        char elem[PATH_CAP];
        cf_json_path(elem, "%s[%d]", path, i);
        if ((st = cf_json_int(p, cJSON_GetArrayItem(item, i), elem, &out[i])) != CF_OK) return st;
    }
    return CF_OK;
}

cfStatus cf_json_get_unit_quat(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, cfQuat *out)
{
    char path[PATH_CAP];
    const cJSON *item = field(obj, parent, key, path);
    if (!item) return CF_OK;
    double v[4];
    cfStatus st = cf_json_numbers(p, item, path, 4, v);
    if (st != CF_OK) return st;
    cfQuat q = cfu_quat(v[0], v[1], v[2], v[3]);
    double n = cfu_quat_norm(q);
    if (!(n > 1e-12) || !isfinite(n))
        return cf_json_fail(p, path, "quaternion (w, x, y, z) must have non-zero length (got length %g)", n);
    *out = cfu_quat(q.w / n, q.x / n, q.y / n, q.z / n);
    return CF_OK;
}

cfStatus cf_json_nonnegative(const cfSceneParser *p, const char *parent, const char *key, double x)
{
    char path[PATH_CAP];
    cf_json_field_path(path, parent, key);
    if (x < 0.0) return cf_json_fail(p, path, "must be >= 0 (got %g)", x);
    return CF_OK;
}

/* ---- enums by name ------------------------------------------------------------------------- */

cfStatus cf_json_get_enum(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key,
                          const cfJsonEnum *e, int *out)
{
    char path[PATH_CAP];
    const cJSON *item = field(obj, parent, key, path);
    if (!item) return CF_OK;
    if (!cJSON_IsString(item)) return cf_json_fail(p, path, "must be a string (got %s)", cf_json_type(item));
    char list[256] = "";
    for (int i = 0; i < e->count; ++i) {
        if (strcmp(item->valuestring, e->name_of(i)) == 0) {
            *out = i;
            return CF_OK;
        }
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", e->name_of(i));
    }
    return cf_json_fail(p, path, "unknown %s '%s' (expected one of: %s)", e->what, item->valuestring, list);
}

cfStatus cf_json_get_array(const cfSceneParser *p, const cJSON *obj, const char *key, const cJSON **out)
{
    *out = cf_json_member(obj, key);
    if (*out && !cJSON_IsArray(*out)) return cf_json_fail(p, key, "must be an array (got %s)", cf_json_type(*out));
    return CF_OK;
}

/* ---- the scene's budget and files ------------------------------------------------------------ */

cfStatus cf_scene_spend(const cfSceneParser *p, const char *at, const char *key, double need)
{
    if (need <= *p->elements_left) {
        *p->elements_left -= need;
        return CF_OK;
    }
    char path[PATH_CAP];
    cf_json_field_path(path, at, key);
    return cf_json_fail(p, path, "%.3g nodes and elements exceed what the scene has left of its budget (%.3g; top-level "
                "\"max_elements\", default %g): a typo? give \"max_elements\" to build more", need, *p->elements_left,
                SCENE_DEFAULT_MAX_ELEMENTS);
}

void cf_scene_relative(const cfSceneParser *p, const char *name, char *out, size_t cap)
{
    const char *slash = strrchr(p->label, '/');
    if (name[0] == '/' || !slash) snprintf(out, cap, "%s", name);
    else snprintf(out, cap, "%.*s/%s", (int)(slash - p->label), p->label, name);
}
