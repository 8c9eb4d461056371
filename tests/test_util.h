/* SPDX-License-Identifier: MIT */
/*
 * tests/test_util.h: what the scene tests share.
 *
 * - cmocka, included the way it wants (stdarg, stddef, setjmp first);
 * - tolerances that follow arbor_real (float or double builds);
 * - assertions on reals, 3-vectors and 4x4 matrices that print both sides;
 * - splitmix64, the fixed-seed generator of shared/bench/WORKLOADS.md;
 * - a counting allocator that checks the sizes arbor passes back to free and realloc;
 * - a reference TRS composer and product in double, independent of the library;
 * - the course's robot arm (seed 002 sections 4 and 14).
 *
 * Everything is static inline so each test program takes only what it uses.
 */
#ifndef ARBOR_TEST_UTIL_H
#define ARBOR_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arbor/arbor.h"
#include "support/ref.h"
#include "../bench/splitmix64.h"

/* ---- Tolerances ------------------------------------------------------------------------------- */

/* An identity that holds exactly in real arithmetic, computed in arbor_real (a few roundings on
   values of order one). */
#if ARBOR_REAL_IS_DOUBLE
#define TEST_EPS 1e-10
/* A round trip through an inverse or a decomposition (keep-world reparenting). */
#define TEST_EPS_ROUNDTRIP 1e-8
#else
#define TEST_EPS 1e-5
#define TEST_EPS_ROUNDTRIP 1e-4
#endif

/* Values printed by a seed to 2 or 3 decimals. */
#define TEST_TOL_2DP 0.01
#define TEST_TOL_3DP 0.001

/* ---- Assertions ---------------------------------------------------------------------------------- */

static inline void test_near_(double a, double b, double tol, const char *what, const char *file, int line)
{
    /* written so that a NaN fails */
    if (!(fabs(a - b) <= tol)) {
        print_error("%s: %.9g, expected %.9g (difference %.3g, tolerance %.3g)\n", what, a, b, fabs(a - b), tol);
        _fail(file, line);
    }
}

/* |a - b| <= tol */
#define ASSERT_NEAR(a, b, tol) test_near_((double)(a), (double)(b), (double)(tol), #a, __FILE__, __LINE__)

/* |a - b| <= tol * max(1, |a|, |b|) */
static inline void test_near_rel_(double a, double b, double tol, const char *what, const char *file, int line)
{
    double scale = 1.0;
    if (fabs(a) > scale) scale = fabs(a);
    if (fabs(b) > scale) scale = fabs(b);
    test_near_(a, b, tol * scale, what, file, line);
}
#define ASSERT_NEAR_REL(a, b, tol) test_near_rel_((double)(a), (double)(b), (double)(tol), #a, __FILE__, __LINE__)

