/* SPDX-License-Identifier: MIT */
/*
 * tests/test_instances.c: instances, visibility and levels of detail (instances.h).
 *
 * - Instance world matrices against W_node * T * R * S computed here in double, after the node,
 *   an ancestor or an instance moved, with and without an update; refusals change nothing.
 * - Boxes: a node's world box is the union of its instances' (corners in double); culling tests
 *   the group, then instance by instance, with the visible set of a per-instance test;
 *   instancing writes a matrix per instance, mirrored instances apart; hidden nodes are left out.
 * - Effective visibility against a walk up the ancestors, over random hides, shows, reparents,
 *   creations, destructions, clones and relayouts.
 * - The journal (visibility, instances, one instance: undo, redo, groups, a destroyed subtree
 *   brought back), clones (deep copies), and no allocation once warm.
 * - Screen coverage against the sphere's projection computed here, and LOD picking.
 */
#include "test_util.h"

#include "arbor/edit.h"
#include "arbor/instances.h"
#include "arbor/view.h"

/* A new scene (desc may be NULL); the test fails when it cannot be made. */
static arbor_scene *new_scene(const arbor_scene_desc *desc) {
    arbor_scene *s = NULL;
    if (arbor_scene_create(desc, &s) != ARBOR_OK) fail_msg("arbor_scene_create: %s", arbor_last_error());
    return s;
}

/* ---- helpers ------------------------------------------------------------------------------------- */

static arbor_trs trs_of(double tx, double ty, double tz, const arbor_real q[4], double sx, double sy, double sz) {
    arbor_trs v = {.translation = {(arbor_real)tx, (arbor_real)ty, (arbor_real)tz},
                   .rotation = {q[0], q[1], q[2], q[3]},
                   .scale = {(arbor_real)sx, (arbor_real)sy, (arbor_real)sz}};
    return v;
}

/* The node's world matrix in double, from the TRS of it and its ancestors. */
static void world_d(arbor_scene *s, arbor_node n, double out[16]) {
    double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (arbor_node k = n; !arbor_node_is_none(k); k = arbor_node_parent(s, k)) {
        arbor_trs v;
        double local[16];
        ASSERT_OK(arbor_node_trs(s, k, &v));
        test_ref_compose_trs(local, &v);
        test_ref_mul(m, local, m);
    }
    memcpy(out, m, sizeof m);
}

static void expect_instance(arbor_scene *s, arbor_node n, uint32_t i, const arbor_trs *v) {
    double w[16], local[16];
    world_d(s, n, w);
    test_ref_compose_trs(local, v);
    test_ref_mul(w, w, local);
    arbor_real got[16];
    ASSERT_OK(arbor_node_instance_world_matrix(s, n, i, got));
    ASSERT_MAT4_NEAR_D(got, w, TEST_EPS);
}

/* Counts of the queries that report them through an out-parameter. */
static uint32_t cull_count(arbor_scene *s, const arbor_real *planes, uint32_t n, arbor_node *out, uint32_t cap,
                           arbor_cull_stats *st) {
    uint32_t count = 0;
    ASSERT_OK(arbor_scene_cull(s, planes, n, out, cap, &count, st));
    return count;
}
static uint32_t cull_instances(arbor_scene *s, arbor_node node, const arbor_real *planes, uint32_t n, uint32_t *out,
                               uint32_t cap, arbor_cull_stats *st) {
    uint32_t count = 0;
    ASSERT_OK(arbor_node_cull_instances(s, node, planes, n, out, cap, &count, st));
    return count;
}

/* ---- instances ------------------------------------------------------------------------------------- */

