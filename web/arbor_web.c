/* SPDX-License-Identifier: MIT */
/*
 * The C side of arbor's WebAssembly module: every call into the library that web/arbor.mjs makes
 * goes through the aw_* functions of this file, and nothing else in web/ names arbor's C API.
 *
 * A scene here is an aw_scene: the arbor scene, its glTF document (NULL for a scene built in
 * code), and its nodes in file order (node i of the file, or the i-th node created), so that
 * JavaScript addresses nodes by index. Each node's user pointer holds its index + 1, which maps
 * a handle back to its index (parents, children, culling results).
 *
 * Every aw_* function that can fail returns an arbor_result (0: ARBOR_OK) or a sentinel, and
 * leaves the message in aw_message(); JavaScript throws it.
 */
#include <emscripten/emscripten.h>
#include <wasm_simd128.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor/arbor.h"
#include "arbor/gltf.h"

_Static_assert(sizeof(arbor_real) == sizeof(float), "the module is built with float reals (Float32Array views)");

#define AW_API EMSCRIPTEN_KEEPALIVE

typedef struct aw_scene {
    arbor_scene *scene;
    arbor_gltf *doc;      /* NULL for a scene built in code */
    arbor_node *nodes;    /* by index */
    uint32_t count, cap;
    float *matrices;      /* 16 per node: aw_world_matrices */
    uint32_t matrices_cap; /* nodes */
    float *staging;       /* values of the bulk writes */
    uint32_t staging_cap; /* floats */
    int32_t *visible;     /* node indices: aw_cull */
    arbor_node *visible_handles;
    uint32_t visible_cap;
    arbor_skins *skins;   /* the file's skins: aw_skins, NULL until asked */
    float *joints;        /* 16 per joint of every skin: aw_skin_matrices */
    uint8_t *shown;       /* per node, effectively visible: aw_visibility */
    uint32_t shown_cap;   /* nodes */
    float *place;         /* aw_placement: 16 per block, then 16 per node */
    uint32_t place_first, place_size, place_blocks, place_nodes;
    arbor_player **players; /* aw_frame's arguments: aw_frame_args */
    double *times;
    uint32_t players_cap;
} aw_scene;

/* ---- Messages ------------------------------------------------------------------------------ */

static char message[768];

AW_API const char *aw_message(void) { return message; }

static int fail(arbor_result code, const char *text) {
    snprintf(message, sizeof message, "%s", text && *text ? text : arbor_result_string(code));
    return code ? (int)code : (int)ARBOR_ERR_INVALID_ARGUMENT;
}

/* The library's message of the calling thread's last failure. */
static int fail_last(arbor_result code) { return fail(code, arbor_last_error()); }

static int fail_index(const aw_scene *sc, int32_t i) {
    snprintf(message, sizeof message, "node index %d is out of range (the scene has %u nodes)", (int)i,
             sc ? sc->count : 0);
    return ARBOR_ERR_INVALID_ARGUMENT;
}

/* ---- Scenes -------------------------------------------------------------------------------- */

static int32_t index_of(const aw_scene *sc, arbor_node n) {
    if (n.id == ARBOR_NONE.id) return -1;
    return (int32_t)(uintptr_t)arbor_node_user(sc->scene, n) - 1;
}

static bool node_at(const aw_scene *sc, int32_t i, arbor_node *out) {
    if (!sc || i < 0 || (uint32_t)i >= sc->count) return false;
    *out = sc->nodes[i];
    return true;
}

static int push_node(aw_scene *sc, arbor_node n) {
    if (sc->count == sc->cap) {
        uint32_t cap = sc->cap ? 2 * sc->cap : 64;
        arbor_node *nodes = realloc(sc->nodes, cap * sizeof *nodes);
        if (!nodes) return fail(ARBOR_ERR_OUT_OF_MEMORY, NULL);
        sc->nodes = nodes;
        sc->cap = cap;
    }
    arbor_node_set_user(sc->scene, n, (void *)(uintptr_t)(sc->count + 1));
    sc->nodes[sc->count++] = n;
    return ARBOR_OK;
}

AW_API void aw_dispose(aw_scene *sc) {
    if (!sc) return;
    arbor_gltf_destroy(sc->doc);
    arbor_scene_destroy(sc->scene);
    free(sc->nodes);
    free(sc->matrices);
    free(sc->staging);
    free(sc->visible);
    free(sc->visible_handles);
    arbor_skins_destroy(sc->skins);
    free(sc->joints);
    free(sc->shown);
    free(sc->place);
    free(sc->players);
    free(sc->times);
    free(sc);
}

