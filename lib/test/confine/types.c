/* SPDX-License-Identifier: MIT */
/* Typed outputs of confined calls (lib/test/cft_confine.h, tools/confine-gen): how each type that
   holds pointers crosses from the child to the test's process. The child sends values and
   contents (cft_put_T); the test's process (cft_get_T) writes them into memory it owns, with
   sizes it knows or checks, allocates what the callee would have allocated, checks every index
   that trusted code will later follow, and never takes a pointer from the child (a pointer the
   child sends back is at most compared with the caller's own). Also the callbacks that must run
   in the test's process (cft_cb_*) and the inputs of hot functions that hold pointers (cft_send_*,
   cft_recv_*). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "confine/cft_types.h"

/* ---- helpers ---- */

/* the largest array a child may hand back (elements) */
#define MAX_ELEMS (1l << 27)

static void put_int(cftCall *c, int v) { cft_put(c, &v, sizeof v); }

static int get_count(cftCall *c, long max, const char *what)
{
    int v;
    cft_get(c, &v, sizeof v);
    if (v < 0 || v > max) cft_call_reject(c, "%s = %d, outside 0..%ld", what, v, max);
    return v;
}

/* n elements of size e into new memory (NULL for none) */
static void *get_new(cftCall *c, size_t n, size_t e)
{
    if (n == 0) {
        cft_get(c, NULL, 0);
        return NULL;
    }
    void *p = malloc(n * e);
    if (!p) cft_call_reject(c, "no memory for %zu elements", n);
    cft_get(c, p, n * e);
    return p;
}

/* room for n elements of size e in the caller's array *p of capacity *cap (grown like the
   library grows it: the array is the caller's, so realloc is what the callee would have done) */
static void grow(cftCall *c, void **p, int *cap, int n, size_t e)
{
    if (n <= *cap && (*p || n == 0)) return;
    void *q = realloc(*p, (size_t)(n ? n : 1) * e);
    if (!q) cft_call_reject(c, "no memory for %d elements", n);
    *p = q;
    *cap = n;
}

static void check_index(cftCall *c, const char *what, long v, long lo, long hi)
{
    if (v < lo || v >= hi) cft_call_reject(c, "%s = %ld, outside %ld..%ld", what, v, lo, hi - 1);
}

/* ---- a string (a name from a fixed set): interned, so that a caller may keep or compare it ---- */

void cft_put_string(cftCall *c, const char *const *s)
{
    char null = *s == NULL;
    cft_put(c, &null, 1);
    if (!null) cft_put(c, *s, strnlen(*s, 4096));
}

void cft_get_string(cftCall *c, const char **s)
{
    char null;
    cft_get(c, &null, 1);
    if (null) {
        *s = NULL;
        return;
    }
    char buf[4097];
    size_t n = cft_get_upto(c, buf, 4096);
    buf[n] = '\0';
    if (strlen(buf) != n) cft_call_reject(c, "a string with a NUL byte inside");
    static char *interned[256];
    static int count;
    for (int k = 0; k < count; ++k)
        if (strcmp(interned[k], buf) == 0) {
            *s = interned[k];
            return;
        }
    if (count == (int)(sizeof interned / sizeof *interned)) cft_call_reject(c, "too many different strings");
    interned[count] = strdup(buf);
    if (!interned[count]) cft_call_reject(c, "no memory for a string");
    *s = interned[count++];
}

/* ---- cfReport: the caller owns history and inner (history_cap entries) ---- */

typedef struct ReportHead {
    cfStatus status;
    cfStopReason reason;
    cfMeasure measure;
    int iterations;
    double residual, seconds;
    int history_len;
} ReportHead;

static int kept(int len, int cap) { return len < 0 ? 0 : len > cap ? cap : len; }

void cft_put_report(cftCall *c, const cfReport *r)
{
    if (!r) return;
    ReportHead h = {r->status, r->reason, r->measure, r->iterations, r->residual, r->seconds, r->history_len};
    cft_put(c, &h, sizeof h);
    int n = r->history ? kept(r->history_len, r->history_cap) : 0;
    cft_put(c, r->history, (size_t)n * sizeof *r->history);
    cft_put(c, r->inner, r->inner ? (size_t)n * sizeof *r->inner : 0);
}

void cft_get_report(cftCall *c, cfReport *r)
{
    if (!r) return;
    ReportHead h;
    cft_get(c, &h, sizeof h);
    /* the history the child kept (the caller's buffer, at most its capacity) */
    size_t cap = r->history && r->history_cap > 0 ? (size_t)r->history_cap : 0;
    int n = (int)(cft_get_upto(c, r->history, cap * sizeof *r->history) / sizeof *r->history);
    size_t m = cft_get_upto(c, r->inner, r->inner ? cap * sizeof *r->inner : 0) / sizeof *r->inner;
    if (r->inner && (int)m < n) memset(r->inner + m, 0, (size_t)(n - (int)m) * sizeof *r->inner);
    n = kept(h.history_len, n);
    r->status = h.status;
    r->reason = h.reason;
    r->measure = h.measure;
    r->iterations = h.iterations;
    r->residual = h.residual;
    r->seconds = h.seconds;
    r->history_len = r->history ? n : h.history_len < 0 ? 0 : h.history_len;
}

/* ---- sparse and dense matrices the callee allocates (the caller's old content is not kept) ---- */

static void put_csr(cftCall *c, const cfCsr *A)
{
    bool has = A->rowptr != NULL;
    cft_put(c, &has, sizeof has);
    put_int(c, A->rows);
    put_int(c, A->cols);
    put_int(c, has ? A->nnz : 0);
    if (!has) return;
    cft_put(c, A->rowptr, ((size_t)A->rows + 1) * sizeof *A->rowptr);
    cft_put(c, A->colidx, (size_t)A->nnz * sizeof *A->colidx);
    cft_put(c, A->val, (size_t)A->nnz * sizeof *A->val);
}

/* a CSR matrix the library can walk: offsets from 0 to nnz, columns in range */
static void get_csr(cftCall *c, cfCsr *A)
{
    bool has;
    cft_get(c, &has, sizeof has);
    cfCsr B;
    memset(&B, 0, sizeof B);
    B.rows = get_count(c, MAX_ELEMS, "rows");
    B.cols = get_count(c, MAX_ELEMS, "cols");
    B.nnz = get_count(c, MAX_ELEMS, "nnz");
    if (has) {
        B.rowptr = get_new(c, (size_t)B.rows + 1, sizeof *B.rowptr);
        B.colidx = get_new(c, (size_t)B.nnz, sizeof *B.colidx);
        B.val = get_new(c, (size_t)B.nnz, sizeof *B.val);
        *A = B; /* the caller frees it whatever follows */
        if (B.rowptr[0] != 0 || B.rowptr[B.rows] != B.nnz)
            cft_call_reject(c, "a CSR matrix whose row offsets do not run from 0 to nnz");
        for (int i = 0; i < B.rows; ++i)
            if (B.rowptr[i + 1] < B.rowptr[i]) cft_call_reject(c, "a CSR matrix with decreasing row offsets");
        for (int k = 0; k < B.nnz; ++k) check_index(c, "a CSR column index", B.colidx[k], 0, B.cols);
    }
    *A = B;
}

void cft_put_csr_new(cftCall *c, const cfCsr *A)
{
    if (A) put_csr(c, A);
}

void cft_get_csr_new(cftCall *c, cfCsr *A)
{
    if (A) get_csr(c, A);
}

static void put_bsr(cftCall *c, const cfBsr *A)
{
    bool has = A->rowptr != NULL;
    cft_put(c, &has, sizeof has);
    int head[5] = {A->brows, A->bcols, A->br, A->bc, has ? A->nnzb : 0};
    cft_put(c, head, sizeof head);
    if (!has) return;
    cft_put(c, A->rowptr, ((size_t)A->brows + 1) * sizeof *A->rowptr);
    cft_put(c, A->colidx, (size_t)head[4] * sizeof *A->colidx);
    cft_put(c, A->val, (size_t)head[4] * (size_t)(A->br * A->bc) * sizeof *A->val);
}

/* a finalized block matrix (row offsets), blocks of at most 64 x 64, columns in range */
static void get_bsr(cftCall *c, cfBsr *A)
{
    bool has;
    cft_get(c, &has, sizeof has);
    int head[5];
    cft_get(c, head, sizeof head);
    cfBsr B;
    memset(&B, 0, sizeof B);
    B.brows = head[0], B.bcols = head[1], B.br = head[2], B.bc = head[3], B.nnzb = head[4];
    if (B.brows < 0 || B.brows > MAX_ELEMS || B.bcols < 0 || B.bcols > MAX_ELEMS || B.br < 0 || B.br > 64 ||
        B.bc < 0 || B.bc > 64 || B.nnzb < 0 || (long)B.nnzb * B.br * B.bc > MAX_ELEMS)
        cft_call_reject(c, "a block matrix of %d x %d blocks of %d x %d, %d stored", B.brows, B.bcols, B.br, B.bc,
                        B.nnzb);
    if (has) {
        B.rowptr = get_new(c, (size_t)B.brows + 1, sizeof *B.rowptr);
        B.colidx = get_new(c, (size_t)B.nnzb, sizeof *B.colidx);
        B.val = get_new(c, (size_t)B.nnzb * (size_t)(B.br * B.bc), sizeof *B.val);
        B.capb = B.nnzb;
        *A = B;
        if (B.rowptr[0] != 0 || B.rowptr[B.brows] != B.nnzb)
            cft_call_reject(c, "a block matrix whose row offsets do not run from 0 to its block count");
        for (int i = 0; i < B.brows; ++i)
            if (B.rowptr[i + 1] < B.rowptr[i]) cft_call_reject(c, "a block matrix with decreasing row offsets");
        for (int k = 0; k < B.nnzb; ++k) check_index(c, "a block column", B.colidx[k], 0, B.bcols);
    }
    *A = B;
}

