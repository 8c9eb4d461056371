/* SPDX-License-Identifier: MIT */
/* Players: a clip bound to nodes, with its keyframe cursors. Every operation checks first (the
   nodes, the arguments), then samples (touching only the player), then writes with the bulk
   setters' write (arbor__write_many), which cannot fail by then: the nodes were checked, and a
   clip's values are finite and bounded by construction. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "anim/anim_internal.h"

enum { T = ARBOR_ANIM_TRANSLATION, R = ARBOR_ANIM_ROTATION, S = ARBOR_ANIM_SCALE, W = ARBOR_ANIM_WEIGHTS, PATHS = 4 };
#define TRS_BITS 7u /* animated[] bits of T, R and S */

/* The bound channels of one path. */
typedef struct lane {
    uint32_t count;
    uint32_t *channels;    /* clip channel indices */
    arbor_node *nodes;     /* T, R, S: the node each one writes */
    arbor_real *values;    /* T, R, S: count * lane_width, the last sample */
    uint32_t *weight_at;   /* W: where each one's values start in weights */
    uint32_t *offsets;     /* R: each one's values in the clip's */
    arbor__rotation_run *runs; /* R: the channels in runs that sample alike */
    uint32_t run_count;
} lane;

struct arbor_player {
    arbor__dependent dep;  /* of its scene (first: the detach finds the player) */
    const arbor_clip *clip;
    arbor_scene *s;        /* NULL once the scene is destroyed */
    size_t bytes;          /* the one allocation behind the player */
    uint32_t rig_size;
    arbor_node *rig;
    uint8_t *animated;     /* per rig entry: bit 1 << path for each path a bound channel drives */
    arbor_trs *rest;       /* per rig entry driven: its TRS when the player was made */
    arbor_trs *pose;       /* per rig entry: blend workspace */
    uint32_t *cursors;     /* per timeline */
    arbor__key *keys;      /* per timeline: where the time of the current sample falls */
    lane lanes[PATHS];
    uint32_t weight_total;
    arbor_real *weights;   /* weight_total values, then as many of workspace (additive layers) */
    arbor_node *scratch_nodes; /* blend's writes: scratch_cap nodes and 4 values each, made on */
    arbor_real *scratch_values; /* the first blend */
    uint32_t scratch_cap;
    uint64_t pose_serial;   /* the pose pose_entry maps to (arbor__pose_serial), 0: none */
    uint32_t *pose_entry;   /* per T, R and S channel, in lane order: its node's pose entry */
    uint32_t driven_count;  /* rig entries driven (T, R or S) ... */
    uint32_t *driven_slots; /* ... their slots, known when the scene's shape was driven_shape (a
                               destroy, a link or a renumbering changes it) */
    uint64_t driven_shape;
    bool slots_known;
};

static uint32_t trs_channels(const arbor_player *p) { return p->lanes[0].count + p->lanes[1].count + p->lanes[2].count; }

static uint32_t lane_width(int path) { return path == R ? 4 : 3; }

static void trs_part(arbor_trs *trs, int path, arbor_real **at) {
    *at = path == T ? trs->translation : path == R ? trs->rotation : trs->scale;
}

/* ---- lifetime -------------------------------------------------------------------------------- */

static void detach(arbor__dependent *d) { ((arbor_player *)d)->s = NULL; }

