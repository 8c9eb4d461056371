/* SPDX-License-Identifier: MIT */
/*
 * Tests of the glTF loader (include/arbor/gltf.h: arbor_gltf_load, arbor_gltf_load_memory and the
 * document's queries).
 *
 * - The Khronos validator's own test files (shared/gltf/invalid): a file whose expected report
 *   has an error is refused, the scene unchanged, the message naming the file and one of the
 *   report's JSON pointers; a file without errors loads. Lenient loads of every file, too.
 * - Every sample of shared/gltf/samples: node counts, names, sibling order, locked matrices,
 *   cameras, lights, mesh bounds, skins, and every node's world matrix against a product computed
 *   here in double from the file's own numbers (read with jansson, not with arbor).
 * - Files written by the test: data: URIs and sparse accessors, GLB framing errors at each offset,
 *   URIs leaving the folder, a million-deep chain, huge counts in a tiny file, lenient repairs seen
 *   through the log hook, atomic loads under failing allocations, required extensions.
 *
 * The shared files are found at ARBOR_SHARED_DIR "/gltf"; tests that need them are skipped with a
 * message when that folder is absent. Files written go to ARBOR_TEST_OUTPUT_DIR "/gltf_load".
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdir, symlink */
#include "test_samples.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "arbor/gltf.h"

#define GLTF_DIR ARBOR_SHARED_DIR "/gltf"
#define OUT_DIR ARBOR_TEST_OUTPUT_DIR "/gltf_load"
#define PI 3.14159265358979323846

#if ARBOR_REAL_IS_DOUBLE
#define WORLD_TOL 1e-9
#define VALUE_TOL 1e-12
#else
#define WORLD_TOL 2e-5
#define VALUE_TOL 1e-6
#endif

/* ---- helpers --------------------------------------------------------------------------------- */

static bool have_shared(void)
{
    struct stat st;
    return stat(GLTF_DIR, &st) == 0 && S_ISDIR(st.st_mode);
}
#define NEED_SHARED()                                     \
    do {                                                  \
        if (!have_shared()) TEST_SKIP_SHARED(GLTF_DIR);   \
    } while (0)

static void write_all(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

static void write_text(const char *path, const char *text) { write_all(path, text, strlen(text)); }

/* The JSON of a .gltf or .glb, parsed by jansson here (not by arbor). */
static json_t *file_json(const char *path)
{
    size_t size = 0;
    char *data = read_file(path, &size);
    assert_non_null(data);
    json_error_t je;
    json_t *root;
    if (size >= 20 && !memcmp(data, "glTF", 4)) {
        uint32_t len;
        memcpy(&len, data + 12, 4);
        root = json_loadb(data + 20, len, 0, &je);
    } else {
        root = json_loadb(data, size, 0, &je);
    }
    free(data);
    assert_non_null(root);
    return root;
}

static double num(json_t *v, double fallback) { return json_is_number(v) ? json_number_value(v) : fallback; }

/* A log hook that keeps the warnings. */
typedef struct log_capture {
    int warnings;
    char first[512];
} log_capture;

static void capture_log(void *user, arbor_log_level level, const char *message)
{
    log_capture *c = user;
    if (level != ARBOR_LOG_WARN) return;
    if (c->warnings++ == 0) snprintf(c->first, sizeof c->first, "%s", message);
}

static arbor_scene *new_scene(log_capture *log)
{
    arbor_scene_desc d = { 0 };
    d.log = capture_log;
    d.log_user = log;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&d, &s), ARBOR_OK);
    assert_non_null(s);
    return s;
}

/* Loads text (a .gltf) from memory. */
static arbor_result load_text(arbor_scene *s, const char *json, const arbor_gltf_options *o, arbor_gltf **doc)
{
    return arbor_gltf_load_memory(s, json, strlen(json), OUT_DIR, o, doc);
}

/* Expects a refusal with code, nothing added to s, and a message holding each of the strings. */
static void expect_refused_(arbor_scene *s, const char *json, const arbor_gltf_options *o, arbor_result code,
                            const char *has1, const char *has2, const char *file, int line)
{
    uint32_t before = arbor_scene_node_count(s);
    arbor_gltf *doc = (arbor_gltf *)1;
    arbor_result r = load_text(s, json, o, &doc);
    arbor_error_info e = arbor_last_error_info();
    if (r != code || e.code != code || doc != NULL || arbor_scene_node_count(s) != before ||
        strncmp(e.message, "arbor_gltf_load_memory: ", 24) != 0 || strcmp(e.file, "") != 0 ||
        (has1 && !strstr(e.message, has1)) || (has2 && !strstr(e.message, has2))) {
        print_error("load returned %d (%s), expected %d; message \"%s\", wanted \"%s\" and \"%s\"\n", (int)r,
                    arbor_result_string(r), (int)code, arbor_last_error(), has1 ? has1 : "", has2 ? has2 : "");
        _fail(file, line);
    }
}
#define EXPECT_REFUSED(s, json, o, code, has1, has2)                                                                   \
    expect_refused_((s), (json), (o), (code), (has1), (has2), __FILE__, __LINE__)

static arbor_gltf *expect_loaded_(arbor_scene *s, const char *json, const arbor_gltf_options *o, const char *file,
                                  int line)
{
    arbor_gltf *doc = NULL;
    arbor_result r = load_text(s, json, o, &doc);
    if (r != ARBOR_OK || !doc) {
        print_error("load returned %d (%s): %s\n", (int)r, arbor_result_string(r), arbor_last_error());
        _fail(file, line);
    }
    return doc;
}
#define EXPECT_LOADED(s, json, o) expect_loaded_((s), (json), (o), __FILE__, __LINE__)

/* ---- the validator's test files -------------------------------------------------------------- */

typedef struct corpus {
    char (*files)[512];
    size_t count, cap;
} corpus;

static corpus g_corpus;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (type != FTW_F || !(n > 5 && (!strcmp(path + n - 5, ".gltf") || !strcmp(path + n - 4, ".glb")))) return 0;
    char report[600];
    snprintf(report, sizeof report, "%s.report.json", path);
    if (access(report, R_OK) != 0) return 0;
    if (g_corpus.count == g_corpus.cap) {
        g_corpus.cap = g_corpus.cap ? 2 * g_corpus.cap : 256;
        g_corpus.files = realloc(g_corpus.files, g_corpus.cap * sizeof *g_corpus.files);
    }
    snprintf(g_corpus.files[g_corpus.count++], sizeof *g_corpus.files, "%s", path);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

static void load_corpus(void)
{
    if (g_corpus.count) return;
    assert_int_equal(nftw(GLTF_DIR "/invalid", collect, 16, FTW_PHYS), 0);
    qsort(g_corpus.files, g_corpus.count, sizeof *g_corpus.files, by_name);
}

/* A scene whose allocator counts, to see that nothing leaks. */
typedef struct counted_scene {
    test_counting_allocator count;
    arbor_scene *s;
    log_capture log;
} counted_scene;

static void counted_begin(counted_scene *c)
{
    memset(c, 0, sizeof *c);
    arbor_scene_desc d = { 0 };
    d.allocator = test_counting_allocator_hooks(&c->count, true);
    d.log = capture_log;
    d.log_user = &c->log;
    assert_int_equal(arbor_scene_create(&d, &c->s), ARBOR_OK);
    assert_non_null(c->s);
}

static void counted_end(counted_scene *c)
{
    arbor_scene_destroy(c->s);
    assert_int_equal(c->count.live_blocks, 0);
    assert_int_equal(c->count.live_bytes, 0);
    assert_int_equal(c->count.size_mismatches, 0);
}

/* The value at a JSON pointer of plain keys and indices (no ~ escapes), NULL when absent. */
static json_t *at_pointer(json_t *root, const char *ptr)
{
    json_t *v = root;
    char key[128];
    while (v && *ptr == '/') {
        size_t n = strcspn(++ptr, "/");
        if (n >= sizeof key) return NULL;
        memcpy(key, ptr, n);
        key[n] = 0;
        ptr += n;
        v = json_is_array(v) ? json_array_get(v, strtoul(key, NULL, 10)) : json_object_get(v, key);
    }
    return v;
}

/* Where the spec and the validator part: an accessor without bufferView and sparse is zeros (the
   spec), which the validator does not read. Keyframe times or inverse bind matrices of zeros
   break a MUST, so arbor reports them; the validator's reports do not. True when this error is
   one of those, as the file's own JSON shows: its pointer names such an accessor. */
static bool zeros_the_validator_skips(const char *file, const arbor_gltf_message *m)
{
    if (strcmp(m->code, "ACCESSOR_ANIMATION_INPUT_NON_INCREASING") && strcmp(m->code, "ACCESSOR_INVALID_IBM")) return false;
    json_t *root = file_json(file), *index = at_pointer(root, m->pointer);
    json_t *accessor = json_is_integer(index) ? json_array_get(json_object_get(root, "accessors"), json_integer_value(index)) : NULL;
    bool zeros = accessor && !json_object_get(accessor, "bufferView") && !json_object_get(accessor, "sparse");
    json_decref(root);
    return zeros;
}

/* A file the validator finds no error in that arbor refuses: every error arbor reports is one
   of those zeros. */
static bool refused_only_for_zeros(const char *file)
{
    arbor_gltf_message m[16];
    uint32_t count = 0;
    arbor_gltf_validate_messages(file, NULL, m, 16, &count);
    bool any = false;
    for (uint32_t i = 0; i < count && i < 16; i++) {
        if (m[i].severity != 0) continue;
        if (!zeros_the_validator_skips(file, &m[i])) return false;
        any = true;
    }
    return any && count <= 16;
}

static void test_invalid_corpus_strict(void **state)
{
    (void)state;
    NEED_SHARED();
    load_corpus();
    assert_true(g_corpus.count >= 200);
    unsigned refused = 0, loaded = 0, zeros = 0;
    for (size_t f = 0; f < g_corpus.count; f++) {
        const char *path = g_corpus.files[f];
        char report_path[600];
        snprintf(report_path, sizeof report_path, "%s.report.json", path);
        json_t *report = json_load_file(report_path, 0, NULL);
        assert_non_null(report);
        json_t *issues = json_object_get(report, "issues");
        bool has_error = json_integer_value(json_object_get(issues, "numErrors")) > 0;
        bool absolute_uri = strstr(path, "buffer/non_relative_uri.gltf") != NULL;

        counted_scene c;
        counted_begin(&c);
        arbor_gltf *doc = NULL;
        arbor_result r = arbor_gltf_load(c.s, path, NULL, &doc);
        if (!has_error && !absolute_uri) {
            if (r != ARBOR_OK && !(r == ARBOR_ERR_PARSE && refused_only_for_zeros(path)))
                fail_msg("%s has no error in its report but was refused: %s", path, arbor_last_error());
            loaded += r == ARBOR_OK;
            zeros += r != ARBOR_OK;
        } else {
            if (r == ARBOR_OK) fail_msg("%s has an error in its report but loaded", path);
            assert_null(doc);
            assert_int_equal(arbor_last_error_info().code, r);
            assert_int_equal(arbor_scene_node_count(c.s), 0);
            if (strcmp(arbor_last_error_info().file, path) != 0 || strncmp(arbor_last_error(), "arbor_gltf_load: ", 17) != 0 ||
                strncmp(arbor_last_error() + 17, path, strlen(path)) != 0)
                fail_msg("%s: the message does not start with the function and the path: %s", path, arbor_last_error());
            /* The message names one of the report's error pointers (JSON syntax errors give a line and a
               column instead, GLB framing errors a byte offset). */
            bool pointer_named = false, any_pointer = false;
            json_t *m;
            size_t k;
            json_array_foreach(json_object_get(issues, "messages"), k, m)
            {
                const char *ptr = json_string_value(json_object_get(m, "pointer"));
                if (json_integer_value(json_object_get(m, "severity")) != 0 || !ptr || !ptr[0]) continue;
                any_pointer = true;
                pointer_named |= strstr(arbor_last_error(), ptr) != NULL;
            }
            bool syntax = strstr(arbor_last_error(), ": line ") && strstr(arbor_last_error(), ", column ");
            if (any_pointer && !pointer_named && !syntax && !absolute_uri)
                fail_msg("%s: the message names none of the report's pointers: %s", path, arbor_last_error());
            const char *code = NULL;
            json_array_foreach(json_object_get(issues, "messages"), k, m)
            {
                if (!code && json_integer_value(json_object_get(m, "severity")) == 0)
                    code = json_string_value(json_object_get(m, "code"));
            }
            if (code && !strncmp(code, "GLB_", 4) && !strstr(arbor_last_error(), "GLB offset "))
                fail_msg("%s: a GLB framing error without its offset: %s", path, arbor_last_error());
            refused++;
        }
        if (absolute_uri) { /* refused as leaving the folder; allowed, it loads (the http buffer unread) */
            assert_int_equal(r, ARBOR_ERR_IO);
            arbor_gltf_options o = ARBOR_GLTF_OPTIONS_DEFAULT;
            o.allow_outside_uris = true;
            assert_int_equal(arbor_gltf_load(c.s, path, &o, &doc), ARBOR_OK);
        }
        arbor_gltf_destroy(doc);
        counted_end(&c);
        json_decref(report);
    }
    print_message("invalid corpus, strict: %u files refused, %u loaded, %u without errors in their reports refused for "
                  "accessors of zeros the validator does not read\n",
                  refused, loaded, zeros);
}

