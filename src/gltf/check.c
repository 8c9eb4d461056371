/* SPDX-License-Identifier: MIT */
/* The JSON as arbor reads it: the root and the asset, then every object arbor reads with its
   properties' types, ranges and references. Results go to the context's arrays; a lenient load
   leaves a bad value out (as if absent) and goes on. Extensions are ext.c's; links between
   objects (hierarchy, skins, animations) are links.c's. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gltf/load_internal.h"

#define PI 3.14159265358979323846

/* ---- getters --------------------------------------------------------------------------------- */

bool arbor__ld_as_uint(const json_t *v, uint64_t *out) {
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0) return false;
        *out = (uint64_t)i;
        return true;
    }
    if (json_is_real(v)) { /* 2.0 or 2e0 is an integer written as a float: the spec allows it */
        double d = json_real_value(v);
        if (!(d >= 0 && d <= 9007199254740992.0) || d != floor(d)) return false;
        *out = (uint64_t)d;
        return true;
    }
    return false;
}

static ld_got wrong(ld *L, ld_issue issue, const char *base, const char *key, const char *what) {
    return arbor__ld_bad(L, issue, arbor__ld_at(L, "%s/%s", base, key), "%s must be %s", key, what) ? LD_BAD : LD_STOP;
}

ld_got arbor__ld_uint(ld *L, json_t *obj, const char *base, const char *key, uint64_t *out) {
    json_t *v = json_object_get(obj, key);
    if (!v) return LD_ABSENT;
    return arbor__ld_as_uint(v, out) ? LD_GOT : wrong(L, LDI_TYPE_MISMATCH, base, key, "an integer >= 0");
}

ld_got arbor__ld_index(ld *L, json_t *obj, const char *base, const char *key, uint32_t count, const char *what,
                       uint32_t *out) {
    uint64_t v;
    ld_got g = arbor__ld_uint(L, obj, base, key, &v);
    if (g != LD_GOT) return g;
    if (v >= count)
        return arbor__ld_bad(L, LDI_UNRESOLVED_REFERENCE, arbor__ld_at(L, "%s/%s", base, key), "%s %llu does not exist (the file has %u)", what,
                             (unsigned long long)v, count)
                   ? LD_BAD
                   : LD_STOP;
    *out = (uint32_t)v;
    return LD_GOT;
}

ld_got arbor__ld_string(ld *L, json_t *obj, const char *base, const char *key, const char **out) {
    json_t *v = json_object_get(obj, key);
    if (!v) return LD_ABSENT;
    if (!json_is_string(v)) return wrong(L, LDI_TYPE_MISMATCH, base, key, "a string");
    *out = json_string_value(v);
    return LD_GOT;
}

ld_got arbor__ld_object(ld *L, json_t *obj, const char *base, const char *key, json_t **out) {
    json_t *v = json_object_get(obj, key);
    if (!v) return LD_ABSENT;
    if (!json_is_object(v)) return wrong(L, LDI_TYPE_MISMATCH, base, key, "an object");
    *out = v;
    return LD_GOT;
}

ld_got arbor__ld_array(ld *L, json_t *obj, const char *base, const char *key, bool nonempty, json_t **out) {
    json_t *v = json_object_get(obj, key);
    if (!v) return LD_ABSENT;
    if (!json_is_array(v)) return wrong(L, LDI_TYPE_MISMATCH, base, key, "an array");
    if (nonempty && json_array_size(v) == 0) return wrong(L, LDI_EMPTY_ENTITY, base, key, "a non-empty array");
    *out = v;
    return LD_GOT;
}

bool arbor__ld_required(ld *L, ld_got g, const char *base, const char *key) {
    if (g != LD_ABSENT) return g != LD_STOP;
    return arbor__ld_bad(L, LDI_UNDEFINED_PROPERTY, base[0] ? base : "/", "%s is required", key);
}

/* d rounds to a finite float: below FLT_MAX plus half its last place (where rounding to even
   gives 2^128, an infinity). 3.4028235e38, the shortest spelling of FLT_MAX, is a float. */
static bool float_finite(double d) { return fabs(d) < 0x1.ffffffp+127; }

static ld_got get_real(ld *L, json_t *obj, const char *base, const char *key, double *out) {
    json_t *v = json_object_get(obj, key);
    if (!v) return LD_ABSENT;
    if (!json_is_number(v)) return wrong(L, LDI_TYPE_MISMATCH, base, key, "a number");
    double d = json_number_value(v);
    if (!float_finite(d))
        return arbor__ld_bad(L, LDI_VALUE_NOT_IN_RANGE, arbor__ld_at(L, "%s/%s", base, key), "%g is not finite as a 32-bit float", d) ? LD_BAD
                                                                                                              : LD_STOP;
    *out = d;
    return LD_GOT;
}

/* An array of numbers finite as floats: exactly `want` of them (0: any count from 1), the first
   cap stored in out; *count gets the length. */
static ld_got get_reals(ld *L, json_t *obj, const char *base, const char *key, size_t want, double *out, size_t cap,
                        size_t *count) {
    json_t *v = json_object_get(obj, key);
    if (!v) return LD_ABSENT;
    size_t n = json_array_size(v);
    if (!json_is_array(v) || n == 0 || (want && n != want)) {
        char what[48];
        snprintf(what, sizeof what, want ? "an array of %zu numbers" : "a non-empty array of numbers", want);
        return wrong(L, n == 0 && json_is_array(v) ? LDI_EMPTY_ENTITY : LDI_TYPE_MISMATCH, base, key, what);
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        double d = json_number_value(e);
        if (!json_is_number(e) || !float_finite(d))
            return arbor__ld_bad(L, json_is_number(e) ? LDI_VALUE_NOT_IN_RANGE : LDI_ARRAY_TYPE_MISMATCH,
                                 arbor__ld_at(L, "%s/%s/%zu", base, key, i), "%s must be a finite number", key)
                       ? LD_BAD
                       : LD_STOP;
        if (i < cap) out[i] = d;
    }
    if (count) *count = n;
    return LD_GOT;
}

/* ---- root and asset -------------------------------------------------------------------------- */

