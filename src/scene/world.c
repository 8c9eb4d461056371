/* SPDX-License-Identifier: MIT */
/*
 * World matrices: invalidation, lazy reads and the batch update.
 *
 * Invariant: a node whose world matrix is out of date (WORLD_DIRTY) has only out-of-date
 * descendants. So a write pushes invalidation down only through current nodes and stops at an
 * out-of-date one: invalidating costs at most what the next computation will, and writing a
 * node again before it is recomputed is O(1).
 *
 * Versions are handed out when a matrix is computed, and a version read computes first, so no
 * caller can see the version of a stale matrix and the guard above is safe.
 *
 * The batch update starts from the pending list: each out-of-date node whose parent was
 * current when it was invalidated, and each node resolved by a lazy read (PARTIAL), whose
 * descendants may still be out of date. Every out-of-date node is reachable from an entry
 * through PARTIAL nodes, so the update visits only what changed.
 */
#include <stdatomic.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sched.h>
#define ARBOR__YIELD 1
#else
#define ARBOR__YIELD 0
#endif

#include "scene/scene_internal.h"

/* Finishes invalidations in one pass in slot order, from slot `from` on: marks every node
   whose parent is out of date, and sends each node a bulk write marked (QUEUED) to the
   pending list unless its parent is out of date. Needs parents first in slot order: nodes
   already out of date had their descendants out of date, and a node is seen before its
   children. */
void arbor__invalidate_in_order(arbor_scene *s, uint32_t from) {
    uint8_t *flags = s->n.flags;
    const uint32_t *parent = s->n.parent;
    uint64_t marked = 0;
    for (uint32_t n = from, end = s->slot_end; n < end; n++) {
        uint8_t f = flags[n];
        if (!(f & ARBOR__ALIVE)) continue;
        bool parent_dirty = parent[n] && (flags[parent[n]] & ARBOR__WORLD_DIRTY);
        if (f & ARBOR__QUEUED) {
            flags[n] = (uint8_t)(f & ~ARBOR__QUEUED);
            marked++;
            arbor__notify_stale(s, n); /* a bulk write: here, not on its threads */
            if (!parent_dirty) arbor__pending_push(s, n);
        } else if (!(f & ARBOR__WORLD_DIRTY) && parent_dirty) {
            flags[n] = (uint8_t)(f | ARBOR__WORLD_DIRTY);
            marked++;
        }
    }
    s->stats.invalidated += marked;
    s->dirty_count += marked;
}

/* In tree order, top's subtree is the live slots after it up to the first one at top's depth or
   above: one pass over flags and depths, no links followed. Nodes found out of date are marked
   again but not counted (their subtrees are out of date already, by the invariant); the next
   update computes all of the range, so the pass costs less than that update. */
static void invalidate_range(arbor_scene *s, uint32_t top) {
    uint8_t *flags = s->n.flags;
    const uint32_t *depth = s->n.depth;
    const uint32_t above = depth[top];
    uint64_t marked = 1;
    flags[top] |= ARBOR__WORLD_DIRTY;
    for (uint32_t n = top + 1, end = s->slot_end; n < end; n++) {
        uint8_t f = flags[n];
        if (!(f & ARBOR__ALIVE)) continue;
        if (depth[n] <= above) break;
        marked += !(f & ARBOR__WORLD_DIRTY);
        flags[n] = (uint8_t)(f | ARBOR__WORLD_DIRTY);
    }
    s->stats.invalidated += marked;
    s->dirty_count += marked;
}

