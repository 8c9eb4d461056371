/* SPDX-License-Identifier: MIT */
/* Scenes, node storage, node creation and destruction, local transforms, names. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise */
#include <sys/mman.h>
#endif
#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "scene/scene_internal.h"

/* ---- storage ---------------------------------------------------------------------------- */

/* Resizes one array to `capacity` elements, keeping its contents; NULL (array unchanged) when
   out of memory. Each array is its own allocation so growing reallocates in place where the
   C library can (no second copy of the scene at the peak), and each starts at its own offset
   modulo 4 KiB past a page boundary: large allocations all start at the same offset in a page,
   and arrays aligned alike map to the same cache sets, so a loop over a dozen of them evicts
   its own lines (measured 2.4x slower). */
#define HUGE_PAGE ((size_t)2 << 20)
static void *resize_array(arbor_scene *s, int index, size_t elem, uint32_t capacity, bool zeroed) {
    arbor__storage *st = &s->storage[index];
    size_t stagger = (size_t)index * 7 * 64 % 4096, bytes = (size_t)capacity * elem;
    /* A zeroed array comes anew from zeroed memory each time, only its nonzero words copied:
       growing it touches none of the pages of its zeros (most nodes have no name, no record),
       where a realloc and a memset of the new part would make them resident. */
    const arbor__storage old = *st;
    bool fresh = st->raw == NULL || zeroed;
#if defined(MADV_HUGEPAGE)
    /* A large array allocated before anything is in it (a scene created with its
       initial_capacity) goes on huge pages: building touches every page once, and with 4 KiB
       pages the kernel's page faults cost more than creating the nodes (measured 134 against
       45 ms of system time for a million nodes). Only whole aligned huge pages can be huge, so
       the array gets room to start at a huge page boundary (plus its stagger) and to end at
       one; the room is never touched. Not after growth: pages already touched stay small and
       splitting the mapping costs more than it saves. */
    bool huge = fresh && stagger + bytes >= HUGE_PAGE;
    size_t size = huge ? HUGE_PAGE + ((stagger + bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1)) : (fresh ? stagger : st->offset) + bytes;
#else
    size_t size = (fresh ? stagger : st->offset) + bytes; /* no huge pages here (WebAssembly) */
#endif
    if (!fresh && size < st->size) size = st->size; /* a huge page array's room at its end */
    char *raw = zeroed ? arbor__alloc_zeroed(s, size) : arbor__realloc(s, st->raw, st->size, size);
    if (!raw) return NULL;
    st->raw = raw;
    st->size = size;
    if (fresh) st->offset = stagger;
#if defined(MADV_HUGEPAGE)
    if (huge) {
        uintptr_t first = ((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
        st->offset = first - (uintptr_t)raw + stagger;
        madvise((void *)first, (size - (first - (uintptr_t)raw)) & ~(HUGE_PAGE - 1), MADV_HUGEPAGE);
    }
#endif
    if (zeroed && old.raw) { /* the old capacity's (beyond it, an array that grew before a failure is zero) */
        const char *from = (const char *)old.raw + old.offset;
        char *to = raw + st->offset;
        for (size_t at = 0, end = (size_t)s->capacity * elem; at < end; at += sizeof(uint32_t)) { /* elem: 4 or 8 */
            uint32_t w;
            memcpy(&w, from + at, sizeof w);
            if (w) memcpy(to + at, &w, sizeof w);
        }
        arbor__free(s, old.raw, old.size);
    }
    return raw + st->offset;
}

bool arbor__reserve(arbor_scene *s, uint32_t extra) {
    /* slots and ids come from the same arrays' capacity (ids retire, slots are renumbered) */
    uint64_t needed = (uint64_t)(s->slot_end > s->id_end ? s->slot_end : s->id_end) + extra;
    if (needed <= s->capacity) return true;
    if (extra == 1 && (s->free_head || s->slot_end < s->capacity) && (s->id_free || s->id_end < s->capacity)) return true;
    if (needed > ARBOR__FREE_ID) return false; /* slots and ids stay below ARBOR__FREE_ID */
    uint64_t cap = s->capacity ? (uint64_t)s->capacity * 2 : 64;
    if (cap < needed) cap = needed;
    if (cap > ARBOR__FREE_ID) cap = ARBOR__FREE_ID;
    /* Arrays that grew before one failed are merely larger: capacity stays the smallest. */
    int index = 0;
    void *grown;
    /* The arrays kept zero from slot_end on (arbor__nodes) come zeroed. */
#define ARBOR__ZEROED(field) \
    (offsetof(arbor__nodes, field) == offsetof(arbor__nodes, name) || offsetof(arbor__nodes, field) == offsetof(arbor__nodes, attachment))
#define ARBOR__GROW(field, elem, moves)                                                               \
    if (!(grown = resize_array(s, index++, elem, (uint32_t)cap, ARBOR__ZEROED(field)))) return false; \
    s->n.field = grown;
    ARBOR__ARRAYS(ARBOR__GROW)
#undef ARBOR__GROW
#undef ARBOR__ZEROED
    s->capacity = (uint32_t)cap;
    return true;
}

#define ARBOR__COUNT(field, elem, moves) +1
_Static_assert(0 ARBOR__ARRAYS(ARBOR__COUNT) == ARBOR__STORAGE_ARRAYS, "one storage entry per array");
#undef ARBOR__COUNT

static void free_arrays(arbor_scene *s) {
    for (int i = 0; i < ARBOR__STORAGE_ARRAYS; i++) arbor__free(s, s->storage[i].raw, s->storage[i].size);
}

/* ---- scene ------------------------------------------------------------------------------ */

/* Scene tags (scene_internal.h: the high bits of every generation word), process-wide: scenes
   are made and destroyed on any thread. tag_users[t] counts the live scenes with tag t. A new
   scene takes the first free tag from the cursor on, round robin, so a destroyed scene's tag
   comes back as late as it can; with every tag taken it shares the cursor's. The cursor only
   grows: it passes each tag taken or skipped. */
static _Atomic uint32_t tag_users[ARBOR__TAGS];
static _Atomic uint32_t tag_cursor;

static uint32_t tag_take(void) {
    uint32_t start = atomic_fetch_add_explicit(&tag_cursor, 1, memory_order_relaxed);
    for (uint32_t k = 0; k < ARBOR__TAGS; k++) {
        uint32_t t = (start + k) % ARBOR__TAGS, none = 0;
        if (atomic_compare_exchange_strong_explicit(&tag_users[t], &none, 1, memory_order_relaxed, memory_order_relaxed)) {
            if (k) atomic_fetch_add_explicit(&tag_cursor, k, memory_order_relaxed);
            return t;
        }
    }
    atomic_fetch_add_explicit(&tag_users[start % ARBOR__TAGS], 1, memory_order_relaxed);
    return start % ARBOR__TAGS;
}

static void tag_give_back(uint32_t gen_first) {
    atomic_fetch_sub_explicit(&tag_users[gen_first >> ARBOR__GEN_BITS], 1, memory_order_relaxed);
}

/* The 1.0 symbols read and write only the 1.0 structs (scene.h's macros send new programs to
   the _1_1 ones). */
#undef arbor_scene_create
#undef arbor_scene_stats_get
static arbor_result create_scene(const arbor_scene_desc *desc, size_t desc_size, arbor_scene **out);

arbor_result arbor_scene_create(const arbor_scene_desc *desc, arbor_scene **out) {
    return create_scene(desc, offsetof(arbor_scene_desc, history_duration), out);
}
arbor_result arbor_scene_create_1_1(const arbor_scene_desc *desc, arbor_scene **out) {
    return create_scene(desc, sizeof *desc, out);
}

static arbor_result create_scene(const arbor_scene_desc *desc, size_t desc_size, arbor_scene **out) {
    static const char fn[] = "arbor_scene_create";
    if (!out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "out is NULL");
    arbor_scene_desc d = {0};
    if (desc) memcpy(&d, desc, desc_size);
    if (!(d.history_duration >= 0) || isinf(d.history_duration))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "history_duration %g s is not a finite duration of zero or more",
                           d.history_duration);
    if (!d.allocator.alloc != !d.allocator.free)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the allocator gives %s without %s",
                           d.allocator.alloc ? "alloc" : "free", d.allocator.alloc ? "free" : "alloc");
    arbor_scene bootstrap = { .allocator = d.allocator };
    arbor_scene *s = arbor__alloc(&bootstrap, sizeof *s);
    if (!s) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the scene");
    *s = (arbor_scene){
        .allocator = d.allocator,
        .log = d.log,
        .log_user = d.log_user,
        .max_depth = d.max_depth ? (d.max_depth < UINT32_MAX - 1 ? d.max_depth : UINT32_MAX - 1) : ARBOR_DEFAULT_MAX_DEPTH,
        .slot_end = 1,
        .id_end = 1,
        .gen_first = tag_take() << ARBOR__GEN_BITS | 1,
        .history_duration = d.history_duration > 0 ? d.history_duration : 10.0,
        .history_capacity = d.history_capacity,
    };
    s->stats.allocations = 1;
    s->dependents.prev = s->dependents.next = &s->dependents;
    if (!arbor__reserve(s, d.initial_capacity ? d.initial_capacity : 1)) {
        tag_give_back(s->gen_first);
        free_arrays(s);
        arbor__free(s, s, sizeof *s);
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for %u nodes", d.initial_capacity ? d.initial_capacity : 1);
    }
    *out = s;
    return ARBOR_OK;
}