/* An empty scene, for nodes made with aw_add_node. NULL when out of memory. */
AW_API aw_scene *aw_create(void) {
    aw_scene *sc = calloc(1, sizeof *sc);
    if (!sc) return fail(ARBOR_ERR_OUT_OF_MEMORY, NULL), NULL;
    arbor_result r = arbor_scene_create(NULL, &sc->scene);
    if (r != ARBOR_OK) {
        free(sc);
        return fail_last(r), NULL;
    }
    return sc;
}

/* A .gltf or .glb from memory; its external files were written under base_dir (MEMFS) by the
   caller. NULL on failure, with the loader's message. */
AW_API aw_scene *aw_load(const void *data, size_t size, const char *base_dir) {
    aw_scene *sc = aw_create();
    if (!sc) return NULL;
    arbor_result r = arbor_gltf_load_memory(sc->scene, data, size, base_dir, NULL, &sc->doc);
    if (r != ARBOR_OK) {
        fail_last(r);
        aw_dispose(sc);
        return NULL;
    }
    uint32_t n = arbor_gltf_node_count(sc->doc);
    for (uint32_t i = 0; i < n; i++) {
        if (push_node(sc, arbor_gltf_node(sc->doc, i)) != ARBOR_OK) {
            aw_dispose(sc);
            return NULL;
        }
    }
    return sc;
}

/* A new node under node `parent` (-1: a root), returning its index, or -1. */
AW_API int32_t aw_add_node(aw_scene *sc, int32_t parent, const char *name, const float *t, const float *r,
                           const float *s) {
    arbor_node_desc desc = {.name = name, .parent = ARBOR_NONE};
    if (parent >= 0 && !node_at(sc, parent, &desc.parent)) return fail_index(sc, parent), -1;
    memcpy(desc.translation, t, sizeof desc.translation);
    memcpy(desc.rotation, r, sizeof desc.rotation);
    memcpy(desc.scale, s, sizeof desc.scale);
    arbor_node n;
    arbor_result res = arbor_node_create(sc->scene, &desc, &n);
    if (res != ARBOR_OK) return fail_last(res), -1;
    if (push_node(sc, n) != ARBOR_OK) {
        arbor_node_destroy(sc->scene, n);
        return -1;
    }
    return (int32_t)sc->count - 1;
}

AW_API uint32_t aw_node_count(const aw_scene *sc) { return sc->count; }

AW_API void aw_update(aw_scene *sc) { arbor_scene_update(sc->scene); }

/* The index of the node at path ("/base/arm"), -1 when there is none. */
AW_API int32_t aw_find(const aw_scene *sc, const char *path) {
    return index_of(sc, arbor_scene_find(sc->scene, path));
}

/* ---- Nodes --------------------------------------------------------------------------------- */

AW_API const char *aw_node_name(const aw_scene *sc, int32_t i) {
    arbor_node n;
    if (!node_at(sc, i, &n)) return NULL;
    return arbor_node_name(sc->scene, n);
}

/* -2 for a bad index, -1 for a root. */
AW_API int32_t aw_node_parent(const aw_scene *sc, int32_t i) {
    arbor_node n;
    if (!node_at(sc, i, &n)) return fail_index(sc, i), -2;
    return index_of(sc, arbor_node_parent(sc->scene, n));
}

/* The children's indices into out (at most cap), in order; returns their count. */
AW_API uint32_t aw_node_children(const aw_scene *sc, int32_t i, int32_t *out, uint32_t cap) {
    arbor_node n;
    uint32_t k = 0;
    if (!node_at(sc, i, &n)) return 0;
    for (arbor_node c = arbor_node_first_child(sc->scene, n); c.id != ARBOR_NONE.id && k < sc->count;
         c = arbor_node_next_sibling(sc->scene, c), k++) {
        if (k < cap) out[k] = index_of(sc, c);
    }
    return k;
}

/* The roots' indices, as aw_node_children. */
AW_API uint32_t aw_roots(const aw_scene *sc, int32_t *out, uint32_t cap) {
    uint32_t k = 0;
    for (arbor_node c = arbor_scene_first_root(sc->scene); c.id != ARBOR_NONE.id && k < sc->count;
         c = arbor_node_next_sibling(sc->scene, c), k++) {
        if (k < cap) out[k] = index_of(sc, c);
    }
    return k;
}

AW_API int aw_set_translation(aw_scene *sc, int32_t i, float x, float y, float z) {
    arbor_node n;
    if (!node_at(sc, i, &n)) return fail_index(sc, i);
    arbor_result r = arbor_node_set_translation(sc->scene, n, x, y, z);
    return r == ARBOR_OK ? ARBOR_OK : fail_last(r);
}

