/* SPDX-License-Identifier: MIT */
/*
 * tests/test_seeds.c: every worked number of the course chapter (seed 002, sections 3, 4, 6, 8,
 * 9, 10, 13 and exercises 1, 2, 4, 8, 9) and of the glTF tutorial's figure 4 (seed 003), computed
 * through the scene API: nodes with TRS (or matrix-backed locals), world matrices from
 * arbor_node_world_matrix, and math.h only for the frame conversions (inverse, transform).
 *
 * Tolerances follow what the seed prints: 0.01 for two decimals, 0.001 for three; identities that
 * hold exactly are checked to TEST_EPS.
 */
#include "test_util.h"

/* ---- Section 3: a base that yaws, an arm one unit out ------------------------------------------ */

typedef struct chain2 { arbor_node base, arm; } chain2;

static chain2 build_section3(arbor_scene *s)
{
    chain2 c;
    arbor_real ry90[4];
    test_quat_axis_deg(ry90, 0, 1, 0, 90);
    c.base = TEST_NODE(s, ARBOR_NONE, "base", NULL, ry90, NULL);
    c.arm = TEST_NODE(s, c.base, "arm", V3(1, 0, 0), NULL, NULL);
    return c;
}

static void test_section3_world_matrix_tip_inverse(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    chain2 c = build_section3(s);

    arbor_real w[16];
    TEST_WORLD(s, c.arm, w);
    const double w_rows[16] = {
        0, 0, 1, 0,
        0, 1, 0, 0,
        -1, 0, 0, -1,
        0, 0, 0, 1,
    };
    ASSERT_MAT4_ROWS_NEAR(w, w_rows, TEST_EPS);
    /* The hands-on prints it column by column: [0,0,-1,0, 0,1,0,0, 1,0,0,0, 0,0,-1,1]. */
    const double w_cols[16] = { 0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, -1, 1 };
    ASSERT_MAT4_NEAR_D(w, w_cols, TEST_EPS);

    /* The arm's origin lands at world (0, 0, -1), its tip (1, 0, 0) at (0, 0, -2). */
    arbor_real p[3];
    TEST_WORLD_ORIGIN(s, c.arm, p);
    ASSERT_VEC3_NEAR(p, 0, 0, -1, TEST_EPS);
    arbor_mat4_transform_point(p, w, V3(1, 0, 0));
    ASSERT_VEC3_NEAR(p, 0, 0, -2, TEST_EPS);

    /* The inverse, and the arm's world origin coming home. */
    arbor_real inv[16];
    assert_true(arbor_mat4_invert_affine(inv, w));
    const double inv_rows[16] = {
        0, 0, -1, -1,
        0, 1, 0, 0,
        1, 0, 0, 0,
        0, 0, 0, 1,
    };
    ASSERT_MAT4_ROWS_NEAR(inv, inv_rows, TEST_EPS);
    arbor_mat4_transform_point(p, inv, V3(0, 0, -1));
    ASSERT_VEC3_NEAR(p, 0, 0, 0, TEST_EPS);

    /* The base's world matrix is its local: the yaw alone. */
    arbor_real wb[16];
    TEST_WORLD(s, c.base, wb);
    const double b_rows[16] = {
        0, 0, 1, 0,
        0, 1, 0, 0,
        -1, 0, 0, 0,
        0, 0, 0, 1,
    };
    ASSERT_MAT4_ROWS_NEAR(wb, b_rows, TEST_EPS);
    arbor_scene_destroy(s);
}

/* Exercise 4: the world point (1, 0, -1) in the arm's frame is (0, 0, 1), and back. */
static void test_exercise4_point_into_arm_frame(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    chain2 c = build_section3(s);
    arbor_real w[16], inv[16], p[3];
    TEST_WORLD(s, c.arm, w);
    assert_true(arbor_mat4_invert_affine(inv, w));
    arbor_mat4_transform_point(p, inv, V3(1, 0, -1));
    ASSERT_VEC3_NEAR(p, 0, 0, 1, TEST_EPS);
    arbor_mat4_transform_point(p, w, V3(0, 0, 1));
    ASSERT_VEC3_NEAR(p, 1, 0, -1, TEST_EPS);
    arbor_scene_destroy(s);
}

/* ---- Section 4 / 14: the robot arm as glTF nodes ----------------------------------------------- */