void cft_put_bsr_new(cftCall *c, const cfBsr *A)
{
    if (A) put_bsr(c, A);
}

void cft_get_bsr_new(cftCall *c, cfBsr *A)
{
    if (A) get_bsr(c, A);
}

void cft_put_dense_new(cftCall *c, const cfDense *A)
{
    if (!A) return;
    int head[2] = {A->rows, A->cols};
    bool has = A->a != NULL;
    cft_put(c, &has, sizeof has);
    cft_put(c, head, sizeof head);
    if (has) cft_put(c, A->a, (size_t)A->rows * (size_t)A->cols * sizeof *A->a);
}

void cft_get_dense_new(cftCall *c, cfDense *A)
{
    if (!A) return;
    bool has;
    int head[2];
    cft_get(c, &has, sizeof has);
    cft_get(c, head, sizeof head);
    if (head[0] < 0 || head[1] < 0 || (long)head[0] * head[1] > MAX_ELEMS)
        cft_call_reject(c, "a dense matrix of %d x %d", head[0], head[1]);
    cfDense B = {head[0], head[1], NULL};
    if (has) B.a = get_new(c, (size_t)head[0] * (size_t)head[1], sizeof *B.a);
    *A = B;
}

/* ---- problems the callee allocates ---- */

static void put_doubles(cftCall *c, const double *p, long n)
{
    bool has = p != NULL;
    cft_put(c, &has, sizeof has);
    if (has) cft_put(c, p, (size_t)(n > 0 ? n : 0) * sizeof *p);
}

static double *get_doubles(cftCall *c, long n)
{
    bool has;
    cft_get(c, &has, sizeof has);
    if (!has) return NULL;
    double *p = get_new(c, (size_t)(n > 0 ? n : 0), sizeof *p);
    return p ? p : malloc(1); /* an allocated empty array, as the callee's */
}

void cft_put_fc_new(cftCall *c, const cfFrictionProblem *p)
{
    if (!p) return;
    put_int(c, p->nc);
    put_bsr(c, &p->W);
    put_doubles(c, p->q, 3l * p->nc);
    put_doubles(c, p->mu, p->nc);
    put_doubles(c, p->ellipse, 2l * p->nc);
}

void cft_get_fc_new(cftCall *c, cfFrictionProblem *p)
{
    if (!p) return;
    memset(p, 0, sizeof *p);
    int nc = get_count(c, MAX_ELEMS / 9, "nc");
    p->nc = nc;
    get_bsr(c, &p->W);
    p->q = get_doubles(c, 3l * nc);
    p->mu = get_doubles(c, nc);
    p->ellipse = get_doubles(c, 2l * nc);
}

/* cf_stabilize(): W's values and q change in place, nothing else */
void cft_put_fc_values(cftCall *c, const cfFrictionProblem *p)
{
    if (!p) return;
    int head[2] = {p->nc, p->W.nnzb};
    cft_put(c, head, sizeof head);
    cft_put(c, p->W.val, p->W.val ? (size_t)p->W.nnzb * 9 * sizeof *p->W.val : 0);
    cft_put(c, p->q, p->q ? (size_t)p->nc * 3 * sizeof *p->q : 0);
}

void cft_get_fc_values(cftCall *c, cfFrictionProblem *p)
{
    if (!p) return;
    int head[2];
    cft_get(c, head, sizeof head);
    if (head[0] != p->nc || head[1] != p->W.nnzb || p->W.br != 3 || p->W.bc != 3)
        cft_call_reject(c, "the problem's shape changed (nc %d, blocks %d)", head[0], head[1]);
    cft_get(c, p->W.val, p->W.val ? (size_t)p->W.nnzb * 9 * sizeof *p->W.val : 0);
    cft_get(c, p->q, p->q ? (size_t)p->nc * 3 * sizeof *p->q : 0);
}

void cft_put_lcp_new(cftCall *c, const cfLcp *p)
{
    if (!p) return;
    put_int(c, p->n);
    put_csr(c, &p->A);
    put_doubles(c, p->b, p->n);
}

void cft_get_lcp_new(cftCall *c, cfLcp *p)
{
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->n = get_count(c, MAX_ELEMS, "n");
    get_csr(c, &p->A);
    p->b = get_doubles(c, p->n);
}

void cft_put_blcp_new(cftCall *c, const cfBlcp *p)
{
    if (!p) return;
    put_int(c, p->n);
    put_csr(c, &p->A);
    put_doubles(c, p->b, p->n);
    put_doubles(c, p->lo, p->n);
    put_doubles(c, p->hi, p->n);
    bool has = p->findex != NULL;
    cft_put(c, &has, sizeof has);
    if (has) cft_put(c, p->findex, (size_t)(p->n > 0 ? p->n : 0) * sizeof *p->findex);
    put_doubles(c, p->mu, p->n);
}

void cft_get_blcp_new(cftCall *c, cfBlcp *p)
{
    if (!p) return;
    memset(p, 0, sizeof *p);
    int n = get_count(c, MAX_ELEMS, "n");
    p->n = n;
    get_csr(c, &p->A);
    p->b = get_doubles(c, n);
    p->lo = get_doubles(c, n);
    p->hi = get_doubles(c, n);
    bool has;
    cft_get(c, &has, sizeof has);
    if (has) {
        p->findex = get_new(c, (size_t)n, sizeof *p->findex);
        if (!p->findex) p->findex = malloc(1);
        for (int i = 0; i < n; ++i) check_index(c, "findex", p->findex[i], -1, n);
    }
    p->mu = get_doubles(c, n);
}

/* ---- chapter 2's soft dual form: the factorization is made again here from A ---- */

void cft_put_soft_dual_new(cftCall *c, const cfSoftDual *d)
{
    if (!d) return;
    int head[2] = {d->n, d->nc};
    cft_put(c, head, sizeof head);
    put_csr(c, &d->A);
    put_doubles(c, d->b, d->n);
    put_csr(c, &d->J);
    bool chol = d->chol != NULL;
    cft_put(c, &chol, sizeof chol);
    put_doubles(c, d->u_free, d->n);
}

void cft_get_soft_dual_new(cftCall *c, cfSoftDual *d)
{
    if (!d) return;
    memset(d, 0, sizeof *d);
    int head[2];
    cft_get(c, head, sizeof head);
    if (head[0] < 0 || head[0] > MAX_ELEMS || head[1] < 0 || head[1] > MAX_ELEMS)
        cft_call_reject(c, "a soft dual form of %d unknowns and %d contacts", head[0], head[1]);
    d->n = head[0];
    d->nc = head[1];
    get_csr(c, &d->A);
    d->b = get_doubles(c, d->n);
    get_csr(c, &d->J);
    bool chol;
    cft_get(c, &chol, sizeof chol);
    d->u_free = get_doubles(c, d->n);
    if (chol) {
        if (d->A.rows != d->n || d->A.cols != d->n) cft_call_reject(c, "A is not n x n");
        if (cf_sparse_chol_factor(&d->A, &d->chol) != CF_OK)
            cft_call_reject(c, "a factorization of A that cannot be made again");
    }
}

/* ---- a soft body's state after a step (its topology and arrays stay the caller's) ---- */

void cft_put_soft_state(cftCall *c, const cfSoftBody *s)
{
    size_t n = (size_t)s->n_nodes * sizeof(cfVec3);
    cft_put(c, s->x, s->x ? n : 0);
    cft_put(c, s->v, s->v ? n : 0);
    cft_put(c, s->x_prev, s->x_prev ? n : 0);
    cft_put(c, s->v_prev, s->v_prev ? n : 0);
    cft_put(c, &s->has_prev, sizeof s->has_prev);
}

void cft_get_soft_state(cftCall *c, cfSoftBody *s)
{
    size_t n = (size_t)s->n_nodes * sizeof(cfVec3);
    cft_get(c, s->x, s->x ? n : 0);
    cft_get(c, s->v, s->v ? n : 0);
    cft_get(c, s->x_prev, s->x_prev ? n : 0);
    cft_get(c, s->v_prev, s->v_prev ? n : 0);
    bool has;
    cft_get(c, &has, sizeof has);
    s->has_prev = has && s->x_prev && s->v_prev;
}

/* ---- chapter 9's implicit system after a step: its state and the bumped stiffness ---- */

void cft_put_implicit_state(cftCall *c, const cfImplicitSystem *s)
{
    size_t n = (size_t)s->n * 3 * sizeof(double);
    cft_put(c, s->q, s->q ? n : 0);
    cft_put(c, s->v, s->v ? n : 0);
    cft_put(c, s->q_prev, s->q_prev ? n : 0);
    cft_put(c, s->v_prev, s->v_prev ? n : 0);
    cft_put(c, &s->has_prev, sizeof s->has_prev);
    cft_put(c, &s->kappa, sizeof s->kappa);
}

