/* SPDX-License-Identifier: MIT */
/*
 * arbor/parallel.h: arbor's own small thread pool, an executor for the scene's parallel
 * update and bulk writes.
 *
 * - The executor (arbor_executor), the parallel update and the bulk writes are the scene's
 *   (scene.h): an executor is the host's job system given as a parallel_for callback, or the
 *   executor of a pool made here.
 * - arbor never starts a thread behind the caller's back: only arbor_pool_create() does.
 */
#ifndef ARBOR_PARALLEL_H
#define ARBOR_PARALLEL_H

#include "arbor/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A small thread pool: threads - 1 workers plus the calling thread (threads 0: one per core).
   Its executor's parallel_for may be called from any thread, also from inside one of its own
   tasks: the pool runs one call at a time, and a call made while it runs another (nested, or
   from a second thread sharing the pool) runs its tasks on the calling thread instead, with the
   same results. */
typedef struct arbor_pool arbor_pool;

typedef struct arbor_pool_desc {      /* all zero: defaults */
    uint32_t threads;                 /* workers + the calling thread; 0: one per core */
    arbor_allocator allocator;        /* all zero: malloc and free. The pool's memory (its
                                         state and the workers' handles: two allocations,
                                         made before any thread starts) */
} arbor_pool_desc;

/* The pool in *out (desc NULL: the defaults). Refused, *out untouched and no thread left
   running: an allocator half given (ARBOR_ERR_INVALID_ARGUMENT), no memory, or a thread that
   cannot start (ARBOR_ERR_OUT_OF_MEMORY). */
ARBOR_API arbor_result arbor_pool_create_desc(const arbor_pool_desc *desc, arbor_pool **out);
/* arbor_pool_create_desc with only the thread count given (malloc and free). */
ARBOR_API arbor_result arbor_pool_create(uint32_t threads, arbor_pool **out);
/* Stops the workers and frees the pool (through its allocator). NULL is allowed. No call of its
   executor may be running. */
ARBOR_API void arbor_pool_destroy(arbor_pool *pool);
/* The threads a call on the pool runs on (its workers and the calling thread); 0 for a NULL
   pool, a getter's "none" (base.h). */
ARBOR_API uint32_t arbor_pool_threads(const arbor_pool *pool);
ARBOR_API arbor_executor arbor_pool_executor(arbor_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
