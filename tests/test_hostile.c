/* SPDX-License-Identifier: MIT */
/*
 * tests/test_hostile.c: hostile and extreme input (docs/RELIABILITY.md, "Hostile input").
 *
 * Each input is handled as documented or refused with its result code and a message that says
 * what and where; either way nothing else changes: the scene it meets (a few nodes with names,
 * a locked matrix, a mirror) is compared through a full dump (support/dump.h) before and after.
 *
 * - glTF files, written here into OUTPUT/hostile (fuzz/run takes them as seeds): indices and
 *   counts that claim billions of elements in a kilobyte (accessors without bufferView behind
 *   every reader, with the load's peak allocation bounded by the file's size), GLB headers that claim gigabytes, JSON
 *   nested deeper than anything, numbers beyond float, NaN and infinity spelled out, zero and
 *   negative scales, singular and broken matrices, URIs that try to leave the folder, broken
 *   data: URIs, a 16 MB name, a chain a million deep listed deepest first;
 * - the API: NaN and infinity at every argument of every setter, numbers at float's limits,
 *   worlds that overflow, zero and negative scales, singular matrices under keep-world
 *   reparenting, a 16 MB name;
 * - handles: a generation counter that wraps retires its id for good; a handle no call ever
 *   returned (the next generation of a freed id, generation 0 of a retired one) is dead, and
 *   so is one of another scene, alive or destroyed.
 *
 * The figure printed at the end is the number of bad inputs tried.
 */
#define _XOPEN_SOURCE 700 /* symlink, mkdir */
#include <float.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scene/scene_internal.h" /* generation words, to wrap one without 2^20 creations */
#include "support/dump.h"
#include "test_samples.h"

#define OUT_DIR ARBOR_TEST_OUTPUT_DIR "/hostile"

static unsigned g_bad; /* bad inputs tried */

static void quiet(void *user, arbor_log_level level, const char *message) {
    (void)user;
    (void)level;
    (void)message;
}

/* The scene a hostile input meets: a root, a locked matrix child, a mirrored grandchild. */
static arbor_scene *base_scene(arbor_node h[3]) {
    static const arbor_real m[16] = {0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){.log = quiet}, &s), ARBOR_OK);
    assert_non_null(s);
    h[0] = TEST_NODE(s, ARBOR_NONE, "base", V3(0, 0.2, 0), Q4(0, 0.2588, 0, 0.9659), NULL);
    ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){.name = "joint", .parent = h[0], .matrix = m, .lock_matrix = true}, &h[1]));
    h[2] = TEST_NODE(s, h[1], "mirror", V3(0, 0.7, 0), NULL, V3(1, -1, 1));
    ASSERT_OK(arbor_node_set_mesh(s, h[2], 4));
    return s;
}

static void write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

/* Writes OUT_DIR/name and loads it into the base scene. code ARBOR_OK: it loads (and the
   document is returned, or freed when out is NULL); else it is refused with code, a message
   naming the file and holding `says`, and the scene exactly as before. */
static void load_case(const char *name, const void *data, size_t size, arbor_result code, const char *says,
                      arbor_scene **scene_out, arbor_gltf **doc_out) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", OUT_DIR, name);
    write_file(path, data, size);
    arbor_node h[3];
    arbor_scene *s = base_scene(h);
    scene_dump before = {0}, after = {0};
    scene_dump_take(s, &before);
    arbor_gltf *doc = NULL;
    arbor_result r = arbor_gltf_load(s, path, NULL, &doc);
    if (r != code) fail_msg("%s: %s (%s), expected %s", name, arbor_result_string(r), arbor_last_error(), arbor_result_string(code));
    if (code != ARBOR_OK) {
        g_bad++;
        if (!strstr(arbor_last_error(), path) || !strstr(arbor_last_error(), says))
            fail_msg("%s: the message \"%s\" does not name the file and \"%s\"", name, arbor_last_error(), says);
        assert_null(doc);
        scene_dump_take(s, &after);
        const char *diff = scene_dump_diff(&before, &after);
        if (diff) fail_msg("%s was refused but changed the scene: %s", name, diff);
    }
    scene_dump_free(&before);
    scene_dump_free(&after);
    if (doc_out) {
        *doc_out = doc;
        *scene_out = s;
        return;
    }
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
}

static void load_text(const char *name, const char *json, arbor_result code, const char *says) {
    load_case(name, json, strlen(json), code, says, NULL, NULL);
}

#define ASSET "{\"asset\":{\"version\":\"2.0\"},"

/* ---- glTF files --------------------------------------------------------------------------------- */

