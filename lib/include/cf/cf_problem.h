/* SPDX-License-Identifier: MIT */
/**
 * @file cf_problem.h
 * @brief The complementarity problems every solver chapter consumes, their residuals, and
 *        readers/writers for the Siconos text format.
 *
 * - LCP: find x with
 *   \f[ w = A x + b, \qquad 0 \le x \perp w \ge 0 \f]
 *   (the notes' sign convention). Siconos files write \f$w = M z + q\f$: M = A, q = b.
 * - Boxed LCP: \f$lo \le x \le hi\f$ with \f$w = A x + b\f$ and, per index,
 *   \f[ x_i = lo_i \Rightarrow w_i \ge 0, \qquad x_i = hi_i \Rightarrow w_i \le 0, \qquad
 *       lo_i < x_i < hi_i \Rightarrow w_i = 0. \f]
 *   Friction bounds that move with the normal impulse are expressed by findex: when
 *   findex[i] >= 0, \f$hi_i = \mu_i \max(x_{\mathrm{findex}[i]}, 0)\f$ and \f$lo_i = -hi_i\f$ (the
 *   ODE convention; a negative normal iterate gives the box {0}, never an inverted interval);
 *   otherwise lo/hi are used as given.
 * - Frictional contact (FC3D, Siconos local form): per contact a, 3x3 blocks of the Delassus
 *   operator W, q = b and mu; find r with \f$u = W r + q\f$ and, with
 *   \f$\hat u = u + (\mu \|u_T\|, 0, 0)\f$ (De Saxcé's modified velocity),
 *   \f[ K^* \ni \hat u \perp r \in K, \qquad K = \{\|r_T\| \le \mu r_N\}. \f]
 *
 * Matrices are stored sparse (CSR for LCP/BLCP, BSR with 3x3 blocks for FC3D); dense copies are
 * one call away for pivoting methods (cf_csr_to_dense). The Siconos dense format is
 * COLUMN-MAJOR on disk (each text line is one column): the readers and writers handle it.
 */
#ifndef CF_PROBLEM_H
#define CF_PROBLEM_H

