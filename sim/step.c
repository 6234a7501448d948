/* SPDX-License-Identifier: MIT */
/* The world's step: the stages of cf_world.h in execution order, each a function, and the one
   apply that maps every solver's impulses to velocities. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch01.h"
#include "cf/cf_ch02.h"
#include "cf/cf_ch08.h"
#include "cf/cf_ch10.h"
#include "cf/cf_solvers.h"
#include "internal.h"

/* A soft body's share of the step: the state its implicit system is built at (x*, u*, beta;
   ch01.4/ch01.5), its contacts in the dual form (ch02.8) and its new velocity. */
typedef struct SoftWork {
    double beta;          /* step of the implicit system: h (implicit Euler) or 2h/3 (BDF2) */
    cfVec3 *xs;           /* x*: positions the forces are linearized about; x+ = x* + beta u+ */
    cfVec3 *us;           /* u*: the velocity in b = M u* + beta f */
    cfVec3 *u_new;        /* u+ (N) */
    bool moved;           /* u_new holds this step's velocity (an implicit integrator ran) */
    int nc;               /* contacts on this body */
    int *global;          /* their indices in the world's contact list */
    cfSoftContact *sc;    /* the contacts seen from this body (ch02.4's barycentric form) */
    double *lam;          /* their impulses (3 nc) */
    double *u_flat;       /* u+ as 3N doubles */
    cfSoftDual dual;      /* A, b, J, the factor (ch02.8) */
    cfFrictionProblem fc; /* W_s = J A^-1 J^T, q_s = J A^-1 b */
    cfCsr A;              /* the dual form's system of this step (ch08.1) and b; kept over the rounds of CMR */
    double *b;
    double *vfree;        /* its unconstrained velocity A^-1 b (3 N) */
    int cap_nodes;        /* nodes allocated in the arrays above */
    int cap_nc;           /* contacts allocated */
} SoftWork;

/* scratch of the step, kept between steps to reuse its memory */
struct cfStepWork {
    cfFormWork form;        /* the solver's form and work space (every solver, rows included) */
    cfFrictionProblem fc;   /* the assembled contact problem (assembled forms) */
    cfContactProblem prob;  /* what the solver gets */
    cfSolverParams par;     /* the solver's parameters of this step */
    double erp, cfm;        /* this step's ERP and CFM (cf_world_erp_cfm()) */
    double *lambda;         /* 3 nc impulses */
    double *impact;         /* nc: Newton's impact target e u_n^- (< 0) of each contact, 0 without impact */
    bool impacts;           /* some contact impacts this step (else the problem's impact is NULL) */
    int cap_lambda;
    double *ustar;          /* 6 nb: rigid velocities before the solve */
    double *pv;             /* 6 nb: split-impulse pseudo-velocities */
    int cap_bodies;
    SoftWork *soft;         /* per soft body */
    int cap_soft;
    /* the dual form (CF_FORM_DUAL): the system, the velocities the solver returns, the offsets of
       every rigid body's and soft body's unknowns in it (-1: not in the system) */
    cfDualSystem dual;
    double *u_dual;
    int *rigid_off, *soft_off;
    cfContactList spare;    /* the contact list of two steps ago: this step's detection reuses its memory */
    struct cfManifoldCache *manifolds; /* persistent manifolds (def.manifold_tolerance > 0) and the detection threads' scratch */
    int threads;            /* threads of the stages that have them: cf_threads() when the work space was made */
};

static void soft_work_release(SoftWork *sw)
{
    cf_soft_dual_free(&sw->dual);
    cf_fc_free(&sw->fc);
    sw->nc = 0;
}

