/* SPDX-License-Identifier: MIT */
/* The core's messages name a node loaded from a file by its index there too: 'root/arm' (#3).
   The scene keeps a short list of its live documents, and its file_index hook asks their
   index <-> handle maps (arbor_gltf_index), so the labels cost no memory per node; the core
   never asks gltf by name. A document leaves the list when destroyed, and the list goes with
   the scene: a document may outlive its scene, inert (its scene NULL) from then on. */
#include <string.h>

#include "gltf/gltf_internal.h"

typedef struct arbor__gltf_docs {
    uint32_t count, cap;
    arbor_gltf **doc;
} arbor__gltf_docs;

static bool file_index(const arbor_scene *s, uint32_t slot, uint32_t *index) {
    const arbor__gltf_docs *d = s->gltf_docs;
    arbor_node n = arbor__handle(s, slot);
    for (uint32_t k = 0; d && k < d->count; k++) {
        int64_t i = arbor_gltf_index(d->doc[k], n);
        if (i >= 0) {
            *index = (uint32_t)i;
            return true;
        }
    }
    return false;
}

static void free_docs(arbor_scene *s) {
    arbor__gltf_docs *d = s->gltf_docs;
    if (!d) return;
    for (uint32_t k = 0; k < d->count; k++) { /* each document is inert from now on */
        d->doc[k]->listed = false;
        d->doc[k]->scene = NULL;
    }
    arbor__free(s, d->doc, (size_t)d->cap * sizeof *d->doc);
    arbor__free(s, d, sizeof *d);
    s->gltf_docs = NULL;
}

bool arbor__gltf_docs_reserve(arbor_scene *s) {
    arbor__gltf_docs *d = s->gltf_docs;
    if (!d) {
        if (!(d = arbor__alloc(s, sizeof *d))) return false;
        *d = (arbor__gltf_docs){ 0 };
        s->gltf_docs = d;
        arbor__on_destroy(s, free_docs);
        s->hooks.file_index = file_index;
    }
    if (d->count < d->cap) return true;
    uint32_t cap = d->cap ? d->cap * 2 : 4;
    if (cap <= d->cap) return false;
    arbor_gltf **grown = arbor__alloc(s, (size_t)cap * sizeof *grown);
    if (!grown) return false;
    if (d->count) memcpy(grown, d->doc, (size_t)d->count * sizeof *grown);
    arbor__free(s, d->doc, (size_t)d->cap * sizeof *d->doc);
    d->doc = grown;
    d->cap = cap;
    return true;
}

void arbor__gltf_docs_add(arbor_gltf *doc) {
    arbor__gltf_docs *d = doc->scene->gltf_docs;
    if (!d || d->count == d->cap) return; /* reserved before the load made anything */
    d->doc[d->count++] = doc;
    doc->listed = true;
}

void arbor__gltf_docs_remove(arbor_gltf *doc) {
    if (!doc->listed) return;
    arbor__gltf_docs *d = doc->scene->gltf_docs;
    for (uint32_t k = 0; k < d->count; k++)
        if (d->doc[k] == doc) {
            d->doc[k] = d->doc[--d->count];
            break;
        }
    doc->listed = false;
}
