/* SPDX-License-Identifier: MIT */
/**
 * @file cf_detect.h
 * @brief Contact detection for a whole world (chapter 3): broad phase, then the narrow-phase
 *        routines of cf_ch03.h for every candidate pair, with the A-to-B normal convention
 *        and persistent feature ids.
 *
 * Supported shape pairs: every pair of sphere, box, plane and capsule except plane-plane
 * (two fixed bodies), each by the routine of its row of one table indexed by the two shapes
 * (sim/detect_rigid.c). Capsules are reduced to the sphere routines by chapter 3's provided
 * cf_collide_capsule(): end spheres against planes and boxes (plus the deepest interior point of
 * the segment against a box), the closest segment point against a sphere, closest segment points
 * (or the four end points when nearly parallel) against another capsule; feature type
 * CF_FEAT_CAPSULE. When the core segment
 * itself enters a box, the interior contact sits where the nearest box face changes and its
 * capsule-side point is approximate (the depth and normal are the box's).
 * The world's CF_STAGE_DETECT (sim/stage_detect.c) runs the same pass with persistent manifolds
 * and threads (sim/detect_world.c), then the soft bodies' contacts (sim/detect_soft.c).
 */
#ifndef CF_DETECT_H
#define CF_DETECT_H

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_contact.h"
#include "cf/cf_geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cfWorld;

/** Which broad phase cf_detect_world() uses. */
typedef enum cfBroadphaseKind {
    CF_BROADPHASE_SAP = 0,   /**< sweep and prune, cf_broadphase_sap() (ch03.7) */
    CF_BROADPHASE_ALL_PAIRS, /**< every pair, cf_broadphase_all_pairs() (reference) */
    CF_BROADPHASE_COUNT      /**< number of broad phases */
} cfBroadphaseKind;

/** Name of a broad phase ("sap", "all-pairs"). */
const char *cf_broadphase_name(cfBroadphaseKind k);

/** Options of cf_detect_world(). Start from cf_detect_options_default(). */
typedef struct cfDetectOptions {
    double margin;               /**< report contacts with phi <= margin (m, >= 0); default 0 */
    int max_contacts;            /**< per pair after manifold reduction, 1..8; default 4 */
    cfBroadphaseKind broadphase; /**< default sweep and prune */
} cfDetectOptions;

/** margin 0, 4 contacts per pair, sweep and prune. */
cfDetectOptions cf_detect_options_default(void);

/** What one detection pass did. */
typedef struct cfDetectStats {
    long aabb_tests;     /**< AABB overlap tests of the broad phase */
    int candidate_pairs; /**< pairs the broad phase returned, plus plane-body pairs */
    int narrow_calls;    /**< narrow-phase routines called */
    int contacts;        /**< contacts produced */
    int unsupported;     /**< candidate pairs skipped because no routine handles their shapes */
    int reused;          /**< pairs whose contacts came from the manifold cache (the world's manifold_tolerance) */
    double seconds;      /**< wall time of the pass */
} cfDetectStats;

/**
 * Contacts between bodies @p a (index @p ia) and @p b (index @p ib): dispatches on the shape
 * types to the chapter-3 routines, swapping roles where a routine expects the other order and
 * then flipping the normal, so that n always points from @p a to @p b (p and phi are
 * unchanged by the swap). Fills body_a = ia, body_b = ib, mu = sqrt(mu_a mu_b), extra = NULL
 * (two rigid sides, the isotropic law) and the routine's feature id. @p out needs room for CF_BOX_MAX_CONTACTS (8). Returns the number of
 * contacts, or -1 when the pair of shapes is not supported. @p opt NULL: defaults.
 */
int cf_detect_pair(const cfRigidBody *a, int ia, const cfRigidBody *b, int ib, const cfDetectOptions *opt,
                   cfContact *out);

/**
 * Warm starting: copy to each contact of @p now the impulse (cfContact::lambda) of the contact
 * of @p prev with the same (body_a, body_b, feature), if any; others keep theirs. Returns the
 * number matched, or -1 when out of memory (nothing copied). O(n + m) when both lists are in
 * (body_a, body_b) order, as cf_detect_world() leaves them (a merge walk); O((n + m) log m) otherwise.
 */
int cf_contacts_carry_impulses(cfContactList *now, const cfContactList *prev);

/**
 * The detection of a stepper that moves the bodies of a world itself (chapter 7's Moreau and
 * post-projection loops: the signature of cfMoreauDetect): @p world is a cfWorld whose own
 * bodies the stepper moves (@p bodies and @p nb are not read), detected by cf_detect_world()
 * with the world's contact margin; @p out is replaced by the new list, each contact warm started
 * with the impulse of the same contact in the list it held before (cf_contacts_carry_impulses()),
 * and that list is freed. CF_NO_MEMORY when the impulses cannot be carried; else the status of
 * cf_detect_world().
 */
cfStatus cf_detect_world_again(void *world, cfRigidBody *bodies, int nb, cfContactList *out);

/**
 * Detect all contacts of the rigid bodies of @p w: AABBs (grown by margin/2) of every
 * non-plane body go through the broad phase; planes are paired with every other body; pairs
 * of two fixed bodies are skipped. Every candidate pair is passed to cf_detect_pair() with
 * the lower index as A. @p out is cleared first; contacts come in pair order (lexicographic
 * in body indices), each pair's contacts in the routine's order. @p stats may be NULL.
 * CF_BAD_INPUT for invalid options or non-finite body states; CF_NO_MEMORY.
 */
cfStatus cf_detect_world(const struct cfWorld *w, const cfDetectOptions *opt, cfContactList *out, cfDetectStats *stats);

#ifdef __cplusplus
}
#endif
#endif /* CF_DETECT_H */
