/* SPDX-License-Identifier: MIT */
/**
 * @file cf_ch04.h
 * @brief Chapter 4 exercises: pivoting methods for the LCP (Dantzig/Baraff, Baraff with friction,
 *        Lemke, Murty's principal pivoting, block principal pivoting).
 *
 * The text is chapters/ch04/README.md; the tests are chapters/ch04/tests/test_ch04.c
 * (`make test-ch4`). Each function marked "exercise" is one: its specification here is
 * authoritative. Your implementations go in exercises/ch04/ (dantzig.c, baraff.c, lemke.c,
 * principal.c); they may call anything in lib/include/cf/ (cf_linalg.h for dense solves,
 * cf_problem.h for residuals) but nothing from later chapters.
 * The grader holds each exercise file to docs/grading.md ("What an exercise may use"): helpers
 * and file-scope variables are `static`; from the C library only allocation, memory and string
 * functions, qsort, bsearch, the math library and printing to stdout/stderr; and no file is
 * opened (the library's cf_*_read_siconos(), cf_*_write_siconos() and cf_scene_load() are refused).
 *
 * **The problem.** LCP (cf_problem.h): w = A x + b, 0 <= x ⊥ w >= 0 (Siconos: w = M z + q).
 *
 * **Index sets** (notes §3.1, Baraff 1994), one label per variable, ::cfPivotLabel:
 * - FREE (Baraff's "clamped" C): w_i = 0 is maintained, x_i >= 0 varies;
 * - LOWER (Baraff's NC): x_i = 0 is maintained, w_i >= 0 varies;
 * - UPPER: a friction variable at its bound mu f_N (ch04.2 only);
 * - UNSEEN: not processed yet (x_i = 0, w_i anything).
 *
 * **Common contract of the LCP solvers** cf_lcp_dantzig(), cf_lcp_lemke(), cf_lcp_murty(),
 * cf_lcp_bpp():
 * - @p opt may be NULL: cf_pivot_options_default() (provided code, before your part runs).
 * - @p x (n values) receives the solution; it is read only as a warm start where the options say so.
 * - @p rep (may be NULL) receives status, `iterations` = pivots (for BPP: linear solves), the final
 *   natural-map residual ||min(x, w)||_2 (cf_lcp_residual()), wall time, and when a history buffer is
 *   attached the same residual after every pivot.
 * - Status: CF_OK solved; CF_MAX_ITER pivot limit reached; CF_INFEASIBLE no solution found by a
 *   method that proves it (Lemke's ray for copositive-plus A, Dantzig's unbounded drive for
 *   symmetric PSD A); CF_SINGULAR a principal submatrix that had to be solved is singular; CF_BAD_INPUT
 *   NULL pointers, n < 1, non-finite data (checked before any pivoting; provided code).
 * - On any status other than CF_OK, x holds the last iterate (finite) and the status says why.
 * - Sign tests use the tolerance opt->tol scaled by the data: a w-value counts as negative when
 *   below -tol * max(||b||_inf, DBL_MIN), an x-value when below -tol * max(||b||_inf, DBL_MIN) / amax
 *   with amax = max |A_ij| (cf_pivot_scales()). A solution is returned with x clamped to x >= 0.
 */
#ifndef CF_CH04_H
#define CF_CH04_H