static const double W_HAND_ROWS[16] = {
    0.66, -0.56, 0.50, -0.78,
    0.64, 0.77, 0.00, 1.47,
    -0.38, 0.32, 0.87, 0.45,
    0, 0, 0, 1,
};

static void test_section4_default_pose(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    test_robot r = test_build_robot(s);

    /* Read lazily, no update. */
    arbor_real w[16], p[3];
    TEST_WORLD(s, r.hand, w);
    ASSERT_MAT4_ROWS_NEAR(w, W_HAND_ROWS, TEST_TOL_2DP);
    ASSERT_NEAR(w[3], 0, 0);
    ASSERT_NEAR(w[7], 0, 0);
    ASSERT_NEAR(w[11], 0, 0);
    ASSERT_NEAR(w[15], 1, 0);
    TEST_WORLD_ORIGIN(s, r.hand, p);
    ASSERT_VEC3_NEAR(p, -0.78, 1.47, 0.45, TEST_TOL_2DP);
    TEST_WORLD_ORIGIN(s, r.arm, p);
    ASSERT_VEC3_NEAR(p, -0.39, 0.94, 0.22, TEST_TOL_2DP);
    TEST_WORLD_ORIGIN(s, r.base, p);
    ASSERT_VEC3_NEAR(p, 0, 0.2, 0, TEST_EPS);
    /* Section 9 prints the hand to three decimals. */
    TEST_WORLD_ORIGIN(s, r.hand, p);
    ASSERT_VEC3_NEAR(p, -0.779, 1.472, 0.450, TEST_TOL_3DP);

    /* The same after a batch update. */
    arbor_scene_update(s);
    TEST_WORLD(s, r.hand, w);
    ASSERT_MAT4_ROWS_NEAR(w, W_HAND_ROWS, TEST_TOL_2DP);
    arbor_scene_destroy(s);
}

static void test_section4_base_yawed_90(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    test_robot r = test_build_robot(s);
    arbor_real p[3];
    TEST_WORLD_ORIGIN(s, r.hand, p); /* the hand's world matrix is current before the yaw */

    const double h = sqrt(0.5);
    ASSERT_OK(arbor_node_set_rotation(s, r.base, 0, (arbor_real)h, 0, (arbor_real)h));
    /* Lazily, through the never-read joint and arm. */
    TEST_WORLD_ORIGIN(s, r.hand, p);
    ASSERT_VEC3_NEAR(p, 0, 1.47, 0.90, TEST_TOL_2DP);
    /* Same height as at yaw 30: a quarter turn about the vertical. */
    ASSERT_NEAR(p[1], 1.4725, TEST_TOL_3DP);

    /* And through a batch update from a freshly built scene. */
    arbor_scene *s2 = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s2), ARBOR_OK);
    assert_non_null(s2);
    test_robot r2 = test_build_robot(s2);
    arbor_scene_update(s2);
    ASSERT_OK(arbor_node_set_rotation(s2, r2.base, 0, (arbor_real)h, 0, (arbor_real)h));
    arbor_scene_update(s2);
    TEST_WORLD_ORIGIN(s2, r2.hand, p);
    ASSERT_VEC3_NEAR(p, 0, 1.47, 0.90, TEST_TOL_2DP);
    arbor_scene_destroy(s2);
    arbor_scene_destroy(s);
}

/* The figure of section 4: with the base unyawed the hand goes from (0, 1.8) at bend 0 to
   (-1.21, -0.3) at bend 120, and the joint never moves. */
static void test_section4_bends(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    test_robot r = test_build_robot(s);
    ASSERT_OK(arbor_node_set_rotation(s, r.base, 0, 0, 0, 1));

    arbor_real p[3], q[4];
    ASSERT_OK(arbor_node_set_rotation(s, r.joint, 0, 0, 0, 1));
    TEST_WORLD_ORIGIN(s, r.hand, p);
    ASSERT_VEC3_NEAR(p, 0, 1.8, 0, TEST_EPS);
    TEST_WORLD_ORIGIN(s, r.joint, p);
    ASSERT_VEC3_NEAR(p, 0, 0.4, 0, TEST_EPS);

    test_quat_axis_deg(q, 0, 0, 1, 120);
    ASSERT_OK(arbor_node_set_rotation(s, r.joint, q[0], q[1], q[2], q[3]));
    TEST_WORLD_ORIGIN(s, r.hand, p);
    ASSERT_VEC3_NEAR(p, -1.21, -0.3, 0, TEST_TOL_2DP);
    TEST_WORLD_ORIGIN(s, r.joint, p);
    ASSERT_VEC3_NEAR(p, 0, 0.4, 0, TEST_EPS);

    /* Bend 40 with yaw 0 is section 9's hand in the base frame, lifted by the base. */
    test_quat_axis_deg(q, 0, 0, 1, 40);
    ASSERT_OK(arbor_node_set_rotation(s, r.joint, q[0], q[1], q[2], q[3]));
    arbor_scene_update(s);
    TEST_WORLD_ORIGIN(s, r.hand, p);
    ASSERT_VEC3_NEAR(p, -0.900, 1.272 + 0.2, 0, TEST_TOL_3DP);
    arbor_scene_destroy(s);
}

