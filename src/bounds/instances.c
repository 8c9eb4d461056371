/* SPDX-License-Identifier: MIT */
/*
 * Instancing (seed 002 section 12): one mesh under many nodes becomes one batch of world
 * matrices; a mirrored node (negative determinant) goes into a batch of its own so a renderer
 * can flip its winding.
 *
 * Two passes over the nodes: the first groups them by (mesh, mirrored) in a hash table that
 * the scene keeps (grown while warming up, never cleared: entries carry the stamp of the call
 * that filled them), the second writes each batch and its matrices in place.
 */
#include <string.h>

#include "bounds_internal.h"

static uint32_t hash(int32_t mesh, uint32_t mirrored, uint32_t mask) {
    uint64_t key = ((uint64_t)(uint32_t)mesh << 1 | mirrored) * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(key >> 32) & mask;
}

/* The entry of (mesh, mirrored), or where it goes: a free entry. */
static arbor__instance_group *find(arbor_scene *s, int32_t mesh, uint32_t mirrored) {
    arbor__instance_group *table = s->instance_table;
    uint32_t mask = s->instance_table_cap - 1;
    for (uint32_t i = hash(mesh, mirrored, mask);; i = (i + 1) & mask) {
        arbor__instance_group *e = &table[i];
        if (e->stamp != s->instance_stamp || (e->mesh == mesh && (e->mirrored & 1) == mirrored)) return e;
    }
}

/* Makes room for `groups` groups at a load of at most one half; false when out of memory. */
static bool table_room(arbor_scene *s, uint32_t groups) {
    uint32_t old_cap = s->instance_table_cap;
    if (groups <= old_cap / 2) return true;
    uint32_t cap = old_cap ? 2 * old_cap : 64;
    if (cap < old_cap) return false;
    arbor__instance_group *old = s->instance_table, *fresh = arbor__alloc(s, (size_t)cap * sizeof *fresh);
    if (!fresh) return false;
    memset(fresh, 0, (size_t)cap * sizeof *fresh);
    uint32_t stamp = s->instance_stamp;
    s->instance_table = fresh;
    s->instance_table_cap = cap;
    arbor__on_destroy(s, arbor__bounds_free);
    s->instance_stamp = 1; /* fresh entries hold stamp 0: free */
    for (uint32_t i = 0; i < old_cap; i++)
        if (old[i].stamp == stamp) {
            arbor__instance_group *e = find(s, old[i].mesh, old[i].mirrored);
            *e = old[i];
            e->stamp = 1;
        }
    arbor__free(s, old, (size_t)old_cap * sizeof *old);
    return true;
}

/* As arbor_node_world_is_mirrored, of an affine world matrix. */
static uint32_t mirrored(const arbor_real *w) { return arbor__affine_det3(w) < 0; }

/* What a listed node draws: its world matrix, or its instances' (instances.h); none when it is
   hidden or carries no mesh. Sets *count and returns the first matrix (12 reals each). */
static const arbor_real *drawn(arbor_scene *s, uint32_t slot, int32_t *mesh, uint32_t *count) {
    const arbor__attachment *a = arbor__attachment_of(s, slot);
    *count = 0;
    if (!a || a->mesh < 0 || (s->hidden && arbor__hidden(s, slot))) return NULL;
    *mesh = a->mesh;
    arbor__instance_set *set = arbor__instances_of(s, slot);
    if (set) {
        *count = set->count;
        return arbor__instance_worlds(s, slot, set);
    }
    arbor__resolve(s, slot);
    *count = 1;
    return s->n.world + (size_t)slot * 12;
}

/* Writes the affine w as instance `index` of `matrices`. */
static void write_matrix(const arbor_real *w, arbor_matrix_layout layout, float *matrices, uint32_t index) {
    if (layout == ARBOR_LAYOUT_MAT4) {
        float *m = matrices + (size_t)index * 16;
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 3; r++) m[c * 4 + r] = (float)w[ARBOR__AT(r, c)];
            m[c * 4 + 3] = c == 3 ? 1.0f : 0.0f;
        }
    } else {
        float *m = matrices + (size_t)index * 12;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++) m[r * 4 + c] = (float)w[ARBOR__AT(r, c)];
    }
}

/* The instance batches of both entry points: matrix_cap and batch_cap bound what is written;
   whole (the 1.0 call) refuses a batch list that does not fit, and matrices NULL with instances. */
