/* SPDX-License-Identifier: MIT */
/* The two stages that call the solver's row: CF_STAGE_SOLVE finds the impulses and maps them to
   velocities by the ONE apply (rigid u+ = u* + M^-1 J^T lambda, soft u+ = A^-1 (b + J^T lambda);
   the dual form returns the velocities itself), every solve certified on the common residual
   (cf_solvers.h) and followed by world.on_solver_failure (continue, warn, retry, stop); CF_STAGE_STABILIZE moves positions by the split impulse of the solvers that have one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch01.h"
#include "cf/cf_ch02.h"
#include "cf/cf_ch08.h"
#include "cf/cf_ch10.h"
#include "stages.h"

/* the one apply: rigid u+ = u* + M^-1 J^T lambda (ch02's provided apply), soft
   u+ = A^-1 (b + J^T lambda) (ch02.8) */
static cfStatus apply(cfWorld *w, const cfContactList *contacts, const double *ustar, const double *lambda,
                      cfSoftSteps *soft)
{
    for (int i = 0; i < w->n_bodies; ++i) {
        const double *u = &ustar[6 * i];
        w->bodies[i].v = cfu_vec3(u[0], u[1], u[2]);
        w->bodies[i].w = cfu_vec3(u[3], u[4], u[5]);
    }
    cfStatus st = cf_rigid_apply_impulses(w->bodies, w->n_bodies, contacts->items, contacts->count, lambda);
    for (int i = 0; i < w->n_soft && st == CF_OK; ++i) {
        cfSoftStep *sw = &soft->body[i];
        if (sw->nc == 0) continue;
        for (int r = 0; r < sw->nc; ++r) memcpy(&sw->lam[3 * r], &lambda[3 * sw->global[r]], 3 * sizeof *sw->lam);
        st = cf_soft_dual_velocity(&sw->dual, sw->lam, sw->u_flat);
        for (int n = 0; n < w->soft[i].n_nodes && st == CF_OK; ++n)
            sw->u_new[n] = cfu_vec3(sw->u_flat[3 * n], sw->u_flat[3 * n + 1], sw->u_flat[3 * n + 2]);
    }
    return st;
}

/* The velocity of contact a's rows at the bodies' current velocities: (J u)_a plus the normal bias
   of the world's rule (rigid sides; rows solvers take nothing else), and the CFM term of @p r */
static void rows_velocity(const cfWorld *w, const cfContactList *contacts, const cfAssembly *as, int a, const double *r,
                          double u[3])
{
    const cfContact *c = &contacts->items[a];
    cfVec3 dv = cfu_zero3();
    if (c->body_b >= 0) dv = cf_rigid_point_velocity(&w->bodies[c->body_b], c->p);
    if (c->body_a >= 0) dv = cfu_sub(dv, cf_rigid_point_velocity(&w->bodies[c->body_a], c->p));
    u[0] = cfu_dot(c->n, dv), u[1] = cfu_dot(c->t, dv), u[2] = cfu_dot(c->b, dv);
    double bias = (c->phi >= 0.0 ? c->phi : as->prob.erp * c->phi) / w->def.dt;
    if (as->impacts && as->impact.v[a] < 0.0) bias = fmin(bias, as->impact.v[a]);
    u[0] += bias + (r ? as->cfm * r[0] : 0.0);
}

/* The natural map of the rows' contact law (cone or box) at the velocities the impulses gave: the
   common measure of rows solvers (the Coulomb one, whatever model they solved, for comparison) */
static double rows_residual(const cfWorld *w, const cfContactList *contacts, const cfAssembly *as, const double *lambda,
                            cfFrictionModel model)
{
    int nc = contacts->count;
    double *ru = malloc((size_t)(nc > 0 ? 6 * nc : 1) * sizeof *ru), *mu = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *mu);
    double res = INFINITY;
    if (ru && mu) {
        for (int a = 0; a < nc; ++a) {
            rows_velocity(w, contacts, as, a, &lambda[3 * a], &ru[3 * nc + 3 * a]);
            memcpy(&ru[3 * a], &lambda[3 * a], 3 * sizeof *ru);
            mu[a] = contacts->items[a].mu;
        }
        res = cf_contacts_residual(nc, ru, ru + 3 * nc, mu, NULL, model);
    }
    free(ru);
    free(mu);
    return res;
}

