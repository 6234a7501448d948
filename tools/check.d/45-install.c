/* SPDX-License-Identifier: MIT */
/* A program outside the tree, built against an installed cflab with `pkg-config --cflags --libs
   cflab` alone (tools/check.d/45-install.sh): steps a scene, then solves a Siconos LCP file. */
#include <stdio.h>
#include <stdlib.h>

#include <cf/cf_scene.h>
#include <cf/cf_solvers.h>

int main(int argc, char **argv)
{
    cfWorld w;
    cfSceneInfo info;
    cfError err;
    if (argc < 2) return fprintf(stderr, "usage: %s SCENE.json [LCP.dat]\n", argv[0]), 2;
    if (cf_scene_load(argv[1], &w, &info, &err) != CF_OK) return fprintf(stderr, "%s\n", err.msg), 2;
    for (int i = 0; i < info.steps; ++i)
        if (cf_world_step(&w) != CF_OK) return fprintf(stderr, "step %d failed\n", i + 1), 1;
    for (int b = 0; b < w.n_bodies; ++b) printf("%s: z = %.6f m after %d steps\n", w.bodies[b].name, w.bodies[b].x.z, info.steps);
    cf_world_free(&w);
    if (argc < 3) return 0;

    cfLcp p;
    if (cf_lcp_read_siconos(argv[2], &p, &err) != CF_OK) return fprintf(stderr, "%s\n", err.msg), 2;
    double *x = calloc((size_t)p.n, sizeof *x);
    cfSolverParams par = cf_solver_params_default();
    cfFormWork fw = {0};
    cfReport rep;
    cf_report_init(&rep, NULL, 0);
    cfStatus st = x ? cf_solve_lcp(&fw, cf_solver_find("lemke"), &p, &par, x, &rep) : CF_NO_MEMORY;
    printf("lcp n = %d, lemke: %s, residual %.3e\n", p.n, cf_status_name(st), x ? cf_lcp_residual_siconos(&p, x) : -1.0);
    cf_form_work_free(&fw);
    cf_lcp_free(&p);
    free(x);
    return st == CF_OK ? 0 : 1;
}
