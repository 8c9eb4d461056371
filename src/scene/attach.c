/* SPDX-License-Identifier: MIT */
/* Attachments: user pointer, mesh index, local bounds, camera, light and a kept local matrix, in
   records apart from the hot per-node arrays (most nodes carry none). The scene keeps the
   records, the user pointer and the kept matrix; the setters of mesh and bounds are bounds'
   (bounds/attach.c), those of cameras and lights view's (view/attach.c). */
#include <math.h>
#include <string.h>

#include "scene/scene_internal.h"

const arbor__attachment *arbor__attachment_of(const arbor_scene *s, uint32_t slot) {
    uint32_t index = s->n.attachment[slot];
    return index ? &s->attachments[index] : NULL;
}

void arbor__attachments_free(arbor_scene *s) {
    arbor__free(s, s->attachments, (size_t)s->attachment_cap * sizeof *s->attachments);
}

void arbor__attachment_release(arbor_scene *s, uint32_t slot) {
    uint32_t index = s->n.attachment[slot];
    if (!index) return;
    if (s->attachments[index].foreign && s->hooks.unparent) s->hooks.unparent(s, slot);
    if (s->attachments[index].has & ARBOR__HAS_BOUNDS) s->bounded--;
    if (s->attachments[index].has & ARBOR__HAS_HIDDEN) s->hidden--;
    if (s->attachments[index].instances && s->hooks.drop_instances) s->hooks.drop_instances(s, s->attachments[index].instances);
    s->attachments[index].instances = 0;
    s->attachments[index].next_free = s->attachment_free;
    s->attachment_free = index;
    s->n.attachment[slot] = 0;
}

bool arbor__attachment_reserve(arbor_scene *s, uint32_t count) {
    if (s->attachment_free && count == 1) return true;
    if (s->attachment_end == 0) s->attachment_end = 1;
    if ((uint64_t)s->attachment_end + count <= s->attachment_cap) return true;
    uint64_t cap = s->attachment_cap ? (uint64_t)s->attachment_cap * 2 : 16;
    if (cap < (uint64_t)s->attachment_end + count) cap = (uint64_t)s->attachment_end + count;
    if (cap > UINT32_MAX) return false;
    arbor__attachment *grown = arbor__alloc(s, (size_t)cap * sizeof *grown);
    if (!grown) return false;
    if (s->attachments) memcpy(grown, s->attachments, (size_t)s->attachment_cap * sizeof *grown);
    arbor__attachments_free(s);
    s->attachments = grown;
    s->attachment_cap = (uint32_t)cap;
    return true;
}

arbor__attachment *arbor__attachment_writable(arbor_scene *s, uint32_t slot) {
    uint32_t index = s->n.attachment[slot];
    if (index) return &s->attachments[index];
    if (!arbor__attachment_reserve(s, 1)) return NULL;
    if (s->attachment_free) {
        index = s->attachment_free;
        s->attachment_free = s->attachments[index].next_free;
    } else {
        index = s->attachment_end++;
    }
    s->attachments[index] = (arbor__attachment){ .mesh = -1 };
    s->n.attachment[slot] = index;
    return &s->attachments[index];
}

void arbor__attachment_trim(arbor_scene *s, uint32_t slot) {
    const arbor__attachment *a = arbor__attachment_of(s, slot);
    if (a && a->mesh < 0 && !a->has && !a->user && !a->foreign && !a->instances) arbor__attachment_release(s, slot);
}

bool arbor__attachment_swap(arbor_scene *s, uint32_t slot, arbor__attachment *other) {
    const uint32_t kept = ARBOR__HAS_MATRIX, other_has = other->has & ~kept; /* the kept matrix stays */
    bool empty = other->mesh < 0 && !other_has && !other->user;
    arbor__attachment *a = empty && !s->n.attachment[slot] ? NULL : arbor__attachment_writable(s, slot);
    if (!a) {
        if (!empty) return false;
        *other = (arbor__attachment){ .mesh = -1 }; /* both empty */
        return true;
    }
    arbor__attachment mine = *a;
    *a = *other;
    a->has = other_has | (mine.has & kept);
    memcpy(a->matrix, mine.matrix, sizeof a->matrix);
    mine.has &= ~kept;
    uint32_t had = mine.has & ARBOR__HAS_BOUNDS, has = a->has & ARBOR__HAS_BOUNDS;
    s->bounded = s->bounded - (had ? 1 : 0) + (has ? 1 : 0);
    if (had || has) arbor__notify_stale(s, slot);
    uint32_t was_hidden = mine.has & ARBOR__HAS_HIDDEN, is_hidden = a->has & ARBOR__HAS_HIDDEN;
    s->hidden = s->hidden - (was_hidden ? 1 : 0) + (is_hidden ? 1 : 0);
    if (was_hidden != is_hidden) arbor__visibility_moved(s, slot);
    a->foreign = mine.foreign; /* not part of what is exchanged */
    a->instances = mine.instances;
    a->next_free = mine.next_free;
    mine.foreign = mine.instances = mine.next_free = 0;
    *other = mine;
    arbor__attachment_trim(s, slot);
    return true;
}

bool arbor__matrix_needs_keeping(const arbor_real m[12], const arbor_real trs[ARBOR__TRS]) {
    arbor_real composed[12];
    arbor__rows_store(composed, arbor__rows_compose_trs(trs));
    return memcmp(composed, m, sizeof composed) != 0;
}

bool arbor__keep_matrix(arbor_scene *s, uint32_t slot, const arbor_real *m) {
    if (!m) {
        if (s->n.attachment[slot]) {
            s->attachments[s->n.attachment[slot]].has &= ~(uint32_t)ARBOR__HAS_MATRIX;
            arbor__attachment_trim(s, slot);
        }
        return true;
    }
    arbor__attachment *a = arbor__attachment_writable(s, slot);
    if (!a) return false;
    memcpy(a->matrix, m, sizeof a->matrix);
    a->has |= ARBOR__HAS_MATRIX;
    return true;
}

/* ---- user pointers ---------------------------------------------------------------------------- */

void *arbor_node_user(const arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    const arbor__attachment *a = slot ? arbor__attachment_of(s, slot) : NULL;
    return a ? a->user : NULL;
}

arbor_result arbor_node_set_user(arbor_scene *s, arbor_node n, void *user) {
    static const char *const fn = "arbor_node_set_user";
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    if (!user && !s->n.attachment[slot]) return ARBOR_OK;
    arbor__attachment *a = arbor__attachment_writable(s, slot);
    if (!a) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the user pointer");
    a->user = user;
    arbor__attachment_trim(s, slot);
    return ARBOR_OK;
}
