/* SPDX-License-Identifier: MIT */
/* Chapter 7, exercise ch07.6: Moreau's midpoint time stepping with a PROX solve and a Newton
   impact law (notes 3.4.5), and the post-step projection of positions (notes 3.4.6).
   Specification: lib/include/cf/cf_ch07.h; text: chapters/ch07/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch01.h"
#include "cf/cf_ch07.h"

static bool options_ok(const cfMoreauOptions *o)
{
    return o && isfinite(o->h) && o->h > 0.0 && cfu_vec3_finite(o->gravity) && (o->dim == 3 || o->dim == 4) &&
           isfinite(o->mu_tau) && o->mu_tau >= 0.0 && o->restitution >= 0.0 && o->restitution <= 1.0 &&
           o->post_passes >= 0;
}

/* the bodies' velocities as the factored problem's u: (v, omega) per body */
static void gather_u(const cfRigidBody *bodies, int nb, double *u)
{
    for (int k = 0; k < nb; ++k) {
        const double s[6] = {bodies[k].v.x, bodies[k].v.y, bodies[k].v.z, bodies[k].w.x, bodies[k].w.y, bodies[k].w.z};
        memcpy(&u[6 * k], s, sizeof s);
    }
}

/* detection at the current positions, frames for the friction laws */
static cfStatus detect_contacts(cfMoreauDetect detect, void *ctx, cfRigidBody *bodies, int nb, cfContactList *out)
{
    cfStatus st = detect(ctx, bodies, nb, out);
    for (int a = 0; a < out->count && st == CF_OK; ++a) st = cf_prox_frame(&out->items[a]);
    return st;
}

int cf_prox_post_project(cfRigidBody *bodies, int nb, cfMoreauDetect detect, void *ctx, int passes, double tol,
                         double *min_gap)
{
    if (!bodies || nb < 0 || !detect || passes < 0 || !(tol >= 0.0)) return -(int)CF_BAD_INPUT;
    cfContactList list = {0};
    cfStatus st = CF_OK;
    int done = 0;
    //> ch07:post-project
    // TODO(ch07.6): implement this; the specification is in cf_ch07.h
    st = CF_TODO_S("ch07.6");
    //< ch07:post-project
    cf_contacts_free(&list);
    return st == CF_OK ? done : -(int)st;
}

cfStatus cf_moreau_step(cfRigidBody *bodies, int nb, cfMoreauDetect detect, void *ctx, const cfMoreauOptions *o,
                        cfContactList *contacts, cfMoreauStats *stats, cfReport *rep)
{
    if (!options_ok(o) || !bodies || nb < 0 || !detect || !contacts) return CF_BAD_INPUT;
    cfMoreauStats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    double h = o->h;
    cfStatus st = CF_OK;
    //> ch07:moreau
    // TODO(ch07.6): implement this; the specification is in cf_ch07.h
    st = CF_TODO_S("ch07.6");
    //< ch07:moreau
    return st;
}
