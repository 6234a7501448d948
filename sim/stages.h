/* SPDX-License-Identifier: MIT */
/* The velocity pipeline's stages (the table of cf_world.h) as functions with explicit inputs and
   outputs, and the step's scratch space that carries each stage's output to the next. Shared by
   the files of the velocity step and by nothing else:

     stage_detect.c     CF_STAGE_DETECT (contacts, warm starts) and CF_STAGE_CONTACTS (frames, laws)
     stage_integrate.c  CF_STAGE_VELOCITIES (free velocities, soft systems) and CF_STAGE_POSITIONS
     stage_assemble.c   CF_STAGE_ASSEMBLE: matrix-free rows or the assembled problem (soft dual forms merged)
     dual.c             CF_STAGE_ASSEMBLE for a dual-form solver (chapter 8): the system and its apply
     stage_solve.c      CF_STAGE_SOLVE (the solver, the one apply) and CF_STAGE_STABILIZE (split impulse)
     velocity.c         the stages wired in order: the one driver, and the table handed to chapter 11
     cmr.c              constraint manifold refinement (ch08.6) over the same stages

   Each stage reads the world's bodies and settings and the contact list it is given, writes the
   bodies' new state, its own output struct below and, on failure, one line in w->error
   (cf_step_fail()). Which output each stage writes is said at each struct. */
#ifndef CF_SIM_STAGES_H
#define CF_SIM_STAGES_H

#include "cf/cf_ch02.h"
#include "cf/cf_dual.h"
#include "cf/cf_solvers.h"
#include "internal.h"

/* a growable array of doubles (cf_buf_reserve()) */
typedef struct cfBuf {
    double *v;
    int cap;
} cfBuf;

/* room for @p n doubles in @p b (its contents are kept); CF_NO_MEMORY */
cfStatus cf_buf_reserve(cfBuf *b, int n);

/* CF_STAGE_DETECT's memory: the contact list of two steps ago (this step's detection reuses it),
   the persistent manifolds and the detection threads' scratch, the number of threads */
typedef struct cfDetectWork {
    cfContactList spare;
    struct cfManifoldCache *manifolds;
    int threads; /* cf_threads() when the work space was made */
} cfDetectWork;

/* A soft body's share of the step (ch01.4/ch01.5, ch02.8):
   - CF_STAGE_VELOCITIES writes the state its implicit system is built at (beta, xs, us, moved),
     for a dual-form solver that system (A, b) and its free velocity vfree, and u_new (and u_flat)
     when the body's velocity is solved there (no contact);
   - CF_STAGE_ASSEMBLE (assembled forms) writes its contacts in ch02.4's form (nc, global, sc) and
     its dual form (dual, fc): nc = 0 when nothing touches the body;
   - CF_STAGE_SOLVE writes the contacts' impulses (lam) and u_new (u_flat) from them;
   - CF_STAGE_POSITIONS reads beta, xs, u_new, moved. */
typedef struct cfSoftStep {
    double beta;          /* step of the implicit system: h (implicit Euler) or 2h/3 (BDF2) */
    cfVec3 *xs;           /* x*: positions the forces are linearized about; x+ = x* + beta u+ */
    cfVec3 *us;           /* u*: the velocity in b = M u* + beta f */
    cfVec3 *u_new;        /* u+ (N) */
    bool moved;           /* u_new holds this step's velocity (an implicit integrator ran) */
    cfCsr A;              /* the dual form's system of this step (ch08.1) and b; kept over the rounds of CMR */
    double *b;
    double *vfree;        /* its unconstrained velocity A^-1 b (3 N) */
    int nc;               /* contacts on this body */
    int *global;          /* their indices in the step's contact list */
    cfSoftContact *sc;    /* the contacts seen from this body (ch02.4's barycentric form) */
    cfSoftDual dual;      /* A, b, J, the factor (ch02.8) */
    cfFrictionProblem fc; /* W_s = J A^-1 J^T, q_s = J A^-1 b */
    double *lam;          /* the contacts' impulses (3 nc) */
    double *u_flat;       /* u+ as 3N doubles */
    int cap_nodes;        /* nodes allocated in the arrays above */
    int cap_nc;           /* contacts allocated */
} cfSoftStep;