static void test_invalid_corpus_lenient(void **state)
{
    (void)state;
    NEED_SHARED();
    load_corpus();
    unsigned loaded = 0, refused = 0, repaired = 0;
    for (size_t f = 0; f < g_corpus.count; f++) {
        const char *path = g_corpus.files[f];
        counted_scene c;
        counted_begin(&c);
        arbor_gltf *doc = NULL, *strict_doc = NULL;
        arbor_gltf_options o = ARBOR_GLTF_OPTIONS_DEFAULT;
        o.lenient = true;
        arbor_result r = arbor_gltf_load(c.s, path, &o, &doc);
        arbor_result reported = arbor_last_error_info().code;
        uint32_t lenient_nodes = arbor_scene_node_count(c.s);
        int warnings = c.log.warnings;
        arbor_result rs = arbor_gltf_load(c.s, path, NULL, &strict_doc);
        /* broken JSON and GLB framing fail in both modes */
        if (rs != ARBOR_OK && (strstr(arbor_last_error(), "GLB offset ") || strstr(arbor_last_error(), ", column ")))
            assert_int_not_equal(r, ARBOR_OK);
        if (r == ARBOR_OK) {
            loaded++;
            assert_non_null(doc);
            assert_int_equal(arbor_gltf_node_count(doc), lenient_nodes);
            if (rs == ARBOR_ERR_PARSE) { /* what strict mode refused, a lenient load said as a warning */
                assert_true(warnings > 0);
                repaired++;
            }
        } else {
            refused++;
            assert_null(doc);
            assert_int_equal(reported, r);
            assert_int_equal(lenient_nodes, 0);
        }
        arbor_gltf_destroy(doc);
        arbor_gltf_destroy(strict_doc);
        counted_end(&c);
    }
    print_message("invalid corpus, lenient: %u files loaded (%u of them with warnings strict mode refuses), %u "
                  "refused\n",
                  loaded, repaired, refused);
}

/* ---- samples --------------------------------------------------------------------------------- */

static const struct sample {
    const char *path;
    uint32_t nodes;
} samples[] = {
    { "2CylinderEngine/2CylinderEngine.glb", 82 },
    { "VC/VC.gltf", 234 },
    { "RiggedFigure/RiggedFigure.glb", 22 },
    { "BoxAnimated/BoxAnimated.glb", 4 },
    { "AnimatedTriangle/AnimatedTriangle.gltf", 1 },
    { "SimpleSkin/SimpleSkin.gltf", 3 },
    { "Fox/Fox.glb", 26 },
    { "Cameras/Cameras.gltf", 3 },
    { "MultipleScenes/MultipleScenes.gltf", 2 },
    { "BlenderIO_24_animation_pointer/24_animation_pointer.gltf", 64 },
    { "BlenderIO_06_parent-inverse-anim/06_parent-inverse-anim.gltf", 12 },
    { "BlenderIO_03_skinned_cylinder/03_skinned_cylinder.gltf", 8 },
    { "BlenderIO_02_node_hierarchy/02_node_hierarchy.gltf", 3 },
    { "BlenderIO_00_empty_scene/00_empty_scene.gltf", 1 },
    { "BlenderIO_00_no_scenes/00_no_scenes.gltf", 1 },
    { "bevy_animated_camera_and_light/animated_camera_and_light.glb", 8 },
    { "bevy_PalmTree/PalmTree.gltf", 24 },
    { "raylib_robot/robot.glb", 58 },
    { "gltf-transform_many-cubes/many-cubes.gltf", 506 },
};

/* The node's local matrix from the file's numbers, in double. */
static void json_local(json_t *node, double out[16])
{
    json_t *m = json_object_get(node, "matrix");
    if (m) {
        for (int i = 0; i < 16; i++) out[i] = num(json_array_get(m, (size_t)i), 0);
        return;
    }
    json_t *t = json_object_get(node, "translation"), *r = json_object_get(node, "rotation"),
           *s = json_object_get(node, "scale");
    double tv[3], rv[4], sv[3];
    for (int i = 0; i < 3; i++) {
        tv[i] = num(json_array_get(t, (size_t)i), 0);
        sv[i] = num(json_array_get(s, (size_t)i), 1);
    }
    for (int i = 0; i < 4; i++) rv[i] = num(json_array_get(r, (size_t)i), i == 3 ? 1 : 0);
    test_ref_compose(out, tv, rv, sv);
}

/* Checks what the document and the scene hold against the file's JSON, node by node. */
static void check_against_json(arbor_scene *s, const arbor_gltf *doc, json_t *root, const char *what)
{
    json_t *nodes = json_object_get(root, "nodes");
    size_t n = json_array_size(nodes);
    assert_int_equal(arbor_gltf_node_count(doc), n);
    int64_t *parent = malloc((n ? n : 1) * sizeof *parent);
    for (size_t i = 0; i < n; i++) parent[i] = -1;
    for (size_t i = 0; i < n; i++) {
        json_t *c;
        size_t k;
        json_array_foreach(json_object_get(json_array_get(nodes, i), "children"), k, c) parent[json_integer_value(c)] =
            (int64_t)i;
    }
    json_t *accessors = json_object_get(root, "accessors"), *meshes = json_object_get(root, "meshes"),
           *cameras = json_object_get(root, "cameras"),
           *lights =
               json_object_get(json_object_get(json_object_get(root, "extensions"), "KHR_lights_punctual"), "lights");
    for (size_t i = 0; i < n; i++) {
        json_t *node = json_array_get(nodes, i);
        arbor_node h = arbor_gltf_node(doc, (uint32_t)i);
        assert_int_not_equal(h.id, 0);
        assert_int_equal(arbor_gltf_index(doc, h), (int64_t)i);
        /* name, parent, children in order */
        const char *name = json_string_value(json_object_get(node, "name")), *got = arbor_node_name(s, h);
        if (name ? !got || strcmp(name, got) : got != NULL)
            fail_msg("%s: node %zu is named %s", what, i, got ? got : "(none)");
        ASSERT_NODE_EQ(arbor_node_parent(s, h), parent[i] < 0 ? ARBOR_NONE : arbor_gltf_node(doc, (uint32_t)parent[i]));
        arbor_node child = arbor_node_first_child(s, h);
        json_t *c;
        size_t k;
        json_array_foreach(json_object_get(node, "children"), k, c)
        {
            ASSERT_NODE_EQ(child, arbor_gltf_node(doc, (uint32_t)json_integer_value(c)));
            child = arbor_node_next_sibling(s, child);
        }
        ASSERT_NODE_NONE(child);
        /* glTF matrices are locked matrix-backed nodes (these are all TRS-decomposable) */
        bool matrix = json_object_get(node, "matrix") != NULL;
        assert_int_equal(arbor_node_is_matrix_backed(s, h), matrix);
        assert_int_equal(arbor_node_is_locked(s, h), matrix);
        /* the world matrix: the product of the file's locals up the parent chain, in double */
        double world[16], local[16], tmp[16];
        json_local(node, world);
        for (int64_t p = parent[i], steps = 0; p >= 0 && steps < (int64_t)n; p = parent[p], steps++) {
            json_local(json_array_get(nodes, (size_t)p), local);
            test_ref_mul(tmp, local, world);
            memcpy(world, tmp, sizeof tmp);
        }
        double scale = 1;
        for (int e = 0; e < 16; e++) scale = fabs(world[e]) > scale ? fabs(world[e]) : scale;
        arbor_real w[16];
        TEST_WORLD(s, h, w);
        for (int e = 0; e < 16; e++)
            if (!(fabs((double)w[e] - world[e]) <= WORLD_TOL * scale))
                fail_msg("%s: node %zu world element %d is %.9g, the file's product is %.9g", what, i, e, (double)w[e],
                         world[e]);
        /* mesh and the box of its POSITION accessors' min and max */
        json_t *mesh = json_object_get(node, "mesh");
        assert_int_equal(arbor_node_mesh(s, h), mesh ? (int32_t)json_integer_value(mesh) : -1);
        arbor_real lo[3], hi[3];
        ASSERT_OK(arbor_node_bounds(s, h, lo, hi));
        bool has = lo[0] <= hi[0]; /* none: an empty box */
        if (mesh) {
            double elo[3] = { INFINITY, INFINITY, INFINITY }, ehi[3] = { -INFINITY, -INFINITY, -INFINITY };
            json_t *prim;
            json_array_foreach(json_object_get(json_array_get(meshes, (size_t)json_integer_value(mesh)), "primitives"),
                               k, prim)
            {
                json_t *pos = json_object_get(json_object_get(prim, "attributes"), "POSITION");
                if (!pos) continue;
                json_t *a = json_array_get(accessors, (size_t)json_integer_value(pos));
                for (size_t d = 0; d < 3; d++) {
                    elo[d] = fmin(elo[d], num(json_array_get(json_object_get(a, "min"), d), 0));
                    ehi[d] = fmax(ehi[d], num(json_array_get(json_object_get(a, "max"), d), 0));
                }
            }
            assert_true(has);
            for (int d = 0; d < 3; d++) {
                ASSERT_NEAR_REL(lo[d], elo[d], VALUE_TOL);
                ASSERT_NEAR_REL(hi[d], ehi[d], VALUE_TOL);
            }
        } else {
            assert_false(has);
        }
        /* camera */
        json_t *cam = json_object_get(node, "camera");
        arbor_camera camera;
        assert_int_equal(arbor_node_camera(s, h, &camera) == ARBOR_OK, cam != NULL);
        if (cam) {
            json_t *jc = json_array_get(cameras, (size_t)json_integer_value(cam));
            json_t *p = json_object_get(jc, "perspective"), *o = json_object_get(jc, "orthographic");
            if (p) {
                assert_int_equal(camera.type, ARBOR_CAMERA_PERSPECTIVE);
                ASSERT_NEAR_REL(camera.yfov, num(json_object_get(p, "yfov"), -1), VALUE_TOL);
                ASSERT_NEAR_REL(camera.aspect, num(json_object_get(p, "aspectRatio"), 0), VALUE_TOL);
                ASSERT_NEAR_REL(camera.znear, num(json_object_get(p, "znear"), -1), VALUE_TOL);
                ASSERT_NEAR_REL(camera.zfar, num(json_object_get(p, "zfar"), 0), VALUE_TOL);
            } else {
                assert_int_equal(camera.type, ARBOR_CAMERA_ORTHOGRAPHIC);
                ASSERT_NEAR_REL(camera.xmag, num(json_object_get(o, "xmag"), -1), VALUE_TOL);
                ASSERT_NEAR_REL(camera.ymag, num(json_object_get(o, "ymag"), -1), VALUE_TOL);
                ASSERT_NEAR_REL(camera.znear, num(json_object_get(o, "znear"), -1), VALUE_TOL);
                ASSERT_NEAR_REL(camera.zfar, num(json_object_get(o, "zfar"), -1), VALUE_TOL);
            }
        }
        /* KHR_lights_punctual light, with the extension's defaults */
        json_t *lref =
            json_object_get(json_object_get(json_object_get(node, "extensions"), "KHR_lights_punctual"), "light");
        arbor_light light;
        assert_int_equal(arbor_node_light(s, h, &light) == ARBOR_OK, lref != NULL);
        if (lref) {
            json_t *jl = json_array_get(lights, (size_t)json_integer_value(lref));
            const char *type = json_string_value(json_object_get(jl, "type"));
            assert_int_equal(light.type, !strcmp(type, "point")  ? ARBOR_LIGHT_POINT
                                         : !strcmp(type, "spot") ? ARBOR_LIGHT_SPOT
                                                                 : ARBOR_LIGHT_DIRECTIONAL);
            for (size_t d = 0; d < 3; d++)
                ASSERT_NEAR_REL(light.color[d], num(json_array_get(json_object_get(jl, "color"), d), 1), VALUE_TOL);
            ASSERT_NEAR_REL(light.intensity, num(json_object_get(jl, "intensity"), 1), VALUE_TOL);
            ASSERT_NEAR_REL(light.range, num(json_object_get(jl, "range"), 0), VALUE_TOL);
            json_t *spot = json_object_get(jl, "spot");
            ASSERT_NEAR_REL(light.inner_cone, spot ? num(json_object_get(spot, "innerConeAngle"), 0) : 0, VALUE_TOL);
            ASSERT_NEAR_REL(light.outer_cone, spot ? num(json_object_get(spot, "outerConeAngle"), PI / 4) : 0,
                            VALUE_TOL);
            for (int d = 0; d < 3; d++) assert_true(light.direction[d] == 0);
        }
        /* skin */
        json_t *skin = json_object_get(node, "skin");
        assert_int_equal(arbor_gltf_node_skin(doc, h), skin ? (int32_t)json_integer_value(skin) : -1);
    }
    /* skins: joints and skeleton as handles */
    json_t *jskin;
    size_t k;
    json_array_foreach(json_object_get(root, "skins"), k, jskin)
    {
        json_t *joints = json_object_get(jskin, "joints");
        size_t nj = json_array_size(joints);
        arbor_node *handles = malloc(nj * sizeof *handles), skeleton;
        assert_int_equal(TEST_SKIN(doc, (uint32_t)k, handles, NULL, (uint32_t)nj, &skeleton), nj);
        for (size_t j = 0; j < nj; j++)
            ASSERT_NODE_EQ(handles[j], arbor_gltf_node(doc, (uint32_t)json_integer_value(json_array_get(joints, j))));
        json_t *sk = json_object_get(jskin, "skeleton");
        ASSERT_NODE_EQ(skeleton, sk ? arbor_gltf_node(doc, (uint32_t)json_integer_value(sk)) : ARBOR_NONE);
        free(handles);
    }
    /* scenes and their roots */
    json_t *scenes = json_object_get(root, "scenes"), *scene;
    assert_int_equal(arbor_gltf_scene_count(doc), json_array_size(scenes));
    json_t *def = json_object_get(root, "scene");
    assert_int_equal(arbor_gltf_loaded_scene(doc), def ? json_integer_value(def) : json_array_size(scenes) ? 0 : -1);
    json_array_foreach(scenes, k, scene)
    {
        json_t *list = json_object_get(scene, "nodes");
        arbor_node roots[64];
        uint32_t count = TEST_SCENE_ROOTS(doc, (uint32_t)k, roots, 64);
        assert_int_equal(count, json_array_size(list));
        for (uint32_t r = 0; r < count && r < 64; r++)
            ASSERT_NODE_EQ(roots[r], arbor_gltf_node(doc, (uint32_t)json_integer_value(json_array_get(list, r))));
        const char *name = json_string_value(json_object_get(scene, "name")),
                   *got = arbor_gltf_scene_name(doc, (uint32_t)k);
        assert_true(name ? got && !strcmp(name, got) : got == NULL);
    }
    free(parent);
}

