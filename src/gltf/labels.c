/* SPDX-License-Identifier: MIT */
/* The file index of each node a load created, per node id, so that the core's messages can
   name a node as users of the file know it: 'root/arm' (#3). Registered with the core through
   its file_index hook; the core never asks gltf by name. */
#include <string.h>

#include "gltf/gltf_internal.h"

/* Per id: the generation of the node the load created and its index in the file plus one
   (0: not from a file). A later node on the same id has another generation. */
typedef struct arbor__file_indices {
    uint32_t cap;
    uint32_t (*entry)[2];
} arbor__file_indices;

static bool file_index(const arbor_scene *s, uint32_t slot, uint32_t *index) {
    const arbor__file_indices *t = s->file_indices;
    uint32_t id = s->n.id[slot];
    if (!t || id >= t->cap || !t->entry[id][1] || t->entry[id][0] != s->n.gen[id]) return false;
    *index = t->entry[id][1] - 1;
    return true;
}

static void free_indices(arbor_scene *s) {
    arbor__file_indices *t = s->file_indices;
    if (!t) return;
    arbor__free(s, t->entry, (size_t)t->cap * sizeof *t->entry);
    arbor__free(s, t, sizeof *t);
    s->file_indices = NULL;
}

bool arbor__gltf_indices_reserve(arbor_scene *s, uint32_t count) {
    uint64_t need = (uint64_t)s->id_end + count;
    if (need > UINT32_MAX) return false;
    arbor__file_indices *t = s->file_indices;
    if (!t) {
        if (!(t = arbor__alloc(s, sizeof *t))) return false;
        *t = (arbor__file_indices){ 0 };
        s->file_indices = t;
        arbor__on_destroy(s, free_indices);
        s->hooks.file_index = file_index;
    }
    if (need <= t->cap) return true;
    uint64_t cap = (uint64_t)t->cap * 2 > need ? (uint64_t)t->cap * 2 : need;
    if (cap > UINT32_MAX) cap = need;
    uint32_t (*grown)[2] = arbor__alloc(s, (size_t)cap * sizeof *grown);
    if (!grown) return false;
    if (t->cap) memcpy(grown, t->entry, (size_t)t->cap * sizeof *grown);
    memset(grown + t->cap, 0, (size_t)(cap - t->cap) * sizeof *grown);
    arbor__free(s, t->entry, (size_t)t->cap * sizeof *t->entry);
    t->entry = grown;
    t->cap = (uint32_t)cap;
    return true;
}

void arbor__gltf_indices_set(arbor_scene *s, arbor_node n, uint32_t index) {
    arbor__file_indices *t = s->file_indices;
    uint32_t id = (uint32_t)n.id;
    if (t && id < t->cap) {
        t->entry[id][0] = (uint32_t)(n.id >> 32);
        t->entry[id][1] = index + 1;
    }
}
