/* SPDX-License-Identifier: MIT */
/* arbor tree|info|dump|convert|render on a URDF file (libarbor-urdf): the robot's links and
   joints, at the joint positions the command line gives; convert and render go through the
   robot made a GLB in memory (robot_glb), render through the glTF render path. main.c sends a command here when its file ends
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
    "       arbor render ROBOT.urdf -o OUT.png|OUT.svg [--joint NAME=VALUE]... [--joints FILE.json]\n"
    "                    [render's options: --view, --size, --labels, --overlays...]\n"
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
    "  convert  the robot as a glTF file: a node a link (in link order, names, TRS at the joint\n"
    "         positions) under a last node \"z up\" turning URDF's z up to glTF's y up; each link's\n"
    "         boxes, cylinders and spheres as the primitives of its mesh (its visuals', or its\n"
    "         collisions' when its visuals have none, in a material of their own); each node's\n"
    "         extras.urdf: the link, its joint (name, type, axis, origin, limits, mimic, position)\n"
    "         and its mesh files by name (they are not read, so not drawn)\n"
    "  render   the robot as convert makes it, drawn as `arbor render` draws a glTF file (the\n"
    "         shapes shaded), with an arrow along each moving joint's axis (red: a rotation,\n"
    "         blue: a translation); --joints is the joint positions' file here\n"
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

/* ---- the robot as glTF (convert, render) ------------------------------------------------------ */

/* One primitive's triangles, in its link's frame: at most a sphere's. */
enum { SEGMENTS = 32, STACKS = 12, SLICES = 24, MAX_V = (STACKS + 1) * (SLICES + 1), MAX_I = 6 * STACKS * SLICES };
typedef struct prim {
    double R[9], t[3]; /* the shape's origin: its vertices are R p + t */
    uint32_t nv, ni;
    float p[MAX_V][3], n[MAX_V][3];
    uint32_t i[MAX_I];
} prim;

static uint32_t vert(prim *m, double x, double y, double z, double nx, double ny, double nz) {
    const double *R = m->R, q[3] = { x, y, z }, v[3] = { nx, ny, nz };
    double w[3], len = 0;
    for (int r = 0; r < 3; r++) {
        m->p[m->nv][r] = (float)(R[3 * r] * q[0] + R[3 * r + 1] * q[1] + R[3 * r + 2] * q[2] + m->t[r]);
        w[r] = R[3 * r] * v[0] + R[3 * r + 1] * v[1] + R[3 * r + 2] * v[2];
        len += w[r] * w[r];
    }
    for (int r = 0; r < 3; r++) m->n[m->nv][r] = (float)(w[r] / sqrt(len));
    return m->nv++;
}

static void tri(prim *m, uint32_t a, uint32_t b, uint32_t c) {
    m->i[m->ni++] = a, m->i[m->ni++] = b, m->i[m->ni++] = c;
}

/* Box, cylinder (SEGMENTS sides, along z) or sphere (STACKS x SLICES) of g, counter-clockwise
   seen from outside; false for a mesh or a shape of no volume (not drawn). */
