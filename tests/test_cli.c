/* SPDX-License-Identifier: MIT */
/*
 * tests/test_cli.c: the `arbor` command (ARBOR_CLI_PATH), run as a user would.
 *
 * - every command's --help exits 0; usage errors exit 2, files that fail to load exit 1;
 * - `demo --save` writes examples/robot_arm.gltf byte for byte (float builds; the numbers of a
 *   double build have more digits), and the file validates;
 * - `dump --json` on the robot arm and every sample: the exact fields, in order, and every
 *   local and world matrix equal (bit for bit after reading the digits back) to what a direct
 *   load gives; streamed for a chain of a million nodes;
 * - failures print one line each, "arbor: CMD: FILE: POINTER: ..." (no library function's name),
 *   warnings "arbor: CMD: warning: ...", standard input named "(standard input)", an unknown
 *   command one line;
 * - `validate` on a good file, on ../shared/gltf/invalid/node/node_loop.gltf and on both, and
 *   of standard input;
 * - `convert` .glb -> .gltf -> .glb round trips of every sample keep every world matrix;
 * - `tree`, `info` and `dot` name what they should;
 * - `edit` applies a script and -e commands (every command, undo and redo) and the saved file
 *   has the expected hierarchy, order, indices and transforms; a matrix node goes back to TRS;
 *   each bad command stops with its line and writes nothing;
 * - `cull` on the robot arm, with a framing camera and with an orthographic one that sees the
 *   left arm in seven box tests; `render` writes a PNG and an SVG of the right size (when built
 *   with cairo).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "test_gltf_json.h"

#include "arbor/gltf.h"

#ifndef ARBOR_CLI_PATH
#error "ARBOR_CLI_PATH: the build defines the path of the arbor command for the tests"
#endif

#define OUT_DIR ARBOR_TEST_OUTPUT_DIR "/cli"
#define EXAMPLE ARBOR_SOURCE_DIR "/examples/robot_arm.gltf"
#define STDOUT_FILE OUT_DIR "/stdout.txt"
#define STDERR_FILE OUT_DIR "/stderr.txt"

/* ---- running the command -------------------------------------------------------------------- */

/* Runs `arbor ARGS` (ARGS is shell text), stdout and stderr into files; the exit status. */
static int run(const char *args) { return run_arbor(OUT_DIR, args); }

static void assert_output_contains(const char *file, const char *needle) {
    char *text = read_file(file, NULL);
    assert_non_null(text);
    if (!strstr(text, needle)) fail_msg("%s does not contain \"%s\":\n%s", file, needle, text);
    free(text);
}

/* The number printed right after `after` (the first occurrence past `from`, if given) is
   `expected` within `tol`; returns where the number ended. */
static const char *assert_number_after(const char *text, const char *after, double expected, double tol) {
    const char *at = strstr(text, after);
    if (!at) fail_msg("the output does not contain \"%s\":\n%s", after, text);
    char *end;
    double v = strtod(at + strlen(after), &end);
    if (end == at + strlen(after)) fail_msg("no number after \"%s\"", after);
    if (!(fabs(v - expected) <= tol)) fail_msg("after \"%s\": %.9g, expected %.9g within %g", after, v, expected, tol);
    return end;
}

/* ---- help and exit codes -------------------------------------------------------------------- */

static void test_help_and_exit_codes(void **state) {
    (void)state;
    const char *commands[] = { "demo", "info", "tree", "dump", "validate", "convert", "dot", "edit" };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char args[64], usage[64];
        snprintf(args, sizeof args, "%s --help", commands[i]);
        snprintf(usage, sizeof usage, "usage: arbor %s", commands[i]);
        assert_int_equal(run(args), 0);
        assert_output_contains(STDOUT_FILE, usage);
    }
    /* the version, the precision and the SIMD path, as the library says them */
    assert_int_equal(run("--version"), 0);
    char version[96];
    snprintf(version, sizeof version, "arbor %d.%d.%d (%s, %s)\n", ARBOR_VERSION_MAJOR, ARBOR_VERSION_MINOR,
             ARBOR_VERSION_PATCH, ARBOR_REAL_IS_DOUBLE ? "double" : "float", arbor_simd_path());
    assert_output_contains(STDOUT_FILE, version);
    assert_true(!strcmp(arbor_simd_path(), "AVX2") || !strcmp(arbor_simd_path(), "SSE2") ||
                !strcmp(arbor_simd_path(), "NEON") || !strcmp(arbor_simd_path(), "scalar"));
    assert_string_equal(arbor_version(), "1.1.0");
    assert_int_equal(run("--help"), 0);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) assert_output_contains(STDOUT_FILE, commands[i]);
    assert_int_equal(run("frobnicate"), 2);
    assert_int_equal(run("info"), 2);
    assert_output_contains(STDERR_FILE, "FILE is missing");
    assert_int_equal(run("tree '" EXAMPLE "' --bogus"), 2);
    assert_int_equal(run("tree '" EXAMPLE "' --scene x"), 2);
    assert_int_equal(run("tree '" EXAMPLE "' --scene 7"), 2);
    assert_int_equal(run("convert '" EXAMPLE "'"), 2);
    assert_int_equal(run("info '" OUT_DIR "/no such file.gltf'"), 1);
    assert_output_contains(STDERR_FILE, "no such file.gltf");
    assert_int_equal(run("convert '" EXAMPLE "' '" OUT_DIR "/arm.obj'"), 2); /* a usage error: .gltf or .glb */
}

/* ---- the example file ------------------------------------------------------------------------ */

