/* SPDX-License-Identifier: MIT */
/* arbor tree|info|dump|convert on a URDF file (libarbor-urdf): the robot's links and joints, at
   the joint positions the command line gives. main.c sends a command here when its file ends
   in .urdf. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arbor/gltf.h>
#include <arbor/urdf.h>

#include "cli.h"

static const char help[] =
    "usage: arbor tree|info|dump ROBOT.urdf [--json] [--joint NAME=VALUE]... [--joints FILE.json]\n"
    "       arbor convert ROBOT.urdf OUT.glb|OUT.gltf [--joint NAME=VALUE]... [--joints FILE.json]\n"
    "\n"
    "A robot of a URDF file, one node a link (in tree order: the root link first, then depth first),\n"
    "at its joint positions: every joint at 0, or at its nearest limit when 0 is outside them,\n"
    "but those the options set (radians for revolute and continuous joints, meters for\n"
    "prismatic ones). A value outside a joint's limits, a joint the robot does not have and a\n"
    "mimic joint (it follows its master: set that) are refused.\n"
    "\n"
    "  tree   the links as an indented tree, each with its joint and its position from the root\n"
    "  info   the robot: links, joints with their types, axes, limits and mimic masters, the dof\n"
    "         and the joint positions' names (--json: the same as a JSON object)\n"
    "  dump   --json: the links as `arbor dump` gives a glTF file's nodes:\n"
    "         {\"scenes\":[{\"index\":0,\"name\":ROBOT,\"nodes\":[0]}],\"nodes\":[{\"index\":0,\"name\":...,\n"
    "         \"parent\":null,\"children\":[1],\"local\":[16],\"world\":[16],\"visible\":true}]},\n"
    "         indices in link order, matrices column-major relative to the root link\n"
    "  convert  the links as the nodes of a glTF file (names, TRS at the joint positions; no\n"
    "         meshes: the URDF's geometry is not read yet)\n"
    "\n"
    "  --joint NAME=VALUE  a joint's position (repeatable)\n"
    "  --joints FILE.json  an object of joint names to positions ({\"elbow\": 0.5}); --joint\n"
    "                      after it wins\n";

bool cli_urdf_operand(int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--joints") || !strcmp(argv[i], "--joint")) {
            i++;
            continue;
        }
        size_t n = strlen(argv[i]);
        if (argv[i][0] != '-' && n > 5 && !strcasecmp(argv[i] + n - 5, ".urdf")) return true;
    }
    return false;
}

typedef struct robot {
    const char *path, *output; /* output: convert's OUT */
    arbor_scene *scene;
    arbor_urdf *urdf;
    double *q;
} robot;

/* One --joint or --joints entry into q: 0, or 1 after saying why. */
static int set_joint(robot *r, const char *name, double value) {
    int32_t k = arbor_urdf_find_joint(r->urdf, name);
    arbor_urdf_joint j;
    if (k < 0 || arbor_urdf_joint_info(r->urdf, (uint32_t)k, &j) != ARBOR_OK)
        return cli_error("%s: robot '%s' has no joint '%s'", r->path, arbor_urdf_name(r->urdf), name);
    if (j.mimic >= 0) {
        arbor_urdf_joint m;
        arbor_urdf_joint_info(r->urdf, (uint32_t)j.mimic, &m);
        return cli_error("%s: joint '%s' is a mimic of '%s': give '%s' instead", r->path, name, m.name, m.name);
    }
    if (j.position_count != 1)
        return cli_error("%s: joint '%s' %s", r->path, name, j.position_count ? "takes more than one value" : "is fixed");
    r->q[j.position_index] = value;
    return 0;
}

static int read_joints_file(robot *r, const char *path) {
    FILE *in = cli_open(path);
    json_error_t err;
    json_t *o = in ? json_loadf(in, 0, &err) : NULL;
    if (in) fclose(in);
    if (!in) return cli_error("%s: cannot read the joint positions", path);
    if (!o) return cli_error("%s: line %d: %s", path, err.line, err.text);
    int status = 0;
    if (!json_is_object(o)) status = cli_error("%s: not a JSON object of joint names to positions", path);
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        if (status) break;
        if (!json_is_number(v)) status = cli_error("%s: \"%s\": not a number", path, key);
        else status = set_joint(r, key, json_number_value(v));
    }
    json_decref(o);
    return status;
}

static void close_robot(robot *r) {
    arbor_urdf_destroy(r->urdf);
    arbor_scene_destroy(r->scene);
    free(r->q);
}