AW_API int aw_set_rotation(aw_scene *sc, int32_t i, float x, float y, float z, float w) {
    arbor_node n;
    if (!node_at(sc, i, &n)) return fail_index(sc, i);
    arbor_result r = arbor_node_set_rotation(sc->scene, n, x, y, z, w);
    return r == ARBOR_OK ? ARBOR_OK : fail_last(r);
}

AW_API int aw_set_scale(aw_scene *sc, int32_t i, float x, float y, float z) {
    arbor_node n;
    if (!node_at(sc, i, &n)) return fail_index(sc, i);
    arbor_result r = arbor_node_set_scale(sc->scene, n, x, y, z);
    return r == ARBOR_OK ? ARBOR_OK : fail_last(r);
}

/* Node i's world matrix (16 floats, column-major), current without an update. */
AW_API int aw_world_matrix(aw_scene *sc, int32_t i, float *out) {
    arbor_node n;
    if (!node_at(sc, i, &n)) return fail_index(sc, i);
    arbor_result r = arbor_node_world_matrix(sc->scene, n, out);
    return r == ARBOR_OK ? ARBOR_OK : fail_last(r);
}

static void put_trs(const arbor_trs *trs, float *out) {
    memcpy(out, trs->translation, 3 * sizeof *out);
    memcpy(out + 3, trs->rotation, 4 * sizeof *out);
    memcpy(out + 7, trs->scale, 3 * sizeof *out);
}

/* Local TRS into out[10] (translation, rotation, scale); a matrix-backed node gives its
   decomposition. */
AW_API int aw_local_trs(aw_scene *sc, int32_t i, float *out) {
    arbor_node n;
    arbor_trs trs;
    if (!node_at(sc, i, &n)) return fail_index(sc, i);
    arbor_result r = arbor_node_trs(sc->scene, n, &trs);
    if (r != ARBOR_OK) return fail_last(r);
    put_trs(&trs, out);
    return ARBOR_OK;
}

/* World TRS into out[10]; out[10] is 1 when it is exact, 0 when a shear makes it approximate. */
AW_API int aw_world_trs(aw_scene *sc, int32_t i, float *out) {
    arbor_node n;
    arbor_trs trs;
    bool exact = false;
    if (!node_at(sc, i, &n)) return fail_index(sc, i);
    arbor_result r = arbor_node_world_trs(sc->scene, n, &trs, &exact);
    if (r != ARBOR_OK) return fail_last(r);
    put_trs(&trs, out);
    out[10] = exact ? 1.0f : 0.0f;
    return ARBOR_OK;
}

AW_API int32_t aw_node_mesh(const aw_scene *sc, int32_t i) {
    arbor_node n;
    if (!node_at(sc, i, &n)) return -1;
    return arbor_node_mesh(sc->scene, n);
}

/* Node i's box (local: in its own frame; world: axis-aligned in the world) into out[6] (min,
   max); 0 when it has none. */
AW_API int aw_bounds(aw_scene *sc, int32_t i, int world, float *out) {
    arbor_node n;
    if (!node_at(sc, i, &n) || arbor_node_bounds(sc->scene, n, out, out + 3) != ARBOR_OK || out[0] > out[3]) return 0;
    if (world && arbor_node_world_bounds(sc->scene, n, out, out + 3) != ARBOR_OK) return 0;
    return 1;
}

/* ---- The whole scene at once ------------------------------------------------------------------ */

/* Brings the scene up to date and writes every node's world matrix, 16 floats each in index
   order, into the scene's matrix array; returns it (valid until the next call on this scene
   that writes, and while the module's memory does not grow), or NULL when out of memory. */
AW_API float *aw_world_matrices(aw_scene *sc) {
    if (sc->matrices_cap < sc->count) {
        float *m = realloc(sc->matrices, (size_t)sc->count * 16 * sizeof *m);
        if (!m) return fail(ARBOR_ERR_OUT_OF_MEMORY, NULL), NULL;
        sc->matrices = m;
        sc->matrices_cap = sc->count;
    }
    arbor_scene_update(sc->scene);
    for (uint32_t i = 0; i < sc->count; i++) arbor_node_world_matrix(sc->scene, sc->nodes[i], sc->matrices + 16 * i);
    return sc->matrices;
}

/* Room for n floats of bulk-write values; NULL when out of memory. */
AW_API float *aw_staging(aw_scene *sc, uint32_t n) {
    if (n > sc->staging_cap) {
        float *p = realloc(sc->staging, (size_t)n * sizeof *p);
        if (!p) return fail(ARBOR_ERR_OUT_OF_MEMORY, NULL), NULL;
        sc->staging = p;
        sc->staging_cap = n;
    }
    return sc->staging;
}

