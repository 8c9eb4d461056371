/* SPDX-License-Identifier: MIT */
/*
 * Stamped samples of nodes' local TRS and the lookups between them (arbor/time.h).
 *
 * Each node that was recorded has a ring of samples in time order, indexed by the node's id (ids
 * stay with a node through renumberings). A sample is its time and TRS as words read and written
 * with relaxed atomics under the node's sequence counter (a seqlock, as C11 allows one: the data
 * accesses are atomic, a release fence after the writer's odd count, an acquire fence before the
 * reader's second read), so a reader beside the one writer never sees a torn sample and never
 * makes it wait. A ring that fills grows into a new one; the old one is kept (a reader may still
 * be in it) until the writer next has the scene to itself (a first sample: reclaim).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "scene/scene_internal.h"

/* A sample: its time (a double's bits) and TRS (10 reals), in 64-bit words. */
#define WORDS (1 + (ARBOR__TRS * sizeof(arbor_real) + 7) / 8)
typedef struct sample_words { _Atomic uint64_t w[WORDS]; } sample_words;
typedef struct sample { double time; arbor_real trs[ARBOR__TRS]; } sample;
_Static_assert(sizeof(sample_words) == sizeof(uint64_t) * WORDS, "a sample is its words");
_Static_assert(ARBOR_REAL_IS_DOUBLE || sizeof(sample_words) <= 48, "a sample takes 48 bytes in the float build");
_Static_assert(sizeof(arbor_trs) == ARBOR__TRS * sizeof(arbor_real), "a TRS is its 10 reals, checked as one array");

typedef struct ring {
    struct ring *retired; /* the list of rings grown out of */
    uint32_t cap;         /* fixed when made: a reader takes it from the ring it reads */
    sample_words s[];
} ring;

typedef struct node_history {
    _Atomic uint32_t seq;       /* odd while the writer changes the node's entry */
    _Atomic uint32_t gen;       /* the handle's generation word its samples belong to */
    _Atomic uint32_t parent;    /* the id of the parent they were recorded under (0: a root) */
    _Atomic uint32_t head, count;
    _Atomic(ring *) ring;
} node_history;

struct arbor__history {
    node_history *nodes; /* by id */
    uint32_t cap;        /* ids */
    double hold;         /* arbor_scene_set_time_hold's */
    uint32_t rings;      /* entries holding a ring */
    uint32_t firsts;     /* first samples since the last sweep (reclaim) */
    ring *retired;
};

/* ---- samples as words ---------------------------------------------------------------------------- */

static void put(sample_words *to, const sample *from) {
    uint64_t w[WORDS] = {0};
    memcpy(w, &from->time, sizeof(double));
    memcpy(w + 1, from->trs, sizeof from->trs);
    ARBOR__UNROLL
    for (size_t i = 0; i < WORDS; i++) atomic_store_explicit(&to->w[i], w[i], memory_order_relaxed);
}
static void get(sample *to, const sample_words *from) {
    uint64_t w[WORDS];
    ARBOR__UNROLL
    for (size_t i = 0; i < WORDS; i++) w[i] = atomic_load_explicit(&from->w[i], memory_order_relaxed);
    memcpy(&to->time, w, sizeof(double));
    memcpy(to->trs, w + 1, sizeof to->trs);
}
static double time_of(const sample_words *from) {
    uint64_t w = atomic_load_explicit(&from->w[0], memory_order_relaxed);
    double t;
    memcpy(&t, &w, sizeof t);
    return t;
}
/* i mod cap for i below 2 cap (a head and an offset below cap), without a division. */
static inline uint32_t wrap(uint32_t i, uint32_t cap) { return i >= cap ? i - cap : i; }
#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define STORE(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

/* ---- the scene's table ---------------------------------------------------------------------------- */

static size_t ring_bytes(uint32_t cap) { return sizeof(ring) + (size_t)cap * sizeof(sample_words); }

static void account(arbor_scene *s, int64_t samples, int64_t bytes) {
    s->stats.history_samples += (uint64_t)samples;
    s->stats.history_bytes += (uint64_t)bytes;
}

static void history_destroy(arbor_scene *s) {
    struct arbor__history *h = s->history;
    if (!h) return;
    for (uint32_t id = 0; id < h->cap; id++) {
        ring *r = LOAD(h->nodes[id].ring);
        if (r) arbor__free(s, r, ring_bytes(r->cap));
    }
    for (ring *r = h->retired, *next; r; r = next) {
        next = r->retired;
        arbor__free(s, r, ring_bytes(r->cap));
    }
    arbor__free(s, h->nodes, (size_t)h->cap * sizeof *h->nodes);
    arbor__free(s, h, sizeof *h);
    s->history = NULL;
}

/* The table holds ids [0, id_end): made, or grown, for a first sample (the scene to itself). */
static bool table_reserve(arbor_scene *s) {
    struct arbor__history *h = s->history;
    if (!h) {
        if (!(h = arbor__alloc(s, sizeof *h))) return false;
        *h = (struct arbor__history){0};
        s->history = h;
        account(s, 0, sizeof *h);
        arbor__on_destroy(s, history_destroy);
    }
    if (s->id_end <= h->cap) return true;
    uint64_t cap = h->cap ? (uint64_t)h->cap * 2 : 64;
    if (cap < s->id_end) cap = s->id_end;
    node_history *grown = arbor__alloc(s, (size_t)cap * sizeof *grown);
    if (!grown) return false;
    for (uint32_t id = 0; id < cap; id++) { /* atomics are copied as values: the writer is alone */
        node_history *g = &grown[id];
        const node_history *o = id < h->cap ? &h->nodes[id] : NULL;
        atomic_init(&g->seq, o ? LOAD(o->seq) : 0);
        atomic_init(&g->gen, o ? LOAD(o->gen) : 0);
        atomic_init(&g->parent, o ? LOAD(o->parent) : 0);
        atomic_init(&g->head, o ? LOAD(o->head) : 0);
        atomic_init(&g->count, o ? LOAD(o->count) : 0);
        atomic_init(&g->ring, o ? LOAD(o->ring) : NULL);
    }
    arbor__free(s, h->nodes, (size_t)h->cap * sizeof *h->nodes);
    account(s, 0, (int64_t)((cap - h->cap) * sizeof *grown));
    h->nodes = grown;
    h->cap = (uint32_t)cap;
    return true;
}

/* The node's entry when it holds samples of its present handle, else NULL (static). */
static node_history *entry_of(const arbor_scene *s, uint32_t slot) {
    const struct arbor__history *h = s->history;
    uint32_t id = s->n.id[slot];
    if (!h || id >= h->cap) return NULL;
    node_history *e = &h->nodes[id];
    return LOAD(e->gen) == s->n.gen[id] && LOAD(e->ring) ? e : NULL;
}

/* ---- the writer ---------------------------------------------------------------------------------- */

static void write_begin(node_history *e) {
    STORE(e->seq, LOAD(e->seq) + 1);
    atomic_thread_fence(memory_order_release);
}
static void write_end(node_history *e) {
    atomic_store_explicit(&e->seq, LOAD(e->seq) + 1, memory_order_release);
}

static uint32_t parent_id(const arbor_scene *s, uint32_t slot) {
    uint32_t p = s->n.parent[slot];
    return p ? s->n.id[p] : 0;
}

/* Room for a node's next sample, in two steps so that a call recording many nodes can fail
   (out of memory) before it changes any: room_needed (reads only) says what a new ring must
   hold, and after every allocation succeeded, make_room drops the samples of another handle or
   parent and publishes the grown ring. */

/* Whether the table holds slot's id (a first sample may need it grown: table_reserve). */
static bool table_holds(const arbor_scene *s, uint32_t slot) { return s->history && s->n.id[slot] < s->history->cap; }

/* The capacity of the ring slot's next sample needs, 0 when the ring it has keeps room for it
   (the samples of another handle or parent counted as dropped). */
