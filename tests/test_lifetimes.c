/* SPDX-License-Identifier: MIT */
/*
 * tests/test_lifetimes.c: every object made for a scene (journal, pose, player, skins, glTF
 * document, a node attached to another scene's node) and its scene destroyed in both orders.
 * Before: every block the counting allocator handed out comes back. After the scene: the
 * object is inert, each of its calls that returns a result is ARBOR_ERR_INVALID_ARGUMENT with
 * "its scene was destroyed", and its destroy frees it (every block back; ASan and LeakSanitizer
 * watch in the asan stage).
 */
#include "arbor/gltf.h"
#include "test_util.h"

static test_counting_allocator g_heap;

typedef struct made {
    arbor_scene *s;
    arbor_node root, arm, hand;
    arbor_clip *clip;
} made;

/* A scene of three nodes through the counting allocator, and a clip of one translation. */
static made make(void) {
    made m = { 0 };
    g_heap = (test_counting_allocator){ 0 };
    arbor_scene_desc d = { .allocator = test_counting_allocator_hooks(&g_heap, true) };
    ASSERT_OK(arbor_scene_create(&d, &m.s));
    ASSERT_OK(arbor_node_create(m.s, &(arbor_node_desc){ .name = "root" }, &m.root));
    ASSERT_OK(arbor_node_create(m.s, &(arbor_node_desc){ .name = "arm", .parent = m.root, .translation = { 1, 0, 0 } }, &m.arm));
    ASSERT_OK(arbor_node_create(m.s, &(arbor_node_desc){ .name = "hand", .parent = m.arm, .translation = { 0, 2, 0 } }, &m.hand));
    static const float times[2] = { 0, 1 }, values[6] = { 0, 0, 0, 3, 0, 0 };
    arbor_channel_desc ch = { .target = 0, .path = ARBOR_ANIM_TRANSLATION, .key_count = 2, .times = times, .values = values };
    ASSERT_OK(arbor_clip_create(&(arbor_clip_desc){ .channels = &ch, .channel_count = 1 }, &m.clip));
    return m;
}

/* The refusal of a call on an inert object. */
#define ASSERT_INERT(fname, call)                                                 \
    do {                                                                          \
        ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, fname, call);                 \
        assert_non_null(strstr(arbor_last_error(), "its scene was destroyed"));  \
    } while (0)

static void assert_all_back(void) {
    assert_int_equal(g_heap.live_blocks, 0);
    assert_int_equal(g_heap.live_bytes, 0);
    assert_int_equal(g_heap.size_mismatches, 0);
}

static void test_journal(void **state) {
    (void)state;
    for (int scene_first = 0; scene_first < 2; scene_first++) {
        made m = make();
        arbor_journal *j;
        ASSERT_OK(arbor_journal_create(m.s, NULL, &j));
        ASSERT_OK(arbor_journal_set_translation(j, m.arm, 5, 0, 0));
        ASSERT_OK(arbor_journal_destroy_node(j, m.arm)); /* held nodes, with their names */
        if (scene_first) {
            arbor_scene_destroy(m.s);
            assert_null(arbor_journal_scene(j));
            ASSERT_INERT("arbor_journal_undo", arbor_journal_undo(j));
            ASSERT_INERT("arbor_journal_redo", arbor_journal_redo(j));
            ASSERT_INERT("arbor_journal_begin", arbor_journal_begin(j));
            ASSERT_INERT("arbor_journal_commit", arbor_journal_commit(j));
            ASSERT_INERT("arbor_journal_abort", arbor_journal_abort(j));
            ASSERT_INERT("arbor_journal_set_translation", arbor_journal_set_translation(j, m.root, 1, 2, 3));
            arbor_node n;
            ASSERT_INERT("arbor_journal_create_node", arbor_journal_create_node(j, &(arbor_node_desc){ 0 }, &n));
            arbor_journal_clear(j);
            arbor_journal_stats st;
            arbor_journal_stats_get(j, &st);
            assert_int_equal(st.undo_steps + st.redo_steps + st.records + st.held_nodes, 0);
            arbor_journal_destroy(j);
        } else {
            arbor_journal_destroy(j);
            assert_null(arbor_scene_journal(m.s));
            arbor_scene_destroy(m.s);
        }
        arbor_clip_destroy(m.clip);
        assert_all_back();
    }
}

