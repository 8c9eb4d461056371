/* SPDX-License-Identifier: MIT */
/* arbor dot: the hierarchy as a Graphviz digraph (arbor dot robot.gltf | dot -Tsvg > tree.svg). */
#include <stdlib.h>

#include "cli.h"

static const char help[] =
    "usage: arbor dot FILE [--scene N|NAME] [--lenient]\n"
    "\n"
    "The nodes of a glTF scene as a Graphviz digraph: one box per node labelled with its name\n"
    "(or #index), and an edge from each parent to each child, children in order.\n"
    "Render it with Graphviz: arbor dot FILE | dot -Tsvg > tree.svg\n"
    "\n"
    "  --scene N|NAME  the glTF scene (0-based index or name; default: the file's)\n"
    "  --lenient   load what can be loaded, with warnings, instead of refusing the file\n";

/* A DOT quoted string. */
static void print_quoted(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') putchar('\\');
        if (*s == '\n') fputs("\\n", stdout);
        else putchar(*s);
    }
    putchar('"');
}

int cmd_dot(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    cli_file f;
    int status = cli_parse_args("dot", argc, argv, CLI_OPT_LENIENT | CLI_OPT_SCENE, 1, 1, &args);
    if (status) return status;
    if (cli_load(&f, args.files[0], args.lenient)) return 1;
    int32_t scene;
    unsigned char *in = NULL;
    if ((status = cli_pick_scene("dot", &f, &args, &scene)) || !(in = cli_scene_members(&f, scene))) {
        cli_close(&f);
        return status ? status : 1;
    }
    arbor_scene *s = f.scene;
    uint32_t count = arbor_gltf_node_count(f.doc);
    fputs("digraph arbor {\n  node [shape=box];\n", stdout);
    for (uint32_t i = 0; i < count; i++) {
        char label[32];
        if (!in[i]) continue;
        printf("  n%u [label=", i);
        print_quoted(cli_node_label(&f, arbor_gltf_node(f.doc, i), label));
        fputs("];\n", stdout);
    }
    for (uint32_t i = 0; i < count; i++) {
        arbor_node n = arbor_gltf_node(f.doc, i);
        if (!in[i]) continue;
        for (arbor_node c = arbor_node_first_child(s, n); !arbor_node_is_none(c); c = arbor_node_next_sibling(s, c))
            printf("  n%u -> n%lld;\n", i, (long long)arbor_gltf_index(f.doc, c));
    }
    fputs("}\n", stdout);
    free(in);
    cli_close(&f);
    return 0;
}