/* Nodes are created depth first (each subtree one run of creations, roots in order): a walk
   down the tree meets them in creation order, which a fresh scene's ids follow. */
static void assert_created_depth_first(const arbor_scene *s, const char *what)
{
    uint64_t last = 0, seen = 0;
    for (arbor_node root = arbor_scene_first_root(s); root.id; root = arbor_node_next_sibling(s, root))
        for (arbor_node n = root; n.id;) {
            if ((uint32_t)n.id <= last) fail_msg("%s: node %u comes after node %llu in a walk down the tree", what,
                                                 (unsigned)(uint32_t)n.id, (unsigned long long)last);
            last = (uint32_t)n.id;
            seen++;
            arbor_node next = arbor_node_first_child(s, n);
            while (!next.id && n.id != root.id) { /* up until a next sibling */
                next = arbor_node_next_sibling(s, n);
                if (!next.id) n = arbor_node_parent(s, n);
            }
            n = next;
        }
    assert_int_equal(seen, arbor_scene_node_count(s));
}

static void test_samples(void **state)
{
    (void)state;
    NEED_SHARED();
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/samples/%s", GLTF_DIR, samples[i].path);
        counted_scene c;
        counted_begin(&c);
        arbor_gltf *doc = NULL;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        arbor_result r = arbor_gltf_load(c.s, path, NULL, &doc);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (r != ARBOR_OK) fail_msg("%s: %s", samples[i].path, arbor_last_error());
        if (samples[i].nodes >= 200)
            print_message("%s: %u nodes loaded in %.2f ms\n", samples[i].path, samples[i].nodes,
                          (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
        assert_int_equal(arbor_scene_node_count(c.s), samples[i].nodes);
        assert_int_equal(c.log.warnings, 0);
        assert_created_depth_first(c.s, samples[i].path);
        json_t *root = file_json(path);
        check_against_json(c.s, doc, root, samples[i].path);
        arbor_gltf_counts counts;
        arbor_gltf_counts_get(doc, &counts);
        assert_int_equal(counts.nodes, samples[i].nodes);
        assert_int_equal(counts.meshes, json_array_size(json_object_get(root, "meshes")));
        assert_int_equal(counts.animations, json_array_size(json_object_get(root, "animations")));
        assert_int_equal(counts.accessors, json_array_size(json_object_get(root, "accessors")));
        assert_int_equal(counts.buffers, json_array_size(json_object_get(root, "buffers")));
        json_decref(root);
        arbor_gltf_destroy(doc);
        counted_end(&c);
    }
}

static uint32_t load_sample(arbor_scene *s, const char *name, arbor_gltf **doc)
{
    char path[512];
    snprintf(path, sizeof path, "%s/samples/%s", GLTF_DIR, name);
    if (arbor_gltf_load(s, path, NULL, doc) != ARBOR_OK) fail_msg("%s", arbor_last_error());
    return arbor_gltf_node_count(*doc);
}

static void test_matrix_nodes_locked(void **state)
{
    (void)state;
    NEED_SHARED();
    static const struct {
        const char *name;
        uint32_t matrices;
    } files[] = { { "2CylinderEngine/2CylinderEngine.glb", 76 },
                  { "VC/VC.gltf", 193 },
                  { "RiggedFigure/RiggedFigure.glb", 1 } };
    for (size_t f = 0; f < 3; f++) {
        arbor_scene *s = NULL;
        assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
        arbor_gltf *doc;
        uint32_t n = load_sample(s, files[f].name, &doc), locked = 0;
        for (uint32_t i = 0; i < n; i++) {
            arbor_node h = arbor_gltf_node(doc, i);
            locked += arbor_node_is_locked(s, h);
            if (arbor_node_is_locked(s, h)) /* a TRS write is refused on them */
                assert_int_equal(arbor_node_set_translation(s, h, 1, 2, 3), ARBOR_ERR_LOCKED);
        }
        assert_int_equal(locked, files[f].matrices);
        arbor_gltf_destroy(doc);
        arbor_scene_destroy(s);
    }
}

/* The core's messages name a loaded node by its path and its index in the file: a node put
   under its own child is refused naming both, each with the index the file's JSON gives it;
   a node made in code, a node on the id of a destroyed loaded one, and every node once the
   document is destroyed, carry no index. */
static void test_core_messages_name_file_indices(void **state)
{
    (void)state;
    NEED_SHARED();
    const char *name = "BlenderIO_02_node_hierarchy/02_node_hierarchy.gltf";
    char path[512];
    snprintf(path, sizeof path, "%s/samples/%s", GLTF_DIR, name);
    json_t *root = file_json(path), *nodes = json_object_get(root, "nodes");
    /* the first node with a child, and that child, from the JSON */
    size_t parent = SIZE_MAX, child = SIZE_MAX;
    for (size_t i = 0; i < json_array_size(nodes) && parent == SIZE_MAX; i++) {
        json_t *kids = json_object_get(json_array_get(nodes, i), "children");
        if (json_array_size(kids)) {
            parent = i;
            child = (size_t)json_integer_value(json_array_get(kids, 0));
        }
    }
    assert_true(parent != SIZE_MAX);
    const char *parent_name = json_string_value(json_object_get(json_array_get(nodes, parent), "name"));
    const char *child_name = json_string_value(json_object_get(json_array_get(nodes, child), "name"));
    assert_non_null(parent_name);
    assert_non_null(child_name);
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_gltf *doc;
    load_sample(s, name, &doc);
    arbor_node p = arbor_gltf_node(doc, (uint32_t)parent), c = arbor_gltf_node(doc, (uint32_t)child);
    char want[256];
    snprintf(want, sizeof want, "arbor_node_set_parent: node '%s' (#%zu) cannot go under its descendant '%s/%s' (#%zu): that would make a ring",
             parent_name, parent, parent_name, child_name, child);
    assert_int_equal(arbor_node_set_parent(s, p, c, ARBOR_NONE, ARBOR_KEEP_LOCAL), ARBOR_ERR_CYCLE);
    assert_string_equal(arbor_last_error(), want);
    /* a node made in code has its path only */
    arbor_node mine;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "mine", .parent = c }, &mine));
    snprintf(want, sizeof want, "arbor_node_set_parent: node '%s/%s/mine' cannot go under itself, '%s/%s/mine': that "
             "would make a ring", parent_name, child_name, parent_name, child_name);
    assert_int_equal(arbor_node_set_parent(s, mine, mine, ARBOR_NONE, ARBOR_KEEP_LOCAL), ARBOR_ERR_CYCLE);
    assert_string_equal(arbor_last_error(), want);
    /* the child's id, reused by a node made in code after the child is destroyed, has no index */
    arbor_node_destroy(s, c);
    arbor_node again;
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .name = "again" }, &again));
    assert_int_equal((uint32_t)again.id, (uint32_t)c.id);
    assert_int_equal(arbor_node_set_parent(s, again, again, ARBOR_NONE, ARBOR_KEEP_LOCAL), ARBOR_ERR_CYCLE);
    assert_string_equal(arbor_last_error(), "arbor_node_set_parent: node 'again' cannot go under itself, 'again': that would make a ring");
    assert_int_equal(arbor_node_set_parent(s, p, p, ARBOR_NONE, ARBOR_KEEP_LOCAL), ARBOR_ERR_CYCLE);
    snprintf(want, sizeof want, "arbor_node_set_parent: node '%s' (#%zu) cannot go under itself, '%s' (#%zu): that would "
             "make a ring", parent_name, parent, parent_name, parent);
    assert_string_equal(arbor_last_error(), want);
    arbor_gltf_destroy(doc);
    assert_int_equal(arbor_node_set_parent(s, p, p, ARBOR_NONE, ARBOR_KEEP_LOCAL), ARBOR_ERR_CYCLE);
    snprintf(want, sizeof want, "arbor_node_set_parent: node '%s' cannot go under itself, '%s': that would make a ring",
             parent_name, parent_name);
    assert_string_equal(arbor_last_error(), want);
    arbor_scene_destroy(s);
    json_decref(root);
}

