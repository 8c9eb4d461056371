/*
 * The parallel update and the bulk writes (include/arbor/parallel.h): a parallel update gives
 * bitwise the matrices of a serial one and of lazy reads, for every shape of WORKLOADS.md and
 * any number of threads or any executor order; it composes exactly what a serial update does;
 * bulk writes refuse bad input with nothing written.
 */
#include <stdatomic.h>

#include "test_util.h"

typedef enum { SKELETONS, RANDOM, CHAINS } shape;

/* The 59-node skeleton of WORKLOADS.md: parent of each bone, -1 for the hips. */
static const int skeleton_parent[59] = {
    -1, 0, 1, 2, 3, 4, 5, 6, 7, 5, 9, 10, 11, 12, 13, 14, 12, 16, 17, 12, 19, 20, 12, 22, 23, 12, 25, 26, 5, 28,
    29, 30, 31, 32, 33, 31, 35, 36, 31, 38, 39, 31, 41, 42, 31, 44, 45, 0, 47, 48, 49, 50, 51, 0, 53, 54, 55, 56, 57};

/* Builds about n nodes of the shape (generated as WORKLOADS.md does, smaller). */
static arbor_node *build(arbor_scene *s, shape kind, uint32_t n, test_rng *r) {
    arbor_node *h = malloc(n * sizeof *h);
    assert_non_null(h);
    for (uint32_t i = 0; i < n; i++) {
        arbor_node parent = ARBOR_NONE;
        if (kind == SKELETONS && skeleton_parent[i % 59] >= 0) parent = h[i - i % 59 + (uint32_t)skeleton_parent[i % 59]];
        if (kind == RANDOM && i > 0) parent = h[test_rng_below(r, i)];
        if (kind == CHAINS && i % 200 != 0) parent = h[i - 1];
        arbor_node_desc d = { .parent = parent };
        for (int k = 0; k < 3; k++) d.translation[k] = (arbor_real)test_rng_sym(r);
        test_rng_quat(r, d.rotation);
        arbor_real sc = (arbor_real)(0.9 + 0.2 * test_rng_uniform(r));
        d.scale[0] = d.scale[1] = d.scale[2] = sc;
        assert_int_equal(arbor_node_create(s, &d, &h[i]), ARBOR_OK);
    }
    return h;
}

/* A serial executor that runs the tasks backwards: results must not depend on task order. */
static void backwards_for(void *user, uint32_t count, arbor_task_fn fn, void *task_user) {
    (void)user;
    for (uint32_t i = count; i-- > 0;) fn(task_user, i);
}

static void check_same_worlds(arbor_scene *a, const arbor_node *ha, arbor_scene *b, const arbor_node *hb, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        arbor_real wa[16], wb[16];
        assert_int_equal(arbor_node_world_matrix(a, ha[i], wa), ARBOR_OK);
        assert_int_equal(arbor_node_world_matrix(b, hb[i], wb), ARBOR_OK);
        if (memcmp(wa, wb, sizeof wa) != 0) fail_msg("node %u differs between the serial and parallel scenes", i);
    }
}

