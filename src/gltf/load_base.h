/* SPDX-License-Identifier: MIT */
/*
 * The loader's context and the helpers every pass uses (load_base.c): how problems are
 * reported and memory is taken. The passes (load_internal.h) call these; these call none of them.
 *
 * A load runs its passes over one context and touches the scene only in the last one. A problem
 * is either fatal (arbor__ld_stop: broken JSON or GLB framing, I/O, memory, an unsupported
 * required extension) or a breach of the spec (arbor__ld_bad): strict loads stop there, lenient
 * ones log a warning and the caller repairs (drops the link, skips the attachment, ...).
 */
#ifndef ARBOR_GLTF_LOAD_BASE_H
#define ARBOR_GLTF_LOAD_BASE_H

#include "gltf/gltf_internal.h"

#define LD_NONE UINT32_MAX

/* The tolerance of "is this matrix a TRS": columns orthogonal within 1e-4 of their lengths.
   Judged in double on the file's numbers, whatever arbor_real is: file data carries float
   precision (the samples' worst is 7e-7), so arbor_mat4_decompose's double-build 1e-9 would
   refuse good files. */
#define LD_TRS_TOLERANCE 1e-4
/* |length - 1| above this is a non-unit quaternion (the Khronos validator's threshold, just above
   the error of 8-bit quantization). */
#define LD_UNIT_TOLERANCE 0.00769
/* EXT_mesh_gpu_instancing without a bufferView in any attribute: every instance from zeros (and
   sparse values), no file bytes to bound the count, so arbor sets the bound (gltf.h says so). */
#define LD_MAX_DATALESS_INSTANCES 65536u

typedef struct ld_view { /* a bufferView */
    bool ok;
    uint32_t buffer;
    uint64_t offset, length;
    uint32_t stride; /* 0: not given (tightly packed) */
    uint8_t *decoded; /* a meshopt-compressed view's bytes (length of them), read instead */
} ld_view;

typedef struct ld_accessor {
    bool ok; /* component type and type known: its elements can be read */
    uint32_t view; /* LD_NONE: no bufferView (all zeros, then sparse) */
    uint64_t offset, count;
    uint32_t ctype, csize; /* GL component type, its size in bytes */
    uint32_t rows, cols, ncomp; /* cols > 1 for matrices, whose columns start 4-byte aligned */
    uint32_t stride, elem; /* effective stride; bytes an element spans (last column unpadded) */
    bool normalized;
    bool bad_layout; /* lenient: its bytes do not fit its bufferView, not read */
    bool has_min, has_max;
    double min[16], max[16];
    bool sparse;
    uint64_t scount, soff_idx, soff_val;
    uint32_t sview_idx, sview_val, sictype;
} ld_accessor;

typedef struct ld_node {
    arbor_real trs[10]; /* translation 3, rotation 4, scale 3 */
    uint32_t matrix; /* index into matrices, LD_NONE: TRS */
    bool locked; /* a matrix that is a TRS: locked, as glTF matrices are */
    uint32_t parent; /* LD_NONE: a root */
    uint32_t kid0, nkids; /* children, in kids[] (LD_NONE marks a link dropped) */
    int32_t mesh, camera, skin, light;
    uint32_t weights; /* LD_NONE: none */
    const char *name; /* in the JSON */
} ld_node;

typedef struct ld_mesh {
    bool has_bounds, joints; /* union of POSITION boxes; some primitive has JOINTS_n */
    double min[3], max[3];
    uint32_t targets; /* morph targets of the first primitive */
} ld_mesh;

typedef struct ld_skin {
    uint32_t joint0, njoints; /* in joints[] */
    uint32_t skeleton, ibm; /* LD_NONE: none */
} ld_skin;

typedef struct ld_scene {
    uint32_t root0, nroots;
} ld_scene;

enum { LD_TIMES, LD_ROTATIONS, LD_CUBIC_ROTATIONS };
typedef struct ld_anim_check { /* an animation data check left for data.c */
    uint32_t accessor, anim, index; /* index: the sampler (times) or the channel (rotations) */
    uint32_t sampler; /* times: the ld_sampler they belong to (a lenient load drops it when bad) */
    int kind;
} ld_anim_check;

