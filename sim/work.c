/* SPDX-License-Identifier: MIT */
/* The velocity step's scratch space (stages.h): made on first use, kept between steps to reuse its
   memory, freed with the world; and the small helpers every stage uses (the failure message, side
   names, the solve's stats). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch11.h"
#include "stages.h"

cfStatus cf_buf_reserve(cfBuf *b, int n)
{
    if (n <= b->cap) return CF_OK;
    double *v = realloc(b->v, (size_t)n * sizeof *v);
    if (!v) return CF_NO_MEMORY;
    b->v = v;
    b->cap = n;
    return CF_OK;
}

struct cfStepWork *cf_step_work(cfWorld *w)
{
    if (!w->work && (w->work = calloc(1, sizeof *w->work))) w->work->detect.threads = cf_threads();
    return w->work;
}

static void soft_step_free(cfSoftStep *sw)
{
    cf_soft_dual_free(&sw->dual);
    cf_fc_free(&sw->fc);
    free(sw->xs);
    free(sw->us);
    free(sw->u_new);
    free(sw->global);
    free(sw->sc);
    free(sw->lam);
    free(sw->u_flat);
    cf_csr_free(&sw->A);
    free(sw->b);
    free(sw->vfree);
}

void cf_step_work_free(struct cfStepWork *k)
{
    if (!k) return;
    cf_contacts_free(&k->detect.spare);
    cf_manifold_cache_free(k->detect.manifolds);
    for (int i = 0; i < k->soft.cap; ++i) soft_step_free(&k->soft.body[i]);
    free(k->soft.body);
    cfAssembly *as = &k->as;
    free(as->impact.v);
    free(as->phi.v);
    cf_form_work_free(&as->form);
    cf_form_work_free(&as->pos_form);
    cfIslandWork *iw = &k->islands;
    if (iw->is) cf_islands_free(iw->is);
    free(iw->is);
    free(iw->solver);
    free(iw->sub.items);
    free(iw->index);
    free(iw->was_fixed);
    free(iw->pv.v);
    free(iw->pv_one.v);
    free(iw->rest);
    cf_fc_free(&as->pos);
    free(as->pos_contacts);
    free(as->touch);
    free(as->gap.v);
    cf_fc_free(&as->fc);
    cf_dual_free(&as->dual);
    free(as->u_dual.v);
    free(as->rigid_off);
    free(as->soft_off);
    free(k->solve.lambda.v);
    free(k->solve.ustar.v);
    free(k->pv.v);
    free(k);
}

cfStatus cf_step_fail(cfWorld *w, cfStatus st, const char *fmt, ...)
{
    if (w->error.msg[0] == '\0') {
        char msg[CF_ERROR_MSG_CAP];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        cf_error_set(&w->error, st, "%s", msg); /* control characters of body names escaped */
    }
    return st;
}

const char *cf_side_name(const cfWorld *w, const cfContact *c, int side)
{
    switch (cf_contact_side_kind(c, side)) {
    case CF_SIDE_RIGID: return w->bodies[side == 0 ? c->body_a : c->body_b].name;
    case CF_SIDE_SOFT: return w->soft[cf_contact_soft(c, side)->body].name;
    case CF_SIDE_STATIC:
    case CF_SIDE_KIND_COUNT: break;
    }
    return "the environment";
}

bool cf_soft_touched(const cfContactList *contacts, int i)
{
    for (int a = 0; a < contacts->count; ++a) {
        const cfContact *c = &contacts->items[a];
        if (cf_on_soft(c, 0, i) || cf_on_soft(c, 1, i)) return true;
    }
    return false;
}

cfSoftContact cf_soft_contact_of(const cfContact *c, int body)
{
    cfSoftContact sc;
    memset(&sc, 0, sizeof sc);
    for (int side = 0; side < 2; ++side) {
        if (body >= 0 && !cf_on_soft(c, side, body)) continue;
        const cfSoftSide *s = side == 0 ? &c->extra->soft_a : &c->extra->soft_b;
        if (side == 0) {
            sc.na = s->n;
            memcpy(sc.node_a, s->node, sizeof sc.node_a);
            memcpy(sc.w_a, s->w, sizeof sc.w_a);
        } else {
            sc.nb = s->n;
            memcpy(sc.node_b, s->node, sizeof sc.node_b);
            memcpy(sc.w_b, s->w, sizeof sc.w_b);
        }
    }
    sc.p = c->p;
    sc.n = c->n;
    sc.t = c->t;
    sc.b = c->b;
    sc.phi = c->phi;
    sc.mu = c->mu;
    return sc;
}

void cf_step_record_solve(cfStepStats *stats, const cfReport *rep, cfMeasure measure, cfStatus st)
{
    stats->solver_iterations = rep->iterations;
    stats->solver_residual = rep->residual;
    stats->solver_history_len = rep->history_len;
    stats->solver_measure = measure;
    stats->solver_status = st;
}
