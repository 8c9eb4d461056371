/* SPDX-License-Identifier: MIT */
/*
 * Tests of animation and skinning (include/arbor/anim.h, and the glTF side in gltf.h).
 *
 * - Every sample of shared/gltf/samples with animations: each channel's value at every keyframe,
 *   halfway between keyframes, before the first and after the last, against a sampler written
 *   here on the file's own accessors (read here with jansson, not with arbor); looping across
 *   the end; KHR_animation_pointer channels only when asked for.
 * - Each interpolation mode on small files made here (STEP, LINEAR, CUBICSPLINE with tangents
 *   scaled by the keyframe interval, rotations, morph weights), with the numbers worked by hand,
 *   and the same clips made from arrays; slerp along the shorter arc; keyframe rotations
 *   normalised; the cursor giving the same bits in any order of times.
 * - Skins: the bind pose gives identity joint matrices where the file's inverse bind matrices
 *   match its pose (Fox, RiggedFigure, raylib's robot); J = W_mesh^-1 W_joint IBM by hand
 *   elsewhere; both layouts.
 * - Blends, additive layers, one clip on copies of a character (in other scenes, on threads),
 *   many players on an executor, versions and invalidation, no allocation per frame, every
 *   refusal, the loader refusing bad animation data with a JSON pointer, and `arbor animate`.
 *
 * The shared files are found at ARBOR_SHARED_DIR "/gltf"; tests that need them are skipped with a
 * message when that folder is absent.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_samples.h"

#include <pthread.h>

#include <jansson.h>

#include "math/affine.h" /* the slerp kernels, to hold the four-lane one to the scalar one */

#define OUT_DIR ARBOR_TEST_OUTPUT_DIR "/anim"
#define PI 3.14159265358979323846

/* Keyframes are floats (as glTF stores them), normalised rotations included, so even a double
   build samples them at about float's precision. */
#if ARBOR_REAL_IS_DOUBLE
#define TOL 2e-7
#else
#define TOL 3e-6
#endif

static bool have_samples(void) {
    struct stat st;
    return stat(SAMPLES_DIR, &st) == 0 && S_ISDIR(st.st_mode);
}
#define NEED_SAMPLES()                                      \
    do {                                                    \
        if (!have_samples()) TEST_SKIP_SHARED(SAMPLES_DIR); \
    } while (0)

/* |a - b| within TOL scaled by the size of b (at least 1). */
static void near_(double a, double b, const char *what, const char *file, int line) {
    double tol = TOL * (fabs(b) > 1 ? fabs(b) : 1);
    if (!(fabs(a - b) <= tol)) fail_msg("%s:%d: %s: %.9g, expected %.9g (tolerance %.2g)", file, line, what, a, b, tol);
}
#define NEAR(a, b, what) near_((double)(a), (double)(b), (what), __FILE__, __LINE__)

/* ---- glTF files read here, without arbor ------------------------------------------------------- */

typedef struct gfile {
    json_t *root;
    unsigned char *buffers[16];
    size_t sizes[16];
} gfile;

static gfile gfile_open(const char *path) {
    gfile g = { 0 };
    size_t size = 0;
    unsigned char *raw = (unsigned char *)read_file(path, &size), *bin = NULL;
    assert_non_null(raw);
    size_t bin_size = 0;
    if (size >= 20 && !memcmp(raw, "glTF", 4)) {
        uint32_t json_size = raw[12] | raw[13] << 8 | raw[14] << 16 | (uint32_t)raw[15] << 24;
        g.root = json_loadb((const char *)raw + 20, json_size, 0, NULL);
        const unsigned char *chunk = raw + 20 + json_size;
        bin_size = chunk[0] | chunk[1] << 8 | chunk[2] << 16 | (size_t)chunk[3] << 24;
        bin = malloc(bin_size);
        memcpy(bin, chunk + 8, bin_size);
    } else {
        g.root = json_loadb((const char *)raw, size, 0, NULL);
    }
    assert_non_null(g.root);
    json_t *buffers = json_object_get(g.root, "buffers");
    assert_true(json_array_size(buffers) <= 16);
    for (size_t i = 0; i < json_array_size(buffers); i++) {
        const char *uri = json_string_value(json_object_get(json_array_get(buffers, i), "uri"));
        if (!uri) {
            g.buffers[i] = bin, g.sizes[i] = bin_size;
            bin = NULL;
        } else if (!strncmp(uri, "data:", 5)) {
            const char *text = strchr(uri, ',') + 1;
            g.buffers[i] = malloc(strlen(text));
            g.sizes[i] = unbase64(g.buffers[i], text);
        } else {
            char full[PATH_MAX];
            snprintf(full, sizeof full, "%.*s/%s", (int)(strrchr(path, '/') - path), path, uri);
            g.buffers[i] = (unsigned char *)read_file(full, &g.sizes[i]);
            assert_non_null(g.buffers[i]);
        }
    }
    free(bin);
    free(raw);
    return g;
}

static void gfile_close(gfile *g) {
    for (int i = 0; i < 16; i++) free(g->buffers[i]);
    json_decref(g->root);
}

static int json_int(json_t *o, const char *key, int otherwise) {
    json_t *v = json_object_get(o, key);
    return v ? (int)json_integer_value(v) : otherwise;
}

/* Accessor `index` of floats (malloc'ed, count * components values). */
static float *gfile_floats(const gfile *g, int index, size_t *count, int *components) {
    json_t *a = json_array_get(json_object_get(g->root, "accessors"), (size_t)index);
    json_t *v = json_array_get(json_object_get(g->root, "bufferViews"), (size_t)json_int(a, "bufferView", -1));
    assert_int_equal(json_int(a, "componentType", 0), 5126);
    const char *type = json_string_value(json_object_get(a, "type"));
    int n = !strcmp(type, "SCALAR") ? 1 : !strcmp(type, "VEC2") ? 2 : !strcmp(type, "VEC3") ? 3 : !strcmp(type, "VEC4") ? 4 : 16;
    size_t c = (size_t)json_int(a, "count", 0), stride = (size_t)json_int(v, "byteStride", 4 * n);
    const unsigned char *base = g->buffers[json_int(v, "buffer", 0)] + json_int(v, "byteOffset", 0) + json_int(a, "byteOffset", 0);
    float *out = malloc(c * (size_t)n * sizeof *out);
    for (size_t e = 0; e < c; e++) memcpy(out + e * (size_t)n, base + e * stride, (size_t)n * sizeof *out);
    *count = c;
    *components = n;
    return out;
}

/* ---- a sampler written here (glTF 2.0, 3.11 and appendix C), in double --------------------------- */

typedef struct ref_channel {
    int node, path, interpolation; /* arbor_anim_path, arbor_interpolation */
    float *times, *values;
    size_t keys;
    int width;
} ref_channel;

static void normalize(double *q) {
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= n;
}

static void ref_key(const ref_channel *c, size_t k, double *out) {
    const float *v = c->values + (c->interpolation == ARBOR_INTERPOLATION_CUBICSPLINE ? 3 * k + 1 : k) * (size_t)c->width;
    for (int i = 0; i < c->width; i++) out[i] = v[i];
    if (c->path == ARBOR_ANIM_ROTATION) normalize(out);
}

/* slerp by acos and sin along the shorter arc */
static void ref_slerp(const double *a, const double *b_in, double u, double *out) {
    double b[4], d = 0;
    for (int i = 0; i < 4; i++) d += a[i] * b_in[i];
    for (int i = 0; i < 4; i++) b[i] = d < 0 ? -b_in[i] : b_in[i];
    d = fabs(d);
    double wa = 1 - u, wb = u;
    if (d < 1 - 1e-12) {
        double theta = acos(d);
        wa = sin((1 - u) * theta) / sin(theta);
        wb = sin(u * theta) / sin(theta);
    }
    for (int i = 0; i < 4; i++) out[i] = wa * a[i] + wb * b[i];
    normalize(out);
}

static void ref_sample(const ref_channel *c, double t, double *out) {
    size_t n = c->keys;
    if (t <= c->times[0] || t >= c->times[n - 1]) {
        ref_key(c, t <= c->times[0] ? 0 : n - 1, out);
        return;
    }
    size_t k = 0;
    while (c->times[k + 1] <= t) k++;
    double t0 = c->times[k], dt = (double)c->times[k + 1] - t0, u = (t - t0) / dt;
    double a[64], b[64];
    ref_key(c, k, a);
    if (c->interpolation == ARBOR_INTERPOLATION_STEP) {
        memcpy(out, a, (size_t)c->width * sizeof *out);
    } else if (c->interpolation == ARBOR_INTERPOLATION_LINEAR) {
        ref_key(c, k + 1, b);
        if (c->path == ARBOR_ANIM_ROTATION) {
            ref_slerp(a, b, u, out);
            return;
        }
        for (int i = 0; i < c->width; i++) out[i] = (1 - u) * a[i] + u * b[i];
    } else {
        const float *p0 = c->values + (3 * k + 1) * (size_t)c->width, *m0 = p0 + c->width, *m1 = p0 + 2 * c->width,
                    *p1 = p0 + 3 * c->width;
        double u2 = u * u, u3 = u2 * u;
        for (int i = 0; i < c->width; i++)
            out[i] = (2 * u3 - 3 * u2 + 1) * p0[i] + (u3 - 2 * u2 + u) * dt * m0[i] + (-2 * u3 + 3 * u2) * p1[i] +
                     (u3 - u2) * dt * m1[i];
        if (c->path == ARBOR_ANIM_ROTATION) normalize(out);
    }
}

/* The channels of animation `a` of a file read here (pointer channels on node TRS when asked). */
static ref_channel *ref_channels(const gfile *g, int a, bool pointer, size_t *count) {
    json_t *anim = json_array_get(json_object_get(g->root, "animations"), (size_t)a);
    json_t *channels = json_object_get(anim, "channels"), *samplers = json_object_get(anim, "samplers");
    ref_channel *out = calloc(json_array_size(channels) + 1, sizeof *out);
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(channels); i++) {
        json_t *ch = json_array_get(channels, i), *target = json_object_get(ch, "target");
        const char *path = json_string_value(json_object_get(target, "path"));
        int node = json_int(target, "node", -1);
        char member[32] = "";
        if (!strcmp(path, "pointer")) {
            const char *p = json_string_value(json_object_get(
                json_object_get(json_object_get(target, "extensions"), "KHR_animation_pointer"), "pointer"));
            if (!pointer || sscanf(p, "/nodes/%d/%31s", &node, member) != 2) continue;
            path = member;
        }
        int kind = !strcmp(path, "translation") ? ARBOR_ANIM_TRANSLATION
                   : !strcmp(path, "rotation")  ? ARBOR_ANIM_ROTATION
                   : !strcmp(path, "scale")     ? ARBOR_ANIM_SCALE
                                                : -1;
        if (kind < 0 || node < 0) continue;
        json_t *s = json_array_get(samplers, (size_t)json_int(ch, "sampler", 0));
        const char *interp = json_string_value(json_object_get(s, "interpolation"));
        ref_channel *c = &out[n++];
        c->node = node;
        c->path = kind;
        c->interpolation = !interp || !strcmp(interp, "LINEAR") ? ARBOR_INTERPOLATION_LINEAR
                           : !strcmp(interp, "STEP")            ? ARBOR_INTERPOLATION_STEP
                                                                : ARBOR_INTERPOLATION_CUBICSPLINE;
        int components;
        size_t values;
        c->times = gfile_floats(g, json_int(s, "input", 0), &c->keys, &components);
        c->values = gfile_floats(g, json_int(s, "output", 0), &values, &c->width);
    }
    *count = n;
    return out;
}

static void ref_free(ref_channel *c, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(c[i].times);
        free(c[i].values);
    }
    free(c);
}

/* The part of a TRS a path animates. */
static const arbor_real *trs_part(const arbor_trs *trs, int path) {
    return path == ARBOR_ANIM_TRANSLATION ? trs->translation : path == ARBOR_ANIM_ROTATION ? trs->rotation : trs->scale;
}

/* A node's TRS part against the reference (rotations as rotations: q and -q are the same). */
static void check_part(arbor_scene *s, arbor_node n, int path, const double *want, const char *what) {
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, n, &trs));
    const arbor_real *got = trs_part(&trs, path);
    int w = path == ARBOR_ANIM_ROTATION ? 4 : 3;
    double sign = 1;
    if (path == ARBOR_ANIM_ROTATION) {
        double d = 0;
        for (int i = 0; i < 4; i++) d += got[i] * want[i];
        sign = d < 0 ? -1 : 1;
    }
    for (int i = 0; i < w; i++) NEAR(sign * got[i], want[i], what);
}

/* A player of animation a of a loaded file, on the file's nodes. */
static arbor_player *file_player(const loaded *l, uint32_t a, bool pointer, arbor_clip **clip) {
    arbor_gltf_clip_options o = { .pointer = pointer };
    ASSERT_OK(arbor_gltf_clip(l->doc, a, &o, clip));
    uint32_t n = arbor_gltf_node_count(l->doc);
    arbor_node *rig = malloc((n + 1) * sizeof *rig);
    for (uint32_t i = 0; i < n; i++) rig[i] = arbor_gltf_node(l->doc, i);
    arbor_player *p;
    ASSERT_OK(arbor_player_create(*clip, l->s, rig, n, &p));
    free(rig);
    return p;
}

/* ---- every sample with animations ------------------------------------------------------------- */

static int by_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Checks animation a of one file at its keyframes, halfway between, and beyond both ends;
   returns how many values were compared. */
