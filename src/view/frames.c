/* SPDX-License-Identifier: MIT */
/*
 * Frames (seed 002 sections 8, 9, 12, 13): a node's frame seen from another's, its world
 * transform read back as TRS (and whether a shear makes that inexact), mirrors, normals, and
 * where a light on a node is and points. Everything reads world matrices through the lazy
 * resolve, so it is always current.
 */
#include <math.h>

#include "view_internal.h"

arbor_result arbor__world_of(arbor_scene *s, arbor_node n, bool none_is_world, arbor_real out[16], const char *fn) {
    if (!n.id && none_is_world) {
        arbor_mat4_identity(out);
        return ARBOR_OK;
    }
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    arbor__resolve(s, slot);
    arbor__affine_to_mat4(out, s->n.world + (size_t)slot * 12);
    return ARBOR_OK;
}

arbor_result arbor_node_relative_matrix(arbor_scene *s, arbor_node from, arbor_node to, arbor_real out[16]) {
    ARBOR__REQUIRE_OUT(out, "arbor_node_relative_matrix");
    static const char *const fn = "arbor_node_relative_matrix";
    arbor_real w_from[16], w_to[16];
    arbor_result r = arbor__world_of(s, from, true, w_from, fn);
    if (!r) r = arbor__world_of(s, to, true, w_to, fn);
    if (r) return r;
    if (!arbor_mat4_invert_affine(w_to, w_to))
        return arbor__fail(ARBOR_ERR_SINGULAR, fn, "the world matrix of node " ARBOR__NODE_FMT " cannot be inverted",
                           ARBOR__NODE_ARGS(s, arbor__slot(s, to)));
    arbor_mat4_mul(out, w_to, w_from);
    return ARBOR_OK;
}

arbor_result arbor_node_world_trs(arbor_scene *s, arbor_node n, arbor_trs *out, bool *exact) {
    ARBOR__REQUIRE_OUT(out, "arbor_node_world_trs");
    arbor_real w[16];
    arbor_result r = arbor__world_of(s, n, false, w, "arbor_node_world_trs");
    if (r) return r;
    bool whole = arbor_mat4_decompose(w, out->translation, out->rotation, out->scale);
    if (exact) *exact = whole;
    return ARBOR_OK;
}

bool arbor_node_world_is_mirrored(arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    if (!slot) return false;
    arbor__resolve(s, slot);
    return arbor__affine_det3(s->n.world + (size_t)slot * 12) < 0;
}

arbor_result arbor_node_normal_matrix(arbor_scene *s, arbor_node n, arbor_real out[9]) {
    ARBOR__REQUIRE_OUT(out, "arbor_node_normal_matrix");
    static const char *const fn = "arbor_node_normal_matrix";
    arbor_real w[16];
    arbor_result r = arbor__world_of(s, n, false, w, fn);
    if (r) return r;
    if (!arbor_mat4_invert_affine(w, w))
        return arbor__fail(ARBOR_ERR_SINGULAR, fn, "the world matrix of node " ARBOR__NODE_FMT " cannot be inverted",
                           ARBOR__NODE_ARGS(s, arbor__slot(s, n)));
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) out[c * 3 + row] = w[row * 4 + c]; /* transposed */
    return ARBOR_OK;
}

/* ---- lights ------------------------------------------------------------------------------- */

arbor_result arbor_light_world_position(arbor_scene *s, arbor_node n, arbor_real out[3]) {
    ARBOR__REQUIRE_OUT(out, "arbor_light_world_position");
    arbor_result r = ARBOR_OK;
    uint32_t slot;
    if (!arbor__carrying(s, n, ARBOR__HAS_LIGHT, &slot, &r, "arbor_light_world_position")) return r;
    arbor__resolve(s, slot);
    const arbor_real *w = s->n.world + (size_t)slot * 12;
    for (int k = 0; k < 3; k++) out[k] = w[ARBOR__AT(k, 3)];
    return ARBOR_OK;
}

arbor_result arbor_light_world_direction(arbor_scene *s, arbor_node n, arbor_real out[3]) {
    ARBOR__REQUIRE_OUT(out, "arbor_light_world_direction");
    static const char *const fn = "arbor_light_world_direction";
    arbor_result r = ARBOR_OK;
    uint32_t slot;
    const arbor__attachment *a = arbor__carrying(s, n, ARBOR__HAS_LIGHT, &slot, &r, fn);
    if (!a) return r;
    const arbor_real *d = a->light.direction;
    double local[3] = { d[0], d[1], d[2] }, world[3], length = 0;
    if (d[0] == 0 && d[1] == 0 && d[2] == 0) local[2] = -1; /* glTF's -Z */
    arbor__resolve(s, slot);
    const arbor_real *w = s->n.world + (size_t)slot * 12;
    for (int row = 0; row < 3; row++) {
        world[row] = w[ARBOR__AT(row, 0)] * local[0] + w[ARBOR__AT(row, 1)] * local[1] + w[ARBOR__AT(row, 2)] * local[2];
        length += world[row] * world[row];
    }
    length = sqrt(length);
    if (!(length > 0))
        return arbor__fail(ARBOR_ERR_SINGULAR, fn, "the world matrix of node " ARBOR__NODE_FMT " flattens the light's direction",
                           ARBOR__NODE_ARGS(s, slot));
    for (int k = 0; k < 3; k++) out[k] = (arbor_real)(world[k] / length);
    return ARBOR_OK;
}