const char *arbor__node_label(const arbor_scene *s, uint32_t slot, char *buf, size_t cap) {
    /* Written backwards from the end: the closing quote and the file index, then the path leaf
       first, then the opening quote; each segment takes at least one byte, so the walk ends
       within cap steps even on links that are not what they should be. */
    char tail[24] = "'";
    uint32_t index;
    if (s->hooks.file_index && s->hooks.file_index(s, slot, &index)) snprintf(tail, sizeof tail, "' (#%u)", (unsigned)index);
    size_t tail_len = strlen(tail), at = cap - 1 - tail_len;
    memcpy(buf + at, tail, tail_len + 1);
    for (uint32_t x = slot; x && x < s->slot_end; x = s->n.parent[x]) {
        char place[16];
        const char *text = s->n.name[x];
        if (!text || !text[0]) {
            uint32_t i = 0;
            for (uint32_t y = s->n.prev_sibling[x]; y && i < s->slot_end; y = s->n.prev_sibling[y]) i++;
            snprintf(place, sizeof place, "[%u]", (unsigned)i);
            text = place;
        }
        size_t len = strlen(text), slash = x != slot;
        if (len + slash + 5 > at) {
            if (x == slot) { /* the node's own name alone is too long: its start, then "..." */
                snprintf(buf, cap, "'%.*s...%s", (int)(cap - 5 - tail_len), text, tail);
                return buf;
            }
            at -= 4;
            memcpy(buf + at, ".../", 4);
            break;
        }
        if (slash) buf[--at] = '/';
        at -= len;
        memcpy(buf + at, text, len);
    }
    buf[--at] = '\'';
    return buf + at;
}

static void free_name(arbor_scene *s, uint32_t slot) {
    char *name = s->n.name[slot];
    if (name) arbor__free(s, name, strlen(name) + 1);
    s->n.name[slot] = NULL;
}

/* Out of line and never inlined (scene_internal.h): the writers' test stays one compare. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
void arbor__call_stale(arbor_scene *s, uint32_t slot) { s->hooks.stale(s, slot); }

void arbor__on_destroy(arbor_scene *s, void (*fn)(arbor_scene *s)) {
    for (int i = 0; i < ARBOR__DESTROY_HOOKS; i++) {
        if (s->hooks.destroy[i] == fn) return;
        if (!s->hooks.destroy[i]) {
            s->hooks.destroy[i] = fn;
            return;
        }
    }
    assert(!"more features than ARBOR__DESTROY_HOOKS");
}

void arbor__dependent_join(arbor_scene *s, arbor__dependent *d, void (*detach)(arbor__dependent *d)) {
    *d = (arbor__dependent){ .prev = &s->dependents, .next = s->dependents.next, .detach = detach, .allocator = s->allocator };
    d->next->prev = d;
    s->dependents.next = d;
}

void arbor__dependent_leave(arbor__dependent *d) {
    if (!d->next) return;
    d->prev->next = d->next;
    d->next->prev = d->prev;
    d->prev = d->next = NULL;
}

arbor_result arbor__inert(const char *fn) {
    return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "its scene was destroyed");
}

void arbor_scene_destroy(arbor_scene *s) {
    if (!s) return;
    /* The dependents first, while the scene is whole (the journal gives back its held nodes);
       each is off the ring before its detach runs. */
    for (arbor__dependent *d; (d = s->dependents.next) != &s->dependents;) {
        arbor__dependent_leave(d);
        d->detach(d);
    }
    /* The features next (foreign parents, change lists, the boxes), then the core. */
    for (int i = 0; i < ARBOR__DESTROY_HOOKS && s->hooks.destroy[i]; i++) s->hooks.destroy[i](s);
    for (uint32_t slot = 1; slot < s->slot_end; slot++) free_name(s, slot); /* live and held nodes' */
    arbor__attachments_free(s);
    arbor__visibility_free(s);
    free_arrays(s);
    tag_give_back(s->gen_first);
    arbor__free(s, s, sizeof *s);
}

uint32_t arbor_scene_node_count(const arbor_scene *s) { return s ? s->live : 0; }
uint32_t arbor_scene_max_depth(const arbor_scene *s) { return s ? s->max_depth : 0; }
void arbor_scene_stats_get(const arbor_scene *s, arbor_scene_stats *out) {
    arbor_scene_stats all = s ? s->stats : (arbor_scene_stats){0};
    if (out) memcpy(out, &all, offsetof(arbor_scene_stats, history_samples));
}
void arbor_scene_stats_get_1_1(const arbor_scene *s, arbor_scene_stats *out) {
    if (out) *out = s ? s->stats : (arbor_scene_stats){0};
}
void arbor_scene_stats_reset(arbor_scene *s) {
    if (s) s->stats = (arbor_scene_stats){ .history_samples = s->stats.history_samples, .history_bytes = s->stats.history_bytes };
}

/* ---- creation and destruction ------------------------------------------------------------ */

static bool all_zero(const arbor_real *v, int n) {
    for (int i = 0; i < n; i++)
        if (v[i] != 0) return false;
    return true;
}

/* How messages name the desc at fault: "descs[i]: " in a bulk creation (index >= 0), nothing
   for one node. Formatted only when a check fails. */
static const char *desc_at(char *buf, size_t cap, int64_t index) {
    if (index < 0) return "";
    snprintf(buf, cap, "descs[%lld]: ", (long long)index);
    return buf;
}
#define DESC_AT(index) desc_at((char[32]){0}, 32, (index))

/* Checks a 4x4 local matrix given by a caller. */
static arbor_result check_matrix(const arbor_real m[16], const char *func, int64_t index) {
    if (!arbor__all_finite(m, 16))
        return arbor__fail(ARBOR_ERR_NONFINITE, func, "%sthe matrix holds a NaN or infinity", DESC_AT(index));
    if (m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func,
                           "%sthe matrix's last row is (%g, %g, %g, %g), not (0, 0, 0, 1)", DESC_AT(index), (double)m[3],
                           (double)m[7], (double)m[11], (double)m[15]);
    return ARBOR_OK;
}