void cf_step_work_free(struct cfStepWork *k)
{
    if (!k) return;
    cf_form_work_free(&k->form);
    cf_fc_free(&k->fc);
    free(k->lambda);
    free(k->impact);
    free(k->ustar);
    free(k->pv);
    for (int i = 0; i < k->cap_soft; ++i) {
        SoftWork *sw = &k->soft[i];
        soft_work_release(sw);
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
    free(k->soft);
    cf_dual_free(&k->dual);
    free(k->u_dual);
    free(k->rigid_off);
    free(k->soft_off);
    cf_contacts_free(&k->spare);
    cf_manifold_cache_free(k->manifolds);
    free(k);
}

static cfStatus work_reserve(cfWorld *w)
{
    if (!w->work) {
        if (!(w->work = calloc(1, sizeof *w->work))) return CF_NO_MEMORY;
        w->work->threads = cf_threads();
    }
    struct cfStepWork *k = w->work;
    int nb = w->n_bodies, nc = w->contacts.count;
    if (6 * nb > k->cap_bodies) {
        double *u = realloc(k->ustar, (size_t)6 * nb * sizeof *u);
        if (u) k->ustar = u;
        double *pv = realloc(k->pv, (size_t)6 * nb * sizeof *pv);
        if (pv) k->pv = pv;
        if (!u || !pv) return CF_NO_MEMORY;
        k->cap_bodies = 6 * nb;
    }
    if (3 * nc > k->cap_lambda) {
        double *l = realloc(k->lambda, (size_t)3 * nc * sizeof *l);
        if (l) k->lambda = l;
        double *im = realloc(k->impact, (size_t)nc * sizeof *im);
        if (im) k->impact = im;
        if (!l || !im) return CF_NO_MEMORY;
        k->cap_lambda = 3 * nc;
    }
    if (w->n_soft > k->cap_soft) {
        SoftWork *s = realloc(k->soft, (size_t)w->n_soft * sizeof *s);
        if (!s) return CF_NO_MEMORY;
        memset(s + k->cap_soft, 0, (size_t)(w->n_soft - k->cap_soft) * sizeof *s);
        k->soft = s;
        k->cap_soft = w->n_soft;
    }
    for (int i = 0; i < w->n_soft; ++i) {
        SoftWork *sw = &k->soft[i];
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

/* a one-line reason for the step's failure (the first one written wins) */
static cfStatus fail(cfWorld *w, cfStatus st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static cfStatus fail(cfWorld *w, cfStatus st, const char *fmt, ...)
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

static bool solving(const cfWorld *w) { return w->def.solver != NULL && w->contacts.count > 0; }

/* the stats of the step's last solve */
static void record_solve(cfStepStats *stats, const cfReport *rep, cfMeasure measure, cfStatus st)
{
    stats->solver_iterations = rep->iterations;
    stats->solver_residual = rep->residual;
    stats->solver_history_len = rep->history_len;
    stats->solver_measure = measure;
    stats->solver_status = st;
}

/* ---- CF_STAGE_DETECT ------------------------------------------------------------------------- */

/* contacts of this step; impulses of persisting contacts (same sides and feature) are carried over
   from the previous step for warm starting, then by proximity */
static cfStatus stage_detect(cfWorld *w)
{
    if (w->def.detector == CF_DETECT_NONE) {
        cf_contacts_clear(&w->contacts);
        return CF_OK;
    }
    cfDetectOptions opt = cf_detect_options_default();
    opt.margin = w->def.contact_margin;
    opt.broadphase = w->def.detector == CF_DETECT_ALL_PAIRS ? CF_BROADPHASE_ALL_PAIRS : CF_BROADPHASE_SAP;
    /* two lists take turns (the previous step's and this one's): no allocation in a steady state */
    struct cfStepWork *k = w->work;
    cfContactList prev = w->contacts;
    w->contacts = k->spare;
    cfStatus st = cf_detect_world_cached(w, &opt, w->def.manifold_tolerance, k->threads, &k->manifolds, &w->contacts, NULL);
    if (st == CF_OK && w->n_soft > 0) st = cf_detect_soft(w, &opt, &w->contacts, NULL);
    if (st == CF_OK && prev.count > 0 && cf_contacts_carry(&w->contacts, &prev, w->def.solver != NULL) < 0)
        st = CF_NO_MEMORY;
    if (st == CF_OK) {
        k->spare = prev;
    } else {
        k->spare = w->contacts;
        w->contacts = prev; /* nothing is lost on failure */
    }
    cf_contacts_clear(&k->spare);
    if (st == CF_BAD_INPUT) return fail(w, st, "detect: a body's position or orientation is not finite");
    w->stats.n_contacts = w->contacts.count;
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

/* the world's friction law for the contact's two sides (NULL: keep the bodies' sqrt(mu_a mu_b));
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

/* the friction law of the world's pair (if any) on contact @p c of @p list: mu, the law and its
   direction at the contact point (in c's extra, made in the list's store when the law is not
   isotropic or the pair is Matchstick's, which cf_contact_matchstick() writes); returns the pair
   (NULL: the bodies' own mu) in *pair; CF_NO_MEMORY when an extra cannot be made */
static cfStatus contact_law(const cfWorld *w, cfContactList *list, cfContact *c, const cfFrictionPair **pair, int *a_is)
{
    const cfFrictionPair *p = *pair = pair_of(w, c, a_is);
    if (!p) return CF_OK;
    c->mu = p->mu;
    if (!c->extra && p->law.law == CF_LAW_ISOTROPIC && !p->matchstick) return CF_OK; /* the zeroed default law */
    cfContactExtra *x = cf_contacts_extra(list, c);
    if (!x) return CF_NO_MEMORY;
    x->friction = p->law;
    if (p->law.law != CF_LAW_ISOTROPIC && p->field.kind != CF_FIELD_WORLD)
        x->friction.dir = cf_direction_field_at(&p->field, c->p, NULL);
    return CF_OK;
}

static const char *side_name(const cfWorld *w, const cfContact *c, int side);

/* the rigid body of side @p side, or NULL */
static const cfRigidBody *side_body(const cfWorld *w, const cfContact *c, int side)
{
    int i = side == 0 ? c->body_a : c->body_b;
    return i >= 0 ? &w->bodies[i] : NULL;
}

/* Chapter 10: the law of an anisotropic contact as its ellipse in the contact frame (the frame's t
   along the ellipse's first axis): Matchstick from the two structure directions at the contact
   point (ch10.1), orthotropic and tensor laws from their direction (ch10.5 for the tensor's cone) */
static cfStatus anisotropic_frame(cfWorld *w, cfContact *c, const cfFrictionPair *p, int a_is)
{
    cfStatus st;
    if (p && p->matchstick) {
        cfVec3 s_a = cf_direction_field_at(&p->structure[a_is], c->p, side_body(w, c, 0));
        cfVec3 s_b = cf_direction_field_at(&p->structure[1 - a_is], c->p, side_body(w, c, 1));
        cfMatchstick m = {.mu = p->mu, .mu_t = p->aniso[0], .mu_b = p->aniso[1]};
        st = cf_contact_matchstick(c, s_a, s_b, &m);
    } else {
        st = cf_contact_ellipse_frame(c);
    }
    if (st != CF_OK)
        return fail(w, st, "contacts: no ellipse for the %s law of the contact between '%s' and '%s' (chapter 10: %s)",
                    p && p->matchstick ? "matchstick" : cf_friction_law_name(cf_contact_friction(c)->law), side_name(w, c, 0),
                    side_name(w, c, 1), cf_status_name(st));
    return CF_OK;
}

static const char *side_name(const cfWorld *w, const cfContact *c, int side)
{
    switch (cf_contact_side_kind(c, side)) {
    case CF_SIDE_RIGID: return w->bodies[side == 0 ? c->body_a : c->body_b].name;
    case CF_SIDE_SOFT: return w->soft[cf_contact_soft(c, side)->body].name;
    case CF_SIDE_STATIC:
    case CF_SIDE_KIND_COUNT: break;
    }
    return "the environment";
}

/* contact frames (ch02.2) and friction laws of this step's contacts; only when a solver will use
   them, which must be able to take them */
static cfStatus stage_contacts(cfWorld *w)
{
    if (!solving(w)) return CF_OK;
    const cfSolver *s = w->def.solver;
    for (int a = 0; a < w->contacts.count; ++a) {
        cfContact *c = &w->contacts.items[a];
        int a_is = 0;
        const cfFrictionPair *p;
        if (contact_law(w, &w->contacts, c, &p, &a_is) != CF_OK) return fail(w, CF_NO_MEMORY, "out of memory");
        bool anisotropic = !cf_contact_isotropic(c) || (p && p->matchstick);
        bool soft = cf_contact_has_soft(c);
        if (soft && s->form == CF_FORM_ROWS) {
            char names[512];
            return fail(w, CF_BAD_INPUT,
                        "solver '%s' works on rigid rows and cannot take the soft contact between '%s' and '%s'; "
                        "solvers of assembled problems can: %s",
                        s->name, side_name(w, c, 0), side_name(w, c, 1),
                        cf_solver_names(CF_SOLVERS_SOFT, names, sizeof names));
        }
        if (anisotropic && (s->form == CF_FORM_ROWS || s->form == CF_FORM_DUAL)) {
            char names[512];
            return fail(w, CF_BAD_INPUT, "solver '%s' takes isotropic friction only; the contact "
                        "between '%s' and '%s' has the %s law (chapter 10; every solver of an assembled problem takes it: %s)",
                        s->name, side_name(w, c, 0), side_name(w, c, 1),
                        p && p->matchstick ? "matchstick" : cf_friction_law_name(cf_contact_friction(c)->law),
                        cf_solver_names(CF_SOLVERS_ASSEMBLED, names, sizeof names));
        }
        for (int side = 0; side < 2 && soft; ++side) {
            const cfSoftSide *ss = cf_contact_soft(c, side);
            if (ss && w->def.soft_integrator != CF_SOFT_IMPLICIT && w->def.soft_integrator != CF_SOFT_BDF2)
                return fail(w, CF_BAD_INPUT, "soft body '%s' is touched, but the soft integrator '%s' takes no contact "
                            "impulses (use implicit or bdf2)",
                            w->soft[ss->body].name, cf_soft_integrator_name(w->def.soft_integrator));
            if (ss && w->soft[ss->body].consistent_mass && s->form != CF_FORM_DUAL)
                return fail(w, CF_BAD_INPUT, "soft body '%s' has consistent mass: its contacts need a dual-form solver "
                            "(chapter 8's 'dual'), solver '%s' builds a lumped-mass dual form", w->soft[ss->body].name, s->name);
        }
        cfStatus st = cf_contact_frame(c->n, &c->t, &c->b);
        if (st != CF_OK) return fail(w, st, "contacts: no frame for a normal of contact %d (ch02.2: %s)", a, cf_status_name(st));
        if (anisotropic && (st = anisotropic_frame(w, c, p, a_is)) != CF_OK) return st;
        if (!w->def.warm_start) c->lambda[0] = c->lambda[1] = c->lambda[2] = 0.0;
    }
    return CF_OK;
}

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

/* is side @p side of @p c a point of soft body i? */
static bool on_soft(const cfContact *c, int side, int i)
{
    const cfSoftSide *s = cf_contact_soft(c, side);
    return s && s->body == i;
}

/* does any contact of this step touch soft body i? */
static bool soft_touched(const cfWorld *w, int i)
{
    for (int a = 0; a < w->contacts.count; ++a) {
        const cfContact *c = &w->contacts.items[a];
        if (on_soft(c, 0, i) || on_soft(c, 1, i)) return true;
    }
    return false;
}

static bool dual_form(const cfWorld *w) { return w->def.solver && w->def.solver->form == CF_FORM_DUAL; }

/* A soft body's linear system at (x*, u*) with step beta: chapter 1's implicit system (ch01.4,
   lumped mass), or chapter 8's (ch08.1) for a dual-form solver, whose preconditioner decides
   implicit or explicit (lumped), and for a body with consistent mass */
static cfStatus soft_system(const cfWorld *w, int i, cfCsr *A, double *b)
{
    const cfSoftBody *s = &w->soft[i];
    const SoftWork *sw = &w->work->soft[i];
    if (dual_form(w) || s->consistent_mass)
        return cf_soft_system(s, w->def.gravity, sw->beta, sw->xs, sw->us,
                              !dual_form(w) || w->def.preconditioner != CF_PRECOND_LUMPED, A, b);
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
static cfStatus soft_blew_up(cfWorld *w, int i)
{
    const cfSoftBody *s = &w->soft[i];
    if (dual_form(w) && w->def.preconditioner == CF_PRECOND_LUMPED) {
        /* symplectic Euler with Rayleigh damping on the mode omega: stable for
           h < (2 / omega) (sqrt(1 + zeta^2) - zeta), zeta = (alpha / omega + beta omega) / 2 */
        double om = sqrt(soft_omega2(s));
        double zeta = om > 0.0 ? 0.5 * (s->damping_alpha / om + s->damping_beta * om) : 0.0;
        double hmax = om > 0.0 ? 2.0 / om * (sqrt(1.0 + zeta * zeta) - zeta) : INFINITY;
        return fail(w, CF_DIVERGED, "soft body '%s' blew up at t = %g: the lumped preconditioner steps its forces "
                    "explicitly, stable only for h < %.3g s (its stiffest mode, omega_max = %.3g rad/s, damping ratio "
                    "%.3g), and h = %g: use a smaller step or the exact or block-diagonal preconditioner",
                    s->name, w->time, hmax, om, zeta, w->def.dt);
    }
    return fail(w, CF_DIVERGED, "soft body '%s': its system is not finite at t = %g", s->name, w->time);
}

/* An explicit step cannot make more kinetic energy than the body had (kinetic and elastic) plus
   the work of gravity, |sum m_i (h g.u*_i + h^2 |g|^2 / 2)|, up to the method's O(h) error: the
   free velocity's kinetic energy above twice that bound is an unstable mode growing (it grows by
   a factor each step), caught while the state is still small enough to draw */
static bool explicit_energy_grew(const cfWorld *w, int i)
{
    const cfSoftBody *s = &w->soft[i];
    const SoftWork *sw = &w->work->soft[i];
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
static cfStatus soft_velocity_dual(cfWorld *w, int i)
{
    const cfSoftBody *s = &w->soft[i];
    SoftWork *sw = &w->work->soft[i];
    int n = 3 * s->n_nodes;
    cf_csr_free(&sw->A);
    cfStatus st = soft_system(w, i, &sw->A, sw->b);
    if (st == CF_OK && !cf_vec_finite(n, sw->b)) return soft_blew_up(w, i);
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
    if ((st == CF_DIVERGED || (st == CF_OK && !cf_vec_finite(n, sw->vfree))) && lumped) return soft_blew_up(w, i);
    if (st == CF_OK && lumped && explicit_energy_grew(w, i)) return soft_blew_up(w, i);
    if (st != CF_OK)
        return fail(w, st, "velocities: the system of soft body '%s' could not be solved (%s)", s->name, cf_status_name(st));
    for (int k = 0; k < s->n_nodes; ++k) sw->u_new[k] = cfu_vec3(sw->vfree[3 * k], sw->vfree[3 * k + 1], sw->vfree[3 * k + 2]);
    return CF_OK;
}

/* The implicit integrators of chapter 1 as one linear system A u+ = b assembled at (x*, u*) with
   step beta (ch01.4; BDF2 is implicit Euler with beta = 2h/3 about its extrapolations, ch01.5).
   Without contacts u+ is solved here by conjugate gradients (as ch01.4's step does); with
   contacts the assemble stage turns the same system into the dual form. */
static cfStatus soft_velocity(cfWorld *w, int i, bool touched)
{
    cfSoftBody *s = &w->soft[i];
    SoftWork *sw = &w->work->soft[i];
    double h = w->def.dt;
    int n = s->n_nodes;
    sw->moved = false;
    if (w->def.soft_integrator == CF_SOFT_SEMI_IMPLICIT || w->def.soft_integrator == CF_SOFT_EXPLICIT)
        return soft_step_explicit(s, w->def.gravity, h, w->def.soft_integrator == CF_SOFT_SEMI_IMPLICIT);
    bool bdf2 = w->def.soft_integrator == CF_SOFT_BDF2 && s->has_prev;
    sw->beta = bdf2 ? 2.0 * h / 3.0 : h;
    for (int k = 0; k < n; ++k) {
        sw->xs[k] = bdf2 ? cfu_sub(cfu_scale(4.0 / 3.0, s->x[k]), cfu_scale(1.0 / 3.0, s->x_prev[k])) : s->x[k];
        sw->us[k] = bdf2 ? cfu_sub(cfu_scale(4.0 / 3.0, s->v[k]), cfu_scale(1.0 / 3.0, s->v_prev[k])) : s->v[k];
    }
    sw->moved = true;
    if (dual_form(w)) return soft_velocity_dual(w, i);
    if (touched) return CF_OK;
    cfCsr A = {0};
    double *b = malloc((size_t)3 * n * sizeof *b);
    cfStatus st = b ? soft_system(w, i, &A, b) : CF_NO_MEMORY;
    if (st == CF_OK && !cf_vec_finite(3 * n, b)) {
        cf_csr_free(&A);
        free(b);
        return soft_blew_up(w, i);
    }
    double *sol = sw->u_flat;
    if (st == CF_OK) {
        for (int k = 0; k < n; ++k) memcpy(&sol[3 * k], &sw->us[k], 3 * sizeof *sol); /* warm start from u* */
        cfCgOptions opt = cf_cg_options_default(3 * n);
        opt.tol_rel = 1e-12;
        cfReport rep;
        cf_report_init(&rep, w->stats.solver_history, CF_STATS_HISTORY);
        st = cf_csr_cg(&A, b, sol, &opt, &rep);
        if (!solving(w)) record_solve(&w->stats, &rep, CF_MEASURE_LINEAR, st);
    }
    if (st == CF_OK)
        for (int k = 0; k < n; ++k) sw->u_new[k] = cfu_vec3(sol[3 * k], sol[3 * k + 1], sol[3 * k + 2]);
    cf_csr_free(&A);
    free(b);
    if (st != CF_OK) return fail(w, st, "velocities: the implicit system of soft body '%s' could not be solved (%s)", s->name, cf_status_name(st));
    return CF_OK;
}

static cfStatus stage_velocities(cfWorld *w)
{
    const cfWorldDef *d = &w->def;
    for (int i = 0; i < w->n_bodies; ++i) {
        cfRigidBody *b = &w->bodies[i];
        /* explicit Euler moves with the old velocity first: same two updates, other order */
        if (d->rigid_integrator == CF_RIGID_EXPLICIT) {
            cfStatus st = cf_rigid_integrate_position(b, d->dt);
            if (st != CF_OK) return fail(w, st, "velocities: position update of body '%s' failed (%s)", b->name, cf_status_name(st));
        }
        cfStatus st = cf_rigid_integrate_velocity(b, d->gravity, d->dt, d->gyroscopic);
        if (st != CF_OK) return fail(w, st, "velocities: velocity update of body '%s' failed (%s)", b->name, cf_status_name(st));
    }
    for (int i = 0; i < w->n_soft; ++i) {
        cfStatus st = soft_velocity(w, i, solving(w) && soft_touched(w, i));
        if (st != CF_OK) return st;
    }
    return CF_OK;
}

/* ---- CF_STAGE_ASSEMBLE ----------------------------------------------------------------------- */

static cfSolverParams solver_params(const cfWorldDef *d)
{
    cfSolverParams p = cf_solver_params_default();
    p.max_iter = d->solver_iterations;
    p.tol = d->solver_tolerance;
    p.omega = d->relaxation;
    p.ordering = d->ordering;
    p.r_factor = d->r_factor;
    p.seed = d->seed;
    p.friction = d->friction_model;
    p.directions = d->friction_directions;
    p.warm_start = d->warm_start;
    p.preconditioner = d->preconditioner;
    return p;
}

/* Soft body i's contacts in ch02.4's barycentric form (the other side is static from its point
   of view), then its dual form W_i = J_i A_i^-1 J_i^T, q_i = J_i A_i^-1 b_i (ch02.8) at the
   state of its implicit system. */
static cfStatus soft_dual(cfWorld *w, int i)
{
    SoftWork *sw = &w->work->soft[i];
    soft_work_release(sw);
    int m = 0;
    for (int a = 0; a < w->contacts.count; ++a) {
        const cfContact *c = &w->contacts.items[a];
        m += on_soft(c, 0, i) || on_soft(c, 1, i);
    }
    if (m > sw->cap_nc) {
        cfSoftContact *sc = realloc(sw->sc, (size_t)m * sizeof *sc);
        if (sc) sw->sc = sc;
        int *global = realloc(sw->global, (size_t)m * sizeof *global);
        if (global) sw->global = global;
        double *lam = realloc(sw->lam, (size_t)3 * m * sizeof *lam);
        if (lam) sw->lam = lam;
        if (!sc || !global || !lam) return CF_NO_MEMORY;
        sw->cap_nc = m;
    }
    m = 0;
    for (int a = 0; a < w->contacts.count; ++a) {
        const cfContact *c = &w->contacts.items[a];
        bool on_a = on_soft(c, 0, i), on_b = on_soft(c, 1, i);
        if (!on_a && !on_b) continue;
        cfSoftContact *sc = &sw->sc[m];
        memset(sc, 0, sizeof *sc);
        if (on_a) {
            const cfSoftSide *s = &c->extra->soft_a;
            sc->na = s->n;
            memcpy(sc->node_a, s->node, sizeof sc->node_a);
            memcpy(sc->w_a, s->w, sizeof sc->w_a);
        }
        if (on_b) {
            const cfSoftSide *s = &c->extra->soft_b;
            sc->nb = s->n;
            memcpy(sc->node_b, s->node, sizeof sc->node_b);
            memcpy(sc->w_b, s->w, sizeof sc->w_b);
        }
        sc->p = c->p;
        sc->n = c->n;
        sc->t = c->t;
        sc->b = c->b;
        sc->phi = c->phi;
        sc->mu = c->mu;
        sw->global[m++] = a;
    }
    sw->nc = m;
    /* the implicit system at (x*, u*) with step beta is ch02.8's system of a body in that state */
    cfSoftBody view = w->soft[i];
    view.x = sw->xs;
    view.v = sw->us;
    cfStatus st = cf_soft_dual(&view, w->def.gravity, sw->beta, sw->sc, m, &sw->dual, &sw->fc);
    if (st != CF_OK)
        return fail(w, st, "assemble: the dual form of soft body '%s' failed (ch02.8: %s)", w->soft[i].name, cf_status_name(st));
    return CF_OK;
}

/* one block row of the merged W: (column, 9 values), summed over the sources */
typedef struct Block {
    int col;
    double v[9];
} Block;

static int block_cmp(const void *x, const void *y)
{
    const Block *p = x, *q = y;
    return (p->col > q->col) - (p->col < q->col);
}

/* W = W_rigid + sum_i P_i W_i P_i^T and q = q_rigid + sum_i P_i q_i, P_i mapping soft body i's
   contacts to their places in the world's list */
static cfStatus merge_soft(cfWorld *w)
{
    struct cfStepWork *k = w->work;
    int nc = w->contacts.count;
    cfFrictionProblem *fc = &k->fc;
    /* every block, gathered per block row */
    int *count = calloc((size_t)nc + 1, sizeof *count);
    if (!count) return CF_NO_MEMORY;
    for (int a = 0; a < nc; ++a) count[a + 1] += fc->W.rowptr[a + 1] - fc->W.rowptr[a];
    for (int i = 0; i < w->n_soft; ++i) {
        const SoftWork *sw = &w->work->soft[i];
        for (int r = 0; r < sw->nc; ++r) count[sw->global[r] + 1] += sw->fc.W.rowptr[r + 1] - sw->fc.W.rowptr[r];
    }
    for (int a = 0; a < nc; ++a) count[a + 1] += count[a];
    Block *blk = malloc((size_t)(count[nc] > 0 ? count[nc] : 1) * sizeof *blk);
    int *fill = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *fill);
    cfBsr W = {0};
    cfStatus st = (blk && fill) ? cf_bsr_init(&W, nc, nc, 3, 3) : CF_NO_MEMORY;
    if (st == CF_OK) {
        memcpy(fill, count, (size_t)nc * sizeof *fill);
        for (int a = 0; a < nc; ++a)
            for (int e = fc->W.rowptr[a]; e < fc->W.rowptr[a + 1]; ++e) {
                Block *b = &blk[fill[a]++];
                b->col = fc->W.colidx[e];
                memcpy(b->v, &fc->W.val[9 * e], sizeof b->v);
            }
        for (int i = 0; i < w->n_soft; ++i) {
            const SoftWork *sw = &w->work->soft[i];
            for (int r = 0; r < sw->nc; ++r) {
                int a = sw->global[r];
                for (int e = sw->fc.W.rowptr[r]; e < sw->fc.W.rowptr[r + 1]; ++e) {
                    Block *b = &blk[fill[a]++];
                    b->col = sw->global[sw->fc.W.colidx[e]];
                    memcpy(b->v, &sw->fc.W.val[9 * e], sizeof b->v);
                }
                for (int c = 0; c < 3; ++c) fc->q[3 * a + c] += sw->fc.q[3 * r + c];
            }
        }
    }
    /* per row: sort by column, sum equal columns, add */
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        Block *row = &blk[count[a]];
        int n = count[a + 1] - count[a];
        qsort(row, (size_t)n, sizeof *row, block_cmp);
        for (int e = 0; e < n && st == CF_OK;) {
            Block sum = row[e];
            int f = e + 1;
            for (; f < n && row[f].col == sum.col; ++f)
                for (int v = 0; v < 9; ++v) sum.v[v] += row[f].v[v];
            st = cf_bsr_add_block(&W, a, sum.col, sum.v);
            e = f;
        }
    }
    if (st == CF_OK) {
        cf_bsr_finalize(&W);
        cf_bsr_free(&fc->W);
        fc->W = W;
    } else {
        cf_bsr_free(&W);
    }
    free(count);
    free(blk);
    free(fill);
    return st;
}

/* The assembled contact problem of every contact: rigid sides by ch02.5 (a soft side counts as
   static there), soft sides by their dual forms (ch02.8), merged; then the bias and CFM by
   ch02.7 with the world's rule (an open gap may close within the step: bias phi/h; a penetration
   is removed by the fraction erp: bias erp phi/h). */
/* What the assembled problem will take: W couples every two contacts that share a body (a block of
   9 doubles, and about as much again for the boxed LCP's copy and the Jacobian), a soft body's dual
   form a dense (3 m)^2 matrix for its m contacts. Refused beyond def.max_matrix_mb. */
static cfStatus check_size(cfWorld *w)
{
    int nc = w->contacts.count;
    int *per = calloc((size_t)(w->n_bodies + w->n_soft + 1), sizeof *per);
    if (!per) return CF_NO_MEMORY;
    for (int a = 0; a < nc; ++a) {
        const cfContact *c = &w->contacts.items[a];
        for (int s = 0; s < 2; ++s) {
            int b = s == 0 ? c->body_a : c->body_b;
            const cfSoftSide *ss = cf_contact_soft(c, s);
            if (b >= 0 && !w->bodies[b].fixed) per[b]++;
            if (ss) per[w->n_bodies + ss->body]++;
        }
    }
    double blocks = nc, dense = 0.0;
    for (int i = 0; i < w->n_bodies + w->n_soft; ++i) blocks += (double)per[i] * per[i];
    for (int i = 0; i < w->n_soft; ++i) dense += 9.0 * per[w->n_bodies + i] * per[w->n_bodies + i] * sizeof(double);
    free(per);
    double mb = (blocks * 200.0 + dense) / (1024.0 * 1024.0);
    if (mb > w->def.max_matrix_mb)
        return fail(w, CF_BAD_INPUT,
                    "assemble: solver '%s' needs the assembled problem of %d contacts, about %.0f MB (every two contacts "
                    "that share a body are coupled), more than max_matrix_mb = %g: use a matrix-free solver (pgs) or "
                    "raise world.max_matrix_mb",
                    w->def.solver->name, nc, mb, w->def.max_matrix_mb);
    return CF_OK;
}

static cfStatus assemble_fc3d(cfWorld *w, double erp)
{
    struct cfStepWork *k = w->work;
    int nc = w->contacts.count;
    cf_fc_free(&k->fc);
    cfStatus size = check_size(w);
    if (size != CF_OK) return size;
    cfStatus st = cf_friction_problem_rigid(w->bodies, w->n_bodies, w->contacts.items, nc, &k->fc);
    if (st != CF_OK) return fail(w, st, "assemble: the rigid contact problem failed (ch02.5: %s)", cf_status_name(st));
    bool soft = false;
    for (int i = 0; i < w->n_soft && st == CF_OK; ++i) {
        if (soft_touched(w, i)) {
            soft = true;
            st = soft_dual(w, i);
        } else {
            /* no contact this step: nothing of the last step's dual form (its contact count and
               indices into that step's list) may reach the merge or the apply */
            soft_work_release(&k->soft[i]);
        }
    }
    if (st == CF_OK && soft) st = merge_soft(w);
    if (st != CF_OK) return fail(w, st, "assemble: %s", cf_status_name(st));
    /* the ellipses of the anisotropic contacts (chapter 10), in their frames */
    bool ellipses = false;
    for (int a = 0; a < nc; ++a) ellipses |= !cf_contact_isotropic(&w->contacts.items[a]);
    if (ellipses) {
        if (!(k->fc.ellipse = malloc((size_t)2 * nc * sizeof *k->fc.ellipse))) return fail(w, CF_NO_MEMORY, "out of memory");
        for (int a = 0; a < nc; ++a) {
            const cfContact *c = &w->contacts.items[a];
            bool iso = cf_contact_isotropic(c);
            k->fc.ellipse[2 * a] = iso ? c->mu : c->extra->friction.coef[0];
            k->fc.ellipse[2 * a + 1] = iso ? c->mu : c->extra->friction.coef[1];
        }
    }
    double *phi = k->lambda; /* scratch until the solve stage fills it */
    for (int a = 0; a < nc; ++a) {
        double g = w->contacts.items[a].phi;
        phi[a] = g >= 0.0 ? g : erp * g;
        if (k->impacts && k->impact[a] < 0.0) phi[a] = fmin(phi[a], w->def.dt * k->impact[a]);
    }
    st = cf_stabilize(&k->fc, phi, w->def.dt, k->cfm, 1.0);
    if (st != CF_OK) return fail(w, st, "assemble: bias and CFM (ch02.7: %s)", cf_status_name(st));
    return CF_OK;
}

/* ---- the dual form (chapter 8) ---- */

/* What the dual form will take: the preconditioners that build W_A hold it dense, (3 nc)^2 doubles
   (nc^2 without friction); the others a few blocks per contact */
static cfStatus check_size_dual(cfWorld *w)
{
    int nc = w->contacts.count;
    bool frictionless = true;
    for (int a = 0; a < nc; ++a) frictionless = frictionless && w->contacts.items[a].mu == 0.0;
    cfPreconditioner p = w->def.preconditioner;
    double rows = frictionless ? nc : 3.0 * nc;
    double bytes = (p == CF_PRECOND_LUMPED || p == CF_PRECOND_BLOCK_DIAGONAL) ? 400.0 * nc : 2.0 * rows * rows * sizeof(double);
    double mb = bytes / (1024.0 * 1024.0);
    if (mb > w->def.max_matrix_mb)
        return fail(w, CF_BAD_INPUT,
                    "assemble: solver '%s' with preconditioner '%s' needs the dense W_A of %d contacts, about %.0f MB, "
                    "more than max_matrix_mb = %g: use the block-diagonal (ICA) or lumped preconditioner, or raise "
                    "world.max_matrix_mb", w->def.solver->name, cf_preconditioner_name(p), nc, mb, w->def.max_matrix_mb);
    return CF_OK;
}

/* add the 3x3 block m (row-major) at unknowns (r, c) with factor f */
static cfStatus add_block3(cfTriplets *T, int r, int c, const double *m, double f)
{
    cfStatus st = CF_OK;
    for (int i = 0; i < 3 && st == CF_OK; ++i)
        for (int j = 0; j < 3 && st == CF_OK; ++j)
            if (m[3 * i + j] != 0.0) st = cf_triplets_add(T, r + i, c + j, f * m[3 * i + j]);
    return st;
}

/* The system of the dual form: the unknowns of every dynamic rigid body (v, w: A = M, b = M u*,
   the free velocity of the velocities stage) and of every soft body in contact (its ch08.1
   system at (x*, u*)); the contact rows from ch02.3 (rigid sides) and ch02.4 (soft sides, fixed
   nodes left out); the bias phi/h or erp phi/h; CFM; delta the contact margin. */
static cfStatus assemble_dual(cfWorld *w, double erp)
{
    struct cfStepWork *k = w->work;
    int nc = w->contacts.count;
    cf_dual_free(&k->dual);
    cfStatus st = check_size_dual(w);
    if (st != CF_OK) return st;
    int *ro = realloc(k->rigid_off, (size_t)(w->n_bodies + 1) * sizeof *ro);
    if (ro) k->rigid_off = ro;
    int *so = realloc(k->soft_off, (size_t)(w->n_soft + 1) * sizeof *so);
    if (so) k->soft_off = so;
    if (!ro || !so) return CF_NO_MEMORY;
    int n = 0;
    for (int i = 0; i < w->n_bodies; ++i) {
        ro[i] = w->bodies[i].fixed ? -1 : n;
        n += w->bodies[i].fixed ? 0 : 6;
    }
    for (int i = 0; i < w->n_soft; ++i) {
        so[i] = soft_touched(w, i) ? n : -1;
        n += so[i] >= 0 ? 3 * w->soft[i].n_nodes : 0;
    }
    cfDualSystem *d = &k->dual;
    d->n = n;
    d->nc = nc;
    d->b = calloc((size_t)(n > 0 ? n : 1), sizeof *d->b);
    d->vfree = malloc((size_t)(n > 0 ? n : 1) * sizeof *d->vfree);
    d->bias = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *d->bias);
    d->mu = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *d->mu);
    double *u = realloc(k->u_dual, (size_t)(n > 0 ? n : 1) * sizeof *u);
    if (u) k->u_dual = u;
    cfTriplets J = {0};
    if (!d->b || !d->vfree || !d->bias || !d->mu || !u) st = CF_NO_MEMORY;
    /* A block by block, straight into CSR: rigid bodies diag(m I, I_w) (b = M u*, v* = u*), then
       the soft bodies' systems of the velocities stage */
    long nnz = 0;
    for (int i = 0; i < w->n_bodies; ++i) nnz += ro[i] >= 0 ? 12 : 0;
    for (int i = 0; i < w->n_soft; ++i) nnz += so[i] >= 0 ? k->soft[i].A.nnz : 0;
    if (st == CF_OK && nnz > INT_MAX) st = CF_NO_MEMORY;
    d->A.rows = d->A.cols = n;
    if (st == CF_OK) {
        d->A.rowptr = malloc((size_t)(n + 1) * sizeof *d->A.rowptr);
        d->A.colidx = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *d->A.colidx);
        d->A.val = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *d->A.val);
        if (!d->A.rowptr || !d->A.colidx || !d->A.val) st = CF_NO_MEMORY;
    }
    int e = 0, row = 0;
    for (int i = 0; i < w->n_bodies && st == CF_OK; ++i) {
        const cfRigidBody *r = &w->bodies[i];
        if (ro[i] < 0) continue;
        cfMat3 Iw = cf_rigid_inertia_world(r);
        for (int a = 0; a < 3; ++a, ++row) { /* m I */
            d->A.rowptr[row] = e;
            d->A.colidx[e] = ro[i] + a;
            d->A.val[e++] = r->mass;
        }
        for (int a = 0; a < 3; ++a, ++row) { /* I_w */
            d->A.rowptr[row] = e;
            for (int c = 0; c < 3; ++c) {
                d->A.colidx[e] = ro[i] + 3 + c;
                d->A.val[e++] = Iw.m[a][c];
            }
        }
        cfVec3 Lw = cfu_mat3_mul_vec(Iw, r->w);
        double bi[6] = {r->mass * r->v.x, r->mass * r->v.y, r->mass * r->v.z, Lw.x, Lw.y, Lw.z};
        double vi[6] = {r->v.x, r->v.y, r->v.z, r->w.x, r->w.y, r->w.z};
        memcpy(&d->b[ro[i]], bi, sizeof bi);
        memcpy(&d->vfree[ro[i]], vi, sizeof vi);
    }
    for (int i = 0; i < w->n_soft && st == CF_OK; ++i) {
        if (so[i] < 0) continue;
        const SoftWork *sw = &k->soft[i];
        for (int r = 0; r < sw->A.rows; ++r, ++row) {
            d->A.rowptr[row] = e;
            for (int q = sw->A.rowptr[r]; q < sw->A.rowptr[r + 1]; ++q) {
                d->A.colidx[e] = so[i] + sw->A.colidx[q];
                d->A.val[e++] = sw->A.val[q];
            }
        }
        memcpy(&d->b[so[i]], sw->b, (size_t)sw->A.rows * sizeof *d->b);
        memcpy(&d->vfree[so[i]], sw->vfree, (size_t)sw->A.rows * sizeof *d->vfree);
    }
    if (st == CF_OK) {
        d->A.rowptr[n] = e;
        d->A.nnz = e;
    }
    if (st == CF_OK) st = cf_triplets_init(&J, 3 * nc, n);
    /* the contact rows */
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        const cfContact *c = &w->contacts.items[a];
        double Ja[3][6], Jb[3][6];
        const cfRigidBody *ra = c->body_a >= 0 ? &w->bodies[c->body_a] : NULL, *rb = c->body_b >= 0 ? &w->bodies[c->body_b] : NULL;
        st = cf_contact_jacobian_rigid(c, ra, rb, Ja, Jb);
        for (int side = 0; side < 2 && st == CF_OK; ++side) {
            int body = side == 0 ? c->body_a : c->body_b;
            if (body < 0 || ro[body] < 0) continue;
            double(*Jr)[6] = side == 0 ? Ja : Jb;
            for (int r = 0; r < 3 && st == CF_OK; ++r)
                for (int col = 0; col < 6 && st == CF_OK; ++col)
                    if (Jr[r][col] != 0.0) st = cf_triplets_add(&J, 3 * a + r, ro[body] + col, Jr[r][col]);
        }
        if (st == CF_OK && cf_contact_has_soft(c)) {
            const cfSoftSide *s_a = &c->extra->soft_a, *s_b = &c->extra->soft_b;
            cfSoftContact sc;
            memset(&sc, 0, sizeof sc);
            sc.na = s_a->n, sc.nb = s_b->n;
            memcpy(sc.node_a, s_a->node, sizeof sc.node_a);
            memcpy(sc.node_b, s_b->node, sizeof sc.node_b);
            memcpy(sc.w_a, s_a->w, sizeof sc.w_a);
            memcpy(sc.w_b, s_b->w, sizeof sc.w_b);
            sc.p = c->p, sc.n = c->n, sc.t = c->t, sc.b = c->b, sc.phi = c->phi, sc.mu = c->mu;
            double Sa[CF_SOFT_CONTACT_NODES][9], Sb[CF_SOFT_CONTACT_NODES][9];
            st = cf_soft_contact_jacobian(&sc, Sa, Sb);
            for (int side = 0; side < 2 && st == CF_OK; ++side) {
                const cfSoftSide *ss = side == 0 ? s_a : s_b;
                for (int q = 0; q < ss->n && st == CF_OK; ++q) {
                    if (w->soft[ss->body].fixed[ss->node[q]]) continue;
                    st = add_block3(&J, 3 * a, so[ss->body] + 3 * ss->node[q], side == 0 ? Sa[q] : Sb[q], 1.0);
                }
            }
        }
        if (st != CF_OK) st = fail(w, st, "assemble: the Jacobian of contact %d (ch02.3/ch02.4: %s)", a, cf_status_name(st));
        d->bias[a] = (c->phi >= 0.0 ? c->phi : erp * c->phi) / w->def.dt;
        if (k->impacts && k->impact[a] < 0.0) d->bias[a] = fmin(d->bias[a], k->impact[a]);
        d->mu[a] = c->mu;
    }
    if (st == CF_OK) st = cf_csr_from_triplets(&J, &d->J);
    cf_triplets_free(&J);
    d->cfm = k->cfm;
    d->h = w->def.dt;
    d->delta = w->def.contact_margin;
    if (st != CF_OK) return fail(w, st, "assemble: the dual system (%s)", cf_status_name(st));
    memset(&k->prob, 0, sizeof k->prob);
    k->prob = (cfContactProblem){.form = CF_FORM_DUAL, .nc = nc, .dual = d, .u = k->u_dual};
    cf_form_work_use(&k->form, w->def.solver);
    return CF_OK;
}

