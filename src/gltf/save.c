/* SPDX-License-Identifier: MIT */
/*
 * arbor_gltf_save: the live scene (and the document it came from, if any) -> .gltf or .glb.
 *
 * The plan, then the files:
 * 1. number the nodes: the document's live nodes in file order, then the nodes created since
 *    (arbor_scene_next_node order, parents first); decide each node's camera and light index
 *    (the file's when unchanged, else a new entry appended) and which skins survive;
 * 2. build the top level as a jansson object whose values are the document's own (shared, not
 *    copied) or a modified copy (asset, buffers, bufferViews, images, skins, animations,
 *    cameras, extensions); `nodes` and `scenes` are placeholders, streamed from the scene;
 * 3. write the side files (.bin buffers, copied images), then the main file, each under a
 *    temporary name renamed when complete.
 *
 * JSON is written by a small streaming writer of our own rather than json_dump: it prints each
 * number in the fewest digits that read back to the same value (0.35 stays "0.35", a float
 * 0.2f is "0.2", not "0.200000003"), and nodes are streamed, so a million nodes never exist as
 * JSON objects in memory.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gltf_internal.h"

#define NO_INDEX UINT32_MAX
#define GLB_MAGIC 0x46546C67u
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u

/* ---- numbers that read back exactly ------------------------------------------------------------ */

/* The shortest "%.Ng" of v that reads back to v (as a float when as_float), with a '.' or an
   exponent so that it reads back as a real, and '.' whatever the locale. */
static void format_number(char buf[40], double v, bool as_float) {
    for (int p = as_float ? 6 : 15; p <= (as_float ? 9 : 17); p++) {
        snprintf(buf, 40, "%.*g", p, v);
        double back = strtod(buf, NULL);
        if (as_float ? (float)back == (float)v : back == v) break;
    }
    const char *point = localeconv()->decimal_point;
    char *at = point && point[0] && point[0] != '.' ? strchr(buf, point[0]) : NULL;
    if (at) *at = '.';
    if (!strpbrk(buf, ".eEni")) strcat(buf, ".0");
}

/* A scene value as the double that prints in the fewest digits and reads back to it (for
   values put into jansson objects, which the writer prints as doubles). */
static double real_for_json(arbor_real v) {
    char buf[40];
    format_number(buf, (double)v, sizeof(arbor_real) == sizeof(float));
    return strtod(buf, NULL);
}

/* ---- a streaming JSON writer ------------------------------------------------------------------- */

/* Deeper than any document jansson parses (its limit is 2048 levels). */
#define JW_MAX_DEPTH 2100
enum { JW_HAS_ITEMS = 1, JW_INLINE = 2 };

typedef struct jw {
    FILE *f;
    bool pretty;      /* indented, arrays of scalars on one line (.gltf); compact for .glb */
    bool after_key;
    bool too_deep;
    uint32_t depth;
    uint8_t state[JW_MAX_DEPTH];
} jw;

static void jw_newline(jw *w) {
    putc('\n', w->f);
    for (uint32_t i = 0; i < w->depth; i++) fputs("  ", w->f);
}

/* What goes before a value: nothing after a key, else a comma and (pretty) a new line. */
static void jw_sep(jw *w) {
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0) return;
    uint8_t *st = &w->state[w->depth - 1];
    if (*st & JW_HAS_ITEMS) fputs(w->pretty && (*st & JW_INLINE) ? ", " : ",", w->f);
    if (w->pretty && !(*st & JW_INLINE)) jw_newline(w);
    *st |= JW_HAS_ITEMS;
}

static void jw_open(jw *w, char c, bool inline_items) {
    jw_sep(w);
    putc(c, w->f);
    if (w->depth == JW_MAX_DEPTH) {
        w->too_deep = true;
        return;
    }
    w->state[w->depth++] = inline_items ? JW_INLINE : 0;
}

static void jw_close(jw *w, char c) {
    if (w->depth == 0) return;
    uint8_t st = w->state[--w->depth];
    if (w->pretty && !(st & JW_INLINE) && (st & JW_HAS_ITEMS)) jw_newline(w);
    putc(c, w->f);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid. */
static size_t utf8_length(const unsigned char *s, size_t n) {
    size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
                               : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
    if (len == 0 || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (len == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0))) return 0;
    if (len == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))) return 0;
    return len;
}

/* A JSON string; bytes that are not UTF-8 (a name set in code) become U+FFFD. */
static void jw_quoted(jw *w, const char *text, size_t n) {
    const unsigned char *s = (const unsigned char *)text;
    putc('"', w->f);
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = utf8_length(s + i, n - i);
        if (len == 0) {
            fputs("\xEF\xBF\xBD", w->f);
            i++;
        } else if (c == '"' || c == '\\') {
            putc('\\', w->f);
            putc(c, w->f);
            i++;
        } else if (c < 0x20) {
            const char *esc = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
                            : c == '\f' ? "\\f" : NULL;
            if (esc)
                fputs(esc, w->f);
            else
                fprintf(w->f, "\\u%04x", c);
            i++;
        } else {
            fwrite(s + i, 1, len, w->f);
            i += len;
        }
    }
    putc('"', w->f);
}

static void jw_key(jw *w, const char *key) {
    jw_sep(w);
    jw_quoted(w, key, strlen(key));
    fputs(w->pretty ? ": " : ":", w->f);
    w->after_key = true;
}

static void jw_string(jw *w, const char *s) {
    jw_sep(w);
    jw_quoted(w, s, strlen(s));
}

static void jw_uint(jw *w, uint64_t v) {
    jw_sep(w);
    fprintf(w->f, "%" PRIu64, v);
}

static void jw_real(jw *w, arbor_real v) {
    char buf[40];
    format_number(buf, (double)v, sizeof(arbor_real) == sizeof(float));
    jw_sep(w);
    fputs(buf, w->f);
}

static void jw_reals(jw *w, const char *key, const arbor_real *v, int n) {
    jw_key(w, key);
    jw_open(w, '[', true);
    for (int i = 0; i < n; i++) jw_real(w, v[i]);
    jw_close(w, ']');
}

static bool json_is_container(const json_t *v) { return json_is_object(v) || json_is_array(v); }

/* Any jansson value, as it is. Recursion over JSON nesting, bounded by jansson's own limit. */
static void jw_json(jw *w, json_t *v) {
    char buf[40];
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *key;
        json_t *item;
        jw_open(w, '{', false);
        json_object_foreach(v, key, item) {
            jw_key(w, key);
            jw_json(w, item);
        }
        jw_close(w, '}');
        break;
    }
    case JSON_ARRAY: {
        bool scalars = true;
        for (size_t i = 0; i < json_array_size(v) && scalars; i++) scalars = !json_is_container(json_array_get(v, i));
        jw_open(w, '[', scalars);
        for (size_t i = 0; i < json_array_size(v); i++) jw_json(w, json_array_get(v, i));
        jw_close(w, ']');
        break;
    }
    case JSON_STRING:
        jw_sep(w);
        jw_quoted(w, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        jw_sep(w);
        fprintf(w->f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        format_number(buf, json_real_value(v), false);
        jw_sep(w);
        fputs(buf, w->f);
        break;
    case JSON_TRUE:
    case JSON_FALSE:
    case JSON_NULL:
        jw_sep(w);
        fputs(json_is_true(v) ? "true" : json_is_false(v) ? "false" : "null", w->f);
        break;
    }
}

/* ---- the saver's state ------------------------------------------------------------------------- */

enum { NODE_ANIMATED = 1, NODE_HAD_PARENT = 2, NODE_FILE_ROOT = 4 /* of the scene being written */ };

typedef struct out_node {
    uint32_t slot;
    uint32_t file;     /* glTF index in the document, NO_INDEX for a node created since */
    int32_t camera;    /* index into the written `cameras`, -1: none */
    int32_t light;     /* index into the written KHR_lights_punctual lights, -1: none */
    uint8_t flags;     /* NODE_* */
    uint32_t listed;   /* 1 + the last scene that listed it as a root (a root is listed once) */
} out_node;

typedef struct saver {
    arbor_scene *s;
    const arbor_gltf *doc;
    json_t *root;              /* the document's JSON, NULL without a document */
    const char *path;
    arbor_result result;       /* the first failure */
    bool glb;
    char *dir;                 /* the output's folder ("." when path has none) */
    char *stem;                /* the output's file name without its extension */
    uint32_t count;
    out_node *nodes;           /* by written index */
    uint32_t *index_of;        /* slot -> written index, NO_INDEX */
    uint32_t file_count;       /* nodes of the document */
    uint32_t *file_to_out;     /* glTF index -> written index, NO_INDEX: deleted */
    int32_t *skin_map;         /* document skin -> written skin, -1: dropped */
    uint32_t skin_count;
    uint32_t mesh_count;       /* meshes in the document */
    uint32_t cameras_kept, lights_kept;    /* the document's entries, all written as they are */
    uint32_t cameras_added, lights_added;  /* appended after them */
    uint32_t lights_used;
    uint32_t meshes_dropped, lights_skipped, directions_lost, sheared;
    int32_t target_scene;      /* where new roots go */
    uint64_t *buffer_offset;   /* .glb: each document buffer's offset in the BIN chunk */
    uint32_t *buffer_map;      /* .glb: document buffer -> written buffer */
    uint64_t bin_size;         /* .glb: the BIN chunk's data, before padding */
    arbor__node_ext_save ext;  /* visibility, instances, levels of detail (save_nodes.c) */
    uint64_t ext_offset;       /* .glb: where ext's new bytes go in the BIN chunk, UINT64_MAX: none */
    bool external_images;      /* .glb: images stay files beside it (arbor_gltf_save_options) */
    uint32_t image_count;      /* .glb: the document's images, and of each, when it goes into */
    char **image_file;         /* the BIN chunk: its file (NULL: not embedded), */
    uint64_t *image_offset, *image_size; /* where it goes and its size, */
    const char **image_mime;   /* its media type */
    uint32_t *image_view;      /* and the bufferView that holds it */
} saver;

