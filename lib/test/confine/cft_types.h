/* SPDX-License-Identifier: MIT */
/* The typed outputs, callbacks and typed inputs of confined calls (lib/test/confine/types.c),
   named in the tables lib/test/confine/chNN.tbl. */
#ifndef CFT_TYPES_H
#define CFT_TYPES_H

#include <stdint.h>

#include "cft_confine.h"
#include "cf/cf_base.h"
#include "cf/cf_ch02.h"
#include "cf/cf_ch03.h"
#include "cf/cf_ch04.h"
#include "cf/cf_ch05.h"
#include "cf/cf_ch08.h"
#include "cf/cf_ch09.h"
#include "cf/cf_ch10.h"
#include "cf/cf_ch11.h"
#include "cf/cf_contact.h"
#include "cf/cf_dual.h"
#include "cf/cf_ch06.h"
#include "cf/cf_ch07.h"
#include "cf/cf_geometry.h"
#include "cf/cf_linalg.h"
#include "cf/cf_problem.h"
#include "cf/cf_soft.h"

void cft_put_string(cftCall *c, const char *const *s);
void cft_get_string(cftCall *c, const char **s);
void cft_put_report(cftCall *c, const cfReport *r);
void cft_get_report(cftCall *c, cfReport *r);
void cft_put_csr_new(cftCall *c, const cfCsr *A);
void cft_get_csr_new(cftCall *c, cfCsr *A);
void cft_put_bsr_new(cftCall *c, const cfBsr *A);
void cft_get_bsr_new(cftCall *c, cfBsr *A);
void cft_put_dense_new(cftCall *c, const cfDense *A);
void cft_get_dense_new(cftCall *c, cfDense *A);
void cft_put_fc_new(cftCall *c, const cfFrictionProblem *p);
void cft_get_fc_new(cftCall *c, cfFrictionProblem *p);
void cft_put_fc_values(cftCall *c, const cfFrictionProblem *p);
void cft_get_fc_values(cftCall *c, cfFrictionProblem *p);
void cft_put_lcp_new(cftCall *c, const cfLcp *p);
void cft_get_lcp_new(cftCall *c, cfLcp *p);
void cft_put_blcp_new(cftCall *c, const cfBlcp *p);
void cft_get_blcp_new(cftCall *c, cfBlcp *p);
void cft_put_soft_dual_new(cftCall *c, const cfSoftDual *d);
void cft_get_soft_dual_new(cftCall *c, cfSoftDual *d);
void cft_put_soft_state(cftCall *c, const cfSoftBody *s);
void cft_get_soft_state(cftCall *c, cfSoftBody *s);
void cft_put_implicit_state(cftCall *c, const cfImplicitSystem *s);
void cft_get_implicit_state(cftCall *c, cfImplicitSystem *s);
void cft_put_contacts(cftCall *c, const cfContact *out, long n);
void cft_get_contacts(cftCall *c, cfContact *out, long n);
void cft_put_contact_list(cftCall *c, const cfContactList *l);
void cft_get_contact_list(cftCall *c, cfContactList *l);
void cft_put_pairs(cftCall *c, const cfPairList *l, long n);
void cft_get_pairs(cftCall *c, cfPairList *l, long n);
void cft_put_triplets(cftCall *c, const cfTriplets *t);
void cft_get_triplets(cftCall *c, cfTriplets *t);
void cft_put_chol_update(cftCall *c, const cfCholUpdate *F);
void cft_get_chol_update(cftCall *c, cfCholUpdate *F);
void cft_put_rigid_pgs(cftCall *c, const cfRigidPgs *ws);
void cft_get_rigid_pgs(cftCall *c, cfRigidPgs *ws);
void cft_put_islands_new(cftCall *c, const cfIslands *is, long nb, long ns, long nc);
void cft_get_islands_new(cftCall *c, cfIslands *is, long nb, long ns, long nc);

