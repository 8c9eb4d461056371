/* SPDX-License-Identifier: MIT */
/* What the CLI reads of a glTF file beyond what arbor loads: buffers (GLB chunk, data: URI,
   external file), image headers for their sizes, and accessors as floats for drawing meshes. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* The bytes of a data: URI (base64 only) or of a file named relative to the glTF file. */
static bool read_uri(const cli_file *f, const char *uri, cli_bytes *out) {
    if (!strncmp(uri, "data:", 5)) {
        const char *comma = strchr(uri, ',');
        if (!comma || !strstr(uri, ";base64")) return false;
        size_t len = strlen(comma + 1);
        unsigned char *data = malloc(len / 4 * 3 + 3);
        if (!data) return false;
        size_t n = 0;
        uint32_t acc = 0;
        int bits = 0;
        for (const char *c = comma + 1; *c && *c != '='; c++) {
            int v = base64_value(*c);
            if (v < 0) {
                free(data);
                return false;
            }
            acc = acc << 6 | (uint32_t)v;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                data[n++] = (unsigned char)(acc >> bits);
            }
        }
        out->data = data;
        out->size = n;
        return true;
    }
    if (strstr(uri, "://") || strstr(uri, "..") || uri[0] == '/' || !strcmp(f->path, "(standard input)")) return false;
    const char *slash = strrchr(f->path, '/');
    size_t dir = slash ? (size_t)(slash - f->path + 1) : 0, len = dir + strlen(uri) + 1;
    char *path = malloc(len);
    if (!path) return false;
    memcpy(path, f->path, dir);
    strcpy(path + dir, uri);
    /* %20 and other escapes in the URI */
    char *w = path + dir;
    for (const char *r = path + dir; *r; r++) {
        if (r[0] == '%' && r[1] && r[2]) {
            char hex[3] = { r[1], r[2], 0 };
            *w++ = (char)strtol(hex, NULL, 16);
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = 0;
    FILE *in = cli_open(path);
    free(path);
    if (!in) return false;
    bool ok = false;
    if (!fseek(in, 0, SEEK_END)) {
        long size = ftell(in);
        if (size >= 0 && !fseek(in, 0, SEEK_SET) && (out->data = malloc(size ? (size_t)size : 1))) {
            ok = fread(out->data, 1, (size_t)size, in) == (size_t)size;
            out->size = (size_t)size;
            if (!ok) {
                free(out->data);
                out->data = NULL;
            }
        }
    }
    fclose(in);
    return ok;
}

void cli_buffers_free(cli_file *f) {
    for (uint32_t i = 0; i < f->buffer_count; i++) free(f->buffers[i].data);
    free(f->buffers);
    f->buffers = NULL;
    f->buffer_count = 0;
}

const cli_bytes *cli_buffer(cli_file *f, uint32_t index) {
    json_t *buffers = json_object_get(cli_json(f), "buffers");
    if (index >= json_array_size(buffers)) return NULL;
    if (!f->buffers) {
        f->buffers = calloc(json_array_size(buffers), sizeof *f->buffers);
        if (!f->buffers) return NULL;
        f->buffer_count = (uint32_t)json_array_size(buffers);
    }
    cli_bytes *b = &f->buffers[index];
    if (!b->tried) {
        b->tried = true;
        const char *uri = json_string_value(json_object_get(json_array_get(buffers, index), "uri"));
        if (uri) {
            read_uri(f, uri, b);
        } else if (index == 0 && f->size >= 20 && !memcmp(f->bytes, "glTF", 4)) { /* the BIN chunk */
            size_t at = 20 + (size_t)le32(f->bytes + 12);
            if (at + 8 <= f->size && le32(f->bytes + at + 4) == 0x004E4942u) {
                size_t len = le32(f->bytes + at);
                if (len <= f->size - at - 8 && (b->data = malloc(len ? len : 1))) {
                    memcpy(b->data, f->bytes + at + 8, len);
                    b->size = len;
                }
            }
        }
    }
    return b->data ? b : NULL;
}

/* The bytes of buffer view `view`: a pointer into its buffer and their length, or NULL. */
static const unsigned char *view_bytes(cli_file *f, json_int_t view, size_t *length, size_t *stride) {
    json_t *v = json_array_get(json_object_get(cli_json(f), "bufferViews"), (size_t)view);
    if (!v || view < 0) return NULL;
    const cli_bytes *b = cli_buffer(f, (uint32_t)json_integer_value(json_object_get(v, "buffer")));
    size_t offset = (size_t)json_integer_value(json_object_get(v, "byteOffset"));
    size_t len = (size_t)json_integer_value(json_object_get(v, "byteLength"));
    if (!b || offset > b->size || len > b->size - offset) return NULL;
    *length = len;
    if (stride) *stride = (size_t)json_integer_value(json_object_get(v, "byteStride"));
    return b->data + offset;
}

/* Width and height from a PNG's IHDR or a JPEG's first SOFn marker. */
static void picture_size(const unsigned char *p, size_t n, uint32_t *w, uint32_t *h) {
    *w = *h = 0;
    if (n >= 24 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8) && !memcmp(p + 12, "IHDR", 4)) {
        *w = be32(p + 16);
        *h = be32(p + 20);
        return;
    }
    if (n < 4 || p[0] != 0xFF || p[1] != 0xD8) return;
    for (size_t at = 2; at + 9 < n;) {
        if (p[at] != 0xFF) return;
        unsigned marker = p[at + 1];
        size_t len = (size_t)p[at + 2] << 8 | p[at + 3];
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
            *h = (uint32_t)p[at + 5] << 8 | p[at + 6];
            *w = (uint32_t)p[at + 7] << 8 | p[at + 8];
            return;
        }
        at += 2 + len;
    }
}

