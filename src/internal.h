/* SPDX-License-Identifier: MIT */
/*
 * What the folders of src/ share: the scene's storage and the helpers every part uses.
 * Internal names start with arbor__ (or are static).
 */
#ifndef ARBOR_INTERNAL_H
#define ARBOR_INTERNAL_H

#include <stdatomic.h>

#include "arbor/arbor.h"
#include "math/affine.h"

/* Node flags (uint8_t per slot). */
enum {
    ARBOR__ALIVE = 1u << 0,
    ARBOR__LOCAL_DIRTY = 1u << 1,  /* TRS changed since the local matrix was composed */
    ARBOR__WORLD_DIRTY = 1u << 2,  /* world matrix out of date; then so are all descendants' */
    ARBOR__PARTIAL = 1u << 3,      /* resolved by a lazy read: descendants may still be dirty */
    ARBOR__PENDING = 1u << 4,      /* the slot is in the scene's pending list */
    ARBOR__MATRIX = 1u << 5,       /* the local is a matrix, not composed from TRS */
    ARBOR__LOCKED = 1u << 6,       /* with MATRIX: TRS writes are refused */
    ARBOR__QUEUED = 1u << 7,       /* a subtree root queued by the running update */
};

/* Per-slot arrays (structure of arrays); slot 0 is never a node. A handle names a node by
   its id (its handle index, which never changes) and the id's generation; the slot holding
   the node may change when the scene renumbers its slots (scene/layout.c), so slot_of and
   gen are indexed by id, everything else by slot. */
typedef struct arbor__nodes {
    uint32_t *parent, *first_child, *last_child, *next_sibling, *prev_sibling;
    uint32_t *depth;
    uint32_t *id;        /* per slot: the node's id */
    uint32_t *slot_of;   /* per id: its node's slot (a free id: ARBOR__FREE_ID | the next free id) */
    uint32_t *gen;       /* per id: its generation (a handle of another is dead) */
    uint32_t *scratch;   /* walk workspace: a lazy read's down-links, destroy's queue */
    uint32_t *pending;   /* the pending list (not per slot: up to one entry per slot) */
    uint8_t *flags;
    arbor_real *trs;     /* 10 per slot: translation 3, rotation 4, scale 3 */
    arbor_real *local;   /* 12 per slot, affine (math/affine.h) */
    arbor_real *world;   /* 12 per slot, affine */
    uint64_t *version;
    char **name;
    uint32_t *attachment; /* index into the scene's attachments, 0: none */
} arbor__nodes;

/* Every array of arbor__nodes, its element size, and whether its elements move with their
   node when the slots are renumbered (scene/layout.c): the per-id arrays and the workspaces
   do not. */
#define ARBOR__ARRAYS(X)                           \
    X(parent, sizeof(uint32_t), true)              \
    X(first_child, sizeof(uint32_t), true)         \
    X(last_child, sizeof(uint32_t), true)          \
    X(next_sibling, sizeof(uint32_t), true)        \
    X(prev_sibling, sizeof(uint32_t), true)        \
    X(depth, sizeof(uint32_t), true)               \
    X(id, sizeof(uint32_t), true)                  \
    X(slot_of, sizeof(uint32_t), false)            \
    X(gen, sizeof(uint32_t), false)                \
    X(scratch, sizeof(uint32_t), false)            \
    X(pending, sizeof(uint32_t), false)            \
    X(flags, sizeof(uint8_t), true)                \
    X(trs, ARBOR__TRS * sizeof(arbor_real), true)  \
    X(local, 12 * sizeof(arbor_real), true)        \
    X(world, 12 * sizeof(arbor_real), true)        \
    X(version, sizeof(uint64_t), true)             \
    X(name, sizeof(char *), true)                  \
    X(attachment, sizeof(uint32_t), true)

/* One allocation behind an array of arbor__nodes (scene/scene.c). */
typedef struct arbor__storage { void *raw; size_t size; } arbor__storage;
#define ARBOR__STORAGE_ARRAYS 18

