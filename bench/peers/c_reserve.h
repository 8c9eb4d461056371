/* SPDX-License-Identifier: MIT */
/* For the C peers (c_cglm.c, c_plain3x4.c): the same storage reservation arbor's scene makes. */
#ifndef BENCH_PEERS_C_RESERVE_H
#define BENCH_PEERS_C_RESERVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/* The reservation arbor's scene gets (src/scene/scene.c): storage sized once for every node, and
   a large array asked for on huge pages before anything is in it (the kernel's page faults
   otherwise cost more than making the nodes). */
static inline void peer_reserve_like_arbor(void *array, size_t size) {
#if defined(MADV_HUGEPAGE)
    if (size >= ((size_t)2 << 20)) {
        uintptr_t first = ((uintptr_t)array + 4095) & ~(uintptr_t)4095, end = ((uintptr_t)array + size) & ~(uintptr_t)4095;
        madvise((void *)first, end - first, MADV_HUGEPAGE);
    }
#else
    (void)array, (void)size;
#endif
}

#endif
