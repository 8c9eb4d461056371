/* SPDX-License-Identifier: MIT */
/*
 * A node's instances (instances.h): their TRS and world matrices, kept in sets apart from the
 * node storage (few nodes have any), found through the node's attachment record. The world
 * matrices are a cache keyed by the node's world version: a new version (the node or an
 * ancestor moved) recomputes them all, an instance write recomputes the range written since.
 * Also the screen coverage of levels of detail.
 */
#include <math.h>
#include <string.h>

#include "bounds_internal.h"

/* ---- the sets -------------------------------------------------------------------------------- */

static void set_free_arrays(arbor_scene *s, arbor__instance_set *set) {
    arbor__free(s, set->trs, (size_t)set->count * ARBOR__TRS * sizeof(arbor_real));
    arbor__free(s, set->world, (size_t)set->count * 12 * sizeof(arbor_real));
    set->trs = set->world = NULL;
    set->count = 0;
}

void arbor__instances_release(arbor_scene *s, uint32_t index) {
    if (index > s->instance_sets.end) return; /* the sets were freed first (the scene's end) */
    arbor__instance_set *set = &s->instance_sets.items[index - 1];
    set_free_arrays(s, set);
    set->next_free = s->instance_sets.free_head;
    s->instance_sets.free_head = index;
}

void arbor__instances_free(arbor_scene *s) {
    arbor__instance_sets *t = &s->instance_sets;
    for (uint32_t i = 0; i < t->end; i++) set_free_arrays(s, &t->items[i]);
    arbor__free(s, t->items, (size_t)t->cap * sizeof *t->items);
    *t = (arbor__instance_sets){0};
    s->hooks.drop_instances = NULL;
}

/* A free set (1-based index), 0 when out of memory. */
static uint32_t set_take(arbor_scene *s) {
    arbor__instance_sets *t = &s->instance_sets;
    if (t->free_head) {
        uint32_t index = t->free_head;
        t->free_head = t->items[index - 1].next_free;
        return index;
    }
    if (t->end == t->cap) {
        uint64_t cap = t->cap ? 2 * (uint64_t)t->cap : 8;
        if (cap > UINT32_MAX / 2) return 0;
        arbor__instance_set *grown = arbor__realloc(s, t->items, (size_t)t->cap * sizeof *grown, (size_t)cap * sizeof *grown);
        if (!grown) return 0;
        t->items = grown;
        t->cap = (uint32_t)cap;
    }
    t->items[t->end] = (arbor__instance_set){0};
    /* From now on the scene drops the sets of the nodes it destroys, and frees them at its end. */
    s->hooks.drop_instances = arbor__instances_release;
    arbor__on_destroy(s, arbor__instances_free);
    return ++t->end;
}

/* Arrays for `count` instances into set (empty before); false when out of memory. */
static bool set_alloc(arbor_scene *s, arbor__instance_set *set, uint32_t count) {
    if ((uint64_t)count * 12 * sizeof(arbor_real) > SIZE_MAX / 2) return false;
    arbor_real *trs = arbor__alloc(s, (size_t)count * ARBOR__TRS * sizeof *trs);
    arbor_real *world = trs ? arbor__alloc(s, (size_t)count * 12 * sizeof *world) : NULL;
    if (!world) {
        arbor__free(s, trs, (size_t)count * ARBOR__TRS * sizeof *trs);
        return false;
    }
    *set = (arbor__instance_set){ .trs = trs, .world = world, .count = count, .dirty_lo = count, .next_free = set->next_free };
    return true;
}

size_t arbor__instances_bytes(const arbor_scene *s, uint32_t index) {
    return index ? (size_t)s->instance_sets.items[index - 1].count * (ARBOR__TRS + 12) * sizeof(arbor_real) : 0;
}

uint32_t arbor__instances_copy(arbor_scene *dst, const arbor_scene *src, uint32_t index) {
    const arbor__instance_set *from = &src->instance_sets.items[index - 1];
    uint32_t copy = set_take(dst);
    if (!copy) return 0;
    arbor__instance_set *to = &dst->instance_sets.items[copy - 1];
    from = &src->instance_sets.items[index - 1]; /* dst may be src: its table may have moved */
    if (!set_alloc(dst, to, from->count)) {
        arbor__instances_release(dst, copy);
        return 0;
    }
    memcpy(to->trs, from->trs, (size_t)from->count * ARBOR__TRS * sizeof *to->trs);
    to->edited = true; /* a new node: no file holds it */
    return copy;
}

