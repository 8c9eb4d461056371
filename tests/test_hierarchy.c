/* SPDX-License-Identifier: MIT */
/*
 * tests/test_hierarchy.c: the hierarchy operations of scene.h and their refusals (seed 001),
 * versions (seed 000: repeated ancestor movement through unread intermediates, reparent and
 * detach), and bit-for-bit equality of lazy reads and batch updates.
 *
 * Every refusal is checked to change nothing: links, sibling order, locals, world matrices,
 * versions and the node count are compared before and after, and arbor_last_error() must name
 * the function that refused.
 */
#include "test_util.h"
#include "support/dump.h" /* test_node_key: twins' handles */

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define TEST_HAVE_PTHREADS 1
#endif

/* ---- A snapshot of everything observable, to check that a refusal changed nothing ------------- */

#define SNAP_MAX 64

typedef struct node_snap {
    arbor_node n;
    bool alive, mb, locked;
    arbor_node parent, first, last, next, prev;
    uint32_t depth, child_count, subtree;
    arbor_trs trs;
    arbor_real local[16], world[16];
    uint64_t version;
    char name[32];
    void *user;
} node_snap;

typedef struct scene_snap {
    uint32_t count;
    arbor_node first_root, last_root;
    int n;
    node_snap nodes[SNAP_MAX];
    int order_n;
    arbor_node order[SNAP_MAX + 1];
} scene_snap;

static void snap_take(arbor_scene *s, const arbor_node *h, int n, scene_snap *out)
{
    memset(out, 0, sizeof *out);
    assert_true(n <= SNAP_MAX);
    out->count = arbor_scene_node_count(s);
    out->first_root = arbor_scene_first_root(s);
    out->last_root = arbor_scene_last_root(s);
    out->n = n;
    for (int i = 0; i < n; i++) {
        node_snap *ns = &out->nodes[i];
        ns->n = h[i];
        ns->alive = arbor_node_alive(s, h[i]);
        if (!ns->alive) continue;
        ns->mb = arbor_node_is_matrix_backed(s, h[i]);
        ns->locked = arbor_node_is_locked(s, h[i]);
        ns->parent = arbor_node_parent(s, h[i]);
        ns->first = arbor_node_first_child(s, h[i]);
        ns->last = arbor_node_last_child(s, h[i]);
        ns->next = arbor_node_next_sibling(s, h[i]);
        ns->prev = arbor_node_prev_sibling(s, h[i]);
        ns->depth = arbor_node_depth(s, h[i]);
        ns->child_count = arbor_node_child_count(s, h[i]);
        ns->subtree = arbor_node_collect_subtree(s, h[i], NULL, 0);
        ASSERT_OK(arbor_node_trs(s, h[i], &ns->trs));
        ASSERT_OK(arbor_node_local_matrix(s, h[i], ns->local));
        ASSERT_OK(arbor_node_world_matrix(s, h[i], ns->world));
        ns->version = arbor_node_world_version(s, h[i]);
        const char *nm = arbor_node_name(s, h[i]);
        if (nm) snprintf(ns->name, sizeof ns->name, "%s", nm);
        ns->user = arbor_node_user(s, h[i]);
    }
    arbor_node it = arbor_scene_next_node(s, ARBOR_NONE);
    while (!arbor_node_is_none(it) && out->order_n <= SNAP_MAX) {
        out->order[out->order_n++] = it;
        it = arbor_scene_next_node(s, it);
    }
}

static void snap_same_(const scene_snap *a, const scene_snap *b, const char *file, int line)
{
#define SNAP_CHECK(cond, ...)                                                                                  \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            print_error("a refused call changed the scene: " __VA_ARGS__);                                    \
            _fail(file, line);                                                                                 \
        }                                                                                                      \
    } while (0)
    SNAP_CHECK(a->count == b->count, "node count %u -> %u\n", a->count, b->count);
    SNAP_CHECK(a->first_root.id == b->first_root.id && a->last_root.id == b->last_root.id, "roots changed%s\n", "");
    SNAP_CHECK(a->order_n == b->order_n, "arbor_scene_next_node visits %d nodes, was %d\n", b->order_n, a->order_n);
    for (int i = 0; i < a->order_n; i++)
        SNAP_CHECK(a->order[i].id == b->order[i].id, "visit order differs at %d\n", i);
    for (int i = 0; i < a->n; i++) {
        const node_snap *x = &a->nodes[i], *y = &b->nodes[i];
        SNAP_CHECK(x->alive == y->alive, "node %d alive %d -> %d\n", i, x->alive, y->alive);
        if (!x->alive) continue;
        SNAP_CHECK(x->parent.id == y->parent.id, "node %d parent changed\n", i);
        SNAP_CHECK(x->first.id == y->first.id && x->last.id == y->last.id, "node %d children changed\n", i);
        SNAP_CHECK(x->next.id == y->next.id && x->prev.id == y->prev.id, "node %d siblings changed\n", i);
        SNAP_CHECK(x->depth == y->depth, "node %d depth %u -> %u\n", i, x->depth, y->depth);
        SNAP_CHECK(x->child_count == y->child_count, "node %d child count changed\n", i);
        SNAP_CHECK(x->subtree == y->subtree, "node %d subtree size changed\n", i);
        SNAP_CHECK(x->mb == y->mb && x->locked == y->locked, "node %d matrix-backed/locked changed\n", i);
        SNAP_CHECK(memcmp(&x->trs, &y->trs, sizeof x->trs) == 0, "node %d TRS changed\n", i);
        SNAP_CHECK(memcmp(x->local, y->local, sizeof x->local) == 0, "node %d local matrix changed\n", i);
        SNAP_CHECK(memcmp(x->world, y->world, sizeof x->world) == 0, "node %d world matrix changed\n", i);
        SNAP_CHECK(x->version == y->version, "node %d version changed\n", i);
        SNAP_CHECK(strcmp(x->name, y->name) == 0 && x->user == y->user, "node %d name or user changed\n", i);
    }
#undef SNAP_CHECK
}
#define SNAP_SAME(a, b) snap_same_((a), (b), __FILE__, __LINE__)

/* ---- The standard small tree --------------------------------------------------------------------
 *
 *   R                  R2
 *   |- A               |- D
 *   |  |- A1
 *   |  |  `- A1a
 *   |  `- A2
 *   |- B
 *   `- C
 *      `- C1
 */
typedef struct tree {
    arbor_node R, A, A1, A1a, A2, B, C, C1, R2, D;
    arbor_node all[10];
} tree;

static tree build_tree(arbor_scene *s)
{
    tree t;
    arbor_real q1[4], q2[4], q3[4];
    test_quat_axis_deg(q1, 0, 1, 0, 30);
    test_quat_axis_deg(q2, 1, 0, 0, -50);
    test_quat_axis_deg(q3, 0, 0.6, 0.8, 70);
    t.R = TEST_NODE(s, ARBOR_NONE, "R", V3(1, 2, 3), q1, V3(2, 2, 2));
    t.A = TEST_NODE(s, t.R, "A", V3(0, 1, 0), q2, NULL);
    t.A1 = TEST_NODE(s, t.A, "A1", V3(0.5, 0, 0), q3, V3(1, 1.5, 0.5));
    t.A1a = TEST_NODE(s, t.A1, "A1a", V3(0, 0, -1), NULL, NULL);
    t.A2 = TEST_NODE(s, t.A, "A2", V3(-0.5, 0, 0), q1, NULL);
    t.B = TEST_NODE(s, t.R, "B", V3(3, 0, 0), NULL, V3(0.5, 0.5, 0.5));
    t.C = TEST_NODE(s, t.R, "C", V3(0, 0, 4), q3, NULL);
    t.C1 = TEST_NODE(s, t.C, "C1", V3(0, 1, 1), q2, V3(3, 1, 1));
    t.R2 = TEST_NODE(s, ARBOR_NONE, "R2", V3(-5, 0, 0), q2, NULL);
    t.D = TEST_NODE(s, t.R2, "D", V3(0, 0, 1), NULL, NULL);
    arbor_node all[10] = { t.R, t.A, t.A1, t.A1a, t.A2, t.B, t.C, t.C1, t.R2, t.D };
    memcpy(t.all, all, sizeof all);
    return t;
}

static void expect_children_(arbor_scene *s, arbor_node parent, const arbor_node *kids, int n, const char *file,
                             int line)
{
    /* forward through next_sibling, backward through prev_sibling, first/last, count */
    arbor_node it = arbor_node_is_none(parent) ? arbor_scene_first_root(s) : arbor_node_first_child(s, parent);
    for (int i = 0; i < n; i++) {
        if (it.id != kids[i].id) {
            print_error("child %d in sibling order is %llu, expected %llu\n", i, (unsigned long long)it.id,
                        (unsigned long long)kids[i].id);
            _fail(file, line);
        }
        if (arbor_node_parent(s, it).id != parent.id) {
            print_error("child %d does not name its parent\n", i);
            _fail(file, line);
        }
        it = arbor_node_next_sibling(s, it);
    }
    if (!arbor_node_is_none(it)) {
        print_error("more than %d children\n", n);
        _fail(file, line);
    }
    it = arbor_node_is_none(parent) ? arbor_scene_last_root(s) : arbor_node_last_child(s, parent);
    for (int i = n - 1; i >= 0; i--) {
        if (it.id != kids[i].id) {
            print_error("walking back, child %d is wrong\n", i);
            _fail(file, line);
        }
        it = arbor_node_prev_sibling(s, it);
    }
    if (!arbor_node_is_none(it)) {
        print_error("walking back, something before the first child\n");
        _fail(file, line);
    }
    if (!arbor_node_is_none(parent) && arbor_node_child_count(s, parent) != (uint32_t)n) {
        print_error("child_count %u, expected %d\n", arbor_node_child_count(s, parent), n);
        _fail(file, line);
    }
}
#define EXPECT_CHILDREN(s, parent, ...)                                                                         \
    do {                                                                                                       \
        const arbor_node kids_[] = { __VA_ARGS__ };                                                           \
        expect_children_((s), (parent), kids_, (int)(sizeof kids_ / sizeof kids_[0]), __FILE__, __LINE__);    \
    } while (0)

static arbor_node dead_handle(arbor_scene *s)
{
    arbor_node x = TEST_NODE(s, ARBOR_NONE, "doomed", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_destroy(s, x));
    assert_false(arbor_node_alive(s, x));
    return x;
}

/* ---- Creation, destruction, handles ------------------------------------------------------------- */

/* A scale partly given (`.scale = {2}` is (2, 0, 0)) is refused, never read as a flattened node;
   all three given, or none, is taken. */
static void test_create_partial_scale_refused(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node n = ARBOR_NONE;
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_create",
                   arbor_node_create(s, &(arbor_node_desc){ .name = "a", .scale = { 2 } }, &n));
    assert_non_null(strstr(arbor_last_error(), "the scale (2, 0, 0) is partly given"));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_create",
                   arbor_node_create(s, &(arbor_node_desc){ .scale = { 1, 0, 1 } }, &n));
    ASSERT_NODE_NONE(n);
    assert_int_equal(arbor_scene_node_count(s), 0);
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .scale = { 2, 2, 2 } }, &n));
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, n, &trs));
    ASSERT_VEC3_NEAR(trs.scale, 2, 2, 2, 0);
    /* a flattened node: its zero scale written after the creation */
    ASSERT_OK(arbor_node_set_scale(s, n, 1, 0, 1));
    ASSERT_OK(arbor_node_trs(s, n, &trs));
    ASSERT_VEC3_NEAR(trs.scale, 1, 0, 1, 0);
    arbor_scene_destroy(s);
}

/* Messages name nodes by their path of names, an unnamed one by its place among its siblings;
   never by handle ids or generations. */
static void test_messages_name_nodes_by_path(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node base = TEST_NODE(s, ARBOR_NONE, "base", NULL, NULL, NULL);
    arbor_node joint = TEST_NODE(s, base, "joint", NULL, NULL, NULL);
    arbor_node arm = TEST_NODE(s, joint, "arm", NULL, NULL, NULL);
    TEST_NODE(s, arm, "first", NULL, NULL, NULL);
    arbor_node unnamed = TEST_NODE(s, arm, NULL, NULL, NULL, NULL);
    ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_node_set_parent(s, base, arm, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    assert_string_equal(arbor_last_error(),
                        "arbor_node_set_parent: node 'base' cannot go under its descendant 'base/joint/arm': that would make a ring");
    ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_node_set_parent(s, joint, unnamed, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    assert_string_equal(arbor_last_error(), "arbor_node_set_parent: node 'base/joint' cannot go under its descendant "
                                            "'base/joint/arm/[1]': that would make a ring");
    /* an unnamed root: its place among the roots */
    arbor_node second = TEST_NODE(s, ARBOR_NONE, NULL, NULL, NULL, NULL);
    ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_node_set_parent(s, second, second, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    assert_string_equal(arbor_last_error(), "arbor_node_set_parent: node '[1]' cannot go under itself, '[1]': that would make a ring");
    /* a deep path keeps its end */
    arbor_node n = base;
    for (int i = 0; i < 60; i++) n = TEST_NODE(s, n, "level", NULL, NULL, NULL);
    ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_node_set_parent(s, n, n, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    const char *msg = arbor_last_error();
    assert_non_null(strstr(msg, "node '.../level/level/"));
    assert_null(strstr(msg, "base"));
    /* a dead handle: said so, with no id */
    ASSERT_OK(arbor_node_destroy(s, second));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_translation", arbor_node_set_translation(s, second, 1, 2, 3));
    assert_string_equal(arbor_last_error(),
                        "arbor_node_set_translation: the node given is not alive (destroyed, or of another scene)");
    arbor_scene_destroy(s);
}

static void test_create_defaults(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    assert_int_equal(arbor_scene_node_count(s), 0);
    ASSERT_NODE_NONE(arbor_scene_first_root(s));
    ASSERT_NODE_NONE(arbor_scene_next_node(s, ARBOR_NONE));
    assert_int_equal(arbor_scene_max_depth(s), ARBOR_DEFAULT_MAX_DEPTH);

    arbor_node n = ARBOR_NONE;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ 0 }, &n));
    assert_true(arbor_node_alive(s, n));
    assert_int_not_equal(n.id, 0);
    assert_int_equal(arbor_scene_node_count(s), 1);
    ASSERT_NODE_NONE(arbor_node_parent(s, n));
    assert_int_equal(arbor_node_depth(s, n), 0);
    assert_null(arbor_node_name(s, n));
    assert_null(arbor_node_user(s, n));
    assert_false(arbor_node_is_matrix_backed(s, n));
    assert_false(arbor_node_is_locked(s, n));
    assert_int_not_equal(arbor_node_world_version(s, n), 0);

    arbor_real w[16], id[16];
    arbor_mat4_identity(id);
    TEST_WORLD(s, n, w);
    ASSERT_MAT4_NEAR(w, id, 0);
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, n, &trs));
    ASSERT_VEC3_NEAR(trs.translation, 0, 0, 0, 0);
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, 0, 0, 0, 1, 0);
    ASSERT_NEAR(trs.rotation[3], 1, 0);
    ASSERT_VEC3_NEAR(trs.scale, 1, 1, 1, 0);

    /* A rotation is normalised; a scale given whole is taken as given. */
    arbor_node m;
    ASSERT_OK(arbor_node_create(
        s, &(arbor_node_desc){ .parent = n, .rotation = { 0, 0, 2, 0 }, .scale = { -1, 1, 0.5f }, .name = "m" }, &m));
    ASSERT_OK(arbor_node_trs(s, m, &trs));
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, 0, 0, 1, 0, TEST_EPS);
    ASSERT_VEC3_NEAR(trs.scale, -1, 1, 0.5, 0);
    assert_int_equal(arbor_node_depth(s, m), 1);
    ASSERT_NODE_EQ(arbor_node_parent(s, m), n);
    assert_string_equal(arbor_node_name(s, m), "m");

    /* set_rotation normalises too. */
    ASSERT_OK(arbor_node_set_rotation(s, m, 0, 3, 0, 4));
    ASSERT_OK(arbor_node_trs(s, m, &trs));
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, 0, 0.6, 0, 0.8, TEST_EPS);
    arbor_scene_destroy(s);

    arbor_scene_destroy(NULL); /* allowed */
}

/* A finite, non-zero quaternion is normalised however large or small its components. */
static void test_rotation_normalised_extremes(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_node n = TEST_NODE(s, ARBOR_NONE, NULL, NULL, NULL, NULL);
    arbor_trs trs;
    ASSERT_OK(arbor_node_set_rotation(s, n, 0, 0, (arbor_real)3e19, (arbor_real)4e19));
    ASSERT_OK(arbor_node_trs(s, n, &trs));
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, 0, 0, 0.6, 0.8, TEST_EPS);
    ASSERT_OK(arbor_node_set_rotation(s, n, (arbor_real)-3e-25, 0, 0, (arbor_real)4e-25));
    ASSERT_OK(arbor_node_trs(s, n, &trs));
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, -0.6, 0, 0, 0.8, TEST_EPS);
    arbor_trs t = { { 0, 0, 0 }, { (arbor_real)1e30, 0, 0, (arbor_real)1e30 }, { 1, 1, 1 } };
    ASSERT_OK(arbor_node_set_trs(s, n, &t));
    ASSERT_OK(arbor_node_trs(s, n, &trs));
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, sqrt(0.5), 0, 0, sqrt(0.5), TEST_EPS);
    arbor_node m;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .rotation = { 0, (arbor_real)2e20, 0, 0 } }, &m));
    ASSERT_OK(arbor_node_trs(s, m, &trs));
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, 0, 1, 0, 0, TEST_EPS);
    arbor_real w[16];
    TEST_WORLD(s, m, w);
    ASSERT_VEC3_NEAR(&w[0], -1, 0, 0, TEST_EPS);
    arbor_scene_destroy(s);
}

static void test_scene_create_half_allocator(void **state)
{
    (void)state;
    test_counting_allocator c = { 0 };
    arbor_scene_desc d = { 0 };
    d.allocator.alloc = test_count_alloc;
    d.allocator.user = &c;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&d, &s), ARBOR_ERR_INVALID_ARGUMENT); /* alloc without free */
    assert_null(s);
    assert_non_null(strstr(arbor_last_error(), "arbor_scene_create: the allocator gives alloc without free"));
    memset(&d, 0, sizeof d);
    d.allocator.free = test_count_free;
    d.allocator.user = &c;
    assert_int_equal(arbor_scene_create(&d, &s), ARBOR_ERR_INVALID_ARGUMENT); /* free without alloc */
    assert_null(s);
    assert_int_equal(c.live_blocks, 0);
}

