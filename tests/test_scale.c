/* SPDX-License-Identifier: MIT */
/*
 * tests/test_scale.c: a chain of a million nodes (each the child of the one before) through every
 * walk of scene.h: create, update, a lazy read of the deepest node after the root moved,
 * versions, depth, ancestry, subtree collection, finds, iteration, refusals at that depth,
 * reparenting the middle, destroying it all. Nothing in the library may recurse on the C stack.
 *
 * Ten million nodes: only with ARBOR_TEST_BIG=1, which CTest sets in optimised builds without
 * sanitizers (there they would take minutes).
 *
 * Translations are multiples of 1/4 with sums below 2^24, so every world translation is exact in
 * float and double alike.
 */
#include "test_util.h"

#include <time.h>

#define CHAIN_N 1000000u

static double now_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct chain_state {
    arbor_scene *s;
    arbor_node *h; /* h[i] at depth i */
    arbor_node other_root;
} chain_state;

static int chain_setup(void **state)
{
    chain_state *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->h = malloc(CHAIN_N * sizeof *c->h);
    if (!c->h) return -1;
    if (arbor_scene_create(NULL, &c->s) != ARBOR_OK) return -1;
    *state = c;
    return 0;
}

static int chain_teardown(void **state)
{
    chain_state *c = *state;
    if (c) {
        arbor_scene_destroy(c->s);
        free(c->h);
        free(c);
    }
    return 0;
}

static void test_chain_build_update_read(void **state)
{
    chain_state *c = *state;
    arbor_scene *s = c->s;
    double t0 = now_seconds();
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "root" }, &c->h[0]));
    for (uint32_t i = 1; i < CHAIN_N; i++) {
        arbor_result r = arbor_node_create(
            s, &(arbor_node_desc){ .parent = c->h[i - 1], .translation = { 1, 0.5, 0.25 } }, &c->h[i]);
        if (r != ARBOR_OK) {
            print_error("creating node %u: %s (%s)\n", i, arbor_result_string(r), arbor_last_error());
            fail();
        }
    }
    double t1 = now_seconds();
    assert_int_equal(arbor_scene_node_count(s), CHAIN_N);
    arbor_node last = c->h[CHAIN_N - 1];
    assert_int_equal(arbor_node_depth(s, last), CHAIN_N - 1);
    assert_int_equal(arbor_node_depth(s, c->h[123456]), 123456);

    /* Lazily, from nothing computed yet. */
    arbor_real p[3];
    TEST_WORLD_ORIGIN(s, last, p);
    const double n1 = (double)(CHAIN_N - 1);
    ASSERT_VEC3_NEAR(p, n1, 0.5 * n1, 0.25 * n1, 0);
    double t2 = now_seconds();

    arbor_scene_update(s);
    arbor_scene_stats_reset(s);
    arbor_scene_update(s);
    arbor_scene_stats st;
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.world_composed, 0);

    /* Move the root; read only the deepest node. */
    uint64_t v0 = arbor_node_world_version(s, last);
    uint64_t vmid0 = arbor_node_world_version(s, c->h[CHAIN_N / 2]);
    assert_int_not_equal(v0, 0);
    ASSERT_OK(arbor_node_set_translation(s, c->h[0], 10, 20, 30));
    double t3 = now_seconds();
    TEST_WORLD_ORIGIN(s, last, p);
    double t4 = now_seconds();
    ASSERT_VEC3_NEAR(p, 10 + n1, 20 + 0.5 * n1, 30 + 0.25 * n1, 0);
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.world_composed, CHAIN_N);
    assert_int_equal(st.local_composed, CHAIN_N); /* each with its local: nothing caches them */
    uint64_t v1 = arbor_node_world_version(s, last);
    assert_int_not_equal(v1, v0);
    assert_int_not_equal(v1, 0);
    assert_int_not_equal(arbor_node_world_version(s, c->h[CHAIN_N / 2]), vmid0);

    /* Everything was read on the way down: the update has nothing left. */
    arbor_scene_stats_reset(s);
    arbor_scene_update(s);
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.world_composed, 0);

    /* Move the root again; this time the batch update does it all. */
    ASSERT_OK(arbor_node_set_translation(s, c->h[0], 0, 0, 0));
    double t5 = now_seconds();
    arbor_scene_update(s);
    double t6 = now_seconds();
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.world_composed, CHAIN_N);
    TEST_WORLD_ORIGIN(s, last, p);
    ASSERT_VEC3_NEAR(p, n1, 0.5 * n1, 0.25 * n1, 0);
    uint64_t v2 = arbor_node_world_version(s, last);
    assert_true(v2 != v1 && v2 != v0);
    TEST_WORLD_ORIGIN(s, c->h[777777], p);
    ASSERT_VEC3_NEAR(p, 777777, 0.5 * 777777, 0.25 * 777777, 0);
    print_message("chain of %u: create %.3f s, first lazy read %.3f s, lazy read after a root move %.3f s, "
                  "update after a root move %.3f s\n",
                  CHAIN_N, t1 - t0, t2 - t1, t4 - t3, t6 - t5);
}

