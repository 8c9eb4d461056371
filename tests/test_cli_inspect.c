/* SPDX-License-Identifier: MIT */
/*
 * tests/test_cli_inspect.c: the `arbor` command as a 3D user reaches for it, every option on the
 * samples, with expected values from the files' own JSON (read here with jansson), the sample
 * table of ../shared/gltf/samples/README.md, or double-precision products computed here:
 *
 * - `arbor --help` and the README's command list are the same; each command's --help;
 * - info --json: meshes (primitives, vertices, triangles from the accessors' counts),
 *   animations (names, channels, durations as the keyframe data gives them), skins, cameras,
 *   lights, scenes, image sizes (PNG headers, file sizes);
 * - stats --json: max_depth (the README's depths), depth histogram and matrix nodes counted
 *   here from the JSON, animated nodes from the channels;
 * - tree --json and cull --json on one scene only (MultipleScenes), --scene by name;
 * - manners: a directory, a missing file, an unreadable one; usage errors naming the
 *   command's --help; unknown scenes, cameras, animations and paths listing the names there
 *   are; - for standard input and output; no float noise in printed positions;
 * - diff: 0 same, 1 different (the lines expected for each edit), 2 error, --tolerance;
 * - edit: --euler and --axis in degrees, turn, move-by, add, attach-/detach-;
 * - render: --size, every --view, --labels, --time/--animation, --scene, shaded meshes,
 *   frustums, lights, grid and axes, SVG text; instances drawn where the test projects them,
 *   hidden nodes left out, one MSFT_lod level, auto framing of the meshes, --joints.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <unistd.h>

#include "test_gltf_json.h"

#ifndef ARBOR_CLI_PATH
#error "ARBOR_CLI_PATH: the build defines the path of the arbor command for the tests"
#endif

#define OUT_DIR ARBOR_TEST_OUTPUT_DIR "/cli_inspect"
#define EXAMPLE ARBOR_SOURCE_DIR "/examples/robot_arm.gltf"
#define STDOUT_FILE OUT_DIR "/stdout.txt"
#define STDERR_FILE OUT_DIR "/stderr.txt"
#define PI 3.14159265358979323846

static int run(const char *fmt, ...) {
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return run_arbor(OUT_DIR, args);
}

static bool contains(const char *file, const char *needle) {
    char *text = read_file(file, NULL);
    bool yes = text && strstr(text, needle);
    free(text);
    return yes;
}

static void assert_contains(const char *file, const char *needle) {
    if (!contains(file, needle)) {
        char *text = read_file(file, NULL);
        fail_msg("%s does not contain \"%s\":\n%s", file, needle, text ? text : "(unreadable)");
    }
}

static size_t count_of(const char *file, const char *needle) {
    char *text = read_file(file, NULL);
    size_t n = 0;
    for (const char *p = text; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
    free(text);
    return n;
}

static json_t *stdout_json(void) {
    json_error_t e;
    json_t *j = json_load_file(STDOUT_FILE, 0, &e);
    if (!j) fail_msg("stdout is not JSON: %s (line %d)", e.text, e.line);
    return j;
}

/* The glTF JSON of a .gltf or .glb file, read here. */
static json_t *gltf_json(const char *path) {
    size_t size = 0;
    char *bytes = read_file(path, &size);
    assert_non_null(bytes);
    json_t *j;
    if (size >= 20 && !memcmp(bytes, "glTF", 4)) {
        const unsigned char *u = (const unsigned char *)bytes;
        uint32_t len = (uint32_t)u[12] | (uint32_t)u[13] << 8 | (uint32_t)u[14] << 16 | (uint32_t)u[15] << 24;
        j = json_loadb(bytes + 20, len, 0, NULL);
    } else {
        j = json_loadb(bytes, size, 0, NULL);
    }
    free(bytes);
    assert_non_null(j);
    return j;
}

static json_int_t accessor_count(json_t *g, json_t *index) {
    return json_integer_value(json_object_get(json_array_get(json_object_get(g, "accessors"), (size_t)json_integer_value(index)), "count"));
}

static int default_scene(json_t *g) {
    json_t *s = json_object_get(g, "scene");
    return json_is_integer(s) ? (int)json_integer_value(s) : json_array_size(json_object_get(g, "scenes")) ? 0 : -1;
}

/* The nodes of scene `scene` in depth-first order (roots in the scene's order, children in
   order), with their depths; returns the count. order/depth have room for every node. */
static int scene_walk(json_t *g, int scene, int *order, int *depth) {
    json_t *nodes = json_object_get(g, "nodes");
    int n = (int)json_array_size(nodes), count = 0;
    int *stack = malloc(sizeof(int) * (size_t)(n + 1)), *sd = malloc(sizeof(int) * (size_t)(n + 1)), top = 0;
    json_t *roots = json_object_get(json_array_get(json_object_get(g, "scenes"), (size_t)scene), "nodes");
    for (int r = (int)json_array_size(roots) - 1; r >= 0; r--) {
        stack[top] = (int)json_integer_value(json_array_get(roots, (size_t)r));
        sd[top++] = 0;
    }
    while (top > 0) {
        int i = stack[--top], d = sd[top];
        order[count] = i;
        depth[count++] = d;
        json_t *children = json_object_get(json_array_get(nodes, (size_t)i), "children");
        for (int c = (int)json_array_size(children) - 1; c >= 0; c--) {
            stack[top] = (int)json_integer_value(json_array_get(children, (size_t)c));
            sd[top++] = d + 1;
        }
    }
    free(stack);
    free(sd);
    return count;
}

/* A PNG's width and height, from its IHDR chunk (big-endian, bytes 16 to 23). */
static void png_ihdr(const unsigned char *png, uint32_t *w, uint32_t *h) {
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    *w = (uint32_t)png[16] << 24 | (uint32_t)png[17] << 16 | (uint32_t)png[18] << 8 | png[19];
    *h = (uint32_t)png[20] << 24 | (uint32_t)png[21] << 16 | (uint32_t)png[22] << 8 | png[23];
}

/* false: the caller skips with TEST_SKIP_SHARED (counted, and a failure under CI=true) */
static bool has_samples(void) {
    struct stat st;
    return stat(SAMPLES_DIR, &st) == 0;
}

/* ---- help and the README ----------------------------------------------------------------- */

static void test_help_matches_readme(void **state) {
    (void)state;
    assert_int_equal(run("--help"), 0);
    char *help = read_file(STDOUT_FILE, NULL), *readme = read_file(ARBOR_SOURCE_DIR "/README.md", NULL);
    assert_non_null(help);
    assert_non_null(readme);
    const char *block = strstr(readme, "## The command line");
    assert_non_null(block);
    block = strstr(block, "```\n");
    assert_non_null(block);
    const char *end = strstr(block + 4, "```");
    assert_non_null(end);
    /* every command line of --help ("  NAME ..." up to two spaces) is a line of the block */
    int commands = 0;
    for (char *line = strstr(help, "commands:\n"); line && (line = strchr(line, '\n')) && line[1] != '\n';) {
        line++;
        if (line[0] != ' ' || line[1] != ' ' || line[2] == ' ') continue;
        char synopsis[256];
        const char *stop = strstr(line + 2, "  "), *nl = strchr(line, '\n');
        size_t len = (size_t)((stop && stop < nl ? stop : nl) - line);
        snprintf(synopsis, sizeof synopsis, "\n%.*s\n", (int)len, line);
        const char *found = strstr(block, synopsis);
        if (!found || found > end) fail_msg("the README's command list lacks%s", synopsis);
        commands++;
        /* and the command exists, with its own --help */
        char name[32];
        sscanf(line + 2, "%31s", name);
        char args[64];
        snprintf(args, sizeof args, "%s --help", name);
        assert_int_equal(run("%s", args), 0);
        char usage[64];
        snprintf(usage, sizeof usage, "usage: arbor %s", name);
        assert_contains(STDOUT_FILE, usage);
    }
    int readme_lines = 0;
    for (const char *p = block + 4; p < end; p = strchr(p, '\n') + 1) readme_lines++;
    assert_int_equal(commands, readme_lines);
    free(help);
    free(readme);
    /* the options the issue names, each in its command's --help */
    static const char *const options[][2] = {
        { "info", "--json" },       { "info", "--scene N|NAME" }, { "info", "\"triangles\"" }, { "info", "\"duration\"" },
        { "tree", "--json" },       { "stats", "\"max_depth\"" }, { "stats", "\"depth_histogram\"" },
        { "cull", "\"visible\"" },  { "cull", "--scene" },        { "diff", "--tolerance" },  { "diff", "0 the same, 1 different" },
        { "edit", "--euler X Y Z" }, { "edit", "--axis X Y Z DEG" }, { "edit", "move-by" },   { "edit", "attach-camera" },
        { "edit", "detach-light" }, { "edit", "add NAME PARENT" }, { "validate", "--scene" }, { "convert", "--scene" },
        { "dot", "--scene" },
#if defined(ARBOR_CLI_HAS_RENDER)
        { "render", "--view V" },   { "render", "--size WxH" },   { "render", "--labels" },   { "render", "camera:NODE" },
        { "render", "--animation" }, { "render", "--overlays" },
#endif
    };
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        assert_int_equal(run("%s --help", options[i][0]), 0);
        assert_contains(STDOUT_FILE, options[i][1]);
    }
}

/* ---- info ------------------------------------------------------------------------------------ */