/* Newton's impact law (cf_world.h: restitution_threshold): a contact between rigid sides (or a
   rigid side and the static ground) whose normal velocity u_n^- = n . (v_B(p) - v_A(p)), taken
   after the velocities stage (gravity of this step included), is below -threshold and that closes
   within the step (phi + h u_n^- < 0) impacts with e = the larger restitution of its rigid sides
   (Box2D's rule); its target e u_n^- lowers the normal bias of every form to min(bias, e u_n^-),
   so the solve leaves it at u_n^+ >= -e u_n^- (or faster, when the penetration bias asks more).
   Soft sides have no restitution: their contacts stay inelastic. Fills k->impact and k->impacts. */
static cfStatus impacts(cfWorld *w)
{
    struct cfStepWork *k = w->work;
    k->impacts = false;
    for (int a = 0; a < w->contacts.count; ++a) {
        const cfContact *c = &w->contacts.items[a];
        k->impact[a] = 0.0;
        if (cf_contact_has_soft(c)) continue;
        double e = 0.0;
        for (int s = 0; s < 2; ++s) {
            int b = s == 0 ? c->body_a : c->body_b;
            if (b < 0) continue;
            double eb = w->bodies[b].restitution;
            if (!(eb >= 0.0 && eb <= 1.0)) return fail(w, CF_BAD_INPUT, "bodies[%d].restitution: must be in [0, 1] (got %g)", b, eb);
            e = fmax(e, eb);
        }
        if (e == 0.0) continue;
        cfVec3 dv = cfu_zero3();
        if (c->body_b >= 0) dv = cf_rigid_point_velocity(&w->bodies[c->body_b], c->p);
        if (c->body_a >= 0) dv = cfu_sub(dv, cf_rigid_point_velocity(&w->bodies[c->body_a], c->p));
        double un = cfu_dot(c->n, dv);
        if (un < -w->def.restitution_threshold && c->phi + w->def.dt * un < 0.0) {
            k->impact[a] = e * un;
            k->impacts = true;
        }
    }
    if (k->impacts && w->def.solver->no_impacts)
        return fail(w, CF_BAD_INPUT, "solver: '%s' takes no restitution (a contact impacts with e > 0 this step); use pgs "
                    "or an assembled solver, or set the bodies' restitution to 0", w->def.solver->name);
    return CF_OK;
}

