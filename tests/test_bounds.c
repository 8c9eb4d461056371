/* SPDX-License-Identifier: MIT */
/*
 * tests/test_bounds.c: boxes up the tree, hierarchical culling and instancing (bounds.h).
 *
 * - seed 002 section 11: the world boxes of base, arm and hand at the demo's default pose, the
 *   subtree boxes, the bounding sphere, and the two planes: x = 1 decided in one box test,
 *   x = -0.6 in five (base rejected, arm and hand straddling);
 * - what an edit recomputes (the stats' subtree_boxes) on the 59-bone skeleton of section 7:
 *   the edited subtree and its ancestors only (25 boxes for the left hand, 13 for a fingertip);
 * - random scenes: the culled set and order against a per-node test of every box, and every
 *   subtree box against the union over arbor_node_collect_subtree, after rounds of random
 *   edits (transforms, reparenting, destruction, boxes set and removed, with and without
 *   updates); world boxes against the eight corners transformed in double;
 * - frustum planes of known matrices, the infinite far plane;
 * - instancing: the robot arm's mirrored arm in batches of its own (section 12), four wheels in
 *   one batch, both layouts, batch_cap too small, dead nodes;
 * - allocation: none for a scene without bounds, none per frame once warm;
 * - a chain a million deep; error codes.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "arbor/gltf.h"

#define WL_REAL arbor_real
#include "../bench/workloads.h" /* the 59-bone skeleton */
#include "arbor/edit.h"
#include "arbor/parallel.h"

/* ---- helpers ------------------------------------------------------------------------------------ */

static void set_half_box(arbor_scene *s, arbor_node n, double hx, double hy, double hz) {
    ASSERT_OK(arbor_node_set_bounds(s, n, V3(-hx, -hy, -hz), V3(hx, hy, hz)));
}

/* A box's x extent, as section 11 prints it (three decimals). */
#define ASSERT_X_RANGE(box, lo, hi)                  \
    do {                                             \
        ASSERT_NEAR((box)[0], (lo), TEST_TOL_3DP);   \
        ASSERT_NEAR((box)[3], (hi), TEST_TOL_3DP);   \
    } while (0)

/* box: min (3), max (3) */
static void subtree_box(arbor_scene *s, arbor_node n, arbor_real box[6]) {
    ASSERT_OK(arbor_node_subtree_bounds(s, n, box, box + 3));
}

static void world_box(arbor_scene *s, arbor_node n, arbor_real box[6]) {
    ASSERT_OK(arbor_node_world_bounds(s, n, box, box + 3));
}

static uint64_t boxes_computed(const arbor_scene *s) {
    arbor_scene_stats st;
    arbor_scene_stats_get(s, &st);
    return st.subtree_boxes;
}

static uint64_t allocations(const arbor_scene *s) {
    arbor_scene_stats st;
    arbor_scene_stats_get(s, &st);
    return st.allocations;
}

/* Where a box lies against planes, by brute force: 0 outside, 1 straddling, 2 inside. Each
   plane is evaluated at the box's eight corners (d + a x + b y + c z, summed in that order as
   bounds.h does, so with the same roundings: rounding keeps order, and the extreme corners
   give the library's extremes bit for bit). */
static int classify(const arbor_real box[6], const arbor_real *planes, uint32_t count) {
    int result = 2;
    for (uint32_t i = 0; i < count; i++) {
        const arbor_real *p = planes + 4 * i;
        int behind = 0;
        for (int corner = 0; corner < 8; corner++) {
            arbor_real v = p[3];
            for (int k = 0; k < 3; k++) v = v + p[k] * box[(corner >> k & 1) ? 3 + k : k];
            behind += v < 0;
        }
        if (behind == 8) return 0;
        if (behind) result = 1;
    }
    return result;
}

/* ---- section 11: five tests instead of many ------------------------------------------------------ */

typedef struct robot3 { arbor_node base, arm, hand; } robot3;

/* The three-node tree of section 4 at the default pose (yaw 30, bend 40): the arm's pivot
   sandwich T(0,0.2,0) R_z(40) T(0,0.7,0) as one TRS; the demo's boxes. */
static robot3 build_robot3(arbor_scene *s) {
    robot3 r;
    const double bend = 40.0 * 3.14159265358979323846 / 180.0;
    arbor_real yaw30[4], bend40[4];
    test_quat_axis_deg(yaw30, 0, 1, 0, 30);
    test_quat_axis_deg(bend40, 0, 0, 1, 40);
    r.base = TEST_NODE(s, ARBOR_NONE, "base", V3(0, 0.2, 0), yaw30, NULL);
    r.arm = TEST_NODE(s, r.base, "arm", V3(-0.7 * sin(bend), 0.2 + 0.7 * cos(bend), 0), bend40, NULL);
    r.hand = TEST_NODE(s, r.arm, "hand", V3(0, 0.7, 0), NULL, NULL);
    set_half_box(s, r.base, 0.35, 0.2, 0.35);
    set_half_box(s, r.arm, 0.12, 0.7, 0.12);
    set_half_box(s, r.hand, 0.22, 0.12, 0.22);
    return r;
}

static void test_section11_boxes_and_sphere(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    robot3 r = build_robot3(s);
    arbor_real b[6], c[3], radius, p[3];

    /* The hand sits where section 4 says: the pose is the demo's. */
    TEST_WORLD_ORIGIN(s, r.hand, p);
    ASSERT_VEC3_NEAR(p, -0.78, 1.47, 0.45, TEST_TOL_2DP);

    world_box(s, r.base, b);
    ASSERT_X_RANGE(b, -0.478, 0.478);
    world_box(s, r.arm, b);
    ASSERT_X_RANGE(b, -0.919, 0.140);
    world_box(s, r.hand, b);
    ASSERT_X_RANGE(b, -1.102, -0.457);

    subtree_box(s, r.arm, b);
    ASSERT_X_RANGE(b, -1.102, 0.140);
    subtree_box(s, r.base, b);
    ASSERT_X_RANGE(b, -1.102, 0.478);
    /* The hand's subtree is the hand. */
    arbor_real own[6];
    subtree_box(s, r.hand, b);
    world_box(s, r.hand, own);
    ASSERT_REALS_BITS_EQUAL(b, own, 6);

    ASSERT_OK(arbor_node_subtree_sphere(s, r.base, c, &radius));
    ASSERT_VEC3_NEAR(c, -0.312, 0.853, 0.143, TEST_TOL_3DP);
    ASSERT_NEAR(radius, 1.318, TEST_TOL_3DP);
    /* The sphere is the box's centre and half-diagonal. */
    subtree_box(s, r.base, b);
    double d2 = 0;
    for (int k = 0; k < 3; k++) d2 += ((double)b[3 + k] - b[k]) * ((double)b[3 + k] - b[k]);
    ASSERT_NEAR(radius, sqrt(d2) / 2, TEST_EPS);
    arbor_scene_destroy(s);
}

