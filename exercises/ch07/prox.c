/* SPDX-License-Identifier: MIT */
/* Chapter 7, exercise ch07.1: the proximal maps (projections) of the contact law: the normal
   cone's max(0, z), the friction disk, the friction cone and the box. Specification:
   lib/include/cf/cf_ch07.h; text: chapters/ch07/README.md. */
#include <math.h>

#include "cf/cf_ch07.h"

double cf_prox_normal(double z)
{
    //> ch07:prox-normal
    // TODO(ch07.1): implement this; the specification is in cf_ch07.h
    return CF_TODO_F("ch07.1");
    //< ch07:prox-normal
}

void cf_prox_disk(const double z[2], double radius, double out[2])
{
    //> ch07:prox-disk
    // TODO(ch07.1): implement this; the specification is in cf_ch07.h
    CF_TODO("ch07.1");
    //< ch07:prox-disk
}

void cf_prox_cone(const double z[3], double mu, double out[3])
{
    //> ch07:prox-cone
    // TODO(ch07.1): implement this; the specification is in cf_ch07.h
    CF_TODO("ch07.1");
    //< ch07:prox-cone
}

void cf_prox_box(int n, const double *z, const double *hi, double *out)
{
    //> ch07:prox-box
    // TODO(ch07.1): implement this; the specification is in cf_ch07.h
    CF_TODO("ch07.1");
    //< ch07:prox-box
}
