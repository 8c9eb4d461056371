/* SPDX-License-Identifier: MIT */
/* Clips: made from arrays after checking every channel (so that no sample can fail or overflow
   later), in one allocation; their queries; a rig found by node names. */
#include <math.h>
#include <stdlib.h> /* qsort */
#include <string.h>

#include "anim/anim_internal.h"

/* Magnitude at or above which values are refused: a sample sums at most four terms of values
   (and tangents times intervals) below it with weights of at most 1, far from FLT_MAX. */
#define VALUE_LIMIT 1e37

static const char *const fn = "arbor_clip_create";

static uint32_t width_of(const arbor_channel_desc *c) {
    return c->path == ARBOR_ANIM_WEIGHTS ? c->width : arbor__path_width(c->path);
}

static uint32_t elements_of(const arbor_channel_desc *c) {
    return c->key_count * (c->interpolation == ARBOR_INTERPOLATION_CUBICSPLINE ? 3u : 1u);
}

arbor_result arbor__clip_check_channel(const arbor_channel_desc *c, uint32_t i, uint32_t rig_size) {
    if ((unsigned)c->path > ARBOR_ANIM_WEIGHTS)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "channel %u: unknown path %d", i, (int)c->path);
    if ((unsigned)c->interpolation > ARBOR_INTERPOLATION_CUBICSPLINE)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "channel %u: unknown interpolation %d", i,
                           (int)c->interpolation);
    if (rig_size && c->target >= rig_size)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "channel %u: target %u is beyond the rig size %u", i,
                           c->target, rig_size);
    if (c->path == ARBOR_ANIM_WEIGHTS ? c->width == 0 : c->width != 0 && c->width != arbor__path_width(c->path))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "channel %u: width %u does not fit its path", i, c->width);
    bool cubic = c->interpolation == ARBOR_INTERPOLATION_CUBICSPLINE;
    if (c->key_count < (cubic ? 2u : 1u))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "channel %u: %u keyframes are too few", i, c->key_count);
    if (!c->times || !c->values)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "channel %u: times and values are required", i);
    if ((uint64_t)elements_of(c) * width_of(c) > UINT32_MAX / 2 || c->key_count > UINT32_MAX / 4)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "channel %u: too many values", i);
    for (uint32_t k = 0; k < c->key_count; k++) {
        double t = c->times[k];
        if (!isfinite(t)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "channel %u: keyframe %u's time is %g", i, k, t);
        if (t < 0 || (k && !(t > c->times[k - 1])))
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "channel %u: keyframe %u at time %g is %s", i, k, t,
                               t < 0 ? "negative" : "not after the one before");
    }
    uint32_t w = width_of(c), per = cubic ? 3 * w : w;
    for (uint32_t k = 0; k < c->key_count; k++) {
        const float *v = c->values + (size_t)k * per;
        double before = k ? (double)c->times[k] - c->times[k - 1] : 0;
        double after = k + 1 < c->key_count ? (double)c->times[k + 1] - c->times[k] : 0;
        double len = 0;
        for (uint32_t e = 0; e < per; e++) {
            double x = v[e];
            bool tangent = cubic && e / w != 1;
            double scaled = tangent ? fabs(x) * (e / w == 0 ? before : after) : fabs(x);
            if (!isfinite(x))
                return arbor__fail(ARBOR_ERR_NONFINITE, fn, "channel %u: keyframe %u holds %g", i, k, x);
            if (scaled >= VALUE_LIMIT)
                return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn,
                                   "channel %u: keyframe %u holds %g, beyond what a sample can hold", i, k, x);
            if (!tangent) len += x * x;
        }
        if (c->path == ARBOR_ANIM_ROTATION && !(len > 0))
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "channel %u: keyframe %u's rotation has no length", i,
                               k);
    }
    return ARBOR_OK;
}

/* Channel index ordered by (target, path), for the duplicate check. */
typedef struct order_entry {
    uint64_t key;
    uintptr_t times;
    uint32_t index;
} order_entry;

static int by_key(const void *a, const void *b) {
    const order_entry *p = a, *q = b;
    return (p->key > q->key) - (p->key < q->key);
}

static int by_times(const void *a, const void *b) {
    const order_entry *p = a, *q = b;
    return p->times != q->times ? (p->times > q->times) - (p->times < q->times) : (p->index > q->index) - (p->index < q->index);
}

