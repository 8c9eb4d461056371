/* SPDX-License-Identifier: MIT */
/*
 * bench/workloads.h: the workloads of ../shared/bench/WORKLOADS.md, shared by `arbor bench`
 * (tools/arbor/cmd_bench.c) and the C peers (bench/peers/c_*.c, membound.c), so that every C
 * program draws the same numbers in the same order. Header only: every function is static.
 *
 * - splitmix64 seeded 0x5EED; uniform() = (next() >> 40) * 2^-24; sym() = 2 * uniform() - 1.
 * - A node's local transform, drawn in creation order: translation (sym, sym, sym); rotation
 *   (sym, sym, sym, sym) normalised, identity when shorter than 1e-6; uniform scale
 *   0.9 + 0.2 * uniform(). For `random`, node i > 0 draws its parent floor(uniform() * i) first.
 * - Shapes: skeletons K (59-node skeleton, K roots), random N (one root), chains C x L.
 * - After the shape, 4 rotation sets (one normalised quaternion per node, in node order).
 *
 * Quaternions are normalised in double and stored as WL_REAL (float unless the includer
 * defines it first, e.g. `#define WL_REAL arbor_real`).
 *
 * The includer defines _POSIX_C_SOURCE 200809L before any system header (clock_gettime).
 */
#ifndef ARBOR_BENCH_WORKLOADS_H
#define ARBOR_BENCH_WORKLOADS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "splitmix64.h"

#ifndef WL_REAL
#define WL_REAL float
#endif

/* ---- Random numbers ------------------------------------------------------------------------ */

typedef struct wl_rng { uint64_t state; } wl_rng;

#define WL_SEED UINT64_C(0x5EED)

static inline wl_rng wl_rng_make(void) { return (wl_rng){ WL_SEED }; }

static inline uint64_t wl_next(wl_rng *g) { return splitmix64_next(&g->state); }

/* In [0, 1), exact in float: 24 random bits. */
static inline double wl_uniform(wl_rng *g) { return (double)(wl_next(g) >> 40) * (1.0 / 16777216.0); }

/* In [-1, 1). */
static inline double wl_sym(wl_rng *g) { return 2.0 * wl_uniform(g) - 1.0; }

/* (sym, sym, sym, sym) normalised, (x, y, z, w); identity when shorter than 1e-6. */
static inline void wl_quat(wl_rng *g, WL_REAL q[4]) {
    double v[4];
    for (int i = 0; i < 4; i++) v[i] = wl_sym(g);
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    if (len < 1e-6) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return;
    }
    for (int i = 0; i < 4; i++) q[i] = (WL_REAL)(v[i] / len);
}

/* ---- Shapes -------------------------------------------------------------------------------- */

typedef enum wl_kind { WL_SKELETONS, WL_RANDOM, WL_CHAINS } wl_kind;

typedef struct wl_shape {
    wl_kind kind;
    uint32_t size;    /* skeletons: K; random: N; chains: C */
    uint32_t length;  /* chains: L (nodes per chain) */
    uint32_t count;   /* nodes */
} wl_shape;

#define WL_SKELETON_BONES 59u

/* The 59-node skeleton: parent of each bone, -1 for the hips. */
static const int8_t wl_skeleton_parent[WL_SKELETON_BONES] = {
    -1, 0,  1,  2,  3,  4,  5,  6,  7,               /* hips, spine1..5, neck, head, head_end */
    5,  9,  10, 11,                                   /* upperarm_L, forearm_L, wrist_L, hand_L */
    12, 13, 14, 12, 16, 17, 12, 19, 20, 12, 22, 23, 12, 25, 26, /* fingers under hand_L */
    5,  28, 29, 30,                                   /* upperarm_R, forearm_R, wrist_R, hand_R */
    31, 32, 33, 31, 35, 36, 31, 38, 39, 31, 41, 42, 31, 44, 45, /* fingers under hand_R */
    0,  47, 48, 49, 50, 51,                           /* thigh_L .. toe_end_L */
    0,  53, 54, 55, 56, 57,                           /* thigh_R .. toe_end_R */
};

static inline const char *wl_kind_name(wl_kind k) {
    return k == WL_SKELETONS ? "skeletons" : k == WL_RANDOM ? "random" : "chains";
}

/* Fills *out for a shape name with its default size (skeletons 16949, random 1000000, chains
   1000 x 1000); size / length nonzero override K, N or C / L. false for an unknown name or a
   shape of no node or more than 2^31 nodes. */
static inline bool wl_shape_make(const char *name, uint32_t size, uint32_t length, wl_shape *out) {
    wl_shape s = { 0 };
    uint64_t count;
    if (!strcmp(name, "skeletons")) {
        s.kind = WL_SKELETONS;
        s.size = size ? size : 16949;
        count = (uint64_t)s.size * WL_SKELETON_BONES;
    } else if (!strcmp(name, "random")) {
        s.kind = WL_RANDOM;
        s.size = size ? size : 1000000;
        count = s.size;
    } else if (!strcmp(name, "chains")) {
        s.kind = WL_CHAINS;
        s.size = size ? size : 1000;
        s.length = length ? length : 1000;
        count = (uint64_t)s.size * s.length;
    } else {
        return false;
    }
    if (count == 0 || count > (UINT64_C(1) << 31)) return false;
    s.count = (uint32_t)count;
    *out = s;
    return true;
}