static void test_destroyed_handles_stay_dead(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_node a = TEST_NODE(s, ARBOR_NONE, "a", NULL, NULL, NULL);
    arbor_node b = TEST_NODE(s, ARBOR_NONE, "b", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_destroy(s, a));
    assert_false(arbor_node_alive(s, a));
    assert_true(arbor_node_alive(s, b));
    assert_int_equal(arbor_scene_node_count(s), 1);
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_destroy", arbor_node_destroy(s, a));

    /* Reuse the slot many times: the old handle never comes back. */
    arbor_node made[200];
    for (int i = 0; i < 200; i++) {
        made[i] = TEST_NODE(s, ARBOR_NONE, NULL, NULL, NULL, NULL);
        assert_int_not_equal(made[i].id, a.id);
        assert_false(arbor_node_alive(s, a));
        if (i % 2 == 0) ASSERT_OK(arbor_node_destroy(s, made[i]));
    }
    for (int i = 0; i < 200; i++) {
        assert_int_equal(arbor_node_alive(s, made[i]), i % 2 == 1);
        for (int j = 0; j < i; j++) assert_int_not_equal(made[i].id, made[j].id);
    }
    assert_int_equal(arbor_scene_node_count(s), 1 + 100);
    assert_false(arbor_node_alive(s, ARBOR_NONE));
    assert_false(arbor_node_alive(s, (arbor_node){ 0x7fffffffffffull }));
    assert_false(arbor_node_alive(s, (arbor_node){ UINT64_MAX }));
    arbor_scene_destroy(s);
}

static void test_dead_handle_calls(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    arbor_node x = dead_handle(s);
    arbor_real m[16];
    arbor_mat4_identity(m);
    arbor_trs trs = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };

    scene_snap before, after;
    snap_take(s, t.all, 10, &before);
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_translation", arbor_node_set_translation(s, x, 1, 2, 3));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_rotation", arbor_node_set_rotation(s, x, 0, 0, 0, 1));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_scale", arbor_node_set_scale(s, x, 1, 1, 1));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_trs", arbor_node_set_trs(s, x, &trs));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_local_matrix", arbor_node_set_local_matrix(s, x, m, false));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_trs", arbor_node_trs(s, x, &trs));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_local_matrix", arbor_node_local_matrix(s, x, m));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_world_matrix", arbor_node_world_matrix(s, x, m));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_name", arbor_node_set_name(s, x, "zombie"));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_user", arbor_node_set_user(s, x, &trs));
    arbor_node child;
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_create",
                   arbor_node_create(s, &(arbor_node_desc){ .parent = x }, &child));
    assert_int_equal(arbor_node_world_version(s, x), 0);
    ASSERT_NODE_NONE(arbor_node_parent(s, x));
    ASSERT_NODE_NONE(arbor_node_first_child(s, x));
    ASSERT_NODE_NONE(arbor_node_last_child(s, x));
    ASSERT_NODE_NONE(arbor_node_next_sibling(s, x));
    ASSERT_NODE_NONE(arbor_node_prev_sibling(s, x));
    assert_int_equal(arbor_node_depth(s, x), 0);
    assert_int_equal(arbor_node_child_count(s, x), 0);
    assert_int_equal(arbor_node_collect_subtree(s, x, NULL, 0), 0);
    assert_null(arbor_node_name(s, x));
    assert_null(arbor_node_user(s, x));
    assert_false(arbor_node_is_matrix_backed(s, x));
    assert_false(arbor_node_is_locked(s, x));
    assert_false(arbor_node_is_ancestor_of(s, x, t.A));
    assert_false(arbor_node_is_ancestor_of(s, t.R, x));
    snap_take(s, t.all, 10, &after);
    SNAP_SAME(&before, &after);
    arbor_scene_destroy(s);
}

/* The single-node reads take a short path for a live node whose world matrix is up to date (and,
   for the local, without a kept matrix): every other case must still reach the full one. A
   node made out of date by its parent's write, a kept shear, NULL arguments, and a handle read
   on the short path and then destroyed; values against double products of the inputs given
   here. */
static void test_single_node_reads_short_path(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_real qa[4], qb[4];
    test_quat_axis_deg(qa, 0, 0, 1, 30);
    test_quat_axis_deg(qb, 1, 0, 0, 50);
    arbor_node a = TEST_NODE(s, ARBOR_NONE, "a", V3(1, 2, 3), qa, NULL);
    arbor_node b = TEST_NODE(s, a, "b", V3(0.5, -1, 0.25), qb, V3(2, 1, 0.5));
    arbor_scene_update(s);
    double ta[3] = {1, 2, 3}, tb[3] = {0.5, -1, 0.25}, sb[3] = {2, 1, 0.5}, unit[3] = {1, 1, 1}, qad[4], qbd[4];
    test_reals_to_double(qad, qa, 4);
    test_reals_to_double(qbd, qb, 4);
    double la[16], lb[16], wb[16];
    test_ref_compose(la, ta, qad, unit);
    test_ref_compose(lb, tb, qbd, sb);
    test_ref_mul(wb, la, lb);
    arbor_real m[16];
    arbor_trs trs;
    TEST_WORLD(s, b, m);
    ASSERT_MAT4_NEAR_D_REL(m, wb, TEST_EPS);
    ASSERT_OK(arbor_node_local_matrix(s, b, m));
    ASSERT_MAT4_NEAR_D_REL(m, lb, TEST_EPS);
    ASSERT_OK(arbor_node_trs(s, b, &trs));
    assert_memory_equal(trs.translation, V3(0.5, -1, 0.25), sizeof trs.translation);
    assert_memory_equal(trs.rotation, qb, sizeof trs.rotation);
    assert_memory_equal(trs.scale, V3(2, 1, 0.5), sizeof trs.scale);

    /* The parent moves: b is out of date, and its next read computes it. */
    ASSERT_OK(arbor_node_set_translation(s, a, -4, 5, 0.5));
    ta[0] = -4, ta[1] = 5, ta[2] = 0.5;
    test_ref_compose(la, ta, qad, unit);
    test_ref_mul(wb, la, lb);
    TEST_WORLD(s, b, m);
    ASSERT_MAT4_NEAR_D_REL(m, wb, TEST_EPS);

    /* A shear is kept as b's local: the local read gives it, not a TRS's composition. */
    const arbor_real shear[16] = {1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0, 2, 0, -1, 1};
    ASSERT_OK(arbor_node_set_local_matrix(s, b, shear, false));
    arbor_scene_update(s);
    ASSERT_OK(arbor_node_local_matrix(s, b, m));
    ASSERT_REALS_BITS_EQUAL(m, shear, 16);
    test_reals_to_double(lb, shear, 16);
    test_ref_mul(wb, la, lb);
    TEST_WORLD(s, b, m);
    ASSERT_MAT4_NEAR_D_REL(m, wb, TEST_EPS);

    /* NULL arguments with a live, up-to-date node. */
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_world_matrix", arbor_node_world_matrix(s, b, NULL));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_local_matrix", arbor_node_local_matrix(s, a, NULL));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_trs", arbor_node_trs(s, a, NULL));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_world_matrix", arbor_node_world_matrix(NULL, b, m));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_local_matrix", arbor_node_local_matrix(s, ARBOR_NONE, m));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_trs", arbor_node_trs(NULL, a, &trs));

    /* Read on the short path, then destroyed: refused, nothing written. */
    TEST_WORLD(s, a, m);
    ASSERT_OK(arbor_node_destroy(s, a));
    arbor_real untouched[16];
    for (int k = 0; k < 16; k++) m[k] = untouched[k] = (arbor_real)(k + 100);
    arbor_trs trs_before = trs;
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_world_matrix", arbor_node_world_matrix(s, a, m));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_world_matrix", arbor_node_world_matrix(s, b, m));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_local_matrix", arbor_node_local_matrix(s, a, m));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_trs", arbor_node_trs(s, a, &trs));
    ASSERT_REALS_BITS_EQUAL(m, untouched, 16);
    assert_memory_equal(&trs, &trs_before, sizeof trs);
    arbor_scene_destroy(s);
}

/* Many world matrices in one call: each as the double product of its locals, out-of-date ones
   (a parent moved) computed, a node given twice written twice; a dead node or ARBOR_NONE
   anywhere refused with its index before anything is written. */
static void test_world_matrices_many(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_real qa[4], qb[4];
    test_quat_axis_deg(qa, 0, 1, 0, 40);
    test_quat_axis_deg(qb, 1, 0, 0, -70);
    arbor_node a = TEST_NODE(s, ARBOR_NONE, "a", V3(1, -2, 3), qa, NULL);
    arbor_node b = TEST_NODE(s, a, "b", V3(0.5, 1, -0.25), qb, V3(1, 2, 3));
    arbor_node c = TEST_NODE(s, b, "c", V3(0, 0, 2), NULL, NULL);
    arbor_scene_update(s);
    ASSERT_OK(arbor_node_set_translation(s, a, 4, 0.5, -1)); /* b and c out of date */
    double ta[3] = {4, 0.5, -1}, tb[3] = {0.5, 1, -0.25}, sb[3] = {1, 2, 3}, tc[3] = {0, 0, 2}, unit[3] = {1, 1, 1};
    double qad[4], qbd[4], q1[4] = {0, 0, 0, 1};
    test_reals_to_double(qad, qa, 4);
    test_reals_to_double(qbd, qb, 4);
    double la[16], lb[16], lc[16], wb[16], wc[16];
    test_ref_compose(la, ta, qad, unit);
    test_ref_compose(lb, tb, qbd, sb);
    test_ref_compose(lc, tc, q1, unit);
    test_ref_mul(wb, la, lb);
    test_ref_mul(wc, wb, lc);
    const double *want[4] = {wc, la, wb, wc};
    arbor_node nodes[4] = {c, a, b, c};
    arbor_real out[64];
    ASSERT_OK(arbor_scene_world_matrices(s, nodes, 4, out));
    for (int i = 0; i < 4; i++) ASSERT_MAT4_NEAR_D_REL(out + 16 * i, want[i], TEST_EPS);
    ASSERT_OK(arbor_scene_world_matrices(s, NULL, 0, NULL));

    /* Refusals: nothing written. */
    arbor_real untouched[64];
    for (int k = 0; k < 64; k++) out[k] = untouched[k] = (arbor_real)(k + 100);
    ASSERT_OK(arbor_node_set_translation(s, a, 0, 0, 0));
    nodes[2] = ARBOR_NONE;
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "nodes[2] is ARBOR_NONE", arbor_scene_world_matrices(s, nodes, 4, out));
    nodes[2] = b;
    arbor_node gone = TEST_NODE(s, ARBOR_NONE, "gone", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_destroy(s, gone));
    nodes[3] = gone;
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "nodes[3]", arbor_scene_world_matrices(s, nodes, 4, out));
    ASSERT_REALS_BITS_EQUAL(out, untouched, 64);
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "out is NULL", arbor_scene_world_matrices(s, nodes, 3, NULL));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "s is NULL", arbor_scene_world_matrices(NULL, nodes, 3, out));
    arbor_scene_destroy(s);
}

/* A create that runs out of memory creates nothing and leaves the scene usable. */
static void test_out_of_memory_refusal(void **state)
{
    (void)state;
    test_counting_allocator c = { 0 };
    arbor_scene_desc d = { 0 };
    d.allocator = test_counting_allocator_hooks(&c, true);
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&d, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_node first = TEST_NODE(s, ARBOR_NONE, NULL, V3(1, 2, 3), NULL, NULL);
    c.fail_all = true;
    arbor_result r = ARBOR_OK;
    uint32_t made = 1;
    arbor_node last = first;
    for (int i = 0; i < (1 << 20) && r == ARBOR_OK; i++) {
        arbor_node n;
        r = arbor_node_create(s, &(arbor_node_desc){ .parent = last, .translation = { 1, 0, 0 } }, &n);
        if (r == ARBOR_OK) {
            made++;
            last = n;
        }
    }
    assert_int_equal(r, ARBOR_ERR_OUT_OF_MEMORY);
    assert_true(arbor_last_error()[0] != '\0');
    assert_true(c.failed > 0);
    assert_int_equal(arbor_scene_node_count(s), made);
    /* A name that cannot be copied: refused, the old name kept; a named create refused too. */
    ASSERT_OK(arbor_node_set_name(s, first, NULL));
    arbor_node unnamed = first;
    c.fail_all = false;
    ASSERT_OK(arbor_node_set_name(s, unnamed, "first"));
    c.fail_all = true;
    ASSERT_REFUSED(ARBOR_ERR_OUT_OF_MEMORY, "arbor_node_set_name", arbor_node_set_name(s, unnamed, "renamed"));
    assert_string_equal(arbor_node_name(s, unnamed), "first");
    arbor_node named;
    ASSERT_REFUSED(ARBOR_ERR_OUT_OF_MEMORY, "arbor_node_create",
                   arbor_node_create(s, &(arbor_node_desc){ .name = "a name to copy", .parent = first }, &named));
    assert_int_equal(arbor_scene_node_count(s), made);
    assert_int_equal(arbor_node_child_count(s, first), made > 1 ? 1 : 0);
    c.fail_all = false;
    arbor_node more = TEST_NODE(s, last, NULL, V3(1, 0, 0), NULL, NULL);
    arbor_real p[3];
    TEST_WORLD_ORIGIN(s, more, p);
    ASSERT_VEC3_NEAR(p, 1 + made, 2, 3, 0);
    assert_int_equal(arbor_node_depth(s, more), made);
    arbor_scene_destroy(s);
    assert_int_equal(c.live_blocks, 0);
    assert_int_equal(c.size_mismatches, 0);

    /* A scene that cannot get its memory is ARBOR_ERR_OUT_OF_MEMORY with no scene, and leaks nothing, wherever it fails. */
    for (uint64_t allow = 0; allow < 4; allow++) {
        test_counting_allocator c2;
        memset(&c2, 0, sizeof c2);
        c2.limited = true;
        c2.allow = allow;
        arbor_scene_desc d2 = { 0 };
        d2.allocator = test_counting_allocator_hooks(&c2, true);
        d2.initial_capacity = 100;
        arbor_scene *s2 = NULL;
        arbor_result made = arbor_scene_create(&d2, &s2);
        if (made == ARBOR_OK) {
            c2.limited = false;
            arbor_node n = TEST_NODE(s2, ARBOR_NONE, "n", V3(1, 2, 3), NULL, NULL);
            arbor_real p2[3];
            TEST_WORLD_ORIGIN(s2, n, p2);
            ASSERT_VEC3_NEAR(p2, 1, 2, 3, 0);
            arbor_scene_destroy(s2);
        } else {
            assert_int_equal(made, ARBOR_ERR_OUT_OF_MEMORY);
            assert_null(s2);
            assert_true(c2.failed > 0);
        }
        assert_int_equal(c2.live_blocks, 0);
        assert_int_equal(c2.size_mismatches, 0);
    }
}

/* ---- Sibling order ------------------------------------------------------------------------------- */

static void test_sibling_order_insert_before(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_node P = TEST_NODE(s, ARBOR_NONE, "P", NULL, NULL, NULL);
    arbor_node a = TEST_NODE(s, P, "a", NULL, NULL, NULL);
    arbor_node b = TEST_NODE(s, P, "b", NULL, NULL, NULL);
    arbor_node c = TEST_NODE(s, P, "c", NULL, NULL, NULL);
    arbor_node d = TEST_NODE(s, ARBOR_NONE, "d", NULL, NULL, NULL);
    arbor_node e = TEST_NODE(s, ARBOR_NONE, "e", NULL, NULL, NULL);
    EXPECT_CHILDREN(s, P, a, b, c);
    EXPECT_CHILDREN(s, ARBOR_NONE, P, d, e);

    ASSERT_OK(arbor_node_set_parent(s, d, P, b, ARBOR_KEEP_LOCAL));
    EXPECT_CHILDREN(s, P, a, d, b, c);
    ASSERT_OK(arbor_node_set_parent(s, e, P, a, ARBOR_KEEP_LOCAL));
    EXPECT_CHILDREN(s, P, e, a, d, b, c);
    EXPECT_CHILDREN(s, ARBOR_NONE, P);
    ASSERT_NODE_EQ(arbor_node_first_child(s, P), e);
    ASSERT_NODE_EQ(arbor_node_last_child(s, P), c);
    assert_int_equal(arbor_node_depth(s, e), 1);

    /* Appending goes last. */
    arbor_node f = TEST_NODE(s, ARBOR_NONE, "f", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_set_parent(s, f, P, ARBOR_NONE, ARBOR_KEEP_WORLD));
    EXPECT_CHILDREN(s, P, e, a, d, b, c, f);
    arbor_scene_destroy(s);
}

static void test_reorder_within_parent_changes_no_transform(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_real q[4];
    test_quat_axis_deg(q, 0.6, 0.8, 0, 35);
    arbor_node P = TEST_NODE(s, ARBOR_NONE, "P", V3(1, 2, 3), q, V3(2, 1, 0.5));
    arbor_node a = TEST_NODE(s, P, "a", V3(1, 0, 0), q, V3(1, 2, 3));
    arbor_node b = TEST_NODE(s, P, "b", V3(0, 1, 0), NULL, NULL);
    arbor_node c = TEST_NODE(s, P, "c", V3(0, 0, 1), q, NULL);
    arbor_node ca = TEST_NODE(s, c, "ca", V3(0, 0, 1), q, NULL);
    arbor_node all[5] = { P, a, b, c, ca };
    scene_snap s0, s1;
    snap_take(s, all, 5, &s0);

    ASSERT_OK(arbor_node_set_parent(s, c, P, a, ARBOR_KEEP_LOCAL));
    EXPECT_CHILDREN(s, P, c, a, b);
    ASSERT_OK(arbor_node_set_parent(s, a, P, ARBOR_NONE, ARBOR_KEEP_WORLD));
    EXPECT_CHILDREN(s, P, c, b, a);
    ASSERT_OK(arbor_node_set_parent(s, b, P, c, ARBOR_KEEP_WORLD));
    EXPECT_CHILDREN(s, P, b, c, a);

    snap_take(s, all, 5, &s1);
    for (int i = 0; i < 5; i++) {
        const node_snap *x = &s0.nodes[i], *y = &s1.nodes[i];
        assert_memory_equal(&x->trs, &y->trs, sizeof x->trs);
        assert_false(y->mb);
        assert_memory_equal(x->local, y->local, sizeof x->local);
        assert_memory_equal(x->world, y->world, sizeof x->world);
        assert_int_equal(x->depth, y->depth);
        /* a reorder is not a reparent: no world matrix may have changed */
        assert_int_equal(x->version, y->version);
    }
    arbor_scene_destroy(s);
}