static void test_section11_five_tests(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    robot3 r = build_robot3(s);
    arbor_node out[4];
    arbor_cull_stats st;

    /* x = 1, keeping x < 1: the tree's box is inside, one test accepts all three parts. */
    const arbor_real keep_below_1[4] = { -1, 0, 0, 1 };
    assert_int_equal(TEST_CULL(s, keep_below_1, 1, out, 4, &st), 3);
    assert_int_equal(st.box_tests, 1);
    assert_int_equal(st.visible, 3);
    ASSERT_NODE_EQ(out[0], r.base);
    ASSERT_NODE_EQ(out[1], r.arm);
    ASSERT_NODE_EQ(out[2], r.hand);

    /* x = -0.6, keeping x < -0.6: the tree straddles; the base is rejected in one test, the arm
       subtree straddles, the arm and the hand both straddle: five tests. */
    const arbor_real keep_below_m06[4] = { -1, 0, 0, (arbor_real)-0.6 };
    assert_int_equal(TEST_CULL(s, keep_below_m06, 1, out, 4, &st), 2);
    assert_int_equal(st.box_tests, 5);
    ASSERT_NODE_EQ(out[0], r.arm);
    ASSERT_NODE_EQ(out[1], r.hand);

    /* Keeping x > 0.6: everything is outside, one test. */
    const arbor_real keep_above_06[4] = { 1, 0, 0, (arbor_real)-0.6 };
    assert_int_equal(TEST_CULL(s, keep_above_06, 1, out, 4, &st), 0);
    assert_int_equal(st.box_tests, 1);

    /* cap smaller than the answer: the count is whole, the first cap are written. */
    out[1] = ARBOR_NONE;
    assert_int_equal(TEST_CULL(s, keep_below_1, 1, out, 1, &st), 3);
    ASSERT_NODE_EQ(out[0], r.base);
    ASSERT_NODE_NONE(out[1]);
    assert_int_equal(TEST_CULL(s, keep_below_1, 1, NULL, 0, NULL), 3);

    /* No planes: everything inside, one test per bounded root subtree; a root without bounds
       anywhere costs none. */
    TEST_NODE(s, ARBOR_NONE, "empty", NULL, NULL, NULL);
    assert_int_equal(TEST_CULL(s, NULL, 0, out, 4, &st), 3);
    assert_int_equal(st.box_tests, 1);

    /* A node without bounds between bounded ones costs no test of its own: remove the arm's box;
       against x = -0.6 the tests are tree, base, arm subtree, hand = 4 and the hand is visible. */
    ASSERT_OK(arbor_node_set_bounds(s, r.arm, NULL, NULL));
    assert_int_equal(TEST_CULL(s, keep_below_m06, 1, out, 4, &st), 1);
    assert_int_equal(st.box_tests, 4);
    ASSERT_NODE_EQ(out[0], r.hand);
    arbor_scene_destroy(s);
}

/* The same boxes from examples/robot_arm.gltf: mesh bounds come from the POSITION accessors'
   min and max at load (the joints are nodes of their own there). */
static void test_section11_from_gltf(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_gltf *doc = NULL;
    ASSERT_OK(arbor_gltf_load(s, ARBOR_SOURCE_DIR "/examples/robot_arm.gltf", NULL, &doc));
    arbor_real b[6];
    world_box(s, arbor_scene_find(s, "base"), b);
    ASSERT_X_RANGE(b, -0.478, 0.478);
    world_box(s, arbor_scene_find(s, "base/joint/arm"), b);
    ASSERT_X_RANGE(b, -0.919, 0.140);
    world_box(s, arbor_scene_find(s, "base/joint/arm/hand"), b);
    ASSERT_X_RANGE(b, -1.102, -0.457);
    subtree_box(s, arbor_scene_find(s, "base/joint"), b);
    ASSERT_X_RANGE(b, -1.102, 0.140);
    /* The mirrored hand is the first reflected through the base's yz plane, then yawed. */
    world_box(s, arbor_scene_find(s, "base/mirror/joint2/arm2/hand2"), b);
    ASSERT_NEAR((b[0] + b[3]) / 2, 0.78, TEST_TOL_2DP);
    ASSERT_NEAR((b[2] + b[5]) / 2, -0.45, TEST_TOL_2DP);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
}

/* ---- what an edit recomputes: the 59-bone skeleton of section 7 ------------------------------------ */


/* A skeleton with random transforms (WORKLOADS.md's stream) and a small box on every bone. */
static void build_skeleton(arbor_scene *s, arbor_node bones[59]) {
    test_rng g = test_rng_make(0x5EED);
    for (int i = 0; i < 59; i++) {
        arbor_real t[3] = { (arbor_real)test_rng_sym(&g), (arbor_real)test_rng_sym(&g), (arbor_real)test_rng_sym(&g) };
        arbor_real q[4];
        test_rng_quat(&g, q);
        bones[i] = TEST_NODE(s, wl_skeleton_parent[i] < 0 ? ARBOR_NONE : bones[wl_skeleton_parent[i]], NULL, t, q, NULL);
        set_half_box(s, bones[i], 0.1, 0.1, 0.1);
    }
}

/* Boxes the next query of the root recomputes. */
static uint64_t recomputed(arbor_scene *s, arbor_node root) {
    arbor_real b[6];
    uint64_t before = boxes_computed(s);
    subtree_box(s, root, b);
    return boxes_computed(s) - before;
}

static void test_edit_recomputes_subtree_and_ancestors(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node b[59];
    build_skeleton(s, b);
    const arbor_real *q = Q4(0, 0.6, 0, 0.8);

    assert_int_equal(recomputed(s, b[0]), 59); /* the first query computes every box */
    assert_int_equal(recomputed(s, b[0]), 0);  /* nothing changed: nothing */
    arbor_scene_update(s);
    assert_int_equal(recomputed(s, b[0]), 0);  /* an update changes no box */

    /* The left hand: its 16 bones and its 9 ancestors (wrist, forearm, upper arm, five spine
       bones, hips). */
    ASSERT_OK(arbor_node_set_rotation(s, b[12], q[0], q[1], q[2], q[3]));
    assert_int_equal(recomputed(s, b[0]), 25);
    /* A fingertip: itself and its 12 ancestors. */
    ASSERT_OK(arbor_node_set_rotation(s, b[15], q[0], q[1], q[2], q[3]));
    assert_int_equal(recomputed(s, b[0]), 13);
    /* The root: all 59 (a change above a node is seen in its world version). */
    ASSERT_OK(arbor_node_set_translation(s, b[0], 1, 2, 3));
    assert_int_equal(recomputed(s, b[0]), 59);
    /* The first spine bone: its subtree of 46 and the hips. */
    ASSERT_OK(arbor_node_set_rotation(s, b[1], q[0], q[1], q[2], q[3]));
    assert_int_equal(recomputed(s, b[0]), 47);
    /* The left upper arm: 19, and six ancestors. */
    ASSERT_OK(arbor_node_set_scale(s, b[9], 2, 2, 2));
    assert_int_equal(recomputed(s, b[0]), 25);

    /* A query below the root recomputes only up to where it was asked: the fingertip's chain to
       the hand (4), then the root's query the rest of the chain (9). */
    ASSERT_OK(arbor_node_set_rotation(s, b[15], q[1], q[0], q[2], q[3]));
    assert_int_equal(recomputed(s, b[12]), 4);
    assert_int_equal(recomputed(s, b[0]), 9);

    /* Writing the same node twice before a query costs the same as once. */
    ASSERT_OK(arbor_node_set_rotation(s, b[15], q[0], q[1], q[2], q[3]));
    ASSERT_OK(arbor_node_set_rotation(s, b[15], q[1], q[0], q[2], q[3]));
    assert_int_equal(recomputed(s, b[0]), 13);

    /* A box set on head_end: itself and its 8 ancestors. */
    set_half_box(s, b[8], 0.3, 0.3, 0.3);
    assert_int_equal(recomputed(s, b[0]), 9);

    /* A finger moved under the other hand: the finger (3, its world changed), the old chain to
       the hand (12, 11, 10, 9), the new one (31, 30, 29, 28) and the shared spine and hips (6). */
    ASSERT_OK(arbor_node_set_parent(s, b[13], b[31], ARBOR_NONE, ARBOR_KEEP_LOCAL));
    assert_int_equal(recomputed(s, b[0]), 17);
    /* Keeping the world matrix, the moved finger's box needs no new world matrix but is
       recomputed with its new parent all the same; here the chain is shorter: back under the
       left hand. */
    ASSERT_OK(arbor_node_set_parent(s, b[13], b[12], ARBOR_NONE, ARBOR_KEEP_WORLD));
    assert_int_equal(recomputed(s, b[0]), 17);

    /* A finger of the right hand destroyed: the right hand's chain (31, 30, 29, 28, 5 to 0). */
    ASSERT_OK(arbor_node_destroy(s, b[32]));
    assert_int_equal(recomputed(s, b[0]), 10);

    /* Reading world matrices, versions or world boxes marks nothing. */
    arbor_real w[16], box[6];
    TEST_WORLD(s, b[40], w);
    world_box(s, b[40], box);
    assert_int_equal(recomputed(s, b[0]), 0);
    arbor_scene_destroy(s);
}

