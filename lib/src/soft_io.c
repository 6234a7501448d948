/* SPDX-License-Identifier: MIT */
/* A reader for TetGen's .node/.ele text meshes, every error named by file and line. */
#include "cf/cf_soft.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one file read line by line: the data lines with their comments cut off */
typedef struct Reader {
    FILE *f;
    const char *path;
    int line;
    char buf[4096];
} Reader;

/* the next line with data (comments after '#' removed): 1; 0 at the end of the file; -1 with a
   message for a line that does not fit the buffer or holds a NUL byte */
static int next_line(Reader *r, cfError *err)
{
    while (fgets(r->buf, sizeof r->buf, r->f)) {
        r->line++;
        size_t len = strlen(r->buf);
        if (len + 1 == sizeof r->buf && r->buf[len - 1] != '\n' && !feof(r->f)) {
            cf_error_set(err, CF_BAD_INPUT, "%s:%d: line longer than %d characters", r->path, r->line, (int)sizeof r->buf - 1);
            return -1;
        }
        if (len + 1 < sizeof r->buf && !feof(r->f) && (len == 0 || r->buf[len - 1] != '\n')) {
            /* fgets stopped before the buffer was full and before the end: a NUL byte */
            cf_error_set(err, CF_BAD_INPUT, "%s:%d: not a text file (NUL byte)", r->path, r->line);
            return -1;
        }
        char *hash = strchr(r->buf, '#');
        if (hash) *hash = '\0';
        for (const char *p = r->buf; *p; ++p)
            if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') return 1;
    }
    return 0;
}

/* up to @p cap numbers of the current line; returns how many, -1 when a word is not a number */
static int numbers(Reader *r, double *out, int cap)
{
    int n = 0;
    char *p = r->buf;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') ++p;
        if (!*p) return n;
        char *end;
        errno = 0;
        double v = cf_strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v) ||
            (*end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n'))
            return -1;
        if (n < cap) out[n] = v;
        ++n;
        p = end;
    }
}

static bool integral(double v) { return v == floor(v) && fabs(v) < 2e9; }

/* a regular file only (cf_file_open(): a device or FIFO could block or never end) */
static cfStatus open_reader(Reader *r, const char *path, cfError *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    cfStatus st;
    r->f = cf_file_open(path, 0, &st, err);
    return st;
}

/* the header line "<count> <per item> ..." */
static cfStatus header(Reader *r, const char *what, const char *second, int per_item, int *count, int *extra, cfError *err)
{
    double v[4];
    int got = next_line(r, err);
    if (got < 0) return CF_BAD_INPUT;
    if (!got) return cf_error_set(err, CF_BAD_INPUT, "%s:%d: empty file (want the %s header)", r->path, r->line + 1, what);
    int n = numbers(r, v, 4);
    if (n < 2) return cf_error_set(err, CF_BAD_INPUT, "%s:%d: the %s header needs at least two numbers", r->path, r->line, what);
    if (!integral(v[0]) || v[0] < 1 || v[0] > 10000000)
        return cf_error_set(err, CF_BAD_INPUT, "%s:%d: %s count must be an integer in [1, 1e7] (got %g)", r->path, r->line, what, v[0]);
    if (v[1] != per_item)
        return cf_error_set(err, CF_BAD_INPUT, "%s:%d: %s must be %d (got %g%s)", r->path, r->line, second, per_item, v[1],
                            per_item == 4 && v[1] == 10 ? ": quadratic tetrahedra are not supported" : "");
    *count = (int)v[0];
    *extra = 0;
    for (int k = 2; k < n && k < 4; ++k) {
        if (!integral(v[k]) || v[k] < 0 || v[k] > 100)
            return cf_error_set(err, CF_BAD_INPUT, "%s:%d: attribute and marker counts must be integers in [0, 100]", r->path, r->line);
        *extra += (int)v[k];
    }
    return CF_OK;
}

/* the index of a point named by @p v on a line of @p r: an integer in [base, np - 1 + base], checked
   before any conversion (a double beyond an int is never converted) */
static cfStatus point_index(const Reader *r, const char *what, double v, int base, int np, int *out, cfError *err)
{
    if (!integral(v) || v < base || v > (double)np - 1 + base)
        return cf_error_set(err, CF_BAD_INPUT, "%s:%d: %s index %g out of range [%d, %d]", r->path, r->line, what, v, base,
                            np - 1 + base);
    *out = (int)v - base;
    return CF_OK;
}

