/* SPDX-License-Identifier: MIT */
/* The camera `arbor cull` and `arbor render` look through: named, the file's first, or made to
   frame the scene. */
#include <math.h>
#include <string.h>

#include "cli.h"

/* The node labelled name (cli_node_label), or ARBOR_NONE. */
static arbor_node find_label(const cli_file *f, const char *name) {
    for (arbor_node n = arbor_scene_next_node(f->scene, ARBOR_NONE); !arbor_node_is_none(n);
         n = arbor_scene_next_node(f->scene, n)) {
        char buf[32];
        if (!strcmp(cli_node_label(f, n, buf), name)) return n;
    }
    return ARBOR_NONE;
}

/* A perspective camera, made a root of the scene, that frames every world box and node origin:
   it looks at their box's centre from the front, right and above, far enough for the box's
   bounding sphere to fit the vertical field of view. */
static arbor_node make_framing_camera(cli_file *f, const unsigned char *in) {
    arbor_scene *s = f->scene;
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t i = 0, count = arbor_gltf_node_count(f->doc); i < count; i++) {
        arbor_node n = arbor_gltf_node(f->doc, i);
        if (!in[i] || arbor_node_is_none(n)) continue;
        arbor_real w[16], min[3], max[3];
        arbor_node_world_matrix(s, n, w);
        arbor_node_world_bounds(s, n, min, max);
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], fmin(w[12 + k], min[k]));
            hi[k] = fmax(hi[k], fmax(w[12 + k], max[k]));
        }
    }
    double center[3], radius = 0;
    for (int k = 0; k < 3; k++) {
        center[k] = isfinite(lo[k]) ? (lo[k] + hi[k]) / 2 : 0;
        radius += isfinite(lo[k]) ? (hi[k] - lo[k]) * (hi[k] - lo[k]) / 4 : 0;
    }
    radius = radius > 1e-12 ? sqrt(radius) : 1;
    const double yfov = 0.8, direction[3] = { 0.45, 0.4, 0.8 }; /* roughly unit: front, right, above */
    double distance = 1.1 * radius / sin(yfov / 2);
    arbor_real eye[3], target[3];
    for (int k = 0; k < 3; k++) {
        eye[k] = (arbor_real)(center[k] + distance * direction[k]);
        target[k] = (arbor_real)center[k];
    }
    arbor_node camera = ARBOR_NONE;
    const arbor_camera c = { ARBOR_CAMERA_PERSPECTIVE, (arbor_real)yfov, 0, 0, 0,
                             (arbor_real)fmax(distance - 1.5 * radius, distance * 1e-3), (arbor_real)(distance + 1.5 * radius) };
    if (arbor_node_create(s, &(arbor_node_desc){ .name = "arbor framing camera" }, &camera) ||
        arbor_node_set_camera(s, camera, &c) || arbor_camera_look_at(s, camera, eye, target, (arbor_real[3]){ 0, 1, 0 }))
        return ARBOR_NONE;
    return camera;
}

int cli_view_pick(const char *cmd, cli_file *f, int32_t scene, const char *name, cli_view *out) {
    *out = (cli_view){ .camera = ARBOR_NONE };
    arbor_camera c;
    unsigned char *in = cli_scene_members(f, scene);
    if (!in) {
        cli_error("out of memory");
        return 1;
    }
    if (name) {
        free(in);
        in = NULL;
        out->camera = find_label(f, name);
        if (arbor_node_is_none(out->camera) || arbor_node_camera(f->scene, out->camera, &c)) {
            /* The names there are: the nodes carrying a camera. */
            if (arbor_node_is_none(out->camera))
                fprintf(stderr, "arbor: %s: %s has no node \"%s\"; the cameras are on:", cmd, f->path, name);
            else
                fprintf(stderr, "arbor: %s: node \"%s\" of %s carries no camera; the cameras are on:", cmd, name, f->path);
            uint32_t shown = 0;
            for (uint32_t i = 0, count = arbor_gltf_node_count(f->doc); i < count; i++) {
                arbor_node n = arbor_gltf_node(f->doc, i);
                char buf[32], path[512];
                if (arbor_node_is_none(n) || arbor_node_camera(f->scene, n, &c)) continue;
                fprintf(stderr, "%s %s (%s)", shown++ ? "," : "", cli_node_label(f, n, buf), cli_node_path(f, n, path, sizeof path));
            }
            fprintf(stderr, "%s\n", shown ? "" : " none (the file has no cameras)");
            return cli_usage_error("%s: no camera \"%s\"", cmd, name);
        }
        snprintf(out->what, sizeof out->what, "node \"%s\"", name);
    } else {
        for (uint32_t i = 0, count = arbor_gltf_node_count(f->doc); i < count; i++) {
            arbor_node n = arbor_gltf_node(f->doc, i);
            if (in[i] && !arbor_node_is_none(n) && arbor_node_camera(f->scene, n, &c) == ARBOR_OK) {
                char buf[32];
                out->camera = n;
                snprintf(out->what, sizeof out->what, "the file's first, node \"%s\"", cli_node_label(f, n, buf));
                break;
            }
        }
    }
    if (arbor_node_is_none(out->camera) && in) {
        out->camera = make_framing_camera(f, in);
        out->made = true;
        if (arbor_node_is_none(out->camera) || arbor_node_camera(f->scene, out->camera, &c)) {
            cli_error("no camera could be made: %s", cli_last_error());
            free(in);
            return 1;
        }
        snprintf(out->what, sizeof out->what, "none in the file's scene, one made to frame the scene");
    }
    free(in);
    out->aspect = c.type == ARBOR_CAMERA_ORTHOGRAPHIC ? c.xmag / c.ymag : c.aspect > 0 ? c.aspect : (arbor_real)4 / 3;
    if (out->aspect < 0) out->aspect = -out->aspect;
    size_t used = strlen(out->what);
    if (c.type == ARBOR_CAMERA_PERSPECTIVE)
        snprintf(out->what + used, sizeof out->what - used, " (perspective, yfov %.3g, aspect %.3g, znear %.3g, zfar %.3g)",
                 (double)c.yfov, (double)out->aspect, (double)c.znear, (double)c.zfar);
    else
        snprintf(out->what + used, sizeof out->what - used, " (orthographic, xmag %.3g, ymag %.3g, znear %.3g, zfar %.3g)",
                 (double)c.xmag, (double)c.ymag, (double)c.znear, (double)c.zfar);
    if (arbor_camera_view_projection(f->scene, out->camera, out->aspect, out->view_projection)) {
        cli_error("%s", cli_last_error());
        return 1;
    }
    return 0;
}
