/* SPDX-License-Identifier: MIT */
/*
 * Poses (arbor/pose.h): the caller's TRS for a fixed set of nodes, stored and turned into world
 * matrices in one pass in slot order.
 *
 * The pass leans on the invariants of scene/world.c: in a parents-first scene, going through
 * the pose's slots in order computes a pose parent before its children; a parent outside the
 * pose is brought up to date first (in a "simple" pose no node outside it lies between two of
 * its nodes, so those parents do not depend on what the pass writes); the children outside the
 * pose are invalidated afterwards, as a write would. The pass stores each node's TRS, world
 * matrix, version and flags, and nothing else (a local is composed from the TRS wherever it is
 * needed, with the same expressions: the same bits).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "scene/scene_internal.h"
#include "arbor/pose.h"

#define POSE_TASKS 64u
#define CLAIM_TASKS 16u         /* tasks claiming the blocks of the products (one big tree) */
#define POSE_PARALLEL_MIN 8192u /* fewer nodes: waking threads costs more than it saves */
#define CHECK_BLOCK 256u        /* nodes a check reads at a time (the zero test reads them again, in cache) */
#if ARBOR__SIMD && defined(__SSE2__) && defined(__x86_64__)
#define POSE_STREAM 1 /* the pass streams what it never reads back (stream4) */
#else
#define POSE_STREAM 0
#endif
#define POSE_STREAM_MIN 16384u /* fewer nodes: their TRS and versions (about 800 KB at this count
                                   in float) stay in the caches, where a plain store is cheaper
                                   than a streamed one, which evicts the line */
#define FAR_PARENT 256u         /* slots back past which a parent's world matrix may have left the
                                   nearer caches: when an eighth of the pose's parents are that far
                                   (one big tree built in any order), the pass asks for them ahead;
                                   otherwise (skeletons, chains) asking costs more than it saves */

struct arbor_pose {
    arbor__dependent dep;    /* of its scene (first: the detach finds the pose) */
    arbor_scene *s;          /* NULL once the scene is destroyed */
    uint32_t count;
    arbor_trs *trs;          /* the caller's entries, index order */
    arbor_node *nodes;       /* index order */
    /* What the pose keeps of the tree, valid while shape == s->shape: */
    uint64_t shape;
    bool derived;
    bool simple;             /* the pass may run (see the top of the file) */
    bool sorted;             /* index order is slot order */
    bool contiguous;         /* sorted, in consecutive slots */
    bool far_parents;        /* enough parents far back in storage that the pass asks ahead for them */
    bool stream;             /* big enough for the pass to stream the TRS and versions (stream4) */
    uint32_t *slot;          /* position k (slot order): the slot */
    uint32_t *index;         /* position k: the pose index */
    uint32_t *outside;       /* children outside the pose of pose nodes */
    uint32_t *above;         /* parents outside the pose of pose nodes */
    uint32_t outside_count, above_count, lists_cap;
    uint32_t cut[POSE_TASKS + 1]; /* positions where a task may start: no node after a cut has
                                     its pose parent before it, but the early ones' */
    uint32_t task_count;
    uint32_t *early;         /* positions passed before the tasks, in order (tree_cuts) */
    uint32_t early_count, early_cap;
    uint64_t serial;
};

static _Atomic uint64_t pose_serials;

arbor_scene *arbor__pose_scene(const arbor_pose *p) { return p->s; }
uint64_t arbor__pose_serial(const arbor_pose *p) { return p->serial; }

static size_t pose_bytes(uint32_t count) {
    return (size_t)(count ? count : 1) * (sizeof(arbor_trs) + sizeof(arbor_node) + 2 * sizeof(uint32_t));
}

static void free_lists(arbor_pose *p) {
    const arbor_allocator *a = &p->dep.allocator;
    arbor__free_with(a, p->outside, (size_t)p->lists_cap * sizeof(uint32_t));
    arbor__free_with(a, p->above, (size_t)p->lists_cap * sizeof(uint32_t));
    arbor__free_with(a, p->early, (size_t)p->early_cap * sizeof(uint32_t));
    p->outside = p->above = p->early = NULL;
    p->lists_cap = p->early_cap = 0;
}

static void detach(arbor__dependent *d) { ((arbor_pose *)d)->s = NULL; }

void arbor_pose_destroy(arbor_pose *p) {
    if (!p) return;
    arbor__dependent_leave(&p->dep);
    const arbor_allocator a = p->dep.allocator;
    free_lists(p);
    arbor__free_with(&a, p->trs, pose_bytes(p->count));
    arbor__free_with(&a, p, sizeof *p);
}

uint32_t arbor_pose_count(const arbor_pose *p) { return p ? p->count : 0; }
const arbor_node *arbor_pose_nodes(const arbor_pose *p) { return p ? p->nodes : NULL; }
arbor_trs *arbor_pose_trs(arbor_pose *p) { return p ? p->trs : NULL; }