/* Bulk writes: nodes first .. first + count - 1 take the staged values (3 or 4 per node). */
static int check_range(const aw_scene *sc, uint32_t first, uint32_t count, uint32_t per) {
    if (first > sc->count || count > sc->count - first) {
        snprintf(message, sizeof message, "nodes %u to %u are out of range (the scene has %u nodes)", first,
                 first + count, sc->count);
        return ARBOR_ERR_INVALID_ARGUMENT;
    }
    if ((size_t)count * per > sc->staging_cap) return fail(ARBOR_ERR_INVALID_ARGUMENT, "fewer values staged than nodes");
    return ARBOR_OK;
}

AW_API int aw_set_translations(aw_scene *sc, uint32_t first, uint32_t count) {
    int r = check_range(sc, first, count, 3);
    if (r == ARBOR_OK) r = arbor_scene_set_translations(sc->scene, sc->nodes + first, sc->staging, count);
    return r == ARBOR_OK ? ARBOR_OK : fail_last(r);
}

AW_API int aw_set_rotations(aw_scene *sc, uint32_t first, uint32_t count) {
    int r = check_range(sc, first, count, 4);
    if (r == ARBOR_OK) r = arbor_scene_set_rotations(sc->scene, sc->nodes + first, sc->staging, count);
    return r == ARBOR_OK ? ARBOR_OK : fail_last(r);
}

AW_API int aw_set_scales(aw_scene *sc, uint32_t first, uint32_t count) {
    int r = check_range(sc, first, count, 3);
    if (r == ARBOR_OK) r = arbor_scene_set_scales(sc->scene, sc->nodes + first, sc->staging, count);
    return r == ARBOR_OK ? ARBOR_OK : fail_last(r);
}

/* Node i under node parent (-1: a root), after its siblings; keep_world keeps its world matrix
   (its local changes), otherwise its local is kept. */
AW_API int aw_set_parent(aw_scene *sc, int32_t i, int32_t parent, int keep_world) {
    arbor_node n, p = ARBOR_NONE;
    if (!node_at(sc, i, &n)) return fail_index(sc, i);
    if (parent >= 0 && !node_at(sc, parent, &p)) return fail_index(sc, parent);
    arbor_result r = arbor_node_set_parent(sc->scene, n, p, ARBOR_NONE, keep_world ? ARBOR_KEEP_WORLD : ARBOR_KEEP_LOCAL);
    return r == ARBOR_OK ? ARBOR_OK : fail_last(r);
}

/* Node i's own visibility (a hidden node hides its subtree). */
AW_API int aw_set_visible(aw_scene *sc, int32_t i, int visible) {
    arbor_node n;
    if (!node_at(sc, i, &n)) return fail_index(sc, i);
    arbor_result r = arbor_node_set_visible(sc->scene, n, visible != 0);
    return r == ARBOR_OK ? ARBOR_OK : fail_last(r);
}

/* Every node's effective visibility (1: it and its ancestors are visible), one byte per node in
   index order; NULL when out of memory. */
AW_API uint8_t *aw_visibility(aw_scene *sc) {
    if (sc->shown_cap < sc->count || !sc->shown) {
        uint8_t *shown = realloc(sc->shown, sc->count ? sc->count : 1);
        if (!shown) return fail(ARBOR_ERR_OUT_OF_MEMORY, NULL), NULL;
        sc->shown = shown;
        sc->shown_cap = sc->count;
    }
    for (uint32_t i = 0; i < sc->count; i++) sc->shown[i] = arbor_node_effectively_visible(sc->scene, sc->nodes[i]);
    return sc->shown;
}

/* ---- Skins --------------------------------------------------------------------------------- */

/* Room in sc->joints for every joint matrix of sc->skins (and one more, so never 0 bytes). */
static int fit_joints(aw_scene *sc) {
    float *joints = realloc(sc->joints, ((size_t)arbor_skins_joint_total(sc->skins) + 1) * 16 * sizeof *joints);
    if (!joints) return fail(ARBOR_ERR_OUT_OF_MEMORY, NULL);
    sc->joints = joints;
    return ARBOR_OK;
}

/* The scene's skins: a file's (every node with a skin and a mesh, in node index order), made
   on the first call, then those aw_copy added; returns how many, or -1 with the message. A
   scene built in code has those of its copies only. */
