/* SPDX-License-Identifier: MIT */
/*
 * tests/test_view.c: frames, cameras and lights (view.h).
 *
 * - seed 002 section 9 and exercise 8 through arbor_node_relative_matrix: the hand from the
 *   base's frame (-0.900, 1.272, 0), from the arm's (0, 0.7, 0), world (0, 1, 0) in the hand's
 *   (0.386, -0.940, 0), the arm from the hand (translation (0, -0.7, 0)), the base's origin in
 *   the hand's frame (-0.129, -1.553, 0);
 * - section 13 through arbor_node_world_trs: S(2,1,1) over R_z(45) reads back as scale
 *   (1.581, 1.581) and a rotation of 26.6 degrees, inexact, rebuilt 0.707 off; exercise 9's
 *   safe order reads back exactly; section 6's mirrored arm is mirrored and its hand too;
 * - the normal matrix keeps normals perpendicular under that shear;
 * - section 10: the camera on the hand, its view V with V W = I as the arm moves, P V;
 * - glTF's projection matrices (perspective, infinite, orthographic), aspect rules;
 * - the controllers (orbit, look-at with a banked up, free): pose, what they leave alone;
 * - lights: world position (column 3) and direction through ancestors' motion and scale;
 * - the Cameras sample of ../shared/gltf (skipped when absent): its cameras at load;
 * - error codes.
 */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "test_samples.h"

#define PI 3.14159265358979323846

static void relative_point(arbor_scene *s, arbor_node from, arbor_node to, const arbor_real p[3], arbor_real out[3]) {
    arbor_real m[16];
    ASSERT_OK(arbor_node_relative_matrix(s, from, to, m));
    arbor_mat4_transform_point(out, m, p);
}

/* ---- frames -------------------------------------------------------------------------------------- */

static void test_section9_between_nodes(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    test_robot r = test_build_robot(s);
    arbor_real p[3], m[16];
    const arbor_real *origin = V3(0, 0, 0);

    relative_point(s, r.hand, r.base, origin, p);
    ASSERT_VEC3_NEAR(p, -0.900, 1.272, 0, TEST_TOL_3DP);
    relative_point(s, r.hand, r.arm, origin, p);
    ASSERT_VEC3_NEAR(p, 0, 0.7, 0, TEST_EPS);
    relative_point(s, ARBOR_NONE, r.hand, V3(0, 1, 0), p); /* a world point in the hand's frame */
    ASSERT_VEC3_NEAR(p, 0.386, -0.940, 0, TEST_TOL_3DP);
    relative_point(s, r.hand, ARBOR_NONE, origin, p); /* the hand's origin in the world */
    ASSERT_VEC3_NEAR(p, -0.779, 1.472, 0.450, TEST_TOL_3DP);
    /* Exercise 8: the base's origin in the hand's frame. */
    relative_point(s, r.base, r.hand, origin, p);
    ASSERT_VEC3_NEAR(p, -0.129, -1.553, 0, TEST_TOL_3DP);

    /* The arm seen from the hand: translation (0, -0.7, 0), no rotation. */
    ASSERT_OK(arbor_node_relative_matrix(s, r.arm, r.hand, m));
    const double arm_from_hand[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.7, 0, 1 };
    ASSERT_MAT4_NEAR_D(m, arm_from_hand, TEST_EPS);
    /* To the world it is the world matrix; world to world the identity. */
    arbor_real w[16], id[16];
    TEST_WORLD(s, r.hand, w);
    ASSERT_OK(arbor_node_relative_matrix(s, r.hand, ARBOR_NONE, m));
    ASSERT_MAT4_NEAR(m, w, 0);
    ASSERT_OK(arbor_node_relative_matrix(s, ARBOR_NONE, ARBOR_NONE, m));
    arbor_mat4_identity(id);
    ASSERT_MAT4_NEAR(m, id, 0);
    /* A node from itself: the identity. */
    ASSERT_OK(arbor_node_relative_matrix(s, r.arm, r.arm, m));
    ASSERT_MAT4_NEAR(m, id, TEST_EPS);

    /* It follows edits without an update. */
    ASSERT_OK(arbor_node_set_translation(s, r.hand, 0, 1.7, 0));
    relative_point(s, r.hand, r.arm, origin, p);
    ASSERT_VEC3_NEAR(p, 0, 1.7, 0, TEST_EPS);
    arbor_scene_destroy(s);
}

/* Section 13's pitfall: parent S(2,1,1) at t, child R_z(45); returns the child. */
static arbor_node build_sheared(arbor_scene *s, const arbor_real t[3], arbor_node *parent) {
    arbor_real rz45[4];
    test_quat_axis_deg(rz45, 0, 0, 1, 45);
    *parent = TEST_NODE(s, ARBOR_NONE, "parent", t, NULL, V3(2, 1, 1));
    return TEST_NODE(s, *parent, "child", NULL, rz45, NULL);
}