static int compare_keys(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Whether slot holds a pose node (scratch maps pose slots to their positions; any other slot's
   entry is whatever a walk left there, so it is checked against the position it names). */
static inline bool member(const arbor_pose *p, uint32_t slot) {
    uint32_t k = p->s->n.scratch[slot];
    return slot && k < p->count && p->slot[k] == slot;
}

/* One big tree has no cut where every later node's pose parent is later too. In tree order
   (each subtree one range of slots) a node after position k whose pose parent is before k is
   below a pose ancestor of k's node, so any k will do once those ancestors are passed: they
   are marked (2 in mark) and listed in p->early, to be passed first. Gives up (false, the
   pose keeps its cuts) when they would be more than an eighth of the pose (a deep tree). */
static bool tree_cuts(arbor_pose *p, uint32_t *mark, arbor_result *r, const char *fn) {
    arbor_scene *s = p->s;
    uint32_t count = p->count, cut[POSE_TASKS + 1], tasks = 0, early = 0;
    cut[0] = 0;
    for (uint32_t j = 1; j < POSE_TASKS; j++) {
        uint32_t k = (uint32_t)((uint64_t)count * j / POSE_TASKS);
        if (k <= cut[tasks]) continue;
        cut[++tasks] = k;
        for (uint32_t a = s->n.parent[p->slot[k]]; member(p, a) && mark[s->n.scratch[a]] != 2; a = s->n.parent[a]) {
            mark[s->n.scratch[a]] = 2;
            if (++early > count / 8) return false;
        }
    }
    cut[++tasks] = count;
    if (early > p->early_cap) {
        uint32_t *list = arbor__alloc(s, (size_t)early * sizeof *list);
        if (!list) {
            *r = arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the pose's cuts");
            return false;
        }
        arbor__free(s, p->early, (size_t)p->early_cap * sizeof *list);
        p->early = list;
        p->early_cap = early;
    }
    p->early_count = 0;
    for (uint32_t k = 0; k < count && p->early_count < early; k++)
        if (mark[k] == 2) p->early[p->early_count++] = k;
    memcpy(p->cut, cut, sizeof cut);
    p->task_count = tasks;
    return true;
}

/* Finds the pose's nodes in the tree as it is now: their slots in order, the children and
   parents outside the pose, whether the pass may run, where tasks may start. */
static arbor_result derive(arbor_pose *p, const char *fn) {
    arbor_scene *s = p->s;
    uint32_t count = p->count;
    bool sorted = true;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t slot = arbor__live_slot(s, p->nodes[i]);
        if (!slot) return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "the node of pose entry %u was destroyed", i);
        p->slot[i] = slot;
        if (i && slot <= p->slot[i - 1]) sorted = false;
    }
    /* In slot order (as made, until the storage is renumbered), index is the identity, written
       last: until then it holds each position's pose parent (parent_pos below), so the pass
       allocates nothing. Otherwise the order is sorted, and its keys hold that. */
    size_t keys_size = 0;
    uint64_t *keys = NULL;
    uint32_t *parent_pos = p->index;
    if (!sorted) {
        keys_size = (size_t)count * sizeof(uint64_t);
        if (!(keys = arbor__alloc(s, keys_size))) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the pose's order");
        for (uint32_t i = 0; i < count; i++) keys[i] = (uint64_t)p->slot[i] << 32 | i;
        qsort(keys, count, sizeof *keys, compare_keys);
        for (uint32_t k = 0; k < count; k++) {
            p->slot[k] = (uint32_t)(keys[k] >> 32);
            p->index[k] = (uint32_t)keys[k];
            if (k && p->slot[k] == p->slot[k - 1]) {
                arbor__free(s, keys, keys_size);
                return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "node " ARBOR__NODE_FMT " is in the pose twice (entries %u and %u)",
                                   ARBOR__NODE_ARGS(s, p->slot[k]), p->index[k - 1], p->index[k]);
            }
        }
        parent_pos = (uint32_t *)keys; /* reused */
    }
    p->sorted = sorted;
    for (uint32_t k = 0; k < count; k++) s->n.scratch[p->slot[k]] = k;

    /* The lists outside, counted first; a pose node below an outside node below a pose node
       makes the pose not simple (climbs bounded: past the budget, not simple either). */
    uint32_t outside = 0, above = 0;
    uint64_t budget = 4 * (uint64_t)count + 1024;
    bool simple = s->order_inversions == 0 && !s->hooks.foreign_world;
    /* parent_pos[k]: the position of position k's pose parent */
    uint32_t far = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t slot = p->slot[k], parent = s->n.parent[slot];
        far += parent && slot - parent > FAR_PARENT;
        for (uint32_t c = s->n.first_child[slot]; c; c = s->n.next_sibling[c]) outside += !member(p, c);
        parent_pos[k] = member(p, parent) ? s->n.scratch[parent] : UINT32_MAX;
        if (!parent || member(p, parent)) continue;
        above++;
        for (uint32_t a = s->n.parent[parent]; a && simple; a = s->n.parent[a])
            if (member(p, a) || budget-- == 0) simple = false;
    }
    uint32_t cap = outside > above ? outside : above;
    if (cap > p->lists_cap) {
        uint32_t *o = arbor__alloc(s, (size_t)cap * sizeof *o), *a = o ? arbor__alloc(s, (size_t)cap * sizeof *a) : NULL;
        if (!a) {
            arbor__free(s, o, (size_t)cap * sizeof *o);
            arbor__free(s, keys, keys_size);
            return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the pose's links");
        }
        free_lists(p);
        p->outside = o;
        p->above = a;
        p->lists_cap = cap;
    }
    p->outside_count = p->above_count = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t slot = p->slot[k], parent = s->n.parent[slot];
        for (uint32_t c = s->n.first_child[slot]; c; c = s->n.next_sibling[c])
            if (!member(p, c)) p->outside[p->outside_count++] = c;
        if (parent && !member(p, parent)) p->above[p->above_count++] = parent;
    }

    /* Cuts: position k may start a task when every position from k on has its pose parent at
       k or later (suffix minimum of parent positions, in place). */
    uint32_t low = UINT32_MAX;
    for (uint32_t k = count; k-- > 0;) {
        if (parent_pos[k] < low) low = parent_pos[k];
        parent_pos[k] = low >= k; /* 1: a cut */
    }
    uint32_t tasks = 0;
    p->cut[0] = 0;
    for (uint32_t j = 1, k = 0; j < POSE_TASKS && count; j++) {
        uint32_t target = (uint32_t)((uint64_t)count * j / POSE_TASKS);
        if (k < target) k = target;
        while (k < count && !parent_pos[k]) k++;
        if (k >= count) break;
        if (k > p->cut[tasks]) p->cut[++tasks] = k;
    }
    p->cut[++tasks] = count;
    p->task_count = tasks;
    p->early_count = 0;
    arbor_result r = ARBOR_OK;
    if (tasks < POSE_TASKS / 4 && count >= POSE_PARALLEL_MIN && simple && arbor__in_tree_order(s) &&
        !tree_cuts(p, parent_pos, &r, fn) && r) {
        arbor__free(s, keys, keys_size);
        return r;
    }
    if (sorted)
        for (uint32_t k = 0; k < count; k++) p->index[k] = k;
    p->far_parents = far > count / 8;
    p->stream = POSE_STREAM && count >= POSE_STREAM_MIN;
    p->contiguous = sorted && count && p->slot[count - 1] - p->slot[0] == count - 1;
    p->simple = simple;
    p->shape = s->shape;
    p->derived = true;
    arbor__free(s, keys, keys_size);
    return ARBOR_OK;
}