static void check_info(const char *path) {
    json_t *g = gltf_json(path);
    assert_int_equal(run("info '%s' --json", path), 0);
    json_t *r = stdout_json();
    /* meshes: vertices and triangles from the accessors' counts */
    json_t *meshes = json_object_get(g, "meshes"), *out = json_object_get(r, "meshes");
    assert_int_equal(json_array_size(out), json_array_size(meshes));
    for (size_t m = 0; m < json_array_size(meshes); m++) {
        json_t *mesh = json_array_get(meshes, m), *o = json_array_get(out, m), *prims = json_object_get(mesh, "primitives");
        json_int_t vertices = 0, triangles = 0;
        for (size_t p = 0; p < json_array_size(prims); p++) {
            json_t *prim = json_array_get(prims, p), *mode = json_object_get(prim, "mode");
            json_int_t v = accessor_count(g, json_object_get(json_object_get(prim, "attributes"), "POSITION"));
            json_int_t drawn = json_object_get(prim, "indices") ? accessor_count(g, json_object_get(prim, "indices")) : v;
            int md = mode ? (int)json_integer_value(mode) : 4;
            vertices += v;
            if (md == 4) triangles += drawn / 3;
            if ((md == 5 || md == 6) && drawn > 2) triangles += drawn - 2;
        }
        assert_true(json_equal(json_object_get(o, "name"), json_object_get(mesh, "name") ? json_object_get(mesh, "name") : json_null()));
        assert_int_equal(json_integer_value(json_object_get(o, "primitives")), json_array_size(prims));
        assert_int_equal(json_integer_value(json_object_get(o, "vertices")), vertices);
        assert_int_equal(json_integer_value(json_object_get(o, "triangles")), triangles);
    }
    /* animations: names, channels, keyframes (the channels' input counts) and durations (the
       largest max of the samplers' input accessors, a MUST of the spec) from the JSON */
    json_t *anims = json_object_get(g, "animations");
    out = json_object_get(r, "animations");
    assert_int_equal(json_array_size(out), json_array_size(anims));
    for (size_t a = 0; a < json_array_size(anims); a++) {
        json_t *o = json_array_get(out, a), *anim = json_array_get(anims, a);
        json_t *samplers = json_object_get(anim, "samplers"), *channels = json_object_get(anim, "channels");
        const char *name = json_string_value(json_object_get(anim, "name"));
        if (name) assert_string_equal(json_string_value(json_object_get(o, "name")), name);
        assert_int_equal(json_integer_value(json_object_get(o, "channels")), json_array_size(channels));
        double duration = 0;
        for (size_t k = 0; k < json_array_size(samplers); k++) {
            json_t *input = json_array_get(json_object_get(g, "accessors"),
                                           (size_t)json_integer_value(json_object_get(json_array_get(samplers, k), "input")));
            json_t *max = json_array_get(json_object_get(input, "max"), 0);
            assert_true(json_is_number(max));
            duration = fmax(duration, json_number_value(max));
        }
        json_int_t keyframes = 0;
        for (size_t k = 0; k < json_array_size(channels); k++) {
            json_t *sampler = json_object_get(json_array_get(channels, k), "sampler");
            keyframes += accessor_count(g, json_object_get(json_array_get(samplers, (size_t)json_integer_value(sampler)), "input"));
        }
        ASSERT_NEAR(json_number_value(json_object_get(o, "duration")), duration, 1e-6 * fmax(1, duration));
        assert_int_equal(json_integer_value(json_object_get(o, "keyframes")), keyframes);
    }
    /* skins, cameras, lights, scenes */
    json_t *skins = json_object_get(g, "skins");
    assert_int_equal(json_array_size(json_object_get(r, "skins")), json_array_size(skins));
    for (size_t s = 0; s < json_array_size(skins); s++)
        assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(r, "skins"), s), "joints")),
                         json_array_size(json_object_get(json_array_get(skins, s), "joints")));
    assert_int_equal(json_array_size(json_object_get(r, "cameras")), json_array_size(json_object_get(g, "cameras")));
    for (size_t c = 0; c < json_array_size(json_object_get(g, "cameras")); c++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(r, "cameras"), c), "type")),
                            json_string_value(json_object_get(json_array_get(json_object_get(g, "cameras"), c), "type")));
    json_t *lights = json_object_get(json_object_get(json_object_get(g, "extensions"), "KHR_lights_punctual"), "lights");
    assert_int_equal(json_array_size(json_object_get(r, "lights")), json_array_size(lights));
    assert_int_equal(json_array_size(json_object_get(r, "scenes")), json_array_size(json_object_get(g, "scenes")));
    json_t *used = json_object_get(g, "extensionsUsed");
    /* the file's extensionsUsed, or an empty list when it has none */
    json_t *none = json_array();
    assert_true(json_equal(json_object_get(r, "extensions_used"), used ? used : none));
    json_decref(none);
    json_decref(r);
    json_decref(g);
}

static void test_info_json(void **state) {
    (void)state;
    check_info(EXAMPLE);
    if (!has_samples()) TEST_SKIP_SHARED(SAMPLES_DIR);
    char *paths[MAX_SAMPLES], *names[MAX_SAMPLES];
    int count = sample_files(paths, names);
    assert_true(count >= 19);
    for (int i = 0; i < count; i++) check_info(paths[i]);
    free_samples(paths, names, count);

    /* the Fox's three animations by name (the samples' README: 3 animations) */
    assert_int_equal(run("info '%s' --json", SAMPLES_DIR "/Fox/Fox.glb"), 0);
    json_t *r = stdout_json(), *anims = json_object_get(r, "animations");
    assert_int_equal(json_array_size(anims), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(anims, 0), "name")), "Survey");
    assert_string_equal(json_string_value(json_object_get(json_array_get(anims, 1), "name")), "Walk");
    assert_string_equal(json_string_value(json_object_get(json_array_get(anims, 2), "name")), "Run");
    /* its texture's image is a PNG in the GLB: its IHDR read here, through the file's bufferView */
    file_data fox = read_gltf(SAMPLES_DIR "/Fox/Fox.glb");
    json_t *view = json_array_get(json_object_get(fox.root, "bufferViews"),
                                  (size_t)json_integer_value(json_object_get(json_array_get(json_object_get(fox.root, "images"), 0), "bufferView")));
    uint32_t w, h;
    png_ihdr(fox.buffers[json_integer_value(json_object_get(view, "buffer"))] + (size_t)num(json_object_get(view, "byteOffset"), 0), &w, &h);
    json_t *image = json_array_get(json_object_get(r, "images"), 0);
    assert_int_equal(json_integer_value(json_object_get(image, "width")), w);
    assert_int_equal(json_integer_value(json_object_get(image, "height")), h);
    assert_int_equal(json_integer_value(json_object_get(image, "bytes")), json_integer_value(json_object_get(view, "byteLength")));
    free_gltf(&fox);
    json_decref(r);

    /* an external PNG: width and height from its IHDR, bytes from its size */
    const char *png = SAMPLES_DIR "/BlenderIO_24_animation_pointer/6.png";
    size_t size;
    unsigned char *bytes = (unsigned char *)read_file(png, &size);
    assert_non_null(bytes);
    png_ihdr(bytes, &w, &h);
    free(bytes);
    json_t *g = gltf_json(SAMPLES_DIR "/BlenderIO_24_animation_pointer/24_animation_pointer.gltf");
    size_t which = SIZE_MAX;
    for (size_t i = 0; i < json_array_size(json_object_get(g, "images")); i++) {
        const char *uri = json_string_value(json_object_get(json_array_get(json_object_get(g, "images"), i), "uri"));
        if (uri && !strcmp(uri, "6.png")) which = i;
    }
    assert_true(which != SIZE_MAX);
    assert_int_equal(run("info '%s' --json", SAMPLES_DIR "/BlenderIO_24_animation_pointer/24_animation_pointer.gltf"), 0);
    r = stdout_json();
    image = json_array_get(json_object_get(r, "images"), which);
    assert_int_equal(json_integer_value(json_object_get(image, "width")), w);
    assert_int_equal(json_integer_value(json_object_get(image, "height")), h);
    assert_int_equal(json_integer_value(json_object_get(image, "bytes")), size);
    /* 4 cameras and 4 lights (the samples' README) */
    assert_int_equal(json_array_size(json_object_get(r, "cameras")), 4);
    assert_int_equal(json_array_size(json_object_get(r, "lights")), 4);
    json_decref(r);
    json_decref(g);

    /* instances (EXT_mesh_gpu_instancing: the attributes' count per node), hidden nodes
       (KHR_node_visibility visible false), MSFT_lod groups (nodes with MSFT_lod), from the JSON */
    static const char *const extension_files[] = { "instancing_teapots_galore/teapots_galore.gltf", "lod_Torus/Torus.gltf",
                                                   "visibility_BowShooting/BowShooting.glb" };
    for (size_t e = 0; e < sizeof extension_files / sizeof extension_files[0]; e++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/gltf/extensions/%s", ARBOR_SHARED_DIR, extension_files[e]);
        g = gltf_json(path);
        json_int_t instanced = 0, instances = 0, hidden = 0, lods = 0;
        json_t *node;
        size_t i;
        json_array_foreach(json_object_get(g, "nodes"), i, node) {
            json_t *ext = json_object_get(node, "extensions");
            json_t *gpu = json_object_get(json_object_get(ext, "EXT_mesh_gpu_instancing"), "attributes");
            if (gpu) {
                const char *key;
                json_t *accessor;
                json_int_t most = 0;
                json_object_foreach(gpu, key, accessor) if (accessor_count(g, accessor) > most) most = accessor_count(g, accessor);
                instanced++;
                instances += most;
            }
            hidden += json_is_false(json_object_get(json_object_get(ext, "KHR_node_visibility"), "visible"));
            lods += json_object_get(ext, "MSFT_lod") != NULL;
        }
        assert_int_equal(run("info '%s' --json", path), 0);
        r = stdout_json();
        assert_int_equal(json_integer_value(json_object_get(r, "instanced_nodes")), instanced);
        assert_int_equal(json_integer_value(json_object_get(r, "instances")), instances);
        assert_int_equal(json_integer_value(json_object_get(r, "hidden_nodes")), hidden);
        assert_int_equal(json_integer_value(json_object_get(r, "lod_groups")), lods);
        assert_true(instanced + hidden + lods > 0);
        json_decref(r);
        assert_int_equal(run("tree '%s' --json", path), 0); /* tree marks them too (the default scene's nodes) */
        r = stdout_json();
        json_int_t tree_hidden = 0, tree_instances = 0, scene_hidden = 0, scene_instances = 0;
        json_array_foreach(json_object_get(r, "nodes"), i, node) {
            tree_hidden += json_is_false(json_object_get(node, "visible"));
            tree_instances += json_integer_value(json_object_get(node, "instances"));
        }
        int *order = malloc(sizeof(int) * (json_array_size(json_object_get(g, "nodes")) + 1));
        int *depth = malloc(sizeof(int) * (json_array_size(json_object_get(g, "nodes")) + 1));
        int walked = scene_walk(g, default_scene(g), order, depth);
        for (int k = 0; k < walked; k++) {
            json_t *ext = json_object_get(json_array_get(json_object_get(g, "nodes"), (size_t)order[k]), "extensions");
            json_t *gpu = json_object_get(json_object_get(ext, "EXT_mesh_gpu_instancing"), "attributes");
            const char *key;
            json_t *accessor;
            json_int_t most = 0;
            json_object_foreach(gpu, key, accessor) if (accessor_count(g, accessor) > most) most = accessor_count(g, accessor);
            scene_instances += most;
            scene_hidden += json_is_false(json_object_get(json_object_get(ext, "KHR_node_visibility"), "visible"));
        }
        free(order);
        free(depth);
        assert_int_equal(tree_hidden, scene_hidden);
        assert_int_equal(tree_instances, scene_instances);
        json_decref(r);
        json_decref(g);
    }

    /* the text report names them too */
    assert_int_equal(run("info '%s'", SAMPLES_DIR "/Fox/Fox.glb"), 0);
    assert_contains(STDOUT_FILE, "    Walk: ");
    assert_contains(STDOUT_FILE, "fox1: 1 primitive, 1728 vertices, 576 triangles");
}

