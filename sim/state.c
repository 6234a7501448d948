/* SPDX-License-Identifier: MIT */
/* The world's state kept before a step, so that a failing step leaves the world as it was, and
   the check that a step's new state is finite. */
#include <stdlib.h>
#include <string.h>

#include "stages.h"

static cfVec3 **soft_field(cfWorld *w, int field, int i)
{
    cfSoftBody *s = &w->soft[i];
    return field == 0 ? &s->x : field == 1 ? &s->v : field == 2 ? &s->x_prev : &s->v_prev;
}

void cf_state_free(cfSavedState *sv, int n_soft)
{
    for (int f = 0; f < 4; ++f) {
        if (sv->arr[f])
            for (int i = 0; i < n_soft; ++i) free(sv->arr[f][i]);
        free(sv->arr[f]);
    }
    free(sv->has_prev);
    free(sv->bodies);
    memset(sv, 0, sizeof *sv);
}

cfStatus cf_state_save(cfWorld *w, cfSavedState *sv)
{
    memset(sv, 0, sizeof *sv);
    if (w->n_bodies) {
        sv->bodies = malloc((size_t)w->n_bodies * sizeof *sv->bodies);
        if (!sv->bodies) return CF_NO_MEMORY;
        memcpy(sv->bodies, w->bodies, (size_t)w->n_bodies * sizeof *sv->bodies);
    }
    if (w->n_soft == 0) return CF_OK;
    sv->has_prev = malloc((size_t)w->n_soft * sizeof *sv->has_prev);
    if (!sv->has_prev) return CF_NO_MEMORY;
    for (int f = 0; f < 4; ++f) {
        sv->arr[f] = calloc((size_t)w->n_soft, sizeof *sv->arr[f]);
        if (!sv->arr[f]) return CF_NO_MEMORY;
        for (int i = 0; i < w->n_soft; ++i) {
            size_t bytes = (size_t)w->soft[i].n_nodes * sizeof(cfVec3);
            sv->arr[f][i] = malloc(bytes);
            if (!sv->arr[f][i]) return CF_NO_MEMORY;
            memcpy(sv->arr[f][i], *soft_field(w, f, i), bytes);
        }
    }
    for (int i = 0; i < w->n_soft; ++i) sv->has_prev[i] = w->soft[i].has_prev;
    return CF_OK;
}

void cf_state_restore(cfWorld *w, const cfSavedState *sv)
{
    if (w->n_bodies) memcpy(w->bodies, sv->bodies, (size_t)w->n_bodies * sizeof *w->bodies);
    for (int i = 0; i < w->n_soft; ++i) {
        size_t bytes = (size_t)w->soft[i].n_nodes * sizeof(cfVec3);
        for (int f = 0; f < 4; ++f) memcpy(*soft_field(w, f, i), sv->arr[f][i], bytes);
        w->soft[i].has_prev = sv->has_prev[i];
    }
}

cfStatus cf_state_check_finite(cfWorld *w)
{
    const char *solver = w->def.solver ? w->def.solver->name : "none";
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (!(cfu_vec3_finite(b->x) && cfu_quat_finite(b->q) && cfu_vec3_finite(b->v) && cfu_vec3_finite(b->w)))
            return cf_step_fail(w, CF_DIVERGED, "rigid body %d '%s': state not finite after the step at t = %g (solver %s); "
                                "check its mass and inertia", i, b->name, w->time, solver);
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        for (int n = 0; n < s->n_nodes; ++n)
            if (!(cfu_vec3_finite(s->x[n]) && cfu_vec3_finite(s->v[n])))
                return cf_step_fail(w, CF_DIVERGED, "soft body %d '%s': node %d not finite after the step at t = %g (solver %s)",
                                    i, s->name, n, w->time, solver);
    }
    return CF_OK;
}
