/* SPDX-License-Identifier: MIT */
/* arbor cull: what a camera sees, by hierarchical culling, and what that cost in box tests. */
#include <stdlib.h>

#include "cli.h"

static const char help[] =
    "usage: arbor cull FILE [--camera NAME] [--lenient]\n"
    "\n"
    "The nodes of a glTF file whose boxes (their meshes' POSITION min and max) a camera sees,\n"
    "found by hierarchical culling: a subtree's box is tested before its nodes', so a subtree\n"
    "wholly outside or inside the view is decided by one test. Prints the camera, how many nodes\n"
    "with bounds are visible, how many box tests that took (and how many testing every box would\n"
    "take), then each visible node in depth-first order: name, mesh and world box.\n"
    "\n"
    "  --camera NAME   the node carrying the camera: its name, or #INDEX for a node without one\n"
    "                  (default: the file's first camera, else one made to frame the scene)\n"
    "  --lenient       load what can be loaded, with warnings, instead of refusing the file\n";

int cmd_cull(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    cli_file f;
    cli_view view;
    int status = cli_parse_args("cull", argc, argv, CLI_OPT_CAMERA | CLI_OPT_LENIENT, 1, 1, &args);
    if (status) return status;
    if (cli_load(&f, args.files[0], args.lenient)) return 1;
    if ((status = cli_view_pick("cull", &f, -1, args.camera, &view))) {
        cli_close(&f);
        return status;
    }
    arbor_scene *s = f.scene;
    uint32_t bounded = 0;
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(s, n)) {
        arbor_real lo[3], hi[3];
        bounded += arbor_node_local_bounds(s, n, lo, hi);
    }
    arbor_real planes[24];
    arbor_frustum_planes(view.view_projection, planes);
    arbor_cull_stats stats;
    arbor_node *visible = malloc(sizeof *visible * (bounded ? bounded : 1));
    if (!visible) {
        fputs("arbor: out of memory\n", stderr);
        cli_close(&f);
        return 1;
    }
    uint32_t count = 0;
    if (arbor_scene_cull(s, planes, 6, visible, bounded, &count, &stats) != ARBOR_OK) {
        fprintf(stderr, "arbor: %s\n", arbor_last_error());
        free(visible);
        cli_close(&f);
        return 1;
    }

    printf("%s: camera: %s\n", f.path, view.what);
    printf("visible: %u of %u nodes with bounds, in %u box test%s (a test per box: %u)\n", stats.visible, bounded,
           stats.box_tests, stats.box_tests == 1 ? "" : "s", bounded);
    for (uint32_t i = 0; i < stats.visible && i < bounded; i++) {
        char label[32];
        arbor_real lo[3], hi[3];
        arbor_node_world_bounds(s, visible[i], lo, hi);
        printf("  %s  mesh %d  (%g, %g, %g) .. (%g, %g, %g)\n", cli_node_label(&f, visible[i], label),
               (int)arbor_node_mesh(s, visible[i]), cli_tidy(lo[0]), cli_tidy(lo[1]), cli_tidy(lo[2]), cli_tidy(hi[0]), cli_tidy(hi[1]),
               cli_tidy(hi[2]));
    }
    free(visible);
    cli_close(&f);
    return 0;
}
