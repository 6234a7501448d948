/* SPDX-License-Identifier: MIT */
/* The two stages about the step's contacts: CF_STAGE_DETECT finds them (chapter 3, through the
   detection units) and carries the last step's impulses over; CF_STAGE_CONTACTS gives each its
   frame (ch02.2) and friction law (the world's pairs, chapter 10's ellipses) and refuses the
   contacts the solver cannot take. */
#include "cf/cf_ch02.h"
#include "cf/cf_ch10.h"
#include "stages.h"

/* ---- CF_STAGE_DETECT ------------------------------------------------------------------------- */

cfStatus cf_stage_detect(cfWorld *w, cfDetectWork *dw, cfContactList *contacts)
{
    if (w->def.detector == CF_DETECT_NONE) {
        cf_contacts_clear(contacts);
        return CF_OK;
    }
    cfDetectOptions opt = cf_detect_options_default();
    opt.margin = w->def.contact_margin;
    opt.broadphase = w->def.detector == CF_DETECT_ALL_PAIRS ? CF_BROADPHASE_ALL_PAIRS : CF_BROADPHASE_SAP;
    /* two lists take turns (the previous step's and this one's): no allocation in a steady state */
    cfContactList prev = *contacts;
    *contacts = dw->spare;
    cfStatus st = cf_detect_world_cached(w, &opt, w->def.manifold_tolerance, dw->threads, &dw->manifolds, contacts, NULL);
    if (st == CF_OK && w->n_soft > 0) st = cf_detect_soft(w, &opt, contacts, NULL);
    if (st == CF_OK && prev.count > 0 && cf_contacts_carry(contacts, &prev, w->def.solver != NULL, dw->threads) < 0) st = CF_NO_MEMORY;
    if (st == CF_OK) {
        dw->spare = prev;
    } else {
        dw->spare = *contacts;
        *contacts = prev; /* nothing is lost on failure */
    }
    cf_contacts_clear(&dw->spare);
    if (st == CF_BAD_INPUT) return cf_step_fail(w, st, "detect: a body's position or orientation is not finite");
    w->stats.n_contacts = contacts->count;
    return st;
}

/* ---- CF_STAGE_CONTACTS ----------------------------------------------------------------------- */

static bool side_is(const cfContact *c, int side, cfSideKind kind, int index)
{
    if (cf_contact_side_kind(c, side) != kind) return false;
    if (kind == CF_SIDE_RIGID) return (side == 0 ? c->body_a : c->body_b) == index;
    if (kind == CF_SIDE_SOFT) return cf_contact_soft(c, side)->body == index;
    return true;
}

/* the world's friction pair for the contact's two sides (NULL: keep the bodies' sqrt(mu_a mu_b));
   *a_is gets the pair's index (0 or 1) of the body that is the contact's side A */
static const cfFrictionPair *pair_of(const cfWorld *w, const cfContact *c, int *a_is)
{
    for (int i = 0; i < w->n_pairs; ++i) {
        const cfFrictionPair *p = &w->pairs[i];
        for (int o = 0; o < 2; ++o)
            if (side_is(c, 0, p->kind[o], p->index[o]) && side_is(c, 1, p->kind[1 - o], p->index[1 - o])) {
                *a_is = o;
                return p;
            }
    }
    return NULL;
}

cfStatus cf_contact_law(const cfWorld *w, cfContactList *list, cfContact *c, const cfFrictionPair **pair, int *a_is)
{
    const cfFrictionPair *p = *pair = pair_of(w, c, a_is);
    if (!p) return CF_OK;
    c->mu = p->mu;
    if (!c->extra && p->law.law == CF_LAW_ISOTROPIC && !p->matchstick && !p->texture) return CF_OK; /* the zeroed default law */
    cfContactExtra *x = cf_contacts_extra(list, c);
    if (!x) return CF_NO_MEMORY;
    x->friction = p->law;
    if (p->texture) x->friction.law = CF_LAW_DIRECTIONAL; /* its box: texture_box() */
    if (p->law.law != CF_LAW_ISOTROPIC && p->field.kind != CF_FIELD_WORLD)
        x->friction.dir = cf_direction_field_at(&p->field, c->p, NULL);
    return CF_OK;
}

const char *cf_contact_law_name(const cfContact *c, const cfFrictionPair *pair)
{
    return pair && pair->matchstick ? "matchstick"
           : pair && pair->texture ? "texture"
                                   : cf_friction_law_name(cf_contact_friction(c)->law);
}

/* the rigid body of side @p side, or NULL */
static const cfRigidBody *side_body(const cfWorld *w, const cfContact *c, int side)
{
    int i = side == 0 ? c->body_a : c->body_b;
    return i >= 0 ? &w->bodies[i] : NULL;
}