static uint32_t room_needed(const arbor_scene *s, uint32_t slot) {
    uint32_t id = s->n.id[slot];
    const node_history *e = table_holds(s, slot) ? &s->history->nodes[id] : NULL;
    const ring *r = e ? LOAD(e->ring) : NULL;
    bool fresh = !e || LOAD(e->gen) != s->n.gen[id] || LOAD(e->parent) != parent_id(s, slot);
    uint32_t count = fresh ? 0 : LOAD(e->count);
    if (r && count < r->cap) return 0;
    uint32_t cap = s->history_capacity ? s->history_capacity + 1 : 16; /* a count limit: no growth */
    if (r && !s->history_capacity) {
        /* Grown to what the window holds at the rate seen so far (a 32nd more, and one spare), so
           that a node recorded at a steady rate grows once: few rings are grown out of. */
        double span = time_of(&r->s[wrap(LOAD(e->head) + count - 1, r->cap)]) - time_of(&r->s[LOAD(e->head)]);
        double want = span > 0 ? (double)(count - 1) * s->history_duration / span * (1 + 1.0 / 32) + 2 : 0;
        cap = r->cap * 2;
        if (want > cap && want < (double)UINT32_MAX / 2) cap = (uint32_t)want;
    }
    if (s->history_capacity && cap > s->history_capacity) cap = s->history_capacity + 1; /* one past: insert, then prune */
    return cap;
}

static ring *ring_alloc(arbor_scene *s, uint32_t cap) {
    ring *g = arbor__alloc(s, ring_bytes(cap));
    if (!g) return NULL;
    g->cap = cap;
    g->retired = NULL;
    return g;
}

/* slot's entry with room for one more sample: g, a ring of room_needed's capacity when it was
   not 0 (else NULL), takes its samples. The table holds slot's id. Cannot fail. */
static node_history *make_room(arbor_scene *s, uint32_t slot, ring *g) {
    uint32_t id = s->n.id[slot];
    s->history->firsts += !entry_of(s, slot);
    node_history *e = &s->history->nodes[id];
    ring *r = LOAD(e->ring);
    bool fresh = LOAD(e->gen) != s->n.gen[id] || LOAD(e->parent) != parent_id(s, slot);
    uint32_t count = fresh ? 0 : LOAD(e->count);
    if (!g) {
        if (fresh) {
            write_begin(e);
            account(s, -(int64_t)LOAD(e->count), 0);
            STORE(e->count, 0);
            STORE(e->head, 0);
            STORE(e->gen, s->n.gen[id]);
            STORE(e->parent, parent_id(s, slot));
            write_end(e);
        }
        return e;
    }
    s->history->rings += !r;
    uint32_t head = r ? LOAD(e->head) : 0;
    for (uint32_t i = 0; i < count; i++) {
        sample x;
        get(&x, &r->s[wrap(head + i, r->cap)]);
        put(&g->s[i], &x);
    }
    write_begin(e);
    account(s, (int64_t)count - (int64_t)(r ? LOAD(e->count) : 0), (int64_t)ring_bytes(g->cap));
    STORE(e->ring, g);
    STORE(e->head, 0);
    STORE(e->count, count);
    STORE(e->gen, s->n.gen[id]);
    STORE(e->parent, parent_id(s, slot));
    write_end(e);
    if (r) {
        r->retired = s->history->retired;
        s->history->retired = r;
    }
    return e;
}

/* After a call that recorded a node's first sample, which the writer makes with the scene to
   itself (time.h): no reader is in a ring, so the rings grown out of are freed, and once every
   quarter of the rings' count in first samples, the rings of nodes whose ids were freed or reused
   and those four times larger than their samples need (made half that). */
static void reclaim(arbor_scene *s) {
    struct arbor__history *h = s->history;
    for (ring *r = h->retired, *next; r; r = next) {
        next = r->retired;
        account(s, 0, -(int64_t)ring_bytes(r->cap));
        arbor__free(s, r, ring_bytes(r->cap));
    }
    h->retired = NULL;
    if ((uint64_t)h->firsts * 4 < h->rings) return;
    h->firsts = 0;
    for (uint32_t id = 0; id < h->cap; id++) {
        node_history *e = &h->nodes[id];
        ring *r = LOAD(e->ring), *g = NULL;
        if (!r) continue;
        uint32_t head = LOAD(e->head), count = LOAD(e->count), cap = count * 2 > 16 ? count * 2 : 16;
        bool dead = id >= s->id_end || (s->n.slot_of[id] & ARBOR__FREE_ID) || LOAD(e->gen) != s->n.gen[id];
        if (!dead) {
            if (s->history_capacity || r->cap < 64 || count >= r->cap / 4 || !(g = arbor__alloc(s, ring_bytes(cap)))) continue;
            g->cap = cap;
            g->retired = NULL;
            for (uint32_t i = 0; i < count; i++) {
                sample x;
                get(&x, &r->s[wrap(head + i, r->cap)]);
                put(&g->s[i], &x);
            }
            account(s, 0, (int64_t)ring_bytes(cap));
        } else {
            account(s, -(int64_t)count, 0);
            count = 0;
            h->rings--;
        }
        STORE(e->ring, g);
        STORE(e->head, 0);
        STORE(e->count, count);
        account(s, 0, -(int64_t)ring_bytes(r->cap));
        arbor__free(s, r, ring_bytes(r->cap));
    }
}

/* The samples left of count from head once those older than the window before the latest, or
   past the count limit, are dropped (the oldest first; the latest always stays); *head moves. */
static uint32_t prune(arbor_scene *s, const ring *r, uint32_t *head, uint32_t count) {
    uint32_t cap = r->cap, kept = count;
    double oldest = time_of(&r->s[wrap(*head + count - 1, cap)]) - s->history_duration;
    while (kept > 1 && (time_of(&r->s[*head]) < oldest || (s->history_capacity && kept > s->history_capacity))) {
        *head = wrap(*head + 1, cap);
        kept--;
    }
    account(s, -(int64_t)(count - kept), 0);
    return kept;
}

/* Inserts x in time order (replacing a sample of the same time), then prunes. e has room. */
static void insert(arbor_scene *s, node_history *e, const sample *x) {
    ring *r = LOAD(e->ring);
    uint32_t head = LOAD(e->head), count = LOAD(e->count), cap = r->cap;
    uint32_t i = count; /* where x goes: after every earlier sample (late ones are few: a linear walk back) */
    while (i > 0 && time_of(&r->s[wrap(head + i - 1, cap)]) > x->time) i--;
    bool replace = i > 0 && time_of(&r->s[wrap(head + i - 1, cap)]) == x->time;
    write_begin(e);
    if (replace) {
        put(&r->s[wrap(head + i - 1, cap)], x);
    } else {
        for (uint32_t k = count; k > i; k--) {
            sample y;
            get(&y, &r->s[wrap(head + k - 1, cap)]);
            put(&r->s[wrap(head + k, cap)], &y);
        }
        put(&r->s[wrap(head + i, cap)], x);
        count++;
        account(s, 1, 0);
    }
    count = prune(s, r, &head, count);
    STORE(e->head, head);
    STORE(e->count, count);
    write_end(e);
}

/* The time of the latest sample in e, -inf when it holds none. */
static double latest_in(const node_history *e) {
    uint32_t count = LOAD(e->count);
    if (!count) return -INFINITY;
    const ring *r = LOAD(e->ring);
    return time_of(&r->s[wrap(LOAD(e->head) + count - 1, r->cap)]);
}

/* The node's latest sample's time, or -inf when it has none of its present handle and parent. */
static double latest_of(const arbor_scene *s, uint32_t slot) {
    const node_history *e = entry_of(s, slot);
    return e && LOAD(e->parent) == parent_id(s, slot) ? latest_in(e) : -INFINITY;
}

