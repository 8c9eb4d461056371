/* SPDX-License-Identifier: MIT */
/*
 * arbor/urdf.h: robots from URDF files, joint positions in, every link's pose out.
 * A library of its own, libarbor-urdf (pkg-config arbor-urdf, CMake arbor::urdf), on libarbor and
 * libxml2; libarbor itself stays without dependencies.
 *
 * A URDF file names links and the joints between them. arbor_urdf_load makes one node a link,
 * named as the link, the root link a root of the scene (place the robot in a world by moving or
 * reparenting it: the robot never writes its root). A joint's origin and its motion make its
 * child link's local transform: origin * motion, where a revolute or continuous joint's motion is
 * a rotation by its value about its axis, a prismatic one's a translation by its value along it,
 * a floating one's a translation (x, y, z) then a rotation (quaternion x, y, z, w), and a planar
 * one's a translation (a, b) in the plane normal to its axis then a rotation by c about that axis
 * (for axis z: x, y and the angle about z; otherwise the plane's first direction is y x axis,
 * the second axis x first). Axes are normalised, as urdfdom and KDL take them.
 *
 * Orders: links in tree order (the root first, then depth first, a link's children in the order
 * of their joints in the file), so a link's parent comes before it. Joints in file order. The
 * joint positions, arbor_urdf_dof of them, are the values of every joint that moves and is not a
 * mimic, in joint order: one value a revolute, continuous or prismatic joint (radians, meters),
 * seven a floating one (x y z, then a quaternion x y z w), three a planar one. A mimic joint
 * follows its master: multiplier * master + offset, as robot_state_publisher does (its own limits
 * are not applied). At load every joint is at 0 (a floating one at the identity), or at its
 * nearest limit when 0 is outside them.
 *
 * Reading: the file is parsed with libxml2 without network access, without loading or expanding
 * entities: a file with a DOCTYPE is refused, and so are depths beyond libxml2's 256. What is
 * read equals urdfdom's reading (tests/test_urdf.c compares every file of the shared robots
 * against urdfdom and KDL). Materials, inertia, transmissions and `<gazebo>` are skipped. A
 * refused file names the file, the line and the reason
 * (arbor_last_error_info's file and line): "arbor_urdf_load: arm.urdf: line 12: joint 'elbow':
 * lower limit 2 is above upper limit 1". Refusals: ARBOR_ERR_IO (the file cannot be read; only a
 * regular file is opened), ARBOR_ERR_PARSE (not well-formed XML, a DOCTYPE, a missing or
 * malformed attribute, an unknown joint type, a NaN or infinity, a zero axis, lower > upper, two
 * links or joints of one name, a joint naming a missing link, a link with two parent joints, a
 * cycle of joints, no root or two roots, a mimic naming a missing, fixed or mimic-cycling joint,
 * a `<visual>` or `<collision>` without `<geometry>`, an unknown shape, a shape without its
 * sizes or with a negative one, a mesh without a filename),
 * ARBOR_ERR_DEPTH_LIMIT (a tree deeper than the scene allows), ARBOR_ERR_OUT_OF_MEMORY; nothing
 * is added to the scene then.
 *
 * Geometry: every link's `<visual>` and `<collision>` elements (arbor_urdf_geometry_info). Boxes,
 * cylinders and spheres give their link's node its local bounds (bounds.h: culling, the boxes
 * up the tree, `arbor render`): the smallest axis-aligned box in the link's frame around every
 * such shape of the link, visual and collision, each placed by its origin (a cylinder's exact
 * box: along z, radius r and length l, its half extent on axis i is
 * r sqrt(1 - R[i][2]^2) + l/2 |R[i][2]|). Meshes are kept by name (the filename as the file
 * gives it, package:// included) and their scale, and do not bound their link: their formats
 * (STL, COLLADA, OBJ) are not read by arbor, and reading a glTF mesh here would make this
 * library depend on libarbor-gltf. A link with meshes only has no bounds.
 *
 * Memory: the robot's through the scene's allocator; libxml2's own, during the parse only,
 * through libxml2's (malloc unless the program set it up otherwise).
 * Lifetime: destroying the robot leaves its links' nodes in the scene. Destroying it and its
 * scene in either order is safe: the scene's destroy leaves it inert (every call of it that
 * returns an arbor_result is refused with ARBOR_ERR_INVALID_ARGUMENT, "its scene was destroyed";
 * the others answer from what it holds) and its own destroy frees it.
 *
 * Example: an arm at a configuration, and 1000 configurations at once.
 *     arbor_urdf *arm;
 *     arbor_urdf_load(scene, "panda.urdf", NULL, &arm);
 *     double q[8] = { 0, -0.5, 0, -2, 0, 1.5, 0.8, 0.02 };          // arbor_urdf_dof(arm) == 8
 *     arbor_urdf_set_positions(arm, q, arbor_urdf_dof(arm));        // the scene's nodes follow
 *     arbor_real m[16];
 *     arbor_node_world_matrix(scene, arbor_urdf_find_link(arm, "panda_hand"), m);
 *     arbor_urdf_forward_kinematics(arm, Q, 1000, out);             // out: 1000 x links x 16
 *     arbor_urdf_destroy(arm);
 */
