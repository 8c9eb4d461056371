/* SPDX-License-Identifier: MIT */
/*
 * What glTF extensions say about nodes, as loaded:
 * - EXT_mesh_gpu_instancing: TRANSLATION (VEC3), ROTATION (VEC4) and SCALE (VEC3) accessors of
 *   one count (every attribute's); floats, or normalized BYTE and SHORT rotations, and with
 *   KHR_mesh_quantization BYTE and SHORT translations and scales, normalized or not. Decoded as
 *   the spec says, finite, rotations unit within LD_UNIT_TOLERANCE (normalised again as every
 *   rotation arbor takes) and put on the node (instances.h).
 * - KHR_node_visibility: `visible` a boolean (default true), put on the node.
 * - MSFT_lod: `ids` naming other nodes, with extras.MSFT_screencoverage; kept in the document.
 * - KHR_animation_pointer channels on "/nodes/N/extensions/KHR_node_visibility/visible": SCALAR
 *   unsigned bytes, STEP, one per keyframe; decoded into the document
 *   (arbor_gltf_apply_visibility).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bounds/node_instances.h"
#include "gltf/load_internal.h"

enum { T, R, S }; /* the transform attributes */
static const char *const attribute_names[3] = {"TRANSLATION", "ROTATION", "SCALE"};

typedef struct ld_node_ext {
    uint32_t acc[3];      /* TRANSLATION, ROTATION, SCALE accessors; LD_NONE: absent */
    uint64_t count;       /* instances; 0: none (or left off by a lenient load) */
    arbor_trs *instances; /* decoded by arbor__ld_node_ext_data */
    bool hidden;
} ld_node_ext;

typedef struct ld_lod {
    uint32_t node;
    json_t *ids, *coverage; /* borrowed from the JSON; coverage NULL when unusable */
} ld_lod;

typedef struct ld_vis_channel {
    uint32_t animation, node, input, output;
} ld_vis_channel;

/* ---- the JSON --------------------------------------------------------------------------------- */

/* Whether accessor A may hold attribute k. */
static const char *attribute_refusal(ld *L, const ld_accessor *A, int k) {
    if (!A->ok) return "cannot be read";
    if (A->cols != 1 || A->rows != (k == R ? 4u : 3u)) return k == R ? "must be VEC4" : "must be VEC3";
    if (A->ctype == 5126) return NULL;
    bool small_signed = A->ctype == 5120 || A->ctype == 5122;
    if (k == R) return small_signed && A->normalized ? NULL : "must hold floats or normalized bytes or shorts";
    bool quantized = L->ext_used && json_object_get(L->ext_used, "KHR_mesh_quantization");
    return small_signed && quantized ? NULL
           : quantized ? "must hold floats, bytes or shorts"
                       : "must hold floats (bytes and shorts need KHR_mesh_quantization)";
}

static bool instancing(ld *L, uint32_t i, json_t *ext, ld_node_ext *E) {
    char base[96];
    snprintf(base, sizeof base, "/nodes/%u/extensions/EXT_mesh_gpu_instancing", i);
    json_t *attributes = NULL;
    ld_got g = arbor__ld_object(L, ext, base, "attributes", &attributes);
    if (!arbor__ld_required(L, g, base, "attributes")) return false;
    if (g != LD_GOT) return true;
    char ab[128];
    snprintf(ab, sizeof ab, "%s/attributes", base);
    if (!json_object_size(attributes)) return BAD(EMPTY_ENTITY, ab, "attributes must name at least one accessor");
    const char *key;
    json_t *value;
    uint64_t count = 0;
    const char *first = NULL;
    json_object_foreach(attributes, key, value) {
        uint32_t a;
        TRY(g = arbor__ld_index(L, attributes, ab, key, L->n_accessors, "accessor", &a));
        if (g != LD_GOT) return true; /* lenient: reported, no instances */
        int k = 0;
        while (k < 3 && strcmp(key, attribute_names[k])) k++;
        const ld_accessor *A = &L->acc[a];
        const char *why = k < 3 ? attribute_refusal(L, A, k) : NULL;
        if (why) return BAD(MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT, AT("%s/%s", ab, key), "accessor %u %s", a, why);
        if (k < 3) E->acc[k] = a;
        if (first && A->count != count)
            return BAD(VALUE_NOT_IN_RANGE, AT("%s/%s", ab, key), "accessor %u holds %llu elements, %s's accessor %llu", a,
                       (unsigned long long)A->count, first, (unsigned long long)count);
        first = first ? first : key;
        count = A->count;
    }
    if (count > UINT32_MAX) return BAD(ARBOR_LIMIT, ab, "%llu instances are too many", (unsigned long long)count);
    E->count = count;
    return true;
}

