/* SPDX-License-Identifier: MIT */
/*
 * arbor/pose.h: many nodes posed at once, written in place and brought up to date in one pass.
 *
 * A pose is a set of nodes fixed when it is made: a character's joints, a crowd, every node of
 * a scene. It holds one arbor_trs per node, in the order the scene stores those nodes when the
 * pose is made (parents before children in a scene built parents first). The caller writes
 * them in place, any way it likes, then one call, arbor_pose_apply, checks them, stores them in
 * the scene and computes the nodes' world matrices, composing each local and multiplying it by
 * its parent's world matrix in one pass over memory: no call and no lookup per node.
 *
 * What the scene shows afterwards is what arbor_node_set_trs on every node of the pose, in
 * order, followed by arbor_node_world_matrix on every one of them would have left, bit for
 * bit: TRS (rotations normalised the same way), world matrices, local matrices, versions
 * (every pose node gets a new one), change lists (the same nodes; those the apply computed
 * listed in storage order), boxes, culling, instance buffers and joint matrices, the
 * journal's undo and redo (pose writes are not recorded, as per-node writes are not). Nodes
 * below the pose that are not in it are out of date until the next update or read, as after
 * any write.
 *
 * Checks: every value is tested before anything is written (one vectorised pass over the
 * arrays: about a tenth of the apply's time on a large pose), so a NaN or infinity
 * (ARBOR_ERR_NONFINITE), an all-zero rotation (ARBOR_ERR_INVALID_ARGUMENT), a node locked
 * since (ARBOR_ERR_LOCKED) or destroyed since (ARBOR_ERR_DEAD_NODE) is refused and changes
 * nothing; arbor_last_error() names the pose index and the node.
 *
 * The pose follows the scene: when the tree changes (nodes made, destroyed, reparented, or the
 * storage renumbered by an update), the next apply finds its nodes again (O(n log n) once).
 * The index order stays the one of creation; remake the pose to get the new storage order
 * back (the apply is fastest when its order is the storage order). A pose whose node was
 * destroyed is refused until that node comes back (undo) or the pose is remade.
 *
 * The fast pass needs what a scene built parents first has: slots in tree order, no node of
 * the pose below a node outside it that is itself below a pose node, no foreign parent. Other
 * poses apply the same values node by node (the same results, slower).
 *
 * Example: a crowd of characters, every joint posed each frame.
 *     arbor_pose *pose;
 *     arbor_pose_create(scene, joints, joint_count, &pose);   // once
 *     const arbor_node *order = arbor_pose_nodes(pose);     // which node each entry is
 *     for (;;) {                                            // every frame
 *         arbor_trs *trs = arbor_pose_trs(pose);            // holds the current TRS
 *         for (uint32_t i = 0; i < arbor_pose_count(pose); i++)
 *             my_sample(order[i], time, trs[i].rotation);  // write in place
 *         arbor_pose_apply(pose, NULL);                     // world matrices of the joints
 *         arbor_scene_update(scene);                        // anything else (meshes below)
 *     }
 *     arbor_pose_destroy(pose);
 * With a pose of every node (nodes NULL), the update after the apply has nothing left to do.
 */
#ifndef ARBOR_POSE_H
#define ARBOR_POSE_H

#include "arbor/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct arbor_pose arbor_pose;

/* A pose of `count` nodes of s (no node twice), or of every live node when nodes is NULL
   (count ignored). Its entries are the nodes in the scene's storage order, whatever the order
   given (arbor_pose_nodes says which node each entry is), and start as the nodes' current TRS.
   Refused, nothing made: a dead or NONE node (ARBOR_ERR_DEAD_NODE /
   ARBOR_ERR_INVALID_ARGUMENT), a node given twice (ARBOR_ERR_INVALID_ARGUMENT), no memory.
   Allocates through the scene's allocator.
   Destroying it and its scene in either order is safe: the scene's destroy leaves it inert
   (every call of it that returns an arbor_result is refused with ARBOR_ERR_INVALID_ARGUMENT, "its
   scene was destroyed"; the others answer from what it holds) and its own destroy frees it. */
ARBOR_API arbor_result arbor_pose_create(arbor_scene *s, const arbor_node *nodes, uint32_t count, arbor_pose **out);
ARBOR_API void arbor_pose_destroy(arbor_pose *pose);   /* NULL is allowed */

/* How many nodes; node i of the pose (arbor_pose_trs(pose)[i] is its TRS), in the storage
   order of the pose's creation. */
ARBOR_API uint32_t arbor_pose_count(const arbor_pose *pose);
ARBOR_API const arbor_node *arbor_pose_nodes(const arbor_pose *pose);

/* The pose's TRS, count of them, for the caller to write in place; valid until the pose is
   destroyed. Rotations need not be unit (they are normalised as they are stored). */
ARBOR_API arbor_trs *arbor_pose_trs(arbor_pose *pose);

/* Reads the nodes' current TRS into the pose's entries (after per-node writes, an undo, a
   refused apply). Refused, and allocates, as apply does for a node destroyed since and after
   a change of the tree. */
ARBOR_API arbor_result arbor_pose_read(arbor_pose *pose);

/* Checks the entries, stores them as the nodes' TRS and computes the nodes' world matrices
   (see above), the work shared out on the executor when it pays (NULL: this thread; the same
   bits and versions for any number of threads): independent subtrees side by side, or one big
   tree in ranges of storage when the storage is in tree order (arbor_scene_update_parallel),
   otherwise its locals composed in parallel, then multiplied in order: for a pose of
   consecutive slots (a pose of every node) in blocks the tasks take in order, a node waiting
   for a parent in a block still under way. Allocates only when the
   tree changed since the last apply or read (ARBOR_ERR_OUT_OF_MEMORY then, nothing changed):
   the pose finds its nodes again, growing its lists when the tree needs longer ones, and,
   once a renumbering of the storage (scene.h's stats.relayouts) put its nodes out of the
   order they had at its creation, taking and freeing a block of 8 bytes a node to sort them
   each time. A pose whose nodes the renumberings kept in order allocates nothing once warm. */
ARBOR_API arbor_result arbor_pose_apply(arbor_pose *pose, const arbor_executor *executor);

#ifdef __cplusplus
}
#endif
#endif
