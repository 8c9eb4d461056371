/* SPDX-License-Identifier: MIT */
/* The document's lifetime and queries, and the helpers every glTF file uses (error messages,
   reading a whole file). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gltf/gltf_internal.h"

/* ---- helpers --------------------------------------------------------------------------------- */

/* What a file that is not a regular one is, in words. */
static const char *file_kind(mode_t mode) {
    return S_ISFIFO(mode)  ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISDIR(mode)  ? "a folder"
                            : "not a regular file";
}

const char *arbor__gltf_not_regular(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) ? file_kind(st.st_mode) : NULL;
}

arbor_result arbor__gltf_open_file(const char *path, FILE **out, uint64_t *size, char *reason, size_t reason_cap) {
    *out = NULL;
    *size = 0;
    const char *kind = arbor__gltf_not_regular(path); /* a socket cannot be opened: named here */
    if (kind) {
        snprintf(reason, reason_cap, "%s is %s, not a regular file", path, kind);
        return ARBOR_ERR_IO;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO put there since the stat: no wait */
    struct stat st;
    FILE *f = NULL;
    if (fd < 0) {
        snprintf(reason, reason_cap, "cannot open %s: %s", path, strerror(errno));
    } else if (fstat(fd, &st) != 0) {
        snprintf(reason, reason_cap, "cannot read %s: %s", path, strerror(errno));
        close(fd);
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(reason, reason_cap, "%s is %s, not a regular file", path, file_kind(st.st_mode));
        close(fd);
    } else if (!(f = fdopen(fd, "rb"))) {
        snprintf(reason, reason_cap, "cannot open %s: %s", path, strerror(errno));
        close(fd);
    }
    if (!f) return ARBOR_ERR_IO;
    *out = f;
    *size = (uint64_t)st.st_size;
    return ARBOR_OK;
}

arbor_result arbor__gltf_read_file(const arbor_allocator *a, const char *path, uint8_t **data, size_t *size,
                                   char *reason, size_t reason_cap) {
    *data = NULL;
    *size = 0;
    FILE *f;
    uint64_t length;
    arbor_result r = arbor__gltf_open_file(path, &f, &length, reason, reason_cap);
    if (r) return r;
    if (length > SIZE_MAX - 1) {
        fclose(f);
        snprintf(reason, reason_cap, "%s is too big to read (%llu bytes)", path, (unsigned long long)length);
        return ARBOR_ERR_IO;
    }
    size_t n = (size_t)length;
    uint8_t *p = arbor__alloc_with(a, n);
    if (!p) {
        fclose(f);
        snprintf(reason, reason_cap, "no memory for the %zu bytes of %s", n, path);
        return ARBOR_ERR_OUT_OF_MEMORY;
    }
    size_t got = n ? fread(p, 1, n, f) : 0;
    fclose(f);
    if (got != n) {
        arbor__free_with(a, p, n);
        snprintf(reason, reason_cap, "cannot read %s", path);
        return ARBOR_ERR_IO;
    }
    *data = p;
    *size = n;
    return ARBOR_OK;
}

/* ---- lifetime -------------------------------------------------------------------------------- */

void arbor_gltf_destroy(arbor_gltf *doc) {
    if (!doc) return;
    arbor__gltf_docs_remove(doc);
    const arbor_allocator a = doc->allocator;
    if (doc->root) json_decref(doc->root);
    if (doc->path) arbor__free_with(&a, doc->path, strlen(doc->path) + 1);
    if (doc->base_dir) arbor__free_with(&a, doc->base_dir, strlen(doc->base_dir) + 1);
    arbor__free_with(&a, doc->nodes, (size_t)doc->node_count * sizeof *doc->nodes);
    arbor__free_with(&a, doc->by_id, (size_t)doc->node_count * sizeof *doc->by_id);
    arbor__free_with(&a, doc->by_id_index, (size_t)doc->node_count * sizeof *doc->by_id_index);
    arbor__free_with(&a, doc->node_skin, (size_t)doc->node_count * sizeof *doc->node_skin);
    if (doc->buffers) {
        for (uint32_t i = 0; i < doc->buffer_count; i++)
            arbor__free_with(&a, doc->buffers[i].data, doc->buffers[i].size);
        arbor__free_with(&a, doc->buffers, (size_t)doc->buffer_count * sizeof *doc->buffers);
    }
    if (doc->skins) {
        for (uint32_t i = 0; i < doc->skin_count; i++) {
            arbor__gltf_skin *k = &doc->skins[i];
            arbor__free_with(&a, k->joints, (size_t)k->joint_count * sizeof *k->joints);
            arbor__free_with(&a, k->ibm, (size_t)k->joint_count * 16 * sizeof *k->ibm);
        }
        arbor__free_with(&a, doc->skins, (size_t)doc->skin_count * sizeof *doc->skins);
    }
    arbor__free_with(&a, doc->animations, (size_t)doc->animation_count * sizeof *doc->animations);
    arbor__free_with(&a, doc->anim_channels, (size_t)doc->anim_channel_count * sizeof *doc->anim_channels);
    arbor__free_with(&a, doc->anim_samplers, (size_t)doc->anim_sampler_count * sizeof *doc->anim_samplers);
    arbor__free_with(&a, doc->anim_data, doc->anim_floats * sizeof *doc->anim_data);
    arbor__gltf_node_ext_free(doc);
    arbor__free_with(&a, doc, sizeof *doc);
}

/* ---- queries --------------------------------------------------------------------------------- */

uint32_t arbor_gltf_node_count(const arbor_gltf *doc) { return doc ? doc->node_count : 0; }

arbor_node arbor_gltf_node(const arbor_gltf *doc, uint32_t index) {
    if (!doc || index >= doc->node_count || !arbor_node_alive(doc->scene, doc->nodes[index])) return ARBOR_NONE;
    return doc->nodes[index];
}

int64_t arbor_gltf_index(const arbor_gltf *doc, arbor_node n) {
    if (!doc || n.id == 0) return -1;
    uint32_t lo = 0, hi = doc->node_count; /* by_id is sorted: binary search */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (doc->by_id[mid] < n.id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < doc->node_count && doc->by_id[lo] == n.id ? (int64_t)doc->by_id_index[lo] : -1;
}

uint32_t arbor_gltf_scene_count(const arbor_gltf *doc) { return doc ? doc->scene_count : 0; }

int32_t arbor_gltf_loaded_scene(const arbor_gltf *doc) { return doc ? doc->default_scene : -1; }

/* scenes[scene] of the JSON, or NULL. */
static json_t *scene_json(const arbor_gltf *doc, uint32_t scene) {
    if (!doc || scene >= doc->scene_count) return NULL;
    json_t *o = json_array_get(json_object_get(doc->root, "scenes"), scene);
    return json_is_object(o) ? o : NULL;
}

const char *arbor_gltf_scene_name(const arbor_gltf *doc, uint32_t scene) {
    return json_string_value(json_object_get(scene_json(doc, scene), "name"));
}

arbor_result arbor_gltf_scene_roots(const arbor_gltf *doc, uint32_t scene, arbor_node *out, uint32_t cap,
                                    uint32_t *total) {
    if (total) *total = 0;
    if (!doc || !total || (cap && !out))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, "arbor_gltf_scene_roots",
                           "doc, count and out (when cap > 0) are required");
    if (!doc->scene) return arbor__inert("arbor_gltf_scene_roots");
    if (scene >= doc->scene_count)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, "arbor_gltf_scene_roots", "scene %u: the file has %u scenes",
                           scene, doc->scene_count);
    json_t *list = json_object_get(scene_json(doc, scene), "nodes");
    uint32_t count = 0;
    for (size_t k = 0; k < json_array_size(list); k++) {
        json_t *v = json_array_get(list, k); /* checked at load; a lenient load may have left bad entries */
        if (!json_is_integer(v) && !json_is_real(v)) continue;
        double d = json_number_value(v);
        if (!(d >= 0 && d < doc->node_count) || d != (double)(uint32_t)d) continue;
        arbor_node n = arbor_gltf_node(doc, (uint32_t)d);
        if (n.id == 0) continue;
        if (count < cap) out[count] = n;
        count++;
    }
    *total = count;
    return ARBOR_OK;
}