static void test_instance_world_matrices(void **state) {
    (void)state;
    arbor_scene *s = new_scene(NULL);
    arbor_real q1[4], q2[4], q3[4];
    test_quat_axis_deg(q1, 0, 1, 0, 30);
    test_quat_axis_deg(q2, 1, 0, 0, 75);
    test_quat_axis_deg(q3, 0, 0, 1, -40);
    arbor_node base = TEST_NODE(s, ARBOR_NONE, "base", V3(1, 2, 3), q1, NULL);
    arbor_node grove = TEST_NODE(s, base, "grove", V3(0, 0.5, 0), q2, NULL);
    arbor_trs trees[3] = {trs_of(0, 0, 0, Q4(0, 0, 0, 1), 1, 1, 1), trs_of(2, 0, -1, q3, 1, 2, 1),
                          trs_of(-3, 1, 4, q1, 0.5, 0.5, 0.5)};
    ASSERT_OK(arbor_node_set_instances(s, grove, trees, 3));
    assert_int_equal(arbor_node_instance_count(s, grove), 3);
    uint64_t version = arbor_node_world_version(s, grove);
    for (uint32_t i = 0; i < 3; i++) expect_instance(s, grove, i, &trees[i]);
    assert_int_equal(arbor_node_world_version(s, grove), version); /* instances change no version */

    /* an ancestor moves: every instance follows, read lazily or after an update */
    ASSERT_OK(arbor_node_set_translation(s, base, -4, 0, 2));
    for (uint32_t i = 0; i < 3; i++) expect_instance(s, grove, i, &trees[i]);
    ASSERT_OK(arbor_node_set_rotation(s, base, q3[0], q3[1], q3[2], q3[3]));
    arbor_scene_update(s);
    arbor_real all[48];
    uint32_t count = 0;
    ASSERT_OK(arbor_node_instance_world_matrices(s, grove, 0, all, 3, &count));
    assert_int_equal(count, 3);
    for (uint32_t i = 0; i < 3; i++) {
        arbor_real one[16];
        ASSERT_OK(arbor_node_instance_world_matrix(s, grove, i, one));
        ASSERT_REALS_BITS_EQUAL(one, all + 16 * i, 16);
    }
    /* one instance written: it alone changes, its rotation normalised */
    arbor_trs moved = trs_of(7, 7, 7, Q4(0, 2, 0, 2), 3, 1, 1);
    ASSERT_OK(arbor_node_set_instance(s, grove, 1, &moved));
    arbor_trs back;
    ASSERT_OK(arbor_node_instance(s, grove, 1, &back));
    ASSERT_NEAR(test_quat_len(back.rotation), 1, TEST_EPS);
    expect_instance(s, grove, 1, &moved);
    arbor_real first[16];
    ASSERT_OK(arbor_node_instance_world_matrix(s, grove, 0, first));
    ASSERT_REALS_BITS_EQUAL(first, all, 16);

    /* refusals change nothing */
    arbor_trs nan = trs_of(NAN, 0, 0, Q4(0, 0, 0, 1), 1, 1, 1), zero = trs_of(0, 0, 0, Q4(0, 0, 0, 0), 1, 1, 1);
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_instance", arbor_node_set_instance(s, grove, 0, &nan));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_instance", arbor_node_set_instance(s, grove, 0, &zero));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_instance", arbor_node_set_instance(s, grove, 3, &moved));
    arbor_trs two[2] = {trees[0], nan};
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_instances", arbor_node_set_instances(s, grove, two, 2));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_instances", arbor_node_set_instances(s, grove, NULL, 2));
    assert_int_equal(arbor_node_instance_count(s, grove), 3);
    expect_instance(s, grove, 0, &trees[0]);
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_instance_world_matrix",
                   arbor_node_instance_world_matrix(s, base, 0, first));
    /* count 0 removes them */
    ASSERT_OK(arbor_node_set_instances(s, grove, NULL, 0));
    assert_int_equal(arbor_node_instance_count(s, grove), 0);
    assert_int_equal(arbor_scene_instanced_count(s, NULL), 0);
    arbor_node_destroy(s, base);
    assert_int_equal(arbor_node_instance_count(s, grove), 0);
    arbor_scene_destroy(s);
}

/* The box of [lo, hi] through m (double corners). */
static void box_d(const double m[16], const double lo[3], const double hi[3], double out[6]) {
    for (int k = 0; k < 3; k++) out[k] = INFINITY, out[3 + k] = -INFINITY;
    for (int c = 0; c < 8; c++) {
        double p[3] = {c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2]};
        for (int r = 0; r < 3; r++) {
            double v = m[12 + r] + m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2];
            out[r] = fmin(out[r], v);
            out[3 + r] = fmax(out[3 + r], v);
        }
    }
}

