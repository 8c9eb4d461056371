/* SPDX-License-Identifier: MIT */
/* arbor tree: the hierarchy as an indented tree, walked without recursion. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: arbor tree FILE [--scene N|NAME] [--json] [--lenient]\n"
    "\n"
    "The hierarchy of a glTF file's scene as an indented tree, children in order: each node's\n"
    "name (or #index when it has none), what it carries (mesh N, camera, light, skin N, N\n"
    "instances, hidden) and its\n"
    "world position. FILE - reads standard input.\n"
    "\n"
    "  --scene N|NAME  the glTF scene to show (0-based index or name; default: the file's)\n"
    "  --json          the same as a JSON object: \"scene\", \"nodes\" in the tree's order, each\n"
    "                  with \"index\" (in the file), \"name\" (null when none), \"path\",\n"
    "                  \"depth\" (a root has 0), \"parent\" (an index, null for a root),\n"
    "                  \"children\", \"mesh\", \"skin\" (null when none), \"camera\", \"light\"\n"
    "                  (true or false), \"position\" (the world position), \"visible\" (its own\n"
    "                  KHR_node_visibility) and \"instances\" (EXT_mesh_gpu_instancing, 0: none)\n"
    "  --lenient       load what can be loaded, with warnings, instead of refusing the file\n";

/* Deeper levels are not indented further (a million-deep chain stays printable): the depth is
   written instead. */
#define MAX_INDENT 32

static void print_node(const cli_file *f, arbor_node n, uint32_t level) {
    char label[32];
    arbor_scene *s = f->scene;
    arbor_real w[16];
    arbor_node_world_matrix(s, n, w);
    if (level <= MAX_INDENT)
        printf("%*s", (int)(2 * level), "");
    else
        printf("%*s[depth %u] ", 2 * MAX_INDENT, "", level);
    fputs(cli_node_label(f, n, label), stdout);
    /* What it carries: "  [mesh 0, camera, skin 1]". */
    char carried[96] = "";
    size_t used = 0;
    arbor_camera camera;
    arbor_light light;
    int32_t mesh = arbor_node_mesh(s, n), skin = arbor_gltf_node_skin(f->doc, n);
    if (mesh >= 0) used += (size_t)snprintf(carried + used, sizeof carried - used, ", mesh %d", (int)mesh);
    if (arbor_node_camera(s, n, &camera) == ARBOR_OK) used += (size_t)snprintf(carried + used, sizeof carried - used, ", camera");
    if (arbor_node_light(s, n, &light) == ARBOR_OK) used += (size_t)snprintf(carried + used, sizeof carried - used, ", light");
    if (skin >= 0) used += (size_t)snprintf(carried + used, sizeof carried - used, ", skin %d", (int)skin);
    uint32_t instances = arbor_node_instance_count(s, n);
    if (instances) used += (size_t)snprintf(carried + used, sizeof carried - used, ", %u instances", instances);
    if (!arbor_node_visible(s, n)) used += (size_t)snprintf(carried + used, sizeof carried - used, ", hidden");
    if (used) printf("  [%s]", carried + 2);
    double at[3];
    cli_tidy3(at, w + 12);
    printf("  at (%g, %g, %g)\n", at[0], at[1], at[2]);
}

static json_t *node_json(const cli_file *f, arbor_node n) {
    arbor_scene *s = f->scene;
    arbor_real w[16];
    arbor_camera camera;
    arbor_light light;
    char path[512];
    arbor_node_world_matrix(s, n, w);
    arbor_node parent = arbor_node_parent(s, n);
    int32_t mesh = arbor_node_mesh(s, n), skin = arbor_gltf_node_skin(f->doc, n);
    const char *name = arbor_node_name(s, n);
    double at[3];
    cli_tidy3(at, w + 12);
    return json_pack("{s:I, s:o, s:s, s:i, s:o, s:i, s:o, s:o, s:b, s:b, s:[o,o,o], s:b, s:i}", "index", (json_int_t)arbor_gltf_index(f->doc, n),
                     "name", name ? json_string(name) : json_null(), "path", cli_node_path(f, n, path, sizeof path), "depth",
                     (int)arbor_node_depth(s, n), "parent",
                     arbor_node_is_none(parent) ? json_null() : json_integer((json_int_t)arbor_gltf_index(f->doc, parent)), "children",
                     (int)arbor_node_child_count(s, n), "mesh", mesh >= 0 ? json_integer(mesh) : json_null(), "skin",
                     skin >= 0 ? json_integer(skin) : json_null(), "camera", arbor_node_camera(s, n, &camera) == ARBOR_OK, "light",
                     arbor_node_light(s, n, &light) == ARBOR_OK, "position", cli_json_real(at[0]), cli_json_real(at[1]), cli_json_real(at[2]), "visible",
                     arbor_node_visible(s, n), "instances", (int)arbor_node_instance_count(s, n));
}

int cmd_tree(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    int32_t scene;
    cli_file f;
    int status = cli_parse_args("tree", argc, argv, CLI_OPT_SCENE | CLI_OPT_LENIENT | CLI_OPT_JSON, 1, 1, &args);
    if (status) return status;
    const char *path = args.files[0];
    if (cli_load(&f, path, args.lenient)) return 1;
    if ((status = cli_pick_scene("tree", &f, &args, &scene))) {
        cli_close(&f);
        return status;
    }

    uint32_t root_count;
    arbor_node *roots = cli_scene_roots(&f, scene, &root_count);
    if (args.json) {
        const char *name = scene >= 0 ? arbor_gltf_scene_name(f.doc, (uint32_t)scene) : NULL;
        json_t *r = json_pack("{s:s, s:o, s:o, s:[]}", "file", f.path, "scene", scene >= 0 ? json_integer(scene) : json_null(),
                              "scene_name", name ? json_string(name) : json_null(), "nodes");
        for (uint32_t k = 0; k < root_count; k++)
            for (arbor_node n = roots[k]; !arbor_node_is_none(n); n = cli_next_in_subtree(f.scene, roots[k], n))
                json_array_append_new(json_object_get(r, "nodes"), node_json(&f, n));
        free(roots);
        status = cli_print_json(r);
        cli_close(&f);
        return status;
    }
    if (scene >= 0) {
        const char *name = arbor_gltf_scene_name(f.doc, (uint32_t)scene);
        printf("%s: scene %d%s%s%s\n", f.path, (int)scene, name ? " \"" : "", name ? name : "", name ? "\"" : "");
    } else {
        printf("%s: no scenes, every root\n", f.path);
    }
    for (uint32_t r = 0; r < root_count; r++) {
        uint32_t top_depth = arbor_node_depth(f.scene, roots[r]);
        for (arbor_node n = roots[r]; !arbor_node_is_none(n); n = cli_next_in_subtree(f.scene, roots[r], n))
            print_node(&f, n, arbor_node_depth(f.scene, n) - top_depth);
    }
    free(roots);
    cli_close(&f);
    return 0;
}