void cft_get_implicit_state(cftCall *c, cfImplicitSystem *s)
{
    size_t n = (size_t)s->n * 3 * sizeof(double);
    cft_get(c, s->q, s->q ? n : 0);
    cft_get(c, s->v, s->v ? n : 0);
    cft_get(c, s->q_prev, s->q_prev ? n : 0);
    cft_get(c, s->v_prev, s->v_prev ? n : 0);
    bool has;
    cft_get(c, &has, sizeof has);
    s->has_prev = has && s->q_prev && s->v_prev;
    cft_get(c, &s->kappa, sizeof s->kappa);
}

/* ---- contacts: `extra` comes back NULL or as the caller had it, never as a new pointer ---- */

static void contacts_back(cfContact *ct, long n);

void cft_put_contacts(cftCall *c, const cfContact *out, long n)
{
    if (!out || n <= 0) return;
    contacts_back((cfContact *)out, n);
    cft_put(c, out, (size_t)n * sizeof *out);
}

void cft_get_contacts(cftCall *c, cfContact *out, long n)
{
    if (!out || n <= 0) return;
    cfContact *got = malloc((size_t)n * sizeof *got);
    if (!got) cft_call_reject(c, "no memory for %ld contacts", n);
    cft_get(c, got, (size_t)n * sizeof *got);
    for (long k = 0; k < n; ++k) {
        if (got[k].extra != NULL && got[k].extra != out[k].extra) {
            free(got);
            cft_call_reject(c, "contact %ld's extra points to memory of its own", k);
        }
        got[k].extra = got[k].extra ? out[k].extra : NULL;
    }
    memcpy(out, got, (size_t)n * sizeof *out);
    free(got);
}

/* a contact list (caller-owned, the callee clears and fills it): rebuilt with the library's own
   functions, the extras copied into the list's store */
void cft_put_contact_list(cftCall *c, const cfContactList *l)
{
    if (!l) return;
    int n = l->count;
    put_int(c, n);
    for (int k = 0; k < n; ++k) {
        cfContact ct = l->items[k];
        bool extra = ct.extra != NULL;
        ct.extra = NULL;
        cft_put(c, &ct, sizeof ct);
        cft_put(c, &extra, sizeof extra);
        if (extra) cft_put(c, l->items[k].extra, sizeof *l->items[k].extra);
    }
}

void cft_get_contact_list_entries(cftCall *c, cfContactList *l);

void cft_get_contact_list(cftCall *c, cfContactList *l)
{
    if (!l) return;
    cft_get_contact_list_entries(c, l);
}

/* the contacts of a list as put_list()/cft_put_contact_list() send them, appended to @p l */
void cft_get_contact_list_entries(cftCall *c, cfContactList *l)
{
    int n = get_count(c, 1 << 20, "contacts");
    cf_contacts_clear(l);
    for (int k = 0; k < n; ++k) {
        cfContact ct;
        bool extra;
        cft_get(c, &ct, sizeof ct);
        cft_get(c, &extra, sizeof extra);
        ct.extra = NULL;
        if (cf_contacts_push(l, &ct) != CF_OK) cft_call_reject(c, "no memory for a contact");
        if (extra) {
            cfContactExtra e;
            cft_get(c, &e, sizeof e);
            if (e.soft_a.n < 0 || e.soft_a.n > CF_CONTACT_NODES || e.soft_b.n < 0 || e.soft_b.n > CF_CONTACT_NODES ||
                e.friction.law < 0 || e.friction.law >= CF_LAW_COUNT)
                cft_call_reject(c, "contact %d's extra is out of range", k);
            cfContactExtra *x = cf_contacts_extra(l, &l->items[l->count - 1]);
            if (!x) cft_call_reject(c, "no memory for a contact's extra");
            *x = e;
        }
    }
}

/* ---- lists the callee grows ---- */

void cft_put_pairs(cftCall *c, const cfPairList *l, long n)
{
    (void)n;
    if (!l) return;
    put_int(c, l->count);
    cft_put(c, l->items, (size_t)(l->count > 0 ? l->count : 0) * sizeof *l->items);
}

/* pairs of the broad phase: a < b, both among the n boxes */
void cft_get_pairs(cftCall *c, cfPairList *l, long n)
{
    if (!l) return;
    int count = get_count(c, MAX_ELEMS, "pairs");
    grow(c, (void **)&l->items, &l->cap, count, sizeof *l->items);
    cft_get(c, l->items, (size_t)count * sizeof *l->items);
    l->count = count;
    for (int k = 0; k < count; ++k) {
        check_index(c, "a pair's first box", l->items[k].a, 0, n);
        check_index(c, "a pair's second box", l->items[k].b, 0, n);
    }
}

/* a triplet list the callee appends to (the caller initialized it) */
void cft_put_triplets(cftCall *c, const cfTriplets *t)
{
    if (!t) return;
    int head[3] = {t->rows, t->cols, t->nnz};
    cft_put(c, head, sizeof head);
    size_t n = (size_t)(t->nnz > 0 ? t->nnz : 0);
    cft_put(c, t->i, n * sizeof *t->i);
    cft_put(c, t->j, n * sizeof *t->j);
    cft_put(c, t->v, n * sizeof *t->v);
}

void cft_get_triplets(cftCall *c, cfTriplets *t)
{
    if (!t) return;
    int head[3];
    cft_get(c, head, sizeof head);
    if (head[0] != t->rows || head[1] != t->cols) cft_call_reject(c, "the triplet list changed its shape");
    if (head[2] < 0 || head[2] > MAX_ELEMS) cft_call_reject(c, "a triplet list of %d entries", head[2]);
    int n = head[2], cap = t->cap;
    grow(c, (void **)&t->i, &cap, n, sizeof *t->i);
    cap = t->cap;
    grow(c, (void **)&t->j, &cap, n, sizeof *t->j);
    cap = t->cap;
    grow(c, (void **)&t->v, &cap, n, sizeof *t->v);
    if (n > t->cap) t->cap = n;
    cft_get(c, t->i, (size_t)n * sizeof *t->i);
    cft_get(c, t->j, (size_t)n * sizeof *t->j);
    cft_get(c, t->v, (size_t)n * sizeof *t->v);
    t->nnz = 0; /* until checked */
    for (int k = 0; k < n; ++k) {
        check_index(c, "a triplet's row", t->i[k], 0, t->rows);
        check_index(c, "a triplet's column", t->j[k], 0, t->cols);
    }
    t->nnz = n;
}

/* ---- chapter 4's incremental Cholesky factor (in place: cap stays) ---- */

void cft_put_chol_update(cftCall *c, const cfCholUpdate *F)
{
    if (!F) return;
    int head[2] = {F->k, F->cap};
    cft_put(c, head, sizeof head);
    if (F->k >= 0 && F->k <= F->cap) cft_put(c, F->idx, (size_t)F->k * sizeof *F->idx);
    cft_put(c, F->L, F->L ? (size_t)F->cap * (size_t)F->cap * sizeof *F->L : 0);
}

void cft_get_chol_update(cftCall *c, cfCholUpdate *F)
{
    if (!F) return;
    int head[2];
    cft_get(c, head, sizeof head);
    if (head[1] != F->cap || head[0] < 0 || head[0] > F->cap)
        cft_call_reject(c, "the factor has k = %d of capacity %d (was %d)", head[0], head[1], F->cap);
    cft_get(c, F->idx, (size_t)head[0] * sizeof *F->idx);
    for (int j = 0; j < head[0]; ++j) check_index(c, "an index of C", F->idx[j], 0, F->cap);
    cft_get(c, F->L, F->L ? (size_t)F->cap * (size_t)F->cap * sizeof *F->L : 0);
    F->k = head[0];
}

/* ---- chapter 5's rigid solver work space (the callee sizes it; the arrays are the caller's) ---- */

void cft_put_rigid_pgs(cftCall *c, const cfRigidPgs *ws)
{
    if (!ws) return;
    int head[2] = {ws->nc, ws->nb};
    cft_put(c, head, sizeof head);
    if (ws->nc < 0 || ws->nb < 0) return;
    cft_put(c, ws->rows, (size_t)ws->nc * sizeof *ws->rows);
    cft_put(c, ws->perm, ws->perm ? (size_t)ws->nc * sizeof *ws->perm : 0);
    cft_put(c, ws->vel, ws->vel ? (size_t)ws->nb * 2 * sizeof *ws->vel : 0);
}

void cft_get_rigid_pgs(cftCall *c, cfRigidPgs *ws)
{
    if (!ws) return;
    int head[2];
    cft_get(c, head, sizeof head);
    int nc = head[0], nb = head[1];
    if (nc < 0 || nc > (1 << 24) || nb < 0 || nb > (1 << 24))
        cft_call_reject(c, "a work space of %d contacts and %d bodies", nc, nb);
    int cap = ws->cap;
    grow(c, (void **)&ws->rows, &cap, nc, sizeof *ws->rows);
    cap = ws->cap;
    grow(c, (void **)&ws->perm, &cap, nc, sizeof *ws->perm);
    if (nc > ws->cap) ws->cap = nc;
    grow(c, (void **)&ws->vel, &ws->cap_bodies, 2 * nb, sizeof *ws->vel);
    ws->nc = ws->nb = 0; /* until checked */
    cft_get(c, ws->rows, (size_t)nc * sizeof *ws->rows);
    cft_get(c, ws->perm, (size_t)nc * sizeof *ws->perm);
    cft_get(c, ws->vel, (size_t)nb * 2 * sizeof *ws->vel);
    for (int a = 0; a < nc; ++a) { /* perm is the solve's scratch: no one reads it between calls */
        check_index(c, "a row's body A", ws->rows[a].ia, -1, nb);
        check_index(c, "a row's body B", ws->rows[a].ib, -1, nb);
    }
    ws->nc = nc;
    ws->nb = nb;
    if (ws->cap_bodies < nb) ws->cap_bodies = nb;
}