/* The free velocity of the rows and dual forms, the common residual's scale: the contacts' rows at
   the velocities before the solve (u*, with the bias), |J v_free + bias| for the dual form */
static double free_scale(const cfWorld *w, const cfContactList *contacts, const cfAssembly *as)
{
    const cfSolver *s = w->def.solver;
    int nc = contacts->count;
    double *v = malloc((size_t)(nc > 0 ? 3 * nc : 1) * sizeof *v), scale = 0.0;
    if (!v) return 0.0;
    if (s->form == CF_FORM_ROWS) {
        for (int a = 0; a < nc; ++a) rows_velocity(w, contacts, as, a, NULL, &v[3 * a]);
        scale = cf_vec_norm(3 * nc, v);
    } else if (s->form == CF_FORM_DUAL && as->dual.vfree) {
        cf_dual_contact_velocity(&as->dual, as->dual.vfree, NULL, v);
        scale = cf_vec_norm(3 * nc, v);
    }
    free(v);
    return scale;
}

/* free_scale() at u*, where the bodies were before the solve, computed after a rows solve: the
   bodies are put back at u* for it (a solver with cfSolver::velocities gets its own velocities back
   afterwards; the others are applied again from u* by the caller). -1 when out of memory. */
static double free_scale_at(cfWorld *w, const cfContactList *contacts, const cfAssembly *as, const double *ustar)
{
    const cfSolver *s = w->def.solver;
    if (s->form != CF_FORM_ROWS) return free_scale(w, contacts, as);
    double *keep = s->velocities ? malloc((size_t)(w->n_bodies > 0 ? 6 * w->n_bodies : 1) * sizeof *keep) : NULL;
    if (s->velocities && !keep) return -1.0;
    for (int i = 0; i < w->n_bodies; ++i) {
        cfRigidBody *b = &w->bodies[i];
        if (keep) memcpy(&keep[6 * i], &b->v, 3 * sizeof *keep), memcpy(&keep[6 * i + 3], &b->w, 3 * sizeof *keep);
        b->v = cfu_vec3(ustar[6 * i], ustar[6 * i + 1], ustar[6 * i + 2]);
        b->w = cfu_vec3(ustar[6 * i + 3], ustar[6 * i + 4], ustar[6 * i + 5]);
    }
    double scale = free_scale(w, contacts, as);
    for (int i = 0; keep && i < w->n_bodies; ++i) {
        w->bodies[i].v = cfu_vec3(keep[6 * i], keep[6 * i + 1], keep[6 * i + 2]);
        w->bodies[i].w = cfu_vec3(keep[6 * i + 3], keep[6 * i + 4], keep[6 * i + 5]);
    }
    free(keep);
    return scale;
}

/* world.certify "claims" (cfCertify): a solve of the rows or dual form that spent its budget (its
   own measure did not stop it) in a world whose unconverged steps just go on is not certified: it
   is reported as not converged (CF_MAX_ITER, the residual not computed, NaN), where "always" would
   compute the residual and call it converged in the rare case that it ended below the tolerance */
static bool certificate_skipped(const cfWorld *w, cfStatus st, const cfSolverParams *par, cfReport *rep)
{
    if (w->def.certify != CF_CERTIFY_CLAIMS || w->def.on_solver_failure != CF_ON_FAILURE_CONTINUE || !rep ||
        rep->reason != CF_STOP_MAX_ITER || (st != CF_OK && st != CF_MAX_ITER))
        return false;
    rep->claimed = st;
    rep->common = NAN;
    rep->common_tol = par->tol > 0.0 ? par->tol : CF_CONVERGED_TOL_ZERO;
    rep->status = CF_MAX_ITER;
    return true;
}