static bool triangulate(const arbor_urdf_geometry *g, prim *m) {
    const double *z = g->size, *rpy = g->origin_rpy, pi = 3.14159265358979323846;
    if (g->shape == ARBOR_URDF_MESH || !(z[0] > 0) || (g->shape == ARBOR_URDF_BOX && !(z[1] > 0 && z[2] > 0)) ||
        (g->shape == ARBOR_URDF_CYLINDER && !(z[1] > 0)))
        return false;
    double cr = cos(rpy[0]), sr = sin(rpy[0]), cp = cos(rpy[1]), sp = sin(rpy[1]), cy = cos(rpy[2]), sy = sin(rpy[2]);
    double R[9] = { cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr, sy * cp, sy * sp * sr + cy * cr,
                    sy * sp * cr - cy * sr, -sp, cp * sr, cp * cr }; /* Rz(yaw) Ry(pitch) Rx(roll) */
    memcpy(m->R, R, sizeof R);
    memcpy(m->t, g->origin_xyz, sizeof m->t);
    m->nv = m->ni = 0;
    if (g->shape == ARBOR_URDF_BOX) {
        for (int face = 0; face < 6; face++) { /* axis a, side s; b x c = a */
            int a = face / 2, b = (a + 1) % 3, c = (a + 2) % 3;
            double s = face % 2 ? -1 : 1, corner[4][2] = { { -1, -1 }, { 1, -1 }, { 1, 1 }, { -1, 1 } };
            uint32_t k[4];
            for (int v = 0; v < 4; v++) {
                double q[3], nrm[3] = { 0, 0, 0 };
                q[a] = s * z[a] / 2, q[b] = corner[v][0] * z[b] / 2, q[c] = s * corner[v][1] * z[c] / 2;
                nrm[a] = s;
                k[v] = vert(m, q[0], q[1], q[2], nrm[0], nrm[1], nrm[2]);
            }
            tri(m, k[0], k[1], k[2]);
            tri(m, k[0], k[2], k[3]);
        }
    } else if (g->shape == ARBOR_URDF_CYLINDER) {
        double r = z[0], h = z[1] / 2;
        uint32_t side = m->nv;
        for (int k = 0; k < SEGMENTS; k++) { /* the side: bottom and top rings, normals outward */
            double a = 2 * pi * k / SEGMENTS, x = cos(a), y = sin(a);
            vert(m, r * x, r * y, -h, x, y, 0);
            vert(m, r * x, r * y, h, x, y, 0);
        }
        for (uint32_t k = 0; k < SEGMENTS; k++) {
            uint32_t b0 = side + 2 * k, t0 = b0 + 1, b1 = side + 2 * ((k + 1) % SEGMENTS), t1 = b1 + 1;
            tri(m, b0, b1, t1);
            tri(m, b0, t1, t0);
        }
        for (int cap = 0; cap < 2; cap++) { /* top (+z) then bottom (-z), each a fan */
            double s = cap ? -1 : 1;
            uint32_t c = vert(m, 0, 0, s * h, 0, 0, s), first = m->nv;
            for (int k = 0; k < SEGMENTS; k++) {
                double a = 2 * pi * k / SEGMENTS;
                vert(m, r * cos(a), r * sin(a), s * h, 0, 0, s);
            }
            for (uint32_t k = 0; k < SEGMENTS; k++) {
                uint32_t a = first + k, b = first + (k + 1) % SEGMENTS;
                if (cap) tri(m, c, b, a);
                else tri(m, c, a, b);
            }
        }
    } else {
        double r = z[0];
        for (int i = 0; i <= STACKS; i++) /* from the north pole down, a seam column twice */
            for (int j = 0; j <= SLICES; j++) {
                double phi = pi * i / STACKS, theta = 2 * pi * j / SLICES;
                double x = sin(phi) * cos(theta), y = sin(phi) * sin(theta), w = cos(phi);
                vert(m, r * x, r * y, r * w, x, y, w);
            }
        for (uint32_t i = 0; i < STACKS; i++)
            for (uint32_t j = 0; j < SLICES; j++) {
                uint32_t a = i * (SLICES + 1) + j, b = a + SLICES + 1, c = b + 1, d = a + 1;
                if (i + 1 < STACKS) tri(m, a, b, c); /* none of no area at the poles */
                if (i > 0) tri(m, a, c, d);
            }
    }
    return true;
}

/* The binary buffer: each piece 4-aligned. */
typedef struct bin {
    unsigned char *data;
    size_t size, cap;
    bool failed;
} bin;

static size_t bin_put(bin *b, const void *p, size_t n) {
    size_t at = (b->size + 3) & ~(size_t)3;
    if (at + n > b->cap) {
        size_t cap = (at + n) * 2 + 4096;
        unsigned char *d = b->failed ? NULL : realloc(b->data, cap);
        if (!d) {
            b->failed = true;
            return 0;
        }
        b->data = d, b->cap = cap;
    }
    memset(b->data + b->size, 0, at - b->size);
    memcpy(b->data + at, p, n);
    b->size = at + n;
    return at;
}

/* A bufferView and its accessor of count elements of `type` (VEC3 floats with min and max, or
   SCALAR uint32 indices): the accessor's index. */
