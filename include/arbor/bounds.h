/* SPDX-License-Identifier: MIT */
/*
 * arbor/bounds.h: what a node carries for a renderer (a mesh index and its local bounds), the
 * boxes up the tree, hierarchical culling and instancing.
 *
 * The mesh index is the caller's (glTF's mesh index when loaded from a file); arbor never
 * dereferences it. The bounds are an axis-aligned box in the node's own frame around what it
 * carries (glTF meshes get the POSITION accessors' min and max at load).
 * Setting either changes no transform or version.
 *
 * Boxes in world space are axis-aligned and always current, like world matrices: a node's
 * world box is its local box's eight corners through its world matrix, min and max; a
 * subtree's box is the union of the world boxes in it. Subtree boxes are kept and recomputed
 * lazily: after an edit (a transform, a link, a box), the next query recomputes the boxes of
 * the edited subtree and of its ancestors only. A scene that never sets bounds never stores
 * any; one that does keeps a subtree box per node from its first subtree query on.
 *
 * Culling a frame:
 *     arbor_real vp[16], planes[24];
 *     arbor_camera_view_projection(s, camera, 16.0f / 9, vp);
 *     arbor_frustum_planes(vp, planes);
 *     arbor_cull_stats stats;
 *     uint32_t n;
 *     arbor_scene_cull(s, planes, 6, visible, cap, &n, &stats);
 *     uint32_t matrix_count, batch_count;
 *     arbor_scene_instance_batches(s, visible, n < cap ? n : cap, ARBOR_LAYOUT_MAT3X4, matrices,
 *                                  matrix_cap, &matrix_count, batches, batch_cap, &batch_count);
 */
#ifndef ARBOR_BOUNDS_H
#define ARBOR_BOUNDS_H

#include "arbor/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the node's mesh index; -1 removes it; other negative values are
   ARBOR_ERR_INVALID_ARGUMENT. May allocate. */
ARBOR_API arbor_result arbor_node_set_mesh(arbor_scene *s, arbor_node n, int32_t mesh);

/* The node's mesh index; -1 when it has none or is dead. */
ARBOR_API int32_t arbor_node_mesh(const arbor_scene *s, arbor_node n);

/* Sets the node's local box; NULL min and max remove it. min > max on any axis is
   ARBOR_ERR_INVALID_ARGUMENT, a NaN or infinity ARBOR_ERR_NONFINITE, only one of them NULL
   ARBOR_ERR_INVALID_ARGUMENT. May allocate. */
ARBOR_API arbor_result arbor_node_set_bounds(arbor_scene *s, arbor_node n, const arbor_real min[3], const arbor_real max[3]);

/* The node's local box, as arbor_node_set_bounds gave it. No bounds: min = +inf, max = -inf
   (ARBOR_OK), as arbor_node_world_bounds answers (min[0] > max[0] then: a box given has
   min <= max). */
ARBOR_API arbor_result arbor_node_bounds(const arbor_scene *s, arbor_node n, arbor_real min[3], arbor_real max[3]);


/* ---- Boxes up the tree ------------------------------------------------------------------------ */

/* The node's own box in world space: its local box's corners through its world matrix, min
   and max. No bounds: min = +inf, max = -inf (ARBOR_OK). */
ARBOR_API arbor_result arbor_node_world_bounds(arbor_scene *s, arbor_node n, arbor_real min[3], arbor_real max[3]);

/* The world box of the node's subtree: the union of the world boxes of the node and of every
   descendant. None with bounds: min = +inf, max = -inf. Recomputes only what changed since the
   last subtree query; ARBOR_ERR_OUT_OF_MEMORY when the scene's first such query cannot
   allocate its table. */
ARBOR_API arbor_result arbor_node_subtree_bounds(arbor_scene *s, arbor_node n, arbor_real min[3], arbor_real max[3]);

/* The subtree box's bounding sphere: its centre and half-diagonal (looser than the box, cheaper
   to test). None with bounds: centre (0, 0, 0), radius -1. Fails as arbor_node_subtree_bounds. */
ARBOR_API arbor_result arbor_node_subtree_sphere(arbor_scene *s, arbor_node n, arbor_real center[3], arbor_real *radius);

/* ---- Hierarchical culling ----------------------------------------------------------------- */

typedef struct arbor_cull_stats {
    uint32_t box_tests;  /* box-against-all-planes tests */
    uint32_t visible;    /* nodes with bounds found visible (as *count) */
} arbor_cull_stats;

/* The nodes with bounds whose world box is not outside the planes, written to out (the first
   cap of them) in depth-first pre-order over the roots in order; *count gets how many there
   are, even when more than cap (0 when none is visible). planes: plane_count planes of 4 values (a, b, c, d), each keeping
   a x + b y + c z + d >= 0 (arbor_frustum_planes gives a frustum's six).

   The tree is the hierarchy: a subtree's box is tested first. Outside any plane rejects the
   whole subtree, inside all accepts every node with bounds in it, with no further test either
   way. A straddling subtree is opened: the node's own box is tested (if it has one), then each
   child's subtree in order. A node with no bounded descendants is decided by its subtree test
   alone (a leaf is tested once); what has no bounds costs no test. A box that straddles counts
   as visible. The visible set is exactly that of testing every node's world box on its own.
   Hidden nodes and their subtrees are left out, and a node with instances is seen when one of
   its instances is (its box straddling: tested one by one; instances.h).
   *stats (may be NULL) is overwritten: box_tests counts box-against-planes tests.

   Refused, with *count 0 and nothing written: a NULL scene or count, NULL planes with
   plane_count > 0 or NULL out with cap > 0 (ARBOR_ERR_INVALID_ARGUMENT), a NaN or infinity in
   the planes (ARBOR_ERR_NONFINITE), no memory for the scene's first subtree table
   (ARBOR_ERR_OUT_OF_MEMORY). Not one of the reads that may run on many threads at once: it
   brings subtree boxes up to date. */
