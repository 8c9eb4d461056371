/* SPDX-License-Identifier: MIT */
/* arbor's own small thread pool: an executor for arbor_scene_update_parallel. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "arbor/arbor.h"
#include "base/base_internal.h"

struct arbor_pool {
    arbor_allocator allocator; /* the desc's: the pool and its workers' handles */
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    pthread_t *workers;
    uint32_t threads;          /* workers + the calling thread */
    uint64_t generation;       /* bumped per parallel_for: wakes the workers */
    bool stop;
    /* the job of the current parallel_for */
    arbor_task_fn fn;
    void *task_user;
    uint32_t count;
    atomic_uint next;          /* the next index to hand out */
    uint32_t busy;             /* workers still inside the job */
    atomic_bool taken;         /* a parallel_for owns the job above */
};

/* Takes indices until none are left. */
static void run_tasks(arbor_pool *p) {
    for (uint32_t i; (i = atomic_fetch_add(&p->next, 1)) < p->count;) p->fn(p->task_user, i);
}

static void *worker(void *arg) {
    arbor_pool *p = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->generation == seen) pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop) break;
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        run_tasks(p);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* The pool has one job at a time. A call while it runs one -- from a task of that job (nested)
   or from another thread sharing the pool -- runs its tasks on the calling thread: waiting for
   the pool there could wait for itself. */
static void pool_parallel_for(void *user, uint32_t count, arbor_task_fn fn, void *task_user) {
    arbor_pool *p = user;
    if (p->threads <= 1 || count <= 1 || atomic_exchange(&p->taken, true)) {
        for (uint32_t i = 0; i < count; i++) fn(task_user, i);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->task_user = task_user;
    p->count = count;
    atomic_store(&p->next, 0);
    p->busy = p->threads - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    run_tasks(p);
    pthread_mutex_lock(&p->lock);
    while (p->busy) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
    atomic_store(&p->taken, false);
}

static void stop_workers(arbor_pool *p, uint32_t started) {
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (uint32_t i = 0; i < started; i++) pthread_join(p->workers[i], NULL);
}

/* The pool's memory and synchronisation (its workers stopped); `slots` workers' handles. */
static void free_pool(arbor_pool *p, uint32_t slots) {
    const arbor_allocator a = p->allocator;
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    arbor__free_with(&a, p->workers, (size_t)slots * sizeof *p->workers);
    arbor__free_with(&a, p, sizeof *p);
}

arbor_result arbor_pool_create_desc(const arbor_pool_desc *desc, arbor_pool **out) {
    static const char fn[] = "arbor_pool_create_desc";
    if (!out) return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "out is NULL");
    const arbor_pool_desc d = desc ? *desc : (arbor_pool_desc){ 0 };
    if (!d.allocator.alloc != !d.allocator.free)
        return arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, fn, "the allocator gives %s without %s",
                           d.allocator.alloc ? "alloc" : "free", d.allocator.alloc ? "free" : "alloc");
    uint32_t threads = d.threads;
    if (threads == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (uint32_t)cores : 1;
    }
    arbor_pool *p = arbor__alloc_with(&d.allocator, sizeof *p);
    if (!p) return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for the pool");
    *p = (arbor_pool){ .allocator = d.allocator, .threads = threads };
    atomic_init(&p->taken, false);
    atomic_init(&p->next, 0);
    p->workers = arbor__alloc_with(&d.allocator, (size_t)threads * sizeof *p->workers);
    if (!p->workers || pthread_mutex_init(&p->lock, NULL) || pthread_cond_init(&p->wake, NULL) ||
        pthread_cond_init(&p->done, NULL)) {
        arbor__free_with(&d.allocator, p->workers, (size_t)threads * sizeof *p->workers);
        arbor__free_with(&d.allocator, p, sizeof *p);
        return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "no memory for %u threads", threads);
    }
    for (uint32_t i = 0; i + 1 < threads; i++)
        if (pthread_create(&p->workers[i], NULL, worker, p)) {
            stop_workers(p, i); /* the workers started so far */
            free_pool(p, threads);
            return arbor__fail(ARBOR_ERR_OUT_OF_MEMORY, fn, "thread %u of %u could not start", i + 2, threads);
        }
    *out = p;
    return ARBOR_OK;
}

arbor_result arbor_pool_create(uint32_t threads, arbor_pool **out) {
    return arbor_pool_create_desc(&(arbor_pool_desc){ .threads = threads }, out);
}

void arbor_pool_destroy(arbor_pool *p) {
    if (!p) return;
    stop_workers(p, p->threads - 1);
    free_pool(p, p->threads);
}

uint32_t arbor_pool_threads(const arbor_pool *p) { return p ? p->threads : 0; }

/* No pool: no parallel_for, which every call taking an executor reads as serial. */
arbor_executor arbor_pool_executor(arbor_pool *p) { return (arbor_executor){ p ? pool_parallel_for : NULL, p }; }
