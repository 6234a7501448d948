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
    // BEGIN SOLUTION ch07.6
    double lowest = 0.0;
    for (;;) {
        st = detect_contacts(detect, ctx, bodies, nb, &list);
        if (st != CF_OK) break;
        lowest = 0.0;
        for (int a = 0; a < list.count; ++a) lowest = fmin(lowest, list.items[a].phi);
        if (done >= passes || lowest >= -tol) break;
        /* 0 <= J M^-1 J^T d + phi _|_ d >= 0 as a PROX problem without friction (mu = 0) */
        cfProxProblem p;
        st = cf_prox_problem_rigid(bodies, nb, list.items, list.count, 3, 0.0, &p);
        if (st != CF_OK) break;
        for (int a = 0; a < list.count; ++a) {
            p.b[3 * a] = list.items[a].phi;
            p.b[3 * a + 1] = p.b[3 * a + 2] = 0.0;
            p.mu[3 * a] = p.mu[3 * a + 1] = 0.0;
        }
        double *d = calloc((size_t)3 * list.count, sizeof *d), *w = malloc((size_t)(6 * nb + 1) * sizeof *w);
        cfProxOptions po = cf_prox_options_default();
        po.tol_abs = 1e-12;
        st = d && w ? cf_prox_gs(&p, &po, d, NULL, NULL) : CF_NO_MEMORY;
        if (st == CF_MAX_ITER) st = CF_OK; /* the best displacement found still helps */
        if (st == CF_OK) cf_prox_w(&p, d, w); /* dq = M^-1 J^T d */
        for (int k = 0; k < nb && st == CF_OK; ++k) {
            cfRigidBody *b = &bodies[k];
            if (b->fixed) continue;
            cfVec3 v = b->v, om = b->w;
            b->v = cfu_vec3(w[6 * k], w[6 * k + 1], w[6 * k + 2]);
            b->w = cfu_vec3(w[6 * k + 3], w[6 * k + 4], w[6 * k + 5]);
            st = cf_rigid_integrate_position(b, 1.0); /* a displacement: one unit of "time" */
            b->v = v;
            b->w = om;
        }
        free(d);
        free(w);
        cf_prox_problem_free(&p);
        if (st != CF_OK) break;
        ++done;
    }
    if (min_gap) *min_gap = lowest;
    // END SOLUTION
    // STUB ch07.6: st = CF_TODO_S("ch07.6");
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
    // BEGIN SOLUTION ch07.6
    /* 1. q^{t+1/2} = q^t + (h/2) H u^t */
    for (int k = 0; k < nb && st == CF_OK; ++k) st = cf_rigid_integrate_position(&bodies[k], 0.5 * h);
    /* 2. contacts at the midpoint */
    if (st == CF_OK) st = detect_contacts(detect, ctx, bodies, nb, contacts);
    if (st != CF_OK) return st;
    int nc = contacts->count, d = o->dim;
    stats->contacts = nc;
    cfProxProblem p = {0};
    double *u = malloc((size_t)(6 * nb + 1) * sizeof *u), *w = malloc((size_t)(6 * nb + 1) * sizeof *w);
    double *lam = calloc((size_t)(d * nc + 1), sizeof *lam), *vminus = malloc((size_t)(nc + 1) * sizeof *vminus);
    if (!u || !w || !lam || !vminus) st = CF_NO_MEMORY;
    /* 3. the rows at the midpoint; v^- = J u^t, then u* = u^t + h M^-1 f and b = J u* */
    if (st == CF_OK && nc > 0) st = cf_prox_problem_rigid(bodies, nb, contacts->items, nc, d, o->mu_tau, &p);
    for (int a = 0; a < nc && st == CF_OK; ++a) vminus[a] = p.b[d * a];
    for (int k = 0; k < nb && st == CF_OK; ++k) st = cf_rigid_integrate_velocity(&bodies[k], o->gravity, h, o->gyroscopic);
    if (st == CF_OK && nc > 0) {
        gather_u(bodies, nb, u);
        cf_csr_mul_vec(&p.J, u, p.b);
        for (int a = 0; a < nc; ++a) {
            const cfContact *c = &contacts->items[a];
            double gap = c->phi > 0.0 ? 2.0 * c->phi / h : 0.0; /* an open gap may close in the h/2 left */
            bool impact = o->restitution > 0.0 && vminus[a] < 0.0 && p.b[d * a] + gap < 0.0;
            p.b[d * a] += impact ? o->restitution * vminus[a] : gap; /* Newton's impact law */
            for (int k = 0; k < 3; ++k) lam[d * a + k] = c->lambda[k];      /* warm start; torsion from 0 */
        }
        /* 4. the impulses and u^{t+1} = u* + M^-1 J^T lambda */
        st = o->jacobi ? cf_prox_jacobi(&p, &o->prox, lam, rep, &stats->prox) : cf_prox_gs(&p, &o->prox, lam, rep, &stats->prox);
        stats->prox_status = st;
        if (st == CF_MAX_ITER) st = CF_OK; /* a used budget still gives usable impulses */
        if (st == CF_OK) {
            cf_prox_w(&p, lam, w);
            for (int k = 0; k < nb; ++k) {
                if (bodies[k].fixed) continue;
                bodies[k].v = cfu_add(bodies[k].v, cfu_vec3(w[6 * k], w[6 * k + 1], w[6 * k + 2]));
                bodies[k].w = cfu_add(bodies[k].w, cfu_vec3(w[6 * k + 3], w[6 * k + 4], w[6 * k + 5]));
            }
            for (int a = 0; a < nc; ++a) memcpy(contacts->items[a].lambda, &lam[d * a], 3 * sizeof *lam);
        }
    }
    /* 5. q^{t+1} = q^{t+1/2} + (h/2) H u^{t+1} */
    for (int k = 0; k < nb && st == CF_OK; ++k) st = cf_rigid_integrate_position(&bodies[k], 0.5 * h);
    /* 6. the post-step projection */
    if (st == CF_OK && o->post_passes > 0) {
        int done = cf_prox_post_project(bodies, nb, detect, ctx, o->post_passes, 1e-6, &stats->min_gap_after);
        if (done < 0) st = (cfStatus)(-done);
        else stats->post_passes = done;
    }
    cf_prox_problem_free(&p);
    free(u), free(w), free(lam), free(vminus);
    // END SOLUTION
    // STUB ch07.6: st = CF_TODO_S("ch07.6");
    //< ch07:moreau
    return st;
}
