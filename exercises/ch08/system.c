/* SPDX-License-Identifier: MIT */
/* Chapter 8, exercise ch08.1: the linear system A u+ = b of one soft-body step in the notes'
   sign convention, implicit (A = M - hB - h^2 K) or explicit with lumped mass. Specification:
   lib/include/cf/cf_ch08.h; text: chapters/ch08/README.md. */
#include "cf/cf_ch08.h"

#include <stdlib.h>
#include <string.h>

cfStatus cf_soft_system(const cfSoftBody *s, cfVec3 gravity, double h, const cfVec3 *x, const cfVec3 *u, bool implicit,
                        cfCsr *A, double *b)
{
    memset(A, 0, sizeof *A);
    if (!(isfinite(h) && h >= 0.0)) return CF_BAD_INPUT;
    //> ch08:system
    // TODO(ch08.1): implement this; the specification is in cf_ch08.h
    return CF_TODO_S("ch08.1");
    //< ch08:system
}
