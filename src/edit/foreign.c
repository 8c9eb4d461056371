/* SPDX-License-Identifier: MIT */
/* Foreign parents: roots whose world matrix is a provider's matrix times their local. The
   table is allocated when the first one is set; a node finds its entry through its attachment
   record, so the update's root branch pays one test of s->foreign when none is in use. */
#include <string.h>

#include "edit/edit_internal.h"

/* What arbor_node_attach_to gives its provider: a dependent of the other scene (its memory is
   this scene's), whose scene is NULL once that one is destroyed (then it answers as for a dead
   node: the last matrix stays). */
typedef struct scene_link {
    arbor__dependent dep; /* first: the detach finds the link */
    arbor_scene *scene;
    arbor_node node;
} scene_link;

static void link_detach(arbor__dependent *d) { ((scene_link *)d)->scene = NULL; }

/* Frees what a foreign entry owns (a link, off the other scene's dependents first). */
static void free_owned(arbor_scene *s, void *owned) {
    if (!owned) return;
    arbor__dependent_leave(&((scene_link *)owned)->dep);
    arbor__free(s, owned, sizeof(scene_link));
}

/* Reads the provider's matrix into m (prefilled with what the entry holds, so a provider that
   cannot answer leaves it); false when it is not finite. */
static bool read_provider(const arbor__foreign *f, arbor_real m[16]) {
    arbor__affine_to_mat4(m, f->world);
    f->provider.world(f->provider.user, m);
    return arbor__all_finite(m, 16);
}

/* Takes the provider's matrix when its version moved since the last poll, and then marks the
   node's subtree out of date. */
static void poll_entry(arbor_scene *s, arbor__foreign *f) {
    uint32_t slot = arbor__live_slot(s, f->node);
    if (!slot) return; /* held by the journal: polled again once it is back */
    uint64_t version = f->provider.version(f->provider.user);
    if (version == f->seen) return;
    arbor_real m[16];
    f->seen = version;
    if (!read_provider(f, m)) {
        arbor__log(s, ARBOR_LOG_WARN, "the foreign parent of node " ARBOR__NODE_FMT " gave a NaN or infinity: its last matrix is kept",
                   ARBOR__NODE_ARGS(s, slot));
        return;
    }
    arbor__affine_from_mat4(f->world, m);
    arbor__invalidate(s, slot);
}

void arbor__foreign_poll(arbor_scene *s) {
    arbor__foreign_table *t = s->foreign;
    if (t->polling) return; /* scenes attached to each other: one poll at a time */
    t->polling = true;
    for (uint32_t i = 0; i < t->end; i++)
        if (t->items[i].node.id) poll_entry(s, &t->items[i]);
    t->polling = false;
}

void arbor__foreign_poll_above(arbor_scene *s, uint32_t slot) {
    arbor__foreign_table *t = s->foreign;
    if (t->polling || !t->count) return;
    for (uint32_t steps = 0; s->n.parent[slot] && steps <= s->max_depth; steps++) slot = s->n.parent[slot];
    uint32_t a = s->n.attachment[slot], f = a ? s->attachments[a].foreign : 0;
    if (!f) return;
    t->polling = true;
    poll_entry(s, &t->items[f - 1]);
    t->polling = false;
}

/* The hooks the scene calls once it has a foreign table (arbor__hooks). */
static void poll_hook(arbor_scene *s, uint32_t slot) {
    if (slot)
        arbor__foreign_poll_above(s, slot);
    else
        arbor__foreign_poll(s);
}
static const arbor_real *world_hook(const arbor_scene *s, uint32_t slot) { return arbor__foreign_world(s, slot); }

/* Frees entry index (0-based) for reuse. */
static void free_entry(arbor_scene *s, uint32_t index) {
    arbor__foreign_table *t = s->foreign;
    arbor__foreign *f = &t->items[index];
    free_owned(s, f->owned);
    *f = (arbor__foreign){ .next_free = t->free_head };
    t->free_head = index + 1;
    t->count--;
}

void arbor__foreign_drop(arbor_scene *s, uint32_t slot) {
    uint32_t a = s->n.attachment[slot];
    if (!a || !s->attachments[a].foreign) return;
    free_entry(s, s->attachments[a].foreign - 1);
    s->attachments[a].foreign = 0;
    /* Left without anything else, the record goes (arbor__attachment_release calls back here). */
    const arbor__attachment *r = &s->attachments[a];
    if (r->mesh < 0 && !r->has && !r->user && !r->instances) arbor__attachment_release(s, slot);
}

/* Room for one more entry (the table made if there is none); false when out of memory. */
static bool reserve_entry(arbor_scene *s) {
    if (!s->foreign) {
        if (!(s->foreign = arbor__alloc(s, sizeof *s->foreign))) return false;
        *s->foreign = (arbor__foreign_table){0};
        s->hooks.foreign_world = world_hook;
        s->hooks.poll = poll_hook;
        s->hooks.unparent = arbor__foreign_drop;
        arbor__on_destroy(s, arbor__edit_free);
    }
    arbor__foreign_table *t = s->foreign;
    if (t->free_head || t->end < t->cap) return true;
    uint32_t cap = t->cap ? t->cap * 2 : 8;
    arbor__foreign *grown = arbor__realloc(s, t->items, (size_t)t->cap * sizeof *grown, (size_t)cap * sizeof *grown);
    if (!grown) return false;
    t->items = grown;
    t->cap = cap;
    return true;
}

