/* SPDX-License-Identifier: MIT */
/*
 * arbor bench: the workloads of ../shared/bench/WORKLOADS.md, built and run through the public
 * API only, one figure per run (the median of the timed frames after 2 warm-up frames).
 *
 *   arbor bench --shape skeletons|random|chains
 *               --frame animate|static|move_roots|leaf|read_all|build|memory
 *               [--threads N] [--bulk|--pose] [--frames N] [--size N] [--length L] [--json]
 *   arbor bench --nodes N [--threads N] [--frames N] [--json]
 *
 * The workload (bench/workloads.h, shared with the C peers in bench/peers/) is generated before
 * anything is timed; nodes are created in creation order with the drawn TRS. With --threads N > 1
 * every update is arbor_scene_update_parallel() on an arbor_pool of N threads, otherwise
 * arbor_scene_update(). `memory` builds the scene straight from the random stream, so the
 * process holds nothing but the scene (and, for `random` only, the handles a parent is looked up
 * by), and reports its peak resident set over the node count.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>

#include "cli.h"

#define WL_REAL arbor_real
#include "../../bench/workloads.h"

static const char bench_help[] =
    "usage: arbor bench --shape skeletons|random|chains\n"
    "                   --frame animate|static|move_roots|leaf|read_all|build|memory\n"
    "                   [--threads N] [--bulk|--pose] [--frames N] [--size N] [--length L] [--json]\n"
    "       arbor bench --nodes N [--threads N] [--frames N] [--json]\n"
    "\n"
    "Runs one workload of WORKLOADS.md through the public API and prints the median over the\n"
    "timed frames (after 2 warm-up frames):\n"
    "  animate     a new rotation on every node, then the update           ns/node\n"
    "  static      the update with nothing written                          us/frame\n"
    "  move_roots  the translation of every 100th root (random: every\n"
    "              10,000th node), then the update                          ns per changed node\n"
    "  leaf        one leaf's rotation, the update, that leaf's matrix      us/frame\n"
    "  read_all    every node's world matrix read after an update           ns/node\n"
    "  build       a fresh scene created in batches, then one update        ns/node\n"
    "  memory      peak resident set after building and one update          B/node\n"
    "\n"
    "options:\n"
    "  --shape S      skeletons (16949 x 59 nodes), random (1,000,000), chains (1000 x 1000)\n"
    "  --frame F      the frame to time (default animate)\n"
    "  --threads N    N > 1: arbor_scene_update_parallel on an arbor_pool of N threads (default 1)\n"
    "  --bulk         animate writes with arbor_scene_set_rotations (with --threads N > 1,\n"
    "                 arbor_scene_set_rotations_parallel on the pool) instead of one call per node\n"
    "  --pose         animate writes the rotations in place into an arbor_pose of every node and\n"
    "                 applies it (on the pool with --threads N > 1), then the update\n"
    "  --frames N     timed frames (default 31)\n"
    "  --size N       skeletons K, random N or chains C instead of the default (quick runs)\n"
    "  --length L     nodes per chain (default 1000)\n"
    "  --nodes N      N nodes (skeletons, N / 59 of them) built from the stream, animated through a\n"
    "                 pose of every node (5 frames unless --frames), every world matrix read: ns/node\n"
    "                 of each and the peak resident set, in one process\n"
    "  --json         one JSON line: {\"peer\":\"arbor <version> <float|double> t<N>\",\"shape\":...,\n"
    "                 \"metric\":...,\"value\":...,\"unit\":...,\"frames\":...,\"nodes\":...,\"checksum\":...}\n"
    "The checksum is the sum of |x| + |y| + |z| of every world translation after the build: the\n"
    "peers in bench/peers/ print the same number for the same workload.\n";


typedef struct bench {
    arbor_scene *scene;
    arbor_node *nodes;     /* handles in creation order */
    arbor_pool *pool;
    arbor_executor exec;
} bench;

