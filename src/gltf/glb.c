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

static bool framing(ld *L, uint64_t offset, const char *what) {
    return arbor__ld_stop(L, ARBOR_ERR_PARSE, NULL, "GLB offset %llu: %s", (unsigned long long)offset, what);
}

bool arbor__ld_glb(ld *L, const uint8_t *data, size_t size, const uint8_t **json, size_t *json_size) {
    char why[160];
    if (size < 12) return framing(L, size, "the file ends inside the 12-byte header");
    if (le32(data) != GLB_MAGIC) return framing(L, 0, "not a GLB file (the magic is not \"glTF\")");
    if (le32(data + 4) != 2) {
        snprintf(why, sizeof why, "version %u, only version 2 is read", (unsigned)le32(data + 4));
        return framing(L, 4, why);
    }
    uint64_t length = le32(data + 8); /* bytes after it are ignored, as the spec allows */
    if (length <= 12) {
        snprintf(why, sizeof why, "the declared length %llu leaves no room for a JSON chunk",
                 (unsigned long long)length);
        return framing(L, 8, why);
    }
    if (length > size) {
        snprintf(why, sizeof why, "the file ends here, before the declared length %llu", (unsigned long long)length);
        return framing(L, size, why);
    }
    *json = NULL;
    for (uint64_t pos = 12, index = 0; pos < length; index++) {
        if (length - pos < 8) return framing(L, pos, "a chunk header runs past the declared length");
        uint64_t chunk = le32(data + pos);
        uint32_t type = le32(data + pos + 4);
        if (chunk % 4) {
            snprintf(why, sizeof why, "the chunk length %llu is not a multiple of 4", (unsigned long long)chunk);
            return framing(L, pos, why);
        }
        if (chunk > length - pos - 8) {
            snprintf(why, sizeof why, "the chunk length %llu runs past the declared length %llu",
                     (unsigned long long)chunk, (unsigned long long)length);
            return framing(L, pos, why);
        }
        if (index == 0) {
            if (type != GLB_JSON) {
                snprintf(why, sizeof why, "the first chunk must be JSON, found type 0x%08x", (unsigned)type);
                return framing(L, pos, why);
            }
            if (chunk == 0) return framing(L, pos, "the JSON chunk is empty");
            *json = data + pos + 8;
            *json_size = (size_t)chunk;
        } else if (type == GLB_JSON) {
            return framing(L, pos, "a second JSON chunk");
        } else if (type == GLB_BIN) {
            if (index != 1)
                return framing(L, pos, L->has_bin ? "a second BIN chunk" : "the BIN chunk must be the second chunk");
            L->has_bin = true;
            L->bin = data + pos + 8;
            L->bin_size = chunk;
        } /* other types: ignored */
        pos += 8 + chunk;
    }
    return true;
}
