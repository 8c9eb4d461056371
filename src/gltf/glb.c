/* SPDX-License-Identifier: MIT */
/* The GLB container: a 12-byte header (magic "glTF", version 2, total length) and chunks of
   (length, type, data), each 4-byte aligned. The first chunk is JSON, an optional second one is
   BIN, chunks of other types after them are ignored. Every framing error names its byte offset. */
#include <stdio.h>
#include <string.h>

#include "gltf/load_internal.h"

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_JSON 0x4E4F534Au /* "JSON" */
#define GLB_BIN 0x004E4942u /* "BIN\0" */

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A framing error: its Khronos code and byte offset (the load's message says "GLB offset N"). */
#define FRAMING(code, offset, ...) arbor__ld_stop_glb(L, LDI_GLB_##code, (uint64_t)(offset), __VA_ARGS__)

bool arbor__ld_glb(ld *L, const uint8_t *data, size_t size, const uint8_t **json, size_t *json_size) {
    if (size < 12) return FRAMING(UNEXPECTED_END_OF_HEADER, size, "the file ends inside the 12-byte header");
    if (le32(data) != GLB_MAGIC) return FRAMING(INVALID_MAGIC, 0, "not a GLB file (the magic is not \"glTF\")");
    if (le32(data + 4) != 2)
        return FRAMING(INVALID_VERSION, 4, "version %u, only version 2 is read", (unsigned)le32(data + 4));
    uint64_t length = le32(data + 8); /* bytes after it are ignored, as the spec allows */
    if (length <= 12)
        return FRAMING(LENGTH_TOO_SMALL, 8, "the declared length %llu leaves no room for a JSON chunk",
                       (unsigned long long)length);
    *json = NULL;
    for (uint64_t pos = 12, index = 0; pos < length; index++) { /* where the file ends, it says */
        if (pos == size)
            return FRAMING(LENGTH_MISMATCH, size, "the file ends here, before the declared length %llu",
                           (unsigned long long)length);
        if (size - pos < 8) return FRAMING(UNEXPECTED_END_OF_CHUNK_HEADER, size, "the file ends inside a chunk header");
        if (length - pos < 8) return FRAMING(CHUNK_TOO_BIG, pos, "a chunk header runs past the declared length");
        uint64_t chunk = le32(data + pos);
        uint32_t type = le32(data + pos + 4);
        if (chunk % 4) return FRAMING(CHUNK_LENGTH_UNALIGNED, pos, "the chunk length %llu is not a multiple of 4", (unsigned long long)chunk);
        if (chunk > length - pos - 8)
            return FRAMING(CHUNK_TOO_BIG, pos, "the chunk length %llu runs past the declared length %llu",
                           (unsigned long long)chunk, (unsigned long long)length);
        if (chunk > size - pos - 8)
            return FRAMING(UNEXPECTED_END_OF_CHUNK_DATA, size, "the file ends here, before the declared length %llu",
                           (unsigned long long)length);
        if (index == 0) {
            if (type != GLB_JSON)
                return FRAMING(UNEXPECTED_FIRST_CHUNK, pos, "the first chunk must be JSON, found type 0x%08x", (unsigned)type);
            if (chunk == 0) return FRAMING(EMPTY_CHUNK, pos, "the JSON chunk is empty");
            *json = data + pos + 8;
            *json_size = (size_t)chunk;
        } else if (type == GLB_JSON) {
            return FRAMING(DUPLICATE_CHUNK, pos, "a second JSON chunk");
        } else if (type == GLB_BIN) {
            if (L->has_bin) return FRAMING(DUPLICATE_CHUNK, pos, "a second BIN chunk");
            if (index != 1) return FRAMING(UNEXPECTED_BIN_CHUNK, pos, "the BIN chunk must be the second chunk");
            L->has_bin = true;
            L->bin = data + pos + 8;
            L->bin_size = chunk;
        } /* other types: ignored */
        pos += 8 + chunk;
    }
    return true;
}