static void test_scenes_and_roots(void **state)
{
    (void)state;
    NEED_SHARED();
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_gltf *doc;
    load_sample(s, "MultipleScenes/MultipleScenes.gltf", &doc);
    assert_int_equal(arbor_gltf_scene_count(doc), 2);
    assert_int_equal(arbor_gltf_loaded_scene(doc), 1);
    arbor_node roots[4];
    /* scene 0 holds node 0, scene 1 (the default) node 1 */
    assert_int_equal(TEST_SCENE_ROOTS(doc, 0, roots, 4), 1);
    ASSERT_NODE_EQ(roots[0], arbor_gltf_node(doc, 0));
    assert_int_equal(TEST_SCENE_ROOTS(doc, 1, roots, 4), 1);
    ASSERT_NODE_EQ(roots[0], arbor_gltf_node(doc, 1));
    assert_int_equal(TEST_SCENE_ROOTS(doc, 1, NULL, 0), 1); /* the count, even past cap */
    uint32_t count = 7;
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_gltf_scene_roots", arbor_gltf_scene_roots(doc, 2, roots, 4, &count));
    assert_int_equal(count, 0);
    assert_non_null(strstr(arbor_last_error(), "scene 2: the file has 2 scenes"));
    /* both are roots of the scene graph: the chosen scene's first (in its order), then the
       others in file order */
    ASSERT_NODE_EQ(arbor_scene_first_root(s), arbor_gltf_node(doc, 1));
    ASSERT_NODE_EQ(arbor_scene_last_root(s), arbor_gltf_node(doc, 0));
    /* a root destroyed since is left out, and its handle is gone from the map */
    arbor_node second = arbor_gltf_node(doc, 1);
    ASSERT_OK(arbor_node_destroy(s, second));
    assert_int_equal(TEST_SCENE_ROOTS(doc, 1, roots, 4), 0);
    ASSERT_NODE_NONE(arbor_gltf_node(doc, 1));
    assert_int_equal(arbor_gltf_index(doc, second), 1); /* the map still knows where it came from */
    arbor_gltf_destroy(doc);

    /* options.scene chooses, 0-based, with use_scene; all zero and ARBOR_GLTF_DEFAULT_SCENE are
       the file's `scene` (1 in this file, which has scenes 0 and 1); out of range is refused
       with nothing loaded */
    arbor_gltf_options zero;
    memset(&zero, 0, sizeof zero);
    arbor_gltf_options o = ARBOR_GLTF_OPTIONS_DEFAULT;
    /* the defaults are all zero: field by field, as the struct's padding holds anything */
    assert_int_equal(o.scene, 0);
    assert_false(o.use_scene);
    assert_false(o.allow_outside_uris);
    assert_false(o.lenient);
    char path[512];
    snprintf(path, sizeof path, "%s/samples/MultipleScenes/MultipleScenes.gltf", GLTF_DIR);
    ASSERT_OK(arbor_gltf_load(s, path, &o, &doc));
    assert_int_equal(arbor_gltf_loaded_scene(doc), 1);
    arbor_gltf_destroy(doc);
    ASSERT_OK(arbor_gltf_load(s, path, NULL, &doc));
    assert_int_equal(arbor_gltf_loaded_scene(doc), 1);
    arbor_gltf_destroy(doc);
    ASSERT_OK(arbor_gltf_load(s, path, &zero, &doc));
    assert_int_equal(arbor_gltf_loaded_scene(doc), 1);
    arbor_gltf_destroy(doc);
    o.scene = 0; /* without use_scene: still the file's default */
    ASSERT_OK(arbor_gltf_load(s, path, &o, &doc));
    assert_int_equal(arbor_gltf_loaded_scene(doc), 1);
    arbor_gltf_destroy(doc);
    o.use_scene = true;
    ASSERT_OK(arbor_gltf_load(s, path, &o, &doc));
    assert_int_equal(arbor_gltf_loaded_scene(doc), 0);
    arbor_gltf_destroy(doc);
    o.scene = ARBOR_GLTF_DEFAULT_SCENE;
    ASSERT_OK(arbor_gltf_load(s, path, &o, &doc));
    assert_int_equal(arbor_gltf_loaded_scene(doc), 1);
    arbor_gltf_destroy(doc);
    uint32_t before = arbor_scene_node_count(s);
    o.scene = 2;
    assert_int_equal(arbor_gltf_load(s, path, &o, &doc), ARBOR_ERR_INVALID_ARGUMENT);
    assert_null(doc);
    assert_int_equal(arbor_scene_node_count(s), before);
    assert_non_null(strstr(arbor_last_error(), "options.scene asks for scene 2, the file has 2"));
    o.scene = -2;
    assert_int_equal(arbor_gltf_load(s, path, &o, &doc), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_scene_node_count(s), before);

    /* no scenes at all: the nodes load, no default scene */
    load_sample(s, "BlenderIO_00_no_scenes/00_no_scenes.gltf", &doc);
    assert_int_equal(arbor_gltf_scene_count(doc), 0);
    assert_int_equal(arbor_gltf_loaded_scene(doc), -1);
    assert_null(arbor_gltf_scene_name(doc, 0));
    arbor_gltf_destroy(doc);
    /* a scene without nodes */
    load_sample(s, "BlenderIO_00_empty_scene/00_empty_scene.gltf", &doc);
    assert_int_equal(arbor_gltf_scene_count(doc), 2);
    assert_int_equal(TEST_SCENE_ROOTS(doc, 0, roots, 4) + TEST_SCENE_ROOTS(doc, 1, roots, 4), 1);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
}

static void test_cameras_and_lights(void **state)
{
    (void)state;
    NEED_SHARED();
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_gltf *doc;
    arbor_camera c;
    load_sample(s, "Cameras/Cameras.gltf", &doc);
    ASSERT_OK(arbor_node_camera(s, arbor_gltf_node(doc, 1), &c));
    assert_int_equal(c.type, ARBOR_CAMERA_PERSPECTIVE);
    ASSERT_NEAR(c.yfov, 0.7, VALUE_TOL);
    ASSERT_NEAR(c.aspect, 1.0, VALUE_TOL);
    ASSERT_NEAR(c.znear, 0.01, VALUE_TOL);
    ASSERT_NEAR(c.zfar, 100, VALUE_TOL);
    ASSERT_OK(arbor_node_camera(s, arbor_gltf_node(doc, 2), &c));
    assert_int_equal(c.type, ARBOR_CAMERA_ORTHOGRAPHIC);
    ASSERT_NEAR(c.xmag, 1, VALUE_TOL);
    ASSERT_NEAR(c.ymag, 1, VALUE_TOL);
    arbor_real o[3];
    TEST_WORLD_ORIGIN(s, arbor_gltf_node(doc, 2), o);
    ASSERT_VEC3_NEAR(o, 0.5, 0.5, 3, VALUE_TOL);
    arbor_gltf_destroy(doc);

    load_sample(s, "bevy_animated_camera_and_light/animated_camera_and_light.glb", &doc);
    ASSERT_OK(arbor_node_camera(s, arbor_gltf_node(doc, 1), &c));
    ASSERT_NEAR(c.yfov, 0.39959652046304894, VALUE_TOL);
    ASSERT_NEAR(c.aspect, 1.7777777777777777, VALUE_TOL);
    ASSERT_NEAR(c.znear, 0.10000000149011612, VALUE_TOL);
    ASSERT_NEAR(c.zfar, 100, VALUE_TOL);
    static const double colors[3][3] = { { 0, 1, 0 }, { 0, 0, 1 }, { 1, 0, 0 } };
    static const uint32_t light_nodes[3] = { 0, 3, 4 };
    for (int i = 0; i < 3; i++) {
        arbor_light l;
        ASSERT_OK(arbor_node_light(s, arbor_gltf_node(doc, light_nodes[i]), &l));
        assert_int_equal(l.type, ARBOR_LIGHT_SPOT);
        ASSERT_VEC3_NEAR(l.color, colors[i][0], colors[i][1], colors[i][2], 0);
        ASSERT_NEAR_REL(l.intensity, 54351.41306588226, VALUE_TOL);
        ASSERT_NEAR(l.range, 0, 0);
        ASSERT_NEAR(l.inner_cone, 0.2840959841952886, VALUE_TOL);
        ASSERT_NEAR(l.outer_cone, 0.33423057198524475, VALUE_TOL);
    }
    arbor_gltf_counts counts;
    arbor_gltf_counts_get(doc, &counts);
    assert_int_equal(counts.lights, 3);
    assert_int_equal(counts.cameras, 1);
    assert_int_equal(counts.animations, 4);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
}

static void test_simple_skin(void **state)
{
    (void)state;
    NEED_SHARED();
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_gltf *doc;
    load_sample(s, "SimpleSkin/SimpleSkin.gltf", &doc);
    assert_int_equal(arbor_gltf_node_skin(doc, arbor_gltf_node(doc, 0)), 0);
    assert_int_equal(arbor_gltf_node_skin(doc, arbor_gltf_node(doc, 1)), -1);
    arbor_node joints[2], skeleton;
    float ibm[32];
    assert_int_equal(TEST_SKIN(doc, 0, joints, ibm, 2, &skeleton), 2);
    ASSERT_NODE_EQ(joints[0], arbor_gltf_node(doc, 1));
    ASSERT_NODE_EQ(joints[1], arbor_gltf_node(doc, 2));
    ASSERT_NODE_NONE(skeleton);
    /* the inverse bind matrices, decoded here from the file's data: URI */
    json_t *root = file_json(GLTF_DIR "/samples/SimpleSkin/SimpleSkin.gltf");
    json_t *acc = json_array_get(json_object_get(root, "accessors"), 4);
    json_t *view = json_array_get(json_object_get(root, "bufferViews"),
                                  (size_t)json_integer_value(json_object_get(acc, "bufferView")));
    const char *uri = json_string_value(json_object_get(
        json_array_get(json_object_get(root, "buffers"), (size_t)json_integer_value(json_object_get(view, "buffer"))),
        "uri"));
    unsigned char bytes[4096];
    size_t n = unbase64(bytes, strchr(uri, ',') + 1);
    size_t at = (size_t)json_integer_value(json_object_get(view, "byteOffset")) +
                (size_t)json_integer_value(json_object_get(acc, "byteOffset"));
    assert_true(at + 128 <= n);
    for (int k = 0; k < 32; k++) {
        float f;
        memcpy(&f, bytes + at + 4 * k, 4);
        assert_true(ibm[k] == f);
    }
    ASSERT_NEAR(ibm[13], -1.0, 0); /* translation (-0.5, -1, 0), as the accessor's min and max say */
    ASSERT_NEAR(ibm[12], -0.5, 0);
    json_decref(root);
    /* cap smaller than the joints; out of range */
    assert_int_equal(TEST_SKIN(doc, 0, joints, NULL, 1, NULL), 2);
    uint32_t count = 7;
    ASSERT_REFUSED(ARBOR_ERR_INVALID_ARGUMENT, "arbor_gltf_skin", arbor_gltf_skin(doc, 1, joints, ibm, 2, &skeleton, &count));
    assert_int_equal(count, 0);
    ASSERT_NODE_NONE(skeleton);
    /* a node from elsewhere */
    arbor_node other = TEST_NODE(s, ARBOR_NONE, "other", NULL, NULL, NULL);
    assert_int_equal(arbor_gltf_index(doc, other), -1);
    assert_int_equal(arbor_gltf_node_skin(doc, other), -1);
    assert_int_equal(arbor_gltf_index(doc, ARBOR_NONE), -1);
    ASSERT_NODE_NONE(arbor_gltf_node(doc, 3));
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
    /* queries on no document */
    assert_int_equal(arbor_gltf_node_count(NULL), 0);
    assert_int_equal(arbor_gltf_scene_count(NULL), 0);
    assert_int_equal(arbor_gltf_loaded_scene(NULL), -1);
    arbor_gltf_destroy(NULL);
}

/* ---- files written here ---------------------------------------------------------------------- */