/* "MAJOR.MINOR" as the asset's version pattern wants; false otherwise. */
static bool version(const char *s, unsigned *major, unsigned *minor) {
    unsigned v[2] = {0, 0};
    for (int part = 0; part < 2; part++) {
        if (*s < '0' || *s > '9') return false;
        for (; *s >= '0' && *s <= '9'; s++)
            v[part] = v[part] > 100000u ? v[part] : v[part] * 10u + (unsigned)(*s - '0');
        if (part == 0 && *s++ != '.') return false;
    }
    *major = v[0];
    *minor = v[1];
    return *s == 0;
}

static bool check_asset(ld *L) {
    json_t *asset = NULL;
    ld_got g = arbor__ld_object(L, L->root, "", "asset", &asset);
    if (!arbor__ld_required(L, g, "", "asset")) return false;
    if (g != LD_GOT) return true;
    const char *v = NULL, *min = NULL, *ignored;
    g = arbor__ld_string(L, asset, "/asset", "version", &v);
    if (!arbor__ld_required(L, g, "/asset", "version")) return false;
    unsigned major = 2, minor = 0, min_major, min_minor;
    if (v && !version(v, &major, &minor) && !BAD(PATTERN_MISMATCH, AT("/asset/version"), "version \"%s\" is not MAJOR.MINOR", v))
        return false;
    if (major != 2)
        return arbor__ld_stop(L, ARBOR_ERR_UNSUPPORTED, LDI_UNKNOWN_ASSET_MAJOR_VERSION, "/asset/version", "glTF %u files are not read, only 2.x",
                              major);
    TRY(g = arbor__ld_string(L, asset, "/asset", "minVersion", &min));
    if (min && !version(min, &min_major, &min_minor) &&
        !BAD(PATTERN_MISMATCH, AT("/asset/minVersion"), "minVersion \"%s\" is not MAJOR.MINOR", min))
        return false;
    if (min && version(min, &min_major, &min_minor) &&
        (min_major > major || (min_major == major && min_minor > minor)) &&
        !BAD(ASSET_MIN_VERSION_GREATER_THAN_VERSION, AT("/asset/minVersion"), "minVersion %s is above version %s", min, v ? v : "2.0"))
        return false;
    TRY(arbor__ld_string(L, asset, "/asset", "generator", &ignored));
    TRY(arbor__ld_string(L, asset, "/asset", "copyright", &ignored));
    return true;
}

/* ---- top-level arrays ------------------------------------------------------------------------ */

/* An array of objects, non-empty; NULL (absent) when not usable. */
static bool collection(ld *L, json_t *owner, const char *base, const char *key, json_t **out, uint32_t *n) {
    *out = NULL;
    *n = 0;
    json_t *v = NULL;
    ld_got g = arbor__ld_array(L, owner, base, key, true, &v);
    TRY(g);
    if (g != LD_GOT) return true;
    if (json_array_size(v) >= LD_NONE)
        return arbor__ld_stop(L, ARBOR_ERR_PARSE, LDI_ARBOR_LIMIT, AT("%s/%s", base, key), "too many elements");
    for (size_t i = 0; i < json_array_size(v); i++)
        if (!json_is_object(json_array_get(v, i)) && !BAD(TYPE_MISMATCH, AT("%s/%s/%zu", base, key, i), "%s must hold objects", key))
            return false;
    *out = v;
    *n = (uint32_t)json_array_size(v);
    return true;
}

static bool collections(ld *L) {
    static const char *const others[] = {"materials", "samplers", "textures"}; /* not read: shape only */
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        json_t *v;
        uint32_t n;
        if (!collection(L, L->root, "", others[i], &v, &n)) return false;
    }
    uint32_t n_images;
    json_t *ext = json_object_get(json_object_get(L->root, "extensions"), "KHR_lights_punctual");
    if (json_is_object(ext)) {
        if (!json_object_get(ext, "lights") && !BAD(UNDEFINED_PROPERTY, "/extensions/KHR_lights_punctual", "lights is required"))
            return false;
        if (!collection(L, ext, "/extensions/KHR_lights_punctual", "lights", &L->j_lights, &L->n_lights)) return false;
    }
    return collection(L, L->root, "", "accessors", &L->j_accessors, &L->n_accessors) &&
           collection(L, L->root, "", "animations", &L->j_animations, &L->n_animations) &&
           collection(L, L->root, "", "buffers", &L->j_buffers, &L->n_buffers) &&
           collection(L, L->root, "", "bufferViews", &L->j_views, &L->n_views) &&
           collection(L, L->root, "", "cameras", &L->j_cameras, &L->n_cameras) &&
           collection(L, L->root, "", "images", &L->j_images, &n_images) &&
           collection(L, L->root, "", "meshes", &L->j_meshes, &L->n_meshes) &&
           collection(L, L->root, "", "nodes", &L->j_nodes, &L->n_nodes) &&
           collection(L, L->root, "", "scenes", &L->j_scenes, &L->n_scenes) &&
           collection(L, L->root, "", "skins", &L->j_skins, &L->n_skins);
}

/* ---- buffers and buffer views ---------------------------------------------------------------- */

static bool parse_buffers(ld *L) {
    if (!(L->buffers = arbor__ld_calloc(L, L->n_buffers, sizeof *L->buffers))) return false;
    for (uint32_t i = 0; i < L->n_buffers; i++) {
        json_t *o = json_array_get(L->j_buffers, i);
        if (!json_is_object(o)) continue;
        char base[40];
        snprintf(base, sizeof base, "/buffers/%u", i);
        uint64_t length = 0;
        const char *uri;
        ld_got g = arbor__ld_uint(L, o, base, "byteLength", &length);
        if (!arbor__ld_required(L, g, base, "byteLength")) return false;
        if (g == LD_GOT && length == 0 && !BAD(VALUE_NOT_IN_RANGE, AT("%s/byteLength", base), "byteLength must be at least 1"))
            return false;
        if (length > SIZE_MAX / 2 &&
            !BAD(VALUE_NOT_IN_RANGE, AT("%s/byteLength", base), "byteLength %llu is too large", (unsigned long long)length))
            return false;
        TRY(arbor__ld_string(L, o, base, "uri", &uri));
        L->buffers[i].size = length > SIZE_MAX / 2 ? 0 : (size_t)length;
    }
    return true;
}

