/* SPDX-License-Identifier: MIT */
/* The simulation layer's own declarations, shared by the files of sim/ and by nothing else. */
#ifndef CF_SIM_INTERNAL_H
#define CF_SIM_INTERNAL_H

#include "cf/cf_detect.h"
#include "cf/cf_world.h"

/* free the step's scratch space (work.c; safe on NULL) */
void cf_step_work_free(struct cfStepWork *k);

/* what a step changes of a rigid body: its pose, velocities and world inertia (every other member
   is a setting no stage writes; the islands' fixed flags and the spring drives' forces are put back
   by their own code) */
typedef struct cfBodyState {
    cfVec3 x;
    cfQuat q;
    cfVec3 v, w;
    cfMat3 inv_inertia_world;
} cfBodyState;

/* The state of the world's bodies (rigid bodies' cfBodyState; soft x, v, x_prev, v_prev,
   has_prev), saved before a step so that a failing step restores it (state.c) */
typedef struct cfSavedState {
    cfBodyState *bodies;
    cfVec3 **arr[4]; /* per soft body: x, v, x_prev, v_prev */
    bool *has_prev;
} cfSavedState;

/* save the world's state in @p sv (CF_NO_MEMORY: partly saved; free it all the same) */
cfStatus cf_state_save(cfWorld *w, cfSavedState *sv);
/* bring back the state of a save that succeeded */
void cf_state_restore(cfWorld *w, const cfSavedState *sv);
/* free and zero @p sv (@p n_soft: the world's soft bodies, as at the save) */
void cf_state_free(cfSavedState *sv, int n_soft);
/* The state after a step, before it is committed: finite, inside the world's bounds, and no body
   that went through a static plane during the step (wholly behind it now, not at the start:
   @p sv holds the start; NULL: not checked). CF_OK, or CF_DIVERGED naming the body and the step
   (w->error). */
cfStatus cf_state_check(cfWorld *w, const cfSavedState *sv);

/* Persistent manifolds (detect_world.c): cf_detect_world() that reuses a pair's contacts while the
   pair's relative pose has changed by less than @p tol (m: translation plus rotation angle times
   the two bounding radii) since they were computed; the contacts are moved with the bodies (each
   surface point with its own body, the normal with A, the gap measured anew), feature ids kept.
   The broad phase runs on boxes grown by a fat margin and its pairs are kept while every body
   stays inside its grown box. tol = 0: nothing is reused, the contacts of cf_detect_world(). The
   narrow phase runs on @p threads threads (1..CF_MAX_THREADS; one below
   CF_DETECT_THREAD_MIN_PAIRS candidate pairs), with the contacts and statistics of one thread, bit
   for bit. *cache (also the threads' scratch space) is allocated on first use; free it with
   cf_manifold_cache_free(). A cache filled with other options or another number of bodies is
   forgotten. Same contacts as cf_detect_world() where nothing is reused; same statuses. */
struct cfManifoldCache;
cfStatus cf_detect_world_cached(const cfWorld *w, const cfDetectOptions *opt, double tol, int threads,
                                struct cfManifoldCache **cache, cfContactList *out, cfDetectStats *stats);
/* the options are in range (margin >= 0, 1..CF_BOX_MAX_CONTACTS contacts, a known broad phase) */
bool cf_detect_options_ok(const cfDetectOptions *o);

/* the candidate pairs of the world, in lexicographic order of body indices (lower index first):
   bounded bodies through the broad phase (their boxes grown by margin/2 + grow), planes with
   everything (detect_rigid.c) */
cfStatus cf_candidate_pairs(const cfWorld *w, const cfDetectOptions *o, double grow, cfPairList *pairs, cfDetectStats *st);

/* fewer candidate pairs than this: the narrow phase on one thread (docs/performance.md) */
#define CF_DETECT_THREAD_MIN_PAIRS 300
void cf_manifold_cache_free(struct cfManifoldCache *c);

/* contacts of the soft bodies against rigid shapes, each other and the static ground, appended
   to @p out (detect_soft.c); @p o as for cf_detect_world() */
cfStatus cf_detect_soft(const cfWorld *w, const cfDetectOptions *o, cfContactList *out, cfDetectStats *stats);

/* Continuous collision detection on the linear motion from the world's state to the soft
   positions @p x1 (one array per soft body) and rigid poses @p b1 (detect_ccd.c; chapter 3's cubic
   CCD): soft surface vertices against rigid shapes (end position inside) and soft triangles,
   rigid box corners against soft triangles, soft edges against soft edges (a sheet against
   itself too). Each crossing pair not yet in @p known is appended to @p out once, as a contact
   at the start positions with the normal at the time of impact; pairs already constrained that
   still end below -max(margin/2, 1e-9) are counted in *colliding. */
