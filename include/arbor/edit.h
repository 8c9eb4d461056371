/* SPDX-License-Identifier: MIT */
/*
 * arbor/edit.h: what an editor and a game need on top of the hierarchy.
 *
 * - The journal: edits made through it (create, destroy a subtree, reparent, local transform
 *   and matrix writes, attachments, renames) can be undone and redone, one step at a time.
 *   Undoing a subtree's destruction brings it back exactly: the same handles alive again, the
 *   same parent and sibling position, locals (TRS or matrix, locked or not), names,
 *   attachments and child order. Several edits group into one step (begin / commit), and
 *   abort rolls an open group back. Its memory is bounded: a step limit and a byte limit,
 *   oldest steps dropped first.
 * - Clones: a subtree copied with its locals, names and attachments, within a scene or into
 *   another one, in O(subtree).
 * - Foreign parents: a root may hang from a provider outside the scene (a physics body, a
 *   node of another scene), polled by its version.
 * - Change lists: after an update, the nodes whose world matrix changed since the update
 *   before, in O(changed), for a renderer that uploads only those.
 *
 * Writes that bypass the journal (the setters of scene.h, view.h, bounds.h) are allowed, and
 * are not undoable. Undo and redo swap the state a step recorded with what the scene holds:
 * after a bypassing write, undo still puts back what the step found, and redo what undo
 * found. A step whose nodes were destroyed, or whose places were taken, by bypassing writes
 * is refused (ARBOR_ERR_DEAD_NODE, ARBOR_ERR_NOT_A_CHILD, ...) with nothing changed.
 *
 * Handles: a node destroyed through the journal keeps its id, generation and storage while a step
 * can bring it back, so its old handle comes back alive on undo (and dies again on redo). When
 * that step is dropped (step limit, redo history replaced by a new edit, journal cleared or
 * destroyed) it is retired as any destroyed node is: its handle then stays dead forever.
 *
 * Typical use:
 *     arbor_journal *j;
 *     arbor_journal_create(scene, NULL, &j);
 *     arbor_journal_set_parent(j, arm, base, ARBOR_NONE, ARBOR_KEEP_WORLD);
 *     arbor_journal_begin(j);                           // one step: both edits
 *     arbor_journal_set_translation(j, arm, 0, 1, 0);
 *     arbor_journal_set_name(j, arm, "arm.001");
 *     arbor_journal_commit(j);
 *     arbor_journal_undo(j);                            // back to the reparented arm
 *     arbor_journal_redo(j);
 *     arbor_journal_destroy(j);
 */
#ifndef ARBOR_EDIT_H
#define ARBOR_EDIT_H

#include "arbor/bounds.h"
#include "arbor/instances.h"
#include "arbor/scene.h"
#include "arbor/view.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The journal ------------------------------------------------------------------------------- */

typedef struct arbor_journal arbor_journal;

/* Default step limit (arbor_journal_desc.max_steps zero). */
#define ARBOR_JOURNAL_DEFAULT_STEPS 256u
/* Default byte limit (arbor_journal_desc.max_bytes zero): 64 MiB. */
#define ARBOR_JOURNAL_DEFAULT_BYTES ((size_t)64 << 20)

typedef struct arbor_journal_desc {  /* all zero: defaults */
    uint32_t max_steps;              /* steps kept for undo and redo; 0: ARBOR_JOURNAL_DEFAULT_STEPS */
    size_t max_bytes;                /* bytes kept (arbor_journal_stats.bytes); 0:
                                        ARBOR_JOURNAL_DEFAULT_BYTES. The newest step is kept
                                        even when it alone is larger. */
} arbor_journal_desc;

/* Creates the scene's journal (a scene has at most one: a second is ARBOR_ERR_INVALID_ARGUMENT).
   desc may be NULL. Allocates through the scene's allocator.
   Destroying it and its scene in either order is safe: the scene's destroy leaves it inert
   (every call of it that returns an arbor_result is refused with ARBOR_ERR_INVALID_ARGUMENT, "its
   scene was destroyed"; the others answer from what it holds) and its own destroy frees it. */
ARBOR_API arbor_result arbor_journal_create(arbor_scene *s, const arbor_journal_desc *desc, arbor_journal **out);

/* Drops every step (nodes destroyed through it are retired for good) and frees the journal.
   NULL is allowed. 1.0's scene destroy freed its journal; since 1.1 it leaves it inert, and this
   call frees it (docs/MIGRATING.md). */
ARBOR_API void arbor_journal_destroy(arbor_journal *j);

/* The scene's journal, NULL when it has none. */
ARBOR_API arbor_journal *arbor_scene_journal(const arbor_scene *s);

/* The scene the journal edits. */
ARBOR_API arbor_scene *arbor_journal_scene(const arbor_journal *j);

/* Edits. Each does what its namesake of scene.h, view.h or bounds.h does, with the same
   refusals (nothing recorded then), and records it: outside a group, as one step; inside one,
   as part of the group. A new step drops the redo history. May allocate (the record;
   OUT_OF_MEMORY with nothing changed). Repeated writes of one kind to one node inside one
   group keep one record.
   destroy_node keeps the destroyed nodes' storage (and everything they held) for undo, so it
   costs O(subtree) like arbor_node_destroy and frees nothing until the step is dropped. */