static bool parse_views(ld *L) {
    if (!(L->views = arbor__ld_calloc(L, L->n_views, sizeof *L->views))) return false;
    for (uint32_t i = 0; i < L->n_views; i++) {
        json_t *o = json_array_get(L->j_views, i);
        ld_view *V = &L->views[i];
        if (!json_is_object(o)) continue;
        char base[40];
        snprintf(base, sizeof base, "/bufferViews/%u", i);
        uint64_t stride = 0, target = 0;
        ld_got gb = arbor__ld_index(L, o, base, "buffer", L->n_buffers, "buffer", &V->buffer);
        if (!arbor__ld_required(L, gb, base, "buffer")) return false;
        ld_got go = arbor__ld_uint(L, o, base, "byteOffset", &V->offset);
        TRY(go);
        ld_got gl = arbor__ld_uint(L, o, base, "byteLength", &V->length);
        if (!arbor__ld_required(L, gl, base, "byteLength")) return false;
        ld_got gs = arbor__ld_uint(L, o, base, "byteStride", &stride);
        TRY(gs);
        ld_got gt = arbor__ld_uint(L, o, base, "target", &target);
        TRY(gt);
        bool ok = gb == LD_GOT && go != LD_BAD && gl == LD_GOT && gs != LD_BAD;
        if (gl == LD_GOT && V->length == 0) {
            if (!BAD(VALUE_NOT_IN_RANGE, AT("%s/byteLength", base), "byteLength must be at least 1")) return false;
            ok = false;
        }
        if (gs == LD_GOT && (stride < 4 || stride > 252 || stride % 4)) {
            if (!arbor__ld_bad(L, stride % 4 ? LDI_VALUE_MULTIPLE_OF : LDI_VALUE_NOT_IN_RANGE, AT("%s/byteStride", base), "byteStride %llu is not a multiple of 4 from 4 to 252",
                     (unsigned long long)stride))
                return false;
            ok = false;
        }
        if (gt == LD_GOT && target != 34962 && target != 34963)
            arbor__ld_note(L, AT("%s/target", base), "unknown target %llu", (unsigned long long)target);
        if (gs == LD_GOT && target == 34963) {
            if (!BAD(BUFFER_VIEW_INVALID_BYTE_STRIDE, AT("%s/byteStride", base), "only vertex attribute views have a byteStride (target is 34963)"))
                return false;
            ok = false;
        }
        if (gs == LD_GOT && gl == LD_GOT && stride > V->length) {
            if (!BAD(BUFFER_VIEW_TOO_BIG_BYTE_STRIDE, AT("%s/byteStride", base), "byteStride %llu is greater than byteLength %llu",
                     (unsigned long long)stride, (unsigned long long)V->length))
                return false;
            ok = false;
        }
        if (ok) {
            uint64_t size = L->buffers[V->buffer].size;
            if (V->offset > size || V->length > size - V->offset) {
                if (!BAD(BUFFER_VIEW_TOO_LONG, AT(go == LD_GOT ? "%s/byteOffset" : "%s/byteLength", base), "bytes %llu to %llu do not fit buffer %u of %llu bytes",
                         (unsigned long long)V->offset, (unsigned long long)V->offset + V->length, V->buffer,
                         (unsigned long long)size))
                    return false;
                ok = false;
            }
        }
        V->stride = (uint32_t)stride;
        V->ok = ok;
    }
    return true;
}

/* ---- accessors ------------------------------------------------------------------------------- */

static uint32_t component_size(uint64_t t) {
    switch (t) {
    case 5120:
    case 5121: return 1;
    case 5122:
    case 5123: return 2;
    case 5125:
    case 5126: return 4;
    default: return 0;
    }
}

static bool int_range(uint32_t ctype, double *lo, double *hi) {
    switch (ctype) {
    case 5120: *lo = -128, *hi = 127; return true;
    case 5121: *lo = 0, *hi = 255; return true;
    case 5122: *lo = -32768, *hi = 32767; return true;
    case 5123: *lo = 0, *hi = 65535; return true;
    case 5125: *lo = 0, *hi = 4294967295.0; return true;
    default: return false;
    }
}

static bool accessor_type(const char *t, uint32_t *rows, uint32_t *cols) {
    static const struct {
        const char *name;
        uint32_t rows, cols;
    } types[] = {{"SCALAR", 1, 1}, {"VEC2", 2, 1}, {"VEC3", 3, 1}, {"VEC4", 4, 1},
                 {"MAT2", 2, 2},   {"MAT3", 3, 3}, {"MAT4", 4, 4}};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (!strcmp(t, types[i].name)) {
            *rows = types[i].rows;
            *cols = types[i].cols;
            return true;
        }
    return false;
}

/* min or max: one number per component; integers in the component type's range. */
static bool min_max(ld *L, json_t *o, const char *base, const char *key, ld_accessor *A, bool *has, double *out) {
    size_t n = 0;
    ld_got g = get_reals(L, o, base, key, A->ok ? A->ncomp : 0, out, 16, &n);
    TRY(g);
    *has = g == LD_GOT && A->ok;
    double lo, hi;
    if (*has && int_range(A->ctype, &lo, &hi))
        for (size_t i = 0; i < n; i++)
            if (out[i] != floor(out[i]) || out[i] < lo || out[i] > hi) {
                *has = false;
                if (!BAD(VALUE_NOT_IN_RANGE, AT("%s/%s/%zu", base, key, i), "%g is not an integer of the component type", out[i]))
                    return false;
            }
    return true;
}

/* A sparse bufferView has no byteStride; false when it has (reported; L->code set when that
   stops the load). */
static bool sparse_view(ld *L, const char *base, uint32_t view, ld_got g) {
    if (g != LD_GOT || !L->views[view].stride) return true;
    BAD(BUFFER_VIEW_INVALID_BYTE_STRIDE, AT("%s/bufferView", base), "bufferView %u of sparse %s must not have a byteStride",
        view, strstr(base, "values") ? "values" : "indices");
    return false;
}

