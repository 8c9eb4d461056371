/* SPDX-License-Identifier: MIT */
/*
 * Poses (include/arbor/pose.h) against per-node writes: two scenes built alike; one takes the
 * values through a pose, the other through arbor_node_set_trs on every pose node followed by
 * arbor_node_world_matrix on each (what the header promises to equal). After each step both
 * are updated and compared bit for bit: TRS, local and world matrices, which world versions
 * changed, the change lists (as sets), world and subtree boxes, culling, instance buffers.
 * On one thread and on a pool of two, after the storage was renumbered, with the journal's
 * undo and redo; refused values change nothing. Built in the float and the double stage.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include "support/dump.h" /* test_node_keys: twins' handles */

#define WL_REAL arbor_real
#include "../bench/workloads.h"

typedef struct twin {
    arbor_scene *s[2];     /* 0: through the pose, 1: node by node */
    arbor_node *h[2];      /* every node, in creation order */
    uint64_t *version[2];  /* world versions at the last comparison */
    uint32_t count;        /* nodes in each scene */
    uint32_t extra_from;   /* nodes from here on are the mesh nodes added under joints */
} twin;

/* A shape of WORKLOADS.md (its generator; skeletons: k of them), then a mesh node with a box under every
   seventh joint, in both scenes. */
static twin twin_shape(const char *shape, uint32_t size) {
    wl_shape sh;
    assert_true(wl_shape_make(shape, size, 0, &sh));
    wl_workload w;
    assert_true(wl_generate(&sh, false, &w));
    twin t = { .extra_from = w.count, .count = w.count + (w.count + 6) / 7 };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(arbor_scene_create(NULL, &t.s[k]), ARBOR_OK);
        t.h[k] = calloc(t.count, sizeof *t.h[k]);
        t.version[k] = calloc(t.count, sizeof *t.version[k]);
        assert_non_null(t.s[k]);
        assert_non_null(t.h[k]);
        assert_non_null(t.version[k]);
        for (uint32_t i = 0; i < w.count; i++) {
            arbor_node_desc d = { .parent = w.parent[i] >= 0 ? t.h[k][w.parent[i]] : ARBOR_NONE };
            memcpy(d.translation, w.t + 3 * (size_t)i, sizeof d.translation);
            memcpy(d.rotation, w.r + 4 * (size_t)i, sizeof d.rotation);
            d.scale[0] = d.scale[1] = d.scale[2] = w.s[i];
            assert_int_equal(arbor_node_create(t.s[k], &d, &t.h[k][i]), ARBOR_OK);
        }
        for (uint32_t i = 0, e = w.count; i < w.count; i += 7, e++) {
            arbor_node_desc d = { .parent = t.h[k][i], .translation = {0.25f, 0, 0} };
            assert_int_equal(arbor_node_create(t.s[k], &d, &t.h[k][e]), ARBOR_OK);
            const arbor_real lo[3] = {-0.1f, -0.2f, -0.1f}, hi[3] = {0.1f, 0.2f, 0.3f};
            assert_int_equal(arbor_node_set_bounds(t.s[k], t.h[k][e], lo, hi), ARBOR_OK);
            assert_int_equal(arbor_node_set_mesh(t.s[k], t.h[k][e], (int32_t)(i % 3)), ARBOR_OK);
        }
        assert_int_equal(arbor_scene_track_changes(t.s[k], true), ARBOR_OK);
        arbor_scene_update(t.s[k]);
    }
    wl_free(&w);
    return t;
}

static twin twin_make(uint32_t skeletons) { return twin_shape("skeletons", skeletons); }

static void twin_free(twin *t) {
    for (int k = 0; k < 2; k++) {
        arbor_scene_destroy(t->s[k]);
        free(t->h[k]);
        free(t->version[k]);
    }
}

static void assert_same_bits(const void *a, const void *b, size_t size, const char *what, uint32_t i) {
    if (memcmp(a, b, size)) fail_msg("%s of node %u differs between the pose and per-node writes", what, i);
}

static int compare_handles(const void *a, const void *b) {
    uint64_t x = ((const arbor_node *)a)->id, y = ((const arbor_node *)b)->id;
    return (x > y) - (x < y);
}

/* Both scenes updated (on the executor when given), then compared. Handles are compared by
   their creation index (both scenes made the same nodes in the same order, so the same ids). */
