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

/** One contact point between two bodies. */
typedef struct cfContact {
    int body_a;         /**< index of body A in the world (the normal points away from it) */
    int body_b;         /**< index of body B */
    cfVec3 p;           /**< contact point, world (m) */
    cfVec3 n;           /**< unit normal from A to B, world */
    cfVec3 t;           /**< first unit tangent: [n t b] right-handed (filled by ch02.2) */
    cfVec3 b;           /**< second unit tangent, b = n x t (filled by ch02.2) */
    double phi;         /**< gap (m): > 0 separated, < 0 penetrating */
    double mu;          /**< friction coefficient of the pair (>= 0) */
    uint32_t feature;   /**< feature id (pair of features), stable while the contact persists */
    double lambda[3];   /**< impulse (normal, t, b) in N s: solver output, warm start input */
} cfContact;

/** A growable array of contacts. */
typedef struct cfContactList {
    int count;          /**< contacts in use */
    int cap;            /**< allocated */
    cfContact *items;   /**< the contacts */
} cfContactList;

/** Append @p c (CF_NO_MEMORY on failure). */
cfStatus cf_contacts_push(cfContactList *list, const cfContact *c);
/** Forget all contacts, keep the memory. */
void cf_contacts_clear(cfContactList *list);
/** Free and zero. */
void cf_contacts_free(cfContactList *list);

#ifdef __cplusplus
}
#endif
#endif /* CF_CONTACT_H */