static bool parse_sparse(ld *L, json_t *sparse, const char *base, ld_accessor *A) {
    char sb[72], ib[96], vb[96];
    snprintf(sb, sizeof sb, "%s/sparse", base);
    snprintf(ib, sizeof ib, "%s/indices", sb);
    snprintf(vb, sizeof vb, "%s/values", sb);
    json_t *indices = NULL, *values = NULL;
    uint64_t ictype = 0;
    ld_got gc = arbor__ld_uint(L, sparse, sb, "count", &A->scount);
    ld_got gi = arbor__ld_object(L, sparse, sb, "indices", &indices);
    ld_got gv = arbor__ld_object(L, sparse, sb, "values", &values);
    if (!arbor__ld_required(L, gc, sb, "count") || !arbor__ld_required(L, gi, sb, "indices") ||
        !arbor__ld_required(L, gv, sb, "values"))
        return false;
    bool ok = gc == LD_GOT && gi == LD_GOT && gv == LD_GOT;
    if (gc == LD_GOT && (A->scount == 0 || A->scount > A->count)) {
        if (!arbor__ld_bad(L, A->scount ? LDI_ACCESSOR_SPARSE_COUNT_OUT_OF_RANGE : LDI_VALUE_NOT_IN_RANGE, AT("%s/count", sb), "sparse count %llu must be from 1 to the accessor's count %llu",
                 (unsigned long long)A->scount, (unsigned long long)A->count))
            return false;
        ok = false;
    }
    if (gi == LD_GOT) {
        ld_got g1 = arbor__ld_index(L, indices, ib, "bufferView", L->n_views, "bufferView", &A->sview_idx);
        ld_got g2 = arbor__ld_uint(L, indices, ib, "byteOffset", &A->soff_idx);
        ld_got g3 = arbor__ld_uint(L, indices, ib, "componentType", &ictype);
        if (!arbor__ld_required(L, g1, ib, "bufferView") || g2 == LD_STOP ||
            !arbor__ld_required(L, g3, ib, "componentType"))
            return false;
        bool unstrided = sparse_view(L, ib, A->sview_idx, g1);
        if (L->code) return false;
        ok = ok && g1 == LD_GOT && g2 != LD_BAD && g3 == LD_GOT && unstrided;
        if (g3 == LD_GOT && ictype != 5121 && ictype != 5123 && ictype != 5125) {
            if (!BAD(VALUE_NOT_IN_LIST, AT("%s/componentType", ib), "sparse indices must be unsigned byte, short or int")) return false;
            ok = false;
        }
    }
    if (gv == LD_GOT) {
        ld_got g1 = arbor__ld_index(L, values, vb, "bufferView", L->n_views, "bufferView", &A->sview_val);
        ld_got g2 = arbor__ld_uint(L, values, vb, "byteOffset", &A->soff_val);
        if (!arbor__ld_required(L, g1, vb, "bufferView") || g2 == LD_STOP) return false;
        bool unstrided = sparse_view(L, vb, A->sview_val, g1);
        if (L->code) return false;
        ok = ok && g1 == LD_GOT && g2 != LD_BAD && unstrided;
    }
    A->sictype = (uint32_t)ictype;
    A->sparse = ok;
    return true;
}

static bool parse_accessors(ld *L) {
    if (!(L->acc = arbor__ld_calloc(L, L->n_accessors, sizeof *L->acc))) return false;
    for (uint32_t i = 0; i < L->n_accessors; i++) {
        json_t *o = json_array_get(L->j_accessors, i), *sparse = NULL;
        ld_accessor *A = &L->acc[i];
        A->view = LD_NONE;
        if (!json_is_object(o)) continue;
        char base[40];
        snprintf(base, sizeof base, "/accessors/%u", i);
        uint64_t ctype = 0;
        const char *type = NULL;
        int normalized = 0;
        ld_got gview = arbor__ld_index(L, o, base, "bufferView", L->n_views, "bufferView", &A->view);
        TRY(gview);
        ld_got goff = arbor__ld_uint(L, o, base, "byteOffset", &A->offset);
        TRY(goff);
        ld_got gct = arbor__ld_uint(L, o, base, "componentType", &ctype);
        ld_got gcount = arbor__ld_uint(L, o, base, "count", &A->count);
        ld_got gtype = arbor__ld_string(L, o, base, "type", &type);
        if (!arbor__ld_required(L, gct, base, "componentType") || !arbor__ld_required(L, gcount, base, "count") ||
            !arbor__ld_required(L, gtype, base, "type"))
            return false;
        json_t *jn = json_object_get(o, "normalized");
        if (jn && !json_is_boolean(jn) && wrong(L, LDI_TYPE_MISMATCH, base, "normalized", "a boolean") == LD_STOP) return false;
        normalized = json_is_true(jn);
        bool ok = gview != LD_BAD && goff != LD_BAD && gct == LD_GOT && gcount == LD_GOT && gtype == LD_GOT;
        if (goff == LD_GOT && gview != LD_GOT && gview != LD_BAD &&
            !BAD(UNSATISFIED_DEPENDENCY, AT("%s/byteOffset", base), "byteOffset needs a bufferView"))
            return false;
        if (gview != LD_GOT) A->view = LD_NONE;
        if (gcount == LD_GOT && A->count == 0) {
            if (!BAD(VALUE_NOT_IN_RANGE, AT("%s/count", base), "count must be at least 1")) return false;
            ok = false;
        }
        A->ctype = (uint32_t)ctype;
        A->csize = component_size(ctype);
        if (gct == LD_GOT && !A->csize) {
            arbor__ld_note(L, AT("%s/componentType", base), "unknown componentType %llu", (unsigned long long)ctype);
            ok = false;
        }
        if (gtype == LD_GOT && !accessor_type(type, &A->rows, &A->cols)) {
            arbor__ld_note(L, AT("%s/type", base), "unknown type \"%s\"", type);
            ok = false;
        }
        if (normalized && (ctype == 5126 || ctype == 5125)) {
            if (!BAD(ACCESSOR_NORMALIZED_INVALID, AT("%s/normalized", base), "only byte and short components can be normalized")) return false;
            ok = false;
        }
        A->normalized = normalized;
        A->ok = ok;
        if (ok) {
            uint32_t column = A->rows * A->csize;
            if (A->cols > 1) column = (column + 3) & ~3u; /* matrix columns start 4-byte aligned */
            A->ncomp = A->rows * A->cols;
            A->stride = A->cols * column;
            A->elem = (A->cols - 1) * column + A->rows * A->csize;
            if (A->cols > 1 && A->offset % 4 &&
                !BAD(ACCESSOR_MATRIX_ALIGNMENT, AT("%s/byteOffset", base), "a matrix accessor's byteOffset must be a multiple of 4"))
                return false;
        }
        if (!min_max(L, o, base, "min", A, &A->has_min, A->min) || !min_max(L, o, base, "max", A, &A->has_max, A->max))
            return false;
        ld_got gs = arbor__ld_object(L, o, base, "sparse", &sparse);
        TRY(gs);
        if (gs == LD_GOT && !parse_sparse(L, sparse, base, A)) return false;
        if (!A->ok) A->sparse = false;
    }
    return arbor__ld_accessor_layout(L);
}