arbor_result arbor_player_create(const arbor_clip *clip, arbor_scene *s, const arbor_node *rig, uint32_t rig_count,
                                 arbor_player **out) {
    static const char *const fn = "arbor_player_create";
    if (!clip || !s || !out || (!rig && clip->rig_size))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "clip, scene, rig and out are required");
    *out = NULL;
    uint32_t n = clip->rig_size;
    if (rig_count < n)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the rig has %u nodes, the clip needs %u", rig_count, n);
    uint32_t counts[PATHS] = { 0 }, weights = 0;
    for (uint32_t i = 0; i < clip->channel_count; i++) {
        const arbor__channel *c = &clip->channels[i];
        arbor_node node = rig[c->target];
        if (arbor_node_is_none(node)) continue;
        if (!arbor__live_slot(s, node)) {
            const char *target = arbor_clip_target_name(clip, c->target);
            return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "rig entry %u%s%s%s is not a live node", c->target,
                               target ? " (target '" : "", target ? target : "", target ? "')" : "");
        }
        counts[c->path]++;
        if (c->path == W) weights += c->width;
    }
    size_t bytes = arbor__round16(sizeof(arbor_player)) + arbor__round16((size_t)n * sizeof(arbor_node)) +
                   arbor__round16(n) + 2 * arbor__round16((size_t)n * sizeof(arbor_trs)) +
                   arbor__round16((size_t)clip->timeline_count * sizeof(uint32_t)) +
                   arbor__round16((size_t)clip->timeline_count * sizeof(arbor__key)) +
                   arbor__round16(2 * (size_t)weights * sizeof(arbor_real)) + arbor__round16((size_t)n * sizeof(uint32_t));
    for (int p = 0; p < PATHS; p++)
        bytes += arbor__round16((size_t)counts[p] * sizeof(uint32_t)) +
                 (p == W ? arbor__round16((size_t)counts[p] * sizeof(uint32_t))
                         : arbor__round16((size_t)counts[p] * sizeof(arbor_node)) +
                               arbor__round16((size_t)counts[p] * lane_width(p) * sizeof(arbor_real)));
    bytes += arbor__round16((size_t)counts[R] * sizeof(uint32_t)) + arbor__round16((size_t)counts[R] * sizeof(arbor__rotation_run));
    char *block = arbor__alloc(s, bytes), *at = block;
    if (!block) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for a player of %zu bytes", bytes);
    memset(block, 0, bytes);
    arbor_player *p = arbor__take(&at, sizeof *p);
    p->clip = clip;
    p->s = s;
    arbor__dependent_join(s, &p->dep, detach);
    p->bytes = bytes;
    p->rig_size = n;
    p->rig = memcpy(arbor__take(&at, (size_t)n * sizeof *p->rig), rig, (size_t)n * sizeof *p->rig);
    p->animated = arbor__take(&at, n);
    p->rest = arbor__take(&at, (size_t)n * sizeof *p->rest);
    p->pose = arbor__take(&at, (size_t)n * sizeof *p->pose);
    p->cursors = arbor__take(&at, (size_t)clip->timeline_count * sizeof *p->cursors);
    p->keys = arbor__take(&at, (size_t)clip->timeline_count * sizeof *p->keys);
    p->weight_total = weights;
    p->weights = arbor__take(&at, 2 * (size_t)weights * sizeof *p->weights);
    p->driven_slots = arbor__take(&at, (size_t)n * sizeof *p->driven_slots);
    for (int q = 0; q < PATHS; q++) {
        lane *L = &p->lanes[q];
        L->channels = arbor__take(&at, (size_t)counts[q] * sizeof *L->channels);
        if (q == W) {
            L->weight_at = arbor__take(&at, (size_t)counts[q] * sizeof *L->weight_at);
        } else {
            L->nodes = arbor__take(&at, (size_t)counts[q] * sizeof *L->nodes);
            L->values = arbor__take(&at, (size_t)counts[q] * lane_width(q) * sizeof *L->values);
        }
    }
    p->lanes[R].offsets = arbor__take(&at, (size_t)counts[R] * sizeof *p->lanes[R].offsets);
    p->lanes[R].runs = arbor__take(&at, (size_t)counts[R] * sizeof *p->lanes[R].runs);
    uint32_t weight_at = 0;
    for (uint32_t i = 0; i < clip->channel_count; i++) {
        const arbor__channel *c = &clip->channels[i];
        arbor_node node = rig[c->target];
        if (arbor_node_is_none(node)) continue;
        lane *L = &p->lanes[c->path];
        if (c->path == W) {
            L->weight_at[L->count] = weight_at;
            arbor__channel_first(clip, c, p->weights + weight_at);
            weight_at += c->width;
        } else {
            L->nodes[L->count] = node;
        }
        if (c->path == R) {
            const bool linear = c->interpolation == ARBOR_INTERPOLATION_LINEAR;
            arbor__rotation_run *run = L->run_count ? &L->runs[L->run_count - 1] : NULL;
            L->offsets[L->count] = c->values;
            if (run && run->timeline == c->timeline && run->linear == linear)
                run->count++;
            else
                L->runs[L->run_count++] = (arbor__rotation_run){ L->count, 1, c->timeline, linear };
        }
        L->channels[L->count++] = i;
        if (c->path != W && !(p->animated[c->target] & TRS_BITS)) {
            arbor_node_trs(s, node, &p->rest[c->target]);
            p->driven_count++;
        }
        p->animated[c->target] |= (uint8_t)(1u << c->path);
    }
    *out = p;
    return ARBOR_OK;
}