static void test_section13_world_trs_inexact(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_real w[16], rebuilt[16];
    arbor_node parent, child = build_sheared(s, NULL, &parent);
    arbor_trs trs;
    bool exact = true;
    ASSERT_OK(arbor_node_world_trs(s, child, &trs, &exact));
    assert_false(exact);
    ASSERT_VEC3_NEAR(trs.scale, 1.581, 1.581, 1, TEST_TOL_3DP);
    /* The first column's direction: 26.6 degrees about Z, not 45. */
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, 0, 0, sin(26.565 * PI / 360), cos(26.565 * PI / 360), TEST_TOL_3DP);
    /* R_z(26.6) S(1.581, 1.581) misses W by 0.707 at its largest entry. */
    arbor_mat4_compose(rebuilt, trs.translation, trs.rotation, trs.scale);
    TEST_WORLD(s, child, w);
    double worst = 0;
    for (int i = 0; i < 16; i++) worst = fmax(worst, fabs((double)rebuilt[i] - w[i]));
    ASSERT_NEAR(worst, 0.707, TEST_TOL_3DP);
    /* exact may be NULL. */
    ASSERT_OK(arbor_node_world_trs(s, child, &trs, NULL));

    /* Exercise 9's safe order (a scale below a rotation): exact, and rebuilt to the matrix. */
    arbor_real rz30[4];
    test_quat_axis_deg(rz30, 0, 0, 1, 30);
    arbor_node turned = TEST_NODE(s, ARBOR_NONE, "turned", V3(1, 2, 3), rz30, NULL);
    arbor_node scaled = TEST_NODE(s, turned, "scaled", NULL, NULL, V3(1, 3, 1));
    ASSERT_OK(arbor_node_world_trs(s, scaled, &trs, &exact));
    assert_true(exact);
    ASSERT_VEC3_NEAR(trs.scale, 1, 3, 1, TEST_EPS);
    ASSERT_VEC3_NEAR(trs.translation, 1, 2, 3, TEST_EPS);
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, rz30[0], rz30[1], rz30[2], rz30[3], TEST_EPS);
    /* The unsafe one: S(1,3,1) over R_z(30) is sheared. */
    arbor_node tall = TEST_NODE(s, ARBOR_NONE, "tall", NULL, NULL, V3(1, 3, 1));
    arbor_node tilted = TEST_NODE(s, tall, "tilted", NULL, rz30, NULL);
    ASSERT_OK(arbor_node_world_trs(s, tilted, &trs, &exact));
    assert_false(exact);
    arbor_scene_destroy(s);
}

/* The hand's world TRS at the default pose: exact, the base's yaw times the bend. */
static void test_world_trs_of_the_hand(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    test_robot r = test_build_robot(s);
    arbor_trs trs;
    bool exact = false;
    ASSERT_OK(arbor_node_world_trs(s, r.hand, &trs, &exact));
    assert_true(exact);
    ASSERT_VEC3_NEAR(trs.translation, -0.78, 1.47, 0.45, TEST_TOL_2DP);
    ASSERT_VEC3_NEAR(trs.scale, 1, 1, 1, TEST_TOL_3DP);
    /* the base's yaw times the elbow's bend (the seed's quaternions), in double */
    const double yaw[4] = {0, 0.2588, 0, 0.9659}, bend[4] = {0, 0, 0.3420, 0.9397};
    double q[4];
    test_ref_quat_mul(q, yaw, bend);
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, q[0] / n, q[1] / n, q[2] / n, q[3] / n, TEST_TOL_3DP);
    arbor_scene_destroy(s);
}