static void test_pose(void **state) {
    (void)state;
    for (int scene_first = 0; scene_first < 2; scene_first++) {
        made m = make();
        arbor_pose *p;
        ASSERT_OK(arbor_pose_create(m.s, NULL, 0, &p));
        ASSERT_OK(arbor_pose_apply(p, NULL)); /* its lists made */
        if (scene_first) {
            arbor_scene_destroy(m.s);
            ASSERT_INERT("arbor_pose_apply", arbor_pose_apply(p, NULL));
            ASSERT_INERT("arbor_pose_read", arbor_pose_read(p));
            assert_int_equal(arbor_pose_count(p), 3); /* what it holds */
            arbor_pose_destroy(p);
        } else {
            arbor_pose_destroy(p);
            arbor_scene_destroy(m.s);
        }
        arbor_clip_destroy(m.clip);
        assert_all_back();
    }
}

static void test_player(void **state) {
    (void)state;
    for (int scene_first = 0; scene_first < 2; scene_first++) {
        made m = make();
        arbor_player *player;
        ASSERT_OK(arbor_player_create(m.clip, m.s, &m.arm, 1, &player));
        arbor_pose *p;
        ASSERT_OK(arbor_pose_create(m.s, &m.arm, 1, &p));
        const double t = 0.5;
        ASSERT_OK(arbor_players_apply_pose(&player, &t, 1, ARBOR_WRAP_CLAMP, p, NULL)); /* its map to the pose made */
        if (scene_first) {
            arbor_scene_destroy(m.s);
            ASSERT_INERT("arbor_player_apply", arbor_player_apply(player, 0.5, ARBOR_WRAP_CLAMP));
            ASSERT_INERT("arbor_players_apply", arbor_players_apply(&player, &t, 1, ARBOR_WRAP_CLAMP, NULL));
            ASSERT_INERT("arbor_players_apply_pose", arbor_players_apply_pose(&player, &t, 1, ARBOR_WRAP_CLAMP, p, NULL));
            arbor_trs out[1];
            ASSERT_INERT("arbor_player_sample", arbor_player_sample(player, 0.5, ARBOR_WRAP_CLAMP, out, 1));
            ASSERT_INERT("arbor_player_add", arbor_player_add(player, 0.5, 1, ARBOR_WRAP_CLAMP));
            ASSERT_INERT("arbor_player_blend", arbor_player_blend(player, 0, player, 1, 0.5f, ARBOR_WRAP_CLAMP));
            assert_ptr_equal(arbor_player_clip(player), m.clip);
            arbor_player_destroy(player);
            arbor_pose_destroy(p);
        } else {
            arbor_player_destroy(player);
            arbor_pose_destroy(p);
            arbor_scene_destroy(m.s);
        }
        arbor_clip_destroy(m.clip);
        assert_all_back();
    }
}

static void test_skins(void **state) {
    (void)state;
    for (int scene_first = 0; scene_first < 2; scene_first++) {
        made m = make();
        arbor_skins *k;
        ASSERT_OK(arbor_skins_create(m.s, &k));
        const arbor_node joints[2] = { m.arm, m.hand };
        ASSERT_OK(arbor_skins_add(k, &(arbor_skin_desc){ .mesh = m.root, .joints = joints, .joint_count = 2 }, NULL));
        float out[2 * 16];
        ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT4, out, 2, NULL));
        if (scene_first) {
            arbor_scene_destroy(m.s);
            ASSERT_INERT("arbor_skins_compute", arbor_skins_compute(k, ARBOR_LAYOUT_MAT4, out, 2, NULL));
            ASSERT_INERT("arbor_skins_add",
                         arbor_skins_add(k, &(arbor_skin_desc){ .mesh = m.root, .joints = joints, .joint_count = 2 }, NULL));
            assert_int_equal(arbor_skins_joint_total(k), 2);
            arbor_skins_destroy(k);
        } else {
            arbor_skins_destroy(k);
            arbor_scene_destroy(m.s);
        }
        arbor_clip_destroy(m.clip);
        assert_all_back();
    }
}

