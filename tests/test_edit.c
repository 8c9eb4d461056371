/* SPDX-License-Identifier: MIT */
/*
 * tests/test_edit.c: edit.h: the journal, clones, foreign parents, change lists (issue 7; seed
 * 001's editor commands, seed 000's foreign parents).
 *
 * - undo and redo of every kind of edit, in random sequences (fixed seeds, printed on failure),
 *   each compared with the snapshot taken before and after it: handles, structure and sibling
 *   order, locals (TRS or matrix, lock), names, attachments and world matrices, bit for bit;
 *   groups committed and aborted; refused edits record nothing;
 * - a destroyed subtree comes back with the same handles, and its handles die for good once
 *   the step is dropped (the slot is then reused under a new generation);
 * - the limits (steps, bytes) drop the oldest steps and the memory is reported;
 * - writes that bypass the journal: undo swaps, and a step they broke is refused whole;
 * - clones against their sources, under their own descendants and into another scene;
 * - foreign parents that move and that stand still (no recompute, no matrix read), reads after
 *   an update that do not poll, keep-world, a node of another scene as a parent;
 * - change lists' exact contents after serial and parallel updates and lazy reads;
 * - an edited scene saved as glTF and loaded again keeps hierarchy, order and transforms;
 * - locals set as matrices (a shear, a rotation, a translation) through renumbering, undo and
 *   redo around attachment edits and a destroyed subtree, clones and a glTF round trip.
 */
#include "test_util.h"

#include "arbor/gltf.h"
#include "support/dump.h" /* test_node_keys: twins' handles */

/* ---- Snapshots: everything observable about every live node ------------------------------------ */

typedef struct node_state {
    arbor_node n, parent;
    uint32_t depth;
    char name[24];
    bool named, mb, locked, has_bounds, has_camera, has_light, foreign;
    arbor_trs trs;
    arbor_real local[16], world[16], bmin[3], bmax[3];
    int32_t mesh;
    arbor_camera camera;
    arbor_light light;
    void *user;
} node_state;

typedef struct snapshot {
    uint32_t count;
    node_state *nodes; /* in arbor_scene_next_node order: structure and sibling order */
} snapshot;

static snapshot snap(arbor_scene *s) {
    snapshot out = { arbor_scene_node_count(s), NULL };
    out.nodes = calloc(out.count ? out.count : 1, sizeof *out.nodes);
    uint32_t k = 0;
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(s, n)) {
        assert_true(k < out.count);
        node_state *ns = &out.nodes[k++];
        ns->n = n;
        ns->parent = arbor_node_parent(s, n);
        ns->depth = arbor_node_depth(s, n);
        const char *name = arbor_node_name(s, n);
        ns->named = name != NULL;
        if (name) snprintf(ns->name, sizeof ns->name, "%s", name);
        ns->mb = arbor_node_is_matrix_backed(s, n);
        ns->locked = arbor_node_is_locked(s, n);
        ns->foreign = arbor_node_has_foreign_parent(s, n);
        ASSERT_OK(arbor_node_trs(s, n, &ns->trs));
        ASSERT_OK(arbor_node_local_matrix(s, n, ns->local));
        ASSERT_OK(arbor_node_world_matrix(s, n, ns->world));
        ns->mesh = arbor_node_mesh(s, n);
        ASSERT_OK(arbor_node_bounds(s, n, ns->bmin, ns->bmax));
        ns->has_bounds = ns->bmin[0] <= ns->bmax[0];
        ns->has_camera = arbor_node_camera(s, n, &ns->camera) == ARBOR_OK;
        ns->has_light = arbor_node_light(s, n, &ns->light) == ARBOR_OK;
        ns->user = arbor_node_user(s, n);
    }
    assert_int_equal(k, out.count);
    return out;
}

static void snap_free(snapshot *a) {
    free(a->nodes);
    a->nodes = NULL;
}

/* Compares field by field; on a difference prints what, where and `context`, and fails. */
static void snap_equal_(const snapshot *a, const snapshot *b, const char *context, const char *file, int line) {
    const char *what = NULL;
    uint32_t i = 0;
    if (a->count != b->count) what = "node count";
    for (; !what && i < a->count; i++) {
        const node_state *x = &a->nodes[i], *y = &b->nodes[i];
        if (x->n.id != y->n.id) what = "handle (order, or a handle that did not come back)";
        else if (x->parent.id != y->parent.id || x->depth != y->depth) what = "parent or depth";
        else if (x->named != y->named || strcmp(x->name, y->name)) what = "name";
        else if (x->mb != y->mb || x->locked != y->locked) what = "matrix-backed or locked";
        else if (memcmp(&x->trs, &y->trs, sizeof x->trs)) what = "TRS";
        else if (memcmp(x->local, y->local, sizeof x->local)) what = "local matrix";
        else if (memcmp(x->world, y->world, sizeof x->world)) what = "world matrix";
        else if (x->mesh != y->mesh || x->user != y->user) what = "mesh or user";
        else if (x->has_bounds != y->has_bounds || (x->has_bounds && (memcmp(x->bmin, y->bmin, sizeof x->bmin) ||
                                                                      memcmp(x->bmax, y->bmax, sizeof x->bmax))))
            what = "bounds";
        else if (x->has_camera != y->has_camera || (x->has_camera && memcmp(&x->camera, &y->camera, sizeof x->camera)))
            what = "camera";
        else if (x->has_light != y->has_light || (x->has_light && memcmp(&x->light, &y->light, sizeof x->light)))
            what = "light";
        else if (x->foreign != y->foreign) what = "foreign parent";
        else continue;
        break;
    }
    if (what) {
        print_error("%s: the scenes differ in %s at node %u of %u/%u\n", context, what, i, a->count, b->count);
        _fail(file, line);
    }
}
#define SNAP_EQUAL(a, b, context) snap_equal_((a), (b), (context), __FILE__, __LINE__)

/* ---- Random edits -------------------------------------------------------------------------------- */

typedef struct fuzz {
    arbor_scene *s;
    arbor_journal *j;
    test_rng rng;
    arbor_node nodes[512];
    uint32_t count;
    char what[160];   /* the last edit, for messages */
} fuzz;

static void gather(fuzz *f) {
    f->count = 0;
    for (arbor_node n = arbor_scene_next_node(f->s, ARBOR_NONE); !arbor_node_is_none(n) && f->count < 512;
         n = arbor_scene_next_node(f->s, n))
        f->nodes[f->count++] = n;
}

static arbor_node pick(fuzz *f) { return f->count ? f->nodes[test_rng_below(&f->rng, f->count)] : ARBOR_NONE; }
static arbor_node pick_or_none(fuzz *f) { return test_rng_below(&f->rng, 5) == 0 ? ARBOR_NONE : pick(f); }
static arbor_real rnd(fuzz *f, double lo, double hi) { return (arbor_real)(lo + (hi - lo) * test_rng_uniform(&f->rng)); }

/* A child of parent (a root when parent is NONE) at random, or NONE. */
static arbor_node pick_child(fuzz *f, arbor_node parent) {
    arbor_node c = arbor_node_is_none(parent) ? arbor_scene_first_root(f->s) : arbor_node_first_child(f->s, parent);
    for (uint32_t k = test_rng_below(&f->rng, 4); k && !arbor_node_is_none(c); k--) c = arbor_node_next_sibling(f->s, c);
    return c;
}

/* An affine matrix: a TRS, or (one time in three) with a shear. */
static void random_matrix(fuzz *f, arbor_real m[16]) {
    arbor_real t[3] = { rnd(f, -2, 2), rnd(f, -2, 2), rnd(f, -2, 2) }, q[4], sc[3] = { rnd(f, 0.5, 2), rnd(f, 0.5, 2), rnd(f, 0.5, 2) };
    test_rng_quat(&f->rng, q);
    arbor_mat4_compose(m, t, q, sc);
    if (test_rng_below(&f->rng, 3) == 0) m[4] = (arbor_real)(m[4] + 0.5);
}

static void *user_pointer(uint32_t k) { return (void *)(uintptr_t)(0x1000 + 16 * k); }

/* One edit through the journal; its result (refusals are part of the game). */
static arbor_result random_edit(fuzz *f) {
    gather(f);
    arbor_scene *s = f->s;
    arbor_journal *j = f->j;
    arbor_node n = pick(f), p = pick_or_none(f);
    uint32_t kind = f->count ? test_rng_below(&f->rng, 16) : 0;
    if (f->count > 120 && kind < 3) kind = 1; /* keep the scene small */
    arbor_real m[16], q[4];
    snprintf(f->what, sizeof f->what, "edit %u on %llx under %llx", kind, (unsigned long long)n.id, (unsigned long long)p.id);
    switch (kind) {
    case 0: {
        arbor_node_desc d = { .parent = p, .name = test_rng_below(&f->rng, 3) ? "made" : NULL };
        if (test_rng_below(&f->rng, 3) == 0) {
            random_matrix(f, m);
            d.matrix = m;
            d.lock_matrix = test_rng_below(&f->rng, 2);
        } else {
            d.translation[1] = rnd(f, -1, 1);
            test_rng_quat(&f->rng, d.rotation);
        }
        arbor_node made;
        return arbor_journal_create_node(j, &d, &made);
    }
    case 1: return f->count > 4 ? arbor_journal_destroy_node(j, n) : ARBOR_ERR_INVALID_ARGUMENT;
    case 2: {
        arbor_node made;
        if (arbor_node_collect_subtree(s, n, NULL, 0) > 24) return ARBOR_ERR_INVALID_ARGUMENT;
        return arbor_journal_clone(j, s, n, p, &made);
    }
    case 3:
    case 4:
        return arbor_journal_set_parent(j, n, p, pick_child(f, p), kind == 3 ? ARBOR_KEEP_LOCAL : ARBOR_KEEP_WORLD);
    case 5: return arbor_journal_set_translation(j, n, rnd(f, -2, 2), rnd(f, -2, 2), rnd(f, -2, 2));
    case 6:
        test_rng_quat(&f->rng, q);
        return arbor_journal_set_rotation(j, n, q[0], q[1], q[2], q[3]);
    case 7: {
        arbor_real sign = test_rng_below(&f->rng, 4) == 0 ? -1 : 1; /* a mirror now and then */
        return arbor_journal_set_scale(j, n, sign * rnd(f, 0.5, 2), rnd(f, 0.5, 2), rnd(f, 0.5, 2));
    }
    case 8: {
        arbor_trs trs = { { rnd(f, -1, 1), 0, 0 }, { 0, 0, 0, 1 }, { 1, rnd(f, 0.5, 2), 1 } };
        test_rng_quat(&f->rng, trs.rotation);
        return arbor_journal_set_trs(j, n, &trs);
    }
    case 9:
        random_matrix(f, m);
        return arbor_journal_set_local_matrix(j, n, m, test_rng_below(&f->rng, 2));
    case 10: {
        char name[16];
        snprintf(name, sizeof name, "n%u", test_rng_below(&f->rng, 100));
        return arbor_journal_set_name(j, n, test_rng_below(&f->rng, 4) ? name : NULL);
    }
    case 11: return arbor_journal_set_mesh(j, n, (int32_t)test_rng_below(&f->rng, 4) - 1);
    case 12: {
        arbor_real lo[3] = { -1, rnd(f, -2, -1), -1 }, hi[3] = { 1, 1, rnd(f, 1, 2) };
        bool remove = test_rng_below(&f->rng, 3) == 0;
        return arbor_journal_set_bounds(j, n, remove ? NULL : lo, remove ? NULL : hi);
    }
    case 13: {
        arbor_camera c = { .type = ARBOR_CAMERA_PERSPECTIVE, .yfov = rnd(f, 0.5, 1.5), .znear = 0.1f, .zfar = 100 };
        return arbor_journal_set_camera(j, n, test_rng_below(&f->rng, 3) ? &c : NULL);
    }
    case 14: {
        arbor_light l = { .type = ARBOR_LIGHT_POINT, .color = { 1, rnd(f, 0, 1), 1 }, .intensity = rnd(f, 0, 5) };
        return arbor_journal_set_light(j, n, test_rng_below(&f->rng, 3) ? &l : NULL);
    }
    default: return arbor_journal_set_user(j, n, test_rng_below(&f->rng, 3) ? user_pointer(test_rng_below(&f->rng, 50)) : NULL);
    }
}

