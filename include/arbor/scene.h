/* SPDX-License-Identifier: MIT */
/*
 * arbor/scene.h: scenes, nodes, the hierarchy and world matrices.
 *
 * A scene holds a forest of nodes. Each node has a local transform written in its parent's
 * frame, either TRS (L = T * R * S) or a matrix ("matrix-backed", optionally locked as glTF
 * `matrix` nodes are). Its world matrix is W = W_parent * L (W = L for a root).
 *
 * World matrices are always right and cheap:
 * - arbor_node_world_matrix() answers for the scene as it stands now, with or without an
 *   update: it composes only the node and its out-of-date ancestors, nothing when nothing
 *   changed (O(1)).
 * - arbor_scene_update() brings every world matrix up to date in one batch whose cost follows
 *   what changed since the last update (zero for a static scene).
 * - A write records the change in O(1) and pushes invalidation down only through nodes that
 *   are still current, so writing one node many times costs O(1) per write after the first.
 * - Nothing caches local matrices: each world matrix computed for a TRS-driven node composes
 *   its local from the TRS again, so an ancestor's move composes the locals below it too
 *   (stats.local_composed counts them): composing from the 10 numbers of a TRS costs less than
 *   keeping 12 more a node up to date and reading them, where the bytes touched bound the
 *   update. A local set as a matrix that no TRS gives bit for bit (a shear)
 *   is kept, and used as it is.
 *   Writes, reads and updates allocate nothing once storage has grown to the node count.
 * - The same world matrix comes out, bit for bit, whatever path computed it.
 * - Versions: arbor_node_world_version() changes whenever the node's world matrix may have
 *   changed, and only then.
 *
 * Threads: a scene is used by one thread at a time, except that after arbor_scene_update()
 * and until the next write, the read functions (those taking a const scene, plus
 * arbor_node_world_matrix, arbor_scene_world_matrices and arbor_node_world_version) change nothing and may run on many
 * threads at once. Separate scenes are independent.
 *
 * Walks never recurse and are bounded: upward by the scene's max_depth, down and across by
 * the node count. A link that would make a ring or exceed max_depth is refused when made.
 *
 * Typical use:
 *     arbor_scene *s;
 *     arbor_scene_create(NULL, &s);
 *     arbor_node base, arm;
 *     arbor_node_create(s, &(arbor_node_desc){ .name = "base", .translation = {0, 0.2f, 0} }, &base);
 *     arbor_node_create(s, &(arbor_node_desc){ .name = "arm", .parent = base,
 *                                              .translation = {0, 0.7f, 0} }, &arm);
 *     arbor_real w[16];
 *     arbor_node_world_matrix(s, arm, w);
 *     arbor_scene_destroy(s);
 */
#ifndef ARBOR_SCENE_H
#define ARBOR_SCENE_H

#include "arbor/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Scene ------------------------------------------------------------------------------ */

typedef struct arbor_scene arbor_scene;

/* Default and greatest node depth when arbor_scene_desc.max_depth is zero (a root is 0). */
#define ARBOR_DEFAULT_MAX_DEPTH (1u << 20)

typedef struct arbor_scene_desc {  /* all zero: defaults */
    arbor_allocator allocator;     /* all zero: malloc, realloc, free */
    arbor_log_fn log;              /* zero: warnings go to stderr, errors are only returned */
    void *log_user;
    uint32_t initial_capacity;     /* nodes to reserve storage for up front: no regrowth while
                                      building, and on Linux large arrays on huge pages */
    uint32_t max_depth;            /* zero: ARBOR_DEFAULT_MAX_DEPTH; at most UINT32_MAX - 1 */
    /* 1.1 (arbor/time.h): the fields above are those of 1.0, which a program built with 1.0
       passes to the 1.0 symbol arbor_scene_create; a program built now calls
       arbor_scene_create_1_1 (the macro below), which reads these too. */
    double history_duration;       /* seconds of samples a node keeps; zero: 10 (as tf2) */
    uint32_t history_capacity;     /* samples a node keeps at most; zero: no count limit */
} arbor_scene_desc;