static bool pred_is(void *user, const arbor_scene *s, arbor_node n)
{
    (void)s;
    return n.id == ((const arbor_node *)user)->id;
}

static void test_chain_walks(void **state)
{
    chain_state *c = *state;
    arbor_scene *s = c->s;
    arbor_node root = c->h[0], last = c->h[CHAIN_N - 1];
    assert_true(arbor_node_is_ancestor_of(s, root, last));
    assert_true(arbor_node_is_ancestor_of(s, c->h[1], last));
    assert_true(arbor_node_is_ancestor_of(s, c->h[CHAIN_N - 2], last));
    assert_false(arbor_node_is_ancestor_of(s, last, root));
    assert_false(arbor_node_is_ancestor_of(s, last, last));

    assert_int_equal(arbor_node_collect_subtree(s, root, NULL, 0), CHAIN_N);
    assert_int_equal(arbor_node_collect_subtree(s, c->h[CHAIN_N / 2], NULL, 0), CHAIN_N - CHAIN_N / 2);
    arbor_node *out = malloc(CHAIN_N * sizeof *out);
    assert_non_null(out);
    assert_int_equal(arbor_node_collect_subtree(s, root, out, CHAIN_N), CHAIN_N);
    for (uint32_t i = 0; i < CHAIN_N; i++) {
        if (out[i].id != c->h[i].id) {
            print_error("collect_subtree: entry %u is not the node at depth %u\n", i, i);
            fail();
        }
    }
    out[10].id = 0xABCDull;
    assert_int_equal(arbor_node_collect_subtree(s, root, out, 10), CHAIN_N);
    ASSERT_NODE_EQ(out[9], c->h[9]);
    assert_int_equal(out[10].id, 0xABCDull);
    free(out);

    ASSERT_NODE_EQ(arbor_node_find_descendant(s, root, pred_is, &last), last);
    ASSERT_NODE_EQ(arbor_node_find_ancestor(s, last, pred_is, &root), root);
    arbor_node none = ARBOR_NONE;
    ASSERT_NODE_NONE(arbor_node_find_descendant(s, root, pred_is, &none));
    ASSERT_NODE_NONE(arbor_node_find_ancestor(s, last, pred_is, &none));
    ASSERT_NODE_EQ(arbor_scene_find(s, "root"), root);

    /* Iteration: parents before children, every node once. */
    uint32_t k = 0;
    for (arbor_node it = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(it);
         it = arbor_scene_next_node(s, it)) {
        if (k >= CHAIN_N || it.id != c->h[k].id) {
            print_error("arbor_scene_next_node: visit %u is out of order\n", k);
            fail();
        }
        k++;
    }
    assert_int_equal(k, CHAIN_N);

    /* A ring through a million links is refused, and changes nothing. */
    ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent",
                   arbor_node_set_parent(s, root, last, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent",
                   arbor_node_set_parent(s, c->h[10], c->h[900000], ARBOR_NONE, ARBOR_KEEP_WORLD));
    ASSERT_NODE_NONE(arbor_node_parent(s, root));
    ASSERT_NODE_EQ(arbor_node_parent(s, c->h[10]), c->h[9]);
    assert_int_equal(arbor_node_depth(s, last), CHAIN_N - 1);

    /* The depth limit (2^20 by default): hanging the chain below a 60,000-node chain would put its
       last node at depth 1,059,999. */
    assert_int_equal(arbor_scene_max_depth(s), ARBOR_DEFAULT_MAX_DEPTH);
    arbor_node top = ARBOR_NONE, prev = ARBOR_NONE;
    for (int i = 0; i < 60000; i++) {
        arbor_node n;
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = prev }, &n));
        if (i == 0) top = n;
        prev = n;
    }
    ASSERT_REFUSED(ARBOR_ERR_DEPTH_LIMIT, "arbor_node_set_parent",
                   arbor_node_set_parent(s, root, prev, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_NODE_NONE(arbor_node_parent(s, root));
    assert_int_equal(arbor_node_depth(s, last), CHAIN_N - 1);
    ASSERT_REFUSED(ARBOR_ERR_DEPTH_LIMIT, "arbor_node_set_parent",
                   arbor_node_set_parent(s, top, last, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    /* ... but the chain's tail fits below it: 59,999 + 1 + 99,999. */
    ASSERT_OK(arbor_node_set_parent(s, c->h[CHAIN_N - 100000], prev, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    assert_int_equal(arbor_node_depth(s, last), 59999 + 100000);
    ASSERT_OK(arbor_node_set_parent(s, c->h[CHAIN_N - 100000], c->h[CHAIN_N - 100001], ARBOR_NONE,
                                    ARBOR_KEEP_LOCAL));
    assert_int_equal(arbor_node_depth(s, last), CHAIN_N - 1);
    ASSERT_OK(arbor_node_destroy(s, top));
    assert_int_equal(arbor_scene_node_count(s), CHAIN_N);
}

static void test_chain_reparent_middle(void **state)
{
    chain_state *c = *state;
    arbor_scene *s = c->s;
    const uint32_t mid = CHAIN_N / 2;
    arbor_node root = c->h[0], last = c->h[CHAIN_N - 1], m = c->h[mid];
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "other", .translation = { -5, 0, 0 } }, &c->other_root));
    uint64_t v0 = arbor_node_world_version(s, last);
    uint64_t vroot = arbor_node_world_version(s, root);
    double t0 = now_seconds();
    ASSERT_OK(arbor_node_set_parent(s, m, c->other_root, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    double t1 = now_seconds();
    ASSERT_NODE_EQ(arbor_node_parent(s, m), c->other_root);
    assert_int_equal(arbor_node_depth(s, m), 1);
    assert_int_equal(arbor_node_depth(s, last), CHAIN_N - 1 - mid + 1);
    assert_int_equal(arbor_node_depth(s, last), 500000);
    assert_int_equal(arbor_node_depth(s, c->h[mid + 1000]), 1001);
    assert_int_equal(arbor_node_depth(s, c->h[mid - 1]), mid - 1);
    assert_false(arbor_node_is_ancestor_of(s, root, last));
    assert_true(arbor_node_is_ancestor_of(s, c->other_root, last));
    assert_int_equal(arbor_node_collect_subtree(s, root, NULL, 0), mid);
    assert_int_equal(arbor_node_collect_subtree(s, c->other_root, NULL, 0), CHAIN_N - mid + 1);
    assert_int_equal(arbor_node_child_count(s, c->h[mid - 1]), 0);

    uint64_t v1 = arbor_node_world_version(s, last);
    assert_int_not_equal(v1, v0);
    assert_int_equal(arbor_node_world_version(s, root), vroot);
    arbor_real p[3];
    TEST_WORLD_ORIGIN(s, last, p);
    const double k = (double)(CHAIN_N - mid);
    ASSERT_VEC3_NEAR(p, -5 + k, 0.5 * k, 0.25 * k, 0);
    arbor_scene_update(s);
    TEST_WORLD_ORIGIN(s, c->h[mid - 1], p);
    ASSERT_VEC3_NEAR(p, mid - 1, 0.5 * (mid - 1), 0.25 * (mid - 1), 0);

    /* Keep-world back under its old parent: the world matrices stay where they are. */
    arbor_real before[16], after[16];
    TEST_WORLD(s, last, before);
    ASSERT_OK(arbor_node_set_parent(s, m, c->h[mid - 1], ARBOR_NONE, ARBOR_KEEP_WORLD));
    assert_int_equal(arbor_node_depth(s, last), CHAIN_N - 1);
    TEST_WORLD(s, last, after);
    ASSERT_MAT4_NEAR_REL(after, before, TEST_EPS_ROUNDTRIP);
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, m, &trs));
    /* inverse(W_{mid-1}) * W_m = T(-(mid-1) t) T((-5,0,0) + t), t = (1, 0.5, 0.25) */
    const double j = 1.0 - (double)(mid - 1);
    ASSERT_VEC3_NEAR(trs.translation, -5 + j, 0.5 * j, 0.25 * j, 0.1);
    ASSERT_VEC3_NEAR(trs.scale, 1, 1, 1, TEST_EPS);
    print_message("reparenting the middle of the chain (500,000 nodes below): %.3f s\n", t1 - t0);
}

static void test_chain_destroy(void **state)
{
    chain_state *c = *state;
    arbor_scene *s = c->s;
    uint32_t count = arbor_scene_node_count(s);
    assert_int_equal(count, CHAIN_N + 1);
    /* Destroy the lower half first, then everything. */
    double t0 = now_seconds();
    ASSERT_OK(arbor_node_destroy(s, c->h[CHAIN_N / 2]));
    assert_int_equal(arbor_scene_node_count(s), CHAIN_N / 2 + 1);
    assert_false(arbor_node_alive(s, c->h[CHAIN_N - 1]));
    assert_true(arbor_node_alive(s, c->h[CHAIN_N / 2 - 1]));
    ASSERT_NODE_NONE(arbor_node_first_child(s, c->h[CHAIN_N / 2 - 1]));
    ASSERT_OK(arbor_node_destroy(s, c->h[0]));
    ASSERT_OK(arbor_node_destroy(s, c->other_root));
    double t1 = now_seconds();
    assert_int_equal(arbor_scene_node_count(s), 0);
    assert_false(arbor_node_alive(s, c->h[0]));
    assert_false(arbor_node_alive(s, c->h[123]));
    ASSERT_NODE_NONE(arbor_scene_first_root(s));
    arbor_scene_update(s);
    print_message("destroying the chain: %.3f s\n", t1 - t0);

    /* Build it again in the same scene (storage reused), then clear. */
    arbor_node prev = ARBOR_NONE;
    for (uint32_t i = 0; i < CHAIN_N; i++) {
        arbor_node n;
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = prev, .translation = { 0, 1, 0 } }, &n));
        prev = n;
    }
    arbor_real p[3];
    TEST_WORLD_ORIGIN(s, prev, p);
    ASSERT_VEC3_NEAR(p, 0, CHAIN_N, 0, 0);
    assert_int_equal(arbor_node_depth(s, prev), CHAIN_N - 1);
    arbor_scene_clear(s);
    assert_int_equal(arbor_scene_node_count(s), 0);
    assert_false(arbor_node_alive(s, prev));
}

