/* SPDX-License-Identifier: MIT */
/* arbor validate: does each file load? */
#include "cli.h"

static const char help[] =
    "usage: arbor validate FILE... [--lenient]\n"
    "\n"
    "Loads each glTF file as arbor would (strict: a file that breaks a MUST of the glTF 2.0\n"
    "spec in what arbor reads is refused). Prints \"FILE: ok\" for each file that loads, and the\n"
    "reason (FILE: JSON pointer: reason) on stderr for each that does not.\n"
    "Exit status: 0 when every file loads, 1 when one does not, 2 for a usage error.\n"
    "\n"
    "  --lenient   load what can be loaded, with warnings, instead of refusing the file\n";

int cmd_validate(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    int status = cli_parse_args("validate", argc, argv, CLI_OPT_LENIENT, 1, argc, &args);
    if (status) return status;
    for (int i = 0; i < args.file_count; i++) {
        cli_file f;
        if (cli_load(&f, args.files[i], args.lenient)) {
            status = 1;
            continue;
        }
        if (f.warnings)
            printf("%s: ok (%u warning%s)\n", args.files[i], f.warnings, f.warnings == 1 ? "" : "s");
        else
            printf("%s: ok\n", args.files[i]);
        cli_close(&f);
    }
    return status;
}
