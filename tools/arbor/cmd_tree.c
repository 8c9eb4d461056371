/* SPDX-License-Identifier: MIT */
/* arbor tree: the hierarchy as an indented tree, walked without recursion. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: arbor tree FILE [--scene N] [--lenient]\n"
    "\n"
    "The hierarchy of a glTF file's scene as an indented tree, children in order: each node's\n"
    "name (or #index when it has none), what it carries (mesh N, camera, light, skin N) and its\n"
    "world position.\n"
    "\n"
    "  --scene N   the glTF scene to show (0-based; default: the file's default scene)\n"
    "  --lenient   load what can be loaded, with warnings, instead of refusing the file\n";

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
    if (used) printf("  [%s]", carried + 2);
    printf("  at (%g, %g, %g)\n", cli_tidy(w[12]), cli_tidy(w[13]), cli_tidy(w[14]));
}

int cmd_tree(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    int32_t scene;
    cli_file f;
    int status = cli_parse_args("tree", argc, argv, CLI_OPT_SCENE | CLI_OPT_LENIENT, 1, 1, &args);
    if (status) return status;
    const char *path = args.files[0];
    if (cli_load(&f, path, args.lenient)) return 1;
    if ((status = cli_pick_scene("tree", &f, &args, &scene))) {
        cli_close(&f);
        return status;
    }

    uint32_t root_count;
    arbor_node *roots = cli_scene_roots(&f, scene, &root_count);
    if (scene >= 0) {
        const char *name = arbor_gltf_scene_name(f.doc, (uint32_t)scene);
        printf("%s: scene %d%s%s%s\n", path, (int)scene, name ? " \"" : "", name ? name : "", name ? "\"" : "");
    } else {
        printf("%s: no scenes, every root\n", path);
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