bool cli_image_size(cli_file *f, uint32_t index, size_t *bytes, uint32_t *width, uint32_t *height) {
    json_t *image = json_array_get(json_object_get(cli_json(f), "images"), index);
    *bytes = 0;
    *width = *height = 0;
    if (!image) return false;
    const char *uri = json_string_value(json_object_get(image, "uri"));
    if (uri) {
        cli_bytes b = { 0 };
        if (!read_uri(f, uri, &b)) return false;
        picture_size(b.data, b.size, width, height);
        *bytes = b.size;
        free(b.data);
        return true;
    }
    json_t *view = json_object_get(image, "bufferView");
    size_t len;
    const unsigned char *p = json_is_integer(view) ? view_bytes(f, json_integer_value(view), &len, NULL) : NULL;
    if (!p) return false;
    picture_size(p, len, width, height);
    *bytes = len;
    return true;
}

/* One component of type `type` at p as a float (normalized integers mapped as glTF says). */
static float component(const unsigned char *p, json_int_t type, bool normalized) {
    switch (type) {
    case 5120: { int8_t v = (int8_t)p[0]; return normalized ? (v < -127 ? -1.0f : v / 127.0f) : v; }
    case 5121: return normalized ? p[0] / 255.0f : p[0];
    case 5122: { int16_t v = (int16_t)(p[0] | p[1] << 8); return normalized ? (v < -32767 ? -1.0f : v / 32767.0f) : v; }
    case 5123: { uint16_t v = (uint16_t)(p[0] | p[1] << 8); return normalized ? v / 65535.0f : v; }
    case 5125: return (float)le32(p);
    default: { float v; uint32_t bits = le32(p); memcpy(&v, &bits, 4); return v; }
    }
}

float *cli_accessor_floats(cli_file *f, uint32_t index, uint32_t components, uint32_t *count) {
    json_t *a = json_array_get(json_object_get(cli_json(f), "accessors"), index);
    static const char *const types[] = { "", "SCALAR", "VEC2", "VEC3", "VEC4" };
    *count = 0;
    if (!a || components < 1 || components > 4 || json_object_get(a, "sparse") ||
        strcmp(json_string_value(json_object_get(a, "type")) ? json_string_value(json_object_get(a, "type")) : "", types[components]))
        return NULL;
    json_int_t type = json_integer_value(json_object_get(a, "componentType"));
    size_t size = type == 5126 || type == 5125 ? 4 : type == 5122 || type == 5123 ? 2 : type == 5120 || type == 5121 ? 1 : 0;
    size_t n = (size_t)json_integer_value(json_object_get(a, "count")), len, stride;
    json_t *view = json_object_get(a, "bufferView");
    const unsigned char *p = json_is_integer(view) ? view_bytes(f, json_integer_value(view), &len, &stride) : NULL;
    if (!p || !size || !n || n > UINT32_MAX / components) return NULL;
    size_t offset = (size_t)json_integer_value(json_object_get(a, "byteOffset"));
    if (!stride) stride = size * components;
    if (offset > len || (n - 1) > (len - offset - size * components) / stride || len - offset < size * components) return NULL;
    float *out = malloc(n * components * sizeof *out);
    if (!out) return NULL;
    bool normalized = json_is_true(json_object_get(a, "normalized"));
    for (size_t i = 0; i < n; i++)
        for (uint32_t c = 0; c < components; c++) out[i * components + c] = component(p + offset + i * stride + c * size, type, normalized);
    *count = (uint32_t)n;
    return out;
}