static void test_bounds_cull_and_gather(void **state) {
    (void)state;
    arbor_scene *s = new_scene(NULL);
    arbor_real q[4];
    test_quat_axis_deg(q, 0, 0, 1, 20);
    arbor_node root = TEST_NODE(s, ARBOR_NONE, "root", V3(0, 1, 0), q, NULL);
    arbor_node row = TEST_NODE(s, root, "row", V3(0, 0, 0), NULL, NULL);
    enum { N = 12 };
    arbor_trs at[N];
    for (int i = 0; i < N; i++) at[i] = trs_of(3.0 * i, 0, 0, Q4(0, 0, 0, 1), 1, i == 7 ? -1 : 1, 1); /* 7 mirrored */
    ASSERT_OK(arbor_node_set_instances(s, row, at, N));
    ASSERT_OK(arbor_node_set_mesh(s, row, 4));
    ASSERT_OK(arbor_node_set_bounds(s, row, V3(-1, -1, -1), V3(1, 1, 1)));
    /* the node's world box: the union of its instances' */
    double lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1}, node_w[16], boxes[N][6], all[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
    world_d(s, row, node_w);
    for (int i = 0; i < N; i++) {
        double local[16], m[16];
        test_ref_compose_trs(local, &at[i]);
        test_ref_mul(m, node_w, local);
        box_d(m, lo, hi, boxes[i]);
        for (int k = 0; k < 3; k++) all[k] = fmin(all[k], boxes[i][k]), all[3 + k] = fmax(all[3 + k], boxes[i][3 + k]);
    }
    arbor_real mn[3], mx[3];
    ASSERT_OK(arbor_node_world_bounds(s, row, mn, mx));
    for (int k = 0; k < 3; k++) ASSERT_NEAR(mn[k], all[k], TEST_EPS * 40), ASSERT_NEAR(mx[k], all[3 + k], TEST_EPS * 40);
    ASSERT_OK(arbor_node_subtree_bounds(s, root, mn, mx));
    for (int k = 0; k < 3; k++) ASSERT_NEAR(mn[k], all[k], TEST_EPS * 40), ASSERT_NEAR(mx[k], all[3 + k], TEST_EPS * 40);

    /* a plane x >= 10 cuts the row: the group straddles, the instances are tested one by one */
    arbor_real plane[4] = {1, 0, 0, -10};
    uint32_t seen[N];
    arbor_cull_stats st;
    uint32_t n = cull_instances(s, row, plane, 1, seen, N, &st);
    uint32_t want = 0;
    for (int i = 0; i < N; i++)
        if (boxes[i][3] >= 10) assert_int_equal(seen[want++], i);
    assert_int_equal(n, want);
    assert_true(want > 0 && want < N);
    assert_int_equal(st.box_tests, 1 + N);
    arbor_node out[4];
    assert_int_equal(cull_count(s, plane, 1, out, 4, &st), 1);
    ASSERT_NODE_EQ(out[0], row);
    /* wholly outside, wholly inside: one test */
    arbor_real far[4] = {1, 0, 0, -1000}, near[4] = {1, 0, 0, 1000};
    assert_int_equal(cull_instances(s, row, far, 1, seen, N, &st), 0);
    assert_int_equal(st.box_tests, 1);
    assert_int_equal(cull_instances(s, row, near, 1, seen, N, &st), N);
    assert_int_equal(st.box_tests, 1);
    /* instancing: a matrix per instance, the mirrored one in a batch of its own */
    float matrices[N * 16];
    arbor_instance_batch batches[4];
    uint32_t batch_count, matrix_count;
    ASSERT_OK(arbor_scene_instance_batches(s, &row, 1, ARBOR_LAYOUT_MAT4, matrices, N, &matrix_count, batches, 4,
                                           &batch_count));
    assert_int_equal(matrix_count, N);
    assert_int_equal(batch_count, 2);
    assert_int_equal(batches[0].count, N - 1);
    assert_false(batches[0].mirrored);
    assert_int_equal(batches[1].count, 1);
    assert_true(batches[1].mirrored);
    for (uint32_t i = 0, k = 0; i < N; i++) {
        arbor_real w[16];
        ASSERT_OK(arbor_node_instance_world_matrix(s, row, i, w));
        const float *m = matrices + 16 * (i == 7 ? batches[1].first : batches[0].first + k++);
        for (int e = 0; e < 16; e++) assert_true(m[e] == (float)w[e]);
    }
    /* hidden: culled, gathered and tested as nothing */
    ASSERT_OK(arbor_node_set_visible(s, root, false));
    assert_int_equal(cull_count(s, near, 1, out, 4, NULL), 0);
    assert_int_equal(cull_instances(s, row, near, 1, seen, N, NULL), 0);
    ASSERT_OK(arbor_scene_instance_batches(s, &row, 1, ARBOR_LAYOUT_MAT4, matrices, N, &matrix_count, batches, 4,
                                           &batch_count));
    assert_int_equal(matrix_count, 0);
    assert_int_equal(batch_count, 0);
    ASSERT_OK(arbor_node_set_visible(s, root, true));
    assert_int_equal(cull_count(s, near, 1, out, 4, NULL), 1);
    arbor_scene_destroy(s);
}