/* ---- stats ----------------------------------------------------------------------------------- */

static void test_stats_json(void **state) {
    (void)state;
    if (!has_samples()) TEST_SKIP_SHARED(SAMPLES_DIR);
    /* the samples' README: depth counting nodes (a lone root = 1), `matrix` nodes */
    static const struct { const char *file; int depth, matrices; } table[] = {
        { "2CylinderEngine/2CylinderEngine.glb", 6, 76 },
        { "VC/VC.gltf", 4, 193 },
        { "RiggedFigure/RiggedFigure.glb", 8, 1 },
        { "BoxAnimated/BoxAnimated.glb", 3, -1 },
        { "Fox/Fox.glb", 9, -1 },
        { "BlenderIO_24_animation_pointer/24_animation_pointer.gltf", 14, -1 },
        { "raylib_robot/robot.glb", 12, -1 },
        { "gltf-transform_many-cubes/many-cubes.gltf", 2, -1 },
    };
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", SAMPLES_DIR, table[t].file);
        json_t *g = gltf_json(path);
        int n = (int)json_array_size(json_object_get(g, "nodes"));
        int *order = malloc(sizeof(int) * (size_t)(n + 1)), *depth = malloc(sizeof(int) * (size_t)(n + 1));
        int count = scene_walk(g, default_scene(g), order, depth);
        assert_int_equal(run("stats '%s' --json", path), 0);
        json_t *r = stdout_json();
        assert_int_equal(json_integer_value(json_object_get(r, "max_depth")), table[t].depth - 1);
        assert_int_equal(json_integer_value(json_object_get(r, "nodes")), count);
        json_t *hist = json_object_get(r, "depth_histogram");
        assert_int_equal(json_array_size(hist), table[t].depth);
        int matrices = 0;
        unsigned char *animated = calloc((size_t)n + 1, 1);
        json_t *anim, *channel;
        size_t a, c;
        json_array_foreach(json_object_get(g, "animations"), a, anim) json_array_foreach(json_object_get(anim, "channels"), c, channel) {
            json_t *node = json_object_get(json_object_get(channel, "target"), "node");
            if (json_is_integer(node)) animated[json_integer_value(node)] = 1;
        }
        int moving = 0;
        for (int d = 0; d < table[t].depth; d++) {
            int at = 0;
            for (int i = 0; i < count; i++) at += depth[i] == d;
            assert_int_equal(json_integer_value(json_array_get(hist, (size_t)d)), at);
        }
        for (int i = 0; i < count; i++) {
            matrices += json_object_get(json_array_get(json_object_get(g, "nodes"), (size_t)order[i]), "matrix") != NULL;
            moving += animated[order[i]];
        }
        if (table[t].matrices >= 0) assert_int_equal(matrices, table[t].matrices);
        assert_int_equal(json_integer_value(json_object_get(r, "matrix_nodes")), matrices);
        assert_int_equal(json_integer_value(json_object_get(r, "trs_nodes")), count - matrices);
        /* (KHR_animation_pointer channels animate nodes too: those files are left out here) */
        char *used = json_dumps(json_object_get(g, "extensionsUsed"), JSON_ENCODE_ANY);
        if (!used || !strstr(used, "KHR_animation_pointer")) assert_int_equal(json_integer_value(json_object_get(r, "animated")), moving);
        free(used);
        free(animated);
        free(order);
        free(depth);
        json_decref(r);
        json_decref(g);
    }
    /* PalmTree's node 0 has a negative scale: the default scene's nodes whose world (the double
       product of the file's transforms) has a negative determinant are mirrored */
    const char *palm = SAMPLES_DIR "/bevy_PalmTree/PalmTree.gltf";
    file_data pf = read_gltf(palm);
    expected px = expect_from(&pf);
    int *order = malloc(sizeof(int) * (px.count + 1)), *depth = malloc(sizeof(int) * (px.count + 1));
    int count = scene_walk(pf.root, default_scene(pf.root), order, depth), mirrored = 0;
    for (int i = 0; i < count; i++) {
        const double *m = px.world[order[i]];
        mirrored += m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
                        m[8] * (m[1] * m[6] - m[5] * m[2]) < 0;
    }
    assert_true(mirrored >= 1); /* the file has one */
    assert_int_equal(run("stats '%s' --json", palm), 0);
    json_t *r = stdout_json();
    assert_int_equal(json_integer_value(json_object_get(r, "mirrored")), mirrored);
    json_decref(r);
    free(order);
    free(depth);
    free_expected(&px);
    free_gltf(&pf);
    assert_int_equal(run("stats '%s'", EXAMPLE), 0);
    assert_contains(STDOUT_FILE, "max depth        4 (a root has depth 0)");
    assert_contains(STDOUT_FILE, "depths           0:1 1:2 2:2 3:2 4:1"); /* base; joint, mirror; arm, joint2; hand, arm2; hand2 */
}

/* ---- one scene at a time ----------------------------------------------------------------------- */

