/* SPDX-License-Identifier: MIT */
/* Extensions: extensionsUsed and extensionsRequired (unique names; a required one must be used,
   and honoured by arbor or the file is refused with ARBOR_ERR_UNSUPPORTED), and every
   "extensions" object in the document (objects, declared in extensionsUsed, and where the
   extensions arbor knows belong). */
#include <stdio.h>
#include <string.h>

#include "gltf/load_internal.h"


/* Required extensions arbor honours: those it reads (KHR_lights_punctual) and those that pass
   through without changing what arbor reads (nodes, scenes, skins, animations, cameras, lights,
   and the POSITION min and max behind mesh bounds). */
static const char *const passed_through[] = {
    "KHR_lights_punctual", /* read */
    "KHR_animation_pointer", /* animations pass through, node references remapped on save */
    "KHR_node_visibility", /* read: the node's own visibility */
    "EXT_mesh_gpu_instancing", /* read: the node's instances */
    "KHR_mesh_quantization", /* POSITION min and max are dequantized for the bounds */
    "KHR_draco_mesh_compression", /* accessors keep count, min and max; only vertex data moves */
    "EXT_meshopt_compression", "KHR_meshopt_compression", /* decoded (meshopt.c) */
    "KHR_texture_transform",      "KHR_texture_basisu", "EXT_texture_webp",
    "EXT_texture_avif",           "KHR_xmp_json_ld",    "KHR_materials_variants",
};

/* NULL when arbor honours a required extension, else why not. */
static const char *refusal(const char *name) {
    if (!strncmp(name, "KHR_materials_", 14)) return NULL; /* materials pass through */
    for (size_t i = 0; i < sizeof passed_through / sizeof *passed_through; i++)
        if (!strcmp(name, passed_through[i])) return NULL;
    return "arbor does not know what it changes";
}

/* extensionsUsed or extensionsRequired: unique strings; into set when given. */
static bool check_ext_list(ld *L, const char *key, json_t **out, json_t *set) {
    json_t *list = NULL;
    char base[32];
    snprintf(base, sizeof base, "/%s", key);
    ld_got g = arbor__ld_array(L, L->root, "", key, true, &list);
    TRY(g);
    if (g != LD_GOT) return true;
    *out = list;
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *e = json_array_get(list, i);
        if (!json_is_string(e)) {
            if (!BAD(ARRAY_TYPE_MISMATCH, AT("%s/%zu", base, i), "%s must hold strings", key)) return false;
            continue;
        }
        if (json_object_get(set, json_string_value(e))) {
            if (!BAD(DUPLICATE_ELEMENTS, AT("%s/%zu", base, i), "\"%s\" is listed twice", json_string_value(e))) return false;
            continue;
        }
        if (json_object_set_new(set, json_string_value(e), json_true()))
            return arbor__ld_stop(L, ARBOR_ERR_OUT_OF_MEMORY, LDI_ARBOR_OUT_OF_MEMORY, NULL, "no memory for the extension names");
    }
    return true;
}

static bool check_extension_lists(ld *L) {
    json_t *required_set = json_object();
    L->ext_used = json_object();
    if (!required_set || !L->ext_used) {
        json_decref(required_set);
        return arbor__ld_stop(L, ARBOR_ERR_OUT_OF_MEMORY, LDI_ARBOR_OUT_OF_MEMORY, NULL, "no memory for the extension names");
    }
    bool ok = check_ext_list(L, "extensionsUsed", &L->used, L->ext_used) &&
              check_ext_list(L, "extensionsRequired", &L->required, required_set);
    json_decref(required_set);
    if (!ok) return false;
    if (L->required && !L->used && !BAD(UNSATISFIED_DEPENDENCY, AT("/extensionsRequired"), "extensionsRequired needs extensionsUsed"))
        return false;
    for (size_t i = 0; i < json_array_size(L->required); i++) {
        const char *name = json_string_value(json_array_get(L->required, i));
        if (!name) continue;
        if (!json_object_get(L->ext_used, name) &&
            !BAD(UNUSED_EXTENSION_REQUIRED, AT("/extensionsRequired/%zu", i), "required extension %s is not in extensionsUsed", name))
            return false;
        const char *why = refusal(name);
        if (why)
            return arbor__ld_stop(L, ARBOR_ERR_UNSUPPORTED, LDI_UNSUPPORTED_EXTENSION, AT("/extensionsRequired/%zu", i),
                                  "required extension %s is not supported: %s", name, why);
    }
    return true;
}

/* ---- every "extensions" object of the document ----------------------------------------------- */

/* Extensions whose place arbor knows; their objects are walked into, others' are not. */
static const struct {
    const char *name;
    bool root, node, target;
} placed[] = {
    {"KHR_lights_punctual", true, true, false},
    {"KHR_node_visibility", false, true, false},
    {"KHR_animation_pointer", false, false, true},
    {"EXT_mesh_gpu_instancing", false, true, false},
};

static int placed_index(const char *name) {
    for (int i = 0; i < (int)(sizeof placed / sizeof *placed); i++)
        if (!strcmp(name, placed[i].name)) return i;
    return -1;
}

