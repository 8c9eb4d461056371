/* SPDX-License-Identifier: MIT */
/* The hierarchy: links, reparenting with sibling order and both modes, and the walks. */
#include <string.h>

#include "scene/scene_internal.h"

/* ---- links ---------------------------------------------------------------------------------- */

/* The first/last child of parent, or the scene's first/last root when parent is 0. */
static uint32_t *first_of(arbor_scene *s, uint32_t parent) { return parent ? &s->n.first_child[parent] : &s->first_root; }
static uint32_t *last_of(arbor_scene *s, uint32_t parent) { return parent ? &s->n.last_child[parent] : &s->last_root; }

void arbor__link(arbor_scene *s, uint32_t slot, uint32_t parent, uint32_t before) {
    uint32_t prev = before ? s->n.prev_sibling[before] : *last_of(s, parent);
    if (parent > slot) s->order_inversions++;
    if (!parent) s->root_count++;
    s->shape++;
    s->n.parent[slot] = parent;
    s->n.prev_sibling[slot] = prev;
    s->n.next_sibling[slot] = before;
    if (prev) s->n.next_sibling[prev] = slot; else *first_of(s, parent) = slot;
    if (before) s->n.prev_sibling[before] = slot; else *last_of(s, parent) = slot;
    arbor__notify_stale(s, slot); /* the subtree joins its new ancestors' boxes */
    arbor__visibility_moved(s, slot);                 /* ... and their visibility */
}

void arbor__unlink(arbor_scene *s, uint32_t slot) {
    uint32_t parent = s->n.parent[slot], prev = s->n.prev_sibling[slot], next = s->n.next_sibling[slot];
    if (parent > slot) s->order_inversions--;
    if (!parent) s->root_count--;
    s->shape++;
    if (parent) arbor__notify_stale(s, parent); /* the subtree leaves its box */
    if (prev) s->n.next_sibling[prev] = next; else *first_of(s, parent) = next;
    if (next) s->n.prev_sibling[next] = prev; else *last_of(s, parent) = prev;
    s->n.parent[slot] = s->n.prev_sibling[slot] = s->n.next_sibling[slot] = 0;
}

/* ---- reparenting ---------------------------------------------------------------------------- */

/* Depth of the deepest node in slot's subtree, below slot (0 for a leaf). O(subtree). */
static uint32_t subtree_height(const arbor_scene *s, uint32_t top) {
    uint32_t base = s->n.depth[top], height = 0;
    uint64_t steps = 0, limit = arbor__walk_limit(s);
    for (uint32_t n = top; n; n = arbor__next_in_subtree(s, top, n, true)) {
        if (s->n.depth[n] - base > height) height = s->n.depth[n] - base;
        if (++steps > limit) {
            arbor__walk_bound(s, "a depth check", limit);
            break;
        }
    }
    return height;
}

/* Shifts the depth of slot's subtree so that slot is at depth `depth`. */
static void set_subtree_depth(arbor_scene *s, uint32_t top, uint32_t depth) {
    uint32_t old = s->n.depth[top];
    uint64_t steps = 0, limit = arbor__walk_limit(s);
    for (uint32_t n = top; n; n = arbor__next_in_subtree(s, top, n, true)) {
        s->n.depth[n] = s->n.depth[n] - old + depth;
        if (++steps > limit) {
            arbor__walk_bound(s, "a depth update", limit);
            break;
        }
    }
}

/* True when a is a strict ancestor of n. O(depth difference): depths are exact. */
static bool is_ancestor(const arbor_scene *s, uint32_t a, uint32_t n) {
    if (s->n.depth[a] >= s->n.depth[n]) return false;
    for (uint32_t steps = s->n.depth[n] - s->n.depth[a]; steps; steps--) n = s->n.parent[n];
    return n == a;
}

/* The local that keeps slot's world matrix under `parent` (0: the world). False when the
   parent's world matrix cannot be inverted. */
static bool keep_world_local(arbor_scene *s, uint32_t slot, uint32_t parent, arbor_real local[12]) {
    arbor__resolve(s, slot);
    const arbor_real *world = s->n.world + (size_t)slot * 12;
    if (!parent) {
        memcpy(local, world, 12 * sizeof *local);
        return true;
    }
    arbor__resolve(s, parent);
    arbor_real inverse[12];
    if (!arbor__affine_invert(inverse, s->n.world + (size_t)parent * 12)) return false;
    arbor__affine_mul(local, inverse, world);
    return true;
}

bool arbor__kept_local_is_matrix(const arbor_real local[12]) {
    arbor_real t[3], q[4], scale[3];
    return !arbor__affine_decompose(local, t, q, scale);
}