static int bench_fail(const char *what) {
    cli_error("%s: %s", what, cli_last_error());
    return 1;
}

static void bench_update(bench *b) {
    if (b->pool)
        arbor_scene_update_parallel(b->scene, &b->exec);
    else
        arbor_scene_update(b->scene);
}

static arbor_node_desc node_desc(arbor_node parent, const arbor_real t[3], const arbor_real r[4], arbor_real s) {
    return (arbor_node_desc){
        .parent = parent,
        .translation = { t[0], t[1], t[2] },
        .rotation = { r[0], r[1], r[2], r[3] },
        .scale = { s, s, s },
    };
}

/* Creates w's nodes into a new scene, in creation order, in batches of arbor_scene_create_nodes
   (a parent made in an earlier batch named by its handle, in the same batch by its index),
   then updates once. */
#define BUILD_BATCH 1024u
static bool build_scene(bench *b, const wl_workload *w) {
    /* the node count is known, as it is to the C peers, which allocate their arrays once */
    if (arbor_scene_create(&(arbor_scene_desc){ .initial_capacity = w->count }, &b->scene) != ARBOR_OK) return false;
    static arbor_node_desc d[BUILD_BATCH];
    static int32_t parents[BUILD_BATCH];
    for (uint32_t start = 0; start < w->count; start += BUILD_BATCH) {
        uint32_t n = w->count - start < BUILD_BATCH ? w->count - start : BUILD_BATCH;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t i = start + j;
            int32_t p = w->parent[i];
            parents[j] = p >= (int32_t)start ? p - (int32_t)start : -1;
            d[j] = node_desc(p >= 0 && p < (int32_t)start ? b->nodes[p] : ARBOR_NONE, w->t + 3 * (size_t)i, w->r + 4 * (size_t)i,
                             w->s[i]);
        }
        if (arbor_scene_create_nodes(b->scene, d, parents, n, b->nodes + start) != ARBOR_OK) return false;
    }
    bench_update(b);
    return true;
}

/* Sum of |x| + |y| + |z| of every world translation, in double. */
static double checksum(arbor_scene *s, const arbor_node *nodes, uint32_t count) {
    double sum = 0;
    arbor_real m[16];
    for (uint32_t i = 0; i < count; i++) {
        arbor_node_world_matrix(s, nodes[i], m);
        sum += fabs((double)m[12]) + fabs((double)m[13]) + fabs((double)m[14]);
    }
    return sum;
}

/* memory: the scene straight from the stream; nothing else of size is allocated (random keeps
   the handles, since a parent may be any earlier node; the other shapes need only the last
   skeleton's or the previous node's). */
static int run_memory(bench *b, const wl_shape *sh, double *value, double *sum) {
    if (arbor_scene_create(NULL, &b->scene) != ARBOR_OK) return bench_fail("arbor_scene_create");
    arbor_node *all = NULL;
    if (sh->kind == WL_RANDOM && !(all = malloc((size_t)sh->count * sizeof *all))) return bench_fail("handles");
    arbor_node bones[WL_SKELETON_BONES], prev = ARBOR_NONE;
    wl_rng g = wl_rng_make();
    for (uint32_t i = 0; i < sh->count; i++) {
        arbor_real t[3], r[4], s;
        int32_t parent = wl_draw_node(&g, sh, i, t, r, &s);
        arbor_node p = ARBOR_NONE, n;
        if (parent >= 0)
            p = sh->kind == WL_SKELETONS ? bones[(uint32_t)parent % WL_SKELETON_BONES] : sh->kind == WL_RANDOM ? all[parent] : prev;
        arbor_node_desc d = node_desc(p, t, r, s);
        if (arbor_node_create(b->scene, &d, &n) != ARBOR_OK) {
            free(all);
            return bench_fail("arbor_node_create");
        }
        if (sh->kind == WL_SKELETONS) bones[i % WL_SKELETON_BONES] = n;
        if (all) all[i] = n;
        prev = n;
    }
    bench_update(b);
    *value = wl_peak_rss() / (double)sh->count;
    /* The checksum walks the scene (no allocation) after the figure is taken. */
    double acc = 0;
    arbor_real m[16];
    for (arbor_node n = arbor_scene_next_node(b->scene, ARBOR_NONE); !arbor_node_is_none(n);
         n = arbor_scene_next_node(b->scene, n)) {
        arbor_node_world_matrix(b->scene, n, m);
        acc += fabs((double)m[12]) + fabs((double)m[13]) + fabs((double)m[14]);
    }
    *sum = acc;
    free(all);
    return 0;
}

