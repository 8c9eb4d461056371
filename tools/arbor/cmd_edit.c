/* SPDX-License-Identifier: MIT */
/* arbor edit: a scriptable editor: commands applied in order through the journal, then a save. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: arbor edit FILE -o OUT [-e COMMAND]... [--script SCRIPT]... [--lenient]\n"
    "\n"
    "Loads FILE, applies the commands in the order given (each -e is one command, a script has\n"
    "one a line, # starts a comment) and saves the result as OUT (.gltf or .glb). A command that\n"
    "fails stops the run with its line number (SCRIPT:LINE, or -e N for the Nth -e) and the\n"
    "reason; nothing is written then.\n"
    "\n"
    "commands:\n"
    "  reparent NODE PARENT [--before NODE] [--keep-world]\n"
    "                             move NODE under PARENT (/ makes it a root), last or before a\n"
    "                             child of PARENT, keeping its local (default) or world transform\n"
    "  move NODE X Y Z            set the translation\n"
    "  move-by NODE DX DY DZ      add to the translation (a move in the parent's frame)\n"
    "  rotate NODE ROTATION       set the rotation; ROTATION is one of\n"
    "                               X Y Z W              a quaternion (normalised)\n"
    "                               --euler X Y Z        degrees about the parent's X, then Y,\n"
    "                                                    then Z axis (Euler XYZ, as Blender's)\n"
    "                               --axis X Y Z DEG     DEG degrees about the axis (X, Y, Z)\n"
    "  turn NODE ROTATION         turn by ROTATION from where the node is turned now (about\n"
    "                             the parent's axes)\n"
    "  scale NODE X Y Z           set the scale\n"
    "  matrix NODE M0 ... M15     set the local matrix (column-major, unlocked)\n"
    "  delete NODE                delete NODE and its subtree\n"
    "  clone NODE PARENT          copy NODE's subtree under PARENT (/: as a root), last\n"
    "  rename NODE NAME           rename (quote a NAME with spaces: \"left arm\")\n"
    "  add NAME PARENT            a new empty node NAME under PARENT (/: as a root), last\n"
    "  attach-mesh NODE MESH      draw mesh MESH (its index in FILE) at NODE; detach-mesh NODE\n"
    "  attach-camera NODE perspective YFOV_DEG ZNEAR [ZFAR [ASPECT]]\n"
    "  attach-camera NODE orthographic XMAG YMAG ZNEAR ZFAR\n"
    "                             a camera at NODE (looking down its -Z); detach-camera NODE\n"
    "  attach-light NODE point|spot|directional [INTENSITY [R G B]]\n"
    "                             a KHR_lights_punctual light at NODE (shining down -Z);\n"
    "                             detach-light NODE\n"
    "  undo, redo                 take back the last command / apply again the last undone one\n"
    "\n"
    "NODE is a path of names from a root (/base/joint/arm; the first of equal names is taken) or\n"
    "#N, the node's index in FILE; an edit works on the whole file, so the roots of every scene\n"
    "count (no --scene) and every scene is saved. move, rotate and scale on a node with a matrix\n"
    "(glTF matrix nodes load locked) hand it back to TRS by decomposition first, and refuse where\n"
    "a shear makes that inexact.\n"
    "\n"
    "  -o OUT           where to write (may be FILE)\n"
    "  -e COMMAND       one command (quote it as one argument)\n"
    "  --script SCRIPT  a file of commands\n"
    "  --lenient        load what can be loaded, with warnings, instead of refusing the file\n";

#define MAX_TOKENS 24
/* Radians a degree. */
#define DEGREE (3.14159265358979323846 / 180)

/* One command: its words and where it came from. */
typedef struct command {
    char *text;      /* owned copy, split in place into words */
    char where[300]; /* "SCRIPT:LINE" or "-e N" */
} command;

typedef struct editor {
    cli_file f;
    arbor_journal *j;
    const char *where;
    char *words[MAX_TOKENS];
    int count;
} editor;