/* A new empty scene in *out. desc may be NULL (all defaults). Refused, *out untouched: an
   allocator half given, alloc without free or the reverse (ARBOR_ERR_INVALID_ARGUMENT); no
   memory (ARBOR_ERR_OUT_OF_MEMORY). */
ARBOR_API arbor_result arbor_scene_create(const arbor_scene_desc *desc, arbor_scene **out);
/* arbor_scene_create reading the whole desc of 1.1 (history_duration, history_capacity; a
   negative, NaN or infinite duration is ARBOR_ERR_INVALID_ARGUMENT): what a call of
   arbor_scene_create compiled now calls, through the macro below. */
ARBOR_API arbor_result arbor_scene_create_1_1(const arbor_scene_desc *desc, arbor_scene **out);
#define arbor_scene_create arbor_scene_create_1_1

/* Frees the scene and everything it holds. NULL is allowed. */
ARBOR_API void arbor_scene_destroy(arbor_scene *scene);

/* Makes every world matrix current. Cost ~ the nodes whose world matrix changed since the last
   update (or were read lazily since); zero for a static scene. Allocates nothing. */
ARBOR_API void arbor_scene_update(arbor_scene *scene);

/* Live nodes. */
ARBOR_API uint32_t arbor_scene_node_count(const arbor_scene *scene);

/* The scene's depth limit (max_depth of its desc, or the default). */
ARBOR_API uint32_t arbor_scene_max_depth(const arbor_scene *scene);

typedef struct arbor_scene_stats {
    uint64_t local_composed;   /* local matrices composed from a TRS to compute a world matrix:
                                  one a world matrix of a TRS-driven node, on every path
                                  (nothing caches locals); none for a node whose local is a kept
                                  matrix, nor for arbor_node_local_matrix's reads */
    uint64_t world_composed;   /* world matrices computed (products, or root copies) */
    uint64_t invalidated;      /* nodes whose world matrix was marked out of date */
    uint64_t allocations;      /* allocations and reallocations made through the allocator */
    uint64_t relayouts;        /* times an update renumbered the storage into tree order (after
                                  reparents under later nodes; handles are unaffected) */
    uint64_t subtree_boxes;    /* subtree boxes computed (bounds.h) */
    /* 1.1 (arbor/time.h): levels, not counters (stats_reset keeps them). The fields above are
       the 1.0 struct's, all that the 1.0 symbol arbor_scene_stats_get writes; a program built
       now calls arbor_scene_stats_get_1_1 (the macro below), which writes these too. */
    uint64_t history_samples;  /* stamped samples held (arbor_node_record_trs) */
    uint64_t history_bytes;    /* bytes those take, with the tables and the buffers grown out of */
} arbor_scene_stats;

/* Counters since the scene was created or last reset. */
ARBOR_API void arbor_scene_stats_get(const arbor_scene *scene, arbor_scene_stats *out);
ARBOR_API void arbor_scene_stats_reset(arbor_scene *scene);
/* arbor_scene_stats_get writing the whole struct of 1.1 (the macro below calls it). */
ARBOR_API void arbor_scene_stats_get_1_1(const arbor_scene *scene, arbor_scene_stats *out);
#define arbor_scene_stats_get arbor_scene_stats_get_1_1

/* ---- Nodes and their local transforms ----------------------------------------------------- */

typedef struct arbor_trs { arbor_real translation[3], rotation[4], scale[3]; } arbor_trs;

typedef struct arbor_node_desc {   /* all zero: an identity root with no name */
    const char *name;              /* copied; NULL: no name */
    arbor_node parent;             /* ARBOR_NONE: a root; appended as the last child (or root) */
    arbor_real translation[3];
    arbor_real rotation[4];        /* all zero: identity; otherwise normalised */
    arbor_real scale[3];           /* all zero: (1, 1, 1). Partly zero (`.scale = {2}` is (2, 0, 0))
                                      is refused (ARBOR_ERR_INVALID_ARGUMENT), never read as
                                      given: a zero scale on purpose comes from
                                      arbor_node_set_scale */
    const arbor_real *matrix;      /* non-NULL: a matrix-backed local (16 values); TRS ignored */
    bool lock_matrix;              /* with matrix: TRS writes are refused (ARBOR_ERR_LOCKED) */
    void *user;
} arbor_node_desc;

