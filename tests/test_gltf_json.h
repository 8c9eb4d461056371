/* SPDX-License-Identifier: MIT */
/*
 * tests/test_gltf_json.h: what a glTF file says, read by the tests themselves (jansson, no arbor):
 * its JSON and buffers (a .gltf with external or data: buffers, or a .glb), accessor elements as
 * the spec reads them, and every node's local and world matrix, effective visibility and
 * EXT_mesh_gpu_instancing instance matrices as products in double. The expected values of the
 * tests that load files (test_gltf_ext) or print them (test_cli's dump).
 */
#ifndef ARBOR_TEST_GLTF_JSON_H
#define ARBOR_TEST_GLTF_JSON_H

#include <jansson.h>

#include "test_samples.h"

/* ---- the file's own data, read here -------------------------------------------------------------- */

typedef struct file_data {
    json_t *root;
    unsigned char *bin; /* the GLB BIN chunk */
    size_t bin_size;
    unsigned char **buffers; /* per buffer: its bytes (NULL: none at hand) */
    size_t *sizes;
    size_t buffer_count;
} file_data;

static inline file_data read_gltf(const char *path) {
    file_data f = {0};
    size_t size = 0;
    char *data = read_file(path, &size);
    assert_non_null(data);
    json_error_t je;
    if (size >= 20 && !memcmp(data, "glTF", 4)) {
        uint32_t len, bin_len = 0;
        memcpy(&len, data + 12, 4);
        f.root = json_loadb(data + 20, len, 0, &je);
        if (20 + len + 8 <= size) {
            memcpy(&bin_len, data + 20 + len, 4);
            f.bin = malloc(bin_len ? bin_len : 1);
            memcpy(f.bin, data + 28 + len, bin_len);
            f.bin_size = bin_len;
        }
    } else {
        f.root = json_loadb(data, size, 0, &je);
    }
    free(data);
    assert_non_null(f.root);
    json_t *buffers = json_object_get(f.root, "buffers");
    f.buffer_count = json_array_size(buffers);
    f.buffers = calloc(f.buffer_count + 1, sizeof *f.buffers);
    f.sizes = calloc(f.buffer_count + 1, sizeof *f.sizes);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    for (size_t b = 0; b < f.buffer_count; b++) {
        const char *uri = json_string_value(json_object_get(json_array_get(buffers, b), "uri"));
        if (!uri) {
            if (b == 0 && f.bin) {
                f.buffers[b] = f.bin;
                f.sizes[b] = f.bin_size;
                f.bin = NULL;
            }
        } else if (!strncmp(uri, "data:", 5)) {
            const char *comma = strchr(uri, ',');
            f.buffers[b] = malloc(strlen(uri));
            f.sizes[b] = unbase64(f.buffers[b], comma + 1);
        } else {
            char file[2 * PATH_MAX];
            snprintf(file, sizeof file, "%s/%s", dir, uri);
            f.buffers[b] = (unsigned char *)read_file(file, &f.sizes[b]);
        }
    }
    return f;
}

static inline void free_gltf(file_data *f) {
    for (size_t b = 0; b < f->buffer_count; b++) free(f->buffers[b]);
    free(f->buffers);
    free(f->sizes);
    free(f->bin);
    json_decref(f->root);
}

static inline double num(json_t *v, double fallback) { return json_is_number(v) ? json_number_value(v) : fallback; }

/* Component c of element e of accessor a, as glTF means it (normalized integers as the spec
   says); plain bufferViews only, as the corpus's instance accessors are. */