static inline void test_vec3_near_(const arbor_real *v, double x, double y, double z, double tol, const char *what,
                                   const char *file, int line)
{
    double e[3] = { x, y, z };
    for (int i = 0; i < 3; i++) {
        if (!(fabs((double)v[i] - e[i]) <= tol)) {
            print_error("%s: (%.6g, %.6g, %.6g), expected (%.6g, %.6g, %.6g) within %.3g (component %d)\n", what,
                        (double)v[0], (double)v[1], (double)v[2], x, y, z, tol, i);
            _fail(file, line);
        }
    }
}
/* v (3 arbor_real) == (x, y, z) within tol */
#define ASSERT_VEC3_NEAR(v, x, y, z, tol)                                                                       \
    test_vec3_near_((v), (double)(x), (double)(y), (double)(z), (double)(tol), #v, __FILE__, __LINE__)

static inline void test_print_mat4_(const char *label, const double *m)
{
    print_error("  %s (rows):\n", label);
    for (int r = 0; r < 4; r++)
        print_error("    [% .6f % .6f % .6f % .6f]\n", m[0 * 4 + r], m[1 * 4 + r], m[2 * 4 + r], m[3 * 4 + r]);
}

/* a: column-major arbor_real[16]; e: column-major double[16]. */
static inline void test_mat4_near_(const arbor_real *a, const double *e, double tol, bool relative, const char *what,
                                   const char *file, int line)
{
    for (int i = 0; i < 16; i++) {
        double d = fabs((double)a[i] - e[i]);
        double t = tol;
        if (relative) {
            double sc = 1.0;
            if (fabs((double)a[i]) > sc) sc = fabs((double)a[i]);
            if (fabs(e[i]) > sc) sc = fabs(e[i]);
            t *= sc;
        }
        if (!(d <= t)) {
            double ad[16];
            for (int k = 0; k < 16; k++) ad[k] = (double)a[k];
            print_error("%s: element %d (row %d, column %d) is %.9g, expected %.9g (tolerance %.3g)\n", what, i,
                        i % 4, i / 4, (double)a[i], e[i], t);
            test_print_mat4_("actual", ad);
            test_print_mat4_("expected", e);
            _fail(file, line);
        }
    }
}

static inline void test_mat4_near_real_(const arbor_real *a, const arbor_real *b, double tol, bool relative,
                                        const char *what, const char *file, int line)
{
    double e[16];
    for (int i = 0; i < 16; i++) e[i] = (double)b[i];
    test_mat4_near_(a, e, tol, relative, what, file, line);
}

/* Both arbor_real[16]. */
#define ASSERT_MAT4_NEAR(a, b, tol) test_mat4_near_real_((a), (b), (double)(tol), false, #a " vs " #b, __FILE__, __LINE__)
#define ASSERT_MAT4_NEAR_REL(a, b, tol)                                                                         \
    test_mat4_near_real_((a), (b), (double)(tol), true, #a " vs " #b, __FILE__, __LINE__)
/* a: arbor_real[16]; e: double[16], column-major. */
#define ASSERT_MAT4_NEAR_D(a, e, tol) test_mat4_near_((a), (e), (double)(tol), false, #a, __FILE__, __LINE__)
#define ASSERT_MAT4_NEAR_D_REL(a, e, tol) test_mat4_near_((a), (e), (double)(tol), true, #a, __FILE__, __LINE__)

/* a: arbor_real[16] column-major; rows: double[16] written row by row, as a seed prints it. */
static inline void test_mat4_rows_near_(const arbor_real *a, const double *rows, double tol, const char *what,
                                        const char *file, int line)
{
    double e[16];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) e[c * 4 + r] = rows[r * 4 + c];
    test_mat4_near_(a, e, tol, false, what, file, line);
}
#define ASSERT_MAT4_ROWS_NEAR(a, rows, tol) test_mat4_rows_near_((a), (rows), (double)(tol), #a, __FILE__, __LINE__)

/* Bit-for-bit equality of two matrices (or any arrays of arbor_real). */
#define ASSERT_REALS_BITS_EQUAL(a, b, n) assert_memory_equal((a), (b), sizeof(arbor_real) * (size_t)(n))

#define ASSERT_NODE_EQ(a, b) assert_int_equal((a).id, (b).id)
#define ASSERT_NODE_NONE(a) assert_int_equal((a).id, 0)

/* ---- Quaternions compared as rotations (q and -q are the same rotation) ------------------------- */

static inline void test_quat_same_rotation_(const arbor_real *q, double x, double y, double z, double w, double tol,
                                            const char *what, const char *file, int line)
{
    double dot = (double)q[0] * x + (double)q[1] * y + (double)q[2] * z + (double)q[3] * w;
    double sgn = dot < 0 ? -1.0 : 1.0;
    double e[4] = { sgn * x, sgn * y, sgn * z, sgn * w };
    for (int i = 0; i < 4; i++) {
        if (!(fabs((double)q[i] - e[i]) <= tol)) {
            print_error("%s: (%.6g, %.6g, %.6g, %.6g), expected +-(%.6g, %.6g, %.6g, %.6g) within %.3g\n", what,
                        (double)q[0], (double)q[1], (double)q[2], (double)q[3], x, y, z, w, tol);
            _fail(file, line);
        }
    }
}
#define ASSERT_QUAT_SAME_ROTATION(q, x, y, z, w, tol)                                                          \
    test_quat_same_rotation_((q), (double)(x), (double)(y), (double)(z), (double)(w), (double)(tol), #q, __FILE__, \
                             __LINE__)

static inline double test_quat_len(const arbor_real q[4])
{
    return sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
}

/* ---- Results -------------------------------------------------------------------------------------- */

static inline void test_result_(arbor_result got, arbor_result want, const char *expr, const char *file, int line)
{
    if (got != want) {
        print_error("%s returned %d (%s), expected %d (%s); last error: \"%s\"\n", expr, (int)got,
                    arbor_result_string(got), (int)want, arbor_result_string(want), arbor_last_error());
        _fail(file, line);
    }
}
/* call must return ARBOR_OK. */
#define ASSERT_OK(call) test_result_((call), ARBOR_OK, #call, __FILE__, __LINE__)

/* arbor_scene_cull that must succeed: the number of visible nodes. */
static inline uint32_t test_cull_(arbor_scene *s, const arbor_real *planes, uint32_t plane_count, arbor_node *out,
                                  uint32_t cap, arbor_cull_stats *stats, const char *file, int line)
{
    uint32_t count = UINT32_MAX;
    arbor_result r = arbor_scene_cull(s, planes, plane_count, out, cap, &count, stats);
    if (r != ARBOR_OK) {
        print_error("arbor_scene_cull: %s (%s)\n", arbor_result_string(r), arbor_last_error());
        _fail(file, line);
    }
    return count;
}
#define TEST_CULL(s, planes, plane_count, out, cap, stats) \
    test_cull_((s), (planes), (plane_count), (out), (cap), (stats), __FILE__, __LINE__)

/* call must return code, and arbor_last_error() must then be a non-empty message that names fname
   (the function that refused). */
static inline void test_refused_(arbor_result got, arbor_result want, const char *fname, const char *expr,
                                 const char *file, int line)
{
    test_result_(got, want, expr, file, line);
    const char *msg = arbor_last_error();
    if (msg == NULL || msg[0] == '\0') {
        print_error("%s was refused (%s) but arbor_last_error() is empty\n", expr, arbor_result_string(want));
        _fail(file, line);
    }
    if (fname != NULL && strstr(msg, fname) == NULL) {
        print_error("%s: arbor_last_error() is \"%s\", which does not name the function %s\n", expr, msg, fname);
        _fail(file, line);
    }
}
#define ASSERT_REFUSED(code, fname, call) test_refused_((call), (code), (fname), #call, __FILE__, __LINE__)

/* ---- Skips ------------------------------------------------------------------------------------------ */

/* A test that cannot run here says so: the reason is printed and appended, as "function: reason",
   to skipped.txt in the test output folder, which scripts/test counts into its summary (CTest
   reports a cmocka skip as a pass). ../shared missing is a reason only outside CI: with
   CI=true it fails the test. */
static inline void test_record_skip_(const char *func, const char *reason)
{
    print_message("skipped %s: %s\n", func, reason);
    FILE *f = fopen(ARBOR_TEST_OUTPUT_DIR "/skipped.txt", "a");
    if (f) {
        fprintf(f, "%s: %s\n", func, reason);
        fclose(f);
    }
}
#define TEST_SKIP(reason)                          \
    do {                                           \
        test_record_skip_(__func__, (reason));     \
        skip();                                    \
    } while (0)

static inline void test_shared_absent_(const char *func, const char *path, const char *file, int line)
{
    const char *ci = getenv("CI");
    if (ci && strcmp(ci, "true") == 0) {
        print_error("%s: %s is absent, and CI=true needs ../shared\n", func, path);
        _fail(file, line);
    }
    char reason[512];
    int n = snprintf(reason, sizeof reason, "../shared is absent (%.480s)", path);
    (void)n;
    test_record_skip_(func, reason);
}
/* Skips the rest of the test (fails it under CI=true): the files at path, under ../shared, are missing. */
#define TEST_SKIP_SHARED(path)                                          \
    do {                                                                \
        test_shared_absent_(__func__, (path), __FILE__, __LINE__);      \
        skip();                                                         \
    } while (0)

/* ---- splitmix64 (shared/bench/WORKLOADS.md) ------------------------------------------------------ */

typedef struct test_rng { uint64_t state; } test_rng;

static inline test_rng test_rng_make(uint64_t seed)
{
    test_rng r = { seed };
    return r;
}

static inline uint64_t test_rng_next(test_rng *r) { return splitmix64_next(&r->state); }

/* [0, 1) with 24 bits, exactly representable in float. */
static inline double test_rng_uniform(test_rng *r) { return (double)(test_rng_next(r) >> 40) * (1.0 / 16777216.0); }

/* [-1, 1) */
static inline double test_rng_sym(test_rng *r) { return 2.0 * test_rng_uniform(r) - 1.0; }

/* [0, n) */
static inline uint32_t test_rng_below(test_rng *r, uint32_t n) { return (uint32_t)(test_rng_uniform(r) * n); }

/* A random quaternion normalised in double, identity when too short (WORKLOADS.md); its four
   draws in order. */
static inline void test_rng_unit_quat(test_rng *r, double q[4])
{
    double n = 0;
    for (int i = 0; i < 4; i++) {
        q[i] = test_rng_sym(r);
        n += q[i] * q[i];
    }
    n = sqrt(n);
    if (n < 1e-6) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return;
    }
    for (int i = 0; i < 4; i++) q[i] /= n;
}