/* Bulk writes (parallel.h) mark boxes too, also on their one-pass path for writes to much of a
   parents-first scene (an eighth of it or more). */
static void test_bulk_writes_mark_boxes(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node b[59], leaves[8];
    build_skeleton(s, b);
    assert_int_equal(recomputed(s, b[0]), 59);
    arbor_real q[59 * 4];
    for (int i = 0; i < 59; i++) test_quat_axis_deg(q + 4 * i, 0, 1, 0, 10 + i);
    /* The five left fingertips, head_end and both toe ends: 15 finger bones, the hand's chain
       (12, 11, 10, 9), head_end, head and neck, the spine (5 to 1), the legs (6 each), the hips. */
    const int leaf[8] = { 15, 18, 21, 24, 27, 8, 52, 58 };
    for (int i = 0; i < 8; i++) leaves[i] = b[leaf[i]];
    ASSERT_OK(arbor_scene_set_rotations(s, leaves, q, 8));
    assert_int_equal(recomputed(s, b[0]), 40);
    ASSERT_OK(arbor_scene_set_rotations(s, b, q, 59));
    assert_int_equal(recomputed(s, b[0]), 59);
    /* And the box is the union of the bones' boxes. */
    arbor_real box[6], want[6] = { INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY }, own[6];
    for (int i = 0; i < 59; i++) {
        world_box(s, b[i], own);
        for (int k = 0; k < 3; k++) {
            want[k] = own[k] < want[k] ? own[k] : want[k];
            want[3 + k] = own[3 + k] > want[3 + k] ? own[3 + k] : want[3 + k];
        }
    }
    subtree_box(s, b[0], box);
    ASSERT_REALS_BITS_EQUAL(box, want, 6);
    arbor_scene_destroy(s);
}

/* A parallel bulk write (every bone but the hips of 300 skeletons, in slot order, on two
   threads): the boxes are marked on the calling thread; the written bones and the hips above
   them (whose world versions did not change) are all recomputed. */
static void test_parallel_bulk_write_marks_boxes(void **state) {
    (void)state;
    enum { SKELETONS = 300, N = SKELETONS * 59 };
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node *b = malloc(sizeof *b * N);
    arbor_real *q = malloc(sizeof *q * 4 * N);
    for (int k = 0; k < SKELETONS; k++) build_skeleton(s, b + 59 * k);
    for (int i = 0; i < N; i++) test_quat_axis_deg(q + 4 * i, 1, 0, 0, i % 90);
    arbor_pool *pool = NULL;
    assert_int_equal(arbor_pool_create(2, &pool), ARBOR_OK);
    assert_non_null(pool);
    arbor_executor ex = arbor_pool_executor(pool);
    assert_int_equal(TEST_CULL(s, NULL, 0, NULL, 0, NULL), N);
    arbor_node *bones = malloc(sizeof *bones * N);
    uint32_t count = 0;
    for (int i = 0; i < N; i++)
        if (i % 59) bones[count++] = b[i];
    uint64_t before = boxes_computed(s);
    ASSERT_OK(arbor_scene_set_rotations_parallel(s, bones, q, count, &ex));
    assert_int_equal(TEST_CULL(s, NULL, 0, NULL, 0, NULL), N);
    assert_int_equal(boxes_computed(s) - before, N);
    arbor_real box[6], own[6];
    subtree_box(s, b[59 * 7 + 12], box); /* a left hand: its box holds its fingertips' */
    world_box(s, b[59 * 7 + 15], own);
    for (int k = 0; k < 3; k++) assert_true(box[k] <= own[k] && box[3 + k] >= own[3 + k]);
    arbor_pool_destroy(pool);
    free(bones);
    free(b);
    free(q);
    arbor_scene_destroy(s);
}

/* The subtree box of every root against the union of its nodes' world boxes. */
static void check_roots(arbor_scene *s) {
    arbor_node sub[64];
    for (arbor_node r = arbor_scene_first_root(s); !arbor_node_is_none(r); r = arbor_node_next_sibling(s, r)) {
        arbor_real got[6], want[6] = { INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY }, box[6];
        uint32_t size = arbor_node_collect_subtree(s, r, sub, 64);
        assert_true(size <= 64);
        for (uint32_t i = 0; i < size; i++) {
            world_box(s, sub[i], box);
            for (int k = 0; k < 3; k++) {
                want[k] = box[k] < want[k] ? box[k] : want[k];
                want[3 + k] = box[3 + k] > want[3 + k] ? box[3 + k] : want[3 + k];
            }
        }
        subtree_box(s, r, got);
        ASSERT_REALS_BITS_EQUAL(got, want, 6);
    }
}

/* When an update renumbers the storage (scene/layout.c), the subtree boxes move with their
   nodes: only what changed is recomputed after it. */