static void fuzz_scene(fuzz *f, uint64_t seed, uint32_t max_steps) {
    assert_int_equal(arbor_scene_create(NULL, &f->s), ARBOR_OK);
    f->rng = test_rng_make(seed);
    arbor_journal_desc desc = { .max_steps = max_steps, .max_bytes = (size_t)1 << 40 };
    ASSERT_OK(arbor_journal_create(f->s, &desc, &f->j));
    /* A starting forest, built outside the journal (not undoable). */
    arbor_node made[24];
    for (int i = 0; i < 24; i++) {
        arbor_node_desc d = { .parent = i < 3 ? ARBOR_NONE : made[test_rng_below(&f->rng, (uint32_t)i)], .name = "base" };
        d.translation[0] = (arbor_real)(i % 5) - 2;
        test_rng_quat(&f->rng, d.rotation);
        ASSERT_OK(arbor_node_create(f->s, &d, &made[i]));
    }
}

/* r must be ARBOR_OK; else fails, naming the seed and operation. */
static void must(arbor_result r, const char *context) {
    if (r) fail_msg("%s: %s (%s)", context, arbor_result_string(r), arbor_last_error());
}

/* Steps are compared with the snapshots taken around them: snaps[k] is the scene after k steps
   of the current history, pos the step the scene is at, lowest the oldest step the journal
   still keeps (seeds above 12 run with a step limit of 7). */
static void test_random_undo_redo(void **state) {
    (void)state;
    arbor_pool *pool = NULL;
    assert_int_equal(arbor_pool_create(2, &pool), ARBOR_OK);
    arbor_executor ex = arbor_pool_executor(pool);
    for (uint64_t seed = 1; seed <= 16; seed++) {
        fuzz f;
        uint32_t max_steps = seed > 12 ? 7 : 100000;
        fuzz_scene(&f, seed, max_steps);
        enum { MAX_SNAPS = 400 };
        snapshot *snaps = calloc(MAX_SNAPS, sizeof *snaps);
        uint32_t top = 0, pos = 0, steps = 0, lowest = 0;
        snaps[0] = snap(f.s);
        char context[400];
        for (uint32_t op = 0; op < 300; op++) {
            snprintf(context, sizeof context, "seed %llu, operation %u", (unsigned long long)seed, op);
            uint32_t roll = test_rng_below(&f.rng, 20);
            arbor_journal_stats st;
            arbor_journal_stats_get(f.j, &st);
            if (st.undo_steps != pos - lowest || st.redo_steps != top - pos)
                fail_msg("%s: the journal has %u undo and %u redo steps, expected %u and %u", context, st.undo_steps,
                         st.redo_steps, pos - lowest, top - pos);
            if (roll < 5 && pos > lowest) {
                must(arbor_journal_undo(f.j), context);
                snapshot now = snap(f.s);
                snprintf(context + strlen(context), 64, ", undo to step %u", pos - 1);
                SNAP_EQUAL(&now, &snaps[--pos], context);
                snap_free(&now);
            } else if (roll < 8 && pos < top) {
                must(arbor_journal_redo(f.j), context);
                snapshot now = snap(f.s);
                snprintf(context + strlen(context), 64, ", redo to step %u", pos + 1);
                SNAP_EQUAL(&now, &snaps[++pos], context);
                snap_free(&now);
            } else if (roll == 8) {
                if (test_rng_below(&f.rng, 2)) arbor_scene_update_parallel(f.s, &ex);
                else arbor_scene_update(f.s);
            } else if (top + 1 < MAX_SNAPS) {
                /* One edit, or a group of up to four (aborted one time in three). */
                bool group = test_rng_below(&f.rng, 4) == 0, abort = group && test_rng_below(&f.rng, 3) == 0;
                uint32_t edits = group ? 1 + test_rng_below(&f.rng, 4) : 1, ok = 0;
                snapshot before = snap(f.s);
                if (group) must(arbor_journal_begin(f.j), context);
                for (uint32_t e = 0; e < edits; e++) {
                    arbor_journal_stats_get(f.j, &st);
                    snapshot pre = snap(f.s);
                    arbor_result r = random_edit(&f);
                    if (r == ARBOR_OK) {
                        ok++;
                    } else { /* refused: nothing changed, nothing recorded */
                        arbor_journal_stats after;
                        arbor_journal_stats_get(f.j, &after);
                        snapshot now = snap(f.s);
                        size_t used = strlen(context);
                        snprintf(context + used, sizeof context - used, ", refused %.100s", f.what);
                        SNAP_EQUAL(&now, &pre, context);
                        assert_int_equal(after.records, st.records);
                        assert_int_equal(after.redo_steps, st.redo_steps);
                        snap_free(&now);
                    }
                    snap_free(&pre);
                }
                if (abort) {
                    must(arbor_journal_abort(f.j), context);
                    snapshot now = snap(f.s);
                    strcat(context, ", abort");
                    SNAP_EQUAL(&now, &before, context);
                    snap_free(&now);
                    snap_free(&before);
                } else {
                    if (group) must(arbor_journal_commit(f.j), context);
                    snap_free(&before);
                    if (ok) {
                        for (uint32_t k = pos + 1; k <= top; k++) snap_free(&snaps[k]);
                        snaps[++pos] = snap(f.s);
                        top = pos;
                        steps++;
                        if (top - lowest > max_steps) lowest = top - max_steps;
                    }
                }
            }
        }
        /* Back to the oldest step kept, then forward to the end. */
        snprintf(context, sizeof context, "seed %llu, the whole history", (unsigned long long)seed);
        for (; pos > lowest; pos--) must(arbor_journal_undo(f.j), context);
        assert_int_equal(arbor_journal_undo(f.j), ARBOR_ERR_INVALID_ARGUMENT);
        snapshot now = snap(f.s);
        SNAP_EQUAL(&now, &snaps[lowest], context);
        snap_free(&now);
        for (; pos < top; pos++) must(arbor_journal_redo(f.j), context);
        now = snap(f.s);
        SNAP_EQUAL(&now, &snaps[top], context);
        snap_free(&now);
        assert_true(steps > 100);
        for (uint32_t k = 0; k <= top; k++) snap_free(&snaps[k]);
        free(snaps);
        arbor_scene_destroy(f.s); /* the nodes its journal holds with it */
        arbor_journal_destroy(f.j); /* after its scene: inert, then freed */
    }
    arbor_pool_destroy(pool);
}

/* ---- Destruction and handles --------------------------------------------------------------------- */

