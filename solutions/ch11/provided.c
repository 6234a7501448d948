/* SPDX-License-Identifier: MIT */
/* Chapter 11, provided (not exercises; copied unchanged into exercises/ch11/ and not handed in):
   freeing the islands and the summary the solver rule reads. */
#include "cf/cf_ch11.h"

#include <stdlib.h>
#include <string.h>

void cf_islands_free(cfIslands *is)
{
    if (!is) return;
    free(is->of_body);
    free(is->of_soft);
    free(is->of_contact);
    memset(is, 0, sizeof *is);
}

cfIslandSummary cf_island_summary(const cfIslands *is, int k, const cfContact *contacts)
{
    cfIslandSummary s = {0};
    if (!is) return s;
    for (int i = 0; i < is->nb; ++i) s.rigid += is->of_body[i] == k;
    for (int i = 0; i < is->ns; ++i) s.soft += is->of_soft[i] == k;
    for (int a = 0; a < is->nc; ++a)
        if (is->of_contact[a] == k) {
            s.contacts++;
            s.anisotropic = s.anisotropic || !cf_contact_isotropic(&contacts[a]);
            s.directional = s.directional || cf_contact_friction(&contacts[a])->law == CF_LAW_DIRECTIONAL;
        }
    return s;
}