/* ---- chapter 11's islands (allocated by the callee) ---- */

static int *get_ints(cftCall *c, long n, long lo, long hi, const char *what)
{
    bool has;
    cft_get(c, &has, sizeof has);
    if (!has) return NULL;
    int *p = get_new(c, (size_t)(n > 0 ? n : 0), sizeof *p);
    if (!p) p = malloc(sizeof *p);
    for (long k = 0; k < n; ++k) check_index(c, what, p[k], lo, hi);
    return p;
}

static void put_ints(cftCall *c, const int *p, long n)
{
    bool has = p != NULL;
    cft_put(c, &has, sizeof has);
    if (has) cft_put(c, p, (size_t)(n > 0 ? n : 0) * sizeof *p);
}

void cft_put_islands_new(cftCall *c, const cfIslands *is, long nb, long ns, long nc)
{
    if (!is) return;
    int head[4] = {is->count, is->nb, is->ns, is->nc};
    cft_put(c, head, sizeof head);
    put_ints(c, is->of_body, nb);
    put_ints(c, is->of_soft, ns);
    put_ints(c, is->of_contact, nc);
}

void cft_get_islands_new(cftCall *c, cfIslands *is, long nb, long ns, long nc)
{
    if (!is) return;
    int head[4];
    cft_get(c, head, sizeof head);
    memset(is, 0, sizeof *is);
    if (head[0] < 0 || head[0] > nb + ns || (head[1] != nb && head[1] != 0) || (head[2] != ns && head[2] != 0) ||
        (head[3] != nc && head[3] != 0))
        cft_call_reject(c, "islands of %d bodies, %d soft bodies and %d contacts for %ld, %ld and %ld", head[1],
                        head[2], head[3], nb, ns, nc);
    int n = head[0];
    is->of_body = get_ints(c, nb, -1, n, "a body's island");
    is->of_soft = get_ints(c, ns, -1, n, "a soft body's island");
    is->of_contact = get_ints(c, nc, -1, n, "a contact's island");
    is->count = n;
    is->nb = head[1];
    is->ns = head[2];
    is->nc = head[3];
}

/* ---- hot functions' inputs that hold pointers: serialized by the test's side (each array
   length-prefixed, 8-byte aligned) and rebuilt by the server, the struct first; inputs are
   cached (cft_send_cached), objects the function changes are rebuilt with arrays of their own
   (it may grow or free them) ---- */

typedef struct Ser {
    char *p;
    size_t n, cap;
    const char *ref; /* a cached input's bytes sent last: while they match, nothing is copied */
    size_t ref_n;
} Ser;

/* the bytes so far match the reference up to s->n: make them a buffer of their own */
static void ser_own(Ser *s)
{
    const char *ref = s->ref;
    s->ref = NULL;
    size_t n = s->n;
    s->n = 0;
    if (n) {
        s->cap = n > 4096 ? n : 4096;
        s->p = malloc(s->cap);
        if (!s->p) abort();
        memcpy(s->p, ref, n);
        s->n = n;
    }
}

static void ser_put(Ser *s, const void *p, size_t n)
{
    if (s->ref) {
        uint64_t len = p ? (uint64_t)n : UINT64_MAX;
        size_t step = 8 + (p ? ((n + 7) & ~(size_t)7) : 0);
        if (s->n + step <= s->ref_n && memcmp(s->ref + s->n, &len, 8) == 0 &&
            (!p || n == 0 || memcmp(s->ref + s->n + 8, p, n) == 0)) {
            s->n += step;
            return;
        }
        ser_own(s);
    }
    size_t need = s->n + 8 + ((n + 7) & ~(size_t)7);
    if (need > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        while (cap < need) cap *= 2;
        char *q = realloc(s->p, cap);
        if (!q) abort(); /* the test's process has no memory left */
        s->p = q;
        s->cap = cap;
    }
    uint64_t len = p ? (uint64_t)n : UINT64_MAX;
    memcpy(s->p + s->n, &len, 8);
    s->n += 8;
    if (p && n) memcpy(s->p + s->n, p, n);
    if (p) {
        memset(s->p + s->n + n, 0, ((n + 7) & ~(size_t)7) - n);
        s->n += (n + 7) & ~(size_t)7;
    }
}

#define SER_ARR(s, p, count) ser_put((s), (p), (p) ? (size_t)((count) > 0 ? (count) : 0) * sizeof *(p) : 0)

typedef struct Cur {
    char *p;
    size_t n, at;
} Cur;

/* the next array: a pointer into the buffer, NULL for a NULL array */
static void *cur_get(Cur *c)
{
    if (c->at + 8 > c->n) _exit(124);
    uint64_t len;
    memcpy(&len, c->p + c->at, 8);
    c->at += 8;
    if (len == UINT64_MAX) return NULL;
    if (len > c->n - c->at) _exit(124);
    void *q = c->p + c->at;
    c->at += (len + 7) & ~(uint64_t)7;
    return q;
}

/* the same as memory of its own (the function may grow or free it) */
static void *cur_dup(Cur *c)
{
    size_t at = c->at;
    uint64_t len;
    if (at + 8 > c->n) _exit(124);
    memcpy(&len, c->p + at, 8);
    void *q = cur_get(c);
    if (!q) return NULL;
    void *d = malloc(len ? len : 1);
    if (!d) _exit(124);
    memcpy(d, q, len);
    return d;
}

/* a Ser for a cached input: compared with what went to this server last */
static Ser ser_for(cftCall *c, cftCache *k)
{
    Ser s = {0};
    if (k && k->sent && k->server == c->pid) {
        s.ref = k->sent;
        s.ref_n = k->n;
    }
    return s;
}

static void send_ser(cftCall *c, Ser *s, cftCache *k)
{
    if (k && s->ref && s->n == s->ref_n) {
        cft_send_cached(c, k, s->ref, s->n); /* the same bytes: only a mark goes */
        return;
    }
    if (s->ref) ser_own(s);
    if (k)
        cft_send_cached(c, k, s->p, s->n);
    else
        cft_send_block(c, s->p, s->n);
    free(s->p);
}

/* server: the buffer of send_ser(); *fresh: new bytes (a cached input built again) */
static bool recv_ser(cftCall *c, cftCache *k, Cur *cur)
{
    bool fresh = true;
    size_t n;
    cur->p = k ? cft_recv_cached(c, k, &n, &fresh) : cft_child_get_block(c, &n, (size_t)1 << 31);
    cur->n = n;
    cur->at = 0;
    if (!cur->p) _exit(124);
    return fresh;
}

static void *server_obj(cftCache *k, size_t size)
{
    if (!k->obj) k->obj = calloc(1, size);
    if (!k->obj) _exit(124);
    return k->obj;
}

static void ser_csr(Ser *s, const cfCsr *A)
{
    SER_ARR(s, A->rowptr, A->rows + 1);
    SER_ARR(s, A->colidx, A->nnz);
    SER_ARR(s, A->val, A->nnz);
}

static void cur_csr(Cur *c, cfCsr *A)
{
    A->rowptr = cur_get(c);
    A->colidx = cur_get(c);
    A->val = cur_get(c);
}

static void ser_bsr(Ser *s, const cfBsr *A)
{
    SER_ARR(s, A->rowptr, A->brows + 1);
    SER_ARR(s, A->colidx, A->nnzb);
    SER_ARR(s, A->val, (long)A->nnzb * A->br * A->bc);
}

static void cur_bsr(Cur *c, cfBsr *A, bool own)
{
    A->rowptr = own ? cur_dup(c) : cur_get(c);
    A->colidx = own ? cur_dup(c) : cur_get(c);
    A->val = own ? cur_dup(c) : cur_get(c);
    A->capb = A->nnzb;
}

/* an LCP */
void cft_send_in_lcp(cftCall *c, const cfLcp *p, cftCache *k)
{
    Ser s = ser_for(c, k);
    ser_put(&s, p, p ? sizeof *p : 0);
    if (p) {
        ser_csr(&s, &p->A);
        SER_ARR(&s, p->b, p->n);
    }
    send_ser(c, &s, k);
}

void *cft_recv_in_lcp(cftCall *c, cftCache *k)
{
    Cur cur;
    recv_ser(c, k, &cur);
    cfLcp *src = cur_get(&cur);
    if (!src) return NULL;
    cfLcp *p = server_obj(k, sizeof *p);
    {
        *p = *src;
        cur_csr(&cur, &p->A);
        p->b = cur_get(&cur);
    }
    return p;
}

/* a boxed LCP */
void cft_send_in_blcp(cftCall *c, const cfBlcp *p, cftCache *k)
{
    Ser s = ser_for(c, k);
    ser_put(&s, p, p ? sizeof *p : 0);
    if (p) {
        ser_csr(&s, &p->A);
        SER_ARR(&s, p->b, p->n);
        SER_ARR(&s, p->lo, p->n);
        SER_ARR(&s, p->hi, p->n);
        SER_ARR(&s, p->findex, p->n);
        SER_ARR(&s, p->mu, p->n);
    }
    send_ser(c, &s, k);
}

