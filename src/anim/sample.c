/* SPDX-License-Identifier: MIT */
/* The hot loop of animation: where a time falls among keyframes (a cursor per timeline, so time
   moving forward costs O(1) amortised, a binary search otherwise), and a channel's value there
   (STEP, LINEAR with slerp for rotations, CUBICSPLINE Hermite). */
#include <math.h>
#include <string.h>

#include "anim/anim_internal.h"

/* Steps tried forward from the cursor before a binary search. */
#define FORWARD_STEPS 4u

double arbor__clip_time(const arbor_clip *clip, double time, arbor_wrap wrap) {
    if (wrap != ARBOR_WRAP_LOOP) return time;
    double d = clip->duration;
    if (!(d > 0)) return 0;
    double t = time - floor(time / d) * d;
    return t >= 0 && t < d ? t : 0; /* rounding can land on d itself: that is the next loop's 0 */
}

/* The first k in [lo, hi) with times[k] > t (hi when none). */
static uint32_t upper_bound(const float *times, uint32_t lo, uint32_t hi, double t) {
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((double)times[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

arbor__key arbor__find_key(const arbor_clip *clip, const arbor__timeline *tl, double t, uint32_t *cursor) {
    const float *times = clip->times + tl->first;
    uint32_t n = tl->count, k = *cursor < n ? *cursor : 0;
    if (!(t > (double)times[0])) { /* at or before the first keyframe */
        *cursor = 0;
        return (arbor__key){ 0, 0, 0 };
    }
    if (t >= (double)times[n - 1]) {
        *cursor = n - 1;
        return (arbor__key){ n - 1, 0, 0 };
    }
    /* now times[0] < t < times[n - 1]: find k with times[k] <= t < times[k + 1] */
    if ((double)times[k] <= t) {
        uint32_t steps = 0;
        while ((double)times[k + 1] <= t && steps++ < FORWARD_STEPS) k++;
        if ((double)times[k + 1] <= t) k = upper_bound(times, k + 1, n, t) - 1;
    } else {
        k = upper_bound(times, 0, k, t) - 1;
    }
    *cursor = k;
    double t0 = times[k], dt = (double)times[k + 1] - t0;
    return (arbor__key){ k, (arbor_real)((t - t0) / dt), (arbor_real)dt };
}

/* q / |q| by one division and four products (a sampled rotation is near unit: the range check
   of arbor_quat_normalize, which takes the rest, is for the setters' arbitrary input). */
static inline void normalize4(arbor_real *q) {
    const arbor_real sum = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(sum > (arbor_real)1e-30 && sum < (arbor_real)1e30)) {
        arbor_quat_normalize(q, q);
        return;
    }
#if ARBOR_REAL_IS_DOUBLE
    const arbor_real inverse = 1 / sqrt(sum);
#else
    const arbor_real inverse = 1 / sqrtf(sum);
#endif
    for (int i = 0; i < 4; i++) q[i] = q[i] * inverse;
}

/* LINEAR between unit quaternions: slerp along the shorter arc, in three steps so that four
   channels can share the middle one (arbor__slerp_weights4). */
typedef struct arc {
    arbor_real a[4], b[4]; /* b on a's side */
    arbor_real d, u;
} arc;

static inline arc arc_of(const float *a, const float *b, arbor_real u) {
    arc r = { { a[0], a[1], a[2], a[3] }, { b[0], b[1], b[2], b[3] }, 0, u };
    r.d = r.a[0] * r.b[0] + r.a[1] * r.b[1] + r.a[2] * r.b[2] + r.a[3] * r.b[3];
    if (r.d < 0) {
        r.d = -r.d;
        for (int i = 0; i < 4; i++) r.b[i] = -r.b[i];
    }
    return r;
}

static inline void arc_finish(const arc *r, arbor_real wa, arbor_real wb, arbor_real *out) {
    for (int i = 0; i < 4; i++) out[i] = wa * r->a[i] + wb * r->b[i];
    normalize4(out);
}

static inline void slerp(arbor_real *out, const float *a, const float *b, arbor_real u) {
    arc r = arc_of(a, b, u);
    arbor_real wa, wb;
    arbor__slerp_weights(r.u, r.d, &wa, &wb);
    arc_finish(&r, wa, wb, out);
}

/* Channel c's value at key into out; w is c's width, a constant where the compiler can see one. */
ARBOR__HOT void sample_width(const arbor_clip *clip, const arbor__channel *c, arbor__key key, arbor_real *out,
                             const uint32_t w) {
    const float *v = clip->values + c->values;
    if (c->interpolation == ARBOR_INTERPOLATION_CUBICSPLINE) {
        /* per key: in-tangent, value, out-tangent (w each) */
        const float *p0 = v + (size_t)(3 * key.k + 1) * w;
        if (key.u == 0) {
            for (uint32_t i = 0; i < w; i++) out[i] = p0[i];
        } else {
            const float *m0 = p0 + w, *m1 = p0 + 2 * (size_t)w, *p1 = p0 + 3 * (size_t)w;
            const arbor_real u = key.u, u2 = u * u, u3 = u2 * u;
            const arbor_real h00 = 2 * u3 - 3 * u2 + 1, h10 = (u3 - 2 * u2 + u) * key.dt;
            const arbor_real h01 = 3 * u2 - 2 * u3, h11 = (u3 - u2) * key.dt;
            for (uint32_t i = 0; i < w; i++) out[i] = h00 * p0[i] + h10 * m0[i] + h01 * p1[i] + h11 * m1[i];
        }
        if (w == 4 && c->path == ARBOR_ANIM_ROTATION) normalize4(out);
        return;
    }
    const float *a = v + (size_t)key.k * w;
    if (key.u == 0 || c->interpolation == ARBOR_INTERPOLATION_STEP) {
        for (uint32_t i = 0; i < w; i++) out[i] = a[i];
        if (w == 4 && c->path == ARBOR_ANIM_ROTATION) normalize4(out); /* unit in arbor_real, not only in float */
    } else if (w == 4 && c->path == ARBOR_ANIM_ROTATION) {
        slerp(out, a, a + 4, key.u);
    } else {
        const arbor_real u = key.u, s = 1 - u;
        for (uint32_t i = 0; i < w; i++) out[i] = s * a[i] + u * a[w + i];
    }
}

#if ARBOR__SIMD
typedef float arbor__f4 __attribute__((vector_size(4 * sizeof(float))));
/* Four floats of a clip as arbor_real. */
ARBOR__HOT arbor__v4 load_values(const float *p) {
    arbor__f4 f;
    memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, arbor__v4);
}

/* slerp on four channels at once at fraction u, a channel a lane (channel i's keyframe k at
   base + off[i], then k + 1): arc_of, arbor__slerp_weights4 and arc_finish's operations in the
   same order lane by lane, so the same bits as one at a time. Channel i's rotation goes to
   out + 4 i. */
ARBOR__HOT void slerp4(const float *base, const uint32_t off[4], arbor_real us, arbor_real *out) {
    const float *const a[4] = { base + off[0], base + off[1], base + off[2], base + off[3] };
    const arbor__v4 u = { us, us, us, us };
    arbor__v4 ax = load_values(a[0]), ay = load_values(a[1]), az = load_values(a[2]), aw = load_values(a[3]);
    arbor__v4 bx = load_values(a[0] + 4), by = load_values(a[1] + 4), bz = load_values(a[2] + 4), bw = load_values(a[3] + 4);
    ARBOR__TRANSPOSE4(ax, ay, az, aw); /* a component a register */
    ARBOR__TRANSPOSE4(bx, by, bz, bw);
    arbor__v4 d = ax * bx + ay * by + az * bz + aw * bw;
    const arbor__mask4 flip = d < 0; /* b on a's side */
    bx = arbor__select4(flip, -bx, bx);
    by = arbor__select4(flip, -by, by);
    bz = arbor__select4(flip, -bz, bz);
    bw = arbor__select4(flip, -bw, bw);
    d = arbor__select4(flip, -d, d);
    arbor__v4 wa, wb;
    arbor__slerp_weights4(u, d, &wa, &wb);
    arbor__v4 x = wa * ax + wb * bx, y = wa * ay + wb * by, z = wa * az + wb * bz, w = wa * aw + wb * bw;
    const arbor__v4 sum = x * x + y * y + z * z + w * w;
    const arbor__v4 lo = {(arbor_real)1e-30, (arbor_real)1e-30, (arbor_real)1e-30, (arbor_real)1e-30};
    const arbor__v4 hi = {(arbor_real)1e30, (arbor_real)1e30, (arbor_real)1e30, (arbor_real)1e30};
    const arbor__mask4 ok = (sum > lo) & (sum < hi);
    const arbor__v4 one = {1, 1, 1, 1}, inverse = one / arbor__sqrt4(arbor__select4(ok, sum, one));
    if (!(ok[0] & ok[1] & ok[2] & ok[3])) { /* far from unit: normalize4's other path, one by one */
        for (int i = 0; i < 4; i++) slerp(out + 4 * i, a[i], a[i] + 4, us);
        return;
    }
    x = x * inverse;
    y = y * inverse;
    z = z * inverse;
    w = w * inverse;
    ARBOR__TRANSPOSE4(x, y, z, w); /* a channel a register, stored in order */
    memcpy(out, &x, sizeof x);
    memcpy(out + 4, &y, sizeof y);
    memcpy(out + 8, &z, sizeof z);
    memcpy(out + 12, &w, sizeof w);
}

/* slerp on eight channels at once, a channel a lane: slerp4's operations on registers of eight
   (AVX where the CPU has it), the same bits. */
typedef arbor_real arbor__v8 __attribute__((vector_size(8 * sizeof(arbor_real))));
#if ARBOR_REAL_IS_DOUBLE
typedef int64_t arbor__mask8 __attribute__((vector_size(8 * sizeof(int64_t))));
#else
typedef int32_t arbor__mask8 __attribute__((vector_size(8 * sizeof(int32_t))));
#endif
typedef float arbor__f8 __attribute__((vector_size(8 * sizeof(float))));
/* Helpers as macros: a function taking or returning eight-lane vectors changes the ABI where
   the baseline has no AVX (clang warns, -Wpsabi). */
#define SELECT8(m, yes, no) ((arbor__v8)(((arbor__mask8)(yes) & (m)) | ((arbor__mask8)(no) & ~(m))))
#define SQRT8(v)                                                                                          \
    __builtin_shufflevector(arbor__sqrt4(__builtin_shufflevector((v), (v), 0, 1, 2, 3)),                  \
                            arbor__sqrt4(__builtin_shufflevector((v), (v), 4, 5, 6, 7)), 0, 1, 2, 3, 4, 5, 6, 7)
/* A channel's two keyframes, a then b, as arbor_real, into the arbor__v8 `out`. */
#define LOAD_PAIR(out, p)                                                                                 \
    do {                                                                                                 \
        arbor__f8 f_;                                                                                    \
        memcpy(&f_, (p), sizeof f_);                                                                     \
        (out) = __builtin_convertvector(f_, arbor__v8);                                                  \
    } while (0)
/* Transposes within each half of four registers of eight (two 4 x 4 transposes side by side). */
#define TRANSPOSE_HALVES(m0, m1, m2, m3)                                                                  \
    do {                                                                                                 \
        const arbor__v8 t0_ = __builtin_shufflevector(m0, m1, 0, 8, 1, 9, 4, 12, 5, 13);                 \
        const arbor__v8 t1_ = __builtin_shufflevector(m0, m1, 2, 10, 3, 11, 6, 14, 7, 15);               \
        const arbor__v8 t2_ = __builtin_shufflevector(m2, m3, 0, 8, 1, 9, 4, 12, 5, 13);                 \
        const arbor__v8 t3_ = __builtin_shufflevector(m2, m3, 2, 10, 3, 11, 6, 14, 7, 15);               \
        m0 = __builtin_shufflevector(t0_, t2_, 0, 1, 8, 9, 4, 5, 12, 13);                                \
        m1 = __builtin_shufflevector(t0_, t2_, 2, 3, 10, 11, 6, 7, 14, 15);                              \
        m2 = __builtin_shufflevector(t1_, t3_, 0, 1, 8, 9, 4, 5, 12, 13);                                \
        m3 = __builtin_shufflevector(t1_, t3_, 2, 3, 10, 11, 6, 7, 14, 15);                              \
    } while (0)

ARBOR__HOT void slerp8(const float *base, const uint32_t off[8], arbor_real us, arbor_real *out) {
    const float *const a[8] = { base + off[0], base + off[1], base + off[2], base + off[3],
                                base + off[4], base + off[5], base + off[6], base + off[7] };
    const arbor__v8 u = { us, us, us, us, us, us, us, us };
    arbor__v8 p0, p1, p2, p3, p4, p5, p6, p7;
    /* per channel (a | b), then a component a register: ax = (channels 0-3 | 4-7) */
    LOAD_PAIR(p0, a[0]);
    LOAD_PAIR(p1, a[1]);
    LOAD_PAIR(p2, a[2]);
    LOAD_PAIR(p3, a[3]);
    LOAD_PAIR(p4, a[4]);
    LOAD_PAIR(p5, a[5]);
    LOAD_PAIR(p6, a[6]);
    LOAD_PAIR(p7, a[7]);
    TRANSPOSE_HALVES(p0, p1, p2, p3); /* p0: (ax 0-3 | bx 0-3), p1: y, p2: z, p3: w */
    TRANSPOSE_HALVES(p4, p5, p6, p7);
    const arbor__v8 ax = __builtin_shufflevector(p0, p4, 0, 1, 2, 3, 8, 9, 10, 11);
    const arbor__v8 ay = __builtin_shufflevector(p1, p5, 0, 1, 2, 3, 8, 9, 10, 11);
    const arbor__v8 az = __builtin_shufflevector(p2, p6, 0, 1, 2, 3, 8, 9, 10, 11);
    const arbor__v8 aw = __builtin_shufflevector(p3, p7, 0, 1, 2, 3, 8, 9, 10, 11);
    arbor__v8 bx = __builtin_shufflevector(p0, p4, 4, 5, 6, 7, 12, 13, 14, 15);
    arbor__v8 by = __builtin_shufflevector(p1, p5, 4, 5, 6, 7, 12, 13, 14, 15);
    arbor__v8 bz = __builtin_shufflevector(p2, p6, 4, 5, 6, 7, 12, 13, 14, 15);
    arbor__v8 bw = __builtin_shufflevector(p3, p7, 4, 5, 6, 7, 12, 13, 14, 15);
    arbor__v8 d = ax * bx + ay * by + az * bz + aw * bw;
    const arbor__mask8 flip = d < 0; /* b on a's side */
    bx = SELECT8(flip, -bx, bx);
    by = SELECT8(flip, -by, by);
    bz = SELECT8(flip, -bz, bz);
    bw = SELECT8(flip, -bw, bw);
    d = SELECT8(flip, -d, d);
    arbor__v8 wa, wb;
    ARBOR__SLERP_WEIGHTS_LANES(arbor__v8, arbor__mask8, SELECT8, SQRT8, u, d, &wa, &wb);
    arbor__v8 x = wa * ax + wb * bx, y = wa * ay + wb * by, z = wa * az + wb * bz, w = wa * aw + wb * bw;
    const arbor__v8 sum = x * x + y * y + z * z + w * w, zero = {0};
    const arbor__mask8 ok = (sum > zero + (arbor_real)1e-30) & (sum < zero + (arbor_real)1e30);
    int all = 1;
    for (int i = 0; i < 8; i++) all &= ok[i] != 0;
    if (!all) { /* far from unit: normalize4's other path, one by one */
        for (int i = 0; i < 8; i++) slerp(out + 4 * i, a[i], a[i] + 4, us);
        return;
    }
    const arbor__v8 inverse = (zero + 1) / SQRT8(sum);
    x = x * inverse;
    y = y * inverse;
    z = z * inverse;
    w = w * inverse;
    TRANSPOSE_HALVES(x, y, z, w); /* x: (channel 0 | channel 4), y: (1 | 5), z: (2 | 6), w: (3 | 7) */
    const arbor__v4 q0 = __builtin_shufflevector(x, x, 0, 1, 2, 3), q1 = __builtin_shufflevector(y, y, 0, 1, 2, 3);
    const arbor__v4 q2 = __builtin_shufflevector(z, z, 0, 1, 2, 3), q3 = __builtin_shufflevector(w, w, 0, 1, 2, 3);
    const arbor__v4 q4 = __builtin_shufflevector(x, x, 4, 5, 6, 7), q5 = __builtin_shufflevector(y, y, 4, 5, 6, 7);
    const arbor__v4 q6 = __builtin_shufflevector(z, z, 4, 5, 6, 7), q7 = __builtin_shufflevector(w, w, 4, 5, 6, 7);
    memcpy(out, &q0, sizeof q0); /* in channel order */
    memcpy(out + 4, &q1, sizeof q1);
    memcpy(out + 8, &q2, sizeof q2);
    memcpy(out + 12, &q3, sizeof q3);
    memcpy(out + 16, &q4, sizeof q4);
    memcpy(out + 20, &q5, sizeof q5);
    memcpy(out + 24, &q6, sizeof q6);
    memcpy(out + 28, &q7, sizeof q7);
}

#endif

/* A run's channels slerped at fraction u between keyframes k and k + 1, channel e's keyframe k
   at base + off[e]: eight at a time, the rest (2 to 7) through slerp4 or slerp8 with the lanes
   past them repeating the first into a scratch place (lanes do not mix), one alone by slerp;
   the same bits as one at a time. Channel e's rotation goes to out + 4 e. */
ARBOR__HOT void slerp_run(const float *base, const uint32_t *off, uint32_t count, arbor_real u, arbor_real *out) {
    uint32_t e = 0;
#if ARBOR__SIMD
    for (; e + 8 <= count; e += 8) slerp8(base, off + e, u, out + 4 * (size_t)e);
    const uint32_t n = count - e;
    if (n > 1) {
        uint32_t some[8];
        arbor_real scratch[32];
        for (uint32_t i = 0; i < 8; i++) some[i] = off[e + (i < n ? i : 0)];
        if (n <= 4)
            slerp4(base, some, u, scratch);
        else
            slerp8(base, some, u, scratch);
        memcpy(out + 4 * (size_t)e, scratch, 4 * n * sizeof *scratch);
        return;
    }
#endif
    for (; e < count; e++) slerp(out + 4 * (size_t)e, base + off[e], base + off[e] + 4, u);
}

/* Rotation channels by runs: a LINEAR run between two keyframes through slerp_run, the others
   channel by channel. */
ARBOR__DISPATCH static void rotation_runs(const arbor_clip *clip, const arbor__key *keys, const uint32_t *channels,
                                          const uint32_t *offsets, const arbor__rotation_run *runs, uint32_t run_count,
                                          arbor_real *out) {
    for (uint32_t r = 0; r < run_count; r++) {
        const arbor__rotation_run run = runs[r];
        const arbor__key key = keys[run.timeline];
        arbor_real *to = out + 4 * (size_t)run.first;
        if (run.linear && key.u != 0) {
            slerp_run(clip->values + (size_t)key.k * 4, offsets + run.first, run.count, key.u, to);
            continue;
        }
        for (uint32_t e = 0; e < run.count; e++)
            sample_width(clip, &clip->channels[channels[run.first + e]], key, to + 4 * (size_t)e, 4);
    }
}

void arbor__sample_rotations(const arbor_clip *clip, const arbor__key *keys, const uint32_t *channels, const uint32_t *offsets,
                             const arbor__rotation_run *runs, uint32_t run_count, arbor_real *out) {
    rotation_runs(clip, keys, channels, offsets, runs, run_count, out);
}

void arbor__sample_lane(const arbor_clip *clip, const arbor__key *keys, const uint32_t *channels, uint32_t count,
                        int path, arbor_real *out, const uint32_t *at, uint32_t stride) {
    const arbor__channel *all = clip->channels;
    switch (path) {
    case ARBOR_ANIM_WEIGHTS:
        for (uint32_t e = 0; e < count; e++) {
            const arbor__channel *c = &all[channels[e]];
            sample_width(clip, c, keys[c->timeline], out + (size_t)at[e] * stride, c->width);
        }
        break;
    default:
        for (uint32_t e = 0; e < count; e++) {
            const arbor__channel *c = &all[channels[e]];
            sample_width(clip, c, keys[c->timeline], out + (at ? (size_t)at[e] * stride : 3 * (size_t)e), 3);
        }
    }
}

void arbor__channel_first(const arbor_clip *clip, const arbor__channel *c, arbor_real *out) {
    sample_width(clip, c, (arbor__key){ 0, 0, 0 }, out, c->width);
}