ARBOR_API arbor_result arbor_journal_create_node(arbor_journal *j, const arbor_node_desc *desc, arbor_node *out);
ARBOR_API arbor_result arbor_journal_destroy_node(arbor_journal *j, arbor_node root);
ARBOR_API arbor_result arbor_journal_clone(arbor_journal *j, const arbor_scene *src, arbor_node root, arbor_node parent,
                                           arbor_node *out);
ARBOR_API arbor_result arbor_journal_set_parent(arbor_journal *j, arbor_node child, arbor_node parent, arbor_node before,
                                                arbor_reparent mode);
ARBOR_API arbor_result arbor_journal_set_translation(arbor_journal *j, arbor_node n, arbor_real x, arbor_real y, arbor_real z);
ARBOR_API arbor_result arbor_journal_set_rotation(arbor_journal *j, arbor_node n, arbor_real x, arbor_real y, arbor_real z,
                                                  arbor_real w);
ARBOR_API arbor_result arbor_journal_set_scale(arbor_journal *j, arbor_node n, arbor_real x, arbor_real y, arbor_real z);
ARBOR_API arbor_result arbor_journal_set_trs(arbor_journal *j, arbor_node n, const arbor_trs *trs);
ARBOR_API arbor_result arbor_journal_set_local_matrix(arbor_journal *j, arbor_node n, const arbor_real m[16], bool lock);
ARBOR_API arbor_result arbor_journal_set_name(arbor_journal *j, arbor_node n, const char *name);
ARBOR_API arbor_result arbor_journal_set_user(arbor_journal *j, arbor_node n, void *user);
ARBOR_API arbor_result arbor_journal_set_mesh(arbor_journal *j, arbor_node n, int32_t mesh);
ARBOR_API arbor_result arbor_journal_set_bounds(arbor_journal *j, arbor_node n, const arbor_real min[3],
                                                const arbor_real max[3]);
ARBOR_API arbor_result arbor_journal_set_camera(arbor_journal *j, arbor_node n, const arbor_camera *camera);
ARBOR_API arbor_result arbor_journal_set_light(arbor_journal *j, arbor_node n, const arbor_light *light);
/* Visibility (scene.h), a node's instances and one instance (instances.h). */
ARBOR_API arbor_result arbor_journal_set_visible(arbor_journal *j, arbor_node n, bool visible);
ARBOR_API arbor_result arbor_journal_set_instances(arbor_journal *j, arbor_node n, const arbor_trs *instances,
                                                   uint32_t count);
ARBOR_API arbor_result arbor_journal_set_instance(arbor_journal *j, arbor_node n, uint32_t i, const arbor_trs *trs);

/* Groups: edits between begin and commit make one step (none if they recorded nothing).
   Groups do not nest: begin while one is open is ARBOR_ERR_INVALID_ARGUMENT, and so are
   commit and abort without one. abort undoes the group's edits, newest first, and forgets
   them, leaving the journal as begin found it (its redo history too: a group drops that only
   when committed with edits); if a bypassing write makes that impossible it is refused with
   nothing changed and the group stays open. */
ARBOR_API arbor_result arbor_journal_begin(arbor_journal *j);
ARBOR_API arbor_result arbor_journal_commit(arbor_journal *j);
ARBOR_API arbor_result arbor_journal_abort(arbor_journal *j);

/* Undoes the newest step (its edits newest first) / redoes the step undone last. Nothing to
   undo or redo, or an open group, is ARBOR_ERR_INVALID_ARGUMENT. A step that cannot be
   applied (a bypassing write destroyed one of its nodes, took a sibling it goes back before,
   ...) is refused with the reason's code and nothing changed. Cost: O(size of what the step
   touched); no allocation except for attachments a node gets back, made before the step's
   first edit is applied (ARBOR_ERR_OUT_OF_MEMORY with nothing changed, versions included). */
ARBOR_API arbor_result arbor_journal_undo(arbor_journal *j);
ARBOR_API arbor_result arbor_journal_redo(arbor_journal *j);

/* Drops every step and any open group, without undoing anything. */
ARBOR_API void arbor_journal_clear(arbor_journal *j);

typedef struct arbor_journal_stats {
    uint32_t undo_steps;      /* steps undo can take back */
    uint32_t redo_steps;      /* steps redo can apply again */
    uint32_t records;         /* edits recorded in those steps and the open group */
    uint32_t held_nodes;      /* destroyed nodes kept for undo (their storage is not reused) */
    uint64_t dropped_steps;   /* steps dropped for the limits since the journal was made */
    size_t bytes;             /* what the steps hold: their records and names, and the scene
                                 storage of held nodes (arrays' spare capacity not counted) */
} arbor_journal_stats;

/* What the journal holds now. */
ARBOR_API void arbor_journal_stats_get(const arbor_journal *j, arbor_journal_stats *out);

/* ---- Clones ----------------------------------------------------------------------------------- */