static arbor_result ready(arbor_pose *p, const char *fn) {
    if (!p) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "pose is NULL");
    if (!p->s) return arbor__inert(fn);
    return p->derived && p->shape == p->s->shape ? ARBOR_OK : derive(p, fn);
}

static arbor_result read_entries(arbor_pose *p, const char *fn) {
    arbor_result r = ready(p, fn);
    if (r) return r;
    for (uint32_t k = 0; k < p->count; k++)
        memcpy(&p->trs[p->index[k]], p->s->n.trs + (size_t)p->slot[k] * ARBOR__TRS, sizeof(arbor_trs));
    return ARBOR_OK;
}

arbor_result arbor_pose_read(arbor_pose *p) { return read_entries(p, "arbor_pose_read"); }

/* nodes[0 .. count) (none NONE) into out in the scene's storage order; refused for a node not
   alive or given twice. */
static arbor_result storage_order(arbor_scene *s, const arbor_node *nodes, uint32_t count, arbor_node *out, const char *fn) {
    size_t size = (size_t)(count ? count : 1) * sizeof(uint64_t);
    uint64_t *keys = arbor__alloc(s, size);
    if (!keys) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the pose's order");
    arbor_result r = ARBOR_OK;
    bool sorted = true;
    for (uint32_t i = 0; i < count && !r; i++) {
        uint32_t slot = arbor__live_slot(s, nodes[i]);
        if (!slot) r = arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "nodes[%u] is not a live node", i);
        keys[i] = (uint64_t)slot << 32 | i;
        if (i && keys[i] < keys[i - 1]) sorted = false;
    }
    if (!r && !sorted) qsort(keys, count, sizeof *keys, compare_keys);
    for (uint32_t k = 0; k < count && !r; k++) {
        if (k && keys[k] >> 32 == keys[k - 1] >> 32)
            r = arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "nodes[%u] and nodes[%u] are the same node " ARBOR__NODE_FMT,
                            (uint32_t)keys[k - 1], (uint32_t)keys[k], ARBOR__NODE_ARGS(s, (uint32_t)(keys[k] >> 32)));
        out[k] = nodes[(uint32_t)keys[k]];
    }
    arbor__free(s, keys, size);
    return r;
}

arbor_result arbor_pose_create(arbor_scene *s, const arbor_node *nodes, uint32_t count, arbor_pose **out) {
    static const char *const fn = "arbor_pose_create";
    if (!s || !out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "scene and out are required");
    if (!nodes) count = s->live;
    for (uint32_t i = 0; nodes && i < count; i++)
        if (!nodes[i].id) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "nodes[%u] is ARBOR_NONE", i);
    arbor_pose *p = arbor__alloc(s, sizeof *p);
    char *block = p ? arbor__alloc(s, pose_bytes(count)) : NULL;
    if (!block) {
        arbor__free(s, p, sizeof *p);
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for a pose of %u nodes", count);
    }
    *p = (arbor_pose){ .s = s, .count = count, .serial = atomic_fetch_add(&pose_serials, 1) + 1 };
    arbor__dependent_join(s, &p->dep, detach);
    p->trs = (arbor_trs *)block;
    p->nodes = (arbor_node *)(block + (size_t)count * sizeof(arbor_trs));
    p->slot = (uint32_t *)(block + (size_t)count * (sizeof(arbor_trs) + sizeof(arbor_node)));
    p->index = p->slot + count;
    arbor_result r = ARBOR_OK;
    if (nodes) {
        r = storage_order(s, nodes, count, p->nodes, fn);
    } else {
        uint32_t i = 0;
        for (uint32_t slot = 1; slot < s->slot_end && i < count; slot++)
            if (s->n.flags[slot] & ARBOR__ALIVE) p->nodes[i++] = arbor__handle(s, slot);
    }
    if (!r) r = read_entries(p, fn);
    if (r) {
        arbor_pose_destroy(p);
        return r;
    }
    *out = p;
    return ARBOR_OK;
}