/* the problem in the form the solver consumes: matrix-free rows (prepared by the row) or the
   assembled problem and the form built from it */
static cfStatus stage_assemble(cfWorld *w)
{
    if (!solving(w)) return CF_OK;
    struct cfStepWork *k = w->work;
    const cfSolver *s = w->def.solver;
    cfStatus st = cf_world_erp_cfm(&w->def, &k->erp, &k->cfm);
    if (st != CF_OK) return fail(w, st, "contact_stiffness: no ERP and CFM for this spring (ch02.7: %s)", cf_status_name(st));
    if ((st = impacts(w)) != CF_OK) return st;
    k->par = solver_params(&w->def);
    /* with a split-impulse stage the velocity solve leaves penetrations to it */
    double erp = (w->def.stabilization == CF_STAB_SPLIT && s->split) ? 0.0 : k->erp;
    if (s->form == CF_FORM_ROWS) {
        memset(&k->prob, 0, sizeof k->prob);
        k->prob = (cfContactProblem){.form = CF_FORM_ROWS, .nc = w->contacts.count, .bodies = w->bodies,
                                     .nb = w->n_bodies, .contacts = w->contacts.items, .h = w->def.dt, .erp = erp,
                                     .cfm = k->cfm, .gravity = w->def.gravity,
                                     .impact = k->impacts ? k->impact : NULL};
        cf_form_work_use(&k->form, s);
        st = s->prepare(&k->form.work, &k->prob, &k->par);
        if (st != CF_OK) return fail(w, st, "assemble: solver '%s' could not prepare its rows (%s)", s->name, cf_status_name(st));
        return CF_OK;
    }
    if (s->form == CF_FORM_DUAL) return assemble_dual(w, erp);
    st = assemble_fc3d(w, erp);
    if (st == CF_OK) st = cf_form_build(&k->form, s, &k->fc, &k->par, &k->prob, &w->error);
    return st;
}