/* A node with 8 instances gives 8 matrices: an array sized for the listed nodes (one matrix)
   holds the first, *matrix_count says 8, and nothing is written past the cap (a heap array, so
   ASan sees a write past it; arbor_scene_gather_instances, without a cap, wrote all 8 there).
   The matrices against W_node * T_i computed here in double. */
static void test_instance_batches_capacity(void **state) {
    (void)state;
    arbor_scene *s = new_scene(NULL);
    arbor_node tree;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .translation = { 1, 2, 3 }, .rotation = { 0, 0, 0.70710678f, 0.70710678f } },
                                &tree));
    enum { K = 8 };
    arbor_trs at[K];
    for (int i = 0; i < K; i++) at[i] = trs_of(i, 0, 0, Q4(0, 0, 0, 1), 1, 1, i == 5 ? -1 : 1); /* 5 mirrored */
    ASSERT_OK(arbor_node_set_instances(s, tree, at, K));
    ASSERT_OK(arbor_node_set_mesh(s, tree, 2));
    double expect[K][16];
    for (int i = 0; i < K; i++) {
        double local[16];
        world_d(s, tree, expect[i]);
        test_ref_compose_trs(local, &at[i]);
        test_ref_mul(expect[i], expect[i], local);
    }
    /* the whole list, for the order: the 7 plain instances in a batch, then the mirrored one */
    const int order[K] = { 0, 1, 2, 3, 4, 6, 7, 5 };
    for (uint32_t cap = 0; cap <= K; cap++) {
        float *m = malloc(sizeof(float) * 12 * (cap ? cap : 1));
        arbor_instance_batch b[2] = { { 0 } };
        uint32_t matrix_count = 0, batch_count = 0;
        ASSERT_OK(arbor_scene_instance_batches(s, &tree, 1, ARBOR_LAYOUT_MAT3X4, cap ? m : NULL, cap, &matrix_count, b,
                                               cap < 4 ? 1 : 2, &batch_count));
        assert_int_equal(matrix_count, K);
        assert_int_equal(batch_count, 2);
        assert_int_equal(b[0].mesh, 2);
        assert_false(b[0].mirrored);
        assert_int_equal(b[0].first, 0);
        assert_int_equal(b[0].count, K - 1);
        if (cap >= 4) {
            assert_true(b[1].mirrored);
            assert_int_equal(b[1].first, K - 1);
            assert_int_equal(b[1].count, 1);
        } else {
            assert_int_equal(b[1].count, 0); /* past batch_cap: not written */
        }
        for (uint32_t j = 0; j < cap; j++)
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 4; c++) ASSERT_NEAR(m[j * 12 + r * 4 + c], expect[order[j]][c * 4 + r], 1e-5);
        free(m);
    }
    arbor_scene_destroy(s);
}