/* Parses the arguments and loads the robot at its positions: 0, 1 or 2. */
static int open_robot(const char *cmd, int argc, char **argv, robot *r, bool *json) {
    memset(r, 0, sizeof *r);
    *json = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) *json = true;
        else if (!strcmp(argv[i], "--joint") || !strcmp(argv[i], "--joints")) {
            if (++i == argc) return cli_usage_error("%s needs a value", argv[i - 1]);
        } else if (argv[i][0] == '-' && argv[i][1]) return cli_usage_error("%s: not an option of %s on a URDF file", argv[i], cmd);
        else if (!r->path) r->path = argv[i];
        else if (!strcmp(cmd, "convert") && !r->output) r->output = argv[i];
        else return cli_usage_error("one URDF file, not '%s' too", argv[i]);
    }
    if (!strcmp(cmd, "convert") && !r->output) return cli_usage_error("convert: ROBOT.urdf and OUT.glb or OUT.gltf");
    int checked = r->output ? cli_check_output("convert", r->output) : 0;
    if (checked) return checked;
    if (!strcmp(cmd, "dump") && !*json) *json = true; /* the only format, as for glTF */
    if (!cli_check_input(r->path, "a URDF file")) return 1;
    if (arbor_scene_create(NULL, &r->scene) != ARBOR_OK) return cli_error("no memory");
    if (arbor_urdf_load(r->scene, r->path, NULL, &r->urdf) != ARBOR_OK) {
        int status = cli_error("%s", cli_last_error());
        close_robot(r);
        return status;
    }
    uint32_t dof = arbor_urdf_dof(r->urdf);
    r->q = calloc(dof + 1, sizeof *r->q);
    if (!r->q || arbor_urdf_positions(r->urdf, r->q, dof) != ARBOR_OK) {
        close_robot(r);
        return cli_error("no memory");
    }
    int status = 0;
    for (int i = 0; !status && i < argc; i++) {
        if (!strcmp(argv[i], "--joints")) {
            status = read_joints_file(r, argv[++i]);
        } else if (!strcmp(argv[i], "--joint")) {
            const char *eq = strchr(argv[++i], '=');
            char *end = NULL;
            double v = eq ? strtod(eq + 1, &end) : 0;
            if (!eq || end == eq + 1 || *end) {
                close_robot(r);
                return cli_usage_error("--joint %s: not NAME=VALUE", argv[i]);
            }
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - argv[i]), argv[i]);
            status = set_joint(r, name, v);
        }
    }
    if (!status && arbor_urdf_set_positions(r->urdf, r->q, dof) != ARBOR_OK)
        status = cli_error("%s: %s", r->path, cli_last_error());
    if (status) close_robot(r);
    return status;
}

static const char *type_name(arbor_urdf_joint_type t) {
    static const char *names[] = { "fixed", "revolute", "continuous", "prismatic", "floating", "planar" };
    return names[t];
}

static json_t *matrix_json(const arbor_real m[16]) {
    json_t *a = json_array();
    for (int i = 0; i < 16; i++) json_array_append_new(a, isfinite((double)m[i]) ? json_real((double)m[i]) : json_null());
    return a;
}

static int dump(robot *r) {
    uint32_t L = arbor_urdf_link_count(r->urdf);
    json_t *nodes = json_array();
    for (uint32_t i = 0; i < L; i++) {
        arbor_node n = arbor_urdf_link_node(r->urdf, i);
        arbor_real local[16], world[16];
        arbor_node_local_matrix(r->scene, n, local);
        arbor_node_world_matrix(r->scene, n, world);
        json_t *children = json_array();
        for (uint32_t c = i + 1; c < L; c++)
            if (arbor_urdf_link_parent(r->urdf, c) == (int32_t)i) json_array_append_new(children, json_integer(c));
        int32_t p = arbor_urdf_link_parent(r->urdf, i);
        json_array_append_new(nodes, json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:b}", "index", (json_int_t)i, "name",
                                               arbor_urdf_link_name(r->urdf, i), "parent", p < 0 ? json_null() : json_integer(p),
                                               "children", children, "local", matrix_json(local), "world", matrix_json(world),
                                               "visible", 1));
    }
    return cli_print_json_exact(json_pack("{s:[{s:i, s:s, s:[i]}], s:o}", "scenes", "index", 0, "name", arbor_urdf_name(r->urdf),
                                    "nodes", 0, "nodes", nodes));
}

static json_t *joint_json(const robot *r, const arbor_urdf_joint *j) {
    arbor_urdf_joint m = { 0 };
    if (j->mimic >= 0) arbor_urdf_joint_info(r->urdf, (uint32_t)j->mimic, &m);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:[f,f,f]}", "name", j->name, "type", type_name(j->type), "parent",
                          arbor_urdf_link_name(r->urdf, j->parent_link), "child", arbor_urdf_link_name(r->urdf, j->child_link),
                          "axis", j->axis[0], j->axis[1], j->axis[2]);
    json_object_set_new(o, "lower", j->has_limits ? json_real(j->lower) : json_null());
    json_object_set_new(o, "upper", j->has_limits ? json_real(j->upper) : json_null());
    json_object_set_new(o, "mimic", j->mimic >= 0 ? json_pack("{s:s, s:f, s:f}", "joint", m.name, "multiplier", j->multiplier,
                                                              "offset", j->offset)
                                                  : json_null());
    json_object_set_new(o, "position", j->position_index >= 0 ? json_integer(j->position_index) : json_null());
    json_object_set_new(o, "value", j->position_count == 1 ? json_real(r->q[j->position_index]) : json_null());
    return o;
}