/* ---- cameras and lights ---------------------------------------------------------------------- */

static bool parse_camera(ld *L, json_t *o, const char *base, arbor_camera *c, bool *ok) {
    const char *type = NULL;
    json_t *p = NULL, *q = NULL;
    ld_got gt = arbor__ld_string(L, o, base, "type", &type);
    if (!arbor__ld_required(L, gt, base, "type")) return false;
    ld_got gp = arbor__ld_object(L, o, base, "perspective", &p), go = arbor__ld_object(L, o, base, "orthographic", &q);
    TRY(gp);
    TRY(go);
    *ok = false;
    if (gp == LD_GOT && go == LD_GOT) return BAD(ONE_OF_MISMATCH, base, "a camera has perspective or orthographic, not both");
    if (gt != LD_GOT) return true;
    bool persp = !strcmp(type, "perspective");
    if (!persp && strcmp(type, "orthographic")) {
        arbor__ld_note(L, AT("%s/type", base), "unknown camera type \"%s\"", type);
        return true;
    }
    json_t *params = persp ? p : q;
    if (!params) return BAD(UNDEFINED_PROPERTY, base, "%s is required", type);
    char pb[72];
    snprintf(pb, sizeof pb, "%s/%s", base, type);
    static const char *const persp_keys[] = {"yfov", "znear", "zfar", "aspectRatio"};
    static const char *const ortho_keys[] = {"xmag", "ymag", "znear", "zfar"};
    double v[4] = {0, 0, 0, 0};
    ld_got g[4];
    for (int k = 0; k < 4; k++) {
        const char *key = persp ? persp_keys[k] : ortho_keys[k];
        g[k] = get_real(L, params, pb, key, &v[k]);
        bool required = !persp || k < 2;
        if (required && !arbor__ld_required(L, g[k], pb, key)) return false;
        TRY(g[k]);
        if (g[k] != LD_GOT && (required || g[k] == LD_BAD)) return true; /* lenient: no camera */
    }
    if (persp) {
        const char *bad = !(v[0] > 0)                     ? "yfov"
                          : !(v[1] > 0)                   ? "znear"
                          : g[2] == LD_GOT && !(v[2] > 0) ? "zfar"
                          : g[3] == LD_GOT && !(v[3] > 0) ? "aspectRatio"
                                                          : NULL;
        if (bad) return BAD(VALUE_NOT_IN_RANGE, AT("%s/%s", pb, bad), "%s must be above 0", bad);
        if (g[2] == LD_GOT && v[2] <= v[1]) return BAD(CAMERA_ZFAR_LEQUAL_ZNEAR, pb, "zfar %g must be greater than znear %g", v[2], v[1]);
        *c = (arbor_camera){.type = ARBOR_CAMERA_PERSPECTIVE,
                            .yfov = (arbor_real)v[0],
                            .znear = (arbor_real)v[1],
                            .zfar = g[2] == LD_GOT ? (arbor_real)v[2] : 0,
                            .aspect = g[3] == LD_GOT ? (arbor_real)v[3] : 0};
    } else {
        if (v[0] == 0 || v[1] == 0)
            return BAD(CAMERA_XMAG_YMAG_ZERO, AT("%s/%s", pb, v[1] == 0 ? "ymag" : "xmag"), "xmag and ymag must not be zero");
        if (v[2] < 0) return BAD(VALUE_NOT_IN_RANGE, AT("%s/znear", pb), "znear must not be negative");
        if (!(v[3] > v[2])) return BAD(CAMERA_ZFAR_LEQUAL_ZNEAR, pb, "zfar %g must be greater than znear %g", v[3], v[2]);
        *c = (arbor_camera){.type = ARBOR_CAMERA_ORTHOGRAPHIC,
                            .xmag = (arbor_real)v[0],
                            .ymag = (arbor_real)v[1],
                            .znear = (arbor_real)v[2],
                            .zfar = (arbor_real)v[3]};
    }
    *ok = true;
    return true;
}

static bool parse_cameras(ld *L) {
    if (!(L->cameras = arbor__ld_calloc(L, L->n_cameras, sizeof *L->cameras))) return false;
    if (!(L->camera_ok = arbor__ld_calloc(L, L->n_cameras, sizeof *L->camera_ok))) return false;
    for (uint32_t i = 0; i < L->n_cameras; i++) {
        json_t *o = json_array_get(L->j_cameras, i);
        char base[40];
        snprintf(base, sizeof base, "/cameras/%u", i);
        if (json_is_object(o) && !parse_camera(L, o, base, &L->cameras[i], &L->camera_ok[i])) return false;
    }
    return true;
}