static arbor_result fail(saver *sv, arbor_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Records the first failure: "PATH: reason" in the caller's error and the thread's last error. */
static arbor_result fail(saver *sv, arbor_result code, const char *fmt, ...) {
    if (sv->result != ARBOR_OK) return sv->result;
    char reason[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    sv->result = code;
    arbor__fail_at(code, "arbor_gltf_save", &(arbor__place){ .file = sv->path }, "%s", reason);
    return code;
}

/* Zeroed memory through the scene's allocator; NULL for nothing (count or size 0) or after
   recording the failure. Freed with arbor__free and the same count * size. */
static void *zalloc(saver *sv, size_t count, size_t size) {
    if (count == 0 || size == 0) return NULL;
    void *p = size <= SIZE_MAX / count ? arbor__alloc(sv->s, count * size) : NULL;
    if (p) memset(p, 0, count * size);
    else fail(sv, ARBOR_ERR_OUT_OF_MEMORY, "out of memory");
    return p;
}

static char *copy_string(saver *sv, const char *text, size_t n) {
    char *p = zalloc(sv, n + 1, 1);
    if (p) memcpy(p, text, n);
    return p;
}

static void free_string(saver *sv, char *p) {
    if (p) arbor__free(sv->s, p, strlen(p) + 1);
}

/* jansson's setters, checked: a value that could not be made or stored (jansson out of memory:
   v or the container is NULL, or the store failed) fails the save rather than leaving a hole
   in the file. Each takes v over, as json_object_set_new does. */
static void put(saver *sv, json_t *object, const char *key, json_t *v) {
    if (json_object_set_new(object, key, v)) fail(sv, ARBOR_ERR_OUT_OF_MEMORY, "out of memory (JSON)");
}

static void push(saver *sv, json_t *array, json_t *v) {
    if (json_array_append_new(array, v)) fail(sv, ARBOR_ERR_OUT_OF_MEMORY, "out of memory (JSON)");
}

static void replace(saver *sv, json_t *array, size_t index, json_t *v) {
    if (json_array_set_new(array, index, v)) fail(sv, ARBOR_ERR_OUT_OF_MEMORY, "out of memory (JSON)");
}

/* A copy of v (deep: of everything in it), or NULL (v NULL, or out of memory: then the save
   fails). jansson's copies leave out what they had no memory for, without a word: a copy is
   kept only when it equals v. */
static json_t *copied(saver *sv, bool deep, json_t *v) {
    json_t *copy = deep ? json_deep_copy(v) : json_copy(v);
    if (!v || json_equal(copy, v)) return copy;
    json_decref(copy);
    fail(sv, ARBOR_ERR_OUT_OF_MEMORY, "out of memory (JSON)");
    return NULL;
}

/* The document's top-level array (or NULL). */
static json_t *top(const saver *sv, const char *key) { return sv->root ? json_object_get(sv->root, key) : NULL; }

/* The index a JSON value holds (an integer, or a real with an integral value as a lenient load
   may leave) when it is below limit; -1 otherwise. */
static int64_t json_index(const json_t *v, size_t limit) {
    double d = json_number_value(v);
    if (!json_is_number(v) || !(d >= 0 && d < (double)limit) || d != floor(d)) return -1;
    return (int64_t)d;
}

/* The written index of the node a JSON value names, NO_INDEX when it names none that lives. */
static uint32_t map_node(const saver *sv, const json_t *v) {
    int64_t i = json_index(v, sv->file_count);
    return i < 0 ? NO_INDEX : sv->file_to_out[i];
}

/* ---- cameras and lights: the file's entry when unchanged, else a new one ------------------------ */

static bool close_to(double a, double b) {
    double scale = fmax(1.0, fmax(fabs(a), fabs(b)));
    return fabs(a - b) <= 1e-6 * scale;
}

static double number_or(const json_t *object, const char *key, double fallback) {
    const json_t *v = json_object_get(object, key);
    return json_is_number(v) ? json_number_value(v) : fallback;
}

static bool camera_matches(const json_t *j, const arbor_camera *c) {
    const char *type = json_string_value(json_object_get(j, "type"));
    if (c->type == ARBOR_CAMERA_PERSPECTIVE) {
        const json_t *p = json_object_get(j, "perspective");
        return type && !strcmp(type, "perspective") && json_is_object(p) &&
               close_to(number_or(p, "yfov", -1), c->yfov) && close_to(number_or(p, "aspectRatio", 0), c->aspect) &&
               close_to(number_or(p, "znear", -1), c->znear) && close_to(number_or(p, "zfar", 0), c->zfar);
    }
    const json_t *o = json_object_get(j, "orthographic");
    return type && !strcmp(type, "orthographic") && json_is_object(o) &&
           close_to(number_or(o, "xmag", 0), c->xmag) && close_to(number_or(o, "ymag", 0), c->ymag) &&
           close_to(number_or(o, "znear", -1), c->znear) && close_to(number_or(o, "zfar", -1), c->zfar);
}

static json_t *camera_json(saver *sv, const arbor_camera *c) {
    json_t *params = json_object();
    if (c->type == ARBOR_CAMERA_PERSPECTIVE) {
        if (c->aspect > 0) put(sv, params, "aspectRatio", json_real(real_for_json(c->aspect)));
        put(sv, params, "yfov", json_real(real_for_json(c->yfov)));
        if (c->zfar > 0) put(sv, params, "zfar", json_real(real_for_json(c->zfar)));
        put(sv, params, "znear", json_real(real_for_json(c->znear)));
    } else {
        put(sv, params, "xmag", json_real(real_for_json(c->xmag)));
        put(sv, params, "ymag", json_real(real_for_json(c->ymag)));
        put(sv, params, "zfar", json_real(real_for_json(c->zfar)));
        put(sv, params, "znear", json_real(real_for_json(c->znear)));
    }
    const char *type = c->type == ARBOR_CAMERA_PERSPECTIVE ? "perspective" : "orthographic";
    json_t *camera = json_object();
    put(sv, camera, "type", json_string(type));
    put(sv, camera, type, params);
    return camera;
}

static const char *light_type_name(arbor_light_type t) {
    return t == ARBOR_LIGHT_POINT ? "point" : t == ARBOR_LIGHT_SPOT ? "spot" : t == ARBOR_LIGHT_DIRECTIONAL ? "directional" : NULL;
}

#define SPOT_OUTER_DEFAULT 0.78539816339744830962 /* pi / 4, KHR_lights_punctual's default */

/* A spot light's cones, with glTF's defaults for both zero (view.h). */
static void light_cones(const arbor_light *l, double *inner, double *outer) {
    bool defaults = l->inner_cone == 0 && l->outer_cone == 0;
    *inner = defaults ? 0 : (double)l->inner_cone;
    *outer = defaults ? SPOT_OUTER_DEFAULT : (double)l->outer_cone;
}

static bool light_matches(const json_t *j, const arbor_light *l) {
    const char *type = json_string_value(json_object_get(j, "type"));
    if (!type || !light_type_name(l->type) || strcmp(type, light_type_name(l->type))) return false;
    const json_t *color = json_object_get(j, "color");
    for (int i = 0; i < 3; i++) {
        const json_t *c = json_array_get(color, (size_t)i);
        if (!close_to(json_is_number(c) ? json_number_value(c) : 1.0, l->color[i])) return false;
    }
    if (!close_to(number_or(j, "intensity", 1), l->intensity) || !close_to(number_or(j, "range", 0), l->range))
        return false;
    if (l->type != ARBOR_LIGHT_SPOT) return true;
    double inner, outer;
    light_cones(l, &inner, &outer);
    const json_t *spot = json_object_get(j, "spot");
    return close_to(number_or(spot, "innerConeAngle", 0), inner) &&
           close_to(number_or(spot, "outerConeAngle", SPOT_OUTER_DEFAULT), outer);
}

static json_t *light_json(saver *sv, const arbor_light *l) {
    json_t *light = json_object();
    put(sv, light, "type", json_string(light_type_name(l->type)));
    if (l->color[0] != 1 || l->color[1] != 1 || l->color[2] != 1) {
        json_t *color = json_array();
        for (int i = 0; i < 3; i++) push(sv, color, json_real(real_for_json(l->color[i])));
        put(sv, light, "color", color);
    }
    if (l->intensity != 1) put(sv, light, "intensity", json_real(real_for_json(l->intensity)));
    if (l->range > 0 && l->type != ARBOR_LIGHT_DIRECTIONAL)
        put(sv, light, "range", json_real(real_for_json(l->range)));
    if (l->type == ARBOR_LIGHT_SPOT) {
        double inner, outer;
        light_cones(l, &inner, &outer);
        json_t *spot = json_object();
        put(sv, spot, "innerConeAngle", json_real(real_for_json((arbor_real)inner)));
        put(sv, spot, "outerConeAngle", json_real(real_for_json((arbor_real)outer)));
        put(sv, light, "spot", spot);
    }
    return light;
}

/* The document's lights array (KHR_lights_punctual), or NULL. */
static json_t *document_lights(const saver *sv) {
    return json_object_get(json_object_get(top(sv, "extensions"), "KHR_lights_punctual"), "lights");
}

/* The node's JSON in the document, or NULL for a node created since. */
static json_t *node_json(const saver *sv, const out_node *o) {
    return o->file == NO_INDEX ? NULL : json_array_get(top(sv, "nodes"), o->file);
}

static void plan_views(saver *sv) {
    json_t *cameras = top(sv, "cameras"), *lights = document_lights(sv);
    sv->cameras_kept = (uint32_t)json_array_size(cameras);
    sv->lights_kept = (uint32_t)json_array_size(lights);
    for (uint32_t k = 0; k < sv->count; k++) {
        out_node *o = &sv->nodes[k];
        o->camera = o->light = -1;
        const arbor__attachment *a = arbor__attachment_of(sv->s, o->slot);
        if (!a) continue;
        json_t *nj = node_json(sv, o);
        if (a->has & ARBOR__HAS_CAMERA) {
            int64_t c = json_index(json_object_get(nj, "camera"), sv->cameras_kept);
            bool same = c >= 0 && camera_matches(json_array_get(cameras, (size_t)c), &a->camera);
            o->camera = same ? (int32_t)c : (int32_t)(sv->cameras_kept + sv->cameras_added++);
        }
        if (a->has & ARBOR__HAS_LIGHT) {
            if (!light_type_name(a->light.type)) {
                sv->lights_skipped++;  /* hemispheric: no glTF light holds it */
                continue;
            }
            const arbor_real *d = a->light.direction;
            if (!(d[0] == 0 && d[1] == 0 && (d[2] == 0 || d[2] == -1))) sv->directions_lost++;
            json_t *khr = json_object_get(json_object_get(nj, "extensions"), "KHR_lights_punctual");
            int64_t l = json_index(json_object_get(khr, "light"), sv->lights_kept);
            bool same = l >= 0 && light_matches(json_array_get(lights, (size_t)l), &a->light);
            o->light = same ? (int32_t)l : (int32_t)(sv->lights_kept + sv->lights_added++);
            sv->lights_used++;
        }
    }
}

/* ---- planning: node numbering, flags, skins ------------------------------------------------------ */

/* The node a KHR_animation_pointer "/nodes/N/translation" (rotation, scale) animates. */
static uint32_t pointer_trs_node(const saver *sv, const json_t *target) {
    json_t *khr = json_object_get(json_object_get(target, "extensions"), "KHR_animation_pointer");
    const char *p = json_string_value(json_object_get(khr, "pointer"));
    if (!p || strncmp(p, "/nodes/", 7)) return NO_INDEX;
    char *end;
    unsigned long long i = strtoull(p + 7, &end, 10);
    if (end == p + 7 || i >= sv->file_count) return NO_INDEX;
    return strcmp(end, "/translation") && strcmp(end, "/rotation") && strcmp(end, "/scale") ? NO_INDEX : sv->file_to_out[i];
}

/* Nodes whose TRS an animation drives: glTF forbids them a matrix. */
static void mark_animated(saver *sv) {
    json_t *animations = top(sv, "animations");
    for (size_t a = 0; a < json_array_size(animations); a++) {
        json_t *channels = json_object_get(json_array_get(animations, a), "channels");
        for (size_t c = 0; c < json_array_size(channels); c++) {
            json_t *target = json_object_get(json_array_get(channels, c), "target");
            const char *path = json_string_value(json_object_get(target, "path"));
            uint32_t k = map_node(sv, json_object_get(target, "node"));
            if (k != NO_INDEX && path && strcmp(path, "weights")) sv->nodes[k].flags |= NODE_ANIMATED;
            if ((k = pointer_trs_node(sv, target)) != NO_INDEX) sv->nodes[k].flags |= NODE_ANIMATED;
        }
    }
}

static void plan_skins(saver *sv) {
    json_t *skins = top(sv, "skins");
    sv->skin_count = (uint32_t)json_array_size(skins);
    if (!sv->skin_count) return;
    sv->skin_map = zalloc(sv, sv->skin_count, sizeof *sv->skin_map);
    if (!sv->skin_map) return;
    int32_t next = 0;
    for (uint32_t i = 0; i < sv->skin_count; i++) {
        json_t *joints = json_object_get(json_array_get(skins, i), "joints");
        bool whole = json_array_size(joints) > 0;
        for (size_t j = 0; j < json_array_size(joints) && whole; j++)
            whole = map_node(sv, json_array_get(joints, j)) != NO_INDEX;
        sv->skin_map[i] = whole ? next++ : -1;
        if (!whole) arbor__log(sv->s, ARBOR_LOG_WARN, "%s: /skins/%u: a joint was deleted, the skin is dropped", sv->path, i);
    }
}

static void plan_nodes(saver *sv) {
    arbor_scene *s = sv->s;
    sv->count = arbor_scene_node_count(s);
    sv->nodes = zalloc(sv, sv->count, sizeof *sv->nodes);
    sv->index_of = zalloc(sv, s->slot_end, sizeof *sv->index_of);
    sv->file_count = sv->doc ? sv->doc->node_count : 0;
    sv->file_to_out = zalloc(sv, sv->file_count, sizeof *sv->file_to_out);
    if (sv->result) return;
    memset(sv->index_of, 0xFF, (size_t)s->slot_end * sizeof *sv->index_of);
    uint32_t k = 0;
    for (uint32_t i = 0; i < sv->file_count; i++) {
        uint32_t slot = arbor__live_slot(s, sv->doc->nodes[i]);
        sv->file_to_out[i] = NO_INDEX;
        if (!slot || sv->index_of[slot] != NO_INDEX || k == sv->count) continue;
        sv->nodes[k] = (out_node){ .slot = slot, .file = i };
        sv->file_to_out[i] = sv->index_of[slot] = k++;
    }
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n) && k < sv->count;
         n = arbor_scene_next_node(s, n)) {
        uint32_t slot = arbor__slot(s, n);
        if (sv->index_of[slot] != NO_INDEX) continue;
        sv->nodes[k] = (out_node){ .slot = slot, .file = NO_INDEX };
        sv->index_of[slot] = k++;
    }
    sv->count = k;
    /* Which of the document's nodes had a parent in the file (a root now is then a new root). */
    json_t *file_nodes = top(sv, "nodes");
    for (size_t i = 0; i < json_array_size(file_nodes); i++) {
        json_t *children = json_object_get(json_array_get(file_nodes, i), "children");
        for (size_t c = 0; c < json_array_size(children); c++) {
            uint32_t child = map_node(sv, json_array_get(children, c));
            if (child != NO_INDEX) sv->nodes[child].flags |= NODE_HAD_PARENT;
        }
    }
    sv->mesh_count = (uint32_t)json_array_size(top(sv, "meshes"));
    sv->target_scene = sv->doc ? sv->doc->default_scene : 0;
    mark_animated(sv);
    plan_skins(sv);
    plan_views(sv);
}

