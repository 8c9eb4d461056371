/* SPDX-License-Identifier: MIT */
/*
 * The journal: undo and redo.
 *
 * Every record is an exchange: it holds the state its edit replaced, and applying it swaps that
 * with what the scene holds now. Undo applies a step's records newest first, redo oldest first,
 * and the same record serves both ways. Kinds:
 *   LOCAL   a node's local transform (TRS, matrix, lock)
 *   NAME    a node's name (the record owns the string the node does not hold)
 *   ATTACH  what a node carries (user, mesh, bounds, camera, light)
 *   PLACE   a node's parent and next sibling (a reparent, with KEEP_LOCAL both ways; a
 *           keep-world reparent adds a LOCAL record)
 *   LIFE    a subtree alive or held: a destruction holds it (scene.c keeps its ids,
 *           generations, slots, links and contents), undo revives it in place; a creation or a clone
 *           is the same record the other way round
 * The memory a step needs is reserved before its first record is applied. A step that fails half
 * way (a bypassing write broke it) is rolled back by applying the records it had applied again,
 * in the opposite order.
 *
 * Records live in one array; steps[i] is the index of step i's first record. Steps
 * [first_step, done) can be undone, [done, step_count) redone; an open group's records follow
 * the last step's. Dropping the oldest step only moves first_step and first_record on: the
 * arrays are compacted once half of them is dropped, so a drop costs O(1) amortised.
 */
#include <string.h>

#include "edit/edit_internal.h"

enum { LOCAL, NAME, ATTACH, PLACE, LIFE, INSTANCES, INSTANCE };

typedef struct local_state {
    arbor_real trs[ARBOR__TRS];
    arbor_real matrix[12];    /* with kept: the kept matrix (arbor__kept_matrix) */
    uint8_t flags;            /* ARBOR__MATRIX | ARBOR__LOCKED */
    bool kept;
} local_state;

typedef struct record {
    uint8_t kind;
    bool held;                /* LIFE: the subtree is held (dead) now */
    arbor_node node;
    union {
        local_state local;
        char *name;           /* NAME: the other name (NULL: none) */
        arbor__attachment attach;
        uint32_t instances;   /* INSTANCES: the other instance set (0: none), owned by the record */
        struct {
            uint32_t index;   /* INSTANCE: which instance */
            arbor_real trs[ARBOR__TRS];
        } instance;
        struct {
            arbor_node parent, before;  /* where it goes back: parent (NONE: a root), next sibling */
            uint32_t count;             /* LIFE: nodes in the subtree while held */
        } place;
    } u;
} record;

struct arbor_journal {
    arbor__dependent dep;     /* of its scene (first: the detach finds the journal) */
    arbor_scene *s;           /* NULL once the scene is destroyed */
    uint32_t max_steps;
    size_t max_bytes;
    record *records;
    uint32_t first_record, record_count, record_cap;
    uint32_t *steps;          /* first record of each step */
    uint32_t first_step, step_count, step_cap, done;
    bool open;                /* a group is open: its records start at open_first */
    uint32_t open_first;
    uint32_t held;            /* nodes held by LIFE records */
    size_t name_bytes;        /* strings owned by NAME records */
    size_t instance_bytes;    /* instance sets owned by INSTANCES records */
    uint64_t dropped;
};

static size_t name_size(const char *name) { return name ? strlen(name) + 1 : 0; }

/* ---- applying a record ----------------------------------------------------------------------- */

static void capture_local(const arbor_scene *s, uint32_t slot, local_state *out) {
    memcpy(out->trs, s->n.trs + (size_t)slot * ARBOR__TRS, sizeof out->trs);
    const arbor_real *m = arbor__kept_matrix(s, slot);
    out->kept = m != NULL;
    if (m) memcpy(out->matrix, m, sizeof out->matrix);
    out->flags = s->n.flags[slot] & (ARBOR__MATRIX | ARBOR__LOCKED);
}