static void twin_compare(twin *t, const arbor_executor *exec) {
    for (int k = 0; k < 2; k++) arbor_scene_update_parallel(t->s[k], exec);
    /* change lists: the same nodes */
    uint32_t n0 = arbor_scene_changed(t->s[0], NULL, 0), n1 = arbor_scene_changed(t->s[1], NULL, 0);
    assert_int_equal(n0, n1);
    arbor_node *c0 = malloc((n0 + 1) * sizeof *c0), *c1 = malloc((n1 + 1) * sizeof *c1);
    assert_non_null(c0);
    assert_non_null(c1);
    arbor_scene_changed(t->s[0], c0, n0);
    arbor_scene_changed(t->s[1], c1, n1);
    test_node_keys(c0, n0);
    test_node_keys(c1, n1);
    qsort(c0, n0, sizeof *c0, compare_handles);
    qsort(c1, n1, sizeof *c1, compare_handles);
    assert_memory_equal(c0, c1, n0 * sizeof *c0);
    free(c0);
    free(c1);
    /* culling, every node's values, instance buffers */
    const arbor_real planes[8] = {1, 0, 0, 2, 0, -1, 0, 3};
    uint32_t seen0 = 0, seen1 = 0;
    assert_int_equal(arbor_scene_cull(t->s[0], planes, 2, NULL, 0, &seen0, NULL), ARBOR_OK);
    assert_int_equal(arbor_scene_cull(t->s[1], planes, 2, NULL, 0, &seen1, NULL), ARBOR_OK);
    assert_int_equal(seen0, seen1);
    arbor_node *v0 = malloc((seen0 + 1) * sizeof *v0), *v1 = malloc((seen0 + 1) * sizeof *v1);
    assert_non_null(v0);
    assert_non_null(v1);
    assert_int_equal(arbor_scene_cull(t->s[0], planes, 2, v0, seen0, &seen0, NULL), ARBOR_OK);
    assert_int_equal(arbor_scene_cull(t->s[1], planes, 2, v1, seen0, &seen1, NULL), ARBOR_OK);
    assert_int_equal(seen0, seen1);
    test_node_keys(v0, seen0);
    test_node_keys(v1, seen1);
    assert_memory_equal(v0, v1, seen0 * sizeof *v0); /* every visible handle, in order */
    free(v0);
    free(v1);
    for (uint32_t i = 0; i < t->count; i++) {
        arbor_node a = t->h[0][i], b = t->h[1][i];
        assert_int_equal(arbor_node_alive(t->s[0], a), arbor_node_alive(t->s[1], b));
        if (!arbor_node_alive(t->s[0], a)) continue;
        arbor_trs ta, tb;
        arbor_real ma[16], mb[16];
        assert_int_equal(arbor_node_trs(t->s[0], a, &ta), ARBOR_OK);
        assert_int_equal(arbor_node_trs(t->s[1], b, &tb), ARBOR_OK);
        assert_same_bits(&ta, &tb, sizeof ta, "TRS", i);
        assert_int_equal(arbor_node_local_matrix(t->s[0], a, ma), ARBOR_OK);
        assert_int_equal(arbor_node_local_matrix(t->s[1], b, mb), ARBOR_OK);
        assert_same_bits(ma, mb, sizeof ma, "local matrix", i);
        assert_int_equal(arbor_node_world_matrix(t->s[0], a, ma), ARBOR_OK);
        assert_int_equal(arbor_node_world_matrix(t->s[1], b, mb), ARBOR_OK);
        assert_same_bits(ma, mb, sizeof ma, "world matrix", i);
        uint64_t va = arbor_node_world_version(t->s[0], a), vb = arbor_node_world_version(t->s[1], b);
        if ((va != t->version[0][i]) != (vb != t->version[1][i]))
            fail_msg("node %u: its world version changed in one scene only", i);
        t->version[0][i] = va;
        t->version[1][i] = vb;
        arbor_real lo[2][3], hi[2][3];
        arbor_result ra = arbor_node_subtree_bounds(t->s[0], a, lo[0], hi[0]), rb = arbor_node_subtree_bounds(t->s[1], b, lo[1], hi[1]);
        assert_int_equal(ra, rb);
        if (ra == ARBOR_OK) {
            assert_same_bits(lo[0], lo[1], sizeof lo[0], "subtree box min", i);
            assert_same_bits(hi[0], hi[1], sizeof hi[0], "subtree box max", i);
        }
    }
    uint32_t meshes = 0, batches[2];
    float *m[2];
    arbor_instance_batch b[2][8];
    arbor_node *live[2];
    for (int k = 0; k < 2; k++) {
        m[k] = malloc((t->count - t->extra_from) * 12 * sizeof *m[k]);
        live[k] = malloc((t->count - t->extra_from) * sizeof *live[k]);
        assert_non_null(m[k]);
        assert_non_null(live[k]);
        meshes = 0;
        for (uint32_t i = t->extra_from; i < t->count; i++)
            if (arbor_node_alive(t->s[k], t->h[k][i])) live[k][meshes++] = t->h[k][i];
        uint32_t matrix_count;
        assert_int_equal(arbor_scene_instance_batches(t->s[k], live[k], meshes, ARBOR_LAYOUT_MAT3X4, m[k], meshes, &matrix_count,
                                                      b[k], 8, &batches[k]),
                         ARBOR_OK);
        assert_true(matrix_count <= meshes); /* no instances here: at most a matrix a node */
        free(live[k]);
    }
    assert_int_equal(batches[0], batches[1]);
    for (uint32_t i = 0; i < batches[0]; i++) { /* field by field: the struct has padding */
        assert_int_equal(b[0][i].mesh, b[1][i].mesh);
        assert_int_equal(b[0][i].mirrored, b[1][i].mirrored);
        assert_int_equal(b[0][i].first, b[1][i].first);
        assert_int_equal(b[0][i].count, b[1][i].count);
    }
    assert_memory_equal(m[0], m[1], meshes * 12 * sizeof *m[0]);
    free(m[0]);
    free(m[1]);
}