/* Draws node i (creation order, i = 0, 1, ...): its parent (-1 for a root) and TRS. */
static inline int32_t wl_draw_node(wl_rng *g, const wl_shape *sh, uint32_t i, WL_REAL t[3], WL_REAL r[4], WL_REAL *s) {
    int32_t parent = -1;
    switch (sh->kind) {
    case WL_SKELETONS: {
        uint32_t bone = i % WL_SKELETON_BONES;
        if (bone) parent = (int32_t)(i - bone + (uint32_t)wl_skeleton_parent[bone]);
        break;
    }
    case WL_RANDOM:
        if (i) parent = (int32_t)(wl_uniform(g) * (double)i); /* drawn before the transform */
        break;
    case WL_CHAINS:
        if (i % sh->length) parent = (int32_t)i - 1;
        break;
    }
    for (int k = 0; k < 3; k++) t[k] = (WL_REAL)wl_sym(g);
    wl_quat(g, r);
    *s = (WL_REAL)(0.9 + 0.2 * wl_uniform(g));
    return parent;
}

/* Roots: skeletons every 59th node, chains every L-th, random node 0. */
static inline bool wl_is_root(const wl_shape *sh, uint32_t i) {
    return sh->kind == WL_SKELETONS ? i % WL_SKELETON_BONES == 0 : sh->kind == WL_CHAINS ? i % sh->length == 0 : i == 0;
}

/* The nodes move_roots writes: every 100th root (the 0th, 100th, ...); random: every
   10,000th node (0, 10000, ...). */
static inline bool wl_is_moved(const wl_shape *sh, uint32_t i) {
    switch (sh->kind) {
    case WL_SKELETONS: return i % (100u * WL_SKELETON_BONES) == 0;
    case WL_CHAINS: return i % ((uint64_t)100u * sh->length) == 0;
    default: return i % 10000u == 0;
    }
}

/* The node leaf writes: the last one created (a leaf in every shape). */
static inline uint32_t wl_leaf(const wl_shape *sh) { return sh->count - 1; }

/* ---- A whole workload in memory ------------------------------------------------------------ */

typedef struct wl_workload {
    wl_shape shape;
    uint32_t count;
    int32_t *parent;        /* count */
    WL_REAL *t, *r, *s;     /* 3, 4 and 1 per node */
    WL_REAL *rot[4];        /* the 4 rotation sets, 4 per node; NULL unless asked for */
    WL_REAL leaf_rot[4][4]; /* the leaf's rotation in each set (always drawn) */
    uint32_t *moved;        /* the nodes move_roots writes, in node order */
    uint32_t moved_count;
    uint64_t changed;       /* nodes at or under a moved node: their world matrix changes */
} wl_workload;

static inline void wl_free(wl_workload *w) {
    free(w->parent);
    free(w->t);
    free(w->r);
    free(w->s);
    for (int k = 0; k < 4; k++) free(w->rot[k]);
    free(w->moved);
    memset(w, 0, sizeof *w);
}

/* Generates the shape (parents and TRS) and draws the 4 rotation sets after it, keeping them
   when keep_rotations (otherwise only the leaf's). false when out of memory. */
static inline bool wl_generate(const wl_shape *sh, bool keep_rotations, wl_workload *w) {
    memset(w, 0, sizeof *w);
    uint32_t n = sh->count;
    w->shape = *sh;
    w->count = n;
    w->parent = malloc((size_t)n * sizeof *w->parent);
    w->t = malloc((size_t)n * 3 * sizeof *w->t);
    w->r = malloc((size_t)n * 4 * sizeof *w->r);
    w->s = malloc((size_t)n * sizeof *w->s);
    bool ok = w->parent && w->t && w->r && w->s;
    for (int k = 0; ok && keep_rotations && k < 4; k++) ok = (w->rot[k] = malloc((size_t)n * 4 * sizeof *w->rot[k])) != NULL;
    if (!ok) {
        wl_free(w);
        return false;
    }
    wl_rng g = wl_rng_make();
    for (uint32_t i = 0; i < n; i++) w->parent[i] = wl_draw_node(&g, sh, i, w->t + 3 * (size_t)i, w->r + 4 * (size_t)i, w->s + i);
    for (int k = 0; k < 4; k++) {
        for (uint32_t i = 0; i < n; i++) {
            WL_REAL q[4];
            wl_quat(&g, keep_rotations ? w->rot[k] + 4 * (size_t)i : q);
            if (i == n - 1) memcpy(w->leaf_rot[k], keep_rotations ? w->rot[k] + 4 * (size_t)i : q, sizeof q);
        }
    }
    /* move_roots: the written nodes, and how many nodes sit at or under one of them (parents
       come before children, so one pass in node order marks every subtree). */
    uint8_t *mark = calloc(n, 1);
    uint32_t moved = 0;
    for (uint32_t i = 0; i < n; i++) moved += wl_is_moved(sh, i);
    w->moved = malloc((size_t)moved * sizeof *w->moved);
    if (!mark || !w->moved) {
        free(mark);
        wl_free(w);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (wl_is_moved(sh, i)) w->moved[w->moved_count++] = i;
        mark[i] = wl_is_moved(sh, i) || (w->parent[i] >= 0 && mark[w->parent[i]]);
        w->changed += mark[i];
    }
    free(mark);
    return true;
}

