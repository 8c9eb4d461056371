/* SPDX-License-Identifier: MIT */
/*
 * The core's private header: the scene's storage, handles, invalidation and the hooks through
 * which the features built on the scene (src/bounds, src/edit) hear of its changes.
 * What the folders above the core use of it; each feature keeps its own state and helpers in
 * its folder's header. Internal names start with arbor__ (or are static).
 *
 * A write to an update, in three files: arbor_node_set_rotation (scene.c) stores the TRS and
 * calls arbor__invalidate (here); arbor_scene_update (world.c) composes what is out of date
 * with the kernels of math/affine.h.
 */
#ifndef ARBOR_SCENE_INTERNAL_H
#define ARBOR_SCENE_INTERNAL_H

#include <stdatomic.h>

#include "arbor/arbor.h"
#include "base/base_internal.h"
#include "math/affine.h"

/* Node flags (uint8_t per slot). */
enum {
    ARBOR__ALIVE = 1u << 0,
    ARBOR__WORLD_DIRTY = 1u << 2,  /* world matrix out of date; then so are all descendants' */
    ARBOR__PARTIAL = 1u << 3,      /* resolved by a lazy read: descendants may still be dirty */
    ARBOR__PENDING = 1u << 4,      /* the slot is in the scene's pending list */
    ARBOR__MATRIX = 1u << 5,       /* the local was set as a matrix (arbor__kept_matrix) */
    ARBOR__LOCKED = 1u << 6,       /* with MATRIX: TRS writes are refused */
    ARBOR__QUEUED = 1u << 7,       /* a subtree root queued by the running update */
};

/* Per-slot arrays (structure of arrays); slot 0 is never a node. A handle names a node by
   its id (its handle index, which never changes) and the id's generation word; the slot
   holding the node may change when the scene renumbers its slots (scene/layout.c), so slot_of
   and gen are indexed by id, everything else by slot. */
typedef struct arbor__nodes {
    uint32_t *parent, *first_child, *last_child, *next_sibling, *prev_sibling;
    uint32_t *depth;
    uint32_t *id;        /* per slot: the node's id */
    uint32_t *slot_of;   /* per id: its node's slot (a free id: ARBOR__FREE_ID | the next free id) */
    uint32_t *gen;       /* per id: its generation word, the scene's tag above the generation
                            (ARBOR__GEN_BITS): a handle with another word is dead */
    uint32_t *scratch;   /* walk workspace: a lazy read's down-links, destroy's queue */
    uint32_t *pending;   /* the pending list (not per slot: up to one entry per slot) */
    uint8_t *flags;
    arbor_real *trs;     /* 10 per slot: translation 3, rotation 4, scale 3 */
    arbor_real *world;   /* 12 per slot, affine */
    uint64_t *version;
    char **name;          /* NULL, and attachment 0, in every slot from slot_end on: a fresh */
    uint32_t *attachment; /* slot has neither (index into the scene's attachments, 0: none) */
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
    X(world, 12 * sizeof(arbor_real), true)        \
    X(version, sizeof(uint64_t), true)             \
    X(name, sizeof(char *), true)                  \
    X(attachment, sizeof(uint32_t), true)

/* One allocation behind an array of arbor__nodes (scene/scene.c). */
typedef struct arbor__storage { void *raw; size_t size, offset; /* the array starts at raw + offset */ } arbor__storage;
#define ARBOR__STORAGE_ARRAYS 17

/* What a node carries besides its transform (scene/attach.c); few nodes have one. */
enum {
    ARBOR__HAS_BOUNDS = 1, ARBOR__HAS_CAMERA = 2, ARBOR__HAS_LIGHT = 4, ARBOR__HAS_HIDDEN = 8, /* own visibility off */
    ARBOR__HAS_MATRIX = 16, /* a kept local matrix (arbor__kept_matrix); not part of arbor__attachment_swap */
};
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
    arbor_real matrix[12];   /* with ARBOR__HAS_MATRIX: the node's local (affine) */
} arbor__attachment;