/* False when out of memory for the kept matrix (nothing changed). */
static bool restore_local(arbor_scene *s, uint32_t slot, const local_state *in) {
    if (!arbor__keep_matrix(s, slot, in->kept ? in->matrix : NULL)) return false;
    uint8_t flags = s->n.flags[slot] & (uint8_t)~(ARBOR__MATRIX | ARBOR__LOCKED);
    memcpy(s->n.trs + (size_t)slot * ARBOR__TRS, in->trs, sizeof in->trs);
    s->n.flags[slot] = (uint8_t)(flags | in->flags);
    arbor__invalidate(s, slot);
    return true;
}

/* Brings back the subtree a LIFE record holds, where it was, after checking that it can go
   there. */
static arbor_result revive(arbor_scene *s, const record *rec, const char *fn) {
    uint32_t top = arbor__slot(s, rec->node), count = rec->u.place.count, p = 0, b = 0, height = 0, seen = 0;
    arbor_node parent = rec->u.place.parent, before = rec->u.place.before;
    if (parent.id && !(p = arbor__live_slot(s, parent)))
        return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "the parent node " ARBOR__NODE_FMT
                           " goes back under was destroyed outside the journal", ARBOR__NODE_ARGS(s, top));
    if (before.id && (!(b = arbor__live_slot(s, before)) || s->n.parent[b] != p))
        return arbor__fail(b ? ARBOR_ERR_NOT_A_CHILD : ARBOR_ERR_DEAD_NODE, fn,
                           "the sibling node " ARBOR__NODE_FMT " goes back before was %s outside the journal%s%s",
                           ARBOR__NODE_ARGS(s, top), b ? "moved" : "destroyed", b ? ": it is now " : "",
                           b ? ARBOR__NODE_ARGS(s, b) : "");
    for (uint32_t n = top; n && seen < count; n = arbor__next_in_subtree(s, top, n, true), seen++)
        if (s->n.depth[n] - s->n.depth[top] > height) height = s->n.depth[n] - s->n.depth[top];
    if ((p ? (uint64_t)s->n.depth[p] + 1 : 0) + height > s->max_depth)
        return arbor__fail(ARBOR_ERR_DEPTH_LIMIT, fn, "node " ARBOR__NODE_FMT " would go back beyond max_depth %u",
                           ARBOR__NODE_ARGS(s, top), s->max_depth);
    arbor__revive_subtree(s, top, count, p, b);
    return ARBOR_OK;
}

/* The handle of slot's next sibling. */
static arbor_node next_of(const arbor_scene *s, uint32_t slot) { return arbor__handle(s, s->n.next_sibling[slot]); }

/* Swaps the record's state with the scene's. */
static arbor_result apply(arbor_journal *j, record *rec, const char *fn) {
    arbor_scene *s = j->s;
    arbor_result r = ARBOR_OK;
    uint32_t slot;
    if (rec->kind == LIFE && rec->held) {
        if ((r = revive(s, rec, fn))) return r;
        j->held -= rec->u.place.count;
        rec->held = false;
        return ARBOR_OK;
    }
    if (!(slot = arbor__live_slot(s, rec->node)))
        return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "a node the step edits was destroyed outside the journal");
    switch (rec->kind) {
    case LOCAL: {
        local_state now;
        capture_local(s, slot, &now);
        if (!restore_local(s, slot, &rec->u.local))
            return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the local matrix of node " ARBOR__NODE_FMT,
                               ARBOR__NODE_ARGS(s, slot));
        rec->u.local = now;
        break;
    }
    case NAME: {
        char *now = s->n.name[slot];
        j->name_bytes += name_size(now) - name_size(rec->u.name);
        s->n.name[slot] = rec->u.name;
        rec->u.name = now;
        break;
    }
    case ATTACH:
        if (!arbor__attachment_swap(s, slot, &rec->u.attach))
            return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the attachments of node " ARBOR__NODE_FMT,
                               ARBOR__NODE_ARGS(s, slot));
        break;
    case PLACE: {
        arbor_node parent = arbor__handle(s, s->n.parent[slot]), before = next_of(s, slot);
        if ((r = arbor_node_set_parent(s, rec->node, rec->u.place.parent, rec->u.place.before, ARBOR_KEEP_LOCAL))) return r;
        rec->u.place.parent = parent;
        rec->u.place.before = before;
        break;
    }
    case INSTANCES: {
        size_t before = arbor__instances_bytes(s, rec->u.instances);
        if (!arbor__instances_swap(s, slot, &rec->u.instances))
            return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the attachments of node " ARBOR__NODE_FMT,
                               ARBOR__NODE_ARGS(s, slot));
        j->instance_bytes += arbor__instances_bytes(s, rec->u.instances) - before;
        break;
    }
    case INSTANCE: {
        arbor__instance_set *set = arbor__instances_of(s, slot);
        uint32_t i = rec->u.instance.index;
        if (!set || i >= set->count)
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "node " ARBOR__NODE_FMT " no longer has instance %u",
                               ARBOR__NODE_ARGS(s, slot), i);
        arbor_trs back;
        const arbor_real *v = rec->u.instance.trs;
        memcpy(back.translation, v + ARBOR__T, sizeof back.translation);
        memcpy(back.rotation, v + ARBOR__R, sizeof back.rotation);
        memcpy(back.scale, v + ARBOR__S, sizeof back.scale);
        memcpy(rec->u.instance.trs, set->trs + (size_t)i * ARBOR__TRS, sizeof rec->u.instance.trs);
        arbor_node_set_instance(s, rec->node, i, &back); /* checked when recorded: cannot fail */
        break;
    }
    case LIFE:
        rec->u.place.parent = arbor__handle(s, s->n.parent[slot]);
        rec->u.place.before = next_of(s, slot);
        rec->u.place.count = arbor__hold_subtree(s, slot);
        j->held += rec->u.place.count;
        rec->held = true;
        break;
    }
    return ARBOR_OK;
}

