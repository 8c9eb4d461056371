/* SPDX-License-Identifier: MIT */
/*
 * The C loop a user would write with cglm (Debian's libcglm-dev): an array of structs, and every
 * frame, for every node in index order (parents come first), world = world[parent] * T * R * S
 * with cglm's own calls. Run like `arbor bench`; see c_driver.h.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise */
#include <cglm/cglm.h>
#include <cglm/version.h>
#include <stdalign.h>

#include "../workloads.h"
#include "c_reserve.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define PEER_NAME "C loop cglm " STR(CGLM_VERSION_MAJOR) "." STR(CGLM_VERSION_MINOR) "." STR(CGLM_VERSION_PATCH)

typedef struct cnode {
    vec3 t;
    versor r;
    vec3 s;
    int parent;
    mat4 world;
} cnode;


typedef struct peer_scene {
    cnode *nodes;
    uint32_t count;
} peer_scene;

static peer_scene *peer_alloc(uint32_t n) {
    peer_scene *p = malloc(sizeof *p);
    if (!p) return NULL;
    p->count = n;
    p->nodes = aligned_alloc(alignof(cnode), (size_t)n * sizeof(cnode));
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
    glm_vec3_copy((float *)t, n->t);
    glm_vec4_copy((float *)r, n->r);
    n->s[0] = n->s[1] = n->s[2] = s;
    n->parent = parent;
}

static inline void peer_set_rotation(peer_scene *p, uint32_t i, const float q[4]) { glm_vec4_copy((float *)q, p->nodes[i].r); }

static inline void peer_set_translation(peer_scene *p, uint32_t i, const float t[3]) { glm_vec3_copy((float *)t, p->nodes[i].t); }

static void peer_update(peer_scene *p) {
    cnode *a = p->nodes;
    for (uint32_t i = 0; i < p->count; i++) {
        cnode *n = &a[i];
        mat4 local;
        glm_translate_make(local, n->t);
        glm_quat_rotate(local, n->r, local);
        glm_scale(local, n->s);
        if (n->parent >= 0)
            glm_mat4_mul(a[n->parent].world, local, n->world);
        else
            glm_mat4_copy(local, n->world);
    }
}

static inline const float *peer_world_t(peer_scene *p, uint32_t i) { return p->nodes[i].world[3]; }

/* Node i's world matrix as a 4x4, column-major (what arbor_node_world_matrix gives). */
static inline void peer_world_mat4(peer_scene *p, uint32_t i, float out[16]) { memcpy(out, p->nodes[i].world, 16 * sizeof *out); }

#include "c_driver.h"
