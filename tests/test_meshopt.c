/* SPDX-License-Identifier: MIT */
/*
 * tests/test_meshopt.c: EXT_meshopt_compression and KHR_meshopt_compression.
 *
 * - codec: every vector tests/meshopt/make.mjs writes with the npm meshoptimizer encoder
 *   (attribute streams of version 0 and 1 over byte patterns that reach each control and
 *   channel mode, every filter) decodes with arbor's own decoder (version 1, COLOR) and with
 *   libmeshoptimizer (version 0, the other filters) to exactly the npm decoder's bytes (the
 *   filters' integers within one unit, as the specification allows decoders); the same
 *   version 0 streams decode the same through both decoders; every truncation of a stream is
 *   refused, and every single-byte change of a version 0 stream refused where libmeshoptimizer
 *   refuses it, else decoded to its bytes;
 * - committed vectors (tests/meshopt/vectors, written by hand with tests/meshopt/committed.mjs,
 *   so without npm): version 1 streams and COLOR decode bit for bit to the npm reference
 *   decoder's bytes; every single-byte change of four of them is refused where the npm decoders
 *   refuse it or the specification calls its channel mode invalid, else decoded to the npm
 *   reference decoder's bytes;
 * - the meshopt (and Draco) files of ../shared/gltf/extensions load strictly, and their world
 *   matrices are the double-precision product of the files' own transforms, computed here;
 * - make.mjs's glTF files (every bufferView compressed: quantized positions, COLOR, joints and
 *   weights, triangles, inverse bind matrices with the exponential filter, animation times,
 *   translations and quaternion-filtered rotations; their uncompressed bytes in a fallback
 *   buffer without data) load strictly, and give bit for bit the inverse bind matrices,
 *   animation data and bounds of their plain twins (the npm decoder's bytes stored plainly);
 *   posed at every keyframe, their world matrices are the double product of the twins' data;
 * - every one of those files saved as .gltf and .glb and loaded again: the same; the compressed
 *   bytes are in the output unchanged;
 * - bad files: each refused with its JSON pointer and reason, nothing loaded; loaded with a
 *   warning when lenient; a few bytes claiming 800 MB of vertices refused before any allocation.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include <jansson.h>
#include <meshoptimizer.h>

#include "test_samples.h"

#include "arbor/anim.h"
#include "arbor/gltf.h"
#include "gltf/meshopt_codec.h"

#define OUT_DIR ARBOR_TEST_OUTPUT_DIR "/meshopt"
#define VECTORS OUT_DIR "/vectors"
#define EXT_DIR ARBOR_SHARED_DIR "/gltf/extensions"

/* ---- the npm data ------------------------------------------------------------------------- */

static int vectors_status = -1; /* tests/meshopt/run.sh's exit status, once run */

/* Writes the vectors (once); false when npm is not at hand outside CI (the skip is recorded
   for the caller, who skips). */
#define have_vectors() have_vectors_(__func__)
static bool have_vectors_(const char *func) {
    if (vectors_status < 0) {
        make_dir(OUT_DIR);
        int status = system("'" ARBOR_SOURCE_DIR "/tests/meshopt/run.sh' '" VECTORS "' >'" OUT_DIR "/run.log' 2>&1");
        vectors_status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    if (vectors_status == 0) return true;
    const char *ci = getenv("CI");
    if (vectors_status != 77 || (ci && !strcmp(ci, "true")))
        fail_msg("tests/meshopt/run.sh failed (status %d): see %s/run.log", vectors_status, OUT_DIR);
    test_record_skip_(func, "npm or the npm registry is not at hand (tests/meshopt/run.sh exit 77)");
    return false;
}

/* dir/name.ext, whole (free it); fails the test when it cannot be read. */
static unsigned char *data_file(const char *dir, const char *name, const char *ext, size_t *size) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    unsigned char *p = (unsigned char *)read_file(path, size);
    if (!p) fail_msg("cannot read %s", path);
    return p;
}

/* ---- codec ---------------------------------------------------------------------------------- */

