/* SPDX-License-Identifier: MIT */
/*
 * Visibility (instances.h): a node's own flag lives in its attachment record (ARBOR__HAS_HIDDEN,
 * so the journal, clones and held subtrees carry it as they carry the rest); its effective
 * visibility is cached per slot (scene/scene_internal.h, arbor__visibility). A change pushes "out of date"
 * down through current entries only, as world matrix invalidation does, and an answer climbs to
 * the nearest current entry and fills the chain below it: after a change, the answers of a
 * whole scene cost O(nodes) in all, and O(1) each once current.
 */
#include <string.h>

#include "scene/scene_internal.h"

void arbor__visibility_free(arbor_scene *s) {
    arbor__free(s, s->visibility.entry, s->visibility.capacity);
    s->visibility = (arbor__visibility){0};
}

static inline bool current(const arbor_scene *s, uint32_t slot) {
    return slot < s->visibility.capacity && (s->visibility.entry[slot] & ARBOR__VIS_CURRENT);
}

void arbor__visibility_stale(arbor_scene *s, uint32_t top) {
    if (!current(s, top)) return; /* and so is its subtree (the invariant) */
    uint8_t *entry = s->visibility.entry;
    uint64_t steps = 0, limit = arbor__walk_limit(s);
    for (uint32_t n = top; n;) {
        bool open = current(s, n);
        if (open) entry[n] = 0;
        n = arbor__next_in_subtree(s, top, n, open);
        if (++steps > limit) {
            arbor__walk_bound(s, "a visibility invalidation", limit);
            break;
        }
    }
}

/* Grows the cache to the storage's capacity (new entries out of date); false when out of
   memory (the answer is then found without it). */
static bool ready(arbor_scene *s) {
    uint32_t old = s->visibility.capacity, capacity = s->capacity;
    if (old >= s->slot_end) return true;
    uint8_t *grown = arbor__realloc(s, s->visibility.entry, old, capacity);
    if (!grown) return false;
    memset(grown + old, 0, capacity - old);
    s->visibility.entry = grown;
    s->visibility.capacity = capacity;
    return true;
}

bool arbor__hidden(arbor_scene *s, uint32_t slot) {
    if (!s->hidden) return false;
    if (current(s, slot)) return s->visibility.entry[slot] & ARBOR__VIS_HIDDEN;
    bool cache = ready(s);
    /* Up to the nearest current entry (or past the root), noting the highest hidden node. */
    uint32_t top = slot, highest = 0, steps = 0;
    for (; top && !(cache && current(s, top)); top = s->n.parent[top]) {
        if (arbor__own_hidden(s, top)) highest = top;
        if (++steps > s->max_depth + 1u) {
            arbor__walk_bound(s, "a visibility read", s->max_depth);
            return highest != 0;
        }
    }
    bool above = top && (s->visibility.entry[top] & ARBOR__VIS_HIDDEN);
    if (!cache) return above || highest;
    /* Fill the chain below it: hidden up to the highest hidden node, as above it beyond. */
    bool hidden = highest != 0;
    for (uint32_t n = slot; n != top; n = s->n.parent[n]) {
        s->visibility.entry[n] = (uint8_t)(ARBOR__VIS_CURRENT | (above || hidden ? ARBOR__VIS_HIDDEN : 0));
        if (n == highest) hidden = false;
    }
    return s->visibility.entry[slot] & ARBOR__VIS_HIDDEN;
}

arbor_result arbor_node_set_visible(arbor_scene *s, arbor_node n, bool visible) {
    static const char *const fn = "arbor_node_set_visible";
    arbor_result r = ARBOR_OK;
    if (!s) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "no scene was given");
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    if (arbor__own_hidden(s, slot) == !visible) return ARBOR_OK;
    arbor__attachment *a = arbor__attachment_writable(s, slot);
    if (!a) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the attachment");
    if (visible) {
        a->has &= ~(uint32_t)ARBOR__HAS_HIDDEN;
        s->hidden--;
        if (a->mesh < 0 && !a->has && !a->user && !a->foreign && !a->instances) arbor__attachment_release(s, slot);
    } else {
        a->has |= ARBOR__HAS_HIDDEN;
        s->hidden++;
    }
    arbor__visibility_moved(s, slot);
    return ARBOR_OK;
}

bool arbor_node_visible(const arbor_scene *s, arbor_node n) {
    uint32_t slot = s ? arbor__live_slot(s, n) : 0;
    return slot && !arbor__own_hidden(s, slot);
}

bool arbor_node_effectively_visible(arbor_scene *s, arbor_node n) {
    uint32_t slot = s ? arbor__live_slot(s, n) : 0;
    return slot && !arbor__hidden(s, slot);
}

uint32_t arbor_scene_hidden_count(const arbor_scene *s) {
    if (!s || !s->hidden) return 0;
    uint32_t count = 0;
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); n.id; n = arbor_scene_next_node(s, n))
        count += arbor__own_hidden(s, arbor__slot(s, n));
    return count;
}
