/* SPDX-License-Identifier: MIT */
/* Accessors and the bytes behind them: the layout of elements in a bufferView (alignment,
   stride, length, with 64-bit overflow checks), reading one component (sparse substitution
   included), the checks arbor makes on buffer data (floats finite, min and max exact, sparse
   indices increasing, inverse bind matrices affine, animation times increasing and rotations
   unit; only where the bytes are at hand, as the Khronos validator does), and the animations'
   data decoded for the document. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "anim/anim_gltf.h"
#include "gltf/load_internal.h"


static uint32_t size_of(uint32_t ctype) {
    return ctype == 5125 || ctype == 5126 ? 4 : ctype == 5122 || ctype == 5123 ? 2 : 1;
}

/* Bytes [offset, offset + count * size) of bufferView view, with size-aligned starts; false
   (reported) when not. */
static bool fits(ld *L, const char *ptr, uint32_t view, uint64_t offset, uint64_t count, uint64_t size,
                 uint32_t align) {
    const ld_view *V = &L->views[view];
    if (!V->ok) return true; /* reported with the view */
    if ((offset % align || (V->offset + offset) % align) &&
        !arbor__ld_bad(L, offset % align ? LDI_ACCESSOR_OFFSET_ALIGNMENT : LDI_ACCESSOR_TOTAL_OFFSET_ALIGNMENT, ptr,
                       "byteOffset %llu (%llu in the buffer) is not a multiple of %u", (unsigned long long)offset,
             (unsigned long long)(V->offset + offset), align))
        return false;
    if ((offset > V->length || (size && count > (V->length - offset) / size)) &&
        !BAD(ACCESSOR_TOO_LONG, ptr, "%llu bytes from byteOffset %llu do not fit bufferView %u of %llu bytes",
             size && count > UINT64_MAX / size ? UINT64_MAX : (unsigned long long)(count * size),
             (unsigned long long)offset, view, (unsigned long long)V->length))
        return false;
    return true;
}

bool arbor__ld_accessor_layout(ld *L) {
    for (uint32_t i = 0; i < L->n_accessors; i++) {
        ld_accessor *A = &L->acc[i];
        if (!A->ok) continue;
        if (A->view != LD_NONE && L->views[A->view].ok) {
            const ld_view *V = &L->views[A->view];
            uint64_t stride = V->stride ? V->stride : A->stride, offset = A->offset;
            bool good = true;
            if (V->stride && V->stride < A->elem) {
                good = false;
                if (!BAD(ACCESSOR_SMALL_BYTESTRIDE, AT("/accessors/%u", i), "byteStride %u of bufferView %u is less than an element's %u bytes",
                         V->stride, A->view, A->elem))
                    return false;
            }
            if (offset % A->csize) { /* its own offset, then the sum with the view's: two issues */
                good = false;
                if (!BAD(ACCESSOR_OFFSET_ALIGNMENT, AT("/accessors/%u/byteOffset", i), "byteOffset %llu is not a multiple of %u",
                         (unsigned long long)offset, A->csize))
                    return false;
            }
            if ((V->offset + offset) % A->csize) {
                good = false;
                if (!BAD(ACCESSOR_TOTAL_OFFSET_ALIGNMENT, AT("/accessors/%u", i),
                         "byteOffset %llu is %llu in the buffer, not a multiple of %u", (unsigned long long)offset,
                         (unsigned long long)(V->offset + offset), A->csize))
                    return false;
            }
            /* offset + stride * (count - 1) + elem <= length, without overflow */
            uint64_t room = V->length >= A->elem && offset <= V->length - A->elem ? V->length - A->elem - offset : 0;
            bool too_long = V->length < A->elem || offset > V->length - A->elem || (A->count - 1) > room / stride;
            if (too_long) {
                good = false;
                if (!BAD(ACCESSOR_TOO_LONG, AT(offset > V->length - A->elem ? "/accessors/%u/byteOffset" : "/accessors/%u", i),
                         "%llu elements of %u bytes every %llu from byteOffset %llu do not fit "
                         "bufferView %u of %llu bytes",
                         (unsigned long long)A->count, A->elem, (unsigned long long)stride, (unsigned long long)offset,
                         A->view, (unsigned long long)V->length))
                    return false;
            }
            A->stride = (uint32_t)stride;
            A->bad_layout = !good;
        }
        if (!A->sparse) continue;
        char ib[96], vb[96];
        snprintf(ib, sizeof ib, "/accessors/%u/sparse/indices", i);
        snprintf(vb, sizeof vb, "/accessors/%u/sparse/values", i);
        bool good = true;
        uint32_t isize = size_of(A->sictype);
        if (!fits(L, AT("%s/byteOffset", ib), A->sview_idx, A->soff_idx, A->scount, isize, isize) ||
            !fits(L, AT("%s/byteOffset", vb), A->sview_val, A->soff_val, A->scount, (uint64_t)A->csize * A->ncomp,
                  A->csize))
            return false;
        /* a lenient load reads no sparse values whose place is wrong */
        const ld_view *VI = &L->views[A->sview_idx], *VV = &L->views[A->sview_val];
        uint64_t vsize = (uint64_t)A->csize * A->ncomp;
        if (!VI->ok || !VV->ok || A->soff_idx % isize || A->soff_val % A->csize || A->soff_idx > VI->length ||
            A->scount > (VI->length - A->soff_idx) / isize || A->soff_val > VV->length ||
            A->scount > (VV->length - A->soff_val) / vsize)
            good = false;
        A->sparse = good;
    }
    return true;
}

