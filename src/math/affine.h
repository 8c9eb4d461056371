/*
 * Internal affine kernels shared by the scene and the public math functions.
 *
 * An affine matrix here is 12 arbor_real: the first three rows of a column-major 4x4, stored
 * column by column (element [c * 3 + r] is row r of column c; translation in 9, 10, 11). The
 * last row is implicitly (0, 0, 0, 1).
 *
 * Every world matrix of a scene is made by arbor__affine_mul and every local matrix by
 * arbor__affine_compose, on every path (lazy read, batch update), so results agree bit for bit.
 * The library is built with -ffp-contract=off so the compiler cannot fuse differently per path.
 */
#ifndef ARBOR_MATH_AFFINE_H
#define ARBOR_MATH_AFFINE_H

#include <math.h>

#include "arbor/math.h"

/* The kernels of the hot loops are inline so the update and the setters compile them in place;
   being the same expressions in every translation unit, they give the same bits everywhere. */
#if defined(__GNUC__)
#define ARBOR__HOT static inline __attribute__((always_inline))
#else
#define ARBOR__HOT static inline
#endif

/* out = T(t) * R(q) * S(s); q is used as given (unit for a rotation). */
ARBOR__HOT void arbor__affine_compose(arbor_real out[12], const arbor_real t[3], const arbor_real q[4],
                                         const arbor_real s[3]) {
    const arbor_real x = q[0], y = q[1], z = q[2], w = q[3];
    const arbor_real xx = x * x, yy = y * y, zz = z * z;
    const arbor_real xy = x * y, xz = x * z, yz = y * z;
    const arbor_real wx = w * x, wy = w * y, wz = w * z;
    const arbor_real one = 1, two = 2, sx = s[0], sy = s[1], sz = s[2];
    const arbor_real tx = t[0], ty = t[1], tz = t[2];
    out[0] = (one - two * (yy + zz)) * sx;
    out[1] = (two * (xy + wz)) * sx;
    out[2] = (two * (xz - wy)) * sx;
    out[3] = (two * (xy - wz)) * sy;
    out[4] = (one - two * (xx + zz)) * sy;
    out[5] = (two * (yz + wx)) * sy;
    out[6] = (two * (xz + wy)) * sz;
    out[7] = (two * (yz - wx)) * sz;
    out[8] = (one - two * (xx + yy)) * sz;
    out[9] = tx;
    out[10] = ty;
    out[11] = tz;
}

/* out = a * b. out may alias a or b. Each element is a0*b0 + a1*b1 + a2*b2 (+ a_t), in that
   order. Inputs are read into locals first (aliasing) and results stored straight to out: a
   temporary array copied out costs a store-forwarding stall per element group. */
ARBOR__HOT void arbor__affine_mul(arbor_real out[12], const arbor_real a[12], const arbor_real b[12]) {
    const arbor_real a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4], a5 = a[5];
    const arbor_real a6 = a[6], a7 = a[7], a8 = a[8], a9 = a[9], a10 = a[10], a11 = a[11];
    const arbor_real b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4], b5 = b[5];
    const arbor_real b6 = b[6], b7 = b[7], b8 = b[8], b9 = b[9], b10 = b[10], b11 = b[11];
    out[0] = a0 * b0 + a3 * b1 + a6 * b2;
    out[1] = a1 * b0 + a4 * b1 + a7 * b2;
    out[2] = a2 * b0 + a5 * b1 + a8 * b2;
    out[3] = a0 * b3 + a3 * b4 + a6 * b5;
    out[4] = a1 * b3 + a4 * b4 + a7 * b5;
    out[5] = a2 * b3 + a5 * b4 + a8 * b5;
    out[6] = a0 * b6 + a3 * b7 + a6 * b8;
    out[7] = a1 * b6 + a4 * b7 + a7 * b8;
    out[8] = a2 * b6 + a5 * b7 + a8 * b8;
    out[9] = a0 * b9 + a3 * b10 + a6 * b11 + a9;
    out[10] = a1 * b9 + a4 * b10 + a7 * b11 + a10;
    out[11] = a2 * b9 + a5 * b10 + a8 * b11 + a11;
}

/* q / |q| when the sum of squares is inside the range where it needs no scaling: the first
   path of arbor_quat_normalize, inline for the setters. False (out untouched) otherwise. */
ARBOR__HOT bool arbor__quat_normalize_fast(arbor_real out[4], const arbor_real q[4]) {
#if ARBOR_REAL_IS_DOUBLE
    const arbor_real lo = 1e-300, hi = 1e300;
#else
    const arbor_real lo = 1e-36f, hi = 1e36f;
#endif
    arbor_real sum = 0;
    sum = sum + q[0] * q[0];
    sum = sum + q[1] * q[1];
    sum = sum + q[2] * q[2];
    sum = sum + q[3] * q[3];
    if (!(sum > lo && sum < hi)) return false;
#if ARBOR_REAL_IS_DOUBLE
    const arbor_real l = sqrt(sum);
#else
    const arbor_real l = sqrtf(sum);
#endif
    out[0] = q[0] / l;
    out[1] = q[1] / l;
    out[2] = q[2] / l;
    out[3] = q[3] / l;
    return true;
}

/* Conversions to and from the public 4x4 form (from_mat4 drops the last row). out may be the
   same array as the input (the copy runs in the safe direction), not otherwise overlap it. */
static inline void arbor__affine_to_mat4(arbor_real out[16], const arbor_real a[12]) {
    for (int c = 3; c >= 0; --c) {
        const arbor_real x = a[c * 3 + 0], y = a[c * 3 + 1], z = a[c * 3 + 2];
        out[c * 4 + 0] = x;
        out[c * 4 + 1] = y;
        out[c * 4 + 2] = z;
        out[c * 4 + 3] = c == 3 ? 1 : 0;
    }
}
static inline void arbor__affine_from_mat4(arbor_real out[12], const arbor_real m[16]) {
    for (int c = 0; c < 4; ++c) {
        const arbor_real x = m[c * 4 + 0], y = m[c * 4 + 1], z = m[c * 4 + 2];
        out[c * 3 + 0] = x;
        out[c * 3 + 1] = y;
        out[c * 3 + 2] = z;
    }
}

/* Inverse of an affine matrix; false (out untouched) when singular. out may alias a. */
bool arbor__affine_invert(arbor_real out[12], const arbor_real a[12]);

/* arbor_mat4_decompose on the affine form: false when there is a shear. */
bool arbor__affine_decompose(const arbor_real a[12], arbor_real t[3], arbor_real q[4], arbor_real s[3]);

/* True when all n values are finite: v - v is 0 for a finite value and NaN for an infinity or
   a NaN, and a NaN survives the sum (no branch per value). */
ARBOR__HOT bool arbor__all_finite(const arbor_real *v, size_t n) {
    arbor_real zero = 0;
    for (size_t i = 0; i < n; ++i) zero = zero + (v[i] - v[i]);
    return zero == 0;
}

#endif