static size_t check_animation(const loaded *l, const gfile *g, uint32_t a, bool pointer) {
    size_t nref;
    ref_channel *ref = ref_channels(g, (int)a, pointer, &nref);
    arbor_clip *clip;
    arbor_player *p = file_player(l, a, pointer, &clip);
    assert_int_equal(arbor_clip_channel_count(clip), nref);
    /* times: every keyframe of every channel (at most 300 of each), halfway to the next, and
       beyond both ends */
    size_t cap = 8, n = 0;
    double *times = malloc(cap * sizeof *times);
    times[n++] = -0.5;
    times[n++] = arbor_clip_duration(clip) + 0.5;
    for (size_t c = 0; c < nref; c++) {
        size_t step = ref[c].keys / 300 + 1;
        for (size_t k = 0; k < ref[c].keys; k += step) {
            if (n + 2 > cap) times = realloc(times, (cap *= 2) * sizeof *times);
            times[n++] = ref[c].times[k];
            if (k + 1 < ref[c].keys) times[n++] = 0.5 * ((double)ref[c].times[k] + ref[c].times[k + 1]);
        }
    }
    qsort(times, n, sizeof *times, by_double);
    size_t checked = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && times[i] == times[i - 1]) continue;
        ASSERT_OK(arbor_player_apply(p, times[i], ARBOR_WRAP_CLAMP));
        for (size_t c = 0; c < nref; c++) {
            double want[4];
            char what[96];
            ref_sample(&ref[c], times[i], want);
            snprintf(what, sizeof what, "animation %u, node %d, path %d, time %g", a, ref[c].node, ref[c].path, times[i]);
            check_part(l->s, arbor_gltf_node(l->doc, (uint32_t)ref[c].node), ref[c].path, want, what);
            checked++;
        }
    }
    /* looping: a time one duration on is the same pose (within rounding of the wrap) */
    double d = arbor_clip_duration(clip);
    for (size_t i = 0; i < n && d > 0; i += n / 16 + 1) {
        double t = times[i];
        if (t < 0 || t >= d) continue;
        ASSERT_OK(arbor_player_apply(p, t + 3 * d, ARBOR_WRAP_LOOP));
        for (size_t c = 0; c < nref; c++) {
            double want[4];
            ref_sample(&ref[c], fmod(t + 3 * d, d), want);
            check_part(l->s, arbor_gltf_node(l->doc, (uint32_t)ref[c].node), ref[c].path, want, "looped");
        }
    }
    free(times);
    arbor_player_destroy(p);
    arbor_clip_destroy(clip);
    ref_free(ref, nref);
    return checked;
}

static void test_samples_sampled_by_hand(void **state) {
    (void)state;
    NEED_SAMPLES();
    char *paths[MAX_SAMPLES], *names[MAX_SAMPLES];
    int count = sample_files(paths, names);
    int files = 0;
    size_t checked = 0;
    for (int f = 0; f < count; f++) {
        gfile g = gfile_open(paths[f]);
        size_t animations = json_array_size(json_object_get(g.root, "animations"));
        if (animations) {
            loaded l = load_ok(paths[f]);
            bool pointer = strstr(paths[f], "animation_pointer") != NULL;
            for (uint32_t a = 0; a < animations; a++) checked += check_animation(&l, &g, a, pointer);
            unload(&l);
            files++;
        }
        gfile_close(&g);
    }
    free_samples(paths, names, count);
    print_message("%d files with animations, %zu sampled values checked\n", files, checked);
    assert_true(files >= 10);
    assert_true(checked > 100000);
}

/* BoxAnimated, worked from its numbers: the rotation keys of node 2 at 1.25 and 2.5 s are
   identity and 90 degrees about x; halfway it is 45 degrees. */
static void test_box_animated_by_numbers(void **state) {
    (void)state;
    NEED_SAMPLES();
    loaded l = load_ok(SAMPLES_DIR "/BoxAnimated/BoxAnimated.glb");
    gfile g = gfile_open(SAMPLES_DIR "/BoxAnimated/BoxAnimated.glb");
    size_t nref;
    ref_channel *ref = ref_channels(&g, 0, false, &nref);
    arbor_clip *clip;
    arbor_player *p = file_player(&l, 0, false, &clip);
    const ref_channel *rot = ref[0].path == ARBOR_ANIM_ROTATION ? &ref[0] : &ref[1];
    arbor_node box = arbor_gltf_node(l.doc, (uint32_t)rot->node);
    assert_int_equal(rot->keys, 2);
    assert_true(fabs(rot->times[0] - 1.25) < 1e-6 && fabs(rot->times[1] - 2.5) < 1e-6);
    double first[4], last[4], half[4];
    ref_key(rot, 0, first);
    ref_key(rot, 1, last);
    ref_slerp(first, last, 0.5, half);
    double angle = 2 * acos(fabs(last[3] * first[3] + last[0] * first[0] + last[1] * first[1] + last[2] * first[2]));
    ASSERT_OK(arbor_player_apply(p, 0, ARBOR_WRAP_CLAMP)); /* before the first key: the first */
    check_part(l.s, box, ARBOR_ANIM_ROTATION, first, "t = 0");
    ASSERT_OK(arbor_player_apply(p, 1.875, ARBOR_WRAP_CLAMP));
    check_part(l.s, box, ARBOR_ANIM_ROTATION, half, "t = 1.875");
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(l.s, box, &trs));
    /* half of the keys' angle, from the first key */
    double d = fabs(trs.rotation[0] * first[0] + trs.rotation[1] * first[1] + trs.rotation[2] * first[2] +
                    trs.rotation[3] * first[3]);
    NEAR(2 * acos(d > 1 ? 1 : d), angle / 2, "half the angle");
    ASSERT_OK(arbor_player_apply(p, 100, ARBOR_WRAP_CLAMP));
    check_part(l.s, box, ARBOR_ANIM_ROTATION, last, "t = 100");
    arbor_player_destroy(p);
    arbor_clip_destroy(clip);
    ref_free(ref, nref);
    gfile_close(&g);
    unload(&l);
}

/* ---- small files made here ---------------------------------------------------------------------- */

/* A glTF under construction: floats for one buffer (a data: URI), and accessors over them. */
typedef struct gbuild {
    float data[1024];
    size_t n;
    char accessors[8192];
    int count;
} gbuild;

/* Appends values as an accessor (with min and max when scalar: animation inputs need them). */
static int add_accessor(gbuild *b, const float *v, size_t elements, int components, const char *type) {
    size_t offset = b->n * 4;
    memcpy(b->data + b->n, v, elements * (size_t)components * sizeof *v);
    b->n += elements * (size_t)components;
    char bounds[160] = "";
    float lo = v[0], hi = v[0];
    for (size_t i = 0; i < elements * (size_t)components; i++) lo = v[i] < lo ? v[i] : lo, hi = v[i] > hi ? v[i] : hi;
    if (components == 1) snprintf(bounds, sizeof bounds, ",\"min\":[%.9g],\"max\":[%.9g]", lo, hi);
    if (!strcmp(type, "VEC3") && elements == 1)
        snprintf(bounds, sizeof bounds, ",\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g]", v[0], v[1], v[2], v[0],
                 v[1], v[2]);
    size_t used = strlen(b->accessors);
    snprintf(b->accessors + used, sizeof b->accessors - used,
             "%s{\"bufferView\":0,\"byteOffset\":%zu,\"componentType\":5126,\"count\":%zu,\"type\":\"%s\"%s}",
             b->count ? "," : "", offset, elements, type, bounds);
    return b->count++;
}

/* The whole file: nodes, meshes and animations given as JSON text (meshes may be ""). */
static char *gbuild_finish(const gbuild *b, const char *nodes, const char *meshes, const char *animations,
                           const char *extensions) {
    char *b64 = malloc((b->n * 4 + 2) / 3 * 4 + 1);
    base64(b64, b->data, b->n * 4);
    size_t size = strlen(b64) + strlen(b->accessors) + strlen(nodes) + strlen(meshes) + strlen(animations) + 1024;
    char *json = malloc(size);
    snprintf(json, size,
             "{\"asset\":{\"version\":\"2.0\"},%s\"buffers\":[{\"byteLength\":%zu,"
             "\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu}],\"accessors\":[%s],\"nodes\":[%s],%s%s%s"
             "\"animations\":[%s]}",
             extensions, b->n * 4, b64, b->n * 4, b->accessors, nodes, meshes[0] ? "\"meshes\":[" : "", meshes,
             meshes[0] ? "]," : "", animations);
    free(b64);
    return json;
}

static arbor_gltf *load_text(arbor_scene *s, const char *json, bool lenient) {
    arbor_gltf *doc = NULL;
    arbor_gltf_options o = ARBOR_GLTF_OPTIONS_DEFAULT;
    o.lenient = lenient;
    arbor_gltf_load_memory(s, json, strlen(json), NULL, &o, &doc);
    return doc;
}

/* The file of the interpolation tests: node 0 STEP translation, node 1 LINEAR scale, node 2
   CUBICSPLINE translation, node 3 CUBICSPLINE rotation, node 4 LINEAR morph weights (2 targets). */
static const float step_t[] = { 0, 1, 3 };
static const float step_v[] = { 0, 0, 0, 1, 2, 3, 4, 5, 6 };
static const float scale_v[] = { 1, 1, 1, 2, 2, 2, 4, 1, 0.5f };
static const float cubic_t[] = { 0, 2 };
/* per key: in-tangent, value, out-tangent */
static const float cubic_v[] = { 9, 9, 9, 0, 0, 0, 1, 0, 0, /**/ 0, 0, 3, 2, 0, 0, 9, 9, 9 };
#define S45 0.70710678f
static const float cubic_r[] = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, /**/ 0, 0, 0, 0, 0, 0, S45, S45, 0, 0, 0, 0 };
static const float weights_v[] = { 0, 1, 1, 0, 0.5f, 0.5f };

static char *modes_file(void) {
    gbuild b = { 0 };
    int t3 = add_accessor(&b, step_t, 3, 1, "SCALAR"), t2 = add_accessor(&b, cubic_t, 2, 1, "SCALAR");
    int step = add_accessor(&b, step_v, 3, 3, "VEC3"), scale = add_accessor(&b, scale_v, 3, 3, "VEC3");
    int cubic = add_accessor(&b, cubic_v, 6, 3, "VEC3"), rot = add_accessor(&b, cubic_r, 6, 4, "VEC4");
    int weights = add_accessor(&b, weights_v, 6, 1, "SCALAR");
    const float corner[3] = { 0, 0, 0 };
    int position = add_accessor(&b, corner, 1, 3, "VEC3");
    char meshes[256], animations[2048];
    snprintf(meshes, sizeof meshes,
             "{\"primitives\":[{\"attributes\":{\"POSITION\":%d},\"targets\":[{\"POSITION\":%d},{\"POSITION\":%d}]}]}",
             position, position, position);
    snprintf(animations, sizeof animations,
             "{\"name\":\"modes\",\"samplers\":["
             "{\"input\":%d,\"output\":%d,\"interpolation\":\"STEP\"},{\"input\":%d,\"output\":%d},"
             "{\"input\":%d,\"output\":%d,\"interpolation\":\"CUBICSPLINE\"},"
             "{\"input\":%d,\"output\":%d,\"interpolation\":\"CUBICSPLINE\"},{\"input\":%d,\"output\":%d}],"
             "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
             "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"scale\"}},"
             "{\"sampler\":2,\"target\":{\"node\":2,\"path\":\"translation\"}},"
             "{\"sampler\":3,\"target\":{\"node\":3,\"path\":\"rotation\"}},"
             "{\"sampler\":4,\"target\":{\"node\":4,\"path\":\"weights\"}}]}",
             t3, step, t3, scale, t2, cubic, t2, rot, t3, weights);
    return gbuild_finish(&b,
                         "{\"name\":\"step\"},{\"name\":\"linear\"},{\"name\":\"cubic\"},{\"name\":\"cubicrot\"},"
                         "{\"name\":\"morph\",\"mesh\":0}",
                         meshes, animations, "");
}

/* The same clip made from arrays. */
static arbor_clip *modes_clip(void) {
    const arbor_channel_desc channels[] = {
        { .target = 0, .path = ARBOR_ANIM_TRANSLATION, .interpolation = ARBOR_INTERPOLATION_STEP, .key_count = 3,
          .times = step_t, .values = step_v },
        { .target = 1, .path = ARBOR_ANIM_SCALE, .key_count = 3, .times = step_t, .values = scale_v },
        { .target = 2, .path = ARBOR_ANIM_TRANSLATION, .interpolation = ARBOR_INTERPOLATION_CUBICSPLINE,
          .key_count = 2, .times = cubic_t, .values = cubic_v },
        { .target = 3, .path = ARBOR_ANIM_ROTATION, .interpolation = ARBOR_INTERPOLATION_CUBICSPLINE, .key_count = 2,
          .times = cubic_t, .values = cubic_r },
        { .target = 4, .path = ARBOR_ANIM_WEIGHTS, .key_count = 3, .times = step_t, .values = weights_v, .width = 2 },
    };
    const char *const names[] = { "step", "linear", "cubic", "cubicrot", "morph" };
    arbor_clip *clip;
    ASSERT_OK(arbor_clip_create(&(arbor_clip_desc){ .name = "modes", .channels = channels, .channel_count = 5,
                                                    .target_names = names },
                                &clip));
    return clip;
}

static void expect_vec3(arbor_scene *s, arbor_node n, int path, double x, double y, double z, const char *what) {
    const double want[3] = { x, y, z };
    check_part(s, n, path, want, what);
}