AW_API int32_t aw_skins(aw_scene *sc) {
    if (!sc->skins && sc->doc) {
        arbor_skins *skins = NULL;
        arbor_result r = arbor_skins_create(sc->scene, &skins);
        if (r == ARBOR_OK) r = arbor_gltf_add_skins(sc->doc, skins, NULL);
        if (r != ARBOR_OK) {
            arbor_skins_destroy(skins);
            return fail_last(r), -1;
        }
        sc->skins = skins;
        if (fit_joints(sc) != ARBOR_OK) {
            arbor_skins_destroy(sc->skins);
            sc->skins = NULL;
            return -1;
        }
    }
    return sc->skins ? (int32_t)arbor_skins_count(sc->skins) : 0;
}

/* Skin k's mesh node index into out[0], its first matrix in aw_skin_matrices into out[1], its
   joint count into out[2]. */
AW_API int aw_skin(aw_scene *sc, uint32_t k, int32_t *out) {
    arbor_node mesh;
    uint32_t count = 0;
    if (!sc->skins) return fail(ARBOR_ERR_INVALID_ARGUMENT, "the scene's skins were not made (aw_skins)");
    arbor_result r = arbor_skins_skin(sc->skins, k, &mesh, NULL, NULL, 0, &count);
    if (r != ARBOR_OK) return fail_last(r);
    out[0] = index_of(sc, mesh);
    out[1] = (int32_t)arbor_skins_first_joint(sc->skins, k);
    out[2] = (int32_t)count;
    return ARBOR_OK;
}

/* Every skin's joint matrices J = W_mesh^-1 * W_joint * IBM (16 floats, column-major), skin
   after skin, for the current pose; NULL with the message on failure (or before aw_skins). */
AW_API float *aw_skin_matrices(aw_scene *sc) {
    if (!sc->skins) return fail(ARBOR_ERR_INVALID_ARGUMENT, "the scene's skins were not made (aw_skins)"), NULL;
    arbor_result r = arbor_skins_compute(sc->skins, ARBOR_LAYOUT_MAT4, sc->joints, arbor_skins_joint_total(sc->skins), NULL);
    return r == ARBOR_OK ? sc->joints : (fail_last(r), NULL);
}

/* ---- Copies, for crowds ------------------------------------------------------------------- */

/* Skins of `from` (a scene's set) added to `to`, their nodes mapped: node i of scene map_src
   becomes map[i] (map NULL: the same nodes). joints and ibm have room for the longest skin. */
static arbor_result add_skins(arbor_skins *to, const arbor_skins *from, const aw_scene *map_src, const arbor_node *map,
                              arbor_node *joints, float *ibm, uint32_t cap) {
    for (uint32_t k = 0; k < arbor_skins_count(from); k++) {
        arbor_node mesh;
        uint32_t count = 0;
        arbor_result r = arbor_skins_skin(from, k, &mesh, joints, ibm, cap, &count);
        if (r != ARBOR_OK) return r;
        if (map) {
            mesh = map[index_of(map_src, mesh)];
            for (uint32_t j = 0; j < count; j++) joints[j] = map[index_of(map_src, joints[j])];
        }
        r = arbor_skins_add(to, &(arbor_skin_desc){mesh, joints, count, ibm}, NULL);
        if (r != ARBOR_OK) return r;
    }
    return ARBOR_OK;
}

/* The longest skin of a set (0 for NULL). */
static uint32_t longest_skin(const arbor_skins *skins) {
    uint32_t most = 0, count = 0;
    for (uint32_t k = 0; skins && k < arbor_skins_count(skins); k++) {
        if (arbor_skins_skin(skins, k, NULL, NULL, NULL, 0, &count) == ARBOR_OK && count > most) most = count;
    }
    return most;
}

/* `count` copies of every node of src (another scene of the module: a loaded file, say), for
   crowds: copy k is src's roots, in order, cloned with their subtrees (arbor_node_clone_from:
   locals, names, meshes, bounds, cameras, lights) under node parents[k] of sc (-1: as roots).
   Node i of copy k gets index base + k * n + i (n: src's node count; base: sc's node count
   before the call, which is returned), so a clip of src plays on a copy with aw_player(sc,
   clip, base + k * n). src's skins (aw_skins) are added to sc's on each copy's nodes, after
   sc's own. Returns -1 with the message, nothing added, on failure. */