static void test_undo_destroy_brings_back_the_same_handles(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, &(arbor_journal_desc){ .max_steps = 2 }, &j));
    arbor_node root = TEST_NODE(s, ARBOR_NONE, "root", V3(1, 0, 0), NULL, NULL);
    arbor_node a = TEST_NODE(s, root, "a", V3(0, 1, 0), NULL, NULL);
    arbor_node b = TEST_NODE(s, root, "b", V3(0, 2, 0), NULL, NULL);
    arbor_node c = TEST_NODE(s, root, "c", V3(0, 3, 0), NULL, NULL);
    arbor_node b1 = TEST_NODE(s, b, "b1", NULL, NULL, V3(2, 2, 2));
    arbor_node b2 = TEST_NODE(s, b, "b2", NULL, NULL, NULL);
    const arbor_real m[16] = { 1, 0, 0, 0, 0.5f, 1, 0, 0, 0, 0, 1, 0, 4, 5, 6, 1 }; /* a shear */
    ASSERT_OK(arbor_node_set_local_matrix(s, b2, m, true));
    ASSERT_OK(arbor_node_set_mesh(s, b1, 7));
    ASSERT_OK(arbor_node_set_user(s, b1, &state));
    ASSERT_OK(arbor_node_set_camera(s, b2, &(arbor_camera){ .type = ARBOR_CAMERA_PERSPECTIVE, .yfov = 1, .znear = 0.5f }));
    snapshot before = snap(s);

    ASSERT_OK(arbor_journal_destroy_node(j, b));
    assert_false(arbor_node_alive(s, b));
    assert_false(arbor_node_alive(s, b1));
    assert_int_equal(arbor_scene_node_count(s), 3);
    ASSERT_NODE_EQ(arbor_node_next_sibling(s, a), c);
    arbor_journal_stats st;
    arbor_journal_stats_get(j, &st);
    assert_int_equal(st.held_nodes, 3);
    assert_true(st.bytes >= 3 * 150);
    /* New nodes do not take the held slots. */
    arbor_node other = TEST_NODE(s, ARBOR_NONE, "other", NULL, NULL, NULL);
    assert_int_not_equal((uint32_t)other.id, (uint32_t)b.id);
    assert_int_not_equal((uint32_t)other.id, (uint32_t)b1.id);
    ASSERT_OK(arbor_node_destroy(s, other));

    ASSERT_OK(arbor_journal_undo(j));
    snapshot now = snap(s);
    SNAP_EQUAL(&now, &before, "undo of a destruction");
    snap_free(&now);
    ASSERT_NODE_EQ(arbor_node_next_sibling(s, b), c); /* its place among its siblings */
    ASSERT_NODE_EQ(arbor_node_first_child(s, b), b1);
    assert_int_equal(arbor_node_mesh(s, b1), 7);
    assert_ptr_equal(arbor_node_user(s, b1), &state);
    assert_true(arbor_node_is_locked(s, b2));
    ASSERT_OK(arbor_journal_redo(j));
    assert_false(arbor_node_alive(s, b2));
    ASSERT_OK(arbor_journal_undo(j));

    /* Destroyed again, and the step dropped by the step limit: the handles stay dead, and their
       slots come back under new generations. */
    ASSERT_OK(arbor_journal_destroy_node(j, b));
    ASSERT_OK(arbor_journal_set_translation(j, a, 0, 9, 0));
    ASSERT_OK(arbor_journal_set_translation(j, c, 0, 9, 0));
    arbor_journal_stats_get(j, &st);
    assert_int_equal(st.undo_steps, 2);
    assert_int_equal(st.held_nodes, 0);
    assert_true(st.dropped_steps >= 1);
    arbor_node again[3];
    for (int i = 0; i < 3; i++) {
        again[i] = TEST_NODE(s, ARBOR_NONE, "again", NULL, NULL, NULL);
        assert_false(arbor_node_alive(s, b) || arbor_node_alive(s, b1) || arbor_node_alive(s, b2));
    }
    /* The three freed slots are reused (a free list), each under a new generation. */
    uint32_t old_slots[3] = { (uint32_t)b.id, (uint32_t)b1.id, (uint32_t)b2.id }, reused = 0;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            if ((uint32_t)again[i].id == old_slots[k]) reused++;
    assert_int_equal(reused, 3);
    ASSERT_OK(arbor_journal_undo(j));
    ASSERT_OK(arbor_journal_undo(j));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_journal_undo", arbor_journal_undo(j));
    assert_false(arbor_node_alive(s, b));
    snap_free(&before);
    arbor_scene_destroy(s);
    arbor_journal_destroy(j); /* after its scene: inert, then freed */
}

static void test_undo_create_and_clone(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_journal_create", arbor_journal_create(s, NULL, &j));
    assert_ptr_equal(arbor_scene_journal(s), j);
    assert_ptr_equal(arbor_journal_scene(j), s);
    arbor_node root, kid, copy;
    ASSERT_OK(arbor_journal_create_node(j, &(arbor_node_desc){ .name = "root" }, &root));
    ASSERT_OK(arbor_journal_create_node(j, &(arbor_node_desc){ .name = "kid", .parent = root, .translation = { 1, 2, 3 } }, &kid));
    ASSERT_OK(arbor_journal_clone(j, s, root, ARBOR_NONE, &copy));
    assert_int_equal(arbor_scene_node_count(s), 4);
    ASSERT_OK(arbor_journal_undo(j)); /* the clone */
    assert_int_equal(arbor_scene_node_count(s), 2);
    assert_false(arbor_node_alive(s, copy));
    ASSERT_OK(arbor_journal_undo(j)); /* the kid */
    assert_false(arbor_node_alive(s, kid));
    ASSERT_OK(arbor_journal_redo(j));
    ASSERT_OK(arbor_journal_redo(j));
    assert_true(arbor_node_alive(s, kid) && arbor_node_alive(s, copy));
    ASSERT_NODE_EQ(arbor_node_parent(s, kid), root);
    arbor_real w[16];
    TEST_WORLD(s, arbor_node_first_child(s, copy), w);
    ASSERT_VEC3_NEAR(w + 12, 1, 2, 3, 0);
    /* A refused edit records nothing and keeps the redo history. */
    ASSERT_OK(arbor_journal_undo(j));
    ASSERT_REFUSED(ARBOR_ERR_CYCLE, "arbor_node_set_parent", arbor_journal_set_parent(j, root, kid, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_journal_set_translation", arbor_journal_set_translation(j, copy, 0, 0, 0));
    arbor_journal_stats st;
    arbor_journal_stats_get(j, &st);
    assert_int_equal(st.undo_steps, 2);
    assert_int_equal(st.redo_steps, 1);
    /* A new edit drops it: the clone's handles die for good. */
    ASSERT_OK(arbor_journal_set_name(j, kid, "renamed"));
    arbor_journal_stats_get(j, &st);
    assert_int_equal(st.redo_steps, 0);
    assert_int_equal(st.held_nodes, 0);
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_journal_redo", arbor_journal_redo(j));
    assert_string_equal(arbor_node_name(s, kid), "renamed");
    ASSERT_OK(arbor_journal_undo(j));
    assert_string_equal(arbor_node_name(s, kid), "kid");
    arbor_journal_destroy(j);
    assert_null(arbor_scene_journal(s));
    arbor_scene_destroy(s);
}

/* ---- Groups ---------------------------------------------------------------------------------------- */

static void test_groups(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    arbor_node a = TEST_NODE(s, ARBOR_NONE, "a", NULL, NULL, NULL), b = TEST_NODE(s, ARBOR_NONE, "b", NULL, NULL, NULL);
    snapshot start = snap(s);
    ASSERT_OK(arbor_journal_begin(j));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_journal_begin", arbor_journal_begin(j));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_journal_undo", arbor_journal_undo(j));
    /* A dragged gizmo: a hundred writes, one record. */
    for (int i = 0; i < 100; i++) ASSERT_OK(arbor_journal_set_translation(j, a, (arbor_real)i, 0, 0));
    ASSERT_OK(arbor_journal_set_parent(j, b, a, ARBOR_NONE, ARBOR_KEEP_WORLD));
    ASSERT_OK(arbor_journal_set_name(j, b, "b1"));
    ASSERT_OK(arbor_journal_set_name(j, b, "b2"));
    arbor_journal_stats st;
    arbor_journal_stats_get(j, &st);
    assert_int_equal(st.records, 4); /* translation, place, local, name */
    assert_int_equal(st.undo_steps, 0);
    ASSERT_OK(arbor_journal_commit(j));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_journal_commit", arbor_journal_commit(j));
    snapshot done = snap(s);
    arbor_journal_stats_get(j, &st);
    assert_int_equal(st.undo_steps, 1);
    ASSERT_OK(arbor_journal_undo(j));
    snapshot now = snap(s);
    SNAP_EQUAL(&now, &start, "undo of a group");
    snap_free(&now);
    ASSERT_OK(arbor_journal_redo(j));
    now = snap(s);
    SNAP_EQUAL(&now, &done, "redo of a group");
    snap_free(&now);
    assert_string_equal(arbor_node_name(s, b), "b2");
    /* abort rolls back and forgets; an empty group makes no step. */
    ASSERT_OK(arbor_journal_begin(j));
    ASSERT_OK(arbor_journal_destroy_node(j, a));
    arbor_node c;
    ASSERT_OK(arbor_journal_create_node(j, &(arbor_node_desc){ .name = "c" }, &c));
    ASSERT_OK(arbor_journal_abort(j));
    assert_false(arbor_node_alive(s, c));
    now = snap(s);
    SNAP_EQUAL(&now, &done, "abort");
    snap_free(&now);
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_journal_abort", arbor_journal_abort(j));
    ASSERT_OK(arbor_journal_begin(j));
    ASSERT_OK(arbor_journal_commit(j));
    arbor_journal_stats_get(j, &st);
    assert_int_equal(st.undo_steps, 1);
    assert_int_equal(st.records, 4);
    assert_int_equal(st.held_nodes, 0);
    arbor_journal_clear(j);
    arbor_journal_stats_get(j, &st);
    assert_int_equal(st.undo_steps + st.redo_steps + st.records, 0);
    snap_free(&start);
    snap_free(&done);
    arbor_scene_destroy(s);
    arbor_journal_destroy(j); /* after its scene: inert, then freed */
}

/* ---- Limits and memory ---------------------------------------------------------------------------- */

static void test_limits_and_memory(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, &(arbor_journal_desc){ .max_steps = 3 }, &j));
    arbor_node n = TEST_NODE(s, ARBOR_NONE, "n", NULL, NULL, NULL);
    for (int i = 1; i <= 5; i++) ASSERT_OK(arbor_journal_set_translation(j, n, (arbor_real)i, 0, 0));
    arbor_journal_stats st;
    arbor_journal_stats_get(j, &st);
    assert_int_equal(st.undo_steps, 3);
    assert_int_equal(st.dropped_steps, 2);
    for (int i = 0; i < 3; i++) ASSERT_OK(arbor_journal_undo(j));
    arbor_real w[16];
    TEST_WORLD(s, n, w);
    assert_true(w[12] == 2); /* the two oldest steps are gone: x = 2 is as far back as it goes */
    arbor_journal_destroy(j);

    /* Bytes: a held subtree counts its scene storage; a byte limit drops older steps but keeps
       the newest even when it alone is larger. */
    ASSERT_OK(arbor_journal_create(s, &(arbor_journal_desc){ .max_bytes = 100000 }, &j));
    arbor_node big = TEST_NODE(s, ARBOR_NONE, "big", NULL, NULL, NULL);
    for (int i = 0; i < 1000; i++) TEST_NODE(s, big, NULL, NULL, NULL, NULL);
    ASSERT_OK(arbor_journal_set_translation(j, n, 0, 1, 0));
    arbor_journal_stats_get(j, &st);
    size_t small = st.bytes;
    assert_true(small > 0 && small < 1000);
    ASSERT_OK(arbor_journal_destroy_node(j, big));
    arbor_journal_stats_get(j, &st);
    assert_int_equal(st.held_nodes, 1001);
    assert_true(st.bytes >= 1001 * 100);
    assert_int_equal(st.undo_steps, 1);
    assert_int_equal(st.dropped_steps, 1);
    ASSERT_OK(arbor_journal_undo(j));
    assert_int_equal(arbor_scene_node_count(s), 1002);
    assert_int_equal(arbor_node_child_count(s, big), 1000);
    arbor_scene_destroy(s);
    arbor_journal_destroy(j); /* after its scene: inert, then freed */
}

