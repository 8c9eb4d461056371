/* SPDX-License-Identifier: MIT */
/*
 * arbor/gltf.h: glTF 2.0 in and out: libarbor-gltf, a library of its own on top of libarbor
 * (pkg-config arbor-gltf, CMake arbor::gltf). It depends on jansson; libarbor does not. This
 * header includes what it needs of libarbor (scene.h, anim.h); arbor/arbor.h does not include
 * it. The rules of arbor/arbor.h hold here too: errors through arbor_last_error_info() (the
 * file, the JSON pointer, the line and column), 0-based scene indices.
 *
 * arbor_gltf_load() reads a .gltf (external .bin files, data: URIs) or a .glb into a scene:
 * every node of the file in file order, children in file order, roots in the order the chosen
 * scene lists them (then the roots it does not list, in file order), created depth first (each
 * subtree stored as one range, which arbor_scene_update_parallel splits), TRS locals (a `matrix` node
 * becomes a locked matrix-backed node), names, and what nodes carry: the mesh index with the
 * local box of its POSITION accessors' min and max, the camera, the KHR_lights_punctual light.
 * The returned document keeps what the scene graph does not own (the JSON of meshes,
 * materials, accessors, buffers, animations, skins, extensions, extras) and the map between
 * glTF node indices and handles, so arbor_gltf_save() writes the file back losing nothing.
 *
 * Loading is atomic: a file that is refused changes nothing in the scene. arbor_last_error()
 * names the file, a JSON pointer and the reason: "arbor_gltf_load: robot.gltf:
 * /nodes/7/children/1: node 3 already has parent 5"; arbor_last_error_info() gives the file and
 * the pointer apart. Loading is strict by default: a file that breaks a MUST of the spec
 * in what arbor reads is refused; `lenient` loads what can be loaded, with warnings through
 * the scene's log, instead.
 *
 * JSON is read with jansson, whose memory does not go through the scene's allocator: jansson
 * has one process-wide allocator hook (json_set_alloc_funcs), which arbor never sets or changes.
 * It belongs to the application: pointed at the application's allocator (before any JSON
 * exists, as jansson requires), it receives the JSON allocations of arbor's loads and saves
 * too; tests/test_faults.c points it at a failing allocator that way. A JSON allocation that
 * fails is ARBOR_ERR_OUT_OF_MEMORY like any other, with the scene as it was and no file written
 * (docs/RELIABILITY.md says which failures inside jansson itself no caller can survive).
 *
 * What the loader decides:
 * - Required extensions (extensionsRequired) are honoured when arbor reads them or passes them
 *   through without a change to what it reads (nodes, scenes, skins, animations, cameras,
 *   lights, and the POSITION min and max behind mesh bounds): KHR_lights_punctual,
 *   KHR_animation_pointer, KHR_node_visibility, EXT_mesh_gpu_instancing, KHR_materials_*, KHR_texture_transform,
 *   KHR_texture_basisu, EXT_texture_webp, EXT_texture_avif, KHR_xmp_json_ld,
 *   KHR_mesh_quantization (quantized POSITION min and max are dequantized for the bounds),
 *   KHR_draco_mesh_compression (its accessors keep count, min and max), EXT_meshopt_compression
 *   and KHR_meshopt_compression (decoded, below). Any other required extension is refused with
 *   ARBOR_ERR_UNSUPPORTED, naming it: the ones arbor does not know. Used but not required,
 *   any extension loads and passes through.
 * - EXT_meshopt_compression and KHR_meshopt_compression: each compressed bufferView is checked
 *   (mode, filter, byteStride and count as the extensions allow them, the compressed bytes
 *   inside their buffer, fallback buffers used by compressed views only) and decoded; the data
 *   checks and what arbor reads (inverse bind matrices, animations) read the decoded bytes. A
 *   stream that does not decode to exactly its view's elements is a breach of the spec, and one
 *   too short for its count is refused before its decoded bytes are allocated. A save
 *   writes the compressed bytes unchanged, and a fallback buffer without data stays one.
 * - URIs: a relative URI resolves from the file's folder (load_memory: from base_dir). One that
 *   leads outside it (an absolute path, "..", a scheme other than data:, a query, a symbolic
 *   link out) is refused with ARBOR_ERR_IO unless allow_outside_uris; then file: URIs and
 *   absolute paths are read, and other schemes (http:) are left unread (the buffer has no bytes,
 *   as one without uri). Images are held to the same folder, though arbor does not read them.
 * - Numbers arbor reads must be finite as 32-bit floats, in float and double builds alike.
 * - A `matrix` is a TRS when its last row is (0, 0, 0, 1) and its columns are orthogonal within
 *   1e-4 of their lengths (judged in double: file data carries float precision). Rotations are
 *   unit within 0.00769, the Khronos validator's tolerance.
 * - Data checks (floats finite, min and max exact, sparse indices, inverse bind matrices' last
 *   rows, animation times increasing and rotations unit) run where the bytes are at hand, as the
 *   Khronos validator's do, and on accessors without a bufferView, whose elements are zeros (and
 *   their sparse values): such an accessor costs nothing until read, whatever its count, so what
 *   a load allocates is bounded by the file's bytes (zeros are no increasing times, no inverse
 *   bind matrix, no unit rotation: those checks stop at the first). Here arbor is stricter than
 *   the Khronos validator, which skips such accessors: three files of its test suite that it
 *   calls valid (animation/valid, skin/valid, skin/ignored_animated_transform) hold zero
 *   keyframe times or inverse bind matrices, which break the spec's MUSTs, and arbor reports them.
 * - KHR_animation_pointer channels on a node's translation, rotation or scale
 *   ("/nodes/3/rotation") are checked as regular channels are (the node exists and has no
 *   matrix, the output fits the path and the keyframes); other pointers pass through unread.
 * - Animations are decoded at the load for arbor_gltf_clip (floats; normalized integers
 *   converted).
 * - What extensions say about nodes (instances.h): EXT_mesh_gpu_instancing's TRANSLATION,
 *   ROTATION and SCALE become the node's instances (accessors of one count: floats, normalized
 *   byte or short rotations, byte or short translations and scales with KHR_mesh_quantization;
 *   values finite, rotations unit; when no attribute has a bufferView, at most 65536 of them:
 *   more is refused, "arbor makes at most 65536 instances from no data"); KHR_node_visibility's `visible` (a boolean) its own
 *   visibility; MSFT_lod's `ids` (other nodes of the file) and extras.MSFT_screencoverage a level
 *   of detail group (arbor_gltf_lod_group); KHR_animation_pointer channels on a node's
 *   visibility (SCALAR unsigned bytes, STEP) are kept for arbor_gltf_apply_visibility. Saving
 *   writes the visibility and instances as the scene holds them (instances unchanged since the
 *   load keep the file's accessors, others get new float accessors in a buffer of their own),
 *   and remaps MSFT_lod's node references (a destroyed level is dropped, with a warning).
 * - Lenient loads repair instead of refusing: a bad or second parent link is dropped (the first
 *   parent stays), a ring opens above its lowest node, a bad reference leaves the attachment
 *   off, a non-unit rotation is normalised, a matrix that is not a TRS stays unlocked. Broken
 *   JSON or GLB framing, I/O errors and unsupported required extensions fail in both modes.
 */