/* Prints "arbor: edit: WHERE: message" and returns 1. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int fail(const editor *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "arbor: edit: %s: ", e->where);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Splits text into words in place: blanks separate, double quotes group (\" and \\ inside),
   a # that does not start a node index (#3) starts a comment. -1 on a bad line. */
static int split(char *text, char *words[MAX_TOKENS]) {
    int count = 0;
    char *in = text, *out = text; /* out never passes in */
    for (;;) {
        while (blank(*in)) in++;
        if (!*in || (*in == '#' && !(in[1] >= '0' && in[1] <= '9'))) return count;
        if (count == MAX_TOKENS) return -1;
        words[count++] = out;
        if (*in == '"') {
            for (in++; *in != '"'; in++) {
                if (!*in) return -1;
                if (*in == '\\' && (in[1] == '"' || in[1] == '\\')) in++;
                *out++ = *in;
            }
            in++;
        } else {
            while (*in && !blank(*in)) *out++ = *in++;
        }
        char stop = *in;
        if (stop && !blank(stop)) return -1; /* a closing quote glued to more text */
        *out++ = '\0';
        if (!stop) return count;
        in++;
    }
}

/* The node a NODE word names; ARBOR_NONE after printing why. */
static arbor_node find_node(const editor *e, const char *word) {
    arbor_node n = ARBOR_NONE;
    if (word[0] == '#') {
        char *end;
        errno = 0;
        unsigned long long index = strtoull(word + 1, &end, 10);
        uint32_t count = arbor_gltf_node_count(e->f.doc);
        if (end == word + 1 || *end || errno) {
            fail(e, "'%s' is neither a path nor #N", word);
        } else if (index >= count) {
            fail(e, "%s: %s has %u nodes", word, e->f.path, count);
        } else if (arbor_node_is_none(n = arbor_gltf_node(e->f.doc, (uint32_t)index))) {
            fail(e, "node %s was deleted", word);
        }
        return n;
    }
    if (!arbor_node_is_none(n = arbor_scene_find(e->f.scene, word))) return n;
    /* The deepest part of the path there is, and the names under it. */
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s", word);
    arbor_node found = ARBOR_NONE;
    for (char *slash = strrchr(prefix, '/'); slash; slash = strrchr(prefix, '/')) {
        *slash = '\0';
        if (prefix[0] && !arbor_node_is_none(found = arbor_scene_find(e->f.scene, prefix))) break;
    }
    fail(e, "no node at '%s'", word);
    arbor_node child = arbor_node_is_none(found) ? arbor_scene_first_root(e->f.scene) : arbor_node_first_child(e->f.scene, found);
    fprintf(stderr, "  the names %s %s:", arbor_node_is_none(found) ? "of the roots" : "under", arbor_node_is_none(found) ? "" : prefix);
    int shown = 0;
    for (; !arbor_node_is_none(child) && shown < 20; child = arbor_node_next_sibling(e->f.scene, child), shown++) {
        char label[32];
        fprintf(stderr, "%s %s", shown ? "," : "", cli_node_label(&e->f, child, label));
    }
    fprintf(stderr, "%s\n", !arbor_node_is_none(child) ? ", ..." : shown ? "" : " none");
    return ARBOR_NONE;
}

/* A PARENT word: "/" (*out = ARBOR_NONE) or a node; false after printing why. */
static bool find_parent(const editor *e, const char *word, arbor_node *out) {
    *out = ARBOR_NONE;
    return !strcmp(word, "/") || !arbor_node_is_none(*out = find_node(e, word));
}

/* `count` numbers from words[first]; false after printing which word is not one. */
static bool numbers(const editor *e, int first, int count, arbor_real *out) {
    for (int i = 0; i < count; i++) {
        const char *w = e->words[first + i];
        char *end;
        double v = strtod(w, &end);
        if (end == w || *end || !isfinite(v)) {
            fail(e, "%s: '%s' is not a finite number", e->words[0], w);
            return false;
        }
        out[i] = (arbor_real)v;
    }
    return true;
}

