/* SPDX-License-Identifier: MIT */
/* The arbor command-line tool: one cmd_<name>.c per command, shared helpers in main.c. */
#ifndef ARBOR_CLI_H
#define ARBOR_CLI_H
#include <arbor/arbor.h>
#include <arbor/gltf.h>
#include <jansson.h>
#include <stdio.h>

/* Each command gets the arguments after its name and returns the process's exit code:
   0 done, 1 a file that fails to load or save, 2 a usage error. */
int cmd_demo(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_dot(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_edit(int argc, char **argv);
int cmd_cull(int argc, char **argv);
#if defined(ARBOR_HAVE_CAIRO)
int cmd_render(int argc, char **argv);
/* cmd_render on a file already loaded (NULL: the one the arguments name), which it closes. */
struct cli_file;
int cli_render(int argc, char **argv, struct cli_file *loaded);
#endif
int cmd_animate(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_diff(int argc, char **argv);
/* tree, info, dump and convert of a URDF file (cmd_urdf.c): main.c runs it for a command whose operands
   name a .urdf file (cli_urdf_operand). */
int cmd_urdf(const char *cmd, int argc, char **argv);
bool cli_urdf_operand(int argc, char **argv);

/* The command being run ("info"), for usage errors to name its --help. */
extern const char *cli_command;

/* Prints "arbor: <message>" and "(see arbor CMD --help)" to stderr and returns exit code 2 (a
   usage error). */
int cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Prints "arbor: CMD: <message>" (one line) to stderr and returns exit code 1: how every command
   says that something failed. */
int cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* arbor_last_error() without the library function it starts with ("arbor_gltf_load: "): the
   file, the place and the reason, in a user's terms (they ran a command, not the function). */
const char *cli_last_error(void);

/* True (after printing help to stdout) when an argument is -h or --help. */
bool cli_wants_help(int argc, char **argv, const char *help);

/* A glTF file loaded into a scene of its own. */
typedef struct cli_file {
    const char *path;
    arbor_scene *scene;
    arbor_gltf *doc;
    uint32_t warnings;   /* warnings the scene logged (printed to stderr) */
    unsigned char *bytes; /* the file's bytes (for its JSON), and their size */
    size_t size;
    json_t *json;        /* the file's JSON, parsed on demand by cli_json */
    struct cli_bytes *buffers; /* the file's buffers, read on demand by cli_buffer */
    uint32_t buffer_count;
} cli_file;

/* Bytes read from a file's buffer or image (cli_data.c). */
typedef struct cli_bytes {
    unsigned char *data;
    size_t size;
    bool tried;          /* cli_buffer looked for them (data NULL: not readable) */
} cli_bytes;

/* Buffer `index` of the file: the GLB BIN chunk, a data: URI or a file beside the glTF file;
   NULL when it cannot be read (the load already vouched for what arbor reads). */
const cli_bytes *cli_buffer(cli_file *f, uint32_t index);

/* Image `index`: its size in bytes, and its width and height from a PNG or JPEG header (0
   when unknown). False when its bytes cannot be had. */
bool cli_image_size(cli_file *f, uint32_t index, size_t *bytes, uint32_t *width, uint32_t *height);

/* Accessor `index` read as floats (normalized integers converted), `components` a element
   (1 for SCALAR, 3 for VEC3, ...): a malloc'ed array of count * components, or NULL when the
   accessor is not one of those or its bytes cannot be had (sparse accessors included). */
float *cli_accessor_floats(cli_file *f, uint32_t index, uint32_t components, uint32_t *count);

void cli_buffers_free(cli_file *f);

/* The animation `wanted` names (a name, else an index; NULL: the first): its index; -1 after
   saying the file has no animations; -2 after a usage error listing the animations there are
   (the command exits 2). */
int32_t cli_pick_animation(const cli_file *f, const char *cmd, const char *wanted);

/* Poses the file's nodes with animation `animation` (as cli_pick_animation takes it) at `time`
   seconds (held at the ends) and updates the scene: 0, 1 after saying why, or 2 after a usage
   error (no such animation). */
int cli_pose(cli_file *f, const char *cmd, const char *animation, double time);

/* Long work said on stderr when it is a terminal: "arbor: loading robot.glb (120 MB) ..." when
   `big` (work likely over a second), then " done in 2.1 s" at cli_progress_end. Silent
   otherwise, so pipes and tests see nothing. A negative megabytes leaves the size out. */
typedef struct cli_progress {
    bool shown;
    double start;
} cli_progress;
void cli_progress_begin(cli_progress *p, bool big, const char *what, const char *name, double megabytes);
void cli_progress_end(cli_progress *p);

/* True when path is a regular file that can be read; else false after saying whether it is
   missing, a directory, FIFO, socket or device (not `what`: "a glTF file") or unreadable. */
/* What a path that is not a regular file is, in a message's words ("a directory", "a FIFO",
   "a socket or device"); NULL for a regular file. */
struct stat;
const char *cli_not_regular(const struct stat *st);
bool cli_check_input(const char *path, const char *what);
/* path opened to read when it is a regular file (NULL otherwise, errno set), without blocking
   on a FIFO: every file the CLI reads goes through it. */
FILE *cli_open(const char *path);

/* A glTF file to write: 0; 2 after a usage error naming cmd (not .gltf or .glb, or -); 1 after
   saying that it is a directory. Checked before any work. */
int cli_check_output(const char *cmd, const char *path);

/* Loads path ("-": standard input; strict unless lenient): 0, or 1 after printing the error to
   stderr (a missing file, a directory and an unreadable file each said as such). */
int cli_load(cli_file *f, const char *path, bool lenient);
void cli_close(cli_file *f);

/* cli_load choosing glTF scene `scene` at the load (its roots first; what a save writes as the
   default), -1 for the file's default. */
int cli_load_scene(cli_file *f, const char *path, bool lenient, int32_t scene);

/* The bytes of path ("-": standard input, f->path "(standard input)") into a new *f: true, or
   false after saying whether it is missing, a directory or unreadable (f holds nothing then). */
bool cli_read_input(cli_file *f, const char *path);
/* cli_load_scene of a file cli_read_input has read into f. */
int cli_load_read(cli_file *f, const char *path, bool lenient, int32_t scene);

/* The file's glTF JSON (of a .glb, its JSON chunk), parsed once; NULL when unreadable (a file
   arbor_gltf_load accepted is readable). */
json_t *cli_json(cli_file *f);

/* Writes j to stdout, indented, with a newline: 0, or 1 after saying why not. */
int cli_print_json(json_t *j);
/* The same with every real printed to read back exactly (9 digits in float builds, 17 in double
   ones), as `arbor dump --json` prints matrices. */
int cli_print_json_exact(json_t *j);

/* A number as JSON, without float noise (cli_tidy, 7 significant digits as files carry). */
json_t *cli_json_real(double v);

/* Marks in `in` (one byte per glTF node index, calloc'ed, NULL on no memory) the nodes of glTF
   scene `scene` (-1: every node). */
unsigned char *cli_scene_members(const cli_file *f, int32_t scene);

/* The node's path of names from its root ("base/joint/arm"; an unnamed node as #INDEX) in buf. */
const char *cli_node_path(const cli_file *f, arbor_node n, char *buf, size_t size);
/* A command's arguments: FILE operands and the options the command takes. */
/* CLI_OPT_SCENE_ALL: --scene also takes `all` (every node of the file, a whole-file view; a
   scene named "all" is then reached by its index). */
enum { CLI_OPT_SCENE = 1, CLI_OPT_LENIENT = 2, CLI_OPT_JSON = 4, CLI_OPT_CAMERA = 8, CLI_OPT_OUTPUT = 16, CLI_OPT_SCENE_ALL = 32 };
typedef struct cli_args {
    char **files;        /* the operands, in order (argv reordered in place) */
    int file_count;
    bool lenient, json;
    const char *scene;   /* --scene N|NAME: a 0-based glTF scene index or a scene's name */
    bool scene_all;      /* --scene all is taken (CLI_OPT_SCENE_ALL) */
    const char *camera;  /* --camera NAME, or NULL */
    const char *output;  /* -o FILE, or NULL */
} cli_args;

/* Parses argv into args, accepting the CLI_OPT_* in `options` and min_files to max_files
   operands: 0, or 2 after printing a usage error naming cmd. */
int cli_parse_args(const char *cmd, int argc, char **argv, unsigned options, int min_files, int max_files,
                   cli_args *args);

/* The glTF scene to show: --scene N or NAME (checked against the file; an unknown one lists the
   scenes there are), -1 for `all` where the command takes it, else the file's default (-1 for
   a file without scenes): 0, or 2 after printing why. */
int cli_pick_scene(const char *cmd, const cli_file *f, const cli_args *args, int32_t *scene);

/* The roots of glTF scene `scene` (-1: every root of the scene graph, for a file without
   scenes) in a malloc'ed array; NULL with *count 0 when there are none. */
arbor_node *cli_scene_roots(const cli_file *f, int32_t scene, uint32_t *count);

/* Pre-order walk of the subtree of top without recursion: the node after n, ARBOR_NONE at the end. */
arbor_node cli_next_in_subtree(const arbor_scene *s, arbor_node top, arbor_node n);

/* A world matrix no TRS holds: its columns are not orthogonal, judged as arbor_mat4_decompose
   does in float builds (1e-4 of the column lengths) whatever arbor_real is, since file data
   carries float precision and a double build's 1e-9 would flag good files. */
bool cli_sheared(const arbor_real w[16]);

/* A coordinate to print: without a "-0" or a rounding residue such as 1e-17 next to real
   values (below 1e-6 is 0). */
double cli_tidy(arbor_real v);

/* A point or vector to print: cli_tidy on each coordinate, and a coordinate below 1e-5 of the
   largest one printed as 0 (-1.53e-06 beside 2 is float noise, not a position). */
void cli_tidy3(double out[3], const arbor_real v[3]);

/* Prints the file's nodes as `arbor dump --json` does (for the scene as it stands; only those
   marked in `in`, one byte per file node index, when in is not NULL): 0, or 1 after saying on
   stderr that the output could not be written. */
int cli_dump_json(cli_file *f, const unsigned char *in);
/* cli_dump_json of glTF scene scene_arg (--scene N|NAME|all; NULL: the file's default scene,
   every node for a file without scenes): 0, 1, or 2 after a usage error (no such scene). */
int cli_dump_scene(cli_file *f, const char *cmd, const char *scene_arg);

/* The node's name, or "#<glTF index>" written into buf. */
const char *cli_node_label(const cli_file *f, arbor_node n, char buf[32]);

/* The camera `arbor cull` and `arbor render` look through (cli_view.c). */
typedef struct cli_view {
    arbor_node camera;           /* the node carrying the camera */
    bool made;                   /* made for the occasion (a root of the scene, not the file's) */
    arbor_real aspect;           /* width / height */
    arbor_real view_projection[16];
    char what[192];              /* which camera, in words */
} cli_view;

/* The camera named `name` (a node label as cli_node_label gives it: its name or #INDEX), else
   the first camera of glTF scene `scene` (-1: of the file; in node order), else a perspective
   camera made to frame every box and node origin of that scene. 0, or 2 after a usage error naming cmd (no such node, or no
   camera on it), or 1 after printing why the view cannot be had (a singular camera). */
int cli_view_pick(const char *cmd, cli_file *f, int32_t scene, const char *name, cli_view *out);
#endif