static bool parse_light(ld *L, json_t *o, const char *base, arbor_light *l, bool *ok) {
    const char *type = NULL;
    double color[3] = {1, 1, 1}, intensity = 1, range = 0, inner = 0, outer = PI / 4;
    json_t *spot = NULL;
    *ok = false;
    ld_got gt = arbor__ld_string(L, o, base, "type", &type);
    if (!arbor__ld_required(L, gt, base, "type")) return false;
    ld_got gc = get_reals(L, o, base, "color", 3, color, 3, NULL), gi = get_real(L, o, base, "intensity", &intensity),
           gr = get_real(L, o, base, "range", &range), gs = arbor__ld_object(L, o, base, "spot", &spot);
    if (gc == LD_STOP || gi == LD_STOP || gr == LD_STOP || gs == LD_STOP) return false;
    if (gc == LD_BAD || gi == LD_BAD || gr == LD_BAD || gs == LD_BAD || gt != LD_GOT) return true;
    for (int k = 0; k < 3; k++)
        if (color[k] < 0 || color[k] > 1) return BAD(VALUE_NOT_IN_RANGE, AT("%s/color/%d", base, k), "color components are from 0 to 1");
    if (intensity < 0) return BAD(VALUE_NOT_IN_RANGE, AT("%s/intensity", base), "intensity must not be negative");
    if (gr == LD_GOT && !(range > 0)) return BAD(VALUE_NOT_IN_RANGE, AT("%s/range", base), "range must be above 0");
    arbor_light_type t;
    if (!strcmp(type, "point")) {
        t = ARBOR_LIGHT_POINT;
    } else if (!strcmp(type, "directional")) {
        t = ARBOR_LIGHT_DIRECTIONAL;
    } else if (!strcmp(type, "spot")) {
        t = ARBOR_LIGHT_SPOT;
        if (!spot) return BAD(UNDEFINED_PROPERTY, base, "spot is required for a spot light");
        char sb[96];
        snprintf(sb, sizeof sb, "%s/spot", base);
        ld_got g1 = get_real(L, spot, sb, "innerConeAngle", &inner),
               g2 = get_real(L, spot, sb, "outerConeAngle", &outer);
        TRY(g1);
        TRY(g2);
        if (g1 == LD_BAD || g2 == LD_BAD) return true;
        if (inner < 0 || inner >= PI / 2)
            return BAD(VALUE_NOT_IN_RANGE, AT("%s/innerConeAngle", sb), "innerConeAngle is from 0 to below pi/2");
        if (outer <= 0 || outer > PI / 2)
            return BAD(VALUE_NOT_IN_RANGE, AT("%s/outerConeAngle", sb), "outerConeAngle is above 0, at most pi/2");
        if (outer <= inner)
            return BAD(KHR_LIGHTS_PUNCTUAL_LIGHT_SPOT_ANGLES, AT("%s/outerConeAngle", sb), "outerConeAngle %g must be greater than innerConeAngle %g", outer,
                       inner);
    } else {
        arbor__ld_note(L, AT("%s/type", base), "unknown light type \"%s\"", type);
        return true;
    }
    *l = (arbor_light){.type = t,
                       .color = {(arbor_real)color[0], (arbor_real)color[1], (arbor_real)color[2]},
                       .intensity = (arbor_real)intensity,
                       .range = (arbor_real)range,
                       .inner_cone = t == ARBOR_LIGHT_SPOT ? (arbor_real)inner : 0,
                       .outer_cone = t == ARBOR_LIGHT_SPOT ? (arbor_real)outer : 0};
    *ok = true;
    return true;
}

static bool parse_lights(ld *L) {
    if (!(L->lights = arbor__ld_calloc(L, L->n_lights, sizeof *L->lights))) return false;
    if (!(L->light_ok = arbor__ld_calloc(L, L->n_lights, sizeof *L->light_ok))) return false;
    for (uint32_t i = 0; i < L->n_lights; i++) {
        json_t *o = json_array_get(L->j_lights, i);
        char base[72];
        snprintf(base, sizeof base, "/extensions/KHR_lights_punctual/lights/%u", i);
        if (json_is_object(o) && !parse_light(L, o, base, &L->lights[i], &L->light_ok[i])) return false;
    }
    return true;
}

/* ---- meshes: what nodes need of them --------------------------------------------------------- */

/* The POSITION accessor's box, into the mesh's. */
static bool position_bounds(ld *L, uint32_t index, const char *pb, ld_mesh *M) {
    const ld_accessor *A = &L->acc[index];
    bool quantized = json_object_get(L->ext_used, "KHR_mesh_quantization") != NULL;
    if (!A->ok || A->rows != 3 || A->cols != 1 || (A->ctype != 5126 && !(quantized && A->csize <= 2)))
        return BAD(MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT, AT("%s/attributes/POSITION", pb), "accessor %u is not VEC3 of floats%s", index,
                   quantized ? " or of quantized integers" : "");
    if (!A->has_min || !A->has_max)
        return BAD(MESH_PRIMITIVE_POSITION_ACCESSOR_WITHOUT_BOUNDS, AT("%s/attributes/POSITION", pb), "POSITION accessor %u needs min and max", index);
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = arbor__ld_normalize(A, A->min[k]);
        hi[k] = arbor__ld_normalize(A, A->max[k]);
        if (lo[k] > hi[k])
            return BAD(ACCESSOR_MIN_MISMATCH, AT("/accessors/%u/min/%d", index, k), "min %g is above max %g", A->min[k], A->max[k]);
    }
    for (int k = 0; k < 3; k++) {
        M->min[k] = M->has_bounds && M->min[k] < lo[k] ? M->min[k] : lo[k];
        M->max[k] = M->has_bounds && M->max[k] > hi[k] ? M->max[k] : hi[k];
    }
    M->has_bounds = true;
    return true;
}

static bool parse_meshes(ld *L) {
    if (!(L->meshes = arbor__ld_calloc(L, L->n_meshes, sizeof *L->meshes))) return false;
    for (uint32_t i = 0; i < L->n_meshes; i++) {
        json_t *o = json_array_get(L->j_meshes, i), *prims = NULL;
        ld_mesh *M = &L->meshes[i];
        if (!json_is_object(o)) continue;
        char base[40];
        snprintf(base, sizeof base, "/meshes/%u", i);
        ld_got g = arbor__ld_array(L, o, base, "primitives", true, &prims);
        if (!arbor__ld_required(L, g, base, "primitives")) return false;
        for (size_t p = 0; p < json_array_size(prims); p++) {
            json_t *prim = json_array_get(prims, p), *attrs = NULL, *targets = NULL;
            char pb[80];
            snprintf(pb, sizeof pb, "%s/primitives/%zu", base, p);
            if (!json_is_object(prim)) {
                if (!BAD(TYPE_MISMATCH, pb, "a primitive must be an object")) return false;
                continue;
            }
            g = arbor__ld_object(L, prim, pb, "attributes", &attrs);
            if (!arbor__ld_required(L, g, pb, "attributes")) return false;
            const char *key;
            json_t *v;
            json_object_foreach(attrs, key, v) {
                uint32_t index;
                char ab[104];
                snprintf(ab, sizeof ab, "%s/attributes", pb);
                ld_got ga = arbor__ld_index(L, attrs, ab, key, L->n_accessors, "accessor", &index);
                TRY(ga);
                if (!strncmp(key, "JOINTS_", 7)) M->joints = true;
                if (ga == LD_GOT && !strcmp(key, "POSITION") && !position_bounds(L, index, pb, M)) return false;
            }
            g = arbor__ld_array(L, prim, pb, "targets", true, &targets);
            TRY(g);
            if (p == 0) M->targets = (uint32_t)json_array_size(targets);
        }
    }
    return true;
}

