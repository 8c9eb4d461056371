/* SPDX-License-Identifier: MIT */
/*
 * tests/test_cost.c: the cost model of scene.h, counted through arbor_scene_stats and a counting
 * allocator, on the 59-node skeleton of shared/bench/WORKLOADS.md and the course's examples
 * (seed 002, section 7 and exercise 7).
 *
 * - a static scene composes nothing;
 * - an edit recomputes exactly the edited subtree's world matrices, each with its local
 *   (nothing caches locals: every world matrix of a TRS-driven node composes its local);
 * - a lazy read composes only the chain from the highest changed ancestor down to the node;
 * - a parent's movement composes every local below it but the kept matrices (a shear);
 * - writing one node many times costs its invalidation once;
 * - nothing allocates once warm; everything is freed, with the sizes it was allocated with.
 */
#include "test_util.h"

/* ---- The 59-node skeleton ---------------------------------------------------------------------- */

enum {
    HIPS = 0, SPINE1 = 1, SPINE2 = 2, SPINE3 = 3, SPINE4 = 4, SPINE5 = 5, NECK = 6, HEAD = 7, HEAD_END = 8,
    UPPERARM_L = 9, FOREARM_L = 10, WRIST_L = 11, HAND_L = 12,
    FINGERTIP_L0 = 15, /* finger 0 of hand_L: 13, 14, 15 */
    FINGERTIP_L4 = 27,
    UPPERARM_R = 28, HAND_R = 31,
    THIGH_L = 47, TOE_END_L = 52, THIGH_R = 53, TOE_END_R = 58,
    SKEL_N = 59
};

static int skeleton_parent(int i)
{
    static int table[SKEL_N];
    static bool made = false;
    if (!made) {
        const int head[13] = { -1, 0, 1, 2, 3, 4, 5, 6, 7, 5, 9, 10, 11 };
        for (int k = 0; k < 13; k++) table[k] = head[k];
        for (int f = 0; f < 5; f++) {
            table[13 + 3 * f] = 12;
            table[14 + 3 * f] = 13 + 3 * f;
            table[15 + 3 * f] = 14 + 3 * f;
        }
        table[28] = 5;
        table[29] = 28;
        table[30] = 29;
        table[31] = 30;
        for (int f = 0; f < 5; f++) {
            table[32 + 3 * f] = 31;
            table[33 + 3 * f] = 32 + 3 * f;
            table[34 + 3 * f] = 33 + 3 * f;
        }
        table[47] = 0;
        for (int k = 48; k <= 52; k++) table[k] = k - 1;
        table[53] = 0;
        for (int k = 54; k <= 58; k++) table[k] = k - 1;
        made = true;
    }
    return table[i];
}

/* How many bones the subtree of root holds, from the table. */
static uint64_t skeleton_subtree(int root)
{
    uint64_t n = 0;
    for (int i = 0; i < SKEL_N; i++) {
        int a = i;
        while (a >= 0 && a != root) a = skeleton_parent(a);
        n += a == root;
    }
    return n;
}

static const char *skeleton_name(int i, char *buf, size_t size)
{
    static const char *names[13] = { "hips", "spine1", "spine2", "spine3", "spine4", "spine5", "neck",
                                     "head", "head_end", "upperarm_L", "forearm_L", "wrist_L", "hand_L" };
    static const char *legs[6] = { "thigh", "shin", "ankle", "foot", "toe", "toe_end" };
    static const char *arms[4] = { "upperarm_R", "forearm_R", "wrist_R", "hand_R" };
    if (i < 13) return names[i];
    if (i < 28) snprintf(buf, size, "finger%d_%d_L", (i - 13) / 3, (i - 13) % 3);
    else if (i < 32) return arms[i - 28];
    else if (i < 47) snprintf(buf, size, "finger%d_%d_R", (i - 32) / 3, (i - 32) % 3);
    else if (i < 53) snprintf(buf, size, "%s_L", legs[i - 47]);
    else snprintf(buf, size, "%s_R", legs[i - 53]);
    return buf;
}

/* One skeleton, with the local transforms of WORKLOADS.md drawn from rng in creation order. */
static void build_skeleton(arbor_scene *s, arbor_node out[SKEL_N], test_rng *rng)
{
    for (int i = 0; i < SKEL_N; i++) {
        char buf[32];
        arbor_real t[3], q[4], sc;
        for (int k = 0; k < 3; k++) t[k] = (arbor_real)test_rng_sym(rng);
        test_rng_quat(rng, q);
        sc = (arbor_real)(0.9 + 0.2 * test_rng_uniform(rng));
        int p = skeleton_parent(i);
        out[i] = TEST_NODE(s, p < 0 ? ARBOR_NONE : out[p], skeleton_name(i, buf, sizeof buf), t, q, V3(sc, sc, sc));
    }
}