static int filter_of(const char *name) {
    static const char *const names[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL", "COLOR"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(name, names[i])) return i;
    fail_msg("unknown filter %s", name);
    return -1;
}

static void test_codec_vectors(void **state) {
    (void)state;
    if (!have_vectors()) skip();
    json_error_t je;
    json_t *list = json_load_file(VECTORS "/vectors.json", 0, &je);
    if (!list) fail_msg("vectors.json: %s", je.text);
    size_t checked = 0, versions[2] = {0, 0}, off_by_one[5] = {0, 0, 0, 0, 0}, components[5] = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *v = json_array_get(list, i);
        const char *name = json_string_value(json_object_get(v, "name"));
        size_t count = (size_t)json_integer_value(json_object_get(v, "count"));
        size_t stride = (size_t)json_integer_value(json_object_get(v, "stride"));
        int filter = filter_of(json_string_value(json_object_get(v, "filter")));
        size_t in_size, out_size;
        unsigned char *in = data_file(VECTORS, name, "in", &in_size), *want = data_file(VECTORS, name, "out", &out_size);
        assert_int_equal(out_size, count * stride);
        unsigned char *ours = calloc(count * stride, 1), *lib = calloc(count * stride, 1);
        int r = arbor__meshopt_decode_attributes(ours, count, stride, in, in_size);
        if (r) fail_msg("%s: arbor's decoder refused it (%d)", name, r);
        versions[in[0] & 1]++;
        if (in[0] == 0xa0) { /* the library too, and the two agree */
            assert_int_equal(meshopt_decodeVertexBuffer(lib, count, stride, in, in_size), 0);
            if (memcmp(ours, lib, count * stride)) fail_msg("%s: arbor and libmeshoptimizer differ", name);
        }
        switch (filter) {
        case 1: meshopt_decodeFilterOct(ours, count, stride); break;
        case 2: meshopt_decodeFilterQuat(ours, count, stride); break;
        case 3: meshopt_decodeFilterExp(ours, count, stride); break;
        case 4: arbor__meshopt_color_filter(ours, count, stride); break;
        default: break;
        }
        /* the codec exactly; a filter's integers within one unit, as the specification allows
           decoders (libmeshoptimizer 0.18 and npm's 1.3 round some quaternions differently) */
        bool exact = filter == 0 || filter == 3;
        size_t width = exact || stride == 4 ? 1 : 2;
        for (size_t b = 0; b < count * stride; b += width) {
            int a = width == 1 ? ours[b] : (int16_t)(ours[b] | ours[b + 1] << 8);
            int w = width == 1 ? want[b] : (int16_t)(want[b] | want[b + 1] << 8);
            if (filter == 4 && width == 2) a &= 0xffff, w &= 0xffff; /* COLOR: unsigned */
            if (filter == 1 && width == 1) a = (int8_t)a, w = (int8_t)w;
            if (exact ? a != w : abs(a - w) > 1)
                fail_msg("%s: byte %zu (element %zu) is %d, the npm decoder says %d", name, b, b / stride, a, w);
            off_by_one[filter] += a != w;
            components[filter]++;
        }
        checked++;
        free(in);
        free(want);
        free(ours);
        free(lib);
    }
    json_decref(list);
    assert_true(checked > 1000 && versions[0] > 100 && versions[1] > 500);
    print_message("%zu vectors (%zu of version 0, %zu of version 1) decode to the npm decoder's bytes; components "
                  "one unit apart: OCTAHEDRAL %zu of %zu, QUATERNION %zu of %zu, COLOR %zu of %zu\n",
                  checked, versions[0], versions[1], off_by_one[1], components[1], off_by_one[2], components[2],
                  off_by_one[4], components[4]);
    assert_int_equal(off_by_one[0] + off_by_one[3], 0);
}

/* ---- the committed vectors ------------------------------------------------------------------ */

/* tests/meshopt/committed.mjs wrote them with the npm package's encoder and its JavaScript
   reference decoder (run by hand, its output committed): version 1 streams and the COLOR filter,
   arbor's own code, need neither npm nor the registry here. */
#define COMMITTED ARBOR_SOURCE_DIR "/tests/meshopt/vectors"

typedef struct committed {
    char name[64], filter[8];
    size_t count, stride;
} committed;

/* The vector of index.txt called name (any, when name is NULL: the i-th); false past the end. */
static bool committed_vector(size_t i, const char *name, committed *v) {
    FILE *f = fopen(COMMITTED "/index.txt", "r");
    if (!f) fail_msg("cannot read %s/index.txt", COMMITTED);
    size_t n = 0;
    bool found = false;
    while (fscanf(f, "%63s %zu %zu %7s", v->name, &v->count, &v->stride, v->filter) == 4)
        if (name ? !strcmp(v->name, name) : n++ == i) {
            found = true;
            break;
        }
    fclose(f);
    return found;
}

/* arbor's decoder, COLOR filter applied: 0 or the codec's code. */
static int committed_decode(const committed *v, unsigned char *out, const unsigned char *in, size_t size) {
    int r = arbor__meshopt_decode_attributes(out, v->count, v->stride, in, size);
    if (r == 0 && !strcmp(v->filter, "COLOR")) arbor__meshopt_color_filter(out, v->count, v->stride);
    return r;
}