static void test_data_uris_and_sparse(void **state)
{
    (void)state;
    make_dir(OUT_DIR);
    /* two MAT4 inverse bind matrices in a base64 buffer; a second skin's from an accessor without
       bufferView (zeros, no inverse bind matrix) whose elements a sparse substitution sets, in
       the other order */
    float m[32];
    for (int k = 0; k < 32; k++) m[k] = (k % 16) % 5 == 0 ? 1.0f : 0.0f;
    m[12] = 2, m[16 + 13] = -3;
    unsigned char bytes[128 + 8 + 128];
    memcpy(bytes, m, 128);
    uint32_t index[2] = { 0, 1 };
    memcpy(bytes + 128, index, 8);
    memcpy(bytes + 136, m + 16, 64);
    memcpy(bytes + 200, m, 64);
    char b64[400], json[2048];
    base64(b64, bytes, sizeof bytes);
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{}],"
             "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":0},{\"joints\":[0,1],\"inverseBindMatrices\":1}],"
             "\"buffers\":[{\"byteLength\":264,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":128},{\"buffer\":0,\"byteOffset\":128,\"byteLength\":8},"
             "{\"buffer\":0,\"byteOffset\":136,\"byteLength\":128}],"
             "\"accessors\":[{\"bufferView\":0,\"type\":\"MAT4\",\"componentType\":5126,\"count\":2},"
             "{\"type\":\"MAT4\",\"componentType\":5126,\"count\":2,\"sparse\":{\"count\":2,"
             "\"indices\":{\"bufferView\":1,\"componentType\":5125},\"values\":{\"bufferView\":2}}}]}",
             b64);
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_gltf *doc = EXPECT_LOADED(s, json, NULL);
    float ibm[32];
    arbor_node joints[2];
    assert_int_equal(TEST_SKIN(doc, 0, joints, ibm, 2, NULL), 2);
    assert_memory_equal(ibm, m, sizeof m);
    assert_int_equal(TEST_SKIN(doc, 1, joints, ibm, 2, NULL), 2);
    assert_memory_equal(ibm, m + 16, 64);
    assert_memory_equal(ibm + 16, m, 64);
    arbor_gltf_destroy(doc);

    /* percent-encoded data (no ;base64): one byte '0' */
    doc = EXPECT_LOADED(s,
                        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":2,"
                        "\"uri\":\"data:application/gltf-buffer,%30A\"}]}",
                        NULL);
    arbor_gltf_destroy(doc);
    /* the data must hold byteLength bytes; the media type is checked; the syntax too */
    EXPECT_REFUSED(s,
                   "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":3,"
                   "\"uri\":\"data:application/octet-stream;base64,AAA=\"}]}",
                   NULL, ARBOR_ERR_PARSE, "/buffers/0", "byteLength");
    EXPECT_REFUSED(s,
                   "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":1,"
                   "\"uri\":\"data:text/plain;base64,AA==\"}]}",
                   NULL, ARBOR_ERR_PARSE, "/buffers/0/uri", "media type");
    EXPECT_REFUSED(s,
                   "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":1,"
                   "\"uri\":\"data:application/octet-stream;base64,A*==\"}]}",
                   NULL, ARBOR_ERR_PARSE, "/buffers/0/uri", NULL);
    arbor_scene_destroy(s);
}

/* A valid GLB: JSON (a node, one buffer) and a 4-byte BIN chunk; then an unknown chunk. */
static size_t make_glb(unsigned char *out, bool unknown_chunk)
{
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"n\"}],\"buffers\":[{\"byteLength\":3}]}";
    size_t jl = strlen(json), jpad = (jl + 3) & ~(size_t)3, at = 12;
    uint32_t v;
#define PUT32(x) (v = (uint32_t)(x), memcpy(out + at, &v, 4), at += 4)
    memcpy(out, "glTF", 4);
    at = 4;
    PUT32(2);
    PUT32(0); /* total, below */
    PUT32(jpad);
    memcpy(out + at, "JSON", 4);
    at += 4;
    memcpy(out + at, json, jl);
    memset(out + at + jl, ' ', jpad - jl);
    at += jpad;
    PUT32(4);
    memcpy(out + at, "BIN\0", 4);
    at += 4;
    PUT32(0x00ffffff);
    if (unknown_chunk) {
        PUT32(4);
        memcpy(out + at, "XTRA", 4);
        at += 4;
        PUT32(7);
    }
    v = (uint32_t)at;
    memcpy(out + 8, &v, 4);
#undef PUT32
    return at;
}

static void expect_glb_offset(arbor_scene *s, const unsigned char *data, size_t size, size_t offset)
{
    arbor_gltf *doc = NULL;
    arbor_result r = arbor_gltf_load_memory(s, data, size, NULL, NULL, &doc);
    char want[64];
    snprintf(want, sizeof want, "arbor_gltf_load_memory: GLB offset %zu: ", offset);
    if (r != ARBOR_ERR_PARSE || doc || strncmp(arbor_last_error(), want, strlen(want)) != 0)
        fail_msg("wanted a refusal at offset %zu, got %d: %s", offset, (int)r, arbor_last_error());
    assert_int_equal(arbor_scene_node_count(s), 0);
}

static void test_glb_framing(void **state)
{
    (void)state;
    unsigned char good[256], bad[256];
    size_t n = make_glb(good, true),
           json_end = 20 + ((strlen("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"n\"}],"
                                    "\"buffers\":[{\"byteLength\":3}]}") +
                             3) &
                            ~(size_t)3);
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_gltf *doc;
    ASSERT_OK(arbor_gltf_load_memory(s, good, n, NULL, NULL, &doc)); /* the unknown chunk is ignored */
    assert_int_equal(arbor_gltf_node_count(doc), 1);
    ASSERT_OK(arbor_node_destroy(s, arbor_gltf_node(doc, 0)));
    arbor_gltf_destroy(doc);
    /* extra bytes after the declared length are ignored */
    memcpy(bad, good, n);
    ASSERT_OK(arbor_gltf_load_memory(s, bad, n + 3, NULL, NULL, &doc));
    ASSERT_OK(arbor_node_destroy(s, arbor_gltf_node(doc, 0)));
    arbor_gltf_destroy(doc);

    /* truncated anywhere: the header (offset = what is there), or before the declared length */
    for (size_t cut = 4; cut < n; cut++) expect_glb_offset(s, good, cut, cut);
    /* from memory, fewer than 4 bytes are not recognised as GLB: they are refused as JSON */
    assert_int_equal(arbor_gltf_load_memory(s, good, 3, NULL, NULL, &doc), ARBOR_ERR_PARSE);
    assert_non_null(strstr(arbor_last_error(), "line 1"));
    uint32_t v;
    /* magic, version, length */
    memcpy(bad, good, n), bad[0] = 'G'; /* from memory that is not GLB; a .glb file says so */
    make_dir(OUT_DIR);
    write_all(OUT_DIR "/magic.glb", bad, n);
    assert_int_equal(arbor_gltf_load(s, OUT_DIR "/magic.glb", NULL, &doc), ARBOR_ERR_PARSE);
    assert_non_null(strstr(arbor_last_error(), "magic.glb: GLB offset 0: "));
    memcpy(bad, good, n), v = 1, memcpy(bad + 4, &v, 4);
    expect_glb_offset(s, bad, n, 4);
    memcpy(bad, good, n), v = 12, memcpy(bad + 8, &v, 4);
    expect_glb_offset(s, bad, n, 8);
    memcpy(bad, good, n), v = (uint32_t)n + 4, memcpy(bad + 8, &v, 4);
    expect_glb_offset(s, bad, n, n);
    /* the JSON chunk: length not a multiple of 4, past the end, wrong type, empty */
    memcpy(bad, good, n), v = (uint32_t)(json_end - 20) - 1, memcpy(bad + 12, &v, 4);
    expect_glb_offset(s, bad, n, 12);
    memcpy(bad, good, n), v = 4096, memcpy(bad + 12, &v, 4);
    expect_glb_offset(s, bad, n, 12);
    memcpy(bad, good, n), memcpy(bad + 16, "BIN\0", 4);
    expect_glb_offset(s, bad, n, 12);
    /* the BIN chunk: a second JSON chunk there, a BIN chunk in third place */
    memcpy(bad, good, n), memcpy(bad + json_end + 4, "JSON", 4);
    expect_glb_offset(s, bad, n, json_end);
    memcpy(bad, good, n), memcpy(bad + json_end + 4, "XTRA", 4), memcpy(bad + json_end + 16, "BIN\0", 4);
    expect_glb_offset(s, bad, n, json_end + 12);
    /* a chunk header cut by the declared length */
    memcpy(bad, good, n), v = (uint32_t)n - 4, memcpy(bad + 8, &v, 4);
    expect_glb_offset(s, bad, n, n - 12);
    /* buffer 0 without uri needs the BIN chunk, as long as byteLength */
    make_glb(bad, false);
    v = (uint32_t)json_end, memcpy(bad + 8, &v, 4); /* drop the BIN chunk */
    assert_int_equal(arbor_gltf_load_memory(s, bad, json_end, NULL, NULL, &doc), ARBOR_ERR_PARSE);
    assert_non_null(strstr(arbor_last_error(), "/buffers/0"));
    assert_int_equal(arbor_scene_node_count(s), 0);
    arbor_scene_destroy(s);
}

static void test_uris_outside_the_folder(void **state)
{
    (void)state;
    make_dir(OUT_DIR);
    make_dir(OUT_DIR "/inner");
    make_dir(OUT_DIR "/inner/sub");
    unsigned char ibm[64];
    float id[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 6, 7, 1 };
    memcpy(ibm, id, 64);
    write_all(OUT_DIR "/outside.bin", ibm, 64);
    write_all(OUT_DIR "/inner/in side.bin", ibm, 64);
    const char *fmt =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"skins\":[{\"joints\":[0],\"inverseBindMatrices\":0}],"
        "\"accessors\":[{\"bufferView\":0,\"type\":\"MAT4\",\"componentType\":5126,\"count\":1}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":64}],\"buffers\":[{\"byteLength\":64,\"uri\":\"%s\"}]}";
    char json[1024], path[512];
    struct {
        const char *uri;
        bool inside;
    } cases[] = {
        { "in%20side.bin", true },
        { "./in%20side.bin", true },
        { "../outside.bin", false },
        { "sub/../../outside.bin", false },
        { OUT_DIR "/outside.bin", false },
        { "file://" OUT_DIR "/outside.bin", false },
        { "link.bin", false },
    };
    unlink(OUT_DIR "/inner/link.bin");
    assert_int_equal(symlink(OUT_DIR "/outside.bin", OUT_DIR "/inner/link.bin"), 0);
    snprintf(path, sizeof path, "%s/inner/uri.gltf", OUT_DIR);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(json, sizeof json, fmt, cases[i].uri);
        write_text(path, json);
        arbor_scene *s = NULL;
        assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
        arbor_gltf *doc = NULL;
        arbor_gltf_options o = ARBOR_GLTF_OPTIONS_DEFAULT;
        arbor_result r = arbor_gltf_load(s, path, &o, &doc);
        if (cases[i].inside
                ? r != ARBOR_OK
                : r != ARBOR_ERR_IO || !strstr(arbor_last_error(), "/buffers/0/uri") || !strstr(arbor_last_error(), "allow_outside_uris"))
            fail_msg("%s: %d %s", cases[i].uri, (int)r, arbor_last_error());
        if (!cases[i].inside) {
            assert_int_equal(arbor_scene_node_count(s), 0);
            o.allow_outside_uris = true;
            ASSERT_OK(arbor_gltf_load(s, path, &o, &doc));
        }
        float got[16];
        assert_int_equal(TEST_SKIN(doc, 0, NULL, got, 1, NULL), 1);
        assert_memory_equal(got, id, 64);
        arbor_gltf_destroy(doc);
        arbor_scene_destroy(s);
    }
    /* a missing file is an I/O error; a file shorter than byteLength is refused */
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_gltf *doc;
    snprintf(json, sizeof json, fmt, "missing.bin");
    write_text(path, json);
    assert_int_equal(arbor_gltf_load(s, path, NULL, &doc), ARBOR_ERR_IO);
    assert_non_null(strstr(arbor_last_error(), "/buffers/0/uri"));
    write_all(OUT_DIR "/inner/short.bin", ibm, 60);
    snprintf(json, sizeof json, fmt, "short.bin");
    write_text(path, json);
    assert_int_equal(arbor_gltf_load(s, path, NULL, &doc), ARBOR_ERR_PARSE);
    assert_non_null(strstr(arbor_last_error(), "/buffers/0: "));
    /* from memory without a folder, external URIs are refused; messages name the call, no file */
    snprintf(json, sizeof json, fmt, "in%20side.bin");
    assert_int_equal(arbor_gltf_load_memory(s, json, strlen(json), NULL, NULL, &doc), ARBOR_ERR_IO);
    assert_int_equal(strncmp(arbor_last_error(), "arbor_gltf_load_memory: /buffers/0/uri: ", 40), 0);
    assert_string_equal(arbor_last_error_info().file, "");
    assert_string_equal(arbor_last_error_info().pointer, "/buffers/0/uri");
    assert_int_equal(arbor_gltf_load_memory(s, json, strlen(json), OUT_DIR "/inner", NULL, &doc), ARBOR_OK);
    arbor_gltf_destroy(doc);
    /* images are held to the same folder */
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\"images\":[{\"uri\":\"../../secret.png\"}]}", NULL,
                   ARBOR_ERR_IO, "/images/0/uri", NULL);
    /* the file itself missing */
    assert_int_equal(arbor_gltf_load(s, OUT_DIR "/no such.gltf", NULL, &doc), ARBOR_ERR_IO);
    assert_int_equal(strncmp(arbor_last_error(), "arbor_gltf_load: " OUT_DIR "/no such.gltf: ",
                             strlen("arbor_gltf_load: " OUT_DIR "/no such.gltf: ")), 0);
    assert_string_equal(arbor_last_error_info().file, OUT_DIR "/no such.gltf");
    arbor_scene_destroy(s);
}