static void test_demo_save_is_the_example(void **state) {
    (void)state;
    assert_int_equal(run("demo --save '" OUT_DIR "/robot_arm.gltf'"), 0);
    size_t made_size = 0, example_size = 0;
    char *made = read_file(OUT_DIR "/robot_arm.gltf", &made_size), *example = read_file(EXAMPLE, &example_size);
    assert_non_null(made);
    assert_non_null(example);
    if (arbor_real_size() == sizeof(float)) {
        if (made_size != example_size || memcmp(made, example, made_size))
            fail_msg("examples/robot_arm.gltf is not what `arbor demo --save` writes: run\n"
                     "  arbor demo --save examples/robot_arm.gltf\nand commit the result");
    } else {
        print_message("double build: the example is compared node by node, not byte by byte\n");
    }
    free(made);
    free(example);
    /* Both load, with the same parts and world matrices (within float precision). */
    loaded a = load_ok(EXAMPLE), b = load_ok(OUT_DIR "/robot_arm.gltf");
    assert_int_equal(arbor_gltf_node_count(a.doc), 8);
    assert_int_equal(arbor_gltf_node_count(b.doc), 8);
    const char *names[] = { "base", "joint", "arm", "hand", "mirror", "joint2", "arm2", "hand2" };
    const int32_t meshes[] = { 0, -1, 1, 2, -1, -1, 1, 2 };
    for (uint32_t i = 0; i < 8; i++) {
        arbor_node na = arbor_gltf_node(a.doc, i), nb = arbor_gltf_node(b.doc, i);
        assert_string_equal(arbor_node_name(a.s, na), names[i]);
        assert_string_equal(arbor_node_name(b.s, nb), names[i]);
        assert_int_equal(arbor_node_mesh(a.s, na), meshes[i]);
        arbor_real wa[16], wb[16];
        ASSERT_OK(arbor_node_world_matrix(a.s, na, wa));
        ASSERT_OK(arbor_node_world_matrix(b.s, nb, wb));
        ASSERT_MAT4_NEAR(wa, wb, 1e-6);
    }
    /* The arm's world box lies where seed 002 section 11 puts it at the default pose. */
    arbor_real lo[3], hi[3], w[16];
    arbor_node arm = arbor_scene_find(a.s, "base/joint/arm");
    ASSERT_OK(arbor_node_bounds(a.s, arm, lo, hi));
    assert_true(lo[0] <= hi[0]);
    ASSERT_OK(arbor_node_world_matrix(a.s, arm, w));
    double min_x = INFINITY, max_x = -INFINITY;
    for (int c = 0; c < 8; c++) {
        arbor_real p[3] = { c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2] }, q[3];
        arbor_mat4_transform_point(q, w, p);
        min_x = fmin(min_x, q[0]);
        max_x = fmax(max_x, q[0]);
    }
    ASSERT_NEAR(min_x, -0.919, TEST_TOL_3DP);
    ASSERT_NEAR(max_x, 0.140, TEST_TOL_3DP);
    unload(&a);
    unload(&b);
    assert_int_equal(run("validate '" EXAMPLE "'"), 0);
    assert_output_contains(STDOUT_FILE, "robot_arm.gltf: ok");
}

/* ---- dump --json ------------------------------------------------------------------------------ */

/* A printed matrix against the double product: within float (or double) rounding of the chain. */
#if ARBOR_REAL_IS_DOUBLE
#define DUMP_TOL 1e-9
#else
#define DUMP_TOL 2e-5
#endif
static void assert_matrix_field(json_t *array, const double expected[16], const char *what) {
    assert_true(json_is_array(array));
    assert_int_equal(json_array_size(array), 16);
    for (size_t i = 0; i < 16; i++) {
        json_t *v = json_array_get(array, i);
        assert_true(json_is_number(v));
        double got = json_number_value(v);
        if (!(fabs(got - expected[i]) <= DUMP_TOL * (1 + fabs(expected[i]))))
            fail_msg("%s: element %zu is %.17g, the file's double product %.17g", what, i, got, expected[i]);
    }
}

static void assert_keys(json_t *object, const char *const *keys, size_t count, const char *what) {
    void *it = json_object_iter(object);
    for (size_t i = 0; i < count; i++, it = json_object_iter_next(object, it)) {
        if (!it || strcmp(json_object_iter_key(it), keys[i]))
            fail_msg("%s: field %zu is \"%s\", expected \"%s\"", what, i, it ? json_object_iter_key(it) : "(none)", keys[i]);
    }
}

/* `arbor dump FILE --json --scene all` (every node) against the file's own JSON: its scenes,
   names, parents and children as the file lists them; local, world and instance matrices and
   visibility as the double products of test_gltf_json.h. */
