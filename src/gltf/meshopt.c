/* SPDX-License-Identifier: MIT */
/* EXT_meshopt_compression and KHR_meshopt_compression: every bufferView that carries one is
   checked (the extension object's properties, the combinations of mode, filter, byteStride and
   count the specifications allow, the compressed range inside its buffer, fallback buffers used
   only as the specifications say) and decoded into bytes of its own, which data.c then reads
   instead of the view's buffer (a fallback buffer has no bytes). Libmeshoptimizer decodes the
   codec both extensions share; meshopt_codec.c decodes what only KHR_meshopt_compression has
   (attribute streams of version 1, the COLOR filter). The document keeps the file's bytes as
   they were: a save writes the compressed data unchanged. */
#include <meshoptimizer.h>
#include <stdio.h>
#include <string.h>

#include "gltf/load_internal.h"
#include "gltf/meshopt_codec.h"

static const char *const names[2] = {"EXT_meshopt_compression", "KHR_meshopt_compression"};
enum { MODE_ATTRIBUTES, MODE_TRIANGLES, MODE_INDICES };
enum { FILTER_NONE, FILTER_OCTAHEDRAL, FILTER_QUATERNION, FILTER_EXPONENTIAL, FILTER_COLOR };

/* The extension's object of a view or buffer, and which of the two it is (-1: none). */
static json_t *meshopt_of(json_t *o, int *which) {
    json_t *exts = json_object_get(o, "extensions");
    *which = -1;
    for (int k = 0; k < 2; k++)
        if (json_object_get(exts, names[k])) *which = k;
    return *which < 0 ? NULL : json_object_get(exts, names[*which]);
}

static int lookup(const char *s, const char *const *list, int n) {
    for (int i = 0; i < n; i++)
        if (!strcmp(s, list[i])) return i;
    return -1;
}

/* Why a decoder's code refused the stream. */
static const char *why_not(int code) {
    switch (code) {
    case ARBOR_MESHOPT_BAD_HEADER: return "its header byte is not one this extension allows";
    case ARBOR_MESHOPT_TRUNCATED: return "it ends before its elements do";
    case ARBOR_MESHOPT_LEFT_OVER: return "bytes are left between its last element and its tail";
    case ARBOR_MESHOPT_BAD_MODE: return "a channel mode in its tail is not 0, 1 or 2";
    default: return "it is not a stream of this mode";
    }
}

/* Decodes the compressed bytes into dst; 0 or an ARBOR_MESHOPT_* code. */
static int decode(int which, int mode, int filter, uint8_t *dst, size_t count, size_t stride, const uint8_t *src,
                  size_t size) {
    int r;
    if (mode == MODE_ATTRIBUTES) {
        if (size < 1 || (src[0] != 0xa0 && !(which == 1 && src[0] == 0xa1))) return ARBOR_MESHOPT_BAD_HEADER;
        if (src[0] == 0xa1)
            r = arbor__meshopt_decode_attributes(dst, count, stride, src, size);
        else
            r = meshopt_decodeVertexBuffer(dst, count, stride, src, size) == 0 ? 0 : ARBOR_MESHOPT_TRUNCATED;
        if (r) return r;
        switch (filter) {
        case FILTER_OCTAHEDRAL: meshopt_decodeFilterOct(dst, count, stride); break;
        case FILTER_QUATERNION: meshopt_decodeFilterQuat(dst, count, stride); break;
        case FILTER_EXPONENTIAL: meshopt_decodeFilterExp(dst, count, stride); break;
        case FILTER_COLOR: arbor__meshopt_color_filter(dst, count, stride); break;
        default: break;
        }
        return 0;
    }
    if (size < 1 || src[0] != (mode == MODE_TRIANGLES ? 0xe1 : 0xd1)) return ARBOR_MESHOPT_BAD_HEADER;
    r = mode == MODE_TRIANGLES ? meshopt_decodeIndexBuffer(dst, count, stride, src, size)
                               : meshopt_decodeIndexSequence(dst, count, stride, src, size);
    return r == 0 ? 0 : r == -3 ? ARBOR_MESHOPT_LEFT_OVER : ARBOR_MESHOPT_TRUNCATED;
}