static void test_boxes_survive_relayout(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node b[4][59];
    for (int k = 0; k < 4; k++) build_skeleton(s, b[k]);
    arbor_node late = TEST_NODE(s, ARBOR_NONE, "late", V3(5, 0, 0), NULL, NULL);
    set_half_box(s, late, 0.5, 0.5, 0.5);
    check_roots(s);
    /* The third skeleton's left arm under a node made after it: the order breaks. */
    ASSERT_OK(arbor_node_set_parent(s, b[2][9], late, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    /* Much to do (the first skeleton moved: 59 of 237 nodes): the update renumbers. */
    ASSERT_OK(arbor_node_set_translation(s, b[0][0], 3, 0, 0));
    arbor_scene_stats before, after;
    arbor_scene_stats_get(s, &before);
    arbor_scene_update(s);
    arbor_scene_stats_get(s, &after);
    assert_int_equal(after.relayouts - before.relayouts, 1);
    /* Recomputed: the first skeleton (59), the arm's old chain (5 to 0 in the third: 6) and its
       new one (the arm's 19 bones have new world matrices, and late): 85. */
    uint64_t computed = boxes_computed(s);
    check_roots(s);
    assert_int_equal(boxes_computed(s) - computed, 59 + 6 + 19 + 1);
    arbor_scene_destroy(s);
}

/* What the journal undoes and redoes (edit.h), and clones, keep the boxes right. */
static void test_journal_and_clones(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    robot3 r = build_robot3(s);
    arbor_real box[6];
    subtree_box(s, r.base, box);
    ASSERT_X_RANGE(box, -1.102, 0.478);
    /* A bigger box on the hand, undone and redone (the journal swaps the records). */
    ASSERT_OK(arbor_journal_set_bounds(j, r.hand, V3(-2, -2, -2), V3(2, 2, 2)));
    subtree_box(s, r.base, box);
    /* x: -0.779 - 2 (|0.66| + |0.56| + |0.50|), the rotated cube's reach */
    ASSERT_NEAR(box[0], -4.220, TEST_TOL_3DP);
    ASSERT_OK(arbor_journal_undo(j));
    subtree_box(s, r.base, box);
    ASSERT_X_RANGE(box, -1.102, 0.478);
    ASSERT_OK(arbor_journal_redo(j));
    subtree_box(s, r.base, box);
    ASSERT_NEAR(box[0], -4.220, TEST_TOL_3DP);
    ASSERT_OK(arbor_journal_undo(j));
    /* The arm destroyed (held for undo) and brought back. */
    ASSERT_OK(arbor_journal_destroy_node(j, r.arm));
    subtree_box(s, r.base, box);
    ASSERT_X_RANGE(box, -0.478, 0.478);
    ASSERT_OK(arbor_journal_undo(j));
    subtree_box(s, r.base, box);
    ASSERT_X_RANGE(box, -1.102, 0.478);
    /* A clone into a scene with no bounds of its own: its boxes count. */
    arbor_scene *other = NULL;
    assert_int_equal(arbor_scene_create(NULL, &other), ARBOR_OK);
    arbor_node copy;
    ASSERT_OK(arbor_node_clone_from(other, s, r.base, ARBOR_NONE, &copy));
    subtree_box(other, copy, box);
    ASSERT_X_RANGE(box, -1.102, 0.478);
    assert_int_equal(TEST_CULL(other, NULL, 0, NULL, 0, NULL), 3);
    arbor_scene_destroy(other);
    arbor_scene_destroy(s);
    arbor_journal_destroy(j); /* after its scene */
}

/* ---- random scenes against brute force ------------------------------------------------------------- */

#define RANDOM_NODES 500

typedef struct random_scene {
    arbor_scene *s;
    test_rng g;
    arbor_node nodes[RANDOM_NODES * 2];
    uint32_t count;
} random_scene;

static void random_box(random_scene *r, arbor_node n) {
    arbor_real lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        double c = 0.5 * test_rng_sym(&r->g), h = 0.02 + 0.4 * test_rng_uniform(&r->g);
        lo[k] = (arbor_real)(c - h);
        hi[k] = (arbor_real)(c + h);
    }
    ASSERT_OK(arbor_node_set_bounds(r->s, n, lo, hi));
}

static void random_trs(random_scene *r, arbor_trs *trs) {
    for (int k = 0; k < 3; k++) trs->translation[k] = (arbor_real)(2.0 * test_rng_sym(&r->g));
    test_rng_quat(&r->g, trs->rotation);
    for (int k = 0; k < 3; k++) trs->scale[k] = (arbor_real)(0.6 + 0.8 * test_rng_uniform(&r->g));
    if (test_rng_uniform(&r->g) < 0.1) trs->scale[0] = -trs->scale[0]; /* a mirror */
}

static arbor_node random_live(random_scene *r) {
    for (;;) {
        arbor_node n = r->nodes[test_rng_below(&r->g, r->count)];
        if (arbor_node_alive(r->s, n)) return n;
    }
}

static void add_random_node(random_scene *r) {
    arbor_node_desc d = { 0 };
    arbor_trs trs;
    random_trs(r, &trs);
    memcpy(d.translation, trs.translation, sizeof d.translation);
    memcpy(d.rotation, trs.rotation, sizeof d.rotation);
    memcpy(d.scale, trs.scale, sizeof d.scale);
    if (r->count && test_rng_uniform(&r->g) > 0.05) d.parent = random_live(r);
    arbor_node n;
    ASSERT_OK(arbor_node_create(r->s, &d, &n));
    if (test_rng_uniform(&r->g) < 0.7) random_box(r, n);
    r->nodes[r->count++] = n;
}

/* Planes of a random perspective camera looking into the scene, or random planes. */
static uint32_t random_planes(random_scene *r, arbor_node camera, arbor_real planes[24]) {
    if (test_rng_uniform(&r->g) < 0.3) {
        uint32_t count = 1 + test_rng_below(&r->g, 6);
        for (uint32_t i = 0; i < count; i++) {
            arbor_real n[3] = { (arbor_real)test_rng_sym(&r->g), (arbor_real)test_rng_sym(&r->g),
                                (arbor_real)test_rng_sym(&r->g) };
            for (int k = 0; k < 3; k++) planes[4 * i + k] = n[k];
            planes[4 * i + 3] = (arbor_real)(4 * test_rng_sym(&r->g));
        }
        return count;
    }
    arbor_camera cam = { .type = ARBOR_CAMERA_PERSPECTIVE,
                         .yfov = (arbor_real)(0.3 + 1.2 * test_rng_uniform(&r->g)),
                         .aspect = (arbor_real)(0.5 + 1.5 * test_rng_uniform(&r->g)),
                         .znear = (arbor_real)0.1,
                         .zfar = (arbor_real)(test_rng_uniform(&r->g) < 0.2 ? 0 : 3 + 20 * test_rng_uniform(&r->g)) };
    ASSERT_OK(arbor_node_set_camera(r->s, camera, &cam));
    arbor_real eye[3], target[3], vp[16];
    for (int k = 0; k < 3; k++) {
        eye[k] = (arbor_real)(8 * test_rng_sym(&r->g));
        target[k] = (arbor_real)(2 * test_rng_sym(&r->g));
    }
    ASSERT_OK(arbor_camera_look_at(r->s, camera, eye, target, V3(0, 1, 0)));
    ASSERT_OK(arbor_camera_view_projection(r->s, camera, 0, vp));
    arbor_frustum_planes(vp, planes);
    return 6;
}

/* The culled list against every node's own box tested alone, in pre-order; returns how many
   are visible. */
static uint32_t check_against_brute_force(random_scene *r, const arbor_real *planes, uint32_t plane_count) {
    arbor_scene *s = r->s;
    uint32_t live = arbor_scene_node_count(s);
    arbor_node *got = malloc(sizeof *got * (live + 1)), *want = malloc(sizeof *want * (live + 1));
    arbor_cull_stats st;
    uint32_t n_got = TEST_CULL(s, planes, plane_count, got, live + 1, &st), n_want = 0, bounded = 0;
    assert_int_equal(st.visible, n_got);
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(s, n)) {
        arbor_real lo[3], hi[3], box[6];
        ASSERT_OK(arbor_node_bounds(s, n, lo, hi));
        if (lo[0] > hi[0]) continue; /* none: an empty box */
        bounded++;
        world_box(s, n, box);
        if (classify(box, planes, plane_count) != 0) want[n_want++] = n;
    }
    assert_int_equal(n_got, n_want);
    for (uint32_t i = 0; i < n_want; i++) ASSERT_NODE_EQ(got[i], want[i]);
    /* Never more tests than nodes with bounds, times two (a straddling node with bounded
       children is tested as a subtree and on its own). */
    assert_true(st.box_tests <= 2 * bounded);
    free(got);
    free(want);
    return n_want;
}