static void check_dump(const char *path) {
    char args[PATH_MAX + 32];
    snprintf(args, sizeof args, "dump '%s' --json --scene all", path);
    assert_int_equal(run(args), 0);
    json_error_t error;
    json_t *root = json_load_file(STDOUT_FILE, 0, &error);
    if (!root) fail_msg("dump of %s is not JSON: %s (line %d)", path, error.text, error.line);
    static const char *const top_keys[] = { "scenes", "nodes" };
    assert_int_equal(json_object_size(root), 2);
    assert_keys(root, top_keys, 2, path);

    file_data f = read_gltf(path);
    expected x = expect_from(&f);
    json_t *none = json_array(), *null = json_null();
    json_t *gscenes = json_object_get(f.root, "scenes"), *gnodes = json_object_get(f.root, "nodes");
    json_t *scenes = json_object_get(root, "scenes"), *nodes = json_object_get(root, "nodes");
    assert_int_equal(json_array_size(scenes), json_array_size(gscenes));
    for (size_t k = 0; k < json_array_size(gscenes); k++) {
        static const char *const scene_keys[] = { "index", "name", "nodes" };
        json_t *scene = json_array_get(scenes, k), *gscene = json_array_get(gscenes, k);
        assert_keys(scene, scene_keys, 3, path);
        assert_int_equal(json_integer_value(json_object_get(scene, "index")), k);
        json_t *name = json_object_get(gscene, "name"), *listed = json_object_get(gscene, "nodes");
        assert_true(json_equal(json_object_get(scene, "name"), name ? name : null));
        assert_true(json_equal(json_object_get(scene, "nodes"), listed ? listed : none));
    }
    assert_int_equal(json_array_size(nodes), x.count);
    long *parent = malloc((x.count + 1) * sizeof *parent);
    for (size_t i = 0; i < x.count; i++) parent[i] = -1;
    for (size_t i = 0; i < x.count; i++) {
        json_t *children = json_object_get(json_array_get(gnodes, i), "children");
        for (size_t c = 0; c < json_array_size(children); c++) parent[json_integer_value(json_array_get(children, c))] = (long)i;
    }
    for (size_t i = 0; i < x.count; i++) {
        static const char *const node_keys[] = { "index", "name", "parent", "children", "local", "world", "visible",
                                                 "instances" };
        char what[PATH_MAX + 32];
        snprintf(what, sizeof what, "%s: node %zu", path, i);
        json_t *node = json_array_get(nodes, i), *gnode = json_array_get(gnodes, i);
        uint64_t instances = instance_count(&f, i);
        assert_int_equal(json_object_size(node), instances ? 8 : 7);
        assert_keys(node, node_keys, instances ? 8 : 7, what);
        assert_int_equal(json_integer_value(json_object_get(node, "index")), i);
        json_t *name = json_object_get(gnode, "name"), *children = json_object_get(gnode, "children");
        assert_true(json_equal(json_object_get(node, "name"), name ? name : null));
        if (parent[i] < 0) assert_true(json_is_null(json_object_get(node, "parent")));
        else assert_int_equal(json_integer_value(json_object_get(node, "parent")), parent[i]);
        assert_true(json_equal(json_object_get(node, "children"), children ? children : none));
        assert_true(json_is_boolean(json_object_get(node, "visible")));
        assert_int_equal(json_is_true(json_object_get(node, "visible")), x.visible[i]);
        double m[16];
        node_local(gnode, m);
        assert_matrix_field(json_object_get(node, "local"), m, what);
        assert_matrix_field(json_object_get(node, "world"), x.world[i], what);
        json_t *listed = json_object_get(node, "instances");
        assert_int_equal(json_array_size(listed), instances);
        for (uint64_t k = 0; k < instances; k++) {
            instance_world(&f, &x, i, k, m);
            assert_matrix_field(json_array_get(listed, k), m, what);
        }
    }
    free(parent);
    json_decref(none);
    free_expected(&x);
    free_gltf(&f);
    json_decref(root);
}

static void test_dump_json(void **state) {
    (void)state;
    check_dump(EXAMPLE);
    char *paths[MAX_SAMPLES], *names[MAX_SAMPLES];
    int count = sample_files(paths, names);
    for (int i = 0; i < count; i++) check_dump(paths[i]);
    free_samples(paths, names, count);
    /* a hidden subtree and instanced nodes (../shared/gltf/extensions) */
    static const char *const extended[] = { ARBOR_SHARED_DIR "/gltf/extensions/visibility_BowShooting/BowShooting.glb",
                                            ARBOR_SHARED_DIR "/gltf/extensions/instancing_teapots_galore/teapots_galore.gltf" };
    for (size_t i = 0; i < sizeof extended / sizeof *extended; i++) {
        struct stat st;
        if (stat(extended[i], &st) != 0) TEST_SKIP_SHARED(extended[i]);
        check_dump(extended[i]);
    }
    if (!count) TEST_SKIP_SHARED(SAMPLES_DIR); /* only the example was dumped */
}

/* A chain a million nodes deep dumps, streamed: one line per node, the last one a million up. */
static void test_dump_million_deep_chain(void **state) {
    (void)state;
    const uint32_t depth = 1000000;
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(&(arbor_scene_desc){ .initial_capacity = depth }, &s), ARBOR_OK);
    arbor_node parent = ARBOR_NONE, n;
    for (uint32_t i = 0; i < depth; i++) {
        ASSERT_OK(arbor_node_create(s, &(arbor_node_desc){ .parent = parent, .translation = { 0, 1, 0 } }, &n));
        parent = n;
    }
    make_dir(OUT_DIR);
    if (arbor_gltf_save(s, NULL, OUT_DIR "/chain.glb", NULL) != ARBOR_OK) fail_msg("%s", arbor_last_error());
    arbor_scene_destroy(s);

    FILE *p = popen("'" ARBOR_CLI_PATH "' dump '" OUT_DIR "/chain.glb' --json", "r");
    assert_non_null(p);
    static char line[8192], last[8192];
    uint32_t node_lines = 0;
    bool in_nodes = false;
    while (fgets(line, sizeof line, p)) {
        in_nodes = in_nodes || !strncmp(line, "\"nodes\":[", 9);
        if (!in_nodes || strncmp(line, "{\"index\":", 9)) continue;
        node_lines++;
        memcpy(last, line, sizeof line);
    }
    assert_int_equal(pclose(p), 0);
    assert_int_equal(node_lines, depth);
    size_t len = strlen(last);
    while (len && (last[len - 1] == '\n' || last[len - 1] == ',')) last[--len] = '\0';
    json_t *node = json_loads(last, 0, NULL);
    assert_non_null(node);
    assert_int_equal(json_integer_value(json_object_get(node, "index")), depth - 1);
    assert_int_equal(json_integer_value(json_object_get(node, "parent")), depth - 2);
    ASSERT_NEAR(json_number_value(json_array_get(json_object_get(node, "world"), 13)), depth, 0);
    json_decref(node);
}

/* ---- validate ---------------------------------------------------------------------------------- */

