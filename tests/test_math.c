/* SPDX-License-Identifier: MIT */
/*
 * Tests of the math module (include/arbor/math.h and the internal src/math/affine.h).
 *
 * Worked numbers come from the course chapter on scene graphs (seed 002: sections 3, 4, 6, 8,
 * 9, 10, 13 and exercises 1-4, 8, 9) and the glTF tutorial's figure 4 (seed 003). Values the
 * sources print with 2-4 decimals are compared to that precision; exact results use EXACT,
 * a tolerance suited to arbor_real.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arbor/math.h"
#include "math/affine.h"
#include "../bench/splitmix64.h"

#if ARBOR_REAL_IS_DOUBLE
#define EXACT 1e-9     /* results that are exact on paper */
#define ROUNDTRIP 1e-12 /* decompose -> compose, relative to the largest column length */
#else
#define EXACT 1e-5
#define ROUNDTRIP 1e-6
#endif
/* Numbers the sources print with 1, 2, 3 or 4 decimals. */
#define P1 0.051
#define P2 0.0051
#define P3 0.00051
#define P4 0.000051

#define PI 3.14159265358979323846

static arbor_real rad(double degrees) { return (arbor_real)(degrees * PI / 180.0); }

/* ---- assertion helpers ------------------------------------------------------------------- */

static void near_at(double actual, double expected, double tol, const char *expr, const char *file, int line)
{
    if (!(fabs(actual - expected) <= tol)) {
        print_error("%s = %.10g, expected %.10g (tolerance %.3g)\n", expr, actual, expected, tol);
        _fail(file, line);
    }
}
#define assert_near(actual, expected, tol) \
    near_at((double)(actual), (double)(expected), (double)(tol), #actual, __FILE__, __LINE__)

static void vec_near_at(const arbor_real *actual, const double *expected, size_t n, double tol, const char *expr,
                        const char *file, int line)
{
    for (size_t i = 0; i < n; ++i) {
        if (!(fabs((double)actual[i] - expected[i]) <= tol)) {
            print_error("%s[%zu] = %.10g, expected %.10g (tolerance %.3g)\n", expr, i, (double)actual[i], expected[i],
                        tol);
            _fail(file, line);
        }
    }
}
#define assert_vec_near(actual, n, tol, ...)                                                          \
    do {                                                                                              \
        const double expected_[] = {__VA_ARGS__};                                                     \
        assert_int_equal(sizeof expected_ / sizeof expected_[0], (n));                                \
        vec_near_at((actual), expected_, (n), (double)(tol), #actual, __FILE__, __LINE__);            \
    } while (0)

static double max_abs_diff(const arbor_real *a, const arbor_real *b, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= m)) m = d; /* NaN wins */
    }
    return m;
}

static void print_mat(const char *name, const arbor_real m[16])
{
    fprintf(stderr, "%s:\n", name);
    for (int r = 0; r < 4; ++r) {
        fprintf(stderr, "  %10.6f %10.6f %10.6f %10.6f\n", (double)m[r], (double)m[4 + r], (double)m[8 + r],
                (double)m[12 + r]);
    }
}

static void mat_near_at(const arbor_real *a, const arbor_real *b, double tol, const char *ea, const char *eb,
                        const char *file, int line)
{
    double d = max_abs_diff(a, b, 16);
    if (!(d <= tol)) {
        print_error("%s and %s differ by %.3g (tolerance %.3g)\n", ea, eb, d, tol);
        print_mat(ea, a);
        print_mat(eb, b);
        _fail(file, line);
    }
}
#define assert_mat_near(a, b, tol) mat_near_at((a), (b), (double)(tol), #a, #b, __FILE__, __LINE__)

/* ---- builders ---------------------------------------------------------------------------- */

static void mat_T(arbor_real out[16], double x, double y, double z)
{
    const arbor_real t[3] = {(arbor_real)x, (arbor_real)y, (arbor_real)z};
    arbor_mat4_compose(out, t, NULL, NULL);
}

static void mat_S(arbor_real out[16], double x, double y, double z)
{
    const arbor_real s[3] = {(arbor_real)x, (arbor_real)y, (arbor_real)z};
    arbor_mat4_compose(out, NULL, NULL, s);
}

static void quat_axis_deg(arbor_real out[4], double ax, double ay, double az, double degrees)
{
    const arbor_real axis[3] = {(arbor_real)ax, (arbor_real)ay, (arbor_real)az};
    arbor_quat_from_axis_angle(out, axis, rad(degrees));
}

static void mat_R(arbor_real out[16], double ax, double ay, double az, double degrees)
{
    arbor_real q[4];
    quat_axis_deg(q, ax, ay, az, degrees);
    arbor_quat_to_mat4(out, q);
}

/* out = a * b * c */
static void mul3(arbor_real out[16], const arbor_real a[16], const arbor_real b[16], const arbor_real c[16])
{
    arbor_real ab[16];
    arbor_mat4_mul(ab, a, b);
    arbor_mat4_mul(out, ab, c);
}

static double col_len(const arbor_real m[16], int c)
{
    double x = (double)m[c * 4], y = (double)m[c * 4 + 1], z = (double)m[c * 4 + 2];
    return sqrt(x * x + y * y + z * z);
}

static double col_dot(const arbor_real m[16], int a, int b)
{
    return (double)m[a * 4] * (double)m[b * 4] + (double)m[a * 4 + 1] * (double)m[b * 4 + 1] +
           (double)m[a * 4 + 2] * (double)m[b * 4 + 2];
}

/* Angle of a unit quaternion's rotation, in degrees. */
static double quat_angle_deg(const arbor_real q[4])
{
    double v = sqrt((double)q[0] * (double)q[0] + (double)q[1] * (double)q[1] + (double)q[2] * (double)q[2]);
    return 2.0 * atan2(v, fabs((double)q[3])) * 180.0 / PI;
}

/* A small fixed-seed generator (splitmix64). */
static uint64_t rng_state;
static void rng_seed(uint64_t s) { rng_state = s; }
static double rng_unit(void) /* [0, 1) */
{
    uint64_t z = splitmix64_next(&rng_state);
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}
static double rng_range(double lo, double hi) { return lo + (hi - lo) * rng_unit(); }

static void rng_quat(arbor_real q[4])
{
    double v[4], l;
    do {
        for (int i = 0; i < 4; ++i) v[i] = rng_range(-1.0, 1.0);
        l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    } while (l < 0.1 || l > 1.0);
    for (int i = 0; i < 4; ++i) q[i] = (arbor_real)(v[i] / l);
}

/* Random translation, rotation and scale (|s| in [0.1, 10], each sign random when signs). */
static void rng_trs(arbor_real t[3], arbor_real q[4], arbor_real s[3], bool signs)
{
    for (int i = 0; i < 3; ++i) t[i] = (arbor_real)rng_range(-100.0, 100.0);
    rng_quat(q);
    for (int i = 0; i < 3; ++i) {
        double mag = pow(10.0, rng_range(-1.0, 1.0));
        s[i] = (arbor_real)((signs && rng_unit() < 0.5) ? -mag : mag);
    }
}

/* ---- identity, products ------------------------------------------------------------------ */

static void test_identity(void **state)
{
    (void)state;
    arbor_real m[16];
    for (int i = 0; i < 16; ++i) m[i] = (arbor_real)99;
    arbor_mat4_identity(m);
    for (int i = 0; i < 16; ++i) {
        assert_true(m[i] == ((i % 5 == 0) ? (arbor_real)1 : (arbor_real)0));
    }
}

static void test_mul_general(void **state)
{
    (void)state;
    /* Not affine: every one of the 16 terms counts. */
    arbor_real a[16], b[16], out[16];
    for (int i = 0; i < 16; ++i) {
        a[i] = (arbor_real)(i + 1);
        b[i] = (arbor_real)((i % 3) - 1 + i / 4);
    }
    arbor_mat4_mul(out, a, b);
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 4; ++r) {
            double e = 0.0;
            for (int k = 0; k < 4; ++k) e += (double)a[k * 4 + r] * (double)b[c * 4 + k];
            assert_true((double)out[c * 4 + r] == e); /* small integers: exact */
        }
    }
    /* Apply b first: T * S scales then moves. */
    arbor_real T[16], S[16], TS[16], p[3] = {1, 1, 1};
    mat_T(T, 10, 0, 0);
    mat_S(S, 2, 3, 4);
    arbor_mat4_mul(TS, T, S);
    arbor_mat4_transform_point(p, TS, p);
    assert_vec_near(p, 3, EXACT, 12, 3, 4);
}

