/* SPDX-License-Identifier: MIT */
/*
 * What the files of src/anim/ share: the clip's layout and the keyframe kernels.
 *
 * clip.c    making clips (checks, one allocation), their queries, binding by name
 * sample.c  keyframe search with a cursor, interpolation (the hot loop)
 * player.c  players: apply, blend, additive layers, many players at once
 * skin.c    skin sets and joint matrices
 */
#ifndef ARBOR_ANIM_INTERNAL_H
#define ARBOR_ANIM_INTERNAL_H

#include "anim/anim_gltf.h"
#include "scene/scene_internal.h"

/* A run of keyframe times shared by the channels that gave the same times. */
typedef struct arbor__timeline {
    uint32_t first, count;     /* clip->times[first .. first + count) */
} arbor__timeline;

typedef struct arbor__channel {
    uint32_t target, timeline;
    uint32_t values;           /* offset into clip->values: keys * width floats (three times that
                                  for CUBICSPLINE: in-tangent, value, out-tangent per key) */
    uint32_t width;            /* 3, 4, 3, or the morph target count */
    uint8_t path, interpolation;
} arbor__channel;

struct arbor_clip {
    arbor_allocator allocator;
    size_t bytes;              /* the one allocation that holds the clip and its arrays */
    char *name;
    double duration;
    uint32_t rig_size, channel_count, timeline_count;
    arbor__channel *channels;
    arbor__timeline *timelines;
    float *times, *values;
    char **target_names;       /* rig_size entries, or NULL */
};

/* Where time t falls on a timeline: keyframe k and the fraction u of the way to k + 1 (u = 0 at
   or before the first keyframe, and at or after the last, where k is the last); dt is the
   interval from k to k + 1 (0 at the ends). */
typedef struct arbor__key {
    uint32_t k;
    arbor_real u, dt;
} arbor__key;

/* sample.c: the keyframe of t on tl, starting the search at *cursor, which is updated. */
arbor__key arbor__find_key(const arbor_clip *clip, const arbor__timeline *tl, double t, uint32_t *cursor);
/* Consecutive rotation channels of a player that share a timeline and are all LINEAR or not:
   channels[first .. first + count) of its rotation lane. */
typedef struct arbor__rotation_run {
    uint32_t first, count, timeline;
    bool linear;
} arbor__rotation_run;

/* sample.c: the rotation channels[0 ..) at keys (per timeline) into out, channel e's at
   out + 4 e, by runs (which cover them in order); offsets[e]: channel e's values in the clip. */
void arbor__sample_rotations(const arbor_clip *clip, const arbor__key *keys, const uint32_t *channels, const uint32_t *offsets,
                             const arbor__rotation_run *runs, uint32_t run_count, arbor_real *out);
/* sample.c: the channels[0 .. count) of a translation, scale or weights path at keys (per
   timeline) into out: channel e's values at out + at[e] * stride, or side by side when at is
   NULL (weights need at). */
void arbor__sample_lane(const arbor_clip *clip, const arbor__key *keys, const uint32_t *channels, uint32_t count,
                        int path, arbor_real *out, const uint32_t *at, uint32_t stride);
/* sample.c: the clip time of a player time (ARBOR_WRAP_LOOP wraps into [0, duration)). */
double arbor__clip_time(const arbor_clip *clip, double time, arbor_wrap wrap);
/* sample.c: channel c's first keyframe value (its additive reference) into out. */
void arbor__channel_first(const arbor_clip *clip, const arbor__channel *c, arbor_real *out);

/* Bump allocation inside one block (a clip's, a player's): pieces 16-byte aligned. */
static inline size_t arbor__round16(size_t n) { return (n + 15) & ~(size_t)15; }
static inline void *arbor__take(char **at, size_t size) {
    void *p = *at;
    *at += arbor__round16(size);
    return p;
}


/* The width of a path that has a fixed one (0 for weights). */
static inline uint32_t arbor__path_width(uint32_t path) {
    return path == ARBOR_ANIM_ROTATION ? 4 : path == ARBOR_ANIM_WEIGHTS ? 0 : 3;
}

/* Offset of a path's components in arbor__nodes.trs (weights have none). */
static inline int arbor__path_offset(uint32_t path) {
    return path == ARBOR_ANIM_TRANSLATION ? ARBOR__T : path == ARBOR_ANIM_ROTATION ? ARBOR__R : ARBOR__S;
}

#endif
