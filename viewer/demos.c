/* SPDX-License-Identifier: MIT */
/* The demo registry: every chapter demo, listed explicitly in chapter order. */
#include "demos.h"

#include <string.h>

/* chapters/ch01/demos/ */
extern const cfvDemo cfv_demo_ch01_tennis_racket;
extern const cfvDemo cfv_demo_ch01_energy_drift;
extern const cfvDemo cfv_demo_ch01_soft_large_step;
/* chapters/ch02/demos/ */
extern const cfvDemo cfv_demo_ch02_frames_jacobian;
extern const cfvDemo cfv_demo_ch02_incline_friction;
/* chapters/ch03/demos/ */
extern const cfvDemo cfv_demo_ch03_box_manifold;
extern const cfvDemo cfv_demo_ch03_ccd_tunnelling;
extern const cfvDemo cfv_demo_ch03_sdf_triangle;
/* chapters/ch04/demos/ */
extern const cfvDemo cfv_demo_ch04_baraff_incline;
extern const cfvDemo cfv_demo_ch04_dantzig_sets;
/* chapters/ch05/demos/ */
extern const cfvDemo cfv_demo_ch05_pyramid;
extern const cfvDemo cfv_demo_ch05_pgs_nncg;
extern const cfvDemo cfv_demo_ch05_mass_ratio;
extern const cfvDemo cfv_demo_ch05_exact_vs_pgs;
extern const cfvDemo cfv_demo_ch05_soft_block;
extern const cfvDemo cfv_demo_ch05_box_on_slab;
extern const cfvDemo cfv_demo_ch05_wall_50;
extern const cfvDemo cfv_demo_ch05_wall_100;
/* chapters/ch06/demos/ */
extern const cfvDemo cfv_demo_ch06_newton_vs_pgs;
extern const cfvDemo cfv_demo_ch06_incline_mu;
/* chapters/ch07/demos/ */
extern const cfvDemo cfv_demo_ch07_wall;
extern const cfvDemo cfv_demo_ch07_spinning_top;
extern const cfvDemo cfv_demo_ch07_funnel;
/* chapters/ch08/demos/ */
extern const cfvDemo cfv_demo_ch08_jelly_preconditioners;
extern const cfvDemo cfv_demo_ch08_cloth_on_box;
extern const cfvDemo cfv_demo_ch08_mixed;
/* chapters/ch09/demos/ */
extern const cfvDemo cfv_demo_ch09_tunnel;
extern const cfvDemo cfv_demo_ch09_soft_stack;
extern const cfvDemo cfv_demo_ch09_incline_creep;
extern const cfvDemo cfv_demo_ch09_world_soft_stack;
extern const cfvDemo cfv_demo_ch09_world_tunnel;
extern const cfvDemo cfv_demo_ch09_world_incline;
extern const cfvDemo cfv_demo_ch09_world_block_slide;
extern const cfvDemo cfv_demo_ch09_world_rigid_mixed;
/* chapters/ch10/demos/ */
extern const cfvDemo cfv_demo_ch10_grooved_box;
extern const cfvDemo cfv_demo_ch10_log_slide;
extern const cfvDemo cfv_demo_ch10_matchsticks;
extern const cfvDemo cfv_demo_ch11_cradle;
extern const cfvDemo cfv_demo_ch11_card_house;
extern const cfvDemo cfv_demo_ch11_dominoes_cushion;
extern const cfvDemo cfv_demo_ch11_hammock;

const cfvDemo *const cfv_demos[] = {
    &cfv_demo_ch01_tennis_racket,
    &cfv_demo_ch01_energy_drift,
    &cfv_demo_ch01_soft_large_step,
    &cfv_demo_ch02_frames_jacobian,
    &cfv_demo_ch02_incline_friction,
    &cfv_demo_ch03_box_manifold,
    &cfv_demo_ch03_ccd_tunnelling,
    &cfv_demo_ch03_sdf_triangle,
    &cfv_demo_ch04_baraff_incline,
    &cfv_demo_ch04_dantzig_sets,
    &cfv_demo_ch05_pyramid,
    &cfv_demo_ch05_pgs_nncg,
    &cfv_demo_ch05_mass_ratio,
    &cfv_demo_ch05_exact_vs_pgs,
    &cfv_demo_ch05_soft_block,
    &cfv_demo_ch05_box_on_slab,
    &cfv_demo_ch05_wall_50,
    &cfv_demo_ch05_wall_100,
    &cfv_demo_ch06_newton_vs_pgs,
    &cfv_demo_ch06_incline_mu,
    &cfv_demo_ch07_wall,
    &cfv_demo_ch07_spinning_top,
    &cfv_demo_ch07_funnel,
    &cfv_demo_ch08_jelly_preconditioners,
    &cfv_demo_ch08_cloth_on_box,
    &cfv_demo_ch08_mixed,
    &cfv_demo_ch09_tunnel,
    &cfv_demo_ch09_soft_stack,
    &cfv_demo_ch09_incline_creep,
    &cfv_demo_ch09_world_soft_stack,
    &cfv_demo_ch09_world_tunnel,
    &cfv_demo_ch09_world_incline,
    &cfv_demo_ch09_world_block_slide,
    &cfv_demo_ch09_world_rigid_mixed,
    &cfv_demo_ch10_grooved_box,
    &cfv_demo_ch10_log_slide,
    &cfv_demo_ch10_matchsticks,
    &cfv_demo_ch11_cradle,
    &cfv_demo_ch11_card_house,
    &cfv_demo_ch11_dominoes_cushion,
    &cfv_demo_ch11_hammock,
    NULL,
};

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