/* Chapter 10.6: rigid body @p body's texture (NULL: none) as ch10.6's height field at its pose */
static const cfHeightField *side_field(const cfWorld *w, int body, cfHeightField *hf)
{
    const cfBodyTexture *t = NULL;
    for (int i = 0; body >= 0 && i < w->n_textures && !t; ++i) /* the world's list (no call into world.c) */
        if (w->textures[i].body == body) t = &w->textures[i];
    if (!t) return NULL;
    const cfRigidBody *rb = &w->bodies[body];
    *hf = (cfHeightField){.nx = t->nx, .ny = t->ny, .cell = t->cell, .h = t->h,
                          .origin = cfu_add(rb->x, cfu_quat_rotate(rb->q, t->origin)),
                          .u = cfu_quat_rotate(rb->q, t->u), .v = cfu_quat_rotate(rb->q, t->v)};
    return hf;
}

/* Chapter 10.6: the directional box of a texture contact. The frame's t is the first textured side's
   u on the tangent plane (so that +-t runs across the ridges of a texture laid along u; the ch02.2
   frame when u is along n), and the box is the plowing coefficients of the patch around the contact
   (cf_texture_patch_mu(): B sliding along +-t, +-b relative to A) plus the pair's mu. */
static cfStatus texture_box(cfWorld *w, cfContact *c, const cfFrictionPair *p)
{
    cfHeightField fa, fb;
    const cfHeightField *ha = side_field(w, c->body_a, &fa), *hb = side_field(w, c->body_b, &fb);
    const cfHeightField *first = ha ? ha : hb;
    if (first) {
        cfVec3 u = cfu_sub(first->u, cfu_scale(cfu_dot(first->u, c->n), c->n));
        double lu = cfu_norm(u);
        if (lu > 1e-9) {
            c->t = cfu_scale(1.0 / lu, u);
            c->b = cfu_cross(c->n, c->t);
        }
    }
    double mu4[4] = {0, 0, 0, 0};
    cfStatus st = first ? cf_texture_patch_mu(ha, hb, c->p, c->n, c->t, c->b, p->patch, p->samples, 4, mu4) : CF_OK;
    if (st != CF_OK) return st;
    cfFriction *f = &c->extra->friction;
    f->law = CF_LAW_DIRECTIONAL;
    f->dir = c->t;
    double m = 0.0;
    for (int k = 0; k < 4; ++k) m = fmax(m, f->coef[k] = p->mu + mu4[k]);
    c->mu = m;
    return CF_OK;
}

/* Chapter 10: the law of an anisotropic contact as its ellipse in the contact frame (the frame's t
   along the ellipse's first axis): Matchstick from the two structure directions at the contact
   point (ch10.1), orthotropic and tensor laws from their direction (ch10.5 for the tensor's cone) */
static cfStatus anisotropic_frame(cfWorld *w, cfContact *c, const cfFrictionPair *p, int a_is)
{
    cfStatus st;
    if (p && p->texture) {
        st = texture_box(w, c, p);
    } else if (p && p->matchstick) {
        cfVec3 s_a = cf_direction_field_at(&p->structure[a_is], c->p, side_body(w, c, 0));
        cfVec3 s_b = cf_direction_field_at(&p->structure[1 - a_is], c->p, side_body(w, c, 1));
        cfMatchstick m = {.mu = p->mu, .mu_t = p->aniso[0], .mu_b = p->aniso[1]};
        st = cf_contact_matchstick(c, s_a, s_b, &m);
    } else {
        st = cf_contact_ellipse_frame(c);
    }
    if (st != CF_OK)
        return cf_step_fail(w, st, "contacts: no %s for the %s law of the contact between '%s' and '%s' (chapter 10: %s)",
                            p && p->texture ? "directional box" : "ellipse", cf_contact_law_name(c, p),
                            cf_side_name(w, c, 0), cf_side_name(w, c, 1), cf_status_name(st));
    return CF_OK;
}

/* the solver and the soft integrator can take contact @p c, which has a soft side or (@p anisotropic)
   a law that is not isotropic (every solver takes a rigid isotropic one) */