ARBOR_API arbor_result arbor_scene_cull(arbor_scene *s, const arbor_real *planes, uint32_t plane_count, arbor_node *out,
                                        uint32_t cap, uint32_t *count, arbor_cull_stats *stats);

/* The six planes of the frustum of a view-projection matrix (OpenGL clip space, as
   arbor_camera_view_projection gives): left, right, bottom, top, near, far, each (a, b, c, d)
   keeping a x + b y + c z + d >= 0 inside, normalised so (a, b, c) is a unit normal and the
   value is a distance. A plane at infinity (an infinite perspective's far) comes out as
   (0, 0, 0, 1), which keeps everything. */
ARBOR_API void arbor_frustum_planes(const arbor_real view_projection[16], arbor_real planes[24]);

/* ---- Instancing ---------------------------------------------------------------------------------- */

typedef enum arbor_matrix_layout {
    ARBOR_LAYOUT_MAT4,    /* 16 floats, column-major (glTF, OpenGL) */
    ARBOR_LAYOUT_MAT3X4   /* 12 floats: the first three rows, row-major (GPU instance buffers) */
} arbor_matrix_layout;

typedef struct arbor_instance_batch {
    int32_t mesh;        /* the nodes' mesh index */
    bool mirrored;       /* world determinant < 0: draw with the winding flipped */
    uint32_t first;      /* index of the batch's first instance in matrices */
    uint32_t count;      /* instances */
} arbor_instance_batch;

/* The world matrices of the nodes (a visible list, say) that carry a mesh, as floats ready for
   a GPU instance buffer, grouped by (mesh, mirrored): one batch per group, batches in order of
   their first node in `nodes`, nodes in input order inside a batch, the batches' instances one
   after another in the list of matrices (first and count are instance indices). Mirrored
   nodes get batches of their own (their triangles' winding is reversed). Nodes without a mesh,
   or hidden (themselves or an ancestor), are skipped; a node with instances (instances.h) gives
   one matrix per instance, in instance order, each batched by its own determinant; a node
   listed twice is drawn twice.
   Two lists into caller arrays, each (out, cap, &count): matrices holds matrix_cap matrices of
   16 (MAT4) or 12 (MAT3X4) floats, batches batch_cap batches. *matrix_count and *batch_count
   get the whole counts even when a cap is smaller; then only the matrices and batches whose
   index is below its cap are written (each in its place in the whole list) and nothing past
   the caps: compare the counts with the caps, and call again with larger arrays when either
   did not fit (caps 0 and NULL arrays ask for the counts alone).
   Refused, with nothing written: a NULL scene, matrix_count or batch_count, NULL nodes with
   count > 0, NULL matrices with matrix_cap > 0 or NULL batches with batch_cap > 0, an unknown
   layout (ARBOR_ERR_INVALID_ARGUMENT); a dead or ARBOR_NONE node in the list
   (ARBOR_ERR_DEAD_NODE, ARBOR_ERR_INVALID_ARGUMENT); no memory for the grouping table the
   scene keeps between calls (ARBOR_ERR_OUT_OF_MEMORY; it only grows while the number of groups
   does). */
ARBOR_API arbor_result arbor_scene_instance_batches(arbor_scene *s, const arbor_node *nodes, uint32_t count,
                                                    arbor_matrix_layout layout, float *matrices, uint32_t matrix_cap,
                                                    uint32_t *matrix_count, arbor_instance_batch *batches,
                                                    uint32_t batch_cap, uint32_t *batch_count);

/* ---- 1.0 names (docs/MIGRATING.md) ------------------------------------------------------------ */

/* arbor_scene_instance_batches without a capacity for the matrices: matrices must hold a
   matrix (16 or 12 floats) for every listed node that carries a mesh and is not hidden, and
   one for each instance of such a node with instances -- the *matrix_count
   arbor_scene_instance_batches reports (at most the sum over the listed nodes of their
   instance count, or 1 for a node without instances). A smaller array is overrun. More
   batches than batch_cap is refused (ARBOR_ERR_INVALID_ARGUMENT, nothing written, with
   *batch_count set to the number needed), and so is NULL matrices with matrices to write. */
ARBOR_API arbor_result arbor_scene_gather_instances(arbor_scene *s, const arbor_node *nodes, uint32_t count,
                                                    arbor_matrix_layout layout, float *matrices,
                                                    arbor_instance_batch *batches, uint32_t batch_cap,
                                                    uint32_t *batch_count)
    ARBOR_DEPRECATED("arbor_scene_instance_batches");

/* arbor_node_bounds answering bool: true when the node has a local box; false (min = +inf,
   max = -inf) when it has none or is dead, and for NULL arguments (nothing written then). */
ARBOR_API bool arbor_node_local_bounds(const arbor_scene *s, arbor_node n, arbor_real min[3], arbor_real max[3])
    ARBOR_DEPRECATED("arbor_node_bounds");

#ifdef __cplusplus
}
#endif
#endif
