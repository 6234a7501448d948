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

/* the next line with data (comments after '#' removed); false at the end of the file */
static bool next_line(Reader *r)
{
    while (fgets(r->buf, sizeof r->buf, r->f)) {
        r->line++;
        char *hash = strchr(r->buf, '#');
        if (hash) *hash = '\0';
        for (const char *p = r->buf; *p; ++p)
            if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') return true;
    }
    return false;
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
        double v = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v) ||
            (*end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n'))
            return -1;
        if (n < cap) out[n] = v;
        ++n;
        p = end;
    }
}

static bool integral(double v) { return v == floor(v) && fabs(v) < 2e9; }

static cfStatus open_reader(Reader *r, const char *path, cfError *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->f = fopen(path, "r");
    if (!r->f) return cf_error_set(err, CF_IO_ERROR, "%s: cannot open (%s)", path, strerror(errno));
    return CF_OK;
}

/* the header line "<count> <per item> ..." */
static cfStatus header(Reader *r, const char *what, const char *second, int per_item, int *count, int *extra, cfError *err)
{
    double v[4];
    if (!next_line(r)) return cf_error_set(err, CF_BAD_INPUT, "%s:%d: empty file (want the %s header)", r->path, r->line + 1, what);
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

cfStatus cf_soft_read_tetgen(cfSoftBody *s, const char *node_path, const char *ele_path, double scale, cfVec3 offset,
                             double density, double young, double poisson, cfError *err)
{
    memset(s, 0, sizeof *s);
    if (!(isfinite(scale) && scale > 0.0)) return cf_error_set(err, CF_BAD_INPUT, "scale: must be finite and > 0 (got %g)", scale);
    if (!cfu_vec3_finite(offset)) return cf_error_set(err, CF_BAD_INPUT, "offset: must be finite");
    if (!(isfinite(density) && density > 0.0))
        return cf_error_set(err, CF_BAD_INPUT, "density: must be finite and > 0 (got %g)", density);
    Reader r;
    cfStatus st = open_reader(&r, node_path, err);
    if (st != CF_OK) return st;
    int np = 0, extra = 0, base = 0;
    st = header(&r, "points", "the dimension", 3, &np, &extra, err);
    if (st == CF_OK && (st = cf_soft_init(s, np)) != CF_OK) cf_error_set(err, st, "out of memory");
    bool *seen = st == CF_OK ? calloc((size_t)np, sizeof *seen) : NULL;
    if (st == CF_OK && !seen) st = cf_error_set(err, CF_NO_MEMORY, "out of memory");
    for (int k = 0; k < np && st == CF_OK; ++k) {
        double v[4];
        if (!next_line(&r)) {
            st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: the file ends after %d of %d points", node_path, r.line, k, np);
            break;
        }
        int n = numbers(&r, v, 4);
        if (n < 0) st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: not a number", node_path, r.line);
        else if (n != 4 + extra)
            st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: a point needs %d values (index, x, y, z%s), got %d", node_path, r.line,
                              4 + extra, extra ? ", attributes, marker" : "", n);
        if (st != CF_OK) break;
        if (k == 0 && (v[0] == 0 || v[0] == 1)) base = (int)v[0];
        int idx = (int)v[0] - base;
        if (!integral(v[0]) || idx < 0 || idx >= np)
            st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: point index %g out of range [%d, %d]", node_path, r.line, v[0], base,
                              np - 1 + base);
        else if (seen[idx])
            st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: point %g defined twice", node_path, r.line, v[0]);
        if (st != CF_OK) break;
        seen[idx] = true;
        s->x[idx] = cfu_add(offset, cfu_scale(scale, cfu_vec3(v[1], v[2], v[3])));
    }
    free(seen);
    fclose(r.f);
    if (st != CF_OK) {
        cf_soft_free(s);
        return st;
    }
    st = open_reader(&r, ele_path, err);
    if (st != CF_OK) {
        cf_soft_free(s);
        return st;
    }
    int nt = 0;
    st = header(&r, "tetrahedra", "nodes per tetrahedron", 4, &nt, &extra, err);
    for (int k = 0; k < nt && st == CF_OK; ++k) {
        double v[5];
        if (!next_line(&r)) {
            st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: the file ends after %d of %d tetrahedra", ele_path, r.line, k, nt);
            break;
        }
        int n = numbers(&r, v, 5);
        if (n < 0) st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: not a number", ele_path, r.line);
        else if (n != 5 + extra)
            st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: a tetrahedron needs %d values (index and 4 nodes%s), got %d", ele_path,
                              r.line, 5 + extra, extra ? ", attributes" : "", n);
        int nodes[4];
        for (int a = 0; a < 4 && st == CF_OK; ++a) {
            nodes[a] = (int)v[a + 1] - base;
            if (!integral(v[a + 1]) || nodes[a] < 0 || nodes[a] >= np)
                st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: node index %g out of range [%d, %d]", ele_path, r.line, v[a + 1], base,
                                  np - 1 + base);
        }
        if (st == CF_OK) {
            cfError e2 = {{0}};
            st = cf_soft_add_tet(s, nodes, &e2);
            if (st != CF_OK) cf_error_set(err, st, "%s:%d: %s", ele_path, r.line, e2.msg);
        }
    }
    if (st == CF_OK && next_line(&r))
        st = cf_error_set(err, CF_BAD_INPUT, "%s:%d: data after the %d tetrahedra of the header", ele_path, r.line, nt);
    fclose(r.f);
    if (st == CF_OK) {
        cfError e2 = {{0}};
        st = cf_soft_build_surface(s, &e2);
        if (st != CF_OK) cf_error_set(err, st, "%s: %s", ele_path, e2.msg);
    }
    if (st == CF_OK) {
        /* a point no tetrahedron uses would be a free particle without mass */
        bool *used = calloc((size_t)np, sizeof *used);
        if (!used) st = cf_error_set(err, CF_NO_MEMORY, "out of memory");
        for (int e = 0; used && e < s->n_tets; ++e)
            for (int a = 0; a < 4; ++a) used[s->tets[e].n[a]] = true;
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