static void test_validate(void **state) {
    (void)state;
    const char *bad = ARBOR_SHARED_DIR "/gltf/invalid/node/node_loop.gltf";
    assert_int_equal(run("validate '" EXAMPLE "'"), 0);
    assert_output_contains(STDOUT_FILE, "ok");
    struct stat st;
    if (stat(bad, &st) != 0) TEST_SKIP_SHARED(bad);
    char args[2 * PATH_MAX];
    snprintf(args, sizeof args, "validate '%s'", bad);
    assert_int_equal(run(args), 1);
    assert_output_contains(STDERR_FILE, "node_loop.gltf");
    snprintf(args, sizeof args, "validate '%s' '%s'", EXAMPLE, bad);
    assert_int_equal(run(args), 1);
    assert_output_contains(STDOUT_FILE, "robot_arm.gltf: ok");
    assert_output_contains(STDERR_FILE, "node_loop.gltf");

    /* every error, and --json in the Khronos validator's shape */
    const char *three = OUT_DIR "/three_errors.gltf";
    FILE *f = fopen(three, "w");
    assert_non_null(f);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"rotation\":[0,0,0,3]},{\"children\":[5]},{\"mesh\":1}]}", f);
    fclose(f);
    snprintf(args, sizeof args, "validate '%s'", three);
    assert_int_equal(run(args), 1);
    /* one line each: severity, the Khronos validator's code (its ISSUES.md), pointer, reason */
    assert_output_contains(STDERR_FILE, "three_errors.gltf: error: ROTATION_NON_UNIT: /nodes/0/rotation: ");
    assert_output_contains(STDERR_FILE,
                           "three_errors.gltf: error: UNRESOLVED_REFERENCE: /nodes/1/children/0: node 5 does not exist");
    assert_output_contains(STDERR_FILE, "three_errors.gltf: error: UNRESOLVED_REFERENCE: /nodes/2/mesh: mesh 1 does not exist");
    assert_output_contains(STDERR_FILE, "three_errors.gltf: 3 errors");
    /* standard input: the same report, under its own name, not just the load's first problem */
    snprintf(args, sizeof args, "validate - < '%s'", three);
    assert_int_equal(run(args), 1);
    assert_output_contains(STDERR_FILE, "(standard input): error: ROTATION_NON_UNIT: /nodes/0/rotation: ");
    assert_output_contains(STDERR_FILE, "(standard input): error: UNRESOLVED_REFERENCE: /nodes/2/mesh: mesh 1 does not exist");
    assert_output_contains(STDERR_FILE, "(standard input): 3 errors");
    snprintf(args, sizeof args, "validate --json '%s'", three);
    assert_int_equal(run(args), 1);
    json_t *report = json_load_file(STDOUT_FILE, 0, NULL);
    assert_non_null(report);
    json_t *issues = json_object_get(report, "issues"), *messages = json_object_get(issues, "messages");
    assert_int_equal(json_integer_value(json_object_get(issues, "numErrors")), 3);
    assert_int_equal(json_array_size(messages), 3);
    assert_true(json_is_false(json_object_get(issues, "truncated")));
    assert_string_equal(json_string_value(json_object_get(report, "mimeType")), "model/gltf+json");
    assert_non_null(json_string_value(json_object_get(report, "validatorVersion")));
    assert_string_equal(json_string_value(json_object_get(json_object_get(report, "info"), "version")), "2.0");
    static const char *const pointers[] = { "/nodes/0/rotation", "/nodes/1/children/0", "/nodes/2/mesh" };
    static const char *const codes[] = { "ROTATION_NON_UNIT", "UNRESOLVED_REFERENCE", "UNRESOLVED_REFERENCE" };
    for (size_t i = 0; i < 3; i++) {
        json_t *m = json_array_get(messages, i);
        assert_string_equal(json_string_value(json_object_get(m, "pointer")), pointers[i]);
        assert_string_equal(json_string_value(json_object_get(m, "code")), codes[i]);
        assert_int_equal(json_integer_value(json_object_get(m, "severity")), 0);
        assert_true(json_string_length(json_object_get(m, "message")) > 0);
    }
    json_decref(report);
    snprintf(args, sizeof args, "validate --json - < '%s'", three);
    assert_int_equal(run(args), 1);
    report = json_load_file(STDOUT_FILE, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(report, "uri")), "(standard input)");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(report, "issues"), "numErrors")), 3);
    assert_string_equal(json_string_value(json_object_get(json_object_get(report, "info"), "version")), "2.0");
    json_decref(report);
    snprintf(args, sizeof args, "validate --json '%s' '%s'", EXAMPLE, three);
    assert_int_equal(run(args), 1);
    report = json_load_file(STDOUT_FILE, 0, NULL);
    assert_int_equal(json_array_size(report), 2);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(json_array_get(report, 0), "issues"), "numErrors")), 0);
    json_decref(report);
    /* a directory and a missing file: each its own report, an IO_ERROR; a GLB problem at its offset */
    const char *glb = ARBOR_SHARED_DIR "/gltf/invalid/glb/invalid_magic.glb";
    snprintf(args, sizeof args, "validate --json '%s' '%s' '%s'", OUT_DIR, OUT_DIR "/no_such.gltf", glb);
    assert_int_equal(run(args), 1);
    report = json_load_file(STDOUT_FILE, 0, NULL);
    assert_int_equal(json_array_size(report), 3);
    for (size_t i = 0; i < 3; i++) {
        json_t *r = json_array_get(report, i), *m = json_array_get(json_object_get(json_object_get(r, "issues"), "messages"), 0);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "issues"), "numErrors")), 1);
        assert_string_equal(json_string_value(json_object_get(m, "code")), i < 2 ? "IO_ERROR" : "GLB_INVALID_MAGIC");
        if (i == 2) { /* the magic is the file's first 4 bytes: offset 0, no pointer */
            assert_string_equal(json_string_value(json_object_get(r, "mimeType")), "model/gltf-binary");
            assert_true(json_is_integer(json_object_get(m, "offset")) && json_integer_value(json_object_get(m, "offset")) == 0);
            assert_null(json_object_get(m, "pointer"));
        }
    }
    json_decref(report);
    /* the validator rates an absolute URI a warning: no error, though arbor's load refuses it */
    const char *absolute = ARBOR_SHARED_DIR "/gltf/invalid/buffer/non_relative_uri.gltf";
    snprintf(args, sizeof args, "validate '%s'", absolute);
    assert_int_equal(run(args), 0);
    assert_output_contains(STDERR_FILE, "non_relative_uri.gltf: warning: NON_RELATIVE_URI: /buffers/0/uri: ");
    assert_output_contains(STDOUT_FILE, "non_relative_uri.gltf: ok");
}

