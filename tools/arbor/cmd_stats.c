/* SPDX-License-Identifier: MIT */
/* arbor stats: the shape of a scene's hierarchy: depths, fan-out, how transforms are given,
   mirrored and sheared worlds, what is animated, instancing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: arbor stats FILE [--scene N|NAME] [--json] [--lenient]\n"
    "\n"
    "The shape of a glTF scene's hierarchy (FILE - reads standard input):\n"
    "  nodes            in the scene, its roots, its leaves\n"
    "  depth            the deepest node (a root has depth 0) and how many nodes each depth has\n"
    "                   (DEPTH:COUNT)\n"
    "  fan-out          children per node: the most, the mean over nodes that have children,\n"
    "                   and how many nodes have 0, 1, 2, ... children (CHILDREN:COUNT)\n"
    "  transforms       nodes given by translation/rotation/scale, by a matrix\n"
    "  worlds           nodes whose world matrix is mirrored (negative determinant) or sheared\n"
    "                   (columns not orthogonal within 1e-4 of their lengths: no TRS holds it)\n"
    "  animation        nodes an animation channel targets (animated) and the others (static)\n"
    "  instances        nodes sharing a mesh with another node; EXT_mesh_gpu_instancing nodes\n"
    "                   and the instances they draw\n"
    "\n"
    "  --scene N|NAME  the glTF scene (0-based index or name; default: the file's)\n"
    "  --json          the same as a JSON object: \"nodes\", \"roots\", \"leaves\", \"max_depth\",\n"
    "                  \"depth_histogram\" (nodes at depth 0, 1, ...), \"max_fanout\",\n"
    "                  \"mean_fanout\", \"fanout_histogram\" (nodes with 0, 1, ... children),\n"
    "                  \"trs_nodes\", \"matrix_nodes\", \"mirrored\", \"sheared\", \"animated\",\n"
    "                  \"static\", \"shared_mesh_nodes\", \"instanced_nodes\", \"instances\"\n"
    "  --lenient       load what can be loaded, with warnings, instead of refusing the file\n";


/* Marks the nodes animation channels target (a node index, or a KHR_animation_pointer
   "/nodes/N/..."). */
static void mark_animated(json_t *gltf, unsigned char *animated, size_t count) {
    json_t *anim, *channel;
    size_t i, k;
    json_array_foreach(json_object_get(gltf, "animations"), i, anim) {
        json_array_foreach(json_object_get(anim, "channels"), k, channel) {
            json_t *target = json_object_get(channel, "target"), *node = json_object_get(target, "node");
            json_int_t n = -1;
            if (json_is_integer(node)) {
                n = json_integer_value(node);
            } else {
                const char *pointer = json_string_value(json_object_get(json_object_get(json_object_get(target, "extensions"), "KHR_animation_pointer"), "pointer"));
                if (pointer && !strncmp(pointer, "/nodes/", 7)) n = strtoll(pointer + 7, NULL, 10);
            }
            if (n >= 0 && (size_t)n < count) animated[n] = 1;
        }
    }
}

static json_t *histogram(const uint32_t *counts, uint32_t n) {
    json_t *a = json_array();
    for (uint32_t i = 0; i < n; i++) json_array_append_new(a, json_integer(counts[i]));
    return a;
}

static void print_histogram(const char *title, json_t *h) {
    json_t *v;
    size_t i;
    printf("  %-16s", title);
    json_array_foreach(h, i, v) /* "depth:count", the empty ones left out */
        if (json_integer_value(v)) printf(" %zu:%lld", i, (long long)json_integer_value(v));
    putchar('\n');
}

