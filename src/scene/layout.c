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

/* The slots are permuted in place, cycle by cycle, every moving array at once: no workspace
   beyond the scratch array the node storage already holds (an update allocates nothing). A
   slot's new number is new_slot[slot], in scratch; a slot done is marked with DONE there.
   The features' per-slot state (the subtree boxes) moves the same way, through their hook. */
#define DONE 0x80000000u /* slots stay below ARBOR__FREE_ID */

/* The largest element of a moving array (a local or world matrix). */
#define HOLD_BYTES (12 * sizeof(arbor_real))

/* Swaps hold with element slot of array a. */
static inline void swap_in(void *a, size_t elem, uint32_t slot, unsigned char *hold) {
    unsigned char t[HOLD_BYTES], *p = (unsigned char *)a + (size_t)slot * elem;
    memcpy(t, p, elem);
    memcpy(p, hold, elem);
    memcpy(hold, t, elem);
}

void arbor__permute(void *a, size_t elem, uint32_t *new_slot, uint32_t end) {
    unsigned char hold[HOLD_BYTES];
    for (uint32_t first = 1; first < end; first++) {
        if (new_slot[first] & DONE) continue;
        memcpy(hold, (unsigned char *)a + (size_t)first * elem, elem);
        uint32_t at = first, to = new_slot[first];
        do {
            uint32_t next = new_slot[to] & ~DONE;
            new_slot[at] = to | DONE;
            swap_in(a, elem, to, hold);
            at = to;
            to = next;
        } while (at != first);
    }
    for (uint32_t i = 1; i < end; i++) new_slot[i] &= ~DONE;
}

/* A link's new value: the new slot of the node it names. */
static void renumber_links(uint32_t *links, const uint32_t *new_slot, uint32_t end, uint32_t count) {
    for (uint32_t i = 1; i < end; i++)
        if (new_slot[i] < count) links[i] = links[i] ? new_slot[links[i]] : 0;
}

bool arbor__relayout(arbor_scene *s) {
    uint32_t held = s->hooks.held_count ? s->hooks.held_count(s) : 0;
    uint32_t count = s->live + held + 1; /* slot 0 stays empty */
    uint32_t end = s->slot_end, *new_slot = s->n.scratch;
    /* The new order, depth first from each root (what the journal holds moves along, last),
       then the free slots in order. */
    for (uint32_t i = 1; i < end; i++) new_slot[i] = UINT32_MAX;
    uint32_t k = 1;
    for (uint32_t root = s->first_root; root && k < count; root = s->n.next_sibling[root])
        for (uint32_t n = root; n && k < count; n = arbor__next_in_subtree(s, root, n, true)) new_slot[n] = k++;
    if (held) k = s->hooks.held_number(s, new_slot, k, count);
    if (k != count) { /* the links do not reach every live node: corrupt, leave it be */
        arbor__walk_bound(s, "renumbering the slots", count);
        return false; /* the update follows links instead */
    }
    for (uint32_t i = 1; i < end; i++)
        if (new_slot[i] == UINT32_MAX) new_slot[i] = k++;
    new_slot[0] = 0;

    renumber_links(s->n.parent, new_slot, end, count);
    renumber_links(s->n.first_child, new_slot, end, count);
    renumber_links(s->n.last_child, new_slot, end, count);
    renumber_links(s->n.next_sibling, new_slot, end, count);
    renumber_links(s->n.prev_sibling, new_slot, end, count);
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

    /* The features' per-slot state first (the subtree boxes), then the core's arrays. */
    if (s->hooks.renumbered) s->hooks.renumbered(s, new_slot, end);
    /* Each cycle: the elements of slot `first` are held, then each goes where it belongs,
       taking out the elements it finds there, until the cycle comes back. */
    for (uint32_t first = 1; first < end; first++) {
        if (new_slot[first] & DONE) continue;
        if (new_slot[first] == first) {
            new_slot[first] |= DONE;
            continue;
        }
#define ARBOR__HOLD(field, elem, moves) unsigned char hold_##field[moves ? (elem) : 1];
        ARBOR__ARRAYS(ARBOR__HOLD)
#undef ARBOR__HOLD
#define ARBOR__TAKE(field, elem, moves) \
    if (moves) memcpy(hold_##field, (unsigned char *)s->n.field + (size_t)first * (elem), (elem));
        ARBOR__ARRAYS(ARBOR__TAKE)
#undef ARBOR__TAKE
        uint32_t at = first, to = new_slot[first];
        do {
            /* The walk is a chain of loads at random slots: the next slot's number is read
               and its elements asked for now, so their misses overlap this step's. */
            uint32_t next = new_slot[to] & ~DONE;
#define ARBOR__AHEAD(field, elem, moves) \
    if (moves) __builtin_prefetch((unsigned char *)s->n.field + (size_t)next * (elem), 1);
            ARBOR__ARRAYS(ARBOR__AHEAD)
#undef ARBOR__AHEAD
            new_slot[at] = to | DONE;
#define ARBOR__PUT(field, elem, moves) \
    if (moves) swap_in(s->n.field, (elem), to, hold_##field);
            ARBOR__ARRAYS(ARBOR__PUT)
#undef ARBOR__PUT
            at = to;
            to = next;
        } while (at != first);
    }
    /* Effective visibilities are forgotten (recomputed as they are asked for). */
    if (s->visibility.entry) memset(s->visibility.entry, 0, s->visibility.capacity);
    for (uint32_t i = 1; i < count; i++) s->n.slot_of[s->n.id[i]] = i;
    /* every slot past the live ones is free, in order */
    memset(s->n.flags + count, 0, end - count);
    s->free_head = 0;
    s->slot_end = count;
    s->order_inversions = 0;
    s->shape++;
    s->tree_order_shape = s->shape; /* depth first, as the walk above numbered it */
    s->tree_order = true;
    s->stats.relayouts++;
    return true;
}