static bool visibility(ld *L, uint32_t i, json_t *ext, ld_node_ext *E) {
    json_t *visible = json_object_get(ext, "visible");
    if (visible && !json_is_boolean(visible))
        return BAD(TYPE_MISMATCH, AT("/nodes/%u/extensions/KHR_node_visibility/visible", i), "visible must be true or false");
    E->hidden = json_is_false(visible);
    return true;
}

static bool lod(ld *L, uint32_t i, json_t *node, json_t *ext) {
    char base[80];
    snprintf(base, sizeof base, "/nodes/%u/extensions/MSFT_lod", i);
    json_t *ids = NULL;
    ld_got g = arbor__ld_array(L, ext, base, "ids", false, &ids);
    if (!arbor__ld_required(L, g, base, "ids")) return false;
    if (g != LD_GOT) return true;
    for (size_t k = 0; k < json_array_size(ids); k++) {
        uint64_t v;
        if (!arbor__ld_as_uint(json_array_get(ids, k), &v)) return BAD(ARRAY_TYPE_MISMATCH, AT("%s/ids/%zu", base, k), "a node index is needed here");
        if (v >= L->n_nodes)
            return BAD(UNRESOLVED_REFERENCE, AT("%s/ids/%zu", base, k), "node %llu does not exist (the file has %u)", (unsigned long long)v,
                       L->n_nodes);
        if (v == i) return BAD(VALUE_NOT_IN_RANGE, AT("%s/ids/%zu", base, k), "node %u cannot be a level of its own", i);
    }
    json_t *coverage = json_object_get(json_object_get(node, "extras"), "MSFT_screencoverage");
    bool usable = json_is_array(coverage) && json_array_size(coverage) >= json_array_size(ids) + 1;
    for (size_t k = 0; usable && k < json_array_size(coverage); k++) usable = json_is_number(json_array_get(coverage, k));
    if (coverage && !usable)
        arbor__ld_note(L, AT("/nodes/%u/extras/MSFT_screencoverage", i),
                       "not a number per level of detail: levels are chosen without it");
    L->lod_groups[L->n_lod_groups++] = (ld_lod){.node = i, .ids = ids, .coverage = usable ? coverage : NULL};
    return true;
}

/* "/nodes/N/extensions/KHR_node_visibility/visible": N, or LD_NONE for another pointer. */
static uint32_t visibility_pointer(json_t *target, uint64_t *node) {
    json_t *khr = json_object_get(json_object_get(target, "extensions"), "KHR_animation_pointer");
    const char *p = json_string_value(json_object_get(khr, "pointer"));
    if (!p || strncmp(p, "/nodes/", 7) || p[7] < '0' || p[7] > '9') return LD_NONE;
    char *end;
    *node = strtoull(p + 7, &end, 10);
    return strcmp(end, "/extensions/KHR_node_visibility/visible") ? LD_NONE : 0;
}