void arbor__invalidate_subtree(arbor_scene *s, uint32_t top) {
    uint8_t *flags = s->n.flags;
    if (!(flags[top] & ARBOR__WORLD_DIRTY) && s->tree_order_shape == s->shape && s->tree_order) {
        invalidate_range(s, top); /* tree order known for this shape (not looked for here: a walk) */
    } else if (!(flags[top] & ARBOR__WORLD_DIRTY)) {
        /* Following links costs a cache miss a node where the tree's order is not memory's;
           past a share of the slots after top, one pass in slot order is cheaper: an eighth,
           or a 64th where the scene is known not to be in tree order (links all over memory). */
        bool in_order = s->order_inversions == 0, scattered = s->tree_order_shape == s->shape;
        uint64_t steps = 0, limit = arbor__walk_limit(s), budget = 1024 + (s->slot_end - top) / (scattered ? 64 : 8);
        for (uint32_t n = top; n;) {
            bool current = !(flags[n] & ARBOR__WORLD_DIRTY);
            if (current) {
                flags[n] |= ARBOR__WORLD_DIRTY;
                s->stats.invalidated++;
                s->dirty_count++;
            }
            n = arbor__next_in_subtree(s, top, n, current);
            ++steps;
            if (in_order && n && steps > budget) {
                arbor__invalidate_in_order(s, top + 1);
                break;
            }
            if (steps > limit) {
                arbor__walk_bound(s, "invalidation", limit);
                break;
            }
        }
    }
    uint32_t parent = s->n.parent[top];
    if (!parent || !(flags[parent] & ARBOR__WORLD_DIRTY)) arbor__pending_push(s, top);
}

/* Where computations count and get their versions: a lazy read, a serial update, or one task
   of a parallel update (tasks take versions in blocks from the scene's clock, and add their
   counts to the scene's once they end, so no two threads write the same word). */
typedef struct compute_ctx {
    arbor_scene *s;
    uint64_t next_version, end_version;
    uint64_t local_composed, world_composed;
} compute_ctx;

#define VERSION_BLOCK 256u

static compute_ctx ctx_begin(arbor_scene *s) { return (compute_ctx){ .s = s }; }

static void ctx_end(compute_ctx *c) {
    c->s->stats.local_composed += c->local_composed;
    c->s->stats.world_composed += c->world_composed;
}

static uint64_t take_version(compute_ctx *c) {
    if (c->next_version == c->end_version) {
        c->next_version = atomic_fetch_add_explicit(&c->s->clock, VERSION_BLOCK, memory_order_relaxed) + 1;
        c->end_version = c->next_version + VERSION_BLOCK;
    }
    return c->next_version++;
}

/* What computing a node's world matrix leaves in its flags: current, its children no longer
   reached through it. */
#define COMPUTED_CLEARS (ARBOR__WORLD_DIRTY | ARBOR__PARTIAL | ARBOR__QUEUED)

/* The one place a world matrix is computed, on every path: the results agree bit for bit. The
   local goes from its composition (one node, or four a lane in the sweep) to the product in
   registers: nothing caches it, so every world matrix of a TRS-driven node composes its local
   again (composed: true), which costs less than loading a cached one (bench/ANALYSIS.md). */
ARBOR__HOT void finish_world(compute_ctx *c, uint32_t slot, arbor__rows local, bool composed) {
    arbor_scene *s = c->s;
    c->local_composed += composed;
    uint32_t parent = s->n.parent[slot];
    const arbor_real *above = parent                 ? s->n.world + (size_t)parent * 12
                              : s->hooks.foreign_world ? s->hooks.foreign_world(s, slot)
                                                       : NULL;
    if (above)
        arbor__rows_mul_store(s->n.world + (size_t)slot * 12, above, local);
    else
        arbor__rows_store(s->n.world + (size_t)slot * 12, local);
    s->n.version[slot] = take_version(c);
    s->n.flags[slot] &= (uint8_t)~COMPUTED_CLEARS;
    c->world_composed++;
}

ARBOR__HOT void compute_world(compute_ctx *c, uint32_t slot) {
    finish_world(c, slot, arbor__local_rows(c->s, slot), !arbor__kept_matrix(c->s, slot));
}

/* Climbs from slot to its highest out-of-date ancestor (slot itself if its parent is current),
   leaving down-links in scratch for the way back. */
static uint32_t climb(arbor_scene *s, uint32_t slot) {
    const uint8_t *flags = s->n.flags;
    uint32_t top = slot, steps = 0;
    while (s->n.parent[top] && (flags[s->n.parent[top]] & ARBOR__WORLD_DIRTY)) {
        s->n.scratch[s->n.parent[top]] = top;
        top = s->n.parent[top];
        if (++steps > s->max_depth) {
            arbor__walk_bound(s, "a world matrix read", s->max_depth);
            break;
        }
    }
    return top;
}