/* Section 6 / 12: the mirrored arm, det -1, and its hand; a mirror of a mirror is not. */
static void test_mirrored(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    test_robot r = test_build_robot(s);
    arbor_node mirror = TEST_NODE(s, r.base, "mirror", NULL, NULL, V3(-1, 1, 1));
    arbor_node joint2 = TEST_NODE(s, mirror, "joint2", V3(0, 0.2, 0), Q4(0, 0, 0.3420, 0.9397), NULL);
    arbor_node arm2 = TEST_NODE(s, joint2, "arm2", V3(0, 0.7, 0), NULL, NULL);
    arbor_node hand2 = TEST_NODE(s, arm2, "hand2", V3(0, 0.7, 0), NULL, NULL);
    assert_false(arbor_node_world_is_mirrored(s, r.base));
    assert_false(arbor_node_world_is_mirrored(s, r.hand));
    assert_true(arbor_node_world_is_mirrored(s, mirror));
    assert_true(arbor_node_world_is_mirrored(s, arm2));
    assert_true(arbor_node_world_is_mirrored(s, hand2));
    arbor_real p[3];
    TEST_WORLD_ORIGIN(s, hand2, p);
    ASSERT_VEC3_NEAR(p, 0.78, 1.47, -0.45, TEST_TOL_2DP);
    /* A reflection reads back exactly, on a negative Y scale. */
    arbor_trs trs;
    bool exact = false;
    ASSERT_OK(arbor_node_world_trs(s, arm2, &trs, &exact));
    assert_true(exact);
    ASSERT_VEC3_NEAR(trs.scale, 1, -1, 1, TEST_EPS);
    /* A mirror under the mirror undoes it; moving the mirror away does too. */
    arbor_node again = TEST_NODE(s, hand2, "again", NULL, NULL, V3(1, 1, -1));
    assert_false(arbor_node_world_is_mirrored(s, again));
    ASSERT_OK(arbor_node_set_scale(s, mirror, 1, 1, 1));
    assert_false(arbor_node_world_is_mirrored(s, hand2));
    assert_true(arbor_node_world_is_mirrored(s, again));
    /* Dead or NONE: false. */
    ASSERT_OK(arbor_node_destroy(s, again));
    assert_false(arbor_node_world_is_mirrored(s, again));
    assert_false(arbor_node_world_is_mirrored(s, ARBOR_NONE));
    arbor_scene_destroy(s);
}

/* The same shear breaks normals: the normal matrix keeps them perpendicular. */
static void test_normal_matrix(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_real w[16], nm[9];
    arbor_node parent, child = build_sheared(s, V3(4, 5, 6), &parent);
    ASSERT_OK(arbor_node_normal_matrix(s, child, nm));
    /* W's 3x3 is [[1.414, -1.414, 0], [0.707, 0.707, 0], [0, 0, 1]], det 2: its inverse
       transpose is [[0.354, -0.354, 0], [0.707, 0.707, 0], [0, 0, 1]]. */
    const double h = sqrt(0.5);
    const double want[9] = { h / 2, h, 0, -h / 2, h, 0, 0, 0, 1 };
    for (int i = 0; i < 9; i++) ASSERT_NEAR(nm[i], want[i], TEST_EPS);
    /* The child's +X face: normal (1, 0, 0), tangent (0, 1, 0). Through W the tangent turns to
       (-1.414, 0.707, 0); the normal through N stays perpendicular to it, through W it would not. */
    TEST_WORLD(s, child, w);
    double tangent[3], normal[3], bent[3];
    for (int row = 0; row < 3; row++) {
        tangent[row] = w[4 + row];
        normal[row] = nm[row];
        bent[row] = w[row];
    }
    ASSERT_NEAR(tangent[0] * normal[0] + tangent[1] * normal[1] + tangent[2] * normal[2], 0, TEST_EPS);
    ASSERT_NEAR(tangent[0] * bent[0] + tangent[1] * bent[1] + tangent[2] * bent[2], -1.5, TEST_EPS);
    /* A rotation's normal matrix is the rotation. */
    ASSERT_OK(arbor_node_set_scale(s, parent, 1, 1, 1));
    ASSERT_OK(arbor_node_normal_matrix(s, child, nm));
    TEST_WORLD(s, child, w);
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) ASSERT_NEAR(nm[c * 3 + row], w[c * 4 + row], TEST_EPS);
    arbor_scene_destroy(s);
}

/* ---- cameras -------------------------------------------------------------------------------------- */

static const arbor_camera PERSPECTIVE = { ARBOR_CAMERA_PERSPECTIVE, (arbor_real)0.7, (arbor_real)1.5, 0, 0,
                                          (arbor_real)0.01, 100 };

/* Section 10's camera on the hand, L_cam = T(0, 0.3, 0) (its view matrix to two decimals is in
   test_seeds.c, through arbor_camera_view_matrix too). */
static void test_section10_view_matrix(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    test_robot r = test_build_robot(s);
    arbor_node cam = TEST_NODE(s, r.hand, "camera", V3(0, 0.3, 0), NULL, NULL);
    ASSERT_OK(arbor_node_set_camera(s, cam, &PERSPECTIVE));
    arbor_real v[16];
    /* The view follows the arm: V W = I after the base turns, without an update. */
    ASSERT_OK(arbor_node_set_rotation(s, r.base, 0, (arbor_real)sqrt(0.5), 0, (arbor_real)sqrt(0.5)));
    arbor_real w[16], vw[16], id[16];
    ASSERT_OK(arbor_camera_view_matrix(s, cam, v));
    TEST_WORLD(s, cam, w);
    arbor_mat4_mul(vw, v, w);
    arbor_mat4_identity(id);
    ASSERT_MAT4_NEAR(vw, id, TEST_EPS);
    /* view_projection is P V. */
    arbor_real pm[16], vp[16];
    ASSERT_OK(arbor_camera_projection_matrix(s, cam, 0, pm));
    ASSERT_OK(arbor_camera_view_projection(s, cam, 0, vp));
    double pd[16], vd[16], want[16]; /* P V in double */
    for (int k = 0; k < 16; k++) pd[k] = pm[k], vd[k] = v[k];
    test_ref_mul(want, pd, vd);
    ASSERT_MAT4_NEAR_D_REL(vp, want, TEST_EPS);
    /* Any node can be the eye of a view matrix; a singular one cannot. */
    ASSERT_OK(arbor_camera_view_matrix(s, r.arm, v));
    arbor_node flat = TEST_NODE(s, ARBOR_NONE, "flat", NULL, NULL, V3(1, 0, 1));
    ASSERT_REFUSED(ARBOR_ERR_SINGULAR, "arbor_camera_view_matrix", arbor_camera_view_matrix(s, flat, v));
    arbor_scene_destroy(s);
}

