/* SPDX-License-Identifier: MIT */
/*
 * arbor: scene graphs in C11. The umbrella header of libarbor: it includes every header of the
 * library. glTF load and save are a library of their own, libarbor-gltf (pkg-config
 * arbor-gltf), with its own header: `#include <arbor/gltf.h>`.
 *
 * - base.h     arbor_real, result codes, the last error, handles, allocator and log hooks, version
 * - math.h     matrices and quaternions on plain arrays (column-major, glTF conventions)
 * - scene.h    scenes, nodes, the hierarchy, world matrices, batch and parallel update, bulk
 *              writes, node visibility, stats
 * - view.h     frames, cameras and lights on nodes
 * - bounds.h   meshes and local bounds on nodes, boxes up the tree, culling, instancing
 * - instances.h a node drawn many times, levels of detail
 * - parallel.h a small thread pool, an executor for the parallel update and bulk writes
 * - pose.h     many nodes posed in place and brought up to date in one pass
 * - edit.h     the journal (undo, redo, groups), clones, foreign parents, change lists
 * - anim.h     keyframe clips playing on nodes, blends, joint matrices of skins
 *
 * The rules every part keeps (docs/guide.md shows them at work):
 *
 * - Names: arbor_<object>_<verb> for functions, arbor_<object> for types, ARBOR_ for macros and
 *   constants. A name says what a thing is: no verb of a lifetime (create, destroy) names
 *   anything else.
 * - Getters are named by what they give, arbor_<object>_<what>, the name their setter has after
 *   set_: arbor_node_trs (arbor_node_set_trs), arbor_node_camera, arbor_node_bounds,
 *   arbor_node_instance, arbor_node_local_matrix, arbor_node_world_matrix. A yes-or-no read is
 *   named as the question and returns bool: arbor_node_alive, arbor_node_visible,
 *   arbor_node_is_locked, arbor_node_has_foreign_parent. No getter says get, but where C would
 *   give a function the name of the struct it fills: arbor_X_stats_get and
 *   arbor_gltf_counts_get fill an arbor_X_stats and an arbor_gltf_counts.
 * - Arguments: the object first (the scene, journal, pose, player, clip, skins, document), then
 *   the node or nodes, then what the call reads, then what it writes (out-pointers, lists),
 *   then an executor. A count comes right after the array, or the arrays of one length read
 *   together, that it counts: (nodes, values, count) in arbor_scene_set_translations and
 *   arbor_lod_pick, (nodes, count) in arbor_scene_instance_batches and arbor_pose_create; a list
 *   written is (out, cap) followed by its count's out-parameter. math.h alone puts out first,
 *   as C's memcpy and cglm do.
 * - Const: a read takes its object const, unless it may bring up to date what the scene keeps
 *   lazily (world matrices and versions, boxes, instance matrices, effective visibility, the
 *   instancing table): arbor_node_world_matrix, arbor_node_world_bounds, arbor_scene_cull,
 *   arbor_node_effectively_visible take a non-const scene, arbor_node_local_matrix and
 *   arbor_node_trs a const one.
 * - Order of checks: a read refuses a NULL out-pointer before it looks at the node
 *   (ARBOR_ERR_INVALID_ARGUMENT whatever the handle); a write looks at the node first (dead:
 *   ARBOR_ERR_DEAD_NODE, locked: ARBOR_ERR_LOCKED), then at what it is given. A refusal reports
 *   the first check that fails.
 * - Objects: every object is made by a constructor that returns an arbor_result and hands the
 *   new object out through its last parameter, `arbor_result arbor_X_create(<inputs>, arbor_X
 *   **out)`, and is ended by `void arbor_X_destroy(arbor_X *)`, which accepts NULL. (Scenes,
 *   pools, journals, clips, players, skins; a glTF document is made by arbor_gltf_load or
 *   arbor_gltf_load_memory, which say where it comes from, and a clip may also come from
 *   arbor_gltf_clip.) A refused constructor leaves *out untouched. An object made for a scene
 *   (journal, pose, player, skins, glTF document) and its scene may be destroyed in either order:
 *   the scene's destroy leaves it inert (every call of it that returns an arbor_result is then
 *   ARBOR_ERR_INVALID_ARGUMENT) and its own destroy frees it.
 * - Errors: every fallible call returns an arbor_result (ARBOR_OK is 0) and a failed call makes
 *   no observable change (stats counters aside). The one channel for the details, glTF
 *   included, is the calling thread's last error: arbor_last_error() gives the message (the
 *   function, the place and what was wrong) and arbor_last_error_info() the same in parts (the
 *   code, the file, a JSON pointer, the line and column where they exist). A call that succeeds
 *   leaves the last error as it was.
 * - Nodes in messages are named as users know them: by their path of names from their root,
 *   quoted ('base/joint/arm', the path arbor_scene_find takes); an unnamed node on the path
 *   shows as [i], its place among its siblings (0-based; roots among the roots); a long path
 *   keeps its end after ".../"; a node loaded from a glTF file also gives its index in the file
 *   while its document lives ('root/arm' (#3)). glTF messages name a file's nodes by their index in the file (node 3,
 *   /nodes/3). A handle's id and generation never appear.
 * - Queries: a read whose answer is a value it writes through out-pointers (a matrix, a TRS, a
 *   box, a camera) returns an arbor_result (a NULL pointer, a dead handle, an index out of
 *   range are refused), never a bool (lists: below). Where having nothing is an answer it is
 *   ARBOR_OK with the empty value (arbor_node_bounds and arbor_node_world_bounds of a node
 *   without bounds: min = +inf, max = -inf), and where it is not, a refusal (arbor_node_camera
 *   of a node without one). A query that can be refused gives
 *   its count through an out-parameter (arbor_scene_cull, arbor_gltf_scene_roots,
 *   arbor_gltf_skin), so "none" and "refused" never look alike. Plain reads of one node that
 *   return their answer (its parent, name, depth, children, mesh) answer a neutral value for a
 *   dead handle (ARBOR_NONE, NULL, 0, -1, false), as each says. The pure functions of math.h
 *   touch no object and keep no last error: the two that can reject their input
 *   (arbor_mat4_decompose, arbor_mat4_invert_affine) return bool.
 * - Lists written into caller arrays: every array arbor writes a list of unknown length into
 *   comes with its capacity, (out, cap), and the whole count comes back even when cap is
 *   smaller (through a count out-parameter after cap, or as the return value of a read that
 *   cannot be refused); the entries below cap are written, each in its place in the whole list,
 *   and nothing past them, so a caller grows its array and calls again (cap 0 with a NULL array
 *   asks for the count alone): arbor_scene_cull, arbor_scene_instance_batches (two lists, each
 *   with its own cap and count), arbor_clip_rig_by_names, arbor_scene_changed. Where the length
 *   is known before the call from a count of its own (arbor_skins_compute's
 *   arbor_skins_joint_total, arbor_player_sample's rig size), a smaller cap is refused with
 *   nothing written instead. Arrays of a length the caller gives (the out of
 *   arbor_scene_create_nodes, count handles) or fixed (a matrix's 16 values) take no cap.
 * - Stats: `void arbor_X_stats_get(const arbor_X *, arbor_X_stats *out)` overwrites *out
 *   (arbor_scene_stats_get, arbor_journal_stats_get); counters that can be reset have
 *   arbor_X_stats_reset.
 * - Descriptions: a struct arbor_X_desc, all zero for the defaults, passed by pointer (NULL is
 *   all defaults). A field that cannot be partly given is refused when it is (a node's scale:
 *   `.scale = {2}` is refused, not read as (2, 0, 0)). Where zero is a value as well as the
 *   default, a flag beside it says that it is given (glTF load options: `.use_scene = true`
 *   with `.scene = 0` chooses scene 0; all zero, the file's default scene).
 * - Indices are 0-based everywhere, glTF scenes included (ARBOR_GLTF_DEFAULT_SCENE stands for a
 *   file's default scene).
 * - Threads: a scene is used by one thread at a time, except for the reads after an update
 *   (scene.h); separate scenes are independent. arbor starts threads only in arbor_pool_create.
 * - Memory comes through the scene's allocator (or the one a desc gives).
 * - Versions: a 1.y release adds names and changes none; a name that breaks these rules, or a
 *   function whose parameters must change, gets a new name that keeps them, and the old one
 *   stays exported and working, declared with ARBOR_DEPRECATED (base.h) at the end of its
 *   header. docs/MIGRATING.md lists each, old -> new and why.
 */
#ifndef ARBOR_ARBOR_H
#define ARBOR_ARBOR_H
#include "arbor/base.h"
#include "arbor/math.h"
#include "arbor/scene.h"
#include "arbor/view.h"
#include "arbor/bounds.h"
#include "arbor/instances.h"
#include "arbor/parallel.h"
#include "arbor/pose.h"
#include "arbor/edit.h"
#include "arbor/anim.h"
#include "arbor/time.h"
#endif