arbor_result arbor__pose_lookup(arbor_pose *p, const char *fn) {
    arbor_result r = ready(p, fn);
    if (r) return r;
    for (uint32_t k = 0; k < p->count; k++) p->s->n.scratch[p->slot[k]] = k; /* lazy reads may have used it */
    return ARBOR_OK;
}

arbor_result arbor__pose_entries(const arbor_pose *p, const arbor_node *nodes, uint32_t count, uint32_t *entry, const char *fn) {
    const arbor_scene *s = p->s;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t slot = arbor__live_slot(s, nodes[i]);
        if (!slot) return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "a destroyed node is not in the pose");
        if (!member(p, slot))
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "node " ARBOR__NODE_FMT " is not in the pose", ARBOR__NODE_ARGS(s, slot));
        entry[i] = p->index[s->n.scratch[slot]];
    }
    return ARBOR_OK;
}

/* ---- checks ------------------------------------------------------------------------------ */

/* Whether entries [first, end) are finite with a rotation that is not all zero: a NaN or
   infinity makes v * 0 a NaN (any other value a zero), which survives the sums (no branch per
   value; the multiply reads its operand from memory: no load of its own). */
ARBOR__DISPATCH static bool values_ok(const arbor_trs *trs, uint32_t first, uint32_t end) {
    for (uint32_t block = first; block < end; block += CHECK_BLOCK) {
        uint32_t stop = end - block < CHECK_BLOCK ? end : block + CHECK_BLOCK;
        const arbor_real *v = trs[block].translation;
        size_t n = (size_t)(stop - block) * ARBOR__TRS, i = 0;
#if ARBOR__SIMD
        const arbor__v4x2 nil = {0, 0, 0, 0, 0, 0, 0, 0}; /* eight reals: one register with AVX (float) */
        arbor__v4x2 a = nil, b = nil, c = nil, d = nil;
        for (; i + 32 <= n; i += 32) {
            arbor__v4x2 x, y, z, w;
            memcpy(&x, v + i, sizeof x);
            memcpy(&y, v + i + 8, sizeof y);
            memcpy(&z, v + i + 16, sizeof z);
            memcpy(&w, v + i + 24, sizeof w);
            a = a + x * nil;
            b = b + y * nil;
            c = c + z * nil;
            d = d + w * nil;
        }
        for (; i + 8 <= n; i += 8) { /* the rest eight at a time: a small pose is mostly rest */
            arbor__v4x2 x;
            memcpy(&x, v + i, sizeof x);
            a = a + x * nil;
        }
        a = (a + b) + (c + d);
        arbor_real zero = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
#else
        arbor_real zero = 0;
#endif
        for (; i < n; i++) zero = zero + v[i] * 0;
        unsigned no_length = 0;
        uint32_t k = block;
#if ARBOR__SIMD
        /* eight rotations, a node a lane (k + j in lane j of the first half, k + 4 + j of the
           second): all four components zero in some lane */
        const arbor__v4x2 zeros = nil;
        arbor__mask4x2 none8 = zeros != zeros;
        for (; k + 8 <= stop; k += 8) {
            const arbor_real *q = (const arbor_real *)(trs + k) + ARBOR__R; /* the entries', not one array's */
            arbor__v4x2 x = ARBOR__V4X2_LOAD(q), y = ARBOR__V4X2_LOAD(q + 10);
            arbor__v4x2 z = ARBOR__V4X2_LOAD(q + 20), w = ARBOR__V4X2_LOAD(q + 30);
            ARBOR__TRANSPOSE4X2(x, y, z, w);
            none8 |= (x == zeros) & (y == zeros) & (z == zeros) & (w == zeros);
        }
        const arbor__v4 nought = {0, 0, 0, 0};
        arbor__mask4 none = (ARBOR__HALF(none8, 0) | ARBOR__HALF(none8, 1)) != 0;
        for (; k + 4 <= stop; k += 4) {
            arbor__v4 x = arbor__v4_load(trs[k].rotation), y = arbor__v4_load(trs[k + 1].rotation);
            arbor__v4 z = arbor__v4_load(trs[k + 2].rotation), w = arbor__v4_load(trs[k + 3].rotation);
            ARBOR__TRANSPOSE4(x, y, z, w);
            none |= (x == nought) & (y == nought) & (z == nought) & (w == nought);
        }
        no_length = (unsigned)((none[0] | none[1] | none[2] | none[3]) != 0);
#endif
        for (; k < stop; k++) {
            const arbor_real *q = trs[k].rotation;
            no_length |= (unsigned)((q[0] == 0) & (q[1] == 0) & (q[2] == 0) & (q[3] == 0));
        }
        if (zero != 0 || no_length) return false;
    }
    return true;
}

/* The OR of n bytes, eight at a time. */
static uint8_t or_bytes(const uint8_t *bytes, uint32_t n) {
    uint64_t words = 0;
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, bytes + i, sizeof w);
        words |= w;
    }
    uint8_t any = 0;
    for (; i < n; i++) any |= bytes[i];
    for (int b = 0; b < 8; b++) any |= (uint8_t)(words >> (8 * b));
    return any;
}

