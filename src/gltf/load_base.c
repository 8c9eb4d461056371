/* SPDX-License-Identifier: MIT */
/* The loader's reporting and memory (load_base.h): every pass and load.c call these, and these
   call nothing of the loader's. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gltf/load_base.h"

/* ---- reporting ------------------------------------------------------------------------------- */

const char *arbor__ld_at(ld *L, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->ptr, sizeof L->ptr, fmt, ap);
    va_end(ap);
    return L->ptr;
}

/* Each issue code's name and the Khronos validator's severity. */
#define LD_ISSUE_NAME(code, severity) #code,
static const char *const issue_names[] = {LD_ISSUES(LD_ISSUE_NAME)};
#define LD_ISSUE_SEVERITY(code, severity) severity,
static const int8_t issue_severities[] = {LD_ISSUES(LD_ISSUE_SEVERITY)};

/* arbor_gltf_validate: one more issue (the first issue_cap are kept). */
static void add_issue(ld *L, arbor_result code, ld_issue issue, const char *ptr, int64_t offset, const char *reason) {
    if (!L->issue_count) L->issue_code = code;
    if (L->issue_count < L->issue_cap && L->messages) {
        arbor_gltf_message *M = &L->messages[L->issue_count];
        *M = (arbor_gltf_message){.result = code, .severity = issue_severities[issue], .offset = offset};
        snprintf(M->code, sizeof M->code, "%s", issue_names[issue]);
        snprintf(M->pointer, sizeof M->pointer, "%s", ptr ? ptr : "");
        snprintf(M->message, sizeof M->message, "%s", reason);
    } else if (L->issue_count < L->issue_cap) {
        arbor_gltf_issue *I = &L->issues[L->issue_count];
        I->code = code;
        snprintf(I->pointer, sizeof I->pointer, "%s", ptr ? ptr : "");
        if (offset >= 0)
            snprintf(I->message, sizeof I->message, "GLB offset %lld: %s", (long long)offset, reason);
        else
            snprintf(I->message, sizeof I->message, "%s", reason);
    }
    if (L->issue_count < UINT32_MAX) L->issue_count++;
}

/* Records the first error as the thread's last error, with its place. */
static void record(ld *L, arbor_result code, ld_issue issue, const char *ptr, int64_t offset, const char *fmt,
                   va_list ap) {
    if (L->code) return;
    char reason[400];
    vsnprintf(reason, sizeof reason, fmt, ap);
    L->code = code;
    if (L->validating) { /* the last issue */
        add_issue(L, code, issue, ptr, offset, reason);
        return;
    }
    /* from memory there is no file: the call's name says where the bytes came from */
    arbor__place at = { L->memory ? NULL : L->file, ptr, L->line, L->column };
    const char *fn = L->memory ? "arbor_gltf_load_memory" : "arbor_gltf_load";
    if (offset >= 0)
        arbor__fail_at(code, fn, &at, "GLB offset %lld: %s", (long long)offset, reason);
    else
        arbor__fail_at(code, fn, &at, "%s", reason);
}

bool arbor__ld_bad(ld *L, ld_issue issue, const char *ptr, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (!L->opt.lenient) {
        record(L, ARBOR_ERR_PARSE, issue, ptr, -1, fmt, ap);
        va_end(ap);
        return false;
    }
    char reason[400];
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (L->validating)
        add_issue(L, ARBOR_ERR_PARSE, issue, ptr, -1, reason);
    else
        arbor__log(L->s, ARBOR_LOG_WARN, "%s: %s: %s", L->file, ptr && ptr[0] ? ptr : "/", reason);
    return true;
}

bool arbor__ld_stop(ld *L, arbor_result code, ld_issue issue, const char *ptr, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    record(L, code, issue, ptr, -1, fmt, ap);
    va_end(ap);
    return false;
}

bool arbor__ld_stop_glb(ld *L, ld_issue issue, uint64_t offset, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    record(L, ARBOR_ERR_PARSE, issue, NULL, (int64_t)offset, fmt, ap);
    va_end(ap);
    return false;
}

void arbor__ld_note(ld *L, const char *ptr, const char *fmt, ...) {
    char reason[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    arbor__log(L->s, ARBOR_LOG_INFO, "%s: %s: %s", L->file, ptr, reason);
}

void *arbor__ld_calloc(ld *L, size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) {
        arbor__ld_stop(L, ARBOR_ERR_OUT_OF_MEMORY, LDI_ARBOR_OUT_OF_MEMORY, NULL, "%zu elements of %zu bytes are too many", n, size);
        return NULL;
    }
    void *p = arbor__alloc_with(L->a, n * size);
    if (!p) {
        arbor__ld_stop(L, ARBOR_ERR_OUT_OF_MEMORY, LDI_ARBOR_OUT_OF_MEMORY, NULL, "no memory for %zu bytes", n * size);
        return NULL;
    }
    memset(p, 0, n * size);
    return p;
}

void arbor__ld_free(ld *L, void *p, size_t n, size_t size) { arbor__free_with(L->a, p, n * size); }