/* One solve of the step's contact problem with @p par from @p x (in/out), certified on the common
   residual (cf_solvers.h): by the registry for the assembled forms, here for the rows and the dual
   form, whose residuals the world computes (@p scale: their free velocity; NaN until it is needed,
   under world.certify "claims", then computed at u* and kept for a retry). A rows solver's
   residual is measured after the world's apply from @p ustar (the caller applies again from u*:
   the same result), or, for a solver with cfSolver::velocities, at the velocities it left. */
static cfStatus contact_solve(cfWorld *w, const cfContactList *contacts, cfAssembly *as, cfSoftSteps *soft,
                              const double *ustar, const cfSolverParams *par, double *scale, double *x, cfReport *rep,
                              cfStatus *applied)
{
    const cfSolver *s = w->def.solver;
    *applied = CF_NOT_IMPLEMENTED; /* CF_OK once x is applied from u* (the bodies then hold it) */
    if (cf_solver_matches(s, CF_SOLVERS_ASSEMBLED)) return cf_form_solve(&as->form, s, &as->prob, par, x, rep);
    const cfSolverParams own = cf_solver_own_params(s, &as->prob, par);
    cfStatus st = s->solve(&as->form.work, &as->prob, &own, x, rep);
    if (st != CF_OK && st != CF_MAX_ITER && st != CF_STAGNATED) return st;
    int nc = contacts->count;
    if (!cf_vec_finite(3 * nc, x)) return cf_solver_certify(s, st, INFINITY, par, rep);
    if (certificate_skipped(w, st, par, rep)) return CF_MAX_ITER;
    if (isnan(*scale) && (*scale = free_scale_at(w, contacts, as, ustar)) < 0.0) return CF_NO_MEMORY;
    cfFrictionModel model = cf_solver_friction(s, par->friction);
    double res = INFINITY;
    if (s->form == CF_FORM_DUAL) res = cf_dual_residual(&as->dual, x, as->u_dual.v, model);
    else if (s->velocities) *applied = CF_OK; /* the bodies hold the solver's own velocities (cfSolver::velocities) */
    else *applied = apply(w, contacts, ustar, x, soft);
    if (s->form == CF_FORM_ROWS && *applied == CF_OK) res = rows_residual(w, contacts, as, x, model);
    return cf_solver_certify(s, st, cf_common_relative(res, *scale), par, rep);
}

/* the impulse scale of the world's problem, m g h (cfSolverParams::impulse_scale): m the mean mass
   of the dynamic bodies (a soft body's whole mass), g = max(|gravity|, 1 m/s^2), h = dt */
static double impulse_scale(const cfWorld *w)
{
    double m = 0.0;
    int n = 0;
    for (int i = 0; i < w->n_bodies; ++i)
        if (!w->bodies[i].fixed) m += w->bodies[i].mass, ++n;
    for (int i = 0; i < w->n_soft; ++i) {
        double sm = 0.0;
        for (int j = 0; j < w->soft[i].n_nodes; ++j) sm += w->soft[i].fixed[j] ? 0.0 : w->soft[i].mass[j];
        m += sm, ++n;
    }
    return (n > 0 && m > 0.0 ? m / n : 1.0) * fmax(cfu_norm(w->def.gravity), 1.0) * w->def.dt;
}

/* a solve that diverged: name the body that is most likely the cause, the fastest before the
   solve (or the first that was not finite) */
static cfStatus diverged(cfWorld *w, const double *ustar, int nc)
{
    const cfSolver *s = w->def.solver;
    int worst = -1;
    double top = -1.0;
    for (int i = 0; i < w->n_bodies; ++i) {
        const double *u = &ustar[6 * i];
        double sp = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) + sqrt(u[3] * u[3] + u[4] * u[4] + u[5] * u[5]);
        if (!isfinite(sp)) sp = INFINITY;
        if (sp > top) top = sp, worst = i;
    }
    if (worst < 0) return CF_OK;
    return cf_step_fail(w, CF_DIVERGED, "solve: solver '%s' diverged on %d contacts; the fastest body is rigid body %d '%s' "
                        "(|v| + |w| = %g before the solve): check its mass and inertia", s->name, nc, worst,
                        w->bodies[worst].name, top);
}

