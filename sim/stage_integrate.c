/* SPDX-License-Identifier: MIT */
/* The two integration stages (chapter 1): CF_STAGE_VELOCITIES, the free velocities and every soft
   body's implicit system, and CF_STAGE_POSITIONS, the positions from the new velocities. */
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch01.h"
#include "cf/cf_ch08.h"
#include "stages.h"

/* ---- CF_STAGE_VELOCITIES --------------------------------------------------------------------- */

/* the library's explicit soft integrators (no contact impulses) */
static cfStatus soft_step_explicit(cfSoftBody *s, cfVec3 g, double h, bool symplectic)
{
    int n = s->n_nodes;
    double *f = malloc((size_t)3 * n * sizeof *f);
    if (!f) return CF_NO_MEMORY;
    cf_soft_forces(s, s->x, g, f);
    memcpy(s->x_prev, s->x, (size_t)n * sizeof *s->x);
    memcpy(s->v_prev, s->v, (size_t)n * sizeof *s->v);
    for (int i = 0; i < n; ++i) {
        if (s->fixed[i]) {
            s->v[i] = cfu_zero3();
            continue;
        }
        cfVec3 a = cfu_scale(1.0 / s->mass[i], cfu_vec3(f[3 * i], f[3 * i + 1], f[3 * i + 2]));
        /* Rayleigh mass damping only (explicit stiffness damping is rarely stable) */
        a = cfu_mul_add(a, -s->damping_alpha, s->v[i]);
        cfVec3 v_old = s->v[i];
        s->v[i] = cfu_mul_add(s->v[i], h, a);
        s->x[i] = cfu_mul_add(s->x[i], h, symplectic ? s->v[i] : v_old);
    }
    s->has_prev = true;
    free(f);
    return CF_OK;
}

/* A soft body's linear system at (x*, u*) with step beta: chapter 1's implicit system (ch01.4,
   lumped mass), or chapter 8's (ch08.1) for a dual-form solver, whose preconditioner decides
   implicit or explicit (lumped), and for a body with consistent mass */
static cfStatus soft_system(const cfWorld *w, const cfSoftBody *s, const cfSoftStep *sw, cfCsr *A, double *b)
{
    if (cf_step_dual_form(w) || s->consistent_mass)
        return cf_soft_system(s, w->def.gravity, sw->beta, sw->xs, sw->us,
                              !cf_step_dual_form(w) || w->def.preconditioner != CF_PRECOND_LUMPED, A, b);
    return cf_soft_assemble_implicit(s, w->def.gravity, sw->beta, sw->xs, sw->us, A, b);
}

/* The largest omega^2 of the stiffness of soft body i against its lumped masses (power iteration
   on M^-1 K+, 50 steps; 0 when it has no stiffness): an explicit step is stable for
   h < 2 / omega. */
static double soft_omega2(const cfSoftBody *s)
{
    int n = 3 * s->n_nodes;
    cfTriplets T;
    cfCsr K = {0};
    double lam = 0.0, *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    if (x && y && cf_triplets_init(&T, n, n) == CF_OK) {
        if (cf_soft_stiffness(s, s->x_rest, &T) == CF_OK && cf_csr_from_triplets(&T, &K) == CF_OK) {
            for (int i = 0; i < n; ++i) x[i] = 1.0 + 0.37 * (i % 7) - 0.11 * (i % 3);
            for (int it = 0; it < 50; ++it) {
                double nx = cf_vec_norm(n, x);
                if (!(nx > 0.0)) break;
                for (int i = 0; i < n; ++i) x[i] /= nx;
                cf_csr_mul_vec(&K, x, y);
                for (int i = 0; i < n; ++i) y[i] = s->fixed[i / 3] ? 0.0 : y[i] / s->mass[i / 3];
                lam = cf_vec_norm(n, y);
                memcpy(x, y, (size_t)n * sizeof *x);
            }
        }
        cf_triplets_free(&T);
    }
    cf_csr_free(&K);
    free(x);
    free(y);
    return lam;
}

/* a soft body's system is not finite: the explicit (lumped) step blew up, or the state did */
static cfStatus soft_blew_up(cfWorld *w, const cfSoftBody *s)
{
    if (cf_step_dual_form(w) && w->def.preconditioner == CF_PRECOND_LUMPED) {
        /* symplectic Euler with Rayleigh damping on the mode omega: stable for
           h < (2 / omega) (sqrt(1 + zeta^2) - zeta), zeta = (alpha / omega + beta omega) / 2 */
        double om = sqrt(soft_omega2(s));
        double zeta = om > 0.0 ? 0.5 * (s->damping_alpha / om + s->damping_beta * om) : 0.0;
        double hmax = om > 0.0 ? 2.0 / om * (sqrt(1.0 + zeta * zeta) - zeta) : INFINITY;
        return cf_step_fail(w, CF_DIVERGED, "soft body '%s' blew up at t = %g: the lumped preconditioner steps its forces "
                            "explicitly, stable only for h < %.3g s (its stiffest mode, omega_max = %.3g rad/s, damping "
                            "ratio %.3g), and h = %g: use a smaller step or the exact or block-diagonal preconditioner",
                            s->name, w->time, hmax, om, zeta, w->def.dt);
    }
    return cf_step_fail(w, CF_DIVERGED, "soft body '%s': its system is not finite at t = %g", s->name, w->time);
}