static void test_mul_aliasing(void **state)
{
    (void)state;
    arbor_real a[16], b[16], expect_ab[16], expect_aa[16], m[16];
    mat_R(a, 1, 2, 3, 37);
    a[12] = (arbor_real)1;
    a[13] = (arbor_real)-2;
    a[14] = (arbor_real)5;
    mat_R(b, -3, 1, 0.5, 71);
    b[0] = (arbor_real)(b[0] * (arbor_real)2);
    b[3] = (arbor_real)0.25; /* non-affine last row too */
    arbor_mat4_mul(expect_ab, a, b);
    arbor_mat4_mul(expect_aa, a, a);

    memcpy(m, a, sizeof m);
    arbor_mat4_mul(m, m, b); /* out == a */
    assert_memory_equal(m, expect_ab, sizeof m);

    memcpy(m, b, sizeof m);
    arbor_mat4_mul(m, a, m); /* out == b */
    assert_memory_equal(m, expect_ab, sizeof m);

    memcpy(m, a, sizeof m);
    arbor_mat4_mul(m, m, m); /* out == a == b */
    assert_memory_equal(m, expect_aa, sizeof m);
}

/* ---- the course's worked numbers --------------------------------------------------------- */

/* Section 3 and 8: W_arm = R_y(90) * T(1, 0, 0), its tip, its inverse. */
static void test_course_two_node_chain(void **state)
{
    (void)state;
    arbor_real Ry[16], T[16], W[16], inv[16], p[3];
    mat_R(Ry, 0, 1, 0, 90);
    mat_T(T, 1, 0, 0);
    arbor_mat4_mul(W, Ry, T);
    assert_vec_near(W, 16, EXACT, 0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, -1, 1);

    const arbor_real tip[3] = {1, 0, 0};
    arbor_mat4_transform_point(p, W, tip);
    assert_vec_near(p, 3, EXACT, 0, 0, -2);

    assert_true(arbor_mat4_invert_affine(inv, W));
    /* Printed row by row in section 8: rows (0 0 -1 -1), (0 1 0 0), (1 0 0 0), (0 0 0 1). */
    assert_vec_near(inv, 16, EXACT, 0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, -1, 0, 0, 1);
    const arbor_real origin_world[3] = {0, 0, -1};
    arbor_mat4_transform_point(p, inv, origin_world);
    assert_vec_near(p, 3, EXACT, 0, 0, 0);
    assert_near(arbor_mat4_determinant3(W), 1, EXACT);
}

/* Exercises 1 and 2: three levels, and the order of the product. */
static void test_course_exercises_1_2(void **state)
{
    (void)state;
    arbor_real base[16], arm[16], hand[16], W[16], p[3];
    const arbor_real origin[3] = {0, 0, 0};

    mat_T(base, 0, 1, 0);
    mat_R(arm, 0, 0, 1, 90);
    mat_T(hand, 2, 0, 0);
    mul3(W, base, arm, hand);
    arbor_mat4_transform_point(p, W, origin);
    assert_vec_near(p, 3, EXACT, 0, 3, 0);

    mat_R(base, 0, 0, 1, 90);
    mat_T(arm, 0, 1, 0);
    mul3(W, base, arm, hand);
    arbor_mat4_transform_point(p, W, origin);
    assert_vec_near(p, 3, EXACT, -1, 2, 0);
}

/* Exercise 3: T(0,3,0) R_z(30) T(0,1,0) has translation (0,3,0) + R_z(30)(0,1,0). */
static void test_course_exercise_3(void **state)
{
    (void)state;
    arbor_real T1[16], Rz[16], T2[16], L[16];
    mat_T(T1, 0, 3, 0);
    mat_R(Rz, 0, 0, 1, 30);
    mat_T(T2, 0, 1, 0);
    mul3(L, T1, Rz, T2);
    assert_vec_near(L + 12, 4, EXACT, -0.5, 3.0 + sqrt(3.0) / 2.0, 0, 1);
}

/* Exercise 4: world (1, 0, -1) in the arm's frame is (0, 0, 1); and back. */
static void test_course_exercise_4(void **state)
{
    (void)state;
    arbor_real Ry[16], T[16], W[16], inv[16], p[3];
    mat_R(Ry, 0, 1, 0, 90);
    mat_T(T, 1, 0, 0);
    arbor_mat4_mul(W, Ry, T);
    assert_true(arbor_mat4_invert_affine(inv, W));
    const arbor_real world[3] = {1, 0, -1};
    arbor_mat4_transform_point(p, inv, world);
    assert_vec_near(p, 3, EXACT, 0, 0, 1);
    arbor_mat4_transform_point(p, W, p);
    assert_vec_near(p, 3, EXACT, 1, 0, -1);
    /* The inverse's linear part sends x to (0,0,1) and z to (-1,0,0). */
    const arbor_real x[3] = {1, 0, 0}, z[3] = {0, 0, 1};
    arbor_mat4_transform_dir(p, inv, x);
    assert_vec_near(p, 3, EXACT, 0, 0, 1);
    arbor_mat4_transform_dir(p, inv, z);
    assert_vec_near(p, 3, EXACT, -1, 0, 0);
}

/* The demo's chain (sections 4, 6, 9, 10, 14; exercise 8): base T(0,0.2,0) R_y(yaw), joint
   T(0,0.2,0) R_z(bend), arm T(0,0.7,0), hand T(0,0.7,0). */
typedef struct demo {
    arbor_real base[16], arm[16], hand[16]; /* world matrices; the arm's includes the joint */
} demo;

static void demo_pose(demo *d, double yaw, double bend, bool mirrored_arm)
{
    arbor_real Tb[16], Ry[16], Lbase[16], Tj[16], Rz[16], Tarm[16], Larm[16], Lhand[16];
    mat_T(Tb, 0, 0.2, 0);
    mat_R(Ry, 0, 1, 0, yaw);
    arbor_mat4_mul(Lbase, Tb, Ry);
    mat_T(Tj, 0, 0.2, 0);
    mat_R(Rz, 0, 0, 1, bend);
    mat_T(Tarm, 0, 0.7, 0);
    mul3(Larm, Tj, Rz, Tarm);
    if (mirrored_arm) {
        arbor_real S[16];
        mat_S(S, -1, 1, 1);
        arbor_mat4_mul(Larm, S, Larm);
    }
    mat_T(Lhand, 0, 0.7, 0);
    memcpy(d->base, Lbase, sizeof d->base);
    arbor_mat4_mul(d->arm, d->base, Larm);
    arbor_mat4_mul(d->hand, d->arm, Lhand);
}

static void test_course_demo_pose(void **state)
{
    (void)state;
    demo d;
    demo_pose(&d, 30, 40, false);
    /* Section 4: W_hand, printed with 2 decimals, row by row. */
    assert_vec_near(d.hand, 16, P2, 0.66, 0.64, -0.38, 0, -0.56, 0.77, 0.32, 0, 0.50, 0.00, 0.87, 0, -0.78, 1.47,
                    0.45, 1);
    /* Section 9: the hand's origin with 3 decimals, the arm's and base's with 2. */
    assert_vec_near(d.hand + 12, 3, P3, -0.779, 1.472, 0.450);
    assert_vec_near(d.arm + 12, 3, P2, -0.39, 0.94, 0.22);
    assert_vec_near(d.base + 12, 3, EXACT, 0, 0.2, 0);

    /* Yaw 90: the hand swings to (0, 1.47, 0.90). */
    demo d90;
    demo_pose(&d90, 90, 40, false);
    assert_vec_near(d90.hand + 12, 3, P2, 0, 1.47, 0.90);
}

static void test_course_between_nodes(void **state)
{
    (void)state;
    demo d;
    demo_pose(&d, 30, 40, false);
    arbor_real inv_base[16], inv_arm[16], inv_hand[16], p[3], m[16];
    assert_true(arbor_mat4_invert_affine(inv_base, d.base));
    assert_true(arbor_mat4_invert_affine(inv_arm, d.arm));
    assert_true(arbor_mat4_invert_affine(inv_hand, d.hand));

    /* Section 9: the hand in the base's frame, in the arm's, and world (0,1,0) in the hand's. */
    arbor_mat4_transform_point(p, inv_base, d.hand + 12);
    assert_vec_near(p, 3, P3, -0.900, 1.272, 0);
    assert_near(p[0], -1.4 * sin(40.0 * PI / 180.0), EXACT * 10);
    assert_near(p[1], 0.2 + 1.4 * cos(40.0 * PI / 180.0), EXACT * 10);
    arbor_mat4_transform_point(p, inv_arm, d.hand + 12);
    assert_vec_near(p, 3, EXACT, 0, 0.7, 0);
    const arbor_real up[3] = {0, 1, 0};
    arbor_mat4_transform_point(p, inv_hand, up);
    assert_vec_near(p, 3, P3, 0.386, -0.940, 0);
    arbor_mat4_mul(m, inv_hand, d.arm);
    assert_vec_near(m + 12, 3, EXACT, 0, -0.7, 0);

    /* Exercise 8: the base's origin (world (0, 0.2, 0)) in the hand's frame. */
    const arbor_real base_origin[3] = {0, (arbor_real)0.2, 0};
    arbor_mat4_transform_point(p, inv_hand, base_origin);
    assert_vec_near(p, 3, P3, -0.129, -1.553, 0);
}

