/* SPDX-License-Identifier: MIT */
/* Skin sets: the skinned meshes of a scene and their joints, and every joint matrix in one call,
   J = W_mesh^-1 * W_joint * IBM, written as floats for the GPU. The checks, the lazy world
   matrices and the inverses run on the calling thread; the products may run on an executor. */
#include "anim/anim_internal.h"

typedef struct skin_record {
    arbor_node mesh;
    uint32_t first, count;       /* joints[first .. first + count) */
    arbor_real mesh_inverse[12]; /* the mesh node's world matrix inverted (unless identity) ... */
    bool mesh_identity;          /* ... whether that is the identity (the usual mesh at the origin) ... */
    uint64_t mesh_version;       /* ... and the world version it was made from (0: not yet) */
} skin_record;

typedef struct joint_record {
    arbor_node node;
    uint32_t slot;               /* compute's workspace: the node's slot, found by the checks */
    arbor_real ibm[12];          /* affine */
} joint_record;

struct arbor_skins {
    arbor__dependent dep;        /* of its scene (first: the detach finds the set) */
    arbor_scene *s;              /* NULL once the scene is destroyed */
    uint32_t count, cap;         /* skins */
    skin_record *skins;
    uint32_t joint_total, joint_cap;
    joint_record *joints;
    bool slots_known;            /* joints[].slot hold the joints' live slots ... */
    uint64_t shape;              /* ... found when the scene's shape was this (a destroy, a link or
                                    a renumbering changes it) */
};

static void detach(arbor__dependent *d) { ((arbor_skins *)d)->s = NULL; }

arbor_result arbor_skins_create(arbor_scene *s, arbor_skins **out) {
    if (!s || !out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, "arbor_skins_create", "scene and out are required");
    arbor_skins *k = arbor__alloc(s, sizeof *k);
    if (!k) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, "arbor_skins_create", "no memory for a skin set");
    *k = (arbor_skins){ .s = s };
    arbor__dependent_join(s, &k->dep, detach);
    *out = k;
    return ARBOR_OK;
}

void arbor_skins_destroy(arbor_skins *k) {
    if (!k) return;
    arbor__dependent_leave(&k->dep);
    const arbor_allocator a = k->dep.allocator;
    arbor__free_with(&a, k->skins, (size_t)k->cap * sizeof *k->skins);
    arbor__free_with(&a, k->joints, (size_t)k->joint_cap * sizeof *k->joints);
    arbor__free_with(&a, k, sizeof *k);
}

/* Grows *p to hold `want` elements of size bytes (doubling *cap); false (unchanged) when out of
   memory. */
static bool grow(arbor_scene *s, void **p, uint32_t *cap, uint64_t want, size_t size) {
    if (want <= *cap) return true;
    uint64_t next = *cap ? 2 * (uint64_t)*cap : 8;
    if (next < want) next = want;
    if (next > UINT32_MAX) return false;
    void *grown = arbor__realloc(s, *p, (size_t)*cap * size, (size_t)next * size);
    if (!grown) return false;
    *p = grown;
    *cap = (uint32_t)next;
    return true;
}

arbor_result arbor_skins_add(arbor_skins *k, const arbor_skin_desc *d, uint32_t *index) {
    static const char *const fn = "arbor_skins_add";
    if (!k || !d) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "skins and desc are required");
    if (!k->s) return arbor__inert(fn);
    arbor_result r = ARBOR_OK;
    if (!arbor__require(k->s, d->mesh, fn, &r)) return r;
    if (d->joint_count == 0 || !d->joints) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "a skin needs joints");
    for (uint32_t j = 0; j < d->joint_count; j++) {
        if (!arbor__require(k->s, d->joints[j], fn, &r)) return r;
        const float *m = d->inverse_bind ? d->inverse_bind + (size_t)j * 16 : NULL;
        if (!m) continue;
        for (int e = 0; e < 16; e++)
            if (m[e] - m[e] != 0) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "inverse bind matrix %u holds %g", j, (double)m[e]);
        if (m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1)
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "inverse bind matrix %u's last row is not 0, 0, 0, 1", j);
    }
    if (!grow(k->s, (void **)&k->skins, &k->cap, (uint64_t)k->count + 1, sizeof *k->skins) ||
        !grow(k->s, (void **)&k->joints, &k->joint_cap, (uint64_t)k->joint_total + d->joint_count, sizeof *k->joints))
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the skin");
    uint32_t first = k->joint_total;
    for (uint32_t j = 0; j < d->joint_count; j++) {
        arbor_real m[16], *a = k->joints[first + j].ibm;
        k->joints[first + j].node = d->joints[j];
        if (d->inverse_bind) {
            for (int e = 0; e < 16; e++) m[e] = (arbor_real)d->inverse_bind[(size_t)j * 16 + e];
        } else {
            arbor_mat4_identity(m);
        }
        arbor__affine_from_mat4(a, m);
    }
    k->skins[k->count] = (skin_record){ .mesh = d->mesh, .first = first, .count = d->joint_count };
    k->slots_known = false;
    if (index) *index = k->count;
    k->count++;
    k->joint_total += d->joint_count;
    return ARBOR_OK;
}

