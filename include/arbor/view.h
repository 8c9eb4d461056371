/* SPDX-License-Identifier: MIT */
/*
 * arbor/view.h: frames, and cameras and lights carried by nodes.
 *
 * Frames: a node's frame seen from any other's (W_to^-1 W_from), its world transform read back
 * as TRS with a flag for the shear no TRS can hold, whether it is mirrored, its normal matrix.
 *
 * A camera or a light is an attachment of a node: it sits at the node's origin and looks (or
 * shines) down the node's local -Z, so it follows the node's world matrix like any geometry
 * (the view matrix is the inverse of the camera node's world matrix).
 * The parameters are glTF's (cameras) and KHR_lights_punctual's (lights), plus hemispheric.
 * Setting or removing one does not change any transform or version. Camera controllers (orbit,
 * look-at, fly) write the node's local translation and rotation, and nothing else.
 *
 * Like arbor_node_world_matrix, every function here answers for the scene as it stands now
 * (world matrices are resolved lazily as needed). Matrices are column-major.
 *
 *     arbor_node cam;
 *     arbor_node_create(s, &(arbor_node_desc){ .name = "eye", .parent = hand }, &cam);
 *     arbor_node_set_camera(s, cam, &(arbor_camera){ ARBOR_CAMERA_PERSPECTIVE, .yfov = 0.8f,
 *                                                    .znear = 0.1f, .zfar = 100 });
 *     arbor_camera_look_at(s, cam, (arbor_real[3]){0, 1, 3}, (arbor_real[3]){0, 1, 0},
 *                          (arbor_real[3]){0, 1, 0});
 *     arbor_real vp[16];
 *     arbor_camera_view_projection(s, cam, 16.0f / 9, vp);
 */
#ifndef ARBOR_VIEW_H
#define ARBOR_VIEW_H

#include "arbor/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Frames ---------------------------------------------------------------------------------- */

/* out = W_to^-1 * W_from: maps points written in from's frame into to's frame (worked
   example: docs/guide.md, section 5). ARBOR_NONE for either stands for the world (identity).
   ARBOR_ERR_DEAD_NODE for a dead handle; ARBOR_ERR_SINGULAR when to's world matrix cannot be
   inverted. */
ARBOR_API arbor_result arbor_node_relative_matrix(arbor_scene *s, arbor_node from, arbor_node to, arbor_real out[16]);

/* The node's world matrix read back as TRS, the parts of arbor_mat4_decompose: scale = column
   lengths (a reflection kept as a negative Y scale), rotation from the columns orthonormalised
   by Gram-Schmidt starting at column 0, translation = column 3. *exact (exact may be NULL) is
   false when a shear (a rotated child under a non-uniformly scaled ancestor;
   docs/guide.md, section 6, shows one) means no TRS reproduces the world matrix: the parts
   are then only the closest reading. */
ARBOR_API arbor_result arbor_node_world_trs(arbor_scene *s, arbor_node n, arbor_trs *out, bool *exact);

/* True when the node's world matrix has a negative determinant (an odd number of mirrors on
   the path from its root): its triangles' winding is reversed. False for
   a dead node. */
ARBOR_API bool arbor_node_world_is_mirrored(arbor_scene *s, arbor_node n);

/* The normal matrix: the inverse transpose of the world matrix's 3x3 part, column-major 3x3
   (element [c * 3 + r]). Right under shear and non-uniform scale, where the world matrix
   itself would bend normals. ARBOR_ERR_SINGULAR when the world matrix cannot be inverted. */
ARBOR_API arbor_result arbor_node_normal_matrix(arbor_scene *s, arbor_node n, arbor_real out[9]);

/* ---- Cameras ------------------------------------------------------------------------------- */

typedef enum arbor_camera_type { ARBOR_CAMERA_PERSPECTIVE, ARBOR_CAMERA_ORTHOGRAPHIC } arbor_camera_type;

typedef struct arbor_camera {
    arbor_camera_type type;
    arbor_real yfov, aspect;  /* perspective: radians; aspect 0: given at projection time */
    arbor_real xmag, ymag;    /* orthographic half-extents */
    arbor_real znear, zfar;   /* perspective zfar 0: infinite */
} arbor_camera;

/* Puts a camera on the node (a copy), replacing any; NULL removes it. Refused with
   ARBOR_ERR_INVALID_ARGUMENT: an unknown type; perspective with yfov <= 0, aspect < 0,
   znear <= 0 or 0 < zfar <= znear; orthographic with xmag or ymag zero, znear < 0 or
   zfar <= znear. A NaN or infinity is ARBOR_ERR_NONFINITE. May allocate. */
ARBOR_API arbor_result arbor_node_set_camera(arbor_scene *s, arbor_node n, const arbor_camera *camera);

/* The node's camera; ARBOR_ERR_INVALID_ARGUMENT when it has none. */
ARBOR_API arbor_result arbor_node_camera(const arbor_scene *s, arbor_node n, arbor_camera *out);

/* The view matrix V = W^-1 of the node: world space into the camera's
   space, where the camera sits at the origin looking down -Z. Any node may serve as the eye
   (no camera attachment needed); a scaled camera node scales view space too.
   ARBOR_ERR_SINGULAR when the world matrix cannot be inverted. */
