/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch11.h
 * @brief Chapter 11 exercises, the capstone: the step as a pipeline of the chapters' stages,
 *        a solver chosen per island, and impact ordering on a Newton's cradle.
 *
 * The text is chapters/ch11/README.md; the tests are chapters/ch11/tests/test_ch11.c
 * (`make test-ch11`). Each function marked "ch11.K" is an exercise: its specification here is
 * authoritative. Your implementations go in exercises/ch11/; they may call anything in
 * lib/include/cf/ and chapters 1-10 (cf_ch01.h ... cf_ch10.h), nothing of the simulation
 * layer `sim/` (the world, the solver registry): `tools/layers` checks it.
 * The grader holds each exercise file to docs/grading.md ("What an exercise may use"): helpers
 * and file-scope variables are `static`; from the C library only allocation, memory and string
 * functions, qsort, bsearch, the math library and printing to stdout/stderr; and no file is
 * opened (the library's cf_*_read_siconos(), cf_*_write_siconos() and cf_scene_load() are refused).
 *
 * **Why the step reaches the world through a table.** The world (`sim/`, cf_world.h) sits above
 * the chapters: it is the one code that calls them. A chapter that called the world would turn
 * the arrows around, so the world hands its stages down as a table of callbacks (::cfStepOps),
 * exactly as chapter 8's constraint manifold refinement gets its rounds (cfCmrOps). Each stage
 * is a chapter's work (detection ch03, frames ch02/ch10, free velocities ch01, assembly ch02,
 * the solve through the solver interface cf_solver.h and the one apply, positions ch01, split
 * impulse ch05); the pipeline decides their order and what happens when one fails.
 * `cf_world_step_with(w, cf_pipeline_step)` steps a world by your pipeline.
 */
#ifndef CF_CH11_H
#define CF_CH11_H

#include <stdbool.h>

