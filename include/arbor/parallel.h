/* SPDX-License-Identifier: MIT */
/*
 * arbor/parallel.h: many nodes at once, on all cores.
 *
 * - Bulk writes set one component of many nodes in one call: the same rules as the per-node
 *   setters (a failed call changes nothing: every input is checked before anything is written).
 * - arbor_scene_update_parallel() is arbor_scene_update() spread over an executor: the host's
 *   job system given as a parallel_for callback, or arbor's own small pool. The matrices are
 *   bitwise the same as a serial update's and a lazy read's, for any number of threads.
 * - arbor never starts a thread behind the caller's back: only arbor_pool_create() does.
 */
#ifndef ARBOR_PARALLEL_H
#define ARBOR_PARALLEL_H

#include "arbor/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One task of a parallel_for: index is in [0, count). */
typedef void (*arbor_task_fn)(void *task_user, uint32_t index);

typedef struct arbor_executor {
    /* Runs fn(task_user, i) once for every i in [0, count), in any order and on any threads,
       and returns when all have finished. */
    void (*parallel_for)(void *user, uint32_t count, arbor_task_fn fn, void *task_user);
    void *user;
} arbor_executor;

/* Brings every world matrix up to date like arbor_scene_update, running independent dirty
   subtrees (and the parts of one huge tree below its top levels) as tasks of the executor.
   executor NULL: serial. */
ARBOR_API void arbor_scene_update_parallel(arbor_scene *s, const arbor_executor *executor);

/* A small thread pool: threads - 1 workers plus the calling thread (threads 0: one per core).
   Its executor's parallel_for may be called from any thread, also from inside one of its own
   tasks: the pool runs one call at a time, and a call made while it runs another (nested, or
   from a second thread sharing the pool) runs its tasks on the calling thread instead, with the
   same results. */
typedef struct arbor_pool arbor_pool;
/* The pool in *out. Refused, *out untouched: no memory, or a thread that cannot start
   (ARBOR_ERR_OUT_OF_MEMORY). */
ARBOR_API arbor_result arbor_pool_create(uint32_t threads, arbor_pool **out);
ARBOR_API void arbor_pool_destroy(arbor_pool *pool);
ARBOR_API uint32_t arbor_pool_threads(const arbor_pool *pool);
ARBOR_API arbor_executor arbor_pool_executor(arbor_pool *pool);

/* Bulk writes: nodes[i] gets values[i * k .. i * k + k - 1] (k = 3, 4, 3 or 10 for
   translation, rotation, scale, TRS laid out as arbor_trs). Refused with nothing written:
   a dead or NONE handle (ARBOR_ERR_DEAD_NODE / ARBOR_ERR_INVALID_ARGUMENT), a locked node
   (ARBOR_ERR_LOCKED), a NaN or infinity (ARBOR_ERR_NONFINITE), a zero quaternion
   (ARBOR_ERR_INVALID_ARGUMENT). Quaternions are normalised. */
ARBOR_API arbor_result arbor_scene_set_translations(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count);
ARBOR_API arbor_result arbor_scene_set_rotations(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count);
ARBOR_API arbor_result arbor_scene_set_scales(arbor_scene *s, const arbor_node *nodes, const arbor_real *values, uint32_t count);

/* The bulk writes above with the work shared out on an executor (NULL: serial). Same results
   and refusals (the lowest refused index is the one reported). The writes run in parallel
   when they pay: many nodes (16,384 or more, at least an eighth of the scene) in strictly
   increasing creation order -- the order a scene built parents first gives, with no node
   twice -- in a scene whose nodes all come after their parents in creation order (no
   reparenting under a later node, no reuse of a destroyed node's storage under an earlier
   parent). Otherwise they run on the calling thread as the serial calls do. */
ARBOR_API arbor_result arbor_scene_set_translations_parallel(arbor_scene *s, const arbor_node *nodes, const arbor_real *values,
                                                             uint32_t count, const arbor_executor *executor);
ARBOR_API arbor_result arbor_scene_set_rotations_parallel(arbor_scene *s, const arbor_node *nodes, const arbor_real *values,
                                                          uint32_t count, const arbor_executor *executor);
ARBOR_API arbor_result arbor_scene_set_scales_parallel(arbor_scene *s, const arbor_node *nodes, const arbor_real *values,
                                                       uint32_t count, const arbor_executor *executor);

#ifdef __cplusplus
}
#endif
#endif