cfStatus cf_detect_ccd(const cfWorld *w, const cfContactList *known, cfVec3 *const *x1, const cfRigidBody *b1,
                       double margin, cfContactList *out, int *colliding);

/* Warm starting (persist.c): impulses of the previous step's contacts carried to this step's by
   feature id (cf_contacts_carry_impulses()), then, with @p proximity, for contacts still without
   one, the impulse of the closest previous contact of the same two sides within CF_WARM_RADIUS
   whose normal agrees. The lists' order is checked once. -1 when out of memory. When both lists
   are in pair order, on @p threads threads from 1000 contacts (whole pairs each: the same results). */
#define CF_WARM_RADIUS 0.05
int cf_contacts_carry(cfContactList *now, const cfContactList *prev, bool proximity, int threads);

/* a contact side as one integer, for ordering and matching: rigid i -> i, static -> -1,
   soft body s -> -2 - s */
int cf_contact_side_id(const cfContact *c, int side);

/* the velocity pipeline's stages, the chapter-11 ops and CMR: stages.h */

/* the ipc pipeline (ipc.c): the bodies it takes (cfPipeline::check) and its step (cfPipeline::step) */
cfStatus cf_world_ipc_check(const cfWorld *w, cfError *err);
cfStatus cf_world_ipc_step(cfWorld *w);
/* the world as the ipc pipeline's one system (ipc.c): its soft bodies, moving boxes and static
   geometry gathered into @p s (zeroed first; cf_ipc_free() it after a success, already freed on a
   failure); CF_NO_MEMORY or the gather's status. For the certificate (ipc_certify.c) and the
   drawing of the pairs within dhat. */
typedef struct cfIpcSystem cfIpcSystem;
cfStatus cf_world_ipc_system(const cfWorld *w, cfIpcSystem *s);
/* the most free nodes (soft nodes, 9 per moving box) chapter 9's dense step takes in the world: a
   larger system needs the sparse path (cf_world_ipc_check()) */
#define CF_IPC_DENSE_MAX_FREE 1500
/* the finest icosphere of a static sphere under ipc (ipc_shapes.c): 5, 10 242 vertices */
#define CF_IPC_SPHERE_LEVEL_MAX 5
/* a fixed sphere of @p centre and @p radius (> 0) added to @p s as its inscribed icosphere of the
   lowest level (1 to CF_IPC_SPHERE_LEVEL_MAX) whose faces lie within @p dhat / 2 of the sphere (or
   the finest): fixed nodes (mass 1, unused) and triangles with their edges. Returns its first
   node, -1 on CF_NO_MEMORY; @p level (may be NULL) gets the level (ipc_shapes.c) */
int cf_world_ipc_add_sphere(cfIpcSystem *s, cfVec3 centre, double radius, double dhat, int *level);
/* a soft body's tetrahedra in the ipc pipeline's system (ipc_tets.c), its nodes from @p o on (added
   at rest): each tetrahedron an elastic element (cf_ipc_add_tet() with the body's young and poisson),
   the faces that belong to one tetrahedron only the body's surface triangles (outward, with their
   edges). CF_BAD_INPUT from cf_ipc_add_tet() (a rest tetrahedron it refuses), CF_NO_MEMORY. */
cfStatus cf_world_ipc_add_tets(cfIpcSystem *s, const cfSoftBody *b, int o);
/* chapter 9's systems have one friction coefficient: the first body's (mu, and the body it is
   of), which every other body's must equal; @p pipeline names the pipeline in messages */
typedef struct cfOneMu {
    const char *pipeline;
    double mu;
    const char *of; /* NULL until the first body */
    bool tets;      /* the pipeline takes soft bodies with tetrahedra (ipc: sim/ipc_tets.c) */
} cfOneMu;
/* body @p i of @p kind ("bodies", "soft_bodies") named @p name has @p mu: the first sets one->mu,
   every later one must agree (CF_BAD_INPUT naming both otherwise) */
cfStatus cf_world_same_mu(cfOneMu *one, const char *kind, int i, const char *name, double mu, cfError *err);
/* the soft bodies and material pairs of chapter 9's pipelines: mass-spring bodies (with
   tetrahedra too when one->tets) with lumped masses, no damping and no thickness (@p thickness_why: what the pipeline does instead), one mu
   with the rigid bodies' (cf_world_same_mu()), no material pairs */
cfStatus cf_world_spring_soft_check(const cfWorld *w, cfOneMu *one, const char *thickness_why, cfError *err);

/* the implicit-soft pipeline (implicit.c): the bodies it takes and its step */
cfStatus cf_world_implicit_check(const cfWorld *w, cfError *err);
cfStatus cf_world_implicit_step(cfWorld *w);

#endif