void arbor_player_destroy(arbor_player *p) {
    if (!p) return;
    arbor__dependent_leave(&p->dep);
    const arbor_allocator a = p->dep.allocator;
    arbor__free_with(&a, p->scratch_nodes, (size_t)p->scratch_cap * sizeof *p->scratch_nodes);
    arbor__free_with(&a, p->scratch_values, (size_t)p->scratch_cap * 4 * sizeof *p->scratch_values);
    arbor__free_with(&a, p->pose_entry, (size_t)trs_channels(p) * sizeof *p->pose_entry);
    arbor__free_with(&a, p, p->bytes);
}

const arbor_clip *arbor_player_clip(const arbor_player *p) { return p ? p->clip : NULL; }

const arbor_real *arbor_player_weights(const arbor_player *p, uint32_t target, uint32_t *count) {
    const lane *L = p ? &p->lanes[W] : NULL;
    for (uint32_t e = 0; L && e < L->count; e++) {
        const arbor__channel *c = &p->clip->channels[L->channels[e]];
        if (c->target != target) continue;
        if (count) *count = c->width;
        return p->weights + L->weight_at[e];
    }
    if (count) *count = 0;
    return NULL;
}

/* ---- the three phases: check, sample, write ----------------------------------------------------- */

static arbor_result check_call(const arbor_player *p, double time, arbor_wrap wrap, const char *fn) {
    if (!p) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "a player is required");
    if (!p->s) return arbor__inert(fn);
    if (!isfinite(time)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the time is %g", time);
    if ((unsigned)wrap > ARBOR_WRAP_LOOP) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "unknown wrap %d", (int)wrap);
    return ARBOR_OK;
}

/* A node a write would go to: alive and not locked. */
static arbor_result check_node(const arbor_scene *s, arbor_node node, uint32_t target, const char *fn) {
    uint32_t slot = arbor__live_slot(s, node);
    if (!slot)
        return arbor__fail(ARBOR_ERR_DEAD_NODE, fn, "the node of rig entry %u was destroyed", target);
    if (s->n.flags[slot] & ARBOR__LOCKED)
        return arbor__fail(ARBOR_ERR_LOCKED, fn, "rig entry %u, node " ARBOR__NODE_FMT ", has a locked local matrix",
                           target, ARBOR__NODE_ARGS(s, slot));
    return ARBOR_OK;
}

/* The driven nodes alive and not locked: their slots found again when the scene's shape
   changed, then one OR over their flags. */
static arbor_result check_nodes(arbor_player *p, const char *fn) {
    const arbor_scene *s = p->s;
    if (!p->slots_known || p->driven_shape != s->shape) {
        for (uint32_t i = 0, j = 0; i < p->rig_size; i++) {
            if (!(p->animated[i] & TRS_BITS)) continue;
            const uint32_t slot = arbor__live_slot(s, p->rig[i]); /* inline: check_node says why */
            if (!slot) return check_node(s, p->rig[i], i, fn);
            p->driven_slots[j++] = slot;
        }
        p->slots_known = true;
        p->driven_shape = s->shape;
    }
    uint8_t any = 0;
    for (uint32_t j = 0; j < p->driven_count; j++) any |= s->n.flags[p->driven_slots[j]];
    for (uint32_t i = 0; (any & ARBOR__LOCKED) && i < p->rig_size; i++) {
        if (!(p->animated[i] & TRS_BITS)) continue;
        arbor_result r = check_node(s, p->rig[i], i, fn);
        if (r) return r;
    }
    return ARBOR_OK;
}

/* Samples every bound channel at player time `time` into the lanes, and the weights into
   weights (the player's, or its workspace). Touches nothing but the player and those. */
