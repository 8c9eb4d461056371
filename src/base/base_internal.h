/* SPDX-License-Identifier: MIT */
/*
 * What every folder of src/ may use of src/base: failing with a message, allocating through an
 * allocator. Knows no scene and no node.
 */
#ifndef ARBOR_BASE_INTERNAL_H
#define ARBOR_BASE_INTERNAL_H

#include "arbor/base.h"

/* The internals libarbor-gltf and libarbor-urdf call in libarbor: exported by libarbor.so, and listed in
   cmake/gltf_uses.txt (the export check allows those arbor__ names and no other). */
#define ARBOR__FOR_GLTF ARBOR_API

/* Records "func: message" as this thread's last error and returns code. */
ARBOR__FOR_GLTF arbor_result arbor__fail(arbor_result code, const char *func, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Where in a file a failure is (arbor_error_info): NULL or "" and 0 for what is unknown. */
typedef struct arbor__place {
    const char *file, *pointer;
    uint32_t line, column;
} arbor__place;
/* arbor__fail with a place: "func: file: pointer: message", the place kept apart too. */
ARBOR__FOR_GLTF arbor_result arbor__fail_at(arbor_result code, const char *func, const arbor__place *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Allocation through an allocator held apart from a scene (documents, clips): all zero is malloc
   and free; a size of 0 is taken as 1. */
ARBOR__FOR_GLTF void *arbor__alloc_with(const arbor_allocator *a, size_t size);
ARBOR__FOR_GLTF void arbor__free_with(const arbor_allocator *a, void *p, size_t size);

#endif