/* Section 10: a camera on the hand, V = (W_hand L_cam)^-1. */
static void test_course_camera(void **state)
{
    (void)state;
    demo d;
    demo_pose(&d, 30, 40, false);
    arbor_real Lcam[16], Wcam[16], V[16], p[3];
    mat_T(Lcam, 0, 0.3, 0);
    arbor_mat4_mul(Wcam, d.hand, Lcam);
    assert_vec_near(Wcam + 12, 3, P3, -0.946, 1.702, 0.546);
    assert_true(arbor_mat4_invert_affine(V, Wcam));
    assert_vec_near(V, 16, P2, 0.66, -0.56, 0.50, 0, 0.64, 0.77, 0.00, 0, -0.38, 0.32, 0.87, 0, -0.26, -2.01, 0.00,
                    1);
    arbor_mat4_transform_point(p, V, Wcam + 12);
    assert_vec_near(p, 3, EXACT, 0, 0, 0);
}

/* Section 6 and 12: the mirrored arm S(-1,1,1) L_arm; its hand and its determinant. */
static void test_course_mirrored_arm(void **state)
{
    (void)state;
    demo d;
    demo_pose(&d, 30, 40, true);
    assert_vec_near(d.arm + 12, 3, P2, 0.39, 0.94, -0.22);
    assert_vec_near(d.hand + 12, 3, P2, 0.78, 1.47, -0.45);
    assert_near(arbor_mat4_determinant3(d.arm), -1, EXACT);
    assert_near(arbor_mat4_determinant3(d.hand), -1, EXACT);

    /* Decomposed, the mirror is on scale Y, and composing gives the matrix back. */
    arbor_real t[3], r[4], s[3], back[16];
    assert_true(arbor_mat4_decompose(d.hand, t, r, s));
    assert_vec_near(s, 3, EXACT, 1, -1, 1);
    arbor_mat4_compose(back, t, r, s);
    assert_mat_near(back, d.hand, EXACT);
}

/* Section 13: S(2,1,1) R_z(45) is sheared; the TRS read-back is wrong by 0.707. */
static void test_course_inherited_shear(void **state)
{
    (void)state;
    arbor_real S[16], Rz[16], W[16], t[3], r[4], s[3], back[16];
    mat_S(S, 2, 1, 1);
    mat_R(Rz, 0, 0, 1, 45);
    arbor_mat4_mul(W, S, Rz);
    assert_vec_near(W, 3, P3, 1.414, 0.707, 0);
    assert_vec_near(W + 4, 3, P3, -1.414, 0.707, 0);
    assert_near(col_len(W, 0), 1.581, P3);
    assert_near(col_len(W, 1), 1.581, P3);
    assert_near(col_dot(W, 0, 1), -1.5, EXACT);
    assert_near(acos(col_dot(W, 0, 1) / (col_len(W, 0) * col_len(W, 1))) * 180.0 / PI, 126.9, P1);

    assert_false(arbor_mat4_decompose(W, t, r, s));
    /* The parts are the best TRS all the same: lengths, and column 0's direction. */
    assert_vec_near(s, 3, P3, 1.581, 1.581, 1);
    assert_vec_near(t, 3, EXACT, 0, 0, 0);
    assert_near(r[0], 0, EXACT);
    assert_near(r[1], 0, EXACT);
    assert_true(r[2] > 0);
    assert_true(r[3] >= 0);
    assert_near(quat_angle_deg(r), 26.6, P1);
    assert_near(quat_angle_deg(r), atan2(1.0, 2.0) * 180.0 / PI, EXACT * 100);
    arbor_mat4_compose(back, t, r, s);
    assert_near(max_abs_diff(back, W, 16), 0.707, P3);
    assert_vec_near(back, 3, EXACT * 10, W[0], W[1], W[2]); /* column 0 is kept */
}

/* Exercise 9: S(1,3,1) R_z(30) is sheared, R_z(30) S(1,3,1) is not. */
static void test_course_exercise_9(void **state)
{
    (void)state;
    arbor_real S[16], Rz[16], W[16], t[3], r[4], s[3], back[16];
    mat_S(S, 1, 3, 1);
    mat_R(Rz, 0, 0, 1, 30);

    arbor_mat4_mul(W, S, Rz);
    assert_vec_near(W, 3, P3, 0.866, 1.5, 0);
    assert_vec_near(W + 4, 3, P3, -0.5, 2.598, 0);
    assert_near(col_dot(W, 0, 1), 3.464, P3);
    assert_near(col_len(W, 0), 1.732, P3);
    assert_near(col_len(W, 1), 2.646, P3);
    assert_near(acos(col_dot(W, 0, 1) / (col_len(W, 0) * col_len(W, 1))) * 180.0 / PI, 40.9, P1);
    assert_false(arbor_mat4_decompose(W, t, r, s));

    arbor_mat4_mul(W, Rz, S);
    assert_vec_near(W, 3, P3, 0.866, 0.5, 0);
    assert_vec_near(W + 4, 3, P3, -1.5, 2.598, 0);
    assert_near(col_dot(W, 0, 1), 0, EXACT);
    assert_true(arbor_mat4_decompose(W, t, r, s));
    assert_vec_near(s, 3, EXACT, 1, 3, 1);
    assert_vec_near(r, 4, EXACT, 0, 0, sin(15.0 * PI / 180.0), cos(15.0 * PI / 180.0));
    arbor_mat4_compose(back, t, r, s);
    assert_mat_near(back, W, EXACT);
}

/* Seed 003, figure 4: T(10,20,30) R(0.259,0,0,0.966) S(2,1,0.5). */
static void test_gltf_figure_4(void **state)
{
    (void)state;
    const arbor_real t[3] = {10, 20, 30};
    const arbor_real s[3] = {2, 1, (arbor_real)0.5};
    arbor_real q[4] = {(arbor_real)0.259, 0, 0, (arbor_real)0.966}, m[16];
    assert_true(arbor_quat_normalize(q, q));
    arbor_mat4_compose(m, t, q, s);
    assert_vec_near(m, 16, P3, 2, 0, 0, 0, 0, 0.866, 0.5, 0, 0, -0.25, 0.433, 0, 10, 20, 30, 1);

    /* The same matrix as T * R * S from separate factors. */
    arbor_real T[16], Rm[16], Sm[16], trs[16];
    mat_T(T, 10, 20, 30);
    arbor_quat_to_mat4(Rm, q);
    mat_S(Sm, 2, 1, 0.5);
    mul3(trs, T, Rm, Sm);
    assert_mat_near(trs, m, EXACT);

    /* And back: the figure's matrix decomposes to about 30 degrees about x. */
    arbor_real t2[3], q2[4], s2[3];
    assert_true(arbor_mat4_decompose(m, t2, q2, s2));
    assert_vec_near(t2, 3, EXACT, 10, 20, 30);
    assert_vec_near(s2, 3, EXACT, 2, 1, 0.5);
    assert_vec_near(q2, 4, EXACT, q[0], q[1], q[2], q[3]);
    assert_near(quat_angle_deg(q2), 30.0, P1);
}

/* ---- compose ----------------------------------------------------------------------------- */

static void test_compose_defaults(void **state)
{
    (void)state;
    arbor_real m[16], id[16];
    arbor_mat4_identity(id);
    arbor_mat4_compose(m, NULL, NULL, NULL);
    assert_memory_equal(m, id, sizeof m);

    const arbor_real t[3] = {1, 2, 3};
    arbor_mat4_compose(m, t, NULL, NULL);
    assert_vec_near(m, 16, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1);

    const arbor_real s[3] = {2, -3, 4};
    arbor_mat4_compose(m, NULL, NULL, s);
    assert_vec_near(m, 16, 0, 2, 0, 0, 0, 0, -3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 1);
    assert_near(arbor_mat4_determinant3(m), -24, 0);
}

/* The quaternion is used as given: (1,0,0,1) is not normalised inside. */
static void test_compose_unnormalised_quat(void **state)
{
    (void)state;
    const arbor_real q[4] = {1, 0, 0, 1};
    arbor_real m[16], a[12];
    arbor_mat4_compose(m, NULL, q, NULL);
    assert_vec_near(m, 16, 0, 1, 0, 0, 0, 0, -1, 2, 0, 0, -2, -1, 0, 0, 0, 0, 1);
    const arbor_real zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    arbor__affine_compose(a, zero, q, one);
    assert_vec_near(a, 12, 0, 1, 0, 0, 0, 0, -1, -2, 0, 0, 2, -1, 0);
}

/* R(q) rotates: 90 degrees about z sends x to y; the column order of T R S is right. */
static void test_compose_rotation_direction(void **state)
{
    (void)state;
    arbor_real m[16], p[3];
    mat_R(m, 0, 0, 1, 90);
    const arbor_real x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
    arbor_mat4_transform_dir(p, m, x);
    assert_vec_near(p, 3, EXACT, 0, 1, 0);
    mat_R(m, 1, 0, 0, 90);
    arbor_mat4_transform_dir(p, m, y);
    assert_vec_near(p, 3, EXACT, 0, 0, 1);

    const arbor_real t[3] = {5, 6, 7}, s[3] = {2, 3, 4};
    arbor_real q[4];
    quat_axis_deg(q, 0, 0, 1, 90);
    arbor_mat4_compose(m, t, q, s);
    arbor_mat4_transform_point(p, m, x); /* S: (2,0,0); R: (0,2,0); T: (5,8,7) */
    assert_vec_near(p, 3, EXACT * 10, 5, 8, 7);
    arbor_mat4_transform_point(p, m, y); /* S: (0,3,0); R: (-3,0,0); T: (2,6,7) */
    assert_vec_near(p, 3, EXACT * 10, 2, 6, 7);
}