static void sample(arbor_player *p, double time, arbor_wrap wrap, arbor_real *weights) {
    const arbor_clip *clip = p->clip;
    double t = arbor__clip_time(clip, time, wrap);
    for (uint32_t i = 0; i < clip->timeline_count; i++)
        p->keys[i] = arbor__find_key(clip, &clip->timelines[i], t, &p->cursors[i]);
    for (int q = 0; q < PATHS; q++) {
        const lane *L = &p->lanes[q];
        if (!L->count) continue;
        if (q == W)
            arbor__sample_lane(clip, p->keys, L->channels, L->count, q, weights, L->weight_at, 1);
        else if (q == R)
            arbor__sample_rotations(clip, p->keys, L->channels, L->offsets, L->runs, L->run_count, L->values);
        else
            arbor__sample_lane(clip, p->keys, L->channels, L->count, q, L->values, NULL, 0);
    }
}

/* Writes the lanes' values to their nodes: the bulk setters' write, the nodes checked before and
   the values finite and unit by construction. */
static void write_lanes(const arbor_player *p) {
    for (int q = 0; q < 3; q++)
        arbor__write_many(p->s, p->lanes[q].nodes, p->lanes[q].values, p->lanes[q].count, arbor__path_offset((uint32_t)q),
                          (int)lane_width(q), false);
}

/* ---- apply ----------------------------------------------------------------------------------- */

typedef struct sample_job {
    arbor_player *const *players;
    const double *times;
    uint32_t count, tasks;
    arbor_wrap wrap;
    bool workspace; /* the weights into the players' workspace (kept there until the call succeeds) */
} sample_job;

static void sample_task(void *user, uint32_t index) {
    const sample_job *job = user;
    uint32_t first = (uint32_t)((uint64_t)job->count * index / job->tasks);
    uint32_t end = (uint32_t)((uint64_t)job->count * (index + 1) / job->tasks);
    for (uint32_t i = first; i < end; i++) {
        arbor_player *p = job->players[i];
        sample(p, job->times[i], job->wrap, p->weights + (job->workspace ? p->weight_total : 0));
    }
}

/* Below this many channels in all, sampling stays on the calling thread. */
#define PARALLEL_MIN_CHANNELS 4096u
#define MAX_TASKS 256u

/* Samples every player into its lanes, side by side on the executor when it pays. */
static void sample_all(arbor_player *const *players, const double *times, uint32_t count, arbor_wrap wrap, bool workspace,
                       uint64_t channels, const arbor_executor *executor) {
    sample_job job = { players, times, count, count < MAX_TASKS ? count : MAX_TASKS, wrap, workspace };
    if (executor && executor->parallel_for && channels >= PARALLEL_MIN_CHANNELS && job.tasks > 1)
        executor->parallel_for(executor->user, job.tasks, sample_task, &job);
    else if (count)
        sample_task(&(sample_job){ players, times, count, 1, wrap, workspace }, 0);
}

arbor_result arbor_players_apply(arbor_player *const *players, const double *times, uint32_t count, arbor_wrap wrap,
                                 const arbor_executor *executor) {
    static const char *const fn = "arbor_players_apply";
    if (count && (!players || !times)) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "players and times are required");
    uint64_t channels = 0;
    for (uint32_t i = 0; i < count; i++) {
        arbor_result r = check_call(players[i], times[i], wrap, fn);
        if (!r) r = check_nodes(players[i], fn);
        if (r) return r;
        channels += players[i]->clip->channel_count;
    }
    sample_all(players, times, count, wrap, false, channels, executor);
    for (uint32_t i = 0; i < count; i++) write_lanes(players[i]);
    return ARBOR_OK;
}

/* Maps the player's T, R and S channels to the pose's entries of their nodes (once per pose;
   arbor__pose_lookup was called). */
static arbor_result bind_pose(arbor_player *p, arbor_pose *pose, const char *fn) {
    uint32_t n = trs_channels(p);
    if (!p->pose_entry && n && !(p->pose_entry = arbor__alloc(p->s, (size_t)n * sizeof *p->pose_entry)))
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for a player's map to the pose");
    for (int q = 0, at = 0; q < 3; at += (int)p->lanes[q].count, q++) {
        arbor_result r = arbor__pose_entries(pose, p->lanes[q].nodes, p->lanes[q].count, p->pose_entry + at, fn);
        if (r) return r;
    }
    p->pose_serial = arbor__pose_serial(pose);
    return ARBOR_OK;
}