/* What a node carries besides its transform (scene/attach.c); few nodes have one. */
enum { ARBOR__HAS_BOUNDS = 1, ARBOR__HAS_CAMERA = 2, ARBOR__HAS_LIGHT = 4, ARBOR__HAS_HIDDEN = 8 /* own visibility off */ };
typedef struct arbor__attachment {
    void *user;              /* the caller's pointer */
    int32_t mesh;            /* -1: none */
    uint32_t has;            /* ARBOR__HAS_* */
    uint32_t next_free;      /* free list of records */
    uint32_t foreign;        /* 1 + index of the node's foreign parent (edit/foreign.c), 0: none */
    uint32_t instances;      /* 1 + index of the node's instance set (bounds/node_instances.c), 0:
                                none; like foreign, it stays with the node when records swap */
    arbor_real bounds[6];    /* local min, max */
    arbor_camera camera;
    arbor_light light;
} arbor__attachment;

/* Subtree boxes (src/bounds/), indexed by slot: the world box of each node's subtree, for
   arbor_node_subtree_bounds, arbor_node_subtree_sphere and arbor_scene_cull. Allocated at the
   first such query of a scene that has bounds (a scene without bounds never holds one), grown
   to the node storage's capacity at the next query after it grew, freed with the scene.
   An entry is current when its version is the node's world version and not 0: a change above
   the node changes that version; a change inside its subtree (a transform, a link, a local
   box) sets the version of the node and of its ancestors to 0 (arbor__bounds_stale).
   Invariant: an entry at 0 has only ancestors at 0; slots at or past `capacity` count as 0.
   Slots renumbered (scene/layout.c): the entries move with their nodes, or are all set to 0
   (always correct: everything is recomputed at the next query). */
typedef struct arbor__subtree_box {
    arbor_real box[6];   /* world min (3), max (3) over the subtree; no bounds: +inf, -inf */
    uint64_t version;    /* the node's world version when computed; 0: out of date */
} arbor__subtree_box;
typedef struct arbor__subtree_boxes {
    arbor__subtree_box *entry;  /* NULL until first needed */
    uint32_t capacity;          /* entries */
} arbor__subtree_boxes;

/* A node's GPU instances (bounds/node_instances.c): each drawn at W_node * T * R * S. */
typedef struct arbor__instance_set {
    arbor_real *trs;       /* ARBOR__TRS per instance, rotations unit */
    arbor_real *world;     /* 12 per instance (affine): W_node * L_i, as of `version` */
    uint64_t version;      /* the node's world version `world` was computed for; 0: none */
    uint32_t count;
    uint32_t dirty_lo, dirty_hi; /* instances written since (an empty range when lo >= hi) */
    uint32_t next_free;    /* free list of sets */
    bool edited;           /* written since arbor__instances_loaded (a glTF save writes it anew) */
} arbor__instance_set;
typedef struct arbor__instance_sets {
    arbor__instance_set *items;
    uint32_t cap, end, free_head;
} arbor__instance_sets;

/* Effective visibility (scene/visibility.c): per slot, whether the node or an ancestor is
   hidden, cached. An entry is current when VIS_CURRENT is set; a change of a node's own
   visibility or of its link makes its subtree's entries out of date (pushed down through
   current ones only). Invariant: a current entry has only current ancestors. Allocated at the
   first query of a scene with a hidden node, grown at the next query after the storage grew
   (slots past `capacity` count as out of date); relayout forgets every entry. */
enum { ARBOR__VIS_HIDDEN = 1, ARBOR__VIS_CURRENT = 2 };
typedef struct arbor__visibility {
    uint8_t *entry;
    uint32_t capacity;
} arbor__visibility;