/* ---- world.step_budget (cfWorldDef::step_budget) ----------------------------------------------- */

/* The couplings of the step's contacts, what one sweep of a solver over them costs: for the
   assembled and dual forms the sum over the dynamic rigid bodies and the free soft nodes of k^2, k
   the contacts that touch it (the nonzero 3x3 blocks of the Delassus operator W = J M^-1 J^T,
   counted with multiplicity), at least the number of contacts; for the rows form, which never
   builds W (a contact's update reads and writes its two bodies), the number of contacts. A stack
   has a few couplings per contact; a cloth folded onto itself hundreds. */
static double couplings(const cfWorld *w, const cfContactList *contacts)
{
    int nc = contacts->count, n = w->n_bodies;
    if (w->def.solver->form == CF_FORM_ROWS) return (double)nc;
    for (int i = 0; i < w->n_soft; ++i) n += w->soft[i].n_nodes;
    int *k = calloc((size_t)(n > 0 ? n : 1), sizeof *k), *first = calloc((size_t)(w->n_soft + 1), sizeof *first);
    double sum = 0.0;
    if (k && first) {
        first[0] = w->n_bodies;
        for (int i = 0; i < w->n_soft; ++i) first[i + 1] = first[i] + w->soft[i].n_nodes;
        for (int a = 0; a < nc; ++a) {
            const cfContact *c = &contacts->items[a];
            if (c->body_a >= 0 && !w->bodies[c->body_a].fixed) k[c->body_a]++;
            if (c->body_b >= 0 && !w->bodies[c->body_b].fixed) k[c->body_b]++;
            for (int side = 0; side < 2; ++side) {
                const cfSoftSide *ss = cf_contact_soft(c, side);
                for (int j = 0; ss && j < ss->n; ++j)
                    if (!w->soft[ss->body].fixed[ss->node[j]]) k[first[ss->body] + ss->node[j]]++;
            }
        }
        for (int i = 0; i < n; ++i) sum += (double)k[i] * (double)k[i];
    } else {
        sum = (double)nc * (double)nc; /* out of memory: every pair */
    }
    free(k);
    free(first);
    return sum > nc ? sum : (double)nc;
}

/* The sweeps one iteration of the step's solver may take: 1, and for the dual row's ICA
   (block-diagonal preconditioner, cf_ica_solve()) one anticipation and up to max_inner inner sweeps */
static double sweeps_per_iteration(const cfWorld *w)
{
    if (cf_step_dual_form(w) && w->def.preconditioner == CF_PRECOND_BLOCK_DIAGONAL)
        return 1.0 + (double)cf_ica_options_default().max_inner;
    return 1.0;
}

/* A solve of @p par may start only with budget left: its iterations are cut to what the rest of
   world.step_budget pays for at @p cost per sweep (*cut set when they were). CF_OK, or the step
   fails with CF_MAX_ITER naming the work done. */
static cfStatus budget_fit(cfWorld *w, double cost, cfSolverParams *par, bool *cut)
{
    double per_iter = cost * sweeps_per_iteration(w), left = w->def.step_budget - w->stats.solver_work;
    double afford = left > 0.0 ? floor(left / per_iter) : 0.0;
    *cut = false;
    if (afford >= 1.0 && (par->max_iter <= 0 || afford >= (double)par->max_iter)) return CF_OK;
    if (afford >= 1.0) {
        par->max_iter = (int)afford;
        *cut = true;
        return CF_OK;
    }
    return cf_step_fail(w, CF_MAX_ITER, "solve: the step's work budget is spent: %.4g of world.step_budget %.4g (contact "
                        "couplings x sweeps) in %d solves, and one iteration on these %d contacts costs %.4g; the step stops "
                        "(raise world.step_budget if the scene needs more)", w->stats.solver_work, w->def.step_budget,
                        w->stats.solves, w->contacts.count, per_iter);
}