void arbor__store_kept_local(arbor_scene *s, uint32_t slot, const arbor_real local[12]) {
    arbor_real *trs = s->n.trs + (size_t)slot * ARBOR__TRS;
    uint8_t flags = (uint8_t)(s->n.flags[slot] & ~(ARBOR__MATRIX | ARBOR__LOCKED));
    if (arbor__affine_decompose(local, trs + ARBOR__T, trs + ARBOR__R, trs + ARBOR__S)) {
        arbor__keep_matrix(s, slot, NULL);
    } else {
        arbor__keep_matrix(s, slot, local); /* reserved: cannot fail */
        flags |= ARBOR__MATRIX;
    }
    s->n.flags[slot] = flags;
}

arbor_result arbor_node_set_parent(arbor_scene *s, arbor_node child, arbor_node parent, arbor_node before,
                                   arbor_reparent mode) {
    static const char *const fn = "arbor_node_set_parent";
    arbor_result r = ARBOR_OK;
    uint32_t c = arbor__require(s, child, fn, &r), p = 0, b = 0;
    if (!c) return r;
    if (parent.id && !(p = arbor__live_slot(s, parent)))
        return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "the parent given for node " ARBOR__NODE_FMT " is not a live node",
                           ARBOR__NODE_ARGS(s, c));
    if (before.id && !(b = arbor__live_slot(s, before)))
        return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "the 'before' sibling given for node " ARBOR__NODE_FMT
                           " is not a live node", ARBOR__NODE_ARGS(s, c));
    if (mode != ARBOR_KEEP_LOCAL && mode != ARBOR_KEEP_WORLD)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "mode %d is neither ARBOR_KEEP_LOCAL nor ARBOR_KEEP_WORLD", (int)mode);
    if (p == c || (p && is_ancestor(s, c, p)))
        return arbor__fail(ARBOR_ERR_CYCLE, fn, "node " ARBOR__NODE_FMT " cannot go under %s " ARBOR__NODE_FMT ": that would make a ring",
                           ARBOR__NODE_ARGS(s, c), p == c ? "itself," : "its descendant", ARBOR__NODE_ARGS(s, p));
    bool same_parent = s->n.parent[c] == p;
    if (b == c) {
        if (same_parent) return ARBOR_OK; /* keeps its place */
        b = 0;
    }
    if (b && s->n.parent[b] != p) {
        if (!p) return arbor__fail(ARBOR_ERR_NOT_A_CHILD, fn, "before " ARBOR__NODE_FMT " is not a root", ARBOR__NODE_ARGS(s, b));
        return arbor__fail(ARBOR_ERR_NOT_A_CHILD, fn, "before " ARBOR__NODE_FMT " is not a child of node " ARBOR__NODE_FMT,
                           ARBOR__NODE_ARGS(s, b), ARBOR__NODE_ARGS(s, p));
    }
    if (same_parent) { /* a reorder: no transform changes */
        arbor__unlink(s, c);
        arbor__link(s, c, p, b);
        return ARBOR_OK;
    }
    uint32_t depth = p ? s->n.depth[p] + 1 : 0;
    if (depth > s->n.depth[c] && (uint64_t)depth + subtree_height(s, c) > s->max_depth)
        return arbor__fail(ARBOR_ERR_DEPTH_LIMIT, fn, "moving node " ARBOR__NODE_FMT " to depth %u would take its subtree beyond max_depth %u",
                           ARBOR__NODE_ARGS(s, c), depth, s->max_depth);
    arbor_real kept[12];
    if (mode == ARBOR_KEEP_WORLD && !keep_world_local(s, c, p, kept))
        return arbor__fail(ARBOR_ERR_SINGULAR, fn, "the world matrix of parent " ARBOR__NODE_FMT " cannot be inverted", ARBOR__NODE_ARGS(s, p));
    if (mode == ARBOR_KEEP_WORLD && arbor__kept_local_is_matrix(kept) && !arbor__attachment_reserve(s, 1))
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the local matrix of node " ARBOR__NODE_FMT, ARBOR__NODE_ARGS(s, c));

    arbor__unlink(s, c);
    arbor__link(s, c, p, b);
    if (depth != s->n.depth[c]) set_subtree_depth(s, c, depth);
    if (mode == ARBOR_KEEP_WORLD) arbor__store_kept_local(s, c, kept);
    if (p && s->hooks.unparent) s->hooks.unparent(s, c); /* a parent in the scene replaces a foreign one */
    arbor__invalidate(s, c);
    return ARBOR_OK;
}

/* ---- link accessors --------------------------------------------------------------------------- */

#define ARBOR__LINK_GETTER(fn, field)                                     \
    arbor_node fn(const arbor_scene *s, arbor_node n) {                   \
        uint32_t slot = arbor__live_slot(s, n);                           \
        return slot ? arbor__handle(s, s->n.field[slot]) : ARBOR_NONE;    \
    }
