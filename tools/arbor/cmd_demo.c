/* SPDX-License-Identifier: MIT */
/* arbor demo: the robot arm of the course (seed 002, sections 4, 6 and 14), built as nodes;
   --save writes it as glTF with a box mesh per part (section 11's boxes). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DEMO_PI 3.14159265358979323846

typedef struct demo_arm {
    arbor_scene *scene;
    arbor_node base, joint, arm, hand, mirror, joint2, arm2, hand2;
} demo_arm;

static arbor_node add(arbor_scene *s, const char *name, arbor_node parent, arbor_real ty, arbor_real sx) {
    arbor_node n = ARBOR_NONE;
    arbor_node_create(s, &(arbor_node_desc){ .name = name, .parent = parent, .translation = {0, ty, 0},
                                             .scale = {sx, 1, 1} }, &n);
    return n;
}

/* The tree: base > joint > arm > hand, and base > mirror S(-1, 1, 1) > joint2 > arm2 > hand2,
   so that L_arm2 = S(-1, 1, 1) L_arm as in section 6. The pivot sandwich of section 4 is the
   joint node (lift and bend) with the arm node (half-length offset) under it (section 14). */
static demo_arm build(void) {
    demo_arm d = { .scene = NULL };
    if (arbor_scene_create(NULL, &d.scene) != ARBOR_OK) return d;
    d.base = add(d.scene, "base", ARBOR_NONE, 0.2f, 1);
    d.joint = add(d.scene, "joint", d.base, 0.2f, 1);
    d.arm = add(d.scene, "arm", d.joint, 0.7f, 1);
    d.hand = add(d.scene, "hand", d.arm, 0.7f, 1);
    d.mirror = add(d.scene, "mirror", d.base, 0, -1);
    d.joint2 = add(d.scene, "joint2", d.mirror, 0.2f, 1);
    d.arm2 = add(d.scene, "arm2", d.joint2, 0.7f, 1);
    d.hand2 = add(d.scene, "hand2", d.arm2, 0.7f, 1);
    return d;
}

static void pose(demo_arm *d, double yaw_deg, double bend_deg) {
    const arbor_real up[3] = {0, 1, 0}, forward[3] = {0, 0, 1};
    arbor_real q[4];
    arbor_quat_from_axis_angle(q, up, (arbor_real)(yaw_deg * DEMO_PI / 180));
    arbor_node_set_rotation(d->scene, d->base, q[0], q[1], q[2], q[3]);
    arbor_quat_from_axis_angle(q, forward, (arbor_real)(bend_deg * DEMO_PI / 180));
    arbor_node_set_rotation(d->scene, d->joint, q[0], q[1], q[2], q[3]);
    arbor_node_set_rotation(d->scene, d->joint2, q[0], q[1], q[2], q[3]);
    arbor_scene_update(d->scene);
}

/* Two decimals, as the course prints them, without a "-0.00" for a rounding residue. */
static double tidy(arbor_real v) { return fabs((double)v) < 0.005 ? 0.0 : (double)v; }

static void print_node(arbor_scene *s, arbor_node n) {
    arbor_real w[16];
    arbor_node_world_matrix(s, n, w);
    printf("  %-7s at (%6.2f, %5.2f, %5.2f)   det %+.0f\n", arbor_node_name(s, n), tidy(w[12]), tidy(w[13]), tidy(w[14]),
           (double)arbor_mat4_determinant3(w));
    for (int r = 0; r < 4; r++)
        printf("          | %6.2f %6.2f %6.2f %6.2f |\n", tidy(w[r]), tidy(w[4 + r]), tidy(w[8 + r]), tidy(w[12 + r]));
}

static void print_pose(demo_arm *d, double yaw, double bend) {
    pose(d, yaw, bend);
    printf("base yaw %g deg, bend %g deg: world matrices (rows) and origins\n", yaw, bend);
    const arbor_node shown[] = {d->base, d->arm, d->hand, d->arm2, d->hand2};
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) print_node(d->scene, shown[i]);
}

static bool parse_degrees(const char *text, double *out) {
    char *end;
    *out = strtod(text, &end);
    return end != text && *end == '\0' && isfinite(*out);
}