/* ---- Section 6: the mirrored second arm ---------------------------------------------------------- */

static void check_mirrored_arm(arbor_scene *s, arbor_node arm2, arbor_node hand2)
{
    arbor_real p[3], w[16];
    TEST_WORLD_ORIGIN(s, arm2, p);
    ASSERT_VEC3_NEAR(p, 0.39, 0.94, -0.22, TEST_TOL_2DP);
    TEST_WORLD_ORIGIN(s, hand2, p);
    ASSERT_VEC3_NEAR(p, 0.78, 1.47, -0.45, TEST_TOL_2DP);
    TEST_WORLD(s, arm2, w);
    ASSERT_NEAR(arbor_mat4_determinant3(w), -1.0, TEST_EPS * 10);
    TEST_WORLD(s, hand2, w);
    ASSERT_NEAR(arbor_mat4_determinant3(w), -1.0, TEST_EPS * 10);
}

static void test_section6_mirrored_arm_matrix_backed(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    test_robot r = test_build_robot(s);

    /* L_joint2 = S(-1,1,1) * L_joint: the joint's local with its x row negated. */
    arbor_real m[16];
    ASSERT_OK(arbor_node_local_matrix(s, r.joint, m));
    for (int c = 0; c < 4; c++) m[c * 4 + 0] = -m[c * 4 + 0];
    arbor_node joint2, arm2, hand2;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "joint2", .parent = r.base, .matrix = m }, &joint2));
    arm2 = TEST_NODE(s, joint2, "arm2", V3(0, 0.7, 0), NULL, NULL);
    hand2 = TEST_NODE(s, arm2, "hand2", V3(0, 0.7, 0), NULL, NULL);
    assert_true(arbor_node_is_matrix_backed(s, joint2));
    assert_false(arbor_node_is_locked(s, joint2));

    check_mirrored_arm(s, arm2, hand2);

    /* The brother's stack was popped: the first arm is where it was. */
    arbor_real p[3], w[16];
    TEST_WORLD_ORIGIN(s, r.hand, p);
    ASSERT_VEC3_NEAR(p, -0.78, 1.47, 0.45, TEST_TOL_2DP);
    TEST_WORLD_ORIGIN(s, r.arm, p);
    ASSERT_VEC3_NEAR(p, -0.39, 0.94, 0.22, TEST_TOL_2DP);
    TEST_WORLD(s, r.arm, w);
    ASSERT_NEAR(arbor_mat4_determinant3(w), 1.0, TEST_EPS * 10);

    /* The mirror acts in the base's frame: in it, hand2 is hand reflected through the yz plane. */
    arbor_real wb[16], inv[16], h1[3], h2[3];
    TEST_WORLD(s, r.base, wb);
    assert_true(arbor_mat4_invert_affine(inv, wb));
    TEST_WORLD_ORIGIN(s, r.hand, h1);
    TEST_WORLD_ORIGIN(s, hand2, h2);
    arbor_mat4_transform_point(h1, inv, h1);
    arbor_mat4_transform_point(h2, inv, h2);
    ASSERT_VEC3_NEAR(h2, -h1[0], h1[1], h1[2], TEST_EPS_ROUNDTRIP);

    /* A matrix-backed node reads back as its decomposition: the reflection on Y. */
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, joint2, &trs));
    ASSERT_VEC3_NEAR(trs.translation, 0, 0.2, 0, TEST_EPS);
    ASSERT_NEAR(trs.scale[0], 1, TEST_EPS_ROUNDTRIP);
    ASSERT_NEAR(trs.scale[1], -1, TEST_EPS_ROUNDTRIP);
    ASSERT_NEAR(trs.scale[2], 1, TEST_EPS_ROUNDTRIP);
    ASSERT_NEAR(test_quat_len(trs.rotation), 1, TEST_EPS_ROUNDTRIP);

    /* Same numbers after a batch update. */
    arbor_scene_update(s);
    check_mirrored_arm(s, arm2, hand2);
    arbor_scene_destroy(s);
}