/* ---- files that are not regular files ------------------------------------------------------ */

/* A FIFO at path (whatever was there before is removed). */
static void make_fifo(const char *path)
{
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
}

/* The last error of a refused load or save names all of `needles`; exits the child with 0, or
   with 1 after saying what is missing. */
static int child_expect_message(arbor_result got, arbor_result want, const char *message, const char *const *needles)
{
    if (got != want) {
        fprintf(stderr, "result %d, expected %d: %s\n", (int)got, (int)want, message);
        return 1;
    }
    for (const char *const *n = needles; *n; n++)
        if (!strstr(message, *n)) {
            fprintf(stderr, "\"%s\" does not name \"%s\"\n", message, *n);
            return 1;
        }
    return 0;
}

/* Loads path in a child process that SIGALRM ends after 10 s (a load blocked on a FIFO would
   never return): the child's verdict (child_expect_message) must be 0 and it must not hang. */
static void expect_refused_in_time(const char *path, const char *const *needles)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(10);
        arbor_scene *s = NULL;
        arbor_scene_desc d = { 0 };
        if (arbor_scene_create(&d, &s)) _exit(2);
        arbor_gltf *doc = NULL;
        arbor_result r = arbor_gltf_load(s, path, NULL, &doc);
        int verdict = child_expect_message(r, ARBOR_ERR_IO, arbor_last_error(), needles);
        if (!verdict && arbor_scene_node_count(s) != 0) verdict = 1;
        arbor_gltf_issue issue;
        uint32_t count = 0;
        if (!verdict) verdict = child_expect_message(arbor_gltf_validate(path, NULL, &issue, 1, &count), ARBOR_ERR_IO,
                                                     issue.message, needles + 1); /* the issue's text after its place */
        _exit(verdict);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status)) fail_msg("loading %s did not return: signal %d (the open blocked)", path, WTERMSIG(status));
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status)) fail_msg("loading %s: not refused as expected (see above)", path);
}

static void capture_all(void *user, arbor_log_level level, const char *message)
{
    (void)level;
    char *all = user;
    size_t used = strlen(all);
    snprintf(all + used, 2048 - used, "%s\n", message);
}

static void test_fifo_refused(void **state)
{
    (void)state;
    make_dir(OUT_DIR);
    make_dir(OUT_DIR "/fifo");
    /* the main file */
    make_fifo(OUT_DIR "/fifo/main.gltf");
    expect_refused_in_time(OUT_DIR "/fifo/main.gltf", (const char *const[]){ "main.gltf", "is a FIFO", NULL });
    /* a buffer's file */
    make_fifo(OUT_DIR "/fifo/pipe.bin");
    write_text(OUT_DIR "/fifo/buffer.gltf",
               "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"buffers\":[{\"byteLength\":4,\"uri\":\"pipe.bin\"}]}");
    expect_refused_in_time(OUT_DIR "/fifo/buffer.gltf",
                           (const char *const[]){ "/buffers/0/uri", "pipe.bin is a FIFO", NULL });
    /* an image's file: not read by a load, but a save copies or embeds it */
    make_fifo(OUT_DIR "/fifo/pipe.png");
    write_text(OUT_DIR "/fifo/image.gltf",
               "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"images\":[{\"uri\":\"pipe.png\"}]}");
    expect_refused_in_time(OUT_DIR "/fifo/image.gltf", (const char *const[]){ "/images/0/uri", "pipe.png is a FIFO", NULL });

    /* an image that became a FIFO after the load: a .glb save leaves it a URI, with a warning
       that names it, and does not block */
    static const unsigned char png[16] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R' };
    unlink(OUT_DIR "/fifo/tex.png"); /* a FIFO of the last run */
    write_all(OUT_DIR "/fifo/tex.png", png, sizeof png);
    write_text(OUT_DIR "/fifo/textured.gltf",
               "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"images\":[{\"uri\":\"tex.png\"}]}");
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(10);
        static char log[2048];
        arbor_scene_desc d = { .log = capture_all, .log_user = log };
        arbor_scene *s = NULL;
        arbor_gltf *doc = NULL;
        if (arbor_scene_create(&d, &s) || arbor_gltf_load(s, OUT_DIR "/fifo/textured.gltf", NULL, &doc)) _exit(2);
        make_fifo(OUT_DIR "/fifo/tex.png");
        arbor_result r = arbor_gltf_save(s, doc, OUT_DIR "/fifo/textured.glb", NULL);
        int verdict = child_expect_message(r, ARBOR_OK, log, (const char *const[]){ "/images/0/uri", "tex.png is a FIFO", NULL });
        json_t *root = verdict ? NULL : file_json(OUT_DIR "/fifo/textured.glb");
        const char *uri = json_string_value(json_object_get(json_array_get(json_object_get(root, "images"), 0), "uri"));
        if (!verdict && (!uri || strcmp(uri, "tex.png"))) verdict = 1; /* left a URI, as the file had it */
        _exit(verdict);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status)) fail_msg("saving a .glb whose image is a FIFO did not return: signal %d", WTERMSIG(status));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_million_deep_chain(void **state)
{
    (void)state;
    const uint32_t n = 1000000;
    size_t cap = (size_t)n * 64 + 256, at = 0;
    char *json = malloc(cap);
    assert_non_null(json);
    at += (size_t)sprintf(json + at, "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
    for (uint32_t i = 0; i < n; i++)
        at += i + 1 < n ? (size_t)sprintf(json + at, "{\"translation\":[0,1,0],\"children\":[%u]},", i + 1)
                        : (size_t)sprintf(json + at, "{\"name\":\"tip\",\"translation\":[0,1,0]}");
    at += (size_t)sprintf(json + at, "]}");
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_gltf *doc;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ASSERT_OK(arbor_gltf_load_memory(s, json, at, NULL, NULL, &doc));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    print_message("million-deep chain (%.1f MB of JSON): loaded in %.0f ms\n", (double)at / 1e6,
                  (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    assert_int_equal(arbor_scene_node_count(s), n);
    arbor_node tip = arbor_gltf_node(doc, n - 1);
    assert_string_equal(arbor_node_name(s, tip), "tip");
    assert_int_equal(arbor_node_depth(s, tip), n - 1);
    arbor_real o[3];
    TEST_WORLD_ORIGIN(s, tip, o);
    ASSERT_VEC3_NEAR(o, 0, n, 0, 0);
    assert_int_equal(arbor_gltf_index(doc, tip), n - 1);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);

    /* deeper than the scene allows: refused, nothing created */
    arbor_scene_desc d = { 0 };
    d.max_depth = 1000;
    assert_int_equal(arbor_scene_create(&d, &s), ARBOR_OK);
    assert_int_equal(arbor_gltf_load_memory(s, json, at, NULL, NULL, &doc), ARBOR_ERR_DEPTH_LIMIT);
    assert_non_null(strstr(arbor_last_error(), "arbor_gltf_load_memory: /nodes/1001: "));
    assert_int_equal(arbor_scene_node_count(s), 0);
    arbor_scene_destroy(s);
    free(json);
}

static void test_huge_counts_in_a_tiny_file(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    const char *head = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16,"
                       "\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAA==\"}],"
                       "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],";
    char json[1024];
    /* an accessor of four billion elements in 16 bytes; an overflowing stride product */
    snprintf(json, sizeof json,
             "%s\"accessors\":[{\"bufferView\":0,\"type\":\"VEC3\",\"componentType\":5126,\"count\":4000000000}]}",
             head);
    EXPECT_REFUSED(s, json, NULL, ARBOR_ERR_PARSE, "/accessors/0", "do not fit");
    snprintf(
        json, sizeof json,
        "%s\"accessors\":[{\"bufferView\":0,\"type\":\"MAT4\",\"componentType\":5126,\"count\":9007199254740992}]}",
        head);
    EXPECT_REFUSED(s, json, NULL, ARBOR_ERR_PARSE, "/accessors/0", NULL);
    /* a buffer of a petabyte behind a data: URI of 16 bytes; a view past the buffer's end */
    EXPECT_REFUSED(s,
                   "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":1000000000000000,"
                   "\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAA==\"}]}",
                   NULL, ARBOR_ERR_PARSE, "/buffers/0", NULL);
    snprintf(json, sizeof json,
             "%s\"accessors\":[{\"bufferView\":0,\"type\":\"SCALAR\",\"componentType\":5126,\"count\":1}]}", head);
    char *p = strstr(json, "\"byteLength\":16}],");
    memcpy(p, "\"byteLength\":99}],", 18);
    EXPECT_REFUSED(s, json, NULL, ARBOR_ERR_PARSE, "/bufferViews/0/byteLength", NULL);
    /* sparse values for a billion elements in 16 bytes */
    snprintf(json, sizeof json,
             "%s\"accessors\":[{\"type\":\"SCALAR\",\"componentType\":5126,\"count\":2000000000,"
             "\"sparse\":{\"count\":1000000000,\"indices\":{\"bufferView\":0,\"componentType\":5125},\"values\":{"
             "\"bufferView\":0}}}]}",
             head);
    EXPECT_REFUSED(s, json, NULL, ARBOR_ERR_PARSE, "/accessors/0/sparse", NULL);
    /* an accessor without bufferView may be as long as it says: nothing is allocated for it, and
       its zeros are no inverse bind matrix (last row 0, 0, 0, 0): refused, identity when lenient */
    const char *zeros = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"skins\":[{\"joints\":[0],"
                        "\"inverseBindMatrices\":0}],\"accessors\":[{\"type\":\"MAT4\",\"componentType\":5126,"
                        "\"count\":4000000000}]}";
    EXPECT_REFUSED(s, zeros, NULL, ARBOR_ERR_PARSE, "/skins/0/inverseBindMatrices", "last row");
    arbor_gltf_options lenient = ARBOR_GLTF_OPTIONS_DEFAULT;
    lenient.lenient = true;
    arbor_gltf *doc = EXPECT_LOADED(s, zeros, &lenient);
    float ibm[16];
    assert_int_equal(TEST_SKIN(doc, 0, NULL, ibm, 1, NULL), 1);
    assert_true(ibm[0] == 1 && ibm[5] == 1 && ibm[10] == 1 && ibm[15] == 1 && ibm[12] == 0);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
}

static void test_spec_breaches(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    /* the message of the issue, exactly */
    make_dir(OUT_DIR);
    write_text(OUT_DIR "/robot.gltf",
               "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{},{},{},{},{},{\"children\":[3]},{},"
               "{\"children\":[6,3]}]}");
    arbor_gltf *doc;
    assert_int_equal(arbor_gltf_load(s, OUT_DIR "/robot.gltf", NULL, &doc), ARBOR_ERR_PARSE);
    assert_string_equal(arbor_last_error(),
                        "arbor_gltf_load: " OUT_DIR "/robot.gltf: /nodes/7/children/1: node 3 already has parent 5");
    /* the same place in parts, from the same accessor */
    arbor_error_info e = arbor_last_error_info();
    assert_int_equal(e.code, ARBOR_ERR_PARSE);
    assert_ptr_equal(e.message, arbor_last_error());
    assert_string_equal(e.file, OUT_DIR "/robot.gltf");
    assert_string_equal(e.pointer, "/nodes/7/children/1");
    assert_int_equal(e.line, 0);
    assert_int_equal(e.column, 0);
    /* JSON syntax: line and column */
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\n  \"nodes\":[{]}", NULL, ARBOR_ERR_PARSE, "line 2, column",
                   NULL);
    e = arbor_last_error_info(); /* the ']' where a key should be: line 2, column 13 */
    assert_string_equal(e.file, "");
    assert_string_equal(e.pointer, "");
    assert_int_equal(e.line, 2);
    assert_int_equal(e.column, 13);
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\"asset\":{}}", NULL, ARBOR_ERR_PARSE, "duplicate", NULL);
    /* hierarchy */
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[0]}]}", NULL, ARBOR_ERR_PARSE,
                   "/nodes/0: node 0 is its own child", "children/0");
    EXPECT_REFUSED(
        s, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{},{\"children\":[2]},{\"children\":[3]},{\"children\":[1]}]}",
        NULL, ARBOR_ERR_PARSE, "/nodes/1: ", "ring");
    EXPECT_REFUSED(s,
                   "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{}],\"scenes\":[{\"nodes\":[1]}]}",
                   NULL, ARBOR_ERR_PARSE, "/scenes/0/nodes/0", "not a root");
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[7]}]}", NULL, ARBOR_ERR_PARSE,
                   "/nodes/0/children/0", "does not exist");
    /* transforms */
    EXPECT_REFUSED(s,
                   "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"translation\":[1,0,0],\"matrix\":[1,0,0,0,0,1,0,0,0,"
                   "0,1,0,0,0,0,1]}]}",
                   NULL, ARBOR_ERR_PARSE, "/nodes/0/matrix", NULL);
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"matrix\":[1,0,0,0,1,1,0,0,0,0,1,0,0,0,0,1]}]}",
                   NULL, ARBOR_ERR_PARSE, "/nodes/0/matrix", "not a translation, rotation and scale");
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"rotation\":[0,0,0,0.9]}]}", NULL, ARBOR_ERR_PARSE,
                   "/nodes/0/rotation", "unit");
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"translation\":[1e39,0,0]}]}", NULL,
                   ARBOR_ERR_PARSE, "/nodes/0/translation/0", "finite");
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"scale\":[1,1]}]}", NULL, ARBOR_ERR_PARSE,
                   "/nodes/0/scale", NULL);
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":7}]}", NULL, ARBOR_ERR_PARSE,
                   "/nodes/0/name", NULL);
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[]}", NULL, ARBOR_ERR_PARSE, "/nodes", "non-empty");
    EXPECT_REFUSED(s, "{\"nodes\":[{}]}", NULL, ARBOR_ERR_PARSE, "arbor_gltf_load_memory: /: asset is required", NULL);
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"1.0\"}}", NULL, ARBOR_ERR_UNSUPPORTED, "/asset/version", NULL);
    /* byteStride rules */
    EXPECT_REFUSED(s,
                   "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":8}],"
                   "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8,\"byteStride\":6}]}",
                   NULL, ARBOR_ERR_PARSE, "/bufferViews/0/byteStride", NULL);
    /* what does load: a matrix that is a TRS with a mirror, a zero scale, integers written as floats */
    arbor_gltf *ok =
        EXPECT_LOADED(s,
                      "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"matrix\":[-2,0,0,0,0,1,0,0,0,0,1,0,3,4,5,1]},"
                      "{\"scale\":[0,0,0]},{\"children\":[0.0,1e0]}]}",
                      NULL);
    assert_true(arbor_node_is_locked(s, arbor_gltf_node(ok, 0)));
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, arbor_gltf_node(ok, 1), &trs));
    ASSERT_VEC3_NEAR(trs.scale, 0, 0, 0, 0);
    ASSERT_NODE_EQ(arbor_node_parent(s, arbor_gltf_node(ok, 1)), arbor_gltf_node(ok, 2));
    arbor_gltf_destroy(ok);
    arbor_scene_destroy(s);
}

