/* SPDX-License-Identifier: MIT */
/*
 * What a save writes of the extensions that speak about nodes (save.c calls in):
 * - KHR_node_visibility: `visible: false` on every node hidden by its own flag (the file's
 *   object kept otherwise);
 * - EXT_mesh_gpu_instancing: instances unchanged since the load keep the file's object and
 *   accessors; others get TRANSLATION, ROTATION and SCALE accessors of floats: in a .glb at the
 *   end of its BIN chunk, in a .gltf in a buffer of their own (a data: URI, so the file stands on
 *   its own), the file's other attributes kept while their count still matches;
 * - MSFT_lod: `ids` remapped to the written node indices; a destroyed level is dropped, with
 *   its MSFT_screencoverage entry, and a warning.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bounds/node_instances.h"
#include "gltf_internal.h"

#define NO_INDEX UINT32_MAX

static void *grow(arbor__node_ext_save *x, void *p, size_t old, size_t size) {
    void *q = arbor__realloc(x->s, p, old, size);
    if (!q) x->failed = true;
    return q;
}

/* Appends n bytes to the new buffer (4-byte aligned before). */
static bool add_bytes(arbor__node_ext_save *x, const void *bytes, size_t n, size_t *offset) {
    size_t at = (x->bin_size + 3) & ~(size_t)3;
    if (at + n > x->bin_cap) {
        size_t cap = x->bin_cap ? 2 * x->bin_cap : 4096;
        while (cap < at + n) cap *= 2;
        uint8_t *bin = grow(x, x->bin, x->bin_cap, cap);
        if (!bin) return false;
        x->bin = bin;
        x->bin_cap = cap;
    }
    memset(x->bin + x->bin_size, 0, at - x->bin_size);
    memcpy(x->bin + at, bytes, n);
    x->bin_size = at + n;
    *offset = at;
    return true;
}

static void push(arbor__node_ext_save *x, json_t *array, json_t *v) {
    if (!v || json_array_append_new(array, v)) x->failed = true;
}

static void put(arbor__node_ext_save *x, json_t *object, const char *key, json_t *v) {
    if (!v || json_object_set_new(object, key, v)) x->failed = true;
}

/* A copy of v, deep or not (NULL for NULL); out of memory marks the save failed. jansson's
   copies leave out what they had no memory for, without a word: a copy is kept only when it
   equals v. */
static json_t *copy_of(arbor__node_ext_save *x, json_t *v, bool deep) {
    json_t *c = !v ? NULL : deep ? json_deep_copy(v) : json_copy(v);
    if (!v || json_equal(c, v)) return c;
    json_decref(c);
    x->failed = true;
    return NULL;
}
static json_t *copy(arbor__node_ext_save *x, json_t *v) { return copy_of(x, v, true); }

/* A new object or array; out of memory marks the save failed. */
static json_t *made(arbor__node_ext_save *x, json_t *v) {
    if (!v) x->failed = true;
    return v;
}

/* A float accessor of `count` elements of `width` from values (arbor_real, `stride` apart),
   with min and max: its index. */