static uint64_t fnv1a64(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

static void test_committed_vectors(void **state) {
    (void)state;
    committed v;
    size_t checked = 0, colors = 0;
    for (size_t i = 0; committed_vector(i, NULL, &v); i++) {
        size_t in_size, want_size;
        unsigned char *in = data_file(COMMITTED, v.name, "in", &in_size), *want = data_file(COMMITTED, v.name, "out", &want_size);
        assert_int_equal(want_size, v.count * v.stride);
        assert_int_equal(in[0], 0xa1); /* version 1 */
        unsigned char *ours = calloc(v.count * v.stride, 1);
        int r = committed_decode(&v, ours, in, in_size);
        if (r) fail_msg("%s: arbor's decoder refused it (%d)", v.name, r);
        for (size_t b = 0; b < want_size; b++)
            if (ours[b] != want[b])
                fail_msg("%s: byte %zu (element %zu) is %d, the npm reference decoder says %d", v.name, b, b / v.stride,
                         ours[b], want[b]);
        checked++;
        colors += !strcmp(v.filter, "COLOR");
        free(in);
        free(want);
        free(ours);
    }
    assert_int_equal(checked, 98); /* committed.mjs: 5 patterns x 4 shapes x 4 levels, 6 x 3 COLOR */
    assert_int_equal(colors, 18);
    print_message("%zu committed vectors (%zu with COLOR) decode bit for bit to the npm reference decoder's bytes\n", checked,
                  colors);
}

/* Every single-byte change of a few committed streams: refused with one of the codec's codes
   where the npm decoders refuse it, refused as a bad channel mode where the specification calls
   the mode invalid (the npm decoders do not check it), else decoded to the npm reference
   decoder's bytes (their hash; before any filter, which is unspecified for bytes no encoder
   wrote). */
static void test_committed_mutations(void **state) {
    (void)state;
    static const char *const names[] = {"shorts_s12_n17_l3", "floats_s12_n17_l2", "noise_s12_n17_l1", "color_s8_b12_n16"};
    size_t refused = 0, decoded = 0;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        committed v;
        if (!committed_vector(0, names[k], &v)) fail_msg("%s is not in index.txt", names[k]);
        size_t size;
        unsigned char *in = data_file(COMMITTED, v.name, "in", &size), *copy = malloc(size);
        unsigned char *out = malloc(v.count * v.stride);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s.mut", COMMITTED, v.name);
        FILE *f = fopen(path, "r");
        if (!f) fail_msg("cannot read %s", path);
        size_t b, lines = 0;
        unsigned x;
        char result[24];
        while (fscanf(f, "%zu %u %23s", &b, &x, result) == 3) {
            assert_true(b < size);
            memcpy(copy, in, size);
            copy[b] ^= (unsigned char)x;
            int r = arbor__meshopt_decode_attributes(out, v.count, v.stride, copy, size);
            if (!strcmp(result, "refused")) {
                if (r == 0) fail_msg("%s, byte %zu ^ %u: decoded, the npm decoder refuses it", v.name, b, x);
                assert_in_range(r, ARBOR_MESHOPT_BAD_MODE, ARBOR_MESHOPT_BAD_LAYOUT);
                refused++;
            } else if (!strcmp(result, "invalid")) {
                if (r != ARBOR_MESHOPT_BAD_MODE)
                    fail_msg("%s, byte %zu ^ %u: %d, not refused as a bad channel mode", v.name, b, x, r);
                refused++;
            } else {
                if (r) fail_msg("%s, byte %zu ^ %u: refused (%d), the npm decoder decodes it", v.name, b, x, r);
                char hash[24];
                snprintf(hash, sizeof hash, "%016llx", (unsigned long long)fnv1a64(out, v.count * v.stride));
                if (strcmp(hash, result))
                    fail_msg("%s, byte %zu ^ %u: decoded to %s, the npm decoder to %s", v.name, b, x, hash, result);
                decoded++;
            }
            lines++;
        }
        fclose(f);
        assert_int_equal(lines, 4 * size); /* every byte, four changes each */
        free(in);
        free(copy);
        free(out);
    }
    print_message("%zu single-byte changes: %zu refused (as the npm decoders or the specification's channel modes "
                  "say), %zu decoded to the reference decoder's bytes\n", refused + decoded, refused, decoded);
}

/* ---- world matrices in double, from the file's JSON ----------------------------------------- */

/* The JSON of a .gltf or of a .glb's JSON chunk; with bin (may be NULL) the .glb's BIN chunk. */
static json_t *file_json(const char *path, unsigned char **bin, size_t *bin_size) {
    size_t size = 0;
    char *data = read_file(path, &size);
    if (!data) fail_msg("cannot read %s", path);
    json_error_t je;
    json_t *root;
    if (bin) *bin = NULL;
    if (size >= 20 && !memcmp(data, "glTF", 4)) {
        uint32_t len, chunk;
        memcpy(&len, data + 12, 4);
        root = json_loadb(data + 20, len, 0, &je);
        if (bin && size >= 28 + (size_t)len) {
            memcpy(&chunk, data + 20 + len, 4);
            *bin = malloc(chunk);
            memcpy(*bin, data + 28 + len, chunk);
            *bin_size = chunk;
        }
    } else {
        root = json_loadb(data, size, 0, &je);
    }
    free(data);
    if (!root) fail_msg("%s: %s", path, je.text);
    return root;
}

static double num(json_t *v, double fallback) { return json_is_number(v) ? json_number_value(v) : fallback; }

static void local_matrix(json_t *node, double m[16]) {
    json_t *matrix = json_object_get(node, "matrix");
    if (matrix) {
        for (int k = 0; k < 16; k++) m[k] = num(json_array_get(matrix, (size_t)k), 0);
        return;
    }
    double t[3], q[4], s[3];
    json_t *jt = json_object_get(node, "translation"), *jr = json_object_get(node, "rotation"),
           *js = json_object_get(node, "scale");
    for (int k = 0; k < 3; k++) t[k] = num(json_array_get(jt, (size_t)k), 0), s[k] = num(json_array_get(js, (size_t)k), 1);
    for (int k = 0; k < 4; k++) q[k] = num(json_array_get(jr, (size_t)k), k == 3 ? 1 : 0);
    test_ref_compose(m, t, q, s);
}