/* New values for every entry: rotations of any length (some far from unit, which takes the
   scaled normalisation), translations and scales drawn too. */
static void draw_pose(test_rng *r, arbor_trs *trs, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
        arbor_real len = i % 97 == 5 ? (arbor_real)1e-25 : i % 89 == 3 ? (arbor_real)1e20 : (arbor_real)(0.5 + test_rng_uniform(r));
        for (int c = 0; c < 3; c++) trs[i].translation[c] = (arbor_real)test_rng_sym(r);
        for (int c = 0; c < 4; c++) trs[i].rotation[c] = (arbor_real)test_rng_sym(r) * len;
        arbor_real s = (arbor_real)(0.9 + 0.2 * test_rng_uniform(r));
        for (int c = 0; c < 3; c++) trs[i].scale[c] = s;
    }
}

/* One step: the pose applied in scene 0, the same values node by node in scene 1. */
static void twin_step(twin *t, arbor_pose *pose, const uint32_t *index, test_rng *r, const arbor_executor *exec) {
    uint32_t n = arbor_pose_count(pose);
    arbor_trs *trs = arbor_pose_trs(pose);
    draw_pose(r, trs, n);
    assert_int_equal(arbor_pose_apply(pose, exec), ARBOR_OK);
    for (uint32_t i = 0; i < n; i++) assert_int_equal(arbor_node_set_trs(t->s[1], t->h[1][index[i]], &trs[i]), ARBOR_OK);
    arbor_real m[16];
    for (uint32_t i = 0; i < n; i++) assert_int_equal(arbor_node_world_matrix(t->s[1], t->h[1][index[i]], m), ARBOR_OK);
    /* a read before the update of a mesh node below the pose sees the same in both */
    arbor_real a[16], b[16];
    assert_int_equal(arbor_node_world_matrix(t->s[0], t->h[0][t->extra_from + 3], a), ARBOR_OK);
    assert_int_equal(arbor_node_world_matrix(t->s[1], t->h[1][t->extra_from + 3], b), ARBOR_OK);
    assert_memory_equal(a, b, sizeof a);
    twin_compare(t, exec);
}

static int compare_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* A pose over the nodes of the given creation indices (in any order) of scene 0, whose entries
   are in storage order: here creation order (no slot was freed before), so index is sorted in
   place to give the entries' nodes. */
static arbor_pose *pose_of(twin *t, uint32_t *index, uint32_t n) {
    arbor_node *nodes = malloc((n + 1) * sizeof *nodes);
    assert_non_null(nodes);
    for (uint32_t i = 0; i < n; i++) nodes[i] = t->h[0][index[i]];
    arbor_pose *pose;
    assert_int_equal(arbor_pose_create(t->s[0], nodes, n, &pose), ARBOR_OK);
    assert_int_equal(arbor_pose_count(pose), n);
    qsort(index, n, sizeof *index, compare_u32);
    for (uint32_t i = 0; i < n; i++) nodes[i] = t->h[0][index[i]];
    assert_memory_equal(arbor_pose_nodes(pose), nodes, n * sizeof *nodes);
    for (uint32_t i = 0; i < n; i++) { /* entries start as the nodes' TRS */
        arbor_trs now;
        assert_int_equal(arbor_node_trs(t->s[0], nodes[i], &now), ARBOR_OK);
        assert_memory_equal(&now, &arbor_pose_trs(pose)[i], sizeof now);
    }
    free(nodes);
    return pose;
}