static uint32_t add_accessor(arbor__node_ext_save *x, const arbor_real *values, uint32_t count, uint32_t width,
                             size_t stride) {
    size_t n = (size_t)count * width, offset;
    float *f = arbor__alloc(x->s, n * sizeof *f);
    if (!f) {
        x->failed = true;
        return NO_INDEX;
    }
    double lo[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, hi[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    for (uint32_t e = 0; e < count; e++)
        for (uint32_t c = 0; c < width; c++) {
            float v = (float)values[e * stride + c];
            f[(size_t)e * width + c] = v;
            if (v < lo[c]) lo[c] = v;
            if (v > hi[c]) hi[c] = v;
        }
    bool ok = add_bytes(x, f, n * sizeof *f, &offset);
    arbor__free(x->s, f, n * sizeof *f);
    if (!ok) return NO_INDEX;
    json_t *view = made(x, json_object()), *acc = made(x, json_object()), *min = made(x, json_array()),
           *max = made(x, json_array());
    put(x, view, "buffer", json_integer(0)); /* the buffer's index is known when appended */
    if (offset) put(x, view, "byteOffset", json_integer((json_int_t)offset));
    put(x, view, "byteLength", json_integer((json_int_t)(n * sizeof *f)));
    put(x, acc, "bufferView", json_integer((json_int_t)(x->view_base + json_array_size(x->views))));
    put(x, acc, "componentType", json_integer(5126));
    put(x, acc, "count", json_integer(count));
    put(x, acc, "type", json_string(width == 4 ? "VEC4" : "VEC3"));
    for (uint32_t c = 0; c < width; c++) {
        push(x, min, json_real(lo[c]));
        push(x, max, json_real(hi[c]));
    }
    put(x, acc, "min", min);
    put(x, acc, "max", max);
    push(x, x->views, view);
    push(x, x->accessors, acc);
    return x->accessor_base + (uint32_t)json_array_size(x->accessors) - 1;
}

void arbor__node_ext_save_begin(arbor__node_ext_save *x, arbor_scene *s, json_t *root, const char *path, uint32_t count) {
    *x = (arbor__node_ext_save){.s = s, .path = path, .root = root, .count = count};
    x->view_base = (uint32_t)json_array_size(root ? json_object_get(root, "bufferViews") : NULL);
    x->accessor_base = (uint32_t)json_array_size(root ? json_object_get(root, "accessors") : NULL);
    x->views = json_array();
    x->accessors = json_array();
    x->written = arbor__alloc(s, (count ? count : 1) * sizeof *x->written);
    if (!x->views || !x->accessors || !x->written) x->failed = true;
    for (uint32_t k = 0; x->written && k < count; k++) x->written[k] = NO_INDEX;
}

void arbor__node_ext_save_plan(arbor__node_ext_save *x, uint32_t k, uint32_t slot, json_t *file_node) {
    if (x->failed) return;
    const arbor__instance_set *set = arbor__instances_of(x->s, slot);
    if (arbor__own_hidden(x->s, slot)) x->visibility_used = true;
    if (!set) return;
    x->instancing_used = true;
    bool file_has = json_object_get(json_object_get(file_node, "extensions"), "EXT_mesh_gpu_instancing") != NULL;
    if (!set->edited && file_has) return; /* the file's accessors hold them */
    uint32_t t = add_accessor(x, set->trs + ARBOR__T, set->count, 3, ARBOR__TRS);
    uint32_t r = add_accessor(x, set->trs + ARBOR__R, set->count, 4, ARBOR__TRS);
    uint32_t sc = add_accessor(x, set->trs + ARBOR__S, set->count, 3, ARBOR__TRS);
    if (t != NO_INDEX && r == t + 1 && sc == t + 2) x->written[k] = t;
}

/* The node's EXT_mesh_gpu_instancing object, new (NULL: none). */
static json_t *instancing(arbor__node_ext_save *x, uint32_t k, uint32_t slot, json_t *file) {
    const arbor__instance_set *set = arbor__instances_of(x->s, slot);
    if (!set) return NULL;
    if (x->written[k] == NO_INDEX) return copy(x, file); /* as loaded (or out of memory: failed) */
    json_t *out = json_is_object(file) ? copy(x, file) : made(x, json_object());
    json_t *attributes = made(x, json_object());
    json_t *old = json_object_get(out, "attributes"), *accessors = json_object_get(x->root, "accessors");
    const char *key;
    json_t *value;
    json_object_foreach(old, key, value) { /* the file's own attributes, while their count fits */
        if (!strcmp(key, "TRANSLATION") || !strcmp(key, "ROTATION") || !strcmp(key, "SCALE")) continue;
        json_t *count = json_object_get(json_array_get(accessors, (size_t)json_integer_value(value)), "count");
        if (json_is_integer(value) && json_integer_value(count) == (json_int_t)set->count)
            put(x, attributes, key, json_incref(value));
        else
            x->attributes_dropped++;
    }
    put(x, attributes, "TRANSLATION", json_integer(x->written[k]));
    put(x, attributes, "ROTATION", json_integer(x->written[k] + 1));
    put(x, attributes, "SCALE", json_integer(x->written[k] + 2));
    put(x, out, "attributes", attributes);
    return out;
}

/* MSFT_lod's ids remapped; *dropped gets a bit per level left out (the first 64). */
static json_t *lod(arbor__node_ext_save *x, json_t *file, const uint32_t *file_to_out, uint32_t file_count,
                   uint64_t *dropped) {
    json_t *out = copy(x, file), *ids = made(x, json_array());
    json_t *old = json_object_get(file, "ids");
    *dropped = 0;
    for (size_t i = 0; i < json_array_size(old); i++) {
        json_t *v = json_array_get(old, i);
        double d = json_number_value(v);
        uint32_t to = json_is_number(v) && d >= 0 && d < file_count && d == floor(d) ? file_to_out[(size_t)d] : NO_INDEX;
        if (to != NO_INDEX) {
            push(x, ids, json_integer(to));
            continue;
        }
        if (i < 64) *dropped |= (uint64_t)1 << i;
        x->levels_dropped++;
    }
    if (!json_array_size(ids)) {
        json_decref(ids);
        json_decref(out);
        return NULL;
    }
    put(x, out, "ids", ids);
    return out;
}

json_t *arbor__node_ext_save_node(arbor__node_ext_save *x, uint32_t k, uint32_t slot, json_t *file_node,
                                  const uint32_t *file_to_out, uint32_t file_count, json_t **extras) {
    *extras = NULL;
    if (x->failed) return NULL; /* the save fails */
    json_t *file_exts = json_object_get(file_node, "extensions"), *out = json_object();
    if (!out) {
        x->failed = true;
        return NULL;
    }
    const char *key;
    json_t *value;
    json_object_foreach(file_exts, key, value) {
        if (!strcmp(key, "KHR_lights_punctual") || !strcmp(key, "EXT_mesh_gpu_instancing") ||
            !strcmp(key, "KHR_node_visibility") || !strcmp(key, "MSFT_lod"))
            continue;
        put(x, out, key, json_incref(value));
    }
    json_t *v = json_object_get(file_exts, "KHR_node_visibility");
    bool hidden = arbor__own_hidden(x->s, slot);
    if (hidden || json_is_object(v)) {
        json_t *vis = json_is_object(v) ? copy(x, v) : made(x, json_object());
        if (hidden || json_object_get(vis, "visible")) put(x, vis, "visible", json_boolean(!hidden));
        put(x, out, "KHR_node_visibility", vis);
    }
    json_t *inst = instancing(x, k, slot, json_object_get(file_exts, "EXT_mesh_gpu_instancing"));
    if (inst) put(x, out, "EXT_mesh_gpu_instancing", inst);
    json_t *msft = json_object_get(file_exts, "MSFT_lod");
    if (json_is_object(msft)) {
        uint64_t dropped;
        size_t before = x->levels_dropped;
        json_t *kept = lod(x, msft, file_to_out, file_count, &dropped);
        if (kept) put(x, out, "MSFT_lod", kept);
        json_t *coverage = json_object_get(json_object_get(file_node, "extras"), "MSFT_screencoverage");
        if (x->levels_dropped != before && json_is_array(coverage)) { /* entry i + 1 goes with ids[i] */
            *extras = copy(x, json_object_get(file_node, "extras"));
            json_t *kept_coverage = made(x, json_array());
            for (size_t i = 0; i < json_array_size(coverage); i++)
                if (!(i >= 1 && i - 1 < 64 && (dropped >> (i - 1) & 1)) && (kept || i == 0))
                    push(x, kept_coverage, json_incref(json_array_get(coverage, i)));
            if (kept) put(x, *extras, "MSFT_screencoverage", kept_coverage);
            else {
                json_decref(kept_coverage);
                json_object_del(*extras, "MSFT_screencoverage");
            }
        }
    }
    return out;
}

static uint64_t num(const json_t *v) { return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0; }

/* base64 of n bytes into out (4 * ceil(n / 3) characters and a NUL). */
static void base64(const uint8_t *in, size_t n, char *out) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = digits[v >> 18 & 63];
        out[o++] = digits[v >> 12 & 63];
        out[o++] = i + 1 < n ? digits[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? digits[v & 63] : '=';
    }
    out[o] = '\0';
}

/* A copy of the array top[key] (which may be the document's own) put in its place, or a new
   one when absent: what is appended to it changes no document. */
static json_t *array_of(arbor__node_ext_save *x, json_t *top, const char *key) {
    json_t *a = json_object_get(top, key);
    a = json_is_array(a) ? copy_of(x, a, false) : json_array();
    put(x, top, key, a);
    return x->failed ? NULL : a;
}

static void declare(arbor__node_ext_save *x, json_t *top, const char *name) {
    json_t *used = array_of(x, top, "extensionsUsed");
    if (!used) return;
    for (size_t i = 0; i < json_array_size(used); i++)
        if (!strcmp(json_string_value(json_array_get(used, i)) ? json_string_value(json_array_get(used, i)) : "", name))
            return;
    push(x, used, json_string(name));
}

void arbor__node_ext_save_append(arbor__node_ext_save *x, json_t *top, uint64_t glb_offset, uint64_t glb_size) {
    if (x->visibility_used) declare(x, top, "KHR_node_visibility");
    if (x->instancing_used) declare(x, top, "EXT_mesh_gpu_instancing");
    if (!json_array_size(x->accessors) || x->failed) return;
    json_t *buffers = array_of(x, top, "buffers"), *views = array_of(x, top, "bufferViews");
    json_t *accessors = array_of(x, top, "accessors");
    if (x->failed || json_array_size(views) != x->view_base || json_array_size(accessors) != x->accessor_base) {
        x->failed = true;
        return;
    }
    if (glb_offset != UINT64_MAX) { /* in the BIN chunk, buffer 0 */
        if (!json_array_size(buffers)) {
            json_t *bin = made(x, json_object());
            put(x, bin, "byteLength", json_integer((json_int_t)glb_size));
            push(x, buffers, bin);
        }
        for (size_t i = 0; i < json_array_size(x->views); i++) {
            json_t *view = made(x, copy_of(x, json_array_get(x->views, i), false));
            put(x, view, "buffer", json_integer(0));
            put(x, view, "byteOffset", json_integer((json_int_t)(glb_offset + num(json_object_get(view, "byteOffset")))));
            push(x, views, view);
        }
        for (size_t i = 0; i < json_array_size(x->accessors); i++) push(x, accessors, json_incref(json_array_get(x->accessors, i)));
        return;
    }
    size_t prefix = strlen("data:application/octet-stream;base64,"), len = prefix + 4 * ((x->bin_size + 2) / 3) + 1;
    char *uri = arbor__alloc(x->s, len);
    if (!uri) {
        x->failed = true;
        return;
    }
    memcpy(uri, "data:application/octet-stream;base64,", prefix);
    base64(x->bin, x->bin_size, uri + prefix);
    json_t *buffer = made(x, json_object());
    put(x, buffer, "byteLength", json_integer((json_int_t)x->bin_size));
    put(x, buffer, "uri", json_string(uri));
    arbor__free(x->s, uri, len);
    size_t index = json_array_size(buffers);
    push(x, buffers, buffer);
    for (size_t i = 0; i < json_array_size(x->views); i++) {
        json_t *view = json_array_get(x->views, i);
        put(x, view, "buffer", json_integer((json_int_t)index));
        push(x, views, json_incref(view));
    }
    for (size_t i = 0; i < json_array_size(x->accessors); i++) push(x, accessors, json_incref(json_array_get(x->accessors, i)));
}

void arbor__node_ext_save_end(arbor__node_ext_save *x) {
    if (x->levels_dropped)
        arbor__log(x->s, ARBOR_LOG_WARN, "%s: %u MSFT_lod level(s) named a destroyed node and were dropped", x->path,
                   x->levels_dropped);
    if (x->attributes_dropped)
        arbor__log(x->s, ARBOR_LOG_WARN,
                   "%s: %u EXT_mesh_gpu_instancing attribute(s) no longer matched the instance count and were dropped",
                   x->path, x->attributes_dropped);
    json_decref(x->views);
    json_decref(x->accessors);
    arbor__free(x->s, x->bin, x->bin_cap);
    arbor__free(x->s, x->written, (x->count ? x->count : 1) * sizeof *x->written);
    *x = (arbor__node_ext_save){0};
}