static void test_projection_matrices(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node cam = TEST_NODE(s, ARBOR_NONE, "camera", NULL, NULL, NULL);
    arbor_real m[16];
    const double t = tan(0.35);

    /* glTF's finite perspective. */
    ASSERT_OK(arbor_node_set_camera(s, cam, &PERSPECTIVE));
    ASSERT_OK(arbor_camera_projection_matrix(s, cam, 0, m));
    const double persp[16] = { 1 / (1.5 * t), 0, 0, 0, 0, 1 / t, 0, 0, 0, 0, 100.01 / (0.01 - 100), -1,
                               0, 0, 2 * 100 * 0.01 / (0.01 - 100), 0 };
    ASSERT_MAT4_NEAR_D_REL(m, persp, TEST_EPS);
    /* A point on the near plane lands at NDC z = -1, one on the far plane at +1. */
    double zn = (m[10] * -0.01 + m[14]) / 0.01, zf = (m[10] * -100 + m[14]) / 100;
    ASSERT_NEAR(zn, -1, TEST_EPS * 10);
    ASSERT_NEAR(zf, 1, TEST_EPS * 10);
    /* The aspect argument overrides the camera's. */
    ASSERT_OK(arbor_camera_projection_matrix(s, cam, 2, m));
    ASSERT_NEAR_REL(m[0], 1 / (2 * t), TEST_EPS);

    /* Infinite: zfar 0. */
    arbor_camera infinite = PERSPECTIVE;
    infinite.zfar = 0;
    ASSERT_OK(arbor_node_set_camera(s, cam, &infinite));
    ASSERT_OK(arbor_camera_projection_matrix(s, cam, 0, m));
    ASSERT_NEAR(m[10], -1, 0);
    ASSERT_NEAR(m[11], -1, 0);
    ASSERT_NEAR_REL(m[14], -0.02, TEST_EPS);
    ASSERT_NEAR(m[15], 0, 0);

    /* No aspect anywhere: refused; a negative or non-finite one too. */
    arbor_camera no_aspect = PERSPECTIVE;
    no_aspect.aspect = 0;
    ASSERT_OK(arbor_node_set_camera(s, cam, &no_aspect));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_camera_projection_matrix", arbor_camera_projection_matrix(s, cam, 0, m));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_camera_view_projection", arbor_camera_view_projection(s, cam, 0, m));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_camera_projection_matrix", arbor_camera_projection_matrix(s, cam, -1, m));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_camera_projection_matrix", arbor_camera_projection_matrix(s, cam, (arbor_real)NAN, m));
    ASSERT_OK(arbor_camera_projection_matrix(s, cam, (arbor_real)1.5, m));
    ASSERT_NEAR_REL(m[0], 1 / (1.5 * t), TEST_EPS);

    /* Orthographic: xmag, ymag; the aspect is ignored. */
    const arbor_camera ortho = { ARBOR_CAMERA_ORTHOGRAPHIC, 0, 0, 2, 1, (arbor_real)0.01, 100 };
    ASSERT_OK(arbor_node_set_camera(s, cam, &ortho));
    ASSERT_OK(arbor_camera_projection_matrix(s, cam, 7, m));
    const double orth[16] = { 0.5, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2 / (0.01 - 100), 0, 0, 0, 100.01 / (0.01 - 100), 1 };
    ASSERT_MAT4_NEAR_D_REL(m, orth, TEST_EPS);

    /* No camera on the node; a dead node; NONE. */
    arbor_node plain = TEST_NODE(s, ARBOR_NONE, "plain", NULL, NULL, NULL);
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_camera_projection_matrix", arbor_camera_projection_matrix(s, plain, 1, m));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_camera_view_projection", arbor_camera_view_projection(s, plain, 1, m));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_camera_view_matrix", arbor_camera_view_matrix(s, ARBOR_NONE, m));
    ASSERT_OK(arbor_node_destroy(s, plain));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_camera_projection_matrix", arbor_camera_projection_matrix(s, plain, 1, m));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_camera_view_matrix", arbor_camera_view_matrix(s, plain, m));
    arbor_scene_destroy(s);
}