void arbor__resolve_dirty(arbor_scene *s, uint32_t slot) {
    uint8_t *flags = s->n.flags;
    /* Out of date: the scene was written since the update, and a foreign parent may have
       moved too. */
    if (s->hooks.poll) s->hooks.poll(s, slot);
    uint32_t top = climb(s, slot);
    /* Noted before: a node is noted only if nothing computed it since the last update. */
    if (s->hooks.computed_chain) s->hooks.computed_chain(s, top, slot);
    /* Compose down the chain only; siblings stay out of date, reachable through PARTIAL. */
    compute_ctx c = ctx_begin(s);
    for (uint32_t n = top;; n = s->n.scratch[n]) {
        compute_world(&c, n);
        if (s->n.first_child[n]) flags[n] |= ARBOR__PARTIAL;
        if (n == slot) break;
    }
    ctx_end(&c);
}

/* Computes the whole subtree of top, which is out of date (and so is all of it), parents
   before children. */
ARBOR__DISPATCH static void compute_subtree(compute_ctx *c, uint32_t top) {
    arbor_scene *s = c->s;
    uint64_t steps = 0, limit = arbor__walk_limit(s);
    for (uint32_t n = top; n; n = arbor__next_in_subtree(s, top, n, true)) {
        compute_world(c, n);
        if (++steps > limit) {
            arbor__walk_bound(s, "arbor_scene_update", limit);
            break;
        }
    }
}

/* ---- the batch update ---------------------------------------------------------------------- */

/* Queues slot (out of date, under a current parent) as the root of a subtree to compute. The
   queue lives in scratch: each slot enters it at most once. */
static void queue_root(arbor_scene *s, uint32_t slot, uint32_t *count) {
    if (s->n.flags[slot] & ARBOR__QUEUED) return;
    s->n.flags[slot] |= ARBOR__QUEUED;
    s->n.scratch[(*count)++] = slot;
}

/* Turns the pending list into the roots of the out-of-date subtrees, in scratch: out-of-date
   entries under a current parent, and the out-of-date nodes below the nodes that lazy reads
   left PARTIAL (opened here, and no further than that). Returns how many. */
static uint32_t collect_roots(arbor_scene *s) {
    uint8_t *flags = s->n.flags;
    uint32_t count = 0;
    for (uint32_t i = 0; i < s->pending_count; i++) {
        uint32_t top = s->n.pending[i];
        flags[top] &= (uint8_t)~ARBOR__PENDING;
        if (!(flags[top] & ARBOR__ALIVE)) continue;
        if (flags[top] & ARBOR__WORLD_DIRTY) {
            uint32_t parent = s->n.parent[top];
            if (!parent || !(flags[parent] & ARBOR__WORLD_DIRTY)) queue_root(s, top, &count);
            continue; /* else an out-of-date ancestor's subtree holds it */
        }
        uint64_t steps = 0, limit = arbor__walk_limit(s);
        for (uint32_t n = top; n;) {
            bool open = false;
            if (flags[n] & ARBOR__WORLD_DIRTY) {
                queue_root(s, n, &count);
            } else if (flags[n] & ARBOR__PARTIAL) {
                flags[n] &= (uint8_t)~ARBOR__PARTIAL;
                open = true;
            }
            n = arbor__next_in_subtree(s, top, n, open);
            if (++steps > limit) {
                arbor__walk_bound(s, "arbor_scene_update", limit);
                break;
            }
        }
    }
    s->pending_count = 0;
    return count;
}

/* Below this many out-of-date nodes an update runs on the calling thread alone: waking
   threads would cost more than it saves. */
#define PARALLEL_MIN_NODES 8192u
/* A parallel update wants at least this many subtrees to share out. */
#define PARALLEL_MIN_TASKS 256u

/* When slot order puts parents first and much of the scene is out of date, one pass over the
   slots in order computes what is out of date: memory is read as it lies, with no links to
   follow (a scene built in any parents-first order, such as WORKLOADS.md's `random`, whose
   depth-first order is all over memory). */
#define SWEEP_MIN_SHARE 8u /* the sweep pays once at least 1/8 of the nodes are out of date */