/* every soft body's share, one per soft body of the world */
typedef struct cfSoftSteps {
    cfSoftStep *body;
    int cap;
} cfSoftSteps;

/* CF_STAGE_ASSEMBLE's output: the problem in the solver's form and what it is made of; the solve
   and stabilize stages read it (and cf_world_write_problem() its FC3D form) */
typedef struct cfAssembly {
    cfSolverParams par;     /* the solver's parameters of this step */
    double erp, cfm;        /* this step's ERP and CFM (cf_world_erp_cfm()); erp is the split stage's */
    cfBuf impact;           /* nc: Newton's impact target e u_n^- (< 0) of each contact, 0 without impact */
    bool impacts;           /* some contact impacts this step (else the problem's impact is NULL) */
    cfBuf phi;              /* nc: the gaps the bias is made of (assembled forms: phi, erp phi, or the impact's) */
    cfFormWork form;        /* the solver's form and work space (every solver, rows included) */
    cfFrictionProblem fc;   /* the assembled contact problem (assembled forms) */
    cfContactProblem prob;  /* what the solver gets */
    bool directional;       /* a contact of this step has the texture law's directional box (chapter 10.6) */
    /* the dual form (CF_FORM_DUAL): the system, the velocities the solver returns, the offsets of
       every rigid body's and soft body's unknowns in it (-1: not in the system) */
    cfDualSystem dual;
    cfBuf u_dual;
    int *rigid_off, *soft_off;
    /* split impulse for the assembled and dual forms (cfSolver::split absent; cf_stage_stabilize()):
       the velocity solve took no erp bias on the contacts between rigid sides (soft sides keep it),
       and the stabilize stage corrects their penetration by a position problem of their own */
    bool split;              /* this step does so */
    unsigned char *touch;    /* nb: rigid body i is connected to a soft body this step (its contacts keep the bias) */
    int cap_touch;
    int n_pos, cap_pos;      /* those contacts (none with a soft side), copied from the step's list */
    cfContact *pos_contacts;
    cfFrictionProblem pos;   /* their W at the pose of the solve, mu 0, CFM on the normals; q set by stabilize */
    cfBuf gap;               /* n_pos: each one's predicted gap phi + h u_n^+ after the velocity solve */
    cfFormWork pos_form;     /* the position solve's form and work: the solver's own (pgs-blocked for the dual form) */
} cfAssembly;

/* CF_STAGE_SOLVE's scratch: the impulses (3 nc) and the rigid velocities before the solve (6 nb) */
typedef struct cfSolveWork {
    cfBuf lambda;
    cfBuf ustar;
} cfSolveWork;

/* the islands of a step and what each needs */
typedef struct cfIslandWork {
    struct cfIslands *is;     /* ch11.2's islands of this step's contacts */
    const cfSolver **solver;  /* per island: the rule's solver (NULL: no contacts) */
    int cap;                  /* islands allocated in solver */
    cfContactList sub;        /* one island's contacts, copied (their extras stay in the step's list) */
    int *index;               /* their indices in the step's list */
    int cap_index;
    char *was_fixed;          /* the bodies' fixed flags, while one island is solved */
    cfBuf pv, pv_one;         /* the pseudo-velocities of every island (6 nb), of one */
    int *rest;                /* nb: steps each rigid body has been at rest (cfWorldDef::sleep_steps), kept between steps */
    int cap_rest;
    bool moved;               /* some island has pseudo-velocities */
} cfIslandWork;

/* scratch of the step, kept between steps to reuse its memory: one member per stage */
struct cfStepWork {
    cfDetectWork detect;
    cfSoftSteps soft;
    cfAssembly as;
    cfSolveWork solve;
    cfBuf pv; /* CF_STAGE_STABILIZE: 6 nb split-impulse pseudo-velocities, then 6 nb saved velocities */
    cfIslandWork islands; /* a solver per island (cfWorldDef::per_island) */
};

/* the world's scratch space, made on first use (work.c); NULL when out of memory */
struct cfStepWork *cf_step_work(cfWorld *w);