#include "cf/cf_base.h"
#include "cf/cf_linalg.h"
#include "cf/cf_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/** @name Options, labels and tracing (provided)
 *  @{ */

/** Index-set label of one variable (see the file comment). */
typedef enum cfPivotLabel {
    CF_PIV_UNSEEN = 0, /**< not processed yet */
    CF_PIV_FREE,       /**< w_i = 0 maintained, x_i varies (Baraff: clamped, C) */
    CF_PIV_LOWER,      /**< x_i = 0 maintained, w_i >= 0 (Baraff: not clamped, NC) */
    CF_PIV_UPPER,      /**< friction at its bound +-mu f_N (Baraff: NC+/NC-, NCF) */
    CF_PIV_LABEL_COUNT /**< number of labels */
} cfPivotLabel;

/** What a trace callback sees after each pivot. Pointers are valid only during the call. */
typedef struct cfPivotEvent {
    int pivot;                 /**< pivots so far (1 for the first) */
    int n;                     /**< number of variables */
    int entering;              /**< variable that changed set in this pivot (-1: none; Lemke: see cf_lcp_lemke()) */
    int leaving;               /**< variable that left the basis / set (-1: none) */
    double step;               /**< step length of this pivot (incremental methods; 0 otherwise) */
    const unsigned char *label;/**< n labels (::cfPivotLabel) after the pivot */
    const double *x;           /**< n values: current x (Lemke: x of the current basis; Murty/BPP: the
                                    solution of the subproblem that decided this pivot) */
    const double *w;           /**< n values: w = A x + b for that x */
} cfPivotEvent;

/** Called after every pivot when set in ::cfPivotOptions (demos, tests of invariants). */
typedef void (*cfPivotTrace)(void *ctx, const cfPivotEvent *ev);

/** Options shared by the pivoting solvers. Start from cf_pivot_options_default(). */
typedef struct cfPivotOptions {
    int max_pivots;       /**< pivot (BPP: iteration) limit; 0 = automatic: 100 n + 1000 */
    double tol;           /**< relative sign tolerance (default 1e-12; see the file comment) */
    bool refactor;        /**< ch04.1: refactor A_CC from scratch at each pivot instead of updating (benchmark baseline) */
    int bpp_pbar;         /**< ch04.5: Júdice–Pires safeguard budget p-bar (default 3); negative: no safeguard */
    bool warm_start;      /**< ch04.4, ch04.5: start from the free set {i : x_i > 0} of the given x */
    const double *cover;  /**< ch04.3: covering vector d (n values, all > 0); NULL: all ones */
    cfPivotTrace trace;   /**< called after every pivot (may be NULL) */
    void *trace_ctx;      /**< passed to @ref trace */
} cfPivotOptions;

/** Defaults: max_pivots 0 (automatic), tol 1e-12, no refactoring, p-bar 3, no warm start, d = 1. */
cfPivotOptions cf_pivot_options_default(void);

/** The automatic pivot limit for n variables: @p opt->max_pivots when positive, else 100 n + 1000. */
int cf_pivot_max(const cfPivotOptions *opt, int n);

/**
 * Tolerances for sign tests of w-values (@p tol_w) and x-values (@p tol_x) of an LCP with dense
 * matrix A and vector b: tol_w = tol max(||b||_inf, DBL_MIN), tol_x = tol_w / amax, amax = max|A_ij|
 * (1 when A = 0).
 */
void cf_pivot_scales(const cfDense *A, const double *b, double tol, double *tol_w, double *tol_x);

/**
 * The start that every pivoting solver shares, in the provided code: options and report set up.
 * When @p *opt is NULL it is replaced by the defaults, written to @p defaults; the report (may be NULL) is set to CF_BAD_INPUT with no iterations and no
 * history, so that a refusal before the first pivot is reported as one. Returns the start time to
 * hand to cf_pivot_report(): cf_seconds(), or 0 without a report (no clock reads when nobody asks).
 */
double cf_pivot_begin(const cfPivotOptions **opt, cfPivotOptions *defaults, cfReport *rep);

/**
 * Provided by the solutions' common code: validate an LCP for a pivoting solver and make the dense
 * copy. CF_BAD_INPUT (with a reason in @p why, 128 bytes, may be NULL) for NULL pointers, n < 1,
 * non-finite A or b, or sizes that disagree. Allocates @p A.
 */
cfStatus cf_pivot_prepare(const cfLcp *p, const double *x, cfDense *A, char *why);

/**
 * What the LCP pivoting solvers (Dantzig, Lemke, Murty, BPP) do after each pivot, in the provided
 * code: push the complementarity residual ||min(x, w)||_2 of the event's x and w to the history of
 * @p rep when it keeps one (rep may be NULL), then hand @p ev to @p opt->trace when that is set.
 * (Baraff's solver records its own measure, cf_baraff_violation(), and calls the trace itself.)
 */
void cf_pivot_notify(const cfPivotOptions *opt, cfReport *rep, const cfPivotEvent *ev);

/**
 * Fill the report of a pivoting solver (no-op when @p rep is NULL): status @p st, stop reason
 * CF_STOP_MAX_ITER when st is CF_MAX_ITER (else none), @p pivots as iterations, @p residual, and
 * the wall time since @p t0 (a cf_seconds() reading).
 */
void cf_pivot_report(cfReport *rep, cfStatus st, int pivots, double residual, double t0);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch04.1 Incremental (Dantzig/Baraff) pivoting with an updated Cholesky factor
 *  @{ */

/**
 * A Cholesky factor L L^T = A_CC of the principal submatrix of A on an ordered index list C,
 * kept up to date as indices are appended and removed (instead of refactoring).
 */
typedef struct cfCholUpdate {
    int k;       /**< current number of indices in C */
    int cap;     /**< capacity (the n of the LCP) */
    int *idx;    /**< idx[0..k-1]: the indices of C, in factor order */
    double *L;   /**< cap x cap, row-major; the lower triangle of the leading k x k block is L */
} cfCholUpdate;

/** Empty factor with room for @p cap indices (provided). */
cfStatus cf_chol_update_init(cfCholUpdate *F, int cap);
/** Free and zero (provided). */
void cf_chol_update_free(cfCholUpdate *F);
/** Solve A_CC y = r with the current factor (k values in, k out, factor order; may alias) (provided). */
void cf_chol_update_solve(const cfCholUpdate *F, const double *r, double *y);

/**
 * @brief ch04.1 (exercise): append index j to C: one triangular solve, O(k^2).
 *
 * With the new column a = A(C, j) and alpha = A_jj,
 * @f[ L\,l = a, \qquad \delta = \alpha - l^T l, \qquad
 *     L^+ = \begin{bmatrix} L & 0 \\ l^T & \sqrt{\delta} \end{bmatrix}. @f]
 * (Baraff's Theorem 2: delta is exactly the growth Delta w_j of w_j when x_j is driven, so it is
 * positive for SPD A.) When delta <= @p tol * max(|alpha|, DBL_MIN) the enlarged A_CC is singular
 * (to working precision): return CF_SINGULAR and leave the factor unchanged. CF_BAD_INPUT when
 * the factor is full or j is out of range.
 *
 * Worked example: A = [[4, 2], [2, 5]]: append 0 gives L = [2]; append 1 gives l = 1,
 * delta = 4, L = [[2, 0], [1, 2]].
 */
cfStatus cf_chol_update_append(cfCholUpdate *F, const cfDense *A, int j, double tol);

/**
 * @brief ch04.1 (exercise): remove the index at position @p pos (0 <= pos < k) of C, O(k^2).
 *
 * Write L in blocks around row/column pos: L = [[L11, 0, 0], [l21^T, l22, 0], [L31, l32, L33]].
 * Deleting row and column pos of A_CC leaves [[L11, 0], [L31, L33']] with
 * @f[ L_{33}' L_{33}'^T = L_{33} L_{33}^T + l_{32}\, l_{32}^T, @f]
 * a rank-one update of L33 (Givens-like sweep: for each diagonal entry r = hypot(L_kk, v_k),
 * c = r / L_kk, s = v_k / L_kk, then L_ik <- (L_ik + s v_i)/c and v_i <- c v_i - s L_ik below it).
 * Rows and columns after pos move up/left by one, and idx is shifted accordingly.
 */
void cf_chol_update_remove(cfCholUpdate *F, int pos);

/**
 * @brief ch04.1 (exercise): Dantzig's method in Baraff's physical form for a symmetric PSD LCP.
 *
 * Start from x = 0, w = b, every label UNSEEN. While some UNSEEN d has w_d < -tol_w (take the most
 * negative; ties: the lowest index), drive x_d up while keeping w_i = 0 on FREE (clamped) indices
 * and x_i = 0 on LOWER ones (Baraff's drive_to_zero):
 * 1. direction for \f$\Delta x_d = 1\f$: solve \f$A_{CC} \Delta x_C = -A_{Cd}\f$ with the factor;
 *    \f$\Delta w = A \Delta x\f$;
 * 2. step (ratio test), the smallest of: \f$-w_d / \Delta w_d\f$ if \f$\Delta w_d > 0\f$ (d reaches
 *    \f$w_d = 0\f$); \f$-x_i / \Delta x_i\f$ for FREE i with \f$\Delta x_i < 0\f$ (a force would turn
 *    negative); \f$-w_i / \Delta w_i\f$ for LOWER i with \f$\Delta w_i < 0\f$ (an acceleration would
 *    turn negative); ties go to d, then to the earlier candidate in that order;
 * 3. \f$x \mathrel{+}= s \Delta x\f$, \f$w \mathrel{+}= s \Delta w\f$, then pivot: d joins FREE (the drive ends), or a FREE i moves
 *    to LOWER (x_i = 0 exactly; cf_chol_update_remove()), or a LOWER i moves to FREE (w_i = 0
 *    exactly; cf_chol_update_append()). Each of these is one pivot.
 * No blocking index at all (s = infinity) means the drive is an unbounded ray: CF_INFEASIBLE (for
 * symmetric PSD A the LCP has no solution). At the end, recompute x_C from the factor
 * (\f$A_{CC} x_C = -b_C\f$), then \f$w = A x + b\f$.
 *
 * A must be symmetric: CF_BAD_INPUT when max|A - A^T| > 1e-12 amax (provided check). With
 * opt->refactor the direction is computed by a fresh Cholesky factorization of A_CC at every pivot
 * (cf_dense_cholesky()) instead of the updated factor: same pivots, more time (the benchmark).
 * CF_SINGULAR when A_CC becomes singular (append fails).
 *
 * Worked examples: A = [[2, 1], [1, 2]], b = (-1, -1) gives x = (1/3, 1/3) in 2 pivots;
 * b = (-1, 1) gives x = (1/2, 0), w = (0, 3/2) in 1 pivot. A = [[1, 0.9], [0.9, 0.85]],
 * b = (-1, -0.999): index 0 is clamped first, then released (FREE -> LOWER) while index 1 is driven:
 * x = (0, 0.999/0.85), 3 pivots.
 */
cfStatus cf_lcp_dantzig(const cfLcp *p, const cfPivotOptions *opt, double *x, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch04.2 Baraff's pivoting with static and dynamic friction
 *  @{ */

/**
 * Contact problem at the acceleration (or velocity) level: a = A f + b with, per contact c, the
 * variables (f_N, f_T1[, f_T2]) at rows dim*c + (0, 1[, 2]).
 */
typedef struct cfBaraffProblem {
    int nc;       /**< number of contacts */
    int dim;      /**< 2 (normal + one tangent) or 3 (normal + two tangents) */
    cfDense A;    /**< (dim nc) x (dim nc), symmetric PSD for physical problems */
    double *b;    /**< dim nc entries */
    double *mu;   /**< nc friction coefficients (>= 0) */
    double *slip; /**< (dim - 1) nc tangential sliding velocities; zero: static contact,
                       non-zero: dynamic friction f_T = -mu f_N slip/|slip| */
} cfBaraffProblem;

/** Allocate a zeroed problem of @p nc contacts in @p dim = 2 or 3 dimensions (provided). */
cfStatus cf_baraff_init(cfBaraffProblem *p, int nc, int dim);
/** Free and zero (provided). */
void cf_baraff_free(cfBaraffProblem *p);

/**
 * The automatic pivot limit of cf_baraff_solve() for m = dim nc variables (provided): 10 m + 100.
 * The method needs about one drive per variable (Baraff 1994 reports O(n) drives; on the Siconos
 * problems here at most 0.7 m pivots), so a run past this is cycling: with O(k^3) per pivot the
 * general limit of cf_pivot_max() (100 m + 1000) let an 82-contact problem run for minutes.
 */
int cf_baraff_max_pivots(int m);

/**
 * Largest violation of Baraff's contact conditions by (f, a = A f + b) (provided, for tests,
 * tools and demos): per contact, normal min(f_N, a_N) complementarity and signs; static contacts:
 * \f$\|f_T\| \le \mu f_N\f$, \f$f_T \cdot a_T \le 0\f$ and \f$a_T = 0\f$ when \f$\|f_T\| < \mu f_N\f$; dynamic contacts:
 * f_T = -mu f_N slip/|slip|. Measured as an absolute max-norm.
 */
double cf_baraff_violation(const cfBaraffProblem *p, const double *f, const double *a);

/**
 * @brief ch04.2 (exercise): Baraff's pivoting with Coulomb friction (Baraff 1994, §5-6).
 *
 * The frictionless drive of ch04.1 generalised: every variable has a label, and the direction for
 * driving one variable d (Delta f_d = sigma = +-1) solves one linear condition per variable:
 * - normal i: FREE (clamped) Delta a_i = 0; LOWER or UNSEEN Delta f_i = 0;
 * - tangential i of a static contact: FREE Delta a_i = 0; UNSEEN Delta f_i = 0;
 *   UPPER (saturated) Delta f_i = mu u_i Delta f_N, with u the contact's unit friction direction
 *   fixed when it saturated;
 * - tangential i of a dynamic contact (slip != 0): always UPPER with u = -slip/|slip|;
 * - d itself: Delta f_d = sigma.
 * This square, generally unsymmetric system is solved by LU (cf_dense_solve(); CF_SINGULAR when it
 * is singular). Only the FREE variables other than d are its unknowns (the other conditions fix
 * values: fold a saturated tangent's column into its normal's), so a pivot costs O(k^3) for k FREE
 * variables, not O(m^3). Then Delta a = A Delta f, and the step is the first of these events:
 * - d normal: a_d reaches 0 (Delta a_d > 0) -> d FREE, drive ends;
 * - d tangential: a_d reaches 0 -> d FREE, drive ends; or the contact's friction reaches the cone
 *   |f_T| = mu f_N (the smallest positive root of a quadratic in s; when the friction moves
 *   parallel to the cone's side, |Delta f_T| = mu |Delta f_N|, its s^2 term vanishes and the root
 *   is that of the linear remainder, whatever its slope's size) -> its tangents UPPER with
 *   u = f_T / |f_T|, drive ends (f_T = 0 there, on a cone of radius 0 where f_N = 0 too:
 *   u = Delta f_T / |Delta f_T|, the direction the friction moves in);
 * - a FREE normal's f_N reaches 0 -> LOWER: the contact is released, its tangents become UNSEEN
 *   with f_T = 0;
 * - a LOWER normal's a_N reaches 0 -> FREE;
 * - a static contact with a FREE tangent reaches the cone -> tangents UPPER (u as above);
 * - a saturated static contact whose u . a_T rises to 0 -> its tangents stick again: FREE in 2D;
 *   UNSEEN in 3D (the main loop drives them again, since only u . a_T is zero there).
 * At equal steps d's own event (its goal) comes first, so the drive ends there. A step is never
 * negative: an event already due (its value past zero by round-off, or in 3D a saturated friction
 * that already pushes along a_T, u . a_T > 0, while u . Delta a_T > 0) happens at once, s = 0.
 * No event (s = infinity) while driving a normal: the forces would grow without bound, i.e. an
 * impulse is needed (Painlevé): CF_INFEASIBLE.
 *
 * Main loop: first establish every normal condition (drive the most negative a_N of an UNSEEN
 * normal, as in ch04.1), then friction: for a contact with FREE normal and f_N > 0 whose UNSEEN
 * tangent i has |a_i| > tol_w, drive f_i with sigma = -sign(a_i) (in 3D: the tangent whose
 * friction pushes along its acceleration, f_i a_i > 0, first (both: the larger f_i a_i), else T1
 * before T2; among contacts the largest |a_i|). When no tangent is left to drive, a saturated static contact with
 * u . a_T > tol_w (it reached the cone with a direction from earlier) gets UNSEEN tangents again
 * (one pivot) and the loop goes on. Repeat until nothing is violated, at most opt->max_pivots
 * pivots, or cf_baraff_max_pivots() when it is 0 (then CF_MAX_ITER). The end state must pass its certificate:
 * cf_baraff_violation() <= 1e-9 max(1, ||b||_inf) max(1, ||f||_inf), else CF_STAGNATED (the
 * method is stuck; never CF_OK with a violated certificate).
 *
 * Output: @p f and @p a (dim nc values each; a = A f + b). @p rep as for the LCP solvers, with
 * residual = cf_baraff_violation(). In 3D the saturated direction is the one at entry, so the
 * friction opposes the sliding acceleration only partially (u . a_T <= 0), as in the paper.
 *
 * Worked example (2D particle of mass 1 on a slope of angle theta, tangent pointing uphill):
 * A = I, b = (-g cos theta, -g sin theta). tan theta <= mu: f = (g cos theta, g sin theta), a = 0;
 * tan theta > mu: f_T = mu f_N and a_T = -g (sin theta - mu cos theta).
 */
cfStatus cf_baraff_solve(const cfBaraffProblem *p, const cfPivotOptions *opt, double *f, double *a, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch04.3 Lemke's method
 *  @{ */

/**
 * @brief ch04.3 (exercise): Lemke's complementary pivoting with a covering vector and the
 * lexicographic minimum ratio test.
 *
 * Augment the LCP with an artificial variable z0 >= 0 and a covering vector d > 0 (opt->cover,
 * default all ones): \f$w = A x + b + d z_0\f$. Keep a basis of n variables among \f$(w, x, z_0)\f$
 * with its explicit inverse \f$B^{-1}\f$ (n x n, Binv) and the basic values \f$\beta = B^{-1} b\f$:
 * - if b >= -tol_w: x = 0 is the solution (0 pivots);
 * - otherwise z0 enters in the row r of the smallest b_r / d_r (lexicographically smallest row of
 *   [beta, Binv] / d_r on ties): w_r leaves (pivot 1);
 * - then the entering variable is always the complement of the one that just left (x_i after
 *   w_i, w_i after x_i). With c = Binv (column of the entering variable), the leaving row is the
 *   lexicographic minimum of the rows [beta_i, Binv_i] / c_i over c_i > 0 (if z0's row is among
 *   the minimal ratios it is chosen, ending the method); pivot on it (Gauss-Jordan update of beta
 *   and Binv, O(n^2));
 * - z0 leaves: the basis is complementary, x is read off it (then polished by one solve of
 *   A_SS x_S = -b_S on the support S when that is more accurate): CF_OK;
 * - no c_i > 0: ray termination, CF_INFEASIBLE (for copositive-plus A this proves that the LCP
 *   has no solution; for other matrices it is inconclusive) — except when z0 is basic with a value
 *   that is zero but for the rounding of the pivots (at most 1000 tol_w): then every pair is
 *   complementary, x is read off and polished as below, and CF_OK when it passes the certificate
 *   (natural-map residual at most 1000 tol_w). Degenerate problems end that way, such as a stack's
 *   contacts that carry one load four times;
 * - more than cf_pivot_max() pivots: CF_MAX_ITER.
 * The lexicographic rule makes every basis strictly increase lexicographically, so no basis
 * repeats: no cycling, even on degenerate problems.
 *
 * Scale: the method does not see the data's units. (s_A A, s_b b) with the cover s_d d, for any
 * s_A, s_b, s_d > 0, takes the same pivots with x = (s_b / s_A) x* (tested with factors 2^-50 and
 * 2^40). So every round-off threshold is relative, at the scale of what it compares: "c_i > 0"
 * means above the round-off of row i's product Binv_i (original column), tol |Binv_i|_inf times
 * the column's size (each row at the scale of its own basic variable: w, x and z0 differ in
 * units); a tie floor of the lexicographic test is relative to the entries compared; a basic
 * value set to an exact zero (degenerate values) is below the round-off of beta_i = Binv_i b,
 * tol_w |Binv_i|_inf. An absolute threshold such as 1e-11, tol or tol_w for every row, or one
 * relative to the column's largest entry, takes a false ray, a wrong tie or a zeroed solution
 * (CF_OK with a wrong x) on such data.
 *
 * Trace events label variables as: x_i -> i, w_i -> n + i, z0 -> 2n (entering/leaving).
 *
 * Worked example: A = [[2, 1], [1, 2]], b = (-1, -1): z0 enters and w_1 leaves (the tie
 * b_0 = b_1 is broken lexicographically, toward the later row); x_1 enters and w_0 leaves; x_0
 * enters and z0 leaves: x = (1/3, 1/3) after 3 pivots. Murty's exponential example
 * (lcp_exp_murty2.dat) takes 2^n = 64 pivots for n = 6.
 */
cfStatus cf_lcp_lemke(const cfLcp *p, const cfPivotOptions *opt, double *x, cfReport *rep);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name ch04.4 and ch04.5 Principal pivoting
 *  @{ */

/**
 * @brief ch04.4 (exercise): principal pivoting with Murty's least-index rule.
 *
 * Start from \f$F = \emptyset\f$ (or \f$F = \{i : x_i > 0\}\f$ with opt->warm_start). Repeat: solve
 * \f$A_{FF} x_F = -b_F\f$ (cf_dense_solve(); CF_SINGULAR when singular), \f$x_i = 0\f$ off F,
 * \f$w = A x + b\f$ with \f$w_F = 0\f$ exactly; find the SMALLEST index i that violates its set: i in F with x_i < -tol_x, or
 * i not in F with w_i < -tol_w. None: solved. Otherwise move that one index to the other set
 * (one pivot) and repeat. The strict, tolerance-based tests stop degenerate flip-flops.
 *
 * Finite for every P-matrix, but exponential in the worst case: Murty's triangular example
 * (A_ii = 1, A_ij = 2 for j > i, b = -1) takes exactly 2^n - 1 pivots from F = {} (the notes
 * claim "n pivots": erratum). iterations = pivots; CF_MAX_ITER after cf_pivot_max() pivots.
 *
 * Worked example: Murty's example with n = 3 takes 7 pivots and returns x = (0, 0, 1).
 */
cfStatus cf_lcp_murty(const cfLcp *p, const cfPivotOptions *opt, double *x, cfReport *rep);

/**
 * @brief ch04.5 (exercise): block principal pivoting (Júdice–Pires 1994) with its safeguard.
 *
 * Start from F = {0..n-1} (or F = {i : x_i > 0} with opt->warm_start). Each iteration: solve
 * A_FF x_F = -b_F (CF_SINGULAR when singular), w = A x + b, and collect the infeasible set V
 * (i in F with x_i < -tol_x, i not in F with w_i < -tol_w). V empty: solved. Otherwise, with
 * p-bar = opt->bpp_pbar >= 0 and counters ninf_best (initially n + 1) and p (initially p-bar):
 * - |V| < ninf_best: ninf_best = |V|, p = p-bar, move ALL of V to the other set;
 * - else if p > 0: p = p - 1, move all of V;
 * - else: move only the smallest index of V (one Murty step, as ch04.4). On a P-matrix such a
 *   run of single pivots never repeats an index set; if the set before a single pivot equals
 *   one of the (up to 64) previous sets of the same run, A is not a P-matrix and the method
 *   cycles: return CF_STAGNATED.
 * With p-bar < 0 the safeguard is off (always move all of V), and BPP can cycle even for SPD A.
 * iterations = linear solves (so a correct initial guess costs 1); CF_MAX_ITER after
 * cf_pivot_max() iterations.
 *
 * Worked example: A = [[2, 1], [1, 2]], b = (-1, 1): F = {0, 1} gives x = (1, -1), index 1 leaves;
 * F = {0} gives x = (1/2, 0), w = (0, 3/2): 2 iterations. An SPD cycle (BPP can cycle
 * on SPD A, notes 3.1.3): A = [[1.6, -0.8, 1.8], [-0.8, 0.7, -0.7], [1.8, -0.7, 2.2]],
 * b = (-0.6, 0.7, -0.3), cycles with period 3 without the safeguard and is solved with it:
 * x = (0.375, 0, 0).
 */
cfStatus cf_lcp_bpp(const cfLcp *p, const cfPivotOptions *opt, double *x, cfReport *rep);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_CH04_H */