void arbor__skins_truncate(arbor_skins *k, uint32_t count) {
    if (count >= k->count) return;
    k->joint_total = k->skins[count].first;
    k->count = count;
    k->slots_known = false;
}

uint32_t arbor_skins_count(const arbor_skins *k) { return k ? k->count : 0; }
uint32_t arbor_skins_joint_total(const arbor_skins *k) { return k ? k->joint_total : 0; }
uint32_t arbor_skins_first_joint(const arbor_skins *k, uint32_t skin) {
    return k && skin < k->count ? k->skins[skin].first : 0;
}

arbor_result arbor_skins_skin(const arbor_skins *k, uint32_t skin, arbor_node *mesh, arbor_node *joints, float *ibm,
                              uint32_t cap, uint32_t *count) {
    static const char *const fn = "arbor_skins_skin";
    if (mesh) *mesh = ARBOR_NONE;
    if (count) *count = 0;
    if (!k || !count) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "skins and count are required");
    if (skin >= k->count) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "skin %u: the set has %u skins", skin, k->count);
    const skin_record *sk = &k->skins[skin];
    uint32_t n = sk->count < cap ? sk->count : cap;
    for (uint32_t j = 0; j < n; j++) {
        const joint_record *joint = &k->joints[sk->first + j];
        if (joints) joints[j] = joint->node;
        if (!ibm) continue;
        arbor_real m[16];
        arbor__affine_to_mat4(m, joint->ibm);
        for (int e = 0; e < 16; e++) ibm[(size_t)j * 16 + e] = (float)m[e]; /* exact: it was a float */
    }
    if (mesh) *mesh = sk->mesh;
    *count = sk->count;
    return ARBOR_OK;
}

/* ---- joint matrices -------------------------------------------------------------------------- */

/* The node's slot, its world matrix current (computed first when out of date); 0 for a dead node. */
static uint32_t current_slot(arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    if (slot && (s->n.flags[slot] & ARBOR__WORLD_DIRTY)) arbor__resolve(s, slot);
    return slot;
}

typedef struct skin_job {
    arbor_skins *k;
    arbor_matrix_layout layout;
    float *out;
    uint32_t tasks;
} skin_job;

/* m as 16 floats (MAT4, column-major) or 12 (MAT3X4, row by row). */
ARBOR__HOT void store(float *out, arbor__rows m, arbor_matrix_layout layout) {
#if ARBOR__SIMD
    typedef float f4 __attribute__((vector_size(16)));
    arbor__v4 r0 = m.r[0], r1 = m.r[1], r2 = m.r[2], r3 = {0, 0, 0, 1};
    if (layout == ARBOR_LAYOUT_MAT4) ARBOR__TRANSPOSE4(r0, r1, r2, r3); /* rows become columns */
    const f4 v0 = __builtin_convertvector(r0, f4), v1 = __builtin_convertvector(r1, f4), v2 = __builtin_convertvector(r2, f4);
    memcpy(out, &v0, sizeof v0); /* a register each (an array of them goes through the stack) */
    memcpy(out + 4, &v1, sizeof v1);
    memcpy(out + 8, &v2, sizeof v2);
    if (layout == ARBOR_LAYOUT_MAT4) {
        const f4 v3 = __builtin_convertvector(r3, f4);
        memcpy(out + 12, &v3, sizeof v3);
    }
#else
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) out[layout == ARBOR_LAYOUT_MAT4 ? c * 4 + r : r * 4 + c] = (float)m.m[ARBOR__AT(r, c)];
    if (layout == ARBOR_LAYOUT_MAT4) out[3] = out[7] = out[11] = 0, out[15] = 1;
#endif
}

/* Whether a equals the identity, compared as numbers (-0 is 0; a NaN makes it not). */
static bool is_identity(const arbor_real a[12]) {
#if ARBOR__SIMD
    const arbor__v4 e0 = {1, 0, 0, 0}, e1 = {0, 1, 0, 0}, e2 = {0, 0, 1, 0};
    const arbor__mask4 eq = (arbor__v4_load(a) == e0) & (arbor__v4_load(a + 4) == e1) & (arbor__v4_load(a + 8) == e2);
    return (eq[0] & eq[1] & eq[2] & eq[3]) != 0;
#else
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            if (a[ARBOR__AT(r, c)] != (r == c)) return false;
    return true;
#endif
}

/* Skins [first, end) into a layout known here: the products in rows (the same expressions as
   arbor__affine_mul, so the same bits), stored straight from registers. */