AW_API int32_t aw_copy(aw_scene *sc, aw_scene *src, const int32_t *parents, uint32_t count) {
    if (!src || src == sc) return fail(ARBOR_ERR_INVALID_ARGUMENT, "aw_copy: the copies' source must be another scene"), -1;
    uint32_t n = src->count, base = sc->count;
    if (count && (uint64_t)n * count > (uint64_t)(INT32_MAX - 1) - base) {
        snprintf(message, sizeof message, "%u copies of %u nodes are more than a scene of the module holds", count, n);
        return -1;
    }
    arbor_node unused;
    for (uint32_t k = 0; k < count; k++) {
        if (parents[k] >= 0 && !node_at(sc, parents[k], &unused)) return fail_index(sc, parents[k]), -1;
    }
    if (aw_skins(src) < 0 || aw_skins(sc) < 0) return -1;
    uint32_t total = base + n * count;
    if (total > sc->cap) {
        arbor_node *nodes = realloc(sc->nodes, (size_t)total * sizeof *nodes);
        if (!nodes) return fail(ARBOR_ERR_OUT_OF_MEMORY, NULL), -1;
        sc->nodes = nodes;
        sc->cap = total;
    }
    uint32_t roots = 0, made_count = 0, cap = longest_skin(src->skins), own = longest_skin(sc->skins);
    cap = own > cap ? own : cap;
    for (arbor_node r = arbor_scene_first_root(src->scene); r.id != ARBOR_NONE.id && roots < n; r = arbor_node_next_sibling(src->scene, r)) roots++;
    arbor_node *made = malloc(((size_t)roots * count + 1) * sizeof *made);
    arbor_node *sub = malloc(((size_t)n + 1) * sizeof *sub);
    arbor_node *joints = malloc(((size_t)cap + 1) * sizeof *joints);
    float *ibm = malloc(((size_t)cap + 1) * 16 * sizeof *ibm);
    arbor_skins *skins = NULL;
    arbor_result r = made && sub && joints && ibm ? ARBOR_OK : ARBOR_ERR_OUT_OF_MEMORY;
    if (r != ARBOR_OK) fail(r, NULL);
    for (uint32_t k = 0; k < count && r == ARBOR_OK; k++) {
        arbor_node parent = parents[k] >= 0 ? sc->nodes[parents[k]] : ARBOR_NONE, *copy = sc->nodes + base + (size_t)k * n;
        uint32_t seen = 0;
        for (arbor_node root = arbor_scene_first_root(src->scene); root.id != ARBOR_NONE.id && r == ARBOR_OK && seen < n;
             root = arbor_node_next_sibling(src->scene, root)) {
            arbor_node c;
            r = arbor_node_clone_from(sc->scene, src->scene, root, parent, &c);
            if (r != ARBOR_OK) {
                fail_last(r);
                break;
            }
            made[made_count++] = c;
            /* a copy keeps its original's user pointer, src's index + 1: it says where it goes */
            uint32_t m = arbor_node_collect_subtree(sc->scene, c, sub, n - seen);
            for (uint32_t j = 0; j < m && j < n - seen; j++) {
                int32_t i = (int32_t)(uintptr_t)arbor_node_user(sc->scene, sub[j]) - 1;
                if (i >= 0 && (uint32_t)i < n) copy[i] = sub[j];
            }
            seen += m;
        }
        for (uint32_t i = 0; i < n && r == ARBOR_OK; i++) arbor_node_set_user(sc->scene, copy[i], (void *)(uintptr_t)(base + k * n + i + 1));
    }
    if (r == ARBOR_OK && src->skins && arbor_skins_count(src->skins)) {
        r = arbor_skins_create(sc->scene, &skins);
        if (r == ARBOR_OK && sc->skins) r = add_skins(skins, sc->skins, NULL, NULL, joints, ibm, cap);
        for (uint32_t k = 0; k < count && r == ARBOR_OK; k++)
            r = add_skins(skins, src->skins, src, sc->nodes + base + (size_t)k * n, joints, ibm, cap);
        if (r != ARBOR_OK) fail_last(r);
        if (r == ARBOR_OK) {
            arbor_skins *old = sc->skins;
            sc->skins = skins;
            if (fit_joints(sc) != ARBOR_OK) {
                sc->skins = old;
                r = ARBOR_ERR_OUT_OF_MEMORY;
            } else {
                arbor_skins_destroy(old);
                skins = NULL;
            }
        }
    }
    arbor_skins_destroy(skins);
    if (r != ARBOR_OK) {
        for (uint32_t j = 0; j < made_count; j++) arbor_node_destroy(sc->scene, made[j]);
    } else {
        sc->count = total;
    }
    free(made);
    free(sub);
    free(joints);
    free(ibm);
    return r == ARBOR_OK ? (int32_t)base : -1;
}

/* ---- Cameras and culling ------------------------------------------------------------------- */