/* Every node's world matrix: its ancestors' locals multiplied down (locals[i] may override). */
static double (*world_matrices(json_t *root, double (*locals)[16]))[16] {
    json_t *nodes = json_object_get(root, "nodes");
    size_t n = json_array_size(nodes);
    int64_t *parent = malloc(n * sizeof *parent);
    double(*world)[16] = malloc(n * sizeof *world);
    for (size_t i = 0; i < n; i++) parent[i] = -1;
    for (size_t i = 0; i < n; i++) {
        json_t *kids = json_object_get(json_array_get(nodes, i), "children");
        for (size_t k = 0; k < json_array_size(kids); k++) parent[json_integer_value(json_array_get(kids, k))] = (int64_t)i;
    }
    for (size_t i = 0; i < n; i++) {
        double m[16];
        if (locals) memcpy(m, locals[i], sizeof m);
        else local_matrix(json_array_get(nodes, i), m);
        for (int64_t p = parent[i], steps = 0; p >= 0 && steps < (int64_t)n; p = parent[p], steps++) {
            double up[16];
            if (locals) memcpy(up, locals[p], sizeof up);
            else local_matrix(json_array_get(nodes, (size_t)p), up);
            test_ref_mul(m, up, m);
        }
        memcpy(world[i], m, sizeof m);
    }
    free(parent);
    return world;
}

static void assert_worlds(const loaded *l, double (*want)[16], const char *what) {
    for (uint32_t i = 0; i < arbor_gltf_node_count(l->doc); i++) {
        arbor_real w[16];
        ASSERT_OK(arbor_node_world_matrix(l->s, arbor_gltf_node(l->doc, i), w));
        double scale = 1; /* float rounding is relative to the matrix's largest entry */
        for (int k = 0; k < 16; k++) scale = fmax(scale, fabs(want[i][k]));
        for (int k = 0; k < 16; k++)
            if (fabs((double)w[k] - want[i][k]) > 2e-6 * scale)
                fail_msg("%s: node %u: world[%d] is %.9g, the double product %.9g", what, i, k, (double)w[k], want[i][k]);
    }
}

/* The meshopt and Draco files of ../shared/gltf/extensions (folders meshopt_*, draco_*), sorted. */
static int corpus_files(char paths[16][2 * PATH_MAX]) {
    DIR *top = opendir(EXT_DIR);
    if (!top) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(top));) {
        if (strncmp(e->d_name, "meshopt_", 8) && strncmp(e->d_name, "draco_", 6)) continue;
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", EXT_DIR, e->d_name);
        DIR *d = opendir(dir);
        for (struct dirent *f; d && (f = readdir(d)) && n < 16;)
            if (ends_with(f->d_name, ".gltf") || ends_with(f->d_name, ".glb"))
                snprintf(paths[n++], 2 * PATH_MAX, "%s/%s", dir, f->d_name);
        if (d) closedir(d);
    }
    closedir(top);
    qsort(paths, (size_t)n, 2 * PATH_MAX, (int (*)(const void *, const void *))strcmp);
    return n;
}

static void test_corpus_loads(void **state) {
    (void)state;
    char paths[16][2 * PATH_MAX];
    int n = corpus_files(paths);
    if (n == 0) TEST_SKIP_SHARED(EXT_DIR);
    assert_true(n >= 7);
    for (int i = 0; i < n; i++) {
        loaded l = load_ok(paths[i]);
        json_t *root = file_json(paths[i], NULL, NULL);
        double(*want)[16] = world_matrices(root, NULL);
        assert_int_equal(arbor_gltf_node_count(l.doc), json_array_size(json_object_get(root, "nodes")));
        assert_worlds(&l, want, paths[i]);
        free(want);
        json_decref(root);
        unload(&l);
    }
}

/* ---- make.mjs's files against their plain twins ------------------------------------------------ */

/* Inverse bind matrices, animation data and bounds: bit for bit the same. */
static void assert_same_data(const loaded *a, const loaded *b, const char *what) {
    float ia[32], ib[32];
    arbor_node ja[2], jb[2], sa, sb;
    uint32_t na = 0, nb = 0;
    ASSERT_OK(arbor_gltf_skin(a->doc, 0, ja, ia, 2, &sa, &na));
    ASSERT_OK(arbor_gltf_skin(b->doc, 0, jb, ib, 2, &sb, &nb));
    assert_int_equal(na, 2);
    assert_int_equal(nb, 2);
    if (memcmp(ia, ib, sizeof ia)) fail_msg("%s: the inverse bind matrices differ", what);
    assert_true(ia[15] == 1 && ia[16] == 0.5f); /* decoded, not identity */
    arbor_clip *ca, *cb;
    ASSERT_OK(arbor_gltf_clip(a->doc, 0, NULL, &ca));
    ASSERT_OK(arbor_gltf_clip(b->doc, 0, NULL, &cb));
    assert_int_equal(arbor_clip_channel_count(ca), 2);
    assert_int_equal(arbor_clip_channel_count(cb), 2);
    for (uint32_t c = 0; c < 2; c++) {
        arbor_channel_desc da, db;
        ASSERT_OK(arbor_clip_channel(ca, c, &da));
        ASSERT_OK(arbor_clip_channel(cb, c, &db));
        assert_int_equal(da.key_count, db.key_count);
        uint32_t width = da.path == ARBOR_ANIM_ROTATION ? 4 : 3;
        if (memcmp(da.times, db.times, da.key_count * sizeof *da.times) ||
            memcmp(da.values, db.values, (size_t)da.key_count * width * sizeof *da.values))
            fail_msg("%s: animation channel %u differs", what, c);
    }
    arbor_clip_destroy(ca);
    arbor_clip_destroy(cb);
    arbor_real lo_a[3], hi_a[3], lo_b[3], hi_b[3];
    ASSERT_OK(arbor_node_bounds(a->s, arbor_gltf_node(a->doc, 3), lo_a, hi_a));
    ASSERT_OK(arbor_node_bounds(b->s, arbor_gltf_node(b->doc, 3), lo_b, hi_b));
    assert_true(lo_a[0] <= hi_a[0] && lo_b[0] <= hi_b[0]);
    assert_memory_equal(lo_a, lo_b, sizeof lo_a);
    assert_memory_equal(hi_a, hi_b, sizeof hi_a);
}