static void test_before_equal_child(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_node P = TEST_NODE(s, ARBOR_NONE, "P", V3(1, 0, 0), NULL, NULL);
    arbor_node a = TEST_NODE(s, P, "a", NULL, NULL, NULL);
    arbor_node b = TEST_NODE(s, P, "b", NULL, NULL, NULL);
    arbor_node c = TEST_NODE(s, P, "c", NULL, NULL, NULL);
    arbor_node x = TEST_NODE(s, ARBOR_NONE, "x", V3(0, 5, 0), NULL, NULL);

    /* Same parent: the child keeps its place. */
    ASSERT_OK(arbor_node_set_parent(s, b, P, b, ARBOR_KEEP_LOCAL));
    EXPECT_CHILDREN(s, P, a, b, c);
    ASSERT_OK(arbor_node_set_parent(s, a, P, a, ARBOR_KEEP_WORLD));
    EXPECT_CHILDREN(s, P, a, b, c);
    /* New parent: appended. */
    ASSERT_OK(arbor_node_set_parent(s, x, P, x, ARBOR_KEEP_LOCAL));
    EXPECT_CHILDREN(s, P, a, b, c, x);
    arbor_real p[3];
    TEST_WORLD_ORIGIN(s, x, p);
    ASSERT_VEC3_NEAR(p, 1, 5, 0, TEST_EPS);
    EXPECT_CHILDREN(s, ARBOR_NONE, P);
    arbor_scene_destroy(s);
}

static void test_roots_are_siblings(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_node r1 = TEST_NODE(s, ARBOR_NONE, "r1", NULL, NULL, NULL);
    arbor_node r2 = TEST_NODE(s, ARBOR_NONE, "r2", V3(0, 1, 0), NULL, NULL);
    arbor_node r3 = TEST_NODE(s, ARBOR_NONE, "r3", NULL, NULL, NULL);
    arbor_node k = TEST_NODE(s, r1, "k", NULL, NULL, NULL);
    EXPECT_CHILDREN(s, ARBOR_NONE, r1, r2, r3);
    ASSERT_NODE_EQ(arbor_scene_first_root(s), r1);
    ASSERT_NODE_EQ(arbor_scene_last_root(s), r3);

    ASSERT_OK(arbor_node_set_parent(s, r2, r1, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    EXPECT_CHILDREN(s, ARBOR_NONE, r1, r3);
    EXPECT_CHILDREN(s, r1, k, r2);
    /* Detached: appended to the roots. */
    ASSERT_OK(arbor_node_set_parent(s, r2, ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    EXPECT_CHILDREN(s, ARBOR_NONE, r1, r3, r2);
    /* Among the roots, before a root. */
    ASSERT_OK(arbor_node_set_parent(s, r2, ARBOR_NONE, r1, ARBOR_KEEP_LOCAL));
    EXPECT_CHILDREN(s, ARBOR_NONE, r2, r1, r3);
    ASSERT_NODE_EQ(arbor_scene_first_root(s), r2);
    ASSERT_OK(arbor_node_set_parent(s, r3, ARBOR_NONE, r3, ARBOR_KEEP_LOCAL));
    EXPECT_CHILDREN(s, ARBOR_NONE, r2, r1, r3);
    /* A child detached before a root. */
    ASSERT_OK(arbor_node_set_parent(s, k, ARBOR_NONE, r3, ARBOR_KEEP_LOCAL));
    EXPECT_CHILDREN(s, ARBOR_NONE, r2, r1, k, r3);
    assert_int_equal(arbor_node_child_count(s, r1), 0);
    /* A 'before' that is not a root. */
    arbor_node k2 = TEST_NODE(s, r1, "k2", NULL, NULL, NULL);
    arbor_node k3 = TEST_NODE(s, r1, "k3", NULL, NULL, NULL);
    ASSERT_REFUSED(ARBOR_ERR_NOT_A_CHILD, "arbor_node_set_parent",
                   arbor_node_set_parent(s, k3, ARBOR_NONE, k2, ARBOR_KEEP_LOCAL));
    EXPECT_CHILDREN(s, r1, k2, k3);
    arbor_scene_destroy(s);
}

/* ---- Reparenting: keep local, keep world --------------------------------------------------------- */


/* The node's world matrix computed here, in double, from the locals as the test gave them (TRS,
   or the matrix of a matrix-backed node) up to its root: W = L_root * .. * L_n. Independent of
   arbor's composition and products. */
static void ref_world(arbor_scene *s, arbor_node n, double out[16]) {
    arbor_node chain[64];
    int count = 0;
    for (arbor_node a = n; !arbor_node_is_none(a) && count < 64; a = arbor_node_parent(s, a)) chain[count++] = a;
    double w[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, l[16], next[16];
    while (count--) {
        if (arbor_node_is_matrix_backed(s, chain[count])) {
            arbor_real m[16];
            ASSERT_OK(arbor_node_local_matrix(s, chain[count], m));
            for (int k = 0; k < 16; k++) l[k] = (double)m[k];
        } else {
            arbor_trs trs;
            ASSERT_OK(arbor_node_trs(s, chain[count], &trs));
            double t[3], q[4], sc[3];
            for (int k = 0; k < 3; k++) t[k] = trs.translation[k], sc[k] = trs.scale[k];
            for (int k = 0; k < 4; k++) q[k] = trs.rotation[k];
            test_ref_compose(l, t, q, sc);
        }
        test_ref_mul(next, w, l);
        memcpy(w, next, sizeof w);
    }
    memcpy(out, w, sizeof w);
}
/* arbor's world matrix of n is ref_world's within tol (relative to the larger entries). */
#define ASSERT_WORLD_REF(s, n, tol)                                                      \
    do {                                                                                 \
        double ref_[16];                                                                 \
        arbor_real got_[16];                                                             \
        ref_world((s), (n), ref_);                                                       \
        TEST_WORLD((s), (n), got_);                                                      \
        test_mat4_near_(got_, ref_, (double)(tol), true, "world of " #n, __FILE__, __LINE__); \
    } while (0)
/* Matrix m (a world before a keep-world move) is ref_world(n) within tol. */
#define ASSERT_REF_WORLD_IS(s, n, m, tol)                                                \
    do {                                                                                 \
        double ref_[16];                                                                 \
        ref_world((s), (n), ref_);                                                       \
        test_mat4_near_((m), ref_, (double)(tol), true, "kept world of " #n, __FILE__, __LINE__); \
    } while (0)

static void test_keep_local_follows_new_parent(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    arbor_trs before_trs, after_trs;
    ASSERT_OK(arbor_node_trs(s, t.A1, &before_trs));
    uint64_t v = arbor_node_world_version(s, t.A1a);
    ASSERT_OK(arbor_node_set_parent(s, t.A1, t.D, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_node_trs(s, t.A1, &after_trs));
    assert_memory_equal(&before_trs, &after_trs, sizeof before_trs);
    ASSERT_NODE_EQ(arbor_node_parent(s, t.A1), t.D);
    assert_int_equal(arbor_node_depth(s, t.A1), 2);
    assert_int_equal(arbor_node_depth(s, t.A1a), 3);
    assert_int_not_equal(arbor_node_world_version(s, t.A1a), v);

    /* the worlds follow the new parent: W_D * L_A1 (* L_A1a), computed here in double */
    ASSERT_WORLD_REF(s, t.A1, TEST_EPS);
    ASSERT_WORLD_REF(s, t.A1a, TEST_EPS);
    EXPECT_CHILDREN(s, t.A, t.A2);
    EXPECT_CHILDREN(s, t.D, t.A1);
    arbor_scene_destroy(s);
}

static void test_detach_keep_local(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    arbor_trs trs0, trs1;
    arbor_real w0[16], w1[16], l[16];
    ASSERT_OK(arbor_node_trs(s, t.C1, &trs0));
    TEST_WORLD(s, t.C1, w0);
    uint64_t v0 = arbor_node_world_version(s, t.C1);

    ASSERT_OK(arbor_node_set_parent(s, t.C1, ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_NODE_NONE(arbor_node_parent(s, t.C1));
    assert_int_equal(arbor_node_depth(s, t.C1), 0);
    assert_int_equal(arbor_node_child_count(s, t.C), 0);
    EXPECT_CHILDREN(s, ARBOR_NONE, t.R, t.R2, t.C1);
    ASSERT_OK(arbor_node_trs(s, t.C1, &trs1));
    assert_memory_equal(&trs0, &trs1, sizeof trs0);
    /* A root's world matrix is its local. */
    TEST_WORLD(s, t.C1, w1);
    ASSERT_OK(arbor_node_local_matrix(s, t.C1, l));
    ASSERT_REALS_BITS_EQUAL(w1, l, 16);
    assert_true(memcmp(w0, w1, sizeof w0) != 0);
    assert_int_not_equal(arbor_node_world_version(s, t.C1), v0);
    arbor_scene_destroy(s);
}

/* The new local TRS reproduces the kept world matrix: rotation a unit quaternion, and
   W_parent * compose(trs) == W_before. */
static void check_trs_reproduces_(arbor_scene *s, arbor_node n, const arbor_real *w_before, const char *file, int line)
{
    arbor_trs trs;
    if (arbor_node_trs(s, n, &trs) != ARBOR_OK) _fail(file, line);
    double len = test_quat_len(trs.rotation);
    if (!(fabs(len - 1) <= TEST_EPS_ROUNDTRIP)) {
        print_error("the new local rotation is not a unit quaternion (length %g)\n", len);
        _fail(file, line);
    }
    double ref[16]; /* W_parent * compose(new TRS), in double */
    ref_world(s, n, ref);
    test_mat4_near_(w_before, ref, TEST_EPS_ROUNDTRIP, true, "W_parent * compose(new TRS)", file, line);
    arbor_real w[16];
    test_world_(s, n, w, file, line);
    test_mat4_near_real_(w, w_before, TEST_EPS_ROUNDTRIP, true, "the kept world matrix", file, line);
}
#define CHECK_TRS_REPRODUCES(s, n, w_before) check_trs_reproduces_((s), (n), (w_before), __FILE__, __LINE__)

static void test_detach_keep_world(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    arbor_real w0[16], wc0[16];
    TEST_WORLD(s, t.A1, w0);
    TEST_WORLD(s, t.A1a, wc0);
    ASSERT_OK(arbor_node_set_parent(s, t.A1, ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_WORLD));
    ASSERT_NODE_NONE(arbor_node_parent(s, t.A1));
    assert_false(arbor_node_is_matrix_backed(s, t.A1));
    CHECK_TRS_REPRODUCES(s, t.A1, w0);
    /* The root's TRS is the world's: translation is the world translation. */
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, t.A1, &trs));
    ASSERT_VEC3_NEAR(trs.translation, w0[12], w0[13], w0[14], TEST_EPS_ROUNDTRIP * 10);
    /* R's uniform scale 2 times A1's (1, 1.5, 0.5). */
    ASSERT_VEC3_NEAR(trs.scale, 2, 3, 1, TEST_EPS_ROUNDTRIP * 10);
    /* The child rides along. */
    arbor_real w[16];
    TEST_WORLD(s, t.A1a, w);
    ASSERT_MAT4_NEAR_REL(w, wc0, TEST_EPS_ROUNDTRIP);
    arbor_scene_destroy(s);
}

static void test_keep_world_plain(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_real qa[4], qb[4], qc[4];
    test_quat_axis_deg(qa, 0, 1, 0, 40);
    test_quat_axis_deg(qb, 0.48, 0.6, 0.64, -75);
    test_quat_axis_deg(qc, 1, 0, 0, 20);
    arbor_node A = TEST_NODE(s, ARBOR_NONE, "A", V3(1, 2, 3), qa, V3(2, 2, 2));
    arbor_node B = TEST_NODE(s, ARBOR_NONE, "B", V3(-4, 0.5, 1), qb, V3(0.5, 0.5, 0.5));
    arbor_node c = TEST_NODE(s, A, "c", V3(0.5, -1, 2), qc, V3(1, 2, 3));
    arbor_node g = TEST_NODE(s, c, "g", V3(0, 1, 0), qa, NULL);
    arbor_real wc[16], wg[16], w[16];
    TEST_WORLD(s, c, wc);
    TEST_WORLD(s, g, wg);

    ASSERT_OK(arbor_node_set_parent(s, c, B, ARBOR_NONE, ARBOR_KEEP_WORLD));
    ASSERT_NODE_EQ(arbor_node_parent(s, c), B);
    assert_false(arbor_node_is_matrix_backed(s, c));
    CHECK_TRS_REPRODUCES(s, c, wc);
    /* The new local is inverse(W_B) * W_c: W_B times it, in double, is the world kept. */
    ASSERT_REF_WORLD_IS(s, c, wc, TEST_EPS_ROUNDTRIP);
    /* Scale: 2 / 0.5 = 4 times (1, 2, 3). */
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, c, &trs));
    ASSERT_VEC3_NEAR(trs.scale, 4, 8, 12, TEST_EPS_ROUNDTRIP * 100);
    TEST_WORLD(s, g, w);
    ASSERT_MAT4_NEAR_REL(w, wg, TEST_EPS_ROUNDTRIP);
    arbor_scene_update(s);
    TEST_WORLD(s, c, w);
    ASSERT_MAT4_NEAR_REL(w, wc, TEST_EPS_ROUNDTRIP);
    arbor_scene_destroy(s);
}

static void test_keep_world_mirror(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_real qm[4], qc[4];
    test_quat_axis_deg(qm, 0, 1, 0, 25);
    test_quat_axis_deg(qc, 0, 0, 1, 30);
    arbor_node M = TEST_NODE(s, ARBOR_NONE, "mirror", V3(0, 1, 0), qm, V3(-1, 1, 1));
    arbor_node c = TEST_NODE(s, ARBOR_NONE, "c", V3(1, 2, 3), qc, NULL);
    arbor_real w0[16], w[16], l[16];
    TEST_WORLD(s, c, w0);
    ASSERT_NEAR(arbor_mat4_determinant3(w0), 1, TEST_EPS);

    /* Into the mirror: the kept local has a reflection, on Y. */
    ASSERT_OK(arbor_node_set_parent(s, c, M, ARBOR_NONE, ARBOR_KEEP_WORLD));
    assert_false(arbor_node_is_matrix_backed(s, c));
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, c, &trs));
    ASSERT_VEC3_NEAR(trs.scale, 1, -1, 1, TEST_EPS_ROUNDTRIP);
    ASSERT_OK(arbor_node_local_matrix(s, c, l));
    ASSERT_NEAR(arbor_mat4_determinant3(l), -1, TEST_EPS_ROUNDTRIP);
    CHECK_TRS_REPRODUCES(s, c, w0);
    TEST_WORLD(s, c, w);
    ASSERT_NEAR(arbor_mat4_determinant3(w), 1, TEST_EPS_ROUNDTRIP);

    /* Out again: no reflection left. */
    ASSERT_OK(arbor_node_set_parent(s, c, ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_WORLD));
    ASSERT_OK(arbor_node_trs(s, c, &trs));
    ASSERT_VEC3_NEAR(trs.scale, 1, 1, 1, TEST_EPS_ROUNDTRIP);
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, qc[0], qc[1], qc[2], qc[3], TEST_EPS_ROUNDTRIP);
    CHECK_TRS_REPRODUCES(s, c, w0);

    /* A mirrored child (det W < 0) taken out of the mirror keeps its reflection, on Y. */
    arbor_node m = TEST_NODE(s, M, "mirrored", V3(0.5, 0, 0), qc, V3(1, 2, 1));
    arbor_real wm[16];
    TEST_WORLD(s, m, wm);
    /* W = R(qm) S(-1, 1, 1) R(qc) S(1, 2, 1): rotations and a reflection times S(1, 2, 1), so its
       columns are 1, 2 and 1 long and det W = -2 */
    ASSERT_NEAR(arbor_mat4_determinant3(wm), -2, TEST_EPS);
    ASSERT_OK(arbor_node_set_parent(s, m, ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_WORLD));
    ASSERT_OK(arbor_node_trs(s, m, &trs));
    ASSERT_VEC3_NEAR(trs.scale, 1, -2, 1, TEST_EPS_ROUNDTRIP);
    CHECK_TRS_REPRODUCES(s, m, wm);
    TEST_WORLD(s, m, w);
    ASSERT_NEAR(arbor_mat4_determinant3(w), -2, TEST_EPS_ROUNDTRIP);
    arbor_scene_destroy(s);
}

static void test_keep_world_matrix_backed(void **state)
{
    (void)state;
    for (int locked = 0; locked <= 1; locked++) {
        arbor_scene *s = NULL;
        assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
        assert_non_null(s);
        arbor_real q1[4], q2[4], qm[4], m[16];
        test_quat_axis_deg(q1, 0, 1, 0, 50);
        test_quat_axis_deg(q2, 0, 0, 1, -20);
        test_quat_axis_deg(qm, 1, 0, 0, 30);
        arbor_mat4_compose(m, V3(10, 20, 30), qm, V3(2, 1, 0.5));
        arbor_node P1 = TEST_NODE(s, ARBOR_NONE, "P1", V3(1, 1, 1), q1, V3(3, 3, 3));
        arbor_node P2 = TEST_NODE(s, ARBOR_NONE, "P2", V3(-1, 0, 2), q2, V3(0.25, 0.25, 0.25));
        arbor_node n;
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = P1, .matrix = m, .lock_matrix = locked != 0 },
                                    &n));
        assert_true(arbor_node_is_matrix_backed(s, n));
        assert_int_equal(arbor_node_is_locked(s, n), locked != 0);

        /* Keep-local keeps the matrix, and its lock. */
        arbor_real l[16], w0[16], w[16];
        ASSERT_OK(arbor_node_set_parent(s, n, P2, ARBOR_NONE, ARBOR_KEEP_LOCAL));
        assert_true(arbor_node_is_matrix_backed(s, n));
        assert_int_equal(arbor_node_is_locked(s, n), locked != 0);
        ASSERT_OK(arbor_node_local_matrix(s, n, l));
        ASSERT_REALS_BITS_EQUAL(l, m, 16);

        /* Keep-world hands control back to TRS. */
        TEST_WORLD(s, n, w0);
        ASSERT_OK(arbor_node_set_parent(s, n, P1, ARBOR_NONE, ARBOR_KEEP_WORLD));
        assert_false(arbor_node_is_matrix_backed(s, n));
        assert_false(arbor_node_is_locked(s, n));
        CHECK_TRS_REPRODUCES(s, n, w0);
        ASSERT_OK(arbor_node_set_translation(s, n, 0, 0, 0));
        TEST_WORLD(s, n, w);
        arbor_real wp1[16];
        TEST_WORLD(s, P1, wp1);
        ASSERT_VEC3_NEAR(&w[12], wp1[12], wp1[13], wp1[14], TEST_EPS);
        arbor_scene_destroy(s);
    }
}