/* ---- CF_STAGE_SOLVE -------------------------------------------------------------------------- */

/* the one apply: rigid u+ = u* + M^-1 J^T lambda (ch02's provided apply), soft
   u+ = A^-1 (b + J^T lambda) (ch02.8) */
static cfStatus apply(cfWorld *w, const double *lambda)
{
    struct cfStepWork *k = w->work;
    for (int i = 0; i < w->n_bodies; ++i) {
        const double *u = &k->ustar[6 * i];
        w->bodies[i].v = cfu_vec3(u[0], u[1], u[2]);
        w->bodies[i].w = cfu_vec3(u[3], u[4], u[5]);
    }
    cfStatus st = cf_rigid_apply_impulses(w->bodies, w->n_bodies, w->contacts.items, w->contacts.count, lambda);
    for (int i = 0; i < w->n_soft && st == CF_OK; ++i) {
        SoftWork *sw = &k->soft[i];
        if (sw->nc == 0) continue;
        for (int r = 0; r < sw->nc; ++r) memcpy(&sw->lam[3 * r], &lambda[3 * sw->global[r]], 3 * sizeof *sw->lam);
        st = cf_soft_dual_velocity(&sw->dual, sw->lam, sw->u_flat);
        for (int n = 0; n < w->soft[i].n_nodes && st == CF_OK; ++n)
            sw->u_new[n] = cfu_vec3(sw->u_flat[3 * n], sw->u_flat[3 * n + 1], sw->u_flat[3 * n + 2]);
    }
    return st;
}

/* the dual form's apply: the velocities the solver returned, to the bodies it moves */
static void apply_dual(cfWorld *w)
{
    const struct cfStepWork *k = w->work;
    const double *u = k->u_dual;
    for (int i = 0; i < w->n_bodies; ++i) {
        int o = k->rigid_off[i];
        if (o < 0) continue;
        w->bodies[i].v = cfu_vec3(u[o], u[o + 1], u[o + 2]);
        w->bodies[i].w = cfu_vec3(u[o + 3], u[o + 4], u[o + 5]);
    }
    for (int i = 0; i < w->n_soft; ++i) {
        int o = k->soft_off[i];
        if (o < 0) continue;
        SoftWork *sw = &k->soft[i];
        for (int n = 0; n < w->soft[i].n_nodes; ++n) sw->u_new[n] = cfu_vec3(u[o + 3 * n], u[o + 3 * n + 1], u[o + 3 * n + 2]);
    }
}

/* The velocity of contact a's rows at the bodies' current velocities: (J u)_a plus the normal bias
   of the world's rule (rigid sides; rows solvers take nothing else), and the CFM term of @p r */
static void rows_velocity(const cfWorld *w, int a, const double *r, double u[3])
{
    const struct cfStepWork *k = w->work;
    const cfContact *c = &w->contacts.items[a];
    cfVec3 dv = cfu_zero3();
    if (c->body_b >= 0) dv = cf_rigid_point_velocity(&w->bodies[c->body_b], c->p);
    if (c->body_a >= 0) dv = cfu_sub(dv, cf_rigid_point_velocity(&w->bodies[c->body_a], c->p));
    u[0] = cfu_dot(c->n, dv), u[1] = cfu_dot(c->t, dv), u[2] = cfu_dot(c->b, dv);
    double bias = (c->phi >= 0.0 ? c->phi : k->prob.erp * c->phi) / w->def.dt;
    if (k->impacts && k->impact[a] < 0.0) bias = fmin(bias, k->impact[a]);
    u[0] += bias + (r ? k->cfm * r[0] : 0.0);
}

/* The natural map of the rows' contact law (cone or box) at the velocities the impulses gave: the
   common measure of rows solvers (the Coulomb one, whatever model they solved, for comparison) */
static double rows_residual(const cfWorld *w, const double *lambda, cfFrictionModel model)
{
    int nc = w->contacts.count;
    double *ru = malloc((size_t)(nc > 0 ? 6 * nc : 1) * sizeof *ru), *mu = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *mu);
    double res = INFINITY;
    if (ru && mu) {
        for (int a = 0; a < nc; ++a) {
            rows_velocity(w, a, &lambda[3 * a], &ru[3 * nc + 3 * a]);
            memcpy(&ru[3 * a], &lambda[3 * a], 3 * sizeof *ru);
            mu[a] = w->contacts.items[a].mu;
        }
        res = cf_contacts_residual(nc, ru, ru + 3 * nc, mu, NULL, model);
    }
    free(ru);
    free(mu);
    return res;
}

/* The free velocity of the rows and dual forms, the common residual's scale: the contacts' rows at
   the velocities before the solve (u*, with the bias), |J v_free + bias| for the dual form */
