/* SPDX-License-Identifier: MIT */
/* The keys: one table of bindings. The dispatch (cfv_app_key), the `h` help and every demo's footer
   are made from it, so the keys on screen are the keys that work. Demo keys have their own
   namespace (digits, ',' and '.'), which the viewer never binds. */
#include "cfview.h"

#include <stdio.h>
#include <string.h>

#define K(sym) {sym, false}
#define KS(sym) {sym, true}

/* name (for a demo's .keys list), footer text, help text, actions and their keys */
const cfvBinding cfv_bindings[] = {
    {"help", "help", "this help", NULL, {CFV_A_HELP}, {K(SDLK_h)}, 1, false},
    {"pause", "pause", "pause / run", NULL, {CFV_A_PAUSE}, {K(SDLK_SPACE)}, 1, false},
    {"step", "single step", "single step (pauses)", NULL, {CFV_A_STEP}, {K(SDLK_s)}, 1, false},
    {"restart", "restart", "restart from the initial state, keeping the solver, iterations and time step you chose",
     NULL, {CFV_A_RESTART}, {K(SDLK_r)}, 1, false},
    {"reset", "restart as set up", "restart with the demo's (or the scene's) own settings", NULL, {CFV_A_RESET},
     {KS(SDLK_r)}, 1, false},
    {"dt", "time step /2 x2", "time step / 2, x 2 (every world)", NULL, {CFV_A_DT_DOWN, CFV_A_DT_UP},
     {K(SDLK_LEFTBRACKET), K(SDLK_RIGHTBRACKET)}, 2, false},
    {"gyroscopic", "gyroscopic term", "gyroscopic term on / off (every world)", NULL, {CFV_A_GYRO}, {K(SDLK_g)}, 1, false},
    {"integrator", "rigid / soft integrator", "next rigid / soft integrator (every world)", NULL,
     {CFV_A_RIGID_INT, CFV_A_SOFT_INT}, {K(SDLK_i), KS(SDLK_i)}, 2, false},
    {"iterations", "iterations /2 x2", "solver iterations / 2, x 2 (every world)", NULL, {CFV_A_ITER_DOWN, CFV_A_ITER_UP},
     {K(SDLK_o), KS(SDLK_o)}, 2, false},
    {"solver", "next / previous solver",
     "next / previous contact solver of the registry (every world; --compare: the chosen one); the world's label "
     "says which it runs",
     NULL, {CFV_A_SOLVER_NEXT, CFV_A_SOLVER_PREV}, {K(SDLK_x), KS(SDLK_x)}, 2, false},
    {"world", "choose a world", "--compare: choose the world whose solver x changes", "1-4",
     {CFV_A_WORLD, CFV_A_WORLD, CFV_A_WORLD, CFV_A_WORLD}, {K(SDLK_1), K(SDLK_2), K(SDLK_3), K(SDLK_4)}, 4, true},
    {"mu", "mu -0.1 +0.1", "friction coefficient mu - 0.1, + 0.1 (every body)", NULL, {CFV_A_MU_DOWN, CFV_A_MU_UP},
     {K(SDLK_m), KS(SDLK_m)}, 2, false},
    {"speed", "fewer / more steps per frame", "fewer / more steps per frame (the speed of the run)", NULL,
     {CFV_A_SPF_DOWN, CFV_A_SPF_UP}, {K(SDLK_MINUS), K(SDLK_EQUALS)}, 2, false},
    {"demo", "next / previous demo", "next / previous demo of the chapter", "tab  shift+tab",
     {CFV_A_DEMO_NEXT, CFV_A_DEMO_PREV}, {K(SDLK_TAB), KS(SDLK_TAB)}, 2, false},
    {"ids", "body ids", "body ids", NULL, {CFV_A_IDS}, {K(SDLK_b)}, 1, false},
    {"velocity", "velocity arrows", "velocity arrows", NULL, {CFV_A_VELOCITY}, {K(SDLK_v)}, 1, false},
    {"omega", "angular velocity", "angular velocity arrows", NULL, {CFV_A_OMEGA}, {K(SDLK_w)}, 1, false},
    {"momentum", "angular momentum", "angular momentum arrows", NULL, {CFV_A_MOMENTUM}, {K(SDLK_l)}, 1, false},
    {"points", "contact points", "contact points", NULL, {CFV_A_POINTS}, {K(SDLK_c)}, 1, false},
    {"normals", "contact normals", "contact normals", NULL, {CFV_A_NORMALS}, {K(SDLK_n)}, 1, false},
    {"frames", "tangent frames", "contact tangent frames", NULL, {CFV_A_FRAMES}, {K(SDLK_t)}, 1, false},
    {"impulses", "impulses", "contact impulses", NULL, {CFV_A_IMPULSES}, {K(SDLK_j)}, 1, false},
    {"cones", "friction cones", "friction cones with the impulse inside", NULL, {CFV_A_CONES}, {K(SDLK_k)}, 1, false},
    {"depth", "penetration depth", "penetration depth", NULL, {CFV_A_DEPTH}, {K(SDLK_d)}, 1, false},
    {"deformation", "deformation colours",
     "soft bodies coloured by how far each node is from its rest shape (moved with the body): yellow is the largest",
     NULL, {CFV_A_DEFORMATION}, {K(SDLK_e)}, 1, false},
    {"plots", "plots", "plots on / off", NULL, {CFV_A_PLOTS}, {K(SDLK_p)}, 1, false},
    {"hud", "text", "text panels on / off", NULL, {CFV_A_HUD}, {K(SDLK_u)}, 1, false},
    {"preconditioner", "preconditioner", "next preconditioner of the dual-form solver (chapter 8; every world with one)",
     NULL, {CFV_A_PRECOND}, {KS(SDLK_p)}, 1, false},
    {"fit", "fit the camera", "fit the camera to the subject (and the path it took)", NULL, {CFV_A_FIT}, {K(SDLK_f)}, 1,
     false},
    {"home", "start view", "the camera the demo starts with", NULL, {CFV_A_HOME}, {K(SDLK_HOME)}, 1, false},
    {"orbit", "orbit", "orbit the camera (mouse: left drag)", "arrows",
     {CFV_A_ORBIT_LEFT, CFV_A_ORBIT_RIGHT, CFV_A_ORBIT_UP, CFV_A_ORBIT_DOWN},
     {K(SDLK_LEFT), K(SDLK_RIGHT), K(SDLK_UP), K(SDLK_DOWN)}, 4, false},
    {"pan", "pan", "pan the camera (mouse: right drag)", "shift+arrows",
     {CFV_A_PAN_LEFT, CFV_A_PAN_RIGHT, CFV_A_PAN_UP, CFV_A_PAN_DOWN},
     {KS(SDLK_LEFT), KS(SDLK_RIGHT), KS(SDLK_UP), KS(SDLK_DOWN)}, 4, false},
    {"zoom", "zoom", "zoom in / out (mouse: wheel)", "page up  page down", {CFV_A_ZOOM_IN, CFV_A_ZOOM_OUT},
     {K(SDLK_PAGEUP), K(SDLK_PAGEDOWN)}, 2, false},
    {"screenshot", "screenshot", "screenshot", NULL, {CFV_A_SHOT}, {K(SDLK_F12)}, 1, false},
    {"record", "record frames", "record frames on / off", NULL, {CFV_A_RECORD}, {K(SDLK_F9)}, 1, false},
    {"quit", "quit", "quit", "q  esc", {CFV_A_QUIT, CFV_A_QUIT}, {K(SDLK_q), K(SDLK_ESCAPE)}, 2, false},
    {NULL, NULL, NULL, NULL, {CFV_A_NONE}, {K(0)}, 0, false},
};

