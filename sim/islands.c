/* SPDX-License-Identifier: MIT */
/* A solver per island (cfWorldDef::per_island, scene key world.solver "per-island"): the velocity
   pipeline's assemble, solve and stabilize stages run once per island of the step's contacts
   (chapter 11.2's islands and rule, cf_ch11.h), each island by the solver the rule chose, with
   the bodies of the other islands held fixed meanwhile, so that an island is solved exactly as
   in a world of its bodies alone. The detect, contacts, velocities and positions stages are the
   world's, once per step. With cfWorldDef::sleep_steps an island at rest that long sleeps: frozen,
   not solved, until a body that is not at rest joins it. The rule's row must take its island's
   laws (a texture contact a directional row, an ellipse an assembled form). Rigid bodies only: a
   soft body's system is built in the velocities stage for one solver's form (the dual form or
   not), before the islands are known. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch11.h"
#include "cf/cf_solvers.h"
#include "stages.h"

/* the laws of island @p k's contacts: an ellipse (orthotropic, tensor, Matchstick: the contacts
   stage made each its ellipse), texture friction's directional box */
static void island_laws(const cfIslands *is, int k, const cfContactList *contacts, bool *ellipses, bool *texture)
{
    *ellipses = *texture = false;
    for (int a = 0; a < contacts->count; ++a) {
        if (is->of_contact[a] != k) continue;
        cfFrictionLaw law = cf_contact_friction(&contacts->items[a])->law;
        *texture |= law == CF_LAW_DIRECTIONAL;
        *ellipses |= law != CF_LAW_ISOTROPIC && law != CF_LAW_DIRECTIONAL;
    }
}

/* count island @p k's solver in the step's stats, with the law it solves there */
static void count_solver(cfWorld *w, const cfSolver *s, const cfIslands *is, int k, const cfContactList *contacts)
{
    cfStepStats *st = &w->stats;
    int j = 0;
    while (j < st->island.n_solvers && st->island.solver[j] != s) ++j;
    if (j == CF_STATS_ISLAND_SOLVERS) return;
    if (j == st->island.n_solvers) {
        st->island.solver[j] = s;
        st->island.islands_of[j] = st->island.contacts_of[j] = 0;
        st->island.ellipses_of[j] = st->island.texture_of[j] = false;
        st->island.n_solvers++;
    }
    bool ellipses, texture;
    island_laws(is, k, contacts, &ellipses, &texture);
    st->island.islands_of[j] += 1;
    st->island.contacts_of[j] += cf_island_summary(is, k, contacts->items).contacts;
    st->island.ellipses_of[j] |= ellipses;
    st->island.texture_of[j] |= texture;
    st->island.law_of[j] = cf_solver_law(s, w->def.friction_model, st->island.ellipses_of[j], st->island.texture_of[j]);
}

/* the row the rule chose takes every contact of island @p k, as the contacts stage asks of one
   solver for the whole world: a texture contact's directional box needs a directional row, an
   ellipse an assembled form (the world gives a row that does not solve ellipses their isotropic
   equivalent or pyramid); CF_OK, or the step's failure naming the island and the rows that take it */
static cfStatus takes_island(cfWorld *w, const cfSolver *s, const cfIslands *is, int k, const cfContactList *contacts,
                             const char *who)
{
    bool ellipses, texture;
    island_laws(is, k, contacts, &ellipses, &texture);
    char names[512];
    if (texture && !s->directional)
        return cf_step_fail(w, CF_BAD_INPUT, "solver \"" CF_SOLVER_PER_ISLAND "\": %s gave '%s' "
                            "for island %d, which has texture friction, whose directional box '%s' does not read (chapter "
                            "10.6; the rows that do: %s)", who, s->name, k, s->name,
                            cf_solver_names(CF_SOLVERS_DIRECTIONAL, names, sizeof names));
    if (ellipses && !cf_solver_matches(s, CF_SOLVERS_ASSEMBLED))
        return cf_step_fail(w, CF_BAD_INPUT, "solver \"" CF_SOLVER_PER_ISLAND "\": %s gave '%s' "
                            "for island %d, which has anisotropic friction (ellipses), and '%s' takes isotropic friction "
                            "only (chapter 10; the rows of assembled problems take it: %s)", who, s->name, k, s->name,
                            cf_solver_names(CF_SOLVERS_ASSEMBLED, names, sizeof names));
    return CF_OK;
}