static bool visibility_channels(ld *L) {
    for (uint32_t a = 0; a < L->n_animations; a++) {
        json_t *anim = json_array_get(L->j_animations, a);
        json_t *channels = json_object_get(anim, "channels"), *samplers = json_object_get(anim, "samplers");
        for (size_t c = 0; c < json_array_size(channels); c++) {
            json_t *ch = json_array_get(channels, c);
            uint64_t node, s;
            if (visibility_pointer(json_object_get(ch, "target"), &node) == LD_NONE) continue;
            char base[80];
            snprintf(base, sizeof base, "/animations/%u/channels/%zu", a, c);
            if (node >= L->n_nodes) {
                if (!BAD(KHR_ANIMATION_POINTER_ANIMATION_CHANNEL_TARGET_NODE, AT("%s/target/extensions/KHR_animation_pointer/pointer", base),
                         "node %llu does not exist (the file has %u)", (unsigned long long)node, L->n_nodes))
                    return false;
                continue;
            }
            if (!arbor__ld_as_uint(json_object_get(ch, "sampler"), &s) || s >= json_array_size(samplers))
                continue; /* reported by links.c */
            const ld_sampler *S = &L->samplers[L->animations[a].sampler0 + s];
            const ld_accessor *in = &L->acc[S->input], *out = &L->acc[S->output];
            const char *why = !S->ok                                    ? NULL
                              : S->interpolation != ARBOR_INTERPOLATION_STEP ? "a visibility is animated with STEP"
                              : out->ncomp != 1 || out->ctype != 5121 ? "a visibility's output is SCALAR unsigned bytes"
                              : out->count != in->count              ? "a visibility needs one value per keyframe"
                                                                     : NULL;
            if (why && !BAD(ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT, AT("%s/sampler", base), "sampler %llu: %s", (unsigned long long)s, why)) return false;
            if (why || !S->ok) continue;
            L->vis_channels[L->n_vis_channels++] =
                (ld_vis_channel){.animation = a, .node = (uint32_t)node, .input = S->input, .output = S->output};
        }
    }
    return true;
}

/* The room the context's lists take (the same count when they are made and freed). */
static size_t lod_room(const ld *L) {
    size_t lods = 0;
    for (uint32_t i = 0; i < L->n_nodes; i++)
        lods += json_object_get(json_object_get(json_array_get(L->j_nodes, i), "extensions"), "MSFT_lod") != NULL;
    return lods;
}
static size_t channel_room(const ld *L) {
    size_t channels = 0;
    for (uint32_t a = 0; a < L->n_animations; a++)
        channels += json_array_size(json_object_get(json_array_get(L->j_animations, a), "channels"));
    return channels;
}

bool arbor__ld_node_ext(ld *L) {
    size_t lods = lod_room(L), channels = channel_room(L);
    if (!(L->node_ext = arbor__ld_calloc(L, L->n_nodes, sizeof *L->node_ext)) ||
        !(L->lod_groups = arbor__ld_calloc(L, lods, sizeof *L->lod_groups)) ||
        !(L->vis_channels = arbor__ld_calloc(L, channels, sizeof *L->vis_channels)))
        return false;
    for (uint32_t i = 0; i < L->n_nodes; i++) {
        ld_node_ext *E = &L->node_ext[i];
        E->acc[T] = E->acc[R] = E->acc[S] = LD_NONE;
        json_t *node = json_array_get(L->j_nodes, i), *exts = json_object_get(node, "extensions"), *ext;
        if (json_is_object(ext = json_object_get(exts, "EXT_mesh_gpu_instancing")) && !instancing(L, i, ext, E))
            return false;
        if (json_is_object(ext = json_object_get(exts, "KHR_node_visibility")) && !visibility(L, i, ext, E)) return false;
        if (json_is_object(ext = json_object_get(exts, "MSFT_lod")) && !lod(L, i, node, ext)) return false;
    }
    return visibility_channels(L);
}

/* ---- the data --------------------------------------------------------------------------------- */

/* Instance e's TRS from the node's accessors; false (reported: a lenient load goes on) when it
   cannot be used as it is. */