static void test_gltf_claims_and_numbers(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    static const struct {
        const char *name, *json;
        arbor_result code;
        const char *says;
    } cases[] = {
        /* indices and counts that claim billions of elements */
        {"scene_index.gltf", ASSET "\"scene\":4000000000,\"scenes\":[{}]}", ARBOR_ERR_PARSE, "/scene"},
        {"root_index.gltf", ASSET "\"scenes\":[{\"nodes\":[4294967295]}],\"nodes\":[{}]}", ARBOR_ERR_PARSE, "/scenes/0/nodes/0"},
        {"child_index.gltf", ASSET "\"nodes\":[{\"children\":[3000000000]}]}", ARBOR_ERR_PARSE, "/nodes/0/children/0"},
        {"joint_index.gltf", ASSET "\"nodes\":[{}],\"skins\":[{\"joints\":[2147483648]}]}", ARBOR_ERR_PARSE, "/skins/0/joints/0"},
        {"negative_index.gltf", ASSET "\"nodes\":[{\"children\":[-1]},{}]}", ARBOR_ERR_PARSE, "/nodes/0/children/0"},
        {"fractional_index.gltf", ASSET "\"nodes\":[{\"children\":[0.5]},{}]}", ARBOR_ERR_PARSE, "/nodes/0/children/0"},
        {"index_2e308.gltf", ASSET "\"nodes\":[{\"mesh\":1e308}]}", ARBOR_ERR_PARSE, "/nodes/0/mesh"},
        {"accessor_4e9.gltf",
         ASSET "\"buffers\":[{\"byteLength\":16,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAA==\"}],"
               "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],\"nodes\":[{}],\"skins\":[{\"joints\":[0],"
               "\"inverseBindMatrices\":0}],\"accessors\":[{\"bufferView\":0,\"type\":\"MAT4\",\"componentType\":5126,"
               "\"count\":4000000000}]}",
         ARBOR_ERR_PARSE, "/accessors/0"},
        {"view_offset_2e18.gltf",
         ASSET "\"buffers\":[{\"byteLength\":16,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAA==\"}],"
               "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":2000000000000000000,\"byteLength\":16}]}",
         ARBOR_ERR_PARSE, "/bufferViews/0"},
        {"sparse_2e9.gltf",
         ASSET "\"buffers\":[{\"byteLength\":16,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAA==\"}],"
               "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],\"accessors\":[{\"type\":\"SCALAR\",\"componentType\":5126,"
               "\"count\":3000000000,\"sparse\":{\"count\":2000000000,\"indices\":{\"bufferView\":0,\"componentType\":5125},"
               "\"values\":{\"bufferView\":0}}}]}",
         ARBOR_ERR_PARSE, "/accessors/0/sparse"},
        /* JSON nested deeper than jansson parses; numbers beyond float and beyond JSON */
        {"nan_literal.gltf", ASSET "\"nodes\":[{\"translation\":[NaN,0,0]}]}", ARBOR_ERR_PARSE, "line 1"},
        {"infinity_literal.gltf", ASSET "\"nodes\":[{\"translation\":[Infinity,0,0]}]}", ARBOR_ERR_PARSE, "line 1"},
        {"exponent_400.gltf", ASSET "\"nodes\":[{\"translation\":[1e400,0,0]}]}", ARBOR_ERR_PARSE, "line 1"},
        {"beyond_float.gltf", ASSET "\"nodes\":[{\"translation\":[3.5e38,0,0]}]}", ARBOR_ERR_PARSE, "/nodes/0/translation"},
        {"scale_beyond_float.gltf", ASSET "\"nodes\":[{\"scale\":[1,-1e39,1]}]}", ARBOR_ERR_PARSE, "/nodes/0/scale"},
        {"matrix_beyond_float.gltf", ASSET "\"nodes\":[{\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,4e38,0,0,1]}]}", ARBOR_ERR_PARSE,
         "/nodes/0/matrix"},
        {"matrix_last_row.gltf", ASSET "\"nodes\":[{\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,2]}]}", ARBOR_ERR_PARSE,
         "/nodes/0/matrix"},
        {"rotation_zero.gltf", ASSET "\"nodes\":[{\"rotation\":[0,0,0,0]}]}", ARBOR_ERR_PARSE, "/nodes/0/rotation"},
        {"rotation_huge.gltf", ASSET "\"nodes\":[{\"rotation\":[3e38,3e38,0,0]}]}", ARBOR_ERR_PARSE, "/nodes/0/rotation"},
        /* data: URIs that lie */
        {"base64_bad.gltf", ASSET "\"buffers\":[{\"byteLength\":4,\"uri\":\"data:application/octet-stream;base64,@@@@\"}]}",
         ARBOR_ERR_PARSE, "/buffers/0"},
        {"base64_short.gltf", ASSET "\"buffers\":[{\"byteLength\":1000000,\"uri\":\"data:application/octet-stream;base64,AAAA\"}]}",
         ARBOR_ERR_PARSE, "/buffers/0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) load_text(cases[i].name, cases[i].json, cases[i].code, cases[i].says);

    /* JSON nested 3000 deep in extras: beyond jansson's limit of 2048, refused, no recursion here */
    size_t depth = 3000, at = 0;
    char *deep = malloc(2 * depth + 128);
    assert_non_null(deep);
    at += (size_t)sprintf(deep, ASSET "\"extras\":");
    for (size_t k = 0; k < depth; k++) deep[at++] = '[';
    for (size_t k = 0; k < depth; k++) deep[at++] = ']';
    at += (size_t)sprintf(deep + at, "}");
    load_case("nested_3000.gltf", deep, at, ARBOR_ERR_PARSE, "depth", NULL, NULL);
    free(deep);

    /* Loaded as they are: float's extremes, zero and negative scales, a singular matrix, a
       buffer of a petabyte that no one reads (nothing is allocated for it). */
    arbor_scene *s;
    arbor_gltf *doc;
    const char *fine = ASSET "\"scenes\":[{\"nodes\":[0,1,2,3]}],\"nodes\":["
                             "{\"translation\":[3.4028234e38,-3.4028234e38,1e-45],\"scale\":[1.1754944e-38,1,1]},"
                             "{\"scale\":[0,0,0]},{\"scale\":[-1,1,1],\"rotation\":[0,0,1,0]},"
                             "{\"matrix\":[0,0,0,0,0,0,0,0,0,0,0,0,5,6,7,1]}],"
                             "\"buffers\":[{\"byteLength\":1000000000000000}]}";
    load_case("extremes.gltf", fine, strlen(fine), ARBOR_OK, NULL, &s, &doc);
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, arbor_gltf_node(doc, 0), &trs));
    assert_true(trs.translation[0] == (arbor_real)3.4028234e38 && trs.translation[2] == (arbor_real)1e-45);
    ASSERT_OK(arbor_node_trs(s, arbor_gltf_node(doc, 1), &trs));
    assert_true(trs.scale[0] == 0 && trs.scale[1] == 0 && trs.scale[2] == 0); /* zero, not the default 1 */
    arbor_real w[16];
    TEST_WORLD(s, arbor_gltf_node(doc, 2), w);
    assert_true(arbor_mat4_determinant3(w) < 0); /* a mirror */
    TEST_WORLD(s, arbor_gltf_node(doc, 3), w);
    assert_true(w[0] == 0 && w[5] == 0 && w[10] == 0 && w[12] == 5);
    /* nothing can be kept-world-reparented under the singular ones */
    arbor_node child = TEST_NODE(s, ARBOR_NONE, "child", V3(1, 1, 1), NULL, NULL);
    for (uint32_t k = 1; k <= 3; k += 2) {
        scene_dump before = {0}, after = {0};
        scene_dump_take(s, &before);
        ASSERT_REFUSED(ARBOR_ERR_SINGULAR, "arbor_node_set_parent",
                       arbor_node_set_parent(s, child, arbor_gltf_node(doc, k), ARBOR_NONE, ARBOR_KEEP_WORLD));
        scene_dump_take(s, &after);
        assert_null(scene_dump_diff(&before, &after));
        scene_dump_free(&before);
        scene_dump_free(&after);
        g_bad++;
    }
    /* what loaded saves and loads back with the same numbers */
    ASSERT_OK(arbor_gltf_save(s, doc, OUT_DIR "/extremes_saved.glb", NULL));
    loaded back = load_ok(OUT_DIR "/extremes_saved.glb");
    ASSERT_OK(arbor_node_trs(back.s, arbor_gltf_node(back.doc, 0), &trs));
    assert_true(trs.translation[1] == (arbor_real)-3.4028234e38 && trs.scale[0] == (arbor_real)1.1754944e-38);
    unload(&back);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
}