/* Exchanges one lane's values (width w, a constant where it is inlined, so the copies unroll)
   with the part at byte offset `part` of the pose entries they map to, first to last or last
   to first. */
static inline void swap_lane(const lane *L, const uint32_t *entry, arbor_trs *entries, size_t part, uint32_t w,
                             bool back) {
    for (uint32_t j = 0; j < L->count; j++) {
        uint32_t e = back ? L->count - 1 - j : j;
        arbor_real *v = L->values + (size_t)e * w, *to = (arbor_real *)((char *)&entries[entry[e]] + part), x[4];
        memcpy(x, to, w * sizeof *x);
        memcpy(to, v, w * sizeof *x);
        memcpy(v, x, w * sizeof *x);
    }
}

/* Exchanges the player's lane values with the pose entries they map to (bind_pose), first to
   last, or last to first (back: undoing an exchange when two channels share an entry). */
static void swap_entries(arbor_player *p, arbor_trs *entries, bool back) {
    const uint32_t *t = p->pose_entry, *r = t + p->lanes[T].count, *sc = r + p->lanes[R].count;
    if (back) {
        swap_lane(&p->lanes[S], sc, entries, offsetof(arbor_trs, scale), 3, true);
        swap_lane(&p->lanes[R], r, entries, offsetof(arbor_trs, rotation), 4, true);
        swap_lane(&p->lanes[T], t, entries, offsetof(arbor_trs, translation), 3, true);
    } else {
        swap_lane(&p->lanes[T], t, entries, offsetof(arbor_trs, translation), 3, false);
        swap_lane(&p->lanes[R], r, entries, offsetof(arbor_trs, rotation), 4, false);
        swap_lane(&p->lanes[S], sc, entries, offsetof(arbor_trs, scale), 3, false);
    }
}

arbor_result arbor_players_apply_pose(arbor_player *const *players, const double *times, uint32_t count, arbor_wrap wrap,
                                      arbor_pose *pose, const arbor_executor *executor) {
    static const char *const fn = "arbor_players_apply_pose";
    if (!pose || (count && (!players || !times)))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "players, times and pose are required");
    if (!arbor__pose_scene(pose)) return arbor__inert(fn);
    uint64_t channels = 0;
    for (uint32_t i = 0; i < count; i++) {
        arbor_result r = check_call(players[i], times[i], wrap, fn);
        if (!r && players[i]->s != arbor__pose_scene(pose))
            r = arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "players[%u] drives another scene than the pose's", i);
        if (r) return r;
        /* No check of the driven nodes here: the pose refuses a dead or locked node itself,
           before the scene changes. */
        channels += players[i]->clip->channel_count;
    }
    for (uint32_t i = 0, looked = 0; i < count; i++) {
        if (players[i]->pose_serial == arbor__pose_serial(pose)) continue;
        arbor_result r = looked++ ? ARBOR_OK : arbor__pose_lookup(pose, fn);
        if (!r) r = bind_pose(players[i], pose, fn);
        if (r) return r;
    }
    /* Sampled into the lanes, exchanged with the pose entries they go to (player by player, so
       a later one wins), applied; a refused apply exchanges them back, newest first, so the
       entries and the weights are as they were. */
    sample_all(players, times, count, wrap, true, channels, executor);
    arbor_trs *entries = arbor_pose_trs(pose);
    for (uint32_t i = 0; i < count; i++) swap_entries(players[i], entries, false);
    arbor_result r = arbor_pose_apply(pose, executor);
    for (uint32_t i = count; r && i-- > 0;) swap_entries(players[i], entries, true);
    for (uint32_t i = 0; !r && i < count; i++)
        memcpy(players[i]->weights, players[i]->weights + players[i]->weight_total,
               (size_t)players[i]->weight_total * sizeof *players[i]->weights);
    return r;
}

arbor_result arbor_player_apply(arbor_player *p, double time, arbor_wrap wrap) {
    static const char *const fn = "arbor_player_apply";
    arbor_result r = check_call(p, time, wrap, fn);
    if (!r) r = check_nodes(p, fn);
    if (r) return r;
    sample(p, time, wrap, p->weights);
    write_lanes(p);
    return ARBOR_OK;
}