struct arbor_scene {
    arbor__nodes n;
    arbor__storage storage[ARBOR__STORAGE_ARRAYS];
    uint32_t capacity;       /* slots the arrays hold */
    uint32_t slot_end;       /* slots [1, slot_end) have been used */
    uint32_t free_head;      /* free slots, linked through next_sibling */
    uint32_t id_end;         /* ids [1, id_end) have been used */
    uint32_t id_free;        /* free ids, linked through slot_of */
#define ARBOR__FREE_ID 0x80000000u /* in slot_of: the id names no node (slots stay below it), so
                                      the next handle of a freed id, or any of a retired one, is dead */
    uint32_t live;           /* live nodes */
    uint32_t first_root, last_root;
    uint32_t pending_count;  /* entries in n.pending: nodes whose subtree may hold dirty nodes */
    uint32_t max_depth;
    uint32_t order_inversions; /* nodes whose parent's slot is above their own: while there are
                                  none, slot order puts parents first (scene/hierarchy.c) */
    uint32_t root_count;
    uint64_t shape;          /* bumped by every link, unlink and renumbering: poses (scene/pose.c)
                                re-derive what they keep of the tree when it moved */
    _Atomic uint64_t clock;  /* the last version handed out (tasks take blocks of them) */
    uint64_t dirty_count;    /* nodes invalidated since the last update: its expected work */
    arbor_scene_stats stats;
    arbor_allocator allocator;
    arbor_log_fn log;
    void *log_user;
    bool walk_warned;
    arbor__attachment *attachments; /* record 0 unused */
    uint32_t attachment_cap, attachment_end, attachment_free;
    /* src/edit/: allocated when first used, NULL until then (the core tests them and pays
       one branch where they hook in). */
    struct arbor_journal *journal;
    struct arbor__foreign_table *foreign;
    struct arbor__changes *changes;
    uint32_t bounded;               /* nodes (live or held) with a local box: kept by every writer
                                       of ARBOR__HAS_BOUNDS (set_bounds, release, swap, clone) */
    arbor__subtree_boxes boxes;
    void *instance_table;           /* arbor_scene_gather_instances' hash table, kept warm */
    uint32_t instance_table_cap;    /* its entries (a power of two, or 0) */
    uint32_t instance_stamp;        /* entries of other stamps are free (no clearing per call) */
    uint32_t hidden;                /* nodes (live or held) whose own visibility is off */
    arbor__visibility visibility;
    arbor__instance_sets instance_sets;
};

/* TRS layout inside n.trs. */
#define ARBOR__T 0
#define ARBOR__R 3
#define ARBOR__S 7
#define ARBOR__TRS 10