/* ---- reading --------------------------------------------------------------------------------- */

static const uint8_t *view_bytes(const ld *L, uint32_t view) {
    const ld_view *V = &L->views[view];
    if (V->decoded) return V->decoded;
    const uint8_t *data = V->ok ? L->buffers[V->buffer].data : NULL;
    return data ? data + V->offset : NULL;
}

bool arbor__ld_has_data(const ld *L, const ld_accessor *A) {
    return A->ok && !A->bad_layout && A->view != LD_NONE && view_bytes(L, A->view);
}

static bool sparse_data(const ld *L, const ld_accessor *A) {
    return A->sparse && view_bytes(L, A->sview_idx) && view_bytes(L, A->sview_val);
}

/* Whether the elements are known: bytes at hand, or no bufferView (zeros) with the sparse values
   at hand. An accessor without a bufferView costs nothing until read: its checks and its
   decoding read the sparse values alone, or stop at the first zeros that break a rule. */
static bool readable(const ld *L, const ld_accessor *A) {
    if (A->view != LD_NONE) return arbor__ld_has_data(L, A);
    return A->ok && (!A->sparse || sparse_data(L, A));
}

/* glTF's data is little-endian: values are put together from their bytes, the same on any host
   (compilers make one load of it where the host is little-endian). The one decoder of
   components, for single reads and for the scan over every vertex alike. */
static inline uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline float le_float(const uint8_t *p) {
    uint32_t u = le32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
#define DECODE_5120(p) ((double)(int8_t)(p)[0])
#define DECODE_5121(p) ((double)(p)[0])
#define DECODE_5122(p) ((double)(int16_t)le16(p))
#define DECODE_5123(p) ((double)le16(p))
#define DECODE_5125(p) ((double)le32(p))
#define DECODE_5126(p) ((double)le_float(p))

static double raw(uint32_t ctype, const uint8_t *p) {
    switch (ctype) {
    case 5120: return DECODE_5120(p);
    case 5121: return DECODE_5121(p);
    case 5122: return DECODE_5122(p);
    case 5123: return DECODE_5123(p);
    case 5125: return DECODE_5125(p);
    default: return DECODE_5126(p);
    }
}

static double sparse_index(const ld *L, const ld_accessor *A, uint64_t k) {
    uint32_t size = size_of(A->sictype);
    return raw(A->sictype, view_bytes(L, A->sview_idx) + A->soff_idx + k * size);
}

/* Component c of the k-th sparse value. */
static double sparse_value(const ld *L, const ld_accessor *A, uint64_t k, uint32_t c) {
    return raw(A->ctype, view_bytes(L, A->sview_val) + A->soff_val + (k * A->ncomp + c) * A->csize);
}

double arbor__ld_read(const ld *L, const ld_accessor *A, uint64_t i, uint32_t c) {
    if (sparse_data(L, A)) { /* indices increase (checked first): binary search */
        uint64_t lo = 0, hi = A->scount;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (sparse_index(L, A, mid) < (double)i)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < A->scount && sparse_index(L, A, lo) == (double)i) return sparse_value(L, A, lo, c);
    }
    if (!arbor__ld_has_data(L, A)) return 0;
    uint32_t column = A->rows * A->csize;
    if (A->cols > 1) column = (column + 3) & ~3u;
    return raw(A->ctype,
               view_bytes(L, A->view) + A->offset + i * A->stride + (c / A->rows) * column + (c % A->rows) * A->csize);
}

