/* SPDX-License-Identifier: MIT */
/* Result codes, the thread's last error, allocation through an allocator given apart (a scene's
   own allocation and logging: scene/alloc.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"

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
               : last.file[0] || last.pointer[0]
                   ? snprintf(last.message, sizeof last.message, "%s: %s: ", func, last.file[0] ? last.file : last.pointer)
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