/* Animations as links.c accepts them: what new_doc decodes into the document. ok is false for
   what a lenient load warned about (and for what arbor leaves aside: unknown interpolations,
   pointers other than a node's translation, rotation or scale). */
typedef struct ld_sampler {
    uint32_t input, output;
    int interpolation; /* arbor_interpolation, or -1: unknown */
    bool ok;
} ld_sampler;

typedef struct ld_channel {
    uint32_t node, sampler; /* sampler: an index into samplers (all animations') */
    int path; /* arbor_anim_path */
    bool pointer; /* a KHR_animation_pointer channel on the node's TRS */
    bool ok;
} ld_channel;

typedef struct ld_animation {
    uint32_t sampler0, channel0, nchannels; /* into samplers and channels */
    double duration; /* the largest input max of its samplers */
} ld_animation;

typedef struct ld {
    arbor_scene *s;
    const arbor_allocator *a;
    const char *file; /* for messages: the path as given, or "arbor_gltf_load_memory" (warnings) */
    bool memory;      /* arbor_gltf_load_memory: errors name that call and no file */
    const char *base_dir; /* resolves relative URIs; NULL: external URIs refused */
    arbor_gltf_options opt;
    arbor_result code; /* the first fatal code */
    uint32_t line, column; /* where in the JSON text that error is, when known */
    /* arbor_gltf_validate and _messages: every problem goes into one of these lists (the first
       issue_cap), the load goes on as a lenient one does */
    bool validating;
    arbor_gltf_issue *issues;
    arbor_gltf_message *messages;
    uint32_t issue_cap, issue_count;
    arbor_result issue_code; /* the first issue's */
    char ptr[320]; /* arbor__ld_at's pointer */

    json_t *root;
    bool glb, has_bin;
    const uint8_t *bin; /* the GLB BIN chunk (in the file's bytes) */
    uint64_t bin_size;

    /* the top-level arrays (NULL when absent or unusable) and their sizes */
    json_t *j_accessors, *j_animations, *j_buffers, *j_views, *j_cameras, *j_images, *j_meshes, *j_nodes, *j_scenes,
        *j_skins, *j_lights;
    uint32_t n_accessors, n_animations, n_buffers, n_views, n_cameras, n_meshes, n_nodes, n_scenes, n_skins, n_lights;
    json_t *used, *required; /* extensionsUsed, extensionsRequired (arrays of strings) or NULL */

    arbor__gltf_buffer *buffers;
    ld_view *views;
    ld_accessor *acc;
    ld_mesh *meshes;
    arbor_camera *cameras;
    bool *camera_ok, *light_ok;
    arbor_light *lights;
    ld_node *nodes;
    arbor_real *matrices; /* 16 per matrix node */
    uint32_t n_matrices;
    uint32_t *kids, n_kids;
    ld_skin *skins;
    uint32_t *joints, n_joints;
    ld_scene *scenes;
    uint32_t *roots, n_roots; /* scenes' node lists */
    int32_t scene; /* the file's `scene`, -1: none */
    /* allocated lengths of the arrays above that fill up as they are read */
    size_t cap_matrices, cap_kids, cap_roots, cap_joints, cap_anim_checks;

    ld_anim_check *anim_checks;
    uint32_t n_anim_checks;
    ld_animation *animations; /* n_animations */
    ld_sampler *samplers;
    ld_channel *channels;
    uint32_t n_samplers, n_channels; /* totals over all animations */
    json_t *ext_used; /* extensionsUsed as a set (a JSON object, keys only) */

    struct ld_node_ext *node_ext; /* node_ext.c: per node, n_nodes */
    struct ld_lod *lod_groups;     /* node_ext.c */
    uint32_t n_lod_groups;
    struct ld_vis_channel *vis_channels; /* node_ext.c */
    uint32_t n_vis_channels;

    /* hierarchy, from links.c */
    uint32_t *order; /* creation order: roots in file order, then breadth first */
    uint32_t *tree; /* the root of each node's tree */
} ld;

/* ---- reporting (load_base.c) ---- */
/* The issue codes arbor reports: the Khronos glTF-Validator's (its ISSUES.md), each with the
   validator's severity (0 error, 1 warning, 2 info, 3 hint), so that arbor_gltf_validate_messages
   reads as its report does. The two ARBOR_ codes name what ends a check and the validator has no
   code for: a limit of arbor's, which the spec does not set (a chain deeper than the scene
   allows, a URI out of the folder, instances without data beyond the limit): a warning, as the
   file may be valid; and no memory: an error, as the check is incomplete. */