/* arbor.h's order of checks: a read given both a NULL out-pointer and a dead handle reports the
   argument (ARBOR_ERR_INVALID_ARGUMENT), whichever read it is; a dead handle alone is
   ARBOR_ERR_DEAD_NODE. (arbor_node_local_matrix and arbor_node_get_trs checked the handle first.) */
static void test_reads_check_arguments_before_handles(void **state) {
    (void)state;
    arbor_scene *s = new_scene(NULL);
    arbor_node dead = TEST_NODE(s, ARBOR_NONE, "dead", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_destroy(s, dead));
    arbor_real m[16], v[3];
    arbor_trs t;
    arbor_camera c;
    arbor_light l;
#define BOTH(call_null, call_dead)                                                                                 \
    do {                                                                                                           \
        assert_int_equal(call_null, ARBOR_ERR_INVALID_ARGUMENT);                                                   \
        assert_int_equal(call_dead, ARBOR_ERR_DEAD_NODE);                                                          \
    } while (0)
    BOTH(arbor_node_local_matrix(s, dead, NULL), arbor_node_local_matrix(s, dead, m));
    BOTH(arbor_node_world_matrix(s, dead, NULL), arbor_node_world_matrix(s, dead, m));
    BOTH(arbor_node_trs(s, dead, NULL), arbor_node_trs(s, dead, &t));
    BOTH(arbor_node_world_trs(s, dead, NULL, NULL), arbor_node_world_trs(s, dead, &t, NULL));
    BOTH(arbor_node_bounds(s, dead, NULL, v), arbor_node_bounds(s, dead, v, v));
    BOTH(arbor_node_world_bounds(s, dead, NULL, v), arbor_node_world_bounds(s, dead, v, v));
    BOTH(arbor_node_camera(s, dead, NULL), arbor_node_camera(s, dead, &c));
    BOTH(arbor_node_light(s, dead, NULL), arbor_node_light(s, dead, &l));
    BOTH(arbor_node_instance(s, dead, 0, NULL), arbor_node_instance(s, dead, 0, &t));
#undef BOTH
    arbor_scene_destroy(s);
}

/* ---- visibility ------------------------------------------------------------------------------------- */

static bool naive_visible(arbor_scene *s, arbor_node n) {
    for (arbor_node k = n; !arbor_node_is_none(k); k = arbor_node_parent(s, k))
        if (!arbor_node_visible(s, k)) return false;
    return true;
}

static void test_visibility_against_a_walk(void **state) {
    (void)state;
    arbor_scene *s = new_scene(NULL);
    enum { MAX = 300 };
    arbor_node nodes[MAX];
    uint32_t count = 0;
    test_rng rng = test_rng_make(15);
    for (; count < 40; count++) {
        arbor_node parent = count ? nodes[test_rng_below(&rng, count)] : ARBOR_NONE;
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){.parent = parent}, &nodes[count]));
    }
    for (int round = 0; round < 4000; round++) {
        arbor_node n = nodes[test_rng_below(&rng, count)];
        uint32_t op = test_rng_below(&rng, 10);
        if (!arbor_node_alive(s, n)) continue;
        if (op < 4) {
            ASSERT_OK(arbor_node_set_visible(s, n, test_rng_below(&rng, 3) == 0));
        } else if (op < 6) {
            arbor_node p = nodes[test_rng_below(&rng, count)];
            if (!arbor_node_alive(s, p) || test_rng_below(&rng, 5) == 0) p = ARBOR_NONE;
            arbor_result r = arbor_node_set_parent(s, n, p, ARBOR_NONE, ARBOR_KEEP_LOCAL);
            assert_true(r == ARBOR_OK || r == ARBOR_ERR_CYCLE);
        } else if (op == 6 && count < MAX) {
            ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){.parent = n}, &nodes[count++]));
        } else if (op == 7 && test_rng_below(&rng, 4) == 0) {
            ASSERT_OK(arbor_node_destroy(s, n));
        } else if (op == 8 && count < MAX - 50 && test_rng_below(&rng, 8) == 0) {
            ASSERT_OK(arbor_node_clone(s, n, ARBOR_NONE, &nodes[count++]));
        } else if (op == 9 && test_rng_below(&rng, 20) == 0) {
            arbor_scene_update(s); /* may renumber the storage */
        }
        /* a few answers at random, and every answer now and then */
        for (int k = 0; k < 3; k++) {
            arbor_node m = nodes[test_rng_below(&rng, count)];
            if (arbor_node_alive(s, m)) assert_int_equal(arbor_node_effectively_visible(s, m), naive_visible(s, m));
        }
        if (round % 97 == 0)
            for (uint32_t k = 0; k < count; k++)
                if (arbor_node_alive(s, nodes[k]))
                    assert_int_equal(arbor_node_effectively_visible(s, nodes[k]), naive_visible(s, nodes[k]));
    }
    uint32_t hidden = 0; /* clones' descendants too */
    for (arbor_node k = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(k); k = arbor_scene_next_node(s, k)) {
        hidden += !arbor_node_visible(s, k);
        assert_int_equal(arbor_node_effectively_visible(s, k), naive_visible(s, k));
    }
    assert_int_equal(arbor_scene_hidden_count(s), hidden);
    assert_false(arbor_node_effectively_visible(s, ARBOR_NONE));
    arbor_scene_destroy(s);
}

