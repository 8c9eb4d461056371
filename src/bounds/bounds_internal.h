/* SPDX-License-Identifier: MIT */
/* What the files of src/bounds/ share: boxes as 6 reals (min x y z, max x y z), empty as
   (+inf, -inf), and the subtree table. */
#ifndef ARBOR_BOUNDS_INTERNAL_H
#define ARBOR_BOUNDS_INTERNAL_H

#include "bounds/node_instances.h"
#include "scene/scene_internal.h"

/* Subtree boxes, indexed by slot (the scene keeps the table in its `boxes`): the world box of each node's subtree, for
   arbor_node_subtree_bounds, arbor_node_subtree_sphere and arbor_scene_cull. Allocated at the
   first such query of a scene that has bounds (a scene without bounds never holds one), grown
   to the node storage's capacity at the next query after it grew, freed with the scene.
   An entry is current when its version is the node's world version and not 0: a change above
   the node changes that version; a change inside its subtree (a transform, a link, a local
   box) sets the version of the node and of its ancestors to 0 (arbor__bounds_stale).
   Invariant: an entry at 0 has only ancestors at 0; slots at or past `capacity` count as 0.
   Slots renumbered (the renumbered hook): the entries move with their nodes, or are all set to 0
   (always correct: everything is recomputed at the next query). */
typedef struct arbor__subtree_box {
    arbor_real box[6];   /* world min (3), max (3) over the subtree; no bounds: +inf, -inf */
    uint64_t version;    /* the node's world version when computed; 0: out of date */
} arbor__subtree_box;

/* The hooks of the scene that bounds.c sets with the table (arbor__hooks). */
/* Marks the subtree boxes of slot and of its ancestors out of date: something in slot's
   subtree moved, came or went. O(1) when its parent's is already out of date. */
void arbor__bounds_stale(arbor_scene *s, uint32_t slot);
/* Frees the subtree boxes and the instancing table (the scene's end). */
void arbor__bounds_free(arbor_scene *s);

static inline bool arbor__box_empty(const arbor_real box[6]) { return !(box[0] <= box[3]); }

/* The node's own box in world space, empty when it has none (with instances: the union of
   theirs, instances.h). slot's world matrix must be current. The same bits as the min and max of its eight corners transformed (each term of
   the sum is taken at its own extreme, and rounding keeps order). */
void arbor__own_world_box(const arbor_scene *s, uint32_t slot, arbor_real out[6]);

/* The box of local (min 3, max 3) through the affine w: the min and max of its eight corners. */
void arbor__box_through(const arbor_real w[12], const arbor_real local[6], arbor_real out[6]);

/* The union of local through each instance's world matrix (slot's world matrix current). */
void arbor__instances_world_box(const arbor_scene *s, uint32_t slot, const arbor__instance_set *set,
                                const arbor_real local[6], arbor_real out[6]);

/* The set's instance world matrices (12 each), brought up to date. */
const arbor_real *arbor__instance_worlds(arbor_scene *s, uint32_t slot, arbor__instance_set *set);

/* True when the node carries a local box. */
static inline bool arbor__has_bounds(const arbor_scene *s, uint32_t slot) {
    const arbor__attachment *a = arbor__attachment_of(s, slot);
    return a && (a->has & ARBOR__HAS_BOUNDS);
}

/* Makes the subtree table cover every slot; false (with the failure recorded for fn) when out
   of memory. */
bool arbor__boxes_ready(arbor_scene *s, const char *fn);

/* Brings the subtree box of top, and of every node below it, up to date: recomputes only
   entries out of date (above), children first; resolves the world matrices it reads. */
void arbor__subtree_refresh(arbor_scene *s, uint32_t top);

/* One entry of arbor_scene_instance_batches' open-addressing table (scene->instance_table):
   a (mesh, mirrored) group and the batch it became. */
typedef struct arbor__instance_group {
    uint32_t stamp;    /* the call that filled it (scene->instance_stamp); others are free */
    int32_t mesh;
    uint32_t mirrored; /* 0 or 1; 2 added once the batch is placed */
    uint32_t batch;    /* order of first appearance */
    uint32_t count;    /* instances */
    uint32_t first;    /* once placed: its first instance's index in the whole list */
    uint32_t placed;   /* its instances placed so far */
} arbor__instance_group;

#endif
