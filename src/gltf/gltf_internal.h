/* SPDX-License-Identifier: MIT */
/*
 * What the glTF files of src/gltf/ share: the document and the error helpers.
 *
 * load.c   reading: JSON or GLB -> validated document -> nodes in the scene (atomic)
 * save.c   writing: live scene + document -> .gltf or .glb
 * doc.c    the document's queries and lifetime
 */
#ifndef ARBOR_GLTF_INTERNAL_H
#define ARBOR_GLTF_INTERNAL_H

#include <jansson.h>
#include <stdio.h>

#include "arbor/gltf.h"
#include "scene/scene_internal.h"

/* A buffer's bytes as loaded (from a .bin, a data: URI or the GLB BIN chunk). */
typedef struct arbor__gltf_buffer {
    uint8_t *data;   /* NULL for a buffer without data (no uri in a .gltf) */
    size_t size;     /* the buffer's byteLength */
    bool from_glb;   /* the GLB BIN chunk */
} arbor__gltf_buffer;

/* A skin as read (joints are glTF node indices). */
typedef struct arbor__gltf_skin {
    uint32_t *joints;
    uint32_t joint_count;
    int64_t skeleton;    /* -1: none */
    float *ibm;          /* 16 per joint, NULL: identity */
} arbor__gltf_skin;

/* Animations as the load accepted them, their data decoded to floats (normalized integers
   converted) in one array; samplers sharing an input accessor share its times. */
typedef struct arbor__gltf_sampler {
    int interpolation;   /* arbor_interpolation */
    uint32_t keys, width; /* keyframes; floats per element */
    size_t times, values; /* offsets into anim_data */
} arbor__gltf_sampler;

typedef struct arbor__gltf_channel {
    uint32_t node, sampler; /* sampler: into anim_samplers */
    int path;               /* arbor_anim_path */
    bool pointer;           /* a KHR_animation_pointer channel */
} arbor__gltf_channel;

typedef struct arbor__gltf_animation {
    uint32_t channel0, channel_count; /* into anim_channels */
    double duration;                  /* the largest input max of all its samplers */
} arbor__gltf_animation;

/* An MSFT_lod group as read: the owning node and its levels (glTF node indices, the owner
   first), with MSFT_screencoverage per level when the file gives it. */
typedef struct arbor__gltf_lod {
    uint32_t level0, level_count;  /* into lod_levels */
    bool has_coverage;
} arbor__gltf_lod;

/* A KHR_animation_pointer channel on /nodes/N/extensions/KHR_node_visibility/visible. */
typedef struct arbor__gltf_visibility_channel {
    uint32_t animation, node, keys;
    size_t times, values;  /* offsets into visibility_data (values: 0 or 1) */
} arbor__gltf_visibility_channel;

struct arbor_gltf {
    arbor_allocator allocator;   /* the scene's, copied: the document may outlive the scene */
    arbor_scene *scene;          /* NULL once the scene is destroyed (gltf/labels.c): inert */
    bool listed;                 /* in the scene's list of documents (gltf/labels.c) */
    json_t *root;                /* the whole JSON as loaded; save rewrites nodes and scenes */
    char *path;                  /* as given to load ("memory" for load_memory) */
    char *base_dir;              /* resolves relative URIs; NULL: none */
    uint32_t node_count;
    arbor_node *nodes;           /* glTF node index -> handle */
    uint64_t *by_id;             /* handle ids sorted, for arbor_gltf_index ... */
    uint32_t *by_id_index;       /* ... and the glTF index of each */
    int32_t *node_skin;          /* glTF node index -> skin, -1 */
    uint32_t scene_count;
    int32_t default_scene;       /* the chosen scene, -1: none (named apart from `scene`, which
                                    C cannot hold twice) */
    uint32_t buffer_count;
    arbor__gltf_buffer *buffers;
    uint32_t skin_count;
    arbor__gltf_skin *skins;
    uint32_t animation_count, anim_channel_count, anim_sampler_count;
    arbor__gltf_animation *animations;
    arbor__gltf_channel *anim_channels;
    arbor__gltf_sampler *anim_samplers;
    float *anim_data;
    size_t anim_floats;
    /* node extensions (node_ext.c) */
    uint32_t lod_count, lod_level_total;
    arbor__gltf_lod *lods;
    uint32_t *lod_levels;          /* glTF node indices */
    float *lod_coverage;           /* per level, when has_coverage */
    uint32_t visibility_channel_count;
    arbor__gltf_visibility_channel *visibility_channels;
    float *visibility_data;
    size_t visibility_floats;
};