#ifndef ARBOR_GLTF_H
#define ARBOR_GLTF_H

#include "arbor/anim.h"
#include "arbor/instances.h"
#include "arbor/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scene indices are 0-based, as in the file's `scenes` array. This one stands for the file's
   default scene: its `scene`, or scene 0 when it names none. */
#define ARBOR_GLTF_DEFAULT_SCENE (-1)

/* All zero (or NULL options, or ARBOR_GLTF_OPTIONS_DEFAULT): the file's default scene, strict,
   URIs inside the file's folder. */
typedef struct arbor_gltf_options {
    int32_t scene;                   /* with use_scene: the scene whose roots come first
                                        (0-based), or ARBOR_GLTF_DEFAULT_SCENE */
    bool use_scene;                  /* false: the file's default scene, whatever `scene` holds */
    bool allow_outside_uris;         /* external URIs may leave the file's folder */
    bool lenient;                    /* load what can be loaded, with warnings, instead of
                                        refusing a file that breaks a MUST of the spec */
} arbor_gltf_options;
#define ARBOR_GLTF_OPTIONS_DEFAULT { 0, false, false, false }

/* A loaded document: what the scene graph does not own, and the node index <-> handle map. */
typedef struct arbor_gltf arbor_gltf;

/* Loads the file at path into s (its nodes are added to what s holds). On success *out is a
   new document, ended by arbor_gltf_destroy.
   Destroying it and its scene in either order is safe: the scene's destroy leaves it inert
   (every call of it that returns an arbor_result is refused with ARBOR_ERR_INVALID_ARGUMENT, "its
   scene was destroyed"; the others answer from what it holds) and its own destroy frees it. Refusals:
   ARBOR_ERR_IO (cannot read a file; only regular files are opened, so a path or a buffer's or
   image's URI naming a FIFO, socket or device is refused without blocking), ARBOR_ERR_PARSE
   (bad JSON, GLB framing, or a file that breaks the spec), ARBOR_ERR_UNSUPPORTED (a required
   extension arbor cannot honour), ARBOR_ERR_OUT_OF_MEMORY, ARBOR_ERR_DEPTH_LIMIT (a chain deeper than the scene allows),
   ARBOR_ERR_INVALID_ARGUMENT (options.scene not in the file); nothing changed in s then, and
   arbor_last_error_info() gives the message and its place: the file, the JSON pointer, and the
   line and column of a JSON syntax error. options may be NULL (the defaults). */