/* Sets or removes (provider NULL) slot's foreign parent; owned is what the provider's user
   points to when arbor allocated it (freed with the entry, or here on failure). */
static arbor_result set_foreign(arbor_scene *s, uint32_t slot, const arbor_provider *provider, arbor_reparent mode,
                                void *owned, const char *fn) {
    arbor_result r = ARBOR_OK;
    arbor__foreign probe = { .provider = provider ? *provider : (arbor_provider){0} };
    arbor_real m[16], kept[12], inverse[12];
    if (mode != ARBOR_KEEP_LOCAL && mode != ARBOR_KEEP_WORLD)
        r = arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "mode %d is neither ARBOR_KEEP_LOCAL nor ARBOR_KEEP_WORLD", (int)mode);
    else if (provider && (!provider->world || !provider->version))
        r = arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the provider needs both world and version");
    if (!r && provider) {
        arbor_mat4_identity(m);
        arbor__affine_from_mat4(probe.world, m);
        probe.seen = provider->version(provider->user);
        if (!read_provider(&probe, m)) r = arbor__fail(ARBOR_ERR_NONFINITE, fn, "the provider's matrix holds a NaN or infinity");
        arbor__affine_from_mat4(probe.world, m);
    }
    if (!r && mode == ARBOR_KEEP_WORLD) {
        arbor__resolve(s, slot);
        memcpy(kept, s->n.world + (size_t)slot * 12, sizeof kept);
        if (provider) {
            if (!arbor__affine_invert(inverse, probe.world))
                r = arbor__fail(ARBOR_ERR_SINGULAR, fn, "the provider's matrix cannot be inverted");
            else
                arbor__affine_mul(kept, inverse, kept);
        }
    }
    if (!r && provider && !(reserve_entry(s) && arbor__attachment_reserve(s, 1)))
        r = arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the foreign parent");
    if (!r && mode == ARBOR_KEEP_WORLD && arbor__kept_local_is_matrix(kept) && !arbor__attachment_reserve(s, 1))
        r = arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the local matrix");
    if (!r && provider && s->n.parent[slot]) r = arbor_node_set_parent(s, arbor__handle(s, slot), ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_LOCAL);
    if (r) {
        free_owned(s, owned);
        return r;
    }
    arbor__foreign_drop(s, slot);
    if (mode == ARBOR_KEEP_WORLD) arbor__store_kept_local(s, slot, kept);
    if (provider) {
        arbor__foreign_table *t = s->foreign;
        uint32_t index = t->free_head ? t->free_head - 1 : t->end++;
        if (t->free_head) t->free_head = t->items[index].next_free;
        probe.node = arbor__handle(s, slot);
        probe.owned = owned;
        t->items[index] = probe;
        t->count++;
        arbor__attachment_writable(s, slot)->foreign = index + 1; /* reserved: cannot fail */
    }
    arbor__invalidate(s, slot);
    return ARBOR_OK;
}

arbor_result arbor_node_set_foreign_parent(arbor_scene *s, arbor_node n, const arbor_provider *parent, arbor_reparent mode) {
    static const char *const fn = "arbor_node_set_foreign_parent";
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    return slot ? set_foreign(s, slot, parent, mode, NULL, fn) : r;
}

bool arbor_node_has_foreign_parent(const arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    return slot && arbor__foreign_world(s, slot);
}

/* ---- a node of another scene as the provider ------------------------------------------------ */

static void link_world(void *user, arbor_real out[16]) {
    const scene_link *l = user;
    arbor_real m[16];
    if (l->scene && arbor_node_world_matrix(l->scene, l->node, m) == ARBOR_OK) memcpy(out, m, sizeof m);
}

static uint64_t link_version(void *user) {
    const scene_link *l = user;
    return l->scene ? arbor_node_world_version(l->scene, l->node) : 0;
}

arbor_result arbor_node_attach_to(arbor_scene *s, arbor_node n, arbor_scene *other, arbor_node parent, arbor_reparent mode) {
    static const char *const fn = "arbor_node_attach_to";
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    if (!other || other == s)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "other must be another scene (within one, use arbor_node_set_parent)");
    if (!arbor__require(other, parent, fn, &r)) return r;
    scene_link *link = arbor__alloc(s, sizeof *link);
    if (!link) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the link");
    *link = (scene_link){ .scene = other, .node = parent };
    arbor__dependent_join(other, &link->dep, link_detach);
    arbor_provider provider = { link_world, link_version, link };
    return set_foreign(s, slot, &provider, mode, link, fn);
}

/* ---- the scene's end --------------------------------------------------------------------------- */

void arbor__edit_free(arbor_scene *s) {
    arbor_scene_track_changes(s, false);
    arbor__foreign_table *t = s->foreign;
    if (!t) return;
    for (uint32_t i = 0; i < t->end; i++)
        free_owned(s, t->items[i].owned);
    arbor__free(s, t->items, (size_t)t->cap * sizeof *t->items);
    arbor__free(s, t, sizeof *t);
    s->foreign = NULL;
    s->hooks.foreign_world = NULL;
    s->hooks.poll = NULL;
    s->hooks.unparent = NULL;
}
