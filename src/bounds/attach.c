/* SPDX-License-Identifier: MIT */
/* A node's mesh index and local bounds, kept in the scene's attachment record. */
#include <math.h>
#include <string.h>

#include "bounds_internal.h"

/* ---- mesh and bounds ----------------------------------------------------------------------- */

arbor_result arbor_node_set_mesh(arbor_scene *s, arbor_node n, int32_t mesh) {
    static const char *const fn = "arbor_node_set_mesh";
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    if (mesh < -1) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "mesh index %d is negative", (int)mesh);
    if (mesh == -1 && !s->n.attachment[slot]) return ARBOR_OK;
    arbor__attachment *a = arbor__attachment_writable(s, slot);
    if (!a) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the attachment");
    a->mesh = mesh;
    arbor__attachment_trim(s, slot);
    return ARBOR_OK;
}

int32_t arbor_node_mesh(const arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    const arbor__attachment *a = slot ? arbor__attachment_of(s, slot) : NULL;
    return a ? a->mesh : -1;
}

arbor_result arbor_node_set_bounds(arbor_scene *s, arbor_node n, const arbor_real min[3], const arbor_real max[3]) {
    static const char *const fn = "arbor_node_set_bounds";
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    if (!min != !max) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "min and max must both be given or both be NULL");
    if (!min) {
        arbor__attachment *a = s->n.attachment[slot] ? &s->attachments[s->n.attachment[slot]] : NULL;
        if (a && (a->has & ARBOR__HAS_BOUNDS)) {
            a->has &= ~(uint32_t)ARBOR__HAS_BOUNDS;
            s->bounded--;
            arbor__notify_stale(s, slot);
            arbor__attachment_trim(s, slot);
        }
        return ARBOR_OK;
    }
    if (!arbor__all_finite(min, 3) || !arbor__all_finite(max, 3))
        return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the box holds a NaN or infinity");
    for (int i = 0; i < 3; i++)
        if (min[i] > max[i])
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "min[%d] = %g is above max[%d] = %g", i, (double)min[i], i,
                               (double)max[i]);
    arbor__attachment *a = arbor__attachment_writable(s, slot);
    if (!a) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the attachment");
    memcpy(a->bounds, min, 3 * sizeof *min);
    memcpy(a->bounds + 3, max, 3 * sizeof *max);
    if (!(a->has & ARBOR__HAS_BOUNDS)) s->bounded++;
    a->has |= ARBOR__HAS_BOUNDS;
    arbor__notify_stale(s, slot);
    return ARBOR_OK;
}

/* The local box of slot (0: none) into min and max, +inf and -inf when it has none; true when it
   has one. */
static bool local_box(const arbor_scene *s, uint32_t slot, arbor_real min[3], arbor_real max[3]) {
    const arbor__attachment *a = slot ? arbor__attachment_of(s, slot) : NULL;
    bool has = a && (a->has & ARBOR__HAS_BOUNDS);
    for (int i = 0; i < 3; i++) {
        min[i] = has ? a->bounds[i] : (arbor_real)INFINITY;
        max[i] = has ? a->bounds[3 + i] : -(arbor_real)INFINITY;
    }
    return has;
}

arbor_result arbor_node_bounds(const arbor_scene *s, arbor_node n, arbor_real min[3], arbor_real max[3]) {
    ARBOR__REQUIRE_OUT(min, "arbor_node_bounds");
    ARBOR__REQUIRE_OUT(max, "arbor_node_bounds");
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, "arbor_node_bounds", &r);
    if (!slot) return r;
    local_box(s, slot, min, max);
    return ARBOR_OK;
}

bool arbor_node_local_bounds(const arbor_scene *s, arbor_node n, arbor_real min[3], arbor_real max[3]) {
    return min && max && local_box(s, arbor__live_slot(s, n), min, max);
}

