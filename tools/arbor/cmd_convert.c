/* SPDX-License-Identifier: MIT */
/* arbor convert: load a glTF file and save it again, as .gltf or .glb. */
#include "cli.h"

static const char help[] =
    "usage: arbor convert IN OUT [--lenient]\n"
    "\n"
    "Loads IN (.gltf or .glb) and writes it as OUT, a .gltf or a .glb by OUT's extension.\n"
    "Nothing is lost: what the scene graph does not own (meshes, materials, animations,\n"
    "extensions, extras) passes through. A .glb holds every buffer in its BIN chunk; a .gltf\n"
    "gets its buffers as OUT's name with .bin beside it (data: URIs stay), and images are copied\n"
    "beside OUT when it is written to another folder, so OUT stands on its own.\n"
    "\n"
    "  --lenient   load what can be loaded, with warnings, instead of refusing the file\n";

int cmd_convert(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    cli_file f;
    int status = cli_parse_args("convert", argc, argv, CLI_OPT_LENIENT, 2, 2, &args);
    if (status) return status;
    if (cli_load(&f, args.files[0], args.lenient)) return 1;
    if (arbor_gltf_save(f.scene, f.doc, args.files[1]) != ARBOR_OK) {
        fprintf(stderr, "arbor: %s\n", arbor_last_error());
        status = 1;
    }
    cli_close(&f);
    return status;
}