void arbor__instance_world(const arbor_scene *s, uint32_t slot, const arbor__instance_set *set, uint32_t i,
                           arbor_real out[12]) {
    arbor__rows local = arbor__rows_compose_trs(set->trs + (size_t)i * ARBOR__TRS);
    arbor__rows_store(out, arbor__rows_mul(arbor__rows_load(s->n.world + (size_t)slot * 12), local));
}

/* The set's world matrices, brought up to date (the node's world matrix first). */
static const arbor_real *worlds(arbor_scene *s, uint32_t slot, arbor__instance_set *set) {
    arbor__resolve(s, slot);
    uint64_t version = s->n.version[slot];
    uint32_t lo = 0, hi = set->count;
    if (set->version == version) {
        lo = set->dirty_lo;
        hi = set->dirty_hi;
    }
    for (uint32_t i = lo; i < hi; i++) arbor__instance_world(s, slot, set, i, set->world + (size_t)i * 12);
    set->version = version;
    set->dirty_lo = set->count;
    set->dirty_hi = 0;
    return set->world;
}

/* ---- writing ----------------------------------------------------------------------------------- */

/* Checks one TRS and writes it, rotation normalised, into out (ARBOR__TRS reals). */
static arbor_result take_trs(const arbor_trs *in, arbor_real out[ARBOR__TRS], uint32_t i, const char *fn) {
    if (!arbor__all_finite(in->translation, 3) || !arbor__all_finite(in->rotation, 4) || !arbor__all_finite(in->scale, 3))
        return arbor__fail(ARBOR_ERR_NONFINITE, fn, "instance %u holds a NaN or infinity", i);
    memcpy(out + ARBOR__T, in->translation, 3 * sizeof *out);
    memcpy(out + ARBOR__S, in->scale, 3 * sizeof *out);
    if (!arbor__unit_quat(out + ARBOR__R, in->rotation))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the rotation of instance %u cannot be normalised", i);
    return ARBOR_OK;
}

/* Something in the node's instances changed: its box and its ancestors' are out of date. */
static void moved(arbor_scene *s, uint32_t slot) {
    if (s->boxes.entry) arbor__bounds_stale(s, slot);
}

arbor_result arbor__instances_make(arbor_scene *s, const arbor_trs *instances, uint32_t count, uint32_t *index,
                                   const char *fn) {
    *index = 0;
    if (!count) return ARBOR_OK;
    arbor__instance_set fresh = {0};
    if (!set_alloc(s, &fresh, count)) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for %u instances", count);
    arbor_result r = ARBOR_OK;
    for (uint32_t i = 0; i < count && !r; i++) r = take_trs(&instances[i], fresh.trs + (size_t)i * ARBOR__TRS, i, fn);
    if (!r && !(*index = set_take(s))) r = arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for %u instances", count);
    if (r) {
        set_free_arrays(s, &fresh);
        return r;
    }
    arbor__instance_set *set = &s->instance_sets.items[*index - 1];
    fresh.next_free = set->next_free;
    fresh.edited = true;
    *set = fresh;
    return ARBOR_OK;
}

bool arbor__instances_swap(arbor_scene *s, uint32_t slot, uint32_t *index) {
    arbor__attachment *a = s->n.attachment[slot] ? &s->attachments[s->n.attachment[slot]] : NULL;
    if (!a && !*index) return true;
    if (!a && !(a = arbor__attachment_writable(s, slot))) return false;
    uint32_t old = a->instances;
    a->instances = *index;
    *index = old;
    if (a->mesh < 0 && !a->has && !a->user && !a->foreign && !a->instances) arbor__attachment_release(s, slot);
    moved(s, slot);
    return true;
}

