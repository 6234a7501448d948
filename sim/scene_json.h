/* SPDX-License-Identifier: MIT */
/* Reading a scene's JSON with messages that name the source, the field path and the reason
   (scene_json.c); shared by the scene loader's files (scene.c, scene_bodies.c) and nothing else.
   Every getter of an optional member leaves @p out as it was when the member is absent; every one
   fails with CF_BAD_INPUT and "label: path: reason" in the parser's cfError otherwise. */
#ifndef CF_SIM_SCENE_JSON_H
#define CF_SIM_SCENE_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "cf/cf_scene.h"

/* longest field path built, e.g. "soft_bodies[12].damping[1]" */
#define PATH_CAP 128

/* default of the top-level "max_elements": soft-body nodes plus tetrahedra plus springs, about
   0.5 GB of state, so that a typo (200 cells per axis for 20) is refused instead of eating memory */
#define SCENE_DEFAULT_MAX_ELEMENTS 1e6

/* What the parser needs to report an error: the source label and the caller's cfError. */
typedef struct cfSceneParser {
    const char *label;
    cfError *err;
    double *elements_left; /* soft-body nodes and elements the scene may still build (max_elements) */
    const char *solver;    /* the caller's world.solver instead of the scene's (NULL: the scene's) */
} cfSceneParser;

/* ---- messages and paths ---------------------------------------------------------------------- */

/* "label: path: reason"; a NULL or empty path gives "label: reason"; returns CF_BAD_INPUT */
cfStatus cf_json_fail(const cfSceneParser *p, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Pass on the message of a library constructor under the field path @p path. The library
   writes "<field>: <reason>" (e.g. "radius: must be > 0"), which becomes "path.radius: ...";
   a message that does not start with a field name becomes "path: message". */
cfStatus cf_json_fail_from(const cfSceneParser *p, const char *path, cfStatus st, const cfError *inner);
/* printf into a path buffer of PATH_CAP bytes (a longer path is cut, never overflows) */
void cf_json_path(char *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "parent.key" (or "key" at the top level) */
void cf_json_field_path(char *out, const char *parent, const char *key);
/* "a number", "an object", ... for messages */
const char *cf_json_type(const cJSON *item);

/* ---- objects ------------------------------------------------------------------------------- */

/* Fail unless @p item is an object whose keys are all in @p allowed (NULL-terminated) and
   appear once each; an unknown key is named with the closest allowed one ("did you mean"). */
cfStatus cf_json_check_object(const cfSceneParser *p, const cJSON *item, const char *path, const char *const *allowed);
/* The member @p key of @p obj, or NULL. Keys are compared exactly (case matters). */
const cJSON *cf_json_member(const cJSON *obj, const char *key);
/* An optional array member; @p out is NULL when absent. */
cfStatus cf_json_get_array(const cfSceneParser *p, const cJSON *obj, const char *key, const cJSON **out);

/* ---- values -------------------------------------------------------------------------------- */

/* a finite number, an integer, an array of exactly @p n finite numbers (@p path names the item) */
cfStatus cf_json_number(const cfSceneParser *p, const cJSON *item, const char *path, double *out);
cfStatus cf_json_int(const cfSceneParser *p, const cJSON *item, const char *path, int *out);
cfStatus cf_json_numbers(const cfSceneParser *p, const cJSON *item, const char *path, int n, double *out);
/* members of @p obj at path @p parent: get_ optional, need_ required */
cfStatus cf_json_get_number(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, double *out);
cfStatus cf_json_need_number(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, double *out);
cfStatus cf_json_get_int(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, int *out);
cfStatus cf_json_need_int(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, int *out);
cfStatus cf_json_get_bool(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, bool *out);
/* copied into @p buf of @p cap bytes; too long is an error, not a silent truncation */
cfStatus cf_json_get_string(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, char *buf,
                            size_t cap);
/* [x, y, z] */
cfStatus cf_json_get_vec3(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, cfVec3 *out);
cfStatus cf_json_need_vec3(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, cfVec3 *out);
/* an array of 3 integers, required */
cfStatus cf_json_need_int3(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, int out[3]);
/* [w, x, y, z], normalized; a quaternion of zero length is an error */
cfStatus cf_json_get_unit_quat(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key, cfQuat *out);
/* fail unless @p x >= 0 (the path names the quantity) */
cfStatus cf_json_nonnegative(const cfSceneParser *p, const char *parent, const char *key, double x);

/* An enum's values by name: what it is ("integrator") for messages, its names name_of(0..count-1)
   (the library's, so that scene files and the library never disagree) */
typedef struct cfJsonEnum {
    const char *what;
    const char *(*name_of)(int);
    int count;
} cfJsonEnum;

/* the string member @p key as a value of @p e */
cfStatus cf_json_get_enum(const cfSceneParser *p, const cJSON *obj, const char *parent, const char *key,
                          const cfJsonEnum *e, int *out);

/* ---- the scene's budget and files ------------------------------------------------------------ */

/* take @p need nodes and elements from the scene's budget, or refuse naming the field */
cfStatus cf_scene_spend(const cfSceneParser *p, const char *at, const char *key, double need);
/* a file named in a scene: relative to the scene file's folder */
void cf_scene_relative(const cfSceneParser *p, const char *name, char *out, size_t cap);

/* the soft body soft_bodies[@p index] of @p obj, added to @p w (scene_bodies.c) */
cfStatus cf_scene_soft(const cfSceneParser *p, const cJSON *obj, int index, cfWorld *w);
/* the rigid body bodies[@p index] of @p obj into @p b (scene_bodies.c) */
cfStatus cf_scene_rigid(const cfSceneParser *p, const cJSON *obj, int index, cfRigidBody *b);
/* the keys of bodies[@p index] that need the body in @p w (rigid body @p index): its texture and its
   spring drive (chapter 10.6's texture pull), added to @p w (scene_bodies.c) */
cfStatus cf_scene_rigid_extras(const cfSceneParser *p, const cJSON *obj, int index, cfWorld *w);

#endif
