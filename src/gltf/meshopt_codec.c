/* SPDX-License-Identifier: MIT */
/* What KHR_meshopt_compression adds to EXT_meshopt_compression's codec, decoded as the
   extension's specification (its Appendix A and B) describes it: attribute streams of version 1
   (header 0xa1: control modes per byte, channel modes per 4 bytes) and the COLOR filter. The
   version 0 stream is decoded here too (it is version 1 without control and channel modes), so
   that tests can hold this decoder against libmeshoptimizer's; loads decode version 0 with the
   library. Every read is bounds-checked: a stream that ends early, leaves bytes unread or uses a
   mode the specification forbids is refused. */
#include <math.h>
#include <string.h>

#include "gltf/meshopt_codec.h"

static uint8_t unzigzag8(uint8_t v) { return (uint8_t)((v & 1) ? ~(v >> 1) : (v >> 1)); }
static uint16_t unzigzag16(uint16_t v) { return (uint16_t)((v & 1) ? ~(v >> 1) : (v >> 1)); }
static uint32_t rotate(uint32_t v, unsigned r) { return (v << r) | (v >> ((32 - r) & 31)); }

/* 16 deltas of one group, packed `bits` to a delta (1, 2 or 4) with sentinels, from *p (before
   end); false when the bytes run out. */
static bool sentinel_group(const uint8_t **p, const uint8_t *end, unsigned bits, uint8_t out[16]) {
    size_t packed = 16 * bits / 8;
    if ((size_t)(end - *p) < packed) return false;
    const uint8_t *bytes = *p, *extra = *p + packed;
    unsigned sentinel = (1u << bits) - 1;
    for (unsigned i = 0; i < 16; i++) {
        unsigned v;
        if (bits == 1)
            v = (bytes[i / 8] >> (i % 8)) & 1; /* least significant bit first */
        else if (bits == 2)
            v = (bytes[i / 4] >> (6 - 2 * (i % 4))) & 3; /* most significant first */
        else
            v = (bytes[i / 2] >> (4 - 4 * (i % 2))) & 15;
        if (v == sentinel) {
            if (extra >= end) return false;
            v = *extra++;
        }
        out[i] = (uint8_t)v;
    }
    *p = extra;
    return true;
}

/* The deltas of one byte position of a block of n elements: groups * 16 of them into out (the
   ones past n are padding). */
static bool byte_deltas(const uint8_t **p, const uint8_t *end, int version, unsigned control, size_t n,
                        size_t groups, uint8_t *out) {
    static const unsigned v0_bits[4] = {0, 2, 4, 8}, c0_bits[4] = {0, 1, 2, 4}, c1_bits[4] = {1, 2, 4, 8};
    if (version == 1 && control == 2) { /* all zero */
        memset(out, 0, groups * 16);
        return true;
    }
    if (version == 1 && control == 3) { /* literal: one byte per element, no padding */
        if ((size_t)(end - *p) < n) return false;
        memcpy(out, *p, n);
        *p += n;
        return true;
    }
    const unsigned *bits = version == 0 ? v0_bits : control == 0 ? c0_bits : c1_bits;
    size_t header = (groups + 3) / 4;
    if ((size_t)(end - *p) < header) return false;
    const uint8_t *modes = *p;
    *p += header;
    for (size_t g = 0; g < groups; g++) {
        unsigned b = bits[(modes[g / 4] >> (2 * (g % 4))) & 3];
        uint8_t *group = out + g * 16;
        if (b == 0) {
            memset(group, 0, 16);
        } else if (b == 8) {
            if ((size_t)(end - *p) < 16) return false;
            memcpy(group, *p, 16);
            *p += 16;
        } else if (!sentinel_group(p, end, b, group)) {
            return false;
        }
    }
    return true;
}

