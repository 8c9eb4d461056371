/* SPDX-License-Identifier: MIT */
/*
 * bench/peers/c_driver.h: main() of the hand-written C loop peers (c_cglm.c, c_plain3x4.c).
 *
 * The peer file defines, before including this header:
 *   PEER_NAME                         the "peer" of its JSON lines
 *   peer_scene                        its storage (an array of structs)
 *   peer_alloc(n), peer_free(p)
 *   peer_set_node(p, i, parent, t, r, s)   node i's parent (-1: root) and TRS (s uniform)
 *   peer_set_rotation(p, i, q), peer_set_translation(p, i, t)
 *   peer_update(p)                    world = world[parent] * TRS for every node, index order
 *   peer_world_t(p, i)                pointer to node i's world translation (x, y, z)
 *   peer_world_mat4(p, i, out)        node i's world matrix copied out as 16 floats, column-major
 *
 * The C loop has no dirty tracking: every frame recomputes every node, as such a loop does.
 * Usage: like `arbor bench` (--shape, --frame, --frames, --size, --length, --json).
 */
#ifndef ARBOR_BENCH_C_DRIVER_H
#define ARBOR_BENCH_C_DRIVER_H


static double sum_abs_translations(peer_scene *p, uint32_t n) {
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        const float *t = peer_world_t(p, i);
        sum += fabs((double)t[0]) + fabs((double)t[1]) + fabs((double)t[2]);
    }
    return sum;
}

static peer_scene *build(const wl_workload *w) {
    peer_scene *p = peer_alloc(w->count);
    if (!p) return NULL;
    for (uint32_t i = 0; i < w->count; i++) peer_set_node(p, i, w->parent[i], w->t + 3 * (size_t)i, w->r + 4 * (size_t)i, w->s[i]);
    peer_update(p);
    return p;
}

static int fail(const char *what) {
    fprintf(stderr, "%s: %s\n", PEER_NAME, what);
    return 1;
}

int main(int argc, char **argv) {
    const char *shape_name = "skeletons";
    int frame = WL_F_ANIMATE;
    uint32_t frames = WL_FRAMES, size = 0, length = 0;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            json = true;
            continue;
        }
        if (!v) return fail("usage: --shape S --frame F [--frames N] [--size N] [--length L] [--json]");
        i++;
        if (!strcmp(a, "--shape")) {
            shape_name = v;
        } else if (!strcmp(a, "--frame")) {
            frame = -1;
            for (int f = 0; f < WL_F_COUNT; f++)
                if (!strcmp(v, wl_frame_names[f])) frame = f;
            if (frame < 0) return fail("unknown frame");
        } else if (!strcmp(a, "--frames")) {
            frames = (uint32_t)strtoul(v, NULL, 10);
        } else if (!strcmp(a, "--size")) {
            size = (uint32_t)strtoul(v, NULL, 10);
        } else if (!strcmp(a, "--length")) {
            length = (uint32_t)strtoul(v, NULL, 10);
        } else {
            return fail("unknown option");
        }
    }
    wl_shape shape;
    if (!wl_shape_make(shape_name, size, length, &shape) || frames == 0) return fail("bad shape, size or frame count");
    wl_report rep = { .peer = PEER_NAME, .metric = wl_frame_names[frame], .shape = &shape, .frames = frames, .checksum = -1 };

    if (frame == WL_F_MEMORY) { /* the array straight from the stream, one update */
        peer_scene *p = peer_alloc(shape.count);
        if (!p) return fail("out of memory");
        wl_rng g = wl_rng_make();
        for (uint32_t i = 0; i < shape.count; i++) {
            float t[3], r[4], s;
            int32_t parent = wl_draw_node(&g, &shape, i, t, r, &s);
            peer_set_node(p, i, parent, t, r, s);
        }
        peer_update(p);
        rep.value = wl_peak_rss() / (double)shape.count;
        rep.frames = 1;
        rep.checksum = sum_abs_translations(p, shape.count);
        wl_print(&rep, json);
        peer_free(p);
        return 0;
    }

    wl_workload w;
    if (!wl_generate(&shape, frame == WL_F_ANIMATE, &w)) return fail("out of memory");
    const uint32_t n = w.count, total = WL_WARMUP + frames;
    double *times = malloc((size_t)total * sizeof *times);
    peer_scene *p = frame == WL_F_BUILD ? NULL : build(&w);
    if (!times || (frame != WL_F_BUILD && !p)) return fail("out of memory");
    if (p) rep.checksum = sum_abs_translations(p, n);
    volatile double sink = 0;
    for (uint32_t k = 0; k < total; k++) {
        double t0 = 0, t1 = 0;
        switch (frame) {
        case WL_F_ANIMATE: {
            const float *q = w.rot[k % 4];
            t0 = wl_now();
            for (uint32_t i = 0; i < n; i++) peer_set_rotation(p, i, q + 4 * (size_t)i);
            peer_update(p);
            t1 = wl_now();
            break;
        }
        case WL_F_STATIC:
            t0 = wl_now();
            peer_update(p);
            t1 = wl_now();
            break;
        case WL_F_MOVE_ROOTS:
            t0 = wl_now();
            for (uint32_t m = 0; m < w.moved_count; m++) {
                float t[3];
                wl_moved_translation(&w, w.moved[m], k, t);
                peer_set_translation(p, w.moved[m], t);
            }
            peer_update(p);
            t1 = wl_now();
            break;
        case WL_F_LEAF: {
            uint32_t leaf = wl_leaf(&shape);
            t0 = wl_now();
            peer_set_rotation(p, leaf, w.leaf_rot[k % 4]);
            peer_update(p);
            float x = peer_world_t(p, leaf)[0];
            t1 = wl_now();
            sink += x;
            break;
        }
        case WL_F_READ_ALL: {
            double sum = 0;
            t0 = wl_now();
            /* the same work as arbor's read: each node's matrix copied out as 16 floats (the
               barrier keeps the compiler from copying only the element summed) */
            for (uint32_t i = 0; i < n; i++) {
                float m[16];
                peer_world_mat4(p, i, m);
                __asm__ volatile("" : : "r"(m) : "memory");
                sum += m[12];
            }
            t1 = wl_now();
            sink += sum;
            break;
        }
        case WL_F_BUILD:
            peer_free(p);
            t0 = wl_now();
            p = build(&w);
            t1 = wl_now();
            if (!p) return fail("out of memory");
            if (k == 0) rep.checksum = sum_abs_translations(p, n);
            break;
        default: break;
        }
        times[k] = t1 - t0;
    }
    (void)sink;
    char extra[96];
    wl_report_figure(&rep, frame, times, frames, &w, extra, sizeof extra);
    wl_print(&rep, json);
    peer_free(p);
    free(times);
    wl_free(&w);
    return 0;
}

#endif