/* Every subtree box against the union of the world boxes of its nodes. */
static void check_subtree_boxes(random_scene *r) {
    arbor_scene *s = r->s;
    uint32_t live = arbor_scene_node_count(s);
    arbor_node *sub = malloc(sizeof *sub * live);
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(s, n)) {
        arbor_real want[6] = { INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY }, got[6], box[6];
        uint32_t size = arbor_node_collect_subtree(s, n, sub, live);
        for (uint32_t i = 0; i < size; i++) {
            world_box(s, sub[i], box);
            for (int k = 0; k < 3; k++) {
                if (box[k] < want[k]) want[k] = box[k];
                if (box[3 + k] > want[3 + k]) want[3 + k] = box[3 + k];
            }
        }
        subtree_box(s, n, got);
        ASSERT_REALS_BITS_EQUAL(got, want, 6);
    }
    free(sub);
}

/* World boxes against the eight corners of the local box through the world matrix, in double. */
static void check_world_boxes(random_scene *r) {
    arbor_scene *s = r->s;
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(s, n)) {
        arbor_real lo[3], hi[3], box[6], w[16];
        world_box(s, n, box);
        ASSERT_OK(arbor_node_bounds(s, n, lo, hi));
        if (lo[0] > hi[0]) { /* none: an empty box */
            assert_true(box[0] == INFINITY && box[3] == -INFINITY);
            continue;
        }
        TEST_WORLD(s, n, w);
        double want[6] = { INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY };
        for (int corner = 0; corner < 8; corner++) {
            double p[3] = { corner & 1 ? hi[0] : lo[0], corner & 2 ? hi[1] : lo[1], corner & 4 ? hi[2] : lo[2] };
            for (int row = 0; row < 3; row++) {
                double v = (double)w[12 + row] + w[row] * p[0] + w[4 + row] * p[1] + w[8 + row] * p[2];
                if (v < want[row]) want[row] = v;
                if (v > want[3 + row]) want[3 + row] = v;
            }
        }
        for (int k = 0; k < 6; k++) ASSERT_NEAR_REL(box[k], want[k], TEST_EPS * 10);
    }
}

static void random_edit(random_scene *r) {
    arbor_scene *s = r->s;
    arbor_node n = random_live(r);
    double u = test_rng_uniform(&r->g);
    arbor_trs trs;
    random_trs(r, &trs);
    if (u < 0.35) {
        ASSERT_OK(arbor_node_set_rotation(s, n, trs.rotation[0], trs.rotation[1], trs.rotation[2], trs.rotation[3]));
    } else if (u < 0.5) {
        ASSERT_OK(arbor_node_set_trs(s, n, &trs));
    } else if (u < 0.62) {
        arbor_node p = test_rng_uniform(&r->g) < 0.1 ? ARBOR_NONE : random_live(r);
        if (arbor_node_equal(p, n) || arbor_node_is_ancestor_of(s, n, p)) return;
        ASSERT_OK(arbor_node_set_parent(s, n, p, ARBOR_NONE, test_rng_uniform(&r->g) < 0.5 ? ARBOR_KEEP_LOCAL : ARBOR_KEEP_WORLD));
    } else if (u < 0.72) {
        random_box(r, n);
    } else if (u < 0.8) {
        ASSERT_OK(arbor_node_set_bounds(s, n, NULL, NULL));
    } else if (u < 0.85) {
        if (arbor_node_collect_subtree(s, n, NULL, 0) < 20 && arbor_scene_node_count(s) > 50)
            ASSERT_OK(arbor_node_destroy(s, n));
    } else if (r->count < RANDOM_NODES * 2) {
        add_random_node(r);
    }
}

static void test_random_scenes_against_brute_force(void **state) {
    (void)state;
    random_scene r = { .g = test_rng_make(0xB0C5) };
    assert_int_equal(arbor_scene_create(NULL, &r.s), ARBOR_OK);
    for (int i = 0; i < RANDOM_NODES; i++) add_random_node(&r);
    arbor_node camera = TEST_NODE(r.s, ARBOR_NONE, "camera", NULL, NULL, NULL);
    uint64_t visible = 0, total = 0;
    for (int round = 0; round < 40; round++) {
        arbor_real planes[24];
        uint32_t count = random_planes(&r, camera, planes);
        visible += check_against_brute_force(&r, planes, count);
        total += arbor_scene_node_count(r.s);
        if (round % 8 == 0) {
            check_subtree_boxes(&r);
            check_world_boxes(&r);
        }
        int edits = 1 + (int)test_rng_below(&r.g, 30);
        for (int e = 0; e < edits; e++) random_edit(&r);
        if (round % 3 == 0) arbor_scene_update(r.s);
    }
    check_subtree_boxes(&r);
    /* The cameras saw something, and not everything: the comparison was not vacuous. */
    assert_true(visible > 0 && visible < total);
    arbor_scene_destroy(r.s);
}

/* ---- frustum planes ------------------------------------------------------------------------------- */

static void test_frustum_planes(void **state) {
    (void)state;
    arbor_real id[16], planes[24];
    arbor_mat4_identity(id);
    arbor_frustum_planes(id, planes);
    /* The clip cube -1 <= x, y, z <= 1: left x >= -1, right x <= 1, and so on. */
    const double want[24] = { 1, 0, 0, 1, -1, 0, 0, 1, 0, 1, 0, 1, 0, -1, 0, 1, 0, 0, 1, 1, 0, 0, -1, 1 };
    for (int i = 0; i < 24; i++) ASSERT_NEAR(planes[i], want[i], TEST_EPS);

    /* A perspective camera at the origin looking down -Z, yfov 90, aspect 1, near 1, far 10:
       near z <= -1, far z >= -10, the side planes at 45 degrees, all normalised. */
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node cam = TEST_NODE(s, ARBOR_NONE, "cam", NULL, NULL, NULL);
    const arbor_real half_pi = (arbor_real)(3.14159265358979323846 / 2);
    ASSERT_OK(arbor_node_set_camera(s, cam, &(arbor_camera){ ARBOR_CAMERA_PERSPECTIVE, half_pi, 1, 0, 0, 1, 10 }));
    arbor_real vp[16];
    ASSERT_OK(arbor_camera_view_projection(s, cam, 0, vp));
    arbor_frustum_planes(vp, planes);
    const double h = sqrt(0.5);
    const double want_p[24] = { h, 0, -h, 0, -h, 0, -h, 0, 0, h, -h, 0, 0, -h, -h, 0, 0, 0, -1, -1, 0, 0, 1, 10 };
    for (int i = 0; i < 24; i++) ASSERT_NEAR(planes[i], want_p[i], TEST_EPS * 10);

    /* Infinite far: that plane keeps everything, as (0, 0, 0, 1). */
    ASSERT_OK(arbor_node_set_camera(s, cam, &(arbor_camera){ ARBOR_CAMERA_PERSPECTIVE, half_pi, 1, 0, 0, 1, 0 }));
    ASSERT_OK(arbor_camera_view_projection(s, cam, 0, vp));
    arbor_frustum_planes(vp, planes);
    ASSERT_NEAR(planes[20], 0, 0);
    ASSERT_NEAR(planes[21], 0, 0);
    ASSERT_NEAR(planes[22], 0, 0);
    ASSERT_NEAR(planes[23], 1, 0);

    /* Culling through them: a box far down -Z is visible with the infinite far plane, a box
       behind the camera is not. */
    arbor_node ahead = TEST_NODE(s, ARBOR_NONE, "ahead", V3(0, 0, -1000), NULL, NULL);
    arbor_node behind = TEST_NODE(s, ARBOR_NONE, "behind", V3(0, 0, 5), NULL, NULL);
    set_half_box(s, ahead, 1, 1, 1);
    set_half_box(s, behind, 1, 1, 1);
    arbor_node out[2];
    assert_int_equal(TEST_CULL(s, planes, 6, out, 2, NULL), 1);
    ASSERT_NODE_EQ(out[0], ahead);
    arbor_scene_destroy(s);
}