static void run_joints(const arbor_executor *exec, bool reversed) {
    twin t = twin_make(200); /* 11,800 joints: enough for the pool to take the pass */
    uint32_t n = t.extra_from, *index = malloc(n * sizeof *index);
    assert_non_null(index);
    for (uint32_t i = 0; i < n; i++) index[i] = reversed ? n - 1 - i : i;
    /* a few joints matrix-backed (unlocked): the pose makes them TRS-driven, as set_trs does */
    const arbor_real shear[16] = {1, 0, 0, 0, (arbor_real)0.5, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 11; i < n; i += 1001) assert_int_equal(arbor_node_set_local_matrix(t.s[k], t.h[k][i], shear, false), ARBOR_OK);
    arbor_pose *pose = pose_of(&t, index, n);
    test_rng r = test_rng_make(42);
    for (int step = 0; step < 3; step++) twin_step(&t, pose, index, &r, exec);
    /* the storage renumbered: skeleton 0 moved under a later one in both scenes; the step's
       writes (node by node in scene 0 too: the order is inverted) make the update renumber,
       and the pose finds its nodes again, no longer in storage order */
    for (int k = 0; k < 2; k++)
        assert_int_equal(arbor_node_set_parent(t.s[k], t.h[k][0], t.h[k][59 * 150 + 3], ARBOR_NONE, ARBOR_KEEP_LOCAL), ARBOR_OK);
    arbor_scene_stats before, after;
    arbor_scene_stats_get(t.s[0], &before);
    twin_step(&t, pose, index, &r, exec);
    arbor_scene_stats_get(t.s[0], &after);
    assert_true(after.relayouts > before.relayouts);
    for (int step = 0; step < 2; step++) twin_step(&t, pose, index, &r, exec);
    arbor_pose_destroy(pose);
    free(index);
    twin_free(&t);
}

static void test_joints_serial(void **state) { (void)state; run_joints(NULL, false); }
/* the nodes given in reverse: the entries are in storage order all the same */
static void test_joints_reversed(void **state) { (void)state; run_joints(NULL, true); }

static void test_joints_two_threads(void **state) {
    (void)state;
    arbor_pool *pool = NULL;
    assert_int_equal(arbor_pool_create(2, &pool), ARBOR_OK);
    arbor_executor exec = arbor_pool_executor(pool);
    run_joints(&exec, false);
    arbor_pool_destroy(pool);
}

/* Every node of the scene (nodes NULL): the update after the apply has nothing left. 300
   skeletons and their mesh nodes are over 20,000 nodes: a pose big enough to stream its TRS
   and versions (pose.c's POSE_STREAM_MIN), which smaller poses store plainly. */
static void test_every_node(void **state) {
    (void)state;
    twin t = twin_make(300);
    arbor_pose *pose;
    assert_int_equal(arbor_pose_create(t.s[0], NULL, 0, &pose), ARBOR_OK);
    assert_int_equal(arbor_pose_count(pose), t.count);
    uint32_t *index = malloc(t.count * sizeof *index);
    assert_non_null(index);
    /* ids are handed out in creation order, from 1: the same nodes in both scenes */
    for (uint32_t i = 0; i < t.count; i++) {
        index[i] = (uint32_t)arbor_pose_nodes(pose)[i].id - 1;
        assert_int_equal(t.h[0][index[i]].id, arbor_pose_nodes(pose)[i].id);
    }
    test_rng r = test_rng_make(7);
    draw_pose(&r, arbor_pose_trs(pose), t.count);
    assert_int_equal(arbor_pose_apply(pose, NULL), ARBOR_OK);
    arbor_scene_stats before, after;
    arbor_scene_stats_get(t.s[0], &before);
    arbor_scene_update(t.s[0]);
    arbor_scene_stats_get(t.s[0], &after);
    assert_int_equal(after.world_composed, before.world_composed);
    for (uint32_t i = 0; i < t.count; i++) assert_int_equal(arbor_node_set_trs(t.s[1], t.h[1][index[i]], &arbor_pose_trs(pose)[i]), ARBOR_OK);
    arbor_scene_update(t.s[1]);
    twin_compare(&t, NULL);
    twin_step(&t, pose, index, &r, NULL);
    arbor_pose_destroy(pose);
    free(index);
    twin_free(&t);
}

/* One big tree (WORKLOADS.md's random shape): no ranges to share out, so on a pool the locals
   are composed in parallel and multiplied in slot order afterwards. Then a move under a later
   node makes the update renumber the storage into tree order, where the tree is cut into ranges
   after the cuts' pose ancestors; the same with the tasks run backwards. */