static uint32_t array_size(json_t *o, const char *key) {
    size_t n = json_array_size(json_object_get(o, key));
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

void arbor_gltf_counts_get(const arbor_gltf *doc, arbor_gltf_counts *out) {
    if (!out) return;
    *out = (arbor_gltf_counts){0};
    if (!doc) return;
    json_t *r = doc->root;
    out->nodes = array_size(r, "nodes");
    out->scenes = array_size(r, "scenes");
    out->meshes = array_size(r, "meshes");
    out->cameras = array_size(r, "cameras");
    out->lights = array_size(json_object_get(json_object_get(r, "extensions"), "KHR_lights_punctual"), "lights");
    out->skins = array_size(r, "skins");
    out->animations = array_size(r, "animations");
    out->accessors = array_size(r, "accessors");
    out->buffers = array_size(r, "buffers");
}

int32_t arbor_gltf_node_skin(const arbor_gltf *doc, arbor_node n) {
    int64_t i = arbor_gltf_index(doc, n);
    return i < 0 ? -1 : doc->node_skin[i];
}

arbor_result arbor_gltf_skin(const arbor_gltf *doc, uint32_t skin, arbor_node *joints, float *ibm, uint32_t cap,
                             arbor_node *skeleton, uint32_t *count) {
    if (skeleton) *skeleton = ARBOR_NONE;
    if (count) *count = 0;
    if (!doc || !count)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, "arbor_gltf_skin", "doc and count are required");
    if (!doc->scene) return arbor__inert("arbor_gltf_skin");
    if (skin >= doc->skin_count)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, "arbor_gltf_skin", "skin %u: the file has %u skins", skin,
                           doc->skin_count);
    const arbor__gltf_skin *k = &doc->skins[skin];
    uint32_t n = k->joint_count < cap ? k->joint_count : cap;
    for (uint32_t j = 0; j < n; j++) {
        if (joints) joints[j] = arbor_gltf_node(doc, k->joints[j]);
        if (!ibm) continue;
        if (k->ibm) {
            memcpy(ibm + (size_t)j * 16, k->ibm + (size_t)j * 16, 16 * sizeof *ibm);
        } else {
            for (int e = 0; e < 16; e++) ibm[(size_t)j * 16 + e] = e % 5 == 0 ? 1.0f : 0.0f;
        }
    }
    if (skeleton && k->skeleton >= 0) *skeleton = arbor_gltf_node(doc, (uint32_t)k->skeleton);
    *count = k->joint_count;
    return ARBOR_OK;
}