/* ---- nodes ------------------------------------------------------------------------------------ */

static bool is_owned_node_key(const char *key) {
    static const char *const owned[] = { "name",   "children", "translation", "rotation", "scale",  "matrix",
                                         "mesh",   "camera",   "skin",        "weights",  "extensions" };
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        if (!strcmp(key, owned[i])) return true;
    return false;
}

/* A matrix whose columns are not orthogonal (1e-4 of their lengths, the float-build tolerance of
   arbor_mat4_decompose, in either build: file data carries float precision). */
static bool is_sheared(const arbor_real m[16]) {
    for (int a = 0; a < 3; a++) {
        for (int b = a + 1; b < 3; b++) {
            double dot = 0, la = 0, lb = 0;
            for (int r = 0; r < 3; r++) {
                dot += (double)m[4 * a + r] * m[4 * b + r];
                la += (double)m[4 * a + r] * m[4 * a + r];
                lb += (double)m[4 * b + r] * m[4 * b + r];
            }
            if (fabs(dot) > 1e-4 * sqrt(la * lb)) return true;
        }
    }
    return false;
}

/* Loading normalises a rotation (arbor__unit_quat), and normalising a unit quaternion again may
   move its last bits: true when the file's rotation is unit (a lenient load normalises one that
   is not) and loads as exactly q. */
static bool rotation_loads_as(const json_t *file, const arbor_real q[4]) {
    arbor_real v[4], unit[4];
    double length = 0;
    for (int i = 0; i < 4; i++) {
        const json_t *x = json_array_get(file, (size_t)i);
        if (!json_is_number(x)) return false;
        v[i] = (arbor_real)json_number_value(x);
        length += json_number_value(x) * json_number_value(x);
    }
    return json_array_size(file) == 4 && fabs(sqrt(length) - 1) < 0.005 && arbor__unit_quat(unit, v) &&
           !memcmp(unit, q, sizeof unit);
}