/* Copies name through the scene's allocator; false when out of memory. */
static bool copy_name(arbor_scene *s, const char *name, char **out) {
    *out = NULL;
    if (!name) return true;
    size_t size = strlen(name) + 1;
    *out = arbor__alloc(s, size);
    if (!*out) return false;
    memcpy(*out, name, size);
    return true;
}

/* Puts a matrix local (already checked) on slot, with its decomposition as the node's TRS; the
   matrix itself is kept only when the TRS does not compose to it. False when out of memory for
   that (nothing changed). */
static bool store_matrix(arbor_scene *s, uint32_t slot, const arbor_real m[16], bool lock) {
    arbor_real affine[12], trs[ARBOR__TRS];
    arbor__affine_from_mat4(affine, m);
    arbor_mat4_decompose(m, trs + ARBOR__T, trs + ARBOR__R, trs + ARBOR__S);
    if (!arbor__keep_matrix(s, slot, arbor__matrix_needs_keeping(affine, trs) ? affine : NULL)) return false;
    memcpy(s->n.trs + (size_t)slot * ARBOR__TRS, trs, sizeof trs);
    s->n.flags[slot] = (uint8_t)((s->n.flags[slot] & ~ARBOR__LOCKED) | ARBOR__MATRIX | (lock ? ARBOR__LOCKED : 0));
    return true;
}

/* A desc's translation, rotation and scale lie one after another, as in a slot's TRS. */
_Static_assert(offsetof(arbor_node_desc, rotation) == offsetof(arbor_node_desc, translation) + 3 * sizeof(arbor_real) &&
                   offsetof(arbor_node_desc, scale) == offsetof(arbor_node_desc, translation) + 7 * sizeof(arbor_real),
               "arbor_node_desc's TRS is contiguous");

/* Whether the ARBOR__TRS values of v are all finite: v - v is 0 for a finite v and NaN
   otherwise, and a sum keeps a NaN (in three registers where there are vectors). */
ARBOR__HOT bool trs_finite(const arbor_real v[ARBOR__TRS]) {
#if defined(ARBOR__SIMD)
    arbor__v4 a = arbor__v4_load(v), b = arbor__v4_load(v + 4), c = {v[8], v[9], 0, 0};
    arbor__v4 z = (a - a) + (b - b) + (c - c);
    return (z[0] + z[1]) + (z[2] + z[3]) == 0;
#else
    return arbor__all_finite(v, ARBOR__TRS);
#endif
}

/* The TRS a node's desc gives it (identity parts for what is left zero), or why the desc is
   refused; a matrix desc is checked and keeps the identity TRS (store_matrix sets it). */
ARBOR__HOT arbor_result desc_trs(const arbor_node_desc *desc, arbor_real trs[ARBOR__TRS], const char *fn, int64_t index) {
    static const arbor_real identity[ARBOR__TRS] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    if (desc->matrix) {
        memcpy(trs, identity, sizeof identity);
        return check_matrix(desc->matrix, fn, index);
    }
    arbor_real v[ARBOR__TRS]; /* as given */
    memcpy(v, (const char *)desc + offsetof(arbor_node_desc, translation), sizeof v);
#if defined(__SSE2__) && !ARBOR_REAL_IS_DOUBLE && defined(ARBOR__SIMD)
    /* The common case in one pass of the ten values, four a register: all finite, the scale
       all given, the rotation normalised by the fast path (which a zero rotation fails). The
       rest, refusals included, takes the tests below, which give the same TRS. */
    {
        const __m128 a = _mm_loadu_ps(v), b = _mm_loadu_ps(v + 4), c = _mm_set_ps(1, 1, v[9], v[8]), zero = _mm_setzero_ps();
        const __m128 z = _mm_add_ps(_mm_add_ps(_mm_sub_ps(a, a), _mm_sub_ps(b, b)), _mm_sub_ps(c, c));
        const bool finite = _mm_movemask_ps(_mm_cmpeq_ps(z, zero)) == 15;
        const bool scale_zero = (_mm_movemask_ps(_mm_cmpeq_ps(b, zero)) & 8) || (_mm_movemask_ps(_mm_cmpeq_ps(c, zero)) & 3);
        if (finite && !scale_zero && arbor__quat_normalize_fast(v + ARBOR__R, v + ARBOR__R)) {
            memcpy(trs, v, sizeof v);
            return ARBOR_OK;
        }
    }
#endif
    if (!trs_finite(v)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "%sthe TRS holds a NaN or infinity", DESC_AT(index));
    memcpy(trs + ARBOR__T, v + ARBOR__T, 3 * sizeof *v);
    if (all_zero(v + ARBOR__R, 4))
        memcpy(trs + ARBOR__R, identity + ARBOR__R, 4 * sizeof *v);
    else if (!arbor__unit_quat(trs + ARBOR__R, v + ARBOR__R))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "%sthe rotation cannot be normalised", DESC_AT(index));
    const arbor_real *scale = v + ARBOR__S;
    if (all_zero(scale, 3)) {
        scale = identity + ARBOR__S;
    } else if (scale[0] == 0 || scale[1] == 0 || scale[2] == 0) {
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn,
                           "%sthe scale (%g, %g, %g) is partly given: give all three components (a node "
                           "flattened on purpose gets its zero scale from arbor_node_set_scale)",
                           DESC_AT(index), (double)scale[0], (double)scale[1], (double)scale[2]);
    }
    memcpy(trs + ARBOR__S, scale, 3 * sizeof *v);
    return ARBOR_OK;
}

/* Why a child of parent may not be at depth parent_depth + 1 (out of line: the message is
   made only for a refusal). */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static arbor_result too_deep(const arbor_scene *s, uint32_t parent, uint32_t parent_depth, const char *fn, int64_t index) {
    return arbor__fail(ARBOR_ERR_DEPTH_LIMIT, fn, "%sa child of node " ARBOR__NODE_FMT " would be at depth %u, beyond max_depth %u",
                       DESC_AT(index), ARBOR__NODE_ARGS(s, parent), parent_depth + 1, s->max_depth);
}

/* The depth a child of parent (0: none) would have, or why it may not have it. */
static inline arbor_result child_depth(const arbor_scene *s, uint32_t parent, uint32_t parent_depth, uint32_t *depth,
                                       const char *fn, int64_t index) {
    *depth = parent ? parent_depth + 1 : 0;
    return parent && parent_depth + 1 > s->max_depth ? too_deep(s, parent, parent_depth, fn, index) : ARBOR_OK;
}

/* Makes the node of a checked desc, its TRS in trs (NULL: written in its slot already) and its
   name copied, under parent (0: a root) at `depth`: takes a free slot and id (storage and, with
   a user pointer or a matrix, an attachment record reserved), links it last and marks it out of date.
   Returns its slot. */
ARBOR__HOT uint32_t place_node(arbor_scene *s, const arbor_node_desc *desc, const arbor_real trs[ARBOR__TRS], char *name,
                               uint32_t parent, uint32_t depth) {
    uint32_t slot = s->free_head, id = s->id_free;
    if (slot) {
        s->free_head = s->n.next_sibling[slot];
    } else {
        slot = s->slot_end++;
        s->n.flags[slot] = 0;
    }
    if (id) {
        s->id_free = s->n.slot_of[id] & ~ARBOR__FREE_ID;
    } else {
        id = s->id_end++;
        s->n.gen[id] = s->gen_first;
    }
    s->n.id[slot] = id;
    s->n.slot_of[id] = slot;
    s->live++;
    s->n.flags[slot] = (uint8_t)((s->n.flags[slot] & ARBOR__PENDING) | ARBOR__ALIVE);
    s->n.first_child[slot] = s->n.last_child[slot] = 0;
    /* a free or fresh slot has no name and no record (release_slot, the zeroed arrays): the
       common unnamed node leaves those pages untouched */
    if (name) s->n.name[slot] = name;
    s->n.version[slot] = 0;
    if (trs) memcpy(s->n.trs + (size_t)slot * ARBOR__TRS, trs, ARBOR__TRS * sizeof *trs);
    if (desc->matrix) store_matrix(s, slot, desc->matrix, desc->lock_matrix); /* reserved: cannot fail */
    if (desc->user) arbor_node_set_user(s, arbor__handle(s, slot), desc->user); /* reserved: cannot fail */
    arbor__link(s, slot, parent, 0);
    s->n.depth[slot] = depth;
    arbor__invalidate_new(s, slot);
    return slot;
}