/* The view-projection of the file's camera at node i into out[16]. */
AW_API int aw_camera_view_projection(aw_scene *sc, int32_t i, float aspect, float *out) {
    arbor_node n;
    if (!node_at(sc, i, &n)) return fail_index(sc, i);
    arbor_result r = arbor_camera_view_projection(sc->scene, n, aspect, out);
    return r == ARBOR_OK ? ARBOR_OK : fail_last(r);
}

/* The nodes whose world box the view-projection's frustum sees (OpenGL clip space). Returns
   their indices (aw_visible_count of them) or NULL; stats[0] gets the box tests. */
AW_API int32_t *aw_cull(aw_scene *sc, const float *view_projection, uint32_t *stats) {
    float planes[24];
    arbor_cull_stats cs = {0};
    arbor_frustum_planes(view_projection, planes);
    if (sc->visible_cap < sc->count) {
        int32_t *v = realloc(sc->visible, sc->count * sizeof *v);
        if (v) sc->visible = v;
        arbor_node *h = realloc(sc->visible_handles, sc->count * sizeof *h);
        if (h) sc->visible_handles = h;
        if (!v || !h) return fail(ARBOR_ERR_OUT_OF_MEMORY, NULL), NULL;
        sc->visible_cap = sc->count;
    }
    uint32_t n = 0;
    arbor_result r = arbor_scene_cull(sc->scene, planes, 6, sc->visible_handles, sc->visible_cap, &n, &cs);
    if (r != ARBOR_OK) return fail_last(r), NULL;
    for (uint32_t k = 0; k < n && k < sc->visible_cap; k++) sc->visible[k] = index_of(sc, sc->visible_handles[k]);
    stats[0] = cs.box_tests;
    stats[1] = n < sc->visible_cap ? n : sc->visible_cap;
    return sc->visible;
}

/* ---- Animation ----------------------------------------------------------------------------- */

AW_API uint32_t aw_animation_count(const aw_scene *sc) {
    arbor_gltf_counts c = {0};
    if (sc->doc) arbor_gltf_counts_get(sc->doc, &c);
    return c.animations;
}

AW_API const char *aw_animation_name(const aw_scene *sc, uint32_t i) {
    return sc->doc ? arbor_gltf_animation_name(sc->doc, i) : NULL;
}

/* Animation i of the file as a clip (its targets: the file's node indices). */
AW_API arbor_clip *aw_clip(aw_scene *sc, uint32_t i) {
    arbor_clip *clip = NULL;
    if (!sc->doc) return fail(ARBOR_ERR_INVALID_ARGUMENT, "the scene has no glTF file, so no animations"), NULL;
    arbor_result r = arbor_gltf_clip(sc->doc, i, NULL, &clip);
    return r == ARBOR_OK ? clip : (fail_last(r), NULL);
}

AW_API double aw_clip_duration(const arbor_clip *clip) { return arbor_clip_duration(clip); }
AW_API void aw_clip_dispose(arbor_clip *clip) { arbor_clip_destroy(clip); }

/* A player of clip on the scene's nodes from index first on (the file's nodes, or a copy of
   them made by aw_copy, are the clip's rig). */
AW_API arbor_player *aw_player(aw_scene *sc, const arbor_clip *clip, uint32_t first) {
    arbor_player *p = NULL;
    if (first > sc->count) return fail_index(sc, (int32_t)first), NULL;
    arbor_result r = arbor_player_create(clip, sc->scene, sc->nodes + first, sc->count - first, &p);
    return r == ARBOR_OK ? p : (fail_last(r), NULL);
}

/* Poses the rig at time (seconds), looping or holding the ends; writes through the bulk path. */
AW_API int aw_player_apply(arbor_player *p, double time, int loop) {
    arbor_result r = arbor_player_apply(p, time, loop ? ARBOR_WRAP_LOOP : ARBOR_WRAP_CLAMP);
    return r == ARBOR_OK ? ARBOR_OK : fail_last(r);
}

AW_API void aw_player_dispose(arbor_player *p) { arbor_player_destroy(p); }

/* Room for aw_frame's arguments: count player pointers (the returned array) and their times
   (*times); NULL when out of memory. */
AW_API arbor_player **aw_frame_args(aw_scene *sc, uint32_t count, double **times) {
    if (count > sc->players_cap) {
        arbor_player **p = realloc(sc->players, (size_t)count * sizeof *p);
        if (p) sc->players = p;
        double *t = realloc(sc->times, (size_t)count * sizeof *t);
        if (t) sc->times = t;
        if (!p || !t) return fail(ARBOR_ERR_OUT_OF_MEMORY, NULL), NULL;
        sc->players_cap = count;
    }
    *times = sc->times;
    return sc->players;
}