/* The checks of a sample: time finite, values finite, rotation not zero; the unit rotation into x. */
static arbor_result check_sample(arbor_scene *s, uint32_t slot, double time, const arbor_trs *trs, sample *x, const char *fn,
                                 int64_t entry) {
    char where[40] = ""; /* "pose entry i: ", written only for a refusal */
#define WHERE (entry >= 0 ? (snprintf(where, sizeof where, "pose entry %lld: ", (long long)entry), where) : where)
    if (!isfinite(time)) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "%stime %g is not finite", WHERE, time);
    if (s->n.flags[slot] & ARBOR__LOCKED)
        return arbor__fail(ARBOR_ERR_LOCKED, fn, "%snode " ARBOR__NODE_FMT " has a locked local matrix", WHERE,
                           ARBOR__NODE_ARGS(s, slot));
    const arbor_real *v = &trs->translation[0];
    arbor_real all[ARBOR__TRS];
    memcpy(all, trs->translation, 3 * sizeof *v);
    memcpy(all + ARBOR__R, trs->rotation, 4 * sizeof *v);
    memcpy(all + ARBOR__S, trs->scale, 3 * sizeof *v);
    if (!arbor__all_finite(all, ARBOR__TRS))
        return arbor__fail(ARBOR_ERR_NONFINITE, fn, "%sthe TRS of " ARBOR__NODE_FMT " holds a NaN or infinity", WHERE,
                           ARBOR__NODE_ARGS(s, slot));
    if (!arbor__unit_quat(all + ARBOR__R, all + ARBOR__R))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "%sthe rotation of " ARBOR__NODE_FMT " is zero", WHERE,
                           ARBOR__NODE_ARGS(s, slot));
    x->time = time;
    memcpy(x->trs, all, sizeof all);
    return ARBOR_OK;
#undef WHERE
}

/* Whether t's translation and scale are surely finite: their sum is not finite when one of them
   is not (an infinity stays one or meets the other sign's as a NaN, and a NaN stays), and x - x
   is 0 only for a finite x. Values so large their sum overflows are also said not to be: the
   checked path, which tests each, takes them. The rotation needs no test here:
   arbor__quat_length_fast refuses a non-finite one. */
static inline bool finite_translation_scale(const arbor_trs *t) {
    arbor_real sum = t->translation[0] + t->translation[1] + t->translation[2] + t->scale[0] + t->scale[1] + t->scale[2];
    return sum - sum == 0;
}

/* The present of a node whose sample x is its latest: stored as arbor_node_set_trs stores a TRS
   (no kept matrix; the world out of date, computed when read). */
ARBOR__HOT void set_present(arbor_scene *s, uint32_t slot, const sample *x) {
    memcpy(s->n.trs + (size_t)slot * ARBOR__TRS, x->trs, sizeof x->trs);
    s->n.flags[slot] &= (uint8_t)~ARBOR__MATRIX;
    arbor__invalidate(s, slot);
}

arbor_result arbor_node_record_trs(arbor_scene *s, arbor_node n, double time, const arbor_trs *trs) {
    static const char fn[] = "arbor_node_record_trs";
    ARBOR__REQUIRE_OUT(trs, fn);
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, n, fn, &r);
    if (!slot) return r;
    sample x;
    if ((r = check_sample(s, slot, time, trs, &x, fn, -1)) != ARBOR_OK) return r;
    double latest = latest_of(s, slot);
    if (time < latest - s->history_duration) return ARBOR_OK; /* pruned as it would arrive */
    uint32_t cap = room_needed(s, slot);
    ring *g = NULL;
    if ((!table_holds(s, slot) && !table_reserve(s)) || (cap && !(g = ring_alloc(s, cap))))
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the samples of " ARBOR__NODE_FMT, ARBOR__NODE_ARGS(s, slot));
    node_history *e = make_room(s, slot, g);
    if (time >= latest) set_present(s, slot, &x);
    insert(s, e, &x);
    if (s->history->firsts) reclaim(s);
    return ARBOR_OK;
}

/* ---- a pose's steady step ------------------------------------------------------------------------ */

/* What a steady entry's write needs, kept from its check: its history entry, its slot and its
   rotation's length (which the check computes anyway). */
typedef struct steady_entry {
    node_history *e;
    uint32_t slot;
    arbor_real length;
} steady_entry;
/* Entries kept from the check pass; the rest of a larger pose are checked again when written
   (a refusal changes nothing, so every entry is checked before any is written). */
#define STEADY_KEPT 64
/* A steady check is expected to pass: without the hint gcc laid the check loop out as cold
   (sized, not sped: sqrtf called through libm for every entry, 14.49 M against 15.40 M). */
#if defined(__GNUC__)
#define STEADY_EXPECTED(x) __builtin_expect(!!(x), 1)
#else
#define STEADY_EXPECTED(x) (x)
#endif

/* Whether the entry (node n, values t) is a step of a steady stream at time: n live and
   unlocked, its values finite, its rotation of a length arbor__quat_length_fast takes, and its history of n's handle and present
   parent, not empty, with room for a sample after its latest, which is before time. *out then
   holds what its write needs. Reads only. */
ARBOR__HOT bool steady_check(const arbor_scene *s, arbor_node n, const arbor_trs *t, double time, steady_entry *out) {
    const struct arbor__history *h = s->history;
    uint32_t slot, id = (uint32_t)n.id;
    if (!arbor__live_slot_without(s, n, ARBOR__LOCKED, &slot) || id >= h->cap || !finite_translation_scale(t)) return false;
    node_history *e = &h->nodes[id];
    const ring *r = LOAD(e->ring);
    uint32_t count = LOAD(e->count);
    /* the entry's generation word is the handle's: arbor__live_slot_without compared it with the scene's */
    if (!r || LOAD(e->gen) != (uint32_t)(n.id >> 32) || LOAD(e->parent) != parent_id(s, slot) || count - 1 >= r->cap - 1 /* empty or full */ ||
        !(time > time_of(&r->s[wrap(LOAD(e->head) + count - 1, r->cap)])))
        return false;
    /* Zero, not finite, or so small or large it needs scaling (the checked path's): not steady. */
    if (!arbor__quat_length_fast(t->rotation, &out->length)) return false;
    out->e = e;
    out->slot = slot;
    return true;
}

/* Writes a checked steady entry: its present (as set_present) and its sample appended after its
   latest, pruning what falls out of the window before time (oldest: time less the duration) or
   past the count limit (limit; UINT32_MAX for none). The samples dropped. */
ARBOR__HOT uint32_t steady_write(arbor_scene *s, const steady_entry *w, const arbor_trs *t, double time, double oldest,
                                    uint32_t limit) {
    sample x;
    x.time = time;
    memcpy(x.trs + ARBOR__T, t->translation, sizeof t->translation);
    for (int k = 0; k < 4; k++) x.trs[ARBOR__R + k] = t->rotation[k] / w->length; /* arbor__quat_normalize_fast's */
    memcpy(x.trs + ARBOR__S, t->scale, sizeof t->scale);
    set_present(s, w->slot, &x);
    node_history *e = w->e;
    ring *r = LOAD(e->ring);
    uint32_t head = LOAD(e->head), count = LOAD(e->count) + 1, cap = r->cap, seq = LOAD(e->seq);
    STORE(e->seq, seq + 1); /* write_begin, with the count kept for write_end */
    atomic_thread_fence(memory_order_release);
    put(&r->s[wrap(head + count - 1, cap)], &x);
    uint32_t kept = count;
    /* The oldest is tested first: in a steady stream it is the one sample that leaves, or none. */
    while (kept > 1 && (time_of(&r->s[head]) < oldest || kept > limit)) {
        head = wrap(head + 1, cap);
        kept--;
    }
    STORE(e->head, head);
    STORE(e->count, kept);
    atomic_store_explicit(&e->seq, seq + 2, memory_order_release);
    return count - kept;
}

/* arbor_pose_record's common call, a step after every sample held (a physics step, a joint
   state at its rate): when every entry is steady (steady_check), all are written and true;
   else nothing is written and false (the checked path then says why, or takes the call). */
