/* SPDX-License-Identifier: MIT */
/* Library tests: contact lists and the store of their extras (cf_contact.h). A contact's soft
   sides and friction law live outside cfContact, in its list's store: these tests check the
   lifetime rules the header states (a pushed copy owns its extra, extras never move while the
   list grows, a clear forgets them) by writing through the pointers; under AddressSanitizer
   (make check) a dangling one stops the test at the line that used it. */
#include "cft.h"
#include "cf/cf_contact.h"

#include <string.h>

/* a contact whose side B is node 7 of soft body 2 and whose law is orthotropic (mu_t, 0.3),
   kept in the caller's @p x */
static cfContact cold_contact(double mu_t, cfContactExtra *x)
{
    cfContact c;
    memset(&c, 0, sizeof c);
    memset(x, 0, sizeof *x);
    c.body_a = 0;
    c.body_b = -1;
    c.n = cfu_vec3(0, 0, 1);
    c.mu = 0.5;
    x->soft_b.n = 1;
    x->soft_b.body = 2;
    x->soft_b.node[0] = 7;
    x->soft_b.w[0] = 1.0;
    x->friction.law = CF_LAW_ORTHOTROPIC;
    x->friction.dir = cfu_vec3(1, 0, 0);
    x->friction.coef[0] = mu_t;
    x->friction.coef[1] = 0.3;
    c.extra = x;
    return c;
}

START_TEST(contact_accessors_of_a_contact_without_extra)
{
    cfContact c = cft_rigid_contact(-1, 3);
    ck_assert(cf_contact_soft(&c, 0) == NULL && cf_contact_soft(&c, 1) == NULL);
    ck_assert(!cf_contact_has_soft(&c));
    ck_assert_int_eq(cf_contact_side_kind(&c, 0), CF_SIDE_STATIC);
    ck_assert_int_eq(cf_contact_side_kind(&c, 1), CF_SIDE_RIGID);
    ck_assert(cf_contact_isotropic(&c));
    const cfFriction *f = cf_contact_friction(&c);
    ck_assert(f != NULL);
    ck_assert_int_eq(f->law, CF_LAW_ISOTROPIC);
    ck_assert(f->coef[0] == 0.0 && f->dir.x == 0.0);
    /* a zeroed extra says the same as none */
    cfContactExtra zero;
    memset(&zero, 0, sizeof zero);
    c.extra = &zero;
    ck_assert(cf_contact_soft(&c, 0) == NULL && cf_contact_soft(&c, 1) == NULL);
    ck_assert(cf_contact_isotropic(&c));
    ck_assert(cf_contact_friction(&c) == &zero.friction);
    /* and a filled one is read through */
    cfContactExtra x;
    c = cold_contact(0.1, &x);
    ck_assert(cf_contact_soft(&c, 0) == NULL && cf_contact_soft(&c, 1) == &x.soft_b);
    ck_assert_int_eq(cf_contact_side_kind(&c, 0), CF_SIDE_RIGID);
    ck_assert_int_eq(cf_contact_side_kind(&c, 1), CF_SIDE_SOFT);
    ck_assert(!cf_contact_isotropic(&c));
}
END_TEST

START_TEST(contact_push_copies_the_extra)
{
    cfContactList list = {0};
    cfContactExtra local;
    cfContact c = cold_contact(0.1, &local);
    cft_assert_ok(cf_contacts_push(&list, &c));
    cfContact *in = &list.items[0];
    ck_assert(in->extra != NULL && in->extra != &local);
    ck_assert(memcmp(in->extra, &local, sizeof local) == 0);
    /* the list's copy does not follow the original */
    local.friction.coef[0] = 9.0;
    local.soft_b.node[0] = 1;
    cft_assert_near(cf_contact_friction(in)->coef[0], 0.1, 0, 0);
    ck_assert_int_eq(cf_contact_soft(in, 1)->node[0], 7);
    /* a contact without extra takes nothing from the store */
    cfContact r = cft_rigid_contact(0, 1);
    cft_assert_ok(cf_contacts_push(&list, &r));
    ck_assert(list.items[1].extra == NULL);
    ck_assert_int_eq(list.n_extras, 1);
    cf_contacts_free(&list);
    ck_assert(list.items == NULL && list.blocks == NULL && list.count == 0 && list.n_extras == 0);
}
END_TEST