/* the work of the solve @p rep describes, counted into the step's: its sweeps (iterations plus a
   nested solver's inner sweeps, at least one) times @p cost */
static void budget_count(cfWorld *w, const cfReport *rep, double cost)
{
    double sweeps = (double)rep->iterations + (double)rep->inner_total;
    w->stats.solver_work += cost * (sweeps > 1.0 ? sweeps : 1.0);
    w->stats.solves += 1;
}

/* a solve whose iterations budget_fit() cut (to @p iters) and that used them all: the budget ended the step */
static cfStatus budget_spent(cfWorld *w, int nc, int iters)
{
    return cf_step_fail(w, CF_MAX_ITER, "solve: the step's work budget is spent: %.4g of world.step_budget %.4g (contact "
                        "couplings x sweeps) in %d solves, the last on %d contacts cut to the %d iterations the rest paid "
                        "for (at %g sweeps each at most) and not converged in them; the step stops (raise "
                        "world.step_budget if the scene needs more)", w->stats.solver_work, w->def.step_budget,
                        w->stats.solves, nc, iters, sweeps_per_iteration(w));
}

static cfStatus solve(cfWorld *w, cfContactList *contacts, cfAssembly *as, cfSoftSteps *soft, cfSolveWork *sv)
{
    if (!cf_step_solving(w, contacts)) return CF_OK;
    const cfSolver *s = w->def.solver;
    int nc = contacts->count;
    if (cf_buf_reserve(&sv->ustar, 6 * w->n_bodies) != CF_OK || cf_buf_reserve(&sv->lambda, 3 * nc) != CF_OK)
        return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    double *ustar = sv->ustar.v, *x = sv->lambda.v;
    for (int i = 0; i < w->n_bodies; ++i) {
        memcpy(&ustar[6 * i], &w->bodies[i].v, 3 * sizeof *ustar);
        memcpy(&ustar[6 * i + 3], &w->bodies[i].w, 3 * sizeof *ustar);
    }
    for (int a = 0; a < nc; ++a) memcpy(&x[3 * a], contacts->items[a].lambda, 3 * sizeof *x);
    cfReport rep;
    cf_report_init(&rep, w->stats.solver_history, CF_STATS_HISTORY);
    rep.inner = w->stats.solver_inner;
    as->par.impulse_scale = impulse_scale(w);
    /* the free velocity, the common residual's scale: now, or (certify "claims") when a solve needs it */
    double scale = w->def.certify == CF_CERTIFY_ALWAYS ? free_scale(w, contacts, as) : NAN;
    const double cost = couplings(w, contacts);
    cfSolverParams par = as->par;
    bool cut = false;
    if (budget_fit(w, cost, &par, &cut) != CF_OK) return CF_MAX_ITER;
    cfStatus applied;
    cfStatus st = contact_solve(w, contacts, as, soft, ustar, &par, &scale, x, &rep, &applied);
    budget_count(w, &rep, cost);
    w->stats.budget_cuts += cut;
    if (cut && st == CF_MAX_ITER) return budget_spent(w, nc, par.max_iter);
    if ((st == CF_MAX_ITER || st == CF_STAGNATED) && w->def.on_solver_failure == CF_ON_FAILURE_RETRY && !s->dense &&
        cf_vec_finite(3 * nc, x)) {
        /* once more from the answer, with four times the budget (a rows solver starts again from u*) */
        for (int i = 0; s->form == CF_FORM_ROWS && i < w->n_bodies; ++i) {
            const double *u = &ustar[6 * i];
            w->bodies[i].v = cfu_vec3(u[0], u[1], u[2]);
            w->bodies[i].w = cfu_vec3(u[3], u[4], u[5]);
        }
        for (int a = 0; a < nc; ++a) memcpy(contacts->items[a].lambda, &x[3 * a], 3 * sizeof *x);
        cfSolverParams more = as->par;
        more.max_iter = 4 * (as->par.max_iter > 0 ? as->par.max_iter : 1);
        more.warm_start = true;
        if (budget_fit(w, cost, &more, &cut) != CF_OK) return CF_MAX_ITER;
        cf_report_init(&rep, w->stats.solver_history, CF_STATS_HISTORY);
        rep.inner = w->stats.solver_inner;
        st = contact_solve(w, contacts, as, soft, ustar, &more, &scale, x, &rep, &applied);
        budget_count(w, &rep, cost);
        w->stats.budget_cuts += cut;
        if (cut && st == CF_MAX_ITER) return budget_spent(w, nc, more.max_iter);
        w->stats.solver_retries = 1;
    }
    cf_step_record_solve(&w->stats, &rep, s->measure, st);
    w->stats.contact_solve = true;
    w->stats.solver_common = rep.common;
    w->stats.solver_common_tol = rep.common_tol;
    w->stats.solver_claimed = rep.claimed;
    /* an iterative solver's used-up budget or stagnation still gives usable impulses, and so does a
       pivoting method whose answer passed its own certificate but not the common one; a pivoting
       method that did not finish gives none */
    if (st == CF_DIVERGED && diverged(w, ustar, nc) != CF_OK) return CF_DIVERGED;
    bool usable = st == CF_OK || ((st == CF_MAX_ITER || st == CF_STAGNATED) && (!s->dense || rep.claimed == CF_OK));
    if (!usable) return cf_step_fail(w, st, "solve: solver '%s' failed on %d contacts: %s", s->name, nc, cf_status_name(st));
    if (st != CF_OK && w->def.on_solver_failure == CF_ON_FAILURE_STOP)
        return cf_step_fail(w, st, "solve: solver '%s' did not converge on %d contacts (%s): common residual %.3e above the "
                            "tolerance %.3e (its own measure %.3e, %s); world.on_solver_failure is \"stop\"", s->name, nc,
                            cf_status_name(st), rep.common, rep.common_tol, rep.residual, cf_measure_name(s->measure));
    if (!cf_vec_finite(3 * nc, x))
        return cf_step_fail(w, CF_DIVERGED, "solve: solver '%s' returned impulses that are not finite", s->name);
    if (cf_step_dual_form(w)) {
        if (!cf_vec_finite(as->dual.n, as->u_dual.v))
            return cf_step_fail(w, CF_DIVERGED, "solve: solver '%s' (%s) returned velocities that are not finite", s->name,
                                cf_preconditioner_name(as->par.preconditioner));
        cf_apply_dual(w, as, soft);
        for (int a = 0; a < nc; ++a) memcpy(contacts->items[a].lambda, &x[3 * a], 3 * sizeof *x);
        w->stats.common_residual = cf_dual_residual(&as->dual, x, as->u_dual.v, CF_FRICTION_CONE);
        return CF_OK;
    }
    /* a rows solver's last contact_solve() applied x from u* for its certificate: the bodies then
       hold what this apply would give them, bit for bit (an apply per solve, not two); a rows
       solver with cfSolver::velocities left them at its own sweeps' velocities */
    st = s->form == CF_FORM_ROWS && (applied == CF_OK || s->velocities) ? CF_OK : apply(w, contacts, ustar, x, soft);
    if (st != CF_OK) return cf_step_fail(w, st, "solve: applying the impulses failed (%s)", cf_status_name(st));
    for (int a = 0; a < nc; ++a) memcpy(contacts->items[a].lambda, &x[3 * a], 3 * sizeof *x);
    /* a texture contact's box has no cone: the directional box's natural map (chapter 10.6) */
    if (as->directional && as->prob.mu4) {
        w->stats.common_residual = cf_fc_texture_residual(&as->fc, as->prob.mu4, x);
        w->stats.common_directional = true;
    } else if (s->form != CF_FORM_ROWS) w->stats.common_residual = cf_fc_residual(&as->fc, x);
    else if (as->par.friction == CF_FRICTION_CONE) w->stats.common_residual = rep.residual;
    else w->stats.common_residual = rows_residual(w, contacts, as, x, CF_FRICTION_CONE);
    return CF_OK;
}