static inline void test_rng_quat(test_rng *r, arbor_real q[4])
{
    double v[4];
    test_rng_unit_quat(r, v);
    for (int i = 0; i < 4; i++) q[i] = (arbor_real)v[i];
}

/* An executor that runs the tasks one after another, last first: results must not depend on
   the order tasks run in. */
static inline void test_backwards_for(void *user, uint32_t count, arbor_task_fn fn, void *task_user)
{
    (void)user;
    for (uint32_t i = count; i-- > 0;) fn(task_user, i);
}

/* ---- A counting allocator ------------------------------------------------------------------------- */

/* Counts calls and live bytes, and checks that the size arbor passes back to free and realloc is the
   size it asked for (each block carries a hidden header holding its size). fail_all makes every
   alloc and realloc return NULL; limited with allow = k lets only k more succeed; fail_at = k
   refuses the k-th call alone (counted in calls) and lets the ones after it succeed. peak_bytes
   is the most live_bytes has been; max_live (nonzero) refuses what would take live_bytes above it. */
typedef struct test_counting_allocator {
    uint64_t allocs;         /* alloc calls that succeeded */
    uint64_t reallocs;       /* realloc calls that succeeded */
    uint64_t frees;          /* free calls with a non-NULL pointer */
    uint64_t failed;         /* alloc or realloc refused because fail_all was set */
    uint64_t size_mismatches; /* free or realloc given a size other than the block's */
    int64_t live_bytes;
    int64_t live_blocks;
    int64_t peak_bytes;
    int64_t max_live;
    bool fail_all;
    bool limited;            /* with limited, only `allow` more allocs/reallocs succeed */
    uint64_t allow;
    uint64_t calls;          /* alloc and realloc calls, granted or refused */
    uint64_t fail_at;        /* nonzero: the call that makes `calls` equal to it is refused */
} test_counting_allocator;