/* Every mode at hand-worked times, on a player of clip over rig. */
static void check_modes(arbor_scene *s, const arbor_node *rig, const arbor_clip *clip) {
    arbor_player *p;
    ASSERT_OK(arbor_player_create(clip, s, rig, 5, &p));
    assert_int_equal(arbor_clip_duration(clip), 3);
    uint32_t count;
    const arbor_real *w = arbor_player_weights(p, 4, &count);
    assert_int_equal(count, 2); /* before any sample: the first keyframe's */
    NEAR(w[0], 0, "weights");
    NEAR(w[1], 1, "weights");
    assert_null(arbor_player_weights(p, 3, &count));
    assert_int_equal(count, 0);

    ASSERT_OK(arbor_player_apply(p, 0.5, ARBOR_WRAP_CLAMP));
    expect_vec3(s, rig[0], ARBOR_ANIM_TRANSLATION, 0, 0, 0, "STEP holds key 0");
    expect_vec3(s, rig[1], ARBOR_ANIM_SCALE, 1.5, 1.5, 1.5, "LINEAR halfway");
    /* Hermite at u = 1/4 of [0, 2]: h00 = 27/32, h10 = 9/64 (times dt = 2), h01 = 5/32,
       h11 = -3/64 (times 2): x = 9/32 * 1 + 5/32 * 2, z = -3/32 * 3 */
    expect_vec3(s, rig[2], ARBOR_ANIM_TRANSLATION, 9.0 / 32 + 10.0 / 32, 0, -9.0 / 32, "CUBICSPLINE u = 1/4");
    double q[4] = { 0, 0, 5.0 / 32 * S45, 27.0 / 32 + 5.0 / 32 * S45 };
    normalize(q);
    check_part(s, rig[3], ARBOR_ANIM_ROTATION, q, "CUBICSPLINE rotation u = 1/4, normalised");
    w = arbor_player_weights(p, 4, &count);
    NEAR(w[0], 0.5, "weights");
    NEAR(w[1], 0.5, "weights");

    ASSERT_OK(arbor_player_apply(p, 1, ARBOR_WRAP_CLAMP));
    expect_vec3(s, rig[0], ARBOR_ANIM_TRANSLATION, 1, 2, 3, "STEP at key 1");
    /* u = 1/2: h00 = h01 = 1/2, h10 = 1/8, h11 = -1/8; tangents times dt = 2 */
    expect_vec3(s, rig[2], ARBOR_ANIM_TRANSLATION, 0.25 + 1, 0, -0.75, "CUBICSPLINE halfway");
    const double q45[4] = { 0, 0, sin(PI / 8), cos(PI / 8) };
    check_part(s, rig[3], ARBOR_ANIM_ROTATION, q45, "CUBICSPLINE rotation halfway: 45 degrees");

    ASSERT_OK(arbor_player_apply(p, 2, ARBOR_WRAP_CLAMP));
    expect_vec3(s, rig[0], ARBOR_ANIM_TRANSLATION, 1, 2, 3, "STEP holds key 1");
    expect_vec3(s, rig[1], ARBOR_ANIM_SCALE, 3, 1.5, 1.25, "LINEAR between keys 1 and 2");
    expect_vec3(s, rig[2], ARBOR_ANIM_TRANSLATION, 2, 0, 0, "CUBICSPLINE at its last key");
    w = arbor_player_weights(p, 4, &count);
    NEAR(w[0], 0.75, "weights");
    NEAR(w[1], 0.25, "weights");

    ASSERT_OK(arbor_player_apply(p, 7, ARBOR_WRAP_CLAMP));
    expect_vec3(s, rig[0], ARBOR_ANIM_TRANSLATION, 4, 5, 6, "STEP after the end");
    expect_vec3(s, rig[1], ARBOR_ANIM_SCALE, 4, 1, 0.5, "LINEAR after the end");

    /* looping across the end: 3.5 is 0.5, -0.75 is 2.25, 3 is 0 */
    ASSERT_OK(arbor_player_apply(p, 3.5, ARBOR_WRAP_LOOP));
    expect_vec3(s, rig[1], ARBOR_ANIM_SCALE, 1.5, 1.5, 1.5, "looped 3.5");
    ASSERT_OK(arbor_player_apply(p, -0.75, ARBOR_WRAP_LOOP));
    expect_vec3(s, rig[1], ARBOR_ANIM_SCALE, 3.25, 1.375, 1.0625, "looped -0.75");
    ASSERT_OK(arbor_player_apply(p, 3, ARBOR_WRAP_LOOP));
    expect_vec3(s, rig[1], ARBOR_ANIM_SCALE, 1, 1, 1, "looped 3");
    ASSERT_OK(arbor_player_apply(p, 3, ARBOR_WRAP_CLAMP));
    expect_vec3(s, rig[1], ARBOR_ANIM_SCALE, 4, 1, 0.5, "clamped 3");
    arbor_player_destroy(p);
}

static void test_interpolation_modes(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    char *json = modes_file();
    arbor_gltf *doc = load_text(s, json, false);
    if (!doc) fail_msg("%s", arbor_last_error());
    assert_int_equal(arbor_gltf_animation_find(doc, "modes"), 0);
    assert_int_equal(arbor_gltf_animation_find(doc, "nope"), -1);
    assert_string_equal(arbor_gltf_animation_name(doc, 0), "modes");
    arbor_clip *clip;
    ASSERT_OK(arbor_gltf_clip(doc, 0, NULL, &clip));
    assert_string_equal(arbor_clip_name(clip), "modes");
    assert_int_equal(arbor_clip_rig_size(clip), 5);
    assert_int_equal(arbor_clip_channel_count(clip), 5);
    assert_string_equal(arbor_clip_target_name(clip, 3), "cubicrot");
    arbor_node rig[5];
    for (uint32_t i = 0; i < 5; i++) rig[i] = arbor_gltf_node(doc, i);
    check_modes(s, rig, clip);
    /* the clip made from arrays, on nodes of another scene found by name */
    arbor_scene *other = NULL;
    assert_int_equal(arbor_scene_create(NULL, &other), ARBOR_OK);
    arbor_node made[5];
    const char *names[] = { "step", "linear", "cubic", "cubicrot", "morph" };
    for (int i = 0; i < 5; i++) ASSERT_OK(arbor_node_create(other, &(arbor_node_desc){ .name = names[4 - i] }, &made[i]));
    arbor_clip *from_arrays = modes_clip();
    arbor_node bound[5];
    uint32_t rig_size = 0, found = 0;
    ASSERT_OK(arbor_clip_rig_by_names(from_arrays, other, ARBOR_NONE, bound, 5, &rig_size, &found));
    assert_int_equal(rig_size, 5);
    assert_int_equal(found, 5);
    for (int i = 0; i < 5; i++) ASSERT_NODE_EQ(bound[i], made[4 - i]);
    check_modes(other, bound, from_arrays);
    /* channels read back as made, rotations normalised */
    arbor_channel_desc ch;
    ASSERT_OK(arbor_clip_channel(from_arrays, 3, &ch));
    assert_int_equal(ch.path, ARBOR_ANIM_ROTATION);
    assert_int_equal(ch.interpolation, ARBOR_INTERPOLATION_CUBICSPLINE);
    assert_int_equal(ch.key_count, 2);
    NEAR(ch.values[4 + 3], 1, "key 0's value");
    NEAR(ch.values[12 + 4 + 2], S45, "key 1's value");
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_clip_channel", arbor_clip_channel(from_arrays, 5, &ch));
    arbor_clip_destroy(from_arrays);
    arbor_clip_destroy(clip);
    arbor_gltf_destroy(doc);
    free(json);
    arbor_scene_destroy(other);
    arbor_scene_destroy(s);
}

/* LINEAR rotations: slerp (not a normalised linear blend), along the shorter arc, from keyframes
   normalised when the clip is made. */
static void test_slerp_shorter_arc(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node n;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ 0 }, &n));
    const float times[] = { 0, 1, 2 };
    /* identity (given at length 2), 170 degrees about y, then 200 degrees about y written as the
       negated quaternion (the same rotation, on the far side): from 170 to 200 the shorter arc
       turns 30 degrees, not 330 */
    const float keys[] = { 0, 0, 0, 2, 0, (float)sin(85 * PI / 180), 0, (float)cos(85 * PI / 180),
                           0, (float)-sin(100 * PI / 180), 0, (float)-cos(100 * PI / 180) };
    arbor_channel_desc ch = { .path = ARBOR_ANIM_ROTATION, .key_count = 3, .times = times, .values = keys };
    arbor_clip *clip;
    ASSERT_OK(arbor_clip_create(&(arbor_clip_desc){ .channels = &ch, .channel_count = 1 }, &clip));
    arbor_player *p;
    ASSERT_OK(arbor_player_create(clip, s, &n, 1, &p));
    struct { double t, degrees; } cases[] = { { 0, 0 }, { 0.5, 85 }, { 0.25, 42.5 }, { 0.9, 153 }, { 1, 170 },
                                              { 1.5, 185 }, { 2, 200 } };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ASSERT_OK(arbor_player_apply(p, cases[i].t, ARBOR_WRAP_CLAMP));
        double half = cases[i].degrees * PI / 360;
        const double want[4] = { 0, sin(half), 0, cos(half) };
        check_part(s, n, ARBOR_ANIM_ROTATION, want, "slerp about y");
        arbor_trs trs;
        ASSERT_OK(arbor_node_trs(s, n, &trs));
        NEAR(test_quat_len(trs.rotation), 1, "unit");
    }
    /* arbor_quat_slerp agrees, and holds at tiny and wide arcs */
    const arbor_real a[4] = { 0, 0, 0, 1 }, tiny[4] = { 0, (arbor_real)sin(1e-4), 0, (arbor_real)cos(1e-4) };
    arbor_real out[4];
    arbor_quat_slerp(out, a, tiny, (arbor_real)0.3);
    NEAR(out[1], sin(0.3e-4), "tiny arc");
    const arbor_real wide[4] = { 0, (arbor_real)sin(89.9 * PI / 180), 0, (arbor_real)cos(89.9 * PI / 180) };
    arbor_quat_slerp(out, a, wide, (arbor_real)0.7);
    NEAR(out[1], sin(0.7 * 89.9 * PI / 180), "wide arc");
    NEAR(out[3], cos(0.7 * 89.9 * PI / 180), "wide arc");
    arbor_player_destroy(p);
    arbor_clip_destroy(clip);
    arbor_scene_destroy(s);
}

/* Four rotation channels are interpolated at once where the build has SIMD: the same bits as
   one at a time, whatever the arc (tiny, wide, on the halving thresholds) and fraction. */
static void test_slerp_four_at_once(void **state) {
    (void)state;
#if ARBOR__SIMD
    test_rng g = test_rng_make(11);
    const arbor_real edges[] = { 0, 1, (arbor_real)0.9, (arbor_real)0.5, (arbor_real)0.99999, (arbor_real)1e-7 };
    for (int n = 0; n < 20000; n++) {
        arbor__v4 u, d, wa, wb;
        for (int i = 0; i < 4; i++) {
            u[i] = n % 7 == 0 ? (arbor_real)0.5 : (arbor_real)test_rng_uniform(&g);
            d[i] = n % 5 == 0 ? edges[(n / 5 + i) % 6] : (arbor_real)(1 - pow(test_rng_uniform(&g), 1 + n % 4));
        }
        arbor__slerp_weights4(u, d, &wa, &wb);
        for (int i = 0; i < 4; i++) {
            arbor_real a, b, lane_a = wa[i], lane_b = wb[i];
            arbor__slerp_weights(u[i], d[i], &a, &b);
            assert_memory_equal(&a, &lane_a, sizeof a);
            assert_memory_equal(&b, &lane_b, sizeof b);
            double theta = acos((double)d[i]);
            if (theta > 1e-3) NEAR(b, sin(u[i] * theta) / sin(theta), "the weight of b");
        }
    }
#else
    TEST_SKIP("this build has no SIMD lanes to compare");
#endif
}

/* A player samples its LINEAR rotation channels eight or four at a time (the rest one by one),
   in runs of channels that share keyframe times: for every count of channels from 1 to 21, with
   a STEP channel among them, channels 17 and 19 on keyframe times of their own (so runs break,
   and those sit before their first keyframe or after their last while the others interpolate)
   and keyframes that make tiny, wide and sign-flipped arcs, each channel gives the
   bits a clip of that channel alone gives, and the slerp a double-precision formula gives. */
static void test_slerp_lanes_match_one_channel(void **state) {
    (void)state;
    enum { MAX = 21, KEYS = 4 };
    test_rng g = test_rng_make(5);
    static float times[KEYS] = { 0, 0.25f, 0.5f, 1 }, own[KEYS] = { 0.125f, 0.375f, 0.625f, 0.875f }, values[MAX][KEYS][4];
    for (int c = 0; c < MAX; c++)
        for (int k = 0; k < KEYS; k++) {
            double q[4];
            test_rng_unit_quat(&g, q);
            for (int e = 0; e < 4; e++) values[c][k][e] = (float)q[e];
            if (k && c % 3 == 0) { /* near the keyframe before: a tiny arc, its sign flipped for some */
                for (int e = 0; e < 4; e++) values[c][k][e] = values[c][k - 1][e] * (c % 2 ? -1.0f : 1.0f);
                values[c][k][c % 4] += 1e-4f;
            }
        }
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_node rig[MAX];
    for (int c = 0; c < MAX; c++) ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ 0 }, &rig[c]));
    for (uint32_t count = 1; count <= MAX; count++) {
        arbor_channel_desc ch[MAX];
        for (uint32_t c = 0; c < count; c++)
            ch[c] = (arbor_channel_desc){ .target = c, .path = ARBOR_ANIM_ROTATION, .key_count = KEYS,
                                          .times = c == 17 || c == 19 ? own : times,
                                          .values = &values[c][0][0],
                                          .interpolation = c == 9 ? ARBOR_INTERPOLATION_STEP : ARBOR_INTERPOLATION_LINEAR };
        arbor_clip *clip;
        ASSERT_OK(arbor_clip_create(&(arbor_clip_desc){ .channels = ch, .channel_count = count }, &clip));
        arbor_player *p;
        ASSERT_OK(arbor_player_create(clip, s, rig, count, &p));
        arbor_clip *alone[MAX];
        arbor_player *q[MAX];
        for (uint32_t c = 0; c < count; c++) {
            arbor_channel_desc one = ch[c];
            one.target = 0;
            ASSERT_OK(arbor_clip_create(&(arbor_clip_desc){ .channels = &one, .channel_count = 1 }, &alone[c]));
            ASSERT_OK(arbor_player_create(alone[c], s, &rig[c], 1, &q[c]));
        }
        for (double t = 0; t <= 1.05; t += 0.0625 + 0.01 * count) {
            arbor_trs all[MAX], each;
            ASSERT_OK(arbor_player_sample(p, t, ARBOR_WRAP_CLAMP, all, count));
            for (uint32_t c = 0; c < count; c++) {
                ASSERT_OK(arbor_player_sample(q[c], t, ARBOR_WRAP_CLAMP, &each, 1));
                assert_memory_equal(all[c].rotation, each.rotation, sizeof each.rotation);
                if (c == 9) continue;
                /* slerp in double: the keyframes around t, the shorter arc */
                const float *tk = ch[c].times;
                int k = 0;
                while (k < KEYS - 1 && t >= tk[k + 1]) k++;
                double a[4], b[4], d = 0, want[4];
                for (int e = 0; e < 4; e++) a[e] = values[c][k][e], b[e] = values[c][k < KEYS - 1 ? k + 1 : k][e];
                double la = 0, lb = 0;
                for (int e = 0; e < 4; e++) la += a[e] * a[e], lb += b[e] * b[e];
                for (int e = 0; e < 4; e++) a[e] /= sqrt(la), b[e] /= sqrt(lb), d += a[e] * b[e];
                double sign = d < 0 ? -1 : 1, theta = acos(fmin(1, fabs(d)));
                double u = k < KEYS - 1 && t > tk[0] ? (t - tk[k]) / (tk[k + 1] - tk[k]) : 0;
                double wa = theta < 1e-6 ? 1 - u : sin((1 - u) * theta) / sin(theta);
                double wb = theta < 1e-6 ? u : sin(u * theta) / sin(theta);
                for (int e = 0; e < 4; e++) want[e] = wa * a[e] + wb * sign * b[e];
                for (int e = 0; e < 4; e++) NEAR(all[c].rotation[e], want[e], "slerp in double");
            }
        }
        for (uint32_t c = 0; c < count; c++) {
            arbor_player_destroy(q[c]);
            arbor_clip_destroy(alone[c]);
        }
        arbor_player_destroy(p);
        arbor_clip_destroy(clip);
    }
    arbor_scene_destroy(s);
}