static bool record_steady(arbor_scene *s, const arbor_node *nodes, const arbor_trs *trs, uint32_t count, double time) {
    steady_entry kept[STEADY_KEPT];
    uint32_t first = count < STEADY_KEPT ? count : STEADY_KEPT; /* the entries kept */
    for (uint32_t i = 0; i < first; i++)
        if (!STEADY_EXPECTED(steady_check(s, nodes[i], &trs[i], time, &kept[i]))) return false;
    for (uint32_t i = first; i < count; i++) {
        steady_entry scratch;
        if (!STEADY_EXPECTED(steady_check(s, nodes[i], &trs[i], time, &scratch))) return false;
    }
    double oldest = time - s->history_duration;
    uint32_t limit = s->history_capacity ? s->history_capacity : UINT32_MAX;
    uint64_t dropped = 0;
    for (uint32_t i = 0; i < first; i++) dropped += steady_write(s, &kept[i], &trs[i], time, oldest, limit);
    for (uint32_t i = first; i < count; i++) {
        steady_entry again = { 0 };
        steady_check(s, nodes[i], &trs[i], time, &again); /* checked above: true */
        dropped += steady_write(s, &again, &trs[i], time, oldest, limit);
    }
    account(s, (int64_t)count - (int64_t)dropped, 0);
    return true;
}

arbor_result arbor_pose_record(arbor_pose *pose, double time) {
    static const char fn[] = "arbor_pose_record";
    if (!pose) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "pose is NULL");
    arbor_scene *s = arbor__pose_scene(pose);
    if (!s) return arbor__inert(fn);
    const arbor_node *nodes = arbor_pose_nodes(pose);
    const arbor_trs *trs = arbor_pose_trs(pose);
    uint32_t count = arbor_pose_count(pose);
    if (s->history && isfinite(time) && record_steady(s, nodes, trs, count, time)) return ARBOR_OK;
    /* The checks, and every ring the samples need allocated (kept in a list through their
       retired links, in entry order), before anything is written: a refusal changes nothing. */
    ring *grown = NULL, **tail = &grown;
    for (uint32_t i = 0; i < count; i++) {
        arbor_result r = ARBOR_OK;
        uint32_t slot = arbor__require(s, nodes[i], fn, &r);
        sample x;
        if (slot) r = check_sample(s, slot, time, &trs[i], &x, fn, i);
        if (r == ARBOR_OK && time >= latest_of(s, slot) - s->history_duration) {
            uint32_t cap = room_needed(s, slot);
            if ((!table_holds(s, slot) && !table_reserve(s)) || (cap && !(*tail = ring_alloc(s, cap))))
                r = arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the samples of " ARBOR__NODE_FMT,
                                ARBOR__NODE_ARGS(s, slot));
            else if (cap)
                tail = &(*tail)->retired;
        }
        if (r != ARBOR_OK) {
            for (ring *g = grown, *next; g; g = next) {
                next = g->retired;
                arbor__free(s, g, ring_bytes(g->cap));
            }
            return r;
        }
    }
    /* Each sample in its node's history, and the latest ones set as the present, as
       arbor_node_set_trs sets it (no world computed: the reads compute what they need); a late
       sample leaves the present as it is. */
    for (uint32_t i = 0; i < count; i++) {
        uint32_t slot = arbor__slot(s, nodes[i]);
        sample x = { time, { 0 } };
        memcpy(x.trs + ARBOR__T, trs[i].translation, sizeof trs[i].translation);
        memcpy(x.trs + ARBOR__S, trs[i].scale, sizeof trs[i].scale);
        arbor__unit_quat(x.trs + ARBOR__R, trs[i].rotation); /* checked above: not zero */
        double latest = latest_of(s, slot);
        if (time < latest - s->history_duration) continue; /* pruned as it would arrive */
        ring *g = NULL;
        if (room_needed(s, slot)) { /* as in the checks: no node twice in a pose */
            g = grown;
            grown = g->retired;
            g->retired = NULL;
        }
        node_history *e = make_room(s, slot, g);
        if (time >= latest) set_present(s, slot, &x);
        insert(s, e, &x);
    }
    if (s->history && s->history->firsts) reclaim(s); /* none: an empty pose, or every sample pruned */
    return ARBOR_OK;
}

/* ---- the readers ---------------------------------------------------------------------------------- */

/* An affine matrix in double: rows of 4 (the last row (0, 0, 0, 1) left out). */
typedef struct affine { double m[3][4]; } affine;

static affine compose(const double trs[ARBOR__TRS]) {
    const double *t = trs + ARBOR__T, *q = trs + ARBOR__R, *sc = trs + ARBOR__S;
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[3][3] = {
        { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w) },
        { 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w) },
        { 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y) },
    };
    affine a;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) a.m[i][j] = r[i][j] * sc[j];
        a.m[i][3] = t[i];
    }
    return a;
}

/* a = a b in place (each row of the product needs only its own row of a); mul: into a copy. */
static inline void mul_onto(affine *a, const affine *b) {
    for (int i = 0; i < 3; i++) {
        double a0 = a->m[i][0], a1 = a->m[i][1], a2 = a->m[i][2], a3 = a->m[i][3];
        a->m[i][0] = a0 * b->m[0][0] + a1 * b->m[1][0] + a2 * b->m[2][0];
        a->m[i][1] = a0 * b->m[0][1] + a1 * b->m[1][1] + a2 * b->m[2][1];
        a->m[i][2] = a0 * b->m[0][2] + a1 * b->m[1][2] + a2 * b->m[2][2];
        a->m[i][3] = a0 * b->m[0][3] + a1 * b->m[1][3] + a2 * b->m[2][3] + a3;
    }
}

static affine mul(const affine *a, const affine *b) {
    affine c = *a;
    mul_onto(&c, b);
    return c;
}

/* The inverse of a; false when it has none. */
static bool invert(affine *out, const affine *a) {
    const double(*m)[4] = a->m;
    double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1], c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2],
           c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    double det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
    if (!(fabs(det) > 1e-300) || !isfinite(det)) return false;
    double inv[3][3] = {
        { c00, m[0][2] * m[2][1] - m[0][1] * m[2][2], m[0][1] * m[1][2] - m[0][2] * m[1][1] },
        { c01, m[0][0] * m[2][2] - m[0][2] * m[2][0], m[0][2] * m[1][0] - m[0][0] * m[1][2] },
        { c02, m[0][1] * m[2][0] - m[0][0] * m[2][1], m[0][0] * m[1][1] - m[0][1] * m[1][0] },
    };
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) out->m[i][j] = inv[i][j] / det;
        out->m[i][3] = -(out->m[i][0] * m[0][3] + out->m[i][1] * m[1][3] + out->m[i][2] * m[2][3]);
    }
    return true;
}

static void store(arbor_real out[16], const affine *a) {
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 3; r++) out[c * 4 + r] = (arbor_real)a->m[r][c];
        out[c * 4 + 3] = c == 3 ? 1 : 0;
    }
}

/* A product of locals from the top of a path down. While every local in it is rigid (a TRS of
   scale exactly 1: a robot's links) it is a rotation and a translation, and a link costs a
   quaternion product and a rotated vector, where matrices take a 3x4 product and a local's
   matrix; from the first other local on, an affine matrix. */
typedef struct frame {
    bool rigid;
    double q[4], t[3]; /* rigid: x -> q x q* + t */
    affine m;          /* otherwise */
} frame;

static const frame frame_identity = { true, { 0, 0, 0, 1 }, { 0, 0, 0 }, { { { 0 } } } };

/* q x q* for a unit q: x + 2 w (v x x) + 2 v x (v x x), v = q's vector part. */
static inline void rotate(double out[3], const double q[4], const double x[3]) {
    double c[3] = { 2 * (q[1] * x[2] - q[2] * x[1]), 2 * (q[2] * x[0] - q[0] * x[2]), 2 * (q[0] * x[1] - q[1] * x[0]) };
    out[0] = x[0] + q[3] * c[0] + (q[1] * c[2] - q[2] * c[1]);
    out[1] = x[1] + q[3] * c[1] + (q[2] * c[0] - q[0] * c[2]);
    out[2] = x[2] + q[3] * c[2] + (q[0] * c[1] - q[1] * c[0]);
}