/* Whether applying the record gives its node something kept in an attachment record (what it
   carries, an instance set, a kept matrix): then the node may need a record. */
static bool brings_attachment(const record *rec) {
    const arbor__attachment *a = &rec->u.attach;
    return rec->kind == ATTACH ? a->mesh >= 0 || (a->has & ~(uint32_t)ARBOR__HAS_MATRIX) || a->user
           : rec->kind == INSTANCES ? rec->u.instances != 0
                                    : rec->kind == LOCAL && rec->u.local.kept;
}

/* Applies records [first, end) newest first (backwards) or oldest first; all or nothing. The
   only memory a record may need is an attachment record: one for each record that brings
   something is reserved first, so a refusal for memory comes before anything changed. A record refused later (a bypassing write broke the step) has the
   records before it applied again, which puts their state back. */
static arbor_result apply_range(arbor_journal *j, uint32_t first, uint32_t end, bool backwards, const char *fn) {
    uint32_t count = end - first, records = 0;
    for (uint32_t i = first; i < end; i++) records += brings_attachment(&j->records[i]);
    if (records && !arbor__attachment_reserve(j->s, records))
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the %u attachment records the step may put back",
                           records);
    for (uint32_t k = 0; k < count; k++) {
        arbor_result r = apply(j, &j->records[backwards ? end - 1 - k : first + k], fn);
        if (!r) continue;
        while (k--) apply(j, &j->records[backwards ? end - 1 - k : first + k], fn); /* back as it was */
        return r;
    }
    return ARBOR_OK;
}

/* ---- forgetting records ------------------------------------------------------------------------- */

/* Frees what records [first, end) own: held subtrees are retired for good. */
static void forget(arbor_journal *j, uint32_t first, uint32_t end) {
    for (uint32_t i = first; i < end; i++) {
        record *rec = &j->records[i];
        if (rec->kind == NAME && rec->u.name) {
            j->name_bytes -= name_size(rec->u.name);
            arbor__free(j->s, rec->u.name, name_size(rec->u.name));
        } else if (rec->kind == INSTANCES && rec->u.instances) {
            j->instance_bytes -= arbor__instances_bytes(j->s, rec->u.instances);
            arbor__instances_release(j->s, rec->u.instances);
        } else if (rec->kind == LIFE && rec->held) {
            arbor__release_held(j->s, arbor__slot(j->s, rec->node), rec->u.place.count);
            j->held -= rec->u.place.count;
        }
    }
}

static uint32_t step_end(const arbor_journal *j, uint32_t step) {
    return step + 1 < j->step_count ? j->steps[step + 1] : j->open ? j->open_first : j->record_count;
}