/* ---- decompose --------------------------------------------------------------------------- */

static void test_decompose_identity_and_nulls(void **state)
{
    (void)state;
    arbor_real m[16], t[3] = {9, 9, 9}, r[4] = {9, 9, 9, 9}, s[3] = {9, 9, 9};
    arbor_mat4_identity(m);
    assert_true(arbor_mat4_decompose(m, t, r, s));
    assert_vec_near(t, 3, 0, 0, 0, 0);
    assert_vec_near(r, 4, 0, 0, 0, 0, 1);
    assert_vec_near(s, 3, 0, 1, 1, 1);
    assert_true(arbor_mat4_decompose(m, NULL, NULL, NULL));
    arbor_real S[16];
    mat_S(S, 1, 3, 1);
    arbor_real Rz[16], W[16];
    mat_R(Rz, 0, 0, 1, 30);
    arbor_mat4_mul(W, S, Rz);
    assert_false(arbor_mat4_decompose(W, NULL, NULL, NULL));
    assert_false(arbor_mat4_decompose(W, NULL, r, NULL));
}

/* S(-1,1,1) * R: the mirror comes back as a negative scale on Y. */
static void test_decompose_mirror(void **state)
{
    (void)state;
    arbor_real S[16], Rm[16], T[16], M[16], back[16], t[3], r[4], s[3];
    mat_S(S, -1, 1, 1);
    mat_R(Rm, 1, 2, -1, 50);
    mat_T(T, 3, -4, 5);
    mul3(M, T, S, Rm);
    assert_near(arbor_mat4_determinant3(M), -1, EXACT);
    assert_true(arbor_mat4_decompose(M, t, r, s));
    assert_vec_near(t, 3, EXACT, 3, -4, 5);
    assert_vec_near(s, 3, EXACT, 1, -1, 1);
    assert_near(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3], 1, EXACT);
    assert_true(r[3] >= 0);
    arbor_mat4_compose(back, t, r, s);
    assert_mat_near(back, M, EXACT);
    assert_near(arbor_mat4_determinant3(back), -1, EXACT);

    /* A mirror on X or Z alone also ends up on Y. */
    const arbor_real sx[3] = {-2, 3, 4}, sz[3] = {2, 3, -4};
    const arbor_real *scales[2] = {sx, sz};
    for (int i = 0; i < 2; ++i) {
        arbor_real q[4];
        quat_axis_deg(q, 0.3, -1, 0.2, 123);
        arbor_mat4_compose(M, NULL, q, scales[i]);
        assert_true(arbor_mat4_decompose(M, t, r, s));
        assert_vec_near(s, 3, EXACT * 10, 2, -3, 4);
        arbor_mat4_compose(back, t, r, s);
        assert_mat_near(back, M, EXACT * 10);
    }
    /* Three negative scales: a point reflection, still one negative Y. */
    const arbor_real sn[3] = {-1, -1, -1};
    arbor_mat4_compose(M, NULL, NULL, sn);
    assert_true(arbor_mat4_decompose(M, t, r, s));
    assert_vec_near(s, 3, EXACT, 1, -1, 1);
    arbor_mat4_compose(back, t, r, s);
    assert_mat_near(back, M, EXACT);
    /* Two negative scales are a rotation: no mirror. */
    const arbor_real s2[3] = {-1, -1, 1};
    arbor_mat4_compose(M, NULL, NULL, s2);
    assert_true(arbor_mat4_decompose(M, t, r, s));
    assert_vec_near(s, 3, EXACT, 1, 1, 1);
    assert_vec_near(r, 4, EXACT, 0, 0, 1, 0);
}

static void test_decompose_not_affine(void **state)
{
    (void)state;
    arbor_real m[16], t[3], r[4], s[3];
    const arbor_real tt[3] = {1, 2, 3}, ss[3] = {2, 2, 2};
    arbor_real q[4];
    quat_axis_deg(q, 0, 1, 0, 60);
    for (int e = 3; e <= 15; e += 4) {
        arbor_mat4_compose(m, tt, q, ss);
        m[e] = (arbor_real)(e == 15 ? 2.0 : 0.5);
        t[0] = (arbor_real)99;
        s[0] = (arbor_real)99;
        assert_false(arbor_mat4_decompose(m, t, r, s));
        /* The parts are filled all the same. */
        assert_vec_near(t, 3, EXACT, 1, 2, 3);
        assert_vec_near(s, 3, EXACT, 2, 2, 2);
        assert_vec_near(r, 4, EXACT, q[0], q[1], q[2], q[3]);
    }
    /* Noise in the last row below the tolerance is accepted. */
    arbor_mat4_compose(m, tt, q, ss);
    m[3] = (arbor_real)(ARBOR_DECOMPOSE_TOLERANCE * 0.5);
    m[15] = (arbor_real)(1.0 + ARBOR_DECOMPOSE_TOLERANCE * 0.5);
    assert_true(arbor_mat4_decompose(m, t, r, s));
}

static void test_decompose_nonfinite(void **state)
{
    (void)state;
    arbor_real m[16], t[3], r[4], s[3];
    for (int e = 0; e < 16; ++e) {
        arbor_mat4_identity(m);
        m[e] = (arbor_real)NAN;
        assert_false(arbor_mat4_decompose(m, t, r, s));
        arbor_mat4_identity(m);
        m[e] = (arbor_real)INFINITY;
        assert_false(arbor_mat4_decompose(m, t, r, s));
    }
}

/* A zero column is scale 0; the rotation comes from the others; no shear is true. */
static void test_decompose_zero_columns(void **state)
{
    (void)state;
    static const double scales[][3] = {
        {1, 0, 1}, {0, 2, 3}, {2, 3, 0}, {0, 0, 4}, {0, 5, 0}, {6, 0, 0}, {0, 0, 0}, {-2, 0, 3}, {2, 0, -3},
    };
    arbor_real q[4], m[16], t[3], r[4], s[3], back[16];
    const arbor_real tt[3] = {1, -2, 3};
    quat_axis_deg(q, 1, 1, 0, 40);
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; ++i) {
        const arbor_real ss[3] = {(arbor_real)scales[i][0], (arbor_real)scales[i][1], (arbor_real)scales[i][2]};
        arbor_mat4_compose(m, tt, q, ss);
        assert_true(arbor_mat4_decompose(m, t, r, s));
        for (int k = 0; k < 3; ++k) {
            assert_near(fabs((double)s[k]), fabs(scales[i][k]), EXACT * 10);
        }
        assert_near(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3], 1, EXACT);
        arbor_mat4_compose(back, t, r, s);
        assert_mat_near(back, m, EXACT * 10);
    }
    /* All zero: identity rotation. */
    arbor_mat4_compose(m, tt, NULL, (const arbor_real[3]){0, 0, 0});
    assert_true(arbor_mat4_decompose(m, t, r, s));
    assert_vec_near(r, 4, 0, 0, 0, 0, 1);
    assert_vec_near(s, 3, 0, 0, 0, 0);
    /* A zero column with a shear between the other two is still a shear. */
    arbor_real S[16], Rz[16], W[16];
    mat_S(S, 2, 1, 0);
    mat_R(Rz, 0, 0, 1, 45);
    arbor_mat4_mul(W, S, Rz);
    assert_false(arbor_mat4_decompose(W, t, r, s));
    assert_near(s[2], 0, 0);
}

/* Parallel columns (rank 2): a shear, and the parts are still a valid rotation. */
static void test_decompose_parallel_columns(void **state)
{
    (void)state;
    arbor_real m[16], t[3], r[4], s[3];
    arbor_mat4_identity(m);
    m[4] = 1; /* column 1 = (1, 0, 0) = column 0 */
    m[5] = 0;
    assert_false(arbor_mat4_decompose(m, t, r, s));
    assert_near(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3], 1, EXACT);
    assert_vec_near(s, 3, EXACT, 1, 1, 1);
    /* The rotation keeps column 0's direction. */
    arbor_real rm[16], p[3];
    arbor_quat_to_mat4(rm, r);
    arbor_mat4_transform_dir(p, rm, (const arbor_real[3]){1, 0, 0});
    assert_vec_near(p, 3, EXACT, 1, 0, 0);
}