/* Keep-world under a non-uniform parent of a rotated child: the new local has a shear. */
static void test_keep_world_shear_becomes_matrix(void **state)
{
    (void)state;
    for (int variant = 0; variant < 3; variant++) {
        arbor_scene *s = NULL;
        assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
        assert_non_null(s);
        arbor_real rz45[4], m[16];
        test_quat_axis_deg(rz45, 0, 0, 1, 45);
        arbor_node P = TEST_NODE(s, ARBOR_NONE, "P", V3(0, 1, 0), NULL, V3(2, 1, 1));
        arbor_node c;
        if (variant == 0) {
            c = TEST_NODE(s, ARBOR_NONE, "c", V3(1, 1, 0), rz45, NULL);
        } else {
            /* a matrix-backed child, unlocked (1) or locked (2) */
            arbor_mat4_compose(m, V3(1, 1, 0), rz45, NULL);
            ASSERT_OK(arbor_node_create(
                s, &(arbor_node_desc){ .name = "c", .matrix = m, .lock_matrix = variant == 2 }, &c));
        }
        arbor_node g = TEST_NODE(s, c, "g", V3(1, 0, 0), NULL, NULL);
        arbor_real wc[16], wg[16], l[16], w[16];
        TEST_WORLD(s, c, wc);
        TEST_WORLD(s, g, wg);

        ASSERT_OK(arbor_node_set_parent(s, c, P, ARBOR_NONE, ARBOR_KEEP_WORLD));
        assert_true(arbor_node_is_matrix_backed(s, c));
        assert_false(arbor_node_is_locked(s, c));
        ASSERT_REF_WORLD_IS(s, c, wc, TEST_EPS); /* W_P * the new local, in double, is the world kept */
        ASSERT_OK(arbor_node_local_matrix(s, c, l));
        assert_false(arbor_mat4_decompose(l, NULL, NULL, NULL));
        /* columns of S(0.5,1,1) R_z(45): (0.354, 0.707, 0), (-0.354, 0.707, 0) */
        ASSERT_VEC3_NEAR(&l[0], 0.5 * sqrt(0.5), sqrt(0.5), 0, TEST_EPS);
        ASSERT_VEC3_NEAR(&l[4], -0.5 * sqrt(0.5), sqrt(0.5), 0, TEST_EPS);
        TEST_WORLD(s, c, w);
        ASSERT_MAT4_NEAR_REL(w, wc, TEST_EPS);
        TEST_WORLD(s, g, w);
        ASSERT_MAT4_NEAR_REL(w, wg, TEST_EPS);

        /* Unlocked: a TRS write makes it TRS-driven again. */
        ASSERT_OK(arbor_node_set_translation(s, c, 0, 0, 0));
        assert_false(arbor_node_is_matrix_backed(s, c));
        arbor_scene_destroy(s);
    }
}

static void test_keep_world_singular_parent_refused(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    arbor_node Z = TEST_NODE(s, ARBOR_NONE, "Z", V3(1, 0, 0), NULL, V3(0, 1, 1));
    arbor_node Zc = TEST_NODE(s, Z, "Zc", V3(0, 1, 0), NULL, NULL);
    arbor_node all[12];
    memcpy(all, t.all, sizeof t.all);
    all[10] = Z;
    all[11] = Zc;
    scene_snap before, after;
    snap_take(s, all, 12, &before);
    ASSERT_REFUSED(ARBOR_ERR_SINGULAR, "arbor_node_set_parent",
                   arbor_node_set_parent(s, t.A1, Z, ARBOR_NONE, ARBOR_KEEP_WORLD));
    ASSERT_REFUSED(ARBOR_ERR_SINGULAR, "arbor_node_set_parent",
                   arbor_node_set_parent(s, t.R2, Zc, ARBOR_NONE, ARBOR_KEEP_WORLD));
    snap_take(s, all, 12, &after);
    SNAP_SAME(&before, &after);
    /* Keep-local under it is fine. */
    ASSERT_OK(arbor_node_set_parent(s, t.A1, Z, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_NODE_EQ(arbor_node_parent(s, t.A1), Z);
    arbor_scene_destroy(s);
}

/* ---- Refusals ------------------------------------------------------------------------------------ */

static void test_refuse_cycle(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    scene_snap before, after;
    snap_take(s, t.all, 10, &before);
    for (int mode = 0; mode <= 1; mode++) {
        arbor_reparent m = mode ? ARBOR_KEEP_WORLD : ARBOR_KEEP_LOCAL;
        ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_node_set_parent(s, t.R, t.A1a, ARBOR_NONE, m));
        ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_node_set_parent(s, t.A, t.A1, ARBOR_NONE, m));
        ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_node_set_parent(s, t.A, t.A, ARBOR_NONE, m));
        ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_node_set_parent(s, t.A1a, t.A1a, ARBOR_NONE, m));
        ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_node_set_parent(s, t.R, t.C1, ARBOR_NONE, m));
        ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_node_set_parent(s, t.C, t.C1, ARBOR_NONE, m));
    }
    snap_take(s, t.all, 10, &after);
    SNAP_SAME(&before, &after);
    arbor_scene_destroy(s);
}

static void test_refuse_dead_none_not_a_child_bad_mode(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    arbor_node x = dead_handle(s);
    arbor_node foreign = { 0x123456789abcull };
    scene_snap before, after;
    snap_take(s, t.all, 10, &before);
    for (int mode = 0; mode <= 1; mode++) {
        arbor_reparent m = mode ? ARBOR_KEEP_WORLD : ARBOR_KEEP_LOCAL;
        ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_parent", arbor_node_set_parent(s, x, t.A, ARBOR_NONE, m));
        ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_parent", arbor_node_set_parent(s, t.B, x, ARBOR_NONE, m));
        ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_parent", arbor_node_set_parent(s, t.B, t.A, x, m));
        ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_parent",
                       arbor_node_set_parent(s, t.B, ARBOR_NONE, x, m));
        ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_parent",
                       arbor_node_set_parent(s, t.B, foreign, ARBOR_NONE, m));
        ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_parent",
                       arbor_node_set_parent(s, ARBOR_NONE, t.A, ARBOR_NONE, m));
        /* 'before' not a child of the new parent */
        ASSERT_REFUSED(ARBOR_ERR_NOT_A_CHILD, "arbor_node_set_parent", arbor_node_set_parent(s, t.B, t.A, t.C1, m));
        ASSERT_REFUSED(ARBOR_ERR_NOT_A_CHILD, "arbor_node_set_parent", arbor_node_set_parent(s, t.B, t.A, t.A, m));
        ASSERT_REFUSED(ARBOR_ERR_NOT_A_CHILD, "arbor_node_set_parent", arbor_node_set_parent(s, t.B, t.A, t.A1a, m));
        ASSERT_REFUSED(ARBOR_ERR_NOT_A_CHILD, "arbor_node_set_parent", arbor_node_set_parent(s, t.B, t.A, t.C, m));
        ASSERT_REFUSED(ARBOR_ERR_NOT_A_CHILD, "arbor_node_set_parent",
                       arbor_node_set_parent(s, t.B, ARBOR_NONE, t.A1, m));
        ASSERT_REFUSED(ARBOR_ERR_NOT_A_CHILD, "arbor_node_set_parent", arbor_node_set_parent(s, t.B, t.R, t.R2, m));
        ASSERT_REFUSED(ARBOR_ERR_NOT_A_CHILD, "arbor_node_set_parent", arbor_node_set_parent(s, t.A2, t.A, t.B, m));
    }
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_parent",
                   arbor_node_set_parent(s, t.B, t.A, ARBOR_NONE, (arbor_reparent)42));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_parent",
                   arbor_node_set_parent(s, t.A1, t.A, ARBOR_NONE, (arbor_reparent)-1));
    snap_take(s, t.all, 10, &after);
    SNAP_SAME(&before, &after);
    arbor_scene_destroy(s);
}

static void test_refuse_nonfinite(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    const arbor_real nan = (arbor_real)NAN, inf = (arbor_real)INFINITY;
    arbor_node x = t.A1;
    arbor_node mnode;
    arbor_real good[16];
    arbor_mat4_compose(good, V3(1, 2, 3), NULL, V3(2, 2, 2));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = t.B, .matrix = good }, &mnode));
    arbor_node all[11];
    memcpy(all, t.all, sizeof t.all);
    all[10] = mnode;
    scene_snap before, after;
    snap_take(s, all, 11, &before);

    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_translation", arbor_node_set_translation(s, x, nan, 0, 0));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_translation", arbor_node_set_translation(s, x, 0, inf, 0));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_translation", arbor_node_set_translation(s, x, 0, 0, -inf));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_rotation", arbor_node_set_rotation(s, x, nan, 0, 0, 1));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_rotation", arbor_node_set_rotation(s, x, 0, 0, 0, inf));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_rotation", arbor_node_set_rotation(s, x, nan, nan, nan, nan));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_scale", arbor_node_set_scale(s, x, 1, nan, 1));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_scale", arbor_node_set_scale(s, x, 1, 1, inf));
    /* on an unlocked matrix-backed node the refusal keeps the matrix */
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_translation", arbor_node_set_translation(s, mnode, nan, 0, 0));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_scale", arbor_node_set_scale(s, mnode, inf, 1, 1));

    arbor_trs trs = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
    trs.translation[1] = nan;
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_trs", arbor_node_set_trs(s, x, &trs));
    trs.translation[1] = 0;
    trs.rotation[2] = inf;
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_trs", arbor_node_set_trs(s, x, &trs));
    trs.rotation[2] = 0;
    trs.scale[0] = nan;
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_trs", arbor_node_set_trs(s, x, &trs));

    for (int i = 0; i < 16; i++) {
        if (i == 3 || i == 7 || i == 11 || i == 15) continue;
        arbor_real m[16];
        memcpy(m, good, sizeof m);
        m[i] = (i % 2) ? inf : nan;
        ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_local_matrix", arbor_node_set_local_matrix(s, x, m, false));
        ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_local_matrix", arbor_node_set_local_matrix(s, mnode, m, true));
        arbor_node n;
        ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_create",
                       arbor_node_create(s, &(arbor_node_desc){ .parent = t.A, .matrix = m }, &n));
    }

    arbor_node n;
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_create",
                   arbor_node_create(s, &(arbor_node_desc){ .translation = { 0, nan, 0 } }, &n));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_create",
                   arbor_node_create(s, &(arbor_node_desc){ .parent = t.A, .rotation = { 0, 0, inf, 1 } }, &n));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_create",
                   arbor_node_create(s, &(arbor_node_desc){ .parent = t.A, .scale = { 1, 1, nan } }, &n));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_create",
                   arbor_node_create(s, &(arbor_node_desc){ .name = "n", .scale = { -inf, 1, 1 } }, &n));

    snap_take(s, all, 11, &after);
    SNAP_SAME(&before, &after);
    arbor_scene_destroy(s);
}

static void test_refuse_zero_rotation_and_bad_last_row(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    scene_snap before, after;
    snap_take(s, t.all, 10, &before);

    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_rotation", arbor_node_set_rotation(s, t.A, 0, 0, 0, 0));
    arbor_trs trs = { { 1, 2, 3 }, { 0, 0, 0, 0 }, { 1, 1, 1 } };
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_trs", arbor_node_set_trs(s, t.A, &trs));

    const int last_row[4] = { 3, 7, 11, 15 };
    for (int k = 0; k < 4; k++) {
        arbor_real m[16];
        arbor_mat4_identity(m);
        m[last_row[k]] = (k == 3) ? 2 : (arbor_real)0.5;
        ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_local_matrix",
                       arbor_node_set_local_matrix(s, t.A1, m, false));
        ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_local_matrix",
                       arbor_node_set_local_matrix(s, t.R, m, true));
        arbor_node n;
        ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_create",
                       arbor_node_create(s, &(arbor_node_desc){ .parent = t.B, .matrix = m }, &n));
    }
    snap_take(s, t.all, 10, &after);
    SNAP_SAME(&before, &after);
    arbor_scene_destroy(s);
}

static void test_locked_matrix(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    arbor_real m[16], m2[16], q[4];
    test_quat_axis_deg(q, 0, 1, 0, 60);
    arbor_mat4_compose(m, V3(1, 2, 3), q, V3(1, 2, 3));
    arbor_mat4_compose(m2, V3(-1, 0, 0), NULL, NULL);
    arbor_node n;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = t.C, .matrix = m, .lock_matrix = true, .name = "L" },
                                &n));
    assert_true(arbor_node_is_matrix_backed(s, n));
    assert_true(arbor_node_is_locked(s, n));
    arbor_node all[11];
    memcpy(all, t.all, sizeof t.all);
    all[10] = n;
    scene_snap before, after;
    snap_take(s, all, 11, &before);
    arbor_trs trs = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
    ASSERT_REFUSED(ARBOR_ERR_LOCKED, "arbor_node_set_translation", arbor_node_set_translation(s, n, 0, 0, 0));
    ASSERT_REFUSED(ARBOR_ERR_LOCKED, "arbor_node_set_rotation", arbor_node_set_rotation(s, n, 0, 0, 0, 1));
    ASSERT_REFUSED(ARBOR_ERR_LOCKED, "arbor_node_set_scale", arbor_node_set_scale(s, n, 1, 1, 1));
    ASSERT_REFUSED(ARBOR_ERR_LOCKED, "arbor_node_set_trs", arbor_node_set_trs(s, n, &trs));
    snap_take(s, all, 11, &after);
    SNAP_SAME(&before, &after);

    /* get_trs is the decomposition. */
    ASSERT_OK(arbor_node_trs(s, n, &trs));
    ASSERT_VEC3_NEAR(trs.translation, 1, 2, 3, TEST_EPS);
    ASSERT_VEC3_NEAR(trs.scale, 1, 2, 3, TEST_EPS_ROUNDTRIP);
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, q[0], q[1], q[2], q[3], TEST_EPS_ROUNDTRIP);

    /* A new matrix, still locked; then the lock lifted. */
    arbor_real l[16];
    ASSERT_OK(arbor_node_set_local_matrix(s, n, m2, true));
    assert_true(arbor_node_is_locked(s, n));
    ASSERT_OK(arbor_node_local_matrix(s, n, l));
    ASSERT_REALS_BITS_EQUAL(l, m2, 16);
    ASSERT_WORLD_REF(s, n, TEST_EPS); /* W_C * m2 in double */
    ASSERT_OK(arbor_node_set_local_matrix(s, n, m, false));
    assert_true(arbor_node_is_matrix_backed(s, n));
    assert_false(arbor_node_is_locked(s, n));
    ASSERT_OK(arbor_node_set_rotation(s, n, 0, 0, 0, 1));
    assert_false(arbor_node_is_matrix_backed(s, n));
    /* And set_local_matrix makes a TRS node matrix-backed again, locked. */
    ASSERT_OK(arbor_node_set_local_matrix(s, n, m2, true));
    assert_true(arbor_node_is_locked(s, n));
    ASSERT_REFUSED(ARBOR_ERR_LOCKED, "arbor_node_set_scale", arbor_node_set_scale(s, n, 2, 2, 2));
    arbor_scene_destroy(s);
}

/* An unlocked matrix-backed node: a TRS write makes it TRS-driven, the other parts from the
   decomposition. */
static void test_unlocked_matrix_trs_write(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_real q[4], q2[4], m[16];
    test_quat_axis_deg(q, 1.0 / 3, 2.0 / 3, 2.0 / 3, 50);
    test_quat_axis_deg(q2, 0, 0, 1, -30);
    arbor_mat4_compose(m, V3(1, 2, 3), q, V3(2, 3, 4));
    arbor_node P = TEST_NODE(s, ARBOR_NONE, "P", V3(0, 1, 0), q2, NULL);
    arbor_node n[4];
    for (int i = 0; i < 4; i++) {
        n[i] = TEST_NODE(s, P, NULL, V3(9, 9, 9), NULL, NULL);
        ASSERT_OK(arbor_node_set_local_matrix(s, n[i], m, false));
        assert_true(arbor_node_is_matrix_backed(s, n[i]));
        assert_false(arbor_node_is_locked(s, n[i]));
    }
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, n[0], &trs));
    ASSERT_VEC3_NEAR(trs.translation, 1, 2, 3, TEST_EPS);
    ASSERT_VEC3_NEAR(trs.scale, 2, 3, 4, TEST_EPS_ROUNDTRIP);
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, q[0], q[1], q[2], q[3], TEST_EPS_ROUNDTRIP);

    ASSERT_OK(arbor_node_set_translation(s, n[0], 5, 6, 7));
    ASSERT_OK(arbor_node_set_rotation(s, n[1], q2[0], q2[1], q2[2], q2[3]));
    ASSERT_OK(arbor_node_set_scale(s, n[2], 1, 1, 1));
    arbor_trs nt = { { -1, -2, -3 }, { 0, 0, 0, 1 }, { 0.5, 0.5, 0.5 } };
    ASSERT_OK(arbor_node_set_trs(s, n[3], &nt));

    const double exp_t[4][3] = { { 5, 6, 7 }, { 1, 2, 3 }, { 1, 2, 3 }, { -1, -2, -3 } };
    const double exp_s[4][3] = { { 2, 3, 4 }, { 2, 3, 4 }, { 1, 1, 1 }, { 0.5, 0.5, 0.5 } };
    const arbor_real *exp_q[4] = { q, q2, q, Q4(0, 0, 0, 1) };
    for (int i = 0; i < 4; i++) {
        assert_false(arbor_node_is_matrix_backed(s, n[i]));
        ASSERT_OK(arbor_node_trs(s, n[i], &trs));
        ASSERT_VEC3_NEAR(trs.translation, exp_t[i][0], exp_t[i][1], exp_t[i][2], TEST_EPS_ROUNDTRIP);
        ASSERT_VEC3_NEAR(trs.scale, exp_s[i][0], exp_s[i][1], exp_s[i][2], TEST_EPS_ROUNDTRIP);
        ASSERT_QUAT_SAME_ROTATION(trs.rotation, exp_q[i][0], exp_q[i][1], exp_q[i][2], exp_q[i][3],
                                  TEST_EPS_ROUNDTRIP);
        /* The world matrix follows the new TRS. */
        ASSERT_WORLD_REF(s, n[i], TEST_EPS);
    }
    arbor_scene_destroy(s);
}