/* a b (Hamilton's product, (x, y, z, w)); out may be a. */
static inline void quat_mul(double out[4], const double a[4], const double b[4]) {
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x, out[1] = y, out[2] = z, out[3] = w;
}

/* The matrix of f. */
static affine frame_matrix(const frame *f) {
    if (!f->rigid) return f->m;
    double trs[ARBOR__TRS] = { f->t[0], f->t[1], f->t[2], f->q[0], f->q[1], f->q[2], f->q[3], 1, 1, 1 };
    return compose(trs);
}

/* f as a matrix, from then on. */
static void frame_to_matrix(frame *f) {
    if (!f->rigid) return;
    f->m = frame_matrix(f);
    f->rigid = false;
}

/* f = f L for the local of a TRS. */
ARBOR__HOT void frame_onto_trs(frame *f, const double trs[ARBOR__TRS]) {
    const double *sc = trs + ARBOR__S;
    if (f->rigid && sc[0] == 1 && sc[1] == 1 && sc[2] == 1) {
        double v[3];
        rotate(v, f->q, trs + ARBOR__T);
        for (int i = 0; i < 3; i++) f->t[i] += v[i];
        quat_mul(f->q, f->q, trs + ARBOR__R);
        return;
    }
    frame_to_matrix(f);
    affine l = compose(trs);
    mul_onto(&f->m, &l);
}

/* f = f L for a local given as a matrix. */
static void frame_onto_matrix(frame *f, const affine *l) {
    frame_to_matrix(f);
    mul_onto(&f->m, l);
}

/* inv(target) source: rigid when both are. */
static bool frame_between(frame *out, const frame *target, const frame *source) {
    if (target->rigid && source->rigid) {
        double conj[4] = { -target->q[0], -target->q[1], -target->q[2], target->q[3] }, d[3];
        for (int i = 0; i < 3; i++) d[i] = source->t[i] - target->t[i];
        out->rigid = true;
        rotate(out->t, conj, d);
        quat_mul(out->q, conj, source->q);
        return true;
    }
    affine tgt = frame_matrix(target), inv;
    if (!invert(&inv, &tgt)) return false;
    out->rigid = false;
    out->m = frame_matrix(source);
    out->m = mul(&inv, &out->m);
    return true;
}

/* sin x for x in [0, pi/2] (the arcs of a slerp on the shorter arc): its Taylor series to x^19,
   whose remainder there is below 3e-16, in a few products where libm's sin takes a call. */
static inline double sin_arc(double x) {
    double x2 = x * x, p = -1.0 / 121645100408832000.0; /* 1 / 19!, then 17! .. 3! with their signs */
    p = p * x2 + 1.0 / 355687428096000.0;
    p = p * x2 - 1.0 / 1307674368000.0;
    p = p * x2 + 1.0 / 6227020800.0;
    p = p * x2 - 1.0 / 39916800.0;
    p = p * x2 + 1.0 / 362880.0;
    p = p * x2 - 1.0 / 5040.0;
    p = p * x2 + 1.0 / 120.0;
    p = p * x2 - 1.0 / 6.0;
    return x + x * x2 * p;
}

/* The arc between two unit quaternions of dot product c in [0, 1], acos(c), without libm: twice
   halved (cos(x / 2) = sqrt((1 + cos x) / 2)), each time as 1 - cos, which keeps its relative
   precision near c = 1 ((1 - sqrt(1 - h)) = h / (1 + sqrt(1 - h))), then acos(1 - x) = 2 asin(y)
   with y = sqrt(x / 2) <= 0.2 from asin's series y (1 + y^2 / 6 + 3 y^4 / 40 + ...), whose
   terms fall by y^2 <= 0.04 each: twelve reach double's precision (within 5e-16 of libm's acos
   over [0, 1]; tests/test_time.c's test_wide_arcs checks slerps up to a half turn). */
static inline double arc_of(double c) {
    double x = 1 - c; /* exact for c >= 0.5 */
    for (int halving = 0; halving < 2; halving++) {
        double h = x * 0.5;
        x = h / (1 + sqrt(1 - h));
    }
    double z = x * 0.5, y = sqrt(z);
    /* asin's coefficients (2k)! / (4^k (k!)^2 (2k + 1)), k = 12 down to 1, in z = y^2 */
    double p = 676039.0 / 104857600;
    p = p * z + 88179.0 / 12058624;
    p = p * z + 46189.0 / 5505024;
    p = p * z + 12155.0 / 1245184;
    p = p * z + 6435.0 / 557056;
    p = p * z + 143.0 / 10240;
    p = p * z + 231.0 / 13312;
    p = p * z + 63.0 / 2816;
    p = p * z + 35.0 / 1152;
    p = p * z + 5.0 / 112;
    p = p * z + 3.0 / 40;
    p = p * z + 1.0 / 6;
    p = p * z + 1;
    return 8 * y * p; /* four times acos(1 - x), which is 2 asin(y) */
}

/* Two neighbouring samples of a node, and what interpolating between them at any time in
   [t0, t1] needs (the arc worked out once: a lookup_many's times share it). The samples are kept
   as stored (their reals widened where they are used). */
typedef struct span {
    double t0, t1; /* t0 == t1: one sample, held */
    sample a, b;
    double theta, inv_sin, sign; /* the arc from a's rotation to b's (theta 0: a's) */
} span;

/* p's arc, from its samples a and b (read into it). */
static void span_make(span *p) {
    p->t0 = p->a.time;
    p->t1 = p->b.time;
    double dot = 0, la = 0, lb = 0;
    for (int i = 0; i < 4; i++) {
        double qa = p->a.trs[ARBOR__R + i], qb = p->b.trs[ARBOR__R + i];
        dot += qa * qb;
        la += qa * qa;
        lb += qb * qb;
    }
    double c = fabs(dot) / sqrt(la * lb);
    p->theta = p->t1 > p->t0 && c < 1 ? arc_of(c) : 0;
    /* sin theta from c where that keeps its precision (an arc of 0.1 or more: 1 - c^2 >= 0.01,
       so c's rounding moves it by at most about 1e-14 relative), from the series below */
    double sin_theta = p->theta >= 0.1 ? sqrt((1 - c) * (1 + c)) : sin_arc(p->theta);
    p->inv_sin = p->theta > 0 ? 1 / sin_theta : 0;
    p->sign = dot < 0 ? -1 : 1;
}

/* The TRS at time in [t0, t1] as tf2 interpolates: translation and scale a + (b - a) * u,
   rotation by slerp on the shorter arc (tf2::Quaternion::slerp); at t0 or t1 that sample. */
static void span_at(const span *p, double time, double out[ARBOR__TRS]) {
    const arbor_real *a = p->a.trs, *b = p->b.trs;
    if (time == p->t1 && p->t1 > p->t0) a = b;
    if (a == b || time == p->t0 || !(p->t1 > p->t0)) {
        for (int i = 0; i < ARBOR__TRS; i++) out[i] = a[i];
        return;
    }
    double u = (time - p->t0) / (p->t1 - p->t0);
    for (int i = 0; i < 3; i++) {
        out[ARBOR__T + i] = a[ARBOR__T + i] + ((double)b[ARBOR__T + i] - a[ARBOR__T + i]) * u;
        out[ARBOR__S + i] = a[ARBOR__S + i] + ((double)b[ARBOR__S + i] - a[ARBOR__S + i]) * u;
    }
    if (p->theta == 0) {
        for (int i = 0; i < 4; i++) out[ARBOR__R + i] = a[ARBOR__R + i];
        return;
    }
    double s0 = sin_arc((1 - u) * p->theta) * p->inv_sin, s1 = sin_arc(u * p->theta) * p->inv_sin * p->sign;
    for (int i = 0; i < 4; i++) out[ARBOR__R + i] = a[ARBOR__R + i] * s0 + b[ARBOR__R + i] * s1;
}