/* Where bounds/ keeps its subtree boxes (bounds/bounds_internal.h). */
struct arbor__subtree_box;
typedef struct arbor__subtree_boxes {
    struct arbor__subtree_box *entry;  /* NULL until first needed */
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

/* The one way the core tells the features built on it (bounds, edit) what it did: each entry
   NULL until the feature that needs it is first used in the scene, and set (or cleared) by that
   feature only. The core calls an entry only when it is set, so a scene without the feature
   pays one test of a pointer where it would be called, and nothing else. */
#define ARBOR__DESTROY_HOOKS 4
typedef struct arbor__hooks {
    /* Something in slot's subtree moved, came or went (bounds: the subtree boxes go stale). */
    void (*stale)(arbor_scene *s, uint32_t slot);
    /* The slots are being renumbered in place (scene/layout.c): slot i's node goes to
       new_slot[i], for i in [1, end); state kept per slot moves along (bounds: the subtree
       boxes, with arbor__permute). */
    void (*renumbered)(arbor_scene *s, uint32_t *new_slot, uint32_t end);
    /* Foreign parents (edit): the world matrix above a root (affine), NULL when it has none; */
    const arbor_real *(*foreign_world)(const arbor_scene *s, uint32_t slot);
    /* before world matrices are computed: every provider (slot 0: an update) or the one above
       slot (a read); */
    void (*poll)(arbor_scene *s, uint32_t slot);
    /* slot's record carries a foreign parent that must go (the node got a parent in the scene,
       or its record is dropped). */
    void (*unparent)(arbor_scene *s, uint32_t slot);
    /* A record that carries instance set `index` is dropped (bounds: the set is freed). */
    void (*drop_instances)(arbor_scene *s, uint32_t index);
    /* Change lists (edit): a lazy read (or a pose) is about to compute the chain top .. slot
       (down-links in scratch); an update computed the subtrees of roots[0 .. count) (roots
       NULL: a sweep of the whole scene), `computed` nodes in all, with versions above `before`
       (the clock when it began). */
    void (*computed_chain)(arbor_scene *s, uint32_t top, uint32_t slot);
    void (*computed_roots)(arbor_scene *s, const uint32_t *roots, uint32_t count, uint64_t computed, uint64_t before);
    /* The journal (edit): how many slots it holds, and their new slots numbered from k on (below
       end) in new_slot, each held subtree depth first, returning the new k (a renumbering
       carries them along). */
    uint32_t (*held_count)(const arbor_scene *s);
    uint32_t (*held_number)(const arbor_scene *s, uint32_t *new_slot, uint32_t k, uint32_t end);
    /* How messages name a node (arbor__node_label) besides its path: true with the node's index
       in the glTF file it was loaded from in *index (gltf: the nodes of its live documents). */
    bool (*file_index)(const arbor_scene *s, uint32_t slot, uint32_t *index);
    /* The scene is being destroyed: each registered feature frees its state (arbor__on_destroy). */
    void (*destroy[ARBOR__DESTROY_HOOKS])(arbor_scene *s);
} arbor__hooks;

/* An object made for a scene and destroyed by its user (a journal, pose, player, set of skins;
   a foreign parent's link to a node of another scene): the two may be destroyed in either
   order. The scene keeps its dependents in a ring through its own entry (arbor_scene.dependents).
   The scene's destroy, before anything else, calls each one's detach: the object drops what it
   keeps in the scene, forgets the scene, and refuses every call from then on (arbor__inert);
   its own destroy then frees it through `allocator`, the scene's, copied. */
typedef struct arbor__dependent {
    struct arbor__dependent *prev, *next; /* NULL once off the ring */
    void (*detach)(struct arbor__dependent *d);
    arbor_allocator allocator;
} arbor__dependent;

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
    uint32_t gen_first;      /* the generation word of an id's first node: tag | 1 */
    uint32_t live;           /* live nodes */
    uint32_t first_root, last_root;
    uint32_t pending_count;  /* entries in n.pending: nodes whose subtree may hold dirty nodes */
    uint32_t max_depth;
    uint32_t order_inversions; /* nodes whose parent's slot is above their own: while there are
                                  none, slot order puts parents first (scene/hierarchy.c) */
    uint32_t root_count;
    uint64_t shape;          /* bumped by every link, unlink and renumbering: poses (scene/pose.c)
                                re-derive what they keep of the tree when it moved */
    uint64_t tree_order_shape; /* the shape tree_order was found for (scene/world.c) */
    bool tree_order;
    _Atomic uint64_t clock;  /* the last version handed out (tasks take blocks of them) */
    uint64_t dirty_count;    /* nodes invalidated since the last update: its expected work */
    arbor_scene_stats stats;
    arbor_allocator allocator;
    arbor_log_fn log;
    void *log_user;
    bool walk_warned;
    arbor__attachment *attachments; /* record 0 unused */
    uint32_t attachment_cap, attachment_end, attachment_free;
    uint32_t bounded;               /* nodes (live or held) with a local box: kept by every writer
                                       of ARBOR__HAS_BOUNDS (set_bounds, release, swap, clone) */
    arbor__hooks hooks;             /* what the features built on the scene hear of it */
    arbor__dependent dependents;    /* the ring of dependents (its detach unused) */
    /* The state of the features built on the scene, each NULL until the feature is first used
       and owned by its folder: the core never reads them. */
    struct arbor_journal *journal;          /* edit/journal.c */
    struct arbor__foreign_table *foreign;   /* edit/foreign.c */
    struct arbor__changes *changes;         /* edit/changes.c */
    arbor__subtree_boxes boxes;             /* bounds/bounds.c */
    void *instance_table;           /* bounds/instances.c: arbor_scene_gather_instances' hash table, kept warm */
    uint32_t instance_table_cap;    /* its entries (a power of two, or 0) */
    uint32_t instance_stamp;        /* entries of other stamps are free (no clearing per call) */
    uint32_t hidden;                /* nodes (live or held) whose own visibility is off */
    arbor__visibility visibility;
    arbor__instance_sets instance_sets;
    struct arbor__gltf_docs *gltf_docs;     /* gltf/labels.c: the live documents loaded here */
    struct arbor__history *history;         /* time/time.c: stamped samples */
    double history_duration;                /* the desc's, defaults applied (seconds) */
    uint32_t history_capacity;              /* the desc's (0: no count limit) */
};