/* Copies the subtree of root (root and every descendant) under parent (ARBOR_NONE: a new root),
   appended as parent's last child: each copy has its original's local transform (TRS, or
   matrix and lock), name, user pointer, mesh, bounds, camera and light, and children in the
   same order. A foreign parent is not copied. *out is the copy of root. parent may lie inside
   the copied subtree (the copy is made of the subtree as it was). O(subtree).
   Refused with nothing created: a dead root or parent (ARBOR_ERR_DEAD_NODE), a copy deeper than
   max_depth (ARBOR_ERR_DEPTH_LIMIT), no memory. */
ARBOR_API arbor_result arbor_node_clone(arbor_scene *s, arbor_node root, arbor_node parent, arbor_node *out);

/* The same from another scene: root is a node of src, parent and the copies belong to dst.
   src may be dst. src is only read. */
ARBOR_API arbor_result arbor_node_clone_from(arbor_scene *dst, const arbor_scene *src, arbor_node root, arbor_node parent,
                                             arbor_node *out);

/* ---- Foreign parents ------------------------------------------------------------------------- */

/* A world matrix kept outside the scene. version returns a value that changes whenever the
   matrix does; world writes the matrix (16 values, column-major, affine: its last row is
   ignored). Both are required; arbor calls them only from the calls documented below. */
typedef struct arbor_provider {
    void (*world)(void *user, arbor_real out[16]);
    uint64_t (*version)(void *user);
    void *user;
} arbor_provider;

/* Hangs n from a foreign parent: n becomes a root (appended after the last root, unless it is
   one already) whose world matrix is W = P * L, P being the provider's matrix. parent NULL
   removes n's foreign parent (W = L again). ARBOR_KEEP_LOCAL keeps n's local;
   ARBOR_KEEP_WORLD keeps its world matrix as arbor_node_set_parent does (ARBOR_ERR_SINGULAR
   when P cannot be inverted). The provider is read at once (a non-finite matrix is
   ARBOR_ERR_NONFINITE, with nothing changed).
   Polling: arbor_scene_update asks every provider for its version, and reads the matrix and
   recomputes the subtree only when the version changed. A read that finds its node current
   polls nothing: after an update, reads answer as of that update and may run on many
   threads. A read that has to compute (the node or an ancestor was written since the update)
   first polls the foreign parent above it, as an update would (O(depth) more for that read).
   arbor_node_set_parent under a parent of the scene removes the foreign parent; destroying the
   node removes it too. The journal does not record foreign parents. */
ARBOR_API arbor_result arbor_node_set_foreign_parent(arbor_scene *s, arbor_node n, const arbor_provider *parent,
                                                     arbor_reparent mode);

/* True when n hangs from a foreign parent. */
ARBOR_API bool arbor_node_has_foreign_parent(const arbor_scene *s, arbor_node n);

/* A node of another scene as n's foreign parent: W = W_parent (of `other`) * L. Its world
   version is the provider's version, so n's subtree is recomputed only when parent's world
   changed. Polling reads other's world matrix and version (which may compute them): other must
   not be in use on another thread then, nor when the link is made or dropped (n destroyed, its
   foreign parent removed, s destroyed), which writes other's list of dependents. If parent
   dies, or other is destroyed (before or after s: either order is safe), n keeps its last
   matrix. other == s is
   ARBOR_ERR_INVALID_ARGUMENT (use arbor_node_set_parent); a dead parent ARBOR_ERR_DEAD_NODE. */
ARBOR_API arbor_result arbor_node_attach_to(arbor_scene *s, arbor_node n, arbor_scene *other, arbor_node parent,
                                            arbor_reparent mode);

/* ---- Change lists --------------------------------------------------------------------------- */

/* Starts (on) or stops (off) keeping change lists. Their memory is allocated on first use and
   grows with the number of nodes changed per update (8 bytes each); off frees it. While off,
   updates and reads pay nothing for them. ARBOR_ERR_OUT_OF_MEMORY with nothing changed. */
ARBOR_API arbor_result arbor_scene_track_changes(arbor_scene *s, bool on);

/* After an update: the nodes whose world matrix was computed since the update before (by that
   update, or by reads in between), each once, written into out (at most cap); returns how
   many there are, even when more than cap. Order: when the update swept the storage in order
   (at least an eighth of a parents-first scene out of date), storage order; otherwise the
   nodes that reads computed (in the order of their first computation), then those the update
   computed, subtree by subtree (in the order their first change was made), each in
   depth-first pre-order. The same nodes whatever the executor; a serial and a parallel
   update of one scene may take different paths, and so list them in a different order. The
   list stays as it is until the next update; a node destroyed since is still in it (its
   handle is dead). The first update after tracking is turned on lists what it computed and
   what reads computed since tracking began; while tracking is off the list is empty (0).
   When memory ran out for the list, every live node is listed instead (in
   arbor_scene_next_node order). O(listed); a read, safe beside other reads. */
ARBOR_API uint32_t arbor_scene_changed(const arbor_scene *s, arbor_node *out, uint32_t cap);

#ifdef __cplusplus
}
#endif
#endif