static arbor_scene_stats stats_of(arbor_scene *s)
{
    arbor_scene_stats st;
    memset(&st, 0xFF, sizeof st);
    arbor_scene_stats_get(s, &st);
    return st;
}

#define EXPECT_COMPOSED(s, local, world)                                                                       \
    do {                                                                                                       \
        arbor_scene_stats st_ = stats_of(s);                                                                         \
        if (st_.local_composed != (uint64_t)(local) || st_.world_composed != (uint64_t)(world)) {              \
            print_error("composed %llu local and %llu world matrices, expected %llu and %llu\n",               \
                        (unsigned long long)st_.local_composed, (unsigned long long)st_.world_composed,        \
                        (unsigned long long)(local), (unsigned long long)(world));                             \
            fail();                                                                                            \
        }                                                                                                      \
    } while (0)

static void read_all(arbor_scene *s, const arbor_node *n, int count)
{
    for (int i = 0; i < count; i++) {
        arbor_real w[16];
        TEST_WORLD(s, n[i], w);
    }
}

typedef struct skel_scene {
    arbor_scene *s;
    arbor_node n[SKEL_N];
} skel_scene;

static skel_scene make_skeleton_scene(void)
{
    skel_scene k;
    assert_int_equal(arbor_scene_create(NULL, &k.s), ARBOR_OK);
    assert_non_null(k.s);
    test_rng rng = test_rng_make(0x5EED);
    build_skeleton(k.s, k.n, &rng);
    arbor_scene_update(k.s);
    arbor_scene_stats_reset(k.s);
    return k;
}

static void test_skeleton_shape(void **state)
{
    (void)state;
    skel_scene k = make_skeleton_scene();
    assert_int_equal(arbor_scene_node_count(k.s), SKEL_N);
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[HIPS], NULL, 0), 59);
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[SPINE1], NULL, 0), 46);
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[SPINE2], NULL, 0), 45);
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[SPINE3], NULL, 0), 44);
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[SPINE4], NULL, 0), 43);
    /* exercise 7's "top spine bone" with a 42-bone subtree is spine5 in this skeleton */
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[SPINE5], NULL, 0), 42);
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[UPPERARM_L], NULL, 0), 19);
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[UPPERARM_R], NULL, 0), 19);
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[HAND_L], NULL, 0), 16);
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[HAND_R], NULL, 0), 16);
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[FINGERTIP_L0], NULL, 0), 1);
    assert_int_equal(arbor_node_collect_subtree(k.s, k.n[THIGH_L], NULL, 0), 6);
    assert_int_equal(arbor_node_depth(k.s, k.n[FINGERTIP_L0]), 12);
    assert_int_equal(arbor_node_depth(k.s, k.n[TOE_END_R]), 6);
    assert_int_equal(arbor_node_child_count(k.s, k.n[SPINE5]), 3);
    assert_int_equal(arbor_node_child_count(k.s, k.n[HAND_L]), 5);
    ASSERT_NODE_EQ(arbor_scene_find(k.s, "hips/spine1/spine2/spine3/spine4/spine5/upperarm_L/forearm_L/wrist_L/hand_L/"
                                         "finger0_0_L/finger0_1_L/finger0_2_L"),
                   k.n[FINGERTIP_L0]);
    arbor_scene_destroy(k.s);
}

/* (a) A static scene: update, reads and version reads compose nothing. */
static void test_static_scene_composes_nothing(void **state)
{
    (void)state;
    skel_scene k = make_skeleton_scene();
    arbor_scene_update(k.s);
    EXPECT_COMPOSED(k.s, 0, 0);
    read_all(k.s, k.n, SKEL_N);
    EXPECT_COMPOSED(k.s, 0, 0);
    for (int i = 0; i < SKEL_N; i++) assert_int_not_equal(arbor_node_world_version(k.s, k.n[i]), 0);
    arbor_real l[16];
    for (int i = 0; i < SKEL_N; i++) ASSERT_OK(arbor_node_local_matrix(k.s, k.n[i], l));
    for (int f = 0; f < 10; f++) arbor_scene_update(k.s);
    EXPECT_COMPOSED(k.s, 0, 0);
    assert_int_equal(stats_of(k.s).invalidated, 0);
    arbor_scene_destroy(k.s);
}

/* (b) An edit then an update: the edited subtree's world matrices and their locals. Seed 002,
   section 7: root 59, first spine bone 46, left upper arm 19, left hand 16, a fingertip 1;
   exercise 7: the top spine bone 42 (17 saved). */