/* An explicit step cannot make more kinetic energy than the body had (kinetic and elastic) plus
   the work of gravity, |sum m_i (h g.u*_i + h^2 |g|^2 / 2)|, up to the method's O(h) error: the
   free velocity's kinetic energy above twice that bound is an unstable mode growing (it grows by
   a factor each step), caught while the state is still small enough to draw */
static bool explicit_energy_grew(const cfWorld *w, const cfSoftBody *s, const cfSoftStep *sw)
{
    double ke0 = 0.0, ke1 = 0.0, work = 0.0, h = w->def.dt, g2 = cfu_dot(w->def.gravity, w->def.gravity);
    for (int k = 0; k < s->n_nodes; ++k) {
        if (s->fixed[k]) continue;
        cfVec3 v1 = cfu_vec3(sw->vfree[3 * k], sw->vfree[3 * k + 1], sw->vfree[3 * k + 2]);
        ke0 += 0.5 * s->mass[k] * cfu_dot(sw->us[k], sw->us[k]);
        ke1 += 0.5 * s->mass[k] * cfu_dot(v1, v1);
        work += s->mass[k] * (h * cfu_dot(w->def.gravity, sw->us[k]) + 0.5 * h * h * g2);
    }
    return ke1 > 2.0 * (ke0 + cf_soft_elastic_energy(s, sw->xs) + fabs(work)) + 1e-12;
}

/* For a dual-form solver: the body's system (ch08.1) kept for the step (the rounds of CMR reuse
   it) and its unconstrained velocity A^-1 b by PCG with IC(0) (relative 1e-8, from u*), which is
   the new velocity when nothing touches the body and ICA's v* when something does */
static cfStatus soft_velocity_dual(cfWorld *w, const cfSoftBody *s, cfSoftStep *sw)
{
    int n = 3 * s->n_nodes;
    cf_csr_free(&sw->A);
    cfStatus st = soft_system(w, s, sw, &sw->A, sw->b);
    if (st == CF_OK && !cf_vec_finite(n, sw->b)) return soft_blew_up(w, s);
    cfLinSolver *S = NULL;
    double *work = NULL;
    if (st == CF_OK) st = cf_linsolver_setup(&sw->A, CF_LINSOLVE_PCG_IC0, 1e-8, &S);
    if (st == CF_OK && !(work = malloc((size_t)cf_linsolver_work_size(S) * sizeof *work))) st = CF_NO_MEMORY;
    if (st == CF_OK) {
        memcpy(sw->vfree, sw->us, (size_t)n * sizeof *sw->vfree);
        st = cf_linsolver_solve(S, sw->b, sw->vfree, work, NULL);
    }
    cf_linsolver_free(S);
    free(work);
    /* A = M is solved exactly; a failure means the explicit state has grown without bound */
    bool lumped = w->def.preconditioner == CF_PRECOND_LUMPED;
    if ((st == CF_DIVERGED || (st == CF_OK && !cf_vec_finite(n, sw->vfree))) && lumped) return soft_blew_up(w, s);
    if (st == CF_OK && lumped && explicit_energy_grew(w, s, sw)) return soft_blew_up(w, s);
    if (st != CF_OK)
        return cf_step_fail(w, st, "velocities: the system of soft body '%s' could not be solved (%s)", s->name,
                            cf_status_name(st));
    for (int k = 0; k < s->n_nodes; ++k) sw->u_new[k] = cfu_vec3(sw->vfree[3 * k], sw->vfree[3 * k + 1], sw->vfree[3 * k + 2]);
    return CF_OK;
}

/* Without contacts (and without a dual-form solver) u+ is solved here by conjugate gradients, as
   ch01.4's step does; the solve's stats are the step's when no contact solve follows */
