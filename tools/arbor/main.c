/* SPDX-License-Identifier: MIT */
/* arbor: the command-line tool, and what its commands share (loading, walking, labels). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: arbor <command> [options]\n"
    "\n"
    "Scene graphs: transform hierarchies with lazy, versioned world matrices.\n"
    "\n"
    "commands:\n"
    "  demo [--yaw DEG] [--bend DEG] [--save FILE]\n"
    "                          the course's robot arm: its world matrices and positions\n"
    "  info FILE [--scene S] [--json]\n"
    "                          an inspect report: scenes, meshes, materials, textures,\n"
    "                          animations, skins, cameras, lights, extensions, buffers\n"
    "  tree FILE [--scene S] [--json]\n"
    "                          the hierarchy as an indented tree\n"
    "  stats FILE [--scene S] [--json]\n"
    "                          depths, fan-out, TRS vs matrix, mirrored, sheared, animated\n"
    "  diff A B [--scene S] [--tolerance T]\n"
    "                          nodes added, removed, renamed, moved; transforms that differ\n"
    "  dump FILE --json [--scene S]\n"
    "                          a scene's nodes with their local and world matrices, as JSON\n"
    "  animate FILE --time T [--animation A] [--scene S]\n"
    "                          the nodes posed by an animation (or --fps F --frames N: timed)\n"
    "  validate FILE... [--scene S]\n"
    "                          load each file: \"FILE: ok\", or why it is refused\n"
    "  convert IN OUT [--scene S]\n"
    "                          glTF to GLB and back (by OUT's extension)\n"
    "  edit FILE -o OUT [-e COMMAND]... [--script FILE]\n"
    "                          edits (moves, turns in degrees, new nodes, attachments) saved\n"
    "  dot FILE [--scene S]    the hierarchy as a Graphviz digraph\n"
    "  cull FILE [--camera NODE] [--scene S] [--json]\n"
    "                          what a camera sees, by hierarchical culling\n"
#if defined(ARBOR_HAVE_CAIRO)
    "  render FILE -o OUT.png|OUT.svg [--view V] [--size WxH] [--time T]\n"
    "                          a picture: shaded meshes, boxes, grid, cameras, lights, names\n"
#endif
    "  bench --shape S --frame F [--threads N] [--bulk] [--json]\n"
    "                          one benchmark workload of WORKLOADS.md\n"
    "\n"
    "FILE - reads standard input. S is a scene's index or name (default: the file's default\n"
    "scene); dump, animate and diff also take all, every node of the file. Nodes are named by\n"
    "path (base/joint/arm) or #INDEX.\n"
    "\n"
    "Robots: tree, info, dump, convert and render also read a URDF file (ROBOT.urdf), at joint\n"
    "positions given by --joint NAME=VALUE... or --joints FILE.json (see arbor dump robot.urdf --help).\n"
    "\n"
    "Each command takes --help. Exit status: 0 done, 1 a file failed to load or save (or an\n"
    "edit failed), 2 usage (diff: 0 same, 1 different, 2 error).\n"
    "\n"
    "options:\n"
    "  -h, --help      this text\n"
    "  -V, --version   the version, the precision of arbor_real and the SIMD path in use\n";

const char *cli_command;

int cli_usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("arbor: ", stderr);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see arbor %s%s--help)\n", cli_command ? cli_command : "", cli_command ? " " : "");
    va_end(ap);
    return 2;
}

int cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "arbor: %s%s", cli_command ? cli_command : "", cli_command ? ": " : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* message past a leading "arbor_name: " (a library function's name), or message itself. */
static const char *past_function(const char *message) {
    size_t n = strncmp(message, "arbor_", 6) ? 0 : strspn(message, "abcdefghijklmnopqrstuvwxyz0123456789_");
    return n && !strncmp(message + n, ": ", 2) ? message + n + 2 : message;
}

const char *cli_last_error(void) {
    const char *message = arbor_last_error();
    return message[0] ? past_function(message) : arbor_result_string(arbor_last_error_info().code);
}

bool cli_wants_help(int argc, char **argv, const char *help) {
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(help, stdout);
            return true;
        }
    }
    return false;
}