static int info(robot *r, bool json) {
    uint32_t J = arbor_urdf_joint_count(r->urdf);
    if (json) {
        json_t *joints = json_array();
        for (uint32_t k = 0; k < J; k++) {
            arbor_urdf_joint j;
            arbor_urdf_joint_info(r->urdf, k, &j);
            json_array_append_new(joints, joint_json(r, &j));
        }
        return cli_print_json(json_pack("{s:s, s:s, s:i, s:i, s:o}", "file", r->path, "robot", arbor_urdf_name(r->urdf), "links",
                                        (int)arbor_urdf_link_count(r->urdf), "dof", (int)arbor_urdf_dof(r->urdf), "joints", joints));
    }
    printf("%s: robot '%s', %u links, %u joints, %u joint positions\n", r->path, arbor_urdf_name(r->urdf),
           arbor_urdf_link_count(r->urdf), J, arbor_urdf_dof(r->urdf));
    for (uint32_t k = 0; k < J; k++) {
        arbor_urdf_joint j, m;
        arbor_urdf_joint_info(r->urdf, k, &j);
        printf("  %-24s %-10s %s -> %s", j.name, type_name(j.type), arbor_urdf_link_name(r->urdf, j.parent_link),
               arbor_urdf_link_name(r->urdf, j.child_link));
        if (j.type != ARBOR_URDF_FIXED && j.type != ARBOR_URDF_FLOATING)
            printf("  axis (%g, %g, %g)", j.axis[0], j.axis[1], j.axis[2]);
        if (j.has_limits) printf("  limits [%g, %g]", j.lower, j.upper);
        if (j.mimic >= 0 && arbor_urdf_joint_info(r->urdf, (uint32_t)j.mimic, &m) == ARBOR_OK)
            printf("  mimics %s (x %g %+g)", m.name, j.multiplier, j.offset);
        if (j.position_count == 1) printf("  q[%d] = %g", j.position_index, r->q[j.position_index]);
        else if (j.position_count) printf("  q[%d..%d]", j.position_index, j.position_index + (int)j.position_count - 1);
        putchar('\n');
    }
    return 0;
}

static int tree(robot *r) {
    printf("%s: robot '%s'\n", r->path, arbor_urdf_name(r->urdf));
    uint32_t L = arbor_urdf_link_count(r->urdf);
    uint32_t *depth = calloc(L + 1, sizeof *depth);
    if (!depth) return cli_error("no memory");
    for (uint32_t i = 0; i < L; i++) { /* parents come first */
        int32_t p = arbor_urdf_link_parent(r->urdf, i);
        depth[i] = p < 0 ? 0 : depth[p] + 1;
        arbor_real w[16];
        arbor_node_world_matrix(r->scene, arbor_urdf_link_node(r->urdf, i), w);
        double at[3];
        cli_tidy3(at, w + 12);
        printf("%*s%s", (int)(2 * (depth[i] < 32 ? depth[i] : 32)), "", arbor_urdf_link_name(r->urdf, i));
        for (uint32_t k = 0; p >= 0 && k < arbor_urdf_joint_count(r->urdf); k++) {
            arbor_urdf_joint j;
            if (arbor_urdf_joint_info(r->urdf, k, &j) != ARBOR_OK || j.child_link != i) continue;
            printf("  [%s %s", type_name(j.type), j.name);
            if (j.position_count == 1) printf(" = %g", r->q[j.position_index]);
            fputs("]", stdout);
        }
        printf("  at (%g, %g, %g)\n", at[0], at[1], at[2]);
    }
    free(depth);
    return 0;
}

int cmd_urdf(const char *cmd, int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    if (strcmp(cmd, "tree") && strcmp(cmd, "info") && strcmp(cmd, "dump") && strcmp(cmd, "convert"))
        return cli_usage_error("%s does not read URDF files (tree, info, dump and convert do)", cmd);
    robot r;
    bool json;
    int status = open_robot(cmd, argc, argv, &r, &json);
    if (status) return status;
    if (!strcmp(cmd, "convert")) {
        if (arbor_gltf_save(r.scene, NULL, r.output, NULL) != ARBOR_OK) status = cli_error("%s", cli_last_error());
    } else {
        status = !strcmp(cmd, "dump") || (json && !strcmp(cmd, "tree")) ? dump(&r) : !strcmp(cmd, "info") ? info(&r, json) : tree(&r);
    }
    close_robot(&r);
    return status;
}