arbor_result arbor_node_create(arbor_scene *s, const arbor_node_desc *desc, arbor_node *out) {
    static const char *const fn = "arbor_node_create";
    if (!s || !desc || !out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "scene, desc and out are required");
    uint32_t parent = 0, depth = 0;
    arbor_result r = ARBOR_OK;
    if (desc->parent.id) {
        if (!(parent = arbor__require(s, desc->parent, fn, &r))) return r;
        if ((r = child_depth(s, parent, s->n.depth[parent], &depth, fn, -1))) return r;
    }
    arbor_real trs[ARBOR__TRS];
    if ((r = desc_trs(desc, trs, fn, -1))) return r;
    if (!arbor__reserve(s, 1) || ((desc->user || desc->matrix) && !arbor__attachment_reserve(s, 1)))
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for node storage");
    char *name;
    if (!copy_name(s, desc->name, &name)) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the name");
    *out = arbor__handle(s, place_node(s, desc, trs, name, parent, depth));
    return ARBOR_OK;
}

/* Bulk creation, in two passes. The first checks every desc and writes what it finds where
   nothing reads it yet: each node's depth and, when the batch takes the slots from slot_end on
   (no free slot), its parent's slot and its TRS straight into its slot (beyond slot_end, so a
   refused call leaves them unread); otherwise the depths go to scratch. Then what can fail is
   done (records reserved, names copied), and the second pass makes the nodes: into fresh slots
   and ids (the usual case) array by array, with one pass of links in order; otherwise node by
   node as arbor_node_create would. Ahead of each node, the parent lines a later node will touch
   are asked for, so that on a tree whose parents lie anywhere in memory the misses overlap
   instead of coming one after another. */
#define CREATE_AHEAD 16u

/* What the checking pass asks for ahead, for the handles of parents made before the call:
   for node i + 2 x AHEAD where the handle's generation and slot are, for node i + AHEAD the
   parent's depth and flags. The handle tells (not parents[]): a desc whose parent is in the
   batch names none, or is refused. */
ARBOR__HOT void check_prefetch(const arbor_scene *s, const arbor_node_desc *descs, uint32_t i, uint32_t count) {
    uint32_t far = i + 2 * CREATE_AHEAD, near = i + CREATE_AHEAD;
    if (far < count) {
        uint32_t id = (uint32_t)descs[far].parent.id;
        if (id && id < s->id_end) {
            __builtin_prefetch(s->n.slot_of + id);
            __builtin_prefetch(s->n.gen + id);
        }
    }
    if (near < count) {
        uint32_t id = (uint32_t)descs[near].parent.id, slot = id && id < s->id_end ? s->n.slot_of[id] : 0;
        if (slot && slot < s->slot_end) {
            __builtin_prefetch(s->n.depth + slot);
            __builtin_prefetch(s->n.flags + slot);
        }
    }
}

/* What linking node i + AHEAD (its parent's slot `near`, 0: none or not known yet, whose lines
   are asked for all the same: no test) and node i + AHEAD / 2 (`next`) will touch: the
   parent's last child and flags, then that child's sibling link. */
ARBOR__HOT void link_prefetch(const arbor_scene *s, uint32_t near, uint32_t next) {
    __builtin_prefetch(s->n.last_child + near, 1);
    __builtin_prefetch(s->n.flags + near, 1);
    if (next) __builtin_prefetch(s->n.next_sibling + s->n.last_child[next], 1);
}

/* Node i's parent and depth, checked (messages name descs[i] and parents[i]): a node of the
   batch (parents[i] >= 0), its depth in depth[parents[i]] and, with `base`, its slot base +
   parents[i]; a node of the scene (descs[i].parent); or none. */
ARBOR__HOT arbor_result check_parent(const arbor_scene *s, const arbor_node_desc *d, const int32_t *parents, uint32_t i,
                                     const uint32_t *depth, uint32_t base, uint32_t *parent_slot, uint32_t *out_depth,
                                     const char *fn) {
    int32_t p = parents ? parents[i] : -1;
    *parent_slot = 0;
    if (p >= 0) {
        if ((uint32_t)p >= i)
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "parents[%u] is %d: a parent in the batch comes before its child", i, (int)p);
        if (d->parent.id)
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "descs[%u] names a parent and parents[%u] another", i, i);
        if (depth[p] + 1 > s->max_depth)
            return arbor__fail(ARBOR_ERR_DEPTH_LIMIT, fn, "descs[%u]: a child of descs[%d] would be at depth %u, beyond max_depth %u",
                               i, (int)p, depth[p] + 1, s->max_depth);
        *parent_slot = base ? base + (uint32_t)p : 0;
        *out_depth = depth[p] + 1;
        return ARBOR_OK;
    }
    if (p != -1) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "parents[%u] is %d: an index in the batch or -1", i, (int)p);
    *out_depth = 0;
    if (!d->parent.id) return ARBOR_OK;
    uint32_t slot = arbor__live_slot(s, d->parent);
    if (!slot) return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "the parent of descs[%u] is not a live node", i);
    *parent_slot = slot;
    return child_depth(s, slot, s->n.depth[slot], out_depth, fn, i);
}

/* Makes the `count` checked nodes whose parents' slots and depths the checking pass wrote into
   the fresh slots from slot_end on (their TRS and names there too), with fresh ids from id_end
   on: what arbor_node_create makes one node at a time, array by array. */
static void make_fresh(arbor_scene *s, const arbor_node_desc *descs, uint32_t count, uint32_t records,
                       arbor_node *out) {
    const uint32_t base = s->slot_end, id0 = s->id_end, end = base + count;
    arbor__nodes *n = &s->n;
    for (uint32_t i = 0; i < count; i++) {
        n->id[base + i] = id0 + i;
        n->slot_of[id0 + i] = base + i;
        n->gen[id0 + i] = s->gen_first;
        out[i] = (arbor_node){ ((uint64_t)s->gen_first << 32) | (id0 + i) };
    }
    /* alive, out of date (arbor__invalidate_new) */
    memset(n->flags + base, ARBOR__ALIVE | ARBOR__WORLD_DIRTY, count);
    memset(n->first_child + base, 0, (size_t)count * sizeof *n->first_child);
    memset(n->last_child + base, 0, (size_t)count * sizeof *n->last_child);
    memset(n->next_sibling + base, 0, (size_t)count * sizeof *n->next_sibling);
    memset(n->version + base, 0, (size_t)count * sizeof *n->version);
    /* no names but those copied in, no records: zero from slot_end on already */
    s->slot_end = end;
    s->id_end = id0 + count;
    s->live += count;
    s->shape += count;
    s->stats.invalidated += count;
    s->dirty_count += count;
    /* The links, in order (arbor__link and arbor__invalidate_new of each node): a parent of the
       batch is out of date, so only a root or a child of a current node goes to the pending list. */
    const bool notify = s->hooks.stale || s->visibility.entry;
    const uint32_t *parent = n->parent;
    /* the nodes AHEAD further on ask ahead; the last AHEAD have nothing after them to ask for */
    const uint32_t asking = count > CREATE_AHEAD ? end - CREATE_AHEAD : base;
    for (uint32_t slot = base; slot < end; slot++) {
        if (slot < asking) {
            uint32_t near = parent[slot + CREATE_AHEAD], next = parent[slot + CREATE_AHEAD / 2];
            link_prefetch(s, near < base ? near : 0, next < base ? next : 0);
        }
        uint32_t p = parent[slot];
        uint32_t *last = p ? &n->last_child[p] : &s->last_root, prev = *last;
        n->prev_sibling[slot] = prev;
        if (prev)
            n->next_sibling[prev] = slot;
        else
            *(p ? &n->first_child[p] : &s->first_root) = slot;
        *last = slot;
        if (!p) s->root_count++;
        if (!p || (p < base && !(n->flags[p] & ARBOR__WORLD_DIRTY))) arbor__pending_push(s, slot);
        if (notify) { /* arbor__link's and arbor__invalidate_new's: the same stale note, once */
            arbor__notify_stale(s, slot);
            arbor__visibility_moved(s, slot);
        }
    }
    /* What few nodes carry (records reserved): as place_node gives it, node by node in order. */
    for (uint32_t i = 0; records && i < count; i++) {
        const arbor_node_desc *d = descs + i;
        if (d->matrix) store_matrix(s, base + i, d->matrix, d->lock_matrix);
        if (d->user) arbor_node_set_user(s, out[i], d->user);
        records -= d->matrix || d->user;
    }
}