const char *cfv_key_name(SDL_Keycode sym, bool shift, char *buf, size_t cap)
{
    const char *s = NULL;
    switch (sym) {
    case SDLK_SPACE: s = "space"; break;
    case SDLK_TAB: s = "tab"; break;
    case SDLK_HOME: s = "home"; break;
    case SDLK_ESCAPE: s = "esc"; break;
    case SDLK_F9: s = "F9"; break;
    case SDLK_F12: s = "F12"; break;
    case SDLK_LEFT: s = "left"; break;
    case SDLK_RIGHT: s = "right"; break;
    case SDLK_UP: s = "up"; break;
    case SDLK_DOWN: s = "down"; break;
    case SDLK_PAGEUP: s = "page up"; break;
    case SDLK_PAGEDOWN: s = "page down"; break;
    default: break;
    }
    if (s) snprintf(buf, cap, "%s%s", shift ? "shift+" : "", s);
    else if (sym > 32 && sym < 127 && sym >= 'a' && sym <= 'z') snprintf(buf, cap, "%c", shift ? (char)(sym - 32) : (char)sym);
    else if (sym > 32 && sym < 127) snprintf(buf, cap, "%s%c", shift ? "shift+" : "", (char)sym);
    else snprintf(buf, cap, "key %d", (int)sym);
    return buf;
}

