/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.1: NCP functions, the minimum map and Fischer-Burmeister, with one
   element of their generalized gradients and the notes' tie rules; the scaled and penalized form.
   Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include <math.h>

#include "cf/cf_ch06.h"

double cf_ncp_minmap(double a, double b, double *da, double *db)
{
    //> ch06:minmap
    // TODO(ch06.1): implement this; the specification is in cf_ch06.h
    (void)a; (void)b; (void)da; (void)db;
    return CF_TODO_F("ch06.1");
    //< ch06:minmap
}

double cf_ncp_fb(double a, double b, double *da, double *db)
{
    //> ch06:fb
    // TODO(ch06.1): implement this; the specification is in cf_ch06.h
    (void)a; (void)b; (void)da; (void)db;
    return CF_TODO_F("ch06.1");
    //< ch06:fb
}

double cf_ncp_eval(cfNcpKind kind, double a, double b, double r, double penalty, double *da, double *db)
{
    //> ch06:ncp-eval
    // TODO(ch06.1): implement this; the specification is in cf_ch06.h
    (void)kind; (void)a; (void)b; (void)r; (void)penalty; (void)da; (void)db;
    return CF_TODO_F("ch06.1");
    //< ch06:ncp-eval
}
