/* SPDX-License-Identifier: MIT */
/* CF_STAGE_ASSEMBLE: the contact problem in the form the solver consumes. Matrix-free rows are
   prepared by the solver's row; the assembled problem is chapter 2's: rigid sides by ch02.5 (a
   soft side counts as static there), soft sides by their dual forms (ch02.8) merged in, the bias
   and CFM by ch02.7; the solver's form is then built from it (cf_form_build()). The dual form of
   chapter 8 is dual.c's. Newton's impact law and the solver's parameters are common to all forms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf/cf_ch02.h"
#include "stages.h"

cfStatus cf_world_erp_cfm(const cfWorldDef *d, double *erp, double *cfm)
{
    if (d->contact_stiffness > 0.0) return cf_erp_cfm(d->dt, d->contact_stiffness, d->contact_damping, cfm, erp);
    *erp = d->erp;
    *cfm = d->cfm;
    return CF_OK;
}

static cfSolverParams solver_params(const cfWorldDef *d)
{
    cfSolverParams p = cf_solver_params_default();
    p.max_iter = d->solver_iterations;
    p.tol = d->solver_tolerance;
    p.soft_tol = d->soft_tolerance;
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

/* ---- soft sides: each soft body's dual form, merged into W and q ------------------------------ */

/* Soft body i's contacts of @p contacts in ch02.4's barycentric form (the other side is static
   from its point of view), then its dual form W_i = J_i A_i^-1 J_i^T, q_i = J_i A_i^-1 b_i (ch02.8)
   at the state of its implicit system, in @p sw */