static bool sweep_pays(const arbor_scene *s, uint64_t dirty) {
    return s->order_inversions == 0 && dirty * SWEEP_MIN_SHARE >= s->slot_end;
}

/* Four neighbouring slots, all out of date and none with a kept matrix: their locals can be
   composed a node a lane (the same expressions: the same bits). */
#if ARBOR__SIMD
#define FOUR_DIRTY (0x01010101u * ARBOR__WORLD_DIRTY)
#define FOUR_MATRIX (0x01010101u * ARBOR__MATRIX)
static inline bool four_plain_dirty(const uint8_t *flags) {
    uint32_t four;
    memcpy(&four, flags, sizeof four);
    return (four & (FOUR_DIRTY | FOUR_MATRIX)) == FOUR_DIRTY;
}

/* finish_world for the four slots from slot, their locals a node a lane: the same products,
   with their versions taken at once and their flags cleared a word at a time (a partly used
   block of versions is left for a new one: versions need only be new). */
ARBOR__HOT void finish4(compute_ctx *c, uint32_t slot, const arbor__rows4 local) {
    arbor_scene *s = c->s;
    if (c->end_version - c->next_version < 4) c->next_version = c->end_version;
    const uint64_t version = take_version(c);
    c->next_version += 3;
    ARBOR__UNROLL
    for (uint32_t k = 0; k < 4; k++) {
        const arbor__rows l = {{local.m[3 * k], local.m[3 * k + 1], local.m[3 * k + 2]}};
        uint32_t parent = s->n.parent[slot + k];
        const arbor_real *above = parent                 ? s->n.world + (size_t)parent * 12
                                  : s->hooks.foreign_world ? s->hooks.foreign_world(s, slot + k)
                                                           : NULL;
        if (above)
            arbor__rows_mul_store(s->n.world + (size_t)(slot + k) * 12, above, l);
        else
            arbor__rows_store(s->n.world + (size_t)(slot + k) * 12, l);
        s->n.version[slot + k] = version + k;
    }
    uint32_t f;
    memcpy(&f, s->n.flags + slot, sizeof f);
    f &= ~(0x01010101u * COMPUTED_CLEARS);
    memcpy(s->n.flags + slot, &f, sizeof f);
    c->local_composed += 4;
    c->world_composed += 4;
}

/* finish4 for the eight slots from slot, their locals as ARBOR__COMPOSE_LANES4X2 leaves them
   (slots k and k + 4 in lane k of each half). */
#define EIGHT_DIRTY (UINT64_C(0x0101010101010101) * ARBOR__WORLD_DIRTY)
#define EIGHT_MATRIX (UINT64_C(0x0101010101010101) * ARBOR__MATRIX)
static inline bool eight_plain_dirty(const uint8_t *flags) {
    uint64_t eight;
    memcpy(&eight, flags, sizeof eight);
    return (eight & (EIGHT_DIRTY | EIGHT_MATRIX)) == EIGHT_DIRTY;
}
ARBOR__HOT void finish8(compute_ctx *c, uint32_t slot, const arbor__rows4x2 *local) {
    arbor_scene *s = c->s;
    if (c->end_version - c->next_version < 8) c->next_version = c->end_version;
    const uint64_t version = take_version(c);
    c->next_version += 7;
    ARBOR__UNROLL
    for (int h = 0; h < 2; h++) {
        ARBOR__UNROLL
        for (uint32_t k = 0; k < 4; k++) {
            const uint32_t at = slot + 4 * (uint32_t)h + k, parent = s->n.parent[at];
            const arbor_real *above = parent                 ? s->n.world + (size_t)parent * 12
                                      : s->hooks.foreign_world ? s->hooks.foreign_world(s, at)
                                                               : NULL;
            if (above) {
                arbor__rows_mul_store_half(s->n.world + (size_t)at * 12, above, local->m + 3 * k, h);
            } else {
                const arbor__rows l = {{ARBOR__HALF(local->m[3 * k], h), ARBOR__HALF(local->m[3 * k + 1], h),
                                        ARBOR__HALF(local->m[3 * k + 2], h)}};
                arbor__rows_store(s->n.world + (size_t)at * 12, l);
            }
            s->n.version[at] = version + 4 * (uint32_t)h + k;
        }
    }
    uint64_t f;
    memcpy(&f, s->n.flags + slot, sizeof f);
    f &= ~(UINT64_C(0x0101010101010101) * COMPUTED_CLEARS);
    memcpy(s->n.flags + slot, &f, sizeof f);
    c->local_composed += 8;
    c->world_composed += 8;
}

