/* SPDX-License-Identifier: MIT */
/* The problem files of a data folder, the one lister the benchmarks share: the Siconos sets
 * (`*.dat`) in name order, so that every run reads them in the same order. Header-only: each
 * benchmark is one program (it defines _POSIX_C_SOURCE 200809L, for strdup). */
#ifndef CF_BENCH_FILES_H
#define CF_BENCH_FILES_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int bench_by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/** The names of the files `*.dat` in folder @p dir, at most @p cap, sorted, each malloc'ed into
 * @p names (the caller frees them): "dir/name" when @p with_dir, else the file's name. Returns
 * their number, 0 when @p dir cannot be read. */
static inline int bench_list_dat(const char *dir, bool with_dir, char **names, int cap)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < cap) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".dat") != 0) continue;
        if (!with_dir) {
            names[n++] = strdup(e->d_name);
            continue;
        }
        names[n] = malloc(strlen(dir) + len + 2);
        sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, bench_by_name);
    return n;
}

#endif /* CF_BENCH_FILES_H */