/* ---- what a failing command says --------------------------------------------------------------- */

/* stderr is exactly `lines` lines, line i starting with prefixes[i]; no library function's name
   (arbor_...) in it: a user ran a command. */
static void assert_stderr_lines(const char *what, const char *const *prefixes, size_t lines) {
    char *text = read_file(STDERR_FILE, NULL);
    assert_non_null(text);
    size_t count = 0;
    for (const char *line = text; *line; count++) {
        const char *end = strchr(line, '\n');
        if (!end) fail_msg("%s: stderr does not end in a newline:\n%s", what, text);
        if (count < lines && strncmp(line, prefixes[count], strlen(prefixes[count])))
            fail_msg("%s: line %zu of stderr does not start with \"%s\":\n%s", what, count + 1, prefixes[count], text);
        line = end + 1;
    }
    if (count != lines) fail_msg("%s: %zu lines on stderr, expected %zu:\n%s", what, count, lines, text);
    if (strstr(text, "arbor_")) fail_msg("%s: stderr names a library function:\n%s", what, text);
    free(text);
}

static void test_failure_messages(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    /* node 0 names child 5 of a file of one node: the pointer /nodes/0/children/0, from the JSON */
    const char *bad = OUT_DIR "/bad_child.gltf";
    FILE *f = fopen(bad, "w");
    assert_non_null(f);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[5]}]}", f);
    fclose(f);
    const char *unit = OUT_DIR "/long_rotation.gltf"; /* a rotation of length 2: lenient loads warn */
    f = fopen(unit, "w");
    assert_non_null(f);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"rotation\":[0,0,0,2]}]}", f);
    fclose(f);
    static const char *const loaders[] = { "info", "tree", "stats", "dump --json", "dot" };
    for (size_t i = 0; i < sizeof loaders / sizeof loaders[0]; i++) {
        char args[PATH_MAX], prefix[PATH_MAX], name[32];
        snprintf(name, sizeof name, "%s", loaders[i]);
        name[strcspn(name, " ")] = 0; /* the command's name, without its options */
        snprintf(args, sizeof args, "%s '%s'", loaders[i], bad);
        snprintf(prefix, sizeof prefix, "arbor: %s: %s: /nodes/0/children/0: ", name, bad);
        assert_int_equal(run(args), 1);
        assert_stderr_lines(args, (const char *const[]){ prefix }, 1);
        snprintf(args, sizeof args, "%s '%s'", loaders[i], OUT_DIR "/absent.gltf");
        snprintf(prefix, sizeof prefix, "arbor: %s: %s: no such file", name, OUT_DIR "/absent.gltf");
        assert_int_equal(run(args), 1);
        assert_stderr_lines(args, (const char *const[]){ prefix }, 1);
    }
    /* standard input has no file name: the message gives the input's */
    char args[2 * PATH_MAX];
    snprintf(args, sizeof args, "tree - < '%s'", bad);
    assert_int_equal(run(args), 1);
    assert_stderr_lines(args, (const char *const[]){ "arbor: tree: (standard input): /nodes/0/children/0: " }, 1);
    /* a warning of a lenient load, from a file and from standard input */
    snprintf(args, sizeof args, "tree --lenient '%s'", unit);
    assert_int_equal(run(args), 0);
    char prefix[PATH_MAX];
    snprintf(prefix, sizeof prefix, "arbor: tree: warning: %s: /nodes/0/rotation: ", unit);
    assert_stderr_lines(args, (const char *const[]){ prefix }, 1);
    snprintf(args, sizeof args, "tree --lenient - < '%s'", unit);
    assert_int_equal(run(args), 0);
    assert_stderr_lines(args, (const char *const[]){ "arbor: tree: warning: (standard input): /nodes/0/rotation: " }, 1);
    /* a save that cannot create its file names the command and the file */
    assert_int_equal(run("convert '" EXAMPLE "' '" OUT_DIR "/no such folder/out.glb'"), 1);
    assert_stderr_lines("convert", (const char *const[]){ "arbor: convert: " OUT_DIR "/no such folder/out.glb: " }, 1);
    /* an unknown command: one line */
    assert_int_equal(run("frobnicate"), 2);
    assert_stderr_lines("frobnicate", (const char *const[]){ "arbor: no command 'frobnicate'; the commands: demo info " }, 1);
}

/* ---- files that are not regular files ------------------------------------------------------- */

/* `arbor ARGS` under timeout(1): a command blocked on a FIFO is killed after 10 s (exit 124). */
static int run_bounded(const char *args) {
    char command[2 * PATH_MAX];
    snprintf(command, sizeof command, "timeout 10 '%s' %s >'%s' 2>'%s'", ARBOR_CLI_PATH, args, STDOUT_FILE, STDERR_FILE);
    int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_fifo_inputs(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    unlink(OUT_DIR "/pipe.gltf");
    assert_int_equal(mkfifo(OUT_DIR "/pipe.gltf", 0600), 0);
    static const char *const commands[] = { "info", "tree", "validate", "stats" };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char args[PATH_MAX];
        snprintf(args, sizeof args, "%s '" OUT_DIR "/pipe.gltf'", commands[i]);
        int rc = run_bounded(args);
        if (rc == 124) fail_msg("arbor %s on a FIFO blocked", commands[i]);
        assert_int_equal(rc, 1);
        assert_output_contains(STDERR_FILE, "pipe.gltf is a FIFO, not a glTF file");
    }
    /* an edit script */
    unlink(OUT_DIR "/pipe.txt");
    assert_int_equal(mkfifo(OUT_DIR "/pipe.txt", 0600), 0);
    int rc = run_bounded("edit '" EXAMPLE "' -o '" OUT_DIR "/never.gltf' --script '" OUT_DIR "/pipe.txt'");
    if (rc == 124) fail_msg("arbor edit --script on a FIFO blocked");
    assert_int_equal(rc, 1);
    assert_output_contains(STDERR_FILE, "pipe.txt is a FIFO, not a script");
}