/* Drops the redo history. */
static void drop_redo(arbor_journal *j) {
    if (j->done == j->step_count) return;
    uint32_t first = j->steps[j->done], end = step_end(j, j->step_count - 1);
    forget(j, first, end);
    memmove(j->records + first, j->records + end, (j->record_count - end) * sizeof *j->records);
    j->record_count -= end - first;
    if (j->open) j->open_first -= end - first;
    j->step_count = j->done;
}

/* Moves what is kept to the front of both arrays. */
static void compact(arbor_journal *j) {
    uint32_t r = j->first_record, k = j->first_step;
    memmove(j->records, j->records + r, (j->record_count - r) * sizeof *j->records);
    for (uint32_t i = k; i < j->step_count; i++) j->steps[i - k] = j->steps[i] - r;
    j->record_count -= r;
    if (j->open) j->open_first -= r;
    j->step_count -= k;
    j->done -= k;
    j->first_record = j->first_step = 0;
}

static void drop_oldest(arbor_journal *j) {
    uint32_t end = step_end(j, j->first_step);
    forget(j, j->first_record, end);
    j->first_record = end;
    j->first_step++;
    j->dropped++;
    if (2 * j->first_step >= j->step_count) compact(j);
}

/* What the steps hold: their records, names and held nodes (spare capacity not counted, so
   dropping steps brings it down). */
static size_t bytes(const arbor_journal *j) {
    return (size_t)(j->record_count - j->first_record) * sizeof *j->records +
           (size_t)(j->step_count - j->first_step) * sizeof *j->steps + j->name_bytes + j->instance_bytes +
           (size_t)j->held * arbor__slot_bytes();
}

/* Keeps the limits, oldest steps first, never the newest one. */
static void trim(arbor_journal *j) {
    while (j->step_count - j->first_step > 1 && j->done > j->first_step &&
           (j->step_count - j->first_step > j->max_steps || bytes(j) > j->max_bytes))
        drop_oldest(j);
}

/* ---- recording ------------------------------------------------------------------------------ */

/* Room for `extra` more records and a step; false (with the failure recorded) when out of memory. */
static bool reserve(arbor_journal *j, uint32_t extra, const char *fn) {
    arbor_scene *s = j->s;
    if (j->first_step && (j->step_count + 1 > j->step_cap || j->record_count + extra > j->record_cap)) compact(j);
    if (j->record_count + extra > j->record_cap) {
        uint32_t cap = j->record_cap ? j->record_cap * 2 : 64;
        record *grown = arbor__realloc(s, j->records, (size_t)j->record_cap * sizeof *grown, (size_t)cap * sizeof *grown);
        if (!grown) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the journal"), false;
        j->records = grown;
        j->record_cap = cap;
    }
    if (j->step_count + 1 > j->step_cap) {
        uint32_t cap = j->step_cap ? j->step_cap * 2 : 16;
        uint32_t *grown = arbor__realloc(s, j->steps, (size_t)j->step_cap * sizeof *grown, (size_t)cap * sizeof *grown);
        if (!grown) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the journal"), false;
        j->steps = grown;
        j->step_cap = cap;
    }
    return true;
}

/* An edit succeeded: its records (made by the caller in rec[0 .. n)) join the open group or make
   a step of their own. When the open group's last record is of the same kind for the same node
   (a gizmo dragged), it holds the state before both writes: the new one is not needed. */
static void record_edit(arbor_journal *j, const record *rec, uint32_t n) {
    if (!j->open) drop_redo(j); /* a group drops it when committed: abort keeps it */
    uint32_t first = j->open ? j->open_first : j->record_count;
    for (uint32_t i = 0; i < n; i++) {
        const record *last = j->record_count > first ? &j->records[j->record_count - 1] : NULL;
        bool same = last && last->kind == rec[i].kind && last->node.id == rec[i].node.id;
        if (same && (rec[i].kind <= ATTACH || rec[i].kind == INSTANCES ||
                     (rec[i].kind == INSTANCE && last->u.instance.index == rec[i].u.instance.index))) {
            if (rec[i].kind == NAME && rec[i].u.name) arbor__free(j->s, rec[i].u.name, name_size(rec[i].u.name));
            if (rec[i].kind == INSTANCES && rec[i].u.instances) arbor__instances_release(j->s, rec[i].u.instances);
            continue;
        }
        j->records[j->record_count++] = rec[i];
        if (rec[i].kind == NAME) j->name_bytes += name_size(rec[i].u.name);
        if (rec[i].kind == INSTANCES) j->instance_bytes += arbor__instances_bytes(j->s, rec[i].u.instances);
    }
    if (!j->open && j->record_count > first) {
        j->steps[j->step_count++] = first;
        j->done = j->step_count;
        trim(j);
    }
}