static void test_one_scene(void **state) {
    (void)state;
    if (!has_samples()) TEST_SKIP_SHARED(SAMPLES_DIR);
    const char *multiple = SAMPLES_DIR "/MultipleScenes/MultipleScenes.gltf";
    json_t *g = gltf_json(multiple);
    for (int scene = 0; scene < 2; scene++) {
        int order[8], depth[8], count = scene_walk(g, scene, order, depth);
        /* cull: only that scene's nodes */
        assert_int_equal(run("cull '%s' --scene %d --json", multiple, scene), 0);
        json_t *r = stdout_json(), *visible = json_object_get(r, "visible");
        assert_true(json_array_size(visible) >= 1);
        for (size_t i = 0; i < json_array_size(visible); i++) {
            bool member = false;
            for (int k = 0; k < count; k++) member |= order[k] == json_integer_value(json_array_get(visible, i));
            assert_true(member);
        }
        json_decref(r);
        /* tree: that scene's nodes in order, with parents and depths */
        assert_int_equal(run("tree '%s' --scene %d --json", multiple, scene), 0);
        r = stdout_json();
        json_t *nodes = json_object_get(r, "nodes");
        assert_int_equal(json_array_size(nodes), count);
        for (int k = 0; k < count; k++) {
            assert_int_equal(json_integer_value(json_object_get(json_array_get(nodes, (size_t)k), "index")), order[k]);
            assert_int_equal(json_integer_value(json_object_get(json_array_get(nodes, (size_t)k), "depth")), depth[k]);
        }
        json_decref(r);
        /* dump and animate --time: that scene's nodes only, in file index order */
        int sorted[8];
        memcpy(sorted, order, sizeof(int) * (size_t)count);
        for (int a = 1; a < count; a++)
            for (int b = a; b > 0 && sorted[b - 1] > sorted[b]; b--) {
                int t = sorted[b];
                sorted[b] = sorted[b - 1];
                sorted[b - 1] = t;
            }
        const char *forms[] = { "dump '%s' --json --scene %d", "animate '%s' --time 0 --scene %d" };
        for (int form = 0; form < 2; form++) {
            int status = run(forms[form], multiple, scene);
            if (form == 1 && !json_array_size(json_object_get(g, "animations"))) {
                assert_int_not_equal(status, 0); /* no animation to pose with */
                continue;
            }
            assert_int_equal(status, 0);
            r = stdout_json();
            nodes = json_object_get(r, "nodes");
            assert_int_equal(json_array_size(nodes), count);
            for (int k = 0; k < count; k++)
                assert_int_equal(json_integer_value(json_object_get(json_array_get(nodes, (size_t)k), "index")), sorted[k]);
            json_decref(r);
        }
    }
    assert_int_equal(run("dump '%s' --json --scene 2", multiple), 2);
    assert_contains(STDERR_FILE, "or all");
    {   /* without --scene, the file's default scene; --scene all, every node of the file */
        int order[8], depth[8], count = scene_walk(g, default_scene(g), order, depth);
        assert_int_equal(run("dump '%s' --json", multiple), 0);
        json_t *r = stdout_json(), *nodes = json_object_get(r, "nodes");
        assert_int_equal(json_array_size(nodes), count);
        for (size_t i = 0; i < json_array_size(nodes); i++) {
            bool member = false;
            for (int k = 0; k < count; k++) member |= order[k] == json_integer_value(json_object_get(json_array_get(nodes, i), "index"));
            assert_true(member);
        }
        assert_int_equal(json_array_size(json_object_get(r, "scenes")), json_array_size(json_object_get(g, "scenes")));
        json_decref(r);
        assert_true((size_t)count < json_array_size(json_object_get(g, "nodes"))); /* the test can tell */
        assert_int_equal(run("dump '%s' --json --scene all", multiple), 0);
        r = stdout_json();
        assert_int_equal(json_array_size(json_object_get(r, "nodes")), json_array_size(json_object_get(g, "nodes")));
        json_decref(r);
        assert_int_equal(run("diff '%s' '%s' --scene all", multiple, multiple), 0);
        assert_int_equal(run("tree '%s' --scene all", multiple), 2); /* a view of one scene */
    }
    {   /* animate --scene on an animated file: the scene's nodes, in file index order */
        const char *box = SAMPLES_DIR "/BoxAnimated/BoxAnimated.glb";
        json_t *b = gltf_json(box);
        int order[16], depth[16], count = scene_walk(b, 0, order, depth), seen = 0;
        assert_int_equal(run("animate '%s' --time 0.5 --scene 0", box), 0);
        json_t *r = stdout_json(), *nodes = json_object_get(r, "nodes");
        assert_int_equal(json_array_size(nodes), count);
        for (size_t i = 0; i < json_array_size(nodes); i++)
            for (int k = 0; k < count; k++)
                seen += order[k] == json_integer_value(json_object_get(json_array_get(nodes, i), "index"));
        assert_int_equal(seen, count);
        json_decref(r);
        assert_int_equal(run("animate '%s' --time 0.5 --scene 1", box), 2);
        assert_int_equal(run("animate '%s' --time 0.5 --scene all", box), 0);
        r = stdout_json();
        assert_int_equal(json_array_size(json_object_get(r, "nodes")), json_array_size(json_object_get(b, "nodes")));
        json_decref(r);
        json_decref(b);
    }
    /* the default scene is the file's (1) */
    assert_int_equal(run("cull '%s' --json", multiple), 0);
    json_t *r = stdout_json();
    assert_int_equal(json_integer_value(json_object_get(r, "scene")), default_scene(g));
    json_decref(r);
    json_decref(g);

    /* the robot arm: the framing camera sees every node with a mesh, depth-first */
    g = gltf_json(EXAMPLE);
    int order[16], depth[16], count = scene_walk(g, 0, order, depth), meshed = 0;
    assert_int_equal(run("cull '%s' --json", EXAMPLE), 0);
    r = stdout_json();
    json_t *visible = json_object_get(r, "visible");
    for (int k = 0; k < count; k++) {
        if (!json_object_get(json_array_get(json_object_get(g, "nodes"), (size_t)order[k]), "mesh")) continue;
        assert_int_equal(json_integer_value(json_array_get(visible, (size_t)meshed)), order[k]);
        meshed++;
    }
    assert_int_equal(json_array_size(visible), meshed);
    json_decref(r);
    json_decref(g);

    /* tree --json on every sample: parents and paths as the JSON says */
    char *paths[MAX_SAMPLES], *names[MAX_SAMPLES];
    int samples = sample_files(paths, names);
    for (int i = 0; i < samples; i++) {
        g = gltf_json(paths[i]);
        int scene = default_scene(g);
        if (scene < 0) {
            json_decref(g);
            continue;
        }
        json_t *gnodes = json_object_get(g, "nodes");
        int n = (int)json_array_size(gnodes);
        int *ord = malloc(sizeof(int) * (size_t)(n + 1)), *dep = malloc(sizeof(int) * (size_t)(n + 1));
        int c = scene_walk(g, scene, ord, dep);
        assert_int_equal(run("tree '%s' --json", paths[i]), 0);
        r = stdout_json();
        json_t *nodes = json_object_get(r, "nodes");
        assert_int_equal(json_array_size(nodes), c);
        for (int k = 0; k < c; k++) {
            json_t *o = json_array_get(nodes, (size_t)k), *parent = json_object_get(o, "parent");
            assert_int_equal(json_integer_value(json_object_get(o, "index")), ord[k]);
            if (json_is_integer(parent)) { /* the parent lists it among its children */
                json_t *children = json_object_get(json_array_get(gnodes, (size_t)json_integer_value(parent)), "children");
                bool listed = false;
                for (size_t q = 0; q < json_array_size(children); q++) listed |= json_integer_value(json_array_get(children, q)) == ord[k];
                assert_true(listed);
            } else {
                assert_int_equal(dep[k], 0);
            }
        }
        json_decref(r);
        free(ord);
        free(dep);
        json_decref(g);
    }
    free_samples(paths, names, samples);

    /* a scene by name; an unknown one lists the scenes there are */
    const char *named = SAMPLES_DIR "/BlenderIO_00_empty_scene/00_empty_scene.gltf";
    assert_int_equal(run("info '%s' --scene 'Empty Scene' --json", named), 0);
    r = stdout_json();
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "scene"), "index")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "scene"), "nodes")), 0);
    json_decref(r);
    assert_int_equal(run("stats '%s' --scene Scene --json", named), 0);
    r = stdout_json();
    assert_int_equal(json_integer_value(json_object_get(r, "scene")), 0);
    assert_int_equal(json_integer_value(json_object_get(r, "nodes")), 1);
    json_decref(r);
    assert_int_equal(run("tree '%s' --scene Nope", named), 2);
    assert_contains(STDERR_FILE, "has no scene \"Nope\"");
    assert_contains(STDERR_FILE, "1 \"Empty Scene\"");
    assert_contains(STDERR_FILE, "(see arbor tree --help)");
    assert_int_equal(run("validate '%s' --scene 2", named), 2);
    assert_int_equal(run("dot '%s' --scene 1", named), 0);
    assert_true(!contains(STDOUT_FILE, "label="));
    assert_int_equal(run("convert '%s' '%s' --scene 'Empty Scene'", named, OUT_DIR "/empty.glb"), 0);
}

/* ---- manners ---------------------------------------------------------------------------------- */

