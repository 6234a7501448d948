/* SPDX-License-Identifier: MIT */
/**
 * @file cf_linalg.h
 * @brief Linear algebra: dense row-major matrices, triplet/CSR sparse matrices, block-sparse
 *        (BSR) matrices with fixed block size (3x6 contact-body blocks), CG/PCG, a sparse
 *        Cholesky, and a small LAPACKE wrapper for dense factorizations.
 *
 * Conventions: dense storage is row-major, `a[i * cols + j]`; all sizes are `int`; vectors are
 * plain `double *` arrays of the stated length. Functions that allocate say so and have a
 * matching `_free`. No function here prints; errors come back as ::cfStatus.
 */
#ifndef CF_LINALG_H
#define CF_LINALG_H

#include "cf/cf_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/** @name Dense vectors
 *  @{ */
/** \f$x \cdot y\f$ over n entries. */
double cf_vec_dot(int n, const double *x, const double *y);
/**
 * Euclidean norm of x, without overflow or underflow: entries up to DBL_MAX give a finite norm
 * when it is representable, entries near DBL_TRUE_MIN a norm > 0 (NaN when an entry is NaN,
 * +INFINITY when one is infinite). Where the plain sum of squares lies in
 * [#CF_NORM2_SAFE_MIN, #CF_NORM2_SAFE_MAX] it is sqrt(x . x) bit for bit; otherwise the
 * scaled sum of cf_vec_norm_scaled().
 */
double cf_vec_norm(int n, const double *x);
/** Euclidean norm by Blue's scaled sum of squares, as LAPACK's dnrm2 (3.10 and later): three
 *  accumulators (tiny, medium and huge entries, each scaled so that no square overflows or
 *  underflows), combined at the end. */
double cf_vec_norm_scaled(int n, const double *x);
/** A plain sum of squares in [CF_NORM2_SAFE_MIN, CF_NORM2_SAFE_MAX] lost nothing to overflow or
 *  underflow (every square that underflowed is below 2^-53 of the sum): its square root is the norm. */
#define CF_NORM2_SAFE_MIN 0x1p-968
/** See #CF_NORM2_SAFE_MIN: a sum of squares above it may have overflowed on the way. */
#define CF_NORM2_SAFE_MAX 0x1p1000
/** Max-norm of x. */
double cf_vec_norm_inf(int n, const double *x);
/** y <- y + a x */
void cf_vec_axpy(int n, double a, const double *x, double *y);
/** y <- x */
void cf_vec_copy(int n, const double *x, double *y);
/** x <- 0 */
void cf_vec_zero(int n, double *x);
/** True when every entry is finite. */
bool cf_vec_finite(int n, const double *x);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Dense matrices (row-major)
 *  @{ */
/** A dense rows x cols matrix, row-major: element (i, j) is a[i * cols + j]. */
typedef struct cfDense {
    int rows;  /**< number of rows */
    int cols;  /**< number of columns */
    double *a; /**< rows*cols entries, owned */
} cfDense;

/** Allocate a zero rows x cols matrix. Returns CF_NO_MEMORY or CF_BAD_INPUT (negative size). */
cfStatus cf_dense_init(cfDense *m, int rows, int cols);
/** Free the entries and zero the struct (safe on a zeroed struct). */
void cf_dense_free(cfDense *m);
/** Pointer to element (i, j). */
static inline double *cf_dense_at(const cfDense *m, int i, int j) { return &m->a[(long)i * m->cols + j]; }
/** y <- A x (x has cols entries, y rows entries; x and y must not alias). */
void cf_dense_mul_vec(const cfDense *A, const double *x, double *y);
/** y <- A^T x (x has rows entries, y cols entries). */
void cf_dense_tmul_vec(const cfDense *A, const double *x, double *y);
/**
 * C <- A B; C is (re)allocated to A.rows x B.cols, so it must be a zeroed struct or a matrix
 * (whose old storage is freed); C may be A or B. CF_BAD_INPUT when sizes disagree.
 */
cfStatus cf_dense_mul(const cfDense *A, const cfDense *B, cfDense *C);
/** Largest |A - A^T| entry (square A; INFINITY when A is not square). */
double cf_dense_asymmetry(const cfDense *A);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Dense factorizations (LAPACKE wrapper; not the lesson anywhere they are used)
 *  @{ */
/**
 * Solve A x = b for square A by LU with partial pivoting (LAPACKE_dgesv on a copy).
 * A and b are not modified (b and x may alias). CF_SINGULAR when A is singular to working
 * precision (estimated reciprocal condition number in the 1-norm below DBL_EPSILON);
 * CF_BAD_INPUT when A is not square or A or b has a non-finite entry. On failure x is untouched.
 */
cfStatus cf_dense_solve(const cfDense *A, const double *b, double *x);
/**
 * Cholesky A = L L^T of a symmetric positive definite A (LAPACKE_dpotrf on a copy; only the
 * lower triangle of A is read). @p L is allocated n x n, lower-triangular, upper part zero.
 * CF_SINGULAR when A is not positive definite, CF_BAD_INPUT when A is not square or its lower
 * triangle has a non-finite entry. On failure @p L is left empty (zeroed, nothing to free).
 */
cfStatus cf_dense_cholesky(const cfDense *A, cfDense *L);
/** Solve L L^T x = b given the factor from cf_dense_cholesky() (b and x may alias). */
void cf_dense_cholesky_solve(const cfDense *L, const double *b, double *x);
/**
 * Eigenvalues (ascending) and optionally eigenvectors (columns of @p V, n x n, allocated when
 * V is not NULL) of a symmetric A (LAPACKE_dsyev on a copy; only the lower triangle is read).
 * The eigenvectors are orthonormal. CF_BAD_INPUT when A is not square or its lower triangle has
 * a non-finite entry, CF_MAX_ITER when LAPACK's QR iteration does not converge; on failure
 * @p V is left empty (zeroed).
 */
cfStatus cf_dense_sym_eig(const cfDense *A, double *eigenvalues, cfDense *V);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Sparse matrices: triplets and CSR
 *  @{ */
/** A growing list of (row, col, value) entries; duplicates are summed on conversion to CSR. */
typedef struct cfTriplets {
    int rows;            /**< number of rows */
    int cols;            /**< number of columns */
    int nnz;             /**< entries used */
    int cap;             /**< entries allocated */
    int *i;              /**< row index of each entry */
    int *j;              /**< column index of each entry */
    double *v;           /**< values */
} cfTriplets;

/** Start an empty rows x cols triplet list. */
cfStatus cf_triplets_init(cfTriplets *t, int rows, int cols);
/**
 * Append entry (i, j, v). CF_BAD_INPUT when (i, j) is out of range or v is not finite,
 * CF_NO_MEMORY on failure (the list is unchanged then).
 */
cfStatus cf_triplets_add(cfTriplets *t, int i, int j, double v);
/**
 * Append the 3x3 block m (row-major, 9 values) at (3 bi, 3 bj). All nine entries are added,
 * zeros included. CF_BAD_INPUT when the block does not fit or a value is not finite (nothing
 * is added then).
 */
cfStatus cf_triplets_add_block3(cfTriplets *t, int bi, int bj, const double m[9]);
/** Forget all entries but keep the memory. */
void cf_triplets_clear(cfTriplets *t);
/** Free and zero. */
void cf_triplets_free(cfTriplets *t);

/** Compressed sparse row matrix with sorted, unique column indices in each row. */
typedef struct cfCsr {
    int rows;        /**< number of rows */
    int cols;        /**< number of columns */
    int nnz;         /**< stored entries */
    int *rowptr;     /**< rows+1 offsets into colidx/val */
    int *colidx;     /**< column of each entry, ascending within a row */
    double *val;     /**< value of each entry */
} cfCsr;

/**
 * Build CSR from triplets (duplicates summed in insertion order, explicit zeros kept). Allocates
 * @p A. CF_BAD_INPUT when an entry is out of range or not finite, CF_NO_MEMORY on failure
 * (@p A is left empty then).
 */
cfStatus cf_csr_from_triplets(const cfTriplets *t, cfCsr *A);
/** Free and zero. */
void cf_csr_free(cfCsr *A);
/** y <- A x */
void cf_csr_mul_vec(const cfCsr *A, const double *x, double *y);
/** y <- A^T x */
void cf_csr_tmul_vec(const cfCsr *A, const double *x, double *y);
/** Value of entry (i, j) (0 when not stored). O(log row length). */
double cf_csr_get(const cfCsr *A, int i, int j);
/** Dense copy (allocates @p D). */
cfStatus cf_csr_to_dense(const cfCsr *A, cfDense *D);
/** Diagonal entries into @p d (min(rows, cols) values). */
void cf_csr_diagonal(const cfCsr *A, double *d);
/**
 * Largest |a_ij - a_ji| over the stored entries (an entry stored on one side only is compared
 * with 0). 0 for a symmetric matrix; INFINITY when A is not square. O(nnz log(row length)).
 */
double cf_csr_asymmetry(const cfCsr *A);
/**
 * Impose x[k] = 0 for the listed degrees of freedom of a square system: zero row and column k
 * and set the diagonal to 1. The caller also sets b[k] = 0. Keeps symmetry. Listed dofs
 * outside [0, n) are ignored, repeats are harmless. A pinned row without a stored diagonal gets
 * one inserted (the index arrays are reallocated; should that allocation fail, the row is left
 * all zero and a later factorization reports the matrix singular).
 */
void cf_csr_pin_dofs(cfCsr *A, int n_dofs, const int *dofs);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Block-sparse rows (BSR): fixed br x bc blocks, e.g. 3x6 contact-body blocks
 *  @{ */
/** Block-sparse matrix of brows x bcols blocks, each br x bc, stored row-major per block. */
typedef struct cfBsr {
    int brows;         /**< number of block rows */
    int bcols;         /**< number of block columns */
    int br;            /**< rows of each block */
    int bc;            /**< columns of each block */
    int nnzb;          /**< stored blocks */
    int capb;          /**< blocks allocated */
    int *rowptr;       /**< brows+1 offsets (valid after cf_bsr_finalize) */
    int *colidx;       /**< block column of each block */
    double *val;       /**< nnzb * br * bc values */
} cfBsr;

/**
 * Start an empty block matrix; blocks are then added row by row with cf_bsr_add_block().
 * CF_BAD_INPUT when a count is negative or a block size is not positive.
 */
cfStatus cf_bsr_init(cfBsr *A, int brows, int bcols, int br, int bc);
/**
 * Append block @p m (br*bc values, row-major) at block position (bi, bj). Blocks must be added in
 * non-decreasing bi; several blocks of one row may come in any column order (blocks at the same
 * position add up in products). CF_BAD_INPUT when (bi, bj) is out of range, bi is smaller than
 * the previous block's row, or a value is not finite; CF_NO_MEMORY on failure. No blocks may be
 * added after cf_bsr_finalize().
 */
cfStatus cf_bsr_add_block(cfBsr *A, int bi, int bj, const double *m);
/** Close the row pointer after the last block was added (until then rowptr holds counts). */
void cf_bsr_finalize(cfBsr *A);
/** Free and zero. */
void cf_bsr_free(cfBsr *A);
/** y <- A x (x has bcols*bc entries, y has brows*br). */
void cf_bsr_mul_vec(const cfBsr *A, const double *x, double *y);
/** y <- A^T x */
void cf_bsr_tmul_vec(const cfBsr *A, const double *x, double *y);
/** Dense copy (allocates @p D). */
cfStatus cf_bsr_to_dense(const cfBsr *A, cfDense *D);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Iterative solvers
 *  @{ */
/** y <- A x for a linear operator given by a callback (matrix-free). */
typedef void (*cfMatVec)(void *ctx, const double *x, double *y);

/** Options for cf_cg(). Start from cf_cg_options_default(). */
typedef struct cfCgOptions {
    int max_iter;     /**< iteration limit (default 10 n) */
    double tol_rel;   /**< stop when ||r|| <= tol_rel ||b|| (default 1e-10) */
    double tol_abs;   /**< ... or ||r|| <= tol_abs (default 1e-300) */
} cfCgOptions;

/** Defaults for an n-dimensional system. */
cfCgOptions cf_cg_options_default(int n);

/**
 * Preconditioned conjugate gradients for a symmetric positive definite operator: solve A x = b
 * starting from the given x (warm start). @p precond_diag (may be NULL) holds the diagonal of A
 * for Jacobi preconditioning (entries <= 0 are treated as 1). Residual measure: ||b - A x||_2.
 * Status: CF_OK (converged), CF_MAX_ITER, CF_BAD_INPUT (non-finite input), CF_DIVERGED (p^T A p
 * <= 0: the operator is not positive definite). The history receives ||r|| per iteration.
 *
 * Details: @p opt NULL means cf_cg_options_default(n); @p rep may be NULL. The iteration updates
 * the residual by recurrence; when that one meets the tolerance the true residual b - A x is
 * recomputed, and the iteration goes on from it if it does not (so CF_OK always refers to the
 * true residual, which is what rep->residual holds on return). rep->iterations counts the
 * updates of x (history_len equals it when the buffer is large enough). On CF_BAD_INPUT x is
 * untouched; otherwise x holds the last iterate.
 */
cfStatus cf_cg(int n, cfMatVec A, void *ctx, const double *b, double *x, const double *precond_diag,
               const cfCgOptions *opt, cfReport *rep);
/**
 * cf_cg() on a CSR matrix with Jacobi preconditioning. CF_BAD_INPUT also when A is not square or
 * has a non-finite entry.
 */
cfStatus cf_csr_cg(const cfCsr *A, const double *b, double *x, const cfCgOptions *opt, cfReport *rep);
/**
 * Preconditioned conjugate gradients with any symmetric positive definite preconditioner: as
 * cf_cg(), with @p precond (may be NULL: none) computing z = P^-1 r from r (ctx @p pctx).
 * cf_cg() is this function with the Jacobi preconditioner. Allocates its own work space, so
 * calls on different vectors may run in parallel when the callbacks allow it.
 */
cfStatus cf_pcg(int n, cfMatVec A, void *ctx, cfMatVec precond, void *pctx, const double *b, double *x,
                const cfCgOptions *opt, cfReport *rep);
/**
 * Inverses of the 3x3 diagonal blocks of a square CSR matrix whose order is a multiple of 3:
 * @p inv gets 9 values (row-major) per block, block k covering rows and columns 3k..3k+2 (the
 * block-Jacobi preconditioner; for a lumped mass matrix, M^-1). CF_BAD_INPUT when A is not
 * square or its order is not a multiple of 3, CF_SINGULAR when a block is not invertible
 * (|det| <= 1e-300 or a non-finite inverse).
 */
cfStatus cf_csr_block_diag_inverse(const cfCsr *A, double *inv);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Sparse Cholesky (for moderate soft-body systems)
 *  Up-looking (row by row) sparse Cholesky with a fill-reducing reverse Cuthill-McKee ordering:
 *  ordering, elimination tree, symbolic row patterns, then the numeric factorization. With
 *  `make CHOLMOD=1` the same API is backed by SuiteSparse CHOLMOD (optional, GPL parts), given
 *  the same orderings.
 *  @{ */
/** A sparse Cholesky factorization P A P^T = L L^T (opaque contents). */
typedef struct cfSparseChol cfSparseChol;

/**
 * Reverse Cuthill-McKee ordering of the square matrix @p A: perm[k] is the original index of the
 * unknown placed k-th (perm must hold A->rows entries). The row pattern of A is read as an
 * undirected graph (A should be structurally symmetric); each connected component starts from a
 * pseudo-peripheral node (George-Liu search) and neighbours are visited by increasing degree.
 * The ordering keeps the nonzeros near the diagonal (small bandwidth and profile), which bounds
 * the fill of a Cholesky factor by the profile. CF_BAD_INPUT when A is not square, CF_NO_MEMORY.
 */
cfStatus cf_csr_rcm(const cfCsr *A, int *perm);

/**
 * Nested dissection ordering of the square matrix @p A (linalg_nd.c): perm[k] is the original
 * index of the unknown placed k-th. Consecutive rows with the same column pattern (the 3 x 3
 * blocks of a node) are ordered as one; a breadth-first level that splits a region in halves is
 * numbered after both halves, recursively, down to regions of 16. A should be structurally
 * symmetric. On a 2D mesh of n nodes the Cholesky factor then holds O(n log n) entries and costs
 * O(n^1.5) operations (RCM: O(n^1.5) entries, O(n^2) operations). CF_BAD_INPUT when A is not
 * square, CF_NO_MEMORY.
 */
cfStatus cf_csr_nested_dissection(const cfCsr *A, int *perm);

/** Ordering applied before a sparse Cholesky factorization. */
typedef enum cfCholOrdering {
    CF_CHOL_ORDER_RCM = 0, /**< reverse Cuthill-McKee (cf_csr_rcm()), the default */
    CF_CHOL_ORDER_NATURAL, /**< no reordering (P = I), for comparisons */
    CF_CHOL_ORDER_ND,      /**< nested dissection (cf_csr_nested_dissection()): less fill on 2D and 3D meshes */
    CF_CHOL_ORDER_COUNT    /**< number of orderings */
} cfCholOrdering;

/**
 * Factor the symmetric positive definite CSR matrix @p A (both triangles stored). Allocates
 * @p *out (set to NULL on failure). Same as cf_sparse_chol_factor_ordered() with
 * CF_CHOL_ORDER_RCM.
 */
cfStatus cf_sparse_chol_factor(const cfCsr *A, cfSparseChol **out);
/**
 * Factor P A P^T = L L^T with the chosen ordering. Only the lower triangle (j <= i) of A is read,
 * but A must be symmetric: CF_BAD_INPUT when A is not square, has a non-finite entry, or
 * cf_csr_asymmetry(A) > 1e-12 max|a_ij|. CF_SINGULAR when A is not positive definite: a pivot
 * is not positive, or is at most DBL_EPSILON times its diagonal entry of A (singular to working
 * precision). CF_NO_MEMORY on failure. Allocates @p *out (set to NULL on failure).
 */
cfStatus cf_sparse_chol_factor_ordered(const cfCsr *A, cfCholOrdering ordering, cfSparseChol **out);
/**
 * What cf_sparse_chol_factor_ordered() accepts, in both of its backends (the hand-written one and
 * CHOLMOD's): @p A square with finite entries and symmetric (cf_csr_asymmetry(A) at most 1e-12
 * max|a_ij|), @p ordering one of the orderings. False when @p A is NULL.
 */
bool cf_sparse_chol_input_ok(const cfCsr *A, cfCholOrdering ordering);
/**
 * Solve A x = b with the factorization (b and x may alias). Uses a work vector kept in @p F, so
 * one factorization must not be used by two threads at the same time.
 */
void cf_sparse_chol_solve(const cfSparseChol *F, const double *b, double *x);
/**
 * As cf_sparse_chol_solve() with the caller's work vector @p work (n doubles): calls with distinct
 * work vectors may run in parallel on one factorization when cf_sparse_chol_reentrant() is true
 * (the hand-written factor; CHOLMOD keeps its workspace in the factor and ignores @p work).
 */
void cf_sparse_chol_solve_with(const cfSparseChol *F, const double *b, double *x, double *work);
/** True when cf_sparse_chol_solve_with() may run in parallel on one factorization (false with CHOLMOD). */
bool cf_sparse_chol_reentrant(void);
/** Number of nonzeros in L, diagonal included (fill-in diagnostics). */
long cf_sparse_chol_nnz(const cfSparseChol *F);
/** Free (NULL allowed). */
void cf_sparse_chol_free(cfSparseChol *F);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Supernodal sparse Cholesky (linalg_chol_super.c: the fast path)
 *  The factorization P A P^T = L L^T of cf_sparse_chol_factor_ordered() split in two: the symbolic
 *  analysis (ordering, postordered elimination tree, column counts, fundamental supernodes and their
 *  row structures), which depends on the pattern of A only, and numeric factorizations that reuse it
 *  for every matrix of that pattern (a Newton iteration's Hessians while the contact set keeps its
 *  shape). The numeric part is multifrontal: each supernode's dense front is factored by LAPACK's
 *  dpotrf, BLAS dtrsm and dsyrk; independent subtrees of the elimination tree run on OpenMP's threads.
 *  The factor is bit for bit the same for every thread count. linalg_chol.c's up-looking
 *  factorization stays the readable reference; lib/test/test_linalg.c holds the two to the same
 *  solutions.
 *  @{ */
/** A supernodal factorization with its symbolic analysis (opaque contents). */
typedef struct cfCholSuper cfCholSuper;

/**
 * The symbolic analysis of the square matrix @p A under @p ordering (the pattern of A is read, its
 * values are not; A should be structurally symmetric; a copy of the pattern is kept). The ordering
 * is the chosen one followed by a postorder of its elimination tree, which changes neither the fill
 * nor the work. CF_BAD_INPUT when A is not square or the ordering is not one of the orderings,
 * CF_NO_MEMORY. Allocates @p *out (NULL on failure); no numeric factor yet.
 */
cfStatus cf_chol_super_analyze(const cfCsr *A, cfCholOrdering ordering, cfCholSuper **out);
/** True when @p A has exactly the pattern (rows, rowptr, colidx) that @p F was analysed with. */
bool cf_chol_super_pattern_is(const cfCholSuper *F, const cfCsr *A);
/**
 * Numeric factorization of @p A, which must have the analysed pattern (cf_chol_super_pattern_is()),
 * replacing any previous factor in @p F. Accepts and refuses as cf_sparse_chol_factor_ordered():
 * CF_BAD_INPUT when the pattern differs or cf_sparse_chol_input_ok() is false; CF_SINGULAR when A is
 * not positive definite (a pivot not positive, or with its square at most DBL_EPSILON times its
 * diagonal entry of A); CF_NO_MEMORY. On failure F holds no factor (cf_chol_super_factored() is
 * false) but keeps its analysis.
 */
cfStatus cf_chol_super_factor(cfCholSuper *F, const cfCsr *A);
/** True when the last cf_chol_super_factor() on @p F succeeded. */
bool cf_chol_super_factored(const cfCholSuper *F);
/**
 * Solve A x = b with the factor (cf_chol_super_factored() must be true; b and x may alias). Uses a
 * work vector kept in @p F: one factorization must not be used by two threads at the same time.
 */
void cf_chol_super_solve(const cfCholSuper *F, const double *b, double *x);
/** Nonzeros of L, diagonal included (the same count as cf_sparse_chol_nnz() for the same ordering
 *  when no supernode holds explicit zeros, which fundamental supernodes never do). */
long cf_chol_super_nnz(const cfCholSuper *F);
/** Number of supernodes (diagnostics). */
int cf_chol_super_supernodes(const cfCholSuper *F);
/** Free (NULL allowed). */
void cf_chol_super_free(cfCholSuper *F);
/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Linear solvers behind one interface (the inner solves of chapter 8)
 *  A symmetric positive definite system A x = b solved by a sparse Cholesky factor (exact) or by
 *  preconditioned conjugate gradients: block-Jacobi (the inverses of A's 3x3 diagonal blocks) or
 *  incomplete Cholesky IC(0) (the factor restricted to the pattern of A's lower triangle).
 *  @{ */

/** How cf_linsolver_solve() solves. */
typedef enum cfLinSolverKind {
    CF_LINSOLVE_CHOLESKY = 0, /**< sparse Cholesky (cf_sparse_chol_factor()): exact to round-off */
    CF_LINSOLVE_PCG_JACOBI,   /**< PCG with the 3x3 block-Jacobi preconditioner (cf_csr_block_diag_inverse()) */
    CF_LINSOLVE_PCG_IC0,      /**< PCG with incomplete Cholesky IC(0) (cf_ic0_factor()) */
    CF_LINSOLVE_KIND_COUNT    /**< number of kinds */
} cfLinSolverKind;

/** Name of a kind ("cholesky", "pcg-jacobi", "pcg-ic0"); "unknown" for other values. */
const char *cf_linsolver_kind_name(cfLinSolverKind k);

/** An incomplete Cholesky factor L (lower triangle in CSR, diagonal last in each row). */
typedef struct cfIc0 {
    cfCsr L;      /**< n x n lower triangle with the pattern of tril(A) */
    double shift; /**< alpha: the factor is of A + alpha diag(A) (0 unless the plain factorization broke down) */
} cfIc0;

/**
 * IC(0) of a symmetric positive definite CSR matrix (both triangles stored): L L^T = A on the
 * pattern of tril(A), L zero elsewhere. When a pivot is not positive (IC(0) exists for M-matrices,
 * not for every SPD matrix), the factorization is repeated for A + alpha diag(A) with alpha = 1e-3,
 * 1e-2, ..., 1 (Manteuffel's shift), recorded in cfIc0::shift. CF_BAD_INPUT for a matrix that is not
 * square or has a diagonal entry <= 0, CF_SINGULAR when even alpha = 1 breaks down. Allocates @p F
 * (free with cf_ic0_free()).
 */
cfStatus cf_ic0_factor(const cfCsr *A, cfIc0 *F);
/** z = (L L^T)^-1 r (z and r must not alias; thread-safe). */
void cf_ic0_apply(const cfIc0 *F, const double *r, double *z);
/** Free and zero. */
void cf_ic0_free(cfIc0 *F);

/** A prepared solver for one matrix (opaque). */
typedef struct cfLinSolver cfLinSolver;

/**
 * Prepare to solve with @p A (square, symmetric positive definite, order a multiple of 3 for the
 * block-Jacobi kind; @p A must outlive the solver, which keeps a pointer to it): factor it, or
 * build the preconditioner. @p tol_rel is the PCG kinds' relative tolerance (> 0; ignored by
 * Cholesky). Errors of the factorizations are passed on. Allocates @p *out (NULL on failure).
 */
cfStatus cf_linsolver_setup(const cfCsr *A, cfLinSolverKind kind, double tol_rel, cfLinSolver **out);
/** Doubles of work space one cf_linsolver_solve() needs. */
int cf_linsolver_work_size(const cfLinSolver *S);
/** True when solves with distinct work spaces may run in parallel (false for CHOLMOD's factor). */
bool cf_linsolver_reentrant(const cfLinSolver *S);
/**
 * Solve A x = b. @p x is the PCG kinds' initial guess (ignored by Cholesky); @p work has
 * cf_linsolver_work_size() doubles; @p iterations (may be NULL) receives the PCG iterations (0 for
 * Cholesky). CF_OK, or PCG's CF_MAX_ITER / CF_DIVERGED (x then holds its last iterate).
 */
cfStatus cf_linsolver_solve(const cfLinSolver *S, const double *b, double *x, double *work, int *iterations);
/** Free (NULL allowed). */
void cf_linsolver_free(cfLinSolver *S);
/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CF_LINALG_H */