/* The camera's world axes: x, y, z columns of its world matrix, normalised. */
static void camera_axes(arbor_scene *s, arbor_node cam, double x[3], double y[3], double z[3], double eye[3]) {
    arbor_real w[16];
    TEST_WORLD(s, cam, w);
    double *axes[3] = { x, y, z };
    for (int c = 0; c < 3; c++) {
        double len = sqrt((double)w[c * 4] * w[c * 4] + (double)w[c * 4 + 1] * w[c * 4 + 1] + (double)w[c * 4 + 2] * w[c * 4 + 2]);
        for (int row = 0; row < 3; row++) axes[c][row] = w[c * 4 + row] / len;
    }
    for (int row = 0; row < 3; row++) eye[row] = w[12 + row];
}

static void test_orbit(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node rig = TEST_NODE(s, ARBOR_NONE, "rig", V3(10, 0, 0), NULL, NULL);
    arbor_node cam = TEST_NODE(s, rig, "camera", NULL, NULL, V3(2, 2, 2));
    arbor_node child = TEST_NODE(s, cam, "child", V3(0, 0, -1), NULL, NULL);
    arbor_node other = TEST_NODE(s, ARBOR_NONE, "other", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_set_camera(s, cam, &PERSPECTIVE));
    double x[3], y[3], z[3], eye[3];

    /* alpha = beta = pi/2: the eye on +Z of the target, looking down -Z with +Y up. */
    ASSERT_OK(arbor_camera_orbit(s, cam, (arbor_real)(PI / 2), (arbor_real)(PI / 2), 10, V3(1, 2, 3)));
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, cam, &trs));
    ASSERT_VEC3_NEAR(trs.translation, 1, 2, 13, TEST_EPS * 10);
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, 0, 0, 0, 1, TEST_EPS);
    ASSERT_VEC3_NEAR(trs.scale, 2, 2, 2, 0); /* kept */
    camera_axes(s, cam, x, y, z, eye);
    ASSERT_VEC3_NEAR(((arbor_real[3]){ (arbor_real)eye[0], (arbor_real)eye[1], (arbor_real)eye[2] }), 11, 2, 13, TEST_EPS * 10);

    /* alpha = 0, beta = 60 degrees, radius 2: the eye at 2 (sin 60, cos 60, 0) from the target;
       it looks at the target, its X stays level, its Y leans up. */
    ASSERT_OK(arbor_camera_orbit(s, cam, 0, (arbor_real)(PI / 3), 2, V3(0, 0, 0)));
    ASSERT_OK(arbor_node_trs(s, cam, &trs));
    ASSERT_VEC3_NEAR(trs.translation, sqrt(3), 1, 0, TEST_EPS * 10);
    camera_axes(s, cam, x, y, z, eye);
    ASSERT_NEAR(z[0], sqrt(3) / 2, TEST_EPS);  /* -Z points from the eye to the target */
    ASSERT_NEAR(z[1], 0.5, TEST_EPS);
    ASSERT_NEAR(x[1], 0, TEST_EPS);
    assert_true(y[1] > 0);
    ASSERT_NEAR(x[0] * z[0] + x[1] * z[1] + x[2] * z[2], 0, TEST_EPS);

    /* beta = 0: straight down from above, still a rotation. */
    ASSERT_OK(arbor_camera_orbit(s, cam, 0, 0, 3, V3(0, 0, 0)));
    ASSERT_OK(arbor_node_trs(s, cam, &trs));
    ASSERT_VEC3_NEAR(trs.translation, 0, 3, 0, TEST_EPS);
    camera_axes(s, cam, x, y, z, eye);
    ASSERT_VEC3_NEAR(((arbor_real[3]){ (arbor_real)z[0], (arbor_real)z[1], (arbor_real)z[2] }), 0, 1, 0, TEST_EPS);
    ASSERT_NEAR(test_quat_len(trs.rotation), 1, TEST_EPS);

    /* It wrote the camera's local transform and nothing else. */
    uint64_t other_version = arbor_node_world_version(s, other);
    arbor_real child_local[16], child_after[16];
    ASSERT_OK(arbor_node_local_matrix(s, child, child_local));
    arbor_camera back;
    ASSERT_OK(arbor_camera_orbit(s, cam, 1, 1, 5, V3(0, 1, 0)));
    ASSERT_OK(arbor_node_local_matrix(s, child, child_after));
    ASSERT_MAT4_NEAR(child_after, child_local, 0);
    assert_int_equal(arbor_node_world_version(s, other), other_version);
    ASSERT_OK(arbor_node_camera(s, cam, &back));
    assert_memory_equal(&back, &PERSPECTIVE, sizeof back);

    /* Errors. */
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_camera_orbit", arbor_camera_orbit(s, cam, 0, 1, 0, V3(0, 0, 0)));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_camera_orbit", arbor_camera_orbit(s, cam, 0, 1, -2, V3(0, 0, 0)));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_camera_orbit", arbor_camera_orbit(s, cam, (arbor_real)NAN, 1, 2, V3(0, 0, 0)));
    const arbor_real m[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
    ASSERT_OK(arbor_node_set_local_matrix(s, cam, m, true));
    ASSERT_REFUSED(ARBOR_ERR_LOCKED, "arbor_camera_orbit", arbor_camera_orbit(s, cam, 0, 1, 2, V3(0, 0, 0)));
    /* An unlocked matrix hands control back to TRS. */
    ASSERT_OK(arbor_node_set_local_matrix(s, cam, m, false));
    ASSERT_OK(arbor_camera_orbit(s, cam, 0, 1, 2, V3(0, 0, 0)));
    assert_false(arbor_node_is_matrix_backed(s, cam));
    arbor_scene_destroy(s);
}