/* Before a group of n slots from slot: the parents' matrices n slots further on asked for, and
   with claims, the group's parents in blocks still under way waited for. */
ARBOR__HOT void group_ready(const arbor_real *world, const uint32_t *parent, uint32_t slot, uint32_t n, uint32_t end,
                            arbor__claims *claims, uint32_t first, uint32_t *ready) {
    if (slot + ARBOR__PREFETCH_AHEAD + n <= end) {
        ARBOR__UNROLL
        for (uint32_t k = slot + ARBOR__PREFETCH_AHEAD; k < slot + ARBOR__PREFETCH_AHEAD + n; k++) arbor__prefetch_world(world, parent[k]);
    }
    if (claims)
        for (uint32_t k = slot; k < slot + n; k++) arbor__claim_wait(claims, parent[k], first, ready);
}
#endif

/* Computes what is out of date in slots [first, end), in slot order; with claims, the block
   of claimed slots from first, waiting for parents in blocks before it and publishing its
   progress. */
ARBOR__DISPATCH static void sweep_range(compute_ctx *c, uint32_t first, uint32_t end, arbor__claims *claims, uint32_t *ready) {
    arbor_scene *s = c->s;
    uint8_t *flags = s->n.flags;
    const uint32_t *parent = s->n.parent;
    const arbor_real *world = s->n.world;
    uint32_t publish = first + ARBOR__CLAIM_STEP;
    for (uint32_t slot = first; slot < end;) {
        if (claims && slot >= publish) {
            arbor__claim_publish(claims, first, slot);
            publish = slot + ARBOR__CLAIM_STEP;
        }
#if ARBOR__SIMD
        if (slot + 8 <= end && eight_plain_dirty(flags + slot)) {
            group_ready(world, parent, slot, 8, end, claims, first, ready);
            const arbor_real *v = s->n.trs + (size_t)slot * ARBOR__TRS;
            ARBOR__TRS_LANES4X2(v, tx, ty, tz, x, y, z, w, sx, sy, sz);
            arbor__rows4x2 local;
            ARBOR__COMPOSE_LANES4X2(local, tx, ty, tz, x, y, z, w, sx, sy, sz);
            finish8(c, slot, &local);
            slot += 8;
            continue;
        }
        if (slot + 4 <= end && four_plain_dirty(flags + slot)) {
            group_ready(world, parent, slot, 4, end, claims, first, ready);
            const arbor_real *v = s->n.trs + (size_t)slot * ARBOR__TRS;
            ARBOR__TRS_LANES(v, tx, ty, tz, x, y, z, w, sx, sy, sz);
            finish4(c, slot, arbor__compose_lanes(tx, ty, tz, x, y, z, w, sx, sy, sz));
            slot += 4;
            continue;
        }
#endif
        if (slot + ARBOR__PREFETCH_AHEAD < end) arbor__prefetch_world(world, parent[slot + ARBOR__PREFETCH_AHEAD]);
        uint8_t f = flags[slot];
        if (f & ARBOR__WORLD_DIRTY) {
            if (claims) arbor__claim_wait(claims, parent[slot], first, ready);
            compute_world(c, slot);
        } else if (f & ARBOR__PARTIAL) {
            flags[slot] = (uint8_t)(f & ~ARBOR__PARTIAL);
        }
        slot++;
    }
    if (claims) arbor__claim_publish(claims, first, end);
}

void arbor__claims_init(arbor__claims *c, uint32_t *progress, uint32_t base, uint32_t end) {
    c->progress = progress;
    c->base = base;
    c->end = end;
    c->blocks = (end - base + ARBOR__CLAIM_BLOCK - 1) / ARBOR__CLAIM_BLOCK;
    for (uint32_t b = 0; b < c->blocks; b++) progress[b * ARBOR__CLAIM_PAD] = 0;
    atomic_init(&c->next, 0);
}