/* TRS layout inside n.trs. */
#define ARBOR__T 0
#define ARBOR__R 3
#define ARBOR__S 7
#define ARBOR__TRS 10

/* ---- allocation and logging through the scene's allocator and log (scene/alloc.c) ---- */
ARBOR__FOR_GLTF void *arbor__alloc(arbor_scene *s, size_t size);
/* Zeroed memory: calloc's with the default allocator (fresh pages it need not touch). */
void *arbor__alloc_zeroed(arbor_scene *s, size_t size);
/* Resizes p keeping its contents (the allocator's realloc, or alloc, copy and free); NULL with
   p untouched when out of memory. */
ARBOR__FOR_GLTF void *arbor__realloc(arbor_scene *s, void *p, size_t old_size, size_t new_size);
ARBOR__FOR_GLTF void arbor__free(arbor_scene *s, void *p, size_t size);
ARBOR__FOR_GLTF void arbor__log(arbor_scene *s, arbor_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A walk reached its bound: the links are corrupt. Said once per scene. */
void arbor__walk_bound(const arbor_scene *s, const char *walk, uint64_t bound);

/* ---- handles ---- */
/* A handle's high 32 bits, as n.gen stores them per id: the scene's tag (scene/scene.c, one
   of ARBOR__TAGS, no two live scenes alike while there are at most that many) above the id's
   generation (from 1; its last value freed retires the id). The one compare of
   arbor__live_slot so checks the scene too: a handle of another live scene is dead here. */
#define ARBOR__GEN_BITS 20
#define ARBOR__GEN_MASK ((1u << ARBOR__GEN_BITS) - 1)
#define ARBOR__TAGS (1u << (32 - ARBOR__GEN_BITS))
/* Sweeps in slot order find a node's parent anywhere before it: they ask for the parent's world
   matrix this many nodes ahead (both cache lines it may span), so the miss overlaps the work in
   between (scene/world.c's sweep, scene/pose.c's passes). */
#define ARBOR__PREFETCH_AHEAD 32u
static inline void arbor__prefetch_world(const arbor_real *world, uint32_t slot) {
    const arbor_real *m = world + (size_t)slot * 12;
    __builtin_prefetch(m);
    __builtin_prefetch(m + 11);
}

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
    if (!s || id == 0 || id >= s->id_end || s->n.gen[id] != (uint32_t)(n.id >> 32)) return 0;
    uint32_t slot = s->n.slot_of[id]; /* ARBOR__FREE_ID and up for a free or retired id */
    return slot < s->slot_end && (s->n.flags[slot] & ARBOR__ALIVE) ? slot : 0;
}
/* A fast path's checked fallback: out of line and cold, so the fast path pays no stack frame
   for a message (the label buffer lives there). */