/* ---- sampling into a pose -------------------------------------------------------------------- */

/* The lanes' values into pose[target] (the animated components). */
static void lanes_to_pose(const arbor_player *p, arbor_trs *pose) {
    for (int q = 0; q < 3; q++) {
        const lane *L = &p->lanes[q];
        uint32_t w = lane_width(q);
        for (uint32_t e = 0; e < L->count; e++) {
            arbor_real *part;
            trs_part(&pose[p->clip->channels[L->channels[e]].target], q, &part);
            memcpy(part, L->values + (size_t)e * w, w * sizeof *part);
        }
    }
}

arbor_result arbor_player_sample(arbor_player *p, double time, arbor_wrap wrap, arbor_trs *pose, uint32_t pose_count) {
    static const char *const fn = "arbor_player_sample";
    arbor_result r = check_call(p, time, wrap, fn);
    if (r) return r;
    if (pose_count < p->rig_size || (!pose && p->rig_size))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the pose holds %u entries, the rig %u", pose_count,
                           p->rig_size);
    sample(p, time, wrap, p->weights);
    lanes_to_pose(p, pose);
    return ARBOR_OK;
}

/* ---- cross-fade ------------------------------------------------------------------------------ */

static uint8_t animated_at(const arbor_player *p, uint32_t i) { return i < p->rig_size ? p->animated[i] & TRS_BITS : 0; }

/* Makes room for n nodes in p's blend workspace; false when out of memory. */
static bool reserve_scratch(arbor_player *p, uint32_t n) {
    if (n <= p->scratch_cap) return true;
    arbor_node *nodes = arbor__alloc(p->s, (size_t)n * sizeof *nodes);
    arbor_real *values = arbor__alloc(p->s, (size_t)n * 4 * sizeof *values);
    if (!nodes || !values) {
        arbor__free(p->s, nodes, (size_t)n * sizeof *nodes);
        arbor__free(p->s, values, (size_t)n * 4 * sizeof *values);
        return false;
    }
    arbor__free(p->s, p->scratch_nodes, (size_t)p->scratch_cap * sizeof *p->scratch_nodes);
    arbor__free(p->s, p->scratch_values, (size_t)p->scratch_cap * 4 * sizeof *p->scratch_values);
    p->scratch_nodes = nodes;
    p->scratch_values = values;
    p->scratch_cap = n;
    return true;
}

/* (1 - w) a + w b: linear, or slerp along the shorter arc for rotations. */
static void mix(int path, const arbor_real *a, const arbor_real *b, arbor_real w, arbor_real *out) {
    if (path != R) {
        for (int i = 0; i < 3; i++) out[i] = (1 - w) * a[i] + w * b[i];
        return;
    }
    arbor_quat_slerp(out, a, b, w);
}

