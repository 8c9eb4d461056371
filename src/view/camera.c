/* SPDX-License-Identifier: MIT */
/*
 * Cameras as nodes (seed 002 section 10, seed 000): the view matrix is the inverse of the camera
 * node's world matrix, the projection is glTF's, and the controllers (orbit, look-at, free)
 * write the node's local translation and rotation, and nothing else.
 */
#include <math.h>

#include "view_internal.h"

/* V = W^-1 of the camera node. */
static arbor_result view(arbor_scene *s, arbor_node camera, arbor_real out[16], const char *fn) {
    arbor_real w[16];
    arbor_result r = arbor__world_of(s, camera, false, w, fn);
    if (r) return r;
    if (!arbor_mat4_invert_affine(out, w))
        return arbor__fail(ARBOR_ERR_SINGULAR, fn, "the world matrix of node " ARBOR__NODE_FMT " cannot be inverted",
                           ARBOR__NODE_ARGS(s, arbor__slot(s, camera)));
    return ARBOR_OK;
}

/* glTF's projection of c (appendix "Projection Matrices"), aspect already chosen. */
static void projection(const arbor_camera *c, double aspect, arbor_real out[16]) {
    double m[16] = { 0 }, n = c->znear, f = c->zfar;
    if (c->type == ARBOR_CAMERA_PERSPECTIVE) {
        double t = tan(0.5 * (double)c->yfov);
        m[0] = 1 / (aspect * t);
        m[5] = 1 / t;
        m[11] = -1;
        if (f == 0) { /* infinite */
            m[10] = -1;
            m[14] = -2 * n;
        } else {
            m[10] = (f + n) / (n - f);
            m[14] = 2 * f * n / (n - f);
        }
    } else {
        m[0] = 1 / (double)c->xmag;
        m[5] = 1 / (double)c->ymag;
        m[10] = 2 / (n - f);
        m[14] = (f + n) / (n - f);
        m[15] = 1;
    }
    for (int i = 0; i < 16; i++) out[i] = (arbor_real)m[i];
}

/* The projection of the node's camera, aspect given or the camera's. */
static arbor_result camera_projection(const arbor_scene *s, arbor_node camera, arbor_real aspect, arbor_real out[16],
                                      const char *fn) {
    arbor_result r = ARBOR_OK;
    uint32_t slot;
    const arbor__attachment *a = arbor__carrying(s, camera, ARBOR__HAS_CAMERA, &slot, &r, fn);
    if (!a) return r;
    const arbor_camera *c = &a->camera;
    if (!arbor__all_finite(&aspect, 1)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "aspect is not finite");
    if (aspect < 0) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "aspect %g is negative", (double)aspect);
    if (aspect == 0) aspect = c->aspect;
    if (c->type == ARBOR_CAMERA_PERSPECTIVE && aspect == 0)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the camera of node " ARBOR__NODE_FMT " has no aspect ratio and none was given",
                           ARBOR__NODE_ARGS(s, slot));
    projection(c, (double)aspect, out);
    return ARBOR_OK;
}

arbor_result arbor_camera_view_matrix(arbor_scene *s, arbor_node camera, arbor_real out[16]) {
    ARBOR__REQUIRE_OUT(out, "arbor_camera_view_matrix");
    return view(s, camera, out, "arbor_camera_view_matrix");
}

arbor_result arbor_camera_projection_matrix(const arbor_scene *s, arbor_node camera, arbor_real aspect,
                                            arbor_real out[16]) {
    ARBOR__REQUIRE_OUT(out, "arbor_camera_projection_matrix");
    return camera_projection(s, camera, aspect, out, "arbor_camera_projection_matrix");
}

arbor_result arbor_camera_view_projection(arbor_scene *s, arbor_node camera, arbor_real aspect, arbor_real out[16]) {
    ARBOR__REQUIRE_OUT(out, "arbor_camera_view_projection");
    static const char *const fn = "arbor_camera_view_projection";
    arbor_real p[16], v[16];
    arbor_result r = camera_projection(s, camera, aspect, p, fn);
    if (!r) r = view(s, camera, v, fn);
    if (r) return r;
    arbor_mat4_mul(out, p, v);
    return ARBOR_OK;
}