/* Accessors of a billion elements and no bufferView, in a few hundred bytes: read as zeros (and
   sparse values), they cost nothing until read, so what a load allocates through the scene's
   allocator stays within a bound proportional to the file's bytes, and validation finds what
   the zeros break (keyframe times that do not increase, inverse bind matrices whose last row is
   not 0, 0, 0, 1), at the pointer the Khronos validator names (its ISSUES.md codes). */
static void test_counts_without_data(void **state) {
    (void)state;
    make_dir(OUT_DIR);
#define BILLION "1000000000"
    static const struct {
        const char *name, *json;
        arbor_result strict;
        const char *code, *pointer; /* the validator's error; NULL: none */
    } cases[] = {
        /* animation times and values: zeros do not increase */
        {"anim_times_no_view.gltf",
         ASSET "\"nodes\":[{}],\"accessors\":[{\"componentType\":5126,\"count\":" BILLION ",\"type\":\"SCALAR\","
               "\"min\":[0],\"max\":[0]},{\"componentType\":5126,\"count\":" BILLION ",\"type\":\"VEC3\"}],"
               "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{\"sampler\":0,"
               "\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}",
         ARBOR_ERR_PARSE, "ACCESSOR_ANIMATION_INPUT_NON_INCREASING", "/animations/0/samplers/0/input"},
        /* a sparse-only input: times 1 and 2 at elements 0 and 1, zeros after them */
        {"anim_times_sparse_only.gltf",
         ASSET "\"nodes\":[{}],\"buffers\":[{\"byteLength\":12,\"uri\":\"data:application/octet-stream;base64,"
               "AAEAAAAAgD8AAABA\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":2},{\"buffer\":0,\"byteOffset\":4,"
               "\"byteLength\":8}],\"accessors\":[{\"componentType\":5126,\"count\":" BILLION ",\"type\":\"SCALAR\","
               "\"min\":[0],\"max\":[2],\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":0,\"componentType\":5121},"
               "\"values\":{\"bufferView\":1}}},{\"componentType\":5126,\"count\":" BILLION ",\"type\":\"VEC3\"}],"
               "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1,\"interpolation\":\"STEP\"}],\"channels\":"
               "[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}",
         ARBOR_ERR_PARSE, "ACCESSOR_ANIMATION_INPUT_NON_INCREASING", "/animations/0/samplers/0/input"},
        /* inverse bind matrices: all zeros, last rows included */
        {"ibm_no_view.gltf",
         ASSET "\"nodes\":[{}],\"skins\":[{\"joints\":[0],\"inverseBindMatrices\":0}],\"accessors\":"
               "[{\"componentType\":5126,\"count\":" BILLION ",\"type\":\"MAT4\"}]}",
         ARBOR_ERR_PARSE, "ACCESSOR_INVALID_IBM", "/skins/0/inverseBindMatrices"},
        /* mesh bounds: POSITION's min and max are the zeros' */
        {"positions_no_view.gltf",
         ASSET "\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
               "\"accessors\":[{\"componentType\":5126,\"count\":" BILLION ",\"type\":\"VEC3\",\"min\":[0,0,0],"
               "\"max\":[0,0,0]}]}",
         ARBOR_OK, NULL, NULL},
        /* instances without data: arbor's documented limit (65536, gltf.h) */
        {"instances_no_view.gltf",
         ASSET "\"extensionsUsed\":[\"EXT_mesh_gpu_instancing\"],\"nodes\":[{\"mesh\":0,\"extensions\":"
               "{\"EXT_mesh_gpu_instancing\":{\"attributes\":{\"TRANSLATION\":1}}}}],\"meshes\":[{\"primitives\":"
               "[{\"attributes\":{\"POSITION\":0}}]}],\"accessors\":[{\"componentType\":5126,\"count\":3,\"type\":"
               "\"VEC3\",\"min\":[0,0,0],\"max\":[0,0,0]},{\"componentType\":5126,\"count\":" BILLION ",\"type\":\"VEC3\"}]}",
         ARBOR_ERR_PARSE, NULL, NULL},
    };
#undef BILLION
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", OUT_DIR, cases[i].name);
        size_t size = strlen(cases[i].json);
        write_file(path, cases[i].json, size);
        /* what the load allocates beyond the empty scene: at most 16 bytes per byte of the file and
           64 KB (the old loader asked for 16 GB here, refused by max_live as the bound) */
        const int64_t bound = 16 * (int64_t)size + (64 << 10);
        for (int lenient = 0; lenient < 2; lenient++) {
            test_counting_allocator count = {0};
            arbor_scene *s = NULL;
            ASSERT_OK(arbor_scene_create(&(arbor_scene_desc){.allocator = test_counting_allocator_hooks(&count, true), .log = quiet}, &s));
            int64_t before = count.live_bytes;
            count.peak_bytes = before;
            count.max_live = before + bound;
            arbor_gltf_options o = ARBOR_GLTF_OPTIONS_DEFAULT;
            o.lenient = lenient;
            arbor_gltf *doc = NULL;
            arbor_result r = arbor_gltf_load(s, path, &o, &doc);
            arbor_result want = lenient ? ARBOR_OK : cases[i].strict;
            if (r != want)
                fail_msg("%s (%s): %s (%s), expected %s", cases[i].name, lenient ? "lenient" : "strict", arbor_result_string(r),
                         arbor_last_error(), arbor_result_string(want));
            if (r && cases[i].pointer && !strstr(arbor_last_error(), cases[i].pointer))
                fail_msg("%s: \"%s\" does not name %s", cases[i].name, arbor_last_error(), cases[i].pointer);
            if (count.peak_bytes - before > bound || count.failed)
                fail_msg("%s: the load took %lld bytes (%llu refused), the bound is %lld for %zu bytes of file", cases[i].name,
                         (long long)(count.peak_bytes - before), (unsigned long long)count.failed, (long long)bound, size);
            if (lenient)
                print_message("%s: %zu bytes, the lenient load took %lld at most\n", cases[i].name, size,
                              (long long)(count.peak_bytes - before));
            arbor_gltf_destroy(doc);
            arbor_scene_destroy(s);
            assert_int_equal(count.live_bytes, 0);
        }
        arbor_gltf_message m[8];
        uint32_t n = 0;
        arbor_gltf_validate_messages(path, NULL, m, 8, &n);
        bool found = false;
        for (uint32_t k = 0; k < n && k < 8; k++) {
            found |= cases[i].code && !strcmp(m[k].code, cases[i].code) && !strcmp(m[k].pointer, cases[i].pointer) &&
                     m[k].severity == 0;
            if (!cases[i].code && cases[i].strict == ARBOR_OK && m[k].severity == 0)
                fail_msg("%s: an error where there is none: %s %s", cases[i].name, m[k].code, m[k].message);
        }
        if (cases[i].code && !found) fail_msg("%s: validate reports no %s at %s (%u messages)", cases[i].name, cases[i].code, cases[i].pointer, n);
        if (!cases[i].code && cases[i].strict) { /* the limit: a refusal that says so */
            assert_true(n >= 1);
            assert_string_equal(m[0].code, "ARBOR_LIMIT");
            assert_string_equal(m[0].pointer, "/nodes/0/extensions/EXT_mesh_gpu_instancing/attributes");
        }
        g_bad++;
    }
}

