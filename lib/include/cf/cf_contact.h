/* SPDX-License-Identifier: MIT */
/**
 * @file cf_contact.h
 * @brief The contact point shared by detection (chapter 3), Jacobians and assembly (chapter 2)
 *        and every solver (chapters 4-7).
 *
 * Conventions (docs/conventions.md): the normal n points from body A to body B; the gap phi is
 * positive when separated, zero when touching, negative when penetrating; the contact frame
 * C = [n t b] is orthonormal and right-handed (t x b = n); impulses are in N s, ordered
 * (normal, t, b).
 */
#ifndef CF_CONTACT_H
#define CF_CONTACT_H

#include <stdint.h>

#include "cf/cf_base.h"
#include "cf/cf_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most nodes that make up the soft side of a contact (1 vertex, 2 an edge, 3 a triangle, 4 a tetrahedron). */
#define CF_CONTACT_NODES 4

/** What one side of a contact is. */
typedef enum cfSideKind {
    CF_SIDE_STATIC = 0, /**< the static environment: never moves, infinite mass */
    CF_SIDE_RIGID,      /**< a rigid body (cfContact::body_a / body_b) */
    CF_SIDE_SOFT,       /**< a material point of a soft body (cfContactExtra::soft_a / soft_b) */
    CF_SIDE_KIND_COUNT  /**< number of kinds */
} cfSideKind;

/** Name of a side kind ("static", "rigid", "soft"); "unknown" for other values. */
const char *cf_side_kind_name(cfSideKind k);

/**
 * The soft side of a contact: the material point p = sum_k w[k] x[node[k]] of one soft body of
 * the world. A side is soft exactly when n > 0 (a zeroed struct is "not soft").
 */
typedef struct cfSoftSide {
    int n;                         /**< nodes used, 1..CF_CONTACT_NODES; 0: this side is not a soft body */
    int body;                      /**< index of the soft body in the world */
    int node[CF_CONTACT_NODES];    /**< node indices in that soft body */
    double w[CF_CONTACT_NODES];    /**< barycentric weights (they sum to 1) */
} cfSoftSide;

/** The friction law of a contact. */
typedef enum cfFrictionLaw {
    CF_LAW_ISOTROPIC = 0, /**< Coulomb with one coefficient, cfContact::mu (the default) */
    CF_LAW_ORTHOTROPIC,   /**< principal coefficients: coef[0] along dir, coef[1] along n x dir (chapter 10) */
    CF_LAW_TENSOR,        /**< a 2x2 friction tensor coef (row-major) in the frame (dir, n x dir) (chapter 10) */
    CF_LAW_DIRECTIONAL,   /**< the directional box of texture friction: coef = (mu_+t, mu_+b, mu_-t, mu_-b) by the sliding
                               direction of B relative to A in the contact's own frame (t, b), t = dir (chapter 10.6,
                               cf_box_project_directional()); asymmetric, so no ellipse: only the rows of
                               cfSolver::directional take it */
    CF_LAW_COUNT          /**< number of laws */
} cfFrictionLaw;

/** Name of a friction law ("isotropic", "orthotropic", "tensor", "directional"); "unknown" for other values. */
const char *cf_friction_law_name(cfFrictionLaw law);

/**
 * Friction of one contact beyond the isotropic coefficient. A zeroed struct is isotropic, and the
 * isotropic case is exactly cfContact::mu: solvers that support only it read cf_contact_isotropic()
 * and refuse the others.
 */
typedef struct cfFriction {
    cfFrictionLaw law;  /**< default CF_LAW_ISOTROPIC */
    cfVec3 dir;         /**< first principal direction (world; its projection on the tangent plane is used) */
    double coef[4];     /**< ORTHOTROPIC: (mu_1, mu_2); TENSOR: the 2x2 tensor, row-major; DIRECTIONAL: (mu_+t, mu_+b, mu_-t, mu_-b) */
} cfFriction;

/**
 * The cold part of a contact: what only soft contacts and anisotropic laws (chapter 10) need.
 * A contact without one (cfContact::extra NULL) has no soft side and the isotropic law with
 * cfContact::mu; a zeroed cfContactExtra means the same.
 */
typedef struct cfContactExtra {
    cfSoftSide soft_a;  /**< soft side A (n = 0: side A is not soft) */
    cfSoftSide soft_b;  /**< soft side B (n = 0: side B is not soft) */
    cfFriction friction; /**< the friction law (zeroed: isotropic with mu) */
} cfContactExtra;

/**
 * One contact point between two sides. Each side is the static environment, a rigid body or a
 * soft body's material point: side A is rigid when body_a >= 0, soft when
 * cf_contact_soft(c, 0) is not NULL (never both), static otherwise; likewise side B. Chapters
 * 2-5 handle rigid and static sides; the world's assembled solvers handle soft sides too
 * (through the soft dual form, ch02.8).
 *
 * The fields every pass over the contacts reads (detection, warm start, assembly) come first and
 * fill 152 bytes; the soft sides and the friction law, which few contacts have, live behind
 * `extra` so that a rigid contact is 160 bytes, not 328. `extra` points into the store of the
 * cfContactList that holds the contact (cf_contacts_extra(), cf_contacts_push()) or, for a
 * contact built by hand, at the caller's own cfContactExtra; either way it must outlive the
 * contact's use.
 */