static void test_depth_limit(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .max_depth = 3 }, &s), ARBOR_OK);
    assert_non_null(s);
    assert_int_equal(arbor_scene_max_depth(s), 3);
    arbor_node r = TEST_NODE(s, ARBOR_NONE, "r", NULL, NULL, NULL);
    arbor_node d1 = TEST_NODE(s, r, "d1", NULL, NULL, NULL);
    arbor_node d2 = TEST_NODE(s, d1, "d2", NULL, NULL, NULL);
    arbor_node d3 = TEST_NODE(s, d2, "d3", NULL, NULL, NULL);
    assert_int_equal(arbor_node_depth(s, d3), 3);
    arbor_node a = TEST_NODE(s, ARBOR_NONE, "a", NULL, NULL, NULL);
    arbor_node b = TEST_NODE(s, a, "b", NULL, NULL, NULL);
    arbor_node x = TEST_NODE(s, ARBOR_NONE, "x", NULL, NULL, NULL);
    arbor_node all[7] = { r, d1, d2, d3, a, b, x };
    scene_snap before, after;
    snap_take(s, all, 7, &before);

    /* A fifth level. */
    arbor_node n;
    ASSERT_REFUSED(ARBOR_ERR_DEPTH_LIMIT, "arbor_node_create", arbor_node_create(s, &(arbor_node_desc){ .parent = d3 }, &n));
    /* A two-level subtree under a depth-2 node would put b at depth 4; a leaf under d3 at 4. */
    for (int mode = 0; mode <= 1; mode++) {
        arbor_reparent m = mode ? ARBOR_KEEP_WORLD : ARBOR_KEEP_LOCAL;
        ASSERT_REFUSED(ARBOR_ERR_DEPTH_LIMIT, "arbor_node_set_parent", arbor_node_set_parent(s, a, d2, ARBOR_NONE, m));
        ASSERT_REFUSED(ARBOR_ERR_DEPTH_LIMIT, "arbor_node_set_parent", arbor_node_set_parent(s, x, d3, ARBOR_NONE, m));
        ASSERT_REFUSED(ARBOR_ERR_DEPTH_LIMIT, "arbor_node_set_parent", arbor_node_set_parent(s, d1, b, ARBOR_NONE, m));
    }
    snap_take(s, all, 7, &after);
    SNAP_SAME(&before, &after);

    /* The same subtree under a depth-1 node fits exactly; a leaf under d2 too. */
    ASSERT_OK(arbor_node_set_parent(s, a, d1, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    assert_int_equal(arbor_node_depth(s, b), 3);
    ASSERT_OK(arbor_node_set_parent(s, x, d2, ARBOR_NONE, ARBOR_KEEP_WORLD));
    assert_int_equal(arbor_node_depth(s, x), 3);
    /* Moving a subtree up makes room. */
    ASSERT_OK(arbor_node_set_parent(s, d2, ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    assert_int_equal(arbor_node_depth(s, d3), 1);
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = d3 }, &n));
    assert_int_equal(arbor_node_depth(s, n), 2);
    arbor_scene_destroy(s);
}

/* ---- Walks ---------------------------------------------------------------------------------------- */

static void test_collect_subtree(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    arbor_node out[16];
    const arbor_node bfs[8] = { t.R, t.A, t.B, t.C, t.A1, t.A2, t.C1, t.A1a };
    assert_int_equal(arbor_node_collect_subtree(s, t.R, out, 16), 8);
    for (int i = 0; i < 8; i++) ASSERT_NODE_EQ(out[i], bfs[i]);

    /* A smaller cap: the full size, and the breadth-first prefix; nothing written past cap. */
    for (int i = 0; i < 16; i++) out[i].id = 0xABCDull;
    assert_int_equal(arbor_node_collect_subtree(s, t.R, out, 3), 8);
    for (int i = 0; i < 3; i++) ASSERT_NODE_EQ(out[i], bfs[i]);
    for (int i = 3; i < 16; i++) assert_int_equal(out[i].id, 0xABCDull);
    assert_int_equal(arbor_node_collect_subtree(s, t.R, NULL, 0), 8);

    assert_int_equal(arbor_node_collect_subtree(s, t.A, out, 16), 4);
    ASSERT_NODE_EQ(out[0], t.A);
    ASSERT_NODE_EQ(out[1], t.A1);
    ASSERT_NODE_EQ(out[2], t.A2);
    ASSERT_NODE_EQ(out[3], t.A1a);
    assert_int_equal(arbor_node_collect_subtree(s, t.A1a, out, 16), 1);
    ASSERT_NODE_EQ(out[0], t.A1a);
    assert_int_equal(arbor_node_collect_subtree(s, t.R2, out, 16), 2);
    assert_int_equal(arbor_node_collect_subtree(s, ARBOR_NONE, out, 16), 0);

    /* Sibling order is breadth-first order: move C first. */
    ASSERT_OK(arbor_node_set_parent(s, t.C, t.R, t.A, ARBOR_KEEP_LOCAL));
    const arbor_node bfs2[8] = { t.R, t.C, t.A, t.B, t.C1, t.A1, t.A2, t.A1a };
    assert_int_equal(arbor_node_collect_subtree(s, t.R, out, 16), 8);
    for (int i = 0; i < 8; i++) ASSERT_NODE_EQ(out[i], bfs2[i]);
    arbor_scene_destroy(s);
}

typedef struct pred_ctx {
    const arbor_scene *s;
    arbor_node set[4];
    int n;
    const char *prefix;
    int calls;
    bool wrong_scene;
} pred_ctx;

static bool pred_in_set(void *user, const arbor_scene *s, arbor_node n)
{
    pred_ctx *c = (pred_ctx *)user;
    c->calls++;
    if (s != c->s) c->wrong_scene = true;
    for (int i = 0; i < c->n; i++)
        if (c->set[i].id == n.id) return true;
    return false;
}

static bool pred_prefix(void *user, const arbor_scene *s, arbor_node n)
{
    pred_ctx *c = (pred_ctx *)user;
    c->calls++;
    if (s != c->s) c->wrong_scene = true;
    const char *name = arbor_node_name(s, n);
    return name != NULL && strncmp(name, c->prefix, strlen(c->prefix)) == 0;
}

static bool pred_always(void *user, const arbor_scene *s, arbor_node n)
{
    (void)s;
    (void)n;
    ((pred_ctx *)user)->calls++;
    return true;
}

static arbor_node find_down(arbor_scene *s, arbor_node root, int n, const arbor_node *set)
{
    pred_ctx c = { .s = s, .n = n };
    for (int i = 0; i < n; i++) c.set[i] = set[i];
    arbor_node r = arbor_node_find_descendant(s, root, pred_in_set, &c);
    assert_false(c.wrong_scene);
    return r;
}

static arbor_node find_up(arbor_scene *s, arbor_node leaf, int n, const arbor_node *set)
{
    pred_ctx c = { .s = s, .n = n };
    for (int i = 0; i < n; i++) c.set[i] = set[i];
    arbor_node r = arbor_node_find_ancestor(s, leaf, pred_in_set, &c);
    assert_false(c.wrong_scene);
    return r;
}

#define SET(...) (int)(sizeof((arbor_node[]){ __VA_ARGS__ }) / sizeof(arbor_node)), (arbor_node[]){ __VA_ARGS__ }

static void test_find_descendant_and_ancestor(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);

    /* Shallowest first: C1 (depth 2) beats A1a (depth 3) although A's subtree comes first. */
    ASSERT_NODE_EQ(find_down(s, t.R, SET(t.A1a, t.C1)), t.C1);
    /* Ties by breadth-first order: A2 before C1. */
    ASSERT_NODE_EQ(find_down(s, t.R, SET(t.C1, t.A2)), t.A2);
    ASSERT_NODE_EQ(find_down(s, t.R, SET(t.C1, t.A2, t.A1)), t.A1);
    ASSERT_NODE_EQ(find_down(s, t.R, SET(t.A1a, t.B)), t.B);
    /* At or below: the root itself counts. */
    ASSERT_NODE_EQ(find_down(s, t.A, SET(t.A, t.A1)), t.A);
    /* Not below. */
    ASSERT_NODE_NONE(find_down(s, t.A, SET(t.C1, t.R, t.D)));
    ASSERT_NODE_NONE(find_down(s, t.R, SET(t.D)));
    pred_ctx c = { .s = s, .prefix = "A1" };
    ASSERT_NODE_EQ(arbor_node_find_descendant(s, t.R, pred_prefix, &c), t.A1);
    c.prefix = "Q";
    ASSERT_NODE_NONE(arbor_node_find_descendant(s, t.R, pred_prefix, &c));
    assert_false(c.wrong_scene);
    pred_ctx any = { .s = s };
    ASSERT_NODE_EQ(arbor_node_find_descendant(s, t.C, pred_always, &any), t.C);

    /* Upward: nearest at or above. */
    ASSERT_NODE_EQ(find_up(s, t.A1a, SET(t.R, t.A)), t.A);
    ASSERT_NODE_EQ(find_up(s, t.A1a, SET(t.R, t.A, t.A1a)), t.A1a);
    ASSERT_NODE_EQ(find_up(s, t.A1a, SET(t.R)), t.R);
    ASSERT_NODE_NONE(find_up(s, t.A1a, SET(t.C, t.A2, t.R2)));
    ASSERT_NODE_EQ(arbor_node_find_ancestor(s, t.C1, pred_always, &any), t.C1);
    c.prefix = "R";
    ASSERT_NODE_EQ(arbor_node_find_ancestor(s, t.D, pred_prefix, &c), t.R2);
    arbor_node x = dead_handle(s);
    ASSERT_NODE_NONE(arbor_node_find_ancestor(s, x, pred_always, &any));
    ASSERT_NODE_NONE(arbor_node_find_descendant(s, x, pred_always, &any));
    arbor_scene_destroy(s);
}

static void test_links_depth_ancestry(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    assert_int_equal(arbor_scene_node_count(s), 10);
    assert_int_equal(arbor_node_depth(s, t.R), 0);
    assert_int_equal(arbor_node_depth(s, t.A), 1);
    assert_int_equal(arbor_node_depth(s, t.A1), 2);
    assert_int_equal(arbor_node_depth(s, t.A1a), 3);
    assert_int_equal(arbor_node_depth(s, t.C1), 2);
    assert_int_equal(arbor_node_depth(s, t.D), 1);
    assert_int_equal(arbor_node_child_count(s, t.R), 3);
    assert_int_equal(arbor_node_child_count(s, t.A), 2);
    assert_int_equal(arbor_node_child_count(s, t.A1a), 0);
    EXPECT_CHILDREN(s, t.R, t.A, t.B, t.C);
    EXPECT_CHILDREN(s, t.A, t.A1, t.A2);
    EXPECT_CHILDREN(s, t.A1, t.A1a);
    EXPECT_CHILDREN(s, ARBOR_NONE, t.R, t.R2);
    ASSERT_NODE_NONE(arbor_node_first_child(s, t.B));
    ASSERT_NODE_NONE(arbor_node_last_child(s, t.B));
    ASSERT_NODE_EQ(arbor_node_parent(s, t.A1a), t.A1);
    ASSERT_NODE_NONE(arbor_node_parent(s, t.R2));

    assert_true(arbor_node_is_ancestor_of(s, t.R, t.A1a));
    assert_true(arbor_node_is_ancestor_of(s, t.A, t.A1a));
    assert_true(arbor_node_is_ancestor_of(s, t.A1, t.A1a));
    assert_true(arbor_node_is_ancestor_of(s, t.R2, t.D));
    assert_false(arbor_node_is_ancestor_of(s, t.A1a, t.A1a));
    assert_false(arbor_node_is_ancestor_of(s, t.R, t.R));
    assert_false(arbor_node_is_ancestor_of(s, t.A1a, t.R));
    assert_false(arbor_node_is_ancestor_of(s, t.B, t.A1));
    assert_false(arbor_node_is_ancestor_of(s, t.R, t.D));
    assert_false(arbor_node_is_ancestor_of(s, ARBOR_NONE, t.A));
    assert_false(arbor_node_is_ancestor_of(s, t.A, ARBOR_NONE));
    arbor_scene_destroy(s);
}

static void test_scene_find_paths(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    ASSERT_NODE_EQ(arbor_scene_find(s, "R"), t.R);
    ASSERT_NODE_EQ(arbor_scene_find(s, "/R"), t.R);
    ASSERT_NODE_EQ(arbor_scene_find(s, "R/A/A1"), t.A1);
    ASSERT_NODE_EQ(arbor_scene_find(s, "/R/A/A1/A1a"), t.A1a);
    ASSERT_NODE_EQ(arbor_scene_find(s, "R2/D"), t.D);
    ASSERT_NODE_EQ(arbor_scene_find(s, "/R/C/C1"), t.C1);
    ASSERT_NODE_NONE(arbor_scene_find(s, "A"));        /* not a root */
    ASSERT_NODE_NONE(arbor_scene_find(s, "R/A1"));     /* not a child of R */
    ASSERT_NODE_NONE(arbor_scene_find(s, "R/A/A1/X")); /* missing */
    ASSERT_NODE_NONE(arbor_scene_find(s, "Q"));
    ASSERT_NODE_NONE(arbor_scene_find(s, ""));
    ASSERT_NODE_NONE(arbor_scene_find(s, "/"));
    ASSERT_NODE_NONE(arbor_scene_find(s, "R//A"));
    ASSERT_NODE_NONE(arbor_scene_find(s, "R/A/A1a")); /* A1a is a grandchild of A */

    /* Duplicates: the first in sibling order, no backtracking. */
    arbor_node dup1 = TEST_NODE(s, t.B, "dup", NULL, NULL, NULL);
    arbor_node dup2 = TEST_NODE(s, t.B, "dup", NULL, NULL, NULL);
    arbor_node x = TEST_NODE(s, dup1, "x", NULL, NULL, NULL);
    arbor_node y = TEST_NODE(s, dup2, "y", NULL, NULL, NULL);
    (void)y;
    ASSERT_NODE_EQ(arbor_scene_find(s, "R/B/dup"), dup1);
    ASSERT_NODE_EQ(arbor_scene_find(s, "R/B/dup/x"), x);
    ASSERT_NODE_NONE(arbor_scene_find(s, "R/B/dup/y"));
    /* Reorder: now dup2 is first. */
    ASSERT_OK(arbor_node_set_parent(s, dup2, t.B, dup1, ARBOR_KEEP_LOCAL));
    ASSERT_NODE_EQ(arbor_scene_find(s, "R/B/dup"), dup2);
    ASSERT_NODE_EQ(arbor_scene_find(s, "/R/B/dup/y"), y);
    ASSERT_NODE_NONE(arbor_scene_find(s, "R/B/dup/x"));
    /* A second root named R. */
    arbor_node R3 = TEST_NODE(s, ARBOR_NONE, "R", NULL, NULL, NULL);
    TEST_NODE(s, R3, "Z", NULL, NULL, NULL);
    ASSERT_NODE_EQ(arbor_scene_find(s, "R"), t.R);
    ASSERT_NODE_NONE(arbor_scene_find(s, "R/Z"));
    /* Renaming and unnamed nodes. */
    ASSERT_OK(arbor_node_set_name(s, t.A, "arm"));
    ASSERT_NODE_EQ(arbor_scene_find(s, "R/arm/A1"), t.A1);
    ASSERT_NODE_NONE(arbor_scene_find(s, "R/A/A1"));
    ASSERT_OK(arbor_node_set_name(s, t.A, NULL));
    ASSERT_NODE_NONE(arbor_scene_find(s, "R/arm/A1"));
    arbor_scene_destroy(s);
}

static void expect_visit_order_(arbor_scene *s, const arbor_node *order, int n, const char *file, int line)
{
    arbor_node it = ARBOR_NONE;
    for (int i = 0; i < n; i++) {
        it = arbor_scene_next_node(s, it);
        if (it.id != order[i].id) {
            print_error("arbor_scene_next_node: visit %d is %llu, expected %llu\n", i, (unsigned long long)it.id,
                        (unsigned long long)order[i].id);
            _fail(file, line);
        }
    }
    it = arbor_scene_next_node(s, it);
    if (!arbor_node_is_none(it)) {
        print_error("arbor_scene_next_node: more than %d nodes visited\n", n);
        _fail(file, line);
    }
}
#define EXPECT_VISIT_ORDER(s, ...)                                                                              \
    do {                                                                                                       \
        const arbor_node order_[] = { __VA_ARGS__ };                                                          \
        expect_visit_order_((s), order_, (int)(sizeof order_ / sizeof order_[0]), __FILE__, __LINE__);        \
    } while (0)