static bool decode(ld *L, uint32_t i, const ld_node_ext *E, uint64_t e, arbor_trs *out) {
    static const double identity[3][4] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 0}};
    arbor_real *parts[3] = {out->translation, out->rotation, out->scale};
    double q[4];
    for (int k = 0; k < 3; k++) {
        const ld_accessor *A = E->acc[k] == LD_NONE ? NULL : &L->acc[E->acc[k]];
        uint32_t n = k == R ? 4 : 3;
        for (uint32_t c = 0; c < n; c++) {
            double v = A ? arbor__ld_normalize(A, arbor__ld_read(L, A, e, c)) : identity[k][c];
            if (!(fabs(v) < 0x1.ffffffp+127)) {
                BAD(ACCESSOR_INVALID_FLOAT, AT("/nodes/%u/extensions/EXT_mesh_gpu_instancing/attributes/%s", i, attribute_names[k]),
                    "instance %llu holds %g", (unsigned long long)e, v);
                return false;
            }
            parts[k][c] = (arbor_real)v;
            if (k == R) q[c] = v;
        }
    }
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (fabs(len - 1) > LD_UNIT_TOLERANCE) {
        if (!BAD(ROTATION_NON_UNIT, AT("/nodes/%u/extensions/EXT_mesh_gpu_instancing/attributes/ROTATION", i),
                 "the rotation of instance %llu has length %g, not 1", (unsigned long long)e, len))
            return false;
        return len > 0; /* lenient: normalised, unless it is zero */
    }
    return true;
}

bool arbor__ld_node_ext_data(ld *L) {
    for (uint32_t i = 0; i < L->n_nodes; i++) {
        ld_node_ext *E = &L->node_ext[i];
        if (!E->count) continue;
        bool from_data = false; /* an attribute reads bytes of the file: the count is bounded by them */
        for (int k = 0; k < 3; k++) {
            const ld_accessor *A = E->acc[k] == LD_NONE ? NULL : &L->acc[E->acc[k]];
            from_data |= A && A->view != LD_NONE;
            if (A && (A->bad_layout || (A->view != LD_NONE && !arbor__ld_has_data(L, A)))) {
                E->count = 0; /* lenient: no instances */
                if (!BAD(IO_ERROR, AT("/nodes/%u/extensions/EXT_mesh_gpu_instancing/attributes/%s", i, attribute_names[k]),
                         "accessor %u's data is not at hand", E->acc[k]))
                    return false;
            }
        }
        if (E->count > LD_MAX_DATALESS_INSTANCES && !from_data) {
            uint64_t count = E->count;
            E->count = 0; /* lenient: no instances */
            if (!BAD(ARBOR_LIMIT, AT("/nodes/%u/extensions/EXT_mesh_gpu_instancing/attributes", i),
                     "%llu instances and no attribute with a bufferView: arbor makes at most %u instances from no data",
                     (unsigned long long)count, LD_MAX_DATALESS_INSTANCES))
                return false;
        }
        if (!E->count || !(E->instances = arbor__ld_calloc(L, E->count, sizeof *E->instances))) {
            if (L->code) return false;
            continue;
        }
        for (uint64_t e = 0; e < E->count; e++) {
            if (decode(L, i, E, e, &E->instances[e])) continue;
            if (L->code) return false;
            E->instances[e] = (arbor_trs){.rotation = {0, 0, 0, 1}, .scale = {1, 1, 1}}; /* lenient: identity */
        }
    }
    for (uint32_t k = 0; k < L->n_vis_channels; k++) {
        const ld_vis_channel *C = &L->vis_channels[k];
        const ld_accessor *in = &L->acc[C->input], *out = &L->acc[C->output];
        if (!arbor__ld_has_data(L, in) || (out->view != LD_NONE && !arbor__ld_has_data(L, out)))
            arbor__ld_note(L, AT("/animations/%u", C->animation), "a visibility channel's data is not at hand");
    }
    return true;
}

/* ---- the document and the nodes ------------------------------------------------------------------- */

