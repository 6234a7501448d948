/* SPDX-License-Identifier: MIT */
/* The fast PGS compiled a second time, four lanes wide, for processors with AVX2 (rigid_fast.c
   explains; its first build calls this one's functions when the processor has AVX2). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("avx2")
#define CF_LANES 4
#define CF_FAST_WIDE 1
#include "rigid_fast.c"
#else
typedef int cf_rigid_fast_wide_absent; /* ISO C: no empty translation unit */
#endif