/* The scene's warnings: "arbor: CMD: warning: FILE: ...". A load from standard input names
   arbor_gltf_load_memory where a file would be: the input's name replaces it. */
static void log_warning(void *user, arbor_log_level level, const char *message) {
    cli_file *f = user;
    if (level == ARBOR_LOG_INFO) return;
    if (level == ARBOR_LOG_WARN) f->warnings++;
    const char *text = past_function(message);
    cli_error("%s: %s%s%s", level == ARBOR_LOG_WARN ? "warning" : "error", text != message ? f->path : "",
              text != message ? ": " : "", text);
}

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void cli_progress_begin(cli_progress *p, bool big, const char *what, const char *name, double megabytes) {
    p->shown = big && isatty(STDERR_FILENO);
    p->start = seconds();
    if (p->shown && megabytes >= 0) fprintf(stderr, "arbor: %s %s (%.0f MB) ...", what, name, megabytes);
    else if (p->shown) fprintf(stderr, "arbor: %s %s ...", what, name);
}

void cli_progress_end(cli_progress *p) {
    if (p->shown) fprintf(stderr, " done in %.1f s\n", seconds() - p->start);
    p->shown = false;
}

/* Reads all of stream into *bytes: false on a read error or no memory. */
static bool read_all(FILE *stream, unsigned char **bytes, size_t *size) {
    size_t cap = 1 << 16, used = 0;
    unsigned char *data = malloc(cap);
    while (data) {
        used += fread(data + used, 1, cap - used, stream);
        if (used < cap) break;
        unsigned char *bigger = cap < SIZE_MAX / 2 ? realloc(data, cap * 2) : NULL;
        if (!bigger) {
            free(data);
            data = NULL;
        }
        data = bigger;
        cap *= 2;
    }
    if (!data || ferror(stream)) {
        free(data);
        return false;
    }
    *bytes = data;
    *size = used;
    return true;
}

const char *cli_not_regular(const struct stat *st) {
    return S_ISREG(st->st_mode) ? NULL : S_ISDIR(st->st_mode) ? "a directory" : S_ISFIFO(st->st_mode) ? "a FIFO" : "a socket or device";
}

bool cli_check_input(const char *path, const char *what) {
    struct stat st;
    if (stat(path, &st)) {
        cli_error("%s: %s", path, errno == ENOENT ? "no such file" : strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) { /* a FIFO would block the read: refused without opening it */
        cli_error("%s is %s, not %s", path, cli_not_regular(&st), what);
        return false;
    }
    if (access(path, R_OK)) {
        cli_error("%s: cannot be read: %s", path, strerror(errno));
        return false;
    }
    return true;
}

FILE *cli_open(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO: no wait for a writer */
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (fd >= 0 && !f) close(fd);
    return f;
}

int cli_check_output(const char *cmd, const char *path) {
    size_t n = strlen(path);
    bool gltf = n > 5 && !strcmp(path + n - 5, ".gltf"), glb = n > 4 && !strcmp(path + n - 4, ".glb");
    if (!strcmp(path, "-"))
        return cli_usage_error("%s: glTF is not written to standard output (its format follows the name): name a .gltf or .glb file", cmd);
    if (!gltf && !glb) return cli_usage_error("%s: %s: the file's name must end in .gltf or .glb", cmd, path);
    struct stat st;
    if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
        cli_error("%s is a directory, not a file to write", path);
        return 1;
    }
    return 0;
}

bool cli_read_input(cli_file *f, const char *path) {
    *f = (cli_file){ .path = path };
    if (!strcmp(path, "-")) {
        f->path = "(standard input)";
        if (read_all(stdin, &f->bytes, &f->size)) return true;
        cli_error("cannot read standard input");
        return false;
    }
    if (!cli_check_input(path, "a glTF file")) return false;
    FILE *in = cli_open(path);
    if (!in) {
        cli_error("%s: cannot be read: %s", path, strerror(errno));
        return false;
    }
    bool ok = read_all(in, &f->bytes, &f->size);
    fclose(in);
    if (!ok) cli_error("%s: cannot be read", path);
    return ok;
}