/* Same scene twice; edits; one updates serially, the other through the executor. */
static void run_shape(shape kind, const arbor_executor *executor) {
    const uint32_t n = 30000;
    test_rng ra = test_rng_make(0x5EED), rb = test_rng_make(0x5EED), edits = test_rng_make(7);
    arbor_scene *a = arbor_scene_create(NULL), *b = arbor_scene_create(NULL);
    arbor_node *ha = build(a, kind, n, &ra), *hb = build(b, kind, n, &rb);
    arbor_scene_update(a);
    arbor_scene_update_parallel(b, executor);
    check_same_worlds(a, ha, b, hb, n);
    for (int frame = 0; frame < 3; frame++) {
        /* most nodes rotated (frame 0), a few subtrees moved (frame 1), a lazy read between (2) */
        uint32_t step = frame == 0 ? 1 : 97;
        for (uint32_t i = frame; i < n; i += step) {
            arbor_real q[4];
            test_rng_quat(&edits, q);
            assert_int_equal(arbor_node_set_rotation(a, ha[i], q[0], q[1], q[2], q[3]), ARBOR_OK);
            assert_int_equal(arbor_node_set_rotation(b, hb[i], q[0], q[1], q[2], q[3]), ARBOR_OK);
        }
        if (frame == 2) {
            arbor_real w[16];
            assert_int_equal(arbor_node_world_matrix(b, hb[n - 1], w), ARBOR_OK);
        }
        arbor_stats sa, sb;
        arbor_scene_reset_stats(a);
        arbor_scene_reset_stats(b);
        arbor_scene_update(a);
        arbor_scene_update_parallel(b, executor);
        arbor_scene_stats(a, &sa);
        arbor_scene_stats(b, &sb);
        if (frame != 2) { /* the lazy read moved part of b's work before its update */
            assert_int_equal(sa.world_composed, sb.world_composed);
            assert_int_equal(sa.local_composed, sb.local_composed);
        }
        check_same_worlds(a, ha, b, hb, n);
        /* after the update nothing is left to compose */
        arbor_scene_reset_stats(b);
        arbor_scene_update_parallel(b, executor);
        arbor_scene_stats(b, &sb);
        assert_int_equal(sb.world_composed, 0);
    }
    free(ha);
    free(hb);
    arbor_scene_destroy(a);
    arbor_scene_destroy(b);
}

static void test_parallel_equals_serial(void **state) {
    (void)state;
    for (uint32_t threads = 2; threads <= 4; threads++) {
        arbor_pool *pool = arbor_pool_create(threads);
        assert_non_null(pool);
        assert_int_equal(arbor_pool_threads(pool), threads);
        arbor_executor ex = arbor_pool_executor(pool);
        run_shape(SKELETONS, &ex);
        run_shape(RANDOM, &ex);
        run_shape(CHAINS, &ex);
        arbor_pool_destroy(pool);
    }
}

static void test_any_task_order(void **state) {
    (void)state;
    arbor_executor ex = { backwards_for, NULL };
    run_shape(RANDOM, &ex);
    run_shape(SKELETONS, &ex);
}

/* Versions stay unique when tasks take them in blocks. */
static void test_parallel_versions_unique(void **state) {
    (void)state;
    const uint32_t n = 20000;
    test_rng r = test_rng_make(3);
    arbor_scene *s = arbor_scene_create(NULL);
    arbor_node *h = build(s, RANDOM, n, &r);
    arbor_pool *pool = arbor_pool_create(2);
    arbor_executor ex = arbor_pool_executor(pool);
    arbor_scene_update_parallel(s, &ex);
    uint64_t *v = malloc(n * sizeof *v);
    for (uint32_t i = 0; i < n; i++) v[i] = arbor_node_world_version(s, h[i]);
    for (uint32_t i = 0; i < n; i++) assert_true(v[i] != 0);
    /* sorted, no two equal */
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    for (uint32_t i = 1; i < n; i++) assert_true(v[i] != v[i - 1]);
    /* a root moves: every version changes */
    uint64_t before = arbor_node_world_version(s, h[n - 1]);
    assert_int_equal(arbor_node_set_translation(s, h[0], 5, 0, 0), ARBOR_OK);
    arbor_scene_update_parallel(s, &ex);
    assert_true(arbor_node_world_version(s, h[n - 1]) != before);
    free(v);
    free(h);
    arbor_pool_destroy(pool);
    arbor_scene_destroy(s);
}

static void count_hit(void *user, uint32_t index) { atomic_fetch_add((_Atomic int *)user + index, 1); }

/* The pool runs each index exactly once, round after round. */
static void test_pool_runs_every_task_once(void **state) {
    (void)state;
    arbor_pool *pool = arbor_pool_create(3);
    assert_non_null(pool);
    arbor_executor ex = arbor_pool_executor(pool);
    static _Atomic int hits[1000];
    for (int round = 0; round < 50; round++) {
        uint32_t count = (uint32_t)(round * 20 % 1000);
        for (int i = 0; i < 1000; i++) atomic_store(&hits[i], 0);
        ex.parallel_for(ex.user, count, count_hit, hits);
        for (uint32_t i = 0; i < 1000; i++) assert_int_equal(atomic_load(&hits[i]), i < count ? 1 : 0);
    }
    arbor_pool_destroy(pool);
}