ARBOR_API arbor_result arbor_gltf_load(arbor_scene *s, const char *path, const arbor_gltf_options *options,
                                       arbor_gltf **out);

/* The same from memory: data is .glb when it starts with the GLB magic, else JSON. base_dir
   resolves external URIs (NULL: external URIs are refused). Its messages name this call and
   the place in the bytes (a JSON pointer, a GLB offset, a line and column) and no file
   (arbor_last_error_info's file is ""): "arbor_gltf_load_memory: /nodes/1/children/0: ...". */
ARBOR_API arbor_result arbor_gltf_load_memory(arbor_scene *s, const void *data, size_t size, const char *base_dir,
                                              const arbor_gltf_options *options, arbor_gltf **out);

/* One problem arbor_gltf_validate found. */
typedef struct arbor_gltf_issue {
    arbor_result code;  /* ARBOR_ERR_PARSE: a breach of the spec; else what ended the check
                           (ARBOR_ERR_IO, ARBOR_ERR_UNSUPPORTED, ...), always the last issue */
    char pointer[256];  /* JSON pointer, "" when the problem is the file as a whole */
    char message[400];  /* the reason */
} arbor_gltf_issue;

/* Checks the file at path as arbor_gltf_load does, without stopping at the first breach of the
   spec: each is an issue, repaired as a lenient load repairs it, and the check goes on. A
   problem that ends every load (broken JSON or GLB framing, I/O, an unsupported required
   extension, no memory) ends the check as its last issue. The first cap issues, in the order
   found, go into issues (may be NULL when cap is 0); *count (may be NULL) gets how many were
   found. Returns what arbor_gltf_load would (ARBOR_OK: the file loads strictly; else the first
   issue's code); options.lenient is ignored. Nothing is loaded anywhere. */
ARBOR_API arbor_result arbor_gltf_validate(const char *path, const arbor_gltf_options *options,
                                           arbor_gltf_issue *issues, uint32_t cap, uint32_t *count);

/* One message of arbor_gltf_validate_messages, as the Khronos glTF-Validator reports it. */
typedef struct arbor_gltf_message {
    arbor_result result; /* ARBOR_ERR_PARSE: what the file breaks (or, below severity 0, what the
                            validator only warns of); else what ended the check (ARBOR_ERR_IO,
                            ARBOR_ERR_UNSUPPORTED, ...), always the last message */
    int32_t severity;    /* the validator's: 0 error, 1 warning, 2 information, 3 hint */
    int64_t offset;      /* a GLB framing problem's byte offset in the file (pointer ""), else -1 */
    char code[64];       /* the validator's issue code ("ACCESSOR_MIN_MISMATCH", its ISSUES.md);
                            ARBOR_LIMIT and ARBOR_OUT_OF_MEMORY for what it has none for */
    char pointer[256];   /* JSON pointer, "" when the problem is the file as a whole */
    char message[400];   /* the reason */
} arbor_gltf_message;

/* arbor_gltf_validate with each problem as the Khronos glTF-Validator reports it: its code,
   severity and place (a JSON pointer, or a GLB byte offset), at the pointer the validator names.
   The same problems, order, count and return value as arbor_gltf_validate. A problem the
   validator rates below an error (an absolute URI: NON_RELATIVE_URI, a warning; a required
   extension arbor does not know: UNSUPPORTED_EXTENSION, an information) keeps its severity even
   when arbor cannot load the file for it. */
ARBOR_API arbor_result arbor_gltf_validate_messages(const char *path, const arbor_gltf_options *options,
                                                    arbor_gltf_message *messages, uint32_t cap, uint32_t *count);