int cli_load(cli_file *f, const char *path, bool lenient) { return cli_load_scene(f, path, lenient, ARBOR_GLTF_DEFAULT_SCENE); }

int cli_load_scene(cli_file *f, const char *path, bool lenient, int32_t scene) {
    if (!cli_read_input(f, path)) return 1;
    return cli_load_read(f, path, lenient, scene);
}

int cli_load_read(cli_file *f, const char *path, bool lenient, int32_t scene) {
    if (arbor_scene_create(&(arbor_scene_desc){ .log = log_warning, .log_user = f }, &f->scene) != ARBOR_OK) {
        cli_error("out of memory");
        cli_close(f);
        return 1;
    }
    arbor_gltf_options options = ARBOR_GLTF_OPTIONS_DEFAULT;
    options.lenient = lenient;
    options.scene = scene;
    options.use_scene = scene != ARBOR_GLTF_DEFAULT_SCENE;
    /* A file loads from its path (its messages name it, its URIs resolve beside it); standard
       input from its bytes, URIs resolving from the working directory. */
    /* about 30 MB a second on a slow machine: bigger files say so */
    cli_progress progress;
    cli_progress_begin(&progress, f->size > (32u << 20), "loading", f->path, f->size / 1048576.0);
    arbor_result r = strcmp(path, "-") ? arbor_gltf_load(f->scene, path, &options, &f->doc)
                                       : arbor_gltf_load_memory(f->scene, f->bytes, f->size, ".", &options, &f->doc);
    cli_progress_end(&progress);
    if (r != ARBOR_OK) {
        /* the message names the file (from memory: no file, so the input's name goes first) */
        if (arbor_last_error_info().file[0]) cli_error("%s", cli_last_error());
        else cli_error("%s: %s", f->path, cli_last_error());
        cli_close(f);
        return 1;
    }
    arbor_scene_update(f->scene);
    return 0;
}

static uint32_t read_le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

json_t *cli_json(cli_file *f) {
    if (f->json || !f->bytes) return f->json;
    const unsigned char *text = f->bytes;
    size_t size = f->size;
    if (size >= 20 && !memcmp(text, "glTF", 4)) { /* GLB: header, then the JSON chunk */
        uint32_t length = read_le32(text + 12);
        if (length > size - 20) return NULL;
        text += 20;
        size = length;
    }
    f->json = json_loadb((const char *)text, size, 0, NULL);
    return f->json;
}

static int print_json(json_t *j, int precision) {
    int bad = !j || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(precision));
    json_decref(j);
    if (!bad) bad = fputc('\n', stdout) == EOF || fflush(stdout);
    if (bad) cli_error("the JSON could not be written");
    return bad;
}

int cli_print_json(json_t *j) { return print_json(j, 7); }
int cli_print_json_exact(json_t *j) { return print_json(j, sizeof(arbor_real) == sizeof(double) ? 17 : 9); }

json_t *cli_json_real(double v) {
    v = cli_tidy((arbor_real)v);
    char text[32];
    snprintf(text, sizeof text, "%.7g", v);
    double r = strtod(text, NULL);
    return r == floor(r) && fabs(r) < 1e15 ? json_integer((json_int_t)r) : json_real(r);
}

unsigned char *cli_scene_members(const cli_file *f, int32_t scene) {
    uint32_t count = arbor_gltf_node_count(f->doc), root_count;
    unsigned char *in = calloc(count ? count : 1, 1);
    if (!in) return NULL;
    if (scene < 0) {
        memset(in, 1, count);
        return in;
    }
    arbor_node *roots = cli_scene_roots(f, scene, &root_count);
    for (uint32_t r = 0; r < root_count; r++) {
        for (arbor_node n = roots[r]; !arbor_node_is_none(n); n = cli_next_in_subtree(f->scene, roots[r], n)) {
            int64_t i = arbor_gltf_index(f->doc, n);
            if (i >= 0 && i < count) in[i] = 1;
        }
    }
    free(roots);
    return in;
}

