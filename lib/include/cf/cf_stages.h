/* SPDX-License-Identifier: MIT */
/**
 * @file cf_stages.h
 * @brief The stages of one world step as a table of callbacks (cfStepOps), which the world hands to
 * chapter 11's pipeline (cf_pipeline_step(), ch11.1, in cf_ch11.h). Here rather than in the chapter's
 * header so that the world's header (cf_world.h) includes no chapter header.
 */
#ifndef CF_STAGES_H
#define CF_STAGES_H

#include "cf/cf_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Number of stages of a step (::cfStepOps::stage). */
#define CF_STEP_STAGES 7

/**
 * The stages of one step and the state around them, handed down by the world (cf_world.h). Every
 * callback gets cfStepOps::ctx and returns CF_OK or why it failed (the world has written one line in
 * its error message).
 *
 * The stages, in the order a step runs them (stage[0] ... stage[6]):
 * | k | stage      | what it does (chapter) |
 * |---|------------|------------------------|
 * | 0 | detect     | contacts of this step, warm starts carried over (ch03) |
 * | 1 | contacts   | contact frames and friction laws (ch02.2, ch10) |
 * | 2 | velocities | free velocities u* = u + h M^-1 f; soft implicit systems (ch01) |
 * | 3 | assemble   | the problem in the form the solver consumes (ch02) |
 * | 4 | solve      | the solver's impulses, then the one apply (ch04-ch10) |
 * | 5 | positions  | positions from the new velocities (ch01) |
 * | 6 | stabilize  | split-impulse position correction (ch05) |
 * A stage that has nothing to do (no solver, no contacts) returns CF_OK at once.
 */
typedef struct cfStepOps {
    void *ctx;                                      /**< passed to every call */
    cfStatus (*stage[CF_STEP_STAGES])(void *ctx);   /**< the stages, in execution order */
    const char *name[CF_STEP_STAGES];               /**< their names ("detect", ...) for messages */
    double *seconds;                                /**< CF_STEP_STAGES wall times: each stage's time is added to its entry */
    /** Keep the state (bodies, soft nodes) so that restore() can bring it back. */
    cfStatus (*save)(void *ctx);
    /** Go back to the state of the last save() and drop it. */
    void (*restore)(void *ctx);
    /** CF_OK when every body's state is finite after the stages, else CF_DIVERGED (message written). */
    cfStatus (*finite)(void *ctx);
    /** Keep the new state: the step is done (time += h, steps += 1), the saved state dropped. */
    void (*commit)(void *ctx);
} cfStepOps;

/** A step function: what cf_world_step_with() runs on the world's stages. */
typedef cfStatus (*cfStepFn)(const cfStepOps *ops);

#ifdef __cplusplus
}
#endif

#endif /* CF_STAGES_H */