/* The same mirror as a TRS node with scale (-1, 1, 1) between the base and a copy of the joint. */
static void test_section6_mirrored_arm_trs_scale(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    test_robot r = test_build_robot(s);

    arbor_real m[16];
    ASSERT_OK(arbor_node_local_matrix(s, r.joint, m));
    for (int c = 0; c < 4; c++) m[c * 4 + 0] = -m[c * 4 + 0];
    arbor_node joint2;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "joint2", .parent = r.base, .matrix = m }, &joint2));
    arbor_node arm2 = TEST_NODE(s, joint2, "arm2", V3(0, 0.7, 0), NULL, NULL);
    arbor_node hand2 = TEST_NODE(s, arm2, "hand2", V3(0, 0.7, 0), NULL, NULL);

    arbor_node mirror = TEST_NODE(s, r.base, "mirror", NULL, NULL, V3(-1, 1, 1));
    arbor_node joint3 = TEST_NODE(s, mirror, "joint3", V3(0, 0.2, 0), Q4(0, 0, 0.3420, 0.9397), NULL);
    arbor_node arm3 = TEST_NODE(s, joint3, "arm3", V3(0, 0.7, 0), NULL, NULL);
    arbor_node hand3 = TEST_NODE(s, arm3, "hand3", V3(0, 0.7, 0), NULL, NULL);

    check_mirrored_arm(s, arm3, hand3);

    arbor_real a[16], b[16];
    TEST_WORLD(s, arm2, a);
    TEST_WORLD(s, arm3, b);
    ASSERT_MAT4_NEAR(b, a, TEST_EPS);
    TEST_WORLD(s, hand2, a);
    TEST_WORLD(s, hand3, b);
    ASSERT_MAT4_NEAR(b, a, TEST_EPS);
    TEST_WORLD(s, mirror, a);
    ASSERT_NEAR(arbor_mat4_determinant3(a), -1.0, TEST_EPS * 10);

    /* A third build: a TRS joint made matrix-backed afterwards with arbor_node_set_local_matrix. */
    arbor_node joint4 = TEST_NODE(s, r.base, "joint4", V3(0, 0.2, 0), Q4(0, 0, 0.3420, 0.9397), NULL);
    arbor_node arm4 = TEST_NODE(s, joint4, "arm4", V3(0, 0.7, 0), NULL, NULL);
    arbor_node hand4 = TEST_NODE(s, arm4, "hand4", V3(0, 0.7, 0), NULL, NULL);
    TEST_WORLD(s, hand4, a); /* current before the write */
    ASSERT_VEC3_NEAR(&a[12], -0.78, 1.47, 0.45, TEST_TOL_2DP);
    ASSERT_OK(arbor_node_set_local_matrix(s, joint4, m, false));
    check_mirrored_arm(s, arm4, hand4);
    TEST_WORLD(s, hand2, a);
    TEST_WORLD(s, hand4, b);
    ASSERT_REALS_BITS_EQUAL(b, a, 16); /* the same locals, the same bits */
    arbor_scene_destroy(s);
}

/* ---- Sections 8 and 9: local to world, and between nodes --------------------------------------- */

