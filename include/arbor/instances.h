/* SPDX-License-Identifier: MIT */
/*
 * arbor/instances.h: a node drawn many times (glTF's EXT_mesh_gpu_instancing), its own
 * visibility and its ancestors' (KHR_node_visibility), and levels of detail (MSFT_lod).
 *
 * Instances. A node may carry instances: each has its own TRS (L_i = T * R * S, written in the
 * node's frame) and is drawn at W_node * L_i; the node's mesh is drawn at its instances only.
 * Instance world matrices are kept current by the node's world matrix tracking: a read after
 * the node, an ancestor or the instance moved computes them again (the node's instances
 * together, or only those written since), otherwise it costs O(1). The node's own world box
 * (bounds.h) is then the union of its local box through every instance's world matrix, so
 * subtree boxes and culling include every instance; arbor_scene_cull tests a node's instances
 * as a group (its own box), then one by one while the group straddles; instancing
 * (arbor_scene_instance_batches) writes one matrix per instance, in instance order.
 *
 * Visibility (declared in scene.h, the scene keeps it). Every node is visible unless hidden
 * with arbor_node_set_visible; a node is drawn
 * only when it and all its ancestors are visible (its effective visibility). The effective
 * visibility is cached per node and answered in O(1) when no visibility and no link changed
 * since; after a change, the first answer climbs to the nearest node whose answer is still
 * known (at most the node's depth). arbor_scene_cull, arbor_scene_instance_batches and the CLI's
 * `render` leave hidden nodes and their subtrees out. A scene that hides no node pays nothing.
 *
 * Levels of detail. A group lists its levels, the most detailed first, and for each the least
 * screen coverage at which it is drawn: arbor_lod_pick chooses the level for a camera. Hiding
 * the other levels (gltf.h's arbor_gltf_select_lods does it for a file's MSFT_lod groups) makes
 * culling and instancing take one level per group.
 *
 * Typical use:
 *     arbor_trs grid[2] = { { .rotation = {0, 0, 0, 1}, .scale = {1, 1, 1} },
 *                           { .translation = {2, 0, 0}, .rotation = {0, 0, 0, 1}, .scale = {1, 1, 1} } };
 *     arbor_node_set_instances(s, tree, grid, 2);
 *     arbor_real w[16];
 *     arbor_node_instance_world_matrix(s, tree, 1, w);
 *     arbor_node_set_visible(s, tree, false);   // the tree and everything under it is hidden
 */
#ifndef ARBOR_INSTANCES_H
#define ARBOR_INSTANCES_H

#include "arbor/bounds.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Instances ----------------------------------------------------------------------------- */

/* Gives the node `count` instances with these TRS (copied as given, rotations normalised as
   arbor_node_set_trs does); count 0 removes them (instances may then be NULL).
   Refused with nothing changed: a dead node, NULL instances with count > 0
   (ARBOR_ERR_INVALID_ARGUMENT), a NaN or infinity (ARBOR_ERR_NONFINITE), an all-zero rotation
   (ARBOR_ERR_INVALID_ARGUMENT), no memory. May allocate. Changes no version. */
ARBOR_API arbor_result arbor_node_set_instances(arbor_scene *s, arbor_node n, const arbor_trs *instances, uint32_t count);

/* The node's instance count; 0 when it has none or is dead. */
ARBOR_API uint32_t arbor_node_instance_count(const arbor_scene *s, arbor_node n);

/* Instance i's TRS. ARBOR_ERR_INVALID_ARGUMENT for i out of range. */
ARBOR_API arbor_result arbor_node_instance(const arbor_scene *s, arbor_node n, uint32_t i, arbor_trs *out);

/* Writes instance i's TRS (rotation normalised), O(1), without
   allocating; refused as set_instances, and for i out of range. */
ARBOR_API arbor_result arbor_node_set_instance(arbor_scene *s, arbor_node n, uint32_t i, const arbor_trs *trs);

/* Instance i's world matrix W_node * T_i * R_i * S_i as the scene stands now (16 values,
   column-major). Computes what is out of date (the node's world matrix, then its instances
   written or moved since); allocates nothing. ARBOR_ERR_INVALID_ARGUMENT for i out of range. */
ARBOR_API arbor_result arbor_node_instance_world_matrix(arbor_scene *s, arbor_node n, uint32_t i, arbor_real out[16]);

/* The world matrices of instances [first, first + cap) into out (16 values each), as above;
   *count is the node's instance count, however many were written. Refused: a dead node, NULL
   count, NULL out with cap > 0 (ARBOR_ERR_INVALID_ARGUMENT). */
ARBOR_API arbor_result arbor_node_instance_world_matrices(arbor_scene *s, arbor_node n, uint32_t first, arbor_real *out,
                                                          uint32_t cap, uint32_t *count);

/* The indices of the node's instances whose world box (its local box through the instance's
   world matrix) is not outside the planes (as arbor_scene_cull takes them), in order, the first
   cap of them in out; *count is how many there are. The instances are tested as a group first
   (the node's own world box): outside rejects them all and inside accepts them all, with no
   further test; a straddling group is opened and each instance tested. A node that is hidden
   (itself or an ancestor), has no bounds or no instances has none. *stats (may be NULL) counts
   the box tests. Refused as arbor_scene_cull (NULL count or planes, NaN planes) and for a dead
   node. Allocates nothing. */
ARBOR_API arbor_result arbor_node_cull_instances(arbor_scene *s, arbor_node n, const arbor_real *planes,
                                                 uint32_t plane_count, uint32_t *out, uint32_t cap, uint32_t *count,
                                                 arbor_cull_stats *stats);

/* Nodes of the scene that carry instances, and their instances in all (O(nodes)). */
ARBOR_API uint32_t arbor_scene_instanced_count(const arbor_scene *s, uint64_t *instances);

/* ---- Levels of detail ------------------------------------------------------------------------ */

/* The screen coverage of the node's subtree for a camera: the height of its bounding sphere
   (arbor_node_subtree_sphere) projected by view_projection (arbor_camera_view_projection, OpenGL
   clip space) as a share of the viewport's height, clamped to [0, 1] (1 when the camera is
   inside the sphere); -1 when nothing in the subtree has bounds or the node is dead. */
ARBOR_API arbor_real arbor_node_screen_coverage(arbor_scene *s, arbor_node n, const arbor_real view_projection[16]);

/* The level to draw of a group of `count` levels, most detailed first, coverage[i] the least
   screen coverage at which level i is drawn (decreasing): the first level whose value the
   coverage reaches; -1 when it is below the last value (nothing is drawn). coverage NULL: level
   0 always. The group's coverage is that of levels[0] (arbor_node_screen_coverage); levels
   whose node is dead are passed over. -1 also for count 0 or when levels[0] is dead. */
ARBOR_API int32_t arbor_lod_pick(arbor_scene *s, const arbor_node *levels, const arbor_real *coverage, uint32_t count,
                                 const arbor_real view_projection[16]);

/* ---- 1.0 names (docs/MIGRATING.md) ------------------------------------------------------------ */

/* arbor_node_instance, under the name of 1.0. */
ARBOR_API arbor_result arbor_node_get_instance(const arbor_scene *s, arbor_node n, uint32_t i, arbor_trs *out)
    ARBOR_DEPRECATED("arbor_node_instance");

#ifdef __cplusplus
}
#endif
#endif
