/* SPDX-License-Identifier: MIT */
/* arbor dump --json: the nodes of a scene (or of the whole file), streamed, for tools that compare
   world matrices. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: arbor dump FILE --json [--scene N|NAME|all] [--lenient]\n"
    "\n"
    "The nodes of a glTF scene, in the file's index order, as one JSON object:\n"
    "  {\"scenes\":[{\"index\":0,\"name\":\"...\",\"nodes\":[0]}],\n"
    "   \"nodes\":[{\"index\":0,\"name\":\"...\",\"parent\":null,\"children\":[1],\n"
    "             \"local\":[16 numbers],\"world\":[16 numbers],\"visible\":true}]}\n"
    "Indices are the file's node indices; a missing name is null; matrices are column-major\n"
    "(translation in elements 12 to 14), printed with enough digits to read back exactly\n"
    "(%.9g in float builds, %.17g in double builds). \"visible\" is false when the node or an\n"
    "ancestor is hidden (KHR_node_visibility); a node with instances (EXT_mesh_gpu_instancing)\n"
    "adds \"instances\":[[16 numbers], ...], each instance's world matrix, in the file's order.\n"
    "The output is streamed. \"scenes\" lists every scene of the file; \"nodes\" holds the nodes of\n"
    "one scene: the file's default (its \"scene\", else scene 0; every node of a file without\n"
    "scenes), or the one --scene names; --scene all prints every node of the file (for tools that\n"
    "compare whole files).\n"
    "\n"
    "  --json      the format (the only one, and the default)\n"
    "  --scene S   the glTF scene: a 0-based index, a name, or all (every node of the file; a\n"
    "              scene named \"all\" by its index)\n"
    "  --lenient   load what can be loaded, with warnings, instead of refusing the file\n";

/* A JSON string through jansson's encoder, or null. */
static void print_string(const char *s) {
    json_t *j = s ? json_string(s) : NULL;
    if (j) {
        json_dumpf(j, stdout, JSON_ENCODE_ANY);
        json_decref(j);
    } else {
        fputs("null", stdout);
    }
}

/* ,"key":[16 numbers], or with key "" or "," an array element alone (first, next). */
static void print_matrix(const char *key, const arbor_real m[16]) {
    if (key[0] && key[0] != ',') printf(",\"%s\":[", key);
    else printf("%s[", key);
    for (int i = 0; i < 16; i++) {
        if (i) putchar(',');
        if (!isfinite((double)m[i])) fputs("null", stdout);
        else printf(sizeof(arbor_real) == sizeof(double) ? "%.17g" : "%.9g", (double)m[i]);
    }
    putchar(']');
}

static void print_index(const cli_file *f, arbor_node n) {
    if (arbor_node_is_none(n)) fputs("null", stdout);
    else printf("%lld", (long long)arbor_gltf_index(f->doc, n));
}

static void print_scenes(const cli_file *f) {
    uint32_t count = arbor_gltf_scene_count(f->doc);
    fputs("{\"scenes\":[", stdout);
    for (uint32_t i = 0; i < count; i++) {
        printf("%s\n{\"index\":%u,\"name\":", i ? "," : "", i);
        print_string(arbor_gltf_scene_name(f->doc, i));
        fputs(",\"nodes\":[", stdout);
        uint32_t root_count;
        arbor_node *roots = cli_scene_roots(f, (int32_t)i, &root_count);
        for (uint32_t r = 0; r < root_count; r++) {
            if (r) putchar(',');
            print_index(f, roots[r]);
        }
        free(roots);
        fputs("]}", stdout);
    }
    fputs("],\n\"nodes\":[", stdout);
}

static void print_node(const cli_file *f, uint32_t index, bool first) {
    arbor_scene *s = f->scene;
    arbor_node n = arbor_gltf_node(f->doc, index);
    arbor_real local[16], world[16];
    arbor_mat4_identity(local);  /* what a node a lenient load left out shows */
    arbor_mat4_identity(world);
    arbor_node_local_matrix(s, n, local);
    arbor_node_world_matrix(s, n, world);
    printf("%s\n{\"index\":%u,\"name\":", first ? "" : ",", index);
    print_string(arbor_node_name(s, n));
    fputs(",\"parent\":", stdout);
    print_index(f, arbor_node_parent(s, n));
    fputs(",\"children\":[", stdout);
    const char *sep = "";
    for (arbor_node c = arbor_node_first_child(s, n); !arbor_node_is_none(c); c = arbor_node_next_sibling(s, c)) {
        fputs(sep, stdout);
        print_index(f, c);
        sep = ",";
    }
    putchar(']');
    print_matrix("local", local);
    print_matrix("world", world);
    printf(",\"visible\":%s", arbor_node_effectively_visible(s, n) ? "true" : "false");
    uint32_t instances = arbor_node_instance_count(s, n);
    if (instances) {
        fputs(",\"instances\":[", stdout);
        for (uint32_t i = 0; i < instances; i++) {
            arbor_real m[16];
            arbor_node_instance_world_matrix(s, n, i, m);
            print_matrix(i ? "," : "", m);
        }
        putchar(']');
    }
    putchar('}');
}

int cli_dump_json(cli_file *f, const unsigned char *in) {
    static char buffer[1 << 20];
    setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    print_scenes(f);
    uint32_t count = arbor_gltf_node_count(f->doc);
    bool first = true;
    for (uint32_t i = 0; i < count; i++) {
        if (in && !in[i]) continue;
        print_node(f, i, first);
        first = false;
    }
    fputs("\n]}\n", stdout);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("cannot write the output");
        return 1;
    }
    return 0;
}

int cli_dump_scene(cli_file *f, const char *cmd, const char *scene_arg) {
    cli_args pick = { .scene = scene_arg, .scene_all = true };
    int32_t scene;
    int status = cli_pick_scene(cmd, f, &pick, &scene);
    if (status) return status;
    if (scene < 0) return cli_dump_json(f, NULL);
    unsigned char *in = cli_scene_members(f, scene);
    if (!in) {
        cli_error("no memory");
        return 1;
    }
    status = cli_dump_json(f, in);
    free(in);
    return status;
}

int cmd_dump(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    cli_file f;
    int status = cli_parse_args("dump", argc, argv, CLI_OPT_JSON | CLI_OPT_LENIENT | CLI_OPT_SCENE, 1, 1, &args);
    if (status) return status;
    if (cli_load(&f, args.files[0], args.lenient)) return 1;
    status = cli_dump_scene(&f, "dump", args.scene);
    cli_close(&f);
    return status;
}