int cmd_stats(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    int32_t scene;
    cli_file f;
    int status = cli_parse_args("stats", argc, argv, CLI_OPT_SCENE | CLI_OPT_LENIENT | CLI_OPT_JSON, 1, 1, &args);
    if (status) return status;
    if (cli_load(&f, args.files[0], args.lenient)) return 1;
    if ((status = cli_pick_scene("stats", &f, &args, &scene))) {
        cli_close(&f);
        return status;
    }
    json_t *gltf = cli_json(&f), *gnodes = json_object_get(gltf, "nodes");
    uint32_t file_nodes = arbor_gltf_node_count(f.doc);
    unsigned char *in = cli_scene_members(&f, scene), *animated = calloc(file_nodes + 1, 1);
    uint32_t *mesh_users = calloc(json_array_size(json_object_get(gltf, "meshes")) + 1, sizeof *mesh_users);
    /* Histograms grow to the deepest depth and the widest fan-out (both at most the node count). */
    uint32_t *depths = calloc(file_nodes + 1, sizeof *depths), *fanouts = calloc(file_nodes + 1, sizeof *fanouts);
    if (!gltf || !in || !animated || !mesh_users || !depths || !fanouts) {
        cli_error("out of memory");
        free(in), free(animated), free(mesh_users), free(depths), free(fanouts);
        cli_close(&f);
        return 1;
    }
    mark_animated(gltf, animated, file_nodes);
    uint32_t nodes = 0, roots = 0, leaves = 0, max_depth = 0, max_fanout = 0, parents = 0, matrix = 0, mirrored = 0,
             shear = 0, moving = 0, instanced = 0, shared = 0;
    uint64_t children_total = 0, instances = 0;
    for (uint32_t i = 0; i < file_nodes; i++) { /* meshes used by the scene's nodes */
        json_t *mesh = json_object_get(json_array_get(gnodes, i), "mesh");
        if (in[i] && json_is_integer(mesh) && (size_t)json_integer_value(mesh) < json_array_size(json_object_get(gltf, "meshes")))
            mesh_users[json_integer_value(mesh)]++;
    }
    for (uint32_t i = 0; i < file_nodes; i++) {
        arbor_node n = arbor_gltf_node(f.doc, i);
        if (!in[i] || arbor_node_is_none(n)) continue;
        json_t *gnode = json_array_get(gnodes, i), *mesh = json_object_get(gnode, "mesh");
        uint32_t depth = arbor_node_depth(f.scene, n), fan = arbor_node_child_count(f.scene, n);
        arbor_real w[16];
        arbor_node_world_matrix(f.scene, n, w);
        nodes++;
        roots += depth == 0;
        leaves += fan == 0;
        depths[depth]++;
        if (depth > max_depth) max_depth = depth;
        fanouts[fan]++;
        if (fan > max_fanout) max_fanout = fan;
        parents += fan > 0;
        children_total += fan;
        matrix += json_object_get(gnode, "matrix") != NULL;
        mirrored += arbor_mat4_determinant3(w) < 0;
        shear += cli_sheared(w);
        moving += animated[i];
        if (json_is_integer(mesh) && mesh_users[json_integer_value(mesh)] > 1) shared++;
        json_t *gpu = json_object_get(json_object_get(json_object_get(gnode, "extensions"), "EXT_mesh_gpu_instancing"), "attributes");
        if (gpu) {
            const char *key;
            json_t *accessor;
            json_int_t most = 0;
            json_object_foreach(gpu, key, accessor) {
                json_int_t c = json_integer_value(json_object_get(json_array_get(json_object_get(gltf, "accessors"), (size_t)json_integer_value(accessor)), "count"));
                if (c > most) most = c;
            }
            instanced++;
            instances += (uint64_t)most;
        }
    }
    json_t *r = json_object();
    json_object_set_new(r, "file", json_string(f.path));
    json_object_set_new(r, "scene", scene >= 0 ? json_integer(scene) : json_null());
    json_object_set_new(r, "nodes", json_integer(nodes));
    json_object_set_new(r, "roots", json_integer(roots));
    json_object_set_new(r, "leaves", json_integer(leaves));
    json_object_set_new(r, "max_depth", json_integer(max_depth));
    json_object_set_new(r, "depth_histogram", histogram(depths, nodes ? max_depth + 1 : 0));
    json_object_set_new(r, "max_fanout", json_integer(max_fanout));
    json_object_set_new(r, "mean_fanout", cli_json_real(parents ? (double)children_total / parents : 0));
    json_object_set_new(r, "fanout_histogram", histogram(fanouts, nodes ? max_fanout + 1 : 0));
    json_object_set_new(r, "trs_nodes", json_integer(nodes - matrix));
    json_object_set_new(r, "matrix_nodes", json_integer(matrix));
    json_object_set_new(r, "mirrored", json_integer(mirrored));
    json_object_set_new(r, "sheared", json_integer(shear));
    json_object_set_new(r, "animated", json_integer(moving));
    json_object_set_new(r, "static", json_integer(nodes - moving));
    json_object_set_new(r, "shared_mesh_nodes", json_integer(shared));
    json_object_set_new(r, "instanced_nodes", json_integer(instanced));
    json_object_set_new(r, "instances", json_integer((json_int_t)instances));
    free(in), free(animated), free(mesh_users), free(depths), free(fanouts);
    if (args.json) {
        status = cli_print_json(r);
    } else {
        printf("%s", f.path);
        if (scene >= 0) printf(": scene %d", (int)scene);
        printf("\n  nodes            %u (%u roots, %u leaves)\n", nodes, roots, leaves);
        printf("  max depth        %u (a root has depth 0)\n", max_depth);
        print_histogram("depths", json_object_get(r, "depth_histogram"));
        printf("  fan-out          at most %u, mean %g over the %u nodes with children\n", max_fanout,
               json_number_value(json_object_get(r, "mean_fanout")), parents);
        print_histogram("children", json_object_get(r, "fanout_histogram"));
        printf("  transforms       %u TRS, %u matrix\n", nodes - matrix, matrix);
        printf("  worlds           %u mirrored, %u sheared\n", mirrored, shear);
        printf("  animation        %u animated, %u static\n", moving, nodes - moving);
        printf("  instances        %u nodes share a mesh; %u EXT_mesh_gpu_instancing nodes draw %llu instances\n", shared,
               instanced, (unsigned long long)instances);
        json_decref(r);
        status = fflush(stdout) ? 1 : 0;
    }
    cli_close(&f);
    return status;
}