/* The checks every edit starts with: the slot of n (0 with *r set). */
static uint32_t begin_edit(arbor_journal *j, arbor_node n, uint32_t records, const char *fn, arbor_result *r) {
    if (!j || !j->s) {
        *r = j ? arbor__inert(fn) : arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "no journal was given");
        return 0;
    }
    uint32_t slot = arbor__require(j->s, n, fn, r);
    if (slot && !reserve(j, records, fn)) {
        *r = ARBOR_ERR_OUT_OF_MEMORY;
        return 0;
    }
    return slot;
}

/* A write to one node's local transform, name or attachments: the record of what it held, then
   the write, recorded when it succeeded. */
#define NODE_EDIT(j, n, KIND, capture, call, fn)                       \
    do {                                                               \
        arbor_result r_ = ARBOR_OK;                                    \
        uint32_t slot_ = begin_edit((j), (n), 1, (fn), &r_);           \
        if (!slot_) return r_;                                         \
        record rec_ = { .kind = (KIND), .node = (n) };                 \
        capture;                                                       \
        if ((r_ = (call))) return r_;                                  \
        record_edit((j), &rec_, 1);                                    \
        return ARBOR_OK;                                               \
    } while (0)

#define LOCAL_EDIT(j, n, call, fn) NODE_EDIT(j, n, LOCAL, capture_local((j)->s, slot_, &rec_.u.local), call, fn)
#define ATTACH_EDIT(j, n, call, fn) NODE_EDIT(j, n, ATTACH, attachment_state((j)->s, slot_, &rec_.u.attach), call, fn)

static void attachment_state(const arbor_scene *s, uint32_t slot, arbor__attachment *out) {
    const arbor__attachment *a = arbor__attachment_of(s, slot);
    *out = a ? *a : (arbor__attachment){ .mesh = -1 };
    out->foreign = out->instances = out->next_free = 0;
}

arbor_result arbor_journal_set_translation(arbor_journal *j, arbor_node n, arbor_real x, arbor_real y, arbor_real z) {
    LOCAL_EDIT(j, n, arbor_node_set_translation(j->s, n, x, y, z), "arbor_journal_set_translation");
}
arbor_result arbor_journal_set_rotation(arbor_journal *j, arbor_node n, arbor_real x, arbor_real y, arbor_real z, arbor_real w) {
    LOCAL_EDIT(j, n, arbor_node_set_rotation(j->s, n, x, y, z, w), "arbor_journal_set_rotation");
}
arbor_result arbor_journal_set_scale(arbor_journal *j, arbor_node n, arbor_real x, arbor_real y, arbor_real z) {
    LOCAL_EDIT(j, n, arbor_node_set_scale(j->s, n, x, y, z), "arbor_journal_set_scale");
}
arbor_result arbor_journal_set_trs(arbor_journal *j, arbor_node n, const arbor_trs *trs) {
    LOCAL_EDIT(j, n, arbor_node_set_trs(j->s, n, trs), "arbor_journal_set_trs");
}
arbor_result arbor_journal_set_local_matrix(arbor_journal *j, arbor_node n, const arbor_real m[16], bool lock) {
    LOCAL_EDIT(j, n, arbor_node_set_local_matrix(j->s, n, m, lock), "arbor_journal_set_local_matrix");
}
arbor_result arbor_journal_set_user(arbor_journal *j, arbor_node n, void *user) {
    ATTACH_EDIT(j, n, arbor_node_set_user(j->s, n, user), "arbor_journal_set_user");
}
arbor_result arbor_journal_set_mesh(arbor_journal *j, arbor_node n, int32_t mesh) {
    ATTACH_EDIT(j, n, arbor_node_set_mesh(j->s, n, mesh), "arbor_journal_set_mesh");
}
arbor_result arbor_journal_set_bounds(arbor_journal *j, arbor_node n, const arbor_real min[3], const arbor_real max[3]) {
    ATTACH_EDIT(j, n, arbor_node_set_bounds(j->s, n, min, max), "arbor_journal_set_bounds");
}
arbor_result arbor_journal_set_camera(arbor_journal *j, arbor_node n, const arbor_camera *camera) {
    ATTACH_EDIT(j, n, arbor_node_set_camera(j->s, n, camera), "arbor_journal_set_camera");
}
arbor_result arbor_journal_set_light(arbor_journal *j, arbor_node n, const arbor_light *light) {
    ATTACH_EDIT(j, n, arbor_node_set_light(j->s, n, light), "arbor_journal_set_light");
}