cfStatus cf_soft_read_tetgen(cfSoftBody *s, const char *node_path, const char *ele_path, double scale, cfVec3 offset,
                             double density, double young, double poisson, double max_elements, cfError *err)
{
    memset(s, 0, sizeof *s);
    if (!(isfinite(scale) && scale > 0.0)) return cf_error_set(err, CF_BAD_INPUT, "scale: must be finite and > 0 (got %g)", scale);
    if (!cfu_vec3_finite(offset)) return cf_error_set(err, CF_BAD_INPUT, "offset: must be finite");
    if (!(isfinite(density) && density > 0.0))
        return cf_error_set(err, CF_BAD_INPUT, "density: must be finite and > 0 (got %g)", density);
    if (!(max_elements >= 0.0)) return cf_error_set(err, CF_BAD_INPUT, "max_elements: must be >= 0 (got %g)", max_elements);
    /* both headers first: the counts meet the budget before anything is allocated */
    Reader r, e;
    int np = 0, extra = 0, nt = 0, extra_e = 0, base = 0;
    cfStatus st = open_reader(&r, node_path, err);
    if (st != CF_OK) return st;
    st = header(&r, "points", "the dimension", 3, &np, &extra, err);
    if (st == CF_OK) st = open_reader(&e, ele_path, err);
    else e.f = NULL;
    if (st == CF_OK) st = header(&e, "tetrahedra", "nodes per tetrahedron", 4, &nt, &extra_e, err);
    if (st == CF_OK && max_elements > 0.0 && (double)np + nt > max_elements)
        st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: %d points and %d tetrahedra (%s) exceed the %.3g elements allowed",
                          node_path, r.line, np, nt, ele_path, max_elements);
    if (st == CF_OK && (st = cf_soft_init(s, np)) != CF_OK) cf_error_set(err, st, "out of memory");
    bool *seen = st == CF_OK ? calloc((size_t)np, sizeof *seen) : NULL;
    if (st == CF_OK && !seen) st = cf_error_set(err, CF_NO_MEMORY, "out of memory");
    for (int k = 0; k < np && st == CF_OK; ++k) {
        double v[4];
        int got = next_line(&r, err);
        if (got <= 0) {
            st = got < 0 ? CF_BAD_INPUT
                         : cf_error_set(err, CF_BAD_INPUT, "%s:%d: the file ends after %d of %d points", node_path, r.line, k, np);
            break;
        }
        int n = numbers(&r, v, 4);
        if (n < 0) st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: not a number", node_path, r.line);
        else if (n != 4 + extra)
            st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: a point needs %d values (index, x, y, z%s), got %d", node_path, r.line,
                              4 + extra, extra ? ", attributes, marker" : "", n);
        if (st != CF_OK) break;
        if (k == 0 && (v[0] == 0 || v[0] == 1)) base = (int)v[0];
        int idx = 0;
        st = point_index(&r, "point", v[0], base, np, &idx, err);
        if (st == CF_OK && seen[idx]) st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: point %g defined twice", node_path, r.line, v[0]);
        if (st != CF_OK) break;
        seen[idx] = true;
        s->x[idx] = cfu_add(offset, cfu_scale(scale, cfu_vec3(v[1], v[2], v[3])));
    }
    free(seen);
    fclose(r.f);
    for (int k = 0; k < nt && st == CF_OK; ++k) {
        double v[5];
        int got = next_line(&e, err);
        if (got <= 0) {
            st = got < 0 ? CF_BAD_INPUT
                         : cf_error_set(err, CF_BAD_INPUT, "%s:%d: the file ends after %d of %d tetrahedra", ele_path, e.line, k, nt);
            break;
        }
        int n = numbers(&e, v, 5);
        if (n < 0) st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: not a number", ele_path, e.line);
        else if (n != 5 + extra_e)
            st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: a tetrahedron needs %d values (index and 4 nodes%s), got %d", ele_path,
                              e.line, 5 + extra_e, extra_e ? ", attributes" : "", n);
        int nodes[4];
        for (int a = 0; a < 4 && st == CF_OK; ++a) st = point_index(&e, "node", v[a + 1], base, np, &nodes[a], err);
        if (st == CF_OK) {
            cfError e2 = {{0}};
            st = cf_soft_add_tet(s, nodes, &e2);
            if (st != CF_OK) cf_error_set(err, st, "%s:%d: %s", ele_path, e.line, e2.msg);
        }
    }
    if (st == CF_OK) {
        int got = next_line(&e, err);
        if (got < 0) st = CF_BAD_INPUT;
        else if (got > 0)
            st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: data after the %d tetrahedra of the header", ele_path, e.line, nt);
    }
    if (e.f) fclose(e.f);
    if (st == CF_OK) {
        cfError e2 = {{0}};
        st = cf_soft_build_surface(s, &e2);
        if (st != CF_OK) cf_error_set(err, st, "%s: %s", ele_path, e2.msg);
    }
    if (st == CF_OK) {
        /* a point no tetrahedron uses would be a free particle without mass */
        bool *used = calloc((size_t)np, sizeof *used);
        if (!used) st = cf_error_set(err, CF_NO_MEMORY, "out of memory");
        for (int t = 0; used && t < s->n_tets; ++t)
            for (int a = 0; a < 4; ++a) used[s->tets[t].n[a]] = true;
        for (int k = 0; used && k < np && st == CF_OK; ++k)
            if (!used[k]) st = cf_error_set(err, CF_BAD_INPUT, "%s: point %d belongs to no tetrahedron", node_path, k + base);
        free(used);
    }
    if (st == CF_OK) {
        s->density = density;
        s->young = young;
        s->poisson = poisson;
        cfError e2 = {{0}};
        st = cf_soft_finalize(s, &e2);
        if (st != CF_OK) cf_error_set(err, st, "%s: %s", ele_path, e2.msg);
    }
    if (st != CF_OK) cf_soft_free(s);
    return st;
}