static void test_manners(void **state) {
    (void)state;
    make_dir(OUT_DIR);
    assert_int_equal(run("info '%s'", OUT_DIR), 1);
    assert_contains(STDERR_FILE, "is a directory");
    assert_int_equal(run("info '%s'", OUT_DIR "/no-such.gltf"), 1);
    assert_contains(STDERR_FILE, "no such file");
    if (geteuid() != 0) { /* root reads anything */
        const char *locked = OUT_DIR "/locked.gltf";
        FILE *f = fopen(locked, "w");
        fputs("{}", f);
        fclose(f);
        chmod(locked, 0);
        assert_int_equal(run("info '%s'", locked), 1);
        assert_contains(STDERR_FILE, "cannot be read");
    }
    /* usage errors exit 2 and name the command's own --help */
    static const char *const usages[] = { "stats", "diff one.gltf", "info --frob x", "tree a b", "cull --scene" };
    for (size_t i = 0; i < sizeof usages / sizeof usages[0]; i++) {
        char name[16], help[40];
        sscanf(usages[i], "%15s", name);
        snprintf(help, sizeof help, "(see arbor %s --help)", name);
        assert_int_equal(run("%s", usages[i]), 2);
        assert_contains(STDERR_FILE, help);
    }
    /* glTF written: a name that says .gltf or .glb, checked before any work (exit 2) */
    static const char *const outputs[] = { "convert '%s' out.txt", "convert '%s' -", "edit '%s' -o out.obj -e 'move /base 1 2 3'",
                                           "edit '%s' -o - -e 'move /base 1 2 3'" };
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
        char name[16], help[40];
        sscanf(outputs[i], "%15s", name);
        snprintf(help, sizeof help, "(see arbor %s --help)", name);
        assert_int_equal(run(outputs[i], EXAMPLE), 2);
        assert_contains(STDERR_FILE, help);
    }
    assert_int_equal(run("demo --save out.txt"), 2);
    assert_contains(STDERR_FILE, ".gltf or .glb");
    assert_int_equal(run("convert '%s' '%s'", EXAMPLE, OUT_DIR "/folder.gltf/"), 2);
    make_dir(OUT_DIR "/folder.gltf");
    assert_int_equal(run("convert '%s' '%s'", EXAMPLE, OUT_DIR "/folder.gltf"), 1);
    assert_contains(STDERR_FILE, "is a directory");
    /* validate and edit's scripts say which: a directory, a missing file; validate - reads
       standard input */
    assert_int_equal(run("validate '%s' '%s' '%s'", OUT_DIR, OUT_DIR "/no-such.gltf", EXAMPLE), 1);
    assert_contains(STDERR_FILE, "is a directory");
    assert_contains(STDERR_FILE, "no such file");
    assert_contains(STDOUT_FILE, "robot_arm.gltf: ok");
    assert_int_equal(run("validate - < '%s'", EXAMPLE), 0);
    assert_contains(STDOUT_FILE, "(standard input): ok");
    assert_int_equal(run("edit '%s' -o '%s' --script '%s'", EXAMPLE, OUT_DIR "/x.gltf", OUT_DIR), 1);
    assert_contains(STDERR_FILE, "is a directory, not a script");
    assert_int_equal(run("frobnicate"), 2);
    assert_contains(STDERR_FILE, "the commands: demo info tree");
    /* - reads standard input: the same report */
    assert_int_equal(run("info '%s' --json", EXAMPLE), 0);
    json_t *a = stdout_json();
    assert_int_equal(run("info - --json < '%s'", EXAMPLE), 0);
    json_t *b = stdout_json();
    json_object_del(a, "file");
    json_object_del(b, "file");
    assert_true(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    assert_int_equal(run("edit '%s' -o '%s' -e 'move /base/joint/arn 1 2 3'", EXAMPLE, OUT_DIR "/x.gltf"), 1);
    assert_contains(STDERR_FILE, "the names under /base/joint: arm");
    /* no float noise: -1.53e-06 beside 1 and 2 is 0 */
    const char *noisy = OUT_DIR "/noisy.gltf";
    FILE *f = fopen(noisy, "w");
    fputs("{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
          "\"nodes\":[{\"name\":\"n\",\"translation\":[1,-1.53e-06,2]}]}",
          f);
    fclose(f);
    assert_int_equal(run("tree '%s'", noisy), 0);
    assert_contains(STDOUT_FILE, "n  at (1, 0, 2)");
    assert_int_equal(run("tree '%s' --json", noisy), 0);
    json_t *r = stdout_json(), *position = json_object_get(json_array_get(json_object_get(r, "nodes"), 0), "position");
    assert_int_equal(json_integer_value(json_array_get(position, 1)), 0);
    assert_true(json_is_integer(json_array_get(position, 1)));
    json_decref(r);
    /* and diff's translations the same */
    const char *moved = OUT_DIR "/noisy-moved.gltf";
    f = fopen(moved, "w");
    fputs("{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
          "\"nodes\":[{\"name\":\"n\",\"translation\":[3,-1.53e-06,2]}]}",
          f);
    fclose(f);
    assert_int_equal(run("diff '%s' '%s'", noisy, moved), 1);
    assert_contains(STDOUT_FILE, "translation (1, 0, 2) -> (3, 0, 2)");
    /* unknown names list the names there are (last: the rest runs without the samples) */
    if (!has_samples()) TEST_SKIP_SHARED(SAMPLES_DIR);
    assert_int_equal(run("animate '%s' --time 1 --animation Nope", SAMPLES_DIR "/Fox/Fox.glb"), 2);
    assert_contains(STDERR_FILE, "2 \"Run\"");
    assert_int_equal(run("cull '%s' --camera nosuch", SAMPLES_DIR "/Cameras/Cameras.gltf"), 2);
    assert_contains(STDERR_FILE, "the cameras are on: #1 (#1), #2 (#2)");
}

/* ---- diff ------------------------------------------------------------------------------------- */

static void test_diff(void **state) {
    (void)state;
    const char *changed = OUT_DIR "/changed.gltf", *nudged = OUT_DIR "/nudged.gltf";
    assert_int_equal(run("diff '%s' '%s'", EXAMPLE, EXAMPLE), 0);
    assert_int_equal(run("edit '%s' -o '%s' -e 'rename /base/joint/arm forearm' -e 'move /base 1 2 3' "
                         "-e 'reparent /base/mirror/joint2/arm2/hand2 /base' -e 'delete /base/joint/forearm/hand' -e 'add extra /base/mirror'",
                         EXAMPLE, changed),
                     0);
    assert_int_equal(run("diff '%s' '%s'", EXAMPLE, changed), 1);
    assert_contains(STDOUT_FILE, "* base: local matrix differs by 3  translation (0, 0.2, 0) -> (1, 2, 3)"); /* max |1-0|,|2-0.2|,|3-0| */
    assert_contains(STDOUT_FILE, "~ base/joint/arm -> base/joint/forearm");
    assert_contains(STDOUT_FILE, "- base/joint/arm/hand (#3)");
    assert_contains(STDOUT_FILE, "> base/mirror/joint2/arm2/hand2 -> base/hand2");
    assert_contains(STDOUT_FILE, "+ base/mirror/extra (#7)"); /* 8 nodes less hand are #0..#6; extra follows */
    /* a nudge of 1e-4 is a difference at the default tolerance, not at 1e-3 */
    assert_int_equal(run("edit '%s' -o '%s' -e 'move-by /base 0.0001 0 0'", EXAMPLE, nudged), 0);
    assert_int_equal(run("diff '%s' '%s'", EXAMPLE, nudged), 1);
    assert_int_equal(run("diff '%s' '%s' --tolerance 1e-3", EXAMPLE, nudged), 0);
    assert_int_equal(run("diff '%s' - < '%s'", EXAMPLE, EXAMPLE), 0);
    assert_int_equal(run("diff '%s' '%s'", EXAMPLE, OUT_DIR "/none.gltf"), 2);
    assert_int_equal(run("diff '%s' '%s' --tolerance -1", EXAMPLE, EXAMPLE), 2);
    assert_int_equal(run("diff '%s'", EXAMPLE), 2);
}

/* ---- edit in degrees ---------------------------------------------------------------------------- */

static void axis_angle(double x, double y, double z, double degrees, double out[4]) {
    double l = sqrt(x * x + y * y + z * z), h = degrees * PI / 360;
    out[0] = x / l * sin(h), out[1] = y / l * sin(h), out[2] = z / l * sin(h), out[3] = cos(h);
}

/* The saved node `name`'s rotation equals q (or -q: the same rotation). */
static void assert_rotation(json_t *g, const char *name, const double q[4]) {
    json_t *node;
    size_t i;
    json_array_foreach(json_object_get(g, "nodes"), i, node) {
        if (strcmp(json_string_value(json_object_get(node, "name")), name)) continue;
        json_t *r = json_object_get(node, "rotation");
        double dot = r ? 0 : q[3]; /* no rotation written: the identity */
        for (int k = 0; r && k < 4; k++) dot += q[k] * json_number_value(json_array_get(r, (size_t)k));
        ASSERT_NEAR(fabs(dot), 1, 1e-6);
        return;
    }
    fail_msg("no node %s", name);
}

static json_t *node_named(json_t *g, const char *name) {
    json_t *node;
    size_t i;
    json_array_foreach(json_object_get(g, "nodes"), i, node) if (!strcmp(json_string_value(json_object_get(node, "name")), name)) return node;
    return NULL;
}