/* a one-line reason for the step's failure in w->error (the first one written wins); returns @p st */
cfStatus cf_step_fail(cfWorld *w, cfStatus st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* the name of side @p side of @p c for messages: a body's name, or "the environment" */
const char *cf_side_name(const cfWorld *w, const cfContact *c, int side);

/* a contact solve runs this step: a solver is set and there are contacts */
static inline bool cf_step_solving(const cfWorld *w, const cfContactList *contacts)
{
    return w->def.solver != NULL && contacts->count > 0;
}

/* the solver takes the dual form (chapter 8) */
static inline bool cf_step_dual_form(const cfWorld *w) { return w->def.solver && w->def.solver->form == CF_FORM_DUAL; }

/* is side @p side of @p c a point of soft body i? */
static inline bool cf_on_soft(const cfContact *c, int side, int i)
{
    const cfSoftSide *s = cf_contact_soft(c, side);
    return s && s->body == i;
}

/* does any contact of @p contacts touch soft body i? */
bool cf_soft_touched(const cfContactList *contacts, int i);

/* contact @p c (with a soft side) in ch02.4's barycentric form: its soft sides, or with @p body >= 0
   only the sides on soft body @p body (the other side is then static from that body's view) */
cfSoftContact cf_soft_contact_of(const cfContact *c, int body);

/* the stats of the step's last solve */
void cf_step_record_solve(cfStepStats *stats, const cfReport *rep, cfMeasure measure, cfStatus st);

/* ---- the stages ---------------------------------------------------------------------------- */

/* CF_STAGE_DETECT: this step's contacts in *contacts (the previous step's on entry: their
   impulses are carried over by feature, then by proximity, for warm starting); w->stats.n_contacts.
   On failure *contacts is the previous step's. */
cfStatus cf_stage_detect(cfWorld *w, cfDetectWork *dw, cfContactList *contacts);

/* CF_STAGE_CONTACTS: the frames (ch02.2) and friction laws (the world's pairs, chapter 10's
   ellipses) of @p contacts, when a solver will use them; refuses the contacts the solver cannot take */
cfStatus cf_stage_contacts(cfWorld *w, cfContactList *contacts);

/* the world's friction pair of contact @p c of @p list (NULL in *pair: the bodies' sqrt(mu_a mu_b)),
   applied to c: mu, and the law with its direction at the contact point in c's extra (made in the
   list's store); *a_is: the pair's index of the body that is c's side A. CF_NO_MEMORY. */
cfStatus cf_contact_law(const cfWorld *w, cfContactList *list, cfContact *c, const cfFrictionPair **pair, int *a_is);

/* the name of @p c's law for messages ("matchstick" for a Matchstick pair) */
const char *cf_contact_law_name(const cfContact *c, const cfFrictionPair *pair);

/* CF_STAGE_VELOCITIES: rigid free velocities u* = u + h M^-1 f (explicit Euler also moves the
   positions first); every soft body's implicit system state (and for a dual-form solver its system
   and free velocity), its new velocity when nothing in @p contacts touches it; the explicit soft
   integrators step whole */
cfStatus cf_stage_velocities(cfWorld *w, const cfContactList *contacts, cfSoftSteps *soft);

/* CF_STAGE_POSITIONS: rigid q+ = q + h H(q) u+ (ch01.2/3; explicit Euler moved already), soft
   x+ = x* + beta u+ of the bodies an implicit integrator moved */
cfStatus cf_stage_positions(cfWorld *w, const cfSoftSteps *soft);

/* CF_STAGE_ASSEMBLE: the problem of @p contacts in the form the solver consumes, in *as:
   matrix-free rows prepared by the row, the assembled FC3D problem (rigid by ch02.5, soft sides by
   their dual forms, ch02.8, in soft) and the form built from it, or the dual form (dual.c) */
cfStatus cf_stage_assemble(cfWorld *w, const cfContactList *contacts, cfSoftSteps *soft, cfAssembly *as);

/* contact @p c is corrected by the assembled forms' split stage (cfAssembly::split): its sides are
   rigid or static and its rigid bodies are not connected to a soft body through this step's
   contacts (a soft body has no position stage: moving rigid bodies by positions against it would
   press into it unopposed; such a group keeps Baumgarte whole, one stabilization per group) */
static inline bool cf_split_contact(const cfAssembly *as, const cfContact *c)
{
    if (!as->split || cf_contact_has_soft(c)) return false;
    return !(c->body_a >= 0 && as->touch[c->body_a]) && !(c->body_b >= 0 && as->touch[c->body_b]);
}

/* the fraction of contact @p c's penetration the velocity solve removes (the normal bias erp phi / h
   of a penetrating contact): 0 where a split stage corrects positions instead (the rows' split for
   every contact, the assembled forms' for cf_split_contact()), else this step's erp */
static inline double cf_bias_erp(const cfWorld *w, const cfAssembly *as, const cfContact *c)
{
    if (w->def.stabilization != CF_STAB_SPLIT) return as->erp;
    if (w->def.solver->split) return 0.0;
    return cf_split_contact(as, c) ? 0.0 : as->erp;
}

/* the dual form's assembly (dual.c): the system of every moving body and the contact rows, with
   the bias of cf_bias_erp(); as->prob names it */
cfStatus cf_assemble_dual(cfWorld *w, const cfContactList *contacts, const cfSoftSteps *soft, cfAssembly *as);

/* the dual form's apply (dual.c): the velocities the solver returned (as->u_dual), to the bodies */
void cf_apply_dual(cfWorld *w, const cfAssembly *as, cfSoftSteps *soft);

/* CF_STAGE_SOLVE: the impulses of the problem in *as, warm started from @p contacts and written
   back to them, and the ONE apply to the bodies' velocities (soft: u_new); the solve's stats */
cfStatus cf_stage_solve(cfWorld *w, cfContactList *contacts, cfAssembly *as, cfSoftSteps *soft, cfSolveWork *sv);

/* CF_STAGE_STABILIZE: split impulse with world.stabilization "split": pseudo-velocities (in @p pv)
   that move the positions only, for every solver family: the rows solvers' own split stage
   (cfSolver::split), else a frictionless position problem of the contacts between rigid sides
   solved by the same solver (the dual form: by pgs-blocked) */
cfStatus cf_stage_stabilize(cfWorld *w, const cfContactList *contacts, cfAssembly *as, cfBuf *pv);

/* the split stage's pseudo-velocities of the step's solve (cf_stage_stabilize() without the move),
   in pv->v[0 .. 6 nb); *active: some are not zero. They depend on the pose of the solve and the
   velocities it gave only, so they may be found before the positions stage moves the bodies. */
cfStatus cf_split_velocities(cfWorld *w, const cfContactList *contacts, cfAssembly *as, cfBuf *pv, bool *active);

/* move every dynamic rigid body by its pseudo-velocity pv[6 i .. 6 i + 6) over one step, its
   velocity kept */
cfStatus cf_split_move(cfWorld *w, const double *pv);

/* ---- a solver per island (islands.c, cfWorldDef::per_island) -------------------------------- */


/* CF_STAGE_ASSEMBLE with a solver per island: the islands of @p contacts and each one's solver */
cfStatus cf_islands_assemble(cfWorld *w, const cfContactList *contacts, cfIslandWork *iw);

/* CF_STAGE_SOLVE with a solver per island: each island with contacts assembled and solved by its
   solver alone (the bodies of the other islands held fixed meanwhile), its impulses written back
   to @p contacts, its split pseudo-velocities kept for the stabilize stage; the stats of the
   islands merged (iterations summed, the worst status, the largest common residual) */
cfStatus cf_islands_solve(cfWorld *w, cfContactList *contacts, cfIslandWork *iw, cfAssembly *as, cfSoftSteps *soft,
                          cfSolveWork *sv);

/* CF_STAGE_STABILIZE with a solver per island: the bodies moved by the islands' pseudo-velocities */
cfStatus cf_islands_stabilize(cfWorld *w, cfIslandWork *iw);


/* ---- the driver (velocity.c) and CMR (cmr.c) ------------------------------------------------ */

/* run stage @p s on the world's contacts and scratch space (the one place where each stage gets its
   inputs and outputs) */
cfStatus cf_velocity_stage(cfWorld *w, cfStage s);

/* run stages first..last in order, each timed into w->stats.stage_seconds; stops at the first that
   fails. The one stage driver: the velocity step, and CMR's rounds. */
cfStatus cf_velocity_stages(cfWorld *w, cfStage first, cfStage last);

/* a step by constraint manifold refinement (ch08.6) over the world's stages */
cfStatus cf_world_cmr_step(cfWorld *w);

#endif