bool arbor__claim(arbor__claims *c, uint32_t *first, uint32_t *stop) {
    uint32_t b = atomic_fetch_add_explicit(&c->next, 1, memory_order_relaxed);
    if (b >= c->blocks) return false;
    *first = c->base + b * ARBOR__CLAIM_BLOCK;
    *stop = c->end - *first < ARBOR__CLAIM_BLOCK ? c->end : *first + ARBOR__CLAIM_BLOCK;
    return true;
}

void arbor__claim_wait_slow(arbor__claims *c, uint32_t at, uint32_t *ready) {
    uint32_t b = (at - c->base) / ARBOR__CLAIM_BLOCK, first = c->base + b * ARBOR__CLAIM_BLOCK;
    /* the block's task is running (it claimed it): spin a while, then give the core away, in
       case that task waits for it (more threads than cores) */
    for (uint32_t spins = 0; __atomic_load_n(&c->progress[b * ARBOR__CLAIM_PAD], __ATOMIC_ACQUIRE) <= at - first; spins++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
#if ARBOR__YIELD
        if (spins >= 256) sched_yield();
#endif
    }
    /* the blocks from *ready on that are done: no waiting for their items again */
    for (b = (*ready - c->base) / ARBOR__CLAIM_BLOCK; b < c->blocks; b++) {
        first = c->base + b * ARBOR__CLAIM_BLOCK;
        uint32_t size = c->end - first < ARBOR__CLAIM_BLOCK ? c->end - first : ARBOR__CLAIM_BLOCK;
        if (__atomic_load_n(&c->progress[b * ARBOR__CLAIM_PAD], __ATOMIC_ACQUIRE) != size) break;
        *ready = first + size;
    }
}

/* The sweep starts from the slots, not the pending list: the list is emptied. */
static void drop_pending(arbor_scene *s) {
    for (uint32_t i = 0; i < s->pending_count; i++) s->n.flags[s->n.pending[i]] &= (uint8_t)~ARBOR__PENDING;
    s->pending_count = 0;
}

static void sweep(arbor_scene *s) {
    drop_pending(s);
    compute_ctx c = ctx_begin(s);
    sweep_range(&c, 1, s->slot_end, NULL, NULL);
    ctx_end(&c);
}

/* Tree order: a walk down the tree meets the live slots in increasing order, so the live
   nodes of every subtree are those of one range of slots (what arbor__relayout leaves, and
   what a scene built depth first has). Checked once a shape; a walk that fails stops at the
   first slot out of place. */
bool arbor__in_tree_order(arbor_scene *s) {
    if (s->tree_order_shape == s->shape) return s->tree_order;
    uint32_t last = 0;
    uint64_t steps = 0, limit = arbor__walk_limit(s);
    bool ordered = true;
    for (uint32_t root = s->first_root; root && ordered; root = s->n.next_sibling[root])
        for (uint32_t n = root; n && ordered; n = arbor__next_in_subtree(s, root, n, true)) {
            ordered = n > last && ++steps <= limit;
            last = n;
        }
    s->tree_order_shape = s->shape;
    return s->tree_order = ordered;
}

void arbor_scene_update(arbor_scene *s) { arbor_scene_update_parallel(s, NULL); }

typedef struct update_job {
    arbor_scene *s;
    const uint32_t *roots; /* subtrees to compute, or NULL: */
    const uint32_t *cut;   /* task i sweeps slots [cut[i], cut[i + 1]), or */
    arbor__claims *claims; /* the tasks sweep the blocks they claim */
    uint32_t root_count, task_count;
    _Atomic uint64_t local_composed, world_composed;
} update_job;

/* Task i computes a run of consecutive roots: neighbouring subtrees sit side by side in
   memory, and one thread per run keeps two cores off each other's cache lines. */