void *cft_recv_in_blcp(cftCall *c, cftCache *k)
{
    Cur cur;
    recv_ser(c, k, &cur);
    cfBlcp *src = cur_get(&cur);
    if (!src) return NULL;
    cfBlcp *p = server_obj(k, sizeof *p);
    {
        *p = *src;
        cur_csr(&cur, &p->A);
        p->b = cur_get(&cur);
        p->lo = cur_get(&cur);
        p->hi = cur_get(&cur);
        p->findex = cur_get(&cur);
        p->mu = cur_get(&cur);
    }
    return p;
}

/* a frictional contact problem (an input, or the object cf_stabilize() changes) */
static void ser_fc(Ser *s, const cfFrictionProblem *p)
{
    ser_put(s, p, p ? sizeof *p : 0);
    if (!p) return;
    ser_bsr(s, &p->W);
    SER_ARR(s, p->q, 3l * p->nc);
    SER_ARR(s, p->mu, p->nc);
    SER_ARR(s, p->ellipse, 2l * p->nc);
}

static cfFrictionProblem *cur_fc(Cur *cur, cfFrictionProblem *p, bool own)
{
    cfFrictionProblem *src = cur_get(cur);
    if (!src) return NULL;
    *p = *src;
    cur_bsr(cur, &p->W, own);
    p->q = own ? cur_dup(cur) : cur_get(cur);
    p->mu = own ? cur_dup(cur) : cur_get(cur);
    p->ellipse = own ? cur_dup(cur) : cur_get(cur);
    return p;
}

void cft_send_in_fc(cftCall *c, const cfFrictionProblem *p, cftCache *k)
{
    Ser s = ser_for(c, k);
    ser_fc(&s, p);
    send_ser(c, &s, k);
}

void *cft_recv_in_fc(cftCall *c, cftCache *k)
{
    Cur cur;
    recv_ser(c, k, &cur);
    return cur_fc(&cur, server_obj(k, sizeof(cfFrictionProblem)), false);
}

void cft_send_fc_values(cftCall *c, const cfFrictionProblem *p)
{
    Ser s = {0};
    ser_fc(&s, p);
    send_ser(c, &s, NULL);
}

void *cft_recv_fc_values(cftCall *c)
{
    Cur cur;
    recv_ser(c, NULL, &cur);
    static cfFrictionProblem p;
    return cur_fc(&cur, &p, true);
}

/* chapter 6's rigid contact system */
void cft_send_in_csys(cftCall *c, const cfContactSystem *p, cftCache *k)
{
    Ser s = ser_for(c, k);
    ser_put(&s, p, p ? sizeof *p : 0);
    if (p) {
        SER_ARR(&s, p->M, 36l * p->nb);
        SER_ARR(&s, p->p, 6l * p->nb);
        ser_bsr(&s, &p->J);
        SER_ARR(&s, p->bias, p->nc);
        SER_ARR(&s, p->mu, p->nc);
    }
    send_ser(c, &s, k);
}

void *cft_recv_in_csys(cftCall *c, cftCache *k)
{
    Cur cur;
    recv_ser(c, k, &cur);
    cfContactSystem *src = cur_get(&cur);
    if (!src) return NULL;
    cfContactSystem *p = server_obj(k, sizeof *p);
    {
        *p = *src;
        p->M = cur_get(&cur);
        p->p = cur_get(&cur);
        cur_bsr(&cur, &p->J, false);
        p->bias = cur_get(&cur);
        p->mu = cur_get(&cur);
    }
    return p;
}

/* chapter 3's grid SDF */
void cft_send_in_sdf_grid(cftCall *c, const cfSdfGrid *g, cftCache *k)
{
    Ser s = ser_for(c, k);
    ser_put(&s, g, g ? sizeof *g : 0);
    if (g) SER_ARR(&s, g->phi, (long)g->n[0] * g->n[1] * g->n[2]);
    send_ser(c, &s, k);
}

void *cft_recv_in_sdf_grid(cftCall *c, cftCache *k)
{
    Cur cur;
    recv_ser(c, k, &cur);
    cfSdfGrid *src = cur_get(&cur);
    if (!src) return NULL;
    cfSdfGrid *g = server_obj(k, sizeof *g);
    {
        *g = *src;
        g->phi = cur_get(&cur);
    }
    return g;
}

/* one contact, with its extra (its soft sides and friction law) */
void cft_send_in_contact(cftCall *c, const cfContact *ct, cftCache *k)
{
    Ser s = ser_for(c, k);
    ser_put(&s, ct, ct ? sizeof *ct : 0);
    if (ct) ser_put(&s, ct->extra, ct->extra ? sizeof *ct->extra : 0);
    send_ser(c, &s, k);
}

void *cft_recv_in_contact(cftCall *c, cftCache *k)
{
    Cur cur;
    recv_ser(c, k, &cur);
    cfContact *src = cur_get(&cur);
    if (!src) return NULL;
    cfContact *ct = server_obj(k, sizeof *ct);
    {
        *ct = *src;
        ct->extra = cur_get(&cur);
    }
    return ct;
}

/* contacts as an input (with their extras) */
void cft_send_in_contacts(cftCall *c, const cfContact *ct, long n, cftCache *k)
{
    Ser s = ser_for(c, k);
    SER_ARR(&s, ct, n);
    for (long j = 0; ct && j < n; ++j) ser_put(&s, ct[j].extra, ct[j].extra ? sizeof *ct[j].extra : 0);
    send_ser(c, &s, k);
}

void *cft_recv_in_contacts(cftCall *c, long n, cftCache *k)
{
    Cur cur;
    recv_ser(c, k, &cur);
    cfContact *ct = cur_get(&cur);
    for (long j = 0; ct && j < n; ++j) ct[j].extra = cur_get(&cur);
    return ct;
}

/* a matrix the function allocates: nothing to send */
void cft_send_csr_new(cftCall *c, const cfCsr *A)
{
    bool has = A != NULL;
    cft_send(c, &has, sizeof has);
}

void *cft_recv_csr_new(cftCall *c)
{
    bool has;
    cft_child_get(c, &has, sizeof has);
    static cfCsr A;
    memset(&A, 0, sizeof A);
    return has ? &A : NULL;
}

/* chapter 9's IPC system (read only: the line search, the CCD step, Newton's energy) */
static void ser_ipc(Ser *s, const cfIpcSystem *p)
{
    ser_put(s, p, p ? sizeof *p : 0);
    if (!p) return;
    long n3 = 3l * p->n;
    SER_ARR(s, p->q, n3);
    SER_ARR(s, p->u, n3);
    SER_ARR(s, p->q_rest, n3);
    SER_ARR(s, p->mass, p->n);
    SER_ARR(s, p->fixed, p->n);
    SER_ARR(s, p->tri, p->n_tri);
    SER_ARR(s, p->edge, p->n_edge);
    SER_ARR(s, p->spring, p->n_spring);
    SER_ARR(s, p->rest, p->n_spring);
    SER_ARR(s, p->stiff, p->n_spring);
    SER_ARR(s, p->q_start, n3);
    SER_ARR(s, p->q_tilde, n3);
    SER_ARR(s, p->fric, p->n_fric);
}

void cft_send_in_ipc(cftCall *c, const cfIpcSystem *p, cftCache *k)
{
    Ser s = ser_for(c, k);
    ser_ipc(&s, p);
    send_ser(c, &s, k);
}

void *cft_recv_in_ipc(cftCall *c, cftCache *k)
{
    Cur cur;
    recv_ser(c, k, &cur);
    cfIpcSystem *src = cur_get(&cur);
    if (!src) return NULL;
    cfIpcSystem *p = server_obj(k, sizeof *p);
    {
        *p = *src;
        p->q = cur_get(&cur);
        p->u = cur_get(&cur);
        p->q_rest = cur_get(&cur);
        p->mass = cur_get(&cur);
        p->fixed = cur_get(&cur);
        p->tri = cur_get(&cur);
        p->edge = cur_get(&cur);
        p->spring = cur_get(&cur);
        p->rest = cur_get(&cur);
        p->stiff = cur_get(&cur);
        p->q_start = cur_get(&cur);
        p->q_tilde = cur_get(&cur);
        p->fric = cur_get(&cur);
        p->cap_n = p->n, p->cap_tri = p->n_tri, p->cap_edge = p->n_edge, p->cap_spring = p->n_spring;
        p->cap_fric = p->n_fric;
        p->edge_table = NULL, p->cap_edge_table = p->n_edge_table = 0; /* not sent: the server's pointer */
    }
    return p;
}

/* chapter 9's implicit system (its step changes its state: rebuilt with arrays of its own) */
void cft_send_implicit_state(cftCall *c, const cfImplicitSystem *p)
{
    Ser s = {0};
    ser_put(&s, p, p ? sizeof *p : 0);
    if (p) {
        long n3 = 3l * p->n;
        SER_ARR(&s, p->q, n3);
        SER_ARR(&s, p->v, n3);
        SER_ARR(&s, p->q_prev, n3);
        SER_ARR(&s, p->v_prev, n3);
        SER_ARR(&s, p->mass, p->n);
        SER_ARR(&s, p->fixed, p->n);
        SER_ARR(&s, p->spring, p->n_spring);
        SER_ARR(&s, p->rest, p->n_spring);
        SER_ARR(&s, p->stiff, p->n_spring);
        SER_ARR(&s, p->obst, p->n_obst);
        SER_ARR(&s, p->tri, p->n_tri);
    }
    send_ser(c, &s, NULL);
}

