/* SPDX-License-Identifier: MIT */
/* arbor info: what a glTF file holds, and what is odd about it (sheared or mirrored worlds). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: arbor info FILE [--scene N] [--lenient]\n"
    "\n"
    "What a glTF file (.gltf or .glb) holds: its scenes, node count, the shown scene's roots,\n"
    "depth and world bounds (the union of the nodes' boxes moved by their world matrices),\n"
    "the counts of meshes, cameras, lights, skins and animations, and warnings: nodes whose\n"
    "world matrix is sheared (no TRS holds it) or mirrored (negative determinant).\n"
    "\n"
    "  --scene N   the glTF scene to show (0-based; default: the file's default scene)\n"
    "  --lenient   load what can be loaded, with warnings, instead of refusing the file\n";

/* Up to this many node names are listed per warning. */
#define NAMES_SHOWN 5

typedef struct node_list {
    uint32_t count;
    arbor_node shown[NAMES_SHOWN];
} node_list;

static void list_add(node_list *l, arbor_node n) {
    if (l->count < NAMES_SHOWN) l->shown[l->count] = n;
    l->count++;
}

static void print_warning(const cli_file *f, const node_list *l, const char *what) {
    char label[32];
    printf("    %u node%s with a %s world matrix:", l->count, l->count == 1 ? "" : "s", what);
    for (uint32_t i = 0; i < l->count && i < NAMES_SHOWN; i++)
        printf("%s %s", i ? "," : "", cli_node_label(f, l->shown[i], label));
    printf("%s\n", l->count > NAMES_SHOWN ? ", ..." : "");
}

/* A world matrix no TRS holds: its columns are not orthogonal, judged as arbor_mat4_decompose
   does in float builds (1e-4 of the column lengths) whatever arbor_real is, since file data
   carries float precision and a double build's 1e-9 would flag good files. */
static bool sheared(const arbor_real w[16]) {
    for (int a = 0; a < 3; a++) {
        for (int b = a + 1; b < 3; b++) {
            double dot = 0, la = 0, lb = 0;
            for (int r = 0; r < 3; r++) {
                dot += (double)w[4 * a + r] * w[4 * b + r];
                la += (double)w[4 * a + r] * w[4 * a + r];
                lb += (double)w[4 * b + r] * w[4 * b + r];
            }
            if (fabs(dot) > 1e-4 * sqrt(la * lb)) return true;
        }
    }
    return false;
}

/* Grows [min, max] by the node's local box moved into the world (its 8 corners). */
static void add_world_box(arbor_scene *s, arbor_node n, const arbor_real w[16], double min[3], double max[3]) {
    arbor_real lo[3], hi[3];
    if (!arbor_node_local_bounds(s, n, lo, hi)) return;
    for (int c = 0; c < 8; c++) {
        arbor_real p[3] = { c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2] }, q[3];
        arbor_mat4_transform_point(q, w, p);
        for (int i = 0; i < 3; i++) {
            min[i] = fmin(min[i], (double)q[i]);
            max[i] = fmax(max[i], (double)q[i]);
        }
    }
}

int cmd_info(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    int32_t scene;
    cli_file f;
    int status = cli_parse_args("info", argc, argv, CLI_OPT_SCENE | CLI_OPT_LENIENT, 1, 1, &args);
    if (status) return status;
    const char *path = args.files[0];
    if (cli_load(&f, path, args.lenient)) return 1;
    if ((status = cli_pick_scene("info", &f, &args, &scene))) {
        cli_close(&f);
        return status;
    }
    arbor_gltf_counts counts;
    arbor_gltf_counts_get(f.doc, &counts);

    uint32_t root_count, nodes = 0, depth = 0;
    arbor_node *roots = cli_scene_roots(&f, scene, &root_count);
    double min[3] = { INFINITY, INFINITY, INFINITY }, max[3] = { -INFINITY, -INFINITY, -INFINITY };
    node_list shear = { 0 }, mirrored = { 0 };
    for (uint32_t r = 0; r < root_count; r++) {
        for (arbor_node n = roots[r]; !arbor_node_is_none(n); n = cli_next_in_subtree(f.scene, roots[r], n)) {
            arbor_real w[16];
            arbor_node_world_matrix(f.scene, n, w);
            nodes++;
            uint32_t d = arbor_node_depth(f.scene, n) + 1;
            if (d > depth) depth = d;
            add_world_box(f.scene, n, w, min, max);
            if (sheared(w)) list_add(&shear, n);
            if (arbor_mat4_determinant3(w) < 0) list_add(&mirrored, n);
        }
    }
    free(roots);

    printf("%s\n", path);
    printf("  scenes      %u", counts.scenes);
    if (scene >= 0) {
        const char *name = arbor_gltf_scene_name(f.doc, (uint32_t)scene);
        printf(", showing scene %d%s%s%s%s", (int)scene, name ? " \"" : "", name ? name : "", name ? "\"" : "",
               scene == arbor_gltf_loaded_scene(f.doc) ? " (the default)" : "");
    } else {
        printf(", showing every root");
    }
    printf("\n  nodes       %u (%u in this scene)\n", counts.nodes, nodes);
    printf("  roots       %u\n", root_count);
    printf("  depth       %u\n", depth);
    printf("  meshes      %u\n", counts.meshes);
    printf("  cameras     %u\n", counts.cameras);
    printf("  lights      %u\n", counts.lights);
    printf("  skins       %u\n", counts.skins);
    printf("  animations  %u\n", counts.animations);
    if (min[0] <= max[0])
        printf("  bounds      min (%g, %g, %g) max (%g, %g, %g)\n", min[0], min[1], min[2], max[0], max[1], max[2]);
    else
        printf("  bounds      none (no node of this scene carries a box)\n");
    if (!shear.count && !mirrored.count && !f.warnings) printf("  warnings    none\n");
    if (shear.count || mirrored.count || f.warnings) printf("  warnings\n");
    if (f.warnings) printf("    %u while loading (above)\n", f.warnings);
    if (shear.count) print_warning(&f, &shear, "sheared (not TRS)");
    if (mirrored.count) print_warning(&f, &mirrored, "mirrored (negative determinant)");
    cli_close(&f);
    return 0;
}