static void test_section8_9_frames(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    test_robot r = test_build_robot(s);
    arbor_real wb[16], wa[16], wh[16], inv[16], hand[3], p[3];
    TEST_WORLD(s, r.base, wb);
    TEST_WORLD(s, r.arm, wa);
    TEST_WORLD(s, r.hand, wh);
    TEST_WORLD_ORIGIN(s, r.hand, hand);

    /* The hand in the base's frame: (-0.900, 1.272, 0). */
    assert_true(arbor_mat4_invert_affine(inv, wb));
    arbor_mat4_transform_point(p, inv, hand);
    ASSERT_VEC3_NEAR(p, -0.900, 1.272, 0, TEST_TOL_3DP);
    ASSERT_NEAR(p[2], 0, TEST_EPS);

    /* In the arm's frame: (0, 0.7, 0) exactly, the translation of L_hand. */
    assert_true(arbor_mat4_invert_affine(inv, wa));
    arbor_mat4_transform_point(p, inv, hand);
    ASSERT_VEC3_NEAR(p, 0, 0.7, 0, TEST_EPS);

    /* World (0, 1, 0) in the hand's frame: (0.386, -0.940, 0). */
    arbor_real inv_h[16];
    assert_true(arbor_mat4_invert_affine(inv_h, wh));
    arbor_mat4_transform_point(p, inv_h, V3(0, 1, 0));
    ASSERT_VEC3_NEAR(p, 0.386, -0.940, 0, TEST_TOL_3DP);

    /* W_hand^-1 W_arm: translation (0, -0.7, 0), no rotation (the hand is not turned). */
    arbor_real rel[16];
    arbor_mat4_mul(rel, inv_h, wa);
    ASSERT_VEC3_NEAR(&rel[12], 0, -0.7, 0, TEST_EPS);
    const double id[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.7, 0, 1 };
    ASSERT_MAT4_NEAR_D(rel, id, TEST_EPS);

    /* Section 8: forward is placement, backward is inquiry; the round trip is the identity. */
    arbor_mat4_transform_point(p, wh, V3(0.3, -0.2, 0.1));
    arbor_mat4_transform_point(p, inv_h, p);
    ASSERT_VEC3_NEAR(p, 0.3, -0.2, 0.1, TEST_EPS);
    arbor_scene_destroy(s);
}

/* ---- Section 10: the camera as a node ------------------------------------------------------------- */

static void test_section10_camera_on_hand(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    test_robot r = test_build_robot(s);
    arbor_node cam = TEST_NODE(s, r.hand, "camera", V3(0, 0.3, 0), NULL, NULL);

    arbor_real wh[16], v[16], p[3];
    TEST_WORLD_ORIGIN(s, cam, p);
    ASSERT_VEC3_NEAR(p, -0.946, 1.702, 0.546, TEST_TOL_3DP);

    ASSERT_OK(arbor_camera_view_matrix(s, cam, v)); /* V = W_cam^-1 */
    const double v_rows[16] = {
        0.66, 0.64, -0.38, -0.26,
        -0.56, 0.77, 0.32, -2.01,
        0.50, 0.00, 0.87, 0.00,
        0, 0, 0, 1,
    };
    ASSERT_MAT4_ROWS_NEAR(v, v_rows, TEST_TOL_2DP);

    /* V sends the camera's own world position to the origin. */
    arbor_mat4_transform_point(p, v, p);
    ASSERT_VEC3_NEAR(p, 0, 0, 0, TEST_EPS);

    /* The rows of V's rotation are the columns of W_hand's (the rigid inverse). */
    TEST_WORLD(s, r.hand, wh);
    for (int rr = 0; rr < 3; rr++)
        for (int cc = 0; cc < 3; cc++) ASSERT_NEAR(v[cc * 4 + rr], wh[rr * 4 + cc], TEST_EPS);

    /* The camera rides the arm: yaw the base and the view follows. */
    const double h = sqrt(0.5);
    ASSERT_OK(arbor_node_set_rotation(s, r.base, 0, (arbor_real)h, 0, (arbor_real)h));
    TEST_WORLD_ORIGIN(s, cam, p);
    /* yaw 90: (x, y, z) in the base frame -> (z, y, -x); in the base frame the camera is at
       (-0.900 - 0.3 sin 40, 1.272 + 0.3 cos 40, 0) = (-1.093, 1.502, 0), lifted by 0.2. */
    ASSERT_VEC3_NEAR(p, 0, 1.702, 1.093, TEST_TOL_3DP);
    arbor_scene_destroy(s);
}

/* ---- Exercises 1, 2, 8, 9 ------------------------------------------------------------------------- */

static void test_exercise1_three_levels(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_real rz90[4], p[3];
    test_quat_axis_deg(rz90, 0, 0, 1, 90);
    arbor_node base = TEST_NODE(s, ARBOR_NONE, "base", V3(0, 1, 0), NULL, NULL);
    arbor_node arm = TEST_NODE(s, base, "arm", NULL, rz90, NULL);
    arbor_node hand = TEST_NODE(s, arm, "hand", V3(2, 0, 0), NULL, NULL);
    TEST_WORLD_ORIGIN(s, hand, p);
    ASSERT_VEC3_NEAR(p, 0, 3, 0, TEST_EPS);
    arbor_scene_update(s);
    TEST_WORLD_ORIGIN(s, hand, p);
    ASSERT_VEC3_NEAR(p, 0, 3, 0, TEST_EPS);
    arbor_scene_destroy(s);
}