/* The first refused entry in index order (the checks found one): why, as arbor_node_set_trs
   would say it. */
static arbor_result refusal(const arbor_pose *p, const char *fn) {
    arbor_scene *s = p->s;
    for (uint32_t i = 0; i < p->count; i++) {
        arbor_node n = p->nodes[i];
        uint32_t slot = arbor__slot(s, n);
        if (s->n.flags[slot] & ARBOR__LOCKED)
            return arbor__fail(ARBOR_ERR_LOCKED, fn, "pose entry %u: node " ARBOR__NODE_FMT " has a locked local matrix", i,
                               ARBOR__NODE_ARGS(s, slot));
        if (!values_ok(p->trs, i, i + 1)) {
            bool finite = arbor__all_finite(p->trs[i].translation, ARBOR__TRS);
            return arbor__fail(finite ? ARBOR_ERR_INVALID_ARGUMENT : ARBOR_ERR_NONFINITE, fn,
                               "pose entry %u (node " ARBOR__NODE_FMT "): %s", i, ARBOR__NODE_ARGS(s, slot),
                               finite ? "the rotation has no length" : "the TRS holds a NaN or infinity");
        }
    }
    return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "an entry was refused");
}

/* ---- the pass ---------------------------------------------------------------------------- */

/* The scene's arrays the pass writes, copied out of the scene: a store to flags (bytes, which
   may alias anything) would otherwise make the compiler load every pointer again. */
typedef struct pose_arrays {
    arbor_real *trs, *world;
    const uint32_t *parent;
    uint64_t *version;
    uint8_t *flags;
    bool stream; /* the pose's: the TRS and versions streamed where they can be */
} pose_arrays;

/* What the pass leaves in a posed node's flags: its TRS written (no kept matrix), its world
   matrix current. */
#define POSED_CLEARS (ARBOR__MATRIX | ARBOR__WORLD_DIRTY | ARBOR__QUEUED)
static inline uint8_t posed_flags(uint8_t f) { return (uint8_t)(f & ~POSED_CLEARS); }

/* One node: its TRS stored as arbor_node_set_trs stores it (the rotation normalised as
   arbor__unit_quat does), its world matrix computed as scene/world.c's compute_world does (a
   root's is its local: no foreign parents here), with the same expressions in the same order,
   so the same bits. The values go from the caller's entry to registers and on, never through
   the stack (a store read back wider than written stalls). */
ARBOR__HOT void pose_node(pose_arrays s, const arbor_trs *in, uint32_t slot, uint64_t version, bool multiply) {
    arbor_real *trs = s.trs + (size_t)slot * ARBOR__TRS;
#if ARBOR__SIMD
    arbor__v4 q = arbor__v4_load(in->rotation);
    arbor_real l;
    if (arbor__quat_length_fast(in->rotation, &l)) {
        q = q / (arbor__v4){l, l, l, l};
    } else { /* far from unit: the scaled path (checked: cannot fail) */
        arbor_real u[4];
        arbor_quat_normalize(u, in->rotation);
        q = arbor__v4_load(u);
    }
    memcpy(trs + ARBOR__T, in->translation, sizeof in->translation);
    memcpy(trs + ARBOR__R, &q, sizeof q);
    memcpy(trs + ARBOR__S, in->scale, sizeof in->scale);
    arbor__rows world = arbor__rows_compose_q(in->translation, q[0], q[1], q[2], q[3], in->scale);
#else
    arbor_real v[ARBOR__TRS];
    memcpy(v, in, sizeof v);
    arbor__unit_quat(v + ARBOR__R, v + ARBOR__R); /* checked: cannot fail */
    memcpy(trs, v, sizeof v);
    arbor__rows world = arbor__rows_compose_trs(v);
#endif
    uint32_t parent = multiply ? s.parent[slot] : 0;
    if (parent) world = arbor__rows_mul(arbor__rows_load(s.world + (size_t)parent * 12), world);
    arbor__rows_store(s.world + (size_t)slot * 12, world);
    s.version[slot] = version;
    s.flags[slot] = posed_flags(s.flags[slot]);
}

#if ARBOR__SIMD
/* A posed node's world matrix from its local rows, in half h of r[0 .. 2] (pose8): the
   product's registers go straight to memory. */
ARBOR__HOT void pose_world(pose_arrays s, const arbor__v4x2 r[3], int h, uint32_t slot, bool multiply) {
    uint32_t parent = multiply ? s.parent[slot] : 0;
    if (parent) {
        arbor__rows_mul_store_half(s.world + (size_t)slot * 12, s.world + (size_t)parent * 12, r, h);
    } else {
        const arbor__rows local = {{ARBOR__HALF(r[0], h), ARBOR__HALF(r[1], h), ARBOR__HALF(r[2], h)}};
        arbor__rows_store(s.world + (size_t)slot * 12, local);
    }
}

/* Streaming: the TRS and versions of four nodes in consecutive slots go to memory with
   non-temporal stores. The pass never reads them back, and an ordinary store first fetches the
   line it writes: on the machine measured (bench/ANALYSIS.md), streaming bytes out costs a
   third of storing them. The world matrices stay ordinary stores (the children read them). */