/* arbor_gltf_validate_messages of size bytes in memory, read as arbor_gltf_load_memory reads
   them: .glb when they start with the GLB magic, else JSON; external URIs resolve from base_dir
   (NULL: they are refused, an issue each). A file of these bytes in base_dir gets the same
   messages from arbor_gltf_validate_messages, but where its name ending in .glb made it a GLB
   (here, bytes without the magic are JSON). data may be NULL when size is 0. */
ARBOR_API arbor_result arbor_gltf_validate_memory(const void *data, size_t size, const char *base_dir,
                                                  const arbor_gltf_options *options, arbor_gltf_message *messages,
                                                  uint32_t cap, uint32_t *count);

/* How arbor_gltf_save writes; all zero (or NULL options): the defaults. */
typedef struct arbor_gltf_save_options {
    bool external_images; /* .glb: images with relative URIs stay files beside it (copied there when
                             it is written elsewhere) instead of going into its BIN chunk */
} arbor_gltf_save_options;

/* Writes the scene as .gltf or .glb (by path's extension). With a document, its nodes are
   written in file order without the deleted ones, then the nodes created since (parents
   before children), and every reference to a node is remapped; everything else of the
   document passes through. Children are listed in sibling order, and the chosen scene's roots
   (its own still roots, and every new root) in the scene graph's order of roots, so a reload
   has the same hierarchy in the same order. doc may be NULL (a scene built in code). A .glb stands
   alone: its one BIN chunk holds every buffer that has bytes (its buffer keeps their name,
   extras and extensions; where two differ, the first's, with a warning) and every image with a
   relative URI (each then named by a bufferView and a mimeType; one that cannot be read, or is no PNG, JPEG,
   WebP or KTX2 without a mimeType, stays a URI, with a warning). A .gltf written elsewhere than
   its source writes its buffers beside it, and its images too, so the output stands on its own.
   options NULL: the defaults. A refusal's place in arbor_last_error_info() is the file
   written. */
ARBOR_API arbor_result arbor_gltf_save(arbor_scene *s, const arbor_gltf *doc, const char *path,
                                       const arbor_gltf_save_options *options);

/* Frees the document (not the nodes). NULL is allowed. */
ARBOR_API void arbor_gltf_destroy(arbor_gltf *doc);

/* Nodes of the file and their handles. arbor_gltf_node is ARBOR_NONE for an index out of range
   or a node destroyed since; arbor_gltf_index is -1 for a node not from this file. */
ARBOR_API uint32_t arbor_gltf_node_count(const arbor_gltf *doc);
ARBOR_API arbor_node arbor_gltf_node(const arbor_gltf *doc, uint32_t index);
ARBOR_API int64_t arbor_gltf_index(const arbor_gltf *doc, arbor_node n);

/* Scenes (0-based): their count, the one the load chose (options.scene, or the file's default
   scene; -1 when the file has no scenes), a scene's name (NULL when it has none or the index is
   out of range). */
ARBOR_API uint32_t arbor_gltf_scene_count(const arbor_gltf *doc);
ARBOR_API int32_t arbor_gltf_loaded_scene(const arbor_gltf *doc);
ARBOR_API const char *arbor_gltf_scene_name(const arbor_gltf *doc, uint32_t scene);

/* A scene's roots, written into out (at most cap; out may be NULL when cap is 0); *count gets
   their number, even when cap is smaller. Roots destroyed since the load are left out. A scene
   index out of range is ARBOR_ERR_INVALID_ARGUMENT (*count 0). */
ARBOR_API arbor_result arbor_gltf_scene_roots(const arbor_gltf *doc, uint32_t scene, arbor_node *out, uint32_t cap,
                                              uint32_t *count);

/* How many of each top-level array the document holds. */
typedef struct arbor_gltf_counts {
    uint32_t nodes, scenes, meshes, cameras, lights, skins, animations, accessors, buffers;
} arbor_gltf_counts;
/* Writes the counts of doc into *out. */
ARBOR_API void arbor_gltf_counts_get(const arbor_gltf *doc, arbor_gltf_counts *out);

/* The skin of a node (glTF's node.skin), -1 for none or a node not from this file. */
ARBOR_API int32_t arbor_gltf_node_skin(const arbor_gltf *doc, arbor_node n);

/* A skin: its joints (handles, ARBOR_NONE for destroyed ones) written into joints (at most cap;
   NULL to skip), its skeleton root (ARBOR_NONE when absent; skeleton may be NULL) and its
   inverse bind matrices (16 floats per joint, column-major; identity when the file gives none)
   into ibm (NULL to skip; room for cap matrices); *count gets the joint count, even when cap is
   smaller. A skin index out of range is ARBOR_ERR_INVALID_ARGUMENT (*count 0). */
