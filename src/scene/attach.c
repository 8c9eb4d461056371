/* SPDX-License-Identifier: MIT */
/* Attachments: user pointer, mesh index, local bounds, camera, light and a kept local matrix, in
   records apart from the hot per-node arrays (most nodes carry none). */
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

/* Drops the record when it no longer holds anything. */
static void trim(arbor_scene *s, uint32_t slot) {
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
    trim(s, slot);
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
            trim(s, slot);
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
    trim(s, slot);
    return ARBOR_OK;
}

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
    trim(s, slot);
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
            trim(s, slot);
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

bool arbor_node_local_bounds(const arbor_scene *s, arbor_node n, arbor_real min[3], arbor_real max[3]) {
    if (!min || !max) return false;
    uint32_t slot = arbor__live_slot(s, n);
    const arbor__attachment *a = slot ? arbor__attachment_of(s, slot) : NULL;
    bool has = a && (a->has & ARBOR__HAS_BOUNDS);
    for (int i = 0; i < 3; i++) {
        min[i] = has ? a->bounds[i] : (arbor_real)INFINITY;
        max[i] = has ? a->bounds[3 + i] : -(arbor_real)INFINITY;
    }
    return has;
}

/* ---- cameras and lights ------------------------------------------------------------------------ */

static arbor_result check_camera(const arbor_camera *c, const char *fn) {
    const arbor_real v[6] = {c->yfov, c->aspect, c->xmag, c->ymag, c->znear, c->zfar};
    if (!arbor__all_finite(v, 6)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the camera holds a NaN or infinity");
    if (c->type == ARBOR_CAMERA_PERSPECTIVE) {
        if (!(c->yfov > 0) || c->aspect < 0 || !(c->znear > 0) || (c->zfar != 0 && c->zfar <= c->znear))
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn,
                               "a perspective camera needs yfov > 0, aspect >= 0, znear > 0 and zfar 0 or above znear");
    } else if (c->type == ARBOR_CAMERA_ORTHOGRAPHIC) {
        if (c->xmag == 0 || c->ymag == 0 || c->znear < 0 || !(c->zfar > c->znear))
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn,
                               "an orthographic camera needs non-zero xmag and ymag, znear >= 0 and zfar above znear");
    } else {
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "unknown camera type %d", (int)c->type);
    }
    return ARBOR_OK;
}

static arbor_result check_light(const arbor_light *l, const char *fn) {
    const arbor_real v[10] = {l->color[0], l->color[1], l->color[2], l->intensity, l->range, l->inner_cone,
                              l->outer_cone, l->direction[0], l->direction[1], l->direction[2]};
    if (!arbor__all_finite(v, 10)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the light holds a NaN or infinity");
    if ((unsigned)l->type > ARBOR_LIGHT_HEMISPHERIC)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "unknown light type %d", (int)l->type);
    if (l->intensity < 0 || l->range < 0)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "intensity and range must not be negative");
    if (l->type == ARBOR_LIGHT_SPOT) {
        double inner = l->inner_cone, outer = l->outer_cone;
        if (inner == 0 && outer == 0) outer = 3.14159265358979323846 / 4;
        if (inner < 0 || !(inner < outer) || outer > 3.14159265358979323846 / 2 + 1e-6)
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "spot cones need 0 <= inner < outer <= pi/2");
    }
    return ARBOR_OK;
}

/* Sets (value non-NULL) or clears the part `bit` of the node's record. */
static arbor_result set_part(arbor_scene *s, arbor_node n, uint32_t bit, const void *value, size_t size,
                             const char *fn) {
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    if (!value) {
        if (s->n.attachment[slot]) {
            s->attachments[s->n.attachment[slot]].has &= ~bit;
            trim(s, slot);
        }
        return ARBOR_OK;
    }
    r = bit == ARBOR__HAS_CAMERA ? check_camera(value, fn) : check_light(value, fn);
    if (r) return r;
    arbor__attachment *a = arbor__attachment_writable(s, slot);
    if (!a) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the attachment");
    memcpy(bit == ARBOR__HAS_CAMERA ? (void *)&a->camera : (void *)&a->light, value, size);
    a->has |= bit;
    return ARBOR_OK;
}

const arbor__attachment *arbor__carrying(const arbor_scene *s, arbor_node n, uint32_t part, uint32_t *slot,
                                         arbor_result *r, const char *fn) {
    if (!(*slot = arbor__require(s, n, fn, r))) return NULL;
    const arbor__attachment *a = arbor__attachment_of(s, *slot);
    if (a && (a->has & part)) return a;
    *r = arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "node " ARBOR__NODE_FMT " has no %s", ARBOR__NODE_ARGS(s, *slot),
                     part == ARBOR__HAS_CAMERA ? "camera" : "light");
    return NULL;
}

/* Copies the part `bit` of the node's record out. */
static arbor_result get_part(const arbor_scene *s, arbor_node n, uint32_t bit, void *out, size_t size, const char *fn) {
    ARBOR__REQUIRE_OUT(out, fn);
    arbor_result r = ARBOR_OK;
    uint32_t slot;
    const arbor__attachment *a = arbor__carrying(s, n, bit, &slot, &r, fn);
    if (!a) return r;
    memcpy(out, bit == ARBOR__HAS_CAMERA ? (const void *)&a->camera : (const void *)&a->light, size);
    return ARBOR_OK;
}

arbor_result arbor_node_set_camera(arbor_scene *s, arbor_node n, const arbor_camera *camera) {
    return set_part(s, n, ARBOR__HAS_CAMERA, camera, sizeof *camera, "arbor_node_set_camera");
}
arbor_result arbor_node_camera(const arbor_scene *s, arbor_node n, arbor_camera *out) {
    return get_part(s, n, ARBOR__HAS_CAMERA, out, sizeof *out, "arbor_node_camera");
}
arbor_result arbor_node_set_light(arbor_scene *s, arbor_node n, const arbor_light *light) {
    return set_part(s, n, ARBOR__HAS_LIGHT, light, sizeof *light, "arbor_node_set_light");
}
arbor_result arbor_node_light(const arbor_scene *s, arbor_node n, arbor_light *out) {
    return get_part(s, n, ARBOR__HAS_LIGHT, out, sizeof *out, "arbor_node_light");
}