static arbor_result gather(arbor_scene *s, const arbor_node *nodes, uint32_t count, arbor_matrix_layout layout,
                           float *matrices, uint32_t matrix_cap, uint32_t *matrix_count, arbor_instance_batch *batches,
                           uint32_t batch_cap, uint32_t *batch_count, bool whole, const char *fn) {
    if (!s || (count && !nodes) || (matrix_cap && !matrices) || (batch_cap && !batches) || !matrix_count || !batch_count)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn,
                           "scene, the counts, nodes (when count > 0), matrices (when matrix_cap > 0) and batches "
                           "(when batch_cap > 0) are required");
    if (layout != ARBOR_LAYOUT_MAT4 && layout != ARBOR_LAYOUT_MAT3X4)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "layout %d is neither ARBOR_LAYOUT_MAT4 nor ARBOR_LAYOUT_MAT3X4",
                           (int)layout);
    for (uint32_t i = 0; i < count; i++)
        if (!arbor__live_slot(s, nodes[i]))
            return arbor__fail(nodes[i].id ? ARBOR_ERR_DEAD_NODE : ARBOR_ERR_INVALID_ARGUMENT, fn,
                               "nodes[%u] is %s", i, nodes[i].id ? "not a live node of the scene" : "ARBOR_NONE");

    /* Pass 1: the groups, their sizes and order. */
    if (++s->instance_stamp == 0) { /* stamps wrapped: forget every entry once */
        memset(s->instance_table, 0, (size_t)s->instance_table_cap * sizeof(arbor__instance_group));
        s->instance_stamp = 1;
    }
    uint32_t groups = 0, instances = 0;
    for (uint32_t i = 0; i < count; i++) {
        int32_t mesh;
        uint32_t drawn_count;
        const arbor_real *w = drawn(s, arbor__slot(s, nodes[i]), &mesh, &drawn_count);
        for (uint32_t k = 0; k < drawn_count; k++) {
            if (!table_room(s, groups + 1)) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory to group %u meshes", groups + 1);
            uint32_t mirror = mirrored(w + (size_t)k * 12);
            arbor__instance_group *e = find(s, mesh, mirror);
            if (e->stamp != s->instance_stamp) *e = (arbor__instance_group){ s->instance_stamp, mesh, mirror, groups++, 0, 0, 0 };
            e->count++;
            instances++;
        }
    }
    *batch_count = groups;
    *matrix_count = instances;
    if (whole && groups > batch_cap)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "%u batches are needed, batch_cap is %u", groups, batch_cap);
    if (whole && instances && !matrices) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "matrices is NULL for %u instances", instances);

    /* Pass 2: a batch is placed where its group is first met, each matrix in its batch; only
       what falls below the caps is written. */
    uint32_t first = 0;
    for (uint32_t i = 0; i < count; i++) {
        int32_t mesh;
        uint32_t drawn_count;
        const arbor_real *w = drawn(s, arbor__slot(s, nodes[i]), &mesh, &drawn_count);
        for (uint32_t k = 0; k < drawn_count; k++) {
            uint32_t mirror = mirrored(w + (size_t)k * 12);
            arbor__instance_group *e = find(s, mesh, mirror);
            if (e->mirrored < 2) {
                e->first = first;
                first += e->count;
                e->mirrored += 2;
                if (e->batch < batch_cap)
                    batches[e->batch] = (arbor_instance_batch){ .mesh = mesh, .mirrored = mirror, .first = e->first,
                                                                .count = e->count };
            }
            uint32_t index = e->first + e->placed++;
            if (index < matrix_cap) write_matrix(w + (size_t)k * 12, layout, matrices, index);
        }
    }
    return ARBOR_OK;
}

arbor_result arbor_scene_instance_batches(arbor_scene *s, const arbor_node *nodes, uint32_t count,
                                          arbor_matrix_layout layout, float *matrices, uint32_t matrix_cap,
                                          uint32_t *matrix_count, arbor_instance_batch *batches, uint32_t batch_cap,
                                          uint32_t *batch_count) {
    return gather(s, nodes, count, layout, matrices, matrix_cap, matrix_count, batches, batch_cap, batch_count, false,
                  "arbor_scene_instance_batches");
}

arbor_result arbor_scene_gather_instances(arbor_scene *s, const arbor_node *nodes, uint32_t count,
                                          arbor_matrix_layout layout, float *matrices, arbor_instance_batch *batches,
                                          uint32_t batch_cap, uint32_t *batch_count) {
    uint32_t matrix_count;
    return gather(s, nodes, count, layout, matrices, matrices ? UINT32_MAX : 0, &matrix_count, batches, batch_cap, batch_count, true,
                  "arbor_scene_gather_instances");
}