static void test_edit_recomputes_exactly_the_subtree(void **state)
{
    (void)state;
    skel_scene k = make_skeleton_scene();
    const int bones[] = { HIPS, SPINE1, UPPERARM_L, HAND_L, FINGERTIP_L0, SPINE5, FINGERTIP_L4, THIGH_R, SPINE4 };
    const uint64_t expect[] = { 59, 46, 19, 16, 1, 42, 1, 6, 43 };
    test_rng rng = test_rng_make(7);
    for (size_t b = 0; b < sizeof bones / sizeof bones[0]; b++) {
        uint64_t v[SKEL_N];
        for (int i = 0; i < SKEL_N; i++) v[i] = arbor_node_world_version(k.s, k.n[i]);
        arbor_scene_stats_reset(k.s);
        arbor_real q[4];
        test_rng_quat(&rng, q);
        ASSERT_OK(arbor_node_set_rotation(k.s, k.n[bones[b]], q[0], q[1], q[2], q[3]));
        arbor_scene_update(k.s);
        EXPECT_COMPOSED(k.s, expect[b], expect[b]);
        /* exactly the subtree's versions changed */
        uint64_t changed = 0;
        for (int i = 0; i < SKEL_N; i++) {
            bool in = i == bones[b] || arbor_node_is_ancestor_of(k.s, k.n[bones[b]], k.n[i]);
            bool diff = arbor_node_world_version(k.s, k.n[i]) != v[i];
            assert_int_equal(in, diff);
            changed += diff;
        }
        assert_int_equal(changed, expect[b]);
        /* and reading everything afterwards composes nothing more */
        arbor_scene_stats_reset(k.s);
        read_all(k.s, k.n, SKEL_N);
        EXPECT_COMPOSED(k.s, 0, 0);
    }
    /* exercise 7: 17 of 59 saved by editing the top spine bone */
    assert_int_equal(SKEL_N - arbor_node_collect_subtree(k.s, k.n[SPINE5], NULL, 0), 17);
    arbor_scene_destroy(k.s);
}

/* (c) A lazy read composes only the chain from the highest changed ancestor down to the node; the
   next update composes the rest. */
static void test_lazy_read_composes_only_the_chain(void **state)
{
    (void)state;
    skel_scene k = make_skeleton_scene();
    arbor_real w[16];
    const uint32_t chain = arbor_node_depth(k.s, k.n[FINGERTIP_L0]) - arbor_node_depth(k.s, k.n[SPINE1]) + 1;
    assert_int_equal(chain, 12);

    ASSERT_OK(arbor_node_set_rotation(k.s, k.n[SPINE1], 0, 0, 1, 0));
    TEST_WORLD(k.s, k.n[FINGERTIP_L0], w);
    EXPECT_COMPOSED(k.s, chain, chain);
    TEST_WORLD(k.s, k.n[FINGERTIP_L0], w); /* current now */
    TEST_WORLD(k.s, k.n[HIPS], w);         /* never changed */
    TEST_WORLD(k.s, k.n[TOE_END_L], w);    /* another branch, unchanged */
    EXPECT_COMPOSED(k.s, chain, chain);
    arbor_scene_stats_reset(k.s);
    arbor_scene_update(k.s);
    EXPECT_COMPOSED(k.s, 46 - chain, 46 - chain);

    /* The highest changed ancestor is the root; a second change lower on the same chain. */
    arbor_scene_stats_reset(k.s);
    ASSERT_OK(arbor_node_set_translation(k.s, k.n[HIPS], 1, 2, 3));
    ASSERT_OK(arbor_node_set_scale(k.s, k.n[HAND_L], 2, 2, 2));
    TEST_WORLD(k.s, k.n[HAND_L], w); /* hips .. hand_L: 10, never the fingers below */
    EXPECT_COMPOSED(k.s, 10, 10);
    TEST_WORLD(k.s, k.n[FINGERTIP_L0], w); /* three more */
    EXPECT_COMPOSED(k.s, 13, 13);
    /* a version read resolves too, and counts */
    assert_int_not_equal(arbor_node_world_version(k.s, k.n[FINGERTIP_L4]), 0);
    EXPECT_COMPOSED(k.s, 16, 16);
    arbor_scene_stats_reset(k.s);
    arbor_scene_update(k.s);
    EXPECT_COMPOSED(k.s, 59 - 16, 59 - 16);
    arbor_scene_destroy(k.s);
}

/* (d) A parent's movement composes every local below it (nothing caches them), but a kept
   matrix (a shear, which no TRS gives): forearm_L's. A keep-local reparent the same for the
   moved subtree. */
