/*
 * arbor/bounds.h: what a node carries for a renderer: a mesh index and its local bounds.
 *
 * The mesh index is the caller's (glTF's mesh index when loaded from a file); arbor never
 * dereferences it. The bounds are an axis-aligned box in the node's own frame around what it
 * carries (glTF meshes get the POSITION accessors' min and max at load).
 * Setting either changes no transform or version.
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

/* The node's local box; false (min = +inf, max = -inf) when it has none or is dead. */
ARBOR_API bool arbor_node_local_bounds(const arbor_scene *s, arbor_node n, arbor_real min[3], arbor_real max[3]);

#ifdef __cplusplus
}
#endif
#endif
