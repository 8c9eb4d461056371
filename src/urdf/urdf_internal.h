/* SPDX-License-Identifier: MIT */
/*
 * What src/urdf shares: the robot as parse.c reads it from the file and robot.c keeps it.
 * Links are held in tree order (parents first); joints in file order.
 */
#ifndef ARBOR_URDF_INTERNAL_H
#define ARBOR_URDF_INTERNAL_H

#include "arbor/urdf.h"
#include "scene/scene_internal.h"

typedef struct arbor__urdf_joint {
    const char *name;
    arbor_urdf_joint_type type;
    double axis[3];            /* unit */
    double xyz[3], rpy[3];
    double rot[4];             /* the origin's rotation, x y z w (urdfdom's setFromRPY) */
    double origin[12];         /* the origin as the rows of a 3x4 matrix (rot, xyz) */
    bool has_limits;
    double lower, upper;
    uint32_t parent, child;    /* link indices, tree order */
    int32_t mimic;             /* the master, a joint that takes positions; -1 */
    double multiplier, offset;
    uint32_t position_count;
    int32_t position_index;
    double plane[2][3];        /* a planar joint's two directions */
} arbor__urdf_joint;

typedef struct arbor__urdf_geometry {
    uint32_t link;             /* tree order */
    bool collision;
    arbor_urdf_shape shape;
    double xyz[3], rpy[3];
    double origin[12];         /* the origin as the rows of a 3x4 matrix */
    double size[3];
    const char *mesh;
} arbor__urdf_geometry;

/* The rows of the 3x4 matrix of rotation q (unit, x y z w) and translation t. */
static inline void arbor__urdf_rows(double m[12], const double q[4], const double t[3]) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[12] = { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), t[0],
                     2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), t[1],
                     2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), t[2] };
    for (int i = 0; i < 12; i++) m[i] = r[i];
}

/* What parse.c reads, in memory of its own (one block, `bytes` long, through the allocator): the
   links in tree order, each with its parent link (-1: the root) and the joint that makes it
   (-1: the root); the joints in file order; the names after them. */
typedef struct arbor__urdf_model {
    void *block;
    size_t bytes;
    const char *name;
    uint32_t link_count, joint_count, dof;
    const char **link_name;
    int32_t *link_parent, *link_joint;
    uint32_t *by_name;          /* link indices sorted by name (arbor_urdf_find_link) */
    uint32_t *joint_by_name;    /* joint indices sorted by name */
    arbor__urdf_joint *joints;
    uint32_t geometry_count;
    arbor__urdf_geometry *geometry; /* in link order, a link's in file order */
    double *start;              /* the positions at load (dof) */
} arbor__urdf_model;

/* Parses size bytes of URDF into *m (file: the name for messages, NULL for memory; func: the
   public call). Fails with the place and the reason recorded, nothing allocated. */
arbor_result arbor__urdf_parse(const arbor_allocator *a, const char *func, const char *file, const void *data,
                               size_t size, arbor__urdf_model *m);

/* order[0..n) = 0..n-1 sorted by less (a heapsort: no recursion, no memory). */
void arbor__urdf_sort(uint32_t *order, uint32_t n, bool (*less)(const void *ctx, uint32_t a, uint32_t b), const void *ctx);

/* The index among n names (sorted by index through order) of name, or -1. */
int32_t arbor__urdf_find(const void *names, size_t stride, const uint32_t *order, uint32_t n, const char *name);

#endif