/* A quaternion that loads as exactly q (normalising it gives q). q itself for two thirds of unit
   quaternions; else q scaled by 1 +- k/32768 (k <= 128: still unit within 0.004, where loaders
   and the validator allow 0.00769) and nudged by what normalising moves, which finds one for all
   but a few in 10^5 (those are written as q, and load 1 ulp away). */
static void stable_rotation(const arbor_real q[4], arbor_real out[4]) {
    for (int k = 0; k <= 128; k++) {
        for (int sign = 1; sign >= (k ? -1 : 1); sign -= 2) {
            arbor_real c = (arbor_real)1 + (arbor_real)(sign * k) / 32768, v[4], unit[4];
            for (int i = 0; i < 4; i++) v[i] = q[i] * c;
            for (int step = 0; step < 4 && arbor__unit_quat(unit, v); step++) {
                if (!memcmp(unit, q, sizeof unit)) {
                    memcpy(out, v, sizeof v);
                    return;
                }
                for (int i = 0; i < 4; i++) v[i] = v[i] + (q[i] - unit[i]) * c;
            }
        }
    }
    memcpy(out, q, 4 * sizeof *q);
}

static void write_transform(saver *sv, jw *w, const out_node *o) {
    arbor_node n = arbor__handle(sv->s, o->slot);
    if (arbor_node_is_matrix_backed(sv->s, n) && !(o->flags & NODE_ANIMATED)) {
        arbor_real m[16];
        arbor_node_local_matrix(sv->s, n, m);
        if (is_sheared(m)) sv->sheared++;
        jw_reals(w, "matrix", m, 16);
        return;
    }
    /* TRS (an animated node must not hold a matrix: a matrix-backed one is written decomposed). */
    arbor_trs trs;
    arbor_node_trs(sv->s, n, &trs);
    const arbor_real *t = trs.translation, *r = trs.rotation, *sc = trs.scale;
    if (r[0] != 0 || r[1] != 0 || r[2] != 0 || r[3] != 1) {
        json_t *file_rotation = json_object_get(node_json(sv, o), "rotation");
        arbor_real q[4];
        if (rotation_loads_as(file_rotation, r)) {
            jw_key(w, "rotation");
            jw_json(w, file_rotation);  /* unchanged since the load: the file's own digits */
        } else {
            stable_rotation(r, q);
            jw_reals(w, "rotation", q, 4);
        }
    }
    if (sc[0] != 1 || sc[1] != 1 || sc[2] != 1) jw_reals(w, "scale", sc, 3);
    if (t[0] != 0 || t[1] != 0 || t[2] != 0) jw_reals(w, "translation", t, 3);
}

/* The node's extensions: the file's, with KHR_lights_punctual as the node holds it now. */
static void write_node_extensions(jw *w, json_t *file_extensions, int32_t light) {
    const char *key;
    json_t *value;
    size_t kept = 0;
    json_object_foreach(file_extensions, key, value) kept += strcmp(key, "KHR_lights_punctual") != 0;
    if (!kept && light < 0) return;
    jw_key(w, "extensions");
    jw_open(w, '{', false);
    json_object_foreach(file_extensions, key, value) {
        if (!strcmp(key, "KHR_lights_punctual")) continue;
        jw_key(w, key);
        jw_json(w, value);
    }
    if (light >= 0) {
        jw_key(w, "KHR_lights_punctual");
        jw_open(w, '{', false);
        jw_key(w, "light");
        jw_uint(w, (uint32_t)light);
        jw_close(w, '}');
    }
    jw_close(w, '}');
}

static void write_node(saver *sv, jw *w, const out_node *o) {
    arbor_scene *s = sv->s;
    arbor_node n = arbor__handle(s, o->slot);
    json_t *nj = node_json(sv, o);
    jw_open(w, '{', false);
    const char *name = arbor_node_name(s, n);
    if (name) {
        jw_key(w, "name");
        jw_string(w, name);
    }
    if (o->camera >= 0) {
        jw_key(w, "camera");
        jw_uint(w, (uint32_t)o->camera);
    }
    if (arbor_node_child_count(s, n)) {
        jw_key(w, "children");
        jw_open(w, '[', true);
        for (arbor_node c = arbor_node_first_child(s, n); !arbor_node_is_none(c); c = arbor_node_next_sibling(s, c))
            jw_uint(w, sv->index_of[arbor__slot(s, c)]);
        jw_close(w, ']');
    }
    write_transform(sv, w, o);
    int32_t mesh = arbor_node_mesh(s, n);
    if (mesh >= 0 && (uint32_t)mesh >= sv->mesh_count) {
        sv->meshes_dropped++;
        mesh = -1;
    }
    if (mesh >= 0) {
        jw_key(w, "mesh");
        jw_uint(w, (uint32_t)mesh);
        int32_t skin = o->file == NO_INDEX || !sv->skin_map || !sv->doc->node_skin ? -1 : sv->doc->node_skin[o->file];
        if (skin >= 0 && (uint32_t)skin < sv->skin_count && sv->skin_map[skin] >= 0) {
            jw_key(w, "skin");
            jw_uint(w, (uint32_t)sv->skin_map[skin]);
        }
        json_t *weights = json_object_get(nj, "weights");  /* they go with the file's mesh */
        if (weights && json_index(json_object_get(nj, "mesh"), sv->mesh_count) == mesh) {
            jw_key(w, "weights");
            jw_json(w, weights);
        }
    }
    json_t *extras = NULL, *exts = arbor__node_ext_save_node(&sv->ext, (uint32_t)(o - sv->nodes), o->slot, nj,
                                                             sv->file_to_out, sv->file_count, &extras);
    if (sv->ext.failed && !sv->result) fail(sv, ARBOR_ERR_OUT_OF_MEMORY, "out of memory for the node extensions");
    write_node_extensions(w, exts, o->light);
    json_decref(exts);
    const char *key;
    json_t *value;
    json_object_foreach(nj, key, value) {
        if (is_owned_node_key(key) || (extras && !strcmp(key, "extras"))) continue;
        jw_key(w, key);
        jw_json(w, value);
    }
    if (extras && json_object_size(extras)) {
        jw_key(w, "extras");
        jw_json(w, extras);
    }
    json_decref(extras);
    jw_close(w, '}');
}

static void write_nodes(saver *sv, jw *w) {
    jw_open(w, '[', false);
    for (uint32_t k = 0; k < sv->count; k++) write_node(sv, w, &sv->nodes[k]);
    jw_close(w, ']');
}

/* ---- scenes ------------------------------------------------------------------------------------ */

/* A live root that belongs to no scene of the file: created since, or a child in the file. */
static bool is_new_root(const saver *sv, uint32_t k) {
    return sv->nodes[k].file == NO_INDEX || (sv->nodes[k].flags & NODE_HAD_PARENT);
}

/* Lists root k in scene `scene` unless it is there already (a file may list a node twice). */
static void list_root(saver *sv, jw *w, uint32_t scene, uint32_t k, size_t *written) {
    if (sv->nodes[k].listed == scene + 1) return;
    sv->nodes[k].listed = scene + 1;
    if (!(*written)++) {
        jw_key(w, "nodes");
        jw_open(w, '[', true);
    }
    jw_uint(w, k);
}

/* Scene `scene`'s roots: the file's that are still roots, in the file's order; for the target
   scene, those and the new ones in the scene graph's order of roots (the loader creates the
   roots of the scene it loads in its order, so a reload keeps it). */
static void write_scene_roots(saver *sv, jw *w, uint32_t scene, json_t *file_roots, bool add_new) {
    arbor_scene *s = sv->s;
    size_t written = 0;
    for (size_t i = 0; i < json_array_size(file_roots); i++) {
        uint32_t k = map_node(sv, json_array_get(file_roots, i));
        if (k == NO_INDEX || !arbor_node_is_none(arbor_node_parent(s, arbor__handle(s, sv->nodes[k].slot)))) continue;
        if (add_new) sv->nodes[k].flags |= NODE_FILE_ROOT;
        else list_root(sv, w, scene, k, &written);
    }
    for (arbor_node r = arbor_scene_first_root(s); add_new && !arbor_node_is_none(r); r = arbor_node_next_sibling(s, r)) {
        uint32_t k = sv->index_of[arbor__slot(s, r)];
        if (is_new_root(sv, k) || (sv->nodes[k].flags & NODE_FILE_ROOT)) list_root(sv, w, scene, k, &written);
        sv->nodes[k].flags &= (uint8_t)~NODE_FILE_ROOT;
    }
    if (written) jw_close(w, ']');
}