#define LD_ISSUES(X)                                                                                    \
    X(IO_ERROR, 0) X(INVALID_JSON, 0) X(TYPE_MISMATCH, 0) X(UNDEFINED_PROPERTY, 0)                      \
    X(VALUE_NOT_IN_RANGE, 0) X(VALUE_NOT_IN_LIST, 1) X(VALUE_MULTIPLE_OF, 0) X(EMPTY_ENTITY, 0)         \
    X(DUPLICATE_ELEMENTS, 0) X(INVALID_URI, 0) X(ONE_OF_MISMATCH, 0) X(PATTERN_MISMATCH, 0)             \
    X(UNSATISFIED_DEPENDENCY, 0) X(UNRESOLVED_REFERENCE, 0) X(INVALID_INDEX, 0)                          \
    X(ARRAY_TYPE_MISMATCH, 0) X(UNKNOWN_ASSET_MAJOR_VERSION, 0) X(UNKNOWN_ASSET_MINOR_VERSION, 1)       \
    X(ASSET_MIN_VERSION_GREATER_THAN_VERSION, 0) X(UNDECLARED_EXTENSION, 0)                              \
    X(UNEXPECTED_EXTENSION_OBJECT, 0) X(UNUSED_EXTENSION_REQUIRED, 0) X(UNSUPPORTED_EXTENSION, 2)        \
    X(NON_RELATIVE_URI, 1) X(BUFFER_DATA_URI_MIME_TYPE_INVALID, 0) X(BUFFER_BYTE_LENGTH_MISMATCH, 0)     \
    X(BUFFER_MISSING_GLB_DATA, 0) X(BUFFER_GLB_CHUNK_TOO_BIG, 1) X(BUFFER_VIEW_TOO_LONG, 0)              \
    X(BUFFER_VIEW_INVALID_BYTE_STRIDE, 0) X(BUFFER_VIEW_TOO_BIG_BYTE_STRIDE, 0)                          \
    X(BUFFER_VIEW_TARGET_OVERRIDE, 0) X(ACCESSOR_TOO_LONG, 0) X(ACCESSOR_OFFSET_ALIGNMENT, 0)            \
    X(ACCESSOR_TOTAL_OFFSET_ALIGNMENT, 0) X(ACCESSOR_MATRIX_ALIGNMENT, 0) X(ACCESSOR_SMALL_BYTESTRIDE, 0) \
    X(ACCESSOR_NORMALIZED_INVALID, 0) X(ACCESSOR_SPARSE_COUNT_OUT_OF_RANGE, 0)                           \
    X(ACCESSOR_SPARSE_INDICES_NON_INCREASING, 0) X(ACCESSOR_SPARSE_INDEX_OOB, 0)                         \
    X(ACCESSOR_INVALID_FLOAT, 0) X(ACCESSOR_MIN_MISMATCH, 0) X(ACCESSOR_MAX_MISMATCH, 0)                 \
    X(ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND, 0) X(ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND, 0)                      \
    X(ACCESSOR_INVALID_IBM, 0) X(ACCESSOR_ANIMATION_INPUT_NEGATIVE, 0)                                   \
    X(ACCESSOR_ANIMATION_INPUT_NON_INCREASING, 0) X(ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION, 0) \
    X(CAMERA_XMAG_YMAG_ZERO, 0) X(CAMERA_ZFAR_LEQUAL_ZNEAR, 0) X(KHR_LIGHTS_PUNCTUAL_LIGHT_SPOT_ANGLES, 0) \
    X(MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT, 0) X(MESH_PRIMITIVE_POSITION_ACCESSOR_WITHOUT_BOUNDS, 0) \
    X(NODE_LOOP, 0) X(NODE_PARENT_OVERRIDE, 0) X(NODE_MATRIX_TRS, 0) X(NODE_MATRIX_NON_TRS, 0)           \
    X(ROTATION_NON_UNIT, 0) X(NODE_SKIN_WITH_NON_SKINNED_MESH, 0) X(NODE_SKIN_NO_SCENE, 0)               \
    X(NODE_WEIGHTS_INVALID, 0) X(SCENE_NON_ROOT_NODE, 0) X(SKIN_NO_COMMON_ROOT, 0)                       \
    X(SKIN_SKELETON_INVALID, 0) X(SKIN_IBM_INVALID_FORMAT, 0) X(SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE, 0)    \
    X(INVALID_IBM_ACCESSOR_COUNT, 0) X(ANIMATION_CHANNEL_TARGET_NODE_MATRIX, 0)                          \
    X(ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS, 0) X(ANIMATION_DUPLICATE_TARGETS, 0)              \
    X(ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE, 0) X(ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT, 0) \
    X(ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS, 0) X(ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS, 0) \
    X(ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT, 0) X(ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT, 0) \
    X(KHR_ANIMATION_POINTER_ANIMATION_CHANNEL_TARGET_NODE, 0)                                            \
    X(KHR_ANIMATION_POINTER_ANIMATION_CHANNEL_TARGET_PATH, 0) X(GLB_INVALID_MAGIC, 0)                    \
    X(GLB_INVALID_VERSION, 0) X(GLB_LENGTH_TOO_SMALL, 0) X(GLB_LENGTH_MISMATCH, 0)                       \
    X(GLB_UNEXPECTED_END_OF_HEADER, 0) X(GLB_UNEXPECTED_END_OF_CHUNK_HEADER, 0)                          \
    X(GLB_UNEXPECTED_END_OF_CHUNK_DATA, 0) X(GLB_CHUNK_LENGTH_UNALIGNED, 0) X(GLB_CHUNK_TOO_BIG, 0)      \
    X(GLB_UNEXPECTED_FIRST_CHUNK, 0) X(GLB_EMPTY_CHUNK, 0) X(GLB_DUPLICATE_CHUNK, 0)                     \
    X(GLB_UNEXPECTED_BIN_CHUNK, 0) X(ARBOR_LIMIT, 1) X(ARBOR_OUT_OF_MEMORY, 0)