double arbor__ld_normalize(const ld_accessor *A, double v) {
    if (!A->normalized) return v;
    switch (A->ctype) {
    case 5120: return v / 127.0 < -1.0 ? -1.0 : v / 127.0;
    case 5121: return v / 255.0;
    case 5122: return v / 32767.0 < -1.0 ? -1.0 : v / 32767.0;
    case 5123: return v / 65535.0;
    default: return v;
    }
}

/* ---- checks on data -------------------------------------------------------------------------- */

static bool sparse_indices(ld *L, uint32_t i, ld_accessor *A) {
    if (!sparse_data(L, A)) return true;
    for (uint64_t k = 0; k < A->scount; k++) {
        double index = sparse_index(L, A, k);
        if (index >= (double)A->count || (k && index <= sparse_index(L, A, k - 1))) {
            A->sparse = false; /* lenient: the base values stay */
            return arbor__ld_bad(L, index >= (double)A->count ? LDI_ACCESSOR_SPARSE_INDEX_OOB : LDI_ACCESSOR_SPARSE_INDICES_NON_INCREASING,
                                 AT("/accessors/%u/sparse", i), "sparse index %g (at %llu) is out of range or not increasing",
                       index, (unsigned long long)k);
        }
    }
    return true;
}

/* The smallest and largest value of each component of plain (not sparse) data, typed once per
   accessor rather than per value: the generic reader costs some twenty times more, and this
   pass reads every vertex of the file. Returns the first element holding a NaN or infinity, or
   count when there is none. */
#define SCAN_PLAIN(decode)                                                                       \
    for (e = 0; e < A->count; e++) {                                                             \
        const uint8_t *p = base + e * A->stride;                                                 \
        for (uint32_t c = 0; c < A->ncomp; c++) {                                                \
            double v = decode(p + at[c]);                                                        \
            if (v - v != 0) return e;                                                            \
            if (v < lo[c]) lo[c] = v;                                                            \
            if (v > hi[c]) hi[c] = v;                                                            \
        }                                                                                        \
    }                                                                                            \
    break;
static uint64_t scan_plain(const ld *L, const ld_accessor *A, double lo[16], double hi[16]) {
    const uint8_t *base = view_bytes(L, A->view) + A->offset;
    uint32_t column = A->rows * A->csize, at[16];
    if (A->cols > 1) column = (column + 3) & ~3u;
    for (uint32_t c = 0; c < A->ncomp; c++) at[c] = (c / A->rows) * column + (c % A->rows) * A->csize;
    uint64_t e = 0;
    switch (A->ctype) {
    case 5120: SCAN_PLAIN(DECODE_5120)
    case 5121: SCAN_PLAIN(DECODE_5121)
    case 5122: SCAN_PLAIN(DECODE_5122)
    case 5123: SCAN_PLAIN(DECODE_5123)
    case 5125: SCAN_PLAIN(DECODE_5125)
    default: SCAN_PLAIN(DECODE_5126)
    }
    return A->count;
}
#undef SCAN_PLAIN

/* Floats finite; declared min and max equal to the data's (floats compared as floats). Without
   a bufferView and sparse values, min and max may have any values (the spec: data supplied by
   other means). */