static void update_task(void *user, uint32_t index) {
    update_job *job = user;
    compute_ctx c = ctx_begin(job->s);
    uint32_t first, stop, ready = job->claims ? job->claims->base : 0;
    if (job->claims) {
        while (arbor__claim(job->claims, &first, &stop)) sweep_range(&c, first, stop, job->claims, &ready);
    } else if (job->cut) {
        sweep_range(&c, job->cut[index], job->cut[index + 1], NULL, NULL);
    } else {
        uint32_t first = (uint32_t)((uint64_t)job->root_count * index / job->task_count);
        uint32_t end = (uint32_t)((uint64_t)job->root_count * (index + 1) / job->task_count);
        for (uint32_t i = first; i < end; i++) compute_subtree(&c, job->roots[i]);
    }
    atomic_fetch_add_explicit(&job->local_composed, c.local_composed, memory_order_relaxed);
    atomic_fetch_add_explicit(&job->world_composed, c.world_composed, memory_order_relaxed);
}

static void run_job(arbor_scene *s, const arbor_executor *executor, update_job *job) {
    executor->parallel_for(executor->user, job->task_count, update_task, job);
    s->stats.local_composed += atomic_load(&job->local_composed);
    s->stats.world_composed += atomic_load(&job->world_composed);
}

/* A scene in tree order, swept in ranges of slots on many threads. A node in [k, next
   cut) whose parent lies before k is below an ancestor of k (a subtree is one range of slots),
   so once the ancestors of every cut are current the ranges depend on nothing but themselves.
   Each range computes what the whole sweep would: the same bits. */
#define SWEEP_TASKS 32u

static void sweep_parallel(arbor_scene *s, const arbor_executor *executor) {
    drop_pending(s);
    const uint8_t *flags = s->n.flags;
    uint32_t cut[SWEEP_TASKS + 1], end = s->slot_end;
    compute_ctx c = ctx_begin(s);
    cut[0] = 1;
    for (uint32_t i = 1; i < SWEEP_TASKS; i++) {
        uint32_t k = 1 + (uint32_t)((uint64_t)(end - 1) * i / SWEEP_TASKS);
        if (k < cut[i - 1]) k = cut[i - 1];
        while (k < end && !(flags[k] & ARBOR__ALIVE)) k++; /* the first live node's ancestors count */
        cut[i] = k;
        uint32_t up = k < end ? s->n.parent[k] : 0;
        if (!up || !(flags[up] & ARBOR__WORLD_DIRTY)) continue;
        for (uint32_t n = climb(s, up);; n = s->n.scratch[n]) {
            compute_world(&c, n);
            if (n == up) break;
        }
    }
    cut[SWEEP_TASKS] = end;
    ctx_end(&c);
    update_job job = { .s = s, .cut = cut, .task_count = SWEEP_TASKS };
    run_job(s, executor, &job);
}

/* One big tree (few roots) not in tree order, swept by tasks claiming blocks of slots
   (arbor__claims, progress in scratch): the same computations as the sweep, the same bits. */
#define CLAIM_TASKS 16u

static void sweep_claimed(arbor_scene *s, const arbor_executor *executor) {
    drop_pending(s);
    arbor__claims claims;
    arbor__claims_init(&claims, s->n.scratch, 1, s->slot_end);
    update_job job = { .s = s, .claims = &claims, .task_count = CLAIM_TASKS };
    run_job(s, executor, &job);
}

/* Computes the subtrees of the `count` roots in scratch. */
static void compute_roots(arbor_scene *s, const arbor_executor *executor, bool parallel, uint32_t count) {
    uint32_t head = 0, *roots = s->n.scratch;
    compute_ctx c = ctx_begin(s);
    if (!parallel) {
        for (uint32_t i = 0; i < count; i++) compute_subtree(&c, roots[i]);
        ctx_end(&c);
        return;
    }
    /* Too few subtrees (one huge tree): compute their top levels here and share out the
       subtrees below, breadth first, so the largest pieces shrink level by level. */
    while (count - head < PARALLEL_MIN_TASKS && head < count) {
        uint32_t top = roots[head++];
        compute_world(&c, top);
        for (uint32_t child = s->n.first_child[top]; child; child = s->n.next_sibling[child]) roots[count++] = child;
    }
    ctx_end(&c);
    update_job job = { .s = s, .roots = roots + head, .root_count = count - head };
    job.task_count = job.root_count < PARALLEL_MIN_TASKS ? job.root_count : PARALLEL_MIN_TASKS;
    run_job(s, executor, &job);
}

