/* SPDX-License-Identifier: MIT */
/*
 * The math module: matrices and quaternions on plain arrays of arbor_real.
 *
 * Every function evaluates each output with one fixed expression (left to right, no fused
 * multiply-add: the library is built with -ffp-contract=off), so the same inputs give the same
 * bits on every path. The libm functions are the ones of arbor_real's type (sqrtf for float,
 * sqrt for double).
 *
 * Affine kernels work on 12 values (the first three rows of a 4x4, row by row: see
 * math/affine.h); the public 4x4 functions convert to them where the last row is implied.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "arbor/math.h"
#include "math/affine.h"

#define R(x) ((arbor_real)(x))

/* Singular-matrix threshold of the affine inverse, relative to the product of the column
   lengths; norm helpers' range in which the plain sum of squares neither overflows nor
   underflows. */
#if ARBOR_REAL_IS_DOUBLE
#define INVERT_EPSILON 1e-12
#define NORM_SAFE_LO 1e-150
#define NORM_SAFE_HI 1e150
#else
#define INVERT_EPSILON 1e-6f
#define NORM_SAFE_LO 1e-18f
#define NORM_SAFE_HI 1e18f
#endif

/* ---- real-typed libm --------------------------------------------------------------------- */

/* The libm function of arbor_real's precision: sqrt or sqrtf, and so on. */
#if ARBOR_REAL_IS_DOUBLE
#define REAL_FN(name) name
#else
#define REAL_FN(name) name##f
#endif

static inline arbor_real real_sqrt(arbor_real x) { return REAL_FN(sqrt)(x); }
static inline arbor_real real_fabs(arbor_real x) { return REAL_FN(fabs)(x); }
static inline arbor_real real_sin(arbor_real x) { return REAL_FN(sin)(x); }
static inline arbor_real real_cos(arbor_real x) { return REAL_FN(cos)(x); }

static inline bool real_isfinite(arbor_real x) { return isfinite(x) != 0; }

static inline arbor_real real_max(arbor_real a, arbor_real b) { return a > b ? a : b; }

/* Euclidean length of v[0..n) without spurious overflow or underflow: the plain sum of squares
   when the largest magnitude is in a safe range, otherwise the values are first divided by it.
   NaN when a value is NaN, infinity when one is infinite. */
static arbor_real real_norm(const arbor_real *v, size_t n)
{
    arbor_real m = R(0);
    for (size_t i = 0; i < n; ++i) {
        if (!real_isfinite(v[i])) {
            return real_fabs(v[i]) + real_fabs(v[i]); /* inf stays inf, NaN stays NaN */
        }
        m = real_max(m, real_fabs(v[i]));
    }
    if (m == R(0)) {
        return R(0);
    }
    arbor_real sum = R(0);
    if (m >= NORM_SAFE_LO && m <= NORM_SAFE_HI) {
        for (size_t i = 0; i < n; ++i) {
            sum = sum + v[i] * v[i];
        }
        return real_sqrt(sum);
    }
    for (size_t i = 0; i < n; ++i) {
        arbor_real x = v[i] / m;
        sum = sum + x * x;
    }
    return m * real_sqrt(sum);
}

static inline arbor_real dot3(const arbor_real a[3], const arbor_real b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3(arbor_real out[3], const arbor_real a[3], const arbor_real b[3])
{
    arbor_real x = a[1] * b[2] - a[2] * b[1];
    arbor_real y = a[2] * b[0] - a[0] * b[2];
    arbor_real z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* Determinant of the 3x3 whose columns are c0, c1, c2: c0 . (c1 x c2). */
static inline arbor_real det3_cols(const arbor_real c0[3], const arbor_real c1[3], const arbor_real c2[3])
{
    return c0[0] * (c1[1] * c2[2] - c1[2] * c2[1]) - c1[0] * (c0[1] * c2[2] - c0[2] * c2[1]) +
           c2[0] * (c0[1] * c1[2] - c0[2] * c1[1]);
}

/* ---- affine kernels ---------------------------------------------------------------------- */

/* The affine form's columns, one after another (column c at 3 c, translation at 9): the
   column algebra below reads them as vectors. to_columns and from_columns are inverses. */
static void to_columns(arbor_real cols[12], const arbor_real a[12])
{
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 3; ++r) {
            cols[c * 3 + r] = a[ARBOR__AT(r, c)];
        }
    }
}