static void test_edit_degrees(void **state) {
    (void)state;
    const char *out = OUT_DIR "/edited.gltf";
    double qx[4], qy[4], qz[4], t[4], euler[4], axis[4], turned[4];
    axis_angle(1, 0, 0, 90, qx), axis_angle(0, 1, 0, 30, qy), axis_angle(0, 0, 1, 45, qz);
    test_ref_quat_mul(t, qy, qx);
    test_ref_quat_mul(euler, qz, t); /* X first, then Y, then Z: Rz Ry Rx */
    axis_angle(1, 1, 0, 120, axis);
    double turn[4];
    axis_angle(0, 0, 1, 90, turn);
    test_ref_quat_mul(turned, turn, axis);
    assert_int_equal(run("edit '%s' -o '%s' -e 'rotate /base --euler 90 30 45' -e 'rotate /base/joint --axis 1 1 0 120' "
                         "-e 'rotate /base/mirror --axis 1 1 0 120' -e 'turn /base/mirror --axis 0 0 1 90' -e 'move-by /base 1 2 3' "
                         "-e 'add lamp /base' -e 'attach-light /base/lamp spot 5 1 0 0' -e 'add eye /' "
                         "-e 'attach-camera /eye perspective 60 0.1 100' -e 'attach-mesh /eye 2' -e 'detach-mesh /base' "
                         "-e 'rotate /eye 0 0 0 2'",
                         EXAMPLE, out),
                     0);
    json_t *g = gltf_json(out), *before = gltf_json(EXAMPLE);
    assert_rotation(g, "base", euler);
    assert_rotation(g, "joint", axis);
    assert_rotation(g, "mirror", turned);
    double identity[4] = { 0, 0, 0, 1 };
    assert_rotation(g, "eye", identity);
    json_t *t0 = json_object_get(node_named(before, "base"), "translation"), *t1 = json_object_get(node_named(g, "base"), "translation");
    for (int k = 0; k < 3; k++) ASSERT_NEAR(json_number_value(json_array_get(t1, (size_t)k)), json_number_value(json_array_get(t0, (size_t)k)) + k + 1, 1e-6);
    assert_null(json_object_get(node_named(g, "base"), "mesh"));
    json_t *eye = node_named(g, "eye"), *lamp = node_named(g, "lamp");
    assert_int_equal(json_integer_value(json_object_get(eye, "mesh")), 2);
    json_t *camera = json_array_get(json_object_get(g, "cameras"), (size_t)json_integer_value(json_object_get(eye, "camera")));
    ASSERT_NEAR(json_number_value(json_object_get(json_object_get(camera, "perspective"), "yfov")), 60 * PI / 180, 1e-6);
    json_t *light = json_array_get(json_object_get(json_object_get(json_object_get(g, "extensions"), "KHR_lights_punctual"), "lights"),
                                   (size_t)json_integer_value(json_object_get(json_object_get(json_object_get(lamp, "extensions"), "KHR_lights_punctual"), "light")));
    assert_string_equal(json_string_value(json_object_get(light, "type")), "spot");
    ASSERT_NEAR(json_number_value(json_object_get(light, "intensity")), 5, 1e-9);
    ASSERT_NEAR(json_number_value(json_array_get(json_object_get(light, "color"), 1)), 0, 1e-9);
    /* lamp is base's last child */
    json_t *children = json_object_get(node_named(g, "base"), "children");
    json_t *last = json_array_get(json_object_get(g, "nodes"), (size_t)json_integer_value(json_array_get(children, json_array_size(children) - 1)));
    assert_string_equal(json_string_value(json_object_get(last, "name")), "lamp");
    json_decref(g);
    json_decref(before);
    /* detaching */
    assert_int_equal(run("edit '%s' -o '%s' -e 'detach-camera /eye' -e 'detach-light /base/lamp'", out, OUT_DIR "/detached.gltf"), 0);
    g = gltf_json(OUT_DIR "/detached.gltf");
    assert_null(json_object_get(node_named(g, "eye"), "camera"));
    assert_null(json_object_get(node_named(g, "lamp"), "extensions"));
    json_decref(g);
    /* refusals: nothing written, the line said */
    assert_int_equal(run("edit '%s' -o '%s' -e 'rotate /base --axis 0 0 0 90'", EXAMPLE, OUT_DIR "/bad.gltf"), 1);
    assert_contains(STDERR_FILE, "has no direction");
    assert_int_equal(run("edit '%s' -o '%s' -e 'attach-mesh /base 99'", EXAMPLE, OUT_DIR "/bad.gltf"), 1);
    assert_contains(STDERR_FILE, "has 3 meshes");
    assert_int_equal(run("edit '%s' -o '%s' -e 'rotate /base --euler 1 2'", EXAMPLE, OUT_DIR "/bad.gltf"), 1);
    assert_int_equal(run("edit '%s' -o '%s' -e 'attach-light /base sun'", EXAMPLE, OUT_DIR "/bad.gltf"), 1);
    struct stat st;
    assert_int_not_equal(stat(OUT_DIR "/bad.gltf", &st), 0);
}

/* ---- render ------------------------------------------------------------------------------------ */

#if defined(ARBOR_CLI_HAS_RENDER)
static void png_size(const char *path, uint32_t *w, uint32_t *h) {
    size_t size;
    unsigned char *b = (unsigned char *)read_file(path, &size);
    assert_non_null(b);
    assert_true(size > 24);
    png_ihdr(b, w, h);
    free(b);
}

static bool same_file(const char *a, const char *b) {
    size_t na = 0, nb = 0;
    char *x = read_file(a, &na), *y = read_file(b, &nb);
    bool same = x && y && na == nb && !memcmp(x, y, na);
    free(x);
    free(y);
    return same;
}

static void test_render(void **state) {
    (void)state;
    uint32_t w, h;
    assert_int_equal(run("render '%s' -o '%s' --size 320x200", EXAMPLE, OUT_DIR "/small.png"), 0);
    png_size(OUT_DIR "/small.png", &w, &h);
    assert_int_equal(w, 320);
    assert_int_equal(h, 200);
    /* every view, each a different picture */
    static const char *const views[] = { "auto", "top", "front", "side", "iso" };
    char files[5][PATH_MAX];
    for (int v = 0; v < 5; v++) {
        snprintf(files[v], sizeof files[v], OUT_DIR "/view-%s.svg", views[v]);
        assert_int_equal(run("render '%s' -o '%s' --view %s", EXAMPLE, files[v], views[v]), 0);
        for (int u = 0; u < v; u++) assert_false(same_file(files[u], files[v]));
    }
    /* names as SVG text: all, the roots, none (only the caption) */
    assert_int_equal(run("render '%s' -o '%s' --labels all", EXAMPLE, OUT_DIR "/all.svg"), 0);
    assert_contains(OUT_DIR "/all.svg", ">base</text>");
    assert_contains(OUT_DIR "/all.svg", ">hand2</text>");
    assert_int_equal(count_of(OUT_DIR "/all.svg", "<text"), 8 + 1);
    assert_int_equal(run("render '%s' -o '%s' --labels roots", EXAMPLE, OUT_DIR "/roots.svg"), 0);
    assert_contains(OUT_DIR "/roots.svg", ">base</text>");
    assert_false(contains(OUT_DIR "/roots.svg", ">hand2</text>"));
    assert_int_equal(run("render '%s' -o '%s' --labels none", EXAMPLE, OUT_DIR "/none.svg"), 0);
    assert_int_equal(count_of(OUT_DIR "/none.svg", "<text"), 1);
    /* meshes from the vertex data: the arm's box meshes (12 triangles each, from its JSON), back
       faces left out: a box shows 1 to 3 faces, 2 to 6 triangles */
    json_t *g = gltf_json(EXAMPLE);
    json_int_t boxes = 0;
    for (size_t i = 0; i < json_array_size(json_object_get(g, "nodes")); i++)
        boxes += json_object_get(json_array_get(json_object_get(g, "nodes"), i), "mesh") != NULL;
    json_decref(g);
    size_t polygons = count_of(OUT_DIR "/all.svg", "<polygon") - 1; /* less the background */
    assert_true(polygons >= (size_t)boxes * 2 && polygons <= (size_t)boxes * 6);
    /* the grid (grey) and the axes (red, green, blue) */
    assert_contains(OUT_DIR "/all.svg", "stroke=\"#999999\"");
    assert_contains(OUT_DIR "/all.svg", "stroke=\"#d91a1a\"");
    assert_contains(OUT_DIR "/all.svg", "stroke=\"#1aa61a\"");
    /* - writes SVG to standard output */
    assert_int_equal(run("render '%s' -o - --labels roots", EXAMPLE), 0);
    assert_true(same_file(STDOUT_FILE, OUT_DIR "/roots.svg") || contains(STDOUT_FILE, ">base</text>"));
    /* usage */
    assert_int_equal(run("render '%s' -o x.svg --view under", EXAMPLE), 2);
    assert_contains(STDERR_FILE, "auto, top, front, side, iso, camera, camera:NODE");
    assert_int_equal(run("render '%s' -o x.svg --size 10x", EXAMPLE), 2);
    assert_int_equal(run("render '%s' -o x.svg --labels some", EXAMPLE), 2);
    assert_contains(STDERR_FILE, "(see arbor render --help)");
    if (!has_samples()) TEST_SKIP_SHARED(SAMPLES_DIR);
    /* cameras: frustums drawn (their ink), a camera's view by node */
    const char *cameras = SAMPLES_DIR "/Cameras/Cameras.gltf";
    assert_int_equal(run("render '%s' -o '%s' --view top", cameras, OUT_DIR "/cameras.svg"), 0);
    assert_true(count_of(OUT_DIR "/cameras.svg", "stroke=\"#40404d\"") >= 2 * 10); /* 2 frustums, 10 edges each */
    assert_int_equal(run("render '%s' -o '%s' --view 'camera:#2' --size 400x300", cameras, OUT_DIR "/through.png"), 0);
    png_size(OUT_DIR "/through.png", &w, &h);
    assert_int_equal(w, 400);
    assert_int_equal(h, 300);
    assert_int_equal(run("render '%s' -o x.png --view camera:#0", cameras), 2);
    assert_contains(STDERR_FILE, "carries no camera");
    /* lights: their symbols */
    assert_int_equal(run("render '%s' -o '%s'", SAMPLES_DIR "/bevy_animated_camera_and_light/animated_camera_and_light.glb",
                         OUT_DIR "/lights.svg"), 0);
    assert_true(count_of(OUT_DIR "/lights.svg", "fill=\"#ed9e00\"") >= 3); /* 3 KHR_lights_punctual lights */
    /* posed by an animation: time 0 and time 1 differ, an unknown animation lists the names */
    const char *box = SAMPLES_DIR "/BoxAnimated/BoxAnimated.glb";
    assert_int_equal(run("render '%s' -o '%s' --time 0", box, OUT_DIR "/t0.svg"), 0);
    assert_int_equal(run("render '%s' -o '%s' --time 1 --animation 0", box, OUT_DIR "/t1.svg"), 0);
    assert_false(same_file(OUT_DIR "/t0.svg", OUT_DIR "/t1.svg"));
    assert_int_equal(run("render '%s' -o x.svg --animation Nope", SAMPLES_DIR "/Fox/Fox.glb"), 2);
    assert_contains(STDERR_FILE, "1 \"Walk\"");
    /* one scene: MultipleScenes' two scenes are two pictures */
    const char *multiple = SAMPLES_DIR "/MultipleScenes/MultipleScenes.gltf";
    assert_int_equal(run("render '%s' -o '%s' --scene 0", multiple, OUT_DIR "/s0.svg"), 0);
    assert_int_equal(run("render '%s' -o '%s' --scene 1", multiple, OUT_DIR "/s1.svg"), 0);
    assert_false(same_file(OUT_DIR "/s0.svg", OUT_DIR "/s1.svg"));
    /* the Fox's skinned mesh follows its joints: its polygons move between two times */
    assert_int_equal(run("render '%s' -o '%s' --labels none --animation Run --time 0", SAMPLES_DIR "/Fox/Fox.glb", OUT_DIR "/run0.svg"), 0);
    assert_int_equal(run("render '%s' -o '%s' --labels none --animation Run --time 0.3", SAMPLES_DIR "/Fox/Fox.glb", OUT_DIR "/run1.svg"), 0);
    char *a = read_file(OUT_DIR "/run0.svg", NULL), *b = read_file(OUT_DIR "/run1.svg", NULL);
    assert_non_null(a);
    assert_non_null(b);
    char *pa = strstr(a, "<polygon points") , *pb = strstr(b, "<polygon points");
    assert_non_null(pa = strstr(pa + 1, "<polygon points")); /* past the background */
    assert_non_null(pb = strstr(pb + 1, "<polygon points"));
    assert_true(strncmp(pa, pb, 200) != 0);
    free(a);
    free(b);
    /* the Fox's mesh: 576 triangles (its JSON), about half facing the viewer */
    assert_int_equal(run("render '%s' -o '%s' --labels none", SAMPLES_DIR "/Fox/Fox.glb", OUT_DIR "/fox.svg"), 0);
    polygons = count_of(OUT_DIR "/fox.svg", "<polygon") - 1;
    assert_true(polygons > 576 / 4 && polygons <= 576);
}
#endif