static int usage(const char *fmt, const char *arg);

/* --nodes N: skeletons of WORKLOADS.md (N / 59 of them) built straight from the stream, a pose of
   every node, `frames` frames of rotations written into it in place, applied and updated, then
   every world matrix read; ns per node of each phase and the peak resident set, in one process
   with nothing else of size (the pose's nodes name the handles). */
static int run_nodes(bench *b, uint32_t count, uint32_t frames, bool json, const char *peer) {
    wl_shape sh;
    if (!wl_shape_make("skeletons", count / WL_SKELETON_BONES ? count / WL_SKELETON_BONES : 1, 0, &sh)) return usage("%s", "--nodes: too many");
    arbor_real table[4][64][4]; /* the rotations a frame writes, cycled over the nodes */
    wl_rng g = wl_rng_make();
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 64; j++) wl_quat(&g, table[k][j]);
    double t0 = wl_now();
    if (arbor_scene_create(&(arbor_scene_desc){ .initial_capacity = sh.count }, &b->scene) != ARBOR_OK)
        return bench_fail("arbor_scene_create");
    arbor_node bones[WL_SKELETON_BONES];
    g = wl_rng_make();
    for (uint32_t i = 0; i < sh.count; i++) {
        arbor_real t[3], r[4], s;
        int32_t parent = wl_draw_node(&g, &sh, i, t, r, &s);
        arbor_node_desc d = node_desc(parent >= 0 ? bones[(uint32_t)parent % WL_SKELETON_BONES] : ARBOR_NONE, t, r, s);
        if (arbor_node_create(b->scene, &d, &bones[i % WL_SKELETON_BONES]) != ARBOR_OK) return bench_fail("arbor_node_create");
    }
    bench_update(b);
    double built = wl_now() - t0;
    arbor_pose *pose;
    if (arbor_pose_create(b->scene, NULL, 0, &pose) != ARBOR_OK) return bench_fail("arbor_pose_create");
    double *times = malloc((size_t)(WL_WARMUP + frames) * sizeof *times);
    if (!times) {
        arbor_pose_destroy(pose);
        return bench_fail("buffers");
    }
    arbor_trs *trs = arbor_pose_trs(pose);
    for (uint32_t k = 0; k < WL_WARMUP + frames; k++) {
        t0 = wl_now();
        for (uint32_t i = 0; i < sh.count; i++) memcpy(trs[i].rotation, table[k % 4][i % 64], sizeof trs[i].rotation);
        if (arbor_pose_apply(pose, b->pool ? &b->exec : NULL) != ARBOR_OK) {
            free(times);
            arbor_pose_destroy(pose);
            return bench_fail("arbor_pose_apply");
        }
        bench_update(b);
        times[k] = wl_now() - t0;
    }
    double animate = wl_median(times + WL_WARMUP, frames);
    free(times);
    const arbor_node *nodes = arbor_pose_nodes(pose);
    double sum = 0;
    arbor_real m[16];
    t0 = wl_now();
    for (uint32_t i = 0; i < sh.count; i++) {
        arbor_node_world_matrix(b->scene, nodes[i], m);
        sum += (double)m[12];
    }
    double read = wl_now() - t0, rss = wl_peak_rss();
    arbor_pose_destroy(pose);
    double n = sh.count;
    if (json)
        printf("{\"peer\":\"%s\",\"shape\":\"skeletons\",\"metric\":\"nodes\",\"nodes\":%u,\"build\":%.4g,"
               "\"animate\":%.4g,\"read_all\":%.4g,\"unit\":\"ns/node\",\"peak_bytes_per_node\":%.1f,"
               "\"peak_bytes\":%.0f,\"frames\":%u,\"variant\":\"pose\",\"sum\":%.6g}\n",
               peer, sh.count, built * 1e9 / n, animate * 1e9 / n, read * 1e9 / n, rss / n, rss, frames, sum);
    else
        printf("%s: %u nodes (skeletons): build %.4g ns/node, animate through a pose %.4g ns/node (median of %u "
               "frames), read_all %.4g ns/node; peak resident %.0f MB, %.1f B/node\n",
               peer, sh.count, built * 1e9 / n, animate * 1e9 / n, frames, read * 1e9 / n, rss / 1e6, rss / n);
    return 0;
}