static void test_look_at_and_free(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node cam = TEST_NODE(s, ARBOR_NONE, "camera", NULL, NULL, NULL);
    double x[3], y[3], z[3], eye[3];
    arbor_trs trs;
    const double h = sqrt(0.5);

    ASSERT_OK(arbor_camera_look_at(s, cam, V3(0, 0, 5), V3(0, 0, 0), V3(0, 1, 0)));
    ASSERT_OK(arbor_node_trs(s, cam, &trs));
    ASSERT_VEC3_NEAR(trs.translation, 0, 0, 5, 0);
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, 0, 0, 0, 1, TEST_EPS);
    /* An up of (1, 1, 0) banks the camera 45 degrees about its line of sight. */
    ASSERT_OK(arbor_camera_look_at(s, cam, V3(0, 0, 5), V3(0, 0, 0), V3(1, 1, 0)));
    camera_axes(s, cam, x, y, z, eye);
    ASSERT_VEC3_NEAR(((arbor_real[3]){ (arbor_real)y[0], (arbor_real)y[1], (arbor_real)y[2] }), h, h, 0, TEST_EPS);
    ASSERT_VEC3_NEAR(((arbor_real[3]){ (arbor_real)x[0], (arbor_real)x[1], (arbor_real)x[2] }), h, -h, 0, TEST_EPS);
    /* From the side: eye (4, 3, 0), target (0, 3, 0): looking down -X. */
    ASSERT_OK(arbor_camera_look_at(s, cam, V3(4, 3, 0), V3(0, 3, 0), V3(0, 1, 0)));
    camera_axes(s, cam, x, y, z, eye);
    ASSERT_VEC3_NEAR(((arbor_real[3]){ (arbor_real)z[0], (arbor_real)z[1], (arbor_real)z[2] }), 1, 0, 0, TEST_EPS);
    ASSERT_VEC3_NEAR(((arbor_real[3]){ (arbor_real)x[0], (arbor_real)x[1], (arbor_real)x[2] }), 0, 0, -1, TEST_EPS);
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_camera_look_at", arbor_camera_look_at(s, cam, V3(1, 1, 1), V3(1, 1, 1), V3(0, 1, 0)));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_camera_look_at", arbor_camera_look_at(s, cam, V3(0, 5, 0), V3(0, 0, 0), V3(0, 1, 0)));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_camera_look_at", arbor_camera_look_at(s, cam, V3(0, 0, 5), V3(0, 0, 0), V3(0, 0, 0)));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_camera_look_at", arbor_camera_look_at(s, cam, V3(INFINITY, 0, 5), V3(0, 0, 0), V3(0, 1, 0)));

    /* Free: yaw about +Y, then pitch about the camera's +X. */
    ASSERT_OK(arbor_camera_fly(s, cam, V3(1, 2, 3), 0, 0));
    ASSERT_OK(arbor_node_trs(s, cam, &trs));
    ASSERT_VEC3_NEAR(trs.translation, 1, 2, 3, 0);
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, 0, 0, 0, 1, TEST_EPS);
    ASSERT_OK(arbor_camera_fly(s, cam, V3(1, 2, 3), (arbor_real)(PI / 2), 0));
    camera_axes(s, cam, x, y, z, eye);
    ASSERT_VEC3_NEAR(((arbor_real[3]){ (arbor_real)-z[0], (arbor_real)-z[1], (arbor_real)-z[2] }), -1, 0, 0, TEST_EPS);
    ASSERT_OK(arbor_camera_fly(s, cam, V3(1, 2, 3), 0, (arbor_real)(PI / 4)));
    camera_axes(s, cam, x, y, z, eye);
    ASSERT_VEC3_NEAR(((arbor_real[3]){ (arbor_real)-z[0], (arbor_real)-z[1], (arbor_real)-z[2] }), 0, h, -h, TEST_EPS);
    ASSERT_OK(arbor_camera_fly(s, cam, V3(1, 2, 3), (arbor_real)(PI / 2), (arbor_real)(PI / 4)));
    camera_axes(s, cam, x, y, z, eye);
    ASSERT_VEC3_NEAR(((arbor_real[3]){ (arbor_real)-z[0], (arbor_real)-z[1], (arbor_real)-z[2] }), -h, h, 0, TEST_EPS);
    ASSERT_NEAR(x[1], 0, TEST_EPS); /* no roll */
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_camera_fly", arbor_camera_fly(s, cam, V3(0, 0, 0), (arbor_real)NAN, 0));
    arbor_node dead = TEST_NODE(s, ARBOR_NONE, "dead", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_destroy(s, dead));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_camera_fly", arbor_camera_fly(s, dead, V3(0, 0, 0), 0, 0));
    arbor_scene_destroy(s);
}

