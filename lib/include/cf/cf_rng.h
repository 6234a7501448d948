/* SPDX-License-Identifier: MIT */
/**
 * @file cf_rng.h
 * @brief The library's seeded random generator (PCG-XSH-RR 64/32). Never use rand().
 *
 * Same seed, same sequence, on every platform: results and tests are reproducible.
 */
#ifndef CF_RNG_H
#define CF_RNG_H

#include <stdint.h>

#include "cf/cf_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Generator state. Initialize with cf_rng_seed(). */
typedef struct cfRng {
    uint64_t state; /**< internal state */
    uint64_t inc;   /**< stream selector (always odd) */
} cfRng;

/** Seed @p rng; the same seed always gives the same sequence. */
void cf_rng_seed(cfRng *rng, uint64_t seed);
/** Next uniformly distributed 32-bit integer. */
uint32_t cf_rng_u32(cfRng *rng);
/** Uniform double in [0, 1) with 53 random bits. */
double cf_rng_uniform(cfRng *rng);
/** Uniform double in [lo, hi). */
double cf_rng_range(cfRng *rng, double lo, double hi);
/** Uniform integer in [0, n) without modulo bias; 0 when n == 0. */
uint32_t cf_rng_below(cfRng *rng, uint32_t n);
/** Standard normal sample (Box-Muller). */
double cf_rng_normal(cfRng *rng);
/** Vector with components uniform in [lo, hi). */
cfVec3 cf_rng_vec3(cfRng *rng, double lo, double hi);
/** Uniformly distributed unit vector on the sphere. */
cfVec3 cf_rng_unit_vec3(cfRng *rng);
/** Uniformly distributed unit quaternion (a random rotation, Shoemake's method). */
cfQuat cf_rng_quat(cfRng *rng);

#ifdef __cplusplus
}
#endif
#endif /* CF_RNG_H */