#if POSE_STREAM
static inline bool aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }
#if ARBOR_REAL_IS_DOUBLE
typedef double pose_v2 __attribute__((vector_size(16)));
static inline pose_v2 load2(const double *p) {
    pose_v2 v;
    memcpy(&v, p, sizeof v);
    return v;
}
/* One node's TRS (80 bytes, 16-byte aligned): the entry e with the rotation q. */
ARBOR__HOT void stream_trs(double *out, const double *e, arbor__v4 q) {
    const pose_v2 q01 = {q[0], q[1]}, q23 = {q[2], q[3]};
    _mm_stream_pd(out, (__m128d)load2(e));
    _mm_stream_pd(out + 2, (__m128d)__builtin_shufflevector(load2(e + 2), q01, 0, 2));
    _mm_stream_pd(out + 4, (__m128d)__builtin_shufflevector(q01, q23, 1, 2));
    _mm_stream_pd(out + 6, (__m128d)__builtin_shufflevector(q23, load2(e + 6), 1, 3));
    _mm_stream_pd(out + 8, (__m128d)load2(e + 8));
}
#else
/* Two nodes' TRS (80 bytes, 16-byte aligned: the first at an even slot): the entries e with
   the rotations a and b. */
ARBOR__HOT void stream_trs2(float *out, const float *e, arbor__v4 a, arbor__v4 b) {
    const arbor__v4 e0 = arbor__v4_load(e), e1 = arbor__v4_load(e + 4), e2 = arbor__v4_load(e + 8);
    const arbor__v4 e3 = arbor__v4_load(e + 12), e4 = arbor__v4_load(e + 16);
    _mm_stream_ps(out, (__m128)ARBOR__SHUF(e0, a, 0, 1, 2, 4));      /* t0 t1 t2 a0 */
    _mm_stream_ps(out + 4, (__m128)ARBOR__SHUF(a, e1, 1, 2, 3, 7));  /* a1 a2 a3 s0 */
    _mm_stream_ps(out + 8, (__m128)e2);                              /* s1 s2, t0 t1 of the next */
    _mm_stream_ps(out + 12, (__m128)ARBOR__SHUF(e3, b, 0, 4, 5, 6)); /* t2 b0 b1 b2 */
    _mm_stream_ps(out + 16, (__m128)ARBOR__SHUF(b, e4, 3, 5, 6, 7)); /* b3 s0 s1 s2 */
}
#endif
/* The four nodes' TRS and versions, streamed, and their flags set as pose8 sets one
   node's; false (nothing written) when their slots are not consecutive or their TRS not
   aligned. */
ARBOR__HOT bool stream4(pose_arrays s, const arbor_real *e, const uint32_t *slot, arbor__v4 q0, arbor__v4 q1, arbor__v4 q2,
                        arbor__v4 q3, uint64_t version) {
    arbor_real *out = s.trs + (size_t)slot[0] * ARBOR__TRS;
    if (slot[3] != slot[0] + 3 || !aligned16(out)) return false;
#if ARBOR_REAL_IS_DOUBLE
    stream_trs(out, e, q0);
    stream_trs(out + ARBOR__TRS, e + ARBOR__TRS, q1);
    stream_trs(out + 2 * ARBOR__TRS, e + 2 * ARBOR__TRS, q2);
    stream_trs(out + 3 * ARBOR__TRS, e + 3 * ARBOR__TRS, q3);
#else
    stream_trs2(out, e, q0, q1);
    stream_trs2(out + 2 * ARBOR__TRS, e + 2 * ARBOR__TRS, q2, q3);
#endif
    uint64_t *v = s.version + slot[0];
    if (aligned16(v)) {
        const __m128i first = _mm_set1_epi64x((long long)version);
        _mm_stream_si128((__m128i *)v, _mm_add_epi64(first, _mm_set_epi64x(1, 0)));
        _mm_stream_si128((__m128i *)(v + 2), _mm_add_epi64(first, _mm_set_epi64x(3, 2)));
    } else {
        for (int i = 0; i < 4; i++) _mm_stream_si64((long long *)(v + i), (long long)(version + (uint64_t)i));
    }
    const uint32_t each = 0x01010101u;
    uint32_t f;
    memcpy(&f, s.flags + slot[0], sizeof f);
    f &= ~(each * POSED_CLEARS); /* posed_flags, four bytes at once */
    memcpy(s.flags + slot[0], &f, sizeof f);
    return true;
}
#endif

/* Eight nodes whose entries lie one after another, nodes k and k + 4 in lane k of each half:
   the same expressions as pose_node (and so the same bits), with one division and one square
   root for eight rotations. False, nothing written, when a rotation is far from unit (the
   scaled path, node by node). */