static cfStatus soft_velocity_free(cfWorld *w, const cfSoftBody *s, cfSoftStep *sw, bool contact_solve)
{
    int n = s->n_nodes;
    cfCsr A = {0};
    double *b = malloc((size_t)3 * n * sizeof *b);
    cfStatus st = b ? soft_system(w, s, sw, &A, b) : CF_NO_MEMORY;
    if (st == CF_OK && !cf_vec_finite(3 * n, b)) {
        cf_csr_free(&A);
        free(b);
        return soft_blew_up(w, s);
    }
    double *sol = sw->u_flat;
    if (st == CF_OK) {
        for (int k = 0; k < n; ++k) memcpy(&sol[3 * k], &sw->us[k], 3 * sizeof *sol); /* warm start from u* */
        cfCgOptions opt = cf_cg_options_default(3 * n);
        opt.tol_rel = 1e-12;
        cfReport rep;
        cf_report_init(&rep, w->stats.solver_history, CF_STATS_HISTORY);
        st = cf_csr_cg(&A, b, sol, &opt, &rep);
        if (!contact_solve) cf_step_record_solve(&w->stats, &rep, CF_MEASURE_LINEAR, st);
    }
    if (st == CF_OK)
        for (int k = 0; k < n; ++k) sw->u_new[k] = cfu_vec3(sol[3 * k], sol[3 * k + 1], sol[3 * k + 2]);
    cf_csr_free(&A);
    free(b);
    if (st != CF_OK)
        return cf_step_fail(w, st, "velocities: the implicit system of soft body '%s' could not be solved (%s)", s->name,
                            cf_status_name(st));
    return CF_OK;
}

/* The implicit integrators of chapter 1 as one linear system A u+ = b assembled at (x*, u*) with
   step beta (ch01.4; BDF2 is implicit Euler with beta = 2h/3 about its extrapolations, ch01.5).
   With contacts the assemble stage turns the same system into the dual form. */
static cfStatus soft_velocity(cfWorld *w, cfSoftBody *s, cfSoftStep *sw, bool touched, bool contact_solve)
{
    double h = w->def.dt;
    sw->moved = false;
    if (w->def.soft_integrator == CF_SOFT_SEMI_IMPLICIT || w->def.soft_integrator == CF_SOFT_EXPLICIT)
        return soft_step_explicit(s, w->def.gravity, h, w->def.soft_integrator == CF_SOFT_SEMI_IMPLICIT);
    bool bdf2 = w->def.soft_integrator == CF_SOFT_BDF2 && s->has_prev;
    sw->beta = bdf2 ? 2.0 * h / 3.0 : h;
    for (int k = 0; k < s->n_nodes; ++k) {
        sw->xs[k] = bdf2 ? cfu_sub(cfu_scale(4.0 / 3.0, s->x[k]), cfu_scale(1.0 / 3.0, s->x_prev[k])) : s->x[k];
        sw->us[k] = bdf2 ? cfu_sub(cfu_scale(4.0 / 3.0, s->v[k]), cfu_scale(1.0 / 3.0, s->v_prev[k])) : s->v[k];
    }
    sw->moved = true;
    if (cf_step_dual_form(w)) return soft_velocity_dual(w, s, sw);
    if (touched) return CF_OK;
    return soft_velocity_free(w, s, sw, contact_solve);
}

/* one entry per soft body, each with room for its nodes */
static cfStatus soft_reserve(const cfWorld *w, cfSoftSteps *soft)
{
    if (w->n_soft > soft->cap) {
        cfSoftStep *s = realloc(soft->body, (size_t)w->n_soft * sizeof *s);
        if (!s) return CF_NO_MEMORY;
        memset(s + soft->cap, 0, (size_t)(w->n_soft - soft->cap) * sizeof *s);
        soft->body = s;
        soft->cap = w->n_soft;
    }
    for (int i = 0; i < w->n_soft; ++i) {
        cfSoftStep *sw = &soft->body[i];
        int n = w->soft[i].n_nodes;
        if (n <= sw->cap_nodes) continue;
        cfVec3 *xs = realloc(sw->xs, (size_t)n * sizeof *xs);
        if (xs) sw->xs = xs;
        cfVec3 *us = realloc(sw->us, (size_t)n * sizeof *us);
        if (us) sw->us = us;
        cfVec3 *un = realloc(sw->u_new, (size_t)n * sizeof *un);
        if (un) sw->u_new = un;
        double *uf = realloc(sw->u_flat, (size_t)3 * n * sizeof *uf);
        if (uf) sw->u_flat = uf;
        double *b = realloc(sw->b, (size_t)3 * n * sizeof *b);
        if (b) sw->b = b;
        double *vf = realloc(sw->vfree, (size_t)3 * n * sizeof *vf);
        if (vf) sw->vfree = vf;
        if (!xs || !us || !un || !uf || !b || !vf) return CF_NO_MEMORY;
        sw->cap_nodes = n;
    }
    return CF_OK;
}

/* fewer rigid bodies than this: their integration on one thread (docs/performance.md) */
#define CF_INTEGRATE_THREAD_MIN 500

/* The rigid bodies' velocity (@p positions false) or position updates of the implicit and
   semi-implicit integrators on the step's threads, each body alone as the loops below do it (the
   same bits). false, touching nothing, when the world is small or has one thread; else true, with
   *first the first body that failed (n_bodies: none) and *st its status (the bodies after it are
   updated too: the step's transaction undoes them with the rest when the step fails). */