#ifndef ARBOR_URDF_H
#define ARBOR_URDF_H

#include "arbor/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct arbor_urdf arbor_urdf;

typedef enum arbor_urdf_joint_type {
    ARBOR_URDF_FIXED,
    ARBOR_URDF_REVOLUTE,   /* a rotation about the axis, within limits */
    ARBOR_URDF_CONTINUOUS, /* a rotation about the axis, without limits */
    ARBOR_URDF_PRISMATIC,  /* a translation along the axis, within limits */
    ARBOR_URDF_FLOATING,   /* 7 values: x y z, a quaternion x y z w (normalised; zero refused) */
    ARBOR_URDF_PLANAR      /* 3 values: a, b in the plane normal to the axis, c the angle about it */
} arbor_urdf_joint_type;

typedef enum arbor_urdf_shape {
    ARBOR_URDF_BOX,      /* size: its sides x y z, centred on its origin */
    ARBOR_URDF_CYLINDER, /* size: radius, length (along its origin's z, centred), 0 */
    ARBOR_URDF_SPHERE,   /* size: radius, 0, 0 */
    ARBOR_URDF_MESH      /* size: the mesh's scale x y z (1 1 1 when not given); mesh: its file */
} arbor_urdf_shape;

/* One `<visual>` or `<collision>` of a link (arbor_urdf_geometry_info). */
typedef struct arbor_urdf_geometry {
    uint32_t link;               /* the link's index (arbor_urdf_link_node) */
    bool collision;              /* a `<collision>`; false: a `<visual>` */
    arbor_urdf_shape shape;
    double origin_xyz[3];        /* the shape's origin in its link's frame */
    double origin_rpy[3];        /* roll, pitch, yaw, as a joint's */
    double size[3];              /* by shape, see arbor_urdf_shape */
    const char *mesh;            /* a mesh's filename as the file gives it, else NULL; valid while
                                    the robot lives */
} arbor_urdf_geometry;

/* All zero (or NULL options): values outside a joint's limits are refused. */
typedef struct arbor_urdf_options {
    bool clamp; /* values outside a joint's limits are clamped to them instead of refused (NaN is
                   still refused) */
} arbor_urdf_options;

/* One joint as the file gives it (arbor_urdf_joint_info). */
typedef struct arbor_urdf_joint {
    const char *name;            /* valid while the robot lives */
    arbor_urdf_joint_type type;
    double axis[3];              /* unit, in the joint's frame (the child link's, before motion) */
    double origin_xyz[3];        /* the joint's origin in its parent link's frame */
    double origin_rpy[3];        /* roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll) */
    bool has_limits;             /* revolute and prismatic joints: lower and upper apply */
    double lower, upper;
    uint32_t parent_link, child_link; /* link indices (arbor_urdf_link_node) */
    arbor_node parent, child;    /* their nodes */
    int32_t mimic;               /* the master joint's index, or -1 */
    double multiplier, offset;   /* of a mimic: value = multiplier * master + offset (else 1, 0) */
    uint32_t position_count;     /* values the joint takes in the joint positions (0 for a fixed
                                    or mimic joint) */
    int32_t position_index;      /* where they start, or -1 */
} arbor_urdf_joint;

/* Loads the URDF file at path into s (see above); on success *out is a new robot, ended by
   arbor_urdf_destroy. options may be NULL. */
ARBOR_API arbor_result arbor_urdf_load(arbor_scene *s, const char *path, const arbor_urdf_options *options,
                                       arbor_urdf **out);
/* The same from size bytes of URDF in memory. base_dir is where its mesh files would be found;
   it is not used yet (mesh files are not read), and may be NULL. Messages name this call and
   the line, and no file. */
ARBOR_API arbor_result arbor_urdf_load_memory(arbor_scene *s, const void *data, size_t size, const char *base_dir,
                                              const arbor_urdf_options *options, arbor_urdf **out);
ARBOR_API void arbor_urdf_destroy(arbor_urdf *robot); /* NULL is allowed */

/* The robot's name (the file's `<robot name>`); "" for NULL. */
ARBOR_API const char *arbor_urdf_name(const arbor_urdf *robot);

/* Links: how many; link i's node (ARBOR_NONE for i out of range); link i's name (NULL out of
   range); its parent link's index (-1 for the root or out of range); the node of the link named
   name (ARBOR_NONE: none). */