/* A list of node indices appended to out[*n...]; LD_NONE stands for a bad one (lenient). */
static bool node_list(ld *L, json_t *list, const char *base, const char *key, uint32_t *out, uint32_t *n) {
    for (size_t k = 0; k < json_array_size(list); k++) {
        uint64_t c;
        json_t *v = json_array_get(list, k);
        uint32_t node = LD_NONE;
        if (!arbor__ld_as_uint(v, &c)) {
            if (!BAD(ARRAY_TYPE_MISMATCH, AT("%s/%s/%zu", base, key, k), "%s must hold node indices", key)) return false;
        } else if (c >= L->n_nodes) {
            if (!BAD(UNRESOLVED_REFERENCE, AT("%s/%s/%zu", base, key, k), "node %llu does not exist (the file has %u)", (unsigned long long)c,
                     L->n_nodes))
                return false;
        } else {
            node = (uint32_t)c;
        }
        out[(*n)++] = node;
    }
    return true;
}

/* ---- nodes ----------------------------------------------------------------------------------- */

/* A matrix glTF accepts: last row (0, 0, 0, 1) and orthogonal columns (any lengths, zero too). */
static bool matrix_is_trs(const double m[16], bool *last_row) {
    *last_row = m[3] == 0 && m[7] == 0 && m[11] == 0 && m[15] == 1;
    if (!*last_row) return false;
    double len[3];
    for (int c = 0; c < 3; c++)
        len[c] = sqrt(m[c * 4] * m[c * 4] + m[c * 4 + 1] * m[c * 4 + 1] + m[c * 4 + 2] * m[c * 4 + 2]);
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++) {
            double dot = m[a * 4] * m[b * 4] + m[a * 4 + 1] * m[b * 4 + 1] + m[a * 4 + 2] * m[b * 4 + 2];
            if (fabs(dot) > LD_TRS_TOLERANCE * len[a] * len[b]) return false;
        }
    return true;
}

static bool parse_transform(ld *L, json_t *o, const char *base, ld_node *N, uint32_t *n_matrices) {
    double t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1}, m[16];
    ld_got gt = get_reals(L, o, base, "translation", 3, t, 3, NULL);
    ld_got gr = get_reals(L, o, base, "rotation", 4, r, 4, NULL);
    ld_got gs = get_reals(L, o, base, "scale", 3, s, 3, NULL);
    ld_got gm = get_reals(L, o, base, "matrix", 16, m, 16, NULL);
    if (gt == LD_STOP || gr == LD_STOP || gs == LD_STOP || gm == LD_STOP) return false;
    if (gt == LD_BAD) t[0] = t[1] = t[2] = 0;
    if (gs == LD_BAD) s[0] = s[1] = s[2] = 1;
    if (gr == LD_GOT) {
        double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        bool range = fabs(r[0]) <= 1 && fabs(r[1]) <= 1 && fabs(r[2]) <= 1 && fabs(r[3]) <= 1;
        if ((!range || fabs(len - 1) > LD_UNIT_TOLERANCE) &&
            !BAD(ROTATION_NON_UNIT, AT("%s/rotation", base), "(%g, %g, %g, %g) is not a unit quaternion (length %g)", r[0], r[1], r[2],
                 r[3], len))
            return false;
        if (!(len > 0)) r[0] = r[1] = r[2] = 0, r[3] = 1; /* lenient: identity; else arbor normalises */
    } else if (gr == LD_BAD) {
        r[0] = r[1] = r[2] = 0, r[3] = 1;
    }
    if (gm == LD_GOT) {
        if ((gt != LD_ABSENT || gr != LD_ABSENT || gs != LD_ABSENT) &&
            !BAD(NODE_MATRIX_TRS, AT("%s/matrix", base), "a node has a matrix or translation, rotation and scale, not both"))
            return false;
        bool last_row, trs = matrix_is_trs(m, &last_row);
        if (!trs && !BAD(NODE_MATRIX_NON_TRS, AT("%s/matrix", base), "the matrix is not a translation, rotation and scale (%s)",
                         last_row ? "its columns are not orthogonal" : "its last row is not 0, 0, 0, 1"))
            return false;
        arbor_real *out = L->matrices + (size_t)*n_matrices * 16;
        for (int k = 0; k < 16; k++) out[k] = (arbor_real)m[k];
        out[3] = out[7] = out[11] = 0; /* lenient: a projective row is dropped */
        out[15] = 1;
        N->matrix = (*n_matrices)++;
        N->locked = trs; /* lenient: a sheared matrix stays, unlocked */
        return true;
    }
    for (int k = 0; k < 3; k++) N->trs[k] = (arbor_real)t[k], N->trs[7 + k] = (arbor_real)s[k];
    for (int k = 0; k < 4; k++) N->trs[3 + k] = (arbor_real)r[k];
    return true;
}

static bool parse_node(ld *L, uint32_t i, json_t *o, uint32_t *n_matrices) {
    ld_node *N = &L->nodes[i];
    char base[40];
    snprintf(base, sizeof base, "/nodes/%u", i);
    uint32_t v;
    json_t *list = NULL, *exts;
    ld_got g;
    TRY(arbor__ld_string(L, o, base, "name", &N->name));
    TRY(g = arbor__ld_index(L, o, base, "camera", L->n_cameras, "camera", &v));
    if (g == LD_GOT) N->camera = (int32_t)v;
    TRY(g = arbor__ld_index(L, o, base, "mesh", L->n_meshes, "mesh", &v));
    if (g == LD_GOT) N->mesh = (int32_t)v;
    ld_got gmesh = g;
    TRY(g = arbor__ld_index(L, o, base, "skin", L->n_skins, "skin", &v));
    if (g == LD_GOT) N->skin = (int32_t)v;
    if (g != LD_ABSENT && gmesh == LD_ABSENT) {
        if (!BAD(UNSATISFIED_DEPENDENCY, AT("%s/skin", base), "a node with a skin needs a mesh")) return false;
        N->skin = -1;
    }
    size_t weights = 0;
    double ignored;
    TRY(g = get_reals(L, o, base, "weights", 0, &ignored, 0, &weights));
    if (g == LD_GOT) N->weights = (uint32_t)weights;
    if (g != LD_ABSENT && gmesh == LD_ABSENT) {
        if (!BAD(UNSATISFIED_DEPENDENCY, AT("%s/weights", base), "a node with weights needs a mesh")) return false;
        N->weights = LD_NONE;
    }
    TRY(g = arbor__ld_array(L, o, base, "children", true, &list));
    N->kid0 = L->n_kids;
    if (!node_list(L, list, base, "children", L->kids, &L->n_kids)) return false;
    N->nkids = L->n_kids - N->kid0;
    if (!parse_transform(L, o, base, N, n_matrices)) return false;
    exts = json_object_get(o, "extensions");
    if (json_is_object(json_object_get(exts, "KHR_lights_punctual"))) {
        char eb[80];
        snprintf(eb, sizeof eb, "%s/extensions/KHR_lights_punctual", base);
        json_t *ext = json_object_get(exts, "KHR_lights_punctual");
        bool root = L->j_lights || json_object_get(json_object_get(L->root, "extensions"), "KHR_lights_punctual");
        if (!json_object_get(ext, "light") && !arbor__ld_required(L, LD_ABSENT, eb, "light")) return false;
        if (!root) return BAD(UNSATISFIED_DEPENDENCY, eb, "a light needs /extensions/KHR_lights_punctual");
        g = arbor__ld_index(L, ext, eb, "light", L->n_lights, "light", &v);
        TRY(g);
        if (g == LD_GOT) N->light = (int32_t)v;
    }
    return true;
}