/* ---- the journal, clones, allocation -------------------------------------------------------------- */

static void test_journal_and_clones(void **state) {
    (void)state;
    arbor_scene *s = new_scene(NULL);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    arbor_node top = TEST_NODE(s, ARBOR_NONE, "top", V3(1, 0, 0), NULL, NULL);
    arbor_node leaf = TEST_NODE(s, top, "leaf", V3(0, 1, 0), NULL, NULL);
    arbor_trs a[2] = {trs_of(1, 0, 0, Q4(0, 0, 0, 1), 1, 1, 1), trs_of(0, 2, 0, Q4(0, 0, 0, 1), 2, 2, 2)};
    arbor_trs b[3] = {trs_of(5, 0, 0, Q4(0, 0, 0, 1), 1, 1, 1), trs_of(6, 0, 0, Q4(0, 0, 0, 1), 1, 1, 1),
                      trs_of(7, 0, 0, Q4(0, 0, 0, 1), 1, 1, 1)};
    ASSERT_OK(arbor_journal_set_instances(j, leaf, a, 2));
    ASSERT_OK(arbor_journal_set_instances(j, leaf, b, 3));
    ASSERT_OK(arbor_journal_set_instance(j, leaf, 1, &a[1]));
    ASSERT_OK(arbor_journal_set_visible(j, top, false));
    assert_false(arbor_node_effectively_visible(s, leaf));
    ASSERT_OK(arbor_journal_undo(j)); /* visibility */
    assert_true(arbor_node_effectively_visible(s, leaf));
    ASSERT_OK(arbor_journal_undo(j)); /* instance 1 */
    expect_instance(s, leaf, 1, &b[1]);
    ASSERT_OK(arbor_journal_undo(j)); /* b */
    assert_int_equal(arbor_node_instance_count(s, leaf), 2);
    expect_instance(s, leaf, 1, &a[1]);
    ASSERT_OK(arbor_journal_undo(j)); /* a */
    assert_int_equal(arbor_node_instance_count(s, leaf), 0);
    ASSERT_OK(arbor_journal_redo(j));
    ASSERT_OK(arbor_journal_redo(j));
    ASSERT_OK(arbor_journal_redo(j));
    ASSERT_OK(arbor_journal_redo(j));
    assert_int_equal(arbor_node_instance_count(s, leaf), 3);
    expect_instance(s, leaf, 1, &a[1]);
    expect_instance(s, leaf, 2, &b[2]);
    assert_false(arbor_node_visible(s, top));
    arbor_journal_stats js;
    arbor_journal_stats_get(j, &js);
    assert_true(js.bytes >= 2 * sizeof(arbor_trs)); /* the sets it keeps are counted */

    /* a group: two writes of one kind keep the state before both */
    ASSERT_OK(arbor_journal_begin(j));
    ASSERT_OK(arbor_journal_set_instance(j, leaf, 0, &b[1]));
    ASSERT_OK(arbor_journal_set_instance(j, leaf, 0, &b[2]));
    ASSERT_OK(arbor_journal_commit(j));
    expect_instance(s, leaf, 0, &b[2]);
    ASSERT_OK(arbor_journal_undo(j));
    expect_instance(s, leaf, 0, &b[0]);

    /* a subtree destroyed through the journal comes back with its instances and visibility */
    ASSERT_OK(arbor_journal_destroy_node(j, top));
    assert_false(arbor_node_alive(s, leaf));
    ASSERT_OK(arbor_journal_undo(j));
    assert_int_equal(arbor_node_instance_count(s, leaf), 3);
    assert_false(arbor_node_effectively_visible(s, leaf));
    expect_instance(s, leaf, 2, &b[2]);

    /* clones: deep copies, hidden flags and instances included */
    arbor_node copy;
    ASSERT_OK(arbor_node_clone(s, top, ARBOR_NONE, &copy));
    arbor_node copy_leaf = arbor_node_first_child(s, copy);
    assert_false(arbor_node_visible(s, copy));
    assert_false(arbor_node_effectively_visible(s, copy_leaf));
    assert_int_equal(arbor_node_instance_count(s, copy_leaf), 3);
    ASSERT_OK(arbor_node_set_instance(s, copy_leaf, 2, &a[0]));
    expect_instance(s, leaf, 2, &b[2]);
    expect_instance(s, copy_leaf, 2, &a[0]);
    assert_int_equal(arbor_scene_hidden_count(s), 2);
    assert_int_equal(arbor_scene_instanced_count(s, NULL), 2);
    arbor_scene *other = new_scene(NULL);
    arbor_node far;
    ASSERT_OK(arbor_node_clone_from(other, s, top, ARBOR_NONE, &far));
    assert_int_equal(arbor_node_instance_count(other, arbor_node_first_child(other, far)), 3);
    assert_int_equal(arbor_scene_hidden_count(other), 1);
    arbor_scene_destroy(other);
    arbor_journal_destroy(j);
    arbor_scene_destroy(s);
}