/* ---- instancing (section 12) ------------------------------------------------------------------------ */

typedef struct robot_mirrored { robot3 r; arbor_node mirror, arm2, hand2; } robot_mirrored;

/* Section 11's robot with section 6's mirrored second arm (examples/robot_arm.gltf's nodes, the
   joints folded into the arms): meshes 0 base, 1 arm, 2 hand. */
static robot_mirrored build_mirrored(arbor_scene *s) {
    robot_mirrored m = { .r = build_robot3(s) };
    arbor_trs arm;
    ASSERT_OK(arbor_node_trs(s, m.r.arm, &arm));
    m.mirror = TEST_NODE(s, m.r.base, "mirror", NULL, NULL, V3(-1, 1, 1));
    m.arm2 = TEST_NODE(s, m.mirror, "arm2", arm.translation, arm.rotation, NULL);
    m.hand2 = TEST_NODE(s, m.arm2, "hand2", V3(0, 0.7, 0), NULL, NULL);
    ASSERT_OK(arbor_node_set_mesh(s, m.r.base, 0));
    ASSERT_OK(arbor_node_set_mesh(s, m.r.arm, 1));
    ASSERT_OK(arbor_node_set_mesh(s, m.r.hand, 2));
    ASSERT_OK(arbor_node_set_mesh(s, m.arm2, 1));
    ASSERT_OK(arbor_node_set_mesh(s, m.hand2, 2));
    return m;
}

static void check_batch(const arbor_instance_batch *b, int32_t mesh, bool mirrored, uint32_t first, uint32_t count) {
    assert_int_equal(b->mesh, mesh);
    assert_int_equal(b->mirrored, mirrored);
    assert_int_equal(b->first, first);
    assert_int_equal(b->count, count);
}

static void check_mat4(arbor_scene *s, arbor_node n, const float *m) {
    arbor_real w[16];
    TEST_WORLD(s, n, w);
    for (int i = 0; i < 16; i++) assert_true(m[i] == (float)w[i]);
}

static void test_instances_mirrored_batches(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    robot_mirrored rm = build_mirrored(s);
    const robot3 r = rm.r;
    const arbor_node nodes[] = { r.base, r.arm, r.hand, rm.mirror, rm.arm2, rm.hand2 };
    float m[6 * 16];
    arbor_instance_batch b[8];
    uint32_t count = 0, mc = 0;

    /* det W_arm2 = -1 (section 6): its own batch, and hand2's. The mirror carries no mesh. */
    assert_true(arbor_node_world_is_mirrored(s, rm.arm2));
    ASSERT_OK(arbor_scene_instance_batches(s, nodes, 6, ARBOR_LAYOUT_MAT4, m, 6, &mc, b, 8, &count));
    assert_int_equal(mc, 5);
    assert_int_equal(count, 5);
    check_batch(&b[0], 0, false, 0, 1);
    check_batch(&b[1], 1, false, 1, 1);
    check_batch(&b[2], 2, false, 2, 1);
    check_batch(&b[3], 1, true, 3, 1);
    check_batch(&b[4], 2, true, 4, 1);
    check_mat4(s, r.base, m);
    check_mat4(s, r.arm, m + 16);
    check_mat4(s, r.hand, m + 32);
    check_mat4(s, rm.arm2, m + 48);
    check_mat4(s, rm.hand2, m + 64);
    /* The second hand lands at (0.78, 1.47, -0.45), the first reflected (section 6). */
    ASSERT_NEAR(m[64 + 12], 0.78, TEST_TOL_2DP);
    ASSERT_NEAR(m[64 + 13], 1.47, TEST_TOL_2DP);
    ASSERT_NEAR(m[64 + 14], -0.45, TEST_TOL_2DP);

    /* Too few batches and matrices: the whole counts told, the first ones written in their
       places, nothing past the caps. */
    memset(b, 0x5A, sizeof b);
    float m2[6 * 16];
    memset(m2, 0x5A, sizeof m2);
    count = mc = 0;
    ASSERT_OK(arbor_scene_instance_batches(s, nodes, 6, ARBOR_LAYOUT_MAT4, m2, 2, &mc, b, 4, &count));
    assert_int_equal(mc, 5);
    assert_int_equal(count, 5);
    check_batch(&b[3], 1, true, 3, 1);
    assert_memory_equal(m2, m, 2 * 16 * sizeof *m);
    unsigned char pattern[sizeof m2];
    memset(pattern, 0x5A, sizeof pattern);
    assert_memory_equal(&b[4], pattern, sizeof b - 4 * sizeof *b);
    assert_memory_equal(m2 + 2 * 16, pattern, sizeof m2 - 2 * 16 * sizeof *m2);

    /* The 1.0 call refuses too few batches, the number needed told, nothing written. */
    memset(b, 0x5A, sizeof b);
    memset(m2, 0x5A, sizeof m2);
    count = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_scene_gather_instances",
                   arbor_scene_gather_instances(s, nodes, 6, ARBOR_LAYOUT_MAT4, m2, b, 4, &count));
    assert_int_equal(count, 5);
    assert_memory_equal(b, pattern, sizeof b);
    assert_memory_equal(m2, pattern, sizeof m2);
    ASSERT_OK(arbor_scene_gather_instances(s, nodes, 6, ARBOR_LAYOUT_MAT4, m2, b, 8, &count));
    assert_memory_equal(m2, m, 5 * 16 * sizeof *m);
#pragma GCC diagnostic pop

    /* A dead node in the list. */
    arbor_node dead = TEST_NODE(s, ARBOR_NONE, "dead", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_destroy(s, dead));
    const arbor_node with_dead[] = { r.base, dead };
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_scene_instance_batches",
                   arbor_scene_instance_batches(s, with_dead, 2, ARBOR_LAYOUT_MAT4, m, 6, &mc, b, 8, &count));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_scene_instance_batches",
                   arbor_scene_instance_batches(s, nodes, 6, (arbor_matrix_layout)7, m, 6, &mc, b, 8, &count));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_scene_instance_batches",
                   arbor_scene_instance_batches(s, nodes, 6, ARBOR_LAYOUT_MAT4, NULL, 6, &mc, b, 8, &count));
    /* Nothing with a mesh: no batch, no matrix (caps 0 with NULL arrays ask for the counts). */
    ASSERT_OK(arbor_scene_instance_batches(s, &rm.mirror, 1, ARBOR_LAYOUT_MAT4, NULL, 0, &mc, b, 8, &count));
    assert_int_equal(mc, 0);
    assert_int_equal(count, 0);
    ASSERT_OK(arbor_scene_instance_batches(s, nodes, 6, ARBOR_LAYOUT_MAT4, NULL, 0, &mc, NULL, 0, &count));
    assert_int_equal(mc, 5);
    assert_int_equal(count, 5);
    arbor_scene_destroy(s);
}