/* Frees the first `copied` names of a batch, leaving NULL. */
static void free_names(arbor_scene *s, char **names, uint32_t copied) {
    for (uint32_t i = 0; i < copied; i++) {
        if (names[i]) arbor__free(s, names[i], strlen(names[i]) + 1);
        names[i] = NULL;
    }
}

arbor_result arbor_scene_create_nodes(arbor_scene *s, const arbor_node_desc *descs, const int32_t *parents, uint32_t count,
                                      arbor_node *out) {
    static const char *const fn = "arbor_scene_create_nodes";
    if (!s || (count && (!descs || !out)))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "a scene, and descs and out for %u nodes, are required", count);
    if (!count) return ARBOR_OK;
    if (!arbor__reserve(s, count)) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for %u more nodes", count);
    /* No free slot: node i goes to slot base + i, where the checks leave its parent's slot,
       depth and TRS. Else the depths go to scratch (reserved above: at least count entries). */
    const bool in_place = !s->free_head;
    const uint32_t base = s->slot_end;
    uint32_t *depth = in_place ? s->n.depth + base : s->n.scratch, *parent = in_place ? s->n.parent + base : NULL;
    uint32_t records = 0, named = 0;
    arbor_result r = ARBOR_OK;
    for (uint32_t i = 0; i < count; i++) {
        const arbor_node_desc *d = descs + i;
        check_prefetch(s, descs, i, count);
        /* the TRS lines ahead asked for writing: the hardware's streams stop at each 4 KiB */
        if (in_place) __builtin_prefetch(s->n.trs + ((size_t)base + i + 2 * CREATE_AHEAD) * ARBOR__TRS, 1);
        uint32_t parent_slot;
        if ((r = check_parent(s, d, parents, i, depth, in_place ? base : 0, &parent_slot, &depth[i], fn))) return r;
        if (parent) parent[i] = parent_slot;
        arbor_real scrap[ARBOR__TRS], *trs = in_place ? s->n.trs + ((size_t)base + i) * ARBOR__TRS : scrap;
        if ((r = desc_trs(d, trs, fn, i))) return r;
        records += (d->user != NULL) | (d->matrix != NULL); /* a matrix may need its record (arbor__keep_matrix) */
        named += d->name != NULL;
    }
    if (records && !arbor__attachment_reserve(s, records))
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for %u attachment records", records);
    /* The names: in place straight into the slots' names, else into an array of their own. */
    char **names = NULL;
    if (named) {
        names = in_place ? s->n.name + base : arbor__alloc(s, (size_t)count * sizeof *names);
        if (!names) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the names");
        for (uint32_t i = 0; i < count; i++)
            if (!copy_name(s, descs[i].name, &names[i])) {
                free_names(s, names, i);
                if (!in_place) arbor__free(s, names, (size_t)count * sizeof *names);
                return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the name of descs[%u]", i);
            }
    }
    if (in_place && !s->id_free) {
        make_fresh(s, descs, count, records, out);
        return ARBOR_OK;
    }
    /* Node by node: free slots or ids to take. A batch parent's slot is in scratch once made
       (out of place), or base + its index. */
    uint32_t *batch = s->n.scratch;
    for (uint32_t i = 0; i < count; i++) {
        const arbor_node_desc *d = descs + i;
        int32_t p = parents ? parents[i] : -1;
        uint32_t near = i + CREATE_AHEAD < count && !in_place ? (uint32_t)(parents ? parents[i + CREATE_AHEAD] : -1) : UINT32_MAX;
        uint32_t ahead = near < i ? batch[near] : 0;
        link_prefetch(s, ahead, 0);
        uint32_t up = in_place ? parent[i] : p >= 0 ? batch[p] : d->parent.id ? arbor__slot(s, d->parent) : 0;
        arbor_real trs[ARBOR__TRS];
        if (!in_place) desc_trs(d, trs, fn, i); /* checked above: cannot fail */
        uint32_t slot = place_node(s, d, in_place ? NULL : trs, names ? names[i] : NULL, up, depth[i]);
        if (!in_place) batch[i] = slot;
        out[i] = arbor__handle(s, slot);
    }
    if (names && !in_place) arbor__free(s, names, (size_t)count * sizeof *names);
    return ARBOR_OK;
}

/* Returns a dead slot (no longer counted in live) to the free list; its handle is dead from
   now on. */
static void release_slot(arbor_scene *s, uint32_t slot) {
    free_name(s, slot);
    arbor__attachment_release(s, slot);
    if (s->n.parent[slot] > slot) s->order_inversions--; /* links below the subtree's top stay */
    s->n.parent[slot] = 0;
    s->n.flags[slot] &= ARBOR__PENDING; /* a pending entry may still name the slot */
    s->n.next_sibling[slot] = s->free_head;
    s->free_head = slot;
    uint32_t id = s->n.id[slot];
    if ((s->n.gen[id] & ARBOR__GEN_MASK) == ARBOR__GEN_MASK) { /* generations exhausted: the id retires, never reused */
        s->n.slot_of[id] = ARBOR__FREE_ID;
        return;
    }
    s->n.gen[id]++; /* within the generation bits: the tag stays */
    s->n.slot_of[id] = ARBOR__FREE_ID | s->id_free;
    s->id_free = id;
}

/* Releases the subtree of top, at most `bound` nodes: breadth-first into the scratch queue, then
   freed back to front, deepest first. A held subtree's links are not counted in
   order_inversions: they go before the slots. Returns how many. */
static uint32_t release_subtree(arbor_scene *s, uint32_t top, uint32_t bound, bool held) {
    uint32_t *queue = s->n.scratch, count = 0;
    queue[count++] = top;
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t c = s->n.first_child[queue[i]]; c && count < bound; c = s->n.next_sibling[c]) queue[count++] = c;
    for (uint32_t i = count; i;) {
        if (held) s->n.parent[queue[i - 1]] = 0;
        release_slot(s, queue[--i]);
    }
    return count;
}

arbor_result arbor_node_destroy(arbor_scene *s, arbor_node root) {
    arbor_result r = ARBOR_OK;
    uint32_t top = arbor__require(s, root, "arbor_node_destroy", &r);
    if (!top) return r;
    arbor__unlink(s, top);
    s->live -= release_subtree(s, top, s->live, false);
    return ARBOR_OK;
}

/* ---- held subtrees (the journal's) ----------------------------------------------------------- */

/* What a held node keeps of its flags: its local, and a pending entry that may name it. Out of
   date or not does not matter: it is out of date with its whole subtree once back. */