/* Ten million nodes: 100,000 roots with 99 children each. */
static void test_ten_million(void **state)
{
    (void)state;
    const char *big = getenv("ARBOR_TEST_BIG");
    if (big == NULL || strcmp(big, "1") != 0) {
        TEST_SKIP("ten million nodes need ARBOR_TEST_BIG=1 (set in optimised builds without sanitizers)");
    }
    enum { ROOTS = 100000, KIDS = 99, TOTAL = ROOTS * (KIDS + 1) };
    double t0 = now_seconds();
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .initial_capacity = TOTAL }, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_node probe_root = ARBOR_NONE, probe = ARBOR_NONE;
    for (int r = 0; r < ROOTS; r++) {
        arbor_node root;
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .translation = { (arbor_real)r, 0, 0 } }, &root));
        for (int k = 0; k < KIDS; k++) {
            arbor_node n;
            arbor_result res = arbor_node_create(
                s, &(arbor_node_desc){ .parent = root, .translation = { 0, (arbor_real)k, 0 }, .scale = { 2, 2, 2 } },
                &n);
            if (res != ARBOR_OK) {
                print_error("node %d/%d: %s\n", r, k, arbor_result_string(res));
                fail();
            }
            if (r == 77777 && k == 42) probe = n;
        }
        if (r == 77777) probe_root = root;
    }
    double t1 = now_seconds();
    assert_int_equal(arbor_scene_node_count(s), TOTAL);
    arbor_scene_update(s);
    double t2 = now_seconds();
    arbor_real w[16];
    TEST_WORLD(s, probe, w);
    ASSERT_VEC3_NEAR(&w[12], 77777, 42, 0, 0);
    ASSERT_NEAR(w[0], 2, 0);
    arbor_scene_stats st;
    arbor_scene_stats_reset(s);
    ASSERT_OK(arbor_node_set_translation(s, probe_root, 0, 0, 5));
    arbor_scene_update(s);
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.world_composed, KIDS + 1);
    TEST_WORLD(s, probe, w);
    ASSERT_VEC3_NEAR(&w[12], 0, 42, 5, 0);
    arbor_scene_stats_reset(s);
    arbor_scene_update(s);
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.world_composed, 0);
    /* Every root moved: the whole scene again, now that its storage is touched. */
    arbor_scene_stats_reset(s);
    arbor_node root = arbor_scene_first_root(s);
    for (int r = 0; r < ROOTS; r++) {
        ASSERT_OK(arbor_node_set_translation(s, root, (arbor_real)r, 1, 0));
        root = arbor_node_next_sibling(s, root);
    }
    ASSERT_NODE_NONE(root);
    double t_move = now_seconds();
    arbor_scene_update(s);
    double t_update2 = now_seconds();
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.world_composed, TOTAL);
    assert_int_equal(st.local_composed, TOTAL); /* each with its local: nothing caches them */
    TEST_WORLD(s, probe, w);
    ASSERT_VEC3_NEAR(&w[12], 77777, 43, 0, 0);
    double t3 = now_seconds();
    arbor_scene_destroy(s);
    double t4 = now_seconds();
    print_message("ten million nodes: create %.2f s, first update %.2f s, full update after every root moved "
                  "%.2f s, destroy %.2f s, total %.2f s\n",
                  t1 - t0, t2 - t1, t_update2 - t_move, t4 - t3, t4 - t0);
}

int main(void)
{
    test_check_real_size();
    const struct CMUnitTest chain_tests[] = {
        cmocka_unit_test(test_chain_build_update_read),
        cmocka_unit_test(test_chain_walks),
        cmocka_unit_test(test_chain_reparent_middle),
        cmocka_unit_test(test_chain_destroy),
    };
    const struct CMUnitTest big_tests[] = {
        cmocka_unit_test(test_ten_million),
    };
    int failed = cmocka_run_group_tests_name("chain", chain_tests, chain_setup, chain_teardown);
    failed += cmocka_run_group_tests_name("big", big_tests, NULL, NULL);
    return failed;
}