/* What a save writes of the node extensions (save_nodes.c), in save.c's order: begin (count:
   the nodes written), plan each written node k (before the top level is built: new instance
   accessors), append the new buffer, views, accessors and extension names to the top level,
   the node's extensions object (new; KHR_lights_punctual left to the caller) with *extras a
   replacement of the node's extras or NULL, end (warnings, memory). `failed`: out of memory.
   The new bytes are bin[0, bin_size). */
typedef struct arbor__node_ext_save {
    arbor_scene *s;
    const char *path;
    json_t *root;                  /* the document's JSON, or NULL */
    uint32_t count, view_base, accessor_base;
    uint32_t *written;             /* per written node: its first new accessor (3 in a row), or UINT32_MAX */
    uint8_t *bin;                  /* the new buffer's bytes */
    size_t bin_size, bin_cap;
    json_t *views, *accessors;     /* new entries */
    bool visibility_used, instancing_used, failed;
    uint32_t levels_dropped, attributes_dropped;
} arbor__node_ext_save;
void arbor__node_ext_save_begin(arbor__node_ext_save *x, arbor_scene *s, json_t *root, const char *path, uint32_t count);
void arbor__node_ext_save_plan(arbor__node_ext_save *x, uint32_t k, uint32_t slot, json_t *file_node);
/* glb_offset: where the new bytes go in a .glb's BIN chunk of glb_size bytes (buffer 0);
   UINT64_MAX for a .gltf (a buffer of their own, a data: URI). */
void arbor__node_ext_save_append(arbor__node_ext_save *x, json_t *top, uint64_t glb_offset, uint64_t glb_size);
json_t *arbor__node_ext_save_node(arbor__node_ext_save *x, uint32_t k, uint32_t slot, json_t *file_node,
                                  const uint32_t *file_to_out, uint32_t file_count, json_t **extras);
void arbor__node_ext_save_end(arbor__node_ext_save *x);

/* Frees what node_ext.c put in the document. */
void arbor__gltf_node_ext_free(arbor_gltf *doc);

/* Opens a regular file to read, without blocking on a FIFO or device that is there instead (those
   are refused: a FIFO with no writer would hang the load); its size in *size. On failure
   ARBOR_ERR_IO and the reason in words ("x is a FIFO, not a regular file"). */
arbor_result arbor__gltf_open_file(const char *path, FILE **out, uint64_t *size, char *reason, size_t reason_cap);
/* What path is when it exists and is not a regular file ("a FIFO", "a socket", ...); else NULL.
   A stat only: opens nothing. */
const char *arbor__gltf_not_regular(const char *path);
/* Reads a whole file through the allocator (arbor__gltf_open_file); on failure its code (ARBOR_ERR_IO,
   ARBOR_ERR_OUT_OF_MEMORY) and the reason in words in reason. */
arbor_result arbor__gltf_read_file(const arbor_allocator *a, const char *path, uint8_t **data, size_t *size,
                                   char *reason, size_t reason_cap);

/* The scene's list of live documents, whose maps give the core's messages a loaded node's file
   index (gltf/labels.c): room for one more (false when out of memory), then the document of a
   load that succeeded joins it; arbor_gltf_destroy takes it out. */
bool arbor__gltf_docs_reserve(arbor_scene *s);
void arbor__gltf_docs_add(arbor_gltf *doc);
void arbor__gltf_docs_remove(arbor_gltf *doc);

#endif