static void test_gltf_document(void **state) {
    (void)state;
    static const char json[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"g\",\"children\":[1]},{\"name\":\"h\"}],"
                               "\"skins\":[{\"joints\":[1]}],\"scenes\":[{\"nodes\":[0]}]}";
    for (int scene_first = 0; scene_first < 2; scene_first++) {
        made m = make();
        arbor_gltf *doc;
        ASSERT_OK(arbor_gltf_load_memory(m.s, json, sizeof json - 1, NULL, NULL, &doc));
        assert_false(arbor_node_is_none(arbor_gltf_node(doc, 1)));
        if (scene_first) {
            arbor_scene_destroy(m.s);
            assert_true(arbor_node_is_none(arbor_gltf_node(doc, 0)));
            assert_int_equal(arbor_gltf_node_count(doc), 2); /* what it holds */
            arbor_node roots[1], joints[1], skeleton;
            uint32_t count = 7;
            ASSERT_INERT("arbor_gltf_scene_roots", arbor_gltf_scene_roots(doc, 0, roots, 1, &count));
            ASSERT_INERT("arbor_gltf_skin", arbor_gltf_skin(doc, 0, joints, NULL, 1, &skeleton, &count));
            arbor_gltf_destroy(doc);
        } else {
            arbor_gltf_destroy(doc);
            arbor_scene_destroy(m.s);
        }
        arbor_clip_destroy(m.clip);
        assert_all_back();
    }
}

/* A node of s hangs from a node of `other` (arbor_node_attach_to): either scene may go first. */
static void test_attached_to_another_scene(void **state) {
    (void)state;
    for (int other_first = 0; other_first < 2; other_first++) {
        made m = make();
        arbor_scene *other;
        arbor_node body;
        ASSERT_OK(arbor_scene_create(&(arbor_scene_desc){ .allocator = test_counting_allocator_hooks(&g_heap, true) }, &other));
        ASSERT_OK(arbor_node_create(other, &(arbor_node_desc){ .translation = { 0, 0, 7 } }, &body));
        ASSERT_OK(arbor_node_attach_to(m.s, m.root, other, body, ARBOR_KEEP_LOCAL));
        arbor_scene_update(m.s);
        arbor_real w[16];
        ASSERT_OK(arbor_node_world_matrix(m.s, m.hand, w));
        assert_true(w[12] == 1 && w[13] == 2 && w[14] == 7); /* (1, 0, 0) + (0, 2, 0) under (0, 0, 7) */
        if (other_first) {
            arbor_scene_destroy(other);
            ASSERT_OK(arbor_node_set_translation(m.s, m.arm, 3, 0, 0));
            arbor_scene_update(m.s); /* polls the link: the last matrix stays */
            ASSERT_OK(arbor_node_world_matrix(m.s, m.hand, w));
            assert_true(w[12] == 3 && w[13] == 2 && w[14] == 7);
            arbor_scene_destroy(m.s);
        } else {
            arbor_scene_destroy(m.s);
            ASSERT_OK(arbor_node_set_translation(other, body, 0, 1, 0)); /* other lives on alone */
            arbor_scene_update(other);
            arbor_scene_destroy(other);
        }
        arbor_clip_destroy(m.clip);
        assert_all_back();
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_journal),
        cmocka_unit_test(test_pose),
        cmocka_unit_test(test_player),
        cmocka_unit_test(test_skins),
        cmocka_unit_test(test_gltf_document),
        cmocka_unit_test(test_attached_to_another_scene),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