#define ARBOR__HELD_FLAGS (ARBOR__MATRIX | ARBOR__LOCKED | ARBOR__PENDING)

uint32_t arbor__hold_subtree(arbor_scene *s, uint32_t top) {
    uint32_t count = 0;
    uint64_t limit = arbor__walk_limit(s);
    for (uint32_t n = top; n && count < limit; n = arbor__next_in_subtree(s, top, n, true), count++) {
        s->n.flags[n] &= ARBOR__HELD_FLAGS;
        if (s->n.parent[n] > n && n != top) s->order_inversions--; /* the top's goes with unlink */
    }
    arbor__unlink(s, top);
    s->live -= count;
    return count;
}

void arbor__revive_subtree(arbor_scene *s, uint32_t top, uint32_t count, uint32_t parent, uint32_t before) {
    uint32_t depth = parent ? s->n.depth[parent] + 1 : 0, old = s->n.depth[top], seen = 0;
    for (uint32_t n = top; n && seen < count; n = arbor__next_in_subtree(s, top, n, true), seen++) {
        s->n.flags[n] = (uint8_t)((s->n.flags[n] & ARBOR__HELD_FLAGS) | ARBOR__ALIVE);
        s->n.depth[n] = s->n.depth[n] - old + depth;
        if (s->n.parent[n] > n && n != top) s->order_inversions++;
    }
    s->live += seen;
    arbor__link(s, top, parent, before);
    arbor__invalidate_subtree(s, top); /* every node of it, as new nodes are */
}

void arbor__release_held(arbor_scene *s, uint32_t top, uint32_t count) { release_subtree(s, top, count, true); }

size_t arbor__slot_bytes(void) {
#define ARBOR__SUM(field, elem, moves) +(elem)
    return 0 ARBOR__ARRAYS(ARBOR__SUM);
#undef ARBOR__SUM
}

void arbor_scene_clear(arbor_scene *s) {
    while (s && s->first_root) arbor_node_destroy(s, arbor__handle(s, s->first_root));
}

bool arbor_node_alive(const arbor_scene *s, arbor_node n) { return s && arbor__live_slot(s, n) != 0; }

arbor_node arbor_scene_next_node(const arbor_scene *s, arbor_node prev) {
    if (!s) return ARBOR_NONE;
    if (prev.id == 0) return arbor__handle(s, s->first_root);
    uint32_t n = arbor__live_slot(s, prev);
    if (!n) return ARBOR_NONE;
    if (s->n.first_child[n]) return arbor__handle(s, s->n.first_child[n]);
    uint32_t steps = 0;
    while (n && !s->n.next_sibling[n]) {
        n = s->n.parent[n];
        if (++steps > s->max_depth + 1u) {
            arbor__walk_bound(s, "arbor_scene_next_node", s->max_depth);
            return ARBOR_NONE;
        }
    }
    return n ? arbor__handle(s, s->n.next_sibling[n]) : ARBOR_NONE;
}

/* ---- local transforms ---------------------------------------------------------------------- */

/* The slot of a node whose TRS may be written, or 0 with *r set. A matrix-backed node that is
   not locked becomes TRS-driven: its TRS already holds the matrix's decomposition. */
static inline uint32_t writable_trs(arbor_scene *s, arbor_node n, const char *fn, arbor_result *r) {
    uint32_t slot = arbor__require(s, n, fn, r);
    if (slot && (s->n.flags[slot] & ARBOR__LOCKED)) {
        *r = arbor__fail(ARBOR_ERR_LOCKED, fn, "node " ARBOR__NODE_FMT " has a locked local matrix", ARBOR__NODE_ARGS(s, slot));
        return 0;
    }
    return slot;
}

/* Writes count values at offset of slot's TRS and marks what it invalidates. */
static inline void store_trs(arbor_scene *s, uint32_t slot, int offset, const arbor_real *values, int count) {
    arbor_real *trs = s->n.trs + (size_t)slot * ARBOR__TRS + offset;
    ARBOR__UNROLL
    for (int i = 0; i < count; i++) trs[i] = values[i]; /* count is a constant at each call: no memcpy call */
}

static inline void write_trs(arbor_scene *s, uint32_t slot, int offset, const arbor_real *values, int count) {
    store_trs(s, slot, offset, values, count);
    s->n.flags[slot] &= (uint8_t)~ARBOR__MATRIX;
    arbor__invalidate(s, slot);
}

/* The setters' common case: a live, unlocked node and values that need no message. Each setter
   tests it inline (no call, no stack frame for a message) and hands anything else to its
   checked path, which says why (out of line: the label buffer of a message lives there). */
static inline uint32_t quick_writable(const arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    return slot && !(s->n.flags[slot] & ARBOR__LOCKED) ? slot : 0;
}

ARBOR__CHECKED_PATH static arbor_result set_vec3_checked(arbor_scene *s, arbor_node n, int offset, arbor_real x, arbor_real y,
                                                  arbor_real z, const char *fn) {
    const arbor_real v[3] = {x, y, z};
    arbor_result r = ARBOR_OK;
    uint32_t slot = writable_trs(s, n, fn, &r);
    if (!slot) return r;
    if (!arbor__all_finite(v, 3))
        return arbor__fail(ARBOR_ERR_NONFINITE, fn, "(%g, %g, %g) is not finite", (double)v[0], (double)v[1], (double)v[2]);
    write_trs(s, slot, offset, v, 3);
    return ARBOR_OK;
}

static inline arbor_result set_vec3(arbor_scene *s, arbor_node n, int offset, arbor_real x, arbor_real y, arbor_real z,
                                    const char *fn) {
    const arbor_real v[3] = {x, y, z};
    uint32_t slot = quick_writable(s, n);
    if (!slot || !arbor__all_finite(v, 3)) return set_vec3_checked(s, n, offset, x, y, z, fn);
    write_trs(s, slot, offset, v, 3);
    return ARBOR_OK;
}

arbor_result arbor_node_set_translation(arbor_scene *s, arbor_node n, arbor_real x, arbor_real y, arbor_real z) {
    return set_vec3(s, n, ARBOR__T, x, y, z, "arbor_node_set_translation");
}

arbor_result arbor_node_set_scale(arbor_scene *s, arbor_node n, arbor_real x, arbor_real y, arbor_real z) {
    return set_vec3(s, n, ARBOR__S, x, y, z, "arbor_node_set_scale");
}

/* Checks and normalises a quaternion given by a caller. The common case first: a sum of
   squares inside the fast path's range is finite, and so are the components. */
static arbor_result unit_rotation(const arbor_real q[4], arbor_real out[4], const char *fn) {
    if (arbor__quat_normalize_fast(out, q)) return ARBOR_OK;
    if (!arbor__all_finite(q, 4)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the rotation holds a NaN or infinity");
    if (!arbor__unit_quat(out, q)) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the rotation has no length");
    return ARBOR_OK;
}

ARBOR__CHECKED_PATH static arbor_result set_rotation_checked(arbor_scene *s, arbor_node n, const arbor_real q[4]) {
    static const char *const fn = "arbor_node_set_rotation";
    arbor_result r = ARBOR_OK;
    uint32_t slot = writable_trs(s, n, fn, &r);
    if (!slot) return r;
    arbor_real unit[4];
    if ((r = unit_rotation(q, unit, fn))) return r;
    write_trs(s, slot, ARBOR__R, unit, 4);
    return ARBOR_OK;
}

arbor_result arbor_node_set_rotation(arbor_scene *s, arbor_node n, arbor_real x, arbor_real y, arbor_real z, arbor_real w) {
    const arbor_real q[4] = {x, y, z, w};
    arbor_real unit[4];
    uint32_t slot = quick_writable(s, n);
    if (!slot || !arbor__quat_normalize_fast(unit, q)) return set_rotation_checked(s, n, q);
    write_trs(s, slot, ARBOR__R, unit, 4);
    return ARBOR_OK;
}

ARBOR__CHECKED_PATH static arbor_result set_trs_checked(arbor_scene *s, arbor_node n, const arbor_trs *trs) {
    static const char *const fn = "arbor_node_set_trs";
    arbor_result r = ARBOR_OK;
    uint32_t slot = writable_trs(s, n, fn, &r);
    if (!slot) return r;
    if (!trs) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "trs is NULL");
    arbor_real v[ARBOR__TRS];
    memcpy(v + ARBOR__T, trs->translation, sizeof trs->translation);
    memcpy(v + ARBOR__S, trs->scale, sizeof trs->scale);
    if (!arbor__all_finite(v + ARBOR__T, 3) || !arbor__all_finite(v + ARBOR__S, 3))
        return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the TRS holds a NaN or infinity");
    if ((r = unit_rotation(trs->rotation, v + ARBOR__R, fn))) return r;
    write_trs(s, slot, 0, v, ARBOR__TRS);
    return ARBOR_OK;
}