/* Four wheels, one mesh: one batch, in input order, whatever else is interleaved. */
static void test_instances_wheels_and_layouts(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node car = TEST_NODE(s, ARBOR_NONE, "car", V3(5, 0, 0), Q4(0, 0.3826834, 0, 0.9238795), NULL);
    arbor_node wheels[4];
    const double x[4] = { 1, 1, -1, -1 }, z[4] = { 0.8, -0.8, 0.8, -0.8 };
    for (int i = 0; i < 4; i++) {
        wheels[i] = TEST_NODE(s, car, "wheel", V3(x[i], 0.3, z[i]), NULL, NULL);
        ASSERT_OK(arbor_node_set_mesh(s, wheels[i], 7));
    }
    ASSERT_OK(arbor_node_set_mesh(s, car, 3));
    const arbor_node nodes[] = { wheels[2], car, wheels[0], wheels[3], wheels[1] };
    arbor_instance_batch b[2];
    uint32_t count, mc;
    float m4[5 * 16], m34[5 * 12];
    ASSERT_OK(arbor_scene_instance_batches(s, nodes, 5, ARBOR_LAYOUT_MAT4, m4, 5, &mc, b, 2, &count));
    assert_int_equal(mc, 5);
    assert_int_equal(count, 2);
    check_batch(&b[0], 7, false, 0, 4);
    check_batch(&b[1], 3, false, 4, 1);
    check_mat4(s, wheels[2], m4);
    check_mat4(s, wheels[0], m4 + 16);
    check_mat4(s, wheels[3], m4 + 32);
    check_mat4(s, wheels[1], m4 + 48);
    check_mat4(s, car, m4 + 64);
    /* MAT3X4: the first three rows, row-major: the same numbers transposed. */
    ASSERT_OK(arbor_scene_instance_batches(s, nodes, 5, ARBOR_LAYOUT_MAT3X4, m34, 5, &mc, b, 2, &count));
    for (int i = 0; i < 5; i++)
        for (int row = 0; row < 3; row++)
            for (int c = 0; c < 4; c++) assert_true(m34[i * 12 + row * 4 + c] == m4[i * 16 + c * 4 + row]);
    /* The wheel's world translation: the car's yaw of 45 degrees applied to (1, 0.3, 0.8). */
    ASSERT_VEC3_NEAR(((arbor_real[3]){ m34[12 + 3], m34[12 + 7], m34[12 + 11] }), 5 + (1 + 0.8) * sqrt(0.5), 0.3,
                     (0.8 - 1) * sqrt(0.5), 1e-5); /* floats */

    /* Many groups (past the table's first size) and again: nothing allocated once warm. */
    enum { MANY = 300 };
    arbor_node many[MANY];
    for (int i = 0; i < MANY; i++) {
        many[i] = TEST_NODE(s, ARBOR_NONE, NULL, V3(i, 0, 0), NULL, i % 3 ? V3(1, 1, 1) : V3(-1, 1, 1));
        ASSERT_OK(arbor_node_set_mesh(s, many[i], i % 100));
    }
    arbor_instance_batch mb[MANY];
    float *mm = malloc(sizeof(float) * 16 * MANY);
    ASSERT_OK(arbor_scene_instance_batches(s, many, MANY, ARBOR_LAYOUT_MAT4, mm, MANY, &mc, mb, MANY, &count));
    /* Meshes 0..99, each both plain and mirrored (i % 3 == 0 hits every residue mod 100). */
    assert_int_equal(count, 200);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < count; i++) {
        assert_int_equal(mb[i].first, sum);
        sum += mb[i].count;
    }
    assert_int_equal(sum, MANY);
    uint64_t before = allocations(s);
    ASSERT_OK(arbor_scene_instance_batches(s, many, MANY, ARBOR_LAYOUT_MAT4, mm, MANY, &mc, mb, MANY, &count));
    assert_int_equal(allocations(s), before);
    free(mm);
    arbor_scene_destroy(s);
}

/* ---- allocation, depth, errors --------------------------------------------------------------------- */

static void test_no_memory_without_bounds_none_per_frame(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node b[59];
    for (int i = 0; i < 59; i++)
        b[i] = TEST_NODE(s, wl_skeleton_parent[i] < 0 ? ARBOR_NONE : b[wl_skeleton_parent[i]], NULL, V3(0, 1, 0), NULL, NULL);
    /* No bounds: queries and culls allocate nothing and store no table. */
    uint64_t before = allocations(s);
    arbor_real box[6], c[3], radius;
    subtree_box(s, b[0], box);
    assert_true(box[0] == INFINITY && box[3] == -INFINITY);
    ASSERT_OK(arbor_node_subtree_sphere(s, b[0], c, &radius));
    ASSERT_NEAR(radius, -1, 0);
    const arbor_real plane[4] = { 1, 0, 0, 0 };
    arbor_cull_stats st = { 7, 7 };
    assert_int_equal(TEST_CULL(s, plane, 1, NULL, 0, &st), 0);
    assert_int_equal(st.box_tests, 0);
    assert_int_equal(st.visible, 0);
    assert_int_equal(allocations(s), before);

    /* With bounds: the first query allocates the table; after that, frames of edits and culls
       allocate nothing. */
    for (int i = 0; i < 59; i++) set_half_box(s, b[i], 0.1, 0.1, 0.1);
    arbor_node out[59];
    TEST_CULL(s, plane, 1, out, 59, &st);
    before = allocations(s);
    for (int frame = 0; frame < 5; frame++) {
        ASSERT_OK(arbor_node_set_translation(s, b[frame * 7], (arbor_real)frame, 0, 0));
        arbor_scene_update(s);
        TEST_CULL(s, plane, 1, out, 59, &st);
        subtree_box(s, b[1], box);
    }
    assert_int_equal(allocations(s), before);
    arbor_scene_destroy(s);
}

/* The table grows with the scene: nodes created after the first query are covered. */
static void test_table_grows_with_the_scene(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node root = TEST_NODE(s, ARBOR_NONE, "root", NULL, NULL, NULL);
    set_half_box(s, root, 1, 1, 1);
    arbor_real box[6];
    subtree_box(s, root, box);
    ASSERT_NEAR(box[3], 1, 0);
    arbor_node last = root;
    for (int i = 0; i < 1000; i++) last = TEST_NODE(s, last, NULL, V3(1, 0, 0), NULL, NULL);
    set_half_box(s, last, 0.5, 0.5, 0.5);
    subtree_box(s, root, box);
    ASSERT_NEAR(box[3], 1000.5, TEST_EPS * 1000);
    ASSERT_NEAR(box[0], -1, 0);
    arbor_scene_destroy(s);
}