static bool elements(ld *L, uint32_t i, const ld_accessor *A) {
    if (!readable(L, A) || (A->view == LD_NONE && !A->sparse) || (A->ctype != 5126 && !A->has_min && !A->has_max))
        return true;
    double lo[16], hi[16];
    for (uint32_t c = 0; c < A->ncomp; c++) lo[c] = INFINITY, hi[c] = -INFINITY;
    if (A->view == LD_NONE) { /* zeros but for the sparse values (indices distinct, checked first) */
        uint64_t n = A->sparse ? A->scount : 0;
        for (uint64_t k = 0; k < n; k++)
            for (uint32_t c = 0; c < A->ncomp; c++) {
                double v = sparse_value(L, A, k, c);
                if (!isfinite(v))
                    return BAD(ACCESSOR_INVALID_FLOAT, AT("/accessors/%u", i), "element %g holds %g", sparse_index(L, A, k), v);
                lo[c] = v < lo[c] ? v : lo[c];
                hi[c] = v > hi[c] ? v : hi[c];
            }
        for (uint32_t c = 0; A->count > n && c < A->ncomp; c++) {
            lo[c] = lo[c] < 0 ? lo[c] : 0;
            hi[c] = hi[c] > 0 ? hi[c] : 0;
        }
    } else if (!sparse_data(L, A)) {
        uint64_t bad = scan_plain(L, A, lo, hi);
        if (bad < A->count) return BAD(ACCESSOR_INVALID_FLOAT, AT("/accessors/%u", i), "element %llu holds a NaN or infinity", (unsigned long long)bad);
    } else {
        for (uint64_t e = 0; e < A->count; e++)
            for (uint32_t c = 0; c < A->ncomp; c++) {
                double v = arbor__ld_read(L, A, e, c);
                if (!isfinite(v)) return BAD(ACCESSOR_INVALID_FLOAT, AT("/accessors/%u", i), "element %llu holds %g", (unsigned long long)e, v);
                if (v < lo[c]) lo[c] = v;
                if (v > hi[c]) hi[c] = v;
            }
    }
    for (uint32_t c = 0; c < A->ncomp; c++) {
        double min = A->ctype == 5126 ? (double)(float)A->min[c] : A->min[c];
        double max = A->ctype == 5126 ? (double)(float)A->max[c] : A->max[c];
        /* as the Khronos validator: a mismatch, and one more issue when elements lie outside */
        if (A->has_min && min != lo[c] &&
            (!BAD(ACCESSOR_MIN_MISMATCH, AT("/accessors/%u/min/%u", i, c), "min is %.9g but the smallest value is %.9g",
                  A->min[c], lo[c]) ||
             (min > lo[c] && !BAD(ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND, AT("/accessors/%u/min/%u", i, c),
                                  "elements are less than min %.9g", A->min[c]))))
            return false;
        if (A->has_max && max != hi[c] &&
            (!BAD(ACCESSOR_MAX_MISMATCH, AT("/accessors/%u/max/%u", i, c), "max is %.9g but the largest value is %.9g",
                  A->max[c], hi[c]) ||
             (max < hi[c] && !BAD(ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND, AT("/accessors/%u/max/%u", i, c),
                                  "elements are greater than max %.9g", A->max[c]))))
            return false;
    }
    return true;
}

static bool ibm_rows(ld *L, uint32_t k, ld_skin *K, bool zeros) {
    const ld_accessor *A = K->ibm != LD_NONE ? &L->acc[K->ibm] : NULL;
    if (!A || !readable(L, A) || (A->view == LD_NONE) != zeros) return true;
    for (uint64_t e = 0; e < A->count; e++) /* zeros fail at once: bounded by the data */
        if (arbor__ld_read(L, A, e, 3) != 0 || arbor__ld_read(L, A, e, 7) != 0 || arbor__ld_read(L, A, e, 11) != 0 ||
            arbor__ld_read(L, A, e, 15) != 1) {
            K->ibm = LD_NONE; /* lenient: identity */
            return BAD(ACCESSOR_INVALID_IBM, AT("/skins/%u/inverseBindMatrices", k), "matrix %llu's last row is not 0, 0, 0, 1",
                       (unsigned long long)e);
        }
    return true;
}

static bool animation_data(ld *L, const ld_anim_check *C, bool zeros) {
    const ld_accessor *A = &L->acc[C->accessor];
    if (!readable(L, A) || (A->view == LD_NONE) != zeros) return true; /* zeros: times fail at the second, rotations at the first */
    if (C->kind == LD_TIMES) {
        /* the first negative time and the first that does not increase: two issues, as the Khronos
           validator's; the scan ends at the second */
        bool negative = false;
        for (uint64_t e = 0; e < A->count; e++) {
            double t = arbor__ld_read(L, A, e, 0), prev = e ? arbor__ld_read(L, A, e - 1, 0) : -1;
            if (t >= 0 && (!e || t > prev)) continue;
            L->samplers[C->sampler].ok = false; /* lenient: its channels are left out */
            const char *ptr = AT("/animations/%u/samplers/%u/input", C->anim, C->index);
            if (t < 0 && !negative) {
                negative = true;
                if (!BAD(ACCESSOR_ANIMATION_INPUT_NEGATIVE, ptr, "keyframe %llu at time %g is negative", (unsigned long long)e, t))
                    return false;
            }
            if (e && t <= prev)
                return BAD(ACCESSOR_ANIMATION_INPUT_NON_INCREASING, ptr, "keyframe %llu at time %g is not after the one before",
                           (unsigned long long)e, t);
        }
        return true;
    }
    for (uint64_t e = C->kind == LD_CUBIC_ROTATIONS ? 1 : 0; e < A->count; e += C->kind == LD_CUBIC_ROTATIONS ? 3 : 1) {
        double len = 0;
        for (uint32_t c = 0; c < 4; c++) {
            double v = arbor__ld_normalize(A, arbor__ld_read(L, A, e, c));
            len += v * v;
        }
        len = sqrt(len);
        if (fabs(len - 1) > LD_UNIT_TOLERANCE)
            return BAD(ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION, AT("/animations/%u/channels/%u/sampler", C->anim, C->index),
                       "the rotation of element %llu has length %g, not 1", (unsigned long long)e, len);
    }
    return true;
}