/* Creates a node. Refused, with nothing created: a dead parent (ARBOR_ERR_DEAD_NODE), a depth
   beyond max_depth (ARBOR_ERR_DEPTH_LIMIT), a NaN or infinity (ARBOR_ERR_NONFINITE), a matrix
   whose last row is not (0, 0, 0, 1), a scale partly given (ARBOR_ERR_INVALID_ARGUMENT), no
   memory. desc and out
   must not be NULL. May allocate (storage grows geometrically, names are copied). */
ARBOR_API arbor_result arbor_node_create(arbor_scene *s, const arbor_node_desc *desc, arbor_node *out);

/* Creates count nodes at once, as count calls of arbor_node_create in order would (the same
   handles, links, sibling order and values), their handles in out[0 .. count). parents may be
   NULL, every node's parent then being its desc's; otherwise parents[i] >= 0 makes node i a
   child of out[parents[i]], a node of this call made before it (parents[i] < i), and -1 leaves
   descs[i].parent as given. Much faster than a call a node when the parents lie anywhere in
   memory (they are looked up ahead). Refused, with nothing created and out untouched: what
   arbor_node_create refuses, said of descs[i]; parents[i] neither -1 nor below i, or given
   with descs[i].parent too (ARBOR_ERR_INVALID_ARGUMENT); no memory. count 0 does nothing.
   Example, a root and two children:
       arbor_node_desc d[3] = { { .name = "root" }, { .translation = {1, 0, 0} }, { .scale = {2, 2, 2} } };
       int32_t parents[3] = { -1, 0, 0 };
       arbor_node out[3];
       arbor_scene_create_nodes(s, d, parents, 3, out);                                        */
ARBOR_API arbor_result arbor_scene_create_nodes(arbor_scene *s, const arbor_node_desc *descs, const int32_t *parents,
                                                uint32_t count, arbor_node *out);

/* Destroys root and every descendant, deepest first (reverse breadth-first order). Their
   handles stay dead forever. */
ARBOR_API arbor_result arbor_node_destroy(arbor_scene *s, arbor_node root);

/* True for a handle of a node that exists now in s; false for ARBOR_NONE, destroyed nodes,
   forged handles and handles of another scene (base.h). */
ARBOR_API bool arbor_node_alive(const arbor_scene *s, arbor_node n);

/* TRS writes. Each is O(1) to record. A NaN or infinity is ARBOR_ERR_NONFINITE; a locked
   matrix-backed node is ARBOR_ERR_LOCKED. On an unlocked matrix-backed node the matrix is
   dropped and the node is TRS-driven again, the components not written starting from the
   matrix's decomposition. set_rotation normalises; an all-zero quaternion is
   ARBOR_ERR_INVALID_ARGUMENT. set_trs normalises its rotation the same way. Writing the value
   a component already holds still counts as a change. */
ARBOR_API arbor_result arbor_node_set_translation(arbor_scene *s, arbor_node n, arbor_real x, arbor_real y, arbor_real z);
ARBOR_API arbor_result arbor_node_set_rotation(arbor_scene *s, arbor_node n, arbor_real x, arbor_real y, arbor_real z, arbor_real w);
ARBOR_API arbor_result arbor_node_set_scale(arbor_scene *s, arbor_node n, arbor_real x, arbor_real y, arbor_real z);
ARBOR_API arbor_result arbor_node_set_trs(arbor_scene *s, arbor_node n, const arbor_trs *trs);

/* Makes the node matrix-backed with m as its local matrix, locked or not, whatever it held
   before (this is also how a lock is lifted). A NaN or infinity is ARBOR_ERR_NONFINITE; a last
   row other than (0, 0, 0, 1) is ARBOR_ERR_INVALID_ARGUMENT. */
ARBOR_API arbor_result arbor_node_set_local_matrix(arbor_scene *s, arbor_node n, const arbor_real m[16], bool lock);

/* The node's TRS; for a matrix-backed node, the matrix's decomposition (arbor_mat4_decompose). */
ARBOR_API arbor_result arbor_node_trs(const arbor_scene *s, arbor_node n, arbor_trs *out);

/* The node's local matrix: its matrix, or T * R * S composed from its TRS. (1.0 declared the
   scene non-const; a call compiles the same either way.) */