static void test_next_node_order(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    EXPECT_VISIT_ORDER(s, t.R, t.A, t.A1, t.A1a, t.A2, t.B, t.C, t.C1, t.R2, t.D);
    ASSERT_OK(arbor_node_set_parent(s, t.C, t.R, t.A, ARBOR_KEEP_LOCAL));
    EXPECT_VISIT_ORDER(s, t.R, t.C, t.C1, t.A, t.A1, t.A1a, t.A2, t.B, t.R2, t.D);
    ASSERT_OK(arbor_node_set_parent(s, t.R2, ARBOR_NONE, t.R, ARBOR_KEEP_LOCAL));
    EXPECT_VISIT_ORDER(s, t.R2, t.D, t.R, t.C, t.C1, t.A, t.A1, t.A1a, t.A2, t.B);
    ASSERT_OK(arbor_node_destroy(s, t.A1));
    EXPECT_VISIT_ORDER(s, t.R2, t.D, t.R, t.C, t.C1, t.A, t.A2, t.B);
    /* A node moved under a later root is still visited after its parent. */
    ASSERT_OK(arbor_node_set_parent(s, t.R2, t.B, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    EXPECT_VISIT_ORDER(s, t.R, t.C, t.C1, t.A, t.A2, t.B, t.R2, t.D);

    /* Random forest: every live node once, parents first. */
    test_rng rng = test_rng_make(0x5EED);
    arbor_node nodes[300];
    int n = 0;
    for (int i = 0; i < 300; i++) {
        arbor_node parent = (i > 0 && test_rng_uniform(&rng) < 0.9) ? nodes[test_rng_below(&rng, (uint32_t)i)]
                                                                     : ARBOR_NONE;
        nodes[n++] = TEST_NODE(s, parent, NULL, NULL, NULL, NULL);
    }
    for (int i = 0; i < 40; i++) {
        arbor_node c = nodes[test_rng_below(&rng, 300)];
        arbor_node p = nodes[test_rng_below(&rng, 300)];
        (void)arbor_node_set_parent(s, c, p, ARBOR_NONE, ARBOR_KEEP_LOCAL); /* some are rings, refused */
    }
    ASSERT_OK(arbor_node_destroy(s, nodes[7]));
    uint32_t count = arbor_scene_node_count(s);
    arbor_node *seen = calloc(count + 1, sizeof *seen);
    assert_non_null(seen);
    uint32_t k = 0;
    for (arbor_node it = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(it); it = arbor_scene_next_node(s, it)) {
        assert_true(k < count);
        assert_true(arbor_node_alive(s, it));
        arbor_node p = arbor_node_parent(s, it);
        bool parent_seen = arbor_node_is_none(p);
        for (uint32_t j = 0; j < k; j++) {
            assert_int_not_equal(seen[j].id, it.id);
            if (seen[j].id == p.id) parent_seen = true;
        }
        assert_true(parent_seen);
        seen[k++] = it;
    }
    assert_int_equal(k, count);
    free(seen);
    arbor_scene_destroy(s);
}

static void test_destroy_subtree_and_clear(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    ASSERT_OK(arbor_node_destroy(s, t.A));
    assert_int_equal(arbor_scene_node_count(s), 6);
    assert_false(arbor_node_alive(s, t.A));
    assert_false(arbor_node_alive(s, t.A1));
    assert_false(arbor_node_alive(s, t.A1a));
    assert_false(arbor_node_alive(s, t.A2));
    assert_true(arbor_node_alive(s, t.B));
    EXPECT_CHILDREN(s, t.R, t.B, t.C);
    assert_int_equal(arbor_node_collect_subtree(s, t.R, NULL, 0), 4);
    ASSERT_NODE_NONE(arbor_scene_find(s, "R/A"));
    ASSERT_OK(arbor_node_destroy(s, t.C1));
    assert_int_equal(arbor_node_child_count(s, t.C), 0);
    ASSERT_OK(arbor_node_destroy(s, t.R2));
    assert_false(arbor_node_alive(s, t.D));
    assert_int_equal(arbor_scene_node_count(s), 3);
    EXPECT_CHILDREN(s, ARBOR_NONE, t.R);

    /* The rest still computes. */
    arbor_real w[16];
    TEST_WORLD(s, t.C, w);
    arbor_scene_update(s);

    arbor_scene_clear(s);
    assert_int_equal(arbor_scene_node_count(s), 0);
    ASSERT_NODE_NONE(arbor_scene_first_root(s));
    ASSERT_NODE_NONE(arbor_scene_last_root(s));
    ASSERT_NODE_NONE(arbor_scene_next_node(s, ARBOR_NONE));
    for (int i = 0; i < 10; i++) assert_false(arbor_node_alive(s, t.all[i]));
    arbor_scene_update(s);
    /* Usable again; old handles stay dead. */
    tree u = build_tree(s);
    assert_int_equal(arbor_scene_node_count(s), 10);
    for (int i = 0; i < 10; i++) {
        assert_false(arbor_node_alive(s, t.all[i]));
        for (int j = 0; j < 10; j++) assert_int_not_equal(u.all[i].id, t.all[j].id);
    }
    arbor_real p[3];
    TEST_WORLD_ORIGIN(s, u.R, p);
    ASSERT_VEC3_NEAR(p, 1, 2, 3, 0);
    arbor_scene_update(s);
    arbor_scene_destroy(s);
}

static void test_names_and_user(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    char buf[16] = "hello";
    int tag1 = 1, tag2 = 2;
    arbor_node n;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = buf, .user = &tag1 }, &n));
    strcpy(buf, "XXXXX");
    assert_string_equal(arbor_node_name(s, n), "hello");
    assert_ptr_equal(arbor_node_user(s, n), &tag1);
    strcpy(buf, "world");
    ASSERT_OK(arbor_node_set_name(s, n, buf));
    buf[0] = 'W';
    assert_string_equal(arbor_node_name(s, n), "world");
    ASSERT_NODE_EQ(arbor_scene_find(s, "world"), n);
    ASSERT_OK(arbor_node_set_name(s, n, NULL));
    assert_null(arbor_node_name(s, n));
    ASSERT_OK(arbor_node_set_name(s, n, "a name long enough to need its own storage, longer than any small buffer"));
    assert_string_equal(arbor_node_name(s, n),
                        "a name long enough to need its own storage, longer than any small buffer");
    ASSERT_OK(arbor_node_set_user(s, n, &tag2));
    assert_ptr_equal(arbor_node_user(s, n), &tag2);
    ASSERT_OK(arbor_node_set_user(s, n, NULL));
    assert_null(arbor_node_user(s, n));
    arbor_scene_destroy(s);
}

static void test_result_strings_and_last_error(void **state)
{
    (void)state;
    for (int i = 0; i < (int)ARBOR_RESULT_COUNT_; i++) {
        const char *a = arbor_result_string((arbor_result)i);
        assert_non_null(a);
        assert_true(a[0] != '\0');
        for (int j = 0; j < i; j++) assert_string_not_equal(a, arbor_result_string((arbor_result)j));
    }
    assert_string_equal(arbor_result_string(ARBOR_OK), "ok");
    assert_string_equal(arbor_result_string(ARBOR_ERR_DEAD_NODE), "dead node handle");
    assert_string_equal(arbor_result_string((arbor_result)ARBOR_RESULT_COUNT_), "unknown result");
    assert_string_equal(arbor_result_string((arbor_result)9999), "unknown result");
    assert_string_equal(arbor_result_string((arbor_result)-1), "unknown result");
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", ARBOR_VERSION_MAJOR, ARBOR_VERSION_MINOR, ARBOR_VERSION_PATCH);
    assert_string_equal(arbor_version(), v);
    assert_int_equal(arbor_real_size(), sizeof(arbor_real));

    /* The message names the function and stays until the next failure. */
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_node_set_parent(s, t.R, t.A, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    char saved[512];
    snprintf(saved, sizeof saved, "%s", arbor_last_error());
    ASSERT_OK(arbor_node_set_translation(s, t.A, 1, 1, 1));
    arbor_real w[16];
    TEST_WORLD(s, t.A, w);
    assert_string_equal(arbor_last_error(), saved);

    arbor_scene_destroy(s);
}

#ifdef TEST_HAVE_PTHREADS
/* The strings are copied inside the thread, before its storage ends. */
typedef struct thread_msgs { char before[256], after[256]; } thread_msgs;
static void *thread_last_error_copy(void *arg)
{
    thread_msgs *m = (thread_msgs *)arg;
    snprintf(m->before, sizeof m->before, "%s", arbor_last_error());
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    (void)arbor_node_set_translation(s, (arbor_node){ 0x42ull }, 0, 0, 0);
    snprintf(m->after, sizeof m->after, "%s", arbor_last_error());
    arbor_scene_destroy(s);
    return NULL;
}

static void test_last_error_is_thread_local(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_destroy", arbor_node_destroy(s, (arbor_node){ 0x99ull }));
    char mine[512];
    snprintf(mine, sizeof mine, "%s", arbor_last_error());
    thread_msgs m;
    memset(&m, 0, sizeof m);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, thread_last_error_copy, &m), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_string_equal(m.before, "");
    assert_true(m.after[0] != '\0');
    assert_non_null(strstr(m.after, "arbor_node_set_translation"));
    assert_string_equal(arbor_last_error(), mine);
    arbor_scene_destroy(s);
}
#endif

/* ---- Versions (seed 000) ------------------------------------------------------------------------- */

static void test_version_own_write(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    uint64_t v0 = arbor_node_world_version(s, t.B);
    uint64_t vc = arbor_node_world_version(s, t.C);
    assert_int_not_equal(v0, 0);
    assert_int_equal(arbor_node_world_version(s, t.B), v0);
    ASSERT_OK(arbor_node_set_translation(s, t.B, 3, 0, 1));
    uint64_t v1 = arbor_node_world_version(s, t.B);
    assert_int_not_equal(v1, v0);
    assert_int_not_equal(v1, 0);
    assert_int_equal(arbor_node_world_version(s, t.B), v1);
    /* Writing the value it already holds still counts. */
    ASSERT_OK(arbor_node_set_translation(s, t.B, 3, 0, 1));
    uint64_t v2 = arbor_node_world_version(s, t.B);
    assert_int_not_equal(v2, v1);
    assert_int_not_equal(v2, v0);
    ASSERT_OK(arbor_node_set_scale(s, t.B, 0.5, 0.5, 0.5));
    arbor_scene_update(s);
    uint64_t v3 = arbor_node_world_version(s, t.B);
    assert_int_not_equal(v3, v2);
    assert_int_not_equal(v3, v1);
    assert_int_not_equal(v3, v0);
    /* set_local_matrix counts too */
    arbor_real m[16];
    arbor_mat4_identity(m);
    ASSERT_OK(arbor_node_set_local_matrix(s, t.B, m, true));
    uint64_t v4 = arbor_node_world_version(s, t.B);
    assert_true(v4 != v3 && v4 != v2 && v4 != v1 && v4 != v0);
    /* The sibling did not move. */
    assert_int_equal(arbor_node_world_version(s, t.C), vc);
    arbor_scene_destroy(s);
}

/* A write in a scene known to be in tree order (each subtree one range of slots) marks its
   subtree as a range: the live slots after it down to the next one at its depth or above. The
   range here holds a freed slot whose last node sat at the written node's depth and a subtree
   held by the journal; the nodes after the range keep their versions, those in it are
   recomputed, and the last one's matrix is the product of the three locals (in double). */
static void test_write_in_tree_order_marks_its_subtree(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    ASSERT_OK(arbor_scene_create(NULL, &s));
    arbor_node a = TEST_NODE(s, ARBOR_NONE, "a", V3(1, 2, 3), Q4(0.1, 0.2, 0.3, 0.9), V3(1, 2, 1));
    arbor_node b = TEST_NODE(s, a, "b", V3(0, 1, 0), Q4(0.5, 0, 0, 0.8), V3(2, 2, 2));
    arbor_node b1 = TEST_NODE(s, b, "b1", V3(1, 0, 0), NULL, NULL);
    arbor_node x = TEST_NODE(s, a, "x", V3(5, 5, 5), NULL, NULL); /* a's child: b's range breaks here */
    arbor_node b2 = TEST_NODE(s, b, "b2", V3(0, 0, 3), Q4(0, 0.6, 0, 0.8), V3(1, 0.5, 1));
    arbor_node h = TEST_NODE(s, b, "h", V3(1, 1, 1), NULL, NULL);
    TEST_NODE(s, h, "h1", V3(1, 1, 1), NULL, NULL);
    arbor_node c = TEST_NODE(s, a, "c", V3(0, 0, -1), NULL, NULL);
    arbor_node c1 = TEST_NODE(s, c, "c1", V3(2, 0, 0), NULL, NULL);
    ASSERT_OK(arbor_node_destroy(s, x)); /* now in tree order, with a hole of depth 1 inside b's range */
    arbor_journal *j = NULL;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    ASSERT_OK(arbor_journal_destroy_node(j, h)); /* held: dead slots in b's range */
    arbor_node live[] = { a, b, b1, b2, c, c1 };
    uint64_t version[6];
    /* Every node written: the update sweeps the slots, and finds the tree order. */
    for (int i = 0; i < 6; i++) ASSERT_OK(arbor_node_set_scale(s, live[i], 1, 1, 1 + 0.5 * (i == 3)));
    arbor_scene_update(s);
    for (int i = 0; i < 6; i++) version[i] = arbor_node_world_version(s, live[i]);
    arbor_scene_stats_reset(s);
    ASSERT_OK(arbor_node_set_translation(s, b, 0, 4, 0));
    arbor_scene_stats st;
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.invalidated, 3); /* b, b1, b2 */
    arbor_scene_update(s);
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.world_composed, 3);
    for (int i = 0; i < 6; i++) {
        bool moved = i == 1 || i == 2 || i == 3;
        if ((arbor_node_world_version(s, live[i]) != version[i]) != moved) fail_msg("node %d: version %s", i, moved ? "kept" : "changed");
    }
    double la[16], lb[16], lb2[16], ab[16], want[16];
    const arbor_real r1 = (arbor_real)0.1, r2 = (arbor_real)0.2, r3 = (arbor_real)0.3, r5 = (arbor_real)0.5;
    const arbor_real r6 = (arbor_real)0.6, r8 = (arbor_real)0.8, r9 = (arbor_real)0.9;
    const arbor_trs ta = { { 1, 2, 3 }, { r1, r2, r3, r9 }, { 1, 1, 1 } }; /* the scales as last written */
    const arbor_trs tb = { { 0, 4, 0 }, { r5, 0, 0, r8 }, { 1, 1, 1 } };
    const arbor_trs tb2 = { { 0, 0, 3 }, { 0, r6, 0, r8 }, { 1, 1, (arbor_real)1.5 } };
    test_ref_compose_trs(la, &ta);
    test_ref_compose_trs(lb, &tb);
    test_ref_compose_trs(lb2, &tb2);
    test_ref_mul(ab, la, lb);
    test_ref_mul(want, ab, lb2);
    arbor_real got[16];
    ASSERT_OK(arbor_node_world_matrix(s, b2, got));
    ASSERT_MAT4_NEAR_D_REL(got, want, TEST_EPS);
    arbor_journal_destroy(j);
    arbor_scene_destroy(s);
}

/* Seed 000: "repeated ancestor movement through unread intermediates". */
static void test_version_unread_intermediates(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    arbor_node chain[6];
    chain[0] = TEST_NODE(s, ARBOR_NONE, "root", NULL, NULL, NULL);
    for (int i = 1; i < 6; i++) chain[i] = TEST_NODE(s, chain[i - 1], NULL, V3(0, 1, 0), NULL, NULL);
    arbor_node leaf = chain[5];

    uint64_t hist[64];
    int nh = 0;
    hist[nh++] = arbor_node_world_version(s, leaf);
    for (int i = 1; i <= 20; i++) {
        ASSERT_OK(arbor_node_set_translation(s, chain[0], (arbor_real)i, 0, 0));
        if (i % 3 == 0) ASSERT_OK(arbor_node_set_translation(s, chain[0], (arbor_real)i, 0, 0)); /* twice, unread */
        uint64_t v = arbor_node_world_version(s, leaf);
        assert_int_not_equal(v, 0);
        for (int k = 0; k < nh; k++) assert_int_not_equal(v, hist[k]);
        hist[nh++] = v;
        arbor_real p[3];
        TEST_WORLD_ORIGIN(s, leaf, p);
        ASSERT_VEC3_NEAR(p, i, 5, 0, 0);
        /* reading the matrix after the version changes nothing */
        assert_int_equal(arbor_node_world_version(s, leaf), v);
    }

    /* Read only a middle node between two root writes; the leaf below it was never read. */
    uint64_t vleaf = arbor_node_world_version(s, leaf);
    ASSERT_OK(arbor_node_set_translation(s, chain[0], 100, 0, 0));
    arbor_real w[16];
    TEST_WORLD(s, chain[2], w);
    ASSERT_OK(arbor_node_set_translation(s, chain[0], 200, 0, 0));
    uint64_t vleaf2 = arbor_node_world_version(s, leaf);
    assert_int_not_equal(vleaf2, vleaf);
    for (int k = 0; k < nh; k++) assert_int_not_equal(vleaf2, hist[k]);
    arbor_real p[3];
    TEST_WORLD_ORIGIN(s, leaf, p);
    ASSERT_VEC3_NEAR(p, 200, 5, 0, 0);

    /* A middle write: the leaf changes, the root and the nodes above do not. */
    uint64_t vr = arbor_node_world_version(s, chain[0]);
    uint64_t v1 = arbor_node_world_version(s, chain[1]);
    ASSERT_OK(arbor_node_set_rotation(s, chain[3], 0, 0, 1, 0));
    assert_int_equal(arbor_node_world_version(s, chain[0]), vr);
    assert_int_equal(arbor_node_world_version(s, chain[1]), v1);
    assert_int_not_equal(arbor_node_world_version(s, leaf), vleaf2);
    TEST_WORLD_ORIGIN(s, leaf, p);
    ASSERT_VEC3_NEAR(p, 200, 3 - 2, 0, TEST_EPS);

    /* A dirty leaf below a dirty ancestor: write the leaf, then the root, read only the leaf. */
    uint64_t before = arbor_node_world_version(s, leaf);
    ASSERT_OK(arbor_node_set_translation(s, leaf, 0, 2, 0));
    ASSERT_OK(arbor_node_set_translation(s, chain[0], 300, 0, 0));
    uint64_t after = arbor_node_world_version(s, leaf);
    assert_int_not_equal(after, before);
    TEST_WORLD_ORIGIN(s, leaf, p);
    ASSERT_VEC3_NEAR(p, 300, 3 - 3, 0, TEST_EPS);
    arbor_scene_destroy(s);
}

