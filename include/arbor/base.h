/* SPDX-License-Identifier: MIT */
/*
 * arbor/base.h: what every part of arbor shares.
 *
 * - arbor_real: float, or double when the library was built with ARBOR_DOUBLE=ON
 *   (ARBOR_REAL_IS_DOUBLE is then defined to 1 here, by the build). A program must be
 *   compiled with the same setting as the library it links; arbor_real_size() lets it check.
 * - arbor_result: every fallible call returns one; ARBOR_OK is 0. A failed call makes no
 *   observable change. arbor_result_string() names a code; arbor_last_error() gives the
 *   message of the calling thread's last failed call (what, and where).
 * - arbor_node: a handle, a 64-bit value (id, and above it the id's generation and a tag of its
 *   scene). ARBOR_NONE (id 0) is no node. A destroyed node's handle stays dead: its slot may be
 *   reused, never its handle. A handle names its scene: in any other scene it is dead (refused
 *   as ARBOR_ERR_DEAD_NODE) on every path, as long as the two scenes are alive together and at
 *   most 4096 scenes are alive in the process (tags are 12 bits; beyond 4096, new scenes share
 *   tags). A destroyed scene's tag goes to a new scene only after every other free tag did
 *   (round robin), so its handles stay dead in the scenes made soon after it.
 * - Allocator and log hooks, used per scene (see arbor_scene_desc in scene.h).
 * - NULL: every function takes NULL for any pointer argument without harm. Where a header gives
 *   NULL a meaning (a NULL desc for defaults, NULL stats or exact to skip them, NULL to free
 *   or remove), that is what it does. Otherwise a NULL scene (journal, clip, player, skins,
 *   document, pool), a NULL array with a nonzero count or a NULL out-pointer is refused by a
 *   function that returns arbor_result (ARBOR_ERR_INVALID_ARGUMENT, nothing changed); a getter
 *   returns its "none" (0, false, NULL, ARBOR_NONE, or -1 where -1 means none) and writes
 *   nothing, and one that counts into an out array (collect, changed, roots) returns the count
 *   with nothing written; a void function does nothing. The math functions of math.h do
 *   nothing for a NULL out or input (bool ones return false; arbor_quat_normalize of NULL q
 *   gives the identity).
 */
#ifndef ARBOR_BASE_H
#define ARBOR_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arbor/config.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ARBOR_VERSION_MAJOR 1
#define ARBOR_VERSION_MINOR 1
#define ARBOR_VERSION_PATCH 0

#if defined(_WIN32) && defined(ARBOR_SHARED_BUILD)
#define ARBOR_API __declspec(dllexport)
#elif defined(__GNUC__)
#define ARBOR_API __attribute__((visibility("default")))
#else
#define ARBOR_API
#endif

/* Follows the declaration of a name kept from an earlier 1.y for the programs built with it
   (still exported, still doing what it did) that has a better replacement: a new compile that
   calls it gets a warning naming the replacement (docs/MIGRATING.md says why). Define
   ARBOR_NO_DEPRECATION_WARNINGS before including arbor to compile old code as it is. */
#if defined(__GNUC__) && !defined(ARBOR_NO_DEPRECATION_WARNINGS)
#define ARBOR_DEPRECATED(replacement) __attribute__((deprecated("use " replacement " (docs/MIGRATING.md)")))
#else
#define ARBOR_DEPRECATED(replacement)
#endif

#if ARBOR_REAL_IS_DOUBLE
typedef double arbor_real;
#else
typedef float arbor_real;
#endif

/* A program compiled for one arbor_real cannot link against the library of the other: every
   file that includes arbor refers to the precision mark of its arbor_real, which only the library
   of that precision defines. Linking a float program against libarbor64, or a double one against
   libarbor, fails with "undefined reference to arbor_precision_float" (or _double). */
#if ARBOR_REAL_IS_DOUBLE
ARBOR_API extern const int arbor_precision_double;
#define ARBOR_PRECISION_MARK_ arbor_precision_double
#else
ARBOR_API extern const int arbor_precision_float;
#define ARBOR_PRECISION_MARK_ arbor_precision_float
#endif
#if defined(__GNUC__)
static const int *const arbor_precision_mark_ __attribute__((used)) = &ARBOR_PRECISION_MARK_;
#endif