/* ---- cursors ------------------------------------------------------------------------------------ */

/* A node's TRS, bits and all. */
static arbor_trs trs_of(arbor_scene *s, arbor_node n) {
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, n, &trs));
    return trs;
}

/* One player fed times forward, backward, in jumps and across the loop gives the same bits as a
   fresh player at each time (the cursor changes where the search starts, never the answer). */
static void test_cursor_any_order(void **state) {
    (void)state;
    NEED_SAMPLES();
    loaded l = load_ok(SAMPLES_DIR "/Fox/Fox.glb");
    arbor_clip *clip;
    arbor_player *p = file_player(&l, 0, false, &clip);
    uint32_t n = arbor_gltf_node_count(l.doc);
    arbor_node *rig = malloc(n * sizeof *rig);
    for (uint32_t i = 0; i < n; i++) rig[i] = arbor_gltf_node(l.doc, i);
    test_rng g = test_rng_make(7);
    double d = arbor_clip_duration(clip), t = 0;
    arbor_trs *seen = malloc(n * sizeof *seen);
    for (int step = 0; step < 600; step++) {
        t = step < 200 ? step / 60.0 : step < 400 ? t - 1 / 90.0 : test_rng_sym(&g) * 2 * d;
        arbor_wrap wrap = step % 3 ? ARBOR_WRAP_LOOP : ARBOR_WRAP_CLAMP;
        ASSERT_OK(arbor_player_apply(p, t, wrap));
        for (uint32_t i = 0; i < n; i++) seen[i] = trs_of(l.s, rig[i]);
        arbor_player *fresh;
        ASSERT_OK(arbor_player_create(clip, l.s, rig, n, &fresh));
        ASSERT_OK(arbor_player_apply(fresh, t, wrap));
        for (uint32_t i = 0; i < n; i++) {
            arbor_trs again = trs_of(l.s, rig[i]);
            assert_memory_equal(&again, &seen[i], sizeof again);
        }
        arbor_player_destroy(fresh);
    }
    /* a rig with a hole samples the other channels alike (they batch differently) */
    arbor_node *holed = malloc(n * sizeof *holed);
    memcpy(holed, rig, n * sizeof *holed);
    holed[6] = ARBOR_NONE; /* a joint with a rotation channel */
    arbor_player *q;
    ASSERT_OK(arbor_player_create(clip, l.s, holed, n, &q));
    for (int step = 0; step < 50; step++) {
        ASSERT_OK(arbor_player_apply(p, step / 7.0, ARBOR_WRAP_LOOP));
        for (uint32_t i = 0; i < n; i++) seen[i] = trs_of(l.s, rig[i]);
        ASSERT_OK(arbor_player_apply(q, step / 7.0, ARBOR_WRAP_LOOP));
        for (uint32_t i = 0; i < n; i++) {
            arbor_trs again = trs_of(l.s, rig[i]);
            assert_memory_equal(&again, &seen[i], sizeof again);
        }
    }
    arbor_player_destroy(q);
    free(holed);
    free(seen);
    free(rig);
    arbor_player_destroy(p);
    arbor_clip_destroy(clip);
    unload(&l);
}

/* ---- skins -------------------------------------------------------------------------------------- */

static arbor_skins *file_skins(const loaded *l, float **out) {
    arbor_skins *k;
    ASSERT_OK(arbor_skins_create(l->s, &k));
    uint32_t added;
    ASSERT_OK(arbor_gltf_add_skins(l->doc, k, &added));
    assert_int_equal(added, arbor_skins_count(k));
    *out = malloc(((size_t)arbor_skins_joint_total(k) + 1) * 16 * sizeof **out);
    arbor_scene_update(l->s);
    ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT4, *out, arbor_skins_joint_total(k), NULL));
    return k;
}

/* J = W_mesh^-1 W_joint IBM, by hand in double from arbor's world matrices and the file's IBM. */
static void check_joints_by_hand(const loaded *l, const gfile *g, arbor_skins *k, const float *joints) {
    json_t *nodes = json_object_get(g->root, "nodes"), *skins = json_object_get(g->root, "skins");
    uint32_t skin = 0;
    for (size_t i = 0; i < json_array_size(nodes); i++) {
        json_t *node = json_array_get(nodes, i);
        if (!json_object_get(node, "skin") || !json_object_get(node, "mesh")) continue;
        json_t *sk = json_array_get(skins, (size_t)json_int(node, "skin", 0));
        json_t *list = json_object_get(sk, "joints");
        size_t count = 0;
        int components = 16;
        float *ibm = json_object_get(sk, "inverseBindMatrices") ? gfile_floats(g, json_int(sk, "inverseBindMatrices", 0), &count, &components) : NULL;
        arbor_real mesh[16], mesh_inverse[16];
        ASSERT_OK(arbor_node_world_matrix(l->s, arbor_gltf_node(l->doc, (uint32_t)i), mesh));
        assert_true(arbor_mat4_invert_affine(mesh_inverse, mesh));
        double inverse[16];
        test_reals_to_double(inverse, mesh_inverse, 16);
        for (size_t j = 0; j < json_array_size(list); j++) {
            arbor_real w[16];
            ASSERT_OK(arbor_node_world_matrix(l->s, arbor_gltf_node(l->doc, (uint32_t)json_integer_value(json_array_get(list, j))), w));
            double wj[16], b[16], tmp[16], want[16];
            test_reals_to_double(wj, w, 16);
            for (int e = 0; e < 16; e++) b[e] = ibm ? ibm[j * 16 + (size_t)e] : e % 5 == 0;
            test_ref_mul(tmp, wj, b);
            test_ref_mul(want, inverse, tmp);
            const float *got = joints + ((size_t)arbor_skins_first_joint(k, skin) + j) * 16;
            for (int e = 0; e < 16; e++) /* products down deep chains: float's rounding adds up */
                if (fabs(got[e] - want[e]) > 10 * TOL * (fabs(want[e]) > 1 ? fabs(want[e]) : 1))
                    fail_msg("joint %zu of skin %u, element %d: %.9g, expected %.9g", j, skin, e, got[e], want[e]);
        }
        free(ibm);
        skin++;
    }
    assert_int_equal(skin, arbor_skins_count(k));
}

static void test_skins_bind_pose(void **state) {
    (void)state;
    NEED_SAMPLES();
    /* identity: the files whose inverse bind matrices are their pose's */
    const struct { const char *file; bool identity; } files[] = {
        { "Fox/Fox.glb", true }, { "RiggedFigure/RiggedFigure.glb", true }, { "raylib_robot/robot.glb", true },
        { "SimpleSkin/SimpleSkin.gltf", false }, { "BlenderIO_03_skinned_cylinder/03_skinned_cylinder.gltf", false },
        { "BlenderIO_24_animation_pointer/24_animation_pointer.gltf", false },
    };
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", SAMPLES_DIR, files[f].file);
        loaded l = load_ok(path);
        gfile g = gfile_open(path);
        float *joints;
        arbor_skins *k = file_skins(&l, &joints);
        uint32_t total = arbor_skins_joint_total(k);
        assert_true(total >= 2);
        for (uint32_t j = 0; files[f].identity && j < total; j++)
            for (int e = 0; e < 16; e++)
                if (fabs(joints[j * 16 + e] - (e % 5 == 0)) > 2e-5)
                    fail_msg("%s: joint matrix %u element %d is %g, not the identity's", files[f].file, j, e, joints[j * 16 + e]);
        check_joints_by_hand(&l, &g, k, joints);
        /* the 3x4 layout holds the same numbers, row by row */
        float *rows = malloc(((size_t)total + 1) * 12 * sizeof *rows);
        ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT3X4, rows, total, NULL));
        for (uint32_t j = 0; j < total; j++)
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 4; c++) assert_true(rows[j * 12 + r * 4 + c] == joints[j * 16 + c * 4 + r]);
        free(rows);
        /* and after a pose: by hand again */
        arbor_clip *clip;
        arbor_player *p = file_player(&l, 0, files[f].file[0] == 'B', &clip);
        ASSERT_OK(arbor_player_apply(p, 0.37, ARBOR_WRAP_LOOP));
        arbor_scene_update(l.s);
        ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT4, joints, total, NULL));
        check_joints_by_hand(&l, &g, k, joints);
        arbor_player_destroy(p);
        arbor_clip_destroy(clip);
        gfile_close(&g);
        arbor_skins_destroy(k);
        free(joints);
        unload(&l);
    }
}