#if defined(__GNUC__)
#define ARBOR__CHECKED_PATH __attribute__((noinline, cold))
#else
#define ARBOR__CHECKED_PATH
#endif
/* arbor__live_slot for a node none of whose flags in `without` is set: true with its slot in
   *slot, false otherwise (the caller's checked path then tells the cases apart). The fast
   path of a single-node read: the flags tested in one compare, and no test of the slot for
   0 (a bool, not the slot, tells the caller). */
static inline bool arbor__live_slot_without(const arbor_scene *s, arbor_node n, uint8_t without, uint32_t *slot) {
    uint32_t id = (uint32_t)n.id;
    if (!s || id == 0 || id >= s->id_end || s->n.gen[id] != (uint32_t)(n.id >> 32)) return false;
    *slot = s->n.slot_of[id];
    return *slot < s->slot_end && (s->n.flags[*slot] & (ARBOR__ALIVE | without)) == ARBOR__ALIVE;
}
/* The refusal of nodes[i], not a live node of the scene, by a call on many nodes: ARBOR_NONE
   (ARBOR_ERR_INVALID_ARGUMENT) or a dead handle (ARBOR_ERR_DEAD_NODE), recorded for fn. */
arbor_result arbor__refuse_not_live(arbor_node n, uint32_t i, const char *fn);
/* How messages name a node: its path of names from its root, quoted ('base/arm/hand'), an
   unnamed node on it as [i], its place among its siblings; a path longer than the buffer keeps
   its last part after ".../"; then, for a node loaded from a file whose document lives (the
   file_index hook), its index there: 'base/arm/hand' (#3). Written into buf (cap bytes), which it returns a part of. */
#define ARBOR__LABEL_CAP 160
const char *arbor__node_label(const arbor_scene *s, uint32_t slot, char *buf, size_t cap);
#define ARBOR__NODE_FMT "%s"
#define ARBOR__NODE_ARGS(s, slot) arbor__node_label((s), (slot), (char[ARBOR__LABEL_CAP]){0}, ARBOR__LABEL_CAP)
/* The slot for a node argument, or 0 after recording why (ARBOR_ERR_INVALID_ARGUMENT for a
   NULL scene or ARBOR_NONE, ARBOR_ERR_DEAD_NODE otherwise) in *result. */
