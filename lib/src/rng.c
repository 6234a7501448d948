/* SPDX-License-Identifier: MIT */
/* PCG-XSH-RR 64/32 (O'Neill 2014): a 64-bit LCG whose output is a permuted 32-bit word. */
#include "cf/cf_rng.h"

#include <math.h>

void cf_rng_seed(cfRng *rng, uint64_t seed)
{
    rng->state = 0u;
    rng->inc = (seed << 1u) | 1u;
    (void)cf_rng_u32(rng);
    rng->state += 0x853c49e6748fea9bULL ^ seed;
    (void)cf_rng_u32(rng);
}

uint32_t cf_rng_u32(cfRng *rng)
{
    uint64_t old = rng->state;
    rng->state = old * 6364136223846793005ULL + rng->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

double cf_rng_uniform(cfRng *rng)
{
    uint64_t hi = cf_rng_u32(rng) >> 5; /* 27 bits */
    uint64_t lo = cf_rng_u32(rng) >> 6; /* 26 bits */
    return (double)((hi << 26) | lo) * (1.0 / 9007199254740992.0);
}

double cf_rng_range(cfRng *rng, double lo, double hi) { return lo + (hi - lo) * cf_rng_uniform(rng); }

uint32_t cf_rng_below(cfRng *rng, uint32_t n)
{
    if (n == 0) return 0;
    uint32_t threshold = (uint32_t)(-n) % n; /* reject the short last bucket */
    for (;;) {
        uint32_t r = cf_rng_u32(rng);
        if (r >= threshold) return r % n;
    }
}

double cf_rng_normal(cfRng *rng)
{
    double u1 = cf_rng_uniform(rng);
    double u2 = cf_rng_uniform(rng);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * CF_PI * u2);
}

cfVec3 cf_rng_vec3(cfRng *rng, double lo, double hi)
{
    double x = cf_rng_range(rng, lo, hi);
    double y = cf_rng_range(rng, lo, hi);
    double z = cf_rng_range(rng, lo, hi);
    return cfu_vec3(x, y, z);
}

cfVec3 cf_rng_unit_vec3(cfRng *rng)
{
    double z = cf_rng_range(rng, -1.0, 1.0);
    double a = cf_rng_range(rng, 0.0, 2.0 * CF_PI);
    double s = sqrt(fmax(0.0, 1.0 - z * z));
    return cfu_vec3(s * cos(a), s * sin(a), z);
}

cfQuat cf_rng_quat(cfRng *rng)
{
    double u1 = cf_rng_uniform(rng), u2 = cf_rng_uniform(rng), u3 = cf_rng_uniform(rng);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    return cfu_quat(b * cos(2.0 * CF_PI * u3), a * sin(2.0 * CF_PI * u2), a * cos(2.0 * CF_PI * u2),
                    b * sin(2.0 * CF_PI * u3));
}
