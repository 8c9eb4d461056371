/* SPDX-License-Identifier: MIT */
/* arbor cull: what a camera sees, by hierarchical culling, and what that cost in box tests. */
#include <stdlib.h>

#include "cli.h"

static const char help[] =
    "usage: arbor cull FILE [--camera NAME] [--scene N|NAME] [--json] [--lenient]\n"
    "\n"
    "The nodes of a glTF file whose boxes (their meshes' POSITION min and max) a camera sees,\n"
    "found by hierarchical culling: a subtree's box is tested before its nodes', so a subtree\n"
    "wholly outside or inside the view is decided by one test. Prints the camera, how many nodes\n"
    "with bounds are visible, how many box tests that took (and how many testing every box would\n"
    "take), then each visible node in depth-first order: path, #index, mesh and world box. Only\n"
    "the nodes of one glTF scene count. FILE - reads standard input.\n"
    "\n"
    "  --camera NAME   the node carrying the camera: its name, or #INDEX for a node without one\n"
    "                  (default: the scene's first camera, else one made to frame the scene)\n"
    "  --scene N|NAME  the glTF scene (0-based index or name; default: the file's)\n"
    "  --json          the same as a JSON object: \"camera\", \"bounded\" (nodes with boxes in\n"
    "                  the scene), \"box_tests\", \"visible\" (the file indices of the visible\n"
    "                  nodes, depth-first), \"nodes\" (each with \"index\", \"path\", \"mesh\",\n"
    "                  \"min\", \"max\")\n"
    "  --lenient       load what can be loaded, with warnings, instead of refusing the file\n";

static json_t *vec3(const arbor_real v[3]) {
    double t[3];
    cli_tidy3(t, v);
    return json_pack("[o,o,o]", cli_json_real(t[0]), cli_json_real(t[1]), cli_json_real(t[2]));
}

int cmd_cull(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    cli_file f;
    cli_view view;
    int32_t scene;
    int status = cli_parse_args("cull", argc, argv, CLI_OPT_CAMERA | CLI_OPT_LENIENT | CLI_OPT_SCENE | CLI_OPT_JSON, 1, 1, &args);
    if (status) return status;
    if (cli_load(&f, args.files[0], args.lenient)) return 1;
    if ((status = cli_pick_scene("cull", &f, &args, &scene)) || (status = cli_view_pick("cull", &f, scene, args.camera, &view))) {
        cli_close(&f);
        return status;
    }
    arbor_scene *s = f.scene;
    unsigned char *in = cli_scene_members(&f, scene);
    uint32_t bounded = 0, all_bounded = 0; /* in the scene; in the scene graph */
    for (arbor_node n = arbor_scene_next_node(s, ARBOR_NONE); !arbor_node_is_none(n); n = arbor_scene_next_node(s, n)) {
        arbor_real lo[3], hi[3];
        bool has = arbor_node_bounds(s, n, lo, hi) == ARBOR_OK && lo[0] <= hi[0]; /* none: an empty box */
        int64_t i = arbor_gltf_index(f.doc, n);
        all_bounded += has;
        bounded += has && in && i >= 0 && in[i];
    }
    arbor_real planes[24];
    arbor_frustum_planes(view.view_projection, planes);
    arbor_cull_stats stats;
    arbor_node *visible = malloc(sizeof *visible * (all_bounded ? all_bounded : 1));
    if (!visible || !in) {
        cli_error("out of memory");
        free(visible);
        free(in);
        cli_close(&f);
        return 1;
    }
    uint32_t count = 0;
    if (arbor_scene_cull(s, planes, 6, visible, all_bounded, &count, &stats) != ARBOR_OK) {
        cli_error("%s", cli_last_error());
        free(visible);
        free(in);
        cli_close(&f);
        return 1;
    }
    /* The culling runs over the whole scene graph; the nodes of other glTF scenes are left out. */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < count && i < all_bounded; i++) {
        int64_t index = arbor_gltf_index(f.doc, visible[i]);
        if (index >= 0 && in[index]) visible[kept++] = visible[i];
    }
    free(in);

    json_t *r = json_pack("{s:s, s:o, s:s, s:i, s:i, s:[], s:[]}", "file", f.path, "scene", scene >= 0 ? json_integer(scene) : json_null(),
                          "camera", view.what, "bounded", (int)bounded, "box_tests", (int)stats.box_tests, "visible", "nodes");
    for (uint32_t i = 0; i < kept; i++) {
        char path[512];
        arbor_real lo[3], hi[3];
        int64_t index = arbor_gltf_index(f.doc, visible[i]);
        arbor_node_world_bounds(s, visible[i], lo, hi);
        json_array_append_new(json_object_get(r, "visible"), json_integer(index));
        json_array_append_new(json_object_get(r, "nodes"), json_pack("{s:I, s:s, s:i, s:o, s:o}", "index", (json_int_t)index, "path",
                                                                      cli_node_path(&f, visible[i], path, sizeof path), "mesh",
                                                                      (int)arbor_node_mesh(s, visible[i]), "min", vec3(lo), "max", vec3(hi)));
    }
    free(visible);
    if (args.json) {
        status = cli_print_json(r);
        cli_close(&f);
        return status;
    }
    printf("%s: camera: %s\n", f.path, view.what);
    printf("visible: %u of %u nodes with bounds, in %u box test%s (a test per box: %u)\n", kept, bounded, stats.box_tests,
           stats.box_tests == 1 ? "" : "s", all_bounded);
    json_t *node;
    size_t i;
    json_array_foreach(json_object_get(r, "nodes"), i, node) {
        json_t *lo = json_object_get(node, "min"), *hi = json_object_get(node, "max");
        printf("  %s  #%lld  mesh %lld  (%g, %g, %g) .. (%g, %g, %g)\n", json_string_value(json_object_get(node, "path")),
               (long long)json_integer_value(json_object_get(node, "index")), (long long)json_integer_value(json_object_get(node, "mesh")),
               json_number_value(json_array_get(lo, 0)), json_number_value(json_array_get(lo, 1)), json_number_value(json_array_get(lo, 2)),
               json_number_value(json_array_get(hi, 0)), json_number_value(json_array_get(hi, 1)), json_number_value(json_array_get(hi, 2)));
    }
    json_decref(r);
    cli_close(&f);
    return fflush(stdout) ? 1 : 0;
}