static void test_parent_move_composes_child_locals(void **state)
{
    (void)state;
    skel_scene k = make_skeleton_scene();
    const arbor_real shear[16] = { 1, 0, 0, 0, 0.5f, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1 };
    ASSERT_OK(arbor_node_set_local_matrix(k.s, k.n[FOREARM_L], shear, false));
    arbor_scene_update(k.s);
    arbor_scene_stats_reset(k.s);
    const uint64_t below_hips = skeleton_subtree(HIPS), below_arm = skeleton_subtree(UPPERARM_L); /* forearm_L in both */
    ASSERT_OK(arbor_node_set_translation(k.s, k.n[HIPS], 0, 1, 0));
    arbor_scene_update(k.s);
    EXPECT_COMPOSED(k.s, below_hips - 1, below_hips);
    arbor_scene_stats_reset(k.s);
    ASSERT_OK(arbor_node_set_translation(k.s, k.n[HIPS], 0, 2, 0));
    read_all(k.s, k.n, SKEL_N);
    EXPECT_COMPOSED(k.s, below_hips - 1, below_hips);

    arbor_scene_stats_reset(k.s);
    ASSERT_OK(arbor_node_set_parent(k.s, k.n[UPPERARM_L], k.n[SPINE3], ARBOR_NONE, ARBOR_KEEP_LOCAL));
    arbor_scene_update(k.s);
    EXPECT_COMPOSED(k.s, below_arm - 1, below_arm);
    arbor_scene_destroy(k.s);
}

/* (e) Writing one node 1000 times: its invalidation is paid once, its subtree computed once. */
static void test_repeated_writes_cost_once(void **state)
{
    (void)state;
    skel_scene k = make_skeleton_scene();
    test_rng rng = test_rng_make(11);
    ASSERT_OK(arbor_node_set_rotation(k.s, k.n[SPINE1], 0, 0, 0, 1));
    const uint64_t after_one = stats_of(k.s).invalidated;
    assert_int_equal(after_one, 46);
    for (int i = 1; i < 1000; i++) {
        arbor_real q[4];
        test_rng_quat(&rng, q);
        if (i % 3 == 0) ASSERT_OK(arbor_node_set_translation(k.s, k.n[SPINE1], q[0], q[1], q[2]));
        else ASSERT_OK(arbor_node_set_rotation(k.s, k.n[SPINE1], q[0], q[1], q[2], q[3]));
    }
    assert_int_equal(stats_of(k.s).invalidated, after_one);
    EXPECT_COMPOSED(k.s, 0, 0); /* nothing composed by writing */
    arbor_scene_update(k.s);
    EXPECT_COMPOSED(k.s, 46, 46);

    /* A node already out of date stops the push: a fingertip, then spine1 above it. */
    arbor_scene_stats_reset(k.s);
    ASSERT_OK(arbor_node_set_rotation(k.s, k.n[FINGERTIP_L0], 0, 1, 0, 0));
    assert_int_equal(stats_of(k.s).invalidated, 1);
    ASSERT_OK(arbor_node_set_rotation(k.s, k.n[SPINE1], 0, 1, 0, 0));
    assert_int_equal(stats_of(k.s).invalidated, 46);
    arbor_scene_update(k.s);
    EXPECT_COMPOSED(k.s, 46, 46);

    /* After a lazy read cleaned one chain, a second write pushes through that chain only. */
    arbor_scene_stats_reset(k.s);
    arbor_real w[16];
    ASSERT_OK(arbor_node_set_rotation(k.s, k.n[SPINE1], 0, 0, 1, 0));
    assert_int_equal(stats_of(k.s).invalidated, 46);
    TEST_WORLD(k.s, k.n[FINGERTIP_L0], w);
    ASSERT_OK(arbor_node_set_rotation(k.s, k.n[SPINE1], 1, 0, 0, 0));
    assert_int_equal(stats_of(k.s).invalidated, 46 + 12);
    arbor_scene_update(k.s);
    EXPECT_COMPOSED(k.s, 12 + 46, 12 + 46);
    arbor_scene_destroy(k.s);
}

/* (g) After everything was read lazily, an update composes nothing. */
static void test_update_after_lazy_reads_composes_nothing(void **state)
{
    (void)state;
    skel_scene k = make_skeleton_scene();
    ASSERT_OK(arbor_node_set_rotation(k.s, k.n[HIPS], 0, 1, 0, 0));
    ASSERT_OK(arbor_node_set_translation(k.s, k.n[HAND_L], 0, 1, 0));
    ASSERT_OK(arbor_node_set_scale(k.s, k.n[THIGH_R], 1, 2, 1));
    /* read in reverse creation order: children before parents */
    for (int i = SKEL_N - 1; i >= 0; i--) {
        arbor_real w[16];
        TEST_WORLD(k.s, k.n[i], w);
    }
    EXPECT_COMPOSED(k.s, 59, 59);
    arbor_scene_stats_reset(k.s);
    arbor_scene_update(k.s);
    EXPECT_COMPOSED(k.s, 0, 0);
    for (int i = 0; i < SKEL_N; i++) (void)arbor_node_world_version(k.s, k.n[i]);
    EXPECT_COMPOSED(k.s, 0, 0);
    arbor_scene_destroy(k.s);
}