bool arbor__ld_node_ext_doc(ld *L, arbor_gltf *doc) {
    uint32_t levels = 0;
    for (uint32_t g = 0; g < L->n_lod_groups; g++) levels += 1 + (uint32_t)json_array_size(L->lod_groups[g].ids);
    size_t floats = 0;
    uint32_t channels = 0;
    for (uint32_t k = 0; k < L->n_vis_channels; k++) {
        const ld_accessor *in = &L->acc[L->vis_channels[k].input];
        if (!arbor__ld_has_data(L, in)) continue;
        floats += 2 * (size_t)in->count;
        channels++;
    }
    /* the sizes first: a document freed half made frees what it holds with them */
    doc->lod_count = L->n_lod_groups;
    doc->lod_level_total = levels;
    doc->visibility_channel_count = channels;
    doc->visibility_floats = floats;
    if (!(doc->lods = arbor__ld_calloc(L, L->n_lod_groups, sizeof *doc->lods)) ||
        !(doc->lod_levels = arbor__ld_calloc(L, levels, sizeof *doc->lod_levels)) ||
        !(doc->lod_coverage = arbor__ld_calloc(L, levels, sizeof *doc->lod_coverage)) ||
        !(doc->visibility_channels = arbor__ld_calloc(L, channels, sizeof *doc->visibility_channels)) ||
        !(doc->visibility_data = arbor__ld_calloc(L, floats, sizeof *doc->visibility_data)))
        return false;
    uint32_t at = 0;
    for (uint32_t g = 0; g < L->n_lod_groups; g++) {
        const ld_lod *G = &L->lod_groups[g];
        uint32_t n = 1 + (uint32_t)json_array_size(G->ids);
        doc->lods[g] = (arbor__gltf_lod){.level0 = at, .level_count = n, .has_coverage = G->coverage != NULL};
        for (uint32_t k = 0; k < n; k++) {
            uint64_t v = G->node;
            if (k) arbor__ld_as_uint(json_array_get(G->ids, k - 1), &v);
            doc->lod_levels[at + k] = (uint32_t)v;
            if (G->coverage) doc->lod_coverage[at + k] = (float)json_number_value(json_array_get(G->coverage, k));
        }
        at += n;
    }
    size_t f = 0;
    channels = 0;
    for (uint32_t k = 0; k < L->n_vis_channels; k++) {
        const ld_vis_channel *C = &L->vis_channels[k];
        const ld_accessor *in = &L->acc[C->input], *out = &L->acc[C->output];
        if (!arbor__ld_has_data(L, in)) continue;
        arbor__gltf_visibility_channel *D = &doc->visibility_channels[channels++];
        *D = (arbor__gltf_visibility_channel){
            .animation = C->animation, .node = C->node, .keys = (uint32_t)in->count, .times = f, .values = f + in->count};
        for (uint64_t e = 0; e < in->count; e++) {
            doc->visibility_data[f + e] = (float)arbor__ld_read(L, in, e, 0);
            doc->visibility_data[f + in->count + e] = arbor__ld_read(L, out, e, 0) != 0 ? 1.0f : 0.0f;
        }
        f += 2 * (size_t)in->count;
    }
    return true;
}

bool arbor__ld_node_ext_attach(ld *L, uint32_t i, arbor_node h) {
    const ld_node_ext *E = &L->node_ext[i];
    if (E->hidden && arbor_node_set_visible(L->s, h, false)) return false;
    if (!E->instances) return true;
    arbor_result r = arbor_node_set_instances(L->s, h, E->instances, (uint32_t)E->count);
    if (r == ARBOR_ERR_OUT_OF_MEMORY) return false;
    if (r) { /* the checks above make this unreachable but for float rounding */
        arbor__log(L->s, ARBOR_LOG_WARN, "%s: /nodes/%u/extensions/EXT_mesh_gpu_instancing: no instances: %s", L->file, i,
                   arbor_last_error());
        return true;
    }
    arbor__instances_of(L->s, arbor__slot(L->s, h))->edited = false; /* as the file holds them */
    return true;
}

void arbor__ld_node_ext_free(ld *L) {
    if (L->node_ext)
        for (uint32_t i = 0; i < L->n_nodes; i++)
            arbor__ld_free(L, L->node_ext[i].instances, L->node_ext[i].count, sizeof(arbor_trs));
    arbor__ld_free(L, L->node_ext, L->n_nodes, sizeof *L->node_ext);
    if (L->lod_groups) arbor__ld_free(L, L->lod_groups, lod_room(L), sizeof *L->lod_groups);
    if (L->vis_channels) arbor__ld_free(L, L->vis_channels, channel_room(L), sizeof *L->vis_channels);
}

