/* SPDX-License-Identifier: MIT */
/*
 * Loads a glTF file with libarbor-gltf and prints a node's world position: by default the hand
 * of examples/robot_arm.gltf (the robot arm of robot_arm.c, written by `arbor demo --save`).
 *
 *   load_gltf FILE [PATH]     PATH: names from a root down (default "base/joint/arm/hand")
 *
 * With the default path it exits 0 only when the hand is at (-0.78, 1.47, 0.45) within 0.01,
 * the position robot_arm.c builds in code.
 *
 * Build: see CMakeLists.txt (find_package, arbor::gltf) and Makefile (pkg-config arbor-gltf).
 */
#include <arbor/arbor.h>
#include <arbor/gltf.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: load_gltf FILE [PATH]\n");
        return 2;
    }
    const char *path = argc == 3 ? argv[2] : "base/joint/arm/hand";
    arbor_scene *scene = NULL;
    arbor_gltf *doc = NULL;
    if (arbor_scene_create(NULL, &scene) != ARBOR_OK || arbor_gltf_load(scene, argv[1], NULL, &doc) != ARBOR_OK) {
        fprintf(stderr, "load_gltf: %s\n", arbor_last_error());
        arbor_scene_destroy(scene);
        return 1;
    }
    arbor_scene_update(scene);
    arbor_node node = arbor_scene_find(scene, path);
    arbor_real world[16];
    int status = 1;
    if (arbor_node_world_matrix(scene, node, world) != ARBOR_OK) {
        fprintf(stderr, "load_gltf: %s: %s\n", path, arbor_last_error());
    } else {
        printf("%s at (%g, %g, %g)\n", path, (double)world[12], (double)world[13], (double)world[14]);
        const double want[3] = { -0.78, 1.47, 0.45 };
        status = 0;
        for (int i = 0; argc == 2 && i < 3; i++)
            if ((double)world[12 + i] - want[i] > 0.01 || (double)world[12 + i] - want[i] < -0.01) status = 1;
    }
    arbor_gltf_destroy(doc);
    arbor_scene_destroy(scene);
    return status;
}