arbor_result arbor_clip_create(const arbor_clip_desc *desc, arbor_clip **out) {
    if (!desc || !out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "desc and out are required");
    *out = NULL;
    const arbor_channel_desc *ch = desc->channels;
    uint32_t n = desc->channel_count, rig_size = desc->rig_size;
    if (n && !ch) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "channels are required");
    if (!isfinite(desc->duration)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the duration is %g", desc->duration);
    if (desc->duration < 0) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the duration is negative");
    if (!desc->allocator.alloc != !desc->allocator.free)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the allocator needs both alloc and free");
    if (rig_size == 0)
        for (uint32_t i = 0; i < n; i++)
            if (ch[i].target >= rig_size) rig_size = ch[i].target + 1;
    if (n && rig_size == 0) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "target %u is too large", UINT32_MAX);
    double last = 0;
    uint64_t floats = 0, names = 0;
    for (uint32_t i = 0; i < n; i++) {
        arbor_result r = arbor__clip_check_channel(&ch[i], i, rig_size);
        if (r) return r;
        if (ch[i].times[ch[i].key_count - 1] > last) last = ch[i].times[ch[i].key_count - 1];
        floats += (uint64_t)elements_of(&ch[i]) * width_of(&ch[i]);
    }
    if (floats > UINT32_MAX) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "too many values");

    /* Duplicates (target, path), and the timelines: channels passing the same times pointer. */
    size_t order_bytes = (size_t)n * sizeof(order_entry);
    order_entry *order = arbor__alloc_with(&desc->allocator, order_bytes);
    if (!order) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory to sort the channels");
    for (uint32_t i = 0; i < n; i++)
        order[i] = (order_entry){ (uint64_t)ch[i].target << 2 | (uint64_t)ch[i].path, (uintptr_t)ch[i].times, i };
    qsort(order, n, sizeof *order, by_key);
    for (uint32_t i = 1; i < n; i++)
        if (order[i].key == order[i - 1].key) {
            uint32_t a = order[i - 1].index, b = order[i].index;
            arbor__free_with(&desc->allocator, order, order_bytes);
            return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "channels %u and %u both animate target %u's path %d",
                               a < b ? a : b, a < b ? b : a, ch[a].target, (int)ch[a].path);
        }
    qsort(order, n, sizeof *order, by_times); /* equal times pointers side by side, first use first */
    uint32_t timelines = 0;
    uint64_t times = 0;
    for (uint32_t i = 0; i < n; i++)
        if (i == 0 || order[i].times != order[i - 1].times || ch[order[i].index].key_count != ch[order[i - 1].index].key_count) {
            timelines++;
            times += ch[order[i].index].key_count;
        }
    if (desc->target_names)
        for (uint32_t i = 0; i < n; i++) {
            const char *name = desc->target_names[ch[i].target];
            names += name ? strlen(name) + 1 : 0;
        }

    size_t name_bytes = desc->name ? strlen(desc->name) + 1 : 0;
    size_t bytes = arbor__round16(sizeof(arbor_clip)) + arbor__round16((size_t)n * sizeof(arbor__channel)) +
                   arbor__round16((size_t)timelines * sizeof(arbor__timeline)) + arbor__round16((size_t)times * sizeof(float)) +
                   arbor__round16((size_t)floats * sizeof(float)) +
                   (desc->target_names ? arbor__round16((size_t)rig_size * sizeof(char *)) : 0) + arbor__round16(name_bytes) +
                   (size_t)names;
    char *block = arbor__alloc_with(&desc->allocator, bytes);
    if (!block) {
        arbor__free_with(&desc->allocator, order, order_bytes);
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for a clip of %zu bytes", bytes);
    }
    memset(block, 0, bytes);
    char *at = block;
    arbor_clip *clip = arbor__take(&at, sizeof *clip);
    clip->allocator = desc->allocator;
    clip->bytes = bytes;
    clip->duration = desc->duration > 0 ? desc->duration : last;
    clip->rig_size = rig_size;
    clip->channel_count = n;
    clip->timeline_count = timelines;
    clip->channels = arbor__take(&at, (size_t)n * sizeof *clip->channels);
    clip->timelines = arbor__take(&at, (size_t)timelines * sizeof *clip->timelines);
    clip->times = arbor__take(&at, (size_t)times * sizeof *clip->times);
    clip->values = arbor__take(&at, (size_t)floats * sizeof *clip->values);
    if (desc->target_names) clip->target_names = arbor__take(&at, (size_t)rig_size * sizeof *clip->target_names);
    if (desc->name) clip->name = memcpy(arbor__take(&at, name_bytes), desc->name, name_bytes);

    uint32_t tl = 0, t_at = 0;
    for (uint32_t i = 0; i < n; i++) {
        const arbor_channel_desc *c = &ch[order[i].index];
        if (i == 0 || order[i].times != order[i - 1].times || c->key_count != ch[order[i - 1].index].key_count) {
            clip->timelines[tl++] = (arbor__timeline){ t_at, c->key_count };
            memcpy(clip->times + t_at, c->times, (size_t)c->key_count * sizeof *c->times);
            t_at += c->key_count;
        }
        clip->channels[order[i].index].timeline = tl - 1;
    }
    arbor__free_with(&desc->allocator, order, order_bytes);
    uint32_t v_at = 0;
    for (uint32_t i = 0; i < n; i++) {
        const arbor_channel_desc *c = &ch[i];
        arbor__channel *d = &clip->channels[i];
        d->target = c->target;
        d->path = (uint8_t)c->path;
        d->interpolation = (uint8_t)c->interpolation;
        d->width = width_of(c);
        d->values = v_at;
        uint32_t count = elements_of(c) * d->width;
        float *v = clip->values + v_at;
        memcpy(v, c->values, (size_t)count * sizeof *v);
        v_at += count;
        if (c->path != ARBOR_ANIM_ROTATION) continue;
        bool cubic = c->interpolation == ARBOR_INTERPOLATION_CUBICSPLINE;
        for (uint32_t k = 0; k < c->key_count; k++) { /* keyframe values unit (not tangents) */
            float *q = v + (cubic ? 3 * k + 1 : k) * 4;
            double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
            for (int e = 0; e < 4; e++) q[e] = (float)(q[e] / len);
        }
    }
    if (desc->target_names)
        for (uint32_t i = 0; i < n; i++) {
            uint32_t t = ch[i].target;
            const char *name = desc->target_names[t];
            if (!name || clip->target_names[t]) continue;
            size_t size = strlen(name) + 1;
            clip->target_names[t] = memcpy(at, name, size);
            at += size;
        }
    *out = clip;
    return ARBOR_OK;
}

