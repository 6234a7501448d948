/* SPDX-License-Identifier: MIT */
/* Chapter 6, exercise ch06.1: NCP functions, the minimum map and Fischer-Burmeister, with one
   element of their generalized gradients and the notes' tie rules; the scaled and penalized form.
   Specification: lib/include/cf/cf_ch06.h; text: chapters/ch06/README.md. */
#include <math.h>

#include "cf/cf_ch06.h"

double cf_ncp_minmap(double a, double b, double *da, double *db)
{
    //> ch06:minmap
    // BEGIN SOLUTION ch06.1
    bool active = a <= b; /* a tie is active: the constraint row a = 0 is kept */
    if (da) *da = active ? 1.0 : 0.0;
    if (db) *db = active ? 0.0 : 1.0;
    return active ? a : b;
    // END SOLUTION
    // STUB ch06.1: (void)a; (void)b; (void)da; (void)db;
    // STUB ch06.1: return CF_TODO_F("ch06.1");
    //< ch06:minmap
}

double cf_ncp_fb(double a, double b, double *da, double *db)
{
    //> ch06:fb
    // BEGIN SOLUTION ch06.1
    double s = hypot(a, b); /* sqrt(a^2 + b^2) without overflow */
    if (s == 0.0) {          /* the kink at the origin: the notes' choice (0, 1) */
        if (da) *da = 0.0;
        if (db) *db = 1.0;
        return 0.0;
    }
    if (da) *da = 1.0 - a / s;
    if (db) *db = 1.0 - b / s;
    /* a + b - s loses every digit when a, b > 0 are far apart; (a + b)^2 - s^2 = 2 a b gives
       the same value as 2 a b / (a + b + s) without the cancellation */
    return a > 0.0 && b > 0.0 ? 2.0 * a * (b / (a + b + s)) : a + b - s;
    // END SOLUTION
    // STUB ch06.1: (void)a; (void)b; (void)da; (void)db;
    // STUB ch06.1: return CF_TODO_F("ch06.1");
    //< ch06:fb
}

double cf_ncp_eval(cfNcpKind kind, double a, double b, double r, double penalty, double *da, double *db)
{
    //> ch06:ncp-eval
    // BEGIN SOLUTION ch06.1
    double c = r * b, pa, pc;
    double psi = kind == CF_NCP_MINMAP ? cf_ncp_minmap(a, c, &pa, &pc) : cf_ncp_fb(a, c, &pa, &pc);
    if (kind == CF_NCP_FB && penalty < 1.0) { /* Chen-Chen-Kanzow: - (1 - p) a+ c+ */
        double q = 1.0 - penalty;
        psi = penalty * psi - q * fmax(a, 0.0) * fmax(c, 0.0);
        pa = penalty * pa - q * (a > 0.0 ? fmax(c, 0.0) : 0.0);
        pc = penalty * pc - q * (c > 0.0 ? fmax(a, 0.0) : 0.0);
    }
    if (da) *da = pa;
    if (db) *db = r * pc; /* chain rule through c = r b */
    return psi;
    // END SOLUTION
    // STUB ch06.1: (void)kind; (void)a; (void)b; (void)r; (void)penalty; (void)da; (void)db;
    // STUB ch06.1: return CF_TODO_F("ch06.1");
    //< ch06:ncp-eval
}