/* the normal velocity of contact @p c at the bodies' velocities */
static double normal_velocity(const cfWorld *w, const cfContact *c)
{
    cfVec3 dv = cfu_zero3();
    if (c->body_b >= 0) dv = cf_rigid_point_velocity(&w->bodies[c->body_b], c->p);
    if (c->body_a >= 0) dv = cfu_sub(dv, cf_rigid_point_velocity(&w->bodies[c->body_a], c->p));
    return cfu_dot(c->n, dv);
}

cfStatus cf_stage_solve(cfWorld *w, cfContactList *contacts, cfAssembly *as, cfSoftSteps *soft, cfSolveWork *sv)
{
    cfStatus st = solve(w, contacts, as, soft, sv);
    /* the split stage's predicted gaps, at the pose the velocity solve had (before the positions move) */
    for (int k = 0; st == CF_OK && cf_step_solving(w, contacts) && as->split && k < as->n_pos; ++k)
        as->gap.v[k] = as->pos_contacts[k].phi + w->def.dt * normal_velocity(w, &as->pos_contacts[k]);
    return st;
}

/* ---- CF_STAGE_STABILIZE ---------------------------------------------------------------------- */

/* the pseudo-velocities M^-1 J^T p of the pseudo-impulses @p p on the contacts of the position
   problem, in pv[0 .. 6 nb); the bodies' velocities are kept in pv[6 nb .. 12 nb) meanwhile */