arbor_result arbor_journal_set_visible(arbor_journal *j, arbor_node n, bool visible) {
    ATTACH_EDIT(j, n, arbor_node_set_visible(j->s, n, visible), "arbor_journal_set_visible");
}

arbor_result arbor_journal_set_instances(arbor_journal *j, arbor_node n, const arbor_trs *instances, uint32_t count) {
    static const char *const fn = "arbor_journal_set_instances";
    arbor_result r = ARBOR_OK;
    uint32_t slot = begin_edit(j, n, 1, fn, &r);
    if (!slot) return r;
    if (count && !instances) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "instances is NULL for %u instances", count);
    record rec = { .kind = INSTANCES, .node = n };
    if ((r = arbor__instances_make(j->s, instances, count, &rec.u.instances, fn))) return r;
    if (!arbor__instances_swap(j->s, slot, &rec.u.instances)) { /* the new set in, the old one kept */
        arbor__instances_release(j->s, rec.u.instances);
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the attachment");
    }
    record_edit(j, &rec, 1);
    return ARBOR_OK;
}

arbor_result arbor_journal_set_instance(arbor_journal *j, arbor_node n, uint32_t i, const arbor_trs *trs) {
    static const char *const fn = "arbor_journal_set_instance";
    arbor_result r = ARBOR_OK;
    uint32_t slot = begin_edit(j, n, 1, fn, &r);
    if (!slot) return r;
    const arbor__instance_set *set = arbor__instances_of(j->s, slot);
    record rec = { .kind = INSTANCE, .node = n, .u.instance.index = i };
    if (set && i < set->count) memcpy(rec.u.instance.trs, set->trs + (size_t)i * ARBOR__TRS, sizeof rec.u.instance.trs);
    if ((r = arbor_node_set_instance(j->s, n, i, trs))) return r;
    record_edit(j, &rec, 1);
    return ARBOR_OK;
}

arbor_result arbor_journal_set_name(arbor_journal *j, arbor_node n, const char *name) {
    static const char *const fn = "arbor_journal_set_name";
    arbor_result r = ARBOR_OK;
    uint32_t slot = begin_edit(j, n, 1, fn, &r);
    if (!slot) return r;
    record rec = { .kind = NAME, .node = n };
    size_t size = name_size(name);
    if (size && !(rec.u.name = arbor__alloc(j->s, size))) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the name");
    if (size) memcpy(rec.u.name, name, size);
    /* The new name goes in, the old one into the record. */
    char *old = j->s->n.name[slot];
    j->s->n.name[slot] = rec.u.name;
    rec.u.name = old;
    record_edit(j, &rec, 1);
    return ARBOR_OK;
}