/* True when this alloc or realloc must fail (fail_all, fail_at, or the `allow` budget is spent). */
static inline bool test_count_refuse_(test_counting_allocator *c)
{
    c->calls++;
    if (c->fail_all || (c->limited && c->allow == 0) || c->calls == c->fail_at) {
        c->failed++;
        return true;
    }
    if (c->limited) c->allow--;
    return false;
}

#define TEST_ALLOC_HEADER 16 /* keeps malloc's alignment (16 on the platforms we test) */

/* Counts live bytes changing by delta: false (refused, counted as failed) beyond max_live. */
static inline bool test_count_grow_(test_counting_allocator *c, int64_t delta)
{
    if (c->max_live && delta > 0 && c->live_bytes + delta > c->max_live) {
        c->failed++;
        return false;
    }
    c->live_bytes += delta;
    if (c->live_bytes > c->peak_bytes) c->peak_bytes = c->live_bytes;
    return true;
}

static inline void *test_count_alloc(void *user, size_t size)
{
    test_counting_allocator *c = (test_counting_allocator *)user;
    if (test_count_refuse_(c) || size > INT64_MAX / 2 || !test_count_grow_(c, (int64_t)size)) return NULL;
    unsigned char *p = (unsigned char *)malloc(size + TEST_ALLOC_HEADER);
    if (p == NULL) {
        c->live_bytes -= (int64_t)size;
        return NULL;
    }
    memcpy(p, &size, sizeof size);
    c->allocs++;
    c->live_blocks++;
    return p + TEST_ALLOC_HEADER;
}