/* ---- lights ---------------------------------------------------------------------------------------- */

static void test_lights_follow_ancestors(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_real ry90[4], p[3], d[3];
    test_quat_axis_deg(ry90, 0, 1, 0, 90);
    arbor_node lamp_post = TEST_NODE(s, ARBOR_NONE, "post", V3(0, 5, 0), ry90, NULL);
    arbor_node lamp = TEST_NODE(s, lamp_post, "lamp", V3(1, 0, 0), NULL, NULL);
    const arbor_light spot = { ARBOR_LIGHT_SPOT, { 1, 1, 1 }, 10, 0, 0, 0, { 0, 0, 0 } };
    ASSERT_OK(arbor_node_set_light(s, lamp, &spot));

    /* Position: column 3; direction: the default -Z through the yaw: -X. */
    ASSERT_OK(arbor_light_world_position(s, lamp, p));
    ASSERT_VEC3_NEAR(p, 0, 5, -1, TEST_EPS);
    ASSERT_OK(arbor_light_world_direction(s, lamp, d));
    ASSERT_VEC3_NEAR(d, -1, 0, 0, TEST_EPS);
    /* The post moves: both follow, without an update. */
    ASSERT_OK(arbor_node_set_translation(s, lamp_post, 3, 5, 0));
    ASSERT_OK(arbor_node_set_rotation(s, lamp_post, 0, 0, 0, 1));
    ASSERT_OK(arbor_light_world_position(s, lamp, p));
    ASSERT_VEC3_NEAR(p, 4, 5, 0, TEST_EPS);
    ASSERT_OK(arbor_light_world_direction(s, lamp, d));
    ASSERT_VEC3_NEAR(d, 0, 0, -1, TEST_EPS);
    /* A local direction, through a non-uniform scale: (1, 0, -1) under S(2, 1, 1) is (2, 0, -1)
       normalised. */
    arbor_light aimed = spot;
    aimed.direction[0] = 1;
    aimed.direction[2] = -1;
    ASSERT_OK(arbor_node_set_light(s, lamp, &aimed));
    ASSERT_OK(arbor_node_set_scale(s, lamp_post, 2, 1, 1));
    ASSERT_OK(arbor_light_world_direction(s, lamp, d));
    ASSERT_VEC3_NEAR(d, 2 / sqrt(5), 0, -1 / sqrt(5), TEST_EPS);
    ASSERT_OK(arbor_light_world_position(s, lamp, p));
    ASSERT_VEC3_NEAR(p, 5, 5, 0, TEST_EPS);
    /* The light is read back as set (zero cones stay zero). */
    arbor_light back;
    ASSERT_OK(arbor_node_light(s, lamp, &back));
    assert_memory_equal(&back, &aimed, sizeof back);

    /* A scale that flattens the direction; no light; a dead node. */
    ASSERT_OK(arbor_node_set_scale(s, lamp_post, 0, 1, 0));
    ASSERT_REFUSED(ARBOR_ERR_SINGULAR, "arbor_light_world_direction", arbor_light_world_direction(s, lamp, d));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_light_world_position", arbor_light_world_position(s, lamp_post, p));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_light_world_direction", arbor_light_world_direction(s, lamp_post, d));
    ASSERT_OK(arbor_node_set_light(s, lamp, NULL));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_light_world_position", arbor_light_world_position(s, lamp, p));
    ASSERT_OK(arbor_node_destroy(s, lamp_post));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_light_world_position", arbor_light_world_position(s, lamp, p));
    arbor_scene_destroy(s);
}

/* ---- frame errors ---------------------------------------------------------------------------------- */

