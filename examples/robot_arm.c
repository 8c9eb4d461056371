/* SPDX-License-Identifier: MIT */
/*
 * The robot arm of the course, built against an installed arbor.
 *
 *   base  (root)   translation (0, 0.2, 0), rotation 30 degrees about +Y
 *   joint (base)   translation (0, 0.2, 0), rotation 40 degrees about +Z
 *   arm   (joint)  translation (0, 0.7, 0)
 *   hand  (arm)    translation (0, 0.7, 0)
 *
 * Prints the hand's world position (elements 12, 13, 14 of its world matrix) and exits 0 only
 * when it is (-0.78, 1.47, 0.45) within 0.01.
 *
 * Build: see CMakeLists.txt (find_package) and Makefile (pkg-config) beside this file.
 */
#include <arbor/arbor.h>

#include <stdio.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        arbor_result check_result_ = (call);                                         \
        if (check_result_ != ARBOR_OK) {                                             \
            fprintf(stderr, "robot_arm: %s failed: %s\n", #call,                     \
                    arbor_result_string(check_result_));                             \
            arbor_scene_destroy(scene);                                              \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static int near(arbor_real value, double expected)
{
    double d = (double)value - expected;
    return d > -0.01 && d < 0.01;
}

int main(void)
{
    if (arbor_real_size() != sizeof(arbor_real)) {
        fprintf(stderr, "robot_arm: compiled with a %zu-byte arbor_real, the library has %zu\n",
                sizeof(arbor_real), arbor_real_size());
        return 1;
    }

    arbor_scene *scene = NULL;
    if (arbor_scene_create(NULL, &scene) != ARBOR_OK) {
        fprintf(stderr, "robot_arm: %s\n", arbor_last_error());
        return 1;
    }

    arbor_node base, joint, arm, hand;
    CHECK(arbor_node_create(scene, &(arbor_node_desc){
        .name = "base",
        .translation = {0, 0.2f, 0},
        .rotation = {0, 0.258819f, 0, 0.965926f},   /* 30 degrees about +Y */
    }, &base));
    CHECK(arbor_node_create(scene, &(arbor_node_desc){
        .name = "joint",
        .parent = base,
        .translation = {0, 0.2f, 0},
        .rotation = {0, 0, 0.342020f, 0.939693f},   /* 40 degrees about +Z */
    }, &joint));
    CHECK(arbor_node_create(scene, &(arbor_node_desc){
        .name = "arm", .parent = joint, .translation = {0, 0.7f, 0},
    }, &arm));
    CHECK(arbor_node_create(scene, &(arbor_node_desc){
        .name = "hand", .parent = arm, .translation = {0, 0.7f, 0},
    }, &hand));

    arbor_real world[16];
    CHECK(arbor_node_world_matrix(scene, hand, world));
    arbor_scene_destroy(scene);

    printf("arbor %s (%s): hand at (%.4f, %.4f, %.4f)\n", arbor_version(),
           sizeof(arbor_real) == sizeof(double) ? "double" : "float",
           (double)world[12], (double)world[13], (double)world[14]);

    if (!near(world[12], -0.78) || !near(world[13], 1.47) || !near(world[14], 0.45)) {
        fprintf(stderr, "robot_arm: expected the hand at (-0.78, 1.47, 0.45) within 0.01\n");
        return 1;
    }
    printf("robot_arm: ok\n");
    return 0;
}