static inline double element(const file_data *f, uint32_t a, uint64_t e, int c) {
    json_t *acc = json_array_get(json_object_get(f->root, "accessors"), a);
    json_t *view = json_array_get(json_object_get(f->root, "bufferViews"), (size_t)json_integer_value(json_object_get(acc, "bufferView")));
    int ctype = (int)json_integer_value(json_object_get(acc, "componentType"));
    int size = ctype == 5126 || ctype == 5125 ? 4 : ctype == 5122 || ctype == 5123 ? 2 : 1;
    const char *type = json_string_value(json_object_get(acc, "type"));
    int ncomp = !strcmp(type, "SCALAR") ? 1 : type[3] - '0';
    size_t stride = (size_t)num(json_object_get(view, "byteStride"), (double)(ncomp * size));
    size_t buffer = (size_t)json_integer_value(json_object_get(view, "buffer"));
    size_t at = (size_t)num(json_object_get(view, "byteOffset"), 0) + (size_t)num(json_object_get(acc, "byteOffset"), 0) +
                (size_t)e * stride + (size_t)c * (size_t)size;
    assert_non_null(f->buffers[buffer]);
    assert_true(at + (size_t)size <= f->sizes[buffer]);
    const unsigned char *p = f->buffers[buffer] + at;
    bool normalized = json_is_true(json_object_get(acc, "normalized"));
    switch (ctype) {
    case 5126: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    case 5120: return normalized ? fmax((int8_t)p[0] / 127.0, -1.0) : (int8_t)p[0];
    case 5121: return normalized ? p[0] / 255.0 : p[0];
    case 5122: {
        int16_t v;
        memcpy(&v, p, 2);
        return normalized ? fmax(v / 32767.0, -1.0) : v;
    }
    case 5123: {
        uint16_t v;
        memcpy(&v, p, 2);
        return normalized ? v / 65535.0 : v;
    }
    default: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

/* ---- products in double ------------------------------------------------------------------------- */

static inline void node_local(json_t *node, double out[16]) {
    json_t *m = json_object_get(node, "matrix");
    if (m) {
        for (int i = 0; i < 16; i++) out[i] = num(json_array_get(m, (size_t)i), 0);
        return;
    }
    json_t *t = json_object_get(node, "translation"), *r = json_object_get(node, "rotation"), *s = json_object_get(node, "scale");
    double tv[3], rv[4], sv[3];
    for (int i = 0; i < 3; i++) tv[i] = num(json_array_get(t, (size_t)i), 0), sv[i] = num(json_array_get(s, (size_t)i), 1);
    for (int i = 0; i < 4; i++) rv[i] = num(json_array_get(r, (size_t)i), i == 3 ? 1 : 0);
    test_ref_compose(out, tv, rv, sv);
}

/* Every node's world matrix and effective visibility, in double, from the JSON alone. */
typedef struct expected {
    size_t count;
    double (*world)[16];
    bool *visible;
} expected;

static inline expected expect_from(const file_data *f) {
    json_t *nodes = json_object_get(f->root, "nodes");
    expected x = {json_array_size(nodes), NULL, NULL};
    x.world = calloc(x.count + 1, sizeof *x.world);
    x.visible = calloc(x.count + 1, sizeof *x.visible);
    long *parent = malloc((x.count + 1) * sizeof *parent);
    for (size_t i = 0; i < x.count; i++) parent[i] = -1;
    for (size_t i = 0; i < x.count; i++) {
        json_t *children = json_object_get(json_array_get(nodes, i), "children");
        for (size_t k = 0; k < json_array_size(children); k++) parent[json_integer_value(json_array_get(children, k))] = (long)i;
    }
    for (size_t i = 0; i < x.count; i++) { /* up the chain each time: small files */
        json_t *node = json_array_get(nodes, i);
        node_local(node, x.world[i]);
        json_t *vis = json_object_get(json_object_get(json_object_get(node, "extensions"), "KHR_node_visibility"), "visible");
        x.visible[i] = !json_is_false(vis);
        for (long p = parent[i]; p >= 0; p = parent[p]) {
            double pl[16];
            json_t *pn = json_array_get(nodes, (size_t)p);
            node_local(pn, pl);
            test_ref_mul(x.world[i], pl, x.world[i]);
            json_t *pv = json_object_get(json_object_get(json_object_get(pn, "extensions"), "KHR_node_visibility"), "visible");
            if (json_is_false(pv)) x.visible[i] = false;
        }
    }
    free(parent);
    return x;
}

static inline void free_expected(expected *x) {
    free(x->world);
    free(x->visible);
}

/* Instance e's world matrix of node i, in double, from the file's accessors. */
static inline void instance_world(const file_data *f, const expected *x, size_t i, uint64_t e, double out[16]) {
    json_t *attributes = json_object_get(
        json_object_get(json_object_get(json_array_get(json_object_get(f->root, "nodes"), i), "extensions"), "EXT_mesh_gpu_instancing"),
        "attributes");
    json_t *ta = json_object_get(attributes, "TRANSLATION"), *ra = json_object_get(attributes, "ROTATION"),
           *sa = json_object_get(attributes, "SCALE");
    double t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1}, local[16];
    for (int c = 0; c < 3; c++) {
        if (ta) t[c] = element(f, (uint32_t)json_integer_value(ta), e, c);
        if (sa) s[c] = element(f, (uint32_t)json_integer_value(sa), e, c);
    }
    for (int c = 0; c < 4 && ra; c++) r[c] = element(f, (uint32_t)json_integer_value(ra), e, c);
    test_ref_compose(local, t, r, s);
    test_ref_mul(out, x->world[i], local);
}

static inline uint64_t instance_count(const file_data *f, size_t i) {
    json_t *attributes = json_object_get(
        json_object_get(json_object_get(json_array_get(json_object_get(f->root, "nodes"), i), "extensions"), "EXT_mesh_gpu_instancing"),
        "attributes");
    const char *key;
    json_t *value;
    json_object_foreach(attributes, key, value) {
        return (uint64_t)json_integer_value(
            json_object_get(json_array_get(json_object_get(f->root, "accessors"), (size_t)json_integer_value(value)), "count"));
    }
    return 0;
}

#endif