/* A small shear is judged relative to the column lengths. */
static void test_decompose_tolerance(void **state)
{
    (void)state;
    const double big = 1000.0;
    arbor_real m[16];
    /* Columns (big,0,0) and (big*d, big, 0): the normalised dot is about d. */
    const double below = ARBOR_DECOMPOSE_TOLERANCE * 0.5, above = ARBOR_DECOMPOSE_TOLERANCE * 2.0;
    arbor_mat4_identity(m);
    m[0] = (arbor_real)big;
    m[5] = (arbor_real)big;
    m[10] = (arbor_real)big;
    m[4] = (arbor_real)(big * below);
    assert_true(arbor_mat4_decompose(m, NULL, NULL, NULL));
    m[4] = (arbor_real)(big * above);
    assert_false(arbor_mat4_decompose(m, NULL, NULL, NULL));
    /* Same on a tiny matrix. */
    const double tiny = 1e-3;
    arbor_mat4_identity(m);
    m[0] = (arbor_real)tiny;
    m[5] = (arbor_real)tiny;
    m[10] = (arbor_real)tiny;
    m[9] = (arbor_real)(tiny * below);
    assert_true(arbor_mat4_decompose(m, NULL, NULL, NULL));
    m[9] = (arbor_real)(tiny * above);
    assert_false(arbor_mat4_decompose(m, NULL, NULL, NULL));
}

/* 1000 random TRS with any signs: decompose, compose, compare. */
static void test_decompose_roundtrip_random(void **state)
{
    (void)state;
    rng_seed(0x5eed2024u);
    double worst = 0.0;
    for (int i = 0; i < 1000; ++i) {
        arbor_real t0[3], q0[4], s0[3], m[16], t[3], r[4], s[3], back[16];
        rng_trs(t0, q0, s0, i >= 100); /* the first 100 with positive scales */
        arbor_mat4_compose(m, t0, q0, s0);
        const arbor_real det = arbor_mat4_determinant3(m);
        if (!arbor_mat4_decompose(m, t, r, s)) {
            print_mat("rejected", m);
            fail_msg("random TRS %d rejected as sheared", i);
        }
        assert_memory_equal(t, t0, sizeof t);
        assert_true(s[0] > 0 && s[2] > 0);
        assert_true((s[1] < 0) == (det < 0));
        for (int k = 0; k < 3; ++k) {
            assert_near(fabs((double)s[k]) / fabs((double)s0[k]), 1, EXACT);
        }
        assert_near(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3], 1, EXACT);
        assert_true(r[3] >= 0);
        if (i < 100) { /* no mirror: the same rotation, up to the sign of q */
            double d = 0.0;
            for (int k = 0; k < 4; ++k) d += (double)r[k] * (double)q0[k];
            assert_near(fabs(d), 1, EXACT);
        }
        arbor_mat4_compose(back, t, r, s);
        double len = fmax(col_len(m, 0), fmax(col_len(m, 1), col_len(m, 2)));
        double err = 0.0;
        for (int c = 0; c < 3; ++c) {
            for (int k = 0; k < 3; ++k) err = fmax(err, fabs((double)back[c * 4 + k] - (double)m[c * 4 + k]));
        }
        err /= len;
        worst = fmax(worst, err);
        if (!(err <= ROUNDTRIP)) {
            print_mat("original", m);
            print_mat("recomposed", back);
            fail_msg("random TRS %d: relative error %.3g", i, err);
        }
        assert_memory_equal(back + 12, m + 12, 4 * sizeof(arbor_real));
        assert_true(back[3] == 0 && back[7] == 0 && back[11] == 0);
    }
    fprintf(stderr, "    decompose/compose worst relative error: %.3g\n", worst);
}

/* ---- inverse ----------------------------------------------------------------------------- */

static void test_invert_singular(void **state)
{
    (void)state;
    arbor_real out[16], sentinel[16], m[16];
    for (int i = 0; i < 16; ++i) sentinel[i] = (arbor_real)(100 + i);

    static const double scales[][3] = {{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 0}};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; ++i) {
        mat_S(m, scales[i][0], scales[i][1], scales[i][2]);
        m[12] = 1;
        memcpy(out, sentinel, sizeof out);
        assert_false(arbor_mat4_invert_affine(out, m));
        assert_memory_equal(out, sentinel, sizeof out);
    }
    /* Rank 2 with no zero column: column 2 = column 0 + column 1. */
    arbor_mat4_identity(m);
    m[8] = 1;
    m[9] = 1;
    m[10] = 0;
    memcpy(out, sentinel, sizeof out);
    assert_false(arbor_mat4_invert_affine(out, m));
    assert_memory_equal(out, sentinel, sizeof out);
    /* Nearly singular, relative to the column lengths. */
    arbor_mat4_identity(m);
    m[10] = (arbor_real)1e-13;
    m[8] = 1; /* column 2 = (1, 0, 1e-13): nearly along column 0 */
    assert_false(arbor_mat4_invert_affine(out, m));
    assert_memory_equal(out, sentinel, sizeof out);
    /* Non-finite. */
    arbor_mat4_identity(m);
    m[5] = (arbor_real)NAN;
    assert_false(arbor_mat4_invert_affine(out, m));
    arbor_mat4_identity(m);
    m[13] = (arbor_real)INFINITY;
    assert_false(arbor_mat4_invert_affine(out, m));
    assert_memory_equal(out, sentinel, sizeof out);
    /* In place: m untouched too. */
    mat_S(m, 1, 0, 1);
    memcpy(out, m, sizeof out);
    assert_false(arbor_mat4_invert_affine(m, m));
    assert_memory_equal(out, m, sizeof out);
}

static void test_invert_small_scale_is_not_singular(void **state)
{
    (void)state;
    /* The test is relative: a uniformly tiny or huge matrix inverts. */
    arbor_real m[16], inv[16], prod[16], id[16];
    arbor_mat4_identity(id);
    const double scales[2] = {1e-4, 1e4};
    for (int i = 0; i < 2; ++i) {
        arbor_real q[4];
        quat_axis_deg(q, 1, 2, 3, 33);
        const arbor_real ss[3] = {(arbor_real)scales[i], (arbor_real)(scales[i] * 2), (arbor_real)scales[i]};
        arbor_mat4_compose(m, NULL, q, ss);
        assert_true(arbor_mat4_invert_affine(inv, m));
        arbor_mat4_mul(prod, m, inv);
        assert_mat_near(prod, id, EXACT * 10);
    }
}

static void test_invert_random(void **state)
{
    (void)state;
    rng_seed(12345);
    arbor_real id[16];
    arbor_mat4_identity(id);
    for (int i = 0; i < 200; ++i) {
        arbor_real t[3], q[4], s[3], m[16], inv[16], prod[16], copy[16];
        rng_trs(t, q, s, true);
        arbor_mat4_compose(m, t, q, s);
        /* A general affine matrix: shear it with a second random TRS. */
        if (i % 2) {
            arbor_real m2[16];
            rng_trs(t, q, s, true);
            arbor_mat4_compose(m2, t, q, s);
            arbor_mat4_mul(m, m, m2);
        }
        assert_true(arbor_mat4_invert_affine(inv, m));
        assert_true(inv[3] == 0 && inv[7] == 0 && inv[11] == 0 && inv[15] == 1);
        arbor_mat4_mul(prod, m, inv);
        /* Relative to the size of the translation the product carries. */
        double size = 1.0 + fabs((double)m[12]) + fabs((double)m[13]) + fabs((double)m[14]);
        double cond = 1.0;
        for (int c = 0; c < 3; ++c) cond *= col_len(m, c) * col_len(inv, c);
        assert_mat_near(prod, id, EXACT * size * cond * 10);
        arbor_mat4_mul(prod, inv, m);
        assert_mat_near(prod, id, EXACT * size * cond * 10);
        /* In place gives the same bits. */
        memcpy(copy, m, sizeof copy);
        assert_true(arbor_mat4_invert_affine(copy, copy));
        assert_memory_equal(copy, inv, sizeof copy);
    }
}

static void test_invert_ignores_last_row(void **state)
{
    (void)state;
    arbor_real m[16], inv[16], p[3];
    mat_T(m, 1, 2, 3);
    m[3] = 5; /* taken as (0, 0, 0, 1) */
    m[15] = 7;
    assert_true(arbor_mat4_invert_affine(inv, m));
    arbor_mat4_transform_point(p, inv, (const arbor_real[3]){1, 2, 3});
    assert_vec_near(p, 3, EXACT, 0, 0, 0);
    assert_vec_near(inv + 12, 4, EXACT, -1, -2, -3, 1);
}

/* ---- points, directions, determinant ----------------------------------------------------- */

static void test_transform_point_dir(void **state)
{
    (void)state;
    arbor_real m[16], p[3] = {1, 2, 3};
    const arbor_real t[3] = {10, 20, 30}, s[3] = {2, 3, 4};
    arbor_mat4_compose(m, t, NULL, s);
    m[3] = 9; /* the w row is ignored */
    m[15] = 9;
    arbor_real out[3];
    arbor_mat4_transform_point(out, m, p);
    assert_vec_near(out, 3, EXACT, 12, 26, 42);
    arbor_mat4_transform_dir(out, m, p);
    assert_vec_near(out, 3, EXACT, 2, 6, 12);
    /* In place. */
    arbor_mat4_transform_point(p, m, p);
    assert_vec_near(p, 3, EXACT, 12, 26, 42);
    arbor_mat4_transform_dir(p, m, p);
    assert_vec_near(p, 3, EXACT, 24, 78, 168);
}

