/* SPDX-License-Identifier: MIT */
/*
 * Bounds up the tree (seed 002 section 11): a node's box in world space, and the box of its
 * subtree, kept per slot in the subtree table (bounds_internal.h) and recomputed lazily.
 *
 * An edit marks the subtree boxes of the edited node and of its ancestors out of date
 * (arbor__bounds_stale, called where world matrices are invalidated and where links change);
 * a change above a node shows as a new world version of that node. A query recomputes the
 * entries that are out of date and nothing else: the edited subtree and its ancestors.
 */
#include <math.h>
#include <string.h>

#include "bounds_internal.h"

/* ---- the table ------------------------------------------------------------------------------ */

void arbor__bounds_stale(arbor_scene *s, uint32_t slot) {
    arbor__subtree_box *entry = s->boxes.entry;
    uint32_t capacity = s->boxes.capacity, steps = 0;
    if (slot < capacity) entry[slot].version = 0;
    /* Up to the first ancestor already out of date (its own ancestors are, by the invariant). */
    for (uint32_t p = s->n.parent[slot]; p && p < capacity && entry[p].version; p = s->n.parent[p]) {
        entry[p].version = 0;
        if (++steps > s->max_depth) {
            arbor__walk_bound(s, "a bounds invalidation", s->max_depth);
            break;
        }
    }
}

void arbor__bounds_free(arbor_scene *s) {
    arbor__free(s, s->boxes.entry, (size_t)s->boxes.capacity * sizeof *s->boxes.entry);
    s->boxes = (arbor__subtree_boxes){0};
    s->hooks.stale = NULL;
    s->hooks.renumbered = NULL;
    arbor__free(s, s->instance_table, (size_t)s->instance_table_cap * sizeof(arbor__instance_group));
    s->instance_table = NULL;
    s->instance_table_cap = 0;
}

/* The renumbered hook: the subtree boxes move with their nodes; a table that does not reach
   every old slot is forgotten instead (all recomputed at the next query). */
static void boxes_renumbered(arbor_scene *s, uint32_t *new_slot, uint32_t end) {
    _Static_assert(sizeof(arbor__subtree_box) <= 12 * sizeof(arbor_real), "arbor__permute holds a local matrix");
    if (s->boxes.capacity >= end)
        arbor__permute(s->boxes.entry, sizeof *s->boxes.entry, new_slot, end);
    else
        memset(s->boxes.entry, 0, (size_t)s->boxes.capacity * sizeof *s->boxes.entry);
}

bool arbor__boxes_ready(arbor_scene *s, const char *fn) {
    uint32_t old = s->boxes.capacity, capacity = s->capacity;
    if (old >= s->slot_end) return true;
    arbor__subtree_box *grown =
        arbor__realloc(s, s->boxes.entry, (size_t)old * sizeof *grown, (size_t)capacity * sizeof *grown);
    if (!grown) {
        arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the subtree boxes of %u nodes", capacity);
        return false;
    }
    memset(grown + old, 0, (size_t)(capacity - old) * sizeof *grown); /* version 0: out of date */
    s->boxes.entry = grown;
    s->boxes.capacity = capacity;
    /* From now on the scene tells the boxes what goes stale. */
    s->hooks.stale = arbor__bounds_stale;
    s->hooks.renumbered = boxes_renumbered;
    arbor__on_destroy(s, arbor__bounds_free);
    return true;
}

/* ---- boxes ---------------------------------------------------------------------------------- */

static void box_clear(arbor_real box[6]) {
    for (int k = 0; k < 3; k++) {
        box[k] = (arbor_real)INFINITY;
        box[3 + k] = -(arbor_real)INFINITY;
    }
}

static inline void box_union(arbor_real box[6], const arbor_real other[6]) {
    for (int k = 0; k < 3; k++) {
        if (other[k] < box[k]) box[k] = other[k];
        if (other[3 + k] > box[3 + k]) box[3 + k] = other[3 + k];
    }
}

void arbor__box_through(const arbor_real w[12], const arbor_real local[6], arbor_real out[6]) {
    const arbor_real *lo = local, *hi = local + 3;
    for (int r = 0; r < 3; r++) {
        arbor_real min = w[ARBOR__AT(r, 3)], max = w[ARBOR__AT(r, 3)];
        for (int c = 0; c < 3; c++) {
            arbor_real m = w[ARBOR__AT(r, c)], p = m * lo[c], q = m * hi[c];
            min = min + (p < q ? p : q); /* two selects, not a branch: the signs are random */
            max = max + (p > q ? p : q);
        }
        out[r] = min;
        out[3 + r] = max;
    }
}

void arbor__own_world_box(const arbor_scene *s, uint32_t slot, arbor_real out[6]) {
    const arbor__attachment *a = arbor__attachment_of(s, slot);
    if (!a || !(a->has & ARBOR__HAS_BOUNDS)) {
        box_clear(out);
        return;
    }
    if (a->instances)
        arbor__instances_world_box(s, slot, &s->instance_sets.items[a->instances - 1], a->bounds, out);
    else
        arbor__box_through(s->n.world + (size_t)slot * 12, a->bounds, out);
}