/* ---- convert ------------------------------------------------------------------------------------ */

static void test_convert_round_trip(void **state) {
    (void)state;
    char *paths[MAX_SAMPLES], *names[MAX_SAMPLES];
    int count = sample_files(paths, names);
    if (!count) {
        TEST_SKIP_SHARED(SAMPLES_DIR);
    }
    make_dir(OUT_DIR "/convert");
    for (int i = 0; i < count; i++) {
        char glb[PATH_MAX], gltf[PATH_MAX], args[3 * PATH_MAX];
        snprintf(glb, sizeof glb, "%s/convert/%s.glb", OUT_DIR, names[i]);
        snprintf(gltf, sizeof gltf, "%s/convert/%s_back.gltf", OUT_DIR, names[i]);
        snprintf(args, sizeof args, "convert '%s' '%s'", paths[i], glb);
        assert_int_equal(run(args), 0);
        snprintf(args, sizeof args, "convert '%s' '%s'", glb, gltf);
        assert_int_equal(run(args), 0);
        loaded a = load_ok(paths[i]), b = load_ok(gltf);
        uint32_t nodes = arbor_gltf_node_count(a.doc);
        assert_int_equal(arbor_gltf_node_count(b.doc), nodes);
        for (uint32_t k = 0; k < nodes; k++) {
            arbor_real wa[16], wb[16];
            ASSERT_OK(arbor_node_world_matrix(a.s, arbor_gltf_node(a.doc, k), wa));
            ASSERT_OK(arbor_node_world_matrix(b.s, arbor_gltf_node(b.doc, k), wb));
            ASSERT_REALS_BITS_EQUAL(wa, wb, 16);
        }
        unload(&a);
        unload(&b);
    }
    free_samples(paths, names, count);
}

/* convert to .glb: one self-contained file; --external keeps the images beside it */
static void test_convert_self_contained(void **state) {
    (void)state;
    const char *shoe = ARBOR_SHARED_DIR "/gltf/extensions/variants_MaterialsVariantsShoe/MaterialsVariantsShoe.gltf";
    struct stat st;
    if (stat(shoe, &st) != 0) TEST_SKIP_SHARED(shoe);
    const char *dirs[] = { OUT_DIR "/alone", OUT_DIR "/external" };
    for (int k = 0; k < 2; k++) {
        char args[2 * PATH_MAX], count_cmd[PATH_MAX];
        make_dir(dirs[k]);
        snprintf(args, sizeof args, "convert '%s' '%s/shoe.glb'%s", shoe, dirs[k], k ? " --external" : "");
        assert_int_equal(run(args), 0);
        snprintf(args, sizeof args, "validate '%s/shoe.glb'", dirs[k]);
        assert_int_equal(run(args), 0);
        snprintf(count_cmd, sizeof count_cmd, "test $(ls -A '%s' | wc -l) -%s 1", dirs[k], k ? "gt" : "eq");
        if (system(count_cmd) != 0) fail_msg("%s: %s", dirs[k], k ? "no image beside the .glb" : "more than the .glb");
    }
}

/* ---- tree, info, dot ----------------------------------------------------------------------------- */

static void test_tree_info_dot(void **state) {
    (void)state;
    assert_int_equal(run("tree '" EXAMPLE "'"), 0);
    const char *lines[] = { "base  [mesh 0]", "\n  joint  at", "\n    arm  [mesh 1]", "\n      hand  [mesh 2]",
                            "\n  mirror  at", "\n    joint2", "\n      arm2  [mesh 1]", "\n        hand2  [mesh 2]" };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) assert_output_contains(STDOUT_FILE, lines[i]);

    assert_int_equal(run("info '" EXAMPLE "'"), 0);
    assert_output_contains(STDOUT_FILE, "scene 0: 8 of 8 nodes, 1 roots, depth 5");
    assert_output_contains(STDOUT_FILE, "meshes      3");
    assert_output_contains(STDOUT_FILE, "4 nodes with a mirrored");
    assert_output_contains(STDOUT_FILE, "bounds      min (");

    assert_int_equal(run("dot '" EXAMPLE "'"), 0);
    assert_output_contains(STDOUT_FILE, "digraph");
    assert_output_contains(STDOUT_FILE, "n0 [label=\"base\"]");
    assert_output_contains(STDOUT_FILE, "n0 -> n1;\n  n0 -> n4;");

    const char *multiple = SAMPLES_DIR "/MultipleScenes/MultipleScenes.gltf";
    struct stat st;
    if (stat(multiple, &st) != 0) TEST_SKIP_SHARED(multiple);
    assert_int_equal(run("info '" SAMPLES_DIR "/MultipleScenes/MultipleScenes.gltf'"), 0);
    assert_output_contains(STDOUT_FILE, "showing     scene 1");
    assert_int_equal(run("tree '" SAMPLES_DIR "/MultipleScenes/MultipleScenes.gltf' --scene 0"), 0);
    assert_output_contains(STDOUT_FILE, "scene 0");
    assert_int_equal(run("info '" SAMPLES_DIR "/MultipleScenes/MultipleScenes.gltf' --scene 2"), 2);
}