static json_int_t put_accessor(json_t *gltf, bin *b, const void *data, uint32_t count, bool vec3, int target) {
    size_t bytes = (size_t)count * (vec3 ? 12 : 4), at = bin_put(b, data, bytes);
    json_t *views = json_object_get(gltf, "bufferViews"), *accessors = json_object_get(gltf, "accessors");
    json_array_append_new(views, json_pack("{s:i, s:I, s:I, s:i}", "buffer", 0, "byteOffset", (json_int_t)at, "byteLength",
                                           (json_int_t)bytes, "target", target));
    json_t *a = json_pack("{s:I, s:i, s:i, s:s}", "bufferView", (json_int_t)json_array_size(views) - 1, "componentType",
                          vec3 ? 5126 : 5125, "count", (int)count, "type", vec3 ? "VEC3" : "SCALAR");
    if (vec3) { /* POSITION needs its bounds */
        const float *v = data;
        float lo[3] = { v[0], v[1], v[2] }, hi[3] = { v[0], v[1], v[2] };
        for (uint32_t k = 1; k < count; k++)
            for (int c = 0; c < 3; c++) lo[c] = fminf(lo[c], v[3 * k + c]), hi[c] = fmaxf(hi[c], v[3 * k + c]);
        json_object_set_new(a, "min", json_pack("[f,f,f]", (double)lo[0], (double)lo[1], (double)lo[2]));
        json_object_set_new(a, "max", json_pack("[f,f,f]", (double)hi[0], (double)hi[1], (double)hi[2]));
    }
    json_array_append_new(accessors, a);
    return (json_int_t)json_array_size(accessors) - 1;
}

static json_t *vec3_json(const double v[3]) { return json_pack("[f,f,f]", v[0], v[1], v[2]); }

/* Node extras of link i: its joint (type, axis, origin, limits, mimic, position) and its meshes
   by name. */
static json_t *link_extras(const robot *r, uint32_t i) {
    json_t *u = json_pack("{s:s}", "link", arbor_urdf_link_name(r->urdf, i));
    if (i == 0) json_object_set_new(u, "robot", json_string(arbor_urdf_name(r->urdf)));
    for (uint32_t k = 0, J = arbor_urdf_joint_count(r->urdf); k < J; k++) {
        arbor_urdf_joint j, m;
        if (arbor_urdf_joint_info(r->urdf, k, &j) != ARBOR_OK || j.child_link != i) continue;
        json_t *o = json_pack("{s:s, s:s, s:o, s:{s:o, s:o}}", "name", j.name, "type", type_name(j.type), "axis",
                              vec3_json(j.axis), "origin", "xyz", vec3_json(j.origin_xyz), "rpy", vec3_json(j.origin_rpy));
        if (j.has_limits) {
            json_object_set_new(o, "lower", json_real(j.lower));
            json_object_set_new(o, "upper", json_real(j.upper));
        }
        if (j.mimic >= 0 && arbor_urdf_joint_info(r->urdf, (uint32_t)j.mimic, &m) == ARBOR_OK) {
            json_object_set_new(o, "mimic", json_pack("{s:s, s:f, s:f}", "joint", m.name, "multiplier", j.multiplier, "offset", j.offset));
            json_object_set_new(o, "position", json_real(j.multiplier * r->q[m.position_index] + j.offset));
        } else if (j.position_count == 1) {
            json_object_set_new(o, "position", json_real(r->q[j.position_index]));
        } else if (j.position_count) {
            json_t *v = json_array();
            for (uint32_t c = 0; c < j.position_count; c++) json_array_append_new(v, json_real(r->q[j.position_index + (int)c]));
            json_object_set_new(o, "position", v);
        }
        json_object_set_new(u, "joint", o);
    }
    json_t *meshes = json_array();
    for (uint32_t g = 0, G = arbor_urdf_geometry_count(r->urdf); g < G; g++) {
        arbor_urdf_geometry x;
        if (arbor_urdf_geometry_info(r->urdf, g, &x) != ARBOR_OK || x.link != i || x.shape != ARBOR_URDF_MESH) continue;
        json_array_append_new(meshes, json_pack("{s:s, s:o, s:b, s:{s:o, s:o}}", "filename", x.mesh, "scale", vec3_json(x.size),
                                                "collision", x.collision, "origin", "xyz", vec3_json(x.origin_xyz), "rpy",
                                                vec3_json(x.origin_rpy)));
    }
    if (json_array_size(meshes)) json_object_set_new(u, "meshes", meshes);
    else json_decref(meshes);
    return json_pack("{s:o}", "urdf", u);
}

/* The robot at its positions as a GLB in memory (malloc'ed into *out): a node a link (link
   order), each link's boxes, cylinders and spheres as the primitives of its mesh (its visuals';
   its collisions' when its visuals have none, in a material of their own), joints and mesh files
   described in the nodes' extras. 0, or 1 after saying why. */