static void test_version_reparent_detach(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    uint64_t va = arbor_node_world_version(s, t.A1a);
    uint64_t vb = arbor_node_world_version(s, t.B);
    uint64_t vd = arbor_node_world_version(s, t.D);
    /* reparent an ancestor */
    ASSERT_OK(arbor_node_set_parent(s, t.A, t.C, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    uint64_t va2 = arbor_node_world_version(s, t.A1a);
    assert_int_not_equal(va2, va);
    assert_int_equal(arbor_node_world_version(s, t.B), vb);
    assert_int_equal(arbor_node_world_version(s, t.D), vd);
    /* detach an ancestor */
    ASSERT_OK(arbor_node_set_parent(s, t.A1, ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    uint64_t va3 = arbor_node_world_version(s, t.A1a);
    assert_int_not_equal(va3, va2);
    assert_int_not_equal(va3, va);
    /* back under A: a reparent again, a new value (never an old one) */
    ASSERT_OK(arbor_node_set_parent(s, t.A1, t.A, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    uint64_t va4 = arbor_node_world_version(s, t.A1a);
    assert_true(va4 != va3 && va4 != va2 && va4 != va);
    /* the node itself reparented */
    uint64_t vc1 = arbor_node_world_version(s, t.C1);
    ASSERT_OK(arbor_node_set_parent(s, t.C1, t.R2, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    uint64_t vc2 = arbor_node_world_version(s, t.C1);
    assert_int_not_equal(vc2, vc1);
    ASSERT_OK(arbor_node_set_parent(s, t.C1, ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    uint64_t vc3 = arbor_node_world_version(s, t.C1);
    assert_true(vc3 != vc2 && vc3 != vc1);
    assert_int_equal(arbor_node_world_version(s, t.D), vd);
    arbor_scene_destroy(s);
}

static void test_version_never_stale(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    tree t = build_tree(s);
    arbor_scene_update(s);
    arbor_scene_stats st;
    ASSERT_OK(arbor_node_set_rotation(s, t.R, 0, 1, 0, 0));
    arbor_scene_stats_reset(s);
    uint64_t v = arbor_node_world_version(s, t.A1a);
    arbor_scene_stats_get(s, &st);
    /* the version read resolved the matrix: R, A, A1, A1a */
    assert_int_equal(st.world_composed, 4);
    arbor_real w[16];
    TEST_WORLD(s, t.A1a, w);
    arbor_scene_stats_get(s, &st);
    assert_int_equal(st.world_composed, 4);
    assert_int_equal(arbor_node_world_version(s, t.A1a), v);
    arbor_scene_update(s);
    assert_int_equal(arbor_node_world_version(s, t.A1a), v);
    /* a dead node has version 0 */
    ASSERT_OK(arbor_node_destroy(s, t.A1a));
    assert_int_equal(arbor_node_world_version(s, t.A1a), 0);
    assert_int_equal(arbor_node_world_version(s, ARBOR_NONE), 0);
    arbor_scene_destroy(s);
}

/* A model of the scene kept by the test: which writes may have changed which node's world
   matrix. Random writes, reparents, reads and updates; every version read must be the last
   value read when nothing above the node changed, and a value never returned before for that
   node when something did. World matrices are checked against the product, in double, of the
   library's local matrices along the model's parent links. */
#define MODEL_N 40
#define MODEL_HIST 512

typedef struct model {
    arbor_node h[MODEL_N];
    int parent[MODEL_N];       /* -1: root */
    uint64_t gen[MODEL_N];     /* bumped whenever the world matrix may have changed */
    uint64_t read_gen[MODEL_N];
    uint64_t last[MODEL_N];    /* last version read; 0: never read */
    uint64_t hist[MODEL_N][MODEL_HIST];
    int nhist[MODEL_N];
} model;

static bool model_is_ancestor(const model *m, int a, int n)
{
    for (int p = m->parent[n]; p >= 0; p = m->parent[p])
        if (p == a) return true;
    return false;
}

static void model_bump_subtree(model *m, int root)
{
    for (int i = 0; i < MODEL_N; i++)
        if (i == root || model_is_ancestor(m, root, i)) m->gen[i]++;
}

static void model_check_version(model *m, arbor_scene *s, int i)
{
    uint64_t v = arbor_node_world_version(s, m->h[i]);
    assert_int_not_equal(v, 0);
    if (m->last[i] != 0 && m->read_gen[i] == m->gen[i]) {
        if (v != m->last[i]) {
            print_error("node %d: version changed with nothing above it written\n", i);
            fail();
        }
    } else {
        for (int k = 0; k < m->nhist[i]; k++) {
            if (m->hist[i][k] == v) {
                print_error("node %d: version %llu returned again after a change\n", i, (unsigned long long)v);
                fail();
            }
        }
        if (m->nhist[i] < MODEL_HIST) m->hist[i][m->nhist[i]++] = v;
    }
    m->last[i] = v;
    m->read_gen[i] = m->gen[i];
}

static void model_check_world(model *m, arbor_scene *s, int i)
{
    /* chain of locals, root first */
    int path[MODEL_N], n = 0;
    for (int k = i; k >= 0; k = m->parent[k]) path[n++] = k;
    double acc[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, tmp[16], l[16];
    for (int k = n - 1; k >= 0; k--) {
        arbor_real lr[16];
        ASSERT_OK(arbor_node_local_matrix(s, m->h[path[k]], lr));
        test_reals_to_double(l, lr, 16);
        test_ref_mul(tmp, acc, l);
        memcpy(acc, tmp, sizeof acc);
    }
    arbor_real w[16];
    TEST_WORLD(s, m->h[i], w);
    ASSERT_MAT4_NEAR_D_REL(w, acc, TEST_EPS_ROUNDTRIP);
    ASSERT_NODE_EQ(arbor_node_parent(s, m->h[i]), m->parent[i] >= 0 ? m->h[m->parent[i]] : ARBOR_NONE);
}

static void test_version_model_random(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    model *m = calloc(1, sizeof *m);
    assert_non_null(m);
    test_rng rng = test_rng_make(0xC0FFEE);
    for (int i = 0; i < MODEL_N; i++) {
        m->parent[i] = (i == 0 || test_rng_uniform(&rng) < 0.1) ? -1 : (int)test_rng_below(&rng, (uint32_t)i);
        arbor_real q[4];
        test_rng_quat(&rng, q);
        m->h[i] = TEST_NODE(s, m->parent[i] >= 0 ? m->h[m->parent[i]] : ARBOR_NONE, NULL,
                            V3(test_rng_sym(&rng), test_rng_sym(&rng), test_rng_sym(&rng)), q,
                            V3(0.8 + 0.4 * test_rng_uniform(&rng), 0.8 + 0.4 * test_rng_uniform(&rng),
                               0.8 + 0.4 * test_rng_uniform(&rng)));
        m->gen[i] = 1;
    }
    for (int step = 0; step < 3000; step++) {
        int i = (int)test_rng_below(&rng, MODEL_N);
        double u = test_rng_uniform(&rng);
        if (u < 0.25) {
            arbor_real q[4];
            test_rng_quat(&rng, q);
            ASSERT_OK(arbor_node_set_rotation(s, m->h[i], q[0], q[1], q[2], q[3]));
            model_bump_subtree(m, i);
        } else if (u < 0.32) {
            ASSERT_OK(arbor_node_set_translation(s, m->h[i], (arbor_real)test_rng_sym(&rng),
                                                 (arbor_real)test_rng_sym(&rng), (arbor_real)test_rng_sym(&rng)));
            model_bump_subtree(m, i);
        } else if (u < 0.36) {
            int p = (int)test_rng_below(&rng, MODEL_N + 4) - 4; /* sometimes a root */
            if (p < 0) p = -1;
            arbor_reparent mode = test_rng_uniform(&rng) < 0.5 ? ARBOR_KEEP_LOCAL : ARBOR_KEEP_WORLD;
            arbor_result r = arbor_node_set_parent(s, m->h[i], p >= 0 ? m->h[p] : ARBOR_NONE, ARBOR_NONE, mode);
            if (p == i || (p >= 0 && model_is_ancestor(m, i, p))) {
                assert_int_equal(r, ARBOR_ERR_CYCLE);
            } else {
                assert_int_equal(r, ARBOR_OK);
                bool same_parent = m->parent[i] == p;
                m->parent[i] = p;
                /* a reorder within the same parent changes no transform */
                if (!same_parent) model_bump_subtree(m, i);
            }
        } else if (u < 0.40) {
            arbor_scene_update(s);
        } else if (u < 0.75) {
            model_check_version(m, s, i);
        } else {
            model_check_world(m, s, i);
            model_check_version(m, s, i);
        }
    }
    arbor_scene_update(s);
    for (int i = 0; i < MODEL_N; i++) {
        model_check_world(m, s, i);
        model_check_version(m, s, i);
    }
    free(m);
    arbor_scene_destroy(s);
}

/* ---- Lazy reads and batch updates agree bit for bit -------------------------------------------- */

#define RT_N 300

typedef struct rt_scene {
    arbor_scene *s;
    arbor_node h[RT_N];
} rt_scene;

static void rt_build(rt_scene *r, uint64_t seed)
{
    assert_int_equal(arbor_scene_create(NULL, &r->s), ARBOR_OK);
    assert_non_null(r->s);
    test_rng rng = test_rng_make(seed);
    for (int i = 0; i < RT_N; i++) {
        arbor_node parent = i == 0 ? ARBOR_NONE : r->h[test_rng_below(&rng, (uint32_t)i)];
        arbor_real q[4];
        test_rng_quat(&rng, q);
        double t0 = test_rng_sym(&rng), t1 = test_rng_sym(&rng), t2 = test_rng_sym(&rng);
        double s0 = 0.5 + test_rng_uniform(&rng), s1 = 0.5 + test_rng_uniform(&rng), s2 = 0.5 + test_rng_uniform(&rng);
        r->h[i] = TEST_NODE(r->s, parent, NULL, V3(t0, t1, t2), q, V3(s0, s1, s2));
    }
}

/* The same random edit, drawn from rng, applied to several scenes; every scene must answer alike. */
static void rt_edit(rt_scene *const *scenes, int count, test_rng *rng)
{
    int i = (int)test_rng_below(rng, RT_N);
    int j = (int)test_rng_below(rng, RT_N);
    double u = test_rng_uniform(rng);
    arbor_real q[4];
    test_rng_quat(rng, q);
    arbor_real a = (arbor_real)test_rng_sym(rng), b = (arbor_real)test_rng_sym(rng), c = (arbor_real)test_rng_sym(rng);
    arbor_real sx = (arbor_real)(0.5 + test_rng_uniform(rng)), sy = (arbor_real)(0.5 + test_rng_uniform(rng)),
               sz = (arbor_real)(0.5 + test_rng_uniform(rng));
    arbor_real m[16];
    arbor_mat4_compose(m, (arbor_real[3]){ a, b, c }, q, (arbor_real[3]){ sx, sy, sz });
    m[4] += (arbor_real)0.25; /* a shear: no TRS holds it */
    arbor_trs trs = { { a, b, c }, { q[0], q[1], q[2], q[3] }, { sx, sy, sz } };
    arbor_result first = ARBOR_OK;
    for (int k = 0; k < count; k++) {
        arbor_scene *s = scenes[k]->s;
        arbor_node n = scenes[k]->h[i], p = scenes[k]->h[j];
        arbor_result r;
        if (u < 0.3) r = arbor_node_set_rotation(s, n, q[0], q[1], q[2], q[3]);
        else if (u < 0.45) r = arbor_node_set_translation(s, n, a, b, c);
        else if (u < 0.6) r = arbor_node_set_scale(s, n, sx, sy, sz);
        else if (u < 0.75) r = arbor_node_set_trs(s, n, &trs);
        else if (u < 0.82) r = arbor_node_set_local_matrix(s, n, m, false);
        else if (u < 0.91) r = arbor_node_set_parent(s, n, p, ARBOR_NONE, ARBOR_KEEP_LOCAL);
        else r = arbor_node_set_parent(s, n, p, ARBOR_NONE, ARBOR_KEEP_WORLD);
        if (k == 0) first = r;
        else assert_int_equal(r, first);
    }
}

static void rt_compare_all(rt_scene *x, rt_scene *y)
{
    for (int i = 0; i < RT_N; i++) {
        arbor_real a[16], b[16];
        TEST_WORLD(x->s, x->h[i], a);
        TEST_WORLD(y->s, y->h[i], b);
        if (memcmp(a, b, sizeof a) != 0) {
            print_error("node %d: the world matrices differ in their bits\n", i);
            ASSERT_MAT4_NEAR(a, b, 0);
            fail();
        }
    }
}

/* Every world matrix of x against the product, in double, of its local matrices. */
static void rt_check_reference(rt_scene *x)
{
    for (int i = 0; i < RT_N; i++) {
        arbor_node path[RT_N];
        int n = 0;
        for (arbor_node k = x->h[i]; !arbor_node_is_none(k); k = arbor_node_parent(x->s, k)) {
            assert_true(n < RT_N);
            path[n++] = k;
        }
        double acc[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, tmp[16], l[16];
        for (int k = n - 1; k >= 0; k--) {
            arbor_real lr[16];
            ASSERT_OK(arbor_node_local_matrix(x->s, path[k], lr));
            test_reals_to_double(l, lr, 16);
            test_ref_mul(tmp, acc, l);
            memcpy(acc, tmp, sizeof acc);
        }
        double mag = 1;
        for (int k = 0; k < 16; k++)
            if (fabs(acc[k]) > mag) mag = fabs(acc[k]);
        arbor_real w[16];
        TEST_WORLD(x->s, x->h[i], w);
        ASSERT_MAT4_NEAR_D(w, acc, TEST_EPS_ROUNDTRIP * mag);
    }
}

static void test_lazy_and_batch_bitwise_equal(void **state)
{
    (void)state;
    rt_scene *A = calloc(1, sizeof *A), *B = calloc(1, sizeof *B), *C = calloc(1, sizeof *C);
    assert_true(A && B && C);
    rt_build(A, 77);
    rt_build(B, 77);
    rt_build(C, 77);
    rt_scene *all[3] = { A, B, C };
    test_rng rng = test_rng_make(1234);
    test_rng order_rng = test_rng_make(99);
    uint32_t order[RT_N];
    for (int round = 0; round < 25; round++) {
        int edits = 1 + (int)test_rng_below(&rng, 40);
        for (int e = 0; e < edits; e++) {
            rt_edit(all, 3, &rng);
            /* C: lazy reads between edits */
            if (test_rng_uniform(&order_rng) < 0.3) {
                arbor_real w[16];
                TEST_WORLD(C->s, C->h[test_rng_below(&order_rng, RT_N)], w);
            }
        }
        /* A: every world matrix read lazily, in a random order (leaves before parents too) */
        for (uint32_t i = 0; i < RT_N; i++) order[i] = i;
        for (uint32_t i = RT_N - 1; i > 0; i--) {
            uint32_t k = test_rng_below(&order_rng, i + 1);
            uint32_t tmp = order[i];
            order[i] = order[k];
            order[k] = tmp;
        }
        for (uint32_t i = 0; i < RT_N; i++) {
            arbor_real w[16];
            TEST_WORLD(A->s, A->h[order[i]], w);
        }
        /* B: one batch update, then the reads */
        arbor_scene_update(B->s);
        /* C: a few more lazy reads, then the update */
        for (int k = 0; k < 10; k++) {
            arbor_real w[16];
            TEST_WORLD(C->s, C->h[test_rng_below(&order_rng, RT_N)], w);
        }
        arbor_scene_update(C->s);
        /* after an update every matrix is current: reading them all composes nothing */
        arbor_scene_stats_reset(B->s);
        arbor_scene_stats_reset(C->s);
        for (int i = 0; i < RT_N; i++) {
            arbor_real w[16];
            TEST_WORLD(B->s, B->h[i], w);
            TEST_WORLD(C->s, C->h[i], w);
            (void)arbor_node_world_version(C->s, C->h[i]);
        }
        arbor_scene_stats sb, sc;
        arbor_scene_stats_get(B->s, &sb);
        arbor_scene_stats_get(C->s, &sc);
        assert_int_equal(sb.world_composed, 0);
        assert_int_equal(sc.world_composed, 0);
        assert_int_equal(sb.local_composed, 0);
        assert_int_equal(sc.local_composed, 0);
        rt_compare_all(A, B);
        rt_compare_all(A, C);
        /* the structure agrees too */
        for (int i = 0; i < RT_N; i++) {
            arbor_node pa = arbor_node_parent(A->s, A->h[i]);
            arbor_node pb = arbor_node_parent(B->s, B->h[i]);
            int ia = -1, ib = -1;
            for (int k = 0; k < RT_N; k++) {
                if (A->h[k].id == pa.id) ia = k;
                if (B->h[k].id == pb.id) ib = k;
            }
            assert_int_equal(ia, ib);
            assert_int_equal(arbor_node_is_matrix_backed(A->s, A->h[i]), arbor_node_is_matrix_backed(B->s, B->h[i]));
        }
        if (round % 8 == 0) rt_check_reference(B);
    }
    rt_check_reference(A);
    for (int k = 0; k < 3; k++) {
        arbor_scene_destroy(all[k]->s);
        free(all[k]);
    }
}

/* ---- Destroying and creating among pending work ------------------------------------------------ */

/* Writes, destroys (of nodes whose work is pending), creates that reuse the freed slots, lazy
   reads and updates, at random; after each update every live node is current (reading all
   composes nothing) and equals the product, in double, of its chain of local matrices. */
static void test_destroy_and_create_among_pending_work(void **state)
{
    (void)state;
    enum { N = 200 };
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    assert_non_null(s);
    test_rng rng = test_rng_make(0xD1E);
    arbor_node h[N];
    for (int i = 0; i < N; i++) {
        arbor_real q[4];
        test_rng_quat(&rng, q);
        arbor_node parent = i == 0 ? ARBOR_NONE : h[test_rng_below(&rng, (uint32_t)i)];
        h[i] = TEST_NODE(s, parent, NULL, V3(test_rng_sym(&rng), test_rng_sym(&rng), test_rng_sym(&rng)), q,
                         V3(0.9, 1.1, 1.0));
    }
    arbor_scene_update(s);
    for (int round = 0; round < 60; round++) {
        for (int op = 0; op < 30; op++) {
            int i = (int)test_rng_below(&rng, N);
            double u = test_rng_uniform(&rng);
            if (!arbor_node_alive(s, h[i])) {
                /* recreate it under a random live node (or as a root): the freed slot comes back */
                int j = (int)test_rng_below(&rng, N);
                arbor_node parent = arbor_node_alive(s, h[j]) ? h[j] : ARBOR_NONE;
                arbor_real q[4];
                test_rng_quat(&rng, q);
                arbor_node old = h[i];
                h[i] = TEST_NODE(s, parent, NULL, V3(test_rng_sym(&rng), 0, 1), q, NULL);
                assert_false(arbor_node_alive(s, old));
                assert_int_not_equal(arbor_node_world_version(s, h[i]), 0);
            } else if (u < 0.45) {
                arbor_real q[4];
                test_rng_quat(&rng, q);
                ASSERT_OK(arbor_node_set_rotation(s, h[i], q[0], q[1], q[2], q[3]));
            } else if (u < 0.55) {
                uint32_t before = arbor_scene_node_count(s);
                uint32_t size = arbor_node_collect_subtree(s, h[i], NULL, 0);
                ASSERT_OK(arbor_node_destroy(s, h[i]));
                assert_int_equal(arbor_scene_node_count(s), before - size);
            } else if (u < 0.65) {
                int j = (int)test_rng_below(&rng, N);
                if (arbor_node_alive(s, h[j]))
                    (void)arbor_node_set_parent(s, h[i], h[j], ARBOR_NONE,
                                                test_rng_uniform(&rng) < 0.5 ? ARBOR_KEEP_LOCAL : ARBOR_KEEP_WORLD);
            } else if (u < 0.8) {
                arbor_real w[16];
                TEST_WORLD(s, h[i], w);
            } else {
                ASSERT_OK(arbor_node_set_translation(s, h[i], 0, (arbor_real)test_rng_sym(&rng), 0));
            }
        }
        if (round % 7 == 3) arbor_scene_clear(s); /* pending entries of dead slots remain */
        arbor_scene_update(s);
        arbor_scene_stats_reset(s);
        uint32_t live = 0;
        for (arbor_node it = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(it);
             it = arbor_scene_next_node(s, it)) {
            arbor_real w[16];
            TEST_WORLD(s, it, w);
            live++;
        }
        assert_int_equal(live, arbor_scene_node_count(s));
        arbor_scene_stats st;
        arbor_scene_stats_get(s, &st);
        assert_int_equal(st.world_composed, 0);
        assert_int_equal(st.local_composed, 0);
        for (int i = 0; i < N; i++) {
            if (!arbor_node_alive(s, h[i])) continue;
            double acc[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, tmp[16], l[16];
            arbor_node path[N];
            int n = 0;
            for (arbor_node k = h[i]; !arbor_node_is_none(k); k = arbor_node_parent(s, k)) {
                assert_true(n < N);
                path[n++] = k;
            }
            for (int k = n - 1; k >= 0; k--) {
                arbor_real lr[16];
                ASSERT_OK(arbor_node_local_matrix(s, path[k], lr));
                test_reals_to_double(l, lr, 16);
                test_ref_mul(tmp, acc, l);
                memcpy(acc, tmp, sizeof acc);
            }
            arbor_real w[16];
            TEST_WORLD(s, h[i], w);
            ASSERT_MAT4_NEAR_D_REL(w, acc, TEST_EPS_ROUNDTRIP);
        }
    }
    arbor_scene_destroy(s);
}

/* ---- creating many nodes at once ---- */

/* arbor_scene_create_nodes makes what arbor_node_create makes one node at a time (the promise
   of scene.h): the same handles, with freed slots and ids reused alike (holes) or fresh ones,
   the same links, names, user pointers, TRS and matrices, world matrices and versions bit for
   bit, the same change list, subtree boxes and visibility; and a batch root and its batch
   child against the double-precision reference. */
static void create_nodes_as_one_by_one(bool holes, bool relaid)
{
    enum { N = 300 };
    static const arbor_real m[16] = { 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 7, 8, 9, 1 };
    static int users[N];
    static char names[N][16];
    arbor_scene *a, *b;
    ASSERT_OK(arbor_scene_create(NULL, &a));
    ASSERT_OK(arbor_scene_create(NULL, &b));
    arbor_node pre[2][6];
    arbor_scene *both[2] = { a, b };
    for (int k = 0; k < 2; k++) {
        ASSERT_OK(arbor_node_create(both[k], &(arbor_node_desc){ .name = "r" }, &pre[k][0]));
        for (int i = 1; i < 6; i++)
            ASSERT_OK(arbor_node_create(both[k], &(arbor_node_desc){ .parent = pre[k][i / 2], .translation = { 1, 0, 0 } }, &pre[k][i]));
        if (holes) ASSERT_OK(arbor_node_destroy(both[k], pre[k][2])); /* frees the slots and ids of 2, 4 and 5 */
        assert_int_equal(test_node_key(pre[k][5]), test_node_key(pre[0][5]));
        if (relaid) { /* 1 under 3, a slot above its own: the update renumbers, free ids stay, free slots go */
            ASSERT_OK(arbor_node_set_parent(both[k], pre[k][3], ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_LOCAL));
            ASSERT_OK(arbor_node_set_parent(both[k], pre[k][1], pre[k][3], ARBOR_NONE, ARBOR_KEEP_LOCAL));
            arbor_scene_update(both[k]);
            arbor_scene_stats st;
            arbor_scene_stats_get(both[k], &st);
            assert_int_equal(st.relayouts, 1);
        }
        /* what the scene tells the features built on it: boxes, visibility, change lists */
        ASSERT_OK(arbor_node_set_bounds(both[k], pre[k][0], (arbor_real[3]){ -1, -1, -1 }, (arbor_real[3]){ 1, 1, 1 }));
        ASSERT_OK(arbor_node_set_visible(both[k], pre[k][3], false));
        ASSERT_OK(arbor_scene_track_changes(both[k], true));
        arbor_scene_update(both[k]);
        arbor_real lo[3], hi[3];
        ASSERT_OK(arbor_node_subtree_bounds(both[k], pre[k][0], lo, hi));
        assert_false(arbor_node_visible(both[k], pre[k][3]));
    }
    arbor_node_desc d[N];
    int32_t parents[N];
    test_rng g = test_rng_make(0x5EED);
    for (int i = 0; i < N; i++) {
        arbor_node_desc x = { 0 };
        uint64_t kind = test_rng_next(&g) % 4;
        parents[i] = -1;
        if (kind == 1 && i) parents[i] = (int32_t)(test_rng_uniform(&g) * i);
        if (kind == 2) x.parent = pre[0][i % 2 ? 0 : 3];
        if (kind == 3 && i) parents[i] = i - 1;
        for (int c = 0; c < 3; c++) x.translation[c] = (arbor_real)test_rng_sym(&g);
        if (i % 4) /* every fourth left zero: identity */
            for (int c = 0; c < 4; c++) x.rotation[c] = (arbor_real)test_rng_sym(&g);
        if (i % 3) x.scale[0] = x.scale[1] = x.scale[2] = (arbor_real)(0.5 + test_rng_uniform(&g));
        if (i % 7 == 0) x.matrix = m, x.lock_matrix = i % 14 == 0;
        if (i % 3 == 0) snprintf(names[i], sizeof names[i], "n%d", i), x.name = names[i];
        if (i % 5 == 0) x.user = &users[i];
        d[i] = x;
    }
    arbor_node out[N], one[N];
    ASSERT_OK(arbor_scene_create_nodes(a, d, parents, N, out));
    for (int i = 0; i < N; i++) {
        arbor_node_desc x = d[i];
        if (parents[i] >= 0) x.parent = one[parents[i]];
        if (x.parent.id && parents[i] < 0) x.parent = pre[1][i % 2 ? 0 : 3]; /* b's own node */
        ASSERT_OK(arbor_node_create(b, &x, &one[i]));
        assert_int_equal(test_node_key(out[i]), test_node_key(one[i]));
    }
    arbor_scene_update(a);
    arbor_scene_update(b);
    assert_int_equal(arbor_scene_node_count(a), arbor_scene_node_count(b));
    arbor_node x = arbor_scene_next_node(a, ARBOR_NONE), y = arbor_scene_next_node(b, ARBOR_NONE);
    uint32_t seen = 0;
    for (; !arbor_node_is_none(x); x = arbor_scene_next_node(a, x), y = arbor_scene_next_node(b, y), seen++) {
        assert_int_equal(test_node_key(x), test_node_key(y));
        assert_int_equal(test_node_key(arbor_node_parent(a, x)), test_node_key(arbor_node_parent(b, y)));
        assert_int_equal(arbor_node_depth(a, x), arbor_node_depth(b, y));
        const char *na = arbor_node_name(a, x), *nb = arbor_node_name(b, y);
        assert_true(na == nb || (na && nb && !strcmp(na, nb)));
        assert_ptr_equal(arbor_node_user(a, x), arbor_node_user(b, y));
        assert_int_equal(arbor_node_is_locked(a, x), arbor_node_is_locked(b, y));
        assert_int_equal(arbor_node_is_matrix_backed(a, x), arbor_node_is_matrix_backed(b, y));
        arbor_trs ta, tb;
        ASSERT_OK(arbor_node_trs(a, x, &ta));
        ASSERT_OK(arbor_node_trs(b, y, &tb));
        assert_memory_equal(&ta, &tb, sizeof ta);
        arbor_real wa[16], wb[16];
        ASSERT_OK(arbor_node_local_matrix(a, x, wa));
        ASSERT_OK(arbor_node_local_matrix(b, y, wb));
        assert_memory_equal(wa, wb, sizeof wa);
        TEST_WORLD(a, x, wa);
        TEST_WORLD(b, y, wb);
        assert_memory_equal(wa, wb, sizeof wa);
        assert_int_equal(arbor_node_world_version(a, x), arbor_node_world_version(b, y));
        assert_int_equal(arbor_node_visible(a, x), arbor_node_visible(b, y));
    }
    assert_true(arbor_node_is_none(y));
    assert_int_equal(seen, (holes ? 6 - 3 : 6) + N);
    static arbor_node changed[2][N + 6];
    uint32_t listed = arbor_scene_changed(a, changed[0], N + 6);
    assert_int_equal(listed, arbor_scene_changed(b, changed[1], N + 6));
    assert_true(listed >= N);
    test_node_keys(changed[0], listed);
    test_node_keys(changed[1], listed);
    assert_memory_equal(changed[0], changed[1], listed * sizeof **changed);
    arbor_real box[2][6];
    ASSERT_OK(arbor_node_subtree_bounds(a, pre[0][0], box[0], box[0] + 3));
    ASSERT_OK(arbor_node_subtree_bounds(b, pre[1][0], box[1], box[1] + 3));
    assert_memory_equal(box[0], box[1], sizeof box[0]);
    /* The reference: d[1] under d[0] when the draw made it so, else any batch child of a root. */
    for (int i = 1; i < N; i++) {
        int32_t p = parents[i];
        if (p < 0 || parents[p] != -1 || d[p].parent.id || d[p].matrix || d[i].matrix) continue;
        double t[2][3], q[2][4], sc[2][3], wp[16], li[16], want[16];
        const arbor_node_desc *dd[2] = { &d[p], &d[i] };
        for (int k = 0; k < 2; k++) {
            bool zq = !dd[k]->rotation[0] && !dd[k]->rotation[1] && !dd[k]->rotation[2] && !dd[k]->rotation[3];
            for (int c = 0; c < 3; c++) t[k][c] = dd[k]->translation[c], sc[k][c] = dd[k]->scale[0] ? dd[k]->scale[c] : 1;
            for (int c = 0; c < 4; c++) q[k][c] = zq ? c == 3 : dd[k]->rotation[c];
        }
        test_ref_compose(wp, t[0], q[0], sc[0]);
        test_ref_compose(li, t[1], q[1], sc[1]);
        test_ref_mul(want, wp, li);
        arbor_real w[16];
        TEST_WORLD(a, out[i], w);
        ASSERT_MAT4_NEAR_D_REL(w, want, TEST_EPS);
        seen = 0;
        break;
    }
    assert_int_equal(seen, 0); /* the draw made such a pair */
    /* A few more into a current scene: a child of a current node and a root go to the update's
       pending list, a child of a new node does not; the next update computes just them. */
    arbor_node_desc few[4] = { { .parent = out[7] }, { .parent = out[8], .name = "x" }, { 0 }, { .translation = { 1, 2, 3 } } };
    int32_t few_parents[4] = { -1, -1, -1, 0 };
    arbor_node made[2][4];
    ASSERT_OK(arbor_scene_create_nodes(a, few, few_parents, 4, made[0]));
    for (int i = 0; i < 4; i++) {
        arbor_node_desc x = few[i];
        if (x.parent.id) x.parent = one[i ? 8 : 7];
        if (few_parents[i] >= 0) x.parent = made[1][few_parents[i]];
        ASSERT_OK(arbor_node_create(b, &x, &made[1][i]));
        assert_int_equal(test_node_key(made[0][i]), test_node_key(made[1][i]));
    }
    arbor_scene_update(a);
    arbor_scene_update(b);
    listed = arbor_scene_changed(a, changed[0], N + 6);
    assert_int_equal(listed, 4);
    assert_int_equal(arbor_scene_changed(b, changed[1], N + 6), 4);
    test_node_keys(changed[0], 4);
    test_node_keys(changed[1], 4);
    assert_memory_equal(changed[0], changed[1], 4 * sizeof **changed);
    for (int i = 0; i < 4; i++) assert_int_equal(arbor_node_world_version(a, made[0][i]), arbor_node_world_version(b, made[1][i]));
    arbor_scene_destroy(a);
    arbor_scene_destroy(b);
}

static void test_create_nodes_as_one_by_one(void **state)
{
    (void)state;
    create_nodes_as_one_by_one(true, false);
    create_nodes_as_one_by_one(true, true);
    create_nodes_as_one_by_one(false, false);
}

/* A refused bulk creation says which desc or parent index is wrong, creates nothing and leaves
   out and the next handles as they were. */
static void test_create_nodes_refused(void **state)
{
    (void)state;
    arbor_scene *s, *twin;
    ASSERT_OK(arbor_scene_create(&(arbor_scene_desc){ .max_depth = 3 }, &s));
    ASSERT_OK(arbor_scene_create(&(arbor_scene_desc){ .max_depth = 3 }, &twin));
    arbor_node r, deep, dead, tr, tdeep, tdead;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "r" }, &r));
    ASSERT_OK(arbor_node_create(twin, &(arbor_node_desc){ .name = "r" }, &tr));
    arbor_node chain = r, tchain = tr;
    for (int i = 0; i < 3; i++) {
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = chain }, &deep));
        ASSERT_OK(arbor_node_create(twin, &(arbor_node_desc){ .parent = tchain }, &tdeep));
        chain = deep, tchain = tdeep;
    }
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ 0 }, &dead));
    ASSERT_OK(arbor_node_create(twin, &(arbor_node_desc){ 0 }, &tdead));
    ASSERT_OK(arbor_node_destroy(s, dead));
    ASSERT_OK(arbor_node_destroy(twin, tdead));
    static const arbor_real bad_row[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2 };
    const struct {
        arbor_result code;
        const char *says;
        int32_t parents[4];
        arbor_node_desc bad; /* descs[2] */
        bool under_deep;     /* descs[0] a child of r's child (the depth in the batch) */
    } cases[] = {
        { ARBOR_ERR_INVALID_ARGUMENT, "parents[2] is 2", { -1, 0, 2, -1 }, { 0 }, false },
        { ARBOR_ERR_INVALID_ARGUMENT, "parents[2] is -2", { -1, 0, -2, -1 }, { 0 }, false },
        { ARBOR_ERR_INVALID_ARGUMENT, "descs[2] names a parent and parents[2]", { -1, 0, 1, -1 }, { .parent = r }, false },
        { ARBOR_ERR_DEAD_NODE, "descs[2]", { -1, 0, -1, -1 }, { .parent = dead }, false },
        { ARBOR_ERR_NONFINITE, "descs[2]: the TRS holds a NaN", { -1, 0, 1, -1 }, { .translation = { 0, NAN, 0 } }, false },
        { ARBOR_ERR_INVALID_ARGUMENT, "descs[2]: the scale (2, 0, 0) is partly given", { -1, 0, 1, -1 }, { .scale = { 2 } }, false },
        { ARBOR_ERR_INVALID_ARGUMENT, "descs[2]: the matrix's last row", { -1, 0, 1, -1 }, { .matrix = bad_row }, false },
        { ARBOR_ERR_DEPTH_LIMIT, "descs[2]: a child of node", { -1, 0, -1, -1 }, { .parent = deep }, false },
        { ARBOR_ERR_DEPTH_LIMIT, "descs[3]: a child of descs[2] would be at depth 4", { -1, 0, 0, 2 }, { 0 }, true },
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        arbor_node_desc d[4] = { { .name = "a" }, { .name = "b", .translation = { 1, 2, 3 } }, cases[c].bad, { .name = "d" } };
        if (cases[c].under_deep) d[0] = (arbor_node_desc){ .parent = arbor_node_first_child(s, r) };
        int32_t parents[4];
        memcpy(parents, cases[c].parents, sizeof parents);
        arbor_node out[4] = { { 7 }, { 7 }, { 7 }, { 7 } };
        assert_int_equal(arbor_scene_create_nodes(s, d, parents, 4, out), cases[c].code);
        if (!strstr(arbor_last_error(), cases[c].says)) fail_msg("case %zu: '%s' does not say '%s'", c, arbor_last_error(), cases[c].says);
        for (int i = 0; i < 4; i++) assert_int_equal(out[i].id, 7);
        assert_int_equal(arbor_scene_node_count(s), 4);
    }
    ASSERT_OK(arbor_scene_create_nodes(s, NULL, NULL, 0, NULL));
    /* Nothing changed: the next nodes get the handles a scene without the refused calls gives. */
    arbor_node_desc d[2] = { { .parent = r }, { 0 } };
    int32_t parents[2] = { -1, 0 };
    arbor_node out[2], t0, t1;
    ASSERT_OK(arbor_scene_create_nodes(s, d, parents, 2, out));
    ASSERT_OK(arbor_node_create(twin, &(arbor_node_desc){ .parent = tr }, &t0));
    ASSERT_OK(arbor_node_create(twin, &(arbor_node_desc){ .parent = t0 }, &t1));
    assert_int_equal(test_node_key(out[0]), test_node_key(t0));
    assert_int_equal(test_node_key(out[1]), test_node_key(t1));
    assert_int_equal(arbor_node_first_child(s, out[0]).id, out[1].id);
    assert_int_equal(arbor_node_child_count(s, r), 2);
    arbor_scene_destroy(s);
    arbor_scene_destroy(twin);
}

int main(void)
{
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_defaults),
        cmocka_unit_test(test_create_nodes_as_one_by_one),
        cmocka_unit_test(test_create_nodes_refused),
        cmocka_unit_test(test_create_partial_scale_refused),
        cmocka_unit_test(test_messages_name_nodes_by_path),
        cmocka_unit_test(test_rotation_normalised_extremes),
        cmocka_unit_test(test_scene_create_half_allocator),
        cmocka_unit_test(test_destroyed_handles_stay_dead),
        cmocka_unit_test(test_dead_handle_calls),
        cmocka_unit_test(test_single_node_reads_short_path),
        cmocka_unit_test(test_world_matrices_many),
        cmocka_unit_test(test_out_of_memory_refusal),
        cmocka_unit_test(test_sibling_order_insert_before),
        cmocka_unit_test(test_reorder_within_parent_changes_no_transform),
        cmocka_unit_test(test_before_equal_child),
        cmocka_unit_test(test_roots_are_siblings),
        cmocka_unit_test(test_keep_local_follows_new_parent),
        cmocka_unit_test(test_detach_keep_local),
        cmocka_unit_test(test_detach_keep_world),
        cmocka_unit_test(test_keep_world_plain),
        cmocka_unit_test(test_keep_world_mirror),
        cmocka_unit_test(test_keep_world_matrix_backed),
        cmocka_unit_test(test_keep_world_shear_becomes_matrix),
        cmocka_unit_test(test_keep_world_singular_parent_refused),
        cmocka_unit_test(test_refuse_cycle),
        cmocka_unit_test(test_refuse_dead_none_not_a_child_bad_mode),
        cmocka_unit_test(test_refuse_nonfinite),
        cmocka_unit_test(test_refuse_zero_rotation_and_bad_last_row),
        cmocka_unit_test(test_locked_matrix),
        cmocka_unit_test(test_unlocked_matrix_trs_write),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_collect_subtree),
        cmocka_unit_test(test_find_descendant_and_ancestor),
        cmocka_unit_test(test_links_depth_ancestry),
        cmocka_unit_test(test_scene_find_paths),
        cmocka_unit_test(test_next_node_order),
        cmocka_unit_test(test_destroy_subtree_and_clear),
        cmocka_unit_test(test_names_and_user),
        cmocka_unit_test(test_result_strings_and_last_error),
#ifdef TEST_HAVE_PTHREADS
        cmocka_unit_test(test_last_error_is_thread_local),
#endif
        cmocka_unit_test(test_version_own_write),
        cmocka_unit_test(test_write_in_tree_order_marks_its_subtree),
        cmocka_unit_test(test_version_unread_intermediates),
        cmocka_unit_test(test_version_reparent_detach),
        cmocka_unit_test(test_version_never_stale),
        cmocka_unit_test(test_version_model_random),
        cmocka_unit_test(test_lazy_and_batch_bitwise_equal),
        cmocka_unit_test(test_destroy_and_create_among_pending_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