/* The translation move_roots writes to node i in frame k: the drawn one plus 0.001 * (k % 4 + 1),
   so consecutive frames write different values. */
static inline void wl_moved_translation(const wl_workload *w, uint32_t i, uint32_t k, WL_REAL out[3]) {
    WL_REAL d = (WL_REAL)(0.001 * (double)(k % 4 + 1));
    for (int c = 0; c < 3; c++) out[c] = w->t[3 * (size_t)i + c] + d;
}

/* ---- Timing and reporting ------------------------------------------------------------------ */

#define WL_WARMUP 2u
#define WL_FRAMES 31u

/* The frames of WORKLOADS.md, in the order of their names. */
static const char *const wl_frame_names[] = { "animate", "static", "move_roots", "leaf", "read_all", "build", "memory" };
enum { WL_F_ANIMATE, WL_F_STATIC, WL_F_MOVE_ROOTS, WL_F_LEAF, WL_F_READ_ALL, WL_F_BUILD, WL_F_MEMORY, WL_F_COUNT };

static inline double wl_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int wl_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static inline double wl_median(double *v, uint32_t n) {
    if (!n) return 0;
    qsort(v, n, sizeof *v, wl_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Peak resident set of this process, in bytes. */
static inline double wl_peak_rss(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru)) return 0;
    return (double)ru.ru_maxrss * 1024.0; /* Linux: kilobytes */
}

/* The unit of a frame's figure (WORKLOADS.md). */
static inline const char *wl_unit(const char *metric) {
    if (!strcmp(metric, "static") || !strcmp(metric, "leaf")) return "us/frame";
    if (!strcmp(metric, "memory")) return "B/node";
    return "ns/node";
}

typedef struct wl_report {
    const char *peer, *metric, *variant; /* variant may be NULL */
    const wl_shape *shape;
    double value;
    uint32_t frames;
    double checksum; /* negative: none */
    double min;      /* the fastest timed frame, in the figure's unit; 0: not printed */
    const char *extra; /* NULL, or more JSON fields: "\"a\":1,\"b\":2" */
} wl_report;

/* One line: JSON ({"peer":...,"shape":...,"metric":...,"value":...,"unit":...,"frames":...,
   "nodes":...,"checksum":...}) or plain text. */
static inline void wl_print(const wl_report *r, bool json) {
    const char *unit = wl_unit(r->metric);
    const char *shape = wl_kind_name(r->shape->kind);
    if (json) {
        printf("{\"peer\":\"%s\",\"shape\":\"%s\",\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\",\"frames\":%u,"
               "\"nodes\":%u",
               r->peer, shape, r->metric, r->value, unit, r->frames, r->shape->count);
        if (r->variant) printf(",\"variant\":\"%s\"", r->variant);
        if (r->checksum >= 0) printf(",\"checksum\":%.9g", r->checksum);
        if (r->min > 0) printf(",\"min\":%.6g", r->min);
        if (r->extra && r->extra[0]) printf(",%s", r->extra);
        puts("}");
    } else {
        printf("%s%s%s: %s %s: %.4g %s", r->peer, r->variant ? " " : "", r->variant ? r->variant : "", shape,
               r->metric, r->value, unit);
        if (!strcmp(r->metric, "memory"))
            printf(" (peak resident set over %u nodes", r->shape->count);
        else
            printf(" (median of %u frames after %u warm-up, %u nodes", r->frames, WL_WARMUP, r->shape->count);
        if (r->checksum >= 0) printf(", checksum %.9g", r->checksum);
        puts(")");
    }
    fflush(stdout);
}

/* Sets r's value and min from the timed frames (times holds the warm-up frames first, then
   `frames` timed ones, which it sorts): microseconds per frame for static and leaf, nanoseconds per
   changed node for move_roots (whose counts go into extra, as JSON fields), nanoseconds per node
   otherwise. extra needs about 64 bytes. */
static inline void wl_report_figure(wl_report *r, int frame, double *times, uint32_t frames,
                                    const wl_workload *w, char *extra, size_t extra_size) {
    double scale = frame == WL_F_STATIC || frame == WL_F_LEAF ? 1e6
                 : frame == WL_F_MOVE_ROOTS               ? 1e9 / (double)w->changed
                                                          : 1e9 / (double)w->count;
    r->value = wl_median(times + WL_WARMUP, frames) * scale; /* sorts the timed frames */
    r->min = times[WL_WARMUP] * scale;
    extra[0] = '\0';
    if (frame == WL_F_MOVE_ROOTS)
        snprintf(extra, extra_size, "\"changed\":%llu,\"written\":%u", (unsigned long long)w->changed, w->moved_count);
    r->extra = extra;
}

#endif