ARBOR_API arbor_result arbor_camera_view_matrix(arbor_scene *s, arbor_node camera, arbor_real out[16]);

/* glTF's projection matrix of the node's camera (OpenGL clip space, -w <= z <= w): perspective
   with zfar 0 is the infinite projection. A non-zero aspect (width / height) overrides the
   camera's; orthographic ignores it. Refused: a node without a camera, a negative aspect, a
   perspective camera with neither aspect (ARBOR_ERR_INVALID_ARGUMENT); a NaN or infinity
   (ARBOR_ERR_NONFINITE). */
ARBOR_API arbor_result arbor_camera_projection_matrix(const arbor_scene *s, arbor_node camera, arbor_real aspect,
                                                      arbor_real out[16]);

/* P * V: projection (as arbor_camera_projection_matrix) times view (as
   arbor_camera_view_matrix), refused as either is. The input of arbor_frustum_planes. */
ARBOR_API arbor_result arbor_camera_view_projection(arbor_scene *s, arbor_node camera, arbor_real aspect,
                                                    arbor_real out[16]);

/* Controllers. Each writes the node's local translation and rotation (its scale is kept; an
   unlocked matrix-backed node becomes TRS-driven, as any TRS write makes it) and nothing else:
   no camera attachment is needed or changed. Points are in the node's parent's frame. A locked
   matrix is ARBOR_ERR_LOCKED; a NaN or infinity ARBOR_ERR_NONFINITE. The camera looks down its
   local -Z.

   Orbit, as Babylon.js's ArcRotateCamera (radians): the eye at
   target + radius (cos alpha sin beta, cos beta, sin alpha sin beta), looking at the target
   with +Y up (beta = 0 looks straight down, with the side of the orbit alpha says).
   radius <= 0 is ARBOR_ERR_INVALID_ARGUMENT. */
ARBOR_API arbor_result arbor_camera_orbit(arbor_scene *s, arbor_node camera, arbor_real alpha, arbor_real beta,
                                          arbor_real radius, const arbor_real target[3]);

/* Look-at: the eye at eye looking at target; the camera's +Y is up made perpendicular to the
   line of sight, so an up other than +Y banks the camera. Refused
   (ARBOR_ERR_INVALID_ARGUMENT): eye == target, up zero or along the line of sight. */
ARBOR_API arbor_result arbor_camera_look_at(arbor_scene *s, arbor_node camera, const arbor_real eye[3],
                                            const arbor_real target[3], const arbor_real up[3]);

/* Fly-through (first person): the eye at position, turned by yaw (radians) about +Y, then pitched about
   the camera's own +X (positive looks up): R = R_y(yaw) R_x(pitch). yaw = pitch = 0 looks down
   -Z; yaw = pi/2 looks down -X. */
ARBOR_API arbor_result arbor_camera_fly(arbor_scene *s, arbor_node camera, const arbor_real position[3],
                                         arbor_real yaw, arbor_real pitch);

/* ---- Lights -------------------------------------------------------------------------------- */

typedef enum arbor_light_type {
    ARBOR_LIGHT_POINT,
    ARBOR_LIGHT_SPOT,
    ARBOR_LIGHT_DIRECTIONAL,
    ARBOR_LIGHT_HEMISPHERIC
} arbor_light_type;

typedef struct arbor_light {
    arbor_light_type type;
    arbor_real color[3], intensity, range;  /* range 0: infinite */
    arbor_real inner_cone, outer_cone;      /* spot, radians; both 0: glTF's defaults (0, pi/4) */
    arbor_real direction[3];                /* local; all zero: (0, 0, -1) as in glTF */
} arbor_light;

/* Puts a light on the node (a copy), replacing any; NULL removes it. Refused with
   ARBOR_ERR_INVALID_ARGUMENT: an unknown type, a negative intensity or range, spot cones
   outside 0 <= inner < outer <= pi/2 (after the defaults). A NaN or infinity is
   ARBOR_ERR_NONFINITE. May allocate. The light is stored as given: zero cones and a zero
   direction are read back as zero. */
ARBOR_API arbor_result arbor_node_set_light(arbor_scene *s, arbor_node n, const arbor_light *light);

/* The node's light; ARBOR_ERR_INVALID_ARGUMENT when it has none. */
ARBOR_API arbor_result arbor_node_light(const arbor_scene *s, arbor_node n, arbor_light *out);

/* Where the node's light is in the world: its world matrix's column 3 (what a light's uniform
   buffer takes). It follows the ancestors' motion. ARBOR_ERR_INVALID_ARGUMENT when the
   node has no light. */
ARBOR_API arbor_result arbor_light_world_position(arbor_scene *s, arbor_node n, arbor_real out[3]);

/* Where the node's light points in the world, unit length: the light's local direction ((0, 0,
   -1) when it is all zero) through the world matrix's 3x3 part, normalised, so ancestors'
   rotations turn it and their non-uniform scales bend it. ARBOR_ERR_INVALID_ARGUMENT when the
   node has no light; ARBOR_ERR_SINGULAR when the world matrix flattens the direction to zero. */
ARBOR_API arbor_result arbor_light_world_direction(arbor_scene *s, arbor_node n, arbor_real out[3]);

#ifdef __cplusplus
}
#endif
#endif