/* Cost follows what changed, not the scene's size: one skeleton's root among many. */
static void test_cost_follows_changes_not_scene_size(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    enum { K = 200 };
    arbor_node(*sk)[SKEL_N] = calloc(K, sizeof *sk);
    assert_non_null(sk);
    test_rng rng = test_rng_make(0x5EED);
    for (int k = 0; k < K; k++) build_skeleton(s, sk[k], &rng);
    arbor_scene_update(s);
    arbor_scene_stats_reset(s);
    arbor_scene_update(s);
    EXPECT_COMPOSED(s, 0, 0);
    ASSERT_OK(arbor_node_set_translation(s, sk[100][HIPS], 5, 0, 0));
    ASSERT_OK(arbor_node_set_rotation(s, sk[7][HAND_R], 0, 0, 1, 0));
    ASSERT_OK(arbor_node_set_rotation(s, sk[7][FINGERTIP_L4], 0, 0, 1, 0));
    arbor_scene_update(s);
    EXPECT_COMPOSED(s, 59 + 16 + 1, 59 + 16 + 1);
    arbor_scene_stats_reset(s);
    arbor_scene_update(s);
    EXPECT_COMPOSED(s, 0, 0);
    /* moving every 10th root */
    for (int k = 0; k < K; k += 10) ASSERT_OK(arbor_node_set_translation(s, sk[k][HIPS], 0, (arbor_real)k, 0));
    arbor_scene_update(s);
    EXPECT_COMPOSED(s, (K / 10) * 59, (K / 10) * 59);
    free(sk);
    arbor_scene_destroy(s);
}

/* Seed 002, section 7, the demo: base, arm (the pivot sandwich as one TRS), hand. Changing the
   hand's yaw recomputes 1 matrix, the bend 2, the base's yaw 3. */
static void test_course_demo_edit_counts(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_real yaw[4], bend[4];
    test_quat_axis_deg(yaw, 0, 1, 0, 30);
    test_quat_axis_deg(bend, 0, 0, 1, 40);
    /* L_arm = T(0,0.2,0) R_z(40) T(0,0.7,0) = T((0,0.2,0) + R_z(40)(0,0.7,0)) R_z(40) */
    const double b = 40.0 * 3.14159265358979323846 / 180.0;
    arbor_node base = TEST_NODE(s, ARBOR_NONE, "base", V3(0, 0.2, 0), yaw, NULL);
    arbor_node arm = TEST_NODE(s, base, "arm", V3(-0.7 * sin(b), 0.2 + 0.7 * cos(b), 0), bend, NULL);
    arbor_node hand = TEST_NODE(s, arm, "hand", V3(0, 0.7, 0), NULL, NULL);
    arbor_real p[3];
    TEST_WORLD_ORIGIN(s, hand, p);
    ASSERT_VEC3_NEAR(p, -0.78, 1.47, 0.45, TEST_TOL_2DP);
    TEST_WORLD_ORIGIN(s, arm, p);
    ASSERT_VEC3_NEAR(p, -0.39, 0.94, 0.22, TEST_TOL_2DP);
    arbor_scene_update(s);

    arbor_real q[4];
    test_quat_axis_deg(q, 0, 1, 0, 15);
    arbor_scene_stats_reset(s);
    ASSERT_OK(arbor_node_set_rotation(s, hand, q[0], q[1], q[2], q[3]));
    arbor_scene_update(s);
    EXPECT_COMPOSED(s, 1, 1);
    /* the hand's position does not move, only its orientation (hands-on 4) */
    TEST_WORLD_ORIGIN(s, hand, p);
    ASSERT_VEC3_NEAR(p, -0.78, 1.47, 0.45, TEST_TOL_2DP);

    arbor_scene_stats_reset(s);
    test_quat_axis_deg(q, 0, 0, 1, 80);
    arbor_trs t = { { (arbor_real)(-0.7 * sin(2 * b)), (arbor_real)(0.2 + 0.7 * cos(2 * b)), 0 },
                    { q[0], q[1], q[2], q[3] }, { 1, 1, 1 } };
    ASSERT_OK(arbor_node_set_trs(s, arm, &t));
    arbor_scene_update(s);
    EXPECT_COMPOSED(s, 2, 2);

    arbor_scene_stats_reset(s);
    test_quat_axis_deg(q, 0, 1, 0, 90);
    ASSERT_OK(arbor_node_set_rotation(s, base, q[0], q[1], q[2], q[3]));
    arbor_scene_update(s);
    EXPECT_COMPOSED(s, 3, 3);
    arbor_scene_destroy(s);
}

/* A scene whose memory comes from c (zeroed here), with realloc or without, and capacity for
   `capacity` nodes (0: the default). */
static arbor_scene *counted_scene(test_counting_allocator *c, bool with_realloc, uint32_t capacity)
{
    memset(c, 0, sizeof *c);
    arbor_scene_desc d;
    memset(&d, 0, sizeof d);
    d.allocator = test_counting_allocator_hooks(c, with_realloc);
    d.initial_capacity = capacity;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&d, &s), ARBOR_OK);
    assert_non_null(s);
    return s;
}