bool arbor__ld_data(ld *L) {
    for (uint32_t i = 0; i < L->n_accessors; i++)
        if (L->acc[i].ok && !sparse_indices(L, i, &L->acc[i])) return false;
    for (uint32_t i = 0; i < L->n_accessors; i++)
        if (L->acc[i].ok && !elements(L, i, &L->acc[i])) return false;
    /* accessors with bytes, then those without a bufferView (zeros), which the Khronos validator
       does not read: a file's first error is one it reports too, where it has one */
    for (int zeros = 0; zeros < 2; zeros++) {
        for (uint32_t k = 0; k < L->n_skins; k++)
            if (!ibm_rows(L, k, &L->skins[k], zeros)) return false;
        for (uint32_t k = 0; k < L->n_anim_checks; k++)
            if (!animation_data(L, &L->anim_checks[k], zeros)) return false;
    }
    return true;
}

/* ---- animations for the document ------------------------------------------------------------- */

/* Why a decoded channel cannot be used (NULL when it can): what arbor_clip_create would refuse
   (times that do not increase, a rotation of length zero, values out of range). */
static const char *unusable(const ld *L, const ld_channel *C, const float *data, const size_t *times,
                            const size_t *values) {
    const ld_sampler *S = &L->samplers[C->sampler];
    const ld_accessor *in = &L->acc[S->input], *out = &L->acc[S->output];
    uint64_t per = in->count * (S->interpolation == ARBOR_INTERPOLATION_CUBICSPLINE ? 3u : 1u);
    arbor_channel_desc desc = { .path = (arbor_anim_path)C->path,
                                .interpolation = (arbor_interpolation)S->interpolation,
                                .key_count = (uint32_t)in->count,
                                .times = data + times[S->input],
                                .values = data + values[C->sampler],
                                .width = C->path == ARBOR_ANIM_WEIGHTS ? (uint32_t)(out->count * out->ncomp / per) : 0 };
    if (in->count > UINT32_MAX / 4) return "too many keyframes";
    if (!arbor__clip_check_channel(&desc, 0, 0)) return NULL;
    const char *why = strstr(arbor_last_error(), "channel 0: "); /* "arbor_clip_create: channel 0: ..." */
    return why ? why + 11 : arbor_last_error();
}