enum { AT_OK, AT_OUTSIDE, AT_MOVED };

/* What the reader saw of a node's samples. */
typedef struct seen { double first, last; uint32_t parent; } seen;

/* The span of node e's samples around time (inf: its latest) into *p, read under its sequence
   counter; AT_OUTSIDE or AT_MOVED (recorded under another parent than want_parent) with what it
   holds in *v. A time within hold of the first or last sample holds that sample. */
ARBOR__HOT int read_span(const node_history *e, uint32_t want_parent, double time, double hold, span *p, seen *v) {
    for (;;) {
        uint32_t s1 = atomic_load_explicit(&e->seq, memory_order_acquire);
        if (s1 & 1) continue; /* the writer is inside: a few stores */
        const ring *r = LOAD(e->ring);
        uint32_t head = LOAD(e->head), count = LOAD(e->count);
        v->parent = LOAD(e->parent);
        atomic_thread_fence(memory_order_acquire); /* r's cap, written before r was published */
        uint32_t cap = r->cap;
        if (count > cap || head >= cap || count == 0) { /* torn: read again */
            atomic_thread_fence(memory_order_acquire);
            if (LOAD(e->seq) == s1 && count == 0) {
                v->first = v->last = NAN; /* holds none */
                return AT_OUTSIDE;
            }
            continue;
        }
        v->first = time_of(&r->s[head]);
        v->last = time_of(&r->s[wrap(head + count - 1, cap)]);
        int status = AT_OK;
        sample *a = &p->a, *b = &p->b; /* p is the caller's only when AT_OK comes back */
        if (v->parent != want_parent) {
            status = AT_MOVED;
        } else if (time == INFINITY || time == v->last || (time > v->last && time - v->last <= hold)) {
            get(a, &r->s[wrap(head + count - 1, cap)]);
            *b = *a;
        } else if (time < v->first && v->first - time <= hold) {
            get(a, &r->s[head]);
            *b = *a;
        } else if (!(time >= v->first && time <= v->last)) {
            status = AT_OUTSIDE;
        } else { /* the last sample at or before time: lo in [0, count - 1) */
            uint32_t lo = 0, hi = count - 1;
            /* Samples come at a steady rate, mostly: start where time falls between the first and
               last, and step from there (one or two cache lines, where a binary search of a
               large ring touches one a step); a few steps, then the search below. */
            double guess = (time - v->first) / (v->last - v->first) * (double)(count - 1);
            uint32_t g = guess >= 0 && guess < (double)(count - 1) ? (uint32_t)guess : 0;
            for (int step = 0; step < 4; step++) {
                if (time_of(&r->s[wrap(head + g, cap)]) > time) {
                    hi = g;
                    if (!g--) break;
                } else if (time_of(&r->s[wrap(head + g + 1, cap)]) <= time) {
                    lo = ++g;
                } else {
                    lo = g, hi = g + 1;
                    break;
                }
                if (g >= count - 1) break;
            }
            while (hi - lo > 1) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (time_of(&r->s[wrap(head + mid, cap)]) <= time) lo = mid; else hi = mid;
            }
            get(a, &r->s[wrap(head + lo, cap)]);
            get(b, &r->s[wrap(head + lo + 1, cap)]);
        }
        atomic_thread_fence(memory_order_acquire);
        if (LOAD(e->seq) != s1) continue;
        if (status == AT_OK) span_make(p);
        return status;
    }
}

/* The slot a handle names for a reader, 0 when its id and generation name none; whether the
   node is live (in a tree, not a subtree the journal holds) is rooted's question. */
static uint32_t handle_slot(const arbor_scene *s, arbor_node n) {
    uint32_t id = (uint32_t)n.id;
    if (!s || id == 0 || id >= s->id_end || s->n.gen[id] != (uint32_t)(n.id >> 32)) return 0;
    uint32_t slot = s->n.slot_of[id];
    return slot < s->slot_end ? slot : 0;
}

/* Whether slot lies in a live tree, read without the flags the writer writes: its root is one
   of the scene's (a held node's subtree top is unlinked: no root, not first). */
static bool rooted(const arbor_scene *s, uint32_t slot) {
    uint32_t top = slot;
    for (uint32_t steps = 0; s->n.parent[top] && steps <= s->max_depth; steps++) top = s->n.parent[top];
    return top == s->first_root || s->n.prev_sibling[top];
}

/* The node of a handle for a reader: live, 0 when dead. */
static uint32_t reader_slot(const arbor_scene *s, arbor_node n) {
    uint32_t slot = handle_slot(s, n);
    return slot && rooted(s, slot) ? slot : 0;
}

/* This thread's last extrapolation. */
static _Thread_local struct { bool set; arbor_node node; double time, first, last; } last_extrapolation;

bool arbor_time_last_extrapolation(arbor_node *node, double *time, double *first, double *last) {
    if (!last_extrapolation.set) return false;
    if (node) *node = last_extrapolation.node;
    if (time) *time = last_extrapolation.time;
    if (first) *first = last_extrapolation.first;
    if (last) *last = last_extrapolation.last;
    return true;
}

static arbor_result refuse_time(const arbor_scene *s, uint32_t slot, int status, double time, const seen *v, const char *fn) {
    last_extrapolation.set = true;
    last_extrapolation.node = arbor__handle(s, slot);
    last_extrapolation.time = time;
    last_extrapolation.first = v->first;
    last_extrapolation.last = v->last;
    if (status == AT_MOVED) {
        uint32_t was = v->parent < s->id_end ? s->n.slot_of[v->parent] : 0, now = s->n.parent[slot];
        char a[ARBOR__LABEL_CAP], b[ARBOR__LABEL_CAP];
        return arbor__fail(ARBOR_ERR_EXTRAPOLATION, fn,
                           ARBOR__NODE_FMT " was recorded under %s, its parent is now %s: record it again",
                           ARBOR__NODE_ARGS(s, slot),
                           v->parent && was < s->slot_end ? arbor__node_label(s, was, a, sizeof a) : "no parent (a root)",
                           now ? arbor__node_label(s, now, b, sizeof b) : "none (a root)");
    }
    if (time < v->first)
        return arbor__fail(ARBOR_ERR_EXTRAPOLATION, fn, ARBOR__NODE_FMT " has samples from %.2f s to %.2f s; %.2f s is %.2f s before the first",
                           ARBOR__NODE_ARGS(s, slot), v->first, v->last, time, v->first - time);
    return arbor__fail(ARBOR_ERR_EXTRAPOLATION, fn, ARBOR__NODE_FMT " has samples from %.2f s to %.2f s; %.2f s is %.2f s after the last",
                       ARBOR__NODE_ARGS(s, slot), v->first, v->last, time, time - v->last);
}

/* A node on a lookup's path, and what a call on many times keeps of it between them. */
typedef struct link {
    uint32_t slot;
    bool known;            /* fixed, or sp, holds what was read */
    const node_history *e; /* NULL: static */
    union {
        struct {
            bool matrix;                /* a kept local matrix (m), else its TRS (trs) */
            affine m;
            double trs[ARBOR__TRS];
        } fixed;                        /* a static node's present local */
        span sp;
    } u;
} link;

/* The nodes from a slot up to (not including) stop, the bottom first; deep: more than PATH_CAP
   of them (none kept: read node by node, the products from the bottom up). */
#define PATH_CAP 32
typedef struct chain {
    uint32_t count, slot, stop;
    bool deep;
    link l[PATH_CAP];
} chain;

static void link_init(const arbor_scene *s, link *k, uint32_t slot) {
    k->slot = slot;
    k->known = false;
    k->e = entry_of(s, slot);
}

