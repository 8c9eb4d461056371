/* SPDX-License-Identifier: MIT */
/* arbor validate: does each file load, and if not, every reason why. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_ISSUES 100 /* as the Khronos validator's default maxIssues */

static const char help[] =
    "usage: arbor validate FILE... [--scene N|NAME] [--json] [--lenient]\n"
    "\n"
    "Checks each glTF file as arbor loads it (strict: a file that breaks a MUST of the glTF 2.0\n"
    "spec in what arbor reads is refused), without stopping at the first problem: each is\n"
    "reported and the check goes on, as a lenient load would. Prints \"FILE: ok\" for each file\n"
    "that loads, and on stderr every problem (FILE: JSON pointer: reason, the first 100) of each\n"
    "that does not. FILE - reads standard input, checked by a load (its first problem only).\n"
    "Exit status: 0 when every file loads, 1 when one does not, 2 for a usage error.\n"
    "\n"
    "  --json      print a report per file shaped like the Khronos glTF validator's (uri, and\n"
    "              issues: numErrors, messages with code, message, severity 0 and pointer,\n"
    "              truncated); a JSON array when several files are given\n"
    "  --scene N|NAME  also check that each file that loads has this scene (0-based index or\n"
    "              name; exit status 2 when one has not)\n"
    "  --lenient   load what can be loaded, with warnings, instead of refusing the file\n";

/* The code of an issue in the report, from what arbor says of it. */
static const char *code_name(arbor_result r) {
    switch (r) {
    case ARBOR_ERR_PARSE: return "INVALID_GLTF";
    case ARBOR_ERR_IO: return "IO_ERROR";
    case ARBOR_ERR_UNSUPPORTED: return "UNSUPPORTED";
    case ARBOR_ERR_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    case ARBOR_ERR_DEPTH_LIMIT: return "DEPTH_LIMIT";
    default: return "ERROR";
    }
}

static json_t *report(const char *file, const arbor_gltf_issue *issues, uint32_t count) {
    json_t *messages = json_array();
    for (uint32_t i = 0; i < count && i < MAX_ISSUES; i++)
        json_array_append_new(messages, json_pack("{s:s, s:s, s:i, s:s}", "code", code_name(issues[i].code), "message",
                                                  issues[i].message, "severity", 0, "pointer", issues[i].pointer));
    return json_pack("{s:s, s:{s:I, s:i, s:i, s:i, s:o, s:b}}", "uri", file, "issues", "numErrors", (json_int_t)count, "numWarnings", 0, "numInfos", 0, "numHints", 0,
                     "messages", messages, "truncated", count > MAX_ISSUES);
}

int cmd_validate(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    int status = cli_parse_args("validate", argc, argv, CLI_OPT_LENIENT | CLI_OPT_JSON | CLI_OPT_SCENE, 1, argc, &args);
    if (status) return status;
    arbor_gltf_issue *issues = malloc(MAX_ISSUES * sizeof *issues);
    json_t *all = json_array();
    if (!issues || !all) {
        fprintf(stderr, "arbor: out of memory\n");
        free(issues);
        json_decref(all);
        return 1;
    }
    for (int i = 0; i < args.file_count; i++) {
        const char *file = args.files[i];
        if (args.lenient && !args.json) {
            cli_file f;
            int32_t scene;
            if (cli_load(&f, file, true)) {
                status = 1;
                continue;
            }
            int picked = cli_pick_scene("validate", &f, &args, &scene);
            if (picked) {
                status = picked;
                cli_close(&f);
                continue;
            }
            if (f.warnings)
                printf("%s: ok (%u warning%s)\n", file, f.warnings, f.warnings == 1 ? "" : "s");
            else
                printf("%s: ok\n", file);
            cli_close(&f);
            continue;
        }
        if (!strcmp(file, "-") || !cli_check_input(file, "a glTF file")) { /* standard input: loaded, the first error */
            cli_file f;
            if (strcmp(file, "-") || cli_load(&f, file, args.lenient)) {
                status = 1;
                continue;
            }
            int32_t scene;
            int picked = cli_pick_scene("validate", &f, &args, &scene);
            if (picked) status = picked;
            else if (args.json) json_array_append_new(all, report(f.path, issues, 0));
            else printf("%s: ok\n", f.path);
            cli_close(&f);
            continue;
        }
        uint32_t count = 0;
        arbor_result r = arbor_gltf_validate(file, NULL, issues, MAX_ISSUES, &count);
        if (r == ARBOR_ERR_INVALID_ARGUMENT && count == 0) {
            fprintf(stderr, "arbor: %s: %s\n", file, arbor_last_error());
            status = 1;
            continue;
        }
        if (r) status = 1;
        if (!r && args.scene) { /* the scene asked for, by index or name */
            cli_file f;
            int32_t scene;
            if (cli_load(&f, file, args.lenient)) {
                status = 1;
            } else {
                int picked = cli_pick_scene("validate", &f, &args, &scene);
                if (picked) status = picked;
                cli_close(&f);
            }
        }
        if (args.json) {
            json_array_append_new(all, report(file, issues, count));
            continue;
        }
        if (!count) printf("%s: ok\n", file);
        for (uint32_t k = 0; k < count && k < MAX_ISSUES; k++)
            fprintf(stderr, "%s: %s: %s\n", file, issues[k].pointer[0] ? issues[k].pointer : "/", issues[k].message);
        if (count > MAX_ISSUES) fprintf(stderr, "%s: %u more not shown\n", file, count - MAX_ISSUES);
        if (count) fprintf(stderr, "%s: %u error%s\n", file, count, count == 1 ? "" : "s");
    }
    if (args.json) {
        json_t *out = json_array_size(all) == 1 ? json_array_get(all, 0) : all;
        char *text = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (text) puts(text);
        free(text);
    }
    json_decref(all);
    free(issues);
    return status;
}