static void test_frame_errors(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node a = TEST_NODE(s, ARBOR_NONE, "a", NULL, NULL, NULL);
    arbor_node flat = TEST_NODE(s, ARBOR_NONE, "flat", NULL, NULL, V3(1, 1, 0));
    arbor_node dead = TEST_NODE(s, ARBOR_NONE, "dead", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_destroy(s, dead));
    arbor_real m[16], nm[9];
    arbor_trs trs;
    ASSERT_REFUSED(ARBOR_ERR_SINGULAR, "arbor_node_relative_matrix", arbor_node_relative_matrix(s, a, flat, m));
    ASSERT_OK(arbor_node_relative_matrix(s, flat, a, m)); /* from a flat frame is fine */
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_relative_matrix", arbor_node_relative_matrix(s, dead, a, m));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_relative_matrix", arbor_node_relative_matrix(s, a, dead, m));
    ASSERT_REFUSED(ARBOR_ERR_SINGULAR, "arbor_node_normal_matrix", arbor_node_normal_matrix(s, flat, nm));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_normal_matrix", arbor_node_normal_matrix(s, dead, nm));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_normal_matrix", arbor_node_normal_matrix(s, ARBOR_NONE, nm));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_world_trs", arbor_node_world_trs(s, dead, &trs, NULL));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_world_trs", arbor_node_world_trs(s, ARBOR_NONE, &trs, NULL));
    arbor_scene_destroy(s);
}

/* ---- glTF: the Cameras sample ------------------------------------------------------------------------- */

static void test_gltf_cameras_sample(void **state) {
    (void)state;
    const char *path = SAMPLES_DIR "/Cameras/Cameras.gltf";
    if (access(path, R_OK) != 0) TEST_SKIP_SHARED(path);
    loaded l = load_ok(path);
    arbor_node persp = arbor_gltf_node(l.doc, 1), ortho = arbor_gltf_node(l.doc, 2), square = arbor_gltf_node(l.doc, 0);
    arbor_camera c;
    ASSERT_OK(arbor_node_camera(l.s, persp, &c));
    assert_int_equal(c.type, ARBOR_CAMERA_PERSPECTIVE);
    ASSERT_NEAR(c.yfov, 0.7, TEST_EPS);
    ASSERT_NEAR(c.aspect, 1.0, 0);
    arbor_real m[16];
    ASSERT_OK(arbor_camera_projection_matrix(l.s, persp, 0, m));
    ASSERT_NEAR_REL(m[5], 1 / tan(0.35), TEST_EPS);
    ASSERT_NEAR_REL(m[0], 1 / tan(0.35), TEST_EPS);
    ASSERT_OK(arbor_camera_view_matrix(l.s, persp, m));
    ASSERT_VEC3_NEAR(&m[12], -0.5, -0.5, -3, TEST_EPS);
    ASSERT_OK(arbor_node_camera(l.s, ortho, &c));
    assert_int_equal(c.type, ARBOR_CAMERA_ORTHOGRAPHIC);
    ASSERT_OK(arbor_camera_projection_matrix(l.s, ortho, 0, m));
    ASSERT_NEAR(m[0], 1, TEST_EPS);
    ASSERT_NEAR(m[15], 1, 0);
    /* The square (mesh 0, its POSITION min and max as its box) is in view of both cameras. */
    arbor_real vp[16], planes[24];
    arbor_node out[2];
    for (int i = 0; i < 2; i++) {
        ASSERT_OK(arbor_camera_view_projection(l.s, i ? ortho : persp, 0, vp));
        arbor_frustum_planes(vp, planes);
        assert_int_equal(TEST_CULL(l.s, planes, 6, out, 2, NULL), 1);
        ASSERT_NODE_EQ(out[0], square);
    }
    /* Turn the perspective camera around: nothing left in view. */
    ASSERT_OK(arbor_camera_look_at(l.s, persp, V3(0.5, 0.5, 3), V3(0.5, 0.5, 6), V3(0, 1, 0)));
    ASSERT_OK(arbor_camera_view_projection(l.s, persp, 0, vp));
    arbor_frustum_planes(vp, planes);
    assert_int_equal(TEST_CULL(l.s, planes, 6, out, 2, NULL), 0);
    unload(&l);
}

int main(void) {
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_section9_between_nodes),
        cmocka_unit_test(test_section13_world_trs_inexact),
        cmocka_unit_test(test_world_trs_of_the_hand),
        cmocka_unit_test(test_mirrored),
        cmocka_unit_test(test_normal_matrix),
        cmocka_unit_test(test_section10_view_matrix),
        cmocka_unit_test(test_projection_matrices),
        cmocka_unit_test(test_orbit),
        cmocka_unit_test(test_look_at_and_free),
        cmocka_unit_test(test_lights_follow_ancestors),
        cmocka_unit_test(test_frame_errors),
        cmocka_unit_test(test_gltf_cameras_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