/* the scene's choice for island @p k (cfWorldDef::island_solver): NULL (none, *name untouched) or
   the solver its bodies name, @p by the first of them; a second body naming another fails the step */
static cfStatus scene_choice(cfWorld *w, const cfIslands *is, int k, const char **name, int *by)
{
    *by = -1;
    for (int c = 0; c < w->def.n_island_solvers; ++c) {
        int b = w->def.island_solver[c].body;
        if (b < 0 || b >= w->n_bodies || is->of_body[b] != k) continue;
        const char *s = w->def.island_solver[c].solver;
        if (*by >= 0 && strcmp(s, *name) != 0)
            return cf_step_fail(w, CF_BAD_INPUT, "solver "" CF_SOLVER_PER_ISLAND "": island %d: body '%s' chooses '%s' and "
                                "body '%s' chooses '%s' (island_solver): the bodies of one island agree on one solver",
                                k, w->bodies[*by].name, *name, w->bodies[b].name, s);
        if (*by < 0) *by = b, *name = s;
    }
    return CF_OK;
}

cfStatus cf_islands_assemble(cfWorld *w, const cfContactList *contacts, cfIslandWork *iw)
{
    memset(&w->stats.island, 0, sizeof w->stats.island);
    if (!cf_step_solving(w, contacts)) return CF_OK;
    /* soft contacts were refused by the contacts stage (contact_takeable()) */
    if (!iw->is && !(iw->is = calloc(1, sizeof *iw->is))) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    cf_islands_free(iw->is);
    cfStatus st = cf_islands_find(w->bodies, w->n_bodies, w->n_soft, contacts->items, contacts->count, iw->is);
    if (st != CF_OK)
        return cf_step_fail(w, st, "solver \"per-island\": chapter 11.2's cf_islands_find() failed (%s)", cf_status_name(st));
    int n = iw->is->count;
    if (n > iw->cap) {
        const cfSolver **s = realloc(iw->solver, (size_t)n * sizeof *s);
        if (!s) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
        iw->solver = s;
        iw->cap = n;
    }
    for (int k = 0; k < n; ++k) {
        cfIslandSummary sum = cf_island_summary(iw->is, k, contacts->items);
        iw->solver[k] = NULL;
        if (sum.contacts == 0) continue;
        const char *name = NULL;
        int by;
        if ((st = scene_choice(w, iw->is, k, &name, &by)) != CF_OK) return st;
        if (by < 0) name = cf_island_solver(&sum);
        const cfSolver *s = name ? cf_solver_find(name) : NULL;
        if (!s || !s->contacts)
            return cf_step_fail(w, name ? CF_BAD_INPUT : CF_NOT_IMPLEMENTED,
                                "solver \"per-island\": chapter 11.2's cf_island_solver() gave %s%s%s for island %d (%d "
                                "contacts, %d bodies)%s", name ? "'" : "", name ? name : "no solver", name ? "'" : "", k,
                                sum.contacts, sum.rigid, name ? ", not a world solver of this build" : "");
        char who[96];
        if (by >= 0) snprintf(who, sizeof who, "body '%s''s island_solver", w->bodies[by].name);
        else snprintf(who, sizeof who, "chapter 11.2's cf_island_solver()");
        if ((st = takes_island(w, s, iw->is, k, contacts, who)) != CF_OK) return st;
        iw->solver[k] = s;
        w->stats.island.islands++;
    }
    return CF_OK;
}