static void one_tree(const arbor_executor *exec) {
    twin t = twin_shape("random", 12000);
    uint32_t n = t.extra_from, *index = malloc(n * sizeof *index);
    assert_non_null(index);
    for (uint32_t i = 0; i < n; i++) index[i] = i;
    arbor_pose *pose = pose_of(&t, index, n);
    test_rng r = test_rng_make(99);
    for (int step = 0; step < 3; step++) twin_step(&t, pose, index, &r, exec);
    uint32_t moved = 1, last = n - 1;
    while (arbor_node_set_parent(t.s[0], t.h[0][moved], t.h[0][last], ARBOR_NONE, ARBOR_KEEP_LOCAL) != ARBOR_OK) moved++;
    assert_int_equal(arbor_node_set_parent(t.s[1], t.h[1][moved], t.h[1][last], ARBOR_NONE, ARBOR_KEEP_LOCAL), ARBOR_OK);
    arbor_scene_stats before, after;
    arbor_scene_stats_get(t.s[0], &before);
    for (int step = 0; step < 3; step++) twin_step(&t, pose, index, &r, exec);
    arbor_scene_stats_get(t.s[0], &after);
    assert_int_equal(after.relayouts, before.relayouts + 1);
    arbor_pose_destroy(pose);
    free(index);
    twin_free(&t);
}

static void test_one_tree_two_threads(void **state) {
    (void)state;
    arbor_pool *pool = NULL;
    assert_int_equal(arbor_pool_create(2, &pool), ARBOR_OK);
    arbor_executor exec = arbor_pool_executor(pool);
    one_tree(&exec);
    arbor_pool_destroy(pool);
    arbor_executor backwards = {test_backwards_for, NULL};
    one_tree(&backwards);
}

/* A pose node below a node outside the pose below a pose node: the node-by-node way. */
static void test_mixed(void **state) {
    (void)state;
    twin t = twin_make(3);
    /* joint 8 moved below a new node below the mesh node under joint 7: 7 and 8 in the pose */
    uint32_t index[4] = {0, 1, 7, 8};
    for (int k = 0; k < 2; k++) {
        arbor_node_desc d = { .parent = t.h[k][t.extra_from + 1] };
        arbor_node made;
        assert_int_equal(arbor_node_create(t.s[k], &d, &made), ARBOR_OK);
        assert_int_equal(arbor_node_set_parent(t.s[k], t.h[k][8], made, ARBOR_NONE, ARBOR_KEEP_LOCAL), ARBOR_OK);
    }
    arbor_pose *pose = pose_of(&t, index, 4);
    test_rng r = test_rng_make(3);
    for (int step = 0; step < 3; step++) twin_step(&t, pose, index, &r, NULL);
    arbor_pose_destroy(pose);
    twin_free(&t);
}

/* The journal: an edit, the pose (not recorded, as per-node writes are not), undo, redo; a
   pose node destroyed through the journal refuses the pose until undo brings it back. */
static void test_undo(void **state) {
    (void)state;
    twin t = twin_make(20);
    arbor_journal *j[2];
    for (int k = 0; k < 2; k++) assert_int_equal(arbor_journal_create(t.s[k], NULL, &j[k]), ARBOR_OK);
    uint32_t n = t.extra_from, *index = malloc(n * sizeof *index);
    assert_non_null(index);
    for (uint32_t i = 0; i < n; i++) index[i] = i;
    arbor_pose *pose = pose_of(&t, index, n);
    test_rng r = test_rng_make(11);
    for (int k = 0; k < 2; k++) assert_int_equal(arbor_journal_set_rotation(j[k], t.h[k][5], 0, 1, 0, 1), ARBOR_OK);
    twin_step(&t, pose, index, &r, NULL);
    for (int k = 0; k < 2; k++) assert_int_equal(arbor_journal_undo(j[k]), ARBOR_OK);
    twin_compare(&t, NULL);
    for (int k = 0; k < 2; k++) assert_int_equal(arbor_journal_redo(j[k]), ARBOR_OK);
    twin_compare(&t, NULL);
    twin_step(&t, pose, index, &r, NULL);
    /* skeleton 2 destroyed (held by the journal) */
    for (int k = 0; k < 2; k++) assert_int_equal(arbor_journal_destroy_node(j[k], t.h[k][59 * 2]), ARBOR_OK);
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_pose_apply", arbor_pose_apply(pose, NULL));
    twin_compare(&t, NULL);
    for (int k = 0; k < 2; k++) assert_int_equal(arbor_journal_undo(j[k]), ARBOR_OK);
    twin_compare(&t, NULL);
    twin_step(&t, pose, index, &r, NULL);
    arbor_pose_destroy(pose);
    free(index);
    twin_free(&t);
    for (int k = 0; k < 2; k++) arbor_journal_destroy(j[k]); /* after their scenes */
}

