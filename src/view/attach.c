/* SPDX-License-Identifier: MIT */
/* A node's camera and light, kept in the scene's attachment record. */
#include <math.h>
#include <string.h>

#include "view_internal.h"

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
            arbor__attachment_trim(s, slot);
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