static void write_scenes(saver *sv, jw *w) {
    json_t *scenes = top(sv, "scenes");
    jw_open(w, '[', false);
    if (!sv->doc) {  /* one scene holding every root */
        jw_open(w, '{', false);
        write_scene_roots(sv, w, 0, NULL, true);
        jw_close(w, '}');
    }
    for (size_t i = 0; i < json_array_size(scenes); i++) {
        json_t *scene = json_array_get(scenes, i);
        const char *key;
        json_t *value;
        jw_open(w, '{', false);
        json_object_foreach(scene, key, value) {
            if (strcmp(key, "nodes")) {
                jw_key(w, key);
                jw_json(w, value);
            }
        }
        write_scene_roots(sv, w, (uint32_t)i, json_object_get(scene, "nodes"), (int32_t)i == sv->target_scene);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

/* ---- what passes through, remapped ------------------------------------------------------------ */

static json_t *build_asset(saver *sv) {
    json_t *asset = json_is_object(top(sv, "asset")) ? copied(sv, false, top(sv, "asset")) : json_object();
    char generator[64];
    snprintf(generator, sizeof generator, "arbor %s", arbor_version());
    if (!json_object_get(asset, "version")) put(sv, asset, "version", json_string("2.0"));
    put(sv, asset, "generator", json_string(generator));
    return asset;
}

static json_t *build_skins(saver *sv) {
    json_t *skins = top(sv, "skins"), *out = json_array();
    for (uint32_t i = 0; i < sv->skin_count; i++) {
        if (sv->skin_map[i] < 0) continue;
        json_t *skin = copied(sv, true, json_array_get(skins, i));
        json_t *joints = json_object_get(skin, "joints");
        for (size_t j = 0; j < json_array_size(joints); j++)
            replace(sv, joints, j, json_integer(map_node(sv, json_array_get(joints, j))));
        json_t *skeleton = json_object_get(skin, "skeleton");
        if (skeleton) {
            uint32_t k = map_node(sv, skeleton);
            if (k == NO_INDEX) json_object_del(skin, "skeleton");
            else put(sv, skin, "skeleton", json_integer(k));
        }
        push(sv, out, skin);
    }
    return out;
}

/* Rewrites "/nodes/N/..." of a KHR_animation_pointer; false when node N is gone. */
static bool remap_pointer(saver *sv, json_t *holder) {
    const char *p = json_string_value(json_object_get(holder, "pointer"));
    if (!p || strncmp(p, "/nodes/", 7)) return true;
    char *end;
    errno = 0;
    unsigned long long i = strtoull(p + 7, &end, 10);
    if (end == p + 7 || errno || i >= sv->file_count || sv->file_to_out[i] == NO_INDEX) return false;
    size_t len = strlen(end) + 32;
    char *rewritten = zalloc(sv, len, 1);
    if (!rewritten) return true;
    snprintf(rewritten, len, "/nodes/%" PRIu32 "%s", sv->file_to_out[i], end);
    put(sv, holder, "pointer", json_string(rewritten));
    arbor__free(sv->s, rewritten, len);
    return true;
}

static json_t *build_animations(saver *sv) {
    json_t *animations = top(sv, "animations"), *out = json_array();
    for (size_t a = 0; a < json_array_size(animations); a++) {
        json_t *animation = copied(sv, true, json_array_get(animations, a));
        json_t *channels = json_object_get(animation, "channels");
        for (size_t c = 0; c < json_array_size(channels);) {
            json_t *target = json_object_get(json_array_get(channels, c), "target");
            json_t *node = json_object_get(target, "node");
            json_t *pointer = json_object_get(json_object_get(target, "extensions"), "KHR_animation_pointer");
            bool keep = pointer ? remap_pointer(sv, pointer) : true;
            if (keep && node) {
                uint32_t k = map_node(sv, node);
                keep = k != NO_INDEX;
                if (keep) put(sv, target, "node", json_integer(k));
            }
            if (keep) {
                c++;
                continue;
            }
            arbor__log(sv->s, ARBOR_LOG_WARN, "%s: /animations/%zu/channels: a channel's node was deleted, the channel is dropped",
                       sv->path, a);
            json_array_remove(channels, c);
        }
        if (json_array_size(channels) == 0 && json_is_array(channels)) {
            arbor__log(sv->s, ARBOR_LOG_WARN, "%s: /animations/%zu: no channel is left, the animation is dropped", sv->path, a);
            json_decref(animation);
            continue;
        }
        push(sv, out, animation);
    }
    return out;
}

static json_t *build_cameras(saver *sv) {
    json_t *out = json_is_array(top(sv, "cameras")) ? copied(sv, false, top(sv, "cameras")) : json_array();
    for (uint32_t k = 0; k < sv->count; k++) {
        const out_node *o = &sv->nodes[k];
        if (o->camera >= (int32_t)sv->cameras_kept)
            push(sv, out, camera_json(sv, &arbor__attachment_of(sv->s, o->slot)->camera));
    }
    return out;
}

/* The top-level extensions with the new lights appended to KHR_lights_punctual's. */
static json_t *build_extensions(saver *sv) {
    json_t *file = top(sv, "extensions");
    json_t *out = json_is_object(file) ? copied(sv, false, file) : json_object();
    if (!sv->lights_added) return out;
    json_t *khr = json_object_get(out, "KHR_lights_punctual");
    khr = json_is_object(khr) ? copied(sv, false, khr) : json_object();
    json_t *lights = json_is_array(document_lights(sv)) ? copied(sv, false, document_lights(sv)) : json_array();
    for (uint32_t k = 0; k < sv->count; k++) {
        const out_node *o = &sv->nodes[k];
        if (o->light >= (int32_t)sv->lights_kept)
            push(sv, lights, light_json(sv, &arbor__attachment_of(sv->s, o->slot)->light));
    }
    put(sv, khr, "lights", lights);
    put(sv, out, "KHR_lights_punctual", khr);
    return out;
}

static json_t *build_extensions_used(saver *sv) {
    json_t *file = top(sv, "extensionsUsed");
    json_t *out = json_is_array(file) ? copied(sv, false, file) : json_array();
    bool listed = false;
    for (size_t i = 0; i < json_array_size(out); i++) {
        const char *name = json_string_value(json_array_get(out, i));
        listed |= name && !strcmp(name, "KHR_lights_punctual");
    }
    if (sv->lights_used && !listed) push(sv, out, json_string("KHR_lights_punctual"));
    return out;
}

/* ---- buffers and images ----------------------------------------------------------------------- */

static bool is_data_uri(const char *uri) { return uri && !strncmp(uri, "data:", 5); }

/* A URI with a scheme ("http:", "file:") or an absolute path: it does not move with the file. */
static bool is_absolute_uri(const char *uri) {
    if (uri[0] == '/' || uri[0] == '\\') return true;
    size_t i = 0;
    while (uri[i] && (isalnum((unsigned char)uri[i]) || uri[i] == '+' || uri[i] == '-' || uri[i] == '.')) i++;
    return i > 0 && uri[i] == ':';
}

static int hex_value(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The path a relative URI names (percent-decoded), in the saver's allocation. */
static char *uri_to_path(saver *sv, const char *uri) {
    size_t n = strlen(uri);
    char *out = zalloc(sv, n + 1, 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (uri[i] == '%' && hex_value(uri[i + 1]) >= 0 && hex_value(uri[i + 2]) >= 0) {
            out[o++] = (char)(hex_value(uri[i + 1]) * 16 + hex_value(uri[i + 2]));
            i += 2;
        } else {
            out[o++] = uri[i];
        }
    }
    return out;
}

/* A file name as a URI: every byte outside RFC 3986's unreserved set percent-encoded. */
static json_t *uri_of_name(const char *name) {
    char buf[3 * PATH_MAX + 1];
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && o + 4 < sizeof buf; p++) {
        if (isalnum(*p) || strchr("-._~", *p))
            buf[o++] = (char)*p;
        else
            o += (size_t)snprintf(buf + o, 4, "%%%02X", *p);
    }
    buf[o] = '\0';
    return json_string(buf);
}

static char *join_path(saver *sv, const char *dir, const char *name) {
    size_t len = strlen(dir) + strlen(name) + 2;
    char *p = zalloc(sv, len, 1);
    if (p) snprintf(p, len, "%s/%s", dir, name);
    return p;
}

/* A file written under a temporary name in its folder, renamed over `path` when complete. */
typedef struct out_file {
    FILE *f;
    char tmp[PATH_MAX + 64];
} out_file;

/* How a reason names a file: the message already starts with the output's path. */
static const char *which(const saver *sv, const char *path) { return strcmp(path, sv->path) ? path : "the file"; }

static bool out_open(saver *sv, out_file *out, const char *path) {
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(out->tmp, sizeof out->tmp, "%s.tmp-%ld-%" PRIxPTR "-%d", path, (long)getpid(), (uintptr_t)out, attempt);
        int fd = open(out->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno == EEXIST) continue;
        if (fd < 0) break;
        out->f = fdopen(fd, "wb");
        if (out->f) return true;
        close(fd);
        unlink(out->tmp);
        break;
    }
    fail(sv, ARBOR_ERR_IO, "cannot create %s: %s", which(sv, path), strerror(errno));
    return false;
}

static bool out_commit(saver *sv, out_file *out, const char *path) {
    bool ok = !ferror(out->f) && sv->result == ARBOR_OK;
    int err = ok ? 0 : errno;
    if (fclose(out->f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (ok && rename(out->tmp, path) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        unlink(out->tmp);
        fail(sv, ARBOR_ERR_IO, "cannot write %s: %s", which(sv, path), err ? strerror(err) : "write error");
    }
    return ok;
}

static void write_bytes_file(saver *sv, const char *path, const void *data, size_t size) {
    out_file out;
    if (!out_open(sv, &out, path)) return;
    if (size) fwrite(data, 1, size, out.f);
    out_commit(sv, &out, path);
}

/* Creates the folders of `path` under the output folder (an image URI "textures/a.png"). */
static void make_parent_dirs(char *path) {
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        mkdir(path, 0777);
        *p = '/';
    }
}

/* Copies an image; one the source lacks already (or that is no regular file) is left missing,
   with a warning. */
static void copy_file(saver *sv, const char *from, const char *to) {
    FILE *in;
    uint64_t size;
    char reason[400];
    if (arbor__gltf_open_file(from, &in, &size, reason, sizeof reason)) {
        arbor__log(sv->s, ARBOR_LOG_WARN, "%s: not copied: %s", sv->path, reason);
        return;
    }
    out_file out;
    if (out_open(sv, &out, to)) {
        char chunk[16384];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, in)) > 0) fwrite(chunk, 1, n, out.f);
        if (ferror(in)) fail(sv, ARBOR_ERR_IO, "cannot read %s: %s", from, strerror(errno));
        out_commit(sv, &out, to);
    }
    fclose(in);
}