static bool rigid_threaded(cfWorld *w, bool positions, int *first, cfStatus *st)
{
    const struct cfStepWork *k = cf_step_work(w);
    const cfWorldDef *d = &w->def;
    int T = k ? k->detect.threads : 1, n = w->n_bodies, bad = n;
    cfStatus bad_st = CF_OK;
    if (T < 2 || n < CF_INTEGRATE_THREAD_MIN || d->rigid_integrator == CF_RIGID_EXPLICIT) return false;
#pragma omp parallel for num_threads(T) schedule(static)
    for (int i = 0; i < n; ++i) {
        cfRigidBody *b = &w->bodies[i];
        cfStatus s = positions ? cf_rigid_integrate_position(b, d->dt) : cf_rigid_integrate_velocity(b, d->gravity, d->dt, d->gyroscopic);
        if (s != CF_OK) {
#pragma omp critical(cf_integrate_failure)
            if (i < bad) bad = i, bad_st = s;
        }
    }
    *first = bad;
    *st = bad_st;
    return true;
}

/* every rigid body's velocity update (explicit Euler: its position update first) */
static cfStatus rigid_velocities(cfWorld *w)
{
    const cfWorldDef *d = &w->def;
    int first;
    cfStatus fst;
    if (rigid_threaded(w, false, &first, &fst))
        return first == w->n_bodies ? CF_OK
                                    : cf_step_fail(w, fst, "velocities: velocity update of body '%s' failed (%s)",
                                                   w->bodies[first].name, cf_status_name(fst));
    for (int i = 0; i < w->n_bodies; ++i) {
        cfRigidBody *b = &w->bodies[i];
        /* explicit Euler moves with the old velocity first: same two updates, other order */
        if (d->rigid_integrator == CF_RIGID_EXPLICIT) {
            cfStatus st = cf_rigid_integrate_position(b, d->dt);
            if (st != CF_OK)
                return cf_step_fail(w, st, "velocities: position update of body '%s' failed (%s)", b->name, cf_status_name(st));
        }
        cfStatus st = cf_rigid_integrate_velocity(b, d->gravity, d->dt, d->gyroscopic);
        if (st != CF_OK)
            return cf_step_fail(w, st, "velocities: velocity update of body '%s' failed (%s)", b->name, cf_status_name(st));
    }
    return CF_OK;
}

cfStatus cf_stage_velocities(cfWorld *w, const cfContactList *contacts, cfSoftSteps *soft)
{
    if (soft_reserve(w, soft) != CF_OK) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    cfStatus rst = rigid_velocities(w);
    if (rst != CF_OK) return rst;
    bool contact_solve = cf_step_solving(w, contacts);
    for (int i = 0; i < w->n_soft; ++i) {
        cfStatus st = soft_velocity(w, &w->soft[i], &soft->body[i], contact_solve && cf_soft_touched(contacts, i), contact_solve);
        if (st != CF_OK) return st;
    }
    return CF_OK;
}

/* ---- CF_STAGE_POSITIONS ---------------------------------------------------------------------- */

cfStatus cf_stage_positions(cfWorld *w, const cfSoftSteps *soft)
{
    int first;
    cfStatus fst;
    if (rigid_threaded(w, true, &first, &fst)) {
        if (first < w->n_bodies)
            return cf_step_fail(w, fst, "positions: body '%s' (%s)", w->bodies[first].name, cf_status_name(fst));
    } else if (w->def.rigid_integrator != CF_RIGID_EXPLICIT) /* explicit Euler moved before the velocities */
        for (int i = 0; i < w->n_bodies; ++i) {
            cfStatus st = cf_rigid_integrate_position(&w->bodies[i], w->def.dt);
            if (st != CF_OK) return cf_step_fail(w, st, "positions: body '%s' (%s)", w->bodies[i].name, cf_status_name(st));
        }
    /* soft bodies of the implicit integrators: x+ = x* + beta u+, the old state kept for BDF2 */
    for (int i = 0; i < w->n_soft; ++i) {
        cfSoftBody *s = &w->soft[i];
        const cfSoftStep *sw = &soft->body[i];
        if (!sw->moved) continue;
        size_t bytes = (size_t)s->n_nodes * sizeof(cfVec3);
        memcpy(s->x_prev, s->x, bytes);
        memcpy(s->v_prev, s->v, bytes);
        s->has_prev = true;
        for (int n = 0; n < s->n_nodes; ++n) {
            s->v[n] = sw->u_new[n];
            if (!s->fixed[n]) s->x[n] = cfu_mul_add(sw->xs[n], sw->beta, sw->u_new[n]);
        }
    }
    return CF_OK;
}