#if defined(ARBOR_CLI_HAS_RENDER)
/* The triangles of an SVG picture (its 3-point polygons: the meshes), as 6 numbers each;
   returns their count (at most cap). */
static size_t svg_triangles(const char *path, double *xy, size_t cap) {
    char *text = read_file(path, NULL);
    assert_non_null(text);
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, "<polygon points=\"")); p++) {
        double v[6];
        char *at = (char *)p + strlen("<polygon points=\""), *end;
        int got = 0;
        for (; got < 6; got++, at = end + 1) { /* "x,y x,y x,y" (strtod: sscanf would measure the whole text each time) */
            v[got] = strtod(at, &end);
            if (end == at || *end != (got % 2 ? (got == 5 ? '"' : ' ') : ',')) break;
        }
        if (got != 6) continue;
        if (n < cap) memcpy(xy + 6 * n, v, 6 * sizeof *v);
        n++;
    }
    free(text);
    return n;
}

static void write_bytes(const char *path, const void *bytes, size_t size) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

/* An instanced mesh is drawn once per instance, each through its own world matrix; a hidden
   node is not drawn. A file written here: one triangle, three instances, an orthographic
   camera; the expected pixels are the instances' corners projected here. */
static void test_render_instances(void **state) {
    (void)state;
    const float corners[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, moves[9] = { -2, 1, 0, 0, -1, 0, 2, 0.5f, 0 };
    unsigned char bin[72];
    memcpy(bin, corners, 36);
    memcpy(bin + 36, moves, 36);
    write_bytes(OUT_DIR "/instances.bin", bin, sizeof bin);
    const double node[3] = { 0.5, 0, 0 }, xmag = 4, ymag = 3, width = 400, height = 300;
    FILE *f = fopen(OUT_DIR "/instances.gltf", "w");
    assert_non_null(f);
    fprintf(f, "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_mesh_gpu_instancing\",\"KHR_node_visibility\"],"
               "\"scene\":0,\"scenes\":[{\"nodes\":[0,1,2]}],"
               "\"nodes\":[{\"name\":\"cam\",\"camera\":0,\"translation\":[0,0,10]},"
               "{\"name\":\"crowd\",\"mesh\":0,\"translation\":[%g,%g,%g],"
               "\"extensions\":{\"EXT_mesh_gpu_instancing\":{\"attributes\":{\"TRANSLATION\":1}}}},"
               "{\"name\":\"hidden\",\"mesh\":0,\"translation\":[-3,-2,0],\"extensions\":{\"KHR_node_visibility\":{\"visible\":false}}}],"
               "\"cameras\":[{\"type\":\"orthographic\",\"orthographic\":{\"xmag\":%g,\"ymag\":%g,\"znear\":0.1,\"zfar\":100}}],"
               "\"materials\":[{\"doubleSided\":true,\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,0,0,1]}}],"
               "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":0}]}],"
               "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
               "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
               "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":36}],"
               "\"buffers\":[{\"uri\":\"instances.bin\",\"byteLength\":72}]}",
            node[0], node[1], node[2], xmag, ymag);
    fclose(f);
    assert_int_equal(run("render '%s' -o '%s' --view camera:cam --size 400x300 --labels none", OUT_DIR "/instances.gltf",
                         OUT_DIR "/instances.svg"), 0);
    double xy[6 * 8];
    assert_int_equal(svg_triangles(OUT_DIR "/instances.svg", xy, 8), 3); /* three instances; the hidden node not drawn */
    for (int k = 0; k < 3; k++) {
        double expected[6];
        for (int v = 0; v < 3; v++) { /* world = node + instance + corner; seen down -Z from (0, 0, 10) */
            double x = node[0] + moves[3 * k] + corners[3 * v], y = node[1] + moves[3 * k + 1] + corners[3 * v + 1];
            expected[2 * v] = (x / xmag + 1) / 2 * width;
            expected[2 * v + 1] = (1 - y / ymag) / 2 * height;
        }
        bool found = false;
        for (int t = 0; t < 3 && !found; t++) {
            bool same = true;
            for (int i = 0; i < 6; i++) same &= fabs(xy[6 * t + i] - expected[i]) <= 0.051; /* printed to 0.1 px */
            found = same;
        }
        if (!found) fail_msg("instance %d: no triangle at (%.1f,%.1f) (%.1f,%.1f) (%.1f,%.1f)", k, expected[0], expected[1], expected[2],
                             expected[3], expected[4], expected[5]);
    }
}

/* A text element of an SVG: its place, size, declared advance and bytes (entities decoded). */
typedef struct svg_text {
    double x, y, size, length;
    char text[256];
} svg_text;

static size_t svg_texts(const char *path, svg_text *out, size_t cap) {
    char *all = read_file(path, NULL);
    assert_non_null(all);
    size_t n = 0;
    for (const char *p = all; n < cap && (p = strstr(p, "<text ")); p++) {
        svg_text *t = &out[n];
        const char *x = strstr(p, " x=\""), *y = strstr(p, " y=\""), *size = strstr(p, " font-size=\""),
                   *length = strstr(p, " textLength=\""), *body = strchr(p, '>'), *end = strstr(p, "</text>");
        assert_true(x && y && size && length && body && end && body < end);
        t->x = strtod(x + 4, NULL), t->y = strtod(y + 4, NULL), t->size = strtod(size + 12, NULL), t->length = strtod(length + 13, NULL);
        size_t k = 0;
        for (const char *c = body + 1; c < end && k + 1 < sizeof t->text; c++) {
            static const char *const entities[][2] = { { "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" } };
            bool entity = false;
            for (int e = 0; e < 3 && !entity; e++)
                if (!strncmp(c, entities[e][0], strlen(entities[e][0]))) {
                    t->text[k++] = entities[e][1][0];
                    c += strlen(entities[e][0]) - 1;
                    entity = true;
                }
            if (!entity) t->text[k++] = *c;
        }
        t->text[k] = 0;
        n++;
    }
    free(all);
    return n;
}

/* What a default render shows: UTF-8 names as their bytes; the meshes framed, not a far camera
   or light; no overlays over meshes unless asked (and them where there are no meshes); names
   that do not cover one another. Files written here. */