static void test_exercise2_order(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_real rz90[4], p[3];
    test_quat_axis_deg(rz90, 0, 0, 1, 90);
    arbor_node base = TEST_NODE(s, ARBOR_NONE, "base", NULL, rz90, NULL);
    arbor_node arm = TEST_NODE(s, base, "arm", V3(0, 1, 0), NULL, NULL);
    arbor_node hand = TEST_NODE(s, arm, "hand", V3(2, 0, 0), NULL, NULL);
    TEST_WORLD_ORIGIN(s, hand, p);
    ASSERT_VEC3_NEAR(p, -1, 2, 0, TEST_EPS);

    /* Swap the locals back (exercise 1's order) by writing them: the hand follows. */
    ASSERT_OK(arbor_node_set_rotation(s, base, 0, 0, 0, 1));
    ASSERT_OK(arbor_node_set_translation(s, base, 0, 1, 0));
    ASSERT_OK(arbor_node_set_translation(s, arm, 0, 0, 0));
    ASSERT_OK(arbor_node_set_rotation(s, arm, rz90[0], rz90[1], rz90[2], rz90[3]));
    TEST_WORLD_ORIGIN(s, hand, p);
    ASSERT_VEC3_NEAR(p, 0, 3, 0, TEST_EPS);
    arbor_scene_destroy(s);
}

/* Exercise 8: the base's origin, world (0, 0.2, 0), in the hand's frame: (-0.129, -1.553, 0). */
static void test_exercise8_base_origin_in_hand_frame(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    test_robot r = test_build_robot(s);
    arbor_real wh[16], inv[16], p[3], base_origin[3];
    TEST_WORLD_ORIGIN(s, r.base, base_origin);
    ASSERT_VEC3_NEAR(base_origin, 0, 0.2, 0, TEST_EPS);
    TEST_WORLD(s, r.hand, wh);
    assert_true(arbor_mat4_invert_affine(inv, wh));
    arbor_mat4_transform_point(p, inv, base_origin);
    ASSERT_VEC3_NEAR(p, -0.129, -1.553, 0, TEST_TOL_3DP);
    /* Its distance is 0.2 of joint and 1.4 of arm bent by 40 degrees: |(1.4 sin 40, 0.2 + 1.4 cos 40)|. */
    const double b40 = 40.0 * 3.14159265358979323846 / 180.0;
    const double dx = 1.4 * sin(b40), dy = 0.2 + 1.4 * cos(b40);
    ASSERT_NEAR(sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]), sqrt(dx * dx + dy * dy),
                TEST_TOL_3DP);
    arbor_scene_destroy(s);
}

static double col_dot(const arbor_real *w, int a, int b)
{
    return (double)w[a * 4] * w[b * 4] + (double)w[a * 4 + 1] * w[b * 4 + 1] + (double)w[a * 4 + 2] * w[b * 4 + 2];
}

static double col_angle_deg(const arbor_real *w, int a, int b)
{
    return acos(col_dot(w, a, b) / sqrt(col_dot(w, a, a) * col_dot(w, b, b))) * 180.0 / 3.14159265358979323846;
}

/* Exercise 9: a scaled parent S(1,3,1) with a child R_z(30) shears; swapped, it does not. */
static void test_exercise9_shear_columns(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_real rz30[4], w[16];
    test_quat_axis_deg(rz30, 0, 0, 1, 30);

    arbor_node scaled = TEST_NODE(s, ARBOR_NONE, "scaled", NULL, NULL, V3(1, 3, 1));
    arbor_node turned = TEST_NODE(s, scaled, "turned", NULL, rz30, NULL);
    TEST_WORLD(s, turned, w);
    ASSERT_VEC3_NEAR(&w[0], 0.866, 1.5, 0, TEST_TOL_3DP);
    ASSERT_VEC3_NEAR(&w[4], -0.5, 2.598, 0, TEST_TOL_3DP);
    ASSERT_NEAR(col_dot(w, 0, 1), 3.464, TEST_TOL_3DP);
    ASSERT_NEAR(col_angle_deg(w, 0, 1), 40.9, 0.1);
    assert_false(arbor_mat4_decompose(w, NULL, NULL, NULL)); /* sheared: no TRS holds it */

    arbor_node turned2 = TEST_NODE(s, ARBOR_NONE, "turned2", NULL, rz30, NULL);
    arbor_node scaled2 = TEST_NODE(s, turned2, "scaled2", NULL, NULL, V3(1, 3, 1));
    TEST_WORLD(s, scaled2, w);
    ASSERT_VEC3_NEAR(&w[0], 0.866, 0.5, 0, TEST_TOL_3DP);
    ASSERT_VEC3_NEAR(&w[4], -1.5, 2.598, 0, TEST_TOL_3DP);
    ASSERT_NEAR(col_dot(w, 0, 1), 0, TEST_EPS);
    ASSERT_NEAR(col_angle_deg(w, 0, 1), 90.0, 0.1);
    assert_true(arbor_mat4_decompose(w, NULL, NULL, NULL)); /* a rotation of a scaled square */
    arbor_scene_destroy(s);
}