arbor_result arbor_node_set_trs(arbor_scene *s, arbor_node n, const arbor_trs *trs) {
    arbor_real v[ARBOR__TRS];
    uint32_t slot = trs ? quick_writable(s, n) : 0;
    if (slot) {
        memcpy(v + ARBOR__T, trs->translation, sizeof trs->translation);
        memcpy(v + ARBOR__S, trs->scale, sizeof trs->scale);
    }
    if (!slot || !arbor__all_finite(v + ARBOR__T, 3) || !arbor__all_finite(v + ARBOR__S, 3) ||
        !arbor__quat_normalize_fast(v + ARBOR__R, trs->rotation))
        return set_trs_checked(s, n, trs);
    write_trs(s, slot, 0, v, ARBOR__TRS);
    return ARBOR_OK;
}

/* ---- bulk writes ------------------------------------------------------------------------ */

/* Bulk writes: every input checked first, then every node written, so a failure writes nothing.
   Inline: each caller gets a copy with its k constant, so the loops over k values unroll. */

/* Whether node n may take the k values v (no message: workers of a parallel write ask too). */
ARBOR__HOT bool bulk_value_ok(const arbor_scene *s, arbor_node n, const arbor_real *v, int k) {
    uint32_t slot = arbor__live_slot(s, n);
    return slot && !(s->n.flags[slot] & ARBOR__LOCKED) && arbor__all_finite(v, (size_t)k) &&
           (k != 4 || v[0] != 0 || v[1] != 0 || v[2] != 0 || v[3] != 0);
}

arbor_result arbor__refuse_not_live(arbor_node n, uint32_t i, const char *fn) {
    if (n.id == 0) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "nodes[%u] is ARBOR_NONE", i);
    return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "nodes[%u] (node %uv%u) is not alive", i, (unsigned)(uint32_t)n.id,
                       (unsigned)(n.id >> 32));
}

/* Records why nodes[i] was refused (bulk_value_ok was false) and returns the result. */
static arbor_result bulk_refusal(arbor_scene *s, arbor_node n, const arbor_real *v, int k, uint32_t i, const char *fn) {
    uint32_t slot = arbor__live_slot(s, n);
    if (!slot) return arbor__refuse_not_live(n, i, fn);
    if (s->n.flags[slot] & ARBOR__LOCKED)
        return arbor__fail(ARBOR_ERR_LOCKED, fn, "nodes[%u] (node " ARBOR__NODE_FMT ") has a locked local matrix", i,
                           ARBOR__NODE_ARGS(s, slot));
    if (!arbor__all_finite(v, (size_t)k))
        return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the values of nodes[%u] hold a NaN or infinity", i);
    return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the rotation of nodes[%u] has no length", i);
}

/* Writes nodes[i] (checked) as a bulk write does (rotations normalised when asked); in_order:
   marked for one arbor__invalidate_in_order afterwards, else invalidated now. */
ARBOR__HOT void bulk_write(arbor_scene *s, arbor_node n, const arbor_real *value, int offset, int k, bool in_order,
                           bool normalize) {
    arbor_real v[4];
    uint32_t slot = arbor__slot(s, n);
    memcpy(v, value, (size_t)k * sizeof *v);
    if (k == 4 && normalize) arbor__unit_quat(v, v);
    if (!in_order) {
        write_trs(s, slot, offset, v, k);
        return;
    }
    store_trs(s, slot, offset, v, k);
    arbor__mark_written(s, slot);
}

/* The writes of a bulk write, every node checked before (arbor__write_many in scene_internal.h). */
ARBOR__HOT void write_many(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count, int offset,
                           int k, bool normalize) {
    /* Writing much of a parents-first scene: invalidate in one pass over memory afterwards
       rather than node by node (a walk down each subtree). */
    bool in_order = s->order_inversions == 0 && (uint64_t)count * 8 >= s->slot_end;
    uint32_t lowest = UINT32_MAX;
    for (uint32_t i = 0; i < count; i++) {
        bulk_write(s, nodes[i], values + (size_t)i * (size_t)k, offset, k, in_order, normalize);
        if (arbor__slot(s, nodes[i]) < lowest) lowest = arbor__slot(s, nodes[i]);
    }
    if (in_order && count) arbor__invalidate_in_order(s, lowest);
}

ARBOR__HOT arbor_result set_many(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count,
                                 int offset, int k, const char *fn) {
    if (!s || (count && (!nodes || !values)))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "a scene, and nodes and values for %u nodes, are required", count);
    for (uint32_t i = 0; i < count; i++) {
        const arbor_real *v = values + (size_t)i * (size_t)k;
        if (!bulk_value_ok(s, nodes[i], v, k)) return bulk_refusal(s, nodes[i], v, k, i, fn);
    }
    write_many(s, nodes, values, count, offset, k, k == 4);
    return ARBOR_OK;
}

void arbor__write_many(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count, int offset,
                       int k, bool normalize) {
    if (k == 4)
        write_many(s, nodes, values, count, offset, 4, normalize);
    else
        write_many(s, nodes, values, count, offset, 3, normalize);
}

/* A bulk write shared out on an executor: the checks, then the writes, in ranges of nodes.
   Only for nodes in strictly increasing slot order (no node twice, so no two threads write
   one node; the lowest slot is the first) in a parents-first scene: the invalidation is then
   one pass in slot order, on the calling thread. Anything else runs as set_many. */
#define BULK_PARALLEL_MIN 16384u /* fewer nodes: waking threads costs more than it saves */
#define BULK_TASKS 64u

typedef struct bulk_job {
    arbor_scene *s;
    const arbor_node *nodes;
    const arbor_real *values;
    uint32_t count;
    bool writing;                   /* the second pass */
    _Atomic uint32_t first_refused; /* lowest index refused, count when none */
    _Atomic bool unordered;
} bulk_job;

ARBOR__HOT void bulk_task(void *user, uint32_t index, int offset, int k) {
    bulk_job *job = user;
    uint32_t first = (uint32_t)((uint64_t)job->count * index / BULK_TASKS);
    uint32_t end = (uint32_t)((uint64_t)job->count * (index + 1) / BULK_TASKS);
    for (uint32_t i = first; i < end; i++) {
        const arbor_real *v = job->values + (size_t)i * (size_t)k;
        if (job->writing) {
            bulk_write(job->s, job->nodes[i], v, offset, k, true, true);
            continue;
        }
        /* Checked before its slot is looked at: a dead or forged handle names no slot. */
        if (!bulk_value_ok(job->s, job->nodes[i], v, k)) {
            uint32_t seen = atomic_load(&job->first_refused);
            while (i < seen && !atomic_compare_exchange_weak(&job->first_refused, &seen, i)) {}
            break;
        }
        /* nodes[i - 1] may belong to another task, unchecked yet: a dead one's slot reads as 0
           (and is refused there, at a lower index). */
        if (i && arbor__slot(job->s, job->nodes[i]) <= arbor__live_slot(job->s, job->nodes[i - 1]))
            atomic_store(&job->unordered, true);
    }
}
static void bulk_task_t(void *user, uint32_t index) { bulk_task(user, index, ARBOR__T, 3); }
static void bulk_task_r(void *user, uint32_t index) { bulk_task(user, index, ARBOR__R, 4); }
static void bulk_task_s(void *user, uint32_t index) { bulk_task(user, index, ARBOR__S, 3); }