/* Sleeping (cfWorldDef::sleep_steps): island @p k sleeps when every body of it has been at rest
   for sleep_steps steps; a body that joins it (its count 0) wakes it */
static bool asleep(const cfWorld *w, const cfIslandWork *iw, int k)
{
    if (w->def.sleep_steps <= 0) return false;
    for (int i = 0; i < w->n_bodies; ++i)
        if (iw->is->of_body[i] == k && iw->rest[i] < w->def.sleep_steps) return false;
    return true;
}

/* a sleeping island's bodies: frozen (the free velocities' gravity undone), their impulses kept */
static void freeze(cfWorld *w, const cfIslandWork *iw, int k)
{
    for (int i = 0; i < w->n_bodies; ++i)
        if (iw->is->of_body[i] == k) w->bodies[i].v = w->bodies[i].w = cfu_zero3();
}

/* after the solve: each body's steps at rest, counted on its new velocity; a body in no island
   with contacts is not at rest (it flies) */
static void count_rest(cfWorld *w, cfIslandWork *iw)
{
    for (int i = 0; i < w->n_bodies; ++i) {
        int k = iw->is->of_body[i];
        const cfRigidBody *b = &w->bodies[i];
        bool still = k >= 0 && iw->solver[k] && cfu_norm(b->v) < CF_SLEEP_LINEAR && cfu_norm(b->w) < CF_SLEEP_ANGULAR;
        iw->rest[i] = still ? (iw->rest[i] < w->def.sleep_steps ? iw->rest[i] + 1 : iw->rest[i]) : 0;
    }
}

/* island @p k's contacts of @p contacts copied into iw->sub, their indices in iw->index */
static cfStatus gather(const cfContactList *contacts, cfIslandWork *iw, int k)
{
    int m = 0;
    for (int a = 0; a < contacts->count; ++a) m += iw->is->of_contact[a] == k;
    if (m > iw->sub.cap) {
        cfContact *c = realloc(iw->sub.items, (size_t)m * sizeof *c);
        if (!c) return CF_NO_MEMORY;
        iw->sub.items = c;
        iw->sub.cap = m;
    }
    if (m > iw->cap_index) {
        int *ix = realloc(iw->index, (size_t)m * sizeof *ix);
        if (!ix) return CF_NO_MEMORY;
        iw->index = ix;
        iw->cap_index = m;
    }
    iw->sub.count = 0;
    for (int a = 0; a < contacts->count; ++a)
        if (iw->is->of_contact[a] == k) {
            iw->index[iw->sub.count] = a;
            iw->sub.items[iw->sub.count++] = contacts->items[a];
        }
    return CF_OK;
}

/* the stats of island solves merged: iterations summed, the worst status (the first that is not
   CF_OK), the largest residuals */
typedef struct Merged {
    int iterations, retries, split_iterations;
    bool directional; /* an island's common residual was its directional box's */
    cfStatus status, claimed;
    double residual, common_residual, common, common_tol;
} Merged;

static void merge(Merged *m, const cfStepStats *st)
{
    m->iterations += st->solver_iterations;
    m->retries += st->solver_retries;
    m->split_iterations += st->split_iterations;
    m->directional |= st->common_directional;
    if (m->status == CF_OK && st->solver_status != CF_OK) m->status = st->solver_status;
    if (m->claimed == CF_OK && st->solver_claimed != CF_OK) m->claimed = st->solver_claimed;
    if (st->solver_residual > m->residual) m->residual = st->solver_residual;
    if (st->common_residual > m->common_residual) m->common_residual = st->common_residual;
    if (st->solver_common > m->common) m->common = st->solver_common, m->common_tol = st->solver_common_tol;
}

/* island @p k by its solver: the bodies of the other islands fixed and the solver set for the
   time of its stages */
