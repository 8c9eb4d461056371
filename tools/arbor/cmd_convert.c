/* SPDX-License-Identifier: MIT */
/* arbor convert: load a glTF file and save it again, as .gltf or .glb. */
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: arbor convert IN OUT [--scene N|NAME] [--lenient] [--external]\n"
    "\n"
    "Loads IN (.gltf or .glb) and writes it as OUT, a .gltf or a .glb by OUT's extension.\n"
    "Nothing is lost: what the scene graph does not own (meshes, materials, animations,\n"
    "extensions, extras) passes through. A .glb is self-contained: its BIN chunk holds every\n"
    "buffer and every image IN names by a relative URI. A .gltf gets its buffers as OUT's name\n"
    "with .bin beside it (data: URIs stay), and images are copied beside OUT when it is written\n"
    "to another folder, so OUT stands on its own. IN - reads standard input.\n"
    "\n"
    "  --scene N|NAME  a scene IN must have (0-based index or name), loaded as the chosen one:\n"
    "                  its roots come first in OUT's scene; OUT keeps IN's default scene\n"
    "  --lenient   load what can be loaded, with warnings, instead of refusing the file\n"
    "  --external  a .glb keeps the images as files beside it, as a .gltf does\n";

int cmd_convert(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    arbor_gltf_save_options options = { 0 };
    int kept = 0; /* --external taken out of argv, the rest parsed as every command's */
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--external")) options.external_images = true;
        else argv[kept++] = argv[i];
    }
    argc = kept;
    cli_args args;
    cli_file f;
    int status = cli_parse_args("convert", argc, argv, CLI_OPT_LENIENT | CLI_OPT_SCENE, 2, 2, &args);
    if (status || (status = cli_check_output("convert", args.files[1]))) return status;
    if (cli_load(&f, args.files[0], args.lenient)) return 1;
    int32_t scene;
    if ((status = cli_pick_scene("convert", &f, &args, &scene))) {
        cli_close(&f);
        return status;
    }
    if (scene != arbor_gltf_loaded_scene(f.doc)) { /* loaded again, that scene chosen */
        cli_close(&f);
        if (!strcmp(args.files[0], "-")) return cli_usage_error("convert: --scene with standard input: read it from a file");
        if (cli_load_scene(&f, args.files[0], args.lenient, scene)) return 1;
    }
    cli_progress saving;
    cli_progress_begin(&saving, f.size > (32u << 20), "saving", args.files[1], f.size / 1048576.0);
    arbor_result saved = arbor_gltf_save(f.scene, f.doc, args.files[1], &options);
    cli_progress_end(&saving);
    if (saved != ARBOR_OK) {
        cli_error("%s", cli_last_error());
        status = 1;
    }
    cli_close(&f);
    return status;
}
