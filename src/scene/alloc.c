/* SPDX-License-Identifier: MIT */
/* Allocation and logging through the scene's allocator and log (arbor_scene_desc), the walk
   bound, and the refusal of a node argument that names no live node. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_internal.h"

void *arbor__alloc(arbor_scene *s, size_t size) {
    s->stats.allocations++;
    return s->allocator.alloc ? s->allocator.alloc(s->allocator.user, size) : malloc(size);
}

void *arbor__alloc_zeroed(arbor_scene *s, size_t size) {
    if (s->allocator.alloc) {
        void *p = arbor__alloc(s, size);
        if (p) memset(p, 0, size);
        return p;
    }
    s->stats.allocations++;
    return calloc(1, size); /* fresh pages come zeroed: not even touched */
}

void *arbor__realloc(arbor_scene *s, void *p, size_t old_size, size_t new_size) {
    if (!p) return arbor__alloc(s, new_size);
    s->stats.allocations++;
    if (!s->allocator.alloc) return realloc(p, new_size);
    if (s->allocator.realloc) return s->allocator.realloc(s->allocator.user, p, old_size, new_size);
    void *fresh = s->allocator.alloc(s->allocator.user, new_size);
    if (!fresh) return NULL;
    memcpy(fresh, p, old_size < new_size ? old_size : new_size);
    s->allocator.free(s->allocator.user, p, old_size);
    return fresh;
}

void arbor__free(arbor_scene *s, void *p, size_t size) {
    if (!p) return;
    if (s->allocator.free)
        s->allocator.free(s->allocator.user, p, size);
    else
        free(p);
}

void arbor__log(arbor_scene *s, arbor_log_level level, const char *fmt, ...) {
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (s->log)
        s->log(s->log_user, level, message);
    else if (level != ARBOR_LOG_INFO)
        fprintf(stderr, "arbor: %s: %s\n", level == ARBOR_LOG_ERROR ? "error" : "warning", message);
}

void arbor__walk_bound(const arbor_scene *s, const char *walk, uint64_t bound) {
    /* Corrupt links are a bug, not an input; say it once and let the walk stop. The flag is
       the only write, and only a corrupt scene reaches it. */
    arbor_scene *writable = (arbor_scene *)(uintptr_t)s;
    if (writable->walk_warned) return;
    writable->walk_warned = true;
    arbor__log(writable, ARBOR_LOG_ERROR, "%s stopped at its bound of %llu steps: the hierarchy's links are corrupt",
               walk, (unsigned long long)bound);
}

uint32_t arbor__require_failed(const arbor_scene *s, arbor_node n, const char *func, arbor_result *result) {
    if (!s)
        *result = arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "no scene was given (NULL)");
    else if (n.id == 0)
        *result = arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "a node is required, ARBOR_NONE was given");
    else
        *result = arbor__fail(ARBOR_ERR_DEAD_NODE, func, "the node given is not alive (destroyed, or of another scene)");
    return 0;
}