/* ---- the subtree table ------------------------------------------------------------------------ */

/* True when slot's subtree box is current; resolves slot's world matrix to know. */
static bool box_current(arbor_scene *s, uint32_t slot) {
    uint64_t version = s->boxes.entry[slot].version;
    if (!version) return false;
    arbor__resolve(s, slot);
    return version == s->n.version[slot];
}

/* Starts recomputing slot's entry: its own box, the children's still to be added. */
static void begin(arbor_scene *s, uint32_t slot) {
    arbor__resolve(s, slot);
    arbor__own_world_box(s, slot, s->boxes.entry[slot].box);
    s->stats.subtree_boxes++;
}

void arbor__subtree_refresh(arbor_scene *s, uint32_t top) {
    if (box_current(s, top)) return;
    arbor__subtree_box *entry = s->boxes.entry;
    const uint32_t *parent = s->n.parent, *next = s->n.next_sibling;
    uint64_t steps = 0, limit = 2 * arbor__walk_limit(s);
    /* Post-order without a stack: descend into out-of-date children, fold current ones in as
       they are met; a node is finished when its children are, then folded into its parent. */
    uint32_t n = top, child;
    begin(s, n);
    child = s->n.first_child[n];
    for (;;) {
        while (child && box_current(s, child)) {
            box_union(entry[n].box, entry[child].box);
            child = next[child];
            steps++;
        }
        if (child) {
            n = child;
            begin(s, n);
            child = s->n.first_child[n];
        } else {
            entry[n].version = s->n.version[n];
            if (n == top) break;
            box_union(entry[parent[n]].box, entry[n].box);
            child = next[n];
            n = parent[n];
        }
        if (++steps > limit) {
            arbor__walk_bound(s, "a subtree box update", limit);
            break;
        }
    }
}

/* ---- the public queries ------------------------------------------------------------------------ */

arbor_result arbor_node_world_bounds(arbor_scene *s, arbor_node n, arbor_real min[3], arbor_real max[3]) {
    ARBOR__REQUIRE_OUT(min, "arbor_node_world_bounds");
    ARBOR__REQUIRE_OUT(max, "arbor_node_world_bounds");
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, "arbor_node_world_bounds", &r);
    if (!slot) return r;
    arbor_real box[6];
    arbor__resolve(s, slot);
    arbor__own_world_box(s, slot, box);
    memcpy(min, box, 3 * sizeof *box);
    memcpy(max, box + 3, 3 * sizeof *box);
    return ARBOR_OK;
}

/* The subtree box of n into box (empty when nothing below carries bounds). */
static arbor_result subtree_box(arbor_scene *s, arbor_node n, arbor_real box[6], const char *fn) {
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    if (!s->bounded && !s->boxes.entry) { /* no bounds ever: no table either */
        box_clear(box);
        return ARBOR_OK;
    }
    if (!arbor__boxes_ready(s, fn)) return ARBOR_ERR_OUT_OF_MEMORY;
    arbor__subtree_refresh(s, slot);
    memcpy(box, s->boxes.entry[slot].box, sizeof s->boxes.entry[slot].box);
    return ARBOR_OK;
}

arbor_result arbor_node_subtree_bounds(arbor_scene *s, arbor_node n, arbor_real min[3], arbor_real max[3]) {
    ARBOR__REQUIRE_OUT(min, "arbor_node_subtree_bounds");
    ARBOR__REQUIRE_OUT(max, "arbor_node_subtree_bounds");
    arbor_real box[6];
    arbor_result r = subtree_box(s, n, box, "arbor_node_subtree_bounds");
    if (r) return r;
    memcpy(min, box, 3 * sizeof *box);
    memcpy(max, box + 3, 3 * sizeof *box);
    return ARBOR_OK;
}

arbor_result arbor_node_subtree_sphere(arbor_scene *s, arbor_node n, arbor_real center[3], arbor_real *radius) {
    ARBOR__REQUIRE_OUT(center, "arbor_node_subtree_sphere");
    ARBOR__REQUIRE_OUT(radius, "arbor_node_subtree_sphere");
    arbor_real box[6];
    arbor_result r = subtree_box(s, n, box, "arbor_node_subtree_sphere");
    if (r) return r;
    if (arbor__box_empty(box)) {
        center[0] = center[1] = center[2] = 0;
        *radius = -1;
        return ARBOR_OK;
    }
    double squares = 0;
    for (int k = 0; k < 3; k++) {
        double half = ((double)box[3 + k] - (double)box[k]) / 2;
        center[k] = (arbor_real)(((double)box[k] + (double)box[3 + k]) / 2);
        squares += half * half;
    }
    *radius = (arbor_real)sqrt(squares);
    return ARBOR_OK;
}