/* hot functions' inputs (cached) and the objects they change (sent, rebuilt, sent back) */
void cft_send_in_lcp(cftCall *c, const cfLcp *p, cftCache *k);
void *cft_recv_in_lcp(cftCall *c, cftCache *k);
void cft_send_in_blcp(cftCall *c, const cfBlcp *p, cftCache *k);
void *cft_recv_in_blcp(cftCall *c, cftCache *k);
void cft_send_in_fc(cftCall *c, const cfFrictionProblem *p, cftCache *k);
void *cft_recv_in_fc(cftCall *c, cftCache *k);
void cft_send_in_csys(cftCall *c, const cfContactSystem *p, cftCache *k);
void *cft_recv_in_csys(cftCall *c, cftCache *k);
void cft_send_in_sdf_grid(cftCall *c, const cfSdfGrid *g, cftCache *k);
void *cft_recv_in_sdf_grid(cftCall *c, cftCache *k);
void cft_send_in_contact(cftCall *c, const cfContact *ct, cftCache *k);
void *cft_recv_in_contact(cftCall *c, cftCache *k);
void cft_send_in_ipc(cftCall *c, const cfIpcSystem *p, cftCache *k);
void *cft_recv_in_ipc(cftCall *c, cftCache *k);
void cft_send_in_soft(cftCall *c, const cfSoftBody *b, cftCache *k);
void *cft_recv_in_soft(cftCall *c, cftCache *k);
void cft_send_in_dual(cftCall *c, const cfDualSystem *p, cftCache *k);
void *cft_recv_in_dual(cftCall *c, cftCache *k);
void cft_send_in_contacts(cftCall *c, const cfContact *ct, long n, cftCache *k);
void *cft_recv_in_contacts(cftCall *c, long n, cftCache *k);
void cft_send_csr_new(cftCall *c, const cfCsr *A);
void *cft_recv_csr_new(cftCall *c);
void cft_send_fc_values(cftCall *c, const cfFrictionProblem *p);
void *cft_recv_fc_values(cftCall *c);
void cft_send_implicit_state(cftCall *c, const cfImplicitSystem *p);
void *cft_recv_implicit_state(cftCall *c);
void cft_send_report(cftCall *c, const cfReport *r);
void *cft_recv_report(cftCall *c);
void cft_send_triplets(cftCall *c, const cfTriplets *t);
void *cft_recv_triplets(cftCall *c);
void cft_send_contacts(cftCall *c, const cfContact *ct, long n);
void *cft_recv_contacts(cftCall *c, long n);
void cft_send_contacts_out(cftCall *c, const cfContact *ct, long n);
void *cft_recv_contacts_out(cftCall *c, long n);
void cft_put_contacts_out(cftCall *c, const cfContact *out, long n);
void cft_get_contacts_out(cftCall *c, cfContact *out, long n);
void cft_send_rigid_pgs(cftCall *c, const cfRigidPgs *ws);
void *cft_recv_rigid_pgs(cftCall *c);
void cft_send_soft_state(cftCall *c, const cfSoftBody *b);
void *cft_recv_soft_state(cftCall *c);
void cft_send_contact_list(cftCall *c, const cfContactList *l);
void *cft_recv_contact_list(cftCall *c);

const cfPivotOptions *cft_cb_child_pivot_trace(cftCall *c, const cfPivotOptions *o, long n);
void cft_cb_parent_pivot_trace(cftCall *c, const cfPivotOptions *o, long n);
cfConeGenerator cft_cb_child_cone_gen(cftCall *c, cfConeGenerator gen, long ctx);
void cft_cb_parent_cone_gen(cftCall *c, cfConeGenerator gen, long ctx);
cfMoreauDetect cft_cb_child_moreau_detect(cftCall *c, cfMoreauDetect detect, long ctx, long bodies, long nb);
void cft_cb_parent_moreau_detect(cftCall *c, cfMoreauDetect detect, long ctx, long bodies, long nb);
void cft_get_contact_list_entries(cftCall *c, cfContactList *l);
const cfCmrOps *cft_cb_child_cmr_ops(cftCall *c, const cfCmrOps *ops);
void cft_cb_parent_cmr_ops(cftCall *c, const cfCmrOps *ops);
const cfStepOps *cft_cb_child_step_ops(cftCall *c, const cfStepOps *ops);
void cft_cb_parent_step_ops(cftCall *c, const cfStepOps *ops);

#endif /* CFT_TYPES_H */