static void test_lenient_repairs(void **state)
{
    (void)state;
    const char *json = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1,9]},{},{\"children\":[1]},"
                       "{\"rotation\":[0,0,0,2]},{\"matrix\":[1,0,0,0,1,1,0,0,0,0,1,0,0,0,0,1]},"
                       "{\"children\":[6]},{\"children\":[5]},{\"camera\":4}]}";
    log_capture log = { 0 };
    arbor_scene *s = new_scene(&log);
    EXPECT_REFUSED(s, json, NULL, ARBOR_ERR_PARSE, "/nodes/0/children/1", NULL);
    assert_int_equal(log.warnings, 0);
    arbor_gltf_options o = ARBOR_GLTF_OPTIONS_DEFAULT;
    o.lenient = true;
    arbor_gltf *doc = EXPECT_LOADED(s, json, &o);
    assert_int_equal(arbor_scene_node_count(s), 8);
    assert_true(log.warnings >= 5);
    assert_non_null(strstr(log.first, "arbor_gltf_load_memory: /nodes/0/children/1: "));
    /* the bad link and the second parent are dropped; node 1 stays under node 0 */
    ASSERT_NODE_EQ(arbor_node_parent(s, arbor_gltf_node(doc, 1)), arbor_gltf_node(doc, 0));
    assert_int_equal(arbor_node_child_count(s, arbor_gltf_node(doc, 0)), 1);
    assert_int_equal(arbor_node_child_count(s, arbor_gltf_node(doc, 2)), 0);
    /* a non-unit rotation is normalised */
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, arbor_gltf_node(doc, 3), &trs));
    ASSERT_NEAR(trs.rotation[3], 1, TEST_EPS);
    /* a sheared matrix stays, unlocked */
    assert_true(arbor_node_is_matrix_backed(s, arbor_gltf_node(doc, 4)));
    assert_false(arbor_node_is_locked(s, arbor_gltf_node(doc, 4)));
    /* the ring 5 -> 6 -> 5 opens above node 5, which becomes a root */
    ASSERT_NODE_NONE(arbor_node_parent(s, arbor_gltf_node(doc, 5)));
    ASSERT_NODE_EQ(arbor_node_parent(s, arbor_gltf_node(doc, 6)), arbor_gltf_node(doc, 5));
    /* a bad camera index: no camera */
    arbor_camera c;
    assert_int_equal(arbor_node_camera(s, arbor_gltf_node(doc, 7), &c), ARBOR_ERR_INVALID_ARGUMENT);
    arbor_gltf_destroy(doc);
    /* broken JSON fails all the same */
    o.lenient = true;
    EXPECT_REFUSED(s, "{\"asset\":", &o, ARBOR_ERR_PARSE, "line 1", NULL);
    arbor_scene_destroy(s);
}

static void test_required_extensions(void **state)
{
    (void)state;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    static const char *const accepted[] = { "KHR_lights_punctual",        "KHR_materials_unlit",
                                            "KHR_texture_transform",      "KHR_mesh_quantization",
                                            "KHR_draco_mesh_compression", "KHR_animation_pointer",
                                            "KHR_node_visibility",        "KHR_texture_basisu",
                                            "EXT_mesh_gpu_instancing",    "EXT_meshopt_compression",
                                            "KHR_meshopt_compression" };
    static const char *const refused[] = { "EXT_unknown_thing" };
    char json[512];
    for (size_t i = 0; i < sizeof accepted / sizeof *accepted; i++) {
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"%s\"],"
                 "\"extensionsRequired\":[\"%s\"],\"nodes\":[{}]}",
                 accepted[i], accepted[i]);
        arbor_gltf_destroy(EXPECT_LOADED(s, json, NULL));
    }
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"%s\"],"
                 "\"extensionsRequired\":[\"%s\"],\"nodes\":[{}]}",
                 refused[i], refused[i]);
        uint32_t before = arbor_scene_node_count(s);
        EXPECT_REFUSED(s, json, NULL, ARBOR_ERR_UNSUPPORTED, "/extensionsRequired/0", refused[i]);
        arbor_gltf_options o = ARBOR_GLTF_OPTIONS_DEFAULT;
        o.lenient = true; /* not a breach of the spec: refused in lenient mode too */
        EXPECT_REFUSED(s, json, &o, ARBOR_ERR_UNSUPPORTED, refused[i], NULL);
        assert_int_equal(arbor_scene_node_count(s), before);
    }
    /* used but not required: any extension loads */
    arbor_gltf_destroy(EXPECT_LOADED(s,
                                  "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_unknown_thing\"],"
                                  "\"nodes\":[{\"extensions\":{\"EXT_unknown_thing\":{\"attributes\":{}}}}]}",
                                  NULL));
    /* an extension object that is not declared */
    EXPECT_REFUSED(s, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"extensions\":{\"EXT_x\":{}}}]}", NULL,
                   ARBOR_ERR_PARSE, "/nodes/0/extensions/EXT_x", "extensionsUsed");
    arbor_scene_destroy(s);
}