#include "cf/cf_base.h"
#include "cf/cf_linalg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/** @name Linear complementarity problem
 *  @{ */
/** LCP: \f$w = A x + b\f$, \f$0 \le x \perp w \ge 0\f$. */
typedef struct cfLcp {
    int n;       /**< size */
    cfCsr A;     /**< n x n matrix (not necessarily symmetric) */
    double *b;   /**< n entries */
} cfLcp;

/** Allocate an LCP from a dense row-major matrix (copied) and b (copied). */
cfStatus cf_lcp_from_dense(cfLcp *p, const cfDense *A, const double *b);
/** Free and zero. */
void cf_lcp_free(cfLcp *p);
/** w <- A x + b */
void cf_lcp_w(const cfLcp *p, const double *x, double *w);
/** Natural-map residual \f$\|\min(x, w)\|_2\f$ (absolute). */
double cf_lcp_residual(const cfLcp *p, const double *x);
/** Siconos' measure \f$\|x - \max(0, x - w)\|_2 / \|b\|_2\f$ (no division when \f$\|b\| \le\f$ DBL_EPSILON). */
double cf_lcp_residual_siconos(const cfLcp *p, const double *x);
/** Fischer-Burmeister norm \f$\|\phi_{FB}(x, w)\|_2\f$ with \f$\phi_{FB}(a, b) = \sqrt{a^2 + b^2} - a - b\f$. */
double cf_lcp_residual_fb(const cfLcp *p, const double *x);
/**
 * Read the Siconos LCP text format (dense column-major or sparse block, see
 * ../shared/data/siconos-lcp/README.md). CF_IO_ERROR for an unreadable file, CF_BAD_INPUT with
 * "path:LINE: token N: reason" for malformed content (bad sizes, short data, non-finite numbers)
 * and for a file that is not a regular text file of at most #CF_FILE_MAX_BYTES (cf_file_read_text()).
 */
cfStatus cf_lcp_read_siconos(const char *path, cfLcp *p, cfError *err);
/**
 * The files of a data folder, as the tests and benchmarks read a set (the Siconos problems, ending
 * in ".dat", and their solutions in reference/, ".ref"): the names in @p dir that end in @p ending
 * and are longer than it, sorted (strcmp) so that every run reads them in one order; at most
 * @p cap (when there are more, which ones is the folder's order), each malloc'ed into @p names
 * (the caller frees them): "dir/name" when @p with_dir, else the name alone. Returns their
 * number: 0 when @p dir cannot be read, -1 when out of memory (nothing kept).
 */
int cf_data_files(const char *dir, const char *ending, bool with_dir, char **names, int cap);
/** Write @p p in the Siconos dense format (column-major), readable by cf_lcp_read_siconos(). */
cfStatus cf_lcp_write_siconos(const char *path, const cfLcp *p, cfError *err);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Boxed LCP
 *  @{ */
/** Boxed LCP with optional friction coupling (see file comment). */
typedef struct cfBlcp {
    int n;        /**< size */
    cfCsr A;      /**< n x n, symmetric PSD for contact problems */
    double *b;    /**< n entries */
    double *lo;   /**< lower bounds (may be -INFINITY) */
    double *hi;   /**< upper bounds (may be +INFINITY) */
    int *findex;  /**< per index: -1, or the index of the normal impulse that scales the bounds */
    double *mu;   /**< per index: friction coefficient used with findex */
    double *mu_lo; /**< NULL (the symmetric box, lo = -hi), or per index the coefficient of the LOWER bound
                        used with findex, lo = -mu_lo max(x_findex, 0): the asymmetric directional box of texture
                        friction (chapter 10.6; owned, freed by cf_blcp_free()) */
} cfBlcp;

/** Allocate an n-variable BLCP with A from @p A (copied), b zero, bounds [0, inf), findex -1. */
cfStatus cf_blcp_init(cfBlcp *p, const cfCsr *A);
/** Free and zero. */
void cf_blcp_free(cfBlcp *p);
/** Effective bounds of index i for the current x (applies findex, and mu_lo when it is set). */
void cf_blcp_bounds(const cfBlcp *p, const double *x, int i, double *lo, double *hi);
/** Natural-map residual \f$\|x - \mathrm{mid}(lo, x - w, hi)\|_2\f$ with the effective bounds (absolute). */
double cf_blcp_residual(const cfBlcp *p, const double *x);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Frictional contact (FC3D)
 *  @{ */
/** The friction set of a contact: the Coulomb cone or the pyramid (box) around it. */
typedef enum cfFrictionModel {
    CF_FRICTION_CONE = 0, /**< Coulomb cone \f$\|\lambda_T\| \le \mu \lambda_n\f$ (exact projection on the disk) */
    CF_FRICTION_BOX,      /**< friction pyramid: \f$|\lambda_t|, |\lambda_b| \le \mu \lambda_n\f$ separately */
    CF_FRICTION_MODEL_COUNT /**< number of models */
} cfFrictionModel;

/** Name of a friction model ("cone", "box"); "unknown" for other values. */
const char *cf_friction_model_name(cfFrictionModel m);

/**
 * Frictional contact problem in local (reduced) form. With cfFrictionProblem::ellipse set, the
 * friction set of contact a is the ellipse of its principal coefficients in its own (t, b) frame
 * (chapter 10: the world turns every anisotropic law into one, with t along the ellipse's first
 * axis): \f$K_a = \{(r_t / \mu_t)^2 + (r_b / \mu_b)^2 \le r_n^2\}\f$, and mu[a] \f$= \max(\mu_t, \mu_b)\f$ bounds it.
 * The solvers of chapters 4-7 read only mu: the world hands them no problem with ellipses (their
 * registry rows are not anisotropic, cf_solver.h), and the residuals below read the ellipses.
 */
typedef struct cfFrictionProblem {
    int nc;        /**< number of contacts; n = 3 nc unknowns ordered (N, T1, T2) per contact */
    cfBsr W;       /**< Delassus operator, nc x nc blocks of 3x3 */
    double *q;     /**< 3 nc entries (the free relative velocity b) */
    double *mu;    /**< nc friction coefficients */
    double *ellipse; /**< NULL: every contact is isotropic (mu); otherwise 2 nc values (mu_t, mu_b) >= 0 per contact (owned) */
} cfFrictionProblem;

/** Free and zero. */
void cf_fc_free(cfFrictionProblem *p);
/** u <- W r + q */
void cf_fc_velocity(const cfFrictionProblem *p, const double *r, double *u);
/**
 * Projection of x (3 values, normal first) onto the cone {|x_T| <= mu x_N} (closed form:
 * inside -> x; in the polar cone -> 0; otherwise onto the boundary).
 */
void cf_cone_project(const double x[3], double mu, double out[3]);
/**
 * The squared natural-map error of ONE contact with impulse @p r and relative velocity @p u
 * (both (n, t, b)): the per-contact term of cf_fc_residual() and cf_fc_box_residual(), and of
 * every solver that reports this residual (one definition for all of them).
 * - CF_FRICTION_CONE: \f$\|r - P_K(r - \hat u)\|^2\f$ with De Saxce's
 *   \f$\hat u = u + (\mu \|u_T\|, 0, 0)\f$ and \f$P_K\f$ = cf_cone_project();
 * - CF_FRICTION_BOX: the boxed-LCP natural map, normal \f$(r_n - \max(0, r_n - u_n))^2\f$ plus,
 *   for each tangent k, \f$(r_k - \mathrm{mid}(-hi, r_k - u_k, hi))^2\f$ with \f$hi = \mu \max(r_n, 0)\f$.
 * Zero exactly when (r, u) satisfies the contact law; not finite when an input is not.
 */
double cf_contact_residual2(const double r[3], const double u[3], double mu, cfFrictionModel model);
/**
 * cf_contact_residual2() for the ellipse of principal coefficients (@p mu_t, @p mu_b) in the
 * contact's (t, b) frame (chapter 10). The elliptic cone is the image of the isotropic cone of
 * m = max(mu_t, mu_b) under r_T = S r'_T, S = diag(mu_t, mu_b) / m, and velocities map by the
 * transpose (u'_T = S u_T, so r.u = r'.u'). The cone term is cf_contact_residual2() of the
 * mapped (r', u') with m: De Saxce's u_hat = u + (|diag(mu_t, mu_b) u_T|, 0, 0) in the mapped
 * variables. An axis with coefficient 0 (and m > 0) pins its impulse: it adds r_k^2 and drops
 * out of the map. The box term bounds each tangent by its own coefficient, |r_k| <= mu_k r_n.
 * Equal coefficients give exactly cf_contact_residual2() of that mu, bit for bit.
 */
double cf_contact_residual2_ellipse(const double r[3], const double u[3], double mu_t, double mu_b,
                                    cfFrictionModel model);
/**
 * The root of the sum over @p nc contacts of cf_contact_residual2() (cf_contact_residual2_ellipse()
 * with the 2 nc principal coefficients of @p ellipse when it is not NULL; @p mu unread then) at
 * impulses @p r and velocities @p u (3 nc each): the one place every problem's residual sums its
 * contacts. Without overflow or underflow: where a square leaves the safe range of the plain sum
 * (cf_linalg.h, #CF_NORM2_SAFE_MIN) the error vectors go through cf_vec_norm()'s scaled sum, so
 * impulses and velocities up to about 1e300 give a finite residual. +INFINITY when an input is not
 * finite (or no memory is left for the scaled sum).
 */
double cf_contacts_residual(int nc, const double *r, const double *u, const double *mu, const double *ellipse,
                            cfFrictionModel model);
/**
 * Absolute natural-map error \f$\sqrt{\sum_a \|r_a - P_K(r_a - \hat u_a)\|^2}\f$ (Siconos
 * fc3d_compute_error with rho = 1); divide by cf_fc_norm_q() or by max(|q|, |r|, |u|) for the
 * two normalizations in use (see ../shared/data/siconos-fc3d/README.md). The per-contact term is
 * cf_contact_residual2() with the cone (cf_contact_residual2_ellipse() for the contacts of a
 * problem with ellipses). +INFINITY when r or u is not finite.
 */
double cf_fc_residual(const cfFrictionProblem *p, const double *r);
/**
 * Natural-map residual of the friction pyramid (box model) for the same problem: the
 * per-contact term is cf_contact_residual2() with the box (with ellipses: the box of each axis'
 * coefficient). Zero exactly at a solution of the boxed LCP of cf_friction_boxed_lcp().
 * +INFINITY when r or u is not finite.
 */
double cf_fc_box_residual(const cfFrictionProblem *p, const double *r);
/** \f$\|q\|_2\f$ */
double cf_fc_norm_q(const cfFrictionProblem *p);
/** Largest friction coefficient a problem file may hold: 1/sqrt(DBL_EPSILON), about 6.7e7. Beyond
 *  it the natural map's De Saxce term mu |u_t| of a rounding-level tangential velocity (1e-16 |q|)
 *  outgrows u itself, so no residual computed in doubles certifies a solution (a fuzzed file with
 *  mu = 1e154: two correct evaluations gave 1e-15 and 2.2). The data sets' largest mu is 1. */
#define CF_FC_MU_MAX 6.7108864e7
/** Read the Siconos FC3D text format (dimension 3 only; dense or sparse-block W). CF_IO_ERROR for an
 *  unreadable file, CF_BAD_INPUT with "path:LINE: token N ('text'): reason" for malformed content
 *  (mu < 0 or above #CF_FC_MU_MAX included) and for a file that is not a regular text file of at most
 *  #CF_FILE_MAX_BYTES (cf_file_read_text()). */
cfStatus cf_fc_read_siconos(const char *path, cfFrictionProblem *p, cfError *err);
/** Write @p p in the Siconos FC3D sparse-block format; cf_fc_read_siconos() reads it back exactly.
 *  The format has no elliptic cones: a problem with cfFrictionProblem::ellipse is CF_BAD_INPUT. */
cfStatus cf_fc_write_siconos(const char *path, const cfFrictionProblem *p, cfError *err);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_PROBLEM_H */