arbor_result arbor_node_set_instances(arbor_scene *s, arbor_node n, const arbor_trs *instances, uint32_t count) {
    static const char *const fn = "arbor_node_set_instances";
    arbor_result r = ARBOR_OK;
    if (!s) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "no scene was given");
    uint32_t slot = arbor__require(s, n, fn, &r), index;
    if (!slot) return r;
    if (count && !instances) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "instances is NULL for %u instances", count);
    if ((r = arbor__instances_make(s, instances, count, &index, fn))) return r;
    if (!arbor__instances_swap(s, slot, &index)) {
        arbor__instances_release(s, index);
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the attachment");
    }
    if (index) arbor__instances_release(s, index); /* the set it had */
    return ARBOR_OK;
}

/* The live node's set and instance i, or NULL with *r set. */
static arbor__instance_set *instance_at(const arbor_scene *s, arbor_node n, uint32_t i, uint32_t *slot, arbor_result *r,
                                        const char *fn) {
    if (!(*slot = arbor__require(s, n, fn, r))) return NULL;
    arbor__instance_set *set = arbor__instances_of(s, *slot);
    if (set && i < set->count) return set;
    *r = arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "node " ARBOR__NODE_FMT " has %u instances, not %u",
                     ARBOR__NODE_ARGS(s, *slot), set ? set->count : 0, i + 1);
    return NULL;
}

arbor_result arbor_node_set_instance(arbor_scene *s, arbor_node n, uint32_t i, const arbor_trs *trs) {
    static const char *const fn = "arbor_node_set_instance";
    arbor_result r = ARBOR_OK;
    uint32_t slot;
    if (!s || !trs) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "scene and trs are required");
    arbor__instance_set *set = instance_at(s, n, i, &slot, &r, fn);
    if (!set) return r;
    arbor_real value[ARBOR__TRS];
    if ((r = take_trs(trs, value, i, fn))) return r;
    memcpy(set->trs + (size_t)i * ARBOR__TRS, value, sizeof value);
    if (i < set->dirty_lo) set->dirty_lo = i;
    if (i + 1 > set->dirty_hi) set->dirty_hi = i + 1;
    set->edited = true;
    moved(s, slot);
    return ARBOR_OK;
}

/* ---- reading ----------------------------------------------------------------------------------- */

uint32_t arbor_node_instance_count(const arbor_scene *s, arbor_node n) {
    uint32_t slot = s ? arbor__live_slot(s, n) : 0;
    const arbor__instance_set *set = slot ? arbor__instances_of(s, slot) : NULL;
    return set ? set->count : 0;
}

/* arbor_node_instance, for the name fn the caller called. */
static arbor_result read_instance(const arbor_scene *s, arbor_node n, uint32_t i, arbor_trs *out, const char *fn) {
    arbor_result r = ARBOR_OK;
    uint32_t slot;
    if (!s || !out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "scene and out are required");
    const arbor__instance_set *set = instance_at(s, n, i, &slot, &r, fn);
    if (!set) return r;
    const arbor_real *v = set->trs + (size_t)i * ARBOR__TRS;
    memcpy(out->translation, v + ARBOR__T, sizeof out->translation);
    memcpy(out->rotation, v + ARBOR__R, sizeof out->rotation);
    memcpy(out->scale, v + ARBOR__S, sizeof out->scale);
    return ARBOR_OK;
}

arbor_result arbor_node_instance(const arbor_scene *s, arbor_node n, uint32_t i, arbor_trs *out) {
    return read_instance(s, n, i, out, "arbor_node_instance");
}

arbor_result arbor_node_get_instance(const arbor_scene *s, arbor_node n, uint32_t i, arbor_trs *out) {
    return read_instance(s, n, i, out, "arbor_node_get_instance");
}

arbor_result arbor_node_instance_world_matrix(arbor_scene *s, arbor_node n, uint32_t i, arbor_real out[16]) {
    static const char *const fn = "arbor_node_instance_world_matrix";
    arbor_result r = ARBOR_OK;
    uint32_t slot;
    if (!s || !out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "scene and out are required");
    arbor__instance_set *set = instance_at(s, n, i, &slot, &r, fn);
    if (!set) return r;
    arbor__affine_to_mat4(out, worlds(s, slot, set) + (size_t)i * 12);
    return ARBOR_OK;
}