bool arbor__ld_decode_animations(ld *L, arbor_gltf *doc) {
    uint32_t usable = 0;
    size_t floats = 0;
    /* where each input accessor's times and each sampler's values go in anim_data */
    size_t *times = arbor__ld_calloc(L, L->n_accessors, sizeof *times);
    size_t *values = arbor__ld_calloc(L, L->n_samplers, sizeof *values);
    bool *use = arbor__ld_calloc(L, L->n_channels, sizeof *use);
    bool ok = times && values && use;
    for (uint32_t i = 0; ok && i < L->n_accessors; i++) times[i] = SIZE_MAX;
    for (uint32_t i = 0; ok && i < L->n_samplers; i++) values[i] = SIZE_MAX;
    for (uint32_t a = 0; ok && a < L->n_animations; a++)
        for (uint32_t c = 0; c < L->animations[a].nchannels; c++) {
            uint32_t i = L->animations[a].channel0 + c;
            const ld_channel *C = &L->channels[i];
            const ld_sampler *S = C->ok ? &L->samplers[C->sampler] : NULL;
            if (!S || !S->ok || S->interpolation < 0) continue;
            if (!readable(L, &L->acc[S->input]) || !readable(L, &L->acc[S->output])) {
                arbor__log(L->s, ARBOR_LOG_WARN, "%s: /animations/%u/channels/%u: its data is not in the file: left out",
                           L->file, a, c);
                continue;
            }
            use[i] = true;
            if (times[S->input] == SIZE_MAX) times[S->input] = floats, floats += L->acc[S->input].count;
            const ld_accessor *out = &L->acc[S->output];
            if (values[C->sampler] == SIZE_MAX) values[C->sampler] = floats, floats += out->count * out->ncomp;
        }
    if (ok && floats && !(doc->anim_data = arbor__ld_calloc(L, floats, sizeof *doc->anim_data))) ok = false;
    if (ok) doc->anim_floats = floats;
    for (uint32_t i = 0; ok && i < L->n_accessors; i++) /* decode */
        for (uint64_t k = 0; times[i] != SIZE_MAX && k < L->acc[i].count; k++)
            doc->anim_data[times[i] + k] = (float)arbor__ld_read(L, &L->acc[i], k, 0);
    for (uint32_t i = 0; ok && i < L->n_samplers; i++) {
        const ld_accessor *A = &L->acc[L->samplers[i].output];
        for (uint64_t e = 0; values[i] != SIZE_MAX && e < A->count; e++)
            for (uint32_t c = 0; c < A->ncomp; c++)
                doc->anim_data[values[i] + e * A->ncomp + c] = (float)arbor__ld_normalize(A, arbor__ld_read(L, A, e, c));
    }
    for (uint32_t a = 0; ok && a < L->n_animations; a++)
        for (uint32_t c = 0; c < L->animations[a].nchannels; c++) {
            uint32_t i = L->animations[a].channel0 + c;
            const char *why = use[i] ? unusable(L, &L->channels[i], doc->anim_data, times, values) : NULL;
            if (why) {
                arbor__log(L->s, ARBOR_LOG_WARN, "%s: /animations/%u/channels/%u: %s: left out", L->file, a, c, why);
                use[i] = false;
            }
            usable += use[i];
        }
    /* each count set as its array is made, so that arbor_gltf_destroy frees what there is */
    if (ok && (ok = (doc->animations = arbor__ld_calloc(L, L->n_animations, sizeof *doc->animations)) != NULL))
        doc->animation_count = L->n_animations;
    if (ok && (ok = (doc->anim_samplers = arbor__ld_calloc(L, L->n_samplers, sizeof *doc->anim_samplers)) != NULL))
        doc->anim_sampler_count = L->n_samplers;
    if (ok && (ok = (doc->anim_channels = arbor__ld_calloc(L, usable, sizeof *doc->anim_channels)) != NULL))
        doc->anim_channel_count = usable;
    uint32_t kept = 0;
    for (uint32_t i = 0; ok && i < L->n_samplers; i++) {
        const ld_sampler *S = &L->samplers[i];
        if (values[i] == SIZE_MAX) continue;
        const ld_accessor *in = &L->acc[S->input], *out = &L->acc[S->output];
        uint64_t per = in->count * (S->interpolation == ARBOR_INTERPOLATION_CUBICSPLINE ? 3u : 1u);
        doc->anim_samplers[i] = (arbor__gltf_sampler){ .interpolation = S->interpolation,
                                                       .keys = (uint32_t)in->count,
                                                       .width = (uint32_t)(out->count * out->ncomp / per),
                                                       .times = times[S->input],
                                                       .values = values[i] };
    }
    for (uint32_t a = 0; ok && a < L->n_animations; a++) {
        arbor__gltf_animation *D = &doc->animations[a];
        D->channel0 = kept;
        D->duration = L->animations[a].duration;
        for (uint32_t c = 0; c < L->animations[a].nchannels; c++) {
            const ld_channel *C = &L->channels[L->animations[a].channel0 + c];
            if (!use[L->animations[a].channel0 + c]) continue;
            doc->anim_channels[kept++] =
                (arbor__gltf_channel){ .node = C->node, .sampler = C->sampler, .path = C->path, .pointer = C->pointer };
        }
        D->channel_count = kept - D->channel0;
    }
    arbor__ld_free(L, times, L->n_accessors, sizeof *times);
    arbor__ld_free(L, values, L->n_samplers, sizeof *values);
    arbor__ld_free(L, use, L->n_channels, sizeof *use);
    return ok;
}