/* ---- --save: the arm as glTF, a box mesh per part ------------------------------------------- */

/* Half-extents of the parts' boxes (seed 002 section 11); each box is centred on its node. */
static const char *const box_names[] = { "base", "arm", "hand" };
static const double box_half[][3] = { { 0.35, 0.2, 0.35 }, { 0.12, 0.7, 0.12 }, { 0.22, 0.12, 0.22 } };
#define BOX_COUNT 3
#define BOX_POSITIONS (8 * 3 * 4) /* 8 corners, float VEC3 */
#define BOX_INDICES (36 * 2)      /* 12 triangles, uint16 */

/* Corner c of a box is (x, y, z) = bits (0, 1, 2) of c, each bit choosing max over min. Two
   triangles per face, counter-clockwise seen from outside. */
static const uint16_t box_triangles[36] = {
    1, 3, 7, 1, 7, 5,  /* +X */ 0, 4, 6, 0, 6, 2, /* -X */
    2, 6, 7, 2, 7, 3,  /* +Y */ 0, 1, 5, 0, 5, 4, /* -Y */
    4, 5, 7, 4, 7, 6,  /* +Z */ 0, 2, 3, 0, 3, 1, /* -Z */
};

static void put_le(uint8_t *p, uint32_t v, int bytes) {
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static char *base64(const uint8_t *data, size_t n) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
    if (!out) return NULL;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < n ? (uint32_t)data[i + 1] << 8 : 0) | (i + 2 < n ? data[i + 2] : 0);
        *o++ = digits[v >> 18];
        *o++ = digits[(v >> 12) & 63];
        *o++ = i + 1 < n ? digits[(v >> 6) & 63] : '=';
        *o++ = i + 2 < n ? digits[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* Written as decimals (0.35): the validator reads min and max at the data's float precision. */
static json_t *vec3(const double v[3]) { return json_pack("[f,f,f]", v[0], v[1], v[2]); }

/* A glTF document holding only the box meshes, one buffer as a data: URI: positions of every
   box (byteStride 12), then their indices. */
static char *mesh_document(void) {
    uint8_t bytes[BOX_COUNT * (BOX_POSITIONS + BOX_INDICES)];
    json_t *meshes = json_array(), *accessors = json_array();
    for (int b = 0; b < BOX_COUNT; b++) {
        double lo[3], hi[3];
        for (int k = 0; k < 3; k++) lo[k] = -(hi[k] = box_half[b][k]);
        for (int c = 0; c < 8; c++) {
            for (int k = 0; k < 3; k++) {
                float v = (float)((c >> k) & 1 ? hi[k] : lo[k]);
                uint32_t u;
                memcpy(&u, &v, 4);
                put_le(bytes + b * BOX_POSITIONS + (c * 3 + k) * 4, u, 4);
            }
        }
        for (int i = 0; i < 36; i++) put_le(bytes + BOX_COUNT * BOX_POSITIONS + b * BOX_INDICES + i * 2, box_triangles[i], 2);
        json_array_append_new(accessors, json_pack("{s:i,s:i,s:i,s:i,s:s,s:o,s:o}", "bufferView", 0, "byteOffset",
                                                   b * BOX_POSITIONS, "componentType", 5126, "count", 8, "type", "VEC3",
                                                   "min", vec3(lo), "max", vec3(hi)));
        json_array_append_new(accessors, json_pack("{s:i,s:i,s:i,s:i,s:s}", "bufferView", 1, "byteOffset", b * BOX_INDICES,
                                                   "componentType", 5123, "count", 36, "type", "SCALAR"));
        char name[32];
        snprintf(name, sizeof name, "%s box", box_names[b]);
        json_array_append_new(meshes, json_pack("{s:s,s:[{s:{s:i},s:i}]}", "name", name, "primitives", "attributes",
                                                "POSITION", 2 * b, "indices", 2 * b + 1));
    }
    char *encoded = base64(bytes, sizeof bytes);
    json_t *doc = json_pack(
        "{s:{s:s},s:i,s:[{s:s}],s:o,s:o,s:[{s:i,s:i,s:i,s:i,s:i},{s:i,s:i,s:i,s:i}],s:[{s:i,s:s+}]}", "asset", "version",
        "2.0", "scene", 0, "scenes", "name", "robot arm", "meshes", meshes, "accessors", accessors, "bufferViews",
        "buffer", 0, "byteOffset", 0, "byteLength", BOX_COUNT * BOX_POSITIONS, "byteStride", 12, "target", 34962,
        "buffer", 0, "byteOffset", BOX_COUNT * BOX_POSITIONS, "byteLength", BOX_COUNT * BOX_INDICES, "target", 34963,
        "buffers", "byteLength", (int)sizeof bytes, "uri", "data:application/octet-stream;base64,",
        encoded ? encoded : "");
    free(encoded);
    char *text = doc && encoded ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    return text;
}

/* Loads the meshes as a document (it has no nodes), hangs them on the arm's parts (the second
   arm instances the first arm's boxes) and saves the scene through that document. */
static int save_gltf(demo_arm *d, const char *path) {
    char *json = mesh_document();
    arbor_gltf *doc = NULL;
    arbor_result r = json ? arbor_gltf_load_memory(d->scene, json, strlen(json), NULL, NULL, &doc)
                          : ARBOR_ERR_OUT_OF_MEMORY;
    free(json);
    const struct { arbor_node node; int32_t mesh; } parts[] = {
        { d->base, 0 }, { d->arm, 1 }, { d->hand, 2 }, { d->arm2, 1 }, { d->hand2, 2 },
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0] && r == ARBOR_OK; i++) {
        const double *h = box_half[parts[i].mesh];
        const arbor_real hi[3] = { (arbor_real)h[0], (arbor_real)h[1], (arbor_real)h[2] };
        const arbor_real lo[3] = { -hi[0], -hi[1], -hi[2] };
        r = arbor_node_set_mesh(d->scene, parts[i].node, parts[i].mesh);
        if (r == ARBOR_OK) r = arbor_node_set_bounds(d->scene, parts[i].node, lo, hi);
    }
    if (r == ARBOR_OK) r = arbor_gltf_save(d->scene, doc, path, NULL);
    arbor_gltf_destroy(doc);
    if (r != ARBOR_OK) {
        cli_error("%s", json ? cli_last_error() : "out of memory");
        return 1;
    }
    printf("wrote %s\n", path);
    return 0;
}