static inline void test_count_free(void *user, void *ptr, size_t size)
{
    test_counting_allocator *c = (test_counting_allocator *)user;
    if (ptr == NULL) return;
    unsigned char *p = (unsigned char *)ptr - TEST_ALLOC_HEADER;
    size_t real;
    memcpy(&real, p, sizeof real);
    if (real != size) c->size_mismatches++;
    c->frees++;
    c->live_bytes -= (int64_t)real;
    c->live_blocks--;
    free(p);
}

/* free for a caller that does not know the size (jansson's hook): the block's own. */
static inline void test_count_free_unsized(void *user, void *ptr)
{
    size_t size = 0;
    if (ptr != NULL) memcpy(&size, (unsigned char *)ptr - TEST_ALLOC_HEADER, sizeof size);
    test_count_free(user, ptr, size);
}

static inline void *test_count_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    test_counting_allocator *c = (test_counting_allocator *)user;
    if (ptr == NULL) return test_count_alloc(user, new_size);
    if (test_count_refuse_(c)) return NULL;
    unsigned char *p = (unsigned char *)ptr - TEST_ALLOC_HEADER;
    size_t real;
    memcpy(&real, p, sizeof real);
    if (real != old_size) c->size_mismatches++;
    if (new_size > INT64_MAX / 2 || !test_count_grow_(c, (int64_t)new_size - (int64_t)real)) return NULL;
    unsigned char *q = (unsigned char *)realloc(p, new_size + TEST_ALLOC_HEADER);
    if (q == NULL) {
        c->live_bytes -= (int64_t)new_size - (int64_t)real;
        return NULL;
    }
    memcpy(q, &new_size, sizeof new_size);
    c->reallocs++;
    return q + TEST_ALLOC_HEADER;
}

static inline arbor_allocator test_counting_allocator_hooks(test_counting_allocator *c, bool with_realloc)
{
    arbor_allocator a;
    a.alloc = test_count_alloc;
    a.realloc = with_realloc ? test_count_realloc : NULL;
    a.free = test_count_free;
    a.user = c;
    return a;
}

/* alloc + realloc calls so far */
static inline uint64_t test_alloc_calls(const test_counting_allocator *c) { return c->allocs + c->reallocs; }

/* ---- A reference in double, independent of the library: support/ref.h ------------------------- */

static inline void test_reals_to_double(double *out, const arbor_real *in, int n)
{
    for (int i = 0; i < n; i++) out[i] = (double)in[i];
}

/* out (column-major) = T R(q / |q|) S of v, in double */
static inline void test_ref_compose_trs(double out[16], const arbor_trs *v)
{
    double t[3], q[4], sc[3];
    test_reals_to_double(t, v->translation, 3);
    test_reals_to_double(q, v->rotation, 4);
    test_reals_to_double(sc, v->scale, 3);
    test_ref_compose(out, t, q, sc);
}

/* ---- Node helpers ----------------------------------------------------------------------------------- */

/* A TRS node; rotation (0,0,0,0) or NULL parts mean identity; a scale with a zero component is
   written after the creation (arbor_node_desc refuses one). Fails the test when refused. */
