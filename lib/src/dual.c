/* SPDX-License-Identifier: MIT */
/* The dual form with its dynamics (cf_dual.h): checks, contact velocities, residual. */
#include "cf/cf_dual.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cf_dual_free(cfDualSystem *s)
{
    cf_csr_free(&s->A);
    cf_csr_free(&s->J);
    free(s->b);
    free(s->vfree);
    free(s->bias);
    free(s->mu);
    memset(s, 0, sizeof *s);
}

cfStatus cf_dual_check(const cfDualSystem *s, cfError *err)
{
    if (s->n < 0 || s->n % 3 != 0) return cf_error_set(err, CF_BAD_INPUT, "dual system: n = %d is not a multiple of 3", s->n);
    if (s->nc < 0) return cf_error_set(err, CF_BAD_INPUT, "dual system: nc = %d", s->nc);
    if (s->A.rows != s->n || s->A.cols != s->n || !cf_vec_finite(s->A.nnz, s->A.val))
        return cf_error_set(err, CF_BAD_INPUT, "dual system: A must be a finite %d x %d matrix", s->n, s->n);
    if (s->J.rows != 3 * s->nc || s->J.cols != s->n || !cf_vec_finite(s->J.nnz, s->J.val))
        return cf_error_set(err, CF_BAD_INPUT, "dual system: J must be a finite %d x %d matrix", 3 * s->nc, s->n);
    if (!s->b || !cf_vec_finite(s->n, s->b)) return cf_error_set(err, CF_BAD_INPUT, "dual system: b must be finite");
    if (s->vfree && !cf_vec_finite(s->n, s->vfree)) return cf_error_set(err, CF_BAD_INPUT, "dual system: vfree must be finite");
    if (s->nc > 0 && (!s->bias || !s->mu || !cf_vec_finite(s->nc, s->bias)))
        return cf_error_set(err, CF_BAD_INPUT, "dual system: bias must be finite");
    for (int a = 0; a < s->nc; ++a)
        if (!(s->mu[a] >= 0.0 && isfinite(s->mu[a])))
            return cf_error_set(err, CF_BAD_INPUT, "dual system: mu[%d] = %g must be finite and >= 0", a, s->mu[a]);
    if (!(s->cfm >= 0.0 && isfinite(s->cfm))) return cf_error_set(err, CF_BAD_INPUT, "dual system: cfm = %g", s->cfm);
    if (!(s->h > 0.0 && isfinite(s->h))) return cf_error_set(err, CF_BAD_INPUT, "dual system: h = %g", s->h);
    if (!(s->delta >= 0.0 && isfinite(s->delta))) return cf_error_set(err, CF_BAD_INPUT, "dual system: delta = %g", s->delta);
    return CF_OK;
}

void cf_dual_contact_velocity(const cfDualSystem *s, const double *u, const double *lambda, double *v)
{
    cf_csr_mul_vec(&s->J, u, v);
    for (int a = 0; a < s->nc; ++a) v[3 * a] += s->bias[a] + (lambda ? s->cfm * lambda[3 * a] : 0.0);
}

double cf_dual_residual(const cfDualSystem *s, const double *lambda, const double *u, cfFrictionModel model)
{
    double *v = malloc((size_t)(s->nc > 0 ? 3 * s->nc : 1) * sizeof *v);
    if (!v) return INFINITY;
    cf_dual_contact_velocity(s, u, lambda, v);
    double res = cf_contacts_residual(s->nc, lambda, v, s->mu, NULL, model);
    free(v);
    return res;
}