static void test_no_allocation_once_warm(void **state) {
    (void)state;
    test_counting_allocator counts = {0};
    arbor_scene_desc d = {0};
    d.allocator = (arbor_allocator){test_count_alloc, test_count_realloc, test_count_free, &counts};
    arbor_scene *s = new_scene(&d);
    arbor_node root = TEST_NODE(s, ARBOR_NONE, "root", V3(0, 0, 0), NULL, NULL);
    arbor_node row = TEST_NODE(s, root, "row", V3(0, 0, 0), NULL, NULL);
    arbor_trs at[64];
    for (int i = 0; i < 64; i++) at[i] = trs_of(i, 0, 0, Q4(0, 0, 0, 1), 1, 1, 1);
    ASSERT_OK(arbor_node_set_instances(s, row, at, 64));
    ASSERT_OK(arbor_node_set_mesh(s, row, 0));
    ASSERT_OK(arbor_node_set_bounds(s, row, V3(-0.4, -0.4, -0.4), V3(0.4, 0.4, 0.4)));
    ASSERT_OK(arbor_node_set_visible(s, root, false));
    ASSERT_OK(arbor_node_set_visible(s, root, true));
    ASSERT_OK(arbor_node_set_visible(s, row, false));
    arbor_real plane[4] = {1, 0, 0, -30}, w[16];
    float matrices[64 * 16];
    arbor_instance_batch batches[2];
    uint32_t seen[64], batch_count, matrix_count;
    arbor_node out[2];
    for (int warm = 0; warm < 2; warm++) {
        uint64_t before = counts.allocs + counts.reallocs;
        for (int frame = 0; frame < 10; frame++) {
            arbor_trs v = trs_of(frame, 1, 0, Q4(0, 0, 0, 1), 1, 1, 1);
            ASSERT_OK(arbor_node_set_instance(s, row, (uint32_t)frame, &v));
            ASSERT_OK(arbor_node_set_translation(s, root, 0, (arbor_real)frame, 0));
            ASSERT_OK(arbor_node_set_visible(s, row, frame % 2 == 0));
            arbor_scene_update(s);
            ASSERT_OK(arbor_node_instance_world_matrix(s, row, 3, w));
            (void)arbor_node_effectively_visible(s, row);
            cull_count(s, plane, 1, out, 2, NULL);
            cull_instances(s, row, plane, 1, seen, 64, NULL);
            ASSERT_OK(arbor_scene_instance_batches(s, &row, 1, ARBOR_LAYOUT_MAT3X4, matrices, 64, &matrix_count, batches,
                                                   2, &batch_count));
        }
        if (warm) assert_int_equal(counts.allocs + counts.reallocs, before);
    }
    arbor_scene_destroy(s);
    assert_int_equal(counts.live_blocks, 0);
    assert_int_equal(counts.size_mismatches, 0);
}