/* Section 13 and hands-on 2: parent S(2,1,1), child R_z(45). */
static void test_section13_inherited_shear(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_real rz45[4], w[16];
    test_quat_axis_deg(rz45, 0, 0, 1, 45);
    arbor_node parent = TEST_NODE(s, ARBOR_NONE, "parent", NULL, NULL, V3(2, 1, 1));
    arbor_node child = TEST_NODE(s, parent, "child", NULL, rz45, NULL);
    TEST_WORLD(s, child, w);
    ASSERT_VEC3_NEAR(&w[0], 1.414, 0.707, 0, TEST_TOL_3DP);
    ASSERT_VEC3_NEAR(&w[4], -1.414, 0.707, 0, TEST_TOL_3DP);
    ASSERT_NEAR(col_dot(w, 0, 1), -1.5, TEST_TOL_3DP);
    ASSERT_NEAR(sqrt(col_dot(w, 0, 0)), 1.581, TEST_TOL_3DP);
    ASSERT_NEAR(sqrt(col_dot(w, 1, 1)), 1.581, TEST_TOL_3DP);
    ASSERT_NEAR(col_angle_deg(w, 0, 1), 126.9, 0.1);
    assert_false(arbor_mat4_decompose(w, NULL, NULL, NULL));
    arbor_scene_destroy(s);
}

/* ---- Seed 003, figure 4 ----------------------------------------------------------------------------- */

/* The tutorial's matrix, column-major as printed. */
static const double FIG4_MATRIX[16] = {
    2.0, 0.0, 0.0, 0.0,
    0.0, 0.866, 0.5, 0.0,
    0.0, -0.25, 0.433, 0.0,
    10.0, 20.0, 30.0, 1.0,
};