static void from_columns(arbor_real a[12], const arbor_real cols[12])
{
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 3; ++r) {
            a[ARBOR__AT(r, c)] = cols[c * 3 + r];
        }
    }
}

bool arbor__affine_invert(arbor_real out[12], const arbor_real a[12])
{
    if (!arbor__all_finite(a, 12)) {
        return false;
    }
    arbor_real cols[12];
    to_columns(cols, a);
    const arbor_real *c0 = cols, *c1 = cols + 3, *c2 = cols + 6, *t = cols + 9;
    const arbor_real l0 = real_norm(c0, 3), l1 = real_norm(c1, 3), l2 = real_norm(c2, 3);
    if (l0 == R(0) || l1 == R(0) || l2 == R(0)) {
        return false;
    }
    const arbor_real det = det3_cols(c0, c1, c2);
    if (!real_isfinite(det) || real_fabs(det) <= INVERT_EPSILON * (l0 * l1 * l2)) {
        return false;
    }

    /* The rows of the inverse are (c1 x c2, c2 x c0, c0 x c1) / det. */
    arbor_real rows[3][3];
    cross3(rows[0], c1, c2);
    cross3(rows[1], c2, c0);
    cross3(rows[2], c0, c1);

    arbor_real r[12];
    for (int row = 0; row < 3; ++row) {
        for (int c = 0; c < 3; ++c) {
            r[c * 3 + row] = rows[row][c] / det;
        }
    }
    for (int row = 0; row < 3; ++row) {
        r[9 + row] = -(r[0 + row] * t[0] + r[3 + row] * t[1] + r[6 + row] * t[2]);
    }
    if (!arbor__all_finite(r, 12)) {
        return false;
    }
    from_columns(out, r);
    return true;
}

/* Unit quaternion (w >= 0) of the rotation whose columns are u0, u1, u2 (Shepperd's method:
   the largest of 4w^2, 4x^2, 4y^2, 4z^2 picks the stable formula). */
static void quat_from_columns(arbor_real out[4], const arbor_real u0[3], const arbor_real u1[3], const arbor_real u2[3])
{
    const arbor_real m00 = u0[0], m10 = u0[1], m20 = u0[2];
    const arbor_real m01 = u1[0], m11 = u1[1], m21 = u1[2];
    const arbor_real m02 = u2[0], m12 = u2[1], m22 = u2[2];
    const arbor_real trace = m00 + m11 + m22;
    arbor_real q[4];
    if (trace >= m00 && trace >= m11 && trace >= m22) {
        const arbor_real s = R(2) * real_sqrt(R(1) + trace); /* 4w */
        q[3] = R(0.25) * s;
        q[0] = (m21 - m12) / s;
        q[1] = (m02 - m20) / s;
        q[2] = (m10 - m01) / s;
    } else if (m00 >= m11 && m00 >= m22) {
        const arbor_real s = R(2) * real_sqrt(R(1) + m00 - m11 - m22); /* 4x */
        q[0] = R(0.25) * s;
        q[1] = (m01 + m10) / s;
        q[2] = (m02 + m20) / s;
        q[3] = (m21 - m12) / s;
    } else if (m11 >= m22) {
        const arbor_real s = R(2) * real_sqrt(R(1) + m11 - m00 - m22); /* 4y */
        q[0] = (m01 + m10) / s;
        q[1] = R(0.25) * s;
        q[2] = (m12 + m21) / s;
        q[3] = (m02 - m20) / s;
    } else {
        const arbor_real s = R(2) * real_sqrt(R(1) + m22 - m00 - m11); /* 4z */
        q[0] = (m02 + m20) / s;
        q[1] = (m12 + m21) / s;
        q[2] = R(0.25) * s;
        q[3] = (m10 - m01) / s;
    }
    arbor_quat_normalize(q, q);
    if (q[3] < R(0)) {
        q[0] = -q[0];
        q[1] = -q[1];
        q[2] = -q[2];
        q[3] = -q[3];
    }
    q[3] = q[3] + R(0); /* -0 -> +0 */
    memcpy(out, q, sizeof q);
}

/* out = a unit vector perpendicular to the unit vector u (deterministic choice). */
static void any_perpendicular(arbor_real out[3], const arbor_real u[3])
{
    const arbor_real ax = real_fabs(u[0]), ay = real_fabs(u[1]), az = real_fabs(u[2]);
    arbor_real e[3] = {0, 0, 0};
    if (ax <= ay && ax <= az) {
        e[0] = R(1);
    } else if (ay <= az) {
        e[1] = R(1);
    } else {
        e[2] = R(1);
    }
    arbor_real p[3];
    cross3(p, u, e);
    const arbor_real l = real_norm(p, 3);
    out[0] = p[0] / l;
    out[1] = p[1] / l;
    out[2] = p[2] / l;
}