static double free_scale(const cfWorld *w)
{
    const struct cfStepWork *k = w->work;
    const cfSolver *s = w->def.solver;
    int nc = w->contacts.count;
    double *v = malloc((size_t)(nc > 0 ? 3 * nc : 1) * sizeof *v), scale = 0.0;
    if (!v) return 0.0;
    if (s->form == CF_FORM_ROWS) {
        for (int a = 0; a < nc; ++a) rows_velocity(w, a, NULL, &v[3 * a]);
        scale = cf_vec_norm(3 * nc, v);
    } else if (s->form == CF_FORM_DUAL && k->dual.vfree) {
        cf_dual_contact_velocity(&k->dual, k->dual.vfree, NULL, v);
        scale = cf_vec_norm(3 * nc, v);
    }
    free(v);
    return scale;
}

/* one solve of the step's contact problem with @p par from @p x (in/out), certified on the common
   residual (cf_solvers.h): by the registry for the assembled forms, here for the rows and the dual
   form, whose residuals the world computes (@p scale: their free velocity) */
static cfStatus contact_solve(cfWorld *w, const cfSolverParams *par, double scale, double *x, cfReport *rep)
{
    struct cfStepWork *k = w->work;
    const cfSolver *s = w->def.solver;
    if (s->form != CF_FORM_ROWS && s->form != CF_FORM_DUAL) return cf_form_solve(&k->form, s, &k->prob, par, x, rep);
    const cfSolverParams own = cf_solver_own_params(s, &k->prob, par);
    cfStatus st = s->solve(&k->form.work, &k->prob, &own, x, rep);
    if (st != CF_OK && st != CF_MAX_ITER && st != CF_STAGNATED) return st;
    int nc = w->contacts.count;
    if (!cf_vec_finite(3 * nc, x)) return cf_solver_certify(s, st, INFINITY, par, rep);
    cfFrictionModel model = s->friction_model ? par->friction : CF_FRICTION_CONE;
    double res = INFINITY;
    if (s->form == CF_FORM_DUAL) {
        res = cf_dual_residual(&k->dual, x, k->u_dual, model);
    } else if (apply(w, x) == CF_OK) { /* the world's apply (again after this: from u*, the same result) */
        res = rows_residual(w, x, model);
    }
    return cf_solver_certify(s, st, cf_common_relative(res, scale), par, rep);
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

static cfStatus stage_solve(cfWorld *w)
{
    if (!solving(w)) return CF_OK;
    struct cfStepWork *k = w->work;
    const cfSolver *s = w->def.solver;
    int nc = w->contacts.count;
    for (int i = 0; i < w->n_bodies; ++i) {
        double *u = &k->ustar[6 * i];
        memcpy(u, &w->bodies[i].v, 3 * sizeof *u);
        memcpy(u + 3, &w->bodies[i].w, 3 * sizeof *u);
    }
    double *x = k->lambda;
    for (int a = 0; a < nc; ++a) memcpy(&x[3 * a], w->contacts.items[a].lambda, 3 * sizeof *x);
    cfReport rep;
    cf_report_init(&rep, w->stats.solver_history, CF_STATS_HISTORY);
    rep.inner = w->stats.solver_inner;
    k->par.impulse_scale = impulse_scale(w);
    const double scale = free_scale(w);
    cfStatus st = contact_solve(w, &k->par, scale, x, &rep);
    if (st != CF_OK && (st == CF_MAX_ITER || st == CF_STAGNATED) && w->def.on_solver_failure == CF_ON_FAILURE_RETRY &&
        !s->dense && cf_vec_finite(3 * nc, x)) {
        /* once more from the answer, with four times the budget (a rows solver starts again from u*) */
        for (int i = 0; s->form == CF_FORM_ROWS && i < w->n_bodies; ++i) {
            const double *u = &k->ustar[6 * i];
            w->bodies[i].v = cfu_vec3(u[0], u[1], u[2]);
            w->bodies[i].w = cfu_vec3(u[3], u[4], u[5]);
        }
        for (int a = 0; a < nc; ++a) memcpy(w->contacts.items[a].lambda, &x[3 * a], 3 * sizeof *x);
        cfSolverParams more = k->par;
        more.max_iter = 4 * (k->par.max_iter > 0 ? k->par.max_iter : 1);
        more.warm_start = true;
        cf_report_init(&rep, w->stats.solver_history, CF_STATS_HISTORY);
        rep.inner = w->stats.solver_inner;
        st = contact_solve(w, &more, scale, x, &rep);
        w->stats.solver_retries = 1;
    }
    record_solve(&w->stats, &rep, s->measure, st);
    w->stats.contact_solve = true;
    w->stats.solver_common = rep.common;
    w->stats.solver_common_tol = rep.common_tol;
    w->stats.solver_claimed = rep.claimed;
    /* an iterative solver's used-up budget or stagnation still gives usable impulses, and so does a
       pivoting method whose answer passed its own certificate but not the common one; a pivoting
       method that did not finish gives none */
    if (st == CF_DIVERGED) {
        /* name the body that is most likely the cause: the fastest before the solve (or the first that
           was not finite) */
        int worst = -1;
        double top = -1.0;
        for (int i = 0; i < w->n_bodies; ++i) {
            const double *u = &k->ustar[6 * i];
            double sp = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) + sqrt(u[3] * u[3] + u[4] * u[4] + u[5] * u[5]);
            if (!isfinite(sp)) sp = INFINITY;
            if (sp > top) top = sp, worst = i;
        }
        if (worst >= 0)
            return fail(w, st, "solve: solver '%s' diverged on %d contacts; the fastest body is rigid body %d '%s' "
                        "(|v| + |w| = %g before the solve): check its mass and inertia", s->name, nc, worst, w->bodies[worst].name, top);
    }
    bool usable = st == CF_OK || ((st == CF_MAX_ITER || st == CF_STAGNATED) && (!s->dense || rep.claimed == CF_OK));
    if (!usable) return fail(w, st, "solve: solver '%s' failed on %d contacts: %s", s->name, nc, cf_status_name(st));
    if (st != CF_OK && w->def.on_solver_failure == CF_ON_FAILURE_STOP)
        return fail(w, st, "solve: solver '%s' did not converge on %d contacts (%s): common residual %.3e above the tolerance "
                    "%.3e (its own measure %.3e, %s); world.on_solver_failure is \"stop\"", s->name, nc, cf_status_name(st),
                    rep.common, rep.common_tol, rep.residual, cf_measure_name(s->measure));
    if (!cf_vec_finite(3 * nc, x)) return fail(w, CF_DIVERGED, "solve: solver '%s' returned impulses that are not finite", s->name);
    if (s->form == CF_FORM_DUAL) {
        if (!cf_vec_finite(k->dual.n, k->u_dual))
            return fail(w, CF_DIVERGED, "solve: solver '%s' (%s) returned velocities that are not finite", s->name,
                        cf_preconditioner_name(k->par.preconditioner));
        apply_dual(w);
        for (int a = 0; a < nc; ++a) memcpy(w->contacts.items[a].lambda, &x[3 * a], 3 * sizeof *x);
        w->stats.common_residual = cf_dual_residual(&k->dual, x, k->u_dual, CF_FRICTION_CONE);
        return CF_OK;
    }
    st = apply(w, x);
    if (st != CF_OK) return fail(w, st, "solve: applying the impulses failed (%s)", cf_status_name(st));
    for (int a = 0; a < nc; ++a) memcpy(w->contacts.items[a].lambda, &x[3 * a], 3 * sizeof *x);
    if (s->form != CF_FORM_ROWS) w->stats.common_residual = cf_fc_residual(&k->fc, x);
    else if (k->par.friction == CF_FRICTION_CONE) w->stats.common_residual = rep.residual;
    else w->stats.common_residual = rows_residual(w, x, CF_FRICTION_CONE);
    return CF_OK;
}

cfStatus cf_world_write_problem(const cfWorld *w, const char *path, cfError *err)
{
    if (!w->work || w->work->fc.nc == 0)
        return cf_error_set(err, CF_BAD_INPUT, "%s: no assembled contact problem to write (the last step's solver, if "
                            "any, works on rigid rows or there were no contacts)", path);
    return cf_fc_write_siconos(path, &w->work->fc, err);
}

/* ---- CF_STAGE_POSITIONS ---------------------------------------------------------------------- */