/* A skin set made by hand: numbering, offsets, the mesh's own transform taken out, refusals. */
static void test_skins_by_hand(void **state) {
    (void)state;
    test_counting_allocator count = { 0 };
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .allocator = test_counting_allocator_hooks(&count, true) }, &s), ARBOR_OK);
    arbor_node mesh, a, b, other;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .translation = { 1, 2, 3 } }, &mesh));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .translation = { 0, 1, 0 } }, &a));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = a, .rotation = { 0, 0, (arbor_real)S45, (arbor_real)S45 } }, &b));
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ 0 }, &other));
    arbor_skins *k;
    ASSERT_OK(arbor_skins_create(s, &k));
    const arbor_node joints[] = { a, b };
    float ibm[32];
    for (int e = 0; e < 32; e++) ibm[e] = e % 16 % 5 == 0 ? 1.0f : 0.0f;
    ibm[16 + 12] = 5; /* the second joint's IBM moves x by 5 */
    uint32_t index;
    ASSERT_OK(arbor_skins_add(k, &(arbor_skin_desc){ mesh, joints, 2, ibm }, &index));
    assert_int_equal(index, 0);
    ASSERT_OK(arbor_skins_add(k, &(arbor_skin_desc){ other, &b, 1, NULL }, &index));
    assert_int_equal(index, 1);
    assert_int_equal(arbor_skins_count(k), 2);
    assert_int_equal(arbor_skins_joint_total(k), 3);
    assert_int_equal(arbor_skins_first_joint(k, 1), 2);
    /* each skin reads back as added: mesh, joints, IBMs (identities for NULL); cap bounds the writes */
    arbor_node got_mesh, got_joints[3] = { ARBOR_NONE, ARBOR_NONE, ARBOR_NONE };
    float got_ibm[3 * 16], identity[16];
    for (int e = 0; e < 16; e++) identity[e] = e % 5 == 0 ? 1.0f : 0.0f;
    uint32_t got_count;
    ASSERT_OK(arbor_skins_skin(k, 0, &got_mesh, got_joints, got_ibm, 3, &got_count));
    assert_int_equal(got_count, 2);
    assert_true(got_mesh.id == mesh.id && got_joints[0].id == a.id && got_joints[1].id == b.id);
    assert_true(arbor_node_is_none(got_joints[2]));
    assert_memory_equal(got_ibm, ibm, sizeof ibm);
    ASSERT_OK(arbor_skins_skin(k, 1, &got_mesh, got_joints, got_ibm, 1, &got_count));
    assert_true(got_count == 1 && got_mesh.id == other.id && got_joints[0].id == b.id);
    assert_memory_equal(got_ibm, identity, sizeof identity);
    got_joints[1] = ARBOR_NONE;
    ASSERT_OK(arbor_skins_skin(k, 0, NULL, got_joints, NULL, 1, &got_count));
    assert_true(got_count == 2 && got_joints[0].id == a.id && arbor_node_is_none(got_joints[1]));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_skins_skin", arbor_skins_skin(k, 2, &got_mesh, NULL, NULL, 0, &got_count));
    assert_true(got_count == 0 && arbor_node_is_none(got_mesh));
    float out[3 * 16];
    /* no update: out-of-date matrices are computed first */
    ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT4, out, 3, NULL));
    /* skin 0, joint a: T(-1,-2,-3) T(0,1,0) */
    NEAR(out[12], -1, "a x");
    NEAR(out[13], -1, "a y");
    NEAR(out[14], -3, "a z");
    /* joint b: T(-1,-2,-3) T(0,1,0) Rz(90) T(5,0,0): x 0 -> 5 turned onto y */
    NEAR(out[16 + 12], -1, "b x");
    NEAR(out[16 + 13], -1 + 5, "b y");
    NEAR(out[16 + 0], 0, "b rotated");
    NEAR(out[16 + 1], 1, "b rotated");
    /* skin 1: the mesh at the origin, identity IBM: b's world matrix */
    NEAR(out[32 + 13], 1, "skin 1");
    uint64_t before = test_alloc_calls(&count);
    for (int i = 0; i < 10; i++) ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT3X4, out, 3, NULL));
    assert_int_equal(test_alloc_calls(&count), before);
    /* the mesh moves, itself and then through a new parent: the inverse taken out follows */
    ASSERT_OK(arbor_node_set_translation(s, mesh, 4, 2, 3));
    ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT4, out, 3, NULL));
    NEAR(out[12], -4, "a x, the mesh moved");
    ASSERT_OK(arbor_node_set_parent(s, mesh, other, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_node_set_translation(s, other, 0, 0, 10));
    ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT4, out, 3, NULL));
    NEAR(out[12], -4, "a x, the mesh's parent moved");
    NEAR(out[14], -13, "a z, the mesh's parent moved");
    ASSERT_OK(arbor_node_set_parent(s, mesh, ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    ASSERT_OK(arbor_node_set_translation(s, mesh, 1, 2, 3));
    ASSERT_OK(arbor_node_set_translation(s, other, 0, 0, 0));

    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_skins_compute", arbor_skins_compute(k, ARBOR_LAYOUT_MAT4, out, 2, NULL));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_skins_compute", arbor_skins_compute(k, (arbor_matrix_layout)7, out, 3, NULL));
    ibm[15] = 2;
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_skins_add", arbor_skins_add(k, &(arbor_skin_desc){ mesh, joints, 2, ibm }, NULL));
    ibm[15] = NAN;
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_skins_add", arbor_skins_add(k, &(arbor_skin_desc){ mesh, joints, 2, ibm }, NULL));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_skins_add", arbor_skins_add(k, &(arbor_skin_desc){ mesh, joints, 0, NULL }, NULL));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_skins_add", arbor_skins_add(k, &(arbor_skin_desc){ ARBOR_NONE, joints, 2, NULL }, NULL));
    assert_int_equal(arbor_skins_count(k), 2);
    /* a singular mesh, then a destroyed joint: refused, out untouched */
    float untouched[3 * 16];
    memcpy(untouched, out, sizeof out);
    ASSERT_OK(arbor_node_set_scale(s, mesh, 0, 1, 1));
    ASSERT_REFUSED(ARBOR_ERR_SINGULAR, "arbor_skins_compute", arbor_skins_compute(k, ARBOR_LAYOUT_MAT3X4, out, 3, NULL));
    ASSERT_OK(arbor_node_set_scale(s, mesh, 1, 1, 1));
    ASSERT_OK(arbor_node_destroy(s, b));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_skins_compute", arbor_skins_compute(k, ARBOR_LAYOUT_MAT3X4, out, 3, NULL));
    assert_memory_equal(out, untouched, sizeof out);
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_skins_add", arbor_skins_add(k, &(arbor_skin_desc){ mesh, joints, 2, NULL }, NULL));
    arbor_skins_destroy(k);
    arbor_scene_destroy(s);
    assert_int_equal(count.live_blocks, 0);
    assert_int_equal(count.size_mismatches, 0);
}

/* The joints' slots the skin set keeps between calls follow the scene: a renumbering of the
   storage, a joint destroyed and brought back by undo (expected values: the nodes' translations,
   the skin's mesh at the origin and its IBMs the identity). */
static void test_skins_follow_the_storage(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    arbor_node mesh, n[8];
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ 0 }, &mesh));
    for (int i = 0; i < 8; i++) /* two chains of four: each moves x by 1 (first chain) or 10 */
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = i % 4 ? n[i - 1] : ARBOR_NONE,
                                                           .translation = { i < 4 ? 1 : 10, 0, 0 } }, &n[i]));
    arbor_skins *k;
    ASSERT_OK(arbor_skins_create(s, &k));
    const arbor_node joints[] = { n[3], n[7], n[1] };
    ASSERT_OK(arbor_skins_add(k, &(arbor_skin_desc){ mesh, joints, 3, NULL }, NULL));
    float out[3 * 12];
    ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT3X4, out, 3, NULL));
    NEAR(out[3], 4, "n[3]");
    NEAR(out[12 + 3], 40, "n[7]");
    NEAR(out[24 + 3], 2, "n[1]");
    /* the second chain under a node made after it, and many nodes out of date: the update
       renumbers the storage */
    arbor_node late;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .translation = { 0, 5, 0 } }, &late));
    ASSERT_OK(arbor_node_set_parent(s, n[4], late, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    for (int i = 0; i < 8; i++) ASSERT_OK(arbor_node_set_translation(s, n[i], i < 4 ? 2 : 20, 0, 0));
    arbor_scene_stats a, b;
    arbor_scene_stats_get(s, &a);
    arbor_scene_update(s);
    arbor_scene_stats_get(s, &b);
    assert_int_equal(b.relayouts - a.relayouts, 1);
    ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT3X4, out, 3, NULL));
    NEAR(out[3], 8, "n[3] after the renumbering");
    NEAR(out[12 + 3], 80, "n[7] after the renumbering");
    NEAR(out[12 + 7], 5, "n[7] under late");
    NEAR(out[24 + 3], 4, "n[1] after the renumbering");
    /* a joint destroyed (refused), then back (undo) */
    ASSERT_OK(arbor_journal_destroy_node(j, n[6]));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_skins_compute", arbor_skins_compute(k, ARBOR_LAYOUT_MAT3X4, out, 3, NULL));
    ASSERT_OK(arbor_journal_undo(j));
    ASSERT_OK(arbor_node_set_translation(s, n[7], 30, 0, 0));
    ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT3X4, out, 3, NULL));
    NEAR(out[12 + 3], 90, "n[7] back");
    arbor_skins_destroy(k);
    arbor_journal_destroy(j);
    arbor_scene_destroy(s);
}

/* The driven nodes' slots a player keeps for its checks follow the scene: after a renumbering a
   locked node is found where it went, a node destroyed is refused and one brought back by undo
   is written again (expected values: the clip's keyframes). */
static void test_players_follow_the_storage(void **state) {
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_journal *j;
    ASSERT_OK(arbor_journal_create(s, NULL, &j));
    arbor_node n[8];
    for (int i = 0; i < 8; i++) /* two chains of four */
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = i % 4 ? n[i - 1] : ARBOR_NONE }, &n[i]));
    static const float times[] = { 0, 1 }, values[] = { 1, 0, 0, 3, 0, 0 };
    arbor_channel_desc ch[8];
    for (uint32_t i = 0; i < 8; i++)
        ch[i] = (arbor_channel_desc){ .target = i, .path = ARBOR_ANIM_TRANSLATION, .key_count = 2, .times = times, .values = values };
    arbor_clip *clip;
    ASSERT_OK(arbor_clip_create(&(arbor_clip_desc){ .channels = ch, .channel_count = 8 }, &clip));
    arbor_player *p;
    ASSERT_OK(arbor_player_create(clip, s, n, 8, &p));
    ASSERT_OK(arbor_players_apply(&p, (double[]){ 0 }, 1, ARBOR_WRAP_CLAMP, NULL));
    /* the second chain under a node made after it: the update renumbers the storage */
    arbor_node late;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ 0 }, &late));
    ASSERT_OK(arbor_node_set_parent(s, n[4], late, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    for (int i = 0; i < 8; i++) ASSERT_OK(arbor_node_set_translation(s, n[i], 0, 0, 0));
    arbor_scene_stats a, b;
    arbor_scene_stats_get(s, &a);
    arbor_scene_update(s);
    arbor_scene_stats_get(s, &b);
    assert_int_equal(b.relayouts - a.relayouts, 1);
    arbor_real m[16];
    arbor_mat4_identity(m);
    ASSERT_OK(arbor_node_set_local_matrix(s, n[7], m, true));
    ASSERT_REFUSED(ARBOR_ERR_LOCKED, "arbor_players_apply", arbor_players_apply(&p, (double[]){ 1 }, 1, ARBOR_WRAP_CLAMP, NULL));
    expect_vec3(s, n[6], ARBOR_ANIM_TRANSLATION, 0, 0, 0, "nothing written");
    ASSERT_OK(arbor_node_set_local_matrix(s, n[7], m, false));
    ASSERT_OK(arbor_players_apply(&p, (double[]){ 1 }, 1, ARBOR_WRAP_CLAMP, NULL));
    expect_vec3(s, n[7], ARBOR_ANIM_TRANSLATION, 3, 0, 0, "after the renumbering");
    /* a driven node destroyed (refused), then back (undo) */
    ASSERT_OK(arbor_journal_destroy_node(j, n[6]));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_players_apply", arbor_players_apply(&p, (double[]){ 0.5 }, 1, ARBOR_WRAP_CLAMP, NULL));
    ASSERT_OK(arbor_journal_undo(j));
    ASSERT_OK(arbor_players_apply(&p, (double[]){ 0.5 }, 1, ARBOR_WRAP_CLAMP, NULL));
    expect_vec3(s, n[6], ARBOR_ANIM_TRANSLATION, 2, 0, 0, "back");
    arbor_player_destroy(p);
    arbor_clip_destroy(clip);
    arbor_journal_destroy(j);
    arbor_scene_destroy(s);
}

/* ---- writes, versions, blends, layers ------------------------------------------------------------ */

/* A three-node rig (root, a, b under root) and clips made by hand on it. */
typedef struct rig3 {
    arbor_scene *s;
    arbor_node n[3];
} rig3;

static rig3 rig3_make(void) {
    rig3 r = { NULL, { { 0 } } };
    ASSERT_OK(arbor_scene_create(NULL, &r.s));
    ASSERT_OK(arbor_node_create(r.s, &(arbor_node_desc){ .name = "root", .translation = { 0, 0, 1 } }, &r.n[0]));
    ASSERT_OK(arbor_node_create(r.s, &(arbor_node_desc){ .name = "a", .parent = r.n[0], .scale = { 2, 2, 2 } }, &r.n[1]));
    ASSERT_OK(arbor_node_create(r.s, &(arbor_node_desc){ .name = "b", .parent = r.n[0], .translation = { 1, 0, 0 } }, &r.n[2]));
    return r;
}

static const float t01[] = { 0, 1 };
/* rotation about z from 0 to 90 degrees; translation from (0,0,0) to (4,0,0) */
static const float rz[] = { 0, 0, 0, 1, 0, 0, S45, S45 };
static const float tx[] = { 0, 0, 0, 4, 0, 0 };
/* rotation about z from 0 to -90 degrees; translation from (0,8,0) to (0,8,0) */
static const float rz_back[] = { 0, 0, 0, 1, 0, 0, -S45, S45 };
static const float ty[] = { 0, 8, 0, 0, 8, 0 };

static arbor_clip *clip_of(arbor_channel_desc *channels, uint32_t count) {
    arbor_clip *clip;
    ASSERT_OK(arbor_clip_create(&(arbor_clip_desc){ .channels = channels, .channel_count = count, .rig_size = 3 }, &clip));
    return clip;
}

static void test_writes_and_versions(void **state) {
    (void)state;
    rig3 r = rig3_make();
    /* a's rotation only: its scale stays, b is not touched */
    arbor_channel_desc ch = { .target = 1, .path = ARBOR_ANIM_ROTATION, .key_count = 2, .times = t01, .values = rz };
    arbor_clip *clip = clip_of(&ch, 1);
    arbor_player *p;
    ASSERT_OK(arbor_player_create(clip, r.s, r.n, 3, &p));
    assert_ptr_equal(arbor_player_clip(p), clip);
    arbor_scene_update(r.s);
    uint64_t va = arbor_node_world_version(r.s, r.n[1]), vb = arbor_node_world_version(r.s, r.n[2]);
    ASSERT_OK(arbor_player_apply(p, 1, ARBOR_WRAP_CLAMP));
    assert_int_not_equal(arbor_node_world_version(r.s, r.n[1]), va);
    assert_int_equal(arbor_node_world_version(r.s, r.n[2]), vb);
    arbor_real w[16];
    ASSERT_OK(arbor_node_world_matrix(r.s, r.n[1], w)); /* right away, without an update */
    NEAR(w[0], 0, "x turned");
    NEAR(w[1], 2, "x turned onto y, scale 2 kept");
    NEAR(w[14], 1, "the root's translation");
    arbor_trs trs = trs_of(r.s, r.n[1]);
    NEAR(trs.scale[0], 2, "scale kept");
    /* a user's write to a component the clip does not animate survives the next apply */
    ASSERT_OK(arbor_node_set_translation(r.s, r.n[1], 7, 0, 0));
    ASSERT_OK(arbor_player_apply(p, 0.5, ARBOR_WRAP_CLAMP));
    trs = trs_of(r.s, r.n[1]);
    NEAR(trs.translation[0], 7, "translation kept");
    NEAR(trs.rotation[2], sin(PI / 8), "45 degrees");
    /* sampling into a pose writes nothing to the scene */
    arbor_trs pose[3];
    memset(pose, 0, sizeof pose);
    ASSERT_OK(arbor_player_sample(p, 1, ARBOR_WRAP_CLAMP, pose, 3));
    NEAR(pose[1].rotation[2], S45, "pose");
    NEAR(pose[1].scale[0], 0, "pose: components not animated untouched");
    NEAR(trs_of(r.s, r.n[1]).rotation[2], sin(PI / 8), "scene untouched");
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_player_sample", arbor_player_sample(p, 1, ARBOR_WRAP_CLAMP, pose, 2));
    arbor_player_destroy(p);
    arbor_clip_destroy(clip);
    arbor_scene_destroy(r.s);
}

static void test_blend(void **state) {
    (void)state;
    rig3 r = rig3_make();
    /* clip A: a turns to 90 about z, b slides to x = 4; clip B: a turns to -90, root moves to y = 8 */
    arbor_channel_desc ca[] = { { .target = 1, .path = ARBOR_ANIM_ROTATION, .key_count = 2, .times = t01, .values = rz },
                                { .target = 2, .path = ARBOR_ANIM_TRANSLATION, .key_count = 2, .times = t01, .values = tx } };
    arbor_channel_desc cb[] = { { .target = 1, .path = ARBOR_ANIM_ROTATION, .key_count = 2, .times = t01, .values = rz_back },
                                { .target = 0, .path = ARBOR_ANIM_TRANSLATION, .key_count = 2, .times = t01, .values = ty } };
    arbor_clip *A = clip_of(ca, 2), *B = clip_of(cb, 2);
    arbor_player *pa, *pb;
    ASSERT_OK(arbor_player_create(A, r.s, r.n, 3, &pa));
    ASSERT_OK(arbor_player_create(B, r.s, r.n, 3, &pb));
    /* a quarter of the way from A at 1 (+90) to B at 1 (-90): slerp gives +45 */
    ASSERT_OK(arbor_player_blend(pa, 1, pb, 1, (arbor_real)0.25, ARBOR_WRAP_CLAMP));
    const double q45[4] = { 0, 0, sin(PI / 8), cos(PI / 8) };
    check_part(r.s, r.n[1], ARBOR_ANIM_ROTATION, q45, "blended rotation");
    /* b: A's (4,0,0) against B's side, which is b's rest (1,0,0) */
    expect_vec3(r.s, r.n[2], ARBOR_ANIM_TRANSLATION, 0.75 * 4 + 0.25 * 1, 0, 0, "blended with the rest pose");
    /* root: A's side is the rest (0,0,1), B's (0,8,0) */
    expect_vec3(r.s, r.n[0], ARBOR_ANIM_TRANSLATION, 0, 2, 0.75, "rest against B");
    /* weight 0 is A alone, weight 1 is B alone */
    ASSERT_OK(arbor_player_blend(pa, 0.5, pb, 1, 0, ARBOR_WRAP_CLAMP));
    expect_vec3(r.s, r.n[2], ARBOR_ANIM_TRANSLATION, 2, 0, 0, "weight 0");
    ASSERT_OK(arbor_player_blend(pa, 0.5, pb, 1, 1, ARBOR_WRAP_CLAMP));
    const double qm90[4] = { 0, 0, -S45, S45 };
    check_part(r.s, r.n[1], ARBOR_ANIM_ROTATION, qm90, "weight 1");
    expect_vec3(r.s, r.n[2], ARBOR_ANIM_TRANSLATION, 1, 0, 0, "weight 1: b's rest");
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_player_blend", arbor_player_blend(pa, 0, pb, 0, (arbor_real)1.5, ARBOR_WRAP_CLAMP));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_player_blend", arbor_player_blend(pa, NAN, pb, 0, 0, ARBOR_WRAP_CLAMP));
    /* rigs that disagree, and another scene */
    rig3 other = rig3_make();
    arbor_player *po;
    ASSERT_OK(arbor_player_create(B, other.s, other.n, 3, &po));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_player_blend", arbor_player_blend(pa, 0, po, 0, 0, ARBOR_WRAP_CLAMP));
    arbor_node swapped[3] = { r.n[0], r.n[2], r.n[1] };
    arbor_player *ps;
    ASSERT_OK(arbor_player_create(B, r.s, swapped, 3, &ps));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_player_blend", arbor_player_blend(pa, 0, ps, 0, 0, ARBOR_WRAP_CLAMP));
    arbor_player_destroy(ps);
    arbor_player_destroy(po);
    arbor_player_destroy(pa);
    arbor_player_destroy(pb);
    arbor_clip_destroy(A);
    arbor_clip_destroy(B);
    arbor_scene_destroy(other.s);
    arbor_scene_destroy(r.s);
}