static void test_determinant3(void **state)
{
    (void)state;
    arbor_real m[16];
    mat_S(m, 2, 3, 4);
    m[12] = 100; /* translation and last row do not count */
    m[3] = 5;
    assert_near(arbor_mat4_determinant3(m), 24, 0);
    mat_S(m, -1, 1, 1);
    assert_near(arbor_mat4_determinant3(m), -1, 0);
    mat_R(m, 1, -2, 0.5, 77);
    assert_near(arbor_mat4_determinant3(m), 1, EXACT);
    /* A general 3x3: columns (1,4,7), (2,5,8), (3,6,10) -> det -3. */
    arbor_mat4_identity(m);
    const int v[9] = {1, 4, 7, 2, 5, 8, 3, 6, 10};
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) m[c * 4 + r] = (arbor_real)v[c * 3 + r];
    assert_near(arbor_mat4_determinant3(m), -3, 0);
}

/* ---- quaternions ------------------------------------------------------------------------- */

static void test_quat_from_axis_angle(void **state)
{
    (void)state;
    arbor_real q[4];
    /* Section 14 / hands-on 3. */
    quat_axis_deg(q, 0, 1, 0, 30);
    assert_vec_near(q, 4, P4, 0, 0.2588, 0, 0.9659);
    assert_vec_near(q, 4, EXACT, 0, sin(15.0 * PI / 180.0), 0, cos(15.0 * PI / 180.0));
    quat_axis_deg(q, 0, 0, 1, 40);
    assert_vec_near(q, 4, P4, 0, 0, 0.3420, 0.9397);
    /* The axis is normalised. */
    quat_axis_deg(q, 0, 0, 5, 40);
    assert_vec_near(q, 4, P4, 0, 0, 0.3420, 0.9397);
    quat_axis_deg(q, 1, 1, 1, 120);
    assert_vec_near(q, 4, EXACT, 0.5, 0.5, 0.5, 0.5);
    /* A zero or non-finite axis gives identity. */
    quat_axis_deg(q, 0, 0, 0, 40);
    assert_vec_near(q, 4, 0, 0, 0, 0, 1);
    quat_axis_deg(q, NAN, 0, 1, 40);
    assert_vec_near(q, 4, 0, 0, 0, 0, 1);
    /* Negative angles turn the other way. */
    quat_axis_deg(q, 0, 0, 1, -90);
    assert_vec_near(q, 4, EXACT, 0, 0, -sqrt(0.5), sqrt(0.5));
}

static void test_quat_normalize(void **state)
{
    (void)state;
    arbor_real q[4] = {0, 0, 0, 2}, out[4];
    assert_true(arbor_quat_normalize(out, q));
    assert_vec_near(out, 4, 0, 0, 0, 0, 1);
    q[0] = 1;
    q[1] = 2;
    q[2] = 2;
    q[3] = 4; /* length 5 */
    assert_true(arbor_quat_normalize(q, q)); /* in place */
    assert_vec_near(q, 4, EXACT, 0.2, 0.4, 0.4, 0.8);

    const arbor_real zero[4] = {0, 0, 0, 0};
    out[0] = 7;
    assert_false(arbor_quat_normalize(out, zero));
    assert_vec_near(out, 4, 0, 0, 0, 0, 1);
    const arbor_real nan_q[4] = {(arbor_real)NAN, 0, 0, 1};
    assert_false(arbor_quat_normalize(out, nan_q));
    assert_vec_near(out, 4, 0, 0, 0, 0, 1);
    const arbor_real inf_q[4] = {0, (arbor_real)INFINITY, 0, 1};
    assert_false(arbor_quat_normalize(out, inf_q));
    assert_vec_near(out, 4, 0, 0, 0, 0, 1);

    /* Large and tiny values neither overflow nor underflow when squared. */
#if ARBOR_REAL_IS_DOUBLE
    const double huge = 1e200;
#else
    const double huge = 1e30;
#endif
    const arbor_real big[4] = {0, (arbor_real)(3 * huge), 0, (arbor_real)(4 * huge)};
    assert_true(arbor_quat_normalize(out, big));
    assert_vec_near(out, 4, EXACT, 0, 0.6, 0, 0.8);
    const arbor_real tiny[4] = {0, (arbor_real)(3 / huge), 0, (arbor_real)(4 / huge)};
    assert_true(arbor_quat_normalize(out, tiny));
    assert_vec_near(out, 4, EXACT, 0, 0.6, 0, 0.8);
}

static void test_quat_slerp(void **state)
{
    (void)state;
    arbor_real a[4], b[4], out[4], e[4];
    quat_axis_deg(a, 0, 0, 1, 0);
    quat_axis_deg(b, 0, 0, 1, 90);

    arbor_quat_slerp(out, a, b, 0);
    assert_vec_near(out, 4, EXACT, a[0], a[1], a[2], a[3]);
    arbor_quat_slerp(out, a, b, 1);
    assert_vec_near(out, 4, EXACT, b[0], b[1], b[2], b[3]);
    arbor_quat_slerp(out, a, b, (arbor_real)0.5);
    quat_axis_deg(e, 0, 0, 1, 45);
    assert_vec_near(out, 4, EXACT, e[0], e[1], e[2], e[3]);
    /* A quarter of the way is 22.5 degrees (a normalised lerp would give 21.6). */
    arbor_quat_slerp(out, a, b, (arbor_real)0.25);
    quat_axis_deg(e, 0, 0, 1, 22.5);
    assert_vec_near(out, 4, EXACT, e[0], e[1], e[2], e[3]);

    /* Shortest path: -b is the same rotation; the blend goes the short way and stays near a. */
    arbor_real nb[4] = {-b[0], -b[1], -b[2], -b[3]};
    arbor_quat_slerp(out, a, nb, (arbor_real)0.5);
    quat_axis_deg(e, 0, 0, 1, 45);
    assert_vec_near(out, 4, EXACT, e[0], e[1], e[2], e[3]);
    /* 0 -> 300 degrees about z is the 60-degree arc the other way: halfway is -30. */
    quat_axis_deg(b, 0, 0, 1, 300);
    arbor_quat_slerp(out, a, b, (arbor_real)0.5);
    quat_axis_deg(e, 0, 0, 1, -30);
    assert_vec_near(out, 4, EXACT, e[0], e[1], e[2], e[3]);

    /* Nearly parallel: the normalised lerp, still unit and in between. */
    quat_axis_deg(a, 1, 2, 3, 10);
    quat_axis_deg(b, 1, 2, 3, 10.5);
    arbor_quat_slerp(out, a, b, (arbor_real)0.5);
    quat_axis_deg(e, 1, 2, 3, 10.25);
    assert_vec_near(out, 4, EXACT, e[0], e[1], e[2], e[3]);
    assert_near(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3], 1, EXACT);

    /* Output aliasing a or b. */
    quat_axis_deg(a, 0, 1, 0, 20);
    quat_axis_deg(b, 0, 1, 0, 100);
    quat_axis_deg(e, 0, 1, 0, 60);
    arbor_real c[4];
    memcpy(c, a, sizeof c);
    arbor_quat_slerp(c, c, b, (arbor_real)0.5);
    assert_vec_near(c, 4, EXACT, e[0], e[1], e[2], e[3]);
    memcpy(c, b, sizeof c);
    arbor_quat_slerp(c, a, c, (arbor_real)0.5);
    assert_vec_near(c, 4, EXACT, e[0], e[1], e[2], e[3]);
}

