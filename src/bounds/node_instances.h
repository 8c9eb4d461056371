/* SPDX-License-Identifier: MIT */
/*
 * What src/bounds offers about a node's instance sets (node_instances.c) to the folders that
 * extend it: the journal and clones of src/edit record and copy them. The sets themselves are
 * kept in the scene (arbor__instance_sets), found through the node's attachment record.
 */
#ifndef ARBOR_BOUNDS_NODE_INSTANCES_H
#define ARBOR_BOUNDS_NODE_INSTANCES_H

#include "scene/scene_internal.h"

/* The node's instance set, or NULL when it has none. */
static inline arbor__instance_set *arbor__instances_of(const arbor_scene *s, uint32_t slot) {
    uint32_t a = s->n.attachment[slot], i = a ? s->attachments[a].instances : 0;
    return i ? &s->instance_sets.items[i - 1] : NULL;
}
/* Instance i's world matrix (affine) computed from slot's current world matrix. */
void arbor__instance_world(const arbor_scene *s, uint32_t slot, const arbor__instance_set *set, uint32_t i,
                           arbor_real out[12]);
/* A new set of `count` checked instances (arbor_node_set_instances' rules): *index (0 for
   count 0); nothing made on failure. */
arbor_result arbor__instances_make(arbor_scene *s, const arbor_trs *instances, uint32_t count, uint32_t *index,
                                   const char *fn);
/* Exchanges slot's set with set *index (0: none); false when out of memory (nothing changed). */
bool arbor__instances_swap(arbor_scene *s, uint32_t slot, uint32_t *index);
/* Bytes a set holds. */
size_t arbor__instances_bytes(const arbor_scene *s, uint32_t index);
/* Frees set `index` (1-based, as in arbor__attachment.instances). */
void arbor__instances_release(arbor_scene *s, uint32_t index);
/* A copy of src's set `index` in dst: its index, 0 when out of memory. */
uint32_t arbor__instances_copy(arbor_scene *dst, const arbor_scene *src, uint32_t index);
/* Frees every set of a scene being destroyed. */
void arbor__instances_free(arbor_scene *s);

#endif
