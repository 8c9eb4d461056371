/* SPDX-License-Identifier: MIT */
/*
 * The loader's passes, in the order a load runs them, over the context of load_base.h (which
 * reports problems and takes memory for all of them):
 *
 * load.c      the entry points: read, check, then create the nodes (atomic); calls the passes
 * glb.c       the GLB container: header and chunks
 * check.c     the JSON: every property arbor reads, its type, range and references
 * ext.c       extension declarations, required extensions, every "extensions" object
 * links.c     what ties objects together: hierarchy, scenes, skins, animations
 * uri.c       buffers: data: URIs, external files (kept inside the file's folder), GLB BIN chunk
 * meshopt.c   compressed buffer views (EXT_ and KHR_meshopt_compression), decoded
 * data.c      accessor layout, element reading, and the checks on buffer data
 * load_base.c the context's reporting and memory, under all of the above
 */
#ifndef ARBOR_GLTF_LOAD_INTERNAL_H
#define ARBOR_GLTF_LOAD_INTERNAL_H

#include "gltf/load_base.h"

/* ---- reading JSON members (check.c) ----
   Each getter reads obj[key] and reports a wrong type or range at base/key (ld_got: load_base.h). */
ld_got arbor__ld_uint(ld *L, json_t *obj, const char *base, const char *key, uint64_t *out);
ld_got arbor__ld_index(ld *L, json_t *obj, const char *base, const char *key, uint32_t count, const char *what,
                       uint32_t *out);
ld_got arbor__ld_string(ld *L, json_t *obj, const char *base, const char *key, const char **out);
ld_got arbor__ld_object(ld *L, json_t *obj, const char *base, const char *key, json_t **out);
ld_got arbor__ld_array(ld *L, json_t *obj, const char *base, const char *key, bool nonempty, json_t **out);
/* Reports base/key missing when g is LD_ABSENT; false when the load stops. */
bool arbor__ld_required(ld *L, ld_got g, const char *base, const char *key);
/* v as an integer >= 0 (integral reals such as 2.0 count); false otherwise. */
bool arbor__ld_as_uint(const json_t *v, uint64_t *out);

/* ---- passes ---- */
/* glb.c: splits a .glb into its JSON and BIN chunks; false (stopped) on a framing error. */
bool arbor__ld_glb(ld *L, const uint8_t *data, size_t size, const uint8_t **json, size_t *json_size);
/* check.c: root, asset, extensions (ext.c), then every object arbor reads. */
bool arbor__ld_check(ld *L);
bool arbor__ld_extensions(ld *L);
/* links.c: hierarchy (parents, rings, depth, creation order), scenes, skins, node links, and
   animations. */
bool arbor__ld_links(ld *L);
/* The scene the load chooses: options.scene, else the file's `scene`, else 0 (-1: no scenes,
   or an options.scene the file does not have). */
static inline int32_t arbor__ld_chosen_scene(const ld *L) {
    if (L->opt.scene >= 0) return (uint32_t)L->opt.scene < L->n_scenes ? L->opt.scene : -1;
    return L->scene >= 0 ? L->scene : L->n_scenes ? 0 : -1;
}
/* uri.c: the bytes of every buffer. */
bool arbor__ld_buffers(ld *L);
/* meshopt.c: EXT_ and KHR_meshopt_compression checked, and compressed views decoded. */
bool arbor__ld_meshopt(ld *L);
/* uri.c: image URIs must stay inside the file's folder too (a save copies them). */
bool arbor__ld_images(ld *L);
/* data.c: accessor layout against its bufferView (after check.c). */
bool arbor__ld_accessor_layout(ld *L);
/* data.c: buffer data: floats finite, min and max exact, sparse indices, IBM rows, animation
   input times and output quaternions. */
bool arbor__ld_data(ld *L);

/* data.c: the accepted animations decoded into the document (channels whose data the file does
   not hold, or whose times or rotations cannot be used, are left out with a warning); false
   when out of memory. */
bool arbor__ld_decode_animations(ld *L, arbor_gltf *doc);

/* node_ext.c: EXT_mesh_gpu_instancing, KHR_node_visibility, MSFT_lod on nodes and
   KHR_animation_pointer channels on a node's visibility: their JSON (after links.c), their data
   (after data.c), what goes into the document and onto the nodes, and the context's memory. */
bool arbor__ld_node_ext(ld *L);
bool arbor__ld_node_ext_data(ld *L);
bool arbor__ld_node_ext_doc(ld *L, arbor_gltf *doc);
bool arbor__ld_node_ext_attach(ld *L, uint32_t i, arbor_node h);
void arbor__ld_node_ext_free(ld *L);

/* ---- reading accessors (data.c) ---- */
/* Whether the accessor's elements come from bytes at hand (its bufferView's buffer has data). */
bool arbor__ld_has_data(const ld *L, const ld_accessor *A);
/* Component c of element i, raw (integers as they are stored), with sparse substitution;
   zero where the accessor has no bufferView. Only for ok accessors with i < count. */
double arbor__ld_read(const ld *L, const ld_accessor *A, uint64_t i, uint32_t c);
/* A raw value as glTF means it: normalized integers to [-1, 1] or [0, 1]. */
double arbor__ld_normalize(const ld_accessor *A, double raw);

#endif