int cmd_demo(int argc, char **argv) {
    double yaw = 30, bend = 40;
    bool given = false;
    const char *save = NULL;
    for (int i = 0; i < argc; i += 2) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs("usage: arbor demo [--yaw DEG] [--bend DEG] [--save FILE]\n"
                  "\n"
                  "Builds the course's robot arm (base > joint > arm > hand, and a second arm under a\n"
                  "mirror S(-1, 1, 1)) and prints its world matrices and positions; without options at\n"
                  "yaw 30 and yaw 90, bend 40.\n"
                  "\n"
                  "  --yaw DEG    the base's turn about +Y (default 30)\n"
                  "  --bend DEG   the joints' bend about +Z (default 40)\n"
                  "  --save FILE  write the posed arm as glTF (.gltf or .glb) with a box mesh per part\n"
                  "               instead of printing it\n",
                  stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--save")) {
            if (i + 1 >= argc) return cli_usage_error("demo: --save needs a file name");
            save = argv[i + 1];
            int bad = cli_check_output("demo", save);
            if (bad) return bad;
            continue;
        }
        double *target = !strcmp(argv[i], "--yaw") ? &yaw : !strcmp(argv[i], "--bend") ? &bend : NULL;
        if (!target) return cli_usage_error("demo: unknown option '%s'", argv[i]);
        if (i + 1 >= argc || !parse_degrees(argv[i + 1], target))
            return cli_usage_error("demo: %s needs a number of degrees", argv[i]);
        given = true;
    }
    demo_arm d = build();
    if (!d.scene) {
        cli_error("out of memory");
        return 1;
    }
    int status = 0;
    if (save) {
        pose(&d, yaw, bend);
        status = save_gltf(&d, save);
    } else {
        print_pose(&d, yaw, bend);
        if (!given) {
            printf("\n");
            print_pose(&d, 90, bend);
        }
    }
    arbor_scene_destroy(d.scene);
    return status;
}
