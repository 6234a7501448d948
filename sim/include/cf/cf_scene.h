/* SPDX-License-Identifier: MIT */
/**
 * @file cf_scene.h
 * @brief Scenes: JSON files in scenes/ that describe a world, its settings and its story.
 *
 * A scene file is one JSON object:
 * @code{.json}
 * {
 *   "name": "tennis racket", "chapter": 1,
 *   "description": "what it shows", "expect": "what a correct simulator does",
 *   "world": { "gravity": [0, 0, -9.81], "dt": 0.01, "steps": 500,
 *              "rigid_integrator": "semi-implicit", "gyroscopic": true,
 *              "soft_integrator": "implicit" },
 *   "bodies": [
 *     { "name": "ground", "shape": { "type": "plane", "normal": [0,0,1], "offset": 0 }, "fixed": true },
 *     { "name": "box", "shape": { "type": "box", "half_extents": [0.5, 0.5, 0.5] }, "mass": 1,
 *       "position": [0,0,2], "orientation": [1,0,0,0], "velocity": [0,0,0],
 *       "angular_velocity": [0,0,0], "inertia": [1,2,3], "mu": 0.5, "restitution": 0 }
 *   ],
 *   "soft_bodies": [
 *     { "name": "beam", "type": "tet_box", "origin": [0,0,1], "size": [2,0.4,0.4],
 *       "cells": [10,2,2], "density": 1000, "young": 1e5, "poisson": 0.3,
 *       "fix_min_x": true, "damping": [0, 0.01] },
 *     { "name": "rope", "type": "chain", "from": [0,0,2], "to": [2,0,2], "nodes": 10,
 *       "stiffness": 100, "node_mass": 0.1, "fix_first": true }
 *   ]
 * }
 * @endcode
 * Unknown keys are errors (they are usually typos). Orientations are normalized quaternions
 * (w, x, y, z); a quaternion of zero length is an error.
 *
 * Keys (all optional unless marked required; defaults from cf_world_def_default() and the
 * constructors in cf_body.h and cf_soft.h):
 *
 * | where | keys |
 * |---|---|
 * | top level | name, chapter (>= 0), description, expect, world, bodies, soft_bodies (at least one body), friction, max_elements (>= 0: soft-body nodes + tetrahedra + springs the scene may build, default 1e6, so that a typo is refused instead of eating memory) |
 * | world | max_matrix_mb (> 0, default 1024: the largest assembled contact problem a step builds), step_budget (> 0, default 1e8: the most contact-solve work of a step, in contact couplings x sweeps (cfWorldDef::step_budget); past it the step fails with a message; `cflab run --summary` prints a run's largest), gravity, dt (> 0), steps (> 0), rigid_integrator, gyroscopic, soft_integrator, detector ("none", "primitives", "all-pairs"), contact_margin (m, >= 0, at most bounds), manifold_tolerance (m, >= 0, default 0: > 0 reuses a rigid pair's contacts while its relative pose moves less than this), solver_iterations (>= 0), solver_tolerance (>= 0; "converged" means the common residual of cf_solvers.h at or below it; 0 spends the whole budget), on_solver_failure ("continue" (default), "warn", "retry", "stop": what a step whose solve did not converge does, cf_world.h), bounds (m, > 0, default 1e6: a body leaving |x|_inf <= bounds fails the step; one placed outside is refused), solver ("none", a world solver of the registry (`cflab solvers` lists them), or "per-island": each island of the step's contacts solved by the solver of chapter 11.2's rule, rigid bodies only), sleep_steps (>= 0, default 0; with "per-island": an island at rest that many steps sleeps until touched), friction_model ("cone", "box"), friction_directions (3..64, LCP-form solvers), warm_start, ordering ("sequential", "symmetric", "random"), relaxation (in (0, 2)), r_factor (the PROX solvers' r-factors: "local", "global", "blocked"), stabilization ("split", "baumgarte"), erp (in [0, 1]), cfm (>= 0), contact_stiffness (N/m, >= 0) and contact_damping (N s/m, >= 0): when the stiffness is > 0, ERP and CFM come from this spring (ch02.7), slop (m, >= 0), split_iterations (>= 0, default 0: max(solver_iterations, 4): the split-impulse stage's sweeps), certify ("always" (default), "claims": only solves whose own measure claims convergence are certified on the common residual, cf_world.h), restitution_threshold (m/s, >= 0, default 0.5: contacts approaching faster bounce with their bodies' restitution), seed (>= 0), pipeline ("velocity" (default) or "ipc": the step's stage list, cf_world.h), ipc (an object: dhat (m, >= 0; 0: 1e-3 of the soft bodies' bounding box diagonal), kappa (N/m, >= 0; 0: the heaviest node rests at dhat/2), eps_v (m/s, > 0), friction_iterations (1..100), adaptive_kappa (bool, default false: IPC's adaptive barrier stiffness, cfIpcSettings), tolerance (m/s, > 0, default 1e-8: Newton's stop on |dq|_inf / h); only with pipeline "ipc") |
 * | bodies[i] | shape (required), fixed, mass (required unless fixed; > 0), inertia (principal moments, each > 0), position, orientation, velocity, angular_velocity, force, torque, mu (>= 0), restitution (in [0, 1]), name (default "body<i>"), texture (a height field for texture friction, chapter 10.6: size [nx, ny] (each 2..#CF_TEXTURE_GRID_MAX, required), cell (m, > 0, required), heights (nx ny numbers, row-major along u, required), origin, u, v (the body's frame; defaults 0, x, y; u, v unit and orthogonal)), pull (a spring drive, not on a fixed body: velocity (m/s, required), stiffness (N/m, > 0, required), damping (N s/m, >= 0), anchor (default: the body's position); cfPull), island_solver (a world solver, not on a fixed body, only when the scene's world.solver is "per-island": the body's island is solved by it instead of chapter 11.2's rule; cfWorldDef::island_solver) |
 * | shape | type (required): sphere {radius}, box {half_extents}, plane {normal, offset}, capsule {radius, half_height} |
 * | soft_bodies[i] | type (required): tet_box {origin, size, cells, density, young, poisson, fix_min_x}, cloth {origin, du, dv, cells [nu, nv], mass, stretch, shear, bend, thickness, pin_corners (the four corner nodes fixed: a hammock)}, chain {from, to, nodes, stiffness, node_mass, fix_first}, spring_box {origin, size, mass, stiffness: 8 nodes, 12 triangles, 28 springs, chapter 9's soft box} or particle {position, mass} (tet_ball and tetgen: cf_soft.h's constructors); all: damping [alpha, beta] (>= 0), mu (>= 0), velocity (initial, free nodes), name (default "soft<i>") |
 * | friction[i] | a material pair: bodies (two body names, rigid or soft, required), mu (>= 0; the pair's coefficient instead of sqrt(mu_a mu_b)); law "orthotropic" with mu [mu_1, mu_2] and direction, or "tensor" with tensor [4 numbers, row-major] and direction, or "matchstick" with mu, anisotropic [mu_t, mu_b] and structure [two fields, one per body], or "texture" (texture friction by plowing, ch10.6: at least one of the two bodies has a texture; patch (m, > 0, default 0.005: half the side of the sampled patch), samples (per side, 1..64, default 8), mu (>= 0, default 0: added to every direction's coefficient); solved by the directional rows, pgs-texture) (chapter 10). A direction field is [x, y, z] (a direction: world for direction, the body's frame for structure) or {"field": "world" or "body", "direction": [x, y, z]} or {"field": "circles", "center": [x, y, z], "axis": [x, y, z]} (tangent to the circles about the axis) |
 *
 * The ranges of the world keys are checked by cf_world_def_check(), the same validator the world
 * uses; the bodies a pipeline cannot step by its row's check (cfPipeline::check), e.g.
 * `bodies[1] 'ball': a moving rigid body under ipc is a box ...`. A fixed body takes no mass, inertia, velocity, angular_velocity, force or torque; a plane
 * must be fixed and takes no position or orientation. Numbers must be finite (1e999 is refused)
 * and integers integral. Strings longer than their field in ::cfSceneInfo or the body's name are
 * refused, not cut.
 */
