/* SPDX-License-Identifier: MIT */
/* The contact-solver interface (cf_solver.h): names of its enums and the default parameters. */
#include "cf/cf_solver.h"

#include <string.h>

const char *cf_ordering_name(cfOrdering o)
{
    switch (o) {
    case CF_ORDER_SEQUENTIAL: return "sequential";
    case CF_ORDER_SYMMETRIC: return "symmetric";
    case CF_ORDER_RANDOM: return "random";
    case CF_ORDER_COUNT: break;
    }
    return "unknown";
}

const char *cf_rfactor_name(cfRFactor r)
{
    switch (r) {
    case CF_RFACTOR_LOCAL: return "local";
    case CF_RFACTOR_GLOBAL: return "global";
    case CF_RFACTOR_BLOCKED: return "blocked";
    case CF_RFACTOR_COUNT: break;
    }
    return "unknown";
}

const char *cf_form_name(cfProblemForm f)
{
    switch (f) {
    case CF_FORM_ROWS: return "rows";
    case CF_FORM_FC3D: return "fc3d";
    case CF_FORM_BLCP: return "blcp";
    case CF_FORM_LCP: return "lcp";
    case CF_FORM_COUNT: break;
    }
    return "unknown";
}

cfSolverParams cf_solver_params_default(void)
{
    cfSolverParams p;
    memset(&p, 0, sizeof p);
    p.max_iter = 20;
    p.tol = 0.0;
    p.omega = 1.0;
    p.ordering = CF_ORDER_SEQUENTIAL;
    p.seed = 1;
    p.friction = CF_FRICTION_CONE;
    p.directions = 8;
    p.r_factor = CF_RFACTOR_LOCAL;
    p.warm_start = true;
    return p;
}