ARBOR_API arbor_result arbor_node_local_matrix(const arbor_scene *s, arbor_node n, arbor_real out[16]);

/* True when the local transform is a matrix (locked or not); false for TRS or a dead node. */
ARBOR_API bool arbor_node_is_matrix_backed(const arbor_scene *s, arbor_node n);

/* True when the node is matrix-backed and locked. */
ARBOR_API bool arbor_node_is_locked(const arbor_scene *s, arbor_node n);

/* Renames (copied; NULL clears). May allocate. */
ARBOR_API arbor_result arbor_node_set_name(arbor_scene *s, arbor_node n, const char *name);

/* The caller's pointer; NULL for a dead node. */
ARBOR_API void *arbor_node_user(const arbor_scene *s, arbor_node n);
ARBOR_API arbor_result arbor_node_set_user(arbor_scene *s, arbor_node n, void *user);

/* Destroys every node (their handles stay dead); storage is kept for reuse. */
ARBOR_API void arbor_scene_clear(arbor_scene *s);

/* Iterates every live node once, parents before children (depth-first pre-order over the
   roots in order): start with ARBOR_NONE; ARBOR_NONE again marks the end. Amortised O(1). */
ARBOR_API arbor_node arbor_scene_next_node(const arbor_scene *s, arbor_node prev);

/* ---- World matrices ------------------------------------------------------------------------ */

/* The node's world matrix as the scene stands now. Composes only the node and its out-of-date
   ancestors (nothing when it is current); never touches siblings or descendants. */
ARBOR_API arbor_result arbor_node_world_matrix(arbor_scene *s, arbor_node n, arbor_real out[16]);

/* The world matrices of count nodes, 16 reals each into out, in the order given: what
   arbor_node_world_matrix gives for each, bit for bit, in one call (a robot's links after
   arbor_urdf_set_positions, a renderer's nodes after an update). Every handle is checked before
   the first matrix is written: a dead node or ARBOR_NONE is refused with its index, and out is
   left as it was. A node given twice is written twice. As arbor_node_world_matrix, it may run
   on many threads after arbor_scene_update() and until the next write. */
ARBOR_API arbor_result arbor_scene_world_matrices(arbor_scene *s, const arbor_node *nodes, uint32_t count, arbor_real *out);

/* A value that differs from every value returned before for this node whenever its world matrix
   may have changed since (its local, an ancestor's local, a reparent above it), and stays the
   same otherwise. May compute the matrix (counted in world_composed); never the version of a
   stale matrix. 0 for a dead node; never 0 for a live one. */
ARBOR_API uint64_t arbor_node_world_version(arbor_scene *s, arbor_node n);

/* ---- Hierarchy ------------------------------------------------------------------------------ */

typedef enum arbor_reparent { ARBOR_KEEP_LOCAL, ARBOR_KEEP_WORLD } arbor_reparent;

/* Moves child under parent (ARBOR_NONE: becomes a root), just before the sibling `before`
   (ARBOR_NONE: appended last, O(1)). Sibling order is otherwise kept.
   ARBOR_KEEP_LOCAL keeps the local transform (the world matrix follows the new parent).
   ARBOR_KEEP_WORLD keeps the world matrix: the new local is inverse(W_parent) * W_child,
   written back as TRS (a quaternion, no Euler angles); a reflection is kept as a negative Y
   scale; a matrix-backed child, locked or not, becomes TRS-driven; where the new local has a
   shear no TRS can hold, the node becomes (or stays) matrix-backed with that matrix, unlocked.
   Moving a node within its own parent (a reorder) changes no transform in either mode.
   `before == child` keeps the child's place when the parent does not change, and appends it
   otherwise.
   Refused, with nothing changed: ARBOR_NONE or a dead handle as child, parent or before
   (ARBOR_ERR_INVALID_ARGUMENT for a NONE child, ARBOR_ERR_DEAD_NODE otherwise), a ring
   (ARBOR_ERR_CYCLE, also parent == child), a `before` that is not a child of parent
   (ARBOR_ERR_NOT_A_CHILD), a depth beyond max_depth for any node of the moved subtree
   (ARBOR_ERR_DEPTH_LIMIT), a keep-world move under a parent whose world matrix cannot be
   inverted (ARBOR_ERR_SINGULAR), an invalid mode (ARBOR_ERR_INVALID_ARGUMENT).
   Cost: O(depth of parent) for the checks, plus O(size of the moved subtree) when its depth
   changes or its world matrices go out of date. */