void *cft_recv_implicit_state(cftCall *c)
{
    Cur cur;
    recv_ser(c, NULL, &cur);
    cfImplicitSystem *src = cur_get(&cur);
    if (!src) return NULL;
    static cfImplicitSystem p;
    p = *src;
    p.q = cur_dup(&cur);
    p.v = cur_dup(&cur);
    p.q_prev = cur_dup(&cur);
    p.v_prev = cur_dup(&cur);
    p.mass = cur_dup(&cur);
    p.fixed = cur_dup(&cur);
    p.spring = cur_dup(&cur);
    p.rest = cur_dup(&cur);
    p.stiff = cur_dup(&cur);
    p.obst = cur_dup(&cur);
    p.tri = cur_dup(&cur);
    p.cap_n = p.n, p.cap_spring = p.n_spring, p.cap_obst = p.n_obst, p.cap_tri = p.n_tri;
    return &p;
}

/* a solver report: the caller's history buffer, its capacity */
void cft_send_report(cftCall *c, const cfReport *r)
{
    bool has = r != NULL;
    cft_send(c, &has, sizeof has);
    if (!has) return;
    cft_send(c, r, sizeof *r);
}

void *cft_recv_report(cftCall *c)
{
    bool has;
    cft_child_get(c, &has, sizeof has);
    if (!has) return NULL;
    static cfReport r;
    static double *history;
    static int *inner;
    cft_child_get(c, &r, sizeof r);
    free(history);
    free(inner);
    int cap = r.history_cap > 0 ? r.history_cap : 0;
    history = r.history ? calloc((size_t)cap + 1, sizeof *history) : NULL;
    inner = r.inner ? calloc((size_t)cap + 1, sizeof *inner) : NULL;
    r.history = history;
    r.inner = inner;
    return &r;
}

/* a triplet list the function appends to */
void cft_send_triplets(cftCall *c, const cfTriplets *t)
{
    Ser s = {0};
    ser_put(&s, t, t ? sizeof *t : 0);
    if (t) {
        SER_ARR(&s, t->i, t->nnz);
        SER_ARR(&s, t->j, t->nnz);
        SER_ARR(&s, t->v, t->nnz);
    }
    send_ser(c, &s, NULL);
}

void *cft_recv_triplets(cftCall *c)
{
    Cur cur;
    recv_ser(c, NULL, &cur);
    cfTriplets *src = cur_get(&cur);
    if (!src) return NULL;
    static cfTriplets t;
    t = *src;
    t.i = cur_dup(&cur);
    t.j = cur_dup(&cur);
    t.v = cur_dup(&cur);
    t.cap = t.nnz;
    return &t;
}

/* contacts the function changes in place (their lambda, say): the server keeps the caller's
   extra pointers beside its own copies and puts them back before the contacts return */
static cfContactExtra **extra_of; /* the caller's, per contact */
static cfContactExtra *extra_copy;
static long n_extra;

void cft_send_contacts(cftCall *c, const cfContact *ct, long n)
{
    Ser s = {0};
    SER_ARR(&s, ct, n);
    for (long k = 0; ct && k < n; ++k) ser_put(&s, ct[k].extra, ct[k].extra ? sizeof *ct[k].extra : 0);
    send_ser(c, &s, NULL);
}

void *cft_recv_contacts(cftCall *c, long n)
{
    Cur cur;
    recv_ser(c, NULL, &cur);
    cfContact *ct = cur_get(&cur);
    free(extra_of);
    free(extra_copy);
    extra_of = NULL, extra_copy = NULL, n_extra = 0;
    if (!ct || n <= 0) return ct;
    extra_of = malloc((size_t)n * sizeof *extra_of);
    extra_copy = malloc((size_t)n * sizeof *extra_copy);
    if (!extra_of || !extra_copy) _exit(124);
    n_extra = n;
    for (long k = 0; k < n; ++k) {
        cfContactExtra *e = cur_get(&cur);
        extra_of[k] = ct[k].extra;
        if (e) {
            extra_copy[k] = *e;
            ct[k].extra = &extra_copy[k];
        }
    }
    return ct;
}

/* the server's copies of extras back to the caller's pointers (before cft_put_contacts) */
static void contacts_back(cfContact *ct, long n)
{
    for (long k = 0; ct && k < n && k < n_extra; ++k)
        if (ct[k].extra == &extra_copy[k]) ct[k].extra = extra_of[k];
}

/* contacts the function only writes (a detection's output buffer, whose entries the caller may
   not have initialized: nothing of them is read here) */
void cft_send_contacts_out(cftCall *c, const cfContact *ct, long n)
{
    long m = ct ? n : -1;
    cft_send(c, &m, sizeof m);
}

void *cft_recv_contacts_out(cftCall *c, long n)
{
    long m;
    cft_child_get(c, &m, sizeof m);
    (void)n;
    if (m < 0) return NULL;
    static cfContact *buf;
    free(buf);
    buf = calloc((size_t)(m > 0 ? m : 1), sizeof *buf);
    if (!buf) _exit(124);
    return buf;
}

void cft_put_contacts_out(cftCall *c, const cfContact *out, long n)
{
    cft_put_contacts(c, out, n);
}

void cft_get_contacts_out(cftCall *c, cfContact *out, long n)
{
    cft_get_contacts(c, out, n);
}

/* chapter 5's work space (the function sizes it; arrays of its own) */
void cft_send_rigid_pgs(cftCall *c, const cfRigidPgs *ws)
{
    Ser s = {0};
    ser_put(&s, ws, ws ? sizeof *ws : 0);
    if (ws) {
        SER_ARR(&s, ws->rows, ws->nc);
        SER_ARR(&s, ws->perm, ws->nc);
        SER_ARR(&s, ws->vel, 2l * ws->nb);
    }
    send_ser(c, &s, NULL);
}

void *cft_recv_rigid_pgs(cftCall *c)
{
    Cur cur;
    recv_ser(c, NULL, &cur);
    cfRigidPgs *src = cur_get(&cur);
    if (!src) return NULL;
    static cfRigidPgs ws;
    ws = *src;
    ws.rows = cur_dup(&cur);
    ws.perm = cur_dup(&cur);
    ws.vel = cur_dup(&cur);
    ws.cap = ws.rows ? ws.nc : 0;
    if (!ws.perm) ws.cap = 0;
    ws.cap_bodies = ws.vel ? ws.nb : 0;
    return &ws;
}

/* a soft body whose step changes its state */
void cft_send_soft_state(cftCall *c, const cfSoftBody *b)
{
    Ser s = {0};
    ser_put(&s, b, b ? sizeof *b : 0);
    if (b) {
        long n = b->n_nodes;
        SER_ARR(&s, b->x, n);
        SER_ARR(&s, b->v, n);
        SER_ARR(&s, b->x_rest, n);
        SER_ARR(&s, b->mass, n);
        SER_ARR(&s, b->fixed, n);
        SER_ARR(&s, b->springs, b->n_springs);
        SER_ARR(&s, b->tets, b->n_tets);
        SER_ARR(&s, b->tris, b->n_tris);
        SER_ARR(&s, b->x_prev, n);
        SER_ARR(&s, b->v_prev, n);
    }
    send_ser(c, &s, NULL);
}

void *cft_recv_soft_state(cftCall *c)
{
    Cur cur;
    recv_ser(c, NULL, &cur);
    cfSoftBody *src = cur_get(&cur);
    if (!src) return NULL;
    static cfSoftBody b;
    b = *src;
    b.x = cur_dup(&cur);
    b.v = cur_dup(&cur);
    b.x_rest = cur_dup(&cur);
    b.mass = cur_dup(&cur);
    b.fixed = cur_dup(&cur);
    b.springs = cur_dup(&cur);
    b.tets = cur_dup(&cur);
    b.tris = cur_dup(&cur);
    b.x_prev = cur_dup(&cur);
    b.v_prev = cur_dup(&cur);
    b.cap_springs = b.n_springs, b.cap_tets = b.n_tets, b.cap_tris = b.n_tris;
    return &b;
}

/* a soft body as an input */
void cft_send_in_soft(cftCall *c, const cfSoftBody *b, cftCache *k)
{
    Ser s = ser_for(c, k);
    ser_put(&s, b, b ? sizeof *b : 0);
    if (b) {
        long n = b->n_nodes;
        SER_ARR(&s, b->x, n);
        SER_ARR(&s, b->v, n);
        SER_ARR(&s, b->x_rest, n);
        SER_ARR(&s, b->mass, n);
        SER_ARR(&s, b->fixed, n);
        SER_ARR(&s, b->springs, b->n_springs);
        SER_ARR(&s, b->tets, b->n_tets);
        SER_ARR(&s, b->tris, b->n_tris);
        SER_ARR(&s, b->x_prev, n);
        SER_ARR(&s, b->v_prev, n);
    }
    send_ser(c, &s, k);
}