static bool parse_nodes(ld *L) {
    size_t matrices = 0, kids = 0;
    for (uint32_t i = 0; i < L->n_nodes; i++) {
        json_t *o = json_array_get(L->j_nodes, i);
        if (json_object_get(o, "matrix")) matrices++;
        kids += json_array_size(json_object_get(o, "children"));
    }
    if (kids >= LD_NONE) return arbor__ld_stop(L, ARBOR_ERR_PARSE, LDI_ARBOR_LIMIT, "/nodes", "too many children");
    L->cap_matrices = matrices * 16;
    L->cap_kids = kids;
    if (!(L->nodes = arbor__ld_calloc(L, L->n_nodes, sizeof *L->nodes)) ||
        !(L->matrices = arbor__ld_calloc(L, L->cap_matrices, sizeof *L->matrices)) ||
        !(L->kids = arbor__ld_calloc(L, kids, sizeof *L->kids)))
        return false;
    for (uint32_t i = 0; i < L->n_nodes; i++) {
        ld_node *N = &L->nodes[i];
        *N = (ld_node){.matrix = LD_NONE,
                       .parent = LD_NONE,
                       .mesh = -1,
                       .camera = -1,
                       .skin = -1,
                       .light = -1,
                       .weights = LD_NONE};
        N->trs[6] = N->trs[7] = N->trs[8] = N->trs[9] = 1;
        json_t *o = json_array_get(L->j_nodes, i);
        if (json_is_object(o) && !parse_node(L, i, o, &L->n_matrices)) return false;
    }
    return true;
}

/* ---- scenes and skins ------------------------------------------------------------------------ */

static bool parse_scenes(ld *L) {
    size_t total = 0;
    for (uint32_t i = 0; i < L->n_scenes; i++)
        total += json_array_size(json_object_get(json_array_get(L->j_scenes, i), "nodes"));
    if (total >= LD_NONE) return arbor__ld_stop(L, ARBOR_ERR_PARSE, LDI_ARBOR_LIMIT, "/scenes", "too many scene roots");
    L->cap_roots = total;
    if (!(L->scenes = arbor__ld_calloc(L, L->n_scenes, sizeof *L->scenes)) ||
        !(L->roots = arbor__ld_calloc(L, total, sizeof *L->roots)))
        return false;
    for (uint32_t i = 0; i < L->n_scenes; i++) {
        json_t *o = json_array_get(L->j_scenes, i), *list = NULL;
        const char *name;
        char base[40];
        snprintf(base, sizeof base, "/scenes/%u", i);
        L->scenes[i].root0 = L->n_roots;
        if (!json_is_object(o)) continue;
        TRY(arbor__ld_string(L, o, base, "name", &name));
        TRY(arbor__ld_array(L, o, base, "nodes", true, &list));
        if (!node_list(L, list, base, "nodes", L->roots, &L->n_roots)) return false;
        L->scenes[i].nroots = L->n_roots - L->scenes[i].root0;
    }
    uint32_t scene;
    L->scene = -1;
    ld_got g = arbor__ld_index(L, L->root, "", "scene", L->n_scenes, "scene", &scene);
    TRY(g);
    if (g == LD_GOT) L->scene = (int32_t)scene;
    return true;
}

static bool parse_skins(ld *L) {
    size_t total = 0;
    for (uint32_t i = 0; i < L->n_skins; i++)
        total += json_array_size(json_object_get(json_array_get(L->j_skins, i), "joints"));
    if (total >= LD_NONE) return arbor__ld_stop(L, ARBOR_ERR_PARSE, LDI_ARBOR_LIMIT, "/skins", "too many joints");
    L->cap_joints = total;
    if (!(L->skins = arbor__ld_calloc(L, L->n_skins, sizeof *L->skins)) ||
        !(L->joints = arbor__ld_calloc(L, total, sizeof *L->joints)))
        return false;
    for (uint32_t i = 0; i < L->n_skins; i++) {
        json_t *o = json_array_get(L->j_skins, i), *list = NULL;
        ld_skin *K = &L->skins[i];
        *K = (ld_skin){.joint0 = L->n_joints, .skeleton = LD_NONE, .ibm = LD_NONE};
        if (!json_is_object(o)) continue;
        char base[40];
        snprintf(base, sizeof base, "/skins/%u", i);
        ld_got g = arbor__ld_array(L, o, base, "joints", true, &list);
        if (!arbor__ld_required(L, g, base, "joints")) return false;
        if (!node_list(L, list, base, "joints", L->joints, &L->n_joints)) return false;
        K->njoints = L->n_joints - K->joint0;
        TRY(arbor__ld_index(L, o, base, "skeleton", L->n_nodes, "node", &K->skeleton));
        TRY(arbor__ld_index(L, o, base, "inverseBindMatrices", L->n_accessors, "accessor", &K->ibm));
    }
    return true;
}

/* ---- the pass -------------------------------------------------------------------------------- */

bool arbor__ld_check(ld *L) {
    if (!json_is_object(L->root)) return arbor__ld_stop(L, ARBOR_ERR_PARSE, LDI_TYPE_MISMATCH, NULL, "the JSON is not an object");
    return check_asset(L) && arbor__ld_extensions(L) && collections(L) && parse_buffers(L) && parse_views(L) &&
           parse_accessors(L) && parse_cameras(L) && parse_lights(L) && parse_meshes(L) && parse_nodes(L) &&
           parse_scenes(L) && parse_skins(L);
}