static void test_gltf_figure4_trs_and_matrix(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);

    arbor_node trs_node = TEST_NODE(s, ARBOR_NONE, "node0", V3(10, 20, 30), Q4(0.259, 0, 0, 0.966), V3(2, 1, 0.5));
    arbor_real w[16];
    TEST_WORLD(s, trs_node, w);
    ASSERT_MAT4_NEAR_D(w, FIG4_MATRIX, TEST_TOL_3DP);
    ASSERT_NEAR(w[15], 1, 0);

    /* Figures 4c, 4d, 4e: the parts. */
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, trs_node, &trs));
    ASSERT_VEC3_NEAR(trs.translation, 10, 20, 30, 0);
    ASSERT_VEC3_NEAR(trs.scale, 2, 1, 0.5, 0);
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, 0.259, 0, 0, 0.966, TEST_TOL_3DP);
    ASSERT_NEAR(test_quat_len(trs.rotation), 1, TEST_EPS); /* normalised on the way in */

    /* A node given the matrix itself: its world matrix is that matrix, and the TRS node's. */
    arbor_real m[16];
    for (int i = 0; i < 16; i++) m[i] = (arbor_real)FIG4_MATRIX[i];
    arbor_node mat_node;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "node0m", .matrix = m, .lock_matrix = true }, &mat_node));
    assert_true(arbor_node_is_matrix_backed(s, mat_node));
    assert_true(arbor_node_is_locked(s, mat_node));
    arbor_real wm[16], lm[16];
    TEST_WORLD(s, mat_node, wm);
    ASSERT_REALS_BITS_EQUAL(wm, m, 16); /* a root's world is its local, copied */
    ASSERT_OK(arbor_node_local_matrix(s, mat_node, lm));
    ASSERT_REALS_BITS_EQUAL(lm, m, 16);
    ASSERT_MAT4_NEAR(wm, w, TEST_TOL_3DP);

    /* The global transform of the figure: root R, nodeA R*A, nodeB R*A*B, nodeC R*A*C, with the
       matrix node and the TRS node as A under a common root. */
    arbor_real rq[4];
    test_quat_axis_deg(rq, 0, 1, 0, 60);
    arbor_node root = TEST_NODE(s, ARBOR_NONE, "root", V3(1, -2, 3), rq, V3(1.5, 1.5, 1.5));
    arbor_node a_trs = TEST_NODE(s, root, "nodeA", V3(10, 20, 30), Q4(0.259, 0, 0, 0.966), V3(2, 1, 0.5));
    arbor_node a_mat;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "nodeAm", .parent = root, .matrix = m }, &a_mat));
    arbor_real bq[4];
    test_quat_axis_deg(bq, 0, 0, 1, 25);
    arbor_node b = TEST_NODE(s, a_trs, "nodeB", V3(0.5, 0, -1), bq, NULL);
    arbor_node bm = TEST_NODE(s, a_mat, "nodeBm", V3(0.5, 0, -1), bq, NULL);
    arbor_node c = TEST_NODE(s, a_trs, "nodeC", V3(-1, 2, 0), NULL, V3(3, 3, 3));

    double R[16], A[16], Am[16], B[16], C[16], RA[16], RAB[16], RAC[16], RAmB[16];
    test_ref_compose(R, (const double[3]){ 1, -2, 3 }, (const double[4]){ rq[0], rq[1], rq[2], rq[3] },
                     (const double[3]){ 1.5, 1.5, 1.5 });
    test_ref_compose(A, (const double[3]){ 10, 20, 30 }, (const double[4]){ 0.259, 0, 0, 0.966 },
                     (const double[3]){ 2, 1, 0.5 });
    for (int i = 0; i < 16; i++) Am[i] = FIG4_MATRIX[i];
    test_ref_compose(B, (const double[3]){ 0.5, 0, -1 }, (const double[4]){ bq[0], bq[1], bq[2], bq[3] },
                     (const double[3]){ 1, 1, 1 });
    test_ref_compose(C, (const double[3]){ -1, 2, 0 }, (const double[4]){ 0, 0, 0, 1 }, (const double[3]){ 3, 3, 3 });
    test_ref_mul(RA, R, A);
    test_ref_mul(RAB, RA, B);
    test_ref_mul(RAC, RA, C);
    double RAm[16];
    test_ref_mul(RAm, R, Am);
    test_ref_mul(RAmB, RAm, B);

    arbor_real x[16];
    TEST_WORLD(s, a_trs, x);
    ASSERT_MAT4_NEAR_D_REL(x, RA, TEST_EPS * 10);
    TEST_WORLD(s, b, x);
    ASSERT_MAT4_NEAR_D_REL(x, RAB, TEST_EPS * 10);
    TEST_WORLD(s, c, x);
    ASSERT_MAT4_NEAR_D_REL(x, RAC, TEST_EPS * 10);
    TEST_WORLD(s, bm, x);
    ASSERT_MAT4_NEAR_D_REL(x, RAmB, TEST_EPS * 10);
    /* The matrix-backed branch matches the TRS branch to the tutorial's three decimals (scaled by
       the root's 1.5 and the offsets of up to ~60). */
    arbor_real y[16];
    TEST_WORLD(s, b, x);
    TEST_WORLD(s, bm, y);
    ASSERT_MAT4_NEAR_REL(y, x, TEST_TOL_3DP);
    arbor_scene_destroy(s);
}

int main(void)
{
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_section3_world_matrix_tip_inverse),
        cmocka_unit_test(test_exercise4_point_into_arm_frame),
        cmocka_unit_test(test_section4_default_pose),
        cmocka_unit_test(test_section4_base_yawed_90),
        cmocka_unit_test(test_section4_bends),
        cmocka_unit_test(test_section6_mirrored_arm_matrix_backed),
        cmocka_unit_test(test_section6_mirrored_arm_trs_scale),
        cmocka_unit_test(test_section8_9_frames),
        cmocka_unit_test(test_section10_camera_on_hand),
        cmocka_unit_test(test_exercise1_three_levels),
        cmocka_unit_test(test_exercise2_order),
        cmocka_unit_test(test_exercise8_base_origin_in_hand_frame),
        cmocka_unit_test(test_exercise9_shear_columns),
        cmocka_unit_test(test_section13_inherited_shear),
        cmocka_unit_test(test_gltf_figure4_trs_and_matrix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