/* out = unit part of v orthogonal to the unit vector u; false when v is (nearly) along u. */
static bool orthonormalize(arbor_real out[3], const arbor_real v[3], const arbor_real u[3])
{
    const arbor_real d = dot3(v, u);
    arbor_real p[3] = {v[0] - d * u[0], v[1] - d * u[1], v[2] - d * u[2]};
    const arbor_real l = real_norm(p, 3);
    if (!(l > ARBOR_DECOMPOSE_TOLERANCE)) {
        return false;
    }
    out[0] = p[0] / l;
    out[1] = p[1] / l;
    out[2] = p[2] / l;
    return true;
}

bool arbor__affine_decompose(const arbor_real affine[12], arbor_real t[3], arbor_real q[4], arbor_real s[3])
{
    arbor_real a[12];
    to_columns(a, affine);
    if (t) {
        t[0] = a[9];
        t[1] = a[10];
        t[2] = a[11];
    }
    arbor_real len[3];
    for (int c = 0; c < 3; ++c) {
        len[c] = real_norm(a + c * 3, 3);
    }
    if (!arbor__all_finite(a, 12)) {
        if (q) {
            q[0] = q[1] = q[2] = R(0);
            q[3] = R(1);
        }
        if (s) {
            memcpy(s, len, sizeof len);
        }
        return false;
    }

    /* Normalised columns; a zero column is absent (and left zero). */
    arbor_real n[3][3];
    bool present[3];
    for (int c = 0; c < 3; ++c) {
        present[c] = len[c] > R(0);
        for (int r = 0; r < 3; ++r) {
            n[c][r] = present[c] ? a[c * 3 + r] / len[c] : R(0);
        }
    }

    /* A reflection (negative determinant, taken on the normalised columns so that it cannot
       overflow) is carried by scale Y and column 1. */
    const bool mirror = det3_cols(n[0], n[1], n[2]) < R(0);
    if (mirror) {
        for (int r = 0; r < 3; ++r) {
            n[1][r] = -n[1][r];
        }
    }

    /* Shear: normalised columns not orthogonal. */
    bool shear = false;
    for (int i = 0; i < 3; ++i) {
        for (int j = i + 1; j < 3; ++j) {
            if (present[i] && present[j] && real_fabs(dot3(n[i], n[j])) > ARBOR_DECOMPOSE_TOLERANCE) {
                shear = true;
            }
        }
    }

    if (s) {
        s[0] = len[0];
        s[1] = mirror ? -len[1] : len[1];
        s[2] = len[2];
    }

    if (q) {
        /* Gram-Schmidt from column 0; missing or parallel columns are filled so that the basis
           stays right-handed: u2 = u0 x u1, u1 = u2 x u0, u0 = u1 x u2. */
        arbor_real u[3][3];
        if (present[0]) {
            memcpy(u[0], n[0], sizeof u[0]);
            if (present[1] && orthonormalize(u[1], n[1], u[0])) {
                cross3(u[2], u[0], u[1]);
            } else if (present[2] && orthonormalize(u[2], n[2], u[0])) {
                cross3(u[1], u[2], u[0]);
            } else {
                any_perpendicular(u[1], u[0]);
                cross3(u[2], u[0], u[1]);
            }
        } else if (present[1]) {
            memcpy(u[1], n[1], sizeof u[1]);
            if (!(present[2] && orthonormalize(u[2], n[2], u[1]))) {
                any_perpendicular(u[2], u[1]);
            }
            cross3(u[0], u[1], u[2]);
        } else if (present[2]) {
            memcpy(u[2], n[2], sizeof u[2]);
            any_perpendicular(u[0], u[2]);
            cross3(u[1], u[2], u[0]);
        } else {
            static const arbor_real identity3[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
            memcpy(u, identity3, sizeof u);
        }
        quat_from_columns(q, u[0], u[1], u[2]);
    }
    return !shear;
}

/* ---- public 4x4 functions ---------------------------------------------------------------- */

void arbor_mat4_identity(arbor_real out[16])
{
    if (!out) return; /* NULL: nothing to do (math.h) */
    for (int i = 0; i < 16; ++i) {
        out[i] = (i % 5 == 0) ? R(1) : R(0);
    }
}

void arbor_mat4_mul(arbor_real out[16], const arbor_real a[16], const arbor_real b[16])
{
    if (!out || !a || !b) return; /* NULL: nothing to do (math.h) */
    arbor_real r[16];
    for (int c = 0; c < 4; ++c) {
        const arbor_real b0 = b[c * 4 + 0], b1 = b[c * 4 + 1], b2 = b[c * 4 + 2], b3 = b[c * 4 + 3];
        for (int row = 0; row < 4; ++row) {
            r[c * 4 + row] = a[0 + row] * b0 + a[4 + row] * b1 + a[8 + row] * b2 + a[12 + row] * b3;
        }
    }
    memcpy(out, r, sizeof r);
}

void arbor_mat4_compose(arbor_real out[16], const arbor_real t[3], const arbor_real r[4], const arbor_real s[3])
{
    if (!out) return; /* NULL: nothing to do (math.h) */
    static const arbor_real zero3[3] = {0, 0, 0}, one3[3] = {1, 1, 1}, quat_identity[4] = {0, 0, 0, 1};
    arbor_real a[12];
    arbor__affine_compose(a, t ? t : zero3, r ? r : quat_identity, s ? s : one3);
    arbor__affine_to_mat4(out, a);
}

bool arbor_mat4_decompose(const arbor_real m[16], arbor_real t[3], arbor_real r[4], arbor_real s[3])
{
    if (!m) return false; /* NULL: nothing to do (math.h) */
    arbor_real a[12];
    arbor__affine_from_mat4(a, m);
    bool ok = arbor__affine_decompose(a, t, r, s);

    /* Last row (0, 0, 0, 1): the w of each axis column relative to its length (at least 1). */
    if (!real_isfinite(m[3]) || !real_isfinite(m[7]) || !real_isfinite(m[11]) || !real_isfinite(m[15])) {
        return false;
    }
    for (int c = 0; c < 3; ++c) {
        const arbor_real scale = real_max(R(1), real_norm(m + c * 4, 3));
        if (real_fabs(m[c * 4 + 3]) > ARBOR_DECOMPOSE_TOLERANCE * scale) {
            ok = false;
        }
    }
    if (real_fabs(m[15] - R(1)) > ARBOR_DECOMPOSE_TOLERANCE) {
        ok = false;
    }
    return ok;
}

bool arbor_mat4_invert_affine(arbor_real out[16], const arbor_real m[16])
{
    if (!out || !m) return false; /* NULL: nothing to do (math.h) */
    arbor_real a[12];
    arbor__affine_from_mat4(a, m);
    if (!arbor__affine_invert(a, a)) {
        return false;
    }
    arbor__affine_to_mat4(out, a);
    return true;
}

void arbor_mat4_transform_point(arbor_real out3[3], const arbor_real m[16], const arbor_real p3[3])
{
    if (!out3 || !m || !p3) return; /* NULL: nothing to do (math.h) */
    const arbor_real x = p3[0], y = p3[1], z = p3[2];
    arbor_real r[3];
    for (int row = 0; row < 3; ++row) {
        r[row] = m[0 + row] * x + m[4 + row] * y + m[8 + row] * z + m[12 + row];
    }
    memcpy(out3, r, sizeof r);
}

void arbor_mat4_transform_dir(arbor_real out3[3], const arbor_real m[16], const arbor_real d3[3])
{
    if (!out3 || !m || !d3) return; /* NULL: nothing to do (math.h) */
    const arbor_real x = d3[0], y = d3[1], z = d3[2];
    arbor_real r[3];
    for (int row = 0; row < 3; ++row) {
        r[row] = m[0 + row] * x + m[4 + row] * y + m[8 + row] * z;
    }
    memcpy(out3, r, sizeof r);
}

arbor_real arbor__affine_det3(const arbor_real a[12])
{
    arbor_real cols[12];
    to_columns(cols, a);
    return det3_cols(cols, cols + 3, cols + 6);
}

arbor_real arbor_mat4_determinant3(const arbor_real m[16])
{
    if (!m) return 0; /* NULL: nothing to do (math.h) */
    const arbor_real c0[3] = {m[0], m[1], m[2]};
    const arbor_real c1[3] = {m[4], m[5], m[6]};
    const arbor_real c2[3] = {m[8], m[9], m[10]};
    return det3_cols(c0, c1, c2);
}

/* ---- quaternions ------------------------------------------------------------------------- */

void arbor_quat_from_axis_angle(arbor_real out[4], const arbor_real axis[3], arbor_real radians)
{
    if (!out || !axis) return; /* NULL: nothing to do (math.h) */
    const arbor_real l = real_norm(axis, 3);
    if (!(l > R(0)) || !real_isfinite(l)) {
        out[0] = out[1] = out[2] = R(0);
        out[3] = R(1);
        return;
    }
    const arbor_real half = radians * R(0.5);
    const arbor_real sn = real_sin(half), cs = real_cos(half);
    const arbor_real x = axis[0] / l, y = axis[1] / l, z = axis[2] / l;
    out[0] = x * sn;
    out[1] = y * sn;
    out[2] = z * sn;
    out[3] = cs;
}

bool arbor_quat_normalize(arbor_real out[4], const arbor_real q[4])
{
    if (!out) return false; /* NULL: nothing to do (math.h) */
    if (!q) {
        out[0] = out[1] = out[2] = 0;
        out[3] = 1;
        return false;
    }
    if (arbor__quat_normalize_fast(out, q)) return true;
    /* Divided by its largest component first: the length of a finite q may overflow (components
       near the largest finite value) or underflow, its direction never does. */
    arbor_real m = R(0);
    bool finite = true;
    for (int i = 0; i < 4; ++i) {
        finite = finite && real_isfinite(q[i]);
        m = real_max(m, real_fabs(q[i]));
    }
    if (!finite || !(m > R(0))) {
        out[0] = out[1] = out[2] = R(0);
        out[3] = R(1);
        return false;
    }
    arbor_real v[4];
    for (int i = 0; i < 4; ++i) v[i] = q[i] / m;
    const arbor_real l = real_norm(v, 4);
    for (int i = 0; i < 4; ++i) out[i] = v[i] / l;
    return true;
}

void arbor_quat_slerp(arbor_real out[4], const arbor_real a[4], const arbor_real b[4], arbor_real t)
{
    if (!out || !a || !b) return; /* NULL: nothing to do (math.h) */
    arbor_real qa[4], qb[4];
    arbor_quat_normalize(qa, a);
    arbor_quat_normalize(qb, b);
    arbor_real d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
    if (d < R(0)) { /* the shorter arc */
        for (int i = 0; i < 4; ++i) {
            qb[i] = -qb[i];
        }
        d = -d;
    }
    arbor_real wa, wb, r[4];
    arbor__slerp_weights(t, d, &wa, &wb);
    for (int i = 0; i < 4; ++i) {
        r[i] = wa * qa[i] + wb * qb[i];
    }
    arbor_quat_normalize(out, r);
}

void arbor_quat_mul(arbor_real out[4], const arbor_real q1[4], const arbor_real q2[4])
{
    if (!out || !q1 || !q2) return; /* NULL: nothing to do (math.h) */
    const arbor_real x1 = q1[0], y1 = q1[1], z1 = q1[2], w1 = q1[3];
    const arbor_real x2 = q2[0], y2 = q2[1], z2 = q2[2], w2 = q2[3];
    out[0] = w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2;
    out[1] = w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2;
    out[2] = w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2;
    out[3] = w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2;
}

void arbor_quat_to_mat4(arbor_real out[16], const arbor_real q[4])
{
    if (!out || !q) return; /* NULL: nothing to do (math.h) */
    arbor_mat4_compose(out, NULL, q, NULL);
}

void arbor_quat_from_mat4(arbor_real out[4], const arbor_real m[16])
{
    if (!out || !m) return; /* NULL: nothing to do (math.h) */
    const arbor_real c0[3] = {m[0], m[1], m[2]};
    const arbor_real c1[3] = {m[4], m[5], m[6]};
    const arbor_real c2[3] = {m[8], m[9], m[10]};
    quat_from_columns(out, c0, c1, c2);
}

const char *arbor_simd_path(void) {
#if defined(ARBOR_SCALAR_KERNELS) || !defined(__GNUC__)
    return "scalar";
#elif ARBOR__CLONES
    /* what the loader's ifunc picks for the target_clones kernels */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? "AVX2" : "SSE2";
#elif defined(__AVX2__)
    return "AVX2";
#elif defined(__SSE2__)
    return "SSE2";
#elif defined(__ARM_NEON)
    return "NEON";
#else
    return "scalar";
#endif
}