static bool parse_u32(const char *text, uint32_t min, uint32_t *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (end == text || *end || text[0] == '-' || errno || v > UINT32_MAX || v < min) return false;
    *out = (uint32_t)v;
    return true;
}

static int usage(const char *fmt, const char *arg) {
    fputs("arbor: bench: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(see arbor bench --help)\n", stderr);
    return 2;
}

int cmd_bench(int argc, char **argv) {
    const char *shape_name = NULL;
    int frame = -1;
    uint32_t threads = 1, frames = WL_FRAMES, size = 0, length = 0, nodes = 0;
    bool json = false, bulk = false, posed = false, frames_given = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(bench_help, stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--bulk")) {
            bulk = true;
        } else if (!strcmp(a, "--pose")) {
            posed = true;
        } else if (!strcmp(a, "--shape")) {
            if (!v) return usage("%s needs skeletons, random or chains", a);
            shape_name = argv[++i];
        } else if (!strcmp(a, "--frame")) {
            if (!v) return usage("%s needs a frame name", a);
            for (int f = 0; f < WL_F_COUNT; f++)
                if (!strcmp(v, wl_frame_names[f])) frame = f;
            if (frame < 0) return usage("unknown frame '%s' (animate, static, move_roots, leaf, read_all, build, memory)", v);
            i++;
        } else if (!strcmp(a, "--threads")) {
            if (!v || !parse_u32(v, 1, &threads) || threads > 1024) return usage("%s needs a thread count from 1 to 1024", a);
            i++;
        } else if (!strcmp(a, "--frames")) {
            if (!v || !parse_u32(v, 1, &frames)) return usage("%s needs a frame count of at least 1", a);
            frames_given = true;
            i++;
        } else if (!strcmp(a, "--nodes")) {
            if (!v || !parse_u32(v, WL_SKELETON_BONES, &nodes) || nodes > 2000000000u)
                return usage("%s needs a node count from 59 to 2,000,000,000", a);
            i++;
        } else if (!strcmp(a, "--size")) {
            if (!v || !parse_u32(v, 1, &size)) return usage("%s needs a positive number", a);
            i++;
        } else if (!strcmp(a, "--length")) {
            if (!v || !parse_u32(v, 1, &length)) return usage("%s needs a positive number", a);
            i++;
        } else {
            return usage("unknown argument '%s'", a);
        }
    }
    if (nodes) {
        if (shape_name || frame >= 0 || bulk || posed || size || length)
            return usage("%s takes --threads, --frames and --json only", "--nodes");
        char peer[96];
        snprintf(peer, sizeof peer, "arbor %s %s t%u", arbor_version(), arbor_real_size() == sizeof(double) ? "double" : "float",
                 threads);
        bench b = { 0 };
        if (threads > 1) {
            if (arbor_pool_create(threads, &b.pool) != ARBOR_OK) return bench_fail("arbor_pool_create");
            b.exec = arbor_pool_executor(b.pool);
        }
        char what[64];
        snprintf(what, sizeof what, "%u nodes", nodes);
        cli_progress running;
        cli_progress_begin(&running, true, "benchmarking", what, -1);
        int rc = run_nodes(&b, nodes, frames_given ? frames : 5, json, peer);
        cli_progress_end(&running);
        arbor_scene_destroy(b.scene);
        arbor_pool_destroy(b.pool);
        return rc;
    }
    if (!shape_name) return usage("%s", "--shape is required (skeletons, random or chains)");
    if (frame < 0) frame = WL_F_ANIMATE;
    wl_shape shape;
    if (!wl_shape_make(shape_name, size, length, &shape))
        return usage("unknown shape '%s', or a size of no node or more than 2^31 nodes", shape_name);
    if (bulk && frame != WL_F_ANIMATE) return usage("%s applies to --frame animate only", "--bulk");
    if (posed && (frame != WL_F_ANIMATE || bulk)) return usage("%s applies to --frame animate only, without --bulk", "--pose");

    char peer[96];
    snprintf(peer, sizeof peer, "arbor %s %s t%u", arbor_version(), arbor_real_size() == sizeof(double) ? "double" : "float",
             threads);
    wl_report rep = { .peer = peer, .metric = wl_frame_names[frame], .variant = bulk ? "bulk" : posed ? "pose" : NULL, .shape = &shape,
                      .frames = frames, .checksum = -1 };

    bench b = { 0 };
    if (threads > 1) {
        if (arbor_pool_create(threads, &b.pool) != ARBOR_OK) return bench_fail("arbor_pool_create");
        b.exec = arbor_pool_executor(b.pool);
    }
    int rc = 0;
    cli_progress running = { 0 }; /* "benchmarking ..." on a terminal, while the frames run */
    if (frame == WL_F_MEMORY) {
        rc = run_memory(&b, &shape, &rep.value, &rep.checksum);
        rep.frames = 1;
        if (!rc) wl_print(&rep, json);
        arbor_scene_destroy(b.scene);
        arbor_pool_destroy(b.pool);
        return rc;
    }

    wl_workload w;
    if (!wl_generate(&shape, frame == WL_F_ANIMATE, &w)) {
        arbor_pool_destroy(b.pool);
        cli_error("out of memory for the workload");
        return 1;
    }
    const uint32_t n = w.count, total = WL_WARMUP + frames;
    double *times = malloc((size_t)total * sizeof *times);
    uint64_t *versions = frame == WL_F_MOVE_ROOTS ? malloc((size_t)n * sizeof *versions) : NULL;
    b.nodes = malloc((size_t)n * sizeof *b.nodes);
    arbor_pose *pose = NULL;
    if (!times || !b.nodes || (frame == WL_F_MOVE_ROOTS && !versions)) {
        rc = bench_fail("buffers");
        goto done;
    }
    if (frame != WL_F_BUILD) {
        if (!build_scene(&b, &w)) {
            rc = bench_fail("building the scene");
            goto done;
        }
        rep.checksum = checksum(b.scene, b.nodes, n);
        if (posed && arbor_pose_create(b.scene, b.nodes, n, &pose) != ARBOR_OK) {
            rc = bench_fail("arbor_pose_create");
            goto done;
        }
    }

    char what[96];
    snprintf(what, sizeof what, "%s %s%s (%u frames)", shape_name, wl_frame_names[frame], bulk ? " --bulk" : posed ? " --pose" : "", total);
    cli_progress_begin(&running, true, "benchmarking", what, -1);
    volatile double sink = 0;
    for (uint32_t k = 0; k < total; k++) {
        double t0 = 0, t1 = 0;
        switch (frame) {
        case WL_F_ANIMATE: {
            const arbor_real *q = w.rot[k % 4];
            t0 = wl_now();
            if (pose) {
                arbor_trs *trs = arbor_pose_trs(pose);
                for (uint32_t i = 0; i < n; i++, q += 4) memcpy(trs[i].rotation, q, sizeof trs[i].rotation);
                if (arbor_pose_apply(pose, b.pool ? &b.exec : NULL) != ARBOR_OK) rc = 1;
            } else if (bulk) {
                if (arbor_scene_set_rotations_parallel(b.scene, b.nodes, q, n, b.pool ? &b.exec : NULL) != ARBOR_OK) rc = 1;
            } else {
                for (uint32_t i = 0; i < n; i++, q += 4)
                    if (arbor_node_set_rotation(b.scene, b.nodes[i], q[0], q[1], q[2], q[3]) != ARBOR_OK) rc = 1;
            }
            bench_update(&b);
            t1 = wl_now();
            break;
        }
        case WL_F_STATIC:
            t0 = wl_now();
            bench_update(&b);
            t1 = wl_now();
            break;
        case WL_F_MOVE_ROOTS: {
            /* The first warm-up frame checks the count of changed nodes against the versions. */
            if (k == 0)
                for (uint32_t i = 0; i < n; i++) versions[i] = arbor_node_world_version(b.scene, b.nodes[i]);
            t0 = wl_now();
            for (uint32_t m = 0; m < w.moved_count; m++) {
                uint32_t i = w.moved[m];
                arbor_real t[3];
                wl_moved_translation(&w, i, k, t);
                if (arbor_node_set_translation(b.scene, b.nodes[i], t[0], t[1], t[2]) != ARBOR_OK) rc = 1;
            }
            bench_update(&b);
            t1 = wl_now();
            if (k == 0) {
                uint64_t changed = 0;
                for (uint32_t i = 0; i < n; i++) changed += arbor_node_world_version(b.scene, b.nodes[i]) != versions[i];
                if (changed != w.changed)
                    fprintf(stderr, "arbor: bench: move_roots changed %llu world matrices, the workload says %llu\n",
                            (unsigned long long)changed, (unsigned long long)w.changed);
            }
            break;
        }
        case WL_F_LEAF: {
            const arbor_real *q = w.leaf_rot[k % 4];
            arbor_node leaf = b.nodes[wl_leaf(&shape)];
            arbor_real m[16];
            t0 = wl_now();
            if (arbor_node_set_rotation(b.scene, leaf, q[0], q[1], q[2], q[3]) != ARBOR_OK) rc = 1;
            bench_update(&b);
            arbor_node_world_matrix(b.scene, leaf, m);
            t1 = wl_now();
            sink += (double)m[12];
            break;
        }
        case WL_F_READ_ALL: {
            bench_update(&b); /* nothing to do: the scene is current */
            double sum = 0;
            arbor_real m[16];
            t0 = wl_now();
            for (uint32_t i = 0; i < n; i++) {
                arbor_node_world_matrix(b.scene, b.nodes[i], m);
                sum += (double)m[12];
            }
            t1 = wl_now();
            sink += sum;
            break;
        }
        case WL_F_BUILD: {
            arbor_scene_destroy(b.scene);
            b.scene = NULL;
            t0 = wl_now();
            bool ok = build_scene(&b, &w);
            t1 = wl_now();
            if (!ok) {
                rc = bench_fail("building the scene");
                goto done;
            }
            if (k == 0) rep.checksum = checksum(b.scene, b.nodes, n);
            break;
        }
        default: break;
        }
        if (rc) {
            rc = bench_fail(wl_frame_names[frame]);
            goto done;
        }
        times[k] = t1 - t0;
    }
    (void)sink;
    cli_progress_end(&running);

    char extra[96];
    wl_report_figure(&rep, frame, times, frames, &w, extra, sizeof extra);
    wl_print(&rep, json);

done:
    cli_progress_end(&running);
    arbor_pose_destroy(pose);
    arbor_scene_destroy(b.scene);
    arbor_pool_destroy(b.pool);
    free(b.nodes);
    free(versions);
    free(times);
    wl_free(&w);
    return rc;
}