/* ---- base ---- */
/* Records "func: message" as this thread's last error and returns code. */
arbor_result arbor__fail(arbor_result code, const char *func, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Where in a file a failure is (arbor_error_info): NULL or "" and 0 for what is unknown. */
typedef struct arbor__place {
    const char *file, *pointer;
    uint32_t line, column;
} arbor__place;
/* arbor__fail with a place: "func: file: pointer: message", the place kept apart too. */
arbor_result arbor__fail_at(arbor_result code, const char *func, const arbor__place *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void *arbor__alloc(arbor_scene *s, size_t size);
/* Resizes p keeping its contents (the allocator's realloc, or alloc, copy and free); NULL with
   p untouched when out of memory. */
void *arbor__realloc(arbor_scene *s, void *p, size_t old_size, size_t new_size);
void arbor__free(arbor_scene *s, void *p, size_t size);
/* Allocation through an allocator held apart from a scene (documents, clips): all zero is malloc
   and free; a size of 0 is taken as 1. */
void *arbor__alloc_with(const arbor_allocator *a, size_t size);
void arbor__free_with(const arbor_allocator *a, void *p, size_t size);
void arbor__log(arbor_scene *s, arbor_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A walk reached its bound: the links are corrupt. Said once per scene. */
void arbor__walk_bound(const arbor_scene *s, const char *walk, uint64_t bound);

/* ---- handles ---- */
/* The slot of a handle known to be live. */
static inline uint32_t arbor__slot(const arbor_scene *s, arbor_node n) { return s->n.slot_of[(uint32_t)n.id]; }
static inline arbor_node arbor__handle(const arbor_scene *s, uint32_t slot) {
    uint32_t id = slot ? s->n.id[slot] : 0;
    arbor_node h = { id ? ((uint64_t)s->n.gen[id] << 32) | id : 0 };
    return h;
}
/* The slot of a live node, or 0. */
static inline uint32_t arbor__live_slot(const arbor_scene *s, arbor_node n) {
    uint32_t id = (uint32_t)n.id;
    if (id == 0 || id >= s->id_end || s->n.gen[id] != (uint32_t)(n.id >> 32)) return 0;
    uint32_t slot = s->n.slot_of[id]; /* ARBOR__FREE_ID and up for a free or retired id */
    return slot < s->slot_end && (s->n.flags[slot] & ARBOR__ALIVE) ? slot : 0;
}
/* How messages name a node: its path of names from its root, quoted ('base/arm/hand'), an
   unnamed node on it as [i], its place among its siblings; a path longer than the buffer keeps
   its last part after ".../". Written into buf (cap bytes), which it returns a part of. */
#define ARBOR__LABEL_CAP 160
const char *arbor__node_label(const arbor_scene *s, uint32_t slot, char *buf, size_t cap);
#define ARBOR__NODE_FMT "'%s'"
#define ARBOR__NODE_ARGS(s, slot) arbor__node_label((s), (slot), (char[ARBOR__LABEL_CAP]){0}, ARBOR__LABEL_CAP)
/* The slot for a node argument, or 0 after recording why (ARBOR_ERR_INVALID_ARGUMENT for
   ARBOR_NONE, ARBOR_ERR_DEAD_NODE otherwise) in *result. */
uint32_t arbor__require_failed(arbor_node n, const char *func, arbor_result *result);
static inline uint32_t arbor__require(const arbor_scene *s, arbor_node n, const char *func, arbor_result *result) {
    uint32_t slot = arbor__live_slot(s, n);
    return slot ? slot : arbor__require_failed(n, func, result);
}

/* Bound of walks down or across: every live node once, plus the climbs back. */
static inline uint64_t arbor__walk_limit(const arbor_scene *s) { return 2u * (uint64_t)s->live + 2u; }

/* Pre-order successor of slot n inside the subtree of top, descending into n's children only
   when descend is true; 0 when the subtree is done. Amortised O(1). */
static inline uint32_t arbor__next_in_subtree(const arbor_scene *s, uint32_t top, uint32_t n, bool descend) {
    if (descend && s->n.first_child[n]) return s->n.first_child[n];
    while (n != top && !s->n.next_sibling[n]) n = s->n.parent[n];
    return n == top ? 0 : s->n.next_sibling[n];
}

/* q normalised (arbor_quat_normalize, its common case inline); false for a zero or
   non-finite q. */
static inline bool arbor__unit_quat(arbor_real out[4], const arbor_real q[4]) {
    return arbor__quat_normalize_fast(out, q) || arbor_quat_normalize(out, q);
}

/* ---- bounds (bounds/bounds.c) ---- */
/* Marks the subtree boxes of slot and of its ancestors out of date: something in slot's
   subtree moved, came or went. O(1) when its parent's is already out of date. */
void arbor__bounds_stale(arbor_scene *s, uint32_t slot);
/* Frees the subtree boxes and the instancing table. */
void arbor__bounds_free(arbor_scene *s);

/* ---- node instances (bounds/node_instances.c) ---- */
/* The node's instance set, or NULL when it has none. */
static inline arbor__instance_set *arbor__instances_of(const arbor_scene *s, uint32_t slot) {
    uint32_t a = s->n.attachment[slot], i = a ? s->attachments[a].instances : 0;
    return i ? &s->instance_sets.items[i - 1] : NULL;
}
/* Instance i's world matrix (affine) computed from slot's current world matrix. */
void arbor__instance_world(const arbor_scene *s, uint32_t slot, const arbor__instance_set *set, uint32_t i,
                           arbor_real out[12]);
/* A new set of `count` checked instances (arbor_node_set_instances' rules): *index (0 for
   count 0); nothing made on failure. */
arbor_result arbor__instances_make(arbor_scene *s, const arbor_trs *instances, uint32_t count, uint32_t *index,
                                   const char *fn);
/* Exchanges slot's set with set *index (0: none); false when out of memory (nothing changed). */
bool arbor__instances_swap(arbor_scene *s, uint32_t slot, uint32_t *index);
/* Bytes a set holds. */
size_t arbor__instances_bytes(const arbor_scene *s, uint32_t index);
/* Frees set `index` (1-based, as in arbor__attachment.instances). */
void arbor__instances_release(arbor_scene *s, uint32_t index);
/* A copy of src's set `index` in dst: its index, 0 when out of memory. */
uint32_t arbor__instances_copy(arbor_scene *dst, const arbor_scene *src, uint32_t index);
/* Frees every set of a scene being destroyed. */
void arbor__instances_free(arbor_scene *s);

/* ---- visibility (scene/visibility.c) ---- */
/* slot's own visibility or link changed: its subtree's effective visibility is out of date. */
void arbor__visibility_stale(arbor_scene *s, uint32_t slot);
static inline void arbor__visibility_moved(arbor_scene *s, uint32_t slot) {
    if (s->visibility.entry) arbor__visibility_stale(s, slot);
}
/* Frees the cache of a scene being destroyed. */
void arbor__visibility_free(arbor_scene *s);
/* True when slot or an ancestor is hidden. O(1) when nothing changed since the last answer. */
bool arbor__hidden(arbor_scene *s, uint32_t slot);
/* True when the node's own visibility is off. */
static inline bool arbor__own_hidden(const arbor_scene *s, uint32_t slot) {
    uint32_t a = s->n.attachment[slot];
    return a && (s->attachments[a].has & ARBOR__HAS_HIDDEN);
}

/* ---- world (scene/world.c) ---- */
/* Marks slot's world matrix out of date, and with it its descendants' (stopping at nodes
   already out of date), and keeps the node reachable by the next update. */
void arbor__invalidate_subtree(arbor_scene *s, uint32_t slot);
static inline void arbor__invalidate(arbor_scene *s, uint32_t slot) {
    if (s->boxes.entry) arbor__bounds_stale(s, slot);
    /* Out of date already and reachable by the update (pending, or under an out-of-date
       parent): nothing to do. This makes writing a node again O(1). */
    uint8_t f = s->n.flags[slot];
    uint32_t parent = s->n.parent[slot];
    if ((f & ARBOR__WORLD_DIRTY) &&
        ((f & ARBOR__PENDING) || (parent && (s->n.flags[parent] & ARBOR__WORLD_DIRTY))))
        return;
    arbor__invalidate_subtree(s, slot);
}
/* Many writes at once, in a scene whose slot order puts parents first: each written node is
   marked (its TRS written), then one arbor__invalidate_in_order from the lowest written slot
   finishes what arbor__invalidate would have done node by node. */
static inline void arbor__mark_written(arbor_scene *s, uint32_t slot) {
    uint8_t f = (uint8_t)((s->n.flags[slot] & ~ARBOR__MATRIX) | ARBOR__LOCAL_DIRTY);
    if (!(f & ARBOR__WORLD_DIRTY)) f |= ARBOR__WORLD_DIRTY | ARBOR__QUEUED;
    s->n.flags[slot] = f;
}
void arbor__invalidate_in_order(arbor_scene *s, uint32_t from);
/* Brings slot's world matrix up to date (the chain of out-of-date ancestors first). */
void arbor__resolve_dirty(arbor_scene *s, uint32_t slot);
static inline void arbor__resolve(arbor_scene *s, uint32_t slot) {
    if (s->n.flags[slot] & ARBOR__WORLD_DIRTY) arbor__resolve_dirty(s, slot);
}

/* ---- storage (scene/scene.c) ---- */
/* Makes room for `extra` more nodes; false on out of memory (nothing changed). */
bool arbor__reserve(arbor_scene *s, uint32_t extra);

/* Bulk writes once checked (the bulk setters' second half, scene/scene.c): nodes[i] alive and
   unlocked gets values[i * k .. i * k + k - 1] at `offset` of its TRS (ARBOR__T, ARBOR__R or
   ARBOR__S), rotations normalised when asked; then invalidation as for any write. */
void arbor__write_many(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count, int offset,
                       int k, bool normalize);

/* ---- storage order (scene/layout.c) ---- */
/* Renumbers the slots depth first (parents first, each subtree one range); false when out of
   memory (nothing changed). */
bool arbor__relayout(arbor_scene *s);

/* Slots kept by the journal (scene/scene.c). A held subtree is unlinked and dead (no ALIVE
   flag, not counted in live) but keeps its ids, generations, slots, internal links, locals, names
   and attachments, so its handles can come back. Returns the subtree's size. */
uint32_t arbor__hold_subtree(arbor_scene *s, uint32_t top);
/* Brings a held subtree of `count` nodes back under parent (0: a root) before `before`
   (0: last), every node of it out of date; the caller checked the link. */
void arbor__revive_subtree(arbor_scene *s, uint32_t top, uint32_t count, uint32_t parent, uint32_t before);
/* Retires a held subtree of `count` nodes for good: its handles stay dead. */
void arbor__release_held(arbor_scene *s, uint32_t top, uint32_t count);
/* Scene storage per slot, in bytes (the per-slot arrays). */
size_t arbor__slot_bytes(void);

/* ---- poses (scene/pose.c) ---- */
/* The scene of a pose, and a number no other pose of this process has. */
arbor_scene *arbor__pose_scene(const arbor_pose *p);
uint64_t arbor__pose_serial(const arbor_pose *p);
/* Finding pose entries by node: arbor__pose_lookup first (it may re-derive the pose, refused
   as arbor_pose_apply would be), then arbor__pose_entries, with no other scene call in between
   (the scene's scratch holds the map): the pose entry of each of nodes[0 .. count) into
   entry[]; ARBOR_ERR_INVALID_ARGUMENT (said as fn's) when one is not in the pose. */
arbor_result arbor__pose_lookup(arbor_pose *p, const char *fn);
arbor_result arbor__pose_entries(const arbor_pose *p, const arbor_node *nodes, uint32_t count, uint32_t *entry, const char *fn);

/* ---- attachments (scene/attach.c) ---- */
/* The node's attachment record, or NULL when it has none. */
const arbor__attachment *arbor__attachment_of(const arbor_scene *s, uint32_t slot);
/* The record of a live node that carries `part` (ARBOR__HAS_CAMERA or ARBOR__HAS_LIGHT) and
   its slot; NULL after recording why in *r: the handle (arbor__require), or
   ARBOR_ERR_INVALID_ARGUMENT when the node carries no such part. */
const arbor__attachment *arbor__carrying(const arbor_scene *s, arbor_node n, uint32_t part, uint32_t *slot,
                                         arbor_result *r, const char *fn);
/* Makes sure the next `count` records nodes ask for can be had; false when out of memory. */
bool arbor__attachment_reserve(arbor_scene *s, uint32_t count);
/* The node's record, made (empty) when it has none; NULL when out of memory. */
arbor__attachment *arbor__attachment_writable(arbor_scene *s, uint32_t slot);
/* Exchanges what the node carries (user, mesh, bounds, camera, light) with *other; an empty
   *other (mesh -1, nothing in has, no user) leaves the node without a record. Its foreign
   parent stays. False when out of memory (nothing changed). */
bool arbor__attachment_swap(arbor_scene *s, uint32_t slot, arbor__attachment *other);
/* Drops the node's record (node destruction). */
void arbor__attachment_release(arbor_scene *s, uint32_t slot);
/* Frees the scene's records. */
void arbor__attachments_free(arbor_scene *s);

/* ---- hierarchy (scene/hierarchy.c) ---- */
void arbor__link(arbor_scene *s, uint32_t slot, uint32_t parent, uint32_t before);
void arbor__unlink(arbor_scene *s, uint32_t slot);
/* Writes a local that keeps a world matrix: TRS when it is one, else an unlocked matrix (a
   shear). The caller invalidates. */
void arbor__store_kept_local(arbor_scene *s, uint32_t slot, const arbor_real local[12]);

/* ---- edit (src/edit/) ---- */
/* A foreign parent: its provider and the matrix read at the last poll. */
typedef struct arbor__foreign {
    arbor_node node;          /* ARBOR_NONE: a free entry */
    arbor_provider provider;
    uint64_t seen;            /* the provider's version at the last poll */
    arbor_real world[12];     /* affine, as read at the last poll */
    void *owned;              /* what arbor_node_attach_to allocated for the provider */
    uint32_t next_free;
} arbor__foreign;
typedef struct arbor__foreign_table {
    arbor__foreign *items;
    uint32_t cap, end, free_head, count;
    bool polling;             /* a poll is running (providers may read other scenes) */
} arbor__foreign_table;
/* The matrix of slot's foreign parent, or NULL when it has none (at once when the scene has
   no foreign parents). */
static inline const arbor_real *arbor__foreign_world(const arbor_scene *s, uint32_t slot) {
    if (!s->foreign) return NULL;
    uint32_t a = s->n.attachment[slot], f = a ? s->attachments[a].foreign : 0;
    return f ? s->foreign->items[f - 1].world : NULL;
}
/* Polls every foreign parent (update) / the one above slot, if any (a read after a write). */
void arbor__foreign_poll(arbor_scene *s);
void arbor__foreign_poll_above(arbor_scene *s, uint32_t slot);
/* Drops slot's foreign parent, if it has one. */
void arbor__foreign_drop(arbor_scene *s, uint32_t slot);
/* A lazy read computed the chain top .. slot (down-links in scratch): note it for the list. */
void arbor__changes_note(arbor_scene *s, uint32_t top, uint32_t slot);
/* An update computed the subtrees of roots[0 .. count), `computed` nodes in all: make the list. */
void arbor__changes_collect(arbor_scene *s, const uint32_t *roots, uint32_t count, uint64_t computed);
/* Nodes the journal holds (0 without a journal), and their slots appended to order[k ..
   end), each held subtree depth first (a relayout moves them along); returns the new k. */
uint32_t arbor__journal_held(const arbor_scene *s);
uint32_t arbor__journal_order_held(const arbor_scene *s, uint32_t *order, uint32_t k, uint32_t end);
/* Frees the journal, foreign parents and change lists of a scene being destroyed. */
void arbor__edit_free(arbor_scene *s);

#endif