static int robot_glb(const robot *r, unsigned char **out, size_t *size) {
    json_t *gltf = json_pack("{s:{s:s, s:s}, s:i, s:[{s:s, s:[i]}], s:[], s:[], s:[], s:[], s:[]}", "asset", "version", "2.0",
                             "generator", "arbor convert (URDF)", "scene", 0, "scenes", "name", arbor_urdf_name(r->urdf), "nodes",
                             0, "nodes", "meshes", "accessors", "bufferViews", "buffers");
    json_object_set_new(gltf, "materials", json_array());
    json_int_t material[2] = { -1, -1 }; /* visual, collision: added when first used */
    json_t *nodes = json_object_get(gltf, "nodes"), *meshes = json_object_get(gltf, "meshes");
    bin b = { 0 };
    prim *m = malloc(sizeof *m);
    uint32_t L = arbor_urdf_link_count(r->urdf), G = arbor_urdf_geometry_count(r->urdf);
    for (uint32_t i = 0; m && i < L; i++) {
        arbor_trs trs;
        arbor_node_trs(r->scene, arbor_urdf_link_node(r->urdf, i), &trs);
        json_t *node = json_pack("{s:s, s:[f,f,f], s:[f,f,f,f]}", "name", arbor_urdf_link_name(r->urdf, i), "translation",
                                 (double)trs.translation[0], (double)trs.translation[1], (double)trs.translation[2], "rotation",
                                 (double)trs.rotation[0], (double)trs.rotation[1], (double)trs.rotation[2], (double)trs.rotation[3]);
        json_t *children = json_array(), *prims = json_array();
        for (uint32_t c = i + 1; c < L; c++)
            if (arbor_urdf_link_parent(r->urdf, c) == (int32_t)i) json_array_append_new(children, json_integer(c));
        for (int collision = 0; collision < 2 && !json_array_size(prims); collision++)
            for (uint32_t g = 0; g < G; g++) {
                arbor_urdf_geometry x;
                if (arbor_urdf_geometry_info(r->urdf, g, &x) != ARBOR_OK || x.link != i || x.collision != collision ||
                    !triangulate(&x, m))
                    continue;
                json_int_t pos = put_accessor(gltf, &b, m->p, m->nv, true, 34962), nrm = put_accessor(gltf, &b, m->n, m->nv, true, 34962);
                json_int_t idx = put_accessor(gltf, &b, m->i, m->ni, false, 34963);
                json_t *materials = json_object_get(gltf, "materials");
                if (material[collision] < 0) {
                    double grey = collision ? 0.25 : 0.75; /* collisions orange, visuals grey */
                    json_array_append_new(materials, json_pack("{s:s, s:{s:[f,f,f,f], s:f, s:f}}", "name",
                                                               collision ? "urdf collision" : "urdf visual", "pbrMetallicRoughness",
                                                               "baseColorFactor", collision ? 0.95 : 0.72, collision ? 0.6 : 0.74,
                                                               grey + 0.03, 1.0, "metallicFactor", 0.0, "roughnessFactor", 0.8));
                    material[collision] = (json_int_t)json_array_size(materials) - 1;
                }
                json_array_append_new(prims, json_pack("{s:{s:I, s:I}, s:I, s:I}", "attributes", "POSITION", pos, "NORMAL", nrm,
                                                       "indices", idx, "material", material[collision]));
            }
        if (json_array_size(children)) json_object_set_new(node, "children", children);
        else json_decref(children);
        if (json_array_size(prims)) {
            json_array_append_new(meshes, json_pack("{s:s, s:o}", "name", arbor_urdf_link_name(r->urdf, i), "primitives", prims));
            json_object_set_new(node, "mesh", json_integer((json_int_t)json_array_size(meshes) - 1));
        } else {
            json_decref(prims);
        }
        json_object_set_new(node, "extras", link_extras(r, i));
        json_array_append_new(nodes, node);
    }
    free(m);
    /* URDF is z up, glTF y up: the root link under a node turning z up to y up */
    json_array_append_new(nodes, json_pack("{s:s, s:[f,f,f,f], s:[i]}", "name", "z up", "rotation", -sqrt(0.5), 0.0, 0.0, sqrt(0.5),
                                           "children", 0));
    json_array_set_new(json_object_get(json_array_get(json_object_get(gltf, "scenes"), 0), "nodes"), 0, json_integer(L));
    if (b.size) json_array_append_new(json_object_get(gltf, "buffers"), json_pack("{s:I}", "byteLength", (json_int_t)b.size));
    const char *empty[] = { "meshes", "accessors", "bufferViews", "buffers", "materials" };
    for (int k = 0; k < 5; k++)
        if (!json_array_size(json_object_get(gltf, empty[k]))) json_object_del(gltf, empty[k]);
    char *text = m && !b.failed ? json_dumps(gltf, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(gltf);
    size_t jn = text ? (strlen(text) + 3) & ~(size_t)3 : 0, bn = (b.size + 3) & ~(size_t)3;
    size_t total = 12 + 8 + jn + (b.size ? 8 + bn : 0);
    unsigned char *glb = text ? calloc(total, 1) : NULL;
    if (!glb) {
        free(text);
        free(b.data);
        return cli_error("no memory");
    }
    uint32_t head[5] = { 0x46546C67, 2, (uint32_t)total, (uint32_t)jn, 0x4E4F534A }; /* "glTF", 2, length; "JSON" */
    memcpy(glb, head, sizeof head); /* little-endian, as GLB is */
    memset(glb + 20, ' ', jn);
    memcpy(glb + 20, text, strlen(text));
    if (b.size) {
        uint32_t chunk[2] = { (uint32_t)bn, 0x004E4942 }; /* "BIN" */
        memcpy(glb + 20 + jn, chunk, sizeof chunk);
        memcpy(glb + 28 + jn, b.data, b.size);
    }
    free(text);
    free(b.data);
    *out = glb, *size = total;
    return 0;
}

/* The robot's GLB loaded as a glTF file named as the URDF file: 0, or 1 after saying why. */
static int robot_file(const robot *r, cli_file *f) {
    *f = (cli_file){ .path = r->path };
    if (robot_glb(r, &f->bytes, &f->size)) return 1;
    arbor_gltf_options options = ARBOR_GLTF_OPTIONS_DEFAULT;
    if (arbor_scene_create(NULL, &f->scene) != ARBOR_OK ||
        arbor_gltf_load_memory(f->scene, f->bytes, f->size, ".", &options, &f->doc) != ARBOR_OK) {
        int status = cli_error("%s: %s", r->path, f->scene ? cli_last_error() : "no memory");
        cli_close(f);
        return status;
    }
    arbor_scene_update(f->scene);
    return 0;
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

/* render: the joint options and the robot's file go to open_robot, the rest to render. */
static int render(int argc, char **argv) {
    char **mine = malloc(sizeof *argv * ((size_t)argc + 1)), **theirs = malloc(sizeof *argv * ((size_t)argc + 1));
    int m = 0, t = 0;
    for (int i = 0; mine && theirs && i < argc; i++) {
        size_t n = strlen(argv[i]);
        bool joint = !strcmp(argv[i], "--joint") || !strcmp(argv[i], "--joints");
        if (joint && i + 1 < argc) mine[m++] = argv[i++];
        if (joint || (argv[i][0] != '-' && n > 5 && !strcasecmp(argv[i] + n - 5, ".urdf") && (i == 0 || strcmp(argv[i - 1], "-o"))))
            mine[m++] = argv[i];
        if (!joint) theirs[t++] = argv[i];
    }
    robot r;
    bool json;
    cli_file f;
    int status = !mine || !theirs ? cli_error("no memory") : open_robot("render", m, mine, &r, &json);
    if (!status) {
        status = robot_file(&r, &f);
        close_robot(&r);
        if (!status) status = cli_render(t, theirs, &f);
    }
    free(mine);
    free(theirs);
    return status;
}

int cmd_urdf(const char *cmd, int argc, char **argv) {
    if (cli_wants_help(argc, argv, help)) return 0;
    if (strcmp(cmd, "tree") && strcmp(cmd, "info") && strcmp(cmd, "dump") && strcmp(cmd, "convert") && strcmp(cmd, "render"))
        return cli_usage_error("%s does not read URDF files (tree, info, dump, convert and render do)", cmd);
    if (!strcmp(cmd, "render")) return render(argc, argv);
    robot r;
    bool json;
    int status = open_robot(cmd, argc, argv, &r, &json);
    if (status) return status;
    if (!strcmp(cmd, "convert")) {
        cli_file f;
        if (!(status = robot_file(&r, &f))) {
            if (arbor_gltf_save(f.scene, f.doc, r.output, NULL) != ARBOR_OK) status = cli_error("%s", cli_last_error());
            cli_close(&f);
        }
    } else {
        status = !strcmp(cmd, "dump") || (json && !strcmp(cmd, "tree")) ? dump(&r) : !strcmp(cmd, "info") ? info(&r, json) : tree(&r);
    }
    close_robot(&r);
    return status;
}