static inline arbor_node test_node_trs_(arbor_scene *s, arbor_node parent, const char *name, const arbor_real *t,
                                        const arbor_real *r, const arbor_real *sc, const char *file, int line)
{
    arbor_node_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.parent = parent;
    if (t) memcpy(d.translation, t, sizeof d.translation);
    if (r) memcpy(d.rotation, r, sizeof d.rotation);
    bool flat = sc && (sc[0] == 0 || sc[1] == 0 || sc[2] == 0);
    if (sc && !flat) memcpy(d.scale, sc, sizeof d.scale);
    arbor_node n = ARBOR_NONE;
    arbor_result res = arbor_node_create(s, &d, &n);
    if (res == ARBOR_OK && flat) res = arbor_node_set_scale(s, n, sc[0], sc[1], sc[2]);
    if (res != ARBOR_OK || arbor_node_is_none(n)) {
        print_error("arbor_node_create(\"%s\") failed: %s (%s)\n", name ? name : "", arbor_result_string(res),
                    arbor_last_error());
        _fail(file, line);
    }
    return n;
}
#define TEST_NODE(s, parent, name, t, r, sc) test_node_trs_((s), (parent), (name), (t), (r), (sc), __FILE__, __LINE__)

/* Compound literals for the helpers: V3(1, 2, 3), Q4(0, 0, 0, 1). */
#define V3(x, y, z) ((const arbor_real[3]){ (arbor_real)(x), (arbor_real)(y), (arbor_real)(z) })
#define Q4(x, y, z, w) ((const arbor_real[4]){ (arbor_real)(x), (arbor_real)(y), (arbor_real)(z), (arbor_real)(w) })

/* A rotation of `degrees` about a unit axis, computed in double. */
static inline void test_quat_axis_deg(arbor_real out[4], double ax, double ay, double az, double degrees)
{
    double h = degrees * 3.14159265358979323846 / 360.0;
    double s = sin(h);
    out[0] = (arbor_real)(ax * s);
    out[1] = (arbor_real)(ay * s);
    out[2] = (arbor_real)(az * s);
    out[3] = (arbor_real)cos(h);
}

/* The world matrix, failing the test when refused. */
static inline void test_world_(arbor_scene *s, arbor_node n, arbor_real out[16], const char *file, int line)
{
    arbor_result r = arbor_node_world_matrix(s, n, out);
    if (r != ARBOR_OK) {
        print_error("arbor_node_world_matrix failed: %s (%s)\n", arbor_result_string(r), arbor_last_error());
        _fail(file, line);
    }
}
#define TEST_WORLD(s, n, out) test_world_((s), (n), (out), __FILE__, __LINE__)

/* The world origin of a node (translation column of its world matrix). */
static inline void test_world_origin_(arbor_scene *s, arbor_node n, arbor_real out[3], const char *file, int line)
{
    arbor_real w[16];
    test_world_(s, n, w, file, line);
    out[0] = w[12];
    out[1] = w[13];
    out[2] = w[14];
}
#define TEST_WORLD_ORIGIN(s, n, out) test_world_origin_((s), (n), (out), __FILE__, __LINE__)

/* The robot arm of seed 002 sections 4 and 14 at the demo's default pose (yaw 30, bend 40):
   base T(0,0.2,0) R(0,0.2588,0,0.9659); joint T(0,0.2,0) R(0,0,0.3420,0.9397); arm T(0,0.7,0);
   hand T(0,0.7,0). */
typedef struct test_robot { arbor_node base, joint, arm, hand; } test_robot;

static inline test_robot test_build_robot(arbor_scene *s)
{
    test_robot r;
    r.base = TEST_NODE(s, ARBOR_NONE, "base", V3(0, 0.2, 0), Q4(0, 0.2588, 0, 0.9659), NULL);
    r.joint = TEST_NODE(s, r.base, "joint", V3(0, 0.2, 0), Q4(0, 0, 0.3420, 0.9397), NULL);
    r.arm = TEST_NODE(s, r.joint, "arm", V3(0, 0.7, 0), NULL, NULL);
    r.hand = TEST_NODE(s, r.arm, "hand", V3(0, 0.7, 0), NULL, NULL);
    return r;
}

/* The library must have been built with this program's arbor_real. */
static inline void test_check_real_size(void)
{
    if (arbor_real_size() != sizeof(arbor_real)) {
        fprintf(stderr, "arbor_real is %u bytes here but %u in the library: build mismatch\n",
                (unsigned)sizeof(arbor_real), (unsigned)arbor_real_size());
        exit(1);
    }
}

#endif