typedef enum {
#define LD_ISSUE_ENUM(code, severity) LDI_##code,
    LD_ISSUES(LD_ISSUE_ENUM)
#undef LD_ISSUE_ENUM
} ld_issue;

/* Builds a JSON pointer in L->ptr (one at a time: use it in the next report). */
const char *arbor__ld_at(ld *L, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A breach of the spec at ptr (issue: its code): strict, records the error and returns false
   (stop); lenient, logs a warning and returns true (repair and go on). */
bool arbor__ld_bad(ld *L, ld_issue issue, const char *ptr, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* A fatal problem in either mode: records code and message, returns false. _glb: a framing
   problem of a GLB file, at a byte offset instead of a pointer (ARBOR_ERR_PARSE). */
bool arbor__ld_stop(ld *L, arbor_result code, ld_issue issue, const char *ptr, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
bool arbor__ld_stop_glb(ld *L, ld_issue issue, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Something arbor leaves aside (an unknown enum value the spec allows): an info log line. */
void arbor__ld_note(ld *L, const char *ptr, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* n elements of size bytes through the allocator, zeroed; NULL (after stopping the load with
   ARBOR_ERR_OUT_OF_MEMORY) on failure or overflow. n == 0 gives a valid one-element block. */
void *arbor__ld_calloc(ld *L, size_t n, size_t size);
void arbor__ld_free(ld *L, void *p, size_t n, size_t size);

/* What a JSON getter (load_internal.h) found. LD_BAD: reported in a lenient load, treat as absent
   (but do not report it missing). */
typedef enum { LD_STOP = -1, LD_ABSENT = 0, LD_GOT = 1, LD_BAD = 2 } ld_got;

/* Shorthands of the files that read the document (L is their ld *):
   BAD(CODE, ptr, ...) reports a problem with its issue code, without LDI_ (true: go on, in a
   lenient load), AT names where, and TRY stops the
   calling check when a getter says the load is over. */
#define BAD(issue, ...) arbor__ld_bad(L, LDI_##issue, __VA_ARGS__)
#define AT(...) arbor__ld_at(L, __VA_ARGS__)
#define TRY(g)                                   \
    do {                                         \
        if ((g) == LD_STOP) return false;        \
    } while (0)

#endif