static void test_additive(void **state) {
    (void)state;
    rig3 r = rig3_make();
    /* the layer's reference is its first keyframe: rotation identity, translation (0,0,0) */
    arbor_channel_desc ch[] = { { .target = 1, .path = ARBOR_ANIM_ROTATION, .key_count = 2, .times = t01, .values = rz },
                                { .target = 2, .path = ARBOR_ANIM_TRANSLATION, .key_count = 2, .times = t01, .values = tx } };
    arbor_clip *clip = clip_of(ch, 2);
    arbor_player *p;
    ASSERT_OK(arbor_player_create(clip, r.s, r.n, 3, &p));
    /* a base pose: a turned 90 degrees about x */
    ASSERT_OK(arbor_node_set_rotation(r.s, r.n[1], (arbor_real)S45, 0, 0, (arbor_real)S45));
    /* at time 0 the layer is its reference: nothing changes */
    ASSERT_OK(arbor_player_add(p, 0, 1, ARBOR_WRAP_CLAMP));
    const double qx[4] = { S45, 0, 0, S45 };
    check_part(r.s, r.n[1], ARBOR_ANIM_ROTATION, qx, "reference adds nothing");
    expect_vec3(r.s, r.n[2], ARBOR_ANIM_TRANSLATION, 1, 0, 0, "reference adds nothing");
    /* at time 1 with weight 0.5: half of 90 about z, after the base; b moves by half of (4,0,0) */
    ASSERT_OK(arbor_player_add(p, 1, (arbor_real)0.5, ARBOR_WRAP_CLAMP));
    arbor_real want[4];
    const arbor_real base[4] = { (arbor_real)S45, 0, 0, (arbor_real)S45 }, z45[4] = { 0, 0, (arbor_real)sin(PI / 8), (arbor_real)cos(PI / 8) };
    arbor_quat_mul(want, base, z45);
    const double wanted[4] = { want[0], want[1], want[2], want[3] };
    check_part(r.s, r.n[1], ARBOR_ANIM_ROTATION, wanted, "base * half the change");
    expect_vec3(r.s, r.n[2], ARBOR_ANIM_TRANSLATION, 3, 0, 0, "1 + 0.5 * 4");
    /* layers pile up: again adds again */
    ASSERT_OK(arbor_player_add(p, 1, (arbor_real)0.5, ARBOR_WRAP_CLAMP));
    expect_vec3(r.s, r.n[2], ARBOR_ANIM_TRANSLATION, 5, 0, 0, "3 + 0.5 * 4");
    /* a weight that makes the pose not finite: refused, nothing written */
    const arbor_real huge = (arbor_real)(ARBOR_REAL_IS_DOUBLE ? 1e308 : 1e38);
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_player_add", arbor_player_add(p, 1, huge, ARBOR_WRAP_CLAMP));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_player_add", arbor_player_add(p, 1, INFINITY, ARBOR_WRAP_CLAMP));
    expect_vec3(r.s, r.n[2], ARBOR_ANIM_TRANSLATION, 5, 0, 0, "unchanged");
    arbor_player_destroy(p);
    arbor_clip_destroy(clip);
    arbor_scene_destroy(r.s);
}

/* ---- one clip, many characters --------------------------------------------------------------------- */

/* Copies the nodes of a loaded file into s (names, TRS, parents), in file order: copy[i] is the
   copy of node i. */
static void copy_character(const loaded *l, arbor_scene *s, arbor_node *copy) {
    for (arbor_node t = arbor_scene_next_node(l->s, ARBOR_NONE); !arbor_node_is_none(t); t = arbor_scene_next_node(l->s, t)) {
        int64_t i = arbor_gltf_index(l->doc, t), parent = arbor_gltf_index(l->doc, arbor_node_parent(l->s, t));
        arbor_trs trs = trs_of(l->s, t);
        arbor_node_desc d = { .name = arbor_node_name(l->s, t), .parent = parent >= 0 ? copy[parent] : ARBOR_NONE };
        memcpy(d.translation, trs.translation, sizeof d.translation);
        memcpy(d.rotation, trs.rotation, sizeof d.rotation);
        memcpy(d.scale, trs.scale, sizeof d.scale);
        ASSERT_OK(arbor_node_create(s, &d, &copy[i]));
    }
}

/* World matrices of nodes in two scenes, bit for bit. */
static void same_worlds(arbor_scene *a, const arbor_node *na, arbor_scene *b, const arbor_node *nb, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        arbor_real wa[16], wb[16];
        ASSERT_OK(arbor_node_world_matrix(a, na[i], wa));
        ASSERT_OK(arbor_node_world_matrix(b, nb[i], wb));
        ASSERT_REALS_BITS_EQUAL(wa, wb, 16);
    }
}

typedef struct crowd_thread {
    const loaded *l;
    const arbor_clip *clip;
    arbor_scene *s;
    arbor_node copy[64];
    double start;
} crowd_thread;

/* One thread: its own copy of the character, in its own scene, playing the shared clip. */
static void *play_copy(void *arg) {
    crowd_thread *c = arg;
    arbor_player *p;
    if (arbor_player_create(c->clip, c->s, c->copy, arbor_gltf_node_count(c->l->doc), &p)) return arg;
    for (int f = 0; f < 200; f++)
        if (arbor_player_apply(p, c->start + f / 60.0, ARBOR_WRAP_LOOP)) return arg;
    arbor_scene_update(c->s);
    arbor_player_destroy(p);
    return NULL;
}

static void test_one_clip_many_characters(void **state) {
    (void)state;
    NEED_SAMPLES();
    loaded l = load_ok(SAMPLES_DIR "/Fox/Fox.glb");
    uint32_t n = arbor_gltf_node_count(l.doc);
    assert_true(n <= 64);
    arbor_clip *clip;
    arbor_player *original = file_player(&l, 2, false, &clip);
    assert_string_equal(arbor_clip_name(clip), "Run");
    arbor_node rig[64];
    for (uint32_t i = 0; i < n; i++) rig[i] = arbor_gltf_node(l.doc, i);
    /* two copies in another scene: one bound by index (copy order is file order), one by name */
    arbor_scene *crowd = NULL;
    assert_int_equal(arbor_scene_create(NULL, &crowd), ARBOR_OK);
    arbor_node first[64], second[64], by_name[64];
    copy_character(&l, crowd, first);
    copy_character(&l, crowd, second);
    /* 21 channels on 20 nodes (the hip has translation and rotation) */
    uint32_t rig_size = 0, found = 0;
    ASSERT_OK(arbor_clip_rig_by_names(clip, crowd, second[0], by_name, 64, &rig_size, &found));
    assert_int_equal(rig_size, n);
    assert_int_equal(found, 20);
    /* a rig array too small: the first entries written, nothing past cap, the whole size told */
    arbor_node short_rig[4] = { { 0 }, { 0 }, { 0 }, { 0 } };
    ASSERT_OK(arbor_clip_rig_by_names(clip, crowd, second[0], short_rig, 3, &rig_size, &found));
    assert_int_equal(rig_size, n);
    assert_int_equal(found, 20);
    for (int i = 0; i < 3; i++) ASSERT_NODE_EQ(short_rig[i], by_name[i]);
    assert_int_equal(short_rig[3].id, 0);
    arbor_player *p1, *p2;
    ASSERT_OK(arbor_player_create(clip, crowd, first, n, &p1));
    ASSERT_OK(arbor_player_create(clip, crowd, by_name, n, &p2));
    ASSERT_OK(arbor_player_apply(original, 0.4, ARBOR_WRAP_LOOP));
    ASSERT_OK(arbor_player_apply(p1, 0.4, ARBOR_WRAP_LOOP));
    ASSERT_OK(arbor_player_apply(p2, 0.4 + arbor_clip_duration(clip), ARBOR_WRAP_LOOP));
    for (uint32_t i = 0; i < n; i++) { /* the copy's rest rotations were normalised again: alike, not bitwise */
        arbor_real wa[16], wb[16];
        ASSERT_OK(arbor_node_world_matrix(l.s, rig[i], wa));
        ASSERT_OK(arbor_node_world_matrix(crowd, first[i], wb));
        for (int e = 0; e < 16; e++) NEAR(wb[e], wa[e], "copy bound by index");
    }
    for (uint32_t i = 0; i < n; i++) { /* bound nodes posed alike, up to the loop's rounding */
        if (arbor_node_is_none(by_name[i])) continue;
        arbor_trs a = trs_of(l.s, rig[i]), b = trs_of(crowd, by_name[i]);
        for (int e = 0; e < 10; e++) NEAR((&b.translation[0])[e], (&a.translation[0])[e], "bound by name");
    }
    /* the same clip on four threads at once, each with its scene, against the same serially */
    crowd_thread threads[4];
    pthread_t ids[4];
    for (int t = 0; t < 4; t++) {
        threads[t] = (crowd_thread){ .l = &l, .clip = clip, .start = 0.1 * t };
        ASSERT_OK(arbor_scene_create(NULL, &threads[t].s));
        copy_character(&l, threads[t].s, threads[t].copy);
    }
    for (int t = 0; t < 4; t++) assert_int_equal(pthread_create(&ids[t], NULL, play_copy, &threads[t]), 0);
    for (int t = 0; t < 4; t++) {
        void *failed;
        assert_int_equal(pthread_join(ids[t], &failed), 0);
        assert_null(failed);
    }
    for (int t = 0; t < 4; t++) { /* copies made alike: bit for bit */
        ASSERT_OK(arbor_player_apply(p1, 0.1 * t + 199 / 60.0, ARBOR_WRAP_LOOP));
        same_worlds(crowd, first, threads[t].s, threads[t].copy, n);
        arbor_scene_destroy(threads[t].s);
    }
    /* many players at once on an executor: the same as one by one */
    enum { COPIES = 256 };
    arbor_scene *serial = NULL, *parallel = NULL;
    ASSERT_OK(arbor_scene_create(NULL, &serial));
    ASSERT_OK(arbor_scene_create(NULL, &parallel));
    arbor_node (*cs)[64] = malloc(COPIES * sizeof *cs), (*cp)[64] = malloc(COPIES * sizeof *cp);
    arbor_player *ps[COPIES], *pp[COPIES];
    double times[COPIES];
    for (int k = 0; k < COPIES; k++) {
        copy_character(&l, serial, cs[k]);
        copy_character(&l, parallel, cp[k]);
        ASSERT_OK(arbor_player_create(clip, serial, cs[k], n, &ps[k]));
        ASSERT_OK(arbor_player_create(clip, parallel, cp[k], n, &pp[k]));
    }
    arbor_pool *pool = NULL;
    assert_int_equal(arbor_pool_create(2, &pool), ARBOR_OK);
    assert_non_null(pool);
    arbor_executor ex = arbor_pool_executor(pool);
    for (int f = 0; f < 5; f++) {
        for (int k = 0; k < COPIES; k++) {
            times[k] = k * 0.01 + f / 30.0;
            ASSERT_OK(arbor_player_apply(ps[k], times[k], ARBOR_WRAP_LOOP));
        }
        ASSERT_OK(arbor_players_apply(pp, times, COPIES, ARBOR_WRAP_LOOP, &ex));
        arbor_scene_update_parallel(parallel, &ex);
        arbor_scene_update(serial);
    }
    for (int k = 0; k < COPIES; k++) same_worlds(serial, cs[k], parallel, cp[k], n);
    ASSERT_OK(arbor_players_apply(pp, times, 0, ARBOR_WRAP_LOOP, NULL));
    for (int k = 0; k < COPIES; k++) {
        arbor_player_destroy(ps[k]);
        arbor_player_destroy(pp[k]);
    }
    arbor_pool_destroy(pool);
    free(cs);
    free(cp);
    arbor_scene_destroy(serial);
    arbor_scene_destroy(parallel);
    arbor_player_destroy(p1);
    arbor_player_destroy(p2);
    arbor_player_destroy(original);
    arbor_clip_destroy(clip);
    arbor_scene_destroy(crowd);
    unload(&l);
}

