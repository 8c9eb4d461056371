/* SPDX-License-Identifier: MIT */
/*
 * splitmix64: the fixed-seed generator behind every random stream of arbor's tests, reference
 * model and benchmarks (../shared/bench/WORKLOADS.md draws its workloads with it). The algorithm
 * is Sebastiano Vigna's (2015), after Steele, Lea and Flood's SplittableRandom; written here
 * from its published description. One definition, included where a stream is drawn.
 */
#ifndef ARBOR_SPLITMIX64_H
#define ARBOR_SPLITMIX64_H

#include <stdint.h>

/* Advances *state and returns the next 64 random bits. */
static inline uint64_t splitmix64_next(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

#endif