/* (f) Nothing allocates once warm; everything is freed with the sizes it was allocated with.
   Warm means each part has run once and grown what it keeps (docs/RELIABILITY.md, promise 2):
   storage for the nodes, the journal's records, the change list, the subtree-box and instancing
   tables, the player. From then on, frame after frame: writes of every kind (per node, bulk,
   bulk in parallel), lazy and version reads, serial and parallel updates (big enough to run
   on the pool), a reparent under a later node and back (each followed by an update that
   renumbers the slots), destroy, a clone into reserved storage, undo and redo, change lists,
   culling, instance buffers, an animation player's frame and a pose of a skeleton, applied on
   this thread and on the pool (the renumberings keep its nodes in the order they had at its
   creation: see test_pose_after_renumbering for the other case). */
static void run_no_allocation(bool with_realloc)
{
    test_counting_allocator c;
    arbor_scene *s = counted_scene(&c, with_realloc, 0);
    enum { K = 300, N = K * SKEL_N }; /* 17,700 nodes: parallel bulk writes and updates share out */
    arbor_node(*sk)[SKEL_N] = calloc(K, sizeof *sk);
    arbor_real *bulk = malloc((size_t)N * 4 * sizeof *bulk);
    assert_non_null(sk);
    assert_non_null(bulk);
    test_rng rng = test_rng_make(0x5EED);
    for (int k = 0; k < K; k++) build_skeleton(s, sk[k], &rng);
    assert_true(test_alloc_calls(&c) > 0); /* the scene's storage comes from our allocator */
    const arbor_node *all = &sk[0][0];
    arbor_real m[16];
    arbor_mat4_identity(m);
    m[12] = 1;
    /* a small unnamed prefab, cloned and destroyed every frame into storage reserved by the first */
    arbor_node prefab, leaf;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .translation = { 1, 0, 0 } }, &prefab));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = prefab, .translation = { 0, 1, 0 } }, &leaf));
    /* meshes and boxes for culling and instancing */
    const arbor_real lo[3] = { -0.1f, -0.1f, -0.1f }, hi[3] = { 0.1f, 0.1f, 0.1f };
    for (int i = 0; i < N; i += 5) {
        ASSERT_OK(arbor_node_set_mesh(s, all[i], i % 3));
        ASSERT_OK(arbor_node_set_bounds(s, all[i], lo, hi));
    }
    /* a journal step to undo and redo */
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    ASSERT_OK(arbor_journal_set_translation(j, all[1], 0, 2, 0));
    ASSERT_OK(arbor_scene_track_changes(s, true));
    /* a clip of one rotation channel on the first skeleton's second bone */
    const float times[2] = { 0, 1 }, values[8] = { 0, 0, 0, 1, 0, 0.7071f, 0, 0.7071f };
    arbor_channel_desc channel = { .target = 0, .path = ARBOR_ANIM_ROTATION, .key_count = 2, .times = times, .values = values };
    arbor_clip *clip;
    ASSERT_OK(arbor_clip_create(&(arbor_clip_desc){ .channels = &channel, .channel_count = 1 }, &clip));
    arbor_player *player;
    ASSERT_OK(arbor_player_create(clip, s, &all[1], 1, &player));
    arbor_pose *pose; /* skeleton 1's bones, which no reparent below moves */
    ASSERT_OK(arbor_pose_create(s, sk[1], SKEL_N, &pose));
    arbor_pool *pool = NULL;
    assert_int_equal(arbor_pool_create(2, &pool), ARBOR_OK);
    assert_non_null(pool);
    arbor_executor ex = arbor_pool_executor(pool);
    arbor_node *visible = malloc((N + 2) * sizeof *visible);
    float *instances = malloc((size_t)(N + 2) * 16 * sizeof *instances);
    assert_non_null(visible);
    assert_non_null(instances);
    const arbor_real planes[8] = { 1, 0, 0, 100, 0, 1, 0, 100 };
    arbor_instance_batch batches[8];
    uint64_t relayouts = 0;

    for (int frame = 0; frame < 28; frame++) {
        if (frame == 4) {
            /* warm (each kind of frame, serial and parallel, has run): from here on, nothing may
               allocate */
            c.allocs = c.reallocs = 0;
            arbor_scene_stats_reset(s);
        }
        for (int i = 0; i < N; i++) {
            arbor_real q[4];
            test_rng_quat(&rng, q);
            ASSERT_OK(arbor_node_set_rotation(s, all[i], q[0], q[1], q[2], q[3]));
        }
        for (int i = 0; i < N; i += 7) ASSERT_OK(arbor_node_set_translation(s, all[i], 0, 1, (arbor_real)frame));
        for (int i = 3; i < N; i += 11) ASSERT_OK(arbor_node_set_scale(s, all[i], 1, 1.5f, 1));
        for (int i = 5; i < N; i += 13) {
            arbor_trs t = { { 0, 0, 1 }, { 0, 0, 0, 1 }, { 2, 2, 2 } };
            ASSERT_OK(arbor_node_set_trs(s, all[i], &t));
        }
        for (int i = 6; i < N; i += 17) ASSERT_OK(arbor_node_set_local_matrix(s, all[i], m, false));
        for (int i = 0; i < N; i++) test_rng_quat(&rng, bulk + 4 * i);
        if (frame % 2) {
            ASSERT_OK(arbor_scene_set_rotations_parallel(s, all, bulk, N, &ex));
            ASSERT_OK(arbor_scene_set_translations_parallel(s, all, bulk, N, &ex));
        } else {
            ASSERT_OK(arbor_scene_set_rotations(s, all, bulk, N));
            ASSERT_OK(arbor_scene_set_scales(s, all, bulk, N));
        }
        /* reparent: an early skeleton's root under a late one's bone (the slot order breaks: the
           update renumbers), and the one moved last frame under an earlier node (order kept) */
        ASSERT_OK(arbor_node_set_parent(s, sk[3 + frame][0], sk[K - 1][5], ARBOR_NONE, ARBOR_KEEP_LOCAL));
        if (frame) ASSERT_OK(arbor_node_set_parent(s, sk[2 + frame][0], sk[0][5], ARBOR_NONE, ARBOR_KEEP_WORLD));
        /* clone, then destroy the copy: its slots come back for the next frame's */
        arbor_node copy;
        ASSERT_OK(arbor_node_clone(s, prefab, sk[2][3], &copy));
        if (frame % 2 == 0) {
            /* lazy reads and version reads before the update */
            for (int i = N - 1; i >= 0; i -= 3) {
                arbor_real w[16];
                TEST_WORLD(s, all[i], w);
                (void)arbor_node_world_version(s, all[i]);
            }
        }
        ASSERT_OK(arbor_player_apply(player, frame / 30.0, ARBOR_WRAP_LOOP));
        arbor_trs *posed = arbor_pose_trs(pose);
        for (int i = 0; i < SKEL_N; i++) test_rng_quat(&rng, posed[i].rotation);
        ASSERT_OK(arbor_pose_apply(pose, frame % 2 ? &ex : NULL));
        if (frame % 4 < 2)
            arbor_scene_update(s);
        else
            arbor_scene_update_parallel(s, &ex);
        relayouts += stats_of(s).relayouts;
        arbor_scene_stats_reset(s);
        ASSERT_OK(arbor_node_destroy(s, copy));
        ASSERT_OK(arbor_journal_undo(j));
        ASSERT_OK(arbor_journal_redo(j));
        for (int i = 0; i < N; i++) {
            arbor_real w[16];
            TEST_WORLD(s, all[i], w);
            assert_int_not_equal(arbor_node_world_version(s, all[i]), 0);
        }
        arbor_scene_update(s);
        assert_true(arbor_scene_changed(s, visible, N + 2) > 0);
        uint32_t seen = 0;
        ASSERT_OK(arbor_scene_cull(s, planes, 2, visible, N + 2, &seen, NULL));
        assert_true(seen > 0);
        uint32_t batch_count, matrix_count;
        ASSERT_OK(arbor_scene_instance_batches(s, visible, seen, ARBOR_LAYOUT_MAT4, instances, N + 2, &matrix_count, batches,
                                               8, &batch_count));
        assert_true(batch_count > 0);
    }
    assert_int_equal(c.allocs, 0);
    assert_int_equal(c.reallocs, 0);
    assert_int_equal(stats_of(s).allocations, 0);
    if (relayouts < 10) fail_msg("%llu relayouts", (unsigned long long)relayouts); /* the updates after the reparents renumbered the slots */
    assert_int_equal(c.size_mismatches, 0);
    assert_int_equal(c.failed, 0);

    arbor_pool_destroy(pool);
    arbor_pose_destroy(pose);
    arbor_player_destroy(player);
    arbor_clip_destroy(clip);
    arbor_journal_destroy(j);
    arbor_scene_clear(s);
    arbor_scene_destroy(s);
    free(sk);
    free(bulk);
    free(visible);
    free(instances);
    assert_int_equal(c.live_blocks, 0);
    assert_int_equal(c.live_bytes, 0);
    assert_int_equal(c.size_mismatches, 0);
}