/* The result of a journal call: 0, or 1 after printing the library's message. */
static int checked(const editor *e, arbor_result r) {
    return r ? fail(e, "%s: %s", e->words[0], cli_last_error()) : 0;
}

/* A matrix-backed node becomes TRS-driven, with the exact decomposition of its matrix. */
static int to_trs(const editor *e, arbor_node n) {
    arbor_scene *s = e->f.scene;
    if (!arbor_node_is_matrix_backed(s, n)) return 0;
    arbor_real m[16];
    arbor_trs trs;
    arbor_node_local_matrix(s, n, m);
    if (!arbor_mat4_decompose(m, trs.translation, trs.rotation, trs.scale))
        return fail(e, "%s: %s has a matrix with a shear, which no translation, rotation and scale hold exactly",
                    e->words[0], e->words[1]);
    if (arbor_node_is_locked(s, n) && checked(e, arbor_journal_set_local_matrix(e->j, n, m, false))) return 1;
    return checked(e, arbor_journal_set_trs(e->j, n, &trs));
}

static bool arity(const editor *e, int words) {
    if (e->count == words) return true;
    fail(e, "%s takes %d argument%s, %d given", e->words[0], words - 1, words == 2 ? "" : "s", e->count - 1);
    return false;
}

/* A rotation from words[first...] (a quaternion, --euler X Y Z or --axis X Y Z DEG, to the end
   of the command) into q; false after printing why. */
static bool rotation(const editor *e, int first, arbor_real q[4]) {
    arbor_real v[4];
    int given = e->count - first;
    const char *form = given > 0 ? e->words[first] : "";
    if (!strcmp(form, "--euler")) {
        if (given != 4) return fail(e, "%s: --euler takes X Y Z (degrees)", e->words[0]), false;
        if (!numbers(e, first + 1, 3, v)) return false;
        /* R = Rz Ry Rx: X first, about the parent's axes */
        arbor_real qx[4], qy[4], qz[4], t[4];
        arbor_quat_from_axis_angle(qx, (arbor_real[3]){ 1, 0, 0 }, (arbor_real)(v[0] * DEGREE));
        arbor_quat_from_axis_angle(qy, (arbor_real[3]){ 0, 1, 0 }, (arbor_real)(v[1] * DEGREE));
        arbor_quat_from_axis_angle(qz, (arbor_real[3]){ 0, 0, 1 }, (arbor_real)(v[2] * DEGREE));
        arbor_quat_mul(t, qy, qx);
        arbor_quat_mul(q, qz, t);
        return true;
    }
    if (!strcmp(form, "--axis")) {
        if (given != 5) return fail(e, "%s: --axis takes X Y Z DEG", e->words[0]), false;
        if (!numbers(e, first + 1, 4, v)) return false;
        arbor_real len = (arbor_real)sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        if (!(len > 0)) return fail(e, "%s: --axis (%g, %g, %g) has no direction", e->words[0], (double)v[0], (double)v[1], (double)v[2]), false;
        arbor_real axis[3] = { v[0] / len, v[1] / len, v[2] / len };
        arbor_quat_from_axis_angle(q, axis, (arbor_real)(v[3] * DEGREE));
        return true;
    }
    if (given != 4)
        return fail(e, "%s takes NODE and a quaternion X Y Z W, --euler X Y Z or --axis X Y Z DEG, %d value%s given", e->words[0],
                    given, given == 1 ? "" : "s"), false;
    if (!numbers(e, first, 4, q)) return false;
    return true;
}