uint32_t arbor__require_failed(const arbor_scene *s, arbor_node n, const char *func, arbor_result *result);
static inline uint32_t arbor__require(const arbor_scene *s, arbor_node n, const char *func, arbor_result *result) {
    uint32_t slot = arbor__live_slot(s, n);
    return slot ? slot : arbor__require_failed(s, n, func, result);
}
/* A NULL out-pointer (or array) of func: ARBOR_ERR_INVALID_ARGUMENT, recorded. */
#define ARBOR__REQUIRE_OUT(ptr, func)                                                                   \
    do {                                                                                                \
        if (!(ptr)) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, (func), "%s is NULL", #ptr);          \
    } while (0)

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

/* ---- hooks (scene/scene.c) ---- */
/* Calls the stale hook, if one is set: something in slot's subtree moved, came or went. Every
   write passes here: the call is out of line so that, without a hook, the test is one compare
   with memory, as cheap as it gets. */
void arbor__call_stale(arbor_scene *s, uint32_t slot);
static inline void arbor__notify_stale(arbor_scene *s, uint32_t slot) {
    if (s->hooks.stale) arbor__call_stale(s, slot);
}
/* Has fn called when the scene is destroyed (once, however often it is asked). */
ARBOR__FOR_GLTF void arbor__on_destroy(arbor_scene *s, void (*fn)(arbor_scene *s));
/* d joins s's dependents (detach: what s's destroy calls), with s's allocator; d leaves them
   (nothing when it is off the ring: its scene is gone). */
ARBOR__FOR_GLTF void arbor__dependent_join(arbor_scene *s, arbor__dependent *d, void (*detach)(arbor__dependent *d));
ARBOR__FOR_GLTF void arbor__dependent_leave(arbor__dependent *d);
/* The refusal of every call of a dependent whose scene was destroyed: ARBOR_ERR_INVALID_ARGUMENT. */
ARBOR__FOR_GLTF arbor_result arbor__inert(const char *fn);

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
/* Puts slot on the pending list (once). */
static inline void arbor__pending_push(arbor_scene *s, uint32_t slot) {
    if (s->n.flags[slot] & ARBOR__PENDING) return;
    s->n.flags[slot] |= ARBOR__PENDING;
    s->n.pending[s->pending_count++] = slot; /* at most one entry per slot: never overflows */
}
/* Marks slot's world matrix out of date, and with it its descendants' (stopping at nodes
   already out of date), and keeps the node reachable by the next update. */
void arbor__invalidate_subtree(arbor_scene *s, uint32_t slot);
static inline void arbor__invalidate(arbor_scene *s, uint32_t slot) {
    arbor__notify_stale(s, slot);
    /* Out of date already and reachable by the update (pending, or under an out-of-date
       parent): nothing to do. This makes writing a node again O(1). */
    uint8_t f = s->n.flags[slot];
    uint32_t parent = s->n.parent[slot];
    if ((f & ARBOR__WORLD_DIRTY) &&
        ((f & ARBOR__PENDING) || (parent && (s->n.flags[parent] & ARBOR__WORLD_DIRTY))))
        return;
    arbor__invalidate_subtree(s, slot);
}
/* arbor__invalidate for a node just made, current and with no children yet: its subtree is
   itself. */
static inline void arbor__invalidate_new(arbor_scene *s, uint32_t slot) {
    arbor__notify_stale(s, slot);
    s->n.flags[slot] |= ARBOR__WORLD_DIRTY;
    s->stats.invalidated++;
    s->dirty_count++;
    uint32_t parent = s->n.parent[slot];
    if (!parent || !(s->n.flags[parent] & ARBOR__WORLD_DIRTY)) arbor__pending_push(s, slot);
}
/* Many writes at once, in a scene whose slot order puts parents first: each written node is
   marked (its TRS written), then one arbor__invalidate_in_order from the lowest written slot
   finishes what arbor__invalidate would have done node by node. */
