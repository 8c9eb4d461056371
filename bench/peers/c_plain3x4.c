/* SPDX-License-Identifier: MIT */
/*
 * The C loop a user would write by hand, without a math library: an array of structs with a
 * 3x4 affine world matrix (column-major, translation in elements 9..11), and every frame, for
 * every node in index order, world = world[parent] * T * R * S. Run like `arbor bench`; see
 * c_driver.h.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise */
#include "../workloads.h"
#include "c_reserve.h"

#define PEER_NAME "C loop plain 3x4"

typedef struct cnode {
    float t[3], r[4], s[3];
    int parent;
    float world[12]; /* column c, row r at [c * 3 + r] */
} cnode;


typedef struct peer_scene {
    cnode *nodes;
    uint32_t count;
} peer_scene;

static peer_scene *peer_alloc(uint32_t n) {
    peer_scene *p = malloc(sizeof *p);
    if (!p) return NULL;
    p->count = n;
    p->nodes = malloc((size_t)n * sizeof(cnode));
    if (!p->nodes) {
        free(p);
        return NULL;
    }
    peer_reserve_like_arbor(p->nodes, (size_t)n * sizeof(cnode));
    return p;
}

static void peer_free(peer_scene *p) {
    if (!p) return;
    free(p->nodes);
    free(p);
}

static void peer_set_node(peer_scene *p, uint32_t i, int32_t parent, const float t[3], const float r[4], float s) {
    cnode *n = &p->nodes[i];
    memcpy(n->t, t, sizeof n->t);
    memcpy(n->r, r, sizeof n->r);
    n->s[0] = n->s[1] = n->s[2] = s;
    n->parent = parent;
}

static inline void peer_set_rotation(peer_scene *p, uint32_t i, const float q[4]) { memcpy(p->nodes[i].r, q, 4 * sizeof *q); }

static inline void peer_set_translation(peer_scene *p, uint32_t i, const float t[3]) { memcpy(p->nodes[i].t, t, 3 * sizeof *t); }

/* m = T * R * S. */
static inline void compose(float m[12], const float t[3], const float q[4], const float s[3]) {
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    m[0] = (1 - 2 * (yy + zz)) * s[0];
    m[1] = 2 * (xy + wz) * s[0];
    m[2] = 2 * (xz - wy) * s[0];
    m[3] = 2 * (xy - wz) * s[1];
    m[4] = (1 - 2 * (xx + zz)) * s[1];
    m[5] = 2 * (yz + wx) * s[1];
    m[6] = 2 * (xz + wy) * s[2];
    m[7] = 2 * (yz - wx) * s[2];
    m[8] = (1 - 2 * (xx + yy)) * s[2];
    m[9] = t[0];
    m[10] = t[1];
    m[11] = t[2];
}

/* out = a * b (affine). */
static inline void mul(float out[12], const float a[12], const float b[12]) {
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 3; r++)
            out[c * 3 + r] = a[r] * b[c * 3] + a[3 + r] * b[c * 3 + 1] + a[6 + r] * b[c * 3 + 2] + (c == 3 ? a[9 + r] : 0);
    }
}

static void peer_update(peer_scene *p) {
    cnode *a = p->nodes;
    for (uint32_t i = 0; i < p->count; i++) {
        cnode *n = &a[i];
        float local[12];
        compose(local, n->t, n->r, n->s);
        if (n->parent >= 0)
            mul(n->world, a[n->parent].world, local);
        else
            memcpy(n->world, local, sizeof local);
    }
}

static inline const float *peer_world_t(peer_scene *p, uint32_t i) { return p->nodes[i].world + 9; }

/* Node i's world matrix as a 4x4, column-major (what arbor_node_world_matrix gives). */
static inline void peer_world_mat4(peer_scene *p, uint32_t i, float out[16]) {
    const float *w = p->nodes[i].world;
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 3; r++) out[c * 4 + r] = w[c * 3 + r];
        out[c * 4 + 3] = c == 3 ? 1.0f : 0.0f;
    }
}

#include "c_driver.h"