static cfStatus contact_takeable(cfWorld *w, const cfContact *c, const cfFrictionPair *p, bool anisotropic)
{
    const cfSolver *s = w->def.solver;
    bool soft = cf_contact_has_soft(c);
    if (soft && w->def.per_island)
        return cf_step_fail(w, CF_BAD_INPUT, "solver \"" CF_SOLVER_PER_ISLAND "\": the contact between '%s' and '%s' has a "
                            "soft side; a solver per island takes rigid bodies only (a soft body's system is built for one "
                            "solver's form before the islands are known): choose one solver, e.g. dual",
                            cf_side_name(w, c, 0), cf_side_name(w, c, 1));
    /* a solver per island: the island's rule chooses a row of ellipses or of directional boxes, and
       sim/islands.c checks that its row takes the island */
    if (anisotropic && w->def.per_island) return CF_OK;
    if (p && p->texture && !s->directional) {
        char names[512];
        return cf_step_fail(w, CF_BAD_INPUT, "solver '%s' takes no directional friction; the contact between '%s' and '%s' "
                            "has the texture law, whose box is asymmetric (chapter 10.6; the solvers that take it: %s, "
                            "and " CF_SOLVER_PER_ISLAND ")",
                            s->name, cf_side_name(w, c, 0), cf_side_name(w, c, 1),
                            cf_solver_names(CF_SOLVERS_DIRECTIONAL, names, sizeof names));
    }
    if (soft && !cf_solver_matches(s, CF_SOLVERS_SOFT)) {
        char names[512];
        return cf_step_fail(w, CF_BAD_INPUT,
                            "solver '%s' works on rigid rows and cannot take the soft contact between '%s' and '%s'; "
                            "solvers of assembled problems can: %s",
                            s->name, cf_side_name(w, c, 0), cf_side_name(w, c, 1),
                            cf_solver_names(CF_SOLVERS_SOFT, names, sizeof names));
    }
    if (anisotropic && !cf_solver_matches(s, CF_SOLVERS_ASSEMBLED)) {
        char names[512];
        return cf_step_fail(w, CF_BAD_INPUT, "solver '%s' takes isotropic friction only; the contact "
                            "between '%s' and '%s' has the %s law (chapter 10; every solver of an assembled problem takes it: %s)",
                            s->name, cf_side_name(w, c, 0), cf_side_name(w, c, 1), cf_contact_law_name(c, p),
                            cf_solver_names(CF_SOLVERS_ASSEMBLED, names, sizeof names));
    }
    for (int side = 0; side < 2 && soft; ++side) {
        const cfSoftSide *ss = cf_contact_soft(c, side);
        if (ss && w->def.soft_integrator != CF_SOFT_IMPLICIT && w->def.soft_integrator != CF_SOFT_BDF2)
            return cf_step_fail(w, CF_BAD_INPUT, "soft body '%s' is touched, but the soft integrator '%s' takes no contact "
                                "impulses (use implicit or bdf2)",
                                w->soft[ss->body].name, cf_soft_integrator_name(w->def.soft_integrator));
        if (ss && w->soft[ss->body].consistent_mass && s->form != CF_FORM_DUAL)
            return cf_step_fail(w, CF_BAD_INPUT, "soft body '%s' has consistent mass: its contacts need a dual-form solver "
                                "(chapter 8's 'dual'), solver '%s' builds a lumped-mass dual form", w->soft[ss->body].name,
                                s->name);
    }
    return CF_OK;
}

/* fewer contacts than this: the contacts stage on one thread (docs/performance.md) */
#define CF_CONTACTS_THREAD_MIN 1000

/* The common case on the step's threads: rigid contacts only (no soft body), no friction pairs,
   so every contact keeps its isotropic law and gets its frame alone, as the loop below would
   give it. false when the world is not that case or a contact is not as expected (an extra, a
   frame refused): the loop below then does every contact again, and reports the first failure. */
static bool frames_threaded(cfWorld *w, cfContactList *contacts)
{
    const struct cfStepWork *k = cf_step_work(w);
    int T = k ? k->detect.threads : 1, n = contacts->count, bad = 0;
    if (T < 2 || n < CF_CONTACTS_THREAD_MIN || w->n_pairs > 0 || w->n_soft > 0) return false;
    const bool warm = w->def.warm_start;
#pragma omp parallel for num_threads(T) schedule(static) reduction(| : bad)
    for (int a = 0; a < n; ++a) {
        cfContact *c = &contacts->items[a];
        bad |= c->extra != NULL || cf_contact_frame(c->n, &c->t, &c->b) != CF_OK;
        if (!warm) c->lambda[0] = c->lambda[1] = c->lambda[2] = 0.0;
    }
    return !bad;
}

cfStatus cf_stage_contacts(cfWorld *w, cfContactList *contacts)
{
    if (!cf_step_solving(w, contacts)) return CF_OK;
    if (frames_threaded(w, contacts)) return CF_OK;
    for (int a = 0; a < contacts->count; ++a) {
        cfContact *c = &contacts->items[a];
        int a_is = 0;
        const cfFrictionPair *p;
        if (cf_contact_law(w, contacts, c, &p, &a_is) != CF_OK) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
        bool anisotropic = !cf_contact_isotropic(c) || (p && p->matchstick);
        cfStatus st = CF_OK;
        if ((anisotropic || cf_contact_has_soft(c)) && (st = contact_takeable(w, c, p, anisotropic)) != CF_OK) return st;
        st = cf_contact_frame(c->n, &c->t, &c->b);
        if (st != CF_OK)
            return cf_step_fail(w, st, "contacts: no frame for a normal of contact %d (ch02.2: %s)", a, cf_status_name(st));
        if (anisotropic && (st = anisotropic_frame(w, c, p, a_is)) != CF_OK) return st;
        if (!w->def.warm_start) c->lambda[0] = c->lambda[1] = c->lambda[2] = 0.0;
    }
    return CF_OK;
}