static arbor_result set_many_serial(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count,
                                    int offset, const char *fn) {
    return offset == ARBOR__R ? set_many(s, nodes, values, count, offset, 4, fn) : set_many(s, nodes, values, count, offset, 3, fn);
}

static arbor_result set_many_parallel(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count,
                                      int offset, const char *fn, const arbor_executor *executor) {
    if (!s || !executor || !executor->parallel_for || count < BULK_PARALLEL_MIN || !nodes || !values ||
        s->order_inversions != 0 || (uint64_t)count * 8 < s->slot_end)
        return set_many_serial(s, nodes, values, count, offset, fn);
    arbor_task_fn task = offset == ARBOR__T ? bulk_task_t : offset == ARBOR__R ? bulk_task_r : bulk_task_s;
    bulk_job job = { .s = s, .nodes = nodes, .values = values, .count = count };
    atomic_init(&job.first_refused, count);
    atomic_init(&job.unordered, false);
    executor->parallel_for(executor->user, BULK_TASKS, task, &job);
    uint32_t refused = atomic_load(&job.first_refused);
    if (refused < count) /* the serial checks up to it say why, writing nothing */
        return set_many_serial(s, nodes, values, refused + 1, offset, fn);
    if (atomic_load(&job.unordered)) return set_many_serial(s, nodes, values, count, offset, fn);
    job.writing = true;
    executor->parallel_for(executor->user, BULK_TASKS, task, &job);
    arbor__invalidate_in_order(s, arbor__slot(s, nodes[0]));
    return ARBOR_OK;
}

arbor_result arbor_scene_set_translations(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count) {
    return set_many(s, nodes, values, count, ARBOR__T, 3, "arbor_scene_set_translations");
}

arbor_result arbor_scene_set_rotations(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count) {
    return set_many(s, nodes, values, count, ARBOR__R, 4, "arbor_scene_set_rotations");
}

arbor_result arbor_scene_set_scales(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count) {
    return set_many(s, nodes, values, count, ARBOR__S, 3, "arbor_scene_set_scales");
}

arbor_result arbor_scene_set_translations_parallel(arbor_scene *s, const arbor_node *nodes, const arbor_real *values,
                                                   uint32_t count, const arbor_executor *executor) {
    return set_many_parallel(s, nodes, values, count, ARBOR__T, "arbor_scene_set_translations_parallel", executor);
}

arbor_result arbor_scene_set_rotations_parallel(arbor_scene *s, const arbor_node *nodes, const arbor_real *values,
                                                uint32_t count, const arbor_executor *executor) {
    return set_many_parallel(s, nodes, values, count, ARBOR__R, "arbor_scene_set_rotations_parallel", executor);
}

arbor_result arbor_scene_set_scales_parallel(arbor_scene *s, const arbor_node *nodes, const arbor_real *values,
                                             uint32_t count, const arbor_executor *executor) {
    return set_many_parallel(s, nodes, values, count, ARBOR__S, "arbor_scene_set_scales_parallel", executor);
}

arbor_result arbor_node_set_local_matrix(arbor_scene *s, arbor_node n, const arbor_real m[16], bool lock) {
    static const char *const fn = "arbor_node_set_local_matrix";
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    if (!m) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "m is NULL");
    if ((r = check_matrix(m, fn, -1))) return r;
    if (!store_matrix(s, slot, m, lock)) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the matrix");
    arbor__invalidate(s, slot);
    return ARBOR_OK;
}

/* arbor_node_trs, for the name fn the caller called. */
static arbor_result read_trs(const arbor_scene *s, arbor_node n, arbor_trs *out, const char *fn) {
    ARBOR__REQUIRE_OUT(out, fn);
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    const arbor_real *trs = s->n.trs + (size_t)slot * ARBOR__TRS;
    memcpy(out->translation, trs + ARBOR__T, sizeof out->translation);
    memcpy(out->rotation, trs + ARBOR__R, sizeof out->rotation);
    memcpy(out->scale, trs + ARBOR__S, sizeof out->scale);
    return ARBOR_OK;
}

_Static_assert(offsetof(arbor_trs, translation) == ARBOR__T * sizeof(arbor_real) &&
                   offsetof(arbor_trs, rotation) == ARBOR__R * sizeof(arbor_real) &&
                   offsetof(arbor_trs, scale) == ARBOR__S * sizeof(arbor_real) && sizeof(arbor_trs) == ARBOR__TRS * sizeof(arbor_real),
               "arbor_trs is a slot's TRS");

ARBOR__CHECKED_PATH static arbor_result trs_checked(const arbor_scene *s, arbor_node n, arbor_trs *out) {
    return read_trs(s, n, out, "arbor_node_trs");
}

arbor_result arbor_node_trs(const arbor_scene *s, arbor_node n, arbor_trs *out) {
    uint32_t slot;
    if (!arbor__live_slot_without(s, n, 0, &slot) || !out) return trs_checked(s, n, out);
    /* the public struct is the slot's ten reals in their order: one copy */
    memcpy(out, s->n.trs + (size_t)slot * ARBOR__TRS, sizeof *out);
    return ARBOR_OK;
}

arbor_result arbor_node_get_trs(const arbor_scene *s, arbor_node n, arbor_trs *out) {
    return read_trs(s, n, out, "arbor_node_get_trs");
}

/* arbor_node_local_matrix's every case: refusals, and a kept matrix. */
ARBOR__CHECKED_PATH static arbor_result local_matrix_checked(const arbor_scene *s, arbor_node n, arbor_real out[16]) {
    ARBOR__REQUIRE_OUT(out, "arbor_node_local_matrix");
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, "arbor_node_local_matrix", &r);
    if (!slot) return r;
    arbor__rows_to_mat4(out, arbor__local_rows(s, slot));
    return ARBOR_OK;
}

arbor_result arbor_node_local_matrix(const arbor_scene *s, arbor_node n, arbor_real out[16]) {
    uint32_t slot; /* without a kept matrix, its local is its TRS's */
    if (!arbor__live_slot_without(s, n, ARBOR__MATRIX, &slot) || !out) return local_matrix_checked(s, n, out);
    arbor__rows_to_mat4(out, arbor__rows_compose_trs(s->n.trs + (size_t)slot * ARBOR__TRS));
    return ARBOR_OK;
}

bool arbor_node_is_matrix_backed(const arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    return slot && (s->n.flags[slot] & ARBOR__MATRIX);
}

bool arbor_node_is_locked(const arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    return slot && (s->n.flags[slot] & ARBOR__LOCKED);
}

/* ---- names and user pointers -------------------------------------------------------------- */

arbor_result arbor_node_set_name(arbor_scene *s, arbor_node n, const char *name) {
    static const char *const fn = "arbor_node_set_name";
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    char *copy;
    if (!copy_name(s, name, &copy)) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the name");
    free_name(s, slot);
    s->n.name[slot] = copy;
    return ARBOR_OK;
}

const char *arbor_node_name(const arbor_scene *s, arbor_node n) {
    uint32_t slot = arbor__live_slot(s, n);
    return slot ? s->n.name[slot] : NULL;
}