static inline void arbor__mark_written(arbor_scene *s, uint32_t slot) {
    uint8_t f = (uint8_t)(s->n.flags[slot] & ~ARBOR__MATRIX);
    if (!(f & ARBOR__WORLD_DIRTY)) f |= ARBOR__WORLD_DIRTY | ARBOR__QUEUED;
    s->n.flags[slot] = f;
}
void arbor__invalidate_in_order(arbor_scene *s, uint32_t from);
/* Whether a walk down the tree meets the live slots in increasing order: every subtree's live
   nodes are then those of one range of slots (checked once a shape). */
bool arbor__in_tree_order(arbor_scene *s);
/* Brings slot's world matrix up to date (the chain of out-of-date ancestors first). */
void arbor__resolve_dirty(arbor_scene *s, uint32_t slot);
static inline void arbor__resolve(arbor_scene *s, uint32_t slot) {
    if (s->n.flags[slot] & ARBOR__WORLD_DIRTY) arbor__resolve_dirty(s, slot);
}

/* ---- passes shared by claiming blocks in order (scene/world.c) ---- */
/* A pass in slot order over a parents-first scene that is not in tree order (one big tree
   built in any order, as WORKLOADS.md's `random`), shared by many tasks: its items (slots, or a
   pose's positions) come in blocks the tasks claim in increasing order, each block publishing
   its progress as it goes, and an item whose parent lies in an earlier block still under way
   waits until that block has passed the parent. The lowest unfinished block never waits, so
   the pass finishes on any executor (one thread, tasks in any order). */
#define ARBOR__CLAIM_BLOCK 256u /* small: the item that waits is one whose parent lies in a block
                                   under way, about BLOCK / i of item i in `random` */
#define ARBOR__CLAIM_STEP 64u   /* items between two publications of a block's progress */
#define ARBOR__CLAIM_PAD 16u    /* progress entries a block apart: one cache line each */
typedef struct arbor__claims {
    uint32_t *progress;    /* per block (every PAD-th entry): its items done, from its first */
    uint32_t base, end;    /* the items: [base, end) */
    uint32_t blocks;
    _Atomic uint32_t next; /* the next block to claim */
} arbor__claims;
/* Items [base, end), progress in `progress` (PAD entries a block: the scene's scratch holds
   them, one a slot, for any pass over at most its slots). */
void arbor__claims_init(arbor__claims *c, uint32_t *progress, uint32_t base, uint32_t end);
/* The next block's items [*first, *stop); false when none is left. */
bool arbor__claim(arbor__claims *c, uint32_t *first, uint32_t *stop);
/* The block from `first` has its items before `at` done. */
static inline void arbor__claim_publish(arbor__claims *c, uint32_t first, uint32_t at) {
    __atomic_store_n(&c->progress[(first - c->base) / ARBOR__CLAIM_BLOCK * ARBOR__CLAIM_PAD], at - first, __ATOMIC_RELEASE);
}
/* Returns once item `at` is done, when it lies before the caller's block (from `first`);
   *ready: the items before it are known to be done (the task's own, from base at first). */
void arbor__claim_wait_slow(arbor__claims *c, uint32_t at, uint32_t *ready);
static inline void arbor__claim_wait(arbor__claims *c, uint32_t at, uint32_t first, uint32_t *ready) {
    if (at >= *ready && at < first) arbor__claim_wait_slow(c, at, ready);
}

/* ---- storage (scene/scene.c) ---- */
/* Makes room for `extra` more nodes; false on out of memory (nothing changed). */
ARBOR__FOR_GLTF bool arbor__reserve(arbor_scene *s, uint32_t extra);

/* Bulk writes once checked (the bulk setters' second half, scene/scene.c): nodes[i] alive and
   unlocked gets values[i * k .. i * k + k - 1] at `offset` of its TRS (ARBOR__T, ARBOR__R or
   ARBOR__S), rotations normalised when asked; then invalidation as for any write. */
void arbor__write_many(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count, int offset,
                       int k, bool normalize);

