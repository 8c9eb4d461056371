/* SPDX-License-Identifier: MIT */
/* arbor validate: each file's problems, as the Khronos glTF-Validator reports them. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define MAX_ISSUES 100 /* messages shown per file, as the Khronos validator's default maxIssues */

static const char help[] =
    "usage: arbor validate FILE... [--scene N|NAME] [--json] [--lenient]\n"
    "\n"
    "Checks each glTF file as arbor loads it, without stopping at the first problem, and reports\n"
    "each problem with the Khronos glTF-Validator's issue code and severity (error, warning,\n"
    "information, hint) at the JSON pointer it names (a GLB framing problem at its byte offset):\n"
    "  robot.gltf: error: ACCESSOR_MIN_MISMATCH: /accessors/0/min/0: min is 0 but ...\n"
    "on stderr, one line each (the first 100 of a file), then a count; \"FILE: ok\" on stdout for\n"
    "a file without errors. A directory or a file that cannot be read is an IO_ERROR. A problem\n"
    "the validator rates below an error keeps its rating even when arbor cannot load the file\n"
    "for it (an absolute URI: a warning; a required extension arbor does not know: an\n"
    "information): the line says so. FILE - reads standard input (its URIs resolving from the\n"
    "working directory).\n"
    "Exit status: 0 when no file has an error, 1 when one has, 2 for a usage error.\n"
    "\n"
    "  --json      print the Khronos validator's report for each file (uri, mimeType,\n"
    "              validatorVersion, issues: numErrors, numWarnings, numInfos, numHints,\n"
    "              messages with code, message, severity and pointer or offset, truncated;\n"
    "              info: version, generator, counts); a JSON array when several files are given\n"
    "  --scene N|NAME  also check that each file that loads has this scene (0-based index or\n"
    "              name; exit status 2 when one has not)\n"
    "  --lenient   load what can be loaded, with warnings, instead of refusing the file\n";

static const char *const severity_names[] = {"error", "warning", "information", "hint"};

/* The report's info: what the file's JSON says of itself (absent when it cannot be read). */
static json_t *info_of(cli_file *f) {
    json_t *root = cli_json(f), *info = NULL;
    if (json_is_object(root)) {
        json_t *asset = json_object_get(root, "asset"), *v, *mesh;
        size_t i, k;
        bool morphs = false;
        json_array_foreach(json_object_get(root, "meshes"), i, mesh) {
            json_array_foreach(json_object_get(mesh, "primitives"), k, v) morphs |= json_array_size(json_object_get(v, "targets")) > 0;
        }
        info = json_object();
        static const char *const asset_keys[] = {"version", "minVersion", "generator"};
        for (i = 0; i < 3; i++)
            if (json_is_string(v = json_object_get(asset, asset_keys[i]))) json_object_set(info, asset_keys[i], v);
        static const char *const lists[] = {"extensionsUsed", "extensionsRequired"};
        for (i = 0; i < 2; i++)
            if (json_is_array(v = json_object_get(root, lists[i]))) json_object_set(info, lists[i], v);
        json_object_set_new(info, "animationCount", json_integer((json_int_t)json_array_size(json_object_get(root, "animations"))));
        json_object_set_new(info, "materialCount", json_integer((json_int_t)json_array_size(json_object_get(root, "materials"))));
        json_object_set_new(info, "hasMorphTargets", json_boolean(morphs));
        json_object_set_new(info, "hasSkins", json_boolean(json_array_size(json_object_get(root, "skins")) > 0));
        json_object_set_new(info, "hasTextures", json_boolean(json_array_size(json_object_get(root, "textures")) > 0));
        json_object_set_new(info, "hasDefaultScene", json_boolean(json_object_get(root, "scene") != NULL));
    }
    return info;
}

/* A file's report as the Khronos validator writes it; counts[4] gets the issues by severity. */
static json_t *report(const char *file, const arbor_gltf_message *m, uint32_t count, cli_file *with_info, uint32_t counts[4]) {
    json_t *messages = json_array();
    for (uint32_t i = 0; i < count; i++) {
        if (m[i].severity >= 0 && m[i].severity < 4) counts[m[i].severity]++;
        if (i >= MAX_ISSUES) continue;
        json_t *j = json_pack("{s:s, s:s, s:i}", "code", m[i].code, "message", m[i].message, "severity", m[i].severity);
        if (m[i].offset >= 0)
            json_object_set_new(j, "offset", json_integer(m[i].offset));
        else
            json_object_set_new(j, "pointer", json_string(m[i].pointer));
        json_array_append_new(messages, j);
    }
    size_t n = strlen(file);
    bool glb = n > 4 && !strcmp(file + n - 4, ".glb");
    char version[48];
    snprintf(version, sizeof version, "arbor %s", arbor_version());
    json_t *out = json_pack("{s:s, s:s, s:s, s:{s:i, s:i, s:i, s:i, s:o, s:b}}", "uri", file, "mimeType",
                            glb ? "model/gltf-binary" : "model/gltf+json", "validatorVersion", version,
                            "issues", "numErrors", counts[0], "numWarnings", counts[1], "numInfos", counts[2],
                            "numHints", counts[3], "messages", messages, "truncated", count > MAX_ISSUES);
    json_t *info = with_info ? info_of(with_info) : NULL;
    if (info) json_object_set_new(out, "info", info);
    return out;
}