/* Little-endian words of a GLB. */
static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void test_glb_claims(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    const char json[] = "{\"asset\":{\"version\":\"2.0\"}}    "; /* 32 bytes */
    unsigned char glb[1024] = {0};
    const struct {
        const char *name;
        uint32_t total, json_length, bin_length;
    } cases[] = {
        {"total_4g.glb", 0xFFFFFFFFu, 32, 0},       /* a file of 4 GB in 1 KB */
        {"json_4g.glb", 20 + 32, 0xFFFFFFF0u, 0},   /* a JSON chunk past the end */
        {"bin_2g.glb", 20 + 32 + 8, 32, 0x80000000u}, /* a BIN chunk of 2 GB */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        memcpy(glb, "glTF", 4);
        put32(glb + 4, 2);
        put32(glb + 8, cases[i].total);
        put32(glb + 12, cases[i].json_length);
        memcpy(glb + 16, "JSON", 4);
        memcpy(glb + 20, json, 32);
        put32(glb + 52, cases[i].bin_length);
        memcpy(glb + 56, "BIN", 4);
        load_case(cases[i].name, glb, sizeof glb, ARBOR_ERR_PARSE, "GLB", NULL, NULL);
    }
}

static void test_uris_that_leave(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    make_dir(OUT_DIR "/inside");
    write_file(OUT_DIR "/secret.bin", "0123456789abcdef", 16);
    write_file(OUT_DIR "/inside/in.bin", "0123456789abcdef", 16);
    char longest[6000];
    memset(longest, 'a', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    const struct {
        const char *uri;
        arbor_result code; /* as a buffer's (an image's is the same, but for the missing file) */
    } uris[] = {
        {"..%2Fsecret.bin", ARBOR_ERR_IO}, {"%2E%2E/secret.bin", ARBOR_ERR_IO}, {"..\\\\secret.bin", ARBOR_ERR_IO},
        {"inside/../../secret.bin", ARBOR_ERR_IO}, {"C:/secret.bin", ARBOR_ERR_IO}, {"//host/share/secret.bin", ARBOR_ERR_IO},
        {"file:///etc/passwd", ARBOR_ERR_IO}, {"http://example.com/secret.bin", ARBOR_ERR_IO}, {"in.bin?x=1", ARBOR_ERR_IO},
        {"in.bin#x", ARBOR_ERR_IO}, {"in%00.bin", ARBOR_ERR_PARSE}, {"/etc/passwd", ARBOR_ERR_IO}, {longest, ARBOR_ERR_IO},
    };
    for (size_t i = 0; i < sizeof uris / sizeof *uris; i++) {
        char json[7000], name[64];
        snprintf(json, sizeof json, ASSET "\"buffers\":[{\"byteLength\":16,\"uri\":\"%s\"}]}", uris[i].uri);
        snprintf(name, sizeof name, "inside/uri_%zu.gltf", i);
        load_text(name, json, uris[i].code, "/buffers/0/uri");
    }
    /* the same URIs as images, which arbor does not read: held to the folder all the same */
    for (size_t i = 0; i + 1 < sizeof uris / sizeof *uris; i++) {
        char json[7000], name[64];
        snprintf(json, sizeof json, ASSET "\"images\":[{\"uri\":\"%s\"}]}", uris[i].uri);
        snprintf(name, sizeof name, "inside/image_%zu.gltf", i);
        load_text(name, json, uris[i].code, "/images/0/uri");
    }
    /* a symbolic link out of the folder */
    unlink(OUT_DIR "/inside/link.bin");
    assert_int_equal(symlink(OUT_DIR "/secret.bin", OUT_DIR "/inside/link.bin"), 0);
    load_text("inside/link.gltf", ASSET "\"buffers\":[{\"byteLength\":16,\"uri\":\"link.bin\"}]}", ARBOR_ERR_IO, "/buffers/0/uri");
    /* and one that stays inside loads */
    load_text("inside/fine.gltf", ASSET "\"buffers\":[{\"byteLength\":16,\"uri\":\"in.bin\"}]}", ARBOR_OK, NULL);
}

/* A name of 16 MB in a file, and through the API: kept whole, saved and loaded back. */
static void test_huge_names(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    const size_t n = 16u << 20;
    char *name = malloc(n + 1), *json = malloc(n + 128);
    assert_true(name && json);
    for (size_t i = 0; i < n; i++) name[i] = (char)('a' + i % 26);
    name[n] = '\0';
    int len = sprintf(json, ASSET "\"nodes\":[{\"name\":\"%s\"}]}", name);
    arbor_scene *s;
    arbor_gltf *doc;
    load_case("name_16mb.gltf", json, (size_t)len, ARBOR_OK, NULL, &s, &doc);
    arbor_node big = arbor_gltf_node(doc, 0);
    assert_int_equal(strlen(arbor_node_name(s, big)), n);
    assert_memory_equal(arbor_node_name(s, big), name, n);
    name[0] = 'Z';
    ASSERT_OK(arbor_node_set_name(s, big, name));
    assert_int_equal(arbor_node_name(s, big)[0], 'Z');
    ASSERT_OK(arbor_gltf_save(s, doc, OUT_DIR "/name_16mb_saved.glb", NULL));
    loaded back = load_ok(OUT_DIR "/name_16mb_saved.glb");
    assert_string_equal(arbor_node_name(back.s, arbor_gltf_node(back.doc, 0)), name);
    unload(&back);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
    free(name);
    free(json);
}

/* A chain a million nodes deep, listed deepest first (each node's child comes before it in the
   file, the root last): created parents first, no recursion anywhere. */
static void test_million_deep_chain_reversed(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    const uint32_t n = 1000000;
    size_t cap = (size_t)n * 48 + 256, at = 0;
    char *json = malloc(cap);
    assert_non_null(json);
    at += (size_t)sprintf(json, ASSET "\"scenes\":[{\"nodes\":[%u]}],\"nodes\":[{\"name\":\"tip\",\"translation\":[0,1,0]}", n - 1);
    for (uint32_t i = 1; i < n; i++) at += (size_t)sprintf(json + at, ",{\"translation\":[0,1,0],\"children\":[%u]}", i - 1);
    at += (size_t)sprintf(json + at, "]}");
    arbor_scene *s;
    arbor_gltf *doc;
    load_case("chain_reversed.gltf", json, at, ARBOR_OK, NULL, &s, &doc);
    free(json);
    arbor_node tip = arbor_gltf_node(doc, 0);
    assert_int_equal(arbor_node_depth(s, tip), n - 1);
    arbor_real o[3];
    TEST_WORLD_ORIGIN(s, tip, o);
    ASSERT_VEC3_NEAR(o, 0, n, 0, 0);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
}

/* ---- the API ------------------------------------------------------------------------------------- */

/* call is refused with code, naming fn, and the scene stays as it was. */
#define REFUSED_UNCHANGED(s, code, fn, call)                                                                           \
    do {                                                                                                               \
        scene_dump before_ = {0}, after_ = {0};                                                                        \
        scene_dump_take((s), &before_);                                                                                \
        ASSERT_REFUSED((code), (fn), (call));                                                                          \
        scene_dump_take((s), &after_);                                                                                 \
        const char *diff_ = scene_dump_diff(&before_, &after_);                                                        \
        if (diff_) fail_msg("%s was refused but changed the scene: %s", #call, diff_);                                  \
        scene_dump_free(&before_);                                                                                     \
        scene_dump_free(&after_);                                                                                      \
        g_bad++;                                                                                                       \
    } while (0)

/* NaN, +infinity and -infinity at every argument of every setter that takes numbers. */
static void test_nonfinite_everywhere(void **state) {
    (void)state;
    arbor_node h[3];
    arbor_scene *s = base_scene(h);
    const arbor_real bad[3] = {(arbor_real)NAN, (arbor_real)INFINITY, -(arbor_real)INFINITY};
    const arbor_node n = h[0];
    const arbor_real ok_light_cone = 0.5f;
    for (int b = 0; b < 3; b++) {
        const arbor_real x = bad[b];
        for (int k = 0; k < 3; k++) {
            arbor_real v[4] = {1, 2, 3, 1};
            v[k] = x;
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_node_set_translation", arbor_node_set_translation(s, n, v[0], v[1], v[2]));
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_node_set_scale", arbor_node_set_scale(s, n, v[0], v[1], v[2]));
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_scene_set_translations", arbor_scene_set_translations(s, &n, v, 1));
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_scene_set_scales", arbor_scene_set_scales(s, &n, v, 1));
            arbor_real lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
            lo[k] = x;
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_node_set_bounds", arbor_node_set_bounds(s, n, lo, hi));
        }
        for (int k = 0; k < 4; k++) {
            arbor_real q[4] = {0, 0, 0, 1};
            q[k] = x;
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_node_set_rotation", arbor_node_set_rotation(s, n, q[0], q[1], q[2], q[3]));
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_scene_set_rotations", arbor_scene_set_rotations(s, &n, q, 1));
        }
        for (int k = 0; k < 10; k++) {
            arbor_trs trs = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
            ((arbor_real *)&trs)[k] = x;
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_node_set_trs", arbor_node_set_trs(s, n, &trs));
            arbor_node_desc d = {.parent = n, .name = "never"};
            memcpy(d.translation, trs.translation, sizeof d.translation);
            memcpy(d.rotation, trs.rotation, sizeof d.rotation);
            memcpy(d.scale, trs.scale, sizeof d.scale);
            arbor_node made;
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_node_create", arbor_node_create(s, &d, &made));
        }
        for (int k = 0; k < 16; k++) {
            arbor_real m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
            m[k] = x;
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_node_set_local_matrix", arbor_node_set_local_matrix(s, n, m, false));
            arbor_node made;
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_node_create",
                              arbor_node_create(s, &(arbor_node_desc){.matrix = m}, &made));
        }
        for (int k = 0; k < 6; k++) {
            arbor_camera c = {.type = ARBOR_CAMERA_PERSPECTIVE, .yfov = 1, .aspect = 1, .xmag = 1, .ymag = 1, .znear = 0.1f, .zfar = 10};
            (&c.yfov)[k] = x;
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_node_set_camera", arbor_node_set_camera(s, n, &c));
        }
        for (int k = 0; k < 10; k++) {
            arbor_light l = {.type = ARBOR_LIGHT_SPOT, .color = {1, 1, 1}, .intensity = 1, .outer_cone = ok_light_cone};
            (&l.color[0])[k] = x;
            REFUSED_UNCHANGED(s, ARBOR_ERR_NONFINITE, "arbor_node_set_light", arbor_node_set_light(s, n, &l));
        }
    }
    arbor_scene_destroy(s);
}

/* Finite numbers at arbor_real's limits are taken as given; worlds whose products overflow hold
   infinities, which reads report as they are and keep-world reparenting refuses to invert. */
static void test_float_limits(void **state) {
    (void)state;
    arbor_node h[3];
    arbor_scene *s = base_scene(h);
#if ARBOR_REAL_IS_DOUBLE
    const arbor_real big = DBL_MAX, tiny = DBL_TRUE_MIN;
#else
    const arbor_real big = FLT_MAX, tiny = FLT_TRUE_MIN;
#endif
    arbor_node far = TEST_NODE(s, ARBOR_NONE, "far", V3(big, -big, tiny), NULL, V3(big, 1, 1));
    arbor_node farther = TEST_NODE(s, far, "farther", V3(big, 0, 0), NULL, NULL);
    arbor_real w[16];
    TEST_WORLD(s, far, w);
    assert_true(w[12] == big && w[13] == -big && w[14] == tiny && w[0] == big);
    TEST_WORLD(s, farther, w);
    assert_true(isinf(w[12]) && w[12] > 0); /* big * big + big */
    arbor_scene_update(s);
    arbor_real again[16];
    TEST_WORLD(s, farther, again);
    assert_memory_equal(w, again, sizeof w);
    arbor_node child = TEST_NODE(s, ARBOR_NONE, "child", V3(1, 2, 3), NULL, NULL);
    REFUSED_UNCHANGED(s, ARBOR_ERR_SINGULAR, "arbor_node_set_parent",
                      arbor_node_set_parent(s, child, farther, ARBOR_NONE, ARBOR_KEEP_WORLD));
    ASSERT_OK(arbor_node_set_parent(s, child, farther, ARBOR_NONE, ARBOR_KEEP_LOCAL)); /* no inverse needed */
    /* a quaternion at float's limit normalises; a zero one is refused */
    ASSERT_OK(arbor_node_set_rotation(s, child, big, big, 0, 0));
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(s, child, &trs));
    ASSERT_NEAR(trs.rotation[0], 0.70710678, 1e-6);
    ASSERT_OK(arbor_node_set_rotation(s, child, tiny, 0, 0, 0));
    ASSERT_OK(arbor_node_trs(s, child, &trs));
    ASSERT_NEAR(trs.rotation[0], 1, 1e-6);
    REFUSED_UNCHANGED(s, ARBOR_ERR_INVALID_ARGUMENT, "arbor_node_set_rotation", arbor_node_set_rotation(s, child, 0, 0, 0, 0));
    arbor_scene_destroy(s);
}