static cfStatus pseudo_velocities(cfWorld *w, const cfAssembly *as, const double *p, double *pv)
{
    int nb = w->n_bodies;
    double *keep = pv + 6 * nb;
    for (int i = 0; i < nb; ++i) {
        cfRigidBody *b = &w->bodies[i];
        memcpy(&keep[6 * i], &b->v, 3 * sizeof *keep);
        memcpy(&keep[6 * i + 3], &b->w, 3 * sizeof *keep);
        b->v = b->w = cfu_zero3();
    }
    cfStatus st = cf_rigid_apply_impulses(w->bodies, nb, as->pos_contacts, as->n_pos, p);
    for (int i = 0; i < nb; ++i) {
        cfRigidBody *b = &w->bodies[i];
        memcpy(&pv[6 * i], &b->v, 3 * sizeof *pv);
        memcpy(&pv[6 * i + 3], &b->w, 3 * sizeof *pv);
        b->v = cfu_vec3(keep[6 * i], keep[6 * i + 1], keep[6 * i + 2]);
        b->w = cfu_vec3(keep[6 * i + 3], keep[6 * i + 4], keep[6 * i + 5]);
    }
    return st;
}

/* the sweeps of the split stage's position problem: world.split_iterations, or when it is 0 the
   velocity solve's iterations, at least 4 */
static int split_sweeps(const cfWorldDef *d)
{
    if (d->split_iterations > 0) return d->split_iterations;
    return d->solver_iterations > 4 ? d->solver_iterations : 4;
}

/* Split impulse for the assembled and dual forms: the position problem of the contacts between
   rigid sides (cfAssembly::pos: W at the pose of the solve, mu 0, CFM) with the bias
   q_n = erp min(g + slop, 0) / h of each predicted gap g = phi + h u_n^+, solved by the same
   solver through the same form (the dual form, whose system is not an assembled W: by
   the registry's default row for assembled problems, pgs-blocked) from zero, with the velocity solve's tolerance and split_sweeps() iterations
   (sweeps, pivots, Newton steps as the solver counts them), as the rows' split sweeps. Its
   pseudo-impulses p >= 0 give pseudo-velocities M^-1 J^T p in @p pv. A position solve that returns
   no usable answer fails the step. */