void arbor_scene_update_parallel(arbor_scene *s, const arbor_executor *executor) {
    if (!s) return;
    if (s->hooks.poll) s->hooks.poll(s, 0);
    uint64_t dirty = s->dirty_count, composed = s->stats.world_composed;
    uint64_t before = atomic_load_explicit(&s->clock, memory_order_relaxed);
    s->dirty_count = 0;
    bool parallel = executor && executor->parallel_for && dirty >= PARALLEL_MIN_NODES;
    /* Much to do in a scene whose storage has left tree order: put it back first (a pass
       over the scene, cheaper than following links across memory for the rest). */
    if (s->order_inversions && dirty * SWEEP_MIN_SHARE >= s->slot_end) arbor__relayout(s);
    uint32_t count = 0;
    /* Parents first in slot order: one sweep in slot order (dependencies run anywhere
       backwards; it reads memory as it lies and asks ahead for the parents). In tree order it
       runs in ranges on many threads (sweep_parallel), which beats following links from many
       roots. Otherwise one big tree (few roots) is swept by tasks claiming blocks of slots in
       order (sweep_claimed): computing it level by level in parallel was slower (a level's
       nodes are scattered over memory), and composing the locals in parallel first gained
       nothing measurable. */
    bool ranges = parallel && sweep_pays(s, dirty) && arbor__in_tree_order(s);
    bool swept = ranges || (sweep_pays(s, dirty) && (!parallel || s->root_count < PARALLEL_MIN_TASKS));
    if (ranges) {
        sweep_parallel(s, executor);
    } else if (swept) {
        /* Known from now until the tree changes: writes then invalidate ranges of slots
           (invalidate_range). Found once a shape, in a pass cheaper than the sweep. */
        arbor__in_tree_order(s);
        if (parallel)
            sweep_claimed(s, executor);
        else
            sweep(s);
    }
    else
        compute_roots(s, executor, parallel, count = collect_roots(s));
    /* The roots are still in scratch: the parallel split only appends after them. */
    if (s->hooks.computed_roots)
        s->hooks.computed_roots(s, swept ? NULL : s->n.scratch, count, s->stats.world_composed - composed, before);
}

/* arbor_node_world_matrix's every case: refusals, and a node to bring up to date first. */
ARBOR__CHECKED_PATH static arbor_result world_matrix_checked(arbor_scene *s, arbor_node n, arbor_real out[16]) {
    ARBOR__REQUIRE_OUT(out, "arbor_node_world_matrix");
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, "arbor_node_world_matrix", &r);
    if (!slot) return r;
    arbor__resolve(s, slot);
    arbor__affine_to_mat4(out, s->n.world + (size_t)slot * 12);
    return ARBOR_OK;
}

arbor_result arbor_node_world_matrix(arbor_scene *s, arbor_node n, arbor_real out[16]) {
    uint32_t slot;
    if (!arbor__live_slot_without(s, n, ARBOR__WORLD_DIRTY, &slot) || !out) return world_matrix_checked(s, n, out);
    arbor__affine_to_mat4(out, s->n.world + (size_t)slot * 12);
    return ARBOR_OK;
}

arbor_result arbor_scene_world_matrices(arbor_scene *s, const arbor_node *nodes, uint32_t count, arbor_real *out) {
    static const char fn[] = "arbor_scene_world_matrices";
    ARBOR__REQUIRE_OUT(s, fn);
    if (count == 0) return ARBOR_OK;
    ARBOR__REQUIRE_OUT(nodes, fn);
    ARBOR__REQUIRE_OUT(out, fn);
    /* Handles first, so that a refusal writes nothing. */
    for (uint32_t i = 0; i < count; i++)
        if (!arbor__live_slot(s, nodes[i])) return arbor__refuse_not_live(nodes[i], i, fn);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t slot = s->n.slot_of[(uint32_t)nodes[i].id];
        arbor__resolve(s, slot);
        arbor__affine_to_mat4(out + (size_t)i * 16, s->n.world + (size_t)slot * 12);
    }
    return ARBOR_OK;
}

uint64_t arbor_node_world_version(arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    if (!slot) return 0;
    arbor__resolve(s, slot);
    return s->n.version[slot];
}