/* A path that is not a readable file: its one message, an IO_ERROR. */
static bool unreadable(const char *path, arbor_gltf_message *m) {
    struct stat st;
    bool missing = stat(path, &st) != 0;
    if (!missing && S_ISREG(st.st_mode)) return false;
    *m = (arbor_gltf_message){.result = ARBOR_ERR_IO, .severity = 0, .offset = -1};
    snprintf(m->code, sizeof m->code, "IO_ERROR");
    if (missing)
        snprintf(m->message, sizeof m->message, "%s", errno == ENOENT ? "no such file" : strerror(errno));
    else
        snprintf(m->message, sizeof m->message, "%s is %s, not a glTF file", path, cli_not_regular(&st));
    return true;
}

/* Every message of the file at path, or of the bytes of f when path is NULL (standard input,
   URIs resolving from the working directory), into *m (grown to hold them all): what the
   validation returned, *count the messages (at most *cap). */
static arbor_result messages_of(const char *path, const cli_file *f, arbor_gltf_message **m, uint32_t *cap,
                                uint32_t *count) {
    arbor_result r = ARBOR_OK;
    for (int pass = 0; pass < 2; pass++) { /* the second with room for every message */
        r = path ? arbor_gltf_validate_messages(path, NULL, *m, *cap, count)
                 : arbor_gltf_validate_memory(f->bytes, f->size, ".", NULL, *m, *cap, count);
        arbor_gltf_message *more = *count > *cap ? realloc(*m, *count * sizeof **m) : NULL;
        if (!more) break; /* all there, or no memory for the rest */
        *m = more, *cap = *count;
    }
    if (*count > *cap) *count = *cap;
    return r;
}

int cmd_validate(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    cli_args args;
    int status = cli_parse_args("validate", argc, argv, CLI_OPT_LENIENT | CLI_OPT_JSON | CLI_OPT_SCENE, 1, argc, &args);
    if (status) return status;
    json_t *all = json_array();
    uint32_t cap = MAX_ISSUES;
    arbor_gltf_message *m = malloc(cap * sizeof *m);
    if (!m || !all) {
        fprintf(stderr, "arbor: out of memory\n");
        free(m);
        json_decref(all);
        return 1;
    }
    for (int i = 0; i < args.file_count; i++) {
        const char *file = args.files[i];
        bool from_stdin = !strcmp(file, "-");
        if (args.lenient && !args.json) { /* what a lenient load makes of it */
            cli_file f;
            int32_t scene;
            if (cli_load(&f, file, true)) {
                status = status ? status : 1;
                continue;
            }
            int picked = cli_pick_scene("validate", &f, &args, &scene);
            if (picked)
                status = picked;
            else if (f.warnings)
                printf("%s: ok (%u warning%s)\n", f.path, f.warnings, f.warnings == 1 ? "" : "s");
            else
                printf("%s: ok\n", f.path);
            cli_close(&f);
            continue;
        }
        cli_file f = {.path = file};
        if (from_stdin && !cli_read_input(&f, file)) {
            status = status ? status : 1;
            continue;
        }
        file = f.path;
        uint32_t count = 0;
        arbor_result r = ARBOR_ERR_IO;
        if (from_stdin || !unreadable(file, m)) r = messages_of(from_stdin ? NULL : file, &f, &m, &cap, &count);
        else count = 1;
        bool with_info = args.json && r != ARBOR_ERR_IO && (f.bytes || cli_read_input(&f, file));
        uint32_t counts[4] = {0, 0, 0, 0};
        json_t *one = report(file, m, count, with_info ? &f : NULL, counts);
        if (counts[0]) status = status ? status : 1;
        if (!r && args.scene) { /* the scene asked for, by index or name */
            int32_t scene;
            if ((!f.bytes && !cli_read_input(&f, file)) ||
                cli_load_read(&f, from_stdin ? "-" : file, false, ARBOR_GLTF_DEFAULT_SCENE)) {
                status = status ? status : 1;
            } else {
                int picked = cli_pick_scene("validate", &f, &args, &scene);
                if (picked) status = picked;
            }
        }
        cli_close(&f);
        if (args.json) {
            json_array_append_new(all, one);
            continue;
        }
        json_decref(one);
        for (uint32_t k = 0; k < count && k < MAX_ISSUES; k++) {
            char place[300];
            if (m[k].offset >= 0)
                snprintf(place, sizeof place, "GLB offset %lld", (long long)m[k].offset);
            else
                snprintf(place, sizeof place, "%s", m[k].pointer[0] ? m[k].pointer : "/");
            /* below an error for the validator, yet arbor's load refuses what arbor reports */
            fprintf(stderr, "%s: %s: %s: %s: %s%s\n", file, severity_names[m[k].severity & 3], m[k].code, place,
                    m[k].message, m[k].severity > 0 ? " (arbor's load refuses the file for it)" : "");
        }
        if (count > MAX_ISSUES) fprintf(stderr, "%s: %u more not shown\n", file, count - MAX_ISSUES);
        if (!counts[0]) {
            printf("%s: ok\n", file);
        } else {
            fprintf(stderr, "%s: %u error%s", file, counts[0], counts[0] == 1 ? "" : "s");
            if (counts[1]) fprintf(stderr, ", %u warning%s", counts[1], counts[1] == 1 ? "" : "s");
            fputc('\n', stderr);
        }
    }
    if (args.json) {
        json_t *out = args.file_count == 1 && json_array_size(all) == 1 ? json_array_get(all, 0) : all;
        char *text = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (text) puts(text);
        free(text);
    }
    json_decref(all);
    free(m);
    return status;
}