/* One view's extension: checked, then decoded when its compressed bytes are at hand. */
static bool view(ld *L, uint32_t i, json_t *ext, int which, const bool *fallback) {
    ld_view *V = &L->views[i];
    char base[96];
    snprintf(base, sizeof base, "/bufferViews/%u/extensions/%s", i, names[which]);
    if (!json_is_object(ext)) return true; /* reported by ext.c */
    static const char *const modes[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
    static const char *const filters[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL", "COLOR"};
    uint32_t buffer = 0;
    uint64_t offset = 0, length = 0, stride = 0, count = 0;
    const char *mode_name = NULL, *filter_name = "NONE";
    ld_got gb = arbor__ld_index(L, ext, base, "buffer", L->n_buffers, "buffer", &buffer);
    ld_got go = arbor__ld_uint(L, ext, base, "byteOffset", &offset);
    ld_got gl = arbor__ld_uint(L, ext, base, "byteLength", &length);
    ld_got gs = arbor__ld_uint(L, ext, base, "byteStride", &stride);
    ld_got gc = arbor__ld_uint(L, ext, base, "count", &count);
    ld_got gm = arbor__ld_string(L, ext, base, "mode", &mode_name);
    ld_got gf = arbor__ld_string(L, ext, base, "filter", &filter_name);
    if (!arbor__ld_required(L, gb, base, "buffer") || go == LD_STOP || !arbor__ld_required(L, gl, base, "byteLength") ||
        !arbor__ld_required(L, gs, base, "byteStride") || !arbor__ld_required(L, gc, base, "count") ||
        !arbor__ld_required(L, gm, base, "mode") || gf == LD_STOP)
        return false;
    if (gb != LD_GOT || go == LD_BAD || gl != LD_GOT || gs != LD_GOT || gc != LD_GOT || gm != LD_GOT || gf == LD_BAD)
        return true; /* lenient: not decoded */
    int mode = lookup(mode_name, modes, 3), filter = lookup(filter_name, filters, which == 1 ? 5 : 4);
    if (mode < 0) return BAD(VALUE_NOT_IN_RANGE, AT("%s/mode", base), "mode \"%s\" is not ATTRIBUTES, TRIANGLES or INDICES", mode_name);
    if (filter < 0)
        return BAD(VALUE_NOT_IN_RANGE, AT("%s/filter", base), "filter \"%s\" is not one of %s's", filter_name, names[which]);
    /* the combinations the specifications allow */
    const char *why = NULL;
    if (mode == MODE_ATTRIBUTES && (stride < 4 || stride > 256 || stride % 4))
        why = "byteStride must be a multiple of 4 from 4 to 256 for ATTRIBUTES";
    else if (mode != MODE_ATTRIBUTES && stride != 2 && stride != 4)
        why = "byteStride must be 2 or 4 for TRIANGLES and INDICES";
    else if (mode == MODE_TRIANGLES && count % 3)
        why = "count must be a multiple of 3 for TRIANGLES";
    else if (mode != MODE_ATTRIBUTES && filter != FILTER_NONE)
        why = "TRIANGLES and INDICES take no filter";
    else if ((filter == FILTER_OCTAHEDRAL || filter == FILTER_COLOR) && stride != 4 && stride != 8)
        why = "byteStride must be 4 or 8 for this filter";
    else if (filter == FILTER_QUATERNION && stride != 8)
        why = "byteStride must be 8 for QUATERNION";
    if (why) return BAD(VALUE_NOT_IN_RANGE, AT("%s/byteStride", base), "%s (byteStride %llu, count %llu, mode %s, filter %s)", why,
                        (unsigned long long)stride, (unsigned long long)count, mode_name, filter_name);
    if (V->ok && (count == 0 || count > V->length / stride || count * stride != V->length))
        return BAD(VALUE_NOT_IN_RANGE, AT("%s/count", base), "%llu elements of %llu bytes are not bufferView %u's byteLength %llu",
                   (unsigned long long)count, (unsigned long long)stride, i, (unsigned long long)V->length);
    size_t size = L->buffers[buffer].size;
    if (length == 0 || offset > size || length > size - offset)
        return BAD(BUFFER_VIEW_TOO_LONG, AT("%s/byteLength", base), "compressed bytes %llu to %llu do not fit buffer %u of %zu bytes",
                   (unsigned long long)offset, (unsigned long long)(offset + length), buffer, size);
    if (fallback[buffer])
        return BAD(UNSATISFIED_DEPENDENCY, AT("%s/buffer", base), "buffer %u is a fallback buffer: it holds no compressed data", buffer);
    const uint8_t *src = L->buffers[buffer].data;
    if (!V->ok || !src) return true; /* no bytes: nothing to decode (as for any buffer without data) */
    /* what the shortest stream of count elements takes (an attribute block of up to 8192 bytes
       costs a byte at least, a triangle or an index one too): a file cannot claim gigabytes of
       decoded data in a few bytes */
    uint64_t block = (8192 / stride) & ~(uint64_t)15;
    if (block > 256) block = 256;
    uint64_t least = mode == MODE_ATTRIBUTES ? (count + block - 1) / block : mode == MODE_TRIANGLES ? count / 3 : count;
    if (length < 1 + least)
        return BAD(IO_ERROR, base, "%llu bytes cannot hold a %s stream of %llu elements of %llu bytes", (unsigned long long)length,
                   mode_name, (unsigned long long)count, (unsigned long long)stride);
    uint8_t *dst = arbor__ld_calloc(L, (size_t)V->length, 1);
    if (!dst) return false;
    int r = decode(which, mode, filter, dst, (size_t)count, (size_t)stride, src + offset, (size_t)length);
    if (r) {
        arbor__ld_free(L, dst, (size_t)V->length, 1);
        return BAD(IO_ERROR, base, "the %s stream of %llu bytes does not decode to %llu elements of %llu bytes: %s", mode_name,
                   (unsigned long long)length, (unsigned long long)count, (unsigned long long)stride, why_not(r));
    }
    V->decoded = dst;
    return true;
}

static bool required(const ld *L, const char *name) {
    for (size_t k = 0; k < json_array_size(L->required); k++) {
        const char *s = json_string_value(json_array_get(L->required, k));
        if (s && !strcmp(s, name)) return true;
    }
    return false;
}

bool arbor__ld_meshopt(ld *L) {
    bool *fallback = arbor__ld_calloc(L, L->n_buffers, sizeof *fallback);
    if (!fallback) return false;
    bool ok = true;
    for (uint32_t b = 0; ok && b < L->n_buffers; b++) {
        json_t *o = json_array_get(L->j_buffers, b), *flag;
        int which;
        json_t *ext = meshopt_of(o, &which);
        if (!ext || !(flag = json_object_get(ext, "fallback"))) continue;
        if (!json_is_boolean(flag)) {
            ok = BAD(TYPE_MISMATCH, AT("/buffers/%u/extensions/%s/fallback", b, names[which]), "fallback must be a boolean");
            continue;
        }
        fallback[b] = json_is_true(flag);
        bool glb_chunk = L->glb && b == 0;
        if (fallback[b] && !json_object_get(o, "uri") && !glb_chunk && !required(L, names[which]))
            ok = BAD(UNSATISFIED_DEPENDENCY, AT("/buffers/%u", b), "a fallback buffer without data needs %s in extensionsRequired",
                     names[which]);
    }
    for (uint32_t i = 0; ok && i < L->n_views; i++) {
        json_t *o = json_array_get(L->j_views, i);
        int which;
        json_t *ext = meshopt_of(o, &which);
        if (json_object_get(json_object_get(o, "extensions"), names[0]) &&
            json_object_get(json_object_get(o, "extensions"), names[1])) {
            ok = BAD(ONE_OF_MISMATCH, AT("/bufferViews/%u/extensions", i), "%s and %s cannot both compress one bufferView", names[0],
                     names[1]);
            continue;
        }
        if (!ext) {
            if (L->views[i].ok && fallback[L->views[i].buffer])
                ok = BAD(UNSATISFIED_DEPENDENCY, AT("/bufferViews/%u/buffer", i),
                         "buffer %u is a fallback buffer: only compressed bufferViews may use it", L->views[i].buffer);
            continue;
        }
        ok = view(L, i, ext, which, fallback);
    }
    arbor__ld_free(L, fallback, L->n_buffers, sizeof *fallback);
    return ok;
}