void arbor_clip_destroy(arbor_clip *clip) {
    if (clip) arbor__free_with(&clip->allocator, clip, clip->bytes);
}

const char *arbor_clip_name(const arbor_clip *clip) { return clip ? clip->name : NULL; }
double arbor_clip_duration(const arbor_clip *clip) { return clip ? clip->duration : 0; }
uint32_t arbor_clip_rig_size(const arbor_clip *clip) { return clip ? clip->rig_size : 0; }
uint32_t arbor_clip_channel_count(const arbor_clip *clip) { return clip ? clip->channel_count : 0; }

arbor_result arbor_clip_channel(const arbor_clip *clip, uint32_t i, arbor_channel_desc *out) {
    if (!clip || !out || i >= clip->channel_count)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, "arbor_clip_channel", "channel %u does not exist", i);
    const arbor__channel *c = &clip->channels[i];
    const arbor__timeline *tl = &clip->timelines[c->timeline];
    *out = (arbor_channel_desc){ .target = c->target,
                                 .path = (arbor_anim_path)c->path,
                                 .interpolation = (arbor_interpolation)c->interpolation,
                                 .key_count = tl->count,
                                 .times = clip->times + tl->first,
                                 .values = clip->values + c->values,
                                 .width = c->path == ARBOR_ANIM_WEIGHTS ? c->width : 0 };
    return ARBOR_OK;
}

const char *arbor_clip_target_name(const arbor_clip *clip, uint32_t target) {
    return clip && clip->target_names && target < clip->rig_size ? clip->target_names[target] : NULL;
}

/* ---- binding by name ------------------------------------------------------------------------- */

typedef struct name_query {
    const char *name;
} name_query;

static bool has_name(void *user, const arbor_scene *s, arbor_node n) {
    const char *name = arbor_node_name(s, n);
    return name && !strcmp(name, ((name_query *)user)->name);
}

arbor_result arbor_clip_rig_by_names(const arbor_clip *clip, const arbor_scene *s, arbor_node root, arbor_node *rig,
                                     uint32_t cap, uint32_t *count, uint32_t *found) {
    if (!clip || !s || (cap && !rig) || !count)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, "arbor_clip_rig_by_names",
                           "clip, scene, count and rig (when cap > 0) are required");
    uint32_t hits = 0, written = cap < clip->rig_size ? cap : clip->rig_size;
    for (uint32_t t = 0; t < written; t++) rig[t] = ARBOR_NONE;
    for (uint32_t i = 0; i < clip->channel_count; i++) {
        uint32_t t = clip->channels[i].target, j = 0;
        while (j < i && clip->channels[j].target != t) j++;
        const char *name = arbor_clip_target_name(clip, t);
        if (!name || j < i) continue; /* unnamed, or its target looked up already */
        name_query q = { name };
        arbor_node hit = ARBOR_NONE;
        if (!arbor_node_is_none(root)) {
            hit = arbor_node_find_descendant(s, root, has_name, &q);
        } else {
            for (arbor_node r = arbor_scene_first_root(s); arbor_node_is_none(hit) && !arbor_node_is_none(r);
                 r = arbor_node_next_sibling(s, r))
                hit = arbor_node_find_descendant(s, r, has_name, &q);
        }
        if (t < written) rig[t] = hit;
        hits += !arbor_node_is_none(hit);
    }
    *count = clip->rig_size;
    if (found) *found = hits;
    return ARBOR_OK;
}

uint32_t arbor_clip_bind_names(const arbor_clip *clip, const arbor_scene *s, arbor_node root, arbor_node *rig) {
    uint32_t count, found = 0;
    if (!clip || !s || !rig) return 0;
    return arbor_clip_rig_by_names(clip, s, root, rig, clip->rig_size, &count, &found) == ARBOR_OK ? found : 0;
}