arbor_result arbor_journal_set_parent(arbor_journal *j, arbor_node child, arbor_node parent, arbor_node before,
                                      arbor_reparent mode) {
    static const char *const fn = "arbor_journal_set_parent";
    arbor_result r = ARBOR_OK;
    uint32_t slot = begin_edit(j, child, 2, fn, &r);
    if (!slot) return r;
    record rec[2] = { { .kind = PLACE, .node = child }, { .kind = LOCAL, .node = child } };
    rec[0].u.place.parent = arbor__handle(j->s, j->s->n.parent[slot]);
    rec[0].u.place.before = next_of(j->s, slot);
    capture_local(j->s, slot, &rec[1].u.local);
    if ((r = arbor_node_set_parent(j->s, child, parent, before, mode))) return r;
    record_edit(j, rec, mode == ARBOR_KEEP_WORLD ? 2 : 1);
    return ARBOR_OK;
}

/* A subtree made (created or cloned): a LIFE record whose undo holds it. */
static arbor_result record_made(arbor_journal *j, arbor_node made) {
    record rec = { .kind = LIFE, .node = made };
    record_edit(j, &rec, 1);
    return ARBOR_OK;
}

/* The journal is there and has room for one record. */
static arbor_result ready(arbor_journal *j, const char *fn) {
    if (!j) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "no journal was given");
    if (!j->s) return arbor__inert(fn);
    return reserve(j, 1, fn) ? ARBOR_OK : ARBOR_ERR_OUT_OF_MEMORY;
}

arbor_result arbor_journal_create_node(arbor_journal *j, const arbor_node_desc *desc, arbor_node *out) {
    arbor_result r = ready(j, "arbor_journal_create_node");
    if (!r) r = arbor_node_create(j->s, desc, out);
    return r ? r : record_made(j, *out);
}

arbor_result arbor_journal_clone(arbor_journal *j, const arbor_scene *src, arbor_node root, arbor_node parent,
                                 arbor_node *out) {
    arbor_result r = ready(j, "arbor_journal_clone");
    if (!r) r = arbor_node_clone_from(j->s, src, root, parent, out);
    return r ? r : record_made(j, *out);
}

arbor_result arbor_journal_destroy_node(arbor_journal *j, arbor_node root) {
    static const char *const fn = "arbor_journal_destroy_node";
    arbor_result r = ARBOR_OK;
    if (!begin_edit(j, root, 1, fn, &r)) return r;
    record rec = { .kind = LIFE, .node = root };
    apply(j, &rec, fn); /* alive: holding it cannot fail */
    record_edit(j, &rec, 1);
    return ARBOR_OK;
}

/* ---- steps --------------------------------------------------------------------------------- */

static arbor_result check_closed(const arbor_journal *j, const char *fn) {
    if (!j) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "no journal was given");
    if (!j->s) return arbor__inert(fn);
    if (j->open) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "a group is open (commit or abort it first)");
    return ARBOR_OK;
}

arbor_result arbor_journal_begin(arbor_journal *j) {
    arbor_result r = check_closed(j, "arbor_journal_begin");
    if (r) return r;
    j->open = true;
    j->open_first = j->record_count;
    return ARBOR_OK;
}

arbor_result arbor_journal_commit(arbor_journal *j) {
    if (j && !j->s) return arbor__inert("arbor_journal_commit");
    if (!j || !j->open) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, "arbor_journal_commit", "no group is open");
    if (j->record_count > j->open_first) { /* the room for this step was reserved with its first record */
        drop_redo(j);
        j->open = false;
        j->steps[j->step_count++] = j->open_first;
        j->done = j->step_count;
        trim(j);
    }
    j->open = false;
    return ARBOR_OK;
}

arbor_result arbor_journal_abort(arbor_journal *j) {
    static const char *const fn = "arbor_journal_abort";
    if (j && !j->s) return arbor__inert(fn);
    if (!j || !j->open) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "no group is open");
    arbor_result r = apply_range(j, j->open_first, j->record_count, true, fn);
    if (r) return r;
    forget(j, j->open_first, j->record_count);
    j->record_count = j->open_first;
    j->open = false;
    return ARBOR_OK;
}

arbor_result arbor_journal_undo(arbor_journal *j) {
    static const char *const fn = "arbor_journal_undo";
    arbor_result r = check_closed(j, fn);
    if (r) return r;
    if (j->done == j->first_step) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "nothing to undo");
    if ((r = apply_range(j, j->steps[j->done - 1], step_end(j, j->done - 1), true, fn))) return r;
    j->done--;
    return ARBOR_OK;
}