/* ---- Bypassing writes ------------------------------------------------------------------------------ */

static void test_bypassing_writes(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    arbor_node a = TEST_NODE(s, ARBOR_NONE, "a", NULL, NULL, NULL), b = TEST_NODE(s, a, "b", NULL, NULL, NULL);
    arbor_real w[16];
    /* Undo puts back what the step found; redo what undo found. */
    ASSERT_OK(arbor_journal_set_translation(j, a, 1, 0, 0));
    ASSERT_OK(arbor_node_set_translation(s, a, 2, 0, 0)); /* not undoable */
    ASSERT_OK(arbor_journal_undo(j));
    TEST_WORLD(s, a, w);
    assert_true(w[12] == 0);
    ASSERT_OK(arbor_journal_redo(j));
    TEST_WORLD(s, a, w);
    assert_true(w[12] == 2);

    /* A step whose node a bypassing write destroyed is refused whole, with nothing changed. */
    ASSERT_OK(arbor_journal_begin(j));
    ASSERT_OK(arbor_journal_set_translation(j, a, 5, 0, 0));
    ASSERT_OK(arbor_journal_set_translation(j, b, 0, 5, 0));
    ASSERT_OK(arbor_journal_set_name(j, a, "A"));
    ASSERT_OK(arbor_journal_commit(j));
    arbor_node c = TEST_NODE(s, b, "c", NULL, NULL, NULL);
    ASSERT_OK(arbor_journal_destroy_node(j, c));
    ASSERT_OK(arbor_journal_undo(j)); /* c is back */
    ASSERT_OK(arbor_node_destroy(s, b)); /* with c, outside the journal */
    snapshot before = snap(s);
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_journal_undo", arbor_journal_undo(j));
    snapshot now = snap(s);
    SNAP_EQUAL(&now, &before, "a refused undo");
    snap_free(&now);
    assert_string_equal(arbor_node_name(s, a), "A"); /* the name was swapped back by the rollback */
    arbor_journal_stats st;
    arbor_journal_stats_get(j, &st);
    assert_int_equal(st.undo_steps, 2);
    /* A place taken: the sibling a node goes back before was moved elsewhere. */
    arbor_journal_clear(j);
    arbor_node p = TEST_NODE(s, ARBOR_NONE, "p", NULL, NULL, NULL), q = TEST_NODE(s, ARBOR_NONE, "q", NULL, NULL, NULL);
    arbor_node x = TEST_NODE(s, p, "x", NULL, NULL, NULL), y = TEST_NODE(s, p, "y", NULL, NULL, NULL);
    ASSERT_OK(arbor_journal_destroy_node(j, x));
    ASSERT_OK(arbor_node_set_parent(s, y, q, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_REFUSED(ARBOR_ERR_NOT_A_CHILD, "arbor_journal_undo", arbor_journal_undo(j));
    assert_false(arbor_node_alive(s, x));
    ASSERT_OK(arbor_node_set_parent(s, y, p, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_journal_undo(j));
    ASSERT_NODE_EQ(arbor_node_next_sibling(s, x), y);
    snap_free(&before);
    arbor_scene_destroy(s);
    arbor_journal_destroy(j); /* after its scene: inert, then freed */
}

/* ---- Clones ----------------------------------------------------------------------------------------- */

/* The subtrees of a (in sa) and b (in sb) are copies: same shape and order, same locals (bits),
   names and attachments; world matrices equal when `same_world`. */
static void assert_copy(arbor_scene *sa, arbor_node a, arbor_scene *sb, arbor_node b, bool same_world) {
    arbor_node x = a, y = b;
    uint32_t count = 0;
    while (!arbor_node_is_none(x)) {
        assert_false(arbor_node_is_none(y));
        assert_true(x.id != y.id || sa != sb);
        const char *nx = arbor_node_name(sa, x), *ny = arbor_node_name(sb, y);
        assert_true((nx == NULL) == (ny == NULL));
        if (nx) assert_string_equal(nx, ny);
        assert_true(nx != ny || !nx); /* names are copied */
        arbor_trs tx, ty;
        arbor_real lx[16], ly[16], wx[16], wy[16], bx[6], by[6];
        ASSERT_OK(arbor_node_trs(sa, x, &tx));
        ASSERT_OK(arbor_node_trs(sb, y, &ty));
        assert_memory_equal(&tx, &ty, sizeof tx);
        ASSERT_OK(arbor_node_local_matrix(sa, x, lx));
        ASSERT_OK(arbor_node_local_matrix(sb, y, ly));
        ASSERT_REALS_BITS_EQUAL(lx, ly, 16);
        assert_int_equal(arbor_node_is_matrix_backed(sa, x), arbor_node_is_matrix_backed(sb, y));
        assert_int_equal(arbor_node_is_locked(sa, x), arbor_node_is_locked(sb, y));
        assert_int_equal(arbor_node_mesh(sa, x), arbor_node_mesh(sb, y));
        assert_ptr_equal(arbor_node_user(sa, x), arbor_node_user(sb, y));
        ASSERT_OK(arbor_node_bounds(sa, x, bx, bx + 3));
        ASSERT_OK(arbor_node_bounds(sb, y, by, by + 3));
        ASSERT_REALS_BITS_EQUAL(bx, by, 6);
        arbor_camera cx = { 0 }, cy = { 0 };
        arbor_light gx = { 0 }, gy = { 0 };
        assert_int_equal(arbor_node_camera(sa, x, &cx), arbor_node_camera(sb, y, &cy));
        assert_memory_equal(&cx, &cy, sizeof cx);
        assert_int_equal(arbor_node_light(sa, x, &gx), arbor_node_light(sb, y, &gy));
        assert_memory_equal(&gx, &gy, sizeof gx);
        assert_int_equal(arbor_node_child_count(sa, x), arbor_node_child_count(sb, y));
        assert_int_equal(arbor_node_depth(sa, x) - arbor_node_depth(sa, a), arbor_node_depth(sb, y) - arbor_node_depth(sb, b));
        if (same_world) {
            ASSERT_OK(arbor_node_world_matrix(sa, x, wx));
            ASSERT_OK(arbor_node_world_matrix(sb, y, wy));
            ASSERT_REALS_BITS_EQUAL(wx, wy, 16);
        }
        /* Next in pre-order, in both at once. */
        arbor_node cx1 = arbor_node_first_child(sa, x);
        if (!arbor_node_is_none(cx1)) {
            x = cx1;
            y = arbor_node_first_child(sb, y);
        } else {
            while (x.id != a.id && arbor_node_is_none(arbor_node_next_sibling(sa, x))) {
                x = arbor_node_parent(sa, x);
                y = arbor_node_parent(sb, y);
            }
            if (x.id == a.id) break;
            x = arbor_node_next_sibling(sa, x);
            y = arbor_node_next_sibling(sb, y);
        }
        count++;
    }
    assert_int_equal(arbor_node_collect_subtree(sa, a, NULL, 0), arbor_node_collect_subtree(sb, b, NULL, 0));
}

/* A prefab: a TRS root, a locked matrix, a shear, a mirror, attachments of every kind. */
static arbor_node build_prefab(arbor_scene *s, arbor_node parent) {
    arbor_node top = TEST_NODE(s, parent, "prefab", V3(1, 2, 3), Q4(0, 0.3826834f, 0, 0.9238795f), V3(2, 2, 2));
    arbor_node body = TEST_NODE(s, top, "body", V3(0, 1, 0), NULL, V3(-1, 1, 1));
    const arbor_real shear[16] = { 1, 0, 0, 0, 0.25f, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1 };
    arbor_node locked = TEST_NODE(s, body, "locked", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_set_local_matrix(s, locked, shear, true));
    arbor_node zero = TEST_NODE(s, body, NULL, NULL, NULL, NULL);
    ASSERT_OK(arbor_node_set_scale(s, zero, 0, 0, 0));
    arbor_node cam = TEST_NODE(s, top, "camera", V3(0, 0, 5), NULL, NULL);
    ASSERT_OK(arbor_node_set_camera(s, cam, &(arbor_camera){ .type = ARBOR_CAMERA_ORTHOGRAPHIC, .xmag = 1, .ymag = 2, .zfar = 9 }));
    ASSERT_OK(arbor_node_set_light(s, body, &(arbor_light){ .type = ARBOR_LIGHT_SPOT, .color = { 1, 1, 1 }, .intensity = 3, .outer_cone = 0.5f }));
    ASSERT_OK(arbor_node_set_mesh(s, locked, 4));
    ASSERT_OK(arbor_node_set_bounds(s, locked, V3(-1, -1, -1), V3(1, 2, 3)));
    ASSERT_OK(arbor_node_set_user(s, zero, (void *)s));
    for (int i = 0; i < 5; i++) TEST_NODE(s, cam, i % 2 ? "leaf" : NULL, V3(i, 0, 0), NULL, NULL);
    return top;
}

static void test_clones(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node holder = TEST_NODE(s, ARBOR_NONE, "holder", NULL, NULL, NULL);
    arbor_node prefab = build_prefab(s, holder), copy;
    arbor_scene_stats before, after;
    arbor_scene_stats_get(s, &before);
    /* Under the same parent: the same world matrices too. */
    ASSERT_OK(arbor_node_clone(s, prefab, holder, &copy));
    assert_int_equal(arbor_scene_node_count(s), 1 + 2 * 10);
    ASSERT_NODE_EQ(arbor_node_last_child(s, holder), copy);
    assert_copy(s, prefab, s, copy, true);
    arbor_scene_stats_get(s, &after);
    assert_int_equal(after.world_composed - before.world_composed, 1 + 2 * 10); /* what assert_copy read */

    /* Into another scene, as a root there. */
    arbor_scene *other = NULL;
    assert_int_equal(arbor_scene_create(NULL, &other), ARBOR_OK);
    arbor_node ref;
    ASSERT_OK(arbor_node_clone_from(other, s, prefab, ARBOR_NONE, &ref));
    assert_int_equal(arbor_scene_node_count(other), 10);
    assert_copy(s, prefab, other, ref, false);
    arbor_real w[16];
    TEST_WORLD(other, ref, w);
    ASSERT_VEC3_NEAR(w + 12, 1, 2, 3, 0);

    /* Under a node inside the copied subtree (its last, then its only child): a copy of the
       subtree as it was. */
    arbor_node inner = arbor_node_last_child(s, prefab); /* the camera */
    ASSERT_OK(arbor_node_clone(s, prefab, inner, &copy));
    ASSERT_NODE_EQ(arbor_node_last_child(s, inner), copy);
    assert_copy(other, ref, s, copy, false);
    arbor_node leaf = arbor_node_first_child(s, inner);
    ASSERT_OK(arbor_node_clone(s, inner, leaf, &copy));
    ASSERT_NODE_EQ(arbor_node_first_child(s, leaf), copy);
    assert_int_equal(arbor_node_collect_subtree(s, copy, NULL, 0), 6 + 10);

    /* Refusals, with nothing made. */
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_clone", arbor_node_clone(s, prefab, (arbor_node){ 77 }, &copy));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_clone", arbor_node_clone(s, ARBOR_NONE, holder, &copy));
    arbor_scene *shallow = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .max_depth = 3 }, &shallow), ARBOR_OK);
    uint32_t count = arbor_scene_node_count(s);
    ASSERT_REFUSED(ARBOR_ERR_DEPTH_LIMIT, "arbor_node_clone", arbor_node_clone_from(shallow, s, holder, ARBOR_NONE, &copy));
    assert_int_equal(arbor_scene_node_count(shallow), 0);
    assert_int_equal(arbor_scene_node_count(s), count);
    arbor_scene_destroy(shallow);
    arbor_scene_destroy(other);
    arbor_scene_destroy(s);
}