void *cft_recv_in_soft(cftCall *c, cftCache *k)
{
    Cur cur;
    recv_ser(c, k, &cur);
    cfSoftBody *src = cur_get(&cur);
    if (!src) return NULL;
    cfSoftBody *b = server_obj(k, sizeof *b);
    {
        *b = *src;
        b->x = cur_get(&cur);
        b->v = cur_get(&cur);
        b->x_rest = cur_get(&cur);
        b->mass = cur_get(&cur);
        b->fixed = cur_get(&cur);
        b->springs = cur_get(&cur);
        b->tets = cur_get(&cur);
        b->tris = cur_get(&cur);
        b->x_prev = cur_get(&cur);
        b->v_prev = cur_get(&cur);
    }
    return b;
}

/* chapter 8's dual system */
void cft_send_in_dual(cftCall *c, const cfDualSystem *p, cftCache *k)
{
    Ser s = ser_for(c, k);
    ser_put(&s, p, p ? sizeof *p : 0);
    if (p) {
        ser_csr(&s, &p->A);
        SER_ARR(&s, p->b, p->n);
        SER_ARR(&s, p->vfree, p->n);
        ser_csr(&s, &p->J);
        SER_ARR(&s, p->bias, p->nc);
        SER_ARR(&s, p->mu, p->nc);
    }
    send_ser(c, &s, k);
}

void *cft_recv_in_dual(cftCall *c, cftCache *k)
{
    Cur cur;
    recv_ser(c, k, &cur);
    cfDualSystem *src = cur_get(&cur);
    if (!src) return NULL;
    cfDualSystem *p = server_obj(k, sizeof *p);
    {
        *p = *src;
        cur_csr(&cur, &p->A);
        p->b = cur_get(&cur);
        p->vfree = cur_get(&cur);
        cur_csr(&cur, &p->J);
        p->bias = cur_get(&cur);
        p->mu = cur_get(&cur);
    }
    return p;
}

/* a contact list the function clears and fills (chapter 7's Moreau step): rebuilt with the
   library's own functions */
void cft_send_contact_list(cftCall *c, const cfContactList *l)
{
    Ser s = {0};
    bool has = l != NULL;
    ser_put(&s, &has, sizeof has);
    if (l) {
        SER_ARR(&s, l->items, l->count);
        for (int k = 0; k < l->count; ++k)
            ser_put(&s, l->items[k].extra, l->items[k].extra ? sizeof *l->items[k].extra : 0);
    }
    send_ser(c, &s, NULL);
}

void *cft_recv_contact_list(cftCall *c)
{
    Cur cur;
    recv_ser(c, NULL, &cur);
    bool *has = cur_get(&cur);
    if (!has || !*has) return NULL;
    static cfContactList l;
    cf_contacts_free(&l);
    uint64_t len;
    memcpy(&len, cur.p + cur.at, 8);
    cfContact *items = cur_get(&cur);
    int n = items ? (int)(len / sizeof *items) : 0;
    for (int k = 0; k < n; ++k) {
        cfContact ct = items[k];
        ct.extra = NULL;
        if (cf_contacts_push(&l, &ct) != CF_OK) _exit(124);
        cfContactExtra *e = cur_get(&cur);
        if (e) {
            cfContactExtra *x = cf_contacts_extra(&l, &l.items[l.count - 1]);
            if (!x) _exit(124);
            *x = *e;
        }
    }
    return &l;
}

/* ---- callbacks that run in the test's process ---- */

/* chapter 4: the options' trace, with the events the solver reports */
static void trace_stub(void *ctx, const cfPivotEvent *ev)
{
    (void)ctx;
    cftCall *c = cft_child_call();
    cft_callback(c, 0);
    int head[4] = {ev->pivot, ev->n, ev->entering, ev->leaving};
    cft_put(c, head, sizeof head);
    cft_put(c, &ev->step, sizeof ev->step);
    int n = ev->n > 0 ? ev->n : 0;
    bool has[3] = {ev->label != NULL, ev->x != NULL, ev->w != NULL};
    cft_put(c, has, sizeof has);
    cft_put(c, ev->label, has[0] ? (size_t)n : 0);
    cft_put(c, ev->x, has[1] ? (size_t)n * sizeof *ev->x : 0);
    cft_put(c, ev->w, has[2] ? (size_t)n * sizeof *ev->w : 0);
}

const cfPivotOptions *cft_cb_child_pivot_trace(cftCall *c, const cfPivotOptions *o, long n)
{
    (void)c;
    (void)n;
    if (!o || !o->trace) return o;
    static cfPivotOptions copy;
    copy = *o;
    copy.trace = trace_stub;
    copy.trace_ctx = NULL;
    return &copy;
}

static void trace_handler(cftCall *c, int k, void *ctx)
{
    const cfPivotOptions *o = ctx;
    if (k != 0) cft_call_reject(c, "an unknown callback %d", k);
    int head[4];
    cft_get(c, head, sizeof head);
    if (head[1] < 0 || head[1] > c->cb_arg) cft_call_reject(c, "a pivot event of %d variables", head[1]);
    cfPivotEvent ev = {.pivot = head[0], .n = head[1], .entering = head[2], .leaving = head[3]};
    cft_get(c, &ev.step, sizeof ev.step);
    bool has[3];
    cft_get(c, has, sizeof has);
    size_t n = (size_t)ev.n;
    unsigned char *label = has[0] ? malloc(n + 1) : NULL;
    double *x = has[1] ? malloc(n * sizeof *x + 1) : NULL, *w = has[2] ? malloc(n * sizeof *w + 1) : NULL;
    if ((has[0] && !label) || (has[1] && !x) || (has[2] && !w)) cft_call_reject(c, "no memory for a pivot event");
    cft_get(c, label, has[0] ? n : 0);
    cft_get(c, x, has[1] ? n * sizeof *x : 0);
    cft_get(c, w, has[2] ? n * sizeof *w : 0);
    ev.label = label;
    ev.x = x;
    ev.w = w;
    o->trace(o->trace_ctx, &ev);
    free(label);
    free(x);
    free(w);
}

void cft_cb_parent_pivot_trace(cftCall *c, const cfPivotOptions *o, long n)
{
    if (!o || !o->trace) return;
    cft_call_on_callback(c, trace_handler, (void *)o);
    c->cb_arg = n;
}

/* chapter 10: the cone generator of the anisotropic PROX, a function of the test's (it may count
   its calls in ctx) */
typedef struct ConeArgs {
    int contact;
    double lambda_n, v_t[2];
} ConeArgs;

static void cone_stub(void *ctx, int contact, double lambda_n, const double v_t[2], double axes[2])
{
    (void)ctx;
    cftCall *c = cft_child_call();
    cft_callback(c, 0);
    ConeArgs a = {contact, lambda_n, {v_t[0], v_t[1]}};
    cft_put(c, &a, sizeof a);
    cft_child_get(c, axes, 2 * sizeof *axes);
}

static void cone_handler(cftCall *c, int k, void *ctx)
{
    cfConeGenerator gen = (cfConeGenerator)(uintptr_t)c->cb_arg;
    if (k != 0 || !gen) cft_call_reject(c, "an unknown callback %d", k);
    ConeArgs a;
    cft_get(c, &a, sizeof a);
    double axes[2] = {0, 0};
    gen(ctx, a.contact, a.lambda_n, a.v_t, axes);
    cft_send(c, axes, sizeof axes);
}

cfConeGenerator cft_cb_child_cone_gen(cftCall *c, cfConeGenerator gen, long ctx)
{
    (void)c;
    (void)ctx;
    return gen ? cone_stub : NULL;
}

void cft_cb_parent_cone_gen(cftCall *c, cfConeGenerator gen, long ctx)
{
    if (!gen) return;
    cft_call_on_callback(c, cone_handler, (void *)(uintptr_t)ctx);
    c->cb_arg = (long)(uintptr_t)gen;
}

/* chapter 7: the caller's detection of a Moreau step (it may check that it sees the caller's
   bodies, and carries warm starts over from the list it is given): runs in the test's process
   on the caller's bodies, brought to the child's current state first, and on a list that holds
   what the child's list holds; the list it fills goes back to the child */
static void put_list(cftCall *c, const cfContactList *l, bool child)
{
    int n = l ? l->count : 0;
    if (child)
        cft_put(c, &n, sizeof n);
    else
        cft_send(c, &n, sizeof n);
    for (int k = 0; k < n; ++k) {
        cfContact ct = l->items[k];
        bool extra = ct.extra != NULL;
        ct.extra = NULL;
        if (child) {
            cft_put(c, &ct, sizeof ct);
            cft_put(c, &extra, sizeof extra);
            if (extra) cft_put(c, l->items[k].extra, sizeof *l->items[k].extra);
        } else {
            cft_send(c, &ct, sizeof ct);
            cft_send(c, &extra, sizeof extra);
            if (extra) cft_send(c, l->items[k].extra, sizeof *l->items[k].extra);
        }
    }
}