#ifndef CF_SCENE_H
#define CF_SCENE_H

#include "cf/cf_base.h"
#include "cf/cf_world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Scene metadata besides the world itself. */
typedef struct cfSceneInfo {
    char name[64];          /**< "name" */
    char description[512];  /**< "description" */
    char expect[512];       /**< "expect": the behaviour a correct simulator shows */
    int chapter;            /**< "chapter" (0 when absent) */
    int steps;              /**< world.steps: suggested number of steps (default 600) */
} cfSceneInfo;

/**
 * Load the scene file @p path into @p w (not initialized by the caller) and @p info (may be
 * NULL). On any error nothing is kept: @p w is left zeroed, the status is CF_IO_ERROR or
 * CF_BAD_INPUT and @p err holds one line, "path:line:col: message" for JSON syntax errors and
 * "path: field.path: message" for invalid values, e.g.
 * `scenes/x.json: bodies[1].shape.radius: must be > 0 (got -1)`.
 */
cfStatus cf_scene_load(const char *path, cfWorld *w, cfSceneInfo *info, cfError *err);
/**
 * As cf_scene_load() with the scene's world.solver replaced by @p solver ("none" or a world solver
 * of the registry; NULL keeps the scene's), before the world is checked: a scene written for a row
 * this build lacks (the reference solutions' soft-step, in a handout) loads on another. An unknown
 * @p solver is an error naming it.
 */
cfStatus cf_scene_load_solved(const char *path, const char *solver, cfWorld *w, cfSceneInfo *info, cfError *err);
/**
 * The checks the loader ends with, on a world it built and a caller then changed (cflab's command-
 * line options): the world settings (cf_world_def_check()), every body inside world.bounds and none
 * fast enough to leave them within a step, and the pipeline's check of the bodies. CF_BAD_INPUT with
 * "label: world.field: reason" or "label: bodies[i].field: reason" in @p err.
 */
cfStatus cf_scene_check(const cfWorld *w, const char *label, cfError *err);
/** As cf_scene_load() from a string; @p label names the source in messages. */
cfStatus cf_scene_parse(const char *json, const char *label, cfWorld *w, cfSceneInfo *info, cfError *err);

#ifdef __cplusplus
}
#endif
#endif /* CF_SCENE_H */