/* ---- controllers -------------------------------------------------------------------------- */

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(double out[3], const double a[3], const double b[3]) {
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* v / |v|; false when v has no length. */
static bool normalize3(double v[3]) {
    double length = sqrt(dot3(v, v));
    if (!(length > 0)) return false;
    for (int k = 0; k < 3; k++) v[k] /= length;
    return true;
}

/* The node's pose in its parent's frame: the eye at `eye`, the node's axes x, y and z (unit,
   right-handed; the camera looks down -z). Keeps the scale; a locked matrix is refused. */
static arbor_result set_pose(arbor_scene *s, arbor_node camera, const double eye[3], const double x[3],
                             const double y[3], const double z[3], const char *fn) {
    arbor_result r = ARBOR_OK;
    uint32_t slot = arbor__require(s, camera, fn, &r);
    if (!slot) return r;
    if (s->n.flags[slot] & ARBOR__LOCKED)
        return arbor__fail(ARBOR_ERR_LOCKED, fn, "node " ARBOR__NODE_FMT " has a locked local matrix", ARBOR__NODE_ARGS(s, slot));
    arbor_trs trs;
    arbor_real basis[16];
    arbor_node_trs(s, camera, &trs); /* the scale kept (a matrix's decomposed scale) */
    for (int k = 0; k < 3; k++) {
        basis[k] = (arbor_real)x[k];
        basis[4 + k] = (arbor_real)y[k];
        basis[8 + k] = (arbor_real)z[k];
        basis[3 + 4 * k] = 0;
        basis[12 + k] = 0;
        trs.translation[k] = (arbor_real)eye[k];
    }
    basis[15] = 1;
    arbor_quat_from_mat4(trs.rotation, basis);
    if (!arbor__all_finite(trs.translation, 3))
        return arbor__fail(ARBOR_ERR_NONFINITE, fn, "the eye (%g, %g, %g) is beyond arbor_real's range", eye[0], eye[1], eye[2]);
    return arbor_node_set_trs(s, camera, &trs);
}

arbor_result arbor_camera_orbit(arbor_scene *s, arbor_node camera, arbor_real alpha, arbor_real beta, arbor_real radius,
                                const arbor_real target[3]) {
    ARBOR__REQUIRE_OUT(target, "arbor_camera_orbit");
    static const char *const fn = "arbor_camera_orbit";
    const arbor_real v[6] = { alpha, beta, radius, target[0], target[1], target[2] };
    if (!arbor__all_finite(v, 6)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "alpha, beta, radius or target is not finite");
    if (!(radius > 0)) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "radius %g is not positive", (double)radius);
    double ca = cos((double)alpha), sa = sin((double)alpha), cb = cos((double)beta), sb = sin((double)beta);
    double z[3] = { ca * sb, cb, sa * sb }, eye[3], y[3];
    /* x = normalize(up x z) = (sin a, 0, -cos a) times the sign of sin b: defined at the poles
       too, where it is the limit from the side of the orbit the camera is on. */
    double side = sb < 0 ? -1 : 1, x[3] = { side * sa, 0, -side * ca };
    cross3(y, z, x);
    for (int k = 0; k < 3; k++) eye[k] = (double)target[k] + (double)radius * z[k];
    return set_pose(s, camera, eye, x, y, z, fn);
}

arbor_result arbor_camera_look_at(arbor_scene *s, arbor_node camera, const arbor_real eye[3], const arbor_real target[3],
                                  const arbor_real up[3]) {
    ARBOR__REQUIRE_OUT(eye, "arbor_camera_look_at");
    ARBOR__REQUIRE_OUT(target, "arbor_camera_look_at");
    ARBOR__REQUIRE_OUT(up, "arbor_camera_look_at");
    static const char *const fn = "arbor_camera_look_at";
    const arbor_real v[9] = { eye[0], eye[1], eye[2], target[0], target[1], target[2], up[0], up[1], up[2] };
    if (!arbor__all_finite(v, 9)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "eye, target or up is not finite");
    double e[3] = { eye[0], eye[1], eye[2] }, u[3] = { up[0], up[1], up[2] }, z[3], x[3], y[3];
    for (int k = 0; k < 3; k++) z[k] = e[k] - (double)target[k];
    if (!normalize3(z)) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "eye and target are the same point");
    cross3(x, u, z);
    if (!(sqrt(dot3(x, x)) > 1e-6 * sqrt(dot3(u, u))) || !normalize3(x))
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "up (%g, %g, %g) is zero or along the line of sight",
                           (double)up[0], (double)up[1], (double)up[2]);
    cross3(y, z, x);
    return set_pose(s, camera, e, x, y, z, fn);
}

arbor_result arbor_camera_fly(arbor_scene *s, arbor_node camera, const arbor_real position[3], arbor_real yaw,
                               arbor_real pitch) {
    static const char *const fn = "arbor_camera_fly";
    ARBOR__REQUIRE_OUT(position, fn);
    const arbor_real v[5] = { position[0], position[1], position[2], yaw, pitch };
    if (!arbor__all_finite(v, 5)) return arbor__fail(ARBOR_ERR_NONFINITE, fn, "position, yaw or pitch is not finite");
    /* R = R_y(yaw) R_x(pitch): pitch about the camera's own X, after the yaw. */
    double cy = cos((double)yaw), sy = sin((double)yaw), cp = cos((double)pitch), sp = sin((double)pitch);
    double e[3] = { position[0], position[1], position[2] };
    double x[3] = { cy, 0, -sy }, y[3] = { sy * sp, cp, cy * sp }, z[3] = { sy * cp, -sp, cy * cp };
    return set_pose(s, camera, e, x, y, z, fn);
}