static void test_quat_mul(void **state)
{
    (void)state;
    arbor_real a[4], b[4], out[4], e[4];
    quat_axis_deg(a, 0, 0, 1, 90);
    arbor_quat_mul(out, a, a);
    assert_vec_near(out, 4, EXACT, 0, 0, 1, 0);

    /* q1 * q2 applies q2 first: matches the matrix product R(q1) R(q2). */
    quat_axis_deg(a, 0, 0, 1, 90);
    quat_axis_deg(b, 1, 0, 0, 90);
    arbor_quat_mul(out, a, b);
    arbor_real ma[16], mb[16], mab[16], mq[16], p[3];
    arbor_quat_to_mat4(ma, a);
    arbor_quat_to_mat4(mb, b);
    arbor_mat4_mul(mab, ma, mb);
    arbor_quat_to_mat4(mq, out);
    assert_mat_near(mq, mab, EXACT);
    /* y -> (x first) z -> (then z) z. x -> x -> y. */
    arbor_mat4_transform_dir(p, mq, (const arbor_real[3]){0, 1, 0});
    assert_vec_near(p, 3, EXACT, 0, 0, 1);
    arbor_mat4_transform_dir(p, mq, (const arbor_real[3]){1, 0, 0});
    assert_vec_near(p, 3, EXACT, 0, 1, 0);
    assert_vec_near(out, 4, EXACT, 0.5, 0.5, 0.5, 0.5);

    /* Every cross term: y then z, z then x, x then y. */
    quat_axis_deg(a, 0, 1, 0, 90);
    quat_axis_deg(b, 0, 0, 1, 90);
    arbor_quat_mul(out, a, b);
    assert_vec_near(out, 4, EXACT, 0.5, 0.5, 0.5, 0.5); /* x -> y -> z -> x */
    arbor_quat_mul(out, b, a);
    assert_vec_near(out, 4, EXACT, -0.5, 0.5, 0.5, 0.5);
    quat_axis_deg(a, 1, 0, 0, 90);
    arbor_quat_mul(out, b, a);
    assert_vec_near(out, 4, EXACT, 0.5, 0.5, 0.5, 0.5);
    arbor_quat_mul(out, a, b);
    assert_vec_near(out, 4, EXACT, 0.5, -0.5, 0.5, 0.5);
    /* Random pairs: R(q1 q2) = R(q1) R(q2). */
    rng_seed(55);
    for (int i = 0; i < 100; ++i) {
        rng_quat(a);
        rng_quat(b);
        arbor_quat_mul(out, a, b);
        arbor_quat_to_mat4(ma, a);
        arbor_quat_to_mat4(mb, b);
        arbor_mat4_mul(mab, ma, mb);
        arbor_quat_to_mat4(mq, out);
        assert_mat_near(mq, mab, EXACT);
    }

    /* Adding angles about one axis. */
    quat_axis_deg(a, 1, 1, 0, 25);
    quat_axis_deg(b, 1, 1, 0, 35);
    quat_axis_deg(e, 1, 1, 0, 60);
    arbor_quat_mul(out, a, b);
    assert_vec_near(out, 4, EXACT, e[0], e[1], e[2], e[3]);

    /* Aliasing. */
    quat_axis_deg(a, 0, 0, 1, 90);
    quat_axis_deg(b, 1, 0, 0, 90);
    arbor_real c[4];
    memcpy(c, a, sizeof c);
    arbor_quat_mul(c, c, b);
    assert_vec_near(c, 4, EXACT, 0.5, 0.5, 0.5, 0.5);
    memcpy(c, b, sizeof c);
    arbor_quat_mul(c, a, c);
    assert_vec_near(c, 4, EXACT, 0.5, 0.5, 0.5, 0.5);
    memcpy(c, a, sizeof c);
    arbor_quat_mul(c, c, c);
    assert_vec_near(c, 4, EXACT, 0, 0, 1, 0);
}

static void test_quat_mat4_roundtrip(void **state)
{
    (void)state;
    arbor_real m[16], q[4];
    /* Half turns exercise every branch of the conversion. */
    static const double axes[][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {0, 1, 1}};
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; ++i) {
        arbor_real e[4];
        quat_axis_deg(e, axes[i][0], axes[i][1], axes[i][2], 180);
        arbor_quat_to_mat4(m, e);
        arbor_quat_from_mat4(q, m);
        double d = 0.0;
        for (int k = 0; k < 4; ++k) d += (double)q[k] * (double)e[k];
        assert_near(fabs(d), 1, EXACT);
        assert_true(q[3] >= 0);
    }
    rng_seed(777);
    for (int i = 0; i < 500; ++i) {
        arbor_real e[4];
        rng_quat(e);
        if (e[3] < 0)
            for (int k = 0; k < 4; ++k) e[k] = -e[k];
        arbor_quat_to_mat4(m, e);
        m[12] = 5; /* translation ignored */
        arbor_quat_from_mat4(q, m);
        assert_true(q[3] >= 0);
        assert_vec_near(q, 4, EXACT * 10, e[0], e[1], e[2], e[3]);
    }
    /* A quaternion with w < 0 comes back as its w >= 0 twin. */
    const arbor_real neg[4] = {0, 0, (arbor_real)-0.6, (arbor_real)-0.8};
    arbor_quat_to_mat4(m, neg);
    arbor_quat_from_mat4(q, m);
    assert_vec_near(q, 4, EXACT, 0, 0, 0.6, 0.8);
    /* to_mat4 has no translation and the last row (0, 0, 0, 1). */
    arbor_quat_to_mat4(m, neg);
    assert_vec_near(m + 12, 4, 0, 0, 0, 0, 1);
    assert_true(m[3] == 0 && m[7] == 0 && m[11] == 0);
}

/* ---- the internal affine kernels --------------------------------------------------------- */

static void test_affine_conversions(void **state)
{
    (void)state;
    arbor_real m[16], a[12], back[16];
    for (int i = 0; i < 16; ++i) m[i] = (arbor_real)(i + 1);
    arbor__affine_from_mat4(a, m);
    assert_vec_near(a, 12, 0, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15); /* row by row */
    arbor__affine_to_mat4(back, a);
    assert_vec_near(back, 16, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 0, 13, 14, 15, 1);
}

static void test_affine_compose_matches_mat4(void **state)
{
    (void)state;
    rng_seed(99);
    for (int i = 0; i < 100; ++i) {
        arbor_real t[3], q[4], s[3], a[12], m[16], am[16];
        rng_trs(t, q, s, true);
        arbor__affine_compose(a, t, q, s);
        arbor_mat4_compose(m, t, q, s);
        arbor__affine_to_mat4(am, a);
        assert_memory_equal(am, m, sizeof m);
    }
}

/* affine_mul and mat4_mul agree on the top three rows of affine matrices. */
static void test_affine_mul_matches_mat4(void **state)
{
    (void)state;
    rng_seed(4242);
    for (int i = 0; i < 200; ++i) {
        arbor_real t[3], q[4], s[3], ma[16], mb[16], mab[16], a[12], b[12], ab[12];
        rng_trs(t, q, s, true);
        arbor_mat4_compose(ma, t, q, s);
        rng_trs(t, q, s, true);
        arbor_mat4_compose(mb, t, q, s);
        arbor_mat4_mul(mab, ma, mb);
        arbor__affine_from_mat4(a, ma);
        arbor__affine_from_mat4(b, mb);
        arbor__affine_mul(ab, a, b);
#if FLT_EVAL_METHOD == 0
        /* The extra terms of the 4x4 product are exact zeros: the same values. */
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r) assert_true(ab[r * 4 + c] == mab[c * 4 + r]);
#else
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r) assert_near(ab[r * 4 + c], mab[c * 4 + r], EXACT * 100);
#endif
        assert_true(mab[3] == 0 && mab[7] == 0 && mab[11] == 0 && mab[15] == 1);
    }
}

/* Each element is a_r0 b_0c + a_r1 b_1c + a_r2 b_2c + a_r3 e_c (e = (0, 0, 0, 1)), in that
   order, with no fused multiply-add; the SIMD kernel and the scalar reference agree bit for bit,
   signed zeros, infinities and NaNs included. */
static void test_affine_mul_fixed_order(void **state)
{
    (void)state;
    rng_seed(31337);
    arbor_real a[12], b[12], out[12], scalar[12];
    for (int round = 0; round < 1000; ++round) {
        for (int i = 0; i < 12; ++i) {
            a[i] = (arbor_real)rng_range(-3, 3);
            b[i] = (arbor_real)rng_range(-3, 3);
        }
        if (round % 10 == 1) a[round % 12] = -0.0f; /* special values now and then */
        if (round % 10 == 2) b[round % 12] = (arbor_real)INFINITY;
        if (round % 10 == 3) a[round % 12] = (arbor_real)NAN;
        arbor__affine_mul(out, a, b);
        arbor__affine_mul_scalar(scalar, a, b);
        assert_memory_equal(out, scalar, sizeof out);
        for (int c = 0; c < 4; ++c) {
            for (int r = 0; r < 3; ++r) {
                volatile arbor_real p0 = a[r * 4] * b[c];
                volatile arbor_real p1 = a[r * 4 + 1] * b[4 + c];
                volatile arbor_real p2 = a[r * 4 + 2] * b[8 + c];
                volatile arbor_real p3 = a[r * 4 + 3] * (arbor_real)(c == 3);
                volatile arbor_real v = p0 + p1;
                v = v + p2;
                v = v + p3;
                if (v == v) assert_true(out[r * 4 + c] == v && signbit(out[r * 4 + c]) == signbit(v));
                else assert_true(out[r * 4 + c] != out[r * 4 + c]);
            }
        }
    }
}

/* The kernel the scenes use to compose locals gives the scalar reference's bits, from the
   separate parts and from a scene's 10-value TRS. */
static void test_affine_compose_simd_matches_scalar(void **state)
{
    (void)state;
    rng_seed(2718);
    for (int round = 0; round < 1000; ++round) {
        arbor_real trs[10], a[12], scalar[12];
        rng_trs(trs, trs + 3, trs + 7, round % 2 == 0);
        if (round % 10 == 1) trs[3 + round % 4] = -0.0f;
        if (round % 10 == 2) trs[round % 10] = (arbor_real)INFINITY;
        if (round % 10 == 3) trs[round % 10] = (arbor_real)NAN;
        arbor__affine_compose(a, trs, trs + 3, trs + 7);
        arbor__affine_compose_scalar(scalar, trs, trs + 3, trs + 7);
        assert_memory_equal(a, scalar, sizeof a);
        arbor__rows_store(a, arbor__rows_compose_trs(trs));
        assert_memory_equal(a, scalar, sizeof a);
    }
    /* four at a time, as an update composes a run of animated nodes */
    arbor_real trs4[40], four[48], one[12];
    for (int round = 0; round < 250; ++round) {
        for (int k = 0; k < 4; ++k) rng_trs(trs4 + 10 * k, trs4 + 10 * k + 3, trs4 + 10 * k + 7, true);
        if (round % 10 == 1) trs4[round % 40] = -0.0f;
        if (round % 10 == 2) trs4[round % 40] = (arbor_real)INFINITY;
        arbor__compose4(four, trs4);
        for (int k = 0; k < 4; ++k) {
            arbor__affine_compose_scalar(one, trs4 + 10 * k, trs4 + 10 * k + 3, trs4 + 10 * k + 7);
            assert_memory_equal(four + 12 * k, one, sizeof one);
        }
    }
}