static cfStatus stage_positions(cfWorld *w)
{
    if (w->def.rigid_integrator != CF_RIGID_EXPLICIT) /* explicit Euler moved before the velocities */
        for (int i = 0; i < w->n_bodies; ++i) {
            cfStatus st = cf_rigid_integrate_position(&w->bodies[i], w->def.dt);
            if (st != CF_OK)
                return fail(w, st, "positions: body '%s' (%s)", w->bodies[i].name, cf_status_name(st));
        }
    /* soft bodies of the implicit integrators: x+ = x* + beta u+, the old state kept for BDF2 */
    for (int i = 0; i < w->n_soft; ++i) {
        cfSoftBody *s = &w->soft[i];
        const SoftWork *sw = &w->work->soft[i];
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

/* ---- CF_STAGE_STABILIZE ---------------------------------------------------------------------- */

/* Split impulse (solvers with that stage, cfSolver::split): pseudo-velocities that remove the
   fraction erp of the penetration beyond the slop move the positions and are then forgotten, so
   no velocity (and no energy) is added. */
static cfStatus stage_stabilize(cfWorld *w)
{
    const cfWorldDef *d = &w->def;
    if (!solving(w) || d->stabilization != CF_STAB_SPLIT || !d->solver->split) return CF_OK;
    struct cfStepWork *k = w->work;
    if (k->erp == 0.0) return CF_OK;
    int sweeps = d->solver_iterations > 4 ? d->solver_iterations : 4;
    cfStatus st = d->solver->split(k->form.work, &k->prob, k->erp, d->slop, sweeps, k->pv);
    if (st != CF_OK) return fail(w, st, "stabilize: split impulse of solver '%s' (%s)", d->solver->name, cf_status_name(st));
    for (int i = 0; i < w->n_bodies && st == CF_OK; ++i) {
        cfRigidBody *b = &w->bodies[i];
        const double *p = &k->pv[6 * i];
        if (b->fixed || (p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0 && p[3] == 0.0 && p[4] == 0.0 && p[5] == 0.0)) continue;
        cfVec3 v = b->v, om = b->w;
        b->v = cfu_vec3(p[0], p[1], p[2]);
        b->w = cfu_vec3(p[3], p[4], p[5]);
        st = cf_rigid_integrate_position(b, d->dt);
        b->v = v;
        b->w = om;
    }
    return st == CF_OK ? CF_OK : fail(w, st, "stabilize: position update (%s)", cf_status_name(st));
}

/* ---- the step -------------------------------------------------------------------------------- */

/* state saved before a step so that a failing stage leaves the world as it was */
typedef struct Saved {
    cfRigidBody *bodies;
    cfVec3 **arr[4]; /* per soft body: x, v, x_prev, v_prev */
    bool *has_prev;
} Saved;

static cfVec3 **soft_field(cfWorld *w, int field, int i)
{
    cfSoftBody *s = &w->soft[i];
    return field == 0 ? &s->x : field == 1 ? &s->v : field == 2 ? &s->x_prev : &s->v_prev;
}

static void saved_free(Saved *sv, int n_soft)
{
    for (int f = 0; f < 4; ++f) {
        if (sv->arr[f])
            for (int i = 0; i < n_soft; ++i) free(sv->arr[f][i]);
        free(sv->arr[f]);
    }
    free(sv->has_prev);
    free(sv->bodies);
}

static cfStatus save(cfWorld *w, Saved *sv)
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

static void restore(cfWorld *w, const Saved *sv)
{
    if (w->n_bodies) memcpy(w->bodies, sv->bodies, (size_t)w->n_bodies * sizeof *w->bodies);
    for (int i = 0; i < w->n_soft; ++i) {
        size_t bytes = (size_t)w->soft[i].n_nodes * sizeof(cfVec3);
        for (int f = 0; f < 4; ++f) memcpy(*soft_field(w, f, i), sv->arr[f][i], bytes);
        w->soft[i].has_prev = sv->has_prev[i];
    }
}

/* the state after the step is finite, or the step fails naming the first body that is not */
/* the largest n.p over a body's bounding box (its support along n, conservatively) */
static double support_along(const cfRigidBody *b, cfVec3 n)
{
    cfAabb box = cf_aabb_of_body(b);
    cfVec3 c = cfu_scale(0.5, cfu_add(box.lo, box.hi)), h = cfu_scale(0.5, cfu_sub(box.hi, box.lo));
    return cfu_dot(n, c) + fabs(n.x) * h.x + fabs(n.y) * h.y + fabs(n.z) * h.z;
}

/* soft body i's largest n.x over its nodes (@p x: its positions) */
static double soft_support(const cfSoftBody *s, const cfVec3 *x, cfVec3 n)
{
    double m = -INFINITY;
    for (int k = 0; k < s->n_nodes; ++k) m = fmax(m, cfu_dot(n, x[k]));
    return m;
}

/* The state after a step, before it is committed: finite, inside the world's bounds, and no body
   that went through a static plane during the step (wholly behind it now, not at the start:
   @p sv holds the start; NULL: not checked). Each failure names the body and the step. */
static cfStatus check_state(cfWorld *w, const Saved *sv)
{
    const char *solver = w->def.solver ? w->def.solver->name : "none";
    const long step = w->step + 1;
    for (int i = 0; i < w->n_bodies; ++i) {
        const cfRigidBody *b = &w->bodies[i];
        if (!(cfu_vec3_finite(b->x) && cfu_quat_finite(b->q) && cfu_vec3_finite(b->v) && cfu_vec3_finite(b->w)))
            return fail(w, CF_DIVERGED, "rigid body %d '%s': state not finite after the step at t = %g (solver %s); "
                        "check its mass and inertia", i, b->name, w->time, solver);
        if (!b->fixed && !(cfu_norm_inf(b->x) <= w->def.bounds))
            return fail(w, CF_DIVERGED, "rigid body %d '%s' left the world's bounds (|x|_inf <= %g m, world.bounds) in step %ld "
                        "(t = %g s): at (%g, %g, %g), moving at %g m/s (solver %s)", i, b->name, w->def.bounds, step,
                        w->time + w->def.dt, b->x.x, b->x.y, b->x.z, cfu_norm(b->v), solver);
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        for (int n = 0; n < s->n_nodes; ++n) {
            if (!(cfu_vec3_finite(s->x[n]) && cfu_vec3_finite(s->v[n])))
                return fail(w, CF_DIVERGED, "soft body %d '%s': node %d not finite after the step at t = %g (solver %s)",
                            i, s->name, n, w->time, solver);
            if (!(cfu_norm_inf(s->x[n]) <= w->def.bounds))
                return fail(w, CF_DIVERGED, "soft body %d '%s': node %d left the world's bounds (|x|_inf <= %g m, "
                            "world.bounds) in step %ld (t = %g s) (solver %s)", i, s->name, n, w->def.bounds, step,
                            w->time + w->def.dt, solver);
        }
    }
    for (int p = 0; sv && p < w->n_bodies; ++p) {
        const cfRigidBody *pl = &w->bodies[p];
        if (pl->shape.type != CF_SHAPE_PLANE || !pl->fixed) continue;
        cfVec3 n = pl->shape.normal;
        const double d = pl->shape.offset;
        for (int i = 0; i < w->n_bodies; ++i) {
            const cfRigidBody *b = &w->bodies[i];
            if (b->fixed || b->shape.type == CF_SHAPE_PLANE) continue;
            double now = support_along(b, n), before = support_along(&sv->bodies[i], n);
            if (now < d && !(before < d))
                return fail(w, CF_DIVERGED, "rigid body %d '%s' went through the static plane %d '%s' in step %ld (t = %g s): "
                            "all of it is behind the plane now, by %g m, moving at %g m/s (solver %s)", i, b->name, p, pl->name,
                            step, w->time + w->def.dt, d - now, cfu_norm(b->v), solver);
        }
        for (int i = 0; i < w->n_soft; ++i) {
            const cfSoftBody *s = &w->soft[i];
            if (s->n_nodes == 0) continue;
            double now = soft_support(s, s->x, n), before = soft_support(s, sv->arr[0][i], n);
            if (now < d && !(before < d))
                return fail(w, CF_DIVERGED, "soft body %d '%s' went through the static plane %d '%s' in step %ld (t = %g s): "
                            "every node is behind the plane now, by %g m at least (solver %s)", i, s->name, p, pl->name, step,
                            w->time + w->def.dt, d - now, solver);
        }
    }
    return CF_OK;
}

static cfStatus run_stage(cfWorld *w, cfStage s)
{
    switch (s) {
    case CF_STAGE_DETECT: return stage_detect(w);
    case CF_STAGE_CONTACTS: return stage_contacts(w);
    case CF_STAGE_VELOCITIES: return stage_velocities(w);
    case CF_STAGE_ASSEMBLE: return stage_assemble(w);
    case CF_STAGE_SOLVE: return stage_solve(w);
    case CF_STAGE_POSITIONS: return stage_positions(w);
    case CF_STAGE_STABILIZE: return stage_stabilize(w);
    case CF_STAGE_COUNT: break;
    }
    return CF_BAD_INPUT;
}

/* run one stage (the scratch space is sized by the contacts the detection found) */
static cfStatus stage_run(cfWorld *w, cfStage s)
{
    cfStatus st = run_stage(w, s);
    if (s == CF_STAGE_DETECT && st == CF_OK) st = work_reserve(w);
    return st;
}

/* run one stage and add its time to the step's stats */
static cfStatus timed_stage(cfWorld *w, cfStage s)
{
    double t0 = cf_seconds();
    cfStatus st = stage_run(w, s);
    w->stats.stage_seconds[s] += cf_seconds() - t0;
    return st;
}

/* ---- constraint manifold refinement (ch08.6): the world's side of the callbacks --------------- */

typedef struct CmrCtx {
    cfWorld *w;
    Saved sv;                /* the state at the last begin */
    bool saved;
    cfRigidBody *free_rigid; /* rigid bodies after the velocities stage: free velocities */
    cfRigidBody *tent_rigid; /* tentative rigid poses */
    cfVec3 **tent_soft;      /* tentative soft positions */
} CmrCtx;

static void cmr_ctx_free(CmrCtx *c)
{
    if (c->saved) saved_free(&c->sv, c->w->n_soft);
    free(c->free_rigid);
    free(c->tent_rigid);
    for (int i = 0; c->tent_soft && i < c->w->n_soft; ++i) free(c->tent_soft[i]);
    free(c->tent_soft);
}

static cfStatus cmr_begin(void *ctx, double dt)
{
    CmrCtx *c = ctx;
    cfWorld *w = c->w;
    w->def.dt = dt;
    if (c->saved) saved_free(&c->sv, w->n_soft);
    c->saved = true;
    cfStatus st = save(w, &c->sv);
    if (st != CF_OK) return st;
    for (int s = CF_STAGE_DETECT; s <= CF_STAGE_VELOCITIES && st == CF_OK; ++s) st = timed_stage(w, (cfStage)s);
    if (st == CF_OK && w->n_bodies) memcpy(c->free_rigid, w->bodies, (size_t)w->n_bodies * sizeof *w->bodies);
    return st;
}

static cfStatus cmr_respond(void *ctx)
{
    CmrCtx *c = ctx;
    cfWorld *w = c->w;
    /* every round starts from the free velocities */
    for (int i = 0; i < w->n_bodies; ++i) {
        w->bodies[i].v = c->free_rigid[i].v;
        w->bodies[i].w = c->free_rigid[i].w;
    }
    cfStatus st = timed_stage(w, CF_STAGE_ASSEMBLE);
    return st == CF_OK ? timed_stage(w, CF_STAGE_SOLVE) : st;
}

static cfStatus cmr_advance(void *ctx)
{
    CmrCtx *c = ctx;
    cfWorld *w = c->w;
    for (int i = 0; i < w->n_bodies; ++i) {
        c->tent_rigid[i] = w->bodies[i];
        cfStatus st = cf_rigid_integrate_position(&c->tent_rigid[i], w->def.dt);
        if (st != CF_OK) return fail(w, st, "cmr: tentative position of body '%s' (%s)", w->bodies[i].name, cf_status_name(st));
    }
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftBody *s = &w->soft[i];
        const SoftWork *sw = &w->work->soft[i];
        for (int n = 0; n < s->n_nodes; ++n)
            c->tent_soft[i][n] = sw->moved && !s->fixed[n] ? cfu_mul_add(sw->xs[n], sw->beta, sw->u_new[n]) : s->x[n];
    }
    return CF_OK;
}

static cfStatus cmr_collide(void *ctx, int *added, int *colliding)
{
    CmrCtx *c = ctx;
    cfWorld *w = c->w;
    cfContactList found = {0};
    double t0 = cf_seconds();
    cfStatus st = cf_detect_ccd(w, c->tent_soft, c->tent_rigid, w->def.contact_margin, &found, colliding);
    *added = found.count;
    for (int a = 0; a < found.count && st == CF_OK; ++a) {
        cfContact *n = &found.items[a];
        int a_is = 0;
        const cfFrictionPair *p;
        if (contact_law(w, &found, n, &p, &a_is) != CF_OK)
            st = fail(w, CF_NO_MEMORY, "out of memory");
        else if (!cf_contact_isotropic(n) || (p && p->matchstick))
            st = fail(w, CF_BAD_INPUT, "CMR: the contact between '%s' and '%s' has the %s law; the dual form takes "
                      "isotropic friction only", side_name(w, n, 0), side_name(w, n, 1),
                      p && p->matchstick ? "matchstick" : cf_friction_law_name(cf_contact_friction(n)->law));
        if (st == CF_OK) st = cf_contact_frame(n->n, &n->t, &n->b);
        if (st == CF_OK) st = cf_contacts_push(&w->contacts, n);
    }
    cf_contacts_free(&found);
    w->stats.stage_seconds[CF_STAGE_DETECT] += cf_seconds() - t0;
    w->stats.n_contacts = w->contacts.count;
    if (st == CF_OK) st = work_reserve(w);
    if (st == CF_OK || st == CF_BAD_INPUT) return st; /* a bad input has its message already */
    return fail(w, st, "cmr: continuous collision detection (%s)", cf_status_name(st));
}

static cfStatus cmr_commit(void *ctx)
{
    CmrCtx *c = ctx;
    cfStatus st = timed_stage(c->w, CF_STAGE_POSITIONS);
    return st == CF_OK ? timed_stage(c->w, CF_STAGE_STABILIZE) : st;
}

static cfStatus cmr_restore(void *ctx)
{
    CmrCtx *c = ctx;
    restore(c->w, &c->sv);
    return CF_OK;
}

/* A step by constraint manifold refinement (ch08.6) over the world's stages */
static cfStatus step_cmr(cfWorld *w)
{
    double dt = w->def.dt;
    CmrCtx c = {.w = w};
    c.free_rigid = malloc((size_t)(w->n_bodies > 0 ? w->n_bodies : 1) * sizeof *c.free_rigid);
    c.tent_rigid = malloc((size_t)(w->n_bodies > 0 ? w->n_bodies : 1) * sizeof *c.tent_rigid);
    c.tent_soft = calloc((size_t)(w->n_soft > 0 ? w->n_soft : 1), sizeof *c.tent_soft);
    cfStatus st = c.free_rigid && c.tent_rigid && c.tent_soft ? CF_OK : CF_NO_MEMORY;
    for (int i = 0; i < w->n_soft && st == CF_OK; ++i)
        if (!(c.tent_soft[i] = malloc((size_t)w->soft[i].n_nodes * sizeof **c.tent_soft))) st = CF_NO_MEMORY;
    cfCmrStats cs;
    memset(&cs, 0, sizeof cs);
    if (st == CF_OK) {
        cfCmrOps ops = {.ctx = &c, .begin = cmr_begin, .respond = cmr_respond, .advance = cmr_advance,
                        .collide = cmr_collide, .commit = cmr_commit, .restore = cmr_restore};
        cfCmrOptions o = {.max_rounds = w->def.cmr_rounds, .max_halvings = w->def.cmr_halvings};
        st = cf_cmr_step(&ops, &o, dt, &cs);
        if (st == CF_NOT_IMPLEMENTED) st = fail(w, st, "cmr: constraint manifold refinement (ch08.6) is not implemented");
    }
    w->def.dt = dt;
    w->stats.cmr_rounds = cs.rounds_total;
    for (int r = 0; r <= CF_CMR_MAX_ROUNDS; ++r)
        if (cs.rounds[r]) w->stats.cmr_rounds_max = r;
    w->stats.cmr_substeps = cs.substeps;
    w->stats.cmr_halvings = cs.halvings;
    w->stats.cmr_unresolved = cs.unresolved;
    cmr_ctx_free(&c);
    return st;
}

/* ---- the pipelines ---------------------------------------------------------------------------- */

/* the velocity pipeline takes every world; what a stage cannot do it says itself */
static cfStatus velocity_check(const cfWorld *w, cfError *err)
{
    (void)w;
    (void)err;
    return CF_OK;
}

static cfStatus velocity_step(cfWorld *w)
{
    cfStatus st = work_reserve(w);
    if (st == CF_OK && w->def.cmr_rounds > 0) return step_cmr(w);
    for (int s = 0; s < CF_STAGE_COUNT && st == CF_OK; ++s) st = timed_stage(w, (cfStage)s);
    return st;
}

//> ch09:world-pipelines
static const cfPipeline pipelines[CF_PIPELINE_COUNT] = {
    [CF_PIPELINE_VELOCITY] = {"velocity", "detect contacts, then solve a velocity-level contact problem (chapters 1-8, 10)",
                              CF_STAGE_COUNT,
                              {"detect", "contacts", "velocities", "assemble", "solve", "positions", "stabilize"},
                              velocity_check, velocity_step},
    [CF_PIPELINE_IPC] = {"ipc", "Incremental Potential Contact: minimize the incremental potential over positions (chapter 9)",
                         3, {"gather", "minimize", "scatter"}, cf_world_ipc_check, cf_world_ipc_step},
    [CF_PIPELINE_IMPLICIT_SOFT] = {"implicit-soft", "paper 003: solve the momentum balance for the end velocity, friction "
                                   "taken at the end of the step (ch09.7)",
                                   3, {"gather", "solve", "scatter"}, cf_world_implicit_check, cf_world_implicit_step},
};
//< ch09:world-pipelines

const cfPipeline *cf_pipeline_of(cfPipelineKind k)
{
    return k >= 0 && k < CF_PIPELINE_COUNT ? &pipelines[k] : NULL;
}

/* ---- the step as a table of stages (cf_ch11.h): the world's own transaction and chapter 11's -- */

typedef struct StepCtx {
    cfWorld *w;
    Saved sv;
    bool saved;
} StepCtx;

static cfStatus op_stage(void *ctx, cfStage s) { return stage_run(((StepCtx *)ctx)->w, s); }
static cfStatus op_detect(void *ctx) { return op_stage(ctx, CF_STAGE_DETECT); }
static cfStatus op_contacts(void *ctx) { return op_stage(ctx, CF_STAGE_CONTACTS); }
static cfStatus op_velocities(void *ctx) { return op_stage(ctx, CF_STAGE_VELOCITIES); }
static cfStatus op_assemble(void *ctx) { return op_stage(ctx, CF_STAGE_ASSEMBLE); }
static cfStatus op_solve(void *ctx) { return op_stage(ctx, CF_STAGE_SOLVE); }
static cfStatus op_positions(void *ctx) { return op_stage(ctx, CF_STAGE_POSITIONS); }
static cfStatus op_stabilize(void *ctx) { return op_stage(ctx, CF_STAGE_STABILIZE); }

static cfStatus op_save(void *ctx)
{
    StepCtx *c = ctx;
    if (c->saved) saved_free(&c->sv, c->w->n_soft);
    c->saved = true;
    cfStatus st = save(c->w, &c->sv);
    return st == CF_OK ? CF_OK : fail(c->w, st, "out of memory");
}

static void op_drop(StepCtx *c)
{
    if (c->saved) saved_free(&c->sv, c->w->n_soft);
    c->saved = false;
}

static void op_restore(void *ctx)
{
    StepCtx *c = ctx;
    if (c->saved) restore(c->w, &c->sv);
    op_drop(c);
}

static cfStatus op_finite(void *ctx)
{
    StepCtx *c = ctx;
    return check_state(c->w, c->saved ? &c->sv : NULL);
}

static void op_commit(void *ctx)
{
    StepCtx *c = ctx;
    c->w->time += c->w->def.dt;
    c->w->step += 1;
    op_drop(c);
}

/* the world's own step over the same table (cf_world_step()); chapter 11 writes it (ch11.1) */
static cfStatus world_pipeline(const cfStepOps *ops)
{
    cfStatus st = ops->save(ops->ctx);
    for (int k = 0; k < CF_STEP_STAGES && st == CF_OK; ++k) {
        double t0 = cf_seconds();
        st = ops->stage[k](ops->ctx);
        ops->seconds[k] += cf_seconds() - t0;
    }
    if (st == CF_OK) st = ops->finite(ops->ctx);
    if (st == CF_OK) ops->commit(ops->ctx);
    else ops->restore(ops->ctx);
    return st;
}

/* a step of a pipeline's own (CMR, ipc), as one transaction */
static cfStatus transaction(cfWorld *w, cfStatus (*step)(cfWorld *w))
{
    StepCtx c = {.w = w};
    cfStatus st = op_save(&c);
    if (st == CF_OK) st = step(w);
    if (st == CF_OK) st = check_state(w, &c.sv);
    if (st == CF_OK) op_commit(&c);
    else op_restore(&c);
    return st;
}

cfStatus cf_world_step_with(cfWorld *w, cfStepFn step)
{
    w->error.msg[0] = '\0';
    cfStatus st = cf_world_def_check(&w->def, &w->error);
    if (st != CF_OK) return st;
    const cfPipeline *pl = cf_pipeline_of(w->def.pipeline);
    if ((st = pl->check(w, &w->error)) != CF_OK) return st;
    if (step && w->def.pipeline != CF_PIPELINE_VELOCITY)
        return fail(w, CF_BAD_INPUT, "a step function (ch11.1) runs the velocity pipeline's stages; this world's pipeline is '%s'",
                    pl->name);
    memset(&w->stats, 0, sizeof w->stats);
    if (w->def.pipeline != CF_PIPELINE_VELOCITY || w->def.cmr_rounds > 0) {
        st = transaction(w, pl->step);
    } else if ((st = work_reserve(w)) != CF_OK) {
        return fail(w, st, "out of memory");
    } else {
        StepCtx c = {.w = w};
        _Static_assert(CF_STEP_STAGES == CF_STAGE_COUNT, "one entry of cfStepOps::stage per world stage");
        cfStepOps ops = {.ctx = &c,
                         .stage = {op_detect, op_contacts, op_velocities, op_assemble, op_solve, op_positions, op_stabilize},
                         .seconds = w->stats.stage_seconds, .save = op_save, .restore = op_restore,
                         .finite = op_finite, .commit = op_commit};
        for (int k = 0; k < CF_STEP_STAGES; ++k) ops.name[k] = cf_stage_name((cfStage)k);
        st = (step ? step : world_pipeline)(&ops);
        op_drop(&c); /* a pipeline that neither committed nor restored */
    }
    if (st != CF_OK) {
        if (st == CF_NO_MEMORY) fail(w, st, "out of memory");
        fail(w, st, "the step failed: %s", cf_status_name(st));
    } else {
        /* a committed step whose solve did not converge (cf_solvers.h), whatever the policy let it do */
        w->unconverged_steps += w->stats.contact_solve && w->stats.solver_status != CF_OK;
        w->retried_steps += w->stats.solver_retries > 0;
    }
    return st;
}

cfStatus cf_world_step(cfWorld *w) { return cf_world_step_with(w, NULL); }