/* Zero and negative scales, singular matrices: legal locals; only an inverse is refused. */
static void test_zero_negative_singular(void **state) {
    (void)state;
    arbor_node h[3];
    arbor_scene *s = base_scene(h);
    arbor_node flat = TEST_NODE(s, ARBOR_NONE, "flat", V3(1, 0, 0), NULL, NULL);
    ASSERT_OK(arbor_node_set_scale(s, flat, 0, 1, 1));
    arbor_node under = TEST_NODE(s, flat, "under", V3(0, 1, 0), NULL, NULL);
    arbor_node loose = TEST_NODE(s, ARBOR_NONE, "loose", V3(0, 0, 5), NULL, NULL);
    REFUSED_UNCHANGED(s, ARBOR_ERR_SINGULAR, "arbor_node_set_parent",
                      arbor_node_set_parent(s, loose, flat, ARBOR_NONE, ARBOR_KEEP_WORLD));
    /* a node under a flat parent leaves it keeping its (flat) world */
    arbor_real before[16], after[16];
    TEST_WORLD(s, under, before);
    ASSERT_OK(arbor_node_set_parent(s, under, ARBOR_NONE, ARBOR_NONE, ARBOR_KEEP_WORLD));
    TEST_WORLD(s, under, after);
    ASSERT_MAT4_NEAR(after, before, TEST_EPS);
    /* singular matrices, locked or not */
    const arbor_real zero[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 1};
    const arbor_real rank1[16] = {1, 1, 1, 0, 2, 2, 2, 0, -1, -1, -1, 0, 0, 0, 0, 1};
    ASSERT_OK(arbor_node_set_local_matrix(s, flat, zero, true));
    REFUSED_UNCHANGED(s, ARBOR_ERR_SINGULAR, "arbor_node_set_parent",
                      arbor_node_set_parent(s, loose, flat, ARBOR_NONE, ARBOR_KEEP_WORLD));
    ASSERT_OK(arbor_node_set_local_matrix(s, flat, rank1, false));
    REFUSED_UNCHANGED(s, ARBOR_ERR_SINGULAR, "arbor_node_set_parent",
                      arbor_node_set_parent(s, loose, flat, ARBOR_NONE, ARBOR_KEEP_WORLD));
    /* mirrors: a mirrored child under a mirrored parent keeps its world, mirror and all */
    arbor_node m1 = TEST_NODE(s, ARBOR_NONE, "m1", V3(1, 2, 3), Q4(0, 0.3826834, 0, 0.9238795), V3(-1, 2, 1));
    arbor_node m2 = TEST_NODE(s, ARBOR_NONE, "m2", V3(-2, 0, 1), Q4(0.5, 0.5, 0.5, 0.5), V3(1, 1, -3));
    TEST_WORLD(s, m2, before);
    ASSERT_OK(arbor_node_set_parent(s, m2, m1, ARBOR_NONE, ARBOR_KEEP_WORLD));
    TEST_WORLD(s, m2, after);
    ASSERT_MAT4_NEAR_REL(after, before, TEST_EPS_ROUNDTRIP);
    assert_true(arbor_mat4_determinant3(after) < 0);
    arbor_scene_destroy(s);
}