/* One list makes both the enum and the words of arbor_result_string(). */
#define ARBOR_RESULT_LIST(X)                                                              \
    X(ARBOR_OK, "ok")                                                                     \
    X(ARBOR_ERR_INVALID_ARGUMENT, "invalid argument")                                     \
    X(ARBOR_ERR_DEAD_NODE, "dead node handle")                                            \
    X(ARBOR_ERR_CYCLE, "the link would make a ring")                                      \
    X(ARBOR_ERR_NOT_A_CHILD, "the 'before' node is not a child of the new parent")        \
    X(ARBOR_ERR_LOCKED, "the node's local matrix is locked")                              \
    X(ARBOR_ERR_SINGULAR, "the matrix cannot be inverted")                                \
    X(ARBOR_ERR_NONFINITE, "a NaN or infinity was given")                                 \
    X(ARBOR_ERR_DEPTH_LIMIT, "the link would exceed the scene's maximum depth")           \
    X(ARBOR_ERR_OUT_OF_MEMORY, "out of memory")                                           \
    X(ARBOR_ERR_IO, "input or output failed")                                             \
    X(ARBOR_ERR_PARSE, "the input could not be parsed")                                   \
    X(ARBOR_ERR_UNSUPPORTED, "unsupported")                                               \
    X(ARBOR_ERR_NOT_CONNECTED, "the nodes are in different trees")                        \
    X(ARBOR_ERR_EXTRAPOLATION, "the time is outside a node's samples")

typedef enum arbor_result {
#define ARBOR_RESULT_ENUM_(name, words) name,
    ARBOR_RESULT_LIST(ARBOR_RESULT_ENUM_)
#undef ARBOR_RESULT_ENUM_
    ARBOR_RESULT_COUNT_
} arbor_result;

/* The code in words ("dead node handle"); "unknown result" for a value outside the enum. */
ARBOR_API const char *arbor_result_string(arbor_result result);

/* The message of the last call that failed on this thread: the function, the place and what
   was wrong, naming nodes by path (see arbor.h), e.g. "arbor_node_set_parent: node 'base'
   cannot go under its descendant 'base/arm': that would make a ring", or "arbor_gltf_load:
   robot.gltf: /nodes/7/children/1: node 3 already has parent 5". Thread-local like errno; ""
   when no call failed yet. Valid until the next failing call on this thread. */
ARBOR_API const char *arbor_last_error(void);

/* The same failure in parts. Strings are "" and numbers 0 where there is nothing to say. */
typedef struct arbor_error_info {
    arbor_result code;     /* what the failed call returned; ARBOR_OK when none failed yet */
    const char *message;   /* arbor_last_error() */
    const char *file;      /* the file the failure is in ("" for a load from memory) */
    const char *pointer;   /* a JSON pointer into that file ("/nodes/7/children/1") */
    uint32_t line, column; /* 1-based, in the file's text (JSON syntax errors) */
} arbor_error_info;

/* The calling thread's last failure in parts; its strings live as arbor_last_error()'s. */
ARBOR_API arbor_error_info arbor_last_error_info(void);

/* "1.1.0", matching the ARBOR_VERSION_* macros the library was built with. The shared library's
   SONAME carries the major version (libarbor.so.1). */
ARBOR_API const char *arbor_version(void);

/* sizeof(arbor_real) in the built library: 4 (float) or 8 (double). */
ARBOR_API size_t arbor_real_size(void);

typedef struct arbor_node { uint64_t id; } arbor_node;

/* No node: a root's parent, the end of a walk, "append" as a 'before' sibling. */
#ifdef __cplusplus
#define ARBOR_NONE (arbor_node{0})
#else
#define ARBOR_NONE ((arbor_node){0})
#endif

/* True when a and b are the same handle (two ARBOR_NONE are equal); true for ARBOR_NONE. */
static inline bool arbor_node_equal(arbor_node a, arbor_node b) { return a.id == b.id; }
static inline bool arbor_node_is_none(arbor_node n) { return n.id == 0; }

/* All zero: the C library's malloc, realloc and free. Otherwise alloc and free are required;
   realloc may be NULL (arbor then allocates, copies and frees). Sizes are passed back to free
   and realloc so pool allocators need no headers. Allocations arbor asks for are aligned as
   malloc's. */
typedef struct arbor_allocator {
    void *(*alloc)(void *user, size_t size);
    void *(*realloc)(void *user, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *user, void *ptr, size_t size);
    void *user;
} arbor_allocator;

typedef enum arbor_log_level { ARBOR_LOG_ERROR, ARBOR_LOG_WARN, ARBOR_LOG_INFO } arbor_log_level;
typedef void (*arbor_log_fn)(void *user, arbor_log_level level, const char *message);

#ifdef __cplusplus
}
#endif
#endif