static void test_affine_mul_aliasing(void **state)
{
    (void)state;
    arbor_real a[12], b[12], expect_ab[12], expect_aa[12], m[12];
    const arbor_real t1[3] = {1, 2, 3}, s1[3] = {2, 1, (arbor_real)0.5};
    const arbor_real t2[3] = {-4, 0, 1}, s2[3] = {1, 3, 1};
    arbor_real q1[4], q2[4];
    quat_axis_deg(q1, 0, 1, 0, 30);
    quat_axis_deg(q2, 1, 0, 1, 70);
    arbor__affine_compose(a, t1, q1, s1);
    arbor__affine_compose(b, t2, q2, s2);
    arbor__affine_mul(expect_ab, a, b);
    arbor__affine_mul(expect_aa, a, a);
    memcpy(m, a, sizeof m);
    arbor__affine_mul(m, m, b);
    assert_memory_equal(m, expect_ab, sizeof m);
    memcpy(m, b, sizeof m);
    arbor__affine_mul(m, a, m);
    assert_memory_equal(m, expect_ab, sizeof m);
    memcpy(m, a, sizeof m);
    arbor__affine_mul(m, m, m);
    assert_memory_equal(m, expect_aa, sizeof m);
    /* The translation column: a * b moves b's origin by a. */
    arbor_real p[3];
    arbor_real mab[16], mb[16];
    arbor__affine_to_mat4(mab, expect_ab);
    arbor__affine_to_mat4(mb, b);
    arbor_real ma[16];
    arbor__affine_to_mat4(ma, a);
    arbor_mat4_transform_point(p, ma, t2);
    assert_vec_near(mab + 12, 3, EXACT * 10, p[0], p[1], p[2]);
}

static void test_affine_invert(void **state)
{
    (void)state;
    arbor_real a[12], inv[12], prod[12], sentinel[12];
    const arbor_real t[3] = {1, 2, 3}, s[3] = {2, -1, (arbor_real)0.5};
    arbor_real q[4];
    quat_axis_deg(q, 1, 1, 1, 50);
    arbor__affine_compose(a, t, q, s);
    assert_true(arbor__affine_invert(inv, a));
    arbor__affine_mul(prod, a, inv);
    assert_vec_near(prod, 12, EXACT * 10, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0);
    /* In place. */
    assert_true(arbor__affine_invert(a, a));
    assert_memory_equal(a, inv, sizeof a);
    /* Singular: out untouched. */
    const arbor_real s0[3] = {1, 1, 0};
    arbor__affine_compose(a, t, q, s0);
    for (int i = 0; i < 12; ++i) sentinel[i] = inv[i] = (arbor_real)(50 + i);
    assert_false(arbor__affine_invert(inv, a));
    assert_memory_equal(inv, sentinel, sizeof inv);
}

static void test_affine_decompose(void **state)
{
    (void)state;
    arbor_real a[12], t[3], q[4], s[3];
    const arbor_real tt[3] = {4, 5, 6}, ss[3] = {1, 2, 3};
    arbor_real q0[4];
    quat_axis_deg(q0, 0, 1, 0, 45);
    arbor__affine_compose(a, tt, q0, ss);
    assert_true(arbor__affine_decompose(a, t, q, s));
    assert_vec_near(t, 3, 0, 4, 5, 6);
    assert_vec_near(s, 3, EXACT, 1, 2, 3);
    assert_vec_near(q, 4, EXACT, q0[0], q0[1], q0[2], q0[3]);
    a[ARBOR__AT(0, 1)] = a[ARBOR__AT(0, 1)] + (arbor_real)0.5; /* shear column 1 toward x */
    assert_false(arbor__affine_decompose(a, t, q, s));
    a[ARBOR__AT(0, 1)] = (arbor_real)NAN;
    assert_false(arbor__affine_decompose(a, t, q, s));
    assert_vec_near(q, 4, 0, 0, 0, 0, 1);
}

static void test_all_finite(void **state)
{
    (void)state;
    arbor_real v[5] = {0, -1, (arbor_real)1e30, (arbor_real)-0.0, (arbor_real)FLT_MIN};
    assert_true(arbor__all_finite(v, 5));
    assert_true(arbor__all_finite(v, 0));
    v[4] = (arbor_real)NAN;
    assert_false(arbor__all_finite(v, 5));
    assert_true(arbor__all_finite(v, 4));
    v[4] = (arbor_real)INFINITY;
    assert_false(arbor__all_finite(v, 5));
    v[4] = (arbor_real)-INFINITY;
    assert_false(arbor__all_finite(v, 5));
}

/* The same inputs give the same bits. */
static void test_deterministic(void **state)
{
    (void)state;
    rng_seed(2718);
    for (int i = 0; i < 50; ++i) {
        arbor_real t[3], q[4], s[3], m1[16], m2[16], r1[4], r2[4], s1[3], s2[3], t1[3], t2[3];
        rng_trs(t, q, s, true);
        arbor_mat4_compose(m1, t, q, s);
        arbor_mat4_compose(m2, t, q, s);
        assert_memory_equal(m1, m2, sizeof m1);
        assert_true(arbor_mat4_decompose(m1, t1, r1, s1));
        assert_true(arbor_mat4_decompose(m2, t2, r2, s2));
        assert_memory_equal(r1, r2, sizeof r1);
        assert_memory_equal(s1, s2, sizeof s1);
        assert_true(arbor_mat4_invert_affine(m1, m1));
        assert_true(arbor_mat4_invert_affine(m2, m2));
        assert_memory_equal(m1, m2, sizeof m1);
    }
}

/* The shared splitmix64 (bench/splitmix64.h) gives the reference implementation's first outputs
   from seed 0 (Vigna's splitmix64.c, the values its test vectors list). */
static void test_splitmix64(void **state)
{
    (void)state;
    uint64_t s = 0;
    assert_true(splitmix64_next(&s) == UINT64_C(0xE220A8397B1DCDAF));
    assert_true(splitmix64_next(&s) == UINT64_C(0x6E789E6AA1B965F4));
    assert_true(splitmix64_next(&s) == UINT64_C(0x06C45D188009454F));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_mul_general),
        cmocka_unit_test(test_mul_aliasing),
        cmocka_unit_test(test_course_two_node_chain),
        cmocka_unit_test(test_course_exercises_1_2),
        cmocka_unit_test(test_course_exercise_3),
        cmocka_unit_test(test_course_exercise_4),
        cmocka_unit_test(test_course_demo_pose),
        cmocka_unit_test(test_course_between_nodes),
        cmocka_unit_test(test_course_camera),
        cmocka_unit_test(test_course_mirrored_arm),
        cmocka_unit_test(test_course_inherited_shear),
        cmocka_unit_test(test_course_exercise_9),
        cmocka_unit_test(test_gltf_figure_4),
        cmocka_unit_test(test_compose_defaults),
        cmocka_unit_test(test_compose_unnormalised_quat),
        cmocka_unit_test(test_compose_rotation_direction),
        cmocka_unit_test(test_decompose_identity_and_nulls),
        cmocka_unit_test(test_decompose_mirror),
        cmocka_unit_test(test_decompose_not_affine),
        cmocka_unit_test(test_decompose_nonfinite),
        cmocka_unit_test(test_decompose_zero_columns),
        cmocka_unit_test(test_decompose_parallel_columns),
        cmocka_unit_test(test_decompose_tolerance),
        cmocka_unit_test(test_decompose_roundtrip_random),
        cmocka_unit_test(test_invert_singular),
        cmocka_unit_test(test_invert_small_scale_is_not_singular),
        cmocka_unit_test(test_invert_random),
        cmocka_unit_test(test_invert_ignores_last_row),
        cmocka_unit_test(test_transform_point_dir),
        cmocka_unit_test(test_determinant3),
        cmocka_unit_test(test_quat_from_axis_angle),
        cmocka_unit_test(test_quat_normalize),
        cmocka_unit_test(test_quat_slerp),
        cmocka_unit_test(test_quat_mul),
        cmocka_unit_test(test_quat_mat4_roundtrip),
        cmocka_unit_test(test_affine_conversions),
        cmocka_unit_test(test_affine_compose_matches_mat4),
        cmocka_unit_test(test_affine_mul_matches_mat4),
        cmocka_unit_test(test_affine_mul_fixed_order),
        cmocka_unit_test(test_affine_compose_simd_matches_scalar),
        cmocka_unit_test(test_affine_mul_aliasing),
        cmocka_unit_test(test_affine_invert),
        cmocka_unit_test(test_affine_decompose),
        cmocka_unit_test(test_all_finite),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_splitmix64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