/* Refused values change nothing: scene 0 is compared with scene 1, which took no write. */
static void test_refusals(void **state) {
    (void)state;
    twin t = twin_make(150);
    uint32_t n = t.extra_from, *index = malloc(n * sizeof *index);
    assert_non_null(index);
    for (uint32_t i = 0; i < n; i++) index[i] = i;
    arbor_pose *pose = pose_of(&t, index, n);
    arbor_pool *pool = NULL;
    assert_int_equal(arbor_pool_create(2, &pool), ARBOR_OK);
    arbor_executor exec = arbor_pool_executor(pool);
    const arbor_executor *execs[2] = {NULL, &exec};
    twin_compare(&t, NULL);
    for (int e = 0; e < 2; e++) {
        test_rng r = test_rng_make(5);
        arbor_trs *trs = arbor_pose_trs(pose);
        draw_pose(&r, trs, n);
        trs[n - 2].scale[1] = (arbor_real)NAN;
        ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_pose_apply", arbor_pose_apply(pose, execs[e]));
        assert_non_null(strstr(arbor_last_error(), "pose entry 8848"));
        trs[n - 2].scale[1] = 1;
        trs[9].translation[0] = (arbor_real)INFINITY;
        ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_pose_apply", arbor_pose_apply(pose, execs[e]));
        trs[9].translation[0] = 0;
        memset(trs[4000].rotation, 0, sizeof trs[4000].rotation);
        ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_pose_apply", arbor_pose_apply(pose, execs[e]));
        memcpy(trs[4000].rotation, trs[4001].rotation, sizeof trs[4000].rotation);
        /* every value of the first entries of two check blocks in turn (each lane, register
           and tail of the check's loops): a NaN or infinity, a zero rotation */
        for (uint32_t k = 0; k < 80; k++) {
            uint32_t at = k < 40 ? k : 300 + k;
            arbor_real *v = trs[at].translation;
            for (int c = 0; c < 10; c++) {
                arbor_real kept = v[c];
                v[c] = (arbor_real)(c % 2 ? -INFINITY : NAN);
                ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_pose_apply", arbor_pose_apply(pose, execs[e]));
                v[c] = kept;
            }
            arbor_real q[4];
            memcpy(q, trs[at].rotation, sizeof q);
            memset(trs[at].rotation, 0, sizeof q);
            ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_pose_apply", arbor_pose_apply(pose, execs[e]));
            trs[at].rotation[k % 4] = (arbor_real)-0.0; /* a negative zero is zero too */
            ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_pose_apply", arbor_pose_apply(pose, execs[e]));
            memcpy(trs[at].rotation, q, sizeof q);
        }
        assert_int_equal(arbor_pose_read(pose), ARBOR_OK); /* back to the scene's values */
        twin_compare(&t, NULL);
    }
    const arbor_real m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int k = 0; k < 2; k++) assert_int_equal(arbor_node_set_local_matrix(t.s[k], t.h[k][77], m, true), ARBOR_OK);
    ASSERT_REFUSED(ARBOR_ERR_LOCKED, "arbor_pose_apply", arbor_pose_apply(pose, NULL));
    twin_compare(&t, NULL);
    /* an empty pose */
    arbor_pose *empty;
    assert_int_equal(arbor_pose_create(t.s[0], t.h[0], 0, &empty), ARBOR_OK);
    assert_int_equal(arbor_pose_count(empty), 0);
    assert_int_equal(arbor_pose_apply(empty, &exec), ARBOR_OK);
    arbor_pose_destroy(empty);
    twin_compare(&t, NULL);
    /* creation: a node twice, a dead one */
    arbor_node twice[2] = {t.h[0][3], t.h[0][3]};
    arbor_pose *bad = NULL;
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_pose_create", arbor_pose_create(t.s[0], twice, 2, &bad));
    assert_null(bad);
    arbor_node gone = t.h[0][t.extra_from];
    assert_int_equal(arbor_node_destroy(t.s[0], gone), ARBOR_OK);
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_pose_create", arbor_pose_create(t.s[0], &gone, 1, &bad));
    arbor_pool_destroy(pool);
    arbor_pose_destroy(pose);
    free(index);
    twin_free(&t);
}

/* Players through a pose: the entries of the driven nodes are what arbor_player_sample gives,
   and the scene what set_trs of the entries gives (scene 1 takes them node by node). */
