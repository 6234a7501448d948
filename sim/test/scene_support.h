/* SPDX-License-Identifier: MIT */
/* Scene helpers shared by the simulation layer's tests (sim/test/test_*.c); each test file includes it once. */
#ifndef CF_SIM_TEST_SCENE_SUPPORT_H
#define CF_SIM_TEST_SCENE_SUPPORT_H

#include <string.h>

#include "cf/cf_scene.h"
#include "cft.h"

/* build @p w from the scene text @p json (named "t.json" in messages); fails the test on a refusal */
static inline void sim_parse(const char *json, cfWorld *w)
{
    cfError err = {{0}};
    cfStatus st = cf_scene_parse(json, "t.json", w, NULL, &err);
    ck_assert_msg(st == CF_OK, "%s", err.msg);
}

/* the scene text @p json is refused (CF_BAD_INPUT) with a message that contains @p want */
static inline void sim_refused(const char *json, const char *want)
{
    cfWorld w;
    cfError err = {{0}};
    cft_assert_status(cf_scene_parse(json, "t.json", &w, NULL, &err), CF_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, want), "wanted '%s' in: %s", want, err.msg);
}

#endif
