/* SPDX-License-Identifier: MIT */
/* The names of the world settings' values, as scene files and messages spell them (the pipelines'
   and stages' names are in their table, pipelines.c; the implicit-soft pipeline's in implicit.c). */
#include "cf/cf_world.h"

const char *cf_rigid_integrator_name(cfRigidIntegrator i)
{
    switch (i) {
    case CF_RIGID_SEMI_IMPLICIT: return "semi-implicit";
    case CF_RIGID_EXPLICIT: return "explicit";
    case CF_RIGID_INTEGRATOR_COUNT: break;
    }
    return "unknown";
}

const char *cf_soft_integrator_name(cfSoftIntegrator i)
{
    switch (i) {
    case CF_SOFT_IMPLICIT: return "implicit";
    case CF_SOFT_BDF2: return "bdf2";
    case CF_SOFT_SEMI_IMPLICIT: return "semi-implicit";
    case CF_SOFT_EXPLICIT: return "explicit";
    case CF_SOFT_INTEGRATOR_COUNT: break;
    }
    return "unknown";
}

const char *cf_detector_name(cfDetector d)
{
    switch (d) {
    case CF_DETECT_NONE: return "none";
    case CF_DETECT_PRIMITIVES: return "primitives";
    case CF_DETECT_ALL_PAIRS: return "all-pairs";
    case CF_DETECT_SURFACES: return "surfaces";
    case CF_DETECTOR_COUNT: break;
    }
    return "unknown";
}

const char *cf_stabilization_name(cfStabilization s)
{
    switch (s) {
    case CF_STAB_SPLIT: return "split";
    case CF_STAB_BAUMGARTE: return "baumgarte";
    case CF_STABILIZATION_COUNT: break;
    }
    return "unknown";
}

const char *cf_certify_name(cfCertify c)
{
    switch (c) {
    case CF_CERTIFY_ALWAYS: return "always";
    case CF_CERTIFY_CLAIMS: return "claims";
    case CF_CERTIFY_COUNT: break;
    }
    return "unknown";
}

const char *cf_solver_failure_name(cfSolverFailure f)
{
    switch (f) {
    case CF_ON_FAILURE_CONTINUE: return "continue";
    case CF_ON_FAILURE_WARN: return "warn";
    case CF_ON_FAILURE_RETRY: return "retry";
    case CF_ON_FAILURE_STOP: return "stop";
    case CF_ON_FAILURE_COUNT: break;
    }
    return "unknown";
}