static void chain_init(const arbor_scene *s, chain *c, uint32_t slot, uint32_t stop) {
    c->count = 0;
    c->slot = slot;
    c->stop = stop;
    c->deep = false;
    for (uint32_t n = slot; n != stop; n = s->n.parent[n]) {
        if (c->count == PATH_CAP) {
            c->deep = true;
            return;
        }
        link_init(s, &c->l[c->count++], n);
    }
}

/* *out = *out L for the local L of k's node at time (out NULL: only checked): its samples' or,
   static, its present local. A span read before is used again while time is in it. */
ARBOR__HOT arbor_result link_at(const arbor_scene *s, link *k, double time, frame *out, const char *fn) {
    if (!k->e) {
        if (!k->known) {
            const arbor_real *kept = arbor__kept_matrix(s, k->slot), *trs = s->n.trs + (size_t)k->slot * ARBOR__TRS;
            k->u.fixed.matrix = kept != NULL;
            for (int r = 0; kept && r < 3; r++)
                for (int c = 0; c < 4; c++) k->u.fixed.m.m[r][c] = kept[c * 4 + r];
            for (int i = 0; !kept && i < ARBOR__TRS; i++) k->u.fixed.trs[i] = trs[i];
            k->known = true;
        }
        if (out && k->u.fixed.matrix) frame_onto_matrix(out, &k->u.fixed.m);
        else if (out) frame_onto_trs(out, k->u.fixed.trs);
        return ARBOR_OK;
    }
    if (!k->known || !(time >= k->u.sp.t0 && time <= k->u.sp.t1)) {
        seen v;
        int status = read_span(k->e, parent_id(s, k->slot), time, s->history->hold, &k->u.sp, &v);
        k->known = status == AT_OK;
        if (status != AT_OK) return refuse_time(s, k->slot, status, time, &v, fn);
    }
    if (out) {
        double trs[ARBOR__TRS];
        span_at(&k->u.sp, time, trs);
        frame_onto_trs(out, trs);
    }
    return ARBOR_OK;
}

/* The latest time at which every recorded node of c has samples; +inf when none is recorded.
   Each one's latest sample is kept (the lookup at that time reads it again). */
static double latest_common(const arbor_scene *s, chain *c) {
    double t = INFINITY;
    for (uint32_t i = 0, n = c->slot; n != c->stop; i++, n = s->n.parent[n]) {
        link tmp, *k = c->deep ? &tmp : &c->l[i];
        if (c->deep) link_init(s, k, n);
        seen v;
        if (k->e && read_span(k->e, parent_id(s, n), INFINITY, 0, &k->u.sp, &v) == AT_OK) {
            k->known = true;
            if (v.last < t) t = v.last;
        }
    }
    return t;
}

/* The product of the locals of c's nodes at time: from the top down (a shared walk's order:
   arbor_scene_world_matrices_at gives the same bits), or for a deep chain from the bottom up. */
static arbor_result chain_at(const arbor_scene *s, chain *c, double time, frame *out, const char *fn) {
    *out = frame_identity;
    if (c->deep) {
        for (uint32_t n = c->slot; n != c->stop; n = s->n.parent[n]) {
            link k = { 0 }; /* all of it: gcc -O3 cannot see that link_at reads only what link_init set */
            link_init(s, &k, n);
            frame l = frame_identity;
            arbor_result r = link_at(s, &k, time, &l, fn);
            if (r != ARBOR_OK) return r;
            affine lm = frame_matrix(&l);
            if (n == c->slot) {
                out->rigid = false;
                out->m = lm;
            } else {
                out->m = mul(&lm, &out->m);
            }
        }
    } else {
        for (uint32_t i = c->count; i-- > 0;) {
            arbor_result r = link_at(s, &c->l[i], time, out, fn);
            if (r != ARBOR_OK) return r;
        }
    }
    return ARBOR_OK;
}

/* The path of a lookup: target's and source's slots (0: the world) and their nearest common
   ancestor (0: none, both roots' trees apart or one is the world). */
typedef struct path { uint32_t target, source, common; } path;

static arbor_result find_path(const arbor_scene *s, arbor_node target, arbor_node source, path *p, const char *fn) {
    arbor_result r = ARBOR_OK;
    p->source = handle_slot(s, source);
    if (!p->source) return arbor__require_failed(s, source, fn, &r), r;
    p->target = target.id ? handle_slot(s, target) : 0;
    if (target.id && !p->target) { /* source first, as the checks go */
        arbor_node first = rooted(s, p->source) ? target : source;
        return arbor__require_failed(s, first, fn, &r), r;
    }
    uint32_t a = p->target, b = p->source;
    if (a) {
        while (s->n.depth[a] > s->n.depth[b]) a = s->n.parent[a];
        while (s->n.depth[b] > s->n.depth[a]) b = s->n.parent[b];
        while (a != b) {
            a = s->n.parent[a];
            b = s->n.parent[b];
        }
    }
    /* Live: with a common ancestor, both are when it is (one walk to the root); without one,
       each is asked (a dead node is refused before two trees apart). */
    if (!a || !rooted(s, a)) {
        if (!rooted(s, p->source)) return arbor__require_failed(s, source, fn, &r), r;
        if (p->target && !rooted(s, p->target)) return arbor__require_failed(s, target, fn, &r), r;
    }
    if (p->target && !a)
        return arbor__fail(ARBOR_ERR_NOT_CONNECTED, fn, ARBOR__NODE_FMT " and " ARBOR__NODE_FMT " are in different trees",
                           ARBOR__NODE_ARGS(s, p->target), ARBOR__NODE_ARGS(s, p->source));
    p->common = a;
    return ARBOR_OK;
}

/* The two chains of a path: source's and target's up to their common ancestor. */
typedef struct walk { path p; chain source, target; } walk;

static arbor_result walk_init(const arbor_scene *s, walk *w, arbor_node target, arbor_node source, const char *fn) {
    arbor_result r = find_path(s, target, source, &w->p, fn);
    if (r != ARBOR_OK) return r;
    chain_init(s, &w->source, w->p.source, w->p.common);
    chain_init(s, &w->target, w->p.target ? w->p.target : w->p.common, w->p.common);
    return ARBOR_OK;
}

static bool good_time(double time, const char *fn) {
    if (time == ARBOR_TIME_LATEST || isfinite(time)) return true;
    arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "time %g is neither finite nor ARBOR_TIME_LATEST", time);
    return false;
}

/* target <- source at time along w, into *out. */
static arbor_result lookup_walk(const arbor_scene *s, walk *w, double time, frame *out, const char *fn) {
    if (!good_time(time, fn)) return ARBOR_ERR_INVALID_ARGUMENT;
    if (time == ARBOR_TIME_LATEST) {
        double a = latest_common(s, &w->source), b = latest_common(s, &w->target);
        time = a < b ? a : b; /* inf: nothing on the path is recorded, every time is the same */
    }
    if (!w->p.target || w->p.target == w->p.common) /* target is the world, or source's ancestor: */
        return chain_at(s, &w->source, time, out, fn); /* its chain is empty */
    frame src, tgt;
    arbor_result r = chain_at(s, &w->source, time, &src, fn);
    if (r == ARBOR_OK) r = chain_at(s, &w->target, time, &tgt, fn);
    if (r != ARBOR_OK) return r;
    if (!frame_between(out, &tgt, &src))
        return arbor__fail(ARBOR_ERR_SINGULAR, fn, "the frame of " ARBOR__NODE_FMT " at %.2f s cannot be inverted",
                           ARBOR__NODE_ARGS(s, w->p.target), time);
    return ARBOR_OK;
}

/* out (16, column-major) = f. */
static void store_frame(arbor_real out[16], const frame *f) {
    affine m = frame_matrix(f);
    store(out, &m);
}

arbor_result arbor_scene_lookup(arbor_scene *s, arbor_node target, arbor_node source, double time, arbor_real out[16]) {
    static const char fn[] = "arbor_scene_lookup";
    ARBOR__REQUIRE_OUT(out, fn);
    walk w;
    frame m;
    arbor_result r = walk_init(s, &w, target, source, fn);
    if (r == ARBOR_OK) r = lookup_walk(s, &w, time, &m, fn);
    if (r == ARBOR_OK) store_frame(out, &m);
    return r;
}

