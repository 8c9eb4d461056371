/* SPDX-License-Identifier: MIT */
/*
 * What the files of src/edit/ share: foreign parents (foreign.c), change lists (changes.c) and
 * the journal (journal.c), each made when first used and told of the scene's changes through
 * the scene's hooks (scene/scene_internal.h); clones (clone.c) need none of it.
 */
#ifndef ARBOR_EDIT_INTERNAL_H
#define ARBOR_EDIT_INTERNAL_H

#include "bounds/node_instances.h" /* edit extends bounds: it journals and clones instance sets */
#include "scene/scene_internal.h"

/* A foreign parent: its provider and the matrix read at the last poll. */
typedef struct arbor__foreign {
    arbor_node node;          /* ARBOR_NONE: a free entry */
    arbor_provider provider;
    uint64_t seen;            /* the provider's version at the last poll */
    arbor_real world[12];     /* affine, as read at the last poll */
    void *owned;              /* what arbor_node_attach_to allocated for the provider */
    uint32_t next_free;
} arbor__foreign;
typedef struct arbor__foreign_table {
    arbor__foreign *items;
    uint32_t cap, end, free_head, count;
    bool polling;             /* a poll is running (providers may read other scenes) */
} arbor__foreign_table;
/* The matrix of slot's foreign parent, or NULL when it has none (at once when the scene has
   no foreign parents). */
static inline const arbor_real *arbor__foreign_world(const arbor_scene *s, uint32_t slot) {
    if (!s->foreign) return NULL;
    uint32_t a = s->n.attachment[slot], f = a ? s->attachments[a].foreign : 0;
    return f ? s->foreign->items[f - 1].world : NULL;
}
/* The hooks of the scene (arbor__hooks) that edit sets with its state: */
/* Polls every foreign parent (update) / the one above slot, if any (a read after a write). */
void arbor__foreign_poll(arbor_scene *s);
void arbor__foreign_poll_above(arbor_scene *s, uint32_t slot);
/* Drops slot's foreign parent, if it has one. */
void arbor__foreign_drop(arbor_scene *s, uint32_t slot);
/* A lazy read is about to compute the chain top .. slot (down-links in scratch): note it for
   the list. */
void arbor__changes_note(arbor_scene *s, uint32_t top, uint32_t slot);
/* An update computed the subtrees of roots[0 .. count), `computed` nodes in all, with versions
   above `before` (the clock when it began): make the list. */
void arbor__changes_collect(arbor_scene *s, const uint32_t *roots, uint32_t count, uint64_t computed, uint64_t before);
/* Nodes the journal holds (0 without a journal), and their new slots numbered from k on (below
   end) in new_slot, each held subtree depth first (a relayout moves them along); returns the new k. */
uint32_t arbor__journal_held(const arbor_scene *s);
uint32_t arbor__journal_number_held(const arbor_scene *s, uint32_t *new_slot, uint32_t k, uint32_t end);
/* Frees the foreign parents and change lists of a scene being destroyed (the destroy hook; the
   journal, a dependent of the scene, has let go before). */
void arbor__edit_free(arbor_scene *s);

#endif
