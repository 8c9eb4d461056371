/* SPDX-License-Identifier: MIT */
/*
 * bench/cull/cull.c: hierarchical culling (arbor_scene_cull) beside a flat test of every box, on
 * a crowd: the `skeletons` shape of WORKLOADS.md (16,949 skeletons of 59 bones, 999,991 nodes,
 * drawn from its stream) with the skeletons' roots spread on a square grid, every bone a box of
 * half-extent 0.05, and an orthographic camera looking straight down at the grid's middle,
 * seeing a tenth of its area.
 *
 * Figures, each the median of the timed frames after 2 warm-up ones (milliseconds per frame):
 * - hierarchical: arbor_scene_cull on the static scene (subtree boxes current);
 * - flat, boxes in an array: every node's world box, kept in one array beforehand, tested
 *   against the six planes in a plain loop (the fastest a flat test gets: no box to compute);
 * - flat, through the API: arbor_node_world_bounds for every node, then the same test (a flat
 *   culler that keeps no boxes);
 * - first cull: the first arbor_scene_cull of the scene, which computes every subtree box (once);
 * - after moves: every 100th skeleton's root moved (WORKLOADS.md's move_roots, 170 skeletons),
 *   arbor_scene_update, then arbor_scene_cull: the update and the cull timed apart, with the
 *   subtree boxes the cull recomputed.
 * Box tests are counted by arbor for the hierarchical cull, and are one per node for a flat one.
 *
 *   cull [--size K] [--frames N] [--json]
 */
#define _POSIX_C_SOURCE 200809L
#include <arbor/arbor.h>

#define WL_REAL arbor_real
#include "../workloads.h"

#define SPACING 8.0  /* grid step between skeleton roots: a skeleton reaches a few units out */
#define HALF_BOX 0.05

/* The plane test of bounds.h: 0 outside, 1 straddling, 2 inside. */
static int classify(const arbor_real *box, const arbor_real *planes) {
    int result = 2;
    for (int i = 0; i < 6; i++) {
        const arbor_real *p = planes + 4 * i;
        arbor_real far = p[3], near = p[3];
        for (int k = 0; k < 3; k++) {
            arbor_real lo = p[k] * box[k], hi = p[k] * box[3 + k];
            far = far + (lo > hi ? lo : hi);
            near = near + (lo < hi ? lo : hi);
        }
        if (far < 0) return 0;
        if (near < 0) result = 1;
    }
    return result;
}

typedef struct figure {
    const char *metric;
    double ms, min_ms;
    uint64_t box_tests, visible, boxes_computed;
} figure;

static void print_figure(const figure *f, const wl_shape *sh, uint32_t frames, bool json) {
    if (json)
        printf("{\"peer\":\"arbor %s %s\",\"shape\":\"skeletons\",\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"ms/frame\","
               "\"min\":%.6g,\"frames\":%u,\"nodes\":%u,\"box_tests\":%llu,\"visible\":%llu,\"boxes_computed\":%llu}\n",
               arbor_version(), arbor_real_size() == 8 ? "double" : "float", f->metric, f->ms, f->min_ms, frames,
               sh->count, (unsigned long long)f->box_tests, (unsigned long long)f->visible,
               (unsigned long long)f->boxes_computed);
    else
        printf("%-22s %10.3f ms/frame (fastest %.3f)  box tests %10llu  visible %8llu  boxes computed %llu\n", f->metric,
               f->ms, f->min_ms, (unsigned long long)f->box_tests, (unsigned long long)f->visible,
               (unsigned long long)f->boxes_computed);
    fflush(stdout);
}

/* Median and fastest of the timed frames (after the warm-up ones), in ms. */
static void timed(figure *f, double *times, uint32_t frames) {
    f->ms = wl_median(times + WL_WARMUP, frames) * 1e3;
    f->min_ms = times[WL_WARMUP] * 1e3; /* sorted by wl_median */
}

static uint64_t boxes_computed(const arbor_scene *s) {
    arbor_scene_stats st;
    arbor_scene_stats_get(s, &st);
    return st.subtree_boxes;
}