static cfStatus split_assembled(cfWorld *w, cfAssembly *as, cfBuf *pv, bool *active)
{
    const cfWorldDef *d = &w->def;
    int m = as->n_pos;
    *active = false;
    for (int k = 0; k < m; ++k) {
        as->pos.q[3 * k] = as->erp * fmin(as->gap.v[k] + d->slop, 0.0) / d->dt;
        as->pos.q[3 * k + 1] = as->pos.q[3 * k + 2] = 0.0;
        *active |= as->pos.q[3 * k] != 0.0;
    }
    if (!*active) return CF_OK; /* nothing penetrates beyond the slop: every pseudo-impulse is zero */
    const cfSolver *s = cf_step_dual_form(w) ? cf_solver_default(CF_SOLVERS_ASSEMBLED) : d->solver;
    cfSolverParams par = as->par;
    par.warm_start = false;
    par.max_iter = split_sweeps(d);
    par.friction = CF_FRICTION_CONE;
    cfContactProblem prob;
    cfStatus st = cf_form_build(&as->pos_form, s, &as->pos, &par, &prob, &w->error);
    if (st != CF_OK) return st;
    double *p = pv->v + 12 * w->n_bodies;
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    st = cf_form_solve(&as->pos_form, s, &prob, &par, p, &rep);
    w->stats.split_iterations = rep.iterations;
    bool usable = (st == CF_OK || ((st == CF_MAX_ITER || st == CF_STAGNATED) && (!s->dense || rep.claimed == CF_OK))) &&
                  cf_vec_finite(3 * m, p);
    if (!usable)
        return cf_step_fail(w, st == CF_OK ? CF_DIVERGED : st, "stabilize: the position solve of solver '%s' failed on %d "
                            "contacts (%s)", s->name, m, cf_status_name(st));
    for (int k = 0; k < m; ++k) p[3 * k] = fmax(p[3 * k], 0.0), p[3 * k + 1] = p[3 * k + 2] = 0.0;
    return pseudo_velocities(w, as, p, pv->v);
}

cfStatus cf_split_velocities(cfWorld *w, const cfContactList *contacts, cfAssembly *as, cfBuf *pv, bool *active)
{
    const cfWorldDef *d = &w->def;
    *active = false;
    if (!cf_step_solving(w, contacts) || d->stabilization != CF_STAB_SPLIT || as->erp == 0.0) return CF_OK;
    if (d->solver->split) {
        if (cf_buf_reserve(pv, 6 * w->n_bodies) != CF_OK) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
        cfStatus st = d->solver->split(as->form.work, &as->prob, as->erp, d->slop, split_sweeps(d), pv->v);
        if (st != CF_OK)
            return cf_step_fail(w, st, "stabilize: split impulse of solver '%s' (%s)", d->solver->name, cf_status_name(st));
        *active = true;
        return CF_OK;
    }
    if (!as->split || as->n_pos == 0) return CF_OK;
    if (cf_buf_reserve(pv, 12 * w->n_bodies + 3 * as->n_pos) != CF_OK) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    return split_assembled(w, as, pv, active);
}

cfStatus cf_split_move(cfWorld *w, const double *pv)
{
    cfStatus st = CF_OK;
    for (int i = 0; i < w->n_bodies && st == CF_OK; ++i) {
        cfRigidBody *b = &w->bodies[i];
        const double *p = &pv[6 * i];
        if (b->fixed || (p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0 && p[3] == 0.0 && p[4] == 0.0 && p[5] == 0.0)) continue;
        cfVec3 v = b->v, om = b->w;
        b->v = cfu_vec3(p[0], p[1], p[2]);
        b->w = cfu_vec3(p[3], p[4], p[5]);
        st = cf_rigid_integrate_position(b, w->def.dt);
        b->v = v;
        b->w = om;
    }
    return st == CF_OK ? CF_OK : cf_step_fail(w, st, "stabilize: position update (%s)", cf_status_name(st));
}

/* Split impulse: pseudo-velocities that remove the fraction erp of the penetration beyond the
   slop move the positions and are then forgotten, so no velocity (and no energy) is added. */
cfStatus cf_stage_stabilize(cfWorld *w, const cfContactList *contacts, cfAssembly *as, cfBuf *pv)
{
    bool active;
    cfStatus st = cf_split_velocities(w, contacts, as, pv, &active);
    return st == CF_OK && active ? cf_split_move(w, pv->v) : st;
}