/* Accessor `index`'s element e, component c, from the plain twin's own bytes (read here). */
static double twin_value(json_t *root, const unsigned char *bin, size_t index, size_t e, size_t c) {
    json_t *A = json_array_get(json_object_get(root, "accessors"), index);
    json_t *V = json_array_get(json_object_get(root, "bufferViews"), (size_t)json_integer_value(json_object_get(A, "bufferView")));
    int ctype = (int)json_integer_value(json_object_get(A, "componentType"));
    const char *type = json_string_value(json_object_get(A, "type"));
    size_t ncomp = !strcmp(type, "VEC4") ? 4 : !strcmp(type, "VEC3") ? 3 : 1, size = ctype == 5122 ? 2 : 4;
    size_t stride = json_object_get(V, "byteStride") ? (size_t)json_integer_value(json_object_get(V, "byteStride")) : ncomp * size;
    const unsigned char *p = bin + json_integer_value(json_object_get(V, "byteOffset")) + e * stride + c * size;
    if (ctype == 5122) {
        int16_t v;
        memcpy(&v, p, 2);
        return fmax(v / 32767.0, -1.0);
    }
    float f;
    memcpy(&f, p, 4);
    return f;
}

/* At every keyframe, the posed world matrices are the double product of the twin's data. */
static void assert_posed_worlds(const loaded *l, const char *twin_path, const char *what) {
    json_t *root = file_json(twin_path, NULL, NULL);
    char bin_path[PATH_MAX];
    snprintf(bin_path, sizeof bin_path, "%.*s.bin", (int)(strlen(twin_path) - 5), twin_path);
    unsigned char *bin = (unsigned char *)read_file(bin_path, NULL);
    assert_non_null(bin);
    json_t *anim = json_array_get(json_object_get(root, "animations"), 0);
    json_t *samplers = json_object_get(anim, "samplers");
    size_t input = (size_t)json_integer_value(json_object_get(json_array_get(samplers, 0), "input"));
    size_t move = (size_t)json_integer_value(json_object_get(json_array_get(samplers, 0), "output"));
    size_t turn = (size_t)json_integer_value(json_object_get(json_array_get(samplers, 1), "output"));
    size_t keys = (size_t)json_integer_value(json_object_get(json_array_get(json_object_get(root, "accessors"), input), "count"));
    json_t *nodes = json_object_get(root, "nodes");
    size_t n = json_array_size(nodes);
    double(*locals)[16] = malloc(n * sizeof *locals);
    arbor_clip *clip;
    ASSERT_OK(arbor_gltf_clip(l->doc, 0, NULL, &clip));
    arbor_node rig[8];
    for (uint32_t i = 0; i < n; i++) rig[i] = arbor_gltf_node(l->doc, i);
    arbor_player *player;
    ASSERT_OK(arbor_player_create(clip, l->s, rig, (uint32_t)n, &player));
    for (size_t k = 0; k < keys; k++) {
        for (size_t i = 0; i < n; i++) local_matrix(json_array_get(nodes, i), locals[i]);
        double t[3], q[4], s[3] = {1, 1, 1};
        for (size_t c = 0; c < 3; c++) t[c] = twin_value(root, bin, move, k, c);
        for (size_t c = 0; c < 4; c++) q[c] = twin_value(root, bin, turn, k, c);
        test_ref_compose(locals[1], t, q, s);
        ASSERT_OK(arbor_player_apply(player, twin_value(root, bin, input, k, 0), ARBOR_WRAP_CLAMP));
        arbor_scene_update(l->s);
        double(*want)[16] = world_matrices(root, locals);
        char where[PATH_MAX + 64];
        snprintf(where, sizeof where, "%.4000s at keyframe %zu", what, k);
        assert_worlds(l, want, where);
        free(want);
    }
    arbor_player_destroy(player);
    arbor_clip_destroy(clip);
    free(locals);
    free(bin);
    json_decref(root);
}

/* The compressed bytes of every compressed view of a file (in its buffers, as written). */
static unsigned char *compressed_bytes(const char *path, json_t *root, const unsigned char *bin, size_t view,
                                       size_t *size) {
    json_t *V = json_array_get(json_object_get(root, "bufferViews"), view);
    json_t *exts = json_object_get(V, "extensions");
    json_t *E = json_object_get(exts, "KHR_meshopt_compression");
    if (!E) E = json_object_get(exts, "EXT_meshopt_compression");
    if (!E) return NULL;
    json_t *B = json_array_get(json_object_get(root, "buffers"), (size_t)json_integer_value(json_object_get(E, "buffer")));
    const char *uri = json_string_value(json_object_get(B, "uri"));
    size_t offset = (size_t)num(json_object_get(E, "byteOffset"), 0);
    *size = (size_t)json_integer_value(json_object_get(E, "byteLength"));
    unsigned char *out = malloc(*size);
    if (uri) {
        char file[2 * PATH_MAX];
        snprintf(file, sizeof file, "%.*s/%s", (int)(strrchr(path, '/') - path), path, uri);
        unsigned char *data = (unsigned char *)read_file(file, NULL);
        if (!data) fail_msg("%s: cannot read %s", path, file);
        memcpy(out, data + offset, *size);
        free(data);
    } else {
        assert_non_null(bin);
        memcpy(out, bin + offset, *size);
    }
    return out;
}