ARBOR_API arbor_result arbor_node_set_parent(arbor_scene *s, arbor_node child, arbor_node parent,
                                             arbor_node before, arbor_reparent mode);

/* Links; ARBOR_NONE where there is none or n is dead. Roots are siblings of each other, in
   creation (or attach) order, starting at arbor_scene_first_root(). */
ARBOR_API arbor_node arbor_node_parent(const arbor_scene *s, arbor_node n);
ARBOR_API arbor_node arbor_node_first_child(const arbor_scene *s, arbor_node n);
ARBOR_API arbor_node arbor_node_last_child(const arbor_scene *s, arbor_node n);
ARBOR_API arbor_node arbor_node_next_sibling(const arbor_scene *s, arbor_node n);
ARBOR_API arbor_node arbor_node_prev_sibling(const arbor_scene *s, arbor_node n);
ARBOR_API arbor_node arbor_scene_first_root(const arbor_scene *s);
ARBOR_API arbor_node arbor_scene_last_root(const arbor_scene *s);

/* Depth (a root is 0; 0 for a dead node), O(1); number of direct children, O(children). */
ARBOR_API uint32_t arbor_node_depth(const arbor_scene *s, arbor_node n);
ARBOR_API uint32_t arbor_node_child_count(const arbor_scene *s, arbor_node n);

/* True when ancestor is a strict ancestor of n (false for n itself or dead handles). O(depth). */
ARBOR_API bool arbor_node_is_ancestor_of(const arbor_scene *s, arbor_node ancestor, arbor_node n);

/* Writes root and its descendants breadth first (parents before children, siblings in order)
   into out, at most cap of them, and returns the subtree's size even when cap is smaller
   (0 for a dead root). out may be NULL when cap is 0. O(subtree), no allocation. */
ARBOR_API uint32_t arbor_node_collect_subtree(const arbor_scene *s, arbor_node root, arbor_node *out, uint32_t cap);

typedef bool (*arbor_node_pred)(void *user, const arbor_scene *s, arbor_node n);

/* The nearest node at or below root for which pred is true, breadth first (the shallowest;
   among equally deep ones the first in breadth-first order); ARBOR_NONE if none. pred may be
   called on nodes in any order and must not change the scene. */
ARBOR_API arbor_node arbor_node_find_descendant(const arbor_scene *s, arbor_node root, arbor_node_pred pred, void *user);

/* The nearest node at or above leaf for which pred is true; ARBOR_NONE if none. */
ARBOR_API arbor_node arbor_node_find_ancestor(const arbor_scene *s, arbor_node leaf, arbor_node_pred pred, void *user);

/* The node's name, NULL when it has none or is dead. Valid until the node is renamed or
   destroyed. */
ARBOR_API const char *arbor_node_name(const arbor_scene *s, arbor_node n);

/* The node at a path of names from a root down: "base/joint/arm" or "/base/joint/arm". Where
   siblings share a name the first in sibling order is taken (no backtracking). ARBOR_NONE
   when nothing matches, or for an empty path or an empty segment. */
ARBOR_API arbor_node arbor_scene_find(const arbor_scene *s, const char *path);

/* ---- Many nodes at once ------------------------------------------------------------------- */

/* Bulk writes set one component of many nodes in one call, with the rules of the per-node
   setters: a failed call changes nothing (every input is checked before anything is written).
   The parallel update and the parallel bulk writes take an executor: the host's job system
   given as a parallel_for callback, or the executor of arbor's own pool (parallel.h). Their
   matrices are bitwise the same as a serial update's and a lazy read's, for any number of
   threads. */

/* One task of a parallel_for: index is in [0, count). */
typedef void (*arbor_task_fn)(void *task_user, uint32_t index);

