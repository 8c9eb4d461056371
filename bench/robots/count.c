/* SPDX-License-Identifier: MIT */
/* bench/robots/count.c: the work of bench/robots/robots.cpp's two arbor measures, once each, for
   instruction counts under callgrind (load-independent A/B figures):
       valgrind --tool=callgrind --toggle-collect=single --toggle-collect=arbor_urdf_forward_kinematics \
           build/bench-robots/count FILE.urdf
   single: 1,000 configurations one at a time (arbor_urdf_set_positions, then every link's world
   matrix in one arbor_scene_world_matrices); arbor_urdf_forward_kinematics: the same 1,000 in one batch. Prints links and dof;
   divide the inclusive counts by 1,000 x links for instructions a link. */
#include <stdio.h>
#include <stdlib.h>

#include "arbor/arbor.h"
#include "arbor/urdf.h"
#include "../splitmix64.h"

enum { B = 1000 };

__attribute__((noinline)) void single(arbor_scene *s, arbor_urdf *robot, const arbor_node *links, const double *q,
                                      uint32_t dof, uint32_t L, arbor_real *m) {
    for (uint32_t c = 0; c < B; c++) {
        arbor_urdf_set_positions(robot, q + (size_t)c * dof, dof);
        arbor_scene_world_matrices(s, links, L, m);
    }
}

int main(int argc, char **argv) {
    arbor_scene *s;
    arbor_urdf *robot;
    if (argc != 2 || arbor_scene_create(NULL, &s) || arbor_urdf_load(s, argv[1], NULL, &robot)) {
        fprintf(stderr, "count: %s\n", argc != 2 ? "usage: count FILE.urdf" : arbor_last_error());
        return 2;
    }
    uint32_t L = arbor_urdf_link_count(robot), dof = arbor_urdf_dof(robot), J = arbor_urdf_joint_count(robot);
    double *q = malloc(sizeof(double) * B * (dof + 1));
    arbor_real *out = malloc(sizeof(arbor_real) * 16 * B * L);
    uint64_t state = 27;
    for (uint32_t c = 0; q && c < B; c++)
        for (uint32_t k = 0; k < J; k++) {
            arbor_urdf_joint j;
            arbor_urdf_joint_info(robot, k, &j);
            if (j.position_index < 0) continue;
            double lo = j.has_limits ? j.lower : -3.141592653589793, hi = j.has_limits ? j.upper : 3.141592653589793;
            q[(size_t)c * dof + (uint32_t)j.position_index] = lo + (hi - lo) * ((double)(splitmix64_next(&state) >> 11) * 0x1.0p-53);
        }
    arbor_node *links = malloc(sizeof(arbor_node) * L);
    if (!q || !out || !links) return 1;
    for (uint32_t i = 0; i < L; i++) links[i] = arbor_urdf_link_node(robot, i);
    single(s, robot, links, q, dof, L, out);
    arbor_result r = arbor_urdf_forward_kinematics(robot, q, B, out);
    printf("{\"links\":%u,\"dof\":%u,\"result\":%d}\n", L, dof, (int)r);
    free(q);
    free(out);
    free(links);
    arbor_urdf_destroy(robot);
    arbor_scene_destroy(s);
    return r != ARBOR_OK;
}