typedef struct cfContact {
    int body_a;         /**< rigid body of side A (the normal points away from it), or -1 when side A is not a rigid body */
    int body_b;         /**< rigid body of side B, or -1 */
    cfVec3 p;           /**< contact point, world (m); on a rigid side, the point whose velocity counts */
    cfVec3 n;           /**< unit normal from A to B, world */
    cfVec3 t;           /**< first unit tangent: [n t b] right-handed (filled by ch02.2) */
    cfVec3 b;           /**< second unit tangent, b = n x t (filled by ch02.2) */
    double phi;         /**< gap (m): > 0 separated, < 0 penetrating */
    double mu;          /**< friction coefficient of the pair (>= 0); the isotropic law's, and a bound for the others */
    uint32_t feature;   /**< feature id (pair of features), stable while the contact persists */
    double lambda[3];   /**< impulse (normal, t, b) in N s: solver output, warm start input */
    cfContactExtra *extra; /**< soft sides and friction law; NULL: no soft side, isotropic with mu */
} cfContact;

/**
 * The soft side @p side (0 = A, 1 = B) of @p c, or NULL when that side is not a soft body (no
 * extra, or its n is 0).
 */
static inline const cfSoftSide *cf_contact_soft(const cfContact *c, int side)
{
    if (!c->extra) return NULL;
    const cfSoftSide *s = side == 0 ? &c->extra->soft_a : &c->extra->soft_b;
    return s->n > 0 ? s : NULL;
}

/** True when side A or side B of @p c is a soft body. */
static inline bool cf_contact_has_soft(const cfContact *c)
{
    return cf_contact_soft(c, 0) || cf_contact_soft(c, 1);
}

/** Kind of side @p side (0 = A, 1 = B) of @p c. */
static inline cfSideKind cf_contact_side_kind(const cfContact *c, int side)
{
    int body = side == 0 ? c->body_a : c->body_b;
    return body >= 0 ? CF_SIDE_RIGID : cf_contact_soft(c, side) ? CF_SIDE_SOFT : CF_SIDE_STATIC;
}

/**
 * The friction law of @p c: its extra's, or a static zeroed (isotropic) law when it has none.
 * Never NULL; valid while c->extra is.
 */
const cfFriction *cf_contact_friction(const cfContact *c);

/** True when the contact's friction law is isotropic (cfContact::mu says it all). */
bool cf_contact_isotropic(const cfContact *c);

/**
 * A growable array of contacts and the store of their extras. A zeroed list is empty and valid.
 * The extras live in blocks that never move: a contact's `extra` stays valid while the list
 * lives, through cf_contacts_reserve() and cf_contacts_push() (which may move `items`), until
 * cf_contacts_clear() or cf_contacts_free(). Moving the struct itself (swapping two lists) keeps
 * them valid too.
 */
typedef struct cfContactList {
    int count;          /**< contacts in use */
    int cap;            /**< allocated */
    cfContact *items;   /**< the contacts */
    int n_extras;       /**< extras handed out from the store since the last clear */
    int n_blocks;       /**< blocks of CF_CONTACT_EXTRA_BLOCK extras allocated */
    cfContactExtra **blocks; /**< the store's blocks */
} cfContactList;

/** Extras per block of a cfContactList's store. */
#define CF_CONTACT_EXTRA_BLOCK 64

/** Make room for @p extra (>= 0) more contacts beyond count, keeping the contents (CF_NO_MEMORY on failure). */
cfStatus cf_contacts_reserve(cfContactList *list, int extra);
/**
 * Append a copy of @p c (CF_NO_MEMORY on failure, the list unchanged). A deep copy: when c has
 * an extra, the new contact gets its own copy in the list's store, so it does not depend on
 * where c's extra lives (another list that is cleared next, a local). @p c must not be an
 * element of @p list (the list may move its items).
 */
cfStatus cf_contacts_push(cfContactList *list, const cfContact *c);
/**
 * The extra of @p c, created zeroed (no soft side, isotropic) in @p list's store when c has
 * none; NULL on no memory. @p c is usually an element of @p list; its extra then lives as long
 * as the list's store (see cfContactList).
 */
cfContactExtra *cf_contacts_extra(cfContactList *list, cfContact *c);
/** Forget all contacts and their extras (pointers to them become invalid), keep the memory. */
void cf_contacts_clear(cfContactList *list);
/** Free and zero. */
void cf_contacts_free(cfContactList *list);

/* Chapter 10's structure direction fields, which a world's friction pairs carry (cfFrictionPair), here
 * so that the world's header need not include a chapter's. */

/** Where a surface's structure direction comes from (notes 6.1.1: "sampled from a texture or procedurally"). */
typedef enum cfFieldKind {
    CF_FIELD_WORLD = 0, /**< one direction in world coordinates (cfDirectionField::dir) */
    CF_FIELD_BODY,      /**< one direction fixed in the body: dir in body coordinates, turned with the body */
    CF_FIELD_CIRCLES,   /**< tangent to the circles about an axis: axis x (p - center), steers sliding round it */
    CF_FIELD_KIND_COUNT /**< number of kinds */
} cfFieldKind;

/** A structure direction field on a surface (a zeroed struct: the world direction 0, which no law accepts). */
typedef struct cfDirectionField {
    cfFieldKind kind; /**< how to evaluate it */
    cfVec3 dir;       /**< WORLD, BODY: the direction (any length > 0) */
    cfVec3 center;    /**< CIRCLES: a point on the axis (world) */
    cfVec3 axis;      /**< CIRCLES: the axis direction (world, any length > 0) */
} cfDirectionField;

#ifdef __cplusplus
}
#endif

#endif /* CF_CONTACT_H */