const char *cli_node_path(const cli_file *f, arbor_node n, char *buf, size_t size) {
    /* Written from the leaf backwards into the end of buf, then moved to its start. */
    size_t at = size - 1;
    buf[at] = 0;
    for (arbor_node p = n; !arbor_node_is_none(p); p = arbor_node_parent(f->scene, p)) {
        char label[32];
        const char *name = cli_node_label(f, p, label);
        size_t len = strlen(name) + (arbor_node_equal(p, n) ? 0 : 1);
        if (len > at) { /* too deep for buf: the path starts with ... */
            memcpy(buf + (at >= 3 ? at - 3 : 0), "...", 3);
            at = at >= 3 ? at - 3 : 0;
            break;
        }
        at -= len;
        memcpy(buf + at, name, strlen(name));
        if (!arbor_node_equal(p, n)) buf[at + len - 1] = '/';
    }
    memmove(buf, buf + at, size - at);
    return buf;
}

void cli_close(cli_file *f) {
    cli_buffers_free(f);
    json_decref(f->json);
    free(f->bytes);
    f->json = NULL;
    f->bytes = NULL;
    arbor_gltf_destroy(f->doc);
    arbor_scene_destroy(f->scene);
    f->doc = NULL;
    f->scene = NULL;
}

static bool parse_index(const char *text, uint32_t *out) {
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    if (end == text || *end || text[0] == '-' || text[0] == '+' || v > UINT32_MAX) return false;
    *out = (uint32_t)v;
    return true;
}

int cli_parse_args(const char *cmd, int argc, char **argv, unsigned options, int min_files, int max_files,
                   cli_args *args) {
    *args = (cli_args){ .files = argv };
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if ((options & CLI_OPT_LENIENT) && !strcmp(a, "--lenient")) {
            args->lenient = true;
        } else if ((options & CLI_OPT_JSON) && !strcmp(a, "--json")) {
            args->json = true;
        } else if ((options & CLI_OPT_CAMERA) && !strcmp(a, "--camera")) {
            if (i + 1 >= argc) return cli_usage_error("%s: --camera needs a node name", cmd);
            args->camera = argv[++i];
        } else if ((options & CLI_OPT_OUTPUT) && !strcmp(a, "-o")) {
            if (i + 1 >= argc) return cli_usage_error("%s: -o needs a file name", cmd);
            args->output = argv[++i];
        } else if ((options & CLI_OPT_SCENE) && !strcmp(a, "--scene")) {
            if (i + 1 >= argc) return cli_usage_error("%s: --scene needs a scene index (0, 1, ...) or name", cmd);
            args->scene = argv[++i];
            args->scene_all = options & CLI_OPT_SCENE_ALL;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("%s: unknown option '%s'", cmd, a);
        } else if (args->file_count == max_files) {
            return cli_usage_error("%s: '%s' is one operand too many", cmd, a);
        } else {
            argv[args->file_count++] = argv[i];  /* operands move to the front, in order */
        }
    }
    if (args->file_count < min_files) return cli_usage_error("%s: %s missing", cmd, min_files > 1 ? "files are" : "FILE is");
    return 0;
}

int cli_pick_scene(const char *cmd, const cli_file *f, const cli_args *args, int32_t *scene) {
    uint32_t count = arbor_gltf_scene_count(f->doc), index;
    *scene = arbor_gltf_loaded_scene(f->doc);
    if (!args->scene) return 0;
    if (args->scene_all && !strcmp(args->scene, "all")) {
        *scene = -1;
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        const char *name = arbor_gltf_scene_name(f->doc, i);
        if (name && !strcmp(name, args->scene)) {
            *scene = (int32_t)i;
            return 0;
        }
    }
    if (parse_index(args->scene, &index) && index < count) {
        *scene = (int32_t)index;
        return 0;
    }
    cli_error("%s has no scene \"%s\"; its scenes:%s", f->path, args->scene, count ? "" : " none");
    for (uint32_t i = 0; i < count; i++) {
        const char *name = arbor_gltf_scene_name(f->doc, i);
        fprintf(stderr, "  %u%s%s%s\n", i, name ? " \"" : "", name ? name : "", name ? "\"" : "");
    }
    return cli_usage_error("%s: --scene takes a scene index or name%s", cmd, args->scene_all ? ", or all" : "");
}