/* ---- handles ----------------------------------------------------------------------------------- */

static arbor_node handle(uint32_t id, uint32_t generation) { return (arbor_node){(uint64_t)generation << 32 | id}; }

static void expect_dead(arbor_scene *s, arbor_node h) {
    arbor_real w[16];
    if (arbor_node_alive(s, h)) fail_msg("handle %uv%u is alive", (unsigned)(uint32_t)h.id, (unsigned)(h.id >> 32));
    scene_dump before = {0}, after = {0};
    scene_dump_take(s, &before);
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_world_matrix", arbor_node_world_matrix(s, h, w));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_set_translation", arbor_node_set_translation(s, h, 1, 1, 1));
    ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_node_destroy", arbor_node_destroy(s, h));
    assert_int_equal(arbor_node_world_version(s, h), 0);
    assert_null(arbor_node_name(s, h));
    scene_dump_take(s, &after);
    assert_null(scene_dump_diff(&before, &after));
    scene_dump_free(&before);
    scene_dump_free(&after);
    g_bad += 4;
}

/* A generation counter that wraps retires its id: no handle of it lives again. A handle no call
   returned (the next generation of a freed id, the generation 0 of a retired one) is dead. */
static void test_generations(void **state) {
    (void)state;
    arbor_node h[3];
    arbor_scene *s = base_scene(h);
    /* the next generation of a freed id, before the id is reused */
    arbor_node a = TEST_NODE(s, h[2], "a", NULL, NULL, NULL);
    uint32_t id = (uint32_t)a.id, gen = (uint32_t)(a.id >> 32), tag = gen & ~ARBOR__GEN_MASK; /* the scene's */
    ASSERT_OK(arbor_node_destroy(s, a));
    expect_dead(s, a);
    for (uint32_t g = gen + 1; g < gen + 4; g++) expect_dead(s, handle(id, g));
    expect_dead(s, handle(id, tag));
    expect_dead(s, handle(id, 0));
    arbor_node b = TEST_NODE(s, ARBOR_NONE, "b", NULL, NULL, NULL);
    assert_int_equal((uint32_t)b.id, id); /* the id is reused, under a new generation */
    assert_true((uint32_t)(b.id >> 32) != gen);
    expect_dead(s, a);
    /* wrap: the id's generation at its last value, then freed */
    s->n.gen[id] = tag | ARBOR__GEN_MASK; /* as after 2^ARBOR__GEN_BITS - 2 reuses */
    arbor_node last = handle(id, tag | ARBOR__GEN_MASK);
    assert_true(arbor_node_alive(s, last));
    ASSERT_OK(arbor_node_destroy(s, last));
    expect_dead(s, last);
    expect_dead(s, b);
    for (uint32_t g = 0; g < 4; g++) expect_dead(s, handle(id, tag | g));
    expect_dead(s, handle(id, tag + ARBOR__GEN_MASK + 1)); /* the word one past: the next tag's first */
    for (int k = 0; k < 100; k++) { /* never again under that id */
        arbor_node c = TEST_NODE(s, h[k % 3], "c", NULL, NULL, NULL);
        assert_true((uint32_t)c.id != id);
        if (k % 2) ASSERT_OK(arbor_node_destroy(s, c));
    }
    for (uint32_t g = 0; g < 4; g++) expect_dead(s, handle(id, tag | g));
    expect_dead(s, last);
    /* ids and generations never seen */
    expect_dead(s, handle(0xFFFFFF, 1));
    expect_dead(s, handle(UINT32_MAX, UINT32_MAX));
    arbor_scene_destroy(s);
}