static void test_million_deep_chain(void **state) {
    (void)state;
    enum { DEPTH = 1000000 };
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .initial_capacity = DEPTH }, &s), ARBOR_OK);
    arbor_node root = TEST_NODE(s, ARBOR_NONE, "root", NULL, NULL, NULL), n = root;
    for (int i = 1; i < DEPTH; i++) {
        arbor_node_desc d = { .parent = n };
        d.translation[1] = (arbor_real)0.5;
        ASSERT_OK(arbor_node_create(s, &d, &n));
    }
    set_half_box(s, n, 1, 1, 1);
    arbor_real box[6];
    subtree_box(s, root, box);
    ASSERT_NEAR_REL(box[1], 0.5 * (DEPTH - 1) - 1, 1e-5);
    arbor_node out[1];
    arbor_cull_stats st;
    assert_int_equal(TEST_CULL(s, NULL, 0, out, 1, &st), 1);
    ASSERT_NODE_EQ(out[0], n);
    assert_int_equal(st.box_tests, 1);
    /* A plane through the leaf's box: every ancestor's subtree straddles and is opened, none
       has a box of its own: one test per level. */
    const arbor_real through[4] = { 0, 1, 0, -box[1] - 1 };
    assert_int_equal(TEST_CULL(s, through, 1, out, 1, &st), 1);
    assert_int_equal(st.box_tests, DEPTH);
    /* An edit at the top recomputes the whole chain; one at the leaf, the chain above it. */
    ASSERT_OK(arbor_node_set_translation(s, root, 0, 1, 0));
    uint64_t before = boxes_computed(s);
    subtree_box(s, root, box);
    assert_int_equal(boxes_computed(s) - before, DEPTH);
    ASSERT_NEAR_REL(box[1], 0.5 * (DEPTH - 1), 1e-5);
    arbor_scene_destroy(s);
}

static void test_errors(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node a = TEST_NODE(s, ARBOR_NONE, "a", NULL, NULL, NULL), dead = TEST_NODE(s, ARBOR_NONE, "dead", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_destroy(s, dead));
    arbor_real lo[3], hi[3], c[3], r;

    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_world_bounds", arbor_node_world_bounds(s, dead, lo, hi));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_world_bounds", arbor_node_world_bounds(s, ARBOR_NONE, lo, hi));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_subtree_bounds", arbor_node_subtree_bounds(s, dead, lo, hi));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_subtree_sphere", arbor_node_subtree_sphere(s, dead, c, &r));
    /* set_bounds: min above max, NaN, one of the two NULL. */
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_bounds", arbor_node_set_bounds(s, a, V3(1, 0, 0), V3(0, 1, 1)));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_bounds", arbor_node_set_bounds(s, a, V3(NAN, 0, 0), V3(1, 1, 1)));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_bounds", arbor_node_set_bounds(s, a, V3(0, 0, 0), NULL));
    /* Nothing was set: an empty local box, as the world box below (the 1.0 call answers false). */
    ASSERT_OK(arbor_node_bounds(s, a, lo, hi));
    for (int k = 0; k < 3; k++) assert_true(lo[k] == INFINITY && hi[k] == -INFINITY);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    assert_false(arbor_node_local_bounds(s, a, lo, hi));
    ASSERT_OK(arbor_node_set_bounds(s, a, V3(-1, -2, -3), V3(1, 2, 3)));
    assert_true(arbor_node_local_bounds(s, a, lo, hi));
    ASSERT_OK(arbor_node_bounds(s, a, lo, hi));
    for (int k = 0; k < 3; k++) assert_true(lo[k] == -(k + 1) && hi[k] == k + 1);
    ASSERT_OK(arbor_node_set_bounds(s, a, NULL, NULL));
#pragma GCC diagnostic pop
    arbor_node gone = TEST_NODE(s, ARBOR_NONE, "gone", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_destroy(s, gone));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_bounds", arbor_node_bounds(s, gone, lo, hi));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_bounds", arbor_node_bounds(s, gone, NULL, hi)); /* arguments first */
    /* No bounds: an empty world box. */
    ASSERT_OK(arbor_node_world_bounds(s, a, lo, hi));
    assert_true(lo[0] == INFINITY && hi[0] == -INFINITY);

    set_half_box(s, a, 1, 1, 1);
    arbor_node out[1];
    const arbor_real nan_plane[4] = { NAN, 0, 0, 0 };
    /* a refusal is a result code, apart from "nothing visible" (ARBOR_OK with a count of 0) */
    uint32_t count = 7;
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_scene_cull", arbor_scene_cull(s, NULL, 1, out, 1, &count, NULL));
    assert_int_equal(count, 0);
    count = 7;
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "NaN", arbor_scene_cull(s, nan_plane, 1, out, 1, &count, NULL));
    assert_int_equal(count, 0);
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_scene_cull", arbor_scene_cull(s, NULL, 0, NULL, 1, &count, NULL));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "count", arbor_scene_cull(s, NULL, 0, out, 1, NULL, NULL));
    assert_int_equal(TEST_CULL(s, NULL, 0, out, 1, NULL), 1);
    const arbor_real keep_nothing[4] = { 0, 0, 0, -1 }; /* 0 x + 0 y + 0 z - 1 >= 0 holds nowhere */
    count = 7;
    ASSERT_OK(arbor_scene_cull(s, keep_nothing, 1, out, 1, &count, NULL));
    assert_int_equal(count, 0);
    arbor_scene_destroy(s);
}

/* Out of memory at the first subtree query: refused, and the next query with memory works. */
static void test_out_of_memory(void **state) {
    (void)state;
    test_counting_allocator counter = { 0 };
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .allocator = test_counting_allocator_hooks(&counter, true) }, &s), ARBOR_OK);
    arbor_node a = TEST_NODE(s, ARBOR_NONE, "a", NULL, NULL, NULL);
    set_half_box(s, a, 1, 1, 1);
    arbor_real lo[3], hi[3];
    counter.fail_all = true;
    ASSERT_REFUSED(ARBOR_ERR_OUT_OF_MEMORY, "arbor_node_subtree_bounds", arbor_node_subtree_bounds(s, a, lo, hi));
    uint32_t count = 7;
    ASSERT_REFUSED(ARBOR_ERR_OUT_OF_MEMORY, "arbor_scene_cull", arbor_scene_cull(s, NULL, 0, NULL, 0, &count, NULL));
    assert_int_equal(count, 0);
    counter.fail_all = false;
    ASSERT_OK(arbor_node_subtree_bounds(s, a, lo, hi));
    ASSERT_NEAR(hi[0], 1, 0);
    assert_int_equal(TEST_CULL(s, NULL, 0, NULL, 0, NULL), 1);
    arbor_scene_destroy(s);
    assert_int_equal(counter.live_blocks, 0);
    assert_int_equal(counter.size_mismatches, 0);
}

int main(void) {
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_section11_boxes_and_sphere),
        cmocka_unit_test(test_section11_five_tests),
        cmocka_unit_test(test_section11_from_gltf),
        cmocka_unit_test(test_edit_recomputes_subtree_and_ancestors),
        cmocka_unit_test(test_bulk_writes_mark_boxes),
        cmocka_unit_test(test_parallel_bulk_write_marks_boxes),
        cmocka_unit_test(test_boxes_survive_relayout),
        cmocka_unit_test(test_journal_and_clones),
        cmocka_unit_test(test_random_scenes_against_brute_force),
        cmocka_unit_test(test_frustum_planes),
        cmocka_unit_test(test_instances_mirrored_batches),
        cmocka_unit_test(test_instances_wheels_and_layouts),
        cmocka_unit_test(test_no_memory_without_bounds_none_per_frame),
        cmocka_unit_test(test_table_grows_with_the_scene),
        cmocka_unit_test(test_million_deep_chain),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