/* Runs the command in e->words: 0, or 1 after printing why. */
static int run(editor *e) {
    const char *verb = e->words[0];
    arbor_journal *j = e->j;
    arbor_node n = ARBOR_NONE, parent;
    arbor_real v[16];
    bool node_command = strcmp(verb, "undo") && strcmp(verb, "redo");
    if (node_command && e->count < 2) return fail(e, "%s needs a NODE", verb);
    if (!strcmp(verb, "reparent")) {
        arbor_node before = ARBOR_NONE;
        arbor_reparent mode = ARBOR_KEEP_LOCAL;
        if (e->count < 3) return fail(e, "reparent needs NODE and PARENT");
        if (arbor_node_is_none(n = find_node(e, e->words[1])) || !find_parent(e, e->words[2], &parent)) return 1;
        for (int i = 3; i < e->count; i++) {
            if (!strcmp(e->words[i], "--keep-world")) {
                mode = ARBOR_KEEP_WORLD;
            } else if (!strcmp(e->words[i], "--before") && i + 1 < e->count) {
                if (arbor_node_is_none(before = find_node(e, e->words[++i]))) return 1;
            } else {
                return fail(e, "reparent: unknown option '%s'", e->words[i]);
            }
        }
        return checked(e, arbor_journal_set_parent(j, n, parent, before, mode));
    }
    if (!strcmp(verb, "rotate") || !strcmp(verb, "turn")) {
        arbor_real q[4];
        if (arbor_node_is_none(n = find_node(e, e->words[1])) || !rotation(e, 2, q) || to_trs(e, n)) return 1;
        if (verb[0] == 't') { /* after the node's own rotation: q * current */
            arbor_trs trs;
            arbor_real now[4];
            arbor_node_trs(e->f.scene, n, &trs);
            memcpy(now, trs.rotation, sizeof now);
            arbor_quat_mul(v, q, now);
            memcpy(q, v, sizeof q);
        }
        return checked(e, arbor_journal_set_rotation(j, n, q[0], q[1], q[2], q[3]));
    }
    if (!strcmp(verb, "move") || !strcmp(verb, "scale") || !strcmp(verb, "move-by")) {
        if (!arity(e, 5) || arbor_node_is_none(n = find_node(e, e->words[1])) || !numbers(e, 2, 3, v) || to_trs(e, n)) return 1;
        if (!strcmp(verb, "move-by")) {
            arbor_trs trs;
            arbor_node_trs(e->f.scene, n, &trs);
            return checked(e, arbor_journal_set_translation(j, n, trs.translation[0] + v[0], trs.translation[1] + v[1],
                                                            trs.translation[2] + v[2]));
        }
        if (verb[0] == 'm') return checked(e, arbor_journal_set_translation(j, n, v[0], v[1], v[2]));
        return checked(e, arbor_journal_set_scale(j, n, v[0], v[1], v[2]));
    }
    if (!strcmp(verb, "add")) {
        arbor_node made;
        if (!arity(e, 3) || !find_parent(e, e->words[2], &parent)) return 1;
        if (checked(e, arbor_journal_create_node(j, &(arbor_node_desc){ .name = e->words[1] }, &made))) return 1;
        return arbor_node_is_none(parent) ? 0 : checked(e, arbor_journal_set_parent(j, made, parent, ARBOR_NONE, ARBOR_KEEP_LOCAL));
    }
    if (!strcmp(verb, "attach-mesh")) {
        arbor_gltf_counts counts;
        arbor_gltf_counts_get(e->f.doc, &counts);
        if (!arity(e, 3) || arbor_node_is_none(n = find_node(e, e->words[1])) || !numbers(e, 2, 1, v)) return 1;
        if (!(v[0] >= 0 && v[0] < counts.meshes && v[0] == floor(v[0])))
            return fail(e, "attach-mesh: %s has %u meshes (0 to %d), there is no mesh %s", e->f.path, counts.meshes, (int)counts.meshes - 1, e->words[2]);
        return checked(e, arbor_journal_set_mesh(j, n, (int32_t)v[0]));
    }
    if (!strcmp(verb, "detach-mesh") || !strcmp(verb, "detach-camera") || !strcmp(verb, "detach-light")) {
        if (!arity(e, 2) || arbor_node_is_none(n = find_node(e, e->words[1]))) return 1;
        if (verb[7] == 'm') return checked(e, arbor_journal_set_mesh(j, n, -1));
        if (verb[7] == 'c') return checked(e, arbor_journal_set_camera(j, n, NULL));
        return checked(e, arbor_journal_set_light(j, n, NULL));
    }
    if (!strcmp(verb, "attach-camera")) {
        if (e->count < 3 || arbor_node_is_none(n = find_node(e, e->words[1]))) return fail(e, "attach-camera needs NODE and a type");
        arbor_camera c = { 0 };
        if (!strcmp(e->words[2], "perspective") && e->count >= 5 && e->count <= 7) {
            if (!numbers(e, 3, e->count - 3, v)) return 1;
            c = (arbor_camera){ ARBOR_CAMERA_PERSPECTIVE, (arbor_real)(v[0] * DEGREE), e->count > 6 ? v[3] : 0, 0, 0, v[1], e->count > 5 ? v[2] : 0 };
        } else if (!strcmp(e->words[2], "orthographic") && e->count == 7) {
            if (!numbers(e, 3, 4, v)) return 1;
            c = (arbor_camera){ ARBOR_CAMERA_ORTHOGRAPHIC, 0, 0, v[0], v[1], v[2], v[3] };
        } else {
            return fail(e, "attach-camera: perspective YFOV_DEG ZNEAR [ZFAR [ASPECT]] or orthographic XMAG YMAG ZNEAR ZFAR");
        }
        return checked(e, arbor_journal_set_camera(j, n, &c));
    }
    if (!strcmp(verb, "attach-light")) {
        static const char *const types[] = { "point", "spot", "directional" };
        static const arbor_light_type values[] = { ARBOR_LIGHT_POINT, ARBOR_LIGHT_SPOT, ARBOR_LIGHT_DIRECTIONAL };
        if (e->count < 3 || arbor_node_is_none(n = find_node(e, e->words[1]))) return fail(e, "attach-light needs NODE and a type");
        int type = -1;
        for (int k = 0; k < 3; k++)
            if (!strcmp(e->words[2], types[k])) type = k;
        if (type < 0 || (e->count != 3 && e->count != 4 && e->count != 7))
            return fail(e, "attach-light: point, spot or directional, then [INTENSITY [R G B]]");
        arbor_light l = { .type = values[type], .color = { 1, 1, 1 }, .intensity = 1 };
        if (e->count > 3) {
            if (!numbers(e, 3, e->count - 3, v)) return 1;
            l.intensity = v[0];
            if (e->count == 7) memcpy(l.color, v + 1, sizeof l.color);
        }
        return checked(e, arbor_journal_set_light(j, n, &l));
    }
    if (!strcmp(verb, "matrix")) {
        if (!arity(e, 18) || arbor_node_is_none(n = find_node(e, e->words[1])) || !numbers(e, 2, 16, v)) return 1;
        return checked(e, arbor_journal_set_local_matrix(j, n, v, false));
    }
    if (!strcmp(verb, "delete")) {
        if (!arity(e, 2) || arbor_node_is_none(n = find_node(e, e->words[1]))) return 1;
        return checked(e, arbor_journal_destroy_node(j, n));
    }
    if (!strcmp(verb, "clone")) {
        arbor_node made;
        if (!arity(e, 3) || arbor_node_is_none(n = find_node(e, e->words[1])) || !find_parent(e, e->words[2], &parent))
            return 1;
        return checked(e, arbor_journal_clone(j, e->f.scene, n, parent, &made));
    }
    if (!strcmp(verb, "rename")) {
        if (!arity(e, 3) || arbor_node_is_none(n = find_node(e, e->words[1]))) return 1;
        return checked(e, arbor_journal_set_name(j, n, e->words[2]));
    }
    if (!strcmp(verb, "undo") || !strcmp(verb, "redo")) {
        if (!arity(e, 1)) return 1;
        return checked(e, verb[0] == 'u' ? arbor_journal_undo(j) : arbor_journal_redo(j));
    }
    return fail(e, "unknown command '%s' (see arbor edit --help)", verb);
}