static cfStatus soft_dual(cfWorld *w, const cfContactList *contacts, int i, cfSoftStep *sw)
{
    int m = 0;
    for (int a = 0; a < contacts->count; ++a) {
        const cfContact *c = &contacts->items[a];
        m += cf_on_soft(c, 0, i) || cf_on_soft(c, 1, i);
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
    for (int a = 0; a < contacts->count; ++a) {
        const cfContact *c = &contacts->items[a];
        if (!cf_on_soft(c, 0, i) && !cf_on_soft(c, 1, i)) continue;
        sw->sc[m] = cf_soft_contact_of(c, i);
        sw->global[m++] = a;
    }
    sw->nc = m;
    /* the implicit system at (x*, u*) with step beta is ch02.8's system of a body in that state */
    cfSoftBody view = w->soft[i];
    view.x = sw->xs;
    view.v = sw->us;
    cfStatus st = cf_soft_dual(&view, w->def.gravity, sw->beta, sw->sc, m, &sw->dual, &sw->fc);
    if (st != CF_OK)
        return cf_step_fail(w, st, "assemble: the dual form of soft body '%s' failed (ch02.8: %s)", w->soft[i].name,
                            cf_status_name(st));
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

/* per row of blk (rows by count[]): sort by column, sum equal columns, add to W */
static cfStatus add_rows(Block *blk, const int *count, int nc, cfBsr *W)
{
    cfStatus st = CF_OK;
    for (int a = 0; a < nc && st == CF_OK; ++a) {
        Block *row = &blk[count[a]];
        int n = count[a + 1] - count[a];
        qsort(row, (size_t)n, sizeof *row, block_cmp);
        for (int e = 0; e < n && st == CF_OK;) {
            Block sum = row[e];
            int f = e + 1;
            for (; f < n && row[f].col == sum.col; ++f)
                for (int v = 0; v < 9; ++v) sum.v[v] += row[f].v[v];
            st = cf_bsr_add_block(W, a, sum.col, sum.v);
            e = f;
        }
    }
    return st;
}

/* W = W_rigid + sum_i P_i W_i P_i^T and q = q_rigid + sum_i P_i q_i in @p fc, P_i mapping soft
   body i's contacts to their places in the step's list */
static cfStatus merge_soft(const cfWorld *w, const cfSoftSteps *soft, int nc, cfFrictionProblem *fc)
{
    /* every block, gathered per block row */
    int *count = calloc((size_t)nc + 1, sizeof *count);
    if (!count) return CF_NO_MEMORY;
    for (int a = 0; a < nc; ++a) count[a + 1] += fc->W.rowptr[a + 1] - fc->W.rowptr[a];
    for (int i = 0; i < w->n_soft; ++i) {
        const cfSoftStep *sw = &soft->body[i];
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
            const cfSoftStep *sw = &soft->body[i];
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
        st = add_rows(blk, count, nc, &W);
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

/* ---- the assembled problem ---------------------------------------------------------------------- */

/* What the assembled problem will take: W couples every two contacts that share a body (a block of
   9 doubles, and about as much again for the boxed LCP's copy and the Jacobian), a soft body's dual
   form a dense (3 m)^2 matrix for its m contacts. Refused beyond def.max_matrix_mb. */
static cfStatus check_size(cfWorld *w, const cfContactList *contacts)
{
    int nc = contacts->count;
    int *per = calloc((size_t)(w->n_bodies + w->n_soft + 1), sizeof *per);
    if (!per) return CF_NO_MEMORY;
    for (int a = 0; a < nc; ++a) {
        const cfContact *c = &contacts->items[a];
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
        return cf_step_fail(w, CF_BAD_INPUT,
                            "assemble: solver '%s' needs the assembled problem of %d contacts, about %.0f MB (every two "
                            "contacts that share a body are coupled), more than max_matrix_mb = %g: use a matrix-free "
                            "solver (pgs) or raise world.max_matrix_mb",
                            w->def.solver->name, nc, mb, w->def.max_matrix_mb);
    return CF_OK;
}

/* the ellipses of the anisotropic contacts (chapter 10), in their frames; none when all are isotropic */
static cfStatus ellipses(const cfContactList *contacts, cfFrictionProblem *fc)
{
    int nc = contacts->count;
    bool any = false;
    for (int a = 0; a < nc; ++a) any |= !cf_contact_isotropic(&contacts->items[a]);
    if (!any) return CF_OK;
    if (!(fc->ellipse = malloc((size_t)2 * nc * sizeof *fc->ellipse))) return CF_NO_MEMORY;
    for (int a = 0; a < nc; ++a) {
        const cfContact *c = &contacts->items[a];
        bool iso = cf_contact_isotropic(c);
        const double *k = iso ? NULL : c->extra->friction.coef;
        bool box = !iso && c->extra->friction.law == CF_LAW_DIRECTIONAL; /* texture: its symmetric bound */
        fc->ellipse[2 * a] = iso ? c->mu : box ? fmax(k[0], k[2]) : k[0];
        fc->ellipse[2 * a + 1] = iso ? c->mu : box ? fmax(k[1], k[3]) : k[1];
    }
    return CF_OK;
}

/* The assembled contact problem of every contact: rigid sides by ch02.5 (a soft side counts as
   static there), soft sides by their dual forms (ch02.8), merged; then the bias and CFM by
   ch02.7 with the world's rule (an open gap may close within the step: bias phi/h; a penetration
   is removed by the fraction erp: bias erp phi/h; an impact asks for its target, as->impact). */
static cfStatus assemble_fc3d(cfWorld *w, const cfContactList *contacts, cfSoftSteps *soft, cfAssembly *as)
{
    int nc = contacts->count;
    cf_fc_free(&as->fc);
    cfStatus size = check_size(w, contacts);
    if (size != CF_OK) return size;
    cfStatus st = cf_friction_problem_rigid(w->bodies, w->n_bodies, contacts->items, nc, &as->fc);
    if (st != CF_OK) return cf_step_fail(w, st, "assemble: the rigid contact problem failed (ch02.5: %s)", cf_status_name(st));
    bool touched = false;
    for (int i = 0; i < w->n_soft && st == CF_OK; ++i) {
        if (cf_soft_touched(contacts, i)) {
            touched = true;
            st = soft_dual(w, contacts, i, &soft->body[i]);
        }
    }
    if (st == CF_OK && touched) st = merge_soft(w, soft, nc, &as->fc);
    if (st != CF_OK) return cf_step_fail(w, st, "assemble: %s", cf_status_name(st));
    if (ellipses(contacts, &as->fc) != CF_OK) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    if (cf_buf_reserve(&as->phi, nc) != CF_OK) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    double *phi = as->phi.v;
    for (int a = 0; a < nc; ++a) {
        double g = contacts->items[a].phi;
        phi[a] = g >= 0.0 ? g : cf_bias_erp(w, as, &contacts->items[a]) * g;
        if (as->impacts && as->impact.v[a] < 0.0) phi[a] = fmin(phi[a], w->def.dt * as->impact.v[a]);
    }
    st = cf_stabilize(&as->fc, phi, w->def.dt, as->cfm, 1.0);
    if (st != CF_OK) return cf_step_fail(w, st, "assemble: bias and CFM (ch02.7: %s)", cf_status_name(st));
    return CF_OK;
}

/* a dynamic side of contact @p c as a node: rigid body i -> i, soft body s -> nb + s; -1 static or fixed */
static int side_node(const cfWorld *w, const cfContact *c, int side)
{
    const cfSoftSide *ss = cf_contact_soft(c, side);
    if (ss) return w->n_bodies + ss->body;
    int b = side == 0 ? c->body_a : c->body_b;
    return b >= 0 && !w->bodies[b].fixed ? b : -1;
}

static int find_root(int *parent, int i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

/* the dynamic rigid bodies connected to a soft body through this step's contacts (cfAssembly::touch):
   union-find over the dynamic bodies, joined by every contact between two of them */
static cfStatus soft_touch(cfWorld *w, const cfContactList *contacts, cfAssembly *as)
{
    int nb = w->n_bodies, n = nb + w->n_soft;
    if (nb > as->cap_touch) {
        unsigned char *t = realloc(as->touch, (size_t)nb);
        if (!t) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
        as->touch = t;
        as->cap_touch = nb;
    }
    if (nb > 0) memset(as->touch, 0, (size_t)nb);
    bool any = false;
    for (int a = 0; a < contacts->count && !any; ++a) any = cf_contact_has_soft(&contacts->items[a]);
    if (!any) return CF_OK;
    int *parent = malloc((size_t)n * sizeof *parent);
    unsigned char *soft = calloc((size_t)n, 1);
    if (!parent || !soft) {
        free(parent);
        free(soft);
        return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    }
    for (int i = 0; i < n; ++i) parent[i] = i;
    for (int a = 0; a < contacts->count; ++a) {
        int p = side_node(w, &contacts->items[a], 0), q = side_node(w, &contacts->items[a], 1);
        if (p >= 0 && q >= 0) parent[find_root(parent, p)] = find_root(parent, q);
    }
    for (int i = nb; i < n; ++i) soft[find_root(parent, i)] = 1;
    for (int i = 0; i < nb; ++i) as->touch[i] = soft[find_root(parent, i)];
    free(parent);
    free(soft);
    return CF_OK;
}

/* The position problem of the split stage for the assembled and dual forms (cfAssembly::split):
   the contacts of cf_split_contact(), their W at the pose of this step's solve (ch02.5), mu 0
   (pseudo-impulses are normal only) and this step's CFM on the normals; its q (the bias of the
   predicted penetration) is set by the stabilize stage */
static cfStatus position_problem(cfWorld *w, const cfContactList *contacts, cfAssembly *as)
{
    cf_fc_free(&as->pos);
    int m = 0;
    for (int a = 0; a < contacts->count; ++a) m += cf_split_contact(as, &contacts->items[a]);
    if (m > as->cap_pos) {
        cfContact *pc = realloc(as->pos_contacts, (size_t)m * sizeof *pc);
        if (!pc) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
        as->pos_contacts = pc;
        as->cap_pos = m;
    }
    as->n_pos = 0;
    for (int a = 0; a < contacts->count; ++a)
        if (cf_split_contact(as, &contacts->items[a])) as->pos_contacts[as->n_pos++] = contacts->items[a];
    if (m == 0) return CF_OK;
    if (cf_step_dual_form(w)) {
        /* the other forms checked the whole problem, these contacts included, before assembling it */
        const cfContactList rigid = {.count = m, .cap = m, .items = as->pos_contacts};
        cfStatus size = check_size(w, &rigid);
        if (size != CF_OK) return size;
    }
    if (cf_buf_reserve(&as->gap, m) != CF_OK) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    cfStatus st = cf_friction_problem_rigid(w->bodies, w->n_bodies, as->pos_contacts, m, &as->pos);
    if (st == CF_OK) {
        for (int k = 0; k < m; ++k) as->pos.mu[k] = 0.0, as->gap.v[k] = 0.0;
        st = cf_stabilize(&as->pos, as->gap.v, w->def.dt, as->cfm, 0.0);
    }
    if (st != CF_OK)
        return cf_step_fail(w, st, "assemble: the position problem of the split stage (ch02.5: %s)", cf_status_name(st));
    return CF_OK;
}

/* Newton's impact law (cf_world.h: restitution_threshold): a contact between rigid sides (or a
   rigid side and the static ground) whose normal velocity u_n^- = n . (v_B(p) - v_A(p)), taken
   after the velocities stage (gravity of this step included), is below -threshold and that closes
   within the step (phi + h u_n^- < 0) impacts with e = the larger restitution of its rigid sides
   (Box2D's rule); its target e u_n^- lowers the normal bias of every form to min(bias, e u_n^-),
   so the solve leaves it at u_n^+ >= -e u_n^- (or faster, when the penetration bias asks more).
   Soft sides have no restitution: their contacts stay inelastic. Fills as->impact and as->impacts. */
static cfStatus impacts(cfWorld *w, const cfContactList *contacts, cfAssembly *as)
{
    as->impacts = false;
    if (cf_buf_reserve(&as->impact, contacts->count) != CF_OK) return cf_step_fail(w, CF_NO_MEMORY, "out of memory");
    double *impact = as->impact.v;
    for (int a = 0; a < contacts->count; ++a) {
        const cfContact *c = &contacts->items[a];
        impact[a] = 0.0;
        if (cf_contact_has_soft(c)) continue;
        double e = 0.0;
        for (int s = 0; s < 2; ++s) {
            int b = s == 0 ? c->body_a : c->body_b;
            if (b < 0) continue;
            double eb = w->bodies[b].restitution;
            if (!(eb >= 0.0 && eb <= 1.0))
                return cf_step_fail(w, CF_BAD_INPUT, "bodies[%d].restitution: must be in [0, 1] (got %g)", b, eb);
            e = fmax(e, eb);
        }
        if (e == 0.0) continue;
        cfVec3 dv = cfu_zero3();
        if (c->body_b >= 0) dv = cf_rigid_point_velocity(&w->bodies[c->body_b], c->p);
        if (c->body_a >= 0) dv = cfu_sub(dv, cf_rigid_point_velocity(&w->bodies[c->body_a], c->p));
        double un = cfu_dot(c->n, dv);
        if (un < -w->def.restitution_threshold && c->phi + w->def.dt * un < 0.0) {
            impact[a] = e * un;
            as->impacts = true;
        }
    }
    if (as->impacts && w->def.solver->no_impacts)
        return cf_step_fail(w, CF_BAD_INPUT, "solver: '%s' takes no restitution (a contact impacts with e > 0 this step); "
                            "use pgs or an assembled solver, or set the bodies' restitution to 0", w->def.solver->name);
    return CF_OK;
}

cfStatus cf_stage_assemble(cfWorld *w, const cfContactList *contacts, cfSoftSteps *soft, cfAssembly *as)
{
    if (!cf_step_solving(w, contacts)) return CF_OK;
    /* no soft body has contacts of its own until this step's assembly gives it some (the apply
       maps each body's impulses through its dual form of this step, never of an earlier one) */
    for (int i = 0; i < w->n_soft; ++i) {
        cfSoftStep *sw = &soft->body[i];
        cf_soft_dual_free(&sw->dual);
        cf_fc_free(&sw->fc);
        sw->nc = 0;
    }
    const cfSolver *s = w->def.solver;
    cfStatus st = cf_world_erp_cfm(&w->def, &as->erp, &as->cfm);
    if (st != CF_OK)
        return cf_step_fail(w, st, "contact_stiffness: no ERP and CFM for this spring (ch02.7: %s)", cf_status_name(st));
    if ((st = impacts(w, contacts, as)) != CF_OK) return st;
    as->par = solver_params(&w->def);
    /* with split impulse the velocity solve leaves penetrations to the stabilize stage: the rows'
       own split, or the position problem of the rigid contacts (cf_bias_erp()) */
    double erp = (w->def.stabilization == CF_STAB_SPLIT && s->split) ? 0.0 : as->erp;
    as->split = w->def.stabilization == CF_STAB_SPLIT && !s->split && as->erp > 0.0;
    as->n_pos = 0;
    as->directional = false;
    if (as->split && (st = soft_touch(w, contacts, as)) != CF_OK) return st;
    if (s->form == CF_FORM_ROWS) {
        memset(&as->prob, 0, sizeof as->prob);
        as->prob = (cfContactProblem){.form = CF_FORM_ROWS, .nc = contacts->count, .bodies = w->bodies,
                                      .nb = w->n_bodies, .contacts = contacts->items, .h = w->def.dt, .erp = erp,
                                      .cfm = as->cfm, .gravity = w->def.gravity,
                                      .impact = as->impacts ? as->impact.v : NULL};
        cf_form_work_use(&as->form, s);
        st = s->prepare(&as->form.work, &as->prob, &as->par);
        if (st != CF_OK)
            return cf_step_fail(w, st, "assemble: solver '%s' could not prepare its rows (%s)", s->name, cf_status_name(st));
        return CF_OK;
    }
    if (cf_step_dual_form(w)) {
        /* the dual form's size check is its own; its position problem's, an assembled W of the
           rigid contacts alone, is position_problem()'s */
        st = cf_assemble_dual(w, contacts, soft, as);
    } else {
        st = assemble_fc3d(w, contacts, soft, as);
        if (st == CF_OK) st = cf_form_build(&as->form, s, &as->fc, &as->par, &as->prob, &w->error);
        /* a directional row's box: the texture contacts' own (chapter 10.6) */
        for (int a = 0; st == CF_OK && s->directional && a < contacts->count; ++a) {
            const cfFriction *f = cf_contact_friction(&contacts->items[a]);
            if (f->law != CF_LAW_DIRECTIONAL) continue;
            as->directional = true;
            if ((st = cf_form_directional(&as->form, s, a, f->coef)) != CF_OK)
                cf_step_fail(w, st, "assemble: the directional box of contact %d (%s)", a, cf_status_name(st));
        }
    }
    if (st == CF_OK && as->split) st = position_problem(w, contacts, as);
    return st;
}

cfStatus cf_world_write_problem(const cfWorld *w, const char *path, cfError *err)
{
    if (!w->work || w->work->as.fc.nc == 0)
        return cf_error_set(err, CF_BAD_INPUT, "%s: no assembled contact problem to write (the last step's solver, if "
                            "any, works on rigid rows or there were no contacts)", path);
    /* a texture contact's box (mu_+t, mu_+b, mu_-t, mu_-b) is asymmetric: the FC3D problem's ellipse
       is only its symmetric bound, so writing it would hand `cflab solve` another law */
    const cfAssembly *as = &w->work->as;
    if (as->directional) {
        int n = 0;
        for (int a = 0; a < w->contacts.count; ++a) n += cf_contact_friction(&w->contacts.items[a])->law == CF_LAW_DIRECTIONAL;
        return cf_error_set(err, CF_BAD_INPUT, "%s: not written: %d of the last step's %d contacts have texture friction, "
                            "whose directional boxes (mu_+t, mu_+b, mu_-t, mu_-b, chapter 10.6) are asymmetric and no "
                            "friction cone; the Siconos FC3D format holds cones only", path, n, as->fc.nc);
    }
    return cf_fc_write_siconos(path, &as->fc, err);
}