static cfStatus solve_island(cfWorld *w, cfContactList *contacts, cfIslandWork *iw, int k, cfAssembly *as,
                             cfSoftSteps *soft, cfSolveWork *sv)
{
    cfStatus st = gather(contacts, iw, k);
    if (st != CF_OK) return cf_step_fail(w, st, "out of memory");
    const cfWorldDef saved = w->def;
    for (int i = 0; i < w->n_bodies; ++i) {
        iw->was_fixed[i] = w->bodies[i].fixed;
        if (iw->is->of_body[i] != k) w->bodies[i].fixed = true;
    }
    /* the world's settings were checked with pgs, so the dual-form ones (preconditioner,
       soft_tolerance) are their defaults: every island's solver takes them as they are */
    w->def.per_island = false;
    w->def.solver = iw->solver[k];
    w->stats.split_iterations = w->stats.solver_retries = 0;
    st = cf_stage_assemble(w, &iw->sub, soft, as);
    if (st == CF_OK) st = cf_stage_solve(w, &iw->sub, as, soft, sv);
    bool active = false;
    if (st == CF_OK) st = cf_split_velocities(w, &iw->sub, as, &iw->pv_one, &active);
    for (int i = 0; i < w->n_bodies; ++i) w->bodies[i].fixed = iw->was_fixed[i];
    w->def = saved;
    if (st != CF_OK) return st;
    for (int j = 0; j < iw->sub.count; ++j)
        memcpy(contacts->items[iw->index[j]].lambda, iw->sub.items[j].lambda, sizeof iw->sub.items[j].lambda);
    for (int i = 0; active && i < 6 * w->n_bodies; ++i) iw->pv.v[i] += iw->pv_one.v[i];
    iw->moved |= active;
    return CF_OK;
}

cfStatus cf_islands_solve(cfWorld *w, cfContactList *contacts, cfIslandWork *iw, cfAssembly *as, cfSoftSteps *soft,
                          cfSolveWork *sv)
{
    iw->moved = false;
    if (!cf_step_solving(w, contacts)) return CF_OK;
    int nb = w->n_bodies;
    char *wf = realloc(iw->was_fixed, (size_t)(nb > 0 ? nb : 1));
    if (wf) iw->was_fixed = wf;
    if (!wf || cf_buf_reserve(&iw->pv, 6 * nb) != CF_OK) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    if (nb > iw->cap_rest) {
        int *r = realloc(iw->rest, (size_t)nb * sizeof *r);
        if (!r) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
        memset(r + iw->cap_rest, 0, (size_t)(nb - iw->cap_rest) * sizeof *r);
        iw->rest = r;
        iw->cap_rest = nb;
    }
    memset(iw->pv.v, 0, (size_t)6 * nb * sizeof *iw->pv.v);
    Merged m = {.status = CF_OK, .claimed = CF_OK};
    for (int k = 0; k < iw->is->count; ++k) {
        if (!iw->solver[k]) continue;
        if (asleep(w, iw, k)) {
            freeze(w, iw, k);
            w->stats.island.sleeping++;
            continue;
        }
        count_solver(w, iw->solver[k], iw->is, k, contacts);
        cfStatus st = solve_island(w, contacts, iw, k, as, soft, sv);
        if (st != CF_OK) return st;
        merge(&m, &w->stats);
    }
    if (w->def.sleep_steps > 0) count_rest(w, iw);
    cfStepStats *s = &w->stats;
    s->solver_iterations = m.iterations;
    s->solver_retries = m.retries > 0;
    s->split_iterations = m.split_iterations;
    s->solver_status = m.status;
    s->solver_claimed = m.claimed;
    s->solver_residual = m.residual;
    s->common_residual = m.common_residual;
    s->common_directional = m.directional;
    s->solver_common = m.common;
    s->solver_common_tol = m.common_tol;
    s->contact_solve = true;
    return CF_OK;
}

cfStatus cf_islands_stabilize(cfWorld *w, cfIslandWork *iw)
{
    return iw->moved ? cf_split_move(w, iw->pv.v) : CF_OK;
}
