/* SPDX-License-Identifier: MIT */
/*
 * NULL at every exported function (base.h's rule): a NULL scene, journal, clip, player, skins,
 * document or pool, a NULL array with a nonzero count and a NULL out-pointer each give a result
 * code (ARBOR_ERR_INVALID_ARGUMENT) from a function that returns one, the zero value (0, false,
 * NULL, ARBOR_NONE, -1 where -1 means none) from a getter, and nothing at all from a void
 * function -- never a crash. One row of the table per export; the table is checked against the
 * ARBOR_API declarations of the public headers, so a new export without a row fails.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, PATH_MAX (test_samples.h) */
#define ARBOR_NO_DEPRECATION_WARNINGS /* the 1.0 names have their rows too */
#include <ctype.h>
#include <limits.h>
#include <dirent.h>

#include "test_samples.h" /* read_file */
#include "arbor/gltf.h"
#include "arbor/urdf.h"

#define INVALID(call) assert_int_equal((call), ARBOR_ERR_INVALID_ARGUMENT)

/* A scene with two nodes (n under root, a camera and a light on n), a journal, a clip, a player,
   skins and a document loaded from memory. */
static arbor_scene *S;
static arbor_node ROOT, N;
static arbor_journal *J;
static arbor_clip *CLIP;
static arbor_player *PLAYER;
static arbor_skins *SKINS;
static arbor_gltf *DOC;
static const arbor_node NONE = { 0 };
static arbor_real M16[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, V[4] = { 0, 0, 0, 1 };
static float F16[16];
static arbor_real OUT[24];

static int setup(void **state) {
    (void)state;
    assert_int_equal(arbor_scene_create(NULL, &S), ARBOR_OK);
    ASSERT_OK(arbor_node_create(S, &(arbor_node_desc){ .name = "root" }, &ROOT));
    ASSERT_OK(arbor_node_create(S, &(arbor_node_desc){ .name = "n", .parent = ROOT }, &N));
    ASSERT_OK(arbor_node_set_camera(S, N, &(arbor_camera){ ARBOR_CAMERA_PERSPECTIVE, .yfov = 1, .aspect = 1, .znear = 1 }));
    ASSERT_OK(arbor_node_set_light(S, N, &(arbor_light){ ARBOR_LIGHT_POINT, .intensity = 1 }));
    ASSERT_OK(arbor_journal_create(S, NULL, &J));
    static const float times[1] = { 0 }, values[3] = { 1, 2, 3 };
    arbor_channel_desc ch = { .target = 0, .path = ARBOR_ANIM_TRANSLATION, .key_count = 1, .times = times, .values = values };
    ASSERT_OK(arbor_clip_create(&(arbor_clip_desc){ .channels = &ch, .channel_count = 1 }, &CLIP));
    ASSERT_OK(arbor_player_create(CLIP, S, &N, 1, &PLAYER));
    ASSERT_OK(arbor_skins_create(S, &SKINS));
    static const char json[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"g\"}],\"scenes\":[{\"nodes\":[0]}]}";
    ASSERT_OK(arbor_gltf_load_memory(S, json, sizeof json - 1, NULL, NULL, &DOC));
    return 0;
}

static int teardown(void **state) {
    (void)state;
    arbor_gltf_destroy(DOC);
    arbor_skins_destroy(SKINS);
    arbor_player_destroy(PLAYER);
    arbor_clip_destroy(CLIP);
    arbor_scene_destroy(S);
    arbor_journal_destroy(J); /* after its scene */
    return 0;
}

static bool pred(void *user, const arbor_scene *s, arbor_node n) {
    (void)user, (void)s, (void)n;
    return true;
}
static void pf(void *user, uint32_t count, arbor_task_fn fn, void *task_user) {
    (void)user;
    for (uint32_t i = 0; i < count; i++) fn(task_user, i);
}

/* ---- one function a row ---- */

#define ROW(name) static void row_##name(void)

/* base.h */
ROW(arbor_result_string) { assert_non_null(arbor_result_string(ARBOR_OK)); }
ROW(arbor_last_error) { assert_non_null(arbor_last_error()); }
ROW(arbor_version) { assert_non_null(arbor_version()); }
ROW(arbor_real_size) { assert_int_equal(arbor_real_size(), sizeof(arbor_real)); }

/* scene.h */
ROW(arbor_scene_create) { INVALID(arbor_scene_create(NULL, NULL)); }
ROW(arbor_scene_destroy) { arbor_scene_destroy(NULL); }
ROW(arbor_scene_update) { arbor_scene_update(NULL); }
ROW(arbor_scene_node_count) { assert_int_equal(arbor_scene_node_count(NULL), 0); }
ROW(arbor_scene_max_depth) { assert_int_equal(arbor_scene_max_depth(NULL), 0); }
ROW(arbor_scene_stats_get) {
    arbor_scene_stats st;
    memset(&st, 0xff, sizeof st);
    arbor_scene_stats_get(NULL, &st);
    assert_int_equal(st.allocations, 0);
    arbor_scene_stats_get(S, NULL);
}
ROW(arbor_scene_stats_reset) { arbor_scene_stats_reset(NULL); }
ROW(arbor_node_create) {
    arbor_node n;
    INVALID(arbor_node_create(NULL, &(arbor_node_desc){ 0 }, &n));
    INVALID(arbor_node_create(S, NULL, &n));
    INVALID(arbor_node_create(S, &(arbor_node_desc){ 0 }, NULL));
}
ROW(arbor_scene_create_nodes) {
    arbor_node n;
    INVALID(arbor_scene_create_nodes(NULL, &(arbor_node_desc){ 0 }, NULL, 1, &n));
    INVALID(arbor_scene_create_nodes(S, NULL, NULL, 1, &n));
    INVALID(arbor_scene_create_nodes(S, &(arbor_node_desc){ 0 }, NULL, 1, NULL));
}
ROW(arbor_node_destroy) { INVALID(arbor_node_destroy(NULL, N)); }
ROW(arbor_node_alive) { assert_false(arbor_node_alive(NULL, N)); }
ROW(arbor_node_set_translation) { INVALID(arbor_node_set_translation(NULL, N, 1, 2, 3)); }
ROW(arbor_node_set_rotation) { INVALID(arbor_node_set_rotation(NULL, N, 0, 0, 0, 1)); }
ROW(arbor_node_set_scale) { INVALID(arbor_node_set_scale(NULL, N, 1, 1, 1)); }
ROW(arbor_node_set_trs) {
    arbor_trs t = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
    INVALID(arbor_node_set_trs(NULL, N, &t));
    INVALID(arbor_node_set_trs(S, N, NULL));
}
ROW(arbor_node_set_local_matrix) {
    INVALID(arbor_node_set_local_matrix(NULL, N, M16, false));
    INVALID(arbor_node_set_local_matrix(S, N, NULL, false));
}
ROW(arbor_node_trs) {
    arbor_trs t;
    INVALID(arbor_node_trs(NULL, N, &t));
    INVALID(arbor_node_trs(S, N, NULL));
}
ROW(arbor_node_get_trs) {
    arbor_trs t;
    INVALID(arbor_node_get_trs(NULL, N, &t));
    INVALID(arbor_node_get_trs(S, N, NULL));
}
ROW(arbor_node_local_matrix) {
    INVALID(arbor_node_local_matrix(NULL, N, OUT));
    INVALID(arbor_node_local_matrix(S, N, NULL));
}
ROW(arbor_node_is_matrix_backed) { assert_false(arbor_node_is_matrix_backed(NULL, N)); }
ROW(arbor_node_is_locked) { assert_false(arbor_node_is_locked(NULL, N)); }
ROW(arbor_node_set_name) { INVALID(arbor_node_set_name(NULL, N, "x")); }
ROW(arbor_node_user) { assert_null(arbor_node_user(NULL, N)); }
ROW(arbor_node_set_user) { INVALID(arbor_node_set_user(NULL, N, NULL)); }
ROW(arbor_scene_clear) { arbor_scene_clear(NULL); }
ROW(arbor_scene_next_node) { assert_true(arbor_node_is_none(arbor_scene_next_node(NULL, NONE))); }
ROW(arbor_node_world_matrix) {
    INVALID(arbor_node_world_matrix(NULL, N, OUT));
    INVALID(arbor_node_world_matrix(S, N, NULL));
}
ROW(arbor_scene_world_matrices) {
    INVALID(arbor_scene_world_matrices(NULL, &N, 1, OUT));
    INVALID(arbor_scene_world_matrices(S, NULL, 1, OUT));
    INVALID(arbor_scene_world_matrices(S, &N, 1, NULL));
}
ROW(arbor_node_world_version) { assert_int_equal(arbor_node_world_version(NULL, N), 0); }
ROW(arbor_node_set_parent) { INVALID(arbor_node_set_parent(NULL, N, NONE, NONE, ARBOR_KEEP_LOCAL)); }
ROW(arbor_node_parent) { assert_true(arbor_node_is_none(arbor_node_parent(NULL, N))); }
ROW(arbor_node_first_child) { assert_true(arbor_node_is_none(arbor_node_first_child(NULL, ROOT))); }
ROW(arbor_node_last_child) { assert_true(arbor_node_is_none(arbor_node_last_child(NULL, ROOT))); }
ROW(arbor_node_next_sibling) { assert_true(arbor_node_is_none(arbor_node_next_sibling(NULL, ROOT))); }
ROW(arbor_node_prev_sibling) { assert_true(arbor_node_is_none(arbor_node_prev_sibling(NULL, ROOT))); }
ROW(arbor_scene_first_root) { assert_true(arbor_node_is_none(arbor_scene_first_root(NULL))); }
ROW(arbor_scene_last_root) { assert_true(arbor_node_is_none(arbor_scene_last_root(NULL))); }
ROW(arbor_node_depth) { assert_int_equal(arbor_node_depth(NULL, N), 0); }
ROW(arbor_node_child_count) { assert_int_equal(arbor_node_child_count(NULL, ROOT), 0); }
ROW(arbor_node_is_ancestor_of) { assert_false(arbor_node_is_ancestor_of(NULL, ROOT, N)); }
ROW(arbor_node_collect_subtree) {
    arbor_node out[4];
    assert_int_equal(arbor_node_collect_subtree(NULL, ROOT, out, 4), 0);
    assert_int_equal(arbor_node_collect_subtree(S, ROOT, NULL, 4), 2); /* the size alone */
}
ROW(arbor_node_find_descendant) {
    assert_true(arbor_node_is_none(arbor_node_find_descendant(NULL, ROOT, pred, NULL)));
    assert_true(arbor_node_is_none(arbor_node_find_descendant(S, ROOT, NULL, NULL)));
}
ROW(arbor_node_find_ancestor) {
    assert_true(arbor_node_is_none(arbor_node_find_ancestor(NULL, N, pred, NULL)));
    assert_true(arbor_node_is_none(arbor_node_find_ancestor(S, N, NULL, NULL)));
}
ROW(arbor_node_name) { assert_null(arbor_node_name(NULL, N)); }
ROW(arbor_scene_find) {
    assert_true(arbor_node_is_none(arbor_scene_find(NULL, "root")));
    assert_true(arbor_node_is_none(arbor_scene_find(S, NULL)));
}

/* parallel.h */
ROW(arbor_scene_update_parallel) { arbor_scene_update_parallel(NULL, &(arbor_executor){ pf, NULL }); }
ROW(arbor_pool_create) { INVALID(arbor_pool_create(1, NULL)); }
ROW(arbor_pool_create_desc) { INVALID(arbor_pool_create_desc(NULL, NULL)); }
ROW(arbor_pool_destroy) { arbor_pool_destroy(NULL); }
/* base.h: parallel.h gives a NULL pool no meaning here, so the getter answers its "none", 0 */
ROW(arbor_pool_threads) { assert_int_equal(arbor_pool_threads(NULL), 0); }
ROW(arbor_pool_executor) {
    arbor_executor ex = arbor_pool_executor(NULL);
    assert_null(ex.parallel_for); /* no pool: serial where an executor is taken */
}
ROW(arbor_scene_set_translations) {
    INVALID(arbor_scene_set_translations(NULL, &N, V, 1));
    INVALID(arbor_scene_set_translations(S, NULL, V, 1));
    INVALID(arbor_scene_set_translations(S, &N, NULL, 1));
}
ROW(arbor_scene_set_rotations) {
    INVALID(arbor_scene_set_rotations(NULL, &N, V, 1));
    INVALID(arbor_scene_set_rotations(S, NULL, V, 1));
    INVALID(arbor_scene_set_rotations(S, &N, NULL, 1));
}
ROW(arbor_scene_set_scales) {
    INVALID(arbor_scene_set_scales(NULL, &N, V, 1));
    INVALID(arbor_scene_set_scales(S, NULL, V, 1));
    INVALID(arbor_scene_set_scales(S, &N, NULL, 1));
}
ROW(arbor_scene_set_translations_parallel) {
    INVALID(arbor_scene_set_translations_parallel(NULL, &N, V, 1, NULL));
    INVALID(arbor_scene_set_translations_parallel(S, NULL, V, 1, NULL));
    INVALID(arbor_scene_set_translations_parallel(S, &N, NULL, 1, NULL));
}
ROW(arbor_scene_set_rotations_parallel) {
    INVALID(arbor_scene_set_rotations_parallel(NULL, &N, V, 1, NULL));
    INVALID(arbor_scene_set_rotations_parallel(S, NULL, V, 1, NULL));
    INVALID(arbor_scene_set_rotations_parallel(S, &N, NULL, 1, NULL));
}
ROW(arbor_scene_set_scales_parallel) {
    INVALID(arbor_scene_set_scales_parallel(NULL, &N, V, 1, NULL));
    INVALID(arbor_scene_set_scales_parallel(S, NULL, V, 1, NULL));
    INVALID(arbor_scene_set_scales_parallel(S, &N, NULL, 1, NULL));
}

/* math.h: a NULL output is a no-op (bool functions: false); a NULL input leaves out untouched */
ROW(arbor_mat4_identity) { arbor_mat4_identity(NULL); }
ROW(arbor_mat4_mul) {
    arbor_mat4_mul(NULL, M16, M16);
    arbor_mat4_mul(OUT, NULL, M16);
    arbor_mat4_mul(OUT, M16, NULL);
}
ROW(arbor_mat4_compose) { arbor_mat4_compose(NULL, V, V, V); }
ROW(arbor_mat4_decompose) { assert_false(arbor_mat4_decompose(NULL, OUT, OUT, OUT)); }
ROW(arbor_mat4_invert_affine) {
    assert_false(arbor_mat4_invert_affine(NULL, M16));
    assert_false(arbor_mat4_invert_affine(OUT, NULL));
}
ROW(arbor_mat4_transform_point) {
    arbor_mat4_transform_point(NULL, M16, V);
    arbor_mat4_transform_point(OUT, NULL, V);
    arbor_mat4_transform_point(OUT, M16, NULL);
}
ROW(arbor_mat4_transform_dir) {
    arbor_mat4_transform_dir(NULL, M16, V);
    arbor_mat4_transform_dir(OUT, NULL, V);
    arbor_mat4_transform_dir(OUT, M16, NULL);
}
ROW(arbor_mat4_determinant3) { assert_true(arbor_mat4_determinant3(NULL) == 0); }
ROW(arbor_quat_from_axis_angle) {
    arbor_quat_from_axis_angle(NULL, V, 1);
    arbor_quat_from_axis_angle(OUT, NULL, 1);
}
ROW(arbor_quat_normalize) {
    assert_false(arbor_quat_normalize(NULL, V));
    assert_false(arbor_quat_normalize(OUT, NULL));
}
ROW(arbor_quat_slerp) {
    arbor_quat_slerp(NULL, V, V, 0.5f);
    arbor_quat_slerp(OUT, NULL, V, 0.5f);
    arbor_quat_slerp(OUT, V, NULL, 0.5f);
}
ROW(arbor_quat_mul) {
    arbor_quat_mul(NULL, V, V);
    arbor_quat_mul(OUT, NULL, V);
    arbor_quat_mul(OUT, V, NULL);
}
ROW(arbor_quat_to_mat4) {
    arbor_quat_to_mat4(NULL, V);
    arbor_quat_to_mat4(OUT, NULL);
}
ROW(arbor_quat_from_mat4) {
    arbor_quat_from_mat4(NULL, M16);
    arbor_quat_from_mat4(OUT, NULL);
}

/* view.h */
ROW(arbor_node_relative_matrix) {
    INVALID(arbor_node_relative_matrix(NULL, N, ROOT, OUT));
    INVALID(arbor_node_relative_matrix(S, N, ROOT, NULL));
}
ROW(arbor_node_world_trs) {
    arbor_trs t;
    bool exact;
    INVALID(arbor_node_world_trs(NULL, N, &t, &exact));
    INVALID(arbor_node_world_trs(S, N, NULL, &exact));
}
ROW(arbor_node_world_is_mirrored) { assert_false(arbor_node_world_is_mirrored(NULL, N)); }
ROW(arbor_node_normal_matrix) {
    INVALID(arbor_node_normal_matrix(NULL, N, OUT));
    INVALID(arbor_node_normal_matrix(S, N, NULL));
}
ROW(arbor_node_set_camera) { INVALID(arbor_node_set_camera(NULL, N, NULL)); }
ROW(arbor_node_camera) {
    arbor_camera c;
    INVALID(arbor_node_camera(NULL, N, &c));
    INVALID(arbor_node_camera(S, N, NULL));
}
ROW(arbor_camera_view_matrix) {
    INVALID(arbor_camera_view_matrix(NULL, N, OUT));
    INVALID(arbor_camera_view_matrix(S, N, NULL));
}
ROW(arbor_camera_projection_matrix) {
    INVALID(arbor_camera_projection_matrix(NULL, N, 1, OUT));
    INVALID(arbor_camera_projection_matrix(S, N, 1, NULL));
}
ROW(arbor_camera_view_projection) {
    INVALID(arbor_camera_view_projection(NULL, N, 1, OUT));
    INVALID(arbor_camera_view_projection(S, N, 1, NULL));
}
ROW(arbor_camera_orbit) {
    INVALID(arbor_camera_orbit(NULL, N, 0, 1, 1, V));
    INVALID(arbor_camera_orbit(S, N, 0, 1, 1, NULL));
}
ROW(arbor_camera_look_at) {
    const arbor_real eye[3] = { 0, 0, 1 }, at[3] = { 0, 0, 0 }, up[3] = { 0, 1, 0 };
    INVALID(arbor_camera_look_at(NULL, N, eye, at, up));
    INVALID(arbor_camera_look_at(S, N, NULL, at, up));
    INVALID(arbor_camera_look_at(S, N, eye, NULL, up));
    INVALID(arbor_camera_look_at(S, N, eye, at, NULL));
}
ROW(arbor_camera_fly) {
    INVALID(arbor_camera_fly(NULL, N, V, 0, 0));
    INVALID(arbor_camera_fly(S, N, NULL, 0, 0));
}
ROW(arbor_node_set_light) { INVALID(arbor_node_set_light(NULL, N, NULL)); }
ROW(arbor_node_light) {
    arbor_light l;
    INVALID(arbor_node_light(NULL, N, &l));
    INVALID(arbor_node_light(S, N, NULL));
}
ROW(arbor_light_world_position) {
    INVALID(arbor_light_world_position(NULL, N, OUT));
    INVALID(arbor_light_world_position(S, N, NULL));
}
ROW(arbor_light_world_direction) {
    INVALID(arbor_light_world_direction(NULL, N, OUT));
    INVALID(arbor_light_world_direction(S, N, NULL));
}

/* bounds.h */
ROW(arbor_node_set_mesh) { INVALID(arbor_node_set_mesh(NULL, N, 1)); }
ROW(arbor_node_mesh) { assert_int_equal(arbor_node_mesh(NULL, N), -1); }
ROW(arbor_node_set_bounds) {
    INVALID(arbor_node_set_bounds(NULL, N, V, V));
    INVALID(arbor_node_set_bounds(S, N, NULL, V));
    INVALID(arbor_node_set_bounds(S, N, V, NULL));
}
ROW(arbor_node_bounds) {
    INVALID(arbor_node_bounds(NULL, N, OUT, OUT));
    INVALID(arbor_node_bounds(S, N, NULL, OUT));
    INVALID(arbor_node_bounds(S, N, OUT, NULL));
}
ROW(arbor_node_local_bounds) {
    assert_false(arbor_node_local_bounds(NULL, N, OUT, OUT));
    assert_false(arbor_node_local_bounds(S, N, NULL, OUT));
    assert_false(arbor_node_local_bounds(S, N, OUT, NULL));
}
ROW(arbor_node_world_bounds) {
    INVALID(arbor_node_world_bounds(NULL, N, OUT, OUT));
    INVALID(arbor_node_world_bounds(S, N, NULL, OUT));
    INVALID(arbor_node_world_bounds(S, N, OUT, NULL));
}
ROW(arbor_node_subtree_bounds) {
    INVALID(arbor_node_subtree_bounds(NULL, N, OUT, OUT));
    INVALID(arbor_node_subtree_bounds(S, N, NULL, OUT));
    INVALID(arbor_node_subtree_bounds(S, N, OUT, NULL));
}
ROW(arbor_node_subtree_sphere) {
    arbor_real r;
    INVALID(arbor_node_subtree_sphere(NULL, N, OUT, &r));
    INVALID(arbor_node_subtree_sphere(S, N, NULL, &r));
    INVALID(arbor_node_subtree_sphere(S, N, OUT, NULL));
}
ROW(arbor_scene_cull) {
    arbor_node out[4];
    uint32_t n;
    INVALID(arbor_scene_cull(NULL, OUT, 1, out, 4, &n, NULL));
    INVALID(arbor_scene_cull(S, NULL, 1, out, 4, &n, NULL));
    INVALID(arbor_scene_cull(S, OUT, 1, NULL, 4, &n, NULL));
    INVALID(arbor_scene_cull(S, OUT, 1, out, 4, NULL, NULL));
}
ROW(arbor_frustum_planes) {
    arbor_frustum_planes(NULL, OUT);
    arbor_frustum_planes(M16, NULL);
}
ROW(arbor_scene_gather_instances) {
    arbor_instance_batch b[2];
    uint32_t count;
    INVALID(arbor_scene_gather_instances(NULL, &N, 1, ARBOR_LAYOUT_MAT4, F16, b, 2, &count));
    INVALID(arbor_scene_gather_instances(S, NULL, 1, ARBOR_LAYOUT_MAT4, F16, b, 2, &count));
    INVALID(arbor_scene_gather_instances(S, &N, 1, ARBOR_LAYOUT_MAT4, F16, NULL, 2, &count));
    INVALID(arbor_scene_gather_instances(S, &N, 1, ARBOR_LAYOUT_MAT4, F16, b, 2, NULL));
}
ROW(arbor_scene_instance_batches) {
    arbor_instance_batch b[2];
    uint32_t count, mc;
    INVALID(arbor_scene_instance_batches(NULL, &N, 1, ARBOR_LAYOUT_MAT4, F16, 1, &mc, b, 2, &count));
    INVALID(arbor_scene_instance_batches(S, NULL, 1, ARBOR_LAYOUT_MAT4, F16, 1, &mc, b, 2, &count));
    INVALID(arbor_scene_instance_batches(S, &N, 1, ARBOR_LAYOUT_MAT4, NULL, 1, &mc, b, 2, &count));
    INVALID(arbor_scene_instance_batches(S, &N, 1, ARBOR_LAYOUT_MAT4, F16, 1, NULL, b, 2, &count));
    INVALID(arbor_scene_instance_batches(S, &N, 1, ARBOR_LAYOUT_MAT4, F16, 1, &mc, NULL, 2, &count));
    INVALID(arbor_scene_instance_batches(S, &N, 1, ARBOR_LAYOUT_MAT4, F16, 1, &mc, b, 2, NULL));
}

/* edit.h */
ROW(arbor_journal_create) {
    arbor_journal *j;
    INVALID(arbor_journal_create(NULL, NULL, &j));
    INVALID(arbor_journal_create(S, NULL, NULL));
}
ROW(arbor_journal_destroy) { arbor_journal_destroy(NULL); }
ROW(arbor_scene_journal) { assert_null(arbor_scene_journal(NULL)); }
ROW(arbor_journal_scene) { assert_null(arbor_journal_scene(NULL)); }
ROW(arbor_journal_create_node) {
    arbor_node n;
    INVALID(arbor_journal_create_node(NULL, &(arbor_node_desc){ 0 }, &n));
    INVALID(arbor_journal_create_node(J, NULL, &n));
    INVALID(arbor_journal_create_node(J, &(arbor_node_desc){ 0 }, NULL));
}
ROW(arbor_journal_destroy_node) { INVALID(arbor_journal_destroy_node(NULL, N)); }
ROW(arbor_journal_clone) {
    arbor_node n;
    INVALID(arbor_journal_clone(NULL, S, N, NONE, &n));
    INVALID(arbor_journal_clone(J, NULL, N, NONE, &n));
    INVALID(arbor_journal_clone(J, S, N, NONE, NULL));
}
ROW(arbor_journal_set_parent) { INVALID(arbor_journal_set_parent(NULL, N, NONE, NONE, ARBOR_KEEP_LOCAL)); }
ROW(arbor_journal_set_translation) { INVALID(arbor_journal_set_translation(NULL, N, 1, 2, 3)); }
ROW(arbor_journal_set_rotation) { INVALID(arbor_journal_set_rotation(NULL, N, 0, 0, 0, 1)); }
ROW(arbor_journal_set_scale) { INVALID(arbor_journal_set_scale(NULL, N, 1, 1, 1)); }
ROW(arbor_journal_set_trs) {
    arbor_trs t = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
    INVALID(arbor_journal_set_trs(NULL, N, &t));
    INVALID(arbor_journal_set_trs(J, N, NULL));
}
ROW(arbor_journal_set_local_matrix) {
    INVALID(arbor_journal_set_local_matrix(NULL, N, M16, false));
    INVALID(arbor_journal_set_local_matrix(J, N, NULL, false));
}
ROW(arbor_journal_set_name) { INVALID(arbor_journal_set_name(NULL, N, "x")); }
ROW(arbor_journal_set_user) { INVALID(arbor_journal_set_user(NULL, N, NULL)); }
ROW(arbor_journal_set_mesh) { INVALID(arbor_journal_set_mesh(NULL, N, 1)); }
ROW(arbor_journal_set_bounds) {
    INVALID(arbor_journal_set_bounds(NULL, N, V, V));
    INVALID(arbor_journal_set_bounds(J, N, NULL, V));
    INVALID(arbor_journal_set_bounds(J, N, V, NULL));
}
ROW(arbor_journal_set_camera) { INVALID(arbor_journal_set_camera(NULL, N, NULL)); }
ROW(arbor_journal_set_light) { INVALID(arbor_journal_set_light(NULL, N, NULL)); }
ROW(arbor_journal_begin) { INVALID(arbor_journal_begin(NULL)); }
ROW(arbor_journal_commit) { INVALID(arbor_journal_commit(NULL)); }
ROW(arbor_journal_abort) { INVALID(arbor_journal_abort(NULL)); }
ROW(arbor_journal_undo) { INVALID(arbor_journal_undo(NULL)); }
ROW(arbor_journal_redo) { INVALID(arbor_journal_redo(NULL)); }
ROW(arbor_journal_clear) { arbor_journal_clear(NULL); }
ROW(arbor_journal_stats_get) {
    arbor_journal_stats st;
    memset(&st, 0xff, sizeof st);
    arbor_journal_stats_get(NULL, &st);
    assert_int_equal(st.records, 0);
    arbor_journal_stats_get(J, NULL);
}
ROW(arbor_node_clone) {
    arbor_node n;
    INVALID(arbor_node_clone(NULL, N, NONE, &n));
    INVALID(arbor_node_clone(S, N, NONE, NULL));
}
ROW(arbor_node_clone_from) {
    arbor_node n;
    INVALID(arbor_node_clone_from(NULL, S, N, NONE, &n));
    INVALID(arbor_node_clone_from(S, NULL, N, NONE, &n));
    INVALID(arbor_node_clone_from(S, S, N, NONE, NULL));
}
ROW(arbor_node_set_foreign_parent) { INVALID(arbor_node_set_foreign_parent(NULL, N, NULL, ARBOR_KEEP_LOCAL)); }
ROW(arbor_node_has_foreign_parent) { assert_false(arbor_node_has_foreign_parent(NULL, N)); }
ROW(arbor_node_attach_to) {
    INVALID(arbor_node_attach_to(NULL, N, S, ROOT, ARBOR_KEEP_LOCAL));
    INVALID(arbor_node_attach_to(S, N, NULL, ROOT, ARBOR_KEEP_LOCAL));
}
ROW(arbor_scene_track_changes) { INVALID(arbor_scene_track_changes(NULL, true)); }
ROW(arbor_scene_changed) {
    arbor_node out[4];
    assert_int_equal(arbor_scene_changed(NULL, out, 4), 0);
    ASSERT_OK(arbor_scene_track_changes(S, true));
    arbor_scene_update(S);
    ASSERT_OK(arbor_node_set_translation(S, N, 1, 0, 0));
    arbor_scene_update(S);
    assert_int_equal(arbor_scene_changed(S, NULL, 4), 1); /* the count, nothing written */
    ASSERT_OK(arbor_scene_track_changes(S, false));
}

/* anim.h */
ROW(arbor_clip_create) {
    arbor_clip *c;
    INVALID(arbor_clip_create(NULL, &c));
    INVALID(arbor_clip_create(&(arbor_clip_desc){ 0 }, NULL));
}
ROW(arbor_clip_destroy) { arbor_clip_destroy(NULL); }
ROW(arbor_clip_name) { assert_null(arbor_clip_name(NULL)); }
ROW(arbor_clip_duration) { assert_true(arbor_clip_duration(NULL) == 0); }
ROW(arbor_clip_rig_size) { assert_int_equal(arbor_clip_rig_size(NULL), 0); }
ROW(arbor_clip_channel_count) { assert_int_equal(arbor_clip_channel_count(NULL), 0); }
ROW(arbor_clip_channel) {
    arbor_channel_desc d;
    INVALID(arbor_clip_channel(NULL, 0, &d));
    INVALID(arbor_clip_channel(CLIP, 0, NULL));
}
ROW(arbor_clip_target_name) { assert_null(arbor_clip_target_name(NULL, 0)); }
ROW(arbor_clip_rig_by_names) {
    arbor_node rig[1];
    uint32_t count;
    INVALID(arbor_clip_rig_by_names(NULL, S, NONE, rig, 1, &count, NULL));
    INVALID(arbor_clip_rig_by_names(CLIP, NULL, NONE, rig, 1, &count, NULL));
    INVALID(arbor_clip_rig_by_names(CLIP, S, NONE, NULL, 1, &count, NULL));
    INVALID(arbor_clip_rig_by_names(CLIP, S, NONE, rig, 1, NULL, NULL));
    ASSERT_OK(arbor_clip_rig_by_names(CLIP, S, NONE, NULL, 0, &count, NULL)); /* documented: the size alone */
    assert_int_equal(count, 1);
}
ROW(arbor_clip_bind_names) {
    arbor_node rig[1];
    assert_int_equal(arbor_clip_bind_names(NULL, S, NONE, rig), 0);
    assert_int_equal(arbor_clip_bind_names(CLIP, NULL, NONE, rig), 0);
    assert_int_equal(arbor_clip_bind_names(CLIP, S, NONE, NULL), 0);
}
ROW(arbor_player_create) {
    arbor_player *p;
    INVALID(arbor_player_create(NULL, S, &N, 1, &p));
    INVALID(arbor_player_create(CLIP, NULL, &N, 1, &p));
    INVALID(arbor_player_create(CLIP, S, NULL, 1, &p));
    INVALID(arbor_player_create(CLIP, S, &N, 1, NULL));
}
ROW(arbor_player_destroy) { arbor_player_destroy(NULL); }
ROW(arbor_player_clip) { assert_null(arbor_player_clip(NULL)); }
ROW(arbor_player_apply) { INVALID(arbor_player_apply(NULL, 0, ARBOR_WRAP_CLAMP)); }
ROW(arbor_players_apply_pose) {
    double t = 0;
    INVALID(arbor_players_apply_pose(&PLAYER, &t, 1, ARBOR_WRAP_CLAMP, NULL, NULL));
    INVALID(arbor_players_apply_pose(NULL, &t, 1, ARBOR_WRAP_CLAMP, NULL, NULL));
}
ROW(arbor_pose_create) {
    arbor_pose *p = NULL;
    INVALID(arbor_pose_create(NULL, NULL, 0, &p));
    INVALID(arbor_pose_create(S, NULL, 0, NULL));
    assert_null(p);
}
ROW(arbor_pose_destroy) { arbor_pose_destroy(NULL); }
ROW(arbor_pose_count) { assert_int_equal(arbor_pose_count(NULL), 0); }
ROW(arbor_pose_nodes) { assert_null(arbor_pose_nodes(NULL)); }
ROW(arbor_pose_trs) { assert_null(arbor_pose_trs(NULL)); }
ROW(arbor_pose_read) { INVALID(arbor_pose_read(NULL)); }
ROW(arbor_pose_apply) { INVALID(arbor_pose_apply(NULL, NULL)); }
ROW(arbor_players_apply) {
    double t = 0;
    INVALID(arbor_players_apply(NULL, &t, 1, ARBOR_WRAP_CLAMP, NULL));
    INVALID(arbor_players_apply(&PLAYER, NULL, 1, ARBOR_WRAP_CLAMP, NULL));
    arbor_player *none = NULL;
    INVALID(arbor_players_apply(&none, &t, 1, ARBOR_WRAP_CLAMP, NULL));
}
ROW(arbor_player_sample) {
    arbor_trs pose[1];
    INVALID(arbor_player_sample(NULL, 0, ARBOR_WRAP_CLAMP, pose, 1));
    INVALID(arbor_player_sample(PLAYER, 0, ARBOR_WRAP_CLAMP, NULL, 1));
}
ROW(arbor_player_blend) {
    INVALID(arbor_player_blend(NULL, 0, PLAYER, 0, 0.5f, ARBOR_WRAP_CLAMP));
    INVALID(arbor_player_blend(PLAYER, 0, NULL, 0, 0.5f, ARBOR_WRAP_CLAMP));
}
ROW(arbor_player_add) { INVALID(arbor_player_add(NULL, 0, 1, ARBOR_WRAP_CLAMP)); }
ROW(arbor_player_weights) {
    uint32_t count = 7;
    assert_null(arbor_player_weights(NULL, 0, &count));
    assert_int_equal(count, 0);
    assert_null(arbor_player_weights(PLAYER, 0, NULL));
}
ROW(arbor_skins_create) {
    arbor_skins *k;
    INVALID(arbor_skins_create(NULL, &k));
    INVALID(arbor_skins_create(S, NULL));
}
ROW(arbor_skins_destroy) { arbor_skins_destroy(NULL); }
ROW(arbor_skins_add) {
    arbor_skin_desc d = { .mesh = N, .joints = &N, .joint_count = 1 };
    INVALID(arbor_skins_add(NULL, &d, NULL));
    INVALID(arbor_skins_add(SKINS, NULL, NULL));
    d.joints = NULL;
    INVALID(arbor_skins_add(SKINS, &d, NULL));
}
ROW(arbor_skins_count) { assert_int_equal(arbor_skins_count(NULL), 0); }
ROW(arbor_skins_joint_total) { assert_int_equal(arbor_skins_joint_total(NULL), 0); }
ROW(arbor_skins_first_joint) { assert_int_equal(arbor_skins_first_joint(NULL, 0), 0); }
ROW(arbor_skins_skin) {
    uint32_t count = 7;
    arbor_node mesh = N;
    INVALID(arbor_skins_skin(NULL, 0, &mesh, NULL, NULL, 0, &count));
    assert_int_equal(count, 0);
    assert_true(arbor_node_is_none(mesh));
    INVALID(arbor_skins_skin(SKINS, 0, NULL, NULL, NULL, 0, NULL));
}
ROW(arbor_skins_compute) {
    INVALID(arbor_skins_compute(NULL, ARBOR_LAYOUT_MAT4, F16, 1, NULL));
    arbor_skin_desc d = { .mesh = N, .joints = &N, .joint_count = 1 };
    arbor_skins *k;
    ASSERT_OK(arbor_skins_create(S, &k));
    ASSERT_OK(arbor_skins_add(k, &d, NULL));
    INVALID(arbor_skins_compute(k, ARBOR_LAYOUT_MAT4, NULL, 1, NULL));
    arbor_skins_destroy(k);
}

/* gltf.h */
ROW(arbor_gltf_load) {
    arbor_gltf *doc;
    INVALID(arbor_gltf_load(NULL, "x.gltf", NULL, &doc));
    INVALID(arbor_gltf_load(S, NULL, NULL, &doc));
    INVALID(arbor_gltf_load(S, "x.gltf", NULL, NULL));
}
ROW(arbor_gltf_load_memory) {
    arbor_gltf *doc;
    INVALID(arbor_gltf_load_memory(NULL, "{}", 2, NULL, NULL, &doc));
    INVALID(arbor_gltf_load_memory(S, NULL, 2, NULL, NULL, &doc));
    INVALID(arbor_gltf_load_memory(S, "{}", 2, NULL, NULL, NULL));
}
ROW(arbor_gltf_save) {
    INVALID(arbor_gltf_save(NULL, NULL, "x.glb", NULL));
    INVALID(arbor_gltf_save(S, NULL, NULL, NULL));
    INVALID(arbor_gltf_save(NULL, NULL, "x.glb", &(arbor_gltf_save_options){ .external_images = true }));
}
ROW(arbor_gltf_validate) {
    uint32_t count = 1;
    INVALID(arbor_gltf_validate(NULL, NULL, NULL, 0, &count));
    assert_int_equal(count, 0);
    INVALID(arbor_gltf_validate("x.gltf", NULL, NULL, 4, NULL));
}
ROW(arbor_gltf_validate_messages) {
    uint32_t count = 1;
    INVALID(arbor_gltf_validate_messages(NULL, NULL, NULL, 0, &count));
    assert_int_equal(count, 0);
    INVALID(arbor_gltf_validate_messages("x.gltf", NULL, NULL, 4, NULL));
}
ROW(arbor_gltf_validate_memory) {
    uint32_t count = 1;
    INVALID(arbor_gltf_validate_memory(NULL, 4, NULL, NULL, NULL, 0, &count));
    assert_int_equal(count, 0);
    INVALID(arbor_gltf_validate_memory("{}", 2, NULL, NULL, NULL, 4, NULL));
}
ROW(arbor_gltf_destroy) { arbor_gltf_destroy(NULL); }
ROW(arbor_gltf_node_count) { assert_int_equal(arbor_gltf_node_count(NULL), 0); }
ROW(arbor_gltf_node) { assert_true(arbor_node_is_none(arbor_gltf_node(NULL, 0))); }
ROW(arbor_gltf_index) { assert_int_equal(arbor_gltf_index(NULL, N), -1); }
ROW(arbor_gltf_scene_count) { assert_int_equal(arbor_gltf_scene_count(NULL), 0); }
ROW(arbor_gltf_loaded_scene) { assert_int_equal(arbor_gltf_loaded_scene(NULL), -1); }
ROW(arbor_gltf_scene_name) { assert_null(arbor_gltf_scene_name(NULL, 0)); }
ROW(arbor_gltf_scene_roots) {
    arbor_node out[2];
    uint32_t n;
    INVALID(arbor_gltf_scene_roots(NULL, 0, out, 2, &n));
    INVALID(arbor_gltf_scene_roots(DOC, 0, NULL, 2, &n));
    INVALID(arbor_gltf_scene_roots(DOC, 0, out, 2, NULL));
}
ROW(arbor_gltf_counts_get) {
    arbor_gltf_counts c;
    memset(&c, 0xff, sizeof c);
    arbor_gltf_counts_get(NULL, &c);
    assert_int_equal(c.nodes, 0);
    arbor_gltf_counts_get(DOC, NULL);
}
ROW(arbor_gltf_node_skin) { assert_int_equal(arbor_gltf_node_skin(NULL, N), -1); }
ROW(arbor_gltf_skin) {
    arbor_node j[2], sk;
    float ibm[32];
    uint32_t n;
    INVALID(arbor_gltf_skin(NULL, 0, j, ibm, 2, &sk, &n));
    INVALID(arbor_gltf_skin(DOC, 0, j, ibm, 2, &sk, NULL));
}
ROW(arbor_gltf_animation_name) { assert_null(arbor_gltf_animation_name(NULL, 0)); }
ROW(arbor_gltf_animation_find) {
    assert_int_equal(arbor_gltf_animation_find(NULL, "x"), -1);
    assert_int_equal(arbor_gltf_animation_find(DOC, NULL), -1);
}
ROW(arbor_gltf_clip) {
    arbor_clip *c;
    INVALID(arbor_gltf_clip(NULL, 0, NULL, &c));
    INVALID(arbor_gltf_clip(DOC, 0, NULL, NULL));
}
ROW(arbor_gltf_add_skins) {
    INVALID(arbor_gltf_add_skins(NULL, SKINS, NULL));
    INVALID(arbor_gltf_add_skins(DOC, NULL, NULL));
}

/* urdf.h */
ROW(arbor_urdf_load) {
    arbor_urdf *r;
    INVALID(arbor_urdf_load(NULL, "x.urdf", NULL, &r));
    INVALID(arbor_urdf_load(S, NULL, NULL, &r));
    INVALID(arbor_urdf_load(S, "x.urdf", NULL, NULL));
}
ROW(arbor_urdf_load_memory) {
    arbor_urdf *r;
    INVALID(arbor_urdf_load_memory(NULL, "<robot/>", 8, NULL, NULL, &r));
    INVALID(arbor_urdf_load_memory(S, NULL, 8, NULL, NULL, &r));
    INVALID(arbor_urdf_load_memory(S, "<robot/>", 8, NULL, NULL, NULL));
}
ROW(arbor_urdf_destroy) { arbor_urdf_destroy(NULL); }
ROW(arbor_urdf_name) { assert_string_equal(arbor_urdf_name(NULL), ""); }
ROW(arbor_urdf_link_count) { assert_int_equal(arbor_urdf_link_count(NULL), 0); }
ROW(arbor_urdf_link_node) { assert_true(arbor_node_is_none(arbor_urdf_link_node(NULL, 0))); }
ROW(arbor_urdf_link_name) { assert_null(arbor_urdf_link_name(NULL, 0)); }
ROW(arbor_urdf_link_parent) { assert_int_equal(arbor_urdf_link_parent(NULL, 0), -1); }
ROW(arbor_urdf_find_link) { assert_true(arbor_node_is_none(arbor_urdf_find_link(NULL, "x"))); }
ROW(arbor_urdf_joint_count) { assert_int_equal(arbor_urdf_joint_count(NULL), 0); }
ROW(arbor_urdf_joint_info) {
    arbor_urdf_joint j;
    INVALID(arbor_urdf_joint_info(NULL, 0, &j));
}
ROW(arbor_urdf_find_joint) { assert_int_equal(arbor_urdf_find_joint(NULL, "x"), -1); }
ROW(arbor_urdf_dof) { assert_int_equal(arbor_urdf_dof(NULL), 0); }
ROW(arbor_urdf_geometry_count) { assert_int_equal(arbor_urdf_geometry_count(NULL), 0); }
ROW(arbor_urdf_geometry_info) {
    arbor_urdf_geometry g;
    INVALID(arbor_urdf_geometry_info(NULL, 0, &g));
}
ROW(arbor_urdf_positions) {
    double q[1];
    INVALID(arbor_urdf_positions(NULL, q, 1));
}
ROW(arbor_urdf_set_positions) {
    double q[1] = { 0 };
    INVALID(arbor_urdf_set_positions(NULL, q, 1));
}
ROW(arbor_urdf_set_position) { INVALID(arbor_urdf_set_position(NULL, "x", 0)); }
ROW(arbor_urdf_record_positions) {
    double q[1] = { 0 };
    INVALID(arbor_urdf_record_positions(NULL, 0, q, 1));
}
ROW(arbor_urdf_forward_kinematics) {
    double q[1] = { 0 };
    INVALID(arbor_urdf_forward_kinematics(NULL, q, 1, OUT));
}
ROW(arbor_urdf_forward_kinematics_parallel) {
    double q[1] = { 0 };
    INVALID(arbor_urdf_forward_kinematics_parallel(NULL, q, 1, OUT, NULL));
}

/* instances.h, visibility, levels of detail, and the rest of 1.0 */
ROW(arbor_last_error_info) { (void)arbor_last_error_info(); }
ROW(arbor_simd_path) { assert_non_null(arbor_simd_path()); }
ROW(arbor_journal_set_visible) { INVALID(arbor_journal_set_visible(NULL, N, false)); }
ROW(arbor_journal_set_instances) {
    arbor_trs t = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
    INVALID(arbor_journal_set_instances(NULL, N, &t, 1));
    INVALID(arbor_journal_set_instances(J, N, NULL, 1));
}
ROW(arbor_journal_set_instance) {
    arbor_trs t = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
    INVALID(arbor_journal_set_instance(NULL, N, 0, &t));
    INVALID(arbor_journal_set_instance(J, N, 0, NULL));
}
ROW(arbor_gltf_lod_count) { assert_int_equal(arbor_gltf_lod_count(NULL), 0); }
ROW(arbor_gltf_lod_group) {
    arbor_node levels[2];
    arbor_real coverage[2];
    bool has;
    assert_int_equal(arbor_gltf_lod_group(NULL, 0, levels, coverage, 2, &has), 0);
}
ROW(arbor_gltf_select_lods) {
    assert_int_equal(arbor_gltf_select_lods(NULL, M16), 0);
    assert_int_equal(arbor_gltf_select_lods(DOC, NULL), 0);
}
ROW(arbor_gltf_apply_visibility) { assert_int_equal(arbor_gltf_apply_visibility(NULL, 0, 0, false), 0); }
ROW(arbor_node_set_instances) {
    arbor_trs t = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
    INVALID(arbor_node_set_instances(NULL, N, &t, 1));
    INVALID(arbor_node_set_instances(S, N, NULL, 1));
}
ROW(arbor_node_instance_count) { assert_int_equal(arbor_node_instance_count(NULL, N), 0); }
ROW(arbor_node_instance) {
    arbor_trs t;
    INVALID(arbor_node_instance(NULL, N, 0, &t));
    INVALID(arbor_node_instance(S, N, 0, NULL));
}
ROW(arbor_node_get_instance) {
    arbor_trs t;
    INVALID(arbor_node_get_instance(NULL, N, 0, &t));
    INVALID(arbor_node_get_instance(S, N, 0, NULL));
}
ROW(arbor_node_set_instance) {
    arbor_trs t = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
    INVALID(arbor_node_set_instance(NULL, N, 0, &t));
    INVALID(arbor_node_set_instance(S, N, 0, NULL));
}
ROW(arbor_node_instance_world_matrix) {
    INVALID(arbor_node_instance_world_matrix(NULL, N, 0, OUT));
    INVALID(arbor_node_instance_world_matrix(S, N, 0, NULL));
}
ROW(arbor_node_instance_world_matrices) {
    uint32_t n;
    INVALID(arbor_node_instance_world_matrices(NULL, N, 0, OUT, 1, &n));
    INVALID(arbor_node_instance_world_matrices(S, N, 0, NULL, 1, &n));
    INVALID(arbor_node_instance_world_matrices(S, N, 0, OUT, 1, NULL));
}
ROW(arbor_node_cull_instances) {
    uint32_t out[2], n;
    INVALID(arbor_node_cull_instances(NULL, N, OUT, 1, out, 2, &n, NULL));
    INVALID(arbor_node_cull_instances(S, N, NULL, 1, out, 2, &n, NULL));
    INVALID(arbor_node_cull_instances(S, N, OUT, 1, NULL, 2, &n, NULL));
    INVALID(arbor_node_cull_instances(S, N, OUT, 1, out, 2, NULL, NULL));
}
ROW(arbor_scene_instanced_count) {
    uint64_t k = 7;
    assert_int_equal(arbor_scene_instanced_count(NULL, &k), 0);
    assert_int_equal(arbor_scene_instanced_count(S, NULL), 0);
}
ROW(arbor_node_set_visible) { INVALID(arbor_node_set_visible(NULL, N, false)); }
ROW(arbor_node_visible) { assert_false(arbor_node_visible(NULL, N)); }
ROW(arbor_node_effectively_visible) { assert_false(arbor_node_effectively_visible(NULL, N)); }
ROW(arbor_scene_hidden_count) { assert_int_equal(arbor_scene_hidden_count(NULL), 0); }
ROW(arbor_node_screen_coverage) {
    assert_true(arbor_node_screen_coverage(NULL, N, M16) == -1); /* its "none" */
    assert_true(arbor_node_screen_coverage(S, N, NULL) == -1);
}
ROW(arbor_lod_pick) {
    arbor_real coverage[1] = { 0.5f };
    assert_int_equal(arbor_lod_pick(NULL, &N, coverage, 1, M16), -1);
    assert_int_equal(arbor_lod_pick(S, NULL, coverage, 1, M16), -1);
    assert_int_equal(arbor_lod_pick(S, &N, NULL, 1, M16), 0); /* documented: no coverage, level 0 */
    int32_t pick = arbor_lod_pick(S, &N, coverage, 1, NULL); /* no view: n has no bounds, a level or none */
    assert_true(pick == -1 || pick == 0);
}

/* time.h (and scene.h's 1.1 entries) */
ROW(arbor_scene_create_1_1) { INVALID(arbor_scene_create_1_1(NULL, NULL)); }
ROW(arbor_scene_stats_get_1_1) {
    arbor_scene_stats st;
    memset(&st, 0xff, sizeof st);
    arbor_scene_stats_get_1_1(NULL, &st);
    assert_int_equal(st.history_bytes, 0);
    arbor_scene_stats_get_1_1(S, NULL);
}
ROW(arbor_node_record_trs) {
    arbor_trs trs = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
    INVALID(arbor_node_record_trs(NULL, N, 0, &trs));
    INVALID(arbor_node_record_trs(S, N, 0, NULL));
    INVALID(arbor_node_record_trs(S, NONE, 0, &trs));
}
ROW(arbor_pose_record) { INVALID(arbor_pose_record(NULL, 0)); }
ROW(arbor_scene_lookup) {
    INVALID(arbor_scene_lookup(NULL, ROOT, N, 0, OUT));
    INVALID(arbor_scene_lookup(S, ROOT, N, 0, NULL));
    INVALID(arbor_scene_lookup(S, ROOT, NONE, 0, OUT));
}
ROW(arbor_scene_lookup_between) {
    INVALID(arbor_scene_lookup_between(NULL, ROOT, 0, N, 0, ROOT, OUT));
    INVALID(arbor_scene_lookup_between(S, ROOT, 0, N, 0, ROOT, NULL));
}
ROW(arbor_scene_lookup_many) {
    double t = 0;
    INVALID(arbor_scene_lookup_many(NULL, ROOT, N, &t, 1, OUT));
    INVALID(arbor_scene_lookup_many(S, ROOT, N, NULL, 1, OUT));
    INVALID(arbor_scene_lookup_many(S, ROOT, N, &t, 1, NULL));
}
ROW(arbor_scene_world_matrices_at) {
    INVALID(arbor_scene_world_matrices_at(NULL, &N, 1, 0, OUT));
    INVALID(arbor_scene_world_matrices_at(S, NULL, 1, 0, OUT));
    INVALID(arbor_scene_world_matrices_at(S, &N, 1, 0, NULL));
}
ROW(arbor_node_history_range) {
    double a, b;
    INVALID(arbor_node_history_range(NULL, N, &a, &b));
    INVALID(arbor_node_history_range(S, N, NULL, &b));
    INVALID(arbor_node_history_range(S, N, &a, NULL));
}
ROW(arbor_time_last_extrapolation) { arbor_time_last_extrapolation(NULL, NULL, NULL, NULL); }
ROW(arbor_scene_set_time_hold) { INVALID(arbor_scene_set_time_hold(NULL, 0)); }
ROW(arbor_scene_time_hold) { assert_true(arbor_scene_time_hold(NULL) == 0); }

/* ---- the table ---- */

typedef struct row { const char *name; void (*check)(void); } row;
#define E(name) { #name, row_##name }
static const row rows[] = {
    E(arbor_result_string), E(arbor_last_error), E(arbor_version), E(arbor_real_size),
    E(arbor_scene_create), E(arbor_scene_destroy), E(arbor_scene_update), E(arbor_scene_node_count),
    E(arbor_scene_max_depth), E(arbor_scene_stats_get), E(arbor_scene_stats_reset), E(arbor_node_create), E(arbor_scene_create_nodes),
    E(arbor_node_destroy), E(arbor_node_alive), E(arbor_node_set_translation), E(arbor_node_set_rotation),
    E(arbor_node_set_scale), E(arbor_node_set_trs), E(arbor_node_set_local_matrix), E(arbor_node_get_trs), E(arbor_node_trs),
    E(arbor_node_local_matrix), E(arbor_node_is_matrix_backed), E(arbor_node_is_locked), E(arbor_node_set_name),
    E(arbor_node_user), E(arbor_node_set_user), E(arbor_scene_clear), E(arbor_scene_next_node),
    E(arbor_node_world_matrix), E(arbor_scene_world_matrices), E(arbor_node_world_version), E(arbor_node_set_parent), E(arbor_node_parent),
    E(arbor_node_first_child), E(arbor_node_last_child), E(arbor_node_next_sibling), E(arbor_node_prev_sibling),
    E(arbor_scene_first_root), E(arbor_scene_last_root), E(arbor_node_depth), E(arbor_node_child_count),
    E(arbor_node_is_ancestor_of), E(arbor_node_collect_subtree), E(arbor_node_find_descendant),
    E(arbor_node_find_ancestor), E(arbor_node_name), E(arbor_scene_find),
    E(arbor_scene_update_parallel), E(arbor_pool_create), E(arbor_pool_create_desc), E(arbor_pool_destroy), E(arbor_pool_threads),
    E(arbor_pool_executor), E(arbor_scene_set_translations), E(arbor_scene_set_rotations), E(arbor_scene_set_scales),
    E(arbor_scene_set_translations_parallel), E(arbor_scene_set_rotations_parallel), E(arbor_scene_set_scales_parallel),
    E(arbor_mat4_identity), E(arbor_mat4_mul), E(arbor_mat4_compose), E(arbor_mat4_decompose),
    E(arbor_mat4_invert_affine), E(arbor_mat4_transform_point), E(arbor_mat4_transform_dir),
    E(arbor_mat4_determinant3), E(arbor_quat_from_axis_angle), E(arbor_quat_normalize), E(arbor_quat_slerp),
    E(arbor_quat_mul), E(arbor_quat_to_mat4), E(arbor_quat_from_mat4),
    E(arbor_node_relative_matrix), E(arbor_node_world_trs), E(arbor_node_world_is_mirrored), E(arbor_node_normal_matrix),
    E(arbor_node_set_camera), E(arbor_node_camera), E(arbor_camera_view_matrix), E(arbor_camera_projection_matrix),
    E(arbor_camera_view_projection), E(arbor_camera_orbit), E(arbor_camera_look_at), E(arbor_camera_fly),
    E(arbor_node_set_light), E(arbor_node_light), E(arbor_light_world_position), E(arbor_light_world_direction),
    E(arbor_node_set_mesh), E(arbor_node_mesh), E(arbor_node_set_bounds), E(arbor_node_local_bounds), E(arbor_node_bounds),
    E(arbor_node_world_bounds), E(arbor_node_subtree_bounds), E(arbor_node_subtree_sphere), E(arbor_scene_cull),
    E(arbor_frustum_planes), E(arbor_scene_gather_instances), E(arbor_scene_instance_batches),
    E(arbor_journal_create), E(arbor_journal_destroy), E(arbor_scene_journal), E(arbor_journal_scene),
    E(arbor_journal_create_node), E(arbor_journal_destroy_node), E(arbor_journal_clone), E(arbor_journal_set_parent),
    E(arbor_journal_set_translation), E(arbor_journal_set_rotation), E(arbor_journal_set_scale), E(arbor_journal_set_trs),
    E(arbor_journal_set_local_matrix), E(arbor_journal_set_name), E(arbor_journal_set_user), E(arbor_journal_set_mesh),
    E(arbor_journal_set_bounds), E(arbor_journal_set_camera), E(arbor_journal_set_light), E(arbor_journal_begin),
    E(arbor_journal_commit), E(arbor_journal_abort), E(arbor_journal_undo), E(arbor_journal_redo),
    E(arbor_journal_clear), E(arbor_journal_stats_get), E(arbor_node_clone), E(arbor_node_clone_from),
    E(arbor_node_set_foreign_parent), E(arbor_node_has_foreign_parent), E(arbor_node_attach_to),
    E(arbor_scene_track_changes), E(arbor_scene_changed),
    E(arbor_clip_create), E(arbor_clip_destroy), E(arbor_clip_name), E(arbor_clip_duration), E(arbor_clip_rig_size),
    E(arbor_clip_channel_count), E(arbor_clip_channel), E(arbor_clip_target_name), E(arbor_clip_bind_names), E(arbor_clip_rig_by_names),
    E(arbor_player_create), E(arbor_player_destroy), E(arbor_player_clip), E(arbor_player_apply), E(arbor_players_apply), E(arbor_players_apply_pose),
    E(arbor_pose_create), E(arbor_pose_destroy), E(arbor_pose_count), E(arbor_pose_nodes), E(arbor_pose_trs),
    E(arbor_pose_read), E(arbor_pose_apply), E(arbor_gltf_validate), E(arbor_gltf_validate_messages), E(arbor_gltf_validate_memory),
    E(arbor_player_sample), E(arbor_player_blend), E(arbor_player_add), E(arbor_player_weights),
    E(arbor_skins_create), E(arbor_skins_destroy), E(arbor_skins_add), E(arbor_skins_count), E(arbor_skins_joint_total),
    E(arbor_skins_first_joint), E(arbor_skins_skin), E(arbor_skins_compute),
    E(arbor_gltf_load), E(arbor_gltf_load_memory), E(arbor_gltf_save), E(arbor_gltf_destroy), E(arbor_gltf_node_count),
    E(arbor_gltf_node), E(arbor_gltf_index), E(arbor_gltf_scene_count), E(arbor_gltf_loaded_scene),
    E(arbor_gltf_scene_name), E(arbor_gltf_scene_roots), E(arbor_gltf_counts_get), E(arbor_gltf_node_skin),
    E(arbor_gltf_skin), E(arbor_gltf_animation_name), E(arbor_gltf_animation_find), E(arbor_gltf_clip),
    E(arbor_gltf_add_skins),
    E(arbor_urdf_load),
    E(arbor_urdf_load_memory),
    E(arbor_urdf_destroy),
    E(arbor_urdf_name),
    E(arbor_urdf_link_count),
    E(arbor_urdf_link_node),
    E(arbor_urdf_link_name),
    E(arbor_urdf_link_parent),
    E(arbor_urdf_find_link),
    E(arbor_urdf_joint_count),
    E(arbor_urdf_joint_info),
    E(arbor_urdf_find_joint),
    E(arbor_urdf_dof),
    E(arbor_urdf_geometry_count),
    E(arbor_urdf_geometry_info),
    E(arbor_urdf_positions),
    E(arbor_urdf_set_positions), E(arbor_urdf_record_positions),
    E(arbor_urdf_set_position),
    E(arbor_urdf_forward_kinematics),
    E(arbor_urdf_forward_kinematics_parallel),
    E(arbor_last_error_info), E(arbor_simd_path), E(arbor_journal_set_visible), E(arbor_journal_set_instances),
    E(arbor_journal_set_instance), E(arbor_gltf_lod_count), E(arbor_gltf_lod_group), E(arbor_gltf_select_lods),
    E(arbor_gltf_apply_visibility), E(arbor_node_set_instances), E(arbor_node_instance_count), E(arbor_node_get_instance), E(arbor_node_instance),
    E(arbor_node_set_instance), E(arbor_node_instance_world_matrix), E(arbor_node_instance_world_matrices),
    E(arbor_node_cull_instances), E(arbor_scene_instanced_count), E(arbor_node_set_visible), E(arbor_node_visible),
    E(arbor_node_effectively_visible), E(arbor_scene_hidden_count), E(arbor_node_screen_coverage), E(arbor_lod_pick),
    E(arbor_scene_create_1_1), E(arbor_scene_stats_get_1_1), E(arbor_node_record_trs), E(arbor_pose_record),
    E(arbor_scene_lookup), E(arbor_scene_lookup_between), E(arbor_scene_lookup_many), E(arbor_scene_world_matrices_at),
    E(arbor_node_history_range), E(arbor_time_last_extrapolation), E(arbor_scene_set_time_hold), E(arbor_scene_time_hold),
};
#define ROWS (sizeof rows / sizeof *rows)

/* Each row on its own, so that one crash or failure names its function. */
static void run_row(void **state) {
    const row *r = *state;
    r->check();
}

/* The names declared ARBOR_API in the public headers: every one has a row, and every row one. */
static void test_every_export_has_a_row(void **state) {
    (void)state;
    DIR *d = opendir(ARBOR_SOURCE_DIR "/include/arbor");
    assert_non_null(d);
    bool seen[ROWS] = { false };
    int declared = 0, missing = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".h") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/include/arbor/%s", ARBOR_SOURCE_DIR, e->d_name);
        char *text = read_file(path, NULL);
        assert_non_null(text);
        for (char *at = text; (at = strstr(at, "ARBOR_API")); at += 9) {
            if (at > text && at[-1] != '\n') continue; /* the macro's own definition */
            char *paren = strchr(at, '('), *name = paren, *semi = strchr(at, ';');
            assert_non_null(paren);
            if (semi && semi < paren) continue; /* a variable (the precision mark), no function */
            while (name > at && (name[-1] == '_' || isalnum((unsigned char)name[-1]))) name--;
            char fn[128];
            snprintf(fn, sizeof fn, "%.*s", (int)(paren - name), name);
            declared++;
            size_t i = 0;
            while (i < ROWS && strcmp(rows[i].name, fn) != 0) i++;
            if (i == ROWS) {
                print_error("%s (%s) has no row in tests/test_null.c\n", fn, e->d_name);
                missing++;
            } else {
                seen[i] = true;
            }
        }
        free(text);
    }
    closedir(d);
    for (size_t i = 0; i < ROWS; i++)
        if (!seen[i]) fail_msg("the row %s names no export of the headers", rows[i].name);
    assert_int_equal(missing, 0);
    assert_int_equal(declared, (int)ROWS);
}

int main(void) {
    struct CMUnitTest tests[ROWS + 1];
    tests[0] = (struct CMUnitTest)cmocka_unit_test(test_every_export_has_a_row);
    for (size_t i = 0; i < ROWS; i++)
        tests[i + 1] = (struct CMUnitTest){ rows[i].name, run_row, setup, teardown, (void *)&rows[i] };
    return _cmocka_run_group_tests("test_null", tests, ROWS + 1, NULL, NULL);
}