/* ---- refusals ------------------------------------------------------------------------------------ */

static void test_clip_refusals(void **state) {
    (void)state;
    test_counting_allocator count = { 0 };
    arbor_allocator hooks = test_counting_allocator_hooks(&count, true);
    const float times[] = { 0, 1, 2 }, flat[] = { 0, 1, 1 }, negative[] = { -1, 0, 1 }, nan_time[] = { 0, NAN, 2 };
    const float v3[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, q[] = { 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1 };
    const float nan_value[] = { 1, 2, 3, 4, NAN, 6, 7, 8, 9 }, huge[] = { 1, 2, 3, 4, 2e37f, 6, 7, 8, 9 };
    /* a CUBICSPLINE out-tangent of 1e36 over an interval of 20 s: 2e37 once scaled */
    const float long_times[] = { 0, 20 }, tangent[] = { 0, 0, 0, 0, 0, 0, 1e36f, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0 };
    const arbor_channel_desc good = { .target = 0, .path = ARBOR_ANIM_TRANSLATION, .key_count = 3, .times = times, .values = v3 };
    struct {
        arbor_channel_desc c;
        arbor_result code;
        const char *says;
    } cases[] = {
        { { .path = (arbor_anim_path)9, .key_count = 3, .times = times, .values = v3 }, ARBOR_ERR_INVALID_ARGUMENT, "unknown path" },
        { { .interpolation = (arbor_interpolation)9, .key_count = 3, .times = times, .values = v3 }, ARBOR_ERR_INVALID_ARGUMENT, "unknown interpolation" },
        { { .target = 5, .key_count = 3, .times = times, .values = v3 }, ARBOR_ERR_INVALID_ARGUMENT, "beyond the rig size" },
        { { .width = 4, .key_count = 3, .times = times, .values = v3 }, ARBOR_ERR_INVALID_ARGUMENT, "width 4" },
        { { .path = ARBOR_ANIM_WEIGHTS, .key_count = 3, .times = times, .values = v3 }, ARBOR_ERR_INVALID_ARGUMENT, "width 0" },
        { { .key_count = 0, .times = times, .values = v3 }, ARBOR_ERR_INVALID_ARGUMENT, "too few" },
        { { .interpolation = ARBOR_INTERPOLATION_CUBICSPLINE, .key_count = 1, .times = times, .values = v3 }, ARBOR_ERR_INVALID_ARGUMENT, "too few" },
        { { .key_count = 3, .times = NULL, .values = v3 }, ARBOR_ERR_INVALID_ARGUMENT, "required" },
        { { .key_count = 3, .times = flat, .values = v3 }, ARBOR_ERR_INVALID_ARGUMENT, "keyframe 2 at time 1 is not after" },
        { { .key_count = 3, .times = negative, .values = v3 }, ARBOR_ERR_INVALID_ARGUMENT, "negative" },
        { { .key_count = 3, .times = nan_time, .values = v3 }, ARBOR_ERR_NONFINITE, "keyframe 1's time" },
        { { .key_count = 3, .times = times, .values = nan_value }, ARBOR_ERR_NONFINITE, "keyframe 1 holds nan" },
        { { .key_count = 3, .times = times, .values = huge }, ARBOR_ERR_INVALID_ARGUMENT, "beyond what a sample can hold" },
        { { .interpolation = ARBOR_INTERPOLATION_CUBICSPLINE, .key_count = 2, .times = long_times, .values = tangent }, ARBOR_ERR_INVALID_ARGUMENT, "keyframe 0 holds 1e+36" },
        { { .path = ARBOR_ANIM_ROTATION, .key_count = 3, .times = times, .values = q }, ARBOR_ERR_INVALID_ARGUMENT, "keyframe 1's rotation has no length" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        arbor_channel_desc channels[2] = { good, cases[i].c };
        channels[1].target = cases[i].c.target ? cases[i].c.target : 1;
        arbor_clip *clip = (arbor_clip *)&count; /* set to NULL when refused */
        arbor_result r = arbor_clip_create(&(arbor_clip_desc){ .channels = channels, .channel_count = 2,
                                                               .rig_size = 3, .allocator = hooks },
                                           &clip);
        if (r != cases[i].code) fail_msg("case %zu: %s, expected %s (%s)", i, arbor_result_string(r),
                                         arbor_result_string(cases[i].code), arbor_last_error());
        assert_null(clip);
        if (!strstr(arbor_last_error(), "channel 1") || !strstr(arbor_last_error(), cases[i].says))
            fail_msg("case %zu: the message does not say \"channel 1\" and \"%s\": %s", i, cases[i].says, arbor_last_error());
    }
    arbor_channel_desc twice[2] = { good, good };
    arbor_clip *clip;
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_clip_create",
                   arbor_clip_create(&(arbor_clip_desc){ .channels = twice, .channel_count = 2, .allocator = hooks }, &clip));
    assert_non_null(strstr(arbor_last_error(), "channels 0 and 1 both animate target 0"));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_clip_create",
                   arbor_clip_create(&(arbor_clip_desc){ .channels = &good, .channel_count = 1, .duration = -1 }, &clip));
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_clip_create",
                   arbor_clip_create(&(arbor_clip_desc){ .channels = &good, .channel_count = 1, .duration = INFINITY }, &clip));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_clip_create", arbor_clip_create(NULL, &clip));
    assert_int_equal(count.live_blocks, 0);
    /* an empty clip is a clip; an explicit duration is kept */
    ASSERT_OK(arbor_clip_create(&(arbor_clip_desc){ .duration = 2, .allocator = hooks }, &clip));
    assert_int_equal(arbor_clip_duration(clip), 2);
    assert_int_equal(arbor_clip_rig_size(clip), 0);
    assert_null(arbor_clip_name(clip));
    arbor_clip_destroy(clip);
    assert_int_equal(count.live_blocks, 0);
    assert_int_equal(count.size_mismatches, 0);
    /* out of memory: refused, nothing left */
    for (uint64_t allow = 0; allow < 2; allow++) { /* the sort's workspace, then the clip */
        count.limited = true;
        count.allow = allow;
        ASSERT_REFUSED(ARBOR_ERR_OUT_OF_MEMORY, "arbor_clip_create",
                       arbor_clip_create(&(arbor_clip_desc){ .channels = &good, .channel_count = 1, .allocator = hooks }, &clip));
        count.limited = false;
    }
    assert_int_equal(count.live_blocks, 0);
}

static void test_player_refusals(void **state) {
    (void)state;
    rig3 r = rig3_make();
    arbor_channel_desc ch[] = { { .target = 1, .path = ARBOR_ANIM_ROTATION, .key_count = 2, .times = t01, .values = rz },
                                { .target = 2, .path = ARBOR_ANIM_TRANSLATION, .key_count = 2, .times = t01, .values = tx } };
    arbor_clip *clip = clip_of(ch, 2);
    arbor_player *p;
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_player_create", arbor_player_create(clip, r.s, r.n, 2, &p));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_player_create", arbor_player_create(clip, r.s, NULL, 3, &p));
    /* a NONE entry leaves its channels out */
    arbor_node partial[3] = { r.n[0], r.n[1], ARBOR_NONE };
    ASSERT_OK(arbor_player_create(clip, r.s, partial, 3, &p));
    ASSERT_OK(arbor_player_apply(p, 1, ARBOR_WRAP_CLAMP));
    expect_vec3(r.s, r.n[2], ARBOR_ANIM_TRANSLATION, 1, 0, 0, "left out");
    ASSERT_REFUSED(ARBOR_ERR_NONFINITE, "arbor_player_apply", arbor_player_apply(p, INFINITY, ARBOR_WRAP_CLAMP));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_player_apply", arbor_player_apply(p, 0, (arbor_wrap)5));
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_player_apply", arbor_player_apply(NULL, 0, ARBOR_WRAP_CLAMP));
    arbor_player_destroy(p);
    ASSERT_OK(arbor_player_create(clip, r.s, r.n, 3, &p));
    ASSERT_OK(arbor_player_apply(p, 0, ARBOR_WRAP_CLAMP));
    /* a locked node: refused, nothing written (b keeps its translation) */
    arbor_real m[16];
    arbor_mat4_identity(m);
    ASSERT_OK(arbor_node_set_local_matrix(r.s, r.n[1], m, true));
    ASSERT_REFUSED(ARBOR_ERR_LOCKED, "arbor_player_apply", arbor_player_apply(p, 1, ARBOR_WRAP_CLAMP));
    expect_vec3(r.s, r.n[2], ARBOR_ANIM_TRANSLATION, 0, 0, 0, "nothing written");
    ASSERT_OK(arbor_node_set_local_matrix(r.s, r.n[1], m, false)); /* unlocked: TRS-driven again by the clip */
    ASSERT_OK(arbor_player_apply(p, 1, ARBOR_WRAP_CLAMP));
    assert_false(arbor_node_is_matrix_backed(r.s, r.n[1]));
    /* a destroyed node: refused, nothing written */
    ASSERT_OK(arbor_node_set_translation(r.s, r.n[2], 9, 9, 9));
    ASSERT_OK(arbor_node_destroy(r.s, r.n[1]));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_player_apply", arbor_player_apply(p, 0.5, ARBOR_WRAP_CLAMP));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_players_apply", arbor_players_apply(&p, (double[]){ 0.5 }, 1, ARBOR_WRAP_CLAMP, NULL));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_player_add", arbor_player_add(p, 0.5, 1, ARBOR_WRAP_CLAMP));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_player_blend", arbor_player_blend(p, 0.5, p, 0.5, 0, ARBOR_WRAP_CLAMP));
    expect_vec3(r.s, r.n[2], ARBOR_ANIM_TRANSLATION, 9, 9, 9, "nothing written");
    arbor_player *refused;
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_player_create", arbor_player_create(clip, r.s, r.n, 3, &refused));
    assert_null(refused);
    arbor_player_destroy(p);
    arbor_clip_destroy(clip);
    arbor_scene_destroy(r.s);
}

/* ---- the loader on animation data ----------------------------------------------------------------- */

/* A file with one node (a mesh when weights), one sampler and one channel; target is the channel's
   target JSON (a second, regular channel on node 0's rotation is added when both is set). */
static char *one_channel_file(const float *times, size_t keys, const float *values, size_t elements, int components,
                              const char *interpolation, const char *target, bool both) {
    gbuild b = { 0 };
    int in = add_accessor(&b, times, keys, 1, "SCALAR");
    int out = add_accessor(&b, values, elements, components, components == 4 ? "VEC4" : "VEC3");
    char animations[1024];
    snprintf(animations, sizeof animations,
             "{\"samplers\":[{\"input\":%d,\"output\":%d,\"interpolation\":\"%s\"},{\"input\":%d,\"output\":%d}],"
             "\"channels\":[{\"sampler\":0,\"target\":%s}%s]}",
             in, out, interpolation, in, out, target,
             both ? ",{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"rotation\"}}" : "");
    return gbuild_finish(&b, "{\"name\":\"n\"},{\"name\":\"m\",\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}", "",
                         animations, "\"extensionsUsed\":[\"KHR_animation_pointer\"],");
}

/* strict: refused naming the pointer; lenient: loaded with a warning, the clip keeping
   `channels` channels (with pointer channels when pointer). */
static void refused_then_lenient(const char *json, const char *pointer, bool with_pointer, uint32_t channels) {
    log_count log = { 0 };
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .log = count_log, .log_user = &log }, &s), ARBOR_OK);
    arbor_gltf *doc = load_text(s, json, false);
    if (pointer) {
        if (doc) fail_msg("loaded, expected a refusal at %s", pointer);
        assert_int_equal(arbor_last_error_info().code, ARBOR_ERR_PARSE);
        if (!strstr(arbor_last_error(), pointer)) fail_msg("the message does not name %s: %s", pointer, arbor_last_error());
        assert_int_equal(arbor_scene_node_count(s), 0);
        doc = load_text(s, json, true);
        if (!doc) fail_msg("a lenient load refused it: %s", arbor_last_error());
        assert_true(log.warnings > 0);
    } else if (!doc) {
        fail_msg("refused: %s", arbor_last_error());
    }
    arbor_clip *clip;
    ASSERT_OK(arbor_gltf_clip(doc, 0, &(arbor_gltf_clip_options){ .pointer = with_pointer }, &clip));
    assert_int_equal(arbor_clip_channel_count(clip), channels);
    arbor_clip_destroy(clip);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
}