/* written is source saved by arbor: every compressed view's bytes are the same. */
static void assert_compressed_kept(const char *source, const char *written) {
    unsigned char *bin_a, *bin_b;
    size_t size_a = 0, size_b = 0;
    json_t *a = file_json(source, &bin_a, &size_a), *b = file_json(written, &bin_b, &size_b);
    size_t views = json_array_size(json_object_get(a, "bufferViews")), compressed = 0;
    assert_int_equal(views, json_array_size(json_object_get(b, "bufferViews")));
    for (size_t v = 0; v < views; v++) {
        size_t na, nb;
        unsigned char *pa = compressed_bytes(source, a, bin_a, v, &na), *pb = compressed_bytes(written, b, bin_b, v, &nb);
        assert_true(!pa == !pb);
        if (pa && (na != nb || memcmp(pa, pb, na))) fail_msg("%s: bufferView %zu's compressed bytes changed", written, v);
        compressed += pa != NULL;
        free(pa);
        free(pb);
    }
    assert_true(compressed > 0);
    free(bin_a);
    free(bin_b);
    json_decref(a);
    json_decref(b);
}

static void test_generated_files(void **state) {
    (void)state;
    if (!have_vectors()) skip();
    const char *names[] = {"khr", "ext"};
    for (int f = 0; f < 2; f++) {
        char path[PATH_MAX], twin[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s.gltf", VECTORS, names[f]);
        snprintf(twin, sizeof twin, "%s/%s_plain.gltf", VECTORS, names[f]);
        loaded a = load_ok(path), b = load_ok(twin);
        assert_same_data(&a, &b, path);
        assert_posed_worlds(&a, twin, path);
        unload(&a);
        unload(&b);
    }
}

/* ---- round trips --------------------------------------------------------------------------------- */

static void round_trip(const char *source, const char *twin, const char *out_name) {
    static const char *const kinds[] = {"gltf", "glb"};
    loaded a = load_ok(source);
    json_t *root = file_json(source, NULL, NULL);
    double(*want)[16] = world_matrices(root, NULL);
    for (int k = 0; k < 2; k++) {
        char dir[PATH_MAX], path[2 * PATH_MAX + 8];
        snprintf(dir, sizeof dir, "%s/%s", OUT_DIR, out_name);
        make_dir(dir);
        snprintf(path, sizeof path, "%s/%.64s.%s", dir, out_name, kinds[k]);
        if (arbor_gltf_save(a.s, a.doc, path, NULL)) fail_msg("saving %s: %s", path, arbor_last_error());
        loaded b = load_ok(path);
        assert_worlds(&b, want, path);
        if (twin) {
            loaded t = load_ok(twin);
            assert_same_data(&b, &t, path);
            unload(&t);
        }
        if (!strstr(source, "/draco_")) assert_compressed_kept(source, path);
        unload(&b);
    }
    free(want);
    json_decref(root);
    unload(&a);
}

static void test_round_trips(void **state) {
    (void)state;
    char paths[16][2 * PATH_MAX];
    int n = corpus_files(paths);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "corpus%d", i);
        round_trip(paths[i], NULL, name);
    }
    if (!have_vectors()) skip();
    round_trip(VECTORS "/khr.gltf", VECTORS "/khr_plain.gltf", "khr");
    round_trip(VECTORS "/ext.gltf", VECTORS "/ext_plain.gltf", "ext");
}

/* ---- bad files ------------------------------------------------------------------------------------ */

typedef struct bad_case {
    const char *file;  /* khr or ext */
    const char *path;  /* JSON pointer of the member to change, from the root */
    const char *value; /* its new value (JSON), NULL: remove it */
    const char *where; /* the pointer the refusal names */
    const char *why;   /* and words of its reason */
} bad_case;

static json_t *member_parent(json_t *root, const char *pointer, char *key) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", pointer);
    char *last = strrchr(buf, '/');
    snprintf(key, 64, "%s", last + 1);
    *last = 0;
    json_t *v = root;
    for (char *tok = strtok(buf, "/"); tok; tok = strtok(NULL, "/"))
        v = json_is_array(v) ? json_array_get(v, strtoul(tok, NULL, 10)) : json_object_get(v, tok);
    assert_non_null(v);
    return v;
}