ARBOR__HOT bool pose8(pose_arrays s, const arbor_trs *in, const uint32_t *slot, uint64_t version, bool multiply) {
    const arbor_real *v = in->translation;
    ARBOR__TRS_LANES4X2(v, tx, ty, tz, x, y, z, w, sx, sy, sz);
#if ARBOR_REAL_IS_DOUBLE
    const arbor__v4x2 lo = (arbor__v4x2){0} + 1e-300, hi = (arbor__v4x2){0} + 1e300;
#else
    const arbor__v4x2 lo = (arbor__v4x2){0} + 1e-36f, hi = (arbor__v4x2){0} + 1e36f;
#endif
    const arbor__v4x2 sum = x * x + y * y + z * z + w * w; /* (((0 + xx) + yy) + zz) + ww: the same */
    const arbor__mask4x2 ok = (sum > lo) & (sum < hi);
    if (!((ok[0] & ok[1] & ok[2] & ok[3]) & (ok[4] & ok[5] & ok[6] & ok[7]))) return false;
    arbor__v4x2 l = sum;
    arbor__sqrt4x2(&l);
    x = x / l;
    y = y / l;
    z = z / l;
    w = w / l;
    arbor__rows4x2 local;
    ARBOR__COMPOSE_LANES4X2(local, tx, ty, tz, x, y, z, w, sx, sy, sz);
    ARBOR__TRANSPOSE4X2(x, y, z, w); /* back to a rotation a register: nodes k and k + 4 in x, y, z, w */
    ARBOR__UNROLL
    for (int h = 0; h < 2; h++) {
        const arbor__v4 q[4] = {ARBOR__HALF(x, h), ARBOR__HALF(y, h), ARBOR__HALF(z, h), ARBOR__HALF(w, h)};
        const arbor_real *e = v + 4 * h * ARBOR__TRS;
        const uint32_t *at = slot + 4 * h;
#if POSE_STREAM
        if (s.stream && stream4(s, e, at, q[0], q[1], q[2], q[3], version + 4 * (unsigned)h)) {
            ARBOR__UNROLL
            for (int k = 0; k < 4; k++) pose_world(s, local.m + 3 * k, h, at[k], multiply);
            continue;
        }
#endif
        ARBOR__UNROLL
        for (int k = 0; k < 4; k++) {
            arbor_real *trs = s.trs + (size_t)at[k] * ARBOR__TRS;
            memcpy(trs, e + k * ARBOR__TRS, ARBOR__TRS * sizeof *trs);
            memcpy(trs + ARBOR__R, &q[k], sizeof q[k]);
            s.version[at[k]] = version + 4 * (unsigned)h + (unsigned)k;
            pose_world(s, local.m + 3 * k, h, at[k], multiply);
            s.flags[at[k]] = posed_flags(s.flags[at[k]]);
        }
    }
    return true;
}
#endif

/* Positions [first, end) of the pose: the whole pass (multiply), or, for a pose that cannot be
   cut into independent ranges, its first half, parallel over any ranges: each node's local left
   in its world matrix, which pose_products then multiplies by its parent's in slot order. */
ARBOR__HOT void pose_positions(const arbor_pose *p, uint32_t first, uint32_t end, uint64_t base, bool multiply) {
    const pose_arrays s = { p->s->n.trs, p->s->n.world, p->s->n.parent, p->s->n.version, p->s->n.flags, p->stream };
    const uint32_t *slot = p->slot, *index = p->index;
    if (!p->sorted) {
        for (uint32_t k = first; k < end; k++) pose_node(s, &p->trs[index[k]], slot[k], base + k, multiply);
        return;
    }
    uint32_t k = first;
#if ARBOR__SIMD
    /* groups of eight from an even slot, whose TRS can be streamed four at a time (stream4) */
    if (p->stream && !ARBOR_REAL_IS_DOUBLE && k < end && (slot[k] & 1)) {
        pose_node(s, &p->trs[k], slot[k], base + k, multiply);
        k++;
    }
    for (; k + 8 <= end; k += 8) {
        if (multiply && p->far_parents && k + ARBOR__PREFETCH_AHEAD + 8 <= end)
            for (uint32_t j = k + ARBOR__PREFETCH_AHEAD; j < k + ARBOR__PREFETCH_AHEAD + 8; j++)
                arbor__prefetch_world(s.world, s.parent[slot[j]]);
        if (!pose8(s, &p->trs[k], slot + k, base + k, multiply))
            for (uint32_t j = k; j < k + 8; j++) pose_node(s, &p->trs[j], slot[j], base + j, multiply);
    }
#endif
    for (; k < end; k++) pose_node(s, &p->trs[k], slot[k], base + k, multiply);
#if POSE_STREAM
    if (p->stream) _mm_sfence(); /* the streamed stores are seen before whatever follows the pass */
#endif
}
ARBOR__DISPATCH static void pose_range(const arbor_pose *p, uint32_t first, uint32_t end, uint64_t base) {
    pose_positions(p, first, end, base, true);
}
ARBOR__DISPATCH static void pose_locals(const arbor_pose *p, uint32_t first, uint32_t end, uint64_t base) {
    pose_positions(p, first, end, base, false);
}

/* The second half: world = parent's world * local, in slot order (parents first), asking ahead
   for the parents' matrices as scene/world.c's sweep does. The same product on the same values
   as the whole pass: the same bits. With claims, positions [first, end) of a contiguous pose
   (a pose parent's position is its slot less the first's), claimed by a task: a parent in a
   block still under way is waited for (arbor__claims). */
ARBOR__DISPATCH static void pose_products(const arbor_pose *p, uint32_t first, uint32_t end, arbor__claims *claims,
                                          uint32_t *ready) {
    arbor_real *world = p->s->n.world;
    const uint32_t *parent = p->s->n.parent, *slot = p->slot, slot0 = p->slot[0];
    for (uint32_t k = first, publish = first + ARBOR__CLAIM_STEP; k < end; k++) {
        if (claims && k >= publish) {
            arbor__claim_publish(claims, first, k);
            publish = k + ARBOR__CLAIM_STEP;
        }
        if (k + ARBOR__PREFETCH_AHEAD < end) arbor__prefetch_world(world, parent[slot[k + ARBOR__PREFETCH_AHEAD]]);
        uint32_t up = parent[slot[k]];
        arbor_real *w = world + (size_t)slot[k] * 12;
        if (claims) arbor__claim_wait(claims, up - slot0, first, ready); /* outside the pose: past its end, no wait */
        if (up) arbor__rows_mul_store(w, world + (size_t)up * 12, arbor__rows_load(w));
    }
    if (claims) arbor__claim_publish(claims, first, end);
}

