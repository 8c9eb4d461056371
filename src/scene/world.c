/*
 * World matrices: invalidation, lazy reads and the batch update.
 *
 * Invariant: a node whose world matrix is out of date (WORLD_DIRTY) has only out-of-date
 * descendants. So a write pushes invalidation down only through current nodes and stops at an
 * out-of-date one: invalidating costs at most what the next computation will, and writing a
 * node again before it is recomputed is O(1).
 *
 * Versions are handed out when a matrix is computed, and a version read computes first, so no
 * caller can see the version of a stale matrix and the guard above is safe.
 *
 * The batch update starts from the pending list: each out-of-date node whose parent was
 * current when it was invalidated, and each node resolved by a lazy read (PARTIAL), whose
 * descendants may still be out of date. Every out-of-date node is reachable from an entry
 * through PARTIAL nodes, so the update visits only what changed.
 */
#include <string.h>

#include "internal.h"

static void pending_push(arbor_scene *s, uint32_t slot) {
    if (s->n.flags[slot] & ARBOR__PENDING) return;
    s->n.flags[slot] |= ARBOR__PENDING;
    s->n.pending[s->pending_count++] = slot; /* at most one entry per slot: never overflows */
}

void arbor__invalidate_subtree(arbor_scene *s, uint32_t top) {
    uint8_t *flags = s->n.flags;
    if (!(flags[top] & ARBOR__WORLD_DIRTY)) {
        uint64_t steps = 0, limit = arbor__walk_limit(s);
        for (uint32_t n = top; n;) {
            bool current = !(flags[n] & ARBOR__WORLD_DIRTY);
            if (current) {
                flags[n] |= ARBOR__WORLD_DIRTY;
                s->stats.invalidated++;
            }
            n = arbor__next_in_subtree(s, top, n, current);
            if (++steps > limit) {
                arbor__walk_bound(s, "invalidation", limit);
                break;
            }
        }
    }
    uint32_t parent = s->n.parent[top];
    if (!parent || !(flags[parent] & ARBOR__WORLD_DIRTY)) pending_push(s, top);
}

void arbor__compose_local(arbor_scene *s, uint32_t slot) {
    if (!(s->n.flags[slot] & ARBOR__LOCAL_DIRTY)) return;
    const arbor_real *trs = s->n.trs + (size_t)slot * ARBOR__TRS;
    arbor__affine_compose(s->n.local + (size_t)slot * 12, trs + ARBOR__T, trs + ARBOR__R, trs + ARBOR__S);
    s->n.flags[slot] &= (uint8_t)~ARBOR__LOCAL_DIRTY;
    s->stats.local_composed++;
}

/* The one place a world matrix is computed, on every path: the results agree bit for bit. */
static void compute_world(arbor_scene *s, uint32_t slot) {
    arbor__compose_local(s, slot);
    uint32_t parent = s->n.parent[slot];
    arbor_real *world = s->n.world + (size_t)slot * 12;
    const arbor_real *local = s->n.local + (size_t)slot * 12;
    if (parent)
        arbor__affine_mul(world, s->n.world + (size_t)parent * 12, local);
    else
        memcpy(world, local, 12 * sizeof *world);
    s->n.version[slot] = ++s->clock;
    s->n.flags[slot] &= (uint8_t)~(ARBOR__WORLD_DIRTY | ARBOR__PARTIAL);
    s->stats.world_composed++;
}

void arbor__resolve(arbor_scene *s, uint32_t slot) {
    uint8_t *flags = s->n.flags;
    if (!(flags[slot] & ARBOR__WORLD_DIRTY)) return;
    /* Climb to the highest out-of-date ancestor, leaving down-links in scratch. */
    uint32_t top = slot, steps = 0;
    while (s->n.parent[top] && (flags[s->n.parent[top]] & ARBOR__WORLD_DIRTY)) {
        s->n.scratch[s->n.parent[top]] = top;
        top = s->n.parent[top];
        if (++steps > s->max_depth) {
            arbor__walk_bound(s, "a world matrix read", s->max_depth);
            break;
        }
    }
    /* Compose down the chain only; siblings stay out of date, reachable through PARTIAL. */
    for (uint32_t n = top;; n = s->n.scratch[n]) {
        compute_world(s, n);
        if (s->n.first_child[n]) flags[n] |= ARBOR__PARTIAL;
        if (n == slot) break;
    }
}

/* Computes every out-of-date node of top's subtree (all of it when top is out of date),
   parents before children, opening current nodes only where a lazy read left them PARTIAL. */
static void sweep(arbor_scene *s, uint32_t top) {
    uint8_t *flags = s->n.flags;
    uint64_t steps = 0, limit = arbor__walk_limit(s);
    for (uint32_t n = top; n;) {
        bool open = true;
        if (flags[n] & ARBOR__WORLD_DIRTY)
            compute_world(s, n);
        else if (flags[n] & ARBOR__PARTIAL)
            flags[n] &= (uint8_t)~ARBOR__PARTIAL;
        else
            open = false; /* current, and so is everything below it */
        n = arbor__next_in_subtree(s, top, n, open);
        if (++steps > limit) {
            arbor__walk_bound(s, "arbor_scene_update", limit);
            break;
        }
    }
}

void arbor_scene_update(arbor_scene *s) {
    uint8_t *flags = s->n.flags;
    for (uint32_t i = 0; i < s->pending_count; i++) {
        uint32_t slot = s->n.pending[i];
        flags[slot] &= (uint8_t)~ARBOR__PENDING;
        if (!(flags[slot] & ARBOR__ALIVE)) continue;
        uint32_t parent = s->n.parent[slot];
        if (parent && (flags[parent] & ARBOR__WORLD_DIRTY)) continue; /* an ancestor's entry covers it */
        sweep(s, slot);
    }
    s->pending_count = 0;
}

void arbor_scene_update_parallel(arbor_scene *s, const arbor_executor *executor) {
    (void)executor; /* TODO(issue 4): dirty subtrees as tasks */
    arbor_scene_update(s);
}

arbor_result arbor_node_world_matrix(arbor_scene *s, arbor_node n, arbor_real out[16]) {
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, "arbor_node_world_matrix", &r);
    if (!slot) return r;
    arbor__resolve(s, slot);
    arbor__affine_to_mat4(out, s->n.world + (size_t)slot * 12);
    return ARBOR_OK;
}

uint64_t arbor_node_world_version(arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    if (!slot) return 0;
    arbor__resolve(s, slot);
    return s->n.version[slot];
}