static void test_render_defaults(void **state) {
    (void)state;
    /* names from the JSON's escapes: the SVG holds their UTF-8 bytes (jansson decodes them here) */
    const char *named = OUT_DIR "/utf8.gltf";
    FILE *f = fopen(named, "w");
    assert_non_null(f);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":["
          "{\"name\":\"B\\u00e9zierCurve\",\"children\":[1,2]},{\"name\":\"\\u66f2\\u7dda <&>\",\"translation\":[4,0,0]},"
          "{\"name\":\"\\u2713 \\ud83c\\udf33\",\"translation\":[0,4,0]}]}", f);
    fclose(f);
    assert_int_equal(run("render '%s' -o '%s'", named, OUT_DIR "/utf8.svg"), 0);
    json_t *g = gltf_json(named);
    svg_text texts[64];
    size_t n = svg_texts(OUT_DIR "/utf8.svg", texts, 64);
    for (size_t i = 0; i < 3; i++) {
        const char *name = json_string_value(json_object_get(json_array_get(json_object_get(g, "nodes"), i), "name"));
        bool found = false;
        for (size_t k = 0; k < n; k++) found |= !strcmp(texts[k].text, name);
        if (!found) fail_msg("no <text> holds the bytes of node %zu's name \"%s\"", i, name);
    }
    json_decref(g);

    /* two meshes apart, a camera 1000 away and a light 500 above: the picture holds both meshes'
       triangles and they fill a good share of it */
    static const float corners[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
    write_bytes(OUT_DIR "/far.bin", corners, sizeof corners);
    f = fopen(OUT_DIR "/far.gltf", "w");
    assert_non_null(f);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1,2,3]}],"
          "\"extensionsUsed\":[\"KHR_lights_punctual\"],"
          "\"extensions\":{\"KHR_lights_punctual\":{\"lights\":[{\"type\":\"point\"}]}},"
          "\"nodes\":[{\"name\":\"a\",\"mesh\":0},{\"name\":\"b\",\"mesh\":0,\"translation\":[3,0,-2]},"
          "{\"name\":\"far camera\",\"camera\":0,\"translation\":[1000,0,0]},"
          "{\"name\":\"far light\",\"translation\":[0,500,0],\"extensions\":{\"KHR_lights_punctual\":{\"light\":0}}}],"
          "\"cameras\":[{\"type\":\"perspective\",\"perspective\":{\"yfov\":0.8,\"znear\":0.1}}],"
          "\"materials\":[{\"doubleSided\":true}],"
          "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":0}]}],"
          "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]}],"
          "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"buffers\":[{\"uri\":\"far.bin\",\"byteLength\":36}]}", f);
    fclose(f);
    assert_int_equal(run("render '%s' -o '%s' --size 400x300", OUT_DIR "/far.gltf", OUT_DIR "/far.svg"), 0);
    double xy[6 * 4], lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
    assert_int_equal(svg_triangles(OUT_DIR "/far.svg", xy, 4), 2);
    for (int i = 0; i < 6; i++)
        for (int a = 0; a < 2; a++) lo[a] = fmin(lo[a], xy[2 * i + a]), hi[a] = fmax(hi[a], xy[2 * i + a]);
    assert_true(lo[0] >= 0 && lo[1] >= 0 && hi[0] <= 400 && hi[1] <= 300);
    assert_true(fmax((hi[0] - lo[0]) / 400, (hi[1] - lo[1]) / 300) >= 0.4);
    /* no overlays by default over meshes: no node dots, only the caption as text; with
       --overlays, the dots and names of the two meshes' nodes (the far camera and light are
       behind the viewer) */
    assert_int_equal(count_of(OUT_DIR "/far.svg", "<circle"), 0);
    assert_int_equal(count_of(OUT_DIR "/far.svg", "<text"), 1);
    assert_int_equal(run("render '%s' -o '%s' --size 400x300 --overlays", OUT_DIR "/far.gltf", OUT_DIR "/far_over.svg"), 0);
    assert_true(count_of(OUT_DIR "/far_over.svg", "<circle") >= 2);
    assert_contains(OUT_DIR "/far_over.svg", ">a</text>");
    assert_contains(OUT_DIR "/far_over.svg", ">b</text>");
    /* without meshes the overlays are the picture: there by default */
    assert_int_equal(count_of(OUT_DIR "/utf8.svg", "<circle"), 3);

    /* forty nodes a hair apart with long names: the names drawn cover none of the others (each
       box: its advance as the SVG declares it, and most of its font size above the baseline) */
    f = fopen(OUT_DIR "/crowd.gltf", "w");
    assert_non_null(f);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"root\",\"children\":[", f);
    for (int i = 1; i <= 40; i++) fprintf(f, "%s%d", i > 1 ? "," : "", i);
    fputs("]}", f);
    for (int i = 1; i <= 40; i++) fprintf(f, ",{\"name\":\"a rather long node name %d\",\"translation\":[%g,%g,0]}", i, 0.01 * i, 0.02 * (i % 5));
    fputs("]}", f);
    fclose(f);
    assert_int_equal(run("render '%s' -o '%s' --labels all", OUT_DIR "/crowd.gltf", OUT_DIR "/crowd.svg"), 0);
    n = svg_texts(OUT_DIR "/crowd.svg", texts, 64);
    assert_true(n >= 3 && n < 42); /* some names, the caption, and not all 41 names */
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++) {
            const svg_text *p = &texts[a], *q = &texts[b];
            bool apart = p->x + p->length <= q->x || q->x + q->length <= p->x || p->y <= q->y - 0.8 * q->size ||
                         q->y <= p->y - 0.8 * p->size;
            if (!apart) fail_msg("\"%s\" at (%.1f, %.1f) covers \"%s\" at (%.1f, %.1f)", p->text, p->x, p->y, q->text, q->x, q->y);
        }
}

/* MSFT_lod: one level drawn, level 0, even when the other levels are in the scene; --view auto
   frames the meshes, not the cameras around them; joints only with --joints. */
static void test_render_levels_framing_joints(void **state) {
    (void)state;
    if (!has_samples()) TEST_SKIP_SHARED(SAMPLES_DIR);
    /* Torus.gltf's levels 1 and 2 sit outside its scene; a copy here puts them in */
    const char *torus = ARBOR_SHARED_DIR "/gltf/extensions/lod_Torus/Torus.gltf";
    json_t *g = gltf_json(torus);
    json_t *roots = json_object_get(json_array_get(json_object_get(g, "scenes"), 0), "nodes");
    json_array_clear(roots);
    for (size_t i = 0; i < json_array_size(json_object_get(g, "nodes")); i++) json_array_append_new(roots, json_integer((json_int_t)i));
    assert_int_equal(json_dump_file(g, OUT_DIR "/torus_all.gltf", 0), 0);
    size_t size = 0;
    char *bin = read_file(ARBOR_SHARED_DIR "/gltf/extensions/lod_Torus/Torus.bin", &size);
    assert_non_null(bin);
    write_bytes(OUT_DIR "/Torus.bin", bin, size);
    free(bin);
    assert_int_equal(run("render '%s' -o '%s' --view front --labels none", torus, OUT_DIR "/torus.svg"), 0);
    assert_int_equal(run("render '%s' -o '%s' --view front --labels none", OUT_DIR "/torus_all.gltf", OUT_DIR "/torus_all.svg"), 0);
    size_t drawn = svg_triangles(OUT_DIR "/torus.svg", NULL, 0), all = svg_triangles(OUT_DIR "/torus_all.svg", NULL, 0);
    assert_int_equal(all, drawn);
    /* level 0 (node 2, the one with MSFT_lod) and the plain torus (node 3): from the index counts */
    json_t *nodes = json_object_get(g, "nodes"), *meshes = json_object_get(g, "meshes");
    json_int_t triangles = 0;
    for (int i = 2; i <= 3; i++) {
        json_t *prim = json_array_get(json_object_get(json_array_get(meshes, (size_t)json_integer_value(json_object_get(json_array_get(nodes, (size_t)i), "mesh"))), "primitives"), 0);
        triangles += accessor_count(g, json_object_get(prim, "indices")) / 3;
    }
    assert_true(drawn > (size_t)triangles / 4 && drawn <= (size_t)triangles);
    json_decref(g);

    /* 2CylinderEngine: its meshes fill a good share of the picture, though a camera (node 81)
       stands far from them */
    assert_int_equal(run("render '%s' -o '%s' --labels none", SAMPLES_DIR "/2CylinderEngine/2CylinderEngine.glb", OUT_DIR "/engine.svg"), 0);
    size_t count = svg_triangles(OUT_DIR "/engine.svg", NULL, 0);
    double *xy = malloc(count * 6 * sizeof *xy), lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
    assert_non_null(xy);
    assert_true(count > 1000);
    svg_triangles(OUT_DIR "/engine.svg", xy, count);
    for (size_t i = 0; i < count * 3; i++)
        for (int a = 0; a < 2; a++) {
            lo[a] = fmin(lo[a], xy[2 * i + a]);
            hi[a] = fmax(hi[a], xy[2 * i + a]);
        }
    free(xy);
    assert_true(lo[0] >= 0 && lo[1] >= 0 && hi[0] <= 960 && hi[1] <= 720); /* all inside */
    assert_true(fmax((hi[0] - lo[0]) / 960, (hi[1] - lo[1]) / 720) >= 0.4);

    /* the Fox: one dot per node that is not a joint of its skin; with --joints, one per node */
    const char *fox = SAMPLES_DIR "/Fox/Fox.glb";
    g = gltf_json(fox);
    size_t node_count = json_array_size(json_object_get(g, "nodes"));
    size_t joints = json_array_size(json_object_get(json_array_get(json_object_get(g, "skins"), 0), "joints"));
    json_decref(g);
    assert_true(joints > 0 && joints < node_count);
    assert_int_equal(run("render '%s' -o '%s' --overlays", fox, OUT_DIR "/fox_plain.svg"), 0);
    assert_int_equal(count_of(OUT_DIR "/fox_plain.svg", "<circle"), node_count - joints);
    assert_int_equal(run("render '%s' -o '%s' --overlays --joints", fox, OUT_DIR "/fox_joints.svg"), 0);
    assert_int_equal(count_of(OUT_DIR "/fox_joints.svg", "<circle"), node_count);
    assert_int_equal(run("render '%s' -o '%s' --joints", fox, OUT_DIR "/fox_skeleton.svg"), 0); /* the joints alone */
    assert_int_equal(count_of(OUT_DIR "/fox_skeleton.svg", "<circle"), joints);
}
#endif

int main(void) {
    make_dir(OUT_DIR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_matches_readme),
        cmocka_unit_test(test_info_json),
        cmocka_unit_test(test_stats_json),
        cmocka_unit_test(test_one_scene),
        cmocka_unit_test(test_manners),
        cmocka_unit_test(test_diff),
        cmocka_unit_test(test_edit_degrees),
#if defined(ARBOR_CLI_HAS_RENDER)
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_render_instances),
        cmocka_unit_test(test_render_defaults),
        cmocka_unit_test(test_render_levels_framing_joints),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