/* ---- levels of detail ---------------------------------------------------------------------------- */

static void test_screen_coverage_and_lod(void **state) {
    (void)state;
    arbor_scene *s = new_scene(NULL);
    arbor_node camera = TEST_NODE(s, ARBOR_NONE, "camera", V3(0, 0, 10), NULL, NULL);
    arbor_camera cam = {.type = ARBOR_CAMERA_PERSPECTIVE, .yfov = 0.8f, .aspect = 1, .znear = 0.1f, .zfar = 100};
    ASSERT_OK(arbor_node_set_camera(s, camera, &cam));
    arbor_node hi = TEST_NODE(s, ARBOR_NONE, "hi", V3(0, 0, 0), NULL, NULL);
    arbor_node lo = TEST_NODE(s, ARBOR_NONE, "lo", V3(0, 0, 0), NULL, NULL);
    ASSERT_OK(arbor_node_set_bounds(s, hi, V3(-1, -1, -1), V3(1, 1, 1)));
    arbor_real vp[16];
    ASSERT_OK(arbor_camera_view_projection(s, camera, 1, vp));
    /* the sphere of radius sqrt(3) at distance 10: its height's share is r / (d tan(fov / 2)) */
    double expect = sqrt(3.0) / (10 * tan(0.4));
    ASSERT_NEAR(arbor_node_screen_coverage(s, hi, vp), expect, 1e-5);
    arbor_node levels[2] = {hi, lo};
    arbor_real coverage[2] = {0.5f, 0.2f};
    assert_int_equal(arbor_lod_pick(s, levels, coverage, 2, vp), 1); /* about 0.41 */
    ASSERT_OK(arbor_node_set_translation(s, camera, 0, 0, 30)); /* about 0.14 */
    ASSERT_OK(arbor_camera_view_projection(s, camera, 1, vp));
    assert_int_equal(arbor_lod_pick(s, levels, coverage, 2, vp), -1);
    ASSERT_OK(arbor_node_set_translation(s, camera, 0, 0, 5)); /* about 0.82 */
    ASSERT_OK(arbor_camera_view_projection(s, camera, 1, vp));
    ASSERT_NEAR(arbor_node_screen_coverage(s, hi, vp), sqrt(3.0) / (5 * tan(0.4)), 1e-5);
    assert_int_equal(arbor_lod_pick(s, levels, coverage, 2, vp), 0);
    assert_int_equal(arbor_lod_pick(s, levels, NULL, 2, vp), 0);
    ASSERT_OK(arbor_node_set_translation(s, camera, 0, 0, 0.5)); /* inside the sphere */
    ASSERT_OK(arbor_camera_view_projection(s, camera, 1, vp));
    ASSERT_NEAR(arbor_node_screen_coverage(s, hi, vp), 1, 0);
    assert_int_equal(arbor_lod_pick(s, levels, coverage, 2, vp), 0);
    ASSERT_NEAR(arbor_node_screen_coverage(s, lo, vp), -1, 0); /* no bounds */
    arbor_scene_destroy(s);
}

int main(void) {
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_instance_world_matrices),
        cmocka_unit_test(test_bounds_cull_and_gather),
        cmocka_unit_test(test_instance_batches_capacity),
        cmocka_unit_test(test_reads_check_arguments_before_handles),
        cmocka_unit_test(test_visibility_against_a_walk),
        cmocka_unit_test(test_journal_and_clones),
        cmocka_unit_test(test_no_allocation_once_warm),
        cmocka_unit_test(test_screen_coverage_and_lod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
