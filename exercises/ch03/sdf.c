/* SPDX-License-Identifier: MIT */
/* Chapter 3, exercise ch03.6: grid signed distance fields, SDF-point and SDF-mesh contacts with
   per-face refinement. Specification: lib/include/cf/cf_ch03.h. */
#include "cf/cf_ch03.h"

#include <stdlib.h>
#include <string.h>

double cf_sdf_grid_eval(const cfSdfGrid *g, cfVec3 x, cfVec3 *grad)
{
    //> ch03:grid-eval
    // TODO(ch03.6): implement this; the specification is in cf_ch03.h
    CF_TODO("ch03.6");
    if (grad) *grad = cfu_vec3(0, 0, 1);
    return 0.0;
    //< ch03:grid-eval
}

int cf_collide_sdf_point(const cfSdf *sdf, cfPose A, cfVec3 x, double margin, cfContact *out)
{
    //> ch03:sdf-point
    // TODO(ch03.6): implement this; the specification is in cf_ch03.h
    return CF_TODO_I("ch03.6");
    //< ch03:sdf-point
}

void cf_project_simplex3(double w[3])
{
    //> ch03:simplex
    // TODO(ch03.6): implement this; the specification is in cf_ch03.h
    CF_TODO("ch03.6");
    //< ch03:simplex
}

double cf_sdf_triangle_min(const cfSdf *sdf, cfVec3 x1, cfVec3 x2, cfVec3 x3, double alpha, int iters, double w[3])
{
    //> ch03:triangle-min
    // TODO(ch03.6): implement this; the specification is in cf_ch03.h
    CF_TODO("ch03.6");
    w[0] = w[1] = w[2] = 1.0 / 3.0;
    return 0.0;
    //< ch03:triangle-min
}

cfSdfMeshOptions cf_sdf_mesh_options_default(void)
{
    cfSdfMeshOptions o = {0.0, true, 0.0, 100};
    return o;
}

int cf_collide_sdf_mesh(const cfSdf *sdf, cfPose A, const cfTriMesh *mesh, cfPose B, const cfSdfMeshOptions *opt,
                        cfContact *out, int max_out)
{
    //> ch03:sdf-mesh
    // TODO(ch03.6): implement this; the specification is in cf_ch03.h
    return CF_TODO_I("ch03.6");
    //< ch03:sdf-mesh
}