/* arbor_gltf_validate: every breach, each with its pointer; the first is the strict load's error. */
static void test_validate_every_error(void **state)
{
    (void)state;
    make_dir(OUT_DIR);
    const char *path = OUT_DIR "/five_errors.gltf";
    write_text(path, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,9]}],\"nodes\":["
                     "{\"rotation\":[0,0,0,2],\"children\":[1]},"
                     "{\"children\":[7]},"
                     "{\"scale\":\"big\"},"
                     "{\"mesh\":4}]}");
    static const char *const want[][2] = {
        { "/nodes/0/rotation", "not a unit quaternion" },
        { "/nodes/1/children/0", "node 7 does not exist" },
        { "/nodes/2/scale", "scale must be an array of 3 numbers" },
        { "/nodes/3/mesh", "mesh 4 does not exist" },
        { "/scenes/0/nodes/1", "node 9 does not exist" },
    };
    arbor_gltf_issue issues[8];
    uint32_t count = 99;
    assert_int_equal(arbor_gltf_validate(path, NULL, issues, 8, &count), ARBOR_ERR_PARSE);
    for (uint32_t i = 0; i < count; i++) print_message("  %s: %s\n", issues[i].pointer, issues[i].message);
    assert_int_equal(count, 5);
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(issues[i].code, ARBOR_ERR_PARSE);
        assert_string_equal(issues[i].pointer, want[i][0]);
        if (!strstr(issues[i].message, want[i][1])) fail_msg("issue %u: \"%s\" lacks \"%s\"", i, issues[i].message, want[i][1]);
    }
    /* a smaller cap keeps the first ones and still counts them all */
    arbor_gltf_issue two[2];
    assert_int_equal(arbor_gltf_validate(path, NULL, two, 2, &count), ARBOR_ERR_PARSE);
    assert_int_equal(count, 5);
    assert_string_equal(two[1].pointer, want[1][0]);
    assert_int_equal(arbor_gltf_validate(path, NULL, NULL, 0, &count), ARBOR_ERR_PARSE);
    assert_int_equal(count, 5);
    /* a good file, a missing one, bad arguments */
    write_text(OUT_DIR "/good.gltf", "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}]}");
    assert_int_equal(arbor_gltf_validate(OUT_DIR "/good.gltf", NULL, issues, 8, &count), ARBOR_OK);
    assert_int_equal(count, 0);
    assert_int_equal(arbor_gltf_validate(OUT_DIR "/no_such_file.gltf", NULL, issues, 8, &count), ARBOR_ERR_IO);
    assert_int_equal(count, 1);
    assert_int_equal(issues[0].code, ARBOR_ERR_IO);
    assert_int_equal(arbor_gltf_validate(NULL, NULL, issues, 8, &count), ARBOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(arbor_gltf_validate(path, NULL, NULL, 8, &count), ARBOR_ERR_INVALID_ARGUMENT);

    /* the validator's invalid files: the same verdict as a strict load, whose error is the first
       issue; count how many of the Khronos report's error pointers arbor names too */
    NEED_SHARED();
    load_corpus();
    size_t files = 0, several = 0, total = 0, khronos = 0, shared = 0;
    for (size_t f = 0; f < g_corpus.count; f++) {
        const char *file = g_corpus.files[f];
        log_capture log = { 0 };
        arbor_scene *s = new_scene(&log);
        arbor_gltf *doc = NULL;
        arbor_result strict = arbor_gltf_load(s, file, NULL, &doc);
        char message[1024];
        arbor_error_info e = arbor_last_error_info();
        snprintf(message, sizeof message, "%s", strict ? e.message : "");
        const char *pointer = strict && e.pointer ? e.pointer : "";
        char strict_pointer[256];
        snprintf(strict_pointer, sizeof strict_pointer, "%s", pointer);
        arbor_gltf_destroy(doc);
        arbor_scene_destroy(s);
        arbor_gltf_issue found[64];
        arbor_result r = arbor_gltf_validate(file, NULL, found, 64, &count);
        if (r != strict) fail_msg("%s: validate says %d, a strict load %d (%s)", file, (int)r, (int)strict, message);
        if (!r) {
            assert_int_equal(count, 0);
            continue;
        }
        size_t n = strlen(message), reason = strlen(found[0].message);
        if (strcmp(found[0].pointer, strict_pointer) || n < reason || strcmp(message + n - reason, found[0].message))
            fail_msg("%s: the first issue \"%s: %s\" is not the load's error \"%s\"", file, found[0].pointer,
                     found[0].message, message);
        files++;
        several += count > 1;
        total += count;
        char report_path[600];
        snprintf(report_path, sizeof report_path, "%s.report.json", file);
        json_t *report = json_load_file(report_path, 0, NULL), *m;
        size_t k;
        json_array_foreach(json_object_get(json_object_get(report, "issues"), "messages"), k, m)
        {
            const char *ptr = json_string_value(json_object_get(m, "pointer"));
            if (json_integer_value(json_object_get(m, "severity")) != 0 || !ptr) continue;
            khronos++;
            for (uint32_t i = 0; i < count && i < 64; i++)
                if (!strcmp(found[i].pointer, ptr)) {
                    shared++;
                    break;
                }
        }
        json_decref(report);
    }
    print_message("%zu invalid files refused, %zu of them with several issues, %zu issues in all; "
                  "arbor names %zu of the %zu error pointers of the Khronos reports\n",
                  files, several, total, shared, khronos);
    assert_true(several > 0);
}

/* arbor_gltf_validate_messages beside the Khronos glTF-Validator, over its own test files: each
   error of its reports (severity 0) is a (code, pointer or GLB offset) pair; arbor must report
   the same pair for at least 90% of them, and no error at all where the report has none. */
static bool same_place(const arbor_gltf_message *m, json_t *k)
{
    json_t *offset = json_object_get(k, "offset");
    if (offset) return m->offset == json_integer_value(offset);
    const char *ptr = json_string_value(json_object_get(k, "pointer"));
    return m->offset < 0 && !strcmp(m->pointer, ptr ? ptr : "");
}

static void test_validate_khronos_codes(void **state)
{
    (void)state;
    /* a message's own fields: a GLB offset has no pointer, a pointer no offset */
    make_dir(OUT_DIR);
    write_text(OUT_DIR "/bad_min.gltf",
               "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":"
               "\"data:application/octet-stream;base64,AACAPw==\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":4}],"
               "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\","
               "\"min\":[2],\"max\":[1]}]}");
    arbor_gltf_message m[8];
    uint32_t count = 0;
    /* the one value is 1.0: min 2 is wrong and the element lies below it; max 1 is right */
    assert_int_equal(arbor_gltf_validate_messages(OUT_DIR "/bad_min.gltf", NULL, m, 8, &count), ARBOR_ERR_PARSE);
    assert_int_equal(count, 2);
    assert_string_equal(m[0].code, "ACCESSOR_MIN_MISMATCH");
    assert_string_equal(m[1].code, "ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND");
    for (int i = 0; i < 2; i++) {
        assert_string_equal(m[i].pointer, "/accessors/0/min/0");
        assert_int_equal(m[i].severity, 0);
        assert_int_equal(m[i].offset, -1);
        assert_int_equal(m[i].result, ARBOR_ERR_PARSE);
    }
    NEED_SHARED();
    load_corpus();
    size_t errors = 0, same = 0, same_from_memory = 0, files_without = 0, zeros = 0;
    for (size_t f = 0; f < g_corpus.count; f++) {
        const char *file = g_corpus.files[f];
        char report_path[600];
        snprintf(report_path, sizeof report_path, "%s.report.json", file);
        json_t *report = json_load_file(report_path, 0, NULL), *k;
        assert_non_null(report);
        arbor_gltf_message found[128], from_memory[128];
        count = 0;
        arbor_gltf_validate_messages(file, NULL, found, 128, &count);
        assert_true(count <= 128);
        /* the same bytes from memory, URIs beside the file: the same report of the validator's */
        size_t size = 0;
        char *bytes = read_file(file, &size), dir[600];
        assert_non_null(bytes);
        snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(file, '/') - file), file);
        uint32_t memory_count = 0;
        arbor_gltf_validate_memory(bytes, size, dir, NULL, from_memory, 128, &memory_count);
        /* gltf.h: the file's own messages, but where its name alone made it a GLB */
        size_t n = strlen(file);
        if (strcmp(file + n - 4, ".glb") || (size >= 4 && !memcmp(bytes, "glTF", 4))) {
            assert_int_equal(memory_count, count);
            for (uint32_t j = 0; j < count; j++) {
                assert_string_equal(from_memory[j].code, found[j].code);
                assert_string_equal(from_memory[j].pointer, found[j].pointer);
                assert_string_equal(from_memory[j].message, found[j].message);
                assert_int_equal(from_memory[j].offset, found[j].offset);
                assert_int_equal(from_memory[j].severity, found[j].severity);
            }
        }
        free(bytes);
        size_t i, theirs = 0;
        json_array_foreach(json_object_get(json_object_get(report, "issues"), "messages"), i, k)
        {
            if (json_integer_value(json_object_get(k, "severity")) != 0) continue;
            theirs++;
            const char *code = json_string_value(json_object_get(k, "code"));
            for (uint32_t j = 0; j < count; j++)
                if (found[j].severity == 0 && !strcmp(found[j].code, code) && same_place(&found[j], k)) {
                    same++;
                    break;
                }
            for (uint32_t j = 0; j < memory_count; j++)
                if (from_memory[j].severity == 0 && !strcmp(from_memory[j].code, code) && same_place(&from_memory[j], k)) {
                    same_from_memory++;
                    break;
                }
        }
        errors += theirs;
        if (!theirs) {
            files_without++;
            for (uint32_t j = 0; j < count; j++)
                if (found[j].severity == 0 && zeros_the_validator_skips(file, &found[j]))
                    zeros++;
                else if (found[j].severity == 0)
                    fail_msg("%s: the Khronos report has no error, arbor reports %s at %s: %s", file, found[j].code,
                             found[j].pointer, found[j].message);
        }
        json_decref(report);
    }
    print_message("Khronos codes: arbor reports %zu of the %zu errors of the validator's reports (%.1f%%) with the same "
                  "code at the same pointer or offset; in the %zu files whose reports have none, no error but %zu "
                  "on accessors of zeros (no bufferView, no sparse) the validator does not read\n",
                  same, errors, 100.0 * (double)same / (double)errors, files_without, zeros);
    assert_true(zeros <= 3); /* animation/valid, skin/valid, skin/ignored_animated_transform */
    assert_true(errors > 250);
    assert_true(same * 10 >= errors * 9);
    print_message("from memory: %zu of the %zu errors\n", same_from_memory, errors);
    assert_true(same_from_memory * 10 >= errors * 9);
}

/* Allocations fail after a budget: every failure must leave the scene as it was, and leak nothing. */
typedef struct budget_allocator {
    test_counting_allocator count;
    long budget; /* < 0: unlimited */
} budget_allocator;

static void *budget_alloc(void *user, size_t size)
{
    budget_allocator *b = user;
    if (b->budget == 0) return NULL;
    if (b->budget > 0) b->budget--;
    return test_count_alloc(&b->count, size);
}

static void *budget_realloc(void *user, void *p, size_t old, size_t size)
{
    budget_allocator *b = user;
    if (b->budget == 0) return NULL;
    if (b->budget > 0) b->budget--;
    return test_count_realloc(&b->count, p, old, size);
}

static void budget_free(void *user, void *p, size_t size)
{
    test_count_free(&((budget_allocator *)user)->count, p, size);
}

static void test_atomic_under_failing_allocations(void **state)
{
    (void)state;
    NEED_SHARED();
    static const char *const files[] = { "SimpleSkin/SimpleSkin.gltf", "Cameras/Cameras.gltf",
                                         "bevy_animated_camera_and_light/animated_camera_and_light.glb" };
    for (size_t f = 0; f < 3; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/samples/%s", GLTF_DIR, files[f]);
        long budget = 0;
        for (;; budget++) {
            budget_allocator b = { { 0 }, -1 };
            arbor_scene_desc d = { 0 };
            d.allocator.alloc = budget_alloc;
            d.allocator.realloc = budget_realloc;
            d.allocator.free = budget_free;
            d.allocator.user = &b;
            arbor_scene *s = NULL;
            assert_int_equal(arbor_scene_create(&d, &s), ARBOR_OK);
            assert_non_null(s);
            arbor_node keep = TEST_NODE(s, ARBOR_NONE, "already here", V3(1, 2, 3), NULL, NULL);
            b.budget = budget;
            arbor_gltf *doc = NULL;
            arbor_result r = arbor_gltf_load(s, path, NULL, &doc);
            b.budget = -1;
            if (r == ARBOR_OK) {
                assert_int_equal(arbor_scene_node_count(s), 1 + arbor_gltf_node_count(doc));
                arbor_gltf_destroy(doc);
            } else {
                assert_int_equal(r, ARBOR_ERR_OUT_OF_MEMORY);
                assert_null(doc);
                assert_int_equal(arbor_scene_node_count(s), 1);
                ASSERT_NODE_EQ(arbor_scene_first_root(s), keep);
                ASSERT_NODE_EQ(arbor_scene_last_root(s), keep);
            }
            arbor_scene_destroy(s);
            assert_int_equal(b.count.live_blocks, 0);
            assert_int_equal(b.count.size_mismatches, 0);
            if (r == ARBOR_OK) break;
        }
        print_message("%s: atomic under %ld failing allocation points\n", files[f], budget);
    }
}

int main(void)
{
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalid_corpus_strict),
        cmocka_unit_test(test_invalid_corpus_lenient),
        cmocka_unit_test(test_validate_khronos_codes),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_core_messages_name_file_indices),
        cmocka_unit_test(test_matrix_nodes_locked),
        cmocka_unit_test(test_scenes_and_roots),
        cmocka_unit_test(test_cameras_and_lights),
        cmocka_unit_test(test_simple_skin),
        cmocka_unit_test(test_data_uris_and_sparse),
        cmocka_unit_test(test_glb_framing),
        cmocka_unit_test(test_uris_outside_the_folder),
        cmocka_unit_test(test_fifo_refused),
        cmocka_unit_test(test_million_deep_chain),
        cmocka_unit_test(test_huge_counts_in_a_tiny_file),
        cmocka_unit_test(test_spec_breaches),
        cmocka_unit_test(test_lenient_repairs),
        cmocka_unit_test(test_required_extensions),
        cmocka_unit_test(test_validate_every_error),
        cmocka_unit_test(test_atomic_under_failing_allocations),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(g_corpus.files);
    return failed;
}