typedef struct walk_frame {
    json_t *v;
    void *it; /* objects: the next member */
    size_t i; /* arrays: the next element */
    const char *key; /* this value's key in its parent, NULL for an array element */
    size_t index; /* ... or its index */
    bool exts; /* an "extensions" object: its members are extension names */
} walk_frame;

/* JSON pointer of frames [1, depth) into buf, keys escaped (~0, ~1). */
static const char *walk_path(const walk_frame *st, size_t depth, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = 0;
    for (size_t d = 1; d < depth && n + 24 < cap; d++) {
        buf[n++] = '/';
        if (!st[d].key) {
            n += (size_t)snprintf(buf + n, cap - n, "%zu", st[d].index);
            continue;
        }
        for (const char *k = st[d].key; *k && n + 4 < cap; k++) {
            if (*k == '~' || *k == '/') {
                buf[n++] = '~';
                buf[n++] = *k == '~' ? '0' : '1';
            } else {
                buf[n++] = *k;
            }
        }
        buf[n] = 0;
    }
    return buf;
}

static bool owner_is_item(const char *path, const char *collection) { /* "/nodes/7" */
    size_t n = strlen(collection);
    if (strncmp(path, collection, n) != 0 || path[n] != '/' || !path[n + 1]) return false;
    for (const char *p = path + n + 1; *p; p++)
        if (*p < '0' || *p > '9') return false;
    return true;
}

static bool owner_is_target(const char *path) { /* "/animations/A/channels/C/target" */
    unsigned a, c;
    int end = 0;
    return sscanf(path, "/animations/%u/channels/%u/target%n", &a, &c, &end) == 2 && end > 0 && !path[end];
}

/* An "extensions" value owned by the object at the top of the stack. */
static bool check_extensions(ld *L, const walk_frame *st, size_t depth, json_t *exts) {
    char owner[256];
    walk_path(st, depth, owner, sizeof owner);
    if (!json_is_object(exts)) return BAD(TYPE_MISMATCH, AT("%s/extensions", owner), "extensions must be an object");
    const char *name;
    json_t *value;
    json_object_foreach(exts, name, value) {
        char esc[128];
        size_t n = 0;
        for (const char *k = name; *k && n + 3 < sizeof esc; k++) {
            if (*k == '~' || *k == '/') {
                esc[n++] = '~';
                esc[n++] = *k == '~' ? '0' : '1';
            } else {
                esc[n++] = *k;
            }
        }
        esc[n] = 0;
        if (!json_is_object(value) && !BAD(TYPE_MISMATCH, AT("%s/extensions/%s", owner, esc), "an extension must be an object"))
            return false;
        if (!json_object_get(L->ext_used, name) &&
            !BAD(UNDECLARED_EXTENSION, AT("%s/extensions/%s", owner, esc), "extension %s is not declared in extensionsUsed", name))
            return false;
        int p = placed_index(name);
        bool fits = p < 0 || (placed[p].root && !owner[0]) || (placed[p].node && owner_is_item(owner, "/nodes")) ||
                    (placed[p].target && owner_is_target(owner));
        if (!fits && !BAD(UNEXPECTED_EXTENSION_OBJECT, AT("%s/extensions/%s", owner, esc), "%s does not belong here", name)) return false;
    }
    return true;
}

/* Walks the whole document (not extras, not the insides of extensions arbor does not know) and
   checks every "extensions" object. Iterative: the depth is the JSON's. */
static bool walk_extensions(ld *L) {
    size_t cap = 64, depth = 1;
    walk_frame *st = arbor__ld_calloc(L, cap, sizeof *st);
    if (!st) return false;
    st[0] = (walk_frame){.v = L->root, .it = json_object_iter(L->root)};
    bool ok = true;
    while (ok && depth) {
        walk_frame *f = &st[depth - 1];
        json_t *child;
        const char *key = NULL;
        size_t index = 0;
        bool exts = false;
        if (json_is_object(f->v)) {
            if (!f->it) {
                depth--;
                continue;
            }
            key = json_object_iter_key(f->it);
            child = json_object_iter_value(f->it);
            f->it = json_object_iter_next(f->v, f->it);
            if (f->exts) {
                if (placed_index(key) < 0) continue;
            } else if (!strcmp(key, "extras")) {
                continue;
            } else if (!strcmp(key, "extensions")) {
                ok = check_extensions(L, st, depth, child);
                exts = true;
            }
        } else {
            if (f->i >= json_array_size(f->v)) {
                depth--;
                continue;
            }
            index = f->i;
            child = json_array_get(f->v, f->i++);
        }
        if (!ok || (!json_is_object(child) && !json_is_array(child))) continue;
        if (depth == cap) {
            walk_frame *grown = arbor__ld_calloc(L, cap * 2, sizeof *st);
            if (!grown) {
                ok = false;
                break;
            }
            memcpy(grown, st, cap * sizeof *st);
            arbor__ld_free(L, st, cap, sizeof *st);
            st = grown;
            cap *= 2;
        }
        st[depth++] = (walk_frame){.v = child,
                                   .it = json_is_object(child) ? json_object_iter(child) : NULL,
                                   .key = key,
                                   .index = index,
                                   .exts = exts};
    }
    arbor__ld_free(L, st, cap, sizeof *st);
    return ok;
}

bool arbor__ld_extensions(ld *L) { return check_extension_lists(L) && walk_extensions(L); }