int main(int argc, char **argv) {
    uint32_t size = 0, frames = WL_FRAMES;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) size = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--json")) json = true;
        else {
            fprintf(stderr, "usage: cull [--size K] [--frames N] [--json]\n");
            return 2;
        }
    }
    wl_shape sh;
    wl_workload w;
    if (!wl_shape_make("skeletons", size, 0, &sh) || frames == 0 || !wl_generate(&sh, false, &w)) {
        fprintf(stderr, "cull: bad size or out of memory\n");
        return 1;
    }
    uint32_t n = w.count, grid = (uint32_t)ceil(sqrt((double)sh.size));
    const double side = grid * SPACING;

    /* The crowd: the workload's nodes, each root moved to its grid cell, a box on every bone. */
    arbor_scene *s = NULL;
    arbor_scene_create(&(arbor_scene_desc){ .initial_capacity = n + 1 }, &s);
    arbor_node *nodes = malloc((size_t)n * sizeof *nodes);
    arbor_real *boxes = malloc((size_t)n * 6 * sizeof *boxes);
    arbor_node *out = malloc((size_t)n * sizeof *out);
    uint32_t *flat_out = malloc((size_t)n * sizeof *flat_out);
    double *times = malloc((WL_WARMUP + frames) * sizeof *times);
    if (!s || !nodes || !boxes || !out || !flat_out || !times) {
        fprintf(stderr, "cull: out of memory\n");
        return 1;
    }
    const arbor_real lo[3] = { -HALF_BOX, -HALF_BOX, -HALF_BOX }, hi[3] = { HALF_BOX, HALF_BOX, HALF_BOX };
    for (uint32_t i = 0; i < n; i++) {
        arbor_node_desc d = { .parent = w.parent[i] >= 0 ? nodes[w.parent[i]] : ARBOR_NONE };
        memcpy(d.translation, w.t + 3 * (size_t)i, sizeof d.translation);
        memcpy(d.rotation, w.r + 4 * (size_t)i, sizeof d.rotation);
        d.scale[0] = d.scale[1] = d.scale[2] = w.s[i];
        if (w.parent[i] < 0) {
            uint32_t k = i / WL_SKELETON_BONES;
            d.translation[0] += (arbor_real)((k % grid) * SPACING);
            d.translation[2] += (arbor_real)((k / grid) * SPACING);
        }
        if (arbor_node_create(s, &d, &nodes[i]) || arbor_node_set_bounds(s, nodes[i], lo, hi)) {
            fprintf(stderr, "cull: %s\n", arbor_last_error());
            return 1;
        }
    }
    arbor_scene_update(s);

    /* The camera: straight down at the grid's middle, a square of a tenth of the grid's area. */
    arbor_node camera;
    const double half = side * sqrt(0.1) / 2, middle = (side - SPACING) / 2;
    const arbor_camera ortho = { ARBOR_CAMERA_ORTHOGRAPHIC, 0, 0, (arbor_real)half, (arbor_real)half, 1, 200 };
    arbor_real vp[16], planes[24];
    if (arbor_node_create(s, &(arbor_node_desc){ .name = "camera" }, &camera) || arbor_node_set_camera(s, camera, &ortho) ||
        arbor_camera_look_at(s, camera, (arbor_real[3]){ (arbor_real)middle, 100, (arbor_real)middle },
                             (arbor_real[3]){ (arbor_real)middle, 0, (arbor_real)middle }, (arbor_real[3]){ 0, 0, -1 }) ||
        arbor_camera_view_projection(s, camera, 0, vp)) {
        fprintf(stderr, "cull: %s\n", arbor_last_error());
        return 1;
    }
    arbor_frustum_planes(vp, planes);
    if (!json)
        printf("skeletons %u (%u nodes) on a %u x %u grid of step %g; camera: orthographic, straight down, "
               "%.1f x %.1f of %.1f x %.1f\n",
               sh.size, n, grid, grid, SPACING, 2 * half, 2 * half, side, side);

    /* First cull: every subtree box computed. */
    arbor_cull_stats st;
    uint32_t count = 0;
    figure first = { .metric = "cull_first" };
    uint64_t before = boxes_computed(s);
    double t0 = wl_now();
    arbor_scene_cull(s, planes, 6, out, n, &count, &st);
    first.ms = first.min_ms = (wl_now() - t0) * 1e3;
    first.box_tests = st.box_tests;
    first.visible = st.visible;
    first.boxes_computed = boxes_computed(s) - before;

    /* Hierarchical, static. */
    figure hier = { .metric = "cull_hierarchical" };
    for (uint32_t f = 0; f < WL_WARMUP + frames; f++) {
        t0 = wl_now();
        arbor_scene_cull(s, planes, 6, out, n, &count, &st);
        times[f] = wl_now() - t0;
    }
    timed(&hier, times, frames);
    hier.box_tests = st.box_tests;
    hier.visible = st.visible;

    /* Flat, boxes in an array (filled beforehand, not timed). */
    for (uint32_t i = 0; i < n; i++) arbor_node_world_bounds(s, nodes[i], boxes + 6 * (size_t)i, boxes + 6 * (size_t)i + 3);
    figure flat = { .metric = "cull_flat_array", .box_tests = n };
    for (uint32_t f = 0; f < WL_WARMUP + frames; f++) {
        uint32_t visible = 0;
        t0 = wl_now();
        for (uint32_t i = 0; i < n; i++)
            if (classify(boxes + 6 * (size_t)i, planes)) flat_out[visible++] = i;
        times[f] = wl_now() - t0;
        flat.visible = visible;
    }
    timed(&flat, times, frames);

    /* Flat, through the API. */
    figure api = { .metric = "cull_flat_api", .box_tests = n };
    for (uint32_t f = 0; f < WL_WARMUP + frames; f++) {
        uint32_t visible = 0;
        t0 = wl_now();
        for (uint32_t i = 0; i < n; i++) {
            arbor_real box[6];
            arbor_node_world_bounds(s, nodes[i], box, box + 3);
            if (classify(box, planes)) flat_out[visible++] = i;
        }
        times[f] = wl_now() - t0;
        api.visible = visible;
    }
    timed(&api, times, frames);

    /* After moves: the update, then the cull, timed apart. */
    figure update = { .metric = "update_after_move" }, moved = { .metric = "cull_after_move" };
    double *cull_times = malloc((WL_WARMUP + frames) * sizeof *cull_times);
    for (uint32_t f = 0; f < WL_WARMUP + frames && cull_times; f++) {
        for (uint32_t m = 0; m < w.moved_count; m++) {
            uint32_t i = w.moved[m], k = i / WL_SKELETON_BONES;
            arbor_real t[3];
            wl_moved_translation(&w, i, f, t);
            arbor_node_set_translation(s, nodes[i], t[0] + (arbor_real)((k % grid) * SPACING), t[1],
                                       t[2] + (arbor_real)((k / grid) * SPACING));
        }
        t0 = wl_now();
        arbor_scene_update(s);
        double t1 = wl_now();
        before = boxes_computed(s);
        arbor_scene_cull(s, planes, 6, out, n, &count, &st);
        cull_times[f] = wl_now() - t1;
        times[f] = t1 - t0;
        moved.boxes_computed = boxes_computed(s) - before;
    }
    timed(&update, times, frames);
    if (cull_times) timed(&moved, cull_times, frames);
    moved.box_tests = st.box_tests;
    moved.visible = st.visible;
    free(cull_times);

    print_figure(&hier, &sh, frames, json);
    print_figure(&flat, &sh, frames, json);
    print_figure(&api, &sh, frames, json);
    print_figure(&first, &sh, 1, json);
    print_figure(&update, &sh, frames, json);
    print_figure(&moved, &sh, frames, json);
    if (hier.visible != flat.visible || api.visible != flat.visible) {
        fprintf(stderr, "cull: the hierarchical and flat tests disagree: %llu, %llu, %llu visible\n",
                (unsigned long long)hier.visible, (unsigned long long)flat.visible, (unsigned long long)api.visible);
        return 1;
    }
    if (!json)
        printf("visible %.1f%% of the nodes; box tests %.1fx fewer, time %.1fx less than the flat array\n",
               100.0 * (double)hier.visible / n, (double)n / (double)hier.box_tests, flat.ms / hier.ms);
    arbor_scene_destroy(s);
    free(nodes);
    free(boxes);
    free(out);
    free(flat_out);
    free(times);
    wl_free(&w);
    return 0;
}