static void test_players(void **state) {
    (void)state;
    twin t = twin_make(4);
    static const float times[3] = {0, 0.5f, 1};
    static const float turns[12] = {0, 0, 0, 1, 0, (float)0.38268343, 0, (float)0.92387953, (float)0.6, 0, 0, (float)0.8};
    static const float moves[9] = {0, 0, 0, 1, 2, 3, -1, 0.5f, 0};
    static const float morph[6] = {0, 1, 0.5f, 0.5f, 1, 0};
    arbor_channel_desc ch[7];
    for (uint32_t c = 0; c < 5; c++)
        ch[c] = (arbor_channel_desc){ .target = 1 + 3 * c, .path = ARBOR_ANIM_ROTATION, .key_count = 3, .times = times, .values = turns };
    ch[5] = (arbor_channel_desc){ .target = 0, .path = ARBOR_ANIM_TRANSLATION, .key_count = 3, .times = times, .values = moves };
    ch[6] = (arbor_channel_desc){ .target = 2, .path = ARBOR_ANIM_WEIGHTS, .key_count = 3, .times = times, .values = morph, .width = 2 };
    arbor_clip *clip;
    assert_int_equal(arbor_clip_create(&(arbor_clip_desc){ .channels = ch, .channel_count = 7, .rig_size = 59 }, &clip), ARBOR_OK);
    arbor_player *players[2][3];
    for (int k = 0; k < 2; k++)
        for (uint32_t c = 0; c < 3; c++) /* skeletons 0, 1, 3 */
            assert_int_equal(arbor_player_create(clip, t.s[k], t.h[k] + 59 * (c == 2 ? 3 : c), 59, &players[k][c]), ARBOR_OK);
    uint32_t n = t.extra_from, *index = malloc(n * sizeof *index);
    assert_non_null(index);
    for (uint32_t i = 0; i < n; i++) index[i] = i;
    arbor_pose *pose = pose_of(&t, index, n);
    double clock[3] = {0.1, 0.7, 1.3};
    for (int frame = 0; frame < 4; frame++) {
        for (int c = 0; c < 3; c++) clock[c] += 1.0 / 30;
        assert_int_equal(arbor_players_apply_pose(players[0], clock, 3, ARBOR_WRAP_LOOP, pose, NULL), ARBOR_OK);
        const arbor_trs *entries = arbor_pose_trs(pose);
        for (uint32_t c = 0; c < 3; c++) {
            arbor_trs sampled[59];
            memcpy(sampled, entries + 59 * (c == 2 ? 3 : c), sizeof sampled);
            assert_int_equal(arbor_player_sample(players[1][c], clock[c], ARBOR_WRAP_LOOP, sampled, 59), ARBOR_OK);
            assert_memory_equal(sampled, entries + 59 * (c == 2 ? 3 : c), sizeof sampled);
        }
        for (uint32_t i = 0; i < n; i++) assert_int_equal(arbor_node_set_trs(t.s[1], t.h[1][i], &entries[i]), ARBOR_OK);
        arbor_real m[16];
        for (uint32_t i = 0; i < n; i++) assert_int_equal(arbor_node_world_matrix(t.s[1], t.h[1][i], m), ARBOR_OK);
        twin_compare(&t, NULL);
    }
    /* a driven node outside the pose: refused */
    arbor_pose *small;
    assert_int_equal(arbor_pose_create(t.s[0], t.h[0], 59, &small), ARBOR_OK);
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_players_apply_pose",
                   arbor_players_apply_pose(players[0], clock, 3, ARBOR_WRAP_LOOP, small, NULL));
    arbor_pose_destroy(small);
    /* refused (a NaN in an entry no player drives; a driven node locked, then destroyed, since)
       at a later time, whose samples differ from the entries: the scene, every entry and the
       players' morph weights as they were, bit for bit */
    for (int c = 0; c < 3; c++) clock[c] += 0.25;
    arbor_trs *entries = arbor_pose_trs(pose), *before = malloc(n * sizeof *before);
    assert_non_null(before);
    arbor_real weights_before[2];
    memcpy(weights_before, arbor_player_weights(players[0][0], 2, NULL), sizeof weights_before);
    const arbor_real eye[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int step = 0; step < 3; step++) {
        static const arbor_result why[3] = {ARBOR_ERR_NONFINITE, ARBOR_ERR_LOCKED, ARBOR_ERR_DEAD_NODE};
        if (step == 0) entries[59 * 2 + 5].scale[1] = (arbor_real)NAN; /* skeleton 2 has no player */
        if (step == 1) {
            entries[59 * 2 + 5].scale[1] = 1;
            for (int k = 0; k < 2; k++) assert_int_equal(arbor_node_set_local_matrix(t.s[k], t.h[k][4], eye, true), ARBOR_OK);
        }
        if (step == 2)
            for (int k = 0; k < 2; k++) assert_int_equal(arbor_node_destroy(t.s[k], t.h[k][4]), ARBOR_OK);
        memcpy(before, entries, n * sizeof *before);
        ASSERT_REFUSED(why[step], NULL, arbor_players_apply_pose(players[0], clock, 3, ARBOR_WRAP_LOOP, pose, NULL));
        assert_memory_equal(entries, before, n * sizeof *before);
        assert_memory_equal(arbor_player_weights(players[0][0], 2, NULL), weights_before, sizeof weights_before);
        twin_compare(&t, NULL);
    }
    free(before);
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 3; c++) arbor_player_destroy(players[k][c]);
    arbor_clip_destroy(clip);
    arbor_pose_destroy(pose);
    free(index);
    twin_free(&t);
}