ARBOR_API arbor_result arbor_gltf_skin(const arbor_gltf *doc, uint32_t skin, arbor_node *joints, float *ibm,
                                       uint32_t cap, arbor_node *skeleton, uint32_t *count);

/* ---- Animations and skins (anim.h) ------------------------------------------------------------ */

/* An animation's name (NULL when it has none or the index is out of range), and the index of the
   first animation named `name` (-1 when none is). */
ARBOR_API const char *arbor_gltf_animation_name(const arbor_gltf *doc, uint32_t animation);
ARBOR_API int32_t arbor_gltf_animation_find(const arbor_gltf *doc, const char *name);

typedef struct arbor_gltf_clip_options {  /* all zero: defaults */
    bool pointer;  /* also the KHR_animation_pointer channels on a node's translation, rotation or
                      scale ("/nodes/N/rotation"); without it they are left out. Other pointers
                      (materials, cameras, lights, weights) are always left out. */
} arbor_gltf_clip_options;

/* A clip of animation `animation`: its targets are the file's node indices (the rig size is the
   node count, target names the node names), its duration what the animation lasts (the largest
   keyframe time of all its samplers), its channels those the load accepted (a lenient load
   leaves out what it warned about; a channel whose data the file does not hold, or that
   arbor_clip_create would refuse, was left out at the load with a warning) and, with
   options.pointer, the node TRS pointer channels (a regular channel on the same node and path
   wins). Morph weights channels are kept, one value per morph target. The
   clip allocates through the document's allocator and does not need the document afterwards.
   Refused: an index out of range (ARBOR_ERR_INVALID_ARGUMENT), no memory. */
ARBOR_API arbor_result arbor_gltf_clip(const arbor_gltf *doc, uint32_t animation,
                                       const arbor_gltf_clip_options *options, arbor_clip **out);

/* Adds to skins every node of the file that has a skin and a mesh, in node index order: the
   node is the mesh, the skin's joints and inverse bind matrices follow. Nodes or joints
   destroyed since the load are left out (their skins with them), and so are skins whose inverse
   bind matrices arbor_skins_add refuses (a lenient load lets a NaN through). *added (may be
   NULL) gets how many were added. Refused: NULL arguments (ARBOR_ERR_INVALID_ARGUMENT), no
   memory (ARBOR_ERR_OUT_OF_MEMORY, and then nothing is added). */
ARBOR_API arbor_result arbor_gltf_add_skins(const arbor_gltf *doc, arbor_skins *skins, uint32_t *added);

/* ---- Levels of detail and animated visibility (instances.h) ------------------------------------ */

/* MSFT_lod groups: how many the file has (one per node with MSFT_lod), and group `group`'s
   levels, most detailed first (the node that holds the extension, then its `ids`), as handles
   (ARBOR_NONE for nodes destroyed since) into levels and their MSFT_screencoverage values into
   coverage (0 where *has_coverage is false: the file gives none), at most cap of each (either
   may be NULL); returns the group's level count (0 for a group out of range). With
   arbor_lod_pick, a renderer draws one level per group. */
ARBOR_API uint32_t arbor_gltf_lod_count(const arbor_gltf *doc);
ARBOR_API uint32_t arbor_gltf_lod_group(const arbor_gltf *doc, uint32_t group, arbor_node *levels, arbor_real *coverage,
                                        uint32_t cap, bool *has_coverage);

/* One level per MSFT_lod group for a camera: the level arbor_lod_pick chooses (view_projection
   as arbor_camera_view_projection gives it) is shown, the group's other levels hidden (all of
   them when none is chosen), so that culling, instancing and drawing take that one level
   (instances.h). Returns the groups where a level is shown. May allocate (a node's first
   hiding). */
ARBOR_API uint32_t arbor_gltf_select_lods(const arbor_gltf *doc, const arbor_real view_projection[16]);

/* Sets the own visibility of the nodes that animation `animation`'s KHR_animation_pointer
   channels on "/nodes/N/extensions/KHR_node_visibility/visible" drive, to their value at `time`
   (STEP: the last keyframe at or before it, the first before the first; loop: time taken modulo
   the animation's duration). Returns how many nodes were written (0 for an index out of range
   or a time that is not finite); destroyed nodes are passed over. */
ARBOR_API uint32_t arbor_gltf_apply_visibility(const arbor_gltf *doc, uint32_t animation, double time, bool loop);

#ifdef __cplusplus
}
#endif
#endif