START_TEST(contact_extras_survive_growth)
{
    /* more extras than a block holds, made two ways (push of a cold contact, cf_contacts_extra on
       a rigid one), each remembered with its pointer; then the items array grows far past them */
    enum { N = 3 * CF_CONTACT_EXTRA_BLOCK + 5 };
    cfContactList list = {0};
    cfContactExtra *seen[N];
    for (int k = 0; k < N; ++k) {
        cfContactExtra local;
        cfContact c = k % 2 ? cold_contact(0.01 * k, &local) : cft_rigid_contact(k, -1);
        cft_assert_ok_at(cf_contacts_push(&list, &c), "k = %d", k);
        if (k % 2 == 0) {
            cfContactExtra *x = cf_contacts_extra(&list, &list.items[k]);
            cft_assert_at(x != NULL && x == list.items[k].extra, "k = %d", k);
            cft_assert_at(x->friction.law == CF_LAW_ISOTROPIC && x->soft_a.n == 0 && x->soft_b.n == 0, "k = %d", k);
            cft_assert_at(cf_contacts_extra(&list, &list.items[k]) == x, "k = %d", k); /* one extra per contact */
            x->friction.law = CF_LAW_TENSOR;
            x->friction.coef[3] = k;
        }
        seen[k] = list.items[k].extra;
    }
    ck_assert_int_eq(list.n_extras, N);
    cft_assert_ok(cf_contacts_reserve(&list, 64 * N)); /* realloc: the items usually move */
    ck_assert_int_ge(list.cap, list.count + 64 * N);
    for (int k = 0; k < N; ++k) {
        const cfContact *c = &list.items[k];
        cft_assert_at(c->extra == seen[k], "contact %d", k);
        if (k % 2) {
            cft_assert_near_at(cf_contact_friction(c)->coef[0], 0.01 * k, 0, 0, "contact %d", k);
            cft_assert_int_at(cf_contact_soft(c, 1)->node[0], ==, 7, "contact %d", k);
        } else {
            cft_assert_int_at(cf_contact_friction(c)->law, ==, CF_LAW_TENSOR, "contact %d", k);
            cft_assert_near_at(cf_contact_friction(c)->coef[3], k, 0, 0, "contact %d", k);
        }
        for (int j = 0; j < k; ++j) cft_assert_at(seen[j] != seen[k], "contacts %d and %d share an extra", j, k);
    }
    cf_contacts_free(&list);
}
END_TEST

START_TEST(contact_clear_then_reuse)
{
    cfContactList list = {0};
    cfContactExtra local;
    for (int k = 0; k < CF_CONTACT_EXTRA_BLOCK + 1; ++k) {
        cfContact c = cold_contact(0.2, &local);
        cft_assert_ok_at(cf_contacts_push(&list, &c), "k = %d", k);
    }
    int blocks = list.n_blocks;
    cf_contacts_clear(&list);
    ck_assert_int_eq(list.count, 0);
    ck_assert_int_eq(list.n_extras, 0);
    /* the memory is kept, and an extra made after the clear starts zeroed (not the old law) */
    cfContact r = cft_rigid_contact(1, 2);
    cft_assert_ok(cf_contacts_push(&list, &r));
    ck_assert(list.items[0].extra == NULL);
    cfContactExtra *x = cf_contacts_extra(&list, &list.items[0]);
    ck_assert(x != NULL);
    ck_assert(cf_contact_isotropic(&list.items[0]) && !cf_contact_has_soft(&list.items[0]));
    ck_assert(x->friction.coef[0] == 0.0 && x->friction.coef[1] == 0.0);
    ck_assert_int_eq(list.n_blocks, blocks);
    cf_contacts_free(&list);
}
END_TEST

START_TEST(contact_copy_outlives_its_source_list)
{
    /* the world's pattern: this step's list hands contacts to another list, then is cleared and
       refilled with other laws; the copies keep theirs */
    cfContactList src = {0}, dst = {0};
    cfContactExtra local;
    for (int k = 0; k < 5; ++k) {
        cfContact c = cold_contact(0.1 * (k + 1), &local);
        cft_assert_ok_at(cf_contacts_push(&src, &c), "k = %d", k);
    }
    for (int k = 0; k < 5; ++k) cft_assert_ok_at(cf_contacts_push(&dst, &src.items[k]), "k = %d", k);
    cf_contacts_clear(&src);
    for (int k = 0; k < 5; ++k) {
        cfContact r = cft_rigid_contact(k, -1);
        cft_assert_ok_at(cf_contacts_push(&src, &r), "k = %d", k);
        cfContactExtra *x = cf_contacts_extra(&src, &src.items[k]); /* reuses the slots the copies came from */
        cft_assert_at(x != NULL, "k = %d", k);
        x->friction.law = CF_LAW_TENSOR;
        x->friction.coef[0] = -1.0;
    }
    cf_contacts_free(&src);
    for (int k = 0; k < 5; ++k) {
        const cfContact *c = &dst.items[k];
        cft_assert_int_at(cf_contact_friction(c)->law, ==, CF_LAW_ORTHOTROPIC, "contact %d", k);
        cft_assert_near_at(cf_contact_friction(c)->coef[0], 0.1 * (k + 1), 0, 0, "contact %d", k);
        cft_assert_int_at(cf_contact_soft(c, 1)->body, ==, 2, "contact %d", k);
    }
    /* swapping two lists (the world's two lists take turns) moves the store with them */
    cfContactList moved = dst;
    memset(&dst, 0, sizeof dst);
    cft_assert_near(cf_contact_friction(&moved.items[4])->coef[0], 0.5, 0, 0);
    cf_contacts_free(&moved);
}
END_TEST

static void build(Suite *s)
{
    TCase *tc = cft_tcase_unit(s, "contact");
    CFT_TEST(tc, contact_accessors_of_a_contact_without_extra, "no extra: no soft side, isotropic with mu");
    CFT_TEST(tc, contact_push_copies_the_extra, "push copies a contact's extra into the list");
    CFT_TEST(tc, contact_extras_survive_growth, "extras stay put while the list grows");
    CFT_TEST(tc, contact_clear_then_reuse, "a clear forgets the extras, new ones start zeroed");
    CFT_TEST(tc, contact_copy_outlives_its_source_list, "a copy keeps its law after its source is cleared");
}

int main(int argc, char **argv) { return cft_main(argc, argv, "lib-contact", build); }