/* ---- Foreign parents -------------------------------------------------------------------------------- */

typedef struct body {
    arbor_real m[16];
    uint64_t version;
    int world_reads, version_reads;
} body;

static void body_world(void *user, arbor_real out[16]) {
    body *b = user;
    b->world_reads++;
    memcpy(out, b->m, sizeof b->m);
}

static uint64_t body_version(void *user) {
    body *b = user;
    b->version_reads++;
    return b->version;
}

static void body_move(body *b, arbor_real x, arbor_real y, arbor_real z) {
    arbor_mat4_identity(b->m);
    b->m[12] = x, b->m[13] = y, b->m[14] = z;
    b->version++;
}

static uint64_t composed_by(arbor_scene *s, void (*update)(arbor_scene *)) {
    arbor_scene_stats a, b;
    arbor_scene_stats_get(s, &a);
    update(s);
    arbor_scene_stats_get(s, &b);
    return b.world_composed - a.world_composed;
}

static void test_foreign_parents(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    body phys = { .version = 1 };
    body_move(&phys, 10, 0, 0);
    arbor_provider provider = { body_world, body_version, &phys };
    arbor_node holder = TEST_NODE(s, ARBOR_NONE, "holder", NULL, NULL, NULL);
    arbor_node n = TEST_NODE(s, holder, "n", V3(0, 1, 0), NULL, NULL), kid = TEST_NODE(s, n, "kid", V3(0, 0, 1), NULL, NULL);
    ASSERT_OK(arbor_node_set_foreign_parent(s, n, &provider, ARBOR_KEEP_LOCAL));
    assert_true(arbor_node_has_foreign_parent(s, n));
    ASSERT_NODE_NONE(arbor_node_parent(s, n)); /* a root now */
    arbor_real w[16];
    TEST_WORLD(s, kid, w); /* before any update */
    ASSERT_VEC3_NEAR(w + 12, 10, 1, 1, 0);
    assert_int_equal(composed_by(s, arbor_scene_update), 1); /* holder only: the read computed n and kid */

    /* Standing still: polled, not read, nothing recomputed. */
    phys.world_reads = phys.version_reads = 0;
    assert_int_equal(composed_by(s, arbor_scene_update), 0);
    assert_int_equal(phys.version_reads, 1);
    assert_int_equal(phys.world_reads, 0);

    /* Moving: the subtree follows at the update. */
    body_move(&phys, 20, 0, 0);
    assert_int_equal(composed_by(s, arbor_scene_update), 2);
    assert_int_equal(phys.world_reads, 1);
    TEST_WORLD(s, kid, w);
    ASSERT_VEC3_NEAR(w + 12, 20, 1, 1, 0);

    /* After an update and before any write, reads answer as of the update (no polling). */
    body_move(&phys, 30, 0, 0);
    phys.version_reads = 0;
    uint64_t v = arbor_node_world_version(s, kid);
    TEST_WORLD(s, kid, w);
    ASSERT_VEC3_NEAR(w + 12, 20, 1, 1, 0);
    assert_int_equal(phys.version_reads, 0);
    assert_int_equal(arbor_node_world_version(s, kid), v);
    /* A write elsewhere changes nothing for a current node: still as of the update. */
    ASSERT_OK(arbor_node_set_translation(s, holder, 0, 0, 0));
    TEST_WORLD(s, kid, w);
    ASSERT_VEC3_NEAR(w + 12, 20, 1, 1, 0);
    assert_int_equal(phys.version_reads, 0);
    /* A read that has to compute polls the foreign parent above first, as an update would. */
    ASSERT_OK(arbor_node_set_translation(s, kid, 0, 0, 2));
    TEST_WORLD(s, kid, w);
    ASSERT_VEC3_NEAR(w + 12, 30, 1, 2, 0);
    assert_int_equal(phys.version_reads, 1);
    assert_true(arbor_node_world_version(s, kid) != v);
    assert_int_equal(composed_by(s, arbor_scene_update), 1); /* holder; n and kid were read */

    /* Keep-world: the world stays where it was under the new provider. */
    body other = { .version = 5 };
    body_move(&other, 0, 0, 7);
    arbor_provider second = { body_world, body_version, &other };
    ASSERT_OK(arbor_node_set_foreign_parent(s, n, &second, ARBOR_KEEP_WORLD));
    TEST_WORLD(s, kid, w);
    ASSERT_VEC3_NEAR(w + 12, 30, 1, 2, TEST_EPS);
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, n, &trs));
    ASSERT_VEC3_NEAR(trs.translation, 30, 1, -7, TEST_EPS);
    /* Removed with keep-world: W = L again, at the same place. */
    ASSERT_OK(arbor_node_set_foreign_parent(s, n, NULL, ARBOR_KEEP_WORLD));
    assert_false(arbor_node_has_foreign_parent(s, n));
    TEST_WORLD(s, kid, w);
    ASSERT_VEC3_NEAR(w + 12, 30, 1, 2, TEST_EPS);

    /* Refusals change nothing. */
    body bad = { .version = 1 };
    body_move(&bad, 0, 0, 0);
    bad.m[0] = NAN;
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_node_set_foreign_parent",
                   arbor_node_set_foreign_parent(s, n, &(arbor_provider){ body_world, body_version, &bad }, ARBOR_KEEP_LOCAL));
    bad.m[0] = 0;
    ASSERT_REFUSED(ARBOR_ERR_SINGULAR, "arbor_node_set_foreign_parent",
                   arbor_node_set_foreign_parent(s, n, &(arbor_provider){ body_world, body_version, &bad }, ARBOR_KEEP_WORLD));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_foreign_parent",
                   arbor_node_set_foreign_parent(s, n, &(arbor_provider){ NULL, body_version, &bad }, ARBOR_KEEP_LOCAL));
    assert_false(arbor_node_has_foreign_parent(s, n));

    /* A parent in the scene replaces the foreign one; destroying the node drops it. */
    ASSERT_OK(arbor_node_set_foreign_parent(s, n, &provider, ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_node_set_parent(s, n, holder, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    assert_false(arbor_node_has_foreign_parent(s, n));
    TEST_WORLD(s, kid, w);
    ASSERT_VEC3_NEAR(w + 12, 30, 1, 2, TEST_EPS);
    ASSERT_OK(arbor_node_set_foreign_parent(s, kid, &provider, ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_node_destroy(s, kid));
    phys.version_reads = 0;
    arbor_scene_update(s);
    assert_int_equal(phys.version_reads, 0);

    /* Through the journal: a held node's foreign parent comes back with it. */
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    ASSERT_OK(arbor_node_set_foreign_parent(s, n, &provider, ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_journal_destroy_node(j, n));
    phys.version_reads = 0;
    arbor_scene_update(s);
    assert_int_equal(phys.version_reads, 0); /* held: not polled */
    ASSERT_OK(arbor_journal_undo(j));
    assert_true(arbor_node_has_foreign_parent(s, n));
    body_move(&phys, 40, 0, 0);
    arbor_scene_update(s);
    TEST_WORLD(s, n, w);
    ASSERT_VEC3_NEAR(w + 12, 70, 1, 0, TEST_EPS);
    arbor_scene_destroy(s);
    arbor_journal_destroy(j); /* after its scene: inert, then freed */
}

static void test_attach_to_another_scene(void **state) {
    (void)state;
    arbor_scene *world = NULL, *ui = NULL;
    assert_int_equal(arbor_scene_create(NULL, &world), ARBOR_OK);
    assert_int_equal(arbor_scene_create(NULL, &ui), ARBOR_OK);
    arbor_node ship = TEST_NODE(world, ARBOR_NONE, "ship", V3(100, 0, 0), NULL, NULL);
    arbor_node mast = TEST_NODE(world, ship, "mast", V3(0, 10, 0), NULL, NULL);
    arbor_node label = TEST_NODE(ui, ARBOR_NONE, "label", V3(0, 1, 0), NULL, NULL);
    arbor_node text = TEST_NODE(ui, label, "text", V3(1, 0, 0), NULL, NULL);
    ASSERT_OK(arbor_node_attach_to(ui, label, world, mast, ARBOR_KEEP_LOCAL));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_attach_to", arbor_node_attach_to(ui, label, ui, text, ARBOR_KEEP_LOCAL));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_attach_to", arbor_node_attach_to(ui, label, world, (arbor_node){ 99 }, ARBOR_KEEP_LOCAL));
    arbor_scene_update(world);
    arbor_scene_update(ui);
    arbor_real w[16];
    TEST_WORLD(ui, text, w);
    ASSERT_VEC3_NEAR(w + 12, 101, 11, 0, 0);
    /* The ship stands still: nothing recomputed in ui. */
    assert_int_equal(composed_by(world, arbor_scene_update), 0);
    assert_int_equal(composed_by(ui, arbor_scene_update), 0);
    /* The ship sails: ui follows at its next update, and only the attached subtree. */
    ASSERT_OK(arbor_node_set_translation(world, ship, 200, 0, 0));
    arbor_scene_update(world);
    assert_int_equal(composed_by(ui, arbor_scene_update), 2);
    TEST_WORLD(ui, text, w);
    ASSERT_VEC3_NEAR(w + 12, 201, 11, 0, 0);
    /* Keep-world onto another node. */
    ASSERT_OK(arbor_node_attach_to(ui, label, world, ship, ARBOR_KEEP_WORLD));
    TEST_WORLD(ui, label, w);
    ASSERT_VEC3_NEAR(w + 12, 200, 11, 0, TEST_EPS);
    /* The parent dies: the label keeps the last matrix. */
    ASSERT_OK(arbor_node_destroy(world, ship));
    arbor_scene_update(ui);
    TEST_WORLD(ui, label, w);
    ASSERT_VEC3_NEAR(w + 12, 200, 11, 0, TEST_EPS);
    arbor_scene_destroy(ui);
    arbor_scene_destroy(world);
}

/* ---- Change lists ----------------------------------------------------------------------------------- */

static void assert_changed(arbor_scene *s, const arbor_node *want, uint32_t count) {
    arbor_node got[64];
    uint32_t n = arbor_scene_changed(s, got, 64);
    if (n != count) fail_msg("arbor_scene_changed lists %u nodes, expected %u", n, count);
    for (uint32_t i = 0; i < n; i++)
        if (got[i].id != want[i].id) fail_msg("change %u: node %llx, expected %llx", i, (unsigned long long)got[i].id, (unsigned long long)want[i].id);
}

static void test_change_lists(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    /* A hundred idle nodes: each update has little to do, so it follows the links (the path
       whose order is reads, then subtrees). */
    for (int i = 0; i < 100; i++) TEST_NODE(s, ARBOR_NONE, "idle", NULL, NULL, NULL);
    arbor_node x = TEST_NODE(s, ARBOR_NONE, "x", NULL, NULL, NULL);
    arbor_node a = TEST_NODE(s, ARBOR_NONE, "a", NULL, NULL, NULL), b = TEST_NODE(s, ARBOR_NONE, "b", NULL, NULL, NULL);
    arbor_node a1 = TEST_NODE(s, a, "a1", NULL, NULL, NULL), a2 = TEST_NODE(s, a, "a2", NULL, NULL, NULL);
    arbor_node a11 = TEST_NODE(s, a1, "a11", NULL, NULL, NULL), b1 = TEST_NODE(s, b, "b1", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_set_parent(s, x, b1, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    arbor_scene_update(s);
    assert_int_equal(arbor_scene_changed(s, NULL, 0), 0); /* not tracking */
    ASSERT_OK(arbor_scene_track_changes(s, true));
    arbor_scene_update(s);
    assert_int_equal(arbor_scene_changed(s, NULL, 0), 0); /* nothing changed */

    /* Subtrees in the order they were first written, each in pre-order. */
    ASSERT_OK(arbor_node_set_translation(s, b1, 1, 0, 0));
    ASSERT_OK(arbor_node_set_translation(s, a1, 1, 0, 0));
    ASSERT_OK(arbor_node_set_translation(s, a11, 1, 0, 0)); /* inside a1's subtree */
    arbor_scene_update(s);
    assert_changed(s, (arbor_node[]){ b1, x, a1, a11 }, 4);
    arbor_node first;
    assert_int_equal(arbor_scene_changed(s, &first, 1), 4); /* the count even when cap is smaller */
    ASSERT_NODE_EQ(first, b1);

    /* Lazy reads between updates: listed once, first, in the order of their first computation. */
    ASSERT_OK(arbor_node_set_translation(s, a2, 2, 0, 0));
    ASSERT_OK(arbor_node_set_translation(s, b, 2, 0, 0));
    arbor_real w[16];
    TEST_WORLD(s, a2, w);
    TEST_WORLD(s, b1, w); /* computes b and b1, not x */
    ASSERT_OK(arbor_node_set_translation(s, a2, 3, 0, 0));
    TEST_WORLD(s, a2, w); /* a2 again: once in the list */
    arbor_scene_update(s);
    assert_changed(s, (arbor_node[]){ a2, b, b1, x }, 4);

    /* A node read lazily and then invalidated again is listed where the update computed it. */
    ASSERT_OK(arbor_node_set_translation(s, a11, 5, 0, 0));
    TEST_WORLD(s, a11, w);
    ASSERT_OK(arbor_node_set_translation(s, a, 5, 0, 0));
    arbor_scene_update(s);
    assert_changed(s, (arbor_node[]){ a, a1, a11, a2 }, 4);
    /* The list stays until the next update; a node destroyed since is still in it. */
    ASSERT_OK(arbor_node_destroy(s, a2));
    assert_changed(s, (arbor_node[]){ a, a1, a11, a2 }, 4);
    /* A node read and destroyed between updates is not listed; a new one is. */
    ASSERT_OK(arbor_node_set_translation(s, a11, 6, 0, 0));
    TEST_WORLD(s, a11, w);
    ASSERT_OK(arbor_node_destroy(s, a1));
    arbor_node c = TEST_NODE(s, b, "c", NULL, NULL, NULL);
    arbor_scene_update(s);
    assert_changed(s, (arbor_node[]){ c }, 1);
    /* Nodes a journal brings back are listed. */
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    ASSERT_OK(arbor_journal_destroy_node(j, b));
    arbor_scene_update(s);
    assert_changed(s, NULL, 0);
    ASSERT_OK(arbor_journal_undo(j));
    arbor_scene_update(s);
    assert_changed(s, (arbor_node[]){ b, b1, x, c }, 4);
    ASSERT_OK(arbor_scene_track_changes(s, false));
    ASSERT_OK(arbor_node_set_translation(s, b, 2, 0, 0));
    arbor_scene_update(s);
    assert_int_equal(arbor_scene_changed(s, NULL, 0), 0);
    arbor_scene_destroy(s);
    arbor_journal_destroy(j); /* after its scene: inert, then freed */
}

/* A scene stored parents first with much of it out of date is swept in storage order: the list
   comes in that order, with what reads computed in between. */
static void test_change_lists_swept(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node n[9];
    for (int i = 0; i < 9; i++) n[i] = TEST_NODE(s, i % 3 ? n[i - i % 3] : ARBOR_NONE, NULL, NULL, NULL, NULL);
    ASSERT_OK(arbor_scene_track_changes(s, true));
    arbor_scene_update(s);
    assert_changed(s, n, 9); /* all new */
    ASSERT_OK(arbor_node_set_translation(s, n[8], 1, 0, 0));
    ASSERT_OK(arbor_node_set_translation(s, n[3], 1, 0, 0));
    arbor_real w[16];
    TEST_WORLD(s, n[8], w);
    ASSERT_OK(arbor_node_set_translation(s, n[1], 1, 0, 0));
    TEST_WORLD(s, n[1], w);
    arbor_scene_stats before, after;
    arbor_scene_stats_get(s, &before);
    arbor_scene_update(s);
    arbor_scene_stats_get(s, &after);
    assert_int_equal(after.world_composed - before.world_composed, 3); /* n[3] and its two children */
    assert_changed(s, (arbor_node[]){ n[1], n[3], n[4], n[5], n[8] }, 5);

    arbor_scene_destroy(s);
}

/* The scene renumbers its storage (depth first) when an update has much to do after the order
   broke: nodes the journal holds move along, and come back as they were. */
static void test_held_nodes_survive_relayout(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    arbor_node n[12];
    for (int i = 0; i < 12; i++) {
        n[i] = TEST_NODE(s, i % 4 ? n[i - 1] : ARBOR_NONE, i % 2 ? "odd" : "even", V3(i, 0, 0), NULL, NULL);
        ASSERT_OK(arbor_node_set_mesh(s, n[i], i));
    }
    arbor_node late = TEST_NODE(s, ARBOR_NONE, "late", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_set_parent(s, n[4], late, ARBOR_NONE, ARBOR_KEEP_WORLD)); /* parent after child */
    arbor_scene_update(s);
    snapshot before = snap(s);
    ASSERT_OK(arbor_journal_destroy_node(j, late)); /* held: late and n[4 .. 7], an inverted link */
    arbor_node later = TEST_NODE(s, ARBOR_NONE, "later", NULL, NULL, NULL);
    ASSERT_OK(arbor_node_set_parent(s, n[8], later, ARBOR_NONE, ARBOR_KEEP_LOCAL)); /* another, live */
    arbor_scene_stats a, b;
    arbor_scene_stats_get(s, &a);
    arbor_scene_update(s);
    arbor_scene_stats_get(s, &b);
    assert_int_equal(b.relayouts - a.relayouts, 1);
    ASSERT_OK(arbor_node_set_parent(s, n[8], ARBOR_NONE, n[12 - 4], ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_node_destroy(s, later));
    ASSERT_OK(arbor_journal_undo(j));
    snapshot now = snap(s);
    SNAP_EQUAL(&now, &before, "undo after the storage was renumbered");
    snap_free(&now);
    snap_free(&before);
    arbor_scene_destroy(s);
    arbor_journal_destroy(j); /* after its scene: inert, then freed */
}

/* ---- Locals set as matrices ---------------------------------------------------------------------- */

/* The node's local is exactly m, matrix-backed (locked or not), and its world matrix the parent's
   times m (in double). */
static void expect_matrix_(arbor_scene *s, arbor_node n, const arbor_real m[16], bool locked, const char *where,
                           const char *file, int line) {
    arbor_real got[16], w[16], pw[16];
    ASSERT_OK(arbor_node_local_matrix(s, n, got));
    if (!arbor_node_is_matrix_backed(s, n) || arbor_node_is_locked(s, n) != locked || memcmp(got, m, sizeof got)) {
        print_error("%s: node '%s' lost its local matrix (matrix-backed %d, locked %d)\n", where, arbor_node_name(s, n),
                    arbor_node_is_matrix_backed(s, n), arbor_node_is_locked(s, n));
        _fail(file, line);
    }
    arbor_node p = arbor_node_parent(s, n);
    if (arbor_node_is_none(p))
        arbor_mat4_identity(pw);
    else
        ASSERT_OK(arbor_node_world_matrix(s, p, pw));
    double a[16], b[16], ref[16];
    for (int i = 0; i < 16; i++) a[i] = pw[i], b[i] = m[i];
    test_ref_mul(ref, a, b);
    ASSERT_OK(arbor_node_world_matrix(s, n, w));
    for (int i = 0; i < 16; i++)
        if (fabs(w[i] - ref[i]) > TEST_EPS * (1 + fabs(ref[i]))) {
            print_error("%s: world[%d] of node '%s' is %.9g, not %.9g\n", where, i, arbor_node_name(s, n), (double)w[i], ref[i]);
            _fail(file, line);
        }
}
#define EXPECT_MATRIX(s, n, m, locked, where) expect_matrix_((s), (n), (m), (locked), (where), __FILE__, __LINE__)

/* Locals set as matrices that their TRS does not give bit for bit (a shear, a rotation's
   rounding) are kept apart from the TRS; renumbering, undo and redo, clones and a glTF round
   trip carry them, and a write of TRS ends them. */
static void test_kept_matrices(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    const arbor_real c = (arbor_real)cos(0.5), si = (arbor_real)sin(0.5);
    const arbor_real shear[16] = {1, 0, 0, 0, 0.5f, 1, 0, 0, 0, 0, 2, 0, 3, 4, 5, 1};
    const arbor_real turn[16] = {c, si, 0, 0, -si, c, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
    const arbor_real shift[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 7, 8, 9, 1}; /* TRS gives it exactly */
    const arbor_real slant[16] = {2, 0, 0, 0, 0, 1, 0, 0, 0.25f, 0, 1, 0, 0, 0, 1, 1};
    arbor_node root = TEST_NODE(s, ARBOR_NONE, "root", V3(0, 1, 0), Q4(0, 0.2588190f, 0, 0.9659258f), NULL);
    arbor_node a, b, p, moved;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){.name = "shear", .parent = root, .matrix = shear}, &a));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){.name = "turn", .parent = a, .matrix = turn, .lock_matrix = true}, &b));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){.name = "shift", .parent = b, .matrix = shift, .lock_matrix = true}, &p));
    moved = TEST_NODE(s, p, "moved", V3(1, 0, 0), NULL, NULL);
    for (int i = 0; i < 20; i++) TEST_NODE(s, i % 2 ? root : moved, NULL, V3(i, 0, 0), NULL, NULL);
    EXPECT_MATRIX(s, a, shear, false, "created");
    EXPECT_MATRIX(s, b, turn, true, "created");
    EXPECT_MATRIX(s, p, shift, true, "created");

    /* renumbering: a parent after its children, then an update with much to do */
    arbor_node late = TEST_NODE(s, ARBOR_NONE, "late", V3(0, 0, 2), NULL, NULL);
    ASSERT_OK(arbor_journal_set_parent(j, a, late, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    arbor_scene_stats before, after;
    arbor_scene_stats_get(s, &before);
    arbor_scene_update(s);
    arbor_scene_stats_get(s, &after);
    assert_int_equal(after.relayouts - before.relayouts, 1);
    EXPECT_MATRIX(s, a, shear, false, "renumbered");
    EXPECT_MATRIX(s, b, turn, true, "renumbered");
    EXPECT_MATRIX(s, p, shift, true, "renumbered");

    /* undo and redo: a TRS write ends an unlocked matrix, a matrix write starts one, attachments
       come and go around them, a destroyed subtree comes back */
    snapshot start = snap(s);
    ASSERT_OK(arbor_journal_set_mesh(j, a, 4));
    ASSERT_OK(arbor_journal_set_mesh(j, a, -1));
    ASSERT_OK(arbor_journal_set_translation(j, a, 1, 2, 3));
    assert_false(arbor_node_is_matrix_backed(s, a));
    ASSERT_OK(arbor_journal_set_local_matrix(j, moved, slant, false));
    EXPECT_MATRIX(s, moved, slant, false, "a matrix written");
    ASSERT_OK(arbor_journal_destroy_node(j, b));
    arbor_scene_update(s);
    snapshot edited = snap(s);
    for (int k = 0; k < 5; k++) ASSERT_OK(arbor_journal_undo(j));
    snapshot back = snap(s);
    SNAP_EQUAL(&back, &start, "undone");
    EXPECT_MATRIX(s, a, shear, false, "undone");
    EXPECT_MATRIX(s, b, turn, true, "undone");
    EXPECT_MATRIX(s, p, shift, true, "undone");
    for (int k = 0; k < 5; k++) ASSERT_OK(arbor_journal_redo(j));
    snapshot again = snap(s);
    SNAP_EQUAL(&again, &edited, "redone");
    for (int k = 0; k < 5; k++) ASSERT_OK(arbor_journal_undo(j));
    snap_free(&start);
    snap_free(&edited);
    snap_free(&back);
    snap_free(&again);

    /* clones, in the scene and into another */
    arbor_node copy;
    ASSERT_OK(arbor_node_clone(s, a, root, &copy));
    EXPECT_MATRIX(s, copy, shear, false, "cloned");
    EXPECT_MATRIX(s, arbor_node_first_child(s, copy), turn, true, "cloned");
    arbor_scene *other = NULL;
    assert_int_equal(arbor_scene_create(NULL, &other), ARBOR_OK);
    ASSERT_OK(arbor_node_clone_from(other, s, a, ARBOR_NONE, &copy));
    EXPECT_MATRIX(other, copy, shear, false, "cloned into another scene");
    EXPECT_MATRIX(other, arbor_node_first_child(other, copy), turn, true, "cloned into another scene");
    EXPECT_MATRIX(other, arbor_node_first_child(other, arbor_node_first_child(other, copy)), shift, true,
                  "cloned into another scene");
    arbor_scene_destroy(other);

    /* glTF: written as matrices, read back as matrices (the digits of shear and shift exact) */
    ASSERT_OK(arbor_gltf_save(s, NULL, ARBOR_TEST_OUTPUT_DIR "/kept_matrices.gltf", NULL));
    arbor_scene *loaded = NULL;
    assert_int_equal(arbor_scene_create(NULL, &loaded), ARBOR_OK);
    arbor_gltf *doc;
    /* a shear breaks a MUST of glTF: a lenient load takes it, with a warning */
    ASSERT_OK(arbor_gltf_load(loaded, ARBOR_TEST_OUTPUT_DIR "/kept_matrices.gltf", &(arbor_gltf_options){.lenient = true}, &doc));
    EXPECT_MATRIX(loaded, arbor_scene_find(loaded, "late/shear"), shear, false, "saved and loaded");
    EXPECT_MATRIX(loaded, arbor_scene_find(loaded, "late/shear/turn/shift"), shift, true, "saved and loaded"); /* a file's */
    arbor_real m[16];
    ASSERT_OK(arbor_node_local_matrix(loaded, arbor_scene_find(loaded, "late/shear/turn"), m));
    for (int i = 0; i < 16; i++) assert_true(fabs(m[i] - turn[i]) <= 1e-6);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(loaded);
    arbor_scene_destroy(s);
    arbor_journal_destroy(j); /* after its scene: inert, then freed */
}

static int compare_ids(const void *a, const void *b) {
    uint64_t x = ((const arbor_node *)a)->id, y = ((const arbor_node *)b)->id;
    return x < y ? -1 : x > y;
}

/* A serial and a parallel update of twin scenes large enough to go parallel: the same nodes
   (here by different paths: the serial update sweeps the storage, the parallel one follows the
   subtrees of its many roots). */
static void test_change_lists_parallel(void **state) {
    (void)state;
    arbor_pool *pool = NULL;
    assert_int_equal(arbor_pool_create(4, &pool), ARBOR_OK);
    arbor_executor ex = arbor_pool_executor(pool);
    arbor_scene *twin[2];
    enum { TREES = 300, PER = 60 };
    static arbor_node nodes[2][TREES * PER];
    for (int t = 0; t < 2; t++) {
        assert_int_equal(arbor_scene_create(NULL, &twin[t]), ARBOR_OK);
        test_rng rng = test_rng_make(7);
        for (int i = 0; i < TREES * PER; i++) {
            arbor_node parent = i % PER ? nodes[t][i - 1 - (int)test_rng_below(&rng, (uint32_t)(i % PER))] : ARBOR_NONE;
            nodes[t][i] = TEST_NODE(twin[t], parent, NULL, V3(1, 0, 0), NULL, NULL);
        }
        arbor_scene_update(twin[t]);
        ASSERT_OK(arbor_scene_track_changes(twin[t], true));
    }
    for (int frame = 0; frame < 3; frame++) {
        for (int t = 0; t < 2; t++) {
            test_rng rng = test_rng_make(100 + (uint64_t)frame);
            for (int k = 0; k < 4000; k++) {
                uint32_t i = test_rng_below(&rng, TREES * PER);
                ASSERT_OK(arbor_node_set_translation(twin[t], nodes[t][i], (arbor_real)k, 0, 0));
                if (k % 500 == 0) {
                    arbor_real w[16];
                    TEST_WORLD(twin[t], nodes[t][i], w);
                }
            }
            if (t == 0) arbor_scene_update(twin[t]);
            else arbor_scene_update_parallel(twin[t], &ex);
        }
        uint32_t n0 = arbor_scene_changed(twin[0], NULL, 0), n1 = arbor_scene_changed(twin[1], NULL, 0);
        assert_int_equal(n0, n1);
        assert_true(n0 > 8192);
        arbor_node *l0 = malloc(n0 * sizeof *l0), *l1 = malloc(n1 * sizeof *l1);
        arbor_scene_changed(twin[0], l0, n0);
        arbor_scene_changed(twin[1], l1, n1);
        test_node_keys(l0, n0);
        test_node_keys(l1, n1);
        for (uint32_t i = 1; i < n0; i++) assert_true((uint32_t)l0[i - 1].id < (uint32_t)l0[i].id); /* swept */
        qsort(l0, n0, sizeof *l0, compare_ids);
        qsort(l1, n1, sizeof *l1, compare_ids);
        assert_memory_equal(l0, l1, n0 * sizeof *l0); /* twins: the same handles */
        for (uint32_t i = 1; i < n0; i++) assert_true(l0[i - 1].id != l0[i].id); /* each once */
        free(l0);
        free(l1);
    }
    arbor_scene_destroy(twin[0]);
    arbor_scene_destroy(twin[1]);
    arbor_pool_destroy(pool);
}

/* ---- Save keeps order --------------------------------------------------------------------------------- */

/* Names in pre-order with their parents' names: the hierarchy and every sibling order. */
static void assert_same_tree(arbor_scene *a, arbor_scene *b) {
    arbor_node x = arbor_scene_next_node(a, ARBOR_NONE), y = arbor_scene_next_node(b, ARBOR_NONE);
    assert_int_equal(arbor_scene_node_count(a), arbor_scene_node_count(b));
    for (; !arbor_node_is_none(x); x = arbor_scene_next_node(a, x), y = arbor_scene_next_node(b, y)) {
        assert_false(arbor_node_is_none(y));
        assert_string_equal(arbor_node_name(a, x), arbor_node_name(b, y));
        arbor_node px = arbor_node_parent(a, x), py = arbor_node_parent(b, y);
        assert_int_equal(arbor_node_is_none(px), arbor_node_is_none(py));
        if (!arbor_node_is_none(px)) assert_string_equal(arbor_node_name(a, px), arbor_node_name(b, py));
        arbor_real wx[16], wy[16], lx[16], ly[16];
        TEST_WORLD(a, x, wx);
        TEST_WORLD(b, y, wy);
        ASSERT_MAT4_NEAR(wx, wy, TEST_EPS_ROUNDTRIP);
        ASSERT_OK(arbor_node_local_matrix(a, x, lx));
        ASSERT_OK(arbor_node_local_matrix(b, y, ly));
        ASSERT_MAT4_NEAR(lx, ly, TEST_EPS_ROUNDTRIP);
    }
    ASSERT_NODE_NONE(y);
}

static void test_save_keeps_order(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    const char *names[] = { "r0", "r1", "r2" };
    arbor_node roots[3], kids[3][4];
    for (int r = 0; r < 3; r++) {
        roots[r] = TEST_NODE(s, ARBOR_NONE, names[r], V3(r, 0, 0), NULL, NULL);
        for (int k = 0; k < 4; k++) {
            char name[8];
            snprintf(name, sizeof name, "k%d%d", r, k);
            kids[r][k] = TEST_NODE(s, roots[r], name, V3(0, k, 0), Q4(0, 0, 0.3826834f, 0.9238795f), NULL);
        }
    }
    /* Reorder, move across, keep-world, clone, rename, delete, a matrix, a new root first. */
    ASSERT_OK(arbor_journal_set_parent(j, kids[0][3], roots[0], kids[0][0], ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_journal_set_parent(j, kids[1][2], roots[0], kids[0][1], ARBOR_KEEP_WORLD));
    ASSERT_OK(arbor_journal_set_parent(j, roots[2], kids[0][3], ARBOR_NONE, ARBOR_KEEP_WORLD));
    arbor_node copy;
    ASSERT_OK(arbor_journal_clone(j, s, kids[1][0], roots[1], &copy));
    ASSERT_OK(arbor_journal_set_name(j, copy, "copy"));
    ASSERT_OK(arbor_journal_set_parent(j, copy, roots[1], kids[1][0], ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_journal_destroy_node(j, kids[1][1]));
    const arbor_real m[16] = { 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1 }; /* glTF wants no shear */
    ASSERT_OK(arbor_journal_set_local_matrix(j, kids[1][3], m, false));
    arbor_node first;
    ASSERT_OK(arbor_journal_create_node(j, &(arbor_node_desc){ .name = "first" }, &first));
    ASSERT_OK(arbor_journal_set_parent(j, first, ARBOR_NONE, roots[0], ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_journal_set_parent(j, roots[1], ARBOR_NONE, first, ARBOR_KEEP_LOCAL));
    ASSERT_NODE_EQ(arbor_scene_first_root(s), roots[1]);

    for (int pass = 0; pass < 2; pass++) { /* as edited, and with an undo and a redo in between */
        const char *path = pass ? ARBOR_TEST_OUTPUT_DIR "/edited.glb" : ARBOR_TEST_OUTPUT_DIR "/edited.gltf";
        ASSERT_OK(arbor_gltf_save(s, NULL, path, NULL));
        arbor_scene *back = NULL;
        assert_int_equal(arbor_scene_create(NULL, &back), ARBOR_OK);
        arbor_gltf *doc;
        ASSERT_OK(arbor_gltf_load(back, path, NULL, &doc));
        assert_same_tree(s, back);
        /* and once more, through the document it came from */
        ASSERT_OK(arbor_gltf_save(back, doc, path, NULL));
        arbor_scene *again = NULL;
        assert_int_equal(arbor_scene_create(NULL, &again), ARBOR_OK);
        arbor_gltf *doc2;
        ASSERT_OK(arbor_gltf_load(again, path, NULL, &doc2));
        assert_same_tree(s, again);
        arbor_gltf_destroy(doc);
        arbor_gltf_destroy(doc2);
        arbor_scene_destroy(back);
        arbor_scene_destroy(again);
        ASSERT_OK(arbor_journal_undo(j));
        ASSERT_OK(arbor_journal_undo(j));
        ASSERT_OK(arbor_journal_redo(j));
    }
    arbor_scene_destroy(s);
    arbor_journal_destroy(j); /* after its scene: inert, then freed */
}

/* A loaded file edited and saved through its document: the file's nodes keep their indices,
   and the order of roots and children is the scene's. */
static void test_save_keeps_order_of_a_loaded_file(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_gltf *doc;
    ASSERT_OK(arbor_gltf_load(s, ARBOR_SOURCE_DIR "/examples/robot_arm.gltf", NULL, &doc));
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    arbor_node base = arbor_scene_find(s, "/base"), mirror = arbor_scene_find(s, "/base/mirror");
    arbor_node joint = arbor_scene_find(s, "/base/joint"), hand2 = arbor_scene_find(s, "/base/mirror/joint2/arm2/hand2");
    arbor_node made, copy;
    ASSERT_OK(arbor_journal_create_node(j, &(arbor_node_desc){ .name = "new root" }, &made));
    ASSERT_OK(arbor_journal_set_parent(j, mirror, ARBOR_NONE, base, ARBOR_KEEP_WORLD)); /* a root, first */
    ASSERT_OK(arbor_journal_set_parent(j, made, ARBOR_NONE, base, ARBOR_KEEP_LOCAL));   /* between them */
    ASSERT_OK(arbor_journal_clone(j, s, joint, base, &copy));
    ASSERT_OK(arbor_journal_set_parent(j, copy, base, joint, ARBOR_KEEP_LOCAL));          /* before its source */
    ASSERT_OK(arbor_journal_set_name(j, copy, "joint copy"));
    ASSERT_OK(arbor_journal_destroy_node(j, hand2));
    ASSERT_NODE_EQ(arbor_scene_first_root(s), mirror);
    const char *path = ARBOR_TEST_OUTPUT_DIR "/robot_arm_edited.gltf";
    ASSERT_OK(arbor_gltf_save(s, doc, path, NULL));
    arbor_scene *back = NULL;
    assert_int_equal(arbor_scene_create(NULL, &back), ARBOR_OK);
    arbor_gltf *doc2;
    ASSERT_OK(arbor_gltf_load(back, path, NULL, &doc2));
    assert_same_tree(s, back);
    for (uint32_t i = 0; i < 7; i++) /* the file's nodes kept their indices (hand2, 7, is gone) */
        assert_string_equal(arbor_node_name(s, arbor_gltf_node(doc, i)), arbor_node_name(back, arbor_gltf_node(doc2, i)));
    arbor_gltf_destroy(doc2);
    arbor_scene_destroy(back);
    /* Undone back to the file as loaded: hand2 is its node 7 again. */
    for (int i = 0; i < 7; i++) ASSERT_OK(arbor_journal_undo(j));
    ASSERT_NODE_EQ(arbor_gltf_node(doc, 7), hand2);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
    arbor_journal_destroy(j); /* after its scene: inert, then freed */
}

/* A change list grows with the nodes changed, not with the events: a node written and read lazily
   100,000 times between two updates is noted once (it used to append an entry a read, 100,000
   of them, growing the notes' memory as it went), and listed once. */
static void test_change_lists_bounded(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    for (int i = 0; i < 100; i++) TEST_NODE(s, ARBOR_NONE, "idle", NULL, NULL, NULL);
    arbor_node root = TEST_NODE(s, ARBOR_NONE, "root", NULL, NULL, NULL);
    arbor_node child = TEST_NODE(s, root, "child", NULL, NULL, NULL);
    ASSERT_OK(arbor_scene_track_changes(s, true));
    arbor_scene_update(s);
    for (int round = 0; round < 3; round++) {
        arbor_scene_stats before, after;
        arbor_scene_stats_get(s, &before);
        arbor_real w[16];
        for (int i = 0; i < 100000; i++) {
            ASSERT_OK(arbor_node_set_translation(s, child, (arbor_real)i, 0, 0));
            ASSERT_OK(arbor_node_world_matrix(s, child, w));
            if (i % 1000 == 0) ASSERT_OK(arbor_node_set_translation(s, root, 0, (arbor_real)i, 0)); /* the chain, now and then */
        }
        arbor_scene_update(s);
        arbor_scene_stats_get(s, &after);
        /* the first round makes room for its few notes and its list; the next ones nothing */
        assert_true(after.allocations - before.allocations <= (round == 0 ? 2u : 0u));
        assert_changed(s, (arbor_node[]){ root, child }, 2); /* many invalidations: the sweep's storage order */
    }
    arbor_scene_destroy(s);
}

int main(void) {
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_undo_redo),
        cmocka_unit_test(test_undo_destroy_brings_back_the_same_handles),
        cmocka_unit_test(test_undo_create_and_clone),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_limits_and_memory),
        cmocka_unit_test(test_bypassing_writes),
        cmocka_unit_test(test_clones),
        cmocka_unit_test(test_foreign_parents),
        cmocka_unit_test(test_attach_to_another_scene),
        cmocka_unit_test(test_change_lists),
        cmocka_unit_test(test_change_lists_bounded),
        cmocka_unit_test(test_change_lists_swept),
        cmocka_unit_test(test_held_nodes_survive_relayout),
        cmocka_unit_test(test_kept_matrices),
        cmocka_unit_test(test_change_lists_parallel),
        cmocka_unit_test(test_save_keeps_order),
        cmocka_unit_test(test_save_keeps_order_of_a_loaded_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