/* Players through a pose on two threads (sampled side by side into their own lanes) and on one:
   both exchanged with the entries in the players' order, the same bits, and a later player
   driving the same nodes wins on both, as a per-node write after another would. */
static void test_players_on_threads(void **state) {
    (void)state;
    enum { BONES = 59, SKELETONS = 80, PLAYERS = SKELETONS + 1, KEYS = 5 };
    twin t = twin_make(SKELETONS);
    test_rng g = test_rng_make(3);
    static const float times[KEYS] = {0, 0.2f, 0.5f, 0.7f, 1};
    static float turns[BONES][KEYS][4];
    arbor_channel_desc ch[BONES];
    for (uint32_t b = 0; b < BONES; b++) {
        for (int k = 0; k < KEYS; k++) {
            double q[4];
            test_rng_unit_quat(&g, q);
            for (int e = 0; e < 4; e++) turns[b][k][e] = (float)q[e];
        }
        ch[b] = (arbor_channel_desc){ .target = b, .path = ARBOR_ANIM_ROTATION, .key_count = KEYS, .times = times,
                                      .values = &turns[b][0][0],
                                      .interpolation = b % 13 == 5 ? ARBOR_INTERPOLATION_STEP : ARBOR_INTERPOLATION_LINEAR };
    }
    arbor_clip *clip;
    assert_int_equal(arbor_clip_create(&(arbor_clip_desc){ .channels = ch, .channel_count = BONES }, &clip), ARBOR_OK);
    arbor_player *players[2][PLAYERS];
    for (int k = 0; k < 2; k++)
        for (uint32_t c = 0; c < PLAYERS; c++) /* the last one on skeleton 0 again */
            assert_int_equal(arbor_player_create(clip, t.s[k], t.h[k] + BONES * (c % SKELETONS), BONES, &players[k][c]), ARBOR_OK);
    arbor_pool *pool;
    assert_int_equal(arbor_pool_create(2, &pool), ARBOR_OK);
    arbor_executor exec = arbor_pool_executor(pool);
    arbor_pose *pose[2];
    for (int k = 0; k < 2; k++) assert_int_equal(arbor_pose_create(t.s[k], NULL, 0, &pose[k]), ARBOR_OK);
    double clock[PLAYERS];
    for (uint32_t c = 0; c < PLAYERS; c++) clock[c] = 0.013 * c;
    for (int frame = 0; frame < 3; frame++) {
        for (uint32_t c = 0; c < PLAYERS; c++) clock[c] += 1.0 / 30;
        assert_int_equal(arbor_players_apply_pose(players[0], clock, PLAYERS, ARBOR_WRAP_LOOP, pose[0], &exec), ARBOR_OK);
        assert_int_equal(arbor_players_apply_pose(players[1], clock, PLAYERS, ARBOR_WRAP_LOOP, pose[1], NULL), ARBOR_OK);
        assert_memory_equal(arbor_pose_trs(pose[0]), arbor_pose_trs(pose[1]), arbor_pose_count(pose[0]) * sizeof(arbor_trs));
        /* skeleton 0's entries hold the last player's sample */
        arbor_trs sampled[BONES];
        assert_int_equal(arbor_player_sample(players[1][PLAYERS - 1], clock[PLAYERS - 1], ARBOR_WRAP_LOOP, sampled, BONES), ARBOR_OK);
        uint32_t found = 0;
        for (uint32_t i = 0; i < arbor_pose_count(pose[1]); i++)
            for (uint32_t b = 0; b < BONES; b++)
                if (arbor_node_equal(arbor_pose_nodes(pose[1])[i], t.h[1][b])) {
                    assert_memory_equal(arbor_pose_trs(pose[1])[i].rotation, sampled[b].rotation, sizeof sampled[b].rotation);
                    found++;
                }
        assert_int_equal(found, BONES);
        twin_compare(&t, NULL);
    }
    for (int k = 0; k < 2; k++) {
        arbor_pose_destroy(pose[k]);
        for (uint32_t c = 0; c < PLAYERS; c++) arbor_player_destroy(players[k][c]);
    }
    arbor_pool_destroy(pool);
    arbor_clip_destroy(clip);
    twin_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_joints_serial),
        cmocka_unit_test(test_joints_reversed),
        cmocka_unit_test(test_joints_two_threads),
        cmocka_unit_test(test_every_node),
        cmocka_unit_test(test_one_tree_two_threads),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_undo),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_players),
        cmocka_unit_test(test_players_on_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