static cfStatus detect_stub(void *ctx, cfRigidBody *bodies, int nb, cfContactList *out)
{
    (void)ctx;
    cftCall *c = cft_child_call();
    cft_callback(c, 0);
    cft_put(c, &nb, sizeof nb);
    cft_put(c, bodies, nb > 0 ? (size_t)nb * sizeof *bodies : 0);
    put_list(c, out, true);
    cfStatus st;
    int n;
    cft_child_get(c, &st, sizeof st);
    cft_child_get(c, &n, sizeof n);
    if (out) cf_contacts_clear(out);
    for (int k = 0; k < n; ++k) {
        cfContact ct;
        bool extra;
        cft_child_get(c, &ct, sizeof ct);
        cft_child_get(c, &extra, sizeof extra);
        cfContactExtra e;
        if (extra) cft_child_get(c, &e, sizeof e);
        if (!out) continue;
        if (cf_contacts_push(out, &ct) != CF_OK) _exit(124);
        if (extra) {
            cfContactExtra *x = cf_contacts_extra(out, &out->items[out->count - 1]);
            if (!x) _exit(124);
            *x = e;
        }
    }
    return st;
}

cfMoreauDetect cft_cb_child_moreau_detect(cftCall *c, cfMoreauDetect detect, long ctx, long bodies, long nb)
{
    (void)c, (void)ctx, (void)bodies, (void)nb;
    return detect ? detect_stub : NULL;
}

typedef struct DetectArgs {
    cfMoreauDetect detect;
    void *ctx;
    cfRigidBody *bodies;
    int nb;
} DetectArgs;

static void detect_handler(cftCall *c, int k, void *arg)
{
    const DetectArgs *a = arg;
    if (k != 0) cft_call_reject(c, "an unknown callback %d", k);
    int nb;
    cft_get(c, &nb, sizeof nb);
    if (nb != a->nb || !a->bodies) cft_call_reject(c, "detection asked for %d bodies of %d", nb, a->nb);
    /* the caller's bodies take the child's state (they are an output of the step anyway) */
    cfRigidBody *got = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *got);
    if (!got) cft_call_reject(c, "no memory");
    cft_get(c, got, (size_t)(nb > 0 ? nb : 0) * sizeof *got);
    memcpy(a->bodies, got, (size_t)(nb > 0 ? nb : 0) * sizeof *got);
    free(got);
    static cfContactList list;
    cf_contacts_clear(&list);
    cft_get_contact_list_entries(c, &list);
    cfStatus st = a->detect(a->ctx, a->bodies, nb, &list);
    cft_send(c, &st, sizeof st);
    put_list(c, &list, false);
}

void cft_cb_parent_moreau_detect(cftCall *c, cfMoreauDetect detect, long ctx, long bodies, long nb)
{
    if (!detect) return;
    static DetectArgs args[8];
    static int next;
    DetectArgs *a = &args[next++ % 8]; /* a nested confined call uses another */
    *a = (DetectArgs){detect, (void *)(uintptr_t)ctx, (cfRigidBody *)(uintptr_t)bodies, (int)nb};
    cft_call_on_callback(c, detect_handler, a);
}

/* chapter 8: the world's callbacks of a CMR step */
enum { CMR_BEGIN, CMR_RESPOND, CMR_ADVANCE, CMR_COLLIDE, CMR_COMMIT, CMR_RESTORE };

static cfStatus cmr_ask(int k, const double *dt, int *added, int *colliding)
{
    cftCall *c = cft_child_call();
    cft_callback(c, k);
    if (dt) cft_put(c, dt, sizeof *dt);
    cfStatus st;
    cft_child_get(c, &st, sizeof st);
    if (added) cft_child_get(c, added, sizeof *added);
    if (colliding) cft_child_get(c, colliding, sizeof *colliding);
    return st;
}

static cfStatus cmr_begin(void *ctx, double dt) { (void)ctx; return cmr_ask(CMR_BEGIN, &dt, NULL, NULL); }
static cfStatus cmr_respond(void *ctx) { (void)ctx; return cmr_ask(CMR_RESPOND, NULL, NULL, NULL); }
static cfStatus cmr_advance(void *ctx) { (void)ctx; return cmr_ask(CMR_ADVANCE, NULL, NULL, NULL); }
static cfStatus cmr_collide(void *ctx, int *added, int *colliding)
{
    (void)ctx;
    int a = 0, b = 0;
    cfStatus st = cmr_ask(CMR_COLLIDE, NULL, &a, &b);
    if (added) *added = a;
    if (colliding) *colliding = b;
    return st;
}
static cfStatus cmr_commit(void *ctx) { (void)ctx; return cmr_ask(CMR_COMMIT, NULL, NULL, NULL); }
static cfStatus cmr_restore(void *ctx) { (void)ctx; return cmr_ask(CMR_RESTORE, NULL, NULL, NULL); }

const cfCmrOps *cft_cb_child_cmr_ops(cftCall *c, const cfCmrOps *ops)
{
    (void)c;
    if (!ops) return ops;
    static cfCmrOps copy;
    copy.ctx = NULL;
    copy.begin = ops->begin ? cmr_begin : NULL;
    copy.respond = ops->respond ? cmr_respond : NULL;
    copy.advance = ops->advance ? cmr_advance : NULL;
    copy.collide = ops->collide ? cmr_collide : NULL;
    copy.commit = ops->commit ? cmr_commit : NULL;
    copy.restore = ops->restore ? cmr_restore : NULL;
    return &copy;
}

static void cmr_handler(cftCall *c, int k, void *ctx)
{
    const cfCmrOps *ops = ctx;
    cfStatus st = CF_BAD_INPUT;
    int added = 0, colliding = 0;
    switch (k) {
    case CMR_BEGIN: {
        double dt;
        cft_get(c, &dt, sizeof dt);
        if (ops->begin) st = ops->begin(ops->ctx, dt);
        break;
    }
    case CMR_RESPOND: if (ops->respond) st = ops->respond(ops->ctx); break;
    case CMR_ADVANCE: if (ops->advance) st = ops->advance(ops->ctx); break;
    case CMR_COLLIDE: if (ops->collide) st = ops->collide(ops->ctx, &added, &colliding); break;
    case CMR_COMMIT: if (ops->commit) st = ops->commit(ops->ctx); break;
    case CMR_RESTORE: if (ops->restore) st = ops->restore(ops->ctx); break;
    default: cft_call_reject(c, "an unknown callback %d", k);
    }
    cft_send(c, &st, sizeof st);
    if (k == CMR_COLLIDE) {
        cft_send(c, &added, sizeof added);
        cft_send(c, &colliding, sizeof colliding);
    }
}

void cft_cb_parent_cmr_ops(cftCall *c, const cfCmrOps *ops)
{
    if (ops) cft_call_on_callback(c, cmr_handler, (void *)ops);
}

/* chapter 11: the world's stages of a step */
enum { STEP_SAVE = CF_STEP_STAGES, STEP_RESTORE, STEP_FINITE, STEP_COMMIT };

static cfStatus step_ask(int k)
{
    cftCall *c = cft_child_call();
    cft_callback(c, k);
    cfStatus st;
    cft_child_get(c, &st, sizeof st);
    return st;
}

#define STAGE_STUB(k) static cfStatus stage_##k(void *ctx) { (void)ctx; return step_ask(k); }
STAGE_STUB(0)
STAGE_STUB(1)
STAGE_STUB(2)
STAGE_STUB(3)
STAGE_STUB(4)
STAGE_STUB(5)
STAGE_STUB(6)
_Static_assert(CF_STEP_STAGES == 7, "one stub per stage");
static cfStatus (*const stage_stubs[CF_STEP_STAGES])(void *) = {stage_0, stage_1, stage_2, stage_3,
                                                                 stage_4, stage_5, stage_6};
static cfStatus step_save(void *ctx) { (void)ctx; return step_ask(STEP_SAVE); }
static void step_restore(void *ctx) { (void)ctx; (void)step_ask(STEP_RESTORE); }
static cfStatus step_finite(void *ctx) { (void)ctx; return step_ask(STEP_FINITE); }
static void step_commit(void *ctx) { (void)ctx; (void)step_ask(STEP_COMMIT); }

const cfStepOps *cft_cb_child_step_ops(cftCall *c, const cfStepOps *ops)
{
    (void)c;
    if (!ops) return ops;
    static cfStepOps copy;
    copy = *ops; /* names and seconds as they are */
    copy.ctx = NULL;
    for (int k = 0; k < CF_STEP_STAGES; ++k) copy.stage[k] = ops->stage[k] ? stage_stubs[k] : NULL;
    copy.save = ops->save ? step_save : NULL;
    copy.restore = ops->restore ? step_restore : NULL;
    copy.finite = ops->finite ? step_finite : NULL;
    copy.commit = ops->commit ? step_commit : NULL;
    return &copy;
}

static void step_handler(cftCall *c, int k, void *ctx)
{
    const cfStepOps *ops = ctx;
    cfStatus st = CF_BAD_INPUT;
    if (k >= 0 && k < CF_STEP_STAGES) {
        if (ops->stage[k]) st = ops->stage[k](ops->ctx);
    } else if (k == STEP_SAVE) {
        if (ops->save) st = ops->save(ops->ctx);
    } else if (k == STEP_RESTORE) {
        if (ops->restore) ops->restore(ops->ctx);
        st = CF_OK;
    } else if (k == STEP_FINITE) {
        if (ops->finite) st = ops->finite(ops->ctx);
    } else if (k == STEP_COMMIT) {
        if (ops->commit) ops->commit(ops->ctx);
        st = CF_OK;
    } else {
        cft_call_reject(c, "an unknown callback %d", k);
    }
    cft_send(c, &st, sizeof st);
}

void cft_cb_parent_step_ops(cftCall *c, const cfStepOps *ops)
{
    if (ops) cft_call_on_callback(c, step_handler, (void *)ops);
}