arbor_result arbor_journal_redo(arbor_journal *j) {
    static const char *const fn = "arbor_journal_redo";
    arbor_result r = check_closed(j, fn);
    if (r) return r;
    if (j->done == j->step_count) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "nothing to redo");
    if ((r = apply_range(j, j->steps[j->done], step_end(j, j->done), false, fn))) return r;
    j->done++;
    return ARBOR_OK;
}

void arbor_journal_clear(arbor_journal *j) {
    if (!j || !j->s) return; /* an inert journal holds nothing */
    forget(j, j->first_record, j->record_count);
    j->first_record = j->record_count = j->first_step = j->step_count = j->done = 0;
    j->open = false;
}

/* ---- the journal itself ---------------------------------------------------------------------- */

static void detach(arbor__dependent *d);

arbor_result arbor_journal_create(arbor_scene *s, const arbor_journal_desc *desc, arbor_journal **out) {
    static const char *const fn = "arbor_journal_create";
    if (!s || !out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "scene and out are required");
    if (s->journal) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the scene has a journal already");
    arbor_journal *j = arbor__alloc(s, sizeof *j);
    if (!j) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the journal");
    *j = (arbor_journal){
        .s = s,
        .max_steps = desc && desc->max_steps ? desc->max_steps : ARBOR_JOURNAL_DEFAULT_STEPS,
        .max_bytes = desc && desc->max_bytes ? desc->max_bytes : ARBOR_JOURNAL_DEFAULT_BYTES,
    };
    s->journal = *out = j;
    s->hooks.held_count = arbor__journal_held;
    s->hooks.held_number = arbor__journal_number_held;
    arbor__dependent_join(s, &j->dep, detach);
    return ARBOR_OK;
}

/* Drops every step (the held nodes go back to the scene, retired) and what the journal keeps,
   and leaves the scene: the journal is inert, its struct alone left. */
static void detach(arbor__dependent *d) {
    arbor_journal *j = (arbor_journal *)d;
    arbor_scene *s = j->s;
    arbor_journal_clear(j);
    arbor__free(s, j->records, (size_t)j->record_cap * sizeof *j->records);
    arbor__free(s, j->steps, (size_t)j->step_cap * sizeof *j->steps);
    j->records = NULL;
    j->steps = NULL;
    j->record_cap = j->step_cap = 0;
    s->journal = NULL;
    s->hooks.held_count = NULL;
    s->hooks.held_number = NULL;
    j->s = NULL;
}

void arbor_journal_destroy(arbor_journal *j) {
    if (!j) return;
    if (j->s) {
        arbor__dependent_leave(&j->dep);
        detach(&j->dep);
    }
    const arbor_allocator a = j->dep.allocator;
    arbor__free_with(&a, j, sizeof *j);
}

uint32_t arbor__journal_held(const arbor_scene *s) { return s->journal ? s->journal->held : 0; }

uint32_t arbor__journal_number_held(const arbor_scene *s, uint32_t *new_slot, uint32_t k, uint32_t end) {
    const arbor_journal *j = s->journal;
    for (uint32_t i = j ? j->first_record : 0; j && i < j->record_count; i++) {
        const record *rec = &j->records[i];
        if (rec->kind != LIFE || !rec->held) continue;
        uint32_t top = arbor__slot(s, rec->node);
        for (uint32_t n = top; n && k < end; n = arbor__next_in_subtree(s, top, n, true)) new_slot[n] = k++;
    }
    return k;
}

arbor_journal *arbor_scene_journal(const arbor_scene *s) { return s ? s->journal : NULL; }
arbor_scene *arbor_journal_scene(const arbor_journal *j) { return j ? j->s : NULL; }

void arbor_journal_stats_get(const arbor_journal *j, arbor_journal_stats *out) {
    if (!out) return;
    if (!j) {
        *out = (arbor_journal_stats){0};
        return;
    }
    *out = (arbor_journal_stats){
        .undo_steps = j->done - j->first_step,
        .redo_steps = j->step_count - j->done,
        .records = j->record_count - j->first_record,
        .held_nodes = j->held,
        .dropped_steps = j->dropped,
        .bytes = bytes(j),
    };
}