#include "cf/cf_base.h"
#include "cf/cf_body.h"
#include "cf/cf_contact.h"
#include "cf/cf_stages.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/** @name ch11.1 The step as a pipeline of stages
 *  @{ */

/* The table of stages, cfStepOps, and cfStepFn are in cf/cf_stages.h (the world's header needs them). */


/**
 * @brief ch11.1: one step of the world as a transaction over its stages.
 *
 * 1. save(); its failure is returned at once (nothing ran);
 * 2. run stage[0], ..., stage[6] in this order, each timed by cf_seconds() with its time added to
 *    seconds[k]; stop at the first stage that fails (later stages do not run);
 * 3. when every stage succeeded: finite();
 * 4. success: commit() and return CF_OK. Any failure of 2 or 3: restore() (the world is as it
 *    was before the step) and return that status.
 * Exactly one of commit() and restore() is called after a successful save().
 * CF_BAD_INPUT (nothing called) when @p ops or one of its callbacks or @p ops->seconds is NULL.
 *
 * Worked example (the tests' mock world, which logs each call): a step whose stages all succeed
 * logs "save detect contacts velocities assemble solve positions stabilize finite commit"; when
 * "assemble" fails: "save detect contacts velocities assemble restore".
 */
cfStatus cf_pipeline_step(const cfStepOps *ops);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch11.2 Islands and a solver per island
 *  @{ */

/**
 * The islands of a step: the connected components of the graph whose nodes are the dynamic
 * bodies (rigid bodies that are not fixed, every soft body) and whose edges are the contacts
 * between two of them. A fixed body or the static environment joins nothing: two boxes resting
 * on the same ground are two islands. Islands are numbered 0, 1, ... in the order of their first
 * body when the rigid bodies 0..nb-1 and then the soft bodies 0..ns-1 are visited.
 */
typedef struct cfIslands {
    int count;       /**< number of islands */
    int nb;          /**< rigid bodies */
    int ns;          /**< soft bodies */
    int nc;          /**< contacts */
    int *of_body;    /**< nb: island of each rigid body, -1 for a fixed body */
    int *of_soft;    /**< ns: island of each soft body */
    int *of_contact; /**< nc: island of each contact (of its dynamic side), -1 when neither side is dynamic */
} cfIslands;

/** Free the arrays of @p is and zero it (provided). */
void cf_islands_free(cfIslands *is);

/**
 * @brief ch11.2 (part 1): the islands of @p nb rigid bodies, @p ns soft bodies and @p nc contacts.
 *
 * Allocates @p out's arrays (free with cf_islands_free(); provided checks and allocation) and
 * fills them as ::cfIslands says: a union-find (or a graph search) over the contacts whose two
 * sides are dynamic bodies, then the numbering by first body. A contact between a dynamic body
 * and a fixed or static side belongs to the body's island.
 * CF_BAD_INPUT (out zeroed) for NULL arrays with counts > 0, negative counts, or a contact that
 * names a rigid body outside 0..nb-1 or a soft body outside 0..ns-1; CF_NO_MEMORY.
 *
 * Worked example: bodies ground (fixed), A, B, C; contacts ground-A, A-B, ground-C: islands
 * {A, B} = 0 and {C} = 1; of_body = (-1, 0, 0, 1), of_contact = (0, 0, 1).
 */
cfStatus cf_islands_find(const cfRigidBody *bodies, int nb, int ns, const cfContact *contacts, int nc, cfIslands *out);

/** What the rule of cf_island_solver() looks at in one island (cf_island_summary(), provided). */
typedef struct cfIslandSummary {
    int rigid;        /**< dynamic rigid bodies */
    int soft;         /**< soft bodies */
    int contacts;     /**< contacts */
    bool anisotropic; /**< a contact has an anisotropic law (cf_contact_isotropic() false): an ellipse or a directional box */
    bool directional; /**< a contact has the directional box of texture friction (CF_LAW_DIRECTIONAL, chapter 10.6), which
                           only a directional row reads (cfSolver::directional); @ref anisotropic is then true too */
} cfIslandSummary;

/** Summary of island @p k of @p is (provided). */
cfIslandSummary cf_island_summary(const cfIslands *is, int k, const cfContact *contacts);

/** The largest island (in contacts) that the reference's cf_island_solver() gives to an exact pivoting method. */
#define CF_EXACT_MAX_CONTACTS 8

/**
 * @brief ch11.2 (part 2): the solver (a row name of the registry, `cflab solvers`) for an island.
 *
 * The rule is yours; the tests check what makes a rule sensible, not the reference's numbers:
 * - no contacts: NULL (free motion, nothing to solve); otherwise the name of a row of the
 *   registry (the test looks it up with cf_solver_find(); your code only names it, as sim/ is not
 *   yours to call) that solves world contacts (cfSolver::contacts) and takes the island: an
 *   assembled form (not CF_FORM_ROWS) when it has a soft body, a row that reads the directional box
 *   (cfSolver::directional) when a contact has texture friction (no row solves both that box and an
 *   ellipse as it is: such a row takes an ellipse as its pyramid), otherwise a row that solves
 *   ellipses (cfSolver::anisotropic) when a contact is anisotropic;
 * - a rigid island with isotropic friction and at most 4 contacts gets an exact pivoting
 *   method (cfSolver::dense), one with 64 contacts or more does not (its cost grows with the cube
 *   of the unknowns), and in between the exact sizes are those below a threshold of your choice
 *   (once a size gets an iterative row, every larger one does).
 *
 * The reference's rule, first match wins (the chapter's text explains each line):
 * 1. no contacts: NULL;
 * 2. texture friction (a directional box): "pgs-texture" (chapter 10.6: the box as it is, an
 *    ellipse of the island as its pyramid; an assembled form, so it takes soft contacts too);
 * 3. a soft body: "prox-gs-aniso" when a contact is anisotropic, else "dual" (the dual form of
 *    chapter 8: soft contacts need an assembled problem, and its exact preconditioner is
 *    the implicit soft step);
 * 4. anisotropic contacts (rigid only): "pgs-blocked-aniso" (chapter 10);
 * 5. at most #CF_EXACT_MAX_CONTACTS (8) contacts: "lemke" (chapter 4: exact, small stacks stand still);
 * 6. otherwise "pgs" (chapter 5: a pile, cost linear in the contacts).
 */
const char *cf_island_solver(const cfIslandSummary *s);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch11.3 Restitution and impact ordering: the Newton's cradle
 *  @{ */

/**
 * @brief ch11.3 (part 1): sequential impacts on a chain of balls.
 *
 * @p n balls of masses m[i] > 0 on a line, touching, with velocities v[i] along the line; contact
 * i (0 <= i < n - 1) is between ball i and ball i + 1 (on its right), approaching at
 * \f$a_i = v_i - v_{i+1}\f$. A sweep visits i = 0, 1, ..., n - 2 in this order and resolves every
 * contact that approaches faster than @p tol (\f$a_i >\f$ tol) as a two-body collision with
 * Newton's restitution @p e in [0, 1]:
 * \f[ p = \frac{(1 + e)\, a_i}{1/m_i + 1/m_{i+1}}, \qquad v_i \mathrel{-}= p / m_i, \qquad v_{i+1} \mathrel{+}= p / m_{i+1} \f]
 * makes the pair separate at \f$e\, a_i\f$, and the next contact sees the new velocities. Sweeps
 * repeat until one resolves nothing.
 *
 * Writes the final velocities to @p v_out (may be @p v) and the sweeps that resolved something to
 * @p sweeps (may be NULL). CF_MAX_ITER (v_out the last velocities) when @p max_sweeps sweeps all
 * resolved something; CF_BAD_INPUT (provided) for n < 2, NULL arrays, a mass <= 0 or not finite,
 * e outside [0, 1], tol < 0, max_sweeps < 1.
 *
 * Worked example: three equal balls, v = (1, 0, 0), e = 1: contact 0 gives (0, 1, 0), contact 1
 * (0, 0, 1); the next sweep finds nothing: v_out = (0, 0, 1), sweeps = 1. With e = 0 the same
 * balls converge to (1/3, 1/3, 1/3) over many sweeps (geometrically).
 */
cfStatus cf_impacts_sequential(int n, const double *m, const double *v, double e, double tol, int max_sweeps,
                               double *v_out, int *sweeps);

/**
 * @brief ch11.3 (part 2): simultaneous impacts, one LCP for every contact of the chain.
 *
 * Same chain as cf_impacts_sequential(). The impulses p (n - 1 values, p_i >= 0 pushing ball i
 * left and ball i+1 right) solve the LCP of Newton's law at every contact at once:
 * \f[ w = A p + b, \quad 0 \le p \perp w \ge 0, \quad A = J M^{-1} J^T, \quad b_i = (1 + e)(v_{i+1} - v_i), \f]
 * where J's row i is (.., -1 at i, +1 at i+1, ..):
 * \f$w_i = (v^+_{i+1} - v^+_i) + e\, (v_{i+1} - v_i)\f$ is the separating velocity after the
 * impacts plus e times the one before (A is tridiagonal with \f$A_{ii} = 1/m_i + 1/m_{i+1}\f$,
 * \f$A_{i,i+1} = A_{i+1,i} = -1/m_{i+1}\f$). Solve it with chapter 4 (cf_lcp_lemke()), then
 * \f$v_{out} = v + M^{-1} J^T p\f$. Writes @p p (may be NULL) and @p v_out (may be @p v).
 * Errors of the LCP solver are returned; CF_BAD_INPUT as for cf_impacts_sequential() (provided).
 *
 * Worked example: three equal balls, v = (1, 0, 0): e = 1 gives p = (4/3, 2/3) and
 * v_out = (-1/3, 2/3, 2/3) (momentum and energy kept, yet not the cradle's (0, 0, 1)); e = 0 gives
 * p = (2/3, 1/3) and v_out = (1/3, 1/3, 1/3).
 */
cfStatus cf_impacts_simultaneous(int n, const double *m, const double *v, double e, double *p, double *v_out);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH11_H */