static void test_bad_files(void **state) {
    (void)state;
    if (!have_vectors()) skip();
    static const bad_case cases[] = {
        {"khr", "/bufferViews/0/extensions/KHR_meshopt_compression/mode", "\"STRIPS\"",
         "/bufferViews/0/extensions/KHR_meshopt_compression/mode", "is not ATTRIBUTES"},
        {"khr", "/bufferViews/1/extensions/KHR_meshopt_compression/filter", "\"QUATERNION\"",
         "/bufferViews/1/extensions/KHR_meshopt_compression/byteStride", "must be 8 for QUATERNION"},
        {"khr", "/bufferViews/0/extensions/KHR_meshopt_compression/byteStride", "6",
         "/bufferViews/0/extensions/KHR_meshopt_compression/byteStride", "multiple of 4"},
        {"khr", "/bufferViews/0/extensions/KHR_meshopt_compression/count", "9",
         "/bufferViews/0/extensions/KHR_meshopt_compression/count", "are not bufferView 0's byteLength"},
        {"khr", "/bufferViews/4/extensions/KHR_meshopt_compression/count", "35",
         "/bufferViews/4/extensions/KHR_meshopt_compression/byteStride", "multiple of 3"},
        {"khr", "/bufferViews/4/extensions/KHR_meshopt_compression/filter", "\"OCTAHEDRAL\"",
         "/bufferViews/4/extensions/KHR_meshopt_compression/byteStride", "take no filter"},
        {"khr", "/bufferViews/5/extensions/KHR_meshopt_compression/byteOffset", "1",
         "/bufferViews/5/extensions/KHR_meshopt_compression:", "header byte"},
        {"khr", "/bufferViews/0/extensions/KHR_meshopt_compression/byteLength", "20",
         "/bufferViews/0/extensions/KHR_meshopt_compression:", "does not decode"},
        {"khr", "/bufferViews/0/extensions/KHR_meshopt_compression/byteLength", "1000000",
         "/bufferViews/0/extensions/KHR_meshopt_compression/byteLength", "do not fit buffer 0"},
        {"khr", "/bufferViews/0/extensions/KHR_meshopt_compression/buffer", "1",
         "/bufferViews/0/extensions/KHR_meshopt_compression/buffer", "fallback buffer"},
        {"khr", "/bufferViews/0/extensions", NULL, "/bufferViews/0/buffer", "only compressed bufferViews"},
        {"khr", "/buffers/1/extensions/KHR_meshopt_compression/fallback", "\"yes\"",
         "/buffers/1/extensions/KHR_meshopt_compression/fallback", "boolean"},
        {"khr", "/extensionsRequired", "[\"KHR_mesh_quantization\"]", "/buffers/1:", "extensionsRequired"},
        {"khr", "/bufferViews/2/extensions/EXT_meshopt_compression", "{}", "/bufferViews/2/extensions:",
         "cannot both compress"},
        {"khr", "/bufferViews/3/extensions/KHR_meshopt_compression/mode", NULL,
         "/bufferViews/3/extensions/KHR_meshopt_compression:", "mode is required"},
        /* the decoded positions are scanned: a max the data does not reach */
        {"khr", "/accessors/0/max/2", "3001", "/accessors/0/max/2", "max is 3001 but the largest value is 3000"},
        {"ext", "/bufferViews/1/extensions/EXT_meshopt_compression/filter", "\"COLOR\"",
         "/bufferViews/1/extensions/EXT_meshopt_compression/filter", "is not one of EXT_meshopt_compression's"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const bad_case *c = &cases[i];
        char source[PATH_MAX], path[PATH_MAX], key[64];
        snprintf(source, sizeof source, "%s/%s.gltf", VECTORS, c->file);
        snprintf(path, sizeof path, "%s/bad_%zu.gltf", VECTORS, i);
        json_t *root = file_json(source, NULL, NULL);
        if (strstr(c->path, "EXT_meshopt_compression") && !strcmp(c->file, "khr"))
            json_array_append_new(json_object_get(root, "extensionsUsed"), json_string("EXT_meshopt_compression"));
        json_t *parent = member_parent(root, c->path, key);
        if (!c->value) {
            assert_int_equal(json_object_del(parent, key), 0);
        } else {
            json_t *v = json_loads(c->value, JSON_DECODE_ANY, NULL);
            assert_non_null(v);
            if (json_is_array(parent)) json_array_set_new(parent, strtoul(key, NULL, 10), v);
            else json_object_set_new(parent, key, v);
        }
        assert_int_equal(json_dump_file(root, path, 0), 0);
        json_decref(root);
        /* strict: refused with the file, the pointer and the reason; nothing loaded */
        arbor_scene *s = NULL;
        ASSERT_OK(arbor_scene_create(NULL, &s));
        arbor_gltf *doc = NULL;
        arbor_result r = arbor_gltf_load(s, path, NULL, &doc);
        const char *message = arbor_last_error();
        char want[2 * PATH_MAX];
        snprintf(want, sizeof want, "%s: %s", path, c->where);
        if (r != ARBOR_ERR_PARSE || doc || !strstr(message, want) || !strstr(message, c->why))
            fail_msg("case %zu: %s (%s), wanted \"%s\" and \"%s\"", i, message, arbor_result_string(r), want, c->why);
        assert_int_equal(arbor_scene_node_count(s), 0);
        arbor_scene_destroy(s);
        /* lenient: loaded, with a warning */
        log_count log = {0};
        arbor_scene_desc d = {0};
        d.log = count_log;
        d.log_user = &log;
        ASSERT_OK(arbor_scene_create(&d, &s));
        arbor_gltf_options o = ARBOR_GLTF_OPTIONS_DEFAULT;
        o.lenient = true;
        r = arbor_gltf_load(s, path, &o, &doc);
        if (r != ARBOR_OK) fail_msg("case %zu, lenient: %s", i, arbor_last_error());
        assert_true(log.warnings > 0);
        assert_int_equal(arbor_scene_node_count(s), 4);
        arbor_gltf_destroy(doc);
        arbor_scene_destroy(s);
    }
}

/* A few compressed bytes that claim 800 MB of vertices: refused before anything is allocated
   (the test's allocator would see it: it refuses blocks over 64 MB). */
static void *no_big_blocks(void *user, size_t size) {
    (void)user;
    return size > (64u << 20) ? NULL : malloc(size);
}
static void *no_big_realloc(void *user, void *p, size_t old, size_t size) {
    (void)user;
    (void)old;
    return size > (64u << 20) ? NULL : realloc(p, size);
}
static void plain_free(void *user, void *p, size_t size) {
    (void)user;
    (void)size;
    free(p);
}

static void test_claimed_size(void **state) {
    (void)state;
    if (!have_vectors()) skip();
    json_t *root = file_json(VECTORS "/khr.gltf", NULL, NULL);
    json_t *view = json_array_get(json_object_get(root, "bufferViews"), 0);
    json_t *ext = json_object_get(json_object_get(view, "extensions"), "KHR_meshopt_compression");
    json_object_set_new(json_array_get(json_object_get(root, "buffers"), 1), "byteLength", json_integer(900000000));
    json_object_set_new(view, "byteOffset", json_integer(0));
    json_object_set_new(view, "byteLength", json_integer(800000000));
    json_object_set_new(ext, "count", json_integer(100000000));
    assert_int_equal(json_dump_file(root, VECTORS "/claims.gltf", 0), 0);
    json_decref(root);
    arbor_scene_desc d = {0};
    d.allocator = (arbor_allocator){.alloc = no_big_blocks, .realloc = no_big_realloc, .free = plain_free};
    arbor_scene *s = NULL;
    ASSERT_OK(arbor_scene_create(&d, &s));
    arbor_gltf *doc = NULL;
    assert_int_equal(arbor_gltf_load(s, VECTORS "/claims.gltf", NULL, &doc), ARBOR_ERR_PARSE);
    const char *message = arbor_last_error();
    if (!strstr(message, "/bufferViews/0/extensions/KHR_meshopt_compression: ") || !strstr(message, "cannot hold"))
        fail_msg("%s", message);
    arbor_scene_destroy(s);
}

/* Every truncation and every single-byte change of make.mjs's streams: decoded or refused,
   never a read outside them (ASan watches the stream's own allocation). */
static void test_damaged_streams(void **state) {
    (void)state;
    if (!have_vectors()) skip();
    const char *names[] = {"mixed_s16_n300_v1_l3", "noise_s12_n17_v1_l1", "floats_s36_n256_v1_l2", "color_s8_b12_n16"};
    size_t refused = 0, tried = 0;
    for (int v = 0; v < 4; v++) {
        size_t size;
        unsigned char *in = data_file(VECTORS, names[v], "in", &size);
        size_t count = v == 0 ? 300 : v == 1 ? 17 : v == 2 ? 256 : 16, stride = v == 0 ? 16 : v == 1 ? 12 : v == 2 ? 36 : 8;
        unsigned char *out = malloc(count * stride);
        for (size_t n = 0; n < size; n++) { /* truncated: always refused */
            unsigned char *copy = malloc(n ? n : 1);
            memcpy(copy, in, n);
            int r = arbor__meshopt_decode_attributes(out, count, stride, copy, n);
            if (r == 0) fail_msg("%s cut to %zu bytes decoded", names[v], n);
            free(copy);
            refused++, tried++;
        }
        free(out);
        free(in);
    }
    /* single-byte changes of version 0 streams: refused where libmeshoptimizer refuses them,
       else its bytes (version 1 and COLOR: test_committed_mutations, against the npm decoder) */
    const char *v0[] = {"mixed_s16_n300_v0_l2", "noise_s12_n17_v0_l2"};
    size_t count[] = {300, 17}, stride[] = {16, 12};
    for (int v = 0; v < 2; v++) {
        size_t size, n = count[v] * stride[v];
        unsigned char *in = data_file(VECTORS, v0[v], "in", &size), *copy = malloc(size), *ours = malloc(n), *lib = malloc(n);
        assert_int_equal(in[0], 0xa0);
        for (size_t b = 0; b < size; b++)
            for (unsigned x = 1; x < 256; x += 37) {
                memcpy(copy, in, size);
                copy[b] ^= (unsigned char)x;
                int r = arbor__meshopt_decode_attributes(ours, count[v], stride[v], copy, size);
                int want = meshopt_decodeVertexBuffer(lib, count[v], stride[v], copy, size);
                if ((r != 0) != (want != 0))
                    fail_msg("%s, byte %zu ^ %u: arbor %d, libmeshoptimizer %d", v0[v], b, x, r, want);
                if (r) assert_in_range(r, ARBOR_MESHOPT_BAD_MODE, ARBOR_MESHOPT_BAD_LAYOUT);
                else if (memcmp(ours, lib, n)) fail_msg("%s, byte %zu ^ %u: arbor and libmeshoptimizer differ", v0[v], b, x);
                refused += r != 0;
                tried++;
            }
        free(in);
        free(copy);
        free(ours);
        free(lib);
    }
    print_message("%zu damaged streams, %zu refused (every cut, and every change libmeshoptimizer refuses)\n", tried,
                  refused);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codec_vectors),
        cmocka_unit_test(test_committed_vectors),
        cmocka_unit_test(test_committed_mutations),
        cmocka_unit_test(test_corpus_loads),
        cmocka_unit_test(test_generated_files),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_damaged_streams),
        cmocka_unit_test(test_claimed_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