arbor_result arbor_player_blend(arbor_player *a, double time_a, arbor_player *b, double time_b, arbor_real weight,
                                arbor_wrap wrap) {
    static const char *const fn = "arbor_player_blend";
    arbor_result r = check_call(a, time_a, wrap, fn);
    if (!r) r = check_call(b, time_b, wrap, fn);
    if (r) return r;
    if (a->s != b->s) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the players drive different scenes");
    if (!(weight >= 0 && weight <= 1)) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "weight %g is not in [0, 1]", (double)weight);
    uint32_t n = a->rig_size > b->rig_size ? a->rig_size : b->rig_size;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t ma = animated_at(a, i), mb = animated_at(b, i);
        if (ma && mb && !arbor_node_equal(a->rig[i], b->rig[i]))
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the players' rigs differ at entry %u", i);
        if ((ma | mb) && (r = check_node(a->s, ma ? a->rig[i] : b->rig[i], i, fn))) return r;
    }
    if (!reserve_scratch(a, n)) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the blend");
    arbor_player *both[2] = { a, b };
    for (int k = 0; k < 2; k++) {
        arbor_player *p = both[k];
        for (uint32_t i = 0; i < p->rig_size; i++)
            if (p->animated[i] & TRS_BITS) p->pose[i] = p->rest[i];
        sample(p, k ? time_b : time_a, wrap, p->weights);
        lanes_to_pose(p, p->pose);
    }
    for (int q = 0; q < 3; q++) {
        uint32_t count = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint8_t ma = animated_at(a, i), mb = animated_at(b, i);
            if (!((ma | mb) & (1u << q))) continue;
            arbor_trs *from = ma ? &a->pose[i] : &b->rest[i], *to = mb ? &b->pose[i] : &a->rest[i];
            arbor_real *x, *y;
            trs_part(from, q, &x);
            trs_part(to, q, &y);
            mix(q, x, y, weight, a->scratch_values + (size_t)count * lane_width(q));
            a->scratch_nodes[count++] = ma ? a->rig[i] : b->rig[i];
        }
        arbor__write_many(a->s, a->scratch_nodes, a->scratch_values, count, arbor__path_offset((uint32_t)q),
                          (int)lane_width(q), false);
    }
    const lane *La = &a->lanes[W], *Lb = &b->lanes[W];
    for (uint32_t e = 0; e < La->count; e++) {
        const arbor__channel *ca = &a->clip->channels[La->channels[e]];
        for (uint32_t f = 0; f < Lb->count; f++) {
            const arbor__channel *cb = &b->clip->channels[Lb->channels[f]];
            if (cb->target != ca->target || cb->width != ca->width || !arbor_node_equal(a->rig[ca->target], b->rig[cb->target]))
                continue;
            arbor_real *x = a->weights + La->weight_at[e];
            const arbor_real *y = b->weights + Lb->weight_at[f];
            for (uint32_t i = 0; i < ca->width; i++) x[i] = (1 - weight) * x[i] + weight * y[i];
        }
    }
    return ARBOR_OK;
}

/* ---- additive layers ------------------------------------------------------------------------- */

arbor_result arbor_player_add(arbor_player *p, double time, arbor_real weight, arbor_wrap wrap) {
    static const char *const fn = "arbor_player_add";
    arbor_result r = check_call(p, time, wrap, fn);
    if (!r) r = check_nodes(p, fn);
    if (r) return r;
    if (!isfinite((double)weight)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the weight is %g", (double)weight);
    arbor_real *delta_weights = p->weights + p->weight_total;
    sample(p, time, wrap, delta_weights);
    const arbor_clip *clip = p->clip;
    bool finite = true;
    for (int q = 0; q < 3; q++) {
        const lane *L = &p->lanes[q];
        for (uint32_t e = 0; e < L->count; e++) {
            const arbor__channel *c = &clip->channels[L->channels[e]];
            const arbor_real *cur = p->s->n.trs + (size_t)arbor__live_slot(p->s, L->nodes[e]) * ARBOR__TRS + arbor__path_offset((uint32_t)q);
            arbor_real ref[4], *v = L->values + (size_t)e * lane_width(q);
            arbor__channel_first(clip, c, ref);
            if (q != R) {
                for (int i = 0; i < 3; i++) v[i] = cur[i] + weight * (v[i] - ref[i]);
                finite = finite && arbor__all_finite(v, 3);
                continue;
            }
            static const arbor_real identity[4] = { 0, 0, 0, 1 };
            const arbor_real inverse_ref[4] = { -ref[0], -ref[1], -ref[2], ref[3] };
            arbor_real change[4];
            arbor_quat_mul(change, inverse_ref, v);
            arbor_quat_slerp(change, identity, change, weight);
            arbor_quat_mul(v, cur, change);
            arbor_quat_normalize(v, v);
        }
    }
    const lane *L = &p->lanes[W];
    for (uint32_t e = 0; e < L->count; e++) {
        const arbor__channel *c = &clip->channels[L->channels[e]];
        const float *ref = clip->values + c->values + (c->interpolation == ARBOR_INTERPOLATION_CUBICSPLINE ? c->width : 0);
        arbor_real *d = delta_weights + L->weight_at[e];
        for (uint32_t i = 0; i < c->width; i++) d[i] = p->weights[L->weight_at[e] + i] + weight * (d[i] - ref[i]);
        finite = finite && arbor__all_finite(d, c->width);
    }
    if (!finite) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "weight %g makes a pose that is not finite", (double)weight);
    memcpy(p->weights, delta_weights, (size_t)p->weight_total * sizeof *p->weights);
    write_lanes(p);
    return ARBOR_OK;
}