arbor_node *cli_scene_roots(const cli_file *f, int32_t scene, uint32_t *count) {
    const arbor_scene *s = f->scene;
    uint32_t n = 0;
    if (scene >= 0) {
        arbor_gltf_scene_roots(f->doc, (uint32_t)scene, NULL, 0, &n); /* scene is in range */
    } else {
        for (arbor_node r = arbor_scene_first_root(s); !arbor_node_is_none(r); r = arbor_node_next_sibling(s, r)) n++;
    }
    arbor_node *roots = n ? malloc(n * sizeof *roots) : NULL;
    if (!roots) n = 0;
    if (n && scene >= 0) {
        arbor_gltf_scene_roots(f->doc, (uint32_t)scene, roots, n, &n);
    } else if (n) {
        uint32_t i = 0;
        for (arbor_node r = arbor_scene_first_root(s); i < n; r = arbor_node_next_sibling(s, r)) roots[i++] = r;
    }
    *count = n;
    return roots;
}

arbor_node cli_next_in_subtree(const arbor_scene *s, arbor_node top, arbor_node n) {
    arbor_node child = arbor_node_first_child(s, n);
    if (!arbor_node_is_none(child)) return child;
    while (!arbor_node_equal(n, top)) {
        arbor_node next = arbor_node_next_sibling(s, n);
        if (!arbor_node_is_none(next)) return next;
        n = arbor_node_parent(s, n);
    }
    return ARBOR_NONE;
}

bool cli_sheared(const arbor_real w[16]) {
    for (int a = 0; a < 3; a++) {
        for (int b = a + 1; b < 3; b++) {
            double dot = 0, la = 0, lb = 0;
            for (int r = 0; r < 3; r++) {
                dot += (double)w[4 * a + r] * w[4 * b + r];
                la += (double)w[4 * a + r] * w[4 * a + r];
                lb += (double)w[4 * b + r] * w[4 * b + r];
            }
            if (fabs(dot) > 1e-4 * sqrt(la * lb)) return true;
        }
    }
    return false;
}

double cli_tidy(arbor_real v) { return fabs((double)v) < 1e-6 ? 0.0 : (double)v; }

void cli_tidy3(double out[3], const arbor_real v[3]) {
    double largest = fmax(fabs((double)v[0]), fmax(fabs((double)v[1]), fabs((double)v[2])));
    for (int i = 0; i < 3; i++) out[i] = fabs((double)v[i]) < 1e-5 * largest ? 0.0 : cli_tidy(v[i]);
}

const char *cli_node_label(const cli_file *f, arbor_node n, char buf[32]) {
    const char *name = arbor_node_name(f->scene, n);
    if (name) return name;
    snprintf(buf, 32, "#%lld", (long long)arbor_gltf_index(f->doc, n));
    return buf;
}

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    { "demo", cmd_demo },         { "info", cmd_info },       { "tree", cmd_tree }, { "dump", cmd_dump },
    { "validate", cmd_validate }, { "convert", cmd_convert }, { "dot", cmd_dot },   { "bench", cmd_bench },
    { "edit", cmd_edit },
    { "cull", cmd_cull },         { "stats", cmd_stats },     { "diff", cmd_diff },
#if defined(ARBOR_HAVE_CAIRO)
    { "render", cmd_render },
#endif
    { "animate", cmd_animate },
};

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *name = argv[1];
    if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
        printf("arbor %s (%s, %s)\n", arbor_version(), arbor_real_size() == sizeof(double) ? "double" : "float",
               arbor_simd_path());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name)) {
            cli_command = name;
            if (cli_urdf_operand(argc - 2, argv + 2)) return cmd_urdf(name, argc - 2, argv + 2);
            return commands[i].run(argc - 2, argv + 2);
        }
    fprintf(stderr, "arbor: no command '%s'; the commands:", name); /* one line, the list in it */
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) fprintf(stderr, " %s", commands[i].name);
    fputs(" (see arbor --help)\n", stderr);
    return 2;
}