int arbor__meshopt_decode_attributes(uint8_t *dst, size_t count, size_t stride, const uint8_t *src, size_t size) {
    if (stride == 0 || stride > 256 || stride % 4) return ARBOR_MESHOPT_BAD_LAYOUT;
    if (size < 1 || (src[0] != 0xa0 && src[0] != 0xa1)) return ARBOR_MESHOPT_BAD_HEADER;
    int version = src[0] & 15;
    size_t channels_n = stride / 4, tail = stride + (version ? channels_n : 0);
    size_t padded = tail < (version ? 24u : 32u) ? (version ? 24u : 32u) : tail;
    if (size < 1 + padded) return ARBOR_MESHOPT_TRUNCATED;
    const uint8_t *p = src + 1, *end = src + size - padded;
    const uint8_t *channels = version ? src + size - tail + stride : NULL;
    uint8_t last[256];
    memcpy(last, src + size - tail, stride);
    for (size_t c = 0; c < channels_n && channels; c++) {
        unsigned mode = channels[c] & 15;
        if (mode > 2 || (mode < 2 && channels[c] >> 4)) return ARBOR_MESHOPT_BAD_MODE;
    }
    size_t max_block = (8192 / stride) & ~(size_t)15;
    if (max_block > 256) max_block = 256;
    uint8_t deltas[8192]; /* byte position major: deltas[k * groups * 16 + i] */
    for (size_t done = 0; done < count;) {
        size_t n = count - done < max_block ? count - done : max_block, groups = (n + 15) / 16;
        const uint8_t *control = NULL;
        if (version) {
            if ((size_t)(end - p) < channels_n) return ARBOR_MESHOPT_TRUNCATED;
            control = p;
            p += channels_n;
        }
        for (size_t k = 0; k < stride; k++) {
            unsigned ctl = control ? (control[k / 4] >> (2 * (k % 4))) & 3 : 0;
            if (!byte_deltas(&p, end, version, ctl, n, groups, deltas + k * groups * 16)) return ARBOR_MESHOPT_TRUNCATED;
        }
        for (size_t i = 0; i < n; i++) {
            uint8_t *out = dst + (done + i) * stride;
            for (size_t c = 0; c < channels_n; c++) {
                unsigned mode = channels ? channels[c] & 15 : 0;
                const uint8_t *d0 = deltas + (4 * c) * groups * 16 + i;
                size_t at = 4 * c, step = groups * 16;
                if (mode == 0) {
                    for (size_t b = 0; b < 4; b++) last[at + b] = (uint8_t)(last[at + b] + unzigzag8(d0[b * step]));
                } else if (mode == 1) {
                    for (size_t h = 0; h < 4; h += 2) {
                        uint16_t prev = (uint16_t)(last[at + h] | last[at + h + 1] << 8);
                        uint16_t v = (uint16_t)(d0[h * step] | d0[(h + 1) * step] << 8);
                        uint16_t cur = (uint16_t)(prev + unzigzag16(v));
                        last[at + h] = (uint8_t)cur;
                        last[at + h + 1] = (uint8_t)(cur >> 8);
                    }
                } else {
                    uint32_t prev = (uint32_t)last[at] | (uint32_t)last[at + 1] << 8 | (uint32_t)last[at + 2] << 16 |
                                    (uint32_t)last[at + 3] << 24;
                    uint32_t v = (uint32_t)d0[0] | (uint32_t)d0[step] << 8 | (uint32_t)d0[2 * step] << 16 |
                                 (uint32_t)d0[3 * step] << 24;
                    uint32_t cur = prev ^ rotate(v, (32 - (channels[c] >> 4)) & 31);
                    for (size_t b = 0; b < 4; b++) last[at + b] = (uint8_t)(cur >> (8 * b));
                }
            }
            memcpy(out, last, stride);
        }
        done += n;
    }
    return p == end ? 0 : ARBOR_MESHOPT_LEFT_OVER;
}

/* The most significant set bit of v (v > 0). */
static int top_bit(unsigned v) {
    int b = -1;
    while (v) v >>= 1, b++;
    return b;
}

/* x rounded half away from zero and clamped to [0, max] (a stream breaking the encoder's promise
   of no overflow gets clamped values, not undefined behaviour). */
static unsigned to_unorm(float x, unsigned max) {
    if (!(x > 0)) return 0;
    float r = roundf(x);
    return r >= (float)max ? max : (unsigned)r;
}

void arbor__meshopt_color_filter(uint8_t *data, size_t count, size_t stride) {
    bool wide = stride == 8;
    unsigned max = wide ? 65535u : 255u;
    for (size_t e = 0; e < count; e++) {
        uint8_t *p = data + e * stride;
        int32_t in[4];
        for (int c = 0; c < 4; c++) {
            uint32_t u = wide ? (uint32_t)(p[2 * c] | p[2 * c + 1] << 8) : p[c];
            bool is_signed = c == 1 || c == 2; /* Co, Cg */
            in[c] = !is_signed ? (int32_t)u : wide ? (int32_t)(int16_t)u : (int32_t)(int8_t)u;
        }
        unsigned out[4] = {0, 0, 0, 0};
        if (in[3] > 0) {
            int32_t as = (int32_t)((1u << (top_bit((unsigned)in[3]) + 1)) - 1);
            int32_t y = in[0], co = in[1], cg = in[2];
            int32_t rgb[3] = {y + co - cg, y + cg, y - co - cg};
            int32_t a = in[3] & (as >> 1);
            a = (a << 1) | (a & 1);
            float ss = (float)max / (float)as;
            for (int c = 0; c < 3; c++) out[c] = to_unorm((float)rgb[c] * ss, max);
            out[3] = to_unorm((float)a * ss, max);
        }
        for (int c = 0; c < 4; c++) {
            if (wide) {
                p[2 * c] = (uint8_t)out[c];
                p[2 * c + 1] = (uint8_t)(out[c] >> 8);
            } else {
                p[c] = (uint8_t)out[c];
            }
        }
    }
}