static void test_no_allocation_once_warm(void **state)
{
    (void)state;
    run_no_allocation(true);
}

static void test_no_allocation_once_warm_without_realloc(void **state)
{
    (void)state;
    run_no_allocation(false);
}

/* What a renumbering costs a pose (pose.h): once the scene renumbered its slots so that the
   pose's nodes are no longer in the order they had at its creation, the first apply after
   each change of the tree allocates one block (its order sorted again) and frees it; applies
   with no change of the tree, and a pose whose order the renumberings kept, allocate nothing. */
static void test_pose_after_renumbering(void **state)
{
    (void)state;
    test_counting_allocator c;
    arbor_scene *s = counted_scene(&c, true, 16);
    /* x before y in storage; z and w elsewhere, for changes of the tree that touch neither */
    arbor_node x = TEST_NODE(s, ARBOR_NONE, "x", V3(1, 0, 0), NULL, NULL);
    arbor_node y = TEST_NODE(s, ARBOR_NONE, "y", V3(0, 1, 0), NULL, NULL);
    arbor_node z = TEST_NODE(s, ARBOR_NONE, "z", NULL, NULL, NULL);
    arbor_node w = TEST_NODE(s, ARBOR_NONE, "w", NULL, NULL, NULL);
    const arbor_node nodes[2] = { x, y };
    arbor_pose *pose;
    ASSERT_OK(arbor_pose_create(s, nodes, 2, &pose));
    ASSERT_OK(arbor_pose_apply(pose, NULL));
    arbor_scene_update(s);
    /* in creation order: a change of the tree costs nothing */
    uint64_t before = c.allocs + c.reallocs;
    ASSERT_OK(arbor_node_set_parent(s, z, w, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_pose_apply(pose, NULL));
    assert_int_equal(c.allocs + c.reallocs, before);
    /* x under y, a later node: the update renumbers the slots, y's now before x's */
    arbor_scene_stats_reset(s);
    ASSERT_OK(arbor_node_set_parent(s, x, y, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    arbor_scene_update(s);
    assert_int_equal(stats_of(s).relayouts, 1);
    for (int round = 0; round < 3; round++) {
        before = c.allocs + c.reallocs;
        int64_t blocks = c.live_blocks;
        ASSERT_OK(arbor_pose_apply(pose, NULL)); /* after a change of the tree: one block, freed */
        assert_int_equal(c.allocs + c.reallocs, before + 1);
        assert_int_equal(c.live_blocks, blocks);
        ASSERT_OK(arbor_pose_apply(pose, NULL)); /* no change since: nothing */
        ASSERT_OK(arbor_pose_read(pose));
        assert_int_equal(c.allocs + c.reallocs, before + 1);
        ASSERT_OK(arbor_node_set_parent(s, z, round % 2 ? w : ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    }
    arbor_pose_destroy(pose);
    arbor_scene_destroy(s);
    assert_int_equal(c.live_blocks, 0);
    assert_int_equal(c.size_mismatches, 0);
}

/* The stats count allocations made through the allocator, and initial_capacity reserves. */
static void test_allocation_stats_and_initial_capacity(void **state)
{
    (void)state;
    test_counting_allocator c;
    arbor_scene *s = counted_scene(&c, true, 1000);
    arbor_scene_stats_reset(s);
    uint64_t before = test_alloc_calls(&c);
    arbor_node prev = ARBOR_NONE;
    for (int i = 0; i < 1000; i++) prev = TEST_NODE(s, i % 10 == 0 ? ARBOR_NONE : prev, NULL, V3(1, 0, 0), NULL, NULL);
    arbor_scene_update(s);
    /* unnamed nodes within the reserved capacity need no storage growth */
    assert_int_equal(test_alloc_calls(&c), before);
    assert_int_equal(stats_of(s).allocations, 0);
    /* past it, storage grows, and the stats see it */
    for (int i = 0; i < 5000; i++) TEST_NODE(s, ARBOR_NONE, NULL, NULL, NULL, NULL);
    assert_true(test_alloc_calls(&c) > before);
    assert_int_equal(stats_of(s).allocations, test_alloc_calls(&c) - before);
    arbor_scene_destroy(s);
    assert_int_equal(c.live_blocks, 0);
    assert_int_equal(c.size_mismatches, 0);
}

int main(void)
{
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skeleton_shape),
        cmocka_unit_test(test_static_scene_composes_nothing),
        cmocka_unit_test(test_edit_recomputes_exactly_the_subtree),
        cmocka_unit_test(test_lazy_read_composes_only_the_chain),
        cmocka_unit_test(test_parent_move_composes_child_locals),
        cmocka_unit_test(test_repeated_writes_cost_once),
        cmocka_unit_test(test_update_after_lazy_reads_composes_nothing),
        cmocka_unit_test(test_cost_follows_changes_not_scene_size),
        cmocka_unit_test(test_course_demo_edit_counts),
        cmocka_unit_test(test_no_allocation_once_warm),
        cmocka_unit_test(test_no_allocation_once_warm_without_realloc),
        cmocka_unit_test(test_pose_after_renumbering),
        cmocka_unit_test(test_allocation_stats_and_initial_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