const char *cfv_binding_keys(const cfvBinding *b, char *buf, size_t cap)
{
    if (b->label) {
        snprintf(buf, cap, "%s", b->label);
        return buf;
    }
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < b->n_keys && n < cap; ++i) {
        char k[32];
        cfv_key_name(b->key[i].sym, b->key[i].shift, k, sizeof k);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? " " : "", k);
    }
    return buf;
}

const cfvBinding *cfv_binding_find(const char *name, size_t len)
{
    for (int i = 0; cfv_bindings[i].name; ++i)
        if (strlen(cfv_bindings[i].name) == len && strncmp(cfv_bindings[i].name, name, len) == 0) return &cfv_bindings[i];
    return NULL;
}

cfvAction cfv_binding_action(SDL_Keycode sym, bool shift, bool compare)
{
    /* the exact key first, then the key without shift (shift+c shows the contact points too) */
    for (int pass = 0; pass < (shift ? 2 : 1); ++pass)
        for (int i = 0; cfv_bindings[i].name; ++i) {
            const cfvBinding *b = &cfv_bindings[i];
            if (b->compare_only && !compare) continue;
            for (int k = 0; k < b->n_keys; ++k)
                if (b->key[k].sym == sym && b->key[k].shift == (pass == 0 && shift)) return b->act[k];
        }
    if (sym == SDLK_KP_MINUS) return CFV_A_SPF_DOWN; /* the same keys on the keypad */
    if (sym == SDLK_PLUS || sym == SDLK_KP_PLUS) return CFV_A_SPF_UP;
    return CFV_A_NONE;
}

bool cfv_demo_key_free(int key) { return (key >= '0' && key <= '9') || key == ',' || key == '.'; }

/* "k what, k what" of the bindings a comma list names; the count of unknown names in *bad */
static size_t viewer_part(const char *list, char *out, size_t cap, int *bad)
{
    size_t n = 0;
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const cfvBinding *b = cfv_binding_find(p, len);
        if (!b) {
            if (bad) (*bad)++;
        } else if (n < cap) {
            char k[64];
            n += (size_t)snprintf(out + n, cap - n, "%s%s %s", n ? ", " : "", cfv_binding_keys(b, k, sizeof k), b->what);
        }
        p = e ? e + 1 : NULL;
    }
    return n;
}

int cfv_footer(const cfvRun *run, char *out, size_t cap)
{
    int bad = 0;
    size_t n = 0;
    out[0] = 0;
    const cfvDemo *d = run->demo;
    if (d && d->demo_keys && d->demo_keys[0].key) {
        n += (size_t)snprintf(out + n, cap - n, "demo keys: ");
        for (int i = 0; d->demo_keys[i].key && n < cap; ++i)
            n += (size_t)snprintf(out + n, cap - n, "%s%c %s", i ? ", " : "", d->demo_keys[i].key, d->demo_keys[i].what);
        if (n < cap) n += (size_t)snprintf(out + n, cap - n, "\n");
    }
    char viewer[600] = "";
    const char *list = d ? d->keys : (run->n_compare ? "world,solver,restart,reset,pause" : "pause,restart,solver");
    size_t m = viewer_part(list, viewer, sizeof viewer, &bad);
    if (n < cap) snprintf(out + n, cap - n, "keys: %s%s(h: all keys)", viewer, m ? "   " : "");
    return bad;
}