/* ---- edit ---------------------------------------------------------------------------------- */

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Names in arbor_scene_next_node order, each with its parent's name (or "/" for a root). */
static void assert_hierarchy(const loaded *l, const char *const *pairs, uint32_t count) {
    uint32_t k = 0;
    for (arbor_node n = arbor_scene_next_node(l->s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(l->s, n), k++) {
        assert_true(k < count);
        arbor_node p = arbor_node_parent(l->s, n);
        assert_string_equal(arbor_node_name(l->s, n), pairs[2 * k]);
        assert_string_equal(arbor_node_is_none(p) ? "/" : arbor_node_name(l->s, p), pairs[2 * k + 1]);
    }
    assert_int_equal(k, count);
}

static void test_edit_command(void **state) {
    (void)state;
    const char *out = OUT_DIR "/edited.gltf";
    write_text(OUT_DIR "/edits.txt",
               "# rearrange the arm\n"
               "reparent /base/mirror / --keep-world\n"
               "reparent /base/joint / --before /base   # a root, first\n"
               "move #2 0 1 0\n"
               "rotate \"/joint/arm\" 0 0 0 2\n"
               "\n"
               "scale /mirror 2 2 2\n"
               "clone /joint /base\n"
               "rename /base/joint \"joint copy\"\n"
               "delete /mirror/joint2/arm2/hand2\n"
               "delete /joint/arm/hand\n"
               "undo\n");
    remove(out);
    assert_int_equal(run("edit '" EXAMPLE "' -o '" OUT_DIR "/edited.gltf' --script '" OUT_DIR "/edits.txt' "
                         "-e 'matrix #4 1 0 0 0  0 1 0 0  0 0 1 0  9 8 7 1' -e 'delete #6' -e undo -e redo -e undo"),
                     0);
    loaded l = load_ok(out);
    static const char *const tree[] = { "joint", "/",    "arm",   "joint", "hand",       "arm",        "base",   "/",
                                        "joint copy", "base", "arm", "joint copy", "hand", "arm",       "mirror", "/",
                                        "joint2", "mirror", "arm2", "joint2" };
    assert_hierarchy(&l, tree, 10);
    /* The file's nodes keep their indices (hand2, 7, is gone); the clone's follow. */
    assert_int_equal(arbor_gltf_node_count(l.doc), 10);
    assert_string_equal(arbor_node_name(l.s, arbor_gltf_node(l.doc, 2)), "arm");
    assert_string_equal(arbor_node_name(l.s, arbor_gltf_node(l.doc, 7)), "joint copy");
    arbor_trs trs;
    ASSERT_OK(arbor_node_trs(l.s, arbor_scene_find(l.s, "/joint/arm"), &trs));
    ASSERT_VEC3_NEAR(trs.translation, 0, 1, 0, 0);
    ASSERT_QUAT_SAME_ROTATION(trs.rotation, 0, 0, 0, 1, 0);
    arbor_real w[16];
    ASSERT_OK(arbor_node_world_matrix(l.s, arbor_scene_find(l.s, "/mirror"), w));
    ASSERT_VEC3_NEAR(w + 12, 9, 8, 7, 0);
    ASSERT_NEAR(w[0], 1, 0);
    unload(&l);

    /* A matrix node (glTF matrix nodes load locked) goes back to TRS by decomposition. */
    write_text(OUT_DIR "/matrix.gltf",
               "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":["
               "{\"name\":\"m\",\"matrix\":[0,1,0,0,-1,0,0,0,0,0,1,0,1,2,3,1],\"children\":[1]},"
               "{\"name\":\"c\",\"translation\":[1,0,0]}]}");
    assert_int_equal(run("edit '" OUT_DIR "/matrix.gltf' -o '" OUT_DIR "/matrix_moved.gltf' -e 'move /m 5 6 7'"), 0);
    l = load_ok(OUT_DIR "/matrix_moved.gltf");
    arbor_node m = arbor_scene_find(l.s, "m");
    assert_false(arbor_node_is_matrix_backed(l.s, m));
    ASSERT_OK(arbor_node_world_matrix(l.s, arbor_scene_find(l.s, "m/c"), w));
    ASSERT_VEC3_NEAR(w + 12, 5, 7, 7, TEST_EPS);
    unload(&l);

    /* A bad command stops with where it was and writes nothing. */
    remove(out);
    write_text(OUT_DIR "/bad.txt", "move /base 1 2 3\n# fine so far\nfrobnicate /base\nmove /base 4 5 6\n");
    const struct {
        const char *args, *message;
    } bad[] = {
        { "--script '" OUT_DIR "/bad.txt'", "bad.txt:3: unknown command 'frobnicate'" },
        { "-e 'move /base 1 2'", "-e 1: move takes 4 arguments, 3 given" },
        { "-e 'move /base 1 2 3' -e 'move /nope 1 2 3'", "-e 2: no node at '/nope'" },
        { "-e 'delete #99'", "-e 1: #99: " },
        { "-e 'move #1 1 x 3'", "'x' is not a finite number" },
        { "-e 'reparent /base /base/joint'", "ring" },
        { "-e 'reparent /base/joint / --before /base/mirror'", "is not a root" },
        { "-e 'rename /base \"unterminated'", "-e 1: an unterminated quote" },
        { "-e 'matrix /base 1 0 0 0 0.5 1 0 0 0 0 1 0 0 0 0 1' -e 'move /base 0 0 0'", "-e 2: move: /base has a matrix with a shear" },
        { "-e 'matrix /base 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 2'", "last row" },
        { "-e 'delete /base' -e 'delete #1'", "node #1 was deleted" },
        { "-e undo", "nothing to undo" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[1024];
        snprintf(args, sizeof args, "edit '" EXAMPLE "' -o '%s' %s", out, bad[i].args);
        int status = run(args);
        if (status != 1) fail_msg("%s: exit status %d, expected 1", bad[i].args, status);
        assert_output_contains(STDERR_FILE, bad[i].message);
        assert_false(exists(out));
    }
    assert_int_equal(run("edit '" EXAMPLE "' -e undo"), 2);
    assert_output_contains(STDERR_FILE, "-o OUT is missing");
    assert_int_equal(run("edit -o '" OUT_DIR "/x.gltf'"), 2);
    assert_int_equal(run("edit '" EXAMPLE "' -o"), 2);
    assert_int_equal(run("edit '" EXAMPLE "' -o '" OUT_DIR "/x.gltf' --script '" OUT_DIR "/missing.txt'"), 1);
    assert_output_contains(STDERR_FILE, "missing.txt");
}

/* ---- cull and render ------------------------------------------------------------------------- */

/* The robot arm with an orthographic camera "eye" looking down -Z at the left arm (x from -2.4
   to -0.6, y from -1 to 3), saved as a file of its own. */
static void save_with_eye(const char *path) {
    arbor_scene *s = NULL;
    assert_int_equal(arbor_scene_create(NULL, &s), ARBOR_OK);
    arbor_gltf *doc = NULL;
    arbor_node eye;
    assert_int_equal(arbor_gltf_load(s, EXAMPLE, NULL, &doc), ARBOR_OK);
    arbor_node_desc d = { .name = "eye", .translation = { -1.5f, 1, 10 } };
    assert_int_equal(arbor_node_create(s, &d, &eye), ARBOR_OK);
    const arbor_camera ortho = { ARBOR_CAMERA_ORTHOGRAPHIC, 0, 0, 0.9f, 2, 0.1f, 100 };
    assert_int_equal(arbor_node_set_camera(s, eye, &ortho), ARBOR_OK);
    assert_int_equal(arbor_gltf_save(s, doc, path, NULL), ARBOR_OK);
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(s);
}

/* The first bytes of a file. */
static void read_head(const char *path, unsigned char *out, size_t size) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(out, 1, size, f), size);
    fclose(f);
}

static void test_cull_and_render(void **state) {
    (void)state;
    /* No camera in the file: one framing the scene sees everything, in one test. */
    assert_int_equal(run("cull '" EXAMPLE "'"), 0);
    assert_output_contains(STDOUT_FILE, "visible: 5 of 5 nodes with bounds, in 1 box test (a test per box: 5)");
    assert_output_contains(STDOUT_FILE, "one made to frame the scene");
    assert_output_contains(STDOUT_FILE, "  base/mirror/joint2/arm2/hand2  #7  mesh 2  (");

    /* The eye sees the left arm and hand: the tree and the base's own box (rejected), the
       joint's and the arm's subtrees, the arm's own box, the hand, the mirror's subtree
       (rejected): seven tests. */
    const char *with_eye = OUT_DIR "/robot_arm_eye.gltf";
    make_dir(OUT_DIR);
    save_with_eye(with_eye);
    assert_int_equal(run("cull '" OUT_DIR "/robot_arm_eye.gltf'"), 0);
    assert_output_contains(STDOUT_FILE, "camera: the file's first, node \"eye\" (orthographic, xmag 0.9, ymag 2");
    assert_output_contains(STDOUT_FILE, "visible: 2 of 5 nodes with bounds, in 7 box tests (a test per box: 5)");
    /* x of the world boxes as seed 002 section 11 works them out, to the three decimals it
       prints (tolerance: half a unit of the last digit): arm [-0.919, 0.140], hand [-1.102, ..] */
    char *text = read_file(STDOUT_FILE, NULL);
    assert_non_null(text);
    const char *arm = assert_number_after(text, "\n  base/joint/arm  #2  mesh 1  (", -0.919, TEST_TOL_3DP / 2);
    assert_number_after(arm, ") .. (", 0.140, TEST_TOL_3DP / 2);
    assert_number_after(text, "\n  base/joint/arm/hand  #3  mesh 2  (", -1.102, TEST_TOL_3DP / 2);
    free(text);
    assert_int_equal(run("cull '" OUT_DIR "/robot_arm_eye.gltf' --camera eye"), 0);
    assert_output_contains(STDOUT_FILE, "visible: 2 of 5");
    assert_int_equal(run("cull '" EXAMPLE "' --camera nosuch"), 2);
    assert_output_contains(STDERR_FILE, "has no node \"nosuch\"");
    assert_int_equal(run("cull '" EXAMPLE "' --camera hand"), 2);
    assert_output_contains(STDERR_FILE, "carries no camera");
    assert_int_equal(run("cull '" EXAMPLE "' --camera"), 2);
    assert_int_equal(run("cull --help"), 0);
    assert_output_contains(STDOUT_FILE, "usage: arbor cull");

#if defined(ARBOR_CLI_HAS_RENDER)
    unsigned char head[24];
    assert_int_equal(run("render '" EXAMPLE "' -o '" OUT_DIR "/robot_arm.png'"), 0);
    read_head(OUT_DIR "/robot_arm.png", head, sizeof head);
    assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
    /* IHDR: 960 x 720 (the framing camera's 4:3) */
    assert_int_equal((head[16] << 24) | (head[17] << 16) | (head[18] << 8) | head[19], 960);
    assert_int_equal((head[20] << 24) | (head[21] << 16) | (head[22] << 8) | head[23], 720);
    assert_int_equal(run("render '" OUT_DIR "/robot_arm_eye.gltf' -o '" OUT_DIR "/robot_arm_eye.svg' --view camera"), 0);
    assert_output_contains(OUT_DIR "/robot_arm_eye.svg", "<svg");
    assert_output_contains(OUT_DIR "/robot_arm_eye.svg", "viewBox=\"0 0 960 2133\""); /* aspect 0.9 / 2: tall */
    assert_int_equal(run("render '" EXAMPLE "' -o '" OUT_DIR "/robot_arm.jpg'"), 2);
    assert_int_equal(run("render '" EXAMPLE "'"), 2);
    assert_output_contains(STDERR_FILE, "-o OUT.svg or -o OUT.png is required");
#else
    print_message("render: not built (no cairo); checking it is refused as unknown\n");
    assert_int_equal(run("render '" EXAMPLE "' -o '" OUT_DIR "/robot_arm.png'"), 2);
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_and_exit_codes),
        cmocka_unit_test(test_demo_save_is_the_example),
        cmocka_unit_test(test_dump_json),
        cmocka_unit_test(test_dump_million_deep_chain),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_fifo_inputs),
        cmocka_unit_test(test_failure_messages),
        cmocka_unit_test(test_convert_self_contained),
        cmocka_unit_test(test_convert_round_trip),
        cmocka_unit_test(test_tree_info_dot),
        cmocka_unit_test(test_edit_command),
        cmocka_unit_test(test_cull_and_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