ARBOR__LINK_GETTER(arbor_node_parent, parent)
ARBOR__LINK_GETTER(arbor_node_first_child, first_child)
ARBOR__LINK_GETTER(arbor_node_last_child, last_child)
ARBOR__LINK_GETTER(arbor_node_next_sibling, next_sibling)
ARBOR__LINK_GETTER(arbor_node_prev_sibling, prev_sibling)
#undef ARBOR__LINK_GETTER

arbor_node arbor_scene_first_root(const arbor_scene *s) { return s ? arbor__handle(s, s->first_root) : ARBOR_NONE; }
arbor_node arbor_scene_last_root(const arbor_scene *s) { return s ? arbor__handle(s, s->last_root) : ARBOR_NONE; }

uint32_t arbor_node_depth(const arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    return slot ? s->n.depth[slot] : 0;
}

uint32_t arbor_node_child_count(const arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n), count = 0;
    if (!slot) return 0;
    for (uint32_t c = s->n.first_child[slot]; c && count <= s->live; c = s->n.next_sibling[c]) count++;
    return count;
}

bool arbor_node_is_ancestor_of(const arbor_scene *s, arbor_node ancestor, arbor_node n) {
    uint32_t a = arbor__live_slot(s, ancestor), slot = arbor__live_slot(s, n);
    return a && slot && is_ancestor(s, a, slot);
}

/* ---- walks ------------------------------------------------------------------------------------ */

uint32_t arbor_node_collect_subtree(const arbor_scene *s, arbor_node root, arbor_node *out, uint32_t cap) {
    uint32_t top = arbor__live_slot(s, root);
    if (!top) return 0;
    if (!out) cap = 0; /* the size alone */
    /* out is the breadth-first queue: it holds the first cap nodes of the order. */
    uint32_t count = 0;
    if (cap) out[count++] = root;
    for (uint32_t i = 0; i < count && count < cap; i++)
        for (uint32_t c = s->n.first_child[arbor__slot(s, out[i])]; c && count < cap; c = s->n.next_sibling[c])
            out[count++] = arbor__handle(s, c);
    if (count < cap) return count; /* the whole subtree fit */
    uint32_t size = 0;
    uint64_t limit = arbor__walk_limit(s);
    for (uint32_t n = top; n; n = arbor__next_in_subtree(s, top, n, true))
        if (++size > limit) {
            arbor__walk_bound(s, "arbor_node_collect_subtree", limit);
            break;
        }
    return size;
}

arbor_node arbor_node_find_descendant(const arbor_scene *s, arbor_node root, arbor_node_pred pred, void *user) {
    uint32_t top = arbor__live_slot(s, root);
    if (!top || !pred) return ARBOR_NONE;
    /* Depth first, keeping the shallowest match: among nodes of one depth, pre-order is
       breadth-first order, so the first match found at a depth is the breadth-first one.
       Nothing at or below the best depth so far is looked at. */
    uint32_t best = 0, best_depth = UINT32_MAX, base = s->n.depth[top];
    uint64_t steps = 0, limit = arbor__walk_limit(s);
    for (uint32_t n = top; n;) {
        uint32_t depth = s->n.depth[n] - base;
        bool open = false;
        if (depth < best_depth) {
            arbor_node h = arbor__handle(s, n);
            if (pred(user, s, h)) {
                best = n;
                best_depth = depth;
            } else {
                open = depth + 1 < best_depth;
            }
        }
        n = arbor__next_in_subtree(s, top, n, open);
        if (++steps > limit) {
            arbor__walk_bound(s, "arbor_node_find_descendant", limit);
            break;
        }
    }
    return arbor__handle(s, best);
}

arbor_node arbor_node_find_ancestor(const arbor_scene *s, arbor_node leaf, arbor_node_pred pred, void *user) {
    uint32_t n = arbor__live_slot(s, leaf);
    if (!pred) return ARBOR_NONE;
    for (uint32_t steps = 0; n; n = s->n.parent[n]) {
        arbor_node h = arbor__handle(s, n);
        if (pred(user, s, h)) return h;
        if (++steps > s->max_depth) {
            arbor__walk_bound(s, "arbor_node_find_ancestor", s->max_depth);
            break;
        }
    }
    return ARBOR_NONE;
}

arbor_node arbor_scene_find(const arbor_scene *s, const char *path) {
    if (!s || !path) return ARBOR_NONE;
    if (*path == '/') path++;
    if (!*path) return ARBOR_NONE;
    uint32_t found = 0, first = s->first_root;
    for (;;) {
        const char *end = strchr(path, '/');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        if (len == 0) return ARBOR_NONE;
        found = 0;
        for (uint32_t c = first; c; c = s->n.next_sibling[c]) {
            const char *name = s->n.name[c];
            if (name && strncmp(name, path, len) == 0 && name[len] == '\0') {
                found = c;
                break;
            }
        }
        if (!found) return ARBOR_NONE;
        if (!end) return arbor__handle(s, found);
        path = end + 1;
        first = s->n.first_child[found];
    }
}
