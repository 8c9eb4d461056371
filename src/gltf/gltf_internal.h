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

#include "arbor/gltf.h"
#include "internal.h"

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

struct arbor_gltf {
    arbor_allocator allocator;   /* the scene's, copied: the document may outlive the scene */
    arbor_scene *scene;          /* queries need it alive */
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
};

/* Reads a whole file through the allocator; on failure its code (ARBOR_ERR_IO,
   ARBOR_ERR_OUT_OF_MEMORY) and the reason in words in reason. */
arbor_result arbor__gltf_read_file(const arbor_allocator *a, const char *path, uint8_t **data, size_t *size,
                                   char *reason, size_t reason_cap);

#endif