arbor_result arbor_node_instance_world_matrices(arbor_scene *s, arbor_node n, uint32_t first, arbor_real *out,
                                                uint32_t cap, uint32_t *count) {
    static const char *const fn = "arbor_node_instance_world_matrices";
    if (count) *count = 0;
    if (!s || !count || (cap && !out))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "scene, count and out (when cap > 0) are required");
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    arbor__instance_set *set = arbor__instances_of(s, slot);
    if (!set) return ARBOR_OK;
    const arbor_real *w = worlds(s, slot, set);
    for (uint32_t k = 0; k < cap && first < set->count && k < set->count - first; k++)
        arbor__affine_to_mat4(out + (size_t)k * 16, w + (size_t)(first + k) * 12);
    *count = set->count;
    return ARBOR_OK;
}

uint32_t arbor_scene_instanced_count(const arbor_scene *s, uint64_t *instances) {
    uint32_t nodes = 0;
    uint64_t total = 0;
    for (arbor_node n = s ? arbor_scene_next_node(s, ARBOR_NONE) : ARBOR_NONE; n.id; n = arbor_scene_next_node(s, n)) {
        const arbor__instance_set *set = arbor__instances_of(s, arbor__slot(s, n));
        if (set) {
            nodes++;
            total += set->count;
        }
    }
    if (instances) *instances = total;
    return nodes;
}

/* The world box of the node's instances: its local box through each instance's world matrix,
   with the node's world matrix current (bounds_internal.h). */
void arbor__instances_world_box(const arbor_scene *s, uint32_t slot, const arbor__instance_set *set,
                                const arbor_real local[6], arbor_real out[6]) {
    for (int k = 0; k < 3; k++) {
        out[k] = (arbor_real)INFINITY;
        out[3 + k] = -(arbor_real)INFINITY;
    }
    for (uint32_t i = 0; i < set->count; i++) {
        arbor_real w[12], box[6];
        arbor__instance_world(s, slot, set, i, w);
        arbor__box_through(w, local, box);
        for (int k = 0; k < 3; k++) {
            if (box[k] < out[k]) out[k] = box[k];
            if (box[3 + k] > out[3 + k]) out[3 + k] = box[3 + k];
        }
    }
}

const arbor_real *arbor__instance_worlds(arbor_scene *s, uint32_t slot, arbor__instance_set *set) {
    return worlds(s, slot, set);
}

/* ---- levels of detail ------------------------------------------------------------------------ */

arbor_real arbor_node_screen_coverage(arbor_scene *s, arbor_node n, const arbor_real vp[16]) {
    arbor_real center[3], radius;
    if (!s || !vp || !arbor__live_slot(s, n) || arbor_node_subtree_sphere(s, n, center, &radius) || radius < 0) return -1;
    /* Clip w of the centre (its distance along the view axis for a perspective, 1 for an
       orthographic camera) and the scale of clip y per world unit (row 1's length). */
    double w = 0, row = 0;
    for (int c = 0; c < 3; c++) {
        w += (double)vp[c * 4 + 3] * center[c];
        row += (double)vp[c * 4 + 1] * vp[c * 4 + 1];
    }
    w += vp[15];
    if (!(w > radius * sqrt((double)vp[3] * vp[3] + (double)vp[7] * vp[7] + (double)vp[11] * vp[11]) && w > 0))
        return 1; /* the camera is inside the sphere, or it is behind it */
    double share = radius * sqrt(row) / w; /* the diameter's share of clip space's height, 2 */
    return (arbor_real)(share > 1 ? 1 : share);
}

int32_t arbor_lod_pick(arbor_scene *s, const arbor_node *levels, const arbor_real *coverage, uint32_t count,
                       const arbor_real vp[16]) {
    if (!s || !levels || !count || !arbor__live_slot(s, levels[0])) return -1;
    if (!coverage) return 0;
    arbor_real seen = arbor_node_screen_coverage(s, levels[0], vp);
    if (seen < 0) return 0; /* no bounds: no coverage to judge by */
    for (uint32_t i = 0; i < count; i++)
        if (seen >= coverage[i] && arbor__live_slot(s, levels[i])) return (int32_t)i;
    return -1;
}
