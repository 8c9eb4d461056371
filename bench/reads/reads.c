/* SPDX-License-Identifier: MIT */
/* bench/reads/reads.c: single-node reads of up-to-date nodes (issue 25), for instruction counts
   under callgrind (load-independent A/B figures). A scene of N nodes (each under a node made
   before it, a rotation and a translation each), one update, then R rounds of each read over
   every node. Built against the Release library of bench/run (build/bench) and run:
       gcc -std=c11 -O2 -DNDEBUG -ffp-contract=off -I include -I build/bench/include bench/reads/reads.c \
           build/bench/libarbor.a -lm -lpthread -o build/bench-reads/reads
       valgrind --tool=callgrind --toggle-collect=world_reads --toggle-collect=local_reads \
           --toggle-collect=trs_reads build/bench-reads/reads
   Divide the inclusive count of arbor_node_world_matrix, arbor_node_local_matrix and
   arbor_node_trs by R x N for instructions a call. Prints a checksum so the reads are not
   optimised away. */
#include <stdio.h>

#include "arbor/arbor.h"
#include "../splitmix64.h"

enum { N = 100, R = 1000 };

static double sum_of(const arbor_real *v, int count) {
    double sum = 0;
    for (int i = 0; i < count; i++) sum += (double)v[i];
    return sum;
}

typedef arbor_result (*matrix_read)(arbor_scene *s, arbor_node n, arbor_real out[16]);

static arbor_result local_matrix(arbor_scene *s, arbor_node n, arbor_real out[16]) { return arbor_node_local_matrix(s, n, out); }

/* R rounds of read over every node (through a pointer: the callee's inclusive count is the
   figure, the loop's share is not in it). */
static double matrix_reads(arbor_scene *s, const arbor_node *nodes, matrix_read read) {
    arbor_real m[16];
    double sum = 0;
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i++) {
            read(s, nodes[i], m);
            sum += (double)m[12];
        }
    return sum + sum_of(m, 16);
}

__attribute__((noinline)) double world_reads(arbor_scene *s, const arbor_node *nodes) {
    return matrix_reads(s, nodes, arbor_node_world_matrix);
}

__attribute__((noinline)) double local_reads(arbor_scene *s, const arbor_node *nodes) {
    return matrix_reads(s, nodes, local_matrix);
}

__attribute__((noinline)) double trs_reads(const arbor_scene *s, const arbor_node *nodes) {
    arbor_trs t;
    double sum = 0;
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i++) {
            arbor_node_trs(s, nodes[i], &t);
            sum += (double)t.translation[0];
        }
    return sum + (double)t.rotation[3];
}

int main(void) {
    arbor_scene *s;
    arbor_node nodes[N];
    uint64_t state = 25;
    if (arbor_scene_create(NULL, &s)) return 2;
    for (int i = 0; i < N; i++) {
        arbor_node_desc d = { .parent = i ? nodes[splitmix64_next(&state) % (uint64_t)i] : ARBOR_NONE };
        for (int k = 0; k < 3; k++) d.translation[k] = (arbor_real)((double)(splitmix64_next(&state) >> 11) * 0x1.0p-53);
        for (int k = 0; k < 4; k++) d.rotation[k] = (arbor_real)((double)(splitmix64_next(&state) >> 11) * 0x1.0p-53 + 0.1);
        if (arbor_node_create(s, &d, &nodes[i])) return 2;
    }
    arbor_scene_update(s);
    double sum = world_reads(s, nodes) + local_reads(s, nodes) + trs_reads(s, nodes);
    printf("{\"nodes\":%d,\"rounds\":%d,\"checksum\":%.9g}\n", N, R, sum);
    arbor_scene_destroy(s);
    return 0;
}