static void test_loader_animation_data(void **state) {
    (void)state;
    const float t3[] = { 0, 1, 2 }, flat[] = { 0, 1, 1 }, v3[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    const float q3[] = { 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1 }, unit3[] = { 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0 };
    const char *translation = "{\"node\":0,\"path\":\"translation\"}";
    char *f;
    /* keyframe times that do not increase: the sampler's input */
    f = one_channel_file(flat, 3, v3, 3, 3, "LINEAR", translation, false);
    refused_then_lenient(f, "/animations/0/samplers/0/input", false, 0);
    free(f);
    /* too few output elements for the keyframes */
    f = one_channel_file(t3, 3, v3, 2, 3, "LINEAR", translation, false);
    refused_then_lenient(f, "/animations/0/channels/0/sampler", false, 0);
    free(f);
    /* CUBICSPLINE needs three elements per keyframe */
    f = one_channel_file(t3, 3, v3, 3, 3, "CUBICSPLINE", translation, false);
    refused_then_lenient(f, "/animations/0/channels/0/sampler", false, 0);
    free(f);
    /* a rotation of length zero: refused; a lenient load leaves the channel out */
    f = one_channel_file(t3, 3, q3, 3, 4, "LINEAR", "{\"node\":0,\"path\":\"rotation\"}", false);
    refused_then_lenient(f, "/animations/0/channels/0/sampler", false, 0);
    free(f);
    /* the wrong output for the path, and a node with a matrix */
    f = one_channel_file(t3, 3, v3, 3, 3, "LINEAR", "{\"node\":0,\"path\":\"rotation\"}", false);
    refused_then_lenient(f, "/animations/0/channels/0/sampler", false, 0);
    free(f);
    f = one_channel_file(t3, 3, v3, 3, 3, "LINEAR", "{\"node\":1,\"path\":\"translation\"}", false);
    refused_then_lenient(f, "/animations/0/channels/0/target", false, 0);
    free(f);
    /* pointers: to a node that does not exist, and without the extension's object */
    f = one_channel_file(t3, 3, unit3, 3, 4, "LINEAR",
                         "{\"path\":\"pointer\",\"extensions\":{\"KHR_animation_pointer\":{\"pointer\":\"/nodes/9/rotation\"}}}",
                         false);
    refused_then_lenient(f, "/animations/0/channels/0/target/extensions/KHR_animation_pointer/pointer", true, 0);
    free(f);
    f = one_channel_file(t3, 3, unit3, 3, 4, "LINEAR", "{\"path\":\"pointer\"}", false);
    refused_then_lenient(f, "/animations/0/channels/0/target/extensions", true, 0);
    free(f);
    /* good pointers: left out unless asked for; a regular channel on the same node and path wins;
       pointers to what is not a node's TRS are left alone */
    const char *good = "{\"path\":\"pointer\",\"extensions\":{\"KHR_animation_pointer\":{\"pointer\":\"/nodes/0/rotation\"}}}";
    f = one_channel_file(t3, 3, unit3, 3, 4, "LINEAR", good, false);
    refused_then_lenient(f, NULL, false, 0);
    refused_then_lenient(f, NULL, true, 1);
    free(f);
    f = one_channel_file(t3, 3, unit3, 3, 4, "LINEAR", good, true);
    refused_then_lenient(f, NULL, true, 1);
    free(f);
    f = one_channel_file(t3, 3, unit3, 3, 4, "LINEAR",
                         "{\"path\":\"pointer\",\"extensions\":{\"KHR_animation_pointer\":{\"pointer\":\"/materials/0/alphaCutoff\"}}}",
                         false);
    refused_then_lenient(f, NULL, true, 0);
    free(f);
    /* an interpolation glTF does not know: loaded (a note), the channel left out */
    f = one_channel_file(t3, 3, v3, 3, 3, "SMOOTH", translation, false);
    refused_then_lenient(f, NULL, false, 0);
    free(f);
    /* a regular channel and its pointer twin: the clip holds the regular one, whose values win */
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    f = one_channel_file(t3, 3, unit3, 3, 4, "STEP", good, true);
    arbor_gltf *doc = load_text(s, f, false);
    arbor_clip *clip;
    ASSERT_OK(arbor_gltf_clip(doc, 0, &(arbor_gltf_clip_options){ .pointer = true }, &clip));
    arbor_channel_desc ch;
    ASSERT_OK(arbor_clip_channel(clip, 0, &ch));
    assert_int_equal(ch.interpolation, ARBOR_INTERPOLATION_LINEAR); /* sampler 1's */
    arbor_clip_destroy(clip);
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_gltf_clip", arbor_gltf_clip(doc, 1, NULL, &clip));
    assert_null(clip);
    arbor_gltf_destroy(doc);
    free(f);
    arbor_scene_destroy(s);
}

/* ---- frames allocate nothing ---------------------------------------------------------------------- */

static void test_frames_allocate_nothing(void **state) {
    (void)state;
    NEED_SAMPLES();
    test_counting_allocator count = { 0 };
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .allocator = test_counting_allocator_hooks(&count, true) }, &s), ARBOR_OK);
    arbor_gltf *doc;
    ASSERT_OK(arbor_gltf_load(s, SAMPLES_DIR "/Fox/Fox.glb", NULL, &doc));
    loaded l = { s, doc };
    arbor_clip *walk, *run;
    arbor_player *pw = file_player(&l, 1, false, &walk), *pr = file_player(&l, 2, false, &run);
    float *joints;
    arbor_skins *k = file_skins(&l, &joints);
    arbor_pool *pool = NULL;
    assert_int_equal(arbor_pool_create(2, &pool), ARBOR_OK);
    arbor_executor ex = arbor_pool_executor(pool);
    arbor_player *both[2] = { pw, pr };
    /* warm: the first blend makes its workspace */
    ASSERT_OK(arbor_player_blend(pw, 0, pr, 0, (arbor_real)0.5, ARBOR_WRAP_LOOP));
    arbor_scene_stats before;
    arbor_scene_stats_get(s, &before);
    uint64_t calls = test_alloc_calls(&count);
    for (int f = 0; f < 120; f++) {
        double t = f / 60.0;
        ASSERT_OK(arbor_player_apply(pw, t, ARBOR_WRAP_LOOP));
        ASSERT_OK(arbor_player_blend(pw, t, pr, t * 1.3, (arbor_real)(f % 11) / 10, ARBOR_WRAP_LOOP));
        ASSERT_OK(arbor_player_add(pr, t, (arbor_real)0.1, ARBOR_WRAP_LOOP));
        ASSERT_OK(arbor_players_apply(both, (double[]){ t, 2 * t }, 2, ARBOR_WRAP_CLAMP, &ex));
        arbor_scene_update_parallel(s, &ex);
        ASSERT_OK(arbor_skins_compute(k, ARBOR_LAYOUT_MAT4, joints, arbor_skins_joint_total(k), &ex));
    }
    arbor_scene_stats after;
    arbor_scene_stats_get(s, &after);
    assert_int_equal(after.allocations, before.allocations);
    assert_int_equal(test_alloc_calls(&count), calls);
    arbor_pool_destroy(pool);
    arbor_skins_destroy(k);
    free(joints);
    arbor_player_destroy(pw);
    arbor_player_destroy(pr);
    arbor_clip_destroy(walk);
    arbor_clip_destroy(run);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
    assert_int_equal(count.live_blocks, 0);
    assert_int_equal(count.size_mismatches, 0);
}

/* ---- arbor animate -------------------------------------------------------------------------------- */
#ifdef ARBOR_CLI_PATH /* the command is built (ARBOR_BUILD_TOOLS) */

#define STDOUT_FILE OUT_DIR "/stdout.txt"
#define STDERR_FILE OUT_DIR "/stderr.txt"

static int run(const char *args) { return run_arbor(OUT_DIR, args); }

static void test_cli_animate(void **state) {
    (void)state;
    NEED_SAMPLES();
    /* --time prints what dump prints, for the posed scene: the matrices of the library's pose */
    const char *box = SAMPLES_DIR "/BoxAnimated/BoxAnimated.glb";
    char args[1024];
    snprintf(args, sizeof args, "animate '%s' --time 1.875 --json", box);
    assert_int_equal(run(args), 0);
    json_t *out = json_load_file(STDOUT_FILE, 0, NULL);
    assert_non_null(out);
    loaded l = load_ok(box);
    arbor_clip *clip;
    arbor_player *p = file_player(&l, 0, false, &clip);
    ASSERT_OK(arbor_player_apply(p, 1.875, ARBOR_WRAP_CLAMP));
    json_t *nodes = json_object_get(out, "nodes");
    assert_int_equal(json_array_size(nodes), arbor_gltf_node_count(l.doc));
    for (uint32_t i = 0; i < arbor_gltf_node_count(l.doc); i++) {
        arbor_real local[16], world[16];
        ASSERT_OK(arbor_node_local_matrix(l.s, arbor_gltf_node(l.doc, i), local));
        ASSERT_OK(arbor_node_world_matrix(l.s, arbor_gltf_node(l.doc, i), world));
        json_t *n = json_array_get(nodes, i);
        for (int e = 0; e < 16; e++) {
            /* printed with the digits to read back exactly */
            assert_true((arbor_real)json_number_value(json_array_get(json_object_get(n, "local"), (size_t)e)) == local[e]);
            NEAR(json_number_value(json_array_get(json_object_get(n, "world"), (size_t)e)), world[e], "world");
        }
    }
    json_decref(out);
    arbor_player_destroy(p);
    arbor_clip_destroy(clip);
    unload(&l);
    /* pointer channels move nothing without --pointer: the output is dump's, byte for byte */
    const char *pointer = SAMPLES_DIR "/BlenderIO_24_animation_pointer/24_animation_pointer.gltf";
    snprintf(args, sizeof args, "dump '%s' --json", pointer);
    assert_int_equal(run(args), 0);
    size_t dump_size = 0, posed_size = 0;
    char *dump = read_file(STDOUT_FILE, &dump_size);
    snprintf(args, sizeof args, "animate '%s' --time 2.5", pointer);
    assert_int_equal(run(args), 0);
    char *posed = read_file(STDOUT_FILE, &posed_size);
    assert_int_equal(posed_size, dump_size);
    assert_memory_equal(posed, dump, dump_size);
    free(posed);
    snprintf(args, sizeof args, "animate '%s' --time 2.5 --pointer", pointer);
    assert_int_equal(run(args), 0);
    posed = read_file(STDOUT_FILE, &posed_size);
    assert_true(posed_size != dump_size || memcmp(posed, dump, dump_size) != 0);
    free(posed);
    free(dump);
    /* by name, looping, and played */
    snprintf(args, sizeof args, "animate '%s' --animation Walk --time 0.3 --loop", SAMPLES_DIR "/Fox/Fox.glb");
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "animate '%s' --animation 2 --fps 30 --frames 20 --json", SAMPLES_DIR "/Fox/Fox.glb");
    assert_int_equal(run(args), 0);
    out = json_load_file(STDOUT_FILE, 0, NULL);
    assert_non_null(out);
    assert_string_equal(json_string_value(json_object_get(out, "name")), "Run");
    assert_int_equal(json_integer_value(json_object_get(out, "frames")), 20);
    assert_int_equal(json_integer_value(json_object_get(out, "joints")), 24);
    assert_true(json_real_value(json_object_get(out, "us_per_frame")) > 0);
    json_decref(out);
    /* refusals: usage (2), a file without that animation or without animations (1) */
    snprintf(args, sizeof args, "animate '%s'", box);
    assert_int_equal(run(args), 2);
    snprintf(args, sizeof args, "animate '%s' --time 1 --fps 30 --frames 2", box);
    assert_int_equal(run(args), 2);
    snprintf(args, sizeof args, "animate '%s' --time x", box);
    assert_int_equal(run(args), 2);
    snprintf(args, sizeof args, "animate '%s' --time 1 --animation 7", box);
    assert_int_equal(run(args), 2); /* a usage error: no such animation */
    snprintf(args, sizeof args, "animate '%s' --time 1", SAMPLES_DIR "/Cameras/Cameras.gltf");
    assert_int_equal(run(args), 1);
    assert_int_equal(run("animate --help"), 0);
}
#else
static void test_cli_animate(void **state) {
    (void)state;
    TEST_SKIP("the arbor command is not built (ARBOR_BUILD_TOOLS=OFF)");
}
#endif

int main(void) {
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_sampled_by_hand),
        cmocka_unit_test(test_box_animated_by_numbers),
        cmocka_unit_test(test_interpolation_modes),
        cmocka_unit_test(test_slerp_shorter_arc),
        cmocka_unit_test(test_slerp_four_at_once),
        cmocka_unit_test(test_slerp_lanes_match_one_channel),
        cmocka_unit_test(test_cursor_any_order),
        cmocka_unit_test(test_skins_bind_pose),
        cmocka_unit_test(test_skins_by_hand),
        cmocka_unit_test(test_skins_follow_the_storage),
        cmocka_unit_test(test_writes_and_versions),
        cmocka_unit_test(test_blend),
        cmocka_unit_test(test_additive),
        cmocka_unit_test(test_one_clip_many_characters),
        cmocka_unit_test(test_clip_refusals),
        cmocka_unit_test(test_player_refusals),
        cmocka_unit_test(test_players_follow_the_storage),
        cmocka_unit_test(test_loader_animation_data),
        cmocka_unit_test(test_frames_allocate_nothing),
        cmocka_unit_test(test_cli_animate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
