/* SPDX-License-Identifier: MIT */
/* Finding a demo by id in the registry (cfv_demos[], which tools/demo-list generates from the chapters'
 * demos/ folders at build time). */
#include "demos.h"

#include <string.h>

const cfvDemo *cfv_demo_find(const char *id)
{
    if (!id) return NULL;
    for (int i = 0; cfv_demos[i]; ++i)
        if (strcmp(cfv_demos[i]->id, id) == 0) return cfv_demos[i];
    /* "tennis_racket" alone, when exactly one demo has that name */
    const cfvDemo *hit = NULL;
    for (int i = 0; cfv_demos[i]; ++i) {
        const char *slash = strchr(cfv_demos[i]->id, '/');
        if (slash && strcmp(slash + 1, id) == 0) {
            if (hit) return NULL;
            hit = cfv_demos[i];
        }
    }
    return hit;
}