typedef struct arbor_executor {
    /* Runs fn(task_user, i) once for every i in [0, count), in any order and on any threads,
       and returns when all have finished. */
    void (*parallel_for)(void *user, uint32_t count, arbor_task_fn fn, void *task_user);
    void *user;
} arbor_executor;

/* Brings every world matrix up to date like arbor_scene_update, with the same bits, running
   parts of the work as tasks of the executor: ranges of the storage when it is in tree order
   (each subtree one range, as a scene created depth first or renumbered by an update has it;
   the ancestors of where the ranges meet are computed first), otherwise independent dirty
   subtrees (and the parts of one huge tree below its top levels). A huge tree stored in no
   such order (created parents first but not depth first) is swept in blocks of storage that
   the tasks take in order, a node whose parent's block is still under way waiting for it.
   executor NULL: serial. */
ARBOR_API void arbor_scene_update_parallel(arbor_scene *s, const arbor_executor *executor);

/* Bulk writes: nodes[i] gets values[i * k .. i * k + k - 1] (k = 3, 4, 3 or 10 for
   translation, rotation, scale, TRS laid out as arbor_trs). Refused with nothing written:
   a dead or NONE handle (ARBOR_ERR_DEAD_NODE / ARBOR_ERR_INVALID_ARGUMENT), a locked node
   (ARBOR_ERR_LOCKED), a NaN or infinity (ARBOR_ERR_NONFINITE), a zero quaternion
   (ARBOR_ERR_INVALID_ARGUMENT). Quaternions are normalised. */
ARBOR_API arbor_result arbor_scene_set_translations(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count);
ARBOR_API arbor_result arbor_scene_set_rotations(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count);
ARBOR_API arbor_result arbor_scene_set_scales(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count);

/* The bulk writes above with the work shared out on an executor (NULL: serial). Same results
   and refusals (the lowest refused index is the one reported). The writes run in parallel
   when they pay: many nodes (16,384 or more, at least an eighth of the scene) in strictly
   increasing creation order -- the order a scene built parents first gives, with no node
   twice -- in a scene whose nodes all come after their parents in creation order (no
   reparenting under a later node, no reuse of a destroyed node's storage under an earlier
   parent). Otherwise they run on the calling thread as the serial calls do. */
ARBOR_API arbor_result arbor_scene_set_translations_parallel(arbor_scene *s, const arbor_node *nodes, const arbor_real *values,
                                                             uint32_t count, const arbor_executor *executor);
ARBOR_API arbor_result arbor_scene_set_rotations_parallel(arbor_scene *s, const arbor_node *nodes, const arbor_real *values,
                                                          uint32_t count, const arbor_executor *executor);
ARBOR_API arbor_result arbor_scene_set_scales_parallel(arbor_scene *s, const arbor_node *nodes, const arbor_real *values,
                                                       uint32_t count, const arbor_executor *executor);

/* ---- Visibility ---------------------------------------------------------------------------- */

/* Hides (false) or shows (true) the node and, through it, its subtree. O(1), plus O(subtree)
   the first time a visibility changes after the scene's effective visibilities were read
   (marking their answers out of date). May allocate (the node's attachment record). Changes
   no version. */
ARBOR_API arbor_result arbor_node_set_visible(arbor_scene *s, arbor_node n, bool visible);

/* The node's own visibility (false for a dead node). */
ARBOR_API bool arbor_node_visible(const arbor_scene *s, arbor_node n);

/* True when the node and every ancestor are visible (false for a dead node). O(1) when no
   visibility and no link changed since the last answer; otherwise O(depth) at most. Not one of
   the reads that may run on many threads at once: it keeps its answers. */
ARBOR_API bool arbor_node_effectively_visible(arbor_scene *s, arbor_node n);

/* Nodes whose own visibility is off (live ones; O(1) when there are none). */
ARBOR_API uint32_t arbor_scene_hidden_count(const arbor_scene *s);

/* ---- 1.0 names (docs/MIGRATING.md) ------------------------------------------------------------ */

/* arbor_node_trs, under the name of 1.0. */
ARBOR_API arbor_result arbor_node_get_trs(const arbor_scene *s, arbor_node n, arbor_trs *out)
    ARBOR_DEPRECATED("arbor_node_trs");

#ifdef __cplusplus
}
#endif
#endif