ARBOR_API uint32_t arbor_urdf_link_count(const arbor_urdf *robot);
ARBOR_API arbor_node arbor_urdf_link_node(const arbor_urdf *robot, uint32_t i);
ARBOR_API const char *arbor_urdf_link_name(const arbor_urdf *robot, uint32_t i);
ARBOR_API int32_t arbor_urdf_link_parent(const arbor_urdf *robot, uint32_t i);
ARBOR_API arbor_node arbor_urdf_find_link(const arbor_urdf *robot, const char *name);

/* Joints: how many; joint i into *out (ARBOR_ERR_INVALID_ARGUMENT: i out of range, nothing
   written); the index of the joint named name, or -1. */
ARBOR_API uint32_t arbor_urdf_joint_count(const arbor_urdf *robot);
ARBOR_API arbor_result arbor_urdf_joint_info(const arbor_urdf *robot, uint32_t i, arbor_urdf_joint *out);
ARBOR_API int32_t arbor_urdf_find_joint(const arbor_urdf *robot, const char *name);

/* Geometry: how many `<visual>` and `<collision>` elements the robot has; element i into *out
   (ARBOR_ERR_INVALID_ARGUMENT: i out of range, nothing written). In link order, a link's in
   the order of the file. */
ARBOR_API uint32_t arbor_urdf_geometry_count(const arbor_urdf *robot);
ARBOR_API arbor_result arbor_urdf_geometry_info(const arbor_urdf *robot, uint32_t i, arbor_urdf_geometry *out);

/* How many joint position values the robot takes (see above). */
ARBOR_API uint32_t arbor_urdf_dof(const arbor_urdf *robot);

/* The current joint positions, dof of them, into out (cap values; a smaller cap is refused,
   ARBOR_ERR_INVALID_ARGUMENT, nothing written). */
ARBOR_API arbor_result arbor_urdf_positions(const arbor_urdf *robot, double *out, uint32_t cap);

/* Sets every joint position (count must be arbor_urdf_dof) and writes the links' local
   transforms through a pose (pose.h) in one pass, world matrices included; mimic joints
   follow. Refused, nothing changed: count not the dof, a NaN or infinity (ARBOR_ERR_NONFINITE),
   a value outside its joint's limits unless the options clamp, a floating joint's zero
   quaternion (ARBOR_ERR_INVALID_ARGUMENT), a link node locked or destroyed since (the pose's
   refusals); the message names the joint and its limits: "arbor_urdf_set_positions: joint
   'elbow' (position 3): 2.5 is outside its limits [-2, 2]". */
ARBOR_API arbor_result arbor_urdf_set_positions(arbor_urdf *robot, const double *q, uint32_t count);
/* One joint's value (a joint of one value; a mimic joint is refused: set its master), the others
   kept; refused as arbor_urdf_set_positions, and for an unknown name. */
ARBOR_API arbor_result arbor_urdf_set_position(arbor_urdf *robot, const char *joint, double value);
/* The positions q (count = arbor_urdf_dof) recorded as every link's stamped sample at time
   (arbor/time.h: arbor_pose_record), so that arbor_scene_lookup answers where a link was at any
   time between records ("where was the gripper at t"). A time later than every earlier record
   also makes q the current positions (arbor_urdf_positions, every "now" read); an earlier one
   (a late message) only fills the history. Refused, nothing changed: what
   arbor_urdf_set_positions refuses, and what arbor_pose_record refuses (a time not finite). */
ARBOR_API arbor_result arbor_urdf_record_positions(arbor_urdf *robot, double time, const double *q, uint32_t count);

/* Forward kinematics of `configs` configurations without touching the scene: q holds configs
   rows of dof values; out receives configs x link_count matrices of 16 (column-major, link
   order), each link's pose relative to the root link. Checked as arbor_urdf_set_positions
   (every row before anything is written: a refusal writes nothing and names the row). Computed
   in arbor_real: in the float build eight configurations at a time in SIMD lanes (each joint's
   value reduced by pi/2 in double before its float sine and cosine), in the double build four
   (AVX2 or SSE2), from a program made at load: each link's parent times its joint's origin, pre-composed, then
   the joint's motion as a structured product, one sine and cosine a revolute joint. A
   configuration gives the same bits in a batch of any size and position; out holds
   arbor_real. */
ARBOR_API arbor_result arbor_urdf_forward_kinematics(const arbor_urdf *robot, const double *q, uint32_t configs,
                                                     arbor_real *out);
/* The same, the configurations shared out on executor (NULL: this thread); the same bits. */
ARBOR_API arbor_result arbor_urdf_forward_kinematics_parallel(const arbor_urdf *robot, const double *q,
                                                              uint32_t configs, arbor_real *out,
                                                              const arbor_executor *executor);

#ifdef __cplusplus
}
#endif
#endif