/* ---- bulk writes ---- */

static void test_bulk_writes(void **state) {
    (void)state;
    arbor_scene *s = arbor_scene_create(NULL);
    arbor_node n[3];
    for (int i = 0; i < 3; i++) assert_int_equal(arbor_node_create(s, &(arbor_node_desc){0}, &n[i]), ARBOR_OK);
    const arbor_real t[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    assert_int_equal(arbor_scene_set_translations(s, n, t, 3), ARBOR_OK);
    const arbor_real q[12] = {0, 0, 0, 2, 0, 2, 0, 0, 1, 1, 1, 1};
    assert_int_equal(arbor_scene_set_rotations(s, n, q, 3), ARBOR_OK);
    arbor_trs trs;
    assert_int_equal(arbor_node_get_trs(s, n[2], &trs), ARBOR_OK);
    ASSERT_NEAR(trs.translation[0], 7, 0);
    ASSERT_NEAR(trs.rotation[0], 0.5, TEST_EPS);
    assert_int_equal(arbor_node_get_trs(s, n[1], &trs), ARBOR_OK);
    ASSERT_NEAR(trs.rotation[1], 1, 0);
    arbor_real w[16];
    assert_int_equal(arbor_node_world_matrix(s, n[1], w), ARBOR_OK);
    ASSERT_NEAR(w[12], 4, 0);

    /* refusals write nothing, even to the nodes before the bad one */
    const arbor_real bad_q[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0};
    assert_int_equal(arbor_scene_set_rotations(s, n, bad_q, 3), ARBOR_ERR_INVALID_ARGUMENT);
    const arbor_real nan_t[9] = {0, 0, 0, 0, 0, 0, 0, NAN, 0};
    assert_int_equal(arbor_scene_set_translations(s, n, nan_t, 3), ARBOR_ERR_NONFINITE);
    assert_int_equal(arbor_node_get_trs(s, n[0], &trs), ARBOR_OK);
    ASSERT_NEAR(trs.translation[0], 1, 0);
    ASSERT_NEAR(trs.rotation[3], 1, 0);
    const arbor_real m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    assert_int_equal(arbor_node_set_local_matrix(s, n[2], m, true), ARBOR_OK);
    const arbor_real ones[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
    assert_int_equal(arbor_scene_set_scales(s, n, ones, 3), ARBOR_ERR_LOCKED);
    assert_int_equal(arbor_node_get_trs(s, n[0], &trs), ARBOR_OK);
    ASSERT_NEAR(trs.scale[0], 1, 0);
    arbor_node dead = n[1];
    assert_int_equal(arbor_node_destroy(s, dead), ARBOR_OK);
    assert_int_equal(arbor_scene_set_scales(s, n, ones, 2), ARBOR_ERR_DEAD_NODE);
    arbor_node with_none[2] = {n[0], ARBOR_NONE};
    assert_int_equal(arbor_scene_set_scales(s, with_none, ones, 2), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_node_get_trs(s, n[0], &trs), ARBOR_OK);
    ASSERT_NEAR(trs.scale[0], 1, 0);
    assert_int_equal(arbor_scene_set_scales(s, n, ones, 1), ARBOR_OK);
    assert_int_equal(arbor_node_get_trs(s, n[0], &trs), ARBOR_OK);
    ASSERT_NEAR(trs.scale[0], 2, 0);
    assert_int_equal(arbor_scene_set_scales(s, NULL, NULL, 0), ARBOR_OK);
    arbor_scene_destroy(s);
}

/* ---- storage order ---- */

/* The update sweeps the slots in order while parents come first there, and follows the links
   once a reparent under a later node breaks that; invalidation likewise. Every path gives the
   matrices lazy reads give, composing each out-of-date node once. */
/* After b's update: b's matrices are a's (read lazily), and reading them computes nothing. */
static void check_updated(arbor_scene *a, const arbor_node *ha, arbor_scene *b, const arbor_node *hb, uint32_t n) {
    arbor_stats st;
    arbor_scene_reset_stats(b);
    check_same_worlds(a, ha, b, hb, n);
    arbor_scene_stats(b, &st);
    assert_int_equal(st.world_composed, 0);
}

/* Both scenes were edited alike, so their nodes have the same ids: the links must agree. */
static void check_same_structure(arbor_scene *a, const arbor_node *ha, arbor_scene *b, const arbor_node *hb, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(ha[i].id, hb[i].id);
        assert_int_equal(arbor_node_parent(a, ha[i]).id, arbor_node_parent(b, hb[i]).id);
        assert_int_equal(arbor_node_first_child(a, ha[i]).id, arbor_node_first_child(b, hb[i]).id);
        assert_int_equal(arbor_node_last_child(a, ha[i]).id, arbor_node_last_child(b, hb[i]).id);
        assert_int_equal(arbor_node_next_sibling(a, ha[i]).id, arbor_node_next_sibling(b, hb[i]).id);
        assert_int_equal(arbor_node_prev_sibling(a, ha[i]).id, arbor_node_prev_sibling(b, hb[i]).id);
        assert_int_equal(arbor_node_depth(a, ha[i]), arbor_node_depth(b, hb[i]));
        assert_string_equal(arbor_node_name(a, ha[i]) ? arbor_node_name(a, ha[i]) : "",
                            arbor_node_name(b, hb[i]) ? arbor_node_name(b, hb[i]) : "");
        assert_ptr_equal(arbor_node_user(a, ha[i]), arbor_node_user(b, hb[i]));
    }
    assert_int_equal(arbor_scene_first_root(a).id, arbor_scene_first_root(b).id);
    assert_int_equal(arbor_scene_last_root(a).id, arbor_scene_last_root(b).id);
}

/* Replaces up to `count` late leaves by new nodes under other late nodes, in both scenes: the
   new nodes take the freed storage, before their parents'. */
static void replace_leaves(arbor_scene *a, arbor_node *ha, arbor_scene *b, arbor_node *hb, uint32_t n, uint32_t count) {
    for (uint32_t i = n / 2, done = 0; i < n && done < count; i += 101) {
        if (arbor_node_child_count(a, ha[i]) != 0) continue;
        arbor_node parent_a = ha[n - 1 - done], parent_b = hb[n - 1 - done];
        if (parent_a.id == ha[i].id) continue;
        assert_int_equal(arbor_node_destroy(a, ha[i]), ARBOR_OK);
        assert_int_equal(arbor_node_destroy(b, hb[i]), ARBOR_OK);
        static int marker;
        arbor_node_desc d = { .translation = {1, 2, 3}, .parent = parent_a, .name = "replacement", .user = &marker };
        assert_int_equal(arbor_node_create(a, &d, &ha[i]), ARBOR_OK);
        d.parent = parent_b;
        assert_int_equal(arbor_node_create(b, &d, &hb[i]), ARBOR_OK);
        done++;
    }
}

static void test_any_storage_order(void **state) {
    (void)state;
    const uint32_t n = 20000, moved = 64;
    test_rng ra = test_rng_make(0x5EED), rb = test_rng_make(0x5EED), edits = test_rng_make(11);
    arbor_scene *lazy = arbor_scene_create(NULL), *batch = arbor_scene_create(NULL);
    arbor_node *hl = build(lazy, RANDOM, n, &ra), *hb = build(batch, RANDOM, n, &rb);
    arbor_real *q = malloc((size_t)n * 4 * sizeof *q);
    assert_non_null(q);
    for (int frame = 0; frame < 8; frame++) {
        arbor_scene_reset_stats(batch);
        if (frame == 6) replace_leaves(lazy, hl, batch, hb, n, 40); /* storage reused out of order */
        /* frame 2 moves early nodes under late ones (slot order no longer parents-first);
           frame 4 moves them back under the root (in order again) */
        for (uint32_t k = 0; (frame == 2 || frame == 4) && k < moved; k++) {
            uint32_t child = 1 + k * 7, parent = frame == 2 ? n - 1 - k : 0;
            arbor_result rl = arbor_node_set_parent(lazy, hl[child], hl[parent], ARBOR_NONE, ARBOR_KEEP_LOCAL);
            arbor_result rb2 = arbor_node_set_parent(batch, hb[child], hb[parent], ARBOR_NONE, ARBOR_KEEP_LOCAL);
            assert_int_equal(rl, rb2); /* a ring is refused in both */
        }
        /* even frames: every node rotated (bulk); odd frames: the root alone */
        uint32_t count = frame % 2 ? 1 : n;
        for (uint32_t i = 0; i < count; i++) test_rng_quat(&edits, q + 4 * i);
        assert_int_equal(arbor_scene_set_rotations(lazy, hl, q, count), ARBOR_OK);
        assert_int_equal(arbor_scene_set_rotations(batch, hb, q, count), ARBOR_OK);
        arbor_stats st;
        arbor_scene_update(batch);
        arbor_scene_stats(batch, &st);
        assert_int_equal(st.invalidated, frame == 0 ? 0 : n); /* built out of date: nothing to mark */
        assert_int_equal(st.world_composed, n);
        assert_int_equal(st.local_composed, count);
        /* a full update of a scene out of tree order puts the storage back in order first */
        assert_int_equal(st.relayouts, frame == 2 || frame == 6 ? 1 : 0);
        check_same_structure(lazy, hl, batch, hb, n);
        check_updated(lazy, hl, batch, hb, n);
        arbor_scene_reset_stats(batch);
        arbor_scene_update(batch);
        arbor_scene_stats(batch, &st);
        assert_int_equal(st.world_composed, 0);
    }
    /* Half the nodes written at once after lazy reads left resolved chains (PARTIAL) and
       single writes left dirty subtrees: the bulk write's one pass in slot order meets all of
       them. */
    arbor_node *half_l = malloc((size_t)n / 2 * sizeof *half_l), *half_b = malloc((size_t)n / 2 * sizeof *half_b);
    assert_non_null(half_l);
    assert_non_null(half_b);
    for (uint32_t i = 0; i < n / 2; i++) {
        half_l[i] = hl[2 * i + 1];
        half_b[i] = hb[2 * i + 1];
        test_rng_quat(&edits, q + 4 * i);
    }
    for (uint32_t i = 0; i < n; i += 997) {
        arbor_real w[16];
        assert_int_equal(arbor_node_world_matrix(batch, hb[i], w), ARBOR_OK);
        uint32_t k = n / 2 + (i * 7) % (n / 2); /* late nodes: small subtrees, never the root */
        assert_int_equal(arbor_node_set_scale(lazy, hl[k], 2, 2, 2), ARBOR_OK);
        assert_int_equal(arbor_node_set_scale(batch, hb[k], 2, 2, 2), ARBOR_OK);
    }
    assert_int_equal(arbor_scene_set_rotations(lazy, half_l, q, n / 2), ARBOR_OK);
    assert_int_equal(arbor_scene_set_rotations(batch, half_b, q, n / 2), ARBOR_OK);
    /* then the order broken before the update, which must follow links from the pending list */
    assert_int_equal(arbor_node_set_parent(lazy, hl[n - 2], hl[n - 1], ARBOR_NONE, ARBOR_KEEP_LOCAL),
                     arbor_node_set_parent(batch, hb[n - 2], hb[n - 1], ARBOR_NONE, ARBOR_KEEP_LOCAL));
    assert_int_equal(arbor_node_set_parent(lazy, hl[3], hl[n - 3], ARBOR_NONE, ARBOR_KEEP_LOCAL),
                     arbor_node_set_parent(batch, hb[3], hb[n - 3], ARBOR_NONE, ARBOR_KEEP_LOCAL));
    arbor_scene_update(batch);
    check_updated(lazy, hl, batch, hb, n);
    free(half_l);
    free(half_b);
    free(q);
    free(hl);
    free(hb);
    arbor_scene_destroy(lazy);
    arbor_scene_destroy(batch);
}

/* Parallel bulk writes: the serial calls' results and refusals, whether the writes are shared
   out (many nodes in creation order) or fall back to the calling thread (a node twice, an
   order the scene's storage does not follow, too few nodes). */
static void test_parallel_bulk_writes(void **state) {
    (void)state;
    const uint32_t n = 40000;
    arbor_pool *pool = arbor_pool_create(3);
    assert_non_null(pool);
    arbor_executor ex = arbor_pool_executor(pool);
    test_rng ra = test_rng_make(0x5EED), rb = test_rng_make(0x5EED), edits = test_rng_make(5);
    arbor_scene *serial = arbor_scene_create(NULL), *par = arbor_scene_create(NULL);
    arbor_node *hs = build(serial, RANDOM, n, &ra), *hp = build(par, RANDOM, n, &rb);
    arbor_node *order_s = malloc(n * sizeof *order_s), *order_p = malloc(n * sizeof *order_p);
    arbor_real *v = malloc((size_t)n * 4 * sizeof *v);
    assert_non_null(order_s);
    assert_non_null(order_p);
    assert_non_null(v);
    for (int round = 0; round < 5; round++) {
        /* 0: all, in order; 1: reversed (serial fallback); 2: one node twice; 3: a third of them;
           4: translations and scales */
        uint32_t count = round == 3 ? n / 3 : n;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t k = round == 1 ? n - 1 - i : round == 2 && i == n / 2 ? 7 : round == 3 ? 3 * i : i;
            order_s[i] = hs[k];
            order_p[i] = hp[k];
            test_rng_quat(&edits, v + 4 * i);
        }
        if (round < 4) {
            assert_int_equal(arbor_scene_set_rotations(serial, order_s, v, count), ARBOR_OK);
            assert_int_equal(arbor_scene_set_rotations_parallel(par, order_p, v, count, &ex), ARBOR_OK);
        } else {
            assert_int_equal(arbor_scene_set_translations(serial, order_s, v, count), ARBOR_OK);
            assert_int_equal(arbor_scene_set_translations_parallel(par, order_p, v, count, &ex), ARBOR_OK);
            assert_int_equal(arbor_scene_set_scales(serial, order_s, v + 1, count), ARBOR_OK);
            assert_int_equal(arbor_scene_set_scales_parallel(par, order_p, v + 1, count, &ex), ARBOR_OK);
        }
        arbor_scene_update(serial);
        arbor_scene_update_parallel(par, &ex);
        check_updated(serial, hs, par, hp, n);
    }
    /* refusals: the lowest bad index is reported, and nothing is written */
    arbor_trs before, after;
    assert_int_equal(arbor_node_get_trs(par, hp[0], &before), ARBOR_OK);
    for (uint32_t i = 0; i < n; i++) test_rng_quat(&edits, v + 4 * i);
    v[4 * 30000 + 2] = NAN;
    v[4 * 35000] = v[4 * 35000 + 1] = v[4 * 35000 + 2] = v[4 * 35000 + 3] = 0;
    assert_int_equal(arbor_scene_set_rotations_parallel(par, hp, v, n, &ex), ARBOR_ERR_NONFINITE);
    assert_non_null(strstr(arbor_last_error(), "nodes[30000]"));
    v[4 * 30000 + 2] = 0;
    assert_int_equal(arbor_scene_set_rotations_parallel(par, hp, v, n, &ex), ARBOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(arbor_last_error(), "nodes[35000]"));
    const arbor_real m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    assert_int_equal(arbor_node_set_local_matrix(par, hp[20000], m, true), ARBOR_OK);
    assert_int_equal(arbor_scene_set_translations_parallel(par, hp, v, n, &ex), ARBOR_ERR_LOCKED);
    assert_int_equal(arbor_node_get_trs(par, hp[0], &after), ARBOR_OK);
    assert_memory_equal(&before, &after, sizeof before);
    free(v);
    free(order_s);
    free(order_p);
    free(hs);
    free(hp);
    arbor_scene_destroy(serial);
    arbor_scene_destroy(par);
    arbor_pool_destroy(pool);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallel_equals_serial),
        cmocka_unit_test(test_any_task_order),
        cmocka_unit_test(test_parallel_versions_unique),
        cmocka_unit_test(test_pool_runs_every_task_once),
        cmocka_unit_test(test_bulk_writes),
        cmocka_unit_test(test_any_storage_order),
        cmocka_unit_test(test_parallel_bulk_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