ARBOR__HOT void skin_joints(const skin_job *job, uint32_t first, uint32_t end, const arbor_matrix_layout layout) {
    const arbor_skins *k = job->k;
    const arbor_real *world = k->s->n.world;
    const size_t stride = layout == ARBOR_LAYOUT_MAT4 ? 16 : 12;
    for (uint32_t i = first; i < end; i++) {
        const skin_record *sk = &k->skins[i];
        const joint_record *joint = k->joints + sk->first, *last = joint + sk->count;
        float *out = job->out + (size_t)sk->first * stride;
        if (sk->mesh_identity) {
            for (; joint < last; joint++, out += stride)
                store(out, arbor__rows_mul_at(world + (size_t)joint->slot * 12, joint->ibm), layout);
            continue;
        }
        const arbor__rows mesh_inverse = arbor__rows_load(sk->mesh_inverse);
        for (; joint < last; joint++, out += stride) {
            const arbor__rows m = arbor__rows_mul_at(world + (size_t)joint->slot * 12, joint->ibm);
            store(out, arbor__rows_mul(mesh_inverse, m), layout);
        }
    }
}

ARBOR__DISPATCH static void skin_range(const skin_job *job, uint32_t first, uint32_t end) {
    if (job->layout == ARBOR_LAYOUT_MAT4)
        skin_joints(job, first, end, ARBOR_LAYOUT_MAT4);
    else
        skin_joints(job, first, end, ARBOR_LAYOUT_MAT3X4);
}

static void skin_task(void *user, uint32_t index) {
    const skin_job *job = user;
    const uint32_t count = job->k->count;
    skin_range(job, (uint32_t)((uint64_t)count * index / job->tasks), (uint32_t)((uint64_t)count * (index + 1) / job->tasks));
}

/* Below this many joints the products stay on the calling thread. */
#define PARALLEL_MIN_JOINTS 4096u
#define MAX_TASKS 256u

arbor_result arbor_skins_compute(arbor_skins *k, arbor_matrix_layout layout, float *out, uint32_t matrix_cap,
                                 const arbor_executor *executor) {
    static const char *const fn = "arbor_skins_compute";
    if (!k || (!out && k->joint_total)) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "skins and out are required");
    if (!k->s) return arbor__inert(fn);
    if ((unsigned)layout > ARBOR_LAYOUT_MAT3X4) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "unknown layout %d", (int)layout);
    if (matrix_cap < k->joint_total)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "out holds %u matrices, the skins have %u joints", matrix_cap,
                           k->joint_total);
    arbor_scene *s = k->s;
    if (!k->slots_known || k->shape != s->shape) { /* the joints' slots, found again */
        for (uint32_t i = 0; i < k->count; i++) {
            const skin_record *sk = &k->skins[i];
            for (uint32_t j = sk->first; j < sk->first + sk->count; j++)
                if (!(k->joints[j].slot = arbor__live_slot(s, k->joints[j].node)))
                    return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "skin %u: joint %u was destroyed", i, j - sk->first);
        }
        k->slots_known = true;
        k->shape = s->shape;
    }
    /* Out of date joints computed first (looked for by one OR over their flags: usually none). */
    const uint8_t *flags = s->n.flags;
    uint8_t any = 0;
    for (uint32_t j = 0, total = k->joint_total; j < total; j++) any |= flags[k->joints[j].slot];
    if (any & ARBOR__WORLD_DIRTY)
        for (uint32_t j = 0; j < k->joint_total; j++) arbor__resolve(s, k->joints[j].slot);
    for (uint32_t i = 0; i < k->count; i++) {
        skin_record *sk = &k->skins[i];
        const uint32_t mesh_slot = current_slot(s, sk->mesh);
        if (!mesh_slot) return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "skin %u: the mesh node was destroyed", i);
        /* Inverted again only when the mesh node's world matrix may have changed: a version is
           never reused for a node, and the handle is the skin's own. */
        const uint64_t version = s->n.version[mesh_slot];
        if (version == sk->mesh_version) continue;
        const arbor_real *mesh = s->n.world + (size_t)mesh_slot * 12;
        sk->mesh_identity = is_identity(mesh); /* the usual mesh at the origin: no product */
        if (!sk->mesh_identity && !arbor__affine_invert(sk->mesh_inverse, mesh))
            return arbor__fail(ARBOR_ERR_SINGULAR, fn, "skin %u: the mesh node's world matrix cannot be inverted", i);
        sk->mesh_version = version;
    }
    skin_job job = { k, layout, out, k->count < MAX_TASKS ? k->count : MAX_TASKS };
    if (executor && executor->parallel_for && k->joint_total >= PARALLEL_MIN_JOINTS && job.tasks > 1)
        executor->parallel_for(executor->user, job.tasks, skin_task, &job);
    else if (k->count)
        skin_task(&(skin_job){ k, layout, out, 1 }, 0);
    return ARBOR_OK;
}