/* Appends a command; false when out of memory. */
static bool add(command **list, int *count, const char *text, size_t length, const char *where) {
    command *grown = realloc(*list, (size_t)(*count + 1) * sizeof *grown);
    if (!grown) return false;
    *list = grown;
    command *c = &grown[*count];
    if (!(c->text = malloc(length + 1))) return false;
    memcpy(c->text, text, length);
    c->text[length] = '\0';
    snprintf(c->where, sizeof c->where, "%s", where);
    (*count)++;
    return true;
}

/* Every line of a script as a command; 0, or 1 after printing why. */
static int read_script(const char *path, command **list, int *count) {
    if (!cli_check_input(path, "a script")) return 1;
    FILE *in = cli_open(path);
    if (!in) {
        cli_error("%s: %s", path, strerror(errno));
        return 1;
    }
    char line[8192], where[300];
    bool ok = true;
    for (unsigned number = 1; ok && fgets(line, sizeof line, in); number++) {
        size_t length = strlen(line);
        snprintf(where, sizeof where, "%s:%u", path, number);
        if (length == sizeof line - 1 && line[length - 1] != '\n') {
            cli_error("%s: the line is too long", where);
            fclose(in);
            return 1;
        }
        ok = add(list, count, line, length, where);
    }
    fclose(in);
    if (!ok) cli_error("out of memory");
    return !ok;
}

