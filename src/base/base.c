/* SPDX-License-Identifier: MIT */
/* Result codes, the thread's last error, allocation (through a scene's hooks or an allocator given
   apart) and logging. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ARBOR__STR2(x) #x
#define ARBOR__STR(x) ARBOR__STR2(x)

const char *arbor_version(void) {
    return ARBOR__STR(ARBOR_VERSION_MAJOR) "." ARBOR__STR(ARBOR_VERSION_MINOR) "." ARBOR__STR(ARBOR_VERSION_PATCH);
}

size_t arbor_real_size(void) { return sizeof(arbor_real); }

/* base.h: the mark of this library's precision, which every program built for it refers to. */
#if ARBOR_REAL_IS_DOUBLE
const int arbor_precision_double = 8;
#else
const int arbor_precision_float = 4;
#endif

const char *arbor_result_string(arbor_result result) {
    switch (result) {
#define ARBOR_RESULT_CASE_(name, words) \
    case name:                          \
        return words;
        ARBOR_RESULT_LIST(ARBOR_RESULT_CASE_)
#undef ARBOR_RESULT_CASE_
    default:
        return "unknown result";
    }
}

/* The thread's last error: the message and, apart, its place. */
static _Thread_local struct {
    arbor_result code;
    char message[512], file[256], pointer[256];
    uint32_t line, column;
} last;

const char *arbor_last_error(void) { return last.message; }

arbor_error_info arbor_last_error_info(void) {
    return (arbor_error_info){ .code = last.code, .message = last.message, .file = last.file,
                               .pointer = last.pointer, .line = last.line, .column = last.column };
}

static void copy_field(char *to, size_t cap, const char *from) {
    snprintf(to, cap, "%s", from ? from : "");
}

static arbor_result vfail(arbor_result code, const char *func, const arbor__place *at, const char *fmt, va_list ap) {
    last.code = code;
    copy_field(last.file, sizeof last.file, at ? at->file : NULL);
    copy_field(last.pointer, sizeof last.pointer, at ? at->pointer : NULL);
    last.line = at ? at->line : 0;
    last.column = at ? at->column : 0;
    int used = last.file[0] && last.pointer[0]
                   ? snprintf(last.message, sizeof last.message, "%s: %s: %s: ", func, last.file, last.pointer)
               : last.file[0] ? snprintf(last.message, sizeof last.message, "%s: %s: ", func, last.file)
                              : snprintf(last.message, sizeof last.message, "%s: ", func);
    if (used < 0 || (size_t)used >= sizeof last.message) used = (int)strlen(last.message);
    vsnprintf(last.message + used, sizeof last.message - (size_t)used, fmt, ap);
    return code;
}

arbor_result arbor__fail(arbor_result code, const char *func, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(code, func, NULL, fmt, ap);
    va_end(ap);
    return code;
}

arbor_result arbor__fail_at(arbor_result code, const char *func, const arbor__place *at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(code, func, at, fmt, ap);
    va_end(ap);
    return code;
}

uint32_t arbor__require_failed(arbor_node n, const char *func, arbor_result *result) {
    if (n.id == 0)
        *result = arbor__fail(ARBOR_ERR_INVALID_ARGUMENT, func, "a node is required, ARBOR_NONE was given");
    else
        *result = arbor__fail(ARBOR_ERR_DEAD_NODE, func, "the node given is not alive (destroyed, or of another scene)");
    return 0;
}

void *arbor__alloc(arbor_scene *s, size_t size) {
    s->stats.allocations++;
    return s->allocator.alloc ? s->allocator.alloc(s->allocator.user, size) : malloc(size);
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

void *arbor__alloc_with(const arbor_allocator *a, size_t size) {
    if (size == 0) size = 1;
    return a->alloc ? a->alloc(a->user, size) : malloc(size);
}

void arbor__free_with(const arbor_allocator *a, void *p, size_t size) {
    if (!p) return;
    if (size == 0) size = 1;
    if (a->free)
        a->free(a->user, p, size);
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
