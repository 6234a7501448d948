/* SPDX-License-Identifier: MIT */
/* Demo ch01/energy_drift: one mass on a spring, three integrators, three energy curves. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: three identical mass-spring oscillators side by side (no gravity,
 * no damping), each integrated with another scheme, and the energy plot. Explicit Euler (left)
 * gains energy every step: the swing grows. Semi-implicit (symplectic) Euler (middle) keeps the
 * energy within a few percent for ever. Implicit Euler (right) loses energy every step: the
 * swing dies out although nothing in the model dissipates. Per step the factor is
 * 1 + (h w0)^2 for explicit and 1 / (1 + (h w0)^2) for implicit, with w0 = sqrt(k/m).
 */

static const cfSoftIntegrator SCHEME[3] = {CF_SOFT_EXPLICIT, CF_SOFT_SEMI_IMPLICIT, CF_SOFT_IMPLICIT};
static const char *const LABEL[3] = {"explicit Euler", "semi-implicit Euler", "implicit Euler"};

#define K 40.0      /* N/m */
#define MASS 1.0    /* kg */
#define REST 1.5    /* m */
#define STRETCH 0.25 /* m, initial */

static cfStatus setup(cfvRun *run, cfError *err)
{
    for (int k = 0; k < 3; ++k) {
        cfWorldDef def = cf_world_def_default();
        def.gravity = cfu_zero3();
        def.dt = 0.01;
        def.soft_integrator = SCHEME[k];
        int s = cfv_run_add_world(run, &def, LABEL[k], cfu_vec3(1.3 * (k - 1), 0, 0), err);
        if (s < 0) return CF_BAD_INPUT;
        cfSoftBody sb = {0};
        cfStatus st = cf_soft_make_chain(&sb, cfu_vec3(0, 0, 2.0), cfu_vec3(0, 0, 2.0 - REST), 2, K, MASS, true, err);
        if (st != CF_OK) return st;
        snprintf(sb.name, sizeof sb.name, "oscillator");
        sb.x[1].z -= STRETCH; /* pulled down, let go at rest */
        if (cf_world_add_soft(cfv_run_world(run, s), &sb) < 0) {
            cf_soft_free(&sb);
            return cf_error_set(err, CF_NO_MEMORY, "out of memory");
        }
    }
    for (int k = 0; k < 3; ++k) cfv_run_subject_soft(run, k, 0);
    cfv_run_set_camera(run, cfu_zero3(), -90, 8, 0);
    return CF_OK;
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    double e0[3], e1[3], dev[3];
    for (int k = 0; k < 3; ++k) {
        const cfvSeries *s = &run->slot[k].energy;
        if (s->n < 2) {
            snprintf(msg, cap, "%s: no energy samples", LABEL[k]);
            return 1;
        }
        e0[k] = s->y[0];
        e1[k] = s->y[s->n - 1];
        dev[k] = 0;
        for (int i = 0; i < s->n; ++i) dev[k] = fmax(dev[k], fabs(s->y[i] - e0[k]) / e0[k]);
    }
    bool grows = isfinite(e1[0]) && e1[0] > 1.5 * e0[0];
    bool bounded = dev[1] < 0.1;
    bool decays = e1[2] < 0.67 * e0[2];
    snprintf(msg, cap,
             "explicit %.3g -> %.3g J (%s), semi-implicit stays within %.1f%% (%s), implicit %.3g -> %.3g J (%s)",
             e0[0], e1[0], grows ? "grows" : "does NOT grow", 100 * dev[1], bounded ? "bounded" : "NOT bounded", e0[2],
             e1[2], decays ? "decays" : "does NOT decay");
    return grows && bounded && decays ? 0 : 1;
}

const cfvDemo cfv_demo_ch01_energy_drift = {
    .id = "ch01/energy_drift",
    .chapter = 1,
    .title = "Energy drift: explicit, semi-implicit and implicit Euler",
    .point_at = "the energy plot: orange (explicit) climbs, blue (semi-implicit) wiggles about a constant, "
                "green (implicit) sinks; then the springs: the left swing grows, the right one dies out",
    .keys = "dt,integrator,plots,restart",
    .plots = "energy",
    .prediction = "with the same spring and time step, explicit Euler gains energy, semi-implicit Euler keeps it "
                  "bounded (within 10%), implicit Euler loses it",
    .steps = 400,
    .data_size = 0,
    .setup = setup,
    .step = NULL,
    .check = check,
};