/* ---- storage order (scene/layout.c) ---- */
/* Renumbers the slots depth first (parents first, each subtree one range), in place (no
   allocation); false when the links are corrupt (nothing changed). */
bool arbor__relayout(arbor_scene *s);
/* Moves element i of array a (elem bytes each, at most a local matrix's) to new_slot[i], for i
   in [1, end), in place, cycle by cycle; new_slot is as it was when it returns. */
void arbor__permute(void *a, size_t elem, uint32_t *new_slot, uint32_t end);

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
ARBOR__FOR_GLTF const arbor__attachment *arbor__attachment_of(const arbor_scene *s, uint32_t slot);
/* Makes sure the next `count` records nodes ask for can be had; false when out of memory. */
bool arbor__attachment_reserve(arbor_scene *s, uint32_t count);
/* The node's record, made (empty) when it has none; NULL when out of memory. */
arbor__attachment *arbor__attachment_writable(arbor_scene *s, uint32_t slot);
/* Exchanges what the node carries (user, mesh, bounds, camera, light) with *other; an empty
   *other (mesh -1, nothing in has, no user) leaves the node without a record. Its foreign
   parent stays. False when out of memory (nothing changed). */
bool arbor__attachment_swap(arbor_scene *s, uint32_t slot, arbor__attachment *other);
/* Drops the node's record when it no longer holds anything (a setter that cleared a part). */
void arbor__attachment_trim(arbor_scene *s, uint32_t slot);
/* Drops the node's record (node destruction). */
void arbor__attachment_release(arbor_scene *s, uint32_t slot);
/* Frees the scene's records. */
void arbor__attachments_free(arbor_scene *s);

/* ---- local matrices (scene/attach.c) ---- */
/* A node's local is composed from its TRS wherever it is needed (nothing caches it), except
   for a local set as a matrix (ARBOR__MATRIX) that its TRS does not compose to bit for bit (a
   shear, or rounding): that matrix (affine) is kept in the node's record, and this returns it;
   NULL for every other node. */
static inline const arbor_real *arbor__kept_matrix(const arbor_scene *s, uint32_t slot) {
    uint32_t a = s->n.attachment[slot];
    return (s->n.flags[slot] & ARBOR__MATRIX) && a && (s->attachments[a].has & ARBOR__HAS_MATRIX) ? s->attachments[a].matrix
                                                                                                   : NULL;
}
/* The node's local matrix: the one it keeps, or composed from its TRS. */
static inline arbor__rows arbor__local_rows(const arbor_scene *s, uint32_t slot) {
    const arbor_real *m = arbor__kept_matrix(s, slot);
    return m ? arbor__rows_load(m) : arbor__rows_compose_trs(s->n.trs + (size_t)slot * ARBOR__TRS);
}
/* Whether the local m (affine) must be kept: trs does not compose to its bits. */
bool arbor__matrix_needs_keeping(const arbor_real m[12], const arbor_real trs[ARBOR__TRS]);
/* Keeps m (affine) as slot's local matrix, or none when m is NULL; the caller sets ARBOR__MATRIX.
   False when out of memory for the record (nothing changed; a reserved record cannot fail). */
bool arbor__keep_matrix(arbor_scene *s, uint32_t slot, const arbor_real *m);

/* ---- hierarchy (scene/hierarchy.c) ---- */
void arbor__link(arbor_scene *s, uint32_t slot, uint32_t parent, uint32_t before);
void arbor__unlink(arbor_scene *s, uint32_t slot);
/* Writes a local that keeps a world matrix: TRS when it is one, else an unlocked matrix (a
   shear, which takes a record: the caller reserved one when arbor__kept_local_is_matrix). The
   caller invalidates. */
void arbor__store_kept_local(arbor_scene *s, uint32_t slot, const arbor_real local[12]);
bool arbor__kept_local_is_matrix(const arbor_real local[12]);

#endif