static void free_commands(command *list, int count) {
    for (int i = 0; i < count; i++) free(list[i].text);
    free(list);
}

int cmd_edit(int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    const char *file = NULL, *out = NULL;
    bool lenient = false;
    command *list = NULL;
    int count = 0, status = 0, given = 0;
    for (int i = 0; i < argc && !status; i++) {
        const char *a = argv[i];
        bool value = i + 1 < argc;
        if (!strcmp(a, "-o") && value) {
            out = argv[++i];
        } else if (!strcmp(a, "-e") && value) {
            char where[32];
            snprintf(where, sizeof where, "-e %d", ++given);
            if (!add(&list, &count, argv[i + 1], strlen(argv[i + 1]), where)) status = 1;
            i++;
        } else if (!strcmp(a, "--script") && value) {
            status = read_script(argv[++i], &list, &count);
        } else if (!strcmp(a, "--lenient")) {
            lenient = true;
        } else if ((a[0] == '-' && a[1]) || file) {
            status = cli_usage_error("edit: unexpected argument '%s'%s", a,
                                     !strcmp(a, "-o") || !strcmp(a, "-e") || !strcmp(a, "--script") ? " (its value is missing)" : "");
        } else {
            file = a;
        }
    }
    if (!status && (!file || !out)) status = cli_usage_error("edit: %s missing", file ? "-o OUT is" : "FILE is");
    if (!status) status = cli_check_output("edit", out);
    editor e = { .where = "" };
    if (!status && !(status = cli_load(&e.f, file, lenient))) {
        arbor_journal_desc desc = { .max_steps = count > 0 ? (uint32_t)count : 1, .max_bytes = SIZE_MAX };
        if (arbor_journal_create(e.f.scene, &desc, &e.j)) {
            cli_error("out of memory");
            status = 1;
        }
        /* Each command is one step, so undo takes back a whole command. */
        for (int i = 0; i < count && !status; i++) {
            e.where = list[i].where;
            e.count = split(list[i].text, e.words);
            if (e.count < 0) {
                status = fail(&e, "an unterminated quote, a quote glued to a word, or more than %d words", MAX_TOKENS);
            } else if (e.count > 0) {
                bool group = strcmp(e.words[0], "undo") && strcmp(e.words[0], "redo");
                if (group) arbor_journal_begin(e.j);
                status = run(&e);
                if (group && !status) arbor_journal_commit(e.j);
            }
        }
        cli_progress saving;
        cli_progress_begin(&saving, !status && e.f.size > (32u << 20), "saving", out, e.f.size / 1048576.0);
        arbor_result saved = !status ? arbor_gltf_save(e.f.scene, e.f.doc, out, NULL) : ARBOR_OK;
        cli_progress_end(&saving);
        if (!status && saved != ARBOR_OK) {
            cli_error("%s", cli_last_error());
            status = 1;
        }
        cli_close(&e.f);
        arbor_journal_destroy(e.j); /* after its scene: inert, then freed */
    }
    free_commands(list, count);
    return status;
}