void arbor__gltf_node_ext_free(arbor_gltf *doc) {
    const arbor_allocator *a = &doc->allocator;
    arbor__free_with(a, doc->lods, (size_t)doc->lod_count * sizeof *doc->lods);
    arbor__free_with(a, doc->lod_levels, (size_t)doc->lod_level_total * sizeof *doc->lod_levels);
    arbor__free_with(a, doc->lod_coverage, (size_t)doc->lod_level_total * sizeof *doc->lod_coverage);
    arbor__free_with(a, doc->visibility_channels, (size_t)doc->visibility_channel_count * sizeof *doc->visibility_channels);
    arbor__free_with(a, doc->visibility_data, doc->visibility_floats * sizeof *doc->visibility_data);
}

/* ---- queries ----------------------------------------------------------------------------------- */

uint32_t arbor_gltf_lod_count(const arbor_gltf *doc) { return doc ? doc->lod_count : 0; }

uint32_t arbor_gltf_lod_group(const arbor_gltf *doc, uint32_t group, arbor_node *levels, arbor_real *coverage,
                              uint32_t cap, bool *has_coverage) {
    if (has_coverage) *has_coverage = false;
    if (!doc || group >= doc->lod_count) return 0;
    const arbor__gltf_lod *G = &doc->lods[group];
    if (has_coverage) *has_coverage = G->has_coverage;
    for (uint32_t k = 0; k < G->level_count && k < cap; k++) {
        if (levels) levels[k] = arbor_gltf_node(doc, doc->lod_levels[G->level0 + k]);
        if (coverage) coverage[k] = G->has_coverage ? (arbor_real)doc->lod_coverage[G->level0 + k] : 0;
    }
    return G->level_count;
}

uint32_t arbor_gltf_select_lods(const arbor_gltf *doc, const arbor_real view_projection[16]) {
    if (!doc || !view_projection) return 0;
    uint32_t shown = 0;
    for (uint32_t g = 0; g < doc->lod_count; g++) {
        const arbor__gltf_lod *G = &doc->lods[g];
        enum { MAX_LEVELS = 64 }; /* levels past it stay as they are */
        arbor_node levels[MAX_LEVELS];
        arbor_real coverage[MAX_LEVELS];
        uint32_t n = G->level_count < MAX_LEVELS ? G->level_count : MAX_LEVELS;
        arbor_gltf_lod_group(doc, g, levels, coverage, n, NULL);
        int32_t pick = arbor_lod_pick(doc->scene, levels, G->has_coverage ? coverage : NULL, n, view_projection);
        for (uint32_t k = 0; k < n; k++)
            if (arbor_node_alive(doc->scene, levels[k])) arbor_node_set_visible(doc->scene, levels[k], (int32_t)k == pick);
        shown += pick >= 0;
    }
    return shown;
}

uint32_t arbor_gltf_apply_visibility(const arbor_gltf *doc, uint32_t animation, double time, bool loop) {
    if (!doc || !isfinite(time) || animation >= doc->animation_count) return 0;
    double duration = doc->animations[animation].duration;
    if (loop && duration > 0) {
        time = fmod(time, duration);
        if (time < 0) time += duration;
    }
    uint32_t written = 0;
    for (uint32_t k = 0; k < doc->visibility_channel_count; k++) {
        const arbor__gltf_visibility_channel *C = &doc->visibility_channels[k];
        arbor_node n = arbor_gltf_node(doc, C->node);
        if (C->animation != animation || !arbor_node_alive(doc->scene, n)) continue;
        const float *times = doc->visibility_data + C->times;
        uint32_t key = 0; /* STEP: the last keyframe at or before time (the first before it) */
        while (key + 1 < C->keys && times[key + 1] <= time) key++;
        if (arbor_node_set_visible(doc->scene, n, doc->visibility_data[C->values + key] != 0) == ARBOR_OK) written++;
    }
    return written;
}
