/*
 * arbor/view.h: cameras and lights carried by nodes.
 *
 * A camera or a light is an attachment of a node: it sits at the node's origin and looks (or
 * shines) down the node's local -Z, so it follows the node's world matrix like any geometry
 * (seed 002 section 10: the view matrix is the inverse of the camera node's world matrix).
 * The parameters are glTF's (cameras) and KHR_lights_punctual's (lights), plus hemispheric.
 * Setting or removing one does not change any transform or version.
 */
#ifndef ARBOR_VIEW_H
#define ARBOR_VIEW_H

#include "arbor/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
