/* SPDX-License-Identifier: MIT */
/*
 * Storage order: the scene renumbers its slots so that they follow the tree depth first --
 * parents before children, every subtree one range of slots -- which is the order the batch
 * update reads (one pass over memory as it lies, scene/world.c). Handles do not change: they
 * name ids, and the id -> slot table is rewritten.
 *
 * A scene built parents first is already in such an order; a reparent under a later node, or
 * a new node in a freed slot, breaks it, and the next update that has much to do renumbers.
 */
#include <string.h>

#include "scene/scene_internal.h"

void arbor__gather(void *a, size_t elem, const uint32_t *order, uint32_t count, void *tmp) {
    char *from = a, *to = tmp;
    for (uint32_t i = 1; i < count; i++) memcpy(to + i * elem, from + (size_t)order[i] * elem, elem);
    memcpy(from + elem, to + elem, (size_t)(count - 1) * elem);
}

/* A link's new value: the new slot of the node it names. */
static void renumber_links(uint32_t *links, const uint32_t *order, uint32_t count, const uint32_t *new_slot) {
    for (uint32_t i = 1; i < count; i++) links[order[i]] = links[order[i]] ? new_slot[links[order[i]]] : 0;
}

bool arbor__relayout(arbor_scene *s) {
    uint32_t held = s->hooks.held_count ? s->hooks.held_count(s) : 0;
    uint32_t count = s->live + held + 1; /* slot 0 stays empty */
    size_t tmp_size = (size_t)count * 12 * sizeof(arbor_real), order_size = (size_t)count * sizeof(uint32_t);
    uint32_t *order = arbor__alloc(s, order_size);
    void *tmp = order ? arbor__alloc(s, tmp_size) : NULL;
    if (!tmp) {
        arbor__free(s, order, order_size);
        return false; /* the update follows links instead */
    }
    /* The new order, depth first from each root; new_slot (in scratch) is its inverse. */
    uint32_t k = 1, *new_slot = s->n.scratch;
    for (uint32_t root = s->first_root; root && k < count; root = s->n.next_sibling[root])
        for (uint32_t n = root; n && k < count; n = arbor__next_in_subtree(s, root, n, true)) order[k++] = n;
    if (held) k = s->hooks.held_order(s, order, k, count); /* what the journal holds moves along, last */
    if (k != count) { /* the links do not reach every live node: corrupt, leave it be */
        arbor__walk_bound(s, "renumbering the slots", count);
        arbor__free(s, tmp, tmp_size);
        arbor__free(s, order, order_size);
        return false;
    }
    new_slot[0] = 0;
    for (uint32_t i = 1; i < count; i++) new_slot[order[i]] = i;

    renumber_links(s->n.parent, order, count, new_slot);
    renumber_links(s->n.first_child, order, count, new_slot);
    renumber_links(s->n.last_child, order, count, new_slot);
    renumber_links(s->n.next_sibling, order, count, new_slot);
    renumber_links(s->n.prev_sibling, order, count, new_slot);
    /* the pending list keeps its live entries (PENDING moves with the flags) */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->pending_count; i++) {
        uint32_t slot = s->n.pending[i];
        if (s->n.flags[slot] & ARBOR__ALIVE)
            s->n.pending[kept++] = new_slot[slot];
        else
            s->n.flags[slot] &= (uint8_t)~ARBOR__PENDING;
    }
    s->pending_count = kept;
    s->first_root = new_slot[s->first_root];
    s->last_root = new_slot[s->last_root];

#define ARBOR__GATHER(field, elem, moves) \
    if (moves) arbor__gather(s->n.field, elem, order, count, tmp);
    ARBOR__ARRAYS(ARBOR__GATHER)
#undef ARBOR__GATHER
    if (s->hooks.renumbered) s->hooks.renumbered(s, order, count, tmp, tmp_size); /* the subtree boxes */
    /* Effective visibilities are forgotten (recomputed as they are asked for). */
    if (s->visibility.entry) memset(s->visibility.entry, 0, s->visibility.capacity);
    for (uint32_t i = 1; i < count; i++) s->n.slot_of[s->n.id[i]] = i;
    /* every slot past the live ones is free, in order */
    memset(s->n.flags + count, 0, s->slot_end - count);
    s->free_head = 0;
    s->slot_end = count;
    s->order_inversions = 0;
    s->shape++;
    s->stats.relayouts++;
    arbor__free(s, tmp, tmp_size);
    arbor__free(s, order, order_size);
    return true;
}