/* Placement of blocks of nodes by matrices kept outside the scene, for the three.js bridge:
   `blocks` blocks of `size` nodes from index first (the copies of aw_copy, or a file's nodes as
   one block), block k placed by a matrix E_k (16 floats, column-major; the identity at first).
   Keeping the placement out of the scene keeps each copy's world and joint matrices as exact
   in float as the file's own, wherever the copy stands. Returns one array: the blocks'
   matrices (16 per block: the caller writes them), then 16 floats per node (the scene's count
   now) that aw_frame fills, when asked, with E_k * W for the nodes of block k and W for the
   others. NULL with the message. A second call starts over. */
AW_API float *aw_placement(aw_scene *sc, uint32_t first, uint32_t size, uint32_t blocks) {
    if (first > sc->count || (size && blocks > (sc->count - first) / size)) {
        snprintf(message, sizeof message, "%u blocks of %u nodes from node %u are more than the scene's %u nodes", blocks,
                 size, first, sc->count);
        return NULL;
    }
    float *place = realloc(sc->place, ((size_t)blocks + sc->count + 1) * 16 * sizeof *place);
    if (!place) return fail(ARBOR_ERR_OUT_OF_MEMORY, NULL), NULL;
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (uint32_t k = 0; k < blocks; k++) memcpy(place + 16 * (size_t)k, identity, sizeof identity);
    sc->place = place;
    sc->place_first = first;
    sc->place_size = size;
    sc->place_blocks = blocks;
    sc->place_nodes = sc->count;
    return place;
}

/* out = p * w (4x4, column-major), a column of out in one vector: the sum of p's columns
   times w's column's entries, added in order. */
static void mul4(const float *p, const float *w, float *out) {
    v128_t c0 = wasm_v128_load(p), c1 = wasm_v128_load(p + 4), c2 = wasm_v128_load(p + 8), c3 = wasm_v128_load(p + 12);
    for (int c = 0; c < 4; c++) {
        v128_t r = wasm_f32x4_mul(c0, wasm_f32x4_splat(w[4 * c]));
        r = wasm_f32x4_add(r, wasm_f32x4_mul(c1, wasm_f32x4_splat(w[4 * c + 1])));
        r = wasm_f32x4_add(r, wasm_f32x4_mul(c2, wasm_f32x4_splat(w[4 * c + 2])));
        r = wasm_f32x4_add(r, wasm_f32x4_mul(c3, wasm_f32x4_splat(w[4 * c + 3])));
        wasm_v128_store(out + 4 * c, r);
    }
}

/* The placed world matrices of aw_placement from the world matrices of aw_world_matrices. */
static void place_all(aw_scene *sc) {
    const float *world = sc->matrices;
    float *placed = sc->place + 16 * (size_t)sc->place_blocks;
    uint32_t n = sc->place_nodes < sc->count ? sc->place_nodes : sc->count, end = sc->place_first + sc->place_size * sc->place_blocks;
    for (uint32_t i = 0; i < n; i++) {
        if (i >= sc->place_first && i < end) {
            mul4(sc->place + 16 * (size_t)((i - sc->place_first) / sc->place_size), world + 16 * (size_t)i, placed + 16 * (size_t)i);
        } else {
            memcpy(placed + 16 * (size_t)i, world + 16 * (size_t)i, 16 * sizeof *placed);
        }
    }
}

/* A frame in one call: the first count players of aw_frame_args (0: none) pose their rigs at
   their times (arbor_players_apply: refused as a whole, nothing written, when any player would
   be), then every world matrix (aw_world_matrices), when the skins were made every joint
   matrix (aw_skin_matrices) and, when `placed` and a placement was made, the placed world
   matrices (aw_placement) are written. Returns the world matrices, or NULL with the message. */
AW_API float *aw_frame(aw_scene *sc, uint32_t count, int loop, int placed) {
    if (count > sc->players_cap) return fail(ARBOR_ERR_INVALID_ARGUMENT, "fewer players staged than count"), NULL;
    if (count) {
        arbor_result r = arbor_players_apply(sc->players, sc->times, count, loop ? ARBOR_WRAP_LOOP : ARBOR_WRAP_CLAMP, NULL);
        if (r != ARBOR_OK) return fail_last(r), NULL;
    }
    float *world = aw_world_matrices(sc);
    if (world && sc->skins && !aw_skin_matrices(sc)) return NULL;
    if (world && placed && sc->place) place_all(sc);
    return world;
}