/* A handle names its scene: one of another scene is dead here on every path, even with the id
   and generation of a node here (scenes built alike), and stays dead after its scene is gone. */
static void expect_foreign(arbor_scene *s, const arbor_node *foreign, const arbor_node *own, int count) {
    arbor_node list[4];
    for (int i = 0; i < count; i++) {
        assert_int_equal(test_node_key(foreign[i]), test_node_key(own[i])); /* same id, same generation */
        expect_dead(s, foreign[i]); /* alive, a getter, setters, destroy: refused, nothing changed */
        list[i] = own[i];
    }
    scene_dump before = {0}, after = {0};
    scene_dump_take(s, &before);
    const arbor_real v[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    for (int i = count - 1; i >= 0; i--) {
        list[i] = foreign[i]; /* the lowest foreign index is i */
        ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_scene_set_translations", arbor_scene_set_translations(s, list, v, (uint32_t)count));
        char says[16];
        snprintf(says, sizeof says, "nodes[%d]", i);
        assert_non_null(strstr(arbor_last_error(), says));
        arbor_pose *p = NULL;
        ASSERT_REFUSED(ARBOR_ERR_DEAD_NODE, "arbor_pose_create", arbor_pose_create(s, list, (uint32_t)count, &p));
        assert_null(p);
        g_bad += 2;
    }
    scene_dump_take(s, &after);
    assert_null(scene_dump_diff(&before, &after));
    scene_dump_free(&before);
    scene_dump_free(&after);
}

/* A root, its child, and the child's child made on a reused id (its second generation). */
static arbor_scene *three_nodes(arbor_node h[3]) {
    arbor_scene *s = NULL;
    ASSERT_OK(arbor_scene_create(&(arbor_scene_desc){.log = quiet}, &s));
    h[0] = TEST_NODE(s, ARBOR_NONE, "root", V3(1, 0, 0), NULL, NULL);
    h[1] = TEST_NODE(s, h[0], "child", V3(0, 2, 0), NULL, NULL);
    ASSERT_OK(arbor_node_destroy(s, TEST_NODE(s, h[1], "gone", NULL, NULL, NULL)));
    h[2] = TEST_NODE(s, h[1], "leaf", V3(0, 0, 3), NULL, V3(2, 2, 2));
    arbor_scene_update(s);
    return s;
}

static void test_foreign_handles(void **state) {
    (void)state;
    arbor_node ha[3], hb[3], hc[3];
    arbor_scene *a = three_nodes(ha), *b = three_nodes(hb);
    expect_foreign(b, ha, hb, 3);
    expect_foreign(a, hb, ha, 3);
    arbor_scene_destroy(a); /* its handles stay dead in b, and in a scene made since */
    arbor_scene *c = three_nodes(hc);
    expect_foreign(b, ha, hb, 3);
    expect_foreign(c, ha, hc, 3);
    expect_foreign(c, hb, hc, 3);
    arbor_scene_destroy(b);
    arbor_scene_destroy(c);
}

/* Scene tags: live scenes have tags of their own (each one's first node, id 1 generation 1 in
   all of them, is dead in every other), and a destroyed scene's tag comes back last: its
   handle stays dead in each of the next ARBOR__TAGS - 1 scenes, made and destroyed one by one
   (nothing else lives meanwhile in this program). */
static void test_scene_tags(void **state) {
    (void)state;
    enum { LIVE = 512 };
    arbor_scene *s[LIVE];
    arbor_node first[LIVE];
    for (int i = 0; i < LIVE; i++) {
        ASSERT_OK(arbor_scene_create(NULL, &s[i]));
        ASSERT_OK(arbor_node_create(s[i], &(arbor_node_desc){0}, &first[i]));
    }
    for (int i = 0; i < LIVE; i++)
        for (int j = 0; j < LIVE; j++)
            if (arbor_node_alive(s[j], first[i]) != (i == j)) fail_msg("scene %d's node: alive in scene %d", i, j);
    for (int i = 0; i < LIVE; i++) arbor_scene_destroy(s[i]);
    arbor_scene *gone, *next;
    arbor_node old, fresh;
    ASSERT_OK(arbor_scene_create(NULL, &gone));
    ASSERT_OK(arbor_node_create(gone, &(arbor_node_desc){0}, &old));
    arbor_scene_destroy(gone);
    for (uint32_t k = 1; k < ARBOR__TAGS; k++) {
        ASSERT_OK(arbor_scene_create(NULL, &next));
        ASSERT_OK(arbor_node_create(next, &(arbor_node_desc){0}, &fresh));
        assert_int_equal(test_node_key(fresh), test_node_key(old));
        if (arbor_node_alive(next, old)) fail_msg("a destroyed scene's node is alive in the %u-th scene made after it", k);
        arbor_scene_destroy(next);
    }
}

/* After the scene renumbered its slots (an update with much to do puts them back in tree
   order, scene/layout.c), ids and slots no longer match: the next handle of every freed id is
   still dead, and every live handle still names its own node. */
static void test_generations_after_renumbering(void **state) {
    (void)state;
    arbor_node h[3];
    arbor_scene *s = base_scene(h);
    arbor_node n[40];
    for (int k = 0; k < 40; k++) n[k] = TEST_NODE(s, k < 20 ? ARBOR_NONE : n[k - 20], "n", V3(k, 0, 0), NULL, NULL);
    /* early nodes under late ones: the slots leave tree order */
    for (int k = 0; k < 10; k++) ASSERT_OK(arbor_node_set_parent(s, n[k], n[30 + k], ARBOR_NONE, ARBOR_KEEP_LOCAL));
    assert_true(s->order_inversions > 0);
    arbor_scene_update(s);
    assert_int_equal(s->order_inversions, 0); /* renumbered */
    for (int k = 39; k >= 0; k -= 3)
        if (arbor_node_alive(s, n[k])) ASSERT_OK(arbor_node_destroy(s, n[k]));
    for (int k = 0; k < 40; k++) {
        if (arbor_node_alive(s, n[k])) {
            const char *name = arbor_node_name(s, n[k]);
            assert_non_null(name);
            arbor_real w[16];
            TEST_WORLD(s, n[k], w);
            ASSERT_NEAR(w[12] - w[12] + 1, 1, 0); /* a read of its own node, no crash */
        }
    }
    for (uint32_t id = 1; id < s->id_end; id++) {
        arbor_node next = handle(id, s->n.gen[id]);
        bool issued = false;
        for (int k = 0; k < 40; k++) issued |= n[k].id == next.id && arbor_node_alive(s, n[k]);
        for (int k = 0; k < 3; k++) issued |= h[k].id == next.id;
        if (!issued) expect_dead(s, next);
    }
    arbor_scene_destroy(s);
}

int main(void) {
    test_check_real_size();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gltf_claims_and_numbers),
        cmocka_unit_test(test_counts_without_data),
        cmocka_unit_test(test_glb_claims),
        cmocka_unit_test(test_uris_that_leave),
        cmocka_unit_test(test_huge_names),
        cmocka_unit_test(test_million_deep_chain_reversed),
        cmocka_unit_test(test_nonfinite_everywhere),
        cmocka_unit_test(test_float_limits),
        cmocka_unit_test(test_zero_negative_singular),
        cmocka_unit_test(test_generations),
        cmocka_unit_test(test_generations_after_renumbering),
        cmocka_unit_test(test_foreign_handles),
        cmocka_unit_test(test_scene_tags),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    printf("hostile: %u bad inputs tried, each refused with its code and a message, nothing else changed\n", g_bad);
    return failed;
}
