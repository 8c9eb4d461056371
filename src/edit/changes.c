/* SPDX-License-Identifier: MIT */
/* Change lists: the nodes whose world matrix was computed since the update before.
   Nothing is added to the update's loops; the list is made after the computation:
   - an update that swept the slots in order (a large share out of date): a node computed
     since the update before has a version above the clock as that update left it, and the
     slots are read once more in order (the sweep read them all: O(changed) still);
   - otherwise from the roots of the subtrees the update computed (every node below such a
     root is computed), after the nodes lazy reads computed. A read notes the nodes of its
     chain that nothing computed since the last update (their version is not above the clock
     as it left it), so a node is noted once however often it is written and read: the notes
     grow with the nodes changed, not with the reads. The update leaves out a noted node it
     computed again (its version is above the clock as the update found it): its subtree
     lists it. */
#include "edit/edit_internal.h"

typedef arbor_node lazy_entry;

typedef struct arbor__changes {
    uint64_t since;      /* the clock as the last update left it */
    arbor_node *list;    /* the last update's list */
    uint32_t count, cap;
    bool all;            /* memory ran out: every node counts as changed */
    lazy_entry *lazy;    /* what reads computed since the last update */
    uint32_t lazy_count, lazy_cap;
    bool lazy_lost;      /* a note did not fit */
} arbor__changes;

/* Grows *p (elements of `size` bytes, capacity *cap) to hold at least `need`; false when out
   of memory (nothing changed). */
static bool grow(arbor_scene *s, void **p, uint32_t *cap, uint64_t need, size_t size) {
    if (need <= *cap) return true;
    uint64_t n = *cap ? (uint64_t)*cap * 2 : 64;
    if (n < need) n = need;
    if (n > UINT32_MAX) return false;
    void *q = arbor__realloc(s, *p, (size_t)*cap * size, (size_t)n * size);
    if (!q) return false;
    *p = q;
    *cap = (uint32_t)n;
    return true;
}

void arbor__changes_note(arbor_scene *s, uint32_t top, uint32_t slot) {
    arbor__changes *c = s->changes;
    uint32_t n = top, length = 0;
    for (;; n = s->n.scratch[n]) {
        length += s->n.version[n] <= c->since;
        if (n == slot) break;
    }
    if (!length) return;
    if (!grow(s, (void **)&c->lazy, &c->lazy_cap, (uint64_t)c->lazy_count + length, sizeof *c->lazy)) {
        c->lazy_lost = true;
        return;
    }
    for (n = top;; n = s->n.scratch[n]) {
        if (s->n.version[n] <= c->since) c->lazy[c->lazy_count++] = arbor__handle(s, n);
        if (n == slot) break;
    }
}

void arbor__changes_collect(arbor_scene *s, const uint32_t *roots, uint32_t count, uint64_t computed, uint64_t before) {
    arbor__changes *c = s->changes;
    uint64_t since = c->since;
    c->since = atomic_load_explicit(&s->clock, memory_order_relaxed);
    c->count = 0;
    c->all = (roots && c->lazy_lost) || !grow(s, (void **)&c->list, &c->cap, c->lazy_count + computed, sizeof *c->list);
    for (uint32_t slot = 1; !roots && !c->all && slot < s->slot_end; slot++) {
        if (!(s->n.flags[slot] & ARBOR__ALIVE) || s->n.version[slot] <= since) continue;
        if (c->count == c->cap) c->all = true; /* reads computed more than they could note */
        else c->list[c->count++] = arbor__handle(s, slot);
    }
    for (uint32_t i = 0; roots && !c->all && i < c->lazy_count; i++) {
        uint32_t slot = arbor__live_slot(s, c->lazy[i]);
        if (slot && s->n.version[slot] > since && s->n.version[slot] <= before) c->list[c->count++] = c->lazy[i];
    }
    for (uint32_t i = 0; !c->all && i < count; i++) {
        uint32_t top = roots[i];
        for (uint32_t n = top; n && c->count < c->cap; n = arbor__next_in_subtree(s, top, n, true))
            c->list[c->count++] = arbor__handle(s, n);
    }
    c->lazy_count = 0;
    c->lazy_lost = false;
}

arbor_result arbor_scene_track_changes(arbor_scene *s, bool on) {
    if (!s) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, "arbor_scene_track_changes", "no scene was given");
    arbor__changes *c = s->changes;
    if (on && !c) {
        if (!(c = arbor__alloc(s, sizeof *c)))
            return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, "arbor_scene_track_changes", "no memory for change lists");
        *c = (arbor__changes){ .since = atomic_load_explicit(&s->clock, memory_order_relaxed) };
        s->changes = c;
        s->hooks.computed_chain = arbor__changes_note;
        s->hooks.computed_roots = arbor__changes_collect;
        arbor__on_destroy(s, arbor__edit_free);
    } else if (!on && c) {
        arbor__free(s, c->list, (size_t)c->cap * sizeof *c->list);
        arbor__free(s, c->lazy, (size_t)c->lazy_cap * sizeof *c->lazy);
        arbor__free(s, c, sizeof *c);
        s->changes = NULL;
        s->hooks.computed_chain = NULL;
        s->hooks.computed_roots = NULL;
    }
    return ARBOR_OK;
}

uint32_t arbor_scene_changed(const arbor_scene *s, arbor_node *out, uint32_t cap) {
    const arbor__changes *c = s ? s->changes : NULL;
    if (!c) return 0;
    if (!out) cap = 0; /* the count alone */
    if (!c->all) {
        for (uint32_t i = 0; i < c->count && i < cap; i++) out[i] = c->list[i];
        return c->count;
    }
    uint32_t k = 0;
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(s, n), k++)
        if (k < cap) out[k] = n;
    return k;
}