arbor_result arbor_scene_lookup_between(arbor_scene *s, arbor_node target, double target_time, arbor_node source,
                                        double source_time, arbor_node fixed, arbor_real out[16]) {
    static const char fn[] = "arbor_scene_lookup_between";
    ARBOR__REQUIRE_OUT(out, fn);
    walk w;
    path check;
    frame a, b;
    arbor_result r = find_path(s, target, fixed, &check, fn); /* both paths found before any lookup */
    if (r == ARBOR_OK) r = walk_init(s, &w, fixed, source, fn);
    if (r == ARBOR_OK) r = lookup_walk(s, &w, source_time, &a, fn);
    if (r == ARBOR_OK) r = walk_init(s, &w, target, fixed, fn);
    if (r == ARBOR_OK) r = lookup_walk(s, &w, target_time, &b, fn);
    if (r != ARBOR_OK) return r;
    affine am = frame_matrix(&a), m = frame_matrix(&b);
    mul_onto(&m, &am);
    store(out, &m);
    return ARBOR_OK;
}

/* The refusal of one element of a call on many: the message of its lookup, after "array[i]: ". */
static arbor_result refuse_index(arbor_result r, const char *fn, const char *array, uint32_t i) {
    char why[512];
    snprintf(why, sizeof why, "%s", arbor_last_error() + strlen(fn) + 2);
    return arbor__fail(r, fn, "%s[%u]: %s", array, (unsigned)i, why);
}

arbor_result arbor_scene_lookup_many(arbor_scene *s, arbor_node target, arbor_node source, const double *times, uint32_t count,
                                     arbor_real *out) {
    static const char fn[] = "arbor_scene_lookup_many";
    ARBOR__REQUIRE_OUT(out, fn);
    ARBOR__REQUIRE_OUT(times, fn);
    walk w;
    arbor_result r = walk_init(s, &w, target, source, fn);
    if (r != ARBOR_OK) return r;
    /* A refusal writes nothing: the earliest and latest times are looked up first (a path whose
       samples cover both covers every time between), and only when one is refused are the times
       looked up one by one for the first refused index. The walk keeps each node's span between
       times: sorted times read each span once. */
    double lo = INFINITY, hi = -INFINITY;
    bool latest = false;
    for (uint32_t i = 0; i < count; i++) {
        latest |= times[i] == ARBOR_TIME_LATEST;
        if (times[i] < lo && times[i] != ARBOR_TIME_LATEST) lo = times[i];
        if (times[i] > hi || !(times[i] == times[i])) hi = times[i];
    }
    frame m;
    bool covered = (lo > hi || (lookup_walk(s, &w, lo, &m, fn) == ARBOR_OK && lookup_walk(s, &w, hi, &m, fn) == ARBOR_OK)) &&
                   (!latest || lookup_walk(s, &w, ARBOR_TIME_LATEST, &m, fn) == ARBOR_OK);
    for (uint32_t i = 0; !covered && i < count; i++)
        if ((r = lookup_walk(s, &w, times[i], &m, fn)) != ARBOR_OK) return refuse_index(r, fn, "times", i);
    for (uint32_t i = 0; i < count; i++) {
        if ((r = lookup_walk(s, &w, times[i], &m, fn)) != ARBOR_OK) return refuse_index(r, fn, "times", i); /* pruned meanwhile */
        store_frame(out + (size_t)i * 16, &m);
    }
    return ARBOR_OK;
}

/* The world matrices at one time of nodes given parents first: the chain from the root to the
   last node, its links and products kept, so that a node shares what it has of that chain
   (each node of a subtree given whole, depth first, is read and composed once). */
typedef struct stack {
    uint32_t count;
    link l[PATH_CAP];
    frame world[PATH_CAP];
} stack;

/* slot's world at time into *out (NULL: only checked) through the stack; false when slot lies
   deeper than PATH_CAP (the caller's lookup then, as chain_at does). */
static bool stack_world(const arbor_scene *s, stack *k, uint32_t slot, double time, frame *out, arbor_result *r, const char *fn) {
    uint32_t up[PATH_CAP], n = 0; /* slot and its ancestors, the root last */
    for (uint32_t a = slot; a; a = s->n.parent[a]) {
        if (n == PATH_CAP) return false;
        up[n++] = a;
    }
    uint32_t same = 0; /* the depths the stack holds of this chain */
    while (same < k->count && same < n && k->l[same].slot == up[n - 1 - same] && k->l[same].e == entry_of(s, up[n - 1 - same]))
        same++;
    k->count = same;
    for (uint32_t d = same; d < n; d++) {
        link *l = &k->l[d];
        link_init(s, l, up[n - 1 - d]);
        if (out) k->world[d] = d ? k->world[d - 1] : frame_identity;
        if ((*r = link_at(s, l, time, out ? &k->world[d] : NULL, fn)) != ARBOR_OK) return true;
        k->count = d + 1;
    }
    if (out) *out = k->world[n - 1];
    *r = ARBOR_OK;
    return true;
}

arbor_result arbor_scene_world_matrices_at(arbor_scene *s, const arbor_node *nodes, uint32_t count, double time, arbor_real *out) {
    static const char fn[] = "arbor_scene_world_matrices_at";
    ARBOR__REQUIRE_OUT(out, fn);
    ARBOR__REQUIRE_OUT(nodes, fn);
    if (!good_time(time, fn)) return ARBOR_ERR_INVALID_ARGUMENT;
    for (int pass = 0; pass < 2; pass++) { /* the first checks: a refusal writes nothing */
        stack k;
        k.count = 0;
        for (uint32_t i = 0; i < count; i++) {
            walk w;
            frame m;
            arbor_result r = find_path(s, ARBOR_NONE, nodes[i], &w.p, fn);
            if (r == ARBOR_OK && (time == ARBOR_TIME_LATEST || !stack_world(s, &k, w.p.source, time, pass ? &m : NULL, &r, fn))) {
                chain_init(s, &w.source, w.p.source, 0); /* each node at its own latest, or deep */
                chain_init(s, &w.target, 0, 0);
                r = lookup_walk(s, &w, time, &m, fn);
            }
            if (r != ARBOR_OK) return refuse_index(r, fn, "nodes", i);
            if (pass) store_frame(out + (size_t)i * 16, &m);
        }
    }
    return ARBOR_OK;
}

arbor_result arbor_scene_set_time_hold(arbor_scene *s, double tolerance) {
    static const char fn[] = "arbor_scene_set_time_hold";
    ARBOR__REQUIRE_OUT(s, fn);
    if (!(tolerance >= 0) || !isfinite(tolerance))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "tolerance %g is not a finite number of seconds >= 0", tolerance);
    if (!table_reserve(s)) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the table of samples");
    s->history->hold = tolerance;
    s->history->firsts = s->history->rings; /* the scene to itself: a sweep */
    reclaim(s);
    return ARBOR_OK;
}

double arbor_scene_time_hold(const arbor_scene *s) { return s && s->history ? s->history->hold : 0; }

arbor_result arbor_node_history_range(const arbor_scene *s, arbor_node n, double *first, double *last) {
    static const char fn[] = "arbor_node_history_range";
    ARBOR__REQUIRE_OUT(first, fn);
    ARBOR__REQUIRE_OUT(last, fn);
    arbor_result r = ARBOR_OK;
    uint32_t slot = reader_slot(s, n);
    if (!slot) return arbor__require_failed(s, n, fn, &r), r;
    const node_history *e = entry_of(s, slot);
    span sp;
    seen v = { -INFINITY, INFINITY, 0 };
    if (e && read_span(e, LOAD(e->parent), INFINITY, 0, &sp, &v) == AT_OUTSIDE) v.first = v.last = NAN; /* holds none */
    *first = v.first;
    *last = v.last;
    return ARBOR_OK;
}