/* True when both name the same folder. */
static bool same_folder(const char *a, const char *b) {
    char ra[PATH_MAX], rb[PATH_MAX];
    return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

/* True when a relative path stays inside its folder (no ".." segment). */
static bool stays_inside(const char *path) {
    for (const char *p = path; *p;) {
        size_t seg = strcspn(p, "/\\");
        if (seg == 2 && p[0] == '.' && p[1] == '.') return false;
        p += seg;
        if (*p) p++;
    }
    return true;
}

static bool image_embedded(const saver *sv, size_t i);

/* Images with relative URIs (those a .glb does not hold), copied beside the output when it is
   written elsewhere than the source, so that they resolve from there. */
static json_t *build_images(saver *sv) {
    json_t *images = top(sv, "images");
    const char *source_dir = !sv->doc || !sv->doc->base_dir ? NULL : sv->doc->base_dir[0] ? sv->doc->base_dir : ".";
    bool copy = source_dir && !same_folder(source_dir, sv->dir);
    json_t *out = copied(sv, true, images);
    for (size_t i = 0; i < json_array_size(out) && !sv->result; i++) {
        json_t *image = json_array_get(out, i);
        const char *uri = json_string_value(json_object_get(image, "uri"));
        if (image_embedded(sv, i)) { /* .glb: in the BIN chunk */
            json_object_del(image, "uri");
            put(sv, image, "bufferView", json_integer(sv->image_view[i]));
            put(sv, image, "mimeType", json_string(sv->image_mime[i]));
            continue;
        }
        if (!copy || !uri || is_data_uri(uri) || is_absolute_uri(uri)) continue;
        char *rel = uri_to_path(sv, uri);
        if (!rel) break;
        /* Kept at the same relative place when it stays in the folder, else beside the output. */
        const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
        bool inside = stays_inside(rel);
        char *from = join_path(sv, source_dir, rel), *to = join_path(sv, sv->dir, inside ? rel : base);
        if (from && to) {
            if (inside) make_parent_dirs(to);
            copy_file(sv, from, to);
            if (!inside) put(sv, image, "uri", uri_of_name(base));
        }
        free_string(sv, from);
        free_string(sv, to);
        free_string(sv, rel);
    }
    return out;
}

/* .gltf: each buffer that came from a file or the GLB chunk is written as <stem>.bin (or
   <stem>_N.bin when there are several) beside the output; data: URIs stay. */
static json_t *build_gltf_buffers(saver *sv) {
    json_t *out = copied(sv, true, top(sv, "buffers"));
    uint32_t to_write = 0;
    for (size_t i = 0; i < json_array_size(out); i++) {
        const char *uri = json_string_value(json_object_get(json_array_get(out, i), "uri"));
        to_write += i < sv->doc->buffer_count && sv->doc->buffers[i].data && !is_data_uri(uri);
    }
    for (size_t i = 0; i < json_array_size(out) && !sv->result; i++) {
        json_t *buffer = json_array_get(out, i);
        const char *uri = json_string_value(json_object_get(buffer, "uri"));
        if (i >= sv->doc->buffer_count || !sv->doc->buffers[i].data || is_data_uri(uri)) continue;
        char name[PATH_MAX];
        if (to_write == 1) snprintf(name, sizeof name, "%s.bin", sv->stem);
        else snprintf(name, sizeof name, "%s_%zu.bin", sv->stem, i);
        char *file = join_path(sv, sv->dir, name);
        if (!file) break;
        write_bytes_file(sv, file, sv->doc->buffers[i].data, sv->doc->buffers[i].size);
        free_string(sv, file);
        put(sv, buffer, "uri", uri_of_name(name));
    }
    return out;
}

static void plan_glb_images(saver *sv);

/* .glb: what goes into the one BIN chunk: every buffer that has bytes. */
static bool buffer_merged(const saver *sv, size_t i) { return i < sv->doc->buffer_count && sv->doc->buffers[i].data; }

/* Places the merged buffers in the BIN chunk, each at a 4-byte boundary; the others (no bytes:
   an http: URI, or no uri in a .gltf) keep their own entries after it. As a GLB's buffer 0
   without uri is the BIN chunk, one of those never comes first: when nothing has bytes, buffer
   0 is a BIN chunk of 4 zero bytes. */
/* .glb: the bytes save_nodes.c writes anew go last in the BIN chunk. */
static void plan_glb_ext(saver *sv) {
    if (!sv->ext.bin_size) return;
    sv->ext_offset = (sv->bin_size + 3) & ~(uint64_t)3;
    sv->bin_size = sv->ext_offset + sv->ext.bin_size;
}

static void plan_glb_buffers(saver *sv) {
    json_t *buffers = top(sv, "buffers");
    uint32_t count = (uint32_t)json_array_size(buffers);
    sv->buffer_offset = zalloc(sv, count, sizeof *sv->buffer_offset);
    sv->buffer_map = zalloc(sv, count, sizeof *sv->buffer_map);
    if (sv->result) return;
    bool uriless = false;
    for (uint32_t i = 0; i < count; i++) {
        if (!buffer_merged(sv, i)) {
            uriless |= !json_object_get(json_array_get(buffers, i), "uri");
            continue;
        }
        sv->bin_size = (sv->bin_size + 3) & ~(uint64_t)3;
        sv->buffer_offset[i] = sv->bin_size;
        sv->bin_size += sv->doc->buffers[i].size;
    }
    plan_glb_ext(sv);
    plan_glb_images(sv);
    if (!sv->bin_size && uriless) sv->bin_size = 4;
    uint32_t next = sv->bin_size ? 1 : 0;
    for (uint32_t i = 0; i < count; i++) sv->buffer_map[i] = buffer_merged(sv, i) ? 0 : next++;
}

/* The media type of an image file by its first bytes: PNG, JPEG, WebP, KTX2; NULL otherwise. */
static const char *sniff_mime(FILE *f) {
    unsigned char h[12] = { 0 };
    size_t n = fread(h, 1, sizeof h, f);
    if (n >= 8 && !memcmp(h, "\x89PNG\r\n\x1a\n", 8)) return "image/png";
    if (n >= 3 && h[0] == 0xFF && h[1] == 0xD8 && h[2] == 0xFF) return "image/jpeg";
    if (n >= 12 && !memcmp(h, "RIFF", 4) && !memcmp(h + 8, "WEBP", 4)) return "image/webp";
    if (n >= 12 && !memcmp(h, "\xABKTX 20\xBB\r\n\x1a\n", 12)) return "image/ktx2";
    return NULL;
}

/* .glb: the images with relative URIs go into the BIN chunk after the buffers, each at a 4-byte
   boundary, with a bufferView of their own after the document's (unless external_images). One
   that cannot be read, or whose media type is unknown, stays a URI (copied beside the output). */
static void plan_glb_images(saver *sv) {
    json_t *images = top(sv, "images");
    const char *source_dir = !sv->doc || !sv->doc->base_dir ? NULL : sv->doc->base_dir[0] ? sv->doc->base_dir : ".";
    uint32_t n = (uint32_t)json_array_size(images);
    uint32_t views = (uint32_t)(json_array_size(top(sv, "bufferViews")) + json_array_size(sv->ext.views));
    if (!n || sv->external_images || !source_dir) return;
    sv->image_count = n; /* what free_saver frees, whichever of these were made */
    sv->image_file = zalloc(sv, n, sizeof *sv->image_file);
    sv->image_offset = zalloc(sv, n, sizeof *sv->image_offset);
    sv->image_size = zalloc(sv, n, sizeof *sv->image_size);
    sv->image_mime = zalloc(sv, n, sizeof *sv->image_mime);
    sv->image_view = zalloc(sv, n, sizeof *sv->image_view);
    if (sv->result) return;
    for (uint32_t i = 0; i < n && !sv->result; i++) {
        json_t *image = json_array_get(images, i);
        const char *uri = json_string_value(json_object_get(image, "uri"));
        if (!uri || is_data_uri(uri) || is_absolute_uri(uri)) continue;
        char *rel = uri_to_path(sv, uri), *file = rel ? join_path(sv, source_dir, rel) : NULL;
        free_string(sv, rel);
        if (!file) break;
        FILE *in;
        uint64_t size;
        char reason[400];
        const char *mime = json_string_value(json_object_get(image, "mimeType"));
        arbor_result r = arbor__gltf_open_file(file, &in, &size, reason, sizeof reason);
        if (!r) {
            if (!mime) mime = sniff_mime(in);
            fclose(in);
            if (!mime) snprintf(reason, sizeof reason, "%s is no image arbor knows", file);
        }
        if (r || !mime) {
            arbor__log(sv->s, ARBOR_LOG_WARN, "%s: /images/%u/uri: %s: left as a URI", sv->path, i, reason);
            free_string(sv, file);
            continue;
        }
        sv->bin_size = (sv->bin_size + 3) & ~(uint64_t)3;
        sv->image_file[i] = file;
        sv->image_offset[i] = sv->bin_size;
        sv->image_size[i] = size;
        sv->image_mime[i] = mime;
        sv->image_view[i] = views++;
        sv->bin_size += size;
    }
}

static bool image_embedded(const saver *sv, size_t i) {
    return i < sv->image_count && sv->image_file && sv->image_file[i];
}

/* n zero bytes. */
static void write_zeros(FILE *f, uint64_t n) {
    static const unsigned char zeros[4096];
    for (; n > sizeof zeros; n -= sizeof zeros) fwrite(zeros, 1, sizeof zeros, f);
    fwrite(zeros, 1, (size_t)n, f);
}

/* The BIN chunk's buffer keeps what the merged buffers say besides uri and byteLength (name,
   extras, extensions); where two say different things, the first one's stays, with a warning. */
static void keep_merged_properties(saver *sv, json_t *bin) {
    json_t *buffers = top(sv, "buffers");
    for (size_t i = 0; i < json_array_size(buffers); i++) {
        if (!buffer_merged(sv, i)) continue;
        const char *key;
        json_t *value;
        json_object_foreach(json_array_get(buffers, i), key, value) {
            json_t *kept = json_object_get(bin, key);
            if (!strcmp(key, "uri") || !strcmp(key, "byteLength") || json_equal(kept, value)) continue;
            if (!kept)
                put(sv, bin, key, json_incref(value));
            else
                arbor__log(sv->s, ARBOR_LOG_WARN, "%s: /buffers/%zu/%s: dropped: an earlier buffer merged into the BIN chunk has its own",
                           sv->path, i, key);
        }
    }
}

static json_t *build_glb_buffers(saver *sv) {
    json_t *buffers = top(sv, "buffers"), *out = json_array();
    if (sv->bin_size) {
        json_t *bin = json_object();
        put(sv, bin, "byteLength", json_integer((json_int_t)sv->bin_size));
        keep_merged_properties(sv, bin);
        push(sv, out, bin);
    }
    for (size_t i = 0; i < json_array_size(buffers); i++)
        if (!buffer_merged(sv, i)) push(sv, out, json_incref(json_array_get(buffers, i)));
    return out;
}

static json_t *build_glb_buffer_views(saver *sv) {
    json_t *out = top(sv, "bufferViews") ? copied(sv, true, top(sv, "bufferViews")) : json_array();
    size_t buffer_count = json_array_size(top(sv, "buffers"));
    for (size_t i = 0; i < json_array_size(out); i++) {
        json_t *view = json_array_get(out, i);
        int64_t b = json_index(json_object_get(view, "buffer"), buffer_count);
        if (b < 0) continue;
        size_t bi = (size_t)b;
        put(sv, view, "buffer", json_integer(sv->buffer_map[bi]));
        uint64_t offset = (uint64_t)number_or(view, "byteOffset", 0) + (buffer_merged(sv, bi) ? sv->buffer_offset[bi] : 0);
        if (offset) put(sv, view, "byteOffset", json_integer((json_int_t)offset));
        /* a meshopt-compressed view names the buffer of its compressed bytes too */
        static const char *const meshopt[] = { "EXT_meshopt_compression", "KHR_meshopt_compression" };
        for (int k = 0; k < 2; k++) {
            json_t *ext = json_object_get(json_object_get(view, "extensions"), meshopt[k]);
            int64_t eb = json_index(json_object_get(ext, "buffer"), buffer_count);
            if (eb < 0) continue;
            put(sv, ext, "buffer", json_integer(sv->buffer_map[eb]));
            uint64_t at = (uint64_t)number_or(ext, "byteOffset", 0) + (buffer_merged(sv, (size_t)eb) ? sv->buffer_offset[eb] : 0);
            if (at) put(sv, ext, "byteOffset", json_integer((json_int_t)at));
        }
    }
    return out;
}

/* .glb: the embedded images' bufferViews, after the document's and the node extensions' ones. */
static void append_image_views(saver *sv, json_t *out) {
    json_t *views = json_object_get(out, "bufferViews");
    for (uint32_t i = 0; i < sv->image_count && !sv->result; i++) {
        if (!image_embedded(sv, i)) continue;
        if (!views) put(sv, out, "bufferViews", views = json_array());
        json_t *view = json_object();
        put(sv, view, "buffer", json_integer(0));
        put(sv, view, "byteOffset", json_integer((json_int_t)sv->image_offset[i]));
        put(sv, view, "byteLength", json_integer((json_int_t)sv->image_size[i]));
        if (json_array_size(views) != sv->image_view[i]) fail(sv, ARBOR_ERR_OUT_OF_MEMORY, "out of memory (JSON)");
        push(sv, views, view);
    }
}

/* ---- the main file ------------------------------------------------------------------------------ */

/* The top level, in the document's order (asset first), with placeholders for nodes and scenes. */
static json_t *build_top(saver *sv) {
    json_t *out = json_object();
    put(sv, out, "asset", build_asset(sv));
    const char *key;
    json_t *value;
    json_object_foreach(sv->root, key, value) {
        json_t *v = NULL;
        if (!strcmp(key, "asset")) continue;
        else if (!strcmp(key, "nodes") || !strcmp(key, "scenes")) v = json_true();
        else if (!strcmp(key, "skins")) v = build_skins(sv);
        else if (!strcmp(key, "animations")) v = build_animations(sv);
        else if (!strcmp(key, "cameras")) v = build_cameras(sv);
        else if (!strcmp(key, "extensions")) v = build_extensions(sv);
        else if (!strcmp(key, "extensionsUsed")) v = build_extensions_used(sv);
        else if (!strcmp(key, "images")) v = build_images(sv);
        else if (!strcmp(key, "buffers")) v = sv->glb ? build_glb_buffers(sv) : build_gltf_buffers(sv);
        else if (!strcmp(key, "bufferViews") && sv->glb) v = build_glb_buffer_views(sv);
        else if (!strcmp(key, "scene") && json_index(value, json_array_size(top(sv, "scenes"))) < 0) continue;
        else v = json_incref(value);
        put(sv, out, key, v);
        if (!strcmp(key, "scenes") && !json_object_get(sv->root, "nodes"))
            put(sv, out, "nodes", json_true());  /* new nodes follow their scenes */
    }
    /* What the document did not have. */
    if (!sv->doc) put(sv, out, "scene", json_integer(0));
    if (!json_object_get(out, "scenes") && !sv->doc) put(sv, out, "scenes", json_true());
    if (!json_object_get(out, "nodes")) put(sv, out, "nodes", json_true());
    if (!json_object_get(out, "cameras")) put(sv, out, "cameras", build_cameras(sv));
    if (!json_object_get(out, "extensionsUsed")) put(sv, out, "extensionsUsed", build_extensions_used(sv));
    if (!json_object_get(out, "extensions")) { /* new lights; an empty object only where the file had one */
        json_t *extensions = build_extensions(sv);
        if (json_object_size(extensions)) put(sv, out, "extensions", extensions);
        else json_decref(extensions);
    }
    if (sv->glb && sv->bin_size && !json_object_get(out, "buffers")) put(sv, out, "buffers", build_glb_buffers(sv));
    arbor__node_ext_save_append(&sv->ext, out, sv->ext_offset, sv->bin_size);
    append_image_views(sv, out);
    return out;
}

/* Every top-level entry, leaving out what is empty (glTF arrays hold at least one item). */
static void write_top(saver *sv, jw *w, json_t *out) {
    const char *key;
    json_t *value;
    jw_open(w, '{', false);
    json_object_foreach(out, key, value) {
        bool streamed = !strcmp(key, "nodes") || !strcmp(key, "scenes");
        if (streamed ? !strcmp(key, "nodes") && sv->count == 0 : json_is_array(value) && json_array_size(value) == 0)
            continue;
        jw_key(w, key);
        if (!streamed) jw_json(w, value);
        else if (!strcmp(key, "nodes")) write_nodes(sv, w);
        else write_scenes(sv, w);
    }
    jw_close(w, '}');
}

static void put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void write_main(saver *sv, json_t *out) {
    out_file file;
    if (!out_open(sv, &file, sv->path)) return;
    jw *w = zalloc(sv, 1, sizeof *w);
    if (!w) {
        fclose(file.f);
        unlink(file.tmp);
        return;
    }
    w->f = file.f;
    w->pretty = !sv->glb;
    unsigned char header[20] = { 0 };
    if (sv->glb) fwrite(header, 1, sizeof header, file.f);  /* filled in once the sizes are known */
    write_top(sv, w, out);
    if (w->too_deep) fail(sv, ARBOR_ERR_UNSUPPORTED, "the document nests deeper than %d levels", JW_MAX_DEPTH);
    if (!sv->glb) {
        putc('\n', file.f);
    } else {
        long json_end = ftell(file.f);
        uint64_t json_size = json_end < 20 ? 0 : (uint64_t)json_end - 20;
        for (; json_size % 4; json_size++) putc(' ', file.f);
        uint64_t bin_chunk = (sv->bin_size + 3) & ~(uint64_t)3;
        uint64_t total = 20 + json_size + (bin_chunk ? 8 + bin_chunk : 0);
        if (total > UINT32_MAX) fail(sv, ARBOR_ERR_UNSUPPORTED, "a .glb holds at most 4 GiB, this one needs %" PRIu64 " bytes", total);
        if (bin_chunk && !sv->result) {
            unsigned char chunk[8];
            put_u32(chunk, (uint32_t)bin_chunk);
            put_u32(chunk + 4, GLB_BIN);
            fwrite(chunk, 1, 8, file.f);
            uint64_t at = 0;
            for (uint32_t i = 0; sv->doc && i < sv->doc->buffer_count; i++) {
                const arbor__gltf_buffer *b = &sv->doc->buffers[i];
                if (!buffer_merged(sv, i)) continue;
                write_zeros(file.f, sv->buffer_offset[i] - at);
                fwrite(b->data, 1, b->size, file.f);
                at = sv->buffer_offset[i] + b->size;
            }
            if (sv->ext_offset != UINT64_MAX) {
                write_zeros(file.f, sv->ext_offset - at);
                fwrite(sv->ext.bin, 1, sv->ext.bin_size, file.f);
                at = sv->ext_offset + sv->ext.bin_size;
            }
            for (uint32_t i = 0; i < sv->image_count && !sv->result; i++) {
                if (!image_embedded(sv, i)) continue;
                write_zeros(file.f, sv->image_offset[i] - at);
                FILE *in;
                uint64_t size;
                char reason[400];
                if (arbor__gltf_open_file(sv->image_file[i], &in, &size, reason, sizeof reason)) in = NULL;
                char chunk[16384];
                uint64_t copied_bytes = 0;
                for (size_t n; in && (n = fread(chunk, 1, sizeof chunk, in)) > 0 && copied_bytes < sv->image_size[i];) {
                    if (n > sv->image_size[i] - copied_bytes) n = (size_t)(sv->image_size[i] - copied_bytes);
                    fwrite(chunk, 1, n, file.f);
                    copied_bytes += n;
                }
                if (!in)
                    fail(sv, ARBOR_ERR_IO, "/images/%u/uri: %s (it changed while it was being saved?)", i, reason);
                else if (copied_bytes != sv->image_size[i])
                    fail(sv, ARBOR_ERR_IO, "cannot read %s (it changed while it was being saved?)", sv->image_file[i]);
                if (in) fclose(in);
                at = sv->image_offset[i] + sv->image_size[i];
            }
            write_zeros(file.f, bin_chunk - at);
        }
        put_u32(header, GLB_MAGIC);
        put_u32(header + 4, 2);
        put_u32(header + 8, (uint32_t)total);
        put_u32(header + 12, (uint32_t)json_size);
        put_u32(header + 16, GLB_JSON);
        if (fseek(file.f, 0, SEEK_SET) == 0) fwrite(header, 1, sizeof header, file.f);
        else fail(sv, ARBOR_ERR_IO, "cannot write the file: %s", strerror(errno));
    }
    arbor__free(sv->s, w, sizeof *w);
    out_commit(sv, &file, sv->path);
}

/* ---- the entry point ------------------------------------------------------------------------------ */

static bool has_extension(const char *path, const char *ext) {
    size_t n = strlen(path), e = strlen(ext);
    if (n <= e) return false;
    for (size_t i = 0; i < e; i++)
        if (tolower((unsigned char)path[n - e + i]) != ext[i]) return false;
    return true;
}

static void split_path(saver *sv) {
    const char *slash = strrchr(sv->path, '/');
    const char *name = slash ? slash + 1 : sv->path;
    const char *dot = strrchr(name, '.');
    sv->dir = slash ? copy_string(sv, sv->path, slash == sv->path ? 1 : (size_t)(slash - sv->path)) : copy_string(sv, ".", 1);
    sv->stem = copy_string(sv, name, (size_t)(dot - name));
}

static void warn_losses(saver *sv) {
    if (sv->meshes_dropped)
        arbor__log(sv->s, ARBOR_LOG_WARN, "%s: the mesh index of %u node(s) is left out (%s)", sv->path, sv->meshes_dropped,
                   sv->doc ? "beyond the document's meshes" : "no document holds the meshes");
    if (sv->lights_skipped)
        arbor__log(sv->s, ARBOR_LOG_WARN, "%s: %u hemispheric light(s) left out (KHR_lights_punctual has none)", sv->path,
                   sv->lights_skipped);
    if (sv->directions_lost)
        arbor__log(sv->s, ARBOR_LOG_WARN, "%s: %u light(s) shine along a direction other than -Z, which glTF cannot say",
                   sv->path, sv->directions_lost);
    if (sv->sheared)
        arbor__log(sv->s, ARBOR_LOG_WARN, "%s: %u node matrices are not TRS (a shear), which glTF forbids", sv->path,
                   sv->sheared);
}

static void free_saver(saver *sv) {
    arbor_scene *s = sv->s;
    arbor__free(s, sv->nodes, (size_t)sv->count * sizeof *sv->nodes);
    arbor__free(s, sv->index_of, (size_t)s->slot_end * sizeof *sv->index_of);
    arbor__free(s, sv->file_to_out, (size_t)sv->file_count * sizeof *sv->file_to_out);
    arbor__free(s, sv->skin_map, (size_t)sv->skin_count * sizeof *sv->skin_map);
    size_t buffers = json_array_size(top(sv, "buffers"));
    arbor__free(s, sv->buffer_offset, buffers * sizeof *sv->buffer_offset);
    arbor__free(s, sv->buffer_map, buffers * sizeof *sv->buffer_map);
    for (uint32_t i = 0; i < sv->image_count && sv->image_file; i++) free_string(sv, sv->image_file[i]);
    uint32_t n = sv->image_count;
    arbor__free(s, sv->image_file, n * sizeof *sv->image_file);
    arbor__free(s, sv->image_offset, n * sizeof *sv->image_offset);
    arbor__free(s, sv->image_size, n * sizeof *sv->image_size);
    arbor__free(s, sv->image_mime, n * sizeof *sv->image_mime);
    arbor__free(s, sv->image_view, n * sizeof *sv->image_view);
    free_string(sv, sv->dir);
    free_string(sv, sv->stem);
}

arbor_result arbor_gltf_save(arbor_scene *s, const arbor_gltf *doc, const char *path,
                             const arbor_gltf_save_options *options) {
    saver sv = { .s = s, .doc = doc, .path = path ? path : "(null)",
                 .external_images = options && options->external_images };
    if (!s) return fail(&sv, ARBOR_ERR_INVALID_ARGUMENT, "no scene was given");
    bool glb = path && has_extension(path, ".glb");
    if (!path || (!glb && !has_extension(path, ".gltf")))
        return fail(&sv, ARBOR_ERR_INVALID_ARGUMENT, "the file name must end in .gltf or .glb");
    if (doc && !json_is_object(doc->root)) return fail(&sv, ARBOR_ERR_INVALID_ARGUMENT, "the document holds no JSON");
    if (doc && !doc->scene) return fail(&sv, ARBOR_ERR_INVALID_ARGUMENT, "the document's scene was destroyed");
    if (doc && doc->scene != s)
        return fail(&sv, ARBOR_ERR_INVALID_ARGUMENT, "the document was loaded into another scene");
    sv.glb = glb;
    sv.root = doc ? doc->root : NULL;
    split_path(&sv);
    plan_nodes(&sv);
    arbor__node_ext_save_begin(&sv.ext, s, sv.root, sv.path, sv.count);
    for (uint32_t k = 0; k < sv.count && !sv.result; k++)
        arbor__node_ext_save_plan(&sv.ext, k, sv.nodes[k].slot, node_json(&sv, &sv.nodes[k]));
    if (sv.ext.failed && !sv.result) fail(&sv, ARBOR_ERR_OUT_OF_MEMORY, "out of memory for the instances");
    sv.ext_offset = UINT64_MAX;
    if (glb && doc && !sv.result) plan_glb_buffers(&sv);
    else if (glb && !sv.result) plan_glb_ext(&sv);
    json_t *out = sv.result ? NULL : build_top(&sv);
    if (!sv.result && !out) fail(&sv, ARBOR_ERR_OUT_OF_MEMORY, "out of memory");
    if (sv.ext.failed && !sv.result) fail(&sv, ARBOR_ERR_OUT_OF_MEMORY, "out of memory for the node extensions");
    if (!sv.result) write_main(&sv, out);
    if (!sv.result) warn_losses(&sv);
    json_decref(out);
    arbor__node_ext_save_end(&sv.ext);
    free_saver(&sv);
    return sv.result;
}