/* Task i of the pass: positions [cut[i], cut[i + 1]) but the early ones, passed before. */
static void pose_cut(const arbor_pose *p, uint32_t task, uint64_t base) {
    uint32_t from = p->cut[task], end = p->cut[task + 1], lo = 0, hi = p->early_count;
    while (lo < hi) { /* the first early position at or after from */
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->early[mid] < from) lo = mid + 1; else hi = mid;
    }
    for (; lo < p->early_count && p->early[lo] < end; lo++) {
        pose_range(p, from, p->early[lo], base);
        from = p->early[lo] + 1;
    }
    pose_range(p, from, end, base);
}

typedef struct pose_job {
    const arbor_pose *p;
    uint64_t base;
    enum { CHECKING, WRITING, LOCALS, PRODUCTS } phase;
    _Atomic bool refused;
    arbor__claims *claims; /* PRODUCTS: the blocks of positions the tasks claim */
} pose_job;

static void pose_task(void *user, uint32_t task) {
    pose_job *job = user;
    const arbor_pose *p = job->p;
    uint32_t first = (uint32_t)((uint64_t)p->count * task / POSE_TASKS), end = (uint32_t)((uint64_t)p->count * (task + 1) / POSE_TASKS);
    uint32_t stop, ready = 0;
    if (job->phase == PRODUCTS)
        while (arbor__claim(job->claims, &first, &stop)) pose_products(p, first, stop, job->claims, &ready);
    else if (job->phase == WRITING)
        pose_cut(p, task, job->base);
    else if (job->phase == LOCALS)
        pose_locals(p, first, end, job->base);
    else if (!values_ok(p->trs, first, end))
        atomic_store(&job->refused, true);
}

arbor_result arbor_pose_apply(arbor_pose *p, const arbor_executor *executor) {
    static const char *const fn = "arbor_pose_apply";
    arbor_result r = ready(p, fn);
    if (r) return r;
    arbor_scene *s = p->s;
    uint32_t count = p->count;
    bool parallel = executor && executor->parallel_for && count >= POSE_PARALLEL_MIN;

    /* The checks: locks (one OR over the flags), then the values. */
    uint8_t any = 0;
    if (p->contiguous)
        any = or_bytes(s->n.flags + p->slot[0], count);
    else
        for (uint32_t k = 0; k < count; k++) any |= s->n.flags[p->slot[k]];
    pose_job job = { .p = p };
    atomic_init(&job.refused, false);
    if (parallel)
        executor->parallel_for(executor->user, POSE_TASKS, pose_task, &job);
    else
        job.refused = !values_ok(p->trs, 0, count);
    if ((any & ARBOR__LOCKED) || atomic_load(&job.refused)) return refusal(p, fn);

    if (!p->simple || s->order_inversions || s->hooks.foreign_world) {
        /* Node by node: the writes, then the reads, as the header promises. */
        for (uint32_t i = 0; i < count; i++) arbor_node_set_trs(s, p->nodes[i], &p->trs[i]);
        for (uint32_t i = 0; i < count; i++) arbor__resolve(s, arbor__slot(s, p->nodes[i]));
        return ARBOR_OK;
    }
    /* Parents outside the pose first (they do not depend on it: the pose is simple). */
    for (uint32_t i = 0; i < p->above_count; i++) arbor__resolve(s, p->above[i]);
    /* Noted before the pass, as a lazy read notes what it is about to compute. */
    if (s->hooks.computed_chain)
        for (uint32_t k = 0; k < count; k++) s->hooks.computed_chain(s, p->slot[k], p->slot[k]);
    job.base = atomic_fetch_add_explicit(&s->clock, count, memory_order_relaxed) + 1;
    job.phase = WRITING;
    if (parallel && p->task_count > 1) {
        for (uint32_t i = 0; i < p->early_count; i++) pose_range(p, p->early[i], p->early[i] + 1, job.base);
        executor->parallel_for(executor->user, p->task_count, pose_task, &job);
    } else if (parallel) { /* one big tree: the locals in parallel, then the products in order */
        job.phase = LOCALS;
        executor->parallel_for(executor->user, POSE_TASKS, pose_task, &job);
        if (p->contiguous) { /* shared by claiming blocks of positions (progress in scratch) */
            arbor__claims claims;
            arbor__claims_init(&claims, s->n.scratch, 0, count);
            job.phase = PRODUCTS;
            job.claims = &claims;
            executor->parallel_for(executor->user, CLAIM_TASKS, pose_task, &job);
        } else {
            pose_products(p, 0, count, NULL, NULL);
        }
    } else {
        pose_range(p, 0, count, job.base);
    }
    s->stats.local_composed += count;
    s->stats.world_composed += count;
    /* What a write does besides: children outside the pose go out of date, boxes up the tree,
       the change list notes what was computed. */
    for (uint32_t i = 0; i < p->outside_count; i++) arbor__invalidate(s, p->outside[i]);
    if (s->hooks.stale)
        for (uint32_t k = 0; k < count; k++) s->hooks.stale(s, p->slot[k]);
    return ARBOR_OK;
}
