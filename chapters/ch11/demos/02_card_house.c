/* SPDX-License-Identifier: MIT */
/* Demo ch11/card_house: two A-frames of cards and a flat card on top, held by friction alone. */
#include "demos.h"

#include <math.h>
#include <stdio.h>

/*
 * What the viewer must show: scenes/ch05_card_house.json. Six leaning cards and a flat one; only
 * friction at the cards' feet (mu 0.8 against tan 15 degrees = 0.27 needed) and between the cards
 * keeps the house up. With the cone model and 40 PGS sweeps it stands.
 */

typedef struct Data {
    int n_cards;
    cfVec3 x0[16];
    double moved; /* the largest displacement of a card (m) */
    double speed; /* the largest speed at the last step (m/s) */
    long n;
} Data;

static cfStatus setup(cfvRun *run, cfError *err)
{
    Data *d = run->data;
    int s = cfv_run_add_scene(run, "ch05_card_house.json", "card house, pgs", cfu_zero3(), err);
    if (s < 0) return CF_BAD_INPUT;
    const cfWorld *w = cfv_run_world(run, s);
    d->n_cards = 0;
    for (int i = 0; i < w->n_bodies && d->n_cards < 16; ++i)
        if (!w->bodies[i].fixed) d->x0[d->n_cards++] = w->bodies[i].x;
    cfv_run_subject(run, s, CFV_ALL);
    cfv_run_set_camera(run, cfu_zero3(), -60, 15, 0);
    return CF_OK;
}

static void record(cfvRun *run)
{
    Data *d = run->data;
    const cfWorld *w = cfv_run_world(run, 0);
    d->speed = 0.0;
    for (int i = 0, k = 0; i < w->n_bodies; ++i) {
        if (w->bodies[i].fixed) continue;
        d->moved = fmax(d->moved, cfu_norm(cfu_sub(w->bodies[i].x, d->x0[k++])));
        d->speed = fmax(d->speed, cfu_norm(w->bodies[i].v));
    }
    d->n++;
    cfv_run_info(run, 0, "%d cards, %d contacts; largest move %.2f mm, fastest card %.2f mm/s", d->n_cards,
                 w->contacts.count, 1e3 * d->moved, 1e3 * d->speed);
}

static int check(const cfvRun *run, char *msg, size_t cap)
{
    const Data *d = run->data;
    snprintf(msg, cap, "after %ld steps the cards moved at most %.4f m (want < 0.02), the fastest at %.4f m/s (want < 0.02)",
             d->n, d->moved, d->speed);
    return d->n > 0 && d->moved < 0.02 && d->speed < 0.02 ? 0 : 1;
}

const cfvDemo cfv_demo_ch11_card_house = {
    .id = "ch11/card_house",
    .chapter = 11,
    .title = "A card house stands on friction alone (cone model, PGS)",
    .point_at = "the cards' feet: only friction keeps them from sliding apart (c shows the contacts)",
    .keys = "pause,points,impulses",
    .prediction = "after 5 s no card has moved 2 cm and none moves faster than 2 cm/s",
    .overlays = NULL,
    .steps = 300,
    CFV_DEMO_HOOKS,
};
